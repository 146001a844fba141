/*
 * tshape.h - tensor shapes, blobs and saved-tensor file headers, in C11.
 *
 * This is the whole public API of libtshape. It brings the shape machinery of
 * mshadow/MXNet (TShape, TBlob), TensorWrapper (Shape, slices, chips) and
 * Caffe2 (Tensor dims) to C, plus header-only readers for saved tensor files.
 *
 * Conventions that hold for every function below unless its comment says
 * otherwise:
 *   - Dims, sizes and indices are int64_t. "size" is an element count,
 *     "nbytes" a byte count, "itemsize" the bytes of one element.
 *   - Functions that can fail return a ts_status (TS_OK == 0) and take a last
 *     argument `ts_error *err`, which may be NULL. On failure err->code is the
 *     returned status and err->message explains what and where (column of a
 *     parse error, byte offset and entry in a file). Out-parameters are left
 *     unspecified on failure unless stated.
 *   - The library never prints, never exits and never aborts. It allocates
 *     only with malloc/realloc; every object it allocates has a _free or
 *     _close function that accepts NULL.
 *   - Axes may be negative where NumPy allows it: -1 is the last axis.
 *
 * Thread safety: no global mutable state; distinct objects may be used from
 * distinct threads.
 */
#ifndef TSHAPE_H
#define TSHAPE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks the exported API. The shared library is built with hidden default
 * visibility, so only TS_API symbols (all prefixed ts_) are exported. */
#if defined(TS_BUILDING_SHARED) && (defined(__GNUC__) || defined(__clang__))
#define TS_API __attribute__((visibility("default")))
#else
#define TS_API
#endif

#define TS_VERSION_MAJOR 0
#define TS_VERSION_MINOR 1
#define TS_VERSION_PATCH 0
#define TS_VERSION_STRING "0.1.0"

/* Returns TS_VERSION_STRING of the library actually linked. */
TS_API const char *ts_version(void);

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */
/* ------------------------------------------------------------------------ */

/*
 * Status codes. The numbers are part of the ABI: codes are only ever
 * appended, never renumbered or reused.
 */
typedef enum ts_status {
    TS_OK = 0,
    TS_ERR_NOMEM = 1,          /* an allocation failed */
    TS_ERR_INVALID_ARG = 2,    /* a caller error: NULL where not allowed, bad flag */
    TS_ERR_PARSE = 3,          /* malformed text (shape tuple, axis list, pattern) */
    TS_ERR_OVERFLOW = 4,       /* a size, product or offset does not fit in int64 */
    TS_ERR_AXIS = 5,           /* an axis is out of range or repeated */
    TS_ERR_NDIM = 6,           /* wrong or too large number of dimensions */
    TS_ERR_SIZE = 7,           /* element counts differ or cannot be inferred */
    TS_ERR_BROADCAST = 8,      /* shapes cannot be broadcast together */
    TS_ERR_LAYOUT = 9,         /* strides/contiguity forbid the operation */
    TS_ERR_IO = 10,            /* open/read/stat/mmap failed (errno in message) */
    TS_ERR_FORMAT = 11,        /* the file is not valid in its format */
    TS_ERR_TRUNCATED = 12,     /* the file ends before the data it declares */
    TS_ERR_UNSUPPORTED = 13,   /* valid input this version cannot handle */
    TS_ERR_LIMIT = 14,         /* input exceeds a documented resource limit */
    TS_ERR_DTYPE = 15,         /* unknown or unusable dtype */
    TS_ERR_INDEX = 16,         /* an index is out of bounds */
    TS_ERR_VALUE = 17          /* a dim or argument has a forbidden value (e.g. negative) */
} ts_status;

#define TS_ERROR_MESSAGE_MAX 512

/*
 * Detailed error report, in the spirit of jansson's json_error_t.
 *   code     the status that was returned
 *   column   1-based column in the text input, or 0 when not text
 *   offset   byte offset in the file or buffer, or -1 when not a file
 *   message  one line, NUL-terminated, without a trailing newline; it names
 *            what was expected and what was found. It does not name the
 *            file itself (the caller knows it), but names the entry.
 */
typedef struct ts_error {
    ts_status code;
    int64_t column;
    int64_t offset;
    char message[TS_ERROR_MESSAGE_MAX];
} ts_error;

/* Static text for a status code, e.g. "integer overflow". Never NULL; an
 * unknown code gives "unknown error". */
TS_API const char *ts_strerror(ts_status code);

/* ------------------------------------------------------------------------ */
/* Shape                                                                     */
/* ------------------------------------------------------------------------ */

/* Dims kept inline; more spill to the heap (mshadow TShape::kStackCache). */
#define TS_STACK_CACHE 4
/* Largest ndim accepted anywhere (NumPy 2's NPY_MAXDIMS). */
#define TS_MAX_NDIM 64

/*
 * A dynamic shape after mshadow's TShape: ndim plus dims, inline for
 * ndim <= TS_STACK_CACHE, on the heap beyond. ndim 0 is a scalar "()".
 *
 * Treat the fields as private: use the functions below. A ts_shape must be
 * initialised (ts_shape_init or TS_SHAPE_INIT) before any other use, and
 * released with ts_shape_free. Copying the struct with `=` is a bug when it
 * owns heap storage: use ts_shape_copy or ts_shape_move.
 *
 * Dims are normally >= 0. A shape may hold negative dims only where a
 * function says so (reshape targets such as (-1,4)); the arithmetic
 * functions reject them with TS_ERR_VALUE.
 */
