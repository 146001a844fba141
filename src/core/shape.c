/*
 * shape.c - storage of ts_shape: dims inline up to TS_STACK_CACHE, on the
 * heap beyond (mshadow TShape's data_stack_/data_heap_).
 *
 * Invariant: heap is NULL iff heap_capacity is 0; when ndim > TS_STACK_CACHE
 * the dims live in heap[0..ndim-1] and heap_capacity >= ndim. A heap block is
 * kept when the shape shrinks, so reassigning never leaks and growing again
 * does not reallocate (TShape::SetDim).
 */
#include "internal.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

void ts_shape_init(ts_shape *s)
{
    if (!s)
        return;
    s->ndim = 0;
    s->heap_capacity = 0;
    memset(s->stack, 0, sizeof s->stack);
    s->heap = NULL;
}

void ts_shape_free(ts_shape *s)
{
    if (!s)
        return;
    free(s->heap);
    ts_shape_init(s);
}

/* Makes room for ndim dims and sets ndim; dim values are unspecified. */
static ts_status set_ndim(ts_shape *s, int ndim, ts_error *err)
{
    if (ndim < 0 || ndim > TS_MAX_NDIM)
        return ts__error(err, TS_ERR_NDIM,
                         "ndim %d is out of range: a shape has 0 to %d dimensions",
                         ndim, TS_MAX_NDIM);
    if (ndim > TS_STACK_CACHE && ndim > s->heap_capacity) {
        int64_t *p = malloc((size_t)ndim * sizeof *p);
        if (!p)
            return ts__error(err, TS_ERR_NOMEM, "out of memory for %d dims", ndim);
        free(s->heap);
        s->heap = p;
        s->heap_capacity = ndim;
    }
    s->ndim = ndim;
    return TS_OK;
}

ts_status ts_shape_resize(ts_shape *s, int ndim, ts_error *err)
{
    TS__ARG_NONNULL(err, s);
    ts_status st = set_ndim(s, ndim, err);
    if (st)
        return st;
    int64_t *d = ts_shape_dims_mut(s);
    for (int i = 0; i < ndim; i++)
        d[i] = 1;
    return TS_OK;
}

ts_status ts_shape_assign(ts_shape *s, const int64_t *dims, int ndim, ts_error *err)
{
    TS__ARG_NONNULL(err, s);
    TS__ARG_ARRAY(err, dims, ndim);
    ts_status st = set_ndim(s, ndim, err);
    if (st)
        return st;
    if (ndim > 0)
        memmove(ts_shape_dims_mut(s), dims, (size_t)ndim * sizeof *dims);
    return TS_OK;
}

ts_status ts_shape_copy(ts_shape *dst, const ts_shape *src, ts_error *err)
{
    TS__ARG_NONNULL(err, dst);
    TS__ARG_NONNULL(err, src);
    if (dst == src)
        return TS_OK;
    return ts_shape_assign(dst, ts_shape_dims(src), src->ndim, err);
}

void ts_shape_move(ts_shape *dst, ts_shape *src)
{
    if (!dst || !src || dst == src)
        return;
    free(dst->heap);
    *dst = *src;
    ts_shape_init(src);
}

int ts_shape_ndim(const ts_shape *s)
{
    return s ? s->ndim : 0;
}

const int64_t *ts_shape_dims(const ts_shape *s)
{
    if (!s)
        return NULL;
    return s->ndim <= TS_STACK_CACHE ? s->stack : s->heap;
}

int64_t *ts_shape_dims_mut(ts_shape *s)
{
    if (!s)
        return NULL;
    return s->ndim <= TS_STACK_CACHE ? s->stack : s->heap;
}

int ts_shape_equal(const ts_shape *a, const ts_shape *b)
{
    if (!a || !b || a->ndim != b->ndim)
        return 0;
    return a->ndim == 0 ||
           memcmp(ts_shape_dims(a), ts_shape_dims(b), (size_t)a->ndim * sizeof(int64_t)) == 0;
}

