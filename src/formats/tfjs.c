/*
 * tfjs.c - reader for TensorFlow.js models, header only: a model.json
 * (graph-model or layers-model: an object with "weightsManifest") or a
 * weights manifest alone (*weights_manifest.json: the manifest array).
 *
 * Layout (tfjs-core src/io/types.ts: ModelJSON, WeightsManifestConfig,
 * WeightsManifestGroupConfig, WeightsManifestEntry):
 *   weightsManifest: [{"paths": ["group1-shard1of2.bin", ...],
 *                      "weights": [{"name", "shape", "dtype",
 *                                   "quantization"?}, ...]}, ...]
 * A group's shards, concatenated in the order of "paths", hold its weights
 * one after another in the order of "weights", without padding
 * (tfjs-core io_utils decodeWeights, weights_loader): a weight may start in
 * one shard and end in the next. A weight takes its element count times the
 * bytes of its stored dtype: the quantization's dtype when it has one
 * ("uint8" and "uint16": affine, value = q * scale + min; "float16"), else
 * its dtype ("float32", "int32": 4, "bool": 1, "complex64": 8). A "string"
 * weight stores each string as a u32 length and its bytes, so its size is
 * in the data, which is not read: it and the weights after it in its group
 * are reported without an offset.
 *
 * Each weight is an array: its stored dtype (uint8 for a weight quantised
 * to uint8; format_dtype keeps the manifest's dtype), data_offset its
 * offset in the shard it starts in, storage_key that shard's path
 * (relative to the manifest, as written); the note names the quantisation
 * and a shard boundary it crosses. The shards are found beside the model
 * (sidefile.c: a path may not leave the model's folder) and must hold the
 * weights' bytes; the values of a weight are read from the chain of its
 * group's shards (values/side.c: local files or the URLs beside a remote
 * model). JSON through the library's scanner (core/json.h).
 */
#include "reader.h"

#include "../core/json.h"
#include <stdio.h>
#include <stdlib.h>

#define NAME_BUF 200

/* At most this many shard paths in a model: each is looked for (a stat, or
 * a request for a remote model), so the count a file can ask for is
 * bounded; 65,536 shards of tfjs-converter's 4 MiB are 256 GiB. */
#define TJ_MAX_SHARDS 65536

/* A dtype of the manifest: name, tshape dtype, bytes per element. */
typedef struct tj_dtype {
    const char *name;
    ts_dtype dtype;
    int bytes;               /* 0: string (variable) */
} tj_dtype;

/* tfjs-core DataType. */
static const tj_dtype tj_dtypes[] = {
    {"float32", TS_DTYPE_FLOAT32, 4}, {"int32", TS_DTYPE_INT32, 4},
    {"bool", TS_DTYPE_BOOL, 1},       {"complex64", TS_DTYPE_COMPLEX64, 8},
    {"string", TS_DTYPE_OBJECT, 0},
};

/* Quantization dtypes (tfjs-core io types.ts, WeightsManifestEntry). */
static const tj_dtype tj_quant[] = {
    {"uint8", TS_DTYPE_UINT8, 1}, {"uint16", TS_DTYPE_UINT16, 2}, {"float16", TS_DTYPE_FLOAT16, 2},
};

static const tj_dtype *find_dtype(const tj_dtype *t, size_t n, const char *s, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(t[i].name) == len && memcmp(t[i].name, s, len) == 0)
            return &t[i];
    return NULL;
}

/* ---- the probe -------------------------------------------------------------- */

