/*
 * check_slice.c - TensorWrapper slices, chips and index iteration
 * (src/ops/slice.c): every example of shapev1.rst "Slicing and Chipping" and
 * "Iterating", TensorWrapper's slice unit test (which we reject, because its
 * end exceeds the extent), and the bound checks TensorWrapper's code lacks.
 */
/* Tests functions of the experimental part of tshape.h. */
#define TS_EXPERIMENTAL_API
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N(a) ((int)(sizeof(a) / sizeof *(a)))

/* A list literal such as "(0,2)" as dims; NULL text gives NULL. */
typedef struct ilist {
    int64_t v[TS_MAX_NDIM];
    int n;
} ilist;

static const int64_t *ilist_of(ilist *l, const char *text)
{
    if (!text) {
        l->n = 0;
        return NULL;
    }
    ts_shape s = TS_SHAPE_INIT;
    tu_shape(&s, text);
    l->n = ts_shape_ndim(&s);
    memcpy(l->v, ts_shape_dims(&s), (size_t)l->n * sizeof(int64_t));
    ts_shape_free(&s);
    return l->v;
}

typedef struct slice_case {
    int chip;
    const char *shape, *begin, *end;   /* end NULL: short form */
    const char *out, *origin;          /* out NULL: error expected */
    ts_status code;
    const char *msg;                   /* substring of the message */
} slice_case;

static const slice_case slice_cases[] = {
    /* shapev1.rst, Shape s{10, 20} */
    {0, "(10,20)", "(0,)", NULL, "(1,20)", "(0,0)", TS_OK, NULL},           /* s.slice(0) */
    {0, "(10,20)", "(0,0)", "(10,1)", "(10,1)", "(0,0)", TS_OK, NULL},      /* column 0 */
    {0, "(10,20)", "(0,0)", "(5,5)", "(5,5)", "(0,0)", TS_OK, NULL},
    {0, "(10,20)", "(0,0)", "(1,5)", "(1,5)", "(0,0)", TS_OK, NULL},
    {1, "(10,20)", "(2,)", NULL, "(20,)", "(0,)", TS_OK, NULL},             /* s.chip(2) */
    {1, "(10,20)", "(0,2)", "(10,3)", "(10,)", "(0,)", TS_OK, NULL},        /* column 2 */
    /* iteration example: s.slice({0,1},{1,3}) of (2,3) has origin (0,1) */
    {0, "(2,3)", "(0,1)", "(1,3)", "(1,2)", "(0,1)", TS_OK, NULL},
    /* short forms */
    {0, "(10,20)", "(3,7)", NULL, "(1,1)", "(3,7)", TS_OK, NULL},
    {1, "(10,20)", "(3,7)", NULL, "()", "()", TS_OK, NULL},
    {0, "(10,20)", "()", NULL, "(10,20)", "(0,0)", TS_OK, NULL},
    {1, "(1,5)", "()", NULL, "(5,)", "(0,)", TS_OK, NULL},                  /* extent-1 mode goes */
    {0, "()", "()", NULL, "()", "()", TS_OK, NULL},
    {0, "()", "()", "()", "()", "()", TS_OK, NULL},
    /* empty ranges are allowed (TensorWrapper throws) and kept by chip */
    {0, "(10,4)", "(2,0)", "(2,4)", "(0,4)", "(2,0)", TS_OK, NULL},
    {1, "(10,4)", "(2,1)", "(2,2)", "(0,)", "(2,)", TS_OK, NULL},
    {0, "(0,3)", "(0,0)", "(0,3)", "(0,3)", "(0,0)", TS_OK, NULL},
    /* heap-stored rank */
    {0, "(2,3,4,5,6,7)", "(1,1,1,1,1,1)", "(2,3,4,5,6,7)", "(1,2,3,4,5,6)",
     "(1,1,1,1,1,1)", TS_OK, NULL},
    {1, "(2,3,4,5,6,7)", "(1,2,3)", NULL, "(5,6,7)", "(0,0,0)", TS_OK, NULL},
    /* TensorWrapper's unit test slices {2,4} with {1,1},{3,2} and expects
     * {2,1}: its end 3 exceeds the extent 2, which we reject. */
    {0, "(2,4)", "(1,1)", "(3,2)", NULL, NULL, TS_ERR_INDEX,
     "slice end 3 exceeds extent 2 of axis 0 of (2,4)"},
    {0, "(10,4)", "(0,0)", "(5,5)", NULL, NULL, TS_ERR_INDEX,
     "slice end 5 exceeds extent 4 of axis 1 of (10,4)"},
    {1, "(10,4)", "(0,0)", "(5,5)", NULL, NULL, TS_ERR_INDEX,
     "chip end 5 exceeds extent 4 of axis 1 of (10,4)"},
    {0, "(10,4)", "(3,0)", "(2,4)", NULL, NULL, TS_ERR_VALUE,
     "slice begin 3 is after end 2 on axis 0 of (10,4)"},
    {0, "(10,4)", "(-1,0)", "(2,4)", NULL, NULL, TS_ERR_INDEX,
     "slice begin -1 of axis 0 is negative"},
    {0, "(10,4)", "(0,0,0)", "(1,1,1)", NULL, NULL, TS_ERR_NDIM,
     "slice begin has 3 indices but shape (10,4) has 2 axes"},
    {0, "(10,4)", "(0,0)", "(1,1,1)", NULL, NULL, TS_ERR_NDIM,
     "slice end has 3 indices but shape (10,4) has 2 axes"},
    {0, "(10,20)", "(10,)", NULL, NULL, NULL, TS_ERR_INDEX,
     "slice index 10 is out of bounds for axis 0 with extent 10 of (10,20)"},
    {1, "(10,20)", "(1,2,3)", NULL, NULL, NULL, TS_ERR_NDIM,
     "chip: 3 pinned indices given but shape (10,20) has 2 axes"},
    {0, "(3,-2)", "(0,0)", "(1,1)", NULL, NULL, TS_ERR_VALUE, "dim 1 is negative"},
};

