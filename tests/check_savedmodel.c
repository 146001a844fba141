/* check_savedmodel.c - the SavedModel reader: the fixtures of
 * gen_savedmodel.py (variables from variables/, Const tensors with
 * tensor_content and typed fields, a function's constant, a splat constant,
 * signatures), a SavedModel without variables, detection among the .pb
 * formats, and truncation and byte-change loops that must never crash. */
#define TS_EXPERIMENTAL_API /* ts_array_read */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

START_TEST(test_basic)
{
    ts_file *f = tu_open_fixture("savedmodel/basic/saved_model.pb", 0);
    ck_assert_int_eq(ts_file_format(f), TS_FORMAT_SAVEDMODEL);
    ck_assert_str_eq(ts_file_version(f), "SavedModel");
    ck_assert_uint_eq(ts_file_count(f), 8);
    /* the variables, from variables/variables.index */
    const ts_array *a = tu_array_named(f, "variables/0/.ATTRIBUTES/VARIABLE_VALUE");
    ck_assert_str_eq(a->storage_key, "variables/variables.data-00000-of-00001");
    ck_assert_int_eq(a->data_offset, 0);
    static const double v0[] = {-1, -0.5, 0, 0.5, 1, 1.5};
    tu_expect_values(f, "variables/0/.ATTRIBUTES/VARIABLE_VALUE", v0, 6);
    ck_assert_int_eq(tu_array_named(f, "variables/1/.ATTRIBUTES/VARIABLE_VALUE")->data_offset, 24);
    /* constants */
    a = tu_array_named(f, "Const");
    ck_assert_int_eq(a->data_offset, 68);
    ck_assert_int_eq(a->nbytes, 24);
    ck_assert_ptr_null(a->storage_key);
    ck_assert_str_eq(a->note, "tensor_content");
    static const double c[] = {-2, -1, 0, 1, 2, 3};
    tu_expect_values(f, "Const", c, 6);
    a = tu_array_named(f, "scalar");
    ck_assert_int_eq(a->data_offset, -1);
    ck_assert_str_eq(a->note, "1 entries of typed field float_val (read from there)");
    static const double sc[] = {2.5};
    tu_expect_values(f, "scalar", sc, 1);
    static const double ids[] = {1, 2, -3};
    tu_expect_values(f, "ids", ids, 3);
    a = tu_array_named(f, "fill");
    ck_assert_str_eq(a->note, "1 of 4 values in float_val (TensorFlow repeats the last one): "
                              "no data of its own");
    a = tu_array_named(f, "names");
    ck_assert_int_eq(a->dtype, TS_DTYPE_OBJECT);
    ck_assert_str_eq(a->note, "2 strings in string_val");
    a = tu_array_named(f, "__inference_call_42/w");
    ck_assert_int_eq(a->dtype, TS_DTYPE_FLOAT16);
    static const double w[] = {0.5, -1};
    tu_expect_values(f, "__inference_call_42/w", w, 2);
    size_t i = 0;
    const char *key, *value;
    int found = 0;
    while (ts_file_metadata(f, i++, &key, &value))
        if (strcmp(key, "signatures") == 0) {
            found = 1;
            ck_assert_str_eq(value,
                             "{\"serving_default\":{\"inputs\":{\"x\":{\"name\":"
                             "\"serving_default_x:0\",\"dtype\":\"float32\",\"shape\":[-1,3]}},"
                             "\"outputs\":{\"y\":{\"name\":\"StatefulPartitionedCall:0\","
                             "\"dtype\":\"float32\",\"shape\":[-1,2]}},\"method_name\":"
                             "\"tensorflow/serving/predict\"}}");
        }
    ck_assert(found);
    ts_file_close(f);
}
END_TEST

START_TEST(test_novars)
{
    ts_file *f = tu_open_fixture("savedmodel/novars/saved_model.pb", 0);
    ck_assert_uint_eq(ts_file_count(f), 1);
    static const double c[] = {5, -6};
    tu_expect_values(f, "c", c, 2);
    ts_file_close(f);
}
END_TEST

/* The other .pb formats (Caffe2 TensorProtos and init nets) are not taken
 * for SavedModels, and a SavedModel is detected by its structure. */
START_TEST(test_detection)
{
    static const struct {
        const char *file;
        ts_format format;
    } cases[] = {{"caffe/tensors.pb", TS_FORMAT_CAFFE2},
                 {"caffe/init_net.pb", TS_FORMAT_CAFFE2},
                 {"savedmodel/novars/saved_model.pb", TS_FORMAT_SAVEDMODEL}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char path[1024];
        ts_file *f;
        ts_error err;
        ck_assert_msg(ts_file_open(tu_fixture(path, sizeof path, cases[i].file), NULL, &f,
                                   &err) == TS_OK, "%s: %s", cases[i].file, err.message);
        ck_assert_int_eq(ts_file_format(f), cases[i].format);
        ts_file_close(f);
    }
}
END_TEST

static const char *const loop_files[] = {"tests/fixtures/savedmodel/basic/saved_model.pb",
                                         "tests/fixtures/savedmodel/novars/saved_model.pb"};

START_TEST(test_prefixes_and_changes)
{
    char path[1024];
    size_t len;
    unsigned char *d = tu_read_named(loop_files[_i], path, sizeof path, &len);
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.format = TS_FORMAT_SAVEDMODEL; /* from memory: variables not read */
    o.want_metadata = 1;
    ck_assert_int_eq(tu_open_exact(d, len, &o, NULL), TS_OK);
    for (size_t n = 0; n < len; n++)
        (void)tu_open_exact(d, n, &o, NULL); /* a protobuf prefix may be valid */
    tu_check_byte_changes(d, len, len < 2048 ? len : 2048, &o, NULL, 0);
    free(d);
}
END_TEST

Suite *savedmodel_suite(void)
{
    Suite *s = suite_create("savedmodel");
    TCase *tc = tcase_create("fixtures");
    tcase_add_test(tc, test_basic);
    tcase_add_test(tc, test_novars);
    tcase_add_test(tc, test_detection);
    suite_add_tcase(s, tc);
    tc = tcase_create("memory");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_prefixes_and_changes, 0,
                        (int)(sizeof loop_files / sizeof *loop_files));
    suite_add_tcase(s, tc);
    return s;
}
