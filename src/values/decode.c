/*
 * decode.c - stored elements to numbers: every dtype tshape can decode,
 * in either byte order, and the GGUF block types.
 *
 * Conversions are exact: float16, bfloat16 and the float8 kinds widen to
 * double without rounding; GGUF blocks are dequantized in float32 with the
 * operations, in the order, of ggml's dequantize_row_* (ggml-quants.c),
 * each product and sum its own statement so no compiler fuses them into an
 * FMA that ggml's reference code does not do (to_float), and widened to
 * double (to_double).
 * Block layouts (ggml-common.h; all little-endian, fp16 scales):
 *   q4_0  d, qs[16]                      18 bytes / 32
 *   q4_1  d, m, qs[16]                   20 / 32
 *   q5_0  d, qh[4], qs[16]               22 / 32
 *   q5_1  d, m, qh[4], qs[16]            24 / 32
 *   q8_0  d, int8 qs[32]                 34 / 32
 *   q4_k  d, dmin, scales[12], qs[128]   144 / 256
 *   q5_k  d, dmin, scales[12], qh[32], qs[128]          176 / 256
 *   q6_k  ql[128], qh[64], int8 scales[16], d           210 / 256
 *   q8_k  float32 d, int8 qs[256], int16 bsums[16]      292 / 256
 */
#include "values.h"

#include <float.h>
#include <math.h>
#include <pthread.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* ---- scalar conversions -------------------------------------------------- */

static float half_table[65536];
static double f8_table[5][256];   /* e4m3fn, e5m2, e4m3fnuz, e5m2fnuz, e8m0fnu */
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static double half_value(unsigned h)
{
    unsigned e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY)
                                                : ldexp(m + 1024, (int)e - 25);
    return (h & 0x8000) ? -v : v;
}

/* A float8 value: ebits exponent bits, bias, and its special rules. */
static double f8_value(unsigned b, int ebits, int bias, int kind)
{
    int mbits = 7 - ebits;
    unsigned s = b >> 7, e = (b >> mbits) & ((1u << ebits) - 1), m = b & ((1u << mbits) - 1);
    if (kind == 0 && e == 15 && m == 7)
        return NAN;                          /* e4m3fn: only S.1111.111 */
    if (kind == 1 && e == 31)
        return m ? NAN : (s ? -INFINITY : INFINITY);
    if ((kind == 2 || kind == 3) && b == 0x80)
        return NAN;                          /* fnuz: the negative zero */
    double v = e == 0 ? ldexp(m, 1 - bias - mbits) : ldexp(m + (1u << mbits), (int)e - bias - mbits);
    return s ? -v : v;
}

static void init_tables(void)
{
    for (unsigned h = 0; h < 65536; h++)
        half_table[h] = (float)half_value(h);
    for (unsigned b = 0; b < 256; b++) {
        f8_table[0][b] = f8_value(b, 4, 7, 0);
        f8_table[1][b] = f8_value(b, 5, 15, 1);
        f8_table[2][b] = f8_value(b, 4, 8, 2);
        f8_table[3][b] = f8_value(b, 5, 16, 3);
        f8_table[4][b] = b == 255 ? NAN : ldexp(1.0, (int)b - 127);
    }
}

static inline float h2f(const unsigned char *p)
{
    return half_table[ts__le16(p)];
}

/* ---- plain types ---------------------------------------------------------- */

static inline uint16_t bs16(uint16_t v) { return __builtin_bswap16(v); }
static inline uint32_t bs32(uint32_t v) { return __builtin_bswap32(v); }
static inline uint64_t bs64(uint64_t v) { return __builtin_bswap64(v); }
static inline uint8_t bs8(uint8_t v) { return v; }

/* Loads an element of width W bits, native (n) or swapped (s). */
#define LOADER(W)                                                               \
    static inline uint##W##_t ld##W##n(const unsigned char *p)                  \
    {                                                                           \
        uint##W##_t v;                                                          \
        memcpy(&v, p, sizeof v);                                                \
        return v;                                                               \
    }                                                                           \
    static inline uint##W##_t ld##W##s(const unsigned char *p)                  \
    {                                                                           \
        return bs##W(ld##W##n(p));                                              \
    }
LOADER(8)
LOADER(16)
LOADER(32)
LOADER(64)

/* Integer decoders: to double and to exact int64/uint64. */
#define INT_DEC(name, T, W, sfx)                                                \
    static void name##_d##sfx(const unsigned char *s, size_t n, double *d)     \
    {                                                                           \
        for (size_t i = 0; i < n; i++)                                          \
            d[i] = (double)(T)ld##W##sfx(s + i * (W / 8));                      \
    }                                                                           \
    static void name##_i##sfx(const unsigned char *s, size_t n, int64_t *d)    \
    {                                                                           \
        for (size_t i = 0; i < n; i++)                                          \
            d[i] = (int64_t)(T)ld##W##sfx(s + i * (W / 8));                     \
    }                                                                           \
    static void name##_u##sfx(const unsigned char *s, size_t n, uint64_t *d)   \
    {                                                                           \
        for (size_t i = 0; i < n; i++)                                          \
            d[i] = (uint64_t)(T)ld##W##sfx(s + i * (W / 8));                    \
    }
