/*
 * http.c - range requests through libcurl (remote.h).
 *
 * libcurl is loaded with dlopen the first time a URL is opened, so the
 * commands that read no URL do not pay for it (start-up), and the library
 * links nothing for it; <curl/curl.h> gives the types and constants only.
 * Connections, DNS answers and TLS sessions are shared between the files of
 * a run (a curl share object), so the shards of a model reuse connections.
 *
 * Each request is one GET with a Range header. A server must answer 206
 * Partial Content: a 200 means it ignored the range and is about to send
 * the whole file, and the transfer is stopped there and then (never a
 * silent full download), except for the first request of a file that
 * turns out smaller than what it asked for. Several ranges asked for at
 * once go in one request (multipart/byteranges, RFC 9110 14.6) while the
 * server answers those with 206, else in up to MAX_PARALLEL parallel
 * single-range requests. 429 and 5xx answers and broken connections are
 * retried (MAX_TRIES in all) after 0.5 s, 1 s, 2 s or what Retry-After says
 * (at most 30 s). Redirects are followed (the Hub sends its files to a
 * CDN); later requests of the file go straight to where the first one
 * ended.
 */
#define CURL_DISABLE_TYPECHECK
#include "remote.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <time.h>

/* The first request of a file (ts_open_options.first_fetch unless set):
 * every signature, a safetensors header of up to 99,992 bytes whole
 * (huggingface_hub's get_safetensors_metadata reads these 100,000 bytes:
 * 97% of the Hub's files), a GGUF's first metadata. */
#define HEAD_BYTES ((uint64_t)100000)
/* The most a first request reads, whatever first_fetch says. */
#define FIRST_FETCH_MAX ((uint64_t)64 << 20)
#define MAX_PARALLEL 8
#define MAX_TRIES 4
#define MAX_RANGES_PER_REQUEST 64
#define RETRY_AFTER_MAX 30

/* ---- libcurl, loaded on first use ------------------------------------------------- */

#define CURL_FUNCTIONS(X)                                                                  \
    X(CURLcode, curl_global_init, (long))                                                  \
    X(CURL *, curl_easy_init, (void))                                                      \
    X(CURLcode, curl_easy_setopt, (CURL *, CURLoption, ...))                               \
    X(CURLcode, curl_easy_getinfo, (CURL *, CURLINFO, ...))                                \
    X(CURLcode, curl_easy_perform, (CURL *))                                               \
    X(void, curl_easy_cleanup, (CURL *))                                                   \
    X(void, curl_easy_reset, (CURL *))                                                     \
    X(const char *, curl_easy_strerror, (CURLcode))                                        \
    X(struct curl_slist *, curl_slist_append, (struct curl_slist *, const char *))         \
    X(void, curl_slist_free_all, (struct curl_slist *))                                    \
    X(CURLM *, curl_multi_init, (void))                                                    \
    X(CURLMcode, curl_multi_add_handle, (CURLM *, CURL *))                                 \
    X(CURLMcode, curl_multi_remove_handle, (CURLM *, CURL *))                              \
    X(CURLMcode, curl_multi_perform, (CURLM *, int *))                                     \
    X(CURLMcode, curl_multi_poll, (CURLM *, struct curl_waitfd *, unsigned, int, int *))   \
    X(CURLMsg *, curl_multi_info_read, (CURLM *, int *))                                   \
    X(CURLMcode, curl_multi_cleanup, (CURLM *))                                            \
    X(CURLSH *, curl_share_init, (void))                                                   \
    X(CURLSHcode, curl_share_setopt, (CURLSH *, CURLSHoption, ...))                        \
    X(curl_version_info_data *, curl_version_info, (CURLversion))

static struct {
#define X(ret, name, args) ret(*name) args;
    CURL_FUNCTIONS(X)
#undef X
} api;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[256];
static CURLSH *share;
static pthread_mutex_t share_lock[CURL_LOCK_DATA_LAST];

static void share_lock_fn(CURL *h, curl_lock_data data, curl_lock_access access, void *user)
{
    (void)h;
    (void)access;
    (void)user;
    pthread_mutex_lock(&share_lock[data < CURL_LOCK_DATA_LAST ? data : 0]);
}

static void share_unlock_fn(CURL *h, curl_lock_data data, void *user)
{
    (void)h;
    (void)user;
    pthread_mutex_unlock(&share_lock[data < CURL_LOCK_DATA_LAST ? data : 0]);
}

