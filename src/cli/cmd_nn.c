/*
 * cmd_nn.c - layer shape commands: conv, convtranspose, pool (PyTorch and
 * ONNX shape formulas), linear, matmul (NumPy), cat/concat and stack of
 * several shapes, and dim (one dimension of a shape). The layer commands
 * apply their options to every SHAPE operand or stdin line; matmul, cat and
 * stack take their shapes as operands or one set per stdin line.
 */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define LAYER_ABOUT                                                                       \
    CLI_ABOUT("SHAPE is (N,C,*spatial), or (C,*spatial) unbatched with --spatial. Per-axis\n" \
              "values are one number for every spatial axis or a list, e.g. 3 or (3,5).\n" \
              "Without --spatial the number of spatial axes is the length of the longest\n" \
              "such list, or else ndim - 2.")
#define LAYER_COMMON                                                                       \
    CLI_VALUE("kernel", 0, "K", "kernel size per spatial axis (required)"),                \
        CLI_VALUE("stride", 0, "S", "stride per spatial axis"),                             \
        CLI_VALUE("padding", 0, "P",                                                        \
                  "same: ONNX's SAME_UPPER rule, any stride (PyTorch refuses stride > 1);\n" \
                  "or padding at both ends per axis, same-lower, valid (ONNX auto_pad)"),    \
        CLI_VALUE("pads", 0, "B,..,E,..",                                                   \
                  "ONNX pads: the begin paddings, then the end paddings"),                  \
        CLI_VALUE("dilation", 0, "D", "dilation per spatial axis (default 1)"),             \
        CLI_VALUE("spatial", 0, "N", "number of spatial axes: 1, 2 or 3")

const cli_option conv_options[] = {
    CLI_ABOUT("Output shape of PyTorch Conv1d/2d/3d (ONNX Conv); stride default 1.\n"
              "--padding same is ONNX's SAME_UPPER rule, ceil(in / stride), with any\n"
              "stride; PyTorch refuses padding='same' with a stride above 1."),
    LAYER_ABOUT,
    LAYER_COMMON,
    CLI_VALUE("out-channels", 0, "C", "output channels (required)"),
    CLI_VALUE("groups", 0, "G", "groups; in and out channels must be multiples (default 1)"),
    CLI_FLAG("weight", 0, "also print the weight shape (C_out, C_in/groups, *kernel)"),
    CLI_OPTIONS_END,
};

const cli_option convtranspose_options[] = {
    CLI_ABOUT("Output shape of PyTorch ConvTranspose1d/2d/3d; stride default 1."),
    LAYER_ABOUT,
    LAYER_COMMON,
    CLI_VALUE("out-channels", 0, "C", "output channels (required)"),
    CLI_VALUE("groups", 0, "G", "groups; in and out channels must be multiples (default 1)"),
    CLI_VALUE("output-padding", 0, "OP",
              "added to one side of the output; below the stride or the dilation"),
    CLI_FLAG("weight", 0, "also print the weight shape (C_in, C_out/groups, *kernel)"),
    CLI_OPTIONS_END,
};

const cli_option pool_options[] = {
    CLI_ABOUT("Output shape of PyTorch MaxPool/AvgPool 1d/2d/3d; stride default: the\n"
              "kernel; padding at most half the kernel. With --output-size, of PyTorch's\n"
              "AdaptiveMaxPool/AdaptiveAvgPool (every ResNet's head). --padding same is\n"
              "ONNX's SAME_UPPER rule, ceil(in / stride), with any stride; PyTorch refuses\n"
              "padding='same' with a stride above 1."),
    LAYER_ABOUT,
    LAYER_COMMON,
    CLI_CHOICE("kind", 0, "max|avg", "max pooling (default) or average pooling", "max avg"),
    CLI_FLAG("ceil-mode", 0, "round the output up (PyTorch ceil_mode)"),
    CLI_VALUE("output-size", 0, "O",
              "adaptive pooling (PyTorch AdaptiveAvgPool/AdaptiveMaxPool 1d/2d/3d): the\n"
              "output size per spatial axis, None keeping an axis, e.g. 1 or (7,None);\n"
              "no --kernel, stride, padding, dilation or ceil mode then"),
    CLI_OPTIONS_END,
};