#define INT_DECS(name, T, W) INT_DEC(name, T, W, n) INT_DEC(name, T, W, s)
INT_DECS(i8, int8_t, 8)
INT_DECS(i16, int16_t, 16)
INT_DECS(i32, int32_t, 32)
INT_DECS(i64, int64_t, 64)
INT_DECS(u8, uint8_t, 8)
INT_DECS(u16, uint16_t, 16)
INT_DECS(u32, uint32_t, 32)
INT_DECS(u64, uint64_t, 64)

static void bool_d(const unsigned char *s, size_t n, double *d)
{
    for (size_t i = 0; i < n; i++)
        d[i] = s[i] != 0;
}
static void bool_i(const unsigned char *s, size_t n, int64_t *d)
{
    for (size_t i = 0; i < n; i++)
        d[i] = s[i] != 0;
}
static void bool_u(const unsigned char *s, size_t n, uint64_t *d)
{
    for (size_t i = 0; i < n; i++)
        d[i] = s[i] != 0;
}

void ts__f32_native(const unsigned char *s, size_t n, double *d)
{
    size_t i = 0;
#if defined(__SSE2__)
    for (; i + 4 <= n; i += 4) {
        __m128 v = _mm_loadu_ps((const float *)(const void *)(s + 4 * i));
        _mm_storeu_pd(d + i, _mm_cvtps_pd(v));
        _mm_storeu_pd(d + i + 2, _mm_cvtps_pd(_mm_movehl_ps(v, v)));
    }
#endif
    for (; i < n; i++) {
        float v;
        memcpy(&v, s + 4 * i, 4);
        d[i] = v;
    }
}
static void f32_ds(const unsigned char *s, size_t n, double *d)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t u = ld32s(s + 4 * i);
        float v;
        memcpy(&v, &u, 4);
        d[i] = v;
    }
}
/* To float32 (to_float): the dtypes whose every value is a float32. */
static void f32_fn(const unsigned char *s, size_t n, float *d)
{
    memcpy(d, s, n * 4);
}
static void f32_fs(const unsigned char *s, size_t n, float *d)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t u = ld32s(s + 4 * i);
        memcpy(&d[i], &u, 4);
    }
}
/* Floats widened to doubles. */
static void widen(const float *t, size_t n, double *d)
{
    ts__f32_native((const unsigned char *)(const void *)t, n, d);
}
static void f64_dn(const unsigned char *s, size_t n, double *d)
{
    memcpy(d, s, n * 8);
}
static void f64_ds(const unsigned char *s, size_t n, double *d)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t u = ld64s(s + 8 * i);
        memcpy(&d[i], &u, 8);
    }
}
static void f16_dn(const unsigned char *s, size_t n, double *d)
{
    for (size_t i = 0; i < n; i++)
        d[i] = half_table[ld16n(s + 2 * i)];
}
static void f16_fn(const unsigned char *s, size_t n, float *d)
{
    for (size_t i = 0; i < n; i++)
        d[i] = half_table[ld16n(s + 2 * i)];
}
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
/* The same values by the F16C instruction, 8 at a time (every half is
 * exact in float, every float in double; a NaN stays a NaN). */
__attribute__((target("avx,f16c"))) static void f16_dn_f16c(const unsigned char *s, size_t n,
                                                            double *d)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 f = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(s + 2 * i)));
        _mm256_storeu_pd(d + i, _mm256_cvtps_pd(_mm256_castps256_ps128(f)));
        _mm256_storeu_pd(d + i + 4, _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)));
    }
    f16_dn(s + 2 * i, n - i, d + i);
}
__attribute__((target("avx,f16c"))) static void f16_fn_f16c(const unsigned char *s, size_t n,
                                                            float *d)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(d + i, _mm256_cvtph_ps(_mm_loadu_si128(
                                    (const __m128i *)(const void *)(s + 2 * i))));
    f16_fn(s + 2 * i, n - i, d + i);
}

/* f16_dn_f16c and f16_fn_f16c where the CPU has F16C (the 256 KiB table
 * is read at random otherwise: about 3x slower on large arrays). */