/* A key of a model.json (tfjs-core ModelJSON). */
static int model_key(const char *k, size_t n)
{
    static const char *const keys[] = {
        "weightsManifest", "modelTopology", "format", "generatedBy", "convertedBy",
        "signature", "userDefinedMetadata", "modelInitializer", "initializerSignature",
        "trainingConfig"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (strlen(keys[i]) == n && memcmp(keys[i], k, n) == 0)
            return 1;
    return 0;
}

/*
 * Strict and cheap, on the first bytes: an object whose first key is one of
 * a model.json's, or an array whose first element is an object whose first
 * key is "paths" or "weights" (a manifest). Key order is the converters'
 * (the first key is "format" or "modelTopology"); a JSON file that starts
 * otherwise is not claimed.
 */
static int probe_tfjs(const unsigned char *data, size_t len, ts__source *src)
{
    (void)src;
    size_t n = len < TS__HEAD_MIN ? len : TS__HEAD_MIN, i = 0;
    const char *s = (const char *)data;
    if (n >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0)
        return 0; /* a byte order mark: not RFC 8259 JSON */
    i = ts__skip_ws(s, n, i, TS__WS_TEXT);
    int manifest = i < n && s[i] == '[';
    if (manifest)
        i = ts__skip_ws(s, n, i + 1, TS__WS_TEXT);
    if (i >= n || s[i] != '{')
        return 0;
    i = ts__skip_ws(s, n, i + 1, TS__WS_TEXT);
    if (i >= n || s[i] != '"')
        return 0;
    size_t k = i + 1, e = k;
    while (e < n && s[e] != '"' && s[e] != '\\')
        e++;
    if (e >= n || s[e] != '"')
        return 0;
    if (manifest)
        return (e - k == 5 && memcmp(s + k, "paths", 5) == 0) ||
               (e - k == 7 && memcmp(s + k, "weights", 7) == 0);
    return model_key(s + k, e - k);
}

/* ---- the reader ------------------------------------------------------------- */

typedef struct tj_weight {
    size_t array;            /* index of its array */
    int64_t nbytes;          /* -1: string */
    size_t at;               /* its object in the file */
} tj_weight;

typedef struct tj {
    ts_file *f;
    const char *s;
    size_t len;
    const ts_open_options *opts;
    ts_error *err;
    ts__json j;
    tj_weight *w;            /* the weights of the group being read */
    size_t nw, capw;
    const char **paths;      /* its shards (strings of f) */
    char **resolved;         /* their resolved paths or URLs (scratch; NULL:
                                the model was read from memory) */
    int64_t *sizes;
    size_t np, capp;
    size_t groups, shards, weights;
    char *meta;              /* metadata: "shards" entries, JSON text */
    size_t meta_n, meta_cap;
} tj;

static void *tj_realloc(void *ctx, void *p, size_t n)
{
    return ts__scratch_realloc(ctx, p, n, NULL);
}

static void tj_free(void *ctx, void *p)
{
    ts__scratch_free(ctx, p);
}

static ts_status json_failure(tj *r)
{
    const ts__json *j = &r->j;
    int64_t at = (int64_t)j->error_at;
    switch (j->error) {
    case TS__JSON_ENOMEM:
        return ts__error(r->err, TS_ERR_NOMEM, "out of memory reading the JSON");
    case TS__JSON_EOVERFLOW:
        return ts__fail(r->err, TS_ERR_OVERFLOW, 0, at,
                        "number at byte %lld (line %zu) does not fit: %s", (long long)at,
                        ts__json_line(j, j->error_at), j->error_text);
    case TS__JSON_EDUPLICATE:
    case TS__JSON_EUTF8:
    case TS__JSON_EDEPTH:
    case TS__JSON_ESYNTAX:
    case TS__JSON_OK:
        break;
    }
    return ts__fail(r->err, TS_ERR_FORMAT, 0, at, "not valid JSON at byte %lld (line %zu): %s",
                    (long long)at, ts__json_line(j, j->error_at), j->error_text);
}

static ts_status expect(tj *r, ts__json_kind want, const char *what)
{
    ts__json_kind k = ts__json_peek(&r->j);
    if (k == TS__JSON_BAD)
        return json_failure(r);
    if (k != want)
        return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)r->j.i,
                        "%s at byte %zu (line %zu) is %s, expected %s", what, r->j.i,
                        ts__json_line(&r->j, r->j.i), ts__json_kind_text(k),
                        ts__json_kind_text(want));
    return TS_OK;
}

/* 1 when the decoded key equals lit. */
static int key_is(const tj *r, const ts__json_str *k, const char *lit)
{
    size_t n = strlen(lit);
    if (k->len != n)
        return 0;
    if (!k->escaped)
        return memcmp(r->s + k->at + 1, lit, n) == 0;
    char buf[32];
    size_t pos = k->at + 1;
    return n < sizeof buf && ts__json_decode_part(r->s, k, &pos, buf, sizeof buf) == n &&
           memcmp(buf, lit, n) == 0;
}

