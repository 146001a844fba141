/* check_compare.c - ts_array_compare (diff --values): numpy.isclose's rule
 * with exact counts and first indices on .npy images built here in memory
 * (every value chosen so the expected result is known by hand), NaN and
 * Inf, equal_nan, int64/uint64 extremes compared exactly, complex, mixed
 * dtypes, deflated members against stored data, threads, errors. */
#define TS_EXPERIMENTAL_API
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define V "tests/fixtures/values/"

/* An opened in-memory .npy and its image (freed together). */
typedef struct mem_npy {
    unsigned char *image;
    ts_file *f;
} mem_npy;

/* A .npy (version 1.0) of `descr` and shape text ("(8,)") holding the
 * nbytes at data. */
static mem_npy npy(const char *descr, int fortran, const char *shape, const void *data,
                   size_t nbytes)
{
    char head[256];
    int k = snprintf(head, sizeof head, "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }",
                     descr, fortran ? "True" : "False", shape);
    size_t hlen = (size_t)k + 1;
    while ((10 + hlen) % 64)
        hlen++;
    mem_npy m;
    m.image = malloc(10 + hlen + nbytes);
    ck_assert_ptr_nonnull(m.image);
    memcpy(m.image, "\x93NUMPY\x01\x00", 8);
    m.image[8] = (unsigned char)(hlen & 0xff);
    m.image[9] = (unsigned char)(hlen >> 8);
    memset(m.image + 10, ' ', hlen);
    memcpy(m.image + 10, head, (size_t)k);
    m.image[10 + hlen - 1] = '\n';
    if (nbytes)
        memcpy(m.image + 10 + hlen, data, nbytes);
    ts_error e;
    ts_status st = ts_file_open_memory(m.image, 10 + hlen + nbytes, NULL, &m.f, &e);
    ck_assert_msg(st == TS_OK, "%s", e.message);
    return m;
}

static void npy_free(mem_npy *m)
{
    ts_file_close(m->f);
    free(m->image);
}

static const ts_array *first_array(const mem_npy *m)
{
    return ts_file_array(m->f, 0);
}

static ts_compare compare(const mem_npy *a, const mem_npy *b, const ts_compare_options *o)
{
    ts_compare c;
    ts_error e;
    ts_status st = ts_array_compare(a->f, first_array(a), b->f, first_array(b), o, &c, &e);
    ck_assert_msg(st == TS_OK, "%s", e.message);
    return c;
}

