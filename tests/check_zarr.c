/* check_zarr.c - Zarr v2 (.zarray) and v3 (zarr.json) arrays written by
 * tests/fixtures/gen_zarr.py: dtype, shape, chunks, codecs, fill value and
 * order; every value read through the chunks (raw, zlib, gzip, big-endian,
 * F-order chunks, padded edge chunks, missing chunks holding the fill
 * value, crc32c, v2 and v3 chunk keys) against the generator's formula;
 * codecs tshape does not decode named; a store folder read as one model
 * with its arrays named by their folders; damaged metadata and chunks;
 * every truncation and byte change of the metadata clean. */
#define TS_EXPERIMENTAL_API
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define DIR "tests/fixtures/zarr/"

static ts_file *open_z(const char *name)
{
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.want_metadata = 1;
    ts_file *f;
    ts_error err;
    ck_assert_msg(ts_file_open(name, &o, &f, &err) == TS_OK, "%s: %s", name, err.message);
    ck_assert_int_eq(ts_file_format(f), TS_FORMAT_ZARR);
    return f;
}

/* Every value of the file's one array, as float64 (n of them). */
static double *values(ts_file *f, int64_t n)
{
    const ts_array *a = ts_file_array(f, 0);
    ck_assert_int_eq(a->size, n);
    double *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    ck_assert_ptr_nonnull(v);
    ts_error err;
    ck_assert_msg(ts_array_read(f, a, 0, n, TS_DTYPE_FLOAT64, v, &err) == TS_OK, "%s",
                  err.message);
    return v;
}

static const char *meta(ts_file *f, const char *key)
{
    const char *k, *v;
    for (size_t i = 0; ts_file_metadata(f, i, &k, &v); i++)
        if (strcmp(k, key) == 0)
            return v;
    return NULL;
}

static const struct {
    const char *path, *shape, *dtype, *format_dtype;
    char byteorder;
    const char *chunks, *codecs, *fill, *order;
} arrays[] = {
    {"v2/raw/.zarray", "(5,4)", "float32", "<f4", '<', "[2,3]", "[]", "0", "\"C\""},
    {"v2/zlib/.zarray", "(3,5)", "int32", ">i4", '>', "[2,2]", "[\"zlib\"]", "0", "\"C\""},
    {"v2/forder/.zarray", "(3,4)", "float64", "<f8", '<', "[2,3]", "[\"gzip\"]", "0",
     "\"F\""},
    {"v2/fill/.zarray", "(6,)", "int16", "<i2", '<', "[2]", "[]", "7", "\"C\""},
    {"v3/a/zarr.json", "(4,6)", "float32", "float32", '<', "[3,4]", "[\"bytes\",\"gzip\"]",
     "\"NaN\"", "\"C\""},
    {"v3/b/zarr.json", "(10,)", "uint8", "uint8", '|', "[4]", "[\"bytes\"]", "0", "\"C\""},
    {"v3/scalar/zarr.json", "()", "int64", "int64", '>', "[]", "[\"bytes\",\"crc32c\"]", "0",
     "\"C\""},
};

START_TEST(test_arrays)
{
    char path[128];
    snprintf(path, sizeof path, DIR "%s", arrays[_i].path);
    ts_file *f = open_z(path);
    ck_assert_str_eq(ts_file_version(f), arrays[_i].path[1] == '2' ? "2" : "3");
    ck_assert_uint_eq(ts_file_count(f), 1);
    const ts_array *a = ts_file_array(f, 0);
    ck_assert_str_eq(a->name, "");
    tu_assert_shape(&a->shape, arrays[_i].shape);
    ck_assert_str_eq(a->dtype_name, arrays[_i].dtype);
    ck_assert_str_eq(a->format_dtype, arrays[_i].format_dtype);
    ck_assert_int_eq(a->byteorder, arrays[_i].byteorder);
    ck_assert_int_eq(a->data_offset, -1);
    ck_assert_str_eq(meta(f, "zarr_format"), arrays[_i].path[1] == '2' ? "2" : "3");
    ck_assert_str_eq(meta(f, "chunks"), arrays[_i].chunks);
    ck_assert_str_eq(meta(f, "codecs"), arrays[_i].codecs);
    ck_assert_str_eq(meta(f, "fill_value"), arrays[_i].fill);
    ck_assert_str_eq(meta(f, "order"), arrays[_i].order);
    ts_file_close(f);
}
END_TEST

