/*
 * caffe2_pb.c - reader for Caffe2 protobuf files (caffe2/proto/caffe2.proto),
 * header only: a TensorProtos list (field 1 only) or an init NetDef whose
 * GivenTensor*Fill operators carry the weights (`shape` and `values`
 * arguments). Named caffe2_pb.c because src/ops/caffe2.c exists.
 *
 * TensorProto: the dtype defaults to FLOAT; offsets for raw_data, byte_data
 * and one packed float_data/double_data field; varint lists (int32_data,
 * int64_data) and strings have none. Init nets: one array per fill op,
 * named by its first output; the values are counted against the shape.
 * `floats` is not packed in caffe2.proto, so standard writers give no
 * offset; a packed float32 list does.
 */
#include "protobuf.h"
#include "reader.h"

#include <stdio.h>

/* caffe2 TensorProto.DataType */
typedef struct c2_type {
    const char *name;
    ts_dtype dtype;
} c2_type;

#define N_C2_TYPES 16
static const c2_type c2_types[N_C2_TYPES] = {
    [1] = {"FLOAT", TS_DTYPE_FLOAT32},   [2] = {"INT32", TS_DTYPE_INT32},
    [3] = {"BYTE", TS_DTYPE_UINT8},      [4] = {"STRING", TS_DTYPE_OBJECT},
    [5] = {"BOOL", TS_DTYPE_BOOL},       [6] = {"UINT8", TS_DTYPE_UINT8},
    [7] = {"INT8", TS_DTYPE_INT8},       [8] = {"UINT16", TS_DTYPE_UINT16},
    [9] = {"INT16", TS_DTYPE_INT16},     [10] = {"INT64", TS_DTYPE_INT64},
    [12] = {"FLOAT16", TS_DTYPE_FLOAT16}, [13] = {"DOUBLE", TS_DTYPE_FLOAT64},
    [14] = {"ZERO_COLLISION_HASH", TS_DTYPE_UNKNOWN},
    [15] = {"REBATCHING_BUFFER", TS_DTYPE_UNKNOWN},
};

typedef struct c2_reader {
    ts_file *f;
    const unsigned char *data;
    size_t len;
    ts_error *err;
} c2_reader;

/* A repeated numeric field, packed or not. */
typedef struct num_list {
    int64_t count;
    int fields, unpacked;
    size_t pos, len;
} num_list;

/* size: 4 or 8 for fixed values, 0 for varints. */
static ts_status add_num(const c2_reader *r, num_list *l, const ts__pb_field *f, size_t size,
                         const char *what)
{
    l->fields++;
    if (f->wire == TS__PB_LEN) {
        int64_t n;
        if (size) {
            if (f->len % size)
                return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)f->key_pos,
                                "packed %s at byte %zu: %zu bytes are not a whole number of "
                                "%zu-byte values", what, f->key_pos, f->len, size);
            n = (int64_t)(f->len / size);
        } else {
            ts__pb_msg whole;
            ts__pb_init_src(&whole, r->data, r->len, ts__file_source(r->f));
            ts_status st = ts__pb_count_varints(&whole, f, &n, r->err);
            if (st)
                return st;
        }
        l->count += n;
        l->pos = f->pos;
        l->len = f->len;
        return TS_OK;
    }
    int want = size == 4 ? TS__PB_FIXED32 : size == 8 ? TS__PB_FIXED64 : TS__PB_VARINT;
    ts_status st = ts__pb_want(f, want, what, r->err);
    if (st)
        return st;
    l->count++;
    l->unpacked = 1;
    return TS_OK;
}

static int one_packed(const num_list *l)
{
    return l->fields == 1 && !l->unpacked;
}

static ts_status name_copy(c2_reader *r, const ts__pb_field *f, const char **out, size_t at)
{
    ts_status st = ts__file_need(r->f, f->pos, f->len, r->err);
    if (st)
        return st;
    if (memchr(r->data + f->pos, '\0', f->len))
        return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)at,
                        "name at byte %zu contains a NUL byte", at);
    *out = ts__file_strndup(r->f, (const char *)r->data + f->pos, f->len, r->err);
    return *out ? TS_OK : TS_ERR_NOMEM;
}

/* ---- TensorProtos ---------------------------------------------------------- */

enum { V_FLOAT, V_INT32, V_BYTE, V_STRING, V_DOUBLE, V_INT64, V_RAW, V_COUNT };
static const char *const v_names[V_COUNT] = {"float_data", "int32_data", "byte_data",
                                             "string_data", "double_data", "int64_data",
                                             "raw_data"};

