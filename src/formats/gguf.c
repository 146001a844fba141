/*
 * gguf.c - reader for llama.cpp / ggml GGUF files, versions 2 and 3.
 *
 * Layout (ggml docs/gguf.md), little-endian: "GGUF", u32 version, u64
 * tensor_count, u64 kv_count, the key/value pairs, the tensor infos, padding
 * to ALIGNMENT (KV general.alignment, u32, default 32), the tensor data.
 *   KV:          string key, u32 value type (0..12), value
 *   string:      u64 length + bytes (no NUL)
 *   array:       u32 element type + u64 count + elements (one level only)
 *   tensor info: string name, u32 n_dims, u64 ne[n_dims] (innermost first),
 *                u32 ggml type, u64 offset (relative to the data section)
 *
 * Checks follow ggml's reader (src/gguf.cpp, gguf_init_from_reader): no
 * duplicate keys or tensor names, empty keys rejected, nested arrays
 * rejected, alignment a power of two <= 1 MiB, n_dims <= 4, ne >= 0 with an
 * element count that fits int64, known ggml types, ne[0] a multiple of the
 * block size, and each tensor's offset equal to the end of the previous
 * tensor padded to the alignment (so no holes, overlaps or misaligned
 * offsets). Tensor data must lie inside the file (llama.cpp's "data is not
 * within the file bounds" check); padding after the last tensor may be
 * missing. Tensor names may be up to 255 bytes (ggml allows 63).
 * Every count and length is checked against the bytes left before use.
 */
#include "reader.h"

#include "../core/jansson_lazy.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#define GG_DEFAULT_ALIGNMENT 32u       /* GGUF_DEFAULT_ALIGNMENT */
#define GG_MAX_ALIGNMENT (1u << 20)    /* GGUF_MAX_ALIGNMENT in gguf.cpp */
#define GG_MAX_DIMS 4                  /* GGML_MAX_DIMS */
#define GG_MAX_NAME 255                /* tshape's limit; ggml's is 63 */
#define GG_MIN_KV 13                   /* u64 key length + u32 type + 1-byte value */
#define GG_MIN_INFO 24                 /* u64 name length + u32 n_dims + u32 type + u64 offset */

/* GGUF metadata value types (gguf_type). */
enum {
    GG_U8 = 0, GG_I8 = 1, GG_U16 = 2, GG_I16 = 3, GG_U32 = 4, GG_I32 = 5,
    GG_F32 = 6, GG_BOOL = 7, GG_STRING = 8, GG_ARRAY = 9, GG_U64 = 10,
    GG_I64 = 11, GG_F64 = 12, GG_TYPE_COUNT = 13
};

static const char *const gg_value_names[GG_TYPE_COUNT] = {
    "uint8", "int8", "uint16", "int16", "uint32", "int32", "float32",
    "bool", "string", "array", "uint64", "int64", "float64",
};

/* Bytes of a fixed-size value; 0 for string and array. */
static const unsigned char gg_value_size[GG_TYPE_COUNT] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};

/* ggml tensor types: name, tshape dtype name, dtype, block size and bytes
 * (ggml.c type_traits; sizes from the static_asserts in ggml-common.h). A
 * NULL name is a removed or unassigned code. */
typedef struct gg_type {
    const char *name;         /* ggml spelling, upper case: "Q4_K" */
    const char *lower;        /* dtype_name for quantized types: "q4_k" */
    ts_dtype dtype;           /* plain types: the element dtype */
    int32_t block_size, block_bytes;
} gg_type;

#define QT(n, l, bs, bb) {n, l, TS_DTYPE_QUANTIZED, bs, bb}
#define PT(n, dt, bytes) {n, NULL, dt, 1, bytes}

