/*
 * caffe.c - reader for Caffe weight files (BVLC caffe.proto), header only:
 * a NetParameter (.caffemodel: new-style `layer` 100, V1 `layers` 2, or a
 * V0 layer inside a V1 one) or a lone BlobProto (.binaryproto mean files).
 *
 * Each layer blob is one array named "<layer>/<index>"; a lone BlobProto
 * is named "". Shape as Caffe's Blob::FromProto: (num, channels, height,
 * width) when any of those legacy fields is present, else shape.dim.
 * `data` gives float32, `double_data` float64; diff/double_diff are
 * gradients and never reported. The offset is the payload of the packed
 * data field when it holds exactly the blob's values. The note names the
 * layer type and the blob's conventional role (weight, bias, mean, ...).
 */
#include "protobuf.h"
#include "reader.h"

#include <stdio.h>

/* V1LayerParameter.LayerType names (caffe.proto), for display. */
static const char *const v1_types[] = {
    "NONE", "ACCURACY", "BNLL", "CONCAT", "CONVOLUTION", "DATA", "DROPOUT",
    "EUCLIDEAN_LOSS", "FLATTEN", "HDF5_DATA", "HDF5_OUTPUT", "IM2COL", "IMAGE_DATA",
    "INFOGAIN_LOSS", "INNER_PRODUCT", "LRN", "MULTINOMIAL_LOGISTIC_LOSS", "POOLING", "RELU",
    "SIGMOID", "SOFTMAX", "SOFTMAX_LOSS", "SPLIT", "TANH", "WINDOW_DATA", "ELTWISE", "POWER",
    "SIGMOID_CROSS_ENTROPY_LOSS", "HINGE_LOSS", "MEMORY_DATA", "ARGMAX", "THRESHOLD",
    "DUMMY_DATA", "SLICE", "MVN", "ABSVAL", "SILENCE", "CONTRASTIVE_LOSS", "EXP",
    "DECONVOLUTION",
};

/* The conventional role of blob `index` of a layer of type `type`, or NULL. */
static const char *blob_role(const char *type, size_t tlen, int64_t index)
{
    static const struct {
        const char *type;
        const char *roles[3];
    } table[] = {
        {"Convolution", {"weight", "bias", NULL}},   {"Deconvolution", {"weight", "bias", NULL}},
        {"InnerProduct", {"weight", "bias", NULL}},  {"Embed", {"weight", "bias", NULL}},
        {"CONVOLUTION", {"weight", "bias", NULL}},   {"DECONVOLUTION", {"weight", "bias", NULL}},
        {"INNER_PRODUCT", {"weight", "bias", NULL}}, {"conv", {"weight", "bias", NULL}},
        {"innerproduct", {"weight", "bias", NULL}},
        {"BatchNorm", {"mean", "variance", "scale_factor"}},
        {"Scale", {"scale", "bias", NULL}},          {"Bias", {"bias", NULL, NULL}},
        {"PReLU", {"slope", NULL, NULL}},
    };
    if (index < 0 || index > 2)
        return NULL;
    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        if (strlen(table[i].type) == tlen && memcmp(table[i].type, type, tlen) == 0)
            return table[i].roles[index];
    return NULL;
}

typedef struct caffe_reader {
    ts_file *f;
    const unsigned char *data;
    size_t len;
    ts_error *err;
} caffe_reader;

/* A packed or unpacked list of fixed-size values (data, double_data). */
typedef struct fixed_list {
    int64_t count;
    int fields, unpacked;
    size_t pos, len;
} fixed_list;

static ts_status add_fixed(fixed_list *l, const ts__pb_field *f, size_t size, const char *what,
                           ts_error *err)
{
    l->fields++;
    if (f->wire == TS__PB_LEN) {
        if (f->len % size)
            return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)f->key_pos,
                            "packed %s at byte %zu: %zu bytes are not a whole number of "
                            "%zu-byte values", what, f->key_pos, f->len, size);
        l->count += (int64_t)(f->len / size);
        l->pos = f->pos;
        l->len = f->len;
        return TS_OK;
    }
    ts_status st = ts__pb_want(f, size == 4 ? TS__PB_FIXED32 : TS__PB_FIXED64, what, err);
    if (st)
        return st;
    l->count++;
    l->unpacked = 1;
    return TS_OK;
}

