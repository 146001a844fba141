/*
 * safetensors.c - reader for Hugging Face safetensors files.
 *
 * Layout (huggingface/safetensors README "Format"): u64 LE header length N,
 * N bytes of UTF-8 JSON object, then the byte buffer. Each header entry is
 * {"dtype": "F16", "shape": [..], "data_offsets": [BEGIN, END]} with offsets
 * relative to the buffer; "__metadata__" maps strings to strings.
 *
 * Validation follows the reference reader (safetensors/src/tensor.rs,
 * read_metadata + Metadata::validate) and is stricter where it is silent:
 *   - N <= 100,000,000 and 8 + N <= file size, checked before parsing;
 *   - duplicate JSON keys are an error (the reference keeps the last one);
 *   - "shape" is an array of non-negative integers, "data_offsets" exactly
 *     two non-negative integers with BEGIN <= END; a missing field is an
 *     error, unknown fields inside an entry are ignored (as the reference);
 *   - nbits = size x bits must be a multiple of 8 and END - BEGIN == nbits/8;
 *   - sorted by offsets, the tensors cover the buffer exactly: the first
 *     BEGIN is 0, each BEGIN is the previous END, the last END is the buffer
 *     length (no holes, no overlaps, no trailing and no missing bytes).
 * Arrays are reported in the order their keys appear in the header.
 */
#include "reader.h"

#include <jansson.h>
#include <stdlib.h>

/* MAX_HEADER_SIZE of safetensors/src/tensor.rs. */
#define ST_MAX_HEADER 100000000u

/* Field positions are unknown when the scanner did not find them. */
#define ST_NOPOS ((size_t)-1)

/* Byte offsets, in the header text, of one top-level entry's key and of the
 * values of its known fields. Only used to make messages point somewhere. */
typedef struct st_pos {
    size_t key, dtype, shape, offsets;
} st_pos;

/* One tensor entry, kept for the contiguity check. */
typedef struct st_tensor {
    const char *name;        /* jansson's key, valid while the root lives */
    int64_t begin, end;      /* data_offsets, relative to the buffer */
    size_t order;            /* position among the entries: sort tie-break */
} st_tensor;

typedef struct st_dtype {
    const char *name;
    ts_dtype dtype;
} st_dtype;

/* enum Dtype of tensor.rs, in its order; the mapping to tshape names follows
 * the ml_dtypes spelling (F8_E4M3 is e4m3fn, F4 is e2m1fn). */
static const st_dtype st_dtypes[] = {
    {"BOOL", TS_DTYPE_BOOL},
    {"F4", TS_DTYPE_FLOAT4_E2M1FN},
    {"F6_E2M3", TS_DTYPE_FLOAT6_E2M3FN},
    {"F6_E3M2", TS_DTYPE_FLOAT6_E3M2FN},
    {"U8", TS_DTYPE_UINT8},
    {"I8", TS_DTYPE_INT8},
    {"F8_E5M2", TS_DTYPE_FLOAT8_E5M2},
    {"F8_E4M3", TS_DTYPE_FLOAT8_E4M3FN},
    {"F8_E8M0", TS_DTYPE_FLOAT8_E8M0FNU},
    {"F8_E4M3FNUZ", TS_DTYPE_FLOAT8_E4M3FNUZ},
    {"F8_E5M2FNUZ", TS_DTYPE_FLOAT8_E5M2FNUZ},
    {"I16", TS_DTYPE_INT16},
    {"U16", TS_DTYPE_UINT16},
    {"F16", TS_DTYPE_FLOAT16},
    {"BF16", TS_DTYPE_BFLOAT16},
    {"I32", TS_DTYPE_INT32},
    {"U32", TS_DTYPE_UINT32},
    {"F32", TS_DTYPE_FLOAT32},
    {"C64", TS_DTYPE_COMPLEX64},
    {"F64", TS_DTYPE_FLOAT64},
    {"I64", TS_DTYPE_INT64},
    {"U64", TS_DTYPE_UINT64},
};

static int is_json_ws(unsigned char c)
{
    return ts__is_ws((char)c, TS__WS_TEXT);
}

