/*
 * read.c - ts_array_read: elements [start, start + count) in flat C order,
 * converted to double, int64, uint64 or complex128 pairs; ts_array_read_raw:
 * the same elements as the bytes they are stored as.
 */
#include "values.h"

#include <stdlib.h>

typedef struct reader {
    const ts__data *d;
    ts_dtype as;
    int raw;                  /* ts_array_read_raw: bytes as stored */
    unsigned char *out;       /* next output element */
    size_t out_size;          /* bytes per output element */
    /* scatter (deflated, not C order) */
    int64_t start, count;
    ts__sorder so;            /* the next stored element */
    unsigned char *base;      /* output element 0 */
    double tmp[2 * TS__VBLOCK];
} reader;

/* Decodes n elements at p to `dst` in the output type. */
static void convert(reader *R, const unsigned char *p, size_t n, unsigned char *dst)
{
    const ts__decoder *dec = &R->d->dec;
    if (R->raw) {
        memcpy(dst, p, n * (size_t)dec->elem_bytes);
    } else if (R->as == TS_DTYPE_INT64) {
        dec->to_i64(p, n, (int64_t *)(void *)dst);
    } else if (R->as == TS_DTYPE_UINT64) {
        dec->to_u64(p, n, (uint64_t *)(void *)dst);
    } else if (R->as != TS_DTYPE_COMPLEX128 || dec->kind == TS_VALUE_COMPLEX) {
        dec->to_double(p, n, (double *)(void *)dst);
    } else {
        double *o = (double *)(void *)dst;
        dec->to_double(p, n, R->tmp);
        for (size_t i = n; i-- > 0;) {
            o[2 * i] = R->tmp[i];
            o[2 * i + 1] = 0;
        }
    }
}

/* Sink for runs in flat order. */
static ts_status put(void *ctx, const unsigned char *p, int64_t n, ts_error *err)
{
    reader *R = ctx;
    const int64_t eb = R->d->dec.elem_bytes;
    (void)err;
    while (n > 0) {
        size_t k = n > TS__VBLOCK ? TS__VBLOCK : (size_t)n;
        convert(R, p, k, R->out);
        R->out += k * R->out_size;
        p += (int64_t)k * eb;
        n -= (int64_t)k;
    }
    return TS_OK;
}

/* Sink for stored order != flat order (deflated Fortran order): each stored
 * element goes to its flat index when it is in the range. */
static ts_status scatter(void *ctx, const unsigned char *p, int64_t n, ts_error *err)
{
    reader *R = ctx;
    const int64_t eb = R->d->dec.elem_bytes;
    (void)err;
    for (int64_t i = 0; i < n; i++, p += eb) {
        int64_t rel = R->so.flat - R->start;
        if (rel >= 0 && rel < R->count)
            convert(R, p, 1, R->base + (size_t)rel * R->out_size);
        ts__sorder_next(&R->so);
    }
    return TS_OK;
}

typedef struct guarded {
    reader *R;
    int64_t start, count;
} guarded;

static ts_status read_stored(void *arg, ts_error *err)
{
    guarded *g = arg;
    const ts__data *d = g->R->d;
    if (d->c_order)
        return ts__data_runs(d, g->start, g->count, put, g->R, err);
    return ts__data_walk_view(d, g->start, g->count, put, g->R, err);
}

/* Raw block types: whole blocks [start, start + count) copied. */
static ts_status copy_blocks(void *arg, ts_error *err)
{
    guarded *g = arg;
    reader *R = g->R;
    const ts__decoder *dec = &R->d->dec;
    const int64_t b = dec->block, step = 4096;
    for (int64_t i = g->start; i < g->start + g->count; i += step * b) {
        int64_t n = g->start + g->count - i < step * b ? g->start + g->count - i : step * b;
        ts_status st = ts__data_need(R->d, i, n, err);
        if (st)
            return st;
        size_t bytes = (size_t)(n / b * dec->block_bytes);
        memcpy(R->out, ts__data_at(R->d, i), bytes);
        ts__data_forget(R->d, i, n);
        R->out += bytes;
    }
    return TS_OK;
}

static ts_status read_blocks(void *arg, ts_error *err)
{
    guarded *g = arg;
    reader *R = g->R;
    const ts__decoder *dec = &R->d->dec;
    int64_t b = dec->block, i = g->start, end = g->start + g->count;
    while (i < end) {
        int64_t blk = i / b, in = i - blk * b, k = b - in;
        if (k > end - i)
            k = end - i;
        ts_status st = ts__data_need(R->d, blk * b, b, err);
        if (st)
            return st;
        dec->to_double(ts__data_at(R->d, blk * b), (size_t)b, R->tmp);
        for (int64_t j = 0; j < k; j++) {
            double v = R->tmp[in + j];
            if (R->as == TS_DTYPE_COMPLEX128) {
                double c[2] = {v, 0};
                memcpy(R->out, c, sizeof c);
            } else {
                memcpy(R->out, &v, sizeof v);
            }
            R->out += R->out_size;
        }
        i += k;
    }
    return TS_OK;
}

