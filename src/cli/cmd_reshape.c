/*
 * cmd_reshape.c - reshape (NumPy's -1 rule, MXNet's special values) and
 * broadcast (NumPy broadcasting of several shapes).
 */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const cli_option reshape_options[] = {
    CLI_ABOUT("TARGET holds dims and at most one -1 (inferred), NumPy rules."),
    CLI_FLAG("mxnet", 0, "MXNet special values: 0 copy, -1 infer, -2 copy the rest,\n"
                         "-3 merge two, -4 A B split one into A x B (one may be -1)"),
    CLI_FLAG("reverse", 0, "with --mxnet, match the special values right to left"),
    CLI_OPTIONS_END,
};

const cli_option broadcast_options[] = {
    CLI_ABOUT("Without operands, each stdin line holds the shapes to broadcast,\n"
              "separated by whitespace, e.g. (2,1) (3,)."),
    CLI_OPTIONS_END,
};

/* ---- reshape ----------------------------------------------------------------- */

typedef struct reshape_job {
    ts_shape target, in, out;
    unsigned flags;
} reshape_job;

static int do_reshape(cli_ctx *ctx, void *job, const char *text, size_t len, ts_error *err)
{
    reshape_job *j = job;
    if (ts_shape_parse(text, len, 0, &j->in, NULL, err) != TS_OK ||
        ts_reshape(&j->in, &j->target, j->flags, &j->out, err) != TS_OK)
        return CLI_ERROR;
    out_shape(ctx, &j->out);
    out_char(ctx, '\n');
    return CLI_OK;
}

int cmd_reshape(cli_ctx *ctx, const cli_args *args)
{
    int mxnet = cli_flag(args, "mxnet") > 0, reverse = cli_flag(args, "reverse") > 0;
    if (reverse && !mxnet)
        return cli_usage(ctx, "--reverse applies to MXNet special values: add --mxnet");
    if (args->nops < 1)
        return cli_usage(ctx, "missing TARGET, e.g. (-1,4)");
    reshape_job j = {TS_SHAPE_INIT, TS_SHAPE_INIT, TS_SHAPE_INIT, 0};
    j.flags = (mxnet ? TS_RESHAPE_MXNET : 0u) | (reverse ? TS_RESHAPE_REVERSE : 0u);
    int rc = cli_arg_int_list(ctx, args->ops[0], "TARGET", &j.target);
    if (rc == CLI_OK)
        rc = cli_each_input(ctx, args->nops - 1, args->ops + 1, do_reshape, &j);
    ts_shape_free(&j.target);
    ts_shape_free(&j.in);
    ts_shape_free(&j.out);
    return rc;
}

/* ---- broadcast ---------------------------------------------------------------- */

/* The shapes of one broadcast, kept across stdin lines. */
typedef struct broadcast_job {
    ts_shape *shapes;
    const ts_shape **ptrs;
    size_t n, cap;
    ts_shape out;
} broadcast_job;

/* Room for n + 1 shapes. */
static int grow(broadcast_job *j, ts_error *err)
{
    if (j->n < j->cap)
        return CLI_OK;
    size_t cap = j->cap ? 2 * j->cap : 8;
    ts_shape *s = realloc(j->shapes, cap * sizeof *s);
    if (!s)
        return cli_fail(err, TS_ERR_NOMEM, "out of memory for %zu shapes", cap);
    j->shapes = s;
    const ts_shape **p = realloc(j->ptrs, cap * sizeof *p);
    if (!p)
        return cli_fail(err, TS_ERR_NOMEM, "out of memory for %zu shapes", cap);
    j->ptrs = p;
    for (size_t i = j->cap; i < cap; i++)
        ts_shape_init(&j->shapes[i]);
    j->cap = cap;
    return CLI_OK;
}

static int print_broadcast(cli_ctx *ctx, broadcast_job *j, ts_error *err)
{
    for (size_t i = 0; i < j->n; i++)
        j->ptrs[i] = &j->shapes[i];
    if (ts_broadcast(j->ptrs, j->n, &j->out, err) != TS_OK)
        return CLI_ERROR;
    out_shape(ctx, &j->out);
    out_char(ctx, '\n');
    return CLI_OK;
}

/* One stdin line: SHAPE SHAPE... */
static int do_broadcast_line(cli_ctx *ctx, void *job, const char *text, size_t len,
                             ts_error *err)
{
    broadcast_job *j = job;
    size_t pos = 0;
    j->n = 0;
    while (pos < len && (text[pos] == ' ' || text[pos] == '\t'))
        pos++;
    while (pos < len) {
        char what[32];
        snprintf(what, sizeof what, "shape %zu", j->n);
        if (grow(j, err) || cli_scan_shape(text, len, &pos, &j->shapes[j->n], what, err))
            return CLI_ERROR;
        j->n++;
    }
    return print_broadcast(ctx, j, err);
}

/* The shapes given as operands. */
static int broadcast_operands(cli_ctx *ctx, const cli_args *args, broadcast_job *j)
{
    ts_error err;
    for (int i = 0; i < args->nops; i++) {
        char what[32];
        snprintf(what, sizeof what, "shape %d", i);
        if (grow(j, &err))
            return cli_error(ctx, NULL, "%s", err.message);
        if (cli_arg_shape(ctx, args->ops[i], what, &j->shapes[j->n]))
            return CLI_ERROR;
        j->n++;
    }
    if (print_broadcast(ctx, j, &err))
        return cli_error(ctx, NULL, "%s", err.message);
    return CLI_OK;
}

int cmd_broadcast(cli_ctx *ctx, const cli_args *args)
{
    broadcast_job j;
    memset(&j, 0, sizeof j);
    ts_shape_init(&j.out);
    int rc = cli_stdin_mode(args->nops, args->ops)
                 ? cli_each_input(ctx, 0, NULL, do_broadcast_line, &j)
                 : broadcast_operands(ctx, args, &j);
    for (size_t i = 0; i < j.cap; i++)
        ts_shape_free(&j.shapes[i]);
    free(j.shapes);
    free(j.ptrs);
    ts_shape_free(&j.out);
    return rc;
}
