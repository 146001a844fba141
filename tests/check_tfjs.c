/* check_tfjs.c - the TensorFlow.js reader: the fixtures of gen_tfjs.py
 * (shards crossed, quantisation, string weights, a manifest alone), the
 * defects' exact messages, detection of .json files (a config.json is of no
 * format), a model read from memory, a shard that is a symbolic link, and
 * truncation and byte-change loops that must never crash. The reference's
 * comparison is tests/cli/tfjs.test.sh. */
#define TS_EXPERIMENTAL_API /* ts_array_read */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

START_TEST(test_graph_model)
{
    ts_file *f = tu_open_fixture("tfjs/graph/model.json", 0);
    ck_assert_int_eq(ts_file_format(f), TS_FORMAT_TFJS);
    ck_assert_str_eq(ts_file_version(f), "graph-model");
    ck_assert_uint_eq(ts_file_count(f), 10);
    const ts_array *a = tu_array_named(f, "dense/kernel");
    ck_assert_str_eq(a->storage_key, "group1-shard1of7.bin");
    ck_assert_int_eq(a->data_offset, 0);
    ck_assert_int_eq(a->nbytes, 60);
    ck_assert_str_eq(a->note, "crosses from shard 'group1-shard1of7.bin' into "
                              "'group1-shard3of7.bin' (bytes 0..60 of group 0)");
    a = tu_array_named(f, "q8");
    ck_assert_int_eq(a->dtype, TS_DTYPE_UINT8);
    ck_assert_str_eq(a->format_dtype, "float32");
    ck_assert_str_eq(a->storage_key, "group1-shard5of7.bin");
    ck_assert_int_eq(a->data_offset, 3); /* group byte 99 */
    ck_assert_str_eq(a->note, "quantized uint8 of float32: value = q * scale + min (scale "
                              "0.0078125, min -1.0)");
    a = tu_array_named(f, "half");
    ck_assert_int_eq(a->dtype, TS_DTYPE_FLOAT16);
    ck_assert_str_eq(a->note, "quantized float16 of float32");
    ck_assert_int_eq(a->dequantized_dtype, TS_DTYPE_FLOAT32);
    ck_assert_int_eq(tu_array_named(f, "ids")->dequantized_dtype, TS_DTYPE_UNKNOWN);
    /* values across shard boundaries: the kernel spans shards 1..3 */
    double v[15];
    ts_error err;
    a = tu_array_named(f, "dense/kernel");
    ck_assert_msg(ts_array_read(f, a, 0, 15, TS_DTYPE_FLOAT64, v, &err) == TS_OK, "%s",
                  err.message);
    for (int k = 0; k < 15; k++)
        ck_assert(v[k] == k * 0.5 - 2);
    a = tu_array_named(f, "empty");
    ck_assert_str_eq(a->storage_key, "group1-shard7of7.bin");
    ck_assert_int_eq(a->data_offset, 5);
    a = tu_array_named(f, "other/w");
    ck_assert_str_eq(a->storage_key, "group2-shard1of1.bin");
    ck_assert_int_eq(a->data_offset, 0);
    ts_file_close(f);

    f = tu_open_fixture("tfjs/strings/model.json", 0);
    ck_assert_int_eq(tu_array_named(f, "vocab")->data_offset, -1);
    ck_assert_str_eq(tu_array_named(f, "after")->note,
                     "offset unknown: it follows string weight 'vocab', whose size is in the "
                     "data");
    ck_assert_str_eq(tu_array_named(f, "next")->storage_key, "t.bin");
    ts_file_close(f);

    f = tu_open_fixture("tfjs/manifest/m-weights_manifest.json", 0);
    ck_assert_str_eq(ts_file_version(f), "weights manifest");
    ck_assert_str_eq(tu_array_named(f, "fc/weights")->storage_key, "m.bin");
    ts_file_close(f);
}
END_TEST

static const struct {
    const char *file;
    ts_status status;
    int64_t offset;
    const char *message;
} defects[] = {
    {"tfjs/bad_dtype/model.json", TS_ERR_DTYPE, 171,
     "weight 0 of group 0: dtype 'float64' at byte 171 is not a TensorFlow.js dtype (float32, "
     "int32, bool, complex64, string)"},
    {"tfjs/bad_path/model.json", TS_ERR_FORMAT, 72,
     "weights path leaves the model folder: path 0 of group 0 has location '../a.bin'"},
    {"tfjs/bad_short/model.json", TS_ERR_TRUNCATED, 106,
     "weight 'w' needs bytes 0..16 of group 0, but its 1 shards hold 12 bytes"},
};

START_TEST(test_defects)
{
    char path[1024];
    tu_expect_open_error(tu_fixture(path, sizeof path, defects[_i].file), NULL,
                         defects[_i].status, defects[_i].offset, defects[_i].message);
}
END_TEST

START_TEST(test_missing_shard)
{
    char path[1024];
    ts_file *f;
    ts_error err;
    ck_assert_int_eq(ts_file_open(tu_fixture(path, sizeof path, "tfjs/bad_missing/model.json"),
                                  NULL, &f, &err), TS_ERR_IO);
    ck_assert_str_eq(err.message, "path 1 of group 0: weights file 'gone.bin' beside the model "
                                  "is missing");
}
END_TEST

