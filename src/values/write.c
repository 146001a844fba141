/*
 * write.c - ts_write: arrays of opened files written as safetensors, .npz
 * (through libzip) or a folder of .npy files, atomically and verified (see
 * include/tshape.h, "Writing").
 *
 * Data flows as in the rest of src/values: the stored bytes of an array are
 * walked in flat C order (walk.c: the map, a deflated member, a strided
 * view) and handed in runs to a pump, which copies them (swapping the bytes
 * of big-endian elements) or decodes and re-encodes them (cast, dequantize)
 * into a fixed buffer, and passes pieces on to an emitter: a file
 * descriptor (safetensors, npy) or a member's memory (npz). Contiguous
 * little-endian C-order data skips the buffer: its bytes go from the map to
 * write(2) as they are.
 *
 * Every file is written under a temporary name in the target's folder and
 * renamed into place only when all of them are written, fsync'ed and
 * verified; on failure every temporary file is removed.
 */
/* madvise(MADV_DONTNEED) is not POSIX (posix_madvise's DONTNEED is a hint
 * glibc ignores): it is what keeps the resident size of a 100 GB copy flat;
 * Linux's sync_file_range starts writing back while the copy goes on, so the
 * final fsync has little left to wait for. Both are used when present. */
#define _GNU_SOURCE
#include "values.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zip.h>
#include "../core/lazylib.h"
#include "../formats/source.h"
#include "../formats/zip.h"
#include "../core/zlib_lazy.h"

/* The checksum verification compares: XXH3-64 of xxHash (Debian's
 * libxxhash-dev, used header-only, so nothing is linked), streamed so that
 * the pieces written and read back may be cut differently. About ten times
 * CRC-32's speed: checking costs little next to the copy. */
#define XXH_INLINE_ALL
#include <xxhash.h>

/* Bytes of the pump's buffer, and the largest piece handed to write(2). */
#define PUMP_BYTES (4 << 20)
#define DIRECT_PIECE (8 << 20)
/* Size of the first version of ts_write_options. */
#define OPTIONS_V1_SIZE (offsetof(ts_write_options, progress_ctx) + sizeof(void *))

/* ---- dtypes of the outputs ---------------------------------------------------- */

static const struct {
    ts_dtype dt;
    const char *name;
} st_dtypes[] = {
    {TS_DTYPE_BOOL, "BOOL"},        {TS_DTYPE_UINT8, "U8"},
    {TS_DTYPE_INT8, "I8"},          {TS_DTYPE_INT16, "I16"},
    {TS_DTYPE_UINT16, "U16"},       {TS_DTYPE_FLOAT16, "F16"},
    {TS_DTYPE_BFLOAT16, "BF16"},    {TS_DTYPE_INT32, "I32"},
    {TS_DTYPE_UINT32, "U32"},       {TS_DTYPE_FLOAT32, "F32"},
    {TS_DTYPE_FLOAT64, "F64"},      {TS_DTYPE_INT64, "I64"},
    {TS_DTYPE_UINT64, "U64"},       {TS_DTYPE_FLOAT8_E5M2, "F8_E5M2"},
    {TS_DTYPE_FLOAT8_E4M3FN, "F8_E4M3"}, {TS_DTYPE_FLOAT8_E4M3FNUZ, "F8_E4M3FNUZ"},
    {TS_DTYPE_FLOAT8_E5M2FNUZ, "F8_E5M2FNUZ"}, {TS_DTYPE_FLOAT8_E8M0FNU, "F8_E8M0"},
    {TS_DTYPE_COMPLEX64, "C64"},
};

static const char *st_dtype_name(ts_dtype dt)
{
    for (size_t i = 0; i < sizeof st_dtypes / sizeof *st_dtypes; i++)
        if (st_dtypes[i].dt == dt)
            return st_dtypes[i].name;
    return NULL;
}

/* 1 when dt is one of list[0..n). */
static int dtype_in(ts_dtype dt, const ts_dtype *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (list[i] == dt)
            return 1;
    return 0;
}

/* dtypes a .npy file holds with a NumPy descr. */
static int npy_dtype_ok(ts_dtype dt)
{
    static const ts_dtype ok[] = {
        TS_DTYPE_BOOL, TS_DTYPE_INT8, TS_DTYPE_INT16, TS_DTYPE_INT32, TS_DTYPE_INT64,
        TS_DTYPE_UINT8, TS_DTYPE_UINT16, TS_DTYPE_UINT32, TS_DTYPE_UINT64, TS_DTYPE_FLOAT16,
        TS_DTYPE_FLOAT32, TS_DTYPE_FLOAT64, TS_DTYPE_COMPLEX64, TS_DTYPE_COMPLEX128,
        TS_DTYPE_LONGDOUBLE, TS_DTYPE_CLONGDOUBLE};
    return dtype_in(dt, ok, sizeof ok / sizeof *ok);
}

static int is_float(ts_dtype dt)
{
    static const ts_dtype fl[] = {
        TS_DTYPE_FLOAT16, TS_DTYPE_BFLOAT16, TS_DTYPE_FLOAT32, TS_DTYPE_FLOAT64,
        TS_DTYPE_FLOAT8_E5M2, TS_DTYPE_FLOAT8_E4M3FN, TS_DTYPE_FLOAT8_E4M3FNUZ,
        TS_DTYPE_FLOAT8_E5M2FNUZ, TS_DTYPE_FLOAT8_E8M0FNU, TS_DTYPE_LONGDOUBLE};
    return dtype_in(dt, fl, sizeof fl / sizeof *fl);
}

/* complex64/128: the complex dtypes a cast may give */
static int is_complex(ts_dtype dt)
{
    return dt == TS_DTYPE_COMPLEX64 || dt == TS_DTYPE_COMPLEX128;
}

/* every complex dtype: pairs of floats (complex256: of long doubles) */
static int complex_pair(ts_dtype dt)
{
    return is_complex(dt) || dt == TS_DTYPE_CLONGDOUBLE;
}

/* The targets of a cast (and of dequantize: the first two). */
static int cast_target_ok(ts_dtype dt)
{
    return dt == TS_DTYPE_FLOAT32 || dt == TS_DTYPE_FLOAT16 || dt == TS_DTYPE_BFLOAT16 ||
           dt == TS_DTYPE_FLOAT64 || is_complex(dt);
}

/* ---- rounding ---------------------------------------------------------------- */

/*
 * The binary format with `ebits` exponent and `mbits` fraction bits nearest
 * to v (IEEE 754 roundTiesToEven from the exact double), as its bit
 * pattern: float16 (5, 10), bfloat16 (8, 7). Overflow gives Inf; NaN a
 * quiet NaN keeping the top payload bits.
 */
static uint32_t round_minifloat(double v, int ebits, int mbits)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    const uint32_t sign = (uint32_t)(b >> 63) << (ebits + mbits);
    const uint64_t mag = b & 0x7fffffffffffffffull;
    const uint32_t inf = ((1u << ebits) - 1) << mbits;
    const int bias = (1 << (ebits - 1)) - 1, emin = 1 - bias;
    if (mag > 0x7ff0000000000000ull)
        return sign | inf | (1u << (mbits - 1)) | (uint32_t)((mag >> (52 - mbits)) & ((1u << mbits) - 1));
    if (mag == 0x7ff0000000000000ull)
        return sign | inf;
    int e = (int)(mag >> 52) - 1023;
    if (mag >> 52 == 0)
        return sign; /* double subnormals are far below every target's */
    if (e > bias)
        return sign | inf;
    uint64_t full = (mag & 0xfffffffffffffull) | (1ull << 52);
    int shift = e >= emin ? 52 - mbits : 52 + emin - mbits - e;
    if (shift >= 64)
        return sign;
    uint64_t q = full >> shift, rem = full & ((1ull << shift) - 1), half = 1ull << (shift - 1);
    if (e >= emin)
        q = ((uint64_t)(e + bias) << mbits) | (q & ((1ull << mbits) - 1));
    if (rem > half || (rem == half && (q & 1)))
        q++; /* a carry into the exponent is right, up to Inf */
    return sign | (uint32_t)q;
}

/* Writes n values of src (n doubles, or 2n for complex) as dtype dt, little
 * endian, at dst. */
static void encode(ts_dtype dt, const double *src, size_t n, unsigned char *dst)
{
    if (dt == TS_DTYPE_FLOAT16 || dt == TS_DTYPE_BFLOAT16) {
        for (size_t i = 0; i < n; i++) {
            uint32_t h = dt == TS_DTYPE_FLOAT16 ? round_minifloat(src[i], 5, 10)
                                                : round_minifloat(src[i], 8, 7);
            dst[2 * i] = (unsigned char)h;
            dst[2 * i + 1] = (unsigned char)(h >> 8);
        }
    } else if (dt == TS_DTYPE_FLOAT32 || dt == TS_DTYPE_COMPLEX64) {
        for (size_t i = 0; i < (dt == TS_DTYPE_COMPLEX64 ? 2 * n : n); i++) {
            float f = (float)src[i];
            uint32_t u;
            memcpy(&u, &f, 4);
            ts__put_le32(dst + 4 * i, u);
        }
    } else { /* float64, complex128 */
        for (size_t i = 0; i < (dt == TS_DTYPE_COMPLEX128 ? 2 * n : n); i++) {
            uint64_t u;
            memcpy(&u, &src[i], 8);
            ts__put_le32(dst + 8 * i, (uint32_t)u);
            ts__put_le32(dst + 8 * i + 4, (uint32_t)(u >> 32));
        }
    }
}

/* ---- the plan ---------------------------------------------------------------- */

typedef struct plan {
    const char *name;
    const ts_file *file;
    const ts_array *a;
    ts_dtype out;                /* dtype written */
    int64_t itemsize;            /* of out */
    int64_t nbytes;              /* bytes written */
    int convert;                 /* 1: decoded and encoded; 0: copied */
    int swap;                    /* copied with each unit of swap_unit bytes reversed */
    int64_t swap_unit;
    uint64_t sum;                /* XXH3-64 of the bytes written */
    int has_crc;                 /* an npz member written here (not by libzip): */
    uint32_t crc;                /* its CRC-32, npy header and data */
    int64_t begin;               /* safetensors: offset in its file's data */
    size_t shard;                /* safetensors: its file */
    char *npy_path;              /* npy folder: the file's path in it, without
                                    ".npy" (ts__npy_path; malloc'd) */
} plan;

static int host_little(void)
{
    const uint16_t one = 1;
    unsigned char c;
    memcpy(&c, &one, 1);
    return c == 1;
}

/* Drops the pages of [p, p + len) of a read-only file map from this
 * process (they stay in the page cache; a later read faults them back in),
 * so streaming a large file does not grow the resident size. The range is
 * widened to whole pages: the map starts on a page and covers its last one,
 * and dropping a page of it that is still to be read costs only a fault. */
