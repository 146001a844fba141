/*
 * tshape.h - tensor shapes, blobs and saved-tensor file headers, in C11.
 *
 * This is the whole public API of libtshape. It brings the shape machinery of
 * mshadow/MXNet (TShape, TBlob), TensorWrapper (Shape, slices, chips) and
 * Caffe2 (Tensor dims) to C, plus header-only readers for saved tensor files.
 *
 * Stable and experimental parts (as zstd.h with ZSTD_STATIC_LINKING_ONLY):
 *   - The stable part is always declared: the version, status codes and
 *     error reports, ts_shape with its text form and core arithmetic, the
 *     integer lexer, dtypes, opening and inspecting saved tensor files, and
 *     the NumPy layout operations (reshape, broadcast, transpose, squeeze,
 *     expand_dims, moveaxis, flatten, strides, C/F contiguity). What it
 *     declares changes only with the major version (from 1.0 on): functions
 *     keep their signatures and meaning, enums and status codes are only
 *     appended, and structs only grow at their end, where the rule of the
 *     struct allows it (ts_array, which the library allocates; option
 *     structs with a struct_size).
 *   - The experimental part is declared only when TS_EXPERIMENTAL_API is
 *     defined before this header is included:
 *         #define TS_EXPERIMENTAL_API
 *         #include <tshape.h>
 *     It holds what is not ready to freeze: blobs (TBlob), PyTorch layouts
 *     and views, ravel/unravel, slices and chips, index iteration, einsum
 *     and labelled composition, einops, Caffe2 dims, jagged shapes,
 *     DLPack and models (sets of files). Any release may change it; build against the version you
 *     wrote for. A declaration moves to the stable part once it has gone a
 *     release without a change, follows every convention below and is
 *     covered by tests/check_args.c; nothing moves back before 2.0. Both
 *     parts live in the same library: the rule is a promise about source
 *     and binary compatibility, not about what is exported.
 *
 * Conventions, for every function unless its comment says otherwise:
 *
 * Argument order. The object the function is named after and works on
 * comes first (ts_shape_resize(s, ...), ts_file_count(f),
 * ts_jagged_slice(j, ...)); then the inputs; then the outputs it produces (a
 * result shape, a parsed or opened object: ts_shape_parse(text, len, flags,
 * out, consumed, err), ts_file_open(path, opts, out, err)); then
 * `ts_error *err`, always last. Functions that set an existing object, as
 * `=` does, take that object first: ts_shape_assign(s, dims, ndim),
 * ts_shape_copy(dst, src), ts_shape_move(dst, src), and the in-place
 * initialisers ts_blob_init(b, ...), ts_index_iter_init(it, ...). An array is
 * followed by its count: (dims, ndim), (axes, naxes), (text, len), (buf, cap).
 *
 * Types and units. Counts of things (array lengths, text lengths, buffer
 * capacities, numbers of arrays) are size_t. Dims, element counts, byte
 * counts and offsets, axes and indices are int64_t; axes may be negative
 * where NumPy allows it (-1 is the last axis). ndim, rank and depth are int
 * (0..TS_MAX_NDIM). "size" is an element count, "nbytes" a byte count,
 * "itemsize" the bytes of one element; a comment says which unit every
 * other number has. Flags are unsigned bit sets named after their function
 * (TS_PARSE_*, TS_SHAPE_PRINT_*, TS_RESHAPE_*).
 *
 * Argument checks, one rule. A pointer that is NULL where the comment does
 * not allow it, an array that is NULL with a non-zero count, unknown flag
 * bits, and a value outside its enum or documented set (a ts_shape_layout,
 * ts_dtype, ts_einops_op, ts_index_mode, an order other than 'C'/'F', a
 * byte order other than '<' '>' '|' '=', a device mask, a 0/1 option)
 * give TS_ERR_INVALID_ARG and a message that starts with the function's
 * name and names the argument: "ts_shape_save: buf is NULL but cap is 100".
 * Nothing is written then, except that object outputs (ts_file **,
 * ts_model **, ts_einops **, ts_jagged **, ts_dlpack_managed **) are set to NULL and
 * blob outputs (ts_blob_init, ts_blob_from_dlpack) become empty blobs when
 * they are not NULL themselves, so the usual cleanup needs no special case. Numbers that are data rather than the mechanics of
 * the call (an ndim, a dim, an axis, an index) keep their own codes:
 * TS_ERR_NDIM, TS_ERR_VALUE, TS_ERR_AXIS, TS_ERR_INDEX. The "Errors:" lists
 * below leave out the TS_ERR_INVALID_ARG of this rule; they name it where a
 * function has other invalid-argument cases. tests/check_args.c calls every
 * function with such arguments.
 * Functions that return something else than a status cannot report an
 * error, so for a NULL object or bad arguments they return 0 (counts,
 * sizes, ndim, predicates: ts_shape_ndim, ts_file_count,
 * ts_is_c_contiguous), NULL (pointers: ts_shape_dims, ts_file_array,
 * ts_file_version), TS_FORMAT_AUTO (ts_file_format), or, for the names of
 * codes, "unknown" (ts_dtype_name, ts_format_name; ts_strerror says
 * "unknown error"; never NULL). The snprintf-style writers (ts_shape_format,
 * ts_descr_format, ts_jagged_format) return 0 and write "" when they can.
 * Functions that release objects (ts_shape_free, ts_blob_free,
 * ts_file_close, ts_einops_free, ts_jagged_free, ts_model_close) accept NULL and do nothing,
 * as do ts_shape_init and ts_shape_move.
 *
 * Errors. Functions that can fail return a ts_status (TS_OK == 0) and take
 * a last argument `ts_error *err`, which may be NULL. On failure err->code
 * is the returned status, err->message says what was expected, what was
 * found and where, and the position is also in fields: err->column in text
 * (the text parsers set it for every error that has a place in the text),
 * err->offset in a file (the readers set it wherever the problem has a
 * place in the file), err->index for the entry or argument (see ts_error).
 * Out-parameters are left unspecified on failure unless stated.
 *
 * Growing structs. An option struct that may gain fields starts with
 * `size_t struct_size` and has an initialiser macro (ts_open_options,
 * TS_OPEN_OPTIONS_INIT; the rule is at ts_open_options). Structs the library
 * allocates and hands out by pointer (ts_array) only gain fields at their
 * end; never copy them into arrays of your own.
 *
 * Memory and ownership. The library never prints, never exits and never
 * aborts. It allocates only with malloc/realloc; every object it allocates
 * has a _free or _close function, and pointers it returns point into such
 * an object and stay valid until it is freed, unless a comment says
 * otherwise. Shapes passed in are only read; an output shape is
 * caller-initialised and the caller frees it with ts_shape_free.
 *
 * Rules. Each function's comment names the rule it follows (NumPy, mshadow,
 * MXNet, PyTorch, TensorWrapper, Caffe2, einops, DLPack) and where tshape
 * deliberately differs from it.
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

/* ======================================================================== */
/* STABLE API                                                               */
/* ======================================================================== */

/*
 * Everything below up to the experimental part is the stable API: see
 * "Stable and experimental parts" at the top of this header for the promise.
 */

/* ------------------------------------------------------------------------ */
/* Version                                                                  */
/* ------------------------------------------------------------------------ */

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
/* Errors                                                                   */
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
    TS_ERR_VALUE = 17,         /* a dim or argument has a forbidden value (e.g. negative) */
    TS_ERR_CANCELED = 18       /* a callback asked to stop (ts_write progress) */
} ts_status;

#define TS_ERROR_MESSAGE_MAX 512

/*
 * Detailed error report, in the spirit of jansson's json_error_t. Positions
 * are fields, not only words of the message:
 *   code     the status that was returned
 *   column   1-based column (byte position) in the text input the error is
 *            about, or 0 when the error has no position in a text
 *   offset   byte offset in the file or buffer, or -1 when not a file
 *   index    0-based position, in its list, of the item the message names:
 *            the entry of a file in the file's own order ("array 3",
 *            "tensor 3", "member 2", "shape 1": arrays, GGUF tensors or
 *            key/value pairs, npz members, raw TShape records), or the
 *            argument of a function taking several inputs (ts_broadcast's
 *            shapes, ts_einsum_shape's operands, ts_label_compose's inputs);
 *            -1 when the error is about no such item. `column` then counts
 *            in that item's text where it has one (a label list).
 *   message  one line, NUL-terminated, without a trailing newline; it names
 *            what was expected and what was found. It does not name the
 *            file itself (the caller knows it), but names the entry.
 * On success a function leaves *err unspecified unless it says otherwise;
 * read it only after a failure.
 */
typedef struct ts_error {
    ts_status code;
    int64_t column;
    int64_t offset;
    int64_t index;
    char message[TS_ERROR_MESSAGE_MAX];
} ts_error;

/* Static text for a status code, e.g. "integer overflow" (curl's
 * curl_easy_strerror). Never NULL, never to be freed; a code outside the
 * enum gives "unknown error". */
TS_API const char *ts_strerror(ts_status code);

/* ------------------------------------------------------------------------ */
/* Shape                                                                    */
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

/* Makes `s` the scalar shape () owning nothing (mshadow TShape()). Does not
 * free: use on uninitialised memory only. Does nothing when s is NULL. */
TS_API void ts_shape_init(ts_shape *s);

/* Releases the shape's heap storage and leaves `s` the scalar shape ();
 * `s` may be reused. Accepts NULL. */
TS_API void ts_shape_free(ts_shape *s);

/*
 * Sets ndim to `ndim` (0..TS_MAX_NDIM) and every dim to 1, like mshadow's
 * TShape(ndim). Reuses heap storage when large enough; `s` keeps owning it.
 * Errors: TS_ERR_NDIM (ndim < 0 or > TS_MAX_NDIM; `s` unchanged),
 * TS_ERR_NOMEM.
 */
TS_API ts_status ts_shape_resize(ts_shape *s, int ndim, ts_error *err);

/*
 * Sets `s` (initialised) to the `ndim` dims dims[0..ndim-1] (mshadow
 * TShape::CopyFrom): element counts, stored as given, negatives included.
 * dims may be NULL when ndim is 0; it may not point into `s` itself. The
 * dims are copied: the caller keeps ownership of `dims`.
 * Errors: TS_ERR_NDIM (ndim < 0 or > TS_MAX_NDIM), TS_ERR_NOMEM.
 */
TS_API ts_status ts_shape_assign(ts_shape *s, const int64_t *dims, int ndim, ts_error *err);

/* Deep copy, like `=` on mshadow's TShape: `dst` (initialised) becomes
 * equal to `src`, with storage of its own. dst == src is fine.
 * Errors: TS_ERR_NOMEM. */
TS_API ts_status ts_shape_copy(ts_shape *dst, const ts_shape *src, ts_error *err);

/* Move (TShape's move assignment): frees `dst`'s storage, gives it `src`'s
 * dims and storage, leaves `src` the scalar (). Cannot fail; does nothing
 * when dst or src is NULL or when they are the same shape. */
TS_API void ts_shape_move(ts_shape *dst, ts_shape *src);

/* Number of dims, 0..TS_MAX_NDIM (0 for the scalar () and for NULL). */
TS_API int ts_shape_ndim(const ts_shape *s);

/* The ndim dims (element counts), read-only / writable, owned by the
 * shape; valid until the shape is next resized, assigned, moved or freed.
 * Not NULL for a shape (even for ndim 0); NULL for a NULL shape. */
TS_API const int64_t *ts_shape_dims(const ts_shape *s);
TS_API int64_t *ts_shape_dims_mut(ts_shape *s);

/* *out receives the dim at `axis` (an element count; negative axes count
 * from the end, as NumPy's shape[axis]). Errors: TS_ERR_AXIS. */
TS_API ts_status ts_shape_dim(const ts_shape *s, int64_t axis, int64_t *out, ts_error *err);

/* 1 when both shapes have the same ndim and dims, else 0 (TShape ==); 0
 * when either is NULL. */
TS_API int ts_shape_equal(const ts_shape *a, const ts_shape *b);

/* Normalises a possibly negative `axis` against `ndim` (NumPy
 * normalize_axis_index: valid axes are -ndim..ndim-1) into *out, 0..ndim-1.
 * Errors: TS_ERR_AXIS ("axis 3 is out of bounds for array of dimension 3",
 * NumPy's AxisError text), TS_ERR_NDIM (ndim outside 0..TS_MAX_NDIM). */
TS_API ts_status ts_axis_normalize(int64_t axis, int ndim, int *out, ts_error *err);

/* ------------------------------------------------------------------------ */
/* Shape text: parse and format, integers and integer lists                 */
/* ------------------------------------------------------------------------ */

/* Flags of the text parsers (ts_shape_parse, ts_parse_i64, ts_parse_i64_list). */
#define TS_PARSE_ALLOW_NEGATIVE 0x1u  /* accept values < 0 (reshape targets, axes) */

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
 * TS_PARSE_ALLOW_NEGATIVE is set. ws is C isspace (space, \t \n \v \f \r),
 * as the istream MXNet reads from.
 *
 *   text, len   the input, len bytes; need not be NUL-terminated; may be
 *               NULL when len is 0
 *   flags       0 or TS_PARSE_ALLOW_NEGATIVE
 *   out         initialised shape, overwritten on success with at most
 *               TS_MAX_NDIM dims (element counts)
 *   consumed    if NULL, the whole input (after trailing whitespace) must be
 *               the shape, else TS_ERR_PARSE "unexpected ... after shape".
 *               If not NULL, parsing stops after the shape and its trailing
 *               whitespace and *consumed receives the number of bytes used.
 * Errors (each with err->column, 1-based): TS_ERR_PARSE with a message
 * saying what was expected and what was found; TS_ERR_OVERFLOW for a dim
 * beyond int64; TS_ERR_VALUE for a negative dim without the flag;
 * TS_ERR_NDIM beyond TS_MAX_NDIM dims; TS_ERR_NOMEM.
 */
TS_API ts_status ts_shape_parse(const char *text, size_t len, unsigned flags, ts_shape *out,
                                size_t *consumed, ts_error *err);

/*
 * Parses one whole decimal integer: text[0..len) (need not be
 * NUL-terminated) is an optional sign and one or more digits, and nothing
 * else: no whitespace, no "0x", no suffix. Leading zeros are allowed. '+' is
 * always accepted; '-' only with TS_PARSE_ALLOW_NEGATIVE, and then
 * -9223372036854775808 (INT64_MIN) is in range. The same lexer reads every
 * integer of the library's text grammars, so this accepts exactly what a
 * dim of a shape is (without the "L" suffix).
 *   out   receives the value on success (unchanged on failure)
 * Errors (err->column is the 1-based column of the problem):
 * TS_ERR_PARSE ("expected an integer at column 1, found 'x'", "expected the
 * end of the integer at column 3, found ' '"), TS_ERR_OVERFLOW ("integer at
 * column 1 does not fit in int64"), TS_ERR_VALUE ("negative integer -3 at
 * column 1: expected an integer >= 0", without TS_PARSE_ALLOW_NEGATIVE),
 * TS_ERR_INVALID_ARG (text NULL with len > 0, out NULL, unknown flags).
 */
TS_API ts_status ts_parse_i64(const char *text, size_t len, unsigned flags, int64_t *out,
                              ts_error *err);

/*
 * Parses a list of integers (axes, strides, an index, a reshape target) into
 * `out`, a ts_shape used as a plain list of ndim values (at most
 * TS_MAX_NDIM). Two spellings, the whole of text[0..len) being the list:
 *   - a tuple or list in the grammar of ts_shape_parse: "(1,0,2)",
 *     "[1,0,2]", "(3,)", "()" (the empty list), with its messages;
 *   - bare: integers separated by commas, whitespace (space, tab, CR, LF)
 *     around them allowed: "1,0,2", "-1", " 2 , 3 ". No trailing comma; an
 *     empty text is an error (write "()").
 * Integers are those of ts_parse_i64; negatives need TS_PARSE_ALLOW_NEGATIVE.
 *   out   initialised shape, overwritten on success
 * Errors: TS_ERR_PARSE ("expected ',' or the end at column 4, found 'x'"),
 * TS_ERR_OVERFLOW, TS_ERR_VALUE (negative without the flag), TS_ERR_NDIM
 * (more than TS_MAX_NDIM entries), TS_ERR_NOMEM, TS_ERR_INVALID_ARG; each
 * with err->column.
 */
TS_API ts_status ts_parse_i64_list(const char *text, size_t len, unsigned flags,
                                   ts_shape *out, ts_error *err);

/* Flags of ts_shape_format. (Not TS_FORMAT_*: that prefix is the file
 * formats' enum, ts_format.) */
#define TS_SHAPE_PRINT_LIST   0x1u   /* "[3,4,5]" instead of "(3,4,5)" */
#define TS_SHAPE_PRINT_SPACES 0x2u   /* ", " between dims: "(3, 4, 5)" */

/*
 * Writes the shape as text, snprintf-style: Python tuple style by default,
 * "(3,4,5)", "(3,)", "()" (as mshadow operator<<); "[3,4,5]", "[3]", "[]"
 * with TS_SHAPE_PRINT_LIST. ts_shape_parse reads every form back.
 * Returns the length in bytes of the full text (excluding the NUL), which
 * is at least 2. At most cap bytes are written, NUL included (the text is
 * cut when cap is too small, as snprintf); buf may be NULL when cap is 0 to
 * ask for the length. Returns 0, and writes "" when cap > 0, for a NULL
 * shape, unknown flags, or buf NULL with cap > 0.
 */
TS_API size_t ts_shape_format(const ts_shape *s, unsigned flags, char *buf, size_t cap);

/* ------------------------------------------------------------------------ */
/* Shape arithmetic (mshadow TShape)                                        */
/* ------------------------------------------------------------------------ */

/*
 * mshadow TShape::Size: *out receives the element count, the product of all
 * dims; 1 for the scalar (); 0 when any dim is 0 (even if the others would
 * overflow: NumPy's rule, where mshadow wrapped). Unit: elements.
 * Errors: TS_ERR_OVERFLOW (product > INT64_MAX), TS_ERR_VALUE (negative dim).
 */
TS_API ts_status ts_shape_size(const ts_shape *s, int64_t *out, ts_error *err);

/*
 * Product of dims over [begin, end), mshadow ProdShape. Negative begin/end
 * count from the end (Python slice style, -1 is ndim-1). After
 * normalisation 0 <= begin <= end <= ndim is required (mshadow silently
 * returned 1 or read past the end). An empty range gives 1. *out is an
 * element count.
 * Errors: TS_ERR_AXIS, TS_ERR_OVERFLOW, TS_ERR_VALUE.
 */
TS_API ts_status ts_shape_prod(const ts_shape *s, int64_t begin, int64_t end,
                        int64_t *out, ts_error *err);

/*
 * mshadow FlatTo2D: out = (product of all dims but the last, last dim).
 * The scalar () gives (1,1): MXNet's NumPy-shape semantics. (The seed's
 * legacy TShape gave (0,0), where ndim 0 meant "unknown shape"; tshape has
 * no unknown shapes.) out[0] and out[1] are element counts.
 * Errors: TS_ERR_OVERFLOW (the product of the leading dims does not fit in
 * int64), TS_ERR_VALUE (a negative dim).
 */
TS_API ts_status ts_shape_flat2d(const ts_shape *s, int64_t out[2], ts_error *err);

/*
 * mshadow FlatTo3D(axis_begin, axis_end): out = (prod [0,b), prod [b..e]
 * inclusive, prod (e,ndim)). Negative axes count from the end. Requires
 * 0 <= b <= e < ndim after normalisation; mshadow checked only e >= b and
 * read past the last axis, we return TS_ERR_AXIS instead. A scalar has no
 * axes, so every call on () fails with TS_ERR_AXIS.
 * FlatTo3D(axis) is ts_shape_flat3d(s, axis, axis, ...). out[0..2] are
 * element counts.
 * Errors: TS_ERR_AXIS, TS_ERR_OVERFLOW, TS_ERR_VALUE.
 */
TS_API ts_status ts_shape_flat3d(const ts_shape *s, int64_t axis_begin, int64_t axis_end,
                          int64_t out[3], ts_error *err);

/*
 * mshadow TShape::get<ndim>(): copies the dims into out[0..ndim-1] (a
 * caller array of ndim entries; may be NULL when ndim is 0) when the shape
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
 * mshadow/MXNet TShape::Save: writes the shape in `layout` to buf (cap
 * bytes, caller-owned). *written (may be NULL) receives the byte count,
 * 4 + 4*ndim (mshadow) or 4 + 8*ndim (MXNet); with buf NULL and cap 0 only
 * the size is computed. Errors: TS_ERR_LIMIT (cap too small; *written still
 * set), TS_ERR_VALUE (a dim is negative or, for mshadow, above UINT32_MAX),
 * TS_ERR_INVALID_ARG (layout not a ts_shape_layout; buf NULL with cap > 0).
 */
TS_API ts_status ts_shape_save(const ts_shape *s, ts_shape_layout layout,
                        unsigned char *buf, size_t cap, size_t *written,
                        ts_error *err);

/*
 * mshadow/MXNet TShape::Load: reads a shape in `layout` from the first bytes
 * of buf (len bytes; buf may be NULL when len is 0) into `out`
 * (initialised; overwritten on success). *consumed (may be NULL) receives
 * the bytes used. ndim above TS_MAX_NDIM, negative ndim or dims (MXNet
 * layout), and input shorter than the ndim declares are rejected before any
 * allocation.
 * Errors (err->offset is the byte offset in buf): TS_ERR_TRUNCATED,
 * TS_ERR_LIMIT, TS_ERR_VALUE, TS_ERR_NOMEM, TS_ERR_INVALID_ARG (layout).
 */
TS_API ts_status ts_shape_load(const unsigned char *buf, size_t len, ts_shape_layout layout,
                               ts_shape *out, size_t *consumed, ts_error *err);

/* ------------------------------------------------------------------------ */
/* dtypes                                                                   */
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
    TS_DTYPE_QUANTIZED = 32,       /* GGUF block-quantized (see ts_array) */
    TS_DTYPE_INT4 = 33,            /* 4 bits, two per byte, low nibble first */
    TS_DTYPE_UINT4 = 34,
    TS_DTYPE_INT2 = 35,            /* 2 bits, four per byte, low bits first */
    TS_DTYPE_UINT2 = 36
} ts_dtype;

/* Number of dtypes: valid values are TS_DTYPE_UNKNOWN..TS_DTYPE_COUNT-1
 * (grows as dtypes are appended). */
#define TS_DTYPE_COUNT 37

/* Canonical NumPy-style name ("float32", "bfloat16", "float8_e4m3fn",
 * "datetime64", "bytes", "object", ...): static text, never NULL;
 * "unknown" for TS_DTYPE_UNKNOWN and values outside the enum. */
TS_API const char *ts_dtype_name(ts_dtype dt);

/* Bits per element for fixed-size dtypes (float32: 32, float4: 4); 0 for
 * dtypes whose size is a parameter (bytes, unicode, void, structured,
 * quantized), for TS_DTYPE_UNKNOWN and for values outside the enum. */
TS_API int ts_dtype_bits(ts_dtype dt);

/* Bytes per element, (bits + 7) / 8 for fixed-size dtypes; 0 as above. */
TS_API int64_t ts_dtype_itemsize(ts_dtype dt);

/*
 * Looks up a user spelling (text NUL-terminated): canonical names
 * ("float32", "bf16", "bfloat16", "half", "float", "double"), NumPy type
 * codes with or without byte order ("f4", "<f4", "|b1", "i8", "c8"), MXNet
 * type flags as decimal ("0".."12"), and the dtypes frameworks print, with
 * their module prefix: PyTorch's "torch.float16", "torch.half",
 * "torch.float" (float32), "torch.double", "torch.long" (int64),
 * "torch.int" (int32), "torch.short", "torch.cfloat", "torch.cdouble";
 * TensorFlow's "tf.float32", "tf.half", "tf.double"; NumPy's "np." and
 * "numpy." names ("np.float32", "np.single", "np.float_" (float64),
 * "np.int_" (int64), "np.intc" (int32), "np.byte" ...) and JAX's "jnp.".
 * *out receives the dtype.
 * Errors: TS_ERR_DTYPE ("unknown dtype 'x'", also a framework dtype tshape
 * has no type for, such as torch.qint8 or tf.string; an out-of-range flag
 * as ts_dtype_from_mshadow_flag).
 */
TS_API ts_status ts_dtype_from_string(const char *text, ts_dtype *out, ts_error *err);

/* mshadow type flag (mshadow/base.h TypeFlag) -> dtype in *out.
 * Errors: TS_ERR_DTYPE for flags outside 0..12. */
TS_API ts_status ts_dtype_from_mshadow_flag(int64_t flag, ts_dtype *out, ts_error *err);

/*
 * A parsed NumPy array-interface typestr ("descr" of simple dtypes):
 * byte order char, kind, size, optional datetime unit. The caller owns it;
 * its layout is fixed (it has no struct_size, so it never grows).
 */
typedef struct ts_descr {
    ts_dtype dtype;
    char byteorder;          /* '<' little, '>' big, '|' not applicable, '=' native */
    int64_t itemsize;        /* bytes per element; may be 0 (e.g. "|S0") */
    char unit[16];           /* datetime/timedelta unit "ns", "25s", or "" */
} ts_descr;

/*
 * Parses a simple NumPy descr (descr NUL-terminated) into *out:
 * [<>|=]? kind size [ "[" unit "]" ] with kind one of b i u f c m M S U V O
 * (NumPy arrays.interface typestr). "<U3" has itemsize 12 bytes (UCS-4).
 * Non-canonical one-letter codes ("d", "?") are rejected.
 * Errors: TS_ERR_DTYPE naming the descr and what is wrong, with err->column
 * at the wrong part.
 */
TS_API ts_status ts_descr_parse(const char *descr, ts_descr *out, ts_error *err);

/*
 * Writes the NumPy descr of a fixed-size dtype with byte order `byteorder`
 * ('<', '>', '|' or '='; one-byte types always get '|'), e.g. "<f4", "|b1",
 * into buf (cap bytes), snprintf-style: returns the full length in bytes
 * without the NUL; buf may be NULL when cap is 0. Returns 0 and writes ""
 * (when cap > 0) for dtypes without a NumPy descr (bfloat16, float8/6/4,
 * parameterised and unknown dtypes, values outside the enum), for any other
 * byte order (this wrote "Qf4" for 'Q'), and for buf NULL with cap > 0.
 */
TS_API size_t ts_descr_format(ts_dtype dt, char byteorder, char *buf, size_t cap);

/* ------------------------------------------------------------------------ */
/* Saved tensor files                                                       */
/* ------------------------------------------------------------------------ */

