/*
 * dtype.c - the dtype table: names, sizes, mshadow type flags and NumPy
 * descr strings (array-interface typestr: byte order, kind, size).
 */
#include "internal.h"

#include <stdio.h>

typedef struct dtype_row {
    const char *name;   /* canonical, NumPy's dtype.name where NumPy has one */
    int bits;           /* 0: size is a parameter */
    char kind;          /* NumPy kind char, 0 when NumPy has no such type */
} dtype_row;

/* Indexed by ts_dtype; rows 0..12 follow mshadow's TypeFlag order. */
static const dtype_row table[TS_DTYPE_COUNT] = {
    [TS_DTYPE_FLOAT32] = {"float32", 32, 'f'},
    [TS_DTYPE_FLOAT64] = {"float64", 64, 'f'},
    [TS_DTYPE_FLOAT16] = {"float16", 16, 'f'},
    [TS_DTYPE_UINT8] = {"uint8", 8, 'u'},
    [TS_DTYPE_INT32] = {"int32", 32, 'i'},
    [TS_DTYPE_INT8] = {"int8", 8, 'i'},
    [TS_DTYPE_INT64] = {"int64", 64, 'i'},
    [TS_DTYPE_BOOL] = {"bool", 8, 'b'},
    [TS_DTYPE_INT16] = {"int16", 16, 'i'},
    [TS_DTYPE_UINT16] = {"uint16", 16, 'u'},
    [TS_DTYPE_UINT32] = {"uint32", 32, 'u'},
    [TS_DTYPE_UINT64] = {"uint64", 64, 'u'},
    [TS_DTYPE_BFLOAT16] = {"bfloat16", 16, 0},
    [TS_DTYPE_COMPLEX64] = {"complex64", 64, 'c'},
    [TS_DTYPE_COMPLEX128] = {"complex128", 128, 'c'},
    [TS_DTYPE_LONGDOUBLE] = {"float128", 128, 'f'},
    [TS_DTYPE_CLONGDOUBLE] = {"complex256", 256, 'c'},
    [TS_DTYPE_FLOAT8_E5M2] = {"float8_e5m2", 8, 0},
    [TS_DTYPE_FLOAT8_E4M3FN] = {"float8_e4m3fn", 8, 0},
    [TS_DTYPE_FLOAT8_E4M3FNUZ] = {"float8_e4m3fnuz", 8, 0},
    [TS_DTYPE_FLOAT8_E5M2FNUZ] = {"float8_e5m2fnuz", 8, 0},
    [TS_DTYPE_FLOAT8_E8M0FNU] = {"float8_e8m0fnu", 8, 0},
    [TS_DTYPE_FLOAT6_E2M3FN] = {"float6_e2m3fn", 6, 0},
    [TS_DTYPE_FLOAT6_E3M2FN] = {"float6_e3m2fn", 6, 0},
    [TS_DTYPE_FLOAT4_E2M1FN] = {"float4_e2m1fn", 4, 0},
    [TS_DTYPE_DATETIME64] = {"datetime64", 64, 'M'},
    [TS_DTYPE_TIMEDELTA64] = {"timedelta64", 64, 'm'},
    [TS_DTYPE_BYTES] = {"bytes", 0, 'S'},
    [TS_DTYPE_UNICODE] = {"str", 0, 'U'},
    [TS_DTYPE_VOID] = {"void", 0, 'V'},
    [TS_DTYPE_OBJECT] = {"object", 64, 'O'},
    [TS_DTYPE_STRUCTURED] = {"structured", 0, 0},
    [TS_DTYPE_QUANTIZED] = {"quantized", 0, 0},
    [TS_DTYPE_INT4] = {"int4", 4, 0},
    [TS_DTYPE_UINT4] = {"uint4", 4, 0},
    [TS_DTYPE_INT2] = {"int2", 2, 0},
    [TS_DTYPE_UINT2] = {"uint2", 2, 0},
};

static int valid(ts_dtype dt)
{
    return dt >= 0 && dt < TS_DTYPE_COUNT;
}

const char *ts_dtype_name(ts_dtype dt)
{
    return valid(dt) ? table[dt].name : "unknown";
}

int ts_dtype_bits(ts_dtype dt)
{
    return valid(dt) ? table[dt].bits : 0;
}

int64_t ts_dtype_itemsize(ts_dtype dt)
{
    return (ts_dtype_bits(dt) + 7) / 8;
}

