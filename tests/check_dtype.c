/* check_dtype.c - the dtype table: mshadow flags, names, NumPy descrs. */
#include <stdio.h>
#include <string.h>

#include "testutil.h"

/* mshadow/base.h TypeFlag order and sizes (mxnet-format.md 1.2). */
static const struct {
    int flag;
    const char *name;
    int64_t itemsize;
    const char *descr;
} flags[] = {
    {0, "float32", 4, "<f4"}, {1, "float64", 8, "<f8"}, {2, "float16", 2, "<f2"},
    {3, "uint8", 1, "|u1"},   {4, "int32", 4, "<i4"},   {5, "int8", 1, "|i1"},
    {6, "int64", 8, "<i8"},   {7, "bool", 1, "|b1"},    {8, "int16", 2, "<i2"},
    {9, "uint16", 2, "<u2"},  {10, "uint32", 4, "<u4"}, {11, "uint64", 8, "<u8"},
    {12, "bfloat16", 2, ""},
};

START_TEST(test_mshadow_flags)
{
    ts_dtype dt;
    char buf[16];
    ck_assert_int_eq(ts_dtype_from_mshadow_flag(flags[_i].flag, &dt, NULL), TS_OK);
    ck_assert_int_eq((int)dt, flags[_i].flag);
    ck_assert_str_eq(ts_dtype_name(dt), flags[_i].name);
    ck_assert_int_eq(ts_dtype_itemsize(dt), flags[_i].itemsize);
    ts_descr_format(dt, '<', buf, sizeof buf);
    ck_assert_str_eq(buf, flags[_i].descr);
    /* The name and the flag text both map back. */
    ck_assert_int_eq(ts_dtype_from_string(flags[_i].name, &dt, NULL), TS_OK);
    ck_assert_int_eq((int)dt, flags[_i].flag);
    snprintf(buf, sizeof buf, "%d", flags[_i].flag);
    ck_assert_int_eq(ts_dtype_from_string(buf, &dt, NULL), TS_OK);
    ck_assert_int_eq((int)dt, flags[_i].flag);
}
END_TEST

START_TEST(test_flag_errors)
{
    ts_dtype dt;
    ts_error err;
    ck_assert_int_eq(ts_dtype_from_mshadow_flag(13, &dt, &err), TS_ERR_DTYPE);
    ck_assert_str_eq(err.message,
                     "unknown MXNet type flag 13 (known flags are 0 float32 .. 12 bfloat16)");
    ck_assert_int_eq(ts_dtype_from_mshadow_flag(-1, &dt, NULL), TS_ERR_DTYPE);
    ck_assert_str_eq(ts_dtype_name((ts_dtype)99), "unknown");
    ck_assert_str_eq(ts_dtype_name(TS_DTYPE_UNKNOWN), "unknown");
}
END_TEST

typedef struct descr_case {
    const char *text;
    ts_status st;
    ts_dtype dt;
    char bo;
    int64_t itemsize;
    const char *unit;
} descr_case;

