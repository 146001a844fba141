/*
 * qdiff.c - ts_array_metrics: how far an array (a quantized or converted
 * copy) is from its reference, element by element after decoding both to
 * float64 (GGUF blocks dequantized as ggml does): max |b - a|, RMSE, NMSE
 * (the error's energy over the reference's, as ollama's model diff and
 * llama.cpp's quantize-stats report it) and cosine similarity.
 *
 * The rows of b may be those of a in the order llama.cpp's converter puts
 * the query and key projections of llama models (convert_hf_to_gguf.py,
 * LlamaModel.permute: weights.reshape(H, 2, R / H / 2, C).swapaxes(1, 2)):
 * a's row h*R/H + j*R/(2H) + i is b's row h*R/H + 2i + j.
 *
 * Work: rows in chunks of about CHUNK_ELEMS elements on nthreads threads,
 * each chunk's sums kept apart and added in chunk order (results do not
 * depend on the number of threads). Arrays stored as is in C order are
 * read where they lie (ts__data_fetch) and decoded STEP_ELEMS at a time,
 * to floats where both dtypes' values are all float32 (float16, bfloat16,
 * float32, the GGUF blocks), else to doubles; any other storage through
 * ts_array_read, on one thread.
 */
#include "values.h"

#include <math.h>
#include <stdatomic.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <stdlib.h>

#define OPTIONS_V1_SIZE (offsetof(ts_metrics_options, progress_ctx) + sizeof(void *))
/* Elements per chunk: small enough that the arrays of a model split into
 * several (a llama layer's key projection of 256 x 1024 into 4), so both
 * threads finish an array together. */
#define CHUNK_ELEMS ((int64_t)1 << 16)
/* Chunks read between releases of a mapped file's pages (1 Mi elements:
 * each release is a TLB flush on every CPU). */
#define RELEASE_CHUNKS 16
/* Chunks ahead of the last release past which a stalled thread no longer
 * holds the release back. */
#define MAX_AHEAD (4 * RELEASE_CHUNKS)
/* Elements decoded and summed at a time: both sides' doubles (16 KiB) fit
 * in the L1 cache; a multiple of every block size (32, 256). */
#define STEP_ELEMS 1024
#define PROGRESS_BYTES ((int64_t)64 << 20)

typedef struct sums {
    double sq_err, sq_a, sq_b, ab, max_abs;
    int64_t n, nan;
} sums;

typedef struct side {
    const ts_file *f;
    const ts_array *a;
    ts__data d;
    int direct;              /* stored as is, C order: ts__data_fetch */
} side;

typedef struct job {
    side A, B;
    int64_t rows, cols;      /* a viewed as (rows, cols) */
    int64_t heads;           /* > 0: b's rows permuted */
    int f32;                 /* both direct, both decode to float */
    int64_t per_chunk;       /* rows per chunk */
    int64_t nchunks;
    sums *part;              /* per chunk */
    atomic_llong next;
    atomic_llong done;
    atomic_llong released;   /* chunks [0, released) released */
    struct worker *workers;  /* all of them, for the chunks in progress */
    int nworkers;
    long long reported;
    int64_t total;
    const ts_metrics_options *o;
    ts_status st;
    ts_error err;
    atomic_int failed;
} job;

typedef struct worker {
    job *J;
    atomic_llong current;    /* the chunk it works on (at most: see
                                thread_main), or INT64_MAX */
    int reporter;
    unsigned char *raw;      /* stored bytes of a run (of a) */
    unsigned char *raw_b;    /* of b, when both are read as stored */
    double *x, *y;           /* decoded a and b */
    size_t cap;              /* elements of x and y */
} worker;

static int64_t run_bytes(const ts__decoder *dec, int64_t n)
{
    return dec->block > 1 ? n / dec->block * dec->block_bytes : n * dec->elem_bytes;
}

/* Elements [first, first + n) of s in flat C order into out (n doubles). */
static ts_status read_side(worker *w, side *s, int64_t first, int64_t n, double *out,
                           ts_error *err)
{
    if (!s->direct)
        return ts_array_read(s->f, s->a, first, n, TS_DTYPE_FLOAT64, out, err);
    const unsigned char *p = ts__data_fetch(&s->d, first, n, w->raw, err);
    if (!p)
        return err ? err->code : TS_ERR_IO;
    s->d.dec.to_double(p, (size_t)n, out);
    return TS_OK;
}

/* The row of b that holds row r of a. */
static int64_t b_row(const job *J, int64_t r)
{
    if (J->heads <= 0)
        return r;
    int64_t per = J->rows / J->heads, half = per / 2;
    int64_t h = r / per, rem = r % per, j = rem / half, i = rem % half;
    return h * per + 2 * i + j;
}

/* Eight lanes of sums, kept across a chunk: lane k takes pairs 8j + k of
 * each call (independent chains the CPU overlaps: two vector registers of
 * four lanes), a call's last n % 8 pairs go to lane 0; at the chunk's end
 * the lanes are added in a fixed tree (lanes_fold). */
