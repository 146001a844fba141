/*
 * keras.c - reader for Keras 3 `.keras` model archives (keras/src/saving/
 * saving_lib.py, `_save_model_to_fileobj`): a zip holding metadata.json
 * ({"keras_version", "date_saved"}), config.json (the model's
 * serialize_keras_object: class_name, config.name, config.layers, ...) and
 * model.weights.h5, the variables written by H5IOStore.
 *
 * The variables are the datasets of model.weights.h5, read by the HDF5
 * reader (hdf5_child.h, ts__hdf5_read_embedded) on the member's bytes in
 * place, and named by their HDF5 path as Keras writes them: the object path
 * of the layer (`_save_state`'s inner_path: attribute names and the
 * snake_case class names `_save_container_state` gives list items,
 * "layers/dense_1", "layers/functional/layers/conv2d", "optimizer"), then
 * "vars", then the index of the variable in the layer's save_own_variables
 * order ("layers/dense/vars/0" is Dense's kernel, ".../vars/1" its bias).
 * The names are the same as in the same model's `.weights.h5` (read by
 * the HDF5 reader), so the two compare with diff; mapping indices to
 * "kernel"/"bias" would need each layer class's variable order, which the
 * file does not record.
 *
 * Keras writes the archive with zipfile's default method, stored: every
 * contiguous dataset then has its byte offset in the .keras file. A
 * deflated member (an archive rewritten by another zip tool) is inflated
 * into memory (at most MAX_INFLATED bytes, CRC-32 checked): shapes and
 * dtypes are reported, offsets are not (the note gives the offset inside
 * the member) and values are read through libhdf5 from the inflated copy.
 * model.weights.npz (weights_format="npz") is named as not read.
 */
#include "hdf5_child.h"
#include "zip.h"

#include "../core/jansson_lazy.h"
#include "../core/zlib_lazy.h"
#include <stdlib.h>

#define WEIGHTS_H5 "model.weights.h5"
#define WEIGHTS_NPZ "model.weights.npz"
#define MAX_INFLATED ((uint64_t)1 << 30)   /* a deflated model.weights.h5 */
#define MAX_JSON_MEMBER ((uint64_t)64 << 20) /* config.json, metadata.json */

/* The first member's name, from the local header at byte 0 (APPNOTE 4.3.7):
 * Keras writes metadata.json first, then config.json, then the weights. */
static int probe_keras(const unsigned char *d, size_t len, ts__source *src)
{
    (void)src;
    if (len < 30 || d[0] != 'P' || d[1] != 'K' || d[2] != 3 || d[3] != 4)
        return 0;
    size_t n = (size_t)d[26] | (size_t)d[27] << 8;
    static const char *const first[] = {"metadata.json", "config.json", WEIGHTS_H5};
    if (30 + n > len || 30 + n > TS__HEAD_MIN)
        return 0;
    for (size_t i = 0; i < sizeof first / sizeof *first; i++)
        if (n == strlen(first[i]) && memcmp(d + 30, first[i], n) == 0)
            return 1;
    return 0;
}

/* Index of the member named `name`, or -1. */
static long find_member(const ts__zip *z, const char *name)
{
    for (size_t i = 0; i < ts__zip_count(z); i++)
        if (strcmp(ts__zip_member_at(z, i)->name, name) == 0)
            return (long)i;
    return -1;
}

/* Member i (a JSON file of at most MAX_JSON_MEMBER bytes) parsed; NULL with
 * err set when it cannot be read or is not JSON. */
static json_t *load_json_member(ts_file *f, const ts__zip *z, long i, ts_status *st,
                                ts_error *err)
{
    const ts__zip_member *m = ts__zip_member_at(z, (size_t)i);
    if (m->size > MAX_JSON_MEMBER) {
        *st = ts__fail(err, TS_ERR_LIMIT, 0, m->local_offset,
                       "member '%s' is %llu bytes, more than the %llu read as metadata",
                       m->name, (unsigned long long)m->size,
                       (unsigned long long)MAX_JSON_MEMBER);
        return NULL;
    }
    if ((*st = ts__zip_readable(m, err)))
        return NULL;
    if ((*st = ts__file_need(f, (uint64_t)m->data_offset, m->comp_size, err)))
        return NULL;
    unsigned char *buf = ts__scratch_alloc(f, (size_t)m->size + 1, err);
    if (!buf) {
        *st = TS_ERR_NOMEM;
        return NULL;
    }
    size_t got = 0;
    json_t *j = NULL;
    *st = ts__zip_read(z, (size_t)i, buf, (size_t)m->size, &got, err);
    if (!*st) {
        json_error_t je;
        j = json_loadb((const char *)buf, got, JSON_REJECT_DUPLICATES, &je);
        if (!j)
            *st = ts__fail(err, TS_ERR_FORMAT, 0,
                           m->method == TS__ZIP_STORED ? m->data_offset + je.position
                                                       : m->local_offset,
                           "member '%s' is not JSON: %s (line %d)", m->name, je.text,
                           je.line);
    }
    ts__scratch_free(f, buf);
    return j;
}