START_TEST(test_float_rule)
{
    /* element by element (numpy.isclose, rtol 1e-5, atol 1e-8):
     *   0  1 / 1            equal
     *   1  2 / 2.00001      |d| 1.00e-5 <= 1e-8 + 2.00001e-5: close
     *   2  3 / 3.1          0.1 > 3.1e-5: not close (the first)
     *   3  nan / nan        not close, close with equal_nan
     *   4  inf / inf        equal
     *   5  -inf / inf       not close, |d| inf
     *   6  0 / 1e-8         1e-8 <= 1e-8 + 1e-13: close, relative 1
     *   7  1e-9 / 0         close (atol); relative inf (b 0: NumPy's
     *                       abs(a - b) / abs(b))
     * The NaN pair makes the maxima NaN, as np.max(np.abs(a - b)) is;
     * with equal_nan it is left out (assert_allclose(equal_nan=True)). */
    const double xa[8] = {1, 2, 3, NAN, INFINITY, -INFINITY, 0, 1e-9};
    const double xb[8] = {1, 2.00001, 3.1, NAN, INFINITY, INFINITY, 1e-8, 0};
    mem_npy a = npy("<f8", 0, "(8,)", xa, sizeof xa), b = npy("<f8", 0, "(8,)", xb, sizeof xb);
    ts_compare c = compare(&a, &b, NULL);
    ck_assert_int_eq(c.kind, TS_VALUE_FLOAT);
    ck_assert_int_eq(c.count, 8);
    ck_assert_int_eq(c.notclose, 3);
    ck_assert_int_eq(c.first, 2);
    ck_assert(isnan(c.max_abs));
    ck_assert(isnan(c.max_rel));
    ck_assert_int_eq(c.nan_a, 1);
    ck_assert_int_eq(c.nan_b, 1);

    ts_compare_options o = TS_COMPARE_OPTIONS_INIT;
    o.equal_nan = 1;
    c = compare(&a, &b, &o);
    ck_assert_int_eq(c.notclose, 2);
    ck_assert_int_eq(c.first, 2);
    ck_assert(c.max_abs == INFINITY);
    ck_assert(c.max_rel == INFINITY);
    ck_assert_int_eq(c.nan_a, 1);
    ck_assert_int_eq(c.nan_b, 1);

    /* atol 0: element 7 (1e-9 against 0) is no longer close, element 6
     * neither (1e-8 > 1e-13) */
    o.atol = 0;
    c = compare(&a, &b, &o);
    ck_assert_int_eq(c.notclose, 4);
    /* a wide tolerance: all finite pairs close, NaN and -inf/inf stay */
    o.equal_nan = 0;
    o.rtol = 1;
    o.atol = 1;
    c = compare(&a, &b, &o);
    ck_assert_int_eq(c.notclose, 2);
    ck_assert_int_eq(c.first, 3);

    /* b is the reference: |a - b| <= atol + rtol * |b| is not symmetric */
    const double ya[1] = {1.0}, yb[1] = {1.5};
    mem_npy p = npy("<f8", 0, "()", ya, 8), q = npy("<f8", 0, "()", yb, 8);
    o.rtol = 0.4;
    o.atol = 0;
    ck_assert_int_eq(compare(&p, &q, &o).notclose, 0);   /* 0.5 <= 0.6 */
    ck_assert_int_eq(compare(&q, &p, &o).notclose, 1);   /* 0.5 > 0.4 */
    ck_assert(compare(&p, &q, &o).max_rel == 0.5 / 1.5);
    npy_free(&p);
    npy_free(&q);
    npy_free(&a);
    npy_free(&b);
}
END_TEST

START_TEST(test_first_index_and_orders)
{
    /* (2,3,4): a C order, b the same values in Fortran order and big-endian
     * float32, differing at C index (1,1,2) = 18 and (0,2,3) = 11 */
    double xa[24];
    float xb[24];
    for (int i = 0; i < 24; i++)
        xa[i] = i * 0.5;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 4; k++) {
                float v = (float)((i * 12 + j * 4 + k) * 0.5);
                if (i * 12 + j * 4 + k == 18 || i * 12 + j * 4 + k == 11)
                    v += 1;
                uint32_t u;
                memcpy(&u, &v, 4);
                u = __builtin_bswap32(u);
                memcpy(&xb[i + 2 * j + 6 * k], &u, 4);   /* F order */
            }
    mem_npy a = npy("<f8", 0, "(2, 3, 4)", xa, sizeof xa);
    mem_npy b = npy(">f4", 1, "(2, 3, 4)", xb, sizeof xb);
    ts_compare c = compare(&a, &b, NULL);
    ck_assert_int_eq(c.notclose, 2);
    ck_assert_int_eq(c.first, 11);
    ck_assert(c.max_abs == 1.0);
    ck_assert(c.max_rel == 1.0 / 6.5);
    int64_t idx[3];
    ck_assert_int_eq(ts_unravel_index(&first_array(&a)->shape, c.first, 'C', idx, NULL), TS_OK);
    ck_assert(idx[0] == 0 && idx[1] == 2 && idx[2] == 3);
    /* the other way round: the same elements */
    c = compare(&b, &a, NULL);
    ck_assert_int_eq(c.notclose, 2);
    ck_assert_int_eq(c.first, 11);
    npy_free(&a);
    npy_free(&b);
}
END_TEST

/* Issue 20 item 1: a relative difference where b is 0 is NumPy's
 * abs(a - b) / abs(b), inf, for every kind; 0 against 0 is equal (0). */
