/*
 * model_meta.c - what a model says about itself besides its tensors
 * (issue 20 item 18): the top-level entries of the folder's config.json
 * (model_type, architectures, the sizes, as transformers writes it), the
 * index's "metadata" object (total_size), and the members' metadata
 * (safetensors __metadata__, GGUF key/values, ...) with each (key, value)
 * pair listed once and the number of members that hold it, so the shards
 * of one model give one "format": "pt", not one per shard.
 */
#include "model_meta.h"

#include "../core/json.h"

#include <stdio.h>
#include <stdlib.h>

/* config.json and the index are read whole up to this size. */
#define SIDE_JSON_MAX ((size_t)64 << 20)

struct ts__model_meta {
    ts_model_meta *v;
    size_t n, cap;
    char **owned;                /* strings this store allocated */
    size_t nowned, capowned;
    uint64_t *hash;              /* per entry: of key and value (members) */
};

static ts_status keep(ts__model_meta *mm, char *s, ts_error *err)
{
    if (!s)
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    if (mm->nowned == mm->capowned) {
        size_t cap = mm->capowned ? 2 * mm->capowned : 16;
        char **p = realloc(mm->owned, cap * sizeof *p);
        if (!p) {
            free(s);
            return ts__error(err, TS_ERR_NOMEM, "out of memory");
        }
        mm->owned = p;
        mm->capowned = cap;
    }
    mm->owned[mm->nowned++] = s;
    return TS_OK;
}

static ts_status add(ts__model_meta *mm, ts_model_meta_source source, const char *path,
                     const char *key, const char *value, uint64_t hash, ts_error *err)
{
    if (mm->n == mm->cap) {
        size_t cap = mm->cap ? 2 * mm->cap : 16;
        ts_model_meta *p = realloc(mm->v, cap * sizeof *p);
        uint64_t *h = realloc(mm->hash, cap * sizeof *h);
        if (p)
            mm->v = p;
        if (h)
            mm->hash = h;
        if (!p || !h)
            return ts__error(err, TS_ERR_NOMEM, "out of memory");
        mm->cap = cap;
    }
    mm->v[mm->n] = (ts_model_meta){source, path, key, value, 1};
    mm->hash[mm->n++] = hash;
    return TS_OK;
}

/* The JSON text s[0..n) without whitespace outside strings, malloc'd. */
static char *compact(const char *s, size_t n)
{
    char *out = malloc(n + 1);
    size_t o = 0;
    int in_string = 0;
    for (size_t i = 0; out && i < n; i++) {
        char c = s[i];
        if (in_string) {
            out[o++] = c;
            if (c == '\\' && i + 1 < n)
                out[o++] = s[++i];
            else if (c == '"')
                in_string = 0;
        } else if (c == '"') {
            in_string = 1;
            out[o++] = c;
        } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
            out[o++] = c;
        }
    }
    if (out)
        out[o] = '\0';
    return out;
}

/* config.json or the index whole; a file that cannot be read is a problem
 * (but none when it does not exist: config.json is optional). */
static ts_status read_text(const char *path, char **text, size_t *len, char *problem,
                           size_t cap, ts_error *err)
{
    int missing;
    ts_error e;
    ts_status st = ts__read_small(path, SIDE_JSON_MAX, text, len, &missing, &e);
    if (st == TS_ERR_IO) {
        if (!missing)
            snprintf(problem, cap, "'%s' is not read: %s", path, e.message);
        return TS_OK;
    }
    if (st && err)
        *err = e;
    return st;
}

/*
 * The entries of the object at j's position (the whole text, or the value
 * of the index's "metadata" key), each value compacted. Sets problem on a
 * scan error (entries so far are kept).
 */
static ts_status object_entries(ts__model_meta *mm, ts__json *j, const char *text,
                                ts_model_meta_source source, const char *path, char *problem,
                                size_t cap, ts_error *err)
{
    ts__json_str key;
    size_t count = 0;
    ts_status st = TS_OK;
    if (ts__json_object_open(j) != 0)
        goto bad;
    int r;
    while (st == TS_OK && (r = ts__json_object_next(j, &count, &key)) == 1) {
        char *k = malloc(key.len + 1);
        if ((st = keep(mm, k, err)))
            return st;
        ts__json_decode(text, &key, k);
        k[key.len] = '\0';
        if (ts__json_peek(j) == TS__JSON_BAD)
            goto bad;
        size_t at = j->i;
        if (ts__json_skip(j) != 0)
            goto bad;
        char *v = compact(text + at, j->i - at);
        if (!(st = keep(mm, v, err)))
            st = add(mm, source, path, k, v, 0, err);
    }
    if (st == TS_OK && r < 0)
        goto bad;
    return st;
bad:
    snprintf(problem, cap, "'%s' is not read: %s (line %zu)", path,
             j->error ? j->error_text : "not a JSON object", ts__json_line(j, j->error_at));
    return TS_OK;
}

