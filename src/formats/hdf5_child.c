/*
 * hdf5_child.c - libhdf5 runs in a child process, never in the caller's.
 *
 * libhdf5 is not hardened against corrupted files (man page, BUGS): a
 * hostile .h5 can crash it, hang it or make it allocate without bound. So
 * every libhdf5 call on a file is made in a child forked for the job
 * (sandbox.h: seccomp filter, limits, one socket to the parent), and the
 * caller gets the job's result as messages, or one error when the child
 * dies, hangs or talks nonsense: that file fails, the run goes on.
 *
 * Two jobs. The listing (ts__hdf5_isolated_list, the reader's work): the
 * child opens the image as an HDF5 file (ts_file_open_memory, whose HDF5
 * reader then lists in place) and sends each array as it is found (so a
 * file of many datasets keeps the child talking), then the metadata, then
 * DONE. The values of one dataset (ts__hdf5_begin/read/end, reader.h): the
 * child opens the dataset and answers OPENED, then each READ {first, n}
 * with DATA, n elements in the file's own bytes, until END.
 *
 * Who runs a job: files of up to WORKER_IMAGE_MAX bytes go to a worker
 * reused across the files of a run (sandbox.h's pool), which gets the job
 * and the file's bytes in one JOB message: a run over a thousand small
 * Keras files forks once, not a thousand times. A worker whose job failed
 * is not reused. A larger file gets a child forked for the job, which reads
 * the file from the parent's map, inherited across fork (nothing is
 * copied). Either way the child opens no file (hdf5.c, open_image).
 *
 * Records (native byte order; a string is uint32 length and bytes, length
 * 0xffffffff for NULL):
 *   ARRAY  name, int32 dtype, dtype_name, format_dtype, uint8 byteorder,
 *          int64 itemsize, int32 bits, int64 block_size, int64 block_bytes,
 *          int32 ndim, int64 dims[ndim], int64 nbytes, int64 data_offset,
 *          note, uint8 read through libhdf5 (TS__SRC_HDF5), uint8 null_shape
 *   META   key, JSON text
 * The parent rebuilds each array from its dtype and dims (sizes computed
 * here, not taken), and refuses a record whose fields disagree, a data
 * offset outside the file, or metadata that is not JSON.
 */
#include "hdf5_child.h"
#include "sandbox.h"

#include <jansson.h>
#include <stdlib.h>

enum {
    MSG_ARRAY = TS__MSG_JOB,
    MSG_META,
    MSG_DONE,
    MSG_OPENED,
    MSG_READ,
    MSG_DATA,
    MSG_JOB,   /* to a worker: u32 kind, u32 want_metadata, u64 itemsize,
                  i64 count, dataset (string), then the image */
    MSG_END    /* to a worker: the values job is over */
};

/* The longest silence of a child listing a file, in ms: every step of a
 * listing (a dataset's type and layout, an attribute) takes milliseconds,
 * so libhdf5 looping on a corrupted file is stopped after this. Reading
 * values keeps the sandbox's default (60 s: a chunk of a large compressed
 * dataset may take seconds to inflate). */
#define LIST_SILENCE_MS 10000

/* Files up to this size are sent to a reused worker; larger ones get a
 * child of their own that inherits the parent's map. A variable: tests
 * set it to 0 to take the second path with small files. */
size_t ts__hdf5_worker_max = (size_t)1 << 20;
#define WORKER_IMAGE_MAX ts__hdf5_worker_max

enum { JOB_LIST = 1, JOB_VALUES = 2 };

/* A job, as the child runs it. */
typedef struct h5_job {
    int kind;
    int want_metadata;
    const unsigned char *image;
    size_t len;
    const char *dataset;       /* JOB_VALUES */
    size_t itemsize;
    int64_t count;
} h5_job;

#define NO_STRING 0xffffffffu

/* ---- records ------------------------------------------------------------------ */

typedef struct wbuf {
    unsigned char *p;
    size_t n, cap;
    int failed;
} wbuf;

static void put(wbuf *w, const void *v, size_t n)
{
    if (w->failed)
        return;
    if (w->cap - w->n < n) {
        size_t cap = w->cap ? w->cap : 256;
        while (cap - w->n < n && cap < TS__CHILD_MSG_MAX)
            cap *= 2;
        unsigned char *p = cap - w->n >= n ? realloc(w->p, cap) : NULL;
        if (!p) {
            w->failed = 1;
            return;
        }
        w->p = p;
        w->cap = cap;
    }
    memcpy(w->p + w->n, v, n);
    w->n += n;
}

