/*
 * input.c - what the commands read: their operands or the lines of
 * standard input (cli_each_input), and parsers for arguments (integers,
 * integer lists, shapes).
 */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- arguments ------------------------------------------------------------- */

int cli_arg_i64(cli_ctx *ctx, const char *text, const char *what, int64_t *out)
{
    char q[128];
    ts_error err;
    ts_status st = ts_parse_i64(text, strlen(text), TS_PARSE_ALLOW_NEGATIVE, out, &err);
    if (st == TS_OK)
        return CLI_OK;
    if (st == TS_ERR_OVERFLOW)
        return cli_usage(ctx, "%s '%s' does not fit in int64", what,
                         cli_quote(text, strlen(text), q, sizeof q));
    return cli_usage(ctx, "%s must be an integer, not '%s'", what,
                     cli_quote(text, strlen(text), q, sizeof q));
}

int cli_arg_nonneg_double(cli_ctx *ctx, const char *text, const char *what, double *out)
{
    char q[128], *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end != text && *end == '\0' && errno == 0 && v >= 0 && v < HUGE_VAL &&
        strspn(text, "0123456789.eE+-") == strlen(text)) {
        *out = v;
        return CLI_OK;
    }
    return cli_usage(ctx, "%s must be a finite number >= 0, not '%s'", what,
                     cli_quote(text, strlen(text), q, sizeof q));
}

int cli_arg_order(cli_ctx *ctx, const char *text, char *order)
{
    char q[64];
    *order = 'C';
    if (!text)
        return CLI_OK;
    if (text[0] && strchr("CcFf", text[0]) && text[1] == '\0') {
        *order = text[0] == 'c' || text[0] == 'C' ? 'C' : 'F';
        return CLI_OK;
    }
    return cli_usage(ctx, "--order must be C or F, not '%s'",
                     cli_quote(text, strlen(text), q, sizeof q));
}

int cli_arg_shape(cli_ctx *ctx, const char *text, const char *what, ts_shape *out)
{
    ts_error err;
    char q[256];
    if (ts_shape_parse(text, strlen(text), 0, out, NULL, &err) == TS_OK)
        return CLI_OK;
    if (what)
        return cli_error(ctx, NULL, "%s '%s': %s", what, cli_quote(text, strlen(text), q, sizeof q),
                         err.message);
    return cli_error(ctx, NULL, "'%s': %s", cli_quote(text, strlen(text), q, sizeof q),
                     err.message);
}

int cli_arg_int_list(cli_ctx *ctx, const char *text, const char *what, ts_shape *out)
{
    ts_error err;
    char q[256];
    if (cli_scan_int_list(text, strlen(text), out, &err) == CLI_OK)
        return CLI_OK;
    return cli_error(ctx, NULL, "%s '%s': %s", what, cli_quote(text, strlen(text), q, sizeof q),
                     err.message);
}

int cli_arg_ints(cli_ctx *ctx, const char *text, const char *what, int64_t *out, int *n)
{
    ts_shape list = TS_SHAPE_INIT;
    int rc = cli_arg_int_list(ctx, text, what, &list);
    if (rc == CLI_OK) {
        *n = ts_shape_ndim(&list);
        memcpy(out, ts_shape_dims(&list), (size_t)*n * sizeof *out);
    }
    ts_shape_free(&list);
    return rc;
}

/* ---- integer lists and shapes inside a line --------------------------------- */

int cli_scan_int_list(const char *text, size_t len, ts_shape *out, ts_error *err)
{
    /* The library's one lexer: "(1,0,2)", "[...]", "()", "1,0,2", "-1". */
    return ts_parse_i64_list(text, len, TS_PARSE_ALLOW_NEGATIVE, out, err) ? CLI_ERROR : CLI_OK;
}

