/* check_parse.c - the strict shape grammar and the printer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

typedef struct ok_case {
    const char *text;
    const char *expect; /* printed back, tuple style */
} ok_case;

static const ok_case ok_cases[] = {
    {"(3, 4L, 5)", "(3,4,5)"},  {"(3,5)", "(3,5)"},        {"(3 , 5)", "(3,5)"},
    {"[3,4,5]", "(3,4,5)"},     {"(3,)", "(3,)"},          {"(3, )", "(3,)"},
    {"()", "()"},               {"( )", "()"},             {"[]", "()"},
    {"5", "(5,)"},              {" 5 ", "(5,)"},           {"\t( 3 ,\n4 )\n", "(3,4)"},
    {"(0,3)", "(0,3)"},         {"(7l,2L)", "(7,2)"},      {"(+3,4)", "(3,4)"},
    {"(9223372036854775807,)", "(9223372036854775807,)"},
    {"(1,2,3,4,5)", "(1,2,3,4,5)"},
    {"(-0,2)", "(0,2)"}, /* Python reads -0 as 0 (was "negative dim -0") */
    /* shapes as frameworks print them (issue 20 item 11) */
    {"torch.Size([3, 4])", "(3,4)"},   {"torch.Size([])", "()"},  {"torch.Size()", "()"},
    {"torch.Size([7])", "(7,)"},       {" torch.Size ( [ 2 , 5 ] ) ", "(2,5)"},
    {"torch.Size((3, 4))", "(3,4)"},   {"TensorShape([3, 4])", "(3,4)"},
    {"TensorShape([])", "()"},         {"tf.TensorShape([1, 28, 28])", "(1,28,28)"},
};

START_TEST(test_parse_ok)
{
    const ok_case *c = &ok_cases[_i];
    ts_shape s = TS_SHAPE_INIT;
    ts_error err;
    ck_assert_msg(ts_shape_parse(c->text, strlen(c->text), 0, &s, NULL, &err) == TS_OK,
                  "'%s': %s", c->text, err.message);
    tu_assert_shape(&s, c->expect);
    ts_shape_free(&s);
}
END_TEST

typedef struct bad_case {
    const char *text;
    ts_status code;
    int64_t column;
    const char *message;
} bad_case;

/* The seed's parser accepted several of these (kept (3,4) of (3,4,a), read
 * (3,) from 3x4, let brackets mismatch); tshape names the column instead. */
static const bad_case bad_cases[] = {
    {"(3,4,a)", TS_ERR_PARSE, 6, "expected a dim at column 6, found 'a'"},
    {"(3,,4)", TS_ERR_PARSE, 4, "expected a dim at column 4, found ','"},
    {"(3,4]", TS_ERR_PARSE, 5,
     "expected ',' or ')' at column 5 to match '(' at column 1, found ']'"},
    {"(2,3) junk", TS_ERR_PARSE, 7, "unexpected 'junk' after the shape at column 7"},
    {"3x4", TS_ERR_PARSE, 2, "unexpected 'x4' after the shape at column 2"},
    {"(-1,2)", TS_ERR_VALUE, 2, "negative dim -1 at column 2: dims must be >= 0"},
    {"", TS_ERR_PARSE, 1, "expected a shape such as (3,4) at column 1, found an empty string"},
    {"   ", TS_ERR_PARSE, 4, "expected a shape such as (3,4) at column 4, found only whitespace"},
    {"(99999999999999999999)", TS_ERR_OVERFLOW, 2,
     "dim '99999999999999999999' at column 2 does not fit in int64"},
    {"(9223372036854775808,)", TS_ERR_OVERFLOW, 2,
     "dim '9223372036854775808' at column 2 does not fit in int64"},
    {"(3 4)", TS_ERR_PARSE, 4, "expected ',' or ')' at column 4, found '4'"},
    {"(3", TS_ERR_PARSE, 3, "expected ',' or ')' at column 3, found the end of the input"},
    {"(", TS_ERR_PARSE, 2, "expected a dim or ')' at column 2, found the end of the input"},
    {"((2,3))", TS_ERR_PARSE, 2, "expected a dim or ')' at column 2, found '('"},
    {"None", TS_ERR_VALUE, 1,
     "dim 0 is None (unknown) at column 1: a shape needs the size of every dim"},
    {"Nonesuch", TS_ERR_PARSE, 1, "expected '(', '[' or a number at column 1, found 'N'"},
    {"TensorShape([None, 4])", TS_ERR_VALUE, 14,
     "dim 0 is None (unknown) at column 14: a shape needs the size of every dim"},
    {"(32, None, 4)", TS_ERR_VALUE, 6,
     "dim 1 is None (unknown) at column 6: a shape needs the size of every dim"},
    {"TensorShape(None)", TS_ERR_VALUE, 13,
     "TensorShape(None) at column 1 has an unknown number of dims: a shape needs them"},
    {"torch.Size([3, 4]", TS_ERR_PARSE, 18,
     "expected ')' at column 18 to close 'torch.Size(' at column 11, found the end of the "
     "input"},
    {"torch.Size(3)", TS_ERR_PARSE, 12,
     "expected a list or ')' at column 12 to close 'torch.Size(' at column 11, found '3'"},
    {"torch.Size [3]", TS_ERR_PARSE, 12,
     "expected '(' after torch.Size at column 12, found '['"},
    {"torch.Sizes([3])", TS_ERR_PARSE, 1, "expected '(', '[' or a number at column 1, found 't'"},
    {"torch.Size([-1])", TS_ERR_VALUE, 13, "negative dim -1 at column 13: dims must be >= 0"},
    {"torch.Size([2]) x", TS_ERR_PARSE, 17, "unexpected 'x' after the shape at column 17"},
    {"(3L ,4)", TS_OK, 0, ""}, /* whitespace after L is fine here (MXNet failed it) */
    {"(3 L,4)", TS_ERR_PARSE, 4, "expected ',' or ')' at column 4, found 'L'"},
    {"(0x10,2)", TS_ERR_PARSE, 3, "expected ',' or ')' at column 3, found 'x'"},
    {"(3;4)", TS_ERR_PARSE, 3, "expected ',' or ')' at column 3, found ';'"},
    {"(1,\x01)", TS_ERR_PARSE, 4, "expected a dim at column 4, found byte 0x01"},
    {"-", TS_ERR_PARSE, 1, "expected a shape such as (3,4) at column 1, found '-'"},
    /* Echoed input is escaped: a message is always one line (fuzz_shape_parse). */
    {"(3)x\ny", TS_ERR_PARSE, 4, "unexpected 'x\\x0ay' after the shape at column 4"},
};

