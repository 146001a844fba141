/* check_lex.c - the library's one lexer through its public face: whole
 * integers (ts_parse_i64) and integer lists (ts_parse_i64_list), with the
 * status, column and message of every error. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

typedef struct i64_case {
    const char *text;
    unsigned flags;
    ts_status code;
    int64_t value;      /* when code is TS_OK */
    int64_t column;     /* when code is not TS_OK */
    const char *message;
} i64_case;

#define NEG TS_PARSE_ALLOW_NEGATIVE

static const i64_case i64_cases[] = {
    {"0", 0, TS_OK, 0, 0, NULL},
    {"42", 0, TS_OK, 42, 0, NULL},
    {"+42", 0, TS_OK, 42, 0, NULL},
    {"007", 0, TS_OK, 7, 0, NULL},
    {"9223372036854775807", 0, TS_OK, INT64_MAX, 0, NULL},
    {"-1", NEG, TS_OK, -1, 0, NULL},
    {"-0", NEG, TS_OK, 0, 0, NULL},
    {"-9223372036854775808", NEG, TS_OK, INT64_MIN, 0, NULL},
    {"", 0, TS_ERR_PARSE, 0, 1, "expected an integer at column 1, found the end of the input"},
    {"x", 0, TS_ERR_PARSE, 0, 1, "expected an integer at column 1, found 'x'"},
    {"-", NEG, TS_ERR_PARSE, 0, 1, "expected an integer at column 1, found '-'"},
    {" 1", 0, TS_ERR_PARSE, 0, 1, "expected an integer at column 1, found ' '"},
    {"1 ", 0, TS_ERR_PARSE, 0, 2,
     "expected the end of the integer at column 2, found ' '"},
    {"12a", 0, TS_ERR_PARSE, 0, 3, "expected the end of the integer at column 3, found 'a'"},
    {"0x10", 0, TS_ERR_PARSE, 0, 2, "expected the end of the integer at column 2, found 'x'"},
    {"4L", 0, TS_ERR_PARSE, 0, 2, "expected the end of the integer at column 2, found 'L'"},
    {"1\x01", 0, TS_ERR_PARSE, 0, 2,
     "expected the end of the integer at column 2, found byte 0x01"},
    {"-3", 0, TS_ERR_VALUE, 0, 1,
     "negative integer -3 at column 1: expected an integer >= 0"},
    {"9223372036854775808", 0, TS_ERR_OVERFLOW, 0, 1,
     "integer at column 1 does not fit in int64"},
    {"-9223372036854775809", NEG, TS_ERR_OVERFLOW, 0, 1,
     "integer at column 1 does not fit in int64"},
    {"99999999999999999999999999", NEG, TS_ERR_OVERFLOW, 0, 1,
     "integer at column 1 does not fit in int64"},
    {"1", 0x8, TS_ERR_INVALID_ARG, 0, 0,
     "ts_parse_i64: unknown flag bits 0x8 in flags (known: 0x1)"},
};

START_TEST(test_parse_i64)
{
    const i64_case *c = &i64_cases[_i];
    ts_error err;
    int64_t v = 12345;
    ts_status st = ts_parse_i64(c->text, strlen(c->text), c->flags, &v, &err);
    ck_assert_msg(st == c->code, "'%s': status %d, expected %d (%s)", c->text, st, c->code,
                  st ? err.message : "");
    if (c->code == TS_OK) {
        ck_assert_msg(v == c->value, "'%s': %lld", c->text, (long long)v);
        return;
    }
    ck_assert_int_eq(v, 12345); /* untouched on failure */
    ck_assert_int_eq(err.code, c->code);
    ck_assert_int_eq(err.column, c->column);
    ck_assert_int_eq(err.offset, -1);
    ck_assert_int_eq(err.index, -1);
    ck_assert_str_eq(err.message, c->message);
}
END_TEST

/* len, not the NUL, ends the text; NULL is fine for an empty text only. */
START_TEST(test_parse_i64_len)
{
    int64_t v = 0;
    ts_error err;
    ck_assert_int_eq(ts_parse_i64("123456", 3, 0, &v, &err), TS_OK);
    ck_assert_int_eq(v, 123);
    ck_assert_int_eq(ts_parse_i64("1\0002", 3, 0, &v, &err), TS_ERR_PARSE);
    ck_assert_str_eq(err.message, "expected the end of the integer at column 2, found byte 0x00");
    ck_assert_int_eq(ts_parse_i64(NULL, 0, 0, &v, &err), TS_ERR_PARSE);
    ck_assert_int_eq(ts_parse_i64(NULL, 1, 0, &v, &err), TS_ERR_INVALID_ARG);
    ck_assert_str_eq(err.message, "ts_parse_i64: text is NULL but len is 1");
}
END_TEST