typedef struct ts_shape {
    int32_t ndim;
    int32_t heap_capacity;       /* int64 cells allocated at heap, 0 if none */
    int64_t stack[TS_STACK_CACHE];
    int64_t *heap;
} ts_shape;

#define TS_SHAPE_INIT {0, 0, {0, 0, 0, 0}, NULL}

/* Makes `s` the scalar shape () owning nothing. Does not free: use on
 * uninitialised memory only. */
TS_API void ts_shape_init(ts_shape *s);

/* Releases heap storage and leaves `s` the scalar shape (); `s` may be
 * reused. Accepts NULL. */
TS_API void ts_shape_free(ts_shape *s);

/*
 * Sets ndim to `ndim` (0..TS_MAX_NDIM) and every dim to 1, like
 * TShape(ndim). Reuses heap storage when large enough.
 * Errors: TS_ERR_NDIM (ndim < 0 or > TS_MAX_NDIM), TS_ERR_NOMEM.
 */
TS_API ts_status ts_shape_resize(ts_shape *s, int ndim, ts_error *err);

/*
 * Sets `s` to the `ndim` dims in `dims` (dims may be NULL when ndim is 0;
 * it may not point into `s` itself). Values are stored as given.
 * Errors: TS_ERR_NDIM, TS_ERR_NOMEM.
 */
TS_API ts_status ts_shape_assign(ts_shape *s, int ndim, const int64_t *dims, ts_error *err);

/* Deep copy: `dst` (initialised) becomes equal to `src`. dst == src is fine.
 * Errors: TS_ERR_NOMEM. */
TS_API ts_status ts_shape_copy(ts_shape *dst, const ts_shape *src, ts_error *err);

/* Move: frees `dst`, gives it `src`'s dims and storage, leaves `src` the
 * scalar (). Cannot fail. */
TS_API void ts_shape_move(ts_shape *dst, ts_shape *src);

/* Number of dims (0 for a scalar). */
TS_API int ts_shape_ndim(const ts_shape *s);

/* The ndim dims, read-only / writable; valid until the shape is next
 * resized, assigned, moved or freed. Never NULL. */
TS_API const int64_t *ts_shape_dims(const ts_shape *s);
TS_API int64_t *ts_shape_dims_mut(ts_shape *s);

/* Dim at `axis` (negative counts from the end). Errors: TS_ERR_AXIS. */
TS_API ts_status ts_shape_dim(const ts_shape *s, int axis, int64_t *out, ts_error *err);

/* 1 when both shapes have the same ndim and dims, else 0 (TShape ==). */
TS_API int ts_shape_equal(const ts_shape *a, const ts_shape *b);

/* Normalises a possibly negative `axis` against `ndim` (NumPy rule: valid
 * axes are -ndim..ndim-1) into *out. Errors: TS_ERR_AXIS, message
 * "axis 3 is out of bounds for array of dimension 3". */
TS_API ts_status ts_axis_normalize(int64_t axis, int ndim, int *out, ts_error *err);

/* ------------------------------------------------------------------------ */
/* Shape text: parse and format                                              */
/* ------------------------------------------------------------------------ */

/* Parse flags. */
#define TS_PARSE_ALLOW_NEGATIVE 0x1u  /* accept dims < 0 (reshape targets) */

/*
 * Parses a shape tuple in the grammar of MXNet's TShape operator>>, made
 * strict:
 *     shape  := ws ( "(" list ")" | "[" list "]" | int ) ws
 *     list   := ws | item { "," item } [ "," ws ]
 *     item   := ws int ws
 *     int    := digits [ "L" | "l" ]        (Python 2 long suffix)
 * Examples: "(3, 4L, 5)", "[3,4,5]", "(3,)", "()" (scalar, ndim 0), "5"
 * (1-D). Brackets must match; "(3,4,a)", "(3,,4)", "(3,4]", "3x4", an empty
 * string and a dim above INT64_MAX are errors (the seed kept (3,4) from
 * (3,4,a); we do not). A leading "-" is an error unless
 * TS_PARSE_ALLOW_NEGATIVE is set.
 *
 *   text, len   the input; need not be NUL-terminated
 *   consumed    if NULL, the whole input (after trailing whitespace) must be
 *               the shape, else TS_ERR_PARSE "unexpected ... after shape".
 *               If not NULL, parsing stops after the shape and its trailing
 *               whitespace and *consumed receives the number of bytes used.
 *   out         initialised shape, overwritten on success
 * Errors: TS_ERR_PARSE with err->column (1-based) and a message saying what
 * was expected and what was found; TS_ERR_OVERFLOW for a dim > INT64_MAX;
 * TS_ERR_NDIM beyond TS_MAX_NDIM; TS_ERR_NOMEM.
 */
TS_API ts_status ts_shape_parse(ts_shape *out, const char *text, size_t len,
                         unsigned flags, size_t *consumed, ts_error *err);

/* Format flags. */
#define TS_FORMAT_LIST   0x1u   /* "[3,4,5]" instead of "(3,4,5)" */
#define TS_FORMAT_SPACES 0x2u   /* ", " between dims: "(3, 4, 5)" */

