/*
 * fuzz_file.h - the body of the fuzz_file_<format> harnesses: open the input
 * as an in-memory file of one format (or auto-detected), then read every
 * field of every array and metadata entry, and check what the reader
 * promises: data inside the file, sizes consistent, strings terminated, one-
 * line errors. Each array also goes through ts_array_to_dlpack and back,
 * and its values through ts_array_read and ts_array_stats, and (up to 64
 * Ki elements) ts_array_compare and ts_array_metrics against themselves.
 */
#ifndef TSHAPE_FUZZ_FILE_H
#define TSHAPE_FUZZ_FILE_H

/* Uses functions of the experimental part of tshape.h, and the library's
 * internal sparse source (every byte read must have been asked for). */
#define TS_EXPERIMENTAL_API
#include "fuzz.h"
#include "../src/formats/reader.h"

static size_t fuzz_sink; /* keeps the reads of strings alive */

/* Arrays of up to 64 Ki elements compared with themselves (ts_array_compare
 * reads every value wherever it is stored): every element is close but NaN
 * (no equal_nan), the maxima are 0 (NaN with a NaN), and a failure names
 * the array it is about. */
static void fuzz_check_compare(const ts_file *f, const ts_array *a)
{
    ts_error err;
    ts_compare c;
    ts_compare_options o = TS_COMPARE_OPTIONS_INIT;
    o.nthreads = 1;
    if (a->size > (1 << 16))
        return;
    ts_status st = ts_array_compare(f, a, f, a, &o, &c, &err);
    if (st != TS_OK) {
        fuzz_check_error(st, &err);
        FUZZ_CHECK(err.index == 0 || err.index == 1);
        return;
    }
    FUZZ_CHECK(c.count == a->size && c.nan_a == c.nan_b && c.notclose == c.nan_a);
    FUZZ_CHECK((c.first < 0) == (c.notclose == 0) && c.first < a->size);
    /* NumPy's maxima: NaN when a pair holds a NaN (tshape.h, ts_compare) */
    if (c.nan_a > 0)
        FUZZ_CHECK(c.max_abs != c.max_abs && c.max_rel != c.max_rel);
    else
        FUZZ_CHECK(c.max_abs == 0 && c.max_rel == 0);
}

/* The same arrays' error metrics against themselves (ts_array_metrics:
 * the float and the double kernels): every pair without a NaN is equal. */
static void fuzz_check_metrics(const ts_file *f, const ts_array *a)
{
    ts_error err;
    ts_metrics m;
    ts_metrics_options o = TS_METRICS_OPTIONS_INIT;
    o.nthreads = 1;
    if (a->size > (1 << 16))
        return;
    ts_status st = ts_array_metrics(f, a, f, a, &o, &m, &err);
    if (st != TS_OK) {
        fuzz_check_error(st, &err);
        FUZZ_CHECK(err.index == 0 || err.index == 1 || st == TS_ERR_DTYPE);
        return;
    }
    FUZZ_CHECK(m.count == a->size && m.nan >= 0 && m.nan <= m.count && m.sq_err == 0);
    FUZZ_CHECK(m.nan == m.count ? m.max_abs != m.max_abs : m.max_abs == 0);
}

static void fuzz_check_array(const ts_array *a, size_t len)
{
    ts_error err;
    FUZZ_CHECK(a->name && a->dtype_name && a->format_dtype);
    fuzz_sink += strlen(a->name) + strlen(a->dtype_name) + strlen(a->format_dtype);
    if (a->note)
        fuzz_sink += strlen(a->note);
    int n = ts_shape_ndim(&a->shape);
    FUZZ_CHECK(n >= 0 && n <= TS_MAX_NDIM);
    char *text = fuzz_format(&a->shape, 0);
    free(text);
    text = fuzz_format(&a->storage_shape, 0);
    free(text);
    FUZZ_CHECK(a->byteorder == '<' || a->byteorder == '>' || a->byteorder == '|' ||
               a->byteorder == '=');
    FUZZ_CHECK(a->size >= 0);
    FUZZ_CHECK(a->itemsize >= 0 && a->bits >= 0 && a->block_size >= 1 && a->block_bytes >= 0);
    /* the element count is the product of the dims (dense arrays; not MXNet's
     * "none" arrays, reported as shape () with dtype unknown and size 0) */
    int64_t size;
    if (a->storage == TS_STORAGE_DENSE && a->dtype != TS_DTYPE_UNKNOWN &&
        ts_shape_size(&a->shape, &size, &err) == TS_OK)
        FUZZ_CHECK(size == a->size);
    /* addressable data lies inside the file */
    if (a->data_offset >= 0) {
        FUZZ_CHECK((uint64_t)a->data_offset <= len);
        if (a->nbytes >= 0)
            FUZZ_CHECK((uint64_t)a->nbytes <= len - (uint64_t)a->data_offset);
    }
    /* DLPack description and back: either works or fails cleanly */
    int64_t shape[TS_MAX_NDIM], strides[TS_MAX_NDIM];
    ts_dlpack_tensor t;
    ts_status st = ts_array_to_dlpack(a, shape, strides, &t, &err);
    if (st == TS_OK) {
        FUZZ_CHECK(t.ndim == n && t.byte_offset == (uint64_t)a->data_offset);
        ts_blob b;
        st = ts_blob_from_dlpack(&t, &b, &err);
        if (st == TS_OK)
            FUZZ_CHECK(ts_shape_equal(&b.shape, &a->shape));
        else
            fuzz_check_error(st, &err);
        ts_blob_free(&b);
    } else {
        fuzz_check_error(st, &err);
    }
}