START_TEST(test_rel_where_b_is_zero)
{
    const double fa[3] = {0.5, 0, 2}, fb[3] = {0, 0, 2};
    mem_npy a = npy("<f8", 0, "(3,)", fa, sizeof fa), b = npy("<f8", 0, "(3,)", fb, sizeof fb);
    ts_compare c = compare(&a, &b, NULL);
    ck_assert_int_eq(c.notclose, 1);
    ck_assert(c.max_abs == 0.5);
    ck_assert(c.max_rel == INFINITY);
    npy_free(&a);
    npy_free(&b);
    const int32_t ia[2] = {3, 0}, ib[2] = {0, 0};
    a = npy("<i4", 0, "(2,)", ia, sizeof ia);
    b = npy("<i4", 0, "(2,)", ib, sizeof ib);
    c = compare(&a, &b, NULL);
    ck_assert_int_eq(c.kind, TS_VALUE_INT);
    ck_assert(c.max_abs == 3);
    ck_assert(c.max_rel == INFINITY);
    npy_free(&a);
    npy_free(&b);
    const double ca[4] = {0, 1, 1, 1}, cb[4] = {0, 0, 1, 1};
    a = npy("<c16", 0, "(2,)", ca, sizeof ca);
    b = npy("<c16", 0, "(2,)", cb, sizeof cb);
    c = compare(&a, &b, NULL);
    ck_assert(c.max_abs == 1);
    ck_assert(c.max_rel == INFINITY);
    npy_free(&a);
    npy_free(&b);
    /* all equal, zeros included: 0 and 0 */
    a = npy("<f8", 0, "(3,)", fb, sizeof fb);
    b = npy("<f8", 0, "(3,)", fb, sizeof fb);
    c = compare(&a, &b, NULL);
    ck_assert(c.max_abs == 0 && c.max_rel == 0);
    npy_free(&a);
    npy_free(&b);
}
END_TEST

START_TEST(test_int64_extremes)
{
    /* int64 against int64, exact: NumPy's float64 would call elements 2
     * (2^53 + 1 against 2^53) equal */
    const int64_t xa[5] = {INT64_MIN, INT64_MAX, 9007199254740993LL, 100000000000LL, 5};
    const int64_t xb[5] = {INT64_MIN, INT64_MAX - 1, 9007199254740992LL, 100000000001LL, 5};
    mem_npy a = npy("<i8", 0, "(5,)", xa, sizeof xa), b = npy("<i8", 0, "(5,)", xb, sizeof xb);
    ts_compare_options o = TS_COMPARE_OPTIONS_INIT;
    o.rtol = 0;
    o.atol = 0;
    ts_compare c = compare(&a, &b, &o);
    ck_assert_int_eq(c.kind, TS_VALUE_INT);
    ck_assert_int_eq(c.notclose, 3);
    ck_assert_int_eq(c.first, 1);
    ck_assert(c.max_abs == 1.0);
    ck_assert(c.max_rel == 1.0 / 100000000001.0);
    /* the default rtol covers a difference of 1 in all three */
    c = compare(&a, &b, NULL);
    ck_assert_int_eq(c.notclose, 0);
    ck_assert_int_eq(c.first, -1);
    /* atol 0.999: the bound's floor is 0 */
    o.atol = 0.999;
    ck_assert_int_eq(compare(&a, &b, &o).notclose, 3);
    o.atol = 1;
    ck_assert_int_eq(compare(&a, &b, &o).notclose, 0);

    /* int64 against uint64: differences up to 2^64 + 2^63 - 1, exact.
     * rtol 1: the bound is |b| = 2^64 (UINT64_MAX rounded to float64), so
     * -1 against UINT64_MAX (|d| = 2^64) is close and INT64_MIN is not. */
    const int64_t ya[2] = {-1, INT64_MIN};
    const uint64_t yb[2] = {UINT64_MAX, UINT64_MAX};
    mem_npy p = npy("<i8", 0, "(2,)", ya, sizeof ya), q = npy("<u8", 0, "(2,)", yb, sizeof yb);
    o.rtol = 0;
    o.atol = 0;
    c = compare(&p, &q, &o);
    ck_assert_int_eq(c.kind, TS_VALUE_INT);
    ck_assert_int_eq(c.notclose, 2);
    ck_assert(c.max_abs == 27670116110564327423.0);
    o.rtol = 1;
    c = compare(&p, &q, &o);
    ck_assert_int_eq(c.notclose, 1);
    ck_assert_int_eq(c.first, 1);
    /* uint64 against int64: |b| = 2^63 for INT64_MIN */
    c = compare(&q, &p, &o);
    ck_assert_int_eq(c.notclose, 2);
    npy_free(&p);
    npy_free(&q);
    npy_free(&a);
    npy_free(&b);
}
END_TEST

