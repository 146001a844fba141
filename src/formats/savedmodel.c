/*
 * savedmodel.c - reader for TensorFlow SavedModels, header only: the
 * saved_model.pb of a SavedModel folder, and its variables, a checkpoint
 * beside it (variables/variables.index and its data shards, read by the
 * checkpoint reader's walk, tfckpt.h).
 *
 * saved_model.pb (tensorflow/core/protobuf/saved_model.proto and the
 * protos it uses): SavedModel {saved_model_schema_version 1, meta_graphs
 * 2}; MetaGraphDef {meta_info_def 1 {tags 4, tensorflow_version 5},
 * graph_def 2, saver_def 3, collection_def 4, signature_def 5 (map),
 * asset_file_def 6, object_graph_def 7}; GraphDef {node 1, library 2
 * {function 1 {signature 1 {name 1}, node_def 3}}, versions 4}; NodeDef
 * {name 1, op 2, input 3, device 4, attr 5 (map of AttrValue: tensor 8)};
 * TensorProto {dtype 1, tensor_shape 2, tensor_content 4, float_val 5,
 * double_val 6, int_val 7, string_val 8, scomplex_val 9, int64_val 10,
 * bool_val 11, dcomplex_val 12, half_val 13, uint32_val 16, uint64_val 17};
 * SignatureDef {inputs 1, outputs 2 (maps of TensorInfo {name 1, dtype 2,
 * tensor_shape 3}), method_name 3}.
 *
 * Arrays: the variables (named as the checkpoint names them), then every
 * Const node of the first meta graph's graph (its name) and of its
 * functions' bodies (FUNCTION/NODE), its "value" tensor: tensor_content is
 * its data at its offset in saved_model.pb; values in a typed field are
 * read from it (as ONNX typed fields) when it holds one per element;
 * TensorFlow's shorter lists (the last value repeated) are named in the
 * note, without data. Signatures, tags and versions under metadata.
 */
#include "tfckpt.h"
#include "../remote/remote.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#define NAME_BUF 200

/* Fields of the top-level messages the probe and the reader accept. */
static int probe_savedmodel(const unsigned char *data, size_t len, ts__source *src)
{
    ts__pb_msg m;
    ts__pb_field fl;
    int k, graphs = 0, n = 0;
    ts__pb_init_src(&m, data, len, src);
    /* SavedModel: a schema version and meta graphs only */
    while ((k = ts__pb_next(&m, &fl, NULL)) == 1 && n++ < 64) {
        if (fl.number == 1 && fl.wire == TS__PB_VARINT)
            continue;
        if (fl.number != 2 || fl.wire != TS__PB_LEN || fl.truncated)
            return 0;
        /* MetaGraphDef: fields 1..7, all length-delimited */
        ts__pb_msg g;
        ts__pb_field h;
        int j, seen = 0;
        if (ts__pb_sub(&m, &fl, &g, NULL) != TS_OK)
            return 0;
        while ((j = ts__pb_next(&g, &h, NULL)) == 1 && seen < 16) {
            if (h.number < 1 || h.number > 7 || h.wire != TS__PB_LEN)
                return 0;
            seen++;
        }
        if (j < 0 && seen == 0)
            return 0;
        graphs++;
        if (graphs == 1)
            break; /* the first one decides */
    }
    return graphs == 1;
}

typedef struct sm {
    ts_file *f;
    const unsigned char *d;
    size_t len;
    const ts_open_options *opts;
    ts_error *err;
    size_t consts, functions, nodes;
    char *sig;                   /* the signatures, JSON text (scratch) */
    size_t sig_n, sig_cap;
} sm;

static ts_status sig_add(sm *r, const char *s, size_t n)
{
    if (r->sig_n + n + 1 > r->sig_cap) {
        size_t cap = r->sig_cap ? r->sig_cap : 256;
        while (cap < r->sig_n + n + 1)
            cap *= 2;
        char *p = ts__scratch_realloc(r->f, r->sig, cap, r->err);
        if (!p)
            return TS_ERR_NOMEM;
        r->sig = p;
        r->sig_cap = cap;
    }
    memcpy(r->sig + r->sig_n, s, n);
    r->sig_n += n;
    return TS_OK;
}

