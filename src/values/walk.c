/*
 * walk.c - where an array's elements are and how to visit them: stored at
 * data_offset in the file's image, or inside a deflated zip member; dense in
 * C or Fortran order, or a strided view of a storage.
 *
 * Every access to the image happens under ts__guarded_parse, so a file that
 * shrinks while it is read is an error, not a SIGBUS. Memory (zlib state,
 * buffers) is allocated outside the guarded call and freed after it, so a
 * jump out of it leaks nothing.
 */
#include "values.h"
#include "../formats/protobuf.h"

#include <stdlib.h>
#include "../core/zlib_lazy.h"

/* Inflated bytes per step of a deflated member. */
#define INFLATE_BUF (256 * 1024)

ts_status ts__values_fail(const ts_array *a, ts_error *err, ts_status code)
{
    char shown[96];
    ts__error_prefix(err, "array '%s'", ts__printable_str(a->name ? a->name : "", shown,
                                                          sizeof shown));
    return code;
}

/* Bytes of n elements starting at element `first` (block types: whole blocks). */
static int64_t elem_bytes_of(const ts__decoder *dec, int64_t n)
{
    return dec->block > 1 ? n / dec->block * dec->block_bytes : n * dec->elem_bytes;
}

/* 1 when the elements with these dims and strides (size-1 dims ignored)
 * cover exactly `count` consecutive storage elements. */
static int one_run(const ts__layout *l, int64_t count)
{
    int64_t dims[TS_MAX_NDIM], strides[TS_MAX_NDIM];
    int n = 0;
    for (int k = 0; k < l->ndim; k++)
        if (l->shape[k] != 1) {
            dims[n] = l->shape[k];
            strides[n++] = l->strides[k];
        }
    /* insertion sort by stride */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && strides[j - 1] > strides[j]; j--) {
            int64_t t = strides[j]; strides[j] = strides[j - 1]; strides[j - 1] = t;
            t = dims[j]; dims[j] = dims[j - 1]; dims[j - 1] = t;
        }
    int64_t expect = 1;
    for (int i = 0; i < n; i++) {
        if (strides[i] != expect)
            return 0;
        expect *= dims[i];
    }
    return expect == count;
}

static ts_status open_layout(ts__data *d, const ts_file *f, const ts_array *a, ts_error *err);

ts_status ts__data_open(ts__data *d, const ts_file *f, const ts_array *a, ts_error *err)
{
    memset(d, 0, sizeof *d);
    d->a = a;
    ts_status st = ts__decoder_for(a, &d->dec, err);
    if (st)
        return ts__values_fail(a, err, st);
    return open_layout(d, f, a, err);
}

ts_status ts__data_open_raw(ts__data *d, const ts_file *f, const ts_array *a, ts_error *err)
{
    memset(d, 0, sizeof *d);
    d->a = a;
    ts_status st = ts__decoder_raw(a, &d->dec, err);
    if (st)
        return ts__values_fail(a, err, st);
    return open_layout(d, f, a, err);
}

