/*
 * arith.c - the core arithmetic of mshadow's TShape: Size, ProdShape,
 * FlatTo2D, FlatTo3D, get<ndim>, and the binary Save/Load layouts. Every
 * product is overflow-checked (the seed's Size() wrapped silently).
 */
#include "internal.h"

ts_status ts_shape_size(const ts_shape *s, int64_t *out, ts_error *err)
{
    TS__ARG_NONNULL(err, s);
    TS__ARG_NONNULL(err, out);
    return ts__dims_size(ts_shape_dims(s), s->ndim, out, err);
}

/* Normalises a slice bound: negatives count from the end, range 0..ndim. */
static ts_status slice_bound(int64_t v, int ndim, const char *what, int64_t *out,
                            ts_error *err)
{
    int64_t n = v < 0 ? v + ndim : v;
    if (n < 0 || n > ndim)
        return ts__error(err, TS_ERR_AXIS,
                         "%s %lld is out of range for a shape of %d dimensions "
                         "(expected %d..%d)", what, (long long)v, ndim, -ndim, ndim);
    *out = n;
    return TS_OK;
}

ts_status ts_shape_prod(const ts_shape *s, int64_t begin, int64_t end, int64_t *out,
                        ts_error *err)
{
    TS__ARG_NONNULL(err, s);
    TS__ARG_NONNULL(err, out);
    int64_t b = 0, e = 0;
    ts_status st = slice_bound(begin, s->ndim, "begin", &b, err);
    if (!st)
        st = slice_bound(end, s->ndim, "end", &e, err);
    if (st)
        return st;
    if (b > e)
        return ts__error(err, TS_ERR_AXIS,
                         "begin %lld comes after end %lld (the range [begin, end) is "
                         "normalised to [%lld, %lld))", (long long)begin, (long long)end,
                         (long long)b, (long long)e);
    return ts__dims_size(ts_shape_dims(s) + b, (int)(e - b), out, err);
}

ts_status ts_shape_flat2d(const ts_shape *s, int64_t out[2], ts_error *err)
{
    TS__ARG_NONNULL(err, s);
    TS__ARG_NONNULL(err, out);
    if (s->ndim == 0) {
        out[0] = out[1] = 1;
        return TS_OK;
    }
    const int64_t *d = ts_shape_dims(s);
    int64_t last = d[s->ndim - 1];
    if (last < 0)
        return ts__error(err, TS_ERR_VALUE, "dim %d is negative (%lld): sizes must be >= 0",
                         s->ndim - 1, (long long)last);
    /* One pass: the product of the leading dims is what may overflow. */
    ts_status st = ts__dims_size(d, s->ndim - 1, &out[0], err);
    if (st)
        return st;
    out[1] = last;
    return TS_OK;
}

ts_status ts_shape_flat3d(const ts_shape *s, int64_t axis_begin, int64_t axis_end,
                          int64_t out[3], ts_error *err)
{
    TS__ARG_NONNULL(err, s);
    TS__ARG_NONNULL(err, out);
    int b = 0, e = 0;
    ts_status st;
    if (s->ndim == 0)
        return ts__error(err, TS_ERR_AXIS,
                         "flat3d needs at least one axis, but the shape () is a scalar");
    st = ts_axis_normalize(axis_begin, s->ndim, &b, err);
    if (!st)
        st = ts_axis_normalize(axis_end, s->ndim, &e, err);
    if (st)
        return st;
    if (b > e)
        return ts__error(err, TS_ERR_AXIS,
                         "flat3d axis_begin %lld comes after axis_end %lld",
                         (long long)axis_begin, (long long)axis_end);
    const int64_t *d = ts_shape_dims(s);
    int64_t all;
    st = ts_shape_size(s, &all, err);
    if (!st)
        st = ts__dims_size(d, b, &out[0], err);
    if (!st)
        st = ts__dims_size(d + b, e - b + 1, &out[1], err);
    if (!st)
        st = ts__dims_size(d + e + 1, s->ndim - e - 1, &out[2], err);
    return st;
}

ts_status ts_shape_get(const ts_shape *s, int ndim, int64_t *out, ts_error *err)
{
    TS__ARG_NONNULL(err, s);
    TS__ARG_ARRAY(err, out, ndim);
    if (s->ndim != ndim) {
        char buf[TS__SHAPE_STR_MAX];
        return ts__error(err, TS_ERR_NDIM, "shape %s has %d dimension%s, expected %d",
                         ts__shape_str(s, buf, sizeof buf), s->ndim,
                         s->ndim == 1 ? "" : "s", ndim);
    }
    if (ndim > 0)
        memcpy(out, ts_shape_dims(s), (size_t)ndim * sizeof *out);
    return TS_OK;
}

