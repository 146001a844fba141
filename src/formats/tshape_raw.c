/*
 * tshape_raw.c - raw TShape::Save binaries: one or more shapes back to back
 * until the end of the file, in one of two layouts (ts_shape_load):
 *
 *   tshape32  mshadow TShape::Save (mshadow/tensor_blob.h, removed 2017):
 *             u32 ndim, u32 dims[ndim]
 *   tshape64  mxnet::TShape::Save (include/mxnet/tuple.h): i32 ndim,
 *             i64 dims[ndim]
 *
 * These files have no magic, so they are never auto-detected (probe NULL);
 * the caller names the format. Each shape becomes one ts_array with no name
 * and no dtype; its data_offset is the offset of the shape record itself.
 */
#include "reader.h"

/* Turns a ts_shape_load failure on the record at byte `at` into a message
 * with absolute offsets. `sub` offsets are relative to the record. */
static ts_status load_error(ts_error *err, const ts_error *sub, ts_shape_layout layout,
                            const unsigned char *rec, size_t left, size_t index, size_t at)
{
    int is32 = layout == TS_LAYOUT_MSHADOW;
    const char *ndim_type = is32 ? "u32" : "i32";
    size_t dim_bytes = is32 ? 4 : 8;
    switch (sub->code) {
    case TS_ERR_TRUNCATED:
        if (left < 4)
            return ts__fail(err, TS_ERR_TRUNCATED, 0, (int64_t)at,
                            "shape %zu at byte %zu: file ends inside the %s ndim: need 4 "
                            "bytes, %zu left", index, at, ndim_type, left);
        return ts__fail(err, TS_ERR_TRUNCATED, 0, (int64_t)(at + 4),
                        "shape %zu at byte %zu: file ends inside the dims: ndim %u needs "
                        "%llu bytes of dims, %zu left", index, at,
                        (unsigned)ts__le32(rec),
                        (unsigned long long)ts__le32(rec) * dim_bytes, left - 4);
    case TS_ERR_LIMIT:
        return ts__fail(err, TS_ERR_LIMIT, 0, (int64_t)at,
                        "shape %zu at byte %zu: ndim %u is above the limit of %d", index,
                        at, (unsigned)ts__le32(rec), TS_MAX_NDIM);
    case TS_ERR_VALUE:
        /* MXNet layout only: a negative ndim (at 0) or a negative dim. */
        if (sub->offset <= 0) {
            int32_t ndim;
            uint32_t raw = ts__le32(rec);
            memcpy(&ndim, &raw, sizeof ndim);
            return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)at,
                            "shape %zu at byte %zu: ndim %d is negative (an unknown "
                            "shape, which TShape::Save never writes)", index, at, (int)ndim);
        } else {
            size_t rel = (size_t)sub->offset;
            uint64_t raw = ts__le64(rec + rel);
            int64_t v;
            memcpy(&v, &raw, sizeof v);
            return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)(at + rel),
                            "shape %zu at byte %zu: dim %zu at byte %zu is negative (%lld)",
                            index, at, (rel - 4) / 8, at + rel, (long long)v);
        }
    case TS_OK: case TS_ERR_NOMEM: case TS_ERR_INVALID_ARG: case TS_ERR_PARSE:
    case TS_ERR_OVERFLOW: case TS_ERR_AXIS: case TS_ERR_NDIM: case TS_ERR_SIZE:
    case TS_ERR_BROADCAST: case TS_ERR_LAYOUT: case TS_ERR_IO: case TS_ERR_FORMAT:
    case TS_ERR_UNSUPPORTED: case TS_ERR_DTYPE: case TS_ERR_INDEX: case TS_ERR_CANCELED:
        break;
    }
    if (err)
        *err = *sub;
    ts__error_entry(err, (int64_t)index, "shape %zu at byte %zu", index, at);
    return sub->code;
}

/* Product of the dims (all >= 0 after ts_shape_load), 0 when any dim is 0
 * even if the others overflow. Returns 1 on overflow. */
static int element_count(const ts_shape *s, int64_t *out)
{
    const int64_t *d = ts_shape_dims(s);
    int64_t p = 1;
    for (int i = 0; i < ts_shape_ndim(s); i++)
        if (d[i] == 0) {
            *out = 0;
            return 0;
        }
    for (int i = 0; i < ts_shape_ndim(s); i++)
        if (ts__mul_overflow(p, d[i], &p))
            return 1;
    *out = p;
    return 0;
}

static ts_status read_raw(ts_file *f, const unsigned char *data, size_t len,
                          const ts_open_options *opts, ts_error *err)
{
    (void)opts;
    ts_shape_layout layout =
        ts_file_format(f) == TS_FORMAT_TSHAPE32 ? TS_LAYOUT_MSHADOW : TS_LAYOUT_MXNET;
    const char *format = layout == TS_LAYOUT_MSHADOW ? "tshape32" : "tshape64";
    if (len == 0)
        return ts__fail(err, TS_ERR_FORMAT, 0, 0,
                        "file is empty: a raw %s file holds at least one shape (%s)",
                        format, layout == TS_LAYOUT_MSHADOW ? "u32 ndim, u32 dims"
                                                            : "i32 ndim, i64 dims");
    ts__file_set_version(f, layout == TS_LAYOUT_MSHADOW ? "u32" : "i64");
    /* The file is nothing but shapes: every byte is read. */
    ts_status st0 = ts__file_need(f, 0, len, err);
    if (st0)
        return st0;
    size_t pos = 0;
    for (size_t index = 0; pos < len; index++) {
        ts_shape s = TS_SHAPE_INIT;
        ts_error sub;
        size_t used = 0;
        ts_status st = ts_shape_load(data + pos, len - pos, layout, &s, &used, &sub);
        if (st) {
            ts_shape_free(&s);
            return load_error(err, &sub, layout, data + pos, len - pos, index, pos);
        }
        int64_t size;
        if (element_count(&s, &size)) {
            char buf[TS__SHAPE_STR_MAX];
            ts__fail(err, TS_ERR_OVERFLOW, 0, (int64_t)pos,
                     "shape %zu at byte %zu: element count of %s does not fit in int64",
                     index, pos, ts__shape_str(&s, buf, sizeof buf));
            ts_shape_free(&s);
            return TS_ERR_OVERFLOW;
        }
        ts_array *a = ts__file_add_array(f, err);
        if (!a) {
            ts_shape_free(&s);
            return ts__file_add_failure(f);
        }
        ts_shape_move(&a->shape, &s);
        a->dtype_name = "none";
        a->size = size;
        a->nbytes = 0;
        a->data_offset = (int64_t)pos;
        pos += used;
    }
    return TS_OK;
}

/* Both layouts share read_raw; it tells them apart by the file's format,
 * which the caller always names since raw files are never auto-detected. */
const ts__reader ts__reader_tshape32 = {
    {TS_FORMAT_TSHAPE32, "tshape32", "", NULL,
     "raw mshadow TShape::Save: u32 ndim, u32 dims", "", 0},
    NULL,
    read_raw,
    0,
};
const ts__reader ts__reader_tshape64 = {
    {TS_FORMAT_TSHAPE64, "tshape64", "", NULL,
     "raw MXNet TShape::Save: i32 ndim, i64 dims", "", 0},
    NULL,
    read_raw,
    0,
};