static const descr_case descrs[] = {
    {"<f4", TS_OK, TS_DTYPE_FLOAT32, '<', 4, ""},
    {">i8", TS_OK, TS_DTYPE_INT64, '>', 8, ""},
    {"|b1", TS_OK, TS_DTYPE_BOOL, '|', 1, ""},
    {"=u2", TS_OK, TS_DTYPE_UINT16, '=', 2, ""},
    {"<c8", TS_OK, TS_DTYPE_COMPLEX64, '<', 8, ""},
    {"<c16", TS_OK, TS_DTYPE_COMPLEX128, '<', 16, ""},
    {"<f16", TS_OK, TS_DTYPE_LONGDOUBLE, '<', 16, ""},
    {"<f12", TS_OK, TS_DTYPE_LONGDOUBLE, '<', 12, ""},
    {"<M8[ns]", TS_OK, TS_DTYPE_DATETIME64, '<', 8, "ns"},
    {"<m8[25s]", TS_OK, TS_DTYPE_TIMEDELTA64, '<', 8, "25s"},
    {"<M8", TS_OK, TS_DTYPE_DATETIME64, '<', 8, ""},
    {"<M8[generic]", TS_OK, TS_DTYPE_DATETIME64, '<', 8, ""},
    {">m8[10ms]", TS_OK, TS_DTYPE_TIMEDELTA64, '>', 8, "10ms"},
    {"<M8[W]", TS_OK, TS_DTYPE_DATETIME64, '<', 8, "W"},
    {"<M8[\xce\xbcs]", TS_OK, TS_DTYPE_DATETIME64, '<', 8, "us"},
    {"|S5", TS_OK, TS_DTYPE_BYTES, '|', 5, ""},
    {"|S0", TS_OK, TS_DTYPE_BYTES, '|', 0, ""},
    {"<U3", TS_OK, TS_DTYPE_UNICODE, '<', 12, ""},
    {"|V4", TS_OK, TS_DTYPE_VOID, '|', 4, ""},
    {"|O", TS_OK, TS_DTYPE_OBJECT, '|', 8, ""},
    {"|O8", TS_OK, TS_DTYPE_OBJECT, '|', 8, ""},
    {"f4", TS_OK, TS_DTYPE_FLOAT32, '|', 4, ""},
    {"<f3", TS_ERR_DTYPE, TS_DTYPE_UNKNOWN, 0, 0, ""},
    {"<?4", TS_ERR_DTYPE, TS_DTYPE_UNKNOWN, 0, 0, ""}, /* ND4J's broken writer */
    {"d", TS_ERR_DTYPE, TS_DTYPE_UNKNOWN, 0, 0, ""},
    {"<f", TS_ERR_DTYPE, TS_DTYPE_UNKNOWN, 0, 0, ""},
    {"<f4x", TS_ERR_DTYPE, TS_DTYPE_UNKNOWN, 0, 0, ""},
    {"<M8[ns", TS_ERR_DTYPE, TS_DTYPE_UNKNOWN, 0, 0, ""},
    /* Made-up units are rejected as NumPy does (issue 16 item 8). */
    {"<m8[notaunit]", TS_ERR_DTYPE, TS_DTYPE_UNKNOWN, 0, 0, ""},
    {"<M8[s2]", TS_ERR_DTYPE, TS_DTYPE_UNKNOWN, 0, 0, ""},
    {"<M8[]", TS_ERR_DTYPE, TS_DTYPE_UNKNOWN, 0, 0, ""},
    {"<i99999999999999999999", TS_ERR_DTYPE, TS_DTYPE_UNKNOWN, 0, 0, ""},
    /* size * 8 overflowed int64 here (found by fuzz_dtype) */
    {"<i1246344259371037129", TS_ERR_DTYPE, TS_DTYPE_UNKNOWN, 0, 0, ""},
    {"<f33", TS_ERR_DTYPE, TS_DTYPE_UNKNOWN, 0, 0, ""},
    {"", TS_ERR_DTYPE, TS_DTYPE_UNKNOWN, 0, 0, ""},
};

START_TEST(test_descr)
{
    const descr_case *c = &descrs[_i];
    ts_descr d;
    ts_error err;
    ts_status st = ts_descr_parse(c->text, &d, &err);
    ck_assert_msg(st == c->st, "'%s': %d (%s)", c->text, st, st ? err.message : "");
    if (st == TS_OK) {
        ck_assert_int_eq(d.dtype, c->dt);
        ck_assert_int_eq(d.byteorder, c->bo);
        ck_assert_int_eq(d.itemsize, c->itemsize);
        ck_assert_str_eq(d.unit, c->unit);
    } else {
        ck_assert_ptr_nonnull(strstr(err.message, c->text));
    }
}
END_TEST

