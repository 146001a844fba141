/*
 * nn.c - output shapes of neural-network layers: convolution, transposed
 * convolution and pooling (PyTorch torch.nn shape formulas, ATen's
 * pooling_output_shape, ONNX auto_pad), matmul (NumPy), linear (PyTorch),
 * concatenation and stacking (NumPy/PyTorch). No data is touched.
 */
#include "../core/internal.h"

#include <stdio.h>

/* Size of the first version of ts_conv_params (up to ceil_mode): the
 * smallest struct_size accepted. It never changes when fields are appended. */
#define PARAMS_V1_SIZE (offsetof(ts_conv_params, ceil_mode) + sizeof(int))

/* Copies the caller's parameters into *o by the growing-struct rule of
 * ts_open_options, and checks the enum and 0/1 fields. */
static ts_status read_params(const ts_conv_params *p, ts_conv_params *o, const char *fn,
                             ts_error *err)
{
    memset(o, 0, sizeof *o);
    ts_status st = ts__read_struct(err, fn, "p", "parameters", p, PARAMS_V1_SIZE, o, sizeof *o,
                                   "TS_CONV_PARAMS_INIT", "ts_conv_params");
    if (st)
        return st;
    if (o->nspatial < 1 || o->nspatial > TS_CONV_MAX_SPATIAL)
        return ts__bad_arg(err, fn, "p->nspatial is %d, not 1, 2 or 3", o->nspatial);
    if ((int)o->pad_mode < (int)TS_PAD_EXPLICIT || (int)o->pad_mode > (int)TS_PAD_SAME_LOWER)
        return ts__bad_arg(err, fn, "p->pad_mode %d is not a ts_pad_mode", (int)o->pad_mode);
    if (o->ceil_mode != 0 && o->ceil_mode != 1)
        return ts__bad_arg(err, fn, "p->ceil_mode is %d, not 0 or 1", o->ceil_mode);
    return TS_OK;
}

enum layer { CONV, CONV_T, POOL_MAX, POOL_AVG };

/* "conv2d", "conv_transpose1d", "max_pool3d" (PyTorch's functional names). */
static const char *layer_name(enum layer k, int nsp, char *buf, size_t cap)
{
    static const char *const names[] = {"conv", "conv_transpose", "max_pool", "avg_pool"};
    snprintf(buf, cap, "%s%dd", names[k], nsp);
    return buf;
}

/* Checks the input shape and the parameters common to every layer; *batched
 * receives 1 for (N, C, *spatial), 0 for (C, *spatial). */
