/*
 * check_args.c - the argument rule of tshape.h's introduction, for every
 * public function: NULL pointers, NULL arrays with a count, zero and
 * out-of-range counts, unknown flag bits and values outside an enum give
 * TS_ERR_INVALID_ARG with a message "<function>: <argument> ..." (and the
 * same status with a NULL error report); functions that return something
 * other than a status return the documented 0 / NULL / "unknown"; free
 * functions accept NULL; nothing crashes (Check runs each test in its own
 * process, so a crash fails the test).
 *
 * tests/cli/args-coverage.test.sh fails when a TS_API function of
 * include/tshape.h is not called in this file.
 */
#define TS_EXPERIMENTAL_API
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static ts_error E;

static int discard(void *user, const char *data, size_t len)
{
    (void)user, (void)data, (void)len;
    return 0;
}
static ts_error *EP; /* &E, then NULL: every EXPECT runs its call twice */

static void expect_(ts_status got, ts_status want, const char *call, const char *msg)
{
    ck_assert_msg(got == want, "%s: status %d (%s), expected %d", call, (int)got,
                  got ? E.message : "", (int)want);
    if (want == TS_OK)
        return;
    ck_assert_msg(E.code == want, "%s: err.code %d, expected %d", call, (int)E.code, (int)want);
    if (msg)
        ck_assert_msg(strcmp(E.message, msg) == 0, "%s: message '%s', expected '%s'", call,
                      E.message, msg);
}

/* `call` must fail with `want` and message `msg` (NULL: any), and return
 * `want` again with a NULL error report. Use it only for calls that fail:
 * the call runs twice. */