static void drop_pages(const unsigned char *p, size_t len)
{
#ifdef MADV_DONTNEED
    static long page;
    if (!page)
        page = sysconf(_SC_PAGESIZE) > 0 ? sysconf(_SC_PAGESIZE) : 4096;
    uintptr_t a = (uintptr_t)p & ~((uintptr_t)page - 1);
    uintptr_t b = ((uintptr_t)p + len + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
    if (len > 0 && b > a)
        madvise((void *)a, b - a, MADV_DONTNEED);
#else
    (void)p, (void)len;
#endif
}

/* "array 'NAME': " before err's message. */
static ts_status fail_array(const plan *p, ts_error *err, ts_status code)
{
    char shown[96];
    ts__error_prefix(err, "array '%s'", ts__printable_str(p->name, shown, sizeof shown));
    return code;
}

static ts_status plan_one(plan *p, const ts_write_options *o, ts_error *err)
{
    const ts_array *a = p->a;
    ts_dtype dt = a->dtype;
    const char *what = o->format == TS_WRITE_SAFETENSORS ? "safetensors" : "NumPy .npy";
    if (a->storage != TS_STORAGE_DENSE)
        return fail_array(p, err, ts__error(err, TS_ERR_UNSUPPORTED,
                                            "MXNet sparse storage cannot be written"));
    if (a->null_shape)
        return fail_array(p, err, ts__error(err, TS_ERR_UNSUPPORTED,
                                            "it has no shape (an HDF5 null dataspace, "
                                            "h5py.Empty), which %s cannot hold", what));
    if (dt == TS_DTYPE_QUANTIZED) {
        if (!o->dequantize)
            return fail_array(p, err, ts__error(err, TS_ERR_DTYPE,
                              "GGUF block type %s cannot be copied to %s; dequantize it "
                              "(to float32 or float16)", a->dtype_name, what));
        if (ts_array_value_kind(a) != TS_VALUE_FLOAT)
            return fail_array(p, err, ts__error(err, TS_ERR_DTYPE,
                              "GGUF block type %s cannot be dequantized", a->dtype_name));
        p->out = o->dequantize_dtype;
        p->convert = 1;
    } else {
        if (ts_array_value_kind(a) == TS_VALUE_NONE)
            return fail_array(p, err, ts__error(err, TS_ERR_DTYPE,
                              "dtype %s cannot be written to %s", a->dtype_name, what));
        p->out = dt;
        if (o->cast && ((is_float(dt) && is_float(o->cast_dtype)) ||
                        (complex_pair(dt) && is_complex(o->cast_dtype))))
            p->out = o->cast_dtype;
        p->convert = p->out != dt;
    }
    if (o->format == TS_WRITE_SAFETENSORS ? !st_dtype_name(p->out) : !npy_dtype_ok(p->out)) {
        const char *hint = is_float(p->out) ? "; cast it to a float dtype the format has"
                           : complex_pair(p->out) ? "; cast it to complex64" : "";
        return fail_array(p, err, ts__error(err, TS_ERR_DTYPE, "%s has no dtype %s%s", what,
                                            ts_dtype_name(p->out), hint));
    }
    p->itemsize = ts_dtype_itemsize(p->out);
    if (ts__mul_overflow(a->size, p->itemsize, &p->nbytes))
        return fail_array(p, err, ts__error(err, TS_ERR_OVERFLOW, "%lld elements of %lld "
                                            "bytes overflow", (long long)a->size,
                                            (long long)p->itemsize));
    /* the output is little-endian: '>' data, and '=' (native) data on a
     * big-endian host, is swapped */
    int big = a->byteorder == '>' || (a->byteorder == '=' && !host_little());
    p->swap_unit = complex_pair(p->out) ? p->itemsize / 2 : p->itemsize;
    p->swap = !p->convert && big && p->swap_unit > 1;
    return TS_OK;
}

/* ---- the pump: runs of stored elements -> pieces of output bytes --------------- */

typedef ts__emit_fn emit_fn;

typedef struct pump {
    const plan *p;
    const ts__decoder *dec;
    emit_fn emit;
    void *ctx;
    unsigned char *buf;          /* PUMP_BYTES */
    size_t len;
    double *dbuf;                /* 2 * TS__VBLOCK */
    int mapped;                  /* runs are in the library's own map */
    /* scatter (deflated, not C order) */
    unsigned char *whole;
    ts__sorder so;
} pump;

static ts_status pump_flush(pump *u, ts_error *err)
{
    ts_status st = TS_OK;
    if (u->len)
        st = u->emit(u->ctx, u->buf, u->len, err);
    u->len = 0;
    return st;
}

static void swap_copy(unsigned char *dst, const unsigned char *src, size_t n, int64_t unit)
{
    for (size_t i = 0; i < n; i += (size_t)unit)
        for (int64_t k = 0; k < unit; k++)
            dst[i + (size_t)k] = src[i + (size_t)(unit - 1 - k)];
}

/* The sink of walk.c: n whole stored elements at s. */
static ts_status pump_run(void *ctx, const unsigned char *s, int64_t n, ts_error *err)
{
    pump *u = ctx;
    const plan *p = u->p;
    ts_status st;
    if (!p->convert) {
        size_t bytes = (size_t)n * (size_t)p->itemsize;
        if (!p->swap && bytes >= PUMP_BYTES / 2) {
            if ((st = pump_flush(u, err)))
                return st;
            for (size_t at = 0; at < bytes; at += DIRECT_PIECE) {
                size_t k = bytes - at < DIRECT_PIECE ? bytes - at : DIRECT_PIECE;
                if ((st = u->emit(u->ctx, s + at, k, err)))
                    return st;
                if (u->mapped)
                    drop_pages(s + at, k);
            }
            return TS_OK;
        }
        while (bytes > 0) {
            size_t room = PUMP_BYTES - u->len;
            room -= room % (size_t)p->itemsize;
            size_t k = bytes < room ? bytes : room;
            if (p->swap)
                swap_copy(u->buf + u->len, s, k, p->swap_unit);
            else
                memcpy(u->buf + u->len, s, k);
            u->len += k;
            s += k;
            bytes -= k;
            if (PUMP_BYTES - u->len < (size_t)p->itemsize && (st = pump_flush(u, err)))
                return st;
        }
        return TS_OK;
    }
    const ts__decoder *dec = u->dec;
    while (n > 0) {
        int64_t k = n > TS__VBLOCK ? TS__VBLOCK : n;
        size_t out = (size_t)k * (size_t)p->itemsize;
        if (PUMP_BYTES - u->len < out && (st = pump_flush(u, err)))
            return st;
        dec->to_double(s, (size_t)k, u->dbuf);
        encode(p->out, u->dbuf, (size_t)k, u->buf + u->len);
        u->len += out;
        s += dec->block > 1 ? k / dec->block * dec->block_bytes : k * dec->elem_bytes;
        n -= k;
    }
    return TS_OK;
}

/* Sink for deflated data not in C order: each stored element to its flat
 * C index in u->whole (stored bytes; converted when all are in). */
static ts_status pump_scatter(void *ctx, const unsigned char *s, int64_t n, ts_error *err)
{
    pump *u = ctx;
    const int64_t eb = u->dec->elem_bytes;
    (void)err;
    for (int64_t i = 0; i < n; i++, s += eb) {
        memcpy(u->whole + u->so.flat * eb, s, (size_t)eb);
        ts__sorder_next(&u->so);
    }
    return TS_OK;
}

typedef struct walk_arg {
    const ts__data *d;
    pump *u;
} walk_arg;

static ts_status walk_guarded(void *arg, ts_error *err)
{
    walk_arg *w = arg;
    return ts__data_walk_view(w->d, 0, w->d->count, pump_run, w->u, err);
}

/* All of p's output bytes, in order, to emit(ctx, ...). */
static ts_status pump_array(const plan *p, unsigned char *buf, double *dbuf, emit_fn emit,
                            void *ctx, ts_error *err)
{
    ts__data d;
    ts_status st = ts__data_open(&d, p->file, p->a, err);
    if (st)
        return st;
    if (d.implicit_zeros > 0)
        return fail_array(p, err, ts__error(err, TS_ERR_UNSUPPORTED,
                                            "MXNet sparse storage cannot be written"));
    pump u;
    memset(&u, 0, sizeof u);
    u.p = p;
    u.dec = &d.dec;
    u.emit = emit;
    u.ctx = ctx;
    u.buf = buf;
    u.dbuf = dbuf;
    u.mapped = !d.src && ts__file_is_mapped(p->file);
    if (d.count == 0)
        return TS_OK;
    if (d.dec.block > 1 || d.c_order) {
        st = ts__data_stream(&d, 0, d.count, pump_run, &u, err);
    } else if (!d.src) {
        walk_arg w = {&d, &u};
        st = ts__data_guard(&d, walk_guarded, &w, err);
    } else {
        /* Deflated in another order (Fortran): gathered whole, as read.c does. */
        int64_t eb = d.dec.elem_bytes, total;
        if (ts__mul_overflow(d.count, eb, &total) || (uint64_t)total > SIZE_MAX)
            return fail_array(p, err, ts__error(err, TS_ERR_OVERFLOW, "too large to gather"));
        if (!(u.whole = malloc((size_t)total)))
            return fail_array(p, err, ts__error(err, TS_ERR_NOMEM, "out of memory gathering "
                                                "%lld bytes", (long long)total));
        ts__sorder_init(&u.so, &d.lay);
        st = ts__data_stream(&d, 0, d.count, pump_scatter, &u, err);
        if (!st)
            st = pump_run(&u, u.whole, d.count, err);
        free(u.whole);
    }
    if (!st)
        st = pump_flush(&u, err);
    return st;
}

ts_status ts__array_canonical(const ts_file *f, const ts_array *a, const char *name,
                              ts__emit_fn emit, void *ctx, ts_error *err)
{
    plan p;
    memset(&p, 0, sizeof p);
    p.name = name ? name : a->name;
    p.file = f;
    p.a = a;
    p.out = a->dtype;
    p.itemsize = ts_dtype_itemsize(a->dtype);
    if (a->storage != TS_STORAGE_DENSE || p.itemsize <= 0 || a->bits % 8 != 0 ||
        ts_array_value_kind(a) == TS_VALUE_NONE)
        return fail_array(&p, err, ts__error(err, TS_ERR_DTYPE, "dtype %s has no canonical "
                                             "bytes here", a->dtype_name));
    int big = a->byteorder == '>' || (a->byteorder == '=' && !host_little());
    p.swap_unit = complex_pair(p.out) ? p.itemsize / 2 : p.itemsize;
    p.swap = big && p.swap_unit > 1;
    unsigned char *buf = malloc(PUMP_BYTES);
    double *dbuf = malloc(2 * TS__VBLOCK * sizeof *dbuf);
    ts_status st = buf && dbuf ? pump_array(&p, buf, dbuf, emit, ctx, err)
                               : fail_array(&p, err, ts__error(err, TS_ERR_NOMEM,
                                                               "out of memory"));
    free(buf);
    free(dbuf);
    return st;
}

/* ---- files: temporary names, writing, putting in place ---------------------- */

typedef struct outfile {
    char *tmp;                   /* temporary path (file or folder): for a
                                    file, /proc/self/fd/N of an anonymous
                                    one or a named one (tmpout.c) */
    int keep;                    /* the descriptor of an anonymous file, or -1 */
    char *final;                 /* where it goes */
    int is_dir;
    int placed;                  /* renamed into place */
} outfile;

typedef struct job {
    const ts_write_options *o;
    plan *plans;
    size_t n;
    outfile *files;
    size_t nfiles, capfiles;
    int64_t done, total;         /* data bytes, for progress */
    int64_t file_bytes;
    unsigned char *buf;          /* the pump's */
    double *dbuf;
    /* the file being written */
    int fd;
    const char *fd_path;
    int64_t fd_pos, fd_kicked;   /* bytes written, and handed to writeback */
    XXH3_state_t *sum;           /* of the array being written (one at a time) */
    int want_crc;                /* stored npz: emit_fd also carries crc on */
    uint32_t crc;                /* zip's CRC-32 of the member being written */
    ts_error zerr;               /* npz: the error behind a failed zip_close */
    int has_zerr;
    char **dirs;                 /* npy folder: the subfolders made, to fsync */
    size_t ndirs, capdirs;
} job;

static ts_status io_fail(ts_error *err, const char *what, const char *path)
{
    int e = errno;
    return ts__error(err, e == ENOMEM ? TS_ERR_NOMEM : TS_ERR_IO, "%s '%s': %s", what, path,
                     strerror(e));
}

static char *join(const char *dir, const char *name, const char *ext)
{
    size_t a = strlen(dir), b = strlen(name), c = strlen(ext);
    char *s = malloc(a + b + c + 2);
    if (s) {
        memcpy(s, dir, a);
        s[a] = '/';
        memcpy(s + a + 1, name, b);
        memcpy(s + a + 1 + b, ext, c + 1);
    }
    return s;
}

/* The folder of path ("." when it has none) and its last part. */
static int split_path(const char *path, char **dir, char **base)
{
    const char *slash = NULL;
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--; /* "out/" names "out" */
    for (size_t i = n; i-- > 0;)
        if (path[i] == '/') {
            slash = path + i;
            break;
        }
    const char *b = slash ? slash + 1 : path;
    size_t dn = slash ? (size_t)(slash - path) : 1;
    *dir = malloc(dn + 1);
    *base = malloc((size_t)(path + n - b) + 1);
    if (!*dir || !*base)
        return -1;
    if (slash) {
        memcpy(*dir, path, dn);
        if (dn == 0)
            (*dir)[dn++] = '/';
    } else {
        (*dir)[0] = '.';
    }
    (*dir)[dn] = '\0';
    memcpy(*base, b, (size_t)(path + n - b));
    (*base)[path + n - b] = '\0';
    return 0;
}

/* Registers a new output: a temporary file (or folder) in dir for final. */
static ts_status new_output(job *j, const char *dir, const char *final, int is_dir, int *fd,
                            ts_error *err)
{
    if (j->nfiles == j->capfiles) {
        size_t cap = j->capfiles ? 2 * j->capfiles : 8;
        outfile *f = realloc(j->files, cap * sizeof *f);
        if (!f)
            return ts__error(err, TS_ERR_NOMEM, "out of memory");
        j->files = f;
        j->capfiles = cap;
    }
    outfile *f = &j->files[j->nfiles];
    memset(f, 0, sizeof *f);
    char *d = NULL, *b = NULL;
    if (split_path(final, &d, &b) != 0) {
        free(d), free(b);
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    }
    f->keep = -1;
    f->final = strdup(final);
    f->is_dir = is_dir;
    mode_t mask = umask(0);
    umask(mask);
    if (is_dir) {
        f->tmp = ts__tmpout_name(dir, b);
        free(d), free(b);
        if (!f->tmp || !f->final) {
            free(f->tmp), free(f->final);
            return ts__error(err, TS_ERR_NOMEM, "out of memory");
        }
        if (!mkdtemp(f->tmp)) {
            ts_status st = io_fail(err, "cannot create a temporary folder", f->tmp);
            free(f->tmp), free(f->final);
            return st;
        }
        if (chmod(f->tmp, 0777 & ~mask) != 0) { /* mkdtemp's 0700 is for its own use */
            ts_status st = io_fail(err, "cannot set the mode of", f->tmp);
            rmdir(f->tmp);
            free(f->tmp), free(f->final);
            return st;
        }
        *fd = -1;
    } else {
        int k = f->final ? ts__tmpout_file(dir, b, 0666 & ~mask, &f->tmp, &f->keep) : -1;
        free(d), free(b);
        if (k < 0) {
            ts_status st = f->final ? io_fail(err, "cannot create a temporary file in", dir)
                                    : ts__error(err, TS_ERR_NOMEM, "out of memory");
            free(f->tmp), free(f->final);
            return st;
        }
        *fd = k;
    }
    j->nfiles++;
    return TS_OK;
}

static ts_status progress(job *j, int64_t bytes, ts_error *err)
{
    j->done += bytes;
    if (j->o->progress && j->o->progress(j->o->progress_ctx, j->done, j->total))
        return ts__error(err, TS_ERR_CANCELED, "stopped after %lld of %lld bytes",
                         (long long)j->done, (long long)j->total);
    return TS_OK;
}

/* Bytes written between two starts of writeback. */
#define KICK_BYTES (32 << 20)

/* Starts writing back [from, to) of the file being written, without
 * waiting (Linux); elsewhere the final fsync does it all. */
static void kick(int fd, int64_t from, int64_t to)
{
#ifdef SYNC_FILE_RANGE_WRITE
    if (to > from)
        sync_file_range(fd, from, to - from, SYNC_FILE_RANGE_WRITE);
#else
    (void)fd, (void)from, (void)to;
#endif
}

/* Files of fewer bytes are not preallocated (a system call for little). */
#define PREALLOC_MIN (1 << 20)

/*
 * Reserves the blocks of the first `bytes` bytes of the file being written
 * (Linux fallocate(2), the file's size set to at least `bytes`; the caller
 * passes at most what it will write): the file system allocates them in one
 * go instead of page by page as they are written. On ext4 delayed allocation
 * took 0.24 of the 0.33 s of CPU writing 1 GiB from memory costs; with the
 * blocks reserved 0.17 (issue 28: convert as fast as `cp && sync`). A disk
 * too small is then reported before anything is written. A file system that
 * cannot (EOPNOTSUPP, NFS before 4.2, ...) allocates as it is written.
 */
static ts_status preallocate(job *j, int64_t bytes, ts_error *err)
{
#ifdef __linux__
    if (bytes < PREALLOC_MIN || fallocate(j->fd, 0, 0, (off_t)bytes) == 0)
        return TS_OK;
    if (errno == ENOSPC || errno == EDQUOT || errno == EFBIG)
        return io_fail(err, "cannot write", j->fd_path);
#else
    (void)j, (void)bytes, (void)err;
#endif
    return TS_OK;
}

static ts_status write_all(job *j, const unsigned char *p, size_t len, ts_error *err)
{
    while (len > 0) {
        ssize_t w = write(j->fd, p, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return io_fail(err, "cannot write", j->fd_path);
        }
        p += w;
        len -= (size_t)w;
        j->file_bytes += w;
        j->fd_pos += w;
        if (j->fd_pos - j->fd_kicked >= KICK_BYTES) {
            kick(j->fd, j->fd_kicked, j->fd_pos);
            j->fd_kicked = j->fd_pos;
        }
    }
    return TS_OK;
}

/* The emitter of safetensors and npy data: to the file, checksum and
 * progress. */
static ts_status emit_fd(void *ctx, const unsigned char *p, size_t len, ts_error *err)
{
    job *j = ctx;
    ts__xxh3_update(j->sum, p, len);
    if (j->want_crc)
        j->crc = ts__crc32_fast(j->crc, p, len);
    ts_status st = write_all(j, p, len, err);
    return st ? st : progress(j, (int64_t)len, err);
}

/* ---- byte-identical data: read straight into the pump's buffer -------------------- */

/*
 * An array copied unchanged (no cast, no byte swap) whose bytes are one run
 * of a local file read with pread is read in PUMP_BYTES pieces straight
 * into the pump's buffer and written from there: one copy into this
 * process and one out, where the data layer's runs (its own 256 KiB
 * buffer) would be copied once more into the pump's (issue 28: convert as
 * fast as `cp && sync`).
 *
 * copy_file_range(2), as cp copies, was measured and left out: on ext4
 * (Linux 6.18, no shared blocks) the kernel's copy through a pipe of single
 * pages cost more CPU than read and write, and the checksum verification
 * needs then took a second read of the source; paired medians of 9 rounds
 * on 1 GiB were 0.52 of `cp && sync`'s speed against 0.62 without it. So
 * was a second thread reading (and hashing) piece k + 1 while piece k is
 * written: 0.48 against 0.89 on the shared 2-core machine (load 5-6), where
 * each hand-over waits for the other thread to be scheduled.
 */

int ts__test_no_direct;
int ts__test_no_map;
uint64_t ts__test_direct_bytes, ts__test_mapped_bytes;
void (*ts__test_map_step)(void);

/* p's bytes [off, off + nbytes) of descriptor `in` to the output through
 * j->buf, into j->sum (and j->crc) by emit_fd. */
static ts_status read_array(job *j, const plan *p, int in, uint64_t off, ts_error *err)
{
    ts_status st = TS_OK;
    for (uint64_t at = 0; !st && at < (uint64_t)p->nbytes;) {
        uint64_t left = (uint64_t)p->nbytes - at;
        size_t k = left < PUMP_BYTES ? (size_t)left : PUMP_BYTES;
        if ((st = ts__source_read_fd(in, off + at, j->buf, k, err)))
            return fail_array(p, err, st);
        st = emit_fd(j, j->buf, k, err);
        ts__test_direct_bytes += k;
        at += k;
    }
    return st;
}

/*
 * Better still, the array's bytes are mapped and written from the map, as
 * `cp` copies (copy_file_range copies between the page caches): nothing is
 * copied into this process, the checksums read the source's cached pages
 * where they are, and write(2) copies them once. The pages of each 4 MiB
 * step are dropped from the process after it (the resident size stays a
 * step, whatever the array's). CPU of 1 GiB npz -> safetensors 0.50 ->
 * 0.36 s against pread into the buffer. Making a step's page table entries
 * in one call (MADV_POPULATE_READ) instead of by faults (each maps 16
 * pages) cost more: 0.441 against 0.382 s of CPU for safetensors -> npz,
 * 0.556 against 0.498 with the input written 4 KiB at a time (paired
 * medians, load 3). A page that vanishes (the file shrank) is a SIGBUS the
 * map guard turns into an error naming the array (mapguard.c).
 */
typedef struct map_copy {
    job *j;
    const plan *p;
    const unsigned char *bytes;  /* the array's first byte in the map */
} map_copy;

static ts_status map_copy_run(void *arg, ts_error *err)
{
    map_copy *m = arg;
    ts_status st = TS_OK;
    for (uint64_t at = 0; !st && at < (uint64_t)m->p->nbytes;) {
        uint64_t left = (uint64_t)m->p->nbytes - at;
        size_t k = left < PUMP_BYTES ? (size_t)left : PUMP_BYTES;
        if (ts__test_map_step)
            ts__test_map_step();
        st = emit_fd(m->j, m->bytes + at, k, err);
        drop_pages(m->bytes + at, k);
        ts__test_mapped_bytes += k;
        at += k;
    }
    return st;
}

/* p's bytes [off, off + nbytes) of descriptor `in` to the output from a map
 * of them (into j->sum, and j->crc by emit_fd), or by read_array where they
 * cannot be mapped. */
static ts_status copy_array(job *j, const plan *p, int in, uint64_t off, ts_error *err)
{
    long pg = sysconf(_SC_PAGESIZE);
    uint64_t page = pg > 0 ? (uint64_t)pg : 4096, lo = off / page * page;
    uint64_t len = off - lo + (uint64_t)p->nbytes;
    void *map = MAP_FAILED;
    if (!ts__test_no_map && len <= SIZE_MAX && (uint64_t)(off_t)lo == lo)
        map = mmap(NULL, (size_t)len, PROT_READ, MAP_SHARED, in, (off_t)lo);
    if (map == MAP_FAILED)
        return read_array(j, p, in, off, err);
    map_copy m = {j, p, (const unsigned char *)map + (off - lo)};
    ts_status st = ts__guarded_parse(map, (size_t)len, map_copy_run, &m, err);
    munmap(map, (size_t)len);
    return st ? fail_array(p, err, st) : TS_OK;
}

/* All of p's output bytes to the file being written (into j->sum, and
 * j->crc when j->want_crc): mapped or read straight into the pump's buffer
 * when they can be, else through the pump. */
static ts_status pump_to_fd(job *j, const plan *p, ts_error *err)
{
    ts__data d;
    int in;
    if (!ts__test_no_direct && !p->convert && !p->swap && p->nbytes > 0 &&
        ts__data_open(&d, p->file, p->a, err) == TS_OK && !d.src && d.c_order &&
        d.contiguous && d.dec.block == 1 && d.implicit_zeros == 0 &&
        (in = ts__source_fd(d.source)) >= 0)
        return copy_array(j, p, in, (uint64_t)(ts__data_at(&d, 0) - d.image), err);
    ts__ok(err);
    return pump_array(p, j->buf, j->dbuf, emit_fd, j, err);
}

/* Closes the file being written (fsync comes after verification, in
 * sync_file, while the written pages are still cached for it). */
static ts_status finish_fd(job *j, ts_error *err)
{
    ts_status st = TS_OK;
    kick(j->fd, j->fd_kicked, j->fd_pos);
    if (close(j->fd) != 0)
        st = io_fail(err, "cannot close", j->fd_path);
    j->fd = -1;
    j->fd_pos = j->fd_kicked = 0;
    return st;
}

/* fsync of a written file or folder, through a new descriptor. */
static ts_status sync_path(const char *path, int is_dir, ts_error *err)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return io_fail(err, is_dir ? "cannot open folder" : "cannot open", path);
    ts_status st = TS_OK;
    if (fsync(fd) != 0 && !(is_dir && (errno == EINVAL || errno == EROFS)))
        st = io_fail(err, "cannot flush", path);
    close(fd);
    return st;
}