static ts_status check_common(const ts_shape *in, const ts_conv_params *p, enum layer k,
                              const char *name, int *batched, ts_error *err)
{
    int nsp = p->nspatial, nd = in->ndim;
    const int64_t *d = ts_shape_dims(in);
    char sb[TS__SHAPE_STR_MAX];
    if (nd != nsp + 1 && nd != nsp + 2)
        return ts__error(err, TS_ERR_NDIM,
                         "%s: expected a %d-D (unbatched) or %d-D (batched) input, got %s", name,
                         nsp + 1, nsp + 2, ts__shape_str(in, sb, sizeof sb));
    *batched = nd == nsp + 2;
    for (int i = 0; i < nd; i++)
        if (d[i] < 0)
            return ts__error(err, TS_ERR_VALUE, "%s: input %s has a negative dim at axis %d",
                             name, ts__shape_str(in, sb, sizeof sb), i);
    int c = *batched;
    if (d[c] == 0)
        return ts__error(err, TS_ERR_VALUE, "%s: input %s has 0 channels (axis %d)", name,
                         ts__shape_str(in, sb, sizeof sb), c);
    for (int i = 0; i < nsp; i++)
        if (d[c + 1 + i] == 0)
            return ts__error(err, TS_ERR_VALUE,
                             "%s: input %s is empty at axis %d (spatial %d)", name,
                             ts__shape_str(in, sb, sizeof sb), c + 1 + i, i);
    static const char *const what[] = {"kernel", "stride", "dilation"};
    const int64_t *vals[] = {p->kernel, p->stride, p->dilation};
    for (int w = 0; w < 3; w++)
        for (int i = 0; i < nsp; i++)
            if (vals[w][i] < 1)
                return ts__error(err, TS_ERR_VALUE,
                                 "%s: %s %lld at axis %d (spatial %d) is not positive", name,
                                 what[w], (long long)vals[w][i], c + 1 + i, i);
    if (p->pad_mode == TS_PAD_EXPLICIT)
        for (int i = 0; i < nsp; i++)
            if (p->pad_begin[i] < 0 || p->pad_end[i] < 0)
                return ts__error(err, TS_ERR_VALUE,
                                 "%s: padding %lld,%lld at axis %d (spatial %d) is negative",
                                 name, (long long)p->pad_begin[i], (long long)p->pad_end[i],
                                 c + 1 + i, i);
    if (k == CONV || k == CONV_T) {
        if (p->groups < 1)
            return ts__error(err, TS_ERR_VALUE, "%s: groups %lld is not positive", name,
                             (long long)p->groups);
        if (p->out_channels < 1)
            return ts__error(err, TS_ERR_VALUE, "%s: out_channels %lld is not positive", name,
                             (long long)p->out_channels);
        if (d[c] % p->groups)
            return ts__error(err, TS_ERR_SIZE,
                             "%s: in_channels %lld (axis %d of %s) is not a multiple of "
                             "groups %lld",
                             name, (long long)d[c], c, ts__shape_str(in, sb, sizeof sb),
                             (long long)p->groups);
        if (p->out_channels % p->groups)
            return ts__error(err, TS_ERR_SIZE,
                             "%s: out_channels %lld is not a multiple of groups %lld", name,
                             (long long)p->out_channels, (long long)p->groups);
    }
    return TS_OK;
}

/* a + b + c - e with every step checked; 1 on overflow. */
static int sum_overflow(int64_t a, int64_t b, int64_t c, int64_t e, int64_t *out)
{
    int64_t t;
    return ts__add_overflow(a, b, &t) || ts__add_overflow(t, c, &t) ||
           __builtin_sub_overflow(t, e, out);
}

/* Floor division for a positive divisor. */
static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

static ts_status overflow(ts_error *err, const char *name, int axis, int sp)
{
    return ts__error(err, TS_ERR_OVERFLOW, "%s: the output size at axis %d (spatial %d) does "
                     "not fit in int64", name, axis, sp);
}

/* The output dim of spatial axis i (input axis `axis`) of a conv or pool. */
static ts_status spatial_out(const ts_conv_params *p, enum layer k, int i, int axis,
                             int64_t in, const char *name, int64_t *o, ts_error *err)
{
    int64_t ker = p->kernel[i], s = p->stride[i], dil = p->dilation[i], eff;
    if (ts__mul_overflow(dil, ker - 1, &eff) || ts__add_overflow(eff, 1, &eff))
        return overflow(err, name, axis, i);
    if (p->pad_mode == TS_PAD_SAME_UPPER || p->pad_mode == TS_PAD_SAME_LOWER) {
        /* ONNX auto_pad SAME_*: ceil(in / stride), whatever the kernel. */
        *o = in / s + (in % s != 0);
        return TS_OK;
    }
    int64_t pb = 0, pe = 0;
    if (p->pad_mode == TS_PAD_EXPLICIT)
        pb = p->pad_begin[i], pe = p->pad_end[i];
    if (k == POOL_AVG && p->nspatial == 3 && in < ker)
        /* ATen pool3d_shape_check(check_input_size) for AvgPool3d only */
        return ts__error(err, TS_ERR_SIZE,
                         "%s: axis %d (spatial %d): the input %lld is smaller than the kernel "
                         "%lld (PyTorch's 3-D average pooling requires it)",
                         name, axis, i, (long long)in, (long long)ker);
    if (k == POOL_MAX || k == POOL_AVG) {
        if (pb > ker / 2 || pe > ker / 2)
            return ts__error(err, TS_ERR_VALUE,
                             "%s: padding %lld,%lld at axis %d (spatial %d) is more than half "
                             "the kernel %lld",
                             name, (long long)pb, (long long)pe, axis, i, (long long)ker);
    }
    int64_t num; /* in + pb + pe - eff */
    if (sum_overflow(in, pb, pe, eff, &num))
        return overflow(err, name, axis, i);
    if (num < 0 && !((k == POOL_MAX || k == POOL_AVG) && p->ceil_mode))
        return ts__error(err, TS_ERR_SIZE,
                         "%s: axis %d (spatial %d): the padded input %lld is smaller than the "
                         "dilated kernel %lld",
                         name, axis, i, (long long)(num + eff), (long long)eff);
    int64_t out;
    if ((k == POOL_MAX || k == POOL_AVG) && p->ceil_mode) {
        /* ATen pooling_output_shape_pad_lr: ceil, then drop a last window
         * that would start in the right padding. */
        int64_t t;
        if (ts__add_overflow(num, s - 1, &t))
            return overflow(err, name, axis, i);
        out = floor_div(t, s) + 1;
        int64_t start;
        if (ts__mul_overflow(out - 1, s, &start))
            return overflow(err, name, axis, i);
        if (start >= in + pb)
            out--;
    } else {
        out = floor_div(num, s) + 1;
    }
    *o = out;
    return TS_OK;
}