/* config.json: every top-level entry. */
static ts_status config_entries(ts__model_meta *mm, const char *path, char *problem,
                                size_t cap, ts_error *err)
{
    char *text;
    size_t len;
    ts_status st = read_text(path, &text, &len, problem, cap, err);
    if (st || !text)
        return st;
    ts__json j;
    ts__json_init(&j, text, len, NULL, NULL, NULL);
    if (ts__json_peek(&j) != TS__JSON_OBJECT)
        snprintf(problem, cap, "'%s' is not read: %s", path,
                 j.error ? j.error_text : "not a JSON object");
    else
        st = object_entries(mm, &j, text, TS_MODEL_META_CONFIG, path, problem, cap, err);
    free(text);
    return st;
}

/* The index: the entries of its top-level "metadata" object. */
static ts_status index_entries(ts__model_meta *mm, const char *path, char *problem, size_t cap,
                               ts_error *err)
{
    char *text;
    size_t len;
    ts_status st = read_text(path, &text, &len, problem, cap, err);
    if (st || !text)
        return st;
    ts__json j;
    ts__json_str key;
    size_t count = 0;
    ts__json_init(&j, text, len, NULL, NULL, NULL);
    /* ts_model_open has checked the index; its "metadata" is found here */
    if (ts__json_peek(&j) == TS__JSON_OBJECT && ts__json_object_open(&j) == 0) {
        while (st == TS_OK && ts__json_object_next(&j, &count, &key) == 1) {
            char kb[8];
            if (key.len == 8)
                ts__json_decode(text, &key, kb);
            if (key.len == 8 && memcmp(kb, "metadata", 8) == 0 &&
                ts__json_peek(&j) == TS__JSON_OBJECT) {
                st = object_entries(mm, &j, text, TS_MODEL_META_INDEX, path, problem, cap, err);
                break;
            }
            if (ts__json_skip(&j) != 0)
                break;
        }
    }
    free(text);
    return st;
}

/* The members' entries: each (key, value) once, counting the members. */
static ts_status member_entries(ts__model_meta *mm, ts_file *const *files, char *const *paths,
                                size_t n, ts_error *err)
{
    size_t first = mm->n;
    ts_status st = TS_OK;
    for (size_t f = 0; st == TS_OK && f < n; f++) {
        for (size_t i = 0; st == TS_OK && i < ts_file_metadata_count(files[f]); i++) {
            const char *key, *value = NULL;
            ts_file_metadata(files[f], i, &key, &value);
            if (!value)
                value = "null"; /* could not be rendered (out of memory) */
            uint64_t h = ts__json_fnv(ts__json_fnv(TS__JSON_FNV_BASIS, key, strlen(key) + 1),
                                      value, strlen(value));
            size_t k = first;
            while (k < mm->n && (mm->hash[k] != h || strcmp(mm->v[k].key, key) != 0 ||
                                 strcmp(mm->v[k].value, value) != 0))
                k++;
            if (k < mm->n)
                mm->v[k].files++;
            else
                st = add(mm, TS_MODEL_META_MEMBER, paths[f], key, value, h, err);
        }
    }
    return st;
}

ts_status ts__model_meta_collect(const char *config, const char *index, ts_file *const *files,
                                 char *const *paths, size_t n, ts__model_meta **out,
                                 char *problem, size_t cap, ts_error *err)
{
    problem[0] = '\0';
    ts__model_meta *mm = calloc(1, sizeof *mm);
    if (!mm)
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    ts_status st = TS_OK;
    char *cp = config ? strdup(config) : NULL, *ip = index ? strdup(index) : NULL;
    if (config && (st = keep(mm, cp, err)) == TS_OK)
        st = config_entries(mm, cp, problem, cap, err);
    if (!st && index && (st = keep(mm, ip, err)) == TS_OK)
        st = index_entries(mm, ip, problem, cap, err);
    else if (index && st)
        free(ip);
    if (!st)
        st = member_entries(mm, files, paths, n, err);
    if (st) {
        ts__model_meta_free(mm);
        return st;
    }
    *out = mm;
    return TS_OK;
}

void ts__model_meta_free(ts__model_meta *mm)
{
    if (!mm)
        return;
    for (size_t i = 0; i < mm->nowned; i++)
        free(mm->owned[i]);
    free(mm->owned);
    free(mm->v);
    free(mm->hash);
    free(mm);
}

size_t ts__model_meta_count(const ts__model_meta *mm)
{
    return mm ? mm->n : 0;
}

const ts_model_meta *ts__model_meta_at(const ts__model_meta *mm, size_t i)
{
    return mm && i < mm->n ? &mm->v[i] : NULL;
}
