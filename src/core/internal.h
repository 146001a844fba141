/*
 * internal.h - helpers shared by the library's source files. Not installed.
 *
 * Everything here is either static inline or has the ts__ prefix (two
 * underscores) so it never collides with the public ts_ API.
 */
#ifndef TSHAPE_INTERNAL_H
#define TSHAPE_INTERNAL_H

/* The library implements the whole header, experimental part included. */
#ifndef TS_EXPERIMENTAL_API
#define TS_EXPERIMENTAL_API
#endif
#include "tshape.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define TS__PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define TS__PRINTF(fmt, args)
#endif

/*
 * Fills *err (if not NULL) and returns `code`. `column` is 1-based or 0,
 * `offset` a byte offset or -1. The message is printf-formatted and
 * truncated to TS_ERROR_MESSAGE_MAX - 1 bytes.
 */
ts_status ts__fail(ts_error *err, ts_status code, int64_t column, int64_t offset,
                   const char *fmt, ...) TS__PRINTF(5, 6);
ts_status ts__vfail(ts_error *err, ts_status code, int64_t column, int64_t offset,
                    const char *fmt, va_list ap) TS__PRINTF(5, 0);

/* 1 when the CPU has AVX2 (with F16C: the float16 conversions) and the OS
 * saves its registers, else 0 (other architectures too, and always with
 * TSHAPE_SIMD=none in the environment: the portable kernels, which tests
 * compare with the vector ones). CPUID on the first call only
 * (src/core/cpu.c). */
int ts__cpu_has_avx2(void);
int ts__cpu_has_f16c(void);
/* 1 when the CPU has FMA (fused multiply-add) and the OS saves the AVX
 * registers, whatever TSHAPE_SIMD says: it decides how sums round, which
 * must not change with the kernel. */
int ts__cpu_has_fma(void);

/* CRC-32C (Castagnoli; LevelDB, TensorFlow tensor bundles) of data[0..n),
 * carrying on from crc (0 for the bytes alone): SSE4.2 when the CPU has it,
 * else tables (src/core/crc32c.c). ts__crc32c_combine gives the CRC-32C of
 * A followed by B from those of A and of B (len2 bytes), as zlib's
 * crc32_combine does for CRC-32. Thread-safe. */
uint32_t ts__crc32c(uint32_t crc, const void *data, size_t n);
/* The same without the SSE4.2 instruction (tables), for tests. */
uint32_t ts__crc32c_tables(uint32_t crc, const void *data, size_t n);
uint32_t ts__crc32c_combine(uint32_t crc1, uint32_t crc2, uint64_t len2);
/* The same for any reflected CRC-32 of polynomial poly (0xedb88320: zip's,
 * 0x82f63b78: CRC-32C's). */
uint32_t ts__crc_combine(uint32_t poly, uint32_t crc1, uint32_t crc2, uint64_t len2);

/* Shorthand for errors without position. */
#define ts__error(err, code, ...) ts__fail((err), (code), 0, -1, __VA_ARGS__)

/* Prefixes err->message with "prefix: " (used to name an entry). */
void ts__error_prefix(ts_error *err, const char *fmt, ...) TS__PRINTF(2, 3);
/* The same, and sets err->index to `index`: the prefix names item `index`
 * of a list ("array 3", "operand 1"). */
void ts__error_entry(ts_error *err, int64_t index, const char *fmt, ...) TS__PRINTF(3, 4);
/* Sets err->index (if err is not NULL) and returns `code`. */
ts_status ts__error_index(ts_error *err, ts_status code, int64_t index);

/*
 * Argument checks, the rule of tshape.h's introduction: a bad pointer,
 * count, flag or enum argument gives TS_ERR_INVALID_ARG with a message that
 * starts with the function's name and names the argument
 * ("ts_shape_save: buf is NULL but cap is 100"). The macros return from the
 * calling function; `p`, `n` and `flags` are spelled as in the header.
 */
