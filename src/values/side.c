/*
 * side.c - the side files of a ts_file: ONNX external data, whose bytes are
 * in files beside the model (onnx/external_data_helper.py), and the weight
 * shards of a TensorFlow.js model, whose bytes run from one shard into the
 * next (a chain: the files' bytes one after another, one byte source). The
 * reader registers each side file or chain once (ts__side_add,
 * ts__side_add_chain, at parse time, after it has checked that the names
 * stay inside the model's folder: a path, or the URL beside a remote
 * model); the values layer opens it as a byte source on first use and keeps
 * it until ts_file_close (ts__side_source), so reading every tensor of a
 * file of 1,000 external tensors opens it once. It is read as the model's
 * own bytes are (pread in steps, or range requests; a chain asks each of
 * its files for the part of a range it holds), and a local one is opened
 * with O_NOFOLLOW: a location replaced by a symbolic link since it was
 * checked is refused.
 */
#define _GNU_SOURCE /* O_NOFOLLOW, O_CLOEXEC */
#include "values.h"
#include "../remote/remote.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct side {
    char **paths;                /* resolved (realpath) or URLs, as registered */
    size_t npaths;               /* 1, or a chain's files */
    const char *what;            /* "external data file", "weights shard" */
    ts__source *src;             /* opened on first use, or NULL */
    ts_log_fn log;               /* the model's request log, for a URL */
    void *log_user;
} side;

struct ts__sides {
    pthread_mutex_t lock;        /* held while opening */
    side *v;
    size_t n, cap;
};

static int same_paths(const side *e, const char *const *paths, size_t n)
{
    if (e->npaths != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(e->paths[i], paths[i]) != 0)
            return 0;
    return 1;
}

static void free_paths(side *e)
{
    for (size_t i = 0; i < e->npaths; i++)
        free(e->paths[i]);
    free(e->paths);
}

ts_status ts__side_add_chain(ts_file *f, const char *const *paths, size_t n, const char *what,
                             const ts_open_options *opts, int32_t *id, ts_error *err)
{
    ts__sides *s = ts__file_sides(f);
    if (!s) {
        s = calloc(1, sizeof *s);
        if (!s || pthread_mutex_init(&s->lock, NULL) != 0) {
            free(s);
            return ts__error(err, TS_ERR_NOMEM, "out of memory");
        }
        ts__file_set_sides(f, s);
    }
    for (size_t i = 0; i < s->n; i++)
        if (same_paths(&s->v[i], paths, n)) {
            *id = (int32_t)i + 1;
            return TS_OK;
        }
    if (s->n >= INT32_MAX - 1)
        return ts__error(err, TS_ERR_LIMIT, "too many side files");
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 4;
        side *p = realloc(s->v, cap * sizeof *p);
        if (!p)
            return ts__error(err, TS_ERR_NOMEM, "out of memory");
        s->v = p;
        s->cap = cap;
    }
    side *e = &s->v[s->n];
    memset(e, 0, sizeof *e);
    e->what = what;
    if (!(e->paths = calloc(n ? n : 1, sizeof *e->paths)))
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++, e->npaths++) {
        size_t k = strlen(paths[i]) + 1;
        if (!(e->paths[i] = malloc(k))) {
            free_paths(e);
            return ts__error(err, TS_ERR_NOMEM, "out of memory");
        }
        memcpy(e->paths[i], paths[i], k);
    }
    if (opts) {
        e->log = opts->log;
        e->log_user = opts->log_user;
    }
    *id = (int32_t)++s->n;
    return TS_OK;
}

ts_status ts__side_add(ts_file *f, const char *path, const ts_open_options *opts, int32_t *id,
                       ts_error *err)
{
    return ts__side_add_chain(f, &path, 1, "external data file", opts, id, err);
}

/* ---- chains ----------------------------------------------------------------- */

/* A chain's fetcher: each range is read from the files that hold it. */
typedef struct chain {
    size_t n;
    ts__source **parts;
    uint64_t *starts;            /* n + 1: where each file starts, and the end */
} chain;

