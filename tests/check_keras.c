/* check_keras.c - the Keras 3 .keras reader on the fixtures of
 * tests/fixtures/gen_keras.py: detection, names, file offsets of a stored
 * model.weights.h5 (checked against h5py's Dataset.id.get_offset() plus the
 * member's data offset from zipfile), a deflated member, metadata, values,
 * the refused archives with their messages, and damaged copies. Skipped
 * when libhdf5 1.10 is not installed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static int have_hdf5(void)
{
    char path[1024];
    ts_file *f;
    ts_error err;
    ts_status st = ts_file_open(tu_fixture(path, sizeof path, "keras/sequential.keras"), NULL,
                                &f, &err);
    if (st == TS_ERR_UNSUPPORTED) {
        fprintf(stderr, "skipped: %s\n", err.message);
        return 0;
    }
    ck_assert_msg(st == TS_OK, "%s", err.message);
    ts_file_close(f);
    return 1;
}

static const char *meta(const ts_file *f, const char *key)
{
    const char *k, *v;
    for (size_t i = 0; ts_file_metadata(f, i, &k, &v); i++)
        if (strcmp(k, key) == 0)
            return v;
    return NULL;
}

START_TEST(test_stored)
{
    if (!have_hdf5())
        return;
    ts_file *f = tu_open_fixture("keras/sequential.keras", 0);
    ck_assert_int_eq(ts_file_format(f), TS_FORMAT_KERAS);
    ck_assert_str_eq(ts_file_version(f), "Keras 3, stored model.weights.h5");
    ck_assert_uint_eq(ts_file_count(f), 14);
    const ts_array *a = tu_array_named(f, "layers/dense/vars/0");
    tu_assert_shape(&a->shape, "(4,3)");
    ck_assert_int_eq(a->dtype, TS_DTYPE_FLOAT32);
    ck_assert_int_eq(a->data_offset, 10971);
    ck_assert_int_eq(tu_array_named(f, "optimizer/vars/9")->data_offset, 21443);
    ck_assert_int_eq(tu_array_named(f, "optimizer/vars/0")->dtype, TS_DTYPE_INT64);
    ck_assert_str_eq(meta(f, "keras_version"), "\"3.8.0\"");
    ck_assert_str_eq(meta(f, "date_saved"), "\"2026-11-26@01:59:00\"");
    ck_assert_str_eq(meta(f, "keras.class_name"), "\"Sequential\"");
    ck_assert_str_eq(meta(f, "keras.name"), "\"sequential\"");
    ck_assert_str_eq(meta(f, "keras.layers"), "4");
    const double want[] = {-1, -0.75, -0.5, -0.25, 0, 0.25};
    tu_expect_values(f, "layers/dense/vars/0", want, 6);
    ts_file_close(f);
}
END_TEST

START_TEST(test_deflated_and_nested)
{
    if (!have_hdf5())
        return;
    ts_file *f = tu_open_fixture("keras/deflated.keras", 0);
    ck_assert_str_eq(ts_file_version(f), "Keras 3, deflated model.weights.h5");
    const ts_array *a = tu_array_named(f, "layers/dense/vars/0");
    ck_assert_int_eq(a->data_offset, -1);
    ck_assert_str_eq(a->note, "contiguous, storage 48 bytes; at byte 9488 of the inflated "
                              "member, no offset in the file");
    const double want[] = {-1, -0.75, -0.5, -0.25, 0, 0.25};
    tu_expect_values(f, "layers/dense/vars/0", want, 6);
    ts_file_close(f);

    f = tu_open_fixture("keras/nested.keras", 0);
    ck_assert_uint_eq(ts_file_count(f), 9);
    a = tu_array_named(f, "layers/sequential/layers/dense/vars/0");
    tu_assert_shape(&a->shape, "(2,3)");
    ck_assert_int_eq(tu_array_named(f, "layers/dense/vars/0")->dtype, TS_DTYPE_BFLOAT16);
    ck_assert_str_eq(meta(f, "keras.class_name"), "\"Functional\"");
    tu_expect_values(f, "layers/dense/vars/0", want, 6);
    ts_file_close(f);
}
END_TEST

START_TEST(test_refused)
{
    char path[1024];
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    tu_expect_open_error(tu_fixture(path, sizeof path, "keras/npzweights.keras"), &o,
                         TS_ERR_UNSUPPORTED, 0,
                         "Keras archive with weights in 'model.weights.npz' "
                         "(weights_format=\"npz\"), which this tshape does not read; only "
                         "'model.weights.h5'");
    o.format = TS_FORMAT_NPZ;
    tu_expect_open_error(tu_fixture(path, sizeof path, "keras/sequential.keras"), &o,
                         TS_ERR_FORMAT, 0,
                         "zip archive of 3 members and no .npy member (the first is "
                         "'metadata.json'): not a NumPy .npz; it looks like a Keras 3 .keras "
                         "archive: try --format keras");
}
END_TEST

/* Every prefix and the byte changes of the zip's headers fail cleanly. */
START_TEST(test_damaged)
{
    if (!have_hdf5())
        return;
    char path[1024];
    size_t len;
    unsigned char *d = tu_read_named("tests/fixtures/keras/deflated.keras", path, sizeof path,
                                     &len);
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.format = TS_FORMAT_KERAS;
    o.want_metadata = 1;
    ck_assert_int_eq(tu_open_exact(d, len, &o, NULL), TS_OK);
    for (size_t n = 0; n < len; n += 7)
        ck_assert_msg(tu_open_exact(d, n, &o, NULL) != TS_OK, "prefix of %zu bytes accepted",
                      n);
    tu_check_byte_changes(d, len, 160, &o, NULL, 0);
    free(d);
}
END_TEST

Suite *keras_suite(void)
{
    Suite *s = suite_create("keras");
    TCase *tc = tcase_create("fixtures");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_stored);
    tcase_add_test(tc, test_deflated_and_nested);
    tcase_add_test(tc, test_refused);
    tcase_add_test(tc, test_damaged);
    suite_add_tcase(s, tc);
    return s;
}