START_TEST(test_values)
{
    ts_file *f = open_z(DIR "v2/raw/.zarray");
    double *v = values(f, 20);
    for (int i = 0; i < 20; i++) /* chunk 2.1 is missing: fill value 0 */
        ck_assert_msg(v[i] == (i == 19 ? 0 : 0.5 * i), "raw[%d] = %g", i, v[i]);
    ck_assert_str_eq(ts_file_array(f, 0)->note,
                     "Zarr v2 array: chunks [2,3], codecs [], fill value 0, order C; values "
                     "from the chunk files beside it");
    free(v);
    ts_file_close(f);

    f = open_z(DIR "v2/zlib/.zarray");
    v = values(f, 15);
    for (int i = 0; i < 15; i++)
        ck_assert_msg(v[i] == 100 - 7 * i, "zlib[%d] = %g", i, v[i]);
    free(v);
    ts_file_close(f);

    f = open_z(DIR "v2/forder/.zarray");
    v = values(f, 12);
    for (int i = 0; i < 12; i++)
        ck_assert_msg(v[i] == i / 4.0, "forder[%d] = %g", i, v[i]);
    free(v);
    ts_file_close(f);

    f = open_z(DIR "v2/fill/.zarray");
    v = values(f, 6);
    static const double fill[] = {7, 7, 10, 11, 7, 7};
    for (int i = 0; i < 6; i++)
        ck_assert_msg(v[i] == fill[i], "fill[%d] = %g", i, v[i]);
    free(v);
    ts_file_close(f);

    f = open_z(DIR "v3/a/zarr.json");
    v = values(f, 24);
    for (int i = 0; i < 24; i++) {
        int missing = i / 6 == 3 && i % 6 >= 4; /* chunk c/1/1: NaN */
        ck_assert_msg(missing ? isnan(v[i]) : v[i] == i - 10, "a[%d] = %g", i, v[i]);
    }
    free(v);
    ts_file_close(f);

    f = open_z(DIR "v3/b/zarr.json");
    v = values(f, 10);
    for (int i = 0; i < 10; i++)
        ck_assert_msg(v[i] == 3 * i, "b[%d] = %g", i, v[i]);
    free(v);
    ts_file_close(f);

    f = open_z(DIR "v2/blosc/.zarray"); /* libblosc, loaded when met */
    v = values(f, 12);
    for (int i = 0; i < 12; i++)
        ck_assert_msg(v[i] == 1000 + i, "blosc[%d] = %g", i, v[i]);
    free(v);
    ts_file_close(f);

    f = open_z(DIR "v3/zstd/zarr.json"); /* libzstd, loaded when met */
    v = values(f, 8);
    for (int i = 0; i < 8; i++)
        ck_assert_msg(v[i] == 1.5 * i, "zstd[%d] = %g", i, v[i]);
    free(v);
    ts_file_close(f);

    f = open_z(DIR "v3/scalar/zarr.json");
    v = values(f, 1);
    ck_assert(v[0] == -123456789);
    free(v);
    ts_file_close(f);

    /* a part in the middle: elements 7..12 of v2/raw cross chunks */
    f = open_z(DIR "v2/raw/.zarray");
    double part[6];
    ts_error err;
    ck_assert_int_eq(ts_array_read(f, ts_file_array(f, 0), 7, 6, TS_DTYPE_FLOAT64, part, &err),
                     TS_OK);
    for (int i = 0; i < 6; i++)
        ck_assert(part[i] == 0.5 * (7 + i));
    ts_file_close(f);
}
END_TEST

/* Codecs tshape does not decode: the metadata is read, values refused. */
START_TEST(test_unread_codecs)
{
    ts_file *f = open_z(DIR "v2/lz4/.zarray");
    const ts_array *a = ts_file_array(f, 0);
    ck_assert_str_eq(a->note, "Zarr v2 array: chunks [4], codecs [\"lz4\"], fill value 0, "
                              "order C; values from the chunk files beside it (not read: "
                              "codec lz4 is not decoded by tshape)");
    double v;
    ts_error err;
    ck_assert_int_eq(ts_array_read(f, a, 0, 1, TS_DTYPE_FLOAT64, &v, &err),
                     TS_ERR_UNSUPPORTED);
    ts_file_close(f);
    f = open_z(DIR "v3/bz2/zarr.json");
    ck_assert_str_eq(meta(f, "codecs"), "[\"bytes\",\"bz2\"]");
    ck_assert_int_eq(ts_array_read(f, ts_file_array(f, 0), 0, 1, TS_DTYPE_FLOAT64, &v, &err),
                     TS_ERR_UNSUPPORTED);
    ts_file_close(f);
}
END_TEST

