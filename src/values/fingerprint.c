/*
 * fingerprint.c - ts_model_fingerprint: the SHA-256 of a canonical listing
 * of a model's tensors (include/tshape.h gives the listing's grammar), and
 * with values, of each tensor's data: tensors hashed on a pool of threads,
 * the largest first; data stored as is in C order and little-endian hashed
 * where it lies (ts__data_runs), anything else through ts__array_canonical
 * (write.c's pump: views, Fortran order, big-endian, deflated members).
 */
#include "values.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

/* Size of the first version of ts_fingerprint_options. */
#define OPTIONS_V1_SIZE (offsetof(ts_fingerprint_options, progress_ctx) + sizeof(void *))
#define PROGRESS_BYTES ((int64_t)64 << 20)

typedef struct entry {
    const char *name;
    const ts_file *f;
    const ts_array *a;
    char *line;                  /* malloc'd, with its newline */
    size_t len;
    char hex[65];                /* values: the data's SHA-256 */
    ts_status st;
    ts_error *err;               /* malloc'd on failure */
} entry;

typedef struct pool {
    entry *e;
    entry **order;               /* largest first */
    size_t n;
    atomic_size_t next;
    atomic_llong done;
    long long reported;
    int64_t total;
    const ts_fingerprint_options *o;
} pool;

typedef struct hasher {
    pool *P;
    ts__sha256 *h;
    int reporter;
} hasher;

static void progress(hasher *w, int64_t bytes)
{
    pool *P = w->P;
    long long now = atomic_fetch_add(&P->done, bytes) + bytes;
    if (w->reporter && P->o->progress && now / PROGRESS_BYTES != P->reported / PROGRESS_BYTES) {
        P->reported = now;
        P->o->progress(P->o->progress_ctx, now, P->total);
    }
}

/* Sinks: stored runs of elements (walk.c) and canonical bytes (write.c). */
typedef struct run_ctx {
    hasher *w;
    const ts__data *d;
} run_ctx;

static ts_status hash_run(void *ctx, const unsigned char *p, int64_t n, ts_error *err)
{
    run_ctx *r = ctx;
    (void)err;
    int64_t bytes = r->d->dec.block > 1 ? n / r->d->dec.block * r->d->dec.block_bytes
                                        : n * r->d->dec.elem_bytes;
    ts__sha256_update(r->w->h, p, (size_t)bytes);
    progress(r->w, bytes);
    return TS_OK;
}

static ts_status hash_bytes(void *ctx, const unsigned char *p, size_t len, ts_error *err)
{
    hasher *w = ctx;
    (void)err;
    ts__sha256_update(w->h, p, len);
    progress(w, (int64_t)len);
    return TS_OK;
}

/* 1 when a's bytes as stored are its canonical bytes: one run in C order,
 * little-endian or single bytes (GGUF blocks and sub-byte types as stored). */
static int as_stored(const ts__data *d, const ts_array *a)
{
    static const uint16_t one = 1;
    int little = *(const unsigned char *)&one == 1;
    int order_free = a->itemsize <= 1 || a->byteorder == '<' || a->byteorder == '|' ||
                     (a->byteorder == '=' && little) || d->dec.block > 1;
    int complex_one = (a->dtype == TS_DTYPE_COMPLEX64 || a->dtype == TS_DTYPE_COMPLEX128) &&
                      a->byteorder == '|';
    return !d->src && d->c_order && d->contiguous && order_free && !complex_one &&
           d->implicit_zeros == 0;
}

static ts_status hash_stored(void *arg, ts_error *err)
{
    run_ctx *r = arg;
    return ts__data_runs(r->d, 0, r->d->count, hash_run, r, err);
}

static ts_status hash_entry(hasher *w, entry *e, ts_error *err)
{
    ts_status st = ts__sha256_new(&w->h, err);
    if (st)
        return st;
    ts__data d;
    ts_error e2;
    st = ts__data_open(&d, e->f, e->a, &e2);
    if (st == TS_OK && as_stored(&d, e->a)) {
        run_ctx r = {w, &d};
        st = d.count > 0 ? ts__data_guard(&d, hash_stored, &r, err) : TS_OK;
    } else if (st == TS_OK || st == TS_ERR_DTYPE) {
        st = ts__array_canonical(e->f, e->a, e->name, hash_bytes, w, err);
    } else if (err) {
        *err = e2;
    }
    unsigned char digest[32];
    if (st) {
        ts__sha256_free(w->h);
    } else {
        ts__sha256_final(w->h, digest);
        ts__hex(digest, 32, e->hex);
    }
    w->h = NULL;
    return st;
}

static void *thread_main(void *arg)
{
    hasher *w = arg;
    pool *P = w->P;
    for (;;) {
        size_t i = atomic_fetch_add(&P->next, 1);
        if (i >= P->n)
            return NULL;
        entry *e = P->order[i];
        ts_error err;
        e->st = hash_entry(w, e, &err);
        if (e->st && (e->err = malloc(sizeof *e->err)) != NULL)
            *e->err = err;
    }
}

static int cmp_size(const void *x, const void *y)
{
    const entry *a = *(entry *const *)x, *b = *(entry *const *)y;
    return a->a->nbytes < b->a->nbytes ? 1 : a->a->nbytes > b->a->nbytes ? -1 : 0;
}

static int cmp_line(const void *x, const void *y)
{
    const entry *a = x, *b = y;
    int c = strcmp(a->name, b->name);
    if (c)
        return c;
    size_t n = a->len < b->len ? a->len : b->len;
    c = memcmp(a->line, b->line, n);
    return c ? c : (a->len > b->len) - (a->len < b->len);
}

