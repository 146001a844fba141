/*
 * check_caffe2.c - caffe2::Tensor dims arithmetic (src/ops/caffe2.c):
 * Extend, Shrink and Resize/SetDims from seed 004, with the CAFFE_ENFORCE
 * conditions turned into errors that say which numbers.
 */
/* Tests functions of the experimental part of tshape.h. */
#define TS_EXPERIMENTAL_API
#include "testutil.h"

#include <string.h>

#define N(a) ((int)(sizeof(a) / sizeof *(a)))

enum { EXTEND, SHRINK };

typedef struct outer_case {
    int op;
    const char *shape;
    int64_t n;
    const char *out;
    ts_status code;
    const char *msg;
} outer_case;

static const outer_case outer_cases[] = {
    {EXTEND, "(4,3)", 2, "(6,3)", TS_OK, NULL},
    {EXTEND, "(4,3)", 0, "(4,3)", TS_OK, NULL},
    {EXTEND, "(0,3)", 5, "(5,3)", TS_OK, NULL},
    {EXTEND, "(7,)", 1, "(8,)", TS_OK, NULL},
    {EXTEND, "(1,2,3,4,5)", 9, "(10,2,3,4,5)", TS_OK, NULL},
    {EXTEND, "()", 2, NULL, TS_ERR_NDIM,
     "extend: the scalar () has no outermost dim (Caffe2: Tensor must be at least 1D)"},
    {EXTEND, "(4,3)", -1, NULL, TS_ERR_VALUE,
     "extend: the number of rows to add must be >= 0, not -1"},
    {EXTEND, "(9223372036854775807,1)", 1, NULL, TS_ERR_OVERFLOW,
     "extend: outer dim 9223372036854775807 of (9223372036854775807,1) plus 1 does not fit in "
     "int64"},
    {EXTEND, "(4611686018427387903,2)", 1, NULL, TS_ERR_OVERFLOW,
     "extend: the product of (4611686018427387904,2) does not fit in int64"},
    {SHRINK, "(4,3)", 2, "(2,3)", TS_OK, NULL},
    {SHRINK, "(4,3)", 4, "(4,3)", TS_OK, NULL},
    {SHRINK, "(4,3)", 0, "(0,3)", TS_OK, NULL},
    {SHRINK, "(4,3)", 7, NULL, TS_ERR_VALUE,
     "shrink: new outer dim 7 exceeds the current outer dim 4 of (4,3) (Caffe2: New outer "
     "dimension must be smaller than current.)"},
    {SHRINK, "(4,3)", -1, NULL, TS_ERR_VALUE, "shrink: new outer dim -1 is negative"},
    {SHRINK, "()", 0, NULL, TS_ERR_NDIM, "shrink: the scalar () has no outermost dim"},
    {SHRINK, "(4,-3)", 1, NULL, TS_ERR_VALUE, "shrink: dim 1 of (4,-3) is negative"},
};

START_TEST(test_outer_table)
{
    const outer_case *c = &outer_cases[_i];
    ts_shape s = TS_SHAPE_INIT, out = TS_SHAPE_INIT;
    ts_error err;
    tu_shape(&s, c->shape);
    ts_status st = c->op == EXTEND ? ts_caffe2_extend(&s, c->n, &out, &err)
                                   : ts_caffe2_shrink(&s, c->n, &out, &err);
    if (c->out) {
        ck_assert_msg(st == TS_OK, "case %d: %s", _i, err.message);
        tu_assert_shape(&out, c->out);
        /* in place too */
        ck_assert_int_eq(c->op == EXTEND ? ts_caffe2_extend(&s, c->n, &s, NULL)
                                         : ts_caffe2_shrink(&s, c->n, &s, NULL), TS_OK);
        tu_assert_shape(&s, c->out);
    } else {
        ck_assert_int_eq(st, c->code);
        ck_assert_msg(strstr(err.message, c->msg), "case %d: '%s' lacks '%s'", _i, err.message,
                      c->msg);
    }
    ts_shape_free(&s);
    ts_shape_free(&out);
}
END_TEST

typedef struct resize_case {
    const char *shape, *new_dims;
    int64_t old_size, size;
    int changed;
    ts_status code;
    const char *msg;
} resize_case;

static const resize_case resize_cases[] = {
    {"(3,4)", "(2,6)", 12, 12, 0, TS_OK, NULL},
    {"(3,4)", "(2,7)", 12, 14, 1, TS_OK, NULL},
    {"(3,4)", "(12,)", 12, 12, 0, TS_OK, NULL},
    {"()", "(1,1,1)", 1, 1, 0, TS_OK, NULL},
    {"(0,5)", "(5,0)", 0, 0, 0, TS_OK, NULL},
    {"(0,5)", "()", 0, 1, 1, TS_OK, NULL},
    {"(2,3,4,5,6)", "(720,)", 720, 720, 0, TS_OK, NULL},
    {"(3,4)", "(2,-1)", 0, 0, 0, TS_ERR_VALUE, "resize: the new shape: dim 1 is negative (-1)"},
    {"(4294967296,4294967296)", "(2,)", 0, 0, 0, TS_ERR_OVERFLOW,
     "resize: the old shape: the product of (4294967296,4294967296) does not fit in int64"},
};

START_TEST(test_resize_table)
{
    const resize_case *c = &resize_cases[_i];
    ts_shape s = TS_SHAPE_INIT, nd = TS_SHAPE_INIT, out = TS_SHAPE_INIT;
    int64_t before = -7, after = -7;
    int changed = -7;
    ts_error err;
    tu_shape(&s, c->shape);
    tu_shape(&nd, c->new_dims);
    ts_status st = ts_caffe2_resize(&s, &nd, &out, &before, &after, &changed, &err);
    if (c->code == TS_OK) {
        ck_assert_msg(st == TS_OK, "case %d: %s", _i, err.message);
        tu_assert_shape(&out, c->new_dims);
        ck_assert_int_eq(before, c->old_size);
        ck_assert_int_eq(after, c->size);
        ck_assert_int_eq(changed, c->changed);
        ck_assert_int_eq(ts_caffe2_resize(&s, &nd, &s, NULL, NULL, NULL, NULL), TS_OK);
        tu_assert_shape(&s, c->new_dims);
    } else {
        ck_assert_int_eq(st, c->code);
        ck_assert_msg(strstr(err.message, c->msg), "case %d: '%s' lacks '%s'", _i, err.message,
                      c->msg);
    }
    ts_shape_free(&s);
    ts_shape_free(&nd);
    ts_shape_free(&out);
}
END_TEST

Suite *caffe2_suite(void)
{
    Suite *s = suite_create("caffe2");
    TCase *tc = tcase_create("dims");
    tcase_add_loop_test(tc, test_outer_table, 0, N(outer_cases));
    tcase_add_loop_test(tc, test_resize_table, 0, N(resize_cases));
    suite_add_tcase(s, tc);
    return s;
}