START_TEST(test_slice_table)
{
    const slice_case *c = &slice_cases[_i];
    ts_shape s = TS_SHAPE_INIT, out = TS_SHAPE_INIT, origin = TS_SHAPE_INIT;
    ilist b, e;
    ts_error err;
    tu_shape(&s, c->shape);
    const int64_t *bp = ilist_of(&b, c->begin);
    const int64_t *ep = ilist_of(&e, c->end);
    ts_status st = c->chip ? ts_shape_chip(&s, bp, b.n, ep, e.n, &out, &origin, &err)
                           : ts_shape_slice(&s, bp, b.n, ep, e.n, &out, &origin, &err);
    if (c->out) {
        ck_assert_msg(st == TS_OK, "case %d: %s", _i, err.message);
        tu_assert_shape(&out, c->out);
        tu_assert_shape(&origin, c->origin);
    } else {
        ck_assert_int_eq(st, c->code);
        ck_assert_int_eq(err.code, c->code);
        ck_assert_msg(strstr(err.message, c->msg), "case %d: '%s' lacks '%s'", _i, err.message,
                      c->msg);
    }
    ts_shape_free(&s);
    ts_shape_free(&out);
    ts_shape_free(&origin);
}
END_TEST

/* out may be the input shape itself, and origin may be NULL. */
START_TEST(test_slice_alias)
{
    ts_shape s = TS_SHAPE_INIT;
    int64_t b[2] = {2, 3}, e[2] = {7, 4};
    tu_shape(&s, "(10,20)");
    ck_assert_int_eq(ts_shape_slice(&s, b, 2, e, 2, &s, NULL, NULL), TS_OK);
    tu_assert_shape(&s, "(5,1)");
    /* Every mode with a range of extent 1 goes, also an unpinned one. */
    ck_assert_int_eq(ts_shape_chip(&s, b, 1, NULL, 0, &s, NULL, NULL), TS_OK);
    tu_assert_shape(&s, "()");
    ts_shape_free(&s);
}
END_TEST

/* ---- iteration ---------------------------------------------------------- */

/* Collects every index as "(a,b)" text joined by spaces. */
static void iterate(const char *shape, const char *origin, int offsets, char *buf, size_t cap)
{
    ts_shape s = TS_SHAPE_INIT;
    ts_index_iter it;
    ilist o;
    ts_error err;
    tu_shape(&s, shape);
    const int64_t *op = ilist_of(&o, origin);
    ck_assert_msg(ts_index_iter_init(&it, &s, op, o.n, &err) == TS_OK, "%s", err.message);
    size_t pos = 0;
    buf[0] = '\0';
    while (ts_index_iter_next(&it)) {
        ts_shape idx = TS_SHAPE_INIT;
        ts_shape_assign(&idx, offsets ? it.offset : it.index, it.ndim, NULL);
        char one[128];
        ts_shape_format(&idx, 0, one, sizeof one);
        pos += (size_t)snprintf(buf + pos, cap - pos, "%s%s", pos ? " " : "", one);
        ts_shape_free(&idx);
        ck_assert(pos < cap);
    }
    ck_assert_int_eq(ts_index_iter_next(&it), 0); /* stays done */
    ts_shape_free(&s);
}

