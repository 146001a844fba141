/*
 * coreml.c - reader for Core ML models, header only: a .mlmodel (a
 * protobuf Model message), alone or inside a .mlpackage folder, whose ML
 * Program weights are in weights/weight.bin beside it.
 *
 * Layout (coremltools, the .proto files of mlmodel/format; field numbers cited where
 * they are read): Model has specificationVersion 1, description 2 and one
 * model type (pipelineClassifier 200, pipelineRegressor 201, pipeline 202,
 * neuralNetworkRegressor 303, neuralNetworkClassifier 403, neuralNetwork
 * 500, mlProgram 502, ...). Pipelines hold Models (Pipeline.models 1, their
 * names 2), read with the model's name as a prefix ("name/").
 *
 * NeuralNetwork (NeuralNetwork.proto): layers 1 of NeuralNetworkLayer (name
 * 1, the layer's parameters in the field of its type, 100..1471). Every
 * WeightParams field of the layer parameters is an array "<layer>.<field>"
 * ("conv1.weights", "bn.gamma"): floatValue 1 (float32), float16Value 2,
 * rawValue 30 (uintN with quantization's numberOfBits N, packed from the
 * high bit: uint8 read, narrower ones named; float32 or uint8 by its size
 * without quantization), int8RawValue 31, quantization 40
 * (linear 101 scale/bias, lookup table 102; named in the note). Its shape
 * is the one the layer's parameters give (convolution [outputChannels,
 * kernelChannels, kH, kW], deconvolution [kernelChannels, outputChannels /
 * nGroups, kH, kW], inner product [outputChannels, inputChannels], ...);
 * when they give none (custom layers) or one of another size, the array is
 * 1-d and the note says why. Branch and loop layers' networks are read too.
 *
 * ML Program (MIL.proto): Program.functions 2 (map to Function), each
 * Function's block_specializations 3 (map to Block), Block.operations 3.
 * A "const" operation is an array named by its output (outputs 3), its val
 * attribute (attributes 5) a Value (type 2; immediateValue 3 with a
 * TensorValue inline, or blobFileValue 5 {fileName 1, offset 2}). Other
 * operations' values (constexpr_* parameters, in attributes or input
 * bindings) are arrays "<op>.<param>". Inline values: bytes and packed
 * floats at their offset in the file, ints/bools/longInts/doubles through
 * the protobuf values source. A blob's offset is that of its blob_metadata
 * in the weight file (MILBlob, mlmodel/src/MILBlob/Blob/StorageFormat.hpp:
 * a 64-byte storage_header {u32 count, u32 version = 2, reserved}, then per
 * blob a 64-byte blob_metadata {u32 sentinel 0xDEADBEEF, u32 mil_dtype,
 * u64 sizeInBytes, u64 offset, u64 padding_size_in_bits, reserved}, the data
 * at offset): the array's data_offset is the data's offset in the weight
 * file (storage_key), checked against its size, its dtype checked against
 * the metadata's. "@model_path/" names the folder of the .mlmodel.
 *
 * --metadata: specification_version, model_type, the description's
 * metadata (short_description, version, author, license, user_defined),
 * inputs/outputs/states (type, dtype, shape, enumerated shapes or ranges,
 * image sizes), and for an ML Program its functions and weight files.
 */
#include "protobuf.h"
#include "reader.h"
#include "../core/json.h"
#include "../core/jansson_lazy.h"
#include "model_meta.h"

#include <stdio.h>
#include <stdlib.h>

#define NAME_BUF 160
#define MAX_BLOB_FILES 16
/* Pipelines nest Models at most this deep (the walker's own depth limit
 * bounds every other recursion). */
#define MAX_PIPELINE_DEPTH 16
#define MILBLOB_SENTINEL 0xDEADBEEFu

typedef struct blob_file {
    const char *name;          /* relative to the model's folder, storage of f */
    int state;                 /* 1 found, 2 not there, 3 model read from memory */
    int32_t side;
    int64_t size;
    uint32_t count;            /* storage_header.count */
} blob_file;

struct mil_type;

/* A blob constant whose blob_metadata is read after the parse. */
typedef struct pending_blob {
    size_t index;              /* its array */
    blob_file *file;
    uint64_t off;              /* of its blob_metadata */
    size_t at;                 /* its blobFileValue in the model */
    const struct mil_type *type;
} pending_blob;

typedef struct cm {
    ts_file *f;
    const unsigned char *data;
    size_t len;
    const ts_open_options *opts;
    ts_error *err;
    ts__source *src;
    blob_file blobs[MAX_BLOB_FILES];
    int nblobs;
    json_t *functions;         /* metadata: ML Program functions, or NULL */
    struct pending_blob *pending; /* blobs whose metadata is still to read */
    size_t npending, cappending;
} cm;

/* ---- small helpers -------------------------------------------------------- */

/* The payload of string field fl of m (fetched), checked to hold no NUL. */
static ts_status get_str(cm *r, const ts__pb_msg *m, const ts__pb_field *fl, const char *what,
                         const char **s, size_t *n)
{
    ts_status st = ts__pb_want(fl, TS__PB_LEN, what, r->err);
    if (!st && fl->truncated)
        st = ts__fail(r->err, TS_ERR_TRUNCATED, 0, (int64_t)r->len,
                      "file ends at byte %zu inside %s (%llu bytes promised at byte %zu)",
                      r->len, what, (unsigned long long)fl->declared_len, fl->pos);
    if (!st)
        st = ts__pb_fetch(m, fl, r->err);
    if (st)
        return st;
    *s = (const char *)r->data + fl->pos;
    *n = fl->len;
    if (memchr(*s, '\0', *n))
        return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)fl->pos,
                        "%s at byte %zu contains a NUL byte", what, fl->pos);
    return TS_OK;
}

/* A JSON string of s[0..n): as is when UTF-8, else its printable form. */
static json_t *jstr(const char *s, size_t n)
{
    json_t *j = json_stringn(s, n);
    if (!j) {
        char buf[512];
        j = json_string(ts__printable(s, n, buf, sizeof buf));
    }
    return j;
}

static ts_status add_meta(cm *r, const char *key, json_t *v)
{
    char *text = v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    json_decref(v);
    if (!text)
        return ts__error(r->err, TS_ERR_NOMEM, "out of memory for the metadata");
    ts_status st = ts__file_add_metadata(r->f, key, strlen(key), text, strlen(text), r->err);
    free(text);
    return st;
}

/* Number of fixed-size values (4 or 8 bytes) in a packed or unpacked
 * repeated field; pos/len the payload of its only packed piece. */
typedef struct fixed_list {
    int64_t count;
    int fields, unpacked;
    size_t pos, len;
} fixed_list;

static ts_status add_fixed(cm *r, fixed_list *l, const ts__pb_field *f, size_t size,
                           const char *what)
{
    l->fields++;
    if (f->wire == TS__PB_LEN) {
        if (f->truncated)
            return ts__fail(r->err, TS_ERR_TRUNCATED, 0, (int64_t)r->len,
                            "file ends at byte %zu inside packed %s (%llu bytes promised at "
                            "byte %zu)", r->len, what, (unsigned long long)f->declared_len,
                            f->pos);
        if (f->len % size)
            return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)f->key_pos,
                            "packed %s at byte %zu: %zu bytes are not a whole number of "
                            "%zu-byte values", what, f->key_pos, f->len, size);
        l->count += (int64_t)(f->len / size);
        l->pos = f->pos;
        l->len = f->len;
        return TS_OK;
    }
    ts_status st = ts__pb_want(f, size == 4 ? TS__PB_FIXED32 : TS__PB_FIXED64, what, r->err);
    if (st)
        return st;
    l->count++;
    l->unpacked = 1;
    return TS_OK;
}

/* A bytes field's payload, refused when the file ends inside it. */
static ts_status want_bytes(cm *r, const ts__pb_field *f, const char *what)
{
    ts_status st = ts__pb_want(f, TS__PB_LEN, what, r->err);
    if (!st && f->truncated)
        st = ts__fail(r->err, TS_ERR_TRUNCATED, 0, (int64_t)r->len,
                      "file ends at byte %zu inside %s (%llu bytes promised at byte %zu)",
                      r->len, what, (unsigned long long)f->declared_len, f->pos);
    return st;
}

/* ---- NeuralNetwork weights ------------------------------------------------- */

/* Names of sub-byte unsigned types for quantized rawValue (uint1..uint7). */
static const char *const uint_bits_name[8] = {NULL, "uint1", "uint2", "uint3", "uint4",
                                             "uint5", "uint6", "uint7"};

/*
 * One WeightParams (field fl of m) as array `name`: dims[ndim] the shape
 * the layer's parameters give (ndim -1: none), `from` what gave it, `type`
 * the layer type. An empty WeightParams (no values: an optional bias not
 * set) holds nothing and is not an array.
 */
