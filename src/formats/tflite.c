/*
 * tflite.c - reader for TensorFlow Lite models (.tflite), header only.
 *
 * A TFLite model is a FlatBuffer whose root table is tflite.Model and whose
 * file identifier (bytes 4..8) is "TFL3" (TensorFlow Lite's schema.fbs),
 * walked with the Verifier's checks by flatbuf.c (flatbuf.h describes the
 * wire format and the checks).
 * The fields read, by their ids in schema.fbs:
 *   Model         0 version, 1 operator_codes, 2 subgraphs, 3 description,
 *                 4 buffers, 6 metadata, 7 signature_defs
 *   SubGraph      0 tensors, 1 inputs, 2 outputs, 3 operators, 4 name
 *   Tensor        0 shape, 1 type, 2 buffer, 3 name, 4 quantization,
 *                 5 is_variable, 6 sparsity, 7 shape_signature
 *   Quantization  2 scale, 3 zero_point, 4 details (union type),
 *                 6 quantized_dimension
 *   Sparsity      0 traversal_order, 1 block_map, 2 dim_metadata
 *   Buffer        0 data, 1 offset, 2 size (files over 2 GB keep tensor data
 *                 after the FlatBuffer, at offset bytes from the start of the
 *                 file; "only valid if > 1")
 *   Metadata      0 name, 1 buffer
 *   SignatureDef  2 signature_key
 * Operators and operator codes are counted, never read.
 *
 * The walk follows the schema, so it nests at most five tables deep, and
 * visits at most TFL_WORK_FACTOR times the file's bytes (flatbuf.h).
 *
 * On top of that, the checks of TFLite's interpreter
 * (tensorflow/lite/core/interpreter_builder.cc, ParseTensors and
 * ParseQuantization): a tensor's buffer index is in range, the data of a
 * fixed-size type is exactly the bytes its shape needs (INT4 two per byte,
 * low nibble first), scale and zero_point counts agree and
 * quantized_dimension is an axis of the shape.
 *
 * Each tensor of each subgraph is an array, named by its name (tensors of
 * subgraphs after the first: "<subgraph name>/<name>", "subgraph<N>/" when
 * the subgraph has no name). Tensors whose buffer holds no data
 * (activations, graph inputs and outputs) are reported only with
 * ts_open_options.want_activations. The note names quantisation, sparsity,
 * shape_signature, variables and buffers shared with another tensor.
 */
#include "flatbuf.h"

#include <stdio.h>
#include <stdlib.h>

/* The walk may visit at most this many times the file's bytes (plus 16 MiB),
 * counting tables and the vector elements and strings it reads. */
#define TFL_WORK_FACTOR 16

/* Text buffers for names in messages. */
#define NAME_BUF 200

/* TensorType (schema.fbs; INT2 and UINT4 from LiteRT's schema.fbs). */
typedef struct tfl_type {
    const char *name;          /* the schema's spelling */
    ts_dtype dtype;            /* TS_DTYPE_UNKNOWN: no fixed-size elements */
    const char *dtype_name;    /* for TS_DTYPE_UNKNOWN: "string", "resource" */
} tfl_type;

static const tfl_type tfl_types[] = {
    [0] = {"FLOAT32", TS_DTYPE_FLOAT32, NULL},
    [1] = {"FLOAT16", TS_DTYPE_FLOAT16, NULL},
    [2] = {"INT32", TS_DTYPE_INT32, NULL},
    [3] = {"UINT8", TS_DTYPE_UINT8, NULL},
    [4] = {"INT64", TS_DTYPE_INT64, NULL},
    [5] = {"STRING", TS_DTYPE_OBJECT, NULL},
    [6] = {"BOOL", TS_DTYPE_BOOL, NULL},
    [7] = {"INT16", TS_DTYPE_INT16, NULL},
    [8] = {"COMPLEX64", TS_DTYPE_COMPLEX64, NULL},
    [9] = {"INT8", TS_DTYPE_INT8, NULL},
    [10] = {"FLOAT64", TS_DTYPE_FLOAT64, NULL},
    [11] = {"COMPLEX128", TS_DTYPE_COMPLEX128, NULL},
    [12] = {"UINT64", TS_DTYPE_UINT64, NULL},
    [13] = {"RESOURCE", TS_DTYPE_UNKNOWN, "resource"},
    [14] = {"VARIANT", TS_DTYPE_UNKNOWN, "variant"},
    [15] = {"UINT32", TS_DTYPE_UINT32, NULL},
    [16] = {"UINT16", TS_DTYPE_UINT16, NULL},
    [17] = {"INT4", TS_DTYPE_INT4, NULL},
    [18] = {"BFLOAT16", TS_DTYPE_BFLOAT16, NULL},
    [19] = {"INT2", TS_DTYPE_INT2, NULL},
    [20] = {"UINT4", TS_DTYPE_UINT4, NULL},
};
#define TFL_NTYPES (sizeof tfl_types / sizeof *tfl_types)

