/* check_coreml.c - the Core ML reader: the fixtures of gen_coreml.py (a
 * NeuralNetwork with every kind of WeightParams and shapes from the layer
 * parameters, a pipeline, an ML Program with inline and blob constants, a
 * .mlpackage folder and one whose weight.bin is short), values read from
 * the file and from weight.bin, --metadata, defects' exact messages, and
 * truncation and byte-change loops that must never crash. */
#define TS_EXPERIMENTAL_API /* ts_array_read */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

static void read_f64(const ts_file *f, const char *name, int64_t n, double *v)
{
    ts_error err;
    ck_assert_msg(ts_array_read(f, tu_array_named(f, name), 0, n, TS_DTYPE_FLOAT64, v, &err) == TS_OK,
                  "%s: %s", name, err.message);
}

/* name, dtype, format_dtype, shape, data_offset, nbytes */
typedef struct expect {
    const char *name, *dtype, *format_dtype, *shape;
    int64_t offset, nbytes;
} expect;

static void check_arrays(const ts_file *f, const expect *e, size_t n)
{
    ck_assert_uint_eq(ts_file_count(f), n);
    for (size_t i = 0; i < n; i++) {
        const ts_array *a = ts_file_array(f, i);
        char sb[64];
        ck_assert_str_eq(a->name, e[i].name);
        ck_assert_str_eq(a->dtype_name, e[i].dtype);
        ck_assert_str_eq(a->format_dtype, e[i].format_dtype);
        ck_assert_int_eq(ts_shape_format(&a->shape, 0, sb, sizeof sb) > 0, 1);
        ck_assert_str_eq(sb, e[i].shape);
        ck_assert_int_eq(a->data_offset, e[i].offset);
        ck_assert_int_eq(a->nbytes, e[i].nbytes);
    }
}

static const expect nn[] = {
    {"conv1.weights", "float32", "floatValue", "(2,3,3,3)", 203, 216},
    {"conv1.bias", "float32", "floatValue", "(2,)", 424, 8},
    {"bn1.gamma", "float32", "floatValue", "(2,)", 457, 8},
    {"bn1.beta", "float32", "floatValue", "(2,)", 470, 8},
    {"bn1.mean", "float32", "floatValue", "(2,)", 483, 8},
    {"bn1.variance", "float32", "floatValue", "(2,)", 496, 8},
    {"fc16.weights", "float16", "float16Value", "(4,8)", 535, 64},
    {"fc16.bias", "float32", "floatValue", "(4,)", 604, 16},
    {"emb.weights", "float32", "rawValue", "(3,5)", 649, 60},
    {"q8.weights", "uint8", "rawValue", "(2,4)", 737, 8},
    {"lut4.weights", "uint4", "rawValue", "(4,4)", 795, 8},
    {"up.weights", "float32", "floatValue", "(2,2,2,2)", 914, 64},
    {"k.data", "float32", "floatValue", "(1,2,2)", -1, 16},
    {"prelu.alpha", "float32", "floatValue", "(2,)", 1050, 8},
    {"cust.weights.0", "float32", "floatValue", "(3,)", 1092, 12},
    {"odd.weights", "float32", "floatValue", "(6,)", 1132, 24},
    {"c3.weights", "float32", "floatValue", "(2,2,1,1,2)", 1192, 32},
    {"bmm.weights", "float32", "floatValue", "(2,3)", 1253, 24},
    {"bmm.bias", "float32", "floatValue", "(3,)", 1281, 12},
    {"lstm.forward.inputGateWeightMatrix", "float32", "floatValue", "(1,2)", 1324, 8},
    {"lstm.forward.inputGateBiasVector", "float32", "floatValue", "(1,)", 1337, 4},
    {"lstm.backward.inputGateWeightMatrix", "float32", "floatValue", "(1,2)", 1348, 8},
    {"lstm.backward.inputGateBiasVector", "float32", "floatValue", "(1,)", 1361, 4},
};

