/*
 * cmd_strides.c - strides of dense arrays, contiguity tests, and views
 * without a copy: strides, contiguous, view (NumPy and PyTorch rules).
 *
 * contiguous and view take their strides from --strides, or, without it,
 * read "SHAPE STRIDES" lines from stdin. Exit status 1 is a false
 * predicate (not C-contiguous, no view).
 */
#include "cli.h"

#include <stdio.h>
#include <string.h>

const cli_option strides_options[] = {
    CLI_ABOUT("Strides of a dense array, in bytes as NumPy reports them."),
    CLI_CHOICE("dtype", 0, "DT", "element type (default float64, NumPy's default): float32,\n"
                                 "f4, <f4, bf16, or an MXNet type flag such as 0", "@dtypes"),
    CLI_CHOICE("order", 0, "C|F", "row-major (default) or column-major", "C F"),
    CLI_FLAG("elements", 0, "strides in elements instead of bytes"),
    CLI_OPTIONS_END,
};

const cli_option contiguous_options[] = {
    CLI_ABOUT("Reports C/F contiguity (NumPy relaxed strides) and PyTorch channels_last\n"
              "(4-D) / channels_last_3d (5-D). Exit 0 if C-contiguous, 1 if not."),
    CLI_VALUE("strides", 0, "S", "strides, in bytes (default) or elements (--elements);\n"
                                 "without it each stdin line is SHAPE STRIDES"),
    CLI_CHOICE("dtype", 0, "DT", "element type for byte strides (default float64)", "@dtypes"),
    CLI_FLAG("elements", 0, "strides are in elements"),
    CLI_VALUE("row-stride", 0, "N", "mshadow TBlob check instead: contiguous when the row\n"
                                    "stride (elements) equals the last dim"),
    CLI_OPTIONS_END,
};

const cli_option view_options[] = {
    CLI_ABOUT("Can a tensor of SHAPE with element STRIDES be viewed as TARGET without a\n"
              "copy (PyTorch view)? Prints the view's strides (exit 0), or says why not on\n"
              "stderr (exit 1). TARGET may hold one -1."),
    CLI_VALUE("strides", 0, "S", "element strides; without it each stdin line is SHAPE STRIDES"),
    CLI_OPTIONS_END,
};

typedef struct strides_job {
    ts_shape shape;     /* the input, reused for every line */
    ts_shape strides;   /* --strides, or those of the current line */
    int has_strides;    /* --strides given */
    ts_shape target, out;
    int64_t itemsize;   /* strides, contiguous; row stride for --row-stride */
    char order;
    int from_stdin;
} strides_job;

static void job_init(strides_job *j)
{
    memset(j, 0, sizeof *j);
    ts_shape_init(&j->shape);
    ts_shape_init(&j->strides);
    ts_shape_init(&j->target);
    ts_shape_init(&j->out);
    j->order = 'C';
}

static int job_free(strides_job *j, int rc)
{
    ts_shape_free(&j->shape);
    ts_shape_free(&j->strides);
    ts_shape_free(&j->target);
    ts_shape_free(&j->out);
    return rc;
}

/* itemsize from --dtype (default float64), or 1 with --elements. */
static int get_itemsize(cli_ctx *ctx, const cli_args *args, int64_t *itemsize)
{
    ts_dtype dt = TS_DTYPE_FLOAT64;
    ts_error err;
    const char *name = cli_opt(args, "dtype");
    if (name && ts_dtype_from_string(name, &dt, &err) != TS_OK)
        return cli_usage(ctx, "--dtype: %s", err.message);
    if (cli_flag(args, "elements")) {
        *itemsize = 1;
        return CLI_OK;
    }
    int bits = ts_dtype_bits(dt);
    if (bits == 0 || bits % 8 != 0)
        return cli_usage(ctx,
                         "dtype %s has %d-bit elements, so it has no byte strides "
                         "(use --elements for element strides)",
                         ts_dtype_name(dt), bits);
    *itemsize = bits / 8;
    return CLI_OK;
}