static int probe_tflite(const unsigned char *data, size_t len, ts__source *src)
{
    (void)src;
    return len >= 8 && memcmp(data + 4, "TFL3", 4) == 0;
}

/* ---- the FlatBuffers walk --------------------------------------------------- */

typedef struct tfl {
    ts_file *f;
    const unsigned char *d;
    size_t len;
    const ts_open_options *opts;
    ts_error *err;
    ts__fb fb;                   /* the walk (flatbuf.c) over d[0..len) */
    size_t nbuf, buf_vec;        /* Model.buffers: count, first offset */
    int64_t *buf_user;           /* per buffer: the first array using it, -1 */
} tfl;

/* ---- buffers ---------------------------------------------------------------- */

typedef struct tfl_buf {
    int has;                 /* 1: the buffer holds bytes (maybe 0 of them
                                with an offset) */
    int outside;             /* 1: the offset/size form */
    uint64_t off, size;      /* where, in the file */
} tfl_buf;

/* Buffer b's table, and the position of its data vector (0: none). */
static ts_status buffer_table(tfl *r, uint32_t b, char *what, size_t cap, ts__fbt *t, size_t *pos)
{
    snprintf(what, cap, "buffer %lu", (unsigned long)b);
    ts_status st = ts__fb_element(&r->fb, r->buf_vec, b, what, t);
    return st ? st : ts__fb_ref(&r->fb, t, 0, what, pos);
}

static ts_status buffer(tfl *r, uint32_t b, tfl_buf *out)
{
    char what[64];
    ts__fbt t;
    size_t pos, n = 0, data = 0;
    uint64_t off, size;
    ts_status st = buffer_table(r, b, what, sizeof what, &t, &pos);
    if (!st && pos)
        st = ts__fb_vector(&r->fb, pos, 1, what, &n, &data);
    if (st || (st = ts__fb_u64(&r->fb, &t, 1, what, &off)) || (st = ts__fb_u64(&r->fb, &t, 2, what, &size)))
        return st;
    memset(out, 0, sizeof *out);
    if (off > 1) {
        if (n > 0)
            return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)t.pos,
                            "%s at byte %zu has both data inside the FlatBuffer and an "
                            "offset (%llu)", what, t.pos, (unsigned long long)off);
        if (off > r->len || size > r->len - off)
            return ts__fail(r->err, TS_ERR_TRUNCATED, 0, (int64_t)t.pos,
                            "%s: bytes %llu..%llu are past the end of the %zu-byte file", what,
                            (unsigned long long)off, (unsigned long long)(off + size), r->len);
        out->has = 1;
        out->outside = 1;
        out->off = off;
        out->size = size;
    } else if (n > 0) {
        out->has = 1;
        out->off = data;
        out->size = n;
    }
    return TS_OK;
}

/* ---- tensors ---------------------------------------------------------------- */

/* What one Tensor table says. */
typedef struct tfl_tensor {
    size_t pos;
    const unsigned char *name;
    size_t name_len;
    unsigned type;
    int ndim, sig_ndim;
    int64_t dims[TS_MAX_NDIM], sig[TS_MAX_NDIM];
    uint32_t buffer;
    int variable;
    /* quantization */
    size_t n_scale, n_zero;
    float scale;             /* the one scale of per-tensor quantisation */
    int64_t zero;
    int32_t qdim;
    unsigned details;        /* QuantizationDetails union type, 0: none */
    /* sparsity */
    int sparse;
    size_t n_order, n_block, n_dimmeta;
    size_t order_at, block_at;
} tfl_tensor;

/* Reads an int vector field of at most TS_MAX_NDIM entries into dims. */
static ts_status int_dims(tfl *r, const ts__fbt *t, unsigned id, const char *what, int *ndim,
                          int64_t *dims, int *present)
{
    size_t n, data;
    ts_status st = ts__fb_vector_field(&r->fb, t, id, 4, what, &n, &data);
    if (st)
        return st;
    if (n > TS_MAX_NDIM)
        return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)data - 4,
                        "%s at byte %zu has %zu dims, more than %d", what, data - 4, n,
                        TS_MAX_NDIM);
    *present = data != 0;
    *ndim = (int)n;
    for (size_t k = 0; k < n; k++)
        dims[k] = (int32_t)ts__le32(r->d + data + 4 * k);
    return TS_OK;
}