START_TEST(test_complex_and_mixed)
{
    /* complex128: equal, NaN part on both sides, the same infinity, a
     * difference of 0.1 in the imaginary part */
    const double xa[8] = {1, 1, NAN, 0, INFINITY, 0, 1, 2};
    const double xb[8] = {1, 1, NAN, 1, INFINITY, 0, 1, 2.1};
    mem_npy a = npy("<c16", 0, "(4,)", xa, sizeof xa), b = npy("<c16", 0, "(4,)", xb, sizeof xb);
    ts_compare c = compare(&a, &b, NULL);
    ck_assert_int_eq(c.kind, TS_VALUE_COMPLEX);
    ck_assert_int_eq(c.notclose, 2);
    ck_assert_int_eq(c.first, 1);
    ck_assert(isnan(c.max_abs));
    ck_assert(isnan(c.max_rel));
    ck_assert_int_eq(c.nan_a, 1);
    ck_assert_int_eq(c.nan_b, 1);
    ts_compare_options o = TS_COMPARE_OPTIONS_INIT;
    o.equal_nan = 1;
    c = compare(&a, &b, &o);
    ck_assert_int_eq(c.notclose, 1);
    ck_assert(c.max_abs == hypot(0.0, 2.0 - 2.1));
    ck_assert(c.max_rel == hypot(0.0, 2.0 - 2.1) / hypot(1.0, 2.1));

    /* float64 against complex64: complex, imaginary part 0 */
    const double ra[2] = {1, 2};
    const float cb[4] = {1, 0, 2, 1};
    mem_npy p = npy("<f8", 0, "(2,)", ra, sizeof ra), q = npy("<c8", 0, "(2,)", cb, sizeof cb);
    c = compare(&p, &q, NULL);
    ck_assert_int_eq(c.kind, TS_VALUE_COMPLEX);
    ck_assert_int_eq(c.notclose, 1);
    ck_assert_int_eq(c.first, 1);
    ck_assert(c.max_abs == 1.0);
    npy_free(&p);
    npy_free(&q);

    /* bool against bool: exact integers; bool against float16 in float64 */
    const unsigned char ba[3] = {0, 1, 2}, bb[3] = {0, 1, 0};
    const uint16_t hb[3] = {0x0000, 0x3c00, 0x3c00};   /* 0, 1, 1 */
    p = npy("|b1", 0, "(3,)", ba, 3);
    q = npy("|b1", 0, "(3,)", bb, 3);
    mem_npy h = npy("<f2", 0, "(3,)", hb, sizeof hb);
    c = compare(&p, &q, NULL);
    ck_assert_int_eq(c.kind, TS_VALUE_INT);
    ck_assert_int_eq(c.notclose, 1);
    ck_assert_int_eq(c.first, 2);
    c = compare(&p, &h, NULL);
    ck_assert_int_eq(c.kind, TS_VALUE_FLOAT);
    ck_assert_int_eq(c.notclose, 0);
    npy_free(&h);
    npy_free(&p);
    npy_free(&q);
    npy_free(&a);
    npy_free(&b);
}
END_TEST