typedef enum ts_format {
    TS_FORMAT_AUTO = 0,          /* detect from magic bytes */
    TS_FORMAT_NPY = 1,           /* NumPy .npy, versions 1.0, 2.0, 3.0 */
    TS_FORMAT_NPZ = 2,           /* NumPy .npz: zip of .npy */
    TS_FORMAT_MXNET = 3,         /* MXNet NDArray list (.params, .nd) */
    TS_FORMAT_SAFETENSORS = 4,   /* Hugging Face safetensors */
    TS_FORMAT_GGUF = 5,          /* llama.cpp GGUF v2/v3 */
    TS_FORMAT_TSHAPE32 = 6,      /* raw mshadow TShape::Save: u32 ndim, u32 dims */
    TS_FORMAT_TSHAPE64 = 7,      /* raw MXNet TShape::Save: i32 ndim, i64 dims */
    TS_FORMAT_PYTORCH = 8,       /* PyTorch torch.save (zip, legacy) and TorchScript */
    TS_FORMAT_ONNX = 9,          /* ONNX ModelProto (.onnx) */
    TS_FORMAT_HDF5 = 10,         /* HDF5 / Keras weights (.h5, .hdf5) */
    TS_FORMAT_CAFFE = 11,        /* Caffe NetParameter / BlobProto (.caffemodel) */
    TS_FORMAT_CAFFE2 = 12,       /* Caffe2 TensorProtos or init NetDef (.pb) */
    TS_FORMAT_PICKLE = 13,       /* a plain pickle (.pkl, .pdparams, joblib) */
    TS_FORMAT_TFLITE = 14,       /* TensorFlow Lite FlatBuffer (.tflite) */
    TS_FORMAT_TFJS = 15,         /* TensorFlow.js model.json or weights manifest */
    TS_FORMAT_OPENVINO = 16,     /* OpenVINO IR model.xml (weights in model.bin) */
    TS_FORMAT_EXECUTORCH = 17,   /* ExecuTorch program (.pte FlatBuffer, ET12) */
    TS_FORMAT_ZARR = 18,         /* Zarr v2/v3 array or store metadata */
    TS_FORMAT_GGML = 19,         /* llama.cpp GGML-era files (ggml, ggmf, ggjt) */
    TS_FORMAT_DARKNET = 20,      /* Darknet .weights (with its .cfg) */
    TS_FORMAT_TAR = 21,          /* NumPy .npy files in a tar archive */
    TS_FORMAT_TFCKPT = 22,       /* TensorFlow checkpoint .index (+ data shards) */
    TS_FORMAT_SAVEDMODEL = 23,   /* TensorFlow SavedModel saved_model.pb */
    TS_FORMAT_COREML = 24,       /* Core ML .mlmodel (.mlpackage: weight.bin) */
    TS_FORMAT_KERAS = 25         /* Keras 3 .keras archive (model.weights.h5 inside) */
} ts_format;

/*
 * The reader table. Every format tshape reads is one row, in the order
 * formats are tried when detecting: its stable id, the name used by
 * --format and in reports, the usual file name extensions, how it is
 * detected, and a one-line description. Help text, the manual's format list
 * and shell completion are generated from this table.
 */
typedef struct ts_format_info {
    ts_format format;            /* stable id */
    const char *name;            /* "npy": --format value and report name */
    const char *extensions;      /* space-separated, ".npy"; "" when none */
    const char *detection;       /* how it is recognised ("magic \\x93NUMPY"),
                                    or NULL: never detected, --format only */
    const char *description;     /* one line: "NumPy array (.npy 1.0, 2.0, 3.0)" */
    const char *dtype_field;     /* what the format calls the dtype it stores,
                                    for reports: "descr", "type flag", "dtype",
                                    "ggml type"; "" when it stores none */
    int side_files;              /* 1: an array's data can be in a file beside
                                    it, which ts_array.storage_key names (ONNX
                                    external data, TF.js and TF checkpoint
                                    shards, OpenVINO's .bin); 0: storage_key,
                                    when set, names a storage the array is a
                                    view of (PyTorch) */
} ts_format_info;

/* Number of rows of the reader table (formats that have a reader; "auto" is
 * not one). */
TS_API size_t ts_format_count(void);

/* The i-th row of the reader table (0 <= i < ts_format_count(), detection
 * order), or NULL when i is out of range. Static storage: never free it. */
TS_API const ts_format_info *ts_format_info_at(size_t i);

/* The row of format f, or NULL for TS_FORMAT_AUTO and unknown values. */
TS_API const ts_format_info *ts_format_info_of(ts_format f);

/* The format's name from the table ("npy", "safetensors"), "auto" for
 * TS_FORMAT_AUTO, "unknown" otherwise. Never NULL. */
TS_API const char *ts_format_name(ts_format f);

/* Name -> format: any name of the table, or "auto". Errors:
 * TS_ERR_INVALID_ARG (unknown name; the message lists the valid ones). */
TS_API ts_status ts_format_from_name(const char *name, ts_format *out, ts_error *err);

/* MXNet storage types (include/mxnet/ndarray.h). */
typedef enum ts_storage {
    TS_STORAGE_DENSE = 0,
    TS_STORAGE_ROW_SPARSE = 1,
    TS_STORAGE_CSR = 2
} ts_storage;

/*
 * What a reader reports for one array. The ts_file allocates and owns it:
 * all pointers, and the two shapes, point into storage owned by the ts_file
 * and stay valid until ts_file_close; never free or modify them. Fields are
 * only appended, never reordered, so a program built against an older
 * header reads a valid prefix: use the pointer ts_file_array returns, and
 * do not copy ts_array values into arrays of your own.
 * Units: itemsize, block_bytes, nbytes and data_offset are bytes; size and
 * block_size are elements; the shapes' dims are element counts.
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
                                    -1 when not addressable (deflated member).
                                    When >= 0, data_offset + nbytes <= the
                                    file size: readers reject files whose data
                                    would run past the end. ONNX external
                                    data: the offset in the side file that
                                    storage_key names (checked against its
                                    size). */
    int fortran_order;           /* 1: F order (npy fortran_order) */
    ts_storage storage;          /* MXNet sparse storage type */
    ts_shape storage_shape;      /* sparse: shape of the stored values */
    int32_t dev_type, dev_id;    /* MXNet saved context; 0,0 when n/a */
    const char *note;            /* extra fact for humans, or NULL, e.g.
                                    "payload is a pickle, not inspected" */
    /* Fields below are appended as readers need them; the library allocates
     * every ts_array, so never allocate or copy one by value yourself. */
    const char *descr;           /* NumPy descr ("<f4", "|b1", a structured
                                    descr), or NULL when NumPy has no such
                                    dtype (bfloat16, float8, quantized) */
    const char *device;          /* device the array was saved from, as the
                                    format names it ("cpu(0)", "gpu(1)",
                                    "cuda:0"), or NULL when not recorded */
    ts_shape strides;            /* element strides (ndim entries). Formats that
                                    store none get the C or F order strides of
                                    the shape (fortran_order); all 0 when the
                                    array has no elements, as NumPy */
    int64_t storage_offset;      /* elements between the start of the storage
                                    and the first element (PyTorch views); 0
                                    when the array owns its data */
    const char *storage_key;     /* the storage this array is a view of
                                    (PyTorch "archive/data/0"), NULL when the
                                    array owns its data; ONNX external data:
                                    the side file's location; TF.js: the
                                    shard its data starts in */
    int null_shape;              /* 1: the array has no shape at all (an HDF5
                                    null dataspace, H5S_NULL, which h5py
                                    reads as h5py.Empty): reports show no
                                    shape, and `shape` is (0,) so that size
                                    and nbytes are 0 for code that does not
                                    look at this field. 0 otherwise */
    ts_dtype dequantized_dtype;  /* quantised data (TFLite scale/zero point,
                                    TF.js scale/min or float16): the dtype the
                                    stored values stand for (float32);
                                    TS_DTYPE_UNKNOWN when the values are what
                                    dtype says. Summaries give such a tensor
                                    the role of this dtype (a uint8-quantised
                                    weight is a parameter) */
} ts_array;

/*
 * How ts_file_open reads a local file.
 *   TS_IO_AUTO   files of at most 64 KiB are read whole; larger ones as with
 *                TS_IO_PREAD
 *   TS_IO_MAP    mapped read-only (mmap): headers cost the pages they touch
 *                and the kernel's read-ahead around each; values are read
 *                from the map without a copy, a few MiB at a time: each
 *                step's page table entries made at once, its pages released
 *                from the resident set after (the page cache keeps them);
 *                what verify --deep and diff --values use
 *   TS_IO_PREAD  read with pread: headers into a page cache of the file's
 *                own, only the bytes a reader asks for, rounded to 4 KiB
 *                pages (a 400 MB checkpoint on a cold disk costs its headers,
 *                not the device's read-ahead around each page); values by
 *                steps of 256 KiB into buffers, so reading a 10 GB array
 *                holds a few MiB (tshape(1) ENVIRONMENT, TSHAPE_IO)
 */
typedef enum ts_io_mode { TS_IO_AUTO = 0, TS_IO_MAP = 1, TS_IO_PREAD = 2 } ts_io_mode;

/* A line of text for a log (no newline); `user` is the caller's pointer. */
typedef void (*ts_log_fn)(void *user, const char *line);

/* Bytes that reading the headers of a remote file may fetch by default
 * (ts_open_options.max_fetch): 64 MiB, enough for a GGUF vocabulary. */
#define TS_DEFAULT_MAX_FETCH ((uint64_t)64 << 20)

/*
 * Options for opening a file: an option struct that grows. Fields are only
 * ever appended, and every field's default is 0, so:
 *   - initialise with TS_OPEN_OPTIONS_INIT (or memset to 0 and set
 *     struct_size = sizeof(ts_open_options)), then set what you need:
 *         ts_open_options o = TS_OPEN_OPTIONS_INIT;
 *         o.want_metadata = 1;
 *   - struct_size tells the library which fields the caller's struct has.
 *     Fields beyond a smaller struct_size (a program built against an older
 *     header) take their default. A larger struct_size (a newer header) is
 *     accepted when the bytes the library does not know are all 0, else
 *     TS_ERR_UNSUPPORTED (the rule of Linux's copy_struct_from_user).
 *   - struct_size 0, or below the size of this first version, is
 *     TS_ERR_INVALID_ARG: a struct that was only zeroed is refused rather
 *     than guessed at, so an option set in it is never silently ignored.
 * Passing opts NULL means all defaults.
 */
typedef struct ts_open_options {
    size_t struct_size;          /* sizeof(ts_open_options) */
    ts_format format;            /* TS_FORMAT_AUTO (0): detect */
    size_t npy_max_header;       /* bytes; 0: NumPy's 10000-byte default */
    int gguf_stored_order;       /* 0 or 1: report GGUF dims innermost first */
    int want_metadata;           /* 0 or 1: collect safetensors/GGUF metadata */
    const char *path;            /* name of the file the image came from, or
                                    NULL. ts_file_open sets it to its path
                                    when NULL. Readers use it to find side
                                    files (ONNX external data, relative to
                                    the model's folder) and, for formats
                                    without a signature, its extension
                                    (ONNX, Caffe, Caffe2 are detected only
                                    with a known extension). */
    /* Fields below were appended after the first version. */
    uint64_t max_fetch;          /* remote files: the most bytes reading the
                                    headers may fetch (data reads are not
                                    counted); 0: TS_DEFAULT_MAX_FETCH.
                                    Past it, TS_ERR_LIMIT names the option */
    ts_io_mode io;               /* local files: how bytes are read (see
                                    ts_io_mode); TS_IO_AUTO (0) by default */
    ts_log_fn log;               /* remote files: called with one line per
                                    HTTP request (method, URL, range, status,
                                    bytes, milliseconds), from the thread that
                                    made it; NULL: silent */
    void *log_user;              /* passed to log */
    uint64_t first_fetch;        /* remote files: bytes of the first request,
                                    which also learns the file's size; 0:
                                    100000 (huggingface_hub's, enough for
                                    97% of safetensors headers). ts_model_open
                                    sizes it for the shards of a remote model
                                    from the first shard's header when 0 */
    int want_activations;        /* 0 or 1: also report the tensors whose data
                                    is not in the file (TFLite activations,
                                    graph inputs and outputs: data_offset -1,
                                    a note saying so); 0: only tensors with
                                    data */
    const char *darknet_cfg;     /* Darknet .weights: the network's .cfg (a
                                    path or URL), whose layers say what the
                                    values are; NULL: the file beside the
                                    weights with the same stem (yolov3.cfg
                                    for yolov3.weights), when there is one */
} ts_open_options;

/* Initialiser of a ts_open_options with every option at its default. */
#define TS_OPEN_OPTIONS_INIT {sizeof(ts_open_options), TS_FORMAT_AUTO, 0, 0, 0, NULL, 0, \
                              TS_IO_AUTO, NULL, NULL, 0, 0, NULL}

/* An opened, parsed file: a list of arrays and optional metadata. */
typedef struct ts_file ts_file;

/*
 * Opens `path` (NUL-terminated) and parses its headers (never its data),
 * by the rules of each format's reference implementation (NumPy format.py,
 * MXNet NDArray::Load, safetensors, ggml gguf.cpp), made stricter where they
 * are lax (see README). A local file of at most 64 KiB is read whole; a
 * larger one is read as opts->io says (by default with pread, only the bytes
 * the reader parses, rounded to pages: see ts_io_mode). A URL
 * (ts_is_url: http://, https://, hf://, s3://) is read with HTTP range
 * requests the same way: the first request reads opts->first_fetch bytes and
 * learns the size, later ones what the reader asks for, within
 * opts->max_fetch bytes (tshape(1) REMOTE FILES). Only regular files are
 * read: a directory, FIFO or device is refused with TS_ERR_IO at once (a
 * FIFO is opened non-blocking, so this never waits for a writer); read such
 * input into memory and use ts_file_open_memory.
 *   opts  NULL for defaults (auto-detect), or options initialised with
 *         TS_OPEN_OPTIONS_INIT (see ts_open_options)
 *   out   receives a new ts_file on success, NULL on failure; the caller
 *         owns it and closes it with ts_file_close
 * A file that shrinks while it is read (another program truncates it) fails
 * with TS_ERR_IO: a short read says so; a mapped file (TS_IO_MAP) would die
 * of SIGBUS, so the first call installs a SIGBUS handler that turns a fault
 * on the mapping being parsed, in the parsing thread, into that error and
 * passes every other SIGBUS on to the handler installed before it (or the
 * default). A program that installs its own SIGBUS handler afterwards
 * loses this. A file read with pread or over HTTP is a reserved address
 * range whose unread pages fault with SIGSEGV: a handler installed the same
 * way turns a fault there (a bug of tshape's readers) into TS_ERR_FORMAT.
 * Errors: TS_ERR_IO (with strerror text; for a URL the HTTP status, or
 * libcurl's reason, and the URL requested), TS_ERR_FORMAT, TS_ERR_TRUNCATED,
 * TS_ERR_UNSUPPORTED (also: opts sets fields this library does not know;
 * libcurl cannot be loaded for a URL), TS_ERR_LIMIT (also: more than 2^20
 * arrays in the file, tshape(1) LIMITS; a remote file's headers past
 * opts->max_fetch), TS_ERR_OVERFLOW, TS_ERR_DTYPE, TS_ERR_NOMEM,
 * TS_ERR_INVALID_ARG (also: opts->struct_size too small, opts->format
 * without a reader, a 0/1 option with another value, opts->io not a
 * ts_io_mode, a URL that does not parse). err->offset is the
 * byte offset of the problem in the file, err->index the entry (see
 * ts_error), and the message names the entry.
 */
TS_API ts_status ts_file_open(const char *path, const ts_open_options *opts, ts_file **out,
                              ts_error *err);

/*
 * Like ts_file_open on an in-memory image of a file: `data` (len bytes; may
 * be NULL when len is 0) is borrowed, never copied, and must outlive the
 * ts_file. The same options and errors apply (but no TS_ERR_IO).
 */
TS_API ts_status ts_file_open_memory(const void *data, size_t len,
                                     const ts_open_options *opts, ts_file **out,
                                     ts_error *err);

/* Unmaps and frees everything the file owns (arrays, names, metadata).
 * Accepts NULL. */
TS_API void ts_file_close(ts_file *f);

/* Detected (or forced) format, and its version as text ("1.0", "V2", "3";
 * "" for formats without versions), owned by the file. For a NULL file:
 * TS_FORMAT_AUTO and NULL. */
TS_API ts_format ts_file_format(const ts_file *f);
TS_API const char *ts_file_version(const ts_file *f);

/* Size of the file in bytes (0 for NULL). */
TS_API int64_t ts_file_nbytes(const ts_file *f);

/* Number of arrays (0 for NULL), and the i-th (0-based, in file order),
 * owned by the file; NULL if i is out of range or f is NULL. */
TS_API size_t ts_file_count(const ts_file *f);
TS_API const ts_array *ts_file_array(const ts_file *f, size_t i);

/*
 * The size of an array's elements, as `tshape info --json` reports it (man
 * page, JSON RECORDS): "block_size elements take block_bytes bytes" always
 * holds.
 *   itemsize     bytes per element; -1 when an element is not a whole
 *                number of bytes (float4, float6, int4, GGUF blocks) or the
 *                dtype has no size (an MXNet "none" array, NumPy's
 *                zero-sized flexible types such as S0)
 *   bits         bits per element; -1 for block-quantized types
 *   block_size   elements per block: GGUF's 32 or 256, the elements that
 *                fill whole bytes for sub-byte types (float4: 2, float6: 4,
 *                bits / gcd(bits, 8)), otherwise 1
 *   block_bytes  bytes per block (itemsize when block_size is 1); -1 when
 *                unknown
 */
typedef struct ts_element_size {
    int64_t itemsize, bits, block_size, block_bytes;
} ts_element_size;

/* Fills *out for array a by the rule above (all -1 but block_size 1 when a
 * is NULL; nothing when out is NULL). Never fails. */
TS_API void ts_array_element_size(const ts_array *a, ts_element_size *out);

/*
 * Metadata entries (safetensors __metadata__, GGUF key/values), collected
 * only when opts->want_metadata was set, in file order. *key is the key
 * (NUL-terminated; keys containing a NUL byte are rejected when the file is
 * opened); *json_value the value as JSON text ("\"a\"", "32", "[1,2]";
 * GGUF arrays in full, whatever their length; invalid UTF-8 in strings
 * becomes U+FFFD; non-finite floats, which JSON has no literal for, are the
 * strings "nan", "inf" and "-inf"). GGUF values are rendered on the first call for that
 * entry and kept (so that first call is not thread-safe on a shared file);
 * *json_value is NULL when rendering failed (out of memory, or the file
 * shrank since it was opened); pass json_value NULL for the key alone (then
 * nothing is rendered). Both strings are owned by the ts_file and
 * valid until ts_file_close. ts_file_metadata returns 1, or 0 (leaving *key
 * and *json_value unchanged) when i is out of range or f or key is NULL;
 * ts_file_metadata_count returns 0 for NULL.
 */
TS_API size_t ts_file_metadata_count(const ts_file *f);
TS_API int ts_file_metadata(const ts_file *f, size_t i, const char **key,
                     const char **json_value);

/* Receives output in pieces; returns 0 to go on, anything else to stop. */
typedef int (*ts_write_fn)(void *user, const char *data, size_t len);

/*
 * Writes the JSON text of metadata entry i (as ts_file_metadata gives it)
 * to write(user, ...) in pieces of at most 16 KiB, without keeping it: the
 * memory used does not grow with the value (a GGUF string of 100 MiB, or a
 * vocabulary of 150,000 tokens). Errors: TS_ERR_INVALID_ARG (i out of
 * range), TS_ERR_IO (write returned non-zero, or the file shrank since it
 * was opened).
 */
TS_API ts_status ts_file_metadata_write(const ts_file *f, size_t i, ts_write_fn write,
                                        void *user, ts_error *err);

/*
 * ggml's ne of array a of a GGUF file f: its dims innermost first, as the
 * file stores them (ggml docs/gguf.md tensor info; llama.cpp's gguf_dump
 * prints them so), whichever order f was opened in (a->shape is in NumPy
 * order, outermost first, unless opts->gguf_stored_order was set), into
 * ne[0..*n), *n 0..4. Errors: TS_ERR_INVALID_ARG (also: f is not a GGUF
 * file, a is not one of f's arrays).
 */
TS_API ts_status ts_array_ggml_ne(const ts_file *f, const ts_array *a, int64_t ne[4], int *n,
                                  ts_error *err);

/*
 * Tensor names across a conversion to GGUF (src/formats/namemap.c): the
 * name llama.cpp's convert_hf_to_gguf.py gives a checkpoint's tensor
 * (TS_NAME_MAP_TO_GGUF: "model.layers.3.self_attn.q_proj.weight" is
 * "blk.3.attn_q.weight", "model.embed_tokens.weight" "token_embd.weight"),
 * or back (TS_NAME_MAP_FROM_GGUF, to the names of Hugging Face's llama:
 * "blk.3.ffn_up.weight" is "model.layers.3.mlp.up_proj.weight"), by a rule
 * table after gguf-py's gguf/tensor_mapping.py (TensorNameMap) and
 * gguf/constants.py (TENSOR_NAMES): Hugging Face's llama layout (llama,
 * mistral, qwen2/3, gemma, mixtral's router), Meta's original llama
 * checkpoints (tok_embeddings, layers.N.attention.wq), GPT-2 and BERT. A
 * name is a pattern of the table with a layer number (1 to 9 digits) and
 * ".weight" or ".bias". Writes the mapped name into buf (cap bytes,
 * snprintf-style: cut and NUL-terminated) and returns its full length; 0
 * (and "" when cap > 0) when no rule matches, name is NULL, buf is NULL
 * with cap > 0 or direction is not one of the two.
 */
typedef enum ts_name_map {
    TS_NAME_MAP_TO_GGUF = 1,
    TS_NAME_MAP_FROM_GGUF = 2
} ts_name_map;

TS_API size_t ts_tensor_name_map(ts_name_map direction, const char *name, char *buf,
                                 size_t cap);

/*
 * The heads by which llama.cpp's converter reordered the rows of GGUF
 * tensor `name` of f (convert_hf_to_gguf.py, LlamaModel.modify_tensors:
 * q_proj by the attention heads, k_proj by the key/value heads; see
 * ts_metrics_options.qk_heads): for "blk.N.attn_q.*" the file's
 * llama.attention.head_count, for "blk.N.attn_k.*" its
 * llama.attention.head_count_kv (or head_count when absent), when its
 * general.architecture is "llama" (LlamaModel's). 0 for every other
 * tensor, architecture or file, and when f was opened without metadata
 * (ts_open_options.want_metadata) or is NULL.
 */
TS_API int64_t ts_gguf_qk_heads(const ts_file *f, const char *name);

/* Detects the format from the first len bytes of a file at data (at least
 * 8 bytes are needed for a reliable answer) by the readers' probes, in the
 * reader table's order. Returns TS_FORMAT_AUTO when unknown or data is
 * NULL. Raw TShape binaries have no signature and are never detected; ONNX,
 * Caffe and Caffe2 files have none either: ts_file_open and
 * ts_file_open_memory detect them by the extension of ts_open_options.path
 * and their protobuf structure. */
TS_API ts_format ts_format_detect(const void *data, size_t len);

/* ------------------------------------------------------------------------ */
/* Shape operations: reshape, broadcast, axes, strides (NumPy)              */
/* ------------------------------------------------------------------------ */

/*
 * Common to this section: every `out` shape is caller-initialised
 * (ts_shape_init / TS_SHAPE_INIT); it is overwritten on success and left
 * unspecified on failure, and the caller frees it with ts_shape_free. `out`
 * may be the same object as an input shape. Input shapes must have dims
 * >= 0 (a negative dim gives TS_ERR_VALUE) unless a comment says otherwise.
 * Axis lists are arrays of int64 that may be negative where NumPy allows it
 * (-1 is the last axis), followed by their count (size_t); an axis list
 * may be NULL only when its count is 0 or a comment gives NULL a meaning.
 * All products are overflow-checked (TS_ERR_OVERFLOW). Messages name the
 * operation, the inputs and the cause.
 */

/* Reshape flags. */
#define TS_RESHAPE_MXNET   0x1u  /* MXNet special values 0 -1 -2 -3 -4 */
#define TS_RESHAPE_REVERSE 0x2u  /* MXNet reverse=True: match them right to left */

/*
 * Reshape: `out` receives the shape that `in` (size N elements) takes when
 * reshaped to `target` (parse it with TS_PARSE_ALLOW_NEGATIVE). The result
 * always has exactly N elements.
 *
 * flags 0, NumPy `reshape` rule: at most one -1, inferred as N divided by
 * the product of the other dims; other negatives are rejected (NumPy 1.x
 * treats any negative as unknown; only -1 is documented). A -1 whose other
 * dims multiply to 0 is ambiguous and rejected (as torch; NumPy reports a
 * size mismatch).
 *
 * TS_RESHAPE_MXNET, MXNet `Reshape` (InferReshapeShape in
 * src/operator/tensor/matrix_op-inl.h), target values consumed left to
 * right against the input dims:
 *    d > 0  output d, consumes one input dim
 *    0      copy the input dim, consumes it
 *    -1     inferred (at most one), consumes one input dim
 *    -2     copy all remaining input dims
 *    -3     product of the next two input dims, consumes both
 *    -4     split one input dim into the next two target values a, b
 *           (literal dims >= 0, or one of them -1: inferred)
 * TS_RESHAPE_REVERSE (only with TS_RESHAPE_MXNET) reverses both lists,
 * applies the rule and reverses the result: (10,5,4) with (-1,0) gives
 * (40,5), reversed (50,4). Unlike MXNet, whose total-size check is compiled
 * out (`#if 0` in ReshapeShape) and whose inference truncates and may divide
 * by zero, the result size is always checked and an inexact or ambiguous -1
 * is an error.
 *
 * Errors: TS_ERR_VALUE (a negative input dim; a target value that is not
 * allowed; two -1), TS_ERR_SIZE (sizes differ, -1 not exact or ambiguous,
 * -4 split that does not multiply to the split dim), TS_ERR_NDIM (an MXNet
 * 0/-3/-4 reads past the last input dim, -4 without two values after it,
 * result above TS_MAX_NDIM), TS_ERR_OVERFLOW, TS_ERR_INVALID_ARG (unknown
 * flag, REVERSE without MXNET), TS_ERR_NOMEM.
 */
TS_API ts_status ts_reshape(const ts_shape *in, const ts_shape *target, unsigned flags,
                            ts_shape *out, ts_error *err);

/*
 * NumPy broadcasting (`np.broadcast_shapes`) of the n shapes shapes[0..n-1]:
 * right-aligned, missing leading dims count as 1; dims must be equal or one
 * of them 1; the result takes the non-1 dim, so 1 vs 0 gives 0 and 0 vs 2 is
 * an error. n == 0 gives the scalar (). shapes may be NULL when n is 0; no
 * shapes[i] may be NULL.
 * Errors (err->index: the argument that does not fit the ones before it):
 * TS_ERR_BROADCAST naming both arguments (by index) and the axis,
 * counted from the left of the result, e.g. "shapes (2,3) (arg 0) and (4,3)
 * (arg 1) cannot be broadcast: axis 0 (counted from the left of the result)
 * has 2 vs 4"; TS_ERR_VALUE, TS_ERR_NOMEM.
 */
TS_API ts_status ts_broadcast(const ts_shape *const *shapes, size_t n, ts_shape *out,
                              ts_error *err);

/*
 * NumPy `transpose`: out[i] = in[axes[i]]. axes == NULL reverses the dims
 * (naxes ignored); otherwise axes must be a permutation of the ndim axes,
 * negatives allowed ((-1,0,1) on (2,3,4) gives (4,2,3)).
 * Errors: TS_ERR_NDIM (naxes != ndim), TS_ERR_AXIS (out of range or
 * repeated), TS_ERR_VALUE, TS_ERR_NOMEM.
 */
TS_API ts_status ts_transpose(const ts_shape *in, const int64_t *axes, size_t naxes,
                              ts_shape *out, ts_error *err);

/*
 * NumPy `squeeze`: axes == NULL removes every size-1 dim ((1,3,1) gives
 * (3,)); otherwise exactly the listed axes (naxes of them, possibly none),
 * each of which must have size 1 (torch silently skips non-1 dims; NumPy
 * and tshape reject them).
 * Errors: TS_ERR_AXIS (out of range, repeated, or size not 1: "cannot
 * squeeze axis 0 of (2,1): its size is 2, not 1"), TS_ERR_VALUE,
 * TS_ERR_NOMEM.
 */
TS_API ts_status ts_squeeze(const ts_shape *in, const int64_t *axes, size_t naxes,
                            ts_shape *out, ts_error *err);

