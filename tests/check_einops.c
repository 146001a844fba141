/*
 * check_einops.c - einops patterns (src/ops/einops.c): every example and
 * error of peer-semantics section 4, einops' docstring examples, the
 * grammar corner cases of ParsedExpression, parse_shape, the one-line error
 * envelope, and the limits.
 */
/* Tests functions of the experimental part of tshape.h. */
#define TS_EXPERIMENTAL_API
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N(a) ((int)(sizeof(a) / sizeof *(a)))

enum { RE = TS_EINOPS_REARRANGE, RD = TS_EINOPS_REDUCE, RP = TS_EINOPS_REPEAT };

/* "h2=2,w2=2" -> sizes; names point into `text`. */
static int parse_kwargs(const char *text, ts_axis_size *out)
{
    int n = 0;
    const char *p = text;
    while (p && *p) {
        const char *eq = strchr(p, '=');
        ck_assert_ptr_nonnull(eq);
        out[n].name = p;
        out[n].name_len = (size_t)(eq - p);
        out[n].size = strtoll(eq + 1, NULL, 10);
        n++;
        p = strchr(eq, ',');
        if (p)
            p++;
    }
    return n;
}

typedef struct einops_case {
    int op;
    const char *pattern, *shape, *kwargs;
    const char *out;        /* NULL: error */
    ts_status code;
    const char *msg;        /* substring of the message */
    int column;             /* expected err.column, or 0 */
} einops_case;

