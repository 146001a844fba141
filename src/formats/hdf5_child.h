/*
 * hdf5_child.h - the two halves of the HDF5 reader: what calls libhdf5
 * (hdf5.c), which runs only in a child process, and what forks that child
 * and rebuilds its answers (hdf5_child.c), which runs in the caller.
 */
#ifndef TSHAPE_HDF5_CHILD_H
#define TSHAPE_HDF5_CHILD_H

#include "reader.h"

/* ---- hdf5.c: libhdf5 itself (children only, but ts__hdf5_load) ---- */

/* Loads libhdf5 in this process (once): TS_OK, or TS_ERR_UNSUPPORTED
 * naming what is missing. Called by the parent before it forks, so every
 * child inherits the library loaded. */
ts_status ts__hdf5_load(ts_error *err);

/* Told of each array as soon as the listing has added it to f. */
typedef ts_status (*ts__hdf5_array_fn)(ts_file *f, void *arg, ts_error *err);

/* Lists the datasets of the image data[0..len) (signature and superblock
 * already checked) into f through libhdf5, with metadata when asked. */
ts_status ts__hdf5_list(ts_file *f, const unsigned char *data, size_t len,
                        const ts_open_options *opts, ts__hdf5_array_fn on_array, void *arg,
                        ts_error *err);

/* Values of one dataset of the image, as ts__hdf5_begin/read/end
 * (reader.h) but in this process. */
ts_status ts__hdf5_local_begin(const char *dataset, const unsigned char *image, size_t len,
                               size_t itemsize, int64_t count, void **state, ts_error *err);
ts_status ts__hdf5_local_read(void *state, int64_t first, int64_t n, void *out,
                              ts_error *err);
void ts__hdf5_local_end(void *state);

/* Lists the HDF5 file img[0..len) found inside f's file (a Keras 3 .keras
 * zip's model.weights.h5) into f: signature and superblock checked here
 * (messages as for a file of its own), then ts__hdf5_isolated_list. base is
 * the file offset of img[0] when the member is stored: data offsets are
 * shifted by it, and datasets read through libhdf5 read the same bytes of
 * the file. base -1: img is an inflated copy owned by f (a deflated
 * member): no dataset has a file offset (the note gives its offset in the
 * member) and every one is read through libhdf5 from img. Errors: those of
 * the HDF5 reader (err->offset shifted by base), TS_ERR_NOMEM. */
ts_status ts__hdf5_read_embedded(ts_file *f, const unsigned char *img, size_t len,
                                 int64_t base, const ts_open_options *opts, ts_error *err);

/* ---- hdf5_child.c: the parent's side ---- */

/* ts__hdf5_list in a child process (sandbox.h), its arrays, version and
 * metadata rebuilt in f from what the child sends, each field checked. */
ts_status ts__hdf5_isolated_list(ts_file *f, const unsigned char *data, size_t len,
                                 const ts_open_options *opts, ts_error *err);

/* Files of up to this many bytes go to a reused worker (default 1 MiB),
 * larger ones to a child of their own. For tests. */
extern size_t ts__hdf5_worker_max;

#endif /* TSHAPE_HDF5_CHILD_H */