START_TEST(test_nn)
{
    ts_file *f = tu_open_fixture("coreml/nn.mlmodel", 0);
    ck_assert_int_eq(ts_file_format(f), TS_FORMAT_COREML);
    ck_assert_str_eq(ts_file_version(f), "4");
    check_arrays(f, nn, sizeof nn / sizeof *nn);
    ck_assert_str_eq(tu_array_named(f, "up.weights")->note,
                     "convolution layer, floatValue, shape from kernelChannels, outputChannels / "
                     "nGroups, kernelSize (deconvolution)");
    ck_assert_str_eq(tu_array_named(f, "q8.weights")->note,
                     "innerProduct layer, rawValue, shape from the layer's output and input "
                     "sizes (fields 2, 1), linear quantization (8 bits, 1 scale, 1 bias)");
    ck_assert_str_eq(tu_array_named(f, "lut4.weights")->note,
                     "innerProduct layer, rawValue, shape from the layer's output and input "
                     "sizes (fields 2, 1), lookup-table quantization (4 bits, 16 table "
                     "values); packed from the high bit: no tshape dtype, values not read");
    ck_assert_int_eq(tu_array_named(f, "lut4.weights")->dtype, TS_DTYPE_UNKNOWN);
    ck_assert_int_eq(tu_array_named(f, "lut4.weights")->bits, 4);
    ck_assert_str_eq(tu_array_named(f, "cust.weights.0")->note,
                     "custom layer, floatValue, shape not known (custom layer weights)");
    ck_assert_str_eq(tu_array_named(f, "odd.weights")->note,
                     "innerProduct layer, floatValue, 1-d: the layer's output and input sizes "
                     "(fields 2, 1) gives shape (3,3) of 9 values, the weights hold 6");
    double v[54];
    read_f64(f, "conv1.weights", 54, v);
    for (int i = 0; i < 54; i++)
        ck_assert(v[i] == i * 0.5);
    read_f64(f, "fc16.weights", 32, v);
    for (int i = 0; i < 32; i++)
        ck_assert(v[i] == i * 0.25);
    read_f64(f, "emb.weights", 15, v);
    ck_assert(v[0] == 0 && v[14] == 28);
    read_f64(f, "q8.weights", 8, v);
    ck_assert(v[0] == 0 && v[7] == 70);
    read_f64(f, "lstm.backward.inputGateWeightMatrix", 2, v);
    ck_assert(v[0] == 4 && v[1] == 5);
    read_f64(f, "k.data", 4, v); /* unpacked floatValue: through the protobuf source */
    ck_assert(v[0] == 1.5 && v[1] == 2.5 && v[2] == 3.5 && v[3] == 4.5);
    ck_assert_str_eq(tu_metadata(f, "specification_version"), "4");
    ck_assert_str_eq(tu_metadata(f, "model_type"), "\"neuralNetwork\"");
    ck_assert_str_eq(tu_metadata(f, "author"), "\"tshape\"");
    ck_assert_str_eq(tu_metadata(f, "license"), "\"MIT\"");
    ck_assert_str_eq(tu_metadata(f, "version"), "\"1.2\"");
    ck_assert_str_eq(tu_metadata(f, "short_description"), "\"tshape test network\"");
    ck_assert_str_eq(tu_metadata(f, "user_defined"), "{\"com.github.apple.coremltools.version\":\"8.0\"}");
    ck_assert_str_eq(tu_metadata(f, "inputs"),
                     "[{\"name\":\"input\",\"type\":\"multiArray\",\"shape\":[1,3,4,4],"
                     "\"dtype\":\"float32\",\"enumerated_shapes\":[[1,3,4,4],[1,3,8,8]]}]");
    ck_assert_str_eq(tu_metadata(f, "outputs"), "[{\"name\":\"output\",\"type\":\"multiArray\","
                                         "\"shape\":[1,4],\"dtype\":\"float32\"}]");
    ts_file_close(f);
}
END_TEST