/* BlobProto m -> one array named `name`; `type` is the layer type (for the
 * role), `index` the blob's index in its layer (-1: a lone blob). */
static ts_status read_blob(caffe_reader *r, ts__pb_msg *m, const char *name, const char *type,
                           size_t tlen, int64_t index, size_t at)
{
    ts_error *err = r->err;
    int64_t legacy[4] = {0, 0, 0, 0}, dims[TS_MAX_NDIM];
    int has_legacy = 0, ndim = 0;
    fixed_list data = {0}, dbl = {0};
    ts__pb_field fl;
    int k;
    ts_status st = TS_OK;
    while (!st && (k = ts__pb_next(m, &fl, err)) > 0) {
        switch (fl.number) {
        case 1: case 2: case 3: case 4:
            if ((st = ts__pb_want(&fl, TS__PB_VARINT, "num/channels/height/width", err)))
                break;
            legacy[fl.number - 1] = (int64_t)(int32_t)(uint32_t)fl.value;
            has_legacy = 1;
            break;
        case 5:
        case 8:
            if (fl.truncated && fl.wire == TS__PB_LEN)
                return ts__fail(err, TS_ERR_TRUNCATED, 0, (int64_t)r->len,
                                "blob '%s': file ends at byte %zu inside its packed %s "
                                "(%llu bytes promised at byte %zu)", name, r->len,
                                fl.number == 5 ? "data" : "double_data",
                                (unsigned long long)fl.declared_len, fl.pos);
            st = add_fixed(fl.number == 5 ? &data : &dbl, &fl, fl.number == 5 ? 4 : 8,
                           fl.number == 5 ? "data" : "double_data", err);
            break;
        case 7: { /* BlobShape: dim 1 */
            ts__pb_msg s;
            ts__pb_field d;
            int kk;
            if ((st = ts__pb_sub(m, &fl, &s, err)))
                break;
            /* given twice, protobuf merges the two BlobShapes: their dims
             * concatenated (as Caffe's own parser reads it) */
            while (!st && (kk = ts__pb_next(&s, &d, err)) > 0)
                if (d.number == 1)
                    st = ts__pb_dims(&s, &d, dims, &ndim, "shape dim", err);
            if (!st && kk < 0)
                st = s.status;
            break;
        }
        default: /* diff 6, double_diff 9: gradients; unknown: skipped */
            break;
        }
    }
    if (!st && k < 0)
        st = m->status;
    if (st) {
        ts__error_prefix(err, "blob '%s'", name);
        return st;
    }
    if (has_legacy) {
        for (int i = 0; i < 4; i++)
            if (legacy[i] < 0)
                return ts__fail(err, TS_ERR_VALUE, 0, (int64_t)at,
                                "blob '%s': legacy dim %d is negative (%lld)", name, i,
                                (long long)legacy[i]);
        memcpy(dims, legacy, sizeof legacy);
        ndim = 4;
    }
    if (data.fields && dbl.fields)
        return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)at,
                        "blob '%s' has both data (float) and double_data", name);
    ts_array *a = ts__file_add_array(r->f, err);
    if (!a)
        return ts__file_add_failure(r->f);
    a->name = name;
    int is_double = dbl.fields > 0;
    const fixed_list *l = is_double ? &dbl : &data;
    ts__array_set_dtype(a, is_double ? TS_DTYPE_FLOAT64 : TS_DTYPE_FLOAT32);
    a->format_dtype = is_double ? "double_data" : "data";
    a->byteorder = '<';
    if ((st = ts_shape_assign(&a->shape, dims, ndim, err)) ||
        (st = ts__array_compute_sizes(a, err))) {
        ts__error_prefix(err, "blob '%s'", name);
        return st;
    }
    if (l->count != a->size) {
        char buf[TS__SHAPE_STR_MAX];
        return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)at,
                        "blob '%s': %s has %lld values, shape %s needs %lld", name,
                        a->format_dtype, (long long)l->count,
                        ts__shape_str(&a->shape, buf, sizeof buf), (long long)a->size);
    }
    if (l->fields == 1 && !l->unpacked && (int64_t)l->len == a->nbytes)
        a->data_offset = (int64_t)l->pos;
    const char *role = type ? blob_role(type, tlen, index) : NULL;
    if (type)
        a->note = ts__file_printf(r->f, err, "layer type %.*s%s%s, shape from %s, %s", (int)tlen,
                                  type, role ? ", role " : "", role ? role : "",
                                  has_legacy ? "num/channels/height/width" : "shape",
                                  a->format_dtype);
    else
        a->note = ts__file_printf(r->f, err, "BlobProto, shape from %s, %s",
                                  has_legacy ? "num/channels/height/width" : "shape",
                                  a->format_dtype);
    return a->note ? TS_OK : TS_ERR_NOMEM;
}