static const einops_case cases[] = {
    /* peer-semantics 4, examples on (2,3,4,5) */
    {RE, "b c h w -> b (c h w)", "(2,3,4,5)", NULL, "(2,60)", TS_OK, NULL, 0},
    {RE, "b c (h h2) w -> b c h h2 w", "(2,3,4,5)", "h2=2", "(2,3,2,2,5)", TS_OK, NULL, 0},
    {RE, "b ... -> b (...)", "(2,3,4,5)", NULL, "(2,60)", TS_OK, NULL, 0},
    {RE, "... w -> w ...", "(2,3,4,5)", NULL, "(5,2,3,4)", TS_OK, NULL, 0},
    {RE, "... -> ... 1", "(2,3,4,5)", NULL, "(2,3,4,5,1)", TS_OK, NULL, 0},
    {RE, "... -> ... 2", "(2,3,4,5)", NULL, NULL, TS_ERR_VALUE,
     "non-unitary anonymous axis 2 at column 12: rearrange allows no anonymous axes other "
     "than 1", 12},
    {RD, "b c (h h2) (w w2) -> b c h w", "(2,3,4,6)", "h2=2,w2=2", "(2,3,2,3)", TS_OK, NULL, 0},
    {RP, "h w -> (2 h) w", "(4,5)", NULL, "(8,5)", TS_OK, NULL, 0},
    {RE, " -> 1", "()", NULL, "(1,)", TS_OK, NULL, 0},
    {RE, "a b -> (a b)", "(0,3)", NULL, "(0,)", TS_OK, NULL, 0},
    /* the envelope, exactly */
    {RE, "b c (h h2) w -> b c h h2 w", "(2,3,4,5)", "h2=3", NULL, TS_ERR_SIZE,
     "rearrange \"b c (h h2) w -> b c h h2 w\" on shape (2,3,4,5) with h2=3: can't divide "
     "axis of length 4 into chunks of 3 (axis 2, (h h2))", 0},
    {RE, "b c h w -> b c h w", "(2,3,4,5)", "c=7", NULL, TS_ERR_SIZE,
     "rearrange \"b c h w -> b c h w\" on shape (2,3,4,5) with c=7: shape mismatch, 3 != 7 "
     "(axis 1, c)", 0},
    {RE, "b c h w -> b c h w", "(2,3,4,5)", "z=7", NULL, TS_ERR_VALUE,
     "rearrange \"b c h w -> b c h w\" with z=7: axis z is not used in transform", 0},
    {RE, "b (h w) -> b h w", "(2,12)", NULL, NULL, TS_ERR_SIZE,
     "could not infer sizes for h, w in (h w) at column 3", 3},
    {RE, "b c h -> b c h", "(2,3,4,5)", NULL, NULL, TS_ERR_NDIM,
     "wrong shape: expected 3 dims, received a 4-dim shape", 0},
    {RE, "b c h ... -> b c h ...", "(2,3)", NULL, NULL, TS_ERR_NDIM,
     "wrong shape: expected >=3 dims, received a 2-dim shape", 0},
    {RP, "h w -> h w c", "(2,3)", NULL, NULL, TS_ERR_VALUE,
     "repeat \"h w -> h w c\": specify sizes for new axes in repeat: c", 0},
    {RP, "h w -> h w c", "(2,3)", "c=4", "(2,3,4)", TS_OK, NULL, 0},
    {RP, "h w -> h", "(2,3)", NULL, NULL, TS_ERR_VALUE,
     "unexpected identifiers on the left side of repeat: w", 0},
    {RD, "h w -> h c", "(2,3)", NULL, NULL, TS_ERR_VALUE,
     "unexpected identifiers on the right side of reduce: c", 0},
    {RE, "b c h w -> b c h", "(2,3,4,5)", NULL, NULL, TS_ERR_VALUE,
     "identifiers only on one side of the pattern (they must be on both): w (left)", 0},
    {RE, "a -> ... a", "(2,)", NULL, NULL, TS_ERR_VALUE,
     "ellipsis found in the right side, but not the left side of the pattern", 0},
    {RE, "(a ...) -> a ...", "(2,)", NULL, NULL, TS_ERR_VALUE,
     "ellipsis inside parentheses in the left side is not allowed", 0},
    /* einops docstring examples */
    {RE, "b h w c -> b c h w", "(32,30,40,3)", NULL, "(32,3,30,40)", TS_OK, NULL, 0},
    {RE, "b h w c -> (b h) w c", "(32,30,40,3)", NULL, "(960,40,3)", TS_OK, NULL, 0},
    {RE, "b h w c -> h (b w) c", "(32,30,40,3)", NULL, "(30,1280,3)", TS_OK, NULL, 0},
    {RE, "b (h1 h) (w1 w) c -> (b h1 w1) h w c", "(32,30,40,3)", "h1=2,w1=2", "(128,15,20,3)",
     TS_OK, NULL, 0},
    {RE, "b (h h1) (w w1) c -> b h w (c h1 w1)", "(32,30,40,3)", "h1=2,w1=2", "(32,15,20,12)",
     TS_OK, NULL, 0},
    {RD, "t b c -> b c", "(100,32,64)", NULL, "(32,64)", TS_OK, NULL, 0},
    {RD, "b c (h1 2) (w1 2) -> b c h1 w1", "(10,20,30,40)", NULL, "(10,20,15,20)", TS_OK, NULL, 0},
    {RD, "b c (h1 h2) (w1 w2) -> b c h1 w1", "(10,20,30,40)", "h1=3,w1=4", "(10,20,3,4)", TS_OK,
     NULL, 0},
    {RD, "b c h w -> 1 c 1 1", "(10,20,30,40)", NULL, "(1,20,1,1)", TS_OK, NULL, 0},
    {RD, "b c h w -> b c () ()", "(10,20,30,40)", NULL, "(10,20,1,1)", TS_OK, NULL, 0},
    {RD, "... h -> h", "(2,3,4)", NULL, "(4,)", TS_OK, NULL, 0},
    {RP, "h w -> h w c", "(30,40)", "c=3", "(30,40,3)", TS_OK, NULL, 0},
    {RP, "h w -> (repeat h) w", "(30,40)", "repeat=2", "(60,40)", TS_OK, NULL, 0},
    {RP, "h w -> (h2 h) (w3 w)", "(30,40)", "h2=2,w3=3", "(60,120)", TS_OK, NULL, 0},
    {RP, "h w -> (h h2) (w w2)", "(15,20)", "h2=2,w2=2", "(30,40)", TS_OK, NULL, 0},
    {RE, "(b c h w) -> b c h w", "(700,)", "b=2,h=5,w=7", "(2,10,5,7)", TS_OK, NULL, 0},
    /* units and empty groups */
    {RE, "a 1 b -> a b", "(2,1,3)", NULL, "(2,3)", TS_OK, NULL, 0},
    {RE, "a 1 b -> a b", "(2,4,3)", NULL, NULL, TS_ERR_SIZE, "shape mismatch, 4 != 1 (axis 1, 1)", 0},
    {RE, "a () b -> (a 1 b)", "(2,1,3)", NULL, "(6,)", TS_OK, NULL, 0},
    {RE, "-> ", "()", NULL, "()", TS_OK, NULL, 0},
    {RE, "a -> a", "()", NULL, NULL, TS_ERR_NDIM, "expected 1 dims, received a 0-dim shape", 0},
    {RP, " -> a b", "()", "a=2,b=0", "(2,0)", TS_OK, NULL, 0},
    {RE, "(a b) -> a b", "(0,)", "b=0", NULL, TS_ERR_SIZE,
     "can't infer the length of a from axis 0 of length 0", 0},
    {RE, "(a b) -> a b", "(0,)", "b=3", "(0,3)", TS_OK, NULL, 0},
    /* grammar */
    {RE, "a-b -> a", "(2,)", NULL, NULL, TS_ERR_PARSE, "unknown character '-' at column 2", 2},
    {RE, "a b) -> a b", "(2,3)", NULL, NULL, TS_ERR_PARSE,
     "')' at column 4 has no matching '(': brackets are not balanced", 4},
    {RE, "b (c h w -> b", "(2,3)", NULL, NULL, TS_ERR_PARSE,
     "imbalanced parentheses: '(' at column 3 is never closed", 3},
    {RE, "b h h -> b h", "(2,3,4)", NULL, NULL, TS_ERR_PARSE,
     "duplicate axis 'h' on the left side, at columns 3 and 5", 5},
    {RE, "a (b (c)) -> a b c", "(2,3)", NULL, NULL, TS_ERR_PARSE,
     "'(' at column 6 inside the group opened at column 3: axis composition is one level", 6},
    {RP, "a -> a 0", "(2,)", NULL, NULL, TS_ERR_PARSE,
     "anonymous axis 0 at column 8: anonymous axes should have positive length", 8},
    {RP, "a -> a 007", "(2,)", NULL, NULL, TS_ERR_PARSE,
     "anonymous axis '007' at column 8 has a leading zero", 8},
    {RP, "a -> a 99999999999999999999", "(2,)", NULL, NULL, TS_ERR_OVERFLOW,
     "does not fit in int64", 8},
    {RE, "a.b -> a", "(2,)", NULL, NULL, TS_ERR_PARSE, "'.' at column 2 is not part of an ellipsis", 2},
    {RE, ".. -> a", "(2,)", NULL, NULL, TS_ERR_PARSE, "'.' at column 1 is not part of an ellipsis", 1},
    {RE, ".... -> a", "(2,)", NULL, NULL, TS_ERR_PARSE, "'.' at column 1 is not part of an ellipsis", 1},
    {RE, "... a ... -> a", "(2,)", NULL, NULL, TS_ERR_PARSE,
     "a second ellipsis '...' at column 7 on the left side", 7},
    {RE, "...a -> a", "(2,)", NULL, NULL, TS_ERR_PARSE, "'...' at column 1 is followed by 'a'", 4},
    {RE, "2a -> 2a", "(2,)", NULL, NULL, TS_ERR_PARSE,
     "invalid axis name '2a' at column 1: not a valid identifier", 1},
    {RE, "_a -> _a", "(2,)", NULL, NULL, TS_ERR_PARSE,
     "invalid axis name '_a' at column 1: axis names should not start or end with '_'", 1},
    {RE, "_ -> _", "(2,)", NULL, NULL, TS_ERR_PARSE, "'_' is only allowed in parse_shape", 1},
    {RE, "a b", "(2,3)", NULL, NULL, TS_ERR_PARSE, "the pattern has no '->'", 0},
    {RE, "a -> b -> c", "(2,)", NULL, NULL, TS_ERR_PARSE, "a second '->' at column 8", 8},
    {RE, "a\xc3 -> a", "(2,)", NULL, NULL, TS_ERR_PARSE, "unknown character byte 0xc3 at column 2", 2},
    /* sizes */
    {RE, "(a b) -> a b", "(6,)", "b=-2", NULL, TS_ERR_VALUE, "size -2 of axis b is negative", 0},
    {RE, "(a b) -> a b", "(6,)", "b=2,b=3", NULL, TS_ERR_VALUE, "axis b is given a size twice", 0},
    {RE, "(a b) -> a b", "(6,)", "_b=2", NULL, TS_ERR_VALUE, "invalid name for an axis '_b'", 0},
    {RP, "a -> (a b c)", "(2,)", "b=4611686018427387904,c=4", NULL, TS_ERR_OVERFLOW,
     "does not fit in int64", 0},
};

