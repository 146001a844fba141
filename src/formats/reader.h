/*
 * reader.h - the one interface every file-format reader implements.
 *
 * A reader gets the image of the whole file as a read-only byte range
 * (source.h: mapped, read, borrowed, or a sparse image that range requests
 * fill) and appends one ts_array per array it finds with
 * ts__file_add_array. Before it looks at bytes it asks for them with
 * ts__file_need (or a cursor or protobuf walker that asks for it): on a
 * local file that costs nothing, on a remote one it is the range request,
 * and a byte not asked for is not there. It must treat the bytes as
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
#include "source.h"

typedef struct ts__reader {
    ts_format_info info;     /* the public row: id, name, extensions, ... */
    /* 1 when the bytes look like this format (len, the file's size, may be
     * < 8). NULL for formats that are never auto-detected. Formats without a
     * signature (protobuf files) start info.detection with "extension":
     * their probe is a strict structural check, tried only when
     * ts_open_options.path has one of info.extensions (file.c). The first
     * TS__HEAD_MIN bytes are there; a probe that looks further asks with
     * ts__probe_need(src, ...) (src is NULL for an image in memory). It
     * allocates nothing and cannot fail: it answers 0. */
    int (*probe)(const unsigned char *data, size_t len, ts__source *src);
    /* Parses the file; on failure the caller closes the partial ts_file. */
    ts_status (*read)(ts_file *f, const unsigned char *data, size_t len,
                      const ts_open_options *opts, ts_error *err);
    /* 1: a format detected by its extension only when its probe accepts the
     * bytes (a ".json" file is not claimed for TensorFlow.js unless it looks
     * like its model or manifest); 0: a file of its extension that no probe
     * accepts is read by it, which then says what is wrong. */
    int probe_required;
} ts__reader;

/*
 * Runs fn(arg, err) while a SIGBUS on the mapping [map, map + len) (the file
 * shrank under us) makes it return TS_ERR_IO instead of killing the process
 * (mapguard.c). Nested calls and threads are fine.
 */
typedef ts_status (*ts__parse_fn)(void *arg, ts_error *err);
ts_status ts__guarded_parse(const void *map, size_t len, ts__parse_fn fn, void *arg,
                            ts_error *err);

/*
 * The same for a sparse image [lo, hi): a SIGSEGV there is a read of bytes
 * that were never asked for (a reader's bug): it returns TS_ERR_FORMAT
 * saying so, and counts it in ts__unfetched_faults (the fuzz harnesses
 * abort on it).
 */
ts_status ts__guarded_sparse(const void *lo, const void *hi, ts__parse_fn fn, void *arg,
                             ts_error *err);
extern volatile int ts__unfetched_faults;

/* Tests only: when set, called by ts_file_open right after the file is
 * opened (to truncate it, as another program could); the file is then
 * always mapped. */
extern void (*ts__test_after_map)(void);
/* Tests only: when set, ts_file_open reads local files as sparse sources
 * over pread, so every byte a reader touches without asking faults; 2:
 * strictly (ts__source_strict once the format is known). */
extern int ts__test_sparse;
/* Fuzzing only: the cfg text (len bytes) of a Darknet file read from
 * memory, which has no folder to find one in (darknet.c). */
extern const char *ts__darknet_test_cfg;
extern size_t ts__darknet_test_cfg_len;

#define TS_READER(name) extern const ts__reader ts__reader_##name;
#include "formats.def"
#undef TS_READER

/*
 * Appends a new array to f, fully initialised: empty name "", scalar shape,
 * dtype unknown, byteorder '|', block_size 1, nbytes 0, data_offset -1,
 * storage dense, descr/device/storage_key NULL, strides empty. After the
 * reader returns, the file fills what the reader left unset: descr from the
 * dtype when NumPy has one, strides from shape and fortran_order. Returns NULL (and sets err) on allocation failure, or
 * past TS__MAX_ARRAYS arrays (TS_ERR_LIMIT).
 */
ts_array *ts__file_add_array(ts_file *f, ts_error *err);
/* The status of the last ts__file_add_array that returned NULL
 * (TS_ERR_LIMIT past a limit, TS_ERR_NOMEM), for a reader to return
 * whether or not it was given an err. */
ts_status ts__file_add_failure(const ts_file *f);
/* 1 when a file named with one of the extensions of row i of the reader
 * table is of that format whatever its bytes say (a .bin that is not a
 * checkpoint is a broken one), 0 for a reader whose probe must accept it
 * (probe_required: a .json is TF.js only when it looks like it). */