static ts_status add_weights(cm *r, const ts__pb_msg *m, const ts__pb_field *fl,
                             const char *name, const char *type, const int64_t *dims, int ndim,
                             const char *from)
{
    ts_error *err = r->err;
    ts__pb_msg w;
    ts_status st = ts__pb_sub(m, fl, &w, err);
    if (st)
        return st;
    size_t start = w.pos, end = w.end;
    fixed_list floats = {0};
    size_t f16_pos = 0, f16_len = 0, raw_pos = 0, raw_len = 0, i8_pos = 0, i8_len = 0;
    int has_f16 = 0, has_raw = 0, has_i8 = 0, has_q = 0, qkind = 0;
    uint64_t nbits = 0;
    int64_t nscale = 0, nbias = 0, nlut = 0;
    ts__pb_field g;
    int k;
    while (!st && (k = ts__pb_next(&w, &g, err)) > 0) {
        switch (g.number) {
        case 1: /* floatValue */
            st = add_fixed(r, &floats, &g, 4, "floatValue");
            break;
        case 2: /* float16Value */
            if (!(st = want_bytes(r, &g, "float16Value")))
                has_f16 = 1, f16_pos = g.pos, f16_len = g.len;
            break;
        case 30: /* rawValue */
            if (!(st = want_bytes(r, &g, "rawValue")))
                has_raw = 1, raw_pos = g.pos, raw_len = g.len;
            break;
        case 31: /* int8RawValue */
            if (!(st = want_bytes(r, &g, "int8RawValue")))
                has_i8 = 1, i8_pos = g.pos, i8_len = g.len;
            break;
        case 40: { /* QuantizationParams: numberOfBits 1, linear 101, lookup table 102 */
            ts__pb_msg q, p;
            ts__pb_field h, e;
            int kk, ke;
            has_q = 1;
            if ((st = ts__pb_sub(&w, &g, &q, err)))
                break;
            while (!st && (kk = ts__pb_next(&q, &h, err)) > 0) {
                if (h.number == 1) {
                    st = ts__pb_want(&h, TS__PB_VARINT, "quantization numberOfBits", err);
                    nbits = h.value;
                } else if (h.number == 101 || h.number == 102) {
                    fixed_list a = {0}, b = {0};
                    qkind = h.number == 101 ? 1 : 2;
                    if ((st = ts__pb_sub(&q, &h, &p, err)))
                        break;
                    while (!st && (ke = ts__pb_next(&p, &e, err)) > 0)
                        if (e.number == 1)
                            st = add_fixed(r, &a, &e, 4, qkind == 1 ? "scale" : "floatValue");
                        else if (e.number == 2 && qkind == 1)
                            st = add_fixed(r, &b, &e, 4, "bias");
                    if (!st && ke < 0)
                        st = p.status;
                    if (qkind == 1)
                        nscale = a.count, nbias = b.count;
                    else
                        nlut = a.count;
                }
            }
            if (!st && kk < 0)
                st = q.status;
            break;
        }
        default: /* isUpdatable 50, unknown fields */
            break;
        }
    }
    if (!st && k < 0)
        st = w.status;
    if (st) {
        ts__error_prefix(err, "weights '%s'", name);
        return st;
    }
    int kinds = (floats.fields > 0) + has_f16 + has_raw + has_i8;
    if (kinds == 0)
        return TS_OK;
    if (kinds > 1)
        return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)fl->key_pos,
                        "weights '%s' at byte %zu hold values in more than one of floatValue, "
                        "float16Value, rawValue and int8RawValue", name, fl->key_pos);
    int64_t want = -1; /* the elements the parameters' shape holds */
    if (ndim >= 0) {
        want = 1;
        for (int i = 0; i < ndim && want >= 0; i++)
            if (dims[i] < 0 || ts__mul_overflow(want, dims[i], &want))
                want = -1;
    }
    ts__data_src ds;
    memset(&ds, 0, sizeof ds);
    ts_dtype dt;
    const char *fmt, *sub = NULL;
    int bits = 0, use_src = 0;
    int64_t count;
    size_t pos;
    char qnote[96] = "";
    if (floats.fields) {
        dt = TS_DTYPE_FLOAT32, fmt = "floatValue", count = floats.count;
        pos = floats.pos;
        use_src = floats.fields != 1 || floats.unpacked;
    } else if (has_f16) {
        if (f16_len % 2)
            return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)f16_pos,
                            "weights '%s': float16Value at byte %zu has an odd number of "
                            "bytes (%zu)", name, f16_pos, f16_len);
        dt = TS_DTYPE_FLOAT16, fmt = "float16Value", count = (int64_t)(f16_len / 2);
        pos = f16_pos;
    } else if (has_i8) {
        dt = TS_DTYPE_INT8, fmt = "int8RawValue", count = (int64_t)i8_len, pos = i8_pos;
    } else {
        fmt = "rawValue", pos = raw_pos;
        if (has_q) {
            if (nbits < 1 || nbits > 8)
                return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)fl->key_pos,
                                "weights '%s': quantization numberOfBits is %llu, not 1..8",
                                name, (unsigned long long)nbits);
            bits = (int)nbits;
        } else if (want > 0 && (int64_t)raw_len == want * 4) {
            bits = 32; /* unquantized raw float32 */
        } else {
            bits = 8;
        }
        if (bits == 32) {
            dt = TS_DTYPE_FLOAT32, count = (int64_t)(raw_len / 4);
        } else if (bits == 8) {
            dt = TS_DTYPE_UINT8, count = (int64_t)raw_len;
        } else {
            /* packed from the high bit (coremltools quantization_utils.py,
             * _convert_array_to_nbit_quantized_bytes): not tshape's
             * uint4/uint2 order, so named with their bits, not read */
            dt = TS_DTYPE_UNKNOWN;
            sub = uint_bits_name[bits];
            /* the shape's count when its packed bytes are these; else all
             * the values the bytes hold */
            if (want >= 0 && (want / 8 * bits + (want % 8 * bits + 7) / 8) == (int64_t)raw_len)
                count = want;
            else
                count = (int64_t)raw_len * 8 / bits;
        }
        if (has_q && qkind == 1)
            snprintf(qnote, sizeof qnote, ", linear quantization (%d bits, %lld scale, %lld "
                     "bias)", bits, (long long)nscale, (long long)nbias);
        else if (has_q && qkind == 2)
            snprintf(qnote, sizeof qnote, ", lookup-table quantization (%d bits, %lld table "
                     "values)", bits, (long long)nlut);
        else if (has_q)
            snprintf(qnote, sizeof qnote, ", quantization of %d bits without parameters", bits);
        else
            snprintf(qnote, sizeof qnote, ", no quantization: read as %s by its size",
                     bits == 32 ? "float32" : "uint8");
    }
    if (!floats.fields && has_f16 + has_i8 && has_q)
        snprintf(qnote, sizeof qnote, qkind == 1 ? ", linear quantization (%lld scale, %lld "
                 "bias)" : ", quantization", (long long)nscale, (long long)nbias);
    ts_array *a = ts__file_add_array(r->f, err);
    if (!a)
        return ts__file_add_failure(r->f);
    a->name = name;
    a->format_dtype = fmt;
    if (dt != TS_DTYPE_UNKNOWN) {
        ts__array_set_dtype(a, dt);
        a->byteorder = a->itemsize > 1 ? '<' : '|';
    } else {
        a->dtype_name = sub;
        a->bits = bits;
    }
    char sb[TS__SHAPE_STR_MAX], why[TS__SHAPE_STR_MAX + 400];
    int use_dims = want == count;
    if (use_dims) {
        snprintf(why, sizeof why, "shape from %s", from);
        st = ts_shape_assign(&a->shape, dims, ndim, err);
    } else {
        if (ndim < 0) {
            snprintf(why, sizeof why, "shape not known (%s)", from);
        } else {
            ts_shape tmp = TS_SHAPE_INIT;
            if (ts_shape_assign(&tmp, dims, ndim, NULL) == TS_OK)
                ts__shape_str(&tmp, sb, sizeof sb);
            else
                snprintf(sb, sizeof sb, "(?)");
            ts_shape_free(&tmp);
            snprintf(why, sizeof why, "1-d: %s gives shape %s of %lld values, the weights "
                     "hold %lld", from, sb, (long long)want, (long long)count);
        }
        st = ts_shape_assign(&a->shape, &count, 1, err);
    }
    if (!st)
        st = ts__array_compute_sizes(a, err);
    if (st) {
        ts__error_prefix(err, "weights '%s'", name);
        return st;
    }
    if (use_src) {
        ds.kind = TS__SRC_PROTO;
        ds.comp_offset = (int64_t)start;
        ds.comp_size = (int64_t)(end - start);
        ds.size = a->nbytes;
        ds.pb_field = 1;
        ds.pb_fixed = 4;
        ds.pb_out = 4;
        ds.pb_what = "floatValue";
        if ((st = ts__file_set_data_src(r->f, a, &ds, err)))
            return st;
    } else {
        a->data_offset = (int64_t)pos;
    }
    a->note = ts__file_printf(r->f, err, "%s layer, %s, %s%s%s", type, fmt, why, qnote,
                              dt == TS_DTYPE_UNKNOWN ? "; packed from the high bit: no tshape "
                              "dtype, values not read" : "");
    return a->note ? TS_OK : TS_ERR_NOMEM;
}

/* Varint fields 0..127 of a layer's parameters (the last of each), and its
 * repeated uint64 fields read on demand. */
typedef struct params {
    uint64_t v[128];
    const ts__pb_msg *m;
    /* the repeated fields 1, 4 and 20, read once (a layer may hold many
     * weights: reading them again for each would be quadratic) */
    int rep_done[3], rep_n[3];
    int64_t rep[3][TS_MAX_NDIM];
} params;

static ts_status read_params(cm *r, const ts__pb_msg *m, params *p)
{
    ts__pb_msg w = *m;
    ts__pb_field fl;
    int k;
    memset(p, 0, sizeof *p);
    p->m = m;
    while ((k = ts__pb_next(&w, &fl, r->err)) > 0)
        if (fl.wire == TS__PB_VARINT && fl.number < 128)
            p->v[fl.number] = fl.value;
    return k < 0 ? w.status : TS_OK;
}

/* The repeated uint64/int64 field `number` (1, 4 or 20) of the parameters
 * into dims. */
static ts_status rep_dims(cm *r, params *p, uint32_t number, int64_t *dims, int *ndim,
                          const char *what)
{
    int c = number == 1 ? 0 : number == 4 ? 1 : 2;
    if (!p->rep_done[c]) {
        ts__pb_msg w = *p->m;
        ts__pb_field fl;
        int k;
        ts_status st = TS_OK;
        while (!st && (k = ts__pb_next(&w, &fl, r->err)) > 0)
            if (fl.number == number)
                st = ts__pb_dims(&w, &fl, p->rep[c], &p->rep_n[c], what, r->err);
        if (st || k < 0)
            return st ? st : w.status;
        p->rep_done[c] = 1;
    }
    *ndim = p->rep_n[c];
    memcpy(dims, p->rep[c], (size_t)*ndim * sizeof *dims);
    return TS_OK;
}

static int64_t u(uint64_t v)
{
    return v > (uint64_t)INT64_MAX ? -1 : (int64_t)v;
}

/* What a layer's WeightParams field is and the rule of its shape. */
typedef enum shape_rule {
    R_NONE,         /* not known: 1-d */
    R_CONV_W, R_CONV_B, R_CONV3D_W, R_CONV3D_B,
    R_OUT_IN,       /* [v2, v1]: inner product, embedding, embeddingND */
    R_V2,           /* [v2] */
    R_V1,           /* [v1]: batchnorm channels */
    R_REP1, R_REP4, /* the repeated field 1 (shape), 4 (shapeBias) */
    R_BMM_W, R_BMM_B,
    R_RNN_W, R_RNN_R /* [out, in], [out, out]; biases and peepholes R_V2 */
} shape_rule;

typedef struct wfield {
    uint32_t layer;           /* NeuralNetworkLayer field of the parameters */
    uint32_t field;           /* WeightParams field in them */
    const char *name;
    shape_rule rule;
} wfield;

static const wfield wfields[] = {
    {100, 90, "weights", R_CONV_W}, {100, 91, "bias", R_CONV_B},
    {1471, 60, "weights", R_CONV3D_W}, {1471, 61, "bias", R_CONV3D_B},
    {140, 20, "weights", R_OUT_IN}, {140, 21, "bias", R_V2},
    {150, 20, "weights", R_OUT_IN}, {150, 21, "bias", R_V2},
    {1040, 20, "weights", R_OUT_IN}, {1040, 21, "bias", R_V2},
    {160, 15, "gamma", R_V1}, {160, 16, "beta", R_V1},
    {160, 17, "mean", R_V1}, {160, 18, "variance", R_V1},
    {250, 2, "bias", R_REP1},
    {245, 2, "scale", R_REP1}, {245, 5, "bias", R_REP4},
    {290, 2, "data", R_REP1}, {1070, 2, "data", R_REP1},
    {1045, 8, "weights", R_BMM_W}, {1045, 9, "bias", R_BMM_B},
    {1350, 3, "gamma", R_REP1}, {1350, 4, "beta", R_REP1},
    {400, 30, "weightMatrix", R_RNN_W}, {400, 31, "recursionMatrix", R_RNN_R},
    {400, 32, "biasVector", R_V2},
    {410, 30, "updateGateWeightMatrix", R_RNN_W}, {410, 31, "resetGateWeightMatrix", R_RNN_W},
    {410, 32, "outputGateWeightMatrix", R_RNN_W},
    {410, 50, "updateGateRecursionMatrix", R_RNN_R},
    {410, 51, "resetGateRecursionMatrix", R_RNN_R},
    {410, 52, "outputGateRecursionMatrix", R_RNN_R},
    {410, 70, "updateGateBiasVector", R_V2}, {410, 71, "resetGateBiasVector", R_V2},
    {410, 72, "outputGateBiasVector", R_V2},
    {500, 20, "weights", R_NONE},
};

/* LSTMWeightParams fields (shape from the LSTM layer's sizes). */
static const wfield lstm_fields[] = {
    {0, 1, "inputGateWeightMatrix", R_RNN_W}, {0, 2, "forgetGateWeightMatrix", R_RNN_W},
    {0, 3, "blockInputWeightMatrix", R_RNN_W}, {0, 4, "outputGateWeightMatrix", R_RNN_W},
    {0, 20, "inputGateRecursionMatrix", R_RNN_R}, {0, 21, "forgetGateRecursionMatrix", R_RNN_R},
    {0, 22, "blockInputRecursionMatrix", R_RNN_R},
    {0, 23, "outputGateRecursionMatrix", R_RNN_R},
    {0, 40, "inputGateBiasVector", R_V2}, {0, 41, "forgetGateBiasVector", R_V2},
    {0, 42, "blockInputBiasVector", R_V2}, {0, 43, "outputGateBiasVector", R_V2},
    {0, 60, "inputGatePeepholeVector", R_V2}, {0, 61, "forgetGatePeepholeVector", R_V2},
    {0, 62, "outputGatePeepholeVector", R_V2},
};

static const struct {
    uint32_t field;
    const char *name;
} layer_types[] = {
    {100, "convolution"}, {130, "activation"}, {140, "innerProduct"}, {150, "embedding"},
    {160, "batchnorm"}, {245, "scale"}, {250, "bias"}, {290, "loadConstant"},
    {400, "simpleRecurrent"}, {410, "gru"}, {420, "uniDirectionalLSTM"},
    {430, "biDirectionalLSTM"}, {500, "custom"}, {605, "branch"}, {615, "loop"},
    {1040, "embeddingND"}, {1045, "batchedMatmul"}, {1070, "loadConstantND"},
    {1350, "layerNormalization"}, {1471, "convolution3d"},
};

static const char *layer_type_name(uint32_t field)
{
    for (size_t i = 0; i < sizeof layer_types / sizeof *layer_types; i++)
        if (layer_types[i].field == field)
            return layer_types[i].name;
    return NULL;
}