ts_status ts__bad_arg(ts_error *err, const char *fn, const char *fmt, ...) TS__PRINTF(3, 4);
/*
 * The rule of growable option structs (ts_open_options): the caller's
 * struct `given` (whose first member is its size_t struct_size) is copied
 * over *out, which holds the defaults and is `size` bytes, so fields past
 * the caller's struct_size keep their defaults; out's struct_size becomes
 * `size`. A struct_size below v1_size is TS_ERR_INVALID_ARG naming the
 * initialiser `init` and the `type`; a nonzero byte past `size` (options of
 * a newer version) is TS_ERR_UNSUPPORTED. `arg` is the argument ("opts")
 * and `what` what it holds ("options").
 */
/* Online CPUs, between 1 and cap. */
int ts__cpu_count(int cap);

/*
 * SHA-256 (sha256.c, OpenSSL's libcrypto loaded on first use): new, update
 * with any number of bytes, final writes the 32-byte digest and frees the
 * state (free frees one not finished; NULL accepted). Errors of new:
 * TS_ERR_UNSUPPORTED (libcrypto cannot be loaded), TS_ERR_NOMEM.
 * ts__hex writes n bytes as 2n lower-case hex digits and a NUL.
 */
typedef struct ts__sha256 ts__sha256;
ts_status ts__sha256_new(ts__sha256 **out, ts_error *err);
void ts__sha256_update(ts__sha256 *h, const void *p, size_t n);
void ts__sha256_final(ts__sha256 *h, unsigned char out[32]);
void ts__sha256_free(ts__sha256 *h);
void ts__hex(const unsigned char *p, size_t n, char *out);
/* Runs fn on each of n >= 1 jobs (job t at jobs + t * size): job 0 on the
 * calling thread, jobs 1..n-1 on the pool's parked threads (started when
 * first needed, kept for later calls), or on the calling thread when no
 * thread has taken them. Returns when all are done; jobs may call it
 * again. */
void ts__run_jobs(void *(*fn)(void *), void *jobs, size_t size, int n);
/* pthread_create(tid, NULL, fn, arg), the new thread put first on a CPU
 * other than the caller's (the k-th of the others the process may use,
 * round robin), then allowed on all of them again. Linux places a short-
 * lived process's new thread on its parent's CPU (the parent's load
 * average is still near zero) and moves it only at a later balancing tick:
 * here 0.2-3 ms while the parent works, against 0.1 ms placed (threads.c).
 * Falls back to a plain pthread_create where placing fails. Returns
 * pthread_create's result. */
int ts__thread_start(pthread_t *tid, void *(*fn)(void *), void *arg, int k);
ts_status ts__read_struct(ts_error *err, const char *fn, const char *arg, const char *what,
                          const void *given, size_t v1_size, void *out, size_t size,
                          const char *init, const char *type);
