/* check_core.c - mshadow TShape arithmetic: Size, ProdShape, FlatTo2D,
 * FlatTo3D, get<ndim>, and the Save/Load layouts. */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

START_TEST(test_size)
{
    ts_shape s = TS_SHAPE_INIT;
    int64_t v;
    tu_shape(&s, "(3,4,5)");
    ck_assert_int_eq(ts_shape_size(&s, &v, NULL), TS_OK);
    ck_assert_int_eq(v, 60);
    tu_shape(&s, "()");
    ck_assert_int_eq(ts_shape_size(&s, &v, NULL), TS_OK);
    ck_assert_int_eq(v, 1);
    /* A zero dim wins over an overflowing product. */
    tu_shape(&s, "(4294967296,4294967296,0)");
    ck_assert_int_eq(ts_shape_size(&s, &v, NULL), TS_OK);
    ck_assert_int_eq(v, 0);
    tu_shape(&s, "(3037000499,3037000499)"); /* just below 2^63 */
    ck_assert_int_eq(ts_shape_size(&s, &v, NULL), TS_OK);
    ck_assert_int_eq(v, INT64_C(9223372030926249001));
    ts_error err;
    tu_shape(&s, "(4294967296,4294967296)");
    ck_assert_int_eq(ts_shape_size(&s, &v, &err), TS_ERR_OVERFLOW);
    ck_assert_str_eq(err.message, "the product of (4294967296,4294967296) does not fit in int64");
    tu_shape(&s, "(1,1,1,1,1,1,1,2,3)");
    ck_assert_int_eq(ts_shape_size(&s, &v, NULL), TS_OK);
    ck_assert_int_eq(v, 6);
    ts_shape_free(&s);
}
END_TEST

START_TEST(test_prod)
{
    ts_shape s = TS_SHAPE_INIT;
    int64_t v;
    ts_error err;
    tu_shape(&s, "(2,3,4,5)");
    ck_assert_int_eq(ts_shape_prod(&s, 1, 3, &v, NULL), TS_OK);
    ck_assert_int_eq(v, 12);
    ck_assert_int_eq(ts_shape_prod(&s, 0, 4, &v, NULL), TS_OK);
    ck_assert_int_eq(v, 120);
    ck_assert_int_eq(ts_shape_prod(&s, 2, 2, &v, NULL), TS_OK);
    ck_assert_int_eq(v, 1);
    ck_assert_int_eq(ts_shape_prod(&s, 0, -1, &v, NULL), TS_OK);
    ck_assert_int_eq(v, 24);
    ck_assert_int_eq(ts_shape_prod(&s, -2, 4, &v, NULL), TS_OK);
    ck_assert_int_eq(v, 20);
    ck_assert_int_eq(ts_shape_prod(&s, 0, 5, &v, &err), TS_ERR_AXIS);
    ck_assert_str_eq(err.message,
                     "end 5 is out of range for a shape of 4 dimensions (expected -4..4)");
    ck_assert_int_eq(ts_shape_prod(&s, 3, 1, &v, &err), TS_ERR_AXIS);
    ck_assert_ptr_nonnull(strstr(err.message, "begin 3 comes after end 1"));
    ck_assert_int_eq(ts_shape_prod(&s, -5, 1, &v, &err), TS_ERR_AXIS);
    tu_shape(&s, "()");
    ck_assert_int_eq(ts_shape_prod(&s, 0, 0, &v, NULL), TS_OK);
    ck_assert_int_eq(v, 1);
    ts_shape_free(&s);
}
END_TEST

START_TEST(test_flat2d)
{
    ts_shape s = TS_SHAPE_INIT;
    int64_t d[2];
    tu_shape(&s, "(3,4,5)");
    ck_assert_int_eq(ts_shape_flat2d(&s, d, NULL), TS_OK);
    ck_assert_int_eq(d[0], 12);
    ck_assert_int_eq(d[1], 5);
    tu_shape(&s, "(7,)");
    ck_assert_int_eq(ts_shape_flat2d(&s, d, NULL), TS_OK);
    ck_assert_int_eq(d[0], 1);
    ck_assert_int_eq(d[1], 7);
    /* () -> (1,1), MXNet's NumPy semantics; the seed's legacy TShape gave
     * (0,0) where ndim 0 meant "unknown". */
    tu_shape(&s, "()");
    ck_assert_int_eq(ts_shape_flat2d(&s, d, NULL), TS_OK);
    ck_assert_int_eq(d[0], 1);
    ck_assert_int_eq(d[1], 1);
    tu_shape(&s, "(0,5)");
    ck_assert_int_eq(ts_shape_flat2d(&s, d, NULL), TS_OK);
    ck_assert_int_eq(d[0], 0);
    ck_assert_int_eq(d[1], 5);
    tu_shape(&s, "(4294967296,4294967296,2)");
    ck_assert_int_eq(ts_shape_flat2d(&s, d, NULL), TS_ERR_OVERFLOW);
    ts_shape_free(&s);
}
END_TEST

