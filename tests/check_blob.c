/* check_blob.c - ts_blob after mshadow's TBlob. */
/* Tests functions of the experimental part of tshape.h. */
#define TS_EXPERIMENTAL_API
#include <string.h>

#include "testutil.h"

START_TEST(test_init_and_contiguity)
{
    float data[60];
    ts_shape s = TS_SHAPE_INIT;
    ts_blob b;
    tu_shape(&s, "(3,4,5)");
    ck_assert_int_eq(ts_blob_init(&b, data, &s, TS_DEV_CPU, TS_DTYPE_FLOAT32, NULL), TS_OK);
    ck_assert_ptr_eq(b.data, data);
    ck_assert_int_eq(b.stride, 5);
    ck_assert_int_eq(ts_blob_ndim(&b), 3);
    int64_t n;
    ck_assert_int_eq(ts_blob_size(&b, &n, NULL), TS_OK);
    ck_assert_int_eq(n, 60);
    ck_assert_int_eq(ts_blob_is_contiguous(&b), 1);
    b.stride = 8; /* padded rows */
    ck_assert_int_eq(ts_blob_is_contiguous(&b), 0);
    ts_blob_free(&b);
    ts_blob_free(NULL);
    ts_shape_free(&s);
}
END_TEST

START_TEST(test_reshape)
{
    ts_shape s = TS_SHAPE_INIT, t = TS_SHAPE_INIT;
    ts_blob b, r;
    ts_error err;
    tu_shape(&s, "(3,4,5)");
    ck_assert_int_eq(ts_blob_init(&b, NULL, &s, TS_DEV_GPU, TS_DTYPE_INT8, NULL), TS_OK);
    ck_assert_int_eq(ts_blob_init(&r, NULL, &s, TS_DEV_CPU, TS_DTYPE_FLOAT32, NULL), TS_OK);
    tu_shape(&t, "(6,10)");
    ck_assert_int_eq(ts_blob_reshape(&b, &t, &r, NULL), TS_OK);
    tu_assert_shape(&r.shape, "(6,10)");
    ck_assert_int_eq(r.stride, 10);
    ck_assert_int_eq(r.dev_mask, TS_DEV_GPU);
    ck_assert_int_eq(r.dtype, TS_DTYPE_INT8);
    tu_shape(&t, "(7,9)");
    ck_assert_int_eq(ts_blob_reshape(&b, &t, &r, &err), TS_ERR_SIZE);
    ck_assert_str_eq(err.message, "cannot view 60 elements as shape (7,9) of 63 elements");
    b.stride = 8;
    tu_shape(&t, "(6,10)");
    ck_assert_int_eq(ts_blob_reshape(&b, &t, &r, &err), TS_ERR_LAYOUT);
    ck_assert_str_eq(err.message, "blob is not contiguous (row stride 8, last dim 5): reshaping "
                                  "needs a contiguous blob");
    ts_blob_free(&b);
    ts_blob_free(&r);
    ts_shape_free(&s);
    ts_shape_free(&t);
}
END_TEST

START_TEST(test_flat_views)
{
    ts_shape s = TS_SHAPE_INIT;
    ts_blob b, v;
    tu_shape(&s, "(2,3,4,5)");
    ck_assert_int_eq(ts_blob_init(&b, NULL, &s, TS_DEV_CPU, TS_DTYPE_FLOAT32, NULL), TS_OK);
    ck_assert_int_eq(ts_blob_init(&v, NULL, &s, TS_DEV_CPU, TS_DTYPE_FLOAT32, NULL), TS_OK);
    ck_assert_int_eq(ts_blob_flat3d(&b, 1, 2, &v, NULL), TS_OK);
    tu_assert_shape(&v.shape, "(2,12,5)");
    ck_assert_int_eq(ts_blob_flat3d(&b, 1, 4, &v, NULL), TS_ERR_AXIS);
    /* FlatTo2D keeps the row stride, so a padded blob still has a 2-D view. */
    b.stride = 7;
    ck_assert_int_eq(ts_blob_flat2d(&b, &v, NULL), TS_OK);
    tu_assert_shape(&v.shape, "(24,5)");
    ck_assert_int_eq(v.stride, 7);
    ck_assert_int_eq(ts_blob_flat3d(&b, 1, 2, &v, NULL), TS_ERR_LAYOUT);
    ts_blob_free(&b);
    ts_blob_free(&v);
    /* Scalars: stride 1, contiguous, flat2d (1,1). */
    tu_shape(&s, "()");
    ck_assert_int_eq(ts_blob_init(&b, NULL, &s, TS_DEV_CPU, TS_DTYPE_FLOAT64, NULL), TS_OK);
    ck_assert_int_eq(b.stride, 1);
    ck_assert_int_eq(ts_blob_is_contiguous(&b), 1);
    ts_blob_free(&b);
    tu_shape(&s, "(-1,3)");
    ck_assert_int_eq(ts_blob_init(&b, NULL, &s, TS_DEV_CPU, TS_DTYPE_FLOAT64, NULL), TS_ERR_VALUE);
    ts_blob_free(&b);
    ts_shape_free(&s);
}
END_TEST

Suite *blob_suite(void)
{
    Suite *s = suite_create("blob");
    TCase *tc = tcase_create("tblob");
    tcase_add_test(tc, test_init_and_contiguity);
    tcase_add_test(tc, test_reshape);
    tcase_add_test(tc, test_flat_views);
    suite_add_tcase(s, tc);
    return s;
}
