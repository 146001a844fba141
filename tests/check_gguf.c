/* check_gguf.c - the GGUF reader: fixtures written by
 * tests/fixtures/gen_gguf.py (v3 and v2, plain and quantized types, both dim
 * orders, metadata as JSON text), every invalid fixture with its exact
 * status, message and offset, files built in memory for the remaining rules,
 * and truncation/corruption loops that must never crash. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static ts_file *open_fixture(const char *rel, int want_metadata, int stored_order)
{
    char path[512];
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.want_metadata = want_metadata;
    o.gguf_stored_order = stored_order;
    ts_file *f = NULL;
    ts_error err;
    ts_status st = ts_file_open(tu_fixture(path, sizeof path, rel), &o, &f, &err);
    ck_assert_msg(st == TS_OK, "%s: %s", rel, err.message);
    ck_assert_int_eq(ts_file_format(f), TS_FORMAT_GGUF);
    return f;
}

/* ---- good_v3.gguf ---- */

typedef struct v3_row {
    const char *name, *shape, *stored, *dtype_name, *format_dtype;
    ts_dtype dtype;
    int64_t itemsize, bits, block_size, block_bytes, size, nbytes, data_offset;
} v3_row;

/* Data section at 832 (tensor infos end at 804, aligned to 32); each tensor
 * padded to 32 bytes. Values cross-checked with a Python parse of the file. */
static const v3_row v3[] = {
    {"token_embd.weight", "(3,4)", "(4,3)", "float32", "F32", TS_DTYPE_FLOAT32,
     4, 32, 1, 4, 12, 48, 832},
    {"output_norm.weight", "(8,)", "(8,)", "float16", "F16", TS_DTYPE_FLOAT16,
     2, 16, 1, 2, 8, 16, 896},
    {"blk.0.attn_q.weight", "(2,32)", "(32,2)", "q4_0", "Q4_0", TS_DTYPE_QUANTIZED,
     0, 0, 32, 18, 64, 36, 928},
    {"blk.0.ffn_up.weight", "(64,)", "(64,)", "q8_0", "Q8_0", TS_DTYPE_QUANTIZED,
     0, 0, 32, 34, 64, 68, 992},
    {"blk.0.ffn_down.weight", "(1,256)", "(256,1)", "q4_k", "Q4_K", TS_DTYPE_QUANTIZED,
     0, 0, 256, 144, 256, 144, 1088},
};

#define N_V3 ((int)(sizeof v3 / sizeof *v3))

START_TEST(test_v3_tensors)
{
    const v3_row *r = &v3[_i];
    for (int stored = 0; stored < 2; stored++) {
        ts_file *f = open_fixture("gguf/good_v3.gguf", 0, stored);
        ck_assert_str_eq(ts_file_version(f), "3");
        ck_assert_int_eq(ts_file_nbytes(f), 1248);
        ck_assert_uint_eq(ts_file_count(f), N_V3);
        ck_assert_uint_eq(ts_file_metadata_count(f), 0);
        const ts_array *a = ts_file_array(f, (size_t)_i);
        ck_assert_str_eq(a->name, r->name);
        tu_assert_shape(&a->shape, stored ? r->stored : r->shape);
        ck_assert_int_eq(a->dtype, r->dtype);
        ck_assert_str_eq(a->dtype_name, r->dtype_name);
        ck_assert_str_eq(a->format_dtype, r->format_dtype);
        ck_assert_int_eq(a->byteorder, '<');
        ck_assert_int_eq(a->itemsize, r->itemsize);
        ck_assert_int_eq(a->bits, r->bits);
        ck_assert_int_eq(a->block_size, r->block_size);
        ck_assert_int_eq(a->block_bytes, r->block_bytes);
        ck_assert_int_eq(a->size, r->size);
        ck_assert_int_eq(a->nbytes, r->nbytes);
        ck_assert_int_eq(a->data_offset, r->data_offset);
        ck_assert_int_eq(a->fortran_order, 0);
        ts_file_close(f);
    }
}
END_TEST