/* The values: the first and last few elements through ts_array_read, and
 * the statistics of small arrays (bounded so one input stays fast). Either
 * works or fails with a one-line error. */
static void fuzz_check_values(const ts_file *f, const ts_array *a)
{
    if (ts_array_value_kind(a) == TS_VALUE_NONE)
        return;
    double buf[2 * 64];
    ts_error err;
    int64_t n = a->size < 64 ? a->size : 64;
    ts_status st = ts_array_read(f, a, 0, n, TS_DTYPE_COMPLEX128, buf, &err);
    if (st != TS_OK) {
        fuzz_check_error(st, &err);
        return;
    }
    st = ts_array_read(f, a, a->size - n, n, TS_DTYPE_COMPLEX128, buf, &err);
    if (st != TS_OK)
        fuzz_check_error(st, &err);
    if (a->size <= (1 << 16)) {
        ts_stats_options o = TS_STATS_OPTIONS_INIT;
        o.nthreads = 1;
        ts_stats s;
        st = ts_array_stats(f, a, &o, &s, &err);
        if (st != TS_OK)
            fuzz_check_error(st, &err);
        else
            FUZZ_CHECK(s.count == a->size && s.nan + s.posinf + s.neginf + s.finite <= s.count);
    }
}

static void fuzz_file(const uint8_t *data, size_t size, ts_format format,
                      int stored_order)
{
    ts_open_options opts = TS_OPEN_OPTIONS_INIT;
    opts.format = format;
    opts.want_metadata = 1;
    opts.gguf_stored_order = stored_order;
    /* tensors without data too (TFLite activations), for odd sizes */
    opts.want_activations = (int)(size & 1);
    ts_file *f = (ts_file *)1;
    ts_error err;
    ts_status st = ts_file_open_memory(data, size, &opts, &f, &err);
    if (st != TS_OK) {
        fuzz_check_error(st, &err);
        FUZZ_CHECK(f == NULL);
        /* a strict sparse source fails the same way */
        ts_file *g = NULL;
        ts_error e2;
        FUZZ_CHECK(ts__file_open_memory_sparse(data, size, &opts, &g, &e2) == st);
        FUZZ_CHECK(ts__unfetched_faults == 0);
        FUZZ_CHECK(strcmp(err.message, e2.message) == 0);
        return;
    }
    FUZZ_CHECK(f != NULL);
    if (format != TS_FORMAT_AUTO)
        FUZZ_CHECK(ts_file_format(f) == format);
    FUZZ_CHECK(ts_file_version(f) != NULL);
    fuzz_sink += strlen(ts_file_version(f));
    FUZZ_CHECK(ts_file_nbytes(f) == (int64_t)size);
    size_t count = ts_file_count(f);
    for (size_t i = 0; i < count; i++) {
        const ts_array *a = ts_file_array(f, i);
        FUZZ_CHECK(a != NULL);
        fuzz_check_array(a, size);
        fuzz_check_values(f, a);
    }
    FUZZ_CHECK(ts_file_array(f, count) == NULL);
    size_t nmeta = ts_file_metadata_count(f);
    for (size_t i = 0; i < nmeta; i++) {
        const char *key = NULL, *value = NULL;
        FUZZ_CHECK(ts_file_metadata(f, i, &key, &value) == 1);
        FUZZ_CHECK(key && value);
        fuzz_sink += strlen(key) + strlen(value);
    }
    for (size_t i = 0; i < count; i++) {
        fuzz_check_compare(f, ts_file_array(f, i));
        fuzz_check_metrics(f, ts_file_array(f, i));
    }
    /* The same through a strict sparse source, as a remote file is read:
     * the same result, and no byte read that was not asked for. */
    ts_file *g = NULL;
    ts_status sg = ts__file_open_memory_sparse(data, size, &opts, &g, &err);
    FUZZ_CHECK(ts__unfetched_faults == 0);
    FUZZ_CHECK(sg == TS_OK);
    FUZZ_CHECK(ts_file_count(g) == count);
    for (size_t i = 0; i < count; i++) {
        fuzz_check_values(g, ts_file_array(g, i));
        fuzz_check_compare(g, ts_file_array(g, i));
        fuzz_check_metrics(g, ts_file_array(g, i));
    }
    FUZZ_CHECK(ts__unfetched_faults == 0);
    ts_file_close(g);
    ts_file_close(f);
}

#endif
