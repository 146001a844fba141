/* check_tflite.c - the TFLite reader: the fixtures of gen_tflite.py (every
 * TensorType, activations only with want_activations, the offset/size form,
 * notes, metadata), the defects' exact messages, FlatBuffers built in
 * memory (a tensor without a name; one tensor table referenced 200,000
 * times, which the work bound stops), and truncation and byte-change loops
 * that must never crash. The reference reader's comparison is
 * tests/cli/tflite.test.sh. */
#define TS_EXPERIMENTAL_API /* ts_array_read */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static const char *meta(const ts_file *f, const char *key)
{
    for (size_t i = 0; i < ts_file_metadata_count(f); i++) {
        const char *k, *v;
        if (ts_file_metadata(f, i, &k, &v) && strcmp(k, key) == 0)
            return v;
    }
    return NULL;
}

START_TEST(test_dtypes)
{
    ts_file *f = tu_open_fixture("tflite/dtypes.tflite", 0);
    ck_assert_int_eq(ts_file_format(f), TS_FORMAT_TFLITE);
    ck_assert_str_eq(ts_file_version(f), "3");
    ck_assert_uint_eq(ts_file_count(f), 20); /* the 20 tensors with data */
    const ts_array *a = tu_array_named(f, "int4");
    ck_assert_int_eq(a->dtype, TS_DTYPE_INT4);
    ck_assert_str_eq(a->format_dtype, "INT4");
    ck_assert_int_eq(a->size, 5);
    ck_assert_int_eq(a->nbytes, 3);
    ck_assert_int_ge(a->data_offset, 8);
    a = tu_array_named(f, "string");
    ck_assert_int_eq(a->dtype, TS_DTYPE_OBJECT);
    ck_assert_int_eq(a->nbytes, -1);
    ck_assert_int_eq(a->data_offset, -1);
    ck_assert_str_eq(a->note, "STRING data: 21 bytes at byte 1760");
    a = tu_array_named(f, "float32");
    tu_assert_shape(&a->shape, "(2,3)");
    ck_assert_int_eq(a->byteorder, '<');
    ck_assert_ptr_null(a->note);
    double v[6];
    ts_error err;
    ck_assert_int_eq(ts_array_read(f, a, 0, 6, TS_DTYPE_FLOAT64, v, &err), TS_OK);
    ck_assert(v[0] == -1.0 && v[5] == 1.5);
    ts_file_close(f);

    f = tu_open_fixture("tflite/dtypes.tflite", 1);
    ck_assert_uint_eq(ts_file_count(f), 25);
    a = tu_array_named(f, "input");
    ck_assert_int_eq(a->data_offset, -1);
    ck_assert_int_eq(a->nbytes, 16);
    ck_assert_str_eq(a->note, "no data in the file (an activation, input 0 of its subgraph)");
    a = tu_array_named(f, "resource");
    ck_assert_str_eq(a->dtype_name, "resource");
    ck_assert_str_eq(a->format_dtype, "RESOURCE");
    ts_file_close(f);
}
END_TEST