/*
 * Cheap and strict: a plausible header length (2 .. 2^40: the smallest
 * header is "{}"; lengths past the 100,000,000-byte limit are recognised
 * so that the reader names the limit) followed by '{' (after optional
 * whitespace) and then '"' or '}'. The header need not be complete, so a
 * truncated file is still recognised and reported as truncated.
 */
static int probe_safetensors(const unsigned char *data, size_t len)
{
    if (len < 9)
        return 0;
    uint64_t n = ts__le64(data);
    if (n < 2 || n > ((uint64_t)1 << 40))
        return 0;
    size_t end = (uint64_t)(len - 8) < n ? len : (size_t)(8 + n);
    size_t i = 8;
    while (i < end && is_json_ws(data[i]))
        i++;
    if (i >= end || data[i] != '{')
        return 0;
    for (i++; i < end && is_json_ws(data[i]); i++)
        ;
    return i >= end || data[i] == '"' || data[i] == '}';
}

#define NAME_BUF 400

/* jansson's error text can quote raw input; keep the message one line. */
static const char *clean_text(const char *s, char *buf, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; s[i] && o + 1 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        buf[o++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
    }
    buf[o] = '\0';
    return buf;
}

static const char *json_kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real number";
    case JSON_TRUE: return "true";
    case JSON_FALSE: return "false";
    case JSON_NULL: return "null";
    }
    return "an unknown JSON value";
}

/* ---- a scanner for positions, run only on text jansson accepted ---- */

static size_t skip_ws(const char *s, size_t i, size_t n)
{
    return ts__skip_ws(s, n, i, TS__WS_TEXT);
}

static size_t skip_string(const char *s, size_t i, size_t n)
{
    for (i++; i < n; i++) {
        if (s[i] == '\\')
            i++;
        else if (s[i] == '"')
            return i + 1;
    }
    return n;
}

static size_t skip_value(const char *s, size_t i, size_t n)
{
    if (i >= n)
        return n;
    if (s[i] == '"')
        return skip_string(s, i, n);
    if (s[i] == '{' || s[i] == '[') {
        size_t depth = 0;
        while (i < n) {
            char c = s[i];
            if (c == '"') {
                i = skip_string(s, i, n);
                continue;
            }
            if (c == '{' || c == '[') {
                depth++;
            } else if (c == '}' || c == ']') {
                if (--depth == 0)
                    return i + 1;
            }
            i++;
        }
        return n;
    }
    while (i < n && s[i] != ',' && s[i] != '}' && s[i] != ']' &&
           !is_json_ws((unsigned char)s[i]))
        i++;
    return i;
}

/* Fills pos[0..count) with the positions of the top-level entries, in text
 * order (which is jansson's iteration order). Stops quietly on anything
 * unexpected: positions only improve messages. */
static void scan_positions(const char *s, size_t n, st_pos *pos, size_t count)
{
    for (size_t k = 0; k < count; k++)
        pos[k].key = pos[k].dtype = pos[k].shape = pos[k].offsets = ST_NOPOS;
    size_t i = skip_ws(s, 0, n);
    if (i >= n || s[i] != '{')
        return;
    i++;
    for (size_t k = 0; k < count; k++) {
        i = skip_ws(s, i, n);
        if (i >= n || s[i] != '"')
            return;
        pos[k].key = i;
        i = skip_ws(s, skip_string(s, i, n), n);
        if (i >= n || s[i] != ':')
            return;
        i = skip_ws(s, i + 1, n);
        if (i < n && s[i] == '{') {
            size_t j = i + 1;
            for (;;) {
                j = skip_ws(s, j, n);
                if (j >= n || s[j] != '"')
                    break;
                size_t ks = j;
                j = skip_string(s, j, n);
                size_t kl = j - ks;
                j = skip_ws(s, j, n);
                if (j >= n || s[j] != ':')
                    break;
                j = skip_ws(s, j + 1, n);
                if (kl == 7 && memcmp(s + ks, "\"dtype\"", 7) == 0)
                    pos[k].dtype = j;
                else if (kl == 7 && memcmp(s + ks, "\"shape\"", 7) == 0)
                    pos[k].shape = j;
                else if (kl == 14 && memcmp(s + ks, "\"data_offsets\"", 14) == 0)
                    pos[k].offsets = j;
                j = skip_ws(s, skip_value(s, j, n), n);
                if (j >= n || s[j] != ',')
                    break;
                j++;
            }
        }
        i = skip_ws(s, skip_value(s, i, n), n);
        if (i >= n || s[i] != ',')
            return;
        i++;
    }
}