/* The shape rule's dims; *ndim -1 when it gives none. */
static ts_status rule_dims(cm *r, params *p, shape_rule rule, int64_t *d, int *ndim,
                           char *from, size_t cap)
{
    const uint64_t *v = p->v;
    ts_status st = TS_OK;
    int64_t groups = v[10] ? u(v[10]) : 1;
    *ndim = -1;
    switch (rule) {
    case R_NONE:
        snprintf(from, cap, "custom layer weights");
        return TS_OK;
    case R_CONV_W: {
        int64_t ks[TS_MAX_NDIM];
        int nk;
        if ((st = rep_dims(r, p, 20, ks, &nk, "kernelSize")))
            return st;
        if (nk == 0)
            ks[0] = ks[1] = 3, nk = 2; /* the proto's default, 3x3 */
        if (nk != 2) {
            snprintf(from, cap, "kernelSize of %d values (2 expected)", nk);
            return TS_OK;
        }
        if (v[60]) { /* isDeconvolution */
            d[0] = u(v[2]);
            d[1] = groups > 0 && u(v[1]) >= 0 ? u(v[1]) / groups : -1;
            snprintf(from, cap, "kernelChannels, outputChannels / nGroups, kernelSize "
                     "(deconvolution)");
        } else {
            d[0] = u(v[1]);
            d[1] = u(v[2]);
            snprintf(from, cap, "outputChannels, kernelChannels, kernelSize");
        }
        d[2] = ks[0], d[3] = ks[1], *ndim = 4;
        return TS_OK;
    }
    case R_CONV_B:
        d[0] = u(v[1]), *ndim = 1;
        snprintf(from, cap, "outputChannels");
        return TS_OK;
    case R_CONV3D_W: {
        int64_t in = u((uint32_t)v[2]), out = u((uint32_t)v[1]);
        int64_t g = v[10] ? (int64_t)(uint32_t)v[10] : 1;
        if (v[86]) { /* NeuralNetwork.proto: [outputChannels / nGroups,
                      * kernelChannels (inputChannels), kD, kH, kW] */
            d[0] = g > 0 ? out / g : -1, d[1] = in;
            snprintf(from, cap, "outputChannels / nGroups, inputChannels, kernel depth, "
                     "height, width (deconvolution)");
        } else {
            d[0] = out, d[1] = g > 0 ? in / g : -1;
            snprintf(from, cap, "outputChannels, inputChannels / nGroups, kernel depth, "
                     "height, width");
        }
        d[2] = (uint32_t)v[20], d[3] = (uint32_t)v[21], d[4] = (uint32_t)v[22];
        *ndim = 5;
        return TS_OK;
    }
    case R_CONV3D_B:
        d[0] = (uint32_t)v[1], *ndim = 1;
        snprintf(from, cap, "outputChannels");
        return TS_OK;
    case R_OUT_IN:
        d[0] = u(v[2]), d[1] = u(v[1]), *ndim = 2;
        snprintf(from, cap, "the layer's output and input sizes (fields 2, 1)");
        return TS_OK;
    case R_V2:
        d[0] = u(v[2]), *ndim = 1;
        snprintf(from, cap, "the layer's output size (field 2)");
        return TS_OK;
    case R_V1:
        d[0] = u(v[1]), *ndim = 1;
        snprintf(from, cap, "channels");
        return TS_OK;
    case R_REP1:
    case R_REP4:
        if ((st = rep_dims(r, p, rule == R_REP1 ? 1 : 4, d, ndim, "shape")))
            return st;
        snprintf(from, cap, "the layer's shape field %d", rule == R_REP1 ? 1 : 4);
        return TS_OK;
    case R_BMM_W:
        d[0] = u(v[5]), d[1] = u(v[6]), *ndim = 2;
        snprintf(from, cap, "weightMatrixFirstDimension, weightMatrixSecondDimension");
        return TS_OK;
    case R_BMM_B:
        d[0] = u(v[6]), *ndim = 1;
        snprintf(from, cap, "weightMatrixSecondDimension");
        return TS_OK;
    case R_RNN_W:
        d[0] = u(v[2]), d[1] = u(v[1]), *ndim = 2;
        snprintf(from, cap, "outputVectorSize, inputVectorSize");
        return TS_OK;
    case R_RNN_R:
        d[0] = d[1] = u(v[2]), *ndim = 2;
        snprintf(from, cap, "outputVectorSize, outputVectorSize");
        return TS_OK;
    }
    return TS_OK;
}

static ts_status read_nn(cm *r, const ts__pb_msg *m, const char *prefix);

/* The WeightParams of parameters pm (fields in table t[n]) of layer `lname`,
 * shapes from sizes p; `sub` names a sub-message ("forward."). */
static ts_status layer_weights(cm *r, const ts__pb_msg *pm, params *p, uint32_t layer,
                               const wfield *t, size_t n, const char *prefix, const char *lname,
                               size_t lnlen, const char *sub, const char *type)
{
    ts__pb_msg w = *pm;
    ts__pb_field fl;
    int k;
    int64_t custom_i = 0;
    ts_status st = TS_OK;
    while (!st && (k = ts__pb_next(&w, &fl, r->err)) > 0) {
        const wfield *wf = NULL;
        for (size_t i = 0; i < n && !wf; i++)
            if (t[i].layer == layer && t[i].field == fl.number)
                wf = &t[i];
        if (!wf || fl.wire != TS__PB_LEN)
            continue;
        int64_t d[TS_MAX_NDIM];
        int nd;
        char from[160];
        const char *name;
        if ((st = rule_dims(r, p, wf->rule, d, &nd, from, sizeof from)))
            break;
        if (wf->rule == R_NONE)
            name = ts__file_printf(r->f, r->err, "%s%.*s.%s%s.%lld", prefix, (int)lnlen, lname,
                                   sub, wf->name, (long long)custom_i++);
        else
            name = ts__file_printf(r->f, r->err, "%s%.*s.%s%s", prefix, (int)lnlen, lname, sub,
                                   wf->name);
        if (!name)
            return TS_ERR_NOMEM;
        st = add_weights(r, &w, &fl, name, type, d, nd, from);
    }
    return st ? st : k < 0 ? w.status : TS_OK;
}

/* One NeuralNetworkLayer. */
static ts_status read_layer(cm *r, const ts__pb_msg *parent, const ts__pb_field *pf,
                            const char *prefix, int64_t index)
{
    ts__pb_msg m;
    ts_status st = ts__pb_sub(parent, pf, &m, r->err);
    if (st)
        return st;
    const char *name = NULL;
    size_t nlen = 0;
    ts__pb_field fl, pfl = {0};
    int k, has_params = 0;
    ts__pb_msg w = m;
    while (!st && (k = ts__pb_next(&w, &fl, r->err)) > 0) {
        if (fl.number == 1)
            st = get_str(r, &w, &fl, "layer name", &name, &nlen);
        else if (fl.number >= 100 && fl.wire == TS__PB_LEN)
            pfl = fl, has_params = 1;
    }
    if (!st && k < 0)
        st = w.status;
    if (st) {
        ts__error_prefix(r->err, "layer %lld", (long long)index);
        return st;
    }
    char lb[32];
    if (!name) {
        snprintf(lb, sizeof lb, "layer%lld", (long long)index);
        name = lb, nlen = strlen(lb);
    }
    const char *type = has_params ? layer_type_name(pfl.number) : NULL;
    if (!type)
        return TS_OK; /* a layer type without weights */
    ts__pb_msg pm;
    params p;
    if ((st = ts__pb_sub(&m, &pfl, &pm, r->err)) || (st = read_params(r, &pm, &p)))
        goto fail;
    if (pfl.number == 605 || pfl.number == 615) {
        /* branch: ifBranch 1, elseBranch 2; loop: conditionNetwork 3,
         * bodyNetwork 4 (NeuralNetwork messages) */
        ts__pb_msg q = pm, sub;
        while (!st && (k = ts__pb_next(&q, &fl, r->err)) > 0)
            if (fl.wire == TS__PB_LEN && (pfl.number == 605 ? fl.number <= 2
                                                             : fl.number == 3 || fl.number == 4)) {
                if (!(st = ts__pb_sub(&q, &fl, &sub, r->err)))
                    st = read_nn(r, &sub, prefix);
            }
        if (!st && k < 0)
            st = q.status;
    } else if (pfl.number == 130) {
        /* ActivationParams: PReLU 25 {alpha 1}, parametricSoftplus 71
         * {alpha 1, beta 2}: a value per channel, or one */
        ts__pb_msg q = pm, a;
        while (!st && (k = ts__pb_next(&q, &fl, r->err)) > 0) {
            if ((fl.number != 25 && fl.number != 71) || fl.wire != TS__PB_LEN)
                continue;
            ts__pb_field e;
            int ke;
            if ((st = ts__pb_sub(&q, &fl, &a, r->err)))
                break;
            ts__pb_msg aw = a;
            while (!st && (ke = ts__pb_next(&aw, &e, r->err)) > 0) {
                if ((e.number != 1 && (e.number != 2 || fl.number != 71)) ||
                    e.wire != TS__PB_LEN)
                    continue;
                const char *an = ts__file_printf(r->f, r->err, "%s%.*s.%s", prefix, (int)nlen,
                                                 name, e.number == 1 ? "alpha" : "beta");
                if (!an)
                    return TS_ERR_NOMEM;
                st = add_weights(r, &aw, &e, an, fl.number == 25 ? "PReLU activation"
                                                                 : "parametricSoftplus activation",
                                 NULL, -1, "one value per channel, or one");
            }
            if (!st && ke < 0)
                st = aw.status;
        }
        if (!st && k < 0)
            st = q.status;
    } else if (pfl.number == 420 || pfl.number == 430) {
        /* LSTMWeightParams in field 20: one, or forward and backward */
        ts__pb_msg q = pm, lw;
        int64_t li = 0;
        while (!st && (k = ts__pb_next(&q, &fl, r->err)) > 0) {
            if (fl.number != 20 || fl.wire != TS__PB_LEN)
                continue;
            char sub[48];
            if (pfl.number == 420)
                sub[0] = '\0';
            else if (li < 2)
                snprintf(sub, sizeof sub, "%s.", li ? "backward" : "forward");
            else
                snprintf(sub, sizeof sub, "weightParams%lld.", (long long)li);
            li++;
            if (!(st = ts__pb_sub(&q, &fl, &lw, r->err)))
                st = layer_weights(r, &lw, &p, 0, lstm_fields,
                                   sizeof lstm_fields / sizeof *lstm_fields, prefix, name, nlen,
                                   sub, type);
        }
        if (!st && k < 0)
            st = q.status;
    } else {
        st = layer_weights(r, &pm, &p, pfl.number, wfields, sizeof wfields / sizeof *wfields,
                           prefix, name, nlen, "", type);
    }
fail:
    if (st) {
        char nb[NAME_BUF];
        ts__error_prefix(r->err, "layer '%s'", ts__printable(name, nlen, nb, sizeof nb));
    }
    return st;
}

/* A NeuralNetwork (or its Classifier/Regressor: the same layers field 1). */
static ts_status read_nn(cm *r, const ts__pb_msg *m, const char *prefix)
{
    ts__pb_msg w = *m;
    ts__pb_field fl;
    int k;
    int64_t li = 0;
    ts_status st = TS_OK;
    while (!st && (k = ts__pb_next(&w, &fl, r->err)) > 0)
        if (fl.number == 1)
            st = read_layer(r, &w, &fl, prefix, li++);
    return st ? st : k < 0 ? w.status : TS_OK;
}

/* ---- ML Program -------------------------------------------------------------- */

/* MIL DataType (MIL.proto) -> tshape dtype, its name, bits. */
typedef struct mil_type {
    uint64_t code;
    const char *name;
    ts_dtype dtype;
    int bits;                  /* for TS_DTYPE_UNKNOWN */
    uint32_t blob;             /* MILBlob BlobDataType, 0: none */
} mil_type;

static const mil_type mil_types[] = {
    {1, "BOOL", TS_DTYPE_BOOL, 0, 0},
    {2, "STRING", TS_DTYPE_OBJECT, 0, 0},
    {10, "FLOAT16", TS_DTYPE_FLOAT16, 0, 1},
    {11, "FLOAT32", TS_DTYPE_FLOAT32, 0, 2},
    {12, "FLOAT64", TS_DTYPE_FLOAT64, 0, 0},
    {13, "BFLOAT16", TS_DTYPE_BFLOAT16, 0, 5},
    {21, "INT8", TS_DTYPE_INT8, 0, 4},
    {22, "INT16", TS_DTYPE_INT16, 0, 6},
    {23, "INT32", TS_DTYPE_INT32, 0, 14},
    {24, "INT64", TS_DTYPE_INT64, 0, 0},
    {25, "INT4", TS_DTYPE_INT4, 0, 8},
    {31, "UINT8", TS_DTYPE_UINT8, 0, 3},
    {32, "UINT16", TS_DTYPE_UINT16, 0, 7},
    {33, "UINT32", TS_DTYPE_UINT32, 0, 15},
    {34, "UINT64", TS_DTYPE_UINT64, 0, 0},
    {35, "UINT4", TS_DTYPE_UINT4, 0, 11},
    {36, "UINT2", TS_DTYPE_UINT2, 0, 10},
    {37, "UINT1", TS_DTYPE_UNKNOWN, 1, 9},
    {38, "UINT6", TS_DTYPE_UNKNOWN, 6, 13},
    {39, "UINT3", TS_DTYPE_UNKNOWN, 3, 12},
    {40, "FLOAT8E4M3FN", TS_DTYPE_FLOAT8_E4M3FN, 0, 16},
    {41, "FLOAT8E5M2", TS_DTYPE_FLOAT8_E5M2, 0, 17},
};