/* s (n bytes of the file) as a JSON string. */
static ts_status sig_string(sm *r, const unsigned char *s, size_t n)
{
    char buf[64];
    ts__sink sk = {buf, 0, 0, 0, NULL, NULL};
    ts__sink_json_string(&sk, s, n, NULL);
    char *text = ts__scratch_alloc(r->f, sk.total + 1, r->err);
    if (!text)
        return TS_ERR_NOMEM;
    ts__sink out = {text, 0, sk.total + 1, 0, NULL, NULL};
    ts__sink_json_string(&out, s, n, NULL);
    ts_status st = sig_add(r, text, out.n);
    ts__scratch_free(r->f, text);
    return st;
}

/* Checks a string field of at most `max` bytes, fetched. */
static ts_status string_field(sm *r, const ts__pb_msg *m, const ts__pb_field *fl,
                              const char *what)
{
    ts_status st = ts__pb_want(fl, TS__PB_LEN, what, r->err);
    if (!st)
        st = ts__pb_fetch(m, fl, r->err);
    return st;
}

/* ---- Const nodes ------------------------------------------------------------ */

/* The typed field of each DataType (tensor.cc: the values of a TensorProto
 * without tensor_content). */
typedef struct typed {
    uint32_t field;
    int fixed, out, per_element;   /* entries per element: 2 for complex */
    const char *name;
} typed;

static int typed_of(ts_dtype dt, const char *format_dtype, typed *t)
{
    memset(t, 0, sizeof *t);
    t->per_element = 1;
    switch (dt) {
    case TS_DTYPE_FLOAT32: *t = (typed){5, 4, 4, 1, "float_val"}; return 1;
    case TS_DTYPE_FLOAT64: *t = (typed){6, 8, 8, 1, "double_val"}; return 1;
    case TS_DTYPE_COMPLEX64: *t = (typed){9, 4, 4, 2, "scomplex_val"}; return 1;
    case TS_DTYPE_COMPLEX128: *t = (typed){12, 8, 8, 2, "dcomplex_val"}; return 1;
    case TS_DTYPE_INT64: *t = (typed){10, 0, 8, 1, "int64_val"}; return 1;
    case TS_DTYPE_BOOL: *t = (typed){11, 0, 1, 1, "bool_val"}; return 1;
    case TS_DTYPE_FLOAT16:
    case TS_DTYPE_BFLOAT16: *t = (typed){13, 0, 2, 1, "half_val"}; return 1;
    case TS_DTYPE_INT32:
    case TS_DTYPE_INT16:
    case TS_DTYPE_INT8:
    case TS_DTYPE_UINT8:
    case TS_DTYPE_UINT16:
        *t = (typed){7, 0, 0, 1, "int_val"};
        return 1;
    case TS_DTYPE_UINT32:
        *t = (typed){16, 0, 4, 1, "uint32_val"};
        return strcmp(format_dtype, "DT_UINT32") == 0;
    case TS_DTYPE_UINT64: *t = (typed){17, 0, 8, 1, "uint64_val"}; return 1;
    case TS_DTYPE_UNKNOWN: case TS_DTYPE_LONGDOUBLE: case TS_DTYPE_CLONGDOUBLE:
    case TS_DTYPE_FLOAT8_E5M2: case TS_DTYPE_FLOAT8_E4M3FN: case TS_DTYPE_FLOAT8_E4M3FNUZ:
    case TS_DTYPE_FLOAT8_E5M2FNUZ: case TS_DTYPE_FLOAT8_E8M0FNU: case TS_DTYPE_FLOAT6_E2M3FN:
    case TS_DTYPE_FLOAT6_E3M2FN: case TS_DTYPE_FLOAT4_E2M1FN: case TS_DTYPE_DATETIME64:
    case TS_DTYPE_TIMEDELTA64: case TS_DTYPE_BYTES: case TS_DTYPE_UNICODE: case TS_DTYPE_VOID:
    case TS_DTYPE_OBJECT: case TS_DTYPE_STRUCTURED: case TS_DTYPE_QUANTIZED: case TS_DTYPE_INT4:
    case TS_DTYPE_UINT4: case TS_DTYPE_INT2: case TS_DTYPE_UINT2:
        break;
    }
    return 0;
}

