/* check_hdf5.c - the HDF5 reader (libhdf5 loaded with dlopen): every
 * dataset of ../shared/corpus/hdf5/expected.json, notes (layout, chunks,
 * filters, types), the refused files with their messages, the same file
 * read from memory, detection after a user block, and prefixes that must
 * fail cleanly. Skipped when libhdf5 1.10 is not installed. */
#define TS_EXPERIMENTAL_API
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expected_json.h"
#include "testutil.h"

/* 1 when libhdf5 can be used (tried on a corpus file), else 0 (skip). */
static int have_hdf5(void)
{
    char path[1024];
    if (!tu_corpus_path(path, sizeof path, "hdf5/layouts.h5"))
        return 0;
    ts_file *f;
    ts_error err;
    ts_status st = ts_file_open(path, NULL, &f, &err);
    if (st == TS_ERR_UNSUPPORTED) {
        fprintf(stderr, "skipped: %s\n", err.message);
        return 0;
    }
    ck_assert_msg(st == TS_OK, "%s", err.message);
    ts_file_close(f);
    return 1;
}

START_TEST(test_corpus_expected)
{
    if (!have_hdf5())
        return;
    ck_assert_int_eq(ej_check_all("hdf5", TS_FORMAT_HDF5, NULL), 57);
}
END_TEST

static const struct {
    const char *file, *name, *note, *format_dtype;
} notes[] = {
    {"hdf5/layouts.h5", "chunked_shuffle",
     "chunked (4,32), filters shuffle, deflate, fletcher32, storage 617 bytes", "INTEGER"},
    {"hdf5/layouts.h5", "never_written", "contiguous, storage 0 bytes (never written)", "FLOAT"},
    {"hdf5/layouts.h5", "compact", "compact, storage 12 bytes", "INTEGER"},
    {"hdf5/types.h5", "complex", "compound {r, i} (h5py complex); contiguous, storage 16 bytes",
     "COMPOUND"},
    {"hdf5/types.h5", "enum", "enum {BLUE, GREEN, RED}; contiguous, storage 3 bytes", "ENUM"},
    {"hdf5/types.h5", "vlen_utf8",
     "variable-length UTF-8 strings; contiguous, storage 32 bytes", "STRING"},
    {"hdf5/model.weights.h5", "layers/dense_1/vars/0",
     "opaque 2-byte data with attribute dtype = bfloat16 (Keras 3); contiguous, storage 48 "
     "bytes", "OPAQUE"},
};

START_TEST(test_corpus_notes)
{
    char path[1024];
    if (!have_hdf5() || !tu_corpus_path(path, sizeof path, notes[_i].file))
        return;
    ts_file *f;
    ts_error err;
    ck_assert_msg(ts_file_open(path, NULL, &f, &err) == TS_OK, "%s", err.message);
    int found = 0;
    for (size_t i = 0; i < ts_file_count(f); i++) {
        const ts_array *a = ts_file_array(f, i);
        if (strcmp(a->name, notes[_i].name) == 0) {
            ck_assert_str_eq(a->note, notes[_i].note);
            ck_assert_str_eq(a->format_dtype, notes[_i].format_dtype);
            found = 1;
        }
    }
    ck_assert(found);
    ts_file_close(f);
}
END_TEST

START_TEST(test_corpus_errors)
{
    char path[1024];
    if (tu_corpus_path(path, sizeof path, "hdf5/truncated.h5"))
        tu_expect_open_error(path, NULL, TS_ERR_TRUNCATED, 18831,
                             "HDF5 file is truncated: 18831 bytes, but its superblock says it "
                             "ends at byte 37663");
    if (tu_corpus_path(path, sizeof path, "hdf5/bad_superblock.h5"))
        tu_expect_open_error(path, NULL, TS_ERR_FORMAT, 8,
                             "not a readable HDF5 file: signature at byte 0, but superblock "
                             "version 9 does not exist (0 to 3)");
}
END_TEST

