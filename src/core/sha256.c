/*
 * sha256.c - SHA-256 (FIPS 180-4) through OpenSSL's libcrypto, loaded with
 * dlopen the first time a digest is made (tshape id), so that no other
 * command pays for loading it and the library links nothing for it. The
 * EVP digest functions are declared here with opaque pointers: OpenSSL's
 * headers are not needed to build. libcrypto uses the CPU's SHA
 * instructions where there are some (SHA-NI: several GB/s per core).
 */
#include "internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* libcrypto 3 (Debian 12's libssl3), then the unversioned name. */
static const char *const sonames[] = {"libcrypto.so.3", "libcrypto.so"};

#define EVP_FUNCTIONS(X)                                                       \
    X(void *, EVP_MD_CTX_new, (void))                                          \
    X(void, EVP_MD_CTX_free, (void *))                                         \
    X(const void *, EVP_sha256, (void))                                        \
    X(int, EVP_DigestInit_ex, (void *, const void *, void *))                  \
    X(int, EVP_DigestUpdate, (void *, const void *, size_t))                   \
    X(int, EVP_DigestFinal_ex, (void *, unsigned char *, unsigned int *))

static struct {
#define X(ret, name, args) ret(*name) args;
    EVP_FUNCTIONS(X)
#undef X
} api;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char load_error[200];

static void load(void)
{
    void *h = NULL;
    for (size_t i = 0; !h && i < sizeof sonames / sizeof *sonames; i++)
        h = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(load_error, sizeof load_error,
                 "SHA-256 needs OpenSSL's libcrypto (Debian: libssl3), which cannot be "
                 "loaded: %s", dlerror());
        return;
    }
    /* dlsym returns void *; converting it to a function pointer is what
     * POSIX dlsym requires of implementations. */
#define X(ret, name, args)                                                      \
    *(void **)(&api.name) = dlsym(h, #name);                                    \
    if (!api.name) {                                                            \
        snprintf(load_error, sizeof load_error, "libcrypto has no %s", #name); \
        return;                                                                 \
    }
    EVP_FUNCTIONS(X)
#undef X
}

struct ts__sha256 {
    void *ctx;
};

ts_status ts__sha256_new(ts__sha256 **out, ts_error *err)
{
    *out = NULL;
    pthread_once(&once, load);
    if (load_error[0])
        return ts__error(err, TS_ERR_UNSUPPORTED, "%s", load_error);
    ts__sha256 *h = malloc(sizeof *h);
    if (!h || !(h->ctx = api.EVP_MD_CTX_new()) ||
        api.EVP_DigestInit_ex(h->ctx, api.EVP_sha256(), NULL) != 1) {
        if (h && h->ctx)
            api.EVP_MD_CTX_free(h->ctx);
        free(h);
        return ts__error(err, TS_ERR_NOMEM, "out of memory for a SHA-256 digest");
    }
    *out = h;
    return TS_OK;
}

void ts__sha256_update(ts__sha256 *h, const void *p, size_t n)
{
    if (n > 0)
        api.EVP_DigestUpdate(h->ctx, p, n);
}

void ts__sha256_final(ts__sha256 *h, unsigned char out[32])
{
    unsigned int n = 32;
    api.EVP_DigestFinal_ex(h->ctx, out, &n);
    api.EVP_MD_CTX_free(h->ctx);
    free(h);
}

void ts__sha256_free(ts__sha256 *h)
{
    if (!h)
        return;
    api.EVP_MD_CTX_free(h->ctx);
    free(h);
}

void ts__hex(const unsigned char *p, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[p[i] >> 4];
        out[2 * i + 1] = digits[p[i] & 15];
    }
    out[2 * n] = '\0';
}
