/* check_safetensors.c - the safetensors reader: the real corpus files, the
 * fixtures written by tests/fixtures/gen_safetensors.py (every dtype,
 * empty/0-d tensors, metadata, header order), every invalid fixture with its
 * exact status, and truncation/corruption loops that must never crash. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* Opens a fixture; fails the test unless it opens. */
static ts_file *open_fixture(const char *rel, int want_metadata)
{
    char path[512];
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.want_metadata = want_metadata;
    ts_file *f = NULL;
    ts_error err;
    ts_status st = ts_file_open(tu_fixture(path, sizeof path, rel), &o, &f, &err);
    ck_assert_msg(st == TS_OK, "%s: %s", rel, err.message);
    ck_assert_int_eq(ts_file_format(f), TS_FORMAT_SAFETENSORS);
    ck_assert_str_eq(ts_file_version(f), "");
    return f;
}

static void assert_shape_text(const ts_array *a, const char *text)
{
    tu_assert_shape(&a->shape, text);
}

/* ---- the real files ---- */

typedef struct corpus_row {
    const char *name, *dtype_name, *format_dtype;
    char byteorder;
    int64_t itemsize, nbytes, data_offset;
} corpus_row;

/* README-npy-safetensors.txt: N = 526, buffer of 168 bytes at 534, nine
 * (6,) tensors in header order; offsets from the header's data_offsets. */
static const corpus_row overall[] = {
    {"B", "uint8", "U8", '|', 1, 6, 534},
    {"H", "uint16", "U16", '<', 2, 12, 540},
    {"I", "uint32", "U32", '<', 4, 24, 552},
    {"b", "int8", "I8", '|', 1, 6, 576},
    {"d", "float64", "F64", '<', 8, 48, 582},
    {"e", "float16", "F16", '<', 2, 12, 630},
    {"f", "float32", "F32", '<', 4, 24, 642},
    {"h", "int16", "I16", '<', 2, 12, 666},
    {"i", "int32", "I32", '<', 4, 24, 678},
};

START_TEST(test_corpus_overall)
{
    char path[512];
    if (!tu_corpus_path(path, sizeof path, "safetensors/safetensors_samples_overall.safetensors"))
        return;
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.want_metadata = 1;
    ts_file *f;
    ts_error err;
    ck_assert_msg(ts_file_open(path, &o, &f, &err) == TS_OK, "%s", err.message);
    ck_assert_int_eq(ts_file_format(f), TS_FORMAT_SAFETENSORS);
    ck_assert_int_eq(ts_file_nbytes(f), 702);
    ck_assert_uint_eq(ts_file_count(f), 9);
    for (size_t i = 0; i < 9; i++) {
        const ts_array *a = ts_file_array(f, i);
        ck_assert_str_eq(a->name, overall[i].name);
        ck_assert_str_eq(a->dtype_name, overall[i].dtype_name);
        ck_assert_str_eq(a->format_dtype, overall[i].format_dtype);
        ck_assert_int_eq(a->byteorder, overall[i].byteorder);
        ck_assert_int_eq(a->itemsize, overall[i].itemsize);
        ck_assert_int_eq(a->bits, overall[i].itemsize * 8);
        ck_assert_int_eq(a->block_size, 1);
        ck_assert_int_eq(a->size, 6);
        ck_assert_int_eq(a->nbytes, overall[i].nbytes);
        ck_assert_int_eq(a->data_offset, overall[i].data_offset);
        ck_assert_int_eq(a->fortran_order, 0);
        assert_shape_text(a, "(6,)");
    }
    ck_assert_ptr_null(ts_file_array(f, 9));
    ck_assert_uint_eq(ts_file_metadata_count(f), 1);
    const char *k, *v;
    ck_assert_int_eq(ts_file_metadata(f, 0, &k, &v), 1);
    ck_assert_str_eq(k, "test");
    ck_assert_str_eq(v, "\"a\"");
    ck_assert_int_eq(ts_file_metadata(f, 1, &k, &v), 0);
    ts_file_close(f);

    /* Without want_metadata nothing is collected. */
    ck_assert_int_eq(ts_file_open(path, NULL, &f, &err), TS_OK);
    ck_assert_uint_eq(ts_file_metadata_count(f), 0);
    ck_assert_uint_eq(ts_file_count(f), 9);
    ts_file_close(f);
}
END_TEST

START_TEST(test_corpus_abuse)
{
    char path[512];
    if (!tu_corpus_path(path, sizeof path,
                        "safetensors/safetensors-cpp_abuse_attempt_1.safetensors"))
        return;
    ts_file *f = (ts_file *)1;
    ts_error err;
    /* Auto-detected as safetensors (the probe does not need the whole
     * header), then rejected as truncated. */
    ck_assert_int_eq(ts_file_open(path, NULL, &f, &err), TS_ERR_TRUNCATED);
    ck_assert_ptr_null(f);
    ck_assert_int_eq(err.code, TS_ERR_TRUNCATED);
    ck_assert_int_eq(err.offset, 0);
    ck_assert_str_eq(err.message, "header length 1000 at byte 0 runs past the end of the "
                                  "file: the header would end at byte 1008, the file has "
                                  "88 bytes");
}
END_TEST