/* A store folder is one model; its arrays are named by their folders. */
START_TEST(test_store)
{
    static const char *const v2[] = {"blosc", "fill", "forder", "lz4", "raw", "zlib"};
    static const char *const v3[] = {"a", "b", "bz2", "scalar", "zstd"};
    ts_model *m;
    ts_error err;
    ck_assert_msg(ts_model_open(DIR "v2", NULL, &m, &err) == TS_OK, "%s", err.message);
    ck_assert_uint_eq(ts_model_count(m), 6);
    for (size_t i = 0; i < 6; i++)
        ck_assert_str_eq(ts_model_array_name(m, i), v2[i]);
    ck_assert_uint_eq(ts_model_error_count(m), 0);
    ts_model_close(m);
    ck_assert_msg(ts_model_open(DIR "v3", NULL, &m, &err) == TS_OK, "%s", err.message);
    ck_assert_uint_eq(ts_model_count(m), 5);
    for (size_t i = 0; i < 5; i++)
        ck_assert_str_eq(ts_model_array_name(m, i), v3[i]);
    ts_model_close(m);
    /* one array's folder: the array is named by it */
    ck_assert_msg(ts_model_open(DIR "v3/a", NULL, &m, &err) == TS_OK, "%s", err.message);
    ck_assert_uint_eq(ts_model_count(m), 1);
    ck_assert_str_eq(ts_model_array_name(m, 0), "a");
    ts_model_close(m);
}
END_TEST

/* Orbax checkpoints: per-parameter Zarr arrays read, an OCDBT store named
 * as not read (an error of the model). */
START_TEST(test_orbax)
{
    ts_model *m;
    ts_error err;
    ck_assert_msg(ts_model_open(DIR "orbax/zarr", NULL, &m, &err) == TS_OK, "%s", err.message);
    ck_assert_uint_eq(ts_model_count(m), 2);
    ck_assert_str_eq(ts_model_array_name(m, 0), "params.dense.bias");
    ck_assert_str_eq(ts_model_array_name(m, 1), "params.dense.kernel");
    ck_assert_uint_eq(ts_model_error_count(m), 0);
    size_t file;
    const ts_array *a = ts_model_array(m, 1, &file);
    tu_assert_shape(&a->shape, "(2,3)");
    double v[6];
    ck_assert_int_eq(ts_array_read(ts_model_file(m, file), a, 0, 6, TS_DTYPE_FLOAT64, v, &err),
                     TS_OK);
    for (int i = 0; i < 6; i++)
        ck_assert(v[i] == i + 0.25);
    ts_model_close(m);
    ck_assert_msg(ts_model_open(DIR "orbax/ocdbt", NULL, &m, &err) == TS_OK, "%s", err.message);
    ck_assert_uint_eq(ts_model_count(m), 0);
    ck_assert_uint_eq(ts_model_error_count(m), 1);
    const ts_model_issue *is = ts_model_issue_at(m, 0);
    ck_assert_int_eq(is->kind, TS_MODEL_FILE_ERROR);
    ck_assert_int_eq(is->status, TS_ERR_UNSUPPORTED);
    ck_assert_str_eq(is->message, "'tests/fixtures/zarr/orbax/ocdbt': an Orbax checkpoint in "
                                  "an OCDBT store (manifest.ocdbt, data under d/): tshape does "
                                  "not read OCDBT stores, so its arrays are not reported");
    ts_model_close(m);
}
END_TEST

static const struct {
    const char *path;
    ts_status code;
    int64_t offset;
    const char *message;
} bad_cases[] = {
    {"format", TS_ERR_UNSUPPORTED, 22, "zarr_format 4: tshape reads Zarr 2 and 3"},
    {"chunks", TS_ERR_FORMAT, 0, "chunks has 2 sizes, the shape 1"},
    {"zero", TS_ERR_FORMAT, 0, "chunk size 0 on axis 0"},
    {"dtype", TS_ERR_DTYPE, 0,
     "dtype <x4: not a dtype tshape reads from Zarr (NumPy typestrs and Zarr v3 data types)"},
    {"order", TS_ERR_FORMAT, 170, "order is not \"C\" or \"F\" (byte 170, line 12)"},
    {"nodtype", TS_ERR_FORMAT, 0, "the array's metadata lacks its dtype"},
    {"sep", TS_ERR_FORMAT, 223,
     "dimension_separator is not \".\" or \"/\" (byte 223, line 14)"},
};

START_TEST(test_bad)
{
    char path[128];
    snprintf(path, sizeof path, DIR "bad/%s/.zarray", bad_cases[_i].path);
    tu_expect_open_error(path, NULL, bad_cases[_i].code, bad_cases[_i].offset,
                         bad_cases[_i].message);
}
END_TEST