typedef struct f3_case {
    const char *shape;
    int64_t b, e;
    ts_status st;
    int64_t d0, d1, d2;
} f3_case;

static const f3_case f3_cases[] = {
    {"(2,3,4,5)", 1, 2, TS_OK, 2, 12, 5},
    {"(2,3,4,5)", 1, 1, TS_OK, 2, 3, 20},
    {"(2,3,4,5)", 0, 3, TS_OK, 1, 120, 1},
    {"(2,3,4,5)", -1, -1, TS_OK, 24, 5, 1},
    {"(2,3,4,5)", 0, -1, TS_OK, 1, 120, 1},
    {"(7,)", 0, 0, TS_OK, 1, 7, 1},
    {"(2,3,4,5)", 2, 4, TS_ERR_AXIS, 0, 0, 0}, /* mshadow read past the end */
    {"(2,3,4,5)", 3, 1, TS_ERR_AXIS, 0, 0, 0},
    {"(2,3,4,5)", -5, 1, TS_ERR_AXIS, 0, 0, 0},
    {"()", 0, 0, TS_ERR_AXIS, 0, 0, 0},
};

START_TEST(test_flat3d)
{
    const f3_case *c = &f3_cases[_i];
    ts_shape s = TS_SHAPE_INIT;
    int64_t d[3] = {-9, -9, -9};
    tu_shape(&s, c->shape);
    ck_assert_int_eq(ts_shape_flat3d(&s, c->b, c->e, d, NULL), c->st);
    if (c->st == TS_OK) {
        ck_assert_int_eq(d[0], c->d0);
        ck_assert_int_eq(d[1], c->d1);
        ck_assert_int_eq(d[2], c->d2);
    }
    ts_shape_free(&s);
}
END_TEST

START_TEST(test_get)
{
    ts_shape s = TS_SHAPE_INIT;
    int64_t d[4];
    ts_error err;
    tu_shape(&s, "(3,4)");
    ck_assert_int_eq(ts_shape_get(&s, 2, d, NULL), TS_OK);
    ck_assert_int_eq(d[0], 3);
    ck_assert_int_eq(d[1], 4);
    ck_assert_int_eq(ts_shape_get(&s, 3, d, &err), TS_ERR_NDIM);
    ck_assert_str_eq(err.message, "shape (3,4) has 2 dimensions, expected 3");
    tu_shape(&s, "()");
    ck_assert_int_eq(ts_shape_get(&s, 0, d, NULL), TS_OK);
    ts_shape_free(&s);
}
END_TEST

static const int rt_ndims[] = {0, 1, 4, 5, 64};

START_TEST(test_save_load_roundtrip)
{
    int n = rt_ndims[_i];
    int64_t dims[TS_MAX_NDIM];
    for (int i = 0; i < n; i++)
        dims[i] = i * 1000 + 1;
    ts_shape s = TS_SHAPE_INIT, t = TS_SHAPE_INIT;
    ck_assert_int_eq(ts_shape_assign(&s, dims, n, NULL), TS_OK);
    for (int layout = 0; layout < 2; layout++) {
        unsigned char buf[4 + 8 * TS_MAX_NDIM];
        size_t w, used;
        ck_assert_int_eq(ts_shape_save(&s, (ts_shape_layout)layout, NULL, 0, &w, NULL), TS_OK);
        ck_assert_uint_eq(w, 4 + (size_t)n * (layout ? 8 : 4));
        ck_assert_int_eq(ts_shape_save(&s, (ts_shape_layout)layout, buf, sizeof buf, &w, NULL),
                         TS_OK);
        ck_assert_int_eq(ts_shape_load(buf, w, (ts_shape_layout)layout, &t, &used, NULL), TS_OK);
        ck_assert_uint_eq(used, w);
        ck_assert_int_eq(ts_shape_equal(&s, &t), 1);
        /* Every truncation is an error, never a partial shape. */
        for (size_t k = 0; k < w; k++)
            ck_assert_int_eq(ts_shape_load(buf, k, (ts_shape_layout)layout, &t, NULL, NULL),
                             TS_ERR_TRUNCATED);
    }
    ts_shape_free(&s);
    ts_shape_free(&t);
}
END_TEST