/*
 * Writes the shape as text, snprintf-style: Python tuple style by default,
 * "(3,4,5)", "(3,)", "()" (as mshadow operator<<); "[3,4,5]", "[3]", "[]"
 * with TS_FORMAT_LIST.
 * Returns the length of the full text (excluding the NUL). At most cap bytes
 * are written including the NUL; buf may be NULL when cap is 0.
 */
TS_API size_t ts_shape_format(const ts_shape *s, unsigned flags, char *buf, size_t cap);

/* ------------------------------------------------------------------------ */
/* Shape arithmetic (core, mshadow TShape)                                   */
/* ------------------------------------------------------------------------ */

/*
 * Element count: product of all dims; 1 for the scalar (); 0 when any dim
 * is 0 (even if the others would overflow). Unit: elements.
 * Errors: TS_ERR_OVERFLOW (product > INT64_MAX), TS_ERR_VALUE (negative dim).
 */
TS_API ts_status ts_shape_size(const ts_shape *s, int64_t *out, ts_error *err);

/*
 * Product of dims over [begin, end), mshadow ProdShape. Negative begin/end
 * count from the end (Python slice style, -1 is ndim-1). After
 * normalisation 0 <= begin <= end <= ndim is required (mshadow silently
 * returned 1 or read past the end). An empty range gives 1.
 * Errors: TS_ERR_AXIS, TS_ERR_OVERFLOW, TS_ERR_VALUE.
 */
TS_API ts_status ts_shape_prod(const ts_shape *s, int64_t begin, int64_t end,
                        int64_t *out, ts_error *err);

/*
 * mshadow FlatTo2D: out = (product of all dims but the last, last dim).
 * The scalar () gives (1,1): MXNet's NumPy-shape semantics. (The seed's
 * legacy TShape gave (0,0), where ndim 0 meant "unknown shape"; tshape has
 * no unknown shapes.)
 * Errors: TS_ERR_OVERFLOW, TS_ERR_VALUE.
 */
TS_API ts_status ts_shape_flat2d(const ts_shape *s, int64_t out[2], ts_error *err);

/*
 * mshadow FlatTo3D(axis_begin, axis_end): out = (prod [0,b), prod [b..e]
 * inclusive, prod (e,ndim)). Negative axes count from the end. Requires
 * 0 <= b <= e < ndim after normalisation; mshadow checked only e >= b and
 * read past the last axis, we return TS_ERR_AXIS instead. A scalar has no
 * axes, so every call on () fails with TS_ERR_AXIS.
 * FlatTo3D(axis) is ts_shape_flat3d(s, axis, axis, ...).
 * Errors: TS_ERR_AXIS, TS_ERR_OVERFLOW, TS_ERR_VALUE.
 */
TS_API ts_status ts_shape_flat3d(const ts_shape *s, int64_t axis_begin, int64_t axis_end,
                          int64_t out[3], ts_error *err);

/*
 * TShape::get<ndim>(): copies the dims into out[0..ndim-1] when the shape
 * has exactly `ndim` dims. Errors: TS_ERR_NDIM ("shape (2,3) has 2
 * dimensions, expected 3").
 */
TS_API ts_status ts_shape_get(const ts_shape *s, int ndim, int64_t *out, ts_error *err);

/* Binary layouts of TShape::Save/Load, both little-endian. */
typedef enum ts_shape_layout {
    TS_LAYOUT_MSHADOW = 0,   /* u32 ndim, u32 dims[ndim]: mshadow TShape, MXNet legacy */
    TS_LAYOUT_MXNET = 1      /* i32 ndim, i64 dims[ndim]: nnvm/mxnet TShape */
} ts_shape_layout;

/*
 * Writes the shape in `layout` to buf (cap bytes). *written receives the byte
 * count (4 + 4*ndim or 4 + 8*ndim); with buf NULL and cap 0 only the size
 * is computed. Errors: TS_ERR_LIMIT (cap too small; *written still set),
 * TS_ERR_VALUE (a dim is negative or, for mshadow, above UINT32_MAX).
 */
TS_API ts_status ts_shape_save(const ts_shape *s, ts_shape_layout layout,
                        unsigned char *buf, size_t cap, size_t *written,
                        ts_error *err);

/*
 * Reads a shape in `layout` from the first bytes of buf (len bytes).
 * *consumed (may be NULL) receives the bytes used. ndim above TS_MAX_NDIM,
 * negative ndim or dims (MXNet layout), and input shorter than the ndim
 * declares are rejected before any allocation.
 * Errors: TS_ERR_TRUNCATED, TS_ERR_LIMIT, TS_ERR_VALUE, TS_ERR_NOMEM.
 */
TS_API ts_status ts_shape_load(ts_shape *s, ts_shape_layout layout,
                        const unsigned char *buf, size_t len, size_t *consumed,
                        ts_error *err);

/* ------------------------------------------------------------------------ */
/* dtypes                                                                    */
/* ------------------------------------------------------------------------ */

/*
 * Element types. 0..12 are exactly the mshadow/MXNet TypeFlag values
 * (mshadow/base.h). Later values are tshape's own, for types other formats
 * store. Append-only.
 */
