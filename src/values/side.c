/*
 * side.c - the side files of a ts_file: ONNX external data, whose bytes are
 * in files beside the model (onnx/external_data_helper.py), and the weight
 * shards of a TensorFlow.js model, whose bytes run from one shard into the
 * next (a chain: the files' bytes one after another). The reader registers
 * each side file or chain once (ts__side_add, ts__side_add_chain, at parse
 * time, after it has checked that the names stay inside the model's
 * folder); the values layer maps it on first use and keeps the map until
 * ts_file_close (ts__side_image), so reading every tensor of a file of
 * 1,000 external tensors maps it once.
 *
 * A chain is one reserved address range: each file whose start in it falls
 * on a page boundary is mapped there for its whole pages (TF.js shards are
 * 4 MiB: all of them but the last one's tail), the rest is read into the
 * range with pread. Reading the map is guarded against SIGBUS as the
 * model's own map is (walk.c guards whatever image it reads), and the files
 * are opened with O_NOFOLLOW: a name replaced by a symbolic link since it
 * was checked is refused.
 */
#define _GNU_SOURCE /* O_NOFOLLOW, O_CLOEXEC */
#include "values.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct side {
    char **paths;                /* resolved (realpath), as registered */
    size_t npaths;
    const char *what;            /* "external data file", "weights shard" */
    const unsigned char *image;  /* mapped on first use, or NULL */
    size_t len;                  /* the files' bytes */
    size_t span;                 /* bytes mapped (0: nothing to unmap) */
    int mapped;                  /* 1: image/len are set (len may be 0) */
} side;

struct ts__sides {
    pthread_mutex_t lock;        /* held while mapping */
    side *v;
    size_t n, cap;
};

static const unsigned char empty_image[1];

static int same_paths(const side *e, const char *const *paths, size_t n)
{
    if (e->npaths != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(e->paths[i], paths[i]) != 0)
            return 0;
    return 1;
}

static void side_free(side *e)
{
    for (size_t i = 0; i < e->npaths; i++)
        free(e->paths[i]);
    free(e->paths);
}

ts_status ts__side_add_chain(ts_file *f, const char *const *paths, size_t n, const char *what,
                             int32_t *id, ts_error *err)
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
            side_free(e);
            return ts__error(err, TS_ERR_NOMEM, "out of memory");
        }
        memcpy(e->paths[i], paths[i], k);
    }
    *id = (int32_t)++s->n;
    return TS_OK;
}

ts_status ts__side_add(ts_file *f, const char *path, int32_t *id, ts_error *err)
{
    return ts__side_add_chain(f, &path, 1, "external data file", id, err);
}

/* Opens file i of e, a regular file: its descriptor and size. */
static ts_status open_side(const side *e, size_t i, int *fd, size_t *size, ts_error *err)
{
    *fd = open(e->paths[i], O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (*fd < 0)
        return ts__error(err, TS_ERR_IO, "cannot open its %s '%s': %s", e->what, e->paths[i],
                         strerror(errno));
    struct stat sb;
    if (fstat(*fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        int bad = errno;
        close(*fd);
        return ts__error(err, TS_ERR_IO, "its %s '%s' is %s", e->what, e->paths[i],
                         bad ? strerror(bad) : "no longer a regular file");
    }
    *size = (size_t)sb.st_size;
    return TS_OK;
}

/* Maps a single file (under the lock). */
static ts_status map_side(side *e, ts_error *err)
{
    int fd;
    size_t len;
    ts_status st = open_side(e, 0, &fd, &len, err);
    if (st)
        return st;
    const unsigned char *image = empty_image;
    if (len > 0) {
        void *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) {
            int e2 = errno;
            close(fd);
            return ts__error(err, TS_ERR_IO, "cannot map its %s '%s': %s", e->what,
                             e->paths[0], strerror(e2));
        }
        image = m;
    }
    close(fd);
    e->image = image;
    e->len = len;
    e->span = len;
    e->mapped = 1;
    return TS_OK;
}

/* Reads n bytes at offset `from` of fd into p (a file that shrank:
 * TS_ERR_IO). */
static ts_status read_all(const side *e, size_t i, int fd, off_t from, unsigned char *p,
                          size_t n, ts_error *err)
{
    while (n > 0) {
        ssize_t k = pread(fd, p, n, from);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return ts__error(err, TS_ERR_IO, "cannot read its %s '%s': %s", e->what,
                             e->paths[i], k < 0 ? strerror(errno) : "the file shrank");
        p += k;
        from += k;
        n -= (size_t)k;
    }
    return TS_OK;
}

/* Maps a chain of files one after another (under the lock). */
static ts_status map_chain(side *e, ts_error *err)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), total = 0;
    int *fds = malloc(e->npaths * sizeof *fds);
    size_t *sizes = malloc(e->npaths * sizeof *sizes), opened = 0;
    ts_status st = fds && sizes ? TS_OK : ts__error(err, TS_ERR_NOMEM, "out of memory");
    for (; !st && opened < e->npaths; opened++) {
        if ((st = open_side(e, opened, &fds[opened], &sizes[opened], err)))
            break;
        if (sizes[opened] > SIZE_MAX - page - total)
            st = ts__error(err, TS_ERR_LIMIT, "its %ss do not fit in memory", e->what);
        else
            total += sizes[opened];
    }
    unsigned char *base = NULL;
    size_t span = (total + page - 1) / page * page;
    if (!st && span > 0) {
        void *m = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED)
            st = ts__error(err, TS_ERR_NOMEM, "cannot reserve %zu bytes for its %ss: %s", span,
                           e->what, strerror(errno));
        else
            base = m;
    }
    size_t at = 0;
    for (size_t i = 0; !st && i < e->npaths; i++) {
        size_t whole = at % page == 0 ? sizes[i] / page * page : 0;
        if (whole > 0 && mmap(base + at, whole, PROT_READ, MAP_PRIVATE | MAP_FIXED, fds[i], 0) ==
                             MAP_FAILED)
            st = ts__error(err, TS_ERR_IO, "cannot map its %s '%s': %s", e->what, e->paths[i],
                           strerror(errno));
        if (!st)
            st = read_all(e, i, fds[i], (off_t)whole, base + at + whole, sizes[i] - whole, err);
        at += sizes[i];
    }
    for (size_t i = 0; i < opened; i++)
        close(fds[i]);
    free(fds);
    free(sizes);
    if (st) {
        if (base)
            munmap(base, span);
        return st;
    }
    e->image = base ? base : empty_image;
    e->len = total;
    e->span = span;
    e->mapped = 1;
    return TS_OK;
}

ts_status ts__side_image(const ts_file *f, int32_t id, const unsigned char **image, size_t *len,
                         ts_error *err)
{
    ts__sides *s = ts__file_sides(f);
    if (!s || id < 1 || (size_t)id > s->n)
        return ts__error(err, TS_ERR_INVALID_ARG, "no side file %d", (int)id);
    side *e = &s->v[id - 1];
    ts_status st = TS_OK;
    pthread_mutex_lock(&s->lock);
    if (!e->mapped)
        st = e->npaths == 1 ? map_side(e, err) : map_chain(e, err);
    pthread_mutex_unlock(&s->lock);
    if (st == TS_OK) {
        *image = e->image;
        *len = e->len;
    }
    return st;
}

void ts__sides_free(ts__sides *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++) {
        if (s->v[i].mapped && s->v[i].span > 0)
            munmap((void *)(uintptr_t)s->v[i].image, s->v[i].span);
        side_free(&s->v[i]);
    }
    free(s->v);
    pthread_mutex_destroy(&s->lock);
    free(s);
}