/*
 * NumPy `expand_dims`: inserts size-1 dims at the naxes positions `axes`,
 * which index the OUTPUT (ndim_out = ndim + naxes) and are normalised
 * against ndim_out: (2,3) with (0,-1) gives (1,2,3,1). naxes 0 copies.
 * Errors: TS_ERR_AXIS (out of range or repeated), TS_ERR_NDIM (ndim_out
 * above TS_MAX_NDIM), TS_ERR_VALUE, TS_ERR_NOMEM.
 */
TS_API ts_status ts_expand_dims(const ts_shape *in, const int64_t *axes, size_t naxes,
                                ts_shape *out, ts_error *err);

/*
 * NumPy `moveaxis`: moves axes src[i] to positions dst[i] (n pairs); the
 * other axes keep their order. (2,3,4) with 0 -> -1 gives (3,4,2); with
 * (0,1) -> (-1,-2) gives (4,3,2).
 * Errors: TS_ERR_AXIS (out of range, or repeated within src or within
 * dst), TS_ERR_VALUE, TS_ERR_NOMEM.
 */
TS_API ts_status ts_moveaxis(const ts_shape *in, const int64_t *src, const int64_t *dst,
                             size_t n, ts_shape *out, ts_error *err);

/*
 * PyTorch `flatten(start_dim, end_dim)`: merges dims start..end, both
 * inclusive, into one; ndim_out = ndim - (end - start). Negative dims count
 * from the end; a scalar () counts as one dim (valid dims -1..0) and gives
 * (1,). (2,3,4): (0,-1) gives (24,), (1,-1) (2,12), (0,1) (6,4).
 * Differs from mshadow FlatTo2D (ts_shape_flat2d: all but the last dim
 * merged, always 2-D) and FlatTo3D (ts_shape_flat3d: always 3-D).
 * Errors: TS_ERR_AXIS (out of range, or start after end), TS_ERR_OVERFLOW,
 * TS_ERR_VALUE, TS_ERR_NOMEM.
 */
TS_API ts_status ts_flatten(const ts_shape *in, int64_t start_dim, int64_t end_dim,
                            ts_shape *out, ts_error *err);

/*
 * Strides of a dense array of `shape` in `order` 'C' (row-major) or 'F'
 * (column-major), as NumPy reports them: strides_out[i] (a caller array of
 * ndim entries; may be NULL when ndim is 0) is
 * the distance between consecutive indices on axis i, in the unit of
 * `itemsize` (pass the byte size of the dtype for NumPy byte strides, 1 for
 * element strides as PyTorch). (2,3,4), itemsize 8: C (96,32,8), F
 * (8,16,48). An array with 0 elements gets all-zero strides (NumPy 1.24).
 * Errors: TS_ERR_VALUE (itemsize < 1, negative dim), TS_ERR_INVALID_ARG
 * (order not 'C' or 'F'), TS_ERR_OVERFLOW (itemsize x size above
 * INT64_MAX: no such array can exist).
 */
TS_API ts_status ts_strides(const ts_shape *shape, int64_t itemsize, char order,
                            int64_t *strides_out, ts_error *err);

/*
 * Contiguity predicates. `strides` has ndim entries (may be NULL when ndim
 * is 0) in the same unit as `itemsize`: byte strides with the dtype's byte
 * size (NumPy), or element strides with itemsize 1 (PyTorch). Return 1 or
 * 0; they never fail. A NULL shape, NULL strides with ndim > 0, a shape
 * with a negative dim, or itemsize < 1 give 0.
 *
 * ts_is_c_contiguous / ts_is_f_contiguous: NumPy's relaxed-strides rule
 * (_UpdateContiguousFlags; also torch compute_contiguous for C): size-1
 * dims are ignored, and an array with 0 elements is both C and F
 * contiguous. Otherwise, visiting the non-1 dims from the last (C) or the
 * first (F), each stride must equal itemsize times the product of the dims
 * visited before it.
 */
TS_API int ts_is_c_contiguous(const ts_shape *shape, const int64_t *strides,
                              int64_t itemsize);
TS_API int ts_is_f_contiguous(const ts_shape *shape, const int64_t *strides,
                              int64_t itemsize);

#ifdef TS_EXPERIMENTAL_API

/* ======================================================================== */
/* EXPERIMENTAL API                                                         */
/* ======================================================================== */

/*
 * Declared only with TS_EXPERIMENTAL_API defined before the include: see
 * "Stable and experimental parts" at the top of this header. The argument
 * rule and the other conventions hold here as in the stable part, and so
 * do those of the stable "Shape operations" section (caller-initialised
 * `out` shapes, dims >= 0, overflow-checked products).
 */

/* ------------------------------------------------------------------------ */
/* Blob (mshadow TBlob)                                                     */
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
 * Initialises `b` (treated as uninitialised) as a contiguous blob over
 * `data` (not owned, may be NULL) with a copy of `shape`: stride = last dim
 * (1 for a scalar), like the TBlob constructor. dev_mask is TS_DEV_CPU or
 * TS_DEV_GPU; dtype any value of the enum, TS_DTYPE_UNKNOWN included. Free
 * the blob with ts_blob_free; after a failure with b not NULL, b is an empty
 * blob that ts_blob_free accepts.
 * Errors: TS_ERR_NOMEM, TS_ERR_VALUE (negative dim), TS_ERR_OVERFLOW (size),
 * TS_ERR_INVALID_ARG (also: another dev_mask, a dtype outside the enum such
 * as 999 or -7).
 */
TS_API ts_status ts_blob_init(ts_blob *b, void *data, const ts_shape *shape,
                       int dev_mask, ts_dtype dtype, ts_error *err);

/* Frees the blob's shape (not the data). Accepts NULL. */
TS_API void ts_blob_free(ts_blob *b);

/* ndim (0 for NULL) and element count of the blob. Size errors as
 * ts_shape_size. */
TS_API int ts_blob_ndim(const ts_blob *b);
TS_API ts_status ts_blob_size(const ts_blob *b, int64_t *out, ts_error *err);

/* mshadow CheckContiguous: 1 when stride equals the last dim (a scalar is
 * contiguous when stride is 1), else 0 (also for NULL). */
TS_API int ts_blob_is_contiguous(const ts_blob *b);

/*
 * TBlob::get_with_shape: `out` (an initialised blob; its shape is freed and
 * overwritten) becomes a contiguous blob over the same data with `shape`,
 * which must have the same element count.
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
/* PyTorch layouts: channels_last and views                                 */
/* ------------------------------------------------------------------------ */

/*
 * PyTorch's channels-last predicates; arguments and the answer for bad ones
 * as ts_is_c_contiguous.
 * ts_is_channels_last: PyTorch channels_last (TensorImpl.cpp
 * compute_channels_last_contiguous_2d): rank 4 only, the nesting test of
 * ts_is_c_contiguous visiting dims in the order 1,3,2,0 (C, W, H, N), size-1
 * dims skipped, no special case for 0 elements. Any other rank gives 0.
 * ts_is_channels_last_3d: the same for rank 5 with the order 1,4,3,2,0.
 * (2,3,4,5) with element strides (60,1,15,3) is channels_last, not C.
 */
TS_API int ts_is_channels_last(const ts_shape *shape, const int64_t *strides,
                               int64_t itemsize);
TS_API int ts_is_channels_last_3d(const ts_shape *shape, const int64_t *strides,
                                  int64_t itemsize);

/*
 * Can a tensor of `shape` with element `strides` (ndim entries, PyTorch
 * units) be viewed as `target` without a copy? PyTorch `Tensor.view`:
 * `target` may hold one -1, inferred first (torch infer_size; same rules
 * and errors as ts_reshape with flags 0), then computeStride_impl
 * (aten/src/ATen/TensorUtils.cpp) runs exactly: a 0-d input gives all
 * strides 1; with 0 elements the old strides are kept if the shape is
 * unchanged, else contiguous strides with 0 dims counted as 1; otherwise
 * the old dims are split into chunks of mutually contiguous dims (size-1
 * dims never break a chunk) and every new dim must lie within one chunk.
 * On success `out_shape` (initialised) receives the resolved target and
 * `out_strides` (room for ndim(target) entries) its element strides:
 * (2,3,4) with strides (12,4,2) viewed as (6,2) gives strides (4,2).
 * Errors: TS_ERR_LAYOUT when no view exists (the message names the old
 * dims that are not contiguous with each other, e.g. "dims 0..1 of (2,3,4)
 * with strides (12,1,3) are not contiguous with each other (...), so (6,4)
 * would need a copy"); the errors of ts_reshape for the target; TS_ERR_VALUE,
 * TS_ERR_OVERFLOW, TS_ERR_NOMEM.
 */
TS_API ts_status ts_view_strides(const ts_shape *shape, const int64_t *strides,
                                 const ts_shape *target, ts_shape *out_shape,
                                 int64_t *out_strides, ts_error *err);

/* ------------------------------------------------------------------------ */
/* Flat indices: ravel and unravel (NumPy)                                  */
/* ------------------------------------------------------------------------ */

/* Out-of-range index handling of ts_ravel_index (NumPy `mode`). */
typedef enum ts_index_mode {
    TS_INDEX_RAISE = 0,   /* error unless 0 <= index < dim */
    TS_INDEX_WRAP = 1,    /* index modulo dim (Python modulo: -1 is dim-1) */
    TS_INDEX_CLIP = 2     /* clamp into 0..dim-1 */
} ts_index_mode;

/*
 * NumPy `ravel_multi_index`: *flat receives the flat element index of the
 * multi-index index[0..nindex-1] in an array of `shape`, order 'C' or 'F'.
 * nindex must equal ndim; () with no index gives 0. `modes` has nmodes
 * entries: nmodes 0 means TS_INDEX_RAISE everywhere (modes may be NULL), 1
 * applies modes[0] to every axis, ndim gives one mode per axis.
 * (3,4) with (1,2): C 6, F 7; (3,-1) wrap 3, clip 8; modes (clip,wrap) 11.
 * Errors: TS_ERR_NDIM (nindex != ndim), TS_ERR_INDEX (out of range in raise
 * mode: "index (3,1) is out of bounds for shape (3,4): 3 >= 3 on axis 0";
 * any index into a shape with 0 elements, in every mode, as NumPy),
 * TS_ERR_INVALID_ARG (bad order, mode or nmodes), TS_ERR_OVERFLOW (size of
 * shape), TS_ERR_VALUE.
 */
TS_API ts_status ts_ravel_index(const ts_shape *shape, const int64_t *index, size_t nindex,
                                char order, const ts_index_mode *modes, size_t nmodes,
                                int64_t *flat, ts_error *err);

/*
 * NumPy `unravel_index`: index_out (ndim entries; may be NULL when ndim is
 * 0) receives the multi-index of the flat element index `flat` in an array
 * of `shape`, order 'C' or 'F'. (7,6) with 22: C (3,4), F (1,3). () with 0
 * gives (). Negative flat indices are errors (NumPy).
 * Errors: TS_ERR_INDEX (flat < 0 or >= size, so always for a shape with 0
 * elements), TS_ERR_INVALID_ARG (bad order), TS_ERR_OVERFLOW, TS_ERR_VALUE.
 */
TS_API ts_status ts_unravel_index(const ts_shape *shape, int64_t flat, char order,
                                  int64_t *index_out, ts_error *err);

/* ------------------------------------------------------------------------ */
/* Slices and chips (TensorWrapper Shape::slice / Shape::chip)              */
/* ------------------------------------------------------------------------ */

/*
 * TensorWrapper slicing of a shape of rank r = ndim(s) (shapev1.rst
 * "Slicing and Chipping"). Two forms:
 *   - general: begin and end each hold r indices (nbegin == nend == r); mode i
 *     covers the half-open range [begin[i], end[i]) and the result has extent
 *     end[i] - begin[i] there. Shape (10,20), begin (0,0), end (5,5) -> (5,5).
 *   - short: end is NULL and nend 0; begin holds 0..r indices; mode i < nbegin
 *     is pinned to [begin[i], begin[i]+1), the other modes run their whole
 *     span. Shape (10,20), begin (0) -> (1,20).
 * The result keeps the rank (a slice). `out` (initialised; overwritten)
 * receives the extents; `origin` (initialised, may be NULL) receives the
 * origin of the slice in the indices of `s`, i.e. its first element (begin,
 * with 0 for unpinned modes in the short form). Indices are element indices,
 * >= 0.
 * Differences from TensorWrapper's code (PR #236): every bound is checked
 * against the extents (TensorWrapper accepts end beyond the extent), and an
 * empty range begin == end is allowed (extent 0; TensorWrapper throws
 * "begin index must be < end index").
 * Errors: TS_ERR_NDIM (index count does not match the rank: "slice begin has
 * 3 indices but shape (10,4) has 2 axes"), TS_ERR_INDEX (negative index, end
 * or pinned index beyond the extent: "slice end 5 exceeds extent 4 of axis 1
 * of (10,4)"), TS_ERR_VALUE (begin > end, or a negative dim in s),
 * TS_ERR_NOMEM.
 */
TS_API ts_status ts_shape_slice(const ts_shape *s, const int64_t *begin, size_t nbegin,
                                const int64_t *end, size_t nend, ts_shape *out,
                                ts_shape *origin, ts_error *err);

/*
 * TensorWrapper chipping: as ts_shape_slice (same forms, checks and errors,
 * messages say "chip"), then every mode whose range has extent exactly 1 is
 * removed, so the rank drops. Shape (10,20): begin (2) -> (20,); begin (0,2),
 * end (10,3) -> (10,). `origin` receives the begin index of the modes that
 * remain (same rank as `out`). An empty range (extent 0) is kept as a 0 dim.
 */
TS_API ts_status ts_shape_chip(const ts_shape *s, const int64_t *begin, size_t nbegin,
                               const int64_t *end, size_t nend, ts_shape *out,
                               ts_shape *origin, ts_error *err);

/* ------------------------------------------------------------------------ */
/* Index iteration (TensorWrapper iteration with an origin)                 */
/* ------------------------------------------------------------------------ */

/*
 * An odometer over every index of a shape in lexicographic (C, row-major)
 * order, in constant memory: no allocation, so it works for shapes of any
 * size. Fields are read-only for the caller: after ts_index_iter_next returns
 * 1, index[0..ndim-1] is the absolute index (origin + offset) and
 * offset[0..ndim-1] the offset from the origin (TensorWrapper "absolute
 * indices" vs "offsets").
 */
typedef struct ts_index_iter {
    int ndim;
    int state;                       /* 0 before the first index, 1 running, 2 done */
    int64_t extent[TS_MAX_NDIM];
    int64_t origin[TS_MAX_NDIM];
    int64_t offset[TS_MAX_NDIM];
    int64_t index[TS_MAX_NDIM];
} ts_index_iter;

/*
 * Prepares `it` (caller-owned, treated as uninitialised) to iterate over
 * `s`. origin: NULL with norigin 0 for the zero origin, else
 * norigin == ndim(s) indices >= 0. A size-0 shape yields no index; the
 * scalar () yields exactly one, of ndim 0.
 * Errors: TS_ERR_NDIM (norigin != ndim), TS_ERR_VALUE (negative origin or
 * dim), TS_ERR_OVERFLOW (origin + extent - 1 does not fit in int64).
 */
TS_API ts_status ts_index_iter_init(ts_index_iter *it, const ts_shape *s,
                                    const int64_t *origin, size_t norigin, ts_error *err);

/* Advances to the next index: returns 1 and updates index/offset, or 0 when
 * every index has been visited (and on every later call). Returns 0 for
 * NULL and for an iterator whose ndim or state is out of range (one that
 * ts_index_iter_init did not set up); the iterator allocates nothing. */
TS_API int ts_index_iter_next(ts_index_iter *it);

/* ------------------------------------------------------------------------ */
/* einsum and labelled composition (NumPy, TensorWrapper)                   */
/* ------------------------------------------------------------------------ */

/*
 * Output shape of NumPy einsum (numpy.einsum with optimize=False, i.e.
 * PyArray_EinsteinSum) for `noperands` operands of the given shapes.
 * subscripts: NUL-terminated, "ij,jk->ik" or implicit "ij,jk". Labels are
 * ASCII letters; spaces are ignored; "..." (at most one per operand and in
 * the output) stands for broadcast dims.
 *   - implicit mode (no "->"): the output is the broadcast dims, then every
 *     label that appears exactly once, in ASCII order ("ba" on (2,3) -> (3,2);
 *     upper case sorts before lower case);
 *   - explicit: the labels after "->" in that order; each at most once, each
 *     from some input; "..." required when the ellipses cover any dims;
 *   - a label repeated within one operand (a diagonal) needs equal dims there;
 *     across operands dims must be equal or 1 (1 broadcasts; 1 vs 0 -> 0),
 *     'ij,j' (2,3),(1,) -> (2,);
 *   - ellipsis dims broadcast right-aligned, as numpy.broadcast_shapes.
 * `operands` holds noperands shapes (read only). `out` (initialised) is
 * overwritten on success. err->column is the 1-based column in
 * `subscripts` for syntax errors; err->index is the operand an error is
 * about (its term's syntax, rank or dims).
 * Errors: TS_ERR_PARSE (bad character, '.' outside "...", a second "...",
 * '-' not followed by '>', repeated output label), TS_ERR_INVALID_ARG (the
 * equation names a different number of operands than given, or none given),
 * TS_ERR_NDIM (label count does not match an operand's ndim; output beyond
 * TS_MAX_NDIM), TS_ERR_SIZE (diagonal dims differ), TS_ERR_BROADCAST (a label
 * or ellipsis dim that does not broadcast: "einsum(): subscript j has size 4
 * for operand 1 which does not broadcast with previously seen size 3"),
 * TS_ERR_VALUE (output label in no input, missing "..." in the output,
 * negative dim), TS_ERR_NOMEM.
 */
TS_API ts_status ts_einsum_shape(const char *subscripts, const ts_shape *operands,
                                 size_t noperands, ts_shape *out, ts_error *err);

/*
 * TensorWrapper labelled composition, s_result("i,k") = s0("i,j,k") *
 * s1("i,j,k") (IndexedShape, shape_from_labels.hpp): the result has one mode
 * per label of `result_labels`, with the extent that label has in the
 * inputs. Covers permutation ("j,i,k" from "i,j,k" of (10,20,30) ->
 * (20,10,30)), contraction ("i,k" from two "i,j,k" -> (10,30)) and direct
 * product ("i,j,k,l" from "i,j,k" and "i,j,l" -> (10,20,30,30)).
 * Label lists are comma-separated identifiers ([A-Za-z_][A-Za-z0-9_]*, spaces
 * around them allowed; "" is rank 0). labels[i] labels shapes[i], one label
 * per mode; ninputs >= 1. Unlike TensorWrapper's code (the first input with
 * the label wins), every occurrence of a label, in all inputs and within one
 * input, must have the same extent, as its design said ("would throw"). No
 * broadcasting. labels[i] may not be NULL. `out` (initialised) is
 * overwritten on success. err->index is the input an error is about (-1 for
 * the result labels).
 * Errors: TS_ERR_PARSE (bad label list; err->column is the column in that
 * list), TS_ERR_NDIM (label count differs from the rank), TS_ERR_VALUE
 * ("label 'x' of the result is in no input", a result label given twice),
 * TS_ERR_SIZE ("label 'j' has extent 20 in input 0 but 30 in input 1"),
 * TS_ERR_INVALID_ARG (ninputs < 1), TS_ERR_NOMEM.
 */
TS_API ts_status ts_label_compose(const char *result_labels, const char *const *labels,
                                  const ts_shape *shapes, size_t ninputs, ts_shape *out,
                                  ts_error *err);

/* ------------------------------------------------------------------------ */
/* einops patterns (rearrange, reduce, repeat, parse_shape)                 */
/* ------------------------------------------------------------------------ */

/* The einops operation a pattern is checked for. */
typedef enum ts_einops_op {
    TS_EINOPS_REARRANGE = 0,   /* same identifiers on both sides */
    TS_EINOPS_REDUCE = 1,      /* right side a subset of the left */
    TS_EINOPS_REPEAT = 2       /* left side a subset of the right */
} ts_einops_op;

/*
 * A named axis length: einops' axes_lengths keyword arguments (h2=2) as
 * input, parse_shape results as output. `name` points to name_len bytes,
 * not necessarily NUL-terminated.
 */
typedef struct ts_axis_size {
    const char *name;
    size_t name_len;
    int64_t size;
} ts_axis_size;

/* Limits on einops patterns (TS_ERR_LIMIT beyond them). */
#define TS_EINOPS_MAX_PATTERN 4096   /* bytes in a pattern */
#define TS_EINOPS_MAX_AXES 128       /* axes (names, numbers, 1s) per side */

/* A checked einops pattern with its axis sizes; opaque. */
typedef struct ts_einops ts_einops;

/*
 * Parses and checks `pattern` ("b c (h h2) w -> b c h h2 w") for `op` with
 * the nsizes axis lengths in `sizes` (may be NULL when nsizes is 0), as
 * einops' ParsedExpression and _prepare_transformation_recipe do:
 *   grammar: "lhs -> rhs"; each side space-separated axis names (ASCII
 *   identifiers not starting or ending with '_'), anonymous axes (positive
 *   decimal integers without leading zeros; "1" is a unit axis), one-level
 *   parenthesised groups ("()" is a unit axis), at most one "...";
 *   rules: rearrange - same identifiers on both sides, no anonymous axis
 *   other than 1; reduce - right identifiers a subset of the left; repeat -
 *   left identifiers a subset of the right, new named axes need a size; "..."
 *   on the right needs one on the left, and is parenthesised only on the
 *   right; per left group at most one axis of unknown length; each size
 *   names an axis of the pattern, once, and is >= 0.
 * Sizes are copied: `sizes` need not outlive the call. *out receives a new
 * object, owned by the caller, to release with ts_einops_free; NULL on
 * failure.
 * Errors (message: op "pattern" [with k=v...]: cause; err->column is the
 * column in the pattern where there is one): TS_ERR_PARSE, TS_ERR_VALUE
 * (rule broken, bad size), TS_ERR_SIZE ("could not infer sizes for h, w"),
 * TS_ERR_LIMIT (TS_EINOPS_MAX_*), TS_ERR_INVALID_ARG (op not a
 * ts_einops_op; a size without a name), TS_ERR_NOMEM.
 */
TS_API ts_status ts_einops_compile(ts_einops_op op, const char *pattern,
                                   const ts_axis_size *sizes, size_t nsizes, ts_einops **out,
                                   ts_error *err);

/*
 * Output shape of the compiled pattern applied to an input of shape `in`
 * (einops _reconstruct_from_shape): checks the rank, infers the unknown
 * length of each left group by division, checks given sizes, then multiplies
 * out each right group. `out` (initialised) is overwritten on success.
 * Errors (message: op "pattern" on shape (2,3,4,5) [with k=v]: cause):
 * TS_ERR_NDIM ("wrong shape: expected 3 dims, received a 4-dim shape"),
 * TS_ERR_SIZE ("can't divide axis of length 4 into chunks of 3", "shape
 * mismatch, 3 != 7 ..."), TS_ERR_OVERFLOW, TS_ERR_VALUE (negative dim),
 * TS_ERR_NOMEM.
 */
TS_API ts_status ts_einops_apply(const ts_einops *e, const ts_shape *in, ts_shape *out,
                                 ts_error *err);

/* Releases a compiled pattern. Accepts NULL. */
TS_API void ts_einops_free(ts_einops *e);

/* One-shot ts_einops_compile + ts_einops_apply + ts_einops_free: the same
 * arguments, the errors of both. */
TS_API ts_status ts_einops_shape(ts_einops_op op, const char *pattern, const ts_shape *in,
                                 const ts_axis_size *sizes, size_t nsizes, ts_shape *out,
                                 ts_error *err);

/*
 * einops.parse_shape: matches `pattern` (one side, no "->": names, '_' to
 * skip an axis, anonymous integers that must equal the dim, "1" or "()" for
 * a dim of 1, at most one "..." skipping any number of dims; groups of more
 * than one axis are rejected) against `s`. out (caller array of at least
 * TS_MAX_NDIM entries) receives the named axes in pattern order with their
 * lengths (elements), *count their number (0..TS_MAX_NDIM); names point
 * into `pattern` (not copied: keep it alive while you use them).
 * Errors (message: parse_shape "pattern" on shape (2,3): cause): TS_ERR_PARSE
 * (with err->column), TS_ERR_VALUE (composite axes), TS_ERR_NDIM (wrong rank),
 * TS_ERR_SIZE (anonymous axis or 1 does not match the dim), TS_ERR_LIMIT.
 */
TS_API ts_status ts_einops_parse_shape(const char *pattern, const ts_shape *s,
                                       ts_axis_size *out, size_t *count, ts_error *err);

/* ------------------------------------------------------------------------ */
/* Caffe2 Tensor dims (caffe2/core/tensor.h)                                */
/* ------------------------------------------------------------------------ */

/*
 * Caffe2 Tensor::Extend(num, ...): grows the outermost dim by num >= 0:
 * (4,3) extended by 2 -> (6,3). `out` (initialised, may be `s`) receives the
 * new dims. Errors: TS_ERR_NDIM (a scalar has no outermost dim; Caffe2
 * "Tensor must be at least 1D"), TS_ERR_VALUE (num < 0, negative dim),
 * TS_ERR_OVERFLOW (the new dim or size does not fit in int64), TS_ERR_NOMEM.
 */
TS_API ts_status ts_caffe2_extend(const ts_shape *s, int64_t num, ts_shape *out,
                                  ts_error *err);

/*
 * Caffe2 Tensor::Shrink(outer_dim): sets the outermost dim to outer_dim,
 * 0 <= outer_dim <= current. `out` may be `s`. Errors: TS_ERR_NDIM (scalar),
 * TS_ERR_VALUE (outer_dim < 0 or above the current outer dim: "new outer dim
 * 7 exceeds the current outer dim 4 of (4,3)"; Caffe2 said only "New outer
 * dimension must be smaller than current."), TS_ERR_NOMEM.
 */
TS_API ts_status ts_caffe2_shrink(const ts_shape *s, int64_t outer_dim, ts_shape *out,
                                  ts_error *err);

/*
 * Caffe2 Tensor::Resize(dims) / SetDims: `out` becomes `new_dims`, *old_size
 * and *size (may be NULL) the element counts before and after, and
 * *size_changed (may be NULL) 1 when they differ: the case in which Caffe2
 * frees the buffer and the next mutable_data() reallocates it (unless
 * FLAGS_caffe2_keep_on_shrink and the capacity suffices). Any ndim, any dims
 * >= 0. Errors: TS_ERR_VALUE (negative dim), TS_ERR_OVERFLOW, TS_ERR_NOMEM.
 */
TS_API ts_status ts_caffe2_resize(const ts_shape *s, const ts_shape *new_dims,
                                  ts_shape *out, int64_t *old_size, int64_t *size,
                                  int *size_changed, ts_error *err);

/* ------------------------------------------------------------------------ */
/* Jagged, tiled and nested shapes (TensorWrapper design)                   */
/* ------------------------------------------------------------------------ */

/* Limits on jagged shapes (TS_ERR_LIMIT beyond them). */
#define TS_JAGGED_MAX_DEPTH 32         /* brace levels */
#define TS_JAGGED_MAX_NODES 1000000    /* braces + leaf shapes; also leaf dims */