int ts__format_owns_extensions(size_t i);

/* 1 when the first len bytes of a file start like a safetensors file: an
 * 8-byte header length of 2..2^40 and a JSON object with a key or empty.
 * Its length 640 is 80 02 00 ..., a pickle's PROTO 2: the pickle probe asks
 * this first. */
int ts__probe_safetensors(const unsigned char *data, size_t len, ts__source *src);

/* Array i of f for its reader to change (a reader that places its arrays
 * after reading them all), or NULL when i is out of range. */
ts_array *ts__file_array_mut(ts_file *f, size_t i);

/* Copies n bytes of s (need not be NUL-terminated) into storage owned by f
 * and returns the NUL-terminated copy, or NULL (err set) on failure. */
const char *ts__file_strndup(ts_file *f, const char *s, size_t n, ts_error *err);
/* n bytes of storage owned by f, for the reader to fill (a name decoded in
 * place), or NULL (err set). */
char *ts__file_stralloc(ts_file *f, size_t n, ts_error *err);
/* printf into storage owned by f. */
const char *ts__file_printf(ts_file *f, ts_error *err, const char *fmt, ...)
    TS__PRINTF(3, 4);

/*
 * A reader's temporary memory: like malloc/realloc/free, but owned by f and
 * freed by the file when the reader returns or a fault jumps out of it
 * (mapguard.c), so no path leaks it. Use it for every allocation a reader
 * does not free before it next touches the file's bytes. Errors set err
 * (TS_ERR_NOMEM) and return NULL; a failed realloc leaves p valid.
 */
void *ts__scratch_alloc(ts_file *f, size_t n, ts_error *err);
void *ts__scratch_realloc(ts_file *f, void *p, size_t n, ts_error *err);
void ts__scratch_free(ts_file *f, void *p);

/*
 * Appends a metadata entry whose JSON text is written only when asked for
 * (ts_file_metadata, ts_file_metadata_write), by render(data, len, at, kind,
 * src, out, err) over the image the reader parsed. The reader must have
 * checked the value at `at` completely: rendering may not find new errors.
 * Rendering asks src for the bytes it reads (they may have been dropped
 * since, ts__file_release), a long value in steps it drops again, so a
 * 100 MiB string written to a sink that stops early costs one step.
 */
typedef ts_status (*ts__meta_render_fn)(const unsigned char *data, size_t len, uint64_t at,
                                        uint32_t kind, ts__source *src, ts__sink *out,
                                        ts_error *err);
ts_status ts__file_add_lazy_metadata(ts_file *f, const char *key, size_t key_len,
                                     ts__meta_render_fn render, uint64_t at, uint32_t kind,
                                     ts_error *err);

/* Sets the version text ("1.0", "V2", "3"); the string must be static or
 * owned by f. */
void ts__file_set_version(ts_file *f, const char *version);

/*
 * The end of what the file's headers account for (ts__file_set_extent,
 * called by readers that know it): the byte after the last one the format
 * places (the last tensor's data and the padding the format writes after
 * it, a zip's end record and comment, a name list). A file longer than
 * this has trailing bytes (verify.c says so); a shorter one was refused by
 * the reader. -1 until set: the format has no end of its own (protobuf
 * messages are the whole file) or the reader does not say.
 */
void ts__file_set_extent(ts_file *f, int64_t end);
int64_t ts__file_extent(const ts_file *f);

/*
 * Names another framework gives a tensor of this file, as the reader can
 * tell them from the file itself (onnx.c: the PyTorch name of an
 * initializer by the node that reads it, onnxnames.c). tensordiff.c pairs
 * tensors by them when the names themselves do not match.
 *   array   the tensor's index in the file
 *   name    the other framework's name (owned by the file)
 *   rule    a ts_diff_rule: TS_DIFF_RULE_ONNX_CONSUMER or _ONNX_IDENTITY
 *   via     the evidence, for reports ("/layer1/layer1.0/conv1/Conv
 *           input 1"; owned by the file)
 *   op      the reading node's op_type ("Conv"; owned by the file)
 *   transposed  1: the other framework's tensor is this 2-D one
 *           transposed (a Linear weight read by MatMul)
 */
typedef struct ts__alias {
    size_t array;
    const char *name;
    int rule;
    const char *via;
    const char *op;
    int transposed;
} ts__alias;