typedef enum ts_dtype {
    TS_DTYPE_UNKNOWN = -1,
    TS_DTYPE_FLOAT32 = 0,
    TS_DTYPE_FLOAT64 = 1,
    TS_DTYPE_FLOAT16 = 2,
    TS_DTYPE_UINT8 = 3,
    TS_DTYPE_INT32 = 4,
    TS_DTYPE_INT8 = 5,
    TS_DTYPE_INT64 = 6,
    TS_DTYPE_BOOL = 7,
    TS_DTYPE_INT16 = 8,
    TS_DTYPE_UINT16 = 9,
    TS_DTYPE_UINT32 = 10,
    TS_DTYPE_UINT64 = 11,
    TS_DTYPE_BFLOAT16 = 12,
    TS_DTYPE_COMPLEX64 = 13,
    TS_DTYPE_COMPLEX128 = 14,
    TS_DTYPE_LONGDOUBLE = 15,      /* NumPy f16/f12: platform long double */
    TS_DTYPE_CLONGDOUBLE = 16,     /* NumPy c32/c24 */
    TS_DTYPE_FLOAT8_E5M2 = 17,
    TS_DTYPE_FLOAT8_E4M3FN = 18,
    TS_DTYPE_FLOAT8_E4M3FNUZ = 19,
    TS_DTYPE_FLOAT8_E5M2FNUZ = 20,
    TS_DTYPE_FLOAT8_E8M0FNU = 21,
    TS_DTYPE_FLOAT6_E2M3FN = 22,   /* 6 bits */
    TS_DTYPE_FLOAT6_E3M2FN = 23,   /* 6 bits */
    TS_DTYPE_FLOAT4_E2M1FN = 24,   /* 4 bits */
    TS_DTYPE_DATETIME64 = 25,
    TS_DTYPE_TIMEDELTA64 = 26,
    TS_DTYPE_BYTES = 27,           /* NumPy S<n> */
    TS_DTYPE_UNICODE = 28,         /* NumPy U<n>, UCS-4 */
    TS_DTYPE_VOID = 29,            /* NumPy V<n> */
    TS_DTYPE_OBJECT = 30,          /* NumPy O: Python objects, pickled */
    TS_DTYPE_STRUCTURED = 31,      /* NumPy record dtype */
    TS_DTYPE_QUANTIZED = 32        /* GGUF block-quantized (see ts_array) */
} ts_dtype;

#define TS_DTYPE_COUNT 33

/* Canonical NumPy-style name ("float32", "bfloat16", "float8_e4m3fn",
 * "datetime64", "bytes", "object", ...). Never NULL: "unknown" if invalid. */
TS_API const char *ts_dtype_name(ts_dtype dt);

/* Bits per element for fixed-size dtypes (float32: 32, float4: 4); 0 for
 * dtypes whose size is a parameter (bytes, unicode, void, structured,
 * quantized) or unknown. */
TS_API int ts_dtype_bits(ts_dtype dt);

/* Bytes per element, (bits + 7) / 8 for fixed-size dtypes; 0 as above. */
TS_API int64_t ts_dtype_itemsize(ts_dtype dt);

/*
 * Looks up a user spelling: canonical names ("float32", "bf16",
 * "bfloat16"), NumPy type codes with or without byte order ("f4", "<f4",
 * "|b1", "i8", "c8"), and MXNet type flags as decimal ("0".."12").
 * Errors: TS_ERR_DTYPE ("unknown dtype 'x'").
 */
TS_API ts_status ts_dtype_from_string(const char *text, ts_dtype *out, ts_error *err);

/* mshadow type flag -> dtype. Errors: TS_ERR_DTYPE for flags outside 0..12. */
TS_API ts_status ts_dtype_from_mshadow_flag(int64_t flag, ts_dtype *out, ts_error *err);

/*
 * A parsed NumPy array-interface typestr ("descr" of simple dtypes):
 * byte order char, kind, size, optional datetime unit.
 */
typedef struct ts_descr {
    ts_dtype dtype;
    char byteorder;          /* '<' little, '>' big, '|' not applicable, '=' native */
    int64_t itemsize;        /* bytes per element; may be 0 (e.g. "|S0") */
    char unit[16];           /* datetime/timedelta unit "ns", "25s", or "" */
} ts_descr;

/*
 * Parses a simple NumPy descr: [<>|=]? kind size [ "[" unit "]" ] with kind
 * one of b i u f c m M S U V O (NumPy arrays.interface typestr). "<U3" has
 * itemsize 12 (UCS-4). Non-canonical one-letter codes ("d", "?") are
 * rejected. Errors: TS_ERR_DTYPE naming the descr and what is wrong.
 */
TS_API ts_status ts_descr_parse(const char *descr, ts_descr *out, ts_error *err);

/*
 * Writes the NumPy descr of a fixed-size dtype with byte order `byteorder`
 * ('<', '>', or '|'; one-byte types always get '|'), e.g. "<f4", "|b1".
 * snprintf-style return. bfloat16 and float8/6/4 have no NumPy descr:
 * returns 0 and writes "".
 */
TS_API size_t ts_descr_format(ts_dtype dt, char byteorder, char *buf, size_t cap);

/* ------------------------------------------------------------------------ */
/* Blob (mshadow TBlob)                                                      */
/* ------------------------------------------------------------------------ */

