/* check_reshape.c - ts_reshape: NumPy's -1 rule and MXNet's special values
 * (every example of peer-semantics.md sections 1.1 and 2.1), with exact
 * results, error codes and message substrings. */
#include "testutil.h"

#include <string.h>

typedef struct reshape_case {
    const char *in;
    const char *target;
    unsigned flags;
    const char *expect;      /* result, or NULL for an error */
    ts_status code;          /* error code when expect is NULL */
    const char *msg;         /* substring of the message */
} reshape_case;

#define MX TS_RESHAPE_MXNET
#define MXR (TS_RESHAPE_MXNET | TS_RESHAPE_REVERSE)

static const reshape_case cases[] = {
    /* NumPy rule */
    {"(2,3,4)", "(-1,4)", 0, "(6,4)", TS_OK, NULL},
    {"(2,3,4)", "(2,12)", 0, "(2,12)", TS_OK, NULL},
    {"(2,3,4)", "(-1,)", 0, "(24,)", TS_OK, NULL},
    {"(2,3,4)", "(4,-1,2)", 0, "(4,3,2)", TS_OK, NULL},
    {"(0,3)", "(-1,)", 0, "(0,)", TS_OK, NULL},
    {"(0,3)", "(3,0,5)", 0, "(3,0,5)", TS_OK, NULL},
    {"()", "(-1,)", 0, "(1,)", TS_OK, NULL},
    {"()", "()", 0, "()", TS_OK, NULL},
    {"(1,1)", "()", 0, "()", TS_OK, NULL},
    {"(2,3,4,5,6)", "(6,-1,6)", 0, "(6,20,6)", TS_OK, NULL},
    {"(0,)", "(4611686018427387904,4,0)", 0, "(4611686018427387904,4,0)", TS_OK, NULL},
    {"(2,3)", "()", 0, NULL, TS_ERR_SIZE, "cannot reshape (2,3) of size 6 into () of size 1"},
    {"(2,3,4)", "(5,-1)", 0, NULL, TS_ERR_SIZE,
     "cannot reshape (2,3,4) of size 24 into (5,-1): 24 is not a multiple of 5"},
    {"(2,3,4)", "(5,2,-1)", 0, NULL, TS_ERR_SIZE,
     "24 is not a multiple of 10, the product of the other dims"},
    {"(2,3,4)", "(7,4)", 0, NULL, TS_ERR_SIZE,
     "cannot reshape (2,3,4) of size 24 into (7,4) of size 28"},
    {"(2,3,4)", "(-1,-1)", 0, NULL, TS_ERR_VALUE, "can only specify one unknown dimension"},
    {"(2,3,4)", "(-2,12)", 0, NULL, TS_ERR_VALUE, "-2 at position 0 is not a dim"},
    {"(0,3)", "(0,-1)", 0, NULL, TS_ERR_SIZE,
     "cannot infer the -1 of (0,-1) for (0,3): the other dims multiply to 0, so any size fits"},
    {"(0,3)", "(-1,0)", 0, NULL, TS_ERR_SIZE, "so any size fits"},
    {"(2,3)", "(0,-1)", 0, NULL, TS_ERR_SIZE,
     "the other dims multiply to 0, so no size gives 6 elements"},
    {"(4,)", "(4611686018427387904,4,-1)", 0, NULL, TS_ERR_SIZE, "multiply to more than"},
    {"(4,)", "(4611686018427387904,4)", 0, NULL, TS_ERR_SIZE, "does not fit in int64"},
    {"(2,-3)", "(-1,)", 0, NULL, TS_ERR_VALUE, "reshape of (2,-3)"},
    {"(2,3)", "(6,)", TS_RESHAPE_REVERSE, NULL, TS_ERR_INVALID_ARG, "needs TS_RESHAPE_MXNET"},
    {"(2,3)", "(6,)", 0x80u, NULL, TS_ERR_INVALID_ARG, "unknown flag bits 0x80 in flags"},

    /* MXNet special values: every example of section 2.1 */
    {"(2,3,4)", "(4,0,2)", MX, "(4,3,2)", TS_OK, NULL},
    {"(2,3,4)", "(2,0,0)", MX, "(2,3,4)", TS_OK, NULL},
    {"(2,3,4)", "(6,1,-1)", MX, "(6,1,4)", TS_OK, NULL},
    {"(2,3,4)", "(3,-1,8)", MX, "(3,1,8)", TS_OK, NULL},
    {"(2,3,4)", "(-1,)", MX, "(24,)", TS_OK, NULL},
    {"(2,3,4)", "(-2,)", MX, "(2,3,4)", TS_OK, NULL},
    {"(2,3,4)", "(2,-2)", MX, "(2,3,4)", TS_OK, NULL},
    {"(2,3,4)", "(-2,1,1)", MX, "(2,3,4,1,1)", TS_OK, NULL},
    {"(2,3,4)", "(-3,4)", MX, "(6,4)", TS_OK, NULL},
    {"(2,3,4,5)", "(-3,-3)", MX, "(6,20)", TS_OK, NULL},
    {"(2,3,4)", "(0,-3)", MX, "(2,12)", TS_OK, NULL},
    {"(2,3,4)", "(-3,-2)", MX, "(6,4)", TS_OK, NULL},
    {"(2,3,4)", "(-4,1,2,-2)", MX, "(1,2,3,4)", TS_OK, NULL},
    {"(2,3,4)", "(2,-4,-1,3,-2)", MX, "(2,1,3,4)", TS_OK, NULL},
    {"(10,5,4)", "(-1,0)", MX, "(40,5)", TS_OK, NULL},
    {"(10,5,4)", "(-1,0)", MXR, "(50,4)", TS_OK, NULL},
    {"(2,3,4)", "(-1,0)", MXR, "(6,4)", TS_OK, NULL},
    {"(2,3,4)", "(-2,)", MXR, "(2,3,4)", TS_OK, NULL},
    {"(0,)", "(-4,0,5)", MX, "(0,5)", TS_OK, NULL},
    {"(6,)", "(-4,-1,3)", MX, "(2,3)", TS_OK, NULL},
    {"()", "(-2,)", MX, "()", TS_OK, NULL},
    /* MXNet hazards closed: size check compiled out, truncating -1, 0/0 */
    {"(2,3,4)", "(5,5)", MX, NULL, TS_ERR_SIZE, "the result (5,5) has 25 elements, the input 24"},
    {"(2,3,4)", "(7,-1)", MX, NULL, TS_ERR_SIZE,
     "cannot infer the -1 at position 1: 24 is not a multiple of 7"},
    {"(0,3)", "(0,-1)", MX, NULL, TS_ERR_SIZE, "so any size fits"},
    {"(2,3,4)", "(-1,-1)", MX, NULL, TS_ERR_VALUE,
     "-1 at positions 0 and 1: only one dim can be inferred"},
    {"(2,3,4)", "(-1,-1)", MXR, NULL, TS_ERR_VALUE, "-1 at positions 0 and 1"},
    {"(2,3,4)", "(0,0,0,0)", MX, NULL, TS_ERR_NDIM,
     "the 0 at position 3 has no input dim left to copy (the input has 3 dims)"},
    {"(2,3,4)", "(0,0,0,0)", MXR, NULL, TS_ERR_NDIM, "the 0 at position 0 has no input dim"},
    {"(2,3)", "(2,-3)", MX, NULL, TS_ERR_NDIM,
     "the -3 at position 1 needs two input dims to merge, but 1 of the 2 input dims is left"},
    {"()", "(-3,)", MX, NULL, TS_ERR_NDIM, "0 of the 0 input dims are left"},
    {"(6,)", "(-4,-1,-1)", MX, NULL, TS_ERR_VALUE, "only one of the two split dims can be -1"},
    {"(6,)", "(-4,4,-1)", MX, NULL, TS_ERR_SIZE,
     "splits input dim 0 (size 6) into (4,-1): 6 is not a multiple of 4"},
    {"(6,)", "(-4,2,2)", MX, NULL, TS_ERR_SIZE, "into (2,2), which do not multiply to 6"},
    {"(6,)", "(-4,2)", MX, NULL, TS_ERR_NDIM, "must be followed by the two dims"},
    {"(6,)", "(-4,2,3)", MXR, NULL, TS_ERR_NDIM, "must be preceded by the two dims"},
    {"(6,)", "(-4,0,-1)", MX, NULL, TS_ERR_SIZE, "next to a 0 the -1 cannot be inferred"},
    {"(0,)", "(-4,0,-1)", MX, NULL, TS_ERR_SIZE, "is ambiguous"},
    {"(6,)", "(-4,2,-2)", MX, NULL, TS_ERR_VALUE, "the split dim -2 at position 2"},
    {"()", "(-4,1,1)", MX, NULL, TS_ERR_NDIM, "no input dim left to split"},
    {"(6,)", "(-5,)", MX, NULL, TS_ERR_VALUE, "-5 at position 0 is not an MXNet reshape value"},
    {"(3,4)", "(-3,)", MX | TS_RESHAPE_REVERSE, "(12,)", TS_OK, NULL},
    {"(4611686018427387904,4)", "(-3,)", MX, NULL, TS_ERR_OVERFLOW, NULL},
};