START_TEST(test_pipeline)
{
    ts_file *f = tu_open_fixture("coreml/pipeline.mlmodel", 0);
    static const expect e[] = {{"classify/fc.weights", "float32", "floatValue", "(2,2)", 97, 16}};
    check_arrays(f, e, 1);
    ck_assert_str_eq(tu_metadata(f, "model_type"),
                     "[\"pipeline\",{\"model\":\"scale\",\"type\":\"scaler\"},{\"model\":"
                     "\"classify\",\"type\":\"neuralNetworkClassifier\"}]");
    ck_assert_str_eq(tu_metadata(f, "inputs"), "[{\"name\":\"image\",\"type\":\"image\",\"width\":4,"
                                        "\"height\":4,\"color_space\":\"RGB\"}]");
    ts_file_close(f);
}
END_TEST

static const expect program_bare[] = {
    {"w_inline", "float32", "FLOAT32", "(2,2)", 330, 16},
    {"h_inline", "float16", "FLOAT16", "(3,)", 446, 6},
    {"axes", "int32", "INT32", "(2,)", -1, 8},
    {"pad_type", "object", "STRING", "()", -1, -1},
    {"w_blob", "float16", "FLOAT16", "(2,3)", -1, 12},
    {"b_blob", "float32", "FLOAT32", "(4,)", -1, 16},
};

START_TEST(test_program)
{
    ts_file *f = tu_open_fixture("coreml/program.mlmodel", 0);
    ck_assert_str_eq(ts_file_version(f), "7");
    check_arrays(f, program_bare, sizeof program_bare / sizeof *program_bare);
    ck_assert_str_eq(tu_array_named(f, "w_blob")->storage_key, "weights/weight.bin");
    ck_assert_str_eq(tu_array_named(f, "w_blob")->note,
                     "const, FLOAT16 blob at metadata offset 64 of weights/weight.bin, which is "
                     "not beside the model (a .mlmodel taken out of its .mlpackage?)");
    double v[4];
    read_f64(f, "axes", 2, v); /* varints through the protobuf source */
    ck_assert(v[0] == 1 && v[1] == 300);
    read_f64(f, "w_inline", 4, v);
    ck_assert(v[0] == 1 && v[3] == 4);
    read_f64(f, "h_inline", 3, v);
    ck_assert(v[0] == 1 && v[2] == 3);
    ts_error err;
    ck_assert_int_eq(ts_array_read(f, tu_array_named(f, "w_blob"), 0, 1, TS_DTYPE_FLOAT64, v, &err),
                     TS_ERR_UNSUPPORTED);
    ck_assert_str_eq(tu_metadata(f, "model_type"), "\"mlProgram\"");
    ck_assert_str_eq(tu_metadata(f, "functions"), "[{\"name\":\"main\",\"opset\":\"CoreML5\"}]");
    ck_assert_str_eq(tu_metadata(f, "weight_files"),
                     "[{\"file\":\"weights/weight.bin\",\"state\":\"not beside the model\"}]");
    ck_assert_str_eq(tu_metadata(f, "inputs"),
                     "[{\"name\":\"x\",\"type\":\"multiArray\",\"shape\":[1,4],\"dtype\":"
                     "\"float32\",\"shape_range\":[[1,null],[4,4]]}]");
    ts_file_close(f);
}
END_TEST

/* The .mlpackage: the folder's member is the model its Manifest.json
 * names; weight.bin is its side file; values come from it. */