static void skip_blanks(const char *text, size_t len, size_t *pos)
{
    while (*pos < len && (text[*pos] == ' ' || text[*pos] == '\t' || text[*pos] == '\r' ||
                          text[*pos] == '\n'))
        (*pos)++;
}

int cli_scan_shape(const char *text, size_t len, size_t *pos, ts_shape *out, const char *what,
                   ts_error *err)
{
    size_t used = 0;
    skip_blanks(text, len, pos);
    size_t at = *pos;
    if (ts_shape_parse(text + at, len - at, 0, out, &used, err) != TS_OK)
        return cli_fail_prefix(err, "%s starting at column %zu: ", what, at + 1);
    *pos = at + used;
    skip_blanks(text, len, pos);
    return CLI_OK;
}

/* ---- several shapes together ------------------------------------------------ */

/* Room for n + 1 shapes. */
static int shapes_grow(cli_shapes *l, ts_error *err)
{
    if (l->n < l->cap)
        return CLI_OK;
    size_t cap = l->cap ? 2 * l->cap : 8;
    ts_shape *s = realloc(l->shapes, cap * sizeof *s);
    if (!s)
        return cli_fail(err, TS_ERR_NOMEM, "out of memory for %zu shapes", cap);
    l->shapes = s;
    const ts_shape **p = realloc(l->ptrs, cap * sizeof *p);
    if (!p)
        return cli_fail(err, TS_ERR_NOMEM, "out of memory for %zu shapes", cap);
    l->ptrs = p;
    for (size_t i = l->cap; i < cap; i++)
        ts_shape_init(&l->shapes[i]);
    l->cap = cap;
    return CLI_OK;
}

/* The shape just read at index n becomes part of the list. */
static void shapes_take(cli_shapes *l)
{
    l->ptrs[l->n] = &l->shapes[l->n];
    l->n++;
}

int cli_shapes_scan(cli_shapes *l, const char *text, size_t len, ts_error *err)
{
    size_t pos = 0;
    l->n = 0;
    while (pos < len && (text[pos] == ' ' || text[pos] == '\t'))
        pos++;
    while (pos < len) {
        char what[32];
        snprintf(what, sizeof what, "shape %zu", l->n);
        if (shapes_grow(l, err) || cli_scan_shape(text, len, &pos, &l->shapes[l->n], what, err))
            return CLI_ERROR;
        shapes_take(l);
    }
    return CLI_OK;
}

int cli_shapes_args(cli_ctx *ctx, cli_shapes *l, int n, char *const *ops)
{
    ts_error err;
    l->n = 0;
    for (int i = 0; i < n; i++) {
        char what[32];
        snprintf(what, sizeof what, "shape %d", i);
        if (shapes_grow(l, &err))
            return cli_error(ctx, NULL, "%s", err.message);
        if (cli_arg_shape(ctx, ops[i], what, &l->shapes[l->n]))
            return CLI_ERROR;
        shapes_take(l);
    }
    return CLI_OK;
}

void cli_shapes_free(cli_shapes *l)
{
    for (size_t i = 0; i < l->cap; i++)
        ts_shape_free(&l->shapes[i]);
    free(l->shapes);
    free(l->ptrs);
    memset(l, 0, sizeof *l);
}

/* ---- operands or stdin lines ------------------------------------------------- */

int cli_stdin_mode(int n, char *const *ops)
{
    return n == 0 || (n == 1 && strcmp(ops[0], "-") == 0);
}

/* Runs fn on one input and reports its error; line 0: an operand. */
static int run_input(cli_ctx *ctx, const char *text, size_t len, long line, cli_line_fn fn,
                     void *job)
{
    ts_error err;
    err.message[0] = '\0';
    int rc = fn(ctx, job, text, len, &err);
    if (rc == CLI_ERROR) {
        char q[256], where[32];
        cli_quote(text, len, q, sizeof q);
        if (line > 0) {
            snprintf(where, sizeof where, "line %ld", line);
            cli_error(ctx, where, "'%s': %s", q, err.message);
            print_no_result(ctx);
        } else {
            cli_error(ctx, NULL, "'%s': %s", q, err.message);
        }
    }
    return rc;
}

