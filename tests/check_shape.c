/* check_shape.c - ts_shape storage: inline/heap boundary, copy, move, free. */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static void fill(int64_t *d, int n, int64_t base)
{
    for (int i = 0; i < n; i++)
        d[i] = base + i;
}

START_TEST(test_init_is_scalar)
{
    ts_shape s;
    ts_shape_init(&s);
    ck_assert_int_eq(ts_shape_ndim(&s), 0);
    ck_assert_ptr_null(s.heap);
    ts_shape t = TS_SHAPE_INIT;
    ck_assert_int_eq(ts_shape_equal(&s, &t), 1);
    tu_assert_shape(&s, "()");
}
END_TEST

/* ndim 0, 1, 4 stay inline; 5 and 64 spill to the heap. */
static const int ndims[] = {0, 1, 4, 5, 64};

START_TEST(test_assign_boundary)
{
    int n = ndims[_i];
    int64_t d[TS_MAX_NDIM];
    fill(d, n, 2);
    ts_shape s = TS_SHAPE_INIT;
    ck_assert_int_eq(ts_shape_assign(&s, d, n, NULL), TS_OK);
    ck_assert_int_eq(ts_shape_ndim(&s), n);
    if (n <= TS_STACK_CACHE) {
        ck_assert_ptr_null(s.heap);
        ck_assert_ptr_eq(ts_shape_dims(&s), s.stack);
    } else {
        ck_assert_ptr_nonnull(s.heap);
        ck_assert_int_ge(s.heap_capacity, n);
        ck_assert_ptr_eq(ts_shape_dims(&s), s.heap);
    }
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(ts_shape_dims(&s)[i], 2 + i);
    ts_shape c = TS_SHAPE_INIT;
    ck_assert_int_eq(ts_shape_copy(&c, &s, NULL), TS_OK);
    ck_assert_int_eq(ts_shape_equal(&c, &s), 1);
    if (n > TS_STACK_CACHE)
        ck_assert_ptr_ne(c.heap, s.heap); /* deep copy */
    ts_shape_free(&s);
    ts_shape_free(&c);
    ck_assert_int_eq(ts_shape_ndim(&c), 0);
    ck_assert_ptr_null(c.heap);
}
END_TEST

START_TEST(test_resize_all_ones)
{
    ts_shape s = TS_SHAPE_INIT;
    ck_assert_int_eq(ts_shape_resize(&s, 6, NULL), TS_OK);
    tu_assert_shape(&s, "(1,1,1,1,1,1)");
    ck_assert_int_eq(ts_shape_resize(&s, 2, NULL), TS_OK);
    tu_assert_shape(&s, "(1,1)");
    ts_error err;
    ck_assert_int_eq(ts_shape_resize(&s, TS_MAX_NDIM + 1, &err), TS_ERR_NDIM);
    ck_assert_int_eq(err.code, TS_ERR_NDIM);
    ck_assert_ptr_nonnull(strstr(err.message, "ndim 65 is out of range"));
    ck_assert_int_eq(ts_shape_resize(&s, -1, NULL), TS_ERR_NDIM);
    ts_shape_free(&s);
}
END_TEST

/* Heap -> small -> heap again: the heap block is kept and reused, and
 * nothing leaks (run under valgrind/ASan). */
START_TEST(test_reassign_heap_and_back)
{
    int64_t big[8], small[2] = {7, 8};
    fill(big, 8, 1);
    ts_shape s = TS_SHAPE_INIT;
    ck_assert_int_eq(ts_shape_assign(&s, big, 8, NULL), TS_OK);
    int64_t *heap = s.heap;
    ck_assert_int_eq(ts_shape_assign(&s, small, 2, NULL), TS_OK);
    tu_assert_shape(&s, "(7,8)");
    ck_assert_ptr_eq(s.heap, heap);
    ck_assert_int_eq(ts_shape_assign(&s, big, 6, NULL), TS_OK);
    ck_assert_ptr_eq(s.heap, heap); /* capacity 8 suffices */
    tu_assert_shape(&s, "(1,2,3,4,5,6)");
    ts_shape_free(&s);
    ts_shape_free(&s); /* idempotent */
    ts_shape_free(NULL);
}
END_TEST