ts_status ts_shape_save(const ts_shape *s, ts_shape_layout layout, unsigned char *buf,
                        size_t cap, size_t *written, ts_error *err)
{
    TS__ARG_NONNULL(err, s);
    if (layout != TS_LAYOUT_MSHADOW && layout != TS_LAYOUT_MXNET)
        return ts__bad_arg(err, __func__, "layout %d is not a ts_shape_layout", (int)layout);
    TS__ARG_ARRAY(err, buf, cap);
    size_t dim_bytes = layout == TS_LAYOUT_MSHADOW ? 4 : 8;
    size_t need = 4 + dim_bytes * (size_t)s->ndim;
    const int64_t *d = ts_shape_dims(s);
    if (written)
        *written = need;
    for (int i = 0; i < s->ndim; i++) {
        if (d[i] < 0 || (layout == TS_LAYOUT_MSHADOW && d[i] > (int64_t)UINT32_MAX))
            return ts__error(err, TS_ERR_VALUE,
                             "dim %d (%lld) cannot be stored in the %s layout", i,
                             (long long)d[i],
                             layout == TS_LAYOUT_MSHADOW ? "mshadow u32" : "MXNet i64");
    }
    if (!buf && cap == 0)
        return TS_OK;
    if (cap < need)
        return ts__error(err, TS_ERR_LIMIT, "buffer of %zu bytes is too small, need %zu",
                         cap, need);
    ts__put_le32(buf, (uint32_t)s->ndim);
    for (int i = 0; i < s->ndim; i++) {
        if (layout == TS_LAYOUT_MSHADOW)
            ts__put_le32(buf + 4 + 4 * (size_t)i, (uint32_t)d[i]);
        else
            ts__put_le64(buf + 4 + 8 * (size_t)i, (uint64_t)d[i]);
    }
    return TS_OK;
}

ts_status ts_shape_load(const unsigned char *buf, size_t len, ts_shape_layout layout,
                        ts_shape *out, size_t *consumed, ts_error *err)
{
    TS__ARG_ARRAY(err, buf, len);
    if (layout != TS_LAYOUT_MSHADOW && layout != TS_LAYOUT_MXNET)
        return ts__bad_arg(err, __func__, "layout %d is not a ts_shape_layout", (int)layout);
    TS__ARG_NONNULL(err, out);
    ts__cursor c;
    ts__cursor_init(&c, buf, len);
    uint32_t raw;
    ts_status st = ts__read_u32(&c, &raw, "the shape's ndim", err);
    if (st)
        return st;
    int64_t ndim = layout == TS_LAYOUT_MSHADOW ? (int64_t)raw : (int64_t)(int32_t)raw;
    if (ndim < 0)
        return ts__fail(err, TS_ERR_VALUE, 0, 0,
                        "negative ndim %lld at byte 0 (unknown shapes are not allowed)",
                        (long long)ndim);
    size_t dim_bytes = layout == TS_LAYOUT_MSHADOW ? 4 : 8;
    /* Check the length before the limit so a short buffer reads as truncated. */
    if ((uint64_t)ndim > (uint64_t)(len - 4) / dim_bytes && ndim > TS_MAX_NDIM)
        return ts__fail(err, TS_ERR_LIMIT, 0, 0,
                        "ndim %lld at byte 0 is absurd: above the limit of %d and "
                        "longer than the %zu bytes given", (long long)ndim, TS_MAX_NDIM, len);
    st = ts__cursor_need(&c, dim_bytes * (size_t)(ndim > TS_MAX_NDIM ? TS_MAX_NDIM + 1 : ndim),
                         "the shape's dims", err);
    if (st)
        return st;
    if (ndim > TS_MAX_NDIM)
        return ts__fail(err, TS_ERR_LIMIT, 0, 0, "ndim %lld at byte 0 is above the limit of %d",
                        (long long)ndim, TS_MAX_NDIM);
    int64_t dims[TS_MAX_NDIM];
    for (int64_t i = 0; i < ndim; i++) {
        if (layout == TS_LAYOUT_MSHADOW) {
            uint32_t v;
            ts__read_u32(&c, &v, "dim", err);
            dims[i] = v;
        } else {
            int64_t v;
            size_t at = c.pos;
            ts__read_i64(&c, &v, "dim", err);
            if (v < 0)
                return ts__fail(err, TS_ERR_VALUE, 0, (int64_t)at,
                                "dim %lld is negative (%lld) at byte %zu", (long long)i,
                                (long long)v, at);
            dims[i] = v;
        }
    }
    st = ts_shape_assign(out, dims, (int)ndim, err);
    if (st)
        return st;
    if (consumed)
        *consumed = c.pos;
    return TS_OK;
}
