/*
 * side.c - the side files of a ts_file: ONNX external data, whose bytes are
 * in files beside the model (onnx/external_data_helper.py). The reader
 * registers each side file once (ts__side_add, at parse time, after it has
 * checked that the location stays inside the model's folder: a path, or the
 * URL beside a remote model); the values layer opens it as a byte source on
 * first use and keeps it until ts_file_close (ts__side_source), so reading
 * every tensor of a file of 1,000 external tensors opens it once. It is read
 * as the model's own bytes are (pread in steps, or range requests), and a
 * local one is opened with O_NOFOLLOW: a location replaced by a symbolic
 * link since it was checked is refused.
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
    char *path;                  /* resolved (realpath) or a URL, as registered */
    ts__source *src;             /* opened on first use, or NULL */
    ts_log_fn log;               /* the model's request log, for a URL */
    void *log_user;
} side;

struct ts__sides {
    pthread_mutex_t lock;        /* held while opening */
    side *v;
    size_t n, cap;
};

ts_status ts__side_add(ts_file *f, const char *path, const ts_open_options *opts, int32_t *id,
                       ts_error *err)
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
        if (strcmp(s->v[i].path, path) == 0) {
            *id = (int32_t)i + 1;
            return TS_OK;
        }
    if (s->n >= INT32_MAX - 1)
        return ts__error(err, TS_ERR_LIMIT, "too many external data files");
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
    size_t n = strlen(path) + 1;
    if (!(e->path = malloc(n)))
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    memcpy(e->path, path, n);
    if (opts) {
        e->log = opts->log;
        e->log_user = opts->log_user;
    }
    *id = (int32_t)++s->n;
    return TS_OK;
}

/* Opens e's byte source (under the lock): a local file as any other (read
 * with pread in steps, a symbolic link refused), a URL with range requests. */
static ts_status open_side(side *e, ts_error *err)
{
    ts_status st;
    if (ts__is_url(e->path)) {
        ts_open_options o = TS_OPEN_OPTIONS_INIT;
        o.log = e->log;
        o.log_user = e->log_user;
        o.first_fetch = 4096; /* values are read where they are, not from the start */
        st = ts__remote_open(e->path, &o, &e->src, err);
    } else {
        st = ts__source_open_path(e->path, (ts__local_mode)(TS__LOCAL_AUTO | TS__LOCAL_NOFOLLOW),
                                  &e->src, err);
    }
    if (st)
        ts__error_prefix(err, "its external data file '%s'", e->path);
    return st;
}

ts_status ts__side_source(const ts_file *f, int32_t id, ts__source **out, ts_error *err)
{
    ts__sides *s = ts__file_sides(f);
    if (!s || id < 1 || (size_t)id > s->n)
        return ts__error(err, TS_ERR_INVALID_ARG, "no external data file %d", (int)id);
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
        free(s->v[i].path);
    }
    free(s->v);
    pthread_mutex_destroy(&s->lock);
    free(s);
}
