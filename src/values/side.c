/*
 * side.c - the side files of a ts_file: ONNX external data, whose bytes are
 * in files beside the model (onnx/external_data_helper.py). The reader
 * registers each side file once (ts__side_add, at parse time, after it has
 * checked that the location stays inside the model's folder); the values
 * layer maps it on first use and keeps the map until ts_file_close
 * (ts__side_image), so reading every tensor of a file of 1,000 external
 * tensors maps it once.
 *
 * Reading the map is guarded against SIGBUS as the model's own map is
 * (walk.c guards whatever image it reads), and the side file is opened with
 * O_NOFOLLOW: a location replaced by a symbolic link since it was checked
 * is refused.
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
    char *path;                  /* resolved (realpath), as registered */
    const unsigned char *image;  /* mapped on first use, or NULL */
    size_t len;
    int mapped;                  /* 1: image/len are set (len may be 0) */
} side;

struct ts__sides {
    pthread_mutex_t lock;        /* held while mapping */
    side *v;
    size_t n, cap;
};

static const unsigned char empty_image[1];

ts_status ts__side_add(ts_file *f, const char *path, int32_t *id, ts_error *err)
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
    *id = (int32_t)++s->n;
    return TS_OK;
}

/* Maps e (under the lock). */
static ts_status map_side(side *e, ts_error *err)
{
    int fd = open(e->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return ts__error(err, TS_ERR_IO, "cannot open its external data file '%s': %s",
                         e->path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        int bad = errno;
        close(fd);
        return ts__error(err, TS_ERR_IO, "its external data file '%s' is %s", e->path,
                         bad ? strerror(bad) : "no longer a regular file");
    }
    const unsigned char *image = empty_image;
    size_t len = (size_t)sb.st_size;
    if (len > 0) {
        void *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) {
            int e2 = errno;
            close(fd);
            return ts__error(err, TS_ERR_IO, "cannot map its external data file '%s': %s",
                             e->path, strerror(e2));
        }
        image = m;
    }
    close(fd);
    e->image = image;
    e->len = len;
    e->mapped = 1;
    return TS_OK;
}

ts_status ts__side_image(const ts_file *f, int32_t id, const unsigned char **image, size_t *len,
                         ts_error *err)
{
    ts__sides *s = ts__file_sides(f);
    if (!s || id < 1 || (size_t)id > s->n)
        return ts__error(err, TS_ERR_INVALID_ARG, "no external data file %d", (int)id);
    side *e = &s->v[id - 1];
    ts_status st = TS_OK;
    pthread_mutex_lock(&s->lock);
    if (!e->mapped)
        st = map_side(e, err);
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
        if (s->v[i].mapped && s->v[i].len > 0)
            munmap((void *)(uintptr_t)s->v[i].image, s->v[i].len);
        free(s->v[i].path);
    }
    free(s->v);
    pthread_mutex_destroy(&s->lock);
    free(s);
}