static const gg_type gg_types[] = {
    [0] = PT("F32", TS_DTYPE_FLOAT32, 4),
    [1] = PT("F16", TS_DTYPE_FLOAT16, 2),
    [2] = QT("Q4_0", "q4_0", 32, 18),
    [3] = QT("Q4_1", "q4_1", 32, 20),
    [6] = QT("Q5_0", "q5_0", 32, 22),
    [7] = QT("Q5_1", "q5_1", 32, 24),
    [8] = QT("Q8_0", "q8_0", 32, 34),
    [9] = QT("Q8_1", "q8_1", 32, 36),
    [10] = QT("Q2_K", "q2_k", 256, 84),
    [11] = QT("Q3_K", "q3_k", 256, 110),
    [12] = QT("Q4_K", "q4_k", 256, 144),
    [13] = QT("Q5_K", "q5_k", 256, 176),
    [14] = QT("Q6_K", "q6_k", 256, 210),
    [15] = QT("Q8_K", "q8_k", 256, 292),
    [16] = QT("IQ2_XXS", "iq2_xxs", 256, 66),
    [17] = QT("IQ2_XS", "iq2_xs", 256, 74),
    [18] = QT("IQ3_XXS", "iq3_xxs", 256, 98),
    [19] = QT("IQ1_S", "iq1_s", 256, 50),
    [20] = QT("IQ4_NL", "iq4_nl", 32, 18),
    [21] = QT("IQ3_S", "iq3_s", 256, 110),
    [22] = QT("IQ2_S", "iq2_s", 256, 82),
    [23] = QT("IQ4_XS", "iq4_xs", 256, 136),
    [24] = PT("I8", TS_DTYPE_INT8, 1),
    [25] = PT("I16", TS_DTYPE_INT16, 2),
    [26] = PT("I32", TS_DTYPE_INT32, 4),
    [27] = PT("I64", TS_DTYPE_INT64, 8),
    [28] = PT("F64", TS_DTYPE_FLOAT64, 8),
    [29] = QT("IQ1_M", "iq1_m", 256, 56),
    [30] = PT("BF16", TS_DTYPE_BFLOAT16, 2),
    [34] = QT("TQ1_0", "tq1_0", 256, 54),
    [35] = QT("TQ2_0", "tq2_0", 256, 66),
    [39] = QT("MXFP4", "mxfp4", 32, 17),
    /* Added to ggml in 2026; sizes derived from the block structs
     * (block_nvfp4: 4 scale bytes + 32; block_q1_0 / block_q2_0: fp16 d +
     * 16 bytes), not taken from a published table. */
    [40] = QT("NVFP4", "nvfp4", 64, 36),
    [41] = QT("Q1_0", "q1_0", 128, 18),
    [42] = QT("Q2_0", "q2_0", 64, 18),
};

#define GG_NTYPES ((uint32_t)(sizeof gg_types / sizeof *gg_types))

/* The quantised KV cache types llama.cpp accepts (common/arg.cpp
 * kv_cache_types: besides F32, F16 and BF16), in its order. */
static const uint32_t gg_cache_types[] = {8, 2, 3, 20, 6, 7};

const char *ts_kv_cache_type(const char *name, int64_t *block_size, int64_t *block_bytes)
{
    for (size_t i = 0; name && i < sizeof gg_cache_types / sizeof *gg_cache_types; i++) {
        const gg_type *t = &gg_types[gg_cache_types[i]];
        if (strcasecmp(name, t->lower) == 0) {
            if (block_size)
                *block_size = t->block_size;
            if (block_bytes)
                *block_bytes = t->block_bytes;
            return t->lower;
        }
    }
    return NULL;
}

/* Names of codes ggml removed; files using them no longer load. */
static const char *removed_type(uint32_t t)
{
    switch (t) {
    case 4: return "Q4_2";
    case 5: return "Q4_3";
    case 31: return "Q4_0_4_4";
    case 32: return "Q4_0_4_8";
    case 33: return "Q4_0_8_8";
    case 36: return "IQ4_NL_4_4";
    case 37: return "IQ4_NL_4_8";
    case 38: return "IQ4_NL_8_8";
    default: return NULL;
    }
}

static int probe_gguf(const unsigned char *data, size_t len, ts__source *src)
{
    (void)src;
    return len >= 4 && memcmp(data, "GGUF", 4) == 0;
}

/* ---- text helpers ---- */

/* GGUF strings are unsigned byte ranges. */
static const char *gg_printable(const unsigned char *s, size_t n, char *buf, size_t cap)
{
    return ts__printable((const char *)s, n, buf, cap);
}

#define NAME_BUF 400

/* ---- the reader ---- */

typedef struct gg_ctx {
    ts__cursor c;
    const ts_open_options *opts;
    uint32_t alignment;
} gg_ctx;

/* Reads a GGUF string (u64 length + bytes) as a pointer into the file.
 * Its bytes are not fetched (a remote file's skipped strings cost
 * nothing): callers that read them call ts__cursor_fetch_at first. */
