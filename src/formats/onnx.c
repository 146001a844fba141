/*
 * onnx.c - reader for ONNX models (onnx/onnx.proto ModelProto), header only.
 *
 * Reports every tensor the model stores: graph initializers and sparse
 * initializers, the tensors of Constant nodes and of other nodes' tensor
 * attributes, recursively in subgraphs (If/Loop/Scan bodies), the
 * initialization graphs of training_info, and Constant nodes of functions.
 * Names: initializers by their name; a Constant node's tensor by the node's
 * first output; another tensor attribute as "<node>/<attribute>"; anything
 * inside a subgraph with the prefix "<node>/<attribute>/" (lists of graphs:
 * "<attribute>[i]"), since sibling branches may reuse names.
 *
 * The protobuf walker (protobuf.c) locates payloads without reading them:
 * raw_data and a single packed float_data/double_data field give the data
 * offset; varint lists are only counted. External data (data_location 1)
 * is resolved against the model's folder (ts_open_options.path), refused
 * when its location is absolute or has a ".." component (sidefile.c), and
 * checked to lie inside the side file; its offset is then the offset in
 * that file and storage_key its location. Graph inputs and outputs (with symbolic dims)
 * and the model's ir_version, producer and opsets are metadata entries.
 */
#include "protobuf.h"
#include "../remote/remote.h"
#include "reader.h"

#include "../core/jansson_lazy.h"
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>

/* ONNX TensorProto.DataType -> dtype; `field` is the typed field that holds
 * the values when raw_data is not used, `per` elements per entry of it. */
enum { F_NONE, F_FLOAT, F_INT32, F_STRING, F_INT64, F_DOUBLE, F_UINT64, F_RAW, F_EXTERNAL,
       F_COUNT };
static const char *const field_names[F_COUNT] = {
    "none", "float_data", "int32_data", "string_data", "int64_data", "double_data",
    "uint64_data", "raw_data", "external"};

typedef struct onnx_type {
    const char *name;
    ts_dtype dtype;
    int field;
    int per;            /* elements per typed-field entry (4-bit: 2; complex: 1/2) */
} onnx_type;

#define N_TYPES 27
static const onnx_type types[N_TYPES] = {
    [1] = {"FLOAT", TS_DTYPE_FLOAT32, F_FLOAT, 1},
    [2] = {"UINT8", TS_DTYPE_UINT8, F_INT32, 1},
    [3] = {"INT8", TS_DTYPE_INT8, F_INT32, 1},
    [4] = {"UINT16", TS_DTYPE_UINT16, F_INT32, 1},
    [5] = {"INT16", TS_DTYPE_INT16, F_INT32, 1},
    [6] = {"INT32", TS_DTYPE_INT32, F_INT32, 1},
    [7] = {"INT64", TS_DTYPE_INT64, F_INT64, 1},
    [8] = {"STRING", TS_DTYPE_OBJECT, F_STRING, 1},
    [9] = {"BOOL", TS_DTYPE_BOOL, F_INT32, 1},
    [10] = {"FLOAT16", TS_DTYPE_FLOAT16, F_INT32, 1},
    [11] = {"DOUBLE", TS_DTYPE_FLOAT64, F_DOUBLE, 1},
    [12] = {"UINT32", TS_DTYPE_UINT32, F_UINT64, 1},
    [13] = {"UINT64", TS_DTYPE_UINT64, F_UINT64, 1},
    [14] = {"COMPLEX64", TS_DTYPE_COMPLEX64, F_FLOAT, 0},   /* 2 entries per element */
    [15] = {"COMPLEX128", TS_DTYPE_COMPLEX128, F_DOUBLE, 0},
    [16] = {"BFLOAT16", TS_DTYPE_BFLOAT16, F_INT32, 1},
    [17] = {"FLOAT8E4M3FN", TS_DTYPE_FLOAT8_E4M3FN, F_INT32, 1},
    [18] = {"FLOAT8E4M3FNUZ", TS_DTYPE_FLOAT8_E4M3FNUZ, F_INT32, 1},
    [19] = {"FLOAT8E5M2", TS_DTYPE_FLOAT8_E5M2, F_INT32, 1},
    [20] = {"FLOAT8E5M2FNUZ", TS_DTYPE_FLOAT8_E5M2FNUZ, F_INT32, 1},
    [21] = {"UINT4", TS_DTYPE_UINT4, F_INT32, 2},
    [22] = {"INT4", TS_DTYPE_INT4, F_INT32, 2},
    [23] = {"FLOAT4E2M1", TS_DTYPE_FLOAT4_E2M1FN, F_INT32, 2},
    [24] = {"FLOAT8E8M0", TS_DTYPE_FLOAT8_E8M0FNU, F_INT32, 1},
    [25] = {"UINT2", TS_DTYPE_UINT2, F_INT32, 4},
    [26] = {"INT2", TS_DTYPE_INT2, F_INT32, 4},
};

static const onnx_type *type_of(uint64_t n)
{
    return n > 0 && n < N_TYPES ? &types[n] : NULL;
}

typedef struct onnx_reader {
    ts_file *f;
    const unsigned char *data;
    size_t len;
    const ts_open_options *opts;
    ts_error *err;
    /* names of the top-level initializers, to leave them out of inputs */
    const char **init_names;
    size_t n_init, cap_init;
    /* a remote model's last side file and its size (tensors share one) */
    const char *side_loc;
    int64_t side_size;
    json_t *io[2];             /* graph inputs and outputs (graph_io) */
    struct use *uses;          /* the model graph's node inputs, by name */
    size_t n_uses, cap_uses;
} onnx_reader;

/* Where a tensor came from, for its note. */
typedef enum { SRC_INITIALIZER, SRC_SPARSE, SRC_CONSTANT, SRC_ATTRIBUTE } tensor_source;
static const char *const source_names[] = {"initializer", "sparse_initializer", "Constant",
                                           "attribute"};

/* A string field: pointer into the image and length. */
typedef struct span {
    const char *p;
    size_t n;
} span;

/* The payload of string field f, asked for from the file's byte source
 * (the walker fetches short ones itself). Errors: those of ts__file_need. */
static ts_status span_get(const onnx_reader *r, const ts__pb_field *f, span *out,
                          ts_error *err)
{
    out->p = (const char *)r->data + f->pos;
    out->n = f->len;
    return ts__file_need(r->f, f->pos, f->len, err);
}

static int span_eq(span s, const char *lit)
{
    return s.n == strlen(lit) && memcmp(s.p, lit, s.n) == 0;
}

/* *out = "<prefix><name>" copied into the file's storage; names with NUL
 * bytes are refused. */
static ts_status make_name(onnx_reader *r, const char *prefix, span name, size_t at,
                           const char **out)
{
    if (memchr(name.p, '\0', name.n)) {
        char buf[128];
        return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)at,
                        "name '%s' at byte %zu contains a NUL byte",
                        ts__printable(name.p, name.n, buf, sizeof buf), at);
    }
    *out = ts__file_printf(r->f, r->err, "%s%.*s", prefix, (int)name.n, name.p);
    return *out ? TS_OK : TS_ERR_NOMEM;
}

/* ---- external data ------------------------------------------------------ */

typedef struct ext_info {
    span location;
    int has_location;
    span offset_text, length_text;
    int has_offset, has_length;
} ext_info;