/* The string value at the position, decoded into storage of f. */
static ts_status string_value(tj *r, const char *what, const char **out, size_t *n)
{
    ts__json_str v;
    ts_status st = expect(r, TS__JSON_STRING, what);
    if (st)
        return st;
    if (ts__json_string(&r->j, &v) != 0)
        return json_failure(r);
    char *p = ts__file_stralloc(r->f, v.len + 1, r->err);
    if (!p)
        return TS_ERR_NOMEM;
    ts__json_decode(r->s, &v, p);
    p[v.len] = '\0';
    *out = p;
    if (n)
        *n = v.len;
    return TS_OK;
}

/* A number at the position: its text [*at, *end) in the file. */
static ts_status number_value(tj *r, const char *what, size_t *at, size_t *end)
{
    ts__json_kind k = ts__json_peek(&r->j);
    if (k == TS__JSON_BAD)
        return json_failure(r);
    if (k != TS__JSON_INTEGER && k != TS__JSON_REAL)
        return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)r->j.i,
                        "%s at byte %zu is %s, expected a number", what, r->j.i,
                        ts__json_kind_text(k));
    *at = r->j.i;
    if (ts__json_skip(&r->j) != 0)
        return json_failure(r);
    *end = r->j.i;
    return TS_OK;
}

typedef struct tj_entry {
    const char *name;
    size_t name_len;
    int has_name, has_shape, has_dtype;
    int ndim;
    int64_t dims[TS_MAX_NDIM];
    const tj_dtype *dtype, *quant;
    size_t scale_at, scale_end, min_at, min_end;   /* 0: absent */
} tj_entry;

static ts_status read_quant(tj *r, tj_entry *e, const char *who)
{
    ts_status st = expect(r, TS__JSON_OBJECT, "quantization");
    ts__json_keys keys = {NULL, 0, 0};
    ts__json_str k;
    size_t count = 0;
    int more;
    if (st)
        return st;
    if (ts__json_object_open(&r->j) != 0)
        return json_failure(r);
    while (!st && (more = ts__json_object_next(&r->j, &count, &k)) == 1) {
        if (ts__json_keys_add(&r->j, &keys, &k) != 0) {
            st = json_failure(r);
        } else if (key_is(r, &k, "dtype")) {
            const char *d;
            size_t n;
            size_t at = r->j.i;
            if (!(st = string_value(r, "quantization dtype", &d, &n)) &&
                !(e->quant = find_dtype(tj_quant, sizeof tj_quant / sizeof *tj_quant, d, n))) {
                char db[64];
                st = ts__fail(r->err, TS_ERR_DTYPE, 0, (int64_t)at,
                              "%s: quantization dtype '%s' at byte %zu is not uint8, uint16 "
                              "or float16", who, ts__printable(d, n, db, sizeof db), at);
            }
        } else if (key_is(r, &k, "scale")) {
            st = number_value(r, "quantization scale", &e->scale_at, &e->scale_end);
        } else if (key_is(r, &k, "min")) {
            st = number_value(r, "quantization min", &e->min_at, &e->min_end);
        } else if (ts__json_skip(&r->j) != 0) {
            st = json_failure(r);
        }
    }
    ts__json_keys_free(&r->j, &keys);
    if (!st && more < 0)
        st = json_failure(r);
    if (!st && !e->quant)
        st = ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)r->j.i,
                      "%s: quantization without a dtype", who);
    if (!st && e->quant->dtype != TS_DTYPE_FLOAT16 && (!e->scale_at || !e->min_at))
        st = ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)r->j.i,
                      "%s: %s quantization needs a scale and a min", who, e->quant->name);
    return st;
}

static ts_status read_shape(tj *r, tj_entry *e, const char *who)
{
    ts_status st = expect(r, TS__JSON_ARRAY, "shape");
    size_t count = 0;
    int more;
    if (st)
        return st;
    if (ts__json_array_open(&r->j) != 0)
        return json_failure(r);
    while ((more = ts__json_array_next(&r->j, &count)) == 1) {
        size_t at = r->j.i;
        int64_t v;
        if ((st = expect(r, TS__JSON_INTEGER, "a dim")))
            return st;
        if (ts__json_integer(&r->j, &v) != 0)
            return json_failure(r);
        if (v < 0)
            return ts__fail(r->err, TS_ERR_VALUE, 0, (int64_t)at,
                            "%s: dim %zu at byte %zu is %lld, expected a non-negative integer",
                            who, count - 1, at, (long long)v);
        if (count > TS_MAX_NDIM)
            return ts__fail(r->err, TS_ERR_NDIM, 0, (int64_t)at,
                            "%s: more than %d dims", who, TS_MAX_NDIM);
        e->dims[count - 1] = v;
    }
    if (more < 0)
        return json_failure(r);
    e->ndim = (int)count;
    return TS_OK;
}