/* The rest of ts__data_open, with d->dec filled. */
static ts_status open_layout(ts__data *d, const ts_file *f, const ts_array *a, ts_error *err)
{
    ts_status st;
    d->image = ts__file_image(f, &d->image_len);
    d->source = ts__file_source(f);
    d->whole = ts__source_is_whole(d->source);
    d->src = ts__file_data_src(f, a);
    /* ONNX external data, TF.js shards and TF checkpoint shards: data_offset (or storage_start)
     * counts in the side file or chain of shards, whose byte source
     * replaces the model's (side.c opens it once). A model read from memory
     * has no folder to find it in. */
    if (d->src && d->src->side) {
        if ((st = ts__side_source(f, d->src->side, &d->source, err)))
            return ts__values_fail(a, err, st);
        uint64_t size;
        d->image = ts__source_image(d->source, &size);
        d->image_len = (size_t)size;
        d->whole = ts__source_is_whole(d->source);
        d->side = 1;
    } else if (ts_file_format(f) == TS_FORMAT_COREML && a->storage_key) {
        /* coreml.c: a blob whose weight file was not found beside the
         * model, or not looked for (read from memory) */
        return ts__values_fail(a, err, ts__error(err, TS_ERR_UNSUPPORTED,
                                                 "its data is in the weight file '%s', which "
                                                 "is not beside the model (or the model was "
                                                 "read from memory)", a->storage_key));
    } else if (a->storage_key && ts_format_info_of(ts_file_format(f))->side_files) {
        return ts__values_fail(a, err, ts__error(err, TS_ERR_UNSUPPORTED,
                                                 "its data is in the external file '%s', "
                                                 "which is not read here (the model was "
                                                 "read from memory)", a->storage_key));
    }
    int64_t storage_nbytes = d->src ? d->src->storage_nbytes : 0;
    /* A view of a storage (PyTorch): elements count from the storage's
     * start. Otherwise from the first element, at data_offset. */
    int has_storage = d->src && d->src->has_storage;
    d->base = has_storage && d->src->kind == TS__SRC_STORED ? d->src->storage_start
                                                            : a->data_offset;
    d->skip = d->src ? d->src->skip : 0;
    if (d->src && d->src->kind == TS__SRC_STORED)
        d->src = NULL;
    if (!d->src && d->base < 0 && a->size != 0) /* no elements: no data to find */
        return ts__values_fail(a, err, ts__error(err, TS_ERR_UNSUPPORTED,
                                                 "its data is not stored in the file as is%s%s",
                                                 a->note ? ": " : "", a->note ? a->note : ""));
    if (d->src && d->src->kind != TS__SRC_DEFLATE && d->src->kind != TS__SRC_PROTO &&
        d->src->kind != TS__SRC_HDF5 && d->src->kind != TS__SRC_ZARR)
        return ts__values_fail(a, err, ts__error(err, TS_ERR_UNSUPPORTED,
                                                 "unknown data source %d", (int)d->src->kind));
    const int64_t eb = d->dec.elem_bytes;

    if (a->storage != TS_STORAGE_DENSE) {
        /* MXNet sparse: the stored values are one run, the rest zeros. */
        int64_t stored;
        if ((st = ts_shape_size(&a->storage_shape, &stored, err)))
            return ts__values_fail(a, err, st);
        if (stored > a->size)
            return ts__values_fail(a, err, ts__error(err, TS_ERR_FORMAT,
                                   "%lld stored values for %lld elements",
                                   (long long)stored, (long long)a->size));
        d->count = stored;
        d->implicit_zeros = a->size - stored;
        d->contiguous = 1;
        d->lay.ndim = 1;
        d->lay.shape[0] = stored;
        d->lay.strides[0] = 1;
    } else {
        d->count = a->size;
        int nd = ts_shape_ndim(&a->shape);
        const int64_t *dims = ts_shape_dims(&a->shape);
        d->lay.ndim = nd;
        d->lay.offset = has_storage ? a->storage_offset : 0;
        int given = ts_shape_ndim(&a->strides) == nd && d->dec.block == 1;
        int64_t s = 1;
        for (int k = nd - 1; k >= 0; k--) {
            d->lay.shape[k] = dims[k];
            d->lay.strides[k] = given ? ts_shape_dims(&a->strides)[k] : s;
            /* C strides; with a 0 dim (size 0) the other dims may
             * multiply past int64: nothing is read then. */
            if (ts__mul_overflow(s, dims[k] > 0 ? dims[k] : 1, &s))
                s = 0;
        }
        if (d->dec.block > 1)
            d->lay.offset = 0;
        if (d->count > 0 && given && !ts_is_c_contiguous(&a->shape, ts_shape_dims(&a->strides), 1)) {
            /* A Fortran-order array, or a view. */
            for (int k = 0; k < nd; k++)
                if (d->lay.strides[k] < 0)
                    return ts__values_fail(a, err, ts__error(err, TS_ERR_LAYOUT,
                                           "negative stride %lld on axis %d",
                                           (long long)d->lay.strides[k], k));
        }
    }
    if (d->lay.offset < 0)
        return ts__values_fail(a, err, ts__error(err, TS_ERR_LAYOUT,
                                                 "negative storage offset %lld",
                                                 (long long)d->lay.offset));
    d->c_order = 1;
    if (d->count == 0) {
        d->contiguous = 1;
        return TS_OK;
    }
    /* From here every dim is positive and their product, count, fits. */
    int64_t cs = 1;
    for (int k = d->lay.ndim - 1; k >= 0; k--) {
        if (d->lay.shape[k] != 1 && d->lay.strides[k] != cs)
            d->c_order = 0;
        cs *= d->lay.shape[k];
    }
    d->contiguous = one_run(&d->lay, d->count);

    /* The last storage element the array touches must lie in its storage. */
    int64_t last = d->lay.offset;
    for (int k = 0; k < d->lay.ndim; k++) {
        int64_t t;
        if (ts__mul_overflow(d->lay.shape[k] - 1, d->lay.strides[k], &t) ||
            ts__add_overflow(last, t, &last))
            return ts__values_fail(a, err, ts__error(err, TS_ERR_OVERFLOW,
                                                     "the view's extent does not fit in 64 bits"));
    }
    int64_t need_elems = last + 1, need;
    if (d->dec.block > 1 ? (need_elems % d->dec.block != 0 ||
                            ts__mul_overflow(need_elems / d->dec.block, d->dec.block_bytes, &need))
                         : ts__mul_overflow(need_elems, eb, &need))
        return ts__values_fail(a, err, ts__error(err, TS_ERR_OVERFLOW,
                                                 "the data's byte size does not fit in 64 bits"));
    int64_t avail;
    const char *what;
    if (d->src) {
        avail = d->src->size - d->src->skip;
        what = d->src->kind == TS__SRC_PROTO  ? "its typed field holds"
               : d->src->kind == TS__SRC_HDF5 ? "its HDF5 dataset holds"
               : d->src->kind == TS__SRC_ZARR ? "its Zarr chunks hold"
                                              : "its deflated member holds";
        if (!d->contiguous)
            return ts__values_fail(a, err, ts__error(err, TS_ERR_UNSUPPORTED,
                                   "a strided view of a deflated member cannot be read"));
    } else {
        avail = (int64_t)d->image_len - d->base;
        what = d->side ? "its external data file holds" : "the file holds";
        if ((storage_nbytes > 0 || has_storage) && storage_nbytes < avail) {
            avail = storage_nbytes;
            what = "its storage holds";
        }
    }
    if (need > avail) {
        int view = (a->storage_key && !d->side) || a->storage_offset != 0 || !d->contiguous;
        return ts__values_fail(a, err, ts__fail(err, TS_ERR_TRUNCATED, 0,
                               d->src ? d->src->comp_offset : a->data_offset,
                               view ? "the view reaches storage element %lld, %lld bytes, but "
                                      "%s %lld bytes from data offset %lld"
                                    : "the data needs %lld elements, %lld bytes, but "
                                      "%s %lld bytes from data offset %lld",
                               (long long)need_elems, (long long)need, what, (long long)avail,
                               (long long)(d->src ? d->src->skip : d->base)));
    }
    return TS_OK;
}

