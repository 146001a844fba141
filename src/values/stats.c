/*
 * stats.c - ts_array_stats: one pass over an array's data.
 *
 * Elements are decoded TS__VBLOCK at a time into a double buffer that stays
 * in L1/L2. Each block gets a first sweep (sum, min, max, zero and
 * non-finite counts) and, while still in cache, a second one for the sum of
 * squared deviations from the block's own mean: an exact-as-possible
 * two-pass variance per block that never re-reads memory. Blocks are merged
 * with Chan et al.'s pairwise update (M2 = M2a + M2b + d^2 na nb / n), the
 * running sum under Neumaier compensation and M2 under Kahan's, so the
 * error does not grow with the element count. Sums are of x - K, K a pivot
 * (the first finite value), so data far from zero (1e9 +- 1) keeps the
 * digits that carry its variance. A block holding NaN or Inf
 * is redone by a scalar loop that counts them and leaves them out of the
 * moments. The sweeps use SSE2 where the compiler has it (all x86-64).
 *
 * Large stored runs are cut into one chunk per thread (pthreads); the
 * per-thread results are merged in chunk order, so the result depends only
 * on the thread count, never on timing.
 */
#include "../core/lazylib.h"
#include "values.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Size of the first version of ts_stats_options: the smallest struct_size
 * accepted. It never changes when fields are appended. */
#define OPTIONS_V1_SIZE (offsetof(ts_stats_options, progress_ctx) + sizeof(void *))

/* Runs below this many bytes are not worth a thread. */
#define THREAD_MIN_BYTES (4 << 20)
/* Bytes between progress reports. */
#define PROGRESS_BYTES (16 << 20)

typedef struct acc {
    int64_t n, nf;            /* elements, finite elements */
    double K;                 /* pivot: moments are kept about it (set with
                                 the first finite values) */
    double s1, s1c;           /* sum of (x - K) over finite x + Neumaier
                                 compensation */
    double m2, m2c;           /* sum of squared deviations + Kahan compensation */
    double min, max;          /* over non-NaN values */
    int64_t zeros, nan, posinf, neginf;
    int64_t imin, imax;       /* exact integer bounds (INT) */
    uint64_t umin, umax;      /* (UINT, BOOL) */
#ifdef __SIZEOF_INT128__
    __int128 isum;            /* exact sums of INT / UINT values, so the */
    unsigned __int128 usum;   /* mean of int64 data near 2^63 is exact */
#endif
} acc;

static void acc_init(acc *A)
{
    memset(A, 0, sizeof *A);
    A->min = INFINITY;
    A->max = -INFINITY;
    A->imin = INT64_MAX;
    A->imax = INT64_MIN;
    A->umin = UINT64_MAX;
    A->umax = 0;
}

static void add_sum(acc *A, double v)
{
    double t = A->s1 + v;
    if (fabs(A->s1) >= fabs(v))
        A->s1c += (A->s1 - t) + v;
    else
        A->s1c += (v - t) + A->s1;
    A->s1 = t;
}

static void add_m2(acc *A, double v)
{
    double y = v - A->m2c;
    double t = A->m2 + y;
    A->m2c = (t - A->m2) - y;
    A->m2 = t;
}

/*
 * Merges nb finite values whose sum of (x - Kb) is s1b and sum of squared
 * deviations from their mean m2b. Means are compared in shifted form, so
 * data far from zero (1e9 +- 1) keeps its digits: delta is (Kb - K) plus
 * the difference of two small shifted means.
 */
static void merge_moments(acc *A, int64_t nb, double Kb, double s1b, double m2b)
{
    if (nb == 0)
        return;
    if (A->nf == 0) {
        A->nf = nb;
        A->K = Kb;
        A->s1 = s1b;
        A->s1c = 0;
        A->m2 = m2b;
        A->m2c = 0;
        return;
    }
    double na = (double)A->nf, nbd = (double)nb, dk = Kb - A->K;
    double delta = dk + (s1b / nbd - (A->s1 + A->s1c) / na);
    add_m2(A, m2b + delta * delta * (na * nbd / (na + nbd)));
    add_sum(A, s1b + nbd * dk);
    A->nf += nb;
}

