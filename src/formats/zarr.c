/*
 * zarr.c - reader for Zarr arrays: the metadata file of one array, v2
 * (.zarray) or v3 (zarr.json with node_type "array"), and its values from
 * the chunk files beside it.
 *
 * Zarr v2 (zarr-specs docs/v2/v2.0.rst): .zarray is a JSON object with
 * zarr_format 2, shape, chunks, dtype (a NumPy typestr such as "<f4"),
 * compressor (null or {"id": ...}), fill_value (a number, "NaN",
 * "Infinity", "-Infinity" or null), order ("C" or "F"), filters (null or a
 * list) and dimension_separator ("." default, or "/"). Chunk (i, j) is the
 * file "i.j" (or "i/j") in the array's folder; a missing chunk holds the
 * fill value. Every chunk has the full chunk shape (edge chunks padded).
 *
 * Zarr v3 (zarr-specs docs/v3/core): zarr.json with zarr_format 3,
 * node_type, shape, data_type ("float32", ...), chunk_grid {"name":
 * "regular", "configuration": {"chunk_shape": [...]}}, chunk_key_encoding
 * ("default": "c/i/j", or "v2": "i.j"; configuration.separator), fill_value
 * and codecs: an array-to-bytes codec ("bytes" with its endian) and
 * bytes-to-bytes codecs after it (gzip, zstd, blosc, crc32c).
 *
 * Each array is one ts_array with no name (a model folder names it by its
 * folder, see model.c), data_offset -1 and a TS__SRC_ZARR data source: the
 * values are decoded chunk by chunk from uncompressed, zlib and gzip chunks
 * (zlib, already linked), zstd and blosc chunks (their libraries loaded
 * when met, zarr_codecs.c); other codecs (lz4, bz2, sharding, transpose,
 * filters) are named in the note and refused for values. A
 * group's metadata (.zgroup, or zarr.json of node_type "group") holds no
 * arrays. With metadata: zarr_format, chunks, codecs, fill_value, order.
 */
#include "reader.h"
#include "model_meta.h"
#include "zarr_codecs.h"
#include "../core/json.h"
#include "../remote/remote.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../core/zlib_lazy.h"

/* The largest metadata file and the largest chunk read (bytes). */
#define MAX_META ((size_t)64 << 20)
#define MAX_CHUNK ((int64_t)1 << 30)
#define MAX_SLOTS 64
#define MAX_CACHE ((int64_t)64 << 20)

typedef enum zarr_codec { ZC_NONE, ZC_ZLIB, ZC_GZIP, ZC_ZSTD, ZC_BLOSC, ZC_OTHER } zarr_codec;

/* What the metadata says. */
typedef struct zarr_meta {
    int version, is_array;
    int ndim;
    int64_t shape[TS_MAX_NDIM], chunks[TS_MAX_NDIM];
    char dtype[64];            /* as written ("<f4", "float32") */
    char endian;               /* v3 bytes codec: '<', '>', 0 when not given */
    char sep;                  /* chunk key separator */
    int v3_default_keys;       /* keys "c/..." */
    int fortran;
    zarr_codec codec;
    int crc32c;                /* 4 checksum bytes after each chunk */
    char codecs[256];          /* names, JSON array text */
    char unread[64];           /* the first codec not decoded, or "" */
    int fill_kind;             /* 0 null, 1 integer, 2 real */
    int64_t fill_int;
    double fill_real;
    int has_shape, has_chunks, has_dtype;
} zarr_meta;

typedef struct zarr_parse {
    ts__json j;
    const char *s;
    ts_error *err;
    zarr_meta *m;
} zarr_parse;

static ts_status json_bad(zarr_parse *p)
{
    const ts__json *j = &p->j;
    if (j->error == TS__JSON_ENOMEM)
        return ts__error(p->err, TS_ERR_NOMEM, "out of memory reading the JSON");
    return ts__fail(p->err, TS_ERR_FORMAT, 0, (int64_t)j->error_at,
                    "not valid JSON at byte %zu (line %zu): %s", j->error_at,
                    ts__json_line(j, j->error_at), j->error_text);
}

static ts_status bad(zarr_parse *p, const char *what)
{
    size_t at = p->j.i;
    return ts__fail(p->err, TS_ERR_FORMAT, 0, (int64_t)at, "%s (byte %zu, line %zu)", what, at,
                    ts__json_line(&p->j, at));
}

static int key_is(const zarr_parse *p, const ts__json_str *k, const char *name)
{
    size_t n = strlen(name);
    return k->len == n && !k->escaped && memcmp(p->s + k->at + 1, name, n) == 0;
}

/* A string value into buf (cap bytes, NUL-terminated): 0, or an error for
 * a value that is not a string or is too long. */