const unsigned char *ts__data_at(const ts__data *d, int64_t first)
{
    int64_t e = d->lay.offset + first;
    return d->image + d->base + elem_bytes_of(&d->dec, e);
}

ts_status ts__data_guard(const ts__data *d, ts__parse_fn fn, void *arg, ts_error *err)
{
    const void *lo, *hi;
    ts__source_sparse_range(d->source, &lo, &hi);
    if (lo)
        return ts__guarded_sparse(lo, hi, fn, arg, err);
    if (d->image_len == 0)
        return fn(arg, err);
    ts_status st = ts__guarded_parse(d->image, d->image_len, fn, arg, err);
    if (st == TS_ERR_IO)
        ts__values_fail(d->a, err, st);
    return st;
}

/* Bytes of a sparse source's stored data asked for per run: a few MiB, a
 * whole number of elements or blocks. */
#define RUN_BYTES ((int64_t)256 << 10)
/* Bytes of a whole (mapped) image handed on per step. */
#define MAP_STEP_BYTES ((int64_t)4 << 20)

ts_status ts__data_need(const ts__data *d, int64_t first, int64_t n, ts_error *err)
{
    if (d->whole || n <= 0)
        return TS_OK;
    int64_t at = d->base + elem_bytes_of(&d->dec, d->lay.offset + first);
    ts_status st = ts__source_need(d->source, (uint64_t)at,
                                   (uint64_t)elem_bytes_of(&d->dec, n), err);
    return st ? ts__values_fail(d->a, err, st) : TS_OK;
}

void ts__data_forget(const ts__data *d, int64_t first, int64_t n)
{
    if (d->whole || n <= 0)
        return;
    int64_t at = d->base + elem_bytes_of(&d->dec, d->lay.offset + first);
    ts__source_forget(d->source, (uint64_t)at, (uint64_t)elem_bytes_of(&d->dec, n));
}

void ts__data_populate(const ts__data *d, int64_t first, int64_t n)
{
    if (n <= 0)
        return;
    int64_t at = d->base + elem_bytes_of(&d->dec, d->lay.offset + first);
    ts__source_populate(d->source, (uint64_t)at, (uint64_t)elem_bytes_of(&d->dec, n));
}

void ts__data_release(const ts__data *d, int64_t first, int64_t n)
{
    if (n <= 0)
        return;
    int64_t at = d->base + elem_bytes_of(&d->dec, d->lay.offset + first);
    ts__source_release(d->source, (uint64_t)at, (uint64_t)elem_bytes_of(&d->dec, n));
}

const unsigned char *ts__data_fetch(const ts__data *d, int64_t first, int64_t n,
                                    unsigned char *buf, ts_error *err)
{
    if (d->whole)
        return ts__data_at(d, first);
    int64_t at = d->base + elem_bytes_of(&d->dec, d->lay.offset + first);
    ts_status st = ts__source_read(d->source, (uint64_t)at, buf,
                                   (size_t)elem_bytes_of(&d->dec, n), err);
    if (st) {
        ts__values_fail(d->a, err, st);
        return NULL;
    }
    return buf;
}