static ts_status parse_decimal(span s, int64_t *out, const char *key, const char *tname,
                               size_t at, ts_error *err)
{
    int64_t v = 0;
    if (s.n == 0)
        goto bad;
    for (size_t i = 0; i < s.n; i++) {
        if (s.p[i] < '0' || s.p[i] > '9' || v > (INT64_MAX - 9) / 10)
            goto bad;
        v = v * 10 + (s.p[i] - '0');
    }
    *out = v;
    return TS_OK;
bad: {
        char buf[64];
        return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)at,
                        "%s: external data %s '%s' is not a decimal number", tname, key,
                        ts__printable(s.p, s.n, buf, sizeof buf));
    }
}

/* Finds the side file `loc` beside the model (sidefile.c): its size, and
 * its resolved path or URL (*resolved, malloc'ed). A remote model's side
 * file is asked for once, however many tensors it holds. */
static ts_status locate_side(onnx_reader *r, const char *loc, const char *tname, size_t at,
                             char **resolved, int64_t *size)
{
    int remote = ts__is_url(r->opts->path);
    if (remote && r->side_loc && strcmp(r->side_loc, loc) == 0) {
        if (!(*resolved = ts__url_sibling(r->opts->path, loc)))
            return ts__error(r->err, TS_ERR_NOMEM, "out of memory");
        *size = r->side_size;
        return TS_OK;
    }
    ts_status st = ts__side_locate(r->opts, loc, "external data", tname, at, resolved, size,
                                   NULL, r->err);
    if (!st && remote) {
        r->side_loc = loc;
        r->side_size = *size;
    }
    return st;
}

static ts_status resolve_external(onnx_reader *r, ts_array *a, const ext_info *x, size_t at,
                                  const char *src)
{
    ts_error *err = r->err;
    if (!x->has_location)
        return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)at,
                        "%s: data_location is EXTERNAL but external_data has no 'location'",
                        a->name);
    ts_status st = ts__side_check_name(x->location.p, x->location.n, "external data", a->name,
                                       at, err);
    if (st)
        return st;
    int64_t off = 0, length = -1;
    if (x->has_offset && (st = parse_decimal(x->offset_text, &off, "offset", a->name, at, err)))
        return st;
    if (x->has_length &&
        (st = parse_decimal(x->length_text, &length, "length", a->name, at, err)))
        return st;
    if (length >= 0 && a->nbytes >= 0 && length != a->nbytes)
        return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)at,
                        "%s: external data length %lld does not match the %lld bytes of "
                        "%s %s", a->name, (long long)length, (long long)a->nbytes,
                        a->dtype_name, "tensor");
    const char *loc = ts__file_strndup(r->f, x->location.p, x->location.n, err);
    if (!loc)
        return TS_ERR_NOMEM;
    a->storage_key = loc;
    int64_t want = length >= 0 ? length : a->nbytes;
    if (!r->opts->path) {
        a->note = ts__file_printf(r->f, err,
                                  "%s, external data: %s offset %lld length %lld "
                                  "(not checked: the model was read from memory)",
                                  src, loc, (long long)off, (long long)want);
        return a->note ? TS_OK : TS_ERR_NOMEM;
    }
    int64_t size = 0, end;
    char *rs = NULL; /* the side file, resolved, or the URL beside the model */
    if ((st = locate_side(r, loc, a->name, at, &rs, &size)))
        return st;
    int overflow = ts__add_overflow(off, want, &end);
    if (overflow || end > size) {
        free(rs);
        /* the side file ends before the data: a truncated file */
        return ts__fail(err, overflow ? TS_ERR_FORMAT : TS_ERR_TRUNCATED, 0, (int64_t)at,
                        "external data out of range: %s: offset %lld + length %lld > size "
                        "of %s (%lld)", a->name, (long long)off, (long long)want, loc,
                        (long long)size);
    }
    /* The values layer reads the data from the side file, by the path
     * resolved here (the model's folder may be named relative to a working
     * directory that changes) or the URL beside a remote model. */
    if (rs) {
        ts__data_src ds;
        memset(&ds, 0, sizeof ds);
        ts_status st2 = ts__side_add(r->f, rs, r->opts, &ds.side, err);
        free(rs);
        if (st2 || (st2 = ts__file_set_data_src(r->f, a, &ds, err)))
            return st2;
    }
    a->data_offset = off;
    a->note = ts__file_printf(r->f, err, "%s, external data: %s offset %lld length %lld", src,
                              loc, (long long)off, (long long)want);
    return a->note ? TS_OK : TS_ERR_NOMEM;
}

/* ---- TensorProto -------------------------------------------------------- */

typedef struct typed_list {
    int64_t count;        /* entries */
    int fields;           /* keys seen */
    int unpacked;         /* some entries came one key each */
    size_t pos, len;      /* the last packed payload */
} typed_list;

static ts_status add_entries(onnx_reader *r, typed_list *t, const ts__pb_field *f,
                             int fixed, const char *what)
{
    /* fixed: 4 or 8 for float/double lists, 0 for varints */
    t->fields++;
    if (f->wire == TS__PB_LEN) {
        int64_t n;
        if (fixed) {
            if (f->len % (size_t)fixed)
                return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)f->key_pos,
                                "packed %s at byte %zu: %zu bytes are not a whole number "
                                "of %d-byte values", what, f->key_pos, f->len, fixed);
            n = (int64_t)(f->len / (size_t)fixed);
        } else {
            ts__pb_msg whole;
            ts__pb_init_src(&whole, r->data, r->len, ts__file_source(r->f));
            ts_status st = ts__pb_count_varints(&whole, f, &n, r->err);
            if (st)
                return st;
        }
        t->count += n;
        t->pos = f->pos;
        t->len = f->len;
        return TS_OK;
    }
    int want = fixed == 4 ? TS__PB_FIXED32 : fixed == 8 ? TS__PB_FIXED64 : TS__PB_VARINT;
    ts_status st = ts__pb_want(f, want, what, r->err);
    if (st)
        return st;
    t->count++;
    t->unpacked = 1;
    return TS_OK;
}

typedef struct tensor_ctx {
    const char *prefix;        /* subgraph prefix */
    const char *name;          /* full name to use, or NULL: prefix + own name */
    tensor_source source;
} tensor_ctx;

/* Parses the TensorProto m and appends it. `out_name` (may be NULL)
 * receives the array's name. */