/* One WeightsManifestEntry: its array appended, its size recorded. */
static ts_status read_weight(tj *r, size_t index)
{
    tj_entry e;
    memset(&e, 0, sizeof e);
    size_t at = r->j.i;
    char who[64];
    snprintf(who, sizeof who, "weight %zu of group %zu", index, r->groups);
    ts_status st = expect(r, TS__JSON_OBJECT, who);
    ts__json_keys keys = {NULL, 0, 0};
    ts__json_str k;
    size_t count = 0;
    int more;
    if (st)
        return st;
    if (ts__json_object_open(&r->j) != 0)
        return json_failure(r);
    while (!st && (more = ts__json_object_next(&r->j, &count, &k)) == 1) {
        if (ts__json_keys_add(&r->j, &keys, &k) != 0) {
            st = json_failure(r);
        } else if (key_is(r, &k, "name")) {
            e.has_name = 1;
            st = string_value(r, "name", &e.name, &e.name_len);
        } else if (key_is(r, &k, "shape")) {
            e.has_shape = 1;
            st = read_shape(r, &e, who);
        } else if (key_is(r, &k, "dtype")) {
            const char *d;
            size_t n, dat = r->j.i;
            e.has_dtype = 1;
            if (!(st = string_value(r, "dtype", &d, &n)) &&
                !(e.dtype = find_dtype(tj_dtypes, sizeof tj_dtypes / sizeof *tj_dtypes, d, n))) {
                char db[64];
                st = ts__fail(r->err, TS_ERR_DTYPE, 0, (int64_t)dat,
                              "%s: dtype '%s' at byte %zu is not a TensorFlow.js dtype "
                              "(float32, int32, bool, complex64, string)", who,
                              ts__printable(d, n, db, sizeof db), dat);
            }
        } else if (key_is(r, &k, "quantization")) {
            st = read_quant(r, &e, who);
        } else if (ts__json_skip(&r->j) != 0) {
            st = json_failure(r);
        }
    }
    ts__json_keys_free(&r->j, &keys);
    if (st)
        return st;
    if (more < 0)
        return json_failure(r);
    if (!e.has_name || !e.has_shape || !e.has_dtype)
        return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)at,
                        "%s at byte %zu: missing \"%s\" (each weight needs \"name\", \"shape\" "
                        "and \"dtype\")", who, at,
                        !e.has_name ? "name" : !e.has_shape ? "shape" : "dtype");
    char nb[NAME_BUF];
    if (memchr(e.name, '\0', e.name_len))
        return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)at, "%s: name '%s' holds a NUL byte",
                        who, ts__printable(e.name, e.name_len, nb, sizeof nb));
    if (e.quant && e.dtype->bytes == 0)
        return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)at,
                        "weight '%s': a string weight cannot be quantized",
                        ts__printable(e.name, e.name_len, nb, sizeof nb));
    ts_array *a = ts__file_add_array(r->f, r->err);
    if (!a)
        return ts__file_add_failure(r->f);
    a->name = e.name;
    if ((st = ts_shape_resize(&a->shape, e.ndim, r->err)))
        return st;
    memcpy(ts_shape_dims_mut(&a->shape), e.dims, (size_t)e.ndim * sizeof *e.dims);
    const tj_dtype *stored = e.quant ? e.quant : e.dtype;
    ts__array_set_dtype(a, stored->dtype);
    a->format_dtype = e.dtype->name;
    a->byteorder = a->itemsize > 1 && stored->bytes ? '<' : '|';
    if (stored->bytes) {
        st = ts__array_compute_sizes(a, r->err);
    } else {
        a->nbytes = -1;
        st = ts_shape_size(&a->shape, &a->size, r->err);
    }
    if (st) {
        ts__error_prefix(r->err, "weight '%s'", ts__printable(e.name, e.name_len, nb, sizeof nb));
        return st;
    }
    if (e.quant)
        a->dequantized_dtype = e.dtype->dtype;
    if (e.quant && e.quant->dtype == TS_DTYPE_FLOAT16)
        a->note = ts__file_printf(r->f, r->err, "quantized float16 of %s", e.dtype->name);
    else if (e.quant)
        a->note = ts__file_printf(r->f, r->err,
                                  "quantized %s of %s: value = q * scale + min (scale %.*s, "
                                  "min %.*s)", e.quant->name, e.dtype->name,
                                  (int)(e.scale_end - e.scale_at), r->s + e.scale_at,
                                  (int)(e.min_end - e.min_at), r->s + e.min_at);
    if (e.quant && !a->note)
        return TS_ERR_NOMEM;
    if (r->nw == r->capw) {
        size_t cap = r->capw ? 2 * r->capw : 16;
        tj_weight *p = ts__scratch_realloc(r->f, r->w, cap * sizeof *p, r->err);
        if (!p)
            return TS_ERR_NOMEM;
        r->w = p;
        r->capw = cap;
    }
    r->w[r->nw].array = ts_file_count(r->f) - 1;
    r->w[r->nw].nbytes = a->nbytes;
    r->w[r->nw].at = at;
    r->nw++;
    r->weights++;
    return TS_OK;
}