typedef struct collect {
    char *buf;
    size_t n, cap;
} collect;

static int collect_write(void *user, const char *data, size_t len)
{
    collect *c = user;
    if (len > c->cap - c->n)
        return 1;
    memcpy(c->buf + c->n, data, len);
    c->n += len;
    return 0;
}

START_TEST(test_v3_metadata)
{
    static const char *const expect[][2] = {
        {"general.architecture", "\"llama\""},
        {"general.alignment", "32"},
        {"llama.block_count", "7"},
        {"tokenizer.ggml.tokens", "[\"<s>\",\"</s>\",\"h\xc3\xa9\\\"llo\"]"},
        /* f32 1e-5, shortest text that reads back as the same float */
        {"llama.attention.layer_norm_rms_epsilon", "1e-05"},
        {"general.quantized", "true"},
        {"test.i8", "-5"},
        {"test.u64", "18446744073709551615"},
        {"test.f64", "0.1"},
        {"test.ints", "[1,-2,3]"},
        /* arrays in full whatever their length (issue 15: a JSON string
         * summary used to stand for arrays of more than 64 elements) */
        {"test.long", "[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,64,65,66,67,68,69]"},
    };
    ts_file *f = open_fixture("gguf/good_v3.gguf", 1, 0);
    size_t n = sizeof expect / sizeof *expect;
    ck_assert_uint_eq(ts_file_metadata_count(f), n);
    for (size_t i = 0; i < n; i++) {
        const char *k, *v;
        ck_assert_int_eq(ts_file_metadata(f, i, &k, &v), 1);
        ck_assert_str_eq(k, expect[i][0]);
        ck_assert_str_eq(v, expect[i][1]);
    }
    ck_assert_int_eq(ts_file_metadata(f, n, NULL, NULL), 0);
    ck_assert_uint_eq(ts_file_count(f), N_V3);
    /* Streaming gives the same text, in pieces. */
    for (size_t i = 0; i < n; i++) {
        char buf[512];
        collect c = {buf, 0, sizeof buf};
        ck_assert_int_eq(ts_file_metadata_write(f, i, collect_write, &c, NULL), TS_OK);
        buf[c.n] = '\0';
        ck_assert_str_eq(buf, expect[i][1]);
    }
    ts_error err;
    ck_assert_int_eq(ts_file_metadata_write(f, n, collect_write, NULL, &err), TS_ERR_INVALID_ARG);
    ts_file_close(f);
}
END_TEST