/* ---- validation of one entry ---- */

/* File offset of a header position, or of the entry's key as a fallback. */
static int64_t file_pos(size_t field, size_t key)
{
    size_t p = field != ST_NOPOS ? field : key;
    return p == ST_NOPOS ? 8 : (int64_t)p + 8;
}

/* Reads a JSON value that must be a non-negative integer. */
static int get_nonneg(const json_t *v, int64_t *out)
{
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return 0;
    *out = (int64_t)json_integer_value(v);
    return 1;
}

static ts_status bad_nonneg(ts_error *err, const char *tname, const char *field,
                            size_t index, const json_t *v, int64_t at)
{
    if (json_is_integer(v))
        return ts__fail(err, TS_ERR_VALUE, 0, at,
                        "tensor '%s': %s[%zu] at byte %lld is %lld, expected a "
                        "non-negative integer", tname, field, index, (long long)at,
                        (long long)json_integer_value(v));
    return ts__fail(err, TS_ERR_FORMAT, 0, at,
                    "tensor '%s': %s[%zu] at byte %lld is %s, expected a "
                    "non-negative integer", tname, field, index, (long long)at,
                    json_kind(v));
}

static ts_status missing_field(ts_error *err, const char *tname, const char *field,
                               int64_t at)
{
    return ts__fail(err, TS_ERR_FORMAT, 0, at,
                    "tensor '%s' at byte %lld: missing \"%s\" (each tensor needs "
                    "\"dtype\", \"shape\" and \"data_offsets\")",
                    tname, (long long)at, field);
}

/*
 * Checks one tensor entry and appends its array. `data_start` is 8 + N, the
 * file offset of the byte buffer.
 */