static ts_status get_string(zarr_parse *p, const char *what, char *buf, size_t cap)
{
    ts__json_str v;
    if (ts__json_peek(&p->j) != TS__JSON_STRING)
        return p->j.error ? json_bad(p) : bad(p, what);
    if (ts__json_string(&p->j, &v) != 0)
        return json_bad(p);
    if (v.len >= cap)
        return bad(p, what);
    ts__json_decode(p->s, &v, buf);
    buf[v.len] = '\0';
    return TS_OK;
}

/* A list of at most TS_MAX_NDIM non-negative integers. */
static ts_status get_dims(zarr_parse *p, const char *what, int64_t *dims, int *n)
{
    size_t count = 0;
    int r;
    *n = 0;
    if (ts__json_peek(&p->j) != TS__JSON_ARRAY || ts__json_array_open(&p->j) != 0)
        return p->j.error ? json_bad(p) : bad(p, what);
    while ((r = ts__json_array_next(&p->j, &count)) == 1) {
        int64_t v;
        if (*n == TS_MAX_NDIM || ts__json_peek(&p->j) != TS__JSON_INTEGER ||
            ts__json_integer(&p->j, &v) != 0 || v < 0)
            return p->j.error ? json_bad(p) : bad(p, what);
        dims[(*n)++] = v;
    }
    return r < 0 ? json_bad(p) : TS_OK;
}

/* Appends a codec name to the JSON list and decides how it is decoded. */
static void add_codec(zarr_meta *m, const char *name)
{
    size_t n = strlen(m->codecs);
    if (n + strlen(name) + 4 < sizeof m->codecs)
        snprintf(m->codecs + n, sizeof m->codecs - n, "%s\"%s\"", n ? "," : "", name);
    if (strcmp(name, "bytes") == 0)
        return;
    if (strcmp(name, "crc32c") == 0) {
        m->crc32c = 1;
        return;
    }
    zarr_codec c = strcmp(name, "zlib") == 0    ? ZC_ZLIB
                   : strcmp(name, "gzip") == 0  ? ZC_GZIP
                   : strcmp(name, "zstd") == 0  ? ZC_ZSTD
                   : strcmp(name, "blosc") == 0 ? ZC_BLOSC
                                                : ZC_OTHER;
    if (c != ZC_OTHER && m->codec == ZC_NONE) {
        m->codec = c;
        return;
    }
    m->codec = ZC_OTHER;
    if (!m->unread[0])
        snprintf(m->unread, sizeof m->unread, "%s", name);
}

/* A codec object: {"id": NAME, ...} (v2) or {"name": NAME, "configuration":
 * {...}} (v3); the bytes codec's endian is kept. */
static ts_status get_codec(zarr_parse *p)
{
    ts__json_str k;
    size_t count = 0;
    int r;
    char name[48] = "", endian[16] = "";
    if (ts__json_peek(&p->j) != TS__JSON_OBJECT || ts__json_object_open(&p->j) != 0)
        return p->j.error ? json_bad(p) : bad(p, "a codec is not an object");
    while ((r = ts__json_object_next(&p->j, &count, &k)) == 1) {
        ts_status st = TS_OK;
        if (key_is(p, &k, "id") || key_is(p, &k, "name")) {
            st = get_string(p, "a codec's name is not a short string", name, sizeof name);
        } else if (key_is(p, &k, "configuration") &&
                   ts__json_peek(&p->j) == TS__JSON_OBJECT) {
            ts__json_str c;
            size_t cc = 0;
            int rc;
            if (ts__json_object_open(&p->j) != 0)
                return json_bad(p);
            while (!st && (rc = ts__json_object_next(&p->j, &cc, &c)) == 1)
                st = key_is(p, &c, "endian") && ts__json_peek(&p->j) == TS__JSON_STRING
                         ? get_string(p, "endian is not a short string", endian, sizeof endian)
                     : ts__json_skip(&p->j) ? json_bad(p)
                                            : TS_OK;
            if (!st && rc < 0)
                return json_bad(p);
        } else if (ts__json_skip(&p->j) != 0) {
            return json_bad(p);
        }
        if (st)
            return st;
    }
    if (r < 0)
        return json_bad(p);
    if (!name[0])
        return bad(p, "a codec without its name");
    add_codec(p->m, name);
    if (endian[0])
        p->m->endian = strcmp(endian, "big") == 0 ? '>' : '<';
    return TS_OK;
}

/* null, one codec object, or a list of them. */
static ts_status get_codecs(zarr_parse *p)
{
    ts__json_kind k = ts__json_peek(&p->j);
    if (k == TS__JSON_NULL)
        return ts__json_skip(&p->j) ? json_bad(p) : TS_OK;
    if (k == TS__JSON_OBJECT)
        return get_codec(p);
    if (k != TS__JSON_ARRAY || ts__json_array_open(&p->j) != 0)
        return p->j.error ? json_bad(p) : bad(p, "codecs are not null, an object or a list");
    size_t count = 0;
    int r;
    while ((r = ts__json_array_next(&p->j, &count)) == 1) {
        ts_status st = get_codec(p);
        if (st)
            return st;
    }
    return r < 0 ? json_bad(p) : TS_OK;
}