START_TEST(test_v2_and_empty)
{
    /* v2, general.alignment 64: infos end at 167, data at 192. */
    ts_file *f = open_fixture("gguf/good_v2.gguf", 1, 0);
    ck_assert_str_eq(ts_file_version(f), "2");
    ck_assert_uint_eq(ts_file_count(f), 2);
    const ts_array *a = ts_file_array(f, 0);
    ck_assert_str_eq(a->name, "a");
    tu_assert_shape(&a->shape, "(4,3,2)");
    ck_assert_str_eq(a->dtype_name, "int8");
    ck_assert_str_eq(a->format_dtype, "I8");
    ck_assert_int_eq(a->byteorder, '|');
    ck_assert_int_eq(a->size, 24);
    ck_assert_int_eq(a->nbytes, 24);
    ck_assert_int_eq(a->data_offset, 192);
    a = ts_file_array(f, 1);
    ck_assert_str_eq(a->name, "s");
    tu_assert_shape(&a->shape, "()"); /* n_dims 0, as ggml allows */
    ck_assert_int_eq(a->size, 1);
    ck_assert_int_eq(a->nbytes, 4);
    ck_assert_int_eq(a->data_offset, 256);
    const char *k, *v;
    ck_assert_uint_eq(ts_file_metadata_count(f), 2);
    ck_assert_int_eq(ts_file_metadata(f, 0, &k, &v), 1);
    ck_assert_str_eq(k, "general.alignment");
    ck_assert_str_eq(v, "64");
    ck_assert_int_eq(ts_file_metadata(f, 1, &k, &v), 1);
    ck_assert_str_eq(k, "general.name");
    ck_assert_str_eq(v, "\"tiny\"");
    ts_file_close(f);

    f = open_fixture("gguf/good_v2.gguf", 0, 1);
    tu_assert_shape(&ts_file_array(f, 0)->shape, "(2,3,4)");
    ts_file_close(f);

    /* Non-finite floats: JSON has no literal for them (were null). */
    f = open_fixture("gguf/good_nonfinite.gguf", 1, 0);
    ck_assert_uint_eq(ts_file_metadata_count(f), 4);
    static const char *const nonfinite[4][2] = {
        {"test.nan", "\"nan\""}, {"test.inf", "\"inf\""}, {"test.neginf", "\"-inf\""},
        {"test.floats", "[1.5,\"nan\",\"-inf\"]"}};
    for (size_t i = 0; i < 4; i++) {
        ck_assert_int_eq(ts_file_metadata(f, i, &k, &v), 1);
        ck_assert_str_eq(k, nonfinite[i][0]);
        ck_assert_str_eq(v, nonfinite[i][1]);
    }
    ts_file_close(f);

    f = open_fixture("gguf/good_no_tensors.gguf", 1, 0);
    ck_assert_uint_eq(ts_file_count(f), 0);
    ck_assert_uint_eq(ts_file_metadata_count(f), 1);
    ts_file_close(f);
}
END_TEST

/* ---- invalid fixtures ---- */

typedef struct bad_row {
    const char *file;
    int forced;
    ts_status status;
    int64_t offset;
    const char *message;
} bad_row;

static const bad_row bad[] = {
    {"bad_v1", 0, TS_ERR_UNSUPPORTED, 4,
     "GGUF v1 is not supported (it used 32-bit counts; llama.cpp dropped it): expected "
     "version 2 or 3"},
    {"bad_big_endian", 0, TS_ERR_UNSUPPORTED, 4,
     "GGUF version field at byte 4 reads 0x03000000: this looks like a big-endian file "
     "(version 3 byte-swapped); only little-endian GGUF is supported"},
    {"bad_huge_kv_count", 0, TS_ERR_TRUNCATED, 16,
     "header declares 1152921504606846976 key/value pairs (count at byte 16), but the "
     "72 bytes left can hold at most 5 (13 bytes each at least)"},
    {"bad_nested_array", 0, TS_ERR_FORMAT, 47,
     "key 0 'test.nested': array at byte 47 holds arrays: nested arrays are not "
     "supported (ggml's reader rejects them too)"},
    {"bad_type_4", 0, TS_ERR_DTYPE, 45,
     "tensor 0 'w': ggml type 4 (Q4_2) at byte 45 was removed from ggml and is not "
     "supported"},
    {"bad_truncated_data", 0, TS_ERR_TRUNCATED, 1208,
     "tensor 4 'blk.0.ffn_down.weight': 144 data bytes at file byte 1088 run past the "
     "end of the file (1208 bytes, 24 missing)"},
    {"bad_duplicate_tensor", 0, TS_ERR_FORMAT, 57,
     "duplicate tensor name 'w' at bytes 24 and 57"},
    {"bad_duplicate_key", 0, TS_ERR_FORMAT, 57, "duplicate key 'a.b' at bytes 24 and 57"},
    {"bad_ndims_5", 0, TS_ERR_NDIM, 33,
     "tensor 0 'w': n_dims at byte 33 is 5, GGUF allows at most 4 (GGML_MAX_DIMS)"},
    {"bad_alignment", 0, TS_ERR_FORMAT, 53,
     "general.alignment at byte 53 is 48, expected a power of two"},
    {"bad_alignment_type", 0, TS_ERR_FORMAT, 49,
     "key 0 'general.alignment': value type at byte 49 is uint64, expected uint32"},
    {"bad_offset_gap", 0, TS_ERR_FORMAT, 82,
     "tensor 1 'b': data offset 64 at byte 82, expected 32: ggml requires each tensor to "
     "start where tensor 0 'a' ends, padded to 32 bytes (there is a gap)"},
    {"bad_offset_overlap", 0, TS_ERR_FORMAT, 82,
     "tensor 1 'b': data offset 0 at byte 82, expected 32: ggml requires each tensor to "
     "start where tensor 0 'a' ends, padded to 32 bytes (the tensors overlap)"},
    {"bad_block_multiple", 0, TS_ERR_FORMAT, 37,
     "tensor 0 'q': ne[0] at byte 37 is 16, not a multiple of the Q4_0 block size 32"},
    {"bad_unknown_value_type", 0, TS_ERR_FORMAT, 33,
     "key 0 'x': value type 13 at byte 33 is not a GGUF type (0..12)"},
    {"bad_magic", 1, TS_ERR_FORMAT, 0,
     "not a GGUF file: the first 4 bytes are not the magic \"GGUF\""},
    {"bad_empty_key", 0, TS_ERR_FORMAT, 24,
     "key/value pair 0 at byte 24 has an empty key"},
};

