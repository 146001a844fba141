/* check_darknet.c - Darknet .weights with their .cfg (tests/fixtures/
 * gen_darknet.py): the layers' arrays, names and shapes as darknet's parser
 * computes them (convolutional with groups and batch_normalize, maxpool,
 * shortcut weights, routes, upsample, yolo, avgpool, connected, batchnorm),
 * every data offset checked by the value stored there (the generator
 * writes 0, 1, 2, ... so an array's first value is its index), the 32- and
 * 64-bit 'seen' header, a file holding the first layers only, a file
 * without its cfg, the cfg named by an option, damaged files and cfgs,
 * every truncation. */
#define TS_EXPERIMENTAL_API
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/reader.h"
#include "testutil.h"

static const struct {
    const char *name, *shape;
} tiny[] = {
    {"conv0.biases", "(4,)"}, {"conv0.scales", "(4,)"}, {"conv0.rolling_mean", "(4,)"},
    {"conv0.rolling_variance", "(4,)"}, {"conv0.weights", "(4,3,3,3)"},
    {"conv2.biases", "(8,)"}, {"conv2.weights", "(8,2,3,3)"},
    {"conv3.biases", "(8,)"}, {"conv3.scales", "(8,)"}, {"conv3.rolling_mean", "(8,)"},
    {"conv3.rolling_variance", "(8,)"}, {"conv3.weights", "(8,8,1,1)"},
    {"shortcut4.weights", "(2,8)"},
    {"conv8.biases", "(6,)"}, {"conv8.weights", "(6,20,1,1)"},
    {"fc11.biases", "(5,)"}, {"fc11.weights", "(5,6)"}, {"fc11.scales", "(5,)"},
    {"fc11.rolling_mean", "(5,)"}, {"fc11.rolling_variance", "(5,)"},
    {"bn12.biases", "(5,)"}, {"bn12.scales", "(5,)"}, {"bn12.rolling_mean", "(5,)"},
    {"bn12.rolling_variance", "(5,)"},
};
#define NTINY (sizeof tiny / sizeof *tiny)

/* Opens a fixture of tests/fixtures/darknet with metadata. */
static ts_file *open_dn(const char *name, const char *cfg)
{
    char path[256];
    snprintf(path, sizeof path, "tests/fixtures/darknet/%s", name);
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.want_metadata = 1;
    o.darknet_cfg = cfg;
    ts_file *f;
    ts_error err;
    ck_assert_msg(ts_file_open(path, &o, &f, &err) == TS_OK, "%s: %s", path, err.message);
    ck_assert_int_eq(ts_file_format(f), TS_FORMAT_DARKNET);
    return f;
}

/* Arrays 0..n-1 are the tiny network's, each starting at the value of its
 * own index (offsets from `header`). */
static void check_tiny(ts_file *f, size_t n, int64_t header)
{
    ck_assert_uint_eq(ts_file_count(f), n);
    int64_t index = 0;
    for (size_t i = 0; i < n; i++) {
        const ts_array *a = ts_file_array(f, i);
        ck_assert_str_eq(a->name, tiny[i].name);
        tu_assert_shape(&a->shape, tiny[i].shape);
        ck_assert_str_eq(a->dtype_name, "float32");
        ck_assert_int_eq(a->data_offset, header + 4 * index);
        double v;
        ck_assert_int_eq(ts_array_read(f, a, 0, 1, TS_DTYPE_FLOAT64, &v, NULL), TS_OK);
        ck_assert_msg(v == (double)index, "%s: first value %g, expected %lld", a->name, v,
                      (long long)index);
        index += a->size;
    }
}

START_TEST(test_tiny)
{
    ts_file *f = open_dn("tiny.weights", NULL);
    ck_assert_str_eq(ts_file_version(f), "0.2.5");
    check_tiny(f, NTINY, 20);
    ck_assert_ptr_null(ts_file_array(f, NTINY - 1)->note);
    const char *k, *v;
    ck_assert_uint_eq(ts_file_metadata_count(f), 2);
    ck_assert(ts_file_metadata(f, 0, &k, &v));
    ck_assert_str_eq(k, "seen");
    ck_assert_str_eq(v, "12345678901");
    ck_assert(ts_file_metadata(f, 1, &k, &v));
    ck_assert_str_eq(k, "layers");
    ck_assert_str_eq(v, "14");
    /* the statistics are buffers, the rest parameters */
    ck_assert_int_eq(ts_tensor_role(ts_file_array(f, 2)->name, ts_file_array(f, 2)->dtype), TS_ROLE_BUFFER);
    ck_assert_int_eq(ts_tensor_role(ts_file_array(f, 4)->name, ts_file_array(f, 4)->dtype), TS_ROLE_PARAMETER);
    ts_file_close(f);
    /* version 0.1.0: a 32-bit seen, the values 4 bytes earlier */
    f = open_dn("old.weights", NULL);
    ck_assert_str_eq(ts_file_version(f), "0.1.0");
    check_tiny(f, NTINY, 16);
    ck_assert(ts_file_metadata(f, 0, &k, &v));
    ck_assert_str_eq(v, "3000");
    ts_file_close(f);
    /* the cfg named by the option */
    f = open_dn("partial.weights", "tests/fixtures/darknet/tiny.cfg");
    check_tiny(f, 12, 20); /* the first four layers */
    ck_assert_str_eq(ts_file_array(f, 11)->note,
                     "the file ends here, after layer 3 of the 14 of cfg "
                     "tests/fixtures/darknet/tiny.cfg: darknet loads the weights of the "
                     "layers before and leaves the rest");
    ts_file_close(f);
}
END_TEST

