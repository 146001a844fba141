/*
 * values.h - the values layer: decoding stored elements (decode.c) and
 * walking an array's data wherever it lives (walk.c), for the statistics
 * (stats.c) and element reads (read.c) of include/tshape.h.
 *
 * Data flows as runs of raw stored bytes handed to a sink. A run is whole
 * elements (whole blocks for GGUF block types), in storage order for
 * statistics and in flat C order for reads.
 */
#ifndef TSHAPE_VALUES_H
#define TSHAPE_VALUES_H

#include "../formats/reader.h"

/* Elements decoded per step: a multiple of every GGUF block size (32, 256). */
#define TS__VBLOCK 4096

/* ---- decode.c ---------------------------------------------------------- */

/*
 * How to decode the elements of one array. Decoders read n elements (for
 * block types: n is a multiple of block, src at a block start) from
 * possibly unaligned src and write them to dst.
 */
typedef struct ts__decoder {
    ts_value_kind kind;
    int64_t elem_bytes;      /* bytes per element; 0 for block types */
    int64_t block;           /* elements per block: 1 or the GGUF block size */
    int64_t block_bytes;     /* bytes per block */
    /* Real kinds: n doubles. Complex: 2n doubles (re, im). */
    void (*to_double)(const unsigned char *src, size_t n, double *dst);
    /* The same values as n floats, for the dtypes whose every value is a
     * float32 (float16, bfloat16, float32, the GGUF block types, which
     * ggml dequantizes in float32); NULL for the others. */
    void (*to_float)(const unsigned char *src, size_t n, float *dst);
    /* INT/BOOL kinds: exact int64; UINT/BOOL: exact uint64. NULL otherwise. */
    void (*to_i64)(const unsigned char *src, size_t n, int64_t *dst);
    void (*to_u64)(const unsigned char *src, size_t n, uint64_t *dst);
} ts__decoder;

/* The decoder of native-order float32 (stats reads those in place). */
void ts__f32_native(const unsigned char *src, size_t n, double *dst);

/* Fills d for array a. Errors: TS_ERR_DTYPE naming the dtype (the caller
 * prefixes the array). */
ts_status ts__decoder_for(const ts_array *a, ts__decoder *d, ts_error *err);
/* Fills d for copying a's stored bytes unchanged (ts_array_read_raw): any
 * dtype of whole bytes per element (elem_bytes a->itemsize) or GGUF block
 * type (block, block_bytes), kind TS_VALUE_NONE and no conversions.
 * Errors: TS_ERR_DTYPE (sub-byte packed types, object arrays, itemsize 0,
 * an unknown block type). */
ts_status ts__decoder_raw(const ts_array *a, ts__decoder *d, ts_error *err);

/* ---- walk.c ------------------------------------------------------------ */

/* Receives runs: p points to n whole elements (n a multiple of the block
 * for block types). Returns nonzero to stop with that status (err set). */
typedef ts_status (*ts__sink_fn)(void *ctx, const unsigned char *p, int64_t n, ts_error *err);

/* An array's elements as a strided view over a storage of bytes. */
typedef struct ts__layout {
    int ndim;
    int64_t shape[TS_MAX_NDIM];
    int64_t strides[TS_MAX_NDIM];    /* elements */
    int64_t offset;                  /* elements from the storage start */
} ts__layout;

/*
 * The elements of a view in storage order (dims by increasing stride) with
 * the flat C index of each: ts__sorder_init from the layout, then `flat` is
 * the C index of the current element and ts__sorder_next steps to the next
 * one stored (for deflated members kept in another order: Fortran).
 */
typedef struct ts__sorder {
    int nd;
    int64_t shape[TS_MAX_NDIM], cstride[TS_MAX_NDIM], idx[TS_MAX_NDIM];
    int64_t flat;
} ts__sorder;

void ts__sorder_init(ts__sorder *o, const ts__layout *lay);

static inline void ts__sorder_next(ts__sorder *o)
{
    for (int k = 0; k < o->nd; k++) {
        o->flat += o->cstride[k];
        if (++o->idx[k] < o->shape[k])
            return;
        o->flat -= o->idx[k] * o->cstride[k];
        o->idx[k] = 0;
    }
}