/* The line of e (with the data's hash when values). */
static ts_status make_line(entry *e, int values, ts_error *err)
{
    char shape[TS__SHAPE_STR_MAX + 8];
    int nd = ts_shape_ndim(&e->a->shape);
    const int64_t *dims = ts_shape_dims(&e->a->shape);
    size_t k = 0;
    if (e->a->null_shape) {
        k = (size_t)snprintf(shape, sizeof shape, "null");
    } else {
        shape[k++] = '[';
        for (int i = 0; i < nd && k < sizeof shape - 24; i++)
            k += (size_t)snprintf(shape + k, sizeof shape - k, "%s%lld", i ? "," : "",
                                  (long long)dims[i]);
        shape[k++] = ']';
        shape[k] = '\0';
    }
    const char *dt = ts_summary_dtype(e->a);
    size_t nl = strlen(e->name);
    size_t cap = nl + strlen(dt) + k + 100;
    if (!(e->line = malloc(cap)))
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    int w = snprintf(e->line, cap, "%zu:%s %s %s%s%s\n", nl, e->name, dt, shape,
                     values ? " " : "", values ? e->hex : "");
    e->len = w > 0 ? (size_t)w : 0;
    return TS_OK;
}

ts_status ts_model_fingerprint(const ts_model *m, const ts_fingerprint_options *opts,
                               ts_fingerprint *out, ts_error *err)
{
    static const char fn[] = "ts_model_fingerprint";
    TS__ARG_NONNULL(err, m);
    TS__ARG_NONNULL(err, out);
    ts_fingerprint_options o = TS_FINGERPRINT_OPTIONS_INIT;
    if (opts) {
        ts_status st = ts__read_struct(err, fn, "opts", "options", opts, OPTIONS_V1_SIZE, &o,
                                       sizeof o, "TS_FINGERPRINT_OPTIONS_INIT",
                                       "ts_fingerprint_options");
        if (st)
            return st;
    }
    if (o.values != 0 && o.values != 1)
        return ts__bad_arg(err, fn, "opts->values is %d, not 0 or 1", o.values);
    if (o.nthreads < 0)
        return ts__bad_arg(err, fn, "opts->nthreads is %d, below 0", o.nthreads);
    ts__ok(err);
    ts__sha256 *h = NULL;
    ts_status st = ts__sha256_new(&h, err);
    if (st)
        return st;
    pool P;
    memset(&P, 0, sizeof P);
    P.o = &o;
    P.n = ts_model_count(m);
    P.e = calloc(P.n ? P.n : 1, sizeof *P.e);
    P.order = malloc((P.n ? P.n : 1) * sizeof *P.order);
    if (!P.e || !P.order)
        st = ts__error(err, TS_ERR_NOMEM, "out of memory");
    for (size_t i = 0; st == TS_OK && i < P.n; i++) {
        size_t file;
        P.e[i].a = ts_model_array(m, i, &file);
        P.e[i].f = ts_model_file(m, file);
        P.e[i].name = ts_model_array_name(m, i);
        P.order[i] = &P.e[i];
        P.total += P.e[i].a->nbytes > 0 ? P.e[i].a->nbytes : 0;
    }
    if (st == TS_OK && o.values && P.n > 0) {
        qsort(P.order, P.n, sizeof *P.order, cmp_size);
        int n = o.nthreads > 0 ? o.nthreads : ts__cpu_count(256);
        if ((size_t)n > P.n)
            n = (int)P.n;
        hasher *w = calloc((size_t)n, sizeof *w);
        if (!w) {
            st = ts__error(err, TS_ERR_NOMEM, "out of memory");
        } else {
            atomic_init(&P.next, 0);
            atomic_init(&P.done, 0);
            for (int t = 0; t < n; t++) {
                w[t].P = &P;
                w[t].reporter = t == 0;
            }
            ts__run_jobs(thread_main, w, sizeof *w, n);
            free(w);
            /* the first failure in model order */
            for (size_t i = 0; st == TS_OK && i < P.n; i++)
                if (P.e[i].st) {
                    st = P.e[i].st;
                    if (err && P.e[i].err)
                        *err = *P.e[i].err;
                    else if (!P.e[i].err)
                        st = ts__error(err, TS_ERR_NOMEM, "out of memory");
                }
            if (st == TS_OK && o.progress && P.total >= PROGRESS_BYTES)
                o.progress(o.progress_ctx, P.total, P.total);
        }
    }
    for (size_t i = 0; st == TS_OK && i < P.n; i++)
        st = make_line(&P.e[i], o.values, err);
    if (st == TS_OK && P.n > 1)
        qsort(P.e, P.n, sizeof *P.e, cmp_line);
    for (size_t i = 0; st == TS_OK && i < P.n; i++) {
        ts__sha256_update(h, P.e[i].line, P.e[i].len);
        if (o.listing && o.listing(o.listing_user, P.e[i].line, P.e[i].len) != 0)
            st = ts__error(err, TS_ERR_IO, "the listing's writer stopped");
    }
    if (st == TS_OK) {
        unsigned char digest[32];
        ts__sha256_final(h, digest);
        h = NULL;
        memset(out, 0, sizeof *out);
        ts__hex(digest, 32, out->sha256);
        out->tensors = (int64_t)P.n;
        out->values = o.values;
        out->nbytes = o.values ? P.total : 0;
    }
    ts__sha256_free(h);
    for (size_t i = 0; P.e && i < P.n; i++) {
        free(P.e[i].line);
        free(P.e[i].err);
    }
    free(P.e);
    free(P.order);
    return st;
}