#define N_BAD ((int)(sizeof bad / sizeof *bad))

START_TEST(test_bad_fixture)
{
    const bad_row *r = &bad[_i];
    char rel[256], path[512];
    snprintf(rel, sizeof rel, "gguf/%s.gguf", r->file);
    tu_fixture(path, sizeof path, rel);
    for (int meta = 0; meta < 2; meta++) {
        ts_open_options o = TS_OPEN_OPTIONS_INIT;
        o.want_metadata = meta;
        if (r->forced)
            o.format = TS_FORMAT_GGUF;
        tu_expect_open_error(path, &o, r->status, r->offset, r->message);
    }
}
END_TEST

/* ---- files built in memory ---- */

typedef struct gbuf {
    unsigned char d[2048];
    size_t n;
} gbuf;

static void put(gbuf *b, const void *p, size_t n)
{
    ck_assert_uint_le(b->n + n, sizeof b->d);
    memcpy(b->d + b->n, p, n);
    b->n += n;
}
static void put_u32(gbuf *b, uint32_t v)
{
    unsigned char t[4];
    for (int i = 0; i < 4; i++)
        t[i] = (unsigned char)(v >> (8 * i));
    put(b, t, 4);
}
static void put_u64(gbuf *b, uint64_t v)
{
    unsigned char t[8];
    for (int i = 0; i < 8; i++)
        t[i] = (unsigned char)(v >> (8 * i));
    put(b, t, 8);
}
static void put_str(gbuf *b, const char *s, size_t n)
{
    put_u64(b, n);
    put(b, s, n);
}
static void head(gbuf *b, uint32_t version, uint64_t nt, uint64_t nkv)
{
    b->n = 0;
    put(b, "GGUF", 4);
    put_u32(b, version);
    put_u64(b, nt);
    put_u64(b, nkv);
}
/* A tensor info; ne has ndim elements. */
static void info(gbuf *b, const char *name, size_t name_len, uint32_t ndim,
                 const uint64_t *ne, uint32_t type, uint64_t offset)
{
    put_str(b, name, name_len);
    put_u32(b, ndim);
    for (uint32_t i = 0; i < ndim; i++)
        put_u64(b, ne[i]);
    put_u32(b, type);
    put_u64(b, offset);
}
static void pad_to(gbuf *b, size_t n)
{
    static const unsigned char z[1024];
    ck_assert_uint_ge(n, b->n);
    put(b, z, n - b->n);
}