START_TEST(test_parse_bad)
{
    const bad_case *c = &bad_cases[_i];
    ts_shape s = TS_SHAPE_INIT;
    ts_error err;
    ts_status st = ts_shape_parse(c->text, strlen(c->text), 0, &s, NULL, &err);
    ck_assert_msg(st == c->code, "'%s': got %d (%s), expected %d", c->text, st,
                  st ? err.message : "ok", c->code);
    if (st != TS_OK) {
        ck_assert_int_eq(err.code, c->code);
        ck_assert_int_eq(err.column, c->column);
        ck_assert_str_eq(err.message, c->message);
    }
    ts_shape_free(&s);
}
END_TEST

START_TEST(test_negative_allowed)
{
    ts_shape s = TS_SHAPE_INIT;
    const char *t = "(-1, 4, -3)";
    ck_assert_int_eq(ts_shape_parse(t, strlen(t), TS_PARSE_ALLOW_NEGATIVE, &s, NULL, NULL),
                     TS_OK);
    tu_assert_shape(&s, "(-1,4,-3)");
    int64_t size;
    ts_error err;
    ck_assert_int_eq(ts_shape_size(&s, &size, &err), TS_ERR_VALUE);
    ck_assert_str_eq(err.message, "dim 0 is negative (-1): sizes must be >= 0");
    ts_shape_free(&s);
}
END_TEST

START_TEST(test_consumed_prefix)
{
    /* Parse several shapes from one buffer, as broadcast's stdin mode does. */
    const char *buf = "(2,1) [3]  4 (5,)";
    size_t pos = 0, used;
    ts_shape s = TS_SHAPE_INIT;
    const char *expect[] = {"(2,1)", "(3,)", "(4,)", "(5,)"};
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(ts_shape_parse(buf + pos, strlen(buf) - pos, 0, &s, &used, NULL),
                         TS_OK);
        tu_assert_shape(&s, expect[i]);
        pos += used;
    }
    ck_assert_uint_eq(pos, strlen(buf));
    /* Not NUL-terminated input: only len bytes are read. */
    char raw[3] = {'(', '7', ')'};
    ck_assert_int_eq(ts_shape_parse(raw, 3, 0, &s, NULL, NULL), TS_OK);
    tu_assert_shape(&s, "(7,)");
    ts_shape_free(&s);
}
END_TEST

