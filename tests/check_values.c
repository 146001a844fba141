/* check_values.c - decoding and statistics of stored values (issue 13):
 * ts_array_stats and ts_array_read on the small files of
 * tests/fixtures/values/ (tests/fixtures/gen_values.py), exact expectations;
 * GGUF dequantization bit for bit against tests/fixtures/values/quant.ref
 * (tests/fixtures/gguf_dequant_ref.py); views, errors, a file that shrinks,
 * threads and progress. */
#define TS_EXPERIMENTAL_API
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#define V "tests/fixtures/values/"

static ts_file *open_file(const char *path)
{
    ts_file *f = NULL;
    ts_error e;
    ts_status st = ts_file_open(path, NULL, &f, &e);
    ck_assert_msg(st == TS_OK, "%s: %s", path, e.message);
    return f;
}

static const ts_array *named(const ts_file *f, const char *name)
{
    for (size_t i = 0; i < ts_file_count(f); i++)
        if (strcmp(ts_file_array(f, i)->name, name) == 0)
            return ts_file_array(f, i);
    ck_abort_msg("no array '%s'", name);
    return NULL;
}

static ts_stats stats_of(const ts_file *f, const ts_array *a, int nthreads)
{
    ts_stats s;
    ts_error e;
    ts_stats_options o = TS_STATS_OPTIONS_INIT;
    o.nthreads = nthreads;
    ts_status st = ts_array_stats(f, a, &o, &s, &e);
    ck_assert_msg(st == TS_OK, "%s: %s", a->name, e.message);
    return s;
}

