/*
 * compare.c - ts_array_compare: two arrays element by element, by the rule
 * of numpy.isclose, in one pass over both.
 *
 * Two ways through the data:
 *   - in place: both arrays stored in the file as one C-order run each
 *     (npy, safetensors, stored npz, contiguous PyTorch tensors): pointers
 *     into the maps, decoded TS__VBLOCK elements at a time into buffers on
 *     the stack of each thread, large runs cut in one chunk per thread;
 *   - in pieces: anything else (views, Fortran order, deflated members,
 *     GGUF blocks): each side fills its own fixed buffer in flat C order
 *     (ts_array_read, or for a deflated C-order member a cursor that keeps
 *     zlib's state, so the member is inflated once), and the two buffers
 *     are compared piece by piece.
 * Every element goes through one kernel per kind (float64, complex128,
 * exact integers), whose partial results merge in chunk order: the result
 * does not depend on timing.
 */
#include "../core/lazylib.h"
#include "values.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>

/* Size of the first version of ts_compare_options: the smallest struct_size
 * accepted. It never changes when fields are appended. */
#define OPTIONS_V1_SIZE (offsetof(ts_compare_options, progress_ctx) + sizeof(void *))

/* Elements per piece of the piecewise path. */
#define PIECE 32768
/* Elements per step of a deflated Fortran-order member (ts_array_read
 * inflates the member from its start on every call). */
#define PIECE_F (1 << 20)
/* Runs below this many bytes (both arrays) are not worth a thread. */
#define THREAD_MIN_BYTES (4 << 20)
/* Elements of a mapped run made present, then released, at a time (each
 * release is a TLB flush on every CPU the process runs on). */
#define RELEASE_ELEMS ((int64_t)1 << 20)
/* Bytes between progress reports. */
#define PROGRESS_BYTES (16 << 20)

/* Partial results of a range of elements. */
typedef struct part {
    int64_t notclose, first, nan_a, nan_b;
    double max_abs, max_rel;
    int nan_diff;           /* a pair with a NaN that is not an equal NaN
                               pair: max_abs and max_rel are NaN (np.max) */
    /* When the elements come in another order than flat C order (see
     * "order" below): every element not close also marks flags[position -
     * flag_base], and the caller maps the marks to C indices. */
    unsigned char *flags;
    int64_t flag_base;
} part;

static void part_init(part *P)
{
    memset(P, 0, sizeof *P);
    P->first = -1;
}

/* B follows A in flat order. */
static void part_merge(part *A, const part *B)
{
    A->notclose += B->notclose;
    if (A->first < 0)
        A->first = B->first;
    A->nan_a += B->nan_a;
    A->nan_b += B->nan_b;
    A->max_abs = B->max_abs > A->max_abs ? B->max_abs : A->max_abs;
    A->max_rel = B->max_rel > A->max_rel ? B->max_rel : A->max_rel;
    A->nan_diff |= B->nan_diff;
}

/* |x - y| / |y| of a pair that differs (d = |x - y| > 0, not NaN): NumPy's
 * abs(a - b) / abs(b), inf when y is 0; inf too when y is infinite (where
 * IEEE's inf / inf would report a NaN that neither value holds). */
static double rel_diff(double d, double ab)
{
    return ab > 0 && ab < INFINITY ? d / ab : INFINITY;
}

typedef struct rule {
    double rtol, atol;
    int equal_nan;
} rule;

static void not_close(part *P, int64_t at)
{
    if (P->notclose++ == 0)
        P->first = at;
    if (P->flags)
        P->flags[at - P->flag_base] = 1;
}

/* ---- kernels ------------------------------------------------------------------ */