static ts_status open_buf(const gbuf *b, int meta, ts_file **f, ts_error *err)
{
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.want_metadata = meta;
    return ts_file_open_memory(b->d, b->n, &o, f, err);
}

START_TEST(test_versions)
{
    gbuf b;
    ts_file *f;
    ts_error err;
    head(&b, 4, 0, 0);
    ck_assert_int_eq(open_buf(&b, 0, &f, &err), TS_ERR_UNSUPPORTED);
    ck_assert_str_eq(err.message, "GGUF version 4 at byte 4 is not supported: expected 2 or 3");
    head(&b, 0, 0, 0);
    ck_assert_int_eq(open_buf(&b, 0, &f, &err), TS_ERR_UNSUPPORTED);
    head(&b, 0x02000000u, 0, 0);
    ck_assert_int_eq(open_buf(&b, 0, &f, &err), TS_ERR_UNSUPPORTED);
    ck_assert_str_eq(err.message, "GGUF version field at byte 4 reads 0x02000000: this looks "
                                  "like a big-endian file (version 2 byte-swapped); only "
                                  "little-endian GGUF is supported");
    /* The smallest valid file: a header with no KVs and no tensors. */
    head(&b, 3, 0, 0);
    ck_assert_int_eq(open_buf(&b, 0, &f, &err), TS_OK);
    ck_assert_uint_eq(ts_file_count(f), 0);
    ts_file_close(f);
    /* Too many tensors for the bytes left (24 bytes each at least). */
    head(&b, 3, 3, 0);
    pad_to(&b, 24 + 71);
    ck_assert_int_eq(open_buf(&b, 0, &f, &err), TS_ERR_TRUNCATED);
    ck_assert_str_eq(err.message, "header declares 3 tensors (count at byte 8), but the 71 "
                                  "bytes left can hold at most 2 tensor infos (24 bytes "
                                  "each at least)");
}
END_TEST