START_TEST(test_einops_table)
{
    const einops_case *c = &cases[_i];
    ts_shape in = TS_SHAPE_INIT, out = TS_SHAPE_INIT;
    ts_axis_size kw[8];
    ts_error err;
    int nkw = parse_kwargs(c->kwargs, kw);
    tu_shape(&in, c->shape);
    ts_status st = ts_einops_shape((ts_einops_op)c->op, c->pattern, &in, kw, nkw, &out, &err);
    if (c->out) {
        ck_assert_msg(st == TS_OK, "case %d '%s': %s", _i, c->pattern, err.message);
        tu_assert_shape(&out, c->out);
    } else {
        ck_assert_msg(st == c->code, "case %d '%s': status %d, %s", _i, c->pattern, st,
                      err.message);
        ck_assert_int_eq(err.code, c->code);
        ck_assert_msg(strstr(err.message, c->msg), "case %d: '%s' lacks '%s'", _i, err.message,
                      c->msg);
        if (c->column)
            ck_assert_int_eq(err.column, c->column);
    }
    ts_shape_free(&in);
    ts_shape_free(&out);
}
END_TEST

/* Compile once, apply to many shapes; errors of one shape do not stick. */
START_TEST(test_compile_apply)
{
    ts_einops *e = NULL;
    ts_shape in = TS_SHAPE_INIT, out = TS_SHAPE_INIT;
    ts_axis_size kw = {"h2xyz", 2, 2};   /* name_len 2: "h2" */
    ts_error err;
    ck_assert_int_eq(ts_einops_compile(TS_EINOPS_REARRANGE, "b (h h2) -> b h h2", &kw, 1, &e,
                                       &err), TS_OK);
    tu_shape(&in, "(3,8)");
    ck_assert_int_eq(ts_einops_apply(e, &in, &out, &err), TS_OK);
    tu_assert_shape(&out, "(3,4,2)");
    tu_shape(&in, "(3,7)");
    ck_assert_int_eq(ts_einops_apply(e, &in, &out, &err), TS_ERR_SIZE);
    ck_assert_str_eq(err.message, "rearrange \"b (h h2) -> b h h2\" on shape (3,7) with h2=2: "
                                  "can't divide axis of length 7 into chunks of 2 (axis 1, "
                                  "(h h2))");
    tu_shape(&in, "(1,0)");
    ck_assert_int_eq(ts_einops_apply(e, &in, &out, &err), TS_OK);
    tu_assert_shape(&out, "(1,0,2)");
    ts_einops_free(e);
    ts_einops_free(NULL);
    ck_assert_int_eq(ts_einops_compile(TS_EINOPS_REARRANGE, "a -> (", NULL, 0, &e, &err),
                     TS_ERR_PARSE);
    ck_assert_ptr_null(e);
    ck_assert_str_eq(err.message, "rearrange \"a -> (\": imbalanced parentheses: '(' at column "
                                  "6 is never closed");
    ck_assert_int_eq(ts_einops_compile((ts_einops_op)7, "a -> a", NULL, 0, &e, &err),
                     TS_ERR_INVALID_ARG);
    ts_shape_free(&in);
    ts_shape_free(&out);
}
END_TEST