int ts__shape_equal_permuted(const ts_shape *a, const ts_shape *b, const int *perm, int nperm)
{
    if (!perm || nperm == 0)
        return ts_shape_equal(a, b);
    if (!a || !b || a->ndim != nperm || b->ndim != nperm)
        return 0;
    for (int k = 0; k < nperm; k++)
        if (perm[k] < 0 || perm[k] >= nperm ||
            ts_shape_dims(a)[k] != ts_shape_dims(b)[perm[k]])
            return 0;
    return 1;
}

ts_status ts_axis_normalize(int64_t axis, int ndim, int *out, ts_error *err)
{
    TS__ARG_NONNULL(err, out);
    if (ndim < 0 || ndim > TS_MAX_NDIM)
        return ts__error(err, TS_ERR_NDIM,
                         "ndim %d is out of range: a shape has 0 to %d dimensions", ndim,
                         TS_MAX_NDIM);
    if (axis < -(int64_t)ndim || axis >= ndim)
        return ts__error(err, TS_ERR_AXIS,
                         "axis %lld is out of bounds for array of dimension %d",
                         (long long)axis, ndim);
    *out = (int)(axis < 0 ? axis + ndim : axis);
    return TS_OK;
}

ts_status ts_shape_dim(const ts_shape *s, int64_t axis, int64_t *out, ts_error *err)
{
    TS__ARG_NONNULL(err, s);
    TS__ARG_NONNULL(err, out);
    int a = 0;
    ts_status st = ts_axis_normalize(axis, s->ndim, &a, err);
    if (st)
        return st;
    *out = ts_shape_dims(s)[a];
    return TS_OK;
}

ts_status ts__dims_size(const int64_t *dims, int n, int64_t *out, ts_error *err)
{
    int64_t size = 1;
    int overflow = 0, zero = 0;
    if (n <= TS_STACK_CACHE) {
        /* Common case first: small shapes of positive dims. */
        int i = 0;
        for (; i < n && dims[i] > 0; i++)
            if (ts__mul_overflow(size, dims[i], &size))
                break;
        if (i == n) {
            *out = size;
            return TS_OK;
        }
        size = 1; /* a zero, negative or overflow: the full loop explains */
    }
    for (int i = 0; i < n; i++) {
        if (dims[i] < 0)
            return ts__error(err, TS_ERR_VALUE,
                             "dim %d is negative (%lld): sizes must be >= 0", i,
                             (long long)dims[i]);
        /* A zero dim makes the size 0 even if the others overflow. Track it
         * apart: a wrapped product can itself be 0 (2^32 * 2^32). */
        if (dims[i] == 0)
            zero = 1;
        else if (!overflow && ts__mul_overflow(size, dims[i], &size))
            overflow = 1;
    }
    if (zero) {
        *out = 0;
        return TS_OK;
    }
    if (overflow) {
        char buf[TS__SHAPE_STR_MAX];
        return ts__error(err, TS_ERR_OVERFLOW,
                         "the product of %s does not fit in int64",
                         ts__dims_str(dims, n, buf, sizeof buf));
    }
    *out = size;
    return TS_OK;
}

const char *ts__dims_str(const int64_t *dims, int n, char *buf, size_t cap)
{
    assert(cap >= 8);
    size_t pos = 0;
    buf[pos++] = '(';
    for (int i = 0; i < n; i++) {
        char tmp[24];
        int k = snprintf(tmp, sizeof tmp, "%s%lld", i ? "," : "", (long long)dims[i]);
        if (pos + (size_t)k + 5 > cap) {
            memcpy(buf + pos, "...", 3);
            pos += 3;
            break;
        }
        memcpy(buf + pos, tmp, (size_t)k);
        pos += (size_t)k;
    }
    if (n == 1 && buf[pos - 1] != '.')
        buf[pos++] = ',';
    buf[pos++] = ')';
    buf[pos] = '\0';
    return buf;
}

const char *ts__shape_str(const ts_shape *s, char *buf, size_t cap)
{
    return ts__dims_str(ts_shape_dims(s), s->ndim, buf, cap);
}