ts_status ts_dtype_from_mshadow_flag(int64_t flag, ts_dtype *out, ts_error *err)
{
    TS__ARG_NONNULL(err, out);
    if (flag < TS_DTYPE_FLOAT32 || flag > TS_DTYPE_BFLOAT16)
        return ts__error(err, TS_ERR_DTYPE,
                         "unknown MXNet type flag %lld (known flags are 0 float32 .. "
                         "12 bfloat16)", (long long)flag);
    *out = (ts_dtype)flag;
    return TS_OK;
}

/* Fixed-size NumPy kind + itemsize -> dtype; TS_DTYPE_UNKNOWN if no such. */
static ts_dtype from_kind_size(char kind, int64_t size)
{
    if (size <= 0 || size > 32) /* no fixed-size type is wider; keeps size * 8 in range */
        return TS_DTYPE_UNKNOWN;
    for (int dt = 0; dt < TS_DTYPE_COUNT; dt++)
        if (table[dt].kind == kind && table[dt].bits == size * 8)
            return (ts_dtype)dt;
    return TS_DTYPE_UNKNOWN;
}

/* NumPy's datetime64/timedelta64 units (numpy/core/src/multiarray/
 * datetime.c _datetime_strings), with an optional decimal multiplier as in
 * '[10s]'. "\xce\xbcs" is NumPy's other spelling of 'us'. */
static int datetime_unit_ok(const char *u, size_t n)
{
    static const char *const units[] = {
        "Y", "M", "W", "D", "h", "m", "s", "ms", "us", "\xce\xbcs", "ns", "ps", "fs", "as",
        "generic",
    };
    size_t i = 0;
    while (i < n && i < 9 && u[i] >= '0' && u[i] <= '9')
        i++;
    for (size_t k = 0; k < sizeof units / sizeof *units; k++)
        if (strlen(units[k]) == n - i && memcmp(units[k], u + i, n - i) == 0)
            return 1;
    return 0;
}

ts_status ts_descr_parse(const char *descr, ts_descr *out, ts_error *err)
{
    TS__ARG_NONNULL(err, descr);
    TS__ARG_NONNULL(err, out);
    const char *p = descr;
    memset(out, 0, sizeof *out);
    out->dtype = TS_DTYPE_UNKNOWN;
    out->byteorder = '|';
    if (*p == '<' || *p == '>' || *p == '|' || *p == '=')
        out->byteorder = *p++;
    /* err->column: the 1-based column in descr of the part that is wrong. */
#define COL(q) ((int64_t)((q) - descr) + 1)
    char kind = *p;
    if (!kind || !strchr("biufcmMSUVO", kind))
        return ts__fail(err, TS_ERR_DTYPE, COL(p), -1,
                         "unknown dtype '%s': expected a byte order (<, >, |, =) then "
                         "a kind (b i u f c m M S U V O) then a size, like '<f4'", descr);
    p++;
    int64_t n = -1;
    ts__int size;
    int r = ts__scan_int(p, strlen(p), 0, 0, &size);
    if (r == TS__INT_OVERFLOW)
        return ts__fail(err, TS_ERR_DTYPE, COL(p), -1, "dtype '%s': size is too large", descr);
    if (r == TS__INT_OK) {
        n = size.value;
        p += size.end;
    }
    if (kind == 'm' || kind == 'M') {
        if (*p == '[') {
            const char *close = strchr(p, ']');
            size_t ulen = close ? (size_t)(close - p - 1) : 0;
            if (!close || ulen == 0 || ulen >= sizeof out->unit ||
                !datetime_unit_ok(p + 1, ulen))
                return ts__fail(err, TS_ERR_DTYPE, COL(p), -1,
                                 "dtype '%s': bad datetime unit, expected [N]UNIT with UNIT "
                                 "one of Y M W D h m s ms us ns ps fs as (e.g. '[ns]', "
                                 "'[10s]')", descr);
            /* NumPy's canonical spelling: 'generic' is no unit, 'μs' is 'us'. */
            if (ulen == 7 && memcmp(p + 1, "generic", 7) == 0) {
                ulen = 0;
            } else if (ulen >= 3 && memcmp(p + ulen - 2, "\xce\xbcs", 3) == 0) {
                memcpy(out->unit, p + 1, ulen - 3);
                memcpy(out->unit + ulen - 3, "us", 2);
                ulen -= 1;
            } else {
                memcpy(out->unit, p + 1, ulen);
            }
            out->unit[ulen] = '\0';
            p = close + 1;
        }
    }
    if (*p)
        return ts__fail(err, TS_ERR_DTYPE, COL(p), -1,
                        "dtype '%s': unexpected '%s' after the size", descr, p);
    if (n < 0 && kind != 'O')
        return ts__fail(err, TS_ERR_DTYPE, COL(p), -1, "dtype '%s': missing the size after '%c'",
                        descr, kind);
#undef COL
    switch (kind) {
    case 'S': out->dtype = TS_DTYPE_BYTES; out->itemsize = n; break;
    case 'V': out->dtype = TS_DTYPE_VOID; out->itemsize = n; break;
    case 'U':
        if (n > INT64_MAX / 4)
            return ts__error(err, TS_ERR_DTYPE, "dtype '%s': size is too large", descr);
        out->dtype = TS_DTYPE_UNICODE;
        out->itemsize = 4 * n; /* UCS-4 code units */
        break;
    case 'O':
        out->dtype = TS_DTYPE_OBJECT;
        out->itemsize = n < 0 ? 8 : n;
        if (out->itemsize != 4 && out->itemsize != 8)
            return ts__error(err, TS_ERR_DTYPE, "dtype '%s': object size must be 4 or 8",
                             descr);
        break;
    case 'f':
        if (n == 12) { /* 32-bit x86 long double */
            out->dtype = TS_DTYPE_LONGDOUBLE;
            out->itemsize = 12;
            break;
        }
        /* fall through */
    case 'c':
        if (kind == 'c' && n == 24) {
            out->dtype = TS_DTYPE_CLONGDOUBLE;
            out->itemsize = 24;
            break;
        }
        /* fall through */
    default:
        out->dtype = from_kind_size(kind, n);
        out->itemsize = n;
        if (out->dtype == TS_DTYPE_UNKNOWN)
            return ts__error(err, TS_ERR_DTYPE,
                             "dtype '%s': no %s type of %lld bytes", descr,
                             kind == 'b' ? "bool" : kind == 'i' ? "signed integer"
                             : kind == 'u' ? "unsigned integer" : kind == 'f' ? "float"
                             : kind == 'c' ? "complex" : "datetime", (long long)n);
    }
    return TS_OK;
}

