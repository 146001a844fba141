/* check_broadcast.c - ts_broadcast: NumPy broadcast_shapes examples of
 * peer-semantics.md 1.2, the 1-vs-0 rule, and messages that name the
 * clashing arguments and the axis. */
#include "testutil.h"

#include <stdio.h>
#include <string.h>

#define MAXARGS 4

typedef struct bc_case {
    const char *shapes[MAXARGS];  /* NULL-terminated */
    const char *expect;           /* NULL for an error */
    ts_status code;
    const char *msg;
} bc_case;

static const bc_case cases[] = {
    {{"(3,1)", "(1,4)"}, "(3,4)", TS_OK, NULL},
    {{"(5,1,4)", "(3,1)"}, "(5,3,4)", TS_OK, NULL},
    {{"(2,1,3)", "(4,1)", "(3,)"}, "(2,4,3)", TS_OK, NULL},
    {{"(0,)", "(1,)"}, "(0,)", TS_OK, NULL},
    {{"(1,)", "(0,)"}, "(0,)", TS_OK, NULL},
    {{NULL}, "()", TS_OK, NULL},
    {{"()"}, "()", TS_OK, NULL},
    {{"()", "(2,3)"}, "(2,3)", TS_OK, NULL},
    {{"(7,1,1,1,5)", "(6,1,1)", "(1,)"}, "(7,1,6,1,5)", TS_OK, NULL},
    {{"(2,3)"}, "(2,3)", TS_OK, NULL},
    {{"(2,3)", "(4,3)"}, NULL, TS_ERR_BROADCAST,
     "shapes (2,3) (arg 0) and (4,3) (arg 1) cannot be broadcast: axis 0 (counted from the "
     "left of the result) has 2 vs 4"},
    {{"(2,3)", "(3,2)", "(1,)"}, NULL, TS_ERR_BROADCAST,
     "shapes (2,3) (arg 0) and (3,2) (arg 1) cannot be broadcast: axis 0"},
    {{"(3,)", "(4,)"}, NULL, TS_ERR_BROADCAST, "has 3 vs 4"},
    {{"(0,)", "(2,)"}, NULL, TS_ERR_BROADCAST, "axis 0 (counted from the left of the result) has 0 vs 2"},
    {{"(1,)", "(2,)", "(3,)"}, NULL, TS_ERR_BROADCAST,
     "shapes (2,) (arg 1) and (3,) (arg 2) cannot be broadcast"},
    {{"(5,2,3)", "(3,)", "(4,1)"}, NULL, TS_ERR_BROADCAST,
     "shapes (5,2,3) (arg 0) and (4,1) (arg 2) cannot be broadcast: axis 1 (counted from the "
     "left of the result) has 2 vs 4"},
    {{"(2,-1)", "(2,1)"}, NULL, TS_ERR_VALUE, "negative dim -1 at axis 1"},
};

START_TEST(test_broadcast_table)
{
    const bc_case *c = &cases[_i];
    ts_shape s[MAXARGS];
    const ts_shape *p[MAXARGS];
    size_t n = 0;
    while (n < MAXARGS && c->shapes[n]) {
        ts_shape_init(&s[n]);
        tu_shape(&s[n], c->shapes[n]);
        p[n] = &s[n];
        n++;
    }
    ts_shape out = TS_SHAPE_INIT;
    tu_shape(&out, "(9,9,9,9,9,9)"); /* overwritten */
    ts_error err;
    ts_status st = ts_broadcast(n ? p : NULL, n, &out, &err);
    if (c->expect) {
        ck_assert_msg(st == TS_OK, "case %d: %s", _i, err.message);
        tu_assert_shape(&out, c->expect);
    } else {
        ck_assert_int_eq(st, c->code);
        ck_assert_int_eq(err.code, c->code);
        ck_assert_msg(strstr(err.message, c->msg) != NULL, "message '%s' lacks '%s'",
                      err.message, c->msg);
        /* err.index is the last argument the message names: the one that
         * does not fit the ones before it. */
        const char *last = NULL;
        for (const char *q = err.message; (q = strstr(q, "(arg ")) != NULL; q++)
            last = q;
        char want[32];
        snprintf(want, sizeof want, "(arg %lld)", (long long)err.index);
        ck_assert_msg(last && strncmp(last, want, strlen(want)) == 0, "index %lld for '%s'",
                      (long long)err.index, err.message);
    }
    for (size_t i = 0; i < n; i++)
        ts_shape_free(&s[i]);
    ts_shape_free(&out);
}
END_TEST

/* out may be one of the inputs. */
START_TEST(test_broadcast_alias)
{
    ts_shape a = TS_SHAPE_INIT, b = TS_SHAPE_INIT;
    tu_shape(&a, "(3,1)");
    tu_shape(&b, "(2,1,1,1,4)");
    const ts_shape *p[2] = {&a, &b};
    ck_assert_int_eq(ts_broadcast(p, 2, &a, NULL), TS_OK);
    tu_assert_shape(&a, "(2,1,1,3,4)");
    ts_shape_free(&a);
    ts_shape_free(&b);
}
END_TEST

Suite *broadcast_suite(void)
{
    Suite *s = suite_create("broadcast");
    TCase *tc = tcase_create("table");
    tcase_add_loop_test(tc, test_broadcast_table, 0, (int)(sizeof cases / sizeof *cases));
    tcase_add_test(tc, test_broadcast_alias);
    suite_add_tcase(s, tc);
    return s;
}