START_TEST(test_limits)
{
    ts_einops *e = NULL;
    ts_error err;
    char *big = malloc(TS_EINOPS_MAX_PATTERN + 2);
    memset(big, 'a', TS_EINOPS_MAX_PATTERN + 1);
    big[TS_EINOPS_MAX_PATTERN + 1] = '\0';
    ck_assert_int_eq(ts_einops_compile(TS_EINOPS_REARRANGE, big, NULL, 0, &e, &err), TS_ERR_LIMIT);
    ck_assert_ptr_nonnull(strstr(err.message, "the limit is 4096 bytes"));
    /* 129 axes on the left */
    size_t pos = 0;
    for (int i = 0; i < TS_EINOPS_MAX_AXES + 1; i++)
        pos += (size_t)sprintf(big + pos, "a%d ", i);
    strcpy(big + pos, "-> a0");
    ck_assert_int_eq(ts_einops_compile(TS_EINOPS_REDUCE, big, NULL, 0, &e, &err), TS_ERR_LIMIT);
    ck_assert_ptr_nonnull(strstr(err.message, "more than 128 axes on the left side"));
    /* groups of '1' count too */
    pos = 0;
    for (int i = 0; i < TS_EINOPS_MAX_AXES + 1; i++)
        pos += (size_t)sprintf(big + pos, "1 ");
    strcpy(big + pos, "->");
    ck_assert_int_eq(ts_einops_compile(TS_EINOPS_REDUCE, big, NULL, 0, &e, &err), TS_ERR_LIMIT);
    /* output beyond TS_MAX_NDIM: 65 unit axes on the right */
    pos = (size_t)sprintf(big, "->");
    for (int i = 0; i < TS_MAX_NDIM + 1; i++)
        pos += (size_t)sprintf(big + pos, " 1");
    ts_shape in = TS_SHAPE_INIT, out = TS_SHAPE_INIT;
    ck_assert_int_eq(ts_einops_shape(TS_EINOPS_REARRANGE, big, &in, NULL, 0, &out, &err),
                     TS_ERR_NDIM);
    ck_assert_ptr_nonnull(strstr(err.message, "more than 64 dims"));
    free(big);
}
END_TEST