static void load(void)
{
    static const char *const sonames[] = {"libcurl.so.4", "libcurl-gnutls.so.4",
                                          "libcurl-nss.so.4"};
    void *h = NULL;
    for (size_t i = 0; i < sizeof sonames / sizeof *sonames && !h; i++)
        h = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(load_error, sizeof load_error,
                 "URLs need libcurl, which cannot be loaded (%s): install libcurl4", dlerror());
        return;
    }
    /* POSIX dlsym returns void *; the cast to a function pointer is how it
     * is meant to be used. */
#define X(ret, name, args)                                                                 \
    {                                                                                      \
        void *sym = dlsym(h, #name);                                                       \
        if (!sym) {                                                                        \
            snprintf(load_error, sizeof load_error, "libcurl lacks %s", #name);            \
            return;                                                                        \
        }                                                                                  \
        memcpy(&api.name, &sym, sizeof sym);                                               \
    }
    CURL_FUNCTIONS(X)
#undef X
    const curl_version_info_data *v = api.curl_version_info(CURLVERSION_NOW);
    if (!v || v->version_num < 0x074b00) { /* 7.75: AWS SigV4 */
        snprintf(load_error, sizeof load_error,
                 "libcurl %s is too old: tshape needs 7.75 or later", v ? v->version : "?");
        return;
    }
    if (api.curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        snprintf(load_error, sizeof load_error, "libcurl failed to start");
        return;
    }
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
        pthread_mutex_init(&share_lock[i], NULL);
    share = api.curl_share_init();
    if (share) {
        api.curl_share_setopt(share, CURLSHOPT_LOCKFUNC, share_lock_fn);
        api.curl_share_setopt(share, CURLSHOPT_UNLOCKFUNC, share_unlock_fn);
        api.curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
        api.curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
        api.curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
    }
}

static ts_status need_curl(ts_error *err)
{
    pthread_once(&load_once, load);
    return load_error[0] ? ts__error(err, TS_ERR_UNSUPPORTED, "%s", load_error) : TS_OK;
}

/* ---- one remote file --------------------------------------------------------------- */

typedef struct rfile {
    ts__url url;
    char *target;                 /* where requests go: the URL after redirects */
    char prefix[512];             /* for messages (set_target) */
    struct curl_slist *headers;
    CURL *pool[MAX_PARALLEL];
    ts_log_fn log;
    void *log_user;
    uint64_t size;
    int multirange;               /* 1 yes, 0 no, -1 not known yet */
} rfile;

/* One request: a single range into dst, or several (multipart) into body. */
typedef struct xfer {
    rfile *f;
    CURL *easy;
    const ts__range *r;           /* the ranges asked for */
    size_t n;
    unsigned char *dst;           /* n == 1: r->len bytes */
    unsigned char *body;          /* n > 1: the raw multipart body */
    size_t body_len, body_cap;
    uint64_t got;
    int head;                     /* the first request: a 200 of a small file is fine */
    size_t whole_max;             /* n == 0: the whole file (no Range), into body,
                                     which grows up to whole_max bytes */
    long status;
    char content_range[96];
    char content_type[160];
    long retry_after;
    int refused;                  /* stopped: a 200 for a range request */
    int overflow;                 /* more bytes than asked for */
    char errbuf[CURL_ERROR_SIZE];
    CURLcode rc;
    struct timespec t0;
    char range[64 * MAX_RANGES_PER_REQUEST > 2048 ? 2048 : 64 * MAX_RANGES_PER_REQUEST];
} xfer;

static size_t on_header(char *p, size_t size, size_t n, void *user)
{
    xfer *x = user;
    size_t len = size * n;
    if (len >= 5 && strncmp(p, "HTTP/", 5) == 0) {
        /* a new response (after a redirect): forget the last one's headers */
        x->content_range[0] = x->content_type[0] = '\0';
        x->retry_after = -1;
        return len;
    }
    struct {
        const char *name;
        char *out;
        size_t cap;
    } want[] = {{"content-range:", x->content_range, sizeof x->content_range},
                {"content-type:", x->content_type, sizeof x->content_type}};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        size_t k = strlen(want[i].name);
        if (len > k && strncasecmp(p, want[i].name, k) == 0) {
            const char *v = p + k;
            size_t vl = len - k;
            while (vl && (*v == ' ' || *v == '\t'))
                v++, vl--;
            while (vl && (v[vl - 1] == '\r' || v[vl - 1] == '\n' || v[vl - 1] == ' '))
                vl--;
            if (vl >= want[i].cap)
                vl = want[i].cap - 1;
            memcpy(want[i].out, v, vl);
            want[i].out[vl] = '\0';
        }
    }
    if (len > 12 && strncasecmp(p, "retry-after:", 12) == 0)
        x->retry_after = strtol(p + 12, NULL, 10);
    return len;
}