static ts_status quantization(tfl *r, size_t pos, tfl_tensor *x)
{
    ts__fbt q;
    size_t data;
    ts_status st = ts__fb_table(&r->fb, pos, "quantization", &q);
    if (!st)
        st = ts__fb_vector_field(&r->fb, &q, 2, 4, "quantization scale", &x->n_scale, &data);
    if (!st && x->n_scale == 1) {
        uint32_t u = ts__le32(r->d + data);
        memcpy(&x->scale, &u, sizeof u);
    }
    if (!st)
        st = ts__fb_vector_field(&r->fb, &q, 3, 8, "quantization zero_point", &x->n_zero, &data);
    if (!st && x->n_zero == 1)
        x->zero = (int64_t)ts__le64(r->d + data);
    if (!st)
        st = ts__fb_u8(&r->fb, &q, 4, "quantization details_type", &x->details);
    if (!st) {
        uint32_t qd;
        st = ts__fb_u32(&r->fb, &q, 6, "quantized_dimension", &qd);
        x->qdim = (int32_t)qd;
    }
    return st;
}

static ts_status sparsity(tfl *r, size_t pos, tfl_tensor *x)
{
    ts__fbt s;
    size_t at;
    ts_status st = ts__fb_table(&r->fb, pos, "sparsity", &s);
    x->sparse = 1;
    if (!st)
        st = ts__fb_vector_field(&r->fb, &s, 0, 4, "sparsity traversal_order", &x->n_order, &x->order_at);
    if (!st)
        st = ts__fb_vector_field(&r->fb, &s, 1, 4, "sparsity block_map", &x->n_block, &x->block_at);
    if (!st && !(st = ts__fb_ref(&r->fb, &s, 2, "sparsity dim_metadata", &at)) && at)
        st = ts__fb_vector(&r->fb, at, 4, "sparsity dim_metadata", &x->n_dimmeta, &at);
    return st;
}

/* Parses tensor i of a subgraph's tensors vector at data. */
static ts_status tensor(tfl *r, size_t data, size_t i, tfl_tensor *x)
{
    ts__fbt t;
    size_t pos;
    int present;
    uint32_t u;
    unsigned b;
    memset(x, 0, sizeof *x);
    ts_status st = ts__fb_element(&r->fb, data, i, "tensor", &t);
    if (st)
        return st;
    x->pos = t.pos;
    if ((st = int_dims(r, &t, 0, "shape", &x->ndim, x->dims, &present)) ||
        (st = ts__fb_u8(&r->fb, &t, 1, "type", &x->type)) ||
        (st = ts__fb_u32(&r->fb, &t, 2, "buffer", &u)) ||
        (st = ts__fb_string_field(&r->fb, &t, 3, "name", &x->name, &x->name_len)) ||
        (st = ts__fb_u8(&r->fb, &t, 5, "is_variable", &b)) ||
        (st = int_dims(r, &t, 7, "shape_signature", &x->sig_ndim, x->sig, &present)))
        return st;
    if (!x->name)
        x->name = (const unsigned char *)""; /* a tensor without a name: "" */
    x->buffer = u;
    x->variable = b != 0;
    if (!present)
        x->sig_ndim = -1;
    if ((st = ts__fb_ref(&r->fb, &t, 4, "quantization", &pos)) || (pos && (st = quantization(r, pos, x))))
        return st;
    if ((st = ts__fb_ref(&r->fb, &t, 6, "sparsity", &pos)) || (pos && (st = sparsity(r, pos, x))))
        return st;
    return TS_OK;
}

/* "(1,-1,3)" of n dims. */
static void dims_text(const int64_t *dims, int n, char *buf, size_t cap)
{
    ts__dims_str(dims, n, buf, cap);
}

/* "(0,1)" of an int vector in the file. */
static void int_vector_text(tfl *r, size_t data, size_t n, char *buf, size_t cap)
{
    int64_t v[TS_MAX_NDIM];
    size_t k = n < TS_MAX_NDIM ? n : TS_MAX_NDIM;
    for (size_t j = 0; j < k; j++)
        v[j] = (int32_t)ts__le32(r->d + data + 4 * j);
    ts__dims_str(v, (int)k, buf, cap);
}

/* Appends "; text" (or text) to the note being built in buf. */
static void note_add(char *buf, size_t cap, const char *fmt, ...) TS__PRINTF(3, 4);
static void note_add(char *buf, size_t cap, const char *fmt, ...)
{
    size_t n = strlen(buf);
    if (n && n + 2 < cap) {
        memcpy(buf + n, "; ", 3);
        n += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, cap - n, fmt, ap);
    va_end(ap);
}

/* The note of quantisation parameters. */
static ts_status quant_note(tfl *r, const tfl_tensor *x, const char *name, char *note,
                            size_t cap)
{
    if (x->details)
        note_add(note, cap, "custom quantization (QuantizationDetails type %u)", x->details);
    if (x->n_scale == 0 && x->n_zero == 0)
        return TS_OK;
    if (x->n_zero && x->n_scale != x->n_zero)
        return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)x->pos,
                        "tensor '%s': quantization has %zu scales and %zu zero points (TFLite "
                        "needs as many of each)", name, x->n_scale, x->n_zero);
    if (x->n_scale > 1 || x->qdim != 0) {
        if (x->qdim < 0 || x->qdim >= x->ndim)
            return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)x->pos,
                            "tensor '%s': quantized_dimension %ld is not an axis of its %d "
                            "dims", name, (long)x->qdim, x->ndim);
    }
    if (x->n_scale == 1)
        note_add(note, cap, "quantized per-tensor: scale %.9g, zero_point %lld",
                 (double)x->scale, (long long)x->zero);
    else
        note_add(note, cap, "quantized per-axis on axis %ld: %zu scales, %zu zero points",
                 (long)x->qdim, x->n_scale, x->n_zero);
    return TS_OK;
}