START_TEST(test_reshape_table)
{
    const reshape_case *c = &cases[_i];
    ts_shape in = TS_SHAPE_INIT, target = TS_SHAPE_INIT, out = TS_SHAPE_INIT;
    ts_error err;
    tu_shape(&in, c->in);
    tu_shape(&target, c->target);
    ts_status st = ts_reshape(&in, &target, c->flags, &out, &err);
    if (c->expect) {
        ck_assert_msg(st == TS_OK, "%s -> %s: %s", c->in, c->target, err.message);
        tu_assert_shape(&out, c->expect);
    } else {
        ck_assert_msg(st == c->code, "%s -> %s: status %d, expected %d (%s)", c->in, c->target,
                      (int)st, (int)c->code, err.message);
        ck_assert_int_eq(err.code, c->code);
        if (c->msg)
            ck_assert_msg(strstr(err.message, c->msg) != NULL, "message '%s' lacks '%s'",
                          err.message, c->msg);
    }
    ts_shape_free(&in);
    ts_shape_free(&target);
    ts_shape_free(&out);
}
END_TEST

/* out may be the input or the target itself. */
START_TEST(test_reshape_alias)
{
    ts_shape s = TS_SHAPE_INIT, t = TS_SHAPE_INIT;
    tu_shape(&s, "(2,3,4,5,6)");
    tu_shape(&t, "(-1,5,6)");
    ck_assert_int_eq(ts_reshape(&s, &t, 0, &s, NULL), TS_OK);
    tu_assert_shape(&s, "(24,5,6)");
    tu_shape(&s, "(2,3,4,5,6)");
    tu_shape(&t, "(0,0,-3,-1)");
    ck_assert_int_eq(ts_reshape(&s, &t, TS_RESHAPE_MXNET, &t, NULL), TS_OK);
    tu_assert_shape(&t, "(2,3,20,6)");
    ts_shape_free(&s);
    ts_shape_free(&t);
}
END_TEST

