/* check_caffe2_pb.c - the Caffe2 protobuf reader (src/formats/caffe2_pb.c):
 * every tensor of the .pb entries of ../shared/corpus/caffe/expected.json,
 * notes, the truncated file, TensorProtos and init nets built in memory
 * (bfloat16 data_format, the dtype argument, packed floats, byte strings,
 * count mismatches, ops that store nothing), detection against ONNX, and
 * truncation and byte-change loops that must never crash. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expected_json.h"
#include "pbwriter.h"
#include "testutil.h"

static const char *const pb_suffixes[] = {".pb", NULL};

START_TEST(test_corpus_expected)
{
    int n = ej_check_all("caffe", TS_FORMAT_CAFFE2, pb_suffixes);
    ck_assert(n == -1 || n == 21);
}
END_TEST

static const struct {
    const char *file, *name, *note, *format_dtype;
} notes[] = {
    {"caffe/tensors.pb", "conv_w", "TensorProto, float_data", "FLOAT"},
    {"caffe/tensors.pb", "ids", "TensorProto, int32_data", "INT32"},
    {"caffe/tensors.pb", "img_u8", "TensorProto, byte_data", "UINT8"},
    {"caffe/tensors.pb", "vocab", "TensorProto, string_data", "STRING"},
    {"caffe/init_net.pb", "conv1_w", "op GivenTensorFill, values:floats", "GivenTensorFill"},
    {"caffe/init_net.pb", "labels", "op GivenTensorStringFill, values:strings",
     "GivenTensorStringFill"},
};

START_TEST(test_corpus_notes)
{
    char path[1024];
    if (!tu_corpus_path(path, sizeof path, notes[_i].file))
        return;
    ts_file *f;
    ts_error err;
    ck_assert_msg(ts_file_open(path, NULL, &f, &err) == TS_OK, "%s", err.message);
    ck_assert_int_eq(ts_file_format(f), TS_FORMAT_CAFFE2);
    int found = 0;
    for (size_t i = 0; i < ts_file_count(f); i++)
        if (strcmp(ts_file_array(f, i)->name, notes[_i].name) == 0) {
            ck_assert_str_eq(ts_file_array(f, i)->note, notes[_i].note);
            ck_assert_str_eq(ts_file_array(f, i)->format_dtype, notes[_i].format_dtype);
            found = 1;
        }
    ck_assert(found);
    ts_file_close(f);
}
END_TEST

START_TEST(test_corpus_truncated)
{
    char path[1024];
    if (!tu_corpus_path(path, sizeof path, "caffe/truncated.pb"))
        return;
    tu_expect_open_error(path, NULL, TS_ERR_TRUNCATED, 346,
                         "tensor 12: file ends at byte 346 inside a message that should end "
                         "at byte 353");
}
END_TEST

static const char *const loop_files[] = {"caffe/tensors.pb", "caffe/init_net.pb"};

START_TEST(test_corpus_prefixes_and_changes)
{
    char path[1024];
    size_t len;
    if (!tu_corpus_path(path, sizeof path, loop_files[_i]))
        return;
    unsigned char *data = tu_read_file(path, &len);
    ck_assert_ptr_nonnull(data);
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.format = TS_FORMAT_CAFFE2;
    for (size_t n = 0; n < len; n++)
        tu_open_exact(data, n, &o, NULL);
    tu_check_byte_changes(data, len, len, &o, NULL, 0);
    o.format = TS_FORMAT_AUTO;
    o.path = "dir/model.pb";
    tu_check_byte_changes(data, len, len, &o, NULL, 0);
    free(data);
}
END_TEST

/* ---- built in memory ----------------------------------------------------- */

static ts_file *open_pb(const pbw *m)
{
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.path = "init.pb";
    ts_file *f;
    ts_error err;
    tu_open_exact(m->p, m->n, &o, NULL);
    ck_assert_msg(ts_file_open_memory(m->p, m->n, &o, &f, &err) == TS_OK, "%s", err.message);
    ck_assert_int_eq(ts_file_format(f), TS_FORMAT_CAFFE2);
    return f;
}

static void expect_pb_error(pbw *m, ts_status status, const char *part)
{
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.format = TS_FORMAT_CAFFE2;
    ts_file *f = (ts_file *)1;
    ts_error err;
    ts_status st = ts_file_open_memory(m->p, m->n, &o, &f, &err);
    ck_assert_msg(st == status, "status %d: %s", (int)st, err.message);
    ck_assert_ptr_null(f);
    ck_assert_msg(strstr(err.message, part), "'%s' lacks '%s'", err.message, part);
    free(m->p);
    memset(m, 0, sizeof *m);
}

START_TEST(test_tensor_protos)
{
    pbw t = {0}, m = {0};
    unsigned char raw[8] = {0};
    /* FLOAT (default type) with bfloat16 raw_data */
    pbw_uint(&t, 1, 4);
    pbw_str(&t, 7, "bf");
    pbw_bytes(&t, 13, raw, 8);
    pbw_uint(&t, 15, 1);
    pbw_msg(&m, 1, &t);
    /* a hash table: not a tensor */
    pbw_uint(&t, 2, 14);
    pbw_str(&t, 7, "hash");
    pbw_msg(&m, 1, &t);
    ts_file *f = open_pb(&m);
    ck_assert_str_eq(ts_file_version(f), "TensorProtos");
    ck_assert_uint_eq(ts_file_count(f), 1);
    const ts_array *a = ts_file_array(f, 0);
    ck_assert_str_eq(a->dtype_name, "float32");
    ck_assert_int_eq(a->data_offset, -1);
    ck_assert_str_eq(a->note, "raw_data holds bfloat16 values of this float32 tensor "
                              "(data_format 1)");
    ts_file_close(f);
    free(m.p);
    memset(&m, 0, sizeof m);
    /* errors */
    pbw_uint(&t, 1, 3);
    pbw_str(&t, 7, "few");
    pbw_fixed32(&t, 3, 0);
    pbw_msg(&m, 1, &t);
    expect_pb_error(&m, TS_ERR_FORMAT, "tensor 'few': float_data has 1 values, the shape "
                                       "needs 3");
    pbw_uint(&t, 2, 2);
    pbw_str(&t, 7, "mixed");
    pbw_fixed32(&t, 3, 0);
    pbw_msg(&m, 1, &t);
    expect_pb_error(&m, TS_ERR_FORMAT, "tensor 'mixed': INT32 values cannot be stored in "
                                       "float_data");
    pbw_uint(&t, 2, 99);
    pbw_msg(&m, 1, &t);
    expect_pb_error(&m, TS_ERR_DTYPE, "unknown data_type 99");
}
END_TEST

