/* check_caffe.c - the Caffe reader: every blob of the .caffemodel and
 * .binaryproto entries of ../shared/corpus/caffe/expected.json, notes with
 * layer types and roles, the truncated model's message, nets built in
 * memory (V0 layers, packed shape dims, unpacked data, counts that do not
 * match, negative legacy dims, both data kinds), detection, and truncation
 * and byte-change loops that must never crash. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expected_json.h"
#include "pbwriter.h"
#include "testutil.h"

static const char *const caffe_suffixes[] = {".caffemodel", ".binaryproto", NULL};

START_TEST(test_corpus_expected)
{
    int n = ej_check_all("caffe", TS_FORMAT_CAFFE, caffe_suffixes);
    ck_assert(n == -1 || n == 20);
}
END_TEST

static const struct {
    const char *file, *name, *note, *version;
} notes[] = {
    {"caffe/lenet.caffemodel", "conv1/0",
     "layer type Convolution, role weight, shape from shape, data", "NetParameter"},
    {"caffe/lenet.caffemodel", "bn2/2",
     "layer type BatchNorm, role scale_factor, shape from shape, data", "NetParameter"},
    {"caffe/v1_legacy.caffemodel", "fc6/1",
     "layer type INNER_PRODUCT, role bias, shape from num/channels/height/width, data",
     "NetParameter (V1 layers)"},
    {"caffe/double.caffemodel", "fc/0",
     "layer type InnerProduct, role weight, shape from shape, double_data", "NetParameter"},
    {"caffe/mean.binaryproto", "", "BlobProto, shape from num/channels/height/width, data",
     "BlobProto"},
};

START_TEST(test_corpus_notes)
{
    char path[1024];
    if (!tu_corpus_path(path, sizeof path, notes[_i].file))
        return;
    ts_file *f;
    ts_error err;
    ck_assert_msg(ts_file_open(path, NULL, &f, &err) == TS_OK, "%s", err.message);
    ck_assert_str_eq(ts_file_version(f), notes[_i].version);
    int found = 0;
    for (size_t i = 0; i < ts_file_count(f); i++)
        if (strcmp(ts_file_array(f, i)->name, notes[_i].name) == 0) {
            ck_assert_str_eq(ts_file_array(f, i)->note, notes[_i].note);
            found = 1;
        }
    ck_assert(found);
    ts_file_close(f);
}
END_TEST

START_TEST(test_corpus_truncated)
{
    char path[1024];
    if (!tu_corpus_path(path, sizeof path, "caffe/truncated.caffemodel"))
        return;
    tu_expect_open_error(path, NULL, TS_ERR_TRUNCATED, 627,
                         "blob 'conv2/0': file ends at byte 627 inside its packed data (1152 "
                         "bytes promised at byte 587)");
}
END_TEST

static const char *const loop_files[] = {"caffe/lenet.caffemodel", "caffe/v1_legacy.caffemodel",
                                         "caffe/double.caffemodel", "caffe/mean.binaryproto"};

START_TEST(test_corpus_prefixes_and_changes)
{
    char path[1024];
    size_t len;
    if (!tu_corpus_path(path, sizeof path, loop_files[_i]))
        return;
    unsigned char *data = tu_read_file(path, &len);
    ck_assert_ptr_nonnull(data);
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.format = TS_FORMAT_CAFFE;
    for (size_t n = 0; n < len; n++)
        tu_open_exact(data, n, &o, NULL);
    tu_check_byte_changes(data, len, len < 1500 ? len : 1500, &o, NULL, 0);
    ck_assert_int_eq(ts_format_detect(data, len), TS_FORMAT_AUTO); /* no signature */
    free(data);
}
END_TEST

/* ---- nets built in memory ------------------------------------------------ */

static ts_status open_net(const pbw *m, ts_file **f, ts_error *err)
{
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.path = "x.caffemodel"; /* detection by extension and structure */
    tu_open_exact(m->p, m->n, &o, err);
    return ts_file_open_memory(m->p, m->n, &o, f, err);
}

/* BlobProto with packed dims (n of them) and `count` packed floats. */
static void blob(pbw *b, const int64_t *dims, int n, int count)
{
    pbw s = {0}, d = {0};
    float zero[32] = {0};
    ck_assert_int_le(count, 32);
    pbw_bytes(b, 5, zero, (size_t)count * 4);
    for (int i = 0; i < n; i++)
        pbw_varint(&d, (uint64_t)dims[i]);
    pbw_msg(&s, 1, &d);
    pbw_msg(b, 7, &s);
}

START_TEST(test_v0_layer_and_packed_dims)
{
    int64_t dims[2] = {2, 3};
    pbw b = {0}, v0 = {0}, v1 = {0}, net = {0};
    blob(&b, dims, 2, 6);
    pbw_str(&v0, 1, "old");
    pbw_str(&v0, 2, "conv");
    pbw_msg(&v0, 50, &b);
    pbw_msg(&v1, 1, &v0);
    pbw_str(&net, 1, "net");
    pbw_msg(&net, 2, &v1);
    ts_file *f;
    ts_error err;
    ck_assert_msg(open_net(&net, &f, &err) == TS_OK, "%s", err.message);
    ck_assert_int_eq(ts_file_format(f), TS_FORMAT_CAFFE);
    ck_assert_uint_eq(ts_file_count(f), 1);
    const ts_array *a = ts_file_array(f, 0);
    ck_assert_str_eq(a->name, "old/0");
    tu_assert_shape(&a->shape, "(2,3)");
    ck_assert_str_eq(a->note, "layer type conv, role weight, shape from shape, data");
    ck_assert_int_gt(a->data_offset, 0);
    ck_assert_int_le(a->data_offset + 24, (int64_t)net.n);
    ts_file_close(f);
    free(net.p);
}
END_TEST