static ts_status read_tensor(onnx_reader *r, ts__pb_msg *m, const tensor_ctx *c, size_t at,
                             ts_array **out)
{
    ts_error *err = r->err;
    const size_t msg_start = m->pos, msg_end = m->end;
    int64_t dims[TS_MAX_NDIM];
    int ndim = 0;
    uint64_t data_type = 0;
    int has_type = 0, has_raw = 0, location = 0;
    size_t raw_pos = 0, raw_len = 0, type_at = at;
    span name = {"", 0};
    size_t name_at = at;
    typed_list lists[F_COUNT];
    memset(lists, 0, sizeof lists);
    ext_info x;
    memset(&x, 0, sizeof x);
    int segment = 0;
    ts__pb_field fl;
    int k;
    ts_status st;
    /* First pass: everything but the dims' meaning needs the name for
     * messages, which may come late; collect, then check. */
    while ((k = ts__pb_next(m, &fl, err)) > 0) {
        switch (fl.number) {
        case 1: /* dims, unpacked or packed */
            if (fl.wire == TS__PB_LEN) {
                size_t p = fl.pos, e = fl.pos + fl.len;
                if ((st = ts__file_need(r->f, fl.pos, fl.len, err)))
                    return st;
                while (p < e) {
                    uint64_t v;
                    if ((st = ts__pb_varint(r->data, &p, e, &v, "dims", err)))
                        return st;
                    if (ndim == TS_MAX_NDIM)
                        return ts__fail(err, TS_ERR_NDIM, 0, (int64_t)fl.key_pos,
                                        "tensor at byte %zu has more than %d dims", at,
                                        TS_MAX_NDIM);
                    dims[ndim++] = (int64_t)v;
                }
            } else {
                if ((st = ts__pb_want(&fl, TS__PB_VARINT, "dims", err)))
                    return st;
                if (ndim == TS_MAX_NDIM)
                    return ts__fail(err, TS_ERR_NDIM, 0, (int64_t)fl.key_pos,
                                    "tensor at byte %zu has more than %d dims", at,
                                    TS_MAX_NDIM);
                dims[ndim++] = (int64_t)fl.value;
            }
            break;
        case 2:
            if ((st = ts__pb_want(&fl, TS__PB_VARINT, "data_type", err)))
                return st;
            data_type = fl.value;
            has_type = 1;
            type_at = fl.key_pos;
            break;
        case 3:
            segment = 1;
            break;
        case 4:
            if ((st = add_entries(r, &lists[F_FLOAT], &fl, 4, "float_data")))
                return st;
            break;
        case 5:
            if ((st = add_entries(r, &lists[F_INT32], &fl, 0, "int32_data")))
                return st;
            break;
        case 6:
            if ((st = ts__pb_want(&fl, TS__PB_LEN, "string_data", err)))
                return st;
            lists[F_STRING].count++;
            lists[F_STRING].fields++;
            break;
        case 7:
            if ((st = add_entries(r, &lists[F_INT64], &fl, 0, "int64_data")))
                return st;
            break;
        case 8:
            if ((st = ts__pb_want(&fl, TS__PB_LEN, "name", err)))
                return st;
            if ((st = span_get(r, &fl, &name, err)))
                return st;
            name_at = fl.key_pos;
            break;
        case 9:
            if ((st = ts__pb_want(&fl, TS__PB_LEN, "raw_data", err)))
                return st;
            if (fl.truncated) {
                char buf[128];
                return ts__fail(err, TS_ERR_TRUNCATED, 0, (int64_t)r->len,
                                "tensor '%s%s': file ends at byte %zu inside its raw_data "
                                "(byte %zu), whose length field promises %llu bytes",
                                c->name ? "" : c->prefix,
                                c->name ? c->name : ts__printable(name.p, name.n, buf,
                                                                  sizeof buf),
                                r->len, fl.pos, (unsigned long long)fl.declared_len);
            }
            has_raw = 1;
            raw_pos = fl.pos;
            raw_len = fl.len;
            break;
        case 10:
            if ((st = add_entries(r, &lists[F_DOUBLE], &fl, 8, "double_data")))
                return st;
            break;
        case 11:
            if ((st = add_entries(r, &lists[F_UINT64], &fl, 0, "uint64_data")))
                return st;
            break;
        case 13: { /* external_data: StringStringEntryProto key 1, value 2 */
            ts__pb_msg e;
            if ((st = ts__pb_sub(m, &fl, &e, err)))
                return st;
            span key = {"", 0}, val = {"", 0};
            ts__pb_field g;
            int kk;
            while ((kk = ts__pb_next(&e, &g, err)) > 0) {
                if (g.number == 1 || g.number == 2) {
                    if ((st = ts__pb_want(&g, TS__PB_LEN, "external_data entry", err)))
                        return st;
                    if ((st = span_get(r, &g, g.number == 1 ? &key : &val, err)))
                        return st;
                }
            }
            if (kk < 0)
                return e.status;
            if (span_eq(key, "location")) {
                x.location = val;
                x.has_location = 1;
            } else if (span_eq(key, "offset")) {
                x.offset_text = val;
                x.has_offset = 1;
            } else if (span_eq(key, "length")) {
                x.length_text = val;
                x.has_length = 1;
            }
            break;
        }
        case 14:
            if ((st = ts__pb_want(&fl, TS__PB_VARINT, "data_location", err)))
                return st;
            location = (int)(fl.value == 1);
            break;
        default:
            break; /* doc_string 12, metadata_props 16, unknown: skipped */
        }
    }
    if (k < 0)
        return m->status;

    const char *tname = c->name;
    if (!tname && (st = make_name(r, c->prefix, name, name_at, &tname)))
        return st;
    if (segment)
        return ts__fail(err, TS_ERR_UNSUPPORTED, 0, (int64_t)at,
                        "tensor '%s' at byte %zu is stored in segments (TensorProto.segment), "
                        "which no current exporter writes and tshape does not read", tname,
                        at);
    const onnx_type *t = type_of(data_type);
    if (!t)
        return ts__fail(err, has_type ? TS_ERR_DTYPE : TS_ERR_FORMAT, 0, (int64_t)type_at,
                        has_type ? "tensor '%s': unknown data_type %llu (known: 1..26)"
                                 : "tensor '%s' has no data_type%.0llu",
                        tname, (unsigned long long)data_type);
    ts_array *a = ts__file_add_array(r->f, err);
    if (!a)
        return ts__file_add_failure(r->f);
    a->name = tname;
    ts__array_set_dtype(a, t->dtype);
    a->format_dtype = t->name;
    a->byteorder = a->itemsize > 1 ? '<' : '|';
    if (t->dtype == TS_DTYPE_COMPLEX64 || t->dtype == TS_DTYPE_COMPLEX128)
        a->byteorder = '<';
    for (int i = 0; i < ndim; i++)
        if (dims[i] < 0)
            return ts__fail(err, TS_ERR_VALUE, 0, (int64_t)at,
                            "tensor '%s': dim %d is negative (%lld)", tname, i,
                            (long long)dims[i]);
    if ((st = ts_shape_assign(&a->shape, dims, ndim, err)) ||
        (st = ts__array_compute_sizes(a, err))) {
        ts__error_prefix(err, "tensor '%s'", tname);
        return st;
    }
    if (t->dtype == TS_DTYPE_OBJECT)
        a->nbytes = -1;
    if (out)
        *out = a;

    /* Where the values are. */
    int storage;
    const char *src = source_names[c->source];
    if (location) {
        storage = F_EXTERNAL;
    } else if (has_raw) {
        storage = F_RAW;
    } else {
        storage = F_NONE;
        for (int i = F_FLOAT; i <= F_UINT64; i++)
            if (lists[i].fields) {
                if (storage != F_NONE)
                    return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)at,
                                    "tensor '%s' has values in both %s and %s", tname,
                                    field_names[storage], field_names[i]);
                storage = i;
            }
    }
    switch (storage) {
    case F_EXTERNAL:
        if (t->dtype == TS_DTYPE_OBJECT)
            return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)at,
                            "tensor '%s': STRING tensors cannot use external data", tname);
        return resolve_external(r, a, &x, at, src);
    case F_RAW:
        if (t->dtype == TS_DTYPE_OBJECT)
            return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)raw_pos,
                            "tensor '%s': STRING tensors cannot use raw_data", tname);
        if ((int64_t)raw_len != a->nbytes)
            return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)raw_pos,
                            "tensor '%s': raw_data at byte %zu has %zu bytes, but %s %s "
                            "needs %lld", tname, raw_pos, raw_len, t->name,
                            ts__shape_str(&a->shape, (char[TS__SHAPE_STR_MAX]){0},
                                          TS__SHAPE_STR_MAX),
                            (long long)a->nbytes);
        a->data_offset = (int64_t)raw_pos;
        a->note = ts__file_printf(r->f, err, "%s, raw_data", src);
        return a->note ? TS_OK : TS_ERR_NOMEM;
    case F_NONE:
        if (a->size != 0)
            return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)at,
                            "tensor '%s' has %lld elements but no data (no raw_data, typed "
                            "field or external data)", tname, (long long)a->size);
        a->note = ts__file_printf(r->f, err, "%s, no data (0 elements)", src);
        return a->note ? TS_OK : TS_ERR_NOMEM;
    default:
        break;
    }
    /* A typed field: it must be the one of the type, with one entry per
     * element (complex: two; 4-bit: two elements per entry; 2-bit: four). */
    if (storage != t->field)
        return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)at,
                        "tensor '%s': %s values are stored in %s, not %s", tname, t->name,
                        field_names[t->field], field_names[storage]);
    const typed_list *l = &lists[storage];
    int64_t want;
    if (t->per == 0)
        want = a->size * 2; /* size <= nbytes / 8: no overflow */
    else
        want = a->size / t->per + (a->size % t->per != 0);
    if (l->count != want)
        return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)at,
                        "tensor '%s': %s has %lld values, the shape needs %lld", tname,
                        field_names[storage], (long long)l->count, (long long)want);
    if ((storage == F_FLOAT || storage == F_DOUBLE) && l->fields == 1 && !l->unpacked &&
        (int64_t)l->len == a->nbytes)
        a->data_offset = (int64_t)l->pos;
    if (a->data_offset < 0 && storage != F_STRING && t->per <= 1 && a->size > 0) {
        /* the values layer decodes the field's entries (unpacked, several
         * packed pieces, varints) into elements as it reads them */
        static const uint32_t numbers[F_COUNT] = {[F_FLOAT] = 4, [F_INT32] = 5,
                                                  [F_INT64] = 7, [F_DOUBLE] = 10,
                                                  [F_UINT64] = 11};
        ts__data_src ds;
        memset(&ds, 0, sizeof ds);
        ds.kind = TS__SRC_PROTO;
        ds.comp_offset = (int64_t)msg_start;
        ds.comp_size = (int64_t)(msg_end - msg_start);
        ds.size = a->nbytes;
        ds.pb_field = numbers[storage];
        ds.pb_fixed = storage == F_FLOAT ? 4 : storage == F_DOUBLE ? 8 : 0;
        ds.pb_out = ds.pb_fixed ? ds.pb_fixed : (int)a->itemsize;
        ds.pb_bool = t->dtype == TS_DTYPE_BOOL;
        ds.pb_what = field_names[storage];
        if ((st = ts__file_set_data_src(r->f, a, &ds, err)))
            return st;
    }
    a->note = ts__file_printf(r->f, err, "%s, typed field %s: %lld values%s", src,
                              field_names[storage], (long long)l->count,
                              a->data_offset >= 0 ? " (one packed field)" : "");
    return a->note ? TS_OK : TS_ERR_NOMEM;
}