/* Appends text to the "shards" metadata. */
static ts_status meta_add(tj *r, const char *text, size_t n)
{
    if (n > r->meta_cap - r->meta_n) {
        size_t cap = r->meta_cap ? r->meta_cap : 256;
        while (cap - r->meta_n < n)
            cap *= 2;
        char *p = ts__scratch_realloc(r->f, r->meta, cap, r->err);
        if (!p)
            return TS_ERR_NOMEM;
        r->meta = p;
        r->meta_cap = cap;
    }
    memcpy(r->meta + r->meta_n, text, n);
    r->meta_n += n;
    return TS_OK;
}

/* The group's paths: checked, found beside the model, their sizes. */
static ts_status read_paths(tj *r)
{
    ts_status st = expect(r, TS__JSON_ARRAY, "paths");
    size_t count = 0;
    int more;
    if (st)
        return st;
    if (ts__json_array_open(&r->j) != 0)
        return json_failure(r);
    while ((more = ts__json_array_next(&r->j, &count)) == 1) {
        size_t at = r->j.i;
        const char *p;
        size_t n;
        char who[64];
        snprintf(who, sizeof who, "path %zu of group %zu", count - 1, r->groups);
        if ((st = string_value(r, who, &p, &n)) ||
            (st = ts__side_check_name(p, n, "weights", who, at, r->err)))
            return st;
        if (r->shards >= TJ_MAX_SHARDS)
            return ts__fail(r->err, TS_ERR_LIMIT, 0, (int64_t)at,
                            "%s: more than %d shard paths in one model (tshape's limit)", who,
                            TJ_MAX_SHARDS);
        if (r->np == r->capp) {
            size_t cap = r->capp ? 2 * r->capp : 8;
            const char **pp = ts__scratch_realloc(r->f, r->paths, cap * sizeof *pp, r->err);
            if (!pp)
                return TS_ERR_NOMEM;
            r->paths = pp;
            int64_t *sp = ts__scratch_realloc(r->f, r->sizes, cap * sizeof *sp, r->err);
            if (!sp)
                return TS_ERR_NOMEM;
            r->sizes = sp;
            char **rp = ts__scratch_realloc(r->f, r->resolved, cap * sizeof *rp, r->err);
            if (!rp)
                return TS_ERR_NOMEM;
            r->resolved = rp;
            r->capp = cap;
        }
        r->paths[r->np] = p;
        r->sizes[r->np] = -1;
        r->resolved[r->np] = NULL;
        r->np++;
        char *rs = NULL;
        if (r->opts->path &&
            (st = ts__side_locate(r->opts, p, "weights", who, at, &rs,
                                  &r->sizes[r->np - 1], NULL, r->err)))
            return st;
        if (rs) { /* into the file's scratch memory, which a fault cannot leak */
            size_t k = strlen(rs) + 1;
            r->resolved[r->np - 1] = ts__scratch_alloc(r->f, k, r->err);
            if (r->resolved[r->np - 1])
                memcpy(r->resolved[r->np - 1], rs, k);
            free(rs);
            if (!r->resolved[r->np - 1])
                return TS_ERR_NOMEM;
        }
        r->shards++;
    }
    return more < 0 ? json_failure(r) : TS_OK;
}

/* Frees the group's resolved shard paths. */
static void forget_paths(tj *r)
{
    for (size_t k = 0; k < r->np; k++) {
        ts__scratch_free(r->f, r->resolved[k]);
        r->resolved[k] = NULL;
    }
    r->np = 0;
}

