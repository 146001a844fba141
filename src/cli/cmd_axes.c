/*
 * cmd_axes.c - the axis commands: transpose, squeeze, expand, moveaxis,
 * flatten (NumPy and PyTorch rules). Each applies the axes given once to
 * every SHAPE operand, or to every stdin line when there is none, and
 * prints the resulting shape.
 */
#include "cli.h"

#include <string.h>

const cli_option transpose_options[] = {
    CLI_ABOUT("Without AXES the dims are reversed. With two or more operands the\n"
              "first is AXES; use --axes AXES to transpose several shapes, or '-'\n"
              "to read the shapes from stdin."),
    CLI_VALUE("axes", 0, "AXES", "the permutation, e.g. 1,0,2 or (1,0,2)"),
    CLI_OPTIONS_END,
};

const cli_option squeeze_options[] = {
    CLI_ABOUT("Without --axis every size-1 dim is removed."),
    CLI_VALUE("axis", 0, "AXES", "remove exactly these axes (each must have size 1)"),
    CLI_OPTIONS_END,
};

const cli_option expand_options[] = {
    CLI_ABOUT("AXES index the result (ndim + number of AXES dims), as NumPy expand_dims."),
    CLI_OPTIONS_END,
};

const cli_option moveaxis_options[] = {
    CLI_ABOUT("SRC and DST are single axes or lists of equal length, as NumPy moveaxis."),
    CLI_OPTIONS_END,
};

const cli_option flatten_options[] = {
    CLI_ABOUT("Merges dims START..END, both inclusive (PyTorch flatten); negatives count\n"
              "from the end, so 0 -1 flattens everything. Compare flat2d and flat3d."),
    CLI_OPTIONS_END,
};

typedef struct axes_job axes_job;
struct axes_job {
    ts_status (*op)(axes_job *j, ts_error *err);
    ts_shape in, out;       /* reused for every input */
    ts_shape axes, dst;     /* the axes given; moveaxis's destinations */
    int has_axes;
    int64_t start, end;     /* flatten */
};

static ts_status op_transpose(axes_job *j, ts_error *err)
{
    return ts_transpose(&j->in, j->has_axes ? ts_shape_dims(&j->axes) : NULL,
                        (size_t)ts_shape_ndim(&j->axes), &j->out, err);
}

static ts_status op_squeeze(axes_job *j, ts_error *err)
{
    return ts_squeeze(&j->in, j->has_axes ? ts_shape_dims(&j->axes) : NULL,
                      (size_t)ts_shape_ndim(&j->axes), &j->out, err);
}

static ts_status op_expand(axes_job *j, ts_error *err)
{
    return ts_expand_dims(&j->in, ts_shape_dims(&j->axes), (size_t)ts_shape_ndim(&j->axes),
                          &j->out, err);
}

static ts_status op_moveaxis(axes_job *j, ts_error *err)
{
    return ts_moveaxis(&j->in, ts_shape_dims(&j->axes), ts_shape_dims(&j->dst),
                       (size_t)ts_shape_ndim(&j->axes), &j->out, err);
}

static ts_status op_flatten(axes_job *j, ts_error *err)
{
    return ts_flatten(&j->in, j->start, j->end, &j->out, err);
}

static int do_shape(cli_ctx *ctx, void *job, const char *text, size_t len, ts_error *err)
{
    axes_job *j = job;
    if (ts_shape_parse(text, len, 0, &j->in, NULL, err) != TS_OK || j->op(j, err) != TS_OK)
        return CLI_ERROR;
    return out_shape_line(ctx, &j->out, err);
}

static void job_init(axes_job *j, ts_status (*op)(axes_job *, ts_error *))
{
    memset(j, 0, sizeof *j);
    j->op = op;
    ts_shape_init(&j->in);
    ts_shape_init(&j->out);
    ts_shape_init(&j->axes);
    ts_shape_init(&j->dst);
}

/* Runs the job over the operands from `first` on (or stdin) and frees it;
 * `rc` is the status of the preparation (the job is only freed if it
 * failed). */
static int run(cli_ctx *ctx, const cli_args *args, int first, axes_job *j, int rc)
{
    if (rc == CLI_OK)
        rc = cli_each_input(ctx, args->nops - first, args->ops + first, do_shape, j);
    ts_shape_free(&j->in);
    ts_shape_free(&j->out);
    ts_shape_free(&j->axes);
    ts_shape_free(&j->dst);
    return rc;
}

int cmd_transpose(cli_ctx *ctx, const cli_args *args)
{
    axes_job j;
    job_init(&j, op_transpose);
    const char *axes = cli_opt(args, "axes");
    int first = 0, rc = CLI_OK;
    if (!axes && args->nops >= 2)
        axes = args->ops[first++];
    if (axes) {
        rc = cli_arg_int_list(ctx, axes, "AXES", &j.axes);
        j.has_axes = 1;
    }
    return run(ctx, args, first, &j, rc);
}

int cmd_squeeze(cli_ctx *ctx, const cli_args *args)
{
    axes_job j;
    job_init(&j, op_squeeze);
    const char *axes = cli_opt(args, "axis");
    int rc = CLI_OK;
    if (axes) {
        rc = cli_arg_int_list(ctx, axes, "--axis", &j.axes);
        j.has_axes = 1;
    }
    return run(ctx, args, 0, &j, rc);
}

int cmd_expand(cli_ctx *ctx, const cli_args *args)
{
    if (args->nops < 1)
        return cli_usage(ctx, "missing AXES, e.g. 0 or (0,-1)");
    axes_job j;
    job_init(&j, op_expand);
    return run(ctx, args, 1, &j, cli_arg_int_list(ctx, args->ops[0], "AXES", &j.axes));
}

int cmd_moveaxis(cli_ctx *ctx, const cli_args *args)
{
    if (args->nops < 2)
        return cli_usage(ctx, "missing SRC and DST");
    axes_job j;
    job_init(&j, op_moveaxis);
    int rc = cli_arg_int_list(ctx, args->ops[0], "SRC", &j.axes);
    if (rc == CLI_OK)
        rc = cli_arg_int_list(ctx, args->ops[1], "DST", &j.dst);
    int a = ts_shape_ndim(&j.axes), b = ts_shape_ndim(&j.dst);
    if (rc == CLI_OK && a != b) {
        char qa[128], qb[128];
        rc = cli_error(ctx, NULL, "SRC '%s' has %d ax%s but DST '%s' has %d: they must pair up",
                       cli_quote(args->ops[0], strlen(args->ops[0]), qa, sizeof qa), a,
                       a == 1 ? "is" : "es",
                       cli_quote(args->ops[1], strlen(args->ops[1]), qb, sizeof qb), b);
    }
    return run(ctx, args, 2, &j, rc);
}

int cmd_flatten(cli_ctx *ctx, const cli_args *args)
{
    if (args->nops < 2)
        return cli_usage(ctx, "missing START and END");
    axes_job j;
    job_init(&j, op_flatten);
    int rc = cli_arg_i64(ctx, args->ops[0], "START", &j.start);
    if (rc == CLI_OK)
        rc = cli_arg_i64(ctx, args->ops[1], "END", &j.end);
    return run(ctx, args, 2, &j, rc);
}