/* ---- strides ------------------------------------------------------------------ */

static int do_strides(cli_ctx *ctx, void *job, const char *text, size_t len, ts_error *err)
{
    strides_job *j = job;
    int64_t st[TS_MAX_NDIM];
    if (ts_shape_parse(text, len, 0, &j->shape, NULL, err) != TS_OK ||
        ts_strides(&j->shape, j->itemsize, j->order, st, err) != TS_OK)
        return CLI_ERROR;
    out_dims(ctx, st, ts_shape_ndim(&j->shape));
    out_char(ctx, '\n');
    return CLI_OK;
}

int cmd_strides(cli_ctx *ctx, const cli_args *args)
{
    strides_job j;
    job_init(&j);
    int rc = cli_arg_order(ctx, cli_opt(args, "order"), &j.order);
    if (rc == CLI_OK)
        rc = get_itemsize(ctx, args, &j.itemsize);
    if (rc == CLI_OK)
        rc = cli_each_input(ctx, args->nops, args->ops, do_strides, &j);
    return job_free(&j, rc);
}

/* ---- contiguous and view -------------------------------------------------------- */

/* The shape and strides of one input: the input is SHAPE when --strides
 * was given, else "SHAPE STRIDES" (stdin only). */
static int shape_and_strides(strides_job *j, const char *text, size_t len, ts_error *err)
{
    if (j->has_strides) {
        if (ts_shape_parse(text, len, 0, &j->shape, NULL, err) != TS_OK)
            return CLI_ERROR;
    } else {
        size_t pos = 0;
        if (cli_scan_shape(text, len, &pos, &j->shape, "the shape", err))
            return CLI_ERROR;
        if (pos == len)
            return cli_fail(err, TS_ERR_PARSE,
                            "expected strides after the shape at column %zu (each line is "
                            "SHAPE STRIDES when --strides is not given)", pos + 1);
        if (cli_scan_int_list(text + pos, len - pos, &j->strides, err))
            return cli_fail_prefix(err, "strides starting at column %zu: ", pos + 1);
    }
    int ns = ts_shape_ndim(&j->strides), nd = ts_shape_ndim(&j->shape);
    if (ns != nd) {
        char a[256], b[256];
        ts_shape_format(&j->strides, 0, a, sizeof a);
        ts_shape_format(&j->shape, 0, b, sizeof b);
        return cli_fail(err, TS_ERR_NDIM, "strides %s have %d entr%s but the shape %s has %d dim%s",
                        a, ns, ns == 1 ? "y" : "ies", b, nd, nd == 1 ? "" : "s");
    }
    return CLI_OK;
}

static int do_contiguous(cli_ctx *ctx, void *job, const char *text, size_t len, ts_error *err)
{
    strides_job *j = job;
    if (shape_and_strides(j, text, len, err))
        return CLI_ERROR;
    const int64_t *st = ts_shape_dims(&j->strides);
    int c = ts_is_c_contiguous(&j->shape, st, j->itemsize);
    print_open_object(ctx, NULL);
    print_bool(ctx, PRINT_ANY, "c_contiguous", "c_contiguous: %s\n", c);
    print_bool(ctx, PRINT_ANY, "f_contiguous", "f_contiguous: %s\n",
               ts_is_f_contiguous(&j->shape, st, j->itemsize));
    print_bool(ctx, PRINT_ANY, "channels_last", "channels_last: %s\n",
               ts_is_channels_last(&j->shape, st, j->itemsize));
    print_bool(ctx, PRINT_ANY, "channels_last_3d", "channels_last_3d: %s\n",
               ts_is_channels_last_3d(&j->shape, st, j->itemsize));
    print_close_object(ctx);
    return c ? CLI_OK : CLI_FALSE;
}