/* Places the group's weights in its shards; their values are read from the
 * chain of its shards (side.c), from the weight's byte in the group. */
static ts_status place(tj *r, size_t group_at)
{
    int32_t chain = 0;
    if (r->np && r->resolved[0]) {
        ts_status st = ts__side_add_chain(r->f, (const char *const *)r->resolved, r->np,
                                          "weights shard", r->opts, &chain, r->err);
        if (st)
            return st;
    }
    int64_t total = 0, off = 0;
    int known = r->opts->path != NULL;
    for (size_t k = 0; k < r->np && known; k++)
        if (ts__add_overflow(total, r->sizes[k], &total))
            return ts__error(r->err, TS_ERR_OVERFLOW, "group %zu: shard sizes overflow",
                             r->groups);
    const char *after_string = NULL;
    size_t shard = 0;
    int64_t start = 0;       /* group offset of shard `shard` */
    for (size_t i = 0; i < r->nw; i++) {
        ts_array *a = ts__file_array_mut(r->f, r->w[i].array);
        char nb[NAME_BUF];
        if (after_string) {
            const char *note = ts__file_printf(r->f, r->err,
                                               "%s%soffset unknown: it follows string weight "
                                               "'%s', whose size is in the data",
                                               a->note ? a->note : "", a->note ? "; " : "",
                                               after_string);
            if (!note)
                return TS_ERR_NOMEM;
            a->note = note;
            continue;
        }
        if (r->w[i].nbytes < 0) {
            after_string = a->name;
            const char *note = ts__file_printf(r->f, r->err,
                                               "string data from byte %lld of group %zu "
                                               "(u32 length and bytes per string)",
                                               (long long)off, r->groups);
            if (!note)
                return TS_ERR_NOMEM;
            a->note = note;
            continue;
        }
        int64_t end;
        if (ts__add_overflow(off, r->w[i].nbytes, &end))
            return ts__error(r->err, TS_ERR_OVERFLOW, "group %zu: weight offsets overflow",
                             r->groups);
        if (r->np == 0)
            return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)group_at,
                            "group %zu at byte %zu has weights but no paths", r->groups,
                            group_at);
        if (!known) {
            a->note = ts__file_printf(r->f, r->err, "%s%sbytes %lld..%lld of group %zu (not "
                                      "placed in its shards: the model was read from memory)",
                                      a->note ? a->note : "", a->note ? "; " : "",
                                      (long long)off, (long long)end, r->groups);
            if (!a->note)
                return TS_ERR_NOMEM;
            off = end;
            continue;
        }
        if (end > total)
            return ts__fail(r->err, TS_ERR_TRUNCATED, 0, (int64_t)r->w[i].at,
                            "weight '%s' needs bytes %lld..%lld of group %zu, but its %zu "
                            "shards hold %lld bytes", ts__printable_str(a->name, nb, sizeof nb),
                            (long long)off, (long long)end, r->groups, r->np,
                            (long long)total);
        while (shard + 1 < r->np && off >= start + r->sizes[shard])
            start += r->sizes[shard++];
        a->data_offset = off - start;
        a->storage_key = r->paths[shard];
        if (chain) {
            ts__data_src ds;
            memset(&ds, 0, sizeof ds);
            ds.side = chain;
            ds.has_storage = 1;
            ds.storage_start = off;
            ds.storage_nbytes = r->w[i].nbytes;
            ts_status st = ts__file_set_data_src(r->f, a, &ds, r->err);
            if (st)
                return st;
        }
        size_t last = shard;
        int64_t lstart = start;
        while (last + 1 < r->np && end > lstart + r->sizes[last])
            lstart += r->sizes[last++];
        if (last != shard) {
            const char *note = ts__file_printf(r->f, r->err,
                                               "%s%scrosses from shard '%s' into '%s' (bytes "
                                               "%lld..%lld of group %zu)",
                                               a->note ? a->note : "", a->note ? "; " : "",
                                               r->paths[shard], r->paths[last], (long long)off,
                                               (long long)end, r->groups);
            if (!note)
                return TS_ERR_NOMEM;
            a->note = note;
        }
        off = end;
    }
    return TS_OK;
}