static void expect_net_error(pbw *net, ts_status status, const char *message)
{
    ts_file *f = (ts_file *)1;
    ts_error err;
    ts_status st = open_net(net, &f, &err);
    ck_assert_msg(st == status, "status %d: %s", (int)st, err.message);
    ck_assert_ptr_null(f);
    ck_assert_msg(strstr(err.message, message), "'%s' lacks '%s'", err.message, message);
    free(net->p);
    memset(net, 0, sizeof *net);
}

START_TEST(test_bad_blobs)
{
    int64_t dims[2] = {2, 3};
    pbw b = {0}, l = {0}, net = {0};
    /* 5 values for 6 elements */
    blob(&b, dims, 2, 5);
    pbw_str(&l, 1, "fc");
    pbw_msg(&l, 7, &b);
    pbw_msg(&net, 100, &l);
    expect_net_error(&net, TS_ERR_FORMAT, "blob 'fc/0': data has 5 values, shape (2,3) needs 6");
    /* negative legacy dim (int32 -1 is a 10-byte varint) */
    pbw_uint(&b, 1, UINT64_MAX);
    pbw_uint(&b, 2, 1);
    pbw_str(&l, 1, "neg");
    pbw_msg(&l, 7, &b);
    pbw_msg(&net, 100, &l);
    expect_net_error(&net, TS_ERR_VALUE, "blob 'neg/0': legacy dim 0 is negative (-1)");
    /* both float and double data */
    float one = 1;
    double two = 2;
    pbw_uint(&b, 4, 1);
    pbw_bytes(&b, 5, &one, 4);
    pbw_bytes(&b, 8, &two, 8);
    pbw_str(&l, 1, "both");
    pbw_msg(&l, 7, &b);
    pbw_msg(&net, 100, &l);
    expect_net_error(&net, TS_ERR_FORMAT, "blob 'both/0' has both data (float) and double_data");
    /* a layer length past its parent: top-level truncation */
    pbw_key(&net, 100, 2);
    pbw_varint(&net, 50);
    pbw_str(&net, 1, "cut");
    expect_net_error(&net, TS_ERR_TRUNCATED, "file ends");
    /* neither a net nor a blob */
    pbw_uint(&net, 1, 3);
    pbw_str(&net, 100, "x");
    expect_net_error(&net, TS_ERR_FORMAT, "not a Caffe NetParameter or BlobProto");
}
END_TEST

START_TEST(test_unpacked_data_has_no_offset)
{
    pbw b = {0}, l = {0}, net = {0};
    pbw_uint(&b, 1, 1);
    pbw_uint(&b, 2, 1);
    pbw_uint(&b, 3, 1);
    pbw_uint(&b, 4, 2);
    pbw_fixed32(&b, 5, 0);
    pbw_fixed32(&b, 5, 0);
    pbw_str(&l, 1, "s");
    pbw_str(&l, 2, "Scale");
    pbw_msg(&l, 7, &b);
    pbw_msg(&net, 100, &l);
    ts_file *f;
    ts_error err;
    ck_assert_msg(open_net(&net, &f, &err) == TS_OK, "%s", err.message);
    const ts_array *a = ts_file_array(f, 0);
    tu_assert_shape(&a->shape, "(1,1,1,2)");
    ck_assert_int_eq(a->data_offset, -1);
    ck_assert_int_eq(a->nbytes, 8);
    ts_file_close(f);
    free(net.p);
}
END_TEST

/* A BlobProto whose shape (BlobShape) is given twice: protobuf merges the
 * two, their dims concatenated, as Caffe's own parser reads it. */
START_TEST(test_shape_given_twice)
{
    pbw b = {0}, l = {0}, net = {0}, s1 = {0}, s2 = {0};
    float zero[6] = {0};
    pbw_bytes(&b, 5, zero, sizeof zero);
    pbw_uint(&s1, 1, 2);
    pbw_msg(&b, 7, &s1);
    pbw_uint(&s2, 1, 3);
    pbw_msg(&b, 7, &s2);
    pbw_str(&l, 1, "fc");
    pbw_str(&l, 2, "InnerProduct");
    pbw_msg(&l, 7, &b);
    pbw_str(&net, 1, "net");
    pbw_msg(&net, 100, &l);
    ts_file *f;
    ts_error err;
    ck_assert_msg(open_net(&net, &f, &err) == TS_OK, "%s", err.message);
    tu_assert_shape(&ts_file_array(f, 0)->shape, "(2,3)");
    ts_file_close(f);
    free(net.p);
}
END_TEST

Suite *caffe_suite(void)
{
    Suite *s = suite_create("caffe");
    TCase *tc = tcase_create("corpus");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_corpus_expected);
    tcase_add_loop_test(tc, test_corpus_notes, 0, (int)(sizeof notes / sizeof *notes));
    tcase_add_test(tc, test_corpus_truncated);
    tcase_add_loop_test(tc, test_corpus_prefixes_and_changes, 0,
                        (int)(sizeof loop_files / sizeof *loop_files));
    suite_add_tcase(s, tc);
    tc = tcase_create("memory");
    tcase_add_test(tc, test_v0_layer_and_packed_dims);
    tcase_add_test(tc, test_shape_given_twice);
    tcase_add_test(tc, test_bad_blobs);
    tcase_add_test(tc, test_unpacked_data_has_no_offset);
    suite_add_tcase(s, tc);
    return s;
}