/* x, y: n doubles each; `at` is the flat index of x[0]. */
static void kernel_float(const rule *R, const double *x, const double *y, size_t n,
                         int64_t at, part *P)
{
    const double rtol = R->rtol, atol = R->atol;
    double ma = P->max_abs, mr = P->max_rel;
    for (size_t i = 0; i < n; i++) {
        double a = x[i], b = y[i], ab = fabs(b), d = fabs(a - b);
        if (d <= atol + rtol * ab && ab < INFINITY) {
            /* close, both finite (the common case) */
            ma = d > ma ? d : ma;
            if (d > 0) {
                double r = rel_diff(d, ab);
                mr = r > mr ? r : mr;
            }
            continue;
        }
        int na = a != a, nb = b != b;
        P->nan_a += na;
        P->nan_b += nb;
        if (a == b)
            continue;   /* the same infinity */
        if (na || nb) {
            if (!(R->equal_nan && na && nb)) {
                not_close(P, at + (int64_t)i);
                P->nan_diff = 1;
            }
            continue;
        }
        not_close(P, at + (int64_t)i);
        ma = d > ma ? d : ma;
        double r = rel_diff(d, ab);
        mr = r > mr ? r : mr;
    }
    P->max_abs = ma;
    P->max_rel = mr;
}

/* x, y: n (re, im) pairs each. */
static void kernel_complex(const rule *R, const double *x, const double *y, size_t n,
                           int64_t at, part *P)
{
    for (size_t i = 0; i < n; i++) {
        double ar = x[2 * i], ai = x[2 * i + 1], br = y[2 * i], bi = y[2 * i + 1];
        int na = ar != ar || ai != ai, nb = br != br || bi != bi;
        P->nan_a += na;
        P->nan_b += nb;
        if (na || nb) {
            if (!(R->equal_nan && na && nb)) {
                not_close(P, at + (int64_t)i);
                P->nan_diff = 1;
            }
            continue;
        }
        if (ar == br && ai == bi)
            continue;
        double d = ts__hypot(ar - br, ai - bi), ab = ts__hypot(br, bi);
        int bfinite = fabs(br) < INFINITY && fabs(bi) < INFINITY;
        if (!(d <= R->atol + R->rtol * ab && bfinite))
            not_close(P, at + (int64_t)i);
        if (d != d) {               /* inf - inf in a part: no number */
            P->nan_diff = 1;
            continue;
        }
        P->max_abs = d > P->max_abs ? d : P->max_abs;
        double r = bfinite ? rel_diff(d, ab) : INFINITY;
        P->max_rel = r > P->max_rel ? r : P->max_rel;
    }
}

/* Integers of either signedness: sx/sy say whether x/y hold int64 (1) or
 * uint64 (0) values. */
static void kernel_int(const rule *R, const void *x, int sx, const void *y, int sy, size_t n,
                       int64_t at, part *P)
{
    const int64_t *xi = x, *yi = y;
    const uint64_t *xu = x, *yu = y;
    for (size_t i = 0; i < n; i++) {
#ifdef __SIZEOF_INT128__
        __int128 a = sx ? (__int128)xi[i] : (__int128)xu[i];
        __int128 b = sy ? (__int128)yi[i] : (__int128)yu[i];
        if (a == b)
            continue;
        unsigned __int128 d = a > b ? (unsigned __int128)(a - b) : (unsigned __int128)(b - a);
        unsigned __int128 mb = b < 0 ? (unsigned __int128)(-b) : (unsigned __int128)b;
        double ab = (double)mb, dd = (double)d;
        double t = R->atol + R->rtol * ab;
        /* d <= t exactly: d is an integer, so d <= floor(t); t >= 2^127
         * bounds every d (< 2^65) */
        int close = t >= 0x1p127 || d <= (unsigned __int128)t;
#else
        double a = sx ? (double)xi[i] : (double)xu[i];
        double b = sy ? (double)yi[i] : (double)yu[i];
        if ((sx ? (sy ? xi[i] == yi[i] : xi[i] >= 0 && (uint64_t)xi[i] == yu[i])
                : (sy ? yi[i] >= 0 && (uint64_t)yi[i] == xu[i] : xu[i] == yu[i])))
            continue;
        double ab = fabs(b), dd = fabs(a - b);
        int close = dd <= R->atol + R->rtol * ab;
#endif
        if (!close)
            not_close(P, at + (int64_t)i);
        P->max_abs = dd > P->max_abs ? dd : P->max_abs;
        double r = rel_diff(dd, ab);
        P->max_rel = r > P->max_rel ? r : P->max_rel;
    }
}

/* ---- what each side reads as -------------------------------------------------- */