START_TEST(test_package)
{
    char path[1024];
    ts_model *m;
    ts_error err;
    ck_assert_msg(ts_model_open(tu_fixture(path, sizeof path, "coreml/model.mlpackage"), NULL, &m,
                                &err) == TS_OK, "%s", err.message);
    ck_assert_uint_eq(ts_model_count(m), 6);
    ck_assert_uint_eq(ts_model_issue_count(m), 0);
    ck_assert_uint_eq(ts_model_file_count(m), 1);
    ts_model_close(m);
    ts_file *f = tu_open_fixture("coreml/model.mlpackage/Data/com.apple.CoreML/model.mlmodel", 0);
    const ts_array *a = tu_array_named(f, "w_blob");
    ck_assert_int_eq(a->data_offset, 128);
    ck_assert_str_eq(a->storage_key, "weights/weight.bin");
    ck_assert_str_eq(a->note, "const, blob in weights/weight.bin (metadata at offset 64)");
    ck_assert_int_eq(tu_array_named(f, "b_blob")->data_offset, 256);
    double v[6];
    read_f64(f, "w_blob", 6, v);
    for (int i = 0; i < 6; i++)
        ck_assert(v[i] == i * 0.5);
    read_f64(f, "b_blob", 4, v);
    ck_assert(v[0] == 0 && v[1] == -1 && v[2] == -2 && v[3] == -3);
    ck_assert_str_eq(tu_metadata(f, "weight_files"),
                     "[{\"file\":\"weights/weight.bin\",\"state\":\"found\"}]");
    ts_file_close(f);
}
END_TEST

START_TEST(test_short_weights)
{
    char path[1024];
    tu_expect_open_error(
        tu_fixture(path, sizeof path, "coreml/short.mlpackage/Data/com.apple.CoreML/model.mlmodel"),
        NULL, TS_ERR_TRUNCATED, 865,
        "value 'b_blob': blob metadata offset 192 + 64 bytes is past the end of "
        "weights/weight.bin (200 bytes)");
}
END_TEST

/* Small models written here: each defect's exact message. */
static unsigned char *put_varint(unsigned char *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    *p++ = (unsigned char)v;
    return p;
}

static unsigned char *put_ld(unsigned char *p, uint32_t field, const void *data, size_t n)
{
    p = put_varint(p, (uint64_t)field << 3 | 2);
    p = put_varint(p, n);
    memcpy(p, data, n);
    return p + n;
}

/* Model{specificationVersion 4, neuralNetwork 500 {layers 1 {name 1 "l",
 * innerProduct 140 {inputChannels 1: 2, outputChannels 2: 1, weights 20:
 * WeightParams w}}}} */
static size_t nn_with_weights(unsigned char *out, const unsigned char *w, size_t wn)
{
    unsigned char ip[256], ly[300], net[320], *p;
    p = ip;
    *p++ = 0x08, *p++ = 2, *p++ = 0x10, *p++ = 1;
    p = put_ld(p, 20, w, wn);
    size_t ipn = (size_t)(p - ip);
    p = put_ld(ly, 1, "l", 1);
    p = put_ld(p, 140, ip, ipn);
    size_t lyn = (size_t)(p - ly);
    p = put_ld(net, 1, ly, lyn);
    size_t netn = (size_t)(p - net);
    p = out;
    *p++ = 0x08, *p++ = 4;
    p = put_ld(p, 500, net, netn);
    return (size_t)(p - out);
}

static const struct {
    unsigned char w[24];
    size_t wn;
    ts_status status;
    const char *message;
} weight_defects[] = {
    /* floatValue and float16Value */
    {{0x0a, 4, 0, 0, 0x80, 0x3f, 0x12, 2, 0, 0x3c}, 10, TS_ERR_FORMAT,
     "layer 'l': weights 'l.weights' at byte 17 hold values in more than one of floatValue, "
     "float16Value, rawValue and int8RawValue"},
    /* float16Value of 3 bytes */
    {{0x12, 3, 0, 0x3c, 0}, 5, TS_ERR_FORMAT,
     "layer 'l': weights 'l.weights': float16Value at byte 22 has an odd number of bytes (3)"},
    /* packed floatValue of 6 bytes */
    {{0x0a, 6, 0, 0, 0, 0, 0, 0}, 8, TS_ERR_FORMAT,
     "layer 'l': weights 'l.weights': packed floatValue at byte 20: 6 bytes are not a whole "
     "number of 4-byte values"},
    /* rawValue with 9-bit quantization */
    {{0xf2, 0x01, 2, 1, 2, 0xc2, 0x02, 2, 0x08, 9}, 10, TS_ERR_FORMAT,
     "layer 'l': weights 'l.weights': quantization numberOfBits is 9, not 1..8"},
};