/* Parses TensorProto field f of m as a tensor. */
static ts_status tensor_field(onnx_reader *r, const ts__pb_msg *m, const ts__pb_field *f,
                              const tensor_ctx *c, ts_array **out)
{
    ts__pb_msg t;
    ts_status st = ts__pb_sub(m, f, &t, r->err);
    return st ? st : read_tensor(r, &t, c, f->key_pos, out);
}

/* SparseTensorProto: values 1, indices 2, dims 3. */
/* A singular TensorProto field given twice. Protobuf merges the two into
 * one tensor (dims concatenated, the later data_type and raw_data winning),
 * which is no tensor either writer meant: such a file is refused rather
 * than read one way or the other. */
static ts_status twice(const ts__pb_field *f, const char *message, const char *field,
                       ts_error *err)
{
    return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)f->key_pos,
                    "%s field %s (%u) given a second time at byte %zu: protobuf would merge "
                    "the two TensorProtos into one (dims concatenated, later values "
                    "winning); refused", message, field, f->number, f->key_pos);
}

static ts_status read_sparse(onnx_reader *r, const ts__pb_msg *parent, const ts__pb_field *pf,
                             const char *prefix, const char *name, tensor_source source)
{
    ts_error *err = r->err;
    ts__pb_msg m;
    ts_status st = ts__pb_sub(parent, pf, &m, err);
    if (st)
        return st;
    int64_t dims[TS_MAX_NDIM];
    int ndim = 0;
    ts__pb_field values = {0}, indices = {0};
    int has_values = 0, has_indices = 0;
    ts__pb_field fl;
    int k;
    while ((k = ts__pb_next(&m, &fl, err)) > 0) {
        if (fl.number == 1 || fl.number == 2) {
            if ((st = ts__pb_want(&fl, TS__PB_LEN, fl.number == 1 ? "values" : "indices", err)))
                return st;
            if (fl.number == 1 ? has_values : has_indices)
                return twice(&fl, "SparseTensorProto", fl.number == 1 ? "values" : "indices",
                             err);
            if (fl.number == 1) {
                values = fl;
                has_values = 1;
            } else {
                indices = fl;
                has_indices = 1;
            }
        } else if (fl.number == 3) {
            size_t p = fl.pos, e = fl.wire == TS__PB_LEN ? fl.pos + fl.len : fl.pos;
            if (fl.wire != TS__PB_LEN) {
                if ((st = ts__pb_want(&fl, TS__PB_VARINT, "sparse dims", err)))
                    return st;
                if (ndim == TS_MAX_NDIM)
                    goto too_many;
                dims[ndim++] = (int64_t)fl.value;
            }
            if ((st = ts__file_need(r->f, p, e - p, err)))
                return st;
            while (p < e) {
                uint64_t v;
                if ((st = ts__pb_varint(r->data, &p, e, &v, "sparse dims", err)))
                    return st;
                if (ndim == TS_MAX_NDIM)
                    goto too_many;
                dims[ndim++] = (int64_t)v;
            }
        }
    }
    if (k < 0)
        return m.status;
    if (!has_values || !has_indices)
        return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)pf->key_pos,
                        "sparse tensor at byte %zu lacks its %s", pf->key_pos,
                        has_values ? "indices" : "values");
    /* The values are a tensor of their own: read it as the array to report,
     * then give it the dense shape. The indices are only looked at. */
    ts_array *a = NULL;
    tensor_ctx vc = {prefix, name, source};
    if ((st = tensor_field(r, &m, &values, &vc, &a)))
        return st;
    ts__pb_msg im;
    int64_t idims[TS_MAX_NDIM], ioff = -1;
    int indim = 0;
    uint64_t itype = 0;
    if ((st = ts__pb_sub(&m, &indices, &im, err)))
        return st;
    while ((k = ts__pb_next(&im, &fl, err)) > 0) {
        if (fl.number == 1 && fl.wire == TS__PB_VARINT && indim < TS_MAX_NDIM)
            idims[indim++] = (int64_t)fl.value;
        else if (fl.number == 1 && fl.wire == TS__PB_LEN) {
            size_t p = fl.pos, e = fl.pos + fl.len;
            uint64_t v;
            if ((st = ts__file_need(r->f, fl.pos, e - fl.pos, err)))
                return st;
            while (p < e && indim < TS_MAX_NDIM) {
                if ((st = ts__pb_varint(r->data, &p, e, &v, "indices dims", err)))
                    return st;
                idims[indim++] = (int64_t)v;
            }
        } else if (fl.number == 2 && fl.wire == TS__PB_VARINT)
            itype = fl.value;
        else if (fl.number == 9 && fl.wire == TS__PB_LEN)
            ioff = (int64_t)fl.pos;
    }
    if (k < 0)
        return im.status;
    const onnx_type *it = type_of(itype);
    const char *idtype = it ? ts_dtype_name(it->dtype) : "unknown";
    char ishape[TS__SHAPE_STR_MAX];
    ts__dims_str(idims, indim, ishape, sizeof ishape);
    int64_t nnz = ts_shape_ndim(&a->shape) ? ts_shape_dims(&a->shape)[0] : 1;
    int64_t voff = a->data_offset;
    for (int i = 0; i < ndim; i++)
        if (dims[i] < 0)
            return ts__fail(err, TS_ERR_VALUE, 0, (int64_t)pf->key_pos,
                            "sparse tensor '%s': dim %d is negative", a->name, i);
    if ((st = ts_shape_assign(&a->shape, dims, ndim, err)) ||
        (st = ts__array_compute_sizes(a, err))) {
        ts__error_prefix(err, "sparse tensor '%s'", a->name);
        return st;
    }
    if (a->dtype == TS_DTYPE_OBJECT)
        a->nbytes = -1;
    a->data_offset = -1;
    /* the values' typed field no longer describes the (dense) array */
    ts__data_src none;
    memset(&none, 0, sizeof none);
    if ((st = ts__file_set_data_src(r->f, a, &none, err)))
        return st;
    char vo[32] = "not addressable", io[32] = "not addressable";
    if (voff >= 0)
        snprintf(vo, sizeof vo, "byte %lld", (long long)voff);
    if (ioff >= 0)
        snprintf(io, sizeof io, "byte %lld", (long long)ioff);
    a->note = ts__file_printf(r->f, err,
                              "%s, sparse (COO): nnz %lld, values at %s, indices %s %s at %s",
                              source_names[source], (long long)nnz, vo, idtype, ishape, io);
    return a->note ? TS_OK : TS_ERR_NOMEM;
