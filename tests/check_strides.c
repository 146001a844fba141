/* check_strides.c - ts_strides (NumPy byte strides), the contiguity
 * predicates (NumPy relaxed strides, PyTorch channels_last) and the PyTorch
 * view oracle ts_view_strides: the examples of peer-semantics.md 1.4, 1.5
 * and 3, with exact results, codes and message substrings. */
/* Tests functions of the experimental part of tshape.h. */
#define TS_EXPERIMENTAL_API
#include "testutil.h"

#include <string.h>

/* Formats n int64 as a tuple, like a shape. */
static void dims_text(const int64_t *d, int n, char *buf, size_t cap)
{
    ts_shape s = TS_SHAPE_INIT;
    ck_assert_int_eq(ts_shape_assign(&s, d, n, NULL), TS_OK);
    ts_shape_format(&s, 0, buf, cap);
    ts_shape_free(&s);
}

typedef struct strides_case {
    const char *shape;
    int64_t itemsize;
    char order;
    const char *expect;
    ts_status code;
    const char *msg;
} strides_case;

static const strides_case strides_cases[] = {
    {"(2,3,4)", 8, 'C', "(96,32,8)", TS_OK, NULL},
    {"(2,3,4)", 8, 'F', "(8,16,48)", TS_OK, NULL},
    {"(2,3,4)", 1, 'C', "(12,4,1)", TS_OK, NULL},
    {"(2,3,4)", 4, 'F', "(4,8,24)", TS_OK, NULL},
    {"(4,3)", 8, 'C', "(24,8)", TS_OK, NULL},
    {"(5,)", 2, 'C', "(2,)", TS_OK, NULL},
    {"(5,)", 2, 'F', "(2,)", TS_OK, NULL},
    {"()", 8, 'C', "()", TS_OK, NULL},
    {"(1,1,1,1,1,7)", 1, 'C', "(7,7,7,7,7,1)", TS_OK, NULL},
    {"(2,0,3)", 8, 'C', "(0,0,0)", TS_OK, NULL},
    {"(0,)", 8, 'F', "(0,)", TS_OK, NULL},
    {"(2,3)", 0, 'C', NULL, TS_ERR_VALUE, "itemsize must be >= 1"},
    {"(2,3)", 8, 'X', NULL, TS_ERR_INVALID_ARG, "order must be 'C' (row-major) or 'F'"},
    {"(2,-3)", 8, 'C', NULL, TS_ERR_VALUE, "strides of (2,-3)"},
    {"(1152921504606846976,4)", 2, 'C', NULL, TS_ERR_OVERFLOW, "do not fit in int64"},
    {"(4294967296,4294967296)", 1, 'C', NULL, TS_ERR_OVERFLOW, NULL},
};

START_TEST(test_strides)
{
    const strides_case *c = &strides_cases[_i];
    ts_shape s = TS_SHAPE_INIT;
    ts_error err;
    int64_t st[TS_MAX_NDIM];
    char buf[256];
    tu_shape(&s, c->shape);
    ts_status rc = ts_strides(&s, c->itemsize, c->order, st, &err);
    if (c->expect) {
        ck_assert_msg(rc == TS_OK, "%s: %s", c->shape, err.message);
        dims_text(st, ts_shape_ndim(&s), buf, sizeof buf);
        ck_assert_str_eq(buf, c->expect);
    } else {
        ck_assert_int_eq(rc, c->code);
        if (c->msg)
            ck_assert_msg(strstr(err.message, c->msg) != NULL, "message '%s' lacks '%s'",
                          err.message, c->msg);
    }
    ts_shape_free(&s);
}
END_TEST

typedef struct contig_case {
    const char *shape, *strides;
    int64_t itemsize;
    int c, f, cl, cl3;
} contig_case;

