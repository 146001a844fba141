/*
 * options.c - the one command-line parser, driven by the option tables, and
 * the --help of each command generated from its table.
 *
 * Rules (man page, OPTIONS): long options --name, --name=VALUE or
 * --name VALUE, abbreviated to any unique prefix; short options -x, -xVALUE
 * or -x VALUE, clustered (-sm); options and operands in any order after the
 * command; "--" ends the options; "-" and words that start with '-' and a
 * digit or '>' ("-1", "-2:3", "->ij") are operands. The global options
 * (-j, -h, -V) are accepted before and after the command name.
 */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const cli_option cli_no_options[] = {
    CLI_OPTIONS_END,
};

const cli_option cli_global_options[] = {
    CLI_FLAG("json", 'j', "print JSON (values, or one object per record)"),
    CLI_FLAG("help", 'h', "show this help"),
    CLI_FLAG("version", 'V', "show the version"),
    CLI_OPTIONS_END,
};

/* ---- reading the parsed options ---------------------------------------------- */

static const cli_option *own_option(const cli_args *a, const char *name)
{
    for (const cli_option *o = a->cmd->options; o->name || o->help; o++)
        if (o->name && strcmp(o->name, name) == 0)
            return o;
    fprintf(stderr, "tshape: internal error: %s has no option --%s\n", a->cmd->name, name);
    abort();
}

const char *cli_opt_next(const cli_args *a, const char *name, int *pos)
{
    const cli_option *o = own_option(a, name);
    for (; *pos < a->ngiven; ++*pos)
        if (a->given[*pos].opt == o)
            return a->given[(*pos)++].value;
    return NULL;
}

const char *const *cli_opt_values(const cli_args *a, const char *name, size_t *n)
{
    const cli_option *o = own_option(a, name);
    size_t start = 0, count = 0;
    for (int i = 0; i < a->ngiven; i++) {
        start += a->given[i].opt < o;
        count += a->given[i].opt == o;
    }
    *n = count;
    return count ? a->values + start : NULL;
}

const char *cli_opt(const cli_args *a, const char *name)
{
    const char *v, *last = NULL;
    int pos = 0;
    while ((v = cli_opt_next(a, name, &pos)) != NULL)
        last = v;
    return last;
}

int cli_flag(const cli_args *a, const char *name)
{
    const cli_option *o = own_option(a, name);
    int n = 0;
    for (int i = 0; i < a->ngiven; i++)
        n += a->given[i].opt == o;
    return n;
}

int cli_opt_choice(cli_ctx *ctx, const cli_args *a, const char *name, const char **value)
{
    const cli_option *o = own_option(a, name);
    const char *v = cli_opt(a, name);
    *value = v;
    if (!v || !o->choices)
        return CLI_OK;
    size_t n = strlen(v);
    for (const char *w = o->choices; *w;) {
        size_t k = strcspn(w, " ");
        if (k == n && strncmp(w, v, n) == 0)
            return CLI_OK;
        w += k;
        w += *w == ' ';
    }
    char q[64], list[256];
    size_t len = 0;
    list[0] = '\0';
    for (const char *w = o->choices; *w && len < sizeof list;) {
        size_t k = strcspn(w, " ");
        int last = w[k] == '\0';
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%.*s",
                                w == o->choices ? "" : last ? " or " : ", ", (int)k, w);
        w += k;
        w += *w == ' ';
    }
    return cli_usage(ctx, "--%s must be %s, not '%s'", name, list, cli_quote(v, n, q, sizeof q));
}

/* ---- parsing ------------------------------------------------------------------- */

/* The tables searched: the command's own (NULL before the command), then the
 * global options. */
typedef struct tables {
    const cli_option *t[2];
} tables;

static int is_operand(const char *a)
{
    return a[0] != '-' || a[1] == '\0' || (a[1] >= '0' && a[1] <= '9') || a[1] == '>';
}

/* The option whose long name is name[0..len): an exact match, else the only
 * one it is a prefix of. NULL after reporting an unknown or ambiguous one. */