typedef struct iter_case {
    const char *shape, *origin;
    int offsets;
    const char *expect;
} iter_case;

static const iter_case iter_cases[] = {
    /* shapev1.rst: Shape s{2, 3} prints {0,0} {0,1} {0,2} {1,0} {1,1} {1,2} */
    {"(2,3)", NULL, 0, "(0,0) (0,1) (0,2) (1,0) (1,1) (1,2)"},
    /* s.set_origin({10, 10}) */
    {"(2,3)", "(10,10)", 0, "(10,10) (10,11) (10,12) (11,10) (11,11) (11,12)"},
    {"(2,3)", "(10,10)", 1, "(0,0) (0,1) (0,2) (1,0) (1,1) (1,2)"},
    /* the slice {0,1}..{1,3} of (2,3): shape (1,2), origin (0,1) -> {0,1} {0,2} */
    {"(1,2)", "(0,1)", 0, "(0,1) (0,2)"},
    {"(1,2)", "(0,1)", 1, "(0,0) (0,1)"},
    {"(3,)", NULL, 0, "(0,) (1,) (2,)"},
    {"()", NULL, 0, "()"},
    {"(0,3)", NULL, 0, ""},
    {"(3,0)", "(1,1)", 0, ""},
    {"(1,1,2)", "(5,6,7)", 0, "(5,6,7) (5,6,8)"},
};

START_TEST(test_iter_table)
{
    char buf[512];
    iterate(iter_cases[_i].shape, iter_cases[_i].origin, iter_cases[_i].offsets, buf,
            sizeof buf);
    ck_assert_str_eq(buf, iter_cases[_i].expect);
}
END_TEST

/* A large shape iterates in constant memory: count the indices. */
START_TEST(test_iter_count)
{
    ts_shape s = TS_SHAPE_INIT;
    ts_index_iter it;
    tu_shape(&s, "(7,1,5,3,2,4)");
    ck_assert_int_eq(ts_index_iter_init(&it, &s, NULL, 0, NULL), TS_OK);
    int64_t n = 0, last[6] = {0};
    while (ts_index_iter_next(&it)) {
        n++;
        memcpy(last, it.index, sizeof last);
    }
    ck_assert_int_eq(n, 840);
    ck_assert_int_eq(last[0], 6);
    ck_assert_int_eq(last[5], 3);
    ts_shape_free(&s);
}
END_TEST

START_TEST(test_iter_errors)
{
    ts_shape s = TS_SHAPE_INIT;
    ts_index_iter it;
    ts_error err;
    int64_t o2[2] = {INT64_MAX, 0}, neg[2] = {0, -1}, ok_max[2] = {INT64_MAX - 1, 0};
    tu_shape(&s, "(2,3)");
    ck_assert_int_eq(ts_index_iter_init(&it, &s, o2, 1, &err), TS_ERR_NDIM);
    ck_assert_str_eq(err.message, "origin has 1 indices but shape (2,3) has 2 axes");
    ck_assert_int_eq(ts_index_iter_init(&it, &s, o2, 2, &err), TS_ERR_OVERFLOW);
    ck_assert_ptr_nonnull(strstr(err.message, "origin 9223372036854775807 plus extent 2 of axis 0"));
    ck_assert_int_eq(ts_index_iter_init(&it, &s, ok_max, 2, &err), TS_OK);
    ck_assert_int_eq(ts_index_iter_init(&it, &s, neg, 2, &err), TS_ERR_VALUE);
    ck_assert_str_eq(err.message, "origin -1 of axis 1 is negative: indices are >= 0");
    ts_shape_free(&s);
}
END_TEST

Suite *slice_suite(void)
{
    Suite *s = suite_create("slice");
    TCase *tc = tcase_create("slice");
    tcase_add_loop_test(tc, test_slice_table, 0, N(slice_cases));
    tcase_add_test(tc, test_slice_alias);
    suite_add_tcase(s, tc);
    tc = tcase_create("iter");
    tcase_add_loop_test(tc, test_iter_table, 0, N(iter_cases));
    tcase_add_test(tc, test_iter_count);
    tcase_add_test(tc, test_iter_errors);
    suite_add_tcase(s, tc);
    return s;
}