/* The output dim of spatial axis i of a transposed convolution. */
static ts_status spatial_out_t(const ts_conv_params *p, int i, int axis, int64_t in,
                               const char *name, int64_t *o, ts_error *err)
{
    int64_t ker = p->kernel[i], s = p->stride[i], dil = p->dilation[i];
    int64_t pb = 0, pe = 0, op = p->output_padding[i];
    if (p->pad_mode == TS_PAD_EXPLICIT)
        pb = p->pad_begin[i], pe = p->pad_end[i];
    if (op < 0)
        return ts__error(err, TS_ERR_VALUE,
                         "%s: output_padding %lld at axis %d (spatial %d) is negative", name,
                         (long long)op, axis, i);
    if (op >= s && op >= dil)
        return ts__error(err, TS_ERR_VALUE,
                         "%s: output_padding %lld at axis %d (spatial %d) must be smaller than "
                         "the stride %lld or the dilation %lld",
                         name, (long long)op, axis, i, (long long)s, (long long)dil);
    int64_t a, b, t;
    /* (in - 1) * s - pb - pe + dil * (ker - 1) + op + 1 */
    if (ts__mul_overflow(in - 1, s, &a) || ts__mul_overflow(dil, ker - 1, &b) ||
        sum_overflow(a, b, op + 1, pb, &t) || __builtin_sub_overflow(t, pe, &t))
        return overflow(err, name, axis, i);
    if (t < 1)
        return ts__error(err, TS_ERR_SIZE,
                         "%s: axis %d (spatial %d): the output size %lld is below 1 (input %lld, "
                         "padding %lld,%lld)",
                         name, axis, i, (long long)t, (long long)in, (long long)pb, (long long)pe);
    *o = t;
    return TS_OK;
}