/* A result beyond the inline storage, and beyond TS_MAX_NDIM. */
START_TEST(test_reshape_limits)
{
    ts_shape s = TS_SHAPE_INIT, t = TS_SHAPE_INIT, out = TS_SHAPE_INIT;
    ts_error err;
    int64_t dims[TS_MAX_NDIM];
    for (int i = 0; i < TS_MAX_NDIM; i++)
        dims[i] = 1;
    ck_assert_int_eq(ts_shape_assign(&s, dims, TS_MAX_NDIM, NULL), TS_OK);
    tu_shape(&t, "(-2,-2)");
    ck_assert_int_eq(ts_reshape(&s, &t, TS_RESHAPE_MXNET, &out, &err), TS_OK);
    ck_assert_int_eq(ts_shape_ndim(&out), TS_MAX_NDIM);
    tu_shape(&t, "(-2,1)");
    ck_assert_int_eq(ts_reshape(&s, &t, TS_RESHAPE_MXNET, &out, &err), TS_ERR_NDIM);
    ck_assert_ptr_nonnull(strstr(err.message, "more than 64 dims"));
    tu_shape(&t, "(-1,)");
    ck_assert_int_eq(ts_reshape(&s, &t, 0, &out, &err), TS_OK);
    tu_assert_shape(&out, "(1,)");
    ts_shape_free(&s);
    ts_shape_free(&t);
    ts_shape_free(&out);
}
END_TEST

Suite *reshape_suite(void)
{
    Suite *s = suite_create("reshape");
    TCase *tc = tcase_create("table");
    tcase_add_loop_test(tc, test_reshape_table, 0, (int)(sizeof cases / sizeof *cases));
    suite_add_tcase(s, tc);
    TCase *lim = tcase_create("limits");
    tcase_add_test(lim, test_reshape_alias);
    tcase_add_test(lim, test_reshape_limits);
    suite_add_tcase(s, lim);
    return s;
}