static ts_status read_tensor(c2_reader *r, ts__pb_msg *m, int64_t index, size_t at)
{
    ts_error *err = r->err;
    int64_t dims[TS_MAX_NDIM];
    int ndim = 0, has_name = 0, segment = 0;
    uint64_t type = 1, data_format = 0;
    num_list v[V_COUNT];
    memset(v, 0, sizeof v);
    ts__pb_field fl, name_f = {0};
    int k;
    ts_status st = TS_OK;
    while (!st && (k = ts__pb_next(m, &fl, err)) > 0) {
        switch (fl.number) {
        case 1: st = ts__pb_dims(m, &fl, dims, &ndim, "dims", err); break;
        case 2:
            if (!(st = ts__pb_want(&fl, TS__PB_VARINT, "data_type", err)))
                type = fl.value;
            break;
        case 3: st = add_num(r, &v[V_FLOAT], &fl, 4, "float_data"); break;
        case 4: st = add_num(r, &v[V_INT32], &fl, 0, "int32_data"); break;
        case 5: case 6: case 13:
            if ((st = ts__pb_want(&fl, TS__PB_LEN, v_names[fl.number == 5   ? V_BYTE
                                                          : fl.number == 6 ? V_STRING
                                                                           : V_RAW],
                                  err)))
                break;
            {
                num_list *l = &v[fl.number == 5 ? V_BYTE : fl.number == 6 ? V_STRING : V_RAW];
                l->fields++;
                l->count += fl.number == 6 ? 1 : (int64_t)fl.len;
                l->pos = fl.pos;
                l->len = fl.len;
            }
            break;
        case 7:
            if (!(st = ts__pb_want(&fl, TS__PB_LEN, "name", err)) && !fl.truncated) {
                name_f = fl;
                has_name = 1;
            }
            break;
        case 9: st = add_num(r, &v[V_DOUBLE], &fl, 8, "double_data"); break;
        case 10: st = add_num(r, &v[V_INT64], &fl, 0, "int64_data"); break;
        case 11: segment = 1; break;
        case 15:
            if (!(st = ts__pb_want(&fl, TS__PB_VARINT, "data_format", err)))
                data_format = fl.value;
            break;
        default: break; /* device_detail 8, unknown */
        }
    }
    if (!st && k < 0)
        st = m->status;
    const char *name = "";
    if (!st && has_name)
        st = name_copy(r, &name_f, &name, name_f.key_pos);
    if (st) {
        char buf[128];
        if (has_name)
            ts__error_entry(err, (int64_t)index, "tensor %lld ('%s')", (long long)index,
                             ts__printable((const char *)r->data + name_f.pos, name_f.len, buf,
                                           sizeof buf));
        else
            ts__error_entry(err, (int64_t)index, "tensor %lld", (long long)index);
        return st;
    }
    const c2_type *t = type < N_C2_TYPES && c2_types[type].name ? &c2_types[type] : NULL;
    if (!t)
        return ts__fail(err, TS_ERR_DTYPE, 0, (int64_t)at,
                        "tensor %lld ('%s'): unknown data_type %llu", (long long)index, name,
                        (unsigned long long)type);
    if (t->dtype == TS_DTYPE_UNKNOWN)
        return TS_OK; /* hash tables and buffers are not tensors */
    if (segment)
        return ts__fail(err, TS_ERR_UNSUPPORTED, 0, (int64_t)at,
                        "tensor '%s' is stored in segments, which tshape does not read", name);
    ts_array *a = ts__file_add_array(r->f, err);
    if (!a)
        return ts__file_add_failure(r->f);
    a->name = name;
    ts__array_set_dtype(a, t->dtype);
    a->format_dtype = t->name;
    a->byteorder = a->itemsize > 1 ? '<' : '|';
    if ((st = ts_shape_assign(&a->shape, dims, ndim, err)) ||
        (st = ts__array_compute_sizes(a, err))) {
        ts__error_prefix(err, "tensor '%s'", name);
        return st;
    }
    if (t->dtype == TS_DTYPE_OBJECT)
        a->nbytes = -1;
    int which = -1;
    for (int i = 0; i < V_COUNT; i++)
        if (v[i].fields) {
            if (which >= 0)
                return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)at,
                                "tensor '%s' has values in both %s and %s", name,
                                v_names[which], v_names[i]);
            which = i;
        }
    if (which < 0) {
        if (a->size)
            return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)at,
                            "tensor '%s' has %lld elements but no data", name,
                            (long long)a->size);
        a->note = "no data (0 elements)";
        return TS_OK;
    }
    const num_list *l = &v[which];
    /* Which fields fit which types, and how many entries they need. */
    int fits;
    int64_t want = a->size;
    int bf16 = 0;
    switch (which) {
    case V_FLOAT: fits = t->dtype == TS_DTYPE_FLOAT32; break;
    case V_DOUBLE: fits = t->dtype == TS_DTYPE_FLOAT64; break;
    case V_INT64: fits = t->dtype == TS_DTYPE_INT64; break;
    case V_STRING: fits = t->dtype == TS_DTYPE_OBJECT; break;
    case V_INT32:
        fits = t->dtype != TS_DTYPE_FLOAT32 && t->dtype != TS_DTYPE_FLOAT64 &&
               t->dtype != TS_DTYPE_INT64 && t->dtype != TS_DTYPE_OBJECT;
        break;
    default: /* raw_data, byte_data: the little-endian elements */
        fits = t->dtype != TS_DTYPE_OBJECT;
        bf16 = which == V_RAW && t->dtype == TS_DTYPE_FLOAT32 && data_format == 1;
        want = bf16 ? a->size * 2 : a->nbytes; /* size * 2 <= nbytes: no overflow */
        if (l->fields > 1)
            return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)at,
                            "tensor '%s': %s appears %d times", name, v_names[which],
                            l->fields);
        break;
    }
    if (!fits)
        return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)at,
                        "tensor '%s': %s values cannot be stored in %s", name, t->name,
                        v_names[which]);
    if (l->count != want)
        return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)at,
                        "tensor '%s': %s has %lld %s, the shape needs %lld", name,
                        v_names[which], (long long)l->count,
                        which == V_RAW || which == V_BYTE ? "bytes" : "values",
                        (long long)want);
    if (bf16) {
        a->note = "raw_data holds bfloat16 values of this float32 tensor (data_format 1)";
        return TS_OK;
    }
    if (which == V_RAW || which == V_BYTE ||
        ((which == V_FLOAT || which == V_DOUBLE) && one_packed(l) &&
         (int64_t)l->len == a->nbytes))
        a->data_offset = (int64_t)l->pos;
    a->note = ts__file_printf(r->f, err, "TensorProto, %s", v_names[which]);
    return a->note ? TS_OK : TS_ERR_NOMEM;
}