#define TS__ARG_NONNULL(err, p)                                                  \
    do {                                                                         \
        if (!(p))                                                                \
            return ts__bad_arg((err), __func__, "%s is NULL", #p);               \
    } while (0)
/* An array of n entries: may be NULL only when n is 0. */
#define TS__ARG_ARRAY(err, p, n)                                                 \
    do {                                                                         \
        if (!(p) && (n) != 0)                                                    \
            return ts__bad_arg((err), __func__, "%s is NULL but %s is %lld", #p, \
                               #n, (long long)(n));                              \
    } while (0)
/* An array of n pointers (itself checked with TS__ARG_ARRAY), none NULL;
 * err->index names the NULL one. */
#define TS__ARG_EACH(err, p, n)                                                  \
    do {                                                                         \
        for (size_t k_ = 0; k_ < (size_t)(n); k_++)                              \
            if (!(p)[k_])                                                        \
                return ts__error_index(                                          \
                    (err), ts__bad_arg((err), __func__, "%s[%zu] is NULL", #p, k_), \
                    (int64_t)k_);                                                \
    } while (0)
/* Only the bits of `known` may be set. */
#define TS__ARG_FLAGS(err, flags, known)                                         \
    do {                                                                         \
        if ((flags) & ~(unsigned)(known))                                        \
            return ts__bad_arg((err), __func__,                                  \
                               "unknown flag bits 0x%x in %s (known: 0x%x)",     \
                               (unsigned)((flags) & ~(unsigned)(known)), #flags, \
                               (unsigned)(known));                               \
    } while (0)
/* 1 when dt is a value of the ts_dtype enum (TS_DTYPE_UNKNOWN included). */
static inline int ts__dtype_in_range(ts_dtype dt)
{
    return (int)dt >= (int)TS_DTYPE_UNKNOWN && (int)dt < TS_DTYPE_COUNT;
}

/* Clears *err to TS_OK (if not NULL). */
void ts__ok(ts_error *err);

/* Checked int64 arithmetic: return 1 on overflow, else 0 and store. */
static inline int ts__mul_overflow(int64_t a, int64_t b, int64_t *out)
{
    return __builtin_mul_overflow(a, b, out);
}
static inline int ts__add_overflow(int64_t a, int64_t b, int64_t *out)
{
    return __builtin_add_overflow(a, b, out);
}

/* Little-endian loads from possibly unaligned memory. The caller has
 * checked the bounds. */
static inline uint16_t ts__le16(const unsigned char *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}
static inline uint32_t ts__le32(const unsigned char *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}
static inline uint64_t ts__le64(const unsigned char *p)
{
    return (uint64_t)ts__le32(p) | ((uint64_t)ts__le32(p + 4) << 32);
}
static inline void ts__put_le32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}
static inline void ts__put_le64(unsigned char *p, uint64_t v)
{
    ts__put_le32(p, (uint32_t)v);
    ts__put_le32(p + 4, (uint32_t)(v >> 32));
}

/*
 * A bounds-checked cursor over an untrusted buffer. Every read checks the
 * remaining length first and fails with TS_ERR_TRUNCATED naming `what` and
 * the offset; nothing is ever read outside [data, data + len).
 *
 * A cursor over a file's image (ts__cursor_init_src) also asks the file's
 * byte source for what it reads (src/formats/source.h): ts__cursor_need and
 * the ts__read_* functions fetch, ts__skip does not (skipped bytes are never
 * fetched), and ts__cursor_fetch asks for bytes the caller has checked and
 * is about to read directly (a name at data + pos).
 */
struct ts__source;
typedef struct ts__cursor {
    const unsigned char *data;
    size_t len;
    size_t pos;
    struct ts__source *src;   /* NULL: the buffer holds every byte */
    uint64_t src_off;         /* with src: image offset of data[0] */
    size_t have_lo, have_hi;  /* [have_lo, have_hi) is known to be there */
} ts__cursor;

static inline void ts__cursor_init(ts__cursor *c, const void *data, size_t len)
{
    c->data = (const unsigned char *)data;
    c->len = len;
    c->pos = 0;
    c->src = NULL;
    c->src_off = 0;
    c->have_lo = 0;
    c->have_hi = len;
}

/* A cursor over bytes [off, off + len) of a file's image, data pointing at
 * byte off, whose bytes come from src (NULL: all there). */
static inline void ts__cursor_init_src(ts__cursor *c, const void *data, size_t len,
                                       struct ts__source *src, uint64_t off)
{
    ts__cursor_init(c, data, len);
    c->src = src;
    c->src_off = off;
    if (src)
        c->have_hi = 0;
}

/* Asks the source for bytes [pos, pos + n) (clamped to the buffer), which
 * the caller has checked to be inside it. Errors: those of
 * ts__source_need (TS_ERR_IO, TS_ERR_LIMIT, TS_ERR_NOMEM). */
ts_status ts__cursor_fetch_at(ts__cursor *c, size_t pos, size_t n, ts_error *err);
static inline ts_status ts__cursor_fetch(ts__cursor *c, size_t n, ts_error *err)
{
    return c->pos >= c->have_lo && c->pos + n <= c->have_hi
               ? TS_OK : ts__cursor_fetch_at(c, c->pos, n, err);
}
static inline size_t ts__cursor_left(const ts__cursor *c)
{
    return c->len - c->pos;
}
ts_status ts__cursor_need(ts__cursor *c, size_t n, const char *what, ts_error *err);
ts_status ts__read_u32(ts__cursor *c, uint32_t *out, const char *what, ts_error *err);
ts_status ts__read_i32(ts__cursor *c, int32_t *out, const char *what, ts_error *err);
ts_status ts__read_u64(ts__cursor *c, uint64_t *out, const char *what, ts_error *err);
ts_status ts__read_i64(ts__cursor *c, int64_t *out, const char *what, ts_error *err);
/* Advances by n bytes (n checked against what is left). */
ts_status ts__skip(ts__cursor *c, uint64_t n, const char *what, ts_error *err);

/* Product of n dims with overflow/negative checks; 0 if any dim is 0. */
ts_status ts__dims_size(const int64_t *dims, int n, int64_t *out, ts_error *err);

/* Writes "(3,4,5)"-style text of raw dims into buf (always NUL-terminated,
 * truncated with "..." if cap is too small). Returns buf, for messages. */
const char *ts__dims_str(const int64_t *dims, int n, char *buf, size_t cap);
/* Same for a shape. */
const char *ts__shape_str(const ts_shape *s, char *buf, size_t cap);

/* 1 when b's shape with its axes in the order perm (nperm entries;
 * numpy.transpose(b, perm)) equals a's; with perm NULL or nperm 0,
 * ts_shape_equal (shape.c). */
int ts__shape_equal_permuted(const ts_shape *a, const ts_shape *b, const int *perm, int nperm);

/* The names ts_kv_cache_type knows (gguf.c), for messages. */
#define TS__GGML_CACHE_TYPES "q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1"

/* A malloc'ed copy of s (NUL-terminated), or NULL when out of memory. */
char *ts__strdup(const char *s);

/* Room for element n of the array v of *cap elements of `item` bytes
 * (finding.c): v itself when n < *cap, else v realloc'ed to twice *cap (or
 * to `first` elements when *cap is 0), *cap updated. NULL with
 * TS_ERR_NOMEM in err when out of memory or the size would overflow; v is
 * then unchanged and still owned by the caller. */
void *ts__grow(void *v, size_t *cap, size_t n, size_t item, size_t first, ts_error *err);

/* What a check found (model.c's issues, verify.c's problems): the file's
 * path and the tensor's name (NULL when not about one) and the message,
 * each malloc'ed and owned by the record. */
typedef struct ts__finding {
    char *path, *name, *message;
} ts__finding;

/* Fills r with copies of path and name (either NULL) and the message
 * formatted from fmt (cut at TS_ERROR_MESSAGE_MAX bytes). Errors:
 * TS_ERR_NOMEM (r then holds nothing). */
ts_status ts__finding_set(ts__finding *r, const char *path, const char *name, ts_error *err,
                          const char *fmt, va_list ap) TS__PRINTF(5, 0);

/* Frees r's strings and sets them to NULL. */
void ts__finding_free(ts__finding *r);

/* Length (1..4) of the valid UTF-8 sequence at p, of which n bytes are
 * readable; 0 when the bytes there are not valid UTF-8 (RFC 3629). */
size_t ts__utf8_len(const unsigned char *p, size_t n);

/* Text for an error message from untrusted bytes s[0..n): valid UTF-8 kept,
 * control characters (C0, DEL, C1) and invalid bytes written as \xNN, cut
 * with "..." after 80 input bytes or when buf (cap >= 16) is full. Returns
 * buf. */
const char *ts__printable(const char *s, size_t n, char *buf, size_t cap);
/* Same for a NUL-terminated string. */
const char *ts__printable_str(const char *s, char *buf, size_t cap);

/*
 * Tensor names as file paths in a folder of .npy files (npyname.c): '/'
 * separates subfolders; control, C1, bidirectional and line-separator
 * characters, a '-' that starts a part and '%' are written as %XX.
 * ts__npy_path gives the relative path (without ".npy", malloc'd) or
 * TS_ERR_VALUE for a name with an empty, "." or ".." part or invalid UTF-8,
 * TS_ERR_NOMEM. ts__npy_name undoes exactly those escapes (other '%' stay)
 * in a relative path without its extension: malloc'd, NULL when out of
 * memory.
 */
ts_status ts__npy_path(const char *name, char **out, ts_error *err);
char *ts__npy_name(const char *path);

/* Describes what a text parser found at s[pos] (len bytes in all), for
 * "expected X, found Y" messages: "'a'", "byte 0x01", or "the end of the
 * input". Returns buf (cap >= 16) or a static string. */
const char *ts__found_at(const char *s, size_t len, size_t pos, char *buf, size_t cap);

/*
 * The lexer (lex.c): the one place that says what whitespace, a decimal
 * integer and an integer list are for every text parser of the library (the
 * shape and jagged parsers, einsum and einops patterns, label lists, NumPy
 * descrs and npy header dicts, safetensors JSON) and, through ts_parse_i64
 * and ts_parse_i64_list, for the CLI.
 *
 * Whitespace comes in sets, because the grammars the library follows
 * differ: a set is an OR of the TS__WS_* bits.
 */
#define TS__WS_SP 0x01u   /* ' ' */
#define TS__WS_TAB 0x02u  /* '\t' */
#define TS__WS_LF 0x04u   /* '\n' */
#define TS__WS_CR 0x08u   /* '\r' */
#define TS__WS_VT 0x10u   /* '\v' */
#define TS__WS_FF 0x20u   /* '\f' */
/* Spaces and tabs: einsum subscripts and label lists, npy header lines. */
#define TS__WS_BLANK (TS__WS_SP | TS__WS_TAB)
/* RFC 8259 JSON whitespace; also jagged shapes and integer lists. */
#define TS__WS_TEXT (TS__WS_BLANK | TS__WS_LF | TS__WS_CR)
/* Python's tokenizer between tokens of a literal (npy header dicts). */
#define TS__WS_PY (TS__WS_TEXT | TS__WS_FF)
/* C isspace(): MXNet's TShape operator>>, so the shape grammar. */
#define TS__WS_C (TS__WS_PY | TS__WS_VT)

/* The TS__WS_* bit of c, 0 when c is not whitespace. */
static inline unsigned ts__ws_bit(unsigned char c)
{
    switch (c) {
    case ' ': return TS__WS_SP;
    case '\t': return TS__WS_TAB;
    case '\n': return TS__WS_LF;
    case '\r': return TS__WS_CR;
    case '\v': return TS__WS_VT;
    case '\f': return TS__WS_FF;
    default: return 0;
    }
}
/* 1 when c is whitespace of `set`. */
static inline int ts__is_ws(char c, unsigned set)
{
    return (ts__ws_bit((unsigned char)c) & set) != 0;
}
/* The first position at or after pos in s[0..len) that is not whitespace of
 * `set` (len when there is none). */
static inline size_t ts__skip_ws(const char *s, size_t len, size_t pos, unsigned set)
{
    while (pos < len && ts__is_ws(s[pos], set))
        pos++;
    return pos;
}
static inline int ts__is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* A decimal integer found by ts__scan_int. */
typedef struct ts__int {
    int64_t value;      /* valid when the scan returned TS__INT_OK */
    uint64_t magnitude; /* |value|, valid when TS__INT_OK */
    size_t start;       /* position of the sign, or of the first digit */
    size_t end;         /* position after the last digit */
    int negative;       /* a '-' was read */
    int leading_zero;   /* two or more digits, the first of them '0' */
} ts__int;

enum { TS__INT_OK = 0, TS__INT_NONE = 1, TS__INT_OVERFLOW = 2 };
#define TS__INT_SIGN 0x1u /* accept a leading '+' or '-' */

/*
 * Scans [sign] digits at s[pos] (len bytes in s): the sign only with
 * TS__INT_SIGN. Returns TS__INT_NONE when no digit follows (out->end ==
 * pos), TS__INT_OVERFLOW when the value is outside int64 (-2^63 is inside),
 * else TS__INT_OK. In both other cases every digit has been read:
 * out->end is after the last one. Never reads outside s[0..len).
 */
int ts__scan_int(const char *s, size_t len, size_t pos, unsigned flags, ts__int *out);

/* The first byte at or after p of a NUL-terminated buffer that is not a
 * space (' ' only): the shape parser's fast path. */
static inline const char *ts__skip_spaces_nul(const char *p)
{
    while (*p == ' ')
        p++;
    return p;
}

/*
 * The digits at p of a NUL-terminated buffer, without a bounds check: the
 * shape parser's fast path (the NUL stops the loop). `first` is the value of
 * the digit just before p, which the caller has read. *value receives the
 * number modulo 2^64; the return value points after the last digit. The
 * caller limits the count (18 digits always fit).
 */
static inline const char *ts__scan_digits_nul(const char *p, unsigned first, uint64_t *value)
{
    uint64_t v = first;
    unsigned d;
    while ((d = (unsigned)(unsigned char)*p - '0') <= 9) {
        v = v * 10 + d;
        p++;
    }
    *value = v;
    return p;
}

/*
 * At most this many arrays in one file (man tshape(1), LIMITS). Each costs
 * a ts_array (about 300 bytes) whatever its record costs in the file (an
 * empty MXNet record is 4 bytes), so the count, not the file size, bounds
 * the memory of a file of many tiny records: 1 Mi arrays is at most about
 * 350 MiB with their names. Real files hold far fewer (a large GGUF about
 * 1,100 tensors; the largest safetensors file reported, safetensors issue
 * 668, 1.29 M tensors in a 126 MB header that its own reader refuses).
 */
#define TS__MAX_ARRAYS ((size_t)1 << 20)

/* Size for shape text buffers used in messages. */
#define TS__SHAPE_STR_MAX 160

/*
 * A sink for generated text: bytes go into buf (cap bytes); when it is full
 * they are handed to write (when set, and then the buffer is reused), or,
 * without write, the rest is dropped while total keeps counting (so a first
 * pass with cap 0 measures, a second fills an exact buffer). write returns 0
 * to go on; anything else is TS_ERR_IO.
 */
typedef struct ts__sink {
    char *buf;
    size_t n, cap;
    size_t total;                     /* bytes given, kept or not */
    int (*write)(void *user, const char *data, size_t len);
    void *user;
} ts__sink;

ts_status ts__sink_add(ts__sink *s, const char *d, size_t n, ts_error *err);
ts_status ts__sink_flush(ts__sink *s, ts_error *err);
/* The library's one JSON string escaper (RFC 8259): quotes, backslash and
 * control characters escaped, invalid UTF-8 bytes written as U+FFFD. */
ts_status ts__sink_json_string(ts__sink *s, const unsigned char *p, size_t n, ts_error *err);
/* The same without the quotes: the characters of a string written in parts
 * (each part ends at a character boundary). */
ts_status ts__sink_json_chars(ts__sink *s, const unsigned char *p, size_t n, ts_error *err);
/* The JSON text of a real number into buf (cap >= 32): the shortest that
 * reads back as the same float (is_float) or double, Python-style ("1e-05",
 * "32.0"); non-finite values, which JSON has no literal for, are the
 * strings "nan", "inf" and "-inf" (as tshape show --json writes them). */
void ts__json_real(double v, int is_float, char *buf, size_t cap);

#endif /* TSHAPE_INTERNAL_H */