static ts_status fsync_dir(const char *dir, ts_error *err)
{
    return sync_path(dir, 1, err);
}

/* Removes a folder of ours: its files and subfolders (never following a
 * symbolic link), then itself. */
static int remove_one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb, (void)ftw;
    if (type == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

static void remove_tree(const char *dir)
{
    nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* 1 when the folder holds only .npy files and folders of them (and may be
 * replaced): nftw's walk stops at the first other entry. */
static int other_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    size_t n = strlen(path);
    if (type == FTW_D || type == FTW_DP)
        return 0;
    if (ftw->level == 0 || type != FTW_F || n < 4 || strcmp(path + n - 4, ".npy") != 0)
        return 1;
    return 0;
}

static int only_npy(const char *dir)
{
    return nftw(dir, other_entry, 16, FTW_PHYS) == 0;
}

/* Puts a finished output in place. */
static ts_status place(job *j, outfile *f, ts_error *err)
{
    struct stat sb;
    if (f->is_dir) {
        int exists = lstat(f->final, &sb) == 0;
        if (exists && !j->o->overwrite) {
            errno = EEXIST;
            return io_fail(err, "will not replace", f->final);
        }
        if (exists) {
            if (!S_ISDIR(sb.st_mode) || !only_npy(f->final)) {
                return ts__error(err, TS_ERR_IO, "will not replace '%s': it is not a folder "
                                 "of .npy files", f->final);
            }
#ifdef RENAME_EXCHANGE
            /* one atomic swap: a kill leaves the old folder or the new one
             * at final, and the other under the temporary name (swept) */
            if (renameat2(AT_FDCWD, f->tmp, AT_FDCWD, f->final, RENAME_EXCHANGE) == 0) {
                remove_tree(f->tmp);
                f->placed = 1;
                return TS_OK;
            }
#endif
            size_t len = strlen(f->tmp) + 8;
            char *old = malloc(len);
            if (!old)
                return ts__error(err, TS_ERR_NOMEM, "out of memory");
            snprintf(old, len, "%s.old", f->tmp);
            if (rename(f->final, old) != 0) {
                ts_status st = io_fail(err, "cannot move aside", f->final);
                free(old);
                return st;
            }
            if (rename(f->tmp, f->final) != 0) {
                ts_status st = io_fail(err, "cannot rename to", f->final);
                rename(old, f->final);
                free(old);
                return st;
            }
            remove_tree(old);
            free(old);
        } else if (rename(f->tmp, f->final) != 0) {
            return io_fail(err, "cannot rename to", f->final);
        }
        f->placed = 1;
        return TS_OK;
    }
    if (ts__tmpout_place(f->tmp, f->keep, f->final, j->o->overwrite) != 0)
        return io_fail(err, errno == EEXIST ? "will not replace" : "cannot put in place",
                       f->final);
    f->placed = 1;
    return TS_OK;
}

/* ---- headers ----------------------------------------------------------------- */

static ts_status sink_str(ts__sink *s, const char *t, ts_error *err)
{
    return ts__sink_add(s, t, strlen(t), err);
}

/* The npy header for p, as NumPy 1.24's np.save writes it, into s. */
static ts_status npy_header(const plan *p, ts__sink *s, ts_error *err)
{
    char descr[16], dict[64 + TS_MAX_NDIM * 22];
    ts_descr_format(p->out, '<', descr, sizeof descr);
    int nd = ts_shape_ndim(&p->a->shape);
    const int64_t *dims = ts_shape_dims(&p->a->shape);
    size_t n = (size_t)snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, "
                                "'shape': (", descr);
    for (int k = 0; k < nd; k++)
        n += (size_t)snprintf(dict + n, sizeof dict - n, k ? ", %lld" : "%lld",
                              (long long)dims[k]);
    n += (size_t)snprintf(dict + n, sizeof dict - n, "%s), }", nd == 1 ? "," : "");
    /* GROWTH_AXIS_MAX_DIGITS = 21 spaces less the digits of shape[0] */
    size_t growth = 0;
    if (nd > 0) {
        char d0[24];
        growth = 21 - (size_t)snprintf(d0, sizeof d0, "%lld", (long long)dims[0]);
    }
    size_t hlen = n + growth + 1; /* + '\n' */
    /* version 1.0 unless its u16 length cannot hold the padded header */
    int v2 = hlen + 64 - (10 + hlen) % 64 > 65535;
    size_t pre = v2 ? 12 : 10;
    size_t pad = 64 - (pre + hlen) % 64;
    size_t total = hlen + pad;
    if (total > UINT32_MAX)
        return ts__error(err, TS_ERR_LIMIT, "npy header of %zu bytes", total);
    unsigned char magic[12] = {0x93, 'N', 'U', 'M', 'P', 'Y', (unsigned char)(v2 ? 2 : 1), 0};
    if (v2)
        ts__put_le32(magic + 8, (uint32_t)total);
    else {
        magic[8] = (unsigned char)total;
        magic[9] = (unsigned char)(total >> 8);
    }
    ts_status st = ts__sink_add(s, (const char *)magic, pre, err);
    if (!st)
        st = ts__sink_add(s, dict, n, err);
    for (size_t i = 0; !st && i < growth + pad; i++)
        st = ts__sink_add(s, " ", 1, err);
    if (!st)
        st = ts__sink_add(s, "\n", 1, err);
    return st;
}