static const cli_option *find_long(cli_ctx *ctx, const tables *tb, const char *name, size_t len)
{
    const cli_option *hit = NULL;
    int hits = 0;
    char all[512] = "";
    for (int k = 0; k < 2; k++)
        for (const cli_option *o = tb->t[k]; o && (o->name || o->help); o++) {
            if (!o->name || strncmp(o->name, name, len) != 0)
                continue;
            if (o->name[len] == '\0')
                return o; /* exact */
            hit = o;
            hits++;
            size_t n = strlen(all);
            snprintf(all + n, sizeof all - n, "%s--%s", n ? ", " : "", o->name);
        }
    char q[128];
    cli_quote(name, len, q, sizeof q);
    if (hits == 1)
        return hit;
    if (hits == 0)
        cli_usage(ctx, "unknown option '--%s'", q);
    else
        cli_usage(ctx, "option '--%s' is ambiguous: it could be %s", q, all);
    return NULL;
}

static const cli_option *find_short(cli_ctx *ctx, const tables *tb, char c)
{
    for (int k = 0; k < 2; k++)
        for (const cli_option *o = tb->t[k]; o && (o->name || o->help); o++)
            if (o->name && o->short_name == c)
                return o;
    char q[16];
    cli_quote(&c, 1, q, sizeof q);
    cli_usage(ctx, "unknown option '-%s'", q);
    return NULL;
}

static int is_global(const cli_option *o)
{
    return o >= cli_global_options &&
           o < cli_global_options + sizeof cli_global_options / sizeof *cli_global_options;
}

/*
 * Acts on one option. Global ones take effect at once: --json sets the
 * flag; --help and --version print and end the parse (returns 0). The
 * command's own are recorded in *a. Returns 1 to go on.
 */
static int take(cli_ctx *ctx, const cli_option *o, const char *value, cli_args *a)
{
    if (!is_global(o)) {
        if (a->ngiven == a->cap) { /* a cluster gives several per argument */
            size_t cap = a->cap * 2 + 8;
            cli_given *g = realloc(a->given, cap * sizeof *g);
            if (!g) {
                cli_error(ctx, NULL, "out of memory");
                return 0;
            }
            a->given = g;
            a->cap = (int)cap;
        }
        a->given[a->ngiven].opt = o;
        a->given[a->ngiven++].value = value;
        return 1;
    }
    if (strcmp(o->name, "json") == 0) {
        ctx->json = 1;
        return 1;
    }
    if (strcmp(o->name, "help") == 0)
        cli_command_help(ctx, ctx->cmd);
    else /* version */
        out_printf(ctx, "tshape %s\n", ts_version());
    return 0;
}

/* "--name", "--name=value" or "--name value" at argv[*i]. */
static int long_option(cli_ctx *ctx, const tables *tb, int argc, char **argv, int *i,
                       cli_args *a)
{
    const char *name = argv[*i] + 2, *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    const cli_option *o = find_long(ctx, tb, name, len);
    if (!o)
        return 0;
    if (!o->value && eq) {
        cli_usage(ctx, "option '--%s' takes no value", o->name);
        return 0;
    }
    const char *value = NULL;
    if (o->value) {
        if (eq)
            value = eq + 1;
        else if (o->value[0] == '[')
            value = ""; /* an optional value ("[=DTYPE]") comes only after '=' */
        else if (*i + 1 < argc && strcmp(argv[*i + 1], "--") != 0)
            value = argv[++*i];
        else {
            cli_usage(ctx, "option '--%s' needs a value", o->name);
            return 0;
        }
    }
    return take(ctx, o, value, a);
}

/* A cluster of short options at argv[*i]: "-s", "-sm", "-fnpy", "-f npy". */
static int short_options(cli_ctx *ctx, const tables *tb, int argc, char **argv, int *i,
                         cli_args *a)
{
    for (const char *p = argv[*i] + 1; *p; p++) {
        const cli_option *o = find_short(ctx, tb, *p);
        if (!o)
            return 0;
        if (!o->value) {
            if (!take(ctx, o, NULL, a))
                return 0;
            continue;
        }
        const char *value = p + 1;
        if (!*value) {
            if (*i + 1 >= argc || strcmp(argv[*i + 1], "--") == 0) {
                cli_usage(ctx, "option '-%c' (--%s) needs a value", *p, o->name);
                return 0;
            }
            value = argv[++*i];
        }
        return take(ctx, o, value, a);
    }
    return 1;
}