static ts_status add_meta(ts_file *f, const char *key, json_t *v, ts_error *err)
{
    char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    if (!text)
        return ts__error(err, TS_ERR_NOMEM, "out of memory for metadata");
    ts_status st = ts__file_add_metadata(f, key, strlen(key), text, strlen(text), err);
    free(text);
    return st;
}

/* metadata.json's entries (keras_version, date_saved, ...) under their own
 * names, and from config.json the model's class_name, module, name and
 * number of layers (config.layers: Sequential and Functional models) as
 * keras.class_name, keras.module, keras.name, keras.layers. */
static ts_status keras_metadata(ts_file *f, const ts__zip *z, ts_error *err)
{
    ts_status st = TS_OK;
    long i = find_member(z, "metadata.json");
    if (i >= 0) {
        json_t *j = load_json_member(f, z, i, &st, err);
        if (j && !json_is_object(j))
            st = ts__fail(err, TS_ERR_FORMAT, 0, ts__zip_member_at(z, (size_t)i)->local_offset,
                          "member 'metadata.json' is JSON but not an object");
        for (void *it = j && !st ? json_object_iter(j) : NULL; it && !st;
             it = json_object_iter_next(j, it))
            st = add_meta(f, json_object_iter_key(it), json_object_iter_value(it), err);
        json_decref(j);
    }
    i = st ? -1 : find_member(z, "config.json");
    if (i >= 0) {
        json_t *j = load_json_member(f, z, i, &st, err);
        json_t *cfg = j ? json_object_get(j, "config") : NULL;
        static const char *const top[] = {"class_name", "module"};
        for (size_t k = 0; j && !st && k < 2; k++) {
            json_t *v = json_object_get(j, top[k]);
            if (json_is_string(v)) {
                char key[32];
                snprintf(key, sizeof key, "keras.%s", top[k]);
                st = add_meta(f, key, v, err);
            }
        }
        json_t *name = cfg ? json_object_get(cfg, "name") : NULL;
        if (!st && json_is_string(name))
            st = add_meta(f, "keras.name", name, err);
        json_t *layers = cfg ? json_object_get(cfg, "layers") : NULL;
        if (!st && json_is_array(layers)) {
            json_t *n = json_integer((json_int_t)json_array_size(layers));
            st = n ? add_meta(f, "keras.layers", n, err)
                   : ts__error(err, TS_ERR_NOMEM, "out of memory for metadata");
            json_decref(n);
        }
        json_decref(j);
    }
    return st;
}

static ts_status read_keras(ts_file *f, const unsigned char *data, size_t len,
                            const ts_open_options *opts, ts_error *err)
{
    ts__zip *z;
    ts_status st = ts__zip_open(&z, f, data, len, err);
    if (st)
        return st;
    long wi = find_member(z, WEIGHTS_H5);
    if (wi < 0) {
        st = find_member(z, WEIGHTS_NPZ) >= 0
             ? ts__fail(err, TS_ERR_UNSUPPORTED, 0, 0,
                        "Keras archive with weights in '" WEIGHTS_NPZ "' (weights_format="
                        "\"npz\"), which this tshape does not read; only '" WEIGHTS_H5 "'")
             : ts__fail(err, TS_ERR_FORMAT, 0, 0,
                        "Keras archive without a '" WEIGHTS_H5 "' member (%zu members)",
                        ts__zip_count(z));
        ts__zip_close(f, z);
        return st;
    }
    const ts__zip_member *m = ts__zip_member_at(z, (size_t)wi);
    if (m->method == TS__ZIP_STORED) {
        /* zip.c checked that the member's bytes lie inside the file. */
        st = ts__file_need(f, (uint64_t)m->data_offset, m->size, err);
        if (!st)
            st = ts__hdf5_read_embedded(f, data + m->data_offset, (size_t)m->size,
                                        m->data_offset, opts, err);
        if (!st)
            ts__file_set_version(f, "Keras 3, stored " WEIGHTS_H5);
    } else if (!(st = ts__zip_readable(m, err))) {
        unsigned char *img = NULL;
        size_t got = 0;
        if (m->size > MAX_INFLATED)
            st = ts__fail(err, TS_ERR_LIMIT, 0, m->local_offset,
                          "member '" WEIGHTS_H5 "' is deflated and %llu bytes inflated, "
                          "more than the %llu tshape inflates in memory (Keras itself "
                          "stores it: its offsets are read in place)",
                          (unsigned long long)m->size, (unsigned long long)MAX_INFLATED);
        else if ((st = ts__file_need(f, (uint64_t)m->data_offset, m->comp_size, err)))
            ;
        else if (!(img = (unsigned char *)ts__file_stralloc(f, (size_t)m->size + 1, err)))
            st = TS_ERR_NOMEM;
        else if (!(st = ts__zip_read(z, (size_t)wi, img, (size_t)m->size, &got, err)) &&
                 (got != m->size || crc32(0L, img, (unsigned)got) != m->crc32))
            st = ts__fail(err, TS_ERR_FORMAT, 0, m->local_offset,
                          "member '" WEIGHTS_H5 "' inflates to %zu bytes with another CRC-32 "
                          "than its directory entry's (%llu bytes, CRC-32 %08x): corrupt",
                          got, (unsigned long long)m->size, (unsigned)m->crc32);
        if (!st)
            st = ts__hdf5_read_embedded(f, img, got, -1, opts, err);
        if (!st)
            ts__file_set_version(f, "Keras 3, deflated " WEIGHTS_H5);
    }
    if (st)
        ts__error_prefix(err, "member '" WEIGHTS_H5 "'");
    if (!st && opts->want_metadata)
        st = keras_metadata(f, z, err);
    ts__zip_close(f, z);
    return st;
}

