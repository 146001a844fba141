/*
 * check_einsum.c - einsum output shapes (NumPy rules, peer-semantics 1.7)
 * and TensorWrapper labelled composition (shapev1.rst "Shape Composition",
 * peer-semantics 6). The random NumPy cross-check is tests/crosscheck_einsum.py.
 */
/* Tests functions of the experimental part of tshape.h. */
#define TS_EXPERIMENTAL_API
#include "testutil.h"

#include <string.h>

#define N(a) ((int)(sizeof(a) / sizeof *(a)))

typedef struct einsum_case {
    const char *spec;
    const char *ops[4];          /* operand shapes, NULL-terminated */
    const char *out;             /* NULL: error expected */
    ts_status code;
    const char *msg;             /* substring of the message */
    int column;                  /* expected err.column, or 0 */
} einsum_case;

static const einsum_case einsum_cases[] = {
    /* peer-semantics 1.7 */
    {"ij,jk", {"(2,3)", "(3,4)"}, "(2,4)", TS_OK, NULL, 0},
    {"ba", {"(2,3)"}, "(3,2)", TS_OK, NULL, 0},
    {"ii", {"(3,3)"}, "()", TS_OK, NULL, 0},
    {"ij,jk->", {"(2,3)", "(3,4)"}, "()", TS_OK, NULL, 0},
    {"ii->i", {"(3,3)"}, "(3,)", TS_OK, NULL, 0},
    {"ij,j", {"(2,3)", "(1,)"}, "(2,)", TS_OK, NULL, 0},
    {"...ij,...jk", {"(5,1,2,3)", "(4,3,7)"}, "(5,4,2,7)", TS_OK, NULL, 0},
    {"ij->k", {"(2,3)"}, NULL, TS_ERR_VALUE,
     "einsum(): output subscript k at column 5 does not appear in the equation for any input "
     "operand", 5},
    {"ij,jk", {"(2,3)", "(4,4)"}, NULL, TS_ERR_BROADCAST,
     "einsum(): subscript j has size 4 for operand 1 which does not broadcast with "
     "previously seen size 3", 0},
    /* NumPy docstring forms */
    {"i,i", {"(5,)", "(5,)"}, "()", TS_OK, NULL, 0},          /* inner */
    {"i,j", {"(2,)", "(3,)"}, "(2,3)", TS_OK, NULL, 0},       /* outer */
    {",", {"()", "()"}, "()", TS_OK, NULL, 0},                /* multiply */
    {"i...->", {"(2,3,4)"}, NULL, TS_ERR_VALUE, "no '...' to keep them", 0},
    {"i...->...", {"(2,3,4)"}, "(3,4)", TS_OK, NULL, 0},
    {"i...i", {"(3,5,3)"}, "(5,)", TS_OK, NULL, 0},
    {"ij...,jk...->ik...", {"(2,3,5)", "(3,4,5)"}, "(2,4,5)", TS_OK, NULL, 0},
    /* implicit output sorts in ASCII order: upper case first */
    {"aB", {"(2,3)"}, "(3,2)", TS_OK, NULL, 0},
    {"ij,jk,kl", {"(2,3)", "(3,4)", "(4,5)"}, "(2,5)", TS_OK, NULL, 0},
    {" i j , j k -> k i ", {"(2,3)", "(3,4)"}, "(4,2)", TS_OK, NULL, 0},  /* spaces */
    {"->", {"()"}, "()", TS_OK, NULL, 0},
    {"", {"()"}, "()", TS_OK, NULL, 0},
    /* size-1 and 0 broadcasting */
    {"i,i->i", {"(0,)", "(1,)"}, "(0,)", TS_OK, NULL, 0},
    {"i,i->i", {"(1,)", "(4,)"}, "(4,)", TS_OK, NULL, 0},
    {"i,i->i", {"(0,)", "(2,)"}, NULL, TS_ERR_BROADCAST,
     "subscript i has size 2 for operand 1 which does not broadcast with previously seen size 0",
     0},
    {"...,...", {"(2,1)", "(3,)"}, "(2,3)", TS_OK, NULL, 0},
    {"...,...", {"(2,4)", "(3,)"}, NULL, TS_ERR_BROADCAST,
     "dim 0 of the ellipsis of operand 1 has size 3 which does not broadcast with previously "
     "seen size 4", 0},
    /* a repeated label within one operand needs equal dims, no broadcasting */
    {"ii", {"(1,3)"}, NULL, TS_ERR_SIZE,
     "einsum(): subscript i is repeated for operand 0 but the sizes don't match, 1 != 3", 0},
    {"ii->i", {"(0,4)"}, NULL, TS_ERR_SIZE, "sizes don't match, 0 != 4", 0},
    /* syntax */
    {"i1,j", {"(2,)", "(3,)"}, NULL, TS_ERR_PARSE,
     "einsum(): invalid subscript '1' at column 2, subscripts must be letters [a-zA-Z]", 2},
    {"i.j", {"(2,3)"}, NULL, TS_ERR_PARSE, "'.' at column 2 in operand 0 is not part of an ellipsis", 2},
    {"...i...", {"(2,3)"}, NULL, TS_ERR_PARSE, "a second ellipsis at column 5 in operand 0", 5},
    {"ij-k", {"(2,3)"}, NULL, TS_ERR_PARSE, "'-' at column 3 is not followed by '>'", 3},
    {"ij->ii", {"(2,3)"}, NULL, TS_ERR_PARSE,
     "output subscript i appears more than once, at columns 5 and 6", 6},
    {"ij->i,j", {"(2,3)"}, NULL, TS_ERR_PARSE, "invalid subscript ',' at column 6 in the output", 6},
    {"ij->i.", {"(2,3)"}, NULL, TS_ERR_PARSE, "'.' at column 6 in the output is not part", 6},
    {"i>j", {"(2,3)"}, NULL, TS_ERR_PARSE, "invalid subscript '>' at column 2", 2},
    {"i\xc3", {"(2,3)"}, NULL, TS_ERR_PARSE, "invalid subscript byte 0xc3 at column 2", 2},
    /* operand and label counts */
    {"ij,jk", {"(2,3)"}, NULL, TS_ERR_INVALID_ARG,
     "einsum(): the equation 'ij,jk' has 2 operand terms but 1 operand was given", 0},
    {"ij", {"(2,3)", "(3,)"}, NULL, TS_ERR_INVALID_ARG, "has 1 operand term but 2 operands were given", 0},
    {"ij", {"(2,3,4)"}, NULL, TS_ERR_NDIM,
     "einsum(): operand 0 has 3 dims (2,3,4) but the equation gives it 2 subscripts 'ij' and no "
     "ellipsis '...'", 1},
    {"ijk", {"(2,3)"}, NULL, TS_ERR_NDIM, "too many subscripts for operand 0", 3},
    {"ijk...", {"(2,3)"}, NULL, TS_ERR_NDIM, "too many subscripts for operand 0", 3},
};

