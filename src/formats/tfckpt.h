/*
 * tfckpt.h - the TensorFlow checkpoint reader's walk for other readers: a
 * SavedModel's variables are a checkpoint (variables/variables.index).
 */
#ifndef TSHAPE_TFCKPT_H
#define TSHAPE_TFCKPT_H

#include "reader.h"
#include "protobuf.h"

/*
 * Appends to f the arrays of the checkpoint PREFIX.index found beside
 * opts->path (not NULL; prefix relative to its folder, such as
 * "variables/variables": sidefile.c's checks, a URL beside a remote model),
 * as the tfckpt reader reports them: storage_key PREFIX.data-k-of-N, values
 * read from those shards. *count receives the number of arrays added;
 * *absent 1 when a remote model's PREFIX.index is not there (HTTP 404: no
 * variables, TS_OK), else 0.
 * Errors: those of ts__side_locate (TS_ERR_IO when the index is missing)
 * and of the tfckpt reader, the message prefixed with the index's name.
 */
ts_status ts__tfckpt_variables(ts_file *f, const char *prefix, const ts_open_options *opts,
                               size_t *count, int *absent, ts_error *err);

/*
 * Sets a's dtype from a TF DataType (tensorflow/core/framework/types.proto):
 * the NumPy dtype (DT_HALF float16, DT_QINT8 int8, ...), format_dtype the
 * DT_* name, byteorder '>' when big and the itemsize is over 1, else '<'.
 * Returns 1 for fixed-size elements, 0 for DT_STRING, DT_RESOURCE,
 * DT_VARIANT and dtypes tshape has no NumPy dtype for (dtype_name set),
 * -1 for a DataType it does not know (a left alone). *note (may be NULL)
 * receives what the NumPy dtype does not say (static text), or NULL.
 */
int ts__tf_set_dtype(ts_array *a, uint64_t datatype, int big, const char **note);

/*
 * The dims of the TensorShapeProto in length-delimited field fl of m
 * (tensor_shape.proto: dim 2 {size 1}, unknown_rank 3) into dims[*ndim],
 * -1 for an unknown dim; *unknown_rank 1 when it says so. Errors:
 * TS_ERR_NDIM (more than TS_MAX_NDIM), TS_ERR_VALUE (a size below -1),
 * those of the walker; `who` names the tensor.
 */
ts_status ts__tf_shape(const ts__pb_msg *m, const ts__pb_field *fl, int64_t *dims, int *ndim,
                       int *unknown_rank, const char *who, ts_error *err);

#endif /* TSHAPE_TFCKPT_H */