static size_t on_data(char *p, size_t size, size_t n, void *user)
{
    xfer *x = user;
    size_t len = size * n;
    long status = 0;
    api.curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
    if (status >= 300)
        return len; /* an error page: not kept */
    if (x->n == 0) {
        /* the whole file: body grows, up to whole_max */
        if (x->body_len + len > x->whole_max) {
            x->overflow = 1;
            return 0;
        }
        if (x->body_len + len > x->body_cap) {
            size_t cap = x->body_cap ? x->body_cap * 2 : 65536;
            while (cap < x->body_len + len)
                cap *= 2;
            unsigned char *b = realloc(x->body, cap + 1);
            if (!b) {
                x->overflow = 1;
                return 0;
            }
            x->body = b;
            x->body_cap = cap;
        }
        memcpy(x->body + x->body_len, p, len);
        x->body_len += len;
        x->got += len;
        return len;
    }
    if (status == 200 && (!x->head || x->got + len > x->r->len)) {
        x->refused = 1; /* the server ignores Range: stop before the whole file */
        return 0;
    }
    if (x->n == 1) {
        if (x->got + len > x->r->len) {
            x->overflow = 1;
            return 0;
        }
        memcpy(x->dst + x->got, p, len);
    } else {
        if (x->body_len + len > x->body_cap) {
            x->overflow = 1;
            return 0;
        }
        memcpy(x->body + x->body_len, p, len);
        x->body_len += len;
    }
    x->got += len;
    return len;
}

static double ms_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

/* A CURL handle of the file's pool, set up for x. */
static ts_status prepare(xfer *x, CURL *easy, ts_error *err)
{
    rfile *f = x->f;
    x->easy = easy;
    x->got = 0;
    x->body_len = 0;
    x->status = 0;
    x->refused = x->overflow = 0;
    x->content_range[0] = x->content_type[0] = '\0';
    x->retry_after = -1;
    x->errbuf[0] = '\0';
    size_t w = 0;
    for (size_t i = 0; i < x->n; i++) {
        int k = snprintf(x->range + w, sizeof x->range - w, "%s%llu-%llu", i ? "," : "",
                         (unsigned long long)x->r[i].off,
                         (unsigned long long)(x->r[i].off + x->r[i].len - 1));
        if (k < 0 || (size_t)k >= sizeof x->range - w)
            return ts__error(err, TS_ERR_LIMIT, "too many ranges in one request");
        w += (size_t)k;
    }
    api.curl_easy_reset(easy);
    api.curl_easy_setopt(easy, CURLOPT_URL, f->target);
    if (x->n > 0)
        api.curl_easy_setopt(easy, CURLOPT_RANGE, x->range);
    api.curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 1L);
    api.curl_easy_setopt(easy, CURLOPT_MAXREDIRS, 8L);
    api.curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
    api.curl_easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    api.curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    api.curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT, 30L);
    /* a stalled transfer (under 1 byte/s for a minute) is an error */
    api.curl_easy_setopt(easy, CURLOPT_LOW_SPEED_LIMIT, 1L);
    api.curl_easy_setopt(easy, CURLOPT_LOW_SPEED_TIME, 60L);
    api.curl_easy_setopt(easy, CURLOPT_USERAGENT, "tshape/" TS_VERSION_STRING);
    api.curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, on_header);
    api.curl_easy_setopt(easy, CURLOPT_HEADERDATA, x);
    api.curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_data);
    api.curl_easy_setopt(easy, CURLOPT_WRITEDATA, x);
    api.curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, x->errbuf);
    /* no compression: the byte ranges are of the file as stored */
    api.curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, NULL);
    if (f->headers)
        api.curl_easy_setopt(easy, CURLOPT_HTTPHEADER, f->headers);
    if (f->url.sigv4) {
        api.curl_easy_setopt(easy, CURLOPT_AWS_SIGV4, f->url.sigv4);
        api.curl_easy_setopt(easy, CURLOPT_USERPWD, f->url.userpwd);
    }
    const char *ca = getenv("CURL_CA_BUNDLE");
    if (!ca || !*ca)
        ca = getenv("SSL_CERT_FILE");
    if (ca && *ca)
        api.curl_easy_setopt(easy, CURLOPT_CAINFO, ca);
    if (share)
        api.curl_easy_setopt(easy, CURLOPT_SHARE, share);
    clock_gettime(CLOCK_MONOTONIC, &x->t0);
    return TS_OK;
}