ts_status ts__data_runs(const ts__data *d, int64_t first, int64_t n, ts__sink_fn fn,
                        void *ctx, ts_error *err)
{
    int64_t unit = d->dec.block > 1 ? d->dec.block : 1;
    int64_t unit_bytes = d->dec.block > 1 ? d->dec.block_bytes : d->dec.elem_bytes;
    if (d->whole) {
        /* A whole image: the run where it lies, a few MiB at a time (a
         * mapped file's page table entries made per step, its pages
         * released after; nothing more for an image in memory). */
        int64_t big = unit_bytes > 0 && MAP_STEP_BYTES / unit_bytes > 0
                          ? MAP_STEP_BYTES / unit_bytes * unit : unit;
        ts_status st = TS_OK;
        while (n > 0 && !st) {
            int64_t k = n < big ? n : big;
            ts__data_populate(d, first, k);
            st = fn(ctx, ts__data_at(d, first), k, err);
            ts__data_release(d, first, k);
            first += k;
            n -= k;
        }
        return st;
    }
    /* A sparse source: each step read into a buffer of this call's own
     * (reused, so its pages are not faulted in again), not into the image. */
    int64_t step = unit_bytes > 0 && RUN_BYTES / unit_bytes > 0 ? RUN_BYTES / unit_bytes * unit
                                                                 : unit;
    int64_t most = elem_bytes_of(&d->dec, n < step ? n : step);
    unsigned char *buf = malloc(most > 0 ? (size_t)most : 1);
    if (!buf)
        return ts__values_fail(d->a, err, ts__error(err, TS_ERR_NOMEM, "out of memory"));
    ts_status st = TS_OK;
    while (n > 0 && !st) {
        int64_t k = n < step ? n : step;
        int64_t at = d->base + elem_bytes_of(&d->dec, d->lay.offset + first);
        st = ts__source_read(d->source, (uint64_t)at, buf, (size_t)elem_bytes_of(&d->dec, k),
                             err);
        if (st)
            st = ts__values_fail(d->a, err, st);
        else
            st = fn(ctx, buf, k, err);
        first += k;
        n -= k;
    }
    free(buf);
    return st;
}

/* ---- streaming --------------------------------------------------------------- */

typedef struct stream_job {
    const ts__data *d;
    int64_t first, n;
    ts__sink_fn fn;
    void *ctx;
    z_stream *zs;
    unsigned char *buf;
} stream_job;

static ts_status stored_run(void *arg, ts_error *err)
{
    stream_job *j = arg;
    return ts__data_runs(j->d, j->first, j->n, j->fn, j->ctx, err);
}

/* Compressed bytes given to zlib per step: everything at once from a whole
 * image, a window asked for from a sparse one (dropped once inflated). */
#define INFLATE_IN_SPARSE ((uint64_t)1 << 20)

/* Points zs at the next step of the compressed stream [comp_offset,
 * comp_offset + comp_size), of which in_left bytes are left, asking a
 * sparse source for it and dropping the step before it. */
static ts_status feed_input(const ts__data *d, z_stream *zs, int64_t *in_left, ts_error *err)
{
    const ts__data_src *src = d->src;
    uint64_t at = (uint64_t)(src->comp_offset + (src->comp_size - *in_left));
    uint64_t cap = d->whole ? (uint64_t)1 << 30 : INFLATE_IN_SPARSE;
    uInt step = (uint64_t)*in_left > cap ? (uInt)cap : (uInt)*in_left;
    if (!d->whole) {
        if (at > (uint64_t)src->comp_offset)
            ts__source_forget(d->source, (uint64_t)src->comp_offset,
                              at - (uint64_t)src->comp_offset);
        ts_status st = ts__source_need(d->source, at, step, err);
        if (st)
            return ts__values_fail(d->a, err, st);
    }
    zs->next_in = (Bytef *)(uintptr_t)(d->image + at);
    zs->avail_in = step;
    *in_left -= step;
    return TS_OK;
}

static ts_status inflate_run(void *arg, ts_error *err)
{
    stream_job *j = arg;
    const ts__data *d = j->d;
    const ts__data_src *src = d->src;
    const int64_t eb = d->dec.elem_bytes;
    z_stream *zs = j->zs;
    int64_t in_left = src->comp_size;
    int64_t skip = d->skip + (d->lay.offset + j->first) * eb, want = j->n;
    size_t have = 0;    /* partial element carried at buf[0..have) */
    int64_t inflated = 0;
    /* A read of every element inflates the whole member: check its CRC. */
    int whole_member = j->first == 0 && j->n == d->count;
    uLong crc = crc32(0L, Z_NULL, 0);
    int ended = 0;
    while (want > 0 || (whole_member && !ended)) {
        if (zs->avail_in == 0 && in_left > 0) {
            ts_status st = feed_input(d, zs, &in_left, err);
            if (st)
                return st;
        }
        zs->next_out = j->buf + have;
        zs->avail_out = (uInt)(INFLATE_BUF - have);
        int rc = inflate(zs, Z_NO_FLUSH);
        size_t produced = (size_t)(INFLATE_BUF - have) - zs->avail_out;
        inflated += (int64_t)produced;
        if (rc != Z_OK && rc != Z_STREAM_END && !(rc == Z_BUF_ERROR && produced > 0)) {
            if (rc == Z_BUF_ERROR && zs->avail_in == 0 && in_left == 0)
                break; /* ends early: reported below */
            return ts__values_fail(d->a, err, ts__fail(err, rc == Z_MEM_ERROR ? TS_ERR_NOMEM
                                                                               : TS_ERR_FORMAT,
                                   0, src->comp_offset,
                                   "deflated member at byte %lld fails to inflate after %lld "
                                   "bytes: %s", (long long)src->comp_offset,
                                   (long long)inflated, zs->msg ? zs->msg : "zlib error"));
        }
        unsigned char *p = j->buf + have;
        size_t len = produced;
        if (whole_member)
            crc = crc32(crc, p, (uInt)len);
        if (rc == Z_STREAM_END)
            ended = 1;
        if (want == 0) {
            if (ended || (rc == Z_BUF_ERROR && zs->avail_in == 0 && in_left == 0))
                break;
            continue;
        }
        if (skip > 0) {
            size_t k = (int64_t)len < skip ? len : (size_t)skip;
            p += k;
            len -= k;
            skip -= (int64_t)k;
        }
        unsigned char *q = have ? j->buf : p;
        size_t qlen = (size_t)(p + len - q);
        int64_t whole = (int64_t)(qlen / (size_t)eb);
        if (whole > want)
            whole = want;
        if (whole > 0) {
            ts_status st = j->fn(j->ctx, q, whole, err);
            if (st)
                return st;
            want -= whole;
        }
        size_t used = (size_t)whole * (size_t)eb;
        have = want > 0 ? qlen - used : 0;
        if (have)
            memmove(j->buf, q + used, have);
        if (rc == Z_STREAM_END)
            break;
    }
    if (want == 0 && whole_member && (!ended || inflated != src->size || crc != src->crc32))
        return ts__values_fail(d->a, err, ts__fail(err, TS_ERR_FORMAT, 0, src->comp_offset,
                               "deflated member at byte %lld is corrupt: %s",
                               (long long)src->comp_offset,
                               !ended || inflated != src->size
                               ? "it does not inflate to the size the zip directory gives"
                               : "its CRC-32 differs from the zip directory's"));
    if (want > 0)
        return ts__values_fail(d->a, err, ts__fail(err, TS_ERR_TRUNCATED, 0, src->comp_offset,
                               "deflated member at byte %lld ends after %lld inflated bytes, "
                               "before the %lld data bytes its header declares",
                               (long long)src->comp_offset, (long long)inflated,
                               (long long)(d->count * eb)));
    return TS_OK;
}

