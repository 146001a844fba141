/* check_npy.c - the .npy reader: every fixture of tests/fixtures/gen_npy.py,
 * the real files of the shared corpus, header syntax built in memory, the
 * header limit, error reports and truncation at every length. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

typedef struct npy_case {
    const char *file;          /* fixture under tests/fixtures/npy/ */
    const char *version;
    const char *shape;
    ts_dtype dtype;
    const char *dtype_name;
    const char *format_dtype;
    int64_t itemsize;
    char byteorder;
    int64_t size, nbytes, data_offset;
    int fortran_order;
    const char *note;          /* exact, or NULL */
} npy_case;

#define OBJ_NOTE "object dtype: the payload is a Python pickle and was not inspected"

static const npy_case fixture_cases[] = {
    {"bool.npy", "1.0", "(3,)", TS_DTYPE_BOOL, "bool", "|b1", 1, '|', 3, 3, 128, 0, NULL},
    {"int8.npy", "1.0", "(3,)", TS_DTYPE_INT8, "int8", "|i1", 1, '|', 3, 3, 128, 0, NULL},
    {"int16.npy", "1.0", "(3,)", TS_DTYPE_INT16, "int16", "<i2", 2, '<', 3, 6, 128, 0, NULL},
    {"int32.npy", "1.0", "(3,)", TS_DTYPE_INT32, "int32", "<i4", 4, '<', 3, 12, 128, 0, NULL},
    {"int64.npy", "1.0", "(3,)", TS_DTYPE_INT64, "int64", "<i8", 8, '<', 3, 24, 128, 0, NULL},
    {"uint8.npy", "1.0", "(3,)", TS_DTYPE_UINT8, "uint8", "|u1", 1, '|', 3, 3, 128, 0, NULL},
    {"uint16.npy", "1.0", "(3,)", TS_DTYPE_UINT16, "uint16", "<u2", 2, '<', 3, 6, 128, 0, NULL},
    {"uint32.npy", "1.0", "(3,)", TS_DTYPE_UINT32, "uint32", "<u4", 4, '<', 3, 12, 128, 0, NULL},
    {"uint64.npy", "1.0", "(3,)", TS_DTYPE_UINT64, "uint64", "<u8", 8, '<', 3, 24, 128, 0, NULL},
    {"float16.npy", "1.0", "(3,)", TS_DTYPE_FLOAT16, "float16", "<f2", 2, '<', 3, 6, 128, 0,
     NULL},
    {"float32.npy", "1.0", "(3,)", TS_DTYPE_FLOAT32, "float32", "<f4", 4, '<', 3, 12, 128, 0,
     NULL},
    {"float64.npy", "1.0", "(3,)", TS_DTYPE_FLOAT64, "float64", "<f8", 8, '<', 3, 24, 128, 0,
     NULL},
    {"longdouble.npy", "1.0", "(3,)", TS_DTYPE_LONGDOUBLE, "float128", "<f16", 16, '<', 3, 48,
     128, 0, NULL},
    {"complex64.npy", "1.0", "(3,)", TS_DTYPE_COMPLEX64, "complex64", "<c8", 8, '<', 3, 24, 128,
     0, NULL},
    {"complex128.npy", "1.0", "(3,)", TS_DTYPE_COMPLEX128, "complex128", "<c16", 16, '<', 3, 48,
     128, 0, NULL},
    {"datetime64_ns.npy", "1.0", "(2,)", TS_DTYPE_DATETIME64, "datetime64[ns]", "<M8[ns]", 8,
     '<', 2, 16, 128, 0, NULL},
    {"datetime64_generic.npy", "1.0", "(2,)", TS_DTYPE_DATETIME64, "datetime64", "<M8", 8, '<',
     2, 16, 128, 0, NULL},
    {"timedelta64_s.npy", "1.0", "(2,)", TS_DTYPE_TIMEDELTA64, "timedelta64[s]", "<m8[s]", 8,
     '<', 2, 16, 128, 0, NULL},
    {"bytes_S5.npy", "1.0", "(2,)", TS_DTYPE_BYTES, "bytes40", "|S5", 5, '|', 2, 10, 128, 0,
     NULL},
    {"str_U3.npy", "1.0", "(2,)", TS_DTYPE_UNICODE, "str96", "<U3", 12, '<', 2, 24, 128, 0,
     NULL},
    {"void_V4.npy", "1.0", "(2,)", TS_DTYPE_VOID, "void32", "|V4", 4, '|', 2, 8, 128, 0, NULL},
    {"object.npy", "1.0", "(3,)", TS_DTYPE_OBJECT, "object", "|O", 8, '|', 3, -1, 128, 0,
     OBJ_NOTE},
    {"be_i4.npy", "1.0", "(6,)", TS_DTYPE_INT32, "int32", ">i4", 4, '>', 6, 24, 128, 0, NULL},
    {"be_f8.npy", "1.0", "(2,2)", TS_DTYPE_FLOAT64, "float64", ">f8", 8, '>', 4, 32, 128, 0,
     NULL},
    {"c_order_3d.npy", "1.0", "(2,3,4)", TS_DTYPE_FLOAT32, "float32", "<f4", 4, '<', 24, 96,
     128, 0, NULL},
    {"f_order_3d.npy", "1.0", "(2,3,4)", TS_DTYPE_INT16, "int16", "<i2", 2, '<', 24, 48, 128, 1,
     NULL},
    {"scalar.npy", "1.0", "()", TS_DTYPE_FLOAT64, "float64", "<f8", 8, '<', 1, 8, 128, 0, NULL},
    {"zero_size.npy", "1.0", "(0,3)", TS_DTYPE_FLOAT32, "float32", "<f4", 4, '<', 0, 0, 128, 0,
     NULL},
    {"structured.npy", "1.0", "(3,)", TS_DTYPE_STRUCTURED, "structured",
     "[('x', '|u1'), ('', '|V3'), ('y', '<f4', (2,)), ('z', '>i2'), ('', '|V2')]", 16, '|', 3,
     48, 192, 0, NULL},
    {"structured_nested.npy", "1.0", "(2,1)", TS_DTYPE_STRUCTURED, "structured",
     "[(('Title', 'a'), '<i4'), ('b', [('c', '<f8'), ('d', '|S2')])]", 14, '|', 2, 28, 192, 0,
     NULL},
    {"structured_object.npy", "1.0", "(1,)", TS_DTYPE_STRUCTURED, "structured",
     "[('i', '<i4'), ('o', '|O')]", 12, '|', 1, -1, 128, 0, OBJ_NOTE},
    {"v1.npy", "1.0", "(2,)", TS_DTYPE_FLOAT64, "float64", "<f8", 8, '<', 2, 16, 128, 0, NULL},
    {"v2.npy", "2.0", "(2,)", TS_DTYPE_FLOAT64, "float64", "<f8", 8, '<', 2, 16, 128, 0, NULL},
    {"v3.npy", "3.0", "(2,)", TS_DTYPE_FLOAT64, "float64", "<f8", 8, '<', 2, 16, 128, 0, NULL},
    {"v3_unicode_field.npy", "3.0", "(2,)", TS_DTYPE_STRUCTURED, "structured",
     "[('\xe6\x97\xa5', '<i2')]", 2, '|', 2, 4, 128, 0, NULL},
    {"py2_long.npy", "1.0", "(2,3)", TS_DTYPE_INT16, "int16", "<i2", 2, '<', 6, 12, 80, 0, NULL},
    {"native_order.npy", "1.0", "(2,)", TS_DTYPE_INT32, "int32", "=i4", 4, '=', 2, 8, 128, 0,
     "native byte order ('=')"},
    {"odd_syntax.npy", "1.0", "(1,2)", TS_DTYPE_UINT16, "uint16", "<u2", 2, '<', 2, 4, 128, 1,
     NULL},
};