/* ---- valid fixtures ---- */

typedef struct dtype_row {
    const char *name, *format_dtype, *dtype_name;
    ts_dtype dtype;
    const char *shape;
    int bits;
    int64_t itemsize, size, nbytes, data_offset;
    char byteorder;
} dtype_row;

/* good_all_dtypes: N = 1392, buffer at 1400; data in this order. */
static const dtype_row all_dtypes[] = {
    {"t_bool", "BOOL", "bool", TS_DTYPE_BOOL, "(2,)", 8, 1, 2, 2, 1400, '|'},
    {"t_f4", "F4", "float4_e2m1fn", TS_DTYPE_FLOAT4_E2M1FN, "(2,3)", 4, 0, 6, 3, 1402, '|'},
    {"t_f6_e2m3", "F6_E2M3", "float6_e2m3fn", TS_DTYPE_FLOAT6_E2M3FN, "(4,)", 6, 0, 4, 3, 1405, '|'},
    {"t_f6_e3m2", "F6_E3M2", "float6_e3m2fn", TS_DTYPE_FLOAT6_E3M2FN, "(2,4)", 6, 0, 8, 6, 1408, '|'},
    {"t_u8", "U8", "uint8", TS_DTYPE_UINT8, "(3,)", 8, 1, 3, 3, 1414, '|'},
    {"t_i8", "I8", "int8", TS_DTYPE_INT8, "(2,2)", 8, 1, 4, 4, 1417, '|'},
    {"t_f8_e5m2", "F8_E5M2", "float8_e5m2", TS_DTYPE_FLOAT8_E5M2, "(4,)", 8, 1, 4, 4, 1421, '|'},
    {"t_f8_e4m3", "F8_E4M3", "float8_e4m3fn", TS_DTYPE_FLOAT8_E4M3FN, "(2,2)", 8, 1, 4, 4, 1425, '|'},
    {"t_f8_e8m0", "F8_E8M0", "float8_e8m0fnu", TS_DTYPE_FLOAT8_E8M0FNU, "(2,)", 8, 1, 2, 2, 1429, '|'},
    {"t_f8_e4m3fnuz", "F8_E4M3FNUZ", "float8_e4m3fnuz", TS_DTYPE_FLOAT8_E4M3FNUZ, "(3,)", 8, 1, 3, 3, 1431, '|'},
    {"t_f8_e5m2fnuz", "F8_E5M2FNUZ", "float8_e5m2fnuz", TS_DTYPE_FLOAT8_E5M2FNUZ, "(1,)", 8, 1, 1, 1, 1434, '|'},
    {"t_i16", "I16", "int16", TS_DTYPE_INT16, "(3,)", 16, 2, 3, 6, 1435, '<'},
    {"t_u16", "U16", "uint16", TS_DTYPE_UINT16, "(1,2)", 16, 2, 2, 4, 1441, '<'},
    {"t_f16", "F16", "float16", TS_DTYPE_FLOAT16, "(2,)", 16, 2, 2, 4, 1445, '<'},
    {"t_bf16", "BF16", "bfloat16", TS_DTYPE_BFLOAT16, "(2,3)", 16, 2, 6, 12, 1449, '<'},
    {"t_i32", "I32", "int32", TS_DTYPE_INT32, "(2,)", 32, 4, 2, 8, 1461, '<'},
    {"t_u32", "U32", "uint32", TS_DTYPE_UINT32, "(1,)", 32, 4, 1, 4, 1469, '<'},
    {"t_f32", "F32", "float32", TS_DTYPE_FLOAT32, "(2,2)", 32, 4, 4, 16, 1473, '<'},
    {"t_c64", "C64", "complex64", TS_DTYPE_COMPLEX64, "(2,)", 64, 8, 2, 16, 1489, '<'},
    {"t_f64", "F64", "float64", TS_DTYPE_FLOAT64, "(1,)", 64, 8, 1, 8, 1505, '<'},
    {"t_i64", "I64", "int64", TS_DTYPE_INT64, "(2,)", 64, 8, 2, 16, 1513, '<'},
    {"t_u64", "U64", "uint64", TS_DTYPE_UINT64, "(1,1)", 64, 8, 1, 8, 1529, '<'},
};

#define N_ALL_DTYPES ((int)(sizeof all_dtypes / sizeof *all_dtypes))

