/*
 * mxnet.c - reader for MXNet NDArray list files (.params, .nd), the output of
 * mx.nd.save / MXNDArraySave (1.x) / MXNDArrayLegacySave (2.x).
 *
 * Layout (docs/mxnet-format.md section 0; MXNet src/ndarray/ndarray.cc
 * NDArray::Save/Load/LegacyLoad and the list Save; dmlc-core serializer.h):
 *
 *   u64 0x112, u64 reserved, u64 n_arrays, n_arrays records,
 *   u64 n_names (0 or n_arrays), n_names x { u64 len, len bytes }
 *
 * Each record starts with a u32 that is either a magic (V1 0xF993FAC8,
 * V2 0xF993FAC9, V3 0xF993FACA) or, in legacy files, the ndim itself.
 * Records have no length field and the names come after all of them, so the
 * reader walks every record, computing each payload size from the shape and
 * the type flag and skipping it without reading it. The walk is done twice:
 * once to validate everything and find the names, once to fill the arrays
 * with their names (ts_file offers no mutable access to arrays already
 * added, and two header walks cost far less than allocating a name table).
 */
#include "reader.h"

#include <stdio.h>

#define MX_LIST_MAGIC 0x112u
#define MX_V1_MAGIC 0xF993FAC8u
#define MX_V2_MAGIC 0xF993FAC9u
#define MX_V3_MAGIC 0xF993FACAu

enum { MX_LEGACY, MX_V1, MX_V2, MX_V3, MX_NVERSIONS };

/* MXNet's Context::DeviceType names (include/mxnet/base.h). */
static const char *device_name(int32_t dev_type)
{
    switch (dev_type) {
    case 1: return "cpu";
    case 2: return "gpu";
    case 3: return "cpu_pinned";
    case 5: return "cpu_shared";
    default: return "unknown";
    }
}

static const char *const version_names[MX_NVERSIONS] = {"legacy", "V1", "V2", "V3"};

/* The smallest record: a legacy "none" array, a u32 ndim of 0. */
#define MX_MIN_RECORD 4u

typedef struct mx_shape {
    int ndim;
    int64_t dims[TS_MAX_NDIM];
} mx_shape;

/* Everything one record says about its array. */
typedef struct mx_record {
    int version;               /* MX_LEGACY .. MX_V3 */
    size_t offset;             /* byte offset of the record */
    int none;                  /* ndim 0 in legacy/V1/V2: nothing after the shape */
    int32_t stype;             /* 0 dense, 1 row_sparse, 2 csr */
    int naux;                  /* aux arrays: 0, 1 (row_sparse) or 2 (csr) */
    mx_shape storage_shape;    /* sparse only */
    mx_shape shape;
    int32_t dev_type, dev_id;
    ts_dtype dtype;
    int32_t type_flag;
    ts_dtype aux_dtype[2];
    mx_shape aux_shape[2];
    int64_t size;              /* logical element count */
    size_t data_offset;        /* values payload */
    int64_t values_nbytes;
    int64_t aux_nbytes[2];
} mx_record;

/* Fails with "array <index>: <message>" at byte `offset`. */
static ts_status fail_array(ts_error *err, ts_status code, size_t index, size_t offset,
                            const char *fmt, ...) TS__PRINTF(5, 6);
static ts_status fail_array(ts_error *err, ts_status code, size_t index, size_t offset,
                            const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ts__vfail(err, code, 0, (int64_t)offset, fmt, ap);
    va_end(ap);
    ts__error_entry(err, (int64_t)index, "array %zu", index);
    return code;
}

/* Cursor reads whose truncation message names the array. */
static ts_status rd_u32(ts__cursor *c, size_t index, uint32_t *out, const char *what,
                        ts_error *err)
{
    ts_status st = ts__read_u32(c, out, what, err);
    if (st)
        ts__error_entry(err, (int64_t)index, "array %zu", index);
    return st;
}

static ts_status rd_i32(ts__cursor *c, size_t index, int32_t *out, const char *what,
                        ts_error *err)
{
    ts_status st = ts__read_i32(c, out, what, err);
    if (st)
        ts__error_entry(err, (int64_t)index, "array %zu", index);
    return st;
}

