/*
 * check_readraw.c - ts_array_read_raw: elements as their stored bytes in
 * flat C order (big-endian data unswapped, Fortran order and deflated
 * members reordered, strings and datetimes copied, GGUF blocks whole),
 * against the files' bytes and ts_array_read's values; and its errors.
 */
#define TS_EXPERIMENTAL_API
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static ts_file *open_file(const char *path)
{
    ts_file *f = NULL;
    ts_error err;
    ck_assert_msg(ts_file_open(path, NULL, &f, &err) == TS_OK, "%s: %s", path, err.message);
    return f;
}

static const ts_array *named(const ts_file *f, const char *name)
{
    for (size_t i = 0; i < ts_file_count(f); i++)
        if (strcmp(ts_file_array(f, i)->name, name) == 0)
            return ts_file_array(f, i);
    ck_abort_msg("no array %s", name);
    return NULL;
}

/* Stored data: the bytes of the file at data_offset, as they are. */
START_TEST(test_stored_bytes)
{
    static const char *const files[] = {"tests/fixtures/values/f4_be.npy",
                                        "tests/fixtures/npy/bytes_S5.npy",
                                        "tests/fixtures/npy/datetime64_ns.npy",
                                        "tests/fixtures/npy/structured.npy",
                                        "tests/fixtures/values/c256_be.npy"};
    for (size_t k = 0; k < sizeof files / sizeof *files; k++) {
        size_t len;
        unsigned char *img = tu_read_file(files[k], &len);
        ts_file *f = open_file(files[k]);
        const ts_array *a = ts_file_array(f, 0);
        unsigned char *out = malloc((size_t)a->nbytes);
        ts_error err;
        ck_assert_msg(ts_array_read_raw(f, a, 0, a->size, out, &err) == TS_OK, "%s: %s",
                      files[k], err.message);
        ck_assert_int_eq(memcmp(out, img + a->data_offset, (size_t)a->nbytes), 0);
        /* a part */
        ck_assert_int_eq(ts_array_read_raw(f, a, 1, 1, out, &err), TS_OK);
        ck_assert_int_eq(memcmp(out, img + a->data_offset + a->itemsize, (size_t)a->itemsize),
                         0);
        free(out);
        ts_file_close(f);
        free(img);
    }
}
END_TEST

/* Fortran order and deflated members: C order, bytes as stored. */
START_TEST(test_reordered)
{
    ts_file *f = open_file("tests/fixtures/values/i2_be_fortran.npy");
    const ts_array *a = ts_file_array(f, 0);
    unsigned char raw[12];
    int64_t v[6];
    ck_assert_int_eq(ts_array_read_raw(f, a, 0, 6, raw, NULL), TS_OK);
    ck_assert_int_eq(ts_array_read(f, a, 0, 6, TS_DTYPE_INT64, v, NULL), TS_OK);
    for (int i = 0; i < 6; i++) /* little-endian int16 ('<i2'), Fortran order */
        ck_assert_int_eq((int16_t)(raw[2 * i] | raw[2 * i + 1] << 8), v[i]);
    ts_file_close(f);

    f = open_file("tests/fixtures/values/deflated.npz");
    a = named(f, "f");
    ck_assert_int_eq(ts_array_read_raw(f, a, 0, 6, raw, NULL), TS_OK);
    ck_assert_int_eq(ts_array_read(f, a, 0, 6, TS_DTYPE_INT64, v, NULL), TS_OK);
    for (int i = 0; i < 6; i++) {
        int16_t x;
        memcpy(&x, raw + 2 * i, 2);
        ck_assert_int_eq(x, v[i]);
    }
    a = named(f, "big");
    double *d = malloc(100000 * sizeof *d), *e = malloc(100000 * sizeof *e);
    ck_assert_int_eq(ts_array_read_raw(f, a, 50000, 50000, d, NULL), TS_OK);
    ck_assert_int_eq(ts_array_read(f, a, 50000, 50000, TS_DTYPE_FLOAT64, e, NULL), TS_OK);
    ck_assert_int_eq(memcmp(d, e, 50000 * sizeof *d), 0);
    free(d);
    free(e);
    ts_file_close(f);
}
END_TEST

/* GGUF blocks: whole blocks as stored. */
START_TEST(test_blocks)
{
    size_t len;
    unsigned char *img = tu_read_file("tests/fixtures/values/quant.gguf", &len);
    ts_file *f = open_file("tests/fixtures/values/quant.gguf");
    const ts_array *a = named(f, "q4_0"); /* (2,32): 2 blocks of 18 bytes */
    unsigned char out[36];
    ts_error err;
    ck_assert_int_eq(ts_array_read_raw(f, a, 0, 64, out, &err), TS_OK);
    ck_assert_int_eq(memcmp(out, img + a->data_offset, 36), 0);
    ck_assert_int_eq(ts_array_read_raw(f, a, 32, 32, out, &err), TS_OK);
    ck_assert_int_eq(memcmp(out, img + a->data_offset + 18, 18), 0);
    ck_assert_int_eq(ts_array_read_raw(f, a, 1, 32, out, &err), TS_ERR_INDEX);
    ck_assert_str_eq(err.message, "array 'q4_0': elements 1..33 are not whole blocks of 32");
    ts_file_close(f);
    free(img);
}
END_TEST

START_TEST(test_errors)
{
    ts_file *f = open_file("tests/fixtures/npy/object.npy");
    unsigned char out[64];
    ts_error err;
    ck_assert_int_eq(ts_array_read_raw(f, ts_file_array(f, 0), 0, 1, out, &err), TS_ERR_DTYPE);
    ck_assert_str_eq(err.message, "array '': cannot copy elements of dtype object as bytes");
    ts_file_close(f);
    f = open_file("tests/fixtures/values/f4.npy");
    const ts_array *a = ts_file_array(f, 0);
    ck_assert_int_eq(ts_array_read_raw(f, a, 4, 5, out, &err), TS_ERR_INDEX);
    ck_assert_str_eq(err.message, "array '': elements 4..9 are out of range for 8 elements");
    ck_assert_int_eq(ts_array_read_raw(f, a, 0, 1, NULL, &err), TS_ERR_INVALID_ARG);
    ck_assert_str_eq(err.message, "ts_array_read_raw: out is NULL but count is 1");
    ck_assert_int_eq(ts_array_read_raw(f, a, 8, 0, NULL, &err), TS_OK);
    ts_file_close(f);
}
END_TEST

Suite *readraw_suite(void)
{
    Suite *s = suite_create("readraw");
    TCase *tc = tcase_create("readraw");
    tcase_add_test(tc, test_stored_bytes);
    tcase_add_test(tc, test_reordered);
    tcase_add_test(tc, test_blocks);
    tcase_add_test(tc, test_errors);
    suite_add_tcase(s, tc);
    return s;
}
