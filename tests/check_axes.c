/* check_axes.c - transpose, squeeze, expand_dims, moveaxis (NumPy) and
 * flatten (PyTorch): the examples and errors of peer-semantics.md 1.6 and
 * 3, with exact results, codes and message substrings. */
#include "testutil.h"

#include <string.h>

/* One case for the axis-list operations: `axes` is a list in shape syntax,
 * or NULL for "no axes given" (transpose: reverse; squeeze: all size-1). */
typedef struct axes_case {
    const char *in;
    const char *axes;
    const char *expect;
    ts_status code;
    const char *msg;
} axes_case;

typedef ts_status (*axes_fn)(const ts_shape *, const int64_t *, size_t, ts_shape *, ts_error *);

static void run_axes_case(const axes_case *c, axes_fn fn, const char *name)
{
    ts_shape in = TS_SHAPE_INIT, axes = TS_SHAPE_INIT, out = TS_SHAPE_INIT;
    ts_error err;
    tu_shape(&in, c->in);
    if (c->axes)
        tu_shape(&axes, c->axes);
    ts_status st = fn(&in, c->axes ? ts_shape_dims(&axes) : NULL,
                      (size_t)ts_shape_ndim(&axes), &out, &err);
    if (c->expect) {
        ck_assert_msg(st == TS_OK, "%s %s %s: %s", name, c->in, c->axes ? c->axes : "-",
                      err.message);
        tu_assert_shape(&out, c->expect);
    } else {
        ck_assert_msg(st == c->code, "%s %s %s: status %d, expected %d (%s)", name, c->in,
                      c->axes ? c->axes : "-", (int)st, (int)c->code, err.message);
        ck_assert_msg(strstr(err.message, c->msg) != NULL, "message '%s' lacks '%s'",
                      err.message, c->msg);
    }
    ts_shape_free(&in);
    ts_shape_free(&axes);
    ts_shape_free(&out);
}

static const axes_case transpose_cases[] = {
    {"(2,3,4)", NULL, "(4,3,2)", TS_OK, NULL},
    {"(2,3,4)", "(-1,0,1)", "(4,2,3)", TS_OK, NULL},
    {"(2,3,4)", "(1,0,2)", "(3,2,4)", TS_OK, NULL},
    {"()", NULL, "()", TS_OK, NULL},
    {"()", "()", "()", TS_OK, NULL},
    {"(5,)", "(-1,)", "(5,)", TS_OK, NULL},
    {"(1,2,3,4,5,6)", "(5,4,3,2,1,0)", "(6,5,4,3,2,1)", TS_OK, NULL},
    {"(2,3,4)", "(1,0)", NULL, TS_ERR_NDIM,
     "transpose axes (1,0) have 2 entries but the shape (2,3,4) has 3 dims"},
    {"(2,3,4)", "(1,1,0)", NULL, TS_ERR_AXIS, "repeated axis 1 in transpose axes (1,1,0)"},
    {"(2,3,4)", "(1,-2,0)", NULL, TS_ERR_AXIS, "(-2 is axis 1 again)"},
    {"(2,3,4)", "(0,1,3)", NULL, TS_ERR_AXIS,
     "axis 3 in transpose axes (0,1,3) for (2,3,4) is out of bounds: expected -3..2 for 3 dims"},
    {"(2,3,4)", "(0,1,-4)", NULL, TS_ERR_AXIS, "axis -4 in transpose axes"},
    {"(2,-3)", NULL, NULL, TS_ERR_VALUE, "dim 1 is negative"},
};

static const axes_case squeeze_cases[] = {
    {"(1,3,1)", NULL, "(3,)", TS_OK, NULL},
    {"(1,3,1)", "(-1,)", "(1,3)", TS_OK, NULL},
    {"(1,3,1)", "(0,2)", "(3,)", TS_OK, NULL},
    {"(1,3,1)", "()", "(1,3,1)", TS_OK, NULL},
    {"(1,1)", NULL, "()", TS_OK, NULL},
    {"()", NULL, "()", TS_OK, NULL},
    {"(0,1)", NULL, "(0,)", TS_OK, NULL},
    {"(2,1)", "(0,)", NULL, TS_ERR_AXIS, "cannot squeeze axis 0 of (2,1): its size is 2, not 1"},
    {"(2,1)", "(-2,)", NULL, TS_ERR_AXIS, "cannot squeeze axis 0 (given as -2) of (2,1)"},
    {"(2,1)", "(2,)", NULL, TS_ERR_AXIS, "axis 2 in squeeze axes (2,) for (2,1) is out of bounds"},
    {"(2,1)", "(1,-1)", NULL, TS_ERR_AXIS, "repeated axis 1 in squeeze axes (1,-1)"},
    {"(1,1)", "(0,1,0)", NULL, TS_ERR_AXIS, "repeated axis 0"},
    {"()", "(0,)", NULL, TS_ERR_AXIS, "there are no axes"},
};