/* Names of the aux arrays, in MXNet's aux order (include/mxnet/ndarray.h:
 * csr::kIndPtr = 0, csr::kIdx = 1; rowsparse::kIdx = 0). */
static const char *aux_name(int32_t stype, int i)
{
    if (stype == TS_STORAGE_CSR)
        return i == 0 ? "indptr" : "indices";
    return "indices";
}

static const char *stype_name(int32_t stype)
{
    switch (stype) {
    case TS_STORAGE_DENSE: return "dense";
    case TS_STORAGE_ROW_SPARSE: return "row_sparse";
    case TS_STORAGE_CSR: return "csr";
    default: return "unknown";
    }
}

/*
 * Product of dims with an exact overflow check (a zero dim gives 0 even when
 * the other dims alone would overflow). Dims are already known >= 0.
 * Returns 1 on overflow.
 */
static int dims_product(const mx_shape *s, int64_t *out)
{
    int64_t p = 1;
    for (int i = 0; i < s->ndim; i++)
        if (s->dims[i] == 0) {
            *out = 0;
            return 0;
        }
    for (int i = 0; i < s->ndim; i++)
        if (ts__mul_overflow(p, s->dims[i], &p))
            return 1;
    *out = p;
    return 0;
}

/*
 * Reads a 64-bit TShape (V1/V2/V3: 4-byte ndim, i64 dims) described by
 * `label` ("shape", "storage shape", "indices shape"). nnvm wrote the ndim as
 * u32 and mxnet::TShape as i32; both agree for every ndim a writer can
 * produce, and a negative i32 is an unknown shape, which is never saved.
 */
static ts_status read_shape64(ts__cursor *c, size_t index, const char *label,
                              mx_shape *s, ts_error *err)
{
    char what[96];
    size_t at = c->pos;
    int32_t ndim;
    snprintf(what, sizeof what, "the %s's ndim", label);
    ts_status st = rd_i32(c, index, &ndim, what, err);
    if (st)
        return st;
    if (ndim < 0)
        return fail_array(err, TS_ERR_FORMAT, index, at,
                          "%s ndim %d at byte %zu is negative (an unknown shape, which "
                          "MXNet never saves)", label, (int)ndim, at);
    if (ndim > TS_MAX_NDIM)
        return fail_array(err, TS_ERR_LIMIT, index, at,
                          "%s ndim %d at byte %zu is above the limit of %d", label,
                          (int)ndim, at, TS_MAX_NDIM);
    snprintf(what, sizeof what, "the %s's %d int64 dims", label, (int)ndim);
    st = ts__cursor_need(c, (size_t)ndim * 8, what, err);
    if (st) {
        ts__error_entry(err, (int64_t)index, "array %zu", index);
        return st;
    }
    s->ndim = ndim;
    for (int i = 0; i < ndim; i++) {
        size_t dat = c->pos;
        int64_t v;
        ts__read_i64(c, &v, "dim", err);   /* cannot fail: checked above */
        if (v < 0)
            return fail_array(err, TS_ERR_FORMAT, index, dat,
                              "%s dim %d at byte %zu is negative (%lld)", label, i, dat,
                              (long long)v);
        s->dims[i] = v;
    }
    return TS_OK;
}

/* Reads the i32 type flag at the cursor into a dtype. */
static ts_status read_type_flag(ts__cursor *c, size_t index, const char *label,
                                int32_t *flag, ts_dtype *dt, ts_error *err)
{
    char what[96];
    size_t at = c->pos;
    snprintf(what, sizeof what, "the %s", label);
    ts_status st = rd_i32(c, index, flag, what, err);
    if (st)
        return st;
    if (ts_dtype_from_mshadow_flag(*flag, dt, NULL) != TS_OK)
        return fail_array(err, TS_ERR_DTYPE, index, at,
                          "%s %d at byte %zu is not an MXNet type (0 float32 .. "
                          "12 bfloat16)", label, (int)*flag, at);
    return TS_OK;
}

