/*
 * source.c - byte sources (source.h): a file in memory, read whole,
 * mapped, or sparse (a reserved image filled block by block by a fetcher:
 * pread for local files, range requests for remote ones).
 */
/* madvise, MAP_ANONYMOUS, MAP_NORESERVE (beyond _POSIX_C_SOURCE). */
#define _DEFAULT_SOURCE
#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Files up to this size are read into memory instead of mapped: for the
 * small files of a model folder, open + read + close costs less than
 * mmap, a page fault and munmap (with its TLB flush on every CPU). */
#define READ_MAX ((uint64_t)TS__READ_MAX)

/* Read-ahead of a sparse source. A miss that jumps (a reader skipping
 * tensor data to the next header) fetches at least RA_JUMP bytes; a miss at
 * or shortly after the end of the last fetch (a reader going forward
 * through metadata) fetches RA_GROWTH times what that fetch did, at least
 * RA_SEQ and at most RA_MAX, so a header of n bytes costs about
 * log4(n / 128 KiB) requests. A reader's hint wins over both. */
#define RA_JUMP ((uint64_t)16 * 1024)
#define RA_SEQ ((uint64_t)64 * 1024)
#define RA_GROWTH 4
#define RA_MAX ((uint64_t)16 * 1024 * 1024)

typedef enum kind { K_MEMORY, K_READ, K_MAP, K_SPARSE } kind;

struct ts__source {
    kind kind;
    const unsigned char *image;
    uint64_t size;
    void *map;                  /* K_MAP, K_SPARSE: the mapping */
    size_t map_len;
    unsigned char *owned;       /* K_READ */
    /* K_SPARSE */
    ts__fetcher fetcher;
    unsigned char *have;        /* one bit per page of the image */
    size_t page;
    pthread_mutex_t lock;
    uint64_t next_ra, last_end; /* read-ahead state */
    uint64_t hint;
    uint64_t budget, fetched;   /* bytes need may fetch; fetched by need */
    const char *budget_what;
    ts__source_stats stats;
    ts_error *probe_err;        /* a fetch error met by a probe (malloc'd:
                                   the small files' sources stay small) */
    ts_status probe_code;       /* its code (TS_ERR_NOMEM when it could not
                                   be kept) */
    int strict;                 /* ts__source_strict */
    /* One page of which only [page start, partial_end) is known (the end of
     * the first request, ts__source_fill): readable, not in `have`; a need
     * that ends before partial_end takes it as there. NO_PAGE when none. */
    uint64_t partial_page, partial_end;
};

#define NO_PAGE UINT64_MAX

/* Where a small file's bytes start in the block read_small allocates for
 * its source and them: aligned as malloc aligns. */
#define IMAGE_AT ((sizeof(ts__source) + _Alignof(max_align_t) - 1) & \
                  ~(_Alignof(max_align_t) - 1))

/* ---- the local fetcher: pread --------------------------------------------------- */

typedef struct local_fetcher {
    int fd;
} local_fetcher;

/* Reads exactly len bytes at off; a short read is a file that shrank. */
static ts_status pread_all(int fd, uint64_t off, unsigned char *buf, uint64_t len,
                           ts_error *err)
{
    uint64_t got = 0;
    while (got < len) {
        size_t step = len - got > ((size_t)1 << 30) ? (size_t)1 << 30 : (size_t)(len - got);
        ssize_t k = pread(fd, buf + got, step, (off_t)(off + got));
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return ts__fail(err, TS_ERR_IO, 0, (int64_t)(off + got), "cannot read at byte %llu: %s",
                            (unsigned long long)(off + got), strerror(errno));
        if (k == 0)
            return ts__fail(err, TS_ERR_IO, 0, (int64_t)(off + got),
                            "the file shrank while it was being read (truncated by another "
                            "program?): it ends before byte %llu",
                            (unsigned long long)(off + len));
        got += (uint64_t)k;
    }
    return TS_OK;
}

/* Runs of at least MAP_RUN bytes at a page boundary are mapped from the
 * file over their pages of the image (MAP_FIXED replaces that part of the
 * reservation) instead of copied: a reader that needs a large part of a
 * file at once (libhdf5 lists an HDF5 or Keras file from its image) then
 * costs the page cache's pages, not a copy of them. A page of it that
 * vanishes later (the file shrank) is a SIGBUS that mapguard.c turns into
 * an error, as for a mapped file. */
#define MAP_RUN ((uint64_t)1 << 20)