/* What messages put before their text: the URL requested, when it is
 * not the one the user gave (hf://, s3://, a redirect), which every
 * message of the CLI already names. */
static void set_target(rfile *f, char *target)
{
    free(f->target);
    f->target = target;
    if (strcmp(target, f->url.given) == 0)
        f->prefix[0] = '\0';
    else
        snprintf(f->prefix, sizeof f->prefix, "%.500s: ", target);
}

static const char *shown(const rfile *f)
{
    return f->prefix;
}

static void log_request(const xfer *x)
{
    rfile *f = x->f;
    if (!f->log)
        return;
    long redirects = 0;
    api.curl_easy_getinfo(x->easy, CURLINFO_REDIRECT_COUNT, &redirects);
    char line[1024];
    char range[120];
    if (x->n == 0)
        snprintf(range, sizeof range, "(the whole file)");
    else
        snprintf(range, sizeof range, "%.60s%s (%zu range%s)", x->range,
                 strlen(x->range) > 60 ? "..." : "", x->n, x->n == 1 ? "" : "s");
    if (x->rc != CURLE_OK && !x->refused && !x->overflow)
        snprintf(line, sizeof line, "GET %s %s%s -> %s, %.0f ms", f->target,
                 x->n ? "bytes=" : "", range,
                 x->errbuf[0] ? x->errbuf : api.curl_easy_strerror(x->rc), ms_since(&x->t0));
    else
        snprintf(line, sizeof line, "GET %s %s%s -> %ld, %llu bytes, %.0f ms%s",
                 f->target, x->n ? "bytes=" : "", range, x->status,
                 (unsigned long long)x->got, ms_since(&x->t0),
                 redirects ? " (after a redirect)" : "");
    f->log(f->log_user, line);
}

/* 1 when a failed request may succeed if made again. */
static int retryable(const xfer *x)
{
    if (x->rc == CURLE_OK)
        return x->status == 429 || x->status == 500 || x->status == 502 ||
               x->status == 503 || x->status == 504;
    /* a refused connection is not retried, as curl's --retry does not */
    return x->rc == CURLE_OPERATION_TIMEDOUT || x->rc == CURLE_RECV_ERROR ||
           x->rc == CURLE_SEND_ERROR || x->rc == CURLE_GOT_NOTHING ||
           x->rc == CURLE_PARTIAL_FILE;
}

/* Parses "bytes A-B/T" (T may be "*"): 0 on success. */
static int parse_content_range(const char *s, uint64_t *a, uint64_t *b, uint64_t *total,
                               int *total_known)
{
    if (strncasecmp(s, "bytes ", 6) != 0)
        return -1;
    s += 6;
    char *e;
    *total_known = 0;
    if (*s == '*') {
        e = (char *)(uintptr_t)s + 1;
        *a = *b = 0;
    } else {
        unsigned long long x = strtoull(s, &e, 10);
        if (e == s || *e != '-')
            return -1;
        s = e + 1;
        unsigned long long y = strtoull(s, &e, 10);
        if (e == s || y < x)
            return -1;
        *a = x;
        *b = y;
    }
    if (*e != '/')
        return -1;
    s = e + 1;
    if (*s == '*')
        return 0;
    unsigned long long t = strtoull(s, &e, 10);
    if (e == s)
        return -1;
    *total = t;
    *total_known = 1;
    return 0;
}

/* Copies the part [a, b] of the file held at p into every asked range it
 * covers; counts the bytes of each range covered in `covered`. */
static void copy_part(const xfer *x, uint64_t a, uint64_t b, const unsigned char *p,
                      uint64_t *covered)
{
    for (size_t i = 0; i < x->n; i++) {
        const ts__range *r = &x->r[i];
        uint64_t lo = r->off > a ? r->off : a, hi = r->off + r->len - 1 < b ? r->off + r->len - 1 : b;
        if (lo > hi)
            continue;
        memcpy(r->buf + (lo - r->off), p + (lo - a), (size_t)(hi - lo + 1));
        covered[i] += hi - lo + 1;
    }
}

