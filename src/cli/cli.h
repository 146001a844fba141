/*
 * cli.h - shared machinery of the tshape program. The CLI uses only the
 * public API in include/tshape.h; nothing from src/ is included here.
 *
 *   commands.def  the command table: one row per command
 *   options.c     the one command-line parser, driven by option tables, and
 *                 each command's --help
 *   output.c      standard output: the buffer, the one string escaper, the
 *                 one JSON writer and the print_* record functions
 *   errors.c      error lines on standard error, all in one form
 *   input.c       operands or stdin lines, and argument parsers
 *   cmd_*.c       the commands
 *
 * Exit statuses (man page, EXIT STATUS): 0 success or true, 1 false (a
 * predicate such as eq or contiguous), 2 bad input, usage error or I/O error.
 */
#ifndef TSHAPE_CLI_H
#define TSHAPE_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* The CLI exposes the experimental functions too (einops, jagged, ...). */
#ifndef TS_EXPERIMENTAL_API
#define TS_EXPERIMENTAL_API
#endif
#include "tshape.h"

#define CLI_OK 0
#define CLI_FALSE 1
#define CLI_ERROR 2

#if defined(__GNUC__)
#define CLI_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CLI_PRINTF(f, a)
#endif

/* ---- the per-run context ------------------------------------------------- */

/* JSON containers nest at most this deep (info's records use 3 levels). */
#define CLI_JSON_DEPTH 16

/* Standard output: one 64 KiB buffer written with write(2). The shape
 * commands run on millions of lines, and stdio's locking per call costs more
 * than the arithmetic. */
typedef struct cli_out {
    size_t len;
    int error;        /* errno of the first failed write (not EPIPE), or 0 */
    int closed;       /* the reader went away (EPIPE): output is dropped */
    int depth;        /* open JSON containers */
    unsigned char more[CLI_JSON_DEPTH]; /* a value was written at this level */
    char buf[1 << 16];
} cli_out;

typedef struct cli_command cli_command;

/* Everything one run of the program changes: no other mutable state. */
typedef struct cli_ctx {
    const cli_command *cmd; /* the running command; NULL before it is known */
    int json;               /* --json given, before or after the command */
    int status;             /* worst status reported so far (errors: 2) */
    cli_out out;
} cli_ctx;

/* ---- options and commands ------------------------------------------------- */

/*
 * One row of a command's option table. A row with a NULL name is a
 * paragraph of the command's --help, printed before the options. A table
 * ends with CLI_OPTIONS_END. The global options (-j, -h, -V) belong to every
 * command and are not listed.
 */
typedef struct cli_option {
    const char *name;     /* long name without "--" */
    char short_name;      /* 'f' for -f, or 0 */
    const char *value;    /* placeholder of the value ("FMT"); NULL: a flag;
                             "[=DTYPE]": optional, given only as --name=VALUE
                             (the value is "" without it); long options only */
    const char *help;     /* may hold '\n'; ending in ':', the choices follow */
    const char *choices;  /* values offered by completion: words separated
                             by spaces, "@formats" (the reader table),
                             "@dtypes", or NULL (free-form) */
} cli_option;

#define CLI_FLAG(name, s, help) {(name), (s), NULL, (help), NULL}
#define CLI_VALUE(name, s, value, help) {(name), (s), (value), (help), NULL}
#define CLI_CHOICE(name, s, value, help, choices) {(name), (s), (value), (help), (choices)}
#define CLI_ABOUT(text) {NULL, 0, NULL, (text), NULL}
#define CLI_OPTIONS_END {NULL, 0, NULL, NULL, NULL}

/* A command with no options of its own. */
extern const cli_option cli_no_options[];

/* An option as given on the command line. */
typedef struct cli_given {
    const cli_option *opt;
    const char *value;    /* NULL for a flag */
} cli_given;

/* A command's parsed command line. */
typedef struct cli_args {
    const cli_command *cmd;
    int nops;
    char **ops;           /* operands, in order */
    int ngiven, cap;
    cli_given *given;     /* the command's own options, in order */
    const char **values;  /* the values of given, grouped by option in the
                             order of the command's table, each option's in
                             command-line order (cli_opt_values) */
} cli_args;