static void merge_acc(acc *A, const acc *B)
{
    merge_moments(A, B->nf, B->K, B->s1 + B->s1c, B->m2 + B->m2c);
    A->n += B->n;
    A->min = B->min < A->min ? B->min : A->min;
    A->max = B->max > A->max ? B->max : A->max;
    A->zeros += B->zeros;
    A->nan += B->nan;
    A->posinf += B->posinf;
    A->neginf += B->neginf;
    A->imin = B->imin < A->imin ? B->imin : A->imin;
    A->imax = B->imax > A->imax ? B->imax : A->imax;
    A->umin = B->umin < A->umin ? B->umin : A->umin;
    A->umax = B->umax > A->umax ? B->umax : A->umax;
#ifdef __SIZEOF_INT128__
    A->isum += B->isum;
    A->usum += B->usum;
#endif
}

/* ---- the block kernel ------------------------------------------------------ */

/* First sweep: sum, min, max (NaN ignored), zeros, NaN-or-Inf count. */
static void sweep1(const double *x, size_t n, double K, double *sum, double *mn, double *mx,
                   int64_t *zeros, int64_t *nonfinite)
{
    size_t i = 0;
    double s = 0, lo = INFINITY, hi = -INFINITY;
    int64_t z = 0, nf = 0;
#if defined(__SSE2__)
    const __m128d one = _mm_set1_pd(1.0), zero = _mm_setzero_pd(), inf = _mm_set1_pd(INFINITY);
    const __m128d absm = _mm_castsi128_pd(_mm_set1_epi64x(INT64_MAX));
    const __m128d k = _mm_set1_pd(K);
    __m128d vlo = inf, vhi = _mm_set1_pd(-INFINITY), s0 = zero, s1 = zero;
    __m128d cz = zero, cn = zero;
    for (; i + 4 <= n; i += 4) {
        __m128d a = _mm_loadu_pd(x + i), b = _mm_loadu_pd(x + i + 2);
        vlo = _mm_min_pd(a, vlo);   /* NaN in a keeps vlo */
        vlo = _mm_min_pd(b, vlo);
        vhi = _mm_max_pd(a, vhi);
        vhi = _mm_max_pd(b, vhi);
        s0 = _mm_add_pd(s0, _mm_sub_pd(a, k));
        s1 = _mm_add_pd(s1, _mm_sub_pd(b, k));
        cz = _mm_add_pd(cz, _mm_and_pd(_mm_cmpeq_pd(a, zero), one));
        cz = _mm_add_pd(cz, _mm_and_pd(_mm_cmpeq_pd(b, zero), one));
        cn = _mm_add_pd(cn, _mm_and_pd(_mm_cmpnlt_pd(_mm_and_pd(a, absm), inf), one));
        cn = _mm_add_pd(cn, _mm_and_pd(_mm_cmpnlt_pd(_mm_and_pd(b, absm), inf), one));
    }
    double t[2];
    _mm_storeu_pd(t, _mm_add_pd(s0, s1));
    s = t[0] + t[1];
    _mm_storeu_pd(t, vlo);
    lo = t[0] < t[1] ? t[0] : t[1];
    _mm_storeu_pd(t, vhi);
    hi = t[0] > t[1] ? t[0] : t[1];
    _mm_storeu_pd(t, cz);
    z = (int64_t)(t[0] + t[1]);
    _mm_storeu_pd(t, cn);
    nf = (int64_t)(t[0] + t[1]);
#endif
    double s2 = 0, s3 = 0;
    for (; i < n; i++) {
        double v = x[i];
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
        if (i & 1)
            s3 += v - K;
        else
            s2 += v - K;
        z += v == 0;
        nf += !(fabs(v) < INFINITY);
    }
    *sum = s + (s2 + s3);
    *mn = lo;
    *mx = hi;
    *zeros = z;
    *nonfinite = nf;
}