START_TEST(test_tensor_rules)
{
    gbuf b;
    ts_file *f;
    ts_error err;
    uint64_t ne[4] = {4, 2, 1, 1};

    /* Tensor data must end inside the file; padding after the last tensor
     * may be missing (llama.cpp's bound). Infos end at 65, data at 96. */
    head(&b, 3, 1, 0);
    info(&b, "w", 1, 2, ne, 0, 0);
    pad_to(&b, 96 + 32);
    ck_assert_int_eq(open_buf(&b, 0, &f, &err), TS_OK);
    ck_assert_int_eq(ts_file_array(f, 0)->data_offset, 96);
    ck_assert_int_eq(ts_file_array(f, 0)->nbytes, 32);
    ts_file_close(f);
    b.n--;
    ck_assert_int_eq(open_buf(&b, 0, &f, &err), TS_ERR_TRUNCATED);
    ck_assert_str_eq(err.message, "tensor 0 'w': 32 data bytes at file byte 96 run past the "
                                  "end of the file (127 bytes, 1 missing)");

    /* ne above INT64_MAX */
    ne[1] = UINT64_MAX;
    head(&b, 3, 1, 0);
    info(&b, "w", 1, 2, ne, 0, 0);
    ck_assert_int_eq(open_buf(&b, 0, &f, &err), TS_ERR_VALUE);
    ck_assert_str_eq(err.message, "tensor 0 'w': ne[1] at byte 45 is 18446744073709551615, "
                                  "above the int64 maximum (ggml requires 0 <= ne < 2^63)");
    ck_assert_int_eq(err.offset, 45);

    /* element count overflow */
    uint64_t big[4] = {1ull << 32, 1ull << 32, 1, 1};
    head(&b, 3, 1, 0);
    info(&b, "w", 1, 2, big, 0, 0);
    ck_assert_int_eq(open_buf(&b, 0, &f, &err), TS_ERR_OVERFLOW);
    ck_assert_str_eq(err.message, "tensor 0 'w': ne at byte 37: the product of "
                                  "(4294967296,4294967296) does not fit in int64");
    ck_assert_int_eq(err.offset, 37);

    /* byte size overflow although the element count fits: 2^62 x F64 */
    uint64_t wide[4] = {1ull << 62, 1, 1, 1};
    head(&b, 3, 1, 0);
    info(&b, "w", 1, 1, wide, 28, 0);
    ck_assert_int_eq(open_buf(&b, 0, &f, &err), TS_ERR_OVERFLOW);
    ck_assert_str_eq(err.message, "tensor 0 'w': 4611686018427387904 elements of F64 at byte "
                                  "37 take more than 2^63 bytes");

    /* unknown type code */
    ne[1] = 2;
    head(&b, 3, 1, 0);
    info(&b, "w", 1, 2, ne, 43, 0);
    ck_assert_int_eq(open_buf(&b, 0, &f, &err), TS_ERR_DTYPE);
    ck_assert_str_eq(err.message, "tensor 0 'w': unknown ggml type 43 at byte 53 (known types "
                                  "are 0..42)");

    /* a removed code in the 31..38 range; 34 (TQ1_0) is valid */
    head(&b, 3, 1, 0);
    info(&b, "w", 1, 2, ne, 36, 0);
    ck_assert_int_eq(open_buf(&b, 0, &f, &err), TS_ERR_DTYPE);
    ck_assert_str_eq(err.message, "tensor 0 'w': ggml type 36 (IQ4_NL_4_4) at byte 53 was "
                                  "removed from ggml and is not supported");

    /* misaligned offset */
    uint64_t two[1] = {2};
    head(&b, 3, 2, 0);
    info(&b, "a", 1, 1, two, 0, 0);
    info(&b, "b", 1, 1, two, 0, 8);
    pad_to(&b, 128);
    ck_assert_int_eq(open_buf(&b, 0, &f, &err), TS_ERR_FORMAT);
    ck_assert_str_eq(err.message, "tensor 1 'b': data offset 8 at byte 82 is not a multiple of "
                                  "the alignment 32");

    /* first tensor not at 0 */
    head(&b, 3, 1, 0);
    info(&b, "a", 1, 1, two, 0, 32);
    pad_to(&b, 128);
    ck_assert_int_eq(open_buf(&b, 0, &f, &err), TS_ERR_FORMAT);
    ck_assert_str_eq(err.message, "tensor 0 'a': data offset 32 at byte 49, expected 0: ggml "
                                  "requires the first tensor to start the data section");

    /* names: 255 bytes are fine, 256 are not; control bytes are escaped */
    char name[300];
    memset(name, 'n', sizeof name);
    head(&b, 3, 1, 0);
    info(&b, name, 255, 1, two, 0, 0);
    pad_to(&b, 320 + 8);
    ck_assert_int_eq(open_buf(&b, 0, &f, &err), TS_OK);
    ck_assert_uint_eq(strlen(ts_file_array(f, 0)->name), 255);
    ts_file_close(f);
    head(&b, 3, 1, 0);
    info(&b, name, 256, 1, two, 0, 0);
    pad_to(&b, 320 + 8);
    ck_assert_int_eq(open_buf(&b, 0, &f, &err), TS_ERR_LIMIT);
    ck_assert_int_eq(err.offset, 24);
    ck_assert(strstr(err.message, "name is 256 bytes long; tshape accepts up to 255 (ggml up "
                                  "to 63)") != NULL);
    uint64_t five[5] = {1, 1, 1, 1, 2};
    head(&b, 3, 1, 0);
    info(&b, "a\nb\xff", 4, 5, five, 0, 0);
    ck_assert_int_eq(open_buf(&b, 0, &f, &err), TS_ERR_NDIM);
    ck_assert_str_eq(err.message, "tensor 0 'a\\x0ab\\xff': n_dims at byte 36 is 5, GGUF "
                                  "allows at most 4 (GGML_MAX_DIMS)");

    /* a tensor count of zero with stray KV-free data is fine */
    head(&b, 2, 0, 0);
    pad_to(&b, 100);
    ck_assert_int_eq(open_buf(&b, 0, &f, &err), TS_OK);
    ts_file_close(f);
}
END_TEST