static void (*f16_native(void))(const unsigned char *, size_t, double *)
{
    return ts__cpu_has_f16c() ? f16_dn_f16c : f16_dn;
}
static void (*f16_native_f(void))(const unsigned char *, size_t, float *)
{
    return ts__cpu_has_f16c() ? f16_fn_f16c : f16_fn;
}
#else
static void (*f16_native(void))(const unsigned char *, size_t, double *)
{
    return f16_dn;
}
static void (*f16_native_f(void))(const unsigned char *, size_t, float *)
{
    return f16_fn;
}
#endif
static void f16_ds(const unsigned char *s, size_t n, double *d)
{
    for (size_t i = 0; i < n; i++)
        d[i] = half_table[ld16s(s + 2 * i)];
}
static void f16_fs(const unsigned char *s, size_t n, float *d)
{
    for (size_t i = 0; i < n; i++)
        d[i] = half_table[ld16s(s + 2 * i)];
}
static inline float bf16(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float v;
    memcpy(&v, &u, 4);
    return v;
}
static void bf16_dn(const unsigned char *s, size_t n, double *d)
{
    for (size_t i = 0; i < n; i++)
        d[i] = bf16(ld16n(s + 2 * i));
}
static void bf16_ds(const unsigned char *s, size_t n, double *d)
{
    for (size_t i = 0; i < n; i++)
        d[i] = bf16(ld16s(s + 2 * i));
}
static void bf16_fn(const unsigned char *s, size_t n, float *d)
{
    for (size_t i = 0; i < n; i++)
        d[i] = bf16(ld16n(s + 2 * i));
}
static void bf16_fs(const unsigned char *s, size_t n, float *d)
{
    for (size_t i = 0; i < n; i++)
        d[i] = bf16(ld16s(s + 2 * i));
}
#define F8_DEC(k)                                                               \
    static void f8_##k(const unsigned char *s, size_t n, double *d)            \
    {                                                                           \
        for (size_t i = 0; i < n; i++)                                          \
            d[i] = f8_table[k][s[i]];                                           \
    }
F8_DEC(0)
F8_DEC(1)
F8_DEC(2)
F8_DEC(3)
F8_DEC(4)

/* Complex: n elements -> 2n doubles. */
static void c64_dn(const unsigned char *s, size_t n, double *d) { ts__f32_native(s, 2 * n, d); }
static void c64_ds(const unsigned char *s, size_t n, double *d) { f32_ds(s, 2 * n, d); }
static void c128_dn(const unsigned char *s, size_t n, double *d) { f64_dn(s, 2 * n, d); }
static void c128_ds(const unsigned char *s, size_t n, double *d) { f64_ds(s, 2 * n, d); }

/*
 * float128 and complex256 are NumPy's names for the C long double of the
 * machine that wrote them, in 16 bytes ('<f16', '<c32'): x87 80-bit
 * extended precision (6 bytes of padding) on x86-64, IEEE binary128 on
 * aarch64 and others. NumPy reads the bytes as its own host's long double;
 * so does tshape, when that is one of these two 16-byte formats, and
 * rounds each value to the nearest double (beyond float64's range: +-Inf,
 * as NumPy's astype(np.float64)).
 */
#if defined(__SIZEOF_LONG_DOUBLE__) && __SIZEOF_LONG_DOUBLE__ == 16 && \
    (LDBL_MANT_DIG == 64 || LDBL_MANT_DIG == 113)
#define HAVE_LONGDOUBLE16 1
static void f128_dn(const unsigned char *s, size_t n, double *d)
{
    for (size_t i = 0; i < n; i++) {
        long double v;
        memcpy(&v, s + 16 * i, 16);
        d[i] = (double)v;
    }
}
static void f128_ds(const unsigned char *s, size_t n, double *d)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char b[16];
        for (int k = 0; k < 16; k++)
            b[k] = s[16 * i + 15 - (size_t)k];
        long double v;
        memcpy(&v, b, 16);
        d[i] = (double)v;
    }
}
/* complex256: (re, im) as two long doubles, each swapped on its own */
static void c256_dn(const unsigned char *s, size_t n, double *d) { f128_dn(s, 2 * n, d); }
static void c256_ds(const unsigned char *s, size_t n, double *d) { f128_ds(s, 2 * n, d); }
#endif

/* ---- GGUF blocks ---------------------------------------------------------- */

static void q4_0(const unsigned char *b, size_t n, float *y)
{
    for (size_t i = 0; i < n; i += 32, b += 18, y += 32) {
        const float d = h2f(b);
        const unsigned char *qs = b + 2;
        for (int j = 0; j < 16; j++) {
            const int x0 = (qs[j] & 0x0F) - 8, x1 = (qs[j] >> 4) - 8;
            const float v0 = x0 * d, v1 = x1 * d;
            y[j] = v0;
            y[j + 16] = v1;
        }
    }
}

static void q4_1(const unsigned char *b, size_t n, float *y)
{
    for (size_t i = 0; i < n; i += 32, b += 20, y += 32) {
        const float d = h2f(b), m = h2f(b + 2);
        const unsigned char *qs = b + 4;
        for (int j = 0; j < 16; j++) {
            const int x0 = qs[j] & 0x0F, x1 = qs[j] >> 4;
            const float p0 = x0 * d, p1 = x1 * d;
            const float v0 = p0 + m, v1 = p1 + m;
            y[j] = v0;
            y[j + 16] = v1;
        }
    }
}

static void q5_0(const unsigned char *b, size_t n, float *y)
{
    for (size_t i = 0; i < n; i += 32, b += 22, y += 32) {
        const float d = h2f(b);
        const uint32_t qh = ts__le32(b + 2);
        const unsigned char *qs = b + 6;
        for (int j = 0; j < 16; j++) {
            const int h0 = ((qh >> j) << 4) & 0x10, h1 = (qh >> (j + 12)) & 0x10;
            const int x0 = ((qs[j] & 0x0F) | h0) - 16, x1 = ((qs[j] >> 4) | h1) - 16;
            const float v0 = x0 * d, v1 = x1 * d;
            y[j] = v0;
            y[j + 16] = v1;
        }
    }
}