START_TEST(test_all_dtypes)
{
    const dtype_row *r = &all_dtypes[_i];
    ts_file *f = open_fixture("safetensors/good_all_dtypes.safetensors", 0);
    ck_assert_uint_eq(ts_file_count(f), N_ALL_DTYPES);
    ck_assert_int_eq(ts_file_nbytes(f), 1537);
    const ts_array *a = ts_file_array(f, (size_t)_i);
    ck_assert_str_eq(a->name, r->name);
    ck_assert_int_eq(a->dtype, r->dtype);
    ck_assert_str_eq(a->dtype_name, r->dtype_name);
    ck_assert_str_eq(a->format_dtype, r->format_dtype);
    assert_shape_text(a, r->shape);
    ck_assert_int_eq(a->bits, r->bits);
    ck_assert_int_eq(a->itemsize, r->itemsize);
    ck_assert_int_eq(a->block_size, 1);
    ck_assert_int_eq(a->size, r->size);
    ck_assert_int_eq(a->nbytes, r->nbytes);
    ck_assert_int_eq(a->data_offset, r->data_offset);
    ck_assert_int_eq(a->byteorder, r->byteorder);
    ck_assert_int_eq(a->fortran_order, 0);
    ck_assert_ptr_null(a->note);
    ts_file_close(f);
}
END_TEST

START_TEST(test_empty_and_scalar)
{
    ts_file *f = open_fixture("safetensors/good_empty_scalar.safetensors", 0);
    ck_assert_uint_eq(ts_file_count(f), 3);
    const ts_array *a = ts_file_array(f, 0);
    ck_assert_str_eq(a->name, "scalar");
    assert_shape_text(a, "()");
    ck_assert_int_eq(ts_shape_ndim(&a->shape), 0);
    ck_assert_int_eq(a->size, 1);
    ck_assert_int_eq(a->nbytes, 8);
    ck_assert_int_eq(a->data_offset, 184);
    a = ts_file_array(f, 1);
    ck_assert_str_eq(a->name, "empty");
    assert_shape_text(a, "(0,3)");
    ck_assert_int_eq(a->size, 0);
    ck_assert_int_eq(a->nbytes, 0);
    ck_assert_int_eq(a->data_offset, 192);
    a = ts_file_array(f, 2);
    ck_assert_str_eq(a->name, "vec");
    ck_assert_str_eq(a->dtype_name, "int16");
    ck_assert_int_eq(a->nbytes, 6);
    ck_assert_int_eq(a->data_offset, 192);
    ts_file_close(f);
}
END_TEST

START_TEST(test_metadata)
{
    ts_file *f = open_fixture("safetensors/good_metadata.safetensors", 1);
    ck_assert_uint_eq(ts_file_count(f), 1);
    ck_assert_int_eq(ts_file_array(f, 0)->data_offset, 144);
    ck_assert_uint_eq(ts_file_metadata_count(f), 3);
    const char *k, *v;
    /* Header order; values as JSON text, UTF-8 kept, escapes re-encoded. */
    ck_assert_int_eq(ts_file_metadata(f, 0, &k, &v), 1);
    ck_assert_str_eq(k, "format");
    ck_assert_str_eq(v, "\"pt\"");
    ck_assert_int_eq(ts_file_metadata(f, 1, &k, &v), 1);
    ck_assert_str_eq(k, "note");
    ck_assert_str_eq(v, "\"caf\xc3\xa9 \\\"quoted\\\"\\\\n\"");
    ck_assert_int_eq(ts_file_metadata(f, 2, &k, &v), 1);
    ck_assert_str_eq(k, "empty");
    ck_assert_str_eq(v, "\"\"");
    ts_file_close(f);
}
END_TEST

START_TEST(test_header_order)
{
    /* Data order a, b, c; header (and report) order c, a, b; the header
     * is not padded (N = 162). */
    ts_file *f = open_fixture("safetensors/good_unordered.safetensors", 0);
    ck_assert_uint_eq(ts_file_count(f), 3);
    static const char *names[] = {"c", "a", "b"};
    static const int64_t offs[] = {181, 170, 175};
    static const int64_t nbytes[] = {4, 5, 6};
    for (size_t i = 0; i < 3; i++) {
        const ts_array *a = ts_file_array(f, i);
        ck_assert_str_eq(a->name, names[i]);
        ck_assert_int_eq(a->data_offset, offs[i]);
        ck_assert_int_eq(a->nbytes, nbytes[i]);
    }
    ts_file_close(f);

    f = open_fixture("safetensors/good_no_tensors.safetensors", 1);
    ck_assert_uint_eq(ts_file_count(f), 0);
    ck_assert_uint_eq(ts_file_metadata_count(f), 0);
    ts_file_close(f);
}
END_TEST

/* ---- invalid fixtures ---- */