const ts__reader ts__reader_keras = {
    {TS_FORMAT_KERAS, "keras", ".keras",
     "zip signature PK 03 04 with metadata.json, config.json or model.weights.h5 first",
     "Keras 3 model archive (model.weights.h5 through libhdf5, loaded when needed)", "class", 0},
    probe_keras,
    read_keras,
    0,
};

/* ---- sharded weights: PATH.weights.json (ShardedH5IOStore) ----------------- */

/* Appends name (n bytes, checked) to *names unless it is there. */
static ts_status add_shard(char ***names, size_t *count, const char *name, size_t n,
                           ts_error *err)
{
    ts_status st = ts__side_check_name(name, n, "weights", "the Keras weights index", 0, err);
    if (st)
        return st;
    for (size_t i = 0; i < *count; i++)
        if (strlen((*names)[i]) == n && memcmp((*names)[i], name, n) == 0)
            return TS_OK;
    if (*count >= TS__KERAS_MAX_SHARDS)
        return ts__error(err, TS_ERR_LIMIT, "the Keras weights index names more than %d shard "
                         "files", TS__KERAS_MAX_SHARDS);
    char **p = realloc(*names, (*count + 1) * sizeof *p);
    char *s = p ? malloc(n + 1) : NULL;
    if (p)
        *names = p;
    if (!s)
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    memcpy(s, name, n);
    s[n] = '\0';
    (*names)[(*count)++] = s;
    return TS_OK;
}

ts_status ts__keras_shards(const char *text, size_t len, char ***names, size_t *count,
                           ts_error *err)
{
    *names = NULL;
    *count = 0;
    json_error_t je;
    json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!j)
        return ts__fail(err, TS_ERR_FORMAT, je.column, je.position,
                        "Keras weights index is not JSON: %s (line %d)", je.text, je.line);
    json_t *map = json_is_object(j) ? json_object_get(j, "weight_map") : NULL;
    ts_status st = json_is_object(map)
                   ? TS_OK
                   : ts__fail(err, TS_ERR_FORMAT, 0, 0, "Keras weights index without a "
                              "\"weight_map\" object (saving_lib.py ShardedH5IOStore)");
    for (void *it = st ? NULL : json_object_iter(map); it && !st;
         it = json_object_iter_next(map, it)) {
        json_t *v = json_object_iter_value(it);
        size_t n = json_is_array(v) ? json_array_size(v) : 1;
        for (size_t i = 0; i < n && !st; i++) {
            json_t *s = json_is_array(v) ? json_array_get(v, i) : v;
            if (!json_is_string(s))
                st = ts__fail(err, TS_ERR_FORMAT, 0, 0, "Keras weights index: entry '%s' "
                              "of weight_map is not a shard file name or a list of them",
                              json_object_iter_key(it));
            else
                st = add_shard(names, count, json_string_value(s), json_string_length(s), err);
        }
    }
    json_decref(j);
    if (st) {
        for (size_t i = 0; i < *count; i++)
            free((*names)[i]);
        free(*names);
        *names = NULL;
        *count = 0;
    }
    return st;
}