static ts_status get_fill(zarr_parse *p)
{
    zarr_meta *m = p->m;
    switch (ts__json_peek(&p->j)) {
    case TS__JSON_NULL:
        m->fill_kind = 0;
        return ts__json_skip(&p->j) ? json_bad(p) : TS_OK;
    case TS__JSON_INTEGER:
        m->fill_kind = 1;
        return ts__json_integer(&p->j, &m->fill_int) ? json_bad(p) : TS_OK;
    case TS__JSON_TRUE:
    case TS__JSON_FALSE:
        m->fill_kind = 1;
        m->fill_int = ts__json_peek(&p->j) == TS__JSON_TRUE;
        return ts__json_skip(&p->j) ? json_bad(p) : TS_OK;
    case TS__JSON_REAL: {
        size_t at = p->j.i;
        while (at < p->j.n && (p->s[at] == ' ' || p->s[at] == '\n' || p->s[at] == '\t' ||
                               p->s[at] == '\r'))
            at++;
        if (ts__json_skip(&p->j))
            return json_bad(p);
        char buf[64];
        size_t n = p->j.i - at < sizeof buf - 1 ? p->j.i - at : sizeof buf - 1;
        memcpy(buf, p->s + at, n);
        buf[n] = '\0';
        m->fill_kind = 2;
        m->fill_real = strtod(buf, NULL);
        return TS_OK;
    }
    case TS__JSON_STRING: {
        char buf[16];
        ts_status st = get_string(p, "fill_value is not a number, NaN, Infinity or null", buf,
                                  sizeof buf);
        if (st)
            return st;
        m->fill_kind = 2;
        if (strcmp(buf, "NaN") == 0)
            m->fill_real = NAN;
        else if (strcmp(buf, "Infinity") == 0)
            m->fill_real = INFINITY;
        else if (strcmp(buf, "-Infinity") == 0)
            m->fill_real = -INFINITY;
        else
            m->fill_kind = 3; /* bytes in base64, hex floats: kept as written */
        return TS_OK;
    }
    case TS__JSON_BAD:
        return json_bad(p);
    case TS__JSON_OBJECT:
    case TS__JSON_ARRAY:
        m->fill_kind = 3; /* complex, structured: as written */
        return ts__json_skip(&p->j) ? json_bad(p) : TS_OK;
    }
    return TS_OK;
}

/* chunk_grid / chunk_key_encoding of v3: {"name": N, "configuration": {..}}. */
static ts_status get_v3_object(zarr_parse *p, int grid)
{
    ts__json_str k;
    size_t count = 0;
    int r;
    char name[32] = "";
    if (ts__json_peek(&p->j) != TS__JSON_OBJECT || ts__json_object_open(&p->j) != 0)
        return p->j.error ? json_bad(p)
                          : bad(p, grid ? "chunk_grid is not an object"
                                        : "chunk_key_encoding is not an object");
    while ((r = ts__json_object_next(&p->j, &count, &k)) == 1) {
        ts_status st = TS_OK;
        if (key_is(p, &k, "name")) {
            st = get_string(p, "a name that is not a short string", name, sizeof name);
        } else if (key_is(p, &k, "configuration") && ts__json_peek(&p->j) == TS__JSON_OBJECT) {
            ts__json_str c;
            size_t cc = 0;
            int rc;
            if (ts__json_object_open(&p->j) != 0)
                return json_bad(p);
            while (!st && (rc = ts__json_object_next(&p->j, &cc, &c)) == 1) {
                if (grid && key_is(p, &c, "chunk_shape")) {
                    int n;
                    st = get_dims(p, "chunk_shape is not a list of sizes", p->m->chunks, &n);
                    p->m->has_chunks = n + 1;
                } else if (!grid && key_is(p, &c, "separator")) {
                    char sep[4];
                    st = get_string(p, "separator is not \".\" or \"/\"", sep, sizeof sep);
                    if (!st && (strlen(sep) != 1 || (sep[0] != '.' && sep[0] != '/')))
                        st = bad(p, "separator is not \".\" or \"/\"");
                    if (!st)
                        p->m->sep = sep[0];
                } else if (ts__json_skip(&p->j) != 0) {
                    return json_bad(p);
                }
            }
            if (!st && rc < 0)
                return json_bad(p);
        } else if (ts__json_skip(&p->j) != 0) {
            return json_bad(p);
        }
        if (st)
            return st;
    }
    if (r < 0)
        return json_bad(p);
    if (grid && strcmp(name, "regular") != 0)
        return bad(p, "chunk_grid is not \"regular\" (the only grid of Zarr v3)");
    if (!grid) {
        if (strcmp(name, "default") == 0)
            p->m->v3_default_keys = 1;
        else if (strcmp(name, "v2") != 0)
            return bad(p, "chunk_key_encoding is neither \"default\" nor \"v2\"");
    }
    return TS_OK;
}

