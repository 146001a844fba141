/*
 * check_statsum.c - ts_stats_summary: the sums of `tshape stats --summary`
 * (arrays, elements, NaN/Inf counts, the largest absmax with NaN ignored,
 * failures), the names of arrays with non-finite values with and without
 * their files, and sums that stop at INT64_MAX.
 */
#define TS_EXPERIMENTAL_API
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "testutil.h"

static ts_stats stats(int64_t count, int64_t nan, int64_t posinf, int64_t neginf, double absmax)
{
    ts_stats s;
    memset(&s, 0, sizeof s);
    s.kind = TS_VALUE_FLOAT;
    s.count = count;
    s.nan = nan;
    s.posinf = posinf;
    s.neginf = neginf;
    s.absmax = absmax;
    return s;
}

START_TEST(test_sums)
{
    ts_stats_summary *s;
    ck_assert_int_eq(ts_stats_summary_new(0, &s, NULL), TS_OK);
    const ts_stats_totals *t = ts_stats_summary_totals(s);
    ck_assert(isnan(t->absmax));
    ts_stats a = stats(6, 1, 0, 0, NAN), b = stats(4, 0, 2, 1, 7.5), c = stats(3, 0, 0, 0, 2);
    ck_assert_int_eq(ts_stats_summary_add(s, "m.npz", "w", &a, NULL), TS_OK);
    ck_assert(isnan(t->absmax));
    ck_assert_int_eq(ts_stats_summary_add(s, "x.npy", "", &b, NULL), TS_OK);
    ck_assert_int_eq(ts_stats_summary_add(s, "m.npz", "ok", &c, NULL), TS_OK);
    ts_stats_summary_fail(s);
    ck_assert_int_eq(t->arrays, 3);
    ck_assert_int_eq(t->elements, 13);
    ck_assert_int_eq(t->nan, 1);
    ck_assert_int_eq(t->posinf, 2);
    ck_assert_int_eq(t->neginf, 1);
    ck_assert_int_eq(t->failed, 1);
    ck_assert(t->absmax == 7.5);
    ck_assert_uint_eq(t->nonfinite, 2);
    ck_assert_str_eq(ts_stats_summary_nonfinite_at(s, 0), "w");
    ck_assert_str_eq(ts_stats_summary_nonfinite_at(s, 1), "x.npy"); /* no name: the file */
    ck_assert_ptr_null(ts_stats_summary_nonfinite_at(s, 2));
    ts_stats_summary_free(s);

    ck_assert_int_eq(ts_stats_summary_new(TS_STATS_SUMMARY_FILES, &s, NULL), TS_OK);
    ck_assert_int_eq(ts_stats_summary_add(s, "m.npz", "w", &a, NULL), TS_OK);
    ck_assert_str_eq(ts_stats_summary_nonfinite_at(s, 0), "m.npz:w");
    ts_stats big = stats(INT64_MAX, INT64_MAX, 0, 0, 1);
    ck_assert_int_eq(ts_stats_summary_add(s, "m.npz", "big", &big, NULL), TS_OK);
    ck_assert_int_eq(ts_stats_summary_totals(s)->elements, INT64_MAX);
    ck_assert_int_eq(ts_stats_summary_totals(s)->nan, INT64_MAX);
    ts_stats_summary_free(s);
}
END_TEST

Suite *statsum_suite(void)
{
    Suite *s = suite_create("statsum");
    TCase *tc = tcase_create("statsum");
    tcase_add_test(tc, test_sums);
    suite_add_tcase(s, tc);
    return s;
}