/* ---- parse_shape -------------------------------------------------------- */

typedef struct ps_case {
    const char *pattern, *shape;
    const char *expect;     /* "b=2 h=4" or NULL for an error */
    ts_status code;
    const char *msg;
} ps_case;

static const ps_case ps_cases[] = {
    {"b _ h w", "(2,3,4,5)", "b=2 h=4 w=5", TS_OK, NULL},
    {"b ... w", "(2,3,4,5)", "b=2 w=5", TS_OK, NULL},
    {"batch _ h w", "(2,3,5,7)", "batch=2 h=5 w=7", TS_OK, NULL},
    {"_ _ _", "(2,3,4)", "", TS_OK, NULL},
    {"... c", "(7,)", "c=7", TS_OK, NULL},
    {"b 3 (w)", "(2,3,4)", "b=2 w=4", TS_OK, NULL},
    {"b 1 () w", "(2,1,1,4)", "b=2 w=4", TS_OK, NULL},
    {"", "()", "", TS_OK, NULL},
    {"(b c) h w z", "(2,3,4,5)", NULL, TS_ERR_VALUE,
     "parse_shape \"(b c) h w z\" on shape (2,3,4,5): can't parse shape with composite axes: "
     "(b c) at column 1"},
    {"b c", "(2,3,4,5)", NULL, TS_ERR_NDIM,
     "parse_shape \"b c\" on shape (2,3,4,5): can't parse shape with different number of "
     "dimensions: the pattern has 2, the shape has 4"},
    {"a b c ...", "(2,3)", NULL, TS_ERR_NDIM, "the pattern needs at least 3, the shape has 2"},
    {"b 4 w", "(2,3,4)", NULL, TS_ERR_SIZE,
     "length of anonymous axis does not match: 4 at column 3, but axis 1 has length 3"},
    {"b 1 w", "(2,3,4)", NULL, TS_ERR_SIZE, "length of axis is not 1"},
    /* was "on the  side": parse_shape's pattern has no sides */
    {"b b", "(2,3)", NULL, TS_ERR_PARSE, "duplicate axis 'b' in the pattern, at columns 1 and 3"},
    {"b (...)", "(2,3)", NULL, TS_ERR_VALUE, "ellipsis inside parentheses at column 3"},
    {"b -> b", "(2,)", NULL, TS_ERR_PARSE, "'->' at column 3: parse_shape takes one side"},
    {"b_ c", "(2,3)", NULL, TS_ERR_PARSE, "should not start or end with '_'"},
};

START_TEST(test_parse_shape_table)
{
    const ps_case *c = &ps_cases[_i];
    ts_shape s = TS_SHAPE_INIT;
    ts_axis_size ax[TS_MAX_NDIM];
    size_t n = 0;
    ts_error err;
    tu_shape(&s, c->shape);
    ts_status st = ts_einops_parse_shape(c->pattern, &s, ax, &n, &err);
    if (c->expect) {
        ck_assert_msg(st == TS_OK, "case %d: %s", _i, err.message);
        char buf[256];
        size_t pos = 0;
        buf[0] = '\0';
        for (size_t i = 0; i < n; i++)
            pos += (size_t)snprintf(buf + pos, sizeof buf - pos, "%s%.*s=%lld", i ? " " : "",
                                    (int)ax[i].name_len, ax[i].name, (long long)ax[i].size);
        ck_assert_str_eq(buf, c->expect);
    } else {
        ck_assert_msg(st == c->code, "case %d: status %d, %s", _i, st, err.message);
        ck_assert_msg(strstr(err.message, c->msg), "case %d: '%s' lacks '%s'", _i, err.message,
                      c->msg);
    }
    ts_shape_free(&s);
}
END_TEST

Suite *einops_suite(void)
{
    Suite *s = suite_create("einops");
    TCase *tc = tcase_create("patterns");
    tcase_add_loop_test(tc, test_einops_table, 0, N(cases));
    tcase_add_test(tc, test_compile_apply);
    tcase_add_test(tc, test_limits);
    suite_add_tcase(s, tc);
    tc = tcase_create("parse_shape");
    tcase_add_loop_test(tc, test_parse_shape_table, 0, N(ps_cases));
    suite_add_tcase(s, tc);
    return s;
}