static ts_status read_group(tj *r)
{
    size_t at = r->j.i;
    ts_status st = expect(r, TS__JSON_OBJECT, "a weights group");
    ts__json_keys keys = {NULL, 0, 0};
    ts__json_str k;
    size_t count = 0;
    int more, has_paths = 0, has_weights = 0;
    if (st)
        return st;
    r->nw = 0;
    forget_paths(r);
    if (ts__json_object_open(&r->j) != 0)
        return json_failure(r);
    while (!st && (more = ts__json_object_next(&r->j, &count, &k)) == 1) {
        if (ts__json_keys_add(&r->j, &keys, &k) != 0) {
            st = json_failure(r);
        } else if (key_is(r, &k, "paths")) {
            has_paths = 1;
            st = read_paths(r);
        } else if (key_is(r, &k, "weights")) {
            size_t n = 0;
            int w;
            has_weights = 1;
            if ((st = expect(r, TS__JSON_ARRAY, "weights")))
                break;
            if (ts__json_array_open(&r->j) != 0) {
                st = json_failure(r);
                break;
            }
            while (!st && (w = ts__json_array_next(&r->j, &n)) == 1)
                st = read_weight(r, n - 1);
            if (!st && w < 0)
                st = json_failure(r);
        } else if (ts__json_skip(&r->j) != 0) {
            st = json_failure(r);
        }
    }
    ts__json_keys_free(&r->j, &keys);
    if (st)
        return st;
    if (more < 0)
        return json_failure(r);
    if (!has_paths || !has_weights)
        return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)at,
                        "weights group %zu at byte %zu has no \"%s\"", r->groups, at,
                        has_paths ? "weights" : "paths");
    if ((st = place(r, at)))
        return st;
    if (r->opts->want_metadata) {
        for (size_t i = 0; i < r->np && !st; i++) {
            char buf[64];
            ts__sink sk = {buf, 0, 0, 0, NULL, NULL};
            /* the path, escaped, measured then written */
            ts__sink_json_string(&sk, (const unsigned char *)r->paths[i], strlen(r->paths[i]),
                                 NULL);
            char *text = ts__scratch_alloc(r->f, sk.total + 64, r->err);
            if (!text)
                return TS_ERR_NOMEM;
            ts__sink out = {text, 0, sk.total, 0, NULL, NULL};
            ts__sink_json_string(&out, (const unsigned char *)r->paths[i],
                                 strlen(r->paths[i]), NULL);
            int n = snprintf(text + out.n, 64, ",\"group\":%zu,\"bytes\":%lld}", r->groups,
                             (long long)r->sizes[i]);
            const char *open = r->meta_n > 1 ? ",{\"path\":" : "{\"path\":";
            st = meta_add(r, open, strlen(open));
            if (!st)
                st = meta_add(r, text, out.n + (size_t)n);
            ts__scratch_free(r->f, text);
        }
    }
    r->groups++;
    return st;
}

static ts_status read_manifest(tj *r)
{
    ts_status st = expect(r, TS__JSON_ARRAY, "the weights manifest");
    size_t count = 0;
    int more;
    if (st)
        return st;
    if (ts__json_array_open(&r->j) != 0)
        return json_failure(r);
    while (!st && (more = ts__json_array_next(&r->j, &count)) == 1)
        st = read_group(r);
    return st ? st : more < 0 ? json_failure(r) : TS_OK;
}

/* Copies the JSON value [at, end) of the file without the whitespace
 * between its tokens, as metadata entry `key`. */
static ts_status meta_compact(tj *r, const char *key, size_t at, size_t end)
{
    char *p = ts__scratch_alloc(r->f, end - at + 1, r->err);
    if (!p)
        return TS_ERR_NOMEM;
    size_t n = 0;
    int in_string = 0;
    for (size_t i = at; i < end; i++) {
        char c = r->s[i];
        if (in_string) {
            p[n++] = c;
            if (c == '\\' && i + 1 < end)
                p[n++] = r->s[++i];
            else if (c == '"')
                in_string = 0;
        } else if (!ts__is_ws(c, TS__WS_TEXT)) {
            p[n++] = c;
            in_string = c == '"';
        }
    }
    ts_status st = ts__file_add_metadata(r->f, key, strlen(key), p, n, r->err);
    ts__scratch_free(r->f, p);
    return st;
}