static ts_status read_entry(ts_file *f, const char *key, const json_t *v,
                            const st_pos *pos, int64_t data_start, st_tensor *t,
                            ts_error *err)
{
    char nb[NAME_BUF];
    const char *tname = ts__printable_str(key, nb, sizeof nb);
    int64_t at_key = file_pos(ST_NOPOS, pos->key);
    if (!json_is_object(v))
        return ts__fail(err, TS_ERR_FORMAT, 0, at_key,
                        "tensor '%s' at byte %lld: entry is %s, expected an object "
                        "with \"dtype\", \"shape\" and \"data_offsets\"",
                        tname, (long long)at_key, json_kind(v));

    /* dtype */
    const json_t *jd = json_object_get(v, "dtype");
    if (!jd)
        return missing_field(err, tname, "dtype", at_key);
    int64_t at = file_pos(pos->dtype, pos->key);
    if (!json_is_string(jd))
        return ts__fail(err, TS_ERR_FORMAT, 0, at,
                        "tensor '%s': dtype at byte %lld is %s, expected a string "
                        "such as \"F32\"", tname, (long long)at, json_kind(jd));
    const st_dtype *sd = NULL;
    const char *dname = json_string_value(jd);
    for (size_t i = 0; i < sizeof st_dtypes / sizeof *st_dtypes; i++)
        if (strcmp(dname, st_dtypes[i].name) == 0)
            sd = &st_dtypes[i];
    if (!sd) {
        char vb[NAME_BUF];
        return ts__fail(err, TS_ERR_DTYPE, 0, at,
                        "tensor '%s': unknown dtype \"%s\" at byte %lld (safetensors "
                        "dtypes: BOOL U8 I8 I16 U16 I32 U32 I64 U64 F16 BF16 F32 F64 "
                        "C64 F8_E5M2 F8_E4M3 F8_E4M3FNUZ F8_E5M2FNUZ F8_E8M0 F6_E2M3 "
                        "F6_E3M2 F4)", tname,
                        ts__printable_str(dname, vb, sizeof vb),
                        (long long)at);
    }

    /* shape */
    const json_t *js = json_object_get(v, "shape");
    if (!js)
        return missing_field(err, tname, "shape", at_key);
    at = file_pos(pos->shape, pos->key);
    if (!json_is_array(js))
        return ts__fail(err, TS_ERR_FORMAT, 0, at,
                        "tensor '%s': shape at byte %lld is %s, expected an array "
                        "of non-negative integers", tname, (long long)at, json_kind(js));
    size_t ndim = json_array_size(js);
    if (ndim > TS_MAX_NDIM)
        return ts__fail(err, TS_ERR_NDIM, 0, at,
                        "tensor '%s': shape at byte %lld has %zu dimensions, more "
                        "than the %d tshape supports", tname, (long long)at, ndim,
                        TS_MAX_NDIM);
    int64_t dims[TS_MAX_NDIM];
    for (size_t i = 0; i < ndim; i++)
        if (!get_nonneg(json_array_get(js, i), &dims[i]))
            return bad_nonneg(err, tname, "shape", i, json_array_get(js, i), at);

    /* data_offsets */
    const json_t *jo = json_object_get(v, "data_offsets");
    if (!jo)
        return missing_field(err, tname, "data_offsets", at_key);
    at = file_pos(pos->offsets, pos->key);
    if (!json_is_array(jo))
        return ts__fail(err, TS_ERR_FORMAT, 0, at,
                        "tensor '%s': data_offsets at byte %lld is %s, expected "
                        "[BEGIN, END]", tname, (long long)at, json_kind(jo));
    if (json_array_size(jo) != 2)
        return ts__fail(err, TS_ERR_FORMAT, 0, at,
                        "tensor '%s': data_offsets at byte %lld has %zu element%s, "
                        "expected 2: [BEGIN, END]", tname, (long long)at,
                        json_array_size(jo), json_array_size(jo) == 1 ? "" : "s");
    for (size_t i = 0; i < 2; i++)
        if (!get_nonneg(json_array_get(jo, i), i ? &t->end : &t->begin))
            return bad_nonneg(err, tname, "data_offsets", i, json_array_get(jo, i), at);
    if (t->end < t->begin)
        return ts__fail(err, TS_ERR_FORMAT, 0, at,
                        "tensor '%s': data_offsets [%lld, %lld] at byte %lld end "
                        "before they begin", tname, (long long)t->begin,
                        (long long)t->end, (long long)at);

    /* sizes: nbits = size x bits must be whole bytes, equal to END - BEGIN */
    int64_t size, nbits;
    char sb[TS__SHAPE_STR_MAX];
    ts_status st = ts__dims_size(dims, (int)ndim, &size, err);
    if (st) {
        ts__error_prefix(err, "tensor '%s': shape at byte %lld", tname, (long long)at);
        if (err)
            err->offset = file_pos(pos->shape, pos->key);
        return st;
    }
    int bits = ts_dtype_bits(sd->dtype);
    if (ts__mul_overflow(size, bits, &nbits))
        return ts__fail(err, TS_ERR_OVERFLOW, 0, file_pos(pos->shape, pos->key),
                        "tensor '%s': shape %s x %s at byte %lld is more than 2^63 "
                        "bits", tname, ts__dims_str(dims, (int)ndim, sb, sizeof sb),
                        sd->name, (long long)file_pos(pos->shape, pos->key));
    if (nbits % 8 != 0)
        return ts__fail(err, TS_ERR_FORMAT, 0, file_pos(pos->shape, pos->key),
                        "tensor '%s': shape %s x %s (%d bits each) at byte %lld is "
                        "%lld bits, not a whole number of bytes", tname,
                        ts__dims_str(dims, (int)ndim, sb, sizeof sb), sd->name, bits,
                        (long long)file_pos(pos->shape, pos->key), (long long)nbits);
    if (t->end - t->begin != nbits / 8)
        return ts__fail(err, TS_ERR_FORMAT, 0, at,
                        "tensor '%s': data_offsets [%lld, %lld] at byte %lld span "
                        "%lld bytes, but shape %s x %s is %lld bytes", tname,
                        (long long)t->begin, (long long)t->end, (long long)at,
                        (long long)(t->end - t->begin),
                        ts__dims_str(dims, (int)ndim, sb, sizeof sb), sd->name,
                        (long long)(nbits / 8));

    ts_array *a = ts__file_add_array(f, err);
    if (!a)
        return TS_ERR_NOMEM;
    a->name = ts__file_strndup(f, key, strlen(key), err);
    if (!a->name)
        return TS_ERR_NOMEM;
    st = ts_shape_assign(&a->shape, dims, (int)ndim, err);
    if (st)
        return st;
    ts__array_set_dtype(a, sd->dtype);
    a->format_dtype = sd->name;
    a->byteorder = bits <= 8 ? '|' : '<';
    st = ts__array_compute_sizes(a, err);
    if (st)
        return st;
    /* The contiguity check later bounds END by the buffer; until then keep
     * the sum from overflowing. */
    if (ts__add_overflow(data_start, t->begin, &a->data_offset))
        return ts__fail(err, TS_ERR_OVERFLOW, 0, at,
                        "tensor '%s': data_offsets [%lld, %lld] at byte %lld lie "
                        "beyond any possible file", tname, (long long)t->begin,
                        (long long)t->end, (long long)at);
    t->name = key;
    return TS_OK;
}