START_TEST(test_from_string)
{
    ts_dtype dt;
    ck_assert_int_eq(ts_dtype_from_string("bf16", &dt, NULL), TS_OK);
    ck_assert_int_eq(dt, TS_DTYPE_BFLOAT16);
    ck_assert_int_eq(ts_dtype_from_string("<f2", &dt, NULL), TS_OK);
    ck_assert_int_eq(dt, TS_DTYPE_FLOAT16);
    ck_assert_int_eq(ts_dtype_from_string("c8", &dt, NULL), TS_OK);
    ck_assert_int_eq(dt, TS_DTYPE_COMPLEX64);
    ck_assert_int_eq(ts_dtype_from_string("float8_e4m3fn", &dt, NULL), TS_OK);
    ck_assert_int_eq(ts_dtype_bits(dt), 8);
    ck_assert_int_eq(ts_dtype_from_string("float4_e2m1fn", &dt, NULL), TS_OK);
    ck_assert_int_eq(ts_dtype_bits(dt), 4);
    ck_assert_int_eq(ts_dtype_itemsize(dt), 1);
    ts_error err;
    ck_assert_int_eq(ts_dtype_from_string("float33", &dt, &err), TS_ERR_DTYPE);
    ck_assert_str_eq(err.message, "unknown dtype 'float33' (try float32, f4, <f4, bf16, or an "
                                  "MXNet type flag 0..12)");
    ck_assert_int_eq(ts_dtype_from_string("|O", &dt, NULL), TS_ERR_DTYPE);
    ck_assert_int_eq(ts_dtype_from_string("99", &dt, NULL), TS_ERR_DTYPE);
    /* as frameworks print dtypes (issue 20 item 11) */
    static const struct {
        const char *text;
        ts_dtype dt;
    } spellings[] = {
        {"torch.float16", TS_DTYPE_FLOAT16}, {"torch.half", TS_DTYPE_FLOAT16},
        {"torch.float", TS_DTYPE_FLOAT32},   {"torch.double", TS_DTYPE_FLOAT64},
        {"torch.bfloat16", TS_DTYPE_BFLOAT16}, {"torch.long", TS_DTYPE_INT64},
        {"torch.int", TS_DTYPE_INT32},       {"torch.short", TS_DTYPE_INT16},
        {"torch.bool", TS_DTYPE_BOOL},       {"torch.cfloat", TS_DTYPE_COMPLEX64},
        {"torch.float8_e4m3fn", TS_DTYPE_FLOAT8_E4M3FN}, {"half", TS_DTYPE_FLOAT16},
        {"tf.float32", TS_DTYPE_FLOAT32},    {"tf.half", TS_DTYPE_FLOAT16},
        {"tf.double", TS_DTYPE_FLOAT64},     {"tf.uint8", TS_DTYPE_UINT8},
        {"np.float32", TS_DTYPE_FLOAT32},    {"np.float_", TS_DTYPE_FLOAT64},
        {"numpy.int_", TS_DTYPE_INT64},      {"np.intc", TS_DTYPE_INT32},
        {"np.single", TS_DTYPE_FLOAT32},     {"jnp.bfloat16", TS_DTYPE_BFLOAT16},
    };
    for (size_t i = 0; i < sizeof spellings / sizeof *spellings; i++) {
        ck_assert_msg(ts_dtype_from_string(spellings[i].text, &dt, &err) == TS_OK, "%s: %s",
                      spellings[i].text, err.message);
        ck_assert_msg(dt == spellings[i].dt, "%s: %s", spellings[i].text, ts_dtype_name(dt));
    }
    ck_assert_int_eq(ts_dtype_from_string("torch.qint8", &dt, &err), TS_ERR_DTYPE);
    ck_assert_str_eq(err.message, "unknown dtype 'torch.qint8': no torch dtype tshape stores "
                                  "(try torch.float32, torch.bfloat16)");
    ck_assert_int_eq(ts_dtype_from_string("tf.string", &dt, NULL), TS_ERR_DTYPE);
    /* a framework's alias is not another's: np.float was Python's float */
    ck_assert_int_eq(ts_dtype_from_string("np.float", &dt, NULL), TS_ERR_DTYPE);
    ck_assert_int_eq(ts_dtype_from_string("tf.long", &dt, NULL), TS_ERR_DTYPE);
    /* No NumPy descr for bfloat16; one-byte types always get '|'. */
    char buf[8];
    ck_assert_uint_eq(ts_descr_format(TS_DTYPE_BFLOAT16, '<', buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "");
    ts_descr_format(TS_DTYPE_INT8, '>', buf, sizeof buf);
    ck_assert_str_eq(buf, "|i1");
    ts_descr_format(TS_DTYPE_FLOAT64, '>', buf, sizeof buf);
    ck_assert_str_eq(buf, ">f8");
}
END_TEST

Suite *dtype_suite(void)
{
    Suite *s = suite_create("dtype");
    TCase *tc = tcase_create("table");
    tcase_add_loop_test(tc, test_mshadow_flags, 0, (int)(sizeof flags / sizeof *flags));
    tcase_add_test(tc, test_flag_errors);
    tcase_add_loop_test(tc, test_descr, 0, (int)(sizeof descrs / sizeof *descrs));
    tcase_add_test(tc, test_from_string);
    suite_add_tcase(s, tc);
    return s;
}