/* The value of the last --NAME given, or NULL. NAME must be in the
 * command's table (the program aborts otherwise: a programming error). */
const char *cli_opt(const cli_args *a, const char *name);
/* The value of option `name` as a SIZE: a whole number of bytes with an
 * optional unit B, KB/MB/GB/TB (powers of 1000, as Hugging Face's "5GB") or
 * KiB/MiB/GiB/TiB, above 0, into *out. A usage error names the option. */
int cli_opt_size(cli_ctx *ctx, const cli_args *a, const char *name, int64_t *out);
/* How many times the flag --NAME was given. */
int cli_flag(const cli_args *a, const char *name);
/* The last value of option `name` into *value (NULL when not given), which
 * must be one of the words of its CLI_CHOICE list: else a usage error
 * naming them. */
int cli_opt_choice(cli_ctx *ctx, const cli_args *a, const char *name, const char **value);
/* The values of --NAME in order: start with *pos = 0; NULL after the last. */
const char *cli_opt_next(const cli_args *a, const char *name, int *pos);
/* The values of --NAME as an array of *n strings in command-line order
 * (owned by a; NULL when *n is 0). */
const char *const *cli_opt_values(const cli_args *a, const char *name, size_t *n);

typedef int (*cli_handler)(cli_ctx *ctx, const cli_args *args);

typedef enum cli_group {
#define CLI_GROUP(id, title) CLI_GROUP_##id,
#define CLI_COMMAND(name, group, handler, options, synopsis, summary)
#include "commands.def"
#undef CLI_GROUP
#undef CLI_COMMAND
    CLI_GROUP_COUNT
} cli_group;

struct cli_command {
    const char *name;
    cli_group group;
    cli_handler run;
    const cli_option *options;
    const char *synopsis;   /* "flat3d AXIS SHAPE..." */
    const char *summary;    /* one line for --help */
};

/* The handlers and option tables named in commands.def. */
#define CLI_GROUP(id, title)
#define CLI_COMMAND(name, group, handler, options, synopsis, summary) \
    int handler(cli_ctx *ctx, const cli_args *args);                  \
    extern const cli_option options[];
#include "commands.def"
#undef CLI_GROUP
#undef CLI_COMMAND

extern const cli_command cli_commands[];
extern const size_t cli_command_count;
extern const char *const cli_group_titles[CLI_GROUP_COUNT];
extern const cli_option cli_global_options[];


/*
 * Parses argv[1..argc) against the command's table and the global options,
 * into *a (free it with cli_args_free). Options and operands may be mixed;
 * "--" ends the options; "-" and words starting with "-" and a digit or '>'
 * ("-1", "-2:3", "->ij") are operands. Returns 1 when the command should
 * run; 0 when the parser has done the work (--help, --version, or a usage
 * error reported: ctx->status says which).
 */
int cli_parse_args(cli_ctx *ctx, int argc, char **argv, cli_args *a);
void cli_args_free(cli_args *a);

/* The global options before the command name: returns the index of the
 * command name in argv, or 0 when the parser has done the work. */
int cli_parse_global(cli_ctx *ctx, int argc, char **argv);

/* Prints a command's --help (usage, summary, paragraphs, options), or with
 * cmd NULL the program's (main.c: cli_global_help). */
void cli_command_help(cli_ctx *ctx, const cli_command *cmd);
void cli_global_help(cli_ctx *ctx);
/* Prints option rows ("  -f, --format FMT  help"). */
void cli_print_options(cli_ctx *ctx, const cli_option *opts, const cli_option *more);
/* The words of an option's choices (expands "@formats" and "@dtypes") into
 * buf, separated by spaces; "" when it has none. */
const char *cli_choices(const cli_option *o, char *buf, size_t cap);

/* ---- selecting entries by name (filter.c) ------------------------------------- */

/* The options every command that lists entries by name offers: --filter GLOB
 * and --exclude GLOB, both repeatable (a command puts them in its table). */
#define CLI_FILTER_OPTIONS                                                             \
    CLI_VALUE("filter", 0, "GLOB",                                                    \
              "only entries whose name matches GLOB (fnmatch; repeatable)"), \
    CLI_VALUE("exclude", 0, "GLOB", "leave out entries whose name matches GLOB (repeatable)")