static ts_status read_metadata(ts_file *f, json_t *v, int64_t at, int want,
                               ts_error *err)
{
    /* The reference reader's field is Option<HashMap>: null is no metadata. */
    if (json_is_null(v))
        return TS_OK;
    if (!json_is_object(v))
        return ts__fail(err, TS_ERR_FORMAT, 0, at,
                        "__metadata__ at byte %lld is %s, expected an object mapping "
                        "strings to strings", (long long)at, json_kind(v));
    const char *key;
    json_t *val;
    json_object_foreach(v, key, val) {
        char nb[NAME_BUF];
        if (!json_is_string(val))
            return ts__fail(err, TS_ERR_FORMAT, 0, at,
                            "__metadata__ at byte %lld: value of '%s' is %s, expected "
                            "a string (safetensors metadata maps strings to strings)",
                            (long long)at, ts__printable_str(key, nb, sizeof nb), json_kind(val));
        if (!want)
            continue;
        char *text = json_dumps(val, JSON_ENCODE_ANY);
        if (!text)
            return ts__error(err, TS_ERR_NOMEM, "out of memory encoding metadata");
        ts_status st = ts__file_add_metadata(f, key, strlen(key), text, strlen(text), err);
        free(text);
        if (st)
            return st;
    }
    return TS_OK;
}

/* ---- the buffer must be covered exactly ---- */