/* Reads with R (as, raw set) from the opened data d. */
static ts_status read_with(reader *R, const ts__data *d, int64_t start, int64_t count,
                           ts_error *err)
{
    R->d = d;
    R->out = R->base;
    R->start = start;
    R->count = count;
    guarded g = {R, start, count};
    if (d->dec.block > 1)
        return ts__data_guard(d, R->raw ? copy_blocks : read_blocks, &g, err);
    if (!d->src)
        return ts__data_guard(d, read_stored, &g, err);
    if (d->c_order)
        return ts__data_stream(d, start, count, put, R, err);
    /* Stored order: dims by increasing stride; flat index via C strides. */
    ts__sorder_init(&R->so, &d->lay);
    return ts__data_stream(d, 0, d->count, scatter, R, err);
}

/* The checks both reads share, once d is open. */
static ts_status check_range(const ts__data *d, const ts_array *a, int64_t start, int64_t count,
                             ts_error *err)
{
    if (d->implicit_zeros > 0 || a->storage != TS_STORAGE_DENSE)
        return ts__values_fail(a, err, ts__error(err, TS_ERR_UNSUPPORTED,
                                                 "elements of sparse storage cannot be read "
                                                 "by index"));
    if (start < 0 || count < 0 || start > a->size || count > a->size - start)
        return ts__values_fail(a, err, ts__error(err, TS_ERR_INDEX,
                                                 "elements %lld..%lld are out of range for "
                                                 "%lld elements", (long long)start,
                                                 (long long)start + count, (long long)a->size));
    return TS_OK;
}

ts_status ts_array_read(const ts_file *f, const ts_array *a, int64_t start, int64_t count,
                        ts_dtype as, void *out, ts_error *err)
{
    ts__ok(err);
    TS__ARG_NONNULL(err, f);
    TS__ARG_NONNULL(err, a);
    if (!out && count > 0)
        return ts__bad_arg(err, __func__, "out is NULL but count is %lld", (long long)count);
    if (as != TS_DTYPE_FLOAT64 && as != TS_DTYPE_INT64 && as != TS_DTYPE_UINT64 &&
        as != TS_DTYPE_COMPLEX128)
        return ts__bad_arg(err, __func__, "as is %d (%s), not float64, int64, uint64 or "
                           "complex128", (int)as, ts_dtype_name(as));
    ts__data d;
    ts_status st = ts__data_open(&d, f, a, err);
    if (st)
        return st;
    ts_value_kind k = d.dec.kind;
    int fits = (as == TS_DTYPE_FLOAT64 && k != TS_VALUE_COMPLEX) ||
               (as == TS_DTYPE_INT64 && (k == TS_VALUE_INT || k == TS_VALUE_BOOL)) ||
               (as == TS_DTYPE_UINT64 && (k == TS_VALUE_UINT || k == TS_VALUE_BOOL)) ||
               as == TS_DTYPE_COMPLEX128;
    if (!fits)
        return ts__values_fail(a, err, ts__error(err, TS_ERR_DTYPE,
                                                 "values of dtype %s cannot be read as %s",
                                                 a->dtype_name, ts_dtype_name(as)));
    if ((st = check_range(&d, a, start, count, err)) || count == 0)
        return st;
    reader *R = malloc(sizeof *R);
    if (!R)
        return ts__values_fail(a, err, ts__error(err, TS_ERR_NOMEM, "out of memory"));
    memset(R, 0, offsetof(reader, tmp));
    R->as = as;
    R->base = out;
    R->out_size = as == TS_DTYPE_COMPLEX128 ? 16 : 8;
    st = read_with(R, &d, start, count, err);
    free(R);
    return st;
}

ts_status ts_array_read_raw(const ts_file *f, const ts_array *a, int64_t start, int64_t count,
                            void *out, ts_error *err)
{
    ts__ok(err);
    TS__ARG_NONNULL(err, f);
    TS__ARG_NONNULL(err, a);
    if (!out && count > 0)
        return ts__bad_arg(err, __func__, "out is NULL but count is %lld", (long long)count);
    ts__data d;
    ts_status st = ts__data_open_raw(&d, f, a, err);
    if (st || (st = check_range(&d, a, start, count, err)))
        return st;
    if (d.dec.block > 1 && (start % d.dec.block != 0 || count % d.dec.block != 0))
        return ts__values_fail(a, err, ts__error(err, TS_ERR_INDEX,
                                                 "elements %lld..%lld are not whole blocks of "
                                                 "%lld", (long long)start,
                                                 (long long)start + count,
                                                 (long long)d.dec.block));
    if (count == 0)
        return TS_OK;
    reader *R = malloc(sizeof *R);
    if (!R)
        return ts__values_fail(a, err, ts__error(err, TS_ERR_NOMEM, "out of memory"));
    memset(R, 0, offsetof(reader, tmp));
    R->raw = 1;
    R->base = out;
    R->out_size = (size_t)d.dec.elem_bytes;
    st = read_with(R, &d, start, count, err);
    free(R);
    return st;
}
