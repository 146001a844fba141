/* check_openvino.c - the OpenVINO IR reader: the fixtures of gen_openvino.py
 * (every element type, a body's constants, IR v10 ports, partial shapes of
 * inputs and outputs), values read from the .bin, the defects' exact
 * messages, detection of .xml files (other XML is of no format), a model
 * read from memory, and truncation and byte-change loops that must never
 * crash. */
#define TS_EXPERIMENTAL_API /* ts_array_read */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

/* name, dtype, format_dtype, shape, data_offset, nbytes */
static const struct {
    const char *name, *dtype, *format_dtype, *shape;
    int64_t offset, nbytes;
} basic[] = {
    {"conv.weight", "float32", "f32", "(8,3,1,1)", 0, 96},
    {"conv.bias", "float16", "f16", "(8,)", 96, 16},
    {"scale", "bfloat16", "bf16", "(2,)", 112, 4},
    {"axes", "int64", "i64", "()", 116, 8},
    {"q4", "int4", "i4", "(3,3)", 124, 5},
    {"mask", "uint1", "u1", "(10,)", 129, 2},
    {"nf", "nf4", "nf4", "(4,)", 131, 2},
    {"f8", "float8_e4m3fn", "f8e4m3", "(2,2)", 133, 4},
    {"loop/k", "float32", "f32", "(1,4)", 137, 16},
};

START_TEST(test_basic)
{
    ts_file *f = tu_open_fixture("openvino/basic/model.xml", 0);
    ck_assert_int_eq(ts_file_format(f), TS_FORMAT_OPENVINO);
    ck_assert_str_eq(ts_file_version(f), "11");
    ck_assert_uint_eq(ts_file_count(f), sizeof basic / sizeof *basic);
    for (size_t i = 0; i < sizeof basic / sizeof *basic; i++) {
        const ts_array *a = ts_file_array(f, i);
        char sb[64];
        ck_assert_str_eq(a->name, basic[i].name);
        ck_assert_str_eq(a->dtype_name, basic[i].dtype);
        ck_assert_str_eq(a->format_dtype, basic[i].format_dtype);
        ck_assert_int_eq(ts_shape_format(&a->shape, 0, sb, sizeof sb) > 0, 1);
        ck_assert_str_eq(sb, basic[i].shape);
        ck_assert_int_eq(a->data_offset, basic[i].offset);
        ck_assert_int_eq(a->nbytes, basic[i].nbytes);
        ck_assert_str_eq(a->storage_key, "model.bin");
    }
    ck_assert_int_eq(tu_array_named(f, "mask")->bits, 1);
    ck_assert_int_eq(tu_array_named(f, "mask")->dtype, TS_DTYPE_UNKNOWN);
    ck_assert_str_eq(tu_array_named(f, "nf")->note, "OpenVINO nf4: no tshape dtype, values not read");
    ck_assert_str_eq(tu_metadata(f, "graph.inputs"),
                     "[{\"name\":\"x\",\"dtype\":\"float32\",\"shape\":[\"?\",3,\"1..224\",224]}]");
    ck_assert_str_eq(tu_metadata(f, "graph.outputs"),
                     "[{\"name\":\"y\",\"dtype\":\"float32\",\"shape\":[\"?\",8,\"1..224\",224]},"
                     "{\"name\":\"z\",\"dtype\":\"float32\",\"shape\":[1,4]}]");
    ck_assert_str_eq(tu_metadata(f, "name"), "\"tiny\"");
    ck_assert_str_eq(tu_metadata(f, "ir_version"), "\"11\"");
    ck_assert_str_eq(tu_metadata(f, "layers"), "16");
    ck_assert_str_eq(tu_metadata(f, "weights"), "\"model.bin\"");
    /* values from the .bin beside the model */
    double v[24];
    ts_error err;
    ck_assert_msg(ts_array_read(f, tu_array_named(f, "conv.weight"), 0, 24, TS_DTYPE_FLOAT64, v, &err) ==
                      TS_OK, "%s", err.message);
    for (int k = 0; k < 24; k++)
        ck_assert(v[k] == k * 0.5 - 4);
    ck_assert_int_eq(ts_array_read(f, tu_array_named(f, "scale"), 0, 2, TS_DTYPE_FLOAT64, v, &err), TS_OK);
    ck_assert(v[0] == 1.0 && v[1] == 2.0);
    ck_assert_int_eq(ts_array_read(f, tu_array_named(f, "f8"), 0, 4, TS_DTYPE_FLOAT64, v, &err), TS_OK);
    ck_assert(v[0] == 1.0 && v[1] == 2.0 && v[2] == -1.0 && v[3] == 0.0);
    ck_assert_int_eq(ts_array_read(f, tu_array_named(f, "loop/k"), 0, 4, TS_DTYPE_FLOAT64, v, &err), TS_OK);
    ck_assert(v[0] == 0 && v[3] == 3);
    ts_file_close(f);
}
END_TEST

