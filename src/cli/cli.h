/*
 * cli.h - shared machinery of the tshape program. The CLI uses only the
 * public API in include/tshape.h; nothing from src/ is included here.
 *
 * Exit statuses (man page, EXIT STATUS): 0 success or true, 1 false (a
 * predicate such as eq or contiguous), 2 bad input, usage error or I/O error.
 */
#ifndef TSHAPE_CLI_H
#define TSHAPE_CLI_H

#include <stddef.h>
#include <stdint.h>

/* The CLI exposes the experimental functions too (einops, jagged, ...). */
#ifndef TS_EXPERIMENTAL_API
#define TS_EXPERIMENTAL_API
#endif
#include "tshape.h"

#define CLI_OK 0
#define CLI_FALSE 1
#define CLI_ERROR 2

typedef struct cli_ctx {
    int json;              /* --json given (globally or to the command) */
    const char *command;   /* name of the running subcommand */
} cli_ctx;

/* A subcommand: argv[0] is the command name; getopt state is reset before
 * the call. Returns an exit status. */
typedef int (*cli_handler)(cli_ctx *ctx, int argc, char **argv);

typedef struct cli_command {
    const char *name;
    cli_handler run;
    const char *synopsis;   /* "flat3d AXIS SHAPE..." */
    const char *summary;    /* one line for --help */
} cli_command;

/* Command groups, each a NULL-name-terminated array in its own file. */
extern const cli_command cli_cmds_shape[];   /* cmd_shape.c: size ndim norm ... */
extern const cli_command cli_cmds_info[];    /* cmd_info.c: info */
extern const cli_command cli_cmds_layout[];  /* cmd_layout.c: reshape broadcast strides ... */
extern const cli_command cli_cmds_pattern[]; /* cmd_pattern.c: einsum rearrange slice jagged ... */

/* ---- output: one buffered stdout, checked on flush ---------------------- */
void out_write(const char *s, size_t n);
void out_str(const char *s);
void out_char(char c);
void out_i64(int64_t v);
/* A shape as "(3,4)" (human) or "[3,4]" (JSON, when ctx->json). */
void out_shape(const cli_ctx *ctx, const ts_shape *s);
/* A list of n ints as a shape tuple (human) or JSON array. */
void out_dims(const cli_ctx *ctx, const int64_t *d, int n);
/* Writes a JSON string literal (RFC 8259 escaping; invalid UTF-8 bytes
 * become U+FFFD, so the output is always valid JSON). */
void out_json_string(const char *s);
/* A malloc'ed copy of s with invalid UTF-8 bytes replaced by U+FFFD (for
 * jansson, which refuses invalid UTF-8); NULL if out of memory. */
char *cli_utf8_clean(const char *s);
/* A malloc'ed copy of s safe to print on a terminal: control characters,
 * invalid UTF-8 bytes and backslashes are written as \xNN (\\ for a
 * backslash), so names from hostile files cannot move the cursor or split a
 * TSV column; NULL if out of memory. */
char *cli_printable(const char *s);
/* printf to the output buffer (slow path). */
void out_printf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Flushes stdout. Returns 0, or 2 after printing a message on a write error
 * (a closed pipe, EPIPE, exits quietly with status 0... see io.c). */
int out_flush(void);

/* ---- errors -------------------------------------------------------------- */
/* "tshape: <context>: <message>" on stderr; returns CLI_ERROR. */
int cli_error(const char *context, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* A usage error: "tshape: <message>" then "Try 'tshape CMD --help'." on
 * stderr; returns CLI_ERROR. */
int cli_usage_error(const cli_ctx *ctx, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Fills *err (code, printf message, no position) as the library does and
 * returns CLI_ERROR: for cli_input_fn functions reporting their own
 * errors. */
int cli_fail(ts_error *err, ts_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ---- argument parsing ---------------------------------------------------- */
/* Parses a whole decimal int64 (optional sign) with overflow check. Returns 0
 * or prints a usage error naming `what` and returns CLI_ERROR. */
int cli_parse_i64(const cli_ctx *ctx, const char *text, const char *what, int64_t *out);
/* Parses a shape; prints "tshape: '<text>': <error>" and returns CLI_ERROR
 * on failure. flags as ts_shape_parse. */
int cli_parse_shape(const char *text, unsigned flags, ts_shape *out);
/* Parses an integer list (axes, strides, an index, a reshape target):
 * "(1,0,2)", "[1,0,2]", "()", or bare "1,0,2" / "-1", negatives allowed,
 * into a shape used as a plain list; the whole of text[0..len) must be the
 * list. Returns CLI_OK, or CLI_ERROR with *err naming the column. */
int cli_list_parse(const char *text, size_t len, ts_shape *out, ts_error *err);
/* The same on an argument; prints "tshape: WHAT 'text': <problem>" and
 * returns CLI_ERROR on failure. */
int cli_parse_list(const char *text, const char *what, ts_shape *out);

/*
 * Runs `fn` on each input: the n strings in args, or, when n == 0 (or the
 * only arg is "-"), each line of stdin, skipping blank lines and lines whose
 * first non-blank character is '#'. fn computes, then writes one output line
 * (with its '\n') and returns CLI_OK / CLI_FALSE, or fills *err and returns
 * CLI_ERROR without writing. On error the driver prints "tshape: '<input>':
 * <message>" (stdin: "tshape: line N: '<input>': <message>") and, in stdin
 * mode, writes an empty line ("null" in JSON) so output lines stay aligned
 * with input lines; it goes on with the next input. The result is the worst
 * status seen (errors beat false beat ok).
 */
typedef int (*cli_input_fn)(cli_ctx *ctx, const char *text, size_t len, void *user,
                            ts_error *err);
int cli_for_each_input(cli_ctx *ctx, int n, char **args, cli_input_fn fn, void *user);

/*
 * Common option handling for subcommands with no options of their own
 * beyond --json and --help: runs getopt_long; on --help prints
 * "Usage: tshape <synopsis>" + summary to stdout and returns -1 after
 * setting *status = 0; on a bad option returns -1 with *status = 2. Else
 * returns the index of the first operand.
 */
int cli_simple_options(cli_ctx *ctx, int argc, char **argv, const cli_command *cmd,
                       int *status);

/* Finds a command by name in all groups (NULL if none). */
const cli_command *cli_find_command(const char *name);

/* Prints "Usage: tshape SYNOPSIS\nSUMMARY\n" + extra (may be NULL) on stdout. */
void cli_print_command_help(const cli_command *cmd, const char *extra);

#endif