/*
 * The PyTorch name (onnxnames.c) of the initializer that node `node`
 * (node_n bytes, a TorchScript exporter's scope path such as
 * "/layer1/layer1.0/conv1/Conv") of op_type `op` reads as its input
 * `input` ("layer1.0.conv1.weight"), with Gemm's transB; written to buf
 * with a NUL, its length returned; 0 when the node name is not a scope
 * path, the op or input holds no parameter, or cap is too small.
 * *transposed: 1 when the initializer holds the parameter transposed.
 */
size_t ts__onnx_torch_name(const char *node, size_t node_n, const char *op, size_t opn,
                           int input, int trans_b, char *buf, size_t cap, int *transposed);

/*
 * ts_array_compare of a with numpy.transpose(b, perm) (perm: b's ndim
 * axes, a permutation; compare.c): b's stored data walked as a permuted
 * view. Errors: those of ts_array_compare (TS_ERR_SIZE when b permuted
 * has not a's shape), TS_ERR_UNSUPPORTED when b's data is not stored as
 * is in a local file (deflated, blocks, remote).
 */
ts_status ts__array_compare_permuted(const ts_file *fa, const ts_array *a, const ts_file *fb,
                                     const ts_array *b, const int *perm,
                                     const ts_compare_options *opts, ts_compare *out,
                                     ts_error *err);

/* Appends an alias (its strings must be owned by f or static). */
ts_status ts__file_add_alias(ts_file *f, const ts__alias *a, ts_error *err);
size_t ts__file_alias_count(const ts_file *f);
const ts__alias *ts__file_alias_at(const ts_file *f, size_t i);

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

/*
 * Where an array's data lives when data_offset alone does not say it
 * (src/values reads it). TS__SRC_STORED, the default: the data (or, for a
 * view with storage_key set, its storage) starts at data_offset and is
 * stored as is. TS__SRC_DEFLATE: the array's bytes are `skip` bytes into a
 * raw deflate stream of comp_size bytes at comp_offset that inflates to
 * `size` bytes whose CRC-32 is crc32 (a deflated npz member: skip is its npy
 * header). A read that inflates the whole member checks the CRC.
 * storage_nbytes, when > 0, bounds the storage of a view (a PyTorch storage
 * member's size): a view reaching past it is an error. 0: up to the end of
 * the file.
 * TS__SRC_PROTO: the values are the entries of a repeated protobuf field
 * (ONNX TensorProto float_data, int32_data, int64_data, double_data,
 * uint64_data), field number pb_field of the message [comp_offset,
 * comp_offset + comp_size), packed or not, possibly in several pieces
 * (protobuf concatenates repeated fields). Entries are fixed32/fixed64
 * (pb_fixed 4/8) or varints (pb_fixed 0); each one becomes pb_out bytes of
 * little-endian data (varints truncated to their low pb_out bytes, as a C
 * cast or NumPy's astype; pb_bool: 1 byte, 0 or 1, nonzero is true), and
 * the array's bytes are the first `size` of them (skip 0).
 * TS__SRC_HDF5: an HDF5 dataset whose data is not one stored run (chunked,
 * compressed, compact, unwritten): read through libhdf5 (hdf5.c,
 * ts__hdf5_*), dataset h5_dataset of the file h5_path (or of the file's
 * image when NULL), `size` bytes in C order as the file stores them.
 * TS__SRC_ZARR: a Zarr array's chunk files (zarr.c, ts__zarr_*): zarr_meta
 * (zarr_meta_len bytes, owned by the file) is the array's .zarray or
 * zarr.json text, zarr_dir the folder (path or URL, ending in '/') its
 * chunk keys are relative to; `size` bytes in C order, each element as the
 * array's dtype and byte order say.
 */