ts_status ts__data_stream(const ts__data *d, int64_t first, int64_t n, ts__sink_fn fn,
                          void *ctx, ts_error *err)
{
    stream_job j = {d, first, n, fn, ctx, NULL, NULL};
    if (n <= 0)
        return TS_OK;
    if (!d->src)
        return ts__data_guard(d, stored_run, &j, err);
    if (d->src->kind == TS__SRC_PROTO || d->src->kind == TS__SRC_HDF5 ||
        d->src->kind == TS__SRC_ZARR) {
        /* typed protobuf fields: decoded piece by piece from the start;
         * HDF5: read by hyperslab from `first` on */
        ts__zcursor c;
        ts_status st = ts__zcursor_open(&c, d, err);
        if (st)
            return st;
        c.skip += first * d->dec.elem_bytes;
        st = ts__zcursor_next(&c, n, fn, ctx, err);
        ts__zcursor_close(&c);
        return st;
    }
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    j.buf = malloc(INFLATE_BUF);
    if (!j.buf)
        return ts__values_fail(d->a, err, ts__error(err, TS_ERR_NOMEM, "out of memory"));
    if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) {
        free(j.buf);
        return ts__values_fail(d->a, err, ts__error(err, TS_ERR_NOMEM,
                                                    "cannot start zlib's inflate"));
    }
    j.zs = &zs;
    ts_status st = ts__data_guard(d, inflate_run, &j, err);
    inflateEnd(&zs);
    free(j.buf);
    return st;
}

ts_status ts__data_walk_view(const ts__data *d, int64_t start, int64_t n, ts__sink_fn fn,
                             void *ctx, ts_error *err)
{
    /* Coalesce dims that are contiguous with the next one, drop size 1. */
    int64_t shape[TS_MAX_NDIM], strides[TS_MAX_NDIM], idx[TS_MAX_NDIM];
    int nd = 0;
    for (int k = 0; k < d->lay.ndim; k++) {
        if (d->lay.shape[k] == 1)
            continue;
        if (nd > 0 && strides[nd - 1] == d->lay.shape[k] * d->lay.strides[k]) {
            shape[nd - 1] *= d->lay.shape[k];
            strides[nd - 1] = d->lay.strides[k];
        } else {
            shape[nd] = d->lay.shape[k];
            strides[nd++] = d->lay.strides[k];
        }
    }
    int64_t off = d->lay.offset, rest = start;
    for (int k = nd - 1; k >= 0; k--) {
        idx[k] = rest % shape[k];
        rest /= shape[k];
        off += idx[k] * strides[k];
    }
    const unsigned char *base = d->image + d->base;
    const int64_t eb = d->dec.elem_bytes;
    while (n > 0) {
        int last = nd - 1;
        int64_t run = 1;
        if (nd > 0 && strides[last] == 1) {
            run = shape[last] - idx[last];
            if (run > n)
                run = n;
        }
        /* A sparse image keeps what a view's runs fetched (they come back
         * to the same pages); pages are asked for once. */
        ts_status st = ts__data_need(d, off - d->lay.offset, run, err);
        if (!st)
            st = fn(ctx, base + off * eb, run, err);
        if (st)
            return st;
        n -= run;
        if (nd == 0)
            break;
        idx[last] += run;
        off += run * strides[last];
        for (int k = last; k > 0 && idx[k] == shape[k]; k--) {
            off -= idx[k] * strides[k];
            idx[k] = 0;
            idx[k - 1]++;
            off += strides[k - 1];
        }
    }
    return TS_OK;
}