/* The TensorProto [at, at + n) of Const node `name`. */
static ts_status add_const(sm *r, const char *name, const ts__pb_msg *parent,
                           const ts__pb_field *tf)
{
    ts__pb_msg m;
    ts__pb_field fl;
    int k;
    char nb[NAME_BUF], who[NAME_BUF + 16];
    snprintf(who, sizeof who, "Const '%s'", ts__printable_str(name, nb, sizeof nb));
    ts_status st = ts__pb_sub(parent, tf, &m, r->err);
    if (st)
        return st;
    uint64_t dtype = 0;
    int64_t dims[TS_MAX_NDIM];
    int ndim = 0, unknown = 0, has_content = 0;
    size_t content_pos = 0, content_len = 0;
    int64_t counts[18] = {0};
    while (!st && (k = ts__pb_next(&m, &fl, r->err)) == 1) {
        if (fl.number == 1) {
            st = ts__pb_want(&fl, TS__PB_VARINT, "dtype", r->err);
            dtype = fl.value;
        } else if (fl.number == 2) {
            if (!(st = ts__pb_want(&fl, TS__PB_LEN, "tensor_shape", r->err)))
                st = ts__tf_shape(&m, &fl, dims, &ndim, &unknown, who, r->err);
        } else if (fl.number == 4) {
            if (!(st = ts__pb_want(&fl, TS__PB_LEN, "tensor_content", r->err))) {
                has_content = 1;
                content_pos = fl.pos;
                content_len = fl.len;
                if (fl.truncated)
                    st = ts__fail(r->err, TS_ERR_TRUNCATED, 0, (int64_t)fl.key_pos,
                                  "%s: file ends inside its tensor_content at byte %zu", who,
                                  fl.pos);
            }
        } else if (fl.number >= 5 && fl.number <= 17 && fl.number != 8 && fl.number != 14 &&
                   fl.number != 15) {
            /* typed values: fixed32 for 5 and 9, fixed64 for 6 and 12 */
            int fixed = fl.number == 5 || fl.number == 9 ? 4
                        : fl.number == 6 || fl.number == 12 ? 8 : 0;
            if (fl.wire == TS__PB_LEN) {
                int64_t n = 0;
                if (fixed) {
                    if (fl.len % (size_t)fixed)
                        st = ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)fl.key_pos,
                                      "%s: packed field %u at byte %zu is not a whole number of "
                                      "%d-byte values", who, fl.number, fl.key_pos, fixed);
                    n = (int64_t)(fl.len / (size_t)fixed);
                } else {
                    st = ts__pb_count_varints(&m, &fl, &n, r->err);
                }
                counts[fl.number] += n;
            } else {
                counts[fl.number]++;
            }
        } else if (fl.number == 8) {
            counts[8]++;
        }
    }
    if (!st && k < 0)
        st = m.status;
    if (st)
        return st;
    ts_array *a = ts__file_add_array(r->f, r->err);
    if (!a)
        return ts__file_add_failure(r->f);
    a->name = name;
    const char *type_note;
    int fixed = ts__tf_set_dtype(a, dtype, 0, &type_note);
    if (fixed < 0)
        return ts__fail(r->err, TS_ERR_DTYPE, 0, (int64_t)tf->key_pos,
                        "%s at byte %zu: DataType %llu is not one tshape knows", who,
                        tf->key_pos, (unsigned long long)dtype);
    if (unknown)
        return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)tf->key_pos,
                        "%s at byte %zu: its shape has unknown rank", who, tf->key_pos);
    for (int d = 0; d < ndim; d++)
        if (dims[d] < 0)
            return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)tf->key_pos,
                            "%s at byte %zu: dim %d is unknown in a constant", who,
                            tf->key_pos, d);
    if ((st = ts_shape_resize(&a->shape, ndim, r->err)))
        return st;
    memcpy(ts_shape_dims_mut(&a->shape), dims, (size_t)ndim * sizeof *dims);
    if (fixed)
        st = ts__array_compute_sizes(a, r->err);
    else {
        a->nbytes = -1;
        st = ts_shape_size(&a->shape, &a->size, r->err);
    }
    if (st) {
        ts__error_prefix(r->err, "%s", who);
        return st;
    }
    char note[256] = "";
    typed t;
    if (has_content && fixed) {
        if ((int64_t)content_len != a->nbytes)
            return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)content_pos,
                            "%s: tensor_content at byte %zu holds %zu bytes, but its shape and "
                            "%s need %lld", who, content_pos, content_len, a->dtype_name,
                            (long long)a->nbytes);
        a->data_offset = (int64_t)content_pos;
        snprintf(note, sizeof note, "%s%stensor_content", type_note ? type_note : "",
                 type_note ? "; " : "");
    } else if (fixed && typed_of(a->dtype, a->format_dtype, &t)) {
        int64_t n = counts[t.field];
        int64_t want = a->size * t.per_element;
        if (n == want && n > 0) {
            ts__data_src ds;
            memset(&ds, 0, sizeof ds);
            ds.kind = TS__SRC_PROTO;
            ds.comp_offset = (int64_t)tf->pos;
            ds.comp_size = (int64_t)tf->len;
            ds.size = a->nbytes;
            ds.pb_field = t.field;
            ds.pb_fixed = t.fixed;
            ds.pb_out = t.out ? t.out : (int)a->itemsize;
            ds.pb_bool = a->dtype == TS_DTYPE_BOOL;
            ds.pb_what = t.name;
            if ((st = ts__file_set_data_src(r->f, a, &ds, r->err)))
                return st;
            snprintf(note, sizeof note, "%s%s%lld entries of typed field %s (read from there)",
                     type_note ? type_note : "", type_note ? "; " : "", (long long)n, t.name);
        } else if (a->size == 0 && n == 0) {
            a->data_offset = (int64_t)tf->pos;
        } else if (n > 0 && n < want && n % t.per_element == 0) {
            snprintf(note, sizeof note, "%lld of %lld values in %s (TensorFlow repeats the last "
                     "one): no data of its own", (long long)n / t.per_element,
                     (long long)a->size, t.name);
        } else {
            return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)tf->key_pos,
                            "%s at byte %zu: %lld entries in %s for %lld elements", who,
                            tf->key_pos, (long long)n, t.name, (long long)a->size);
        }
    } else if (dtype == 7) {
        snprintf(note, sizeof note, "%lld strings in string_val", (long long)counts[8]);
    } else {
        snprintf(note, sizeof note, "%s values not read", a->format_dtype);
    }
    if (note[0] && !(a->note = ts__file_strndup(r->f, note, strlen(note), r->err)))
        return TS_ERR_NOMEM;
    r->consts++;
    return TS_OK;
}