typedef enum ts__src_kind {
    TS__SRC_STORED = 0,
    TS__SRC_DEFLATE = 1,
    TS__SRC_PROTO = 2,
    TS__SRC_HDF5 = 3,
    TS__SRC_ZARR = 4
} ts__src_kind;
typedef struct ts__data_src {
    ts__src_kind kind;
    int64_t comp_offset, comp_size;  /* TS__SRC_DEFLATE: the stream in the file */
    int64_t size;                    /* its inflated size */
    int64_t skip;                    /* inflated bytes before the array's data */
    uint32_t crc32;                  /* CRC-32 of the `size` inflated bytes */
    int64_t storage_nbytes;          /* see above; 0 when unknown */
    /* A view of a storage (PyTorch): 1 when the array's elements are at
     * storage_offset + sum(index * stride) from the storage's start, which
     * is storage_start (TS__SRC_STORED, absolute) or `skip` bytes into the
     * inflated stream (TS__SRC_DEFLATE), whatever data_offset says. 0: the
     * first element is at data_offset (or `skip`), storage_offset ignored. */
    int has_storage;
    int64_t storage_start;
    /* TS__SRC_PROTO */
    uint32_t pb_field;
    int pb_fixed, pb_out, pb_bool;
    const char *pb_what;             /* the field's name, for messages */
    /* TS__SRC_HDF5 */
    const char *h5_path, *h5_dataset;
    /* TS__SRC_HDF5 of an HDF5 file inside another (a .keras zip member):
     * h5_image_len > 0 says the HDF5 file is h5_image_len bytes at
     * h5_image (memory owned by the ts_file: an inflated member) or, when
     * h5_image is NULL, at byte h5_image_offset of the file's image (a
     * stored member). 0: the whole image is the HDF5 file. */
    const unsigned char *h5_image;
    int64_t h5_image_offset;
    size_t h5_image_len;
    /* TS__SRC_ZARR */
    const char *zarr_meta, *zarr_dir;
    size_t zarr_meta_len;
    /* TS__SRC_STORED in a side file (ONNX external data): the id
     * ts__side_add gave it (data_offset counts in that file), 0: none. */
    int32_t side;
    /* The CRC-32C of the array's nbytes stored bytes, as its format
     * records it (a TensorFlow checkpoint's BundleEntryProto.crc32c,
     * unmasked): checked by verify's deep pass (values/deep.c). */
    int has_crc32c;
    uint32_t crc32c;
} ts__data_src;

/* Records src for array a of f (a must be one of f's arrays; call after the
 * reader has added all arrays or before adding more: the pointer is only
 * used to find a's index). Errors: TS_ERR_NOMEM, TS_ERR_INVALID_ARG. */
ts_status ts__file_set_data_src(ts_file *f, const ts_array *a, const ts__data_src *src,
                                ts_error *err);
/* The data source recorded for a, or NULL when none was (stored as is,
 * storage bounded by the file). */
const ts__data_src *ts__file_data_src(const ts_file *f, const ts_array *a);

/*
 * Reading an HDF5 dataset's elements through libhdf5 (TS__SRC_HDF5):
 * ts__hdf5_begin opens the file (by path, or a copy of the image through
 * the core driver) and the dataset; ts__hdf5_read reads the elements
 * [first, first + n) in flat C order into out (n * itemsize bytes, the
 * file's own byte layout: no conversion), as hyperslabs of whole rows where
 * possible; ts__hdf5_end closes everything (accepts NULL). ts__hdf5_begin
 * checks that the dataset still has `count` elements of `itemsize` bytes
 * (TS_ERR_FORMAT otherwise: the file changed since it was parsed) and
 * ts__hdf5_read that [first, first + n) lies inside it. libhdf5 (serial)
 * is not thread-safe: call these from one thread at a time. Errors:
 * TS_ERR_UNSUPPORTED (no library), TS_ERR_FORMAT (libhdf5 cannot read the
 * data: a filter it lacks, a corrupt chunk), TS_ERR_NOMEM.
 */
ts_status ts__hdf5_begin(const ts__data_src *src, const unsigned char *image, size_t len,
                         size_t itemsize, int64_t count, void **state, ts_error *err);
ts_status ts__hdf5_read(void *state, int64_t first, int64_t n, void *out, ts_error *err);
void ts__hdf5_end(void *state);
/* The same for a Zarr array's chunks (TS__SRC_ZARR), with the same
 * contract: ts__zarr_begin parses src->zarr_meta again and checks count and
 * itemsize; ts__zarr_read decodes the chunks [first, first + n) touches (a
 * missing chunk is the fill value). Errors: TS_ERR_UNSUPPORTED (a codec
 * tshape does not decode: blosc, zstd, ...), TS_ERR_FORMAT (a chunk that
 * does not inflate to its size), TS_ERR_IO, TS_ERR_NOMEM. */
ts_status ts__zarr_begin(const ts__data_src *src, size_t itemsize, int64_t count, void **state,
                         ts_error *err);
ts_status ts__zarr_read(void *state, int64_t first, int64_t n, void *out, ts_error *err);
void ts__zarr_end(void *state);