/* Where the bytes are and how they are laid out. */
typedef struct ts__data {
    const ts_array *a;
    ts__decoder dec;
    const unsigned char *image;      /* the whole file: its bytes are there
                                        when the source is whole, else only
                                        after ts__data_need */
    size_t image_len;
    ts__source *source;              /* where the image's bytes come from */
    int whole;                       /* ts__source_is_whole(source) */
    const ts__data_src *src;         /* deflated stream, or NULL: stored */
    int64_t base;                    /* stored: absolute offset of storage
                                        element 0 (lay.offset counts from it) */
    int64_t skip;                    /* deflated: inflated bytes before
                                        storage element 0 */
    ts__layout lay;                  /* C order over the logical shape */
    int64_t count;                   /* elements to visit (stored ones for
                                        sparse arrays) */
    int64_t implicit_zeros;          /* MXNet sparse: size - stored */
    int contiguous;                  /* 1: the stored elements are one run in
                                        storage order (C, F or 1 run view) */
    int c_order;                     /* 1: storage order is flat C order */
    int side;                        /* 1: image is a side file's (ONNX
                                        external data), not the file's */
} ts__data;

/* Prepares everything for reading a's data, checking that it is readable
 * and inside its storage. Errors are prefixed with the array's name. */
ts_status ts__data_open(ts__data *d, const ts_file *f, const ts_array *a, ts_error *err);
/* The same for ts_array_read_raw: the decoder of ts__decoder_raw. */
ts_status ts__data_open_raw(ts__data *d, const ts_file *f, const ts_array *a, ts_error *err);

/*
 * Stored (not deflated) contiguous data: pointer to element `first` of the
 * run (storage order), for block types `first` a multiple of the block.
 */
const unsigned char *ts__data_at(const ts__data *d, int64_t first);

/* Calls fn under the fault guard of the file's image (a mapped file that
 * shrinks: SIGBUS; a sparse image's unfetched byte: SIGSEGV). */
ts_status ts__data_guard(const ts__data *d, ts__parse_fn fn, void *arg, ts_error *err);

/*
 * Stored data of a sparse source (a remote file): makes the bytes of
 * storage elements [first, first + n) (storage order, from the storage's
 * start as ts__data_at counts; whole blocks for block types) readable in
 * the image, and ts__data_forget drops their whole pages again once read,
 * so reading a large array holds a bounded part of it. Both do nothing
 * for whole sources. Errors: those of ts__source_need, prefixed with the
 * array's name.
 */
ts_status ts__data_need(const ts__data *d, int64_t first, int64_t n, ts_error *err);
void ts__data_forget(const ts__data *d, int64_t first, int64_t n);
/* Storage elements [first, first + n) of a mapped file are about to be
 * read (populate: their page table entries made at once) or have been
 * read (release: their pages leave the resident set; the page cache keeps
 * them). Nothing for other sources. */
void ts__data_populate(const ts__data *d, int64_t first, int64_t n);
void ts__data_release(const ts__data *d, int64_t first, int64_t n);

/*
 * A pointer to stored contiguous elements [first, first + n): into the
 * image for a whole source, read into buf (room for their bytes) for a
 * sparse one; NULL on a read error (err set, prefixed with the array).
 */
const unsigned char *ts__data_fetch(const ts__data *d, int64_t first, int64_t n,
                                    unsigned char *buf, ts_error *err);

/*
 * Hands the stored contiguous elements [first, first + n) to fn: in one
 * run for a whole source, in runs of a few MiB read (ts__source_read) into
 * a buffer of the call's own for a sparse one. Must run under the guard.
 */
ts_status ts__data_runs(const ts__data *d, int64_t first, int64_t n, ts__sink_fn fn,
                        void *ctx, ts_error *err);

/*
 * Streams the stored elements [first, first + n) of a contiguous array in
 * storage order: from the image, or inflated (the member is inflated from
 * its start; elements before `first` are skipped). The deflate state and
 * its buffer are allocated before and freed after the guarded walk.
 */
ts_status ts__data_stream(const ts__data *d, int64_t first, int64_t n, ts__sink_fn fn,
                          void *ctx, ts_error *err);

/*
 * Walks the elements of a view (stored data only) in flat C order from
 * flat index `start`, `n` elements, handing runs that are contiguous in
 * storage. Must run under the guard.
 */
ts_status ts__data_walk_view(const ts__data *d, int64_t start, int64_t n, ts__sink_fn fn,
                             void *ctx, ts_error *err);

/*
 * A deflated member (or, TS__SRC_PROTO, an ONNX typed field decoded entry
 * by entry) read piece by piece in storage order (contiguous arrays),
 * keeping zlib's (the walker's) state between calls, so reading a member
 * in n pieces inflates it once. ts__zcursor_next hands the next n elements to fn
 * (whole elements, in runs), under the guard; ts__zcursor_finish inflates
 * what is left and checks the member's size and CRC-32 (call it after the
 * last element); ts__zcursor_close frees everything (after open succeeded).
 */