/* The real files of /work/shared/corpus/npy (README-npy-safetensors.txt). */
static const npy_case corpus_cases[] = {
    {"npy/numpy_win64python2.npy", "1.0", "(2,)", TS_DTYPE_FLOAT64, "float64", "<f8", 8, '<', 2,
     16, 80, 0, NULL},
    {"npy/numpy_py3-objarr.npy", "1.0", "(4,)", TS_DTYPE_OBJECT, "object", "|O", 8, '|', 4, -1,
     128, 0, OBJ_NOTE},
    {"npy/xtensor_double_fortran.npy", "1.0", "(3,3,3)", TS_DTYPE_FLOAT64, "float64", "<f8", 8,
     '<', 27, 216, 128, 1, NULL},
    {"npy/npyz_structured.npy", "1.0", "(2,)", TS_DTYPE_STRUCTURED, "structured",
     "[('a', '<i4'), ('b', '<f4'), ('c', '<i8')]", 16, '|', 2, 32, 112, 0, NULL},
};

static void check_case(const npy_case *c, const char *path)
{
    ts_file *f = NULL;
    ts_error err;
    ts_status st = ts_file_open(path, NULL, &f, &err);
    ck_assert_msg(st == TS_OK, "%s: %s", path, err.message);
    ck_assert_int_eq(ts_file_format(f), TS_FORMAT_NPY);
    ck_assert_str_eq(ts_file_version(f), c->version);
    ck_assert_uint_eq(ts_file_count(f), 1);
    const ts_array *a = ts_file_array(f, 0);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_null(ts_file_array(f, 1));
    ck_assert_str_eq(a->name, "");
    tu_assert_shape(&a->shape, c->shape);
    ck_assert_int_eq(a->dtype, c->dtype);
    ck_assert_str_eq(a->dtype_name, c->dtype_name);
    ck_assert_str_eq(a->format_dtype, c->format_dtype);
    ck_assert_int_eq(a->itemsize, c->itemsize);
    ck_assert_int_eq(a->bits, c->itemsize * 8);
    ck_assert_int_eq(a->block_size, 1);
    ck_assert_int_eq(a->block_bytes, c->itemsize);
    ck_assert_int_eq(a->byteorder, c->byteorder);
    ck_assert_int_eq(a->size, c->size);
    ck_assert_int_eq(a->nbytes, c->nbytes);
    ck_assert_int_eq(a->data_offset, c->data_offset);
    ck_assert_int_eq(a->fortran_order, c->fortran_order);
    ck_assert_int_eq(a->storage, TS_STORAGE_DENSE);
    if (c->note)
        ck_assert_str_eq(a->note, c->note);
    else
        ck_assert_ptr_null(a->note);
    ts_file_close(f);
}