#define LANES 8

typedef struct lanes {
    double se[LANES], sa[LANES], sb[LANES], ab[LANES], mx[LANES];
    int64_t n, nan;
} lanes;

/*
 * The multiply-adds of the sums are fused (one rounding: IEEE 754
 * fusedMultiplyAdd) where the CPU has FMA (x86-64 since 2013, every
 * 64-bit ARM), in the vector and the portable kernels alike, so both give
 * the same bits (tests/cli/simd.test.sh); on a CPU without FMA they are a
 * multiplication and an addition, and the last bits of a sum can differ.
 */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TS__FUSED __attribute__((target("fma")))
#define TS__HAVE_FUSED 1
static int fused_cpu(void)
{
    return ts__cpu_has_fma();
}
#elif defined(__FP_FAST_FMA)
#define TS__FUSED
#define TS__HAVE_FUSED 1
static int fused_cpu(void)
{
    return 1;
}
#endif

/* Element i of a decoded step: floats (both sides' decoders have
 * to_float) or doubles; a float widens to the double to_double gives, so
 * the sums are the same either way. */
static inline double at(const void *p, size_t i, int f32)
{
    /* (a reference read where it lies may sit at any address) */
    if (f32) {
        float v;
        memcpy(&v, (const char *)p + 4 * i, 4);
        return v;
    }
    double v;
    memcpy(&v, (const char *)p + 8 * i, 8);
    return v;
}

/* A pair's NaN count and difference, the pair zeroed when it has a NaN;
 * the largest |difference| into lane k. Returns the difference. */
static inline double pair_prep(lanes *L, int k, double *a, double *b)
{
    int bad = isnan(*a) | isnan(*b);
    L->nan += bad;
    *a = bad ? 0 : *a;
    *b = bad ? 0 : *b;
    double d = *a == *b ? 0 : *b - *a; /* inf == inf: 0 */
    double ad = fabs(d);
    L->mx[k] = ad > L->mx[k] ? ad : L->mx[k];
    return d;
}

/* One pair into lane k: a pair with a NaN adds zeros and counts. */
static inline void pair_into(lanes *L, int k, double a, double b)
{
    double d = pair_prep(L, k, &a, &b);
    L->se[k] += d * d;
    L->sa[k] += a * a;
    L->sb[k] += b * b;
    L->ab[k] += a * b;
}

#ifdef TS__HAVE_FUSED
TS__FUSED static inline void pair_into_fused(lanes *L, int k, double a, double b)
{
    double d = pair_prep(L, k, &a, &b);
    L->se[k] = __builtin_fma(d, d, L->se[k]);
    L->sa[k] = __builtin_fma(a, a, L->sa[k]);
    L->sb[k] = __builtin_fma(b, b, L->sb[k]);
    L->ab[k] = __builtin_fma(a, b, L->ab[k]);
}
#endif

/* The lanes added in a fixed order (pairs of neighbours, then pairs of
 * those): the same tree whatever kernel filled them. */
static double lanes_sum(const double *v)
{
    return ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
}

/* A chunk's lanes into its sums. */
static void lanes_fold(sums *s, const lanes *L)
{
    s->sq_err = lanes_sum(L->se);
    s->sq_a = lanes_sum(L->sa);
    s->sq_b = lanes_sum(L->sb);
    s->ab = lanes_sum(L->ab);
    s->max_abs = 0;
    for (int k = 0; k < LANES; k++)
        s->max_abs = L->mx[k] > s->max_abs ? L->mx[k] : s->max_abs;
    s->nan = L->nan;
    s->n = L->n;
}

/* n pairs into the lanes, unfused (SSE2: lanes 2j, 2j + 1 in the
 * registers ending in j); f32 is a constant where it is inlined. */