START_TEST(test_notes_and_metadata)
{
    ts_file *f = tu_open_fixture("tflite/subgraphs.tflite", 1);
    ck_assert_str_eq(tu_array_named(f, "w_alias")->note, "shares buffer 1 with 'w'");
    ck_assert_str_eq(tu_array_named(f, "cond/shared")->note, "shares buffer 1 with 'w'");
    ck_assert_str_eq(tu_array_named(f, "state")->note, "variable");
    ck_assert_str_eq(tu_array_named(f, "output")->note,
                     "shape_signature (-1,4); no data in the file (an activation, output 0 of "
                     "its subgraph)");
    tu_array_named(f, "subgraph2/k");
    ck_assert_str_eq(meta(f, "min_runtime_version"), "\"1.14.0\"");
    ck_assert_str_eq(meta(f, "description"), "\"tshape test model\"");
    ck_assert_str_eq(meta(f, "subgraphs"), "3");
    ck_assert_str_eq(meta(f, "operators"), "5");
    ck_assert_str_eq(meta(f, "signature_keys"), "[\"serving_default\",\"cond_fn\"]");
    ck_assert_str_eq(meta(f, "graph.inputs"),
                     "[{\"name\":\"input\",\"dtype\":\"float32\",\"shape\":[-1,4]}]");
    ts_file_close(f);

    f = tu_open_fixture("tflite/quant.tflite", 0);
    ck_assert_str_eq(tu_array_named(f, "w_axis3")->note,
                     "quantized per-axis on axis 3: 4 scales, 4 zero points");
    ck_assert_str_eq(tu_array_named(f, "u8")->note, "quantized per-tensor: scale 0.0078125, zero_point 128");
    ck_assert_int_eq(tu_array_named(f, "u8")->dequantized_dtype, TS_DTYPE_FLOAT32);
    ck_assert_int_eq(tu_array_named(f, "custom")->dequantized_dtype, TS_DTYPE_UNKNOWN);
    ck_assert_int_eq(tu_array_named(f, "float_noq")->dequantized_dtype, TS_DTYPE_UNKNOWN);
    ck_assert_str_eq(tu_array_named(f, "custom")->note, "custom quantization (QuantizationDetails type 1)");
    ts_file_close(f);

    f = tu_open_fixture("tflite/outside.tflite", 0);
    const ts_array *a = tu_array_named(f, "big");
    ck_assert_str_eq(a->note, "data outside the FlatBuffer (buffer offset/size)");
    ck_assert_int_eq(a->data_offset % 16, 0);
    a = tu_array_named(f, "half"); /* the last, padded to 16 bytes */
    ck_assert_int_eq(a->data_offset + a->nbytes + 10, ts_file_nbytes(f));
    ts_file_close(f);

    f = tu_open_fixture("tflite/sparse.tflite", 0);
    a = tu_array_named(f, "sparse");
    ck_assert_int_eq(a->data_offset, -1);
    ck_assert_str_eq(a->note, "sparse (TFLite sparsity: traversal_order (0,1,2,3), block_map "
                              "(0,1), 4 dim_metadata): 32 bytes of stored values and indices "
                              "at byte 480, not read as a dense array");
    ts_file_close(f);

    f = tu_open_fixture("tflite/noweights.tflite", 0);
    ck_assert_uint_eq(ts_file_count(f), 0);
    ts_file_close(f);
}
END_TEST

static const struct {
    const char *file;
    ts_status status;
    int64_t offset;
    const char *message;
} defects[] = {
    {"tflite/bad_both.tflite", TS_ERR_FORMAT, 148,
     "buffer 1 at byte 148 has both data inside the FlatBuffer and an offset (64)"},
    {"tflite/bad_buffer_index.tflite", TS_ERR_FORMAT, 188,
     "tensor 'w': buffer 9, but the model has 2 buffers"},
    {"tflite/bad_name_nul.tflite", TS_ERR_FORMAT, 188,
     "subgraph 0 tensor 0: its name 'a\\x00b' contains a NUL byte"},
    {"tflite/bad_negative_dim.tflite", TS_ERR_FORMAT, 184,
     "tensor 'w': shape (-1,2) has a negative dim (unknown dims are -1 only in "
     "shape_signature)"},
    {"tflite/bad_qdim.tflite", TS_ERR_FORMAT, 184,
     "tensor 'w': quantized_dimension 2 is not an axis of its 2 dims"},
    {"tflite/bad_size.tflite", TS_ERR_FORMAT, 188,
     "tensor 'w': its buffer 1 holds 6 bytes, but shape (2,) of float32 needs 8 (TFLite's "
     "interpreter refuses it too)"},
    {"tflite/bad_zero_points.tflite", TS_ERR_FORMAT, 180,
     "tensor 'w': quantization has 2 scales and 1 zero points (TFLite needs as many of each)"},
};

START_TEST(test_defects)
{
    char path[1024];
    tu_expect_open_error(tu_fixture(path, sizeof path, defects[_i].file), NULL,
                         defects[_i].status, defects[_i].offset, defects[_i].message);
}
END_TEST

/* ---- FlatBuffers built here ---- */