static ts_status read_tfjs(ts_file *f, const unsigned char *data, size_t len,
                           const ts_open_options *opts, ts_error *err)
{
    tj r;
    memset(&r, 0, sizeof r);
    r.f = f;
    r.s = (const char *)data;
    r.len = len;
    r.opts = opts;
    r.err = err;
    ts_status st = ts__file_need(f, 0, len, err); /* JSON: every byte is header */
    if (st)
        return st;
    ts__json_init(&r.j, r.s, len, tj_realloc, tj_free, f);
    struct {
        const char *key;
        size_t at, end;
    } top[] = {{"format", 0, 0},         {"generatedBy", 0, 0},
               {"convertedBy", 0, 0},    {"signature", 0, 0},
               {"userDefinedMetadata", 0, 0}};
    const size_t ntop = sizeof top / sizeof *top;
    const char *format = "weights manifest";
    int has_manifest = 0;
    if ((st = meta_add(&r, "[", 1)))
        return st;
    ts__json_kind kind = ts__json_peek(&r.j);
    if (kind == TS__JSON_ARRAY) {
        has_manifest = 1;
        st = read_manifest(&r);
    } else if (kind == TS__JSON_OBJECT) {
        ts__json_keys keys = {NULL, 0, 0};
        ts__json_str k;
        size_t count = 0;
        int more = 0;
        if (ts__json_object_open(&r.j) != 0)
            return json_failure(&r);
        while (!st && (more = ts__json_object_next(&r.j, &count, &k)) == 1) {
            size_t t = 0;
            while (t < ntop && !key_is(&r, &k, top[t].key))
                t++;
            if (ts__json_keys_add(&r.j, &keys, &k) != 0) {
                st = json_failure(&r);
            } else if (key_is(&r, &k, "weightsManifest")) {
                has_manifest = 1;
                st = read_manifest(&r);
            } else if (t < ntop && t == 0) {
                const char *v;
                top[t].at = r.j.i;
                if (!(st = string_value(&r, "format", &v, NULL)))
                    format = v;
                top[t].end = r.j.i;
            } else {
                if (t < ntop)
                    top[t].at = r.j.i;
                if (ts__json_skip(&r.j) != 0)
                    st = json_failure(&r);
                else if (t < ntop)
                    top[t].end = r.j.i;
            }
        }
        ts__json_keys_free(&r.j, &keys);
        if (!st && more < 0)
            st = json_failure(&r);
    } else if (kind == TS__JSON_BAD) {
        return json_failure(&r);
    } else {
        return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)r.j.i,
                        "the JSON is %s, not a TensorFlow.js model (an object with "
                        "\"weightsManifest\") or weights manifest (an array of groups)",
                        ts__json_kind_text(kind));
    }
    if (st)
        return st;
    if (ts__json_finish(&r.j) != 0)
        return json_failure(&r);
    if (!has_manifest)
        return ts__error(err, TS_ERR_FORMAT,
                         "the model has no \"weightsManifest\": its weights are not named "
                         "(a model.json without weights)");
    ts__file_set_version(f, format);
    if (!opts->want_metadata)
        return TS_OK;
    char buf[64];
    const char *fmt_json = kind == TS__JSON_ARRAY ? "\"weights manifest\"" : NULL;
    if (fmt_json)
        st = ts__file_add_metadata(f, "format", 6, fmt_json, strlen(fmt_json), err);
    for (size_t t = 0; t < ntop && !st; t++)
        if (top[t].end > top[t].at)
            st = meta_compact(&r, top[t].key, top[t].at, top[t].end);
    int n = snprintf(buf, sizeof buf, "%zu", r.groups);
    if (!st)
        st = ts__file_add_metadata(f, "weight_groups", 13, buf, (size_t)n, err);
    n = snprintf(buf, sizeof buf, "%zu", r.weights);
    if (!st)
        st = ts__file_add_metadata(f, "weights", 7, buf, (size_t)n, err);
    if (!st && !(st = meta_add(&r, "]", 1)))
        st = ts__file_add_metadata(f, "shards", 6, r.meta, r.meta_n, err);
    return st;
}

const ts__reader ts__reader_tfjs = {
    {TS_FORMAT_TFJS, "tfjs", ".json",
     "extension .json and the keys of a model.json (weightsManifest) or a weights manifest "
     "(paths, weights)",
     "TensorFlow.js model.json or weights manifest (graph and layers models, shards, "
     "quantized weights)", "dtype", 1},
    probe_tfjs,
    read_tfjs,
    1,
};