static inline void accumulate_in(lanes *L, const void *x, const void *y, size_t n, int f32)
{
    size_t i = 0;
#if defined(__SSE2__)
    const __m128d sign = _mm_set1_pd(-0.0);
    __m128d se[4], sa[4], sb[4], ab[4], mx[4];
    for (int r = 0; r < 4; r++) {
        se[r] = _mm_loadu_pd(L->se + 2 * r), sa[r] = _mm_loadu_pd(L->sa + 2 * r);
        sb[r] = _mm_loadu_pd(L->sb + 2 * r), ab[r] = _mm_loadu_pd(L->ab + 2 * r);
        mx[r] = _mm_loadu_pd(L->mx + 2 * r);
    }
#define TS__LOAD2(p, j)                                                                      \
    (f32 ? _mm_cvtps_pd(_mm_castsi128_ps(                                                   \
               _mm_loadl_epi64((const __m128i *)(const void *)((const float *)(p) + (j))))) \
         : _mm_loadu_pd((const double *)(p) + (j)))
    for (; i + LANES <= n; i += LANES) {
        for (int r = 0; r < 4; r++) {
            __m128d a = TS__LOAD2(x, i + 2 * r), b = TS__LOAD2(y, i + 2 * r);
            __m128d bad = _mm_or_pd(_mm_cmpunord_pd(a, a), _mm_cmpunord_pd(b, b));
            int m = _mm_movemask_pd(bad);
            L->nan += (m & 1) + (m >> 1);
            a = _mm_andnot_pd(bad, a);
            b = _mm_andnot_pd(bad, b);
            __m128d d = _mm_andnot_pd(_mm_cmpeq_pd(a, b), _mm_sub_pd(b, a)); /* inf == inf */
            mx[r] = _mm_max_pd(mx[r], _mm_andnot_pd(sign, d));
            se[r] = _mm_add_pd(se[r], _mm_mul_pd(d, d));
            sa[r] = _mm_add_pd(sa[r], _mm_mul_pd(a, a));
            sb[r] = _mm_add_pd(sb[r], _mm_mul_pd(b, b));
            ab[r] = _mm_add_pd(ab[r], _mm_mul_pd(a, b));
        }
    }
#undef TS__LOAD2
    for (int r = 0; r < 4; r++) {
        _mm_storeu_pd(L->se + 2 * r, se[r]), _mm_storeu_pd(L->sa + 2 * r, sa[r]);
        _mm_storeu_pd(L->sb + 2 * r, sb[r]), _mm_storeu_pd(L->ab + 2 * r, ab[r]);
        _mm_storeu_pd(L->mx + 2 * r, mx[r]);
    }
#endif
    for (; i + LANES <= n; i += LANES)
        for (int k = 0; k < LANES; k++)
            pair_into(L, k, at(x, i + k, f32), at(y, i + k, f32));
    for (; i < n; i++)
        pair_into(L, 0, at(x, i, f32), at(y, i, f32));
    L->n += (int64_t)n;
}

typedef void accumulate_fn(lanes *L, const void *x, const void *y, size_t n);

static void accumulate_d(lanes *L, const void *x, const void *y, size_t n)
{
    accumulate_in(L, x, y, n, 0);
}

static void accumulate_f(lanes *L, const void *x, const void *y, size_t n)
{
    accumulate_in(L, x, y, n, 1);
}

#ifdef TS__HAVE_FUSED
/* n pairs into the lanes, fused, one at a time (the portable kernel of a
 * CPU with FMA). */
TS__FUSED static inline void accumulate_fused_in(lanes *L, const void *x, const void *y,
                                                 size_t n, int f32)
{
    size_t i = 0;
    for (; i + LANES <= n; i += LANES)
        for (int k = 0; k < LANES; k++)
            pair_into_fused(L, k, at(x, i + k, f32), at(y, i + k, f32));
    for (; i < n; i++)
        pair_into_fused(L, 0, at(x, i, f32), at(y, i, f32));
    L->n += (int64_t)n;
}

TS__FUSED static void accumulate_fused_d(lanes *L, const void *x, const void *y, size_t n)
{
    accumulate_fused_in(L, x, y, n, 0);
}

TS__FUSED static void accumulate_fused_f(lanes *L, const void *x, const void *y, size_t n)
{
    accumulate_fused_in(L, x, y, n, 1);
}
#endif

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define TS__HAVE_AVX_SUMS 1
/* accumulate_fused_in with AVX2 and FMA: the same eight lanes in two
 * registers each, so the sums are bit for bit the same. The pairs are
 * first summed without the NaN and infinity handling (for finite pairs it
 * changes nothing: no NaN to count or zero, and a == b gives b - a = 0
 * anyway); when a sum then is not finite, they are summed again from the
 * lanes as they were, with that handling. */
#define TS__AVX_TARGET target("avx2,fma,f16c")
/* Elements i..i+3 of a step: doubles (f32 0), floats (1), or float16 (2)
 * or bfloat16 (3) as stored, read where they lie with no step buffer. */
__attribute__((TS__AVX_TARGET, always_inline)) static inline __m256d
load4(const void *p, size_t i, int f32)
{
    if (f32 >= 2) {
        __m128i h = _mm_loadl_epi64((const __m128i *)(const void *)((const uint16_t *)p + i));
        return _mm256_cvtps_pd(f32 == 2 ? _mm_cvtph_ps(h)
                                        : _mm_castsi128_ps(_mm_slli_epi32(
                                              _mm_cvtepu16_epi32(h), 16)));
    }
    return f32 ? _mm256_cvtps_pd(_mm_loadu_ps((const float *)p + i))
               : _mm256_loadu_pd((const double *)p + i);
}

__attribute__((TS__AVX_TARGET, always_inline)) static inline double at_avx(const void *p,
                                                                          size_t i, int f32)
{
    if (f32 >= 2) {
        uint16_t h;
        memcpy(&h, (const uint16_t *)p + i, 2);
        if (f32 == 2)
            return (double)_cvtsh_ss(h);
        uint32_t u = (uint32_t)h << 16;
        float v;
        memcpy(&v, &u, 4);
        return v;
    }
    return at(p, i, f32);
}

