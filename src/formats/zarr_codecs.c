/*
 * zarr_codecs.c - the compressors of Zarr chunks that zlib does not cover:
 * zstd (libzstd, Debian libzstd1) and blosc (c-blosc, Debian libblosc1),
 * each loaded with dlopen the first time a chunk needs it, so that no
 * other command pays for loading them and the library links neither. Their
 * functions are declared here with the ABI of their stable C APIs
 * (zstd.h ZSTD_decompress, blosc.h blosc_cbuffer_validate and
 * blosc_decompress_ctx): their headers are not needed to build.
 */
#include "zarr_codecs.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

typedef struct lib {
    const char *const *sonames;
    size_t nsonames;
    const char *what;
    pthread_once_t once;
    void *h;
    char error[200];
} lib;

static const char *const zstd_names[] = {"libzstd.so.1", "libzstd.so"};
static const char *const blosc_names[] = {"libblosc.so.1", "libblosc.so"};
static lib zstd_lib = {zstd_names, 2, "zstd chunks need libzstd (Debian: libzstd1)",
                       PTHREAD_ONCE_INIT, NULL, ""};
static lib blosc_lib = {blosc_names, 2, "blosc chunks need c-blosc (Debian: libblosc1)",
                        PTHREAD_ONCE_INIT, NULL, ""};

static struct {
    size_t (*ZSTD_decompress)(void *, size_t, const void *, size_t);
    unsigned (*ZSTD_isError)(size_t);
    const char *(*ZSTD_getErrorName)(size_t);
    int (*blosc_cbuffer_validate)(const void *, size_t, size_t *);
    int (*blosc_decompress_ctx)(const void *, void *, size_t, int);
} api;

static void load(lib *l)
{
    for (size_t i = 0; !l->h && i < l->nsonames; i++)
        l->h = dlopen(l->sonames[i], RTLD_NOW | RTLD_LOCAL);
    if (!l->h) {
        snprintf(l->error, sizeof l->error, "%s, which cannot be loaded: %s", l->what,
                 dlerror());
        return;
    }
    /* dlsym returns void *; converting it to a function pointer is what
     * POSIX dlsym requires of implementations. */
#define SYM(name)                                                                   \
    if (!(*(void **)(&api.name) = dlsym(l->h, #name))) {                            \
        snprintf(l->error, sizeof l->error, "%s: the library has no %s", l->what, #name); \
        return;                                                                     \
    }
    if (l == &zstd_lib) {
        SYM(ZSTD_decompress)
        SYM(ZSTD_isError)
        SYM(ZSTD_getErrorName)
    } else {
        SYM(blosc_cbuffer_validate)
        SYM(blosc_decompress_ctx)
    }
#undef SYM
}

static void load_zstd(void)
{
    load(&zstd_lib);
}

static void load_blosc(void)
{
    load(&blosc_lib);
}

ts_status ts__zarr_decompress(const char *codec, const void *src, size_t n, void *dst,
                              size_t cap, size_t *out, ts_error *err)
{
    *out = 0;
    if (strcmp(codec, "zstd") == 0) {
        pthread_once(&zstd_lib.once, load_zstd);
        if (zstd_lib.error[0])
            return ts__error(err, TS_ERR_UNSUPPORTED, "%s", zstd_lib.error);
        size_t k = api.ZSTD_decompress(dst, cap, src, n);
        if (api.ZSTD_isError(k))
            return ts__error(err, TS_ERR_FORMAT, "zstd: %s", api.ZSTD_getErrorName(k));
        *out = k;
        return TS_OK;
    }
    if (strcmp(codec, "blosc") == 0) {
        pthread_once(&blosc_lib.once, load_blosc);
        if (blosc_lib.error[0])
            return ts__error(err, TS_ERR_UNSUPPORTED, "%s", blosc_lib.error);
        /* the header's sizes checked against the chunk before blosc trusts
         * them */
        size_t nbytes = 0;
        if (api.blosc_cbuffer_validate(src, n, &nbytes) != 0)
            return ts__error(err, TS_ERR_FORMAT, "blosc: the chunk's header does not match "
                             "its %zu bytes", n);
        if (nbytes != cap)
            return ts__error(err, TS_ERR_FORMAT, "blosc: the chunk decompresses to %zu bytes",
                             nbytes);
        int k = api.blosc_decompress_ctx(src, dst, cap, 1);
        if (k < 0)
            return ts__error(err, TS_ERR_FORMAT, "blosc: the chunk does not decompress "
                             "(error %d)", k);
        *out = (size_t)k;
        return TS_OK;
    }
    return ts__error(err, TS_ERR_UNSUPPORTED, "codec %s is not decoded by tshape", codec);
}