static ts_status layer_shape(const ts_shape *in, const ts_conv_params *params, enum layer k,
                             ts_shape *out, ts_shape *weight, ts_error *err, const char *fn)
{
    ts_conv_params p;
    ts_status st = read_params(params, &p, fn, err);
    if (st)
        return st;
    char name[32];
    layer_name(k, p.nspatial, name, sizeof name);
    int batched = 0;
    if ((st = check_common(in, &p, k, name, &batched, err)) != TS_OK)
        return st;
    if (k == POOL_AVG)
        for (int i = 0; i < p.nspatial; i++)
            if (p.dilation[i] != 1)
                return ts__error(err, TS_ERR_VALUE,
                                 "%s: dilation %lld at axis %d (spatial %d): average pooling "
                                 "has no dilation",
                                 name, (long long)p.dilation[i], batched + 1 + i, i);
    if (k == CONV_T && (p.pad_mode == TS_PAD_SAME_UPPER || p.pad_mode == TS_PAD_SAME_LOWER))
        return ts__error(err, TS_ERR_UNSUPPORTED,
                         "%s: SAME padding is not supported for transposed convolutions", name);
    const int64_t *d = ts_shape_dims(in);
    int64_t res[TS_CONV_MAX_SPATIAL + 2];
    int nd = in->ndim, c = batched;
    for (int i = 0; i < c; i++)
        res[i] = d[i];
    res[c] = (k == CONV || k == CONV_T) ? p.out_channels : d[c];
    for (int i = 0; i < p.nspatial; i++) {
        int axis = c + 1 + i;
        st = k == CONV_T ? spatial_out_t(&p, i, axis, d[axis], name, &res[axis], err)
                         : spatial_out(&p, k, i, axis, d[axis], name, &res[axis], err);
        if (st)
            return st;
        if (res[axis] < 1)
            return ts__error(err, TS_ERR_SIZE,
                             "%s: axis %d (spatial %d): the output size %lld is below 1", name,
                             axis, i, (long long)res[axis]);
    }
    int64_t size;
    char ob[TS__SHAPE_STR_MAX];
    if (ts__dims_size(res, nd, &size, err))
        return ts__error(err, TS_ERR_OVERFLOW, "%s: the output %s has more than INT64_MAX "
                         "elements", name, ts__dims_str(res, nd, ob, sizeof ob));
    if (weight) {
        int64_t w[TS_CONV_MAX_SPATIAL + 2], ws;
        if (k == CONV)
            w[0] = p.out_channels, w[1] = d[c] / p.groups;
        else
            w[0] = d[c], w[1] = p.out_channels / p.groups;
        for (int i = 0; i < p.nspatial; i++)
            w[2 + i] = p.kernel[i];
        if (ts__dims_size(w, p.nspatial + 2, &ws, err))
            return ts__error(err, TS_ERR_OVERFLOW,
                             "%s: the weight has more than INT64_MAX elements", name);
        if ((st = ts_shape_assign(weight, w, p.nspatial + 2, err)) != TS_OK)
            return st;
    }
    return ts_shape_assign(out, res, nd, err);
}

ts_status ts_conv_shape(const ts_shape *in, const ts_conv_params *p, ts_shape *out,
                        ts_shape *weight, ts_error *err)
{
    TS__ARG_NONNULL(err, in);
    TS__ARG_NONNULL(err, p);
    TS__ARG_NONNULL(err, out);
    return layer_shape(in, p, CONV, out, weight, err, __func__);
}

ts_status ts_conv_transpose_shape(const ts_shape *in, const ts_conv_params *p, ts_shape *out,
                                  ts_shape *weight, ts_error *err)
{
    TS__ARG_NONNULL(err, in);
    TS__ARG_NONNULL(err, p);
    TS__ARG_NONNULL(err, out);
    return layer_shape(in, p, CONV_T, out, weight, err, __func__);
}

ts_status ts_pool_shape(const ts_shape *in, ts_pool_kind kind, const ts_conv_params *p,
                        ts_shape *out, ts_error *err)
{
    TS__ARG_NONNULL(err, in);
    TS__ARG_NONNULL(err, p);
    TS__ARG_NONNULL(err, out);
    if ((int)kind != (int)TS_POOL_MAX && (int)kind != (int)TS_POOL_AVG)
        return ts__bad_arg(err, __func__, "kind %d is not a ts_pool_kind", (int)kind);
    return layer_shape(in, p, kind == TS_POOL_MAX ? POOL_MAX : POOL_AVG, out, NULL, err,
                       __func__);
}