/*
 * Side files of a ts_file (src/values/side.c): files beside the model that
 * hold its data (ONNX external data, TF.js shards). ts__side_add registers
 * a resolved path, or the URL beside a remote model, once per file (the
 * same path again gives the same id; opts gives the request log) and gives
 * its id (>= 1) for ts__data_src.side; ts__side_source opens it as a byte
 * source on first use (a local file with O_NOFOLLOW, a regular file) and
 * gives it, valid until ts_file_close; threads may call it at once. Errors:
 * TS_ERR_NOMEM, TS_ERR_LIMIT (add); those of ts_file_open naming the file
 * (source).
 */
typedef struct ts__sides ts__sides;
ts_status ts__side_add(ts_file *f, const char *path, const ts_open_options *opts, int32_t *id,
                       ts_error *err);
/* The same for a chain: the n files' bytes one after another are one byte
 * source (the shards of a TF.js group), whose offsets count from the first
 * file's start; `what` names them in messages ("weights shard", static).
 * The same list again gives the same id. */
ts_status ts__side_add_chain(ts_file *f, const char *const *paths, size_t n, const char *what,
                             const ts_open_options *opts, int32_t *id, ts_error *err);
ts_status ts__side_source(const ts_file *f, int32_t id, ts__source **out, ts_error *err);
void ts__sides_free(ts__sides *s);
/* The file's side files (NULL until the first ts__side_add), and setting
 * them (the file frees them with ts__sides_free when it closes). */
ts__sides *ts__file_sides(const ts_file *f);
void ts__file_set_sides(ts_file *f, ts__sides *s);

/*
 * Side files (sidefile.c): files beside a model that hold its data, named
 * by the model relative to its own folder (ONNX external data, TF.js weight
 * shards). ts__side_check_name refuses a name (n bytes) that is empty,
 * holds a NUL byte, is absolute or has a ".." part: TS_ERR_FORMAT, "<kind>
 * path leaves the model folder: <who> has location '...'" (kind: "external
 * data", "weights"; who: what names it). ts__side_locate finds a checked
 * name beside o->path (not NULL): for a URL the file beside it (one
 * request, for its size); for a local model a regular file, not a symbolic
 * link, whose resolved path lies inside the model's resolved folder, which
 * *resolved receives (malloc'ed; for a URL, the URL beside the model).
 * *size: its bytes. *missing (when not NULL) is 1 when the error is that
 * the file is not there (no such local file, HTTP 404), else 0. Errors:
 * TS_ERR_IO (it cannot be read, a request failed), TS_ERR_FORMAT,
 * TS_ERR_NOMEM. err->offset is `at`.
 */
ts_status ts__side_check_name(const char *loc, size_t n, const char *kind, const char *who,
                              size_t at, ts_error *err);
ts_status ts__side_locate(const ts_open_options *o, const char *loc, const char *kind,
                          const char *who, size_t at, char **resolved, int64_t *size,
                          int *missing, ts_error *err);

/*
 * Tells the system that the reader is done with bytes [offset, offset +
 * len) of the file for now: their whole pages leave the process's resident
 * memory (the page cache keeps them, and touching them again reads them
 * back). For long headers read once (safetensors), so a header costs its
 * size in memory only once. Does nothing for files read into memory.
 */
void ts__file_release(ts_file *f, size_t offset, size_t len);

/*
 * Makes bytes [off, off + len) of f's image readable (ts__source_need:
 * clamped to the file, a no-op for local files). Errors: TS_ERR_IO,
 * TS_ERR_LIMIT (fetch budget), TS_ERR_NOMEM.
 */
ts_status ts__file_need(ts_file *f, uint64_t off, uint64_t len, ts_error *err);
/* Tests and fuzzing: ts_file_open_memory through a strict sparse source
 * (ts__source_open_memory_sparse), so a reader or the values layer reading
 * a byte it did not ask for fails (ts__unfetched_faults counts it). */
ts_status ts__file_open_memory_sparse(const void *data, size_t len,
                                      const ts_open_options *opts, ts_file **out,
                                      ts_error *err);

/* Runs fn(arg, err) under the guard of f's image (ts__guarded_parse for a
 * mapped file, ts__guarded_sparse for a sparse one, a plain call for an
 * image in memory): for code outside a reader that walks the image (the
 * zip directory of verify's deep pass). */
ts_status ts__file_guard(const ts_file *f, ts__parse_fn fn, void *arg, ts_error *err);

/* f's byte source. */
ts__source *ts__file_source(const ts_file *f);

/* The bytes of the file: its map (ts_file_open) or the borrowed image
 * (ts_file_open_memory); *len receives their count. Valid until close. */