__attribute__((TS__AVX_TARGET, always_inline)) static inline void
accumulate_avx_in(lanes *L, const void *x, const void *y, size_t n, int xf, int f32)
{
    const size_t end = n - n % LANES;
    const __m256d sign = _mm256_set1_pd(-0.0), zero = _mm256_setzero_pd();
    __m256d se0, sa0, sb0, ab0, mx0, se1, sa1, sb1, ab1, mx1;
    int64_t nan = 0;
#define TS__LOAD_LANES()                                                                     \
    (se0 = _mm256_loadu_pd(L->se), se1 = _mm256_loadu_pd(L->se + 4),                        \
     sa0 = _mm256_loadu_pd(L->sa), sa1 = _mm256_loadu_pd(L->sa + 4),                        \
     sb0 = _mm256_loadu_pd(L->sb), sb1 = _mm256_loadu_pd(L->sb + 4),                        \
     ab0 = _mm256_loadu_pd(L->ab), ab1 = _mm256_loadu_pd(L->ab + 4),                        \
     mx0 = _mm256_loadu_pd(L->mx), mx1 = _mm256_loadu_pd(L->mx + 4))
#define TS__SUMS(se, sa, sb, ab, mx)                                                         \
    (mx = _mm256_max_pd(mx, _mm256_andnot_pd(sign, d)), se = _mm256_fmadd_pd(d, d, se),     \
     sa = _mm256_fmadd_pd(a, a, sa), sb = _mm256_fmadd_pd(b, b, sb),                        \
     ab = _mm256_fmadd_pd(a, b, ab))
#define TS__FAST(off, se, sa, sb, ab, mx)                                                    \
    do {                                                                                    \
        __m256d a = load4(x, i + (off), xf), b = load4(y, i + (off), f32);                  \
        __m256d d = _mm256_sub_pd(b, a);                                                    \
        TS__SUMS(se, sa, sb, ab, mx);                                                       \
    } while (0)
#define TS__LANES(off, se, sa, sb, ab, mx)                                                   \
    do {                                                                                    \
        __m256d a = load4(x, i + (off), xf), b = load4(y, i + (off), f32);                  \
        __m256d bad = _mm256_or_pd(_mm256_cmp_pd(a, a, _CMP_UNORD_Q),                       \
                                   _mm256_cmp_pd(b, b, _CMP_UNORD_Q));                      \
        nan += __builtin_popcount((unsigned)_mm256_movemask_pd(bad));                       \
        a = _mm256_andnot_pd(bad, a);                                                       \
        b = _mm256_andnot_pd(bad, b);                                                       \
        __m256d d = _mm256_andnot_pd(_mm256_cmp_pd(a, b, _CMP_EQ_OQ), _mm256_sub_pd(b, a)); \
        TS__SUMS(se, sa, sb, ab, mx);                                                       \
    } while (0)
/* every lane of the four sums finite (t - t is 0, not NaN) */
#define TS__FINITE(se, sa, sb, ab)                                                           \
    (_mm256_movemask_pd(_mm256_cmp_pd(                                                      \
         _mm256_sub_pd(_mm256_add_pd(_mm256_add_pd(se, sa), _mm256_add_pd(sb, ab)),          \
                       _mm256_add_pd(_mm256_add_pd(se, sa), _mm256_add_pd(sb, ab))),         \
         zero, _CMP_EQ_OQ)) == 0xF)
    TS__LOAD_LANES();
    for (size_t i = 0; i < end; i += LANES) {
        TS__FAST(0, se0, sa0, sb0, ab0, mx0);
        TS__FAST(4, se1, sa1, sb1, ab1, mx1);
    }
    if (!TS__FINITE(se0, sa0, sb0, ab0) || !TS__FINITE(se1, sa1, sb1, ab1)) {
        TS__LOAD_LANES();
        for (size_t i = 0; i < end; i += LANES) {
            TS__LANES(0, se0, sa0, sb0, ab0, mx0);
            TS__LANES(4, se1, sa1, sb1, ab1, mx1);
        }
    }
#undef TS__LOAD_LANES
#undef TS__SUMS
#undef TS__FAST
#undef TS__LANES
#undef TS__FINITE
    _mm256_storeu_pd(L->se, se0), _mm256_storeu_pd(L->se + 4, se1);
    _mm256_storeu_pd(L->sa, sa0), _mm256_storeu_pd(L->sa + 4, sa1);
    _mm256_storeu_pd(L->sb, sb0), _mm256_storeu_pd(L->sb + 4, sb1);
    _mm256_storeu_pd(L->ab, ab0), _mm256_storeu_pd(L->ab + 4, ab1);
    _mm256_storeu_pd(L->mx, mx0), _mm256_storeu_pd(L->mx + 4, mx1);
    L->nan += nan;
    for (size_t i = end; i < n; i++)
        pair_into_fused(L, 0, at_avx(x, i, xf), at(y, i, f32));
    L->n += (int64_t)n;
}