typedef struct bad_row {
    const char *file;
    int forced;                 /* open with format safetensors instead of auto */
    ts_status status;
    int64_t offset;
    const char *message;        /* the exact message */
} bad_row;

static const bad_row bad[] = {
    {"bad_duplicate_key", 0, TS_ERR_FORMAT, 65,
     "duplicate key in the header at byte 65: duplicate object key near '\"a\"' "
     "(safetensors forbids duplicates; the reference reader would silently keep the last)"},
    {"bad_hole", 0, TS_ERR_FORMAT, 124,
     "hole in the data buffer: bytes [4, 8) belong to no tensor, between 'a' "
     "data_offsets [0, 4] and 'b' data_offsets [8, 12]"},
    {"bad_hole_start", 0, TS_ERR_FORMAT, 64,
     "hole in the data buffer: bytes [0, 4) belong to no tensor (the first tensor 'a' "
     "has data_offsets [4, 8]; the buffer starts at byte 64)"},
    {"bad_overlap", 0, TS_ERR_FORMAT, 124,
     "tensors 'a' data_offsets [0, 8] and 'b' data_offsets [4, 12] overlap: the second "
     "begins before the first ends"},
    {"bad_trailing", 0, TS_ERR_FORMAT, 128,
     "1 trailing byte after the last tensor: the data buffer is 9 bytes (file bytes "
     "120..128) but the tensors cover 8"},
    {"bad_missing", 0, TS_ERR_TRUNCATED, 127,
     "tensor 'b' data_offsets [4, 8] end at file byte 128, but the file has 127 bytes "
     "(1 missing)"},
    {"bad_size_mismatch", 0, TS_ERR_FORMAT, 54,
     "tensor 'b': data_offsets [0, 12] at byte 54 span 12 bytes, but shape (6,) x I8 "
     "is 6 bytes"},
    {"bad_f4_odd", 0, TS_ERR_FORMAT, 35,
     "tensor 'q': shape (3,) x F4 (4 bits each) at byte 35 is 12 bits, not a whole "
     "number of bytes"},
    {"bad_metadata_value", 0, TS_ERR_FORMAT, 9,
     "__metadata__ at byte 9: value of 'n' is an integer, expected a string "
     "(safetensors metadata maps strings to strings)"},
    {"bad_metadata_type", 0, TS_ERR_FORMAT, 9,
     "__metadata__ at byte 9 is a string, expected an object mapping strings to strings"},
    /* N > 1e8 is auto-detected, so the limit is named (was "unknown file
     * format"). */
    {"bad_header_too_large", 0, TS_ERR_LIMIT, 0,
     "header length 100000001 at byte 0 exceeds the limit of 100000000 bytes (the "
     "reference reader's MAX_HEADER_SIZE)"},
    {"bad_header_past_end", 0, TS_ERR_TRUNCATED, 0,
     "header length 1000 at byte 0 runs past the end of the file: the header would "
     "end at byte 1008, the file has 68 bytes"},
    {"bad_not_object", 1, TS_ERR_FORMAT, 8,
     "header is an array, expected a JSON object of tensors"},
    {"bad_invalid_json", 0, TS_ERR_FORMAT, 63,
     "header is not valid JSON at byte 63: string or '}' expected near '}'"},
    {"bad_offsets_one", 0, TS_ERR_FORMAT, 55,
     "tensor 'a': data_offsets at byte 55 has 1 element, expected 2: [BEGIN, END]"},
    {"bad_negative_dim", 0, TS_ERR_VALUE, 36,
     "tensor 'a': shape[0] at byte 36 is -1, expected a non-negative integer"},
    {"bad_dtype_f128", 0, TS_ERR_DTYPE, 22,
     "tensor 'a': unknown dtype \"F128\" at byte 22 (safetensors dtypes: BOOL U8 I8 "
     "I16 U16 I32 U32 I64 U64 F16 BF16 F32 F64 C64 F8_E5M2 F8_E4M3 F8_E4M3FNUZ "
     "F8_E5M2FNUZ F8_E8M0 F6_E2M3 F6_E3M2 F4)"},
    {"bad_missing_shape", 0, TS_ERR_FORMAT, 9,
     "tensor 'a' at byte 9: missing \"shape\" (each tensor needs \"dtype\", \"shape\" "
     "and \"data_offsets\")"},
    {"bad_offsets_reversed", 0, TS_ERR_FORMAT, 55,
     "tensor 'a': data_offsets [4, 0] at byte 55 end before they begin"},
    {"bad_nul_padding", 0, TS_ERR_FORMAT, 62,
     "header has a NUL byte at byte 62: JSON text cannot contain NUL (padding must "
     "be spaces)"},
    {"bad_utf8", 0, TS_ERR_FORMAT, 11,
     "header is not valid UTF-8 at byte 11: unable to decode byte 0xff near '\"a'"},
};

