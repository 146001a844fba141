/*
 * cmd_caffe2.c - Caffe2 Tensor's outermost-dim changes: extend, shrink,
 * resize.
 */
#include "cli.h"

const cli_option extend_options[] = {
    CLI_ABOUT("Caffe2 Tensor::Extend: grows the outermost dim by N >= 0."),
    CLI_OPTIONS_END,
};

const cli_option shrink_options[] = {
    CLI_ABOUT("Caffe2 Tensor::Shrink: sets the outermost dim to N, 0 <= N <= current."),
    CLI_OPTIONS_END,
};

const cli_option resize_options[] = {
    CLI_ABOUT("Caffe2 Tensor::Resize: the new shape NEW, the element counts before and\n"
              "after, and whether the count changed (then Caffe2 frees the buffer)."),
    CLI_OPTIONS_END,
};

typedef struct caffe2_job {
    ts_shape shape;
    int64_t n;            /* extend, shrink */
    ts_shape new_dims;    /* resize */
} caffe2_job;

static int do_extend(cli_ctx *ctx, void *job, const char *text, size_t len, ts_error *err)
{
    caffe2_job *j = job;
    if (ts_shape_parse(text, len, 0, &j->shape, NULL, err) != TS_OK ||
        ts_caffe2_extend(&j->shape, j->n, &j->shape, err) != TS_OK)
        return CLI_ERROR;
    return out_shape_line(ctx, &j->shape, err);
}

static int do_shrink(cli_ctx *ctx, void *job, const char *text, size_t len, ts_error *err)
{
    caffe2_job *j = job;
    if (ts_shape_parse(text, len, 0, &j->shape, NULL, err) != TS_OK ||
        ts_caffe2_shrink(&j->shape, j->n, &j->shape, err) != TS_OK)
        return CLI_ERROR;
    return out_shape_line(ctx, &j->shape, err);
}

static int do_resize(cli_ctx *ctx, void *job, const char *text, size_t len, ts_error *err)
{
    caffe2_job *j = job;
    int64_t before, after;
    int changed;
    if (ts_shape_parse(text, len, 0, &j->shape, NULL, err) != TS_OK ||
        ts_caffe2_resize(&j->shape, &j->new_dims, &j->shape, &before, &after, &changed, err))
        return CLI_ERROR;
    print_open_object(ctx, NULL);
    print_dims(ctx, PRINT_ANY, "shape", "%s", ts_shape_dims(&j->shape), ts_shape_ndim(&j->shape));
    print_int(ctx, PRINT_ANY, "old_size", " size %s", before);
    print_int(ctx, PRINT_ANY, "size", " -> %s", after);
    print_bool(ctx, PRINT_JSON, "size_changed", NULL, changed);
    print_text(ctx, changed ? " changed\n" : " unchanged\n");
    print_close_object(ctx);
    return CLI_OK;
}

/* The parameter (N, or the shape NEW), then the SHAPE operands or stdin. */
static int run(cli_ctx *ctx, const cli_args *args, cli_line_fn fn, int resize)
{
    if (args->nops < 1)
        return cli_usage(ctx, "missing %s", resize ? "NEW" : "N");
    caffe2_job j = {TS_SHAPE_INIT, 0, TS_SHAPE_INIT};
    int rc = resize ? cli_arg_shape(ctx, args->ops[0], "NEW", &j.new_dims)
                    : cli_arg_i64(ctx, args->ops[0], "N", &j.n);
    if (rc == CLI_OK)
        rc = cli_each_input(ctx, args->nops - 1, args->ops + 1, fn, &j);
    ts_shape_free(&j.shape);
    ts_shape_free(&j.new_dims);
    return rc;
}

int cmd_extend(cli_ctx *ctx, const cli_args *args)
{
    return run(ctx, args, do_extend, 0);
}

int cmd_shrink(cli_ctx *ctx, const cli_args *args)
{
    return run(ctx, args, do_shrink, 0);
}

int cmd_resize(cli_ctx *ctx, const cli_args *args)
{
    return run(ctx, args, do_resize, 1);
}