typedef struct ts__zcursor {
    const ts__data *d;
    void *zs;                        /* z_stream */
    unsigned char *buf;
    size_t have_off, have_len;       /* inflated bytes held: buf[off, off+len) */
    int64_t in_left;                 /* compressed bytes not yet given to zlib */
    int64_t skip;                    /* inflated bytes still to skip */
    int64_t inflated;
    unsigned long crc;
    int ended;
    void *pb;                        /* TS__SRC_PROTO: the ts__pb_msg walked */
    size_t pb_at, pb_end;            /* the packed piece being decoded */
    void *h5;                        /* TS__SRC_HDF5: ts__hdf5_begin's state */
    int64_t h5_next;                 /* flat index of the next element to read */
} ts__zcursor;

ts_status ts__zcursor_open(ts__zcursor *c, const ts__data *d, ts_error *err);
ts_status ts__zcursor_next(ts__zcursor *c, int64_t n, ts__sink_fn fn, void *ctx, ts_error *err);
ts_status ts__zcursor_finish(ts__zcursor *c, ts_error *err);
void ts__zcursor_close(ts__zcursor *c);
/* ---- write.c ----------------------------------------------------------- */

/* Tests only: when set, ts_write calls it with each temporary output file
 * (or folder) after writing it and before verifying it, as a disk that
 * returns other bytes could. */
extern void (*ts__test_before_verify)(const char *tmp_path);

/* Tests only: when nonzero, an .npz without compression is written through
 * libzip as a compressed one is, not by write.c's own stored writer (to
 * compare the two). */
extern int ts__test_npz_libzip;

/* Tests only: when nonzero, the stored .npz writer takes sizes, offsets and
 * member counts from this value up as too large for zip's 32 (16) bits and
 * writes them in ZIP64's fields, as it does from 0xFFFFFFFF (0xFFFF). */
extern uint64_t ts__test_zip64_at;

/* Tests only: when ts__test_no_direct is nonzero, arrays copied unchanged
 * from a local file go through the pump as any other, not mapped or read
 * straight into its buffer; when ts__test_no_map is, they are read, not
 * mapped. */
extern int ts__test_no_direct, ts__test_no_map;
/* Tests only: bytes read straight into the pump's buffer, and bytes written
 * from a map of the input, added up. */
extern uint64_t ts__test_direct_bytes, ts__test_mapped_bytes;
/* Tests only: called before each 4 MiB step of a mapped input is read: a
 * test truncates the input there. */
extern void (*ts__test_map_step)(void);

/* Receives output bytes in pieces (write.c). */
typedef ts_status (*ts__emit_fn)(void *ctx, const unsigned char *p, size_t len, ts_error *err);

/*
 * The canonical bytes of array a of f, in pieces to emit: its elements in
 * flat C order, each little-endian (complex: each part), in its own dtype,
 * wherever and however it is stored (views, Fortran order, big-endian,
 * deflated members): what ts_write writes for it without a cast. name
 * (NULL: a->name) names it in messages. Errors: TS_ERR_DTYPE (a dtype
 * without fixed whole-byte elements or that cannot be decoded: strings,
 * GGUF blocks, sub-byte types), those of ts__data_open and of reading,
 * and emit's.
 */
ts_status ts__array_canonical(const ts_file *f, const ts_array *a, const char *name,
                              ts__emit_fn emit, void *ctx, ts_error *err);

/* Prefixes err's message with "array 'NAME': " and returns code. */
ts_status ts__values_fail(const ts_array *a, ts_error *err, ts_status code);

/* ---- tmpout.c: temporary outputs of ts_write ------------------------------------ */

struct timespec;

/* The named temporary for final file name `base` in dir:
 * "DIR/.BASE.tshape-PID-XXXXXX" (malloc'ed template for mkstemp/mkdtemp),
 * or NULL when out of memory. */
char *ts__tmpout_name(const char *dir, const char *base);
/*
 * A temporary file in dir to be put in place as `base`: anonymous
 * (O_TMPFILE; *keep its descriptor, *path "/proc/self/fd/N" to open it
 * again) where the file system allows, else named (*keep -1, *path the
 * name); mode as for open(2). Returns a descriptor open for writing, or -1
 * with errno set (*path malloc'ed either way when not NULL: free it).
 */
int ts__tmpout_file(const char *dir, const char *base, unsigned mode, char **path, int *keep);
/* Puts the temporary (path, keep) at final: replacing it only when
 * overwrite (else -1 with errno EEXIST when it exists). 0 or -1 (errno). */
int ts__tmpout_place(const char *path, int keep, const char *final, int overwrite);
/* Removes a temporary that will not be put in place. */
void ts__tmpout_discard(const char *path, int keep);
/* Removes from dir the temporaries of the named pattern that runs killed
 * before they were done left: this user's, last changed before `since`,
 * whose process (the PID in the name) is gone. Returns how many. */
int ts__tmpout_sweep(const char *dir, const struct timespec *since);

#endif /* TSHAPE_VALUES_H */