#define N_BAD ((int)(sizeof bad / sizeof *bad))

START_TEST(test_bad_fixture)
{
    const bad_row *r = &bad[_i];
    char rel[256], path[512];
    snprintf(rel, sizeof rel, "safetensors/%s.safetensors", r->file);
    tu_fixture(path, sizeof path, rel);
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.want_metadata = 1;
    if (r->forced)
        o.format = TS_FORMAT_SAFETENSORS;
    tu_expect_open_error(path, &o, r->status, r->offset, r->message);
}
END_TEST

/* The same entries through ts_file_open_memory, built in the test, for
 * rules the fixtures do not reach. */
static ts_status open_text(const char *header, size_t data_len, ts_error *err)
{
    size_t n = strlen(header);
    unsigned char *buf = calloc(1, 8 + n + data_len + 1);
    ck_assert_ptr_nonnull(buf);
    for (int i = 0; i < 8; i++)
        buf[i] = (unsigned char)((uint64_t)n >> (8 * i));
    memcpy(buf + 8, header, n);
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.format = TS_FORMAT_SAFETENSORS;
    ts_file *f;
    ts_status st = ts_file_open_memory(buf, 8 + n + data_len, &o, &f, err);
    ts_file_close(f);
    free(buf);
    return st;
}

/* A header 640, 896, 1152 or 1408 bytes long starts 80 0N 00 ..., as a
 * pickle of protocol N starts: detected as safetensors all the same (it was
 * read as a pickle and failed at byte 2), from memory and by a path with
 * any extension. */
START_TEST(test_header_length_like_pickle)
{
    static const size_t lengths[] = {640, 896, 1152, 1408, 640 + 65536};
    for (size_t k = 0; k < sizeof lengths / sizeof *lengths; k++) {
        size_t n = lengths[k];
        unsigned char *buf = malloc(8 + n + 4);
        ck_assert_ptr_nonnull(buf);
        for (int i = 0; i < 8; i++)
            buf[i] = (unsigned char)((uint64_t)n >> (8 * i));
        const char *h = "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}";
        memset(buf + 8, ' ', n);
        memcpy(buf + 8, h, strlen(h));
        memset(buf + 8 + n, 0, 4);
        ck_assert_int_eq(ts_format_detect(buf, 8 + n + 4), TS_FORMAT_SAFETENSORS);
        ts_file *f = NULL;
        ts_error err;
        ck_assert_msg(ts_file_open_memory(buf, 8 + n + 4, NULL, &f, &err) == TS_OK, "%s",
                      err.message);
        ck_assert_int_eq(ts_file_format(f), TS_FORMAT_SAFETENSORS);
        ck_assert_uint_eq(ts_file_count(f), 1);
        ts_file_close(f);
        free(buf);
    }
    /* a pickle of protocol 2 is still one */
    static const unsigned char pkl[] = {0x80, 0x02, ']', 'q', 0x00, '.'};
    ck_assert_int_eq(ts_format_detect(pkl, sizeof pkl), TS_FORMAT_PICKLE);
}
END_TEST