/*
 * A jagged shape (TensorWrapper JaggedShape): a tree whose inner nodes are
 * brace levels (jagged modes) and whose leaves are smooth shapes. Opaque.
 * Text form (the grammar ts_jagged_parse reads and ts_jagged_format writes):
 *     jagged := ws ( shape | "{" ws [ item { ws "," ws item } [ ws "," ] ]
 *               ws "}" | "tile" { ws shape } ) ws
 *     item   := shape | "{" ... "}"       (nested braces)
 *     shape  := a ts_shape_parse tuple: "(10,20)" or "[10,20]"; bare
 *               integers are rejected inside braces
 * "{(10,),(20,),(30,)}" is a jagged matrix with rows of 10, 20 and 30
 * elements; "{(10,20),(30,40)}" a jagged rank-3 tensor of two smooth
 * matrices. A plain shape "(10,20)" is a smooth shape viewed as jagged.
 * "tile (5,10,15) (5,10,15)" is TensorWrapper's TiledShape: a 30x30 matrix
 * cut into 3x3 blocks, i.e. the jagged shape of depth 2 whose leaf (i,j) is
 * (t0[i], t1[j]).
 * Rank = depth (brace levels) + rank of the leaves. All leaves must have the
 * same rank and all sibling subtrees the same depth; anything else is
 * ragged and rejected (the seed's example js{Shape{10,20,30},Shape{10,20}}
 * mixes leaf ranks 3 and 2, which has no rank: shapev1.rst defines a jagged
 * tensor of rank r as a map from r-s indices to smooth shapes of rank s). An
 * empty "{}" has no leaves: it conforms to any sibling, and a shape whose
 * leaf rank is unknown counts leaf rank 0. Shapes built without any leaf (a
 * tiling with an empty tuple, a slice of an empty brace) get the rank their
 * text has, so format -> parse keeps rank and depth.
 */
typedef struct ts_jagged ts_jagged;

/*
 * Parses the text form above (text: len bytes, need not be NUL-terminated;
 * may be NULL when len is 0). *out receives a new object owned by the
 * caller (free with ts_jagged_free), NULL on failure.
 * Errors: TS_ERR_PARSE (err->column set; "element 1 of {...} at column 12
 * has rank 1 but element 0 has rank 2"), TS_ERR_LIMIT (depth or node
 * count), the errors of ts_shape_parse, TS_ERR_OVERFLOW, TS_ERR_NOMEM.
 */
TS_API ts_status ts_jagged_parse(const char *text, size_t len, ts_jagged **out,
                                 ts_error *err);

/* TensorWrapper TiledShape{tiles[0], ..., tiles[n-1]} (n = ntiles): the
 * jagged shape of depth n with leaf (i0,...) = (tiles[0][i0], ...,
 * tiles[n-1][i(n-1)]); tile extents are element counts. n may be 0 (the
 * scalar; tiles may then be NULL). *out receives a new object owned by the
 * caller (ts_jagged_free), NULL on failure. Errors: TS_ERR_VALUE (negative
 * tile), TS_ERR_LIMIT (more than TS_JAGGED_MAX_NODES nodes, checked before
 * allocating; n above TS_JAGGED_MAX_DEPTH or TS_MAX_NDIM / 2), TS_ERR_NOMEM. */
TS_API ts_status ts_jagged_tile(const ts_shape *tiles, size_t ntiles, ts_jagged **out,
                                ts_error *err);

/* Releases a jagged shape. Accepts NULL. */
TS_API void ts_jagged_free(ts_jagged *j);

/* Total rank (depth + leaf rank) and depth (number of jagged modes); 0 for
 * NULL. */
TS_API int ts_jagged_rank(const ts_jagged *j);
TS_API int ts_jagged_depth(const ts_jagged *j);

/* *out receives the total element count: the sum of the sizes of all
 * leaves (seed: {10,20,30} and {10,20} hold 6000 + 200 = 6200).
 * Errors: TS_ERR_OVERFLOW. */
TS_API ts_status ts_jagged_size(const ts_jagged *j, int64_t *out, ts_error *err);

/*
 * Writes the canonical text, snprintf-style: "{(10,20),(30,40)}", tiles
 * expanded, no spaces. Returns the full length in bytes (excluding the
 * NUL); at most cap bytes are written including the NUL; buf may be NULL
 * when cap is 0. Returns 0, writing "" when it can, for a NULL shape or buf
 * NULL with cap > 0.
 */
TS_API size_t ts_jagged_format(const ts_jagged *j, char *buf, size_t cap);

/*
 * The shape of one slice (TensorWrapper: the (0,1) slice of a rank-4 jagged
 * shape is the jagged matrix {(20,),(30,)}): the first n = nindex indices
 * select children of the brace levels; indices beyond the depth chip the
 * smooth leaf (remove its leading modes). *out receives a new jagged shape
 * owned by the caller (a smooth one when n >= depth), NULL on failure.
 * n = 0 copies.
 * Errors: TS_ERR_INDEX ("index 3 is out of bounds for jagged mode 1 with 2
 * elements"), TS_ERR_NDIM (n > rank), TS_ERR_NOMEM.
 */
TS_API ts_status ts_jagged_slice(const ts_jagged *j, const int64_t *index, size_t nindex,
                                 ts_jagged **out, ts_error *err);

/* The smooth shape of a jagged shape of depth 0 (a plain shape viewed as
 * jagged, or a slice down to a leaf): copied to `out` (initialised;
 * overwritten). Use ts_jagged_depth to ask first.
 * Errors: TS_ERR_NDIM (depth > 0: "jagged shape {(1,),(2,)} has 1 jagged
 * mode: it is not smooth"; out untouched), TS_ERR_NOMEM. */
TS_API ts_status ts_jagged_smooth(const ts_jagged *j, ts_shape *out, ts_error *err);

/*
 * TensorWrapper Nested<T>: partitions the rank into nlayers layers of
 * layers[i] >= 0 modes each, left to right (Nested({1,2}, Shape{10,20,30})).
 * For each layer i, elements[i] receives elements_in_layer(i): the number of
 * elements of the tensor viewed down to layer i, i.e. the number of distinct
 * index prefixes of length layers[0] + ... + layers[i] ({1,2} of (10,20,30):
 * 10, 6000; of {(60,100),(10,20)}: 2, 6200). rank_layer(i) is layers[i].
 * elements (a caller array of nlayers entries) receives element counts.
 * nlayers 0 is allowed for a rank-0 shape.
 * Errors: TS_ERR_VALUE (a negative layer; layer ranks that do not sum to the
 * rank: "layers 1,1 sum to rank 2 but the shape has rank 3"),
 * TS_ERR_OVERFLOW.
 */
TS_API ts_status ts_jagged_layers(const ts_jagged *j, const int64_t *layers, size_t nlayers,
                                  int64_t *elements, ts_error *err);

/* ------------------------------------------------------------------------ */
/* DLPack interop                                                           */
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
 * Describes blob `b` as a borrowed DLTensor in *out, like MXNet's
 * TBlob::dltensor() but with explicit strides (MXNet leaves them NULL; old
 * consumers handle explicit ones more safely, and a padded blob needs them):
 * data = b->data, byte_offset 0, device from b->dev_mask (TS_DEV_CPU -> kDLCPU,
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
 * The inverse: makes `out` a blob viewing the DLTensor `t`, after MXNet's
 * TBlob(const DLTensor &), which accepts only compact strides and drops
 * byte_offset; tshape also accepts a padded row stride (the one other layout
 * a blob can express) and honours byte_offset. `out` is treated as
 * uninitialised (like ts_blob_init); on success free it with ts_blob_free.
 * On failure it is left an empty blob that ts_blob_free accepts. The data
 * pointer is t->data + t->byte_offset; the blob does not own it. device_id
 * is dropped (a blob has only a device mask).
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

/* ------------------------------------------------------------------------ */
/* Models: a set of files read as one                                      */
/* ------------------------------------------------------------------------ */

/*
 * A model is what a downloaded checkpoint usually is: a folder of files.
 *   - With an index (a file named *.index.json holding a "weight_map"
 *     object of tensor name -> shard file name, as Hugging Face writes for
 *     model.safetensors.index.json and pytorch_model.bin.index.json), the
 *     shards it names form the model: each tensor is reported once, with
 *     the shard it is in. When a folder holds several index files, the
 *     first in byte order of their names is used.
 *   - Without one, every file in the folder whose format is detected (any
 *     reader of the table; formats may be mixed) is a member, in byte
 *     order of the paths; other files (config.json, tokenizers) are
 *     skipped, and so are names starting with '.'.
 *   - A regular file is a model of one member.
 * Members are opened by up to opts->threads threads at once; what is
 * reported never depends on their number.
 */
typedef struct ts_model ts_model;

/*
 * Options for ts_model_open: an option struct that grows, by the rule of
 * ts_open_options (initialise with TS_MODEL_OPTIONS_INIT).
 *   recursive  0 or 1: without an index, the files of subfolders too
 *              (at most 32 levels deep)
 *   threads    members opened at once: 0 for min(4, online CPUs), else
 *              1..64
 *   open       options for every member (NULL: defaults); when its format
 *              is not TS_FORMAT_AUTO, every file of the folder is a member
 */
typedef struct ts_model_options {
    size_t struct_size;          /* sizeof(ts_model_options) */
    int recursive;
    int threads;
    const ts_open_options *open;
} ts_model_options;

#define TS_MODEL_OPTIONS_INIT {sizeof(ts_model_options), 0, 0, NULL}

/* What is wrong with a model. Errors make it incomplete or ambiguous;
 * warnings leave every tensor the index names readable. */
typedef enum ts_model_issue_kind {
    TS_MODEL_SHARD_MISSING = 1,     /* error: a shard the index names is absent */
    TS_MODEL_FILE_ERROR = 2,        /* error: a member could not be opened */
    TS_MODEL_TENSOR_MISSING = 3,    /* error: the index names a tensor no shard has */
    TS_MODEL_TENSOR_DUPLICATE = 4,  /* error: a tensor is in two shards (or twice
                                       in one); the first is kept */
    TS_MODEL_TENSOR_MOVED = 5,      /* warning: a tensor is in another shard than
                                       the index says */
    TS_MODEL_TENSOR_UNLISTED = 6,   /* warning: a shard has a tensor the index
                                       does not name */
    TS_MODEL_SHARD_UNLISTED = 7,    /* warning: a file of the shards' format
                                       beside the index, not named by it */
    TS_MODEL_NAME_REPEATED = 8,     /* warning: without an index, a member
                                       repeats tensor names of an earlier
                                       one (separate checkpoints, not
                                       shards); the first is kept in
                                       lookups by name */
    TS_MODEL_FOLDERS_SKIPPED = 9,   /* warning: without an index, subfolders
                                       were not read (opts->recursive 0, or
                                       deeper than 32 levels); path is the
                                       first of them */
    TS_MODEL_METADATA_UNREAD = 10,  /* warning: with metadata asked for, the
                                       folder's config.json (or the index's
                                       metadata) could not be read as JSON */
    TS_MODEL_FOLDER_REPEATED = 11   /* warning (recursive): a folder reached
                                       again through a symbolic link (back up
                                       the tree, or a second link to it) is not
                                       read again: each folder (st_dev, st_ino)
                                       is read once */
} ts_model_issue_kind;

/* One issue; owned by the model, valid until ts_model_close. Fields are
 * only appended (the model allocates every issue). */
typedef struct ts_model_issue {
    ts_model_issue_kind kind;
    int is_error;                /* 1 error, 0 warning */
    const char *path;            /* the file concerned, or NULL */
    const char *name;            /* the tensor concerned, or NULL */
    const char *message;         /* one line, names the file and tensor */
    ts_status status;            /* TS_MODEL_FILE_ERROR and _SHARD_MISSING:
                                    what ts_file_open returned for the file
                                    (TS_ERR_TRUNCATED: it is shorter than
                                    its header says); TS_OK for the others */
} ts_model_issue;

/*
 * Opens the model at `path` (NUL-terminated): a folder, an index file
 * (*.index.json), or a regular file. Problems with members are issues of
 * the model (ts_model_issue_at), not failures: a model opens when its
 * folder and index can be read, even with every shard missing.
 *   opts  NULL for defaults, or initialised with TS_MODEL_OPTIONS_INIT
 *   out   receives a new ts_model, NULL on failure; close it with
 *         ts_model_close
 * Errors: TS_ERR_IO (path or folder unreadable, with strerror text),
 * TS_ERR_FORMAT (an index that is not JSON, or has no "weight_map" object
 * of strings; a shard name that is absolute or has a ".." part), for a
 * regular file every error of ts_file_open, TS_ERR_NOMEM, TS_ERR_LIMIT
 * (more than 16,777,216 files), TS_ERR_INVALID_ARG (also: opts as for
 * ts_open_options, recursive not 0/1, threads outside 0..64),
 * TS_ERR_UNSUPPORTED (opts sets fields this library does not know).
 */
TS_API ts_status ts_model_open(const char *path, const ts_model_options *opts, ts_model **out,
                               ts_error *err);

/* Closes every member and frees the model. Accepts NULL. */
TS_API void ts_model_close(ts_model *m);

/*
 * 1 when ts_model_open reads `path` as a model of several files rather than
 * as one file: a local folder, an *.index.json (local or remote), a Hub
 * repository (hf://ORG/NAME or hf://ORG/NAME@REVISION) or a URL ending in
 * '/'; 0 otherwise (also for NULL and for a path that does not exist).
 */
TS_API int ts_model_path(const char *path);

/*
 * 1 when `path` is a URL that ts_file_open and ts_model_open read remotely:
 * http:// and https:// (range requests through libcurl), hf:// (the Hugging
 * Face Hub: hf://ORG/NAME[@REVISION][/PATH], resolved against HF_ENDPOINT,
 * default https://huggingface.co, with HF_TOKEN as a bearer token) and
 * s3:// (s3://BUCKET/KEY, anonymous or signed with AWS SigV4 from
 * AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION;
 * AWS_ENDPOINT_URL for S3-compatible stores). tshape(1) ENVIRONMENT lists
 * every variable. 0 for local paths and NULL.
 */
TS_API int ts_is_url(const char *path);

/*
 * Requests and bytes the file's byte source has read so far: for a remote
 * file the HTTP requests (a redirect followed counts) and the bytes of
 * their answers; for a local file the reads (a mapped file counts 0). Either
 * out-pointer may be NULL; a NULL file gives 0 and 0.
 */
TS_API void ts_file_io_stats(const ts_file *f, uint64_t *requests, uint64_t *bytes);

/* The index file's path, or NULL when the model has none (or m is NULL). */
TS_API const char *ts_model_index(const ts_model *m);

/* Members: files opened (0 for NULL), the i-th one and its path (the
 * folder's path joined with the name found there); NULL when i is out of
 * range or m is NULL. Owned by the model. */
TS_API size_t ts_model_file_count(const ts_model *m);
TS_API const ts_file *ts_model_file(const ts_model *m, size_t i);
TS_API const char *ts_model_file_path(const ts_model *m, size_t i);

/* Member i's path from the model's folder ("model-00001-of-00002.safetensors",
 * "sub/a.npy"), or from the index's folder for a model opened by its index
 * file, else the member's file name (a model of one file; a member outside
 * the index's folder). Points into the member's path, owned by the model;
 * NULL when i is out of range or m is NULL. */
TS_API const char *ts_model_file_label(const ts_model *m, size_t i);

/* Tensors, each once: members in order, each member's arrays in file
 * order (0 for NULL). ts_model_array returns the i-th and, when `file` is
 * not NULL, stores the index of its member there; NULL when i is out of
 * range or m is NULL (then *file is left alone). */
TS_API size_t ts_model_count(const ts_model *m);
TS_API const ts_array *ts_model_array(const ts_model *m, size_t i, size_t *file);

/* The name of tensor i in the model: the array's name, or for an array
 * without one (a .npy file) its member's path from the model's folder
 * without the extension ("embed", "sub/embed"; for a model of one file,
 * the file's name without folder and extension), with the %XX escapes of
 * ts_write's npy folders undone ("%2Drf" is "-rf"; a '%' not followed by
 * such an escape stays). NULL when i is out of range or m is NULL. */
TS_API const char *ts_model_array_name(const ts_model *m, size_t i);

/*
 * What a model says about itself besides its tensors, collected by
 * ts_model_open when opts->open asks for metadata (want_metadata 1; else
 * there is none): for a folder or an index, first every top-level entry of
 * the folder's config.json (Hugging Face's model_type, architectures,
 * hidden_size, ...: the configuration transformers reads), then the
 * entries of the index's "metadata" object (total_size), then the members'
 * own metadata (safetensors __metadata__, GGUF key/values, HDF5
 * attributes; see ts_file_metadata), each (key, value) pair once, in the
 * order first met, with the number of members that hold it: the shards of
 * one model give one "format": "pt" held by all of them.
 *   source  TS_MODEL_META_CONFIG, _INDEX or _MEMBER
 *   path    the file it comes from (config.json, the index, or the first
 *           member holding it)
 *   key     the entry's key
 *   value   its JSON text (config.json and index values compacted: no
 *           whitespace outside strings; member values as ts_file_metadata
 *           gives them)
 *   files   _MEMBER: members holding this key with this value; else 1
 * A config.json that cannot be read or is not a JSON object is a warning
 * (TS_MODEL_METADATA_UNREAD) and gives no entries; a missing one gives
 * none. Owned by the model, valid until ts_model_close.
 */
typedef enum ts_model_meta_source {
    TS_MODEL_META_CONFIG = 1,
    TS_MODEL_META_INDEX = 2,
    TS_MODEL_META_MEMBER = 3
} ts_model_meta_source;

typedef struct ts_model_meta {
    ts_model_meta_source source;
    const char *path;
    const char *key;
    const char *value;
    size_t files;
} ts_model_meta;

/*
 * The files of a model's folder that hold no tensors (its top level only,
 * names not starting with '.'): what save_pretrained writes beside the
 * weights (config.json, generation_config.json, tokenizer files,
 * README.md), for a conversion to copy. A file is one when its first
 * bytes match no reader of the table and, beside an index, when it is a
 * JSON file; index files (*.index.json), members, files that open as
 * tensor files and the external data files of ONNX members are not. Paths are the folder's joined with the name, in
 * byte order of the names; none for a model of one file. Count 0 and NULL
 * for NULL or i out of range. Owned by the model.
 */
TS_API size_t ts_model_other_file_count(const ts_model *m);
TS_API const char *ts_model_other_file(const ts_model *m, size_t i);

/* The number of metadata entries (0 for NULL), and the i-th (NULL when i
 * is out of range or m is NULL). */
TS_API size_t ts_model_metadata_count(const ts_model *m);
TS_API const ts_model_meta *ts_model_metadata_at(const ts_model *m, size_t i);

/* Issues in a fixed order (index problems, then members in order), and
 * how many are errors; 0 / NULL for NULL or i out of range. */
TS_API size_t ts_model_issue_count(const ts_model *m);
TS_API size_t ts_model_error_count(const ts_model *m);
TS_API const ts_model_issue *ts_model_issue_at(const ts_model *m, size_t i);

/* ------------------------------------------------------------------------ */
/* Verifying a checkpoint: is a download complete and consistent?           */
/* (src/formats/verify.c, src/values/deep.c)                                */
/* ------------------------------------------------------------------------ */

/*
 * ts_verify checks a model (a folder, an index file or one file, local or
 * remote: what ts_model_open reads) and gives a verdict with the problems
 * behind it, each of one kind (ts_verify_check) and one class
 * (ts_verify_class). Hugging Face leaves these checks to the reader of a
 * checkpoint (huggingface_hub#4725: "must be checked downstream"); runtimes
 * each add one after an incident. The checks, by default from the headers
 * only (a remote model costs its headers, as ts_model_open):
 *   - every file the index names is there (TS_VERIFY_MISSING); shards named
 *     "NAME-0000K-of-0000N.EXT" (transformers' and llama.cpp gguf-split's
 *     pattern) without an index are all there, K = 1..N (MISSING);
 *   - every file is exactly as long as its headers imply: shorter is a
 *     truncated download (SHORT: the reader's TS_ERR_TRUNCATED), longer has
 *     trailing bytes (LONG: the end of what the format places, its last
 *     tensor and the padding it writes, a zip's end record and comment, an
 *     MXNet name list, a legacy PyTorch file's last storage, the end of
 *     file of an HDF5 superblock, against the file's size). Protobuf files
 *     (ONNX, Caffe, Caffe2) are one message as long as the file, which has
 *     no other length; their length is not checked (counted in
 *     ts_verify_totals unchecked);
 *   - a file that is a Git LFS pointer (git clone without git-lfs) or empty
 *     where a tensor file is expected (LFS_POINTER, EMPTY), and the partial
 *     files huggingface_hub leaves while downloading into a folder
 *     (.cache/huggingface/download/NAME.incomplete: PARTIAL);
 *   - every header is valid for its format (INVALID): the readers' checks,
 *     among them safetensors data regions without holes or overlaps, GGUF
 *     tensor data inside the file and aligned, ONNX external data files
 *     long enough (a short one is SHORT), a PyTorch storage that its views
 *     name with one dtype and size and that holds them all;
 *   - the index against the headers: every entry in the shard it names
 *     (INDEX_EXTRA: in no shard; MOVED: in another), no tensor the index
 *     does not name (UNINDEXED), no tensor in two shards (DUPLICATE), and
 *     the index's metadata.total_size equal to the bytes of the tensors
 *     (TOTAL_SIZE), as huggingface_hub's split_state_dict_into_shards_factory
 *     sums them: each tensor's nbytes, a storage shared by several tensors
 *     (PyTorch) counted once with its whole size; either sum is accepted;
 *   - with opts->deep, the data, read on all cores: the CRC-32 of every zip
 *     member (npz, PyTorch) against its central directory entry (CRC; a
 *     deflated member is inflated whole), every tensor's bytes readable
 *     (DATA), and NaN or infinite values of float16, bfloat16, float32 and
 *     float64 tensors counted (NONFINITE, a warning).
 * Classes, from the least to the most severe; the verdict is the most
 * severe class of any problem (TS_VERIFY_OK without errors):
 *   TS_VERIFY_INCONSISTENT  the files disagree with each other or with the
 *                           index (INDEX_EXTRA, UNINDEXED, DUPLICATE,
 *                           MOVED, TOTAL_SIZE)
 *   TS_VERIFY_CORRUPT       a file disagrees with itself (LONG, INVALID,
 *                           CRC, DATA)
 *   TS_VERIFY_INCOMPLETE    an incomplete download: files missing, short,
 *                           empty, LFS pointers, partial (MISSING, SHORT,
 *                           EMPTY, LFS_POINTER, PARTIAL)
 *   TS_VERIFY_UNREADABLE    a file could not be read at all (an I/O error,
 *                           a permission, a server's error: UNREADABLE):
 *                           nothing can be said of it
 * Warnings (class TS_VERIFY_OK) do not change the verdict: NONFINITE,
 * EXTRA_FILE (a file of the shards' format the index does not name) and
 * NOTE (the model's other warnings: subfolders not read, names repeated
 * across files without an index, an unreadable config.json).
 */
typedef enum ts_verify_class {
    TS_VERIFY_OK = 0,
    TS_VERIFY_INCONSISTENT = 1,
    TS_VERIFY_CORRUPT = 2,
    TS_VERIFY_INCOMPLETE = 3,
    TS_VERIFY_UNREADABLE = 4
} ts_verify_class;

/* Number of classes: valid values are 0..TS_VERIFY_CLASS_COUNT-1. */
#define TS_VERIFY_CLASS_COUNT 5

/* What a problem is (see above). Append-only. */
typedef enum ts_verify_check {
    TS_VERIFY_MISSING = 1,
    TS_VERIFY_SHORT = 2,
    TS_VERIFY_EMPTY = 3,
    TS_VERIFY_LFS_POINTER = 4,
    TS_VERIFY_PARTIAL = 5,
    TS_VERIFY_LONG = 6,
    TS_VERIFY_INVALID = 7,
    TS_VERIFY_CRC = 8,
    TS_VERIFY_DATA = 9,
    TS_VERIFY_INDEX_EXTRA = 10,
    TS_VERIFY_UNINDEXED = 11,
    TS_VERIFY_DUPLICATE = 12,
    TS_VERIFY_MOVED = 13,
    TS_VERIFY_TOTAL_SIZE = 14,
    TS_VERIFY_UNREADABLE_FILE = 15,
    TS_VERIFY_EXTRA_FILE = 16,
    TS_VERIFY_NONFINITE = 17,
    TS_VERIFY_NOTE = 18
} ts_verify_check;

/* Largest ts_verify_check value. */
#define TS_VERIFY_CHECK_MAX 18

/* The class's word, as JSON gives it: "ok", "inconsistent", "corrupt",
 * "incomplete", "unreadable"; and its phrase for people: "complete and
 * consistent", "inconsistent checkpoint", "corrupt file", "incomplete
 * download", "unreadable". "unknown" outside the enum. Static text. */
TS_API const char *ts_verify_class_name(ts_verify_class c);
TS_API const char *ts_verify_class_text(ts_verify_class c);

/* The check's word: "missing", "short", "empty", "lfs_pointer",
 * "partial", "long", "invalid", "crc", "data", "index_extra", "unindexed",
 * "duplicate", "moved", "total_size", "unreadable", "extra_file",
 * "nonfinite", "note"; "unknown" outside the enum. Static text. */
TS_API const char *ts_verify_check_name(ts_verify_check c);

/* One problem; owned by the result, valid until ts_verify_free. */
typedef struct ts_verify_problem {
    ts_verify_check check;
    ts_verify_class cls;         /* the class it gives; TS_VERIFY_OK: a warning */
    const char *path;            /* the file concerned, or NULL */
    const char *name;            /* the tensor (or zip member) concerned, or NULL */
    const char *message;         /* one line naming the file and tensor */
    int64_t expected, actual;    /* SHORT, LONG, LFS_POINTER: the file's bytes as
                                    its header says and as it is; TOTAL_SIZE: the
                                    index's total_size and the tensors' bytes;
                                    CRC: the directory's CRC-32 and the data's;
                                    NONFINITE: NaN and infinite values; -1 and -1
                                    for the others */
} ts_verify_problem;

/* What was checked. Units: files and tensors counted once; bytes. */
typedef struct ts_verify_totals {
    int64_t files;               /* tensor files opened (members) */
    int64_t tensors;             /* tensors of the model, each once */
    int64_t nbytes;              /* their bytes (ts_array nbytes summed) */
    int64_t file_bytes;          /* the sizes of the files opened */
    int64_t length_checked;      /* files whose length was checked */
    int64_t length_unchecked;    /* files whose format has no length of its own */
    int64_t crc_checked;         /* zip members whose CRC-32 was checked, and
                                    TensorFlow checkpoint tensors whose CRC-32C
                                    was (deep) */
    int64_t data_bytes;          /* bytes read by the deep pass */
    int deep;                    /* 1: the data was read */
} ts_verify_totals;

/*
 * Options of ts_verify: an option struct that grows, by the rule of
 * ts_open_options (initialise with TS_VERIFY_OPTIONS_INIT).
 *   deep       0 or 1: read the data (see above)
 *   nthreads   >= 0, deep: threads reading at once; 0: one per online CPU
 *   recursive  0 or 1: a folder without an index, with its subfolders
 *   open       options for every file (NULL: defaults): max_fetch, io, log
 *   progress   deep: called now and then (about every 64 MiB) from the
 *              calling thread with the bytes read so far and in all; NULL
 */
typedef struct ts_verify_options {
    size_t struct_size;          /* sizeof(ts_verify_options) */
    int deep;
    int nthreads;
    int recursive;
    const ts_open_options *open;
    void (*progress)(void *ctx, int64_t done, int64_t total);
    void *progress_ctx;
} ts_verify_options;

#define TS_VERIFY_OPTIONS_INIT {sizeof(ts_verify_options), 0, 0, 0, NULL, NULL, NULL}

/* The result of ts_verify: a verdict, its problems and totals. */
typedef struct ts_verify ts_verify;

/*
 * Verifies the model at `path` (NUL-terminated; see ts_model_open for what
 * it may be) and stores the result in *out (free it with ts_verify_free).
 * Problems with the model's files are results, not failures: a folder whose
 * every shard is missing verifies to TS_VERIFY_INCOMPLETE. Memory: the
 * model's headers, and with deep a buffer of 8 MiB per thread.
 * Errors (nothing could be checked; *out NULL): TS_ERR_IO (path does not
 * exist or cannot be read: strerror text; a URL as ts_file_open says),
 * TS_ERR_FORMAT (an index that is not JSON or has no weight_map),
 * TS_ERR_NOMEM, TS_ERR_LIMIT, TS_ERR_INVALID_ARG (also: opts as for
 * ts_open_options, deep or recursive not 0/1, nthreads < 0),
 * TS_ERR_UNSUPPORTED (opts sets fields this library does not know).
 */
TS_API ts_status ts_verify_path(const char *path, const ts_verify_options *opts,
                                ts_verify **out, ts_error *err);

/* Frees the result. Accepts NULL. */
TS_API void ts_verify_free(ts_verify *v);

/* The verdict: the most severe class among the problems (TS_VERIFY_OK for
 * NULL or when there are none but warnings). */
TS_API ts_verify_class ts_verify_verdict(const ts_verify *v);

/* Problems in a fixed order (the model's, then each file's in member order,
 * then the index's totals, then the deep pass's), the number of them that
 * are errors (cls != TS_VERIFY_OK); 0 / NULL for NULL or i out of range. */
TS_API size_t ts_verify_problem_count(const ts_verify *v);
TS_API size_t ts_verify_error_count(const ts_verify *v);
TS_API const ts_verify_problem *ts_verify_problem_at(const ts_verify *v, size_t i);

/* What was checked (NULL for NULL); owned by the result. */
TS_API const ts_verify_totals *ts_verify_totals_of(const ts_verify *v);

/* ------------------------------------------------------------------------ */
/* Fingerprints: the structural identity of a model (src/values/fingerprint.c) */
/* ------------------------------------------------------------------------ */

/*
 * A model's fingerprint is the SHA-256 (FIPS 180-4, through OpenSSL's
 * libcrypto, loaded on first use) of a canonical listing of its tensors,
 * so that two files can be matched without moving them (as weight-inspect's
 * `id` and gguf-tools' gguf-checksum do, each with its own listing):
 * one line per tensor of ts_model_array (each once), sorted by the bytes of
 * the names (then of the lines, for names that repeat),
 *     LEN:NAME DTYPE SHAPE\n
 * LEN the number of bytes of NAME in decimal, NAME the tensor's name
 * (ts_model_array_name) as it is, DTYPE ts_summary_dtype's spelling
 * ("float16", "q4_k", "<U7"), SHAPE the dims in NumPy order as a JSON list
 * ("[32,8]", "[]" for a scalar, "null" for an array without a shape); with
 * values, a space and the lower-case hex SHA-256 of the tensor's data come
 * before the newline: its elements in C order, each little-endian, in its
 * own dtype (what ts_write writes for it: views, Fortran order, big-endian
 * data and deflated members read as such), or for GGUF block types and
 * sub-byte dtypes the bytes as stored. Offsets, padding, the order of the
 * tensors in the files, the format, its version and metadata are left out:
 * a file and its conversion (safetensors to .npz, a sharded model to one
 * file) have the same fingerprint when their names, dtypes and shapes (and
 * with values, their data) agree. Shapes of GGUF tensors are in NumPy order.
 */
typedef struct ts_fingerprint_options {
    size_t struct_size;          /* sizeof(ts_fingerprint_options) */
    int values;                  /* 0 or 1: hash the data too */
    int nthreads;                /* >= 0, values: tensors hashed at once; 0:
                                    one per online CPU */
    ts_write_fn listing;         /* NULL, or called with the canonical
                                    listing in pieces (returning non-zero
                                    stops it: TS_ERR_IO) */
    void *listing_user;
    void (*progress)(void *ctx, int64_t done, int64_t total); /* values:
                                    data bytes hashed so far and in all, from
                                    the calling thread; NULL */
    void *progress_ctx;
} ts_fingerprint_options;

#define TS_FINGERPRINT_OPTIONS_INIT {sizeof(ts_fingerprint_options), 0, 0, NULL, NULL, NULL, \
                                     NULL}

