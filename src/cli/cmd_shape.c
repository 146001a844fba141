/*
 * cmd_shape.c - the core shape commands: size, ndim, norm, flat2d, flat3d,
 * prod, eq, get. Each works on SHAPE arguments or on stdin lines.
 */
#include "cli.h"

#include <string.h>

/* A reusable shape for the per-line functions: parsing into it reuses its
 * storage, so a million lines cost no allocation. Freed at exit. */
static ts_shape line_shape = TS_SHAPE_INIT;

static int parse_line(const char *text, size_t len, ts_error *err)
{
    return ts_shape_parse(text, len, 0, &line_shape, NULL, err) == TS_OK ? CLI_OK : CLI_ERROR;
}

static int do_size(cli_ctx *ctx, const char *text, size_t len, void *user, ts_error *err)
{
    (void)ctx;
    (void)user;
    int64_t size;
    if (parse_line(text, len, err) || ts_shape_size(&line_shape, &size, err))
        return CLI_ERROR;
    out_i64(size);
    out_char('\n');
    return CLI_OK;
}

static int do_ndim(cli_ctx *ctx, const char *text, size_t len, void *user, ts_error *err)
{
    (void)ctx;
    (void)user;
    if (parse_line(text, len, err))
        return CLI_ERROR;
    out_i64(ts_shape_ndim(&line_shape));
    out_char('\n');
    return CLI_OK;
}

static int do_norm(cli_ctx *ctx, const char *text, size_t len, void *user, ts_error *err)
{
    (void)user;
    if (parse_line(text, len, err))
        return CLI_ERROR;
    out_shape(ctx, &line_shape);
    out_char('\n');
    return CLI_OK;
}

static int do_flat2d(cli_ctx *ctx, const char *text, size_t len, void *user, ts_error *err)
{
    (void)user;
    int64_t d[2];
    if (parse_line(text, len, err) || ts_shape_flat2d(&line_shape, d, err))
        return CLI_ERROR;
    out_dims(ctx, d, 2);
    out_char('\n');
    return CLI_OK;
}

typedef struct range {
    int64_t a, b;
} range;

static int do_flat3d(cli_ctx *ctx, const char *text, size_t len, void *user, ts_error *err)
{
    const range *r = user;
    int64_t d[3];
    if (parse_line(text, len, err) || ts_shape_flat3d(&line_shape, r->a, r->b, d, err))
        return CLI_ERROR;
    out_dims(ctx, d, 3);
    out_char('\n');
    return CLI_OK;
}

static int do_prod(cli_ctx *ctx, const char *text, size_t len, void *user, ts_error *err)
{
    (void)ctx;
    const range *r = user;
    int64_t v;
    if (parse_line(text, len, err) || ts_shape_prod(&line_shape, r->a, r->b, &v, err))
        return CLI_ERROR;
    out_i64(v);
    out_char('\n');
    return CLI_OK;
}

static int do_get(cli_ctx *ctx, const char *text, size_t len, void *user, ts_error *err)
{
    const range *r = user;
    int64_t dims[TS_MAX_NDIM];
    if (parse_line(text, len, err) || ts_shape_get(&line_shape, (int)r->a, dims, err))
        return CLI_ERROR;
    out_dims(ctx, dims, (int)r->a);
    out_char('\n');
    return CLI_OK;
}

/* Runs a per-shape function over the operands from `first` on, or stdin. */
static int run_map(cli_ctx *ctx, int argc, char **argv, int first, cli_input_fn fn,
                   void *user)
{
    int rc = cli_for_each_input(ctx, argc - first, argv + first, fn, user);
    ts_shape_free(&line_shape);
    return rc;
}

static int cmd_map(cli_ctx *ctx, int argc, char **argv, cli_input_fn fn)
{
    int status;
    int first = cli_simple_options(ctx, argc, argv, cli_find_command(argv[0]), &status);
    if (first < 0)
        return status;
    return run_map(ctx, argc, argv, first, fn, NULL);
}

static int cmd_size(cli_ctx *ctx, int argc, char **argv) { return cmd_map(ctx, argc, argv, do_size); }
static int cmd_ndim(cli_ctx *ctx, int argc, char **argv) { return cmd_map(ctx, argc, argv, do_ndim); }
static int cmd_norm(cli_ctx *ctx, int argc, char **argv) { return cmd_map(ctx, argc, argv, do_norm); }
static int cmd_flat2d(cli_ctx *ctx, int argc, char **argv) { return cmd_map(ctx, argc, argv, do_flat2d); }