/* The options of commands that read files: for remote ones (URLs), and
 * the side files a format needs (a Darknet network's .cfg). */
#define CLI_REMOTE_OPTIONS                                                             \
    CLI_VALUE("max-fetch", 0, "SIZE",                                                 \
              "URLs: the most bytes reading a file's headers may fetch (default "     \
              "64MiB)"),                                                              \
    CLI_FLAG("verbose", 'v', "URLs: print each request (range, status, bytes, ms) "   \
                             "on standard error"),                                    \
    CLI_VALUE("darknet-cfg", 0, "FILE",                                               \
              "Darknet .weights: the network's .cfg (default: beside the weights, "   \
              "same name)")

/*
 * The open options of a file command: --max-fetch, --verbose and
 * --darknet-cfg (CLI_REMOTE_OPTIONS) and the TSHAPE_IO environment variable
 * (pread, map) into *o; returns o, or NULL after a usage error.
 */
const ts_open_options *cli_open_options(cli_ctx *ctx, const cli_args *args,
                                        ts_open_options *o);

/* CLI_OK, or an error (CLI_ERROR) when path is "-": only info reads
 * standard input (a stream read whole); the other file commands say so. */
int cli_no_stdin(cli_ctx *ctx, const char *path);

typedef struct cli_filter {
    const char *const *filter;  /* the --filter globs (cli_opt_values) */
    size_t nfilter;
    const char *const *exclude; /* the --exclude globs */
    size_t nexclude;
} cli_filter;

/* Reads --filter and --exclude of args (which must outlive f). */
void cli_filter_init(cli_filter *f, const cli_args *args);
/* 1 when name is selected: it matches some --filter (or none was given)
 * and no --exclude (ts_name_selected: fnmatch(3) patterns, no flags, '*'
 * matches '/' and '.'). */
int cli_filter_match(const cli_filter *f, const char *name);

/* ---- suggestions (suggest.c) ------------------------------------------- */

/* The i-th name of a list, for cli_suggest. */
typedef const char *(*cli_name_fn)(void *ctx, size_t i);
#define CLI_SUGGEST_MAX 3
/* The names of a list of n closest to `word` (a misspelt command or array
 * name): those within an edit distance (optimal string alignment) of a
 * third of the word (at least 2), that begin with the word (counted as
 * one edit), or that the word ends or that end it after a '.', '/' or ':'
 * (a prefix left out or added); of those, the ones
 * as close as the closest, at most `max` (<= CLI_SUGGEST_MAX), into best[]
 * as indices, in list order among equals. Returns how many. */
size_t cli_suggest(const char *word, cli_name_fn name_at, void *ctx, size_t n, size_t *best,
                   size_t max);
/* "; did you mean 'size'?" or "; did you mean 'a', 'b' or 'c'?" (names
 * escaped), or "" when nothing is close, into buf; returns buf. */
const char *cli_suggest_text(const char *word, cli_name_fn name_at, void *ctx, size_t n,
                             char *buf, size_t cap);

/* The command named `name`, or NULL (main.c). */
const cli_command *cli_find_command(const char *name);
/* cli_suggest_text over the command names. */
const char *cli_command_suggestion(const char *word, char *buf, size_t cap);

/* ---- standard output (output.c) ----------------------------------------- */

void out_write(cli_ctx *ctx, const char *s, size_t n);
void out_str(cli_ctx *ctx, const char *s);
void out_char(cli_ctx *ctx, char c);
void out_i64(cli_ctx *ctx, int64_t v);
void out_printf(cli_ctx *ctx, const char *fmt, ...) CLI_PRINTF(2, 3);
/* A shape as "(3,4)" or, with --json, "[3,4]". */
void out_dims(cli_ctx *ctx, const int64_t *d, int n);
/* A double for values' reports (stats, diff --values): %.6g as text,
 * %.17g (exact) in JSON; non-finite values as nan, inf, -inf (in JSON the
 * strings "nan", "inf", "-inf": JSON has no literal for them). */