START_TEST(test_metadata_values)
{
    gbuf b;
    ts_file *f;
    ts_error err;
    head(&b, 3, 0, 7);
    /* an invalid UTF-8 string value: repaired with U+FFFD in the JSON text */
    put_str(&b, "s", 1);
    put_u32(&b, 8);
    put_str(&b, "a\xff" "b", 3);
    /* floats: NaN is the string "nan", integral values keep a ".0", f64 shortest */
    put_str(&b, "nan", 3);
    put_u32(&b, 6);
    put_u32(&b, 0x7fc00000u);
    put_str(&b, "two", 3);
    put_u32(&b, 6);
    put_u32(&b, 0x40000000u); /* 2.0f */
    put_str(&b, "third", 5);
    put_u32(&b, 12);
    put_u64(&b, 0x3fd5555555555555ull); /* 1/3 */
    /* signed 16/32/64 extremes */
    put_str(&b, "i16", 3);
    put_u32(&b, 3);
    put(&b, "\x00\x80", 2);
    put_str(&b, "i64", 3);
    put_u32(&b, 11);
    put_u64(&b, 0x8000000000000000ull);
    /* an empty array of strings, and a bool array */
    put_str(&b, "arr", 3);
    put_u32(&b, 9);
    put_u32(&b, 7);
    put_u64(&b, 3);
    put(&b, "\x01\x00\x02", 3);
    ck_assert_int_eq(open_buf(&b, 1, &f, &err), TS_OK);
    static const char *const expect[][2] = {
        {"s", "\"a\xef\xbf\xbd" "b\""},
        {"nan", "\"nan\""},
        {"two", "2.0"},
        {"third", "0.3333333333333333"},
        {"i16", "-32768"},
        {"i64", "-9223372036854775808"},
        {"arr", "[true,false,true]"},
    };
    ck_assert_uint_eq(ts_file_metadata_count(f), 7);
    for (size_t i = 0; i < 7; i++) {
        const char *k, *v;
        ck_assert_int_eq(ts_file_metadata(f, i, &k, &v), 1);
        ck_assert_str_eq(k, expect[i][0]);
        ck_assert_str_eq(v, expect[i][1]);
    }
    ts_file_close(f);

    /* An array count larger than the bytes left. */
    head(&b, 3, 0, 1);
    put_str(&b, "big", 3);
    put_u32(&b, 9);
    put_u32(&b, 8);
    put_u64(&b, 1000);
    put_str(&b, "x", 1);
    ck_assert_int_eq(open_buf(&b, 0, &f, &err), TS_ERR_TRUNCATED);
    ck_assert_str_eq(err.message, "key 0 'big': array at byte 39 declares 1000 string values "
                                  "(at least 8 bytes each), but only 9 bytes are left in the "
                                  "file");
    /* A string element running past the end. */
    head(&b, 3, 0, 1);
    put_str(&b, "big", 3);
    put_u32(&b, 9);
    put_u32(&b, 8);
    put_u64(&b, 1);
    put_u64(&b, 100);
    put(&b, "abc", 3);
    ck_assert_int_eq(open_buf(&b, 1, &f, &err), TS_ERR_TRUNCATED);
    ck_assert_str_eq(err.message, "key 0 'big': array element 0: string value at byte 51 is "
                                  "100 bytes long, but only 3 bytes are left in the file");
    ck_assert_int_eq(err.offset, 51);
    /* A key running past the end. */
    head(&b, 3, 0, 1);
    put_u64(&b, 50);
    put(&b, "abcdefghijklm", 13);
    ck_assert_int_eq(open_buf(&b, 0, &f, &err), TS_ERR_TRUNCATED);
    ck_assert_str_eq(err.message, "key/value pair 0: key at byte 24 is 50 bytes long, but only "
                                  "13 bytes are left in the file");
    /* general.alignment above ggml's 1 MiB limit */
    head(&b, 3, 0, 1);
    put_str(&b, "general.alignment", 17);
    put_u32(&b, 4);
    put_u32(&b, 1u << 21);
    ck_assert_int_eq(open_buf(&b, 0, &f, &err), TS_ERR_LIMIT);
    ck_assert_str_eq(err.message, "general.alignment at byte 53 is 2097152, above ggml's limit "
                                  "of 1048576");
}
END_TEST

