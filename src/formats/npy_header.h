/*
 * npy_header.h - the NumPy .npy header parser shared by the npy reader
 * (a bare .npy file) and the npz reader (each .npy member of a zip).
 *
 * An npy stream is: magic "\x93NUMPY", major and minor version bytes,
 * HEADER_LEN (u16 LE for 1.0, u32 LE for 2.0 and 3.0), HEADER_LEN bytes of a
 * Python dict literal, then the data (numpy/lib/format.py docstring and
 * _read_array_header). Offsets below count from the start of the stream;
 * for a .npy file that is the file offset.
 */
#ifndef TSHAPE_NPY_HEADER_H
#define TSHAPE_NPY_HEADER_H

#include "reader.h"

#define TS__NPY_MAGIC "\x93NUMPY"
#define TS__NPY_MAGIC_LEN 6
/* Magic + version + the longest length field: enough to know HEADER_LEN. */
#define TS__NPY_PRELUDE_MAX 12
/* numpy.lib.format._MAX_HEADER_SIZE, the default max_header_size. */
#define TS__NPY_DEFAULT_MAX_HEADER 10000

typedef struct ts__npy_prelude {
    int major, minor;
    const char *version;     /* static text "1.0", "2.0" or "3.0" */
    size_t dict_start;       /* 10 (v1.0) or 12: offset of the header dict */
    size_t header_len;       /* HEADER_LEN: bytes of dict text and padding */
    int64_t data_start;      /* dict_start + header_len: offset of the data */
} ts__npy_prelude;

/* 1 when p (len bytes) starts with the full npy magic. */
int ts__npy_has_magic(const unsigned char *p, size_t len);

/*
 * Reads magic, version and HEADER_LEN from the first `avail` bytes of an
 * npy stream that is `stream_size` bytes long in all (avail <=
 * stream_size), and checks HEADER_LEN against the bytes left and against
 * max_header (0 means NumPy's 10000) before anyone uses it. `container`
 * names the stream in messages: "file" or "member".
 * Errors (err->offset from the stream start): TS_ERR_FORMAT (bad magic),
 * TS_ERR_UNSUPPORTED (version other than 1.0, 2.0, 3.0), TS_ERR_TRUNCATED
 * (stream ends inside the preamble or the header), TS_ERR_LIMIT (header
 * above max_header; the message says how to raise it).
 */
ts_status ts__npy_read_prelude(const unsigned char *p, size_t avail, int64_t stream_size,
                               size_t max_header, const char *container,
                               ts__npy_prelude *out, ts_error *err);

/*
 * Parses the header dict (pre->header_len bytes at `dict`) and fills `a`:
 * shape, dtype, dtype_name, format_dtype, byteorder, itemsize, bits,
 * block_bytes, fortran_order, size, nbytes (-1 when the dtype holds Python
 * objects) and note. It sets neither name nor data_offset. Strings are
 * allocated in f.
 * Errors (err->offset from the stream start): TS_ERR_FORMAT (syntax, keys,
 * values), TS_ERR_DTYPE (descr), TS_ERR_OVERFLOW, TS_ERR_NDIM,
 * TS_ERR_UNSUPPORTED, TS_ERR_LIMIT (structure nesting), TS_ERR_NOMEM.
 */
ts_status ts__npy_parse_header(ts_file *f, ts_array *a, const ts__npy_prelude *pre,
                               const unsigned char *dict, ts_error *err);

/*
 * Checks that a stream of stream_size bytes holds the a->nbytes data bytes
 * that start at pre->data_start (trailing bytes are allowed, as in NumPy).
 * Skipped when nbytes is -1 (object dtype). `where` is appended to "at
 * offset N" in the message ("" or " of the member").
 * Errors: TS_ERR_TRUNCATED ("data is truncated: shape (3,3,3) of float64
 * needs 216 bytes at offset 128, but only 40 remain").
 */
ts_status ts__npy_check_data(const ts_array *a, const ts__npy_prelude *pre,
                             int64_t stream_size, const char *where, ts_error *err);

/*
 * Sets a's dtype fields (dtype, dtype_name, format_dtype and descr, both
 * the text `descr`, copied into f; byteorder, itemsize, bits, block_bytes)
 * from a simple NumPy descr ("<f4", "|S5", "<M8[ns]"), as a header's
 * 'descr' sets them. Errors: TS_ERR_DTYPE (ts_descr_parse), TS_ERR_NOMEM.
 */
ts_status ts__npy_apply_descr(ts_file *f, ts_array *a, const char *descr, ts_error *err);

#endif /* TSHAPE_NPY_HEADER_H */