static void put_i64(wbuf *w, int64_t v) { put(w, &v, sizeof v); }
static void put_i32(wbuf *w, int32_t v) { put(w, &v, sizeof v); }
static void put_u8(wbuf *w, unsigned char v) { put(w, &v, 1); }

static void put_str(wbuf *w, const char *s)
{
    uint32_t n = s ? (uint32_t)strnlen(s, TS__CHILD_MSG_MAX / 2) : NO_STRING;
    put(w, &n, sizeof n);
    if (s)
        put(w, s, n);
}

typedef struct rbuf {
    const unsigned char *p;
    size_t n, pos;
    int bad;
} rbuf;

static void get(rbuf *r, void *v, size_t n)
{
    if (r->bad || r->n - r->pos < n) {
        r->bad = 1;
        memset(v, 0, n);
        return;
    }
    memcpy(v, r->p + r->pos, n);
    r->pos += n;
}

static int64_t get_i64(rbuf *r) { int64_t v; get(r, &v, sizeof v); return v; }
static int32_t get_i32(rbuf *r) { int32_t v; get(r, &v, sizeof v); return v; }
static unsigned char get_u8(rbuf *r) { unsigned char v; get(r, &v, 1); return v; }

/* A string of the record, copied into f's storage (NULL for an absent
 * one); *ok cleared when the record is malformed or storage fails. */
static const char *get_str(rbuf *r, ts_file *f, int *ok, ts_error *err)
{
    uint32_t n;
    get(r, &n, sizeof n);
    if (r->bad || n == NO_STRING)
        return NULL;
    if (r->n - r->pos < n) {
        r->bad = 1;
        return NULL;
    }
    const char *s = ts__file_strndup(f, (const char *)r->p + r->pos, n, err);
    if (!s)
        *ok = 0;
    r->pos += n;
    return s;
}

/* ---- the child's side ------------------------------------------------------------- */

typedef struct list_job {
    int fd;
    size_t sent;       /* arrays of the file already sent */
} list_job;

/* In the child, during a listing: ts__hdf5_isolated_list lists in place
 * and streams to it. */
static list_job *child_list;

/* The arrays added since the last call, one record each. */
static ts_status send_arrays(ts_file *f, void *arg, ts_error *err)
{
    list_job *j = arg;
    for (; j->sent < ts_file_count(f); j->sent++) {
        const ts_array *a = ts_file_array(f, j->sent);
        const ts__data_src *src = ts__file_data_src(f, a);
        wbuf w = {NULL, 0, 0, 0};
        put_str(&w, a->name);
        put_i32(&w, (int32_t)a->dtype);
        put_str(&w, a->dtype_name);
        put_str(&w, a->format_dtype);
        put_u8(&w, (unsigned char)a->byteorder);
        put_i64(&w, a->itemsize);
        put_i32(&w, a->bits);
        put_i64(&w, a->block_size);
        put_i64(&w, a->block_bytes);
        int nd = ts_shape_ndim(&a->shape);
        put_i32(&w, nd);
        for (int k = 0; k < nd; k++)
            put_i64(&w, ts_shape_dims(&a->shape)[k]);
        put_i64(&w, a->nbytes);
        put_i64(&w, a->data_offset);
        put_str(&w, a->note);
        put_u8(&w, src && src->kind == TS__SRC_HDF5);
        put_u8(&w, a->null_shape != 0);
        int bad = w.failed || ts__chan_send(j->fd, MSG_ARRAY, w.p, w.n) != 0;
        free(w.p);
        if (bad)
            return ts__error(err, w.failed ? TS_ERR_NOMEM : TS_ERR_IO,
                             "cannot send an array record");
    }
    return TS_OK;
}

/* The listing: 0 when the child may take another job, 1 when it must end
 * (the parent is gone). */
static int list_job_run(int fd, const h5_job *job)
{
    list_job j = {fd, 0};
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.format = TS_FORMAT_HDF5;
    o.want_metadata = job->want_metadata;
    ts_file *f = NULL;
    ts_error err;
    child_list = &j;
    ts_status st = ts_file_open_memory(job->image, job->len, &o, &f, &err);
    child_list = NULL;
    if (st)
        return ts__chan_error(fd, st, &err) != 0;
    int gone = 0;
    for (size_t i = 0; i < ts_file_metadata_count(f) && !gone; i++) {
        const char *key, *value;
        if (!ts_file_metadata(f, i, &key, &value) || !value)
            continue;
        wbuf w = {NULL, 0, 0, 0};
        put_str(&w, key);
        put_str(&w, value);
        gone = w.failed || ts__chan_send(fd, MSG_META, w.p, w.n) != 0;
        free(w.p);
    }
    ts_file_close(f);
    return gone || ts__chan_send(fd, MSG_DONE, NULL, 0) != 0;
}