/* Parses the metadata text (n bytes) of a .zarray, .zgroup or zarr.json. */
static ts_status zarr_parse_meta(const char *s, size_t n, zarr_meta *m, ts_error *err)
{
    zarr_parse p;
    memset(m, 0, sizeof *m);
    p.s = s;
    p.err = err;
    p.m = m;
    ts__json_init(&p.j, s, n, NULL, NULL, NULL);
    ts__json_str k;
    ts__json_keys keys = {NULL, 0, 0};
    size_t count = 0;
    int r;
    char order[4] = "C", node[16] = "", sep[4] = "";
    int has_v3_sep = 0;
    ts_status st = TS_OK;
    if (ts__json_peek(&p.j) != TS__JSON_OBJECT || ts__json_object_open(&p.j) != 0)
        return p.j.error ? json_bad(&p) : bad(&p, "not a JSON object");
    while (!st && (r = ts__json_object_next(&p.j, &count, &k)) == 1) {
        if (ts__json_keys_add(&p.j, &keys, &k) != 0) {
            st = json_bad(&p);
            break;
        }
        if (key_is(&p, &k, "zarr_format")) {
            int64_t v;
            if (ts__json_peek(&p.j) != TS__JSON_INTEGER || ts__json_integer(&p.j, &v) != 0)
                st = p.j.error ? json_bad(&p) : bad(&p, "zarr_format is not an integer");
            else if (v != 2 && v != 3)
                st = ts__fail(err, TS_ERR_UNSUPPORTED, 0, (int64_t)p.j.i,
                              "zarr_format %lld: tshape reads Zarr 2 and 3", (long long)v);
            else
                m->version = (int)v;
        } else if (key_is(&p, &k, "node_type")) {
            st = get_string(&p, "node_type is not \"array\" or \"group\"", node, sizeof node);
        } else if (key_is(&p, &k, "shape")) {
            st = get_dims(&p, "shape is not a list of sizes", m->shape, &m->ndim);
            m->has_shape = 1;
        } else if (key_is(&p, &k, "chunks")) {
            int nc;
            st = get_dims(&p, "chunks is not a list of sizes", m->chunks, &nc);
            m->has_chunks = nc + 1;
        } else if (key_is(&p, &k, "dtype") || key_is(&p, &k, "data_type")) {
            m->has_dtype = 1;
            if (ts__json_peek(&p.j) == TS__JSON_STRING) {
                st = get_string(&p, "the dtype is too long", m->dtype, sizeof m->dtype);
            } else {
                /* a structured dtype (v2 list) or a v3 extension object */
                snprintf(m->dtype, sizeof m->dtype, "(structured)");
                if (ts__json_skip(&p.j) != 0)
                    st = json_bad(&p);
            }
        } else if (key_is(&p, &k, "compressor") || key_is(&p, &k, "filters") ||
                   key_is(&p, &k, "codecs")) {
            st = get_codecs(&p);
        } else if (key_is(&p, &k, "fill_value")) {
            st = get_fill(&p);
        } else if (key_is(&p, &k, "order")) {
            st = get_string(&p, "order is not \"C\" or \"F\"", order, sizeof order);
            if (!st && strcmp(order, "C") != 0 && strcmp(order, "F") != 0)
                st = bad(&p, "order is not \"C\" or \"F\"");
        } else if (key_is(&p, &k, "dimension_separator")) {
            st = get_string(&p, "dimension_separator is not \".\" or \"/\"", sep, sizeof sep);
            if (!st && strcmp(sep, ".") != 0 && strcmp(sep, "/") != 0)
                st = bad(&p, "dimension_separator is not \".\" or \"/\"");
        } else if (key_is(&p, &k, "chunk_grid")) {
            st = get_v3_object(&p, 1);
        } else if (key_is(&p, &k, "chunk_key_encoding")) {
            has_v3_sep = 1;
            st = get_v3_object(&p, 0);
        } else if (ts__json_skip(&p.j) != 0) {
            st = json_bad(&p);
        }
    }
    ts__json_keys_free(&p.j, &keys);
    if (st)
        return st;
    if (r < 0 || ts__json_finish(&p.j) != 0)
        return json_bad(&p);
    if (!m->version)
        return ts__fail(err, TS_ERR_FORMAT, 0, 0, "no zarr_format: not Zarr metadata");
    m->is_array = m->version == 2 ? m->has_shape : strcmp(node, "array") == 0;
    if (m->version == 3 && strcmp(node, "array") != 0 && strcmp(node, "group") != 0)
        return ts__fail(err, TS_ERR_FORMAT, 0, 0,
                        "node_type '%s' is neither \"array\" nor \"group\"", node);
    if (!m->is_array)
        return TS_OK;
    if (!m->has_shape || !m->has_chunks || !m->has_dtype)
        return ts__fail(err, TS_ERR_FORMAT, 0, 0, "the array's metadata lacks its %s",
                        !m->has_shape ? "shape" : !m->has_chunks ? "chunks" : "dtype");
    if (m->has_chunks - 1 != m->ndim)
        return ts__fail(err, TS_ERR_FORMAT, 0, 0,
                        "chunks has %d sizes, the shape %d", m->has_chunks - 1,
                        m->ndim);
    for (int i = 0; i < m->ndim; i++)
        if (m->chunks[i] == 0)
            return ts__fail(err, TS_ERR_FORMAT, 0, 0, "chunk size 0 on axis %d", i);
    m->fortran = order[0] == 'F';
    m->sep = m->version == 2 ? (sep[0] ? sep[0] : '.') : (m->sep ? m->sep
                                                        : m->v3_default_keys ? '/' : '.');
    (void)has_v3_sep;
    return TS_OK;
}