typedef struct plan {
    rule rule;
    ts_value_kind kind;           /* INT (exact), FLOAT or COMPLEX */
    ts_dtype as_a, as_b;          /* ts_array_read types */
    size_t out_a, out_b;          /* bytes per read element */
} plan;

static ts_dtype read_type(ts_value_kind how, ts_value_kind k)
{
    if (how == TS_VALUE_COMPLEX)
        return TS_DTYPE_COMPLEX128;
    if (how == TS_VALUE_FLOAT)
        return TS_DTYPE_FLOAT64;
    return k == TS_VALUE_UINT ? TS_DTYPE_UINT64 : TS_DTYPE_INT64;
}

/* Compares n elements of both sides, decoded into xa and xb. */
static void compare_decoded(const plan *L, const void *xa, const void *xb, size_t n,
                            int64_t at, part *P)
{
    if (L->kind == TS_VALUE_COMPLEX)
        kernel_complex(&L->rule, xa, xb, n, at, P);
    else if (L->kind == TS_VALUE_FLOAT)
        kernel_float(&L->rule, xa, xb, n, at, P);
    else
        kernel_int(&L->rule, xa, L->as_a == TS_DTYPE_INT64, xb, L->as_b == TS_DTYPE_INT64, n,
                   at, P);
}

/* Decodes n raw elements at p (decoder dec) as `as` into dst. tmp holds n
 * doubles (real to complex). */
static void decode_as(const ts__decoder *dec, ts_dtype as, const unsigned char *p, size_t n,
                      void *dst, double *tmp)
{
    if (as == TS_DTYPE_INT64) {
        dec->to_i64(p, n, dst);
    } else if (as == TS_DTYPE_UINT64) {
        dec->to_u64(p, n, dst);
    } else if (as == TS_DTYPE_FLOAT64 || dec->kind == TS_VALUE_COMPLEX) {
        dec->to_double(p, n, dst);
    } else {
        double *o = dst;
        dec->to_double(p, n, tmp);
        for (size_t i = 0; i < n; i++) {
            o[2 * i] = tmp[i];
            o[2 * i + 1] = 0;
        }
    }
}

/* ---- in place, on threads ------------------------------------------------------ */

typedef struct job {
    const plan *L;
    const ts__data *da, *db;
    int64_t first, n;
    part part;
    atomic_llong *done;           /* elements done by all threads */
    const ts_compare_options *opts;
    int reporter;
    int64_t total_bytes, count;
    ts_status st;
    ts_error err;
    int side_known;               /* err.index says which array failed */
    struct inplace_buf *buf;      /* allocated outside the guarded walk */
} job;

typedef struct inplace_buf {
    double xa[2 * TS__VBLOCK], xb[2 * TS__VBLOCK], tmp[TS__VBLOCK];
    /* the stored bytes of a step of a sparse source (a remote file, or a
     * local one read with pread): TS__VBLOCK elements of at most 32 bytes */
    unsigned char ra[32 * TS__VBLOCK], rb[32 * TS__VBLOCK];
} inplace_buf;

static ts_status run_inplace(void *arg, ts_error *err)
{
    job *J = arg;
    const plan *L = J->L;
    inplace_buf *B = J->buf;
    long long reported = 0;
    int64_t kept = 0; /* elements [kept, i) read but not yet released */
    for (int64_t i = 0; i < J->n;) {
        if (i - kept >= RELEASE_ELEMS || i == 0) {
            /* a mapped file: the next step's page table entries made at
             * once, the pages read leave the resident set */
            ts__data_release(J->da, J->first + kept, i - kept);
            ts__data_release(J->db, J->first + kept, i - kept);
            int64_t next = J->n - i < RELEASE_ELEMS ? J->n - i : RELEASE_ELEMS;
            ts__data_populate(J->da, J->first + i, next);
            ts__data_populate(J->db, J->first + i, next);
            kept = i;
        }
        size_t k = J->n - i > TS__VBLOCK ? TS__VBLOCK : (size_t)(J->n - i);
        const unsigned char *pa = ts__data_fetch(J->da, J->first + i, (int64_t)k, B->ra, err);
        const unsigned char *pb = pa ? ts__data_fetch(J->db, J->first + i, (int64_t)k, B->rb,
                                                      err) : NULL;
        if (!pb) {
            if (err)
                err->index = pa ? 1 : 0;
            J->side_known = 1;
            return err ? err->code : TS_ERR_IO;
        }
        decode_as(&J->da->dec, L->as_a, pa, k, B->xa, B->tmp);
        decode_as(&J->db->dec, L->as_b, pb, k, B->xb, B->tmp);
        compare_decoded(L, B->xa, B->xb, k, J->first + i, &J->part);
        i += (int64_t)k;
        if (i == J->n) {
            ts__data_release(J->da, J->first + kept, i - kept);
            ts__data_release(J->db, J->first + kept, i - kept);
        }
        long long now = atomic_fetch_add(J->done, (long long)k) + (long long)k;
        if (J->reporter && J->opts->progress) {
            long long bytes = (long long)((double)now / (double)J->count *
                                         (double)J->total_bytes);
            if (bytes / PROGRESS_BYTES != reported / PROGRESS_BYTES) {
                reported = bytes;
                J->opts->progress(J->opts->progress_ctx, bytes, J->total_bytes);
            }
        }
    }
    return TS_OK;
}