const unsigned char *ts__file_image(const ts_file *f, size_t *len);
/* 1 when the image is the library's own read-only map of the file
 * (ts_file_open), whose pages may be dropped after use (write.c); 0 for a
 * borrowed image. */
int ts__file_is_mapped(const ts_file *f);

/* A TensorFlow checkpoint named by its prefix, as TensorFlow users pass it
 * (tf.train.load_checkpoint, Saver.restore: "model.ckpt" for
 * model.ckpt.index and its data shards): path + ".index" (malloc'ed) when
 * no file `path` exists (ENOENT) and that one is a regular file, else NULL.
 * ts_file_open and ts_model_open open it in place of the missing path (a
 * URL: after a 404 on it, the URL + ".index"). */
char *ts__tf_prefix_index(const char *path);

/* The shard files a Keras 3 sharded weights index (PATH.weights.json,
 * keras/src/saving/saving_lib.py ShardedH5IOStore: {"metadata":
 * {"total_size"}, "weight_map": {"/layers/dense/vars": "model_00000.weights.h5"
 * or a list of them}}) names, each once in the order met, each checked
 * with ts__side_check_name; *names and its strings malloc'ed (keras.c).
 * Errors: TS_ERR_FORMAT (not JSON, no weight_map, a value that is not a
 * file name), TS_ERR_LIMIT (more than TS__KERAS_MAX_SHARDS), TS_ERR_NOMEM. */
#define TS__KERAS_MAX_SHARDS 100000
ts_status ts__keras_shards(const char *text, size_t len, char ***names, size_t *count,
                           ts_error *err);

/* A small file's bytes read whole (ts__batch_read), borrowed. */
typedef struct ts__read_bytes {
    const void *data;
    size_t len;
} ts__read_bytes;

/* ts_file_open of a path a folder's listing found to be a regular file
 * (ts__source_open_path's TS__LOCAL_LISTED: no fstat for a small file),
 * opened from its folder's descriptor kept in dir (ts__dir_at; one per
 * thread); with bytes (else NULL), over those copied, as the file
 * read whole (unless opts ask for TS_IO_MAP or TS_IO_PREAD: then read
 * again as they say). */
ts_status ts__file_open_listed(ts__dir_fd *dir, const char *path, const ts_open_options *opts,
                               const ts__read_bytes *bytes, ts_file **out, ts_error *err);

/*
 * A ts_file over the whole image of `path` (ts__source_open_path's checks;
 * read when small, else mapped: every byte readable without asking; a URL
 * is a sparse source, bytes asked for with ts__file_need, opened with opts,
 * which may be NULL), that no reader parses: for code that reads the bytes
 * with the readers' helpers (scan.c: zip.c, pickle.c, npy_header.c). Its
 * scratch memory is the caller's. Close it with ts_file_close. Errors:
 * those of ts_file_open before parsing (TS_ERR_IO, TS_ERR_NOMEM).
 */
ts_status ts__file_open_image(const char *path, const ts_open_options *opts, ts_file **out,
                              ts_error *err);

/* ts__file_open_image (opts NULL) of a path a folder's listing found to be
 * a regular file, as ts__file_open_listed opens it. */
ts_status ts__file_open_image_listed(ts__dir_fd *dir, const char *path, ts_file **out,
                                     ts_error *err);
/* The same over data (len bytes, borrowed; must outlive the file). */
ts_status ts__file_of_memory(const void *data, size_t len, ts_file **out, ts_error *err);
/* The same over a copy of a small file's bytes, read whole
 * (ts__batch_read): as ts__file_open_image would have read it. */
ts_status ts__file_of_read(const void *data, size_t len, ts_file **out, ts_error *err);

/* The regular files under dir and its subfolders (model.c), sorted; names
 * starting with '.' are skipped. *paths and its strings are malloc'd. */
ts_status ts__folder_files(const char *dir, char ***paths, size_t *n, ts_error *err);

/*
 * The model of a Core ML .mlpackage folder `dir` (coreml.c): *model
 * receives the malloc'd path of the .mlmodel its Manifest.json names
 * (rootModelIdentifier's entry of itemInfoEntries, its path under Data/),
 * or NULL when dir has no Manifest.json. Errors: TS_ERR_FORMAT (a manifest
 * that names no model, a path leaving the package), TS_ERR_IO, TS_ERR_NOMEM.
 */
ts_status ts__coreml_package_model(const char *dir, char **model, ts_error *err);

#endif /* TSHAPE_READER_H */