START_TEST(test_entry_rules)
{
    ts_error err;
    /* Unknown fields inside an entry are ignored, as by the reference. */
    ck_assert_int_eq(open_text("{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2],"
                               "\"extra\":[1]}}", 2, &err), TS_OK);
    /* A real number where an integer is needed. */
    ck_assert_int_eq(open_text("{\"a\":{\"dtype\":\"U8\",\"shape\":[2.0],\"data_offsets\":[0,2]}}",
                               2, &err), TS_ERR_FORMAT);
    ck_assert_str_eq(err.message, "tensor 'a': shape[0] at byte 35 is a real number, "
                                  "expected a non-negative integer");
    ck_assert_int_eq(open_text("{\"a\":{\"dtype\":1,\"shape\":[2],\"data_offsets\":[0,2]}}",
                               2, &err), TS_ERR_FORMAT);
    ck_assert_str_eq(err.message, "tensor 'a': dtype at byte 22 is an integer, expected "
                                  "a string such as \"F32\"");
    ck_assert_int_eq(open_text("{\"a\":[1]}", 0, &err), TS_ERR_FORMAT);
    ck_assert_str_eq(err.message, "tensor 'a' at byte 9: entry is an array, expected an "
                                  "object with \"dtype\", \"shape\" and \"data_offsets\"");
    ck_assert_int_eq(open_text("{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,-2]}}",
                               2, &err), TS_ERR_VALUE);
    ck_assert_str_eq(err.message, "tensor 'a': data_offsets[1] at byte 54 is -2, expected "
                                  "a non-negative integer");
    ck_assert_int_eq(open_text("{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":\"0,2\"}}",
                               2, &err), TS_ERR_FORMAT);
    ck_assert_str_eq(err.message, "tensor 'a': data_offsets at byte 54 is a string, "
                                  "expected [BEGIN, END]");
    /* Dims whose product overflows. */
    ck_assert_int_eq(open_text("{\"a\":{\"dtype\":\"F64\",\"shape\":[4294967296,4294967296],"
                               "\"data_offsets\":[0,0]}}", 0, &err), TS_ERR_OVERFLOW);
    /* size x bits overflows although size fits. */
    ck_assert_int_eq(open_text("{\"a\":{\"dtype\":\"F64\",\"shape\":[2305843009213693952],"
                               "\"data_offsets\":[0,0]}}", 0, &err), TS_ERR_OVERFLOW);
    ck_assert_str_eq(err.message, "tensor 'a': shape (2305843009213693952,) x F64 at byte "
                                  "36 is more than 2^63 bits");
    /* A dim above INT64_MAX is a JSON parse error from jansson. */
    ck_assert_int_eq(open_text("{\"a\":{\"dtype\":\"U8\",\"shape\":[9223372036854775808],"
                               "\"data_offsets\":[0,0]}}", 0, &err), TS_ERR_OVERFLOW);
    /* Control characters in a name are escaped in messages. */
    ck_assert_int_eq(open_text("{\"a\\nb\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,2]}}",
                               2, &err), TS_ERR_FORMAT);
    ck_assert_str_eq(err.message, "tensor 'a\\x0ab': data_offsets [0, 2] at byte 57 span 2 "
                                  "bytes, but shape (1,) x U8 is 1 bytes");
    /* An empty tensor lying inside another is an overlap. */
    ck_assert_int_eq(open_text("{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]},"
                               "\"e\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[2,2]}}",
                               4, &err), TS_ERR_FORMAT);
    ck_assert_str_eq(err.message, "tensors 'a' data_offsets [0, 4] and 'e' data_offsets "
                                  "[2, 2] overlap: the second begins before the first ends");
    /* Empty header and a header of spaces. */
    ck_assert_int_eq(open_text("", 0, &err), TS_ERR_FORMAT);
    ck_assert_str_eq(err.message, "header length is 0: the header must be a JSON object");
    ck_assert_int_eq(open_text("  {}  ", 0, &err), TS_OK);
    /* "__metadata__": null is no metadata, as the reference reader's
     * Option<HashMap> (issue 15: it was rejected). */
    ck_assert_int_eq(open_text("{\"__metadata__\":null,\"a\":{\"dtype\":\"U8\",\"shape\":[2],"
                               "\"data_offsets\":[0,2]}}", 2, &err), TS_OK);
    ck_assert_int_eq(open_text("{\"__metadata__\":null}", 0, &err), TS_OK);
}
END_TEST

/* The header's JSON scanner (src/core/json.c): escapes decoded into names,
 * surrogate pairs, the errors jansson reported before, in its words. */
static void expect_text_error(const char *header, ts_status code, const char *message)
{
    ts_error err;
    ck_assert_int_eq(open_text(header, 0, &err), code);
    ck_assert_str_eq(err.message, message);
}