/* The values of one dataset, until END (0) or the parent is gone (1). */
static int values_job_run(int fd, const h5_job *j)
{
    void *state = NULL;
    ts_error err;
    ts__ok(&err);
    ts_status st = ts__hdf5_local_begin(j->dataset, j->image, j->len, j->itemsize, j->count,
                                        &state, &err);
    if (st)
        return ts__chan_error(fd, st, &err) != 0;
    if (ts__chan_send(fd, MSG_OPENED, NULL, 0) != 0) {
        ts__hdf5_local_end(state);
        return 1;
    }
    unsigned char *buf = NULL;
    size_t cap = 0;
    int rc = 1;
    for (;;) {
        uint32_t type;
        int64_t req[2];
        size_t n;
        if (ts__chan_recv(fd, &type, req, sizeof req, &n))
            break;
        if (type == MSG_END && n == 0) {
            rc = 0;
            break;
        }
        if (type != MSG_READ || n != sizeof req)
            break; /* the parent is confused: end */
        uint64_t bytes = (uint64_t)req[1] * j->itemsize;
        if (req[1] < 0 || bytes > TS__CHILD_MSG_MAX) {
            ts__chan_error(fd, ts__error(&err, TS_ERR_INVALID_ARG, "a read of %lld elements "
                                         "is too large", (long long)req[1]), &err);
            break;
        }
        if (bytes > cap) {
            unsigned char *b = realloc(buf, (size_t)bytes);
            if (!b) {
                ts__chan_error(fd, ts__error(&err, TS_ERR_NOMEM, "out of memory"), &err);
                break;
            }
            buf = b;
            cap = (size_t)bytes;
        }
        if ((st = ts__hdf5_local_read(state, req[0], req[1], buf, &err))) {
            ts__chan_error(fd, st, &err);
            break;
        }
        if (ts__chan_send(fd, MSG_DATA, buf, (size_t)bytes) != 0)
            break;
    }
    free(buf);
    ts__hdf5_local_end(state);
    return rc;
}

static int job_run(int fd, const h5_job *j)
{
    return j->kind == JOB_LIST ? list_job_run(fd, j) : values_job_run(fd, j);
}

/* A child forked for one job (a large file, read from the inherited map). */
static int one_job(int fd, void *arg)
{
    job_run(fd, arg);
    return 0;
}

/* A worker: JOB messages (the image inside), one after the other. */
static int worker(int fd, void *arg)
{
    (void)arg;
    unsigned char *buf = NULL;
    size_t cap = 0, n;
    uint32_t type;
    while (ts__chan_recv_alloc(fd, &type, &buf, &cap, &n) == 0 && type == MSG_JOB) {
        rbuf r = {buf, n, 0, 0};
        h5_job j;
        memset(&j, 0, sizeof j);
        j.kind = (int)get_i32(&r);
        j.want_metadata = get_i32(&r) != 0;
        j.itemsize = (size_t)get_i64(&r);
        j.count = get_i64(&r);
        uint32_t dlen;
        get(&r, &dlen, sizeof dlen);
        if (r.bad || (dlen != NO_STRING && dlen > n - r.pos))
            break;
        if (dlen != NO_STRING) {
            /* copied: a NUL-terminated name */
            char *name = malloc((size_t)dlen + 1);
            if (!name)
                break;
            memcpy(name, buf + r.pos, dlen);
            name[dlen] = '\0';
            j.dataset = name;
            r.pos += dlen;
        }
        j.image = buf + r.pos;
        j.len = n - r.pos;
        int end = job_run(fd, &j);
        free((char *)(uintptr_t)j.dataset);
        if (end)
            break;
    }
    free(buf);
    return 0;
}

/* ---- the parent's side ------------------------------------------------------------ */

static ts_status garbled(ts_error *err, const char *what)
{
    return ts__error(err, TS_ERR_FORMAT, "libhdf5's isolated process sent a malformed %s "
                                         "(its answers are not trusted)", what);
}