/* The image read from memory (core driver) reports what the file does. */
START_TEST(test_memory_image)
{
    char path[1024];
    if (!have_hdf5() || !tu_corpus_path(path, sizeof path, "hdf5/userblock.h5"))
        return;
    size_t len;
    unsigned char *data = tu_read_file(path, &len);
    ck_assert_int_eq(ts_format_detect(data, len), TS_FORMAT_HDF5); /* after the user block */
    ts_file *a, *b;
    ts_error err;
    ck_assert_msg(ts_file_open(path, NULL, &a, &err) == TS_OK, "%s", err.message);
    ck_assert_msg(ts_file_open_memory(data, len, NULL, &b, &err) == TS_OK, "%s", err.message);
    ck_assert_uint_eq(ts_file_count(a), ts_file_count(b));
    for (size_t i = 0; i < ts_file_count(a); i++) {
        ck_assert_str_eq(ts_file_array(a, i)->name, ts_file_array(b, i)->name);
        ck_assert_int_eq(ts_file_array(a, i)->data_offset, ts_file_array(b, i)->data_offset);
    }
    ck_assert_int_eq(ts_file_array(b, 1)->data_offset, 2560);
    ts_file_close(a);
    ts_file_close(b);
    /* every prefix fails cleanly (the superblock's end address says so) */
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.format = TS_FORMAT_HDF5;
    for (size_t n = 0; n < len; n++)
        ck_assert_int_ne(tu_open_exact(data, n, &o, NULL), TS_OK);
    free(data);
}
END_TEST

START_TEST(test_keras_metadata)
{
    char path[1024];
    if (!have_hdf5() || !tu_corpus_path(path, sizeof path, "hdf5/keras_legacy.h5"))
        return;
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.want_metadata = 1;
    ts_file *f;
    ts_error err;
    ck_assert_msg(ts_file_open(path, &o, &f, &err) == TS_OK, "%s", err.message);
    const char *k, *v;
    /* every root attribute, by name; model_weights/ repeats keras_version
     * and backend (not shown twice) and holds the layer names */
    ck_assert_uint_eq(ts_file_metadata_count(f), 5);
    ck_assert(ts_file_metadata(f, 1, &k, &v));
    ck_assert_str_eq(k, "keras_version");
    ck_assert_str_eq(v, "\"2.9.0\"");
    /* the model's JSON, for tshape scan */
    ck_assert(ts_file_metadata(f, 2, &k, &v));
    ck_assert_str_eq(k, "model_config");
    ck_assert_str_eq(v, "\"{\\\"class_name\\\": \\\"Sequential\\\", \\\"config\\\": {\\\"name\\\": "
                        "\\\"sequential\\\", \\\"layers\\\": [{\\\"class_name\\\": \\\"Conv2D\\\", "
                        "\\\"config\\\": {\\\"name\\\": \\\"conv2d\\\", \\\"filters\\\": 4, "
                        "\\\"kernel_size\\\": [3, 3]}}]}}\"");
    ck_assert(ts_file_metadata(f, 3, &k, &v));
    ck_assert_str_eq(k, "training_config");
    ck_assert(ts_file_metadata(f, 4, &k, &v));
    ck_assert_str_eq(k, "keras.layer_names");
    ck_assert_str_eq(v, "[\"conv2d\",\"batch_normalization\",\"max_pooling2d\",\"flatten\","
                        "\"dense\",\"dropout\",\"dense_1\"]");
    ts_file_close(f);
}
END_TEST

/* Attributes of every kind h5py writes (tests/fixtures/gen_hdf5_attrs.py):
 * strings, a list of them, an int64 scalar, a float32 array; model_weights/
 * attributes of its own under "model_weights/". */