__attribute__((TS__AVX_TARGET)) static void accumulate_avx_d(lanes *L, const void *x,
                                                            const void *y, size_t n)
{
    accumulate_avx_in(L, x, y, n, 0, 0);
}

__attribute__((TS__AVX_TARGET)) static void accumulate_avx_f(lanes *L, const void *x,
                                                            const void *y, size_t n)
{
    accumulate_avx_in(L, x, y, n, 1, 1);
}

/* x: float16 as stored, y: floats. */
__attribute__((TS__AVX_TARGET)) static void accumulate_avx_hf(lanes *L, const void *x,
                                                             const void *y, size_t n)
{
    accumulate_avx_in(L, x, y, n, 2, 1);
}

/* x: bfloat16 as stored, y: floats. */
__attribute__((TS__AVX_TARGET)) static void accumulate_avx_bf(lanes *L, const void *x,
                                                             const void *y, size_t n)
{
    accumulate_avx_in(L, x, y, n, 3, 1);
}
#endif

/* The kernel for steps of floats (f32) or doubles: AVX2 where the CPU has
 * AVX2 and FMA, else the portable one, fused where the CPU has FMA. */
static accumulate_fn *accumulator(int f32)
{
#ifdef TS__HAVE_AVX_SUMS
    if (ts__cpu_has_avx2() && ts__cpu_has_f16c() && fused_cpu())
        return f32 ? accumulate_avx_f : accumulate_avx_d;
#endif
#ifdef TS__HAVE_FUSED
    if (fused_cpu())
        return f32 ? accumulate_fused_f : accumulate_fused_d;
#endif
    return f32 ? accumulate_f : accumulate_d;
}

/* The kernel that reads a's elements where they lie, with no step buffer
 * (the AVX one, when a is float16, bfloat16 or float32, stored as is, and
 * b decodes to floats), or NULL: a reference model's weights are read once
 * instead of decoded into a buffer and read again. */
static accumulate_fn *direct_accumulator(const struct job *J)
{
#ifdef TS__HAVE_AVX_SUMS
    if (!J->f32 || accumulator(1) != accumulate_avx_f)
        return NULL;
    ts_dtype dt = J->A.a->dtype;
    return dt == TS_DTYPE_FLOAT16    ? accumulate_avx_hf
           : dt == TS_DTYPE_BFLOAT16 ? accumulate_avx_bf
           : dt == TS_DTYPE_FLOAT32  ? accumulate_avx_f
                                     : NULL;
#else
    (void)J;
    return NULL;
#endif
}

/* n elements of a side decoded into a step buffer: floats when f32. */
static void decode(const ts__decoder *dec, const unsigned char *p, int64_t n, double *out,
                   int f32)
{
    if (f32)
        dec->to_float(p, (size_t)n, (float *)(void *)out);
    else
        dec->to_double(p, (size_t)n, out);
}

typedef struct chunk_arg {
    worker *w;
    int64_t c;
} chunk_arg;