/* The SIGBUS guards of both images, nested; the inner one is b's. */
static ts_status inner_guard(void *arg, ts_error *err)
{
    job *J = arg;
    ts_status st = ts__data_guard(J->db, run_inplace, J, err);
    if (st && err && !J->side_known) /* a fault in b's mapping */
        err->index = 1;
    return st;
}

static void *thread_main(void *arg)
{
    job *J = arg;
    J->err.index = 0;
    J->st = ts__data_guard(J->da, inner_guard, J, &J->err);
    return NULL;
}

static ts_status compare_inplace(const plan *L, const ts__data *da, const ts__data *db,
                                 const ts_compare_options *o, int64_t total_bytes, part *out,
                                 ts_error *err)
{
    int64_t count = da->count;
    int nthreads = o->nthreads > 0 ? o->nthreads : ts__cpu_count(256);
    if (total_bytes < THREAD_MIN_BYTES)
        nthreads = 1;
    if ((int64_t)nthreads > count / TS__VBLOCK)
        nthreads = count / TS__VBLOCK > 1 ? (int)(count / TS__VBLOCK) : 1;
    job *jobs = calloc((size_t)nthreads, sizeof *jobs);
    inplace_buf *bufs = malloc((size_t)nthreads * sizeof *bufs);
    if (!jobs || !bufs) {
        free(jobs);
        free(bufs);
        return ts__values_fail(da->a, err, ts__error(err, TS_ERR_NOMEM, "out of memory"));
    }
    atomic_llong done;
    atomic_init(&done, 0);
    int64_t per = count / nthreads / TS__VBLOCK * TS__VBLOCK;
    for (int t = 0; t < nthreads; t++) {
        job *J = &jobs[t];
        J->L = L;
        J->da = da;
        J->db = db;
        J->first = per * t;
        J->n = t == nthreads - 1 ? count - per * t : per;
        part_init(&J->part);
        J->done = &done;
        J->opts = o;
        J->reporter = t == 0;
        J->total_bytes = total_bytes;
        J->count = count;
        J->buf = &bufs[t];
    }
    ts__run_jobs(thread_main, jobs, sizeof *jobs, nthreads);
    ts_status st = TS_OK;
    for (int t = 0; t < nthreads; t++) {
        if (jobs[t].st && !st) {
            st = jobs[t].st;
            if (err)
                *err = jobs[t].err;
        }
        part_merge(out, &jobs[t].part);
    }
    free(jobs);
    free(bufs);
    return st;
}

/* ---- in pieces ---------------------------------------------------------------- */

/* One side: a buffer of decoded elements [pos, len) in flat order. */
typedef struct side {
    const ts_file *f;
    const ts_array *a;
    const ts__data *d;
    ts_dtype as;
    size_t out_size;              /* bytes per decoded element */
    unsigned char *buf;
    int64_t cap, pos, len;        /* elements */
    int64_t next;                 /* flat index of the next element to read */
    ts__zcursor cur;
    int use_cursor;
    int use_view;                 /* stored data walked in a permuted order */
    int64_t walk_n;               /* elements the next view_run reads */
    ts__data view;                /* its layout permuted to the walk order */
    unsigned char *fill;          /* sink's destination */
    double *tmp;
} side;

