/*
 * caffe2.c - the dims arithmetic of caffe2::Tensor (caffe2/core/tensor.h):
 * Extend grows the outermost dim, Shrink lowers it, Resize/SetDims replaces
 * the dims and reports whether the element count changed (which is what
 * makes Caffe2 free the buffer and reallocate on the next mutable_data()).
 * Caffe2 enforced these with CAFFE_ENFORCE and bare messages ("New outer
 * dimension must be smaller than current."); ours say which numbers.
 */
#include "../core/internal.h"

/* Checks the input shape: rank >= 1 and no negative dim. */
static ts_status check_outer(const ts_shape *s, const char *op, ts_error *err)
{
    char sbuf[TS__SHAPE_STR_MAX];
    if (s->ndim < 1)
        return ts__error(err, TS_ERR_NDIM,
                         "%s: the scalar () has no outermost dim (Caffe2: Tensor must be at "
                         "least 1D)", op);
    const int64_t *d = ts_shape_dims(s);
    for (int i = 0; i < s->ndim; i++)
        if (d[i] < 0)
            return ts__error(err, TS_ERR_VALUE, "%s: dim %d of %s is negative", op, i,
                             ts__shape_str(s, sbuf, sizeof sbuf));
    return TS_OK;
}

/* out = s with the outermost dim replaced by `outer`, size overflow-checked. */
static ts_status with_outer(const ts_shape *s, int64_t outer, ts_shape *out, const char *op,
                            ts_error *err)
{
    int64_t dims[TS_MAX_NDIM], size;
    memcpy(dims, ts_shape_dims(s), (size_t)s->ndim * sizeof *dims);
    dims[0] = outer;
    ts_status st = ts__dims_size(dims, s->ndim, &size, err);
    if (st) {
        ts__error_prefix(err, "%s", op);
        return st;
    }
    if ((st = ts_shape_assign(out, dims, s->ndim, err)) != TS_OK)
        return st;
    ts__ok(err);
    return TS_OK;
}

ts_status ts_caffe2_extend(const ts_shape *s, int64_t num, ts_shape *out, ts_error *err)
{
    TS__ARG_NONNULL(err, s);
    TS__ARG_NONNULL(err, out);
    char sbuf[TS__SHAPE_STR_MAX];
    ts_status st = check_outer(s, "extend", err);
    if (st)
        return st;
    if (num < 0)
        return ts__error(err, TS_ERR_VALUE,
                         "extend: the number of rows to add must be >= 0, not %lld",
                         (long long)num);
    int64_t outer;
    if (ts__add_overflow(ts_shape_dims(s)[0], num, &outer))
        return ts__error(err, TS_ERR_OVERFLOW,
                         "extend: outer dim %lld of %s plus %lld does not fit in int64",
                         (long long)ts_shape_dims(s)[0], ts__shape_str(s, sbuf, sizeof sbuf),
                         (long long)num);
    return with_outer(s, outer, out, "extend", err);
}

ts_status ts_caffe2_shrink(const ts_shape *s, int64_t outer_dim, ts_shape *out, ts_error *err)
{
    TS__ARG_NONNULL(err, s);
    TS__ARG_NONNULL(err, out);
    char sbuf[TS__SHAPE_STR_MAX];
    ts_status st = check_outer(s, "shrink", err);
    if (st)
        return st;
    if (outer_dim < 0)
        return ts__error(err, TS_ERR_VALUE, "shrink: new outer dim %lld is negative",
                         (long long)outer_dim);
    if (outer_dim > ts_shape_dims(s)[0])
        return ts__error(err, TS_ERR_VALUE,
                         "shrink: new outer dim %lld exceeds the current outer dim %lld of %s "
                         "(Caffe2: New outer dimension must be smaller than current.)",
                         (long long)outer_dim, (long long)ts_shape_dims(s)[0],
                         ts__shape_str(s, sbuf, sizeof sbuf));
    return with_outer(s, outer_dim, out, "shrink", err);
}

ts_status ts_caffe2_resize(const ts_shape *s, const ts_shape *new_dims, ts_shape *out,
                           int64_t *old_size, int64_t *size, int *size_changed, ts_error *err)
{
    TS__ARG_NONNULL(err, s);
    TS__ARG_NONNULL(err, new_dims);
    TS__ARG_NONNULL(err, out);
    int64_t before, after;
    ts_status st = ts_shape_size(s, &before, err);
    if (st) {
        ts__error_prefix(err, "resize: the old shape");
        return st;
    }
    if ((st = ts_shape_size(new_dims, &after, err)) != TS_OK) {
        ts__error_prefix(err, "resize: the new shape");
        return st;
    }
    if ((st = ts_shape_copy(out, new_dims, err)) != TS_OK)
        return st;
    if (old_size)
        *old_size = before;
    if (size)
        *size = after;
    if (size_changed)
        *size_changed = before != after;
    ts__ok(err);
    return TS_OK;
}