/* Splits a multipart/byteranges body into the asked ranges. */
static ts_status parse_multipart(const xfer *x, uint64_t *covered, ts_error *err)
{
    const char *bp = NULL;
    for (const char *q = x->content_type; *q && !bp; q++)
        if (strncasecmp(q, "boundary=", 9) == 0)
            bp = q;
    if (!bp)
        return ts__error(err, TS_ERR_IO, "%sa multipart answer without a boundary",
                         shown(x->f));
    bp += 9;
    char boundary[80] = "--";
    size_t bl = strcspn(bp, "; \"");
    if (*bp == '"') {
        bp++;
        bl = strcspn(bp, "\"");
    }
    if (bl == 0 || bl > sizeof boundary - 3)
        return ts__error(err, TS_ERR_IO, "%sa multipart answer with a bad boundary",
                         shown(x->f));
    memcpy(boundary + 2, bp, bl);
    boundary[2 + bl] = '\0';
    bl += 2;
    const unsigned char *s = x->body, *end = x->body + x->body_len;
    for (;;) {
        /* the next delimiter line */
        const unsigned char *d = NULL;
        for (const unsigned char *q = s; q + bl <= end; q++)
            if (memcmp(q, boundary, bl) == 0) {
                d = q;
                break;
            }
        if (!d || d + bl + 2 > end || (d[bl] == '-' && d[bl + 1] == '-'))
            break;
        const unsigned char *h = d + bl;
        const unsigned char *hend = NULL;
        for (const unsigned char *q = h; q + 4 <= end; q++)
            if (memcmp(q, "\r\n\r\n", 4) == 0) {
                hend = q;
                break;
            }
        if (!hend)
            return ts__error(err, TS_ERR_IO, "%sa multipart answer ends inside a part's "
                             "headers", shown(x->f));
        uint64_t a = 0, b = 0, total = 0;
        int known = 0, found = 0;
        for (const unsigned char *q = h; q < hend;) {
            const unsigned char *nl = memchr(q, '\n', (size_t)(hend - q));
            const unsigned char *le = nl ? nl : hend;
            char line[160];
            size_t ll = (size_t)(le - q) < sizeof line - 1 ? (size_t)(le - q) : sizeof line - 1;
            memcpy(line, q, ll);
            line[ll] = '\0';
            if (ll && line[ll - 1] == '\r')
                line[ll - 1] = '\0';
            if (strncasecmp(line, "content-range:", 14) == 0) {
                const char *v = line + 14;
                while (*v == ' ')
                    v++;
                found = parse_content_range(v, &a, &b, &total, &known) == 0;
            }
            q = le + 1;
        }
        const unsigned char *data = hend + 4;
        if (!found || (uint64_t)(end - data) < b - a + 1)
            return ts__error(err, TS_ERR_IO, "%sa part of the multipart answer is not the "
                             "range it says", shown(x->f));
        copy_part(x, a, b, data, covered);
        s = data + (b - a + 1);
    }
    return TS_OK;
}

/* What a finished request says: TS_OK with the ranges filled, or an error
 * (*retry set when it may succeed if made again). */
