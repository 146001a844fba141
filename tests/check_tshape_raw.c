/*
 * check_tshape_raw.c - the raw TShape::Save readers (src/formats/tshape_raw.c):
 * tshape32 (mshadow: u32 ndim, u32 dims) and tshape64 (MXNet: i32 ndim,
 * i64 dims), one or more shapes back to back. Fixtures come from
 * tests/fixtures/gen_mxnet.py.
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#define N(a) (sizeof(a) / sizeof *(a))

typedef struct exp_shape {
    const char *shape;
    int64_t size;
    int64_t offset;
} exp_shape;

typedef struct good_case {
    const char *path;
    ts_format format;
    const char *version;
    int64_t file_nbytes;
    size_t count;
    exp_shape shapes[3];
} good_case;

static const good_case good[] = {
    {"tshape/one32.tshape", TS_FORMAT_TSHAPE32, "u32", 16, 1, {{"(2,3,4)", 24, 0}}},
    {"tshape/three32.tshape", TS_FORMAT_TSHAPE32, "u32", 24, 3,
     {{"(2,3)", 6, 0}, {"()", 1, 12}, {"(5,)", 5, 16}}},
    {"tshape/one64.tshape", TS_FORMAT_TSHAPE64, "i64", 20, 1, {{"(7,8)", 56, 0}}},
    {"tshape/three64.tshape", TS_FORMAT_TSHAPE64, "i64", 76, 3,
     {{"(1,)", 1, 0}, {"(2,3,4,5,6)", 720, 12}, {"(0,4)", 0, 56}}},
};

static ts_status open_as(const char *rel, ts_format format, ts_file **f, ts_error *err)
{
    char path[512];
    ts_open_options opts = TS_OPEN_OPTIONS_INIT;
    opts.format = format;
    return ts_file_open(tu_fixture(path, sizeof path, rel), &opts, f, err);
}

static void check_raw_array(const ts_array *a, const exp_shape *e)
{
    ck_assert_ptr_nonnull(a);
    ck_assert_str_eq(a->name, "");
    tu_assert_shape(&a->shape, e->shape);
    ck_assert_int_eq(a->dtype, TS_DTYPE_UNKNOWN);
    ck_assert_str_eq(a->dtype_name, "none");
    ck_assert_str_eq(a->format_dtype, "");
    ck_assert_int_eq(a->byteorder, '|');
    ck_assert_int_eq(a->itemsize, 0);
    ck_assert_int_eq(a->size, e->size);
    ck_assert_int_eq(a->nbytes, 0);
    ck_assert_int_eq(a->data_offset, e->offset);
    ck_assert_int_eq(a->storage, TS_STORAGE_DENSE);
    tu_assert_shape(&a->storage_shape, "()");
    ck_assert_int_eq(a->dev_type, 0);
    ck_assert_int_eq(a->dev_id, 0);
    ck_assert_ptr_null(a->note);
}

START_TEST(test_good)
{
    const good_case *c = &good[_i];
    ts_file *f = NULL;
    ts_error err;
    ck_assert_msg(open_as(c->path, c->format, &f, &err) == TS_OK, "%s: %s", c->path,
                  err.message);
    ck_assert_int_eq(ts_file_format(f), c->format);
    ck_assert_str_eq(ts_file_version(f), c->version);
    ck_assert_int_eq(ts_file_nbytes(f), c->file_nbytes);
    ck_assert_uint_eq(ts_file_count(f), c->count);
    for (size_t i = 0; i < c->count; i++)
        check_raw_array(ts_file_array(f, i), &c->shapes[i]);
    ck_assert_ptr_null(ts_file_array(f, c->count));
    ts_file_close(f);

    /* Raw files have no magic: never detected. */
    ck_assert_int_eq(open_as(c->path, TS_FORMAT_AUTO, &f, &err), TS_ERR_FORMAT);
    ck_assert_ptr_null(f);
}
END_TEST

typedef struct bad_case {
    const char *path;
    ts_format format;
    ts_status status;
    int64_t offset;
    const char *message;
} bad_case;