static const contig_case contig_cases[] = {
    /* NumPy 1.5 examples (byte strides, float64) */
    {"(1,3)", "(24,8)", 8, 1, 1, 0, 0},
    {"(3,1)", "(8,8)", 8, 1, 1, 0, 0},
    {"(3,)", "(8,)", 8, 1, 1, 0, 0},
    {"(1,3)", "(96,8)", 8, 1, 1, 0, 0},
    {"(2,1,3)", "(24,12345,8)", 8, 1, 0, 0, 0},
    {"(0,2)", "(0,0)", 8, 1, 1, 0, 0},
    {"(2,3)", "(48,8)", 8, 0, 0, 0, 0},
    {"(2,3,4)", "(96,32,8)", 8, 1, 0, 0, 0},
    {"(2,3,4)", "(8,16,48)", 8, 0, 1, 0, 0},
    {"()", "()", 8, 1, 1, 0, 0},
    {"(2,3)", "(-24,8)", 8, 0, 0, 0, 0},
    {"(2,3)", "(24,-8)", 8, 0, 0, 0, 0},
    {"(1,1)", "(-5,77)", 8, 1, 1, 0, 0},
    /* torch (element strides) */
    {"(2,1,3)", "(3,12345,1)", 1, 1, 0, 0, 0},
    {"(2,3,4,5)", "(60,1,15,3)", 1, 0, 0, 1, 0},
    {"(2,3,4,5,6)", "(360,1,90,18,3)", 1, 0, 0, 0, 1},
    {"(2,3,1,1)", "(3,1,1,1)", 1, 1, 0, 1, 0},
    {"(2,1,4,5)", "(20,20,5,1)", 1, 1, 0, 1, 0},
    {"(2,3,4)", "(12,1,3)", 1, 0, 0, 0, 0},
    {"(2,3,4,5)", "(60,20,5,1)", 1, 1, 0, 0, 0},
    {"(2,3,4,5,6)", "(360,120,30,6,1)", 1, 1, 0, 0, 0},
    /* channels_last has no 0-element shortcut in torch */
    {"(0,3,4,5)", "(60,20,5,1)", 1, 1, 1, 0, 0},
    {"(0,3,4,5)", "(60,1,15,3)", 1, 1, 1, 1, 0},
    /* byte strides with channels_last */
    {"(2,3,4,5)", "(240,4,60,12)", 4, 0, 0, 1, 0},
    /* only products that are compared matter; an overflowing one cannot
     * match a later stride */
    {"(4294967296,4294967296,2)", "(8589934592,2,1)", 1, 1, 0, 0, 0},
    {"(2,4294967296,4294967296)", "(0,4294967296,1)", 1, 0, 0, 0, 0},
    /* unusable input */
    {"(2,-1)", "(1,1)", 1, 0, 0, 0, 0},
    {"(2,3)", "(3,1)", 0, 0, 0, 0, 0},
};

START_TEST(test_contiguity)
{
    const contig_case *c = &contig_cases[_i];
    ts_shape s = TS_SHAPE_INIT, st = TS_SHAPE_INIT;
    tu_shape(&s, c->shape);
    tu_shape(&st, c->strides);
    const int64_t *p = ts_shape_dims(&st);
    ck_assert_msg(ts_is_c_contiguous(&s, p, c->itemsize) == c->c, "C of %s %s", c->shape,
                  c->strides);
    ck_assert_msg(ts_is_f_contiguous(&s, p, c->itemsize) == c->f, "F of %s %s", c->shape,
                  c->strides);
    ck_assert_msg(ts_is_channels_last(&s, p, c->itemsize) == c->cl, "CL of %s %s", c->shape,
                  c->strides);
    ck_assert_msg(ts_is_channels_last_3d(&s, p, c->itemsize) == c->cl3, "CL3 of %s %s",
                  c->shape, c->strides);
    ts_shape_free(&s);
    ts_shape_free(&st);
}
END_TEST

/* Strides from ts_strides are always contiguous in their order. */
START_TEST(test_strides_are_contiguous)
{
    static const char *const shapes[] = {"(2,3,4)", "(1,5,1,2)", "(7,)", "()", "(3,0,2)",
                                         "(2,1,1,3,1,4)"};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        ts_shape s = TS_SHAPE_INIT;
        int64_t c[TS_MAX_NDIM], f[TS_MAX_NDIM];
        tu_shape(&s, shapes[i]);
        ck_assert_int_eq(ts_strides(&s, 2, 'C', c, NULL), TS_OK);
        ck_assert_int_eq(ts_strides(&s, 2, 'F', f, NULL), TS_OK);
        ck_assert_int_eq(ts_is_c_contiguous(&s, c, 2), 1);
        ck_assert_int_eq(ts_is_f_contiguous(&s, f, 2), 1);
        ts_shape_free(&s);
    }
}
END_TEST

typedef struct view_case {
    const char *shape, *strides, *target;
    const char *expect_shape, *expect_strides;
    ts_status code;
    const char *msg;
} view_case;