/* The safetensors header (without its length) of plans idx[0..n), whose
 * begin fields are set, into s; padded so that 8 + length is a multiple of
 * 8. The JSON keys are in byte order of the names. */
static ts_status st_header(const job *j, plan *const *byname, size_t n, ts__sink *s,
                           ts_error *err)
{
    const ts_write_options *o = j->o;
    ts_status st = sink_str(s, "{\"__metadata__\":{\"format\":\"pt\"", err);
    if (!st && o->source_file) {
        st = sink_str(s, ",\"source_file\":", err);
        if (!st)
            st = ts__sink_json_string(s, (const unsigned char *)o->source_file,
                                      strlen(o->source_file), err);
    }
    if (!st && o->source_format) {
        st = sink_str(s, ",\"source_format\":", err);
        if (!st)
            st = ts__sink_json_string(s, (const unsigned char *)o->source_format,
                                      strlen(o->source_format), err);
    }
    if (!st)
        st = sink_str(s, "}", err);
    for (size_t i = 0; !st && i < n; i++) {
        const plan *p = byname[i];
        char num[64];
        st = sink_str(s, ",", err);
        if (!st)
            st = ts__sink_json_string(s, (const unsigned char *)p->name, strlen(p->name), err);
        if (!st)
            st = sink_str(s, ":{\"dtype\":\"", err);
        if (!st)
            st = sink_str(s, st_dtype_name(p->out), err);
        if (!st)
            st = sink_str(s, "\",\"shape\":[", err);
        int nd = ts_shape_ndim(&p->a->shape);
        for (int k = 0; !st && k < nd; k++) {
            snprintf(num, sizeof num, k ? ",%lld" : "%lld",
                     (long long)ts_shape_dims(&p->a->shape)[k]);
            st = sink_str(s, num, err);
        }
        snprintf(num, sizeof num, "],\"data_offsets\":[%lld,%lld]}", (long long)p->begin,
                 (long long)(p->begin + p->nbytes));
        if (!st)
            st = sink_str(s, num, err);
    }
    if (!st)
        st = sink_str(s, "}", err);
    while (!st && (s->total + 8) % 8)
        st = sink_str(s, " ", err);
    return st;
}

static int cmp_plan_name(const void *x, const void *y)
{
    return strcmp((*(plan *const *)x)->name, (*(plan *const *)y)->name);
}

/* Data order of safetensors: larger itemsize first, then name (so every
 * tensor starts at a multiple of its itemsize), as safetensors' writer. */
static int cmp_plan_place(const void *x, const void *y)
{
    const plan *a = *(plan *const *)x, *b = *(plan *const *)y;
    if (a->itemsize != b->itemsize)
        return a->itemsize > b->itemsize ? -1 : 1;
    return strcmp(a->name, b->name);
}

/* ---- safetensors ------------------------------------------------------------- */

/* Writes one safetensors file of the plans byname[0..n) (sorted by name). */
static ts_status write_st_file(job *j, const char *dir, const char *final, plan **byname,
                               size_t n, ts_error *err)
{
    plan **order = malloc((n ? n : 1) * sizeof *order);
    if (!order)
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    memcpy(order, byname, n * sizeof *order);
    qsort(order, n, sizeof *order, cmp_plan_place);
    int64_t at = 0;
    for (size_t i = 0; i < n; i++) {
        order[i]->begin = at;
        at += order[i]->nbytes;
    }
    ts__sink s = {NULL, 0, 0, 0, NULL, NULL};
    ts_status st = st_header(j, byname, n, &s, err); /* measure */
    if (!st && s.total > 100000000)
        st = ts__error(err, TS_ERR_LIMIT, "safetensors header of %zu bytes is above the "
                       "format's limit of 100,000,000", s.total);
    size_t hlen = s.total;
    char *hdr = NULL;
    if (!st && !(hdr = malloc(8 + hlen)))
        st = ts__error(err, TS_ERR_NOMEM, "out of memory");
    if (!st) {
        ts__sink t = {hdr + 8, 0, hlen, 0, NULL, NULL};
        ts__put_le32((unsigned char *)hdr, (uint32_t)hlen);
        ts__put_le32((unsigned char *)hdr + 4, (uint32_t)((uint64_t)hlen >> 32));
        st = st_header(j, byname, n, &t, err);
    }
    if (!st)
        st = new_output(j, dir, final, 0, &j->fd, err);
    if (st) {
        free(hdr), free(order);
        return st;
    }
    j->fd_path = j->files[j->nfiles - 1].final; /* for messages */
    st = preallocate(j, (int64_t)(8 + hlen) + at, err);
    if (!st)
        st = write_all(j, (unsigned char *)hdr, 8 + hlen, err);
    for (size_t i = 0; !st && i < n; i++) {
        XXH3_64bits_reset(j->sum);
        st = pump_to_fd(j, order[i], err);
        order[i]->sum = XXH3_64bits_digest(j->sum);
    }
    ts_status st2 = finish_fd(j, err);
    free(hdr), free(order);
    return st ? st : st2;
}

/* The shard file names: STEM-0000K-of-0000M.safetensors. */
static char *shard_name(const char *dir, const char *stem, size_t k, size_t m)
{
    size_t len = strlen(dir) + strlen(stem) + 64;
    char *s = malloc(len);
    if (s)
        snprintf(s, len, "%s/%s-%05zu-of-%05zu.safetensors", dir, stem, k + 1, m);
    return s;
}

static ts_status write_safetensors(job *j, const char *path, plan **byname, ts_error *err)
{
    char *dir = NULL, *base = NULL;
    if (split_path(path, &dir, &base) != 0) {
        free(dir), free(base);
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    }
    ts_status st = TS_OK;
    /* shards: name order, greedy */
    size_t nshards = 1;
    int64_t max = j->o->max_shard_size, used = 0;
    for (size_t i = 0; i < j->n; i++) {
        plan *p = byname[i];
        if (max > 0 && used > 0 && (p->nbytes > max - used)) {
            nshards++;
            used = 0;
        }
        p->shard = nshards - 1;
        used += p->nbytes;
    }
    if (nshards == 1) {
        st = write_st_file(j, dir, path, byname, j->n, err);
        free(dir), free(base);
        return st;
    }
    size_t bl = strlen(base);
    char *stem = strdup(base);
    if (!stem)
        st = ts__error(err, TS_ERR_NOMEM, "out of memory");
    else if (bl > 12 && strcmp(stem + bl - 12, ".safetensors") == 0)
        stem[bl - 12] = '\0';
    size_t first = 0;
    for (size_t k = 0; !st && k < nshards; k++) {
        size_t end = first;
        while (end < j->n && byname[end]->shard == k)
            end++;
        char *name = shard_name(dir, stem, k, nshards);
        st = name ? write_st_file(j, dir, name, byname + first, end - first, err)
                  : ts__error(err, TS_ERR_NOMEM, "out of memory");
        free(name);
        first = end;
    }
    /* the index, as save_pretrained: json.dumps(indent=2, sort_keys=True) */
    if (!st) {
        int64_t total = 0;
        for (size_t i = 0; i < j->n; i++)
            total += byname[i]->nbytes;
        size_t len = strlen(dir) + strlen(stem) + 32;
        char *ipath = malloc(len);
        if (!ipath) {
            st = ts__error(err, TS_ERR_NOMEM, "out of memory");
        } else {
            snprintf(ipath, len, "%s/%s.safetensors.index.json", dir, stem);
            st = new_output(j, dir, ipath, 0, &j->fd, err);
            free(ipath);
        }
        if (!st) {
            j->fd_path = j->files[j->nfiles - 1].final; /* for messages */
            char buf[1 << 14];
            ts__sink s = {buf, 0, sizeof buf, 0, NULL, NULL};
            char num[96];
            snprintf(num, sizeof num, "{\n  \"metadata\": {\n    \"total_size\": %lld\n  },\n"
                     "  \"weight_map\": {", (long long)total);
            st = sink_str(&s, num, err);
            for (size_t i = 0; !st && i < j->n; i++) {
                char *fname = shard_name("", stem, byname[i]->shard, nshards);
                st = sink_str(&s, i ? ",\n    " : "\n    ", err);
                if (!st)
                    st = ts__sink_json_string(&s, (const unsigned char *)byname[i]->name,
                                              strlen(byname[i]->name), err);
                if (!st)
                    st = sink_str(&s, ": ", err);
                if (!st)
                    st = fname ? ts__sink_json_string(&s, (const unsigned char *)fname + 1,
                                                      strlen(fname + 1), err)
                               : ts__error(err, TS_ERR_NOMEM, "out of memory");
                free(fname);
                if (!st && s.n > sizeof buf / 2) {
                    st = write_all(j, (unsigned char *)buf, s.n, err);
                    s.n = 0;
                }
            }
            if (!st)
                st = sink_str(&s, "\n  }\n}\n", err);
            if (!st)
                st = write_all(j, (unsigned char *)buf, s.n, err);
            ts_status st2 = finish_fd(j, err);
            if (!st)
                st = st2;
        }
    }
    free(stem), free(dir), free(base);
    return st;
}

/* ---- npy folder ----------------------------------------------------------------- */

static ts_status write_npy_file(job *j, plan *p, const char *path, ts_error *err)
{
    j->fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (j->fd < 0)
        return io_fail(err, "cannot create", path);
    j->fd_path = path;
    char hbuf[256 + TS_MAX_NDIM * 24];
    ts__sink s = {hbuf, 0, sizeof hbuf, 0, NULL, NULL};
    ts_status st = npy_header(p, &s, err);
    if (!st && s.total > s.n)
        st = ts__error(err, TS_ERR_LIMIT, "npy header too long");
    if (!st)
        st = preallocate(j, (int64_t)s.n + p->nbytes, err);
    if (!st)
        st = write_all(j, (unsigned char *)hbuf, s.n, err);
    XXH3_64bits_reset(j->sum);
    if (!st)
        st = pump_to_fd(j, p, err);
    p->sum = XXH3_64bits_digest(j->sum);
    ts_status st2 = finish_fd(j, err);
    return st ? st : st2;
}

/* Makes the subfolders of file path fp below the folder root (its first
 * len bytes), each once, recording those made for sync_outputs. */
static ts_status make_parents(job *j, char *fp, size_t len, ts_error *err)
{
    mode_t mask = umask(0);
    umask(mask);
    for (char *c = fp + len + 1; (c = strchr(c, '/')) != NULL; c++) {
        *c = '\0';
        int made = mkdir(fp, 0777 & ~mask) == 0;
        if (!made && errno != EEXIST) {
            ts_status st = io_fail(err, "cannot create folder", fp);
            *c = '/';
            return st;
        }
        if (made) {
            if (j->ndirs == j->capdirs) {
                size_t cap = j->capdirs ? 2 * j->capdirs : 16;
                char **p = realloc(j->dirs, cap * sizeof *p);
                if (!p) {
                    *c = '/';
                    return ts__error(err, TS_ERR_NOMEM, "out of memory");
                }
                j->dirs = p;
                j->capdirs = cap;
            }
            if (!(j->dirs[j->ndirs] = strdup(fp))) {
                *c = '/';
                return ts__error(err, TS_ERR_NOMEM, "out of memory");
            }
            j->ndirs++;
        }
        *c = '/';
    }
    return TS_OK;
}

static ts_status write_npy_dir(job *j, const char *path, plan **byname, ts_error *err)
{
    char *dir = NULL, *base = NULL;
    int fd;
    if (split_path(path, &dir, &base) != 0) {
        free(dir), free(base);
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    }
    ts_status st = new_output(j, dir, path, 1, &fd, err);
    const char *tmp = st ? NULL : j->files[j->nfiles - 1].tmp;
    for (size_t i = 0; !st && i < j->n; i++) {
        char *fp = join(tmp, byname[i]->npy_path, ".npy");
        if (fp && strchr(byname[i]->npy_path, '/') &&
            (st = make_parents(j, fp, strlen(tmp), err)) != TS_OK) {
            fail_array(byname[i], err, st);
            free(fp);
            break;
        }
        st = fp ? write_npy_file(j, byname[i], fp, err)
                : ts__error(err, TS_ERR_NOMEM, "out of memory");
        if (st && st != TS_ERR_NOMEM && !strstr(err->message, "array '"))
            fail_array(byname[i], err, st);
        free(fp);
    }
    free(dir), free(base);
    return st;
}