static ts_status read_string(ts__cursor *c, const unsigned char **p, uint64_t *n,
                             const char *what, ts_error *err)
{
    size_t at = c->pos;
    uint64_t len;
    ts_status st = ts__read_u64(c, &len, what, err);
    if (st)
        return st;
    if (len > ts__cursor_left(c))
        return ts__fail(err, TS_ERR_TRUNCATED, 0, (int64_t)at,
                        "%s at byte %zu is %llu bytes long, but only %zu bytes are "
                        "left in the file", what, at, (unsigned long long)len,
                        ts__cursor_left(c));
    *p = c->data + c->pos;
    *n = len;
    c->pos += (size_t)len;
    return TS_OK;
}

/* Bytes of a string value asked for and written at a time. */
#define STRING_STEP ((size_t)64 * 1024)

/* Writes the GGUF string s (n bytes at the cursor's image) to out as a JSON
 * string, asking the source for it and dropping it again step by step: a
 * sink that stops early (a value cut for humans) stops the reading too. */
static ts_status write_string(ts__cursor *c, const unsigned char *s, size_t n, ts__sink *out,
                              ts_error *err)
{
    ts_status st = ts__sink_add(out, "\"", 1, err);
    size_t done = 0;
    while (!st && done < n) {
        size_t k = n - done < STRING_STEP ? n - done : STRING_STEP;
        size_t at = (size_t)(s + done - c->data);
        /* the step and the 3 bytes after it, to end it between characters */
        st = ts__cursor_fetch_at(c, at, n - done - k < 3 ? n - done : k + 3, err);
        if (st)
            break;
        for (int back = 0; back < 3 && done + k < n && k > 1 && (s[done + k] & 0xC0) == 0x80;
             back++)
            k--;
        st = ts__sink_json_chars(out, s + done, k, err);
        if (c->src && n > STRING_STEP)
            ts__source_forget(c->src, c->src_off + at, k);
        done += k;
    }
    return st ? st : ts__sink_add(out, "\"", 1, err);
}

/* Reads one value of scalar type `type` (not an array), appending its JSON
 * text when `out` is not NULL. */
static ts_status read_scalar(ts__cursor *c, uint32_t type, ts__sink *out, ts_error *err)
{
    if (type == GG_STRING) {
        const unsigned char *s;
        uint64_t n;
        ts_status st = read_string(c, &s, &n, "string value", err);
        if (st || !out)
            return st;
        return write_string(c, s, (size_t)n, out, err);
    }
    size_t size = gg_value_size[type];
    ts_status st = ts__cursor_need(c, size, "value", err);
    if (st)
        return st;
    const unsigned char *p = c->data + c->pos;
    c->pos += size;
    if (!out)
        return TS_OK;
    char buf[64];
    switch (type) {
    case GG_U8: snprintf(buf, sizeof buf, "%u", p[0]); break;
    case GG_I8: snprintf(buf, sizeof buf, "%d", (int)(int8_t)p[0]); break;
    case GG_U16: snprintf(buf, sizeof buf, "%u", (unsigned)ts__le16(p)); break;
    case GG_I16: snprintf(buf, sizeof buf, "%d", (int)(int16_t)ts__le16(p)); break;
    case GG_U32: snprintf(buf, sizeof buf, "%lu", (unsigned long)ts__le32(p)); break;
    case GG_I32: snprintf(buf, sizeof buf, "%ld", (long)(int32_t)ts__le32(p)); break;
    case GG_U64: snprintf(buf, sizeof buf, "%llu", (unsigned long long)ts__le64(p)); break;
    case GG_I64: {
        uint64_t u = ts__le64(p);
        int64_t v;
        memcpy(&v, &u, sizeof v);
        snprintf(buf, sizeof buf, "%lld", (long long)v);
        break;
    }
    case GG_BOOL: snprintf(buf, sizeof buf, "%s", p[0] ? "true" : "false"); break;
    case GG_F32: {
        uint32_t u = ts__le32(p);
        float v;
        memcpy(&v, &u, sizeof v);
        ts__json_real(v, 1, buf, sizeof buf);
        break;
    }
    case GG_F64: {
        uint64_t u = ts__le64(p);
        double v;
        memcpy(&v, &u, sizeof v);
        ts__json_real(v, 0, buf, sizeof buf);
        break;
    }
    default:
        snprintf(buf, sizeof buf, "null");
        break;
    }
    return ts__sink_add(out, buf, strlen(buf), err);
}