ts_status ts_adaptive_pool_shape(const ts_shape *in, int nspatial, const int64_t *output_size,
                                 ts_shape *out, ts_error *err)
{
    TS__ARG_NONNULL(err, in);
    TS__ARG_NONNULL(err, output_size);
    TS__ARG_NONNULL(err, out);
    if (nspatial < 1 || nspatial > TS_CONV_MAX_SPATIAL)
        return ts__bad_arg(err, __func__, "nspatial is %d, not 1, 2 or 3", nspatial);
    char name[32], sb[TS__SHAPE_STR_MAX];
    snprintf(name, sizeof name, "AdaptivePool%dd", nspatial);
    int nd = in->ndim;
    const int64_t *d = ts_shape_dims(in);
    if (nd != nspatial + 1 && nd != nspatial + 2)
        return ts__error(err, TS_ERR_NDIM,
                         "%s: expected a %d-D (unbatched) or %d-D (batched) input, got %s", name,
                         nspatial + 1, nspatial + 2, ts__shape_str(in, sb, sizeof sb));
    int c = nd == nspatial + 2;
    for (int i = 0; i < nd; i++)
        if (d[i] < 0 || (i >= c && d[i] == 0))
            return ts__error(err, TS_ERR_VALUE, "%s: input %s %s at axis %d", name,
                             ts__shape_str(in, sb, sizeof sb),
                             d[i] < 0 ? "has a negative dim" : "is empty", i);
    int64_t res[TS_CONV_MAX_SPATIAL + 2];
    for (int i = 0; i <= c; i++)
        res[i] = d[i];
    for (int i = 0; i < nspatial; i++) {
        int64_t o = output_size[i];
        if (o < -1 || o == 0)
            return ts__error(err, TS_ERR_VALUE,
                             "%s: output size %lld at axis %d (spatial %d) is not positive "
                             "(-1: keep the input's, PyTorch's None)",
                             name, (long long)o, c + 1 + i, i);
        res[c + 1 + i] = o == -1 ? d[c + 1 + i] : o;
    }
    return ts_shape_assign(out, res, nd, err);
}

/* ---- matmul, linear ---------------------------------------------------------- */

static ts_status no_negative(const ts_shape *s, const char *name, const char *what,
                             ts_error *err)
{
    const int64_t *d = ts_shape_dims(s);
    for (int i = 0; i < s->ndim; i++)
        if (d[i] < 0) {
            char sb[TS__SHAPE_STR_MAX];
            return ts__error(err, TS_ERR_VALUE, "%s: %s %s has a negative dim at axis %d",
                             name, what, ts__shape_str(s, sb, sizeof sb), i);
        }
    return TS_OK;
}

ts_status ts_matmul_shape(const ts_shape *a, const ts_shape *b, ts_shape *out, ts_error *err)
{
    TS__ARG_NONNULL(err, a);
    TS__ARG_NONNULL(err, b);
    TS__ARG_NONNULL(err, out);
    char sa[TS__SHAPE_STR_MAX], sb[TS__SHAPE_STR_MAX];
    if (a->ndim == 0 || b->ndim == 0)
        return ts__error(err, TS_ERR_NDIM, "matmul: operand %s %s is 0-d: it needs at least "
                         "one dim", a->ndim == 0 ? "a" : "b",
                         ts__shape_str(a->ndim == 0 ? a : b, sa, sizeof sa));
    ts_status st;
    if ((st = no_negative(a, "matmul", "a", err)) || (st = no_negative(b, "matmul", "b", err)))
        return st;
    const int64_t *da = ts_shape_dims(a), *db = ts_shape_dims(b);
    int na = a->ndim, nb = b->ndim;
    /* Promoted operands: a (…, n, k), b (…, k, m). */
    int64_t n = na == 1 ? 1 : da[na - 2], ka = da[na - 1];
    int64_t kb = nb == 1 ? db[0] : db[nb - 2], m = nb == 1 ? 1 : db[nb - 1];
    if (ka != kb)
        return ts__error(err, TS_ERR_SIZE,
                         "matmul: %s and %s: the last dim of a (%lld) differs from the %s dim "
                         "of b (%lld)",
                         ts__shape_str(a, sa, sizeof sa), ts__shape_str(b, sb, sizeof sb),
                         (long long)ka, nb == 1 ? "only" : "second last", (long long)kb);
    /* Batch dims: all but the last two of each (none for 1-D or 2-D). */
    int ba = na > 2 ? na - 2 : 0, bb = nb > 2 ? nb - 2 : 0;
    int nbatch = ba > bb ? ba : bb;
    int64_t res[TS_MAX_NDIM + 2];
    for (int i = 0; i < nbatch; i++) {
        int ia = i - (nbatch - ba), ib = i - (nbatch - bb);
        int64_t x = ia >= 0 ? da[ia] : 1, y = ib >= 0 ? db[ib] : 1;
        if (x != y && x != 1 && y != 1)
            return ts__error(err, TS_ERR_BROADCAST,
                             "matmul: the batch dims of %s and %s cannot be broadcast: batch "
                             "axis %d has %lld vs %lld",
                             ts__shape_str(a, sa, sizeof sa), ts__shape_str(b, sb, sizeof sb),
                             i, (long long)x, (long long)y);
        res[i] = x == 1 ? y : x;
    }
    int nd = nbatch;
    if (na > 1)
        res[nd++] = n;
    if (nb > 1)
        res[nd++] = m;
    int64_t size;
    if ((st = ts__dims_size(res, nd, &size, err)) != TS_OK)
        return st;
    return ts_shape_assign(out, res, nd, err);
}