too_many:
    return ts__fail(err, TS_ERR_NDIM, 0, (int64_t)pf->key_pos,
                    "sparse tensor at byte %zu has more than %d dims", pf->key_pos,
                    TS_MAX_NDIM);
}

/* ---- graphs, nodes, attributes ------------------------------------------ */

static ts_status read_graph(onnx_reader *r, ts__pb_msg *g, const char *prefix);

static ts_status subgraph(onnx_reader *r, const ts__pb_msg *m, const ts__pb_field *f,
                          const char *prefix)
{
    ts__pb_msg g;
    ts_status st = ts__pb_sub(m, f, &g, r->err);
    return st ? st : read_graph(r, &g, prefix);
}

/* AttributeProto of node `node` (its display name) and op type. */
static ts_status read_attribute(onnx_reader *r, ts__pb_msg *m, const char *prefix,
                                span node, span out0, int is_constant)
{
    ts_error *err = r->err;
    ts__pb_msg a = *m;
    ts__pb_field fl;
    int k;
    span aname = {"", 0};
    ts_status st;
    /* name first (it is field 1 but may come anywhere) */
    while ((k = ts__pb_next(&a, &fl, err)) > 0 && !fl.truncated)
        if (fl.number == 1) {
            if ((st = ts__pb_want(&fl, TS__PB_LEN, "attribute name", err)))
                return st;
            if ((st = span_get(r, &fl, &aname, err)))
                return st;
        }
    if (k < 0 && !a.pending)
        return a.status;
    if (memchr(aname.p, '\0', aname.n))
        return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)m->pos,
                        "attribute name at byte %zu contains a NUL byte", m->pos);
    a = *m;
    int64_t ti = 0, gi = 0;
    int has_t = 0, has_sparse = 0;
    while ((k = ts__pb_next(&a, &fl, err)) > 0) {
        if ((fl.number == 5 && has_t++) || (fl.number == 22 && has_sparse++))
            return twice(&fl, "AttributeProto", fl.number == 5 ? "t" : "sparse_tensor", err);
        switch (fl.number) {
        case 5:  /* t */
        case 10: /* tensors */
        case 22: /* sparse_tensor */
        {
            const char *name;
            tensor_source src = SRC_ATTRIBUTE;
            if (is_constant && fl.number != 10 &&
                (span_eq(aname, "value") || span_eq(aname, "sparse_value"))) {
                if ((st = make_name(r, prefix, out0, fl.key_pos, &name)))
                    return st;
                src = SRC_CONSTANT;
            } else if (fl.number == 10) {
                name = ts__file_printf(r->f, err, "%s%.*s/%.*s[%lld]", prefix, (int)node.n,
                                       node.p, (int)aname.n, aname.p, (long long)ti++);
            } else {
                name = ts__file_printf(r->f, err, "%s%.*s/%.*s", prefix, (int)node.n, node.p,
                                       (int)aname.n, aname.p);
            }
            if (!name)
                return TS_ERR_NOMEM;
            tensor_ctx c = {prefix, name, src};
            st = fl.number == 22 ? read_sparse(r, &a, &fl, prefix, name, src)
                                 : tensor_field(r, &a, &fl, &c, NULL);
            if (st)
                return st;
            break;
        }
        case 6:  /* g */
        case 11: /* graphs */
        {
            const char *p = fl.number == 6
                                ? ts__file_printf(r->f, err, "%s%.*s/%.*s/", prefix, (int)node.n,
                                                  node.p, (int)aname.n, aname.p)
                                : ts__file_printf(r->f, err, "%s%.*s/%.*s[%lld]/", prefix,
                                                  (int)node.n, node.p, (int)aname.n, aname.p,
                                                  (long long)gi++);
            if (!p)
                return TS_ERR_NOMEM;
            if ((st = subgraph(r, &a, &fl, p)))
                return st;
            break;
        }
        default:
            break;
        }
    }
    return k < 0 ? a.status : TS_OK;
}

/* NodeProto: output 2, name 3, op_type 4, attribute 5, domain 7. */
static ts_status read_node(onnx_reader *r, ts__pb_msg *m, const char *prefix)
{
    ts_error *err = r->err;
    ts__pb_msg n = *m;
    ts__pb_field fl;
    int k, has_attr = 0;
    span name = {"", 0}, out0 = {"", 0}, op = {"", 0}, domain = {"", 0};
    int outputs = 0;
    ts_status st;
    while ((k = ts__pb_next(&n, &fl, err)) > 0) {
        if (fl.truncated)
            break; /* the second pass descends to name the place */
        switch (fl.number) {
        case 2:
            if ((st = ts__pb_want(&fl, TS__PB_LEN, "node output", err)))
                return st;
            if (outputs++ == 0 && (st = span_get(r, &fl, &out0, err)))
                return st;
            break;
        case 3:
        case 4:
        case 7:
            if ((st = ts__pb_want(&fl, TS__PB_LEN, "node name", err)))
                return st;
            if ((st = span_get(r, &fl, fl.number == 3 ? &name : fl.number == 4 ? &op : &domain,
                               err)))
                return st;
            break;
        case 5:
            has_attr = 1;
            break;
        default:
            break;
        }
    }
    if (k < 0 && !n.pending)
        return n.status;
    if (!has_attr && !n.pending)
        return TS_OK;
    if (memchr(name.p, '\0', name.n) || memchr(out0.p, '\0', out0.n))
        return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)m->pos,
                        "node at byte %zu has a name with a NUL byte", m->pos);
    int is_constant = span_eq(op, "Constant") &&
                      (domain.n == 0 || span_eq(domain, "ai.onnx"));
    span shown = name.n ? name : out0;
    n = *m;
    while ((k = ts__pb_next(&n, &fl, err)) > 0) {
        if (fl.number != 5)
            continue;
        ts__pb_msg a;
        if ((st = ts__pb_sub(&n, &fl, &a, err)) ||
            (st = read_attribute(r, &a, prefix, shown, out0, is_constant)))
            return st;
    }
    return k < 0 ? n.status : TS_OK;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* ValueInfoProto -> {"name", "dtype", "shape"} for the metadata. */