/* A NodeDef: a Const's "value" attr is an array named prefix + name. */
static ts_status read_node(sm *r, const ts__pb_msg *parent, const ts__pb_field *nf,
                           const char *prefix)
{
    ts__pb_msg m;
    ts__pb_field fl;
    int k;
    ts_status st = ts__pb_sub(parent, nf, &m, r->err);
    size_t name_pos = 0, name_len = 0;
    int is_const = 0;
    ts__pb_field value;
    int has_value = 0;
    ts__pb_msg value_parent;
    r->nodes++;
    while (!st && (k = ts__pb_next(&m, &fl, r->err)) == 1) {
        if (fl.number == 1) {
            if (!(st = string_field(r, &m, &fl, "a node's name"))) {
                name_pos = fl.pos;
                name_len = fl.len;
            }
        } else if (fl.number == 2) {
            if (!(st = string_field(r, &m, &fl, "a node's op")))
                is_const = fl.len == 5 && memcmp(r->d + fl.pos, "Const", 5) == 0;
        } else if (fl.number == 5) {
            /* attr: map entry {key 1, value 2 (AttrValue: tensor 8)} */
            ts__pb_msg e;
            ts__pb_field g;
            int j, is_value = 0;
            if ((st = ts__pb_want(&fl, TS__PB_LEN, "attr", r->err)) ||
                (st = ts__pb_sub(&m, &fl, &e, r->err)))
                break;
            ts__pb_field v;
            int has_v = 0;
            while ((j = ts__pb_next(&e, &g, r->err)) == 1) {
                if (g.number == 1 && g.wire == TS__PB_LEN && !ts__pb_fetch(&e, &g, r->err))
                    is_value = g.len == 5 && memcmp(r->d + g.pos, "value", 5) == 0;
                else if (g.number == 2 && g.wire == TS__PB_LEN)
                    v = g, has_v = 1;
            }
            if (j < 0) {
                st = e.status;
                break;
            }
            if (is_value && has_v) {
                ts__pb_msg av;
                ts__pb_field h;
                if ((st = ts__pb_sub(&e, &v, &av, r->err)))
                    break;
                while ((j = ts__pb_next(&av, &h, r->err)) == 1)
                    if (h.number == 8 && h.wire == TS__PB_LEN)
                        value = h, value_parent = av, has_value = 1;
                if (j < 0)
                    st = av.status;
            }
        }
    }
    if (!st && k < 0)
        st = m.status;
    if (st || !is_const || !has_value)
        return st;
    const char *name = ts__file_printf(r->f, r->err, "%s%.*s", prefix, (int)name_len,
                                       (const char *)r->d + name_pos);
    if (!name)
        return TS_ERR_NOMEM;
    if (strlen(name) != strlen(prefix) + name_len)
        return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)name_pos,
                        "a node's name at byte %zu holds a NUL byte", name_pos);
    return add_const(r, name, &value_parent, &value);
}