#define TS_DEV_CPU 1   /* mshadow cpu::kDevMask */
#define TS_DEV_GPU 2   /* mshadow gpu::kDevMask */

/*
 * A typed view of memory after mshadow's TBlob: data pointer (not owned),
 * shape (owned), row stride in elements (the distance between consecutive
 * rows of the flat-2D view), device mask and dtype. The blob never reads or
 * writes *data; it only computes with shapes.
 */
typedef struct ts_blob {
    void *data;
    ts_shape shape;
    int64_t stride;
    int dev_mask;
    ts_dtype dtype;
} ts_blob;

/*
 * Initialises `b` as a contiguous blob over `data` (not owned, may be NULL)
 * with a copy of `shape`: stride = last dim (1 for a scalar), like the TBlob
 * constructor. Errors: TS_ERR_NOMEM, TS_ERR_VALUE (negative dim).
 */
TS_API ts_status ts_blob_init(ts_blob *b, void *data, const ts_shape *shape,
                       int dev_mask, ts_dtype dtype, ts_error *err);

/* Frees the blob's shape (not the data). Accepts NULL. */
TS_API void ts_blob_free(ts_blob *b);

/* ndim and element count of the blob. Size errors as ts_shape_size. */
TS_API int ts_blob_ndim(const ts_blob *b);
TS_API ts_status ts_blob_size(const ts_blob *b, int64_t *out, ts_error *err);

/* mshadow CheckContiguous: 1 when stride equals the last dim (a scalar is
 * contiguous when stride is 1), else 0. */
TS_API int ts_blob_is_contiguous(const ts_blob *b);

/*
 * TBlob::get_with_shape: `out` (initialised; freed and overwritten) becomes
 * a contiguous blob over the same data with `shape`.
 * Errors: TS_ERR_LAYOUT ("blob is not contiguous: stride 8, last dim 5"),
 * TS_ERR_SIZE ("cannot view 60 elements as shape (7,9) of 63 elements"),
 * TS_ERR_NOMEM, TS_ERR_VALUE.
 */
TS_API ts_status ts_blob_reshape(const ts_blob *b, const ts_shape *shape, ts_blob *out,
                          ts_error *err);

/* TBlob::FlatTo2D / FlatTo3D views: reshapes of `b` to the 2-D or 3-D shape
 * of ts_shape_flat2d / ts_shape_flat3d. The 2-D view keeps b's row stride
 * (as mshadow), so it also works on a non-contiguous blob; the 3-D one needs
 * a contiguous blob. Errors as those functions and ts_blob_reshape. */
TS_API ts_status ts_blob_flat2d(const ts_blob *b, ts_blob *out, ts_error *err);
TS_API ts_status ts_blob_flat3d(const ts_blob *b, int64_t axis_begin, int64_t axis_end,
                         ts_blob *out, ts_error *err);

/* ------------------------------------------------------------------------ */
/* Saved tensor files                                                        */
/* ------------------------------------------------------------------------ */

typedef enum ts_format {
    TS_FORMAT_AUTO = 0,          /* detect from magic bytes */
    TS_FORMAT_NPY = 1,           /* NumPy .npy, versions 1.0, 2.0, 3.0 */
    TS_FORMAT_NPZ = 2,           /* NumPy .npz: zip of .npy */
    TS_FORMAT_MXNET = 3,         /* MXNet NDArray list (.params, .nd) */
    TS_FORMAT_SAFETENSORS = 4,   /* Hugging Face safetensors */
    TS_FORMAT_GGUF = 5,          /* llama.cpp GGUF v2/v3 */
    TS_FORMAT_TSHAPE32 = 6,      /* raw mshadow TShape::Save: u32 ndim, u32 dims */
    TS_FORMAT_TSHAPE64 = 7       /* raw MXNet TShape::Save: i32 ndim, i64 dims */
} ts_format;

/* "npy", "npz", "mxnet", "safetensors", "gguf", "tshape32", "tshape64",
 * "auto"; "unknown" otherwise. */
TS_API const char *ts_format_name(ts_format f);

/* Name -> format (the names above). Errors: TS_ERR_INVALID_ARG. */
TS_API ts_status ts_format_from_name(const char *name, ts_format *out, ts_error *err);

/* MXNet storage types (include/mxnet/ndarray.h). */
typedef enum ts_storage {
    TS_STORAGE_DENSE = 0,
    TS_STORAGE_ROW_SPARSE = 1,
    TS_STORAGE_CSR = 2
} ts_storage;

/*
 * What a reader reports for one array. All pointers point into storage owned
 * by the ts_file and stay valid until ts_file_close.
 */