START_TEST(test_einsum_table)
{
    const einsum_case *c = &einsum_cases[_i];
    ts_shape ops[4], out = TS_SHAPE_INIT;
    int n = 0;
    ts_error err;
    while (n < 4 && c->ops[n]) {
        ts_shape_init(&ops[n]);
        tu_shape(&ops[n], c->ops[n]);
        n++;
    }
    ts_status st = ts_einsum_shape(c->spec, ops, n, &out, &err);
    if (c->out) {
        ck_assert_msg(st == TS_OK, "case %d '%s': %s", _i, c->spec, err.message);
        tu_assert_shape(&out, c->out);
        ck_assert_int_eq(err.code, TS_OK);
    } else {
        ck_assert_msg(st == c->code, "case %d '%s': status %d, message %s", _i, c->spec, st,
                      err.message);
        ck_assert_int_eq(err.code, c->code);
        ck_assert_msg(strstr(err.message, c->msg), "case %d: '%s' lacks '%s'", _i, err.message,
                      c->msg);
        if (c->column)
            ck_assert_int_eq(err.column, c->column);
    }
    for (int i = 0; i < n; i++)
        ts_shape_free(&ops[i]);
    ts_shape_free(&out);
}
END_TEST

START_TEST(test_einsum_args)
{
    ts_shape out = TS_SHAPE_INIT;
    ts_error err;
    ck_assert_int_eq(ts_einsum_shape("i", NULL, 0, &out, &err), TS_ERR_INVALID_ARG);
    ck_assert_str_eq(err.message, "einsum(): at least one operand is needed, got 0");
    ck_assert_int_eq(ts_einsum_shape(NULL, &out, 1, &out, &err), TS_ERR_INVALID_ARG);
    ts_shape_free(&out);
}
END_TEST

/* 40 distinct labels on one operand of rank 40: the output keeps them all. */
START_TEST(test_einsum_many_labels)
{
    const char *labels = "abcdefghijklmnopqrstABCDEFGHIJKLMNOPQRST";
    ts_shape op = TS_SHAPE_INIT, out = TS_SHAPE_INIT;
    ck_assert_int_eq(ts_shape_resize(&op, 40, NULL), TS_OK);
    int64_t *d = ts_shape_dims_mut(&op);
    for (int i = 0; i < 40; i++)
        d[i] = i < 20 ? 2 : 3;   /* lower case 2, upper case 3 */
    ck_assert_int_eq(ts_einsum_shape(labels, &op, 1, &out, NULL), TS_OK);
    ck_assert_int_eq(ts_shape_ndim(&out), 40);
    ck_assert_int_eq(ts_shape_dims(&out)[0], 3);   /* 'A' sorts first */
    ck_assert_int_eq(ts_shape_dims(&out)[39], 2);  /* 't' last */
    ts_shape_free(&op);
    ts_shape_free(&out);
}
END_TEST

/* ---- labelled composition ---------------------------------------------- */

typedef struct compose_case {
    const char *result;
    const char *labels[3];
    const char *shapes[3];
    const char *out;
    ts_status code;
    const char *msg;
    int column;
} compose_case;