static ts_status finish(xfer *x, int *retry, ts_error *err)
{
    rfile *f = x->f;
    *retry = 0;
    api.curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &x->status);
    char *eff = NULL;
    api.curl_easy_getinfo(x->easy, CURLINFO_EFFECTIVE_URL, &eff);
    log_request(x);
    if (x->refused)
        return ts__error(err, TS_ERR_IO,
                         "%sthe server ignores range requests (HTTP 200 instead of 206 for "
                         "bytes %s): tshape stopped rather than download the whole file",
                         shown(f), x->range);
    if (x->overflow && x->n == 0)
        return ts__error(err, TS_ERR_LIMIT, "%sthe file is more than the %zu bytes tshape "
                         "reads whole", shown(f), x->whole_max);
    if (x->overflow)
        return ts__error(err, TS_ERR_IO, "%sthe server sent more bytes than the ranges "
                         "asked for (bytes %s)", shown(f), x->range);
    if (x->rc != CURLE_OK) {
        *retry = retryable(x);
        return ts__error(err, TS_ERR_IO, "%s%s", shown(f),
                         x->errbuf[0] ? x->errbuf : api.curl_easy_strerror(x->rc));
    }
    if (x->status == 200 && (x->head || x->n == 0))
        return TS_OK; /* the caller checks the size */
    if (x->status != 206) {
        *retry = retryable(x);
        return ts__error(err, TS_ERR_IO, "%sHTTP %ld%s", shown(f), x->status,
                         x->status == 404 ? " Not Found" : x->status == 403 ? " Forbidden"
                         : x->status == 401 ? " Unauthorized (set HF_TOKEN or AWS credentials?)"
                         : x->status == 416 ? " Range Not Satisfiable" : "");
    }
    if (eff && strcmp(eff, f->target) != 0) {
        /* later requests go straight to where this one ended */
        char *t = strdup(eff);
        if (t)
            set_target(f, t);
    }
    uint64_t covered[MAX_RANGES_PER_REQUEST] = {0};
    if (x->n > 1 && strncasecmp(x->content_type, "multipart/byteranges", 20) == 0) {
        ts_status st = parse_multipart(x, covered, err);
        if (st)
            return st;
    } else {
        uint64_t a, b, total = 0;
        int known;
        if (parse_content_range(x->content_range, &a, &b, &total, &known) != 0)
            return ts__error(err, TS_ERR_IO, "%sa 206 answer without a valid Content-Range "
                             "('%s')", shown(f), x->content_range);
        if (known && f->size && total != f->size)
            return ts__error(err, TS_ERR_IO, "%sthe file changed while it was read (%llu "
                             "bytes now, %llu before)", shown(f), (unsigned long long)total,
                             (unsigned long long)f->size);
        if (x->got != b - a + 1)
            return ts__error(err, TS_ERR_IO, "%s%llu bytes for the range %llu-%llu",
                             shown(f), (unsigned long long)x->got, (unsigned long long)a,
                             (unsigned long long)b);
        if (x->n == 1) {
            /* dst holds [a, b], which must be the range asked for (cut at
             * the end of the file only by the first request) */
            if (a != x->r->off || (b - a + 1 != x->r->len && !x->head))
                return ts__error(err, TS_ERR_IO, "%sasked for bytes %s, got %llu-%llu",
                                 shown(f), x->range, (unsigned long long)a,
                                 (unsigned long long)b);
            return TS_OK;
        }
        copy_part(x, a, b, x->body, covered);
    }
    for (size_t i = 0; i < x->n; i++)
        if (covered[i] < x->r[i].len)
            return ts__error(err, TS_ERR_IO, "%sthe answer lacks bytes %llu-%llu", shown(f),
                             (unsigned long long)x->r[i].off,
                             (unsigned long long)(x->r[i].off + x->r[i].len - 1));
    return TS_OK;
}

static void nap(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0 && errno == EINTR)
        ;
}

/* Runs the k requests x[0..k) at once (each on its own handle of the
 * pool), retrying those that may succeed later. */
static ts_status run(rfile *f, xfer *x, size_t k, unsigned *requests, ts_error *err)
{
    for (size_t i = 0; i < k; i++)
        if (!f->pool[i] && !(f->pool[i] = api.curl_easy_init()))
            return ts__error(err, TS_ERR_NOMEM, "cannot start a libcurl handle");
    int done[MAX_PARALLEL] = {0};
    for (int attempt = 1;; attempt++) {
        CURLM *multi = k > 1 ? api.curl_multi_init() : NULL;
        if (k > 1 && !multi)
            return ts__error(err, TS_ERR_NOMEM, "cannot start a libcurl multi handle");
        for (size_t i = 0; i < k; i++) {
            if (done[i])
                continue;
            ts_status st = prepare(&x[i], f->pool[i], err);
            if (st) {
                if (multi)
                    api.curl_multi_cleanup(multi);
                return st;
            }
            if (multi)
                api.curl_multi_add_handle(multi, x[i].easy);
        }
        if (!multi) {
            x[0].rc = api.curl_easy_perform(x[0].easy);
        } else {
            int running = 1;
            while (running) {
                if (api.curl_multi_perform(multi, &running) != CURLM_OK)
                    break;
                if (running)
                    api.curl_multi_poll(multi, NULL, 0, 1000, NULL);
            }
            CURLMsg *msg;
            int left;
            while ((msg = api.curl_multi_info_read(multi, &left)) != NULL)
                if (msg->msg == CURLMSG_DONE)
                    for (size_t i = 0; i < k; i++)
                        if (x[i].easy == msg->easy_handle)
                            x[i].rc = msg->data.result;
            for (size_t i = 0; i < k; i++)
                if (!done[i])
                    api.curl_multi_remove_handle(multi, x[i].easy);
            api.curl_multi_cleanup(multi);
        }
        long wait = 0;
        ts_status first = TS_OK;
        int again = 0;
        for (size_t i = 0; i < k; i++) {
            if (done[i])
                continue;
            int retry;
            ts_error e;
            ts_status st = finish(&x[i], &retry, &e);
            long redirects = 0;
            api.curl_easy_getinfo(x[i].easy, CURLINFO_REDIRECT_COUNT, &redirects);
            *requests += 1 + (unsigned)redirects;
            if (!st) {
                done[i] = 1;
                continue;
            }
            if (retry && attempt < MAX_TRIES) {
                again = 1;
                long w = x[i].retry_after >= 0 ? x[i].retry_after * 1000
                                               : 500L << (attempt - 1);
                if (w > RETRY_AFTER_MAX * 1000)
                    w = RETRY_AFTER_MAX * 1000;
                if (w > wait)
                    wait = w;
                continue;
            }
            if (!first) {
                first = st;
                if (err)
                    *err = e;
                if (retry)
                    ts__error_prefix(err, "after %d tries", attempt);
            }
        }
        if (first)
            return first;
        if (!again)
            return TS_OK;
        nap(wait);
    }
}