/* A fingerprint (a fixed layout: it never grows). */
typedef struct ts_fingerprint {
    char sha256[65];             /* 64 lower-case hex digits and a NUL */
    int64_t tensors;             /* lines of the listing */
    int64_t nbytes;              /* values: bytes of data hashed; else 0 */
    int values;                  /* 1: the data is in it */
} ts_fingerprint;

/*
 * Fills *out with the fingerprint of model m (see above); opts NULL:
 * defaults (structure only). Memory: one line per tensor, and with values
 * a 4 MiB buffer per thread.
 * Errors: TS_ERR_UNSUPPORTED (libcrypto cannot be loaded; also opts sets
 * fields this library does not know), TS_ERR_NOMEM, TS_ERR_IO (listing
 * returned non-zero), with values those of reading the data ("array
 * 'NAME': ...", as ts_array_read; a dtype without bytes of its own, NumPy
 * object arrays: TS_ERR_DTYPE), TS_ERR_INVALID_ARG (also: opts as for
 * ts_open_options, values not 0/1, nthreads < 0).
 */
TS_API ts_status ts_model_fingerprint(const ts_model *m, const ts_fingerprint_options *opts,
                                      ts_fingerprint *out, ts_error *err);

/* ------------------------------------------------------------------------ */
/* Summaries: totals, parameters, the largest tensors, layer groups         */
/* (src/formats/role.c, src/formats/summary.c)                              */
/* ------------------------------------------------------------------------ */

/* What a tensor of a checkpoint is for (ts_tensor_role). Append-only. */
typedef enum ts_role {
    TS_ROLE_PARAMETER = 0,       /* learned: counted by torch's
                                    sum(p.numel() for p in model.parameters()) */
    TS_ROLE_BUFFER = 1,          /* state a model keeps but does not learn */
    TS_ROLE_OPTIMIZER_STATE = 2  /* an optimizer's per-parameter state */
} ts_role;

/* Number of roles: valid values are 0..TS_ROLE_COUNT-1. */
#define TS_ROLE_COUNT 3

/*
 * The role of a tensor named `name` (NUL-terminated: its name in the file or
 * model, such as "model.layer1.0.bn1.running_mean"; NULL counts as "") whose
 * dtype is `dtype`. Files record no such flag, so the rule goes by name and
 * dtype. "Parameters" mean one thing everywhere: what PyTorch counts in
 * sum(p.numel() for p in model.parameters()), so that a checkpoint holding
 * the optimizer's state beside the model is not counted twice. The first
 * rule that matches wins:
 *   1. TS_ROLE_OPTIMIZER_STATE:
 *      - the first component of the name (up to the first '.' or '/')
 *        contains "optimizer": the keys under which checkpoints keep
 *        torch.optim.Optimizer.state_dict() ("optimizer"; the PyTorch
 *        tutorial's "optimizer_state_dict"; PyTorch Lightning's
 *        "optimizer_states"; fairseq's "last_optimizer_state") and Keras's
 *        "optimizer_weights" group;
 *      - "state.N...." with N all digits: Optimizer.state_dict() saved
 *        alone (torch/optim/optimizer.py: {"state": {0: {...}}, ...});
 *      - any component (between '.' and '/') that is a per-parameter state
 *        key of torch.optim: momentum_buffer (SGD), exp_avg, exp_avg_sq,
 *        max_exp_avg_sq (Adam, AdamW, NAdam, RAdam, Adamax), exp_inf
 *        (Adamax), square_avg, grad_avg (RMSprop), acc_delta (Adadelta);
 *   2. TS_ROLE_BUFFER:
 *      - MXNet "aux:" names (the format's auxiliary states);
 *      - a last component (after '.', '/', ':' or '_'; a Keras ":0" suffix
 *        dropped) that is running_mean, running_var, num_batches_tracked
 *        (torch.nn BatchNorm buffers), moving_mean, moving_var,
 *        moving_variance (Keras non-trainable BatchNormalization weights,
 *        MXNet BatchNorm statistics), rolling_mean or rolling_variance
 *        (Darknet's batch normalisation statistics);
 *      - a dtype that is neither floating point nor complex (bool, integers,
 *        strings, datetimes, structured, object): torch lets only floating
 *        point and complex tensors require gradients, so such a tensor is
 *        never a parameter (position ids, attention masks, step counters,
 *        packed int4 weights of GPTQ layers, which are buffers there too).
 *        GGUF block types (TS_DTYPE_QUANTIZED) hold the weights of
 *        parameters and stay parameters; TS_DTYPE_UNKNOWN goes by name;
 *   3. TS_ROLE_PARAMETER: every other tensor. A floating point buffer with
 *      none of the names above (a rotary embedding's inv_freq) is counted
 *      as a parameter: only the model's code could tell.
 * Never fails.
 */
TS_API ts_role ts_tensor_role(const char *name, ts_dtype dtype);

/* The role's word, as summaries print it and JSON keys its totals:
 * "parameter", "buffer", "optimizer_state"; "unknown" outside the enum.
 * Static text. */
TS_API const char *ts_role_name(ts_role role);

/*
 * A summary: the totals and highlights of a set of tensors added one at a
 * time, as `tshape info --summary` prints them, computed here so that C
 * and Python users get the same answers:
 *   - sums (tensors, elements, bytes) of every tensor added, per role
 *     (ts_tensor_role) and per dtype (keyed by ts_summary_dtype's spelling,
 *     in the order first added);
 *   - with options top N, the N largest tensors by nbytes, largest first
 *     (ties: the one added first; an unknown nbytes counts as -1);
 *   - with options group 1, the tensors whose names differ only in layer
 *     numbers and that have the same dtype spelling and shape, collapsed
 *     into groups, in the order first added. A layer number is a component
 *     of the name between dots (or at its start or end) of 1 to 9 decimal
 *     digits: the module paths of PyTorch's nn.ModuleList
 *     ("model.layers.12.mlp.up_proj.weight"), as llama.cpp's
 *     gguf-py/scripts/gguf_dump.py groups block tensors "blk.N.". A group
 *     of tensors "model.layers.0.x" .. "model.layers.31.x" is reported as
 *     "model.layers.#.x", count 32, layers "0-31".
 * Everything reported is copied into the summary: tensors may come from
 * files closed afterwards. The pointers the query functions return stay
 * valid until the next ts_summary_add or ts_summary_free. Memory: the dtype
 * list, the top N tensors, and with group the groups with their layer
 * numbers (8 bytes per tensor).
 */
typedef struct ts_summary ts_summary;

/*
 * Options of ts_summary_new: an option struct that grows, by the rule of
 * ts_open_options (initialise with TS_SUMMARY_OPTIONS_INIT; struct_size 0
 * or too small is TS_ERR_INVALID_ARG, unknown nonzero bytes beyond this
 * version's struct TS_ERR_UNSUPPORTED). NULL: defaults.
 */
typedef struct ts_summary_options {
    size_t struct_size;          /* sizeof(ts_summary_options) */
    int64_t top;                 /* 0..1048576: how many of the largest
                                    tensors to keep (default 0) */
    int group;                   /* 0 or 1: collect layer groups (default 0) */
} ts_summary_options;

#define TS_SUMMARY_OPTIONS_INIT {sizeof(ts_summary_options), 0, 0}

/*
 * A sum over tensors that never wraps: a sum that would not fit in int64
 * stops at the last value that fitted and sets its overflow flag (print it
 * as "overflow", JSON null).
 */
typedef struct ts_summary_sum {
    int64_t tensors;             /* tensors counted */
    int64_t size;                /* elements */
    int64_t nbytes;              /* bytes, of the tensors whose nbytes is known */
    int size_overflow;           /* 1: size does not fit in int64 */
    int nbytes_overflow;         /* 1: nbytes does not fit in int64 */
    int nbytes_unknown;          /* 1: some tensors have no known nbytes
                                    (NumPy object arrays: pickled) */
} ts_summary_sum;

/* One tensor of a summary (largest, groups); owned by the summary. */
typedef struct ts_summary_tensor {
    const char *name;            /* as given to ts_summary_add */
    const char *dtype;           /* ts_summary_dtype's spelling */
    const int64_t *dims;         /* the shape: ndim dims */
    int ndim;
    int64_t size;                /* elements */
    int64_t nbytes;              /* bytes; -1 when unknown */
    ts_role role;
    size_t tag;                  /* as given to ts_summary_add */
} ts_summary_tensor;

/* One group of tensors (options group); owned by the summary. */
typedef struct ts_summary_group {
    const char *name;            /* the name with '#' for each layer number
                                    when count > 1, else the tensor's name */
    const char *layers;          /* the layer numbers in ascending order,
                                    consecutive runs as ranges: "0-31",
                                    "0-3,5,7-9"; "" when count is 1 or the
                                    names have no layer number */
    int64_t count;               /* tensors in the group */
    ts_summary_tensor first;     /* the first one added */
} ts_summary_group;

/*
 * A new empty summary with options opts (NULL: defaults); free it with
 * ts_summary_free. Errors: TS_ERR_NOMEM; TS_ERR_INVALID_ARG (also: opts as
 * above, top outside 0..1048576, group not 0/1), TS_ERR_UNSUPPORTED.
 */
TS_API ts_status ts_summary_new(const ts_summary_options *opts, ts_summary **out,
                                ts_error *err);

/* Frees the summary and everything it reported. Accepts NULL. */
TS_API void ts_summary_free(ts_summary *s);

/*
 * Adds tensor `a` under the name `name` (NUL-terminated; NULL: a->name),
 * with its role ts_tensor_role(name, a->dtype) (a->dequantized_dtype when
 * it is not TS_DTYPE_UNKNOWN). `tag` is any number the
 * caller wants back with the tensor in ts_summary_largest and
 * ts_summary_group_at (a model's tensor index: ts_model_array(m, tag, ...)).
 * Nothing of `a` or `name` is kept. Errors: TS_ERR_NOMEM (the sums include
 * the tensor; what failed to be recorded is the largest or group entry).
 */
TS_API ts_status ts_summary_add(ts_summary *s, const char *name, const ts_array *a, size_t tag,
                                ts_error *err);

/* The sums of every tensor added, and of those of one role (NULL when s
 * is NULL or role is outside the enum). Owned by the summary. */
TS_API const ts_summary_sum *ts_summary_total(const ts_summary *s);
TS_API const ts_summary_sum *ts_summary_role(const ts_summary *s, ts_role role);

/* The dtypes met, in the order first added (0 for NULL): the i-th one's
 * spelling is returned and its sums stored in *sum when sum is not NULL;
 * NULL when i is out of range. */
TS_API size_t ts_summary_dtype_count(const ts_summary *s);
TS_API const char *ts_summary_dtype_at(const ts_summary *s, size_t i,
                                       const ts_summary_sum **sum);

/* The largest tensors kept (at most options top), largest first; NULL when
 * i is out of range. */
TS_API size_t ts_summary_largest_count(const ts_summary *s);
TS_API const ts_summary_tensor *ts_summary_largest(const ts_summary *s, size_t i);

/* The groups (options group; 0 without it), in the order first added. The
 * layer texts are made on the first call after an add, which is why s is
 * not const; NULL when i is out of range or that text cannot be allocated. */
TS_API size_t ts_summary_group_count(const ts_summary *s);
TS_API const ts_summary_group *ts_summary_group_at(ts_summary *s, size_t i);

/*
 * What a checkpoint is when its metadata does not say (safetensors#609),
 * from the names and shapes of its tensors (src/formats/family.c, a rule
 * table after the module names of transformers' and diffusers' modeling
 * code, PEFT and kohya LoRA, torchvision, timm and llama.cpp's GGUF
 * names; family.c names the source of each rule):
 *   kind      TS_KIND_LORA (lora_A/lora_B, lora_up/lora_down), TS_KIND_VAE
 *             (diffusers' AutoencoderKL), TS_KIND_TEXT_ENCODER (CLIP's text
 *             model, a T5 encoder without decoder), TS_KIND_OPTIMIZER (only
 *             optimizer state, ts_tensor_role), TS_KIND_TRAINING (weights and
 *             optimizer state), TS_KIND_MODEL (a family of the table, or
 *             parameters of none), TS_KIND_UNKNOWN (no parameter at all)
 *   family    the architecture ("llama-style decoder", "BERT-style encoder",
 *             "ViT (vision transformer)", "ResNet (torchvision)", "UNet
 *             (UNet2DConditionModel)", "Whisper (encoder-decoder)", ...), or
 *             NULL; static text
 *   evidence  the name patterns that matched ("layers.N.self_attn.q_proj,
 *             layers.N.mlp.gate_proj"; N a layer number), "" without family
 *   layers    distinct layer numbers of the first pattern; -1 unknown
 *   hidden, vocab  the token embedding's (vocab, hidden) shape; -1 unknown
 *   heads, kv_heads  the query's and key's rows over the head size where a
 *             per-head tensor fixes it (qwen3's and olmo2's q_norm); -1
 * The first rule whose every pattern matches a tensor wins (adapters and
 * diffusion models before decoders and encoders).
 */
typedef enum ts_checkpoint_kind {
    TS_KIND_UNKNOWN = 0,
    TS_KIND_MODEL = 1,
    TS_KIND_LORA = 2,
    TS_KIND_VAE = 3,
    TS_KIND_TEXT_ENCODER = 4,
    TS_KIND_OPTIMIZER = 5,
    TS_KIND_TRAINING = 6
} ts_checkpoint_kind;

/* "unknown", "model", "LoRA adapter", "VAE", "text encoder", "optimizer
 * state", "training checkpoint"; "unknown" outside the enum. Static. */
TS_API const char *ts_checkpoint_kind_name(ts_checkpoint_kind k);

/* A fixed layout: it never grows. */
typedef struct ts_identity {
    ts_checkpoint_kind kind;
    const char *family;
    char evidence[256];
    int64_t layers, hidden, vocab, heads, kv_heads;
} ts_identity;

/* Fills *out for model m (see above). Errors: TS_ERR_NOMEM. */
TS_API ts_status ts_model_identify(const ts_model *m, ts_identity *out, ts_error *err);

/*
 * The memory a model needs loaded (src/formats/memory.c):
 *   weights   its tensors' bytes, each tensor once, exactly: sub-byte dtypes
 *             counted in bits (rounded up once, for the sum), GGUF block
 *             types in whole blocks
 *   kv_cache  the KV cache for `context` tokens and `batch` sequences:
 *                 sum over the layers of batch * cells * kv_heads
 *                     * (head_dim_k + head_dim_v) * itemsize(kv_dtype)
 *             (K and V buffers each rounded up to whole bytes, or to whole
 *             blocks of a quantised kv_type)
 *             with cells = context, or the window for the sliding_layers
 *             that use sliding-window attention: what llama.cpp allocates
 *             (src/llama-kv-cache.cpp: K and V of n_ctx cells of
 *             n_embd_head * n_head_kv elements per layer) and transformers'
 *             caches hold (key and value states (batch, kv_heads, seq,
 *             head_dim) per layer); -1 when the model does not say its
 *             attention
 *   total     weights + kv_cache (the cache counted 0 when unknown)
 *   layers, kv_heads, head_dim_k, head_dim_v, context, sliding_window,
 *   sliding_layers, batch, kv_dtype  what the estimate used (-1 unknown)
 *   source    where the attention came from: "config.json" (the folder's:
 *             num_hidden_layers, num_key_value_heads, num_attention_heads,
 *             head_dim or hidden_size / num_attention_heads,
 *             max_position_embeddings, or GPT-2's n_layer, n_head, n_embd,
 *             n_positions; torch_dtype; sliding_window with layer_types,
 *             sliding_window_pattern, Gemma 2's even layers (model_type
 *             gemma2) or every layer, unless use_sliding_window is false),
 *             "gguf" (ARCH.block_count, ARCH.attention.head_count_kv,
 *             head_count, key_length, value_length, ARCH.embedding_length,
 *             ARCH.context_length, as gguf-parser-go reads them), or NULL
 * The model must have been opened with metadata (ts_open_options.
 * want_metadata) for config.json and GGUF keys to be seen.
 */
typedef struct ts_memory {
    int64_t weights, kv_cache, total;
    int64_t layers, kv_heads, head_dim_k, head_dim_v, context, sliding_window, sliding_layers;
    int64_t batch;
    ts_dtype kv_dtype;
    const char *source;
    const char *kv_type;         /* the llama.cpp cache type the estimate
                                    used ("q8_0", static text; kv_dtype is
                                    then TS_DTYPE_QUANTIZED), or NULL: the
                                    cache holds kv_dtype */
} ts_memory;

/*
 * Options of ts_model_memory, by the rule of ts_open_options (initialise
 * with TS_MEMORY_OPTIONS_INIT):
 *   context   tokens; 0: the model's (max_position_embeddings, ARCH.context_length)
 *   batch     sequences; 0: 1
 *   kv_dtype  the cache's dtype; TS_DTYPE_UNKNOWN: config.json's torch_dtype,
 *             else float16 (llama.cpp's default cache type). Sub-byte
 *             dtypes (int4, float4_e2m1fn) count in bits, rounded up per
 *             layer's K and V buffer
 *   kv_type   or a block-quantised cache type of llama.cpp (-ctk/-ctv:
 *             "q8_0", "q4_0", "q4_1", "q5_0", "q5_1", "iq4_nl", any case),
 *             taking the place of kv_dtype: each layer's K and V buffer is
 *             then ceil(elements / 32) blocks of the type's block bytes
 *             (34, 18, 20, 22, 24, 18), as llama.cpp allocates them
 *             (ggml_row_size) and gguf-parser-go counts them (RowSizeOf);
 *             NULL: kv_dtype
 */
typedef struct ts_memory_options {
    size_t struct_size;          /* sizeof(ts_memory_options) */
    int64_t context;
    int64_t batch;
    ts_dtype kv_dtype;
    const char *kv_type;
} ts_memory_options;

#define TS_MEMORY_OPTIONS_INIT {sizeof(ts_memory_options), 0, 0, TS_DTYPE_UNKNOWN, NULL}

/* A quantised KV cache type of llama.cpp (-ctk/-ctv; common/arg.cpp
 * kv_cache_types less F32, F16, BF16) by name, any case: "q8_0", "q4_0",
 * "q4_1", "iq4_nl", "q5_0", "q5_1". Returns its lower-case name (static
 * text) and sets *block_size and *block_bytes (elements and bytes of its
 * ggml block: ggml-common.h; either pointer may be NULL), or returns NULL
 * when name is NULL or not one of them. Never fails. */
TS_API const char *ts_kv_cache_type(const char *name, int64_t *block_size, int64_t *block_bytes);

/* Fills *out for model m (see ts_memory); opts NULL: defaults. Errors:
 * TS_ERR_INVALID_ARG (also: opts as for ts_open_options, context or batch
 * negative, kv_dtype without a fixed size, kv_type not one of the cache
 * types above: the message lists them), TS_ERR_UNSUPPORTED. */
TS_API ts_status ts_model_memory(const ts_model *m, const ts_memory_options *opts,
                                 ts_memory *out, ts_error *err);

/*
 * The dtype as summaries spell it: a->dtype_name, except for NumPy's
 * flexible types (bytes, str, void), whose names count bits ("str224"),
 * the descr NumPy prints for them ("<U7", "S5", "V12"; a '|' byte order
 * dropped, as numpy.dtype's str does not show it for them). Owned by the
 * array; "" for NULL.
 */
TS_API const char *ts_summary_dtype(const ts_array *a);

/* ------------------------------------------------------------------------ */
/* Scan: what loading a file would import and run (src/formats/scan.c)      */
/* ------------------------------------------------------------------------ */

/*
 * torch.load, pickle.load, numpy.load(allow_pickle=True) and joblib.load
 * import every global a pickle names and call what the pickle says; Keras
 * runs the marshalled bytecode of Lambda layers. A scan reads what those
 * loaders read, with tshape's restricted pickle machine (which never
 * imports, calls or executes anything), and reports what they would import:
 *   - every global of every pickle of a file, with the pickle, the byte
 *     offset and the opcode that names it and its class (ts_scan_class):
 *     each pickle member of a zip archive (data.pkl, constants.pkl, any
 *     *.pkl, in any folder), the pickles of a legacy torch.save file, a
 *     plain pickle of any protocol (.pkl, .pickle, .pdparams, a .bin that
 *     is one), a joblib dump, the pickle of a .npy object array (alone or in
 *     an .npz), and the pickles and torch.save files inside byte strings of
 *     those pickles (torch.storage._load_from_bytes, pickle.loads
 *     payloads), up to 4 levels deep. Whatever a file is called: the
 *     content decides, as it does for torch.load;
 *   - findings: zip archives built so that scanners and torch.load read
 *     different bytes (general-purpose flag bits, a CRC-32 that does not
 *     match, a name that differs between the local header and the central
 *     directory, duplicate names, a data.pkl in another folder than the one
 *     torch.load reads, data after the archive), pickle structures that
 *     call what a call returned or change a global's attributes, Keras
 *     Lambda layers (marshalled bytecode) and custom objects in model_config
 *     (.h5) or config.json (.keras), and notes (a TorchScript archive, which
 *     torch.load hands to torch.jit.load);
 *   - whether torch.load(weights_only=True) would accept the file, with the
 *     allowlists and opcodes of torch 1.13's and torch 2.4's
 *     torch/_weights_only_unpickler.py, and which globals a user would have
 *     to pass to torch.serialization.add_safe_globals (torch >= 2.4).
 * The dangerous list is matched against every attribute of a dotted name,
 * as Python resolves names (STACK_GLOBAL 'torch' 'os.system' is
 * os.system); tshape(1) SCAN lists it.
 */

/* Classes of globals and findings, in increasing order of concern. */
typedef enum ts_scan_class {
    TS_SCAN_NONE = 0,        /* verdicts only: nothing imported */
    TS_SCAN_TENSOR = 1,      /* tensor rebuild functions, storages, dtypes */
    TS_SCAN_DATA = 2,        /* plain data: builtins containers, collections,
                                NumPy arrays and scalars, datetime, ... */
    TS_SCAN_UNKNOWN = 3,     /* imported by the loader, not known to run code,
                                not known to be data (a pickled class) */
    TS_SCAN_DANGEROUS = 4    /* runs code or touches the system */
} ts_scan_class;

/* "none", "tensor", "data", "unknown", "dangerous"; "unknown" for values
 * outside the enum too. Never NULL. */
TS_API const char *ts_scan_class_name(ts_scan_class c);

/* One global of a pickle (duplicates within a pickle are counted, not
 * repeated). Strings are owned by the scan. */
typedef struct ts_scan_global {
    size_t file;             /* index of its file (ts_scan_file_at) */
    const char *pickle;      /* the pickle: "archive/data.pkl", "object
                                pickle", "archive/data.pkl > bytes at byte
                                120" */
    int64_t offset;          /* byte offset of the opcode in that pickle */
    int64_t file_offset;     /* the same in the file, or -1 (an inflated or
                                nested pickle) */
    const char *opcode;      /* "GLOBAL", "STACK_GLOBAL", "INST" */
    const char *module;      /* as written (bytes that are not printable
                                UTF-8 as \xNN) */
    const char *name;
    uint64_t count;          /* times the pickle names it */
    ts_scan_class cls;
    const char *what;        /* "run a shell command", "a tensor rebuild
                                function", ... */
    int torch_1_13;          /* 1: torch 1.13's weights_only allowlist has it */
    int torch_2_4;           /* 1: torch 2.4's has it */
} ts_scan_global;

typedef enum ts_scan_finding_kind {
    TS_SCAN_FINDING_ZIP = 1,        /* a zip differential */
    TS_SCAN_FINDING_PICKLE = 2,     /* a pickle structure (a call of a call's
                                       result, BUILD on a global) or a
                                       pickle tshape could not read whole */
    TS_SCAN_FINDING_KERAS = 3,      /* a Lambda layer or a custom object */
    TS_SCAN_FINDING_NOTE = 4        /* for information (class TS_SCAN_NONE) */
} ts_scan_finding_kind;

