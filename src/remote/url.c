/*
 * url.c - what a URL names: http(s) as given, hf:// resolved against the
 * Hub's `resolve` URLs (huggingface_hub's hf_hub_url), s3:// against the
 * bucket's endpoint (remote.h).
 */
#include "remote.h"

#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

int ts__is_url(const char *path)
{
    /* the first byte first: asked for every member of a folder */
    int c = (unsigned char)path[0] | 0x20;
    if (c != 'h' && c != 's')
        return 0;
    return strncasecmp(path, "http://", 7) == 0 || strncasecmp(path, "https://", 8) == 0 ||
           strncmp(path, "hf://", 5) == 0 || strncmp(path, "s3://", 5) == 0;
}

/* RFC 3986 unreserved characters, and '/' when keep_slash. */
static int unreserved(unsigned char c, int keep_slash)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '.' || c == '_' || c == '~' || (keep_slash && c == '/');
}

/* s[0..n) percent-encoded, appended to out (at least 3n + 1 bytes free). */
static char *encode(char *out, const char *s, size_t n, int keep_slash)
{
    static const char hex[] = "0123456789ABCDEF";
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (unreserved(c, keep_slash)) {
            *out++ = (char)c;
        } else {
            *out++ = '%';
            *out++ = hex[c >> 4];
            *out++ = hex[c & 15];
        }
    }
    *out = '\0';
    return out;
}