void cli_fmt_double(char *buf, size_t cap, double v, int json);
void out_shape(cli_ctx *ctx, const ts_shape *s);
/* A shape a command produced must have a size (the product of its dims)
 * that fits in int64, as `size` requires and NumPy's "array is too big"
 * rule: CLI_OK, or CLI_ERROR with ts_shape_size's message in *err. */
int cli_shape_fits(const ts_shape *s, ts_error *err);
/* The shape and a newline when cli_shape_fits, else nothing and its error. */
int out_shape_line(cli_ctx *ctx, const ts_shape *s, ts_error *err);
/* Writes what is buffered; keeps going quietly after EPIPE (out.closed). */
void out_drain(cli_ctx *ctx);
/* Drains, reports a write error (not EPIPE) and returns the exit status:
 * the worst of `status`, ctx->status and a write error. */
int out_finish(cli_ctx *ctx, int status);

/*
 * The one string escaper. Text from files and arguments is untrusted: it
 * may hold control characters, invalid UTF-8, and characters that reorder
 * or break lines on a terminal (U+0085, U+2028, U+2029, bidi controls such
 * as U+202E).
 *   CLI_ESC_TEXT  human output: each byte of such characters as \xNN, and
 *                 a backslash as \\, so the text stays on one line and
 *                 cannot be mistaken for an escape (no tab splits a column)
 *   CLI_ESC_SAFE  the same but a backslash is kept: for text that is
 *                 already escaped (library messages, JSON text)
 *   CLI_ESC_JSON  a JSON string body (RFC 8259): \" \\ \n \t..., \u00XX for
 *                 control and reordering characters, U+FFFD for invalid
 *                 UTF-8 bytes
 */
typedef enum cli_esc { CLI_ESC_TEXT, CLI_ESC_SAFE, CLI_ESC_JSON } cli_esc;
/* Escapes s[0..n) into dst (cap > 12 bytes, always NUL-terminated); stops
 * before the first character that does not fit. Returns the input bytes
 * consumed; *written receives the output bytes. */
size_t cli_escape(cli_esc mode, const char *s, size_t n, char *dst, size_t cap,
                  size_t *written);
/* The escaped text of s[0..n) (CLI_ESC_TEXT) in buf, cut with "..." when it
 * does not fit; returns buf. For quoting input in messages. */
const char *cli_quote(const char *s, size_t n, char *buf, size_t cap);
/* Writes s[0..n) escaped to standard output. */
void out_escaped(cli_ctx *ctx, cli_esc mode, const char *s, size_t n);

/*
 * Records, printed as human text or JSON from the same calls (the iproute2
 * print_*(PRINT_ANY, key, fmt, value) habit). In JSON mode a field is
 * written as "key":value (key NULL inside an array or at the top level);
 * in text mode `fmt` is written with its "%s" replaced by the value's text
 * (strings escaped with CLI_ESC_TEXT), or nothing when fmt is NULL.
 * PRINT_JSON and PRINT_TEXT restrict a call to one mode.
 */
typedef enum cli_print { PRINT_ANY, PRINT_JSON, PRINT_TEXT } cli_print;
/* JSON: '{' (a record at the top level, or a keyed object inside one). */
void print_open_object(cli_ctx *ctx, const char *key);
/* JSON: '}', and a newline when it closes a top-level record. */
void print_close_object(cli_ctx *ctx);
void print_open_array(cli_ctx *ctx, const char *key);
void print_close_array(cli_ctx *ctx);
/* A string; NULL is JSON null and prints nothing as text. */
void print_string(cli_ctx *ctx, cli_print p, const char *key, const char *fmt, const char *v);
void print_int(cli_ctx *ctx, cli_print p, const char *key, const char *fmt, int64_t v);
void print_bool(cli_ctx *ctx, cli_print p, const char *key, const char *fmt, int v);
/* JSON null; text: fmt as it is. */
void print_null(cli_ctx *ctx, cli_print p, const char *key, const char *fmt);
/* A list of dims: JSON [3,4]; text (3,4). */
void print_dims(cli_ctx *ctx, cli_print p, const char *key, const char *fmt, const int64_t *d,
                int n);
/* An array's shape: print_dims of a->shape, or for an array without a
 * shape (a->null_shape: an HDF5 null dataspace) JSON null and text "none". */