static ts_status run_chunk(void *arg, ts_error *err)
{
    chunk_arg *ca = arg;
    worker *w = ca->w;
    job *J = w->J;
    lanes L = {0};
    accumulate_fn *acc = accumulator(0), *acc_step = accumulator(J->f32);
    accumulate_fn *acc_direct = direct_accumulator(J);
    int64_t r0 = ca->c * J->per_chunk, r1 = r0 + J->per_chunk;
    if (r1 > J->rows)
        r1 = J->rows;
    ts_status st = TS_OK;
    if (J->heads <= 0 && J->A.direct && J->B.direct) {
        /* both stored as is: their bytes fetched once, then decoded and
         * summed STEP_ELEMS at a time, so the values stay in the L1 cache */
        int64_t first = r0 * J->cols, n = (r1 - r0) * J->cols;
        const unsigned char *pa = ts__data_fetch(&J->A.d, first, n, w->raw, err);
        if (!pa)
            return ts__error_index(err, err ? err->code : TS_ERR_IO, 0);
        const unsigned char *pb = ts__data_fetch(&J->B.d, first, n, w->raw_b, err);
        if (!pb)
            return ts__error_index(err, err ? err->code : TS_ERR_IO, 1);
        for (int64_t k = 0; k < n; k += STEP_ELEMS) {
            int64_t m = n - k < STEP_ELEMS ? n - k : STEP_ELEMS;
            const unsigned char *sa = pa + run_bytes(&J->A.d.dec, k);
            if (!acc_direct)
                decode(&J->A.d.dec, sa, m, w->x, J->f32);
            decode(&J->B.d.dec, pb + run_bytes(&J->B.d.dec, k), m, w->y, J->f32);
            if (acc_direct)
                acc_direct(&L, sa, w->y, (size_t)m);
            else
                acc_step(&L, w->x, w->y, (size_t)m);
        }
    } else if (J->heads <= 0) {
        int64_t first = r0 * J->cols, n = (r1 - r0) * J->cols;
        if ((st = read_side(w, &J->A, first, n, w->x, err)))
            return ts__error_index(err, st, 0);
        if ((st = read_side(w, &J->B, first, n, w->y, err)))
            return ts__error_index(err, st, 1);
        acc(&L, w->x, w->y, (size_t)n);
    } else if (J->A.direct && J->B.direct && J->cols % J->A.d.dec.block == 0 &&
               J->cols % J->B.d.dec.block == 0) {
        /* chunks of whole heads: b's rows for a's r0..r1 are rows r0..r1
         * too, in another order; both fetched once, decoded a row at a time */
        int64_t first = r0 * J->cols, n = (r1 - r0) * J->cols;
        const unsigned char *pa = ts__data_fetch(&J->A.d, first, n, w->raw, err);
        if (!pa)
            return ts__error_index(err, err ? err->code : TS_ERR_IO, 0);
        const unsigned char *pb = ts__data_fetch(&J->B.d, first, n, w->raw_b, err);
        if (!pb)
            return ts__error_index(err, err ? err->code : TS_ERR_IO, 1);
        int64_t rba = run_bytes(&J->A.d.dec, J->cols), rbb = run_bytes(&J->B.d.dec, J->cols);
        for (int64_t r = r0; r < r1; r++) {
            decode(&J->A.d.dec, pa + (r - r0) * rba, J->cols, w->x, J->f32);
            decode(&J->B.d.dec, pb + (b_row(J, r) - r0) * rbb, J->cols, w->y, J->f32);
            acc_step(&L, w->x, w->y, (size_t)J->cols);
        }
    } else {
        /* a's rows r0..r1 in one read, b's one row at a time */
        int64_t n = (r1 - r0) * J->cols;
        if ((st = read_side(w, &J->A, r0 * J->cols, n, w->x, err)))
            return ts__error_index(err, st, 0);
        for (int64_t r = r0; r < r1 && !st; r++)
            st = read_side(w, &J->B, b_row(J, r) * J->cols, J->cols,
                           w->y + (r - r0) * J->cols, err);
        if (st)
            return ts__error_index(err, st, 1);
        acc(&L, w->x, w->y, (size_t)n);
    }
    lanes_fold(&J->part[ca->c], &L);
    int64_t bytes = run_bytes(&J->A.d.dec, (r1 - r0) * J->cols) +
                    run_bytes(&J->B.d.dec, (r1 - r0) * J->cols);
    long long now = atomic_fetch_add(&J->done, bytes) + bytes;
    if (w->reporter && J->o->progress && now / PROGRESS_BYTES != J->reported / PROGRESS_BYTES) {
        J->reported = now;
        J->o->progress(J->o->progress_ctx, now, J->total);
    }
    return TS_OK;
}

/* Bytes of both maps are read under their fault guards (nested). */
static ts_status guard_b(void *arg, ts_error *err)
{
    chunk_arg *ca = arg;
    job *J = ca->w->J;
    return J->B.direct ? ts__data_guard(&J->B.d, run_chunk, ca, err) : run_chunk(ca, err);
}

/* The pages of chunks [c0, c1) of both sides leave the resident set
 * (mapped files; nothing for other sources). */
static void release_chunks(job *J, int64_t c0, int64_t c1)
{
    int64_t r0 = c0 * J->per_chunk, r1 = c1 * J->per_chunk;
    if (r1 > J->rows)
        r1 = J->rows;
    if (r1 <= r0)
        return;
    ts__data_release(&J->A.d, r0 * J->cols, (r1 - r0) * J->cols);
    ts__data_release(&J->B.d, r0 * J->cols, (r1 - r0) * J->cols);
}

/* Releases a mapped file's pages behind the threads, by windows of
 * RELEASE_CHUNKS (each release is a TLB flush on every CPU the process
 * runs on): up to the lowest chunk a thread still works on, or, when a
 * thread has stalled (a loaded machine), up to MAX_AHEAD chunks behind the
 * next one anyway, so the resident pages stay bounded. A thread whose
 * chunk a release passed maps the pages it reads again: it releases them
 * itself when it is done (thread_main). */
static void release_done(job *J)
{
    long long next = atomic_load(&J->next), low = next;
    for (int t = 0; t < J->nworkers; t++) {
        long long c = atomic_load(&J->workers[t].current);
        low = c < low ? c : low;
    }
    if (low < next - MAX_AHEAD)
        low = next - MAX_AHEAD;
    long long old = atomic_load(&J->released);
    if (low - old >= RELEASE_CHUNKS && atomic_compare_exchange_strong(&J->released, &old, low))
        release_chunks(J, old, low);
}

