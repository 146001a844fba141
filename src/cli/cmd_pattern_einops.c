/*
 * cmd_pattern_einops.c - rearrange, reduce, repeat and parse-shape: einops
 * patterns applied to shapes.
 *
 * The pattern (with its NAME=SIZE operands) is checked once; a broken
 * pattern is one error line. Then each SHAPE operand, or each stdin line
 * when there is none, gets one output line. Errors carry einops' envelope
 * on one line: rearrange "PATTERN" on shape (2,3,4,5) with h2=3: cause.
 */
#include "pattern.h"

#include <stdlib.h>
#include <string.h>

static ts_shape in_shape = TS_SHAPE_INIT;

static int do_apply(cli_ctx *ctx, const char *text, size_t len, void *user, ts_error *err)
{
    const ts_einops *e = user;
    ts_shape out = TS_SHAPE_INIT;
    int rc = CLI_ERROR;
    if (ts_shape_parse(text, len, 0, &in_shape, NULL, err) == TS_OK &&
        ts_einops_apply(e, &in_shape, &out, err) == TS_OK) {
        out_shape(ctx, &out);
        out_char('\n');
        rc = CLI_OK;
    }
    ts_shape_free(&out);
    return rc;
}

static int worse(int a, int b)
{
    return a > b ? a : b;
}

static int run_einops(cli_ctx *ctx, int argc, char **argv, ts_einops_op op)
{
    static const char extra_rearrange[] =
        "einops.rearrange: 'b c (h h2) w -> b c h h2 w' with h2=2. Axis names,\n"
        "anonymous sizes, '1', one-level (groups) and one '...' per side; the\n"
        "same names on both sides. Operands K=N give axis lengths (einops'\n"
        "keyword arguments), the others are shapes; no shape: read stdin.\n";
    static const char extra_reduce[] =
        "einops.reduce: names on the right are a subset of the left; the others\n"
        "are reduced. Operands K=N give axis lengths, the others are shapes.\n"
        "  --op NAME  max, sum, mean...: accepted and ignored (no effect on shapes)\n";
    static const char extra_repeat[] =
        "einops.repeat: names on the left are a subset of the right; new axes\n"
        "need a size, as an operand K=N or an anonymous number.\n";
    const char *extra = op == TS_EINOPS_REDUCE   ? extra_reduce
                        : op == TS_EINOPS_REPEAT ? extra_repeat
                                                 : extra_rearrange;
    pat_opts o;
    int status;
    int first = pat_options(ctx, argc, argv, op == TS_EINOPS_REDUCE ? PAT_OP : 0, extra, &o,
                            &status);
    if (first < 0)
        return status;
    if (first >= argc)
        return cli_usage_error(ctx, "missing PATTERN");
    const char *pattern = argv[first];
    int n = argc - first - 1;
    char **rest = argv + first + 1;
    ts_axis_size *sizes = malloc(((size_t)n + 1) * sizeof *sizes);
    char **shapes = malloc(((size_t)n + 1) * sizeof *shapes);
    if (!sizes || !shapes) {
        free(sizes);
        free(shapes);
        return cli_error(NULL, "out of memory");
    }
    int nsizes = 0, nshapes = 0, rc = CLI_OK;
    for (int i = 0; i < n && rc == CLI_OK; i++) {
        const char *eq = strchr(rest[i], '=');
        if (!eq) {
            shapes[nshapes++] = rest[i];
            continue;
        }
        sizes[nsizes].name = rest[i];
        sizes[nsizes].name_len = (size_t)(eq - rest[i]);
        rc = cli_parse_i64(ctx, eq + 1, "SIZE", &sizes[nsizes].size);
        nsizes++;
    }
    ts_einops *e = NULL;
    ts_error err;
    if (rc == CLI_OK && ts_einops_compile(op, pattern, sizes, nsizes, &e, &err) != TS_OK)
        rc = cli_error(NULL, "%s", err.message);
    if (rc == CLI_OK && nshapes == 0) {
        rc = cli_for_each_input(ctx, 0, NULL, do_apply, e);
    } else if (rc == CLI_OK) {
        for (int i = 0; i < nshapes; i++) {
            ts_shape out = TS_SHAPE_INIT;
            if (cli_parse_shape(shapes[i], 0, &in_shape)) {
                rc = worse(rc, CLI_ERROR);
            } else if (ts_einops_apply(e, &in_shape, &out, &err) != TS_OK) {
                rc = worse(rc, cli_error(NULL, "%s", err.message));
            } else {
                out_shape(ctx, &out);
                out_char('\n');
            }
            ts_shape_free(&out);
        }
    }
    ts_einops_free(e);
    ts_shape_free(&in_shape);
    free(sizes);
    free(shapes);
    return rc;
}