static const axes_case expand_cases[] = {
    {"(2,3)", "(0,-1)", "(1,2,3,1)", TS_OK, NULL},
    {"(2,3)", "(0,)", "(1,2,3)", TS_OK, NULL},
    {"(2,3)", "(2,)", "(2,3,1)", TS_OK, NULL},
    {"(2,3)", "(-1,)", "(2,3,1)", TS_OK, NULL},
    {"(2,3)", "(1,3)", "(2,1,3,1)", TS_OK, NULL},
    {"(2,3)", "()", "(2,3)", TS_OK, NULL},
    {"()", "(0,)", "(1,)", TS_OK, NULL},
    {"()", "(0,1,2,3,4)", "(1,1,1,1,1)", TS_OK, NULL},
    {"(2,3)", "(3,)", NULL, TS_ERR_AXIS,
     "axis 3 in expand_dims axes (3,) for (2,3) (they index the result) is out of bounds: "
     "expected -3..2 for 3 dims"},
    {"(2,3)", "(0,-4)", NULL, TS_ERR_AXIS, "repeated axis 0"},
    {"(2,3)", "(1,1)", NULL, TS_ERR_AXIS, "repeated axis 1"},
};

START_TEST(test_transpose)
{
    run_axes_case(&transpose_cases[_i], ts_transpose, "transpose");
}
END_TEST

START_TEST(test_squeeze)
{
    run_axes_case(&squeeze_cases[_i], ts_squeeze, "squeeze");
}
END_TEST

START_TEST(test_expand)
{
    run_axes_case(&expand_cases[_i], ts_expand_dims, "expand_dims");
}
END_TEST

START_TEST(test_expand_limit)
{
    ts_shape in = TS_SHAPE_INIT, out = TS_SHAPE_INIT;
    ts_error err;
    int64_t axes[TS_MAX_NDIM + 1];
    for (int i = 0; i <= TS_MAX_NDIM; i++)
        axes[i] = i;
    tu_shape(&in, "(2,)");
    ck_assert_int_eq(ts_expand_dims(&in, axes, TS_MAX_NDIM - 1, &out, &err), TS_OK);
    ck_assert_int_eq(ts_shape_ndim(&out), TS_MAX_NDIM);
    ck_assert_int_eq(ts_shape_dims(&out)[TS_MAX_NDIM - 1], 2);
    ck_assert_int_eq(ts_expand_dims(&in, axes, TS_MAX_NDIM, &out, &err), TS_ERR_NDIM);
    ck_assert_ptr_nonnull(strstr(err.message, "would give 65 dims"));
    ck_assert_int_eq(ts_expand_dims(&in, axes, (size_t)-1, &out, &err), TS_ERR_NDIM);
    ts_shape_free(&in);
    ts_shape_free(&out);
}
END_TEST

typedef struct move_case {
    const char *in, *src, *dst, *expect;
    ts_status code;
    const char *msg;
} move_case;

static const move_case move_cases[] = {
    {"(2,3,4)", "(0,)", "(-1,)", "(3,4,2)", TS_OK, NULL},
    {"(2,3,4)", "(0,1)", "(-1,-2)", "(4,3,2)", TS_OK, NULL},
    {"(2,3,4)", "(-1,)", "(0,)", "(4,2,3)", TS_OK, NULL},
    {"(2,3,4)", "(0,1,2)", "(2,0,1)", "(3,4,2)", TS_OK, NULL},
    {"(2,3,4)", "()", "()", "(2,3,4)", TS_OK, NULL},
    {"(2,3,4,5,6)", "(1,3)", "(4,0)", "(5,2,4,6,3)", TS_OK, NULL},
    {"(2,3,4)", "(0,)", "(3,)", NULL, TS_ERR_AXIS,
     "axis 3 in moveaxis destination (3,) for (2,3,4) is out of bounds"},
    {"(2,3,4)", "(0,0)", "(1,2)", NULL, TS_ERR_AXIS, "repeated axis 0 in moveaxis source (0,0)"},
    {"(2,3,4)", "(0,1)", "(2,-1)", NULL, TS_ERR_AXIS,
     "repeated axis 2 in moveaxis destination (2,-1) for (2,3,4) (-1 is axis 2 again)"},
    {"(2,3)", "(0,1,0,1)", "(0,1,0,1)", NULL, TS_ERR_AXIS, "repeated axis 0 in moveaxis source"},
};