const cli_option linear_options[] = {
    CLI_ABOUT("Output shape of PyTorch nn.Linear: (*, in_features) -> (*, out_features)."),
    CLI_VALUE("out-features", 0, "N", "output features (required)"),
    CLI_VALUE("in-features", 0, "N", "check the last dim against N (default: any)"),
    CLI_FLAG("weight", 0, "also print the weight shape (out_features, in_features)"),
    CLI_OPTIONS_END,
};

const cli_option matmul_options[] = {
    CLI_ABOUT("NumPy matmul (torch.matmul): 1-D operands are promoted and the added\n"
              "dim removed; batch dims broadcast. Without operands, each stdin line\n"
              "holds A and B separated by whitespace."),
    CLI_OPTIONS_END,
};

const cli_option cat_options[] = {
    CLI_ABOUT("Concatenation along AXIS (numpy.concatenate, torch.cat); negative axes\n"
              "count from the end. Without SHAPE operands (or with '-'), each stdin\n"
              "line holds the shapes of one concatenation."),
    CLI_OPTIONS_END,
};

const cli_option stack_options[] = {
    CLI_ABOUT("Stacking along a new AXIS of the result (numpy.stack, torch.stack); the\n"
              "shapes must be equal. Without SHAPE operands (or with '-'), each stdin\n"
              "line holds the shapes of one stack."),
    CLI_OPTIONS_END,
};

const cli_option dim_options[] = {
    CLI_ABOUT("The dim of SHAPE at AXIS (shape[axis]); negative axes count from the end."),
    CLI_OPTIONS_END,
};

/* ---- conv, convtranspose, pool ------------------------------------------------ */

enum nn_kind { NN_CONV, NN_CONVT, NN_POOL };

typedef struct layer_job {
    enum nn_kind kind;
    ts_pool_kind pool;
    ts_conv_params p;
    int want_weight;
    int fixed_nsp;              /* --spatial, or 0 */
    int list_nsp;               /* the longest per-axis list, or 0 */
    /* per-axis options as given: values and counts (0: not given) */
    int64_t kernel[TS_MAX_NDIM], stride[TS_MAX_NDIM], dil[TS_MAX_NDIM], pad[TS_MAX_NDIM],
        pads[TS_MAX_NDIM], opad[TS_MAX_NDIM];
    int nkernel, nstride, ndil, npad, npads, nopad;
    int adaptive;               /* pool --output-size */
    int64_t osize[TS_MAX_NDIM];
    int nosize;
    int warned;                 /* the 3-D input warning was given */
    ts_shape in, out, weight;
} layer_job;

/* Spreads a per-axis option over nsp axes: one value for all, or nsp. */
static int spread(const int64_t *v, int n, int nsp, int64_t dflt, int64_t *dst,
                  const char *what, ts_error *err)
{
    if (n == 0) {
        for (int i = 0; i < nsp; i++)
            dst[i] = dflt;
        return CLI_OK;
    }
    if (n != 1 && n != nsp)
        return cli_fail(err, TS_ERR_NDIM, "--%s has %d values for %d spatial ax%s", what, n,
                        nsp, nsp == 1 ? "is" : "es");
    for (int i = 0; i < nsp; i++)
        dst[i] = v[n == 1 ? 0 : i];
    return CLI_OK;
}