/* ---- NetDef init nets --------------------------------------------------- */

typedef struct fill_kind {
    const char *op;
    ts_dtype dtype;
    int values;          /* 0 floats, 1 ints, 2 strings, 3 one byte string */
} fill_kind;

static const fill_kind fills[] = {
    {"GivenTensorFill", TS_DTYPE_FLOAT32, 0},
    {"GivenTensorDoubleFill", TS_DTYPE_FLOAT64, 0},
    {"GivenTensorIntFill", TS_DTYPE_INT32, 1},
    {"GivenTensorInt64Fill", TS_DTYPE_INT64, 1},
    {"GivenTensorInt16Fill", TS_DTYPE_INT16, 1},
    {"GivenTensorBoolFill", TS_DTYPE_BOOL, 1},
    {"GivenTensorStringFill", TS_DTYPE_OBJECT, 2},
    {"GivenTensorByteStringToUInt8Fill", TS_DTYPE_UINT8, 3},
};
static const char *const values_names[] = {"values:floats", "values:ints", "values:strings",
                                           "values:strings"};

/* OperatorDef: output 2, type 4, arg 5 (Argument: name 1, i 3, floats 5,
 * ints 6, strings 7). */
static ts_status read_op(c2_reader *r, const ts__pb_msg *parent, const ts__pb_field *pf)
{
    ts_error *err = r->err;
    ts__pb_msg m;
    ts_status st = ts__pb_sub(parent, pf, &m, err);
    if (st)
        return st;
    ts__pb_field fl, out0 = {0};
    int k, outputs = 0;
    const fill_kind *fk = NULL;
    const char *op = NULL;
    size_t oplen = 0;
    ts__pb_msg w = m;
    while ((k = ts__pb_next(&w, &fl, err)) > 0) {
        if (fl.truncated)
            break; /* the second pass descends to name the place */
        if (fl.number == 2 && outputs++ == 0) {
            if ((st = ts__pb_want(&fl, TS__PB_LEN, "operator output", err)))
                return st;
            out0 = fl;
        } else if (fl.number == 4) {
            if ((st = ts__pb_want(&fl, TS__PB_LEN, "operator type", err)))
                return st;
            if ((st = ts__pb_fetch(&m, &fl, err)))
                return st;
            op = (const char *)r->data + fl.pos;
            oplen = fl.len;
        }
    }
    if (k < 0 && !w.pending)
        return w.status;
    for (size_t i = 0; op && i < sizeof fills / sizeof *fills; i++)
        if (strlen(fills[i].op) == oplen && memcmp(fills[i].op, op, oplen) == 0)
            fk = &fills[i];
    if (!fk)
        return TS_OK; /* creates no stored tensor */
    const char *name = "";
    if (outputs == 0)
        return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)pf->key_pos,
                        "%s operator at byte %zu has no output", fk->op, pf->key_pos);
    if ((st = name_copy(r, &out0, &name, out0.key_pos)))
        return st;
    ts_dtype dtype = fk->dtype;
    int values = fk->values;
    int64_t dims[TS_MAX_NDIM];
    int ndim = 0, has_shape = 0, has_values = 0;
    num_list vals = {0};
    size_t str_pos = 0, str_len = 0;
    /* Arguments: shape, values, dtype (GivenTensorFill only). */
    w = m;
    while ((k = ts__pb_next(&w, &fl, err)) > 0) {
        if (fl.number != 5)
            continue;
        ts__pb_msg am;
        ts__pb_field g;
        int kk;
        if ((st = ts__pb_sub(&w, &fl, &am, err)))
            goto fail;
        ts__pb_msg a2 = am;
        const char *an = "";
        size_t anl = 0;
        while ((kk = ts__pb_next(&a2, &g, err)) > 0)
            if (g.number == 1 && g.wire == TS__PB_LEN) {
                if ((st = ts__pb_fetch(&a2, &g, err)))
                    return st;
                an = (const char *)r->data + g.pos;
                anl = g.len;
            }
        if (kk < 0) {
            st = a2.status;
            goto fail;
        }
        int is_shape = anl == 5 && memcmp(an, "shape", 5) == 0;
        int is_values = anl == 6 && memcmp(an, "values", 6) == 0;
        int is_dtype = anl == 5 && memcmp(an, "dtype", 5) == 0 && fk == &fills[0];
        if (!is_shape && !is_values && !is_dtype)
            continue;
        if (is_shape) {
            ndim = 0;
            has_shape = 1;
        }
        if (is_values) {
            memset(&vals, 0, sizeof vals);
            has_values = 1;
        }
        while ((kk = ts__pb_next(&am, &g, err)) > 0) {
            if (is_shape && g.number == 6)
                st = ts__pb_dims(&am, &g, dims, &ndim, "shape", err);
            else if (is_dtype && g.number == 3 && g.wire == TS__PB_VARINT) {
                const c2_type *t = g.value < N_C2_TYPES ? &c2_types[g.value] : NULL;
                if (!t || !t->name || t->dtype == TS_DTYPE_UNKNOWN) {
                    st = ts__fail(err, TS_ERR_DTYPE, 0, (int64_t)g.key_pos,
                                  "unknown dtype %llu", (unsigned long long)g.value);
                } else {
                    dtype = t->dtype;
                    values = dtype == TS_DTYPE_FLOAT32 || dtype == TS_DTYPE_FLOAT64 ? 0
                             : dtype == TS_DTYPE_OBJECT                             ? 2
                                                                                    : 1;
                }
            } else if (is_values && g.number == 5 && values == 0)
                st = add_num(r, &vals, &g, 4, "floats");
            else if (is_values && g.number == 6 && values == 1)
                st = add_num(r, &vals, &g, 0, "ints");
            else if (is_values && g.number == 7 && values >= 2) {
                if (!(st = ts__pb_want(&g, TS__PB_LEN, "strings", err))) {
                    vals.fields++;
                    vals.count++;
                    str_pos = g.pos;
                    str_len = g.len;
                }
            }
            if (st)
                goto fail;
        }
        if (kk < 0) {
            st = am.status;
            goto fail;
        }
    }
    if (k < 0) {
        st = w.status;
        goto fail;
    }
    if (!has_shape || !has_values) {
        st = ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)pf->key_pos,
                      "%s at byte %zu has no '%s' argument", fk->op, pf->key_pos,
                      has_shape ? "values" : "shape");
        goto fail;
    }
    ts_array *a = ts__file_add_array(r->f, err);
    if (!a)
        return ts__file_add_failure(r->f);
    a->name = name;
    ts__array_set_dtype(a, dtype);
    a->format_dtype = fk->op;
    a->byteorder = a->itemsize > 1 ? '<' : '|';
    if ((st = ts_shape_assign(&a->shape, dims, ndim, err)) ||
        (st = ts__array_compute_sizes(a, err)))
        goto fail;
    if (dtype == TS_DTYPE_OBJECT)
        a->nbytes = -1;
    int64_t have = values == 3 ? (int64_t)str_len : vals.count;
    if (values == 3 && vals.count != 1) {
        st = ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)pf->key_pos,
                      "%s: values has %lld strings, expected one holding all bytes", fk->op,
                      (long long)vals.count);
        goto fail;
    }
    if (have != a->size) {
        st = ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)pf->key_pos,
                      "%s: %s has %lld values, the shape needs %lld", fk->op,
                      values_names[values], (long long)have, (long long)a->size);
        goto fail;
    }
    if ((values == 0 && dtype == TS_DTYPE_FLOAT32 && one_packed(&vals) &&
         (int64_t)vals.len == a->nbytes))
        a->data_offset = (int64_t)vals.pos;
    else if (values == 3)
        a->data_offset = (int64_t)str_pos;
    a->note = ts__file_printf(r->f, err, "op %s, %s", fk->op, values_names[values]);
    return a->note ? TS_OK : TS_ERR_NOMEM;
