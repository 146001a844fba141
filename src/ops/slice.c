/*
 * slice.c - TensorWrapper's slices and chips of a smooth shape, and index
 * iteration from an origin (NWChemEx TensorWrapper, shapev1.rst "Slicing and
 * Chipping" and "Iterating"; the code of PR #236 for slice()).
 *
 * TensorWrapper's slice() does not check the ranges against the extents and
 * rejects empty ranges; here every bound is checked and begin == end gives an
 * extent of 0. chip() and origins exist only in its design; they follow the
 * design text.
 */
#include "../core/internal.h"

/*
 * Computes the ranges [lo[i], hi[i]) of every mode of s from either form of
 * the arguments (see ts_shape_slice in tshape.h). `what` is "slice" or
 * "chip" for messages.
 */
static ts_status ranges(const ts_shape *s, const int64_t *begin, size_t nbegin,
                        const int64_t *end, size_t nend, const char *what, int64_t *lo,
                        int64_t *hi, ts_error *err)
{
    const int ndim = s->ndim;
    const int64_t *dims = ts_shape_dims(s);
    char sbuf[TS__SHAPE_STR_MAX];

    for (int i = 0; i < ndim; i++)
        if (dims[i] < 0)
            return ts__error(err, TS_ERR_VALUE,
                             "%s of %s: dim %d is negative (%lld): extents must be >= 0",
                             what, ts__shape_str(s, sbuf, sizeof sbuf), i,
                             (long long)dims[i]);
    if (!end) {
        /* Short form: pin the first nbegin modes, the others run their span. */
        if (nend != 0 || nbegin > (size_t)ndim)
            return ts__error(err, TS_ERR_NDIM,
                             "%s: %zu pinned indices given but shape %s has %d axes",
                             what, nbegin, ts__shape_str(s, sbuf, sizeof sbuf), ndim);
        for (int i = 0; i < ndim; i++) {
            if ((size_t)i >= nbegin) {
                lo[i] = 0;
                hi[i] = dims[i];
                continue;
            }
            if (begin[i] < 0 || begin[i] >= dims[i])
                return ts__error(err, TS_ERR_INDEX,
                                 "%s index %lld is out of bounds for axis %d with "
                                 "extent %lld of %s",
                                 what, (long long)begin[i], i, (long long)dims[i],
                                 ts__shape_str(s, sbuf, sizeof sbuf));
            lo[i] = begin[i];
            hi[i] = begin[i] + 1;
        }
        return TS_OK;
    }

    if (nbegin != (size_t)ndim || nend != (size_t)ndim)
        return ts__error(err, TS_ERR_NDIM,
                         "%s %s has %zu indices but shape %s has %d axes: begin and end "
                         "need one index per axis",
                         what, nbegin != (size_t)ndim ? "begin" : "end",
                         nbegin != (size_t)ndim ? nbegin : nend,
                         ts__shape_str(s, sbuf, sizeof sbuf), ndim);
    for (int i = 0; i < ndim; i++) {
        if (begin[i] < 0 || end[i] < 0)
            return ts__error(err, TS_ERR_INDEX,
                             "%s %s %lld of axis %d is negative: indices are >= 0", what,
                             begin[i] < 0 ? "begin" : "end",
                             (long long)(begin[i] < 0 ? begin[i] : end[i]), i);
        if (begin[i] > end[i])
            return ts__error(err, TS_ERR_VALUE,
                             "%s begin %lld is after end %lld on axis %d of %s: ranges "
                             "are [begin, end) with begin <= end",
                             what, (long long)begin[i], (long long)end[i], i,
                             ts__shape_str(s, sbuf, sizeof sbuf));
        if (end[i] > dims[i])
            return ts__error(err, TS_ERR_INDEX, "%s end %lld exceeds extent %lld of axis %d of %s",
                             what, (long long)end[i], (long long)dims[i], i,
                             ts__shape_str(s, sbuf, sizeof sbuf));
        lo[i] = begin[i];
        hi[i] = end[i];
    }
    return TS_OK;
}