/* Same double, NaN equal to NaN. */
#define ck_same(x, y)                                                           \
    do {                                                                        \
        double x_ = (x), y_ = (y);                                              \
        ck_assert_msg((x_ != x_ && y_ != y_) || x_ == y_, "%s: %.17g != %.17g",  \
                      #x, x_, y_);                                              \
    } while (0)
#define ck_close(x, y)                                                          \
    do {                                                                        \
        double x_ = (x), y_ = (y);                                              \
        ck_assert_msg(fabs(x_ - y_) <= 1e-13 * fabs(y_), "%s: %.17g vs %.17g",   \
                      #x, x_, y_);                                              \
    } while (0)

static void expect_counts(const ts_stats *s, int64_t count, int64_t finite, int64_t zeros,
                          int64_t nan, int64_t posinf, int64_t neginf)
{
    ck_assert_int_eq(s->count, count);
    ck_assert_int_eq(s->finite, finite);
    ck_assert_int_eq(s->zeros, zeros);
    ck_assert_int_eq(s->nan, nan);
    ck_assert_int_eq(s->posinf, posinf);
    ck_assert_int_eq(s->neginf, neginf);
}

START_TEST(test_float32_both_orders)
{
    static const char *const files[] = {V "f4.npy", V "f4_be.npy"};
    for (int i = 0; i < 2; i++) {
        ts_file *f = open_file(files[i]);
        const ts_array *a = ts_file_array(f, 0);
        ck_assert_int_eq(ts_array_value_kind(a), TS_VALUE_FLOAT);
        ts_stats s = stats_of(f, a, 0);
        /* [1.5, -2, nan, inf, -inf, 0, -0, 3]: finite 1.5 -2 0 -0 3 */
        expect_counts(&s, 8, 5, 2, 1, 1, 1);
        ck_same(s.min, -INFINITY);
        ck_same(s.max, INFINITY);
        ck_same(s.absmax, INFINITY);
        ck_same(s.mean, 0.5);
        ck_close(s.std, sqrt(2.8));
        double v[8];
        ck_assert_int_eq(ts_array_read(f, a, 0, 8, TS_DTYPE_FLOAT64, v, NULL), TS_OK);
        ck_same(v[0], 1.5);
        ck_same(v[1], -2.0);
        ck_assert(isnan(v[2]));
        ck_same(v[3], INFINITY);
        ck_same(v[4], -INFINITY);
        ck_assert(v[6] == 0 && signbit(v[6]));
        ck_same(v[7], 3.0);
        ts_file_close(f);
    }
}
END_TEST

START_TEST(test_fortran_order)
{
    ts_file *f = open_file(V "f8_fortran.npy");
    const ts_array *a = ts_file_array(f, 0);
    double v[6];
    ck_assert_int_eq(ts_array_read(f, a, 0, 6, TS_DTYPE_FLOAT64, v, NULL), TS_OK);
    for (int i = 0; i < 6; i++)
        ck_same(v[i], i);
    ck_assert_int_eq(ts_array_read(f, a, 4, 2, TS_DTYPE_FLOAT64, v, NULL), TS_OK);
    ck_same(v[0], 4);
    ck_same(v[1], 5);
    ts_stats s = stats_of(f, a, 1);
    ck_same(s.mean, 2.5);
    ck_close(s.std, sqrt(17.5 / 6));
    ts_file_close(f);

    f = open_file(V "i2_be_fortran.npy");
    a = ts_file_array(f, 0);
    int64_t iv[6];
    ck_assert_int_eq(ts_array_read(f, a, 0, 6, TS_DTYPE_INT64, iv, NULL), TS_OK);
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(iv[i], i - 3);
    s = stats_of(f, a, 0);
    ck_assert_int_eq(s.kind, TS_VALUE_INT);
    ck_assert_int_eq(s.imin, -3);
    ck_assert_int_eq(s.imax, 2);
    ck_same(s.absmax, 3);
    ts_file_close(f);
}
END_TEST

START_TEST(test_integers_exact)
{
    ts_file *f = open_file(V "i8.npy");
    const ts_array *a = ts_file_array(f, 0);
    ts_stats s = stats_of(f, a, 0);
    ck_assert_int_eq(s.kind, TS_VALUE_INT);
    ck_assert(s.imin == INT64_MIN && s.imax == INT64_MAX);
    ck_same(s.mean, 1.0); /* exact: (-2^63 + 2^63 - 1 + 0 - 1 + 7) / 5 */
    expect_counts(&s, 5, 5, 1, 0, 0, 0);
    int64_t iv[5];
    ck_assert_int_eq(ts_array_read(f, a, 0, 5, TS_DTYPE_INT64, iv, NULL), TS_OK);
    ck_assert(iv[0] == INT64_MIN && iv[1] == INT64_MAX && iv[4] == 7);
    ts_file_close(f);

    f = open_file(V "u8_be.npy");
    a = ts_file_array(f, 0);
    s = stats_of(f, a, 0);
    ck_assert_int_eq(s.kind, TS_VALUE_UINT);
    ck_assert(s.umin == 0 && s.umax == UINT64_MAX);
    ck_same(s.mean, (18446744073709551615.0 + 5) / 3);
    uint64_t uv[3];
    ck_assert_int_eq(ts_array_read(f, a, 0, 3, TS_DTYPE_UINT64, uv, NULL), TS_OK);
    ck_assert(uv[0] == 0 && uv[1] == UINT64_MAX && uv[2] == 5);
    ts_file_close(f);

    f = open_file(V "i1_2d.npy");
    s = stats_of(f, ts_file_array(f, 0), 0);
    ck_assert(s.imin == -12 && s.imax == 11);
    ck_same(s.mean, -0.5);
    ck_close(s.std, sqrt((24.0 * 24 - 1) / 12));
    ts_file_close(f);
}
END_TEST

START_TEST(test_bool)
{
    ts_file *f = open_file(V "b1.npy");
    const ts_array *a = ts_file_array(f, 0);
    ts_stats s = stats_of(f, a, 0);
    ck_assert_int_eq(s.kind, TS_VALUE_BOOL);
    ck_assert_int_eq(s.ntrue, 3);
    ck_assert(s.umin == 0 && s.umax == 1);
    ck_same(s.mean, 0.75);
    int64_t iv[4];
    ck_assert_int_eq(ts_array_read(f, a, 0, 4, TS_DTYPE_INT64, iv, NULL), TS_OK);
    ck_assert(iv[0] == 1 && iv[1] == 0 && iv[2] == 1 && iv[3] == 1);
    ts_file_close(f);
}
END_TEST

START_TEST(test_half_and_low_precision)
{
    ts_file *f = open_file(V "f2.npy");
    const ts_array *a = ts_file_array(f, 0);
    double v[6];
    ck_assert_int_eq(ts_array_read(f, a, 0, 6, TS_DTYPE_FLOAT64, v, NULL), TS_OK);
    ck_same(v[0], 1.0);
    ck_same(v[1], ldexp(1, -24));
    ck_same(v[2], 65504.0);
    ck_same(v[3], -INFINITY);
    ck_assert(isnan(v[4]));
    ck_assert(v[5] == 0 && signbit(v[5]));
    ts_stats s = stats_of(f, a, 0);
    expect_counts(&s, 6, 4, 1, 1, 0, 1);
    ck_same(s.max, 65504.0);
    ck_same(s.mean, (65505.0 + ldexp(1, -24)) / 4);
    ts_file_close(f);

    f = open_file(V "low.safetensors");
    static const struct {
        const char *name;
        double v[5];
        int n;
    } cases[] = {
        {"bf16", {1, -2, 0.5, INFINITY}, 4},
        {"e4m3", {1, 448, -448, NAN, 0.001953125}, 5},
        {"e5m2", {1, INFINITY, -INFINITY, NAN, 0x1p-16}, 5},
        {"e4m3fnuz", {1, NAN, 0x1p-10}, 3},
        {"e5m2fnuz", {1, NAN, 0x1p-17}, 3},
        {"e8m0", {1, 0x1p-127, NAN}, 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        a = named(f, cases[i].name);
        ck_assert_int_eq(ts_array_read(f, a, 0, cases[i].n, TS_DTYPE_FLOAT64, v, NULL), TS_OK);
        for (int j = 0; j < cases[i].n; j++)
            ck_same(v[j], cases[i].v[j]);
    }
    /* float4 is not decodable: an error naming the array and its dtype. */
    ts_stats s2;
    ts_error e;
    ck_assert_int_eq(ts_array_stats(f, named(f, "f4"), NULL, &s2, &e), TS_ERR_DTYPE);
    ck_assert_str_eq(e.message, "array 'f4': cannot decode values of dtype float4_e2m1fn");
    ck_assert_int_eq(ts_array_value_kind(named(f, "f4")), TS_VALUE_NONE);
    ts_file_close(f);
}
END_TEST

START_TEST(test_complex)
{
    ts_file *f = open_file(V "c8.npy");
    const ts_array *a = ts_file_array(f, 0);
    ts_stats s = stats_of(f, a, 0);
    /* |3+4j| 5, 0, |1j| 1, nan+1j NaN, inf+0j Inf */
    ck_assert_int_eq(s.kind, TS_VALUE_COMPLEX);
    expect_counts(&s, 5, 3, 1, 1, 1, 0);
    ck_same(s.min, 0);
    ck_same(s.max, INFINITY);
    ck_same(s.mean, 2);
    double c[10];
    ck_assert_int_eq(ts_array_read(f, a, 0, 5, TS_DTYPE_COMPLEX128, c, NULL), TS_OK);
    ck_assert(c[0] == 3 && c[1] == 4 && c[4] == 0 && c[5] == 1 && isnan(c[6]));
    ts_error e;
    ck_assert_int_eq(ts_array_read(f, a, 0, 1, TS_DTYPE_FLOAT64, c, &e), TS_ERR_DTYPE);
    ck_assert_str_eq(e.message, "array '': values of dtype complex64 cannot be read as float64");
    ts_file_close(f);

    f = open_file(V "c16_be.npy");
    a = ts_file_array(f, 0);
    ck_assert_int_eq(ts_array_read(f, a, 0, 2, TS_DTYPE_COMPLEX128, c, NULL), TS_OK);
    ck_assert(c[0] == 1 && c[1] == -1 && c[2] == 2 && c[3] == 0);
    s = stats_of(f, a, 0);
    ck_same(s.min, sqrt(2.0));
    ck_same(s.max, 2);
    ts_file_close(f);
}
END_TEST

/* Issue 20 item 15: float128 and complex256 are the host's long double in
 * 16 bytes, as NumPy reads them; the fixtures were written on x86-64
 * (80-bit extended precision), so they are checked on such a host. Values
 * round to the nearest double (1e4000 to Inf). */
START_TEST(test_long_double)
{
#if defined(__SIZEOF_LONG_DOUBLE__) && __SIZEOF_LONG_DOUBLE__ == 16 && LDBL_MANT_DIG == 64
    ts_file *f = open_file(V "f128.npy");
    const ts_array *a = ts_file_array(f, 0);
    ck_assert_int_eq(ts_array_value_kind(a), TS_VALUE_FLOAT);
    double v[6];
    ck_assert_int_eq(ts_array_read(f, a, 0, 6, TS_DTYPE_FLOAT64, v, NULL), TS_OK);
    ck_assert(v[0] == 1.5 && v[1] == -2.25 && isnan(v[2]) && v[3] == -INFINITY &&
              v[4] == 1.0 / 3 && v[5] == INFINITY);
    ts_stats s = stats_of(f, a, 0);
    expect_counts(&s, 6, 3, 0, 1, 1, 1);
    ck_assert(fabs(s.mean - (1.5 - 2.25 + 1.0 / 3) / 3) < 1e-15); /* NumPy: -0.1388888888888889 */
    ts_file_close(f);
    f = open_file(V "c256_be.npy");
    a = ts_file_array(f, 0);
    ck_assert_int_eq(ts_array_value_kind(a), TS_VALUE_COMPLEX);
    double c[6];
    ck_assert_int_eq(ts_array_read(f, a, 0, 3, TS_DTYPE_COMPLEX128, c, NULL), TS_OK);
    ck_assert(c[0] == 1.5 && c[1] == 2 && c[2] == -2.25 && c[3] == -1 && c[4] == 0 &&
              isnan(c[5]));
    s = stats_of(f, a, 0);
    ck_same(s.max, 2.5);
    ck_assert_int_eq(s.nan, 1);
    ts_compare cmp;
    ck_assert_int_eq(ts_array_compare(f, a, f, a, NULL, &cmp, NULL), TS_OK);
    ck_assert_int_eq(cmp.kind, TS_VALUE_COMPLEX);
    ck_assert_int_eq(cmp.notclose, 1); /* the NaN, without equal_nan */
    ts_file_close(f);
#endif
}
END_TEST

START_TEST(test_empty_and_scalar)
{
    ts_file *f = open_file(V "empty.npy");
    ts_stats s = stats_of(f, ts_file_array(f, 0), 0);
    expect_counts(&s, 0, 0, 0, 0, 0, 0);
    ck_assert(isnan(s.min) && isnan(s.max) && isnan(s.mean) && isnan(s.std));
    ts_file_close(f);
    f = open_file(V "scalar.npy");
    s = stats_of(f, ts_file_array(f, 0), 0);
    expect_counts(&s, 1, 1, 0, 0, 0, 0);
    ck_same(s.min, -4.25);
    ck_same(s.absmax, 4.25);
    ck_same(s.std, 0);
    ts_file_close(f);
}
END_TEST

START_TEST(test_npz_deflated_and_stored)
{
    ts_file *f = open_file(V "deflated.npz");
    const ts_array *a = named(f, "a");
    ck_assert_int_eq(a->data_offset, -1);
    double v[16];
    ck_assert_int_eq(ts_array_read(f, a, 0, 12, TS_DTYPE_FLOAT64, v, NULL), TS_OK);
    for (int i = 0; i < 12; i++)
        ck_same(v[i], i / 4.0);
    ts_stats s = stats_of(f, a, 0);
    ck_same(s.mean, 1.375);
    /* Fortran order inside a deflated member */
    a = named(f, "f");
    int64_t iv[6];
    ck_assert_int_eq(ts_array_read(f, a, 0, 6, TS_DTYPE_INT64, iv, NULL), TS_OK);
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(iv[i], i);
    ck_assert_int_eq(ts_array_read(f, a, 3, 2, TS_DTYPE_INT64, iv, NULL), TS_OK);
    ck_assert(iv[0] == 3 && iv[1] == 4);
    /* 800000 bytes: several inflate buffers, elements straddling them */
    a = named(f, "big");
    for (int64_t start = 32760; start < 32780; start += 7) {
        ck_assert_int_eq(ts_array_read(f, a, start, 10, TS_DTYPE_FLOAT64, v, NULL), TS_OK);
        for (int j = 0; j < 10; j++)
            ck_same(v[j], (double)((start + j) % 1000) * 0.5 - 100);
    }
    ck_assert_int_eq(ts_array_read(f, a, 99990, 10, TS_DTYPE_FLOAT64, v, NULL), TS_OK);
    ck_same(v[9], 999 * 0.5 - 100);
    s = stats_of(f, a, 0);
    ck_same(s.min, -100);
    ck_same(s.max, 399.5);
    ck_close(s.mean, 149.75);
    ck_close(s.std, 0.5 * sqrt((1000.0 * 1000 - 1) / 12));
    ck_assert_int_eq(s.zeros, 100);
    a = named(f, "be");
    ck_assert_int_eq(ts_array_read(f, a, 0, 2, TS_DTYPE_FLOAT64, v, NULL), TS_OK);
    ck_assert(v[0] == 1 && v[1] == -1);
    ts_file_close(f);

    f = open_file(V "stored.npz");
    a = named(f, "x");
    ck_assert_int_ge(a->data_offset, 0);
    uint64_t uv[3];
    ck_assert_int_eq(ts_array_read(f, a, 0, 3, TS_DTYPE_UINT64, uv, NULL), TS_OK);
    ck_assert(uv[0] == 2 && uv[1] == 4 && uv[2] == 6);
    ts_file_close(f);
}
END_TEST

START_TEST(test_npz_corrupt_member)
{
    size_t len;
    unsigned char *data = tu_read_file(V "deflated.npz", &len);
    ck_assert_ptr_nonnull(data);
    ts_file *f0 = open_file(V "deflated.npz");
    const ts_array *big = named(f0, "big");
    (void)big;
    ts_file_close(f0);
    /* Garble the middle of the archive: inside the big member's stream. */
    for (size_t i = len / 2 - 64; i < len / 2 + 64; i++)
        data[i] ^= 0x5A;
    ts_file *f = NULL;
    ts_error e;
    ck_assert_int_eq(ts_file_open_memory(data, len, NULL, &f, &e), TS_OK);
    ts_stats s;
    ts_status st = ts_array_stats(f, named(f, "big"), NULL, &s, &e);
    ck_assert_msg(st == TS_ERR_FORMAT || st == TS_ERR_TRUNCATED, "status %d", (int)st);
    ck_assert_msg(strncmp(e.message, "array 'big': deflated member at byte ", 37) == 0, "%s",
                  e.message);
    /* the other members still read */
    double v[12];
    ck_assert_int_eq(ts_array_read(f, named(f, "a"), 0, 12, TS_DTYPE_FLOAT64, v, NULL), TS_OK);
    ts_file_close(f);
    free(data);
}
END_TEST

START_TEST(test_mxnet_sparse)
{
    ts_file *f = open_file(V "sparse.params");
    ts_stats s = stats_of(f, named(f, "rsp"), 0);
    /* (5,3) with rows 1 and 3 stored as 1..6 */
    expect_counts(&s, 15, 15, 9, 0, 0, 0);
    ck_same(s.min, 0);
    ck_same(s.max, 6);
    ck_close(s.mean, 21.0 / 15);
    ck_close(s.std, sqrt(91.0 / 15 - (21.0 / 15) * (21.0 / 15)));
    ts_error e;
    double v[1];
    ck_assert_int_eq(ts_array_read(f, named(f, "rsp"), 0, 1, TS_DTYPE_FLOAT64, v, &e),
                     TS_ERR_UNSUPPORTED);
    s = stats_of(f, named(f, "d"), 0);
    ck_same(s.mean, 1.5);
    ts_file_close(f);
}
END_TEST

/* quant.ref: "name v0 v1 ..." per tensor, from gguf_dequant_ref.py. */
/* Every tensor of `ref` (gguf_dequant_ref.py: name, then every element)
 * read from `gguf` bit for bit, a read starting inside a block, and the
 * mean of ts_array_stats; returns the number of tensors. */
static int check_dequant_ref(const char *gguf, const char *ref_path)
{
    ts_file *f = open_file(gguf);
    FILE *ref = fopen(ref_path, "r");
    ck_assert_ptr_nonnull(ref);
    static char line[1 << 16];
    int tensors = 0;
    while (fgets(line, sizeof line, ref)) {
        char *p = line, *end;
        char *sp = strchr(p, ' ');
        ck_assert_ptr_nonnull(sp);
        *sp = '\0';
        const ts_array *a = named(f, p);
        double *got = malloc((size_t)a->size * sizeof *got);
        ck_assert_int_eq(ts_array_read(f, a, 0, a->size, TS_DTYPE_FLOAT64, got, NULL), TS_OK);
        p = sp + 1;
        int64_t n = 0;
        double sum = 0;
        for (;; n++) {
            double want = strtod(p, &end);
            if (end == p)
                break;
            p = end;
            ck_assert_int_lt(n, a->size);
            ck_assert_msg(got[n] == want, "%s[%lld]: %.17g, reference %.17g", a->name,
                          (long long)n, got[n], want);
            sum += want;
        }
        ck_assert_int_eq(n, a->size);
        /* a read starting inside a block */
        double part[40];
        ck_assert_int_eq(ts_array_read(f, a, 17, 40, TS_DTYPE_FLOAT64, part, NULL), TS_OK);
        for (int j = 0; j < 40; j++)
            ck_same(part[j], got[17 + j]);
        ts_stats s = stats_of(f, a, 0);
        ck_close(s.mean, sum / (double)n);
        free(got);
        tensors++;
    }
    fclose(ref);
    ts_file_close(f);
    return tensors;
}

START_TEST(test_gguf_dequant_reference)
{
    /* q4_0 q4_1 q5_0 q5_1 q8_0 q4_k q5_k q6_k q8_k q2_k, then q8_1 q2_k
     * q3_k tq1_0 tq2_0 iq4_nl iq4_xs */
    ck_assert_int_eq(check_dequant_ref(V "quant.gguf", V "quant.ref"), 10);
    ck_assert_int_eq(check_dequant_ref(V "quant2.gguf", V "quant2.ref"), 7);
    /* the same blocks in a GGML-era ggjt v3 file (gen_ggml.py) */
    ck_assert_int_eq(check_dequant_ref("tests/fixtures/ggml/ggjt_v3.bin",
                                       "tests/fixtures/ggml/ggjt_v3.ref"), 10);
    /* a type tshape does not decode (grid tables): named, not skipped */
    ts_stats s;
    ts_error e;
    ts_file *f = open_file(V "quant2.gguf");
    ck_assert_int_eq(ts_array_stats(f, named(f, "iq2_xxs"), NULL, &s, &e), TS_ERR_DTYPE);
    ck_assert_str_eq(e.message, "array 'iq2_xxs': cannot decode values of dtype iq2_xxs");
    ts_file_close(f);
    f = open_file(V "quant.gguf");
    double v[4];
    ck_assert_int_eq(ts_array_read(f, named(f, "f16"), 0, 3, TS_DTYPE_FLOAT64, v, NULL), TS_OK);
    ck_assert(v[0] == 0.5 && v[1] == -1 && v[2] == ldexp(1, -24));
    ck_assert_int_eq(ts_array_read(f, named(f, "bf16"), 0, 2, TS_DTYPE_FLOAT64, v, NULL), TS_OK);
    ck_assert(v[0] == 1 && v[1] == -2);
    ck_assert_int_eq(ts_array_read(f, named(f, "f32"), 0, 4, TS_DTYPE_FLOAT64, v, NULL), TS_OK);
    ck_assert(v[0] == 1 && v[3] == 4);
    ts_file_close(f);
}
END_TEST

/* A view made by hand over i1_2d.npy's 24 int8 values (-12..11): strides in
 * elements, data_offset at the first element. (Views read through the
 * PyTorch reader's storage records are tested on its fixtures.) */
static void view_of(const ts_array *base, ts_array *v, const char *shape, int n,
                    const int64_t *strides, int64_t offset)
{
    *v = *base;
    ts_shape_init(&v->shape);
    ts_shape_init(&v->strides);
    tu_shape(&v->shape, shape);
    ck_assert_int_eq(ts_shape_assign(&v->strides, strides, n, NULL), TS_OK);
    ck_assert_int_eq(ts_shape_size(&v->shape, &v->size, NULL), TS_OK);
    /* as the PyTorch reader reports a view it has no storage record for:
     * data_offset at the first element */
    v->storage_offset = offset;
    v->data_offset = base->data_offset + offset * base->itemsize;
    v->storage_key = "storage";
}

START_TEST(test_views)
{
    ts_file *f = open_file(V "i1_2d.npy");
    const ts_array *base = ts_file_array(f, 0);
    ts_array v;
    int64_t iv[24];
    /* (2,3) with strides (12,2) from element 1: storage 1 3 5 13 15 17 */
    static const int64_t s1[] = {12, 2};
    view_of(base, &v, "(2,3)", 2, s1, 1);
    ck_assert_int_eq(ts_array_read(f, &v, 0, 6, TS_DTYPE_INT64, iv, NULL), TS_OK);
    static const int64_t want1[] = {-11, -9, -7, 1, 3, 5};
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(iv[i], want1[i]);
    ts_stats s = stats_of(f, &v, 0);
    ck_assert(s.imin == -11 && s.imax == 5 && s.count == 6);
    ck_same(s.mean, -3);
    ts_shape_free(&v.shape);
    ts_shape_free(&v.strides);

    /* the transpose (6,4), strides (1,6) */
    static const int64_t s2[] = {1, 6};
    view_of(base, &v, "(6,4)", 2, s2, 0);
    ck_assert_int_eq(ts_array_read(f, &v, 0, 24, TS_DTYPE_INT64, iv, NULL), TS_OK);
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 4; j++)
            ck_assert_int_eq(iv[i * 4 + j], j * 6 + i - 12);
    ck_assert_int_eq(ts_array_read(f, &v, 5, 3, TS_DTYPE_INT64, iv, NULL), TS_OK);
    ck_assert(iv[0] == 7 - 12 && iv[1] == 13 - 12 && iv[2] == 19 - 12);
    s = stats_of(f, &v, 0);
    ck_same(s.mean, -0.5);
    ts_shape_free(&v.shape);
    ts_shape_free(&v.strides);

    /* reaching past the storage: element 40 of a 24-element storage */
    static const int64_t s3[] = {20};
    view_of(base, &v, "(3,)", 1, s3, 0);
    ts_error e;
    ck_assert_int_eq(ts_array_stats(f, &v, NULL, &s, &e), TS_ERR_TRUNCATED);
    ck_assert_str_eq(e.message, "array '': the view reaches storage element 41, 41 bytes, "
                                "but the file holds 24 bytes from data offset 128");
    ts_shape_free(&v.shape);
    ts_shape_free(&v.strides);

    static const int64_t s4[] = {-1};
    view_of(base, &v, "(3,)", 1, s4, 5);
    ck_assert_int_eq(ts_array_read(f, &v, 0, 3, TS_DTYPE_INT64, iv, &e), TS_ERR_LAYOUT);
    ck_assert_str_eq(e.message, "array '': negative stride -1 on axis 0");
    ts_shape_free(&v.shape);
    ts_shape_free(&v.strides);
    ts_file_close(f);
}
END_TEST

START_TEST(test_bad_calls)
{
    ts_file *f = open_file(V "f4.npy");
    const ts_array *a = ts_file_array(f, 0);
    double v[8];
    int64_t iv[1];
    ts_error e;
    ck_assert_int_eq(ts_array_read(f, a, 7, 2, TS_DTYPE_FLOAT64, v, &e), TS_ERR_INDEX);
    ck_assert_str_eq(e.message, "array '': elements 7..9 are out of range for 8 elements");
    ck_assert_int_eq(ts_array_read(f, a, -1, 1, TS_DTYPE_FLOAT64, v, &e), TS_ERR_INDEX);
    ck_assert_int_eq(ts_array_read(f, a, 0, 1, TS_DTYPE_INT64, iv, &e), TS_ERR_DTYPE);
    ck_assert_int_eq(ts_array_read(f, a, 8, 0, TS_DTYPE_FLOAT64, v, &e), TS_OK);
    ck_assert_int_eq(ts_array_stats(NULL, a, NULL, NULL, &e), TS_ERR_INVALID_ARG);
    ts_file_close(f);
}
END_TEST

/* Writes a .npy of n float32 values i * 0.25 - 1000 to a temporary file. */
static char *write_big(size_t n)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/tshape-values-XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    char head[128];
    int k = snprintf(head, sizeof head,
                     "\x93NUMPY\x01%c%c%c{'descr': '<f4', 'fortran_order': False, "
                     "'shape': (%zu,), }", 0, 118, 0, n);
    memset(head + k, ' ', sizeof head - (size_t)k);
    head[127] = '\n';
    ck_assert_int_eq(write(fd, head, 128), 128);
    float *buf = malloc(65536 * sizeof *buf);
    for (size_t i = 0; i < n; i += 65536) {
        size_t m = n - i < 65536 ? n - i : 65536;
        for (size_t j = 0; j < m; j++)
            buf[j] = (float)(i + j) * 0.25f - 1000;
        ck_assert_int_eq(write(fd, buf, m * sizeof *buf), (ssize_t)(m * sizeof *buf));
    }
    free(buf);
    close(fd);
    return path;
}

static int progress_calls;
static int64_t progress_last;
static void on_progress(void *ctx, int64_t done, int64_t total)
{
    (void)ctx;
    ck_assert_int_le(done, total);
    ck_assert_int_ge(done, progress_last);
    progress_last = done;
    progress_calls++;
}

START_TEST(test_threads_and_progress)
{
    size_t n = 5 * 1024 * 1024 + 77; /* 20 MiB: threads and a progress report */
    char *path = write_big(n);
    ts_file *f = open_file(path);
    unlink(path);
    const ts_array *a = ts_file_array(f, 0);
    ts_stats s1 = stats_of(f, a, 1), s2 = stats_of(f, a, 2), s3 = stats_of(f, a, 3);
    double mean = ((double)(n - 1) * 0.25) / 2 - 1000;
    double sd = 0.25 * sqrt(((double)n * n - 1) / 12);
    const ts_stats *all[] = {&s1, &s2, &s3};
    for (int i = 0; i < 3; i++) {
        expect_counts(all[i], (int64_t)n, (int64_t)n, 1, 0, 0, 0);
        ck_same(all[i]->min, -1000);
        ck_same(all[i]->max, (double)(n - 1) * 0.25 - 1000);
        ck_close(all[i]->mean, mean);
        ck_close(all[i]->std, sd);
    }
    ts_stats_options o = TS_STATS_OPTIONS_INIT;
    o.nthreads = 2;
    o.progress = on_progress;
    ts_stats s;
    ck_assert_int_eq(ts_array_stats(f, a, &o, &s, NULL), TS_OK);
    ck_assert_int_ge(progress_calls, 1);
    ts_file_close(f);
}
END_TEST

/* A file that shrinks after it was opened: every value read fails with an
 * I/O error saying so, read with pread (the default: a short read) or
 * mapped (a SIGBUS caught by the guard), and convert leaves nothing. */
START_TEST(test_file_shrinks)
{
    static const ts_io_mode modes[] = {TS_IO_AUTO, TS_IO_MAP};
    static const char *const says[] = {
        "array '': the file shrank while it was being read (truncated by another "
        "program?): it ends before byte ",
        "array '': the file shrank while it was being read (truncated by another "
        "program?): a page of its mapping vanished"};
    for (int m = 0; m < 2; m++) {
        char *path = write_big(1 << 20);
        ts_open_options oo = TS_OPEN_OPTIONS_INIT;
        oo.io = modes[m];
        ts_file *f = NULL;
        ts_error e;
        ck_assert_int_eq(ts_file_open(path, &oo, &f, &e), TS_OK);
        ck_assert_int_eq(truncate(path, 4096), 0);
        unlink(path);
        const ts_array *a = ts_file_array(f, 0);
        ts_stats s;
        for (int nt = 1; nt <= 2; nt++) {
            ts_stats_options o = TS_STATS_OPTIONS_INIT;
            o.nthreads = nt;
            ck_assert_int_eq(ts_array_stats(f, a, &o, &s, &e), TS_ERR_IO);
            ck_assert_msg(strncmp(e.message, says[m], strlen(says[m])) == 0, "%s", e.message);
        }
        double v[4];
        ck_assert_int_eq(ts_array_read(f, a, 500000, 4, TS_DTYPE_FLOAT64, v, &e), TS_ERR_IO);
        ck_assert_int_eq(ts_array_read(f, a, 0, 4, TS_DTYPE_FLOAT64, v, &e), TS_OK);
        /* diff --values and convert read through the same guard */
        ts_compare c;
        ck_assert_int_eq(ts_array_compare(f, a, f, a, NULL, &c, &e), TS_ERR_IO);
        ck_assert_ptr_nonnull(strstr(e.message, "the file shrank while it was being read"));
        char out[64];
        snprintf(out, sizeof out, "/tmp/tshape-shrink-%d.safetensors", (int)getpid());
        ts_write_tensor t = {"x", f, a};
        ts_write_result r;
        ck_assert_int_eq(ts_write(out, &t, 1, NULL, &r, &e), TS_ERR_IO);
        ck_assert_ptr_nonnull(strstr(e.message, "the file shrank while it was being read"));
        ck_assert_int_eq(access(out, F_OK), -1); /* nothing left */
        ts_file_close(f);
    }
}
END_TEST

/* ONNX initializers whose values are in TensorProto's typed fields, written
 * by hand (tests/fixtures/gen_onnx_values.py): unpacked float_data, int32_data
 * in pieces around an unpacked value, 10-byte varints, uint64 2^64-1, float8
 * bits, bool from 256; every element exact, statistics through the same
 * decoder, and a field with a value missing. */
START_TEST(test_onnx_typed_fields)
{
    ts_file *f = open_file("tests/fixtures/onnx/typed_pieces.onnx");
    double v[4];
    int64_t iv[4];
    uint64_t uv[2];
    ck_assert_int_eq(ts_array_read(f, named(f, "floats"), 0, 3, TS_DTYPE_FLOAT64, v, NULL),
                     TS_OK);
    ck_assert(v[0] == 0.5 && v[1] == -1.25 && v[2] == 3.0);
    ck_assert_int_eq(ts_array_read(f, named(f, "ints"), 0, 4, TS_DTYPE_INT64, iv, NULL), TS_OK);
    ck_assert(iv[0] == -3 && iv[1] == 40000 && iv[2] == 7 && iv[3] == -70000);
    ck_assert_int_eq(ts_array_read(f, named(f, "ints"), 2, 2, TS_DTYPE_INT64, iv, NULL), TS_OK);
    ck_assert(iv[0] == 7 && iv[1] == -70000);
    ck_assert_int_eq(ts_array_read(f, named(f, "longs"), 0, 3, TS_DTYPE_INT64, iv, NULL), TS_OK);
    ck_assert(iv[0] == -1 && iv[1] == 1099511627776LL && iv[2] == INT64_MIN);
    ck_assert_int_eq(ts_array_read(f, named(f, "ulongs"), 0, 2, TS_DTYPE_UINT64, uv, NULL),
                     TS_OK);
    ck_assert(uv[0] == UINT64_MAX && uv[1] == 0);
    ck_assert_int_eq(ts_array_read(f, named(f, "doubles"), 0, 2, TS_DTYPE_FLOAT64, v, NULL),
                     TS_OK);
    ck_assert(v[0] == -2.5 && v[1] == 1e-5);
    ck_assert_int_eq(ts_array_read(f, named(f, "f8e4m3"), 0, 3, TS_DTYPE_FLOAT64, v, NULL),
                     TS_OK);
    ck_assert(v[0] == 1 && v[1] == -448 && v[2] == 0.0625);
    ck_assert_int_eq(ts_array_read(f, named(f, "f8e5m2"), 0, 3, TS_DTYPE_FLOAT64, v, NULL),
                     TS_OK);
    ck_assert(v[0] == 2 && v[1] == -57344 && v[2] == 0.5);
    ck_assert_int_eq(ts_array_read(f, named(f, "flags"), 0, 3, TS_DTYPE_INT64, iv, NULL), TS_OK);
    ck_assert(iv[0] == 1 && iv[1] == 0 && iv[2] == 1);
    ts_stats s = stats_of(f, named(f, "ints"), 0);
    ck_assert_int_eq(s.imin, -70000);
    ck_assert_int_eq(s.imax, 40000);
    ck_same(s.mean, -29996.0 / 4);
    s = stats_of(f, named(f, "flags"), 1);
    ck_assert_int_eq(s.ntrue, 2);
    ts_file_close(f);

    /* the same file with the last int32_data piece (varint -70000, 10
     * bytes) renamed to field 15: the shape needs one more value. The
     * reader counts entries, so the count check refuses it at open; the
     * decoder's own check is for data that changes after: tested by
     * reading a copy whose piece is emptied in place (length 0, the
     * bytes after it skipped as an unknown field 15). */
    size_t len;
    unsigned char *data = tu_read_file("tests/fixtures/onnx/typed_pieces.onnx", &len);
    ck_assert_ptr_nonnull(data);
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.path = "typed_pieces.onnx";
    ck_assert_int_eq(ts_file_open_memory(data, len, &o, &f, NULL), TS_OK);
    const ts_array *a = named(f, "ints");
    /* find the packed piece holding -70000: key 0x2a (field 5, LEN),
     * length 10, then the varint 0x90 0xDD 0xFB ... */
    size_t at = 0;
    for (size_t i = 0; i + 2 < len; i++)
        if (data[i] == 0x2a && data[i + 1] == 10 && data[i + 2] == 0x90)
            at = i;
    ck_assert_uint_gt(at, 0);
    data[at] = 0x7a;   /* field 15, LEN: skipped by the decoder */
    ts_error e;
    ck_assert_int_eq(ts_array_read(f, a, 0, 4, TS_DTYPE_INT64, iv, &e), TS_ERR_TRUNCATED);
    ck_assert_str_eq(e.message, "array 'ints': int32_data of the tensor at byte 41 ends after "
                                "12 bytes of values, before the 16 bytes its shape needs");
    ck_assert_int_eq(ts_array_stats(f, a, NULL, &s, &e), TS_ERR_TRUNCATED);
    ts_file_close(f);
    free(data);
}
END_TEST

/* HDF5 datasets that are not one stored run (tests/fixtures/hdf5/chunked.h5,
 * gen_hdf5_values.py), read through libhdf5 by hyperslab: partial chunks,
 * gzip + shuffle, big-endian, compact, complex, never written (fill value);
 * reads that start inside rows. Skipped without libhdf5. */
START_TEST(test_hdf5_chunked)
{
    ts_file *f = NULL;
    ts_error e;
    ts_status st = ts_file_open("tests/fixtures/hdf5/chunked.h5", NULL, &f, &e);
    if (st == TS_ERR_UNSUPPORTED) {
        fprintf(stderr, "skipped: %s\n", e.message);
        return;
    }
    ck_assert_msg(st == TS_OK, "%s", e.message);
    const ts_array *a = named(f, "gzip");
    ck_assert_int_eq(a->data_offset, -1);
    double *v = malloc(407 * sizeof *v);
    ck_assert_int_eq(ts_array_read(f, a, 0, 407, TS_DTYPE_FLOAT64, v, NULL), TS_OK);
    for (int i = 0; i < 407; i++)
        ck_same(v[i], i * 0.5 - 100);
    /* start and end inside rows of 11: hyperslabs of part rows, whole rows */
    for (int64_t start = 0; start < 60; start += 7) {
        ck_assert_int_eq(ts_array_read(f, a, start, 30, TS_DTYPE_FLOAT64, v, &e), TS_OK);
        for (int j = 0; j < 30; j++)
            ck_same(v[j], (double)(start + j) * 0.5 - 100);
    }
    free(v);
    ts_stats s = stats_of(f, a, 0);
    ck_same(s.min, -100);
    ck_same(s.max, 103);
    ck_close(s.mean, 1.5);
    int64_t iv[24];
    ck_assert_int_eq(ts_array_read(f, named(f, "be"), 0, 24, TS_DTYPE_INT64, iv, NULL), TS_OK);
    for (int i = 0; i < 24; i++)
        ck_assert_int_eq(iv[i], i);
    ck_assert_int_eq(ts_array_read(f, named(f, "be"), 5, 9, TS_DTYPE_INT64, iv, NULL), TS_OK);
    ck_assert(iv[0] == 5 && iv[8] == 13);
    ck_assert_int_eq(ts_array_read(f, named(f, "compact"), 0, 5, TS_DTYPE_INT64, iv, NULL),
                     TS_OK);
    ck_assert(iv[0] == -2 && iv[4] == 2);
    double c[12];
    ck_assert_int_eq(ts_array_read(f, named(f, "cplx"), 0, 6, TS_DTYPE_COMPLEX128, c, NULL),
                     TS_OK);
    for (int i = 0; i < 6; i++)
        ck_assert(c[2 * i] == i && c[2 * i + 1] == 1);
    s = stats_of(f, named(f, "unwritten"), 0);
    ck_same(s.min, 7.5);
    ck_same(s.max, 7.5);
    ts_file_close(f);

    /* libhdf5 (in its child process) reads the image tshape read when the
     * file was opened, never the file by its path again: a file replaced
     * since (another dataset of that name, of another shape) is not seen,
     * and the values are those of the arrays listed */
    char tmp[] = "/tmp/tshape-h5-XXXXXX";
    int fd = mkstemp(tmp);
    ck_assert_int_ge(fd, 0);
    size_t len;
    unsigned char *data = tu_read_file("tests/fixtures/hdf5/chunked.h5", &len);
    ck_assert_ptr_nonnull(data);
    ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
    close(fd);
    free(data);
    ck_assert_int_eq(ts_file_open(tmp, NULL, &f, &e), TS_OK);
    char other[64];
    snprintf(other, sizeof other, "%s.new", tmp);
    data = tu_read_file("tests/fixtures/hdf5/changed.h5", &len);
    ck_assert_ptr_nonnull(data);
    FILE *out = fopen(other, "wb");
    ck_assert_ptr_nonnull(out);
    ck_assert_uint_eq(fwrite(data, 1, len, out), len);
    fclose(out);
    free(data);
    ck_assert_int_eq(rename(other, tmp), 0);
    double w[4];
    ck_assert_int_eq(ts_array_read(f, named(f, "gzip"), 0, 4, TS_DTYPE_FLOAT64, w, &e), TS_OK);
    ck_same(w[3], 3 * 0.5 - 100);
    ck_assert_int_eq(ts_array_read(f, named(f, "be"), 0, 4, TS_DTYPE_INT64, iv, &e), TS_OK);
    ck_assert_int_eq(iv[3], 3);
    ts_file_close(f);
    unlink(tmp);
}
END_TEST

/* max_bytes: the statistics of the first elements as stored (whole
 * blocks), count below size; an array that fits is read whole. */
START_TEST(test_stats_max_bytes)
{
    ts_file *f = NULL;
    ts_error e;
    ts_stats s;
    ts_stats_options o = TS_STATS_OPTIONS_INIT;
    ck_assert_int_eq(ts_file_open("tests/fixtures/values/f8_fortran.npy", NULL, &f, &e), TS_OK);
    o.max_bytes = 24; /* 3 of 6 float64, stored in F order: 0, 3, 1 */
    ck_assert_int_eq(ts_array_stats(f, ts_file_array(f, 0), &o, &s, &e), TS_OK);
    ck_assert_int_eq(s.count, 3);
    ck_same(s.min, 0);
    ck_same(s.max, 3);
    ck_same(s.mean, 4.0 / 3);
    o.max_bytes = 1; /* below one element: one element */
    ck_assert_int_eq(ts_array_stats(f, ts_file_array(f, 0), &o, &s, &e), TS_OK);
    ck_assert_int_eq(s.count, 1);
    o.max_bytes = 48; /* all of it */
    ck_assert_int_eq(ts_array_stats(f, ts_file_array(f, 0), &o, &s, &e), TS_OK);
    ck_assert_int_eq(s.count, 6);
    ck_same(s.max, 5);
    o.max_bytes = -1;
    ck_assert_int_eq(ts_array_stats(f, ts_file_array(f, 0), &o, &s, &e), TS_ERR_INVALID_ARG);
    ck_assert_str_eq(e.message, "ts_array_stats: opts->max_bytes is -1, below 0");
    ts_file_close(f);
    /* quantized: whole blocks of 32 (q4_0: 18 bytes each) */
    ck_assert_int_eq(ts_file_open("tests/fixtures/values/quant.gguf", NULL, &f, &e), TS_OK);
    o.max_bytes = 20;
    ck_assert_int_eq(ts_array_stats(f, ts_file_array(f, 0), &o, &s, &e), TS_OK);
    ck_assert_str_eq(ts_file_array(f, 0)->dtype_name, "q4_0");
    ck_assert_int_eq(s.count, 32);
    ts_file_close(f);
    /* deflated member: the first elements only */
    ck_assert_int_eq(ts_file_open("tests/fixtures/values/deflated.npz", NULL, &f, &e), TS_OK);
    const ts_array *big = named(f, "big");
    o.max_bytes = 8 * 1000;
    ck_assert_int_eq(ts_array_stats(f, big, &o, &s, &e), TS_OK);
    ck_assert_int_eq(s.count, 1000);
    ck_same(s.min, -100);
    ts_file_close(f);
}
END_TEST

Suite *values_suite(void)
{
    Suite *s = suite_create("values");
    TCase *tc = tcase_create("values");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_float32_both_orders);
    tcase_add_test(tc, test_stats_max_bytes);
    tcase_add_test(tc, test_fortran_order);
    tcase_add_test(tc, test_integers_exact);
    tcase_add_test(tc, test_bool);
    tcase_add_test(tc, test_half_and_low_precision);
    tcase_add_test(tc, test_complex);
    tcase_add_test(tc, test_long_double);
    tcase_add_test(tc, test_empty_and_scalar);
    tcase_add_test(tc, test_npz_deflated_and_stored);
    tcase_add_test(tc, test_npz_corrupt_member);
    tcase_add_test(tc, test_mxnet_sparse);
    tcase_add_test(tc, test_gguf_dequant_reference);
    tcase_add_test(tc, test_views);
    tcase_add_test(tc, test_bad_calls);
    tcase_add_test(tc, test_threads_and_progress);
    tcase_add_test(tc, test_file_shrinks);
    tcase_add_test(tc, test_onnx_typed_fields);
    tcase_add_test(tc, test_hdf5_chunked);
    suite_add_tcase(s, tc);
    return s;
}
