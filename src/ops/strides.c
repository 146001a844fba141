/*
 * strides.c - strides of dense arrays (NumPy), contiguity flags (NumPy's
 * relaxed strides, PyTorch's channels_last), and PyTorch's view oracle
 * (computeStride_impl in aten/src/ATen/TensorUtils.cpp).
 */
#include "../core/internal.h"

#include <stdio.h>

ts_status ts_strides(const ts_shape *shape, int64_t itemsize, char order, int64_t *strides_out,
                     ts_error *err)
{
    TS__ARG_NONNULL(err, shape);
    TS__ARG_ARRAY(err, strides_out, shape->ndim);
    char s[TS__SHAPE_STR_MAX];
    if (order != 'C' && order != 'F')
        return ts__error(err, TS_ERR_INVALID_ARG,
                         "strides: order must be 'C' (row-major) or 'F' (column-major), "
                         "not '%c'", order);
    if (itemsize < 1)
        return ts__error(err, TS_ERR_VALUE, "strides: itemsize must be >= 1, not %lld",
                         (long long)itemsize);
    int nd = shape->ndim;
    const int64_t *d = ts_shape_dims(shape);
    int64_t size;
    ts_status st = ts_shape_size(shape, &size, err);
    if (st) {
        ts__error_prefix(err, "strides of %s", ts__shape_str(shape, s, sizeof s));
        return st;
    }
    if (size == 0) {
        /* NumPy gives every array with 0 elements all-zero strides. */
        for (int i = 0; i < nd; i++)
            strides_out[i] = 0;
        return TS_OK;
    }
    int64_t nbytes;
    if (ts__mul_overflow(size, itemsize, &nbytes))
        return ts__error(err, TS_ERR_OVERFLOW,
                         "strides of %s: %lld elements of %lld units each do not fit in int64",
                         ts__shape_str(shape, s, sizeof s), (long long)size,
                         (long long)itemsize);
    /* Every stride divides nbytes, so nothing below can overflow. */
    int64_t acc = itemsize;
    for (int k = 0; k < nd; k++) {
        int i = order == 'C' ? nd - 1 - k : k;
        strides_out[i] = acc;
        acc *= d[i];
    }
    return TS_OK;
}

/*
 * The nesting test shared by every contiguity flag: visiting the n dims
 * order[0..n-1] (innermost first) and skipping size-1 dims, each stride must
 * equal itemsize times the product of the dims visited before it. A running
 * product that overflows cannot equal any stride, but it only matters if a
 * later non-1 dim is compared with it.
 */
static int nests(const int64_t *d, const int64_t *strides, const int *order, int n,
                 int64_t itemsize)
{
    int64_t expected = itemsize;
    int overflow = 0;
    for (int k = 0; k < n; k++) {
        int i = order[k];
        if (d[i] == 1)
            continue;
        if (overflow || strides[i] != expected)
            return 0;
        if (ts__mul_overflow(expected, d[i], &expected))
            overflow = 1;
    }
    return 1;
}

/* 1 when the arguments are usable (shape not NULL, strides not NULL unless
 * ndim is 0, no negative dim, itemsize >= 1); sets *empty when some dim is 0. */
static int usable(const ts_shape *shape, const int64_t *strides, int64_t itemsize, int *empty)
{
    *empty = 0;
    if (!shape || (!strides && shape->ndim > 0) || itemsize < 1)
        return 0;
    const int64_t *d = ts_shape_dims(shape);
    for (int i = 0; i < shape->ndim; i++) {
        if (d[i] < 0)
            return 0;
        if (d[i] == 0)
            *empty = 1;
    }
    return 1;
}

static int contiguous(const ts_shape *shape, const int64_t *strides, int64_t itemsize, int c)
{
    int empty;
    if (!usable(shape, strides, itemsize, &empty))
        return 0;
    if (empty)
        return 1; /* NumPy and torch: no elements, contiguous by definition */
    int nd = shape->ndim, order[TS_MAX_NDIM];
    for (int k = 0; k < nd; k++)
        order[k] = c ? nd - 1 - k : k;
    return nests(ts_shape_dims(shape), strides, order, nd, itemsize);
}

int ts_is_c_contiguous(const ts_shape *shape, const int64_t *strides, int64_t itemsize)
{
    return contiguous(shape, strides, itemsize, 1);
}

int ts_is_f_contiguous(const ts_shape *shape, const int64_t *strides, int64_t itemsize)
{
    return contiguous(shape, strides, itemsize, 0);
}

/* PyTorch checks channels_last without an empty-tensor shortcut. */
int ts_is_channels_last(const ts_shape *shape, const int64_t *strides, int64_t itemsize)
{
    static const int order[4] = {1, 3, 2, 0};
    int empty;
    if (!usable(shape, strides, itemsize, &empty) || shape->ndim != 4)
        return 0;
    return nests(ts_shape_dims(shape), strides, order, 4, itemsize);
}

int ts_is_channels_last_3d(const ts_shape *shape, const int64_t *strides, int64_t itemsize)
{
    static const int order[5] = {1, 4, 3, 2, 0};
    int empty;
    if (!usable(shape, strides, itemsize, &empty) || shape->ndim != 5)
        return 0;
    return nests(ts_shape_dims(shape), strides, order, 5, itemsize);
}