/* ---- a deflated member read piece by piece ------------------------------------ */

/* ts__hdf5_begin on the HDF5 file the data source names: the file's image,
 * or the part of it (a stored zip member) or the inflated copy (a deflated
 * one) that holds it (reader.h, h5_image_len). */
static ts_status hdf5_begin(const ts__data *d, size_t itemsize, void **state, ts_error *err)
{
    const ts__data_src *s = d->src;
    const unsigned char *image = d->image;
    size_t len = d->image_len;
    if (s->h5_image_len > 0 && s->h5_image) {
        image = s->h5_image;
        len = s->h5_image_len;
    } else if (s->h5_image_len > 0) {
        if (s->h5_image_offset < 0 || (uint64_t)s->h5_image_offset > d->image_len ||
            s->h5_image_len > d->image_len - (size_t)s->h5_image_offset)
            return ts__error(err, TS_ERR_FORMAT, "the HDF5 member lies outside the file");
        ts_status st = ts__source_need(d->source, (uint64_t)s->h5_image_offset,
                                       (uint64_t)s->h5_image_len, err);
        if (st)
            return st;
        image += s->h5_image_offset;
        len = s->h5_image_len;
    }
    return ts__hdf5_begin(s, image, len, itemsize, d->count, state, err);
}

ts_status ts__zcursor_open(ts__zcursor *c, const ts__data *d, ts_error *err)
{
    memset(c, 0, sizeof *c);
    c->d = d;
    c->skip = d->skip + d->lay.offset * d->dec.elem_bytes;
    c->in_left = d->src->comp_size;
    c->crc = crc32(0L, Z_NULL, 0);
    if (d->src->kind == TS__SRC_HDF5 || d->src->kind == TS__SRC_ZARR) {
        c->buf = malloc(INFLATE_BUF);
        if (!c->buf)
            return ts__values_fail(d->a, err, ts__error(err, TS_ERR_NOMEM, "out of memory"));
        ts_status st = d->src->kind == TS__SRC_ZARR
                           ? ts__zarr_begin(d->src, (size_t)d->dec.elem_bytes, d->count,
                                            &c->h5, err)
                           : hdf5_begin(d, (size_t)d->dec.elem_bytes, &c->h5, err);
        if (st) {
            free(c->buf);
            c->buf = NULL;
            return ts__values_fail(d->a, err, st);
        }
        return TS_OK;
    }
    if (d->src->kind == TS__SRC_PROTO) {
        c->buf = malloc(INFLATE_BUF);
        c->pb = calloc(1, sizeof(ts__pb_msg));
        if (!c->buf || !c->pb) {
            free(c->buf);
            free(c->pb);
            c->buf = NULL;
            c->pb = NULL;
            return ts__values_fail(d->a, err, ts__error(err, TS_ERR_NOMEM, "out of memory"));
        }
        ts__pb_msg *m = c->pb;
        ts_status st = ts__source_need(d->source, (uint64_t)d->src->comp_offset,
                                       (uint64_t)d->src->comp_size, err);
        if (st) {
            ts__zcursor_close(c);
            return ts__values_fail(d->a, err, st);
        }
        ts__pb_init(m, d->image, d->image_len);
        m->pos = (size_t)d->src->comp_offset;
        m->end = (size_t)(d->src->comp_offset + d->src->comp_size);
        m->declared_end = m->end;
        m->depth = 1;
        return TS_OK;
    }
    c->buf = malloc(INFLATE_BUF);
    c->zs = calloc(1, sizeof(z_stream));
    if (!c->buf || !c->zs || inflateInit2((z_stream *)c->zs, -MAX_WBITS) != Z_OK) {
        free(c->buf);
        free(c->zs);
        c->buf = NULL;
        c->zs = NULL;
        return ts__values_fail(d->a, err, ts__error(err, TS_ERR_NOMEM,
                                                    "cannot start zlib's inflate"));
    }
    return TS_OK;
}

void ts__zcursor_close(ts__zcursor *c)
{
    free(c->pb);
    c->pb = NULL;
    if (c->h5 && c->d && c->d->src && c->d->src->kind == TS__SRC_ZARR)
        ts__zarr_end(c->h5);
    else
        ts__hdf5_end(c->h5);
    c->h5 = NULL;
    if (c->zs)
        inflateEnd((z_stream *)c->zs);
    free(c->zs);
    free(c->buf);
    c->zs = NULL;
    c->buf = NULL;
}

/* Writes one entry of a typed protobuf field as src->pb_out bytes. */
static void pb_put(const ts__data_src *src, uint64_t v, unsigned char *out)
{
    if (src->pb_bool)
        v = v != 0;
    for (int i = 0; i < src->pb_out; i++)
        out[i] = (unsigned char)(v >> (8 * i));
}

/*
 * Decodes entries of the typed field into buf[have_len, INFLATE_BUF) until
 * it is nearly full or the message ends; returns the bytes produced. The
 * message is walked with the protobuf walker (every length checked against
 * the message); a packed piece is decoded from c->pb_at to c->pb_end.
 */