static int do_row_stride(cli_ctx *ctx, void *job, const char *text, size_t len, ts_error *err)
{
    strides_job *j = job;
    ts_blob blob;
    if (ts_shape_parse(text, len, 0, &j->shape, NULL, err) != TS_OK ||
        ts_blob_init(&blob, NULL, &j->shape, TS_DEV_CPU, TS_DTYPE_FLOAT32, err) != TS_OK)
        return CLI_ERROR;
    blob.stride = j->itemsize;
    int c = ts_blob_is_contiguous(&blob);
    ts_blob_free(&blob);
    print_open_object(ctx, NULL);
    print_bool(ctx, PRINT_ANY, "contiguous", "contiguous: %s\n", c);
    print_close_object(ctx);
    return c ? CLI_OK : CLI_FALSE;
}

/* --strides S, or stdin lines "SHAPE STRIDES" when there are no SHAPE
 * operands. */
static int get_strides(cli_ctx *ctx, const cli_args *args, int first, strides_job *j)
{
    const char *s = cli_opt(args, "strides");
    j->from_stdin = cli_stdin_mode(args->nops - first, args->ops + first);
    if (s) {
        j->has_strides = 1;
        return cli_arg_int_list(ctx, s, "--strides", &j->strides);
    }
    if (!j->from_stdin)
        return cli_usage(ctx, "missing --strides (or give no SHAPE and read "
                              "SHAPE STRIDES lines from stdin)");
    return CLI_OK;
}

int cmd_contiguous(cli_ctx *ctx, const cli_args *args)
{
    strides_job j;
    job_init(&j);
    const char *row = cli_opt(args, "row-stride");
    if (row) {
        if (cli_opt(args, "strides") || cli_opt(args, "dtype") || cli_flag(args, "elements"))
            return cli_usage(ctx, "--row-stride cannot be combined with --strides, "
                                  "--dtype or --elements");
        if (cli_arg_i64(ctx, row, "--row-stride", &j.itemsize))
            return CLI_ERROR;
        return job_free(&j, cli_each_input(ctx, args->nops, args->ops, do_row_stride, &j));
    }
    int rc = get_itemsize(ctx, args, &j.itemsize);
    if (rc == CLI_OK)
        rc = get_strides(ctx, args, 0, &j);
    if (rc == CLI_OK)
        rc = cli_each_input(ctx, args->nops, args->ops, do_contiguous, &j);
    return job_free(&j, rc);
}

static int do_view(cli_ctx *ctx, void *job, const char *text, size_t len, ts_error *err)
{
    strides_job *j = job;
    int64_t res[TS_MAX_NDIM];
    if (shape_and_strides(j, text, len, err))
        return CLI_ERROR;
    ts_error why;
    ts_status st = ts_view_strides(&j->shape, ts_shape_dims(&j->strides), &j->target, &j->out,
                                   res, &why);
    if (st == TS_ERR_LAYOUT) {
        /* Not an error in the input: the answer is "no", said on stderr. */
        char q[256];
        cli_notice(ctx, NULL, "'%s': %s", cli_quote(text, len, q, sizeof q), why.message);
        if (j->from_stdin)
            print_no_result(ctx);
        return CLI_FALSE;
    }
    if (st != TS_OK) {
        *err = why;
        return CLI_ERROR;
    }
    out_dims(ctx, res, ts_shape_ndim(&j->out));
    out_char(ctx, '\n');
    return CLI_OK;
}

int cmd_view(cli_ctx *ctx, const cli_args *args)
{
    if (args->nops < 1)
        return cli_usage(ctx, "missing TARGET, e.g. (6,-1)");
    strides_job j;
    job_init(&j);
    int rc = cli_arg_int_list(ctx, args->ops[0], "TARGET", &j.target);
    if (rc == CLI_OK)
        rc = get_strides(ctx, args, 1, &j);
    if (rc == CLI_OK)
        rc = cli_each_input(ctx, args->nops - 1, args->ops + 1, do_view, &j);
    return job_free(&j, rc);
}