static void put16(unsigned char *p, unsigned v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

static void put32(unsigned char *p, uint32_t v)
{
    put16(p, v & 0xffff);
    put16(p + 2, v >> 16);
}

/*
 * A model of one subgraph whose `n` tensor offsets all point at one tensor
 * table: a scalar float32 without a buffer, named by `name_len` bytes 'x'
 * (no name field when name_len is 0). *len receives the size.
 */
static unsigned char *shared_tensor_model(size_t n, size_t name_len, size_t *len)
{
    size_t v = 56 + 4 * n, t = v + 12, shape = t + 12, name = shape + 4;
    *len = (name + 4 + name_len + 1 + 3) / 4 * 4;
    unsigned char *p = calloc(1, *len);
    ck_assert_ptr_nonnull(p);
    put32(p, 20);
    memcpy(p + 4, "TFL3", 4);
    /* Model: vtable at 8 (subgraphs, id 2, at +4), table at 20 */
    put16(p + 8, 10), put16(p + 10, 8), put16(p + 16, 4);
    put32(p + 20, 12), put32(p + 24, 28 - 24);
    /* subgraphs vector at 28: one subgraph at 44 */
    put32(p + 28, 1), put32(p + 32, 44 - 32);
    /* SubGraph: vtable at 36 (tensors, id 0, at +4), table at 44 */
    put16(p + 36, 6), put16(p + 38, 8), put16(p + 40, 4);
    put32(p + 44, 8), put32(p + 48, 52 - 48);
    /* tensors vector at 52: n offsets to the table at t */
    put32(p + 52, (uint32_t)n);
    for (size_t k = 0; k < n; k++)
        put32(p + 56 + 4 * k, (uint32_t)(t - (56 + 4 * k)));
    /* Tensor: vtable at v (shape id 0 at +4, name id 3 at +8), table at t */
    put16(p + v, 12), put16(p + v + 2, 12), put16(p + v + 4, 4);
    if (name_len)
        put16(p + v + 10, 8);
    put32(p + t, 12), put32(p + t + 4, (uint32_t)(shape - (t + 4)));
    put32(p + t + 8, (uint32_t)(name - (t + 8)));
    /* shape: no dims; the name */
    put32(p + name, (uint32_t)name_len);
    memset(p + name + 4, 'x', name_len);
    return p;
}

START_TEST(test_unnamed_tensor)
{
    size_t len;
    unsigned char *p = shared_tensor_model(1, 0, &len);
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.want_activations = 1;
    ts_file *f;
    ts_error err;
    ck_assert_msg(ts_file_open_memory(p, len, &o, &f, &err) == TS_OK, "%s", err.message);
    ck_assert_uint_eq(ts_file_count(f), 1);
    ck_assert_str_eq(ts_file_array(f, 0)->name, "");
    tu_assert_shape(&ts_file_array(f, 0)->shape, "()");
    ts_file_close(f);
    free(p);
}
END_TEST

START_TEST(test_shared_table_work_bound)
{
    size_t len;
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    ts_file *f;
    ts_error err;
    /* 1,000 references to one table with a 1,000-byte name: read */
    unsigned char *p = shared_tensor_model(1000, 1000, &len);
    o.want_activations = 1;
    ck_assert_msg(ts_file_open_memory(p, len, &o, &f, &err) == TS_OK, "%s", err.message);
    ck_assert_uint_eq(ts_file_count(f), 1000);
    ts_file_close(f);
    free(p);
    /* 200,000 of them: 200 MB of names from an 800 KB file, refused
     * whether the tensors are reported or not */
    p = shared_tensor_model(200000, 1000, &len);
    for (o.want_activations = 0; o.want_activations < 2; o.want_activations++) {
        ck_assert_int_eq(ts_file_open_memory(p, len, &o, &f, &err), TS_ERR_LIMIT);
        ck_assert_msg(strstr(err.message, "the file's tables point at the same data over and "
                                          "over (more than ") != NULL, "%s", err.message);
    }
    free(p);
}
END_TEST

static const char *const loop_files[] = {
    "tests/fixtures/tflite/dtypes.tflite", "tests/fixtures/tflite/quant.tflite",
    "tests/fixtures/tflite/subgraphs.tflite", "tests/fixtures/tflite/sparse.tflite",
    "tests/fixtures/tflite/outside.tflite"};

START_TEST(test_prefixes_and_changes)
{
    char path[1024];
    size_t len;
    unsigned char *d = tu_read_named(loop_files[_i], path, sizeof path, &len);
    /* outside.tflite ends in padding after its last buffer's data, which
     * nothing needs: its prefixes that keep the data are whole files */
    if (!strstr(loop_files[_i], "outside"))
        tu_check_prefixes(loop_files[_i], d, len, TS_FORMAT_TFLITE, SIZE_MAX);
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.want_activations = 1;
    o.want_metadata = 1;
    tu_check_byte_changes(d, len, len, &o, NULL, 0);
    free(d);
}
END_TEST

Suite *tflite_suite(void)
{
    Suite *s = suite_create("tflite");
    TCase *tc = tcase_create("fixtures");
    tcase_add_test(tc, test_dtypes);
    tcase_add_test(tc, test_notes_and_metadata);
    tcase_add_loop_test(tc, test_defects, 0, (int)(sizeof defects / sizeof *defects));
    suite_add_tcase(s, tc);
    tc = tcase_create("memory");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_unnamed_tensor);
    tcase_add_test(tc, test_shared_table_work_bound);
    tcase_add_loop_test(tc, test_prefixes_and_changes, 0,
                        (int)(sizeof loop_files / sizeof *loop_files));
    suite_add_tcase(s, tc);
    return s;
}
