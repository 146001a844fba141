/*
 * lazylib.c - libz, libjansson, libm's hypot, libdeflate and liburing, loaded with dlopen the
 * first time a call needs them (see lazylib.h for why and for what happens
 * when a library is missing). One pthread_once per library: threads may
 * reach the first call together.
 */
#define _GNU_SOURCE /* RTLD_* under -D_POSIX_C_SOURCE on older libcs */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <math.h>
#include <string.h>

#include "internal.h"
#include "jansson_lazy.h"
#include "zlib_lazy.h"

/* Fills fns[i] with name[i] of the first soname that loads and has them
 * all; returns 0, or -1 when none does (fns then all NULL). */
static int load_table(const char *soname, const char *const *names, void **fns, size_t n)
{
    void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return -1;
    for (size_t i = 0; i < n; i++) {
        fns[i] = dlsym(h, names[i]);
        if (!fns[i]) {
            memset(fns, 0, n * sizeof *fns);
            return -1;
        }
    }
    return 0;
}

/* POSIX dlsym returns void *; the copy into a function pointer is how it is
 * meant to be used (memcpy keeps ISO C pedantry quiet). */
#define TS__FN(type, slot) ((type)ts__fn_cast(slot))
typedef void (*ts__anyfn)(void);
static ts__anyfn ts__fn_cast(void *p)
{
    ts__anyfn f;
    memcpy(&f, &p, sizeof f);
    return f;
}

/* ---- zlib ---------------------------------------------------------------- */

enum { Z_CRC32, Z_CRC32_COMBINE, Z_INFLATE, Z_INFLATE_END, Z_INFLATE_INIT2, Z_NFUNCS };
static const char *const z_names[Z_NFUNCS] = {"crc32", "crc32_combine", "inflate", "inflateEnd",
                                              "inflateInit2_"};
static void *z_fns[Z_NFUNCS];
static pthread_once_t z_once = PTHREAD_ONCE_INIT;
static void z_load(void) { (void)load_table("libz.so.1", z_names, z_fns, Z_NFUNCS); }
static void *z_fn(int i)
{
    pthread_once(&z_once, z_load);
    return z_fns[i];
}

uLong ts__z_crc32(uLong crc, const Bytef *buf, uInt len)
{
    void *f = z_fn(Z_CRC32);
    if (f)
        return TS__FN(uLong(*)(uLong, const Bytef *, uInt), f)(crc, buf, len);
    return buf ? ts__crc32_soft((uint32_t)crc, buf, len) : 0;
}

uLong ts__z_crc32_combine(uLong crc1, uLong crc2, z_off_t len2)
{
    void *f = z_fn(Z_CRC32_COMBINE);
    if (f)
        return TS__FN(uLong(*)(uLong, uLong, z_off_t), f)(crc1, crc2, len2);
    return len2 < 0 ? crc1 : ts__crc32_combine_soft((uint32_t)crc1, (uint32_t)crc2, (uint64_t)len2);
}

int ts__z_inflate(z_streamp strm, int flush)
{
    void *f = z_fn(Z_INFLATE);
    return f ? TS__FN(int (*)(z_streamp, int), f)(strm, flush) : Z_STREAM_ERROR;
}

int ts__z_inflateEnd(z_streamp strm)
{
    void *f = z_fn(Z_INFLATE_END);
    return f ? TS__FN(int (*)(z_streamp), f)(strm) : Z_STREAM_ERROR;
}

int ts__z_inflateInit2_(z_streamp strm, int window_bits, const char *version, int stream_size)
{
    void *f = z_fn(Z_INFLATE_INIT2);
    return f ? TS__FN(int (*)(z_streamp, int, const char *, int), f)(strm, window_bits, version,
                                                                       stream_size)
             : Z_VERSION_ERROR;
}

/* CRC-32 of ISO 3309 bit by bit (reflected polynomial 0xedb88320): slow,
 * only for a system without libz. */
uint32_t ts__crc32_soft(uint32_t crc, const unsigned char *p, size_t n)
{
    crc = ~crc;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = crc & 1 ? (crc >> 1) ^ 0xedb88320u : crc >> 1;
    }
    return ~crc;
}

/* crc(A B) from crc(A) and crc(B) (crc32c.c's method, zip's polynomial). */
uint32_t ts__crc32_combine_soft(uint32_t crc1, uint32_t crc2, uint64_t len2)
{
    return ts__crc_combine(0xedb88320u, crc1, crc2, len2);
}

