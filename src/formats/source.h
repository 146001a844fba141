/*
 * source.h - byte sources: where a file's bytes come from.
 *
 * A reader parses an image of the whole file: `image` (size bytes) stays at
 * one address until the source is closed, so the pointers a reader keeps
 * into it (names, lazily rendered metadata) stay valid. But only the bytes
 * asked for with ts__source_need are guaranteed to be there, so readers ask
 * before they look, as libarchive's format readers ask
 * __archive_read_ahead for what they parse:
 *
 *   - a file in memory (ts_file_open_memory) or read whole (small files)
 *     holds every byte: need only checks;
 *   - a mapped local file (TS_IO_MAP) holds every byte too;
 *   - a sparse source (a remote file; a local one of more than 64 KiB, read
 *     with pread) reserves the image's address range without memory and
 *     fills it page by page through a fetcher: the bytes asked for, rounded
 *     out to whole pages, plus read-ahead that grows while reads go
 *     forward, so a header costs its own size on a cold disk or a network
 *     file system, not the kernel's read-ahead around each fault. A byte
 *     that was never asked for is not readable at all: touching it faults,
 *     and the guard (mapguard.c) turns that into an error naming the
 *     reader's mistake, so a reader that forgets to ask fails every test
 *     that reads through a sparse source.
 *
 * Values (src/values) do not go through the image: they read runs of
 * bytes with ts__source_read or ts__source_view into their own buffers, so
 * reading a 10 GB array does not keep 10 GB of it.
 *
 * Counters of requests and bytes are kept here, for every kind, so
 * --verbose, budgets and tests read the same numbers.
 */
#ifndef TSHAPE_SOURCE_H
#define TSHAPE_SOURCE_H

#include "../core/internal.h"

typedef struct ts__source ts__source;

/* Readers and probes may read the first TS__HEAD_MIN bytes of a file (its
 * magic, a small header) without asking: file.c has asked for them to
 * detect the format. */
#define TS__HEAD_MIN 4096

/* A range of the file; buf is where a fetcher writes it. */
typedef struct ts__range {
    uint64_t off, len;
    unsigned char *buf;
} ts__range;

/*
 * How a sparse source gets bytes: fetch fills r[i].buf with exactly the
 * r[i].len bytes at r[i].off for every i < n (the ranges are sorted,
 * disjoint and inside the file). It may make one request per range, one
 * request for all of them, or run them in parallel; it is never called by
 * two threads at once for one source unless `concurrent` says it may be
 * (pread on a file descriptor: threads reading values into buffers of
 * their own then copy in parallel). On failure it sets err and nothing it
 * wrote is used. close frees impl (called once, by ts__source_close).
 * `requests` receives the number of requests made, for the counters.
 */
typedef struct ts__fetcher {
    ts_status (*fetch)(void *impl, ts__range *r, size_t n, unsigned *requests,
                       ts_error *err);
    void (*close)(void *impl);
    void *impl;
    int concurrent;         /* 1: fetch may run on several threads at once */
} ts__fetcher;

/* I/O counters of one source (ts_file_io_stats is their public face). */
typedef struct ts__source_stats {
    uint64_t requests;        /* reads or range requests made */
    uint64_t bytes;           /* bytes they returned */
} ts__source_stats;

/* How a local file is opened (ts__source_open_path). */
typedef enum ts__local_mode {
    TS__LOCAL_AUTO = 0,       /* read whole up to 64 KiB, else sparse */
    TS__LOCAL_MAP = 1,        /* always map (empty files excepted) */
    TS__LOCAL_SPARSE = 2,     /* a sparse source over pread */
    TS__LOCAL_NOFOLLOW = 16,  /* or'ed in: a symbolic link is refused (ELOOP) */
    TS__LOCAL_LISTED = 32     /* or'ed in with AUTO: a folder's listing found a regular
                                 file there; a first read of up to 64 KiB + 1 bytes
                                 that ends short is the whole file (no fstat) */
} ts__local_mode;

/*
 * Opens a local regular file. Directories, FIFOs and devices are refused
 * (TS_ERR_IO, without waiting for a FIFO's writer). Errors: TS_ERR_IO
 * (strerror text), TS_ERR_NOMEM.
 */
ts_status ts__source_open_path(const char *path, ts__local_mode mode, ts__source **out,
                               ts_error *err);

/* The same, path relative to the open folder dir (openat; AT_FDCWD: the
 * working directory): a folder's members opened from its descriptor need
 * no walk of the folder's path each. */
ts_status ts__source_open_at(int dir, const char *path, ts__local_mode mode, ts__source **out,
                             ts_error *err);