/* Bytes of a payload: itemsize x prod(shape), overflow-checked. */
static ts_status payload_bytes(const mx_shape *s, ts_dtype dt, size_t index,
                               const char *label, size_t at, int64_t *out, ts_error *err)
{
    int64_t n;
    if (dims_product(s, &n) || ts__mul_overflow(n, ts_dtype_itemsize(dt), out)) {
        char buf[TS__SHAPE_STR_MAX];
        return fail_array(err, TS_ERR_OVERFLOW, index, at,
                          "byte size of the %s, %s x %s, does not fit in int64", label,
                          ts__dims_str(s->dims, s->ndim, buf, sizeof buf),
                          ts_dtype_name(dt));
    }
    return TS_OK;
}

/* Skips a payload of n bytes, naming it if the file ends inside it. */
static ts_status skip_payload(ts__cursor *c, size_t index, const char *label, int64_t n,
                              ts_error *err)
{
    char what[96];
    snprintf(what, sizeof what, "the %s", label);
    ts_status st = ts__skip(c, (uint64_t)n, what, err);
    if (st)
        ts__error_entry(err, (int64_t)index, "array %zu", index);
    return st;
}

/* Reads one record at the cursor into *r and moves past it (payloads
 * included). Every value is checked against the bytes left before use. */
static ts_status read_record(ts__cursor *c, size_t index, mx_record *r, ts_error *err)
{
    ts_status st;
    memset(r, 0, sizeof *r);
    r->offset = c->pos;
    r->dtype = TS_DTYPE_UNKNOWN;
    uint32_t m;
    st = rd_u32(c, index, &m, "the record's magic or legacy ndim", err);
    if (st)
        return st;

    if (m == MX_V2_MAGIC || m == MX_V3_MAGIC) {
        r->version = m == MX_V2_MAGIC ? MX_V2 : MX_V3;
        size_t at = c->pos;
        st = rd_i32(c, index, &r->stype, "the storage type", err);
        if (st)
            return st;
        if (r->stype < TS_STORAGE_DENSE || r->stype > TS_STORAGE_CSR)
            return fail_array(err, TS_ERR_FORMAT, index, at,
                              "storage type %d at byte %zu is not 0 (dense), "
                              "1 (row_sparse) or 2 (csr)", (int)r->stype, at);
        if (r->version == MX_V3 && r->stype != TS_STORAGE_DENSE)
            return fail_array(err, TS_ERR_FORMAT, index, at,
                              "storage type %d (%s) at byte %zu in a V3 record: V3 "
                              "records are dense only", (int)r->stype,
                              stype_name(r->stype), at);
        r->naux = r->stype;   /* num_aux_data: row_sparse 1, csr 2 */
        if (r->naux > 0 &&
            (st = read_shape64(c, index, "storage shape", &r->storage_shape, err)))
            return st;
        if ((st = read_shape64(c, index, "shape", &r->shape, err)))
            return st;
        /* V2: ndim 0 is a "none" array; V3 (np-shape): a 0-d scalar. */
        if (r->version == MX_V2 && r->shape.ndim == 0) {
            r->none = 1;
            return TS_OK;
        }
    } else if (m == MX_V1_MAGIC) {
        r->version = MX_V1;
        if ((st = read_shape64(c, index, "shape", &r->shape, err)))
            return st;
        if (r->shape.ndim == 0) {
            r->none = 1;
            return TS_OK;
        }
    } else {
        /* Legacy (MXNet <= 0.10.0): the word is the ndim, dims are u32. */
        r->version = MX_LEGACY;
        if (m > TS_MAX_NDIM) {
            if ((m >> 16) == (MX_V1_MAGIC >> 16))
                return fail_array(err, TS_ERR_FORMAT, index, r->offset,
                                  "unknown record magic 0x%08X at byte %zu (expected "
                                  "0xF993FAC8 V1, 0xF993FAC9 V2, 0xF993FACA V3, or a "
                                  "legacy ndim <= %d)", (unsigned)m, r->offset, TS_MAX_NDIM);
            return fail_array(err, TS_ERR_LIMIT, index, r->offset,
                              "first word %u (0x%08X) at byte %zu is no record magic, and "
                              "as a legacy ndim it is above the limit of %d", (unsigned)m,
                              (unsigned)m, r->offset, TS_MAX_NDIM);
        }
        char what[96];
        snprintf(what, sizeof what, "the shape's %u uint32 dims", (unsigned)m);
        st = ts__cursor_need(c, (size_t)m * 4, what, err);
        if (st) {
            ts__error_entry(err, (int64_t)index, "array %zu", index);
            return st;
        }
        r->shape.ndim = (int)m;
        for (int i = 0; i < (int)m; i++) {
            uint32_t v;
            ts__read_u32(c, &v, "dim", err);   /* cannot fail: checked above */
            r->shape.dims[i] = v;
        }
        if (m == 0) {
            r->none = 1;
            return TS_OK;
        }
    }

    /* Context, type flag, aux types and shapes. */
    if ((st = rd_i32(c, index, &r->dev_type, "the context's dev_type", err)) ||
        (st = rd_i32(c, index, &r->dev_id, "the context's dev_id", err)))
        return st;
    if ((st = read_type_flag(c, index, "type flag", &r->type_flag, &r->dtype, err)))
        return st;
    for (int i = 0; i < r->naux; i++) {
        char label[32];
        int32_t flag;
        snprintf(label, sizeof label, "%s type flag", aux_name(r->stype, i));
        if ((st = read_type_flag(c, index, label, &flag, &r->aux_dtype[i], err)))
            return st;
        snprintf(label, sizeof label, "%s shape", aux_name(r->stype, i));
        if ((st = read_shape64(c, index, label, &r->aux_shape[i], err)))
            return st;
    }

    /* Sizes. The values payload has the storage shape for sparse arrays. */
    size_t at = c->pos;
    if (dims_product(&r->shape, &r->size)) {
        char buf[TS__SHAPE_STR_MAX];
        return fail_array(err, TS_ERR_OVERFLOW, index, r->offset,
                          "element count of shape %s does not fit in int64",
                          ts__dims_str(r->shape.dims, r->shape.ndim, buf, sizeof buf));
    }
    const mx_shape *vs = r->naux > 0 ? &r->storage_shape : &r->shape;
    if ((st = payload_bytes(vs, r->dtype, index, "data", at, &r->values_nbytes, err)))
        return st;
    for (int i = 0; i < r->naux; i++)
        if ((st = payload_bytes(&r->aux_shape[i], r->aux_dtype[i], index,
                                aux_name(r->stype, i), at, &r->aux_nbytes[i], err)))
            return st;

    /* Skip the payloads: values, then aux arrays in aux order. */
    r->data_offset = c->pos;
    if ((st = skip_payload(c, index, "data", r->values_nbytes, err)))
        return st;
    for (int i = 0; i < r->naux; i++) {
        char label[32];
        snprintf(label, sizeof label, "%s data", aux_name(r->stype, i));
        if ((st = skip_payload(c, index, label, r->aux_nbytes[i], err)))
            return st;
    }
    return TS_OK;
}