/* ---- ISA-L's or libdeflate's CRC-32 ------------------------------------------ */

/* crc32_gzip_refl of ISA-L (isa-l's crc.h: the CRC-32 of gzip and zip,
 * carried on from init_crc as zlib's crc32), then libdeflate_crc32. */
static const char *const i_names[1] = {"crc32_gzip_refl"};
static const char *const d_names[1] = {"libdeflate_crc32"};
static void *i_fns[1], *d_fns[1];
static pthread_once_t d_once = PTHREAD_ONCE_INIT;
static void d_load(void)
{
    if (load_table("libisal.so.2", i_names, i_fns, 1) != 0)
        (void)load_table("libdeflate.so.0", d_names, d_fns, 1);
}

uint32_t ts__crc32_fast(uint32_t crc, const unsigned char *p, size_t n)
{
    pthread_once(&d_once, d_load);
    if (i_fns[0])
        return TS__FN(uint32_t (*)(uint32_t, const unsigned char *, uint64_t), i_fns[0])(
            crc, p, (uint64_t)n);
    if (d_fns[0])
        return TS__FN(uint32_t (*)(uint32_t, const void *, size_t), d_fns[0])(crc, p, n);
    uLong c = crc;
    while (n > 0) {
        uInt k = n > (1u << 30) ? 1u << 30 : (uInt)n;
        c = ts__z_crc32(c, p, k);
        p += k;
        n -= k;
    }
    return (uint32_t)c;
}

/* ---- xxHash's XXH3-64 ------------------------------------------------------ */

/* The headers' own code, for a system without libxxhash.so.0 (or with
 * another version of it): XXH_INLINE_ALL makes its functions static here,
 * under names of their own, so they never meet the library's. Not loaded
 * by ts__lazylib_preload: a sandboxed child hashes nothing, and would only
 * take the headers' code. */
#define XXH_INLINE_ALL
#include <xxhash.h>

enum { X_VERSION, X_UPDATE, X_NFUNCS };
static const char *const x_names[X_NFUNCS] = {"XXH_versionNumber", "XXH3_64bits_update_dispatch"};
static void *x_fns[X_NFUNCS];
static pthread_once_t x_once = PTHREAD_ONCE_INIT;
static void x_load(void)
{
    /* A state is laid out by the headers tshape was built with: the
     * library's code may update it only when it is of their version. */
    if (load_table("libxxhash.so.0", x_names, x_fns, X_NFUNCS) == 0 &&
        TS__FN(unsigned (*)(void), x_fns[X_VERSION])() != XXH_VERSION_NUMBER)
        memset(x_fns, 0, sizeof x_fns);
}

void ts__xxh3_update(void *state, const void *p, size_t n)
{
    pthread_once(&x_once, x_load);
    if (x_fns[X_UPDATE])
        (void)TS__FN(XXH_errorcode (*)(XXH3_state_t *, const void *, size_t),
                     x_fns[X_UPDATE])(state, p, n);
    else
        (void)XXH3_64bits_update(state, p, n);
}

/* ---- jansson ------------------------------------------------------------- */

#define TS__X(ret, name, params, args) J_##name,
enum { TS__JANSSON_FUNCS(TS__X) J_json_delete, J_json_loadb, J_json_loads, J_json_vpack_ex, J_NFUNCS };
#undef TS__X
#define TS__X(ret, name, params, args) #name,
static const char *const j_names[J_NFUNCS] = {
    TS__JANSSON_FUNCS(TS__X) "json_delete", "json_loadb", "json_loads", "json_vpack_ex"};
#undef TS__X
static void *j_fns[J_NFUNCS];
static pthread_once_t j_once = PTHREAD_ONCE_INIT;
static void j_load(void) { (void)load_table("libjansson.so.4", j_names, j_fns, J_NFUNCS); }
static void *j_fn(int i)
{
    pthread_once(&j_once, j_load);
    return j_fns[i];
}