static int do_layer(cli_ctx *ctx, void *job, const char *text, size_t len, ts_error *err)
{
    layer_job *j = job;
    if (ts_shape_parse(text, len, 0, &j->in, NULL, err) != TS_OK)
        return CLI_ERROR;
    int nd = ts_shape_ndim(&j->in);
    int nsp = j->fixed_nsp ? j->fixed_nsp : j->list_nsp ? j->list_nsp : nd - 2;
    if (nsp < 1 || nsp > TS_CONV_MAX_SPATIAL)
        return cli_fail(err, TS_ERR_NDIM,
                        "a %d-D shape is not (N,C,*spatial) with 1 to 3 spatial axes; give "
                        "--spatial for an unbatched (C,*spatial) input",
                        nd);
    if (nd == 3 && !j->fixed_nsp && !j->list_nsp && !j->warned) {
        /* (64,8,8): PyTorch's 1-d layers read it as (N,C,L), its 2-d ones as
         * an unbatched (C,H,W) image; a number says nothing about which */
        const char *layer = j->kind == NN_CONV    ? "Conv1d"
                            : j->kind == NN_CONVT ? "ConvTranspose1d"
                            : j->pool == TS_POOL_AVG ? "AvgPool1d" : "MaxPool1d";
        char q[64];
        cli_notice(ctx, NULL, "warning: %s is read as a batch of 1-d inputs (N,C,L), as "
                   "PyTorch's %s%s (--spatial 1 says so; an unbatched (C,H,W) image is "
                   "--spatial 2)",
                   cli_quote(text, len, q, sizeof q), j->adaptive ? "Adaptive" : "", layer);
        j->warned = 1;
    }
    if (j->adaptive) {
        int64_t o[TS_CONV_MAX_SPATIAL];
        if (spread(j->osize, j->nosize, nsp, 1, o, "output-size", err) ||
            ts_adaptive_pool_shape(&j->in, nsp, o, &j->out, err) != TS_OK ||
            cli_shape_fits(&j->out, err) != CLI_OK)
            return CLI_ERROR;
        return out_shape_line(ctx, &j->out, err);
    }
    ts_conv_params *p = &j->p;
    p->nspatial = nsp;
    if (spread(j->kernel, j->nkernel, nsp, 1, p->kernel, "kernel", err) ||
        spread(j->stride, j->nstride, nsp, 1, p->stride, "stride", err) ||
        spread(j->dil, j->ndil, nsp, 1, p->dilation, "dilation", err) ||
        spread(j->opad, j->nopad, nsp, 0, p->output_padding, "output-padding", err))
        return CLI_ERROR;
    if (j->kind == NN_POOL && j->nstride == 0) /* PyTorch: stride defaults to the kernel */
        memcpy(p->stride, p->kernel, sizeof p->stride);
    if (p->pad_mode == TS_PAD_EXPLICIT) {
        if (j->npads) {
            if (j->npads != 2 * nsp)
                return cli_fail(err, TS_ERR_NDIM,
                                "--pads has %d values, not 2 x %d (begins, then ends)", j->npads,
                                nsp);
            memcpy(p->pad_begin, j->pads, (size_t)nsp * sizeof(int64_t));
            memcpy(p->pad_end, j->pads + nsp, (size_t)nsp * sizeof(int64_t));
        } else {
            if (spread(j->pad, j->npad, nsp, 0, p->pad_begin, "padding", err))
                return CLI_ERROR;
            memcpy(p->pad_end, p->pad_begin, sizeof p->pad_end);
        }
    }
    ts_shape *w = j->kind == NN_POOL ? NULL : &j->weight;
    ts_status st = j->kind == NN_CONV    ? ts_conv_shape(&j->in, p, &j->out, w, err)
                   : j->kind == NN_CONVT ? ts_conv_transpose_shape(&j->in, p, &j->out, w, err)
                                         : ts_pool_shape(&j->in, j->pool, p, &j->out, err);
    if (st != TS_OK || cli_shape_fits(&j->out, err) != CLI_OK ||
        (w && cli_shape_fits(w, err) != CLI_OK))
        return CLI_ERROR;
    if (!w)
        return out_shape_line(ctx, &j->out, err);
    print_open_object(ctx, NULL);
    print_dims(ctx, PRINT_ANY, "shape", "%s", ts_shape_dims(&j->out), ts_shape_ndim(&j->out));
    print_dims(ctx, j->want_weight ? PRINT_ANY : PRINT_JSON, "weight", " weight %s",
               ts_shape_dims(&j->weight), ts_shape_ndim(&j->weight));
    print_text(ctx, "\n");
    print_close_object(ctx);
    return CLI_OK;
}

/* A per-axis option: its values and their count; *longest grows to it. */
static int layer_list(cli_ctx *ctx, const cli_args *args, const char *name, int64_t *v, int *n,
                      int *longest)
{
    const char *text = cli_opt(args, name);
    *n = 0;
    if (!text)
        return CLI_OK;
    char what[32];
    snprintf(what, sizeof what, "--%s", name);
    if (cli_arg_ints(ctx, text, what, v, n))
        return CLI_ERROR;
    if (*n == 0)
        return cli_usage(ctx, "--%s needs at least one value", name);
    if (*n > 1 && *n > *longest)
        *longest = *n;
    return CLI_OK;
}

/* A positive count option (--out-channels, --groups, --spatial). */
static int count_opt(cli_ctx *ctx, const cli_args *args, const char *name, int64_t *out)
{
    const char *text = cli_opt(args, name);
    if (!text)
        return CLI_OK;
    char what[32];
    snprintf(what, sizeof what, "--%s", name);
    return cli_arg_i64(ctx, text, what, out);
}