static void *thread_main(void *arg)
{
    worker *w = arg;
    job *J = w->J;
    for (;;) {
        /* what it will take is at least what `next` says now: others
         * never count its chunk done while it takes it */
        atomic_store(&w->current, atomic_load(&J->next));
        int64_t c = atomic_fetch_add(&J->next, 1);
        atomic_store(&w->current, c);
        if (c >= J->nchunks || atomic_load(&J->failed)) {
            atomic_store(&w->current, INT64_MAX);
            return NULL;
        }
        ts_error e;
        chunk_arg ca = {w, c};
        ts_status st = J->A.direct ? ts__data_guard(&J->A.d, guard_b, &ca, &e)
                                   : guard_b(&ca, &e);
        atomic_store(&w->current, INT64_MAX);
        if (!st && c < atomic_load(&J->released))
            release_chunks(J, c, c + 1); /* passed by a release meanwhile */
        if (!st)
            release_done(J);
        if (st) {
            int expected = 0;
            if (atomic_compare_exchange_strong(&J->failed, &expected, 1)) {
                J->st = st;
                J->err = e;
            }
            return NULL;
        }
    }
}

static int direct(const ts__data *d, const ts_array *a)
{
    static const uint16_t one = 1;
    int little = *(const unsigned char *)&one == 1;
    int native = a->itemsize <= 1 || a->byteorder == '<' || a->byteorder == '|' ||
                 (a->byteorder == '=' && little) || d->dec.block > 1;
    return !d->src && d->c_order && d->contiguous && native && d->implicit_zeros == 0 &&
           little;
}