static ts_status local_fetch(void *impl, ts__range *r, size_t n, unsigned *requests,
                             ts_error *err)
{
    local_fetcher *lf = impl;
    long page = sysconf(_SC_PAGESIZE);
    for (size_t i = 0; i < n; i++) {
        struct stat sb;
        ++*requests;
        if (r[i].len >= MAP_RUN && page > 0 && r[i].off % (uint64_t)page == 0 &&
            (uintptr_t)r[i].buf % (uintptr_t)page == 0 && fstat(lf->fd, &sb) == 0 &&
            sb.st_size >= 0 && (uint64_t)sb.st_size >= r[i].off + r[i].len) {
            if (mmap(r[i].buf, (size_t)r[i].len, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_FIXED, lf->fd, (off_t)r[i].off) != MAP_FAILED)
                continue;
            /* a failed MAP_FIXED may have taken the pages: anonymous
             * ones again, then read as any run */
            if (mmap(r[i].buf, (size_t)r[i].len, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
                return ts__fail(err, TS_ERR_NOMEM, 0, (int64_t)r[i].off,
                                "cannot make room for the bytes at %llu: %s",
                                (unsigned long long)r[i].off, strerror(errno));
        }
        ts_status st = pread_all(lf->fd, r[i].off, r[i].buf, r[i].len, err);
        if (st)
            return st;
    }
    return TS_OK;
}

ts_status ts__source_read_fd(int fd, uint64_t off, void *buf, size_t len, ts_error *err)
{
    return pread_all(fd, off, buf, len, err);
}

int ts__source_fd(const ts__source *s)
{
    if (s && s->kind == K_SPARSE && s->fetcher.fetch == local_fetch)
        return ((const local_fetcher *)s->fetcher.impl)->fd;
    return -1;
}

static void local_close(void *impl)
{
    local_fetcher *lf = impl;
    close(lf->fd);
    free(lf);
}

/* ---- a fetcher over memory (tests, fuzzing) -------------------------------------- */

typedef struct memory_fetcher {
    const unsigned char *data;
} memory_fetcher;

static ts_status memory_fetch(void *impl, ts__range *r, size_t n, unsigned *requests,
                              ts_error *err)
{
    (void)err;
    memory_fetcher *m = impl;
    for (size_t i = 0; i < n; i++)
        memcpy(r[i].buf, m->data + r[i].off, (size_t)r[i].len);
    ++*requests;
    return TS_OK;
}

static void memory_close(void *impl)
{
    free(impl);
}

/* ---- opening ------------------------------------------------------------------- */

static ts__source *source_new(ts_error *err)
{
    ts__source *s = calloc(1, sizeof *s);
    if (!s)
        ts__error(err, TS_ERR_NOMEM, "out of memory");
    return s;
}

ts_status ts__source_open_memory(const void *data, size_t len, ts__source **out,
                                 ts_error *err)
{
    static const unsigned char empty[1];
    ts__source *s = source_new(err);
    if (!s)
        return TS_ERR_NOMEM;
    s->kind = K_MEMORY;
    s->image = data ? data : empty;
    s->size = len;
    *out = s;
    return TS_OK;
}

ts_status ts__source_open_fetcher(uint64_t size, ts__fetcher fetcher, ts__source **out,
                                  ts_error *err)
{
    *out = NULL;
    ts__source *s = source_new(err);
    if (!s) {
        fetcher.close(fetcher.impl);
        return TS_ERR_NOMEM;
    }
    s->kind = K_SPARSE;
    s->partial_page = NO_PAGE;
    s->fetcher = fetcher;
    s->size = size;
    s->page = (size_t)sysconf(_SC_PAGESIZE);
    pthread_mutex_init(&s->lock, NULL);
    uint64_t pages = size / s->page + 1;  /* at least one, and room for a last partial */
    if (pages > SIZE_MAX / s->page) {
        ts__source_close(s);
        return ts__error(err, TS_ERR_LIMIT,
                         "a %llu-byte file does not fit this process's address space",
                         (unsigned long long)size);
    }
    s->map_len = (size_t)pages * s->page;
    void *m = mmap(NULL, s->map_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (m == MAP_FAILED) {
        s->map_len = 0;
        ts__source_close(s);
        return ts__error(err, TS_ERR_LIMIT,
                         "cannot reserve %llu bytes of address space for the file's image: %s",
                         (unsigned long long)size, strerror(errno));
    }
    s->map = m;
    s->image = m;
    s->have = calloc((size_t)(pages / 8 + 1), 1);
    if (!s->have) {
        ts__source_close(s);
        return ts__error(err, TS_ERR_NOMEM, "out of memory for the block map of a %llu-byte file",
                         (unsigned long long)size);
    }
    *out = s;
    return TS_OK;
}

/* Reads an open regular file whole when it is at most READ_MAX bytes:
 * TS_OK and *out a K_READ source, TS_ERR_LIMIT when it is longer (nothing
 * kept), TS_ERR_IO or TS_ERR_NOMEM. */
static ts_status read_small(int fd, ts__source **out, ts_error *err)
{
    unsigned char buf[READ_MAX + 1];
    size_t got = 0;
    while (got < sizeof buf) {
        ssize_t k = pread(fd, buf + got, sizeof buf - got, (off_t)got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && errno != EAGAIN)
            return ts__error(err, TS_ERR_IO, "cannot read: %s", strerror(errno));
        if (k <= 0)
            break;
        got += (size_t)k;
        /* A short read of a regular file is its end (Linux reads regular
         * files whole but at the end: no second call to see 0). */
        if ((size_t)k < sizeof buf - (got - (size_t)k))
            break;
    }
    if (got > READ_MAX)
        return TS_ERR_LIMIT;
    return ts__source_of_read(buf, got, out, err);
}

ts_status ts__source_of_read(const void *data, size_t n, ts__source **out, ts_error *err)
{
    /* the source and its bytes in one allocation (one malloc, and one
     * block of memory per small file of a folder) */
    static const unsigned char empty[1];
    ts__source *s = malloc(IMAGE_AT + n);
    if (!s)
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    memset(s, 0, sizeof *s);
    if (n)
        memcpy((unsigned char *)s + IMAGE_AT, data, n);
    s->kind = K_READ;
    s->image = n ? (unsigned char *)s + IMAGE_AT : empty;
    s->size = n;
    s->stats.requests = 1;
    s->stats.bytes = n;
    *out = s;
    return TS_OK;
}

ts_status ts__source_open_path(const char *path, ts__local_mode mode, ts__source **out,
                               ts_error *err)
{
    return ts__source_open_at(AT_FDCWD, path, mode, out, err);
}

ts_status ts__source_open_at(int dir, const char *path, ts__local_mode mode, ts__source **out,
                             ts_error *err)
{
    *out = NULL;
    /* O_NONBLOCK: opening a FIFO must not wait for a writer; the check for
     * a regular file below then refuses it. */
    int nofollow = (mode & TS__LOCAL_NOFOLLOW) != 0, listed = (mode & TS__LOCAL_LISTED) != 0;
    mode = (ts__local_mode)(mode & ~(TS__LOCAL_NOFOLLOW | TS__LOCAL_LISTED));
    int fd = openat(dir, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (nofollow ? O_NOFOLLOW : 0));
    if (fd < 0)
        return ts__error(err, TS_ERR_IO, "cannot open: %s", strerror(errno));
    if (listed && mode == TS__LOCAL_AUTO) {
        /* One system call fewer per small file of a folder (issue 28): the
         * listing said a regular file, and a read that ends before the
         * buffer is full has met the end of a regular file. A file swapped
         * for a FIFO since reads as empty (O_NONBLOCK: no wait). */
        ts_status st = read_small(fd, out, err);
        if (st != TS_ERR_LIMIT) {
            close(fd);
            return st;
        }
        ts__ok(err);
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        return ts__error(err, TS_ERR_IO, "cannot stat: %s", strerror(e));
    }
    if (S_ISDIR(sb.st_mode)) {
        close(fd);
        return ts__error(err, TS_ERR_IO, "is a directory");
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        return ts__error(err, TS_ERR_IO,
                         "not a regular file (pipes and devices cannot be mapped)");
    }
    uint64_t len = (uint64_t)sb.st_size;
    if (mode == TS__LOCAL_SPARSE || (mode == TS__LOCAL_AUTO && len > READ_MAX)) {
        local_fetcher *lf = malloc(sizeof *lf);
        if (!lf) {
            close(fd);
            return ts__error(err, TS_ERR_NOMEM, "out of memory");
        }
        lf->fd = fd;
        ts__fetcher fe = {local_fetch, local_close, lf, 1};
        return ts__source_open_fetcher(len, fe, out, err);
    }
    ts__source *s = source_new(err);
    if (!s) {
        close(fd);
        return TS_ERR_NOMEM;
    }
    static const unsigned char empty[1];
    s->image = empty;
    if (len > 0 && len <= READ_MAX && mode == TS__LOCAL_AUTO) {
        /* Small files are read: cheaper than mapping and unmapping them
         * (and no page of theirs can vanish). A file that shrank since the
         * fstat is parsed as far as it was read. */
        unsigned char *buf = malloc((size_t)len);
        size_t got = 0;
        ssize_t k = 0;
        while (buf && got < len) {
            k = read(fd, buf + got, (size_t)len - got);
            if (k < 0 && errno == EINTR)
                continue;
            if (k <= 0)
                break;
            got += (size_t)k;
        }
        if (!buf || k < 0) {
            int e = errno;
            free(buf);
            close(fd);
            free(s);
            return buf ? ts__error(err, TS_ERR_IO, "cannot read: %s", strerror(e))
                       : ts__error(err, TS_ERR_NOMEM, "out of memory for %llu bytes",
                                   (unsigned long long)len);
        }
        s->kind = K_READ;
        s->owned = buf;
        s->image = buf;
        s->size = got;
        s->stats.requests = 1;
        s->stats.bytes = got;
    } else {
        s->kind = K_MAP;
        if (len > 0) {
            if (len > SIZE_MAX) {
                close(fd);
                free(s);
                return ts__error(err, TS_ERR_LIMIT, "a %llu-byte file cannot be mapped",
                                 (unsigned long long)len);
            }
            void *m = mmap(NULL, (size_t)len, PROT_READ, MAP_PRIVATE, fd, 0);
            if (m == MAP_FAILED) {
                int e = errno;
                close(fd);
                free(s);
                return ts__error(err, TS_ERR_IO, "cannot map: %s", strerror(e));
            }
            s->map = m;
            s->map_len = (size_t)len;
            s->image = m;
        }
        s->size = len;
    }
    close(fd);
    *out = s;
    return TS_OK;
}

int ts__dir_at(ts__dir_fd *d, const char *path, const char **name)
{
    const char *slash = strrchr(path, '/');
    *name = path;
    if (!slash || slash == path || !slash[1])
        return AT_FDCWD;
    size_t n = (size_t)(slash - path);
    if (d->fd < 0 || n != d->len || memcmp(path, d->path, n) != 0) {
        ts__dir_fd_close(d);
        char *p = malloc(n + 1);
        if (!p)
            return AT_FDCWD;
        memcpy(p, path, n);
        p[n] = '\0';
        d->fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (d->fd < 0) {
            free(p);
            return AT_FDCWD;
        }
        d->path = p;
        d->len = n;
    }
    *name = slash + 1;
    return d->fd;
}

void ts__dir_fd_close(ts__dir_fd *d)
{
    if (d->fd >= 0)
        close(d->fd);
    free(d->path);
    d->fd = -1;
    d->len = 0;
    d->path = NULL;
}

ts_status ts__source_open_memory_sparse(const void *data, size_t len, ts__source **out,
                                        ts_error *err)
{
    memory_fetcher *m = malloc(sizeof *m);
    if (!m)
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    m->data = data;
    ts__fetcher fe = {memory_fetch, memory_close, m, 1};
    ts_status st = ts__source_open_fetcher(len, fe, out, err);
    if (!st)
        ts__source_strict(*out);
    return st;
}

void ts__source_close(ts__source *s)
{
    if (!s)
        return;
    if (s->map)
        munmap(s->map, s->map_len);
    if (s->kind == K_SPARSE) {
        if (s->fetcher.close)
            s->fetcher.close(s->fetcher.impl);
        pthread_mutex_destroy(&s->lock);
    }
    free(s->have);
    free(s->owned);
    free(s->probe_err);
    free(s);
}

/* ---- asking for bytes ------------------------------------------------------------ */

const unsigned char *ts__source_image(const ts__source *s, uint64_t *size)
{
    *size = s->size;
    return s->image;
}

int ts__source_is_whole(const ts__source *s)
{
    return s->kind != K_SPARSE;
}

int ts__source_is_mapped(const ts__source *s)
{
    return s->kind == K_MAP && s->map != NULL;
}

static int has_page(const ts__source *s, uint64_t p)
{
    return (s->have[p / 8] >> (p % 8)) & 1;
}

static void set_pages(ts__source *s, uint64_t p0, uint64_t p1, int on)
{
    for (uint64_t p = p0; p < p1; p++) {
        if (on)
            s->have[p / 8] |= (unsigned char)(1u << (p % 8));
        else
            s->have[p / 8] &= (unsigned char)~(1u << (p % 8));
    }
}

/* Sets the protection of pages [p0, p1) of a sparse image. */
static int protect(ts__source *s, uint64_t p0, uint64_t p1, int prot)
{
    return mprotect((char *)s->map + p0 * s->page, (size_t)(p1 - p0) * s->page, prot);
}

/* The pages of [p0, p1) that are missing, as at most `cap` runs; returns
 * their count (runs beyond cap are left for the next call). */
static size_t missing_runs(const ts__source *s, uint64_t p0, uint64_t p1, ts__range *runs,
                           size_t cap)
{
    size_t n = 0;
    uint64_t p = p0;
    while (p < p1 && n < cap) {
        while (p < p1 && has_page(s, p))
            p++;
        if (p == p1)
            break;
        uint64_t q = p;
        while (q < p1 && !has_page(s, q))
            q++;
        runs[n].off = p;      /* in pages for now */
        runs[n].len = q - p;
        n++;
        p = q;
    }
    return n;
}

/*
 * Fetches the missing pages among the page ranges [want[i].off, +len)
 * (pages) into the image with one fetcher call. `required` bytes of them
 * are what was asked for (the rest is read-ahead) and count against the
 * budget. The lock is held.
 */
static ts_status fetch_pages(ts__source *s, ts__range *runs, size_t n, uint64_t required,
                             ts_error *err)
{
    if (n == 0)
        return TS_OK;
    if (s->budget && s->fetched + required > s->budget)
        return ts__error(err, TS_ERR_LIMIT,
                         "reading the headers would fetch more than %llu bytes of the file "
                         "(%llu fetched so far; %s raises the limit)",
                         (unsigned long long)s->budget, (unsigned long long)s->fetched,
                         s->budget_what ? s->budget_what : "a larger budget");
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t p0 = runs[i].off, p1 = p0 + runs[i].len;
        if (protect(s, p0, p1, PROT_READ | PROT_WRITE) != 0) {
            for (size_t j = 0; j < i; j++)
                protect(s, runs[j].off, runs[j].off + runs[j].len, PROT_NONE);
            return ts__error(err, TS_ERR_NOMEM, "cannot make room for fetched bytes: %s",
                             strerror(errno));
        }
        runs[i].buf = (unsigned char *)s->map + p0 * s->page;
        runs[i].off = p0 * s->page;
        uint64_t end = p1 * s->page < s->size ? p1 * s->page : s->size;
        runs[i].len = end - runs[i].off;
        total += runs[i].len;
    }
    unsigned requests = 0;
    ts_status st = s->fetcher.fetch(s->fetcher.impl, runs, n, &requests, err);
    s->stats.requests += requests;
    for (size_t i = 0; i < n; i++) {
        uint64_t p0 = runs[i].off / s->page;
        uint64_t p1 = (runs[i].off + runs[i].len + s->page - 1) / s->page;
        if (st) {
            madvise(runs[i].buf, (size_t)(p1 - p0) * s->page, MADV_DONTNEED);
            protect(s, p0, p1, PROT_NONE);
        } else {
            protect(s, p0, p1, PROT_READ);
            set_pages(s, p0, p1, 1);
        }
    }
    if (st)
        return st;
    s->stats.bytes += total;
    s->fetched += total;
    return TS_OK;
}

/* Runs per fetcher call when many ranges are asked for at once. */
#define MAX_RUNS 256

static ts_status sparse_need(ts__source *s, const ts__range *r, size_t n, ts_error *err)
{
    ts__range runs[MAX_RUNS];
    size_t nruns = 0;
    uint64_t required = 0;
    uint64_t pages = (s->size + s->page - 1) / s->page;
    ts_status st = TS_OK;
    for (size_t i = 0; i < n && !st; i++) {
        if (r[i].off >= s->size || r[i].len == 0)
            continue;
        uint64_t end = r[i].len > s->size - r[i].off ? s->size : r[i].off + r[i].len;
        uint64_t p0 = r[i].off / s->page, p1 = (end + s->page - 1) / s->page;
        if (s->partial_page != NO_PAGE && has_page(s, s->partial_page))
            s->partial_page = NO_PAGE;   /* fetched whole since */
        if (s->partial_page >= p0 && s->partial_page < p1) {
            if (end <= s->partial_end && s->partial_page == p1 - 1)
                p1--;                        /* the part asked for is there */
            else
                s->partial_page = NO_PAGE;   /* fetched whole below */
        }
        if (p1 <= p0 || missing_runs(s, p0, p1, runs + nruns, 1) == 0)
            continue;  /* all there */
        /* Read-ahead: a single range grows while reads go forward. */
        uint64_t ra = 0;
        if (n == 1 && !s->strict) {
            /* forward: from the last fetch's last page on, not far past it */
            int forward = r[i].off + s->page >= s->last_end &&
                          r[i].off < s->last_end + s->next_ra;
            ra = s->hint ? s->hint : forward ? s->next_ra : RA_JUMP;
            s->hint = 0;
            if (forward || !s->next_ra)
                s->next_ra = ra * RA_GROWTH < RA_MAX ? ra * RA_GROWTH : RA_MAX;
            if (s->next_ra < RA_SEQ)
                s->next_ra = RA_SEQ;
        }
        uint64_t ra_end = r[i].off + ra > end ? r[i].off + ra : end;
        uint64_t q1 = (ra_end + s->page - 1) / s->page;
        if (q1 > pages)
            q1 = pages;
        /* read-ahead never takes the fetches past the budget */
        if (s->budget && q1 > p1) {
            uint64_t left = s->budget > s->fetched ? s->budget - s->fetched : 0;
            uint64_t most = p0 + left / s->page;
            q1 = most < p1 ? p1 : most < q1 ? most : q1;
        }
        for (uint64_t p = p0; p < p1; p++)
            if (!has_page(s, p))
                required += s->page;
        /* Collect the missing runs of [p0, q1), flushing when full; a page
         * an earlier range of the batch collected is not collected again. */
        uint64_t p = nruns && runs[nruns - 1].off + runs[nruns - 1].len > p0
                         ? runs[nruns - 1].off + runs[nruns - 1].len : p0;
        while (p < q1) {
            size_t k = missing_runs(s, p, q1, runs + nruns, MAX_RUNS - nruns);
            if (k == 0)
                break;
            /* a run that starts where the batch's last one ends joins it */
            if (nruns && runs[nruns - 1].off + runs[nruns - 1].len == runs[nruns].off) {
                runs[nruns - 1].len += runs[nruns].len;
                memmove(runs + nruns, runs + nruns + 1, (k - 1) * sizeof *runs);
                k--;
            }
            nruns += k;
            p = runs[nruns - 1].off + runs[nruns - 1].len;
            if (nruns == MAX_RUNS) {
                st = fetch_pages(s, runs, nruns, required, err);
                nruns = 0;
                required = 0;
                if (st)
                    break;
            }
        }
        s->last_end = ra_end;
    }
    if (!st)
        st = fetch_pages(s, runs, nruns, required, err);
    return st;
}

static int cmp_range(const void *a, const void *b)
{
    const ts__range *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

ts_status ts__source_need_ranges(ts__source *s, const ts__range *r, size_t n, ts_error *err)
{
    if (s->kind != K_SPARSE || n == 0)
        return TS_OK;
    ts__range *sorted = malloc(n * sizeof *sorted);
    if (!sorted)
        return ts__error(err, TS_ERR_NOMEM, "out of memory for %zu ranges", n);
    memcpy(sorted, r, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, cmp_range);
    pthread_mutex_lock(&s->lock);
    ts_status st = sparse_need(s, sorted, n, err);
    pthread_mutex_unlock(&s->lock);
    free(sorted);
    return st;
}

ts_status ts__source_need(ts__source *s, uint64_t off, uint64_t len, ts_error *err)
{
    if (s->kind != K_SPARSE)
        return TS_OK;
    ts__range r = {off, len, NULL};
    pthread_mutex_lock(&s->lock);
    ts_status st = sparse_need(s, &r, 1, err);
    pthread_mutex_unlock(&s->lock);
    return st;
}

ts_status ts__source_read(ts__source *s, uint64_t off, void *buf, size_t len, ts_error *err)
{
    if (off > s->size || len > s->size - off)
        return ts__fail(err, TS_ERR_TRUNCATED, 0, (int64_t)off,
                        "bytes %llu..%llu are past the end of the %llu-byte file",
                        (unsigned long long)off, (unsigned long long)(off + len),
                        (unsigned long long)s->size);
    if (len == 0)
        return TS_OK;
    if (s->kind != K_SPARSE) {
        memcpy(buf, s->image + off, len);
        return TS_OK;
    }
    ts__range r = {off, len, buf};
    unsigned requests = 0;
    /* into the caller's buffer: a fetcher that allows it runs unlocked, so
     * threads reading values of one file copy in parallel */
    ts_status st = TS_OK;
    if (s->fetcher.concurrent)
        st = s->fetcher.fetch(s->fetcher.impl, &r, 1, &requests, err);
    pthread_mutex_lock(&s->lock);
    if (!s->fetcher.concurrent)
        st = s->fetcher.fetch(s->fetcher.impl, &r, 1, &requests, err);
    s->stats.requests += requests;
    if (!st)
        s->stats.bytes += len;
    pthread_mutex_unlock(&s->lock);
    return st;
}

const unsigned char *ts__source_view(ts__source *s, uint64_t off, size_t len,
                                     unsigned char *buf, ts_error *err)
{
    if (s->kind != K_SPARSE) {
        if (off > s->size || len > s->size - off) {
            ts__source_read(s, off, buf, len, err);
            return NULL;
        }
        return s->image + off;
    }
    return ts__source_read(s, off, buf, len, err) ? NULL : buf;
}

void ts__source_fill(ts__source *s, uint64_t off, const void *data, size_t len)
{
    if (s->kind != K_SPARSE || off >= s->size || len == 0)
        return;
    uint64_t end = len > s->size - off ? s->size : off + len;
    uint64_t p0 = (off + s->page - 1) / s->page;
    uint64_t p1 = end == s->size ? (end + s->page - 1) / s->page : end / s->page;
    if (p1 <= p0)
        return;
    pthread_mutex_lock(&s->lock);
    if (protect(s, p0, p1, PROT_READ | PROT_WRITE) == 0) {
        uint64_t from = p0 * s->page, to = p1 * s->page < s->size ? p1 * s->page : s->size;
        memcpy((char *)s->map + from, (const char *)data + (from - off), (size_t)(to - from));
        protect(s, p0, p1, PROT_READ);
        for (uint64_t p = p0; p < p1; p++)
            if (!has_page(s, p))
                s->fetched += s->page;
        set_pages(s, p0, p1, 1);
        /* a last page of which the request brought only a part */
        if (end < s->size && end % s->page && end / s->page >= p1 && !has_page(s, end / s->page)) {
            uint64_t pp = end / s->page;
            if (protect(s, pp, pp + 1, PROT_READ | PROT_WRITE) == 0) {
                memcpy((char *)s->map + pp * s->page, (const char *)data + (pp * s->page - off),
                       (size_t)(end - pp * s->page));
                protect(s, pp, pp + 1, PROT_READ);
                s->partial_page = pp;
                s->partial_end = end;
            }
        }
        /* as if fetched: a reader going on from here reads ahead more */
        s->last_end = end;
        s->next_ra = (end - off) * RA_GROWTH < RA_MAX ? (end - off) * RA_GROWTH : RA_MAX;
    }
    pthread_mutex_unlock(&s->lock);
}

/* Sets the request and byte counters (a fetcher that read before the
 * source existed). */
void ts__source_count(ts__source *s, uint64_t requests, uint64_t bytes)
{
    s->stats.requests += requests;
    s->stats.bytes += bytes;
}

void ts__source_forget(ts__source *s, uint64_t off, uint64_t len)
{
    if (s->kind != K_SPARSE || off >= s->size || len == 0)
        return;
    uint64_t end = len > s->size - off ? s->size : off + len;
    uint64_t p0 = (off + s->page - 1) / s->page;
    /* the last page counts as whole when the range ends at the file's end */
    uint64_t p1 = end == s->size ? (end + s->page - 1) / s->page : end / s->page;
    if (p1 <= p0)
        return;
    pthread_mutex_lock(&s->lock);
    if (s->partial_page >= p0 && s->partial_page < p1)
        s->partial_page = NO_PAGE;
    madvise((char *)s->map + p0 * s->page, (size_t)(p1 - p0) * s->page, MADV_DONTNEED);
    protect(s, p0, p1, PROT_NONE);
    set_pages(s, p0, p1, 0);
    pthread_mutex_unlock(&s->lock);
}

void ts__source_strict(ts__source *s)
{
    if (s->kind != K_SPARSE)
        return;
    pthread_mutex_lock(&s->lock);
    s->strict = 1;
    if (s->partial_page != 0)
        s->partial_page = NO_PAGE;
    /* The first page stays: every reader may read it without asking. */
    uint64_t pages = s->map_len / s->page;
    if (pages > 1) {
        madvise((char *)s->map + s->page, s->map_len - s->page, MADV_DONTNEED);
        protect(s, 1, pages, PROT_NONE);
        set_pages(s, 1, pages, 0);
    }
    pthread_mutex_unlock(&s->lock);
}

void ts__source_set_budget(ts__source *s, uint64_t bytes, const char *what)
{
    s->budget = bytes;
    s->budget_what = what;
}

void ts__source_hint(ts__source *s, uint64_t bytes)
{
    if (s->kind == K_SPARSE) {
        pthread_mutex_lock(&s->lock);
        s->hint = bytes;
        pthread_mutex_unlock(&s->lock);
    }
}

int ts__probe_need(ts__source *src, uint64_t off, uint64_t len)
{
    if (!src || src->kind != K_SPARSE)
        return 1;
    if (off > src->size || len > src->size - off)
        return 0;
    ts_error e;
    if (ts__source_need(src, off, len, &e) != TS_OK) {
        if (src->probe_code == TS_OK) {
            src->probe_err = malloc(sizeof *src->probe_err);
            if (src->probe_err)
                *src->probe_err = e;
            src->probe_code = src->probe_err ? e.code : TS_ERR_NOMEM;
        }
        return 0;
    }
    return 1;
}

int ts__source_has(const ts__source *src, uint64_t off, uint64_t len)
{
    if (!src || src->kind != K_SPARSE)
        return 1;
    if (off > src->size || len > src->size - off)
        return 0;
    for (uint64_t p = off / src->page; p * src->page < off + len; p++)
        if (!has_page(src, p))
            return 0;
    return 1;
}

ts_status ts__source_error(const ts__source *s, ts_error *err)
{
    if (s->probe_code != TS_OK && err) {
        if (s->probe_err)
            *err = *s->probe_err;
        else
            ts__error(err, s->probe_code, "out of memory");
    }
    return s->probe_code;
}

ts__source_stats ts__source_get_stats(const ts__source *s)
{
    return s->stats;
}

/* Bytes a read fault may map on either side of the range asked for: the
 * kernel's fault-around (64 KiB unless set otherwise), or the rest of a
 * large folio of the page cache, mapped whole (up to 2 MiB, a PMD). */
#define MAP_MARGIN ((uint64_t)2 << 20)

/* The whole pages of a map that hold [off, off + len), widened by margin
 * bytes on each side and cut to the map: 1 and [*lo, *hi) when there are
 * any, 0 for an empty span or a source that is no map. */
static int map_span(const ts__source *s, uint64_t off, uint64_t len, uint64_t margin,
                    uint64_t *lo, uint64_t *hi)
{
    if (s->kind != K_MAP || off >= s->map_len)
        return 0;
    if (len > s->map_len - off)
        len = s->map_len - off;
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    uint64_t a = off / page * page, b = (off + len + page - 1) / page * page;
    *lo = a > margin ? a - margin : 0;
    *hi = b + margin < s->map_len ? b + margin : s->map_len;
    return *hi > *lo;
}

void ts__source_release(ts__source *s, uint64_t off, uint64_t len)
{
    if (s->kind == K_SPARSE) {
        ts__source_forget(s, off, len);
        return;
    }
    /* The pages around the range too: reading the range maps neighbours
     * (MAP_MARGIN), which a release of only the range's own pages would
     * leave behind, chunk after chunk (a 256 MiB array compared in 1 MiB
     * chunks kept 130 MiB). The map is read-only, so a page another thread
     * still reads is only faulted in again. */
    uint64_t lo, hi;
    if (map_span(s, off, len, MAP_MARGIN, &lo, &hi))
        madvise((char *)s->map + lo, (size_t)(hi - lo), MADV_DONTNEED);
}

void ts__source_populate(ts__source *s, uint64_t off, uint64_t len)
{
#ifdef MADV_POPULATE_READ
    uint64_t lo, hi;
    if (map_span(s, off, len, 0, &lo, &hi))
        madvise((char *)s->map + lo, (size_t)(hi - lo), MADV_POPULATE_READ);
#else
    (void)s, (void)off, (void)len;
#endif
}

void ts__source_sparse_range(const ts__source *s, const void **lo, const void **hi)
{
    if (s->kind == K_SPARSE) {
        *lo = s->map;
        *hi = (const char *)s->map + s->map_len;
    } else {
        *lo = *hi = NULL;
    }
}