#define TS__X(ret, name, params, args)                                                   \
    ret ts__jl_##name params                                                                \
    {                                                                                    \
        void *f = j_fn(J_##name);                                                        \
        return f ? TS__FN(ret(*) params, f) args : (ret)0;                               \
    }
TS__JANSSON_FUNCS(TS__X)
#undef TS__X

void ts__jl_json_delete(json_t *j)
{
    void *f = j_fn(J_json_delete);
    if (f)
        TS__FN(void (*)(json_t *), f)(j);
}

/* Without jansson, a parse fails with the reason in error->text. */
static json_t *no_jansson(json_error_t *e)
{
    if (e) {
        memset(e, 0, sizeof *e);
        e->line = e->column = -1;
        e->position = 0;
        snprintf(e->text, sizeof e->text, "reading JSON needs libjansson.so.4, which cannot be loaded");
    }
    return NULL;
}

json_t *ts__jl_json_loadb(const char *b, size_t n, size_t flags, json_error_t *e)
{
    void *f = j_fn(J_json_loadb);
    return f ? TS__FN(json_t * (*)(const char *, size_t, size_t, json_error_t *), f)(b, n, flags, e)
             : no_jansson(e);
}

json_t *ts__jl_json_loads(const char *s, size_t flags, json_error_t *e)
{
    void *f = j_fn(J_json_loads);
    return f ? TS__FN(json_t * (*)(const char *, size_t, json_error_t *), f)(s, flags, e)
             : no_jansson(e);
}

json_t *ts__jl_json_pack(const char *fmt, ...)
{
    void *f = j_fn(J_json_vpack_ex);
    if (!f)
        return NULL;
    va_list ap;
    va_start(ap, fmt);
    json_t *j = TS__FN(json_t * (*)(json_error_t *, size_t, const char *, va_list), f)(NULL, 0, fmt, ap);
    va_end(ap);
    return j;
}

/* ---- libm's hypot ---------------------------------------------------------- */

static void *m_hypot;
static pthread_once_t m_once = PTHREAD_ONCE_INIT;
static void m_load(void)
{
    static const char *const name[1] = {"hypot"};
    (void)load_table("libm.so.6", name, &m_hypot, 1);
}

double ts__hypot(double x, double y)
{
    pthread_once(&m_once, m_load);
    if (m_hypot)
        return TS__FN(double (*)(double, double), m_hypot)(x, y);
    /* C11 F.10.4.3: an infinite argument gives +inf, even with a NaN. */
    if (isinf(x) || isinf(y))
        return HUGE_VAL;
    if (isnan(x) || isnan(y))
        return x + y;
    long double lx = x, ly = y;
    return (double)__builtin_sqrtl(lx * lx + ly * ly);
}

/* ---- liburing ---------------------------------------------------------------- */

#if TS_HAVE_LIBURING
enum { U_queue_init_params, U_queue_exit, U_register_files_sparse, U_submit_and_wait, U_NFUNCS };
static const char *const u_names[U_NFUNCS] = {"io_uring_queue_init_params", "io_uring_queue_exit",
                                              "io_uring_register_files_sparse",
                                              "io_uring_submit_and_wait"};
static void *u_fns[U_NFUNCS];
static pthread_once_t u_once = PTHREAD_ONCE_INIT;
static void u_load(void) { (void)load_table("liburing.so.2", u_names, u_fns, U_NFUNCS); }
static void *u_fn(int i)
{
    pthread_once(&u_once, u_load);
    return u_fns[i];
}

int ts__uring_queue_init_params(unsigned entries, struct io_uring *ring,
                                struct io_uring_params *p)
{
    void *f = u_fn(U_queue_init_params);
    return f ? TS__FN(int (*)(unsigned, struct io_uring *, struct io_uring_params *), f)(
                   entries, ring, p)
             : -ENOSYS;
}

void ts__uring_queue_exit(struct io_uring *ring)
{
    void *f = u_fn(U_queue_exit);
    if (f)
        TS__FN(void (*)(struct io_uring *), f)(ring);
}

int ts__uring_register_files_sparse(struct io_uring *ring, unsigned nr)
{
    void *f = u_fn(U_register_files_sparse);
    return f ? TS__FN(int (*)(struct io_uring *, unsigned), f)(ring, nr) : -ENOSYS;
}

int ts__uring_submit_and_wait(struct io_uring *ring, unsigned wait_nr)
{
    void *f = u_fn(U_submit_and_wait);
    return f ? TS__FN(int (*)(struct io_uring *, unsigned), f)(ring, wait_nr) : -ENOSYS;
}
#endif

void ts__lazylib_preload(void)
{
    pthread_once(&z_once, z_load);
    pthread_once(&j_once, j_load);
    pthread_once(&m_once, m_load);
    pthread_once(&d_once, d_load);
#if TS_HAVE_LIBURING
    pthread_once(&u_once, u_load);
#endif
}