/* ---- npz, stored: written here ------------------------------------------------------ */

/*
 * An .npz without compression is written directly (libzip is kept for
 * deflated members): its members' bytes go from the map (or the pump's
 * buffer) to write(2) as a safetensors file's do, their CRC-32 computed on
 * the way by ts__crc32_fast, where libzip would copy each byte twice into
 * its buffers and take zlib's slower CRC (issue 28: convert as fast as
 * `cp && sync`). The layout is that of APPNOTE.TXT 6.3 (PKWARE's ZIP file
 * format specification), as Python's zipfile writes it: for each member a
 * local header (its CRC-32 written in place once the data is through), the
 * npy header and data; then the central directory and the end record, with
 * the ZIP64 extra field, end record and locator (APPNOTE 4.3.14-15, 4.5.3)
 * where a size, offset or count does not fit its 16 or 32 bits.
 */

int ts__test_npz_libzip;
uint64_t ts__test_zip64_at;

/* 1 when a size or offset needs ZIP64's 64 bits (a count: n >= 0xFFFF). */
static int zip_big(uint64_t v)
{
    return v >= (ts__test_zip64_at ? ts__test_zip64_at : 0xffffffffu);
}

/* Members written: what the central directory repeats. */
typedef struct zentry {
    uint64_t size;               /* stored = uncompressed bytes */
    uint64_t offset;             /* of the local header */
    uint32_t crc;
} zentry;

#define ZIP_U32_MAX 0xffffffffu
#define ZIP_U16_MAX 0xffffu

/* MS-DOS time and date of now (local time, as zip tools write), or of
 * 1980-01-01 00:00 if the clock is before it. */
static void dos_now(unsigned *dtime, unsigned *ddate)
{
    time_t now = time(NULL);
    struct tm tm;
    if (now == (time_t)-1 || !localtime_r(&now, &tm) || tm.tm_year < 80 || tm.tm_year > 207) {
        *dtime = 0;
        *ddate = (1 << 5) | 1;
        return;
    }
    *dtime = (unsigned)(tm.tm_hour << 11 | tm.tm_min << 5 | tm.tm_sec / 2);
    *ddate = (unsigned)((tm.tm_year - 80) << 9 | (tm.tm_mon + 1) << 5 | tm.tm_mday);
}