/* Reads the value of KV pair `type` (possibly an array). */
static ts_status read_value(ts__cursor *c, uint32_t type, ts__sink *out, ts_error *err)
{
    if (type >= GG_TYPE_COUNT)
        return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)c->pos - 4,
                        "value type %lu at byte %zu is not a GGUF type (0..12)",
                        (unsigned long)type, c->pos - 4);
    if (type != GG_ARRAY)
        return read_scalar(c, type, out, err);
    size_t at = c->pos;
    uint32_t et;
    uint64_t count;
    ts_status st = ts__read_u32(c, &et, "array element type", err);
    if (!st)
        st = ts__read_u64(c, &count, "array length", err);
    if (st)
        return st;
    if (et == GG_ARRAY)
        return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)at,
                        "array at byte %zu holds arrays: nested arrays are not "
                        "supported (ggml's reader rejects them too)", at);
    if (et >= GG_TYPE_COUNT)
        return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)at,
                        "array element type %lu at byte %zu is not a GGUF type (0..12)",
                        (unsigned long)et, at);
    /* Each element takes at least its fixed size, or 8 bytes of length for
     * a string: reject counts the rest of the file cannot hold. */
    size_t min = et == GG_STRING ? 8 : gg_value_size[et];
    if (count > ts__cursor_left(c) / min)
        return ts__fail(err, TS_ERR_TRUNCATED, 0, (int64_t)at,
                        "array at byte %zu declares %llu %s values (at least %zu bytes "
                        "each), but only %zu bytes are left in the file", at,
                        (unsigned long long)count, gg_value_names[et], min,
                        ts__cursor_left(c));
    if (et != GG_STRING && !out)
        return ts__skip(c, count * min, "array", err);
    if (out && (st = ts__sink_add(out, "[", 1, err)))
        return st;
    for (uint64_t i = 0; i < count; i++) {
        if (out && i > 0 && (st = ts__sink_add(out, ",", 1, err)))
            return st;
        if ((st = read_scalar(c, et, out, err))) {
            ts__error_prefix(err, "array element %llu", (unsigned long long)i);
            return st;
        }
    }
    return out ? ts__sink_add(out, "]", 1, err) : TS_OK;
}

/* Writes the JSON text of the value of `type` at byte `at` (checked when
 * the file was opened) to out: GGUF metadata is rendered only when asked
 * for, and streamed, so a 100 MiB string costs no memory. */
static ts_status render_value(const unsigned char *data, size_t len, uint64_t at,
                              uint32_t type, ts__source *src, ts__sink *out, ts_error *err)
{
    ts__cursor c;
    ts__cursor_init_src(&c, data, len, src, 0);
    c.pos = (size_t)at;
    return read_value(&c, type, out, err);
}

typedef struct name_ref {
    const unsigned char *p;   /* the u64 length, then the bytes */
} name_ref;