static const mil_type *find_mil_type(uint64_t code)
{
    for (size_t i = 0; i < sizeof mil_types / sizeof *mil_types; i++)
        if (mil_types[i].code == code)
            return &mil_types[i];
    return NULL;
}

static const char *blob_type_name(uint32_t code)
{
    for (size_t i = 0; i < sizeof mil_types / sizeof *mil_types; i++)
        if (mil_types[i].blob == code)
            return mil_types[i].name;
    return NULL;
}

/* A TensorType (dataType 1, rank 2, dimensions 3 of Dimension {constant 1
 * {size 1}, unknown 2}). *dyn: a dimension not known. */
typedef struct mil_tensor_type {
    int has;
    uint64_t dtype;
    int ndim, dyn;
    int64_t dims[TS_MAX_NDIM];
} mil_tensor_type;

static ts_status read_value_type(cm *r, const ts__pb_msg *m, const ts__pb_field *f,
                                 mil_tensor_type *t)
{
    ts__pb_msg vt, tt, dm, cs;
    ts__pb_field a, b, c, e;
    int k, kk, kc, ke;
    ts_status st = ts__pb_sub(m, f, &vt, r->err);
    memset(t, 0, sizeof *t);
    while (!st && (k = ts__pb_next(&vt, &a, r->err)) > 0) {
        if (a.number != 1 || a.wire != TS__PB_LEN)
            continue; /* list, tuple, dictionary, state types: no tensor */
        t->has = 1;
        if ((st = ts__pb_sub(&vt, &a, &tt, r->err)))
            break;
        while (!st && (kk = ts__pb_next(&tt, &b, r->err)) > 0) {
            if (b.number == 1) {
                st = ts__pb_want(&b, TS__PB_VARINT, "dataType", r->err);
                t->dtype = b.value;
            } else if (b.number == 3) {
                if (t->ndim == TS_MAX_NDIM) {
                    st = ts__fail(r->err, TS_ERR_NDIM, 0, (int64_t)b.key_pos,
                                  "tensor type at byte %zu has more than %d dimensions",
                                  b.key_pos, TS_MAX_NDIM);
                    break;
                }
                int64_t size = -1;
                if ((st = ts__pb_sub(&tt, &b, &dm, r->err)))
                    break;
                while (!st && (kc = ts__pb_next(&dm, &c, r->err)) > 0) {
                    if (c.number != 1 || c.wire != TS__PB_LEN)
                        continue;
                    if ((st = ts__pb_sub(&dm, &c, &cs, r->err)))
                        break;
                    size = 0;
                    while (!st && (ke = ts__pb_next(&cs, &e, r->err)) > 0)
                        if (e.number == 1) {
                            st = ts__pb_want(&e, TS__PB_VARINT, "dimension size", r->err);
                            size = u(e.value);
                        }
                    if (!st && ke < 0)
                        st = cs.status;
                }
                if (!st && kc < 0)
                    st = dm.status;
                if (size < 0)
                    t->dyn = 1;
                t->dims[t->ndim++] = size;
            }
        }
        if (!st && kk < 0)
            st = tt.status;
    }
    if (!st && k < 0)
        st = vt.status;
    return st;
}

/* The weight file `fname` (fileName of a blobFileValue) located once. */
static ts_status find_blob_file(cm *r, const char *fname, size_t n, size_t at, blob_file **out)
{
    static const char mp[] = "@model_path/";
    for (int i = 0; i < r->nblobs; i++)
        if (strlen(r->blobs[i].name) + sizeof mp - 1 == n &&
            memcmp(fname + sizeof mp - 1, r->blobs[i].name, n - (sizeof mp - 1)) == 0) {
            *out = &r->blobs[i];
            return TS_OK;
        }
    char nb[NAME_BUF];
    if (n < sizeof mp || memcmp(fname, mp, sizeof mp - 1) != 0)
        return ts__fail(r->err, TS_ERR_UNSUPPORTED, 0, (int64_t)at,
                        "blob file '%s' at byte %zu is not under @model_path/ (the folder of "
                        "the model)", ts__printable(fname, n, nb, sizeof nb), at);
    if (r->nblobs == MAX_BLOB_FILES)
        return ts__fail(r->err, TS_ERR_LIMIT, 0, (int64_t)at,
                        "more than %d weight files", MAX_BLOB_FILES);
    blob_file *b = &r->blobs[r->nblobs];
    memset(b, 0, sizeof *b);
    const char *rel = fname + sizeof mp - 1;
    size_t rn = n - (sizeof mp - 1);
    ts_status st = ts__side_check_name(rel, rn, "weights", "a blobFileValue", at, r->err);
    if (st)
        return st;
    if (!(b->name = ts__file_strndup(r->f, rel, rn, r->err)))
        return TS_ERR_NOMEM;
    r->nblobs++;
    *out = b;
    if (!r->opts->path) {
        b->state = 3;
        return TS_OK;
    }
    char *resolved = NULL;
    int missing = 0;
    ts_error e2;
    st = ts__side_locate(r->opts, b->name, "weights", "a blobFileValue", at, &resolved,
                         &b->size, &missing, &e2);
    if (st && missing) {
        b->state = 2;
        return TS_OK;
    }
    if (st) {
        *r->err = e2;
        return st;
    }
    st = ts__side_add(r->f, resolved, r->opts, &b->side, r->err);
    free(resolved);
    if (st)
        return st;
    b->state = 1;
    /* storage_header: count, version 2 */
    ts__source *bs;
    uint64_t isize;
    const unsigned char *h;
    if (b->size < 64)
        return ts__fail(r->err, TS_ERR_TRUNCATED, 0, (int64_t)at,
                        "weight file '%s' has %lld bytes, fewer than its 64-byte header",
                        b->name, (long long)b->size);
    if ((st = ts__side_source(r->f, b->side, &bs, r->err)) ||
        (st = ts__source_need(bs, 0, 64, r->err)))
        return st;
    h = ts__source_image(bs, &isize);
    if (isize != (uint64_t)b->size)
        return ts__fail(r->err, TS_ERR_IO, 0, -1, "weight file %s changed size while read (%lld "
                        "bytes, now %llu)", b->name, (long long)b->size,
                        (unsigned long long)isize);
    uint32_t version = ts__le32(h + 4);
    b->count = ts__le32(h);
    if (version != 2)
        return ts__fail(r->err, TS_ERR_UNSUPPORTED, 0, (int64_t)at,
                        "weight file '%s' has storage version %u; tshape reads version 2 "
                        "(MILBlob)", b->name, version);
    return TS_OK;
}

/* A Value (field f of m, at byte `at`) as array `name`; `out_type` is the
 * type of the operation's output (when the value has none). */