static void q5_1(const unsigned char *b, size_t n, float *y)
{
    for (size_t i = 0; i < n; i += 32, b += 24, y += 32) {
        const float d = h2f(b), m = h2f(b + 2);
        const uint32_t qh = ts__le32(b + 4);
        const unsigned char *qs = b + 8;
        for (int j = 0; j < 16; j++) {
            const int h0 = ((qh >> j) << 4) & 0x10, h1 = (qh >> (j + 12)) & 0x10;
            const int x0 = (qs[j] & 0x0F) | h0, x1 = (qs[j] >> 4) | h1;
            const float p0 = x0 * d, p1 = x1 * d;
            const float v0 = p0 + m, v1 = p1 + m;
            y[j] = v0;
            y[j + 16] = v1;
        }
    }
}

static void q8_0(const unsigned char *b, size_t n, float *y)
{
    for (size_t i = 0; i < n; i += 32, b += 34, y += 32) {
        const float d = h2f(b);
#if defined(__SSE2__)
        /* the same float products, 4 at a time: int8 sign-extended by
         * unpacking a byte with itself and shifting arithmetically */
        const __m128 vd = _mm_set1_ps(d);
        for (int h = 0; h < 2; h++) {
            __m128i q = _mm_loadu_si128((const __m128i *)(const void *)(b + 2 + 16 * h));
            __m128i w[2] = {_mm_srai_epi16(_mm_unpacklo_epi8(q, q), 8),
                            _mm_srai_epi16(_mm_unpackhi_epi8(q, q), 8)};
            for (int k = 0; k < 2; k++) {
                __m128 lo = _mm_mul_ps(
                    _mm_cvtepi32_ps(_mm_srai_epi32(_mm_unpacklo_epi16(w[k], w[k]), 16)), vd);
                __m128 hi = _mm_mul_ps(
                    _mm_cvtepi32_ps(_mm_srai_epi32(_mm_unpackhi_epi16(w[k], w[k]), 16)), vd);
                _mm_storeu_ps(y + 16 * h + 8 * k, lo);
                _mm_storeu_ps(y + 16 * h + 8 * k + 4, hi);
            }
        }
#else
        for (int j = 0; j < 32; j++) {
            const float v = (int8_t)b[2 + j] * d;
            y[j] = v;
        }
#endif
    }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* q8_0 with AVX2: the same float products (int8 to int32 to float, times
 * d, in float), 8 at a time. */
__attribute__((target("avx2"))) static void q8_0_avx2(const unsigned char *b, size_t n,
                                                      float *y)
{
    for (size_t i = 0; i < n; i += 32, b += 34, y += 32) {
        const __m256 vd = _mm256_set1_ps(h2f(b));
        for (int k = 0; k < 32; k += 8) {
            __m128i q = _mm_loadl_epi64((const __m128i *)(const void *)(b + 2 + k));
            _mm256_storeu_ps(y + k, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(q)), vd));
        }
    }
}
/* The same, widened to double 8 at a time (the double path's own kernel:
 * no pass through a float buffer). */
__attribute__((target("avx2"))) static void q8_0_avx2_d(const unsigned char *b, size_t n,
                                                        double *y)
{
    for (size_t i = 0; i < n; i += 32, b += 34, y += 32) {
        const __m256 vd = _mm256_set1_ps(h2f(b));
        for (int k = 0; k < 32; k += 8) {
            __m128i q = _mm_loadl_epi64((const __m128i *)(const void *)(b + 2 + k));
            __m256 v = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(q)), vd);
            _mm256_storeu_pd(y + k, _mm256_cvtps_pd(_mm256_castps256_ps128(v)));
            _mm256_storeu_pd(y + k + 4, _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
        }
    }
}
#endif

/* ggml get_scale_min_k4: 6-bit scale and min j of a K block's 12 bytes. */
static void scale_min_k4(int j, const unsigned char *q, int *sc, int *m)
{
    if (j < 4) {
        *sc = q[j] & 63;
        *m = q[j + 4] & 63;
    } else {
        *sc = (q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4);
        *m = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
    }
}

static void q4_k(const unsigned char *b, size_t n, float *y)
{
    for (size_t i = 0; i < n; i += 256, b += 144) {
        const float d = h2f(b), dmin = h2f(b + 2);
        const unsigned char *scales = b + 4, *q = b + 16;
        for (int j = 0, is = 0; j < 256; j += 64, is += 2, q += 32) {
            int sc, m;
            scale_min_k4(is, scales, &sc, &m);
            const float d1 = d * sc, m1 = dmin * m;
            scale_min_k4(is + 1, scales, &sc, &m);
            const float d2 = d * sc, m2 = dmin * m;
            for (int l = 0; l < 32; l++) {
                const float p = d1 * (q[l] & 0xF);
                const float v = p - m1;
                *y++ = v;
            }
            for (int l = 0; l < 32; l++) {
                const float p = d2 * (q[l] >> 4);
                const float v = p - m2;
                *y++ = v;
            }
        }
    }
}