typedef struct list_case {
    const char *text;
    unsigned flags;
    ts_status code;
    const char *expect;   /* printed as a shape when code is TS_OK */
    int64_t column;
    const char *message;
} list_case;

static const list_case list_cases[] = {
    {"(1,0,2)", NEG, TS_OK, "(1,0,2)", 0, NULL},
    {"[1,0,2]", NEG, TS_OK, "(1,0,2)", 0, NULL},
    {"()", NEG, TS_OK, "()", 0, NULL},
    {"(3,)", 0, TS_OK, "(3,)", 0, NULL},
    {"1,0,2", NEG, TS_OK, "(1,0,2)", 0, NULL},
    {"-1", NEG, TS_OK, "(-1,)", 0, NULL},
    {" 2 , -3 \n", NEG, TS_OK, "(2,-3)", 0, NULL},
    {"\t7", 0, TS_OK, "(7,)", 0, NULL},
    {"+5,6", 0, TS_OK, "(5,6)", 0, NULL},
    {"-0,2", 0, TS_OK, "(0,2)", 0, NULL}, /* -0 is 0, not negative */
    {"", NEG, TS_ERR_PARSE, NULL, 1,
     "expected an integer at column 1, found the end of the input"},
    {"1,", NEG, TS_ERR_PARSE, NULL, 3,
     "expected an integer at column 3, found the end of the input"},
    {"0,x", NEG, TS_ERR_PARSE, NULL, 3, "expected an integer at column 3, found 'x'"},
    {"1 2", NEG, TS_ERR_PARSE, NULL, 3, "expected ',' or the end at column 3, found '2'"},
    {"1;2", NEG, TS_ERR_PARSE, NULL, 2, "expected ',' or the end at column 2, found ';'"},
    {"1,-2", 0, TS_ERR_VALUE, NULL, 3,
     "negative integer -2 at column 3: expected an integer >= 0"},
    {"(1,-2)", 0, TS_ERR_VALUE, NULL, 4, "negative dim -2 at column 4: dims must be >= 0"},
    {"(1,2", NEG, TS_ERR_PARSE, NULL, 5,
     "expected ',' or ')' at column 5, found the end of the input"},
    {"1,99999999999999999999", NEG, TS_ERR_OVERFLOW, NULL, 3,
     "integer at column 3 does not fit in int64"},
    {"1", 0x2, TS_ERR_INVALID_ARG, NULL, 0,
     "ts_parse_i64_list: unknown flag bits 0x2 in flags (known: 0x1)"},
};

START_TEST(test_parse_list)
{
    const list_case *c = &list_cases[_i];
    ts_shape s = TS_SHAPE_INIT;
    ts_error err;
    ts_status st = ts_parse_i64_list(c->text, strlen(c->text), c->flags, &s, &err);
    ck_assert_msg(st == c->code, "'%s': status %d, expected %d (%s)", c->text, st, c->code,
                  st ? err.message : "");
    if (c->code == TS_OK) {
        tu_assert_shape(&s, c->expect);
    } else {
        ck_assert_int_eq(err.column, c->column);
        ck_assert_str_eq(err.message, c->message);
    }
    ts_shape_free(&s);
}
END_TEST

/* TS_MAX_NDIM entries fit, one more is TS_ERR_NDIM; a long list spills to
 * the heap and is freed by ts_shape_free. */
START_TEST(test_list_limit)
{
    char text[4 * (TS_MAX_NDIM + 1) + 1];
    size_t n = 0;
    for (int i = 0; i < TS_MAX_NDIM; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%s%d", i ? "," : "", i % 10);
    ts_shape s = TS_SHAPE_INIT;
    ts_error err;
    ck_assert_int_eq(ts_parse_i64_list(text, n, 0, &s, &err), TS_OK);
    ck_assert_int_eq(ts_shape_ndim(&s), TS_MAX_NDIM);
    ck_assert_int_eq(ts_shape_dims(&s)[TS_MAX_NDIM - 1], (TS_MAX_NDIM - 1) % 10);
    n += (size_t)snprintf(text + n, sizeof text - n, ",1");
    ck_assert_int_eq(ts_parse_i64_list(text, n, 0, &s, &err), TS_ERR_NDIM);
    ck_assert_int_eq(err.column, (int64_t)n);
    ts_shape_free(&s);
}
END_TEST

Suite *lex_suite(void)
{
    Suite *s = suite_create("lex");
    TCase *tc = tcase_create("integers");
    tcase_add_loop_test(tc, test_parse_i64, 0, (int)(sizeof i64_cases / sizeof *i64_cases));
    tcase_add_test(tc, test_parse_i64_len);
    suite_add_tcase(s, tc);
    TCase *lists = tcase_create("lists");
    tcase_add_loop_test(lists, test_parse_list, 0, (int)(sizeof list_cases / sizeof *list_cases));
    tcase_add_test(lists, test_list_limit);
    suite_add_tcase(s, lists);
    return s;
}