typedef struct ts_scan_finding {
    size_t file;
    ts_scan_finding_kind kind;
    ts_scan_class cls;       /* how it counts in the verdict */
    const char *where;       /* member, pickle or layer, or NULL */
    int64_t offset;          /* byte offset in the file, or -1 */
    const char *message;     /* one line */
} ts_scan_finding;

/* What torch.load(f, weights_only=True) would do. */
typedef enum ts_scan_wo {
    TS_SCAN_WO_NA = 0,       /* not a file torch.load reads (npy, keras) */
    TS_SCAN_WO_ACCEPTED = 1,
    TS_SCAN_WO_ALLOWLIST = 2,/* accepted once the globals of safe_globals are
                                passed to add_safe_globals (torch >= 2.4) */
    TS_SCAN_WO_REFUSED = 3,  /* refused whatever is allowlisted (an opcode
                                or construct it does not run, a dangerous
                                global, not a torch.save file) */
    TS_SCAN_WO_JIT = 4       /* a TorchScript archive: torch.load hands it to
                                torch.jit.load, which weights_only does not
                                restrict before torch 2.6 (CVE-2025-32434) */
} ts_scan_wo;

/* The kind's word as `tshape --json scan` writes it: "zip", "pickle",
 * "keras", "note"; "unknown" outside the enum. Never NULL. */
TS_API const char *ts_scan_finding_kind_name(ts_scan_finding_kind k);

/* "n/a", "accepted", "allowlist", "refused", "torch.jit.load"; "unknown"
 * outside the enum. Never NULL. */
TS_API const char *ts_scan_wo_name(ts_scan_wo w);

/* The verdict on one file. Strings are owned by the scan. */
typedef struct ts_scan_file {
    const char *path;
    const char *container;   /* what the content is: "torch.save zip",
                                "torch.save legacy", "TorchScript", "pickle",
                                "joblib", "npy", "npz", "keras", "hdf5",
                                "zip", "safetensors", "gguf", "onnx",
                                "other" */
    ts_scan_class verdict;   /* the worst class of its globals and findings */
    ts_status status;        /* TS_OK, or why it could not be scanned whole
                                (what was read before is reported) */
    const char *error;       /* the message then, else NULL */
    size_t first_global, nglobals;   /* its globals: ts_scan_global_at */
    size_t first_finding, nfindings; /* its findings: ts_scan_finding_at */
    size_t npickles;         /* pickles read */
    ts_scan_wo torch_1_13, torch_2_4;
    const char *why_1_13;    /* the reason when not accepted, else NULL */
    const char *why_2_4;
    const char *safe_globals;/* torch_2_4 TS_SCAN_WO_ALLOWLIST: the globals to
                                allowlist, "module.name" joined by ", " */
} ts_scan_file;

typedef struct ts_scan ts_scan;

/*
 * Scans `path` (NUL-terminated): a regular file, or a folder and its
 * subfolders (at most 32 levels; every regular file, in byte order of the
 * paths; names starting with '.' are skipped, as for models: .git), or a
 * URL (ts_is_url): a file, read by range requests for what the scan reads
 * (zip directories and pickles; other kinds whole, within the default fetch
 * budget), or a model (ts_model_path: an index, a Hub repository), whose
 * files are scanned.
 * A file that cannot be read or scanned whole is not a failure: its
 * ts_scan_file says so (status, error) and keeps what was found before.
 * Work and memory are bounded by what the pickles hold, never by the size
 * of tensor data (storages are never read).
 *   out   receives a new ts_scan, NULL on failure; close it with
 *         ts_scan_close
 * Errors: TS_ERR_IO (path or a folder unreadable, with strerror text),
 * TS_ERR_NOMEM, TS_ERR_LIMIT (more than 16,777,216 files), and for a model
 * URL those of ts_model_open.
 */
TS_API ts_status ts_scan_open(const char *path, ts_scan **out, ts_error *err);

/* Receives file i of scan s as soon as it is scanned (ts_scan_open_each);
 * returns 0 to go on, anything else to stop. */
typedef int (*ts_scan_each_fn)(void *user, const ts_scan *s, size_t i);

/*
 * ts_scan_open, calling each(user, s, i) on the calling thread for every
 * file i (0, 1, ... in path order, as ts_scan_file_at numbers them) as soon
 * as the files up to it are scanned, while the library's threads go on
 * with the files after it: a caller can print a folder's results as they
 * come instead of after the last file (tshape scan does). During the call
 * s holds files 0..i, their globals and findings, exactly as the finished
 * scan will (ts_scan_file_count(s) is i + 1; the verdict and error count
 * are those of these files). The records ts_scan_file_at, ts_scan_global_at
 * and ts_scan_finding_at return may move after the call (later files are
 * added); their strings stay valid until ts_scan_close. each must not
 * close s. each may be NULL (then this is ts_scan_open).
 * Errors: those of ts_scan_open, and TS_ERR_CANCELED when each returned
 * non-zero (no scan then: *out is NULL, and no file after i was reported).
 */
TS_API ts_status ts_scan_open_each(const char *path, ts_scan_each_fn each, void *user,
                                   ts_scan **out, ts_error *err);

/* Scans an image in memory as the file `name` (NUL-terminated, used in
 * reports; may be NULL: "-"): data (len bytes; NULL only when len is 0) is
 * borrowed for the call only. Errors: TS_ERR_NOMEM. */
TS_API ts_status ts_scan_open_memory(const void *data, size_t len, const char *name,
                                     ts_scan **out, ts_error *err);

/* Frees the scan. Accepts NULL. */
TS_API void ts_scan_close(ts_scan *s);

/* The worst verdict of its files (TS_SCAN_NONE for NULL or no files), and
 * how many files could not be scanned whole (0 for NULL). tshape scan exits
 * 2 when there is such a file, else 1 when the verdict is
 * TS_SCAN_UNKNOWN or TS_SCAN_DANGEROUS, else 0. */
TS_API ts_scan_class ts_scan_verdict(const ts_scan *s);
TS_API size_t ts_scan_error_count(const ts_scan *s);

/* Files, globals and findings in order (files in path order, each file's
 * records together); counts 0 and NULL for NULL or i out of range. */
TS_API size_t ts_scan_file_count(const ts_scan *s);
TS_API const ts_scan_file *ts_scan_file_at(const ts_scan *s, size_t i);
TS_API size_t ts_scan_global_count(const ts_scan *s);
TS_API const ts_scan_global *ts_scan_global_at(const ts_scan *s, size_t i);
TS_API size_t ts_scan_finding_count(const ts_scan *s);
TS_API const ts_scan_finding *ts_scan_finding_at(const ts_scan *s, size_t i);

/* ------------------------------------------------------------------------ */
/* Values: decoding and statistics of the stored data (src/values)           */
/* ------------------------------------------------------------------------ */

/*
 * Unlike everything above, these functions read an array's data, not only
 * its header. The data is read from the file's map (ts_file_open) or image
 * (ts_file_open_memory): at data_offset for stored data (for ONNX external
 * data, in the side file: mapped once per file on first use, opened without
 * following a symbolic link), through zlib for a
 * deflated .npz member (streamed through a fixed 256 KiB buffer, never
 * inflated whole), for an ONNX initializer whose values are in
 * TensorProto's typed fields (float_data, int32_data, int64_data,
 * double_data, uint64_data: packed or not, in any number of pieces; float16,
 * bfloat16 and float8 as their bits in int32_data, as onnx.proto says) by
 * decoding the entries through the same fixed buffer (never trusting the
 * entry count: a field short of values is TS_ERR_TRUNCATED), for an HDF5
 * dataset that is not one stored run (chunked, gzip/shuffle-compressed,
 * compact, never written) through libhdf5 by hyperslabs of whole rows into
 * the same buffer (libhdf5 is not thread-safe: read HDF5 arrays from one
 * thread at a time), and for a view
 * (strides, storage_offset; PyTorch
 * tensors sharing a storage, channels_last, slices with steps) element by
 * element of the view from its storage's start, never the whole storage. Byte order is honoured
 * ('>' data is swapped), Fortran order and strides are walked.
 *
 * Decodable dtypes: bool, int8..int64, uint8..uint64, float16, bfloat16,
 * float32, float64, float8_e4m3fn, float8_e5m2, float8_e4m3fnuz,
 * float8_e5m2fnuz, float8_e8m0fnu, complex64, complex128, and the GGUF
 * block types q4_0, q4_1, q5_0, q5_1, q8_0, q2_k, q3_k, q4_k, q5_k, q6_k,
 * q8_k, tq1_0, tq2_0, iq4_nl, iq4_xs, dequantized to float32 exactly as
 * ggml's dequantize_row_* (ggml-quants.c) computes them, and q8_1 (which
 * ggml only quantizes) as d * qs, then widened to double. Conversions to
 * double are exact, but for float128 and complex256 (NumPy's names for the
 * C long double of the machine that wrote them, in 16 bytes: read, as NumPy
 * does, as this machine's long double when that is x87 80-bit extended
 * precision (x86-64) or IEEE binary128 (aarch64 and others), else
 * TS_ERR_DTYPE), whose values are rounded to the nearest double (beyond
 * float64's range: +-Inf, as NumPy's astype(np.float64)). Any other dtype
 * (float96, float6/4, datetime,
 * strings, structured, the GGUF types whose decoding needs ggml's large grid
 * tables: iq2_xxs, iq2_xs, iq2_s, iq3_xxs, iq3_s, iq1_s, iq1_m, and newer
 * ones such as mxfp4) is TS_ERR_DTYPE naming the array and the dtype.
 *
 * Element order: "flat index" i is the position in C (row-major) order of
 * a->shape, as NumPy's a.flat, whatever the storage order. GGUF arrays
 * follow the NumPy-order shape (opened without gguf_stored_order).
 *
 * A file that shrinks while its data is read gives TS_ERR_IO instead of
 * SIGBUS (as ts_file_open; the same handler guards the reading threads).
 * Every message starts with "array 'NAME': ".
 */

/* What the values of an array are, for printing and for ts_stats. */
typedef enum ts_value_kind {
    TS_VALUE_NONE = 0,       /* not decodable (see above) */
    TS_VALUE_BOOL = 1,
    TS_VALUE_INT = 2,        /* int8..int64: exact as int64 */
    TS_VALUE_UINT = 3,       /* uint8..uint64: exact as uint64 */
    TS_VALUE_FLOAT = 4,      /* float16/32/64, bfloat16, float8, GGUF blocks */
    TS_VALUE_COMPLEX = 5     /* complex64/128 */
} ts_value_kind;

/* The kind of a->dtype (for TS_DTYPE_QUANTIZED: of its GGUF block type
 * a->dtype_name); TS_VALUE_NONE when the values cannot be decoded. */
TS_API ts_value_kind ts_array_value_kind(const ts_array *a);

/*
 * Decodes `count` elements of array `a` of file `f` starting at flat index
 * `start` into `out`, converted to `as`:
 *   TS_DTYPE_FLOAT64     double[count]; real arrays (not complex)
 *   TS_DTYPE_INT64       int64_t[count]; bool and signed integer arrays
 *   TS_DTYPE_UINT64      uint64_t[count]; bool and unsigned integer arrays
 *   TS_DTYPE_COMPLEX128  double[2 * count], (re, im) pairs; any decodable
 *                        array (imaginary part 0 for real ones)
 * bool reads as 0/1 (any nonzero byte is true, as NumPy's view of it).
 * Memory: none beyond a fixed buffer (Fortran-order deflated members are
 * inflated from their start on every call).
 * Errors: TS_ERR_DTYPE (not decodable, or `as` does not fit the kind),
 * TS_ERR_INDEX (start < 0, count < 0 or start + count > a->size),
 * TS_ERR_UNSUPPORTED (no readable data: data_offset -1 without a stream or
 * storage record, MXNet sparse storage, a non-contiguous view of a deflated
 * storage, ONNX external data of a model opened from memory without a
 * path), TS_ERR_LAYOUT (negative strides),
 * TS_ERR_TRUNCATED (a view or data reaching past its storage or the file),
 * TS_ERR_FORMAT (a deflate stream that fails to inflate, or, when a call
 * inflates a whole member, whose size or CRC-32 differs from the zip
 * directory's), TS_ERR_IO (file shrank; an ONNX side file that cannot be
 * opened or mapped), TS_ERR_NOMEM; TS_ERR_INVALID_ARG
 * (the argument rule: f or a NULL, out NULL with count > 0, `as` not one of
 * the four types above).
 */
TS_API ts_status ts_array_read(const ts_file *f, const ts_array *a, int64_t start,
                               int64_t count, ts_dtype as, void *out, ts_error *err);

/*
 * Copies `count` elements of array `a` of file `f`, starting at flat index
 * `start` (C order, as ts_array_read), into `out` as the bytes they are
 * stored as: the dtype's own encoding and byte order (a->byteorder), not
 * converted, so a NumPy array of dtype a->descr over them is bit for bit
 * what numpy.load or torch.load gives (NaN payloads, float16, bfloat16 and
 * float8 bits, strings, datetimes, structured records included). Wherever
 * the data is (stored, in a deflated .npz or PyTorch zip member, an ONNX
 * typed field or external data, an HDF5 dataset read through libhdf5), in
 * whatever storage order or view (Fortran order, PyTorch strides), out
 * receives the elements in flat C order: count * a->itemsize bytes. GGUF
 * block types are copied as whole blocks: start and count must be
 * multiples of a->block_size, and out receives count / block_size *
 * block_bytes bytes, the blocks as stored. Memory: as ts_array_read.
 * Errors: TS_ERR_DTYPE (elements that are not whole bytes: int4, float4,
 * float6; object arrays; itemsize 0), TS_ERR_INDEX (the range, or block
 * types: a range that is not whole blocks), and the other errors of
 * ts_array_read; every message starts with "array 'NAME': ".
 */
TS_API ts_status ts_array_read_raw(const ts_file *f, const ts_array *a, int64_t start,
                                   int64_t count, void *out, ts_error *err);

/*
 * Statistics of all elements of an array, in one pass over its data.
 * Reference: NumPy on a.astype(np.float64) (for complex, on np.abs(a)):
 *   count    a->size
 *   min, max smallest and largest value, NaN ignored (np.nanmin/np.nanmax;
 *            +-Inf included); NaN when no element is a number (count 0 or
 *            all NaN). Bool: 0/1; complex: of the magnitude |z| = hypot.
 *   imin, imax  TS_VALUE_INT: the exact extremes (int64); else 0
 *   umin, umax  TS_VALUE_UINT and TS_VALUE_BOOL: the exact extremes
 *            (uint64); else 0
 *   mean, std  over the `finite` elements only (NaN and +-Inf left out, so
 *            one Inf does not hide the rest), population std (ddof 0, as
 *            np.std); NaN when finite is 0. Integer and bool means come from
 *            an exact 128-bit sum (NumPy's float64 sum of int64 values near
 *            2^63 is not exact; ours is). Otherwise computed in float64 with
 *            per-block two-pass sums merged by Chan's formula under
 *            compensated summation: within about 1e-14 relative of NumPy's
 *            float64 result even on 10^9 elements.
 *   absmax   max |x| over non-NaN elements (Inf if any is infinite); NaN as
 *            min. Complex: the largest magnitude.
 *   finite   elements neither NaN nor +-Inf
 *   zeros    elements equal to 0 (-0.0 included; complex: both parts 0)
 *   nan      NaN elements (complex: a NaN real or imaginary part)
 *   posinf, neginf  +Inf and -Inf elements (complex: an infinite magnitude
 *            without NaN part counts as posinf)
 *   ntrue    bool: number of true elements; else 0
 *   capped   1 when ts_stats_options.max_bytes stopped the reading before
 *            the array's end (count is then the elements read, below
 *            a->size), else 0
 * MXNet row_sparse/csr arrays count their implicit zeros (count is the
 * dense size). Integer and bool kinds have finite == count.
 */
typedef struct ts_stats {
    ts_value_kind kind;
    int64_t count;
    double min, max;
    int64_t imin, imax;
    uint64_t umin, umax;
    double mean, std;
    double absmax;
    int64_t finite, zeros, nan, posinf, neginf, ntrue;
    int capped;
} ts_stats;

/*
 * Options of ts_array_stats: an option struct that grows, by the rule of
 * ts_open_options (initialise with TS_STATS_OPTIONS_INIT, then set what you
 * need; struct_size 0 or too small is TS_ERR_INVALID_ARG, unknown nonzero
 * bytes beyond this version's struct TS_ERR_UNSUPPORTED). NULL: defaults.
 */
typedef struct ts_stats_options {
    size_t struct_size;          /* sizeof(ts_stats_options) */
    int nthreads;                /* >= 0. 0: one per online CPU; 1: the calling
                                    thread only. Data that is one contiguous
                                    stored run of at least 4 MiB is split in
                                    nthreads chunks; views and deflated
                                    members are read by the calling thread */
    /* Called now and then (about every 16 MiB) from the calling thread with
     * the bytes of this array done so far and in all; may be NULL. */
    void (*progress)(void *ctx, int64_t done, int64_t total);
    void *progress_ctx;
    /* >= 0. 0: every element. Else at most this many bytes of the array's
     * data are read: its first max_bytes / itemsize elements in the order
     * the file stores them (flat C order; F order for a Fortran-order
     * array; quantized types: whole blocks; at least one element or block),
     * and the statistics are those of that part: out->count is then below
     * a->size (MXNet sparse arrays: of the stored values, the implicit zeros
     * not counted). For a first look at arrays too large to read whole. */
    int64_t max_bytes;
} ts_stats_options;

/* Initialiser of a ts_stats_options with every option at its default. */
#define TS_STATS_OPTIONS_INIT {sizeof(ts_stats_options), 0, NULL, NULL, 0}

/*
 * Computes *out for array `a` of file `f` (opts may be NULL: defaults).
 * Results do not depend on timing; they may differ in the last bits with
 * nthreads (the chunking changes the summation order).
 * Errors: those of ts_array_read, and for the options TS_ERR_INVALID_ARG
 * (struct_size, nthreads < 0, max_bytes < 0) and TS_ERR_UNSUPPORTED (see
 * above); *out is unspecified on failure.
 */
TS_API ts_status ts_array_stats(const ts_file *f, const ts_array *a,
                                const ts_stats_options *opts, ts_stats *out, ts_error *err);

/*
 * A statistics summary: the model-wide line of `tshape stats --summary`,
 * added up over arrays one ts_stats at a time, so that C and Python users
 * get the CLI's answer:
 *   arrays       arrays added (ts_stats_summary_add)
 *   elements     the sum of their counts
 *   nan, posinf, neginf  the sums of their NaN, +Inf and -Inf counts
 *   failed       arrays whose values could not be read
 *                (ts_stats_summary_fail)
 *   absmax       the largest absmax of the arrays (NaN ignored); NaN when
 *                none has one
 *   capped       arrays added whose statistics are of their first elements
 *                only (ts_stats.capped: ts_stats_options.max_bytes)
 *   nonfinite    arrays with at least one NaN or infinity, each named by
 *                ts_stats_summary_nonfinite_at, in the order added: "NAME",
 *                with the flag TS_STATS_SUMMARY_FILES "FILE:NAME", and
 *                "FILE" for an array without a name (a .npy file)
 * The sums stop at INT64_MAX instead of wrapping. Memory: the names of the
 * arrays with non-finite values.
 */
typedef struct ts_stats_summary ts_stats_summary;

typedef struct ts_stats_totals {
    int64_t arrays, elements, nan, posinf, neginf, failed;
    double absmax;
    size_t nonfinite;
    int64_t capped;
} ts_stats_totals;

/* ts_stats_summary_new flags: name arrays "FILE:NAME" (several files). */
#define TS_STATS_SUMMARY_FILES 0x1u

/* A new empty summary (free it with ts_stats_summary_free). Errors:
 * TS_ERR_NOMEM; TS_ERR_INVALID_ARG (also: unknown flag bits). */
TS_API ts_status ts_stats_summary_new(unsigned flags, ts_stats_summary **out, ts_error *err);

/* Frees the summary and its names. Accepts NULL. */
TS_API void ts_stats_summary_free(ts_stats_summary *s);

/* Adds the statistics st of the array `name` of `file` (both
 * NUL-terminated; "" for an array without a name). Errors: TS_ERR_NOMEM
 * (nothing added). */
TS_API ts_status ts_stats_summary_add(ts_stats_summary *s, const char *file, const char *name,
                                      const ts_stats *st, ts_error *err);

/* Counts an array whose statistics could not be computed. Accepts NULL. */
TS_API void ts_stats_summary_fail(ts_stats_summary *s);

/* The totals (NULL for NULL), owned by the summary; the i-th array with a
 * non-finite value (NULL when i >= nonfinite or s is NULL). */
TS_API const ts_stats_totals *ts_stats_summary_totals(const ts_stats_summary *s);
TS_API const char *ts_stats_summary_nonfinite_at(const ts_stats_summary *s, size_t i);

/*
 * Comparison of the values of two arrays of the same shape, element by
 * element, by the rule of numpy.isclose (numpy/_core/numeric.py), with b as
 * the reference:
 *     close(x, y) = |x - y| <= atol + rtol * |y|  and  y finite
 *                   or  x == y                 (so +Inf == +Inf, 0 == -0)
 *                   or  equal_nan and x, y both NaN
 * Values are compared as NumPy compares a.astype(float64) and
 * b.astype(float64) (complex: complex128, |z| = hypot, NaN when a part is
 * NaN, finite when both parts are), with one deliberate difference: when
 * both arrays are of integer or bool kinds (int8..int64, uint8..uint64,
 * bool, in any mix) x == y and |x - y| are exact (NumPy rounds int64 values
 * beyond 2^53 to float64 first); the bound atol + rtol * |y| is computed in
 * float64 (|y| rounded to float64, as NumPy) and compared exactly with the
 * integer |x - y|. A real array compared with a complex one is complex
 * with imaginary part 0; other mixes of dtypes (float16 with int32,
 * float32 with float64, a GGUF block type with float32) compare in float64.
 *
 * Results (ts_compare):
 *   kind       how values were compared: TS_VALUE_INT (exact integers, any
 *              mix of integer and bool kinds), TS_VALUE_FLOAT (float64) or
 *              TS_VALUE_COMPLEX (complex128)
 *   count      elements compared (the size of the shape)
 *   notclose   elements for which close() is false
 *   first      flat index (C order, as NumPy's a.flat; see ts_unravel_index)
 *              of the first element not close, -1 when all are close
 *   max_abs    the largest |x - y| (float64), as NumPy's
 *              np.max(np.abs(a - b)): +Inf when one side is infinite and the
 *              other not; NaN when some pair has a NaN (np.max propagates
 *              it), except pairs of two NaN that equal_nan makes close,
 *              which count 0 as numpy.testing.assert_allclose(equal_nan=True)
 *              leaves them out; pairs with x == y (the same infinity, 0 and
 *              -0) count 0. 0 when there are no elements.
 *   max_rel    the largest |x - y| / |y| over the same pairs, as NumPy's
 *              np.max(np.abs(a - b) / np.abs(b)): +Inf where y is 0 and x is
 *              not (NumPy's division by 0); +Inf where y is infinite and x is
 *              not the same infinity (deliberately: NumPy's inf / inf gives a
 *              NaN neither value holds); NaN as max_abs is; x == y counts 0.
 *   nan_a, nan_b  NaN elements of a and of b (complex: a NaN part)
 */
typedef struct ts_compare {
    ts_value_kind kind;
    int64_t count;
    int64_t notclose;
    int64_t first;
    double max_abs, max_rel;
    int64_t nan_a, nan_b;
} ts_compare;

/*
 * Options of ts_array_compare: an option struct that grows, by the rule of
 * ts_open_options, except that the first version's tolerances default to
 * NumPy's, not 0: initialise with TS_COMPARE_OPTIONS_INIT (rtol 1e-5, atol
 * 1e-8, NaN not equal, as numpy.isclose's defaults), then set what you
 * need. struct_size 0 or too small is TS_ERR_INVALID_ARG, unknown nonzero
 * bytes beyond this version's struct TS_ERR_UNSUPPORTED. NULL: defaults.
 */
typedef struct ts_compare_options {
    size_t struct_size;          /* sizeof(ts_compare_options) */
    double rtol;                 /* relative tolerance, >= 0 and finite */
    double atol;                 /* absolute tolerance, >= 0 and finite */
    int equal_nan;               /* 0 or 1: NaN is close to NaN */
    int nthreads;                /* >= 0. 0: one per online CPU; 1: the calling
                                    thread only. Only two arrays stored as one
                                    contiguous C-order run each, of one native
                                    dtype, at least 4 MiB, are split in
                                    nthreads chunks */
    /* Called now and then (about every 16 MiB) from the calling thread with
     * the bytes of both arrays done so far and in all; may be NULL. */
    void (*progress)(void *ctx, int64_t done, int64_t total);
    void *progress_ctx;
} ts_compare_options;

/* Initialiser of a ts_compare_options with every option at its default. */
#define TS_COMPARE_OPTIONS_INIT {sizeof(ts_compare_options), 1e-5, 1e-8, 0, 0, NULL, NULL}

/*
 * Compares array `a` of file `fa` with array `b` of file `fb` (fa and fb
 * may be the same file) and fills *out (see ts_compare above); opts may be
 * NULL (defaults). One pass over both arrays: each is read in flat C order
 * in chunks of at most 32768 elements into buffers of fixed size (about 1
 * MiB in all), wherever and however it is stored (as ts_array_read), so
 * memory does not grow with the arrays. Two native float32 or float64
 * arrays of one dtype stored contiguously in C order are compared in place
 * in their maps, on nthreads threads. A deflated .npz member stored in
 * Fortran (or another non-C) order is streamed in its storage order, and
 * then both arrays are read in that order (the other one as a permuted
 * view, or as a deflated member of the same order); only when the other
 * array cannot be read so (a deflated member of yet another order, GGUF
 * blocks) is the member read 1 Mi elements per step, each step inflating it
 * from its start (as ts_array_read), so time grows with its size squared.
 * Results do not depend on timing or on nthreads.
 * Errors: TS_ERR_SIZE (the shapes differ: "shapes (2,3) and (3,2) differ"),
 * the errors of ts_array_read for either array (the message starts with
 * "array 'NAME': ", the array that failed, and err->index is 0 for a, 1
 * for b), TS_ERR_NOMEM, and for the
 * options TS_ERR_INVALID_ARG (struct_size, rtol or atol negative or not
 * finite, equal_nan not 0 or 1, nthreads < 0) and TS_ERR_UNSUPPORTED (see
 * above); *out is unspecified on failure.
 */
TS_API ts_status ts_array_compare(const ts_file *fa, const ts_array *a, const ts_file *fb,
                                  const ts_array *b, const ts_compare_options *opts,
                                  ts_compare *out, ts_error *err);

/*
 * Error metrics of array b (a quantized or converted copy) against its
 * reference a (src/values/qdiff.c), after decoding both to float64 (GGUF
 * blocks dequantized as ggml's dequantize_row_* does; see above), over the
 * pairs of elements where neither is NaN:
 *   count     elements compared (the size of the shape)
 *   nan       pairs left out because a or b is NaN
 *   max_abs   max |b - a| (NaN when no pair is left)
 *   rmse      sqrt(sum (b - a)^2 / pairs)
 *   nmse      sum (b - a)^2 / sum a^2: the error's energy over the
 *             reference's, as ollama's model diff and llama.cpp's
 *             quantize-stats report it (0 for two zero arrays, inf when
 *             only a is zero)
 *   cosine    sum a*b / sqrt(sum a^2 * sum b^2) (NaN when either is zero)
 *   sq_err, sq_ref  the sums of (b - a)^2 and a^2, to add up the NMSE of
 *             several arrays (sum of sq_err over sum of sq_ref)
 * Complex arrays are refused (TS_ERR_DTYPE).
 */
typedef struct ts_metrics {
    int64_t count, nan;
    double max_abs, rmse, nmse, cosine;
    double sq_err, sq_ref;
} ts_metrics;