static ts_status add_value(cm *r, const ts__pb_msg *m, const ts__pb_field *f, const char *name,
                           const mil_tensor_type *out_type)
{
    ts_error *err = r->err;
    ts__pb_msg v;
    ts__pb_field fl;
    int k;
    ts_status st = ts__pb_sub(m, f, &v, err);
    mil_tensor_type t = {0};
    int has_imm = 0, has_blob = 0;
    ts__pb_field imm = {0}, blob = {0};
    while (!st && (k = ts__pb_next(&v, &fl, err)) > 0) {
        if (fl.number == 2 && fl.wire == TS__PB_LEN)
            st = read_value_type(r, &v, &fl, &t);
        else if (fl.number == 3 && fl.wire == TS__PB_LEN)
            imm = fl, has_imm = 1;
        else if (fl.number == 5 && fl.wire == TS__PB_LEN)
            blob = fl, has_blob = 1;
    }
    if (!st && k < 0)
        st = v.status;
    if (st)
        goto fail;
    if (!t.has && out_type)
        t = *out_type;
    if (!t.has || (!has_imm && !has_blob))
        return TS_OK; /* a list, tuple or dictionary value, or none */
    const mil_type *mt = find_mil_type(t.dtype);
    if (!mt) {
        st = ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)f->key_pos,
                      "value at byte %zu has dataType %llu, which MIL.proto does not define",
                      f->key_pos, (unsigned long long)t.dtype);
        goto fail;
    }
    if (t.dyn) {
        st = ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)f->key_pos,
                      "value at byte %zu: a constant's type has a dimension of unknown size",
                      f->key_pos);
        goto fail;
    }
    ts_array *a = ts__file_add_array(r->f, err);
    if (!a)
        return ts__file_add_failure(r->f);
    a->name = name;
    a->format_dtype = mt->name;
    if (mt->dtype != TS_DTYPE_UNKNOWN) {
        ts__array_set_dtype(a, mt->dtype);
        a->byteorder = a->itemsize > 1 ? '<' : '|';
    } else {
        a->dtype_name = uint_bits_name[mt->bits];
        a->bits = mt->bits;
    }
    if ((st = ts_shape_assign(&a->shape, t.dims, t.ndim, err)))
        goto fail;
    if (mt->dtype == TS_DTYPE_OBJECT) {
        if ((st = ts_shape_size(&a->shape, &a->size, err)))
            goto fail;
        a->nbytes = -1;
    } else if ((st = ts__array_compute_sizes(a, err))) {
        goto fail;
    }
    char sb[TS__SHAPE_STR_MAX];
    ts__shape_str(&a->shape, sb, sizeof sb);
    if (has_blob) {
        ts__pb_msg bm;
        const char *fname = NULL;
        size_t fn = 0;
        uint64_t off = 0; /* proto3: offset 0 is written as no field */
        if ((st = ts__pb_sub(&v, &blob, &bm, err)))
            goto fail;
        while (!st && (k = ts__pb_next(&bm, &fl, err)) > 0) {
            if (fl.number == 1)
                st = get_str(r, &bm, &fl, "blob fileName", &fname, &fn);
            else if (fl.number == 2)
                st = ts__pb_want(&fl, TS__PB_VARINT, "blob offset", err), off = fl.value;
        }
        if (!st && k < 0)
            st = bm.status;
        if (!st && !fname)
            st = ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)blob.key_pos,
                          "blobFileValue at byte %zu has no fileName", blob.key_pos);
        blob_file *b = NULL;
        if (!st)
            st = find_blob_file(r, fname, fn, blob.key_pos, &b);
        if (st)
            goto fail;
        if (mt->dtype == TS_DTYPE_OBJECT || !mt->blob) {
            st = ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)blob.key_pos,
                          "blobFileValue at byte %zu: %s values cannot be in a weight file",
                          blob.key_pos, mt->name);
            goto fail;
        }
        a->storage_key = b->name;
        if (b->state == 3) {
            a->note = ts__file_printf(r->f, err, "const, %s blob at metadata offset %llu of %s "
                                      "(not read: the model was read from memory)", mt->name,
                                      (unsigned long long)off, b->name);
            return a->note ? TS_OK : TS_ERR_NOMEM;
        }
        if (b->state == 2) {
            a->note = ts__file_printf(r->f, err, "const, %s blob at metadata offset %llu of %s, "
                                      "which is not beside the model (a .mlmodel taken out of "
                                      "its .mlpackage?)", mt->name, (unsigned long long)off,
                                      b->name);
            return a->note ? TS_OK : TS_ERR_NOMEM;
        }
        /* its blob_metadata is read once every value is known, with the
         * other blobs' in one request (resolve_blobs) */
        if (r->npending == r->cappending) {
            size_t cap = r->cappending ? 2 * r->cappending : 64;
            pending_blob *p = ts__scratch_realloc(r->f, r->pending, cap * sizeof *p, err);
            if (!p)
                return TS_ERR_NOMEM;
            r->pending = p;
            r->cappending = cap;
        }
        r->pending[r->npending++] = (pending_blob){ts_file_count(r->f) - 1, b, off,
                                                   blob.key_pos, mt};
        return TS_OK;
    }
    /* ImmediateValue: tensor 1 (TensorValue: floats 1, ints 2, bools 3,
     * strings 4, longInts 5, doubles 6, bytes 7, each a message whose
     * values are field 1) */
    ts__pb_msg im, tv, rep;
    ts__pb_field tf = {0};
    int has_tensor = 0;
    if ((st = ts__pb_sub(&v, &imm, &im, err)))
        goto fail;
    while (!st && (k = ts__pb_next(&im, &fl, err)) > 0)
        if (fl.number == 1 && fl.wire == TS__PB_LEN)
            tf = fl, has_tensor = 1;
    if (!st && k < 0)
        st = im.status;
    if (st)
        goto fail;
    if (!has_tensor) {
        a->note = "const, an immediate value that is not a tensor (tuple, list or dictionary)";
        return TS_OK;
    }
    if ((st = ts__pb_sub(&im, &tf, &tv, err)))
        goto fail;
    ts__pb_field kind = {0};
    int nk = 0;
    while (!st && (k = ts__pb_next(&tv, &fl, err)) > 0)
        if (fl.number >= 1 && fl.number <= 7 && fl.wire == TS__PB_LEN)
            kind = fl, nk++;
    if (!st && k < 0)
        st = tv.status;
    if (st)
        goto fail;
    static const char *const kinds[8] = {NULL, "floats", "ints", "bools", "strings",
                                         "longInts", "doubles", "bytes"};
    if (nk == 0) {
        if (a->size != 0 && mt->dtype != TS_DTYPE_OBJECT) {
            st = ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)tf.key_pos,
                          "tensor value at byte %zu has no values, shape %s needs %lld",
                          tf.key_pos, sb, (long long)a->size);
            goto fail;
        }
        a->note = "const, immediate value without values";
        return TS_OK;
    }
    if (nk > 1) {
        st = ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)tf.key_pos,
                      "tensor value at byte %zu holds more than one kind of values", tf.key_pos);
        goto fail;
    }
    if ((st = ts__pb_sub(&tv, &kind, &rep, err)))
        goto fail;
    size_t rstart = rep.pos, rend = rep.end;
    const char *kn = kinds[kind.number];
    if (kind.number == 4) { /* strings: objects, not read */
        a->note = "const, immediate strings (values not read)";
        if (mt->dtype != TS_DTYPE_OBJECT) {
            st = ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)kind.key_pos,
                          "tensor value at byte %zu: %s values are stored as strings",
                          kind.key_pos, mt->name);
            goto fail;
        }
        return TS_OK;
    }
    if (mt->dtype == TS_DTYPE_OBJECT) {
        st = ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)kind.key_pos,
                      "tensor value at byte %zu: STRING values are stored as %s", kind.key_pos,
                      kn);
        goto fail;
    }
    if (kind.number == 7 || kind.number == 1 || kind.number == 6) {
        /* bytes: the values as stored; floats, doubles: packed fixed */
        fixed_list l = {0};
        int64_t have;
        while (!st && (k = ts__pb_next(&rep, &fl, err)) > 0) {
            if (fl.number != 1)
                continue;
            if (kind.number == 7) {
                if (!(st = want_bytes(r, &fl, "bytes values")))
                    l.fields++, l.pos = fl.pos, l.len = fl.len;
            } else {
                st = add_fixed(r, &l, &fl, kind.number == 1 ? 4 : 8, kn);
            }
        }
        if (!st && k < 0)
            st = rep.status;
        if (st)
            goto fail;
        int want_dt = kind.number == 1 ? TS_DTYPE_FLOAT32 : TS_DTYPE_FLOAT64;
        if (kind.number != 7 && mt->dtype != want_dt) {
            st = ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)kind.key_pos,
                          "tensor value at byte %zu: %s values are stored as %s",
                          kind.key_pos, mt->name, kn);
            goto fail;
        }
        have = kind.number == 7 ? (int64_t)l.len : l.count * (kind.number == 1 ? 4 : 8);
        if (have != a->nbytes || (kind.number == 7 && l.fields > 1)) {
            st = ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)kind.key_pos,
                          "tensor value at byte %zu: %s hold %lld bytes, shape %s of %s needs "
                          "%lld", kind.key_pos, kn, (long long)have, sb, mt->name,
                          (long long)a->nbytes);
            goto fail;
        }
        if (kind.number == 7 || (l.fields == 1 && !l.unpacked)) {
            a->data_offset = a->nbytes ? (int64_t)l.pos : -1;
        } else {
            ts__data_src ds;
            memset(&ds, 0, sizeof ds);
            ds.kind = TS__SRC_PROTO;
            ds.comp_offset = (int64_t)rstart;
            ds.comp_size = (int64_t)(rend - rstart);
            ds.size = a->nbytes;
            ds.pb_field = 1;
            ds.pb_fixed = ds.pb_out = kind.number == 1 ? 4 : 8;
            ds.pb_what = kn;
            if ((st = ts__file_set_data_src(r->f, a, &ds, err)))
                return st;
        }
    } else {
        /* ints 2, bools 3, longInts 5: varints */
        int64_t count = 0;
        while (!st && (k = ts__pb_next(&rep, &fl, err)) > 0) {
            if (fl.number != 1)
                continue;
            int64_t c = 1;
            if (fl.wire == TS__PB_LEN) {
                if (fl.truncated)
                    st = want_bytes(r, &fl, kn);
                else
                    st = ts__pb_count_varints(&rep, &fl, &c, err);
            } else {
                st = ts__pb_want(&fl, TS__PB_VARINT, kn, err);
            }
            count += c;
        }
        if (!st && k < 0)
            st = rep.status;
        if (st)
            goto fail;
        if (count != a->size || a->itemsize < 1 ||
            (kind.number == 3) != (mt->dtype == TS_DTYPE_BOOL)) {
            st = ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)kind.key_pos,
                          "tensor value at byte %zu: %lld %s for shape %s of %s",
                          kind.key_pos, (long long)count, kn, sb, mt->name);
            goto fail;
        }
        if (a->size > 0) {
            ts__data_src ds;
            memset(&ds, 0, sizeof ds);
            ds.kind = TS__SRC_PROTO;
            ds.comp_offset = (int64_t)rstart;
            ds.comp_size = (int64_t)(rend - rstart);
            ds.size = a->nbytes;
            ds.pb_field = 1;
            ds.pb_out = (int)a->itemsize;
            ds.pb_bool = kind.number == 3;
            ds.pb_what = kn;
            if ((st = ts__file_set_data_src(r->f, a, &ds, err)))
                return st;
        }
    }
    a->note = ts__file_printf(r->f, err, "const, immediate %s", kn);
    return a->note ? TS_OK : TS_ERR_NOMEM;
fail:
    {
        char nb[NAME_BUF];
        ts__error_prefix(err, "value '%s'", ts__printable_str(name, nb, sizeof nb));
    }
    return st;
}

/* The string of a Value holding a scalar string tensor (an operation's
 * name attribute), or NULL. */
static ts_status value_string(cm *r, const ts__pb_msg *m, const ts__pb_field *f, const char **s,
                              size_t *n)
{
    /* Value.immediateValue 3 -> tensor 1 -> strings 4 -> values 1 */
    static const uint32_t path[4] = {3, 1, 4, 1};
    ts__pb_msg cur;
    ts_status st = ts__pb_sub(m, f, &cur, r->err);
    *s = NULL;
    for (int i = 0; !st && i < 4; i++) {
        ts__pb_field fl;
        int k, found = 0;
        ts__pb_msg w = cur;
        while (!found && (k = ts__pb_next(&w, &fl, r->err)) > 0)
            if (fl.number == path[i] && fl.wire == TS__PB_LEN)
                found = 1;
        if (!found)
            return k < 0 ? w.status : TS_OK;
        if (i == 3)
            return get_str(r, &w, &fl, "operation name", s, n);
        st = ts__pb_sub(&w, &fl, &cur, r->err);
    }
    return st;
}

/* A map entry (key 1 string, value 2): the key and the value's field. */
static ts_status map_entry(cm *r, const ts__pb_msg *m, const ts__pb_field *f, const char **key,
                           size_t *kn, ts__pb_msg *entry, ts__pb_field *value, int *has_value)
{
    ts__pb_field fl;
    int k;
    ts_status st = ts__pb_sub(m, f, entry, r->err);
    ts__pb_msg w = *entry;
    *key = "", *kn = 0, *has_value = 0;
    while (!st && (k = ts__pb_next(&w, &fl, r->err)) > 0) {
        if (fl.number == 1)
            st = get_str(r, &w, &fl, "map key", key, kn);
        else if (fl.number == 2 && fl.wire == TS__PB_LEN)
            *value = fl, *has_value = 1;
    }
    if (!st && k < 0)
        st = w.status;
    return st;
}

static ts_status read_block(cm *r, const ts__pb_msg *m, const char *prefix);

/* One Operation: type 1, inputs 2 (map to Argument), outputs 3, blocks 4,
 * attributes 5 (map to Value). */
static ts_status read_op(cm *r, const ts__pb_msg *parent, const ts__pb_field *pf,
                         const char *prefix, int64_t index)
{
    ts__pb_msg m, w, e, sub;
    ts__pb_field fl, val;
    int k, hv;
    ts_status st = ts__pb_sub(parent, pf, &m, r->err);
    const char *type = "", *oname = NULL, *aname = NULL, *key;
    size_t tn = 0, on = 0, an = 0, kn;
    mil_tensor_type otype = {0};
    w = m;
    /* first pass: type, the name attribute, the first output's name/type */
    int outputs = 0;
    while (!st && (k = ts__pb_next(&w, &fl, r->err)) > 0) {
        if (fl.number == 1) {
            st = get_str(r, &w, &fl, "operation type", &type, &tn);
        } else if (fl.number == 3 && fl.wire == TS__PB_LEN && outputs++ == 0) {
            ts__pb_msg nv;
            ts__pb_field g;
            int kk;
            if ((st = ts__pb_sub(&w, &fl, &nv, r->err)))
                break;
            while (!st && (kk = ts__pb_next(&nv, &g, r->err)) > 0) {
                if (g.number == 1)
                    st = get_str(r, &nv, &g, "output name", &oname, &on);
                else if (g.number == 2 && g.wire == TS__PB_LEN)
                    st = read_value_type(r, &nv, &g, &otype);
            }
            if (!st && kk < 0)
                st = nv.status;
        } else if (fl.number == 5 && fl.wire == TS__PB_LEN) {
            if (!(st = map_entry(r, &w, &fl, &key, &kn, &e, &val, &hv)) && hv && kn == 4 &&
                memcmp(key, "name", 4) == 0)
                st = value_string(r, &e, &val, &aname, &an);
        }
    }
    if (!st && k < 0)
        st = w.status;
    if (st)
        goto fail;
    int is_const = tn == 5 && memcmp(type, "const", 5) == 0;
    const char *opname = aname ? aname : oname;
    size_t opn = aname ? an : on;
    char ib[32];
    if (!opname) {
        snprintf(ib, sizeof ib, "op%lld", (long long)index);
        opname = ib, opn = strlen(ib);
    }
    /* second pass: values and nested blocks */
    w = m;
    while (!st && (k = ts__pb_next(&w, &fl, r->err)) > 0) {
        if (fl.wire != TS__PB_LEN)
            continue;
        if (fl.number == 5) {
            if ((st = map_entry(r, &w, &fl, &key, &kn, &e, &val, &hv)) || !hv)
                continue;
            if (kn == 4 && memcmp(key, "name", 4) == 0)
                continue;
            const char *nm;
            if (is_const && kn == 3 && memcmp(key, "val", 3) == 0)
                nm = oname ? ts__file_printf(r->f, r->err, "%s%.*s", prefix, (int)on, oname)
                           : ts__file_printf(r->f, r->err, "%s%.*s", prefix, (int)opn, opname);
            else
                nm = ts__file_printf(r->f, r->err, "%s%.*s.%.*s", prefix, (int)opn, opname,
                                     (int)kn, key);
            if (!nm)
                return TS_ERR_NOMEM;
            st = add_value(r, &e, &val, nm, is_const ? &otype : NULL);
        } else if (fl.number == 2) {
            /* inputs: Argument {arguments 1: Binding {name 1, value 2}} */
            ts__pb_msg arg, bind;
            ts__pb_field g, h;
            int kk, kb;
            int64_t bi = 0;
            if ((st = map_entry(r, &w, &fl, &key, &kn, &e, &val, &hv)) || !hv)
                continue;
            if ((st = ts__pb_sub(&e, &val, &arg, r->err)))
                break;
            while (!st && (kk = ts__pb_next(&arg, &g, r->err)) > 0) {
                if (g.number != 1 || g.wire != TS__PB_LEN)
                    continue;
                if ((st = ts__pb_sub(&arg, &g, &bind, r->err)))
                    break;
                while (!st && (kb = ts__pb_next(&bind, &h, r->err)) > 0) {
                    if (h.number != 2 || h.wire != TS__PB_LEN)
                        continue;
                    const char *nm = bi == 0
                        ? ts__file_printf(r->f, r->err, "%s%.*s.%.*s", prefix, (int)opn, opname,
                                          (int)kn, key)
                        : ts__file_printf(r->f, r->err, "%s%.*s.%.*s.%lld", prefix, (int)opn,
                                          opname, (int)kn, key, (long long)bi);
                    if (!nm)
                        return TS_ERR_NOMEM;
                    st = add_value(r, &bind, &h, nm, NULL);
                }
                if (!st && kb < 0)
                    st = bind.status;
                bi++;
            }
            if (!st && kk < 0)
                st = arg.status;
        } else if (fl.number == 4) {
            if (!(st = ts__pb_sub(&w, &fl, &sub, r->err)))
                st = read_block(r, &sub, prefix);
        }
    }
    if (!st && k < 0)
        st = w.status;
fail:
    if (st) {
        char nb[NAME_BUF];
        if (oname || aname)
            ts__error_prefix(r->err, "operation '%s'",
                             ts__printable(aname ? aname : oname, aname ? an : on, nb,
                                           sizeof nb));
        else
            ts__error_prefix(r->err, "operation %lld", (long long)index);
    }
    return st;
}