static int blank_or_comment(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
        i++;
    return i == n || s[i] == '#';
}

/* Runs fn on the complete lines of buf[0..*len) and keeps the incomplete
 * last one at the start of buf. */
static int run_lines(cli_ctx *ctx, char *buf, size_t *len, long *line, cli_line_fn fn,
                     void *job)
{
    int status = CLI_OK;
    char *start = buf, *end = buf + *len, *nl;
    while (!ctx->out.closed && (nl = memchr(start, '\n', (size_t)(end - start))) != NULL) {
        size_t n = (size_t)(nl - start);
        ++*line;
        if (n && start[n - 1] == '\r')
            n--;
        if (!blank_or_comment(start, n))
            status = cli_worse(status, run_input(ctx, start, n, *line, fn, job));
        start = nl + 1;
    }
    *len = (size_t)(end - start);
    memmove(buf, start, *len);
    return status;
}

/* stdin: big reads, lines split with memchr; a line may span reads. Each
 * byte is searched for '\n' once when read and once more when its line is
 * run, so reading is linear in the input. A line longer than CLI_LINE_MAX
 * is an error (and an empty result line); the rest of it is read and
 * dropped, so memory stays bounded whatever the input (</dev/zero). */
static int each_stdin_line(cli_ctx *ctx, cli_line_fn fn, void *job)
{
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap + 1);
    if (!buf)
        return cli_error(ctx, NULL, "out of memory");
    long line = 0;
    int status = CLI_OK, dropping = 0;
    while (!ctx->out.closed) {
        if (len == cap && cap > CLI_LINE_MAX) { /* no newline in CLI_LINE_MAX + 1 bytes */
            if (!dropping) {
                char where[32];
                snprintf(where, sizeof where, "line %ld", ++line);
                status = cli_error(ctx, where, "longer than %d bytes, the limit of a line",
                                   CLI_LINE_MAX);
                print_no_result(ctx);
                dropping = 1;
            }
            len = 0;
        } else if (len == cap) {
            size_t grown = cap * 2 > CLI_LINE_MAX ? CLI_LINE_MAX + 1 : cap * 2;
            char *p = realloc(buf, grown + 1);
            if (!p) {
                free(buf);
                return cli_error(ctx, "<stdin>", "out of memory: line %ld is too long",
                                 line + 1);
            }
            buf = p;
            cap = grown;
        }
        ssize_t k = read(STDIN_FILENO, buf + len, cap - len);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            status = cli_error(ctx, "<stdin>", "read error: %s", strerror(errno));
            break;
        }
        if (k == 0) {
            if (len > 0 && !dropping) { /* the last line had no newline (buf has room) */
                buf[len++] = '\n';
                status = cli_worse(status, run_lines(ctx, buf, &len, &line, fn, job));
            }
            break;
        }
        char *nl = memchr(buf + len, '\n', (size_t)k);
        len += (size_t)k;
        if (!nl)
            continue;
        if (dropping) { /* the end of the overlong line: drop up to it */
            len -= (size_t)(nl + 1 - buf);
            memmove(buf, nl + 1, len);
            dropping = 0;
        }
        status = cli_worse(status, run_lines(ctx, buf, &len, &line, fn, job));
    }
    free(buf);
    return status;
}

int cli_each_input(cli_ctx *ctx, int n, char *const *ops, cli_line_fn fn, void *job)
{
    if (cli_stdin_mode(n, ops))
        return each_stdin_line(ctx, fn, job);
    int status = CLI_OK;
    for (int i = 0; i < n && !ctx->out.closed; i++)
        status = cli_worse(status, run_input(ctx, ops[i], strlen(ops[i]), 0, fn, job));
    return status;
}