static json_t *value_info(onnx_reader *r, ts__pb_msg *m, span *name_out, ts_error *out_err,
                          ts_status *st)
{
    ts_error local, *err = &local;
    memset(&local, 0, sizeof local);
    ts__pb_field fl;
    int k;
    span name = {"", 0};
    json_t *shape = json_null();
    const char *dtype = NULL;
    while ((k = ts__pb_next(m, &fl, err)) > 0) {
        if (fl.number == 1 && fl.wire == TS__PB_LEN) {
            if (span_get(r, &fl, &name, err))
                goto fail;
        } else if (fl.number == 2 && fl.wire == TS__PB_LEN) {
            /* TypeProto.tensor_type 1 -> elem_type 1, shape 2 -> dim 1 */
            ts__pb_msg tp, tt, sh, dm;
            ts__pb_field a, b, c, d;
            int k1, k2, k3, k4;
            if (ts__pb_sub(m, &fl, &tp, err))
                goto fail;
            while ((k1 = ts__pb_next(&tp, &a, err)) > 0) {
                if (a.number != 1 || a.wire != TS__PB_LEN)
                    continue;
                if (ts__pb_sub(&tp, &a, &tt, err))
                    goto fail;
                while ((k2 = ts__pb_next(&tt, &b, err)) > 0) {
                    if (b.number == 1 && b.wire == TS__PB_VARINT) {
                        const onnx_type *t = type_of(b.value);
                        dtype = t ? ts_dtype_name(t->dtype) : "unknown";
                    } else if (b.number == 2 && b.wire == TS__PB_LEN) {
                        json_decref(shape);
                        shape = json_array();
                        if (ts__pb_sub(&tt, &b, &sh, err))
                            goto fail;
                        while ((k3 = ts__pb_next(&sh, &c, err)) > 0) {
                            if (c.number != 1 || c.wire != TS__PB_LEN)
                                continue;
                            json_t *dim = json_null();
                            if (ts__pb_sub(&sh, &c, &dm, err))
                                goto fail;
                            while ((k4 = ts__pb_next(&dm, &d, err)) > 0) {
                                if (d.number == 1 && d.wire == TS__PB_VARINT) {
                                    json_decref(dim);
                                    dim = json_integer((json_int_t)d.value);
                                } else if (d.number == 2 && d.wire == TS__PB_LEN) {
                                    json_decref(dim);
                                    span ds;
                                    if (span_get(r, &d, &ds, err))
                                        goto fail;
                                    dim = json_stringn(ds.p, ds.n);
                                    if (!dim)
                                        dim = json_string("?");
                                }
                            }
                            json_array_append_new(shape, dim);
                            if (k4 < 0)
                                goto fail;
                        }
                        if (k3 < 0)
                            goto fail;
                    }
                }
                if (k2 < 0)
                    goto fail;
            }
            if (k1 < 0)
                goto fail;
        }
    }
    if (k < 0)
        goto fail;
    *name_out = name;
    json_t *nm = json_stringn(name.p, name.n);
    return json_pack("{s:o,s:s?,s:o}", "name", nm ? nm : json_string("?"), "dtype", dtype,
                     "shape", shape);
fail:
    json_decref(shape);
    *st = local.code ? local.code : TS_ERR_FORMAT;
    if (out_err)
        *out_err = local;
    return NULL;
}

/* Graph inputs (minus initializers) and outputs as metadata, gathered over
 * the occurrences of the model's graph (read_model_graphs) and added at the
 * last one. */
static ts_status graph_io(onnx_reader *r, const ts__pb_msg *g, int last)
{
    ts_error *err = r->err;
    if (r->n_init && !r->io[0])
        qsort(r->init_names, r->n_init, sizeof *r->init_names, cmp_str);
    if (!r->io[0]) {
        r->io[0] = json_array();
        r->io[1] = json_array();
    }
    json_t **lists = r->io;
    ts__pb_msg m = *g;
    ts__pb_field fl;
    int k;
    ts_status st = TS_OK;
    while ((k = ts__pb_next(&m, &fl, err)) > 0) {
        if ((fl.number != 11 && fl.number != 12) || fl.wire != TS__PB_LEN)
            continue;
        ts__pb_msg v;
        span name;
        if ((st = ts__pb_sub(&m, &fl, &v, err)))
            break;
        json_t *j = value_info(r, &v, &name, err, &st);
        if (!j) {
            if (!st)
                st = ts__error(err, TS_ERR_NOMEM, "out of memory for graph inputs");
            break;
        }
        if (fl.number == 11 && r->n_init) {
            char key[256];
            snprintf(key, sizeof key, "%.*s", (int)(name.n < 255 ? name.n : 255), name.p);
            const char *kp = key;
            if (name.n < 255 &&
                bsearch(&kp, r->init_names, r->n_init, sizeof *r->init_names, cmp_str)) {
                json_decref(j);
                continue;
            }
        }
        json_array_append_new(lists[fl.number - 11], j);
    }
    if (k < 0 && !st)
        st = m.status;
    for (int i = 0; i < 2 && !st && last; i++) {
        char *text = json_dumps(lists[i], JSON_COMPACT);
        if (!text) {
            st = ts__error(err, TS_ERR_NOMEM, "out of memory for graph %s",
                           i ? "outputs" : "inputs");
            break;
        }
        const char *key = i ? "graph.outputs" : "graph.inputs";
        st = ts__file_add_metadata(r->f, key, strlen(key), text, strlen(text), err);
        free(text);
    }
    return st;
}

/* ---- which nodes consume an initializer ------------------------------------ */

/* A node input of the model's graph: the name it reads, and the node. */
typedef struct use {
    span input, node;
} use;

static int cmp_span(span a, span b)
{
    int c = memcmp(a.p, b.p, a.n < b.n ? a.n : b.n);
    return c ? c : (a.n > b.n) - (a.n < b.n);
}

static int cmp_use(const void *a, const void *b)
{
    const use *x = a, *y = b;
    int c = cmp_span(x->input, y->input);
    return c ? c : x->node.p < y->node.p ? -1 : x->node.p > y->node.p;
}

/* The inputs (1) of the nodes (1) of graph piece g, each with its node's
 * name (3; else its op_type, 4), into r->uses. */