START_TEST(test_fixture)
{
    char rel[128], path[256];
    snprintf(rel, sizeof rel, "npy/%s", fixture_cases[_i].file);
    check_case(&fixture_cases[_i], tu_fixture(path, sizeof path, rel));
}
END_TEST

START_TEST(test_corpus)
{
    char path[512];
    if (!tu_corpus_path(path, sizeof path, corpus_cases[_i].file))
        return;
    check_case(&corpus_cases[_i], path);
}
END_TEST

/* Reading from memory gives what reading the file gives. */
START_TEST(test_memory_equals_file)
{
    char path[256];
    snprintf(path, sizeof path, "tests/fixtures/npy/%s", "structured_nested.npy");
    size_t len;
    unsigned char *buf = tu_read_file(path, &len);
    ck_assert_ptr_nonnull(buf);
    ts_file *f;
    ts_error err;
    ck_assert_int_eq(ts_file_open_memory(buf, len, NULL, &f, &err), TS_OK);
    ck_assert_int_eq(ts_file_nbytes(f), 220);
    ck_assert_int_eq(ts_file_array(f, 0)->itemsize, 14);
    ck_assert_int_eq(ts_file_array(f, 0)->data_offset, 192);
    ts_file_close(f);
    free(buf);
}
END_TEST

/* ---- bad files --------------------------------------------------------- */

typedef struct bad_case {
    const char *file;
    ts_format format;          /* TS_FORMAT_AUTO or forced */
    ts_status code;
    int64_t offset;
    const char *message;       /* exact */
} bad_case;

static const bad_case bad_cases[] = {
    {"bad_magic.npy", TS_FORMAT_AUTO, TS_ERR_FORMAT, 0,
     "unknown file format: the first bytes match none of npy, pytorch, pickle, tar, keras, npz, mxnet, "
     "safetensors, gguf, ggml, hdf5, tflite, executorch, tfckpt (formats without a signature "
     "need --format: tshape32, tshape64; or their extension: savedmodel, onnx, caffe, caffe2, "
     "tfjs, openvino, darknet, zarr, coreml)"},
    {"bad_magic.npy", TS_FORMAT_NPY, TS_ERR_FORMAT, 5,
     "not an npy file: expected the magic \\x93NUMPY at byte 0, found 'Z' (0x5a) at byte 5"},
    {"bad_version.npy", TS_FORMAT_AUTO, TS_ERR_UNSUPPORTED, 6,
     "npy version 9.0 at byte 6 is not supported (NumPy reads only 1.0, 2.0 and 3.0)"},
    {"bad_header_len.npy", TS_FORMAT_AUTO, TS_ERR_TRUNCATED, 8,
     "header length 4096 (at byte 8) runs past the end of the file: only 58 bytes follow "
     "byte 10"},
    {"bad_missing_key.npy", TS_FORMAT_AUTO, TS_ERR_FORMAT, 10,
     "header dict at byte 10: no 'fortran_order' key (an npy header has exactly the keys "
     "'descr', 'fortran_order' and 'shape')"},
    {"bad_extra_key.npy", TS_FORMAT_AUTO, TS_ERR_FORMAT, 66,
     "header dict at byte 10: unexpected key 'align' at byte 66 (an npy header has exactly "
     "the keys 'descr', 'fortran_order' and 'shape')"},
    {"bad_dict.npy", TS_FORMAT_AUTO, TS_ERR_FORMAT, 18,
     "header dict at byte 10: expected ':' at byte 18 after key 'descr', found ','"},
    {"bad_negative.npy", TS_FORMAT_AUTO, TS_ERR_FORMAT, 61,
     "header dict at byte 10: dimension 0 of the shape at byte 61 is negative (-1); NumPy: "
     "negative dimensions are not allowed"},
    {"bad_shape_list.npy", TS_FORMAT_AUTO, TS_ERR_FORMAT, 60,
     "header dict at byte 10: shape at byte 60 is a list; NumPy requires a tuple such as "
     "(2, 3) (\"shape is not valid\")"},
    {"bad_fortran.npy", TS_FORMAT_AUTO, TS_ERR_FORMAT, 44,
     "header dict at byte 10: fortran_order at byte 44 must be True or False, found '0'"},
    {"bad_descr.npy", TS_FORMAT_AUTO, TS_ERR_DTYPE, 20,
     "header dict at byte 10: descr at byte 20 is not a NumPy dtype: unknown dtype '<?4': "
     "expected a byte order (<, >, |, =) then a kind (b i u f c m M S U V O) then a size, "
     "like '<f4'"},
    {"bad_truncated.npy", TS_FORMAT_AUTO, TS_ERR_TRUNCATED, 128,
     "data is truncated: shape (3,3,3) of float64 needs 216 bytes at offset 128, but only 40 "
     "remain"},
    {"big_header.npy", TS_FORMAT_AUTO, TS_ERR_LIMIT, 8,
     "header length 10102 (at byte 8) is above the limit of 10000 bytes (NumPy's default "
     "max_header_size); if the file is trusted, raise it with --max-header N "
     "(ts_open_options.npy_max_header)"},
    /* An npz is not an npy. */
    {"stored.npz", TS_FORMAT_NPY, TS_ERR_FORMAT, 0,
     "not an npy file: expected the magic \\x93NUMPY at byte 0, found 'P' (0x50) at byte 0"},
};