/* An option's value and its place, for grouping. */
typedef struct placed {
    const cli_option *opt;
    int i;
    const char *value;
} placed;

static int cmp_placed(const void *x, const void *y)
{
    const placed *a = x, *b = y;
    if (a->opt != b->opt) /* options of one table: its order */
        return a->opt < b->opt ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

/* a->values: the values of a->given grouped by option (cli_opt_values).
 * Returns 1, or 0 after reporting a lack of memory. */
static int group_values(cli_ctx *ctx, cli_args *a)
{
    size_t n = (size_t)a->ngiven;
    placed *p = malloc((n ? n : 1) * sizeof *p);
    a->values = malloc((n ? n : 1) * sizeof *a->values);
    if (!p || !a->values) {
        free(p);
        cli_error(ctx, NULL, "out of memory");
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        p[i] = (placed){a->given[i].opt, (int)i, a->given[i].value};
    qsort(p, n, sizeof *p, cmp_placed);
    for (size_t i = 0; i < n; i++)
        a->values[i] = p[i].value;
    free(p);
    return 1;
}

int cli_parse_args(cli_ctx *ctx, int argc, char **argv, cli_args *a)
{
    tables tb = {{ctx->cmd->options, cli_global_options}};
    memset(a, 0, sizeof *a);
    a->cmd = ctx->cmd;
    a->ops = malloc((size_t)argc * sizeof *a->ops);
    if (!a->ops) {
        cli_error(ctx, NULL, "out of memory");
        return 0;
    }
    int i = 1;
    for (; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--") == 0) {
            i++;
            break;
        }
        int go_on = 1;
        if (is_operand(arg))
            a->ops[a->nops++] = argv[i];
        else if (arg[1] == '-')
            go_on = long_option(ctx, &tb, argc, argv, &i, a);
        else
            go_on = short_options(ctx, &tb, argc, argv, &i, a);
        if (!go_on)
            return 0;
    }
    for (; i < argc; i++)
        a->ops[a->nops++] = argv[i];
    return group_values(ctx, a);
}

void cli_args_free(cli_args *a)
{
    free(a->ops);
    free(a->given);
    free(a->values);
}

int cli_parse_global(cli_ctx *ctx, int argc, char **argv)
{
    tables tb = {{NULL, cli_global_options}};
    cli_args none;
    memset(&none, 0, sizeof none);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--") == 0 && i + 1 < argc)
            return i + 1;
        if (strcmp(arg, "--") == 0)
            break;
        if (is_operand(arg))
            return i;
        int go_on = arg[1] == '-' ? long_option(ctx, &tb, argc, argv, &i, &none)
                                  : short_options(ctx, &tb, argc, argv, &i, &none);
        if (!go_on)
            return 0;
    }
    cli_usage(ctx, "missing command");
    return 0;
}

/* ---- help ------------------------------------------------------------------------ */

/* Appends " word" (no space first) to buf, if it fits. */
static void add_word(char *buf, size_t cap, const char *word)
{
    size_t n = strlen(buf), k = strlen(word);
    if (n + 1 + k < cap)
        snprintf(buf + n, cap - n, "%s%s", n ? " " : "", word);
}

const char *cli_choices(const cli_option *o, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (!o->choices)
        return buf;
    if (strcmp(o->choices, "@formats") == 0) {
        for (size_t i = 0; i < ts_format_count(); i++)
            add_word(buf, cap, ts_format_info_at(i)->name);
    } else if (strcmp(o->choices, "@dtypes") == 0) {
        /* The dtypes with a size in whole bytes: those that have strides. */
        for (int d = 0; d < TS_DTYPE_COUNT; d++)
            if (ts_dtype_bits((ts_dtype)d) % 8 == 0 && ts_dtype_bits((ts_dtype)d) > 0)
                add_word(buf, cap, ts_dtype_name((ts_dtype)d));
    } else {
        snprintf(buf, cap, "%s", o->choices);
    }
    return buf;
}