void print_array_shape(cli_ctx *ctx, cli_print p, const char *key, const char *fmt,
                       const ts_array *a);
/* The text of an array's shape, "(3,4)", or "none" for an array without
 * one, into buf; returns buf. */
const char *cli_array_shape_text(const ts_array *a, char *buf, size_t cap);
/* JSON text written verbatim (the library's metadata values); as text,
 * the JSON with CLI_ESC_SAFE. */
void print_json_text(cli_ctx *ctx, cli_print p, const char *key, const char *fmt,
                     const char *json);
/* Metadata values longer than this are cut in human output (man page,
 * info --metadata); JSON always carries them whole. */
#define CLI_TEXT_VALUE_MAX 400
/* Metadata entry i of f: JSON streams the library's JSON text verbatim
 * (never held whole: a 100 MiB GGUF string costs no memory); text shows it
 * with CLI_ESC_SAFE, cut at CLI_TEXT_VALUE_MAX bytes with a marker. Returns
 * 0, or -1 with *err filled when the library could not render it. */
int print_metadata_value(cli_ctx *ctx, const char *key, const char *fmt, const ts_file *f,
                         size_t i, ts_error *err);
/* A JSON value held as text (a model's metadata): in JSON under key as it
 * is; as text in fmt, escaped and cut as print_metadata_value does. */
void print_json_value(cli_ctx *ctx, const char *key, const char *fmt, const char *json);
/* The line that stands for a stdin line without a result, so output stays
 * aligned with input: empty, or "null" in JSON. */
void print_no_result(cli_ctx *ctx);
/* Text written as it is, in human output only. */
void print_text(cli_ctx *ctx, const char *text);

/* ---- errors (errors.c) ----------------------------------------------------- */

/*
 * Every error line has one form:
 *     tshape: COMMAND: WHERE: MESSAGE
 * COMMAND when one is running, WHERE (a file name, "line 4", escaped here)
 * when not NULL. Returns CLI_ERROR and records it in ctx->status. Text
 * quoted into the message must be escaped by the caller (cli_quote); the
 * line as a whole is passed through CLI_ESC_SAFE.
 */
int cli_error(cli_ctx *ctx, const char *where, const char *fmt, ...) CLI_PRINTF(3, 4);
/* A line in the same form that is not an error (why a predicate is false). */
void cli_notice(cli_ctx *ctx, const char *where, const char *fmt, ...) CLI_PRINTF(3, 4);
/* A usage error: cli_error's line, then "Try 'tshape COMMAND --help'." */
int cli_usage(cli_ctx *ctx, const char *fmt, ...) CLI_PRINTF(2, 3);
/* Fills *err (code, printf message, no position) as the library does and
 * returns CLI_ERROR: for cli_line_fn functions reporting their own errors. */
int cli_fail(ts_error *err, ts_status code, const char *fmt, ...) CLI_PRINTF(3, 4);
/* Puts "PREFIX" before err's message ("operand 2 at column 5: ..."). */
int cli_fail_prefix(ts_error *err, const char *fmt, ...) CLI_PRINTF(2, 3);

/*
 * A progress line on standard error while one array is read (stats, diff
 * --values) or a file written (convert: no NAME):
 * "tshape: COMMAND: FILE: NAME: 512 / 1024 MiB, 2.1 GB/s", shown
 * after the first second and only when standard error is a terminal
 * (enabled), rewritten in place and cleared when the array is done.
 * cli_progress_report has the library's progress callback signature.
 */
typedef struct cli_progress {
    int enabled;            /* isatty(2) */
    const char *command;    /* "stats" */
    const char *path, *name;
    double t0;              /* seconds (CLOCK_MONOTONIC) at the start */
    int shown;
} cli_progress;

void cli_progress_init(cli_progress *p, const char *command);
/* Starts the line of one array (name NULL: of a file). */
void cli_progress_start(cli_progress *p, const char *path, const char *name);
void cli_progress_report(void *p, int64_t done, int64_t total);
/* Clears the line if it was shown. */
void cli_progress_clear(cli_progress *p);

/* ---- input (input.c) ------------------------------------------------------- */