static const view_case view_cases[] = {
    /* x = (2,3,4) contiguous; x[:,:,::2] has strides (12,4,2) */
    {"(2,3,2)", "(12,4,2)", "(6,2)", "(6,2)", "(4,2)", TS_OK, NULL},
    {"(2,3,2)", "(12,4,2)", "(2,6)", "(2,6)", "(12,2)", TS_OK, NULL},
    {"(2,3,4)", "(12,4,1)", "(-1,)", "(24,)", "(1,)", TS_OK, NULL},
    {"(2,3,4)", "(12,4,1)", "(6,-1)", "(6,4)", "(4,1)", TS_OK, NULL},
    {"(2,3)", "(3,1)", "(2,1,3)", "(2,1,3)", "(3,3,1)", TS_OK, NULL},
    /* size-1 dims never break a chunk */
    {"(2,1,3)", "(3,12345,1)", "(6,)", "(6,)", "(1,)", TS_OK, NULL},
    /* 0-d: every stride 1 */
    {"()", "()", "(1,1)", "(1,1)", "(1,1)", TS_OK, NULL},
    {"()", "()", "(-1,)", "(1,)", "(1,)", TS_OK, NULL},
    {"(1,)", "(5,)", "()", "()", "()", TS_OK, NULL},
    /* 0 elements: same shape keeps the strides, else contiguous with 0 as 1 */
    {"(0,3)", "(7,9)", "(0,3)", "(0,3)", "(7,9)", TS_OK, NULL},
    {"(0,3)", "(3,1)", "(3,0)", "(3,0)", "(1,1)", TS_OK, NULL},
    {"(2,0,3)", "(0,3,1)", "(0,6)", "(0,6)", "(6,1)", TS_OK, NULL},
    /* transposes: x.transpose(0,1).view(-1), x.permute(0,2,1).view(2,12) */
    {"(3,2,4)", "(4,12,1)", "(-1,)", NULL, NULL, TS_ERR_LAYOUT,
     "dims 0..2 of (3,2,4) with strides (4,12,1) are not contiguous with each other (dim 1 "
     "would need stride 4, has 12), so (24,) would need a copy"},
    {"(2,4,3)", "(12,1,4)", "(2,12)", NULL, NULL, TS_ERR_LAYOUT,
     "dims 1..2 of (2,4,3) with strides (12,1,4) are not contiguous with each other (dim 1 "
     "would need stride 12, has 1), so (2,12) would need a copy"},
    {"(2,3,4)", "(12,1,3)", "(6,4)", NULL, NULL, TS_ERR_LAYOUT,
     "dims 0..1 of (2,3,4) with strides (12,1,3) are not contiguous with each other"},
    /* x[:, ::2] has strides (12,8,1): view(4,4) fails */
    {"(2,2,4)", "(12,8,1)", "(4,4)", NULL, NULL, TS_ERR_LAYOUT,
     "(dim 0 would need stride 16, has 12), so (4,4) would need a copy"},
    {"(2,3,4)", "(12,4,1)", "(5,-1)", NULL, NULL, TS_ERR_SIZE,
     "view: cannot reshape (2,3,4) of size 24 into (5,-1)"},
    {"(2,3,4)", "(12,4,1)", "(-2,12)", NULL, NULL, TS_ERR_VALUE, "-2 at position 0"},
    {"(0,3)", "(3,1)", "(0,-1)", NULL, NULL, TS_ERR_SIZE, "any size fits"},
};

START_TEST(test_view)
{
    const view_case *c = &view_cases[_i];
    ts_shape s = TS_SHAPE_INIT, st = TS_SHAPE_INIT, t = TS_SHAPE_INIT, out = TS_SHAPE_INIT;
    ts_error err;
    int64_t res[TS_MAX_NDIM];
    char buf[256];
    tu_shape(&s, c->shape);
    tu_shape(&st, c->strides);
    tu_shape(&t, c->target);
    ts_status rc = ts_view_strides(&s, ts_shape_dims(&st), &t, &out, res, &err);
    if (c->expect_shape) {
        ck_assert_msg(rc == TS_OK, "%s %s -> %s: %s", c->shape, c->strides, c->target,
                      err.message);
        tu_assert_shape(&out, c->expect_shape);
        dims_text(res, ts_shape_ndim(&out), buf, sizeof buf);
        ck_assert_str_eq(buf, c->expect_strides);
    } else {
        ck_assert_msg(rc == c->code, "%s %s -> %s: status %d, expected %d (%s)", c->shape,
                      c->strides, c->target, (int)rc, (int)c->code, err.message);
        ck_assert_msg(strstr(err.message, c->msg) != NULL, "message '%s' lacks '%s'",
                      err.message, c->msg);
    }
    ts_shape_free(&s);
    ts_shape_free(&st);
    ts_shape_free(&t);
    ts_shape_free(&out);
}
END_TEST

#define NCASES(a) (int)(sizeof a / sizeof *a)

Suite *strides_suite(void)
{
    Suite *s = suite_create("strides");
    TCase *tc = tcase_create("table");
    tcase_add_loop_test(tc, test_strides, 0, NCASES(strides_cases));
    tcase_add_loop_test(tc, test_contiguity, 0, NCASES(contig_cases));
    tcase_add_test(tc, test_strides_are_contiguous);
    tcase_add_loop_test(tc, test_view, 0, NCASES(view_cases));
    suite_add_tcase(s, tc);
    return s;
}