size_t ts_descr_format(ts_dtype dt, char byteorder, char *buf, size_t cap)
{
    if (!buf && cap)
        return 0;
    if (!valid(dt) || !table[dt].kind || table[dt].bits == 0 ||
        (byteorder != '<' && byteorder != '>' && byteorder != '|' && byteorder != '=')) {
        if (cap)
            buf[0] = '\0';
        return 0;
    }
    int64_t size = table[dt].bits / 8;
    if (size == 1)
        byteorder = '|';
    /* as snprintf "%c%c%lld" would (no snprintf: asked once per array) */
    char tmp[24], digits[20];
    size_t n = 0, k = 0;
    tmp[n++] = byteorder;
    tmp[n++] = table[dt].kind;
    do
        digits[k++] = (char)('0' + size % 10);
    while ((size /= 10) > 0);
    while (k > 0)
        tmp[n++] = digits[--k];
    if (cap) {
        size_t m = n < cap - 1 ? n : cap - 1;
        memcpy(buf, tmp, m);
        buf[m] = '\0';
    }
    return n;
}

typedef struct alias {
    const char *name;
    ts_dtype dt;
} alias;

static const alias aliases[] = {
    {"bf16", TS_DTYPE_BFLOAT16}, {"half", TS_DTYPE_FLOAT16}, {"float", TS_DTYPE_FLOAT32},
    {"double", TS_DTYPE_FLOAT64}, {"bool_", TS_DTYPE_BOOL}, {"longdouble", TS_DTYPE_LONGDOUBLE},
    {"fp16", TS_DTYPE_FLOAT16}, {"fp32", TS_DTYPE_FLOAT32}, {"fp64", TS_DTYPE_FLOAT64},
};

/* Each framework's own spellings, after its module prefix ("torch.half"):
 * torch's dtype attributes (torch/_C/_VariableFunctions: half, float,
 * double, cfloat, cdouble, long, int, short), TensorFlow's tf.half and
 * tf.double, NumPy's scalar type names (np.single, np.float_, np.int_ is
 * int64 on LP64, np.intc, np.byte ...). The canonical names
 * (torch.float16, tf.float32, np.int8) are found in the table. */