START_TEST(test_moveaxis)
{
    const move_case *c = &move_cases[_i];
    ts_shape in = TS_SHAPE_INIT, src = TS_SHAPE_INIT, dst = TS_SHAPE_INIT, out = TS_SHAPE_INIT;
    ts_error err;
    tu_shape(&in, c->in);
    tu_shape(&src, c->src);
    tu_shape(&dst, c->dst);
    ts_status st = ts_moveaxis(&in, ts_shape_dims(&src), ts_shape_dims(&dst),
                               (size_t)ts_shape_ndim(&src), &out, &err);
    if (c->expect) {
        ck_assert_msg(st == TS_OK, "%s: %s", c->in, err.message);
        tu_assert_shape(&out, c->expect);
    } else {
        ck_assert_int_eq(st, c->code);
        ck_assert_msg(strstr(err.message, c->msg) != NULL, "message '%s' lacks '%s'",
                      err.message, c->msg);
    }
    ts_shape_free(&in);
    ts_shape_free(&src);
    ts_shape_free(&dst);
    ts_shape_free(&out);
}
END_TEST

typedef struct flatten_case {
    const char *in;
    int64_t start, end;
    const char *expect;
    ts_status code;
    const char *msg;
} flatten_case;

static const flatten_case flatten_cases[] = {
    {"(2,3,4)", 0, -1, "(24,)", TS_OK, NULL},
    {"(2,3,4)", 1, -1, "(2,12)", TS_OK, NULL},
    {"(2,3,4)", 0, 1, "(6,4)", TS_OK, NULL},
    {"(2,3,4)", 1, 1, "(2,3,4)", TS_OK, NULL},
    {"(2,3,4)", -2, -1, "(2,12)", TS_OK, NULL},
    {"(2,0,4)", 0, 1, "(0,4)", TS_OK, NULL},
    {"()", 0, -1, "(1,)", TS_OK, NULL},
    {"()", 0, 0, "(1,)", TS_OK, NULL},
    {"(5,)", 0, 0, "(5,)", TS_OK, NULL},
    {"(2,3,4,5,6)", 1, 3, "(2,60,6)", TS_OK, NULL},
    {"(2,3,4)", 2, 1, NULL, TS_ERR_AXIS,
     "flatten start_dim 2 (dim 2) comes after end_dim 1 (dim 1) for (2,3,4)"},
    {"(2,3,4)", -1, 0, NULL, TS_ERR_AXIS, "start_dim -1 (dim 2) comes after end_dim 0"},
    {"(2,3,4)", 0, 3, NULL, TS_ERR_AXIS,
     "flatten end_dim 3 is out of range for (2,3,4): expected -3..2"},
    {"(2,3,4)", -4, 0, NULL, TS_ERR_AXIS, "flatten start_dim -4 is out of range"},
    {"()", 1, 1, NULL, TS_ERR_AXIS, "expected -1..0 (a scalar counts as one dim)"},
    {"(4294967296,4294967296)", 0, 1, NULL, TS_ERR_OVERFLOW, "does not fit in int64"},
};

START_TEST(test_flatten)
{
    const flatten_case *c = &flatten_cases[_i];
    ts_shape in = TS_SHAPE_INIT, out = TS_SHAPE_INIT;
    ts_error err;
    tu_shape(&in, c->in);
    ts_status st = ts_flatten(&in, c->start, c->end, &out, &err);
    if (c->expect) {
        ck_assert_msg(st == TS_OK, "%s: %s", c->in, err.message);
        tu_assert_shape(&out, c->expect);
    } else {
        ck_assert_int_eq(st, c->code);
        ck_assert_msg(strstr(err.message, c->msg) != NULL, "message '%s' lacks '%s'",
                      err.message, c->msg);
    }
    ts_shape_free(&in);
    ts_shape_free(&out);
}
END_TEST

#define NCASES(a) (int)(sizeof a / sizeof *a)

Suite *axes_suite(void)
{
    Suite *s = suite_create("axes");
    TCase *tc = tcase_create("table");
    tcase_add_loop_test(tc, test_transpose, 0, NCASES(transpose_cases));
    tcase_add_loop_test(tc, test_squeeze, 0, NCASES(squeeze_cases));
    tcase_add_loop_test(tc, test_expand, 0, NCASES(expand_cases));
    tcase_add_loop_test(tc, test_moveaxis, 0, NCASES(move_cases));
    tcase_add_loop_test(tc, test_flatten, 0, NCASES(flatten_cases));
    suite_add_tcase(s, tc);
    TCase *lim = tcase_create("limits");
    tcase_add_test(lim, test_expand_limit);
    suite_add_tcase(s, lim);
    return s;
}