START_TEST(test_bad)
{
    const bad_case *c = &bad_cases[_i];
    char path[256];
    snprintf(path, sizeof path, "tests/fixtures/npy/%s", c->file);
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.format = c->format;
    tu_expect_open_error(path, &o, c->code, c->offset, c->message);
}
END_TEST

/* ---- header limit -------------------------------------------------------- */

START_TEST(test_limit_raised)
{
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.npy_max_header = 10102;
    ts_file *f;
    ts_error err;
    ck_assert_int_eq(ts_file_open("tests/fixtures/npy/big_header.npy", &o, &f, &err), TS_OK);
    const ts_array *a = ts_file_array(f, 0);
    tu_assert_shape(&a->shape, "(4,)");
    ck_assert_str_eq(a->dtype_name, "uint8");
    ck_assert_int_eq(a->data_offset, 10112);
    ck_assert_int_eq(a->nbytes, 4);
    ts_file_close(f);

    o.npy_max_header = 10101;
    ck_assert_int_eq(ts_file_open("tests/fixtures/npy/big_header.npy", &o, &f, &err),
                     TS_ERR_LIMIT);
    ck_assert_str_eq(err.message,
                     "header length 10102 (at byte 8) is above the limit of 10101 bytes; if "
                     "the file is trusted, raise it with --max-header N "
                     "(ts_open_options.npy_max_header)");
    /* A small limit refuses ordinary files too. */
    o.npy_max_header = 100;
    ck_assert_int_eq(ts_file_open("tests/fixtures/npy/float32.npy", &o, &f, &err),
                     TS_ERR_LIMIT);
    o.npy_max_header = 118;
    ck_assert_int_eq(ts_file_open("tests/fixtures/npy/float32.npy", &o, &f, &err), TS_OK);
    ts_file_close(f);
}
END_TEST

/* ---- header syntax, built in memory ------------------------------------- */

/* An npy image: magic, version, length, header text, then `data` zero bytes. */
static unsigned char *make_npy(int major, const char *header, size_t data, size_t *len)
{
    size_t pre = major == 1 ? 10 : 12, hl = strlen(header);
    *len = pre + hl + data;
    unsigned char *b = calloc(1, *len);
    ck_assert_ptr_nonnull(b);
    memcpy(b, "\x93NUMPY", 6);
    b[6] = (unsigned char)major;
    b[7] = 0;
    b[8] = (unsigned char)(hl & 0xff);
    b[9] = (unsigned char)(hl >> 8);
    memcpy(b + pre, header, hl);
    return b;
}

typedef struct syntax_ok {
    int major;
    const char *header;
    const char *shape;
    const char *dtype_name;
    const char *format_dtype;
    int64_t itemsize;
    int fortran_order;
} syntax_ok;

static const syntax_ok syntax_ok_cases[] = {
    /* Keys in any order, either quote, no trailing comma, no padding. */
    {1, "{'shape': (2,), 'fortran_order': False, 'descr': '<f4'}", "(2,)", "float32", "<f4", 4,
     0},
    {1, "{\"descr\":\"<f4\",\"fortran_order\":True,\"shape\":(2,3)}", "(2,3)", "float32", "<f4",
     4, 1},
    {1, "  {'descr': u'<i8', 'fortran_order': False, 'shape': ( 1 , 2 , ), }\t\r\n",
     "(1,2)", "int64", "<i8", 8, 0},
    /* Escapes in strings are decoded. */
    {1, "{'descr': '\\x3cf8', 'fortran_order': False, 'shape': (), }", "()", "float64", "<f8",
     8, 0},
    {1, "{'de\\x73cr': '|b1', 'fortran_order': False, 'shape': (), }", "()", "bool", "|b1", 1,
     0},
    /* Python 2 'L' suffix in 1.0 and 2.0 headers. */
    {2, "{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 3L)}", "(2,3)", "float32", "<f4",
     4, 0},
    /* Sizes NumPy names by bits; zero itemsize; x86-32 long double. */
    {1, "{'descr': '|S0', 'fortran_order': False, 'shape': (7,)}", "(7,)", "bytes", "|S0", 0,
     0},
    {1, "{'descr': '<U0', 'fortran_order': False, 'shape': (7,)}", "(7,)", "str", "<U0", 0, 0},
    {1, "{'descr': '<f12', 'fortran_order': False, 'shape': (1,)}", "(1,)", "float96", "<f12",
     12, 0},
    {1, "{'descr': '<c32', 'fortran_order': False, 'shape': (1,)}", "(1,)", "complex256",
     "<c32", 32, 0},
    {1, "{'descr': '<M8[25s]', 'fortran_order': False, 'shape': (1,)}", "(1,)",
     "datetime64[25s]", "<M8[25s]", 8, 0},
    {1, "{'descr': '|O8', 'fortran_order': False, 'shape': (1,)}", "(1,)", "object", "|O8", 8,
     0},
    /* Structured: trailing commas (npy-rs), subarray as int, (base, shape)
     * tuples, double-quoted names with escapes, empty list, mixed order. */
    {1, "{'descr': [('a', '<i4'), ('b', '<f4'), ], 'fortran_order': False, 'shape': (2,)}",
     "(2,)", "structured", "[('a', '<i4'), ('b', '<f4'), ]", 8, 0},
    {1, "{'descr': [('a', '<i4', 3), ('b', ('<f8', (2, 2)))], 'fortran_order': False, "
        "'shape': (1,)}", "(1,)", "structured", "[('a', '<i4', 3), ('b', ('<f8', (2, 2)))]",
     44, 0},
    {1, "{'descr': [(\"it's\", '>i2'), ('q\\'', '<u2', ()), ('z', '|V0', (0,)), ], "
        "'fortran_order': False, 'shape': (3,)}", "(3,)", "structured",
     "[(\"it's\", '>i2'), ('q\\'', '<u2', ()), ('z', '|V0', (0,)), ]", 4, 0},
    {1, "{'descr': [], 'fortran_order': False, 'shape': (5,)}", "(5,)", "structured", "[]", 0,
     0},
    /* Python 2 headers are latin1: format_dtype is reported in UTF-8. */
    {1, "{'descr': [('\xe9', '<i2')], 'fortran_order': False, 'shape': (2,)}", "(2,)",
     "structured", "[('\xc3\xa9', '<i2')]", 2, 0},
    /* 3.0 headers are UTF-8. */
    {3, "{'descr': [('\xe6\x97\xa5', '<i2')], 'fortran_order': False, 'shape': (2,)}", "(2,)",
     "structured", "[('\xe6\x97\xa5', '<i2')]", 2, 0},
    /* Large but valid dims. */
    {1, "{'descr': '|u1', 'fortran_order': False, 'shape': (0, 9223372036854775807)}",
     "(0,9223372036854775807)", "uint8", "|u1", 1, 0},
};