static ts_status rfetch(void *impl, ts__range *r, size_t n, unsigned *requests, ts_error *err)
{
    rfile *f = impl;
    xfer x[MAX_PARALLEL];
    memset(x, 0, sizeof x);
    if (n > 1 && f->multirange != 0) {
        /* several ranges in one request while the server answers those */
        size_t i = 0;
        while (i < n) {
            size_t m = n - i > MAX_RANGES_PER_REQUEST ? MAX_RANGES_PER_REQUEST : n - i;
            uint64_t sum = 0;
            for (size_t j = 0; j < m; j++)
                sum += r[i + j].len;
            xfer *y = &x[0];
            y->f = f;
            y->r = r + i;
            y->n = m;
            y->body_cap = (size_t)sum + 512 * m + 4096;
            y->body = malloc(y->body_cap);
            if (!y->body)
                return ts__error(err, TS_ERR_NOMEM, "out of memory for %llu bytes",
                                 (unsigned long long)sum);
            ts_error e;
            ts_status st = run(f, y, 1, requests, &e);
            free(y->body);
            y->body = NULL;
            if (st && y->refused && f->multirange < 0) {
                f->multirange = 0; /* this server does not: one range a request */
                break;
            }
            if (st) {
                if (err)
                    *err = e;
                return st;
            }
            f->multirange = 1;
            i += m;
        }
        if (i == n)
            return TS_OK;
        r += i;
        n -= i;
    }
    for (size_t i = 0; i < n; i += MAX_PARALLEL) {
        size_t k = n - i > MAX_PARALLEL ? MAX_PARALLEL : n - i;
        for (size_t j = 0; j < k; j++) {
            memset(&x[j], 0, sizeof x[j]);
            x[j].f = f;
            x[j].r = &r[i + j];
            x[j].n = 1;
            x[j].dst = r[i + j].buf;
        }
        ts_status st = run(f, x, k, requests, err);
        if (st)
            return st;
    }
    return TS_OK;
}

static void rclose(void *impl)
{
    rfile *f = impl;
    if (!f)
        return;
    for (int i = 0; i < MAX_PARALLEL; i++)
        if (f->pool[i])
            api.curl_easy_cleanup(f->pool[i]);
    api.curl_slist_free_all(f->headers);
    free(f->target);
    ts__url_free(&f->url);
    free(f);
}

/* A remote file ready for requests (no request made yet). */
static ts_status rfile_new(const char *given, const ts_open_options *o, rfile **out,
                           ts_error *err)
{
    *out = NULL;
    ts_status st = need_curl(err);
    if (st)
        return st;
    rfile *f = calloc(1, sizeof *f);
    if (!f)
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    f->multirange = -1;
    f->log = o ? o->log : NULL;
    f->log_user = o ? o->log_user : NULL;
    if ((st = ts__url_resolve(given, &f->url, err))) {
        free(f);
        return st;
    }
    char *t = strdup(f->url.http);
    if (!t)
        goto nomem;
    set_target(f, t);
    if (f->url.bearer && !(f->headers = api.curl_slist_append(f->headers, f->url.bearer)))
        goto nomem;
    if (f->url.amz_token && !(f->headers = api.curl_slist_append(f->headers, f->url.amz_token)))
        goto nomem;
    *out = f;
    return TS_OK;
nomem:
    rclose(f);
    return ts__error(err, TS_ERR_NOMEM, "out of memory");
}

