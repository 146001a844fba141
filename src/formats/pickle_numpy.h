/*
 * pickle_numpy.h - NumPy values inside pickles, read as data from the value
 * tree of the pickle machine (pickle.h), never run:
 *   - arrays: numpy.core.multiarray._reconstruct(numpy.ndarray, (0,), b'b')
 *     with BUILD state (version, shape, dtype, is_fortran, rawdata)
 *     (ndarray.__reduce__), numpy.core.numeric._frombuffer(buffer, dtype,
 *     shape, order) (ndarray.__reduce_ex__(5)), and joblib's
 *     NumpyArrayWrapper, whose bytes follow its BUILD outside the pickle
 *     (joblib/numpy_pickle.py write_array);
 *   - dtypes: numpy.dtype(kind_size, False, True) with BUILD state
 *     (version, byteorder, subdescr, names, fields, elsize, alignment,
 *     flags[, metadata]) (dtype.__reduce__);
 *   - scalars: numpy.core.multiarray.scalar(dtype, bytes).
 * NumPy 2 writes numpy._core for numpy.core: both are read.
 */
#ifndef TSHAPE_PICKLE_NUMPY_H
#define TSHAPE_PICKLE_NUMPY_H

#include "pickle.h"

/* What a value is, by the global it calls or instantiates. */
enum { TS__NP_NONE, TS__NP_ARRAY, TS__NP_SCALAR, TS__NP_DTYPE };
int ts__np_kind(const ts__pk_value *v);

typedef struct ts__np_array {
    char descr[48];          /* NumPy descr: "<f4", "|S5", "<M8[ns]", "|O8" */
    int ndim;
    int64_t shape[TS_MAX_NDIM];
    int fortran;             /* 1: the bytes are in F order */
    const ts__pk_value *data;/* the bytes of the elements, in the input, or
                                NULL (then `why`) */
    int64_t data_at;         /* joblib: input offset of the bytes, else -1 */
    const char *why;         /* static text: why the elements are not
                                addressable ("the pickle holds Python
                                objects", ...), or NULL */
} ts__np_array;

/*
 * Reads array v (ts__np_kind TS__NP_ARRAY) into *out. Errors, with a
 * message that names what is wrong (no position: the caller adds it):
 * TS_ERR_FORMAT (the reduce arguments or the state are not what NumPy
 * writes), TS_ERR_NDIM, TS_ERR_DTYPE (a dtype tshape cannot describe:
 * structured and subarray dtypes), TS_ERR_VALUE (negative dims).
 */
ts_status ts__np_array_of(const ts__pk_value *v, ts__np_array *out, ts_error *err);

/* The descr of dtype value dt (a numpy.dtype call with its state) into
 * buf (cap >= 48). Errors as ts__np_array_of. */
ts_status ts__np_dtype_descr(const ts__pk_value *dt, char *buf, size_t cap, ts_error *err);

/* The JSON text of scalar v (TS__NP_SCALAR) into buf (cap >= 64): a
 * number, true/false, or {"numpy": "<descr>"} when its dtype is not a
 * number. Errors as ts__np_array_of. */
ts_status ts__np_scalar_json(const ts__pk_value *v, char *buf, size_t cap, ts_error *err);

/*
 * joblib: the observer's part at a BUILD event (pickle.h). When the target
 * is a NumpyArrayWrapper, its array's bytes follow the opcode (after a
 * padding-length byte and that many bytes when the wrapper has
 * numpy_array_alignment_bytes): *skip receives their count, target->data_at
 * their input offset. An object array is a pickle there instead: *nested
 * is set to 1 and *skip to 0, and the caller loads it (its end is the
 * skip). Other targets: *skip 0. Errors (prefixed "<where> byte <at>"):
 * TS_ERR_FORMAT, TS_ERR_TRUNCATED, TS_ERR_OVERFLOW.
 */
ts_status ts__joblib_build(ts__pk_event *e, const char *where, int *nested, ts_error *err);

#endif /* TSHAPE_PICKLE_NUMPY_H */