ts_status ts_linear_shape(const ts_shape *in, int64_t in_features, int64_t out_features,
                          ts_shape *out, ts_shape *weight, ts_error *err)
{
    TS__ARG_NONNULL(err, in);
    TS__ARG_NONNULL(err, out);
    char sb[TS__SHAPE_STR_MAX];
    ts_status st;
    if (in->ndim == 0)
        return ts__error(err, TS_ERR_NDIM, "linear: the input () is 0-d: it needs at least "
                         "one dim (in_features)");
    if ((st = no_negative(in, "linear", "input", err)) != TS_OK)
        return st;
    if (in_features < -1)
        return ts__error(err, TS_ERR_VALUE, "linear: in_features %lld is negative",
                         (long long)in_features);
    if (out_features < 0)
        return ts__error(err, TS_ERR_VALUE, "linear: out_features %lld is negative",
                         (long long)out_features);
    const int64_t *d = ts_shape_dims(in);
    int nd = in->ndim;
    if (in_features == -1)
        in_features = d[nd - 1];
    if (d[nd - 1] != in_features)
        return ts__error(err, TS_ERR_SIZE,
                         "linear: the last dim of %s (axis %d) is %lld, not in_features %lld",
                         ts__shape_str(in, sb, sizeof sb), nd - 1, (long long)d[nd - 1],
                         (long long)in_features);
    int64_t res[TS_MAX_NDIM], size;
    memcpy(res, d, (size_t)nd * sizeof *res);
    res[nd - 1] = out_features;
    if ((st = ts__dims_size(res, nd, &size, err)) != TS_OK)
        return st;
    if (weight) {
        int64_t w[2] = {out_features, in_features};
        if ((st = ts__dims_size(w, 2, &size, err)) != TS_OK ||
            (st = ts_shape_assign(weight, w, 2, err)) != TS_OK)
            return st;
    }
    return ts_shape_assign(out, res, nd, err);
}

/* ---- concat, stack ------------------------------------------------------------ */

static ts_status check_list(const ts_shape *const *shapes, size_t n, const char *name,
                            ts_error *err)
{
    if (n == 0)
        return ts__error(err, TS_ERR_NDIM, "%s: needs at least one shape", name);
    for (size_t k = 0; k < n; k++) {
        const int64_t *d = ts_shape_dims(shapes[k]);
        for (int i = 0; i < shapes[k]->ndim; i++)
            if (d[i] < 0) {
                char sb[TS__SHAPE_STR_MAX];
                ts__error(err, TS_ERR_VALUE, "%s: shape %s (arg %zu) has a negative dim at "
                          "axis %d", name, ts__shape_str(shapes[k], sb, sizeof sb), k, i);
                return ts__error_index(err, TS_ERR_VALUE, (int64_t)k);
            }
    }
    return TS_OK;
}