static char *dup_n(const char *s, size_t n)
{
    char *p = malloc(n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

/* prefix + value, malloc'ed. */
static char *dup_cat(const char *prefix, const char *value)
{
    size_t a = strlen(prefix), b = strlen(value);
    char *p = malloc(a + b + 1);
    if (p) {
        memcpy(p, prefix, a);
        memcpy(p + a, value, b + 1);
    }
    return p;
}

/* An environment variable that is set and not empty, or NULL. */
static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

static ts_status resolve_hf(const char *given, ts__url *u, ts_error *err)
{
    /* hf://ORG/NAME[@REV][/PATH]; the repo is two components. */
    const char *p = given + 5;
    const char *slash1 = strchr(p, '/');
    if (!slash1 || slash1 == p || !slash1[1])
        return ts__error(err, TS_ERR_INVALID_ARG,
                         "'%s' is not a Hub URL: expected hf://ORG/NAME[@REVISION][/PATH]", given);
    const char *name = slash1 + 1;
    size_t name_len = strcspn(name, "@/");
    if (name_len == 0)
        return ts__error(err, TS_ERR_INVALID_ARG,
                         "'%s' is not a Hub URL: expected hf://ORG/NAME[@REVISION][/PATH]", given);
    const char *rest = name + name_len;
    const char *rev = "main";
    size_t rev_len = 4;
    if (*rest == '@') {
        /* a revision may hold slashes (refs/pr/1): it ends at the last
         * slash before the path only when the path is a file name, so a
         * revision with slashes must be written encoded (refs%2Fpr%2F1) */
        rev = rest + 1;
        rev_len = strcspn(rev, "/");
        if (rev_len == 0)
            return ts__error(err, TS_ERR_INVALID_ARG,
                             "'%s': empty revision after '@'", given);
        rest = rev + rev_len;
    }
    const char *path = *rest == '/' ? rest + 1 : rest;
    const char *endpoint = env("HF_ENDPOINT");
    if (!endpoint)
        endpoint = "https://huggingface.co";
    size_t elen = strlen(endpoint);
    while (elen && endpoint[elen - 1] == '/')
        elen--;
    u->hf_repo = dup_n(p, (size_t)(name + name_len - p)); /* "org/name" */
    u->hf_revision = dup_n(rev, rev_len);
    u->hf_path = dup_n(path, strlen(path));
    u->hf_endpoint = dup_n(endpoint, elen);
    if (!u->hf_repo || !u->hf_revision || !u->hf_path || !u->hf_endpoint)
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    /* ENDPOINT/ORG/NAME/resolve/REV/PATH (huggingface_hub's hf_hub_url) */
    size_t cap = elen + 3 * (strlen(u->hf_repo) + rev_len + strlen(path)) + 32;
    char *h = malloc(cap);
    if (!h)
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    char *w = h;
    memcpy(w, endpoint, elen);
    w += elen;
    *w++ = '/';
    w = encode(w, u->hf_repo, strlen(u->hf_repo), 1);
    memcpy(w, "/resolve/", 9);
    w += 9;
    w = encode(w, rev, rev_len, 0);
    *w++ = '/';
    encode(w, path, strlen(path), 1);
    u->http = h;
    const char *token = env("HF_TOKEN");
    if (!token)
        token = env("HUGGING_FACE_HUB_TOKEN");
    if (token && !(u->bearer = dup_cat("Authorization: Bearer ", token)))
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    return TS_OK;
}

static ts_status resolve_s3(const char *given, ts__url *u, ts_error *err)
{
    const char *bucket = given + 5;
    size_t blen = strcspn(bucket, "/");
    if (blen == 0)
        return ts__error(err, TS_ERR_INVALID_ARG,
                         "'%s' is not an S3 URL: expected s3://BUCKET/KEY", given);
    const char *key = bucket[blen] == '/' ? bucket + blen + 1 : bucket + blen;
    const char *region = env("AWS_REGION");
    if (!region)
        region = env("AWS_DEFAULT_REGION");
    if (!region)
        region = "us-east-1";
    const char *endpoint = env("AWS_ENDPOINT_URL_S3");
    if (!endpoint)
        endpoint = env("AWS_ENDPOINT_URL");
    size_t cap = (endpoint ? strlen(endpoint) : 0) + 3 * (blen + strlen(key)) +
                 strlen(region) + 64;
    char *h = malloc(cap);
    if (!h)
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    char *w = h;
    if (endpoint) {
        /* path style: ENDPOINT/BUCKET/KEY (MinIO, Ceph, LocalStack, ...) */
        size_t elen = strlen(endpoint);
        while (elen && endpoint[elen - 1] == '/')
            elen--;
        memcpy(w, endpoint, elen);
        w += elen;
        *w++ = '/';
        w = encode(w, bucket, blen, 0);
        *w++ = '/';
    } else {
        w += snprintf(w, cap, "https://");
        w = encode(w, bucket, blen, 0);
        w += snprintf(w, cap - (size_t)(w - h), ".s3.%s.amazonaws.com/", region);
    }
    encode(w, key, strlen(key), 1);
    u->http = h;
    const char *id = env("AWS_ACCESS_KEY_ID"), *secret = env("AWS_SECRET_ACCESS_KEY");
    if (id && secret) {
        u->userpwd = malloc(strlen(id) + strlen(secret) + 2);
        u->sigv4 = malloc(strlen(region) + 16);
        if (!u->userpwd || !u->sigv4)
            return ts__error(err, TS_ERR_NOMEM, "out of memory");
        sprintf(u->userpwd, "%s:%s", id, secret);
        sprintf(u->sigv4, "aws:amz:%s:s3", region);
        const char *token = env("AWS_SESSION_TOKEN");
        if (token && !(u->amz_token = dup_cat("x-amz-security-token: ", token)))
            return ts__error(err, TS_ERR_NOMEM, "out of memory");
    }
    return TS_OK;
}

ts_status ts__url_resolve(const char *given, ts__url *u, ts_error *err)
{
    memset(u, 0, sizeof *u);
    u->given = given;
    ts_status st;
    if (strncmp(given, "hf://", 5) == 0) {
        u->scheme = TS__URL_HF;
        st = resolve_hf(given, u, err);
    } else if (strncmp(given, "s3://", 5) == 0) {
        u->scheme = TS__URL_S3;
        st = resolve_s3(given, u, err);
    } else {
        u->scheme = TS__URL_HTTP;
        const char *host = strstr(given, "://") + 3;
        if (!*host || *host == '/')
            st = ts__error(err, TS_ERR_INVALID_ARG, "'%s' has no host", given);
        else
            st = (u->http = dup_n(given, strlen(given))) ? TS_OK
                 : ts__error(err, TS_ERR_NOMEM, "out of memory");
    }
    if (st)
        ts__url_free(u);
    return st;
}

void ts__url_free(ts__url *u)
{
    free(u->http);
    free(u->bearer);
    free(u->sigv4);
    free(u->userpwd);
    free(u->amz_token);
    free(u->hf_repo);
    free(u->hf_revision);
    free(u->hf_path);
    free(u->hf_endpoint);
    memset(u, 0, sizeof *u);
}

char *ts__url_sibling(const char *base, const char *name)
{
    size_t n = strlen(base);
    if (strncasecmp(base, "http", 4) == 0)
        n = strcspn(base, "?#");
    size_t dir = n;
    int hf_repo_only = 0;
    if (strncmp(base, "hf://", 5) == 0) {
        /* hf://ORG/NAME[@REV] names the repo itself: its files are below it */
        const char *s1 = strchr(base + 5, '/');
        hf_repo_only = !s1 || !strchr(s1 + 1, '/');
    }
    if (!hf_repo_only) {
        while (dir > 0 && base[dir - 1] != '/')
            dir--;
    }
    int http = strncasecmp(base, "http", 4) == 0;
    size_t cap = dir + 1 + 3 * strlen(name) + 1;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    memcpy(out, base, dir);
    char *w = out + dir;
    if (hf_repo_only)
        *w++ = '/';
    if (http)
        encode(w, name, strlen(name), 1);
    else
        strcpy(w, name);
    return out;
}