fail:
    ts__error_prefix(err, "blob '%s'", name);
    return st;
}

/* ---- detection and the file ---------------------------------------------- */

/* 1 TensorProtos (only field 1, messages), 2 NetDef, 0 neither. */
static int classify(const unsigned char *data, size_t len, ts__source *src)
{
    ts__pb_msg m;
    ts__pb_field f;
    ts__pb_init_src(&m, data, len, src);
    int k, n = 0, only1 = 1;
    while ((k = ts__pb_next(&m, &f, NULL)) > 0) {
        n++;
        switch (f.number) {
        case 1: case 2: case 3: case 5: case 6: case 7: case 8: case 9:
            if (f.wire != TS__PB_LEN)
                return 0;
            break;
        case 4:
            if (f.wire != TS__PB_VARINT)
                return 0;
            break;
        default:
            return 0;
        }
        only1 &= f.number == 1;
    }
    if ((k < 0 && !m.pending) || n == 0)
        return 0;
    return only1 ? 1 : 2;
}

static int probe_caffe2(const unsigned char *data, size_t len, ts__source *src)
{
    return classify(data, len, src) != 0;
}

static ts_status read_caffe2(ts_file *f, const unsigned char *data, size_t len,
                             const ts_open_options *opts, ts_error *err)
{
    (void)opts;
    c2_reader r = {f, data, len, err};
    int kind = classify(data, len, ts__file_source(f));
    ts__pb_msg m;
    ts__pb_field fl;
    int k;
    ts_status st;
    ts__pb_init_src(&m, data, len, ts__file_source(f));
    if (kind == 0) {
        while ((k = ts__pb_next(&m, &fl, err)) > 0)
            ;
        if (k < 0) {
            ts__error_prefix(err, "not a Caffe2 TensorProtos or NetDef");
            return m.status;
        }
        return ts__fail(err, TS_ERR_FORMAT, 0, 0,
                        "not a Caffe2 TensorProtos or NetDef: the top-level fields of this "
                        "protobuf match neither");
    }
    ts__file_set_version(f, kind == 1 ? "TensorProtos" : "NetDef");
    int64_t i = 0;
    while ((k = ts__pb_next(&m, &fl, err)) > 0) {
        if (kind == 1) {
            ts__pb_msg t;
            if ((st = ts__pb_sub(&m, &fl, &t, err)) ||
                (st = read_tensor(&r, &t, i++, fl.key_pos)))
                return st;
        } else if (fl.number == 2 && (st = read_op(&r, &m, &fl))) {
            return st;
        }
    }
    return k < 0 ? m.status : TS_OK;
}

const ts__reader ts__reader_caffe2 = {
    {TS_FORMAT_CAFFE2, "caffe2", ".pb",
     "extension .pb and the protobuf structure of a TensorProtos or NetDef",
     "Caffe2 TensorProtos or init net (GivenTensor*Fill ops)", "type", 0},
    probe_caffe2,
    read_caffe2,
    0,
};