/*
 * The folder of the paths opened one after another (a folder's members):
 * ts__dir_at opens a path's folder once and gives its descriptor
 * and the path's last component, for ts__source_open_at; AT_FDCWD and the
 * whole path when the path names no folder or the folder cannot be opened
 * (one that may be searched but not read: the open of the path then says
 * what it meets). Start with TS__DIR_FD_INIT; end
 * with ts__dir_fd_close. One per thread.
 */
typedef struct ts__dir_fd {
    int fd;
    size_t len;                  /* bytes of the folder's path */
    char *path;                  /* malloc'd */
} ts__dir_fd;
#define TS__DIR_FD_INIT {-1, 0, NULL}
int ts__dir_at(ts__dir_fd *d, const char *path, const char **name);
void ts__dir_fd_close(ts__dir_fd *d);

/* Files up to this many bytes are read whole instead of mapped
 * (TS__LOCAL_AUTO). */
#define TS__READ_MAX ((size_t)64 * 1024)

/* A source over a copy of the n bytes of a small file read whole (as
 * TS__LOCAL_AUTO reads one; ts__batch_read). Errors: TS_ERR_NOMEM. */
ts_status ts__source_of_read(const void *data, size_t n, ts__source **out, ts_error *err);

/*
 * The small files of a folder read a batch at a time (source_batch.c):
 * open, read and close of up to TS__BATCH_MAX files in one io_uring
 * submission instead of three system calls each. ts__batch_new returns
 * NULL when it cannot be had (liburing missing, the kernel refusing
 * io_uring or its direct descriptors, out of memory): then read them one
 * by one. One per thread (the ring has one submitter).
 */
#define TS__BATCH_MAX 8
/* Folders of fewer files are read file by file: the batch reader's
 * set-up (loading liburing, then a ring for each thread: 0.17 and 0.07 ms
 * here) costs about what it saves below that (about 1 us of CPU a file).
 * Paired rounds at idle, batches against file by file: `info` of 128 small
 * files 1.14x the time, 300 1.05x, 600 1.01x, 1,000 0.93x (10% less CPU);
 * `scan` of 64 pickles 1.16x, 128 1.12x, 300 1.06x, 600 1.02x, 1,000
 * 0.98x. */
#define TS__BATCH_FILES 512
typedef struct ts__batch ts__batch;
ts__batch *ts__batch_new(void);
void ts__batch_free(ts__batch *b);

/*
 * Reads paths[0..n) (n <= TS__BATCH_MAX; regular files a listing found)
 * whole: data[i] and len[i] their bytes, or len[i] = -1 for a file it did
 * not read whole (not in the folder of paths[0], longer than TS__READ_MAX,
 * an open or read that failed: ts__source_open_at then reads it and says
 * why). dir is the thread's ts__dir_fd (ts__dir_at for paths[0]). The
 * bytes are b's until its next call.
 */
void ts__batch_read(ts__batch *b, ts__dir_fd *dir, char *const *paths, size_t n,
                    const unsigned char **data, long *len);

/* A source over len borrowed bytes (never copied; they must outlive it). */
ts_status ts__source_open_memory(const void *data, size_t len, ts__source **out,
                                 ts_error *err);

/*
 * A sparse source of `size` bytes filled by `fetcher`, which it owns from
 * now on (closed on failure too). Errors: TS_ERR_NOMEM, TS_ERR_LIMIT (the
 * size does not fit this process's address space).
 */
ts_status ts__source_open_fetcher(uint64_t size, ts__fetcher fetcher, ts__source **out,
                                  ts_error *err);

/* Tests and fuzzing: a sparse source over len borrowed bytes (a fetcher
 * that copies), strict (ts__source_strict) from the start but for its first
 * page. Errors as ts__source_open_fetcher. */
ts_status ts__source_open_memory_sparse(const void *data, size_t len, ts__source **out,
                                        ts_error *err);

/* Closes the source (NULL accepted); the image goes with it. */
void ts__source_close(ts__source *s);

/* Puts bytes [off, off + len) of the file, which the caller has read some
 * other way (the first request of a remote file), into a sparse image: the
 * whole pages among them (and the last partial page of the file) become
 * readable. Nothing for other kinds. */
void ts__source_fill(ts__source *s, uint64_t off, const void *data, size_t len);

/* Adds to the counters what was read before the source existed. */
void ts__source_count(ts__source *s, uint64_t requests, uint64_t bytes);

/* The image (see above) and its size. */
const unsigned char *ts__source_image(const ts__source *s, uint64_t *size);

/* The descriptor of a local file read with pread (TS__LOCAL_SPARSE, or a
 * large file opened TS__LOCAL_AUTO), owned by the source; -1 for every
 * other source. For copy_file_range (write.c): read only, never closed. */
int ts__source_fd(const ts__source *s);

/* Reads exactly len bytes of descriptor fd at off with pread (in steps of
 * at most 1 GiB, EINTR retried): TS_ERR_IO naming the byte, also when the
 * file ends first (it shrank). */