START_TEST(test_weight_defects)
{
    unsigned char buf[512];
    size_t n = nn_with_weights(buf, weight_defects[_i].w, weight_defects[_i].wn);
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.format = TS_FORMAT_COREML;
    ts_file *f;
    ts_error err;
    ck_assert_int_eq(ts_file_open_memory(buf, n, &o, &f, &err), weight_defects[_i].status);
    ck_assert_str_eq(err.message, weight_defects[_i].message);
}
END_TEST

/* A half-float weight of the right size, read from memory; a blob of an
 * ML Program read from memory is noted, not looked for. */
START_TEST(test_memory)
{
    unsigned char buf[512];
    static const unsigned char w[] = {0x12, 4, 0, 0x3c, 0, 0x40}; /* 1.0, 2.0 */
    size_t n = nn_with_weights(buf, w, sizeof w);
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    ts_file *f;
    ts_error err;
    /* no signature: not detected from bytes alone */
    ck_assert_int_eq(ts_file_open_memory(buf, n, &o, &f, &err), TS_ERR_FORMAT);
    o.format = TS_FORMAT_COREML;
    ck_assert_msg(ts_file_open_memory(buf, n, &o, &f, &err) == TS_OK, "%s", err.message);
    const ts_array *a = ts_file_array(f, 0);
    char sb[32];
    ts_shape_format(&a->shape, 0, sb, sizeof sb);
    ck_assert_str_eq(sb, "(1,2)");
    ck_assert_int_eq(a->dtype, TS_DTYPE_FLOAT16);
    double v[2];
    read_f64(f, "l.weights", 2, v);
    ck_assert(v[0] == 1 && v[1] == 2);
    ts_file_close(f);
    char path[1024];
    size_t len;
    unsigned char *d = tu_read_named("tests/fixtures/coreml/program.mlmodel", path, sizeof path,
                                     &len);
    ck_assert_msg(ts_file_open_memory(d, len, &o, &f, &err) == TS_OK, "%s", err.message);
    ck_assert_str_eq(tu_array_named(f, "b_blob")->note,
                     "const, FLOAT32 blob at metadata offset 192 of weights/weight.bin (not "
                     "read: the model was read from memory)");
    ts_file_close(f);
    free(d);
}
END_TEST

static const char *const loop_files[] = {"tests/fixtures/coreml/nn.mlmodel",
                                         "tests/fixtures/coreml/pipeline.mlmodel",
                                         "tests/fixtures/coreml/program.mlmodel"};

START_TEST(test_prefixes_and_changes)
{
    char path[1024];
    size_t len;
    unsigned char *d = tu_read_named(loop_files[_i], path, sizeof path, &len);
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.format = TS_FORMAT_COREML;
    o.want_metadata = 1;
    ck_assert_int_eq(tu_open_exact(d, len, &o, NULL), TS_OK);
    for (size_t n = 0; n < len; n++)
        tu_open_exact(d, n, &o, NULL); /* whatever it decides, cleanly */
    tu_check_byte_changes(d, len, len < 2048 ? len : 2048, &o, NULL, 0);
    free(d);
}
END_TEST

static void write_bytes(const char *path, const unsigned char *d, size_t n)
{
    FILE *fp = fopen(path, "wb");
    ck_assert_ptr_nonnull(fp);
    ck_assert_uint_eq(fwrite(d, 1, n, fp), n);
    fclose(fp);
}

