/*
 * expected_json.h - checks a reader against a corpus folder's expected.json
 * (../shared/corpus/<dir>/expected.json, written by the corpus generators):
 * for each file entry, either every tensor (name, dtype, shape, data_offset,
 * nbytes; null = -1) in order, or, for {"error": ...} entries, a clean
 * failure (status, one-line message, no ts_file). Included by the suites of
 * the readers of those folders (static functions: no shared object file).
 */
#ifndef TSHAPE_EXPECTED_JSON_H
#define TSHAPE_EXPECTED_JSON_H

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

static int64_t ej_int_or_minus1(json_t *v)
{
    return json_is_integer(v) ? (int64_t)json_integer_value(v) : -1;
}

/* Checks one file entry; returns the number of tensors compared. */
static int ej_check_file(const char *dir, const char *file, json_t *entry, ts_format format)
{
    char rel[512], path[1024];
    snprintf(rel, sizeof rel, "%s/%s", dir, file);
    if (!tu_corpus_path(path, sizeof path, rel))
        return 0;
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    ts_file *f = NULL;
    ts_error err;
    ts_status st = ts_file_open(path, &o, &f, &err);
    json_t *error = json_object_get(entry, "error");
    if (error) {
        ck_assert_msg(st != TS_OK, "%s: opened, expected error '%s'", file,
                      json_string_value(error));
        ck_assert_ptr_null(f);
        ck_assert_int_eq(err.code, st);
        ck_assert_msg(err.message[0] && !strchr(err.message, '\n'), "%s: message '%s'", file,
                      err.message);
        return 0;
    }
    ck_assert_msg(st == TS_OK, "%s: %s", file, err.message);
    ck_assert_int_eq(ts_file_format(f), format);
    json_t *tensors = json_object_get(entry, "tensors");
    size_t n = json_array_size(tensors);
    ck_assert_msg(ts_file_count(f) == n, "%s: %zu arrays, expected %zu", file, ts_file_count(f),
                  n);
    for (size_t i = 0; i < n; i++) {
        json_t *t = json_array_get(tensors, i);
        const ts_array *a = ts_file_array(f, i);
        const char *name = json_string_value(json_object_get(t, "name"));
        ck_assert_msg(strcmp(a->name, name) == 0, "%s: array %zu is '%s', expected '%s'", file,
                      i, a->name, name);
        ck_assert_msg(strcmp(a->dtype_name, json_string_value(json_object_get(t, "dtype"))) == 0,
                      "%s: %s: dtype %s", file, name, a->dtype_name);
        json_t *shape = json_object_get(t, "shape");
        ck_assert_msg(ts_shape_ndim(&a->shape) == (int)json_array_size(shape), "%s: %s: ndim %d",
                      file, name, ts_shape_ndim(&a->shape));
        for (size_t d = 0; d < json_array_size(shape); d++)
            ck_assert_msg(ts_shape_dims(&a->shape)[d] ==
                              (int64_t)json_integer_value(json_array_get(shape, d)),
                          "%s: %s: dim %zu", file, name, d);
        int64_t off = ej_int_or_minus1(json_object_get(t, "data_offset"));
        ck_assert_msg(a->data_offset == off, "%s: %s: data_offset %lld, expected %lld", file,
                      name, (long long)a->data_offset, (long long)off);
        int64_t nb = ej_int_or_minus1(json_object_get(t, "nbytes"));
        ck_assert_msg(a->nbytes == nb, "%s: %s: nbytes %lld, expected %lld", file, name,
                      (long long)a->nbytes, (long long)nb);
    }
    ts_file_close(f);
    return (int)n;
}

/* Checks every entry of <corpus>/<dir>/expected.json whose file name ends
 * with one of `suffixes` (NULL-terminated; NULL: all). Returns the number
 * of tensors compared, or -1 when the corpus is absent (skipped). */
static int ej_check_all(const char *dir, ts_format format, const char *const *suffixes)
{
    char rel[512], path[1024];
    snprintf(rel, sizeof rel, "%s/expected.json", dir);
    if (!tu_corpus_path(path, sizeof path, rel))
        return -1;
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    ck_assert_msg(root != NULL, "%s: %s", path, jerr.text);
    const char *file;
    json_t *entry;
    int total = 0;
    json_object_foreach(root, file, entry) {
        if (file[0] == '_')
            continue;
        int match = !suffixes;
        for (size_t i = 0; suffixes && suffixes[i]; i++) {
            size_t fl = strlen(file), sl = strlen(suffixes[i]);
            match |= fl >= sl && strcmp(file + fl - sl, suffixes[i]) == 0;
        }
        if (match)
            total += ej_check_file(dir, file, entry, format);
    }
    json_decref(root);
    return total;
}

#endif