/* The array's name: the tensor's, after "<subgraph>/" for subgraphs after
 * the first. */
static const char *array_name(tfl *r, const tfl_tensor *x, const char *prefix)
{
    if (ts__fb_visit(&r->fb, x->name_len + (prefix ? strlen(prefix) : 0), x->pos))
        return NULL;
    if (!prefix)
        return ts__file_strndup(r->f, (const char *)x->name, x->name_len, r->err);
    return ts__file_printf(r->f, r->err, "%s/%.*s", prefix, (int)x->name_len,
                           (const char *)x->name);
}

/* The role of tensor i among its subgraph's inputs and outputs, for the
 * note of an activation: "input 0" / "output 1" / "". */
static void io_role(tfl *r, size_t i, size_t in, size_t n_in, size_t out, size_t n_out,
                    char *buf, size_t cap)
{
    buf[0] = '\0';
    for (size_t k = 0; k < n_in; k++)
        if (ts__le32(r->d + in + 4 * k) == i) {
            snprintf(buf, cap, "input %zu of its subgraph", k);
            return;
        }
    for (size_t k = 0; k < n_out; k++)
        if (ts__le32(r->d + out + 4 * k) == i) {
            snprintf(buf, cap, "output %zu of its subgraph", k);
            return;
        }
}

typedef struct tfl_graph {
    size_t index;
    const char *prefix;          /* NULL for subgraph 0 */
    size_t tensors, n_tensors;   /* the tensors vector's data and count */
    size_t in, n_in, out, n_out; /* inputs and outputs (indices, checked) */
    size_t n_ops;
} tfl_graph;

/* Adds the array of tensor x (tensor i of graph g), or nothing for a
 * tensor without data when activations are not wanted. */