/* Second sweep: sum of ((x - K) - m)^2, m the shifted mean. */
static double sweep2(const double *x, size_t n, double K, double mean)
{
    size_t i = 0;
    double s = 0;
#if defined(__SSE2__)
    const __m128d m = _mm_set1_pd(mean), k = _mm_set1_pd(K);
    __m128d s0 = _mm_setzero_pd(), s1 = _mm_setzero_pd();
    for (; i + 4 <= n; i += 4) {
        __m128d a = _mm_sub_pd(_mm_sub_pd(_mm_loadu_pd(x + i), k), m);
        __m128d b = _mm_sub_pd(_mm_sub_pd(_mm_loadu_pd(x + i + 2), k), m);
        s0 = _mm_add_pd(s0, _mm_mul_pd(a, a));
        s1 = _mm_add_pd(s1, _mm_mul_pd(b, b));
    }
    double t[2];
    _mm_storeu_pd(t, _mm_add_pd(s0, s1));
    s = t[0] + t[1];
#endif
    for (; i < n; i++) {
        double v = (x[i] - K) - mean;
        s += v * v;
    }
    return s;
}

/* The pivot for a block: the accumulator's, or the block's first finite
 * value. */
static double pivot(const acc *A, const double *x, size_t n)
{
    if (A->nf > 0)
        return A->K;
    for (size_t i = 0; i < n; i++)
        if (fabs(x[i]) < INFINITY)
            return x[i];
    return 0;
}

static void block_stats(acc *A, const double *x, size_t n)
{
    double sum, mn, mx, K = pivot(A, x, n);
    int64_t zeros, nonfinite;
    sweep1(x, n, K, &sum, &mn, &mx, &zeros, &nonfinite);
    A->n += (int64_t)n;
    A->zeros += zeros;
    A->min = mn < A->min ? mn : A->min;
    A->max = mx > A->max ? mx : A->max;
    if (nonfinite == 0) {
        merge_moments(A, (int64_t)n, K, sum, sweep2(x, n, K, sum / (double)n));
        return;
    }
    /* Rare: count NaN and Inf, and take the moments of the rest. */
    int64_t nf = 0;
    double s = 0;
    for (size_t i = 0; i < n; i++) {
        double v = x[i];
        if (v != v) {
            A->nan++;
        } else if (v == INFINITY) {
            A->posinf++;
        } else if (v == -INFINITY) {
            A->neginf++;
        } else {
            s += v - K;
            nf++;
        }
    }
    if (nf == 0)
        return;
    double mean = s / (double)nf, m2 = 0;
    for (size_t i = 0; i < n; i++)
        if (fabs(x[i]) < INFINITY) {
            double v = (x[i] - K) - mean;
            m2 += v * v;
        }
    merge_moments(A, nf, K, s, m2);
}

/*
 * Native float32 read in place (the common case, and the one the benchmark
 * measures): one sweep, no double buffer, values widened in registers. The
 * moments are shifted sums about a pivot K, the mean of what came before
 * (or the block's first value): S1 = sum(x - K), S2 = sum((x - K)^2), so
 * M2 = S2 - S1^2/n loses only eps * n (mean - K)^2, which Chan's merge term
 * of the same block bounds: the error stays a few eps of the total M2.
 * A NaN or Inf makes S1 or S2 non-finite (a float sum cannot overflow a
 * double); such blocks take the general path.
 */
typedef struct f32_sums {
    double s1, s2;
    float lo, hi;
    int64_t zeros;
} f32_sums;

/* p may be unaligned: elements are loaded with memcpy (or unaligned SIMD
 * loads), never through a float pointer. */