ts_status ts_concat_shape(const ts_shape *const *shapes, size_t n, int64_t axis, ts_shape *out,
                          ts_error *err)
{
    TS__ARG_ARRAY(err, shapes, n);
    TS__ARG_EACH(err, shapes, n);
    TS__ARG_NONNULL(err, out);
    ts_status st = check_list(shapes, n, "concat", err);
    if (st)
        return st;
    const ts_shape *f = shapes[0];
    char s0[TS__SHAPE_STR_MAX], s1[TS__SHAPE_STR_MAX];
    int nd = f->ndim, ax;
    if (nd == 0)
        return ts__error(err, TS_ERR_NDIM, "concat: shape () (arg 0) is 0-d: 0-d shapes cannot "
                         "be concatenated");
    if ((st = ts_axis_normalize(axis, nd, &ax, err)) != TS_OK) {
        ts__error_prefix(err, "concat");
        return st;
    }
    const int64_t *d0 = ts_shape_dims(f);
    int64_t res[TS_MAX_NDIM];
    memcpy(res, d0, (size_t)nd * sizeof *res);
    for (size_t k = 1; k < n; k++) {
        const ts_shape *s = shapes[k];
        const int64_t *d = ts_shape_dims(s);
        if (s->ndim != nd) {
            ts__error(err, TS_ERR_NDIM,
                      "concat: shapes %s (arg 0) and %s (arg %zu) have %d and %d dims",
                      ts__shape_str(f, s0, sizeof s0), ts__shape_str(s, s1, sizeof s1), k, nd,
                      s->ndim);
            return ts__error_index(err, TS_ERR_NDIM, (int64_t)k);
        }
        for (int i = 0; i < nd; i++)
            if (i != ax && d[i] != d0[i]) {
                ts__error(err, TS_ERR_SIZE,
                          "concat: shapes %s (arg 0) and %s (arg %zu) differ at axis %d (%lld "
                          "vs %lld), which is not the concatenation axis %d",
                          ts__shape_str(f, s0, sizeof s0), ts__shape_str(s, s1, sizeof s1), k, i,
                          (long long)d0[i], (long long)d[i], ax);
                return ts__error_index(err, TS_ERR_SIZE, (int64_t)k);
            }
        if (ts__add_overflow(res[ax], d[ax], &res[ax]))
            return ts__error(err, TS_ERR_OVERFLOW,
                             "concat: the sum of the dims at axis %d does not fit in int64", ax);
    }
    int64_t size;
    if ((st = ts__dims_size(res, nd, &size, err)) != TS_OK)
        return st;
    return ts_shape_assign(out, res, nd, err);
}

ts_status ts_stack_shape(const ts_shape *const *shapes, size_t n, int64_t axis, ts_shape *out,
                         ts_error *err)
{
    TS__ARG_ARRAY(err, shapes, n);
    TS__ARG_EACH(err, shapes, n);
    TS__ARG_NONNULL(err, out);
    ts_status st = check_list(shapes, n, "stack", err);
    if (st)
        return st;
    const ts_shape *f = shapes[0];
    char s0[TS__SHAPE_STR_MAX], s1[TS__SHAPE_STR_MAX];
    int nd = f->ndim, ax;
    for (size_t k = 1; k < n; k++)
        if (!ts_shape_equal(f, shapes[k])) {
            ts__error(err, TS_ERR_SIZE,
                      "stack: shapes %s (arg 0) and %s (arg %zu) differ: stacked shapes must "
                      "be equal",
                      ts__shape_str(f, s0, sizeof s0), ts__shape_str(shapes[k], s1, sizeof s1),
                      k);
            return ts__error_index(err, TS_ERR_SIZE, (int64_t)k);
        }
    if (nd + 1 > TS_MAX_NDIM)
        return ts__error(err, TS_ERR_NDIM, "stack: the result would have %d dims, more than "
                         "TS_MAX_NDIM (%d)", nd + 1, TS_MAX_NDIM);
    if ((st = ts_axis_normalize(axis, nd + 1, &ax, err)) != TS_OK) {
        ts__error_prefix(err, "stack");
        return st;
    }
    if (n > (size_t)INT64_MAX)
        return ts__error(err, TS_ERR_OVERFLOW, "stack: %zu shapes do not fit in int64", n);
    const int64_t *d0 = ts_shape_dims(f);
    int64_t res[TS_MAX_NDIM];
    for (int i = 0, j = 0; i <= nd; i++)
        res[i] = i == ax ? (int64_t)n : d0[j++];
    int64_t size;
    if ((st = ts__dims_size(res, nd + 1, &size, err)) != TS_OK)
        return st;
    return ts_shape_assign(out, res, nd + 1, err);
}
