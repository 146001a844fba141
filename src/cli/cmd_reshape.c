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
    return out_shape_line(ctx, &j->out, err);
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
    cli_shapes in;
    ts_shape out;
} broadcast_job;

static int print_broadcast(cli_ctx *ctx, broadcast_job *j, ts_error *err)
{
    if (ts_broadcast(j->in.ptrs, j->in.n, &j->out, err) != TS_OK)
        return CLI_ERROR;
    return out_shape_line(ctx, &j->out, err);
}

/* One stdin line: SHAPE SHAPE... */
static int do_broadcast_line(cli_ctx *ctx, void *job, const char *text, size_t len,
                             ts_error *err)
{
    broadcast_job *j = job;
    if (cli_shapes_scan(&j->in, text, len, err))
        return CLI_ERROR;
    return print_broadcast(ctx, j, err);
}

/* The shapes given as operands. */
static int broadcast_operands(cli_ctx *ctx, const cli_args *args, broadcast_job *j)
{
    ts_error err;
    if (cli_shapes_args(ctx, &j->in, args->nops, args->ops))
        return CLI_ERROR;
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
    cli_shapes_free(&j.in);
    ts_shape_free(&j.out);
    return rc;
}