/* GraphDef: nodes, and the nodes of its functions (FUNCTION/NODE). */
static ts_status read_graph(sm *r, const ts__pb_msg *parent, const ts__pb_field *gf)
{
    ts__pb_msg g;
    ts__pb_field fl;
    int k;
    ts_status st = ts__pb_sub(parent, gf, &g, r->err);
    while (!st && (k = ts__pb_next(&g, &fl, r->err)) == 1) {
        if (fl.number == 1) {
            if (!(st = ts__pb_want(&fl, TS__PB_LEN, "node", r->err)))
                st = read_node(r, &g, &fl, "");
        } else if (fl.number == 2) {
            ts__pb_msg lib, fn;
            ts__pb_field h, x;
            int j, i;
            if ((st = ts__pb_want(&fl, TS__PB_LEN, "library", r->err)) ||
                (st = ts__pb_sub(&g, &fl, &lib, r->err)))
                break;
            while (!st && (j = ts__pb_next(&lib, &h, r->err)) == 1) {
                if (h.number != 1)
                    continue;
                if ((st = ts__pb_want(&h, TS__PB_LEN, "function", r->err)) ||
                    (st = ts__pb_sub(&lib, &h, &fn, r->err)))
                    break;
                r->functions++;
                /* its name first (OpDef signature 1 {name 1}): fields may
                 * come in any order, so two passes */
                char *prefix = NULL;
                ts__pb_msg fn2 = fn;
                while (!st && (i = ts__pb_next(&fn2, &x, r->err)) == 1) {
                    ts__pb_msg op;
                    ts__pb_field y;
                    int q;
                    if (x.number != 1 || x.wire != TS__PB_LEN)
                        continue;
                    if ((st = ts__pb_sub(&fn2, &x, &op, r->err)))
                        break;
                    while ((q = ts__pb_next(&op, &y, r->err)) == 1)
                        if (y.number == 1 && y.wire == TS__PB_LEN &&
                            !(st = ts__pb_fetch(&op, &y, r->err))) {
                            ts__scratch_free(r->f, prefix);
                            prefix = ts__scratch_alloc(r->f, y.len + 2, r->err);
                            if (!prefix)
                                return TS_ERR_NOMEM;
                            memcpy(prefix, r->d + y.pos, y.len);
                            memcpy(prefix + y.len, "/", 2);
                        }
                    if (q < 0)
                        st = op.status;
                }
                if (!st && i < 0)
                    st = fn2.status;
                while (!st && (i = ts__pb_next(&fn, &x, r->err)) == 1)
                    if (x.number == 3 && x.wire == TS__PB_LEN)
                        st = read_node(r, &fn, &x, prefix ? prefix : "function/");
                if (!st && i < 0)
                    st = fn.status;
                ts__scratch_free(r->f, prefix);
            }
            if (!st && j < 0)
                st = lib.status;
        }
    }
    if (!st && k < 0)
        st = g.status;
    return st;
}

