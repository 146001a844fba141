/*
 * cmd_slice.c - TensorWrapper slices and chips of a shape: slice and chip.
 */
#include "cli.h"

const cli_option slice_options[] = {
    CLI_ABOUT("TensorWrapper slice: half-open ranges [BEGIN, END) per axis, same rank,\n"
              "extents END-BEGIN, origin BEGIN. With END omitted, BEGIN pins the first\n"
              "axes to single indices and the others run their whole span. Bounds are\n"
              "checked; empty ranges (BEGIN == END) are allowed. SHAPE '-' reads shapes\n"
              "from stdin."),
    CLI_OPTIONS_END,
};

const cli_option chip_options[] = {
    CLI_ABOUT("TensorWrapper chip: like slice, then axes whose range has extent 1 are\n"
              "removed. SHAPE '-' reads shapes from stdin."),
    CLI_OPTIONS_END,
};

typedef struct slice_job {
    ts_shape shape, out, origin;
    int64_t begin[TS_MAX_NDIM], end[TS_MAX_NDIM];
    int nbegin, nend;     /* nend -1: short form */
    int chip;
} slice_job;

static int do_slice(cli_ctx *ctx, void *job, const char *text, size_t len, ts_error *err)
{
    slice_job *j = job;
    const int64_t *end = j->nend >= 0 ? j->end : NULL;
    int nend = j->nend >= 0 ? j->nend : 0;
    if (ts_shape_parse(text, len, 0, &j->shape, NULL, err) != TS_OK)
        return CLI_ERROR;
    ts_status st = j->chip ? ts_shape_chip(&j->shape, j->begin, j->nbegin, end, nend, &j->out,
                                           &j->origin, err)
                           : ts_shape_slice(&j->shape, j->begin, j->nbegin, end, nend, &j->out,
                                            &j->origin, err);
    if (st != TS_OK || cli_shape_fits(&j->out, err) != CLI_OK)
        return CLI_ERROR;
    print_open_object(ctx, NULL);
    print_dims(ctx, PRINT_ANY, "shape", "%s", ts_shape_dims(&j->out), ts_shape_ndim(&j->out));
    print_dims(ctx, PRINT_ANY, "origin", " origin %s\n", ts_shape_dims(&j->origin),
               ts_shape_ndim(&j->origin));
    print_close_object(ctx);
    return CLI_OK;
}

static int run(cli_ctx *ctx, const cli_args *args, int chip)
{
    int n = args->nops;
    if (n < 2 || n > 3)
        return cli_usage(ctx, "expected SHAPE BEGIN [END], got %d operand%s", n,
                         n == 1 ? "" : "s");
    slice_job j = {TS_SHAPE_INIT, TS_SHAPE_INIT, TS_SHAPE_INIT, {0}, {0}, 0, -1, chip};
    if (cli_arg_ints(ctx, args->ops[1], "BEGIN", j.begin, &j.nbegin) ||
        (n == 3 && cli_arg_ints(ctx, args->ops[2], "END", j.end, &j.nend)))
        return CLI_ERROR;
    int rc = cli_each_input(ctx, 1, args->ops, do_slice, &j);
    ts_shape_free(&j.shape);
    ts_shape_free(&j.out);
    ts_shape_free(&j.origin);
    return rc;
}

int cmd_slice(cli_ctx *ctx, const cli_args *args)
{
    return run(ctx, args, 0);
}

int cmd_chip(cli_ctx *ctx, const cli_args *args)
{
    return run(ctx, args, 1);
}