/* "dims 0..1 of (2,3,4) with strides (12,1,3)" for messages. */
static ts_status no_view(ts_error *err, const ts_shape *shape, const int64_t *strides,
                         const ts_shape *target, int lo, int hi, int bad, int64_t want)
{
    char s[TS__SHAPE_STR_MAX], st[TS__SHAPE_STR_MAX], t[TS__SHAPE_STR_MAX];
    ts__shape_str(shape, s, sizeof s);
    ts__dims_str(strides, shape->ndim, st, sizeof st);
    ts__shape_str(target, t, sizeof t);
    return ts__error(err, TS_ERR_LAYOUT,
                     "dims %d..%d of %s with strides %s are not contiguous with each other "
                     "(dim %d would need stride %lld, has %lld), so %s would need a copy",
                     lo, hi, s, st, bad, (long long)want, (long long)strides[bad], t);
}

ts_status ts_view_strides(const ts_shape *shape, const int64_t *strides,
                          const ts_shape *target, ts_shape *out_shape, int64_t *out_strides,
                          ts_error *err)
{
    TS__ARG_NONNULL(err, shape);
    TS__ARG_ARRAY(err, strides, shape->ndim);
    TS__ARG_NONNULL(err, target);
    TS__ARG_NONNULL(err, out_shape);
    TS__ARG_ARRAY(err, out_strides, target->ndim);
    char s[TS__SHAPE_STR_MAX];
    /* torch infer_size: resolve a -1 and check the element counts. */
    ts_shape newshape = TS_SHAPE_INIT;
    ts_status st = ts_reshape(shape, target, 0, &newshape, err);
    if (st) {
        ts__error_prefix(err, "view");
        return st;
    }
    int on = shape->ndim, nn = newshape.ndim;
    const int64_t *od = ts_shape_dims(shape), *nd = ts_shape_dims(&newshape);
    int64_t numel, res[TS_MAX_NDIM];
    ts_shape_size(shape, &numel, NULL); /* checked by ts_reshape */

    if (on == 0) {
        /* An old 0-d tensor: every new stride is 1. */
        for (int i = 0; i < nn; i++)
            res[i] = 1;
    } else if (numel == 0) {
        /* Strides are arbitrary without elements: keep them if the shape
         * is unchanged, else use contiguous strides with 0 dims as 1. */
        if (ts_shape_equal(shape, &newshape)) {
            memcpy(res, strides, (size_t)on * sizeof *res);
        } else {
            int64_t acc = 1;
            for (int i = nn - 1; i >= 0; i--) {
                res[i] = acc;
                if (i > 0 && ts__mul_overflow(acc, nd[i] > 1 ? nd[i] : 1, &acc)) {
                    ts_shape_free(&newshape);
                    return ts__error(err, TS_ERR_OVERFLOW,
                                     "view of %s as a 0-element shape: its contiguous "
                                     "strides do not fit in int64",
                                     ts__shape_str(shape, s, sizeof s));
                }
            }
        }
    } else {
        /* computeStride_impl: walk the old dims from the back in chunks of
         * mutually contiguous dims; the new dims must tile each chunk. */
        int view_d = nn - 1;
        int64_t chunk_base = strides[on - 1];
        int64_t tensor_numel = 1, view_numel = 1;
        int chunk_hi = on - 1;
        for (int tensor_d = on - 1; tensor_d >= 0; tensor_d--) {
            tensor_numel *= od[tensor_d]; /* <= numel: no overflow */
            int64_t want = 0;
            int end = tensor_d == 0;
            if (!end && od[tensor_d - 1] != 1) {
                /* Overflow means no stride can match: a chunk boundary. */
                end = ts__mul_overflow(tensor_numel, chunk_base, &want) ||
                      strides[tensor_d - 1] != want;
            }
            if (!end)
                continue;
            while (view_d >= 0 && (view_numel < tensor_numel || nd[view_d] == 1)) {
                if (ts__mul_overflow(view_numel, chunk_base, &res[view_d])) {
                    ts_shape_free(&newshape);
                    return ts__error(err, TS_ERR_OVERFLOW,
                                     "view of %s: a stride of the view does not fit in int64",
                                     ts__shape_str(shape, s, sizeof s));
                }
                view_numel *= nd[view_d]; /* a partial product of numel */
                view_d--;
            }
            if (view_numel != tensor_numel && tensor_d > 0) {
                /* The last new dim taken spans the boundary between dims
                 * tensor_d-1 and tensor_d; report the old dims it covers. */
                int lo = tensor_d - 1;
                int64_t acc = tensor_numel;
                while (lo > 0 && acc * od[lo] < view_numel) {
                    acc *= od[lo];
                    lo--;
                }
                int bad = tensor_d - 1; /* its size is not 1: it ended the chunk */
                int64_t need = 0;
                if (ts__mul_overflow(tensor_numel, chunk_base, &need))
                    need = INT64_MAX;
                st = no_view(err, shape, strides, &newshape, lo < 0 ? 0 : lo, chunk_hi, bad,
                             need);
                ts_shape_free(&newshape);
                return st;
            }
            if (view_numel != tensor_numel) {
                /* Cannot happen: both shapes have numel elements. */
                view_d = 0;
                break;
            }
            if (tensor_d > 0) {
                chunk_base = strides[tensor_d - 1];
                tensor_numel = 1;
                view_numel = 1;
                chunk_hi = tensor_d - 1;
            }
        }
        if (view_d != -1) {
            char t[TS__SHAPE_STR_MAX];
            st = ts__error(err, TS_ERR_LAYOUT,
                           "view of %s as %s: dims 0..%d of the view are left over",
                           ts__shape_str(shape, s, sizeof s),
                           ts__shape_str(&newshape, t, sizeof t), view_d);
            ts_shape_free(&newshape);
            return st;
        }
    }
    if (nn > 0)
        memcpy(out_strides, res, (size_t)nn * sizeof *res);
    ts_shape_move(out_shape, &newshape);
    return TS_OK;
}
