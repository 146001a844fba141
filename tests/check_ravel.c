/* check_ravel.c - ts_ravel_index / ts_unravel_index: the NumPy examples of
 * peer-semantics.md 1.3 (orders, raise/wrap/clip, per-axis modes) and its
 * errors, with exact results, codes and message substrings. */
/* Tests functions of the experimental part of tshape.h. */
#define TS_EXPERIMENTAL_API
#include "testutil.h"

#include <string.h>

#define R TS_INDEX_RAISE
#define W TS_INDEX_WRAP
#define C TS_INDEX_CLIP

typedef struct ravel_case {
    const char *shape, *index;
    char order;
    size_t nmodes;
    ts_index_mode modes[3];
    int64_t expect;
    ts_status code;
    const char *msg;
} ravel_case;

static const ravel_case ravel_cases[] = {
    {"(3,4)", "(1,2)", 'C', 0, {R}, 6, TS_OK, NULL},
    {"(3,4)", "(1,2)", 'F', 0, {R}, 7, TS_OK, NULL},
    {"(3,4)", "(0,2)", 'C', 1, {R}, 2, TS_OK, NULL},
    {"(3,4)", "(1,3)", 'F', 0, {R}, 10, TS_OK, NULL},
    {"(3,4)", "(3,-1)", 'C', 1, {W}, 3, TS_OK, NULL},
    {"(3,4)", "(3,-1)", 'C', 1, {C}, 8, TS_OK, NULL},
    {"(3,4)", "(3,-1)", 'C', 2, {C, W}, 11, TS_OK, NULL},
    {"(3,4)", "(-7,-9)", 'C', 1, {W}, 11, TS_OK, NULL},
    {"(3,4)", "(9223372036854775807,-9223372036854775807)", 'C', 1, {W}, 5, TS_OK, NULL},
    {"(3,4)", "(9223372036854775807,-9223372036854775807)", 'C', 1, {C}, 8, TS_OK, NULL},
    {"(2,3,4)", "(1,2,3)", 'C', 0, {R}, 23, TS_OK, NULL},
    {"(2,3,4)", "(1,2,3)", 'F', 0, {R}, 23, TS_OK, NULL},
    {"(2,3,4)", "(1,0,0)", 'F', 0, {R}, 1, TS_OK, NULL},
    {"()", "()", 'C', 0, {R}, 0, TS_OK, NULL},
    {"(3,4)", "(3,1)", 'C', 0, {R}, 0, TS_ERR_INDEX,
     "index (3,1) is out of bounds for shape (3,4): 3 >= 3 on axis 0"},
    {"(3,4)", "(1,-1)", 'C', 0, {R}, 0, TS_ERR_INDEX,
     "index (1,-1) is out of bounds for shape (3,4): -1 < 0 on axis 1"},
    {"(3,4)", "(3,-1)", 'C', 2, {W, R}, 0, TS_ERR_INDEX, "-1 < 0 on axis 1"},
    {"(3,4)", "(1,2,3)", 'C', 0, {R}, 0, TS_ERR_NDIM,
     "index (1,2,3) has 3 entries but the shape (3,4) has 2 dims"},
    {"(3,0)", "(1,0)", 'C', 1, {C}, 0, TS_ERR_INDEX,
     "cannot ravel index (1,0) into (3,0): the shape has no elements (axis 1 has size 0)"},
    /* no strides are computed without elements: the other dims overflow */
    {"(4,0,4611686018427387904)", "(0,0,0)", 'C', 1, {W}, 0, TS_ERR_INDEX, "has no elements"},
    {"(3,4)", "(1,2)", 'X', 0, {R}, 0, TS_ERR_INVALID_ARG, "order must be 'C'"},
    {"(2,3,4)", "(1,2,3)", 'C', 2, {R, R}, 0, TS_ERR_INVALID_ARG, "2 modes given for the 3 dims"},
    {"(3,4)", "(1,2)", 'C', 1, {(ts_index_mode)7}, 0, TS_ERR_INVALID_ARG,
     "mode 7 is not raise, wrap or clip"},
    {"(4294967296,4294967296)", "(0,0)", 'C', 0, {R}, 0, TS_ERR_OVERFLOW, NULL},
};

