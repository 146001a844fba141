/* check_tfckpt.c - the TensorFlow checkpoint reader: the fixtures of
 * gen_tfckpt.py (every dtype, shared key prefixes across restart points and
 * blocks, two shards, a partitioned variable's slices, a big-endian bundle,
 * snappy blocks), the defects' exact messages and offsets, an index read
 * from memory, and truncation and byte-change loops that must never crash. */
#define TS_EXPERIMENTAL_API /* ts_array_read */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "testutil.h"

#define V "/.ATTRIBUTES/VARIABLE_VALUE"

/* The basic bundle, from its plain and its snappy index alike. */
static void check_basic(const char *rel)
{
    ts_file *f = tu_open_fixture(rel, 0);
    ck_assert_int_eq(ts_file_format(f), TS_FORMAT_TFCKPT);
    ck_assert_str_eq(ts_file_version(f), "V2");
    ck_assert_uint_eq(ts_file_count(f), 20);
    const ts_array *a = tu_array_named(f, "dense/kernel" V);
    ck_assert_int_eq(a->dtype, TS_DTYPE_FLOAT32);
    ck_assert_str_eq(a->format_dtype, "DT_FLOAT");
    ck_assert_int_eq(a->data_offset, 0);
    ck_assert_int_eq(a->nbytes, 24);
    ck_assert_int_eq(a->byteorder, '<');
    ck_assert_str_eq(a->storage_key, "model.ckpt.data-00000-of-00001");
    ck_assert_ptr_null(a->note);
    static const double kernel[] = {-1, -0.5, 0, 0.5, 1, 1.5};
    tu_expect_values(f, "dense/kernel" V, kernel, 6);
    a = tu_array_named(f, "bf" V);
    ck_assert_int_eq(a->dtype, TS_DTYPE_BFLOAT16);
    ck_assert_int_eq(a->data_offset, 108);
    static const double bf[] = {0, 0.5, 1, 1.5, 2};
    tu_expect_values(f, "bf" V, bf, 5);
    ck_assert_int_eq(tu_array_named(f, "embedding/embeddings" V)->dtype, TS_DTYPE_FLOAT16);
    ck_assert_str_eq(tu_array_named(f, "embedding/embeddings" V)->format_dtype, "DT_HALF");
    ck_assert_int_eq(tu_array_named(f, "save_counter" V)->dtype, TS_DTYPE_INT64);
    ck_assert_int_eq(ts_shape_ndim(&tu_array_named(f, "save_counter" V)->shape), 0);
    static const double i16[] = {-1, 0, 1};
    tu_expect_values(f, "i16" V, i16, 3);
    a = tu_array_named(f, "q" V);
    ck_assert_int_eq(a->dtype, TS_DTYPE_INT8);
    ck_assert_str_eq(a->note, "quantized qint8 (its range is not in the checkpoint)");
    a = tu_array_named(f, "empty" V);
    ck_assert_int_eq(a->size, 0);
    ck_assert_int_eq(a->data_offset, 230);
    a = tu_array_named(f, "vocab" V);
    ck_assert_int_eq(a->dtype, TS_DTYPE_OBJECT);
    ck_assert_int_eq(a->nbytes, -1);
    ck_assert_int_eq(a->data_offset, -1);
    ck_assert_str_eq(a->note, "DT_STRING data: 10 bytes at byte 246 of "
                              "model.ckpt.data-00000-of-00001 (varint lengths, a masked "
                              "CRC-32C, the bytes)");
    static const double c64[] = {-1, 0, -0.5, 1};
    double v[4];
    ts_error err;
    ck_assert_msg(ts_array_read(f, tu_array_named(f, "c64" V), 0, 2, TS_DTYPE_COMPLEX128, v, &err) == TS_OK,
                  "%s", err.message);
    for (int k = 0; k < 4; k++)
        ck_assert(v[k] == c64[k]);
    ts_file_close(f);
}

START_TEST(test_basic)
{
    check_basic("tfckpt/basic/model.ckpt.index");
}
END_TEST

START_TEST(test_snappy)
{
    check_basic("tfckpt/snappy/model.ckpt.index");
}
END_TEST