static ts_status cursor_sink(void *ctx, const unsigned char *p, int64_t n, ts_error *err)
{
    side *S = ctx;
    (void)err;
    while (n > 0) {
        size_t k = n > TS__VBLOCK ? TS__VBLOCK : (size_t)n;
        decode_as(&S->d->dec, S->as, p, k, S->fill, S->tmp);
        S->fill += k * S->out_size;
        p += (int64_t)k * S->d->dec.elem_bytes;
        n -= (int64_t)k;
    }
    return TS_OK;
}

static ts_status view_run(void *arg, ts_error *err)
{
    side *S = arg;
    return ts__data_walk_view(&S->view, S->next, S->walk_n, cursor_sink, S, err);
}

/* Makes at least k elements available at S->buf + S->pos (k <= cap, and
 * no more than are left). */
static ts_status side_get(side *S, int64_t k, ts_error *err)
{
    if (S->len - S->pos >= k)
        return TS_OK;
    int64_t held = S->len - S->pos;
    if (held > 0)
        memmove(S->buf, S->buf + (size_t)S->pos * S->out_size, (size_t)held * S->out_size);
    S->pos = 0;
    S->len = held;
    int64_t m = S->cap - held, left = S->a->size - S->next;
    if (m > left)
        m = left;
    unsigned char *dst = S->buf + (size_t)held * S->out_size;
    ts_status st;
    if (S->use_cursor) {
        S->fill = dst;
        st = ts__zcursor_next(&S->cur, m, cursor_sink, S, err);
    } else if (S->use_view) {
        S->fill = dst;
        S->walk_n = m;
        st = ts__data_guard(&S->view, view_run, S, err);
    } else {
        st = ts_array_read(S->f, S->a, S->next, m, S->as, dst, err);
    }
    if (st)
        return st;
    S->next += m;
    S->len += m;
    return TS_OK;
}

/*
 * The order both arrays are read in. Normally flat C order. A deflated
 * member stored in another order (Fortran) can only be streamed in its
 * storage order, so then both arrays are read in that order instead: axes
 * permuted outermost first by decreasing stride (`perm`), the deflated
 * side through its zlib cursor, a stored side walked as a view with its
 * axes permuted the same way (a deflated side must have the same storage
 * order). Elements not close are mapped back to C indices.
 */
typedef struct order {
    int active, nd;
    int perm[TS_MAX_NDIM];
    int64_t pshape[TS_MAX_NDIM];  /* shape[perm[k]] */
    int64_t cstride[TS_MAX_NDIM]; /* C-order stride of axis perm[k] */
} order;

/* The C-order flat index of position pos of the permuted walk. */
static int64_t order_to_c(const order *O, int64_t pos)
{
    int64_t flat = 0;
    for (int k = O->nd - 1; k >= 0; k--) {
        flat += pos % O->pshape[k] * O->cstride[k];
        pos /= O->pshape[k];
    }
    return flat;
}

/* Can side d be read in order O: a deflated member whose storage order is
 * O (its permuted strides are C-contiguous), or stored elements (not
 * blocks) walked as a permuted view. *cursor says which. */
static int fits_order(const order *O, const ts__data *d, int *cursor)
{
    if (d->implicit_zeros || d->a->storage != TS_STORAGE_DENSE || d->dec.block != 1)
        return 0;
    if (!d->src) {
        *cursor = 0;
        return 1;
    }
    int64_t expect = 1;
    for (int k = O->nd - 1; k >= 0; k--) {
        if (O->pshape[k] != 1 && d->lay.strides[O->perm[k]] != expect)
            return 0;
        expect *= O->pshape[k];
    }
    *cursor = 1;
    return 1;
}