/* ---- the reader ----------------------------------------------------------- */

/* Tried only for files named .zarray, zarr.json or .zgroup (file.c): a
 * JSON object is enough, wherever its zarr_format is (zarr-python 3 writes
 * the attributes before it), and the reader says what is wrong. */
static int probe_zarr(const unsigned char *d, size_t len, ts__source *src)
{
    (void)src;
    size_t n = len < 4096 ? len : 4096, i = 0;
    while (i < n && (d[i] == ' ' || d[i] == '\n' || d[i] == '\r' || d[i] == '\t'))
        i++;
    return i < n && d[i] == '{';
}

/* The folder of the metadata file (path or URL) with its '/'. */
static const char *folder_of(ts_file *f, const char *path, ts_error *err)
{
    const char *slash = strrchr(path, '/');
    return slash ? ts__file_strndup(f, path, (size_t)(slash - path + 1), err)
                 : ts__file_strndup(f, "./", 2, err);
}

static ts_status read_zarr(ts_file *f, const unsigned char *data, size_t len,
                           const ts_open_options *opts, ts_error *err)
{
    if (len > MAX_META)
        return ts__fail(err, TS_ERR_LIMIT, 0, 0,
                        "Zarr metadata of %zu bytes, above tshape's limit of %zu", len,
                        MAX_META);
    ts_status st = ts__file_need(f, 0, len, err);
    if (st)
        return st;
    zarr_meta m;
    if ((st = zarr_parse_meta((const char *)data, len, &m, err)))
        return st;
    ts__file_set_version(f, m.version == 2 ? "2" : "3");
    ts__file_set_extent(f, (int64_t)len);
    if (!m.is_array)
        return TS_OK; /* a group */
    ts_array *a = ts__file_add_array(f, err);
    if (!a)
        return TS_ERR_NOMEM;
    if ((st = ts_shape_assign(&a->shape, m.shape, m.ndim, err)))
        return st;
    ts_dtype dt;
    ts_error sub;
    if (strcmp(m.dtype, "(structured)") == 0 ||
        ts_dtype_from_string(m.dtype, &dt, &sub) != TS_OK)
        return ts__fail(err, TS_ERR_DTYPE, 0, 0,
                        "dtype %s: not a dtype tshape reads from Zarr (NumPy typestrs and "
                        "Zarr v3 data types)", m.dtype);
    ts__array_set_dtype(a, dt);
    if (a->itemsize <= 0)
        return ts__fail(err, TS_ERR_DTYPE, 0, 0, "dtype %s has no fixed item size", m.dtype);
    a->byteorder = a->itemsize == 1 ? '|'
                   : m.version == 2 ? (m.dtype[0] == '>' ? '>' : '<')
                                    : (m.endian ? m.endian : '<');
    if (!(a->format_dtype = ts__file_strndup(f, m.dtype, strlen(m.dtype), err)))
        return TS_ERR_NOMEM;
    if ((st = ts__array_compute_sizes(a, err)))
        return st;
    char chunks[TS_MAX_NDIM * 21 + 4];
    size_t at = 0;
    chunks[at++] = '[';
    for (int i = 0; i < m.ndim; i++)
        at += (size_t)snprintf(chunks + at, sizeof chunks - at, "%s%lld", i ? "," : "",
                               (long long)m.chunks[i]);
    snprintf(chunks + at, sizeof chunks - at, "]");
    char fill[48];
    if (m.fill_kind == 0 || m.fill_kind == 3)
        snprintf(fill, sizeof fill, m.fill_kind ? "(as written)" : "null");
    else if (m.fill_kind == 1)
        snprintf(fill, sizeof fill, "%lld", (long long)m.fill_int);
    else
        ts__json_real(m.fill_real, 0, fill, sizeof fill);
    a->note = ts__file_printf(f, err, "Zarr v%d array: chunks %s, codecs [%s], fill value %s, "
                              "order %c; values from the chunk files beside it%s%s%s",
                              m.version, chunks, m.codecs, fill, m.fortran ? 'F' : 'C',
                              m.unread[0] ? " (not read: codec " : "", m.unread,
                              m.unread[0] ? " is not decoded by tshape)" : "");
    if (!a->note)
        return TS_ERR_NOMEM;
    if (opts->path && !m.unread[0]) {
        ts__data_src src;
        memset(&src, 0, sizeof src);
        src.kind = TS__SRC_ZARR;
        src.size = a->nbytes;
        src.zarr_meta = ts__file_strndup(f, (const char *)data, len, err);
        src.zarr_meta_len = len;
        src.zarr_dir = folder_of(f, opts->path, err);
        if (!src.zarr_meta || !src.zarr_dir)
            return TS_ERR_NOMEM;
        if ((st = ts__file_set_data_src(f, a, &src, err)))
            return st;
    }
    if (opts->want_metadata) {
        char v[16];
        int k = snprintf(v, sizeof v, "%d", m.version);
        char codecs[sizeof m.codecs + 2];
        int kc = snprintf(codecs, sizeof codecs, "[%s]", m.codecs);
        char ord[8];
        int ko = snprintf(ord, sizeof ord, "\"%c\"", m.fortran ? 'F' : 'C');
        const char *fv = m.fill_kind == 3 ? "\"(as written)\"" : fill;
        char fq[56];
        if (m.fill_kind == 2 && !isfinite(m.fill_real)) {
            snprintf(fq, sizeof fq, "\"%s\"", isnan(m.fill_real) ? "NaN"
                                              : m.fill_real > 0 ? "Infinity" : "-Infinity");
            fv = fq;
        }
        if ((st = ts__file_add_metadata(f, "zarr_format", 11, v, (size_t)k, err)) ||
            (st = ts__file_add_metadata(f, "chunks", 6, chunks, strlen(chunks), err)) ||
            (st = ts__file_add_metadata(f, "codecs", 6, codecs, (size_t)kc, err)) ||
            (st = ts__file_add_metadata(f, "fill_value", 10, fv, strlen(fv), err)) ||
            (st = ts__file_add_metadata(f, "order", 5, ord, (size_t)ko, err)))
            return st;
    }
    return TS_OK;
}