/* An argument as a whole decimal int64 (optional sign); a usage error
 * naming `what` otherwise. */
int cli_arg_i64(cli_ctx *ctx, const char *text, const char *what, int64_t *out);
/* An argument as a finite decimal number >= 0 (strtod syntax: "1e-5",
 * "0.001"); a usage error naming `what` otherwise. */
int cli_arg_nonneg_double(cli_ctx *ctx, const char *text, const char *what, double *out);
/* --order C|F (either case) into 'C' or 'F'; text NULL gives 'C'. */
int cli_arg_order(cli_ctx *ctx, const char *text, char *order);
/* An argument as a shape; an error "WHAT 'text': problem" otherwise. */
int cli_arg_shape(cli_ctx *ctx, const char *text, const char *what, ts_shape *out);
/* An argument as an integer list (see cli_scan_int_list); an error
 * "WHAT 'text': problem" otherwise. */
int cli_arg_int_list(cli_ctx *ctx, const char *text, const char *what, ts_shape *out);
/* The same into a plain array of at most TS_MAX_NDIM values. */
int cli_arg_ints(cli_ctx *ctx, const char *text, const char *what, int64_t *out, int *n);
/*
 * Scans an integer list (axes, strides, an index, a reshape target):
 * "(1,0,2)", "[1,0,2]", "()", or bare "1,0,2" / "-1", negatives allowed,
 * into a shape used as a plain list; the whole of text[0..len) must be the
 * list. Returns CLI_OK, or CLI_ERROR with *err naming the column.
 */
int cli_scan_int_list(const char *text, size_t len, ts_shape *out, ts_error *err);
/* A shape at text[*pos] (after blanks), followed by blanks or the end;
 * advances *pos. Errors are prefixed "WHAT starting at column N: ". */
/*
 * Several shapes taken together (broadcast, matmul, cat, stack): from one
 * stdin line ("SHAPE SHAPE ...") or from the operands. ptrs[i] points at
 * shapes[i] once read; the list keeps its storage across lines.
 */
typedef struct cli_shapes {
    ts_shape *shapes;
    const ts_shape **ptrs;
    size_t n, cap;
} cli_shapes;
/* Reads the shapes of one line (replacing what the list held). Returns
 * CLI_OK, or CLI_ERROR with *err naming the shape and column. */
int cli_shapes_scan(cli_shapes *l, const char *text, size_t len, ts_error *err);
/* Reads ops[0..n) as shapes; prints the error and returns CLI_ERROR on a
 * bad one. */
int cli_shapes_args(cli_ctx *ctx, cli_shapes *l, int n, char *const *ops);
void cli_shapes_free(cli_shapes *l);

int cli_scan_shape(const char *text, size_t len, size_t *pos, ts_shape *out, const char *what,
                   ts_error *err);
/* 1 when the operands select standard input: none, or a single "-". */
int cli_stdin_mode(int n, char *const *ops);

/*
 * Runs `fn` on each input: the n operands, or, in stdin mode, each line of
 * standard input, skipping blank lines and lines whose first non-blank
 * character is '#'. fn computes, then writes one output line (with its
 * '\n') and returns CLI_OK / CLI_FALSE, or fills *err and returns CLI_ERROR
 * without writing. On error the driver prints "tshape: CMD: 'INPUT':
 * MESSAGE" (stdin: "tshape: CMD: line N: 'INPUT': MESSAGE") and, for a
 * stdin line, writes an empty line ("null" in JSON) so output lines stay
 * aligned with input lines; it goes on with the next input, and stops when
 * standard output has been closed. The result is the worst status seen
 * (errors beat false beat ok).
 */
#define CLI_LINE_MAX (1 << 20) /* bytes of a stdin line, without its newline */
#define CLI_STDIN_MAX (1 << 30) /* bytes of a file read from stdin ("info -") */
#define CLI_STDIN_MAX_TEXT "1 GiB"
typedef int (*cli_line_fn)(cli_ctx *ctx, void *job, const char *text, size_t len,
                           ts_error *err);
int cli_each_input(cli_ctx *ctx, int n, char *const *ops, cli_line_fn fn, void *job);

static inline int cli_worse(int a, int b)
{
    return a > b ? a : b;
}

#endif