static void f32_tail(const unsigned char *p, size_t i, size_t n, double K, f32_sums *r)
{
    for (; i < n; i++) {
        float v;
        memcpy(&v, p + 4 * i, 4);
        double dv = (double)v - K;
        r->lo = v < r->lo ? v : r->lo;
        r->hi = v > r->hi ? v : r->hi;
        r->zeros += v == 0;
        r->s1 += dv;
        r->s2 += dv * dv;
    }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define TS_HAVE_AVX2_PATH 1
__attribute__((target("avx2"))) static void f32_sweep_avx2(const unsigned char *p, size_t n,
                                                            double K, f32_sums *r)
{
    const float *x = (const float *)(const void *)p;
    size_t i = 0;
    const __m256 zero = _mm256_setzero_ps();
    const __m256d k = _mm256_set1_pd(K);
    __m256 vlo = _mm256_set1_ps(INFINITY), vhi = _mm256_set1_ps(-INFINITY);
    __m256i cz = _mm256_setzero_si256();
    __m256d a0 = _mm256_setzero_pd(), a1 = a0, q0 = a0, q1 = a0;
    for (; i + 8 <= n; i += 8) {
        __m256 a = _mm256_loadu_ps(x + i);
        vlo = _mm256_min_ps(a, vlo);
        vhi = _mm256_max_ps(a, vhi);
        cz = _mm256_sub_epi32(cz, _mm256_castps_si256(_mm256_cmp_ps(a, zero, _CMP_EQ_OQ)));
        __m256d d0 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(a)), k);
        __m256d d1 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(a, 1)), k);
        a0 = _mm256_add_pd(a0, d0);
        a1 = _mm256_add_pd(a1, d1);
        q0 = _mm256_add_pd(q0, _mm256_mul_pd(d0, d0));
        q1 = _mm256_add_pd(q1, _mm256_mul_pd(d1, d1));
    }
    float t[8];
    double u[4];
    int32_t z[8];
    _mm256_storeu_ps(t, vlo);
    for (int j = 0; j < 8; j++)
        r->lo = t[j] < r->lo ? t[j] : r->lo;
    _mm256_storeu_ps(t, vhi);
    for (int j = 0; j < 8; j++)
        r->hi = t[j] > r->hi ? t[j] : r->hi;
    _mm256_storeu_si256((__m256i *)(void *)z, cz);
    for (int j = 0; j < 8; j++)
        r->zeros += z[j];
    _mm256_storeu_pd(u, _mm256_add_pd(a0, a1));
    r->s1 = (u[0] + u[1]) + (u[2] + u[3]);
    _mm256_storeu_pd(u, _mm256_add_pd(q0, q1));
    r->s2 = (u[0] + u[1]) + (u[2] + u[3]);
    f32_tail(p, i, n, K, r);
}
#endif

static void f32_sweep(const unsigned char *p, size_t n, double K, f32_sums *r)
{
    size_t i = 0;
#if defined(__SSE2__)
    const float *x = (const float *)(const void *)p;
    const __m128 zero = _mm_setzero_ps();
    const __m128d k = _mm_set1_pd(K);
    __m128 vlo = _mm_set1_ps(INFINITY), vhi = _mm_set1_ps(-INFINITY);
    __m128i cz = _mm_setzero_si128();
    __m128d a0 = _mm_setzero_pd(), a1 = a0, q0 = a0, q1 = a0;
    for (; i + 4 <= n; i += 4) {
        __m128 a = _mm_loadu_ps(x + i);
        vlo = _mm_min_ps(a, vlo);
        vhi = _mm_max_ps(a, vhi);
        cz = _mm_sub_epi32(cz, _mm_castps_si128(_mm_cmpeq_ps(a, zero)));
        __m128d d0 = _mm_sub_pd(_mm_cvtps_pd(a), k);
        __m128d d1 = _mm_sub_pd(_mm_cvtps_pd(_mm_movehl_ps(a, a)), k);
        a0 = _mm_add_pd(a0, d0);
        a1 = _mm_add_pd(a1, d1);
        q0 = _mm_add_pd(q0, _mm_mul_pd(d0, d0));
        q1 = _mm_add_pd(q1, _mm_mul_pd(d1, d1));
    }
    float t[4];
    double u[2];
    int32_t z[4];
    _mm_storeu_ps(t, vlo);
    for (int j = 0; j < 4; j++)
        r->lo = t[j] < r->lo ? t[j] : r->lo;
    _mm_storeu_ps(t, vhi);
    for (int j = 0; j < 4; j++)
        r->hi = t[j] > r->hi ? t[j] : r->hi;
    _mm_storeu_si128((__m128i *)(void *)z, cz);
    for (int j = 0; j < 4; j++)
        r->zeros += z[j];
    _mm_storeu_pd(u, _mm_add_pd(a0, a1));
    r->s1 = u[0] + u[1];
    _mm_storeu_pd(u, _mm_add_pd(q0, q1));
    r->s2 = u[0] + u[1];
#endif
    f32_tail(p, i, n, K, r);
}