static int run_layer(cli_ctx *ctx, const cli_args *args, enum nn_kind kind)
{
    layer_job *j = calloc(1, sizeof *j);
    if (!j)
        return cli_error(ctx, NULL, "out of memory");
    ts_conv_params init = TS_CONV_PARAMS_INIT;
    j->kind = kind;
    j->p = init;
    ts_shape_init(&j->in);
    ts_shape_init(&j->out);
    ts_shape_init(&j->weight);
    int rc = CLI_OK, lon = 0;
    const char *osize = kind == NN_POOL ? cli_opt(args, "output-size") : NULL;
    if (osize) {
        static const char *const other[] = {"kernel", "stride", "padding", "pads", "dilation"};
        for (size_t i = 0; rc == CLI_OK && i < sizeof other / sizeof *other; i++)
            if (cli_opt(args, other[i]))
                rc = cli_usage(ctx, "--output-size (adaptive pooling) takes no --%s",
                               other[i]);
        if (rc == CLI_OK && cli_flag(args, "ceil-mode"))
            rc = cli_usage(ctx, "--output-size (adaptive pooling) takes no --ceil-mode");
        /* PyTorch's None (keep the axis) as -1 */
        char buf[256];
        size_t n = 0;
        for (const char *p = osize; rc == CLI_OK && *p && n < sizeof buf - 3; p++) {
            if (strncasecmp(p, "none", 4) == 0) {
                buf[n++] = '-';
                buf[n++] = '1';
                p += 3;
            } else {
                buf[n++] = *p;
            }
        }
        buf[n] = '\0';
        if (rc == CLI_OK && cli_arg_ints(ctx, buf, "--output-size", j->osize, &j->nosize))
            rc = CLI_ERROR;
        if (rc == CLI_OK && j->nosize == 0)
            rc = cli_usage(ctx, "--output-size needs at least one value");
        for (int i = 0; rc == CLI_OK && i < j->nosize; i++)
            if (j->osize[i] < -1 || j->osize[i] == 0)
                rc = cli_usage(ctx, "--output-size values must be positive or None, not %lld",
                               (long long)j->osize[i]);
        j->adaptive = 1;
        lon = j->nosize > 1 ? j->nosize : 0;
    } else if (!cli_opt(args, "kernel"))
        rc = cli_usage(ctx, "missing --kernel, e.g. --kernel 3 or --kernel (3,5)");
    if (rc == CLI_OK && kind != NN_POOL && !cli_opt(args, "out-channels"))
        rc = cli_usage(ctx, "missing --out-channels, e.g. --out-channels 64");
    if (rc == CLI_OK)
        rc = layer_list(ctx, args, "kernel", j->kernel, &j->nkernel, &lon) ||
             layer_list(ctx, args, "stride", j->stride, &j->nstride, &lon) ||
             layer_list(ctx, args, "dilation", j->dil, &j->ndil, &lon) ||
             (kind == NN_CONVT &&
              layer_list(ctx, args, "output-padding", j->opad, &j->nopad, &lon))
                 ? CLI_ERROR
                 : CLI_OK;
    const char *pad = cli_opt(args, "padding"), *pads = cli_opt(args, "pads");
    if (rc == CLI_OK && pad && pads)
        rc = cli_usage(ctx, "give --padding or --pads, not both");
    if (rc == CLI_OK && pad) {
        static const struct { const char *word; ts_pad_mode mode; } words[] = {
            {"same", TS_PAD_SAME_UPPER}, {"same-upper", TS_PAD_SAME_UPPER},
            {"same_upper", TS_PAD_SAME_UPPER}, {"same-lower", TS_PAD_SAME_LOWER},
            {"same_lower", TS_PAD_SAME_LOWER}, {"valid", TS_PAD_VALID},
        };
        int found = 0;
        for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
            if (strcasecmp(pad, words[i].word) == 0) {
                j->p.pad_mode = words[i].mode;
                found = 1;
            }
        if (!found && (pad[0] == '-' || (pad[0] >= '0' && pad[0] <= '9') || pad[0] == '(' ||
                       pad[0] == '['))
            rc = layer_list(ctx, args, "padding", j->pad, &j->npad, &lon);
        else if (!found) {
            char q[64];
            rc = cli_usage(ctx, "--padding must be numbers, same, same-lower or valid, not '%s'",
                           cli_quote(pad, strlen(pad), q, sizeof q));
        }
    }
    if (rc == CLI_OK && pads)
        rc = layer_list(ctx, args, "pads", j->pads, &j->npads, &lon);
    if (j->npads) /* --pads holds two values per axis */
        lon = lon == j->npads ? j->npads / 2 : lon;
    j->list_nsp = lon;
    int64_t v = 0;
    if (rc == CLI_OK && cli_opt(args, "spatial")) {
        rc = count_opt(ctx, args, "spatial", &v);
        if (rc == CLI_OK && (v < 1 || v > TS_CONV_MAX_SPATIAL))
            rc = cli_usage(ctx, "--spatial must be 1, 2 or 3, not %lld", (long long)v);
        j->fixed_nsp = (int)v;
    }
    if (rc == CLI_OK && kind != NN_POOL) {
        rc = count_opt(ctx, args, "out-channels", &j->p.out_channels);
        if (rc == CLI_OK)
            rc = count_opt(ctx, args, "groups", &j->p.groups);
        j->want_weight = cli_flag(args, "weight") > 0;
    }
    if (rc == CLI_OK && kind == NN_POOL) {
        const char *k;
        rc = cli_opt_choice(ctx, args, "kind", &k);
        j->pool = k && strcmp(k, "avg") == 0 ? TS_POOL_AVG : TS_POOL_MAX;
        j->p.ceil_mode = cli_flag(args, "ceil-mode") > 0;
    }
    if (rc == CLI_OK)
        rc = cli_each_input(ctx, args->nops, args->ops, do_layer, j);
    ts_shape_free(&j->in);
    ts_shape_free(&j->out);
    ts_shape_free(&j->weight);
    free(j);
    return rc;
}