typedef struct ts_array {
    const char *name;            /* entry name ("" when the format has none) */
    ts_shape shape;              /* NumPy order (C order, outermost first) */
    ts_dtype dtype;
    const char *dtype_name;      /* canonical with parameters: "float32",
                                    "datetime64[ns]", "bytes5", "q4_0" */
    const char *format_dtype;    /* the format's own spelling: "<f4", "F32",
                                    "0" (MXNet flag), "Q4_0", a structured descr */
    char byteorder;              /* '<', '>', '|' (n/a), '=' (native) */
    int64_t itemsize;            /* bytes per element; 0 when sub-byte or
                                    block-quantized (see bits, block_*) */
    int32_t bits;                /* bits per element, 0 for blocked types */
    int64_t block_size;          /* elements per block: 1, or GGUF's 32/256 */
    int64_t block_bytes;         /* bytes per block (itemsize when block_size 1) */
    int64_t size;                /* element count */
    int64_t nbytes;              /* bytes of data; -1 when unknown (object) */
    int64_t data_offset;         /* absolute offset of the data in the file;
                                    -1 when not addressable (deflated member) */
    int fortran_order;           /* 1: F order (npy fortran_order) */
    ts_storage storage;          /* MXNet sparse storage type */
    ts_shape storage_shape;      /* sparse: shape of the stored values */
    int32_t dev_type, dev_id;    /* MXNet saved context; 0,0 when n/a */
    const char *note;            /* extra fact for humans, or NULL, e.g.
                                    "payload is a pickle, not inspected" */
} ts_array;

/* Options for opening a file. Zero-initialise, then set what you need. */
typedef struct ts_open_options {
    ts_format format;            /* TS_FORMAT_AUTO: detect */
    size_t npy_max_header;       /* 0: NumPy's 10000-byte default */
    int gguf_stored_order;       /* 1: report GGUF dims innermost first */
    int want_metadata;           /* 1: collect safetensors/GGUF metadata */
} ts_open_options;

/* An opened, parsed file: a list of arrays and optional metadata. */
typedef struct ts_file ts_file;

/*
 * Opens `path`, maps it read-only and parses its headers (never its data).
 * *out receives a new ts_file on success, NULL on failure; close it with
 * ts_file_close. opts may be NULL (auto-detect, defaults).
 * Errors: TS_ERR_IO (with strerror text), TS_ERR_FORMAT, TS_ERR_TRUNCATED,
 * TS_ERR_UNSUPPORTED, TS_ERR_LIMIT, TS_ERR_OVERFLOW, TS_ERR_DTYPE,
 * TS_ERR_NOMEM; err->offset is the byte offset of the problem and the
 * message names the entry.
 */
TS_API ts_status ts_file_open(ts_file **out, const char *path,
                       const ts_open_options *opts, ts_error *err);

/*
 * Like ts_file_open on an in-memory image of a file: `data` (len bytes) is
 * borrowed and must outlive the ts_file. The same options and errors apply.
 */
TS_API ts_status ts_file_open_memory(ts_file **out, const void *data, size_t len,
                              const ts_open_options *opts, ts_error *err);

/* Unmaps and frees everything. Accepts NULL. */
TS_API void ts_file_close(ts_file *f);

/* Detected (or forced) format, and its version as text ("1.0", "V2", "3"),
 * never NULL. */
TS_API ts_format ts_file_format(const ts_file *f);
TS_API const char *ts_file_version(const ts_file *f);

/* Size of the file in bytes. */
TS_API int64_t ts_file_nbytes(const ts_file *f);

/* Number of arrays, and the i-th (0-based, in file order); NULL if out of
 * range. */
TS_API size_t ts_file_count(const ts_file *f);
TS_API const ts_array *ts_file_array(const ts_file *f, size_t i);

/*
 * Metadata entries (safetensors __metadata__, GGUF key/values), collected
 * only when opts->want_metadata was set. *key is the key; *json_value the
 * value as JSON text ("\"a\"", "32", "[1,2]"). Returns 0 when i is out of
 * range, 1 otherwise.
 */
TS_API size_t ts_file_metadata_count(const ts_file *f);
TS_API int ts_file_metadata(const ts_file *f, size_t i, const char **key,
                     const char **json_value);

/* Detects the format from the first bytes of a file (at least 8 bytes are
 * needed for a reliable answer). Returns TS_FORMAT_AUTO when unknown. Raw
 * TShape binaries have no magic and are never detected. */
TS_API ts_format ts_format_detect(const void *data, size_t len);

/* ------------------------------------------------------------------------ */
/* Shape operations: reshape, broadcast, axes, strides, contiguity, views,   */
/* ravel/unravel (NumPy, MXNet, PyTorch semantics)                           */
/* ------------------------------------------------------------------------ */

/* ------------------------------------------------------------------------ */
/* Patterns and structured shapes: slices and chips, iteration, einsum,     */
/* einops, Caffe2 Tensor dims, jagged/tiled/nested shapes                    */
/* ------------------------------------------------------------------------ */

/* ------------------------------------------------------------------------ */
/* DLPack interop                                                            */
/* ------------------------------------------------------------------------ */

/*
 * tshape's own copies of the DLPack structs (dmlc/dlpack include/dlpack/
 * dlpack.h), so this header stays self-contained. They follow DLPack 1.1
 * (type codes 0..17) and are laid out exactly like DLTensor and
 * DLManagedTensor of every DLPack >= 0.7 (and of 0.6 wherever int is 32
 * bits); tests/check_dlpack.c checks every offset against the system
 * <dlpack/dlpack.h>. To hand a tensor to a framework, cast the pointer:
 * (DLTensor *)&t or (DLManagedTensor *)m.
 *
 * DLPack rules that matter here: shape and strides count ELEMENTS, not
 * bytes; NULL strides mean compact row-major (C order); data is in native
 * byte order; data + byte_offset is the first element.
 */