/* OperatorDef with output, type and arguments shape/values. */
static void fill_op(pbw *net, const char *type, const char *out, const int64_t *dims, int n,
                    pbw *values)
{
    pbw op = {0}, shape = {0}, v = {0};
    pbw_str(&op, 2, out);
    pbw_str(&op, 4, type);
    pbw_str(&shape, 1, "shape");
    for (int i = 0; i < n; i++)
        pbw_uint(&shape, 6, (uint64_t)dims[i]);
    pbw_msg(&op, 5, &shape);
    pbw_str(&v, 1, "values");
    pbw_raw(&v, values->p, values->n);
    free(values->p);
    memset(values, 0, sizeof *values);
    pbw_msg(&op, 5, &v);
    pbw_msg(net, 2, &op);
}

START_TEST(test_init_net)
{
    int64_t d2[1] = {2}, d3[1] = {3};
    pbw net = {0}, vals = {0}, other = {0};
    float f2[2] = {1, 2};
    pbw_str(&net, 1, "init");
    pbw_bytes(&vals, 5, f2, 8); /* packed floats: contiguous */
    fill_op(&net, "GivenTensorFill", "packed", d2, 1, &vals);
    pbw_str(&vals, 7, "abc");
    fill_op(&net, "GivenTensorByteStringToUInt8Fill", "bytes", d3, 1, &vals);
    pbw_str(&other, 2, "x");
    pbw_str(&other, 4, "XavierFill");
    pbw_msg(&net, 2, &other);
    ts_file *f = open_pb(&net);
    ck_assert_str_eq(ts_file_version(f), "NetDef");
    ck_assert_uint_eq(ts_file_count(f), 2);
    ck_assert_int_gt(ts_file_array(f, 0)->data_offset, 0);
    ck_assert_str_eq(ts_file_array(f, 1)->dtype_name, "uint8");
    ck_assert_int_gt(ts_file_array(f, 1)->data_offset, 0);
    ts_file_close(f);
    free(net.p);
    memset(&net, 0, sizeof net);
    /* counts */
    pbw_uint(&vals, 6, 1);
    fill_op(&net, "GivenTensorIntFill", "ints", d3, 1, &vals);
    expect_pb_error(&net, TS_ERR_FORMAT, "GivenTensorIntFill: values:ints has 1 values, the "
                                         "shape needs 3");
}
END_TEST

START_TEST(test_onnx_pb_goes_to_onnx)
{
    char path[1024];
    if (!tu_corpus_path(path, sizeof path, "onnx/cnn.onnx"))
        return;
    size_t len;
    unsigned char *data = tu_read_file(path, &len);
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.path = "model.pb";
    ts_file *f;
    ts_error err;
    ck_assert_int_eq(ts_file_open_memory(data, len, &o, &f, &err), TS_OK);
    ck_assert_int_eq(ts_file_format(f), TS_FORMAT_ONNX);
    ts_file_close(f);
    free(data);
}
END_TEST

/* A TensorProto whose segment (a singular message) is given twice: merged
 * or not, the tensor is stored in segments, which is refused. */
START_TEST(test_segment_given_twice)
{
    pbw t = {0}, m = {0}, seg = {0};
    unsigned char raw[8] = {0};
    pbw_uint(&t, 1, 2);
    pbw_str(&t, 7, "w");
    pbw_bytes(&t, 13, raw, 8);
    pbw_uint(&seg, 1, 0);
    pbw_uint(&seg, 2, 1);
    pbw_msg(&t, 11, &seg);
    pbw_uint(&seg, 1, 1);
    pbw_uint(&seg, 2, 2);
    pbw_msg(&t, 11, &seg);
    pbw_msg(&m, 1, &t);
    expect_pb_error(&m, TS_ERR_UNSUPPORTED, "tensor 'w' is stored in segments");
}
END_TEST

Suite *caffe2_pb_suite(void)
{
    Suite *s = suite_create("caffe2_pb");
    TCase *tc = tcase_create("corpus");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_corpus_expected);
    tcase_add_loop_test(tc, test_corpus_notes, 0, (int)(sizeof notes / sizeof *notes));
    tcase_add_test(tc, test_corpus_truncated);
    tcase_add_loop_test(tc, test_corpus_prefixes_and_changes, 0,
                        (int)(sizeof loop_files / sizeof *loop_files));
    tcase_add_test(tc, test_onnx_pb_goes_to_onnx);
    suite_add_tcase(s, tc);
    tc = tcase_create("memory");
    tcase_add_test(tc, test_tensor_protos);
    tcase_add_test(tc, test_segment_given_twice);
    tcase_add_test(tc, test_init_net);
    suite_add_tcase(s, tc);
    return s;
}