ts_status ts__source_read_fd(int fd, uint64_t off, void *buf, size_t len, ts_error *err);

/* 1 when the whole image is readable without asking (memory, read, map). */
int ts__source_is_whole(const ts__source *s);
/* 1 when the image is the library's own read-only map of a file, whose
 * pages may be dropped after use. */
int ts__source_is_mapped(const ts__source *s);

/*
 * Makes bytes [off, off + len) of the image readable, clamped to the size
 * (asking past the end is not an error here: the reader's own bounds check
 * reports the truncation with its own words). Thread-safe. Errors from the
 * fetcher (TS_ERR_IO naming the request), TS_ERR_LIMIT (the budget set by
 * ts__source_set_budget would be exceeded), TS_ERR_NOMEM.
 */
ts_status ts__source_need(ts__source *s, uint64_t off, uint64_t len, ts_error *err);

/*
 * The same for n ranges at once (their buf is ignored): what is missing is
 * fetched in one call of the fetcher, so a remote source can ask for all
 * of them in one request (the local headers of a zip's members).
 */
ts_status ts__source_need_ranges(ts__source *s, const ts__range *r, size_t n, ts_error *err);

/*
 * Copies bytes [off, off + len) into buf: from the image where they are
 * there, else read (pread, or a request that bypasses the block cache).
 * For values. Thread-safe. Errors: TS_ERR_TRUNCATED (past the end: the file
 * shrank), TS_ERR_IO, TS_ERR_NOMEM.
 */
ts_status ts__source_read(ts__source *s, uint64_t off, void *buf, size_t len, ts_error *err);

/*
 * A pointer to bytes [off, off + len): into the image when the source holds
 * them all (no copy), else read into buf (len bytes) and buf returned.
 * NULL on error (err set, as ts__source_read).
 */
const unsigned char *ts__source_view(ts__source *s, uint64_t off, size_t len,
                                     unsigned char *buf, ts_error *err);

/* The largest number of bytes ts__source_need may fetch from now on; 0:
 * no limit. `what` names the option that raises it, for the message. */
void ts__source_set_budget(ts__source *s, uint64_t bytes, const char *what);

/* A hint: the reader will parse about `bytes` bytes forward from where it
 * asks next (a format's first read: a GGUF's metadata, a safetensors
 * header). Sparse sources fetch at least this much on their next miss. */
void ts__source_hint(ts__source *s, uint64_t bytes);

/*
 * For probes, which cannot fail: 1 when bytes [off, off + len) are readable
 * (always for src NULL, an image in memory), else 0, and a fetch error is
 * kept for ts__source_error.
 */
int ts__probe_need(ts__source *src, uint64_t off, uint64_t len);
/* 1 when bytes [off, off + len) are readable now, without fetching (src
 * NULL: an image in memory, always). */
int ts__source_has(const ts__source *src, uint64_t off, uint64_t len);

/* The error a probe's fetch met, into err; TS_OK when none. */
ts_status ts__source_error(const ts__source *s, ts_error *err);

/*
 * Tests only: from now on the sparse source reads no byte more than asked
 * for (rounded to pages: no read-ahead, hints ignored), and what it has
 * fetched so far is dropped but for its first TS__HEAD_MIN bytes, so a
 * reader that reads a byte it did not ask for faults even when an earlier
 * read (format detection) had fetched it. Nothing for other kinds.
 */
void ts__source_strict(ts__source *s);

/* The counters so far. */
ts__source_stats ts__source_get_stats(const ts__source *s);

/* Drops the whole pages inside [off, off + len) of a sparse image (values
 * read once): they leave memory and must be asked for again. Thread-safe;
 * nothing for other kinds. */
void ts__source_forget(ts__source *s, uint64_t off, uint64_t len);

/* The bytes [off, off + len) are not needed for now: the pages of a map
 * that hold them, and those a read fault may have mapped around them,
 * leave the resident set (MADV_DONTNEED: the page cache keeps them; a
 * page still read elsewhere is faulted in again), those of a sparse image
 * are dropped (ts__source_forget, whole pages only). Nothing for other
 * kinds. */
void ts__source_release(ts__source *s, uint64_t off, uint64_t len);

/* The bytes [off, off + len) of a map are about to be read: their page
 * table entries made at once (MADV_POPULATE_READ), not one fault at a
 * time. Nothing for other kinds, or where the kernel does not know it. */
void ts__source_populate(ts__source *s, uint64_t off, uint64_t len);

/*
 * The [lo, hi) address range of a sparse image, for the fault guard: a
 * fault there is a read of bytes nobody asked for. lo == hi == NULL for
 * the other kinds.
 */
void ts__source_sparse_range(const ts__source *s, const void **lo, const void **hi);

#endif /* TSHAPE_SOURCE_H */