int cmd_conv(cli_ctx *ctx, const cli_args *args)
{
    return run_layer(ctx, args, NN_CONV);
}

int cmd_convtranspose(cli_ctx *ctx, const cli_args *args)
{
    return run_layer(ctx, args, NN_CONVT);
}

int cmd_pool(cli_ctx *ctx, const cli_args *args)
{
    return run_layer(ctx, args, NN_POOL);
}

/* ---- linear ------------------------------------------------------------------ */

typedef struct linear_job {
    int64_t in_features, out_features;
    int want_weight;
    ts_shape in, out, weight;
} linear_job;

static int do_linear(cli_ctx *ctx, void *job, const char *text, size_t len, ts_error *err)
{
    linear_job *j = job;
    if (ts_shape_parse(text, len, 0, &j->in, NULL, err) != TS_OK ||
        ts_linear_shape(&j->in, j->in_features, j->out_features, &j->out, &j->weight, err) ||
        cli_shape_fits(&j->out, err) != CLI_OK || cli_shape_fits(&j->weight, err) != CLI_OK)
        return CLI_ERROR;
    print_open_object(ctx, NULL);
    print_dims(ctx, PRINT_ANY, "shape", "%s", ts_shape_dims(&j->out), ts_shape_ndim(&j->out));
    print_dims(ctx, j->want_weight ? PRINT_ANY : PRINT_JSON, "weight", " weight %s",
               ts_shape_dims(&j->weight), ts_shape_ndim(&j->weight));
    print_text(ctx, "\n");
    print_close_object(ctx);
    return CLI_OK;
}

int cmd_linear(cli_ctx *ctx, const cli_args *args)
{
    linear_job j = {-1, 0, cli_flag(args, "weight") > 0, TS_SHAPE_INIT, TS_SHAPE_INIT,
                    TS_SHAPE_INIT};
    if (!cli_opt(args, "out-features"))
        return cli_usage(ctx, "missing --out-features, e.g. --out-features 10");
    int rc = count_opt(ctx, args, "out-features", &j.out_features);
    if (rc == CLI_OK)
        rc = count_opt(ctx, args, "in-features", &j.in_features);
    if (rc == CLI_OK && cli_opt(args, "in-features") && j.in_features < 0)
        rc = cli_usage(ctx, "--in-features must be >= 0, not %lld", (long long)j.in_features);
    if (rc == CLI_OK)
        rc = cli_each_input(ctx, args->nops, args->ops, do_linear, &j);
    ts_shape_free(&j.in);
    ts_shape_free(&j.out);
    ts_shape_free(&j.weight);
    return rc;
}