/* Fills O when one side is a deflated member not in C order and both fit. */
static void choose_order(order *O, const ts__data *da, const ts__data *db, int *cur_a,
                         int *cur_b)
{
    memset(O, 0, sizeof *O);
    const ts__data *d = da->src && !da->c_order ? da : db->src && !db->c_order ? db : NULL;
    if (!d || !d->contiguous)
        return;
    int nd = d->lay.ndim;
    O->nd = nd;
    for (int k = 0; k < nd; k++)
        O->perm[k] = k;
    /* outermost first: decreasing stride (stable: insertion sort) */
    for (int i = 1; i < nd; i++)
        for (int j = i; j > 0 && d->lay.strides[O->perm[j - 1]] < d->lay.strides[O->perm[j]];
             j--) {
            int t = O->perm[j];
            O->perm[j] = O->perm[j - 1];
            O->perm[j - 1] = t;
        }
    int64_t cs[TS_MAX_NDIM], c = 1;
    for (int k = nd - 1; k >= 0; k--) {
        cs[k] = c;
        c *= d->lay.shape[k];
    }
    for (int k = 0; k < nd; k++) {
        O->pshape[k] = d->lay.shape[O->perm[k]];
        O->cstride[k] = cs[O->perm[k]];
    }
    O->active = fits_order(O, da, cur_a) && fits_order(O, db, cur_b);
}

static ts_status side_open(side *S, const ts_file *f, const ts_array *a, const ts__data *d,
                           ts_dtype as, const order *O, int cursor, ts_error *err)
{
    memset(S, 0, sizeof *S);
    S->f = f;
    S->a = a;
    S->d = d;
    S->as = as;
    S->out_size = as == TS_DTYPE_COMPLEX128 ? 16 : 8;
    if (O->active) {
        S->use_cursor = cursor;
        S->use_view = !cursor;
        S->view = *d;
        for (int k = 0; k < O->nd; k++) {
            S->view.lay.shape[k] = O->pshape[k];
            S->view.lay.strides[k] = d->lay.strides[O->perm[k]];
        }
    } else {
        S->use_cursor = d->src && d->c_order;
    }
    S->cap = d->src && !d->c_order && !O->active ? PIECE_F : 2 * PIECE;
    S->buf = malloc((size_t)S->cap * S->out_size);
    S->tmp = malloc(TS__VBLOCK * sizeof *S->tmp);
    if (!S->buf || !S->tmp) {
        free(S->buf);
        free(S->tmp);
        S->buf = NULL;
        S->tmp = NULL;
        return ts__values_fail(a, err, ts__error(err, TS_ERR_NOMEM, "out of memory"));
    }
    if (S->use_cursor) {
        ts_status st = ts__zcursor_open(&S->cur, d, err);
        if (st) {
            free(S->buf);
            free(S->tmp);
            S->buf = NULL;
            S->tmp = NULL;
            S->use_cursor = 0;
            return st;
        }
    }
    return TS_OK;
}

static void side_close(side *S)
{
    if (S->use_cursor)
        ts__zcursor_close(&S->cur);
    free(S->buf);
    free(S->tmp);
}

/* Records which array failed (0: a, 1: b) in err->index. */
static ts_status failed(ts_error *err, ts_status st, int64_t which)
{
    if (err)
        err->index = which;
    return st;
}

static ts_status compare_pieces(const plan *L, side *A, side *B, const order *O,
                                const ts_compare_options *o, int64_t total_bytes,
                                unsigned char *flags, part *P, ts_error *err)
{
    int64_t count = A->a->size, first_c = -1;
    long long reported = 0;
    P->flags = O->active ? flags : NULL;
    for (int64_t at = 0; at < count;) {
        int64_t k = count - at > PIECE ? PIECE : count - at;
        ts_status st = side_get(A, k, err);
        if (st)
            return failed(err, st, 0);
        if ((st = side_get(B, k, err)))
            return failed(err, st, 1);
        int64_t before = P->notclose;
        P->flag_base = at;
        compare_decoded(L, A->buf + (size_t)A->pos * A->out_size,
                        B->buf + (size_t)B->pos * B->out_size, (size_t)k, at, P);
        if (O->active && P->notclose > before) {
            /* the smallest C index among this piece's elements not close */
            for (int64_t i = 0; i < k; i++)
                if (flags[i]) {
                    int64_t c = order_to_c(O, at + i);
                    first_c = first_c < 0 || c < first_c ? c : first_c;
                    flags[i] = 0;
                }
        }
        A->pos += k;
        B->pos += k;
        at += k;
        if (o->progress) {
            long long bytes = (long long)((double)at / (double)count * (double)total_bytes);
            if (bytes / PROGRESS_BYTES != reported / PROGRESS_BYTES) {
                reported = bytes;
                o->progress(o->progress_ctx, bytes, total_bytes);
            }
        }
    }
    if (O->active)
        P->first = first_c;
    P->flags = NULL;
    /* a member read to its end: check its size and CRC-32 */
    ts_status st;
    if (A->use_cursor && (st = ts__zcursor_finish(&A->cur, err)))
        return failed(err, st, 0);
    if (B->use_cursor && (st = ts__zcursor_finish(&B->cur, err)))
        return failed(err, st, 1);
    return TS_OK;
}