/* The first request: the first `want` bytes into buf, and the size. */
static ts_status first_request(rfile *f, unsigned char *buf, uint64_t want, uint64_t *got,
                               unsigned *requests, ts_error *err)
{
    ts__range r = {0, want, buf};
    xfer x;
    memset(&x, 0, sizeof x);
    x.f = f;
    x.r = &r;
    x.n = 1;
    x.dst = buf;
    x.head = 1;
    ts_status st = run(f, &x, 1, requests, err);
    if (st) {
        if (x.status == 416) {
            /* an empty file has no byte 0 */
            uint64_t a, b, total = 1;
            int known = 0;
            if (parse_content_range(x.content_range, &a, &b, &total, &known) == 0 && known &&
                total == 0) {
                f->size = 0;
                *got = 0;
                return TS_OK;
            }
        }
        return st;
    }
    if (x.status == 200) {
        /* the whole file came: fine only when it is all of it */
        curl_off_t len = -1;
        api.curl_easy_getinfo(x.easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &len);
        if (len >= 0 && (uint64_t)len != x.got)
            return ts__error(err, TS_ERR_IO, "%sthe answer ends after %llu of %lld bytes",
                             shown(f), (unsigned long long)x.got, (long long)len);
        f->size = x.got;
        *got = x.got;
        return TS_OK;
    }
    uint64_t a, b, total = 0;
    int known = 0;
    if (parse_content_range(x.content_range, &a, &b, &total, &known) != 0 || !known)
        return ts__error(err, TS_ERR_IO, "%sthe server does not say the file's size "
                         "(Content-Range '%s')", shown(f), x.content_range);
    f->size = total;
    *got = x.got;
    return TS_OK;
}

ts_status ts__remote_open(const char *url, const ts_open_options *o, ts__source **out,
                          ts_error *err)
{
    *out = NULL;
    rfile *f;
    ts_status st = rfile_new(url, o, &f, err);
    if (st)
        return st;
    uint64_t want = o && o->first_fetch ? o->first_fetch : HEAD_BYTES;
    if (want > FIRST_FETCH_MAX)
        want = FIRST_FETCH_MAX;
    unsigned char *head = malloc((size_t)want);
    if (!head) {
        rclose(f);
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    }
    uint64_t got = 0;
    unsigned requests = 0;
    if ((st = first_request(f, head, want, &got, &requests, err))) {
        free(head);
        rclose(f);
        return st;
    }
    ts__fetcher fe = {rfetch, rclose, f, 0};
    ts__source *s;
    if ((st = ts__source_open_fetcher(f->size, fe, &s, err))) {
        free(head);
        return st;
    }
    ts__source_fill(s, 0, head, (size_t)got);
    ts__source_count(s, requests, got);
    free(head);
    uint64_t budget = o && o->max_fetch ? o->max_fetch : TS_DEFAULT_MAX_FETCH;
    ts__source_set_budget(s, budget, "--max-fetch");
    *out = s;
    return TS_OK;
}

ts_status ts__remote_read_all(const char *url, const ts_open_options *o, size_t max,
                              unsigned char **buf, size_t *len, int *missing, ts_error *err)
{
    *buf = NULL;
    *len = 0;
    if (missing)
        *missing = 0;
    rfile *f;
    ts_status st = rfile_new(url, o, &f, err);
    if (st)
        return st;
    /* one plain GET (an index, a config, the Hub's file listing) */
    xfer x;
    memset(&x, 0, sizeof x);
    x.f = f;
    x.whole_max = max;
    unsigned requests = 0;
    st = run(f, &x, 1, &requests, err);
    if (st && missing && ts__remote_missing(err))
        *missing = 1;
    rclose(f);
    if (st) {
        free(x.body);
        return st;
    }
    if (!x.body && !(x.body = malloc(1))) /* an empty file */
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    x.body[x.body_len] = '\0';
    *buf = x.body;
    *len = x.body_len;
    return TS_OK;
}

ts_status ts__remote_size(const char *url, const ts_open_options *o, uint64_t *size,
                          ts_error *err)
{
    rfile *f;
    ts_status st = rfile_new(url, o, &f, err);
    if (st)
        return st;
    unsigned char byte;
    uint64_t got;
    unsigned requests = 0;
    st = first_request(f, &byte, 1, &got, &requests, err);
    *size = f->size;
    rclose(f);
    return st;
}

int ts__remote_missing(const ts_error *e)
{
    if (!e || e->code != TS_ERR_IO)
        return 0;
    const char *p = strstr(e->message, "HTTP 404 Not Found");
    return p && (p == e->message || p[-1] == ' ');
}
