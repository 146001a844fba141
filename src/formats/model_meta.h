/*
 * model_meta.h - a model's metadata (model_meta.c), collected by
 * ts_model_open when its member options ask for metadata: the folder's
 * config.json, the index's "metadata" object and the members' own
 * metadata, deduplicated. Not installed.
 */
#ifndef TSHAPE_MODEL_META_H
#define TSHAPE_MODEL_META_H

#define TS_EXPERIMENTAL_API
#include "reader.h"

typedef struct ts__model_meta ts__model_meta;

/*
 * Collects the metadata of a model into a new store (*out; free it with
 * ts__model_meta_free): `config` (the folder's config.json, or NULL: none
 * looked for), `index` (or NULL), then the metadata of files[0..n) (paths
 * parallel) in order, each (key, value) pair once with the number of
 * members that hold it. Member values point into the files (valid while
 * they are open); the others are copied, compacted (no whitespace outside
 * strings). A config.json or index that is not a JSON object leaves its
 * entries out and writes why into problem[0..cap) (else problem[0] is
 * NUL). Errors: TS_ERR_NOMEM.
 */
ts_status ts__model_meta_collect(const char *config, const char *index, ts_file *const *files,
                                 char *const *paths, size_t n, ts__model_meta **out,
                                 char *problem, size_t cap, ts_error *err);
void ts__model_meta_free(ts__model_meta *mm);

/* Reads the regular file at path whole, at most max bytes, into *out
 * (malloc'd; *len bytes). Errors: TS_ERR_IO ("cannot open: ...", with
 * *missing 1 when it does not exist; "not a regular file of at most N
 * MiB"), TS_ERR_NOMEM (model.c). */
ts_status ts__read_small(const char *path, size_t max, char **out, size_t *len, int *missing,
                         ts_error *err);
size_t ts__model_meta_count(const ts__model_meta *mm);
/* The index's metadata.total_size (bytes), or -1 when the model has no
 * index or the index has no such non-negative integer (model.c). */
int64_t ts__model_total_size(const ts_model *m);
const ts_model_meta *ts__model_meta_at(const ts__model_meta *mm, size_t i);

#endif /* TSHAPE_MODEL_META_H */