START_TEST(test_deflated_members)
{
    /* deflated.npz "big": 100000 float64 (i % 1000) * 0.5 - 100 in a
     * deflated member (several inflate buffers), against the same values
     * stored, with two changes; and "f" (Fortran order, deflated int16) */
    ts_file *f;
    ts_error e;
    ck_assert_int_eq(ts_file_open(V "deflated.npz", NULL, &f, &e), TS_OK);
    const ts_array *big = NULL, *fo = NULL;
    for (size_t i = 0; i < ts_file_count(f); i++) {
        if (strcmp(ts_file_array(f, i)->name, "big") == 0)
            big = ts_file_array(f, i);
        if (strcmp(ts_file_array(f, i)->name, "f") == 0)
            fo = ts_file_array(f, i);
    }
    ck_assert(big && fo);
    double *x = malloc(100000 * sizeof *x);
    for (int i = 0; i < 100000; i++)
        x[i] = (i % 1000) * 0.5 - 100;
    mem_npy same = npy("<f8", 0, "(100000,)", x, 100000 * sizeof *x);
    x[32771] += 0.01;   /* 0.01 > 1e-8 + 1e-5 * 285.5 */
    x[99999] = NAN;
    mem_npy other = npy("<f8", 0, "(100000,)", x, 100000 * sizeof *x);
    free(x);
    ts_compare c;
    ck_assert_int_eq(ts_array_compare(f, big, same.f, first_array(&same), NULL, &c, &e), TS_OK);
    ck_assert_int_eq(c.notclose, 0);
    ck_assert(c.max_abs == 0);
    ck_assert_int_eq(ts_array_compare(other.f, first_array(&other), f, big, NULL, &c, &e), TS_OK);
    ck_assert_int_eq(c.notclose, 2);
    ck_assert_int_eq(c.first, 32771);
    ck_assert_int_eq(c.nan_a, 1);
    /* a deflated member against itself */
    ck_assert_int_eq(ts_array_compare(f, big, f, big, NULL, &c, &e), TS_OK);
    ck_assert_int_eq(c.notclose, 0);
    /* Fortran order: [[0,1,2],[3,4,5]] */
    const int64_t iv[6] = {0, 1, 2, 3, 4, 7};
    mem_npy ints = npy("<i8", 0, "(2, 3)", iv, sizeof iv);
    ck_assert_int_eq(ts_array_compare(f, fo, ints.f, first_array(&ints), NULL, &c, &e), TS_OK);
    ck_assert_int_eq(c.kind, TS_VALUE_INT);
    ck_assert_int_eq(c.notclose, 1);
    ck_assert_int_eq(c.first, 5);
    ck_assert(c.max_abs == 2);
    npy_free(&ints);
    npy_free(&same);
    npy_free(&other);
    ts_file_close(f);
}
END_TEST

static int progress_calls;
static int64_t progress_total;
static void on_progress(void *ctx, int64_t done, int64_t total)
{
    (void)ctx;
    ck_assert_int_le(done, total);
    progress_total = total;
    progress_calls++;
}

START_TEST(test_threads)
{
    /* 2 Mi float32 per side, 16 MiB in all: split over threads; the first
     * difference is the smallest index whichever thread finds it */
    size_t n = 2u << 20;
    float *x = malloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++)
        x[i] = (float)i * 0.25f;
    mem_npy a = npy("<f4", 0, "(2097152,)", x, n * sizeof *x);
    x[1900000] = -1;
    x[300001] = 7;
    mem_npy finite = npy("<f4", 0, "(2097152,)", x, n * sizeof *x);
    x[1048576] = NAN;
    mem_npy b = npy("<f4", 0, "(2097152,)", x, n * sizeof *x);
    free(x);
    for (int t = 1; t <= 4; t++) {
        ts_compare_options o = TS_COMPARE_OPTIONS_INIT;
        o.nthreads = t;
        o.progress = on_progress;
        progress_calls = 0;
        ts_compare c = compare(&b, &a, &o);
        ck_assert_int_eq(c.notclose, 3);
        ck_assert_int_eq(c.first, 300001);
        ck_assert(isnan(c.max_abs)); /* the NaN, whichever thread met it */
        ck_assert(isnan(c.max_rel));
        ck_assert_int_eq(c.nan_a, 1);
        ck_assert_int_eq(c.nan_b, 0);
        c = compare(&finite, &a, &o);
        ck_assert_int_eq(c.notclose, 2);
        ck_assert(c.max_abs == 1900000 * 0.25 + 1);
        ck_assert(c.max_rel == (1900000 * 0.25 + 1) / (1900000 * 0.25));
        ck_assert_int_eq(c.nan_a, 0);
        ck_assert_int_ge(progress_calls, 1);
        ck_assert_int_eq(progress_total, (int64_t)(2 * n * sizeof *x));
    }
    npy_free(&a);
    npy_free(&b);
    npy_free(&finite);
}
END_TEST