static const alias torch_aliases[] = {
    {"half", TS_DTYPE_FLOAT16},    {"float", TS_DTYPE_FLOAT32},     {"double", TS_DTYPE_FLOAT64},
    {"cfloat", TS_DTYPE_COMPLEX64}, {"cdouble", TS_DTYPE_COMPLEX128}, {"long", TS_DTYPE_INT64},
    {"int", TS_DTYPE_INT32},       {"short", TS_DTYPE_INT16},
};
static const alias tf_aliases[] = {
    {"half", TS_DTYPE_FLOAT16}, {"double", TS_DTYPE_FLOAT64},
};
static const alias numpy_aliases[] = {
    {"half", TS_DTYPE_FLOAT16},       {"single", TS_DTYPE_FLOAT32},
    {"double", TS_DTYPE_FLOAT64},     {"float_", TS_DTYPE_FLOAT64},
    {"longdouble", TS_DTYPE_LONGDOUBLE}, {"bool_", TS_DTYPE_BOOL},
    {"byte", TS_DTYPE_INT8},          {"ubyte", TS_DTYPE_UINT8},
    {"short", TS_DTYPE_INT16},        {"ushort", TS_DTYPE_UINT16},
    {"intc", TS_DTYPE_INT32},         {"uintc", TS_DTYPE_UINT32},
    {"int_", TS_DTYPE_INT64},         {"uint", TS_DTYPE_UINT64},
    {"longlong", TS_DTYPE_INT64},     {"ulonglong", TS_DTYPE_UINT64},
    {"csingle", TS_DTYPE_COMPLEX64},  {"cdouble", TS_DTYPE_COMPLEX128},
    {"complex_", TS_DTYPE_COMPLEX128}, {"clongdouble", TS_DTYPE_CLONGDOUBLE},
};
static const struct {
    const char *prefix;
    const alias *aliases;
    size_t n;
} frameworks[] = {
    {"torch.", torch_aliases, sizeof torch_aliases / sizeof *torch_aliases},
    {"tf.", tf_aliases, sizeof tf_aliases / sizeof *tf_aliases},
    {"np.", numpy_aliases, sizeof numpy_aliases / sizeof *numpy_aliases},
    {"numpy.", numpy_aliases, sizeof numpy_aliases / sizeof *numpy_aliases},
    {"jnp.", numpy_aliases, sizeof numpy_aliases / sizeof *numpy_aliases},
};

/* A canonical name of the table ("float32"), or TS_DTYPE_UNKNOWN. */
static ts_dtype canonical(const char *text)
{
    for (int dt = 0; dt < TS_DTYPE_COUNT; dt++)
        if (table[dt].bits && strcmp(text, table[dt].name) == 0)
            return (ts_dtype)dt;
    return TS_DTYPE_UNKNOWN;
}

ts_status ts_dtype_from_string(const char *text, ts_dtype *out, ts_error *err)
{
    TS__ARG_NONNULL(err, text);
    TS__ARG_NONNULL(err, out);
    for (size_t f = 0; f < sizeof frameworks / sizeof *frameworks; f++) {
        size_t n = strlen(frameworks[f].prefix);
        if (strncmp(text, frameworks[f].prefix, n) != 0)
            continue;
        ts_dtype dt = canonical(text + n);
        for (size_t i = 0; i < frameworks[f].n && dt == TS_DTYPE_UNKNOWN; i++)
            if (strcmp(text + n, frameworks[f].aliases[i].name) == 0)
                dt = frameworks[f].aliases[i].dt;
        if (dt == TS_DTYPE_UNKNOWN)
            return ts__error(err, TS_ERR_DTYPE,
                             "unknown dtype '%s': no %.*s dtype tshape stores (try %sfloat32, "
                             "%sbfloat16)", text, (int)(n - 1), frameworks[f].prefix,
                             frameworks[f].prefix, frameworks[f].prefix);
        *out = dt;
        return TS_OK;
    }
    for (int dt = 0; dt < TS_DTYPE_COUNT; dt++)
        if (table[dt].bits && strcmp(text, table[dt].name) == 0) {
            *out = (ts_dtype)dt;
            return TS_OK;
        }
    for (size_t i = 0; i < sizeof aliases / sizeof *aliases; i++)
        if (strcmp(text, aliases[i].name) == 0) {
            *out = aliases[i].dt;
            return TS_OK;
        }
    /* MXNet type flag: all digits. */
    ts__int flag;
    size_t len = strlen(text);
    if (ts__scan_int(text, len, 0, 0, &flag) == TS__INT_OK && flag.end == len)
        return ts_dtype_from_mshadow_flag(flag.value, out, err);
    ts_descr d;
    ts_error sub;
    if (ts_descr_parse(text, &d, &sub) == TS_OK && table[d.dtype].bits != 0 &&
        d.dtype != TS_DTYPE_OBJECT) {
        *out = d.dtype;
        return TS_OK;
    }
    return ts__error(err, TS_ERR_DTYPE,
                     "unknown dtype '%s' (try float32, f4, <f4, bf16, or an MXNet type "
                     "flag 0..12)", text);
}
