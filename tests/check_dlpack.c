/* check_dlpack.c - DLPack interop: struct layout against the system
 * <dlpack/dlpack.h>, dtype codes, blob <-> DLTensor, file arrays as DLTensor
 * descriptions, managed tensors. */
/* Tests functions of the experimental part of tshape.h. */
#define TS_EXPERIMENTAL_API
#include "testutil.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__has_include)
#if __has_include(<dlpack/dlpack.h>)
#include <dlpack/dlpack.h>
#define HAVE_DLPACK_H 1
#endif
#endif

#ifdef HAVE_DLPACK_H
/* tshape's mirror structs must be laid out exactly like DLPack's, whatever
 * version is installed (Debian bookworm: 0.6). */
#define SAME_FIELD(ts_t, dl_t, f)                                             \
    _Static_assert(offsetof(ts_t, f) == offsetof(dl_t, f) &&                  \
                       sizeof(((ts_t *)0)->f) == sizeof(((dl_t *)0)->f),      \
                   #ts_t "." #f " differs from " #dl_t "." #f)
_Static_assert(sizeof(ts_dlpack_device) == sizeof(DLDevice), "DLDevice size");
SAME_FIELD(ts_dlpack_device, DLDevice, device_type);
SAME_FIELD(ts_dlpack_device, DLDevice, device_id);
_Static_assert(sizeof(ts_dlpack_dtype) == sizeof(DLDataType), "DLDataType size");
SAME_FIELD(ts_dlpack_dtype, DLDataType, code);
SAME_FIELD(ts_dlpack_dtype, DLDataType, bits);
SAME_FIELD(ts_dlpack_dtype, DLDataType, lanes);
_Static_assert(sizeof(ts_dlpack_tensor) == sizeof(DLTensor), "DLTensor size");
SAME_FIELD(ts_dlpack_tensor, DLTensor, data);
SAME_FIELD(ts_dlpack_tensor, DLTensor, device);
SAME_FIELD(ts_dlpack_tensor, DLTensor, ndim);
SAME_FIELD(ts_dlpack_tensor, DLTensor, dtype);
SAME_FIELD(ts_dlpack_tensor, DLTensor, shape);
SAME_FIELD(ts_dlpack_tensor, DLTensor, strides);
SAME_FIELD(ts_dlpack_tensor, DLTensor, byte_offset);
_Static_assert(sizeof(ts_dlpack_managed) == sizeof(DLManagedTensor), "DLManagedTensor size");
SAME_FIELD(ts_dlpack_managed, DLManagedTensor, dl_tensor);
SAME_FIELD(ts_dlpack_managed, DLManagedTensor, manager_ctx);
SAME_FIELD(ts_dlpack_managed, DLManagedTensor, deleter);
/* Codes present in every DLPack version. */
_Static_assert(TS_DLPACK_CPU == kDLCPU && TS_DLPACK_CUDA == kDLCUDA, "device codes");
_Static_assert(TS_DLPACK_INT == kDLInt && TS_DLPACK_UINT == kDLUInt &&
                   TS_DLPACK_FLOAT == kDLFloat && TS_DLPACK_OPAQUE_HANDLE == kDLOpaqueHandle &&
                   TS_DLPACK_BFLOAT == kDLBfloat && TS_DLPACK_COMPLEX == kDLComplex,
               "type codes 0..5");
#if defined(DLPACK_MAJOR_VERSION) &&                                          \
    (DLPACK_MAJOR_VERSION > 1 || (DLPACK_MAJOR_VERSION == 1 && DLPACK_MINOR_VERSION >= 1))
_Static_assert(TS_DLPACK_BOOL == kDLBool && TS_DLPACK_FLOAT8_E3M4 == kDLFloat8_e3m4 &&
                   TS_DLPACK_FLOAT8_E4M3FN == kDLFloat8_e4m3fn &&
                   TS_DLPACK_FLOAT8_E8M0FNU == kDLFloat8_e8m0fnu &&
                   TS_DLPACK_FLOAT4_E2M1FN == kDLFloat4_e2m1fn,
               "type codes of DLPack 1.1");
#endif
#endif /* HAVE_DLPACK_H */

/* Independent of any installed header: the DLPack >= 0.7 x86-64/aarch64
 * layout (pointers and int64 are 8 bytes). */
_Static_assert(offsetof(ts_dlpack_tensor, device) == sizeof(void *), "device offset");
_Static_assert(offsetof(ts_dlpack_tensor, ndim) == sizeof(void *) + 8, "ndim offset");
_Static_assert(offsetof(ts_dlpack_tensor, dtype) == sizeof(void *) + 12, "dtype offset");
_Static_assert(sizeof(ts_dlpack_dtype) == 4 && sizeof(ts_dlpack_device) == 8, "small structs");

/* ---- dtype table ---------------------------------------------------------- */

/* Every dtype, with its DLPack type or ok = 0. */
static const struct {
    ts_dtype dt;
    int ok;
    unsigned code, bits;
} dtype_cases[] = {
    {TS_DTYPE_FLOAT32, 1, 2, 32},       {TS_DTYPE_FLOAT64, 1, 2, 64},
    {TS_DTYPE_FLOAT16, 1, 2, 16},       {TS_DTYPE_UINT8, 1, 1, 8},
    {TS_DTYPE_INT32, 1, 0, 32},         {TS_DTYPE_INT8, 1, 0, 8},
    {TS_DTYPE_INT64, 1, 0, 64},         {TS_DTYPE_BOOL, 1, 6, 8},
    {TS_DTYPE_INT16, 1, 0, 16},         {TS_DTYPE_UINT16, 1, 1, 16},
    {TS_DTYPE_UINT32, 1, 1, 32},        {TS_DTYPE_UINT64, 1, 1, 64},
    {TS_DTYPE_BFLOAT16, 1, 4, 16},      {TS_DTYPE_COMPLEX64, 1, 5, 64},
    {TS_DTYPE_COMPLEX128, 1, 5, 128},   {TS_DTYPE_LONGDOUBLE, 0, 0, 0},
    {TS_DTYPE_CLONGDOUBLE, 0, 0, 0},    {TS_DTYPE_FLOAT8_E5M2, 1, 12, 8},
    {TS_DTYPE_FLOAT8_E4M3FN, 1, 10, 8}, {TS_DTYPE_FLOAT8_E4M3FNUZ, 1, 11, 8},
    {TS_DTYPE_FLOAT8_E5M2FNUZ, 1, 13, 8}, {TS_DTYPE_FLOAT8_E8M0FNU, 1, 14, 8},
    {TS_DTYPE_FLOAT6_E2M3FN, 1, 15, 6}, {TS_DTYPE_FLOAT6_E3M2FN, 1, 16, 6},
    {TS_DTYPE_FLOAT4_E2M1FN, 1, 17, 4}, {TS_DTYPE_DATETIME64, 0, 0, 0},
    {TS_DTYPE_TIMEDELTA64, 0, 0, 0},    {TS_DTYPE_BYTES, 0, 0, 0},
    {TS_DTYPE_UNICODE, 0, 0, 0},        {TS_DTYPE_VOID, 0, 0, 0},
    {TS_DTYPE_OBJECT, 0, 0, 0},         {TS_DTYPE_STRUCTURED, 0, 0, 0},
    {TS_DTYPE_QUANTIZED, 0, 0, 0},      {TS_DTYPE_UNKNOWN, 0, 0, 0},
    {TS_DTYPE_INT4, 0, 0, 0},           {TS_DTYPE_UINT4, 0, 0, 0},
    {TS_DTYPE_INT2, 0, 0, 0},           {TS_DTYPE_UINT2, 0, 0, 0},
};
#define NCASES(a) ((int)(sizeof(a) / sizeof *(a)))

START_TEST(test_dtype_table)
{
    ts_dlpack_dtype d = {99, 99, 99};
    ts_error err;
    ts_status st = ts_dtype_to_dlpack(dtype_cases[_i].dt, &d, &err);
    if (dtype_cases[_i].ok) {
        ck_assert_msg(st == TS_OK, "%s: %s", ts_dtype_name(dtype_cases[_i].dt), err.message);
        ck_assert_uint_eq(d.code, dtype_cases[_i].code);
        ck_assert_uint_eq(d.bits, dtype_cases[_i].bits);
        ck_assert_uint_eq(d.lanes, 1);
        /* and back */
        ts_dtype back = TS_DTYPE_UNKNOWN;
        ck_assert_int_eq(ts_dtype_from_dlpack(d, &back, &err), TS_OK);
        ck_assert_int_eq(back, dtype_cases[_i].dt);
    } else {
        ck_assert_int_eq(st, TS_ERR_DTYPE);
        ck_assert_int_eq(err.code, TS_ERR_DTYPE);
        ck_assert_ptr_nonnull(strstr(err.message, ts_dtype_name(dtype_cases[_i].dt)));
        ck_assert_ptr_nonnull(strstr(err.message, "no DLPack type"));
    }
}
END_TEST

START_TEST(test_dtype_table_complete)
{
    /* every dtype 0..COUNT-1 appears once in dtype_cases */
    for (int dt = 0; dt < TS_DTYPE_COUNT; dt++) {
        int seen = 0;
        for (int i = 0; i < NCASES(dtype_cases); i++)
            seen += dtype_cases[i].dt == (ts_dtype)dt;
        ck_assert_msg(seen == 1, "dtype %d appears %d times", dt, seen);
    }
}
END_TEST

/* DLPack types without a dtype, and the message they give. */
static const struct {
    ts_dlpack_dtype d;
    const char *message;
} bad_dtypes[] = {
    {{2, 32, 4}, "DLPack dtype (code 2 kDLFloat, bits 32, lanes 4) is a vector type: "
                 "only lanes 1 has a tshape dtype"},
    {{2, 32, 0}, "DLPack dtype (code 2 kDLFloat, bits 32, lanes 0) is a vector type: "
                 "only lanes 1 has a tshape dtype"},
    {{0, 24, 1}, "DLPack dtype code 0 (kDLInt) with bits 24 has no tshape dtype"},
    {{2, 128, 1}, "DLPack dtype code 2 (kDLFloat) with bits 128 has no tshape dtype"},
    {{2, 8, 1}, "DLPack dtype code 2 (kDLFloat) with bits 8 has no tshape dtype"},
    {{6, 1, 1}, "DLPack dtype code 6 (kDLBool) with bits 1 has no tshape dtype"},
    {{4, 32, 1}, "DLPack dtype code 4 (kDLBfloat) with bits 32 has no tshape dtype"},
    {{17, 8, 1}, "DLPack dtype code 17 (kDLFloat4_e2m1fn) with bits 8 has no tshape dtype"},
    {{3, 64, 1}, "DLPack dtype code 3 (kDLOpaqueHandle) is not a numeric type tshape "
                 "knows (codes 0..17 of DLPack 1.1, except 3 opaque handle)"},
    {{18, 8, 1}, "DLPack dtype code 18 (unknown code) is not a numeric type tshape knows "
                 "(codes 0..17 of DLPack 1.1, except 3 opaque handle)"},
    {{255, 8, 1}, "DLPack dtype code 255 (unknown code) is not a numeric type tshape knows "
                  "(codes 0..17 of DLPack 1.1, except 3 opaque handle)"},
    {{7, 8, 1}, "DLPack dtype code 7 (kDLFloat8_e3m4) has no tshape dtype"},
    {{8, 8, 1}, "DLPack dtype code 8 (kDLFloat8_e4m3) has no tshape dtype"},
    {{9, 8, 1}, "DLPack dtype code 9 (kDLFloat8_e4m3b11fnuz) has no tshape dtype"},
};

START_TEST(test_dtype_from_dlpack_errors)
{
    ts_dtype out = TS_DTYPE_FLOAT32;
    ts_error err;
    ck_assert_int_eq(ts_dtype_from_dlpack(bad_dtypes[_i].d, &out, &err), TS_ERR_DTYPE);
    ck_assert_str_eq(err.message, bad_dtypes[_i].message);
    ck_assert_int_eq(out, TS_DTYPE_FLOAT32); /* untouched */
}
END_TEST

START_TEST(test_dtype_messages)
{
    ts_dlpack_dtype d;
    ts_error err;
    ck_assert_int_eq(ts_dtype_to_dlpack(TS_DTYPE_LONGDOUBLE, &d, &err), TS_ERR_DTYPE);
    ck_assert_str_eq(err.message, "dtype float128 has no DLPack type: DLPack floats are "
                                  "IEEE without padding, and the platform long double is not");
    ck_assert_int_eq(ts_dtype_to_dlpack(TS_DTYPE_OBJECT, &d, &err), TS_ERR_DTYPE);
    ck_assert_str_eq(err.message, "dtype object has no DLPack type (DLPack 1.1 describes "
                                  "bool, integers, floats, bfloat16, complex and float8/6/4)");
    ck_assert_int_eq(ts_dtype_to_dlpack(TS_DTYPE_FLOAT32, NULL, &err), TS_ERR_INVALID_ARG);
    ck_assert_int_eq(ts_dtype_to_dlpack(TS_DTYPE_OBJECT, &d, NULL), TS_ERR_DTYPE);
}
END_TEST

/* ---- blob -> DLPack -------------------------------------------------------- */

static void make_blob(ts_blob *b, const char *shape, int64_t stride, int dev, ts_dtype dt,
                      void *data)
{
    ts_shape s = TS_SHAPE_INIT;
    tu_shape(&s, shape);
    ts_error err;
    ck_assert_msg(ts_blob_init(b, data, &s, dev, dt, &err) == TS_OK, "%s", err.message);
    if (stride >= 0)
        b->stride = stride;
    ts_shape_free(&s);
}

static const char *dims_text(const int64_t *d, int n, char *buf, size_t cap)
{
    ts_shape s = TS_SHAPE_INIT;
    ck_assert_int_eq(ts_shape_assign(&s, d, n, NULL), TS_OK);
    ts_shape_format(&s, 0, buf, cap);
    ts_shape_free(&s);
    return buf;
}

/* blob shape, row stride (-1: contiguous), expected strides text */
static const struct {
    const char *shape;
    int64_t stride;
    const char *strides;
} to_cases[] = {
    {"(2,3,4)", -1, "(12,4,1)"},
    {"(5,)", -1, "(1,)"},
    {"(2,3,4)", 6, "(18,6,1)"},     /* padded rows: row stride 6 */
    {"(3,4)", 10, "(10,1)"},
    {"(7,)", 9, "(1,)"},            /* one row: the stride does not matter */
    {"(1,4)", 2, "(4,1)"},          /* one row, even a short stride */
    {"(0,4)", 2, "(4,1)"},          /* no row */
    {"(2,0,3)", -1, "(0,3,1)"},
    {"(1,1,1,1,1,2)", -1, "(2,2,2,2,2,1)"},
    {"(2,1,3)", 5, "(5,5,1)"},
};

START_TEST(test_blob_to_dlpack)
{
    float data[1];
    ts_blob b;
    make_blob(&b, to_cases[_i].shape, to_cases[_i].stride, TS_DEV_CPU, TS_DTYPE_FLOAT32, data);
    int64_t shape[TS_MAX_NDIM], strides[TS_MAX_NDIM];
    ts_dlpack_tensor t;
    memset(&t, 0xAB, sizeof t);
    ts_error err;
    ck_assert_msg(ts_blob_to_dlpack(&b, shape, strides, &t, &err) == TS_OK, "%s", err.message);
    char buf[256];
    ck_assert_ptr_eq(t.data, data);
    ck_assert_int_eq(t.device.device_type, 1);
    ck_assert_int_eq(t.device.device_id, 0);
    ck_assert_int_eq(t.ndim, b.shape.ndim);
    ck_assert_uint_eq(t.dtype.code, 2);
    ck_assert_uint_eq(t.dtype.bits, 32);
    ck_assert_uint_eq(t.dtype.lanes, 1);
    ck_assert_ptr_eq(t.shape, shape);
    ck_assert_ptr_eq(t.strides, strides);
    ck_assert_uint_eq(t.byte_offset, 0);
    ck_assert_str_eq(dims_text(t.shape, t.ndim, buf, sizeof buf), to_cases[_i].shape);
    ck_assert_str_eq(dims_text(t.strides, t.ndim, buf, sizeof buf), to_cases[_i].strides);

    /* and back: same shape, and the same row stride where it matters */
    ts_blob back;
    ck_assert_msg(ts_blob_from_dlpack(&t, &back, &err) == TS_OK, "%s", err.message);
    ck_assert(ts_shape_equal(&back.shape, &b.shape));
    ck_assert_ptr_eq(back.data, data);
    ck_assert_int_eq(back.dev_mask, TS_DEV_CPU);
    ck_assert_int_eq(back.dtype, TS_DTYPE_FLOAT32);
    int64_t rows = 1;
    for (int k = 0; k + 1 < b.shape.ndim; k++)
        rows *= ts_shape_dims(&b.shape)[k];
    if (rows > 1)
        ck_assert_int_eq(back.stride, b.stride);
    ts_blob_free(&back);
    ts_blob_free(&b);
}
END_TEST

START_TEST(test_blob_to_dlpack_scalar_gpu)
{
    double x = 0;
    ts_blob b;
    make_blob(&b, "()", -1, TS_DEV_GPU, TS_DTYPE_BFLOAT16, &x);
    ts_dlpack_tensor t;
    ts_error err;
    ck_assert_int_eq(ts_blob_to_dlpack(&b, NULL, NULL, &t, &err), TS_OK);
    ck_assert_int_eq(t.ndim, 0);
    ck_assert_ptr_null(t.shape);
    ck_assert_ptr_null(t.strides);
    ck_assert_int_eq(t.device.device_type, 2);
    ck_assert_uint_eq(t.dtype.code, 4);
    ck_assert_uint_eq(t.dtype.bits, 16);
    ts_blob_free(&b);
}
END_TEST

START_TEST(test_blob_to_dlpack_errors)
{
    ts_blob b;
    int64_t shape[TS_MAX_NDIM], strides[TS_MAX_NDIM];
    ts_dlpack_tensor t;
    ts_error err;

    make_blob(&b, "(3,4)", 3, TS_DEV_CPU, TS_DTYPE_FLOAT32, NULL);
    ck_assert_int_eq(ts_blob_to_dlpack(&b, shape, strides, &t, &err), TS_ERR_LAYOUT);
    ck_assert_str_eq(err.message, "blob row stride 3 is below the last dim 4: its rows "
                                  "would overlap or run backwards");
    b.stride = 4;
    b.dev_mask = 5;
    ck_assert_int_eq(ts_blob_to_dlpack(&b, shape, strides, &t, &err), TS_ERR_UNSUPPORTED);
    ck_assert_str_eq(err.message, "blob device mask 5 has no DLPack device (expected 1 cpu "
                                  "or 2 gpu)");
    b.dev_mask = TS_DEV_CPU;
    b.dtype = TS_DTYPE_DATETIME64;
    ck_assert_int_eq(ts_blob_to_dlpack(&b, shape, strides, &t, &err), TS_ERR_DTYPE);
    b.dtype = TS_DTYPE_INT8;
    ck_assert_int_eq(ts_blob_to_dlpack(&b, NULL, strides, &t, &err), TS_ERR_INVALID_ARG);
    ck_assert_str_eq(err.message, "ts_blob_to_dlpack: shape and strides buffers of 2 "
                                  "elements are needed, got NULL");
    ck_assert_int_eq(ts_blob_to_dlpack(NULL, shape, strides, &t, &err), TS_ERR_INVALID_ARG);
    ck_assert_int_eq(ts_blob_to_dlpack(&b, shape, strides, NULL, NULL), TS_ERR_INVALID_ARG);
    ts_blob_free(&b);

    /* strides that overflow int64: rows of 2^62 elements, 4 rows apart */
    make_blob(&b, "(4,2,1)", -1, TS_DEV_CPU, TS_DTYPE_INT8, NULL);
    b.stride = (int64_t)1 << 62;
    ck_assert_int_eq(ts_blob_to_dlpack(&b, shape, strides, &t, &err), TS_ERR_OVERFLOW);
    ck_assert_str_eq(err.message, "the strides of shape (4,2,1) do not fit in int64");
    ts_blob_free(&b);
}
END_TEST

/* ---- DLPack -> blob -------------------------------------------------------- */

/* ndim, shape, strides (NULL: none), expected status, blob stride, message */
static const struct {
    int ndim;
    int64_t shape[4];
    const int64_t *strides;
    ts_status st;
    int64_t stride;
    const char *message;
} from_cases[] = {
    {3, {2, 3, 4}, NULL, TS_OK, 4, NULL},
    {3, {2, 3, 4}, (const int64_t[]){12, 4, 1}, TS_OK, 4, NULL},
    {3, {2, 3, 4}, (const int64_t[]){24, 8, 1}, TS_OK, 8, NULL},
    {2, {3, 1}, (const int64_t[]){1, 1}, TS_OK, 1, NULL},        /* PyTorch (3,1) */
    {3, {2, 1, 4}, (const int64_t[]){4, 99, 1}, TS_OK, 4, NULL}, /* size-1 dim ignored */
    {2, {1, 4}, (const int64_t[]){77, 1}, TS_OK, 4, NULL},       /* one row */
    {1, {5}, (const int64_t[]){1}, TS_OK, 5, NULL},
    {1, {1}, (const int64_t[]){3}, TS_OK, 1, NULL},
    {2, {0, 4}, (const int64_t[]){3, 2}, TS_OK, 4, NULL},        /* no element */
    {0, {0}, NULL, TS_OK, 1, NULL},
    {2, {3, 4}, (const int64_t[]){8, 2}, TS_ERR_LAYOUT, 0,
     "strides (8,2) of shape (3,4): the innermost stride is 2 elements, a blob needs 1 "
     "(its last dim is contiguous)"},
    {2, {3, 4}, (const int64_t[]){1, 3}, TS_ERR_LAYOUT, 0,
     "strides (1,3) of shape (3,4): the innermost stride is 3 elements, a blob needs 1 "
     "(its last dim is contiguous)"},
    {1, {5}, (const int64_t[]){-1}, TS_ERR_LAYOUT, 0,
     "strides (-1,) of shape (5,): the innermost stride is -1 elements, a blob needs 1 "
     "(its last dim is contiguous)"},
    {3, {2, 3, 4}, (const int64_t[]){4, 8, 1}, TS_ERR_LAYOUT, 0,
     "strides (4,8,1) of shape (2,3,4) are not row-major with a row stride: a blob with "
     "row stride 8 needs (24,8,1)"},
    {3, {2, 3, 4}, (const int64_t[]){0, 4, 1}, TS_ERR_LAYOUT, 0,
     "strides (0,4,1) of shape (2,3,4) are not row-major with a row stride: a blob with "
     "row stride 4 needs (12,4,1)"},
    {2, {3, 4}, (const int64_t[]){2, 1}, TS_ERR_LAYOUT, 0,
     "strides (2,1) of shape (3,4): the row stride 2 is below the last dim 4, so rows "
     "would overlap or run backwards"},
    {2, {3, 4}, (const int64_t[]){-4, 1}, TS_ERR_LAYOUT, 0,
     "strides (-4,1) of shape (3,4): the row stride -4 is below the last dim 4, so rows "
     "would overlap or run backwards"},
    {3, {2, 4, 4}, (const int64_t[]){0, INT64_MAX / 2, 1}, TS_ERR_OVERFLOW, 0,
     "strides of shape (2,4,4) with row stride 4611686018427387903 do not fit in int64"},
    {2, {3, -4}, NULL, TS_ERR_VALUE, 0,
     "dim 1 is negative (-4): sizes must be >= 0"},
    {2, {INT64_MAX, 3}, NULL, TS_ERR_OVERFLOW, 0,
     "the product of (9223372036854775807,3) does not fit in int64"},
};

START_TEST(test_blob_from_dlpack)
{
    float data[4];
    int64_t shape[4], strides[4];
    memcpy(shape, from_cases[_i].shape, sizeof shape);
    if (from_cases[_i].strides)
        memcpy(strides, from_cases[_i].strides, (size_t)from_cases[_i].ndim * sizeof *strides);
    ts_dlpack_tensor t = {data, {TS_DLPACK_CPU, 3}, from_cases[_i].ndim, {2, 64, 1}, shape,
                          from_cases[_i].strides ? strides : NULL, 0};
    ts_blob b;
    ts_error err;
    err.message[0] = '\0';
    ts_status st = ts_blob_from_dlpack(&t, &b, &err);
    ck_assert_msg(st == from_cases[_i].st, "status %d (%s)", st, err.message);
    if (st == TS_OK) {
        ck_assert_ptr_eq(b.data, data);
        ck_assert_int_eq(b.shape.ndim, from_cases[_i].ndim);
        for (int k = 0; k < from_cases[_i].ndim; k++)
            ck_assert_int_eq(ts_shape_dims(&b.shape)[k], from_cases[_i].shape[k]);
        ck_assert_int_eq(b.stride, from_cases[_i].stride);
        ck_assert_int_eq(b.dev_mask, TS_DEV_CPU);
        ck_assert_int_eq(b.dtype, TS_DTYPE_FLOAT64);
        ck_assert_int_eq(ts_blob_is_contiguous(&b),
                         from_cases[_i].stride == (from_cases[_i].ndim
                                                   ? from_cases[_i].shape[from_cases[_i].ndim - 1]
                                                   : 1));
    } else {
        ck_assert_str_eq(err.message, from_cases[_i].message);
        ck_assert_int_eq(err.code, from_cases[_i].st);
    }
    ts_blob_free(&b); /* also fine after a failure */
}
END_TEST

START_TEST(test_blob_from_dlpack_misc)
{
    int64_t shape[2] = {3, 4};
    ts_dlpack_tensor t = {NULL, {TS_DLPACK_CUDA, 1}, 2, {6, 8, 1}, shape, NULL, 4096};
    ts_blob b;
    ts_error err;

    /* byte_offset folded into the pointer, also from a NULL base */
    ck_assert_int_eq(ts_blob_from_dlpack(&t, &b, &err), TS_OK);
    ck_assert_ptr_eq(b.data, (void *)(uintptr_t)4096);
    ck_assert_int_eq(b.dev_mask, TS_DEV_GPU);
    ck_assert_int_eq(b.dtype, TS_DTYPE_BOOL);
    ck_assert_int_eq(b.stride, 4);
    ts_blob_free(&b);

    char buf[64];
    t.data = buf;
    t.byte_offset = 5;
    ck_assert_int_eq(ts_blob_from_dlpack(&t, &b, &err), TS_OK);
    ck_assert_ptr_eq(b.data, buf + 5);
    ts_blob_free(&b);

    t.data = (void *)(UINTPTR_MAX - 3);
    t.byte_offset = 4;
    ck_assert_int_eq(ts_blob_from_dlpack(&t, &b, &err), TS_ERR_OVERFLOW);
    ck_assert_str_eq(err.message, "DLPack data pointer + byte_offset 4 overflows the "
                                  "address space");
    t.data = NULL;
    t.byte_offset = 0;

    t.device.device_type = 4;
    ck_assert_int_eq(ts_blob_from_dlpack(&t, &b, &err), TS_ERR_UNSUPPORTED);
    ck_assert_str_eq(err.message, "DLPack device type 4 has no blob device mask (expected 1 "
                                  "kDLCPU or 2 kDLCUDA)");
    t.device.device_type = TS_DLPACK_CPU;

    t.dtype.lanes = 2;
    ck_assert_int_eq(ts_blob_from_dlpack(&t, &b, &err), TS_ERR_DTYPE);
    t.dtype.lanes = 1;

    t.ndim = TS_MAX_NDIM + 1;
    ck_assert_int_eq(ts_blob_from_dlpack(&t, &b, &err), TS_ERR_NDIM);
    ck_assert_str_eq(err.message, "DLPack tensor has ndim 65, expected 0..64");
    t.ndim = -1;
    ck_assert_int_eq(ts_blob_from_dlpack(&t, &b, &err), TS_ERR_NDIM);
    t.ndim = 2;
    t.shape = NULL;
    ck_assert_int_eq(ts_blob_from_dlpack(&t, &b, &err), TS_ERR_INVALID_ARG);
    ck_assert_str_eq(err.message, "DLPack tensor has ndim 2 but a NULL shape");
    ck_assert_int_eq(ts_blob_from_dlpack(NULL, &b, &err), TS_ERR_INVALID_ARG);
    ck_assert_int_eq(ts_blob_from_dlpack(&t, NULL, NULL), TS_ERR_INVALID_ARG);
    ts_blob_free(&b);
}
END_TEST

START_TEST(test_blob_from_dlpack_many_dims)
{
    /* ndim beyond the shape's inline cache: the blob's shape spills to the heap */
    int64_t shape[TS_MAX_NDIM], strides[TS_MAX_NDIM];
    for (int k = 0; k < TS_MAX_NDIM; k++)
        shape[k] = k % 3 == 0 ? 2 : 1;
    ts_dlpack_tensor t = {NULL, {1, 0}, TS_MAX_NDIM, {0, 32, 1}, shape, NULL, 0};
    ts_blob b;
    ts_error err;
    ck_assert_int_eq(ts_blob_from_dlpack(&t, &b, &err), TS_OK);
    int64_t size;
    ck_assert_int_eq(ts_blob_size(&b, &size, &err), TS_OK);
    ck_assert_int_eq(size, (int64_t)1 << 22);
    ck_assert_int_eq(ts_blob_to_dlpack(&b, shape, strides, &t, &err), TS_OK);
    ck_assert_int_eq(strides[TS_MAX_NDIM - 1], 1);
    ck_assert_int_eq(strides[0], (int64_t)1 << 21);
    ts_blob_free(&b);
}
END_TEST

/* ---- ts_array -> DLPack ---------------------------------------------------- */

static void make_array(ts_array *a, const char *shape, ts_dtype dt, char byteorder,
                       int64_t offset, int fortran)
{
    memset(a, 0, sizeof *a);
    a->name = "w";
    ts_shape_init(&a->shape);
    ts_shape_init(&a->storage_shape);
    tu_shape(&a->shape, shape);
    a->dtype = dt;
    a->dtype_name = ts_dtype_name(dt);
    a->format_dtype = byteorder == '>' ? ">f4" : "<f4";
    a->byteorder = byteorder;
    a->data_offset = offset;
    a->fortran_order = fortran;
    a->storage = TS_STORAGE_DENSE;
}

/* shape, fortran, expected strides */
static const struct {
    const char *shape;
    int fortran;
    const char *strides;
} array_cases[] = {
    {"(3,3,3)", 1, "(1,3,9)"},
    {"(3,3,3)", 0, "(9,3,1)"},
    {"(2,5)", 1, "(1,2)"},
    {"(2,5)", 0, "(5,1)"},
    {"(4,)", 1, "(1,)"},
    {"(2,0,3)", 1, "(1,2,0)"},
};

START_TEST(test_array_to_dlpack)
{
    ts_array a;
    make_array(&a, array_cases[_i].shape, TS_DTYPE_FLOAT64, '<', 128, array_cases[_i].fortran);
    int64_t shape[TS_MAX_NDIM], strides[TS_MAX_NDIM];
    ts_dlpack_tensor t;
    ts_error err;
    ck_assert_msg(ts_array_to_dlpack(&a, shape, strides, &t, &err) == TS_OK, "%s", err.message);
    char buf[256];
    ck_assert_ptr_null(t.data);
    ck_assert_uint_eq(t.byte_offset, 128);
    ck_assert_int_eq(t.device.device_type, 1);
    ck_assert_int_eq(t.device.device_id, 0);
    ck_assert_uint_eq(t.dtype.code, 2);
    ck_assert_uint_eq(t.dtype.bits, 64);
    ck_assert_str_eq(dims_text(t.shape, t.ndim, buf, sizeof buf), array_cases[_i].shape);
    ck_assert_str_eq(dims_text(t.strides, t.ndim, buf, sizeof buf), array_cases[_i].strides);
    ts_shape_free(&a.shape);
}
END_TEST

START_TEST(test_array_to_dlpack_errors)
{
    ts_array a;
    int64_t shape[TS_MAX_NDIM], strides[TS_MAX_NDIM];
    ts_dlpack_tensor t;
    ts_error err;

    make_array(&a, "(2,3)", TS_DTYPE_FLOAT32, '>', 80, 0);
    ck_assert_int_eq(ts_array_to_dlpack(&a, shape, strides, &t, &err), TS_ERR_DTYPE);
    ck_assert_str_eq(err.message, "array 'w' (>f4) is big-endian: DLPack data is in native "
                                  "byte order, so it cannot be viewed without a byte swap");
    a.byteorder = '=';
    ck_assert_int_eq(ts_array_to_dlpack(&a, shape, strides, &t, &err), TS_OK);
    a.byteorder = '|';
    ck_assert_int_eq(ts_array_to_dlpack(&a, shape, strides, &t, &err), TS_OK);
    a.byteorder = '<';

    a.dtype = TS_DTYPE_OBJECT;
    ck_assert_int_eq(ts_array_to_dlpack(&a, shape, strides, &t, &err), TS_ERR_DTYPE);
    ck_assert_str_eq(err.message, "array 'w': dtype object has no DLPack type (DLPack 1.1 "
                                  "describes bool, integers, floats, bfloat16, complex and "
                                  "float8/6/4)");
    a.dtype = TS_DTYPE_STRUCTURED;
    ck_assert_int_eq(ts_array_to_dlpack(&a, shape, strides, &t, &err), TS_ERR_DTYPE);
    a.dtype = TS_DTYPE_UNICODE;
    ck_assert_int_eq(ts_array_to_dlpack(&a, shape, strides, &t, &err), TS_ERR_DTYPE);
    a.dtype = TS_DTYPE_QUANTIZED;
    ck_assert_int_eq(ts_array_to_dlpack(&a, shape, strides, &t, &err), TS_ERR_DTYPE);
    a.dtype = TS_DTYPE_FLOAT32;

    a.storage = TS_STORAGE_ROW_SPARSE;
    ck_assert_int_eq(ts_array_to_dlpack(&a, shape, strides, &t, &err), TS_ERR_LAYOUT);
    ck_assert_str_eq(err.message, "array 'w' has row_sparse storage: its data is not a dense "
                                  "array of its shape");
    a.storage = TS_STORAGE_CSR;
    ck_assert_int_eq(ts_array_to_dlpack(&a, shape, strides, &t, &err), TS_ERR_LAYOUT);
    a.storage = TS_STORAGE_DENSE;

    a.data_offset = -1;
    ck_assert_int_eq(ts_array_to_dlpack(&a, shape, strides, &t, &err), TS_ERR_UNSUPPORTED);
    ck_assert_str_eq(err.message, "array 'w' has no data offset: its bytes are not stored "
                                  "as is (e.g. a deflated npz member)");
    /* names come from files: control bytes are escaped, messages stay one line */
    a.name = "x\ny\001\xff";
    ck_assert_int_eq(ts_array_to_dlpack(&a, shape, strides, &t, &err), TS_ERR_UNSUPPORTED);
    ck_assert_str_eq(err.message, "array 'x\\x0ay\\x01\\xff' has no data offset: its bytes "
                                  "are not stored as is (e.g. a deflated npz member)");
    a.name = "w";
    a.data_offset = 0;
    ck_assert_int_eq(ts_array_to_dlpack(&a, NULL, NULL, &t, &err), TS_ERR_INVALID_ARG);
    ck_assert_int_eq(ts_array_to_dlpack(NULL, shape, strides, &t, &err), TS_ERR_INVALID_ARG);
    ts_shape_free(&a.shape);

    make_array(&a, "()", TS_DTYPE_UINT16, '<', 64, 0);
    ck_assert_int_eq(ts_array_to_dlpack(&a, NULL, NULL, &t, &err), TS_OK);
    ck_assert_int_eq(t.ndim, 0);
    ck_assert_ptr_null(t.shape);
    ck_assert_ptr_null(t.strides);
    ck_assert_uint_eq(t.byte_offset, 64);
    ck_assert_uint_eq(t.dtype.code, 1);
    ck_assert_uint_eq(t.dtype.bits, 16);
    ts_shape_free(&a.shape);
}
END_TEST

/* The corpus' Fortran-order npy file (xtensor double_fortran.le.npy): (3,3,3)
 * <f8, data at byte 128, F strides (1,3,9) elements = NumPy's (8,24,72) bytes. */
START_TEST(test_array_to_dlpack_corpus_fortran)
{
    char path[4096];
    if (!tu_corpus_path(path, sizeof path, "npy/xtensor_double_fortran.npy"))
        return;
    ts_file *f = NULL;
    ts_error err;
    ts_open_options opts = TS_OPEN_OPTIONS_INIT;
    opts.format = TS_FORMAT_NPY;
    ts_status st = ts_file_open(path, &opts, &f, &err);
    if (st == TS_ERR_UNSUPPORTED && strstr(err.message, "not implemented")) {
        fprintf(stderr, "skipped: %s\n", err.message);
        return;
    }
    ck_assert_msg(st == TS_OK, "%s", err.message);
    ck_assert_uint_eq(ts_file_count(f), 1);
    int64_t shape[TS_MAX_NDIM], strides[TS_MAX_NDIM];
    ts_dlpack_tensor t;
    ck_assert_msg(ts_array_to_dlpack(ts_file_array(f, 0), shape, strides, &t, &err) == TS_OK,
                  "%s", err.message);
    char buf[256];
    ck_assert_str_eq(dims_text(t.shape, t.ndim, buf, sizeof buf), "(3,3,3)");
    ck_assert_str_eq(dims_text(t.strides, t.ndim, buf, sizeof buf), "(1,3,9)");
    ck_assert_uint_eq(t.byte_offset, 128);
    ck_assert_uint_eq(t.dtype.code, 2);
    ck_assert_uint_eq(t.dtype.bits, 64);
    ts_file_close(f);
}
END_TEST

/* ---- managed tensors ------------------------------------------------------- */

static int released;
static void *released_ctx;
static void on_release(void *ctx)
{
    released++;
    released_ctx = ctx;
}

START_TEST(test_managed)
{
    float data[24];
    ts_blob b;
    make_blob(&b, "(2,3,4)", 6, TS_DEV_CPU, TS_DTYPE_FLOAT32, data);
    ts_dlpack_managed *m = NULL;
    ts_error err;
    ck_assert_int_eq(ts_blob_to_dlpack_managed(&b, &m, &err), TS_OK);
    ts_blob_free(&b); /* the managed tensor owns its own shape and strides */
    ck_assert_ptr_nonnull(m);
    ck_assert_ptr_nonnull(m->deleter);
    ck_assert_ptr_null(m->manager_ctx);
    ck_assert_ptr_eq(m->dl_tensor.data, data);
    ck_assert_int_eq(m->dl_tensor.ndim, 3);
    char buf[128];
    ck_assert_str_eq(dims_text(m->dl_tensor.shape, 3, buf, sizeof buf), "(2,3,4)");
    ck_assert_str_eq(dims_text(m->dl_tensor.strides, 3, buf, sizeof buf), "(18,6,1)");
#ifdef HAVE_DLPACK_H
    /* A consumer sees a DLManagedTensor and calls its deleter. */
    DLManagedTensor *dl = (DLManagedTensor *)(void *)m;
    ck_assert_int_eq(dl->dl_tensor.ndim, 3);
    ck_assert_int_eq(dl->dl_tensor.shape[2], 4);
    ck_assert_int_eq(dl->dl_tensor.dtype.code, kDLFloat);
#endif
    m->deleter(m); /* leak-checked under make asan / valgrind */
    data[0] = 1;   /* the data was not freed */
}
END_TEST

START_TEST(test_managed_release)
{
    int64_t shape[2] = {2, 2}, strides[2] = {2, 1};
    ts_dlpack_tensor t = {NULL, {1, 0}, 2, {2, 32, 1}, shape, NULL, 96};
    ts_dlpack_managed *m = NULL;
    ts_error err;
    int ctx_obj;
    released = 0;
    ck_assert_int_eq(ts_dlpack_managed_new(&t, on_release, &ctx_obj, &m, &err), TS_OK);
    ck_assert_ptr_null(m->dl_tensor.strides); /* NULL stays NULL */
    ck_assert_ptr_ne(m->dl_tensor.shape, shape);
    shape[0] = 7; /* copies, not borrowed */
    ck_assert_int_eq(m->dl_tensor.shape[0], 2);
    ck_assert_uint_eq(m->dl_tensor.byte_offset, 96);
    ck_assert_ptr_eq(m->manager_ctx, &ctx_obj);
    m->deleter(m);
    ck_assert_int_eq(released, 1);
    ck_assert_ptr_eq(released_ctx, &ctx_obj);

    t.strides = strides;
    ck_assert_int_eq(ts_dlpack_managed_new(&t, NULL, NULL, &m, &err), TS_OK);
    ck_assert_ptr_ne(m->dl_tensor.strides, strides);
    ck_assert_int_eq(m->dl_tensor.strides[0], 2);
    void (*deleter)(ts_dlpack_managed *) = m->deleter;
    m->deleter(m);
    deleter(NULL); /* accepted, does nothing */

    t.ndim = 0;
    t.shape = NULL;
    t.strides = NULL;
    ck_assert_int_eq(ts_dlpack_managed_new(&t, NULL, NULL, &m, &err), TS_OK);
    ck_assert_ptr_null(m->dl_tensor.shape);
    m->deleter(m);

    t.ndim = 3;
    m = (ts_dlpack_managed *)&ctx_obj;
    ck_assert_int_eq(ts_dlpack_managed_new(&t, NULL, NULL, &m, &err), TS_ERR_INVALID_ARG);
    ck_assert_ptr_null(m);
    t.ndim = 100;
    ck_assert_int_eq(ts_dlpack_managed_new(&t, NULL, NULL, &m, &err), TS_ERR_NDIM);
    ck_assert_int_eq(ts_dlpack_managed_new(NULL, NULL, NULL, &m, &err), TS_ERR_INVALID_ARG);
    ck_assert_int_eq(ts_dlpack_managed_new(&t, NULL, NULL, NULL, &err), TS_ERR_INVALID_ARG);

    ts_blob b;
    make_blob(&b, "(3,4)", 2, TS_DEV_CPU, TS_DTYPE_FLOAT32, NULL);
    m = (ts_dlpack_managed *)&ctx_obj;
    ck_assert_int_eq(ts_blob_to_dlpack_managed(&b, &m, &err), TS_ERR_LAYOUT);
    ck_assert_ptr_null(m);
    ts_blob_free(&b);
}
END_TEST

Suite *dlpack_suite(void)
{
    Suite *s = suite_create("dlpack");
    TCase *tc = tcase_create("dtype");
    tcase_add_loop_test(tc, test_dtype_table, 0, NCASES(dtype_cases));
    tcase_add_test(tc, test_dtype_table_complete);
    tcase_add_loop_test(tc, test_dtype_from_dlpack_errors, 0, NCASES(bad_dtypes));
    tcase_add_test(tc, test_dtype_messages);
    suite_add_tcase(s, tc);

    tc = tcase_create("blob");
    tcase_add_loop_test(tc, test_blob_to_dlpack, 0, NCASES(to_cases));
    tcase_add_test(tc, test_blob_to_dlpack_scalar_gpu);
    tcase_add_loop_test(tc, test_blob_from_dlpack, 0, NCASES(from_cases));
    tcase_add_test(tc, test_blob_from_dlpack_misc);
    tcase_add_test(tc, test_blob_from_dlpack_many_dims);
    suite_add_tcase(s, tc);

    tc = tcase_create("errors");
    tcase_add_test(tc, test_blob_to_dlpack_errors);
    tcase_add_test(tc, test_array_to_dlpack_errors);
    suite_add_tcase(s, tc);

    tc = tcase_create("array");
    tcase_add_loop_test(tc, test_array_to_dlpack, 0, NCASES(array_cases));
    tcase_add_test(tc, test_array_to_dlpack_corpus_fortran);
    suite_add_tcase(s, tc);

    tc = tcase_create("managed");
    tcase_add_test(tc, test_managed);
    tcase_add_test(tc, test_managed_release);
    suite_add_tcase(s, tc);
    return s;
}