static const bad_case bad[] = {
    {"tshape/bad32_ndim.tshape", TS_FORMAT_TSHAPE32, TS_ERR_LIMIT, 8,
     "shape 1 at byte 8: ndim 2147483648 is above the limit of 64"},
    {"tshape/bad64_ndim.tshape", TS_FORMAT_TSHAPE64, TS_ERR_FORMAT, 0,
     "shape 0 at byte 0: ndim -2147483648 is negative (an unknown shape, which "
     "TShape::Save never writes)"},
    {"tshape/bad32_truncated.tshape", TS_FORMAT_TSHAPE32, TS_ERR_TRUNCATED, 16,
     "shape 1 at byte 12: file ends inside the dims: ndim 3 needs 12 bytes of dims, "
     "4 left"},
    {"tshape/bad64_truncated.tshape", TS_FORMAT_TSHAPE64, TS_ERR_TRUNCATED, 24,
     "shape 1 at byte 20: file ends inside the dims: ndim 3 needs 24 bytes of dims, "
     "16 left"},
    {"tshape/bad64_negdim.tshape", TS_FORMAT_TSHAPE64, TS_ERR_FORMAT, 24,
     "shape 1 at byte 12: dim 1 at byte 24 is negative (-1)"},
    {"tshape/bad32_overflow.tshape", TS_FORMAT_TSHAPE32, TS_ERR_OVERFLOW, 0,
     "shape 0 at byte 0: element count of (4294967295,4294967295,4294967295) does not "
     "fit in int64"},
    {"tshape/empty.tshape", TS_FORMAT_TSHAPE32, TS_ERR_FORMAT, 0,
     "file is empty: a raw tshape32 file holds at least one shape (u32 ndim, u32 dims)"},
    {"tshape/empty.tshape", TS_FORMAT_TSHAPE64, TS_ERR_FORMAT, 0,
     "file is empty: a raw tshape64 file holds at least one shape (i32 ndim, i64 dims)"},
    /* The 32-bit file read as 64-bit: (2,3,4) is ndim 3 with 12 of 24 bytes. */
    {"tshape/one32.tshape", TS_FORMAT_TSHAPE64, TS_ERR_TRUNCATED, 4,
     "shape 0 at byte 0: file ends inside the dims: ndim 3 needs 24 bytes of dims, "
     "12 left"},
};

START_TEST(test_bad)
{
    const bad_case *c = &bad[_i];
    ts_file *f = NULL;
    ts_error err;
    ts_status st = open_as(c->path, c->format, &f, &err);
    ck_assert_msg(st == c->status, "%s: status %d (%s), expected %d", c->path, (int)st,
                  err.message, (int)c->status);
    ck_assert_ptr_null(f);
    ck_assert_int_eq(err.code, c->status);
    ck_assert_int_eq(err.offset, c->offset);
    ck_assert_str_eq(err.message, c->message);
    ck_assert_int_eq(open_as(c->path, c->format, &f, NULL), c->status);
}
END_TEST

/* Every prefix of a multi-shape file: at a record boundary it is a valid file
 * with fewer shapes, elsewhere a clean TS_ERR_TRUNCATED (the empty prefix
 * TS_ERR_FORMAT). Each prefix sits in a buffer of exactly its length. */
static const struct {
    const char *path;
    ts_format format;
} trunc_cases[] = {
    {"tshape/three32.tshape", TS_FORMAT_TSHAPE32},
    {"tshape/three64.tshape", TS_FORMAT_TSHAPE64},
};

START_TEST(test_truncation)
{
    char path[512];
    size_t len;
    unsigned char *data = tu_read_file(tu_fixture(path, sizeof path, trunc_cases[_i].path),
                                       &len);
    ck_assert_ptr_nonnull(data);
    ts_open_options opts = TS_OPEN_OPTIONS_INIT;
    opts.format = trunc_cases[_i].format;
    ts_file *full = NULL;
    ts_error err;
    ck_assert_int_eq(ts_file_open_memory(data, len, &opts, &full, &err), TS_OK);
    for (size_t n = 0; n < len; n++) {
        size_t boundary = 0;   /* shapes that end exactly at n */
        int at_boundary = 0;
        for (size_t i = 1; i <= ts_file_count(full); i++) {
            int64_t end = i < ts_file_count(full) ? ts_file_array(full, i)->data_offset
                                                  : (int64_t)len;
            if (end == (int64_t)n) {
                at_boundary = 1;
                boundary = i;
            }
        }
        unsigned char *copy = malloc(n ? n : 1);
        ck_assert_ptr_nonnull(copy);
        memcpy(copy, data, n);
        ts_file *f = NULL;
        ts_status st = ts_file_open_memory(copy, n, &opts, &f, &err);
        if (n == 0) {
            ck_assert_int_eq(st, TS_ERR_FORMAT);
        } else if (at_boundary) {
            ck_assert_msg(st == TS_OK, "prefix %zu: %s", n, err.message);
            ck_assert_uint_eq(ts_file_count(f), boundary);
        } else {
            ck_assert_msg(st == TS_ERR_TRUNCATED, "prefix %zu: status %d: %s", n, (int)st,
                          err.message);
            ck_assert_ptr_null(f);
            ck_assert_int_le(err.offset, (int64_t)n);
            ck_assert_int_ge(err.offset, 0);
        }
        ts_file_close(f);
        free(copy);
    }
    ts_file_close(full);
    free(data);
}
END_TEST

