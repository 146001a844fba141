/*
 * reader.h - the one interface every file-format reader implements.
 *
 * A reader gets the whole file as a read-only byte range (mmap'ed by
 * ts_file_open, or borrowed by ts_file_open_memory) and appends one ts_array
 * per array it finds with ts__file_add_array. It must treat the bytes as
 * hostile: check every length and count against what is left before using
 * it (see ts__cursor in internal.h), compute sizes with overflow checks, and
 * never allocate in proportion to a number it has not checked against the
 * file size. Readers look only at headers: they never touch payload bytes.
 *
 * Error messages name the entry ("array 3 'arg:fc_weight': ...") and set
 * err->offset to the byte offset of the problem.
 */
#ifndef TSHAPE_READER_H
#define TSHAPE_READER_H

#include "../core/internal.h"

typedef struct ts__reader {
    ts_format_info info;     /* the public row: id, name, extensions, ... */
    /* 1 when the first bytes look like this format (len may be < 8). NULL
     * for formats that are never auto-detected. Formats without a signature
     * (protobuf files) start info.detection with "extension": their probe is
     * a strict structural check, tried only when ts_open_options.path has
     * one of info.extensions (file.c). */
    int (*probe)(const unsigned char *data, size_t len);
    /* Parses the file; on failure the caller closes the partial ts_file. */
    ts_status (*read)(ts_file *f, const unsigned char *data, size_t len,
                      const ts_open_options *opts, ts_error *err);
} ts__reader;

#define TS_READER(name) extern const ts__reader ts__reader_##name;
#include "formats.def"
#undef TS_READER

/*
 * Appends a new array to f, fully initialised: empty name "", scalar shape,
 * dtype unknown, byteorder '|', block_size 1, nbytes 0, data_offset -1,
 * storage dense, descr/device/storage_key NULL, strides empty. After the
 * reader returns, the file fills what the reader left unset: descr from the
 * dtype when NumPy has one, strides from shape and fortran_order. Returns NULL (and sets err) on allocation failure.
 */
ts_array *ts__file_add_array(ts_file *f, ts_error *err);

/* Copies n bytes of s (need not be NUL-terminated) into storage owned by f
 * and returns the NUL-terminated copy, or NULL (err set) on failure. */
const char *ts__file_strndup(ts_file *f, const char *s, size_t n, ts_error *err);
/* printf into storage owned by f. */
const char *ts__file_printf(ts_file *f, ts_error *err, const char *fmt, ...)
    TS__PRINTF(3, 4);

/* Sets the version text ("1.0", "V2", "3"); the string must be static or
 * owned by f. */
void ts__file_set_version(ts_file *f, const char *version);

/* Appends a metadata entry (both strings copied). */
ts_status ts__file_add_metadata(ts_file *f, const char *key, size_t key_len,
                                const char *json_value, size_t value_len,
                                ts_error *err);

/* Sets a->dtype from a fixed-size dtype and fills dtype_name, itemsize,
 * bits, block_size (1) and block_bytes from the dtype table. format_dtype and
 * byteorder are left to the caller. */
void ts__array_set_dtype(ts_array *a, ts_dtype dt);

/*
 * Computes a->size from a->shape and a->nbytes from size and the dtype
 * fields (itemsize, or bits for sub-byte types rounded up to whole bytes,
 * or blocks for quantized types: size must be a multiple of block_size).
 * Errors: TS_ERR_OVERFLOW, TS_ERR_VALUE, TS_ERR_FORMAT (block multiple).
 */
ts_status ts__array_compute_sizes(ts_array *a, ts_error *err);

#endif /* TSHAPE_READER_H */