/* A layer: name, type (string or V1 enum) and blobs, at the field numbers
 * of its kind: LayerParameter (1, 2, 7), V1LayerParameter (4, 5, 6; its V0
 * layer in 1), V0LayerParameter (1, 2, 50). */
typedef enum { LAYER_NEW, LAYER_V1, LAYER_V0 } layer_kind;

static ts_status read_layer(caffe_reader *r, const ts__pb_msg *parent, const ts__pb_field *pf,
                            layer_kind kind, int64_t index)
{
    ts_error *err = r->err;
    ts__pb_msg m;
    ts_status st = ts__pb_sub(parent, pf, &m, err);
    if (st)
        return st;
    uint32_t f_name = kind == LAYER_V1 ? 4 : 1, f_type = kind == LAYER_V1 ? 5 : 2,
             f_blobs = kind == LAYER_NEW ? 7 : kind == LAYER_V1 ? 6 : 50;
    const char *name = NULL, *type = NULL;
    size_t nlen = 0, tlen = 0;
    ts__pb_field fl, v0 = {0};
    int k, has_v0 = 0;
    ts__pb_msg w = m;
    while ((k = ts__pb_next(&w, &fl, err)) > 0) {
        if (fl.truncated)
            break; /* the second pass descends to name the place */
        if (fl.number == f_name) {
            if ((st = ts__pb_want(&fl, TS__PB_LEN, "layer name", err)))
                return st;
            if ((st = ts__pb_fetch(&m, &fl, err)))
                return st;
            name = (const char *)r->data + fl.pos;
            nlen = fl.len;
        } else if (fl.number == f_type) {
            if (kind == LAYER_V1) {
                if ((st = ts__pb_want(&fl, TS__PB_VARINT, "layer type", err)))
                    return st;
                type = fl.value < sizeof v1_types / sizeof *v1_types ? v1_types[fl.value]
                                                                     : "unknown";
                tlen = strlen(type);
            } else {
                if ((st = ts__pb_want(&fl, TS__PB_LEN, "layer type", err)))
                    return st;
                if ((st = ts__pb_fetch(&m, &fl, err)))
                    return st;
                type = (const char *)r->data + fl.pos;
                tlen = fl.len;
            }
        } else if (kind == LAYER_V1 && fl.number == 1) {
            v0 = fl;
            has_v0 = 1;
        }
    }
    if (k < 0 && !w.pending)
        return w.status;
    if (has_v0 && (st = read_layer(r, &m, &v0, LAYER_V0, index)))
        return st;
    if (!name) {
        name = "";
        nlen = 0;
    }
    if (memchr(name, '\0', nlen))
        return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)pf->key_pos,
                        "layer %lld at byte %zu: name contains a NUL byte", (long long)index,
                        pf->key_pos);
    if (!type)
        type = "";
    int64_t bi = 0;
    w = m;
    while ((k = ts__pb_next(&w, &fl, err)) > 0) {
        if (fl.number != f_blobs)
            continue;
        const char *bname = ts__file_printf(r->f, err, "%.*s/%lld", (int)nlen, name,
                                            (long long)bi);
        ts__pb_msg b;
        if (!bname)
            return TS_ERR_NOMEM;
        if ((st = ts__pb_sub(&w, &fl, &b, err)) ||
            (st = read_blob(r, &b, bname, type, tlen, bi, fl.key_pos)))
            return st;
        bi++;
    }
    return k < 0 ? w.status : TS_OK;
}

/*
 * Top-level kind: 1 NetParameter, 2 BlobProto, 0 neither. The two share
 * field numbers with different wire types: NetParameter has strings in
 * 1 (name), messages in 2 (V1 layers), 3 (input), 6 (state), 100 (layer),
 * varints in 5 (force_backward), 7 (debug_info); BlobProto has varints in
 * 1..4 (num..width), packed floats in 5, 6, a message in 7 (shape), packed
 * doubles in 8, 9. Fields 4 (input_dim / width) and 8 (input_shape /
 * double_data) can be either.
 */
