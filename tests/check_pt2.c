/* check_pt2.c - torch.export archives (.pt2, PT2 Archive version 0) through
 * the PyTorch reader: the fixtures of gen_pt2.py (views of one storage,
 * strides, a buffer, a constant, a pickled payload), values read from the
 * payload members, the graph signature with symbolic shapes, the refusal
 * of the torch 2.1-2.5 layout, and truncation and byte-change loops. */
#define TS_EXPERIMENTAL_API /* ts_array_read */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

START_TEST(test_linear)
{
    char path[1024];
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.want_metadata = 1;
    ts_file *f;
    ts_error err;
    ck_assert_msg(ts_file_open(tu_fixture(path, sizeof path, "pt2/linear.pt2"), &o, &f, &err) ==
                      TS_OK, "%s", err.message);
    ck_assert_int_eq(ts_file_format(f), TS_FORMAT_PYTORCH);
    ck_assert_str_eq(ts_file_version(f), "pt2 0");
    ck_assert_uint_eq(ts_file_count(f), 7);
    const ts_array *a = tu_array_named(f, "fc.weight");
    ck_assert_int_eq(a->dtype, TS_DTYPE_FLOAT32);
    ck_assert_str_eq(a->format_dtype, "FLOAT");
    ck_assert_str_eq(a->storage_key, "linear/data/weights/weight_0");
    ck_assert_int_eq(a->nbytes, 48);
    double v[12];
    ck_assert_msg(ts_array_read(f, a, 0, 12, TS_DTYPE_FLOAT64, v, &err) == TS_OK, "%s",
                  err.message);
    for (int k = 0; k < 12; k++)
        ck_assert(v[k] == k * 0.25 - 1);
    /* a view of fc.bias's storage */
    a = tu_array_named(f, "fc.bias_tail");
    ck_assert_int_eq(a->storage_offset, 1);
    ck_assert_int_eq(a->data_offset, tu_array_named(f, "fc.bias")->data_offset + 4);
    ck_assert_str_eq(a->storage_key, tu_array_named(f, "fc.bias")->storage_key);
    ck_assert_int_eq(ts_array_read(f, a, 0, 2, TS_DTYPE_FLOAT64, v, &err), TS_OK);
    ck_assert(v[0] == -0.5 && v[1] == 2);
    /* transposed: strides (1,2), F order, read in C order */
    a = tu_array_named(f, "half_t");
    ck_assert_int_eq(a->dtype, TS_DTYPE_BFLOAT16);
    ck_assert_int_eq(a->fortran_order, 1);
    ck_assert_int_eq(a->data_offset, tu_array_named(f, "running")->data_offset + 16 + 30 +
                                         (int64_t)strlen("linear/data/weights/weight_3"));
    ck_assert_int_eq(ts_array_read(f, a, 0, 4, TS_DTYPE_FLOAT64, v, &err), TS_OK);
    ck_assert(v[0] == 1 && v[1] == 3 && v[2] == 2 && v[3] == 4);
    ck_assert_str_eq(tu_array_named(f, "running")->note, "buffer");
    ck_assert_str_eq(tu_array_named(f, "lifted_tensor_0")->note, "constant");
    a = tu_array_named(f, "sub");
    ck_assert_int_eq(a->data_offset, -1);
    ck_assert_str_eq(a->note, "parameter; pickled (a tensor subclass saved with torch.save in "
                              "linear/data/weights/weight_4): not read");
    ck_assert_str_eq(tu_metadata(f, "graph_signature.outputs"),
                     "[{\"kind\":\"user_output\",\"name\":\"linear\",\"target\":null,"
                     "\"dtype\":\"float32\",\"shape\":[\"s0\",3]}]");
    ck_assert(strstr(tu_metadata(f, "graph_signature.inputs"),
                     "{\"kind\":\"user_input\",\"name\":\"x\",\"target\":null,\"dtype\":"
                     "\"float32\",\"shape\":[\"s0\",4]}]"));
    ck_assert_str_eq(tu_metadata(f, "range_constraints"), "{\"s0\":{\"min_val\":2,\"max_val\":1024}}");
    ck_assert_str_eq(tu_metadata(f, "torch_version"), "\"2.7.0\"");
    ts_file_close(f);
}
END_TEST

START_TEST(test_defects)
{
    char path[1024];
    /* a PT2 Archive without weights or constants (gen_pytorch.py) */
    ts_file *f;
    ts_error err;
    ck_assert_msg(ts_file_open(tu_fixture(path, sizeof path, "pytorch/export.pt2"), NULL, &f,
                               &err) == TS_OK, "%s", err.message);
    ck_assert_uint_eq(ts_file_count(f), 0);
    ck_assert_str_eq(ts_file_version(f), "pt2 0");
    ts_file_close(f);
    tu_expect_open_error(tu_fixture(path, sizeof path, "pt2/bad_short.pt2"), NULL,
                         TS_ERR_FORMAT, 427,
                         "m/data/weights/model_weights_config.json: 'w': shape (2,2), strides "
                         "(2,1) and storage offset 0 need 16 bytes of m/data/weights/weight_0, "
                         "which holds 12");
    tu_expect_open_error(tu_fixture(path, sizeof path, "pt2/legacy.pt2"), NULL,
                         TS_ERR_UNSUPPORTED, -1,
                         "torch.export archive of torch 2.1 to 2.5 "
                         "(serialized_exported_program.json): not supported; its state dict is "
                         "the torch.save archive in member serialized_state_dict.pt (unzip it "
                         "and read that)");
}
END_TEST

START_TEST(test_prefixes_and_changes)
{
    char path[1024];
    size_t len;
    unsigned char *d = tu_read_named("tests/fixtures/pt2/linear.pt2", path, sizeof path, &len);
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.want_metadata = 1;
    ck_assert_int_eq(tu_open_exact(d, len, &o, NULL), TS_OK);
    for (size_t n = 0; n < len; n++)
        ck_assert_msg(tu_open_exact(d, n, &o, NULL) != TS_OK, "prefix of %zu bytes accepted", n);
    tu_check_byte_changes(d, len, len < 4096 ? len : 4096, &o, NULL, 0);
    free(d);
}
END_TEST

Suite *pt2_suite(void)
{
    Suite *s = suite_create("pt2");
    TCase *tc = tcase_create("fixtures");
    tcase_add_test(tc, test_linear);
    tcase_add_test(tc, test_defects);
    suite_add_tcase(s, tc);
    tc = tcase_create("memory");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, test_prefixes_and_changes);
    suite_add_tcase(s, tc);
    return s;
}