START_TEST(test_probe)
{
    ck_assert_int_eq(ts_format_detect("GGUF\3\0\0\0", 8), TS_FORMAT_GGUF);
    ck_assert_int_eq(ts_format_detect("GGUF", 4), TS_FORMAT_GGUF);
    ck_assert_int_eq(ts_format_detect("GGU", 3), TS_FORMAT_AUTO);
    ck_assert_int_eq(ts_format_detect("GGUG\3\0\0\0", 8), TS_FORMAT_AUTO);
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.format = TS_FORMAT_GGUF;
    ts_file *f;
    ts_error err;
    ck_assert_int_eq(ts_file_open_memory("GGU", 3, &o, &f, &err), TS_ERR_TRUNCATED);
    ck_assert_str_eq(err.message, "file is 3 bytes long, too short for the GGUF magic");
}
END_TEST

/* ---- truncation and corruption ---- */

START_TEST(test_truncation)
{
    char path[512];
    size_t len;
    unsigned char *data = tu_read_file(tu_fixture(path, sizeof path, "gguf/good_v3.gguf"), &len);
    ck_assert_ptr_nonnull(data);
    ck_assert_uint_eq(len, 1248);
    /* The last tensor's data ends at 1088 + 144 = 1232; the 16 bytes after
     * it are padding, which may be missing: shorter prefixes fail (forced:
     * as truncated), longer ones are whole files. */
    tu_check_prefixes("good_v3.gguf", data, 1232, TS_FORMAT_GGUF, 0);
    for (size_t n = 1232; n <= len; n++) {
        ts_file *f;
        ck_assert_int_eq(ts_file_open_memory(data, n, NULL, &f, NULL), TS_OK);
        ck_assert_uint_eq(ts_file_count(f), N_V3);
        ts_file_close(f);
    }
    free(data);
}
END_TEST

START_TEST(test_corruption)
{
    char path[512];
    size_t len;
    unsigned char *data = tu_read_file(tu_fixture(path, sizeof path, "gguf/good_v3.gguf"), &len);
    ck_assert_ptr_nonnull(data);
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.want_metadata = 1;
    o.format = TS_FORMAT_GGUF;
    /* Every byte before the data section. */
    tu_check_byte_changes(data, len, 832, &o, NULL, 0);
    free(data);
}
END_TEST

Suite *gguf_suite(void)
{
    Suite *s = suite_create("gguf");
    TCase *tc = tcase_create("fixtures");
    tcase_add_loop_test(tc, test_v3_tensors, 0, N_V3);
    tcase_add_test(tc, test_v3_metadata);
    tcase_add_test(tc, test_v2_and_empty);
    suite_add_tcase(s, tc);
    tc = tcase_create("errors");
    tcase_add_loop_test(tc, test_bad_fixture, 0, N_BAD);
    tcase_add_test(tc, test_versions);
    tcase_add_test(tc, test_tensor_rules);
    tcase_add_test(tc, test_metadata_values);
    tcase_add_test(tc, test_probe);
    suite_add_tcase(s, tc);
    tc = tcase_create("limits");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_truncation);
    tcase_add_test(tc, test_corruption);
    suite_add_tcase(s, tc);
    return s;
}