/* Damaged chunks fail the values with what is wrong. */
START_TEST(test_bad_chunks)
{
    static const char *const cases[][2] = {
        {"short", "array '': chunk 'tests/fixtures/zarr/bad/short/0' holds 10 bytes, expected "
                  "16 (the chunk shape times the item size)"},
        {"inflate", "array '': chunk 'tests/fixtures/zarr/bad/inflate/0' (zlib) does not "
                    "inflate after 15 bytes, expected 16"},
        {"blosc", "array '': chunk 'tests/fixtures/zarr/bad/blosc/0': blosc: the chunk's "
                  "header does not match its 29 bytes"},
        {"zstd", "array '': chunk 'tests/fixtures/zarr/bad/zstd/0': zstd: Restored data "
                 "doesn't match checksum"},
    };
    for (size_t i = 0; i < 4; i++) {
        char path[128];
        snprintf(path, sizeof path, DIR "bad/%s/.zarray", cases[i][0]);
        ts_file *f = open_z(path);
        double v[4];
        ts_error err;
        ck_assert_int_eq(ts_array_read(f, ts_file_array(f, 0), 0, 4, TS_DTYPE_FLOAT64, v,
                                       &err), TS_ERR_FORMAT);
        ck_assert_str_eq(err.message, cases[i][1]);
        ts_file_close(f);
    }
}
END_TEST

/* zarr_format after 4 KiB of attributes (zarr-python 3 writes them
 * first): still a Zarr array. */
START_TEST(test_late_format)
{
    char path[] = "/tmp/tshape-zarr-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(path));
    char file[64];
    snprintf(file, sizeof file, "%s/zarr.json", path);
    FILE *fp = fopen(file, "w");
    ck_assert_ptr_nonnull(fp);
    fprintf(fp, "{\"shape\": [2], \"data_type\": \"int8\", \"attributes\": {\"pad\": \"");
    for (int i = 0; i < 5000; i++)
        fputc('x', fp);
    fprintf(fp, "\"}, \"chunk_grid\": {\"name\": \"regular\", \"configuration\": "
                "{\"chunk_shape\": [2]}}, \"chunk_key_encoding\": {\"name\": \"default\"}, "
                "\"fill_value\": 5, \"codecs\": [{\"name\": \"bytes\"}], \"zarr_format\": 3, "
                "\"node_type\": \"array\"}\n");
    fclose(fp);
    ts_file *f = open_z(file);
    double *v = values(f, 2); /* no chunk: the fill value */
    ck_assert(v[0] == 5 && v[1] == 5);
    free(v);
    ts_file_close(f);
    ck_assert_int_eq(remove(file), 0);
    ck_assert_int_eq(remove(path), 0);
}
END_TEST

/* Every prefix and byte change of the metadata is clean (read from memory:
 * no chunks). */
START_TEST(test_damage)
{
    static const char *const files[] = {DIR "v2/zlib/.zarray", DIR "v3/a/zarr.json"};
    for (size_t i = 0; i < 2; i++) {
        size_t len;
        unsigned char *d = tu_read_file(files[i], &len);
        ck_assert_ptr_nonnull(d);
        ts_open_options o = TS_OPEN_OPTIONS_INIT;
        o.format = TS_FORMAT_ZARR;
        o.want_metadata = 1;
        ck_assert_int_eq(tu_open_exact(d, len, &o, NULL), TS_OK);
        /* the text without its last newline is still the whole object */
        for (size_t n = 0; n + 1 < len; n++)
            ck_assert_int_ne(tu_open_exact(d, n, &o, NULL), TS_OK);
        tu_check_byte_changes(d, len, len, &o, NULL, 0);
        free(d);
    }
}
END_TEST

Suite *zarr_suite(void)
{
    Suite *s = suite_create("zarr");
    TCase *t = tcase_create("arrays");
    tcase_set_timeout(t, 120);
    tcase_add_loop_test(t, test_arrays, 0, (int)(sizeof arrays / sizeof *arrays));
    tcase_add_test(t, test_values);
    tcase_add_test(t, test_unread_codecs);
    tcase_add_test(t, test_store);
    tcase_add_test(t, test_orbax);
    tcase_add_test(t, test_late_format);
    suite_add_tcase(s, t);
    TCase *e = tcase_create("errors");
    tcase_set_timeout(e, 120);
    tcase_add_loop_test(e, test_bad, 0, (int)(sizeof bad_cases / sizeof *bad_cases));
    tcase_add_test(e, test_bad_chunks);
    tcase_add_test(e, test_damage);
    suite_add_tcase(s, e);
    return s;
}