START_TEST(test_partial_and_alone)
{
    /* the first four layers: the last array says where the file ends */
    ts_file *f = open_dn("partial.weights", NULL);
    check_tiny(f, 12, 20);
    ck_assert_str_eq(ts_file_array(f, 11)->note,
                     "the file ends here, after layer 3 of the 14 of cfg "
                     "tests/fixtures/darknet/partial.cfg: darknet loads the weights of the "
                     "layers before and leaves the rest");
    ts_file_close(f);
    /* no cfg: every value, one array */
    f = open_dn("alone.weights", NULL);
    ck_assert_uint_eq(ts_file_count(f), 1);
    const ts_array *a = ts_file_array(f, 0);
    ck_assert_str_eq(a->name, "weights");
    tu_assert_shape(&a->shape, "(100,)");
    ck_assert_int_eq(a->data_offset, 20);
    ck_assert_str_eq(a->note, "every layer's values one after another: no cfg beside the file "
                              "(tests/fixtures/darknet/alone.cfg) to say which layers they "
                              "belong to; name it with --darknet-cfg");
    ts_file_close(f);
}
END_TEST

typedef struct bad_case {
    const char *file;
    ts_status code;
    int64_t offset;
    const char *message;
} bad_case;

static const bad_case bad_cases[] = {
    {"bad_trailing.weights", TS_ERR_FORMAT, 2356,
     "8 bytes after the weights of the cfg's 14 layers (they end at byte 2356): the cfg "
     "tests/fixtures/darknet/bad_trailing.cfg does not describe this file"},
    {"bad_short.weights", TS_ERR_TRUNCATED, 60,
     "layer 0 (conv): rolling_mean needs 4 float32 values at byte 52, but the file ends 8 "
     "bytes later"},
    {"bad_route.weights", TS_ERR_FORMAT, -1,
     "cfg tests/fixtures/darknet/bad_route.cfg: line 39: [route] layers=-1,7: layer 7 is not a "
     "layer before this one (5)"},
    {"bad_type.weights", TS_ERR_FORMAT, -1,
     "cfg tests/fixtures/darknet/bad_type.cfg: line 55: layer 10: [avgpooling] is not a darknet "
     "layer type"},
    {"bad_lstm.weights", TS_ERR_UNSUPPORTED, 2356,
     "cfg tests/fixtures/darknet/bad_lstm.cfg: line 63: layer 13 is a [lstm] layer, whose "
     "weights tshape does not read"},
    {"bad_int.weights", TS_ERR_FORMAT, -1,
     "cfg tests/fixtures/darknet/bad_int.cfg: line 49: [convolutional] filters=six is not an "
     "integer"},
};

START_TEST(test_bad)
{
    const bad_case *c = &bad_cases[_i];
    char path[256];
    snprintf(path, sizeof path, "tests/fixtures/darknet/%s", c->file);
    tu_expect_open_error(path, NULL, c->code, c->offset, c->message);
}
END_TEST

/* A cfg named by the option that does not exist is an error; the cfg of a
 * file read from memory is the test hook's. */
START_TEST(test_cfg_errors)
{
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.darknet_cfg = "tests/fixtures/darknet/none.cfg";
    ts_file *f;
    ts_error err;
    ck_assert_int_eq(ts_file_open("tests/fixtures/darknet/tiny.weights", &o, &f, &err),
                     TS_ERR_IO);
    ck_assert_str_eq(err.message, "cfg tests/fixtures/darknet/none.cfg: cannot open: No such "
                                  "file or directory");
    /* every truncation of the weights fails (with their cfg), byte changes
     * are clean */
    size_t len, clen;
    unsigned char *w = tu_read_file("tests/fixtures/darknet/tiny.weights", &len);
    unsigned char *cfg = tu_read_file("tests/fixtures/darknet/tiny.cfg", &clen);
    ck_assert_ptr_nonnull(w);
    ck_assert_ptr_nonnull(cfg);
    ts__darknet_test_cfg = (const char *)cfg;
    ts__darknet_test_cfg_len = clen;
    ts_open_options d = TS_OPEN_OPTIONS_INIT;
    d.format = TS_FORMAT_DARKNET;
    ck_assert_int_eq(tu_open_exact(w, len, &d, NULL), TS_OK);
    /* layer boundaries: after conv0 (header 20 + 4 * 124), conv2, conv3,
     * shortcut4, conv8, fc11 */
    for (size_t n = 0; n < len; n++) {
        ts_status st = tu_open_exact(w, n, &d, NULL);
        int boundary = n == 20 || n == 20 + 4 * 124 || n == 20 + 4 * 276 || n == 20 + 4 * 372 ||
                       n == 20 + 4 * 388 || n == 20 + 4 * 514 || n == 20 + 4 * 564;
        ck_assert_msg((st == TS_OK) == boundary, "prefix of %zu bytes: status %d", n, (int)st);
    }
    tu_check_byte_changes(w, len, 64, &d, NULL, 0);
    /* and the cfg's bytes changed */
    for (size_t i = 0; i < clen; i += 3) {
        unsigned char save = cfg[i];
        cfg[i] = (unsigned char)(i & 1 ? '=' : '\n');
        tu_open_exact(w, len, &d, NULL);
        cfg[i] = save;
    }
    ts__darknet_test_cfg = NULL;
    free(w);
    free(cfg);
}
END_TEST

Suite *darknet_suite(void)
{
    Suite *s = suite_create("darknet");
    TCase *t = tcase_create("files");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_tiny);
    tcase_add_test(t, test_partial_and_alone);
    tcase_add_test(t, test_cfg_errors);
    suite_add_tcase(s, t);
    TCase *e = tcase_create("errors");
    tcase_add_loop_test(e, test_bad, 0, (int)(sizeof bad_cases / sizeof *bad_cases));
    suite_add_tcase(s, e);
    return s;
}