/* ---- the entry point ---------------------------------------------------------- */

static ts_status get_options(const ts_compare_options *opts, ts_compare_options *o,
                             ts_error *err)
{
    const ts_compare_options dflt = TS_COMPARE_OPTIONS_INIT;
    *o = dflt;
    if (!opts)
        return TS_OK;
    ts_status st = ts__read_struct(err, "ts_array_compare", "opts", "options", opts,
                                   OPTIONS_V1_SIZE, o, sizeof *o, "TS_COMPARE_OPTIONS_INIT",
                                   "ts_compare_options");
    if (st)
        return st;
    if (!(o->rtol >= 0 && o->rtol < INFINITY))
        return ts__bad_arg(err, "ts_array_compare", "opts->rtol is %g, not a finite number >= 0",
                           o->rtol);
    if (!(o->atol >= 0 && o->atol < INFINITY))
        return ts__bad_arg(err, "ts_array_compare", "opts->atol is %g, not a finite number >= 0",
                           o->atol);
    if (o->equal_nan != 0 && o->equal_nan != 1)
        return ts__bad_arg(err, "ts_array_compare", "opts->equal_nan is %d, not 0 or 1",
                           o->equal_nan);
    if (o->nthreads < 0)
        return ts__bad_arg(err, "ts_array_compare", "opts->nthreads is %d, below 0",
                           o->nthreads);
    return TS_OK;
}

static int is_int_kind(ts_value_kind k)
{
    return k == TS_VALUE_INT || k == TS_VALUE_UINT || k == TS_VALUE_BOOL;
}

/* ts_array_compare, with b read as numpy.transpose(b, perm) when perm is
 * not NULL (b's stored data walked as a permuted view). */
