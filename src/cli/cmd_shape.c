/*
 * cmd_shape.c - the core shape commands: size, ndim, norm, flat2d, flat3d,
 * prod, eq, get. Each works on SHAPE operands or on stdin lines.
 */
#include "cli.h"

#include <string.h>

/* One job per run: the parameters, and a shape reused for every line (a
 * million lines cost no allocation). */
typedef struct shape_job {
    ts_shape shape;
    int64_t a, b;     /* flat3d's axes, prod's range, get's ndim */
} shape_job;

static int parse_line(shape_job *j, const char *text, size_t len, ts_error *err)
{
    return ts_shape_parse(text, len, 0, &j->shape, NULL, err) == TS_OK ? CLI_OK : CLI_ERROR;
}

static int do_size(cli_ctx *ctx, void *job, const char *text, size_t len, ts_error *err)
{
    shape_job *j = job;
    int64_t size;
    if (parse_line(j, text, len, err) || ts_shape_size(&j->shape, &size, err))
        return CLI_ERROR;
    out_i64(ctx, size);
    out_char(ctx, '\n');
    return CLI_OK;
}

static int do_ndim(cli_ctx *ctx, void *job, const char *text, size_t len, ts_error *err)
{
    shape_job *j = job;
    if (parse_line(j, text, len, err))
        return CLI_ERROR;
    out_i64(ctx, ts_shape_ndim(&j->shape));
    out_char(ctx, '\n');
    return CLI_OK;
}

static int do_norm(cli_ctx *ctx, void *job, const char *text, size_t len, ts_error *err)
{
    shape_job *j = job;
    if (parse_line(j, text, len, err))
        return CLI_ERROR;
    return out_shape_line(ctx, &j->shape, err);
}

static int do_flat2d(cli_ctx *ctx, void *job, const char *text, size_t len, ts_error *err)
{
    shape_job *j = job;
    int64_t d[2];
    if (parse_line(j, text, len, err) || ts_shape_flat2d(&j->shape, d, err))
        return CLI_ERROR;
    out_dims(ctx, d, 2);
    out_char(ctx, '\n');
    return CLI_OK;
}

static int do_flat3d(cli_ctx *ctx, void *job, const char *text, size_t len, ts_error *err)
{
    shape_job *j = job;
    int64_t d[3];
    if (parse_line(j, text, len, err) || ts_shape_flat3d(&j->shape, j->a, j->b, d, err))
        return CLI_ERROR;
    out_dims(ctx, d, 3);
    out_char(ctx, '\n');
    return CLI_OK;
}

static int do_prod(cli_ctx *ctx, void *job, const char *text, size_t len, ts_error *err)
{
    shape_job *j = job;
    int64_t v;
    if (parse_line(j, text, len, err) || ts_shape_prod(&j->shape, j->a, j->b, &v, err))
        return CLI_ERROR;
    out_i64(ctx, v);
    out_char(ctx, '\n');
    return CLI_OK;
}

static int do_get(cli_ctx *ctx, void *job, const char *text, size_t len, ts_error *err)
{
    shape_job *j = job;
    int64_t dims[TS_MAX_NDIM];
    if (parse_line(j, text, len, err) || ts_shape_get(&j->shape, (int)j->a, dims, err))
        return CLI_ERROR;
    out_dims(ctx, dims, (int)j->a);
    out_char(ctx, '\n');
    return CLI_OK;
}

/* Runs fn over the operands from `first` on, or over stdin lines. */
static int run_map(cli_ctx *ctx, const cli_args *args, int first, cli_line_fn fn, shape_job *j)
{
    int rc = cli_each_input(ctx, args->nops - first, args->ops + first, fn, j);
    ts_shape_free(&j->shape);
    return rc;
}

static int map(cli_ctx *ctx, const cli_args *args, cli_line_fn fn)
{
    shape_job j = {TS_SHAPE_INIT, 0, 0};
    return run_map(ctx, args, 0, fn, &j);
}

int cmd_size(cli_ctx *ctx, const cli_args *args) { return map(ctx, args, do_size); }
int cmd_ndim(cli_ctx *ctx, const cli_args *args) { return map(ctx, args, do_ndim); }
int cmd_norm(cli_ctx *ctx, const cli_args *args) { return map(ctx, args, do_norm); }
int cmd_flat2d(cli_ctx *ctx, const cli_args *args) { return map(ctx, args, do_flat2d); }

/* "k" or "b:e" into j->a, j->b. */
static int parse_axis_range(cli_ctx *ctx, const char *text, shape_job *j)
{
    const char *colon = strchr(text, ':');
    if (!colon) {
        if (cli_arg_i64(ctx, text, "AXIS", &j->a))
            return CLI_ERROR;
        j->b = j->a;
        return CLI_OK;
    }
    char first[32], q[64];
    size_t n = (size_t)(colon - text);
    if (n >= sizeof first)
        return cli_usage(ctx, "AXIS '%s' must be k or b:e", cli_quote(text, strlen(text), q, sizeof q));
    memcpy(first, text, n);
    first[n] = '\0';
    if (cli_arg_i64(ctx, first, "AXIS begin", &j->a) ||
        cli_arg_i64(ctx, colon + 1, "AXIS end", &j->b))
        return CLI_ERROR;
    return CLI_OK;
}

int cmd_flat3d(cli_ctx *ctx, const cli_args *args)
{
    shape_job j = {TS_SHAPE_INIT, 0, 0};
    if (args->nops < 1)
        return cli_usage(ctx, "missing AXIS (k or b:e)");
    if (parse_axis_range(ctx, args->ops[0], &j))
        return CLI_ERROR;
    return run_map(ctx, args, 1, do_flat3d, &j);
}

int cmd_prod(cli_ctx *ctx, const cli_args *args)
{
    shape_job j = {TS_SHAPE_INIT, 0, 0};
    if (args->nops < 2)
        return cli_usage(ctx, "missing BEGIN and END");
    if (cli_arg_i64(ctx, args->ops[0], "BEGIN", &j.a) ||
        cli_arg_i64(ctx, args->ops[1], "END", &j.b))
        return CLI_ERROR;
    return run_map(ctx, args, 2, do_prod, &j);
}

int cmd_get(cli_ctx *ctx, const cli_args *args)
{
    shape_job j = {TS_SHAPE_INIT, 0, 0};
    if (args->nops < 1)
        return cli_usage(ctx, "missing NDIM");
    if (cli_arg_i64(ctx, args->ops[0], "NDIM", &j.a))
        return CLI_ERROR;
    if (j.a < 0 || j.a > TS_MAX_NDIM)
        return cli_usage(ctx, "NDIM must be 0..%d, not %lld", TS_MAX_NDIM, (long long)j.a);
    return run_map(ctx, args, 1, do_get, &j);
}

int cmd_eq(cli_ctx *ctx, const cli_args *args)
{
    if (args->nops != 2)
        return cli_usage(ctx, "expected exactly two shapes, got %d", args->nops);
    ts_shape a = TS_SHAPE_INIT, b = TS_SHAPE_INIT;
    int rc = cli_arg_shape(ctx, args->ops[0], NULL, &a);
    if (!rc)
        rc = cli_arg_shape(ctx, args->ops[1], NULL, &b);
    if (!rc) {
        rc = ts_shape_equal(&a, &b) ? CLI_OK : CLI_FALSE;
        out_str(ctx, rc == CLI_OK ? "true\n" : "false\n"); /* text and JSON alike */
    }
    ts_shape_free(&a);
    ts_shape_free(&b);
    return rc;
}