START_TEST(test_errors)
{
    const double x[3] = {1, 2, 3};
    mem_npy a = npy("<f8", 0, "(3,)", x, sizeof x), b = npy("<f8", 0, "(1, 3)", x, sizeof x);
    mem_npy s = npy("<U1", 0, "(3,)", "abcdefghijkl", 12);
    ts_compare c;
    ts_error e;
    ck_assert_int_eq(ts_array_compare(a.f, first_array(&a), b.f, first_array(&b), NULL, &c, &e),
                     TS_ERR_SIZE);
    ck_assert_str_eq(e.message, "shapes (3,) and (1,3) differ");
    /* an undecodable dtype on either side: err.index says which */
    ck_assert_int_eq(ts_array_compare(a.f, first_array(&a), s.f, first_array(&s), NULL, &c, &e),
                     TS_ERR_DTYPE);
    ck_assert_int_eq(e.index, 1);
    ck_assert_msg(strncmp(e.message, "array '': ", 10) == 0, "%s", e.message);
    ck_assert_int_eq(ts_array_compare(s.f, first_array(&s), a.f, first_array(&a), NULL, &c, &e),
                     TS_ERR_DTYPE);
    ck_assert_int_eq(e.index, 0);
    /* options */
    ts_compare_options o = TS_COMPARE_OPTIONS_INIT;
    o.rtol = -1;
    ck_assert_int_eq(ts_array_compare(a.f, first_array(&a), a.f, first_array(&a), &o, &c, &e),
                     TS_ERR_INVALID_ARG);
    ck_assert_str_eq(e.message, "ts_array_compare: opts->rtol is -1, not a finite number >= 0");
    o.rtol = 0;
    o.atol = NAN;
    ck_assert_int_eq(ts_array_compare(a.f, first_array(&a), a.f, first_array(&a), &o, &c, &e),
                     TS_ERR_INVALID_ARG);
    o.atol = 0;
    o.equal_nan = 2;
    ck_assert_int_eq(ts_array_compare(a.f, first_array(&a), a.f, first_array(&a), &o, &c, &e),
                     TS_ERR_INVALID_ARG);
    ck_assert_str_eq(e.message, "ts_array_compare: opts->equal_nan is 2, not 0 or 1");
    /* an empty array: nothing to compare */
    mem_npy z = npy("<f4", 0, "(0, 4)", NULL, 0);
    ck_assert_int_eq(ts_array_compare(z.f, first_array(&z), z.f, first_array(&z), NULL, &c, &e),
                     TS_OK);
    ck_assert_int_eq(c.count, 0);
    ck_assert_int_eq(c.first, -1);
    npy_free(&z);
    npy_free(&a);
    npy_free(&b);
    npy_free(&s);
}
END_TEST

Suite *compare_suite(void)
{
    Suite *s = suite_create("compare");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_float_rule);
    tcase_add_test(tc, test_first_index_and_orders);
    tcase_add_test(tc, test_rel_where_b_is_zero);
    tcase_add_test(tc, test_int64_extremes);
    tcase_add_test(tc, test_complex_and_mixed);
    tcase_add_test(tc, test_deflated_members);
    tcase_add_test(tc, test_threads);
    suite_add_tcase(s, tc);
    TCase *te = tcase_create("errors");
    tcase_add_test(te, test_errors);
    suite_add_tcase(s, te);
    return s;
}