const ts__reader ts__reader_zarr = {
    {TS_FORMAT_ZARR, "zarr", ".zarray zarr.json .zgroup",
     "extension .zarray, zarr.json or .zgroup and a JSON object",
     "Zarr v2/v3 array metadata (.zarray, zarr.json), values from raw, zlib, gzip, zstd and "
     "blosc chunks",
     "dtype", 0},
    probe_zarr,
    read_zarr,
    1,
};

/* ---- values --------------------------------------------------------------- */

typedef struct zarr_state {
    zarr_meta m;
    const char *dir;
    size_t itemsize;
    int64_t chunk_elems, chunk_bytes;
    int64_t grid[TS_MAX_NDIM];      /* chunks per axis */
    /* Decoded chunks: one slot per chunk along the last axis (up to
     * MAX_SLOTS and MAX_CACHE bytes), so reading in C order fetches each
     * chunk of a row of chunks once, not once per row of elements. */
    size_t nslots;
    int64_t cached[MAX_SLOTS];      /* flat chunk index held in a slot, -1: none */
    unsigned char *slot[MAX_SLOTS];
    unsigned char *buf;             /* the slot being used */
    unsigned char fill[16];
    int fill_ok;
} zarr_state;

/* The fill value as one element of the array's dtype and byte order. */
static int encode_fill(zarr_state *s, ts_dtype dt, char byteorder)
{
    unsigned char le[16] = {0};
    const zarr_meta *m = &s->m;
    size_t n = s->itemsize;
    if (m->fill_kind == 0 || (m->fill_kind == 1 && m->fill_int == 0) ||
        (m->fill_kind == 2 && m->fill_real == 0 && !signbit(m->fill_real))) {
        memset(s->fill, 0, sizeof s->fill);
        return 1; /* zeros: also what zarr-python gives for a null fill */
    }
    if (m->fill_kind == 3 || n > 8)
        return 0;
    double v = m->fill_kind == 1 ? (double)m->fill_int : m->fill_real;
    if (dt == TS_DTYPE_FLOAT32) {
        float x = (float)v;
        memcpy(le, &x, 4);
    } else if (dt == TS_DTYPE_FLOAT64) {
        memcpy(le, &v, 8);
    } else if (m->fill_kind == 1 && dt != TS_DTYPE_FLOAT16 && dt != TS_DTYPE_BFLOAT16) {
        uint64_t u = (uint64_t)m->fill_int;
        for (size_t i = 0; i < 8; i++)
            le[i] = (unsigned char)(u >> (8 * i));
    } else {
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        s->fill[i] = byteorder == '>' ? le[n - 1 - i] : le[i];
    return 1;
}

ts_status ts__zarr_begin(const ts__data_src *src, size_t itemsize, int64_t count, void **state,
                         ts_error *err)
{
    *state = NULL;
    zarr_state *s = calloc(1, sizeof *s);
    if (!s)
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    ts_status st = zarr_parse_meta(src->zarr_meta, src->zarr_meta_len, &s->m, err);
    if (st) {
        free(s);
        return st;
    }
    s->dir = src->zarr_dir;
    s->itemsize = itemsize;
    int64_t size = 1, ce = 1;
    for (int i = 0; i < s->m.ndim; i++) {
        size *= s->m.shape[i];
        if (ts__mul_overflow(ce, s->m.chunks[i], &ce))
            ce = INT64_MAX;
        s->grid[i] = s->m.shape[i] == 0 ? 0 : (s->m.shape[i] - 1) / s->m.chunks[i] + 1;
    }
    s->chunk_elems = ce;
    if (size != count || ce > MAX_CHUNK / (int64_t)itemsize) {
        free(s);
        return ce > MAX_CHUNK / (int64_t)itemsize
                   ? ts__error(err, TS_ERR_LIMIT, "a chunk of %lld elements is above "
                               "tshape's limit of %lld bytes", (long long)ce,
                               (long long)MAX_CHUNK)
                   : ts__error(err, TS_ERR_FORMAT, "the Zarr metadata changed since it was read");
    }
    s->chunk_bytes = ce * (int64_t)itemsize;
    /* rows of elements come back to a chunk only when it holds more than
     * one row (2 dims or more) */
    int64_t along = s->m.ndim >= 2 ? s->grid[s->m.ndim - 1] : 1;
    int64_t fit = MAX_CACHE / s->chunk_bytes;
    s->nslots = (size_t)(along < fit ? along : fit);
    if (s->nslots > MAX_SLOTS)
        s->nslots = MAX_SLOTS;
    if (s->nslots < 1)
        s->nslots = 1;
    for (size_t i = 0; i < MAX_SLOTS; i++)
        s->cached[i] = -1;
    ts_dtype dt;
    ts_error sub;
    char bo = itemsize == 1 ? '|' : s->m.version == 2 ? (s->m.dtype[0] == '>' ? '>' : '<')
                                                      : (s->m.endian ? s->m.endian : '<');
    if (ts_dtype_from_string(s->m.dtype, &dt, &sub) == TS_OK)
        s->fill_ok = encode_fill(s, dt, bo);
    *state = s;
    return TS_OK;
}

/* The chunk file's path: the folder and the key of chunk coordinates c. */
static char *chunk_path(const zarr_state *s, const int64_t *c)
{
    size_t cap = strlen(s->dir) + 4 + (size_t)(s->m.ndim ? s->m.ndim : 1) * 21;
    char *p = malloc(cap);
    if (!p)
        return NULL;
    size_t at = (size_t)snprintf(p, cap, "%s", s->dir);
    if (s->m.version == 3 && s->m.v3_default_keys)
        at += (size_t)snprintf(p + at, cap - at, s->m.ndim ? "c%c" : "c", s->m.sep);
    else if (s->m.ndim == 0)
        at += (size_t)snprintf(p + at, cap - at, "0");
    for (int i = 0; i < s->m.ndim; i++)
        at += (size_t)snprintf(p + at, cap - at, "%s%lld", i ? (s->m.sep == '/' ? "/" : ".") : "",
                               (long long)c[i]);
    return p;
}

/* Loads chunk coordinates c (flat index `flat`) into s->buf. */
static ts_status load_chunk(zarr_state *s, const int64_t *c, int64_t flat, ts_error *err)
{
    size_t k = s->m.ndim ? (size_t)(c[s->m.ndim - 1] % (int64_t)s->nslots) : 0;
    s->buf = s->slot[k];
    if (s->cached[k] == flat)
        return TS_OK;
    if (!s->buf && !(s->buf = s->slot[k] = malloc((size_t)s->chunk_bytes)))
        return ts__error(err, TS_ERR_NOMEM, "out of memory for a chunk of %lld bytes",
                         (long long)s->chunk_bytes);
    s->cached[k] = -1;
    char *path = chunk_path(s, c);
    if (!path)
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    char *raw = NULL;
    size_t len = 0;
    int missing = 0;
    size_t max = (size_t)s->chunk_bytes + (size_t)s->chunk_bytes / 8 + 65536;
    ts_status st;
    if (ts__is_url(path)) {
        ts_open_options o = TS_OPEN_OPTIONS_INIT;
        unsigned char *b = NULL;
        st = ts__remote_read_all(path, &o, max, &b, &len, &missing, err);
        raw = (char *)b;
    } else {
        st = ts__read_small(path, max, &raw, &len, &missing, err);
    }
    if (st && missing) {
        free(path);
        free(raw);
        if (!s->fill_ok)
            return ts__error(err, TS_ERR_UNSUPPORTED, "chunk %lld is missing and the fill "
                             "value of dtype %s is not one tshape writes", (long long)flat,
                             s->m.dtype);
        for (int64_t i = 0; i < s->chunk_elems; i++)
            memcpy(s->buf + i * (int64_t)s->itemsize, s->fill, s->itemsize);
        s->cached[k] = flat;
        return TS_OK;
    }
    if (st) {
        char shown[160];
        ts__error_prefix(err, "chunk %s", ts__printable_str(path, shown, sizeof shown));
        free(path);
        return st;
    }
    size_t body = len;
    if (s->m.crc32c) {
        if (len < 4) {
            st = ts__error(err, TS_ERR_TRUNCATED, "chunk '%s' is %zu bytes long, shorter "
                           "than its crc32c checksum", path, len);
            goto out;
        }
        body -= 4;
    }
    if (s->m.codec == ZC_NONE) {
        if ((int64_t)body != s->chunk_bytes) {
            st = ts__error(err, TS_ERR_FORMAT, "chunk '%s' holds %zu bytes, expected %lld "
                           "(the chunk shape times the item size)", path, body,
                           (long long)s->chunk_bytes);
            goto out;
        }
        memcpy(s->buf, raw, body);
    } else if (s->m.codec == ZC_ZSTD || s->m.codec == ZC_BLOSC) {
        const char *name = s->m.codec == ZC_ZSTD ? "zstd" : "blosc";
        size_t got = 0;
        st = ts__zarr_decompress(name, raw, body, s->buf, (size_t)s->chunk_bytes, &got, err);
        if (!st && (int64_t)got != s->chunk_bytes)
            st = ts__error(err, TS_ERR_FORMAT, "chunk '%s' (%s) decompresses to %zu bytes, "
                           "expected %lld", path, name, got, (long long)s->chunk_bytes);
        else if (st)
            ts__error_prefix(err, "chunk '%s'", path);
        if (st)
            goto out;
    } else {
        z_stream zs;
        memset(&zs, 0, sizeof zs);
        if (inflateInit2(&zs, 15 + 32) != Z_OK) {
            st = ts__error(err, TS_ERR_NOMEM, "cannot start zlib's inflate");
            goto out;
        }
        /* chunks are below 1 GiB: lengths fit in uInt */
        zs.next_in = (unsigned char *)raw;
        zs.avail_in = (uInt)body;
        zs.next_out = s->buf;
        zs.avail_out = (uInt)s->chunk_bytes;
        int rc = inflate(&zs, Z_FINISH);
        uLong out = zs.total_out;
        inflateEnd(&zs);
        if (rc != Z_STREAM_END || (int64_t)out != s->chunk_bytes) {
            st = ts__error(err, TS_ERR_FORMAT, "chunk '%s' (%s) %s after %lu bytes, expected "
                           "%lld", path, s->m.codec == ZC_GZIP ? "gzip" : "zlib",
                           rc == Z_STREAM_END ? "inflates to its end"
                           : rc == Z_BUF_ERROR && zs.avail_out == 0 ? "inflates on"
                                                                    : "does not inflate",
                           (unsigned long)out, (long long)s->chunk_bytes);
            goto out;
        }
    }
    s->cached[k] = flat;
out:
    free(raw);
    free(path);
    return st;
}

ts_status ts__zarr_read(void *state, int64_t first, int64_t n, void *out, ts_error *err)
{
    zarr_state *s = state;
    const zarr_meta *m = &s->m;
    unsigned char *o = out;
    const int nd = m->ndim;
    while (n > 0) {
        /* the element's index, its chunk, and where it is in the chunk */
        int64_t idx[TS_MAX_NDIM], c[TS_MAX_NDIM], rest = first, flat = 0, off = 0, stride = 1;
        for (int k = nd - 1; k >= 0; k--) {
            idx[k] = rest % m->shape[k];
            rest /= m->shape[k];
            c[k] = idx[k] / m->chunks[k];
        }
        for (int k = 0; k < nd; k++)
            flat = flat * s->grid[k] + c[k];
        if (m->fortran) {
            for (int k = 0; k < nd; k++) {
                off += (idx[k] % m->chunks[k]) * stride;
                stride *= m->chunks[k];
            }
        } else {
            for (int k = nd - 1; k >= 0; k--) {
                off += (idx[k] % m->chunks[k]) * stride;
                stride *= m->chunks[k];
            }
        }
        int64_t run = 1;
        if (nd > 0 && !m->fortran) {
            int64_t in_chunk = m->chunks[nd - 1] - idx[nd - 1] % m->chunks[nd - 1];
            int64_t in_row = m->shape[nd - 1] - idx[nd - 1];
            run = in_chunk < in_row ? in_chunk : in_row;
            if (run > n)
                run = n;
        }
        ts_status st = load_chunk(s, c, flat, err);
        if (st)
            return st;
        memcpy(o, s->buf + off * (int64_t)s->itemsize, (size_t)run * s->itemsize);
        o += run * (int64_t)s->itemsize;
        first += run;
        n -= run;
    }
    return TS_OK;
}

void ts__zarr_end(void *state)
{
    zarr_state *s = state;
    for (size_t i = 0; s && i < MAX_SLOTS; i++)
        free(s->slot[i]);
    free(s);
}