static int cmp_name(const void *pa, const void *pb)
{
    const unsigned char *a = ((const name_ref *)pa)->p, *b = ((const name_ref *)pb)->p;
    uint64_t na = ts__le64(a), nb = ts__le64(b);
    int r = memcmp(a + 8, b + 8, (size_t)(na < nb ? na : nb));
    if (r)
        return r;
    if (na != nb)
        return na < nb ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* Sorts the names and fails on the first pair of equal ones. */
static ts_status check_unique(name_ref *names, size_t n, const unsigned char *base,
                              const char *what, ts_error *err)
{
    if (n < 2)
        return TS_OK;
    qsort(names, n, sizeof *names, cmp_name);
    for (size_t i = 1; i < n; i++) {
        const unsigned char *a = names[i - 1].p, *b = names[i].p;
        uint64_t len = ts__le64(a);
        if (len == ts__le64(b) && memcmp(a + 8, b + 8, (size_t)len) == 0) {
            char nb[NAME_BUF];
            return ts__fail(err, TS_ERR_FORMAT, 0, b - base,
                            "duplicate %s '%s' at bytes %lld and %lld", what,
                            gg_printable(a + 8, (size_t)len, nb, sizeof nb),
                            (long long)(a - base), (long long)(b - base));
        }
    }
    return TS_OK;
}

static ts_status read_kvs(gg_ctx *g, uint64_t n_kv, ts_file *f, ts_error *err)
{
    ts__cursor *c = &g->c;
    name_ref *keys = ts__scratch_alloc(f, (n_kv ? (size_t)n_kv : 1) * sizeof *keys, err);
    if (!keys)
        return TS_ERR_NOMEM;
    ts_status st = TS_OK;
    char nb[NAME_BUF];
    uint64_t i = 0;
    for (; i < n_kv; i++) {
        size_t at = c->pos;
        const unsigned char *key;
        uint64_t klen;
        uint32_t type;
        if ((st = read_string(c, &key, &klen, "key", err)) ||
            (st = ts__cursor_fetch_at(c, (size_t)(key - c->data), (size_t)klen, err))) {
            ts__error_entry(err, (int64_t)i, "key/value pair %llu", (unsigned long long)i);
            goto out;
        }
        keys[i].p = c->data + at;
        const char *kname = gg_printable(key, (size_t)klen, nb, sizeof nb);
        if (klen == 0) {
            st = ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)at,
                          "key/value pair %llu at byte %zu has an empty key",
                          (unsigned long long)i, at);
            goto out;
        }
        /* A NUL would cut the key short as a C string: "k\0one" and
         * "k\0two" would pass the duplicate check yet print the same. */
        if (memchr(key, 0, (size_t)klen)) {
            st = ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)at,
                          "key/value pair %llu at byte %zu: key '%s' contains a NUL byte",
                          (unsigned long long)i, at, kname);
            goto out;
        }
        if ((st = ts__read_u32(c, &type, "value type", err))) {
            ts__error_entry(err, (int64_t)i, "key %llu '%s'", (unsigned long long)i, kname);
            goto out;
        }
        int is_alignment = klen == 17 && memcmp(key, "general.alignment", 17) == 0;
        if (is_alignment) {
            if (type != GG_U32) {
                st = ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)c->pos - 4,
                              "key %llu 'general.alignment': value type at byte %zu is "
                              "%s, expected uint32", (unsigned long long)i, c->pos - 4,
                              type < GG_TYPE_COUNT ? gg_value_names[type] : "unknown");
                goto out;
            }
            if ((st = ts__cursor_need(c, 4, "value", err))) {
                ts__error_entry(err, (int64_t)i, "key %llu '%s'", (unsigned long long)i, kname);
                goto out;
            }
            uint32_t a = ts__le32(c->data + c->pos);
            if (a == 0 || (a & (a - 1)) != 0) {
                st = ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)c->pos,
                              "general.alignment at byte %zu is %lu, expected a power "
                              "of two", c->pos, (unsigned long)a);
                goto out;
            }
            if (a > GG_MAX_ALIGNMENT) {
                st = ts__fail(err, TS_ERR_LIMIT, 0, (int64_t)c->pos,
                              "general.alignment at byte %zu is %lu, above ggml's "
                              "limit of %u", c->pos, (unsigned long)a, GG_MAX_ALIGNMENT);
                goto out;
            }
            g->alignment = a;
        }
        size_t value_at = c->pos;
        if ((st = read_value(c, type, NULL, err))) {
            ts__error_entry(err, (int64_t)i, "key %llu '%s'", (unsigned long long)i, kname);
            goto out;
        }
        /* Rendered later from the image, asking for what it reads. */
        if (g->opts->want_metadata &&
            ((st = ts__file_add_lazy_metadata(f, (const char *)key, (size_t)klen, render_value,
                                             value_at, type, err))))
            goto out;
    }
    st = check_unique(keys, (size_t)n_kv, c->data, "key", err);
out:
    if (st && i < n_kv)
        ts__error_index(err, st, (int64_t)i); /* the key/value pair at fault */
    ts__scratch_free(f, keys);
    return st;
}

/* One tensor info as read from the file. */
typedef struct gg_info {
    const unsigned char *name;
    uint64_t name_len;
    uint32_t n_dims;
    int64_t ne[GG_MAX_DIMS];
    const gg_type *type;
    uint64_t offset;
    size_t offset_pos;       /* file position of the offset field */
    int64_t size, nbytes;
} gg_info;