START_TEST(test_syntax_ok)
{
    const syntax_ok *c = &syntax_ok_cases[_i];
    size_t len;
    unsigned char *b = make_npy(c->major, c->header, 200, &len);
    ts_file *f;
    ts_error err;
    ck_assert_msg(ts_file_open_memory(b, len, NULL, &f, &err) == TS_OK, "%s: %s", c->header,
                  err.message);
    const ts_array *a = ts_file_array(f, 0);
    tu_assert_shape(&a->shape, c->shape);
    ck_assert_str_eq(a->dtype_name, c->dtype_name);
    ck_assert_str_eq(a->format_dtype, c->format_dtype);
    ck_assert_int_eq(a->itemsize, c->itemsize);
    ck_assert_int_eq(a->fortran_order, c->fortran_order);
    ck_assert_int_eq(a->data_offset, (int64_t)(len - 200));
    ts_file_close(f);
    free(b);
}
END_TEST

typedef struct syntax_bad {
    int major;
    const char *header;
    ts_status code;
    int64_t offset;
    const char *message;   /* exact */
} syntax_bad;

#define H1 "header dict at byte 10: "
#define H3 "header dict at byte 12: "

static const syntax_bad syntax_bad_cases[] = {
    {1, "", TS_ERR_FORMAT, 10,
     H1 "expected '{' to open the header dict at byte 10, found the end of the header"},
    {1, "['descr']", TS_ERR_FORMAT, 10,
     H1 "expected '{' to open the header dict at byte 10, found '['"},
    {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)", TS_ERR_FORMAT, 64,
     H1 "expected ',' or '}' at byte 64 after the value of 'shape', found the end of the "
        "header"},
    {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x", TS_ERR_FORMAT, 66,
     H1 "unexpected 'x' at byte 66 after the header dict (only spaces and a newline may "
        "follow it)"},
    {1, "{descr: '<f4'}", TS_ERR_FORMAT, 11,
     H1 "expected a quoted string for a key at byte 11, found 'descr'"},
    {1, "{'descr: '<f4'}", TS_ERR_FORMAT, 11,
     H1 "unexpected key 'descr: ' at byte 11 (an npy header has exactly the keys 'descr', "
        "'fortran_order' and 'shape')"},
    {1, "{'descr': '<f4, 'fortran_order': False}", TS_ERR_DTYPE, 20,
     H1 "descr at byte 20 is not a NumPy dtype: dtype '<f4, ': unexpected ', ' after the "
        "size"},
    {1, "{'descr': '<f4' 'fortran_order': False}", TS_ERR_FORMAT, 26,
     H1 "expected ',' or '}' at byte 26 after the value of 'descr', found a string"},
    {1, "{'descr': '<f4", TS_ERR_FORMAT, 20,
     H1 "string descr starting at byte 20 is not closed: expected ' before the end of the "
        "header"},
    {1, "{'descr': '<f4\n'}", TS_ERR_FORMAT, 20,
     H1 "string descr starting at byte 20 is not closed: expected ' before the end of the "
        "line"},
    {1, "{'descr': '<f\\q4'}", TS_ERR_FORMAT, 23,
     H1 "unsupported escape '\\q' at byte 23 in descr"},
    {1, "{'descr': '<f\\x4'}", TS_ERR_FORMAT, 23,
     H1 "bad escape at byte 23 in descr: \\x needs two hex digits"},
    {1, "{'descr': '<f4', 'descr': '<f8'}", TS_ERR_FORMAT, 27,
     H1 "duplicate key 'descr' at byte 27"},
    {1, "{'descr': '<f4', 'fortran_order': False}", TS_ERR_FORMAT, 10,
     H1 "no 'shape' key (an npy header has exactly the keys 'descr', 'fortran_order' and "
        "'shape')"},
    {1, "{}", TS_ERR_FORMAT, 10,
     H1 "no 'descr' and 'fortran_order' and 'shape' keys (an npy header has exactly the keys "
        "'descr', 'fortran_order' and 'shape')"},
    {1, "{'shape': (3)}", TS_ERR_FORMAT, 20,
     H1 "the shape at byte 20 is an int in parentheses, not a tuple: a 1-d shape is written "
        "(3,)"},
    {1, "{'shape': 3}", TS_ERR_FORMAT, 20,
     H1 "shape at byte 20 must be a tuple of non-negative ints such as (2, 3), found '3'"},
    {1, "{'shape': (2,,3)}", TS_ERR_FORMAT, 23,
     H1 "expected a non-negative int for dimension 1 of the shape at byte 23, found ','"},
    {1, "{'shape': (2 3)}", TS_ERR_FORMAT, 23,
     H1 "expected ',' or ')' in the shape at byte 23, found '3'"},
    {1, "{'shape': (True, 3)}", TS_ERR_FORMAT, 21,
     H1 "expected a non-negative int for dimension 0 of the shape at byte 21, found 'True'"},
    {1, "{'shape': (2.5,)}", TS_ERR_FORMAT, 22,
     H1 "expected ',' or ')' in the shape at byte 22, found '.'"},
    {1, "{'shape': (03,)}", TS_ERR_FORMAT, 21,
     H1 "dimension 0 of the shape at byte 21 has leading zeros, which a Python int literal "
        "may not have"},
    {1, "{'shape': (2, +3)}", TS_ERR_FORMAT, 24,
     H1 "expected a non-negative int for dimension 1 of the shape at byte 24, found '+'"},
    {1, "{'shape': (2x,)}", TS_ERR_FORMAT, 21,
     H1 "expected a non-negative int for dimension 0 of the shape at byte 21, found '2x'"},
    {1, "{'shape': (9223372036854775808,)}", TS_ERR_OVERFLOW, 21,
     H1 "dimension 0 of the shape at byte 21 does not fit in int64"},
    {3, "{'shape': (2L,)}", TS_ERR_FORMAT, 24,
     H3 "the Python 2 'L' suffix at byte 24 is only allowed in version 1.0 and 2.0 headers"},
    {1, "{'fortran_order': false}", TS_ERR_FORMAT, 28,
     H1 "fortran_order at byte 28 must be True or False, found 'false'"},
    {1, "{'fortran_order': Truex}", TS_ERR_FORMAT, 28,
     H1 "fortran_order at byte 28 must be True or False, found 'Truex'"},
    {1, "{'descr': 4}", TS_ERR_FORMAT, 20,
     H1 "descr at byte 20 must be a string such as '<f4' or a list of fields, found '4'"},
    {1, "{'descr': ('<f4', (2,))}", TS_ERR_UNSUPPORTED, 20,
     H1 "descr at byte 20 is a (type, shape) tuple; NumPy no longer writes subarray descrs "
        "at the top level and tshape does not read them"},
    {1, "{'descr': 'f8xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'}",
     TS_ERR_DTYPE, 20, NULL},
    {1, "{'descr': '<f3'}", TS_ERR_DTYPE, 20,
     H1 "descr at byte 20 is not a NumPy dtype: dtype '<f3': no float type of 3 bytes"},
    {1, "{'descr': [('a', '<q8')]}", TS_ERR_DTYPE, 27,
     H1 "descr at byte 27 is not a NumPy dtype: unknown dtype '<q8': expected a byte order "
        "(<, >, |, =) then a kind (b i u f c m M S U V O) then a size, like '<f4'"},
    {1, "{'descr': ['a', '<i4']}", TS_ERR_FORMAT, 21,
     H1 "expected a field tuple such as ('x', '<f4') at byte 21, found a string"},
    {1, "{'descr': [('a' '<i4')]}", TS_ERR_FORMAT, 26,
     H1 "expected ',' after the field name at byte 26, found a string"},
    {1, "{'descr': [('a', 4)]}", TS_ERR_FORMAT, 27,
     H1 "expected a field type (a string such as '<f4' or a list of fields) at byte 27, "
        "found '4'"},
    {1, "{'descr': [('a', '<i4', -2)]}", TS_ERR_FORMAT, 34,
     H1 "the subarray shape at byte 34 is negative (-2); NumPy: negative dimensions are not "
        "allowed"},
    {1, "{'descr': [('a', '<i4') ('b', '<i4')]}", TS_ERR_FORMAT, 34,
     H1 "expected ',' or ']' after a field at byte 34, found '('"},
    {1, "{'descr': [('a', '<i4', (4611686018427387904,))]}", TS_ERR_OVERFLOW, 34,
     H1 "the byte size of the subarray at byte 34 does not fit in int64"},
    {1, "{'descr': [('a', '|V4611686018427387904'), ('b', '|V4611686018427387904')]}",
     TS_ERR_OVERFLOW, 20,
     H1 "the itemsize of the structured dtype at byte 20 does not fit in int64"},
    {1, "{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 2)}",
     TS_ERR_OVERFLOW, 10,
     H1 "the product of (4611686018427387904,2) does not fit in int64"},
    {1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1152921504606846976, 2)}",
     TS_ERR_OVERFLOW, 10,
     H1 "byte size of shape (1152921504606846976,2) x float64 does not fit in int64"},
    {3, "{'descr': [('\xe9', '<i2')]}", TS_ERR_FORMAT, 25,
     H3 "invalid UTF-8 at byte 25 (version 3.0 headers are UTF-8)"},
};