#define TS_DLPACK_MAJOR_VERSION 1
#define TS_DLPACK_MINOR_VERSION 1

/* DLDeviceType values tshape produces or accepts. */
#define TS_DLPACK_CPU 1              /* kDLCPU */
#define TS_DLPACK_CUDA 2             /* kDLCUDA */

/* DLDataTypeCode values of DLPack 1.1. */
#define TS_DLPACK_INT 0              /* kDLInt */
#define TS_DLPACK_UINT 1             /* kDLUInt */
#define TS_DLPACK_FLOAT 2            /* kDLFloat */
#define TS_DLPACK_OPAQUE_HANDLE 3    /* kDLOpaqueHandle */
#define TS_DLPACK_BFLOAT 4           /* kDLBfloat */
#define TS_DLPACK_COMPLEX 5          /* kDLComplex */
#define TS_DLPACK_BOOL 6             /* kDLBool (DLPack >= 0.8) */
#define TS_DLPACK_FLOAT8_E3M4 7      /* FP8..FP4 codes: DLPack >= 1.1 */
#define TS_DLPACK_FLOAT8_E4M3 8
#define TS_DLPACK_FLOAT8_E4M3B11FNUZ 9
#define TS_DLPACK_FLOAT8_E4M3FN 10
#define TS_DLPACK_FLOAT8_E4M3FNUZ 11
#define TS_DLPACK_FLOAT8_E5M2 12
#define TS_DLPACK_FLOAT8_E5M2FNUZ 13
#define TS_DLPACK_FLOAT8_E8M0FNU 14
#define TS_DLPACK_FLOAT6_E2M3FN 15
#define TS_DLPACK_FLOAT6_E3M2FN 16
#define TS_DLPACK_FLOAT4_E2M1FN 17

/* DLDevice. device_type is one of the DLDeviceType values (kDLCPU = 1). */
typedef struct ts_dlpack_device {
    int32_t device_type;
    int32_t device_id;
} ts_dlpack_device;

/* DLDataType: float32 is {2, 32, 1}, complex64 {5, 64, 1}, bool {6, 8, 1}. */
typedef struct ts_dlpack_dtype {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
} ts_dlpack_dtype;

/* DLTensor. shape and strides have ndim elements; strides may be NULL
 * (compact row-major). The first element is at (char *)data + byte_offset. */
typedef struct ts_dlpack_tensor {
    void *data;
    ts_dlpack_device device;
    int32_t ndim;
    ts_dlpack_dtype dtype;
    int64_t *shape;
    int64_t *strides;
    uint64_t byte_offset;
} ts_dlpack_tensor;

/* DLManagedTensor (the legacy, unversioned managed tensor that every DLPack
 * consumer accepts). The consumer calls deleter(self) once when done. */
typedef struct ts_dlpack_managed {
    ts_dlpack_tensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct ts_dlpack_managed *self);
} ts_dlpack_managed;

/*
 * dtype -> DLPack 1.1 DLDataType (lanes 1): int8..int64 -> kDLInt,
 * uint8..uint64 -> kDLUInt, float16/32/64 -> kDLFloat, bfloat16 ->
 * kDLBfloat, complex64/128 -> kDLComplex, bool -> kDLBool (bits 8), the
 * float8/6/4 types -> codes 10..17 with bits 8, 6 or 4 (packed).
 * Errors: TS_ERR_DTYPE for dtypes DLPack cannot describe: longdouble and
 * clongdouble (not IEEE without padding; NumPy's __dlpack__ refuses them
 * too), datetime64, timedelta64, bytes, str, void, object, structured,
 * quantized and unknown.
 */
TS_API ts_status ts_dtype_to_dlpack(ts_dtype dt, ts_dlpack_dtype *out, ts_error *err);

/*
 * DLPack DLDataType -> dtype, the inverse of ts_dtype_to_dlpack. lanes must
 * be 1 and bits must be the type's width (kDLBool: 8).
 * Errors: TS_ERR_DTYPE naming code, bits and lanes: vector types (lanes !=
 * 1), kDLOpaqueHandle, codes above 17, widths no dtype has (int24,
 * float128), and the FP8 codes without a tshape dtype (7 float8_e3m4,
 * 8 float8_e4m3, 9 float8_e4m3b11fnuz).
 */
TS_API ts_status ts_dtype_from_dlpack(ts_dlpack_dtype dt, ts_dtype *out, ts_error *err);

/*
 * Describes blob `b` as a borrowed DLTensor in *out: data = b->data,
 * byte_offset 0, device from b->dev_mask (TS_DEV_CPU -> kDLCPU,
 * TS_DEV_GPU -> kDLCUDA; device_id 0, set it yourself if needed), dtype from
 * ts_dtype_to_dlpack, ndim and shape from b->shape, and explicit strides in
 * elements: row-major (s[n-1] = 1, s[k] = s[k+1] * d[k+1]) for a contiguous
 * blob; for a blob of several rows whose row stride r differs from the last
 * dim (mshadow's padded rows), s[n-2] = r: (..., d[n-2]*r, r, 1).
 *   shape, strides  caller arrays of at least ndim elements (TS_MAX_NDIM
 *                   always suffices), filled and pointed to by *out; both may
 *                   be NULL when ndim is 0, and *out then gets NULL shape and
 *                   strides. *out borrows them and b->data: keep them alive.
 * Errors: TS_ERR_DTYPE (as ts_dtype_to_dlpack), TS_ERR_UNSUPPORTED (a
 * dev_mask other than TS_DEV_CPU/TS_DEV_GPU), TS_ERR_LAYOUT (a row stride
 * smaller than the last dim, so rows would overlap), TS_ERR_INVALID_ARG (NULL
 * buffers with ndim > 0), TS_ERR_VALUE (negative dim), TS_ERR_OVERFLOW
 * (a stride does not fit in int64).
 */