/* Reads and checks tensor info `i` at the cursor. */
static ts_status read_info(ts__cursor *c, uint64_t i, gg_info *t, ts_error *err)
{
    char nb[NAME_BUF];
    size_t at = c->pos;
    ts_status st = read_string(c, &t->name, &t->name_len, "tensor name", err);
    if (!st)
        st = ts__cursor_fetch_at(c, (size_t)(t->name - c->data), (size_t)t->name_len, err);
    if (st) {
        ts__error_entry(err, (int64_t)i, "tensor %llu", (unsigned long long)i);
        return st;
    }
    const char *tname = gg_printable(t->name, (size_t)t->name_len, nb, sizeof nb);
    if (memchr(t->name, 0, (size_t)t->name_len))
        return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)at,
                        "tensor %llu '%s' at byte %zu: name contains a NUL byte",
                        (unsigned long long)i, tname, at);
    if (t->name_len > GG_MAX_NAME)
        return ts__fail(err, TS_ERR_LIMIT, 0, (int64_t)at,
                        "tensor %llu '%s' at byte %zu: name is %llu bytes long; tshape "
                        "accepts up to %d (ggml up to 63)", (unsigned long long)i, tname,
                        at, (unsigned long long)t->name_len, GG_MAX_NAME);
    if ((st = ts__read_u32(c, &t->n_dims, "number of dimensions", err)))
        goto prefix;
    if (t->n_dims > GG_MAX_DIMS)
        return ts__fail(err, TS_ERR_NDIM, 0, (int64_t)c->pos - 4,
                        "tensor %llu '%s': n_dims at byte %zu is %lu, GGUF allows at "
                        "most %d (GGML_MAX_DIMS)", (unsigned long long)i, tname,
                        c->pos - 4, (unsigned long)t->n_dims, GG_MAX_DIMS);
    size_t dims_at = c->pos;
    for (uint32_t d = 0; d < t->n_dims; d++) {
        uint64_t u;
        if ((st = ts__read_u64(c, &u, "dimensions", err)))
            goto prefix;
        if (u > INT64_MAX)
            return ts__fail(err, TS_ERR_VALUE, 0, (int64_t)c->pos - 8,
                            "tensor %llu '%s': ne[%lu] at byte %zu is %llu, above the "
                            "int64 maximum (ggml requires 0 <= ne < 2^63)",
                            (unsigned long long)i, tname, (unsigned long)d, c->pos - 8,
                            (unsigned long long)u);
        t->ne[d] = (int64_t)u;
    }
    size_t type_at = c->pos;
    uint32_t type;
    if ((st = ts__read_u32(c, &type, "ggml type", err)))
        goto prefix;
    t->offset_pos = c->pos;
    if ((st = ts__read_u64(c, &t->offset, "data offset", err)))
        goto prefix;

    if (type >= GG_NTYPES || !gg_types[type].name) {
        const char *old = removed_type(type);
        if (old)
            return ts__fail(err, TS_ERR_DTYPE, 0, (int64_t)type_at,
                            "tensor %llu '%s': ggml type %lu (%s) at byte %zu was "
                            "removed from ggml and is not supported",
                            (unsigned long long)i, tname, (unsigned long)type, old, type_at);
        return ts__fail(err, TS_ERR_DTYPE, 0, (int64_t)type_at,
                        "tensor %llu '%s': unknown ggml type %lu at byte %zu (known "
                        "types are 0..%lu)", (unsigned long long)i, tname,
                        (unsigned long)type, type_at, (unsigned long)(GG_NTYPES - 1));
    }
    t->type = &gg_types[type];
    if ((st = ts__dims_size(t->ne, (int)t->n_dims, &t->size, err))) {
        ts__error_entry(err, (int64_t)i, "tensor %llu '%s': ne at byte %zu",
                        (unsigned long long)i,
                         tname, dims_at);
        if (err)
            err->offset = (int64_t)dims_at;
        return st;
    }
    int64_t ne0 = t->n_dims ? t->ne[0] : 1;
    if (ne0 % t->type->block_size != 0)
        return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)dims_at,
                        "tensor %llu '%s': ne[0] at byte %zu is %lld, not a multiple "
                        "of the %s block size %ld", (unsigned long long)i, tname, dims_at,
                        (long long)ne0, t->type->name, (long)t->type->block_size);
    if (ts__mul_overflow(t->size / t->type->block_size, t->type->block_bytes, &t->nbytes))
        return ts__fail(err, TS_ERR_OVERFLOW, 0, (int64_t)dims_at,
                        "tensor %llu '%s': %lld elements of %s at byte %zu take more "
                        "than 2^63 bytes", (unsigned long long)i, tname,
                        (long long)t->size, t->type->name, dims_at);
    return TS_OK;
prefix:
    ts__error_entry(err, (int64_t)i, "tensor %llu '%s'", (unsigned long long)i, tname);
    return st;
}