static int use_avx2(void)
{
#ifdef TS_HAVE_AVX2_PATH
    return ts__cpu_has_avx2();
#else
    return 0;
#endif
}

static void block_stats_f32(acc *A, const unsigned char *p, size_t n, double *tmp)
{
    float first;
    memcpy(&first, p, 4);
    double K = A->nf > 0 ? A->K : (fabsf(first) < INFINITY ? first : 0.0);
    f32_sums r = {0, 0, INFINITY, -INFINITY, 0};
#ifdef TS_HAVE_AVX2_PATH
    if (use_avx2())
        f32_sweep_avx2(p, n, K, &r);
    else
#endif
        f32_sweep(p, n, K, &r);
    if (!(fabs(r.s1) < INFINITY && r.s2 < INFINITY)) {
        /* NaN or Inf inside: the general path counts them. */
        for (size_t k = 0; k < n; k++) {
            float v;
            memcpy(&v, p + 4 * k, 4);
            tmp[k] = v;
        }
        block_stats(A, tmp, n);
        return;
    }
    double m2 = r.s2 - r.s1 * r.s1 / (double)n;
    A->n += (int64_t)n;
    A->zeros += r.zeros;
    A->min = r.lo < A->min ? r.lo : A->min;
    A->max = r.hi > A->max ? r.hi : A->max;
    merge_moments(A, (int64_t)n, K, r.s1, m2 > 0 ? m2 : 0);
}

/* ---- feeding ---------------------------------------------------------------- */

typedef struct proc {
    const ts__data *d;
    acc acc;
    /* progress (calling thread only) */
    const ts_stats_options *opts;
    atomic_llong *done;       /* bytes done by all threads */
    int64_t total;
    int reporter;
    long long reported;       /* bytes at the last report */
    int f32;                  /* native float32: block_stats_f32 */
    int64_t n;                /* walk_view: the elements to visit */
    double x[2 * TS__VBLOCK];
    union {
        int64_t i[TS__VBLOCK];
        uint64_t u[TS__VBLOCK];
    } ib;
} proc;

static void magnitudes(double *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double re = x[2 * i], im = x[2 * i + 1];
        x[i] = re != re || im != im ? NAN : ts__hypot(re, im);
    }
}

/* The sink: n elements at p, in any order. */
static ts_status feed(void *ctx, const unsigned char *p, int64_t n, ts_error *err)
{
    proc *P = ctx;
    const ts__decoder *dec = &P->d->dec;
    (void)err;
    while (n > 0) {
        size_t k = n > TS__VBLOCK ? TS__VBLOCK : (size_t)n;
        if (P->f32) {
            block_stats_f32(&P->acc, p, k, P->x);
            goto next;
        }
        dec->to_double(p, k, P->x);
        switch (dec->kind) {
        case TS_VALUE_INT:
            dec->to_i64(p, k, P->ib.i);
            for (size_t i = 0; i < k; i++) {
                int64_t v = P->ib.i[i];
                P->acc.imin = v < P->acc.imin ? v : P->acc.imin;
                P->acc.imax = v > P->acc.imax ? v : P->acc.imax;
#ifdef __SIZEOF_INT128__
                P->acc.isum += v;
#endif
            }
            break;
        case TS_VALUE_UINT:
        case TS_VALUE_BOOL:
            dec->to_u64(p, k, P->ib.u);
            for (size_t i = 0; i < k; i++) {
                uint64_t v = P->ib.u[i];
                P->acc.umin = v < P->acc.umin ? v : P->acc.umin;
                P->acc.umax = v > P->acc.umax ? v : P->acc.umax;
#ifdef __SIZEOF_INT128__
                P->acc.usum += v;
#endif
            }
            break;
        case TS_VALUE_COMPLEX:
            magnitudes(P->x, k);
            break;
        case TS_VALUE_FLOAT:
        case TS_VALUE_NONE:
            break;
        }
        block_stats(&P->acc, P->x, k);
    next:;
        int64_t bytes = dec->block > 1 ? (int64_t)k / dec->block * dec->block_bytes
                                       : (int64_t)k * dec->elem_bytes;
        p += bytes;
        n -= (int64_t)k;
        if (P->done) {
            long long now = atomic_fetch_add(P->done, bytes) + bytes;
            if (P->reporter && P->opts && P->opts->progress &&
                now / PROGRESS_BYTES != P->reported / PROGRESS_BYTES) {
                P->reported = now;
                P->opts->progress(P->opts->progress_ctx, now, P->total);
            }
        }
    }
    return TS_OK;
}

