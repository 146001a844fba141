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

#include "../core/json.h"
#include <stdlib.h>

/* MAX_HEADER_SIZE of safetensors/src/tensor.rs. */
#define ST_MAX_HEADER 100000000u

/* A long header's text is released from memory in steps of this many
 * bytes once read (ts__file_release). */
#define ST_RELEASE_STEP ((size_t)8 << 20)

/* Field positions are unknown when the scanner did not find them. */
#define ST_NOPOS ((size_t)-1)

/* One tensor entry, kept for the contiguity check. */
typedef struct st_tensor {
    const char *name;        /* the array's name, a string of the file */
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
/* The first byte at or after i of data[0..end) that is not JSON
 * whitespace (end if none), asking the source for each 64 KiB it crosses
 * (the probe has the first 64 KiB); SIZE_MAX when a fetch fails. */
static size_t skip_ws_probe(const unsigned char *data, size_t i, size_t end, ts__source *src)
{
    const size_t step = 64 * 1024;
    while (i < end) {
        if (i % step == 0 && !ts__probe_need(src, i, step))
            return SIZE_MAX;
        if (!is_json_ws(data[i]))
            break;
        i++;
    }
    return i;
}

int ts__probe_safetensors(const unsigned char *data, size_t len, ts__source *src)
{
    if (len < 9)
        return 0;
    uint64_t n = ts__le64(data);
    if (n < 2 || n > ((uint64_t)1 << 40))
        return 0;
    size_t end = (uint64_t)(len - 8) < n ? len : (size_t)(8 + n);
    size_t i = skip_ws_probe(data, 8, end, src);
    if (i == SIZE_MAX || i >= end || data[i] != '{')
        return 0;
    i = skip_ws_probe(data, i + 1, end, src);
    return i != SIZE_MAX && (i >= end || data[i] == '"' || data[i] == '}');
}

#define NAME_BUF 400

/* ---- scanning and checking one entry ---- */

/* Everything read from one entry's object, checked afterwards in the order
 * dtype, shape, data_offsets (so messages do not depend on the key order).
 * Positions are offsets in the header; ST_NOPOS when the field is absent. */
typedef struct st_entry {
    size_t key;                       /* the key's opening quote */
    size_t dtype_at, shape_at, offsets_at;
    ts__json_kind dtype_kind, shape_kind, offsets_kind;
    char dtype[40];                   /* decoded, cut at 39 bytes */
    size_t dtype_len;
    size_t ndim;                      /* shape elements */
    int64_t dims[TS_MAX_NDIM];
    size_t shape_bad;                 /* first element that is not a
                                         non-negative integer, or ST_NOPOS */
    ts__json_kind shape_bad_kind;
    int64_t shape_bad_value;
    size_t noffsets;
    int64_t offsets[2];
    size_t offsets_bad;
    ts__json_kind offsets_bad_kind;
    int64_t offsets_bad_value;
} st_entry;

/* File offset of a header position. */
static int64_t file_pos(size_t p)
{
    return p == ST_NOPOS ? 8 : (int64_t)p + 8;
}

/* Scans an array of integers: up to `cap` values into v, the count into
 * *count, the first element that is not a non-negative integer into *bad.
 * Returns 0 or -1 (JSON error). */
static int scan_ints(ts__json *j, int64_t *v, size_t cap, size_t *count, size_t *bad,
                     ts__json_kind *bad_kind, int64_t *bad_value)
{
    size_t k = 0;
    int r;
    *bad = ST_NOPOS;
    if (ts__json_array_open(j) != 0)
        return -1;
    while ((r = ts__json_array_next(j, &k)) == 1) {
        ts__json_kind kind = ts__json_peek(j);
        int64_t x = -1;
        if (kind == TS__JSON_INTEGER) {
            if (ts__json_integer(j, &x) != 0)
                return -1;
        } else if (ts__json_skip(j) != 0) {
            return -1;
        }
        if (x >= 0 && k - 1 < cap)
            v[k - 1] = x;
        if (x < 0 && *bad == ST_NOPOS) {
            *bad = k - 1;
            *bad_kind = kind;
            *bad_value = x;
        }
    }
    *count = k;
    return r;
}

/* Scans the entry object at the position (already known to be an object)
 * into *e. Returns 0 or -1 (JSON error). */
static int scan_entry(ts__json *j, st_entry *e)
{
    ts__json_keys other = {NULL, 0, 0};
    ts__json_str key;
    size_t count = 0;
    int r;
    int seen_dtype = 0, seen_shape = 0, seen_offsets = 0;
    if (ts__json_object_open(j) != 0)
        return -1;
    while ((r = ts__json_object_next(j, &count, &key)) == 1) {
        char name[16];
        size_t pos = key.at + 1;
        size_t kl = key.len <= sizeof name ? ts__json_decode_part(j->s, &key, &pos, name, sizeof name)
                                           : 0;
        int *seen = NULL;
        if (kl == 5 && memcmp(name, "dtype", 5) == 0)
            seen = &seen_dtype;
        else if (kl == 5 && memcmp(name, "shape", 5) == 0)
            seen = &seen_shape;
        else if (kl == 12 && memcmp(name, "data_offsets", 12) == 0)
            seen = &seen_offsets;
        if (!seen) {
            if (ts__json_keys_add(j, &other, &key) != 0 || ts__json_skip(j) != 0) {
                r = -1;
                break;
            }
            continue;
        }
        if (*seen) {
            r = ts__json_fail(j, TS__JSON_EDUPLICATE, key.at, key.end, "duplicate object key");
            break;
        }
        *seen = 1;
        ts__json_kind kind = ts__json_peek(j);
        size_t at = j->i;
        if (kind == TS__JSON_BAD) {
            r = -1;
            break;
        }
        if (seen == &seen_dtype) {
            e->dtype_at = at;
            e->dtype_kind = kind;
            if (kind == TS__JSON_STRING) {
                ts__json_str v;
                if (ts__json_string(j, &v) != 0) {
                    r = -1;
                    break;
                }
                size_t p = v.at + 1;
                e->dtype_len = ts__json_decode_part(j->s, &v, &p, e->dtype, sizeof e->dtype - 1);
                e->dtype[e->dtype_len] = '\0';
                if (v.len > e->dtype_len)
                    e->dtype_len = sizeof e->dtype; /* too long for any dtype */
                continue;
            }
        } else if (seen == &seen_shape) {
            e->shape_at = at;
            e->shape_kind = kind;
            if (kind == TS__JSON_ARRAY) {
                if (scan_ints(j, e->dims, TS_MAX_NDIM, &e->ndim, &e->shape_bad,
                              &e->shape_bad_kind, &e->shape_bad_value) != 0) {
                    r = -1;
                    break;
                }
                continue;
            }
        } else {
            e->offsets_at = at;
            e->offsets_kind = kind;
            if (kind == TS__JSON_ARRAY) {
                if (scan_ints(j, e->offsets, 2, &e->noffsets, &e->offsets_bad,
                              &e->offsets_bad_kind, &e->offsets_bad_value) != 0) {
                    r = -1;
                    break;
                }
                continue;
            }
        }
        if (ts__json_skip(j) != 0) {
            r = -1;
            break;
        }
    }
    ts__json_keys_free(j, &other);
    if (!seen_dtype)
        e->dtype_at = ST_NOPOS;
    if (!seen_shape)
        e->shape_at = ST_NOPOS;
    if (!seen_offsets)
        e->offsets_at = ST_NOPOS;
    return r;
}

static ts_status bad_nonneg(ts_error *err, const char *tname, const char *field,
                            size_t index, ts__json_kind kind, int64_t value, int64_t at)
{
    if (kind == TS__JSON_INTEGER)
        return ts__fail(err, TS_ERR_VALUE, 0, at,
                        "tensor '%s': %s[%zu] at byte %lld is %lld, expected a "
                        "non-negative integer", tname, field, index, (long long)at,
                        (long long)value);
    return ts__fail(err, TS_ERR_FORMAT, 0, at,
                    "tensor '%s': %s[%zu] at byte %lld is %s, expected a "
                    "non-negative integer", tname, field, index, (long long)at,
                    ts__json_kind_text(kind));
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
 * Checks one scanned tensor entry and appends its array named `name` (a
 * string of f). `data_start` is 8 + N, the file offset of the byte buffer.
 */
static ts_status check_entry(ts_file *f, const char *name, const st_entry *e,
                             int64_t data_start, st_tensor *t, ts_error *err)
{
    char nb[NAME_BUF];
    /* The printable name, made only for a message. */
#define tname ts__printable_str(name, nb, sizeof nb)
    int64_t at_key = file_pos(e->key);

    /* dtype */
    if (e->dtype_at == ST_NOPOS)
        return missing_field(err, tname, "dtype", at_key);
    int64_t at = file_pos(e->dtype_at);
    if (e->dtype_kind != TS__JSON_STRING)
        return ts__fail(err, TS_ERR_FORMAT, 0, at,
                        "tensor '%s': dtype at byte %lld is %s, expected a string "
                        "such as \"F32\"", tname, (long long)at,
                        ts__json_kind_text(e->dtype_kind));
    const st_dtype *sd = NULL;
    for (size_t i = 0; i < sizeof st_dtypes / sizeof *st_dtypes && !sd; i++)
        if (e->dtype_len < sizeof e->dtype && strcmp(e->dtype, st_dtypes[i].name) == 0)
            sd = &st_dtypes[i];
    if (!sd) {
        char vb[NAME_BUF];
        ts__printable(e->dtype, strlen(e->dtype), vb, sizeof vb);
        if (e->dtype_len >= sizeof e->dtype && strlen(vb) + 4 < sizeof vb &&
            strcmp(vb + strlen(vb) - 3, "...") != 0)
            strcat(vb, "...");
        return ts__fail(err, TS_ERR_DTYPE, 0, at,
                        "tensor '%s': unknown dtype \"%s\" at byte %lld (safetensors "
                        "dtypes: BOOL U8 I8 I16 U16 I32 U32 I64 U64 F16 BF16 F32 F64 "
                        "C64 F8_E5M2 F8_E4M3 F8_E4M3FNUZ F8_E5M2FNUZ F8_E8M0 F6_E2M3 "
                        "F6_E3M2 F4)", tname, vb, (long long)at);
    }

    /* shape */
    if (e->shape_at == ST_NOPOS)
        return missing_field(err, tname, "shape", at_key);
    at = file_pos(e->shape_at);
    if (e->shape_kind != TS__JSON_ARRAY)
        return ts__fail(err, TS_ERR_FORMAT, 0, at,
                        "tensor '%s': shape at byte %lld is %s, expected an array "
                        "of non-negative integers", tname, (long long)at,
                        ts__json_kind_text(e->shape_kind));
    size_t ndim = e->ndim;
    if (ndim > TS_MAX_NDIM)
        return ts__fail(err, TS_ERR_NDIM, 0, at,
                        "tensor '%s': shape at byte %lld has %zu dimensions, more "
                        "than the %d tshape supports", tname, (long long)at, ndim,
                        TS_MAX_NDIM);
    if (e->shape_bad != ST_NOPOS)
        return bad_nonneg(err, tname, "shape", e->shape_bad, e->shape_bad_kind,
                          e->shape_bad_value, at);
    const int64_t *dims = e->dims;

    /* data_offsets */
    if (e->offsets_at == ST_NOPOS)
        return missing_field(err, tname, "data_offsets", at_key);
    at = file_pos(e->offsets_at);
    if (e->offsets_kind != TS__JSON_ARRAY)
        return ts__fail(err, TS_ERR_FORMAT, 0, at,
                        "tensor '%s': data_offsets at byte %lld is %s, expected "
                        "[BEGIN, END]", tname, (long long)at,
                        ts__json_kind_text(e->offsets_kind));
    if (e->noffsets != 2)
        return ts__fail(err, TS_ERR_FORMAT, 0, at,
                        "tensor '%s': data_offsets at byte %lld has %zu element%s, "
                        "expected 2: [BEGIN, END]", tname, (long long)at,
                        e->noffsets, e->noffsets == 1 ? "" : "s");
    if (e->offsets_bad != ST_NOPOS)
        return bad_nonneg(err, tname, "data_offsets", e->offsets_bad, e->offsets_bad_kind,
                          e->offsets_bad_value, at);
    t->begin = e->offsets[0];
    t->end = e->offsets[1];
    if (t->end < t->begin)
        return ts__fail(err, TS_ERR_FORMAT, 0, at,
                        "tensor '%s': data_offsets [%lld, %lld] at byte %lld end "
                        "before they begin", tname, (long long)t->begin,
                        (long long)t->end, (long long)at);

    /* sizes: nbits = size x bits must be whole bytes, equal to END - BEGIN */
    int64_t size, nbits, at_shape = file_pos(e->shape_at);
    char sb[TS__SHAPE_STR_MAX];
    ts_status st = ts__dims_size(dims, (int)ndim, &size, err);
    if (st) {
        ts__error_prefix(err, "tensor '%s': shape at byte %lld", tname, (long long)at);
        if (err)
            err->offset = at_shape;
        return st;
    }
    int bits = ts_dtype_bits(sd->dtype);
    if (ts__mul_overflow(size, bits, &nbits))
        return ts__fail(err, TS_ERR_OVERFLOW, 0, at_shape,
                        "tensor '%s': shape %s x %s at byte %lld is more than 2^63 "
                        "bits", tname, ts__dims_str(dims, (int)ndim, sb, sizeof sb),
                        sd->name, (long long)at_shape);
    if (nbits % 8 != 0)
        return ts__fail(err, TS_ERR_FORMAT, 0, at_shape,
                        "tensor '%s': shape %s x %s (%d bits each) at byte %lld is "
                        "%lld bits, not a whole number of bytes", tname,
                        ts__dims_str(dims, (int)ndim, sb, sizeof sb), sd->name, bits,
                        (long long)at_shape, (long long)nbits);
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
        return ts__file_add_failure(f);
    a->name = name;
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
    t->name = name;
    return TS_OK;
}
#undef tname

/* Renders a metadata value: the JSON string at file offset `at` (checked
 * when the header was read), re-encoded by the library's escaper. */
static ts_status render_meta(const unsigned char *data, size_t len, uint64_t at,
                             uint32_t kind, ts__source *src, ts__sink *out, ts_error *err)
{
    /* kind: the bytes of the value's JSON text, quotes included */
    ts_status st0 = ts__source_need(src, at, kind, err);
    if (st0)
        return st0;
    ts__json j;
    ts__json_str v;
    ts__json_init(&j, (const char *)data, len, NULL, NULL, NULL);
    j.i = (size_t)at;
    if (ts__json_string(&j, &v) != 0)
        return ts__error(err, TS_ERR_FORMAT, "metadata value at byte %llu changed: %s",
                         (unsigned long long)at, j.error_text);
    ts_status st = ts__sink_add(out, "\"", 1, err);
    if (!v.escaped) {
        if (!st)
            st = ts__sink_json_chars(out, data + v.at + 1, v.len, err);
        return st ? st : ts__sink_add(out, "\"", 1, err);
    }
    char buf[4096];
    size_t pos = v.at + 1, k;
    while (!st && (k = ts__json_decode_part(j.s, &v, &pos, buf, sizeof buf)) > 0)
        st = ts__sink_json_chars(out, (const unsigned char *)buf, k, err);
    return st ? st : ts__sink_add(out, "\"", 1, err);
}

/* Scans "__metadata__" (a JSON error sets *json_failed and returns TS_OK):
 * null (no metadata, as the reference reader's
 * Option<HashMap>) or an object mapping strings to strings. */
static ts_status read_metadata(ts_file *f, ts__json *j, int64_t at, int want, int *json_failed,
                               ts_error *err)
{
    ts__json_kind kind = ts__json_peek(j);
    if (kind == TS__JSON_NULL)
        return ts__json_skip(j) ? (*json_failed = 1, TS_OK) : TS_OK;
    if (kind != TS__JSON_OBJECT) {
        if (ts__json_skip(j) != 0) {
            *json_failed = 1;
            return TS_OK;
        }
        return ts__fail(err, TS_ERR_FORMAT, 0, at,
                        "__metadata__ at byte %lld is %s, expected an object mapping "
                        "strings to strings", (long long)at, ts__json_kind_text(kind));
    }
    ts__json_keys keys = {NULL, 0, 0};
    ts__json_str key, val;
    size_t count = 0;
    int r;
    ts_status st = TS_OK;
    if (ts__json_object_open(j) != 0) {
        *json_failed = 1;
        return TS_OK;
    }
    while ((r = ts__json_object_next(j, &count, &key)) == 1) {
        if (ts__json_keys_add(j, &keys, &key) != 0)
            break;
        kind = ts__json_peek(j);
        if (kind != TS__JSON_STRING) {
            if (ts__json_skip(j) != 0)
                break;
            char nb[NAME_BUF], kb[NAME_BUF];
            size_t pos = key.at + 1;
            size_t kl = ts__json_decode_part(j->s, &key, &pos, kb, sizeof kb - 1);
            ts__printable(kb, kl, nb, sizeof nb);
            st = ts__fail(err, TS_ERR_FORMAT, 0, at,
                          "__metadata__ at byte %lld: value of '%s' is %s, expected "
                          "a string (safetensors metadata maps strings to strings)",
                          (long long)at, nb, ts__json_kind_text(kind));
            break;
        }
        if (ts__json_string(j, &val) != 0)
            break;
        if (!want)
            continue;
        char *k = ts__scratch_alloc(f, key.len + 1, err);
        if (!k) {
            st = TS_ERR_NOMEM;
            break;
        }
        ts__json_decode(j->s, &key, k);
        st = ts__file_add_lazy_metadata(f, k, key.len, render_meta, 8 + (uint64_t)val.at,
                                        (uint32_t)(val.end - val.at), err);
        ts__scratch_free(f, k);
        if (st)
            break;
    }
    ts__json_keys_free(j, &keys);
    if (st)
        return st;
    *json_failed = j->error != TS__JSON_OK;
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
    if (n > 1) /* t is NULL without tensors */
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

static ts_status json_failure(const ts__json *j, ts_error *err)
{
    int64_t at = 8 + (int64_t)j->error_at;
    const char *tb = j->error_text;
    switch (j->error) {
    case TS__JSON_EDUPLICATE:
        return ts__fail(err, TS_ERR_FORMAT, 0, at,
                        "duplicate key in the header at byte %lld: %s (safetensors "
                        "forbids duplicates; the reference reader would silently keep "
                        "the last)", (long long)at, tb);
    case TS__JSON_EUTF8:
        return ts__fail(err, TS_ERR_FORMAT, 0, at,
                        "header is not valid UTF-8 at byte %lld: %s", (long long)at, tb);
    case TS__JSON_EOVERFLOW:
        return ts__fail(err, TS_ERR_OVERFLOW, 0, at,
                        "number in the header at byte %lld does not fit in int64: %s",
                        (long long)at, tb);
    case TS__JSON_ENOMEM:
        return ts__error(err, TS_ERR_NOMEM, "out of memory parsing the JSON header");
    case TS__JSON_EDEPTH:
    case TS__JSON_ESYNTAX:
    case TS__JSON_OK:
        break;
    }
    return ts__fail(err, TS_ERR_FORMAT, 0, at,
                    "header is not valid JSON at byte %lld: %s", (long long)at, tb);
}

static void *scratch_realloc(void *ctx, void *p, size_t n)
{
    return ts__scratch_realloc(ctx, p, n, NULL);
}

static void scratch_free(void *ctx, void *p)
{
    ts__scratch_free(ctx, p);
}

/* Tensor names seen so far, to find a repeated key: open addressing over
 * indexes + 1 into the tensor list (0 empty), hashed by name. The first
 * table is the caller's (on its stack: a folder of small files then
 * allocates none); larger ones are the file's scratch. */
#define ST_NAMES_FIRST 64
typedef struct st_names {
    uint32_t *v;
    size_t cap;
    int scratch;             /* v is the file's scratch (else the caller's) */
} st_names;

static uint64_t name_hash(const char *s, size_t n)
{
    return ts__json_fnv(TS__JSON_FNV_BASIS, s, n);
}

/* Adds tensor k (named t[k].name, hash h): 0, 1 when the name is there, -1
 * out of memory. */
static int names_add(ts_file *f, st_names *set, const st_tensor *t, size_t k, uint64_t h)
{
    if (2 * (k + 1) > set->cap) {
        size_t cap = set->cap ? set->cap * 2 : ST_NAMES_FIRST;
        uint32_t *v = ts__scratch_alloc(f, cap * sizeof *v, NULL);
        if (!v)
            return -1;
        memset(v, 0, cap * sizeof *v);
        for (size_t i = 0; i < set->cap; i++) {
            if (!set->v[i])
                continue;
            const char *nm = t[set->v[i] - 1].name;
            size_t p = (size_t)name_hash(nm, strlen(nm)) & (cap - 1);
            while (v[p])
                p = (p + 1) & (cap - 1);
            v[p] = set->v[i];
        }
        if (set->scratch)
            ts__scratch_free(f, set->v);
        set->v = v;
        set->cap = cap;
        set->scratch = 1;
    }
    size_t p = (size_t)h & (set->cap - 1);
    while (set->v[p]) {
        if (strcmp(t[set->v[p] - 1].name, t[k].name) == 0)
            return 1;
        p = (p + 1) & (set->cap - 1);
    }
    set->v[p] = (uint32_t)(k + 1);
    return 0;
}

static ts_status read_safetensors(ts_file *f, const unsigned char *data, size_t len,
                                  const ts_open_options *opts, ts_error *err)
{
    if (len < 8)
        return ts__fail(err, TS_ERR_TRUNCATED, 0, 0,
                        "file is %zu bytes long, too short for the 8-byte header "
                        "length of a safetensors file", len);
    ts_status st = ts__file_need(f, 0, 8, err);
    if (st)
        return st;
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
    if ((st = ts__file_need(f, 8, n, err)))
        return st;
    const char *hdr = (const char *)data + 8;
    size_t hlen = (size_t)n;
    if (hlen == 0)
        return ts__fail(err, TS_ERR_FORMAT, 0, 8,
                        "header length is 0: the header must be a JSON object");
    const char *nul = memchr(hdr, '\0', hlen);
    if (nul)
        return ts__fail(err, TS_ERR_FORMAT, 0, 8 + (int64_t)(nul - hdr),
                        "header has a NUL byte at byte %lld: JSON text cannot contain "
                        "NUL (padding must be spaces)", 8 + (long long)(nul - hdr));

    ts__json j;
    ts__json_init(&j, hdr, hlen, scratch_realloc, scratch_free, f);
    ts__json_kind top = ts__json_peek(&j);
    if (top != TS__JSON_OBJECT) {
        if (top == TS__JSON_BAD || ts__json_skip(&j) != 0 || ts__json_finish(&j) != 0)
            return json_failure(&j, err);
        return ts__fail(err, TS_ERR_FORMAT, 0, 8,
                        "header is %s, expected a JSON object of tensors",
                        ts__json_kind_text(top));
    }
    int64_t data_start = 8 + (int64_t)n;
    /* the first entries' records and name table on the stack */
    st_tensor first[16], *tensors = first;
    size_t nt = 0, cap = sizeof first / sizeof *first, k = 0, count = 0;
    uint32_t first_names[ST_NAMES_FIRST] = {0};
    st_names names = {first_names, ST_NAMES_FIRST, 0};
    size_t released = 0;
    int seen_metadata = 0, json_failed = 0, r;
    ts__json_str key;
    if (ts__json_object_open(&j) != 0)
        return json_failure(&j, err);
    for (; (r = ts__json_object_next(&j, &count, &key)) == 1; k++) {
        /* The name, copied once into the file's strings. */
        char *name = ts__file_stralloc(f, key.len + 1, err);
        if (!name) {
            st = TS_ERR_NOMEM;
            break;
        }
        ts__json_decode(hdr, &key, name);
        name[key.len] = '\0';
        int64_t at_key = file_pos(key.at);
        if (key.len == 12 && memcmp(name, "__metadata__", 12) == 0) {
            if (seen_metadata) {
                ts__json_fail(&j, TS__JSON_EDUPLICATE, key.at, key.end, "duplicate object key");
                json_failed = 1;
                break;
            }
            seen_metadata = 1;
            st = read_metadata(f, &j, at_key, opts->want_metadata, &json_failed, err);
            if (json_failed)
                break;
        } else {
            if (nt == cap) {
                size_t c2 = cap * 2;
                st_tensor *p = ts__scratch_realloc(f, tensors == first ? NULL : tensors,
                                                   c2 * sizeof *p, err);
                if (!p) {
                    st = TS_ERR_NOMEM;
                    break;
                }
                if (tensors == first)
                    memcpy(p, first, sizeof first);
                tensors = p;
                cap = c2;
            }
            tensors[nt].name = name;
            tensors[nt].order = nt;
            int dup = nt < UINT32_MAX - 1 ? names_add(f, &names, tensors, nt, key.hash) : -1;
            if (dup != 0) {
                if (dup > 0) {
                    ts__json_fail(&j, TS__JSON_EDUPLICATE, key.at, key.end,
                                  "duplicate object key");
                    json_failed = 1;
                } else {
                    st = ts__error(err, TS_ERR_NOMEM, "out of memory for %zu names", nt);
                }
                break;
            }
            ts__json_kind kind = ts__json_peek(&j);
            if (kind == TS__JSON_OBJECT) {
                st_entry e;
                e.key = key.at;
                if (scan_entry(&j, &e) != 0) {
                    json_failed = 1;
                    break;
                }
                st = check_entry(f, name, &e, data_start, &tensors[nt], err);
            } else if (kind == TS__JSON_BAD || ts__json_skip(&j) != 0) {
                json_failed = 1;
                break;
            } else {
                char nb[NAME_BUF];
                st = ts__fail(err, TS_ERR_FORMAT, 0, at_key,
                              "tensor '%s' at byte %lld: entry is %s, expected an object "
                              "with \"dtype\", \"shape\" and \"data_offsets\"",
                              ts__printable_str(name, nb, sizeof nb), (long long)at_key,
                              ts__json_kind_text(kind));
            }
            nt++;
        }
        if (st) {
            ts__error_index(err, st, (int64_t)k); /* the entry's place in the header */
            break;
        }
        /* The entries read so far live on in the arrays and names: their
         * text need not stay resident (a long header then costs its size
         * about once, not twice). */
        if (j.i - released >= ST_RELEASE_STEP) {
            ts__file_release(f, 8 + released, j.i - released);
            released = j.i;
        }
    }
    if (!st && !json_failed && (r != 0 || ts__json_finish(&j) != 0))
        json_failed = 1;
    if (json_failed && !st)
        st = json_failure(&j, err);
    if (!st)
        st = check_cover(tensors, nt, data_start, (int64_t)len - data_start, (int64_t)len, err);
    if (!st) {
        ts__file_set_version(f, "");
        ts__file_set_extent(f, (int64_t)len); /* check_cover: exactly */
    }
    if (names.scratch)
        ts__scratch_free(f, names.v);
    if (tensors != first)
        ts__scratch_free(f, tensors);
    return st;
}

const ts__reader ts__reader_safetensors = {
    {TS_FORMAT_SAFETENSORS, "safetensors", ".safetensors", "u64 header length then {",
     "Hugging Face safetensors", "dtype", 0},
    ts__probe_safetensors,
    read_safetensors,
    0,
};