START_TEST(test_syntax_bad)
{
    const syntax_bad *c = &syntax_bad_cases[_i];
    size_t len;
    /* Room for any data, so only the header can fail. */
    unsigned char *b = make_npy(c->major, c->header, 64, &len);
    ts_file *f;
    ts_error err;
    ts_status st = ts_file_open_memory(b, len, NULL, &f, &err);
    ck_assert_msg(st == c->code, "%s: status %d, expected %d: %s", c->header, st, c->code,
                  err.message);
    ck_assert_msg(err.offset == c->offset, "%s: offset %lld, expected %lld: %s", c->header,
                  (long long)err.offset, (long long)c->offset, err.message);
    if (c->message)
        ck_assert_str_eq(err.message, c->message);
    else
        ck_assert_msg(strncmp(err.message, "header dict at byte 10: ", 24) == 0, "%s",
                      err.message);
    free(b);
}
END_TEST

/* A NUL after the dict, and data one byte short, in memory. */
START_TEST(test_header_edges)
{
    static const char nul[] = "\x93NUMPY\x01\x00\x05\x00{}  \0";
    ts_file *f;
    ts_error err;
    ck_assert_int_eq(ts_file_open_memory(nul, sizeof nul - 1, NULL, &f, &err), TS_ERR_FORMAT);
    ck_assert_str_eq(err.message, H1 "unexpected byte 0x00 at byte 14 after the header dict "
                     "(only spaces and a newline may follow it)");
    ck_assert_int_eq(err.offset, 14);

    size_t len;
    unsigned char *b = make_npy(1, "{'descr': '|u1', 'fortran_order': False, 'shape': (2,)}",
                                1, &len);
    ck_assert_int_eq(ts_file_open_memory(b, len, NULL, &f, &err), TS_ERR_TRUNCATED);
    ck_assert_str_eq(err.message, "data is truncated: shape (2,) of uint8 needs 2 bytes at "
                     "offset 65, but only 1 remain");
    ck_assert_int_eq(err.offset, 65);
    free(b);
    /* Exactly enough data, and trailing bytes (NumPy ignores them), are fine. */
    for (size_t extra = 2; extra <= 3; extra++) {
        b = make_npy(1, "{'descr': '|u1', 'fortran_order': False, 'shape': (2,)}", extra, &len);
        ck_assert_int_eq(ts_file_open_memory(b, len, NULL, &f, &err), TS_OK);
        ck_assert_int_eq(ts_file_array(f, 0)->nbytes, 2);
        ts_file_close(f);
        free(b);
    }
}
END_TEST