/* ---- threads ------------------------------------------------------------------ */

typedef struct job {
    proc *P;
    int64_t first, n;
    ts_status st;
    ts_error err;
} job;

static ts_status run_job(void *arg, ts_error *err)
{
    job *J = arg;
    return ts__data_runs(J->P->d, J->first, J->n, feed, J->P, err);
}

static void *thread_main(void *arg)
{
    job *J = arg;
    J->st = ts__data_guard(J->P->d, run_job, J, &J->err);
    return NULL;
}

static ts_status walk_view(void *arg, ts_error *err)
{
    proc *P = arg;
    return ts__data_walk_view(P->d, 0, P->n, feed, P, err);
}

ts_status ts_array_stats(const ts_file *f, const ts_array *a, const ts_stats_options *opts,
                         ts_stats *out, ts_error *err)
{
    ts__ok(err);
    TS__ARG_NONNULL(err, f);
    TS__ARG_NONNULL(err, a);
    TS__ARG_NONNULL(err, out);
    ts_stats_options o = TS_STATS_OPTIONS_INIT;
    if (opts) {
        ts_status st = ts__read_struct(err, __func__, "opts", "options", opts, OPTIONS_V1_SIZE,
                                       &o, sizeof o, "TS_STATS_OPTIONS_INIT", "ts_stats_options");
        if (st)
            return st;
        if (o.nthreads < 0)
            return ts__bad_arg(err, __func__, "opts->nthreads is %d, below 0", o.nthreads);
        if (o.max_bytes < 0)
            return ts__bad_arg(err, __func__, "opts->max_bytes is %lld, below 0",
                               (long long)o.max_bytes);
    }
    opts = &o;
    ts__data d;
    ts_status st = ts__data_open(&d, f, a, err);
    if (st)
        return st;
    int capped = 0;
    int64_t n = d.count; /* the elements read: all, or the first n */
    if (opts->max_bytes > 0) {
        /* the first elements (whole blocks) that fit, at least one */
        int64_t unit = d.dec.block > 1 ? d.dec.block_bytes : d.dec.elem_bytes;
        int64_t per = d.dec.block > 1 ? d.dec.block : 1;
        int64_t units = unit > 0 ? opts->max_bytes / unit : 0;
        int64_t keep = (units > 0 ? units : 1) > INT64_MAX / per ? INT64_MAX
                                                                 : (units > 0 ? units : 1) * per;
        if (keep < d.count) {
            n = keep;
            d.implicit_zeros = 0;
            capped = 1;
        }
    }
    int64_t total = d.dec.block > 1 ? n / d.dec.block * d.dec.block_bytes
                                    : n * d.dec.elem_bytes;
    int nthreads = opts->nthreads > 0 ? opts->nthreads : ts__cpu_count(256);
    if (!d.contiguous || d.src || total < THREAD_MIN_BYTES)
        nthreads = 1;
    if ((int64_t)nthreads > n / TS__VBLOCK)
        nthreads = n / TS__VBLOCK > 1 ? (int)(n / TS__VBLOCK) : 1;
    proc *procs = malloc((size_t)nthreads * sizeof *procs);
    job *jobs = calloc((size_t)nthreads, sizeof *jobs);
    if (!procs || !jobs) {
        free(procs);
        free(jobs);
        return ts__values_fail(a, err, ts__error(err, TS_ERR_NOMEM, "out of memory"));
    }
    atomic_llong done;
    atomic_init(&done, 0);
    for (int t = 0; t < nthreads; t++) {
        procs[t].d = &d;
        acc_init(&procs[t].acc);
        procs[t].opts = opts;
        procs[t].done = &done;
        procs[t].total = total;
        procs[t].reporter = t == 0;
        procs[t].reported = 0;
        procs[t].f32 = a->dtype == TS_DTYPE_FLOAT32 && d.dec.to_double == ts__f32_native;
    }
    if (n == 0) {
        st = TS_OK;
    } else if (!d.contiguous) {
        procs[0].n = n;
        st = ts__data_guard(&d, walk_view, &procs[0], err);
    } else if (d.src || nthreads == 1) {
        st = ts__data_stream(&d, 0, n, feed, &procs[0], err);
    } else {
        /* Chunks of whole TS__VBLOCK steps; the last takes the rest. */
        int64_t per = n / nthreads / TS__VBLOCK * TS__VBLOCK;
        for (int t = 0; t < nthreads; t++) {
            jobs[t].P = &procs[t];
            jobs[t].first = per * t;
            jobs[t].n = t == nthreads - 1 ? n - per * t : per;
        }
        ts__run_jobs(thread_main, jobs, sizeof *jobs, nthreads);
        st = TS_OK;
        for (int t = 0; t < nthreads && !st; t++)
            if (jobs[t].st) {
                st = jobs[t].st;
                if (err)
                    *err = jobs[t].err;
            }
    }
    if (!st && opts->progress && total >= PROGRESS_BYTES)
        opts->progress(opts->progress_ctx, total, total);
    acc A;
    acc_init(&A);
    for (int t = 0; t < nthreads; t++)
        merge_acc(&A, &procs[t].acc);
    free(procs);
    free(jobs);
    if (st)
        return st;

    if (d.implicit_zeros > 0) {
        /* MXNet sparse: the elements not stored are zeros. */
        A.n += d.implicit_zeros;
        A.zeros += d.implicit_zeros;
        merge_moments(&A, d.implicit_zeros, 0.0, 0.0, 0.0);
        A.min = A.min < 0 ? A.min : 0;
        A.max = A.max > 0 ? A.max : 0;
        A.imin = A.imin < 0 ? A.imin : 0;
        A.imax = A.imax > 0 ? A.imax : 0;
        A.umin = 0;
    }
    memset(out, 0, sizeof *out);
    out->kind = d.dec.kind;
    out->count = capped ? n : a->size;
    out->capped = capped;
    int any = A.n - A.nan > 0;
    out->min = any ? A.min : NAN;
    out->max = any ? A.max : NAN;
    out->absmax = any ? (fabs(A.min) > fabs(A.max) ? fabs(A.min) : fabs(A.max)) : NAN;
    out->finite = A.nf;
    out->mean = A.nf ? A.K + (A.s1 + A.s1c) / (double)A.nf : NAN;
    out->std = A.nf ? sqrt((A.m2 + A.m2c) / (double)A.nf) : NAN;
    out->zeros = A.zeros;
    out->nan = A.nan;
    out->posinf = A.posinf;
    out->neginf = A.neginf;
    if (A.n > 0 && d.dec.kind == TS_VALUE_INT) {
        out->imin = A.imin;
        out->imax = A.imax;
        out->min = (double)A.imin;
        out->max = (double)A.imax;
#ifdef __SIZEOF_INT128__
        out->mean = (double)A.isum / (double)A.n;
#endif
    } else if (A.n > 0 && (d.dec.kind == TS_VALUE_UINT || d.dec.kind == TS_VALUE_BOOL)) {
        out->umin = A.umin;
        out->umax = A.umax;
        out->min = (double)A.umin;
        out->max = (double)A.umax;
#ifdef __SIZEOF_INT128__
        out->mean = (double)A.usum / (double)A.n;
#endif
    }
    if (d.dec.kind == TS_VALUE_BOOL)
        out->ntrue = A.n - A.zeros;
    return TS_OK;
}