START_TEST(test_sharded)
{
    ts_file *f = tu_open_fixture("tfckpt/sharded/model.ckpt.index", 0);
    ck_assert_uint_eq(ts_file_count(f), 6);
    const ts_array *a = tu_array_named(f, "part/w[0:4,:]");
    ck_assert_str_eq(a->storage_key, "model.ckpt.data-00000-of-00002");
    ck_assert_int_eq(a->data_offset, 0);
    ck_assert_str_eq(a->note, "a slice of partitioned variable 'part/w'");
    a = tu_array_named(f, "part/w[4:6,:]");
    ck_assert_str_eq(a->storage_key, "model.ckpt.data-00001-of-00002");
    ck_assert_int_eq(a->data_offset, 0);
    static const double w2[] = {8, 9, 10, 11};
    tu_expect_values(f, "part/w[4:6,:]", w2, 4);
    /* a slice key whose start takes three OrderedCode bytes */
    a = tu_array_named(f, "wide[70000:70002,:]");
    ck_assert_str_eq(a->storage_key, "model.ckpt.data-00001-of-00002");
    ck_assert_int_eq(a->data_offset, 48);
    static const double wide[] = {1, 2, 3, 4};
    tu_expect_values(f, "wide[70000:70002,:]", wide, 4);
    a = tu_array_named(f, "b");
    ck_assert_str_eq(a->storage_key, "model.ckpt.data-00001-of-00002");
    ck_assert_int_eq(a->data_offset, 16);
    static const double b[] = {-2, -1, 0, 1};
    tu_expect_values(f, "b", b, 4);
    ts_file_close(f);
    /* --all: the partitioned variable itself, without data */
    f = tu_open_fixture("tfckpt/sharded/model.ckpt.index", 1);
    ck_assert_uint_eq(ts_file_count(f), 8);
    a = tu_array_named(f, "part/w");
    ck_assert_int_eq(a->data_offset, -1);
    ck_assert_int_eq(a->size, 12);
    ck_assert_str_eq(a->note, "partitioned variable: no data of its own, its values are in 2 "
                              "slices (NAME[start:stop,...])");
    ts_file_close(f);
}
END_TEST

START_TEST(test_bigendian)
{
    ts_file *f = tu_open_fixture("tfckpt/bigendian/model.ckpt.index", 0);
    ck_assert_int_eq(tu_array_named(f, "w")->byteorder, '>');
    static const double w[] = {-1, -0.5, 0, 0.5}, n[] = {-1, 0, 1};
    tu_expect_values(f, "w", w, 4);
    tu_expect_values(f, "n", n, 3);
    ts_file_close(f);
}
END_TEST

static const struct {
    const char *file;
    ts_status status;
    int64_t offset;
    const char *message;
} defects[] = {
    {"tfckpt/bad_crc/model.ckpt.index", TS_ERR_FORMAT, 69,
     "the index block at byte 54: block checksum mismatch (stored 0xcdb26095, computed "
     "0xcdb26094: the index is corrupt)"},
    {"tfckpt/bad_dtype/model.ckpt.index", TS_ERR_DTYPE, 13,
     "entry 'w' at byte 13: DataType 99 is not one tshape knows (DT_FLOAT 1 .. DT_UINT2 32)"},
    {"tfckpt/bad_range/model.ckpt.index", TS_ERR_TRUNCATED, 13,
     "entry 'w' at byte 13: bytes 4..12 of model.ckpt.data-00000-of-00001, which holds 8 "
     "bytes"},
    {"tfckpt/bad_shard/model.ckpt.index", TS_ERR_FORMAT, 13,
     "entry 'w' at byte 13: shard_id 5, but the header says 2 shards"},
    {"tfckpt/bad_size/model.ckpt.index", TS_ERR_FORMAT, 13,
     "entry 'w' at byte 13: its size is 12 bytes, but shape (2,) of float32 needs 8 "
     "(TensorFlow refuses it too)"},
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
    ck_assert_int_eq(ts_file_open(tu_fixture(path, sizeof path,
                                             "tfckpt/bad_missing/model.ckpt.index"),
                                  NULL, &f, &err), TS_ERR_IO);
    ck_assert_str_eq(err.message, "entry 'w' at byte 13: data shard file "
                                  "'model.ckpt.data-00000-of-00001' beside the model is missing");
}
END_TEST