/* A Block: operations 3 (inputs 1, outputs 2 and attributes 4 hold no
 * constants). */
static ts_status read_block(cm *r, const ts__pb_msg *m, const char *prefix)
{
    ts__pb_msg w = *m;
    ts__pb_field fl;
    int k;
    int64_t oi = 0;
    ts_status st = TS_OK;
    while (!st && (k = ts__pb_next(&w, &fl, r->err)) > 0)
        if (fl.number == 3 && fl.wire == TS__PB_LEN)
            st = read_op(r, &w, &fl, prefix, oi++);
    return st ? st : k < 0 ? w.status : TS_OK;
}

/* A Program: functions 2 (map to Function: opset 2, block_specializations
 * 3, a map from opset to Block). Arrays of a program of several functions
 * are prefixed with the function's name and '/'. */
static ts_status read_program(cm *r, const ts__pb_msg *m, const char *prefix)
{
    ts__pb_msg w = *m, e, fn, bm, be;
    ts__pb_field fl, val, g, bv;
    int k, kk, hv, hb, nfun = 0;
    ts_status st = TS_OK;
    while ((k = ts__pb_next(&w, &fl, r->err)) > 0)
        nfun += fl.number == 2;
    if (k < 0)
        return w.status;
    w = *m;
    while (!st && (k = ts__pb_next(&w, &fl, r->err)) > 0) {
        const char *key, *bkey, *opset = NULL;
        size_t kn, bkn, osn = 0;
        if (fl.number != 2 || fl.wire != TS__PB_LEN)
            continue;
        if ((st = map_entry(r, &w, &fl, &key, &kn, &e, &val, &hv)) || !hv)
            continue;
        const char *pre = nfun > 1 ? ts__file_printf(r->f, r->err, "%s%.*s/", prefix, (int)kn,
                                                     key)
                                   : prefix;
        if (!pre)
            return TS_ERR_NOMEM;
        if ((st = ts__pb_sub(&e, &val, &fn, r->err)))
            break;
        ts__pb_msg fw = fn;
        while (!st && (kk = ts__pb_next(&fw, &g, r->err)) > 0) {
            if (g.number == 2) {
                st = get_str(r, &fw, &g, "opset", &opset, &osn);
            } else if (g.number == 3 && g.wire == TS__PB_LEN) {
                if ((st = map_entry(r, &fw, &g, &bkey, &bkn, &be, &bv, &hb)) || !hb)
                    continue;
                if (!(st = ts__pb_sub(&be, &bv, &bm, r->err)))
                    st = read_block(r, &bm, pre);
            }
        }
        if (!st && kk < 0)
            st = fw.status;
        if (!st && r->functions) {
            json_t *o = json_pack("{s:o,s:o?}", "name", jstr(key, kn), "opset",
                                  opset ? jstr(opset, osn) : NULL);
            if (!o || json_array_append_new(r->functions, o) != 0)
                st = ts__error(r->err, TS_ERR_NOMEM, "out of memory");
        }
        if (st) {
            char nb[NAME_BUF];
            ts__error_prefix(r->err, "function '%s'", ts__printable(key, kn, nb, sizeof nb));
        }
    }
    return st ? st : k < 0 ? w.status : TS_OK;
}

/* The blob_metadata of every pending blob (sentinel, mil_dtype,
 * sizeInBytes, offset, padding_size_in_bits), asked for from each weight
 * file in one call (one request for a model at a URL), checked against the
 * file's size and the value's dtype and shape: the array's data is at its
 * offset in the weight file. */
static ts_status resolve_blobs(cm *r)
{
    ts_error *err = r->err;
    ts_status st = TS_OK;
    for (int fi = 0; !st && fi < r->nblobs; fi++) {
        blob_file *b = &r->blobs[fi];
        size_t n = 0;
        for (size_t i = 0; i < r->npending; i++)
            n += r->pending[i].file == b;
        if (n == 0)
            continue;
        ts__range *rg = ts__scratch_alloc(r->f, n * sizeof *rg, err);
        ts__source *bs;
        if (!rg)
            return TS_ERR_NOMEM;
        n = 0;
        for (size_t i = 0; i < r->npending; i++) {
            const pending_blob *pb = &r->pending[i];
            if (pb->file != b)
                continue;
            if (pb->off > (uint64_t)INT64_MAX || (int64_t)pb->off > b->size - 64) {
                const ts_array *a = ts__file_array_mut(r->f, pb->index);
                return ts__fail(err, TS_ERR_TRUNCATED, 0, (int64_t)pb->at,
                                "value '%s': blob metadata offset %llu + 64 bytes is past the "
                                "end of %s (%lld bytes)", a->name, (unsigned long long)pb->off,
                                b->name, (long long)b->size);
            }
            rg[n++] = (ts__range){pb->off, 64, NULL};
        }
        uint64_t isize;
        const unsigned char *img;
        if ((st = ts__side_source(r->f, b->side, &bs, err)) ||
            (st = ts__source_need_ranges(bs, rg, n, err)))
            return st;
        ts__scratch_free(r->f, rg);
        img = ts__source_image(bs, &isize);
        if (isize != (uint64_t)b->size)
            return ts__fail(err, TS_ERR_IO, 0, -1, "weight file %s changed size while read "
                            "(%lld bytes, now %llu)", b->name, (long long)b->size,
                            (unsigned long long)isize);
        for (size_t i = 0; !st && i < r->npending; i++) {
            const pending_blob *pb = &r->pending[i];
            if (pb->file != b)
                continue;
            ts_array *a = ts__file_array_mut(r->f, pb->index);
            const mil_type *mt = pb->type;
            const unsigned char *h = img + pb->off;
            uint32_t sentinel = ts__le32(h), bdt = ts__le32(h + 4);
            uint64_t size = ts__le64(h + 8), doff = ts__le64(h + 16), pad = ts__le64(h + 24);
            unsigned long long off = (unsigned long long)pb->off;
            char sb[TS__SHAPE_STR_MAX];
            if (sentinel != MILBLOB_SENTINEL)
                return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)pb->at,
                                "value '%s': blob metadata at offset %llu of %s has sentinel "
                                "0x%08x, not 0xDEADBEEF", a->name, off, b->name, sentinel);
            if (bdt != mt->blob) {
                const char *bn = blob_type_name(bdt);
                return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)pb->at,
                                "value '%s': blob at offset %llu of %s holds %s (mil_dtype %u), "
                                "the value's type is %s", a->name, off, b->name,
                                bn ? bn : "an unknown type", bdt, mt->name);
            }
            if (doff > (uint64_t)INT64_MAX || size > (uint64_t)INT64_MAX ||
                (int64_t)size > b->size || (int64_t)doff > b->size - (int64_t)size)
                return ts__fail(err, TS_ERR_TRUNCATED, 0, (int64_t)pb->at,
                                "value '%s': blob at offset %llu of %s: data offset %llu + size "
                                "%llu is past its end (%lld bytes)", a->name, off, b->name,
                                (unsigned long long)doff, (unsigned long long)size,
                                (long long)b->size);
            if ((int64_t)size != a->nbytes || pad >= 8 ||
                (a->bits && (int64_t)size * 8 - (int64_t)pad != a->size * a->bits))
                return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)pb->at,
                                "value '%s': blob at offset %llu of %s has %llu bytes (padding "
                                "%llu bits), shape %s of %s needs %lld", a->name, off, b->name,
                                (unsigned long long)size, (unsigned long long)pad,
                                ts__shape_str(&a->shape, sb, sizeof sb), mt->name,
                                (long long)a->nbytes);
            a->data_offset = (int64_t)doff;
            ts__data_src ds;
            memset(&ds, 0, sizeof ds);
            ds.side = b->side;
            if ((st = ts__file_set_data_src(r->f, a, &ds, err)))
                return st;
            a->note = ts__file_printf(r->f, err, "const, blob in %s (metadata at offset %llu)%s",
                                      b->name, off,
                                      mt->dtype == TS_DTYPE_UNKNOWN ? "; no tshape dtype, values "
                                      "not read" : "");
            if (!a->note)
                return TS_ERR_NOMEM;
        }
    }
    return st;
}

/* ---- the model description (--metadata) ------------------------------------ */

/* The varints of repeated int64 field `number` of m as a JSON array. */
static ts_status json_dims(cm *r, const ts__pb_msg *m, uint32_t number, json_t **out)
{
    int64_t d[TS_MAX_NDIM];
    int nd = 0;
    ts__pb_msg w = *m;
    ts__pb_field fl;
    int k;
    ts_status st = TS_OK;
    while (!st && (k = ts__pb_next(&w, &fl, r->err)) > 0)
        if (fl.number == number)
            st = ts__pb_dims(&w, &fl, d, &nd, "shape", r->err);
    if (!st && k < 0)
        st = w.status;
    if (st)
        return st;
    json_t *a = json_array();
    for (int i = 0; a && i < nd; i++)
        if (json_array_append_new(a, json_integer(d[i])) != 0) {
            json_decref(a);
            a = NULL;
        }
    *out = a;
    return a ? TS_OK : ts__error(r->err, TS_ERR_NOMEM, "out of memory");
}

/* SizeRange {lowerBound 1, upperBound 2 (negative: none)} as [lo, hi|null]. */
static ts_status json_range(cm *r, const ts__pb_msg *m, const ts__pb_field *f, json_t **out)
{
    ts__pb_msg s;
    ts__pb_field fl;
    int k;
    uint64_t lo = 0;
    int64_t hi = 0;
    ts_status st = ts__pb_sub(m, f, &s, r->err);
    while (!st && (k = ts__pb_next(&s, &fl, r->err)) > 0) {
        if (fl.number == 1 && fl.wire == TS__PB_VARINT)
            lo = fl.value;
        else if (fl.number == 2 && fl.wire == TS__PB_VARINT)
            hi = (int64_t)fl.value;
    }
    if (!st && k < 0)
        st = s.status;
    if (st)
        return st;
    *out = json_pack("[I,o]", (json_int_t)u(lo), hi < 0 ? json_null() : json_integer(hi));
    return *out ? TS_OK : ts__error(r->err, TS_ERR_NOMEM, "out of memory");
}

/* ArrayFeatureType (shape 1, dataType 2, enumeratedShapes 21 {shapes 1
 * {shape 1}}, shapeRange 31 {sizeRanges 1}) into o. */
static ts_status array_type(cm *r, const ts__pb_msg *m, json_t *o)
{
    ts__pb_msg w = *m, s, t;
    ts__pb_field fl, g;
    int k, kk;
    json_t *v = NULL;
    ts_status st = json_dims(r, m, 1, &v);
    if (!st && json_object_set_new(o, "shape", v) != 0)
        st = ts__error(r->err, TS_ERR_NOMEM, "out of memory");
    while (!st && (k = ts__pb_next(&w, &fl, r->err)) > 0) {
        if (fl.number == 2 && fl.wire == TS__PB_VARINT) {
            const char *dt = fl.value == 65568    ? "float32"
                             : fl.value == 65600  ? "float64"
                             : fl.value == 65552  ? "float16"
                             : fl.value == 131104 ? "int32"
                             : fl.value == 131080 ? "int8"
                                                  : NULL;
            v = dt ? json_string(dt) : json_integer((json_int_t)fl.value);
            if (!v || json_object_set_new(o, "dtype", v) != 0)
                st = ts__error(r->err, TS_ERR_NOMEM, "out of memory");
        } else if ((fl.number == 21 || fl.number == 31) && fl.wire == TS__PB_LEN) {
            json_t *list = json_array();
            if (!list || json_object_set_new(o, fl.number == 21 ? "enumerated_shapes"
                                                                 : "shape_range", list) != 0) {
                st = ts__error(r->err, TS_ERR_NOMEM, "out of memory");
                break;
            }
            if ((st = ts__pb_sub(&w, &fl, &s, r->err)))
                break;
            while (!st && (kk = ts__pb_next(&s, &g, r->err)) > 0) {
                if (g.number != 1 || g.wire != TS__PB_LEN)
                    continue;
                v = NULL;
                if (fl.number == 21) {
                    if (!(st = ts__pb_sub(&s, &g, &t, r->err)))
                        st = json_dims(r, &t, 1, &v);
                } else {
                    st = json_range(r, &s, &g, &v);
                }
                if (!st && json_array_append_new(list, v) != 0)
                    st = ts__error(r->err, TS_ERR_NOMEM, "out of memory");
            }
            if (!st && kk < 0)
                st = s.status;
        }
    }
    if (!st && k < 0)
        st = w.status;
    return st;
}