START_TEST(test_v10_and_noconst)
{
    ts_file *f = tu_open_fixture("openvino/v10/net.xml", 0);
    ck_assert_str_eq(ts_file_version(f), "10");
    ck_assert_uint_eq(ts_file_count(f), 2);
    const ts_array *a = tu_array_named(f, "fc/ids");
    ck_assert_int_eq(a->dtype, TS_DTYPE_INT32);
    ck_assert_int_eq(a->data_offset, 32);
    ck_assert_str_eq(a->storage_key, "net.bin");
    ck_assert_int_eq(tu_array_named(f, "fc/weights")->dtype, TS_DTYPE_FLOAT32);
    ck_assert_int_eq(ts_shape_ndim(&tu_array_named(f, "fc/weights")->shape), 2);
    ts_file_close(f);
    f = tu_open_fixture("openvino/noconst/model.xml", 0);
    ck_assert_uint_eq(ts_file_count(f), 0);
    ck_assert_str_eq(tu_metadata(f, "graph.inputs"),
                     "[{\"name\":\"x\",\"dtype\":\"uint8\",\"shape\":\"...\"}]");
    ts_file_close(f);
}
END_TEST

static const struct {
    const char *file;
    ts_status status;
    int64_t offset;
    const char *message;
} defects[] = {
    {"openvino/bad_short/model.xml", TS_ERR_TRUNCATED, 66,
     "line 4: layer 'w': offset 0 + size 16 > size of model.bin (10)"},
    {"openvino/bad_size/model.xml", TS_ERR_FORMAT, 65,
     "line 4: layer 'w': size 12, but shape (4,) of f32 needs 16 bytes"},
    {"openvino/bad_type/model.xml", TS_ERR_DTYPE, 122,
     "line 5: layer 'w': element_type 'f7' is not an OpenVINO element type tshape knows"},
    {"openvino/bad_entity/model.xml", TS_ERR_FORMAT, 48,
     "line 2: the XML declares entity 'a' (OpenVINO IR declares none; refused, as entity "
     "expansion is how XML bombs work)"},
    {"openvino/bad_v7/model.xml", TS_ERR_UNSUPPORTED, -1,
     "IR version 7: tshape reads IR v10 and v11 (OpenVINO 2020.1 and later; older IRs keep "
     "weights in <blobs>)"},
};

START_TEST(test_defects)
{
    char path[1024];
    tu_expect_open_error(tu_fixture(path, sizeof path, defects[_i].file), NULL,
                         defects[_i].status, defects[_i].offset, defects[_i].message);
}
END_TEST

START_TEST(test_missing_bin)
{
    char path[1024];
    ts_file *f;
    ts_error err;
    ck_assert_int_eq(ts_file_open(tu_fixture(path, sizeof path, "openvino/bad_nobin/model.xml"),
                                  NULL, &f, &err), TS_ERR_IO);
    ck_assert_str_eq(err.message, "layer 'w': weights file 'model.bin' beside the model is "
                                  "missing");
}
END_TEST

/* A folder with a model.xml: its .bin is the model's side file, neither a
 * member nor a file that failed (as the shards of TF.js and ONNX external
 * data). */
START_TEST(test_folder)
{
    char path[1024];
    ts_model *m;
    ts_error err;
    ck_assert_msg(ts_model_open(tu_fixture(path, sizeof path, "openvino/basic"), NULL, &m, &err) ==
                      TS_OK, "%s", err.message);
    ck_assert_uint_eq(ts_model_count(m), 9);
    ck_assert_uint_eq(ts_model_issue_count(m), 0);
    ck_assert_uint_eq(ts_model_other_file_count(m), 0);
    ts_model_close(m);
    ck_assert_msg(ts_model_open(tu_fixture(path, sizeof path, "tfjs/layers"), NULL, &m, &err) ==
                      TS_OK, "%s", err.message);
    ck_assert_uint_eq(ts_model_issue_count(m), 0);
    ck_assert_uint_eq(ts_model_other_file_count(m), 0);
    ts_model_close(m);
}
END_TEST