/*
 * Options of ts_array_metrics: an option struct that grows, by the rule of
 * ts_open_options (initialise with TS_METRICS_OPTIONS_INIT).
 *   qk_heads  0, or H > 0: b's rows are a's in the order llama.cpp's
 *             converter writes the query and key projections of llama
 *             models (convert_hf_to_gguf.py, LlamaModel.permute: a viewed as
 *             (H, 2, R/(2H), C), axes 1 and 2 swapped), with H the model's
 *             attention heads for the query and its key/value heads for the
 *             key (ts_gguf_qk_heads gives it); a of shape (R, C) or (R,)
 *             with R a multiple of 2H
 *   nthreads  >= 0: 0 one per online CPU
 *   progress  called now and then from the calling thread with the bytes of
 *             both arrays done so far and in all; NULL
 */
typedef struct ts_metrics_options {
    size_t struct_size;          /* sizeof(ts_metrics_options) */
    int64_t qk_heads;
    int nthreads;
    void (*progress)(void *ctx, int64_t done, int64_t total);
    void *progress_ctx;
} ts_metrics_options;

#define TS_METRICS_OPTIONS_INIT {sizeof(ts_metrics_options), 0, 0, NULL, NULL}

/*
 * Fills *out with the metrics of array b of fb against array a of fa (see
 * ts_metrics; fa and fb may be the same file); opts NULL: defaults. One
 * pass over both, in chunks of rows on nthreads threads where both are
 * stored as is (memory: about 4 MiB per thread); results do not depend on
 * the number of threads. The sums are in float64, with fused multiply-adds
 * (IEEE 754 fusedMultiplyAdd, one rounding each) where the CPU has FMA
 * (x86-64 since 2013, 64-bit ARM): the same bits with or without vector
 * kernels; on a CPU without FMA their last bits can differ.
 * Errors: TS_ERR_SIZE (shapes differ; qk_heads does not divide the rows),
 * TS_ERR_DTYPE (complex, or a dtype that cannot be decoded), the errors of
 * ts_array_read for either array (err->index 0 for a, 1 for b), TS_ERR_NOMEM,
 * TS_ERR_INVALID_ARG (also: opts as for ts_open_options, qk_heads or
 * nthreads negative), TS_ERR_UNSUPPORTED.
 */
TS_API ts_status ts_array_metrics(const ts_file *fa, const ts_array *a, const ts_file *fb,
                                  const ts_array *b, const ts_metrics_options *opts,
                                  ts_metrics *out, ts_error *err);

/* ------------------------------------------------------------------------ */
/* Names and diffs: two models compared tensor by tensor                    */
/* (src/formats/nameselect.c, renames.c, tensordiff.c, diffmeta.c)          */
/* ------------------------------------------------------------------------ */

/*
 * 1 when tensor name `name` (NUL-terminated) is selected by glob lists as
 * `tshape info --filter/--exclude` selects: it matches one of the
 * nfilter patterns of `filter` (or nfilter is 0) and none of the nexclude
 * patterns of `exclude`. Patterns are fnmatch(3) globs (POSIX.1-2008) with
 * no flags: '*' and '?' match '/' and a leading '.', '[...]' is a bracket
 * expression, '\' quotes the next character. 0 when name is NULL or a list
 * is NULL with a nonzero count or holds NULL (the argument rule: this
 * function cannot report an error).
 */
TS_API int ts_name_selected(const char *name, const char *const *filter, size_t nfilter,
                            const char *const *exclude, size_t nexclude);

/* The sides of a comparison, as a bit set (ts_namemap_add_prefix). */
#define TS_SIDE_A 0x1u
#define TS_SIDE_B 0x2u

/*
 * A name mapping: how the tensor names of two sides (A and B of a diff;
 * the input of a conversion, side A) are rewritten before they are
 * matched, as `tshape diff --strip-prefix/--strip-prefix-a/-b/--rename`
 * do. A name is mapped in two steps:
 *   1. the first prefix (in the order added) registered for the name's side
 *      that the name starts with is removed, literally (byte for byte: a
 *      ':' or '.' in it is part of it, no glob); each prefix counts the
 *      names of each side it was removed from (its hits), so a prefix that
 *      matched nothing can be reported (a typo, or the prefix of the other
 *      side);
 *   2. a name of side A that equals the `from` of a rename (after step 1)
 *      becomes its `to`; renames apply to side A only (A's name `from` is
 *      B's `to`). When `from` was added twice, the first rename added wins.
 * Memory: the prefixes and renames are copied into the map. Applying it
 * counts hits, so a map must not be applied from two threads at once.
 */
typedef struct ts_namemap ts_namemap;

/* One prefix of a map and its hits; owned by the map, valid until the next
 * ts_namemap_add_prefix or ts_namemap_free. */
typedef struct ts_namemap_prefix {
    const char *prefix;          /* NUL-terminated, as given */
    unsigned sides;              /* TS_SIDE_A, TS_SIDE_B or both */
    int64_t hits_a, hits_b;      /* names of side A / B it was removed from */
} ts_namemap_prefix;

/* A new empty map (maps every name to itself); free it with
 * ts_namemap_free. Errors: TS_ERR_NOMEM. */
TS_API ts_status ts_namemap_new(ts_namemap **out, ts_error *err);

/* Frees the map and its copies. Accepts NULL. */
TS_API void ts_namemap_free(ts_namemap *m);

/*
 * Adds `prefix` (NUL-terminated, copied; "" matches every name and removes
 * nothing) for the names of `sides` (TS_SIDE_A, TS_SIDE_B or both), after
 * the prefixes added before. Errors: TS_ERR_NOMEM; TS_ERR_INVALID_ARG
 * (also: sides 0 or with other bits).
 */
TS_API ts_status ts_namemap_add_prefix(ts_namemap *m, const char *prefix, unsigned sides,
                                       ts_error *err);

/* Adds the rename of side A's name `from` to `to` (both NUL-terminated,
 * copied). Errors: TS_ERR_NOMEM. */
TS_API ts_status ts_namemap_add_rename(ts_namemap *m, const char *from, const char *to,
                                       ts_error *err);

/*
 * Adds the renames of a rename file's text (`text`, len bytes, need not be
 * NUL-terminated), as `tshape diff --rename MAPFILE` reads it: one rename
 * "A_NAME B_NAME" per line (two words separated by spaces or tabs; LF or
 * CRLF line ends), blank lines and lines whose first non-blank character
 * is '#' skipped. Names cannot hold spaces, tabs or NUL bytes. Errors:
 * TS_ERR_FORMAT ("line N: expected 'A_NAME B_NAME'", N 1-based, also in
 * err->index; err->offset is the line's byte offset; the renames of the
 * lines before it are kept), TS_ERR_NOMEM.
 */
TS_API ts_status ts_namemap_read_renames(ts_namemap *m, const char *text, size_t len,
                                         ts_error *err);

/*
 * The name `name` (NUL-terminated) of side `side` (TS_SIDE_A or TS_SIDE_B)
 * after mapping, by the two steps above, counting the hit of the prefix
 * removed. The result points into `name` (after the prefix) or to a
 * rename's `to` (owned by the map); it is never a new string. NULL when m
 * or name is NULL or side is not exactly one side.
 */
TS_API const char *ts_namemap_apply(ts_namemap *m, unsigned side, const char *name);

/* The prefixes in the order added (0 / NULL for NULL or i out of range). */
TS_API size_t ts_namemap_prefix_count(const ts_namemap *m);
TS_API const ts_namemap_prefix *ts_namemap_prefix_at(const ts_namemap *m, size_t i);

/*
 * A diff: what differs between the tensors (and metadata) of two models
 * A and B (ts_model: files, folders, index files, URLs, of any formats),
 * as `tshape diff A B` reports it; computed here so that C and Python
 * users get the CLI's answers. The rules:
 *   - Selection and names: each side's tensors (ts_model_array_name) are
 *     mapped by opts->names (NULL: as they are); then, when one side is a
 *     GGUF conversion of the other (every member of one model is a GGUF
 *     file and no member of the other is) and opts->gguf_names is 1, the
 *     names of the side that is not GGUF become llama.cpp's
 *     (ts_tensor_name_map TS_NAME_MAP_TO_GGUF; a name no rule matches
 *     stays as it is: ts_diff_gguf_names says whether this applied); then
 *     they are selected by ts_name_selected on the mapped names with
 *     opts->filter/exclude.
 *   - Matching: tensors of the two sides with one mapped name form a pair.
 *     A name that a side holds more than once (the files of a folder
 *     without an index, two names mapped to one) is matched by its first
 *     tensor in model order; the others are listed
 *     (ts_diff_duplicate_at), never compared.
 *   - The single-pair rule: when each side holds exactly one selected
 *     tensor and their names differ, the two are one pair whatever their
 *     names, as `cmp a b` compares two files (two .npy files are named
 *     after their files).
 *   - Across an export (opts->export_names 1): when one side's members
 *     are all ONNX files and the other side has none, a tensor left
 *     without a partner by its name is paired by the PyTorch names the
 *     ONNX side's initializers get from the nodes that read them
 *     (ts_diff_rule ONNX_CONSUMER, ONNX_IDENTITY; an ONNX initializer so
 *     named by several nodes pairs with each), the first such partner not
 *     paired by its own name; BatchNorm tensors without a partner beside
 *     Conv initializers the exporter renamed are explained as folded
 *     (ONNX_FUSED, BN_FOLDED), a num_batches_tracked as not exported
 *     (NOT_EXPORTED), an ONNX Constant node's tensor as an operand
 *     (ONNX_CONSTANT). When
 *     one side is Keras (HDF5, TensorFlow checkpoint or SavedModel, TF.js)
 *     and the other PyTorch or safetensors, a pair whose Keras tensor is a
 *     kernel (ts_diff_rule LAYOUT) of 2 to 5 dims has its layout compared
 *     after the permutation of ts_diff_rule LAYOUT, when that makes the
 *     shapes equal.
 *   - Pairs, in order: A's tensors (first of each name) in A's model
 *     order, each paired with B's tensor of its name (or by the rules
 *     above) or alone (only in A); then B's tensors of names A lacks and
 *     not paired yet, in B's order (only in B).
 *   - Kind of a pair: TS_DIFF_ONLY_A / TS_DIFF_ONLY_B for a tensor alone;
 *     otherwise TS_DIFF_DTYPE when the dtype names (ts_array.dtype_name)
 *     differ, TS_DIFF_SHAPE when the shapes differ (B's taken with the
 *     pair's permutation, ts_diff_pair.perm; or one has no shape at all,
 *     ts_array.null_shape, and the other has), TS_DIFF_DTYPE_SHAPE
 *     for both, else TS_DIFF_EQUAL. ts_diff_compare_values can then make an
 *     equal pair TS_DIFF_VALUES (values not all close, or with error
 *     metrics: not identical) or TS_DIFF_UNREADABLE (its data cannot be
 *     read).
 *   - Values (ts_diff_compare_values): by numpy.isclose's rule
 *     (ts_array_compare), or by error metrics (ts_array_metrics: max abs,
 *     RMSE, NMSE, cosine) for a conversion or a quantization: when the
 *     GGUF names applied, when either tensor is quantized
 *     (TS_DTYPE_QUANTIZED), or always with opts->metrics; complex pairs are
 *     always compared by isclose. The metrics' reference is the side that
 *     is not GGUF (B when A is all GGUF; else A), and across a GGUF
 *     conversion the query and key rows of llama models are taken in the
 *     converter's order (ts_gguf_qk_heads of the GGUF tensor). The pairs
 *     compared by metrics are added up by dtype pair ("REFERENCE_DTYPE ->
 *     OTHER_DTYPE", in the order first met): ts_diff_metrics_group_at.
 *   - Metadata: the metadata entries of every member of each model (those
 *     opened with want_metadata: safetensors __metadata__, GGUF key/values,
 *     the values of a PyTorch checkpoint that are not tensors, ONNX graph
 *     facts, HDF5 attributes) form one list per side: a key that every
 *     member holding it holds with one value is one entry labelled with the
 *     key; a key whose value differs between members is one entry per
 *     member, labelled "MEMBER: key" (MEMBER: the member's path from the
 *     model's folder, or from the index's folder, else its file name). The
 *     entries whose value differs between A and B, or that one side lacks,
 *     are the metadata differences (ts_diff_metadata_at): A's in A's order,
 *     then those only in B in B's order. Values are compared as the JSON
 *     text the readers give (ts_file_metadata), byte for byte.
 * Memory: per side, the mapped names and indices of its tensors (about 40
 * bytes each) and its metadata labels; names and values point into the
 * models and the name map, so both models and opts->names must outlive the
 * diff.
 */
typedef struct ts_diff ts_diff;

/* The kinds of pairs (ts_diff_pair.kind), in the order of the totals. */
typedef enum ts_diff_kind {
    TS_DIFF_EQUAL = 0,           /* same dtype and shape (and values close,
                                    when compared) */
    TS_DIFF_ONLY_A = 1,          /* a tensor of A only */
    TS_DIFF_ONLY_B = 2,          /* a tensor of B only */
    TS_DIFF_DTYPE = 3,           /* dtypes differ, shapes equal */
    TS_DIFF_SHAPE = 4,           /* shapes differ, dtypes equal */
    TS_DIFF_DTYPE_SHAPE = 5,     /* both differ */
    TS_DIFF_VALUES = 6,          /* same dtype and shape, values not all close */
    TS_DIFF_UNREADABLE = 7       /* same dtype and shape, values unreadable */
} ts_diff_kind;

/* Number of kinds: valid values are 0..TS_DIFF_KIND_COUNT-1. */
#define TS_DIFF_KIND_COUNT 8

/* The kind's word as `tshape diff --json` writes it: "equal", "only_a",
 * "only_b", "dtype", "shape", "dtype_shape", "values", "unreadable";
 * "unknown" outside the enum. Static text. */
TS_API const char *ts_diff_kind_name(ts_diff_kind kind);

/* A tensor index of a side that has none in a pair. */
#define TS_DIFF_NONE ((size_t)-1)

/*
 * How a pair was made (ts_diff_pair.rule), or, for a tensor alone, the rule
 * that explains why it has no partner (then the pair is "explained": listed,
 * but not counted as a difference). Append-only; numbers never change.
 *   NONE        a tensor alone that no rule explains
 *   NAME        the same name (after opts->names)
 *   SINGLE      the single-pair rule
 *   GGUF        llama.cpp's GGUF names (ts_tensor_name_map)
 *   ONNX_CONSUMER  an ONNX initializer and the PyTorch tensor named after
 *               the node that reads it: torch.onnx.export's TorchScript
 *               exporter names a node by the module path of its scope
 *               ("/layer1/layer1.0/conv1/Conv": torch/csrc/jit/passes/onnx/
 *               naming.cpp, each scope the module's name from its last
 *               non-numeric part, torch/onnx/utils.py
 *               _setup_trace_module_map), so an initializer it renamed
 *               ("onnx::Conv_46") is layer1.0.conv1's: Conv and
 *               ConvTranspose input 1 weight, 2 bias; Gemm 1 weight (stored
 *               transposed when transB is 0), 2 bias; MatMul 1 weight
 *               stored transposed (torch's Linear is x @ W.T, the Transpose
 *               constant-folded); BatchNormalization 1..4 weight, bias,
 *               running_mean, running_var; LayerNormalization,
 *               InstanceNormalization, GroupNormalization 1 weight, 2 bias;
 *               Gather 0 weight (Embedding); PRelu 1 weight; Add bias
 *   ONNX_IDENTITY  a PyTorch tensor the exporter deduplicated: an Identity
 *               node reads the initializer that holds the same values and
 *               outputs the tensor's name (torch.onnx's
 *               _jit_pass_onnx_deduplicate_duplicated_initializers)
 *   ONNX_FUSED  an initializer of a Conv that the exporter fused with the
 *               BatchNorm after it (eval mode, torch's
 *               torch/csrc/jit/passes/onnx/eval_peephole.cpp
 *               fuseConvBatchNorm): paired with the Conv's weight, whose
 *               values it no longer holds; a fused bias the Conv lacked is
 *               alone, explained
 *   BN_FOLDED   a BatchNorm tensor (weight, bias, running_mean,
 *               running_var, num_batches_tracked of a module with
 *               running_mean and running_var) with no partner in an ONNX
 *               model that has fused Conv initializers: explained; the
 *               pair's via names the fused Conv weight that precedes it in
 *               its model's order (the BatchNorm follows its Conv)
 *   NOT_EXPORTED  a num_batches_tracked with no partner in an ONNX model:
 *               the counter of BatchNorm's training, which no ONNX
 *               operator reads (explained)
 *   LAYOUT      a Keras kernel (a name ending in "kernel" or "kernel:N";
 *               Keras 3: "LAYER/vars/0" of a layer named "dense..." or
 *               "conv...", the kernel its first variable) and a PyTorch
 *               weight paired by name (or --rename) whose layouts are a
 *               permutation of each other:
 *               Dense (in, out) vs Linear (out, in), Conv1D (k, in, out) vs
 *               (out, in, k), Conv2D (kh, kw, in, out) vs (out, in, kh, kw),
 *               Conv3D likewise (keras.layers.Conv2D and torch.nn.Conv2d
 *               weight layouts)
 *   ONNX_CONSTANT  a Constant node's tensor of the ONNX model with no
 *               partner: an operand the exporter wrote (LayerNorm's
 *               exponent and epsilon, shapes), not a parameter (explained)
 */
typedef enum ts_diff_rule {
    TS_DIFF_RULE_NONE = 0,
    TS_DIFF_RULE_NAME = 1,
    TS_DIFF_RULE_SINGLE = 2,
    TS_DIFF_RULE_GGUF = 3,
    TS_DIFF_RULE_ONNX_CONSUMER = 4,
    TS_DIFF_RULE_ONNX_IDENTITY = 5,
    TS_DIFF_RULE_ONNX_FUSED = 6,
    TS_DIFF_RULE_BN_FOLDED = 7,
    TS_DIFF_RULE_NOT_EXPORTED = 8,
    TS_DIFF_RULE_LAYOUT = 9,
    TS_DIFF_RULE_ONNX_CONSTANT = 10
} ts_diff_rule;

/* Number of rules: valid values are 0..TS_DIFF_RULE_COUNT-1. */
#define TS_DIFF_RULE_COUNT 11

/* The rule's word as `tshape diff` writes it: "none", "name", "single",
 * "gguf", "onnx_consumer", "onnx_identity", "onnx_fused", "bn_folded",
 * "not_exported", "layout", "onnx_constant"; "unknown" outside the enum.
 * Static text. */
TS_API const char *ts_diff_rule_name(ts_diff_rule rule);

/* What ts_diff_compare_values did with a pair (ts_diff_pair.values). */
typedef enum ts_diff_values_state {
    TS_DIFF_VALUES_NOT_COMPARED = 0,
    TS_DIFF_VALUES_COMPARED = 1, /* ts_diff_pair.compare holds the result */
    TS_DIFF_VALUES_FAILED = 2    /* the data of a side could not be read */
} ts_diff_values_state;

/* One pair; owned by the diff, valid until ts_diff_free. */
typedef struct ts_diff_pair {
    ts_diff_kind kind;
    const char *name;            /* the mapped name the pair was matched by
                                    (A's mapped name, B's for TS_DIFF_ONLY_B) */
    const char *name_b;          /* B's mapped name (== name but for the
                                    single-pair rule), NULL for TS_DIFF_ONLY_A */
    size_t a, b;                 /* the tensors: indices of ts_model_array in
                                    model A and B; TS_DIFF_NONE for a side
                                    without one */
    ts_diff_values_state values;
    ts_compare compare;          /* when values is TS_DIFF_VALUES_COMPARED
                                    and by_metrics is 0 */
    int by_metrics;              /* 1: values compared by error metrics
                                    (ts_array_metrics) into `metrics`, not
                                    by isclose (set with values) */
    unsigned reference;          /* with by_metrics: the metrics' reference
                                    side, TS_SIDE_A or TS_SIDE_B */
    int64_t qk_heads;            /* with by_metrics: the heads by which the
                                    Q/K rows were reordered, or 0 */
    ts_metrics metrics;          /* when values is TS_DIFF_VALUES_COMPARED
                                    and by_metrics is 1: the other side's
                                    tensor against the reference's */
    ts_diff_rule rule;           /* how the pair was made; for a tensor
                                    alone TS_DIFF_RULE_NONE or the rule that
                                    explains it */
    const char *via;             /* the rule's evidence, or NULL: the ONNX
                                    node and input ("/fc/Gemm input 1"), the
                                    Identity node, for BN_FOLDED the fused
                                    Conv weight's name; owned by the models */
    int explained;               /* 1: a tensor alone that `rule` explains
                                    (not counted as a difference) */
    int perm_ndim;               /* 0, or B's ndim when B's layout is a
                                    permutation of A's: */
    int perm[TS_MAX_NDIM];       /* numpy.transpose(b, perm) has A's shape
                                    and, as the rule says, A's values; the
                                    kind compares A with it, and so do the
                                    values (ts_diff_compare_values) */
} ts_diff_pair;

/*
 * The totals of a diff, updated by ts_diff_compare_values.
 *   kinds[k]    pairs of kind k
 *   changed     kinds DTYPE + SHAPE + DTYPE_SHAPE
 *   different   changed + ONLY_A + ONLY_B + VALUES - explained: the pairs
 *               `tshape diff` counts as differences (exit status 1 when
 *               not 0)
 *   unreadable  pairs whose values could not be read, whatever their kind
 *               (a TS_DIFF_DTYPE pair keeps its kind)
 *   metadata_different  metadata differences (ts_diff_metadata_count)
 *   metadata_a, metadata_b  entries of each side's metadata list
 */
typedef struct ts_diff_totals {
    int64_t kinds[TS_DIFF_KIND_COUNT];
    int64_t changed, different, unreadable;
    int64_t metadata_different, metadata_a, metadata_b;
    int64_t explained;           /* tensors alone that a rule explains
                                    (ts_diff_pair.explained): not in
                                    different */
    int64_t rules[TS_DIFF_RULE_COUNT]; /* pairs (and explained tensors) by
                                    rule; rules[TS_DIFF_RULE_NONE]: tensors
                                    alone unexplained */
} ts_diff_totals;

/*
 * Options of ts_diff_new: an option struct that grows, by the rule of
 * ts_open_options (initialise with TS_DIFF_OPTIONS_INIT; struct_size 0 or
 * too small is TS_ERR_INVALID_ARG, unknown nonzero bytes beyond this
 * version's struct TS_ERR_UNSUPPORTED). NULL: defaults (names as they are,
 * every tensor).
 *   names    the name mapping (NULL: none); its hits are counted, so it must
 *            not be shared with another thread during ts_diff_new
 *   filter, nfilter, exclude, nexclude  the selection of ts_name_selected,
 *            on mapped names (arrays of NUL-terminated globs; NULL when the
 *            count is 0)
 *   gguf_names  1 (the default): llama.cpp's names across a GGUF conversion
 *            (see above); 0: names as opts->names leaves them
 *            (`tshape diff --no-name-map`)
 *   metrics  0 (the default): error metrics for conversions and quantized
 *            tensors only; 1: for every pair that is not complex
 *            (`tshape diff --metrics`)
 *   export_names  1 (the default): the exporters' rules across an ONNX
 *            export and a Keras/PyTorch layout (ts_diff_rule ONNX_* and
 *            LAYOUT, see "Across an export" above); 0: names and layouts as
 *            they are (`tshape diff --no-name-map`)
 */
typedef struct ts_diff_options {
    size_t struct_size;          /* sizeof(ts_diff_options) */
    ts_namemap *names;
    const char *const *filter;
    size_t nfilter;
    const char *const *exclude;
    size_t nexclude;
    int gguf_names;              /* 0 or 1 */
    int metrics;                 /* 0 or 1 */
    int export_names;            /* 0 or 1 */
} ts_diff_options;

#define TS_DIFF_OPTIONS_INIT {sizeof(ts_diff_options), NULL, NULL, 0, NULL, 0, 1, 0, 1}

/*
 * Compares the tensors and metadata of models a and b (which may be the
 * same model) by the rules above into a new diff (*out; free it with
 * ts_diff_free). Values are not read: see ts_diff_compare_values.
 * Errors: TS_ERR_NOMEM; TS_ERR_IO (a metadata value that cannot be
 * rendered: the file shrank since it was opened; the message names the key,
 * err->index is the side, 0 for A and 1 for B); TS_ERR_INVALID_ARG (also:
 * opts as above, a glob list NULL with a nonzero count or holding NULL,
 * gguf_names, metrics or export_names not 0 or 1); TS_ERR_UNSUPPORTED.
 */
TS_API ts_status ts_diff_new(const ts_model *a, const ts_model *b, const ts_diff_options *opts,
                             ts_diff **out, ts_error *err);

/* Frees the diff. Accepts NULL. */
TS_API void ts_diff_free(ts_diff *d);

/* Pairs, every kind included (TS_DIFF_EQUAL too), in the order above; 0 /
 * NULL for NULL or i out of range. */
TS_API size_t ts_diff_count(const ts_diff *d);
TS_API const ts_diff_pair *ts_diff_pair_at(const ts_diff *d, size_t i);

/* 1 when the single-pair rule paired the two sides' only tensors (0 for
 * NULL). */
TS_API int ts_diff_single(const ts_diff *d);

/* The totals (NULL for NULL); owned by the diff. */
TS_API const ts_diff_totals *ts_diff_totals_of(const ts_diff *d);

/* 1 when the names of one side were mapped to llama.cpp's GGUF names (one
 * side a GGUF conversion of the other, opts->gguf_names 1); 0 otherwise and
 * for NULL. */
TS_API int ts_diff_gguf_names(const ts_diff *d);

/*
 * Tensors left out of the matching because their side already holds their
 * mapped name: A's in A's order, then B's (0 / NULL for NULL or i out of
 * range). ts_diff_duplicate_at returns the mapped name and, when side is
 * not NULL, stores TS_SIDE_A or TS_SIDE_B there and, when index is not
 * NULL, the tensor's index in its model.
 */
TS_API size_t ts_diff_duplicate_count(const ts_diff *d);
TS_API const char *ts_diff_duplicate_at(const ts_diff *d, size_t i, unsigned *side,
                                        size_t *index);

/*
 * Metadata differences, in the order above (0 for NULL). For the i-th,
 * ts_diff_metadata_at stores its label in *label and the JSON text of each
 * side's value in *a and *b (NULL for the side that lacks the entry) and
 * returns 1; 0 (nothing stored) when d is NULL or i out of range. Any
 * out-pointer may be NULL. The strings are owned by the diff and the
 * models' files.
 */
TS_API size_t ts_diff_metadata_count(const ts_diff *d);
TS_API int ts_diff_metadata_at(const ts_diff *d, size_t i, const char **label, const char **a,
                               const char **b);

/*
 * Compares the values of pair i (ts_array_compare, numpy.isclose's rule,
 * with opts: NULL for its defaults; or ts_array_metrics, by the rule above,
 * with opts' nthreads and progress) when it is a pair of two tensors of
 * one shape (kinds TS_DIFF_EQUAL, TS_DIFF_DTYPE, and a pair compared
 * before); for other pairs it does nothing and returns TS_OK. The pair's
 * values become TS_DIFF_VALUES_COMPARED with the result in its compare (or
 * by_metrics 1 and its metrics), and an equal pair whose values are not all
 * close (metrics: whose max_abs is not 0 or with a NaN pair) becomes
 * TS_DIFF_VALUES.
 * When the data of a side cannot be read the pair's values become
 * TS_DIFF_VALUES_FAILED, an otherwise equal pair becomes
 * TS_DIFF_UNREADABLE (a pair of another dtype keeps its kind), and the
 * error of ts_array_compare (or ts_array_metrics) is returned (err->index
 * 0 for A's tensor, 1 for B's). Comparing a pair again replaces its result;
 * the totals and the metrics groups follow.
 * Errors: those of ts_array_compare and ts_array_metrics;
 * TS_ERR_INVALID_ARG (also: i out of range).
 */