/* Appends the array of a checked tensor info. */
static ts_status add_array(ts_file *f, const gg_info *t, int64_t data_offset,
                           int stored_order, ts_error *err)
{
    ts_array *a = ts__file_add_array(f, err);
    if (!a)
        return ts__file_add_failure(f);
    a->name = ts__file_strndup(f, (const char *)t->name, (size_t)t->name_len, err);
    if (!a->name)
        return TS_ERR_NOMEM;
    int64_t dims[GG_MAX_DIMS];
    int n = (int)t->n_dims;
    for (int d = 0; d < n; d++)
        dims[d] = stored_order ? t->ne[d] : t->ne[n - 1 - d];
    ts_status st = ts_shape_assign(&a->shape, dims, n, err);
    if (st)
        return st;
    if (t->type->dtype == TS_DTYPE_QUANTIZED) {
        a->dtype = TS_DTYPE_QUANTIZED;
        a->dtype_name = t->type->lower;
        a->itemsize = 0;
        a->bits = 0;
        a->block_size = t->type->block_size;
        a->block_bytes = t->type->block_bytes;
        a->byteorder = '<';
    } else {
        ts__array_set_dtype(a, t->type->dtype);
        a->byteorder = a->itemsize == 1 ? '|' : '<';
    }
    a->format_dtype = t->type->name;
    a->data_offset = data_offset;
    return ts__array_compute_sizes(a, err);
}