/* Absurd and boundary ndims, built in memory. */
START_TEST(test_ndim_limits)
{
    unsigned char buf[4 + 65 * 8];
    ts_open_options o32 = TS_OPEN_OPTIONS_INIT, o64 = TS_OPEN_OPTIONS_INIT;
    o32.format = TS_FORMAT_TSHAPE32;
    o64.format = TS_FORMAT_TSHAPE64;
    ts_file *f = NULL;
    ts_error err;

    /* ndim 0xFFFFFFFF in a 4-byte file */
    memset(buf, 0xff, 4);
    ck_assert_int_eq(ts_file_open_memory(buf, 4, &o32, &f, &err), TS_ERR_LIMIT);
    ck_assert_str_eq(err.message, "shape 0 at byte 0: ndim 4294967295 is above the limit "
                                  "of 64");
    ck_assert_int_eq(ts_file_open_memory(buf, 4, &o64, &f, &err), TS_ERR_FORMAT);
    ck_assert_str_eq(err.message, "shape 0 at byte 0: ndim -1 is negative (an unknown "
                                  "shape, which TShape::Save never writes)");

    /* ndim 65 with all 65 dims present: still above the limit */
    memset(buf, 0, sizeof buf);
    buf[0] = 65;
    ck_assert_int_eq(ts_file_open_memory(buf, 4 + 65 * 4, &o32, &f, &err), TS_ERR_LIMIT);
    ck_assert_int_eq(ts_file_open_memory(buf, 4 + 65 * 8, &o64, &f, &err), TS_ERR_LIMIT);
    ck_assert_str_eq(err.message, "shape 0 at byte 0: ndim 65 is above the limit of 64");

    /* ndim 64 of ones (TS_MAX_NDIM itself) is fine, in both layouts */
    buf[0] = 64;
    for (int i = 0; i < 64; i++)
        buf[4 + 4 * i] = 1;
    ck_assert_int_eq(ts_file_open_memory(buf, 4 + 64 * 4, &o32, &f, &err), TS_OK);
    ck_assert_int_eq(ts_shape_ndim(&ts_file_array(f, 0)->shape), 64);
    ck_assert_int_eq(ts_file_array(f, 0)->size, 1);
    ts_file_close(f);
    memset(buf + 4, 0, 64 * 8);
    for (int i = 0; i < 64; i++)
        buf[4 + 8 * i] = 1;
    ck_assert_int_eq(ts_file_open_memory(buf, 4 + 64 * 8, &o64, &f, &err), TS_OK);
    ck_assert_int_eq(ts_shape_ndim(&ts_file_array(f, 0)->shape), 64);
    ts_file_close(f);

    /* a lone partial ndim after a good shape */
    unsigned char two[4 + 2] = {0, 0, 0, 0, 1, 0};
    ck_assert_int_eq(ts_file_open_memory(two, sizeof two, &o32, &f, &err),
                     TS_ERR_TRUNCATED);
    ck_assert_str_eq(err.message, "shape 1 at byte 4: file ends inside the u32 ndim: need 4 "
                                  "bytes, 2 left");
    ck_assert_int_eq(err.offset, 4);
}
END_TEST

Suite *tshape_raw_suite(void)
{
    Suite *s = suite_create("tshape_raw");
    TCase *tc = tcase_create("files");
    tcase_add_loop_test(tc, test_good, 0, (int)N(good));
    tcase_add_loop_test(tc, test_bad, 0, (int)N(bad));
    tcase_add_loop_test(tc, test_truncation, 0, (int)N(trunc_cases));
    tcase_add_test(tc, test_ndim_limits);
    suite_add_tcase(s, tc);
    return s;
}