int pat_cmd_rearrange(cli_ctx *ctx, int argc, char **argv)
{
    return run_einops(ctx, argc, argv, TS_EINOPS_REARRANGE);
}

int pat_cmd_reduce(cli_ctx *ctx, int argc, char **argv)
{
    return run_einops(ctx, argc, argv, TS_EINOPS_REDUCE);
}

int pat_cmd_repeat(cli_ctx *ctx, int argc, char **argv)
{
    return run_einops(ctx, argc, argv, TS_EINOPS_REPEAT);
}

/* ---- parse-shape -------------------------------------------------------- */

static void print_named(cli_ctx *ctx, const ts_axis_size *ax, int n)
{
    if (ctx->json)
        out_char('{');
    for (int i = 0; i < n; i++) {
        if (i)
            out_char(ctx->json ? ',' : ' ');
        if (ctx->json)
            out_char('"');
        out_write(ax[i].name, ax[i].name_len);
        out_str(ctx->json ? "\":" : "=");
        out_i64(ax[i].size);
    }
    if (ctx->json)
        out_char('}');
    out_char('\n');
}

typedef struct pattern_arg {
    const char *pattern;
} pattern_arg;

static int do_parse_shape(cli_ctx *ctx, const char *text, size_t len, void *user,
                          ts_error *err)
{
    const char *pattern = ((const pattern_arg *)user)->pattern;
    ts_axis_size ax[TS_MAX_NDIM];
    size_t n;
    if (ts_shape_parse(text, len, 0, &in_shape, NULL, err) != TS_OK ||
        ts_einops_parse_shape(pattern, &in_shape, ax, &n, err) != TS_OK)
        return CLI_ERROR;
    print_named(ctx, ax, (int)n);
    return CLI_OK;
}

int pat_cmd_parse_shape(cli_ctx *ctx, int argc, char **argv)
{
    static const char extra[] =
        "einops.parse_shape: matches PATTERN (names, '_' to skip an axis, numbers\n"
        "that must equal the dim, '1', one '...') against SHAPE and prints\n"
        "name=size for the named axes ({\"name\":size} with --json).\n";
    pat_opts o;
    int status;
    int first = pat_options(ctx, argc, argv, 0, extra, &o, &status);
    if (first < 0)
        return status;
    if (first >= argc)
        return cli_usage_error(ctx, "missing PATTERN");
    const char *pattern = argv[first];
    int rc = CLI_OK;
    if (first + 1 >= argc) {
        pattern_arg a = {pattern};
        rc = cli_for_each_input(ctx, 0, NULL, do_parse_shape, &a);
    } else {
        for (int i = first + 1; i < argc; i++) {
            ts_axis_size ax[TS_MAX_NDIM];
            size_t n;
            ts_error err;
            if (cli_parse_shape(argv[i], 0, &in_shape)) {
                rc = worse(rc, CLI_ERROR);
            } else if (ts_einops_parse_shape(pattern, &in_shape, ax, &n, &err) != TS_OK) {
                rc = worse(rc, cli_error(NULL, "%s", err.message));
            } else {
                print_named(ctx, ax, (int)n);
            }
        }
    }
    ts_shape_free(&in_shape);
    return rc;
}