/* Reads the name at the cursor (u64 length + bytes) into *name and *len. */
static ts_status read_name(ts__cursor *c, size_t index, const char **name, size_t *len,
                           ts_error *err)
{
    size_t at = c->pos;
    uint64_t n;
    ts_status st = ts__read_u64(c, &n, "a name's length", err);
    if (st) {
        ts__error_entry(err, (int64_t)index, "array %zu's name", index);
        return st;
    }
    if (n > ts__cursor_left(c))
        return ts__fail(err, TS_ERR_TRUNCATED, 0, (int64_t)at,
                        "array %zu's name: length %llu at byte %zu runs past the end of "
                        "the file (%zu bytes left)", index, (unsigned long long)n, at,
                        ts__cursor_left(c));
    if ((st = ts__cursor_fetch(c, (size_t)n, err)))
        return st;
    *name = (const char *)(c->data + c->pos);
    *len = (size_t)n;
    if (memchr(*name, 0, *len))
        return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)at,
                        "array %zu's name at byte %zu contains a NUL byte", index, at);
    c->pos += (size_t)n;
    return TS_OK;
}

static const char *const flag_text[] = {"0", "1", "2", "3", "4", "5", "6",
                                        "7", "8", "9", "10", "11", "12"};

/* Fills a new ts_array from a record and its name. */
static ts_status add_array(ts_file *f, const mx_record *r, const char *name,
                           size_t name_len, ts_error *err)
{
    ts_array *a = ts__file_add_array(f, err);
    if (!a)
        return ts__file_add_failure(f);
    if (name && !(a->name = ts__file_strndup(f, name, name_len, err)))
        return TS_ERR_NOMEM;
    ts_status st = ts_shape_assign(&a->shape, r->shape.dims, r->shape.ndim, err);
    if (st)
        return st;
    a->storage = (ts_storage)r->stype;
    if (r->naux > 0 && (st = ts_shape_assign(&a->storage_shape, r->storage_shape.dims,
                                             r->storage_shape.ndim, err)))
        return st;
    if (r->none) {
        a->dtype_name = "none";
        a->size = 0;
        a->nbytes = 0;
        a->note = "none (empty) array: nothing stored after the shape";
        return TS_OK;
    }
    ts__array_set_dtype(a, r->dtype);
    a->format_dtype = flag_text[r->type_flag];
    a->byteorder = a->itemsize == 1 ? '|' : '<';
    a->size = r->size;
    a->data_offset = (int64_t)r->data_offset;
    a->dev_type = r->dev_type;
    a->dev_id = r->dev_id;
    if (r->dev_type != 0 &&
        !(a->device = ts__file_printf(f, err, "%s(%d)", device_name(r->dev_type), (int)r->dev_id)))
        return TS_ERR_NOMEM;
    a->nbytes = r->values_nbytes;
    if (r->naux > 0) {
        /* Cannot overflow: all payloads were skipped inside the file. */
        char vbuf[TS__SHAPE_STR_MAX], b0[TS__SHAPE_STR_MAX], b1[TS__SHAPE_STR_MAX];
        for (int i = 0; i < r->naux; i++)
            a->nbytes += r->aux_nbytes[i];
        ts__dims_str(r->storage_shape.dims, r->storage_shape.ndim, vbuf, sizeof vbuf);
        ts__dims_str(r->aux_shape[0].dims, r->aux_shape[0].ndim, b0, sizeof b0);
        if (r->naux == 1)
            a->note = ts__file_printf(f, err, "%s: values %s + %s %s %s",
                                      stype_name(r->stype), vbuf, aux_name(r->stype, 0), b0,
                                      ts_dtype_name(r->aux_dtype[0]));
        else
            a->note = ts__file_printf(
                f, err, "%s: values %s + %s %s %s + %s %s %s", stype_name(r->stype), vbuf,
                aux_name(r->stype, 0), b0, ts_dtype_name(r->aux_dtype[0]),
                aux_name(r->stype, 1),
                ts__dims_str(r->aux_shape[1].dims, r->aux_shape[1].ndim, b1, sizeof b1),
                ts_dtype_name(r->aux_dtype[1]));
        if (!a->note)
            return TS_ERR_NOMEM;
    }
    return TS_OK;
}