static ts_status proto_more(ts__zcursor *c, size_t *produced, ts_error *err)
{
    const ts__data *d = c->d;
    const ts__data_src *src = d->src;
    ts__pb_msg *m = c->pb;
    const int out = src->pb_out, fixed = src->pb_fixed;
    unsigned char *p = c->buf + c->have_len, *end = c->buf + INFLATE_BUF;
    while (end - p >= 8) {
        uint64_t v;
        if (c->pb_at < c->pb_end) {
            if (fixed) {
                if (c->pb_end - c->pb_at < (size_t)fixed)
                    return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)c->pb_at,
                                    "packed %s at byte %zu: a partial %d-byte value",
                                    src->pb_what, c->pb_at, fixed);
                memcpy(p, d->image + c->pb_at, (size_t)fixed);  /* little-endian */
                c->pb_at += (size_t)fixed;
                p += fixed;
                continue;
            }
            ts_status st = ts__pb_varint(d->image, &c->pb_at, c->pb_end, &v, src->pb_what, err);
            if (st)
                return st;
            pb_put(src, v, p);
            p += out;
            continue;
        }
        ts__pb_field f;
        int k = ts__pb_next(m, &f, err);
        if (k < 0)
            return m->status;
        if (k == 0) {
            c->ended = 1;
            break;
        }
        if (f.number != src->pb_field)
            continue;
        int want = fixed == 4 ? TS__PB_FIXED32 : fixed == 8 ? TS__PB_FIXED64 : TS__PB_VARINT;
        if (f.wire == TS__PB_LEN) {
            c->pb_at = f.pos;
            c->pb_end = f.pos + f.len;
        } else if (f.wire == want) {
            if (fixed == 4) {
                uint32_t bits = (uint32_t)f.value;
                for (int i = 0; i < 4; i++)
                    p[i] = (unsigned char)(bits >> (8 * i));
            } else if (fixed == 8) {
                for (int i = 0; i < 8; i++)
                    p[i] = (unsigned char)(f.value >> (8 * i));
            } else {
                pb_put(src, f.value, p);
            }
            p += fixed ? fixed : out;
        } else {
            return ts__pb_want(&f, want, src->pb_what, err);
        }
    }
    *produced = (size_t)(p - (c->buf + c->have_len));
    return TS_OK;
}

/* Counts `produced` new bytes at buf[have_len...) as inflated (or decoded)
 * and holds them, less what is still to be skipped (nothing is held while
 * skipping: the data has not started). */
static void take_produced(ts__zcursor *c, size_t produced)
{
    c->inflated += (int64_t)produced;
    if (c->skip > 0) {
        size_t k = (int64_t)produced < c->skip ? produced : (size_t)c->skip;
        c->skip -= (int64_t)k;
        c->have_off = k;
        c->have_len = produced - k;
    } else {
        c->have_len += produced;
    }
}

/* Inflates the next piece after the bytes held (moved to the front). */
static ts_status cursor_more(ts__zcursor *c, ts_error *err)
{
    const ts__data *d = c->d;
    const ts__data_src *src = d->src;
    z_stream *zs = c->zs;
    if (c->have_off) {
        memmove(c->buf, c->buf + c->have_off, c->have_len);
        c->have_off = 0;
    }
    if (c->ended && (src->kind == TS__SRC_HDF5 || src->kind == TS__SRC_ZARR))
        return ts__values_fail(d->a, err, ts__error(err, TS_ERR_TRUNCATED,
                               "the %s has fewer elements than its shape",
                               src->kind == TS__SRC_ZARR ? "Zarr array" : "HDF5 dataset"));
    if (c->ended && src->kind == TS__SRC_PROTO)
        return ts__values_fail(d->a, err, ts__fail(err, TS_ERR_TRUNCATED, 0, src->comp_offset,
                               "%s of the tensor at byte %lld ends after %lld bytes of values, "
                               "before the %lld bytes its shape needs", src->pb_what,
                               (long long)src->comp_offset, (long long)c->inflated,
                               (long long)(d->count * d->dec.elem_bytes)));
    if (c->ended)
        return ts__values_fail(d->a, err, ts__fail(err, TS_ERR_TRUNCATED, 0, src->comp_offset,
                               "deflated member at byte %lld ends after %lld inflated bytes, "
                               "before the %lld data bytes its header declares",
                               (long long)src->comp_offset, (long long)c->inflated,
                               (long long)(d->count * d->dec.elem_bytes)));
    if (src->kind == TS__SRC_HDF5 || src->kind == TS__SRC_ZARR) {
        /* elements before the wanted ones are not read at all */
        const int64_t eb = d->dec.elem_bytes;
        c->h5_next += c->skip / eb;
        c->skip = 0;
        int64_t room = (int64_t)(INFLATE_BUF - c->have_len) / eb, left = d->count - c->h5_next;
        int64_t k = room < left ? room : left;
        if (k <= 0) {
            c->ended = 1;
            return TS_OK;
        }
        ts_status st = src->kind == TS__SRC_ZARR
                           ? ts__zarr_read(c->h5, c->h5_next, k, c->buf + c->have_len, err)
                           : ts__hdf5_read(c->h5, c->h5_next, k, c->buf + c->have_len, err);
        if (st)
            return ts__values_fail(d->a, err, st);
        c->h5_next += k;
        c->have_len += (size_t)(k * eb);
        return TS_OK;
    }
    if (src->kind == TS__SRC_PROTO) {
        size_t produced = 0;
        ts_status st = proto_more(c, &produced, err);
        if (st)
            return ts__values_fail(d->a, err, st);
        take_produced(c, produced);
        return TS_OK;
    }
    if (zs->avail_in == 0 && c->in_left > 0) {
        ts_status st = feed_input(d, zs, &c->in_left, err);
        if (st)
            return st;
    }
    zs->next_out = c->buf + c->have_len;
    zs->avail_out = (uInt)(INFLATE_BUF - c->have_len);
    int rc = inflate(zs, Z_NO_FLUSH);
    size_t produced = (size_t)(INFLATE_BUF - c->have_len) - zs->avail_out;
    if (rc != Z_OK && rc != Z_STREAM_END && !(rc == Z_BUF_ERROR && produced > 0)) {
        if (rc == Z_BUF_ERROR && zs->avail_in == 0 && c->in_left == 0) {
            c->ended = 1;   /* the input ends early: reported on the next call */
            return TS_OK;
        }
        return ts__values_fail(d->a, err, ts__fail(err, rc == Z_MEM_ERROR ? TS_ERR_NOMEM
                                                                           : TS_ERR_FORMAT,
                               0, src->comp_offset,
                               "deflated member at byte %lld fails to inflate after %lld "
                               "bytes: %s", (long long)src->comp_offset,
                               (long long)c->inflated, zs->msg ? zs->msg : "zlib error"));
    }
    if (rc == Z_STREAM_END)
        c->ended = 1;
    unsigned char *p = c->buf + c->have_len;
    c->crc = crc32(c->crc, p, (uInt)produced);
    take_produced(c, produced);
    return TS_OK;
}