/* One array record into f. */
static ts_status add_array(ts_file *f, size_t len, const char *path, const unsigned char *p,
                           size_t n, ts_error *err)
{
    rbuf r = {p, n, 0, 0};
    int ok = 1;
    ts_array *a = ts__file_add_array(f, err);
    if (!a)
        return ts__file_add_failure(f);
    const char *name = get_str(&r, f, &ok, err);
    int32_t dtype = get_i32(&r);
    const char *dtype_name = get_str(&r, f, &ok, err);
    const char *format_dtype = get_str(&r, f, &ok, err);
    char bo = (char)get_u8(&r);
    int64_t itemsize = get_i64(&r);
    int32_t bits = get_i32(&r);
    int64_t block_size = get_i64(&r), block_bytes = get_i64(&r);
    int32_t nd = get_i32(&r);
    int64_t dims[TS_MAX_NDIM];
    for (int32_t k = 0; k < nd && k < TS_MAX_NDIM && !r.bad; k++)
        dims[k] = get_i64(&r);
    int64_t nbytes = get_i64(&r), data_offset = get_i64(&r);
    const char *note = get_str(&r, f, &ok, err);
    unsigned char via_lib = get_u8(&r);
    unsigned char null_shape = get_u8(&r);
    if (!ok)
        return TS_ERR_NOMEM;
    if (r.bad || r.pos != n || !name || !dtype_name || !format_dtype ||
        !ts__dtype_in_range((ts_dtype)dtype) || bo == '\0' || !strchr("<>|=", bo) ||
        itemsize < 0 || itemsize > (1 << 28) || bits < 0 || block_size != 1 ||
        block_bytes != itemsize || nd < 0 || nd > TS_MAX_NDIM || null_shape > 1)
        return garbled(err, "array record");
    for (int32_t k = 0; k < nd; k++)
        if (dims[k] < 0)
            return garbled(err, "array record");
    a->name = name;
    a->dtype = (ts_dtype)dtype;
    a->dtype_name = dtype_name;
    a->format_dtype = format_dtype;
    a->byteorder = bo;
    a->itemsize = itemsize;
    a->bits = bits;
    a->block_size = 1;
    a->block_bytes = block_bytes;
    a->note = note;
    a->null_shape = null_shape;
    ts_status st = ts_shape_assign(&a->shape, dims, nd, err);
    if (!st && (st = ts__array_compute_sizes(a, err)))
        ts__error_prefix(err, "dataset '%s'", name);
    if (st)
        return st;
    if (nbytes == -1)
        a->nbytes = -1; /* variable-length: no byte size */
    else if (nbytes != a->nbytes)
        return garbled(err, "array record");
    if (data_offset >= 0 && (a->nbytes < 0 || (uint64_t)data_offset > len ||
                             (uint64_t)a->nbytes > len - (uint64_t)data_offset))
        return garbled(err, "array record");
    a->data_offset = data_offset < 0 ? -1 : data_offset;
    if (via_lib) {
        if (a->data_offset >= 0 || a->nbytes <= 0)
            return garbled(err, "array record");
        ts__data_src ds;
        memset(&ds, 0, sizeof ds);
        ds.kind = TS__SRC_HDF5;
        ds.size = a->nbytes;
        ds.h5_dataset = a->name;
        ds.h5_path = path;
        return ts__file_set_data_src(f, a, &ds, err);
    }
    return TS_OK;
}

/* One metadata entry, whose value must be JSON. */
static ts_status add_meta(ts_file *f, const unsigned char *p, size_t n, ts_error *err)
{
    rbuf r = {p, n, 0, 0};
    uint32_t klen, vlen;
    get(&r, &klen, sizeof klen);
    if (r.bad || klen == NO_STRING || klen > n - r.pos)
        return garbled(err, "metadata record");
    const char *key = (const char *)p + r.pos;
    r.pos += klen;
    get(&r, &vlen, sizeof vlen);
    if (r.bad || vlen == NO_STRING || vlen != n - r.pos)
        return garbled(err, "metadata record");
    const char *value = (const char *)p + r.pos;
    json_t *j = json_loadb(value, vlen, JSON_DECODE_ANY, NULL);
    if (!j)
        return garbled(err, "metadata record");
    json_decref(j);
    return ts__file_add_metadata(f, key, klen, value, vlen, err);
}

/* Starts job j: on a worker (small images, sent with the job) or on a
 * child of its own. *pooled says which. */
static ts_status job_start(const h5_job *j, ts__child **c, int *pooled, ts_error *err)
{
    ts_status st = ts__hdf5_load(err);
    if (st)
        return st;
    *pooled = j->len <= WORKER_IMAGE_MAX;
    if (!*pooled)
        return ts__child_start(c, "libhdf5", one_job, (void *)(uintptr_t)j, err);
    if ((st = ts__child_acquire(c, "libhdf5", worker, err)))
        return st;
    wbuf w = {NULL, 0, 0, 0};
    put_i32(&w, j->kind);
    put_i32(&w, j->want_metadata);
    put_i64(&w, (int64_t)j->itemsize);
    put_i64(&w, j->count);
    put_str(&w, j->dataset);
    put(&w, j->image, j->len);
    st = w.failed ? ts__error(err, TS_ERR_NOMEM, "out of memory")
                  : ts__child_send(*c, MSG_JOB, w.p, w.n, err);
    free(w.p);
    if (st) {
        ts__child_release(*c, 0);
        *c = NULL;
    }
    return st;
}