static ts_status collect_uses(onnx_reader *r, const ts__pb_msg *g)
{
    ts__pb_msg m = *g;
    ts__pb_field fl;
    int k;
    while ((k = ts__pb_next(&m, &fl, NULL)) > 0) {
        if (fl.number != 1 || fl.wire != TS__PB_LEN || fl.truncated)
            continue;
        ts__pb_msg n, n2;
        ts__pb_field h;
        if (ts__pb_sub(&m, &fl, &n, NULL))
            continue;
        span name = {"", 0}, op = {"", 0};
        ts_status st = TS_OK;
        n2 = n;
        while (!st && ts__pb_next(&n2, &h, NULL) > 0)
            if (h.wire == TS__PB_LEN && h.number == 3)
                st = span_get(r, &h, &name, r->err);
            else if (h.wire == TS__PB_LEN && h.number == 4)
                st = span_get(r, &h, &op, r->err);
        if (st)
            return st;
        if (!name.n)
            name = op;
        while (ts__pb_next(&n, &h, NULL) > 0) {
            if (h.number != 1 || h.wire != TS__PB_LEN || h.len == 0)
                continue;
            if (r->n_uses == r->cap_uses) {
                size_t cap = r->cap_uses ? 2 * r->cap_uses : 64;
                use *u = realloc(r->uses, cap * sizeof *u);
                if (!u)
                    return ts__error(r->err, TS_ERR_NOMEM, "out of memory");
                r->uses = u;
                r->cap_uses = cap;
            }
            if ((st = span_get(r, &h, &r->uses[r->n_uses].input, r->err)))
                return st;
            r->uses[r->n_uses++].node = name;
        }
    }
    return TS_OK; /* a corrupt node is named by the reading passes */
}

/* Appends to a's note the nodes that read it: "; read by NODE" (at most
 * three, then how many more), or "; read by no node" (in a graph that has
 * nodes). So an exported model's initializers (onnx::Conv_193) can be
 * matched to its layers (/layer1/layer1.0/conv1/Conv). */