/* Shared by slice and chip: `drop_unit` removes modes of extent 1. */
static ts_status slice_or_chip(const ts_shape *s, const int64_t *begin, size_t nbegin,
                               const int64_t *end, size_t nend, ts_shape *out,
                               ts_shape *origin, int drop_unit, ts_error *err)
{
    int64_t lo[TS_MAX_NDIM], hi[TS_MAX_NDIM], ext[TS_MAX_NDIM], org[TS_MAX_NDIM];
    const char *what = drop_unit ? "chip" : "slice";
    ts_status st = ranges(s, begin, nbegin, end, nend, what, lo, hi, err);
    if (st)
        return st;
    int n = 0;
    for (int i = 0; i < s->ndim; i++) {
        if (drop_unit && hi[i] - lo[i] == 1)
            continue;
        ext[n] = hi[i] - lo[i];
        org[n] = lo[i];
        n++;
    }
    /* out may alias s: lo/hi are copies, so assigning is safe. */
    if ((st = ts_shape_assign(out, ext, n, err)) != TS_OK)
        return st;
    if (origin && (st = ts_shape_assign(origin, org, n, err)) != TS_OK)
        return st;
    ts__ok(err);
    return TS_OK;
}

ts_status ts_shape_slice(const ts_shape *s, const int64_t *begin, size_t nbegin,
                         const int64_t *end, size_t nend, ts_shape *out, ts_shape *origin,
                         ts_error *err)
{
    TS__ARG_NONNULL(err, s);
    TS__ARG_ARRAY(err, begin, nbegin);
    TS__ARG_ARRAY(err, end, nend);
    TS__ARG_NONNULL(err, out);
    return slice_or_chip(s, begin, nbegin, end, nend, out, origin, 0, err);
}

ts_status ts_shape_chip(const ts_shape *s, const int64_t *begin, size_t nbegin,
                        const int64_t *end, size_t nend, ts_shape *out, ts_shape *origin,
                        ts_error *err)
{
    TS__ARG_NONNULL(err, s);
    TS__ARG_ARRAY(err, begin, nbegin);
    TS__ARG_ARRAY(err, end, nend);
    TS__ARG_NONNULL(err, out);
    return slice_or_chip(s, begin, nbegin, end, nend, out, origin, 1, err);
}

ts_status ts_index_iter_init(ts_index_iter *it, const ts_shape *s, const int64_t *origin,
                             size_t norigin, ts_error *err)
{
    TS__ARG_NONNULL(err, it);
    TS__ARG_NONNULL(err, s);
    TS__ARG_ARRAY(err, origin, norigin);
    const int ndim = s->ndim;
    const int64_t *dims = ts_shape_dims(s);
    char sbuf[TS__SHAPE_STR_MAX];

    if (origin && norigin != (size_t)ndim)
        return ts__error(err, TS_ERR_NDIM,
                         "origin has %zu indices but shape %s has %d axes", norigin,
                         ts__shape_str(s, sbuf, sizeof sbuf), ndim);
    it->ndim = ndim;
    it->state = 0;
    for (int i = 0; i < ndim; i++) {
        int64_t o = origin ? origin[i] : 0, last;
        if (dims[i] < 0)
            return ts__error(err, TS_ERR_VALUE, "dim %d of %s is negative: extents must be >= 0",
                             i, ts__shape_str(s, sbuf, sizeof sbuf));
        if (o < 0)
            return ts__error(err, TS_ERR_VALUE,
                             "origin %lld of axis %d is negative: indices are >= 0",
                             (long long)o, i);
        if (dims[i] > 0 && ts__add_overflow(o, dims[i] - 1, &last))
            return ts__error(err, TS_ERR_OVERFLOW,
                             "origin %lld plus extent %lld of axis %d does not fit in int64",
                             (long long)o, (long long)dims[i], i);
        if (dims[i] == 0)
            it->state = 2; /* no index at all */
        it->extent[i] = dims[i];
        it->origin[i] = o;
        it->offset[i] = 0;
        it->index[i] = o;
    }
    ts__ok(err);
    return TS_OK;
}

int ts_index_iter_next(ts_index_iter *it)
{
    if (!it || it->ndim < 0 || it->ndim > TS_MAX_NDIM || it->state < 0 || it->state >= 2)
        return 0;
    if (it->state == 0) {
        it->state = 1; /* the first index is the origin itself */
        return 1;
    }
    /* Odometer: bump the last axis, carrying into earlier ones. */
    for (int i = it->ndim - 1; i >= 0; i--) {
        if (it->offset[i] + 1 < it->extent[i]) {
            it->offset[i]++;
            it->index[i]++;
            return 1;
        }
        it->offset[i] = 0;
        it->index[i] = it->origin[i];
    }
    it->state = 2;
    return 0;
}