/* ---- matmul, cat, stack: several shapes per result ----------------------------- */

enum multi_kind { MULTI_MATMUL, MULTI_CAT, MULTI_STACK };

typedef struct multi_job {
    enum multi_kind kind;
    int64_t axis;
    cli_shapes in;
    ts_shape out;
} multi_job;

static int multi_print(cli_ctx *ctx, multi_job *j, ts_error *err)
{
    ts_status st;
    if (j->kind == MULTI_MATMUL) {
        if (j->in.n != 2)
            return cli_fail(err, TS_ERR_NDIM, "expected two shapes, A and B, got %zu", j->in.n);
        st = ts_matmul_shape(j->in.ptrs[0], j->in.ptrs[1], &j->out, err);
    } else if (j->kind == MULTI_CAT) {
        st = ts_concat_shape(j->in.ptrs, j->in.n, j->axis, &j->out, err);
    } else {
        st = ts_stack_shape(j->in.ptrs, j->in.n, j->axis, &j->out, err);
    }
    if (st != TS_OK)
        return CLI_ERROR;
    return out_shape_line(ctx, &j->out, err);
}

static int do_multi_line(cli_ctx *ctx, void *job, const char *text, size_t len, ts_error *err)
{
    multi_job *j = job;
    if (cli_shapes_scan(&j->in, text, len, err))
        return CLI_ERROR;
    return multi_print(ctx, j, err);
}

static int multi_operands(cli_ctx *ctx, int nops, char *const *ops, multi_job *j)
{
    ts_error err;
    if (cli_shapes_args(ctx, &j->in, nops, ops))
        return CLI_ERROR;
    if (multi_print(ctx, j, &err))
        return cli_error(ctx, NULL, "%s", err.message);
    return CLI_OK;
}

static int run_multi(cli_ctx *ctx, const cli_args *args, enum multi_kind kind)
{
    multi_job j;
    memset(&j, 0, sizeof j);
    j.kind = kind;
    ts_shape_init(&j.out);
    int first = 0, rc = CLI_OK;
    if (kind != MULTI_MATMUL) {
        if (args->nops < 1)
            return cli_usage(ctx, "missing AXIS, e.g. 0 or -1");
        rc = cli_arg_i64(ctx, args->ops[0], "AXIS", &j.axis);
        first = 1;
    }
    int n = args->nops - first;
    char *const *ops = args->ops + first;
    if (rc == CLI_OK)
        rc = cli_stdin_mode(n, ops) ? cli_each_input(ctx, 0, NULL, do_multi_line, &j)
                                    : multi_operands(ctx, n, ops, &j);
    cli_shapes_free(&j.in);
    ts_shape_free(&j.out);
    return rc;
}

int cmd_matmul(cli_ctx *ctx, const cli_args *args)
{
    return run_multi(ctx, args, MULTI_MATMUL);
}

int cmd_cat(cli_ctx *ctx, const cli_args *args)
{
    return run_multi(ctx, args, MULTI_CAT);
}

int cmd_stack(cli_ctx *ctx, const cli_args *args)
{
    return run_multi(ctx, args, MULTI_STACK);
}

/* ---- dim ----------------------------------------------------------------------- */

typedef struct dim_job {
    int64_t axis;
    ts_shape in;
} dim_job;

static int do_dim(cli_ctx *ctx, void *job, const char *text, size_t len, ts_error *err)
{
    dim_job *j = job;
    int64_t v;
    if (ts_shape_parse(text, len, 0, &j->in, NULL, err) != TS_OK ||
        ts_shape_dim(&j->in, j->axis, &v, err) != TS_OK)
        return CLI_ERROR;
    out_i64(ctx, v);
    out_char(ctx, '\n');
    return CLI_OK;
}

int cmd_dim(cli_ctx *ctx, const cli_args *args)
{
    if (args->nops < 1)
        return cli_usage(ctx, "missing AXIS, e.g. 0 or -1");
    dim_job j = {0, TS_SHAPE_INIT};
    int rc = cli_arg_i64(ctx, args->ops[0], "AXIS", &j.axis);
    if (rc == CLI_OK)
        rc = cli_each_input(ctx, args->nops - 1, args->ops + 1, do_dim, &j);
    ts_shape_free(&j.in);
    return rc;
}