/* ---- signatures ------------------------------------------------------------- */

/* TensorInfo as {"name":..,"dtype":..,"shape":[..]} */
static ts_status tensor_info(sm *r, const ts__pb_msg *parent, const ts__pb_field *tf)
{
    ts__pb_msg m;
    ts__pb_field fl;
    int k, ndim = -1, unknown = 0;
    int64_t dims[TS_MAX_NDIM];
    uint64_t dtype = 0;
    size_t npos = 0, nlen = 0;
    ts_status st = ts__pb_sub(parent, tf, &m, r->err);
    while (!st && (k = ts__pb_next(&m, &fl, r->err)) == 1) {
        if (fl.number == 1 && !(st = string_field(r, &m, &fl, "a tensor's name")))
            npos = fl.pos, nlen = fl.len;
        else if (fl.number == 2 && fl.wire == TS__PB_VARINT)
            dtype = fl.value;
        else if (fl.number == 3 && fl.wire == TS__PB_LEN)
            st = ts__tf_shape(&m, &fl, dims, &ndim, &unknown, "a signature tensor", r->err);
    }
    if (!st && k < 0)
        st = m.status;
    if (st || (st = sig_add(r, "{\"name\":", 8)) || (st = sig_string(r, r->d + npos, nlen)))
        return st;
    ts_array tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.dtype_name = "unknown";
    char buf[64 + 24 * TS_MAX_NDIM];
    int n = ts__tf_set_dtype(&tmp, dtype, 0, NULL) < 0
                ? snprintf(buf, sizeof buf, ",\"dtype\":\"DataType %llu\",\"shape\":",
                           (unsigned long long)dtype)
                : snprintf(buf, sizeof buf, ",\"dtype\":\"%s\",\"shape\":", tmp.dtype_name);
    if ((st = sig_add(r, buf, (size_t)n)))
        return st;
    if (ndim < 0 || unknown)
        return sig_add(r, "null}", 5);
    size_t b = 0;
    buf[b++] = '[';
    for (int d = 0; d < ndim; d++)
        b += (size_t)snprintf(buf + b, sizeof buf - b, "%s%lld", d ? "," : "",
                              (long long)dims[d]);
    memcpy(buf + b, "]}", 2);
    return sig_add(r, buf, b + 2);
}

/* A map<string, TensorInfo> field as an object. */
static ts_status sig_map(sm *r, const ts__pb_msg *parent, const ts__pb_field *mf, int *first)
{
    ts__pb_msg e;
    ts__pb_field g, v;
    int j, has_v = 0;
    size_t kpos = 0, klen = 0;
    ts_status st = ts__pb_sub(parent, mf, &e, r->err);
    while (!st && (j = ts__pb_next(&e, &g, r->err)) == 1) {
        if (g.number == 1 && !(st = string_field(r, &e, &g, "a map key")))
            kpos = g.pos, klen = g.len;
        else if (g.number == 2 && g.wire == TS__PB_LEN)
            v = g, has_v = 1;
    }
    if (!st && j < 0)
        st = e.status;
    if (st || (st = sig_add(r, *first ? "" : ",", *first ? 0 : 1)) ||
        (st = sig_string(r, r->d + kpos, klen)) || (st = sig_add(r, ":", 1)))
        return st;
    *first = 0;
    return has_v ? tensor_info(r, &e, &v) : sig_add(r, "null", 4);
}