TS_API ts_status ts_diff_compare_values(ts_diff *d, size_t i, const ts_compare_options *opts,
                                        ts_error *err);

/*
 * The error metrics of the pairs compared by metrics so far, added up by
 * dtype pair (`tshape diff --values`'s "metrics by dtype" table):
 *   label      "REFERENCE_DTYPE -> OTHER_DTYPE" (ts_array.dtype_name of the
 *              reference's tensor and of the other's), e.g.
 *              "bfloat16 -> q8_0"
 *   tensors    pairs in the group
 *   count, nan the sums of their ts_metrics count and nan
 *   sq_err, sq_ref  the sums of their ts_metrics sq_err and sq_ref
 *   max_abs    the largest max_abs (NaN when count == nan)
 *   rmse       sqrt(sq_err / (count - nan)) (NaN when count == nan)
 *   nmse       sq_err / sq_ref (0 when both are 0, inf when only sq_ref is)
 *   cosine_min the smallest cosine (NaN ignored; NaN when none)
 * Groups are in the order their first pair was compared. 0 / NULL for NULL
 * or i out of range; a group is owned by the diff and valid until the next
 * ts_diff_compare_values or ts_diff_free.
 */
typedef struct ts_diff_metrics_group {
    const char *label;
    int64_t tensors, count, nan;
    double sq_err, sq_ref;
    double max_abs, rmse, nmse, cosine_min;
} ts_diff_metrics_group;

TS_API size_t ts_diff_metrics_group_count(const ts_diff *d);
TS_API const ts_diff_metrics_group *ts_diff_metrics_group_at(const ts_diff *d, size_t i);

/* ------------------------------------------------------------------------ */
/* Writing: safetensors, .npz and folders of .npy (src/values/write.c)      */
/* ------------------------------------------------------------------------ */

/*
 * ts_write copies arrays of opened files into a new file, or a folder, in
 * one of the formats below, without loss: dtypes are kept bit for bit
 * (float16, bfloat16 and NaN payloads included), big-endian data becomes
 * little-endian, Fortran-order arrays and strided views (PyTorch tensors
 * sharing a storage) become C-order arrays of their own, each written as its
 * own contiguous copy. Data that is stored contiguous, little-endian and in
 * C order is copied byte for byte from the file's map, never decoded; other
 * data is converted in bounded steps.
 *
 * The rules written (the source of each in brackets):
 *   safetensors  [huggingface/safetensors README "Format", tensor.rs]: u64 LE
 *                header length N, then the header: compact JSON, keys in
 *                byte order of the names, "__metadata__" first with string
 *                values ("format": "pt" as transformers' loader requires,
 *                "source_format" and "source_file" when given), padded with
 *                spaces so that 8 + N is a multiple of 8; then the data,
 *                tensors placed by decreasing itemsize and then name, so
 *                each starts at a multiple of its itemsize, offsets
 *                contiguous from 0 with no gap or overlap. dtypes: BOOL,
 *                U8..U64, I8..I64, F16, BF16, F32, F64, F8_E5M2, F8_E4M3
 *                (float8_e4m3fn), F8_E4M3FNUZ, F8_E5M2FNUZ, F8_E8M0, C64
 *                (complex64, safetensors >= 0.7). complex128 and NumPy-only
 *                dtypes (strings, datetime, float128, complex256) are
 *                TS_ERR_DTYPE (a cast to float64 or complex64 converts the
 *                last two).
 *   npy          [numpy/lib/format.py _write_array_header, NumPy 1.24]:
 *                version 1.0 (2.0 when the header needs more than 65535
 *                bytes), the dict {'descr', 'fortran_order': False,
 *                'shape'} as NumPy writes it, with its 21-digit growth
 *                padding, padded with spaces and a '\n' so the data starts
 *                at a multiple of 64: the bytes of np.save. dtypes: bool,
 *                int8..int64, uint8..uint64, float16, float32, float64,
 *                complex64, complex128, float128 and complex256 (their
 *                bytes, as the source holds them); bfloat16 and float8
 *                (which NumPy lacks) are TS_ERR_DTYPE unless cast.
 *   npz          [numpy/lib/npyio.py savez]: a zip of one member "NAME.npy"
 *                per array, in name order, stored (np.savez; written by
 *                tshape: APPNOTE.TXT 6.3 local headers, central directory
 *                and end record, the ZIP64 fields, end record and locator
 *                where a size, offset or count needs them, bit 11 for a
 *                name beyond ASCII) or deflated (np.savez_compressed;
 *                written by libzip, zip64 as libzip needs it).
 *   npy folder   a new folder holding NAME.npy per array: a '/' in NAME makes
 *                subfolders (HDF5 "dense/kernel:0" is dense/kernel:0.npy);
 *                in each part, control (C0, DEL, C1), bidirectional
 *                (U+061C, U+200E, U+200F, U+202A..E, U+2066..9) and line
 *                separator (U+2028, U+2029) characters, a '-' that starts
 *                the part and '%' are written as %XX per UTF-8 byte (RFC
 *                3986 percent-encoding, upper-case); ts_model_open undoes
 *                exactly these escapes when it names the arrays of .npy
 *                files (ts_model_array_name), so a folder read back with
 *                recursive gives every name as it was.
 *
 * Speed: an array copied unchanged (no cast, no byte swap) from one run of
 * a local file is mapped and written from the map in 4 MiB steps (read in
 * 4 MiB pieces where it cannot be mapped), its checksum (and an npz
 * member's CRC-32) taken on the way; an output's blocks are reserved before
 * it is written (Linux fallocate; a full disk fails before anything is
 * written); writeback is started every 32 MiB (Linux's sync_file_range) so
 * the final fsync has little to wait for.
 *
 * Safety: everything is written to temporary files in the target's folder
 * (mkstemp/mkdtemp: ".NAME.tshape-XXXXXX"), flushed with fsync, verified
 * (unless no_verify), then renamed to their names, and the folder is
 * fsync'ed. On any failure (disk full, a file size limit, a read error in a
 * source, a bad tensor, the progress callback asking to stop) every
 * temporary file is removed and nothing at `path` changes.
 */

/* Output formats of ts_write. */
typedef enum ts_write_format {
    TS_WRITE_SAFETENSORS = 0,
    TS_WRITE_NPZ = 1,
    TS_WRITE_NPY_DIR = 2
} ts_write_format;

/* One array to write: `array` (one of `file`'s arrays, both borrowed for
 * the call) under `name` (NUL-terminated, valid UTF-8). */
typedef struct ts_write_tensor {
    const char *name;
    const ts_file *file;
    const ts_array *array;
} ts_write_tensor;

/*
 * Options of ts_write: an option struct that grows, by the rule of
 * ts_open_options (initialise with TS_WRITE_OPTIONS_INIT). NULL: defaults.
 *   format          TS_WRITE_SAFETENSORS (0), TS_WRITE_NPZ, TS_WRITE_NPY_DIR
 *   overwrite       0: an existing `path` is TS_ERR_IO (EEXIST), checked
 *                   again atomically when the file is put in place (link(2));
 *                   1: it is replaced (a folder: the old one is removed
 *                   after the new one is in place)
 *   cast            0: dtypes kept; 1: arrays of the kind of cast_dtype are
 *                   converted to it: a floating cast_dtype (float16,
 *                   bfloat16, float32, float64) converts every floating array
 *                   (float16/32/64, bfloat16, float8, float128),
 *                   complex64/complex128 every complex array (complex256
 *                   too); others keep their dtype. Rounding
 *                   is to nearest, ties to even (IEEE 754 roundTiesToEven)
 *                   from the exact value, overflow gives +-Inf, NaN stays
 *                   NaN (its payload is not kept)
 *   dequantize      0: GGUF block-quantized arrays are TS_ERR_DTYPE; 1: they
 *                   are decoded as ggml's dequantize_row_* and written as
 *                   dequantize_dtype: TS_DTYPE_FLOAT32 (0) or TS_DTYPE_FLOAT16
 *   compress        npz: 0 stored members, 1 deflate (zlib level 6)
 *   no_verify       0: after writing, every output file is reopened with
 *                   ts_file_open and each array's name, dtype, shape and the
 *                   XXH3-64 checksum (xxHash) of its data bytes are
 *                   compared with what was written, and a stored .npz's
 *                   CRC-32 fields (local header and directory entry of
 *                   each member) with the CRC-32 of the bytes written;
 *                   1: skipped
 *   max_shard_size  safetensors: 0 for one file; else bytes of data per
 *                   file: arrays in name order go to STEM-0000K-of-0000M
 *                   .safetensors beside `path` (STEM: path's name without
 *                   ".safetensors"), a new file when the next array would
 *                   pass the size (an array larger than it gets a file of
 *                   its own), and STEM.safetensors.index.json holds
 *                   {"metadata": {"total_size": DATA BYTES}, "weight_map":
 *                   {NAME: FILE}} as Hugging Face's save_pretrained writes
 *                   it; one file when everything fits in one
 *   source_format, source_file  recorded in safetensors' __metadata__ when
 *                   not NULL (NUL-terminated)
 *   progress        called after each piece of data (at most about every 8
 *                   MiB) with the data bytes done and in all; returns 0 to
 *                   go on, nonzero to stop with TS_ERR_CANCELED. May be NULL.
 *   copy_files, copy_count  safetensors and npz: files (paths,
 *                   NUL-terminated) copied byte for byte into the folder of
 *                   `path` under their own names, with the arrays: written
 *                   under temporary names, verified (XXH3-64 of the bytes
 *                   read back), renamed into place with the rest, never
 *                   replacing a file without overwrite, all or nothing, as
 *                   save_pretrained leaves config.json beside the weights.
 *                   A file that already is its target (same device and
 *                   inode) is left as it is. Not counted in
 *                   ts_write_result's files and file_bytes. NULL/0: none.
 */
typedef struct ts_write_options {
    size_t struct_size;          /* sizeof(ts_write_options) */
    ts_write_format format;
    int overwrite;
    int cast;
    ts_dtype cast_dtype;
    int dequantize;
    ts_dtype dequantize_dtype;
    int compress;
    int no_verify;
    int64_t max_shard_size;
    const char *source_format;
    const char *source_file;
    int (*progress)(void *ctx, int64_t done, int64_t total);
    void *progress_ctx;
    const char *const *copy_files;
    size_t copy_count;
} ts_write_options;

/* Initialiser of a ts_write_options with every option at its default. */
#define TS_WRITE_OPTIONS_INIT                                                  \
    {sizeof(ts_write_options), TS_WRITE_SAFETENSORS, 0, 0, TS_DTYPE_FLOAT32, 0, \
     TS_DTYPE_FLOAT32, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, 0}

/* What ts_write wrote (a fixed layout: it never grows). */
typedef struct ts_write_result {
    size_t tensors;              /* arrays written */
    int64_t data_bytes;          /* bytes of array data */
    int64_t file_bytes;          /* bytes of all files written (headers too) */
    size_t files;                /* files written (shards, index, .npy) */
} ts_write_result;

/*
 * Writes the n arrays of `tensors` to `path` (NUL-terminated: the file, or
 * for TS_WRITE_NPY_DIR the folder, to create), by the rules above.
 *   out  receives the counts on success (may be NULL)
 * A file of the sources is never written to: the caller makes sure `path`
 * is none of them (tshape convert compares st_dev/st_ino).
 * Errors: TS_ERR_INVALID_ARG (the argument rule: path NULL, tensors NULL
 * with n > 0, a NULL name/file/array; opts as for ts_open_options, a flag
 * not 0/1, format, cast_dtype or dequantize_dtype not one of those listed,
 * max_shard_size < 0 or given for another format, copy_files NULL with
 * copy_count > 0 or holding NULL, or given for npy folders), TS_ERR_UNSUPPORTED (opts
 * sets fields this library does not know), TS_ERR_VALUE (two arrays with
 * one name; a name that is empty, not valid UTF-8, or, for npz and npy
 * folders, has an empty or ".." part (npy folders: or a "." part), which
 * would leave the folder), TS_ERR_DTYPE (a dtype the
 * format cannot hold, naming the array and saying what --cast or
 * --dequantize would do), every error of ts_array_read (a source that
 * cannot be read, naming the array), TS_ERR_IO (the folder of `path` does
 * not exist or is not a folder, named; create/write/fsync/rename
 * failed, with strerror text: ENOSPC, EFBIG beyond RLIMIT_FSIZE (the caller
 * ignores SIGXFSZ to get it), EEXIST without overwrite; a file to copy that
 * cannot be read, or would be written twice; or verification
 * found a difference, naming the file and array), TS_ERR_CANCELED,
 * TS_ERR_NOMEM, TS_ERR_OVERFLOW. Every message names the array concerned
 * ("array 'NAME': ...").
 */
TS_API ts_status ts_write(const char *path, const ts_write_tensor *tensors, size_t n,
                          const ts_write_options *opts, ts_write_result *out, ts_error *err);

/*
 * Whether ts_write with options opts (NULL: defaults) could write tensor t,
 * from its header alone: its name, dtype and storage by the rules above
 * (with opts' format, cast and dequantize), and where its data is (inside
 * its file or storage, in a form the values layer reads: ts_array_read's
 * checks before any byte is read). Nothing is written or read. So a caller
 * can name every tensor that cannot be written before writing any (tshape
 * convert lists them all, and with --skip-unsupported writes the others).
 * Returns TS_OK, or the error ts_write would give for this tensor:
 * TS_ERR_DTYPE (a dtype the format cannot hold: strings, object, a GGUF
 * block type without dequantize, bfloat16 for npy without cast),
 * TS_ERR_UNSUPPORTED (MXNet sparse storage, an array without a shape,
 * data not stored in a readable form), TS_ERR_VALUE (a name the format
 * cannot hold), TS_ERR_TRUNCATED, TS_ERR_LAYOUT, TS_ERR_OVERFLOW (data
 * outside its storage or file), TS_ERR_IO (an ONNX side file that cannot
 * be opened); the message starts with "array 'NAME': ". TS_ERR_INVALID_ARG
 * and TS_ERR_UNSUPPORTED for t or opts as ts_write.
 */
TS_API ts_status ts_write_check(const ts_write_tensor *t, const ts_write_options *opts,
                                ts_error *err);

/* ------------------------------------------------------------------------ */
/* Layer shapes: convolution, pooling, matmul, linear, concat, stack        */
/* ------------------------------------------------------------------------ */

/*
 * The output shapes of the common neural-network layers, as PyTorch
 * (torch.nn / torch.nn.functional) and ONNX compute them, without any data.
 * Common to this section: `out` and the optional `weight` outputs are
 * caller-initialised shapes (overwritten on success, unspecified on failure;
 * the caller frees them); input dims must be >= 0 (TS_ERR_VALUE); every
 * product and sum is overflow-checked (TS_ERR_OVERFLOW); a spatial output
 * dim that would be 0 or negative is TS_ERR_SIZE with a message naming the
 * axis of the input shape, e.g. "conv2d: axis 3 (spatial 1): the padded
 * input 4 is smaller than the dilated kernel 5". Dims and kernel sizes are
 * element counts; strides, dilations and paddings count elements of the
 * axis they apply to. For ts_shape_dim (one dim, negative axes), see the
 * Shape section.
 */

/* Most spatial dims of a convolution or pooling (Conv1d/2d/3d). */
#define TS_CONV_MAX_SPATIAL 3

/* How a convolution or pooling is padded (ONNX `auto_pad`). */
typedef enum ts_pad_mode {
    TS_PAD_EXPLICIT = 0,   /* pad_begin/pad_end as given (ONNX NOTSET, pads;
                              PyTorch padding=N puts N at both ends) */
    TS_PAD_VALID = 1,      /* no padding (ONNX VALID, TensorFlow/PyTorch 'valid') */
    TS_PAD_SAME_UPPER = 2, /* output ceil(in / stride); total padding
                              max(0, (out - 1) * stride + dilation * (kernel - 1)
                              + 1 - in), the odd element at the end (ONNX
                              SAME_UPPER, TensorFlow 'SAME'; PyTorch
                              padding='same', which allows only stride 1) */
    TS_PAD_SAME_LOWER = 3  /* the same total, the odd element at the beginning
                              (ONNX SAME_LOWER); the output shape is that of
                              SAME_UPPER */
} ts_pad_mode;

/* Pooling kinds (ts_pool_shape). */
typedef enum ts_pool_kind {
    TS_POOL_MAX = 0,       /* MaxPool1d/2d/3d: dilation allowed */
    TS_POOL_AVG = 1        /* AvgPool1d/2d/3d: dilation must be 1 */
} ts_pool_kind;

/*
 * The parameters of a convolution, transposed convolution or pooling. A
 * growing option struct (the rule is at ts_open_options): initialise it with
 * TS_CONV_PARAMS_INIT, then set what you need. Per-axis arrays hold
 * nspatial values, the first for the first spatial axis (H of NCHW); the
 * entries beyond nspatial are ignored.
 *   nspatial        1, 2 or 3 (Conv1d, Conv2d, Conv3d)
 *   kernel          >= 1 each
 *   stride          >= 1 each (PyTorch pooling's default is the kernel:
 *                   pass it yourself)
 *   dilation        >= 1 each
 *   pad_begin/end   >= 0 each: padding before and after the axis, used when
 *                   pad_mode is TS_PAD_EXPLICIT (ONNX pads x_begin, x_end)
 *   output_padding  >= 0 each, transposed convolution only, and each must be
 *                   smaller than the stride or the dilation of its axis
 *                   (PyTorch ConvTranspose); ignored elsewhere
 *   pad_mode        a ts_pad_mode
 *   groups          >= 1; the input channels and out_channels must be
 *                   multiples of it (conv and convtranspose; pooling ignores it)
 *   out_channels    >= 1 (conv and convtranspose; pooling ignores it)
 *   ceil_mode       0 or 1, pooling only (PyTorch ceil_mode)
 */
typedef struct ts_conv_params {
    size_t struct_size;            /* sizeof(ts_conv_params) */
    int nspatial;
    int64_t kernel[TS_CONV_MAX_SPATIAL];
    int64_t stride[TS_CONV_MAX_SPATIAL];
    int64_t dilation[TS_CONV_MAX_SPATIAL];
    int64_t pad_begin[TS_CONV_MAX_SPATIAL];
    int64_t pad_end[TS_CONV_MAX_SPATIAL];
    int64_t output_padding[TS_CONV_MAX_SPATIAL];
    ts_pad_mode pad_mode;
    int64_t groups;
    int64_t out_channels;
    int ceil_mode;
} ts_conv_params;

/* A 2-D 1x1 convolution with one output channel, stride and dilation 1, no
 * padding, one group: set kernel, out_channels and the rest as needed. */
#define TS_CONV_PARAMS_INIT                                                     \
    {sizeof(ts_conv_params), 2, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0},     \
     {0, 0, 0}, {0, 0, 0}, TS_PAD_EXPLICIT, 1, 1, 0}

/*
 * Convolution output shape (PyTorch Conv1d/Conv2d/Conv3d shape formula,
 * torch.nn docs; ONNX Conv with auto_pad). `in` is (N, C, *spatial), or
 * (C, *spatial) unbatched as PyTorch allows; `out` is (N, out_channels,
 * *o) (unbatched: (out_channels, *o)) with, per spatial axis,
 *     o = floor((in + pad_begin + pad_end - dilation * (kernel - 1) - 1)
 *               / stride) + 1
 * and the padding given by pad_mode. `weight`, when not NULL, receives the
 * weight shape (out_channels, C / groups, *kernel). N may be 0 (as PyTorch,
 * but the parameters are checked whatever N is: PyTorch skips some checks,
 * such as output_padding's, for an empty batch);
 * C and every spatial input dim must be >= 1 (PyTorch accepts C 0 and then
 * returns 0 channels; tshape rejects it).
 * Errors: TS_ERR_NDIM (ndim not nspatial + 1 or + 2), TS_ERR_VALUE (a
 * parameter out of its range above, C or a spatial dim 0, a negative dim:
 * the message names the parameter and axis), TS_ERR_SIZE (C or out_channels
 * not a multiple of groups; an output dim below 1, naming the axis),
 * TS_ERR_OVERFLOW, TS_ERR_INVALID_ARG (also: p->struct_size too small,
 * nspatial not 1..3, pad_mode outside ts_pad_mode, ceil_mode not 0/1),
 * TS_ERR_UNSUPPORTED (p->struct_size larger with unknown bytes set),
 * TS_ERR_NOMEM.
 */
TS_API ts_status ts_conv_shape(const ts_shape *in, const ts_conv_params *p, ts_shape *out,
                               ts_shape *weight, ts_error *err);

/*
 * Transposed convolution output shape (PyTorch ConvTranspose1d/2d/3d shape
 * formula, torch.nn docs; ONNX ConvTranspose output_shape formula):
 *     o = (in - 1) * stride - pad_begin - pad_end + dilation * (kernel - 1)
 *         + output_padding + 1
 * `in`, `out` and the errors as ts_conv_shape; `weight` (may be NULL)
 * receives (C, out_channels / groups, *kernel). pad_mode must be
 * TS_PAD_EXPLICIT or TS_PAD_VALID (TS_ERR_UNSUPPORTED for SAME: ONNX then
 * fixes the output instead, ceil(in * stride)); output_padding must be
 * below the stride or the dilation of its axis (TS_ERR_VALUE).
 */
TS_API ts_status ts_conv_transpose_shape(const ts_shape *in, const ts_conv_params *p,
                                         ts_shape *out, ts_shape *weight, ts_error *err);

/*
 * Pooling output shape (PyTorch MaxPool/AvgPool 1d/2d/3d, torch.nn docs and
 * pooling_output_shape in ATen's Pool.h; ONNX MaxPool/AveragePool auto_pad).
 * `in` is (N, C, *spatial) or (C, *spatial); `out` keeps N and C. Per axis,
 * with explicit padding,
 *     o = floor_or_ceil((in + pad_begin + pad_end - dilation * (kernel - 1)
 *                        - 1) / stride) + 1
 * rounding up when ceil_mode is 1, and then, PyTorch's rule, one less when
 * the last window would start at or after in + pad_begin (it must start
 * inside the input or the left padding); with ceil_mode the padded input
 * may be smaller than the dilated kernel as long as o >= 1. As PyTorch,
 * explicit padding may be at most half the kernel (pad <= kernel / 2,
 * rounded down), C and every spatial input dim must be >= 1, and for 3-D
 * average pooling (AvgPool3d) every spatial input dim must be at least its
 * kernel (TS_ERR_SIZE); out_channels, groups and output_padding are
 * ignored. SAME modes give ceil(in / stride) as ONNX.
 * Errors as ts_conv_shape, plus TS_ERR_VALUE (padding above half the
 * kernel; kind TS_POOL_AVG with a dilation other than 1) and
 * TS_ERR_INVALID_ARG (kind outside ts_pool_kind).
 */
TS_API ts_status ts_pool_shape(const ts_shape *in, ts_pool_kind kind, const ts_conv_params *p,
                               ts_shape *out, ts_error *err);

/*
 * Adaptive pooling output shape (PyTorch AdaptiveAvgPool1d/2d/3d and
 * AdaptiveMaxPool1d/2d/3d, torch.nn docs; ONNX GlobalAveragePool and
 * GlobalMaxPool are output size 1): `in` is (N, C, *spatial) or (C,
 * *spatial) with nspatial (1..3) spatial axes; `out` keeps N and C and has
 * output_size[i] on spatial axis i (nspatial entries; -1 keeps that axis's
 * input size, as PyTorch's None). The windows adapt to the input, so any
 * input of at least one element per axis gives that output.
 * Errors: TS_ERR_NDIM (ndim not nspatial + 1 or + 2), TS_ERR_VALUE (a
 * negative dim; C or a spatial dim 0, which PyTorch 2 refuses and 1.13
 * pools into NaN; an output size 0 or below -1: tshape gives no empty layer
 * outputs, and PyTorch refuses negative ones), TS_ERR_INVALID_ARG (NULL,
 * nspatial not 1..3), TS_ERR_NOMEM.
 */
TS_API ts_status ts_adaptive_pool_shape(const ts_shape *in, int nspatial,
                                        const int64_t *output_size, ts_shape *out,
                                        ts_error *err);

/*
 * Matrix product shape (NumPy `matmul`, also torch.matmul): both operands
 * need at least one dim; a 1-D `a` is promoted to (1, k) and a 1-D `b` to
 * (k, 1), and the added dim is removed from the result; the last dim of a
 * must equal the second last of b; the batch dims (all but the last two)
 * broadcast as ts_broadcast. (2,3,4) @ (4,5) gives (2,3,5), (4,) @ (4,)
 * gives (), (5,1,3,4) @ (2,4,6) gives (5,2,3,6).
 * Errors: TS_ERR_NDIM (a 0-d operand; result above TS_MAX_NDIM),
 * TS_ERR_SIZE (inner dims differ, naming both), TS_ERR_BROADCAST (batch
 * dims), TS_ERR_VALUE, TS_ERR_NOMEM.
 */
TS_API ts_status ts_matmul_shape(const ts_shape *a, const ts_shape *b, ts_shape *out,
                                 ts_error *err);

/*
 * Linear layer shape (PyTorch nn.Linear, torch.nn docs: y = x A^T + b):
 * `in` is (*, in_features) with at least one dim; `out` is (*,
 * out_features); `weight`, when not NULL, receives (out_features,
 * in_features) (the bias is (out_features,)). in_features -1 takes the last
 * dim of `in`; otherwise it must equal it. out_features >= 0 (PyTorch
 * allows 0).
 * Errors: TS_ERR_NDIM (`in` is 0-d), TS_ERR_SIZE (the last dim is not
 * in_features), TS_ERR_VALUE (in_features below -1, out_features < 0, a
 * negative dim), TS_ERR_NOMEM.
 */
TS_API ts_status ts_linear_shape(const ts_shape *in, int64_t in_features, int64_t out_features,
                                 ts_shape *out, ts_shape *weight, ts_error *err);

/*
 * Concatenation along an existing axis (NumPy `concatenate`, torch.cat):
 * the n >= 1 shapes have the same ndim >= 1 and equal dims except at
 * `axis` (negative counts from the end), where the result has their sum.
 * Unlike torch.cat, a 1-D (0,) shape is not skipped (torch's legacy rule).
 * Errors (err->index: the shape that does not fit the first): TS_ERR_NDIM
 * (n is 0; a 0-d shape; ndims differ), TS_ERR_AXIS, TS_ERR_SIZE (a dim
 * other than `axis` differs, naming the axis), TS_ERR_OVERFLOW,
 * TS_ERR_VALUE, TS_ERR_NOMEM. shapes may be NULL only when n is 0; no
 * shapes[i] may be NULL.
 */
TS_API ts_status ts_concat_shape(const ts_shape *const *shapes, size_t n, int64_t axis,
                                 ts_shape *out, ts_error *err);

/*
 * Stacking along a new axis (NumPy `stack`, torch.stack): the n >= 1 shapes
 * must be equal; the result inserts n at `axis`, which indexes the result
 * (-(ndim + 1)..ndim): (2,3) x 4 at axis 1 gives (2,4,3).
 * Errors (err->index: the shape that differs from the first): TS_ERR_NDIM
 * (n is 0; result above TS_MAX_NDIM), TS_ERR_AXIS, TS_ERR_SIZE (shapes
 * differ), TS_ERR_OVERFLOW (n above INT64_MAX), TS_ERR_VALUE, TS_ERR_NOMEM.
 */
TS_API ts_status ts_stack_shape(const ts_shape *const *shapes, size_t n, int64_t axis,
                                ts_shape *out, ts_error *err);

#endif /* TS_EXPERIMENTAL_API */

#ifdef __cplusplus
}
#endif

#endif /* TSHAPE_H */