START_TEST(test_memory)
{
    char path[1024];
    size_t len;
    unsigned char *d = tu_read_named("tests/fixtures/tfckpt/sharded/model.ckpt.index", path,
                                     sizeof path, &len);
    ts_file *f;
    ts_error err;
    /* detected by its magic, the shards not looked for */
    ck_assert_int_eq(ts_format_detect(d, len), TS_FORMAT_TFCKPT);
    ck_assert_msg(ts_file_open_memory(d, len, NULL, &f, &err) == TS_OK, "%s", err.message);
    const ts_array *a = tu_array_named(f, "b");
    ck_assert_str_eq(a->storage_key, "PREFIX.data-00001-of-00002");
    ck_assert_int_eq(a->data_offset, 16);
    ck_assert_str_eq(a->note, "data in shard 1 (not checked: the index was read from memory)");
    double v[4];
    ck_assert_int_eq(ts_array_read(f, a, 0, 4, TS_DTYPE_FLOAT64, v, &err), TS_ERR_UNSUPPORTED);
    ts_file_close(f);
    free(d);
}
END_TEST

static const char *const loop_files[] = {"tests/fixtures/tfckpt/basic/model.ckpt.index",
                                         "tests/fixtures/tfckpt/sharded/model.ckpt.index",
                                         "tests/fixtures/tfckpt/snappy/model.ckpt.index"};

START_TEST(test_prefixes_and_changes)
{
    char path[1024];
    size_t len;
    unsigned char *d = tu_read_named(loop_files[_i], path, sizeof path, &len);
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.format = TS_FORMAT_TFCKPT;
    o.want_metadata = 1;
    ck_assert_int_eq(tu_open_exact(d, len, &o, NULL), TS_OK);
    for (size_t n = 0; n < len; n++)
        ck_assert_msg(tu_open_exact(d, n, &o, NULL) != TS_OK, "%s: prefix of %zu bytes accepted",
                      loop_files[_i], n);
    tu_check_byte_changes(d, len, len < 2048 ? len : 2048, &o, NULL, 0);
    free(d);
}
END_TEST

/* CRC-32C, bit by bit (RFC 3720 B.4), the reference for ts__crc32c. */
static uint32_t crc32c_bitwise(const unsigned char *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
    }
    return ~c;
}

START_TEST(test_crc32c)
{
    /* the check value of the CRC catalogue (CRC-32/ISCSI) */
    ck_assert_uint_eq(ts__crc32c(0, "123456789", 9), 0xe3069283u);
    ck_assert_uint_eq(ts__crc32c(0, "", 0), 0);
    enum { N = 70001 };
    unsigned char *b = malloc(N);
    ck_assert_ptr_nonnull(b);
    uint32_t x = 12345;
    for (size_t i = 0; i < N; i++) {
        x = x * 1103515245u + 12345u;
        b[i] = (unsigned char)(x >> 16);
    }
    const uint32_t whole = crc32c_bitwise(b, N);
    ck_assert_uint_eq(ts__crc32c(0, b, N), whole);
    /* unaligned starts and lengths, carrying on, and combining */
    const size_t cuts[] = {0, 1, 3, 7, 8, 9, 4096, 65536, N - 1, N};
    for (size_t k = 0; k < sizeof cuts / sizeof *cuts; k++) {
        size_t c = cuts[k];
        uint32_t a = ts__crc32c(0, b, c), z = ts__crc32c(0, b + c, N - c);
        ck_assert_uint_eq(a, crc32c_bitwise(b, c));
        /* the table path, whichever one this CPU takes */
        ck_assert_uint_eq(ts__crc32c_tables(0, b + c, N - c), z);
        ck_assert_uint_eq(ts__crc32c_tables(ts__crc32c_tables(0, b, c), b + c, N - c), whole);
        ck_assert_uint_eq(ts__crc32c(a, b + c, N - c), whole);
        ck_assert_msg(ts__crc32c_combine(a, z, N - c) == whole, "combine at %zu", c);
    }
    free(b);
}
END_TEST