/* A signature_def map entry: "key":{"method_name":..,"inputs":{..},"outputs":{..}} */
static ts_status read_signature(sm *r, const ts__pb_msg *parent, const ts__pb_field *sf)
{
    ts__pb_msg e, s;
    ts__pb_field g, v, h;
    int j, has_v = 0;
    size_t kpos = 0, klen = 0;
    ts_status st = ts__pb_sub(parent, sf, &e, r->err);
    while (!st && (j = ts__pb_next(&e, &g, r->err)) == 1) {
        if (g.number == 1 && !(st = string_field(r, &e, &g, "a signature's key")))
            kpos = g.pos, klen = g.len;
        else if (g.number == 2 && g.wire == TS__PB_LEN)
            v = g, has_v = 1;
    }
    if (!st && j < 0)
        st = e.status;
    if (st || (st = sig_add(r, r->sig_n > 1 ? "," : "", r->sig_n > 1)) ||
        (st = sig_string(r, r->d + kpos, klen)) || (st = sig_add(r, ":{", 2)))
        return st;
    size_t mpos = 0, mlen = 0;
    for (int pass = 1; has_v && pass <= 2 && !st; pass++) {
        int first = 1;
        if ((st = ts__pb_sub(&e, &v, &s, r->err)))
            break;
        const char *open = pass == 1 ? "\"inputs\":{" : ",\"outputs\":{";
        if ((st = sig_add(r, open, strlen(open))))
            break;
        while (!st && (j = ts__pb_next(&s, &h, r->err)) == 1) {
            if (h.number == (uint32_t)pass && h.wire == TS__PB_LEN)
                st = sig_map(r, &s, &h, &first);
            else if (h.number == 3 && !(st = string_field(r, &s, &h, "method_name")))
                mpos = h.pos, mlen = h.len;
        }
        if (!st && j < 0)
            st = s.status;
        if (!st)
            st = sig_add(r, "}", 1);
    }
    if (!st && !has_v)
        st = sig_add(r, "\"inputs\":{},\"outputs\":{}", 24);
    if (!st && !(st = sig_add(r, ",\"method_name\":", 15)))
        st = sig_string(r, r->d + mpos, mlen);
    return st ? st : sig_add(r, "}", 1);
}

/* ---- the reader ------------------------------------------------------------- */