static void q5_k(const unsigned char *b, size_t n, float *y)
{
    for (size_t i = 0; i < n; i += 256, b += 176) {
        const float d = h2f(b), dmin = h2f(b + 2);
        const unsigned char *scales = b + 4, *qh = b + 16, *ql = b + 48;
        unsigned u1 = 1, u2 = 2;
        for (int j = 0, is = 0; j < 256; j += 64, is += 2, ql += 32, u1 <<= 2, u2 <<= 2) {
            int sc, m;
            scale_min_k4(is, scales, &sc, &m);
            const float d1 = d * sc, m1 = dmin * m;
            scale_min_k4(is + 1, scales, &sc, &m);
            const float d2 = d * sc, m2 = dmin * m;
            for (int l = 0; l < 32; l++) {
                const float p = d1 * ((ql[l] & 0xF) + (qh[l] & u1 ? 16 : 0));
                const float v = p - m1;
                *y++ = v;
            }
            for (int l = 0; l < 32; l++) {
                const float p = d2 * ((ql[l] >> 4) + (qh[l] & u2 ? 16 : 0));
                const float v = p - m2;
                *y++ = v;
            }
        }
    }
}

static void q6_k(const unsigned char *b, size_t n, float *y)
{
    for (size_t i = 0; i < n; i += 256, b += 210) {
        const float d = h2f(b + 208);
        const unsigned char *ql = b, *qh = b + 128;
        const int8_t *sc = (const int8_t *)(const void *)(b + 192);
        for (int k = 0; k < 256; k += 128, y += 128, ql += 64, qh += 32, sc += 8) {
            for (int l = 0; l < 32; l++) {
                const int is = l / 16;
                const int q1 = (int8_t)((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
                const int q2 = (int8_t)((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
                const int q3 = (int8_t)((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
                const int q4 = (int8_t)((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
                const float s1 = d * sc[is], s2 = d * sc[is + 2];
                const float s3 = d * sc[is + 4], s4 = d * sc[is + 6];
                const float v1 = s1 * q1, v2 = s2 * q2, v3 = s3 * q3, v4 = s4 * q4;
                y[l] = v1;
                y[l + 32] = v2;
                y[l + 64] = v3;
                y[l + 96] = v4;
            }
        }
    }
}

static void q8_k(const unsigned char *b, size_t n, float *y)
{
    for (size_t i = 0; i < n; i += 256, b += 292) {
        uint32_t u = ts__le32(b);
        float d;
        memcpy(&d, &u, 4);
        for (int j = 0; j < 256; j++) {
            const float v = d * (int8_t)b[4 + j];
            *y++ = v;
        }
    }
}

/* ggml has no dequantize_row_q8_1 (q8_1 is a dot-product operand type):
 * block_q8_1 {half d; half s; int8 qs[32]} holds qs * d, and s is d times
 * the sum of qs, so the values are d * qs, as for q8_0. */
static void q8_1(const unsigned char *b, size_t n, float *y)
{
    for (size_t i = 0; i < n; i += 32, b += 36, y += 32) {
        const float d = h2f(b);
        for (int j = 0; j < 32; j++) {
            const float v = (int8_t)b[4 + j] * d;
            y[j] = v;
        }
    }
}

/* block_q2_K {uint8 scales[16]; uint8 qs[64]; half d; half dmin}: 16
 * groups of 16, 4-bit scale and min per group, 2-bit quants. */
static void q2_k(const unsigned char *b, size_t n, float *y)
{
    for (size_t i = 0; i < n; i += 256, b += 84) {
        const float d = h2f(b + 80), dmin = h2f(b + 82);
        const unsigned char *sc = b, *q = b + 16;
        int is = 0;
        for (int k = 0; k < 256; k += 128, q += 32) {
            for (int shift = 0; shift < 8; shift += 2) {
                for (int half = 0; half < 2; half++) {
                    const int s = sc[is++];
                    const float dl = d * (s & 0xF), ml = dmin * (s >> 4);
                    for (int l = 0; l < 16; l++) {
                        const float p = dl * ((q[l + 16 * half] >> shift) & 3);
                        const float v = p - ml;
                        *y++ = v;
                    }
                }
            }
        }
    }
}

/* block_q3_K {uint8 hmask[32]; uint8 qs[64]; uint8 scales[12]; half d}:
 * 16 groups of 16, 6-bit signed scales (offset 32) packed in 12 bytes,
 * 2 low bits in qs and the high bit in hmask (set: no -4). */
static void q3_k(const unsigned char *b, size_t n, float *y)
{
    for (size_t i = 0; i < n; i += 256, b += 110) {
        const float d = h2f(b + 108);
        const unsigned char *hm = b, *q = b + 32, *raw = b + 96;
        int8_t scales[16];
        for (int j = 0; j < 16; j++) {
            /* low 4 bits: bytes 0..7 (low nibble for j < 8, high for j >= 8);
             * high 2 bits: byte 8 + j % 4, bits 2 * (j / 4) */
            const int lo = j < 8 ? raw[j] & 0xF : raw[j - 8] >> 4;
            const int hi = (raw[8 + j % 4] >> (2 * (j / 4))) & 3;
            scales[j] = (int8_t)(lo | hi << 4);
        }
        int is = 0;
        unsigned m = 1;
        for (int k = 0; k < 256; k += 128, q += 32) {
            for (int shift = 0; shift < 8; shift += 2, m <<= 1) {
                for (int half = 0; half < 2; half++) {
                    const float dl = d * (scales[is++] - 32);
                    for (int l = 0; l < 16; l++) {
                        const int x = ((q[l + 16 * half] >> shift) & 3) -
                                      ((hm[l + 16 * half] & m) ? 0 : 4);
                        const float v = dl * x;
                        *y++ = v;
                    }
                }
            }
        }
    }
}

/* block_tq1_0 {uint8 qs[48]; uint8 qh[4]; half d}: ternary digits, five
 * per qs byte and four per qh byte, in base 3 scaled to a byte: digit n of
 * q is ((uint8)(q * 3^n) * 3) >> 8, and the value is (digit - 1) * d. */
static float tq1_digit(unsigned q, unsigned pow3, float d)
{
    const unsigned char x = (unsigned char)(q * pow3);
    const int t = (int)((x * 3u) >> 8) - 1;
    const float v = (float)t * d;
    return v;
}

static void tq1_0(const unsigned char *b, size_t n, float *y)
{
    static const unsigned pow3[5] = {1, 3, 9, 27, 81};
    for (size_t i = 0; i < n; i += 256, b += 54) {
        const float d = h2f(b + 52);
        const unsigned char *qs = b, *qh = b + 48;
        for (int j = 0; j < 32; j += 32)          /* the whole 32-byte run */
            for (int k = 0; k < 5; k++)
                for (int m = 0; m < 32; m++)
                    *y++ = tq1_digit(qs[j + m], pow3[k], d);
        for (int j = 32; j < 48; j += 16)         /* the last 16 bytes */
            for (int k = 0; k < 5; k++)
                for (int m = 0; m < 16; m++)
                    *y++ = tq1_digit(qs[j + m], pow3[k], d);
        for (int k = 0; k < 4; k++)
            for (int j = 0; j < 4; j++)
                *y++ = tq1_digit(qh[j], pow3[k], d);
    }
}

/* block_tq2_0 {uint8 qs[64]; half d}: 2-bit ternary (0, 1, 2 -> -1, 0, 1). */
static void tq2_0(const unsigned char *b, size_t n, float *y)
{
    for (size_t i = 0; i < n; i += 256, b += 66) {
        const float d = h2f(b + 64);
        for (int j = 0; j < 64; j += 32)
            for (int l = 0; l < 4; l++)
                for (int m = 0; m < 32; m++) {
                    const float v = (float)(((b[j + m] >> (2 * l)) & 3) - 1) * d;
                    *y++ = v;
                }
    }
}

/* The 16 non-linear levels of IQ4_NL and IQ4_XS (ggml-common.h
 * kvalues_iq4nl). */
static const int8_t iq4nl_levels[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                        1,    13,   25,  38,  53,  69,  89,  113};

/* block_iq4_nl {half d; uint8 qs[16]}: as q4_0 with the levels above. */
static void iq4_nl(const unsigned char *b, size_t n, float *y)
{
    for (size_t i = 0; i < n; i += 32, b += 18, y += 32) {
        const float d = h2f(b);
        for (int j = 0; j < 16; j++) {
            const float v0 = d * iq4nl_levels[b[2 + j] & 0xF];
            const float v1 = d * iq4nl_levels[b[2 + j] >> 4];
            y[j] = v0;
            y[j + 16] = v1;
        }
    }
}

/* block_iq4_xs {half d; uint16 scales_h; uint8 scales_l[4]; uint8 qs[128]}:
 * 8 groups of 32 with 6-bit scales (offset 32), levels as iq4_nl. */
static void iq4_xs(const unsigned char *b, size_t n, float *y)
{
    for (size_t i = 0; i < n; i += 256, b += 136) {
        const float d = h2f(b);
        const unsigned sh = (unsigned)b[2] | (unsigned)b[3] << 8;
        const unsigned char *sl = b + 4, *qs = b + 8;
        for (int ib = 0; ib < 8; ib++, qs += 16, y += 32) {
            const int ls = ((sl[ib / 2] >> (4 * (ib % 2))) & 0xF) | (((sh >> (2 * ib)) & 3) << 4);
            const float dl = d * (ls - 32);
            for (int j = 0; j < 16; j++) {
                const float v0 = dl * iq4nl_levels[qs[j] & 0xF];
                const float v1 = dl * iq4nl_levels[qs[j] >> 4];
                y[j] = v0;
                y[j + 16] = v1;
            }
        }
    }
}

/* name_d: name's float values widened to double, up to WIDEN_ELEMS at a
 * time through a float buffer on the stack (a multiple of every block). */
#define WIDEN_ELEMS 256
#define TO_DOUBLE(name, blk, bytes)                                             \
    static void name##_d(const unsigned char *b, size_t n, double *y)          \
    {                                                                           \
        float t[WIDEN_ELEMS];                                                   \
        for (size_t i = 0; i < n; i += WIDEN_ELEMS) {                           \
            size_t m = n - i < WIDEN_ELEMS ? n - i : WIDEN_ELEMS;               \
            name(b + i / (blk) * (bytes), m, t);                                \
            widen(t, m, y + i);                                                 \
        }                                                                       \
    }
TO_DOUBLE(q4_0, 32, 18)
TO_DOUBLE(q4_1, 32, 20)
TO_DOUBLE(q5_0, 32, 22)
TO_DOUBLE(q5_1, 32, 24)
TO_DOUBLE(q8_0, 32, 34)
TO_DOUBLE(q4_k, 256, 144)
TO_DOUBLE(q5_k, 256, 176)
TO_DOUBLE(q6_k, 256, 210)
TO_DOUBLE(q8_k, 256, 292)
TO_DOUBLE(q8_1, 32, 36)
TO_DOUBLE(q2_k, 256, 84)
TO_DOUBLE(q3_k, 256, 110)
TO_DOUBLE(tq1_0, 256, 54)
TO_DOUBLE(tq2_0, 256, 66)
TO_DOUBLE(iq4_nl, 32, 18)
TO_DOUBLE(iq4_xs, 256, 136)
#undef TO_DOUBLE

typedef struct quant_row {
    const char *name;
    int64_t block, bytes;
    void (*fn)(const unsigned char *, size_t, float *);
    void (*fn_d)(const unsigned char *, size_t, double *);
} quant_row;

#define ROW(name, blk, bytes) {#name, blk, bytes, name, name##_d}
static const quant_row quants[] = {
    ROW(q4_0, 32, 18),    ROW(q4_1, 32, 20),    ROW(q5_0, 32, 22),   ROW(q5_1, 32, 24),
    ROW(q8_0, 32, 34),    ROW(q4_k, 256, 144),  ROW(q5_k, 256, 176), ROW(q6_k, 256, 210),
    ROW(q8_k, 256, 292),  ROW(q8_1, 32, 36),    ROW(q2_k, 256, 84),  ROW(q3_k, 256, 110),
    ROW(tq1_0, 256, 54),  ROW(tq2_0, 256, 66),  ROW(iq4_nl, 32, 18), ROW(iq4_xs, 256, 136),
};
#undef ROW

/* ---- the table ------------------------------------------------------------- */

static int host_little(void)
{
    const uint16_t one = 1;
    unsigned char c;
    memcpy(&c, &one, 1);
    return c == 1;
}

ts_status ts__decoder_for(const ts_array *a, ts__decoder *d, ts_error *err)
{
    pthread_once(&tables_once, init_tables);
    memset(d, 0, sizeof *d);
    int swap = (a->byteorder == '>' && host_little()) || (a->byteorder == '<' && !host_little());
    d->block = 1;
    d->elem_bytes = a->itemsize;
#define f32_dn ts__f32_native
#define PICK(fn) (swap ? fn##s : fn##n)
#define INTS(name, k)                                                           \
    do {                                                                        \
        d->kind = k;                                                            \
        d->to_double = PICK(name##_d);                                          \
        d->to_i64 = PICK(name##_i);                                             \
        d->to_u64 = PICK(name##_u);                                             \
    } while (0)
    switch (a->dtype) {
    case TS_DTYPE_BOOL:
        d->kind = TS_VALUE_BOOL;
        d->to_double = bool_d;
        d->to_i64 = bool_i;
        d->to_u64 = bool_u;
        break;
    case TS_DTYPE_INT8: INTS(i8, TS_VALUE_INT); break;
    case TS_DTYPE_INT16: INTS(i16, TS_VALUE_INT); break;
    case TS_DTYPE_INT32: INTS(i32, TS_VALUE_INT); break;
    case TS_DTYPE_INT64: INTS(i64, TS_VALUE_INT); break;
    case TS_DTYPE_UINT8: INTS(u8, TS_VALUE_UINT); break;
    case TS_DTYPE_UINT16: INTS(u16, TS_VALUE_UINT); break;
    case TS_DTYPE_UINT32: INTS(u32, TS_VALUE_UINT); break;
    case TS_DTYPE_UINT64: INTS(u64, TS_VALUE_UINT); break;
    case TS_DTYPE_FLOAT16:
        d->kind = TS_VALUE_FLOAT;
        d->to_double = swap ? f16_ds : f16_native();
        d->to_float = swap ? f16_fs : f16_native_f();
        break;
    case TS_DTYPE_BFLOAT16:
        d->kind = TS_VALUE_FLOAT;
        d->to_double = PICK(bf16_d);
        d->to_float = PICK(bf16_f);
        break;
    case TS_DTYPE_FLOAT32:
        d->kind = TS_VALUE_FLOAT;
        d->to_double = PICK(f32_d);
        d->to_float = PICK(f32_f);
        break;
    case TS_DTYPE_FLOAT64: d->kind = TS_VALUE_FLOAT; d->to_double = PICK(f64_d); break;
    case TS_DTYPE_COMPLEX64: d->kind = TS_VALUE_COMPLEX; d->to_double = PICK(c64_d); break;
    case TS_DTYPE_COMPLEX128: d->kind = TS_VALUE_COMPLEX; d->to_double = PICK(c128_d); break;
    case TS_DTYPE_FLOAT8_E4M3FN: d->kind = TS_VALUE_FLOAT; d->to_double = f8_0; break;
    case TS_DTYPE_FLOAT8_E5M2: d->kind = TS_VALUE_FLOAT; d->to_double = f8_1; break;
    case TS_DTYPE_FLOAT8_E4M3FNUZ: d->kind = TS_VALUE_FLOAT; d->to_double = f8_2; break;
    case TS_DTYPE_FLOAT8_E5M2FNUZ: d->kind = TS_VALUE_FLOAT; d->to_double = f8_3; break;
    case TS_DTYPE_FLOAT8_E8M0FNU: d->kind = TS_VALUE_FLOAT; d->to_double = f8_4; break;
    case TS_DTYPE_QUANTIZED:
        for (size_t i = 0; i < sizeof quants / sizeof *quants; i++) {
            if (!a->dtype_name || strcmp(a->dtype_name, quants[i].name) != 0)
                continue;
            if (a->block_size == quants[i].block && a->block_bytes == quants[i].bytes) {
                d->kind = TS_VALUE_FLOAT;
                d->to_float = quants[i].fn;
                d->to_double = quants[i].fn_d;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
                if (quants[i].fn == q8_0 && ts__cpu_has_avx2()) {
                    d->to_float = q8_0_avx2;
                    d->to_double = q8_0_avx2_d;
                }
#endif
                d->elem_bytes = 0;
                d->block = quants[i].block;
                d->block_bytes = quants[i].bytes;
                return TS_OK;
            }
            /* the same name in another layout (a GGML-era file's) */
            return ts__error(err, TS_ERR_DTYPE,
                             "cannot decode values of dtype %s in blocks of %lld elements in "
                             "%lld bytes: tshape decodes %s blocks as GGUF lays them out (%d "
                             "elements in %d bytes)", a->dtype_name, (long long)a->block_size,
                             (long long)a->block_bytes, a->dtype_name, (int)quants[i].block,
                             (int)quants[i].bytes);
        }
        break;
#ifdef HAVE_LONGDOUBLE16
    case TS_DTYPE_LONGDOUBLE:
        if (a->itemsize == 16) {
            d->kind = TS_VALUE_FLOAT;
            d->to_double = PICK(f128_d);
        }
        break;
    case TS_DTYPE_CLONGDOUBLE:
        if (a->itemsize == 32) {
            d->kind = TS_VALUE_COMPLEX;
            d->to_double = PICK(c256_d);
        }
        break;
#else
    case TS_DTYPE_LONGDOUBLE:
    case TS_DTYPE_CLONGDOUBLE:
#endif
    case TS_DTYPE_UNKNOWN:
    case TS_DTYPE_FLOAT6_E2M3FN:
    case TS_DTYPE_FLOAT6_E3M2FN:
    case TS_DTYPE_FLOAT4_E2M1FN:
    case TS_DTYPE_DATETIME64:
    case TS_DTYPE_TIMEDELTA64:
    case TS_DTYPE_BYTES:
    case TS_DTYPE_UNICODE:
    case TS_DTYPE_VOID:
    case TS_DTYPE_OBJECT:
    case TS_DTYPE_STRUCTURED:
    case TS_DTYPE_INT4:
    case TS_DTYPE_UINT4:
    case TS_DTYPE_INT2:
    case TS_DTYPE_UINT2:
        break;
    }
#undef INTS
#undef PICK
    if (d->kind == TS_VALUE_NONE || (d->block == 1 && d->elem_bytes <= 0))
        return ts__error(err, TS_ERR_DTYPE, "cannot decode values of dtype %s",
                         a->dtype_name ? a->dtype_name : "unknown");
    d->block_bytes = d->elem_bytes;
    return TS_OK;
}

ts_status ts__decoder_raw(const ts_array *a, ts__decoder *d, ts_error *err)
{
    memset(d, 0, sizeof *d);
    d->kind = TS_VALUE_NONE;
    d->block = 1;
    if (a->dtype == TS_DTYPE_QUANTIZED && a->block_size > 1 && a->block_bytes > 0) {
        d->block = a->block_size;
        d->block_bytes = a->block_bytes;
        return TS_OK;
    }
    if (a->dtype == TS_DTYPE_OBJECT || a->dtype == TS_DTYPE_QUANTIZED || a->itemsize <= 0 ||
        (a->bits > 0 && a->bits % 8 != 0))
        return ts__error(err, TS_ERR_DTYPE, "cannot copy elements of dtype %s as bytes",
                         a->dtype_name ? a->dtype_name : "unknown");
    d->elem_bytes = d->block_bytes = a->itemsize;
    return TS_OK;
}

ts_value_kind ts_array_value_kind(const ts_array *a)
{
    ts__decoder d;
    return a && ts__decoder_for(a, &d, NULL) == TS_OK ? d.kind : TS_VALUE_NONE;
}