typedef struct cursor_job {
    ts__zcursor *c;
    int64_t n;
    ts__sink_fn fn;
    void *ctx;
} cursor_job;

static ts_status cursor_run(void *arg, ts_error *err)
{
    cursor_job *j = arg;
    ts__zcursor *c = j->c;
    const int64_t eb = c->d->dec.elem_bytes;
    while (j->n > 0) {
        int64_t whole = (int64_t)c->have_len / eb;
        if (whole > j->n)
            whole = j->n;
        if (whole == 0) {
            ts_status st = cursor_more(c, err);
            if (st)
                return st;
            continue;
        }
        ts_status st = j->fn(j->ctx, c->buf + c->have_off, whole, err);
        if (st)
            return st;
        c->have_off += (size_t)(whole * eb);
        c->have_len -= (size_t)(whole * eb);
        j->n -= whole;
    }
    return TS_OK;
}

ts_status ts__zcursor_next(ts__zcursor *c, int64_t n, ts__sink_fn fn, void *ctx, ts_error *err)
{
    cursor_job j = {c, n, fn, ctx};
    return ts__data_guard(c->d, cursor_run, &j, err);
}

/* Inflates the rest of the member and checks its size and CRC-32. */
static ts_status cursor_end(void *arg, ts_error *err)
{
    ts__zcursor *c = arg;
    const ts__data_src *src = c->d->src;
    while (!c->ended) {
        c->have_off = c->have_len = 0;
        ts_status st = cursor_more(c, err);
        if (st)
            return st;
    }
    if (c->inflated != src->size || c->crc != src->crc32)
        return ts__values_fail(c->d->a, err, ts__fail(err, TS_ERR_FORMAT, 0, src->comp_offset,
                               "deflated member at byte %lld is corrupt: %s",
                               (long long)src->comp_offset,
                               c->inflated != src->size
                               ? "it does not inflate to the size the zip directory gives"
                               : "its CRC-32 differs from the zip directory's"));
    return TS_OK;
}

ts_status ts__zcursor_finish(ts__zcursor *c, ts_error *err)
{
    if (c->d->src->kind != TS__SRC_DEFLATE)
        return TS_OK;   /* nothing to check at the end */
    return ts__data_guard(c->d, cursor_end, c, err);
}

void ts__sorder_init(ts__sorder *o, const ts__layout *lay)
{
    int nd = lay->ndim, perm[TS_MAX_NDIM];
    int64_t cs[TS_MAX_NDIM], c = 1;
    for (int i = nd - 1; i >= 0; i--) {
        cs[i] = c;
        c *= lay->shape[i];
    }
    for (int i = 0; i < nd; i++)
        perm[i] = i;
    for (int i = 1; i < nd; i++)
        for (int j = i; j > 0 && lay->strides[perm[j - 1]] > lay->strides[perm[j]]; j--) {
            int t = perm[j];
            perm[j] = perm[j - 1];
            perm[j - 1] = t;
        }
    memset(o, 0, sizeof *o);
    o->nd = nd;
    for (int i = 0; i < nd; i++) {
        o->shape[i] = lay->shape[perm[i]];
        o->cstride[i] = cs[perm[i]];
    }
}
