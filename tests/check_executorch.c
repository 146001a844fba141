/* check_executorch.c - the ExecuTorch reader: the programs of
 * gen_executorch.py (constants in a segment after the FlatBuffer, found
 * through the extended header; inline constant buffers; dim_order strides;
 * a second plan sharing a constant), values, metadata, the defect's exact
 * message, and truncation and byte-change loops that must never crash. */
#define TS_EXPERIMENTAL_API /* ts_array_read */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

START_TEST(test_segments)
{
    char path[1024];
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.want_metadata = 1;
    ts_file *f;
    ts_error err;
    ck_assert_msg(ts_file_open(tu_fixture(path, sizeof path, "executorch/segments.pte"), &o, &f,
                               &err) == TS_OK, "%s", err.message);
    ck_assert_int_eq(ts_file_format(f), TS_FORMAT_EXECUTORCH);
    ck_assert_str_eq(ts_file_version(f), "0");
    ck_assert_uint_eq(ts_file_count(f), 5); /* linear.weight once, though two plans use it */
    const ts_array *a = tu_array_named(f, "linear.weight");
    ck_assert_str_eq(a->format_dtype, "FLOAT");
    ck_assert_int_eq(a->data_offset, 1072); /* the segment base, offset 0 */
    double v[12];
    ck_assert_msg(ts_array_read(f, a, 0, 12, TS_DTYPE_FLOAT64, v, &err) == TS_OK, "%s",
                  err.message);
    for (int k = 0; k < 12; k++)
        ck_assert(v[k] == k * 0.5 - 2);
    ck_assert_int_eq(tu_array_named(f, "linear.bias")->data_offset, 1072 + 48);
    /* dim_order (0,2,1): strides (6,1,2), values in logical C order */
    a = tu_array_named(f, "chan");
    ck_assert_int_eq(a->data_offset, -1);
    ck_assert_int_eq(ts_shape_dims(&a->strides)[0], 6);
    ck_assert_int_eq(ts_shape_dims(&a->strides)[1], 1);
    ck_assert_int_eq(ts_shape_dims(&a->strides)[2], 3);
    ck_assert_int_eq(ts_array_read(f, a, 0, 12, TS_DTYPE_FLOAT64, v, &err), TS_OK);
    for (int k = 0; k < 12; k++)
        ck_assert(v[k] == k);
    a = tu_array_named(f, "q");
    ck_assert_int_eq(a->dtype, TS_DTYPE_UINT8);
    ck_assert_str_eq(a->note, "quantized uint8 (QUINT8)");
    ck_assert_int_eq(tu_array_named(f, "k2")->dtype, TS_DTYPE_INT64);
    const char *k, *mv = NULL;
    for (size_t i = 0; i < ts_file_metadata_count(f); i++)
        if (ts_file_metadata(f, i, &k, &mv) && strcmp(k, "extended_header") == 0)
            break;
    ck_assert_str_eq(mv, "{\"program_size\":1064,\"segment_base_offset\":1072}");
    ts_file_close(f);

    /* with activations: the input, planned memory for the output */
    o.want_activations = 1;
    ck_assert_int_eq(ts_file_open(path, &o, &f, &err), TS_OK);
    ck_assert_uint_eq(ts_file_count(f), 7);
    ck_assert_str_eq(tu_array_named(f, "forward/value0")->note,
                     "dynamic (bounded) shape: sizes are upper bounds; no data in the program "
                     "(an input or a value filled at run time)");
    ck_assert_str_eq(tu_array_named(f, "forward/value5")->note, "no data in the program (memory planned)");
    ts_file_close(f);
}
END_TEST

START_TEST(test_inline_and_defect)
{
    char path[1024];
    ts_file *f;
    ts_error err;
    ck_assert_msg(ts_file_open(tu_fixture(path, sizeof path, "executorch/inline.pte"), NULL, &f,
                               &err) == TS_OK, "%s", err.message);
    const ts_array *a = tu_array_named(f, "ids");
    ck_assert_int_eq(a->dtype, TS_DTYPE_INT32);
    double v[4];
    ck_assert_int_eq(ts_array_read(f, a, 0, 4, TS_DTYPE_FLOAT64, v, &err), TS_OK);
    ck_assert(v[0] == 0 && v[3] == 3);
    ts_file_close(f);
    tu_expect_open_error(tu_fixture(path, sizeof path, "executorch/bad_seg.pte"), NULL,
                         TS_ERR_TRUNCATED, 156,
                         "tensor 'linear.weight': segment 0 (offset 0, 4224 bytes after the "
                         "base 1072) runs past the end of the 1200-byte file");
}
END_TEST

/* A plan whose outputs vector runs past the program (found by
 * fuzz_file_executorch): the same error with or without --metadata (the
 * metadata walk once left its error aside and returned another status). */
START_TEST(test_outputs_vector)
{
    char path[1024];
    const char *rel = "fuzz-crashes/fuzz_file_executorch/outputs-vector-short";
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.format = TS_FORMAT_EXECUTORCH;
    for (int meta = 0; meta < 2; meta++) {
        o.want_metadata = meta;
        tu_expect_open_error(tu_fixture(path, sizeof path, rel), &o, TS_ERR_TRUNCATED, 444,
                             "ExecutionPlan.outputs at byte 444 holds 513 elements of 4 bytes, "
                             "but only 616 bytes are left in the file");
    }
}
END_TEST

static const char *const loop_files[] = {"tests/fixtures/executorch/segments.pte",
                                         "tests/fixtures/executorch/inline.pte"};

START_TEST(test_prefixes_and_changes)
{
    char path[1024];
    size_t len;
    unsigned char *d = tu_read_named(loop_files[_i], path, sizeof path, &len);
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.want_metadata = 1;
    o.want_activations = 1;
    ck_assert_int_eq(tu_open_exact(d, len, &o, NULL), TS_OK);
    for (size_t n = 0; n < len; n++)
        tu_open_exact(d, n, &o, NULL); /* any answer but a crash */
    tu_check_byte_changes(d, len, len, &o, NULL, 0);
    free(d);
}
END_TEST

Suite *executorch_suite(void)
{
    Suite *s = suite_create("executorch");
    TCase *tc = tcase_create("fixtures");
    tcase_add_test(tc, test_segments);
    tcase_add_test(tc, test_inline_and_defect);
    tcase_add_test(tc, test_outputs_vector);
    suite_add_tcase(s, tc);
    tc = tcase_create("memory");
    tcase_set_timeout(tc, 240);
    tcase_add_loop_test(tc, test_prefixes_and_changes, 0,
                        (int)(sizeof loop_files / sizeof *loop_files));
    suite_add_tcase(s, tc);
    return s;
}