/* Limits that protect the parser itself. */
START_TEST(test_parser_limits)
{
    char header[2048];
    ts_file *f;
    ts_error err;
    size_t len;
    unsigned char *b;

    /* 65 dims: above TS_MAX_NDIM. */
    strcpy(header, "{'descr': '<f4', 'fortran_order': False, 'shape': (");
    for (int i = 0; i < 65; i++)
        strcat(header, "1,");
    strcat(header, ")}");
    b = make_npy(1, header, 4, &len);
    ck_assert_int_eq(ts_file_open_memory(b, len, NULL, &f, &err), TS_ERR_NDIM);
    ck_assert_str_eq(err.message, H1 "the shape at byte 60 has more than 64 dimensions");
    free(b);
    /* 64 dims are fine. */
    header[strlen(header) - 4] = ')';
    header[strlen(header) - 3] = '}';
    header[strlen(header) - 2] = '\0';
    b = make_npy(1, header, 4, &len);
    ck_assert_msg(ts_file_open_memory(b, len, NULL, &f, &err) == TS_OK, "%s", err.message);
    ck_assert_int_eq(ts_shape_ndim(&ts_file_array(f, 0)->shape), 64);
    ts_file_close(f);
    free(b);

    /* Nesting deeper than 32 levels of structured dtypes. */
    strcpy(header, "{'descr': ");
    for (int i = 0; i < 40; i++)
        strcat(header, "[('a', ");
    strcat(header, "'<i4'");
    for (int i = 0; i < 40; i++)
        strcat(header, ")]");
    strcat(header, ", 'fortran_order': False, 'shape': ()}");
    b = make_npy(1, header, 4, &len);
    ck_assert_int_eq(ts_file_open_memory(b, len, NULL, &f, &err), TS_ERR_LIMIT);
    ck_assert_str_eq(err.message, H1 "dtype nesting at byte 244 is deeper than 32 levels");
    free(b);
    /* 32 levels are fine. */
    strcpy(header, "{'descr': ");
    for (int i = 0; i < 32; i++)
        strcat(header, "[('a', ");
    strcat(header, "'<i4'");
    for (int i = 0; i < 32; i++)
        strcat(header, ")]");
    strcat(header, ", 'fortran_order': False, 'shape': ()}");
    b = make_npy(1, header, 4, &len);
    ck_assert_msg(ts_file_open_memory(b, len, NULL, &f, &err) == TS_OK, "%s", err.message);
    ck_assert_int_eq(ts_file_array(f, 0)->itemsize, 4);
    ts_file_close(f);
    free(b);
}
END_TEST