static ts_status compare_arrays(const ts_file *fa, const ts_array *a, const ts_file *fb,
                                const ts_array *b, const int *perm,
                                const ts_compare_options *opts, ts_compare *out, ts_error *err)
{
    ts_compare_options o;
    ts_status st = get_options(opts, &o, err);
    if (st)
        return st;
    if (!ts__shape_equal_permuted(&a->shape, &b->shape, perm,
                                  perm ? ts_shape_ndim(&b->shape) : 0)) {
        char sa[256], sb[256];
        ts_shape_format(&a->shape, 0, sa, sizeof sa);
        ts_shape_format(&b->shape, 0, sb, sizeof sb);
        return ts__error(err, TS_ERR_SIZE, "shapes %s and %s%s differ", sa, sb,
                         perm ? " permuted" : "");
    }
    ts__data da, db;
    if ((st = ts__data_open(&da, fa, a, err)))
        return failed(err, st, 0);
    if ((st = ts__data_open(&db, fb, b, err)))
        return failed(err, st, 1);
    if (perm) {
        if (db.src || !db.whole || db.dec.block != 1 || db.implicit_zeros ||
            b->storage != TS_STORAGE_DENSE)
            return failed(err, ts__values_fail(b, err, ts__error(err, TS_ERR_UNSUPPORTED,
                                               "values compared after a permutation must "
                                               "be stored as is in a local file")), 1);
        ts__layout lay = db.lay;
        for (int k = 0; k < lay.ndim; k++) {
            db.lay.shape[k] = lay.shape[perm[k]];
            db.lay.strides[k] = lay.strides[perm[k]];
        }
        db.c_order = 0;
    }
    plan L;
    memset(&L, 0, sizeof L);
    L.rule.rtol = o.rtol;
    L.rule.atol = o.atol;
    L.rule.equal_nan = o.equal_nan;
    ts_value_kind ka = da.dec.kind, kb = db.dec.kind;
    L.kind = ka == TS_VALUE_COMPLEX || kb == TS_VALUE_COMPLEX ? TS_VALUE_COMPLEX
             : is_int_kind(ka) && is_int_kind(kb)             ? TS_VALUE_INT
                                                             : TS_VALUE_FLOAT;
    L.as_a = read_type(L.kind, ka);
    L.as_b = read_type(L.kind, kb);
    int64_t total_bytes = (a->nbytes > 0 ? a->nbytes : 0) + (b->nbytes > 0 ? b->nbytes : 0);

    part P;
    part_init(&P);
    int inplace = !perm && !da.src && !db.src && da.c_order && db.c_order && da.dec.block == 1 &&
                  db.dec.block == 1 && da.implicit_zeros == 0 && db.implicit_zeros == 0 &&
                  a->storage == TS_STORAGE_DENSE && b->storage == TS_STORAGE_DENSE &&
                  ((da.whole && db.whole) ||
                   (da.dec.elem_bytes <= 32 && db.dec.elem_bytes <= 32)); /* inplace_buf */
    if (a->size == 0) {
        st = TS_OK;
    } else if (inplace) {
        st = compare_inplace(&L, &da, &db, &o, total_bytes, &P, err);
        if (st && err && err->index != 1)
            err->index = 0;   /* the error is about a (or memory) */
    } else {
        side A, B;
        order O;
        int cur_a = 0, cur_b = 0;
        if (perm)
            memset(&O, 0, sizeof O);
        else
            choose_order(&O, &da, &db, &cur_a, &cur_b);
        unsigned char *flags = O.active ? calloc(PIECE, 1) : NULL;
        if (O.active && !flags)
            return ts__values_fail(a, err, ts__error(err, TS_ERR_NOMEM, "out of memory"));
        if ((st = side_open(&A, fa, a, &da, L.as_a, &O, cur_a, err))) {
            free(flags);
            return failed(err, st, 0);
        }
        if ((st = side_open(&B, fb, b, &db, L.as_b, &O, cur_b, err))) {
            side_close(&A);
            free(flags);
            return failed(err, st, 1);
        }
        if (perm) {
            B.use_view = 1;
            B.view = db;
        }
        st = compare_pieces(&L, &A, &B, &O, &o, total_bytes, flags, &P, err);
        side_close(&A);
        side_close(&B);
        free(flags);
    }
    if (st)
        return st;
    if (o.progress && total_bytes >= PROGRESS_BYTES)
        o.progress(o.progress_ctx, total_bytes, total_bytes);
    memset(out, 0, sizeof *out);
    out->kind = L.kind;
    out->count = a->size;
    out->notclose = P.notclose;
    out->first = P.first;
    out->max_abs = P.nan_diff ? NAN : P.max_abs;
    out->max_rel = P.nan_diff ? NAN : P.max_rel;
    out->nan_a = P.nan_a;
    out->nan_b = P.nan_b;
    return TS_OK;
}

ts_status ts_array_compare(const ts_file *fa, const ts_array *a, const ts_file *fb,
                           const ts_array *b, const ts_compare_options *opts, ts_compare *out,
                           ts_error *err)
{
    ts__ok(err);
    TS__ARG_NONNULL(err, fa);
    TS__ARG_NONNULL(err, a);
    TS__ARG_NONNULL(err, fb);
    TS__ARG_NONNULL(err, b);
    TS__ARG_NONNULL(err, out);
    return compare_arrays(fa, a, fb, b, NULL, opts, out, err);
}

/* Internal (ts_diff's pairs, never NULL but perm): the checks of
 * ts_array_compare are its caller's. */
ts_status ts__array_compare_permuted(const ts_file *fa, const ts_array *a, const ts_file *fb,
                                     const ts_array *b, const int *perm,
                                     const ts_compare_options *opts, ts_compare *out,
                                     ts_error *err)
{
    ts__ok(err);
    TS__ARG_NONNULL(err, perm);
    return compare_arrays(fa, a, fb, b, perm, opts, out, err);
}