static ts_status read_gguf(ts_file *f, const unsigned char *data, size_t len,
                           const ts_open_options *opts, ts_error *err)
{
    gg_ctx g;
    memset(&g, 0, sizeof g);
    ts__cursor_init_src(&g.c, data, len, ts__file_source(f), 0);
    g.opts = opts;
    g.alignment = GG_DEFAULT_ALIGNMENT;
    ts__cursor *c = &g.c;
    gg_info *infos = NULL;
    name_ref *names = NULL;
    ts_status st;

    if (len < 4)
        return ts__fail(err, TS_ERR_TRUNCATED, 0, 0,
                        "file is %zu bytes long, too short for the GGUF magic", len);
    if (memcmp(data, "GGUF", 4) != 0)
        return ts__fail(err, TS_ERR_FORMAT, 0, 0,
                        "not a GGUF file: the first 4 bytes are not the magic \"GGUF\"");
    c->pos = 4;
    uint32_t version;
    if ((st = ts__read_u32(c, &version, "the GGUF version", err)))
        return st;
    if (version != 0 && (version & 0xffffu) == 0)
        return ts__fail(err, TS_ERR_UNSUPPORTED, 0, 4,
                        "GGUF version field at byte 4 reads 0x%08lx: this looks like a "
                        "big-endian file (version %lu byte-swapped); only little-endian "
                        "GGUF is supported", (unsigned long)version,
                        (unsigned long)(((version >> 24) & 0xffu) | ((version >> 8) & 0xff00u)));
    if (version == 1)
        return ts__fail(err, TS_ERR_UNSUPPORTED, 0, 4,
                        "GGUF v1 is not supported (it used 32-bit counts; llama.cpp "
                        "dropped it): expected version 2 or 3");
    if (version != 2 && version != 3)
        return ts__fail(err, TS_ERR_UNSUPPORTED, 0, 4,
                        "GGUF version %lu at byte 4 is not supported: expected 2 or 3",
                        (unsigned long)version);
    ts__file_set_version(f, version == 2 ? "2" : "3");

    uint64_t n_tensors, n_kv;
    if ((st = ts__read_u64(c, &n_tensors, "the tensor count", err)) ||
        (st = ts__read_u64(c, &n_kv, "the key/value count", err)))
        return st;
    size_t left = ts__cursor_left(c);
    if (n_kv > left / GG_MIN_KV)
        return ts__fail(err, TS_ERR_TRUNCATED, 0, 16,
                        "header declares %llu key/value pairs (count at byte 16), but "
                        "the %zu bytes left can hold at most %zu (%d bytes each at least)",
                        (unsigned long long)n_kv, left, left / GG_MIN_KV, GG_MIN_KV);
    if (n_tensors > left / GG_MIN_INFO)
        return ts__fail(err, TS_ERR_TRUNCATED, 0, 8,
                        "header declares %llu tensors (count at byte 8), but the %zu "
                        "bytes left can hold at most %zu tensor infos (%d bytes each at "
                        "least)", (unsigned long long)n_tensors, left,
                        left / GG_MIN_INFO, GG_MIN_INFO);
    if (n_tensors > TS__MAX_ARRAYS)
        return ts__fail(err, TS_ERR_LIMIT, 0, 8,
                        "header declares %llu tensors (count at byte 8), more than the %zu "
                        "tshape reads from one file (see LIMITS in tshape(1))",
                        (unsigned long long)n_tensors, TS__MAX_ARRAYS);

    if ((st = read_kvs(&g, n_kv, f, err)))
        goto out;

    /* Pass 1: read and check every tensor info. */
    size_t nt = (size_t)n_tensors;
    infos = ts__scratch_alloc(f, (nt ? nt : 1) * sizeof *infos, err);
    names = infos ? ts__scratch_alloc(f, (nt ? nt : 1) * sizeof *names, err) : NULL;
    if (!names) {
        st = TS_ERR_NOMEM;
        goto out;
    }
    for (size_t i = 0; i < nt; i++) {
        names[i].p = c->data + c->pos;
        if ((st = read_info(c, i, &infos[i], err))) {
            ts__error_index(err, st, (int64_t)i);
            goto out;
        }
    }
    if ((st = check_unique(names, nt, data, "tensor name", err)))
        goto out;

    /* Pass 2: the data section starts at the next multiple of the
     * alignment; each tensor must start where the previous one ends, padded
     * (gguf.cpp), and end inside the file. */
    int64_t align = g.alignment;
    int64_t start = nt ? ((int64_t)c->pos + align - 1) / align * align : (int64_t)c->pos;
    int64_t expect = 0;
    for (size_t i = 0; i < nt; i++) {
        const gg_info *t = &infos[i];
        char nb[NAME_BUF], pb[NAME_BUF];
        const char *tname = gg_printable(t->name, (size_t)t->name_len, nb, sizeof nb);
        int64_t nbytes = t->nbytes, end, padded;
        if (t->offset % (uint64_t)align != 0) {
            st = ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)t->offset_pos,
                          "tensor %zu '%s': data offset %llu at byte %zu is not a "
                          "multiple of the alignment %lld", i, tname,
                          (unsigned long long)t->offset, t->offset_pos, (long long)align);
            ts__error_index(err, st, (int64_t)i);
            goto out;
        }
        if (t->offset != (uint64_t)expect) {
            if (i == 0)
                st = ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)t->offset_pos,
                              "tensor 0 '%s': data offset %llu at byte %zu, expected 0: "
                              "ggml requires the first tensor to start the data section",
                              tname, (unsigned long long)t->offset, t->offset_pos);
            else
                st = ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)t->offset_pos,
                              "tensor %zu '%s': data offset %llu at byte %zu, expected "
                              "%lld: ggml requires each tensor to start where tensor "
                              "%zu '%s' ends, padded to %lld bytes (%s)", i, tname,
                              (unsigned long long)t->offset, t->offset_pos,
                              (long long)expect, i - 1,
                              gg_printable(infos[i - 1].name, (size_t)infos[i - 1].name_len,
                                       pb, sizeof pb),
                              (long long)align,
                              t->offset < (uint64_t)expect ? "the tensors overlap"
                                                           : "there is a gap");
            ts__error_index(err, st, (int64_t)i);
            goto out;
        }
        if (ts__add_overflow(start, expect, &end) ||
            ts__add_overflow(end, nbytes, &end) || end > (int64_t)len) {
            int64_t at = start + expect;
            st = ts__fail(err, TS_ERR_TRUNCATED, 0, (int64_t)len,
                          "tensor %zu '%s': %lld data bytes at file byte %lld run past "
                          "the end of the file (%zu bytes, %lld missing)", i, tname,
                          (long long)nbytes, (long long)at, len,
                          (long long)(at - (int64_t)len + nbytes));
            ts__error_index(err, st, (int64_t)i);
            goto out;
        }
        if ((st = add_array(f, t, start + expect, opts->gguf_stored_order, err))) {
            ts__error_entry(err, (int64_t)i, "tensor %zu '%s'", i, tname);
            goto out;
        }
        /* end <= len, so these cannot overflow. */
        padded = (nbytes + align - 1) / align * align;
        expect += padded;
    }
    /* The data section, its last tensor padded (gguf.cpp and gguf-py write
     * the padding; a file without it is accepted above). */
    ts__file_set_extent(f, nt ? start + expect : ((int64_t)c->pos + align - 1) / align * align);
    st = TS_OK;
out:
    /* infos, names and the metadata text are scratch memory: the file
     * frees them when the reader returns. */
    return st;
}

const ts__reader ts__reader_gguf = {
    {TS_FORMAT_GGUF, "gguf", ".gguf", "magic GGUF",
     "llama.cpp GGUF v2/v3 (metadata, quantized types)", "ggml type", 0},
    probe_gguf,
    read_gguf,
    0,
};