/* ImageFeatureType (width 1, height 2, colorSpace 3, enumeratedSizes 21,
 * imageSizeRange 31) into o. */
static ts_status image_type(cm *r, const ts__pb_msg *m, json_t *o)
{
    ts__pb_msg w = *m, s, t;
    ts__pb_field fl, g, h;
    int k, kk, kh;
    ts_status st = TS_OK;
    while (!st && (k = ts__pb_next(&w, &fl, r->err)) > 0) {
        json_t *v = NULL;
        const char *key = NULL;
        if ((fl.number == 1 || fl.number == 2) && fl.wire == TS__PB_VARINT) {
            key = fl.number == 1 ? "width" : "height";
            v = json_integer((json_int_t)fl.value);
        } else if (fl.number == 3 && fl.wire == TS__PB_VARINT) {
            key = "color_space";
            v = fl.value == 10   ? json_string("GRAYSCALE")
                : fl.value == 20 ? json_string("RGB")
                : fl.value == 30 ? json_string("BGR")
                : fl.value == 40 ? json_string("GRAYSCALE_FLOAT16")
                                 : json_integer((json_int_t)fl.value);
        } else if ((fl.number == 21 || fl.number == 31) && fl.wire == TS__PB_LEN) {
            key = fl.number == 21 ? "enumerated_sizes" : "size_range";
            v = fl.number == 21 ? json_array() : json_object();
            if (v && !(st = ts__pb_sub(&w, &fl, &s, r->err))) {
                while (!st && (kk = ts__pb_next(&s, &g, r->err)) > 0) {
                    if (g.wire != TS__PB_LEN)
                        continue;
                    json_t *e = NULL;
                    if (fl.number == 31 && (g.number == 1 || g.number == 2)) {
                        if (!(st = json_range(r, &s, &g, &e)) &&
                            json_object_set_new(v, g.number == 1 ? "width" : "height", e) != 0)
                            st = ts__error(r->err, TS_ERR_NOMEM, "out of memory");
                        continue;
                    }
                    if (fl.number != 21 || g.number != 1)
                        continue;
                    uint64_t wh[3] = {0, 0, 0};
                    if ((st = ts__pb_sub(&s, &g, &t, r->err)))
                        break;
                    while ((kh = ts__pb_next(&t, &h, r->err)) > 0)
                        if ((h.number == 1 || h.number == 2) && h.wire == TS__PB_VARINT)
                            wh[h.number] = h.value;
                    if (kh < 0)
                        st = t.status;
                    else if (!(e = json_pack("[I,I]", (json_int_t)u(wh[1]),
                                             (json_int_t)u(wh[2]))) ||
                             json_array_append_new(v, e) != 0)
                        st = ts__error(r->err, TS_ERR_NOMEM, "out of memory");
                }
                if (!st && kk < 0)
                    st = s.status;
            }
        }
        if (key && !st && (!v || json_object_set_new(o, key, v) != 0))
            st = ts__error(r->err, TS_ERR_NOMEM, "out of memory");
        else if (st || !key)
            json_decref(v);
    }
    if (!st && k < 0)
        st = w.status;
    return st;
}

/* A FeatureDescription (name 1, shortDescription 2, type 3 FeatureType:
 * int64Type 1, doubleType 2, stringType 3, imageType 4, multiArrayType 5,
 * dictionaryType 6, sequenceType 7, stateType 8; isOptional 1000). */
static ts_status feature(cm *r, const ts__pb_msg *m, const ts__pb_field *f, json_t *list)
{
    static const char *const types[9] = {NULL, "int64", "double", "string", "image",
                                         "multiArray", "dictionary", "sequence", "state"};
    ts__pb_msg d, t, s;
    ts__pb_field fl, g, h;
    int k, kk, kh;
    json_t *o = json_object();
    ts_status st = o && json_array_append_new(list, o) == 0
                       ? ts__pb_sub(m, f, &d, r->err)
                       : ts__error(r->err, TS_ERR_NOMEM, "out of memory");
    while (!st && (k = ts__pb_next(&d, &fl, r->err)) > 0) {
        const char *s0;
        size_t n;
        if (fl.number == 1 || fl.number == 2) {
            if (!(st = get_str(r, &d, &fl, "feature name", &s0, &n)) &&
                json_object_set_new(o, fl.number == 1 ? "name" : "description",
                                    jstr(s0, n)) != 0)
                st = ts__error(r->err, TS_ERR_NOMEM, "out of memory");
        } else if (fl.number == 3 && fl.wire == TS__PB_LEN) {
            if ((st = ts__pb_sub(&d, &fl, &t, r->err)))
                break;
            while (!st && (kk = ts__pb_next(&t, &g, r->err)) > 0) {
                if (g.number == 1000 && g.wire == TS__PB_VARINT) {
                    if (json_object_set_new(o, "optional", json_pack("b", g.value != 0)) != 0)
                        st = ts__error(r->err, TS_ERR_NOMEM, "out of memory");
                    continue;
                }
                if (g.number < 1 || g.number > 8 || g.wire != TS__PB_LEN)
                    continue;
                if (json_object_set_new(o, "type", json_string(types[g.number])) != 0) {
                    st = ts__error(r->err, TS_ERR_NOMEM, "out of memory");
                    break;
                }
                if ((st = ts__pb_sub(&t, &g, &s, r->err)))
                    break;
                if (g.number == 5) {
                    st = array_type(r, &s, o);
                } else if (g.number == 4) {
                    st = image_type(r, &s, o);
                } else if (g.number == 8) { /* StateFeatureType: arrayType 1 */
                    ts__pb_msg a;
                    while (!st && (kh = ts__pb_next(&s, &h, r->err)) > 0)
                        if (h.number == 1 && h.wire == TS__PB_LEN &&
                            !(st = ts__pb_sub(&s, &h, &a, r->err)))
                            st = array_type(r, &a, o);
                    if (!st && kh < 0)
                        st = s.status;
                } else if (g.number == 6 || g.number == 7) {
                    /* dictionary: int64KeyType 1, stringKeyType 2; sequence:
                     * int64Type 1, stringType 3 */
                    while (!st && (kh = ts__pb_next(&s, &h, r->err)) > 0) {
                        const char *et = h.number == 1                   ? "int64"
                                         : h.number == 2 && g.number == 6 ? "string"
                                         : h.number == 3 && g.number == 7 ? "string"
                                                                          : NULL;
                        if (et && h.wire == TS__PB_LEN &&
                            json_object_set_new(o, g.number == 6 ? "key" : "element",
                                                json_string(et)) != 0)
                            st = ts__error(r->err, TS_ERR_NOMEM, "out of memory");
                    }
                    if (!st && kh < 0)
                        st = s.status;
                }
            }
            if (!st && kk < 0)
                st = t.status;
        }
    }
    if (!st && k < 0)
        st = d.status;
    return st;
}

/* ModelDescription: input 1, output 10, state 13, predictedFeatureName 11,
 * predictedProbabilitiesName 12, metadata 100 (Metadata: shortDescription
 * 1, versionString 2, author 3, license 4, userDefined 100 map). */
static ts_status description(cm *r, const ts__pb_msg *m, const ts__pb_field *f)
{
    ts__pb_msg d, md, e;
    ts__pb_field fl, g, val;
    int k, kk, hv;
    json_t *io[3] = {json_array(), json_array(), json_array()};
    json_t *user = json_object();
    ts_status st = io[0] && io[1] && io[2] && user ? ts__pb_sub(m, f, &d, r->err)
                                                   : ts__error(r->err, TS_ERR_NOMEM, "out of "
                                                               "memory");
    static const char *const mkeys[5] = {NULL, "short_description", "version", "author",
                                         "license"};
    while (!st && (k = ts__pb_next(&d, &fl, r->err)) > 0) {
        const char *s;
        size_t n;
        if ((fl.number == 1 || fl.number == 10 || fl.number == 13) && fl.wire == TS__PB_LEN) {
            st = feature(r, &d, &fl, io[fl.number == 1 ? 0 : fl.number == 10 ? 1 : 2]);
        } else if (fl.number == 11 || fl.number == 12) {
            if (!(st = get_str(r, &d, &fl, "predicted feature name", &s, &n)))
                st = add_meta(r, fl.number == 11 ? "predicted_feature" : "predicted_probabilities",
                              jstr(s, n));
        } else if (fl.number == 100 && fl.wire == TS__PB_LEN) {
            if ((st = ts__pb_sub(&d, &fl, &md, r->err)))
                break;
            while (!st && (kk = ts__pb_next(&md, &g, r->err)) > 0) {
                if (g.number >= 1 && g.number <= 4) {
                    if (!(st = get_str(r, &md, &g, mkeys[g.number], &s, &n)))
                        st = add_meta(r, mkeys[g.number], jstr(s, n));
                } else if (g.number == 100 && g.wire == TS__PB_LEN) {
                    const char *key;
                    size_t kn;
                    json_t *v = NULL;
                    if ((st = map_entry(r, &md, &g, &key, &kn, &e, &val, &hv)))
                        break;
                    if (hv && (st = get_str(r, &e, &val, "userDefined value", &s, &n)))
                        break;
                    json_t *kj = jstr(key, kn); /* the key as UTF-8 */
                    v = hv ? jstr(s, n) : json_string("");
                    if (!kj || !v ||
                        json_object_set_new(user, json_string_value(kj), json_incref(v)) != 0)
                        st = ts__error(r->err, TS_ERR_NOMEM, "out of memory");
                    json_decref(kj);
                    json_decref(v);
                }
            }
            if (!st && kk < 0)
                st = md.status;
        }
    }
    if (!st && k < 0)
        st = d.status;
    if (!st)
        st = add_meta(r, "inputs", json_incref(io[0]));
    if (!st)
        st = add_meta(r, "outputs", json_incref(io[1]));
    if (!st && json_array_size(io[2]))
        st = add_meta(r, "states", json_incref(io[2]));
    if (!st && json_object_iter(user))
        st = add_meta(r, "user_defined", json_incref(user));
    for (int i = 0; i < 3; i++)
        json_decref(io[i]);
    json_decref(user);
    return st;
}

/* ---- the model ---------------------------------------------------------------- */

static const struct {
    uint32_t field;
    const char *name;
} model_types[] = {
    {200, "pipelineClassifier"}, {201, "pipelineRegressor"}, {202, "pipeline"},
    {300, "glmRegressor"}, {301, "supportVectorRegressor"}, {302, "treeEnsembleRegressor"},
    {303, "neuralNetworkRegressor"}, {304, "bayesianProbitRegressor"},
    {400, "glmClassifier"}, {401, "supportVectorClassifier"},
    {402, "treeEnsembleClassifier"}, {403, "neuralNetworkClassifier"},
    {404, "kNearestNeighborsClassifier"}, {500, "neuralNetwork"},
    {501, "itemSimilarityRecommender"}, {502, "mlProgram"}, {555, "customModel"},
    {556, "linkedModel"}, {560, "classConfidenceThresholding"}, {600, "oneHotEncoder"},
    {601, "imputer"}, {602, "featureVectorizer"}, {603, "dictVectorizer"}, {604, "scaler"},
    {606, "categoricalMapping"}, {607, "normalizer"}, {609, "arrayFeatureExtractor"},
    {610, "nonMaximumSuppression"}, {900, "identity"}, {2000, "textClassifier"},
    {2001, "wordTagger"}, {2002, "visionFeaturePrint"}, {2003, "soundAnalysisPreprocessing"},
    {2004, "gazetteer"}, {2005, "wordEmbedding"}, {2006, "audioFeaturePrint"},
    {3000, "serializedModel"},
};

static const char *model_type_name(uint32_t field)
{
    for (size_t i = 0; i < sizeof model_types / sizeof *model_types; i++)
        if (model_types[i].field == field)
            return model_types[i].name;
    return NULL;
}

static ts_status read_model(cm *r, const ts__pb_msg *m, const char *prefix, int depth,
                            json_t *types);