/* The package's model with a damaged weight.bin beside it: every
 * truncation and every byte changed opens cleanly or fails cleanly, and
 * the blobs of a model that opens are read cleanly. */
static void open_damaged(const char *model)
{
    ts_file *f = NULL;
    ts_error err;
    ts_status st = ts_file_open(model, NULL, &f, &err);
    if (st != TS_OK) {
        ck_assert_ptr_null(f);
        ck_assert_int_eq(err.code, st);
        ck_assert(strchr(err.message, '\n') == NULL);
        return;
    }
    for (size_t i = 0; i < ts_file_count(f); i++) {
        const ts_array *a = ts_file_array(f, i);
        double v[8];
        if (a->storage_key && a->size <= 8) {
            st = ts_array_read(f, a, 0, a->size, TS_DTYPE_FLOAT64, v, &err);
            ck_assert(st == TS_OK || err.code == st);
        }
    }
    ts_file_close(f);
}

START_TEST(test_damaged_weights)
{
    char dir[] = "/tmp/tshape-coreml.XXXXXX", p[600], model[600], wdir[600];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    size_t mlen, wlen;
    unsigned char *m = tu_read_named(
        "tests/fixtures/coreml/model.mlpackage/Data/com.apple.CoreML/model.mlmodel", p, sizeof p,
        &mlen);
    unsigned char *w = tu_read_named(
        "tests/fixtures/coreml/model.mlpackage/Data/com.apple.CoreML/weights/weight.bin", p,
        sizeof p, &wlen);
    snprintf(model, sizeof model, "%s/model.mlmodel", dir);
    snprintf(wdir, sizeof wdir, "%s/weights", dir);
    snprintf(p, sizeof p, "%s/weights/weight.bin", dir);
    write_bytes(model, m, mlen);
    ck_assert_int_eq(mkdir(wdir, 0700), 0);
    for (size_t n = 0; n < wlen; n++) {
        write_bytes(p, w, n);
        open_damaged(model);
    }
    for (size_t i = 0; i < wlen; i++) {
        w[i] ^= 0xA5;
        write_bytes(p, w, wlen);
        open_damaged(model);
        w[i] ^= 0xA5;
    }
    /* a sentinel changed: the exact message */
    w[64] ^= 1;
    write_bytes(p, w, wlen);
    tu_expect_open_error(model, NULL, TS_ERR_FORMAT, 741,
                         "value 'w_blob': blob metadata at offset 64 of weights/weight.bin has "
                         "sentinel 0xdeadbeee, not 0xDEADBEEF");
    w[64] ^= 1;
    /* the blob's dtype: Float32 where the value says FLOAT16 */
    w[68] = 2;
    write_bytes(p, w, wlen);
    tu_expect_open_error(model, NULL, TS_ERR_FORMAT, 741,
                         "value 'w_blob': blob at offset 64 of weights/weight.bin holds FLOAT32 "
                         "(mil_dtype 2), the value's type is FLOAT16");
    unlink(p);
    rmdir(wdir);
    unlink(model);
    rmdir(dir);
    free(m);
    free(w);
}
END_TEST

Suite *coreml_suite(void)
{
    Suite *s = suite_create("coreml");
    TCase *tc = tcase_create("fixtures");
    tcase_add_test(tc, test_nn);
    tcase_add_test(tc, test_pipeline);
    tcase_add_test(tc, test_program);
    tcase_add_test(tc, test_package);
    tcase_add_test(tc, test_short_weights);
    tcase_add_loop_test(tc, test_weight_defects, 0,
                        (int)(sizeof weight_defects / sizeof *weight_defects));
    tcase_add_test(tc, test_memory);
    suite_add_tcase(s, tc);
    tc = tcase_create("memory");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_damaged_weights);
    tcase_add_loop_test(tc, test_prefixes_and_changes, 0,
                        (int)(sizeof loop_files / sizeof *loop_files));
    suite_add_tcase(s, tc);
    return s;
}
