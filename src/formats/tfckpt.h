/*
 * tfckpt.h - the TensorFlow checkpoint reader's walk for other readers: a
 * SavedModel's variables are a checkpoint (variables/variables.index).
 */
#ifndef TSHAPE_TFCKPT_H
#define TSHAPE_TFCKPT_H

#include "reader.h"

/*
 * Appends to f the arrays of the checkpoint PREFIX.index found beside
 * opts->path (not NULL; prefix relative to its folder, such as
 * "variables/variables": sidefile.c's checks, a URL beside a remote model),
 * as the tfckpt reader reports them: storage_key PREFIX.data-k-of-N, values
 * read from those shards. *count receives the number of arrays added.
 * Errors: those of ts__side_locate (TS_ERR_IO when the index is missing)
 * and of the tfckpt reader, the message prefixed with the index's name.
 */
ts_status ts__tfckpt_variables(ts_file *f, const char *prefix, const ts_open_options *opts,
                               size_t *count, ts_error *err);

#endif /* TSHAPE_TFCKPT_H */