static ts_status note_consumers(onnx_reader *r, ts_array *a)
{
    if (r->n_uses == 0)
        return TS_OK; /* a graph without nodes (weights only): nothing to say */
    span name = {a->name, strlen(a->name)};
    size_t lo = 0, hi = r->n_uses;
    while (lo < hi) { /* the first use of name */
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_span(r->uses[mid].input, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    char buf[640];
    size_t pos = (size_t)snprintf(buf, sizeof buf, "; read by ");
    size_t count = 0;
    for (size_t i = lo; i < r->n_uses && cmp_span(r->uses[i].input, name) == 0; i++) {
        if (i > lo && r->uses[i].node.p == r->uses[i - 1].node.p)
            continue; /* one node reading it twice */
        if (count++ < 3 && pos < sizeof buf) {
            const span *nd = &r->uses[i].node;
            int k = snprintf(buf + pos, sizeof buf - pos, "%s%.*s", count > 1 ? ", " : "",
                             (int)(nd->n < 160 ? nd->n : 160), nd->p);
            pos += k > 0 ? (size_t)k : 0;
        }
    }
    if (count == 0)
        snprintf(buf, sizeof buf, "; read by no node");
    else if (count > 3 && pos < sizeof buf)
        snprintf(buf + pos, sizeof buf - pos, " and %zu more", count - 3);
    const char *note = ts__file_printf(r->f, r->err, "%s%s", a->note ? a->note : "", buf);
    if (!note)
        return TS_ERR_NOMEM;
    a->note = note;
    return TS_OK;
}

/* GraphProto: initializers (5) and sparse initializers (15) in file order.
 * `top`: the model's graph, whose initializer names are kept for
 * graph_io. */
static ts_status graph_inits(onnx_reader *r, const ts__pb_msg *g, const char *prefix, int top)
{
    ts_error *err = r->err;
    ts__pb_msg m = *g;
    ts__pb_field fl;
    int k;
    ts_status st;
    while ((k = ts__pb_next(&m, &fl, err)) > 0) {
        if (fl.truncated && fl.number != 5 && fl.number != 15)
            break; /* a cut node: the second pass descends to name the place */
        if (fl.number == 5) {
            ts_array *a = NULL;
            tensor_ctx c = {prefix, NULL, SRC_INITIALIZER};
            if ((st = tensor_field(r, &m, &fl, &c, &a)))
                return st;
            if (top && (st = note_consumers(r, a)))
                return st;
            if (top && r->opts->want_metadata) {
                if (r->n_init == r->cap_init) {
                    size_t cap = r->cap_init ? r->cap_init * 2 : 16;
                    const char **p = realloc(r->init_names, cap * sizeof *p);
                    if (!p)
                        return ts__error(err, TS_ERR_NOMEM, "out of memory");
                    r->init_names = p;
                    r->cap_init = cap;
                }
                r->init_names[r->n_init++] = a->name;
            }
        } else if (fl.number == 15) {
            if ((st = ts__pb_want(&fl, TS__PB_LEN, "sparse_initializer", err)) ||
                (st = read_sparse(r, &m, &fl, prefix, NULL, SRC_SPARSE)))
                return st;
        }
    }
    return k < 0 ? m.status : TS_OK;
}

/* GraphProto: the nodes (1) and their subgraphs. */
static ts_status graph_nodes(onnx_reader *r, const ts__pb_msg *g, const char *prefix)
{
    ts__pb_msg m = *g;
    ts__pb_field fl;
    int k;
    ts_status st;
    while ((k = ts__pb_next(&m, &fl, r->err)) > 0) {
        if (fl.number != 1)
            continue;
        ts__pb_msg n;
        if ((st = ts__pb_sub(&m, &fl, &n, r->err)) || (st = read_node(r, &n, prefix)))
            return st;
    }
    return k < 0 ? m.status : TS_OK;
}

/* A subgraph (an attribute's g or graphs, a training_info initialization):
 * initializers, then nodes. A GraphProto holds only repeated fields besides
 * its name, so one given twice (protobuf merges the two: repeated fields
 * concatenated) is read right by reading each occurrence in turn. */
static ts_status read_graph(onnx_reader *r, ts__pb_msg *g, const char *prefix)
{
    ts_status st = graph_inits(r, g, prefix, 0);
    return st ? st : graph_nodes(r, g, prefix);
}

/* The model's graph, ModelProto field 7, which may be given several times:
 * protobuf merges them into one GraphProto (repeated fields concatenated,
 * as onnx and onnxruntime see them), so every occurrence is read, in file
 * order: all initializers, then all nodes, then inputs and outputs. */
static ts_status read_model_graphs(onnx_reader *r, size_t count)
{
    ts_status st = TS_OK;
    for (int pass = -1; pass < 3 && !st; pass++) {
        if (pass == 0 && r->n_uses > 1)
            qsort(r->uses, r->n_uses, sizeof *r->uses, cmp_use);
        if (pass == 2 && !r->opts->want_metadata)
            break;
        ts__pb_msg top, g;
        ts__pb_field fl;
        ts__pb_init_src(&top, r->data, r->len, ts__file_source(r->f));
        size_t seen = 0;
        int k;
        while (!st && seen < count && (k = ts__pb_next(&top, &fl, r->err)) > 0) {
            if (fl.number != 7)
                continue;
            seen++;
            if ((st = ts__pb_sub(&top, &fl, &g, r->err)))
                break;
            st = pass == -1  ? collect_uses(r, &g)
                 : pass == 0 ? graph_inits(r, &g, "", 1)
                 : pass == 1 ? graph_nodes(r, &g, "")
                             : graph_io(r, &g, seen == count);
        }
    }
    return st;
}

/* ---- ModelProto ---------------------------------------------------------- */

/* Structural check of the top-level fields: known ModelProto fields with
 * their wire types, and a graph. Truncation after a complete graph key is
 * accepted (the reader then reports where the file ends). */
static int probe_onnx(const unsigned char *data, size_t len, ts__source *src)
{
    ts__pb_msg m;
    ts__pb_field f;
    ts__pb_init_src(&m, data, len, src);
    int graph = 0, k, n = 0;
    if (len >= 8 && memcmp(data + 4, "ORTM", 4) == 0)
        return 0;
    while ((k = ts__pb_next(&m, &f, NULL)) > 0) {
        n++;
        switch (f.number) {
        case 1:
            if (f.wire != TS__PB_VARINT || f.value == 0 || f.value > 100)
                return 0;
            break;
        case 5:
            if (f.wire != TS__PB_VARINT)
                return 0;
            break;
        case 2: case 3: case 4: case 6: case 8: case 14: case 20: case 25:
            if (f.wire != TS__PB_LEN)
                return 0;
            break;
        case 7:
            if (f.wire != TS__PB_LEN)
                return 0;
            graph = 1;
            break;
        default:
            if (f.number < 30)
                return 0;
        }
    }
    return graph && (k == 0 || m.pending);
}

static ts_status not_onnx(ts_error *err, ts_status st)
{
    ts__error_prefix(err, "not an ONNX model");
    return st;
}

static ts_status read_onnx(ts_file *f, const unsigned char *data, size_t len,
                           const ts_open_options *opts, ts_error *err)
{
    if (len >= 8 && memcmp(data + 4, "ORTM", 4) == 0)
        return ts__fail(err, TS_ERR_UNSUPPORTED, 0, 4,
                        "an ONNX Runtime .ort model (FlatBuffers, identifier ORTM at byte 4), "
                        "not an ONNX protobuf: not supported");
    onnx_reader r = {f, data, len, opts, err, NULL, 0, 0, NULL, 0, {NULL, NULL}, NULL, 0, 0};
    ts__pb_msg m;
    ts__pb_field fl;
    ts__pb_init_src(&m, data, len, ts__file_source(f));
    int k;
    size_t have_graph = 0;
    uint64_t ir_version = 0;
    span producer = {"", 0};
    json_t *opsets = json_object();
    ts_status st = TS_OK;
    /* Pass 1: the model's fields, checked for their wire types. */
    while ((k = ts__pb_next(&m, &fl, err)) > 0) {
        const char *what = NULL;
        int wire = TS__PB_LEN;
        switch (fl.number) {
        case 1: what = "ir_version"; wire = TS__PB_VARINT; break;
        case 2: what = "producer_name"; break;
        case 5: what = "model_version"; wire = TS__PB_VARINT; break;
        case 7: what = "graph"; break;
        case 8: what = "opset_import"; break;
        case 20: what = "training_info"; break;
        case 25: what = "functions"; break;
        default: break;
        }
        if (what && (st = ts__pb_want(&fl, wire, what, err))) {
            json_decref(opsets);
            return not_onnx(err, st);
        }
        if (fl.number == 1) {
            ir_version = fl.value;
        } else if (fl.number == 2) {
            if ((st = span_get(&r, &fl, &producer, err)))
                goto done;
        } else if (fl.number == 7) {
            have_graph++; /* every occurrence is read: read_model_graphs */
            if (fl.truncated)
                break; /* descend to name the place the file ends */
        } else if (fl.number == 8 && opts->want_metadata) {
            ts__pb_msg o;
            ts__pb_field g;
            span dom = {"", 0};
            uint64_t ver = 0;
            if (ts__pb_sub(&m, &fl, &o, err) == TS_OK) {
                while (ts__pb_next(&o, &g, NULL) > 0) {
                    if (g.number == 1 && g.wire == TS__PB_LEN &&
                        span_get(&r, &g, &dom, NULL) != TS_OK)
                        dom.n = 0;
                    else if (g.number == 2 && g.wire == TS__PB_VARINT)
                        ver = g.value;
                }
                char key[128];
                snprintf(key, sizeof key, "%.*s", (int)(dom.n < 100 ? dom.n : 100), dom.p);
                json_object_set_new(opsets, key[0] ? key : "ai.onnx",
                                    json_integer((json_int_t)ver));
            }
        }
    }
    if (k < 0 && !have_graph) {
        json_decref(opsets);
        return not_onnx(err, m.status);
    }
    if (!have_graph) {
        json_decref(opsets);
        return ts__fail(err, TS_ERR_FORMAT, 0, 0,
                        "not an ONNX model: no graph (ModelProto field 7) in %zu bytes", len);
    }
    if (ir_version)
        ts__file_set_version(f, ts__file_printf(f, err, "IR %llu",
                                                (unsigned long long)ir_version));
    if ((st = read_model_graphs(&r, have_graph)))
        goto done;
    if (k < 0) { /* the model's walk failed after the graph */
        st = m.status;
        goto done;
    }
    /* training_info[i].initialization (field 1), functions[i] nodes (7) */
    ts__pb_init_src(&m, data, len, ts__file_source(f));
    int64_t ti = 0;
    while ((k = ts__pb_next(&m, &fl, err)) > 0) {
        if (fl.number != 20 && fl.number != 25)
            continue;
        ts__pb_msg t;
        ts__pb_field h;
        int kk;
        if ((st = ts__pb_sub(&m, &fl, &t, err)))
            goto done;
        if (fl.number == 20) {
            const char *p = ts__file_printf(f, err, "training_info[%lld]/", (long long)ti++);
            if (!p) {
                st = TS_ERR_NOMEM;
                goto done;
            }
            while ((kk = ts__pb_next(&t, &h, err)) > 0)
                if (h.number == 1 && (st = subgraph(&r, &t, &h, p)))
                    goto done;
        } else {
            ts__pb_msg t2 = t;
            span fname = {"", 0};
            while ((kk = ts__pb_next(&t2, &h, err)) > 0)
                if (h.number == 1 && h.wire == TS__PB_LEN && (st = span_get(&r, &h, &fname, err)))
                    goto done;
            if (kk < 0) {
                st = t2.status;
                goto done;
            }
            const char *p = ts__file_printf(f, err, "functions/%.*s/", (int)fname.n, fname.p);
            if (!p) {
                st = TS_ERR_NOMEM;
                goto done;
            }
            while ((kk = ts__pb_next(&t, &h, err)) > 0) {
                ts__pb_msg n;
                if (h.number == 7 &&
                    ((st = ts__pb_sub(&t, &h, &n, err)) || (st = read_node(&r, &n, p))))
                    goto done;
            }
        }
        if (kk < 0) {
            st = t.status;
            goto done;
        }
    }
    if (k < 0) {
        st = m.status;
        goto done;
    }
    if (opts->want_metadata) {
        char buf[64];
        int n = snprintf(buf, sizeof buf, "%llu", (unsigned long long)ir_version);
        json_t *pj = json_stringn(producer.p, producer.n);
        char *pt = pj ? json_dumps(pj, JSON_ENCODE_ANY) : NULL;
        char *ot = json_dumps(opsets, JSON_COMPACT);
        json_decref(pj);
        if ((st = ts__file_add_metadata(f, "ir_version", 10, buf, (size_t)n, err)) == TS_OK &&
            pt)
            st = ts__file_add_metadata(f, "producer_name", 13, pt, strlen(pt), err);
        if (st == TS_OK && ot)
            st = ts__file_add_metadata(f, "opset_import", 12, ot, strlen(ot), err);
        free(pt);
        free(ot);
    }
done:
    json_decref(opsets);
    free(r.uses);
    json_decref(r.io[0]);
    json_decref(r.io[1]);
    free(r.init_names);
    return st;
}

const ts__reader ts__reader_onnx = {
    {TS_FORMAT_ONNX, "onnx", ".onnx .pb",
     "extension .onnx (or .pb) and the protobuf structure of a ModelProto",
     "ONNX model (initializers, Constant nodes, subgraphs; external data)", "data_type", 1},
    probe_onnx,
    read_onnx,
    0,
};