START_TEST(test_ndim_limit)
{
    /* 64 dims parse (heap storage); 65 is an error naming the column. */
    char text[400];
    size_t n = 0;
    text[n++] = '(';
    for (int i = 0; i < 65; i++)
        n += (size_t)sprintf(text + n, "%s1", i ? "," : "");
    text[n++] = ')';
    text[n] = '\0';
    ts_shape s = TS_SHAPE_INIT;
    ts_error err;
    ck_assert_int_eq(ts_shape_parse(text, n, 0, &s, NULL, &err), TS_ERR_NDIM);
    ck_assert_str_eq(err.message, "more than 64 dims at column 130");
    text[128] = ')';
    ck_assert_int_eq(ts_shape_parse(text, 129, 0, &s, NULL, &err), TS_OK);
    ck_assert_int_eq(ts_shape_ndim(&s), 64);
    ts_shape_free(&s);
}
END_TEST

START_TEST(test_format)
{
    ts_shape s = TS_SHAPE_INIT;
    char buf[64];
    tu_shape(&s, "(3,4,5)");
    ck_assert_uint_eq(ts_shape_format(&s, TS_SHAPE_PRINT_LIST, buf, sizeof buf), 7);
    ck_assert_str_eq(buf, "[3,4,5]");
    ts_shape_format(&s, TS_SHAPE_PRINT_SPACES, buf, sizeof buf);
    ck_assert_str_eq(buf, "(3, 4, 5)");
    tu_shape(&s, "(3,)");
    ts_shape_format(&s, TS_SHAPE_PRINT_LIST, buf, sizeof buf);
    ck_assert_str_eq(buf, "[3]");
    tu_shape(&s, "()");
    ts_shape_format(&s, TS_SHAPE_PRINT_LIST, buf, sizeof buf);
    ck_assert_str_eq(buf, "[]");
    /* snprintf contract: full length returned, output truncated. */
    tu_shape(&s, "(123,456)");
    ck_assert_uint_eq(ts_shape_format(&s, 0, buf, 5), 9);
    ck_assert_str_eq(buf, "(123");
    ck_assert_uint_eq(ts_shape_format(&s, 0, NULL, 0), 9);
    tu_shape(&s, "(-1,9223372036854775807)");
    ts_shape_format(&s, 0, buf, sizeof buf);
    ck_assert_str_eq(buf, "(-1,9223372036854775807)");
    ts_shape_free(&s);
}
END_TEST

/* The fast path (whole-input parse) and the precise parser (used when the
 * caller asks how many bytes were consumed) must agree on every input:
 * same success, same dims. Inputs are drawn from shape-like alphabets by a
 * fixed LCG, so the test is deterministic. */
START_TEST(test_fast_path_agrees)
{
    static const char alphabet[] = "((([[]])),,, ,  0123456789L-x;+\t";
    uint64_t seed = 12345;
    ts_shape a = TS_SHAPE_INIT, b = TS_SHAPE_INIT;
    char text[40];
    int agreed_ok = 0;
    for (int iter = 0; iter < 200000; iter++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        size_t n = (size_t)(seed >> 59) + 1; /* 1..32 bytes */
        for (size_t i = 0; i < n; i++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            text[i] = alphabet[(seed >> 33) % (sizeof alphabet - 1)];
        }
        text[n] = '\0';
        size_t used = 0;
        ts_status fast = ts_shape_parse(text, n, 0, &a, NULL, NULL);
        ts_status slow = ts_shape_parse(text, n, 0, &b, &used, NULL);
        int slow_ok = slow == TS_OK && used == n;
        ck_assert_msg((fast == TS_OK) == slow_ok, "'%s': fast %d, precise %d (used %zu)", text,
                      fast, slow, used);
        if (fast == TS_OK) {
            ck_assert_msg(ts_shape_equal(&a, &b), "'%s': the parsers disagree on dims", text);
            agreed_ok++;
        }
    }
    ck_assert_int_gt(agreed_ok, 1000); /* the alphabet does produce valid shapes */
    ts_shape_free(&a);
    ts_shape_free(&b);
}
END_TEST

Suite *parse_suite(void)
{
    Suite *s = suite_create("parse");
    TCase *tc = tcase_create("grammar");
    tcase_add_loop_test(tc, test_parse_ok, 0, (int)(sizeof ok_cases / sizeof *ok_cases));
    tcase_add_test(tc, test_negative_allowed);
    tcase_add_test(tc, test_consumed_prefix);
    tcase_add_test(tc, test_format);
    tcase_add_test(tc, test_fast_path_agrees);
    suite_add_tcase(s, tc);
    TCase *err = tcase_create("errors");
    tcase_add_loop_test(err, test_parse_bad, 0, (int)(sizeof bad_cases / sizeof *bad_cases));
    tcase_add_test(err, test_ndim_limit);
    suite_add_tcase(s, err);
    return s;
}