static const compose_case compose_cases[] = {
    /* shapev1.rst with s0{10,20,30} */
    {"i,j,k", {"i,j,k", "i,j,k"}, {"(10,20,30)", "(10,20,30)"}, "(10,20,30)", TS_OK, NULL, 0},
    {"j,i,k", {"i,j,k", "i,j,k"}, {"(10,20,30)", "(10,20,30)"}, "(20,10,30)", TS_OK, NULL, 0},
    {"i,k", {"i,j,k", "i,j,k"}, {"(10,20,30)", "(10,20,30)"}, "(10,30)", TS_OK, NULL, 0},
    {"i,j,k,l", {"i,j,k", "i,j,l"}, {"(10,20,30)", "(10,20,30)"}, "(10,20,30,30)", TS_OK, NULL, 0},
    /* "These would throw since contracted modes aren't the same length" */
    {"i,k", {"j,i,k", "i,j,k"}, {"(10,20,30)", "(10,20,30)"}, NULL, TS_ERR_SIZE,
     "compose: label 'i' has extent 20 in input 0 (mode 1) but 10 in input 1 (mode 0)", 0},
    {"i,x", {"i,j"}, {"(1,2)"}, NULL, TS_ERR_VALUE,
     "compose: label 'x' of the result is in no input", 3},
    /* multi-character labels, spaces, rank 0 */
    {"nu, mu", {"mu , nu"}, {"(3,4)"}, "(4,3)", TS_OK, NULL, 0},
    {"", {"i"}, {"(5,)"}, "()", TS_OK, NULL, 0},
    {"", {""}, {"()"}, "()", TS_OK, NULL, 0},
    {"i", {"i,i"}, {"(3,3)"}, "(3,)", TS_OK, NULL, 0},
    {"i", {"i,i"}, {"(3,4)"}, NULL, TS_ERR_SIZE,
     "compose: label 'i' has extent 3 in input 0 (mode 0) but 4 in input 0 (mode 1)", 0},
    {"i,j", {"i,j,k"}, {"(2,3)"}, NULL, TS_ERR_NDIM,
     "compose: input 0 has 3 labels 'i,j,k' but its shape (2,3) has 2 modes", 0},
    {"i,i", {"i"}, {"(2,)"}, NULL, TS_ERR_VALUE,
     "compose: label 'i' appears twice in the result labels 'i,i' (columns 1 and 3)", 3},
    {"i,,k", {"i,k"}, {"(2,3)"}, NULL, TS_ERR_PARSE,
     "compose: expected a label (a letter or '_', then letters, digits, '_') at column 3 of the "
     "result labels 'i,,k', found ','", 3},
    {"i,k", {"i k"}, {"(2,3)"}, NULL, TS_ERR_PARSE,
     "expected ',' or the end at column 3 of the labels of input 0 'i k', found 'k'", 3},
    {"i,", {"i"}, {"(2,)"}, NULL, TS_ERR_PARSE, "found the end", 3},
};

START_TEST(test_compose_table)
{
    const compose_case *c = &compose_cases[_i];
    ts_shape shapes[3], out = TS_SHAPE_INIT;
    int n = 0;
    ts_error err;
    while (n < 3 && c->labels[n]) {
        ts_shape_init(&shapes[n]);
        tu_shape(&shapes[n], c->shapes[n]);
        n++;
    }
    ts_status st = ts_label_compose(c->result, c->labels, shapes, n, &out, &err);
    if (c->out) {
        ck_assert_msg(st == TS_OK, "case %d: %s", _i, err.message);
        tu_assert_shape(&out, c->out);
    } else {
        ck_assert_msg(st == c->code, "case %d: status %d, %s", _i, st, err.message);
        ck_assert_msg(strstr(err.message, c->msg), "case %d: '%s' lacks '%s'", _i, err.message,
                      c->msg);
        if (c->column)
            ck_assert_int_eq(err.column, c->column);
    }
    for (int i = 0; i < n; i++)
        ts_shape_free(&shapes[i]);
    ts_shape_free(&out);
}
END_TEST

START_TEST(test_compose_args)
{
    ts_shape out = TS_SHAPE_INIT;
    ts_error err;
    ck_assert_int_eq(ts_label_compose("i", NULL, NULL, 0, &out, &err), TS_ERR_INVALID_ARG);
    ck_assert_str_eq(err.message, "compose: at least one labelled input is needed, got 0");
    ts_shape_free(&out);
}
END_TEST

Suite *einsum_suite(void)
{
    Suite *s = suite_create("einsum");
    TCase *tc = tcase_create("einsum");
    tcase_add_loop_test(tc, test_einsum_table, 0, N(einsum_cases));
    tcase_add_test(tc, test_einsum_args);
    tcase_add_test(tc, test_einsum_many_labels);
    suite_add_tcase(s, tc);
    tc = tcase_create("compose");
    tcase_add_loop_test(tc, test_compose_table, 0, N(compose_cases));
    tcase_add_test(tc, test_compose_args);
    suite_add_tcase(s, tc);
    return s;
}