START_TEST(test_move)
{
    int64_t big[5] = {1, 2, 3, 4, 5};
    ts_shape a = TS_SHAPE_INIT, b = TS_SHAPE_INIT;
    ck_assert_int_eq(ts_shape_assign(&a, big, 5, NULL), TS_OK);
    int64_t two[2] = {9, 9};
    ck_assert_int_eq(ts_shape_assign(&b, two, 2, NULL), TS_OK);
    int64_t *heap = a.heap;
    ts_shape_move(&b, &a);
    ck_assert_ptr_eq(b.heap, heap);
    tu_assert_shape(&b, "(1,2,3,4,5)");
    ck_assert_int_eq(ts_shape_ndim(&a), 0);
    ck_assert_ptr_null(a.heap);
    ts_shape_move(&b, &b); /* self-move is a no-op */
    tu_assert_shape(&b, "(1,2,3,4,5)");
    ts_shape_free(&b);
    ts_shape_free(&a);
}
END_TEST

START_TEST(test_equal)
{
    ts_shape a = TS_SHAPE_INIT, b = TS_SHAPE_INIT;
    tu_shape(&a, "(1,2,3,4,5)");
    tu_shape(&b, "[1,2,3,4,5]");
    ck_assert_int_eq(ts_shape_equal(&a, &b), 1);
    tu_shape(&b, "(1,2,3,4,6)");
    ck_assert_int_eq(ts_shape_equal(&a, &b), 0);
    tu_shape(&b, "(1,2,3,4)");
    ck_assert_int_eq(ts_shape_equal(&a, &b), 0);
    tu_shape(&a, "()");
    tu_shape(&b, "[]");
    ck_assert_int_eq(ts_shape_equal(&a, &b), 1);
    ts_shape_free(&a);
    ts_shape_free(&b);
}
END_TEST

START_TEST(test_dim_and_axis)
{
    ts_shape s = TS_SHAPE_INIT;
    tu_shape(&s, "(2,3,4)");
    int64_t v;
    ck_assert_int_eq(ts_shape_dim(&s, -1, &v, NULL), TS_OK);
    ck_assert_int_eq(v, 4);
    ck_assert_int_eq(ts_shape_dim(&s, 0, &v, NULL), TS_OK);
    ck_assert_int_eq(v, 2);
    ts_error err;
    ck_assert_int_eq(ts_shape_dim(&s, 3, &v, &err), TS_ERR_AXIS);
    ck_assert_str_eq(err.message, "axis 3 is out of bounds for array of dimension 3");
    ck_assert_int_eq(ts_shape_dim(&s, -4, &v, &err), TS_ERR_AXIS);
    int a;
    ck_assert_int_eq(ts_axis_normalize(-3, 3, &a, NULL), TS_OK);
    ck_assert_int_eq(a, 0);
    ts_shape_free(&s);
}
END_TEST

START_TEST(test_strerror_complete)
{
    /* Every code has distinct, non-empty text; unknown codes do not crash. */
    for (int i = 0; i <= TS_ERR_VALUE; i++) {
        const char *t = ts_strerror((ts_status)i);
        ck_assert_ptr_nonnull(t);
        ck_assert_str_ne(t, "unknown error");
        for (int j = 0; j < i; j++)
            ck_assert_str_ne(t, ts_strerror((ts_status)j));
    }
    ck_assert_str_eq(ts_strerror((ts_status)999), "unknown error");
    ck_assert_str_eq(ts_strerror(TS_ERR_OVERFLOW), "integer overflow");
    ck_assert_str_eq(ts_version(), TS_VERSION_STRING);
}
END_TEST

Suite *shape_suite(void)
{
    Suite *s = suite_create("shape");
    TCase *tc = tcase_create("storage");
    tcase_add_test(tc, test_init_is_scalar);
    tcase_add_loop_test(tc, test_assign_boundary, 0, (int)(sizeof ndims / sizeof *ndims));
    tcase_add_test(tc, test_reassign_heap_and_back);
    tcase_add_test(tc, test_move);
    tcase_add_test(tc, test_equal);
    tcase_add_test(tc, test_dim_and_axis);
    suite_add_tcase(s, tc);
    TCase *lim = tcase_create("limits");
    tcase_add_test(lim, test_resize_all_ones);
    tcase_add_test(lim, test_strerror_complete);
    suite_add_tcase(s, lim);
    return s;
}