START_TEST(test_json_rules)
{
    /* A name with escapes, a surrogate pair (U+1F600) and raw UTF-8. */
    const char *h = "{\"a\\tb\\u00e9\\ud83d\\ude00\xc3\xa9\\/\":{\"dtype\":\"U8\",\"shape\":[2],"
                    "\"data_offsets\":[0,2]}}";
    size_t n = strlen(h);
    unsigned char buf[256];
    memset(buf, 0, sizeof buf);
    for (int i = 0; i < 8; i++)
        buf[i] = (unsigned char)((uint64_t)n >> (8 * i));
    memcpy(buf + 8, h, n);
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    ts_file *f = NULL;
    ts_error err;
    ck_assert_msg(ts_file_open_memory(buf, 8 + n + 2, &o, &f, &err) == TS_OK, "%s", err.message);
    ck_assert_str_eq(ts_file_array(f, 0)->name, "a\tb\xc3\xa9\xf0\x9f\x98\x80\xc3\xa9/");
    ts_file_close(f);

    /* Keys equal once decoded are duplicates, at the top and inside entries. */
    expect_text_error("{\"a\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[0,0]},"
                      "\"\\u0061\":{}}", TS_ERR_FORMAT,
                      "duplicate key in the header at byte 69: duplicate object key near "
                      "'\"\\u0061\"' (safetensors forbids duplicates; the reference reader "
                      "would silently keep the last)");
    expect_text_error("{\"a\":{\"dtype\":\"U8\",\"dtype\":\"U8\"}}", TS_ERR_FORMAT,
                      "duplicate key in the header at byte 34: duplicate object key near "
                      "'\"dtype\"' (safetensors forbids duplicates; the reference reader "
                      "would silently keep the last)");
    expect_text_error("{\"a\":{\"x\":{\"k\":1,\"k\":2}}}", TS_ERR_FORMAT,
                      "duplicate key in the header at byte 28: duplicate object key near "
                      "'\"k\"' (safetensors forbids duplicates; the reference reader would "
                      "silently keep the last)");
    /* Lone and reversed surrogates, \u0000, bad escapes, control characters. */
    expect_text_error("{\"\\ud800\":1}", TS_ERR_FORMAT,
                      "header is not valid JSON at byte 16: invalid Unicode '\\uD800' near "
                      "'\"\\ud800'");
    expect_text_error("{\"\\udc00\\ud800\":1}", TS_ERR_FORMAT,
                      "header is not valid JSON at byte 16: invalid Unicode '\\uDC00' near "
                      "'\"\\udc00'");
    expect_text_error("{\"\\ud800\\u0041\":1}", TS_ERR_FORMAT,
                      "header is not valid JSON at byte 22: invalid Unicode "
                      "'\\uD800\\u0041' near '\"\\ud800\\u0041'");
    expect_text_error("{\"a\\u0000\":1}", TS_ERR_FORMAT,
                      "header is not valid JSON at byte 17: \\u0000 is not allowed (text is "
                      "kept as C strings) near '\"a\\u0000'");
    expect_text_error("{\"a\\x\":1}", TS_ERR_FORMAT,
                      "header is not valid JSON at byte 13: invalid escape near '\"a\\x'");
    expect_text_error("{\"a\tb\":1}", TS_ERR_FORMAT,
                      "header is not valid JSON at byte 12: control character 0x9 near "
                      "'\"a?'");
    /* Numbers: leading zeros, a bare sign, reals beyond double. */
    expect_text_error("{\"a\":{\"shape\":[01]}}", TS_ERR_FORMAT,
                      "header is not valid JSON at byte 25: invalid token near '01'");
    expect_text_error("{\"a\":{\"x\":-}}", TS_ERR_FORMAT,
                      "header is not valid JSON at byte 19: invalid token near '-'");
    expect_text_error("{\"a\":{\"x\":1e999}}", TS_ERR_OVERFLOW,
                      "number in the header at byte 23 does not fit in int64: real number "
                      "overflow near '1e999'");
    /* Trailing data, a missing value, the end of the text. */
    expect_text_error("{} {}", TS_ERR_FORMAT,
                      "header is not valid JSON at byte 12: end of file expected near '{'");
    expect_text_error("{\"a\":}", TS_ERR_FORMAT,
                      "header is not valid JSON at byte 14: unexpected token near '}'");
    expect_text_error("{\"a\":[1,", TS_ERR_FORMAT,
                      "header is not valid JSON at byte 16: unexpected token near end of file");
    expect_text_error("{\"a\"", TS_ERR_FORMAT,
                      "header is not valid JSON at byte 12: ':' expected near end of file");
    /* Nesting deeper than 2048 levels (the header's object is the first). */
    char *deep = malloc(2 * 2100 + 16);
    ck_assert_ptr_nonnull(deep);
    strcpy(deep, "{\"a\":");
    size_t k = strlen(deep);
    for (int i = 0; i < 2100; i++)
        deep[k++] = '[';
    for (int i = 0; i < 2100; i++)
        deep[k++] = ']';
    strcpy(deep + k, "}");
    ck_assert_int_eq(open_text(deep, 0, &err), TS_ERR_FORMAT);
    ck_assert_str_eq(err.message, "header is not valid JSON at byte 2061: maximum parsing "
                                  "depth reached near '['");
    free(deep);
}
END_TEST

START_TEST(test_short_files)
{
    static const unsigned char zeros[8];
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.format = TS_FORMAT_SAFETENSORS;
    ts_file *f;
    ts_error err;
    ck_assert_int_eq(ts_file_open_memory(zeros, 7, &o, &f, &err), TS_ERR_TRUNCATED);
    ck_assert_str_eq(err.message, "file is 7 bytes long, too short for the 8-byte header "
                                  "length of a safetensors file");
    ck_assert_int_eq(ts_file_open_memory(zeros, 0, &o, &f, &err), TS_ERR_TRUNCATED);
    ck_assert_int_eq(ts_file_open_memory(zeros, 8, &o, &f, &err), TS_ERR_FORMAT);
    ck_assert_str_eq(err.message, "header length is 0: the header must be a JSON object");
}
END_TEST