START_TEST(test_save_load_bytes)
{
    ts_shape s = TS_SHAPE_INIT;
    unsigned char buf[32];
    size_t w;
    tu_shape(&s, "(3,258)");
    ck_assert_int_eq(ts_shape_save(&s, TS_LAYOUT_MSHADOW, buf, sizeof buf, &w, NULL), TS_OK);
    static const unsigned char m[] = {2, 0, 0, 0, 3, 0, 0, 0, 2, 1, 0, 0};
    ck_assert_uint_eq(w, sizeof m);
    ck_assert_int_eq(memcmp(buf, m, sizeof m), 0);
    ck_assert_int_eq(ts_shape_save(&s, TS_LAYOUT_MXNET, buf, sizeof buf, &w, NULL), TS_OK);
    static const unsigned char x[] = {2, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 2, 1, 0, 0, 0, 0, 0, 0};
    ck_assert_uint_eq(w, sizeof x);
    ck_assert_int_eq(memcmp(buf, x, sizeof x), 0);
    ts_error err;
    ck_assert_int_eq(ts_shape_save(&s, TS_LAYOUT_MXNET, buf, 10, &w, &err), TS_ERR_LIMIT);
    tu_shape(&s, "(4294967296,)");
    ck_assert_int_eq(ts_shape_save(&s, TS_LAYOUT_MSHADOW, buf, sizeof buf, &w, &err),
                     TS_ERR_VALUE);
    ts_shape_free(&s);
}
END_TEST

START_TEST(test_load_hostile)
{
    ts_shape s = TS_SHAPE_INIT;
    ts_error err;
    /* ndim 2^31 - 1 in 8 bytes: rejected without allocating. */
    const unsigned char huge[8] = {0xff, 0xff, 0xff, 0x7f, 1, 0, 0, 0};
    ck_assert_int_eq(ts_shape_load(huge, 8, TS_LAYOUT_MSHADOW, &s, NULL, &err), TS_ERR_LIMIT);
    ck_assert_ptr_nonnull(strstr(err.message, "ndim 2147483647 at byte 0 is absurd"));
    /* Negative ndim in the MXNet layout (unknown shape). */
    const unsigned char neg[4] = {0xff, 0xff, 0xff, 0xff};
    ck_assert_int_eq(ts_shape_load(neg, 4, TS_LAYOUT_MXNET, &s, NULL, &err), TS_ERR_VALUE);
    ck_assert_str_eq(err.message, "negative ndim -1 at byte 0 (unknown shapes are not allowed)");
    /* A negative dim. */
    const unsigned char negdim[12] = {1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    ck_assert_int_eq(ts_shape_load(negdim, 12, TS_LAYOUT_MXNET, &s, NULL, &err), TS_ERR_VALUE);
    ck_assert_int_eq(err.offset, 4);
    /* ndim 65 with enough bytes: over the limit. */
    unsigned char big[4 + 4 * 65];
    memset(big, 0, sizeof big);
    big[0] = 65;
    ck_assert_int_eq(ts_shape_load(big, sizeof big, TS_LAYOUT_MSHADOW, &s, NULL, &err),
                     TS_ERR_LIMIT);
    ck_assert_int_eq(ts_shape_load(big, 0, TS_LAYOUT_MSHADOW, &s, NULL, &err), TS_ERR_TRUNCATED);
    ts_shape_free(&s);
}
END_TEST

/* The runner gives every case a timeout sized for a sanitizer build on a
 * loaded machine (run_tests.c): Check's own default of 4 s killed a heavy
 * case under ASan + UBSan at load 5-8. The cases run in children of the
 * runner, so they see its environment. */
START_TEST(test_runner_timeout)
{
    const char *t = getenv("CK_DEFAULT_TIMEOUT");
    ck_assert_ptr_nonnull(t);
    ck_assert(strtod(t, NULL) >= 300);
}
END_TEST

Suite *core_suite(void)
{
    Suite *s = suite_create("core");
    TCase *tc = tcase_create("arithmetic");
    tcase_add_test(tc, test_size);
    tcase_add_test(tc, test_prod);
    tcase_add_test(tc, test_flat2d);
    tcase_add_loop_test(tc, test_flat3d, 0, (int)(sizeof f3_cases / sizeof *f3_cases));
    tcase_add_test(tc, test_get);
    suite_add_tcase(s, tc);
    TCase *io = tcase_create("save_load");
    tcase_add_loop_test(io, test_save_load_roundtrip, 0, (int)(sizeof rt_ndims / sizeof *rt_ndims));
    tcase_add_test(io, test_save_load_bytes);
    tcase_add_test(io, test_load_hostile);
    suite_add_tcase(s, io);
    TCase *runner = tcase_create("runner");
    tcase_add_test(runner, test_runner_timeout);
    suite_add_tcase(s, runner);
    return s;
}