/* The job is over: the worker goes back to the pool when it ended as it
 * should, else it (or the job's own child) is ended. */
static void job_done(ts__child *c, int pooled, int healthy)
{
    if (pooled)
        ts__child_release(c, healthy);
    else
        ts__child_end(c);
}

ts_status ts__hdf5_isolated_list(ts_file *f, const unsigned char *data, size_t len,
                                 const ts_open_options *opts, ts_error *err)
{
    if (child_list) /* in the child already: list here */
        return ts__hdf5_list(f, data, len, opts, send_arrays, child_list, err);
    const char *path = NULL;
    if (opts->path && !(path = ts__file_strndup(f, opts->path, strlen(opts->path), err)))
        return TS_ERR_NOMEM;
    h5_job j = {JOB_LIST, opts->want_metadata, data, len, NULL, 0, 0};
    ts__child *c = NULL;
    int pooled = 0;
    ts_status st = job_start(&j, &c, &pooled, err);
    if (!st)
        ts__child_set_silence(c, LIST_SILENCE_MS);
    while (!st) {
        uint32_t type;
        const unsigned char *p;
        size_t n;
        if ((st = ts__child_recv(c, &type, &p, &n, err)))
            break;
        if (type == MSG_DONE && n == 0)
            break;
        st = type == MSG_ARRAY  ? add_array(f, len, path, p, n, err)
             : type == MSG_META ? add_meta(f, p, n, err)
                                : garbled(err, "message");
    }
    if (c)
        job_done(c, pooled, st == TS_OK);
    return st;
}

typedef struct h5_proxy {
    ts__child *c;
    int pooled, healthy;
    size_t itemsize;
    int64_t count;
} h5_proxy;

ts_status ts__hdf5_begin(const ts__data_src *src, const unsigned char *image, size_t len,
                         size_t itemsize, int64_t count, void **state, ts_error *err)
{
    *state = NULL;
    if (itemsize == 0 || count < 0 || !src->h5_dataset)
        return ts__error(err, TS_ERR_INVALID_ARG, "no dataset, element size or count");
    h5_proxy *h = calloc(1, sizeof *h);
    if (!h)
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    h->itemsize = itemsize;
    h->count = count;
    h5_job j = {JOB_VALUES, 0, image, len, src->h5_dataset, itemsize, count};
    uint32_t type;
    const unsigned char *p;
    size_t n;
    ts_status st = job_start(&j, &h->c, &h->pooled, err);
    if (!st)
        ts__child_set_silence(h->c, 0);
    if (!st && !(st = ts__child_recv(h->c, &type, &p, &n, err)) &&
        (type != MSG_OPENED || n != 0))
        st = garbled(err, "answer");
    if (st) {
        ts__hdf5_end(h);
        return st;
    }
    h->healthy = 1;
    *state = h;
    return TS_OK;
}

ts_status ts__hdf5_read(void *state, int64_t first, int64_t n, void *out, ts_error *err)
{
    h5_proxy *h = state;
    if (first < 0 || n < 0 || first > h->count || n > h->count - first)
        return ts__error(err, TS_ERR_INDEX, "elements %lld..%lld are outside the dataset",
                         (long long)first, (long long)(first + n));
    unsigned char *o = out;
    const int64_t step = (int64_t)(TS__CHILD_MSG_MAX / h->itemsize);
    while (n > 0) {
        int64_t k = n < step ? n : step;
        int64_t req[2] = {first, k};
        uint32_t type;
        const unsigned char *p;
        size_t got;
        ts_status st = ts__child_send(h->c, MSG_READ, req, sizeof req, err);
        if (!st && !(st = ts__child_recv(h->c, &type, &p, &got, err)) &&
            (type != MSG_DATA || got != (size_t)k * h->itemsize))
            st = garbled(err, "answer");
        if (st) {
            h->healthy = 0;
            return st;
        }
        memcpy(o, p, got);
        o += got;
        first += k;
        n -= k;
    }
    return TS_OK;
}

void ts__hdf5_end(void *state)
{
    h5_proxy *h = state;
    if (!h)
        return;
    if (h->c) {
        int ok = h->healthy && (!h->pooled || ts__child_send(h->c, MSG_END, NULL, 0, NULL) == TS_OK);
        job_done(h->c, h->pooled, ok);
    }
    free(h);
}