/* Writes text to dir/name. */
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
    char dir[] = "/tmp/tshape-tfjs.XXXXXX", p[512];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ts_file *f;
    ts_error err;
    /* config.json: of no format, not a TensorFlow.js error */
    write_text(dir, "config.json", "{\"architectures\": [\"X\"], \"hidden_size\": 8}");
    snprintf(p, sizeof p, "%s/config.json", dir);
    ck_assert_int_eq(ts_file_open(p, NULL, &f, &err), TS_ERR_FORMAT);
    ck_assert_msg(strncmp(err.message, "unknown file format", 19) == 0, "%s", err.message);
    /* a model.json whose first key is "format", and a symbolic link shard */
    write_text(dir, "model.json",
               "{\"format\": \"layers-model\", \"weightsManifest\": [{\"paths\": [\"w.bin\"], "
               "\"weights\": [{\"name\": \"k\", \"shape\": [2], \"dtype\": \"float32\"}]}]}");
    write_text(dir, "real.bin", "12345678");
    snprintf(p, sizeof p, "%s/w.bin", dir);
    ck_assert_int_eq(symlink("real.bin", p), 0);
    snprintf(p, sizeof p, "%s/model.json", dir);
    ck_assert_int_eq(ts_file_open(p, NULL, &f, &err), TS_ERR_FORMAT);
    ck_assert_msg(strstr(err.message, "path 0 of group 0: weights file ") == err.message &&
                      strstr(err.message, "is not a regular file (symbolic links are refused"),
                  "%s", err.message);
    snprintf(p, sizeof p, "%s/w.bin", dir);
    unlink(p);
    write_text(dir, "w.bin", "12345678");
    snprintf(p, sizeof p, "%s/model.json", dir);
    ck_assert_msg(ts_file_open(p, NULL, &f, &err) == TS_OK, "%s", err.message);
    ck_assert_str_eq(ts_file_version(f), "layers-model");
    ts_file_close(f);
    /* from memory: the shards are not looked for */
    size_t len;
    unsigned char *d = tu_read_file(p, &len);
    ck_assert_ptr_nonnull(d);
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.format = TS_FORMAT_TFJS;
    ck_assert_msg(ts_file_open_memory(d, len, &o, &f, &err) == TS_OK, "%s", err.message);
    ck_assert_int_eq(ts_file_array(f, 0)->data_offset, -1);
    ck_assert_str_eq(ts_file_array(f, 0)->note, "bytes 0..8 of group 0 (not placed in its "
                                                "shards: the model was read from memory)");
    double v[2];
    ck_assert_int_eq(ts_array_read(f, ts_file_array(f, 0), 0, 2, TS_DTYPE_FLOAT64, v, &err),
                     TS_ERR_UNSUPPORTED);
    ts_file_close(f);
    free(d);
    const char *names[] = {"config.json", "model.json", "real.bin", "w.bin"};
    for (size_t i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        unlink(p);
    }
    rmdir(dir);
}
END_TEST

START_TEST(test_shard_limit)
{
    /* a manifest naming 65,537 shards (from memory: none is looked for) */
    size_t cap = 65537 * 8 + 64, n = 0;
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    n += (size_t)snprintf(text + n, cap - n, "[{\"paths\":[");
    for (int i = 0; i < 65537; i++)
        n += (size_t)snprintf(text + n, cap - n, "%s\"a\"", i ? "," : "");
    n += (size_t)snprintf(text + n, cap - n, "],\"weights\":[]}]");
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.format = TS_FORMAT_TFJS;
    ts_file *f;
    ts_error err;
    ck_assert_int_eq(ts_file_open_memory(text, n, &o, &f, &err), TS_ERR_LIMIT);
    ck_assert_str_eq(err.message, "path 65536 of group 0: more than 65536 shard paths in one "
                                  "model (tshape's limit)");
    free(text);
}
END_TEST

static const char *const loop_files[] = {"tests/fixtures/tfjs/graph/model.json",
                                         "tests/fixtures/tfjs/manifest/m-weights_manifest.json"};

START_TEST(test_prefixes_and_changes)
{
    char path[1024];
    size_t len;
    unsigned char *d = tu_read_named(loop_files[_i], path, sizeof path, &len);
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.format = TS_FORMAT_TFJS; /* from memory: no extension to detect it by */
    o.want_metadata = 1;
    ck_assert_int_eq(tu_open_exact(d, len, &o, NULL), TS_OK);
    for (size_t n = 0; n < len; n++)
        ck_assert_msg(tu_open_exact(d, n, &o, NULL) != TS_OK, "%s: prefix of %zu bytes accepted",
                      loop_files[_i], n);
    tu_check_byte_changes(d, len, len < 2048 ? len : 2048, &o, NULL, 0);
    free(d);
}
END_TEST

Suite *tfjs_suite(void)
{
    Suite *s = suite_create("tfjs");
    TCase *tc = tcase_create("fixtures");
    tcase_add_test(tc, test_graph_model);
    tcase_add_loop_test(tc, test_defects, 0, (int)(sizeof defects / sizeof *defects));
    tcase_add_test(tc, test_missing_shard);
    tcase_add_test(tc, test_detection);
    tcase_add_test(tc, test_shard_limit);
    suite_add_tcase(s, tc);
    tc = tcase_create("memory");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_prefixes_and_changes, 0,
                        (int)(sizeof loop_files / sizeof *loop_files));
    suite_add_tcase(s, tc);
    return s;
}