ts_status ts_array_metrics(const ts_file *fa, const ts_array *a, const ts_file *fb,
                           const ts_array *b, const ts_metrics_options *opts, ts_metrics *out,
                           ts_error *err)
{
    static const char fn[] = "ts_array_metrics";
    TS__ARG_NONNULL(err, fa);
    TS__ARG_NONNULL(err, a);
    TS__ARG_NONNULL(err, fb);
    TS__ARG_NONNULL(err, b);
    TS__ARG_NONNULL(err, out);
    ts_metrics_options o = TS_METRICS_OPTIONS_INIT;
    if (opts) {
        ts_status st = ts__read_struct(err, fn, "opts", "options", opts, OPTIONS_V1_SIZE, &o,
                                       sizeof o, "TS_METRICS_OPTIONS_INIT", "ts_metrics_options");
        if (st)
            return st;
    }
    if (o.nthreads < 0)
        return ts__bad_arg(err, fn, "opts->nthreads is %d, below 0", o.nthreads);
    if (o.qk_heads < 0)
        return ts__bad_arg(err, fn, "opts->qk_heads is %lld, below 0", (long long)o.qk_heads);
    ts__ok(err);
    if (!ts_shape_equal(&a->shape, &b->shape)) {
        char sa[TS__SHAPE_STR_MAX], sb[TS__SHAPE_STR_MAX];
        return ts__error(err, TS_ERR_SIZE, "shapes %s and %s differ",
                         ts__shape_str(&a->shape, sa, sizeof sa),
                         ts__shape_str(&b->shape, sb, sizeof sb));
    }
    if (ts_array_value_kind(a) == TS_VALUE_COMPLEX || ts_array_value_kind(b) == TS_VALUE_COMPLEX)
        return ts__error(err, TS_ERR_DTYPE, "complex arrays have no error metrics here");
    job *J = calloc(1, sizeof *J);
    if (!J)
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    J->o = &o;
    ts_status st = ts__data_open(&J->A.d, fa, a, err);
    if (st)
        ts__error_index(err, st, 0);
    else if ((st = ts__data_open(&J->B.d, fb, b, err)))
        ts__error_index(err, st, 1);
    if (st) {
        free(J);
        return st;
    }
    J->A.f = fa, J->A.a = a, J->B.f = fb, J->B.a = b;
    J->A.direct = direct(&J->A.d, a);
    J->B.direct = direct(&J->B.d, b);
    J->f32 = J->A.direct && J->B.direct && J->A.d.dec.to_float && J->B.d.dec.to_float;
    int nd = ts_shape_ndim(&a->shape);
    const int64_t *dims = ts_shape_dims(&a->shape);
    J->cols = nd > 0 ? dims[nd - 1] : 1;
    J->rows = J->cols > 0 ? a->size / J->cols : 0;
    J->heads = o.qk_heads;
    if (J->heads > 0 && (nd < 1 || nd > 2 || J->rows % (2 * J->heads) != 0)) {
        char sa[TS__SHAPE_STR_MAX];
        free(J);
        return ts__error(err, TS_ERR_SIZE, "shape %s cannot hold %lld heads of row pairs "
                         "(the rows must be a multiple of 2 x heads)",
                         ts__shape_str(&a->shape, sa, sizeof sa), (long long)o.qk_heads);
    }
    if (nd == 2 && J->heads > 0)
        ; /* rows as they are */
    else if (J->heads > 0) { /* a bias: one element per row */
        J->cols = 1;
        J->rows = a->size;
    }
    int64_t blk = J->A.d.dec.block > J->B.d.dec.block ? J->A.d.dec.block : J->B.d.dec.block;
    if (J->heads <= 0 && J->cols % blk == 0 && J->cols > 0) {
        /* no rows permuted: the elements in flat order, as rows of one
         * block (GGUF rows are whole blocks), so that a chunk is never
         * more than CHUNK_ELEMS however long a row is */
        J->cols = blk;
        J->rows = a->size / blk;
    }
    /* rows per chunk: whole blocks of both sides */
    int64_t per = J->cols > 0 ? CHUNK_ELEMS / J->cols : 1;
    if (per < 1)
        per = 1;
    if (J->heads <= 0 && J->cols % blk != 0) {
        /* rows that split blocks: one chunk of everything */
        per = J->rows;
    } else if (J->heads > 0) {
        /* whole heads: the rows of b that a chunk of a needs are its own */
        int64_t hr = J->rows / J->heads;
        per = per < hr ? hr : per / hr * hr;
    }
    J->per_chunk = per;
    J->nchunks = J->rows > 0 ? (J->rows + per - 1) / per : 0;
    J->total = run_bytes(&J->A.d.dec, a->size) + run_bytes(&J->B.d.dec, b->size);
    int n = o.nthreads > 0 ? o.nthreads : ts__cpu_count(256);
    if (!J->A.direct || !J->B.direct)
        n = 1; /* ts_array_read of deflated or HDF5 data: one reader */
    if ((int64_t)n > J->nchunks)
        n = J->nchunks > 0 ? (int)J->nchunks : 1;
    J->part = calloc((size_t)(J->nchunks ? J->nchunks : 1), sizeof *J->part);
    worker *w = calloc((size_t)n, sizeof *w);
    size_t cap = (size_t)(per * (J->cols > 0 ? J->cols : 1));
    int64_t most = run_bytes(&J->A.d.dec, (int64_t)cap) > run_bytes(&J->B.d.dec, (int64_t)cap)
                       ? run_bytes(&J->A.d.dec, (int64_t)cap)
                       : run_bytes(&J->B.d.dec, (int64_t)cap);
    st = J->part && w ? TS_OK : ts__error(err, TS_ERR_NOMEM, "out of memory");
    for (int t = 0; !st && t < n; t++) {
        w[t].J = J;
        w[t].reporter = t == 0;
        w[t].cap = cap;
        w[t].raw = malloc((size_t)most + 64);
        w[t].raw_b = malloc((size_t)most + 64);
        w[t].x = malloc(cap * sizeof(double) + 8);
        w[t].y = malloc(cap * sizeof(double) + 8);
        if (!w[t].raw || !w[t].raw_b || !w[t].x || !w[t].y)
            st = ts__error(err, TS_ERR_NOMEM, "out of memory for %zu elements", cap);
    }
    if (!st) {
        atomic_init(&J->next, 0);
        atomic_init(&J->done, 0);
        atomic_init(&J->released, 0);
        J->workers = w;
        J->nworkers = n;
        for (int t = 0; t < n; t++)
            atomic_init(&w[t].current, INT64_MAX);
        atomic_init(&J->failed, 0);
        ts__run_jobs(thread_main, w, sizeof *w, n);
        release_chunks(J, 0, J->nchunks);
        if (atomic_load(&J->failed)) {
            st = J->st;
            if (err)
                *err = J->err;
        }
    }
    if (!st) {
        sums t;
        memset(&t, 0, sizeof t);
        for (int64_t c = 0; c < J->nchunks; c++) {
            const sums *s = &J->part[c];
            t.sq_err += s->sq_err, t.sq_a += s->sq_a, t.sq_b += s->sq_b, t.ab += s->ab;
            t.max_abs = s->max_abs > t.max_abs ? s->max_abs : t.max_abs;
            t.n += s->n, t.nan += s->nan;
        }
        memset(out, 0, sizeof *out);
        int64_t k = t.n - t.nan;
        out->count = t.n;
        out->nan = t.nan;
        out->max_abs = k > 0 ? t.max_abs : NAN;
        out->rmse = k > 0 ? sqrt(t.sq_err / (double)k) : NAN;
        out->nmse = t.sq_a > 0 ? t.sq_err / t.sq_a : t.sq_err > 0 ? INFINITY : k > 0 ? 0 : NAN;
        out->cosine = t.sq_a > 0 && t.sq_b > 0 ? t.ab / sqrt(t.sq_a * t.sq_b) : NAN;
        out->sq_err = t.sq_err;
        out->sq_ref = t.sq_a;
        if (o.progress && J->total >= PROGRESS_BYTES)
            o.progress(o.progress_ctx, J->total, J->total);
    }
    for (int t = 0; w && t < n; t++) {
        free(w[t].raw);
        free(w[t].raw_b);
        free(w[t].x);
        free(w[t].y);
    }
    free(w);
    free(J->part);
    free(J);
    return st;
}