static ts_status add_tensor(tfl *r, const tfl_graph *g, size_t i, const tfl_tensor *x)
{
    char nb[NAME_BUF];
    const char *shown = ts__printable((const char *)x->name, x->name_len, nb, sizeof nb);
    if (memchr(x->name, '\0', x->name_len))
        return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)x->pos,
                        "subgraph %zu tensor %zu: its name '%s' contains a NUL byte",
                        g->index, i, shown);
    if (x->buffer >= r->nbuf && !(x->buffer == 0 && r->nbuf == 0))
        return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)x->pos,
                        "tensor '%s': buffer %lu, but the model has %zu buffers", shown,
                        (unsigned long)x->buffer, r->nbuf);
    tfl_buf b = {0, 0, 0, 0};
    ts_status st;
    if (r->nbuf && (st = buffer(r, x->buffer, &b)))
        return st;
    if (!b.has && !r->opts->want_activations)
        return TS_OK;
    for (int k = 0; k < x->ndim; k++)
        if (x->dims[k] < 0) {
            char sb[TS__SHAPE_STR_MAX];
            dims_text(x->dims, x->ndim, sb, sizeof sb);
            return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)x->pos,
                            "tensor '%s': shape %s has a negative dim (unknown dims are -1 "
                            "only in shape_signature)", shown, sb);
        }
    const char *name = array_name(r, x, g->prefix);
    if (!name)
        return r->err ? r->err->code : TS_ERR_NOMEM;
    ts_array *a = ts__file_add_array(r->f, r->err);
    if (!a)
        return ts__file_add_failure(r->f);
    a->name = name;
    if ((st = ts_shape_resize(&a->shape, x->ndim, r->err)))
        return st;
    memcpy(ts_shape_dims_mut(&a->shape), x->dims, (size_t)x->ndim * sizeof *x->dims);
    const tfl_type *ty = x->type < TFL_NTYPES && tfl_types[x->type].name ? &tfl_types[x->type]
                                                                         : NULL;
    char note[1024] = ""; /* bounded parts: at most about 600 bytes */
    int fixed = ty && ty->dtype != TS_DTYPE_UNKNOWN && ty->dtype != TS_DTYPE_OBJECT;
    if (ty) {
        a->format_dtype = ty->name;
        if (ty->dtype != TS_DTYPE_UNKNOWN)
            ts__array_set_dtype(a, ty->dtype);
        else
            a->dtype_name = ty->dtype_name;
        if (fixed && a->itemsize > 1)
            a->byteorder = '<';
    } else {
        a->format_dtype = ts__file_printf(r->f, r->err, "%u", x->type);
        if (!a->format_dtype)
            return TS_ERR_NOMEM;
        note_add(note, sizeof note, "TensorType %u is unknown to tshape", x->type);
    }
    if (fixed) {
        if ((st = ts__array_compute_sizes(a, r->err))) {
            ts__error_prefix(r->err, "tensor '%s'", shown);
            return st;
        }
    } else {
        a->nbytes = -1;
        if ((st = ts_shape_size(&a->shape, &a->size, r->err))) {
            ts__error_prefix(r->err, "tensor '%s'", shown);
            return st;
        }
    }
    if ((st = quant_note(r, x, shown, note, sizeof note)))
        return st;
    if (x->n_scale > 0 && fixed)
        a->dequantized_dtype = TS_DTYPE_FLOAT32; /* f = scale * (q - zero_point) */
    if (x->sig_ndim >= 0) {
        char sb[TS__SHAPE_STR_MAX];
        dims_text(x->sig, x->sig_ndim, sb, sizeof sb);
        note_add(note, sizeof note, "shape_signature %s", sb);
    }
    if (x->variable)
        note_add(note, sizeof note, "variable");
    if (!b.has) {
        char role[64];
        io_role(r, i, g->in, g->n_in, g->out, g->n_out, role, sizeof role);
        note_add(note, sizeof note, "no data in the file (an activation%s%s)",
                 role[0] ? ", " : "", role);
    } else if (x->sparse) {
        char ob[TS__SHAPE_STR_MAX], bb[TS__SHAPE_STR_MAX];
        int_vector_text(r, x->order_at, x->n_order, ob, sizeof ob);
        int_vector_text(r, x->block_at, x->n_block, bb, sizeof bb);
        note_add(note, sizeof note,
                 "sparse (TFLite sparsity: traversal_order %s, block_map %s, %zu dim_metadata): "
                 "%llu bytes of stored values and indices at byte %llu, not read as a dense "
                 "array", ob, bb, x->n_dimmeta, (unsigned long long)b.size,
                 (unsigned long long)b.off);
    } else if (!fixed) {
        note_add(note, sizeof note, "%s data: %llu bytes at byte %llu",
                 ty ? ty->name : "unknown", (unsigned long long)b.size,
                 (unsigned long long)b.off);
    } else if ((int64_t)b.size != a->nbytes) {
        char sb[TS__SHAPE_STR_MAX];
        return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)x->pos,
                        "tensor '%s': its buffer %lu holds %llu bytes, but shape %s of %s "
                        "needs %lld (TFLite's interpreter refuses it too)", shown,
                        (unsigned long)x->buffer, (unsigned long long)b.size,
                        ts__shape_str(&a->shape, sb, sizeof sb), a->dtype_name,
                        (long long)a->nbytes);
    } else {
        a->data_offset = (int64_t)b.off;
        if (b.outside)
            note_add(note, sizeof note, "data outside the FlatBuffer (buffer offset/size)");
    }
    /* the parts above are short; a name may be long (the note is built
     * whole, never cut) */
    const char *shares = NULL;
    if (b.has && r->buf_user) {
        int64_t *u = &r->buf_user[x->buffer];
        if (*u >= 0)
            shares = ts_file_array(r->f, (size_t)*u)->name;
        else
            *u = (int64_t)ts_file_count(r->f) - 1;
    }
    if (shares && (st = ts__fb_visit(&r->fb, strlen(shares), x->pos)))
        return st;
    if (shares)
        a->note = ts__file_printf(r->f, r->err, "%s%sshares buffer %lu with '%s'", note,
                                  note[0] ? "; " : "", (unsigned long)x->buffer, shares);
    else if (note[0])
        a->note = ts__file_strndup(r->f, note, strlen(note), r->err);
    return a->note || (!shares && !note[0]) ? TS_OK : TS_ERR_NOMEM;
}

/* Reads an index vector field (SubGraph inputs, outputs): every index must
 * name one of the n tensors. */
static ts_status indices(tfl *r, const ts__fbt *t, unsigned id, const char *what, size_t n,
                         size_t *count, size_t *data)
{
    ts_status st = ts__fb_vector_field(&r->fb, t, id, 4, what, count, data);
    for (size_t k = 0; !st && k < *count; k++) {
        uint32_t v = ts__le32(r->d + *data + 4 * k);
        if (v >= n)
            return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)(*data + 4 * k),
                            "subgraph %s %zu is tensor %ld, but the subgraph has %zu tensors",
                            what, k, (long)(int32_t)v, n);
    }
    return st;
}