/* Pipeline: models 1, names 2 (the i-th name is the i-th model's). */
static ts_status read_pipeline(cm *r, const ts__pb_msg *m, const char *prefix, int depth,
                               json_t *types)
{
    ts__pb_msg w = *m, sub, nw = *m; /* nw: at the names, one per model */
    ts__pb_field fl, g;
    int k, kn = 1;
    int64_t mi = 0;
    ts_status st = TS_OK;
    while (!st && (k = ts__pb_next(&w, &fl, r->err)) > 0) {
        if (fl.number != 1 || fl.wire != TS__PB_LEN)
            continue;
        /* its name: the next string of field 2 */
        const char *name = NULL;
        size_t nn = 0;
        while (!st && !name && kn > 0 && (kn = ts__pb_next(&nw, &g, r->err)) > 0)
            if (g.number == 2)
                st = get_str(r, &nw, &g, "pipeline model name", &name, &nn);
        if (!st && kn < 0)
            st = nw.status;
        if (st)
            break;
        const char *pre = name ? ts__file_printf(r->f, r->err, "%s%.*s/", prefix, (int)nn, name)
                               : ts__file_printf(r->f, r->err, "%smodel%lld/", prefix,
                                                 (long long)mi);
        if (!pre)
            return TS_ERR_NOMEM;
        mi++;
        if (!(st = ts__pb_sub(&w, &fl, &sub, r->err)))
            st = read_model(r, &sub, pre, depth + 1, types);
    }
    return st ? st : k < 0 ? w.status : TS_OK;
}

/* A Model: specificationVersion 1, description 2, its type's field. At the
 * top (depth 0) its description is the file's metadata; the types of all
 * models go to `types`. */
static ts_status read_model(cm *r, const ts__pb_msg *m, const char *prefix, int depth,
                            json_t *types)
{
    if (depth > MAX_PIPELINE_DEPTH)
        return ts__fail(r->err, TS_ERR_LIMIT, 0, (int64_t)m->pos,
                        "pipelines nested more than %d deep", MAX_PIPELINE_DEPTH);
    ts__pb_msg w = *m, sub;
    ts__pb_field fl;
    int k;
    ts_status st = TS_OK;
    while (!st && (k = ts__pb_next(&w, &fl, r->err)) > 0) {
        if (fl.number == 1 && depth == 0) {
            if (!(st = ts__pb_want(&fl, TS__PB_VARINT, "specificationVersion", r->err))) {
                const char *v = ts__file_printf(r->f, r->err, "%lld", (long long)u(fl.value));
                if (!v)
                    return TS_ERR_NOMEM;
                ts__file_set_version(r->f, v);
                if (r->opts->want_metadata)
                    st = add_meta(r, "specification_version", json_integer(u(fl.value)));
            }
            continue;
        }
        if (fl.number == 2 && depth == 0 && r->opts->want_metadata) {
            st = description(r, &w, &fl);
            continue;
        }
        const char *tn = fl.number >= 200 ? model_type_name(fl.number) : NULL;
        if (!tn)
            continue;
        if (types) {
            json_t *t = prefix[0] ? json_pack("{s:s%,s:s}", "model", prefix,
                                              strlen(prefix) - 1, "type", tn)
                                  : json_string(tn);
            if (!t || json_array_append_new(types, t) != 0)
                return ts__error(r->err, TS_ERR_NOMEM, "out of memory");
        }
        if ((st = ts__pb_sub(&w, &fl, &sub, r->err)))
            break;
        switch (fl.number) {
        case 200: case 201: { /* PipelineClassifier/Regressor: pipeline 1 */
            ts__pb_msg pw = sub, p;
            ts__pb_field g;
            int kp;
            while (!st && (kp = ts__pb_next(&pw, &g, r->err)) > 0)
                if (g.number == 1 && g.wire == TS__PB_LEN &&
                    !(st = ts__pb_sub(&pw, &g, &p, r->err)))
                    st = read_pipeline(r, &p, prefix, depth, types);
            if (!st && kp < 0)
                st = pw.status;
            break;
        }
        case 202:
            st = read_pipeline(r, &sub, prefix, depth, types);
            break;
        case 303: case 403: case 500:
            st = read_nn(r, &sub, prefix);
            break;
        case 502:
            st = read_program(r, &sub, prefix);
            break;
        default: /* no tensors tshape reads: the model type says it */
            break;
        }
    }
    return st ? st : k < 0 ? w.status : TS_OK;
}

/*
 * The probe: a Model's top-level fields, each known with its wire type
 * (specificationVersion 1 and isUpdatable 10 varints, description 2 and
 * the model types length-delimited), with a model type or a description.
 */
static int probe_coreml(const unsigned char *data, size_t len, ts__source *src)
{
    ts__pb_msg m;
    ts__pb_field f;
    int k, n = 0, typed = 0, desc = 0;
    ts__pb_init_src(&m, data, len, src);
    while ((k = ts__pb_next(&m, &f, NULL)) > 0) {
        n++;
        if (f.number == 1 || f.number == 10) {
            if (f.wire != TS__PB_VARINT)
                return 0;
        } else if (f.number == 2) {
            if (f.wire != TS__PB_LEN)
                return 0;
            desc = 1;
        } else if (model_type_name(f.number)) {
            if (f.wire != TS__PB_LEN)
                return 0;
            typed = 1;
        } else {
            return 0;
        }
    }
    return (k == 0 || m.pending) && n > 0 && (typed || desc);
}

static ts_status read_coreml(ts_file *f, const unsigned char *data, size_t len,
                             const ts_open_options *opts, ts_error *err)
{
    cm r;
    memset(&r, 0, sizeof r);
    r.f = f;
    r.data = data;
    r.len = len;
    r.opts = opts;
    r.err = err;
    r.src = ts__file_source(f);
    ts__pb_msg m;
    ts__pb_init_src(&m, data, len, r.src);
    json_t *types = NULL;
    ts_status st = TS_OK;
    if (!probe_coreml(data, len, r.src)) {
        ts__pb_field fl;
        int k;
        while ((k = ts__pb_next(&m, &fl, err)) > 0)
            ;
        if (k < 0) {
            ts__error_prefix(err, "not a Core ML model");
            return m.status;
        }
        return ts__fail(err, TS_ERR_FORMAT, 0, 0,
                        "not a Core ML model: the top-level fields of this protobuf are not "
                        "those of a Model (Model.proto)");
    }
    if (opts->want_metadata &&
        (!(types = json_array()) || !(r.functions = json_array())))
        st = ts__error(err, TS_ERR_NOMEM, "out of memory");
    if (!st)
        st = read_model(&r, &m, "", 0, types);
    if (!st)
        st = resolve_blobs(&r);
    if (!st && types) {
        size_t nt = json_array_size(types);
        st = add_meta(&r, "model_type", nt == 1 ? json_incref(json_array_get(types, 0))
                                                : json_incref(types));
    }
    if (!st && r.functions && json_array_size(r.functions))
        st = add_meta(&r, "functions", json_incref(r.functions));
    if (!st && types && r.nblobs) {
        json_t *wf = json_array();
        for (int i = 0; wf && i < r.nblobs; i++) {
            json_t *o = json_pack("{s:s,s:s}", "file", r.blobs[i].name, "state",
                                  r.blobs[i].state == 1   ? "found"
                                  : r.blobs[i].state == 2 ? "not beside the model"
                                                          : "not looked for (read from memory)");
            if (!o || json_array_append_new(wf, o) != 0) {
                json_decref(wf);
                wf = NULL;
            }
        }
        st = wf ? add_meta(&r, "weight_files", wf) : ts__error(err, TS_ERR_NOMEM, "out of memory");
    }
    json_decref(types);
    json_decref(r.functions);
    return st;
}

/* ---- .mlpackage ---------------------------------------------------------------- */

/*
 * The model of a .mlpackage folder `dir` (coremltools' ModelPackage: a
 * Manifest.json whose rootModelIdentifier names an entry of
 * itemInfoEntries, whose path is relative to Data/): *model receives the
 * malloc'd path of its .mlmodel, or NULL when dir has no Manifest.json.
 * Errors: TS_ERR_FORMAT (a manifest that says no model, or a path leaving
 * the package), TS_ERR_IO, TS_ERR_NOMEM.
 */
ts_status ts__coreml_package_model(const char *dir, char **model, ts_error *err)
{
    *model = NULL;
    size_t dl = strlen(dir);
    char *mp = malloc(dl + 16);
    if (!mp)
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    snprintf(mp, dl + 16, "%s/Manifest.json", dir);
    char *text = NULL;
    size_t n = 0;
    int missing = 0;
    ts_status st = ts__read_small(mp, (size_t)1 << 20, &text, &n, &missing, err);
    if (st) {
        free(mp);
        return missing ? (ts__ok(err), TS_OK) : st;
    }
    ts__json j;
    ts__json_str key, root = {0}, path = {0};
    size_t cnt = 0, cnt2, cnt3;
    int has_root = 0, found = 0, k, k2, k3;
    char *rootv = NULL;
    /* two passes: the root identifier, then its entry's path */
    for (int pass = 0; pass < 2 && !st; pass++) {
        ts__json_init(&j, text, n, NULL, NULL, NULL);
        cnt = 0;
        if (ts__json_object_open(&j) != 0)
            break;
        while ((k = ts__json_object_next(&j, &cnt, &key)) > 0) {
            char kb[32];
            int is_root = 0, is_items = 0;
            if (key.len < sizeof kb) {
                ts__json_decode(text, &key, kb);
                kb[key.len] = '\0';
                is_root = strcmp(kb, "rootModelIdentifier") == 0;
                is_items = strcmp(kb, "itemInfoEntries") == 0;
            }
            if (pass == 0 && is_root && ts__json_peek(&j) == TS__JSON_STRING) {
                if (ts__json_string(&j, &root) != 0)
                    break;
                has_root = 1;
            } else if (pass == 1 && is_items && ts__json_peek(&j) == TS__JSON_OBJECT) {
                ts__json_object_open(&j);
                cnt2 = 0;
                while ((k2 = ts__json_object_next(&j, &cnt2, &key)) > 0) {
                    int mine = key.len == root.len && ts__json_peek(&j) == TS__JSON_OBJECT;
                    if (mine) {
                        char *kv = malloc(key.len + 1);
                        if (!kv)
                            break;
                        ts__json_decode(text, &key, kv);
                        mine = memcmp(kv, rootv, key.len) == 0;
                        free(kv);
                    }
                    if (!mine) {
                        if (ts__json_skip(&j) != 0)
                            break;
                        continue;
                    }
                    ts__json_object_open(&j);
                    cnt3 = 0;
                    while ((k3 = ts__json_object_next(&j, &cnt3, &key)) > 0) {
                        char pb[8];
                        int is_path = 0;
                        if (key.len == 4) {
                            ts__json_decode(text, &key, pb);
                            is_path = memcmp(pb, "path", 4) == 0;
                        }
                        if (is_path && ts__json_peek(&j) == TS__JSON_STRING) {
                            if (ts__json_string(&j, &path) != 0)
                                break;
                            found = 1;
                        } else if (ts__json_skip(&j) != 0) {
                            break;
                        }
                    }
                    if (k3 < 0)
                        break;
                }
                if (k2 < 0)
                    break;
            } else if (ts__json_skip(&j) != 0) {
                break;
            }
        }
        if (j.error)
            st = ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)j.error_at,
                          "'%s': %s at byte %zu", mp, j.error_text, j.error_at);
        else if (pass == 0 && !has_root)
            st = ts__error(err, TS_ERR_FORMAT, "'%s' has no rootModelIdentifier (not a Core "
                           "ML package manifest)", mp);
        else if (pass == 0 && !(rootv = malloc(root.len + 1)))
            st = ts__error(err, TS_ERR_NOMEM, "out of memory");
        else if (pass == 0)
            ts__json_decode(text, &root, rootv);
    }
    if (!st && !found)
        st = ts__error(err, TS_ERR_FORMAT, "'%s': rootModelIdentifier names no entry of "
                       "itemInfoEntries with a path", mp);
    char *rel = NULL;
    if (!st && !(rel = malloc(path.len + 1)))
        st = ts__error(err, TS_ERR_NOMEM, "out of memory");
    if (!st) {
        ts__json_decode(text, &path, rel);
        rel[path.len] = '\0';
        st = ts__side_check_name(rel, path.len, "model", "Manifest.json", 0, err);
    }
    if (!st) {
        size_t cap = dl + path.len + 8;
        if (!(*model = malloc(cap)))
            st = ts__error(err, TS_ERR_NOMEM, "out of memory");
        else
            snprintf(*model, cap, "%s/Data/%s", dir, rel);
    }
    free(rel);
    free(rootv);
    free(text);
    free(mp);
    return st;
}

const ts__reader ts__reader_coreml = {
    {TS_FORMAT_COREML, "coreml", ".mlmodel",
     "extension .mlmodel and the protobuf structure of a Core ML Model (a .mlpackage folder: "
     "its Manifest.json names the model)",
     "Core ML model (.mlmodel, .mlpackage: NeuralNetwork weights, ML Program constants with "
     "weights/weight.bin, inputs and outputs)", "dataType", 1},
    probe_coreml,
    read_coreml,
    0,
};