static ts_status read_savedmodel(ts_file *f, const unsigned char *data, size_t len,
                                 const ts_open_options *opts, ts_error *err)
{
    sm r;
    memset(&r, 0, sizeof r);
    r.f = f;
    r.d = data;
    r.len = len;
    r.opts = opts;
    r.err = err;
    ts__pb_msg m, g;
    ts__pb_field fl, h;
    int k, j;
    uint64_t schema = 0;
    size_t graphs = 0;
    ts_status st = sig_add(&r, "{", 1);
    char *tags = NULL, *tfver = NULL;
    /* the variables first: they are the model's parameters */
    size_t nvars = 0;
    const char *vars_note = "\"not read: the model was read from memory\"";
    if (!st && opts->path) {
        struct stat sb;
        const char *slash = strrchr(opts->path, '/');
        char *vi = NULL;
        int missing = 0;
        if (!ts__is_url(opts->path)) {
            size_t dn = slash ? (size_t)(slash - opts->path) + 1 : 0;
            vi = malloc(dn + 32);
            if (!vi)
                return ts__error(err, TS_ERR_NOMEM, "out of memory");
            snprintf(vi, dn + 32, "%.*svariables/variables.index", (int)dn, opts->path);
            missing = lstat(vi, &sb) != 0;
            free(vi);
        }
        if (missing) {
            vars_note = "\"none: no variables/variables.index\"";
        } else {
            int absent;
            if ((st = ts__tfckpt_variables(f, "variables/variables", opts, &nvars, &absent,
                                           err)))
                return st;
            vars_note = absent ? "\"none: no variables/variables.index\"" : NULL;
        }
    }
    ts__pb_init_src(&m, data, len, ts__file_source(f));
    while (!st && (k = ts__pb_next(&m, &fl, err)) == 1) {
        if (fl.number == 1 && fl.wire == TS__PB_VARINT) {
            schema = fl.value;
            continue;
        }
        if (fl.number != 2)
            continue;
        if ((st = ts__pb_want(&fl, TS__PB_LEN, "meta_graphs", err)))
            break;
        if (graphs++ > 0)
            continue; /* the first meta graph's arrays (its tags say which it is) */
        if ((st = ts__pb_sub(&m, &fl, &g, err)))
            break;
        while (!st && (j = ts__pb_next(&g, &h, err)) == 1) {
            if (h.number == 2 && h.wire == TS__PB_LEN) {
                st = read_graph(&r, &g, &h);
            } else if (h.number == 5 && h.wire == TS__PB_LEN) {
                if (opts->want_metadata)
                    st = read_signature(&r, &g, &h);
            } else if (h.number == 1 && h.wire == TS__PB_LEN && opts->want_metadata) {
                /* MetaInfoDef: tags 4, tensorflow_version 5 */
                ts__pb_msg mi;
                ts__pb_field x;
                int q;
                if ((st = ts__pb_sub(&g, &h, &mi, err)))
                    break;
                while (!st && (q = ts__pb_next(&mi, &x, err)) == 1) {
                    if (x.number != 4 && x.number != 5)
                        continue;
                    if ((st = string_field(&r, &mi, &x, "tags")))
                        break;
                    char **dst = x.number == 4 ? &tags : &tfver;
                    size_t old = *dst ? strlen(*dst) : 0;
                    char *p = ts__scratch_realloc(f, *dst, old + x.len + 2, err);
                    if (!p)
                        return TS_ERR_NOMEM;
                    if (x.number == 5)
                        old = 0;
                    else if (old)
                        p[old++] = ',';
                    memcpy(p + old, data + x.pos, x.len);
                    p[old + x.len] = '\0';
                    *dst = p;
                }
                if (!st && q < 0)
                    st = mi.status;
            }
        }
        if (!st && j < 0)
            st = g.status;
    }
    if (!st && k < 0)
        st = m.status;
    if (st)
        return st;
    if (graphs == 0)
        return ts__error(err, TS_ERR_FORMAT, "the SavedModel has no meta graph");
    ts__file_set_version(f, "SavedModel");
    if (!opts->want_metadata)
        return TS_OK;
    char buf[64];
    int n;
#define META_INT(key, v)                                                                   \
    (n = snprintf(buf, sizeof buf, "%lld", (long long)(v)),                                \
     ts__file_add_metadata(f, key, strlen(key), buf, (size_t)n, err))
    if ((st = META_INT("saved_model_schema_version", schema)) ||
        (st = META_INT("meta_graphs", graphs)) || (st = META_INT("nodes", r.nodes)) ||
        (st = META_INT("functions", r.functions)) || (st = META_INT("constants", r.consts)))
        return st;
    if (vars_note)
        st = ts__file_add_metadata(f, "variables", 9, vars_note, strlen(vars_note), err);
    else
        st = META_INT("variables", nvars);
#undef META_INT
    if (st)
        return st;
    if (tags || tfver) {
        for (int i = 0; i < 2 && !st; i++) {
            const char *v = i ? tfver : tags;
            if (!v)
                continue;
            size_t old = r.sig_n;
            if (!(st = sig_string(&r, (const unsigned char *)v, strlen(v))))
                st = ts__file_add_metadata(f, i ? "tensorflow_version" : "tags",
                                           i ? 18 : 4, r.sig + old, r.sig_n - old, err);
            r.sig_n = old;
        }
        if (st)
            return st;
    }
    if ((st = sig_add(&r, "}", 1)))
        return st;
    return ts__file_add_metadata(f, "signatures", 10, r.sig, r.sig_n, err);
}

const ts__reader ts__reader_savedmodel = {
    {TS_FORMAT_SAVEDMODEL, "savedmodel", ".pb",
     "extension .pb and the protobuf structure of a SavedModel (schema version, meta graphs "
     "of fields 1..7)",
     "TensorFlow SavedModel saved_model.pb (variables from variables/, Const tensors, "
     "signatures)", "dtype", 0},
    probe_savedmodel,
    read_savedmodel,
    1,
};