TS_API ts_status ts_blob_to_dlpack(const ts_blob *b, int64_t *shape, int64_t *strides,
                                   ts_dlpack_tensor *out, ts_error *err);

/*
 * The inverse: makes `out` a blob viewing the DLTensor `t`, as mshadow's
 * TBlob(const DLTensor &) does. `out` is treated as uninitialised (like
 * ts_blob_init); on success free it with ts_blob_free. On failure it is left
 * an empty blob that ts_blob_free accepts. The data pointer is
 * t->data + t->byte_offset (the offset is folded in); the blob does not own
 * it. device_id is dropped (a blob has only a device mask).
 * Layout: NULL strides mean compact row-major. Otherwise the strides (in
 * elements; those of dims of size 1, and all of a zero-size tensor, are
 * ignored as in NumPy) must be row-major with unit innermost stride and an
 * optional row stride r >= the last dim: (..., d[n-2]*r, r, 1). r becomes
 * the blob's stride.
 * Errors: TS_ERR_INVALID_ARG (t NULL, NULL shape with ndim > 0),
 * TS_ERR_NDIM (ndim < 0 or > TS_MAX_NDIM), TS_ERR_VALUE (negative dim),
 * TS_ERR_OVERFLOW (element count, stride product or data + byte_offset),
 * TS_ERR_DTYPE (as ts_dtype_from_dlpack), TS_ERR_UNSUPPORTED (a device
 * other than kDLCPU/kDLCUDA), TS_ERR_LAYOUT (naming the strides: a
 * non-unit innermost stride, or strides that are not row-major with a row
 * stride), TS_ERR_NOMEM.
 */
TS_API ts_status ts_blob_from_dlpack(const ts_dlpack_tensor *t, ts_blob *out,
                                     ts_error *err);

/*
 * Describes array `a` of an opened file as a DLTensor over the file's bytes
 * without reading them: data NULL and byte_offset = a->data_offset, so a
 * program that maps the file at address p sets data = p (DLPack: first
 * element at data + byte_offset) and hands the view to a framework. Device
 * kDLCPU, id 0; dtype from ts_dtype_to_dlpack; shape as reported (NumPy
 * order: do not use with gguf_stored_order); strides in elements, row-major
 * for C order and (1, d0, d0*d1, ...) for a Fortran-order npy array.
 *   shape, strides  as for ts_blob_to_dlpack.
 * Errors: TS_ERR_DTYPE (byte order not native: DLPack data is always native
 * order, so a big-endian '>f4' array on a little-endian host cannot be
 * viewed without a byte swap; or a dtype DLPack cannot describe: object,
 * structured, bytes, str, void, datetime, quantized...), TS_ERR_LAYOUT
 * (MXNet row_sparse/csr storage: the data is not a dense array of the
 * shape), TS_ERR_UNSUPPORTED (data_offset -1: the data is not stored as is,
 * e.g. a deflated npz member), TS_ERR_INVALID_ARG, TS_ERR_VALUE,
 * TS_ERR_OVERFLOW as above.
 */
TS_API ts_status ts_array_to_dlpack(const ts_array *a, int64_t *shape, int64_t *strides,
                                    ts_dlpack_tensor *out, ts_error *err);

/*
 * Allocates a DLManagedTensor that a DLPack consumer can own: a copy of *t
 * whose shape and strides arrays are copied into storage allocated by
 * tshape (NULL strides stay NULL). The data is not copied and not owned.
 * manager_ctx is set to `ctx`. The deleter, called once with the tensor,
 * first calls release(ctx) when release is not NULL (e.g. to munmap the
 * file the data lives in), then frees what tshape allocated (the struct and
 * the shape/strides copies), never the data. To drop a managed tensor
 * without handing it over, call (*out)->deleter(*out).
 * Errors: TS_ERR_INVALID_ARG (t or out NULL, NULL shape with ndim > 0),
 * TS_ERR_NDIM (ndim < 0 or > TS_MAX_NDIM), TS_ERR_NOMEM. *out is NULL on
 * failure.
 */
TS_API ts_status ts_dlpack_managed_new(const ts_dlpack_tensor *t,
                                       void (*release)(void *ctx), void *ctx,
                                       ts_dlpack_managed **out, ts_error *err);

/*
 * ts_blob_to_dlpack then ts_dlpack_managed_new(..., NULL, NULL, out, err):
 * a managed tensor viewing the blob's data; the deleter frees only tshape's
 * storage. Errors as those two functions; *out is NULL on failure.
 */
TS_API ts_status ts_blob_to_dlpack_managed(const ts_blob *b, ts_dlpack_managed **out,
                                           ts_error *err);

#ifdef __cplusplus
}
#endif

#endif /* TSHAPE_H */