static int classify(const unsigned char *data, size_t len, ts__source *src)
{
    ts__pb_msg m;
    ts__pb_field f;
    ts__pb_init_src(&m, data, len, src);
    int net = 0, blob = 0, k, n = 0;
    while ((k = ts__pb_next(&m, &f, NULL)) > 0) {
        int w = f.wire, is_net = 0, is_blob = 0, ok = 1;
        n++;
        switch (f.number) {
        case 1: case 2: case 3:
            is_net = w == TS__PB_LEN;
            is_blob = w == TS__PB_VARINT;
            break;
        case 4:
            ok = w == TS__PB_VARINT || w == TS__PB_LEN;
            break;
        case 5:
            is_net = w == TS__PB_VARINT;
            is_blob = w == TS__PB_LEN || w == TS__PB_FIXED32;
            break;
        case 6: /* state (NetState) or diff (packed floats) */
            is_blob = w == TS__PB_FIXED32;
            ok = w == TS__PB_LEN || is_blob;
            break;
        case 7:
            is_net = w == TS__PB_VARINT;
            is_blob = w == TS__PB_LEN;
            break;
        case 8: case 9:
            is_blob = w == TS__PB_FIXED64 || (f.number == 9 && w == TS__PB_LEN);
            ok = w == TS__PB_LEN || w == TS__PB_FIXED64;
            break;
        case 100:
            is_net = w == TS__PB_LEN;
            ok = is_net;
            break;
        default:
            ok = f.number > 100;
            break;
        }
        if (!ok || (!is_net && !is_blob && f.number <= 3))
            return 0;
        net += is_net;
        blob += is_blob;
    }
    if ((k < 0 && !m.pending) || n == 0)
        return 0;
    if (net && !blob)
        return 1;
    if (blob && !net)
        return 2;
    return 0;
}

static int probe_caffe(const unsigned char *data, size_t len, ts__source *src)
{
    return classify(data, len, src) != 0;
}

static ts_status read_caffe(ts_file *f, const unsigned char *data, size_t len,
                            const ts_open_options *opts, ts_error *err)
{
    (void)opts;
    caffe_reader r = {f, data, len, err};
    int kind = classify(data, len, ts__file_source(f));
    ts__pb_msg m;
    ts__pb_field fl;
    ts__pb_init_src(&m, data, len, ts__file_source(f));
    if (kind == 2) {
        ts__file_set_version(f, "BlobProto");
        return read_blob(&r, &m, "", NULL, 0, -1, 0);
    }
    if (kind == 0) {
        int k = ts__pb_next(&m, &fl, err);
        while (k > 0)
            k = ts__pb_next(&m, &fl, err);
        if (k < 0) {
            ts__error_prefix(err, "not a Caffe NetParameter or BlobProto");
            return m.status;
        }
        return ts__fail(err, TS_ERR_FORMAT, 0, 0,
                        "not a Caffe NetParameter or BlobProto: the top-level fields of this "
                        "protobuf match neither");
    }
    int k, v1 = 0, nw = 0;
    int64_t li = 0;
    ts_status st;
    while ((k = ts__pb_next(&m, &fl, err)) > 0) {
        if (fl.number == 100 || fl.number == 2) {
            if ((st = read_layer(&r, &m, &fl, fl.number == 100 ? LAYER_NEW : LAYER_V1, li++)))
                return st;
            if (fl.number == 2)
                v1 = 1;
            else
                nw = 1;
        }
    }
    if (k < 0)
        return m.status;
    ts__file_set_version(f, v1 && !nw ? "NetParameter (V1 layers)" : "NetParameter");
    return TS_OK;
}

const ts__reader ts__reader_caffe = {
    {TS_FORMAT_CAFFE, "caffe", ".caffemodel .binaryproto",
     "extension .caffemodel or .binaryproto and the protobuf structure of a NetParameter or "
     "BlobProto",
     "Caffe weights (NetParameter layers, V1/V0 layers, BlobProto mean files)", "field", 0},
    probe_caffe,
    read_caffe,
    0,
};