static ts_status subgraph(tfl *r, size_t data, size_t s, tfl_graph *g)
{
    ts__fbt t;
    size_t pos;
    const unsigned char *name;
    size_t name_len;
    memset(g, 0, sizeof *g);
    g->index = s;
    ts_status st = ts__fb_element(&r->fb, data, s, "subgraph", &t);
    if (!st && !(st = ts__fb_ref(&r->fb, &t, 0, "subgraph tensors", &pos)) && pos &&
        !(st = ts__fb_vector(&r->fb, pos, 4, "subgraph tensors", &g->n_tensors, &g->tensors)))
        st = ts__fb_need(&r->fb, g->tensors, 4 * (uint64_t)g->n_tensors, "subgraph tensors");
    if (!st)
        st = indices(r, &t, 1, "input", g->n_tensors, &g->n_in, &g->in);
    if (!st)
        st = indices(r, &t, 2, "output", g->n_tensors, &g->n_out, &g->out);
    if (!st && !(st = ts__fb_ref(&r->fb, &t, 3, "subgraph operators", &pos)) && pos)
        st = ts__fb_vector(&r->fb, pos, 4, "subgraph operators", &g->n_ops, &pos);
    if (!st)
        st = ts__fb_string_field(&r->fb, &t, 4, "subgraph name", &name, &name_len);
    if (st || s == 0)
        return st;
    if (name_len && memchr(name, '\0', name_len))
        name_len = 0;
    g->prefix = name_len ? ts__file_strndup(r->f, (const char *)name, name_len, r->err)
                         : ts__file_printf(r->f, r->err, "subgraph%zu", s);
    return g->prefix ? TS_OK : TS_ERR_NOMEM;
}

/* ---- metadata --------------------------------------------------------------- */

/* A growing JSON text in the file's scratch memory, through a sink. */
typedef struct jtext {
    tfl *r;
    char *p;
    size_t n, cap;
    char buf[256];
    ts__sink sink;
} jtext;

static int jtext_write(void *user, const char *data, size_t len)
{
    jtext *j = user;
    if (len > j->cap - j->n) {
        size_t cap = j->cap ? j->cap : 256;
        while (cap - j->n < len)
            cap *= 2;
        char *p = ts__scratch_realloc(j->r->f, j->p, cap, NULL);
        if (!p)
            return 1;
        j->p = p;
        j->cap = cap;
    }
    memcpy(j->p + j->n, data, len);
    j->n += len;
    return 0;
}

static void jtext_init(jtext *j, tfl *r)
{
    memset(j, 0, sizeof *j);
    j->r = r;
    j->sink.buf = j->buf;
    j->sink.cap = sizeof j->buf;
    j->sink.write = jtext_write;
    j->sink.user = j;
}

static ts_status jtext_add(jtext *j, const char *s, ts_error *err)
{
    return ts__sink_add(&j->sink, s, strlen(s), err);
}

/* Adds the text as metadata entry `key` and frees it. */
static ts_status jtext_done(jtext *j, const char *key, ts_status st, ts_error *err)
{
    if (!st)
        st = ts__sink_flush(&j->sink, err);
    if (st == TS_ERR_IO)
        st = ts__error(err, TS_ERR_NOMEM, "out of memory for metadata");
    if (!st)
        st = ts__file_add_metadata(j->r->f, key, strlen(key), j->p, j->n, err);
    ts__scratch_free(j->r->f, j->p);
    return st;
}

static ts_status meta_text(tfl *r, const char *key, const char *json)
{
    return ts__file_add_metadata(r->f, key, strlen(key), json, strlen(json), r->err);
}

static ts_status meta_count(tfl *r, const char *key, uint64_t n)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)n);
    return meta_text(r, key, buf);
}

/* The JSON string of n bytes of the file (invalid UTF-8 as U+FFFD). */
static ts_status meta_string(tfl *r, const char *key, const unsigned char *p, size_t n)
{
    jtext j;
    jtext_init(&j, r);
    return jtext_done(&j, key, ts__sink_json_string(&j.sink, p, n, r->err), r->err);
}

/* graph.inputs / graph.outputs of subgraph 0: [{"name","dtype","shape"}],
 * the shape from shape_signature (-1: unknown) when the tensor has one. */
static ts_status meta_io(tfl *r, const tfl_graph *g, int outputs)
{
    jtext j;
    jtext_init(&j, r);
    size_t data = outputs ? g->out : g->in, n = outputs ? g->n_out : g->n_in;
    ts_status st = jtext_add(&j, "[", r->err);
    for (size_t k = 0; !st && k < n; k++) {
        tfl_tensor x;
        if ((st = tensor(r, g->tensors, ts__le32(r->d + data + 4 * k), &x)) ||
            (st = ts__fb_visit(&r->fb, x.name_len, x.pos)))
            break;
        const tfl_type *ty = x.type < TFL_NTYPES && tfl_types[x.type].name
                                 ? &tfl_types[x.type] : NULL;
        const char *dt = !ty ? "unknown"
                         : ty->dtype == TS_DTYPE_UNKNOWN ? ty->dtype_name
                                                         : ts_dtype_name(ty->dtype);
        char buf[64];
        st = jtext_add(&j, k ? ",{\"name\":" : "{\"name\":", r->err);
        if (!st)
            st = ts__sink_json_string(&j.sink, x.name, x.name_len, r->err);
        snprintf(buf, sizeof buf, ",\"dtype\":\"%s\",\"shape\":[", dt);
        if (!st)
            st = jtext_add(&j, buf, r->err);
        int nd = x.sig_ndim >= 0 ? x.sig_ndim : x.ndim;
        const int64_t *dims = x.sig_ndim >= 0 ? x.sig : x.dims;
        for (int d = 0; !st && d < nd; d++) {
            snprintf(buf, sizeof buf, "%s%lld", d ? "," : "", (long long)dims[d]);
            st = jtext_add(&j, buf, r->err);
        }
        if (!st)
            st = jtext_add(&j, "]}", r->err);
    }
    if (!st)
        st = jtext_add(&j, "]", r->err);
    return jtext_done(&j, outputs ? "graph.outputs" : "graph.inputs", st, r->err);
}