/* "  -f, --format FMT" for the option column. */
static size_t option_label(const cli_option *o, char *buf, size_t cap)
{
    int n;
    if (o->short_name)
        n = snprintf(buf, cap, "  -%c, --%s", o->short_name, o->name);
    else
        n = snprintf(buf, cap, "      --%s", o->name);
    if (o->value && n >= 0 && (size_t)n < cap)
        n += snprintf(buf + n, cap - (size_t)n, o->value[0] == '[' ? "%s" : " %s", o->value);
    return n < 0 ? 0 : (size_t)n;
}

/* Help text lines after the first are indented to the help column; a text
 * ending in ':' is followed by the option's choices. */
static void option_help(cli_ctx *ctx, const cli_option *o, size_t col)
{
    for (const char *p = o->help;;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        out_write(ctx, p, n);
        if (!nl)
            break;
        out_printf(ctx, "\n%*s", (int)col, "");
        p = nl + 1;
    }
    size_t len = strlen(o->help);
    if (len && o->help[len - 1] == ':') {
        char words[1024];
        out_printf(ctx, "\n%*s%s", (int)col, "", cli_choices(o, words, sizeof words));
    }
    out_char(ctx, '\n');
}

void cli_print_options(cli_ctx *ctx, const cli_option *opts, const cli_option *more)
{
    const cli_option *lists[2] = {opts, more};
    size_t col = 0;
    char label[128];
    for (int k = 0; k < 2; k++)
        for (const cli_option *o = lists[k]; o && (o->name || o->help); o++) {
            size_t n = o->name ? option_label(o, label, sizeof label) : 0;
            if (n > col && n <= 24)
                col = n;
        }
    col += 2;
    for (int k = 0; k < 2; k++)
        for (const cli_option *o = lists[k]; o && (o->name || o->help); o++) {
            if (!o->name)
                continue;
            size_t n = option_label(o, label, sizeof label);
            if (n + 2 > col)
                out_printf(ctx, "%s\n%*s", label, (int)col, "");
            else
                out_printf(ctx, "%-*s", (int)col, label);
            option_help(ctx, o, col);
        }
}

void cli_command_help(cli_ctx *ctx, const cli_command *cmd)
{
    if (!cmd) {
        cli_global_help(ctx);
        return;
    }
    out_printf(ctx, "Usage: tshape %s\n%s\n", cmd->synopsis, cmd->summary);
    int paragraphs = 0;
    for (const cli_option *o = cmd->options; o->name || o->help; o++)
        if (!o->name) {
            out_printf(ctx, "%s%s\n", paragraphs++ ? "" : "\n", o->help);
        }
    if (strstr(cmd->synopsis, "SHAPE..."))
        out_printf(ctx, "%sWith no SHAPE, shapes are read from standard input, one per line.\n",
                   paragraphs++ ? "" : "\n");
    out_str(ctx, "\nOptions:\n");
    cli_print_options(ctx, cmd->options, cli_global_options);
}

int cli_opt_size(cli_ctx *ctx, const cli_args *a, const char *name, int64_t *out)
{
    static const struct { const char *unit; int64_t mul; } units[] = {
        {"", 1}, {"B", 1}, {"KB", 1000}, {"MB", 1000000}, {"GB", 1000000000},
        {"TB", 1000000000000}, {"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30},
        {"TiB", (int64_t)1 << 40}};
    const char *text = cli_opt(a, name), *p = text;
    int64_t v = 0;
    if (!p || *p < '0' || *p > '9')
        return cli_usage(ctx, "--%s '%s': expected a size such as 5GB", name, text ? text : "");
    while (*p >= '0' && *p <= '9') {
        if (v > (INT64_MAX - (*p - '0')) / 10)
            return cli_usage(ctx, "--%s '%s' is too large", name, text);
        v = v * 10 + (*p++ - '0');
    }
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (strcmp(p, units[i].unit) == 0) {
            if (v > INT64_MAX / units[i].mul)
                return cli_usage(ctx, "--%s '%s' is too large", name, text);
            *out = v * units[i].mul;
            if (*out == 0)
                return cli_usage(ctx, "--%s must be above 0", name);
            return CLI_OK;
        }
    return cli_usage(ctx, "--%s '%s': unknown unit '%s' (B, KB, MB, GB, TB, KiB, MiB, GiB, "
                          "TiB)", name, text, p);
}