START_TEST(test_probe)
{
    unsigned char buf[32];
    memset(buf, 0, sizeof buf);
    memcpy(buf + 8, "{\"a\":", 5);
    buf[0] = 24;
    ck_assert_int_eq(ts_format_detect(buf, sizeof buf), TS_FORMAT_SAFETENSORS);
    /* Only the start is needed: a prefix still probes as safetensors. */
    ck_assert_int_eq(ts_format_detect(buf, 10), TS_FORMAT_SAFETENSORS);
    ck_assert_int_eq(ts_format_detect(buf, 8), TS_FORMAT_AUTO);
    /* Leading whitespace and "{}" */
    memcpy(buf + 8, "  {}", 4);
    ck_assert_int_eq(ts_format_detect(buf, 12), TS_FORMAT_SAFETENSORS);
    /* '{' followed by something other than '"' or '}' */
    memcpy(buf + 8, "{x}", 3);
    ck_assert_int_eq(ts_format_detect(buf, 12), TS_FORMAT_AUTO);
    /* Implausible lengths: 0, 1, above 2^40. */
    memcpy(buf + 8, "{}", 2);
    buf[0] = 1;
    ck_assert_int_eq(ts_format_detect(buf, 12), TS_FORMAT_AUTO);
    buf[0] = 0x01;
    buf[1] = 0xe1;
    buf[2] = 0xf5;
    buf[3] = 0x05; /* 100000001: past the limit, detected so the reader names it */
    ck_assert_int_eq(ts_format_detect(buf, 12), TS_FORMAT_SAFETENSORS);
    memset(buf, 0, 8);
    buf[5] = 1; /* 2^40 */
    ck_assert_int_eq(ts_format_detect(buf, 12), TS_FORMAT_SAFETENSORS);
    buf[0] = 1; /* 2^40 + 1 */
    ck_assert_int_eq(ts_format_detect(buf, 12), TS_FORMAT_AUTO);
}
END_TEST

/* ---- every prefix of a valid file is an error, never a crash ---- */

/* Forced, a prefix fails as truncated: the header length, the header or the
 * data buffer is cut short. */
static void truncation_loop(const unsigned char *data, size_t len)
{
    tu_check_prefixes("safetensors", data, len, TS_FORMAT_SAFETENSORS, 0);
}

START_TEST(test_truncation_corpus)
{
    char path[512];
    if (!tu_corpus_path(path, sizeof path, "safetensors/safetensors_samples_overall.safetensors"))
        return;
    size_t len;
    unsigned char *data = tu_read_file(path, &len);
    ck_assert_ptr_nonnull(data);
    ck_assert_uint_eq(len, 702);
    truncation_loop(data, len);
    free(data);
}
END_TEST

START_TEST(test_truncation_fixture)
{
    char path[512];
    size_t len;
    unsigned char *data =
        tu_read_file(tu_fixture(path, sizeof path, "safetensors/good_all_dtypes.safetensors"), &len);
    ck_assert_ptr_nonnull(data);
    truncation_loop(data, len);
    free(data);
}
END_TEST

/* Every header byte replaced by a few values: the reader must return (OK or
 * an error with a one-line message) and never crash or read out of bounds. */
START_TEST(test_corruption)
{
    char path[512];
    size_t len;
    unsigned char *data =
        tu_read_file(tu_fixture(path, sizeof path, "safetensors/good_empty_scalar.safetensors"), &len);
    ck_assert_ptr_nonnull(data);
    /* JSON punctuation and digits, besides NUL and a non-ASCII byte. */
    static const unsigned char values[] = {0x00, 0x22, 0x2c, 0x5b, 0x5d, 0x7b, 0x7d, 0x30, 0xff};
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.want_metadata = 1;
    o.format = TS_FORMAT_SAFETENSORS;
    tu_check_byte_changes(data, len, len, &o, values, sizeof values);
    free(data);
}
END_TEST

Suite *safetensors_suite(void)
{
    Suite *s = suite_create("safetensors");
    TCase *tc = tcase_create("corpus");
    tcase_add_test(tc, test_corpus_overall);
    tcase_add_test(tc, test_corpus_abuse);
    suite_add_tcase(s, tc);
    tc = tcase_create("fixtures");
    tcase_add_loop_test(tc, test_all_dtypes, 0, N_ALL_DTYPES);
    tcase_add_test(tc, test_empty_and_scalar);
    tcase_add_test(tc, test_metadata);
    tcase_add_test(tc, test_header_order);
    suite_add_tcase(s, tc);
    tc = tcase_create("errors");
    tcase_add_loop_test(tc, test_bad_fixture, 0, N_BAD);
    tcase_add_test(tc, test_entry_rules);
    tcase_add_test(tc, test_header_length_like_pickle);
    tcase_add_test(tc, test_json_rules);
    tcase_add_test(tc, test_short_files);
    tcase_add_test(tc, test_probe);
    suite_add_tcase(s, tc);
    tc = tcase_create("limits");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_truncation_corpus);
    tcase_add_test(tc, test_truncation_fixture);
    tcase_add_test(tc, test_corruption);
    suite_add_tcase(s, tc);
    return s;
}