/* "V2" when all records share a version, "mixed (legacy, V2)" otherwise,
 * "" without records. */
static ts_status set_version(ts_file *f, unsigned seen, ts_error *err)
{
    int count = 0, last = 0;
    for (int v = 0; v < MX_NVERSIONS; v++)
        if (seen & (1u << v)) {
            count++;
            last = v;
        }
    if (count <= 1) {
        ts__file_set_version(f, count ? version_names[last] : "");
        return TS_OK;
    }
    char buf[64] = "mixed (";
    size_t n = strlen(buf);
    for (int v = 0; v < MX_NVERSIONS; v++)
        if (seen & (1u << v))
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", n > 7 ? ", " : "",
                                  version_names[v]);
    snprintf(buf + n, sizeof buf - n, ")");
    const char *text = ts__file_strndup(f, buf, strlen(buf), err);
    if (!text)
        return TS_ERR_NOMEM;
    ts__file_set_version(f, text);
    return TS_OK;
}

static int probe_mxnet(const unsigned char *data, size_t len, ts__source *src)
{
    (void)src;
    return len >= 8 && ts__le64(data) == MX_LIST_MAGIC;
}

static ts_status read_mxnet(ts_file *f, const unsigned char *data, size_t len,
                            const ts_open_options *opts, ts_error *err)
{
    (void)opts;
    ts__source *src = ts__file_source(f);
    ts__cursor c;
    ts__cursor_init_src(&c, data, len, src, 0);
    uint64_t magic, reserved, n_arrays, n_names;
    ts_status st = ts__read_u64(&c, &magic, "the list magic", err);
    if (st)
        return st;
    if (magic != MX_LIST_MAGIC)
        return ts__fail(err, TS_ERR_FORMAT, 0, 0,
                        "expected the MXNet NDArray list magic 0x112 at byte 0, found "
                        "0x%llX", (unsigned long long)magic);
    /* Written as 0 and never checked by MXNet's loader. */
    if ((st = ts__read_u64(&c, &reserved, "the reserved word", err)))
        return st;
    size_t count_at = c.pos;
    if ((st = ts__read_u64(&c, &n_arrays, "the array count", err)))
        return st;
    /* Each record takes at least 4 bytes and the name count 8: reject an
     * absurd count before walking (and allocating for) that many arrays. */
    size_t left = ts__cursor_left(&c);
    if (n_arrays > 0 && (left < 8 || n_arrays > (left - 8) / MX_MIN_RECORD))
        return ts__fail(err, TS_ERR_TRUNCATED, 0, (int64_t)count_at,
                        "file declares %llu arrays at byte %zu but has only %zu bytes "
                        "left (each array takes at least %u bytes, the name count 8)",
                        (unsigned long long)n_arrays, count_at, left, MX_MIN_RECORD);
    if (n_arrays > TS__MAX_ARRAYS)
        return ts__fail(err, TS_ERR_LIMIT, 0, (int64_t)count_at,
                        "file declares %llu arrays at byte %zu, more than the %zu tshape "
                        "reads from one file (see LIMITS in tshape(1))",
                        (unsigned long long)n_arrays, count_at, TS__MAX_ARRAYS);
    size_t n = (size_t)n_arrays;

    /* Pass 1: validate every record and reach the names. */
    size_t records_at = c.pos;
    unsigned seen = 0;
    mx_record r;
    for (size_t i = 0; i < n; i++) {
        if ((st = read_record(&c, i, &r, err)))
            return st;
        seen |= 1u << r.version;
    }
    size_t names_count_at = c.pos;
    if ((st = ts__read_u64(&c, &n_names, "the name count", err)))
        return st;
    if (n_names != 0 && n_names != n_arrays)
        return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)names_count_at,
                        "file has %zu arrays but %llu names (name count at byte %zu; "
                        "it must be 0 or the number of arrays)", n,
                        (unsigned long long)n_names, names_count_at);
    size_t names_at = c.pos;
    for (size_t i = 0; i < (size_t)n_names; i++) {
        const char *name;
        size_t name_len;
        if ((st = read_name(&c, i, &name, &name_len, err)))
            return st;
    }
    /* Bytes after the names are ignored, as MXNet's loader does (verify
     * reports them). */
    ts__file_set_extent(f, (int64_t)c.pos);

    /* Pass 2: the same walk, now adding the arrays with their names. */
    ts__cursor rc, nc;
    ts__cursor_init_src(&rc, data, len, src, 0);
    rc.pos = records_at;
    ts__cursor_init_src(&nc, data, len, src, 0);
    nc.pos = names_at;
    for (size_t i = 0; i < n; i++) {
        const char *name = NULL;
        size_t name_len = 0;
        if ((st = read_record(&rc, i, &r, err)) ||
            (n_names && (st = read_name(&nc, i, &name, &name_len, err))) ||
            (st = add_array(f, &r, name, name_len, err)))
            return st;
    }
    return set_version(f, seen, err);
}

const ts__reader ts__reader_mxnet = {
    {TS_FORMAT_MXNET, "mxnet", ".params .nd", "u64 magic 0x112",
     "MXNet NDArray list (legacy, V1, V2 sparse, V3)", "type flag", 0},
    probe_mxnet,
    read_mxnet,
    0,
};