START_TEST(test_all_attributes)
{
    if (!have_hdf5())
        return;
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.want_metadata = 1;
    ts_file *f;
    ts_error err;
    ck_assert_msg(ts_file_open("tests/fixtures/hdf5/keras_attrs.h5", &o, &f, &err) == TS_OK,
                  "%s", err.message);
    static const char *const want[][2] = {
        {"backend", "\"tensorflow\""},
        {"epoch", "12"},
        {"keras_version", "\"2.9.0\""},
        {"lr_schedule", "[0.10000000149011612,0.0099999997764825821,0.0010000000474974513]"},
        {"model_config", NULL},
        {"tags", "[\"a\",\"b\"]"},
        {"training_config", "\"{\\\"loss\\\": \\\"mse\\\", \\\"optimizer_config\\\": {\\\"class_name\\\": "
                            "\\\"SGD\\\", \\\"config\\\": {\\\"learning_rate\\\": 0.01}}}\""},
        {"keras.layer_names", "[\"dense_0\",\"dense_1\"]"},
        {"model_weights/note", "\"weights only\""},
    };
    ck_assert_uint_eq(ts_file_metadata_count(f), sizeof want / sizeof *want);
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        const char *k, *v;
        ck_assert(ts_file_metadata(f, i, &k, &v));
        ck_assert_str_eq(k, want[i][0]);
        if (want[i][1])
            ck_assert_str_eq(v, want[i][1]);
        else
            ck_assert_uint_gt(strlen(v), 400);
    }
    ts_file_close(f);
}
END_TEST

/* Issue 20 item 14: datasets without elements (tests/fixtures/gen_hdf5_empty.py)
 * have count 0, as an empty .npy; a null dataspace has no shape
 * (null_shape, shape (0,) so its size is 0) and a note saying so. */
START_TEST(test_empty_datasets)
{
    if (!have_hdf5())
        return;
    ts_file *f = NULL;
    ts_error err;
    ck_assert_int_eq(ts_file_open("tests/fixtures/hdf5/empty.h5", NULL, &f, &err), TS_OK);
    ck_assert_uint_eq(ts_file_count(f), 4);
    static const struct {
        const char *name, *shape;
        int null_shape;
        int64_t count;
    } want[] = {{"chunked0", "(0,3)", 0, 0}, {"null", "(0,)", 1, 0}, {"ok", "(2,)", 0, 2},
                {"rows0", "(0,4)", 0, 0}};
    for (size_t i = 0; i < 4; i++) {
        const ts_array *a = ts_file_array(f, i);
        char shape[64];
        ck_assert_str_eq(a->name, want[i].name);
        ts_shape_format(&a->shape, 0, shape, sizeof shape);
        ck_assert_str_eq(shape, want[i].shape);
        ck_assert_int_eq(a->null_shape, want[i].null_shape);
        ts_stats s;
        ck_assert_msg(ts_array_stats(f, a, NULL, &s, &err) == TS_OK, "%s: %s", a->name,
                      err.message);
        ck_assert_int_eq(s.count, want[i].count);
        ck_assert(want[i].count ? s.mean == -0.5 : isnan(s.mean));
        double v[2];
        ck_assert_int_eq(ts_array_read(f, a, 0, 0, TS_DTYPE_FLOAT64, v, &err), TS_OK);
    }
    ck_assert_str_eq(ts_file_array(f, 1)->note, "null dataspace (h5py.Empty): no shape, no data; "
                                                "contiguous, storage 0 bytes");
    ts_file_close(f);
}
END_TEST

Suite *hdf5_suite(void)
{
    Suite *s = suite_create("hdf5");
    TCase *tc = tcase_create("corpus");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_corpus_expected);
    tcase_add_loop_test(tc, test_corpus_notes, 0, (int)(sizeof notes / sizeof *notes));
    tcase_add_test(tc, test_corpus_errors);
    tcase_add_test(tc, test_memory_image);
    tcase_add_test(tc, test_keras_metadata);
    tcase_add_test(tc, test_all_attributes);
    tcase_add_test(tc, test_empty_datasets);
    suite_add_tcase(s, tc);
    return s;
}