static int cmp_tensor(const void *pa, const void *pb)
{
    const st_tensor *a = pa, *b = pb;
    if (a->begin != b->begin)
        return a->begin < b->begin ? -1 : 1;
    if (a->end != b->end)
        return a->end < b->end ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

static int64_t abs_pos(int64_t start, int64_t rel)
{
    int64_t r;
    return ts__add_overflow(start, rel, &r) ? -1 : r;
}

static ts_status check_cover(st_tensor *t, size_t n, int64_t data_start,
                             int64_t buffer_len, int64_t file_len, ts_error *err)
{
    qsort(t, n, sizeof *t, cmp_tensor);
    char na[NAME_BUF], nb[NAME_BUF];
    int64_t prev_end = 0;
    const st_tensor *prev = NULL;
    for (size_t i = 0; i < n; i++) {
        if (t[i].begin > prev_end) {
            if (!prev)
                return ts__fail(err, TS_ERR_FORMAT, 0, data_start,
                                "hole in the data buffer: bytes [0, %lld) belong to no "
                                "tensor (the first tensor '%s' has data_offsets "
                                "[%lld, %lld]; the buffer starts at byte %lld)",
                                (long long)t[i].begin, ts__printable_str(t[i].name, na, sizeof na),
                                (long long)t[i].begin, (long long)t[i].end,
                                (long long)data_start);
            return ts__fail(err, TS_ERR_FORMAT, 0, abs_pos(data_start, prev_end),
                            "hole in the data buffer: bytes [%lld, %lld) belong to no "
                            "tensor, between '%s' data_offsets [%lld, %lld] and '%s' "
                            "data_offsets [%lld, %lld]", (long long)prev_end,
                            (long long)t[i].begin, ts__printable_str(prev->name, na, sizeof na),
                            (long long)prev->begin, (long long)prev->end,
                            ts__printable_str(t[i].name, nb, sizeof nb), (long long)t[i].begin,
                            (long long)t[i].end);
        }
        if (t[i].begin < prev_end)
            return ts__fail(err, TS_ERR_FORMAT, 0, abs_pos(data_start, t[i].begin),
                            "tensors '%s' data_offsets [%lld, %lld] and '%s' "
                            "data_offsets [%lld, %lld] overlap: the second begins "
                            "before the first ends",
                            ts__printable_str(prev->name, na, sizeof na), (long long)prev->begin,
                            (long long)prev->end, ts__printable_str(t[i].name, nb, sizeof nb),
                            (long long)t[i].begin, (long long)t[i].end);
        prev_end = t[i].end;
        prev = &t[i];
    }
    if (prev_end < buffer_len) {
        int64_t extra = buffer_len - prev_end;
        return ts__fail(err, TS_ERR_FORMAT, 0, data_start + prev_end,
                        "%lld trailing byte%s after the last tensor: the data buffer "
                        "is %lld bytes (file bytes %lld..%lld) but the tensors cover "
                        "%lld", (long long)extra, extra == 1 ? "" : "s",
                        (long long)buffer_len, (long long)data_start,
                        (long long)(file_len - 1), (long long)prev_end);
    }
    if (prev_end > buffer_len) {
        int64_t need = abs_pos(data_start, prev_end);
        return ts__fail(err, TS_ERR_TRUNCATED, 0, file_len,
                        "tensor '%s' data_offsets [%lld, %lld] end at file byte %lld, "
                        "but the file has %lld bytes (%lld missing)",
                        ts__printable_str(prev->name, na, sizeof na), (long long)prev->begin,
                        (long long)prev->end, (long long)need, (long long)file_len,
                        (long long)(prev_end - buffer_len));
    }
    return TS_OK;
}

/* ---- the reader ---- */

static ts_status json_failure(const json_error_t *jerr, size_t hlen, ts_error *err)
{
    char tb[JSON_ERROR_TEXT_LENGTH + 1];
    int64_t at = 8 + (int64_t)(jerr->position > 0 ? jerr->position : 0);
    clean_text(jerr->text, tb, sizeof tb);
    if (hlen == 0)
        return ts__fail(err, TS_ERR_FORMAT, 0, 8,
                        "header length is 0: the header must be a JSON object");
    switch (json_error_code(jerr)) {
    case json_error_duplicate_key:
        return ts__fail(err, TS_ERR_FORMAT, 0, at,
                        "duplicate key in the header at byte %lld: %s (safetensors "
                        "forbids duplicates; the reference reader would silently keep "
                        "the last)", (long long)at, tb);
    case json_error_invalid_utf8:
        return ts__fail(err, TS_ERR_FORMAT, 0, at,
                        "header is not valid UTF-8 at byte %lld: %s", (long long)at, tb);
    case json_error_numeric_overflow:
        return ts__fail(err, TS_ERR_OVERFLOW, 0, at,
                        "number in the header at byte %lld does not fit in int64: %s",
                        (long long)at, tb);
    case json_error_out_of_memory:
        return ts__error(err, TS_ERR_NOMEM, "out of memory parsing the JSON header");
    case json_error_unknown:
    case json_error_premature_end_of_input:
    case json_error_cannot_open_file:
    case json_error_invalid_argument:
    case json_error_end_of_input_expected:
    case json_error_invalid_syntax:
    case json_error_invalid_format:
    case json_error_wrong_type:
    case json_error_null_character:
    case json_error_null_value:
    case json_error_null_byte_in_key:
    case json_error_item_not_found:
    case json_error_index_out_of_range:
    case json_error_stack_overflow:
        break;
    }
    return ts__fail(err, TS_ERR_FORMAT, 0, at,
                    "header is not valid JSON at byte %lld: %s", (long long)at, tb);
}

static ts_status read_safetensors(ts_file *f, const unsigned char *data, size_t len,
                                  const ts_open_options *opts, ts_error *err)
{
    if (len < 8)
        return ts__fail(err, TS_ERR_TRUNCATED, 0, 0,
                        "file is %zu bytes long, too short for the 8-byte header "
                        "length of a safetensors file", len);
    uint64_t n = ts__le64(data);
    if (n > ST_MAX_HEADER)
        return ts__fail(err, TS_ERR_LIMIT, 0, 0,
                        "header length %llu at byte 0 exceeds the limit of %u bytes "
                        "(the reference reader's MAX_HEADER_SIZE)",
                        (unsigned long long)n, ST_MAX_HEADER);
    if (n > len - 8)
        return ts__fail(err, TS_ERR_TRUNCATED, 0, 0,
                        "header length %llu at byte 0 runs past the end of the file: "
                        "the header would end at byte %llu, the file has %zu bytes",
                        (unsigned long long)n, (unsigned long long)n + 8, len);
    const char *hdr = (const char *)data + 8;
    size_t hlen = (size_t)n;
    const char *nul = memchr(hdr, '\0', hlen);
    if (nul)
        return ts__fail(err, TS_ERR_FORMAT, 0, 8 + (int64_t)(nul - hdr),
                        "header has a NUL byte at byte %lld: JSON text cannot contain "
                        "NUL (padding must be spaces)", 8 + (long long)(nul - hdr));

    json_error_t jerr;
    json_t *root = json_loadb(hdr, hlen, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
    if (!root)
        return json_failure(&jerr, hlen, err);
    ts_status st = TS_OK;
    st_pos *pos = NULL;
    st_tensor *tensors = NULL;
    if (!json_is_object(root)) {
        st = ts__fail(err, TS_ERR_FORMAT, 0, 8,
                      "header is %s, expected a JSON object of tensors",
                      json_kind(root));
        goto out;
    }
    size_t count = json_object_size(root);
    pos = ts__scratch_alloc(f, (count ? count : 1) * sizeof *pos, err);
    tensors = pos ? ts__scratch_alloc(f, (count ? count : 1) * sizeof *tensors, err) : NULL;
    if (!tensors) {
        st = TS_ERR_NOMEM;
        goto out;
    }
    scan_positions(hdr, hlen, pos, count);

    int64_t data_start = 8 + (int64_t)n;
    size_t k = 0, nt = 0;
    const char *key;
    json_t *val;
    json_object_foreach(root, key, val) {
        if (strcmp(key, "__metadata__") == 0) {
            st = read_metadata(f, val, file_pos(ST_NOPOS, pos[k].key),
                               opts->want_metadata, err);
        } else {
            tensors[nt].order = nt;
            st = read_entry(f, key, val, &pos[k], data_start, &tensors[nt], err);
            nt++;
        }
        if (st) {
            ts__error_index(err, st, (int64_t)k); /* the entry's place in the header */
            goto out;
        }
        k++;
    }
    st = check_cover(tensors, nt, data_start, (int64_t)len - data_start, (int64_t)len, err);
    if (!st)
        ts__file_set_version(f, "");
out:
    ts__scratch_free(f, pos);
    ts__scratch_free(f, tensors);
    json_decref(root);
    return st;
}

const ts__reader ts__reader_safetensors = {
    {TS_FORMAT_SAFETENSORS, "safetensors", ".safetensors", "u64 header length then {",
     "Hugging Face safetensors", "dtype"},
    probe_safetensors,
    read_safetensors,
};
