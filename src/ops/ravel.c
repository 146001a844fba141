/*
 * ravel.c - NumPy ravel_multi_index / unravel_index for one index: C or F
 * order, raise/wrap/clip modes (one for all axes or one per axis).
 * numpy/core/src/multiarray/compiled_base.c is the reference: a shape with
 * a 0 dim cannot be indexed in any mode, wrap is Python's modulo, and
 * negative flat indices are out of bounds.
 */
#include "../core/internal.h"

#include <stdio.h>

/* Element strides of `shape` in `order`, and its size; the caller has
 * checked the order. */
static ts_status elem_strides(const ts_shape *shape, char order, const char *op,
                              int64_t *strides, int64_t *size, ts_error *err)
{
    ts_status st = ts_shape_size(shape, size, err);
    if (st) {
        char s[TS__SHAPE_STR_MAX];
        ts__error_prefix(err, "%s in %s", op, ts__shape_str(shape, s, sizeof s));
        return st;
    }
    int nd = shape->ndim;
    const int64_t *d = ts_shape_dims(shape);
    int64_t acc = 1;
    for (int k = 0; k < nd; k++) {
        int i = order == 'C' ? nd - 1 - k : k;
        strides[i] = acc;
        /* No index is valid without elements; otherwise acc <= size. */
        if (*size > 0)
            acc *= d[i];
    }
    return TS_OK;
}

static ts_status check_order(char order, const char *op, ts_error *err)
{
    if (order == 'C' || order == 'F')
        return TS_OK;
    return ts__error(err, TS_ERR_INVALID_ARG,
                     "%s: order must be 'C' (row-major) or 'F' (column-major), not '%c'", op,
                     order);
}

ts_status ts_ravel_index(const ts_shape *shape, const int64_t *index, size_t nindex, char order,
                         const ts_index_mode *modes, size_t nmodes, int64_t *flat,
                         ts_error *err)
{
    TS__ARG_NONNULL(err, shape);
    TS__ARG_ARRAY(err, index, nindex);
    TS__ARG_ARRAY(err, modes, nmodes);
    TS__ARG_NONNULL(err, flat);
    char s[TS__SHAPE_STR_MAX], ix[TS__SHAPE_STR_MAX];
    ts_status st = check_order(order, "ravel", err);
    if (st)
        return st;
    int nd = shape->ndim;
    ts__shape_str(shape, s, sizeof s);
    ts__dims_str(index, nindex > 256 ? 256 : (int)nindex, ix, sizeof ix);
    if (nindex != (size_t)nd)
        return ts__error(err, TS_ERR_NDIM,
                         "ravel: index %s has %zu entr%s but the shape %s has %d dim%s", ix,
                         nindex, nindex == 1 ? "y" : "ies", s, nd, nd == 1 ? "" : "s");
    if (nmodes != 0 && nmodes != 1 && nmodes != (size_t)nd)
        return ts__error(err, TS_ERR_INVALID_ARG,
                         "ravel: %zu modes given for the %d dims of %s: give 1 for all axes "
                         "or one per axis", nmodes, nd, s);
    for (size_t i = 0; i < nmodes; i++)
        if (modes[i] != TS_INDEX_RAISE && modes[i] != TS_INDEX_WRAP &&
            modes[i] != TS_INDEX_CLIP)
            return ts__error(err, TS_ERR_INVALID_ARG, "ravel: mode %d is not raise, wrap or clip",
                             (int)modes[i]);
    int64_t strides[TS_MAX_NDIM], size;
    st = elem_strides(shape, order, "ravel", strides, &size, err);
    if (st)
        return st;
    const int64_t *d = ts_shape_dims(shape);
    if (size == 0) {
        int z = 0;
        while (d[z] != 0)
            z++;
        return ts__error(err, TS_ERR_INDEX,
                         "cannot ravel index %s into %s: the shape has no elements (axis %d "
                         "has size 0), so no index is valid in any mode", ix, s, z);
    }
    int64_t acc = 0;
    for (int i = 0; i < nd; i++) {
        ts_index_mode mode = nmodes == 0 ? TS_INDEX_RAISE : modes[nmodes == 1 ? 0 : i];
        int64_t j = index[i], m = d[i];
        switch (mode) {
        case TS_INDEX_RAISE:
            if (j < 0)
                return ts__error(err, TS_ERR_INDEX,
                                 "index %s is out of bounds for shape %s: %lld < 0 on axis %d "
                                 "(negative indices need mode wrap or clip)", ix, s,
                                 (long long)j, i);
            if (j >= m)
                return ts__error(err, TS_ERR_INDEX,
                                 "index %s is out of bounds for shape %s: %lld >= %lld on "
                                 "axis %d", ix, s, (long long)j, (long long)m, i);
            break;
        case TS_INDEX_WRAP:
            j %= m;
            if (j < 0)
                j += m;
            break;
        case TS_INDEX_CLIP:
            if (j < 0)
                j = 0;
            else if (j >= m)
                j = m - 1;
            break;
        }
        acc += j * strides[i]; /* the sum stays below size */
    }
    *flat = acc;
    return TS_OK;
}

ts_status ts_unravel_index(const ts_shape *shape, int64_t flat, char order, int64_t *index_out,
                           ts_error *err)
{
    TS__ARG_NONNULL(err, shape);
    TS__ARG_ARRAY(err, index_out, shape->ndim);
    ts_status st = check_order(order, "unravel", err);
    if (st)
        return st;
    int64_t strides[TS_MAX_NDIM], size;
    st = elem_strides(shape, order, "unravel", strides, &size, err);
    if (st)
        return st;
    if (flat < 0 || flat >= size) {
        char s[TS__SHAPE_STR_MAX];
        ts__shape_str(shape, s, sizeof s);
        if (size == 0)
            return ts__error(err, TS_ERR_INDEX,
                             "flat index %lld is out of bounds for shape %s: it has no "
                             "elements", (long long)flat, s);
        return ts__error(err, TS_ERR_INDEX,
                         "flat index %lld is out of bounds for shape %s of size %lld: "
                         "expected 0..%lld", (long long)flat, s, (long long)size,
                         (long long)(size - 1));
    }
    const int64_t *d = ts_shape_dims(shape);
    int nd = shape->ndim;
    for (int i = 0; i < nd; i++)
        index_out[i] = flat / strides[i] % d[i];
    return TS_OK;
}