/* Parses "k" or "b:e" into a range. */
static int parse_axis_range(const cli_ctx *ctx, const char *text, range *r)
{
    const char *colon = strchr(text, ':');
    if (!colon) {
        if (cli_parse_i64(ctx, text, "AXIS", &r->a))
            return CLI_ERROR;
        r->b = r->a;
        return CLI_OK;
    }
    char first[32];
    size_t n = (size_t)(colon - text);
    if (n >= sizeof first)
        return cli_usage_error(ctx, "AXIS '%s' must be k or b:e", text);
    memcpy(first, text, n);
    first[n] = '\0';
    if (cli_parse_i64(ctx, first, "AXIS begin", &r->a) ||
        cli_parse_i64(ctx, colon + 1, "AXIS end", &r->b))
        return CLI_ERROR;
    return CLI_OK;
}

static int cmd_flat3d(cli_ctx *ctx, int argc, char **argv)
{
    int status;
    int first = cli_simple_options(ctx, argc, argv, cli_find_command("flat3d"), &status);
    if (first < 0)
        return status;
    if (first >= argc)
        return cli_usage_error(ctx, "missing AXIS (k or b:e)");
    range r;
    if (parse_axis_range(ctx, argv[first], &r))
        return CLI_ERROR;
    return run_map(ctx, argc, argv, first + 1, do_flat3d, &r);
}

static int cmd_prod(cli_ctx *ctx, int argc, char **argv)
{
    int status;
    int first = cli_simple_options(ctx, argc, argv, cli_find_command("prod"), &status);
    if (first < 0)
        return status;
    if (argc - first < 2)
        return cli_usage_error(ctx, "missing BEGIN and END");
    range r;
    if (cli_parse_i64(ctx, argv[first], "BEGIN", &r.a) ||
        cli_parse_i64(ctx, argv[first + 1], "END", &r.b))
        return CLI_ERROR;
    return run_map(ctx, argc, argv, first + 2, do_prod, &r);
}

static int cmd_get(cli_ctx *ctx, int argc, char **argv)
{
    int status;
    int first = cli_simple_options(ctx, argc, argv, cli_find_command("get"), &status);
    if (first < 0)
        return status;
    if (first >= argc)
        return cli_usage_error(ctx, "missing NDIM");
    range r;
    if (cli_parse_i64(ctx, argv[first], "NDIM", &r.a))
        return CLI_ERROR;
    if (r.a < 0 || r.a > TS_MAX_NDIM)
        return cli_usage_error(ctx, "NDIM must be 0..%d, not %s", TS_MAX_NDIM, argv[first]);
    return run_map(ctx, argc, argv, first + 1, do_get, &r);
}

static int cmd_eq(cli_ctx *ctx, int argc, char **argv)
{
    int status;
    int first = cli_simple_options(ctx, argc, argv, cli_find_command("eq"), &status);
    if (first < 0)
        return status;
    if (argc - first != 2)
        return cli_usage_error(ctx, "expected exactly two shapes, got %d", argc - first);
    ts_shape a = TS_SHAPE_INIT, b = TS_SHAPE_INIT;
    int rc = cli_parse_shape(argv[first], 0, &a);
    if (!rc)
        rc = cli_parse_shape(argv[first + 1], 0, &b);
    if (!rc) {
        rc = ts_shape_equal(&a, &b) ? CLI_OK : CLI_FALSE;
        out_str(rc == CLI_OK ? "true\n" : "false\n");
    }
    ts_shape_free(&a);
    ts_shape_free(&b);
    return rc;
}

const cli_command cli_cmds_shape[] = {
    {"size", cmd_size, "size SHAPE...", "element count (product of dims; 1 for ())"},
    {"ndim", cmd_ndim, "ndim SHAPE...", "number of dimensions"},
    {"norm", cmd_norm, "norm SHAPE...", "canonical form, e.g. (3,4,5)"},
    {"flat2d", cmd_flat2d, "flat2d SHAPE...", "mshadow FlatTo2D: (prod of all but last, last)"},
    {"flat3d", cmd_flat3d, "flat3d AXIS SHAPE...",
     "mshadow FlatTo3D; AXIS is k or b:e (inclusive)"},
    {"prod", cmd_prod, "prod BEGIN END SHAPE...", "product of dims over [BEGIN,END)"},
    {"eq", cmd_eq, "eq SHAPE SHAPE", "exit 0 if the shapes are equal, 1 if not"},
    {"get", cmd_get, "get NDIM SHAPE...", "the shape if it has NDIM dims, else an error"},
    {NULL, NULL, NULL, NULL},
};