/* Model.metadata: the names as a list, and min_runtime_version's buffer
 * (a string padded with NUL bytes) as its own entry. */
static ts_status meta_entries(tfl *r, const ts__fbt *model, size_t *count)
{
    size_t pos, n = 0, data = 0;
    ts_status st = ts__fb_ref(&r->fb, model, 6, "metadata", &pos);
    if (!st && pos && !(st = ts__fb_vector(&r->fb, pos, 4, "metadata", &n, &data)))
        st = ts__fb_need(&r->fb, data, 4 * (uint64_t)n, "metadata");
    *count = n;
    if (st)
        return st;
    jtext j;
    jtext_init(&j, r);
    const unsigned char *runtime = NULL;
    size_t runtime_len = 0;
    st = jtext_add(&j, "[", r->err);
    for (size_t k = 0; !st && k < n; k++) {
        ts__fbt t;
        const unsigned char *name;
        size_t len;
        uint32_t b;
        if ((st = ts__fb_element(&r->fb, data, k, "metadata entry", &t)) ||
            (st = ts__fb_string_field(&r->fb, &t, 0, "metadata name", &name, &len)) ||
            (st = ts__fb_u32(&r->fb, &t, 1, "metadata buffer", &b)))
            break;
        if (b >= r->nbuf) {
            st = ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)t.pos,
                          "metadata entry %zu: buffer %lu, but the model has %zu buffers", k,
                          (unsigned long)b, r->nbuf);
            break;
        }
        if ((k && (st = jtext_add(&j, ",", r->err))) ||
            (st = ts__sink_json_string(&j.sink, name ? name : (const unsigned char *)"", len,
                                       r->err)))
            break;
        if (len == 19 && memcmp(name, "min_runtime_version", 19) == 0) {
            tfl_buf bf;
            if ((st = buffer(r, b, &bf)))
                break;
            if (bf.has && bf.size <= 4096 && !(st = ts__fb_need(&r->fb, bf.off, bf.size, "metadata"))) {
                runtime = r->d + bf.off;
                runtime_len = (size_t)bf.size;
                while (runtime_len && runtime[runtime_len - 1] == 0)
                    runtime_len--;
            }
        }
    }
    if (!st)
        st = jtext_add(&j, "]", r->err);
    if ((st = jtext_done(&j, "metadata", st, r->err)))
        return st;
    return runtime ? meta_string(r, "min_runtime_version", runtime, runtime_len) : TS_OK;
}

/* SignatureDef keys: "signatures" (their count) and "signature_keys". */
static ts_status signature_keys(tfl *r, const ts__fbt *model)
{
    size_t pos, n = 0, data = 0;
    ts_status st = ts__fb_ref(&r->fb, model, 7, "signature_defs", &pos);
    if (!st && pos && !(st = ts__fb_vector(&r->fb, pos, 4, "signature_defs", &n, &data)))
        st = ts__fb_need(&r->fb, data, 4 * (uint64_t)n, "signature_defs");
    if (st || (st = meta_count(r, "signatures", n)))
        return st;
    jtext j;
    jtext_init(&j, r);
    st = jtext_add(&j, "[", r->err);
    for (size_t k = 0; !st && k < n; k++) {
        ts__fbt t;
        const unsigned char *key;
        size_t len;
        if ((st = ts__fb_element(&r->fb, data, k, "signature_def", &t)) ||
            (st = ts__fb_string_field(&r->fb, &t, 2, "signature_key", &key, &len)))
            break;
        if ((k && (st = jtext_add(&j, ",", r->err))) ||
            (st = ts__sink_json_string(&j.sink, key ? key : (const unsigned char *)"", len,
                                       r->err)))
            break;
    }
    if (!st)
        st = jtext_add(&j, "]", r->err);
    return jtext_done(&j, "signature_keys", st, r->err);
}

/* ---- the reader ------------------------------------------------------------- */