START_TEST(test_ravel)
{
    const ravel_case *c = &ravel_cases[_i];
    ts_shape s = TS_SHAPE_INIT, ix = TS_SHAPE_INIT;
    ts_error err;
    int64_t flat = -42;
    tu_shape(&s, c->shape);
    tu_shape(&ix, c->index);
    ts_status st = ts_ravel_index(&s, ts_shape_dims(&ix), (size_t)ts_shape_ndim(&ix), c->order,
                                  c->modes, c->nmodes, &flat, &err);
    if (c->code == TS_OK) {
        ck_assert_msg(st == TS_OK, "%s %s: %s", c->shape, c->index, err.message);
        ck_assert_int_eq(flat, c->expect);
    } else {
        ck_assert_msg(st == c->code, "%s %s: status %d, expected %d (%s)", c->shape, c->index,
                      (int)st, (int)c->code, err.message);
        if (c->msg)
            ck_assert_msg(strstr(err.message, c->msg) != NULL, "message '%s' lacks '%s'",
                          err.message, c->msg);
    }
    ts_shape_free(&s);
    ts_shape_free(&ix);
}
END_TEST

typedef struct unravel_case {
    const char *shape;
    int64_t flat;
    char order;
    const char *expect;
    ts_status code;
    const char *msg;
} unravel_case;

static const unravel_case unravel_cases[] = {
    {"(7,6)", 22, 'C', "(3,4)", TS_OK, NULL},
    {"(7,6)", 22, 'F', "(1,3)", TS_OK, NULL},
    {"(7,6)", 41, 'C', "(6,5)", TS_OK, NULL},
    {"(7,6)", 0, 'F', "(0,0)", TS_OK, NULL},
    {"(2,3,4)", 23, 'C', "(1,2,3)", TS_OK, NULL},
    {"(2,3,4)", 1, 'F', "(1,0,0)", TS_OK, NULL},
    {"(1,1,5)", 3, 'C', "(0,0,3)", TS_OK, NULL},
    {"()", 0, 'C', "()", TS_OK, NULL},
    {"(7,6)", 42, 'C', NULL, TS_ERR_INDEX,
     "flat index 42 is out of bounds for shape (7,6) of size 42: expected 0..41"},
    {"(7,6)", -1, 'C', NULL, TS_ERR_INDEX, "flat index -1 is out of bounds"},
    {"()", 1, 'C', NULL, TS_ERR_INDEX, "flat index 1 is out of bounds for shape () of size 1"},
    {"(4,0,4611686018427387904)", 0, 'F', NULL, TS_ERR_INDEX, "it has no elements"},
    {"(0,)", 0, 'C', NULL, TS_ERR_INDEX,
     "flat index 0 is out of bounds for shape (0,): it has no elements"},
    {"(7,6)", 1, 'Z', NULL, TS_ERR_INVALID_ARG, "unravel: order must be"},
    {"(4294967296,4294967296)", 1, 'C', NULL, TS_ERR_OVERFLOW, "unravel in"},
};

START_TEST(test_unravel)
{
    const unravel_case *c = &unravel_cases[_i];
    ts_shape s = TS_SHAPE_INIT, got = TS_SHAPE_INIT;
    ts_error err;
    int64_t idx[TS_MAX_NDIM];
    tu_shape(&s, c->shape);
    ts_status st = ts_unravel_index(&s, c->flat, c->order, idx, &err);
    if (c->expect) {
        ck_assert_msg(st == TS_OK, "%s %lld: %s", c->shape, (long long)c->flat, err.message);
        ck_assert_int_eq(ts_shape_assign(&got, idx, ts_shape_ndim(&s), NULL), TS_OK);
        tu_assert_shape(&got, c->expect);
    } else {
        ck_assert_int_eq(st, c->code);
        ck_assert_msg(strstr(err.message, c->msg) != NULL, "message '%s' lacks '%s'",
                      err.message, c->msg);
    }
    ts_shape_free(&s);
    ts_shape_free(&got);
}
END_TEST

/* ravel(unravel(k)) == k over a whole shape, both orders. */
START_TEST(test_roundtrip)
{
    ts_shape s = TS_SHAPE_INIT;
    tu_shape(&s, "(3,1,4,2,5)");
    for (int o = 0; o < 2; o++) {
        char order = o ? 'F' : 'C';
        for (int64_t k = 0; k < 120; k++) {
            int64_t idx[5], back = -1;
            ck_assert_int_eq(ts_unravel_index(&s, k, order, idx, NULL), TS_OK);
            ck_assert_int_eq(ts_ravel_index(&s, idx, 5, order, NULL, 0, &back, NULL), TS_OK);
            ck_assert_int_eq(back, k);
        }
    }
    ts_shape_free(&s);
}
END_TEST

#define NCASES(a) (int)(sizeof a / sizeof *a)

Suite *ravel_suite(void)
{
    Suite *s = suite_create("ravel");
    TCase *tc = tcase_create("table");
    tcase_add_loop_test(tc, test_ravel, 0, NCASES(ravel_cases));
    tcase_add_loop_test(tc, test_unravel, 0, NCASES(unravel_cases));
    tcase_add_test(tc, test_roundtrip);
    suite_add_tcase(s, tc);
    return s;
}