/* Magic, version and length field at every short length. */
START_TEST(test_preamble)
{
    ts_file *f;
    ts_error err;
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.format = TS_FORMAT_NPY;
    ck_assert_int_eq(ts_file_open_memory("\x93NUMPY\x01", 7, &o, &f, &err), TS_ERR_TRUNCATED);
    ck_assert_str_eq(err.message, "file ends at byte 7, inside the npy magic and version "
                     "(8 bytes)");
    ck_assert_int_eq(ts_file_open_memory("\x93NUMPY\x02\x00\x05\x00", 10, &o, &f, &err),
                     TS_ERR_TRUNCATED);
    ck_assert_str_eq(err.message, "file ends at byte 10, inside the 4-byte header length at "
                     "byte 8");
    ck_assert_int_eq(ts_file_open_memory("\x93NUMPY\x01\x01\x00\x00", 10, &o, &f, &err),
                     TS_ERR_UNSUPPORTED);
    ck_assert_str_eq(err.message, "npy version 1.1 at byte 6 is not supported (NumPy reads "
                     "only 1.0, 2.0 and 3.0)");
    ck_assert_int_eq(ts_file_open_memory("\x93NUMPY\x00\x00\x00\x00", 10, &o, &f, &err),
                     TS_ERR_UNSUPPORTED);
    ck_assert_int_eq(ts_file_open_memory("", 0, &o, &f, &err), TS_ERR_TRUNCATED);
    ck_assert_int_eq(ts_file_open_memory("\x93NUM", 4, &o, &f, &err), TS_ERR_TRUNCATED);
    ck_assert_int_eq(ts_file_open_memory("\x93NUX", 4, &o, &f, &err), TS_ERR_FORMAT);
    ck_assert_int_eq(err.offset, 3);
    /* A 2.0 header length of 4 GiB - 1 in a tiny file is refused before use. */
    ck_assert_int_eq(ts_file_open_memory("\x93NUMPY\x02\x00\xff\xff\xff\xff{}", 14, &o, &f,
                                         &err), TS_ERR_TRUNCATED);
    ck_assert_str_eq(err.message, "header length 4294967295 (at byte 8) runs past the end of "
                     "the file: only 2 bytes follow byte 12");
    /* Auto-detection needs the whole magic. */
    ck_assert_int_eq(ts_format_detect("\x93NUMPY", 6), TS_FORMAT_NPY);
    ck_assert_int_eq(ts_format_detect("\x93NUMP", 5), TS_FORMAT_AUTO);
}
END_TEST

/* Every proper prefix of a valid file fails cleanly with an error status. */
static const char *const prefix_files[] = {
    "tests/fixtures/npy/structured.npy",   "tests/fixtures/npy/py2_long.npy",
    "tests/fixtures/npy/v2.npy",           "tests/fixtures/npy/v3_unicode_field.npy",
    "tests/fixtures/npy/odd_syntax.npy",   "tests/fixtures/npy/scalar.npy",
    "tests/fixtures/npy/stored.npz",       "tests/fixtures/npy/compressed.npz",
    "corpus:npy/xtensor_double_fortran.npy", "corpus:npy/npyz_structured.npy",
};

START_TEST(test_every_prefix_fails)
{
    char path[512];
    size_t len;
    unsigned char *full = tu_read_named(prefix_files[_i], path, sizeof path, &len);
    if (!full)
        return; /* corpus absent */
    /* Each prefix fails auto-detected and forced to npy and to npz. */
    tu_check_prefixes(path, full, len, TS_FORMAT_NPY, SIZE_MAX);
    tu_check_prefixes(path, full, len, TS_FORMAT_NPZ, SIZE_MAX);
    free(full);
}
END_TEST

Suite *npy_suite(void)
{
    Suite *s = suite_create("npy");
    TCase *tc = tcase_create("files");
    tcase_add_loop_test(tc, test_fixture, 0, (int)(sizeof fixture_cases / sizeof *fixture_cases));
    tcase_add_loop_test(tc, test_corpus, 0, (int)(sizeof corpus_cases / sizeof *corpus_cases));
    tcase_add_test(tc, test_memory_equals_file);
    suite_add_tcase(s, tc);

    tc = tcase_create("syntax");
    tcase_add_loop_test(tc, test_syntax_ok, 0,
                        (int)(sizeof syntax_ok_cases / sizeof *syntax_ok_cases));
    tcase_add_loop_test(tc, test_syntax_bad, 0,
                        (int)(sizeof syntax_bad_cases / sizeof *syntax_bad_cases));
    tcase_add_test(tc, test_header_edges);
    suite_add_tcase(s, tc);

    tc = tcase_create("errors");
    tcase_add_loop_test(tc, test_bad, 0, (int)(sizeof bad_cases / sizeof *bad_cases));
    tcase_add_test(tc, test_preamble);
    suite_add_tcase(s, tc);

    tc = tcase_create("limits");
    tcase_add_test(tc, test_limit_raised);
    tcase_add_test(tc, test_parser_limits);
    tcase_add_loop_test(tc, test_every_prefix_fails, 0,
                        (int)(sizeof prefix_files / sizeof *prefix_files));
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    return s;
}