static ts_status read_tflite(ts_file *f, const unsigned char *data, size_t len,
                             const ts_open_options *opts, ts_error *err)
{
    tfl r;
    memset(&r, 0, sizeof r);
    r.f = f;
    r.d = data;
    r.len = len;
    r.opts = opts;
    r.err = err;
    ts__fb_init(&r.fb, f, data, len, TFL_WORK_FACTOR, err);
    if (len < 8)
        return ts__fail(err, TS_ERR_TRUNCATED, 0, 0,
                        "a TFLite file starts with a root offset and the identifier TFL3 (8 "
                        "bytes); this one has %zu bytes", len);
    if (memcmp(data + 4, "TFL3", 4) != 0) {
        char ib[32];
        return ts__fail(err, TS_ERR_FORMAT, 0, 4,
                        "the FlatBuffer identifier at byte 4 is '%s', not TFL3",
                        ts__printable((const char *)data + 4, 4, ib, sizeof ib));
    }
    size_t pos, n_sub = 0, subs = 0, n_codes = 0;
    ts__fbt model;
    uint32_t version;
    ts_status st = ts__fb_root_version(&r.fb, "the Model table", &model, &version);
    if (!st)
        st = ts__fb_vector_field(&r.fb, &model, 4, 4, "buffers", &r.nbuf, &r.buf_vec);
    if (!st)
        st = ts__fb_vector_field(&r.fb, &model, 2, 4, "subgraphs", &n_sub, &subs);
    if (!st && !(st = ts__fb_ref(&r.fb, &model, 1, "operator_codes", &pos)) && pos)
        st = ts__fb_vector(&r.fb, pos, 4, "operator_codes", &n_codes, &pos);
    if (st)
        return st;
    if (r.nbuf) {
        r.buf_user = ts__scratch_alloc(f, r.nbuf * sizeof *r.buf_user, err);
        if (!r.buf_user)
            return TS_ERR_NOMEM;
        /* Every buffer is checked, used or not, as the Verifier does: a
         * file cut inside one is truncated, whichever tensor needs it. The
         * lengths of the data vectors lie before the data, all over the
         * file: they are asked for at once (one request for a remote
         * file), after the tables, which lie together. */
        ts__range *rg = ts__scratch_alloc(f, r.nbuf * sizeof *rg, err);
        size_t m = 0;
        if (!rg)
            return TS_ERR_NOMEM;
        for (size_t k = 0; k < r.nbuf; k++) {
            char what[64];
            ts__fbt t;
            r.buf_user[k] = -1;
            if ((st = buffer_table(&r, (uint32_t)k, what, sizeof what, &t, &pos)))
                return st;
            if (pos)
                rg[m++] = (ts__range){pos, 4, NULL};
        }
        if ((st = ts__source_need_ranges(ts__file_source(f), rg, m, err)))
            return st;
        ts__scratch_free(f, rg);
        for (size_t k = 0; k < r.nbuf; k++) {
            tfl_buf b;
            if ((st = buffer(&r, (uint32_t)k, &b)))
                return st;
        }
    }
    uint64_t n_ops = 0;
    tfl_graph main_graph;
    memset(&main_graph, 0, sizeof main_graph);
    for (size_t s = 0; s < n_sub; s++) {
        tfl_graph g;
        if ((st = subgraph(&r, subs, s, &g))) {
            ts__error_prefix(err, "subgraph %zu", s);
            return st;
        }
        if (s == 0)
            main_graph = g;
        n_ops += g.n_ops;
        for (size_t i = 0; i < g.n_tensors; i++) {
            tfl_tensor x;
            if ((st = tensor(&r, g.tensors, i, &x))) {
                ts__error_prefix(err, "subgraph %zu tensor %zu", s, i);
                return st;
            }
            if ((st = add_tensor(&r, &g, i, &x)))
                return st;
        }
    }
    if (!opts->want_metadata)
        return TS_OK;
    size_t n_meta = 0;
    const unsigned char *desc;
    size_t desc_len;
    if ((st = meta_count(&r, "version", version)) ||
        (st = ts__fb_string_field(&r.fb, &model, 3, "description", &desc, &desc_len)) ||
        (desc && (st = meta_string(&r, "description", desc, desc_len))) ||
        (st = meta_entries(&r, &model, &n_meta)) ||
        (st = meta_count(&r, "subgraphs", n_sub)) ||
        (st = meta_count(&r, "operators", n_ops)) ||
        (st = meta_count(&r, "operator_codes", n_codes)) ||
        (st = meta_count(&r, "buffers", r.nbuf)) ||
        (st = signature_keys(&r, &model)))
        return st;
    if (n_sub && ((st = meta_io(&r, &main_graph, 0)) || (st = meta_io(&r, &main_graph, 1))))
        return st;
    return TS_OK;
}

const ts__reader ts__reader_tflite = {
    {TS_FORMAT_TFLITE, "tflite", ".tflite", "identifier TFL3 at byte 4",
     "TensorFlow Lite model (FlatBuffers: every subgraph's tensors, quantisation, sparsity)",
     "TensorType", 0},
    probe_tflite,
    read_tflite,
    0,
};