static void put_le16(unsigned char *p, unsigned v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

/* 0x0800 (APPNOTE 4.4.4 bit 11: the name is UTF-8) for a name beyond
 * ASCII, as zipfile. */
static unsigned name_flags(const char *name)
{
    for (const unsigned char *c = (const unsigned char *)name; *c; c++)
        if (*c >= 0x80)
            return 0x0800;
    return 0;
}

/* One member: local header, npy header, data; its CRC-32 is written into
 * the local header afterwards. e->offset is set by the caller. */
static ts_status zip_member(job *j, plan *p, const char *mname, unsigned dtime, unsigned ddate,
                            zentry *e, ts_error *err)
{
    unsigned char hdr[256 + TS_MAX_NDIM * 24];
    ts__sink s = {(char *)hdr, 0, sizeof hdr, 0, NULL, NULL};
    ts_status st = npy_header(p, &s, err);
    if (st)
        return st;
    if (s.total > s.n)
        return ts__error(err, TS_ERR_LIMIT, "npy header too long");
    size_t nl = strlen(mname);
    if (nl > ZIP_U16_MAX)
        return fail_array(p, err, ts__error(err, TS_ERR_LIMIT, "the member name of %zu bytes "
                                            "is above zip's 65,535", nl));
    e->size = (uint64_t)s.n + (uint64_t)p->nbytes;
    int z64 = zip_big(e->size);
    unsigned char lh[30 + 20];
    memset(lh, 0, sizeof lh);
    ts__put_le32(lh, 0x04034b50);
    put_le16(lh + 4, z64 ? 45 : 20);             /* version needed: 4.5 for ZIP64 */
    put_le16(lh + 6, name_flags(mname));
    put_le16(lh + 8, 0);                          /* stored */
    put_le16(lh + 10, dtime);
    put_le16(lh + 12, ddate);
    /* lh + 14: CRC-32, written when known */
    ts__put_le32(lh + 18, z64 ? ZIP_U32_MAX : (uint32_t)e->size);
    ts__put_le32(lh + 22, z64 ? ZIP_U32_MAX : (uint32_t)e->size);
    put_le16(lh + 26, (unsigned)nl);
    put_le16(lh + 28, z64 ? 20 : 0);
    if (z64) { /* the local header's ZIP64 field has both sizes (4.5.3) */
        put_le16(lh + 30, 0x0001);
        put_le16(lh + 32, 16);
        ts__put_le64(lh + 34, e->size);
        ts__put_le64(lh + 42, e->size);
    }
    if ((st = write_all(j, lh, 30, err)) || (st = write_all(j, (const unsigned char *)mname,
                                                             nl, err)))
        return st;
    if (z64 && (st = write_all(j, lh + 30, 20, err)))
        return st;
    if ((st = write_all(j, hdr, s.n, err)))
        return st;
    j->crc = ts__crc32_fast(0, hdr, s.n);
    j->want_crc = 1;
    XXH3_64bits_reset(j->sum);
    st = pump_to_fd(j, p, err);
    p->sum = XXH3_64bits_digest(j->sum);
    j->want_crc = 0;
    e->crc = p->crc = j->crc;
    p->has_crc = 1;
    if (st)
        return st;
    unsigned char c[4];
    ts__put_le32(c, e->crc);
    if (pwrite(j->fd, c, 4, (off_t)(e->offset + 14)) != 4)
        return io_fail(err, "cannot write", j->fd_path);
    return TS_OK;
}

/* The central directory of members e[0..n) named byname[i]->name + ".npy",
 * from byte `at`, and the end records. */
static ts_status zip_directory(job *j, plan **byname, const zentry *e, size_t n,
                               unsigned dtime, unsigned ddate, uint64_t at, ts_error *err)
{
    uint64_t cd_size = 0;
    ts_status st = TS_OK;
    for (size_t i = 0; !st && i < n; i++) {
        const char *name = byname[i]->name;
        size_t nl = strlen(name) + 4;
        int big_size = zip_big(e[i].size), big_off = zip_big(e[i].offset);
        unsigned xlen = (big_size ? 16u : 0u) + (big_off ? 8u : 0u);
        unsigned char ch[46 + 4 + 24];
        memset(ch, 0, sizeof ch);
        ts__put_le32(ch, 0x02014b50);
        put_le16(ch + 4, 3 << 8 | (xlen ? 45 : 20)); /* made by: UNIX, version */
        put_le16(ch + 6, xlen ? 45 : 20);
        put_le16(ch + 8, name_flags(name));
        put_le16(ch + 10, 0);
        put_le16(ch + 12, dtime);
        put_le16(ch + 14, ddate);
        ts__put_le32(ch + 16, e[i].crc);
        ts__put_le32(ch + 20, big_size ? ZIP_U32_MAX : (uint32_t)e[i].size);
        ts__put_le32(ch + 24, big_size ? ZIP_U32_MAX : (uint32_t)e[i].size);
        put_le16(ch + 28, (unsigned)nl);
        put_le16(ch + 30, xlen ? xlen + 4 : 0);
        /* comment, disk, internal attributes: 0 */
        ts__put_le32(ch + 38, (uint32_t)0100644 << 16); /* a regular file, rw-r--r-- */
        ts__put_le32(ch + 42, big_off ? ZIP_U32_MAX : (uint32_t)e[i].offset);
        unsigned char *x = ch + 46;
        if (xlen) { /* only the fields whose header value is 0xFFFFFFFF, in order */
            put_le16(x, 0x0001);
            put_le16(x + 2, xlen);
            x += 4;
            if (big_size) {
                ts__put_le64(x, e[i].size);
                ts__put_le64(x + 8, e[i].size);
                x += 16;
            }
            if (big_off) {
                ts__put_le64(x, e[i].offset);
                x += 8;
            }
        }
        st = write_all(j, ch, 46, err);
        if (!st)
            st = write_all(j, (const unsigned char *)name, nl - 4, err);
        if (!st)
            st = write_all(j, (const unsigned char *)".npy", 4, err);
        if (!st && xlen)
            st = write_all(j, ch + 46, (size_t)(x - (ch + 46)), err);
        cd_size += 46 + nl + (xlen ? xlen + 4 : 0);
    }
    if (st)
        return st;
    uint64_t end_at = at + cd_size;
    int many = n >= ZIP_U16_MAX || (ts__test_zip64_at && n >= ts__test_zip64_at);
    int z64 = many || zip_big(cd_size) || zip_big(at);
    unsigned char r[56 + 20 + 22];
    size_t len = 0;
    memset(r, 0, sizeof r);
    if (z64) { /* ZIP64 end of central directory record and locator (4.3.14, 4.3.15) */
        ts__put_le32(r, 0x06064b50);
        ts__put_le64(r + 4, 44);
        put_le16(r + 12, 3 << 8 | 45);
        put_le16(r + 14, 45);
        /* r + 16, 20: this disk, the directory's disk: 0 */
        ts__put_le64(r + 24, n);
        ts__put_le64(r + 32, n);
        ts__put_le64(r + 40, cd_size);
        ts__put_le64(r + 48, at);
        ts__put_le32(r + 56, 0x07064b50);
        /* r + 60: the disk of the ZIP64 end record: 0 */
        ts__put_le64(r + 64, end_at);
        ts__put_le32(r + 72, 1); /* disks */
        len = 76;
    }
    unsigned char *q = r + len;
    ts__put_le32(q, 0x06054b50);
    put_le16(q + 8, many ? ZIP_U16_MAX : (unsigned)n);
    put_le16(q + 10, many ? ZIP_U16_MAX : (unsigned)n);
    ts__put_le32(q + 12, zip_big(cd_size) ? ZIP_U32_MAX : (uint32_t)cd_size);
    ts__put_le32(q + 16, zip_big(at) ? ZIP_U32_MAX : (uint32_t)at);
    return write_all(j, r, len + 22, err);
}

/* An .npz of stored members, in name order. */
static ts_status write_npz_stored(job *j, const char *path, plan **byname, ts_error *err)
{
    char *dir = NULL, *base = NULL;
    int fd = -1;
    if (split_path(path, &dir, &base) != 0) {
        free(dir), free(base);
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    }
    zentry *e = calloc(j->n ? j->n : 1, sizeof *e);
    ts_status st = e ? new_output(j, dir, path, 0, &fd, err)
                     : ts__error(err, TS_ERR_NOMEM, "out of memory");
    free(dir), free(base);
    if (st) {
        free(e);
        return st;
    }
    j->fd = fd;
    j->fd_path = j->files[j->nfiles - 1].final; /* for messages */
    unsigned dtime, ddate;
    dos_now(&dtime, &ddate);
    /* the arrays' bytes: less than the file, which has headers too */
    st = preallocate(j, j->total, err);
    for (size_t i = 0; !st && i < j->n; i++) {
        plan *p = byname[i];
        char *mname = join("", p->name, ".npy");
        e[i].offset = (uint64_t)j->fd_pos;
        st = mname ? zip_member(j, p, mname + 1, dtime, ddate, &e[i], err)
                   : ts__error(err, TS_ERR_NOMEM, "out of memory");
        free(mname);
    }
    if (!st)
        st = zip_directory(j, byname, e, j->n, dtime, ddate, (uint64_t)j->fd_pos, err);
    free(e);
    ts_status st2 = finish_fd(j, err);
    return st ? st : st2;
}

/* ---- npz (libzip) ------------------------------------------------------------------ */

#define ZIP_FUNCS(X)                                                                     \
    X(zip_source_t *, zip_source_function_create,                                        \
      (zip_source_callback, void *, zip_error_t *))                                       \
    X(zip_t *, zip_open_from_source, (zip_source_t *, int, zip_error_t *))               \
    X(zip_source_t *, zip_source_function, (zip_t *, zip_source_callback, void *))       \
    X(zip_int64_t, zip_file_add, (zip_t *, const char *, zip_source_t *, zip_flags_t))   \
    X(void, zip_source_free, (zip_source_t *))                                           \
    X(int, zip_set_file_compression, (zip_t *, zip_uint64_t, zip_int32_t, zip_uint32_t)) \
    X(int, zip_close, (zip_t *))                                                         \
    X(void, zip_discard, (zip_t *))                                                      \
    X(const char *, zip_strerror, (zip_t *))                                             \
    X(void, zip_error_init, (zip_error_t *))                                             \
    X(void, zip_error_init_with_code, (zip_error_t *, int))                              \
    X(const char *, zip_error_strerror, (zip_error_t *))                                 \
    X(void, zip_error_fini, (zip_error_t *))                                             \
    X(void, zip_error_set, (zip_error_t *, int, int))                                    \
    X(zip_int64_t, zip_error_to_data, (const zip_error_t *, void *, zip_uint64_t))       \
    X(void, zip_stat_init, (zip_stat_t *))

/* libzip, loaded with dlopen the first time an .npz is written (as
 * hdf5.c loads libhdf5): linked, it and the libcrypto and libbz2 it needs
 * would cost every start of the program (bench/startup.sh). */
typedef struct zip_api {
#define X(ret, name, args) ret(*name) args;
    ZIP_FUNCS(X)
#undef X
} zip_api;

static zip_api zapi;
static int zapi_state; /* 0 not tried, 1 loaded, -1 failed */
static char zapi_error[160];

static int load_zip(void)
{
    if (zapi_state)
        return zapi_state;
    void *h = dlopen("libzip.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(zapi_error, sizeof zapi_error,
                 "writing .npz needs libzip (libzip.so.4; Debian: apt install libzip4), which "
                 "is not installed");
        return zapi_state = -1;
    }
#define X(ret, name, args)                                                               \
    {                                                                                    \
        void *sym = dlsym(h, #name);                                                     \
        if (!sym) {                                                                      \
            snprintf(zapi_error, sizeof zapi_error, "libzip.so.4 lacks %s", #name);      \
            return zapi_state = -1;                                                      \
        }                                                                                \
        memcpy(&zapi.name, &sym, sizeof sym);                                            \
    }
    ZIP_FUNCS(X)
#undef X
    return zapi_state = 1;
}

typedef struct zmember {
    job *j;
    plan *p;
    unsigned char hdr[256 + TS_MAX_NDIM * 24];
    size_t hdr_len;
    int direct;                  /* served from the map */
    ts__data d;
    unsigned char *mem;          /* the converted bytes, while open */
    size_t mem_len;
    uint64_t stage_at, stage_len;  /* direct: data bytes [at, at + len) in the
                                      job's buffer, copied under one guard */
    uint64_t pos;
    zip_error_t error;
} zmember;

static ts_status emit_mem(void *ctx, const unsigned char *p, size_t len, ts_error *err)
{
    zmember *m = ctx;
    (void)err;
    memcpy(m->mem + m->mem_len, p, len);
    m->mem_len += len;
    return TS_OK;
}

typedef struct zcopy {
    zmember *m;
    unsigned char *dst;
    size_t n;
    uint64_t at;
} zcopy;

/* Copies data bytes [at, at + n) of a direct member from the map (libzip
 * reads 8 KiB at a time: it is served from PUMP_BYTES copied at once). */
static ts_status zcopy_guarded(void *arg, ts_error *err)
{
    zcopy *c = arg;
    const ts__data *d = &c->m->d;
    uint64_t off = (uint64_t)(ts__data_at(d, 0) - d->image) + c->at;
    /* d->source: the file's, or its side file's (ONNX external data) */
    ts_status st = ts__source_read(d->source, off, c->dst, c->n, err);
    if (!st && ts__source_is_mapped(d->source))
        drop_pages(d->image + off, c->n);
    return st;
}

static zip_int64_t zsource(void *user, void *data, zip_uint64_t len, zip_source_cmd_t cmd)
{
    zmember *m = user;
    job *j = m->j;
    ts_error *err = &j->zerr;
    switch ((int)cmd) { /* libzip adds commands; the others are refused */
    case ZIP_SOURCE_OPEN:
        m->pos = 0;
        m->stage_len = 0;
        XXH3_64bits_reset(j->sum); /* libzip reads one member at a time */
        if (!m->direct && m->p->nbytes > 0) {
            ts_status st;
            if ((uint64_t)m->p->nbytes > SIZE_MAX || !(m->mem = malloc((size_t)m->p->nbytes)))
                st = fail_array(m->p, err, ts__error(err, TS_ERR_NOMEM, "out of memory for "
                                                     "%lld bytes", (long long)m->p->nbytes));
            else
                st = pump_array(m->p, j->buf, j->dbuf, emit_mem, m, err);
            if (st) {
                free(m->mem);
                m->mem = NULL;
                m->mem_len = 0;
                j->has_zerr = 1;
                zapi.zip_error_set(&m->error, ZIP_ER_READ, EIO);
                return -1;
            }
        }
        return 0;
    case ZIP_SOURCE_READ: {
        uint64_t total = m->hdr_len + (uint64_t)m->p->nbytes, n = 0;
        unsigned char *out = data;
        if (m->pos < m->hdr_len) {
            n = m->hdr_len - m->pos < len ? m->hdr_len - m->pos : len;
            memcpy(out, m->hdr + m->pos, n);
        }
        uint64_t at = m->pos + n - m->hdr_len, k = total - m->pos - n;
        if (k > len - n)
            k = len - n;
        if (k > 0) {
            if (m->direct) {
                if (at < m->stage_at || at >= m->stage_at + m->stage_len) {
                    uint64_t left = (uint64_t)m->p->nbytes - at;
                    zcopy c = {m, j->buf, (size_t)(left < PUMP_BYTES ? left : PUMP_BYTES), at};
                    m->stage_len = 0;
                    if (ts__data_guard(&m->d, zcopy_guarded, &c, err)) {
                        j->has_zerr = 1;
                        zapi.zip_error_set(&m->error, ZIP_ER_READ, EIO);
                        return -1;
                    }
                    m->stage_at = at;
                    m->stage_len = c.n;
                }
                if (k > m->stage_at + m->stage_len - at)
                    k = m->stage_at + m->stage_len - at;
                memcpy(out + n, j->buf + (at - m->stage_at), (size_t)k);
            } else {
                memcpy(out + n, m->mem + at, (size_t)k);
            }
            ts__xxh3_update(j->sum, out + n, (size_t)k);
            if (progress(j, (int64_t)k, err)) {
                j->has_zerr = 1;
                zapi.zip_error_set(&m->error, ZIP_ER_READ, EINTR);
                return -1;
            }
        }
        m->pos += n + k;
        return (zip_int64_t)(n + k);
    }
    case ZIP_SOURCE_CLOSE:
        free(m->mem);
        m->mem = NULL;
        m->mem_len = 0;
        if (m->pos == m->hdr_len + (uint64_t)m->p->nbytes)
            m->p->sum = XXH3_64bits_digest(j->sum);
        return 0;
    case ZIP_SOURCE_STAT: {
        zip_stat_t *s = data;
        if (len < sizeof *s)
            return -1;
        zapi.zip_stat_init(s);
        s->size = m->hdr_len + (uint64_t)m->p->nbytes;
        s->valid |= ZIP_STAT_SIZE;
        return sizeof *s;
    }
    case ZIP_SOURCE_ERROR:
        return zapi.zip_error_to_data(&m->error, data, len);
    case ZIP_SOURCE_FREE:
        return 0;
    case ZIP_SOURCE_SUPPORTS:
        return ZIP_SOURCE_SUPPORTS_READABLE;
    default:
        zapi.zip_error_set(&m->error, ZIP_ER_OPNOTSUPP, 0);
        return -1;
    }
}

/* The archive itself, for libzip: a writable source over the temporary
 * file, so libzip writes where ts_write's temporary file is (no temporary
 * file of its own), in PUMP_BYTES pieces started on their way to the disk
 * as they go (write_all's kick), not in stdio's 4 KiB. */
typedef struct zout {
    job *j;
    uint64_t pos, end;           /* write position; bytes in the file */
    unsigned char *buf;          /* file bytes [buf_at, buf_at + buf_len) */
    uint64_t buf_at;
    size_t buf_len;
    zip_error_t error;
} zout;

static int zout_flush(zout *z)
{
    job *j = z->j;
    if (z->buf_len == 0)
        return 0;
    if (lseek(j->fd, (off_t)z->buf_at, SEEK_SET) < 0 ||
        (j->fd_pos = (int64_t)z->buf_at,
         write_all(j, z->buf, z->buf_len, &j->zerr) != TS_OK)) {
        if (!j->has_zerr)
            io_fail(&j->zerr, "cannot write", j->fd_path);
        j->has_zerr = 1;
        zapi.zip_error_set(&z->error, ZIP_ER_WRITE, errno);
        return -1;
    }
    z->buf_len = 0;
    return 0;
}

static zip_int64_t zarchive(void *user, void *data, zip_uint64_t len, zip_source_cmd_t cmd)
{
    zout *z = user;
    switch ((int)cmd) { /* libzip adds commands; the others are refused */
    case ZIP_SOURCE_STAT: {
        zip_stat_t *st = data;
        if (len < sizeof *st)
            return -1;
        zapi.zip_stat_init(st);
        st->size = z->end; /* 0 at the start: a new, empty archive */
        st->valid |= ZIP_STAT_SIZE;
        return sizeof *st;
    }
    case ZIP_SOURCE_OPEN: case ZIP_SOURCE_CLOSE: case ZIP_SOURCE_FREE: case ZIP_SOURCE_REMOVE:
    case ZIP_SOURCE_READ: case ZIP_SOURCE_SEEK: case ZIP_SOURCE_TELL:
        return 0; /* nothing to read: the archive is new */
    case ZIP_SOURCE_BEGIN_WRITE:
        z->pos = z->end = 0;
        z->buf_len = 0;
        return 0;
    case ZIP_SOURCE_WRITE:
        if (z->buf_len && (z->pos != z->buf_at + z->buf_len || z->buf_len + len > PUMP_BYTES) &&
            zout_flush(z) != 0)
            return -1;
        if (z->buf_len == 0)
            z->buf_at = z->pos;
        if (len > PUMP_BYTES) { /* libzip's pieces are smaller: never seen */
            zapi.zip_error_set(&z->error, ZIP_ER_INVAL, 0);
            return -1;
        }
        memcpy(z->buf + z->buf_len, data, (size_t)len);
        z->buf_len += (size_t)len;
        z->pos += len;
        if (z->pos > z->end)
            z->end = z->pos;
        return (zip_int64_t)len;
    case ZIP_SOURCE_SEEK_WRITE: {
        if (len < sizeof(zip_source_args_seek_t)) {
            zapi.zip_error_set(&z->error, ZIP_ER_INVAL, 0);
            return -1;
        }
        const zip_source_args_seek_t *a = data;
        int64_t base = a->whence == SEEK_SET ? 0 : a->whence == SEEK_CUR ? (int64_t)z->pos
                                                                           : (int64_t)z->end;
        if (base + a->offset < 0) {
            zapi.zip_error_set(&z->error, ZIP_ER_INVAL, 0);
            return -1;
        }
        z->pos = (uint64_t)(base + a->offset);
        return 0;
    }
    case ZIP_SOURCE_TELL_WRITE:
        return (zip_int64_t)z->pos;
    case ZIP_SOURCE_COMMIT_WRITE:
        return zout_flush(z);
    case ZIP_SOURCE_ROLLBACK_WRITE:
        z->buf_len = 0; /* ts_write removes the temporary file */
        return 0;
    case ZIP_SOURCE_ERROR:
        return zapi.zip_error_to_data(&z->error, data, len);
    case ZIP_SOURCE_SUPPORTS:
        return ZIP_SOURCE_SUPPORTS_WRITABLE;
    default:
        zapi.zip_error_set(&z->error, ZIP_ER_OPNOTSUPP, 0);
        return -1;
    }
}

static ts_status write_npz(job *j, const char *path, plan **byname, ts_error *err)
{
    if (!j->o->compress && !ts__test_npz_libzip)
        return write_npz_stored(j, path, byname, err);
    char *dir = NULL, *base = NULL;
    int fd = -1;
    if (split_path(path, &dir, &base) != 0) {
        free(dir), free(base);
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    }
    if (load_zip() < 0) {
        free(dir), free(base);
        return ts__error(err, TS_ERR_UNSUPPORTED, "%s", zapi_error);
    }
    ts_status st = new_output(j, dir, path, 0, &fd, err);
    free(dir), free(base);
    if (st)
        return st;
    j->fd = fd;
    j->fd_path = j->files[j->nfiles - 1].final; /* for messages */
    const char *tmp = j->fd_path;
    zmember *ms = calloc(j->n ? j->n : 1, sizeof *ms);
    zout z;
    memset(&z, 0, sizeof z);
    z.j = j;
    z.buf = malloc(PUMP_BYTES);
    zapi.zip_error_init(&z.error);
    zip_error_t ze;
    zapi.zip_error_init(&ze);
    zip_source_t *asrc = ms && z.buf ? zapi.zip_source_function_create(zarchive, &z, &ze) : NULL;
    zip_t *za = asrc ? zapi.zip_open_from_source(asrc, ZIP_CREATE | ZIP_TRUNCATE, &ze) : NULL;
    if (!za) {
        st = !asrc ? ts__error(err, TS_ERR_NOMEM, "out of memory")
                   : ts__error(err, TS_ERR_IO, "cannot start zip '%s': %s", tmp,
                               zapi.zip_error_strerror(&ze));
        if (asrc)
            zapi.zip_source_free(asrc);
        zapi.zip_error_fini(&ze);
        zapi.zip_error_fini(&z.error);
        free(z.buf);
        free(ms);
        return st;
    }
    zapi.zip_error_fini(&ze);
    int64_t bytes_before = j->file_bytes;
    for (size_t i = 0; !st && i < j->n; i++) {
        zmember *m = &ms[i];
        plan *p = byname[i];
        m->j = j;
        m->p = p;
        zapi.zip_error_init(&m->error);
        ts__sink s = {(char *)m->hdr, 0, sizeof m->hdr, 0, NULL, NULL};
        if ((st = npy_header(p, &s, err)))
            break;
        m->hdr_len = s.n;
        if (!p->convert && !p->swap && p->nbytes > 0 &&
            ts__data_open(&m->d, p->file, p->a, err) == TS_OK && !m->d.src && m->d.c_order &&
            m->d.dec.block == 1)
            m->direct = 1;
        size_t nl = strlen(p->name);
        char *mname = malloc(nl + 5);
        zip_source_t *src = mname ? zapi.zip_source_function(za, zsource, m) : NULL;
        if (!src) {
            free(mname);
            st = ts__error(err, TS_ERR_NOMEM, "out of memory");
            break;
        }
        memcpy(mname, p->name, nl);
        memcpy(mname + nl, ".npy", 5);
        zip_int64_t idx = zapi.zip_file_add(za, mname, src, ZIP_FL_ENC_UTF_8);
        free(mname);
        if (idx < 0) {
            zapi.zip_source_free(src);
            st = fail_array(p, err, ts__error(err, TS_ERR_IO, "cannot add zip member: %s",
                                              zapi.zip_strerror(za)));
            break;
        }
        if (zapi.zip_set_file_compression(za, (zip_uint64_t)idx,
                                     j->o->compress ? ZIP_CM_DEFLATE : ZIP_CM_STORE,
                                     j->o->compress ? 6 : 0) != 0) {
            st = ts__error(err, TS_ERR_IO, "cannot set compression: %s", zapi.zip_strerror(za));
            break;
        }
    }
    if (st) {
        zapi.zip_discard(za);
    } else if (zapi.zip_close(za) != 0) {
        if (j->has_zerr)
            st = j->zerr.code;
        else
            st = ts__error(err, TS_ERR_IO, "cannot write '%s': %s", tmp, zapi.zip_strerror(za));
        if (j->has_zerr && err != &j->zerr)
            *err = j->zerr;
        zapi.zip_discard(za);
    }
    for (size_t i = 0; i < j->n; i++)
        zapi.zip_error_fini(&ms[i].error);
    free(ms);
    zapi.zip_error_fini(&z.error);
    free(z.buf);
    j->file_bytes = bytes_before + (int64_t)z.end; /* headers were written twice */
    ts_status st2 = finish_fd(j, err);
    return st ? st : st2;
}

/* ---- files copied beside the output ------------------------------------------------ */

/* What copy_files wrote: the source, its checksum and its temporary. */
typedef struct copied {
    size_t file;                 /* index in j->files */
    uint64_t sum;
    int64_t bytes;
} copied;

/* Reads fd `in` (path: for messages) to its end through j->buf, into the
 * checksum j->sum (reset first) and *bytes, and with copy also into the
 * file being written. */
static ts_status read_through(job *j, int in, const char *path, int copy, int64_t *bytes,
                              ts_error *err)
{
    XXH3_64bits_reset(j->sum);
    *bytes = 0;
    for (;;) {
        ssize_t k = read(in, j->buf, PUMP_BYTES);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return io_fail(err, "cannot read", path);
        if (k == 0)
            return TS_OK;
        ts__xxh3_update(j->sum, j->buf, (size_t)k);
        *bytes += k;
        ts_status st = copy ? write_all(j, j->buf, (size_t)k, err) : TS_OK;
        if (st)
            return st;
    }
}

/* Copies each of opts->copy_files into the folder of path (a temporary
 * each, like the outputs), keeping their checksums for verify_copies. */
static ts_status write_copies(job *j, const char *path, copied *c, size_t *nc, ts_error *err)
{
    const ts_write_options *o = j->o;
    char *dir = NULL, *base = NULL;
    ts_status st = TS_OK;
    *nc = 0;
    if (split_path(path, &dir, &base) != 0)
        st = ts__error(err, TS_ERR_NOMEM, "out of memory");
    for (size_t i = 0; !st && i < o->copy_count; i++) {
        const char *src = o->copy_files[i], *slash = strrchr(src, '/');
        const char *name = slash ? slash + 1 : src;
        char *final = join(dir, name, "");
        struct stat ss, sd;
        if (!final) {
            st = ts__error(err, TS_ERR_NOMEM, "out of memory");
            break;
        }
        int in = open(src, O_RDONLY | O_CLOEXEC);
        if (in < 0 || fstat(in, &ss) != 0 || !S_ISREG(ss.st_mode)) {
            st = in < 0 ? io_fail(err, "cannot open", src)
                        : ts__error(err, TS_ERR_IO, "cannot copy '%s': not a regular file", src);
            if (in >= 0)
                close(in);
            free(final);
            break;
        }
        /* the file is there already (a model converted in its own folder) */
        if (stat(final, &sd) == 0 && sd.st_dev == ss.st_dev && sd.st_ino == ss.st_ino) {
            close(in);
            free(final);
            continue;
        }
        for (size_t k = 0; !st && k < j->nfiles; k++)
            if (strcmp(j->files[k].final, final) == 0)
                st = ts__error(err, TS_ERR_IO, "cannot copy '%s': '%s' is written already",
                               src, final);
        if (!st)
            st = new_output(j, dir, final, 0, &j->fd, err);
        free(final);
        if (st) {
            close(in);
            break;
        }
        j->fd_path = j->files[j->nfiles - 1].final; /* for messages */
        c[*nc].file = j->nfiles - 1;
        st = read_through(j, in, src, 1, &c[*nc].bytes, err);
        close(in);
        c[*nc].sum = XXH3_64bits_digest(j->sum);
        ts_status st2 = finish_fd(j, err);
        if (!st)
            st = st2;
        (*nc)++;
    }
    free(dir), free(base);
    return st;
}

/* Reads each copy back and compares its checksum. */
static ts_status verify_copies(job *j, const copied *c, size_t nc, ts_error *err)
{
    ts_status st = TS_OK;
    for (size_t i = 0; !st && i < nc; i++) {
        const outfile *f = &j->files[c[i].file];
        int in = open(f->tmp, O_RDONLY | O_CLOEXEC);
        if (in < 0)
            return io_fail(err, "cannot open", f->tmp);
        int64_t bytes = 0;
        st = read_through(j, in, f->tmp, 0, &bytes, err);
        close(in);
        if (!st && (bytes != c[i].bytes || XXH3_64bits_digest(j->sum) != c[i].sum))
            st = ts__error(err, TS_ERR_IO, "verifying '%s': the copy read back differs from "
                           "what was written", f->final);
    }
    return st;
}

/* ---- verification ------------------------------------------------------------------ */

typedef struct sum_sink {
    XXH3_state_t *sum;
    int64_t eb;
    int mapped;
} sum_sink;

static ts_status sum_run(void *ctx, const unsigned char *p, int64_t n, ts_error *err)
{
    sum_sink *c = ctx;
    (void)err;
    int64_t bytes = n * c->eb;
    while (bytes > 0) {
        uInt k = bytes > DIRECT_PIECE ? DIRECT_PIECE : (uInt)bytes;
        ts__xxh3_update(c->sum, p, k);
        if (c->mapped)
            drop_pages(p, k);
        p += k;
        bytes -= k;
    }
    return TS_OK;
}

/* The stored bytes of a contiguous array of a whole image hashed where
 * they lie, under the image's guard: for a mapped file its pages are
 * faulted in as read (16 a fault) rather than populated per step, as
 * ts__data_stream does for readers that compute on them (1 GiB
 * safetensors -> npz: CPU 0.314 -> 0.294 s, paired medians of 11 rounds,
 * load 4.7). */
typedef struct sum_whole {
    sum_sink *c;
    const unsigned char *p;
    int64_t n;                   /* elements */
} sum_whole;

static ts_status sum_whole_run(void *arg, ts_error *err)
{
    sum_whole *w = arg;
    return sum_run(w->c, w->p, w->n, err);
}

/* A written file that does not read back: TS_ERR_IO, the reader's message
 * after the file's name (err->code says TS_ERR_IO too). */
static ts_status verify_failed(ts_error *err, const char *shown)
{
    ts__error_prefix(err, "verifying '%s'", shown);
    if (err)
        err->code = TS_ERR_IO;
    return TS_ERR_IO;
}

/*
 * The CRC-32 fields of an .npz written here. Its members' bytes read back
 * have the XXH3-64 of the bytes their CRC-32 was computed from (verify_file),
 * so the local header and central directory entry of each member holding
 * that CRC-32 is what makes the member read back under numpy.load (zipfile
 * checks it) without computing the CRC-32 again: the local header's was
 * written in place after the data (zip_member), and is checked here as
 * nothing else reads it.
 */
typedef struct crc_check {
    ts_file *f;
    plan **ps;                   /* by name, as the members were written */
    size_t n;
    const char *shown;
    int named;                   /* err names the file already */
} crc_check;

static ts_status check_crcs(void *arg, ts_error *err)
{
    crc_check *c = arg;
    size_t len;
    const unsigned char *data = ts__file_image(c->f, &len);
    ts__zip *zip;
    ts_status st = ts__zip_open(&zip, c->f, data, len, err);
    if (st)
        return st;
    if (ts__zip_count(zip) != c->n)
        st = ts__error(err, TS_ERR_IO, "verifying '%s': %zu members written, %zu read back",
                       c->shown, c->n, ts__zip_count(zip));
    for (size_t i = 0; !st && i < c->n; i++) {
        const ts__zip_member *m = ts__zip_member_at(zip, i);
        const plan *p = c->ps[i];
        size_t nl = strlen(p->name);
        char shown_name[96];
        const char *nm = ts__printable_str(p->name, shown_name, sizeof shown_name);
        /* ts__zip_open checked the local header's 30 bytes are there */
        uint32_t local = ts__le32(data + m->local_offset + 14);
        if (strncmp(m->name, p->name, nl) != 0 || strcmp(m->name + nl, ".npy") != 0)
            st = ts__error(err, TS_ERR_IO, "verifying '%s': member %zu is not '%s.npy'",
                           c->shown, i, nm);
        else if (m->crc32 != p->crc || local != p->crc)
            st = ts__error(err, TS_ERR_IO, "verifying '%s': member '%s.npy' reads back with "
                           "CRC-32 %08lx in its directory entry and %08lx in its local header, "
                           "not the %08lx of the bytes written", c->shown, nm,
                           (unsigned long)m->crc32, (unsigned long)local,
                           (unsigned long)p->crc);
    }
    ts__zip_close(c->f, zip);
    c->named = st != TS_OK;
    return st;
}

/* Compares the arrays of the written file at `path` with plans ps[0..n)
 * (sorted by name; for a .npy file n is 1 and the name is not compared),
 * and an .npz's CRC-32 fields with those written (check_crcs). */
static ts_status verify_file(const char *path, const char *shown, plan **ps, size_t n,
                             int npy, XXH3_state_t *sum, ts_error *err)
{
    ts_file *f = NULL;
    /* Mapped: the pages just written are still cached, and hashing them
     * through the map copies nothing (pread would copy each byte again). */
    ts_open_options oo = TS_OPEN_OPTIONS_INIT;
    oo.io = TS_IO_MAP;
    ts_status st = ts_file_open(path, &oo, &f, err);
    if (st)
        return verify_failed(err, shown);
    if (ts_file_count(f) != n) {
        ts_file_close(f);
        return ts__error(err, TS_ERR_IO, "verifying '%s': %zu arrays written, %zu read back",
                         shown, n, ts_file_count(f));
    }
    for (size_t i = 0; !st && i < ts_file_count(f); i++) {
        const ts_array *a = ts_file_array(f, i);
        plan *p = NULL;
        if (npy) {
            p = ps[0];
        } else {
            size_t lo = 0, hi = n;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                int c = strcmp(ps[mid]->name, a->name);
                if (c == 0) {
                    p = ps[mid];
                    break;
                }
                if (c < 0)
                    lo = mid + 1;
                else
                    hi = mid;
            }
        }
        char shown_name[96];
        const char *nm = ts__printable_str(p ? p->name : a->name, shown_name, sizeof shown_name);
        if (!p) {
            st = ts__error(err, TS_ERR_IO, "verifying '%s': array '%s' was not written",
                           shown, nm);
            break;
        }
        if (a->dtype != p->out || !ts_shape_equal(&a->shape, &p->a->shape)) {
            st = ts__error(err, TS_ERR_IO, "verifying '%s': array '%s' reads back as %s "
                           "instead of %s, or with another shape", shown, nm, a->dtype_name,
                           ts_dtype_name(p->out));
            break;
        }
        ts__data d;
        if ((st = ts__data_open(&d, f, a, err))) {
            st = verify_failed(err, shown);
            break;
        }
        sum_sink c = {sum, d.dec.elem_bytes, !d.src && ts__file_is_mapped(f)};
        XXH3_64bits_reset(sum);
        if (!d.src && d.whole && d.contiguous && d.c_order && d.dec.block == 1 &&
            d.implicit_zeros == 0 && d.count > 0) {
            sum_whole w = {&c, ts__data_at(&d, 0), d.count};
            st = ts__data_guard(&d, sum_whole_run, &w, err);
        } else {
            st = ts__data_stream(&d, 0, d.count, sum_run, &c, err);
        }
        if (st) {
            st = verify_failed(err, shown);
        } else if (XXH3_64bits_digest(sum) != p->sum) {
            st = ts__error(err, TS_ERR_IO, "verifying '%s': the data of array '%s' read back "
                           "has checksum (XXH3-64) %016llx, not the %016llx written", shown,
                           nm, (unsigned long long)XXH3_64bits_digest(sum),
                           (unsigned long long)p->sum);
        }
    }
    if (!st && !npy && n > 0 && ps[0]->has_crc) {
        crc_check c = {f, ps, n, shown, 0};
        if ((st = ts__file_guard(f, check_crcs, &c, err)) && !c.named)
            st = verify_failed(err, shown);
    }
    ts_file_close(f);
    return st;
}

void (*ts__test_before_verify)(const char *tmp_path);

static ts_status verify(job *j, plan **byname, ts_error *err)
{
    ts_status st = TS_OK;
    for (size_t i = 0; ts__test_before_verify && i < j->nfiles; i++)
        ts__test_before_verify(j->files[i].tmp);
    if (j->o->format == TS_WRITE_NPY_DIR) {
        const outfile *f = &j->files[0];
        for (size_t i = 0; !st && i < j->n; i++) {
            char *fp = join(f->tmp, byname[i]->npy_path, ".npy");
            char *fin = join(f->final, byname[i]->npy_path, ".npy");
            st = fp && fin ? verify_file(fp, fin, byname + i, 1, 1, j->sum, err)
                           : ts__error(err, TS_ERR_NOMEM, "out of memory");
            free(fp), free(fin);
        }
        return st;
    }
    /* one file per shard (in order), then maybe the index */
    size_t first = 0;
    for (size_t k = 0; !st && first < j->n; k++) {
        size_t end = first;
        while (end < j->n && byname[end]->shard == k)
            end++;
        st = verify_file(j->files[k].tmp, j->files[k].final, byname + first, end - first, 0,
                         j->sum, err);
        first = end;
    }
    return st;
}

/* fsync of every temporary output (a folder's files, its subfolders, then
 * the folder). */
static ts_status sync_outputs(job *j, plan **byname, ts_error *err)
{
    ts_status st = TS_OK;
    for (size_t i = 0; !st && i < j->nfiles; i++) {
        const outfile *f = &j->files[i];
        for (size_t k = 0; f->is_dir && !st && k < j->n; k++) {
            char *fp = join(f->tmp, byname[k]->npy_path, ".npy");
            st = fp ? sync_path(fp, 0, err) : ts__error(err, TS_ERR_NOMEM, "out of memory");
            free(fp);
        }
        for (size_t k = 0; f->is_dir && !st && k < j->ndirs; k++)
            st = sync_path(j->dirs[k], 1, err);
        if (!st)
            st = sync_path(f->tmp, f->is_dir, err);
    }
    return st;
}

/* ---- ts_write ---------------------------------------------------------------------- */

/* The temporaries that runs killed before they were done left in the
 * output's folder (tmpout.c): removed before this run adds its own. */
static void sweep_stale(const char *path)
{
    char *dir = NULL, *base = NULL;
    struct timespec now;
    if (split_path(path, &dir, &base) == 0 && clock_gettime(CLOCK_REALTIME, &now) == 0)
        ts__tmpout_sweep(dir, &now);
    free(dir), free(base);
}

static ts_status check_options(const ts_write_options *opts, ts_write_options *o,
                               const char *fn, ts_error *err)
{
    ts_write_options d = TS_WRITE_OPTIONS_INIT;
    *o = d;
    if (opts) {
        ts_status st = ts__read_struct(err, fn, "opts", "options", opts, OPTIONS_V1_SIZE, o,
                                       sizeof *o, "TS_WRITE_OPTIONS_INIT", "ts_write_options");
        if (st)
            return st;
    }
    if (o->format != TS_WRITE_SAFETENSORS && o->format != TS_WRITE_NPZ &&
        o->format != TS_WRITE_NPY_DIR)
        return ts__bad_arg(err, fn, "opts->format is %d, not a ts_write_format", (int)o->format);
    const struct { const char *name; int v; } flags[] = {
        {"overwrite", o->overwrite}, {"cast", o->cast}, {"dequantize", o->dequantize},
        {"compress", o->compress}, {"no_verify", o->no_verify}};
    for (size_t i = 0; i < sizeof flags / sizeof *flags; i++)
        if (flags[i].v != 0 && flags[i].v != 1)
            return ts__bad_arg(err, fn, "opts->%s is %d, not 0 or 1", flags[i].name, flags[i].v);
    if (o->cast && !cast_target_ok(o->cast_dtype))
        return ts__bad_arg(err, fn, "opts->cast_dtype is %s: cast to float16, bfloat16, "
                           "float32, float64, complex64 or complex128",
                           ts_dtype_name(o->cast_dtype));
    if (o->dequantize && o->dequantize_dtype != TS_DTYPE_FLOAT32 &&
        o->dequantize_dtype != TS_DTYPE_FLOAT16)
        return ts__bad_arg(err, fn, "opts->dequantize_dtype is %s, not float32 or float16",
                           ts_dtype_name(o->dequantize_dtype));
    if (o->max_shard_size < 0 || (o->max_shard_size && o->format != TS_WRITE_SAFETENSORS))
        return ts__bad_arg(err, fn, "opts->max_shard_size is %lld: at least 0, and only for "
                           "safetensors", (long long)o->max_shard_size);
    if (o->copy_count > 0 && !o->copy_files)
        return ts__bad_arg(err, fn, "opts->copy_files is NULL but copy_count is %zu",
                           o->copy_count);
    if (o->copy_count > 0 && o->format == TS_WRITE_NPY_DIR)
        return ts__bad_arg(err, fn, "opts->copy_files is for safetensors and npz output");
    for (size_t i = 0; i < o->copy_count; i++)
        if (!o->copy_files[i])
            return ts__bad_arg(err, fn, "opts->copy_files[%zu] is NULL", i);
    return TS_OK;
}

/* A name the format can hold; for an npy folder, sets p->npy_path. */
static ts_status check_name(plan *p, ts_write_format fmt, ts_error *err)
{
    const unsigned char *s = (const unsigned char *)p->name;
    size_t n = strlen(p->name);
    if (n == 0)
        return ts__error(err, TS_ERR_VALUE, "an array has an empty name");
    for (size_t i = 0; i < n;) {
        size_t k = ts__utf8_len(s + i, n - i);
        if (k == 0)
            return fail_array(p, err, ts__error(err, TS_ERR_VALUE, "the name is not valid "
                                                "UTF-8"));
        i += k;
    }
    /* a folder of .npy: a path in it (npyname.c: subfolders for '/', names
     * that would leave it refused, dangerous characters escaped) */
    if (fmt == TS_WRITE_NPY_DIR) {
        ts_status st = ts__npy_path(p->name, &p->npy_path, err);
        return st ? fail_array(p, err, st) : TS_OK;
    }
    /* npz: a zip member path (NumPy keeps "sub/deep"), never absolute or
     * climbing out with ".." */
    int bad = 0;
    if (fmt == TS_WRITE_NPZ)
        for (const char *c = p->name; !bad && c;) {
            const char *e = strchr(c, '/');
            size_t len = e ? (size_t)(e - c) : strlen(c);
            bad = len == 0 || (len == 2 && c[0] == '.' && c[1] == '.');
            c = e ? e + 1 : NULL;
        }
    if (bad)
        return fail_array(p, err, ts__error(err, TS_ERR_VALUE, "the name cannot be the path "
                                            "of an .npz member (an empty or '..' part)"));
    return TS_OK;
}

ts_status ts_write_check(const ts_write_tensor *t, const ts_write_options *opts, ts_error *err)
{
    ts__ok(err);
    TS__ARG_NONNULL(err, t);
    if (!t->name || !t->file || !t->array)
        return ts__bad_arg(err, __func__, "t has a NULL name, file or array");
    ts_write_options o;
    ts_status st = check_options(opts, &o, __func__, err);
    if (st)
        return st;
    plan p;
    memset(&p, 0, sizeof p);
    p.name = t->name;
    p.file = t->file;
    p.a = t->array;
    if ((st = check_name(&p, o.format, err)) || (st = plan_one(&p, &o, err))) {
        free(p.npy_path);
        return st;
    }
    free(p.npy_path);
    /* where the data is, whether it lies inside its storage: no byte read
     * (the message names the array as its file does) */
    ts__data d;
    return ts__data_open(&d, t->file, t->array, err);
}

ts_status ts_write(const char *path, const ts_write_tensor *tensors, size_t n,
                   const ts_write_options *opts, ts_write_result *out, ts_error *err)
{
    ts__ok(err);
    TS__ARG_NONNULL(err, path);
    TS__ARG_ARRAY(err, tensors, n);
    for (size_t i = 0; i < n; i++)
        if (!tensors[i].name || !tensors[i].file || !tensors[i].array)
            return ts__error_index(err, ts__bad_arg(err, __func__, "tensors[%zu] has a NULL "
                                                    "name, file or array", i), (int64_t)i);
    ts_write_options o;
    ts_status st = check_options(opts, &o, __func__, err);
    if (st)
        return st;
    sweep_stale(path);
    job j;
    memset(&j, 0, sizeof j);
    j.o = &o;
    j.n = n;
    j.fd = -1;
    j.plans = calloc(n ? n : 1, sizeof *j.plans);
    plan **byname = malloc((n ? n : 1) * sizeof *byname);
    j.buf = malloc(PUMP_BYTES);
    j.dbuf = malloc(2 * TS__VBLOCK * sizeof *j.dbuf);
    j.sum = XXH3_createState();
    if (!j.plans || !byname || !j.buf || !j.dbuf || !j.sum)
        st = ts__error(err, TS_ERR_NOMEM, "out of memory");
    for (size_t i = 0; !st && i < n; i++) {
        plan *p = &j.plans[i];
        p->name = tensors[i].name;
        p->file = tensors[i].file;
        p->a = tensors[i].array;
        byname[i] = p;
        if (!(st = check_name(p, o.format, err)) && !(st = plan_one(p, &o, err)))
            j.total += p->nbytes;
        if (st)
            ts__error_index(err, st, (int64_t)i);
    }
    if (!st && n == 0)
        st = ts__error(err, TS_ERR_VALUE, "nothing to write: no arrays");
    if (!st && n > 1) {
        qsort(byname, n, sizeof *byname, cmp_plan_name);
        for (size_t i = 1; i < n && !st; i++)
            if (strcmp(byname[i]->name, byname[i - 1]->name) == 0)
                st = fail_array(byname[i], err, ts__error(err, TS_ERR_VALUE,
                                "two arrays have this name"));
    }
    struct stat sb;
    if (!st) { /* the folder is named, not a temporary file in it */
        char *dir = NULL, *base = NULL;
        if (split_path(path, &dir, &base) != 0)
            st = ts__error(err, TS_ERR_NOMEM, "out of memory");
        else if (stat(dir, &sb) != 0)
            st = ts__error(err, errno == ENOMEM ? TS_ERR_NOMEM : TS_ERR_IO, "cannot write '%s': "
                           "its folder '%s' %s", path, dir,
                           errno == ENOENT ? "does not exist" : strerror(errno));
        else if (!S_ISDIR(sb.st_mode))
            st = ts__error(err, TS_ERR_IO, "cannot write '%s': '%s' is not a folder", path,
                           dir);
        free(dir), free(base);
    }
    if (!st && !o.overwrite && o.max_shard_size == 0 && lstat(path, &sb) == 0) {
        errno = EEXIST;
        st = io_fail(err, "will not replace", path);
    }
    if (!st) {
        if (o.format == TS_WRITE_SAFETENSORS)
            st = write_safetensors(&j, path, byname, err);
        else if (o.format == TS_WRITE_NPZ)
            st = write_npz(&j, path, byname, err);
        else
            st = write_npy_dir(&j, path, byname, err);
    }
    size_t nwritten = j.nfiles, ncopied = 0;
    int64_t written_bytes = j.file_bytes;
    copied *copies = o.copy_count ? calloc(o.copy_count, sizeof *copies) : NULL;
    if (!st && o.copy_count && !copies)
        st = ts__error(err, TS_ERR_NOMEM, "out of memory");
    if (!st && o.copy_count)
        st = write_copies(&j, path, copies, &ncopied, err);
    if (!st && !o.no_verify)
        st = verify_copies(&j, copies, ncopied, err);
    free(copies);
    if (!st && !o.no_verify)
        st = verify(&j, byname, err);
    if (!st)
        st = sync_outputs(&j, byname, err);
    for (size_t i = 0; !st && i < j.nfiles; i++)
        st = place(&j, &j.files[i], err);
    if (!st && j.nfiles > 0) {
        char *dir = NULL, *base = NULL;
        if (split_path(j.files[0].final, &dir, &base) == 0)
            st = fsync_dir(dir, err);
        free(dir), free(base);
    }
    if (st) {
        if (j.fd >= 0)
            close(j.fd);
        for (size_t i = 0; i < j.nfiles; i++) {
            outfile *f = &j.files[i];
            if (f->placed && !f->is_dir && o.overwrite)
                continue; /* replaced already: cannot be undone */
            if (f->placed) {
                if (f->is_dir)
                    remove_tree(f->final);
                else
                    unlink(f->final);
            } else if (f->is_dir) {
                remove_tree(f->tmp);
            } else {
                ts__tmpout_discard(f->tmp, f->keep);
                f->keep = -1;
            }
        }
    } else if (out) {
        out->tensors = n;
        out->data_bytes = j.total;
        out->file_bytes = written_bytes;
        out->files = o.format == TS_WRITE_NPY_DIR ? n : nwritten;
    }
    for (size_t i = 0; i < j.nfiles; i++) {
        if (j.files[i].keep >= 0)
            close(j.files[i].keep); /* linked in place, or discarded with it */
        free(j.files[i].tmp);
        free(j.files[i].final);
    }
    free(j.files);
    for (size_t i = 0; j.plans && i < n; i++)
        free(j.plans[i].npy_path);
    for (size_t i = 0; i < j.ndirs; i++)
        free(j.dirs[i]);
    free(j.dirs);
    free(j.plans);
    free(byname);
    free(j.buf);
    XXH3_freeState(j.sum);
    free(j.dbuf);
    return st;
}