#define EXPECT(call, want, msg)                                                \
    do {                                                                       \
        EP = &E;                                                               \
        memset(&E, 0, sizeof E);                                               \
        expect_((call), (want), #call, (msg));                                 \
        EP = NULL;                                                             \
        ck_assert_msg((call) == (want), "%s with err NULL", #call);           \
    } while (0)

#define BAD TS_ERR_INVALID_ARG

static ts_shape S; /* (2,3) */

static void setup(void)
{
    ts_shape_init(&S);
    tu_shape(&S, "(2,3)");
}

static void teardown(void)
{
    ts_shape_free(&S);
}

START_TEST(test_version_and_status)
{
    ck_assert_str_eq(ts_version(), TS_VERSION_STRING);
    ck_assert_str_eq(ts_strerror((ts_status)999), "unknown error");
    ck_assert_str_eq(ts_strerror((ts_status)-1), "unknown error");
    ck_assert_str_eq(ts_strerror(TS_ERR_INVALID_ARG), "invalid argument");
}
END_TEST

START_TEST(test_shape_storage)
{
    ts_shape t = TS_SHAPE_INIT;
    int64_t d[2] = {4, 5}, v = 0;
    int a = 0;
    ts_shape_init(NULL);
    ts_shape_free(NULL);
    ts_shape_move(NULL, &t);
    ts_shape_move(&t, NULL);
    ck_assert_int_eq(ts_shape_ndim(NULL), 0);
    ck_assert_ptr_null(ts_shape_dims(NULL));
    ck_assert_ptr_null(ts_shape_dims_mut(NULL));
    ck_assert_int_eq(ts_shape_equal(NULL, &S), 0);
    ck_assert_int_eq(ts_shape_equal(&S, NULL), 0);
    ck_assert_int_eq(ts_shape_equal(NULL, NULL), 0);

    EXPECT(ts_shape_resize(NULL, 2, EP), BAD, "ts_shape_resize: s is NULL");
    EXPECT(ts_shape_resize(&t, -1, EP), TS_ERR_NDIM, NULL);
    EXPECT(ts_shape_resize(&t, TS_MAX_NDIM + 1, EP), TS_ERR_NDIM, NULL);
    EXPECT(ts_shape_assign(NULL, d, 2, EP), BAD, "ts_shape_assign: s is NULL");
    EXPECT(ts_shape_assign(&t, NULL, 2, EP), BAD, "ts_shape_assign: dims is NULL but ndim is 2");
    EXPECT(ts_shape_assign(&t, d, -1, EP), TS_ERR_NDIM, NULL);
    ck_assert_int_eq(ts_shape_assign(&t, NULL, 0, NULL), TS_OK);
    EXPECT(ts_shape_copy(NULL, &S, EP), BAD, "ts_shape_copy: dst is NULL");
    EXPECT(ts_shape_copy(&t, NULL, EP), BAD, "ts_shape_copy: src is NULL");
    EXPECT(ts_shape_dim(NULL, 0, &v, EP), BAD, "ts_shape_dim: s is NULL");
    EXPECT(ts_shape_dim(&S, 0, NULL, EP), BAD, "ts_shape_dim: out is NULL");
    EXPECT(ts_shape_dim(&S, 2, &v, EP), TS_ERR_AXIS, NULL);
    EXPECT(ts_axis_normalize(0, 2, NULL, EP), BAD, "ts_axis_normalize: out is NULL");
    EXPECT(ts_axis_normalize(0, -1, &a, EP), TS_ERR_NDIM, NULL);
    EXPECT(ts_axis_normalize(0, TS_MAX_NDIM + 1, &a, EP), TS_ERR_NDIM, NULL);
    EXPECT(ts_axis_normalize(INT64_MIN, 2, &a, EP), TS_ERR_AXIS, NULL);
    ts_shape_free(&t);
}
END_TEST

START_TEST(test_shape_text)
{
    ts_shape t = TS_SHAPE_INIT;
    int64_t v = 0;
    char buf[16];
    EXPECT(ts_shape_parse(NULL, 5, 0, &t, NULL, EP), BAD,
           "ts_shape_parse: text is NULL but len is 5");
    EXPECT(ts_shape_parse("(2,3)", 5, 0x80, &t, NULL, EP), BAD,
           "ts_shape_parse: unknown flag bits 0x80 in flags (known: 0x1)");
    EXPECT(ts_shape_parse("(2,3)", 5, 0, NULL, NULL, EP), BAD, "ts_shape_parse: out is NULL");
    EXPECT(ts_shape_parse(NULL, 0, 0, &t, NULL, EP), TS_ERR_PARSE, NULL);
    EXPECT(ts_parse_i64(NULL, 1, 0, &v, EP), BAD, "ts_parse_i64: text is NULL but len is 1");
    EXPECT(ts_parse_i64("1", 1, 0x10, &v, EP), BAD,
           "ts_parse_i64: unknown flag bits 0x10 in flags (known: 0x1)");
    EXPECT(ts_parse_i64("1", 1, 0, NULL, EP), BAD, "ts_parse_i64: out is NULL");
    EXPECT(ts_parse_i64_list(NULL, 1, 0, &t, EP), BAD,
           "ts_parse_i64_list: text is NULL but len is 1");
    EXPECT(ts_parse_i64_list("1", 1, ~0u, &t, EP), BAD,
           "ts_parse_i64_list: unknown flag bits 0xfffffffe in flags (known: 0x1)");
    EXPECT(ts_parse_i64_list("1", 1, 0, NULL, EP), BAD, "ts_parse_i64_list: out is NULL");

    /* size_t results: 0, and "" written where there is room */
    memcpy(buf, "xxxx", 5);
    ck_assert_uint_eq(ts_shape_format(NULL, 0, buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "");
    memcpy(buf, "xxxx", 5);
    ck_assert_uint_eq(ts_shape_format(&S, 0x4, buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "");
    ck_assert_uint_eq(ts_shape_format(&S, 0, NULL, 8), 0);
    ck_assert_uint_eq(ts_shape_format(&S, 0, NULL, 0), 5); /* the size query still works */
    ts_shape_free(&t);
}
END_TEST

START_TEST(test_shape_arith)
{
    int64_t v = 0, two[2], three[3];
    unsigned char buf[64];
    size_t n = 0;
    ts_shape t = TS_SHAPE_INIT;
    EXPECT(ts_shape_size(NULL, &v, EP), BAD, "ts_shape_size: s is NULL");
    EXPECT(ts_shape_size(&S, NULL, EP), BAD, "ts_shape_size: out is NULL");
    EXPECT(ts_shape_prod(NULL, 0, 1, &v, EP), BAD, "ts_shape_prod: s is NULL");
    EXPECT(ts_shape_prod(&S, 0, 1, NULL, EP), BAD, "ts_shape_prod: out is NULL");
    EXPECT(ts_shape_flat2d(NULL, two, EP), BAD, "ts_shape_flat2d: s is NULL");
    EXPECT(ts_shape_flat2d(&S, NULL, EP), BAD, "ts_shape_flat2d: out is NULL");
    EXPECT(ts_shape_flat3d(NULL, 0, 0, three, EP), BAD, "ts_shape_flat3d: s is NULL");
    EXPECT(ts_shape_flat3d(&S, 0, 0, NULL, EP), BAD, "ts_shape_flat3d: out is NULL");
    EXPECT(ts_shape_get(NULL, 2, two, EP), BAD, "ts_shape_get: s is NULL");
    EXPECT(ts_shape_get(&S, 2, NULL, EP), BAD, "ts_shape_get: out is NULL but ndim is 2");
    EXPECT(ts_shape_get(&S, -1, two, EP), TS_ERR_NDIM, NULL);

    /* issue 9 defect 8: this call used to crash */
    EXPECT(ts_shape_save(&S, TS_LAYOUT_MXNET, NULL, 100, &n, EP), BAD,
           "ts_shape_save: buf is NULL but cap is 100");
    EXPECT(ts_shape_save(NULL, TS_LAYOUT_MXNET, buf, sizeof buf, &n, EP), BAD,
           "ts_shape_save: s is NULL");
    EXPECT(ts_shape_save(&S, (ts_shape_layout)7, buf, sizeof buf, &n, EP), BAD,
           "ts_shape_save: layout 7 is not a ts_shape_layout");
    EXPECT(ts_shape_save(&S, (ts_shape_layout)-1, buf, sizeof buf, &n, EP), BAD,
           "ts_shape_save: layout -1 is not a ts_shape_layout");
    ck_assert_int_eq(ts_shape_save(&S, TS_LAYOUT_MXNET, buf, sizeof buf, NULL, NULL), TS_OK);
    EXPECT(ts_shape_load(NULL, 20, TS_LAYOUT_MXNET, &t, NULL, EP), BAD,
           "ts_shape_load: buf is NULL but len is 20");
    EXPECT(ts_shape_load(buf, 20, (ts_shape_layout)2, &t, NULL, EP), BAD,
           "ts_shape_load: layout 2 is not a ts_shape_layout");
    EXPECT(ts_shape_load(buf, 20, TS_LAYOUT_MXNET, NULL, NULL, EP), BAD,
           "ts_shape_load: out is NULL");
    EXPECT(ts_shape_load(NULL, 0, TS_LAYOUT_MXNET, &t, NULL, EP), TS_ERR_TRUNCATED, NULL);
    ts_shape_free(&t);
}
END_TEST

START_TEST(test_dtypes)
{
    ts_dtype dt = TS_DTYPE_UNKNOWN;
    ts_descr d;
    char buf[8];
    static const int bad[] = {999, -7, TS_DTYPE_COUNT, -2};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ck_assert_str_eq(ts_dtype_name((ts_dtype)bad[i]), "unknown");
        ck_assert_int_eq(ts_dtype_bits((ts_dtype)bad[i]), 0);
        ck_assert_int_eq(ts_dtype_itemsize((ts_dtype)bad[i]), 0);
        ck_assert_uint_eq(ts_descr_format((ts_dtype)bad[i], '<', buf, sizeof buf), 0);
    }
    EXPECT(ts_dtype_from_string(NULL, &dt, EP), BAD, "ts_dtype_from_string: text is NULL");
    EXPECT(ts_dtype_from_string("f4", NULL, EP), BAD, "ts_dtype_from_string: out is NULL");
    EXPECT(ts_dtype_from_mshadow_flag(0, NULL, EP), BAD, "ts_dtype_from_mshadow_flag: out is NULL");
    EXPECT(ts_dtype_from_mshadow_flag(-1, &dt, EP), TS_ERR_DTYPE, NULL);
    EXPECT(ts_dtype_from_mshadow_flag(13, &dt, EP), TS_ERR_DTYPE, NULL);
    EXPECT(ts_descr_parse(NULL, &d, EP), BAD, "ts_descr_parse: descr is NULL");
    EXPECT(ts_descr_parse("<f4", NULL, EP), BAD, "ts_descr_parse: out is NULL");

    /* byte orders other than < > | = write nothing (this wrote "Qf4") */
    memcpy(buf, "xxxx", 5);
    ck_assert_uint_eq(ts_descr_format(TS_DTYPE_FLOAT32, 'Q', buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "");
    ck_assert_uint_eq(ts_descr_format(TS_DTYPE_FLOAT32, 0, buf, sizeof buf), 0);
    ck_assert_uint_eq(ts_descr_format(TS_DTYPE_FLOAT32, '<', NULL, 4), 0);
    ck_assert_uint_eq(ts_descr_format(TS_DTYPE_FLOAT32, '=', buf, sizeof buf), 3);
    ck_assert_str_eq(buf, "=f4");
}
END_TEST

START_TEST(test_blobs)
{
    ts_blob b, out;
    int64_t v = 0;
    char data[8];
    ts_blob_free(NULL);
    ck_assert_int_eq(ts_blob_ndim(NULL), 0);
    ck_assert_int_eq(ts_blob_is_contiguous(NULL), 0);
    EXPECT(ts_blob_init(NULL, data, &S, TS_DEV_CPU, TS_DTYPE_FLOAT32, EP), BAD,
           "ts_blob_init: b is NULL");
    EXPECT(ts_blob_init(&b, data, NULL, TS_DEV_CPU, TS_DTYPE_FLOAT32, EP), BAD,
           "ts_blob_init: shape is NULL");
    ts_blob_free(&b); /* a failed init leaves an empty blob */
    EXPECT(ts_blob_init(&b, data, &S, 0, TS_DTYPE_FLOAT32, EP), BAD,
           "ts_blob_init: dev_mask 0 is neither TS_DEV_CPU nor TS_DEV_GPU");
    EXPECT(ts_blob_init(&b, data, &S, TS_DEV_CPU, (ts_dtype)999, EP), BAD,
           "ts_blob_init: dtype 999 is not a ts_dtype");
    EXPECT(ts_blob_init(&b, data, &S, TS_DEV_CPU, (ts_dtype)-7, EP), BAD,
           "ts_blob_init: dtype -7 is not a ts_dtype");
    ts_blob_free(&b);

    ck_assert_int_eq(ts_blob_init(&b, data, &S, TS_DEV_CPU, TS_DTYPE_UNKNOWN, NULL), TS_OK);
    ck_assert_int_eq(ts_blob_init(&out, NULL, &S, TS_DEV_CPU, TS_DTYPE_UNKNOWN, NULL), TS_OK);
    EXPECT(ts_blob_size(NULL, &v, EP), BAD, "ts_blob_size: b is NULL");
    EXPECT(ts_blob_size(&b, NULL, EP), BAD, "ts_blob_size: out is NULL");
    EXPECT(ts_blob_reshape(NULL, &S, &out, EP), BAD, "ts_blob_reshape: b is NULL");
    EXPECT(ts_blob_reshape(&b, NULL, &out, EP), BAD, "ts_blob_reshape: shape is NULL");
    EXPECT(ts_blob_reshape(&b, &S, NULL, EP), BAD, "ts_blob_reshape: out is NULL");
    EXPECT(ts_blob_flat2d(NULL, &out, EP), BAD, "ts_blob_flat2d: b is NULL");
    EXPECT(ts_blob_flat2d(&b, NULL, EP), BAD, "ts_blob_flat2d: out is NULL");
    EXPECT(ts_blob_flat3d(NULL, 0, 0, &out, EP), BAD, "ts_blob_flat3d: b is NULL");
    EXPECT(ts_blob_flat3d(&b, 0, 0, NULL, EP), BAD, "ts_blob_flat3d: out is NULL");
    ts_blob_free(&b);
    ts_blob_free(&out);
}
END_TEST

START_TEST(test_formats)
{
    ts_format f = TS_FORMAT_AUTO;
    ck_assert_str_eq(ts_format_name((ts_format)99), "unknown");
    ck_assert_str_eq(ts_format_name((ts_format)-1), "unknown");
    ck_assert_int_eq(ts_format_detect(NULL, 64), TS_FORMAT_AUTO);
    ck_assert_int_eq(ts_format_detect(NULL, 0), TS_FORMAT_AUTO);
    EXPECT(ts_format_from_name(NULL, &f, EP), BAD, "ts_format_from_name: name is NULL");
    EXPECT(ts_format_from_name("npy", NULL, EP), BAD, "ts_format_from_name: out is NULL");
    EXPECT(ts_format_from_name("bogus", &f, EP), BAD, NULL);
}
END_TEST

/* A 128-byte npy of float32 (2,), built in memory. */
static size_t tiny_npy(unsigned char *buf)
{
    static const char dict[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
    size_t hlen = 128 - 10;
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (unsigned char)hlen;
    buf[9] = 0;
    memset(buf + 10, ' ', hlen);
    memcpy(buf + 10, dict, sizeof dict - 1);
    buf[10 + hlen - 1] = '\n';
    memset(buf + 128, 0, 8);
    return 136;
}

START_TEST(test_files)
{
    unsigned char img[136];
    size_t n = tiny_npy(img);
    ts_file *f = (ts_file *)1;
    const char *key = "k", *val = "v";

    ts_file_close(NULL);
    ck_assert_int_eq(ts_file_format(NULL), TS_FORMAT_AUTO);
    ck_assert_ptr_null(ts_file_version(NULL));
    ck_assert_int_eq(ts_file_nbytes(NULL), 0);
    ck_assert_uint_eq(ts_file_count(NULL), 0);
    ck_assert_ptr_null(ts_file_array(NULL, 0));
    ck_assert_uint_eq(ts_file_metadata_count(NULL), 0);
    ck_assert_int_eq(ts_file_metadata(NULL, 0, &key, &val), 0);
    ck_assert_str_eq(key, "k");
    uint64_t requests = 9, bytes = 9;
    ts_file_io_stats(NULL, &requests, &bytes);
    ck_assert_uint_eq(requests, 0);
    ck_assert_uint_eq(bytes, 0);
    ts_file_io_stats(NULL, NULL, NULL);

    EXPECT(ts_file_open(NULL, NULL, &f, EP), BAD, "ts_file_open: path is NULL");
    ck_assert_ptr_null(f);
    EXPECT(ts_file_open("tests/fixtures/npy/float32.npy", NULL, NULL, EP), BAD,
           "ts_file_open: out is NULL");
    EXPECT(ts_file_open_memory(NULL, 8, NULL, &f, EP), BAD,
           "ts_file_open_memory: data is NULL but len is 8");
    EXPECT(ts_file_open_memory(img, n, NULL, NULL, EP), BAD, "ts_file_open_memory: out is NULL");
    EXPECT(ts_file_open_memory(NULL, 0, NULL, &f, EP), TS_ERR_FORMAT, NULL);

    /* the options struct: struct_size, then the values of its fields */
    ts_open_options o;
    memset(&o, 0, sizeof o);
    EXPECT(ts_file_open_memory(img, n, &o, &f, EP), BAD, NULL);
    ck_assert_msg(strncmp(E.message, "ts_file_open_memory: opts->struct_size is 0: initialise "
                          "the options with TS_OPEN_OPTIONS_INIT", 86) == 0, "%s", E.message);
    EXPECT(ts_file_open("tests/fixtures/npy/float32.npy", &o, &f, EP), BAD, NULL);
    ck_assert_msg(strncmp(E.message, "ts_file_open: opts->struct_size is 0", 36) == 0, "%s",
                  E.message);
    o = (ts_open_options)TS_OPEN_OPTIONS_INIT;
    o.format = (ts_format)99;
    EXPECT(ts_file_open_memory(img, n, &o, &f, EP), BAD,
           "ts_file_open_memory: opts->format 99 is not a ts_format with a reader");
    o.format = TS_FORMAT_AUTO;
    o.want_metadata = 2;
    EXPECT(ts_file_open_memory(img, n, &o, &f, EP), BAD,
           "ts_file_open_memory: opts->want_metadata is 2, not 0 or 1");
    o.want_metadata = 0;
    o.gguf_stored_order = -1;
    EXPECT(ts_file_open_memory(img, n, &o, &f, EP), BAD,
           "ts_file_open_memory: opts->gguf_stored_order is -1, not 0 or 1");
    o.gguf_stored_order = 0;
    o.want_activations = 3;
    EXPECT(ts_file_open_memory(img, n, &o, &f, EP), BAD,
           "ts_file_open_memory: opts->want_activations is 3, not 0 or 1");
    o.want_activations = 0;

    /* a newer caller's bigger struct: fine while the unknown tail is 0 */
    unsigned char big[sizeof(ts_open_options) + 16];
    memset(big, 0, sizeof big);
    memcpy(big, &o, sizeof o);
    ts_open_options *bo = (ts_open_options *)(void *)big;
    bo->struct_size = sizeof big;
    ck_assert_int_eq(ts_file_open_memory(img, n, bo, &f, NULL), TS_OK);
    ck_assert_uint_eq(ts_file_count(f), 1);
    ts_file_close(f);
    big[sizeof o + 3] = 1;
    EXPECT(ts_file_open_memory(img, n, bo, &f, EP), TS_ERR_UNSUPPORTED, NULL);
    ck_assert_ptr_null(f);
    /* the size of the first version is the smallest accepted */
    o.struct_size = offsetof(ts_open_options, want_metadata) + sizeof(int);
    ck_assert_int_eq(ts_file_open_memory(img, n, &o, &f, NULL), TS_OK);
    ts_file_close(f);
    o.struct_size = offsetof(ts_open_options, want_metadata);
    EXPECT(ts_file_open_memory(img, n, &o, &f, EP), BAD, NULL);

    /* accessors of an open file with bad indices or NULL out-parameters */
    ck_assert_int_eq(ts_file_open_memory(img, n, NULL, &f, NULL), TS_OK);
    ck_assert_ptr_null(ts_file_array(f, 1));
    ck_assert_int_eq(ts_file_metadata(f, 0, NULL, &val), 0);
    ck_assert_int_eq(ts_file_metadata(f, 0, &key, NULL), 0);
    ck_assert_int_eq(ts_file_metadata(f, 0, &key, &val), 0);
    EXPECT(ts_file_metadata_write(f, 0, discard, NULL, EP), BAD,
           "no metadata entry 0 (the file has 0)");
    EXPECT(ts_file_metadata_write(NULL, 0, discard, NULL, EP), BAD,
           "ts_file_metadata_write: f is NULL");
    EXPECT(ts_file_metadata_write(f, 0, NULL, NULL, EP), BAD,
           "ts_file_metadata_write: write is NULL");
    ts_file_close(f);

    /* the reader table: rows in range, NULL past it and for unknown ids */
    ck_assert_uint_ge(ts_format_count(), 7);
    ck_assert_ptr_nonnull(ts_format_info_at(0));
    ck_assert_ptr_null(ts_format_info_at(ts_format_count()));
    ck_assert_ptr_null(ts_format_info_of(TS_FORMAT_AUTO));
    ck_assert_ptr_null(ts_format_info_of((ts_format)999));
    ck_assert_str_eq(ts_format_info_of(TS_FORMAT_NPY)->name, "npy");
}
END_TEST

START_TEST(test_layout_ops)
{
    ts_shape t = TS_SHAPE_INIT;
    const ts_shape *two[2] = {&S, NULL};
    int64_t ax[3] = {0, 1, 2}, st[2] = {3, 1}, flat = 0;
    ts_index_mode mode = TS_INDEX_RAISE, badmode = (ts_index_mode)3;

    EXPECT(ts_reshape(NULL, &S, 0, &t, EP), BAD, "ts_reshape: in is NULL");
    EXPECT(ts_reshape(&S, NULL, 0, &t, EP), BAD, "ts_reshape: target is NULL");
    EXPECT(ts_reshape(&S, &S, 0, NULL, EP), BAD, "ts_reshape: out is NULL");
    EXPECT(ts_reshape(&S, &S, 0x4, &t, EP), BAD,
           "ts_reshape: unknown flag bits 0x4 in flags (known: 0x3)");
    EXPECT(ts_reshape(&S, &S, TS_RESHAPE_REVERSE, &t, EP), BAD, NULL);

    EXPECT(ts_broadcast(NULL, 2, &t, EP), BAD, "ts_broadcast: shapes is NULL but n is 2");
    EXPECT(ts_broadcast(two, 2, &t, EP), BAD, "ts_broadcast: shapes[1] is NULL");
    ck_assert_int_eq(E.index, 1);
    EXPECT(ts_broadcast(two, 1, NULL, EP), BAD, "ts_broadcast: out is NULL");
    ck_assert_int_eq(ts_broadcast(NULL, 0, &t, NULL), TS_OK); /* () */
    ck_assert_int_eq(ts_shape_ndim(&t), 0);

    EXPECT(ts_transpose(NULL, NULL, 0, &t, EP), BAD, "ts_transpose: in is NULL");
    EXPECT(ts_transpose(&S, ax, 2, NULL, EP), BAD, "ts_transpose: out is NULL");
    EXPECT(ts_transpose(&S, ax, 3, &t, EP), TS_ERR_NDIM, NULL);
    EXPECT(ts_squeeze(NULL, NULL, 0, &t, EP), BAD, "ts_squeeze: in is NULL");
    EXPECT(ts_squeeze(&S, NULL, 0, NULL, EP), BAD, "ts_squeeze: out is NULL");
    EXPECT(ts_expand_dims(NULL, ax, 1, &t, EP), BAD, "ts_expand_dims: in is NULL");
    EXPECT(ts_expand_dims(&S, NULL, 1, &t, EP), BAD,
           "ts_expand_dims: axes is NULL but naxes is 1");
    EXPECT(ts_expand_dims(&S, ax, 1, NULL, EP), BAD, "ts_expand_dims: out is NULL");
    EXPECT(ts_expand_dims(&S, ax, (size_t)-1, &t, EP), TS_ERR_NDIM, NULL);
    EXPECT(ts_moveaxis(NULL, ax, ax, 1, &t, EP), BAD, "ts_moveaxis: in is NULL");
    EXPECT(ts_moveaxis(&S, NULL, ax, 1, &t, EP), BAD, "ts_moveaxis: src is NULL but n is 1");
    EXPECT(ts_moveaxis(&S, ax, NULL, 1, &t, EP), BAD, "ts_moveaxis: dst is NULL but n is 1");
    EXPECT(ts_moveaxis(&S, ax, ax, 1, NULL, EP), BAD, "ts_moveaxis: out is NULL");
    EXPECT(ts_flatten(NULL, 0, -1, &t, EP), BAD, "ts_flatten: in is NULL");
    EXPECT(ts_flatten(&S, 0, -1, NULL, EP), BAD, "ts_flatten: out is NULL");

    EXPECT(ts_strides(NULL, 4, 'C', st, EP), BAD, "ts_strides: shape is NULL");
    EXPECT(ts_strides(&S, 4, 'C', NULL, EP), BAD,
           "ts_strides: strides_out is NULL but shape->ndim is 2");
    EXPECT(ts_strides(&S, 4, 'X', st, EP), BAD, NULL);
    EXPECT(ts_strides(&S, 0, 'C', st, EP), TS_ERR_VALUE, NULL);
    ck_assert_int_eq(ts_is_c_contiguous(NULL, st, 1), 0);
    ck_assert_int_eq(ts_is_c_contiguous(&S, NULL, 1), 0);
    ck_assert_int_eq(ts_is_f_contiguous(NULL, st, 1), 0);
    ck_assert_int_eq(ts_is_f_contiguous(&S, NULL, 1), 0);
    ck_assert_int_eq(ts_is_c_contiguous(&S, st, 0), 0);
    ck_assert_int_eq(ts_is_channels_last(NULL, st, 1), 0);
    ck_assert_int_eq(ts_is_channels_last_3d(NULL, st, 1), 0);
    tu_shape(&t, "(1,2,3,4)");
    ck_assert_int_eq(ts_is_channels_last(&t, NULL, 1), 0);
    tu_shape(&t, "(1,2,3,4,5)");
    ck_assert_int_eq(ts_is_channels_last_3d(&t, NULL, 1), 0);
    ck_assert_int_eq(ts_is_c_contiguous(&S, st, 1), 1);

    int64_t ost[2];
    EXPECT(ts_view_strides(NULL, st, &S, &t, ost, EP), BAD, "ts_view_strides: shape is NULL");
    EXPECT(ts_view_strides(&S, NULL, &S, &t, ost, EP), BAD,
           "ts_view_strides: strides is NULL but shape->ndim is 2");
    EXPECT(ts_view_strides(&S, st, NULL, &t, ost, EP), BAD, "ts_view_strides: target is NULL");
    EXPECT(ts_view_strides(&S, st, &S, NULL, ost, EP), BAD,
           "ts_view_strides: out_shape is NULL");
    EXPECT(ts_view_strides(&S, st, &S, &t, NULL, EP), BAD,
           "ts_view_strides: out_strides is NULL but target->ndim is 2");

    EXPECT(ts_ravel_index(NULL, ax, 2, 'C', NULL, 0, &flat, EP), BAD,
           "ts_ravel_index: shape is NULL");
    EXPECT(ts_ravel_index(&S, NULL, 2, 'C', NULL, 0, &flat, EP), BAD,
           "ts_ravel_index: index is NULL but nindex is 2");
    EXPECT(ts_ravel_index(&S, ax, 2, 'C', NULL, 1, &flat, EP), BAD,
           "ts_ravel_index: modes is NULL but nmodes is 1");
    EXPECT(ts_ravel_index(&S, ax, 2, 'C', NULL, 0, NULL, EP), BAD,
           "ts_ravel_index: flat is NULL");
    EXPECT(ts_ravel_index(&S, ax, 2, 'K', NULL, 0, &flat, EP), BAD, NULL);
    EXPECT(ts_ravel_index(&S, ax, 2, 'C', &badmode, 1, &flat, EP), BAD, NULL);
    EXPECT(ts_ravel_index(&S, ax, 2, 'C', &mode, 3, &flat, EP), BAD, NULL);
    EXPECT(ts_unravel_index(NULL, 0, 'C', ax, EP), BAD, "ts_unravel_index: shape is NULL");
    EXPECT(ts_unravel_index(&S, 0, 'C', NULL, EP), BAD,
           "ts_unravel_index: index_out is NULL but shape->ndim is 2");
    EXPECT(ts_unravel_index(&S, 0, 'Z', ax, EP), BAD, NULL);
    ts_shape_free(&t);
}
END_TEST

START_TEST(test_slices_and_iter)
{
    ts_shape t = TS_SHAPE_INIT, o = TS_SHAPE_INIT;
    int64_t b[2] = {0, 0}, e[2] = {1, 1};
    ts_index_iter it;
    EXPECT(ts_shape_slice(NULL, b, 2, e, 2, &t, &o, EP), BAD, "ts_shape_slice: s is NULL");
    EXPECT(ts_shape_slice(&S, NULL, 2, e, 2, &t, &o, EP), BAD,
           "ts_shape_slice: begin is NULL but nbegin is 2");
    EXPECT(ts_shape_slice(&S, b, 2, NULL, 2, &t, &o, EP), BAD,
           "ts_shape_slice: end is NULL but nend is 2");
    EXPECT(ts_shape_slice(&S, b, 2, e, 2, NULL, &o, EP), BAD, "ts_shape_slice: out is NULL");
    EXPECT(ts_shape_slice(&S, b, 3, e, 3, &t, &o, EP), TS_ERR_NDIM, NULL);
    EXPECT(ts_shape_chip(NULL, b, 1, NULL, 0, &t, NULL, EP), BAD, "ts_shape_chip: s is NULL");
    EXPECT(ts_shape_chip(&S, NULL, 1, NULL, 0, &t, NULL, EP), BAD,
           "ts_shape_chip: begin is NULL but nbegin is 1");
    EXPECT(ts_shape_chip(&S, b, 1, NULL, 1, &t, NULL, EP), BAD,
           "ts_shape_chip: end is NULL but nend is 1");
    EXPECT(ts_shape_chip(&S, b, 1, NULL, 0, NULL, NULL, EP), BAD, "ts_shape_chip: out is NULL");
    EXPECT(ts_index_iter_init(NULL, &S, NULL, 0, EP), BAD, "ts_index_iter_init: it is NULL");
    EXPECT(ts_index_iter_init(&it, NULL, NULL, 0, EP), BAD, "ts_index_iter_init: s is NULL");
    EXPECT(ts_index_iter_init(&it, &S, NULL, 2, EP), BAD,
           "ts_index_iter_init: origin is NULL but norigin is 2");
    ck_assert_int_eq(ts_index_iter_next(NULL), 0);
    memset(&it, 0xff, sizeof it); /* garbage: never initialised */
    ck_assert_int_eq(ts_index_iter_next(&it), 0);
    ts_shape_free(&t);
    ts_shape_free(&o);
}
END_TEST

START_TEST(test_patterns)
{
    ts_shape t = TS_SHAPE_INIT;
    const char *labels[2] = {"i,j", NULL};
    ts_einops *e = (ts_einops *)1;
    ts_axis_size sz = {"a", 1, 2}, ax[TS_MAX_NDIM];
    size_t count = 0;

    EXPECT(ts_einsum_shape(NULL, &S, 1, &t, EP), BAD, "ts_einsum_shape: subscripts is NULL");
    EXPECT(ts_einsum_shape("ij", NULL, 1, &t, EP), BAD,
           "ts_einsum_shape: operands is NULL but noperands is 1");
    EXPECT(ts_einsum_shape("ij", &S, 1, NULL, EP), BAD, "ts_einsum_shape: out is NULL");
    EXPECT(ts_einsum_shape("ij", &S, 0, &t, EP), BAD, NULL);
    ts_shape ops[2];
    ops[0] = S; /* shallow copies: read only */
    ops[1] = S;
    EXPECT(ts_einsum_shape("ij,jkl", ops, 2, &t, EP), TS_ERR_NDIM, NULL);
    ck_assert_int_eq(E.index, 1); /* operand 1 has 2 dims for 3 subscripts */

    EXPECT(ts_label_compose(NULL, labels, &S, 1, &t, EP), BAD,
           "ts_label_compose: result_labels is NULL");
    EXPECT(ts_label_compose("i", NULL, &S, 1, &t, EP), BAD,
           "ts_label_compose: labels is NULL but ninputs is 1");
    EXPECT(ts_label_compose("i", labels, NULL, 1, &t, EP), BAD,
           "ts_label_compose: shapes is NULL but ninputs is 1");
    EXPECT(ts_label_compose("i", labels, &S, 1, NULL, EP), BAD, "ts_label_compose: out is NULL");
    ts_shape two[2];
    two[0] = S;
    two[1] = S;
    EXPECT(ts_label_compose("i", labels, two, 2, &t, EP), BAD,
           "ts_label_compose: labels[1] is NULL");
    ck_assert_int_eq(E.index, 1);
    EXPECT(ts_label_compose("i", labels, &S, 0, &t, EP), BAD, NULL);

    EXPECT(ts_einops_compile(TS_EINOPS_REARRANGE, "a b -> b a", NULL, 0, NULL, EP), BAD,
           "ts_einops_compile: out is NULL");
    EXPECT(ts_einops_compile((ts_einops_op)9, "a b -> b a", NULL, 0, &e, EP), BAD,
           "ts_einops_compile: op 9 is not a ts_einops_op");
    ck_assert_ptr_null(e);
    EXPECT(ts_einops_compile(TS_EINOPS_REARRANGE, NULL, NULL, 0, &e, EP), BAD,
           "ts_einops_compile: pattern is NULL");
    EXPECT(ts_einops_compile(TS_EINOPS_REARRANGE, "a b -> b a", NULL, 1, &e, EP), BAD,
           "ts_einops_compile: sizes is NULL but nsizes is 1");
    ck_assert_int_eq(ts_einops_compile(TS_EINOPS_REARRANGE, "a b -> b a", &sz, 0, &e, NULL),
                     TS_OK);
    EXPECT(ts_einops_apply(NULL, &S, &t, EP), BAD, "ts_einops_apply: e is NULL");
    EXPECT(ts_einops_apply(e, NULL, &t, EP), BAD, "ts_einops_apply: in is NULL");
    EXPECT(ts_einops_apply(e, &S, NULL, EP), BAD, "ts_einops_apply: out is NULL");
    ts_einops_free(e);
    ts_einops_free(NULL);
    EXPECT(ts_einops_shape((ts_einops_op)-1, "a -> a", &S, NULL, 0, &t, EP), BAD,
           "ts_einops_shape: op -1 is not a ts_einops_op");
    EXPECT(ts_einops_shape(TS_EINOPS_REDUCE, NULL, &S, NULL, 0, &t, EP), BAD,
           "ts_einops_shape: pattern is NULL");
    EXPECT(ts_einops_shape(TS_EINOPS_REDUCE, "a b -> a", NULL, NULL, 0, &t, EP), BAD,
           "ts_einops_shape: in is NULL");
    EXPECT(ts_einops_shape(TS_EINOPS_REDUCE, "a b -> a", &S, NULL, 2, &t, EP), BAD,
           "ts_einops_shape: sizes is NULL but nsizes is 2");
    EXPECT(ts_einops_shape(TS_EINOPS_REDUCE, "a b -> a", &S, NULL, 0, NULL, EP), BAD,
           "ts_einops_shape: out is NULL");
    EXPECT(ts_einops_parse_shape(NULL, &S, ax, &count, EP), BAD,
           "ts_einops_parse_shape: pattern is NULL");
    EXPECT(ts_einops_parse_shape("a b", NULL, ax, &count, EP), BAD,
           "ts_einops_parse_shape: s is NULL");
    EXPECT(ts_einops_parse_shape("a b", &S, NULL, &count, EP), BAD,
           "ts_einops_parse_shape: out is NULL");
    EXPECT(ts_einops_parse_shape("a b", &S, ax, NULL, EP), BAD,
           "ts_einops_parse_shape: count is NULL");

    int64_t old = 0, now = 0;
    int changed = 0;
    EXPECT(ts_caffe2_extend(NULL, 1, &t, EP), BAD, "ts_caffe2_extend: s is NULL");
    EXPECT(ts_caffe2_extend(&S, 1, NULL, EP), BAD, "ts_caffe2_extend: out is NULL");
    EXPECT(ts_caffe2_extend(&S, -1, &t, EP), TS_ERR_VALUE, NULL);
    EXPECT(ts_caffe2_shrink(NULL, 1, &t, EP), BAD, "ts_caffe2_shrink: s is NULL");
    EXPECT(ts_caffe2_shrink(&S, 1, NULL, EP), BAD, "ts_caffe2_shrink: out is NULL");
    EXPECT(ts_caffe2_resize(NULL, &S, &t, &old, &now, &changed, EP), BAD,
           "ts_caffe2_resize: s is NULL");
    EXPECT(ts_caffe2_resize(&S, NULL, &t, &old, &now, &changed, EP), BAD,
           "ts_caffe2_resize: new_dims is NULL");
    EXPECT(ts_caffe2_resize(&S, &S, NULL, &old, &now, &changed, EP), BAD,
           "ts_caffe2_resize: out is NULL");
    ck_assert_int_eq(ts_caffe2_resize(&S, &S, &t, NULL, NULL, NULL, NULL), TS_OK);
    ts_shape_free(&t);
}
END_TEST

START_TEST(test_jagged)
{
    ts_jagged *j = (ts_jagged *)1, *k = NULL;
    ts_shape t = TS_SHAPE_INIT;
    int64_t v = 0, idx[1] = {0}, layers[2] = {1, 1}, elems[2];
    char buf[8];
    ts_jagged_free(NULL);
    ck_assert_int_eq(ts_jagged_rank(NULL), 0);
    ck_assert_int_eq(ts_jagged_depth(NULL), 0);
    memcpy(buf, "xxxx", 5);
    ck_assert_uint_eq(ts_jagged_format(NULL, buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "");
    EXPECT(ts_jagged_parse("{(1,)}", 6, NULL, EP), BAD, "ts_jagged_parse: out is NULL");
    EXPECT(ts_jagged_parse(NULL, 6, &j, EP), BAD, "ts_jagged_parse: text is NULL but len is 6");
    ck_assert_ptr_null(j);
    EXPECT(ts_jagged_parse(NULL, 0, &j, EP), TS_ERR_PARSE, NULL);
    EXPECT(ts_jagged_tile(&S, 1, NULL, EP), BAD, "ts_jagged_tile: out is NULL");
    EXPECT(ts_jagged_tile(NULL, 1, &j, EP), BAD, "ts_jagged_tile: tiles is NULL but ntiles is 1");
    EXPECT(ts_jagged_tile(&S, (size_t)-1, &j, EP), TS_ERR_LIMIT, NULL);

    ck_assert_int_eq(ts_jagged_parse("{(1,2),(3,4)}", 13, &j, NULL), TS_OK);
    ck_assert_uint_eq(ts_jagged_format(j, NULL, 4), 0);
    EXPECT(ts_jagged_size(NULL, &v, EP), BAD, "ts_jagged_size: j is NULL");
    EXPECT(ts_jagged_size(j, NULL, EP), BAD, "ts_jagged_size: out is NULL");
    EXPECT(ts_jagged_slice(NULL, idx, 1, &k, EP), BAD, "ts_jagged_slice: j is NULL");
    EXPECT(ts_jagged_slice(j, NULL, 1, &k, EP), BAD,
           "ts_jagged_slice: index is NULL but nindex is 1");
    EXPECT(ts_jagged_slice(j, idx, 1, NULL, EP), BAD, "ts_jagged_slice: out is NULL");
    EXPECT(ts_jagged_slice(j, idx, 99, &k, EP), TS_ERR_NDIM, NULL);
    EXPECT(ts_jagged_smooth(NULL, &t, EP), BAD, "ts_jagged_smooth: j is NULL");
    EXPECT(ts_jagged_smooth(j, NULL, EP), BAD, "ts_jagged_smooth: out is NULL");
    EXPECT(ts_jagged_smooth(j, &t, EP), TS_ERR_NDIM, NULL);
    EXPECT(ts_jagged_layers(NULL, layers, 2, elems, EP), BAD, "ts_jagged_layers: j is NULL");
    EXPECT(ts_jagged_layers(j, NULL, 2, elems, EP), BAD,
           "ts_jagged_layers: layers is NULL but nlayers is 2");
    EXPECT(ts_jagged_layers(j, layers, 2, NULL, EP), BAD,
           "ts_jagged_layers: elements is NULL but nlayers is 2");
    ts_jagged_free(j);
    ts_shape_free(&t);
}
END_TEST

START_TEST(test_dlpack)
{
    ts_dlpack_dtype dd = {TS_DLPACK_FLOAT, 32, 1};
    ts_dtype dt;
    ts_blob b;
    ts_dlpack_tensor t;
    ts_dlpack_managed *m = (ts_dlpack_managed *)1;
    int64_t shape[TS_MAX_NDIM], strides[TS_MAX_NDIM];
    EXPECT(ts_dtype_to_dlpack(TS_DTYPE_FLOAT32, NULL, EP), BAD, "ts_dtype_to_dlpack: out is NULL");
    EXPECT(ts_dtype_to_dlpack((ts_dtype)999, &dd, EP), BAD,
           "ts_dtype_to_dlpack: dt 999 is not a ts_dtype");
    EXPECT(ts_dtype_to_dlpack(TS_DTYPE_OBJECT, &dd, EP), TS_ERR_DTYPE, NULL);
    EXPECT(ts_dtype_from_dlpack(dd, NULL, EP), BAD, "ts_dtype_from_dlpack: out is NULL");
    dd.lanes = 0;
    EXPECT(ts_dtype_from_dlpack(dd, &dt, EP), TS_ERR_DTYPE, NULL);

    ck_assert_int_eq(ts_blob_init(&b, NULL, &S, TS_DEV_CPU, TS_DTYPE_FLOAT32, NULL), TS_OK);
    EXPECT(ts_blob_to_dlpack(NULL, shape, strides, &t, EP), BAD, "ts_blob_to_dlpack: b is NULL");
    EXPECT(ts_blob_to_dlpack(&b, shape, strides, NULL, EP), BAD,
           "ts_blob_to_dlpack: out is NULL");
    EXPECT(ts_blob_to_dlpack(&b, shape, NULL, &t, EP), BAD, NULL);
    ts_blob out;
    EXPECT(ts_blob_from_dlpack(&t, NULL, EP), BAD, "ts_blob_from_dlpack: out is NULL");
    EXPECT(ts_blob_from_dlpack(NULL, &out, EP), BAD, "ts_blob_from_dlpack: t is NULL");
    ts_blob_free(&out);
    EXPECT(ts_array_to_dlpack(NULL, shape, strides, &t, EP), BAD,
           "ts_array_to_dlpack: a is NULL");
    EXPECT(ts_dlpack_managed_new(&t, NULL, NULL, NULL, EP), BAD,
           "ts_dlpack_managed_new: out is NULL");
    EXPECT(ts_dlpack_managed_new(NULL, NULL, NULL, &m, EP), BAD,
           "ts_dlpack_managed_new: t is NULL");
    ck_assert_ptr_null(m);
    m = (ts_dlpack_managed *)1;
    EXPECT(ts_blob_to_dlpack_managed(NULL, &m, EP), BAD, "ts_blob_to_dlpack_managed: b is NULL");
    ck_assert_ptr_null(m);
    EXPECT(ts_blob_to_dlpack_managed(&b, NULL, EP), BAD,
           "ts_blob_to_dlpack_managed: out is NULL");
    ts_blob_free(&b);

    /* an array of an open file, with a NULL out */
    ts_file *f;
    ck_assert_int_eq(ts_file_open("tests/fixtures/npy/float32.npy", NULL, &f, NULL), TS_OK);
    EXPECT(ts_array_to_dlpack(ts_file_array(f, 0), shape, strides, NULL, EP), BAD,
           "ts_array_to_dlpack: out is NULL");
    ts_file_close(f);
}
END_TEST

START_TEST(test_models)
{
    ts_model *m = (ts_model *)1;
    size_t file = 7;
    const char *dir = "tests/fixtures/model/hf";

    ts_model_close(NULL);
    ck_assert_ptr_null(ts_model_index(NULL));
    ck_assert_uint_eq(ts_model_file_count(NULL), 0);
    ck_assert_ptr_null(ts_model_file(NULL, 0));
    ck_assert_ptr_null(ts_model_file_path(NULL, 0));
    ck_assert_uint_eq(ts_model_count(NULL), 0);
    ck_assert_ptr_null(ts_model_array(NULL, 0, &file));
    ck_assert_uint_eq(file, 7);
    ck_assert_ptr_null(ts_model_array_name(NULL, 0));
    ck_assert_uint_eq(ts_model_issue_count(NULL), 0);
    ck_assert_uint_eq(ts_model_error_count(NULL), 0);
    ck_assert_ptr_null(ts_model_issue_at(NULL, 0));
    ck_assert_uint_eq(ts_model_metadata_count(NULL), 0);
    ck_assert_uint_eq(ts_model_other_file_count(NULL), 0);
    ck_assert_ptr_null(ts_model_other_file(NULL, 0));
    ck_assert_ptr_null(ts_model_metadata_at(NULL, 0));
    ck_assert_int_eq(ts_model_path(NULL), 0);
    ck_assert_int_eq(ts_model_path(dir), 1);
    ck_assert_int_eq(ts_model_path("tests/fixtures/model/hf/model.safetensors.index.json"), 1);
    ck_assert_int_eq(ts_model_path("examples/image.npy"), 0);
    ck_assert_int_eq(ts_model_path("hf://org/name"), 1);
    ck_assert_int_eq(ts_model_path("hf://org/name@v1"), 1);
    ck_assert_int_eq(ts_model_path("hf://org/name/model.safetensors"), 0);
    ck_assert_int_eq(ts_model_path("https://host/models/x/"), 1);
    ck_assert_int_eq(ts_model_path("https://host/x.index.json"), 1);
    ck_assert_int_eq(ts_is_url(NULL), 0);
    ck_assert_int_eq(ts_is_url("examples/image.npy"), 0);
    ck_assert_int_eq(ts_is_url("HTTPS://host/x"), 1);
    ck_assert_int_eq(ts_is_url("s3://b/k"), 1);
    ck_assert_int_eq(ts_is_url("ftp://host/x"), 0);

    EXPECT(ts_model_open(NULL, NULL, &m, EP), BAD, "ts_model_open: path is NULL");
    ck_assert_ptr_null(m);
    EXPECT(ts_model_open(dir, NULL, NULL, EP), BAD, "ts_model_open: out is NULL");

    ts_model_options o;
    memset(&o, 0, sizeof o);
    m = (ts_model *)1;
    EXPECT(ts_model_open(dir, &o, &m, EP), BAD, NULL);
    ck_assert_ptr_null(m);
    ck_assert_msg(strncmp(E.message, "ts_model_open: opts->struct_size is 0: initialise the "
                          "options with TS_MODEL_OPTIONS_INIT", 88) == 0, "%s", E.message);
    o = (ts_model_options)TS_MODEL_OPTIONS_INIT;
    o.recursive = 2;
    EXPECT(ts_model_open(dir, &o, &m, EP), BAD, "ts_model_open: opts->recursive is 2, not 0 or 1");
    o.recursive = 0;
    o.threads = 65;
    EXPECT(ts_model_open(dir, &o, &m, EP), BAD, "ts_model_open: opts->threads is 65, not 0..64");
    o.threads = -1;
    EXPECT(ts_model_open(dir, &o, &m, EP), BAD, "ts_model_open: opts->threads is -1, not 0..64");
    o.threads = 0;
    ts_open_options fo = TS_OPEN_OPTIONS_INIT;
    fo.want_metadata = 3;
    o.open = &fo;
    EXPECT(ts_model_open(dir, &o, &m, EP), BAD,
           "ts_model_open: opts->open: want_metadata is 3, not 0 or 1");
    fo.want_metadata = 0;
    fo.format = (ts_format)99;
    EXPECT(ts_model_open(dir, &o, &m, EP), BAD,
           "ts_model_open: opts->open: format 99 is not a ts_format with a reader");
    fo.struct_size = 0;
    fo.format = TS_FORMAT_AUTO;
    EXPECT(ts_model_open(dir, &o, &m, EP), BAD, NULL);
    ck_assert_msg(strncmp(E.message, "ts_model_open: opts->open: struct_size is 0", 43) == 0,
                  "%s", E.message);

    /* out-of-range indices of an open model */
    ck_assert_int_eq(ts_model_open(dir, NULL, &m, NULL), TS_OK);
    size_t n = ts_model_count(m);
    ck_assert_ptr_null(ts_model_array(m, n, &file));
    ck_assert_uint_eq(file, 7);
    ck_assert_ptr_null(ts_model_array_name(m, n));
    ck_assert_ptr_null(ts_model_file(m, ts_model_file_count(m)));
    ck_assert_ptr_null(ts_model_file_path(m, ts_model_file_count(m)));
    ck_assert_ptr_null(ts_model_issue_at(m, ts_model_issue_count(m)));
    ck_assert_ptr_null(ts_model_metadata_at(m, ts_model_metadata_count(m)));
    ck_assert_ptr_nonnull(ts_model_array(m, 0, NULL));

    /* what the checkpoint is and the memory to load it */
    ts_identity id;
    EXPECT(ts_model_identify(NULL, &id, EP), BAD, "ts_model_identify: m is NULL");
    EXPECT(ts_model_identify(m, NULL, EP), BAD, "ts_model_identify: out is NULL");
    ck_assert_int_eq(ts_model_identify(m, &id, NULL), TS_OK);
    ck_assert_str_eq(ts_checkpoint_kind_name(TS_KIND_TRAINING), "training checkpoint");
    ck_assert_str_eq(ts_checkpoint_kind_name((ts_checkpoint_kind)-1), "unknown");
    ck_assert_str_eq(ts_checkpoint_kind_name((ts_checkpoint_kind)7), "unknown");
    ts_memory mem;
    ts_memory_options mo = TS_MEMORY_OPTIONS_INIT;
    EXPECT(ts_model_memory(NULL, NULL, &mem, EP), BAD, "ts_model_memory: m is NULL");
    EXPECT(ts_model_memory(m, NULL, NULL, EP), BAD, "ts_model_memory: out is NULL");
    mo.batch = -1;
    EXPECT(ts_model_memory(m, &mo, &mem, EP), BAD,
           "ts_model_memory: opts->context is 0 and opts->batch -1: expected >= 0");
    mo.batch = 0;
    mo.kv_dtype = (ts_dtype)999;
    EXPECT(ts_model_memory(m, &mo, &mem, EP), BAD, NULL);
    mo.kv_dtype = TS_DTYPE_UNKNOWN;
    mo.kv_type = "q4_k"; /* a ggml type llama.cpp does not take for its cache */
    EXPECT(ts_model_memory(m, &mo, &mem, EP), BAD,
           "ts_model_memory: opts->kv_type 'q4_k' is not a quantised cache type of llama.cpp "
           "(q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1)");
    mo.kv_type = "Q8_0";
    ck_assert_int_eq(ts_model_memory(m, &mo, &mem, NULL), TS_OK);
    ck_assert_str_eq(mem.kv_type, "q8_0");
    ck_assert_int_eq(mem.kv_dtype, TS_DTYPE_QUANTIZED);
    mo.kv_type = NULL;
    mo.struct_size = 0;
    EXPECT(ts_model_memory(m, &mo, &mem, EP), BAD, NULL);
    ck_assert_int_eq(ts_model_memory(m, NULL, &mem, NULL), TS_OK);
    ck_assert_ptr_null(mem.kv_type);
    int64_t bs = 0, bb = 0;
    ck_assert_str_eq(ts_kv_cache_type("IQ4_NL", &bs, &bb), "iq4_nl");
    ck_assert_int_eq(bs, 32);
    ck_assert_int_eq(bb, 18);
    ck_assert_str_eq(ts_kv_cache_type("q5_1", NULL, NULL), "q5_1");
    ck_assert_ptr_null(ts_kv_cache_type("f16", &bs, &bb)); /* a dtype, not a block type */
    ck_assert_ptr_null(ts_kv_cache_type(NULL, NULL, NULL));
    ts_model_close(m);
}
END_TEST

/* Names and diffs (src/formats/nameselect.c, renames.c, tensordiff.c). */
START_TEST(test_diffs)
{
    const char *g[] = {"a*", NULL};
    ck_assert_int_eq(ts_name_selected(NULL, NULL, 0, NULL, 0), 0);
    ck_assert_int_eq(ts_name_selected("ab", NULL, 1, NULL, 0), 0);
    ck_assert_int_eq(ts_name_selected("ab", g, 2, NULL, 0), 0); /* holds NULL */
    ck_assert_int_eq(ts_name_selected("ab", g, 1, NULL, 0), 1);
    ck_assert_int_eq(ts_name_selected("ab", NULL, 0, g, 1), 0);

    ts_namemap *nm = (ts_namemap *)1;
    EXPECT(ts_namemap_new(NULL, EP), BAD, "ts_namemap_new: out is NULL");
    ts_namemap_free(NULL);
    ck_assert_ptr_null(ts_namemap_apply(NULL, TS_SIDE_A, "x"));
    ck_assert_uint_eq(ts_namemap_prefix_count(NULL), 0);
    ck_assert_ptr_null(ts_namemap_prefix_at(NULL, 0));
    ck_assert_int_eq(ts_namemap_new(&nm, NULL), TS_OK);
    EXPECT(ts_namemap_add_prefix(NULL, "p", TS_SIDE_A, EP), BAD,
           "ts_namemap_add_prefix: m is NULL");
    EXPECT(ts_namemap_add_prefix(nm, NULL, TS_SIDE_A, EP), BAD,
           "ts_namemap_add_prefix: prefix is NULL");
    EXPECT(ts_namemap_add_prefix(nm, "p", 0, EP), BAD,
           "ts_namemap_add_prefix: sides is 0x0, not TS_SIDE_A, TS_SIDE_B or both");
    EXPECT(ts_namemap_add_prefix(nm, "p", 4, EP), BAD,
           "ts_namemap_add_prefix: sides is 0x4, not TS_SIDE_A, TS_SIDE_B or both");
    EXPECT(ts_namemap_add_rename(NULL, "a", "b", EP), BAD, "ts_namemap_add_rename: m is NULL");
    EXPECT(ts_namemap_add_rename(nm, NULL, "b", EP), BAD,
           "ts_namemap_add_rename: from is NULL");
    EXPECT(ts_namemap_add_rename(nm, "a", NULL, EP), BAD, "ts_namemap_add_rename: to is NULL");
    EXPECT(ts_namemap_read_renames(NULL, "", 0, EP), BAD, "ts_namemap_read_renames: m is NULL");
    EXPECT(ts_namemap_read_renames(nm, NULL, 3, EP), BAD,
           "ts_namemap_read_renames: text is NULL but len is 3");
    ck_assert_int_eq(ts_namemap_read_renames(nm, NULL, 0, NULL), TS_OK);
    ck_assert_ptr_null(ts_namemap_apply(nm, 0, "x"));
    ck_assert_ptr_null(ts_namemap_apply(nm, TS_SIDE_A | TS_SIDE_B, "x"));
    ck_assert_ptr_null(ts_namemap_apply(nm, TS_SIDE_A, NULL));
    ck_assert_ptr_null(ts_namemap_prefix_at(nm, 0));

    ts_diff *d = (ts_diff *)1;
    ts_model *m = NULL;
    ck_assert_str_eq(ts_diff_kind_name((ts_diff_kind)8), "unknown");
    ck_assert_str_eq(ts_diff_kind_name((ts_diff_kind)-1), "unknown");
    ck_assert_str_eq(ts_diff_rule_name((ts_diff_rule)TS_DIFF_RULE_COUNT), "unknown");
    ck_assert_str_eq(ts_diff_rule_name((ts_diff_rule)-1), "unknown");
    ts_diff_free(NULL);
    ck_assert_uint_eq(ts_diff_count(NULL), 0);
    ck_assert_ptr_null(ts_diff_pair_at(NULL, 0));
    ck_assert_int_eq(ts_diff_single(NULL), 0);
    ck_assert_ptr_null(ts_diff_totals_of(NULL));
    ck_assert_uint_eq(ts_diff_duplicate_count(NULL), 0);
    ck_assert_ptr_null(ts_diff_duplicate_at(NULL, 0, NULL, NULL));
    ck_assert_uint_eq(ts_diff_metadata_count(NULL), 0);
    ck_assert_int_eq(ts_diff_metadata_at(NULL, 0, NULL, NULL, NULL), 0);
    ck_assert_int_eq(ts_diff_gguf_names(NULL), 0);
    ck_assert_uint_eq(ts_diff_metrics_group_count(NULL), 0);
    ck_assert_ptr_null(ts_diff_metrics_group_at(NULL, 0));
    EXPECT(ts_diff_compare_values(NULL, 0, NULL, EP), BAD, "ts_diff_compare_values: d is NULL");
    ck_assert_int_eq(ts_model_open("tests/fixtures/values/f4.npy", NULL, &m, NULL), TS_OK);
    EXPECT(ts_diff_new(NULL, m, NULL, &d, EP), BAD, "ts_diff_new: a is NULL");
    ck_assert_ptr_null(d);
    EXPECT(ts_diff_new(m, NULL, NULL, &d, EP), BAD, "ts_diff_new: b is NULL");
    EXPECT(ts_diff_new(m, m, NULL, NULL, EP), BAD, "ts_diff_new: out is NULL");
    ts_diff_options o;
    memset(&o, 0, sizeof o);
    EXPECT(ts_diff_new(m, m, &o, &d, EP), BAD, NULL);
    ck_assert_msg(strncmp(E.message, "ts_diff_new: opts->struct_size is 0: initialise the "
                          "options with TS_DIFF_OPTIONS_INIT", 83) == 0, "%s", E.message);
    o = (ts_diff_options)TS_DIFF_OPTIONS_INIT;
    o.nfilter = 1;
    EXPECT(ts_diff_new(m, m, &o, &d, EP), BAD, "ts_diff_new: opts->filter is NULL but opts->nfilter is 1");
    o.filter = g;
    o.nfilter = 2;
    EXPECT(ts_diff_new(m, m, &o, &d, EP), BAD, "ts_diff_new: opts->filter[1] is NULL");
    ck_assert_int_eq(E.index, 1);
    o.nfilter = 0;
    o.nexclude = 1;
    EXPECT(ts_diff_new(m, m, &o, &d, EP), BAD,
           "ts_diff_new: opts->exclude is NULL but opts->nexclude is 1");
    o.exclude = g + 1;
    EXPECT(ts_diff_new(m, m, &o, &d, EP), BAD, "ts_diff_new: opts->exclude[0] is NULL");
    o.nexclude = 0;
    o.gguf_names = 2;
    EXPECT(ts_diff_new(m, m, &o, &d, EP), BAD, "ts_diff_new: opts->gguf_names is 2, not 0 or 1");
    o.gguf_names = 1;
    o.metrics = -1;
    EXPECT(ts_diff_new(m, m, &o, &d, EP), BAD, "ts_diff_new: opts->metrics is -1, not 0 or 1");
    o.metrics = 0;
    o.export_names = 3;
    EXPECT(ts_diff_new(m, m, &o, &d, EP), BAD,
           "ts_diff_new: opts->export_names is 3, not 0 or 1");
    o.export_names = 1;
    o.names = nm;
    ck_assert_int_eq(ts_diff_new(m, m, &o, &d, NULL), TS_OK);
    ck_assert_int_eq(ts_diff_gguf_names(d), 0);
    ck_assert_uint_eq(ts_diff_metrics_group_count(d), 0);
    ck_assert_ptr_null(ts_diff_metrics_group_at(d, 0));
    ck_assert_uint_eq(ts_diff_count(d), 1);
    ck_assert_ptr_null(ts_diff_pair_at(d, 1));
    ck_assert_ptr_null(ts_diff_duplicate_at(d, 0, NULL, NULL));
    ck_assert_int_eq(ts_diff_metadata_at(d, 0, NULL, NULL, NULL), 0);
    EXPECT(ts_diff_compare_values(d, 1, NULL, EP), BAD,
           "ts_diff_compare_values: i is 1, not below the 1 pairs");
    ts_compare_options co = TS_COMPARE_OPTIONS_INIT;
    co.rtol = -1;
    EXPECT(ts_diff_compare_values(d, 0, &co, EP), BAD, NULL);
    ck_assert_int_eq(ts_diff_pair_at(d, 0)->values, TS_DIFF_VALUES_NOT_COMPARED);
    ck_assert_int_eq(ts_diff_compare_values(d, 0, NULL, NULL), TS_OK);
    ck_assert_int_eq(ts_diff_pair_at(d, 0)->values, TS_DIFF_VALUES_COMPARED);
    ts_diff_free(d);
    ck_assert_str_eq(ts_scan_finding_kind_name((ts_scan_finding_kind)0), "unknown");
    ck_assert_str_eq(ts_scan_finding_kind_name(TS_SCAN_FINDING_NOTE), "note");
    ts_element_size es = {0, 0, 0, 0};
    ts_array_element_size(NULL, NULL);
    ts_array_element_size(NULL, &es);
    ck_assert_int_eq(es.itemsize, -1);
    ck_assert_int_eq(es.block_size, 1);
    EXPECT(ts_array_read_raw(NULL, NULL, 0, 0, NULL, EP), BAD, "ts_array_read_raw: f is NULL");
    ts_stats_summary *ss = (ts_stats_summary *)1;
    EXPECT(ts_stats_summary_new(0, NULL, EP), BAD, "ts_stats_summary_new: out is NULL");
    EXPECT(ts_stats_summary_new(2, &ss, EP), BAD,
           "ts_stats_summary_new: unknown flag bits 0x2 in flags (known: 0x1)");
    ck_assert_ptr_null(ss);
    ts_stats_summary_free(NULL);
    ts_stats_summary_fail(NULL);
    ck_assert_ptr_null(ts_stats_summary_totals(NULL));
    ck_assert_ptr_null(ts_stats_summary_nonfinite_at(NULL, 0));
    ck_assert_int_eq(ts_stats_summary_new(0, &ss, NULL), TS_OK);
    ts_stats st0;
    memset(&st0, 0, sizeof st0);
    EXPECT(ts_stats_summary_add(NULL, "f", "n", &st0, EP), BAD,
           "ts_stats_summary_add: s is NULL");
    EXPECT(ts_stats_summary_add(ss, NULL, "n", &st0, EP), BAD,
           "ts_stats_summary_add: file is NULL");
    EXPECT(ts_stats_summary_add(ss, "f", NULL, &st0, EP), BAD,
           "ts_stats_summary_add: name is NULL");
    EXPECT(ts_stats_summary_add(ss, "f", "n", NULL, EP), BAD,
           "ts_stats_summary_add: st is NULL");
    ck_assert_ptr_null(ts_stats_summary_nonfinite_at(ss, 0));
    ts_stats_summary_free(ss);
    ck_assert_ptr_null(ts_model_file_label(NULL, 0));
    ck_assert_ptr_null(ts_model_file_label(m, 1));
    ck_assert_str_eq(ts_model_file_label(m, 0), "f4.npy");
    ts_model_close(m);
    ts_namemap_free(nm);
}
END_TEST

/* Summaries (src/formats/role.c, summary.c): roles, ts_summary. */
START_TEST(test_summaries)
{
    ts_summary *s = (ts_summary *)1;
    ck_assert_int_eq(ts_tensor_role(NULL, TS_DTYPE_FLOAT32), TS_ROLE_PARAMETER);
    ck_assert_int_eq(ts_tensor_role("w", (ts_dtype)99), TS_ROLE_PARAMETER);
    ck_assert_str_eq(ts_role_name((ts_role)3), "unknown");
    ck_assert_str_eq(ts_role_name((ts_role)-1), "unknown");
    ck_assert_str_eq(ts_summary_dtype(NULL), "");
    ts_summary_free(NULL);
    ck_assert_ptr_null(ts_summary_total(NULL));
    ck_assert_ptr_null(ts_summary_role(NULL, TS_ROLE_BUFFER));
    ck_assert_uint_eq(ts_summary_dtype_count(NULL), 0);
    ck_assert_ptr_null(ts_summary_dtype_at(NULL, 0, NULL));
    ck_assert_uint_eq(ts_summary_largest_count(NULL), 0);
    ck_assert_ptr_null(ts_summary_largest(NULL, 0));
    ck_assert_uint_eq(ts_summary_group_count(NULL), 0);
    ck_assert_ptr_null(ts_summary_group_at(NULL, 0));

    EXPECT(ts_summary_new(NULL, NULL, EP), BAD, "ts_summary_new: out is NULL");
    ts_summary_options o;
    memset(&o, 0, sizeof o);
    EXPECT(ts_summary_new(&o, &s, EP), BAD, NULL);
    ck_assert_ptr_null(s);
    ck_assert_msg(strncmp(E.message, "ts_summary_new: opts->struct_size is 0: initialise the "
                          "options with TS_SUMMARY_OPTIONS_INIT", 89) == 0, "%s", E.message);
    o = (ts_summary_options)TS_SUMMARY_OPTIONS_INIT;
    o.top = -1;
    EXPECT(ts_summary_new(&o, &s, EP), BAD, "ts_summary_new: opts->top is -1, not 0..1048576");
    o.top = (1 << 20) + 1;
    EXPECT(ts_summary_new(&o, &s, EP), BAD,
           "ts_summary_new: opts->top is 1048577, not 0..1048576");
    o.top = 0;
    o.group = 2;
    EXPECT(ts_summary_new(&o, &s, EP), BAD, "ts_summary_new: opts->group is 2, not 0 or 1");

    ck_assert_int_eq(ts_summary_new(NULL, &s, NULL), TS_OK);
    ts_file *f = NULL;
    ck_assert_int_eq(ts_file_open("tests/fixtures/values/f4.npy", NULL, &f, NULL), TS_OK);
    EXPECT(ts_summary_add(NULL, "x", ts_file_array(f, 0), 0, EP), BAD,
           "ts_summary_add: s is NULL");
    EXPECT(ts_summary_add(s, "x", NULL, 0, EP), BAD, "ts_summary_add: a is NULL");
    ck_assert_int_eq(ts_summary_add(s, NULL, ts_file_array(f, 0), 0, NULL), TS_OK);
    ck_assert_ptr_null(ts_summary_role(s, (ts_role)3));
    ck_assert_ptr_null(ts_summary_dtype_at(s, 1, NULL));
    ck_assert_ptr_null(ts_summary_largest(s, 0)); /* top 0: none kept */
    ck_assert_ptr_null(ts_summary_group_at(s, 0)); /* no groups without group */
    ts_file_close(f);
    ts_summary_free(s);
}
END_TEST

/* Scan (src/formats/scan.c). */
START_TEST(test_scan)
{
    ts_scan *s = (ts_scan *)1;
    ts_scan_close(NULL);
    ck_assert_int_eq(ts_scan_verdict(NULL), TS_SCAN_NONE);
    ck_assert_uint_eq(ts_scan_error_count(NULL), 0);
    ck_assert_uint_eq(ts_scan_file_count(NULL), 0);
    ck_assert_ptr_null(ts_scan_file_at(NULL, 0));
    ck_assert_uint_eq(ts_scan_global_count(NULL), 0);
    ck_assert_ptr_null(ts_scan_global_at(NULL, 0));
    ck_assert_uint_eq(ts_scan_finding_count(NULL), 0);
    ck_assert_ptr_null(ts_scan_finding_at(NULL, 0));
    ck_assert_str_eq(ts_scan_class_name((ts_scan_class)99), "unknown");
    ck_assert_str_eq(ts_scan_class_name(TS_SCAN_DANGEROUS), "dangerous");
    ck_assert_str_eq(ts_scan_wo_name((ts_scan_wo)-1), "unknown");
    ck_assert_str_eq(ts_scan_wo_name(TS_SCAN_WO_JIT), "torch.jit.load");

    EXPECT(ts_scan_open(NULL, &s, EP), BAD, "ts_scan_open: path is NULL");
    ck_assert_ptr_null(s);
    EXPECT(ts_scan_open("tests", NULL, EP), BAD, "ts_scan_open: out is NULL");
    EXPECT(ts_scan_open("tests/no such file", &s, EP), TS_ERR_IO, NULL);
    EXPECT(ts_scan_open_each(NULL, NULL, NULL, &s, EP), BAD, "ts_scan_open_each: path is NULL");
    ck_assert_ptr_null(s);
    EXPECT(ts_scan_open_each("tests", NULL, NULL, NULL, EP), BAD,
           "ts_scan_open_each: out is NULL");
    EXPECT(ts_scan_open_each("tests/no such file", NULL, NULL, &s, EP), TS_ERR_IO, NULL);
    /* a URL that cannot be read: the file's record says so */
    ck_assert_int_eq(ts_scan_open("http://127.0.0.1:1/x.pt", &s, NULL), TS_OK);
    ck_assert_uint_eq(ts_scan_file_count(s), 1);
    ck_assert_int_eq(ts_scan_file_at(s, 0)->status, TS_ERR_IO);
    ts_scan_close(s);
    s = (ts_scan *)1;
    EXPECT(ts_scan_open_memory(NULL, 3, "x", &s, EP), BAD,
           "ts_scan_open_memory: data is NULL but len is 3");
    ck_assert_ptr_null(s);
    EXPECT(ts_scan_open_memory("x", 1, "x", NULL, EP), BAD, "ts_scan_open_memory: out is NULL");

    /* out-of-range indices of an open scan; an empty image is nothing */
    ck_assert_int_eq(ts_scan_open_memory(NULL, 0, NULL, &s, NULL), TS_OK);
    ck_assert_uint_eq(ts_scan_file_count(s), 1);
    ck_assert_str_eq(ts_scan_file_at(s, 0)->path, "-");
    ck_assert_int_eq(ts_scan_file_at(s, 0)->verdict, TS_SCAN_NONE);
    ck_assert_ptr_null(ts_scan_file_at(s, 1));
    ck_assert_ptr_null(ts_scan_global_at(s, 0));
    ck_assert_ptr_null(ts_scan_finding_at(s, 0));
    ts_scan_close(s);
}
END_TEST

/* Values (src/values): ts_array_value_kind, ts_array_read, ts_array_stats,
 * ts_array_compare and ts_write. */
START_TEST(test_values)
{
    ts_file *f = NULL;
    ck_assert_int_eq(ts_file_open("tests/fixtures/values/f4.npy", NULL, &f, NULL), TS_OK);
    const ts_array *a = ts_file_array(f, 0);
    double v[2];
    ts_stats st;
    ck_assert_int_eq(ts_array_value_kind(NULL), TS_VALUE_NONE);
    EXPECT(ts_array_read(NULL, a, 0, 1, TS_DTYPE_FLOAT64, v, EP), BAD, "ts_array_read: f is NULL");
    EXPECT(ts_array_read(f, NULL, 0, 1, TS_DTYPE_FLOAT64, v, EP), BAD, "ts_array_read: a is NULL");
    EXPECT(ts_array_read(f, a, 0, 2, TS_DTYPE_FLOAT64, NULL, EP), BAD,
           "ts_array_read: out is NULL but count is 2");
    EXPECT(ts_array_read(f, a, 0, 1, TS_DTYPE_FLOAT32, v, EP), BAD,
           "ts_array_read: as is 0 (float32), not float64, int64, uint64 or complex128");
    EXPECT(ts_array_read(f, a, 0, 1, (ts_dtype)99, v, EP), BAD,
           "ts_array_read: as is 99 (unknown), not float64, int64, uint64 or complex128");
    ck_assert_int_eq(ts_array_read(f, a, 0, 0, TS_DTYPE_FLOAT64, NULL, NULL), TS_OK);
    EXPECT(ts_array_stats(NULL, a, NULL, &st, EP), BAD, "ts_array_stats: f is NULL");
    EXPECT(ts_array_stats(f, NULL, NULL, &st, EP), BAD, "ts_array_stats: a is NULL");
    EXPECT(ts_array_stats(f, a, NULL, NULL, EP), BAD, "ts_array_stats: out is NULL");
    ts_stats_options o;
    memset(&o, 0, sizeof o);
    char msg[200];
    snprintf(msg, sizeof msg, "ts_array_stats: opts->struct_size is 0: initialise the options "
             "with TS_STATS_OPTIONS_INIT (struct_size = sizeof(ts_stats_options) = %zu)",
             sizeof o);
    EXPECT(ts_array_stats(f, a, &o, &st, EP), BAD, msg);
    ts_stats_options o2 = TS_STATS_OPTIONS_INIT;
    o2.nthreads = -1;
    EXPECT(ts_array_stats(f, a, &o2, &st, EP), BAD, "ts_array_stats: opts->nthreads is -1, below 0");
    struct {
        ts_stats_options o;
        int later;
    } grown;
    memset(&grown, 0, sizeof grown);
    grown.o.struct_size = sizeof grown;
    ck_assert_int_eq(ts_array_stats(f, a, &grown.o, &st, NULL), TS_OK);
    grown.later = 1;
    EXPECT(ts_array_stats(f, a, &grown.o, &st, EP), TS_ERR_UNSUPPORTED, NULL);

    ts_compare c;
    EXPECT(ts_array_compare(NULL, a, f, a, NULL, &c, EP), BAD, "ts_array_compare: fa is NULL");
    EXPECT(ts_array_compare(f, NULL, f, a, NULL, &c, EP), BAD, "ts_array_compare: a is NULL");
    EXPECT(ts_array_compare(f, a, NULL, a, NULL, &c, EP), BAD, "ts_array_compare: fb is NULL");
    EXPECT(ts_array_compare(f, a, f, NULL, NULL, &c, EP), BAD, "ts_array_compare: b is NULL");
    EXPECT(ts_array_compare(f, a, f, a, NULL, NULL, EP), BAD, "ts_array_compare: out is NULL");
    ts_compare_options co;
    memset(&co, 0, sizeof co);
    snprintf(msg, sizeof msg, "ts_array_compare: opts->struct_size is 0: initialise the "
             "options with TS_COMPARE_OPTIONS_INIT (struct_size = sizeof(ts_compare_options) "
             "= %zu)", sizeof co);
    EXPECT(ts_array_compare(f, a, f, a, &co, &c, EP), BAD, msg);
    ts_compare_options co2 = TS_COMPARE_OPTIONS_INIT;
    co2.nthreads = -1;
    EXPECT(ts_array_compare(f, a, f, a, &co2, &c, EP), BAD,
           "ts_array_compare: opts->nthreads is -1, below 0");
    struct {
        ts_compare_options o;
        int later;
    } cgrown;
    memset(&cgrown, 0, sizeof cgrown);
    cgrown.o.struct_size = sizeof cgrown;
    ck_assert_int_eq(ts_array_compare(f, a, f, a, &cgrown.o, &c, NULL), TS_OK);
    cgrown.later = 1;
    EXPECT(ts_array_compare(f, a, f, a, &cgrown.o, &c, EP), TS_ERR_UNSUPPORTED, NULL);
    /* ts_write: nothing is created on an argument error */
    ts_write_tensor t = {"x", f, a}, tnull = {NULL, f, a};
    ts_write_result r;
    const char *out = "/nonexistent-tshape-dir/x.safetensors";
    EXPECT(ts_write(NULL, &t, 1, NULL, &r, EP), BAD, "ts_write: path is NULL");
    EXPECT(ts_write(out, NULL, 1, NULL, &r, EP), BAD, "ts_write: tensors is NULL but n is 1");
    EXPECT(ts_write(out, &tnull, 1, NULL, &r, EP), BAD,
           "ts_write: tensors[0] has a NULL name, file or array");
    ts_write_options w;
    memset(&w, 0, sizeof w);
    snprintf(msg, sizeof msg, "ts_write: opts->struct_size is 0: initialise the options "
             "with TS_WRITE_OPTIONS_INIT (struct_size = sizeof(ts_write_options) = %zu)",
             sizeof w);
    EXPECT(ts_write(out, &t, 1, &w, &r, EP), BAD, msg);
    ts_write_options w2 = TS_WRITE_OPTIONS_INIT;
    w2.format = (ts_write_format)7;
    EXPECT(ts_write(out, &t, 1, &w2, &r, EP), BAD, "ts_write: opts->format is 7, not a "
                                                   "ts_write_format");
    w2 = (ts_write_options)TS_WRITE_OPTIONS_INIT;
    w2.overwrite = 2;
    EXPECT(ts_write(out, &t, 1, &w2, &r, EP), BAD, "ts_write: opts->overwrite is 2, not 0 or 1");
    w2 = (ts_write_options)TS_WRITE_OPTIONS_INIT;
    w2.max_shard_size = -1;
    EXPECT(ts_write(out, &t, 1, &w2, &r, EP), BAD, "ts_write: opts->max_shard_size is -1: at "
                                                   "least 0, and only for safetensors");
    struct {
        ts_write_options o;
        int later;
    } wgrown;
    memset(&wgrown, 0, sizeof wgrown);
    wgrown.o = (ts_write_options)TS_WRITE_OPTIONS_INIT;
    wgrown.o.struct_size = sizeof wgrown;
    wgrown.later = 1;
    EXPECT(ts_write(out, &t, 1, &wgrown.o, &r, EP), TS_ERR_UNSUPPORTED, NULL);
    EXPECT(ts_write(out, &t, 1, NULL, NULL, EP), TS_ERR_IO, NULL);
    w2 = (ts_write_options)TS_WRITE_OPTIONS_INIT;
    w2.copy_count = 2;
    EXPECT(ts_write(out, &t, 1, &w2, &r, EP), BAD, "ts_write: opts->copy_files is NULL but "
                                                   "copy_count is 2");
    const char *const one_null[] = {NULL};
    w2.copy_files = one_null;
    w2.copy_count = 1;
    EXPECT(ts_write(out, &t, 1, &w2, &r, EP), BAD, "ts_write: opts->copy_files[0] is NULL");
    EXPECT(ts_write_check(NULL, NULL, EP), BAD, "ts_write_check: t is NULL");
    EXPECT(ts_write_check(&tnull, NULL, EP), BAD,
           "ts_write_check: t has a NULL name, file or array");
    snprintf(msg, sizeof msg, "ts_write_check: opts->struct_size is 0: initialise the "
             "options with TS_WRITE_OPTIONS_INIT (struct_size = sizeof(ts_write_options) = %zu)",
             sizeof w);
    EXPECT(ts_write_check(&t, &w, EP), BAD, msg);
    EXPECT(ts_write_check(&t, &wgrown.o, EP), TS_ERR_UNSUPPORTED, NULL);
    ck_assert_int_eq(ts_write_check(&t, NULL, NULL), TS_OK);
    ts_file_close(f);
}
END_TEST

/* Verifying checkpoints: ts_verify_path and its result. */
START_TEST(test_verify)
{
    ts_verify *v = (ts_verify *)1;
    EXPECT(ts_verify_path("x", NULL, NULL, EP), BAD, "ts_verify_path: out is NULL");
    EXPECT(ts_verify_path(NULL, NULL, &v, EP), BAD, "ts_verify_path: path is NULL");
    ck_assert_ptr_null(v);
    ts_verify_options o;
    memset(&o, 0, sizeof o);
    EXPECT(ts_verify_path("x", &o, &v, EP), BAD, NULL);
    o = (ts_verify_options)TS_VERIFY_OPTIONS_INIT;
    o.recursive = 2;
    EXPECT(ts_verify_path("x", &o, &v, EP), BAD, "ts_verify_path: opts->recursive is 2, not 0 or 1");
    ck_assert_int_eq(ts_verify_verdict(NULL), TS_VERIFY_OK);
    ck_assert_uint_eq(ts_verify_problem_count(NULL), 0);
    ck_assert_uint_eq(ts_verify_error_count(NULL), 0);
    ck_assert_ptr_null(ts_verify_problem_at(NULL, 0));
    ck_assert_ptr_null(ts_verify_totals_of(NULL));
    ck_assert_str_eq(ts_verify_class_name((ts_verify_class)-1), "unknown");
    ck_assert_str_eq(ts_verify_class_text((ts_verify_class)99), "unknown");
    ck_assert_str_eq(ts_verify_check_name((ts_verify_check)99), "unknown");
    ts_verify_free(NULL);
    ck_assert_int_eq(ts_verify_path("tests/fixtures/verify/ok", NULL, &v, NULL), TS_OK);
    ck_assert_ptr_null(ts_verify_problem_at(v, 0));
    ts_verify_free(v);
}
END_TEST

/* Fingerprints: ts_model_fingerprint. */
START_TEST(test_fingerprint)
{
    ts_model *m = NULL;
    ts_fingerprint fp;
    ck_assert_int_eq(ts_model_open("examples/checkpoint.npz", NULL, &m, NULL), TS_OK);
    EXPECT(ts_model_fingerprint(NULL, NULL, &fp, EP), BAD, "ts_model_fingerprint: m is NULL");
    EXPECT(ts_model_fingerprint(m, NULL, NULL, EP), BAD, "ts_model_fingerprint: out is NULL");
    ts_fingerprint_options o;
    memset(&o, 0, sizeof o);
    EXPECT(ts_model_fingerprint(m, &o, &fp, EP), BAD, NULL);
    o = (ts_fingerprint_options)TS_FINGERPRINT_OPTIONS_INIT;
    o.values = 2;
    EXPECT(ts_model_fingerprint(m, &o, &fp, EP), BAD,
           "ts_model_fingerprint: opts->values is 2, not 0 or 1");
    o.values = 0;
    o.nthreads = -1;
    EXPECT(ts_model_fingerprint(m, &o, &fp, EP), BAD,
           "ts_model_fingerprint: opts->nthreads is -1, below 0");
    ck_assert_int_eq(ts_model_fingerprint(m, NULL, &fp, NULL), TS_OK);
    /* ggml's ne: GGUF arrays only */
    int64_t ne[4];
    int n;
    const ts_file *f = ts_model_file(m, 0);
    EXPECT(ts_array_ggml_ne(f, ts_file_array(f, 0), ne, &n, EP), BAD,
           "ts_array_ggml_ne: f is a npz file, not GGUF");
    EXPECT(ts_array_ggml_ne(NULL, ts_file_array(f, 0), ne, &n, EP), BAD,
           "ts_array_ggml_ne: f is NULL");
    ts_model_close(m);
    ts_file *g = NULL;
    ck_assert_int_eq(ts_file_open("tests/fixtures/gguf/good_v3.gguf", NULL, &g, NULL), TS_OK);
    EXPECT(ts_array_ggml_ne(g, ts_file_array(g, 0), NULL, &n, EP), BAD,
           "ts_array_ggml_ne: ne is NULL");
    EXPECT(ts_array_ggml_ne(g, &(ts_array){0}, ne, &n, EP), BAD,
           "ts_array_ggml_ne: a is not an array of f");
    ck_assert_int_eq(ts_array_ggml_ne(g, ts_file_array(g, 0), ne, &n, NULL), TS_OK);
    ck_assert_int_eq(n, 2);
    ck_assert(ne[0] == 4 && ne[1] == 3);
    /* names across a conversion to GGUF, Q/K heads, error metrics */
    char buf[64];
    ck_assert_uint_eq(ts_tensor_name_map((ts_name_map)0, "lm_head.weight", buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "");
    ck_assert_uint_eq(ts_tensor_name_map(TS_NAME_MAP_TO_GGUF, NULL, buf, sizeof buf), 0);
    ck_assert_uint_eq(ts_tensor_name_map(TS_NAME_MAP_TO_GGUF, "lm_head.weight", NULL, 4), 0);
    ck_assert_uint_eq(ts_tensor_name_map(TS_NAME_MAP_TO_GGUF, "lm_head.weight", NULL, 0), 13);
    ck_assert_int_eq(ts_gguf_qk_heads(NULL, "blk.0.attn_q.weight"), 0);
    ck_assert_int_eq(ts_gguf_qk_heads(g, NULL), 0);
    ts_metrics mt;
    const ts_array *a0 = ts_file_array(g, 0);
    EXPECT(ts_array_metrics(NULL, a0, g, a0, NULL, &mt, EP), BAD, "ts_array_metrics: fa is NULL");
    EXPECT(ts_array_metrics(g, a0, g, a0, NULL, NULL, EP), BAD, "ts_array_metrics: out is NULL");
    ts_metrics_options mo = TS_METRICS_OPTIONS_INIT;
    mo.qk_heads = -1;
    EXPECT(ts_array_metrics(g, a0, g, a0, &mo, &mt, EP), BAD,
           "ts_array_metrics: opts->qk_heads is -1, below 0");
    ck_assert_int_eq(ts_array_metrics(g, a0, g, a0, NULL, &mt, NULL), TS_OK);
    ts_file_close(g);
}
END_TEST

START_TEST(test_layer_shapes)
{
    ts_shape t = TS_SHAPE_INIT, w = TS_SHAPE_INIT, in = TS_SHAPE_INIT;
    tu_shape(&in, "(1,3,8,8)");
    const ts_shape *two[2] = {&S, NULL};
    ts_conv_params p = TS_CONV_PARAMS_INIT, q = TS_CONV_PARAMS_INIT;

    EXPECT(ts_conv_shape(NULL, &p, &t, &w, EP), BAD, "ts_conv_shape: in is NULL");
    EXPECT(ts_conv_shape(&in, NULL, &t, &w, EP), BAD, "ts_conv_shape: p is NULL");
    EXPECT(ts_conv_shape(&in, &p, NULL, &w, EP), BAD, "ts_conv_shape: out is NULL");
    ck_assert_int_eq(ts_conv_shape(&in, &p, &t, NULL, NULL), TS_OK); /* weight may be NULL */
    q.struct_size = 0;
    EXPECT(ts_conv_shape(&in, &q, &t, &w, EP), BAD, NULL);
    q = p, q.nspatial = 4;
    EXPECT(ts_conv_shape(&in, &q, &t, &w, EP), BAD,
           "ts_conv_shape: p->nspatial is 4, not 1, 2 or 3");
    q = p, q.pad_mode = (ts_pad_mode)9;
    EXPECT(ts_conv_shape(&in, &q, &t, &w, EP), BAD,
           "ts_conv_shape: p->pad_mode 9 is not a ts_pad_mode");
    q = p, q.ceil_mode = 2;
    EXPECT(ts_conv_shape(&in, &q, &t, &w, EP), BAD,
           "ts_conv_shape: p->ceil_mode is 2, not 0 or 1");
    q = p, q.groups = 0;
    EXPECT(ts_conv_shape(&in, &q, &t, &w, EP), TS_ERR_VALUE, NULL);

    EXPECT(ts_conv_transpose_shape(NULL, &p, &t, &w, EP), BAD,
           "ts_conv_transpose_shape: in is NULL");
    EXPECT(ts_conv_transpose_shape(&in, NULL, &t, &w, EP), BAD,
           "ts_conv_transpose_shape: p is NULL");
    EXPECT(ts_conv_transpose_shape(&in, &p, NULL, &w, EP), BAD,
           "ts_conv_transpose_shape: out is NULL");

    EXPECT(ts_pool_shape(NULL, TS_POOL_MAX, &p, &t, EP), BAD, "ts_pool_shape: in is NULL");
    EXPECT(ts_pool_shape(&in, TS_POOL_MAX, NULL, &t, EP), BAD, "ts_pool_shape: p is NULL");
    EXPECT(ts_pool_shape(&in, TS_POOL_MAX, &p, NULL, EP), BAD, "ts_pool_shape: out is NULL");
    EXPECT(ts_pool_shape(&in, (ts_pool_kind)2, &p, &t, EP), BAD,
           "ts_pool_shape: kind 2 is not a ts_pool_kind");

    int64_t osz[3] = {1, 1, 1};
    EXPECT(ts_adaptive_pool_shape(NULL, 2, osz, &t, EP), BAD,
           "ts_adaptive_pool_shape: in is NULL");
    EXPECT(ts_adaptive_pool_shape(&in, 2, NULL, &t, EP), BAD,
           "ts_adaptive_pool_shape: output_size is NULL");
    EXPECT(ts_adaptive_pool_shape(&in, 2, osz, NULL, EP), BAD,
           "ts_adaptive_pool_shape: out is NULL");
    EXPECT(ts_adaptive_pool_shape(&in, 4, osz, &t, EP), BAD,
           "ts_adaptive_pool_shape: nspatial is 4, not 1, 2 or 3");

    EXPECT(ts_matmul_shape(NULL, &S, &t, EP), BAD, "ts_matmul_shape: a is NULL");
    EXPECT(ts_matmul_shape(&S, NULL, &t, EP), BAD, "ts_matmul_shape: b is NULL");
    EXPECT(ts_matmul_shape(&S, &S, NULL, EP), BAD, "ts_matmul_shape: out is NULL");

    EXPECT(ts_linear_shape(NULL, 3, 4, &t, &w, EP), BAD, "ts_linear_shape: in is NULL");
    EXPECT(ts_linear_shape(&S, 3, 4, NULL, &w, EP), BAD, "ts_linear_shape: out is NULL");
    ck_assert_int_eq(ts_linear_shape(&S, 3, 4, &t, NULL, NULL), TS_OK);

    EXPECT(ts_concat_shape(NULL, 2, 0, &t, EP), BAD, "ts_concat_shape: shapes is NULL but n is 2");
    EXPECT(ts_concat_shape(two, 2, 0, &t, EP), BAD, "ts_concat_shape: shapes[1] is NULL");
    ck_assert_int_eq(E.index, 1);
    EXPECT(ts_concat_shape(two, 1, 0, NULL, EP), BAD, "ts_concat_shape: out is NULL");
    EXPECT(ts_concat_shape(NULL, 0, 0, &t, EP), TS_ERR_NDIM, NULL);
    EXPECT(ts_stack_shape(NULL, 2, 0, &t, EP), BAD, "ts_stack_shape: shapes is NULL but n is 2");
    EXPECT(ts_stack_shape(two, 2, 0, &t, EP), BAD, "ts_stack_shape: shapes[1] is NULL");
    EXPECT(ts_stack_shape(two, 1, 0, NULL, EP), BAD, "ts_stack_shape: out is NULL");
    EXPECT(ts_stack_shape(NULL, 0, 0, &t, EP), TS_ERR_NDIM, NULL);

    ts_shape_free(&t);
    ts_shape_free(&w);
    ts_shape_free(&in);
}
END_TEST

Suite *args_suite(void)
{
    Suite *s = suite_create("args");
    TCase *tc = tcase_create("every public function");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_version_and_status);
    tcase_add_test(tc, test_shape_storage);
    tcase_add_test(tc, test_shape_text);
    tcase_add_test(tc, test_shape_arith);
    tcase_add_test(tc, test_dtypes);
    tcase_add_test(tc, test_blobs);
    tcase_add_test(tc, test_formats);
    tcase_add_test(tc, test_files);
    tcase_add_test(tc, test_layout_ops);
    tcase_add_test(tc, test_slices_and_iter);
    tcase_add_test(tc, test_patterns);
    tcase_add_test(tc, test_jagged);
    tcase_add_test(tc, test_dlpack);
    tcase_add_test(tc, test_models);
    tcase_add_test(tc, test_diffs);
    tcase_add_test(tc, test_summaries);
    tcase_add_test(tc, test_scan);
    tcase_add_test(tc, test_values);
    tcase_add_test(tc, test_layer_shapes);
    tcase_add_test(tc, test_verify);
    tcase_add_test(tc, test_fingerprint);
    suite_add_tcase(s, tc);
    return s;
}