/* verify --deep: every tensor's CRC-32C against its index entry */
START_TEST(test_deep_crc32c)
{
    char path[1024];
    ts_verify_options o = TS_VERIFY_OPTIONS_INIT;
    o.deep = 1;
    ts_verify *v = NULL;
    ts_error err;
    ck_assert_int_eq(ts_verify_path(tu_fixture(path, sizeof path, "tfckpt/sharded/model.ckpt"),
                                    &o, &v, &err), TS_OK);
    ck_assert_int_eq(ts_verify_verdict(v), TS_VERIFY_OK);
    ck_assert_int_eq(ts_verify_totals_of(v)->crc_checked, 6);
    ts_verify_free(v);
    ck_assert_int_eq(ts_verify_path(tu_fixture(path, sizeof path, "tfckpt/bad_data/model.ckpt"),
                                    &o, &v, &err), TS_OK);
    ck_assert_int_eq(ts_verify_verdict(v), TS_VERIFY_CORRUPT);
    ck_assert_uint_eq(ts_verify_problem_count(v), 1);
    const ts_verify_problem *p = ts_verify_problem_at(v, 0);
    ck_assert_int_eq(p->check, TS_VERIFY_CRC);
    ck_assert_str_eq(p->name, "v");
    ck_assert_int_eq(p->expected, 0x80215773);
    ck_assert_int_eq(p->actual, 0xfa965009);
    ck_assert_str_eq(p->message,
                     "'tests/fixtures/tfckpt/bad_data/model.ckpt.index': tensor 'v' (12 bytes at "
                     "byte 8 of model.ckpt.data-00000-of-00001) has CRC-32C fa965009, its index "
                     "entry says 80215773 (TensorFlow refuses it: checksum does not match)");
    ts_verify_free(v);
    /* without --deep the data is not read */
    o.deep = 0;
    ck_assert_int_eq(ts_verify_path(path, &o, &v, &err), TS_OK);
    ck_assert_int_eq(ts_verify_verdict(v), TS_VERIFY_OK);
    ts_verify_free(v);
}
END_TEST

/* A checkpoint named by its prefix opens its .index (ts__tf_prefix_index). */
START_TEST(test_prefix)
{
    char path[1024];
    ts_file *f;
    ts_error err;
    ck_assert_int_eq(ts_file_open(tu_fixture(path, sizeof path, "tfckpt/sharded/model.ckpt"),
                                  NULL, &f, &err), TS_OK);
    ck_assert_int_eq(ts_file_format(f), TS_FORMAT_TFCKPT);
    ck_assert_uint_eq(ts_file_count(f), 6);
    const double want[] = {8, 9, 10, 11};
    tu_expect_values(f, "part/w[4:6,:]", want, 4);
    ts_file_close(f);
    ck_assert_int_eq(ts_file_open(tu_fixture(path, sizeof path, "tfckpt/sharded/model"), NULL,
                                  &f, &err), TS_ERR_IO);
    ck_assert_msg(strncmp(err.message, "cannot open: ", 13) == 0, "%s", err.message);
}
END_TEST

Suite *tfckpt_suite(void)
{
    Suite *s = suite_create("tfckpt");
    TCase *tc = tcase_create("fixtures");
    tcase_add_test(tc, test_basic);
    tcase_add_test(tc, test_snappy);
    tcase_add_test(tc, test_sharded);
    tcase_add_test(tc, test_bigendian);
    tcase_add_loop_test(tc, test_defects, 0, (int)(sizeof defects / sizeof *defects));
    tcase_add_test(tc, test_missing_shard);
    tcase_add_test(tc, test_memory);
    tcase_add_test(tc, test_crc32c);
    tcase_add_test(tc, test_deep_crc32c);
    tcase_add_test(tc, test_prefix);
    suite_add_tcase(s, tc);
    tc = tcase_create("memory");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_prefixes_and_changes, 0,
                        (int)(sizeof loop_files / sizeof *loop_files));
    suite_add_tcase(s, tc);
    return s;
}