static ts_status chain_fetch(void *impl, ts__range *r, size_t n, unsigned *requests,
                             ts_error *err)
{
    chain *c = impl;
    for (size_t i = 0; i < n; i++) {
        uint64_t off = r[i].off, len = r[i].len;
        unsigned char *buf = r[i].buf;
        size_t lo = 0, hi = c->n; /* the file holding byte off: starts[k] <= off < starts[k + 1] */
        while (lo + 1 < hi) {
            size_t mid = (lo + hi) / 2;
            if (c->starts[mid] <= off)
                lo = mid;
            else
                hi = mid;
        }
        for (size_t k = lo; len > 0 && k < c->n; k++) {
            if (off >= c->starts[k + 1])
                continue; /* an empty file */
            uint64_t take = c->starts[k + 1] - off < len ? c->starts[k + 1] - off : len;
            uint64_t before = ts__source_get_stats(c->parts[k]).requests;
            ts_status st = ts__source_read(c->parts[k], off - c->starts[k], buf, (size_t)take,
                                           err);
            *requests += (unsigned)(ts__source_get_stats(c->parts[k]).requests - before);
            if (st)
                return st;
            off += take;
            buf += take;
            len -= take;
        }
        if (len > 0)
            return ts__error(err, TS_ERR_TRUNCATED, "bytes past the end of the files");
    }
    return TS_OK;
}

static void chain_close(void *impl)
{
    chain *c = impl;
    for (size_t i = 0; i < c->n; i++)
        ts__source_close(c->parts[i]);
    free(c->parts);
    free(c->starts);
    free(c);
}

/* Opens file i of e as a byte source: a local file as any other (read
 * with pread in steps, a symbolic link refused), a URL with range requests. */
static ts_status open_path(const side *e, size_t i, ts__source **out, ts_error *err)
{
    ts_status st;
    if (ts__is_url(e->paths[i])) {
        ts_open_options o = TS_OPEN_OPTIONS_INIT;
        o.log = e->log;
        o.log_user = e->log_user;
        o.first_fetch = 4096; /* values are read where they are, not from the start */
        st = ts__remote_open(e->paths[i], &o, out, err);
    } else {
        st = ts__source_open_path(e->paths[i],
                                  (ts__local_mode)(TS__LOCAL_AUTO | TS__LOCAL_NOFOLLOW), out, err);
    }
    if (st)
        ts__error_prefix(err, "its %s '%s'", e->what, e->paths[i]);
    return st;
}

/* Opens e's byte source (under the lock): its file, or a sparse source over
 * its chain of files whose fetcher reads each range from them. */
static ts_status open_side(side *e, ts_error *err)
{
    if (e->npaths == 1)
        return open_path(e, 0, &e->src, err);
    chain *c = calloc(1, sizeof *c);
    if (!c || !(c->parts = calloc(e->npaths, sizeof *c->parts)) ||
        !(c->starts = calloc(e->npaths + 1, sizeof *c->starts))) {
        if (c)
            free(c->parts);
        free(c);
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    }
    ts_status st = TS_OK;
    for (; c->n < e->npaths; c->n++) {
        uint64_t size;
        if ((st = open_path(e, c->n, &c->parts[c->n], err)))
            break;
        ts__source_image(c->parts[c->n], &size);
        if (size > UINT64_MAX / 2 - c->starts[c->n]) {
            c->n++;
            st = ts__error(err, TS_ERR_OVERFLOW, "its %ss are too large", e->what);
            break;
        }
        c->starts[c->n + 1] = c->starts[c->n] + size;
    }
    if (st) {
        chain_close(c);
        return st;
    }
    ts__fetcher fetcher = {chain_fetch, chain_close, c, 0};
    return ts__source_open_fetcher(c->starts[c->n], fetcher, &e->src, err);
}

ts_status ts__side_source(const ts_file *f, int32_t id, ts__source **out, ts_error *err)
{
    ts__sides *s = ts__file_sides(f);
    if (!s || id < 1 || (size_t)id > s->n)
        return ts__error(err, TS_ERR_INVALID_ARG, "no side file %d", (int)id);
    side *e = &s->v[id - 1];
    ts_status st = TS_OK;
    pthread_mutex_lock(&s->lock);
    if (!e->src)
        st = open_side(e, err);
    pthread_mutex_unlock(&s->lock);
    if (st == TS_OK)
        *out = e->src;
    return st;
}

void ts__sides_free(ts__sides *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++) {
        ts__source_close(s->v[i].src);
        free_paths(&s->v[i]);
    }
    free(s->v);
    pthread_mutex_destroy(&s->lock);
    free(s);
}