static void write_text(const char *dir, const char *name, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *fp = fopen(p, "w");
    ck_assert_ptr_nonnull(fp);
    fputs(text, fp);
    fclose(fp);
}

START_TEST(test_detection)
{
    char dir[] = "/tmp/tshape-openvino.XXXXXX", p[512];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ts_file *f;
    ts_error err;
    /* other XML: of no format */
    write_text(dir, "pom.xml", "<?xml version=\"1.0\"?>\n<project><net/></project>\n");
    snprintf(p, sizeof p, "%s/pom.xml", dir);
    ck_assert_int_eq(ts_file_open(p, NULL, &f, &err), TS_ERR_FORMAT);
    ck_assert_msg(strncmp(err.message, "unknown file format", 19) == 0, "%s", err.message);
    unlink(p);
    /* a comment before <net>, no XML declaration; a layer that is not
     * well-formed */
    write_text(dir, "m.xml", "<!-- by hand -->\n<net name=\"n\" version=\"11\"><layers>"
                             "<layer id=\"0\" type=\"Const\"></layers></net>");
    snprintf(p, sizeof p, "%s/m.xml", dir);
    ck_assert_int_eq(ts_file_open(p, NULL, &f, &err), TS_ERR_FORMAT);
    ck_assert_str_eq(err.message, "not well-formed XML at byte 81 (line 2): mismatched tag");
    /* from memory: the .bin is not looked for */
    const char *text = "<net name=\"n\" version=\"11\"><layers><layer id=\"0\" name=\"w\" "
                       "type=\"Const\"><data element_type=\"u8\" shape=\"3\" offset=\"5\" "
                       "size=\"3\"/></layer></layers></net>";
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.format = TS_FORMAT_OPENVINO;
    ck_assert_msg(ts_file_open_memory(text, strlen(text), &o, &f, &err) == TS_OK, "%s",
                  err.message);
    ck_assert_str_eq(ts_file_array(f, 0)->note, "model.bin offset 5 size 3 (not checked: the "
                                                "model was read from memory)");
    ck_assert_int_eq(ts_file_array(f, 0)->data_offset, -1); /* not an offset of the image */
    double v[3];
    ck_assert_int_eq(ts_array_read(f, ts_file_array(f, 0), 0, 3, TS_DTYPE_FLOAT64, v, &err),
                     TS_ERR_UNSUPPORTED);
    ts_file_close(f);
    unlink(p);
    rmdir(dir);
}
END_TEST

static const char *const loop_files[] = {"tests/fixtures/openvino/basic/model.xml",
                                         "tests/fixtures/openvino/v10/net.xml"};

START_TEST(test_prefixes_and_changes)
{
    char path[1024];
    size_t len;
    unsigned char *d = tu_read_named(loop_files[_i], path, sizeof path, &len);
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.format = TS_FORMAT_OPENVINO; /* from memory: no extension to detect it by */
    o.want_metadata = 1;
    ck_assert_int_eq(tu_open_exact(d, len, &o, NULL), TS_OK);
    /* every prefix that ends before "</net>" is not well-formed */
    for (size_t n = 0; n + 7 < len; n++)
        ck_assert_msg(tu_open_exact(d, n, &o, NULL) != TS_OK, "%s: prefix of %zu bytes accepted",
                      loop_files[_i], n);
    tu_check_byte_changes(d, len, len < 2048 ? len : 2048, &o, NULL, 0);
    free(d);
}
END_TEST

Suite *openvino_suite(void)
{
    Suite *s = suite_create("openvino");
    TCase *tc = tcase_create("fixtures");
    tcase_add_test(tc, test_basic);
    tcase_add_test(tc, test_v10_and_noconst);
    tcase_add_loop_test(tc, test_defects, 0, (int)(sizeof defects / sizeof *defects));
    tcase_add_test(tc, test_missing_bin);
    tcase_add_test(tc, test_folder);
    tcase_add_test(tc, test_detection);
    suite_add_tcase(s, tc);
    tc = tcase_create("memory");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_prefixes_and_changes, 0,
                        (int)(sizeof loop_files / sizeof *loop_files));
    suite_add_tcase(s, tc);
    return s;
}
