/*
 * dlpack.c - DLPack interop: blobs and file arrays as DLTensor descriptions,
 * DLTensor as blobs, and managed tensors whose deleter frees only what
 * tshape allocated.
 *
 * The structs are tshape's ABI-compatible copies of DLPack 1.1's (see
 * tshape.h); tests/check_dlpack.c checks the layout against the system
 * <dlpack/dlpack.h>. DLPack strides count elements; mshadow's TBlob keeps a
 * single row stride (the distance between rows of its flat-2D view), so only
 * row-major layouts with unit innermost stride and an optional padded row
 * stride convert to a blob.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>

/* Names of the DLDataTypeCode values of DLPack 1.1, for messages. */
static const char *const code_names[] = {
    "kDLInt", "kDLUInt", "kDLFloat", "kDLOpaqueHandle", "kDLBfloat", "kDLComplex",
    "kDLBool", "kDLFloat8_e3m4", "kDLFloat8_e4m3", "kDLFloat8_e4m3b11fnuz",
    "kDLFloat8_e4m3fn", "kDLFloat8_e4m3fnuz", "kDLFloat8_e5m2", "kDLFloat8_e5m2fnuz",
    "kDLFloat8_e8m0fnu", "kDLFloat6_e2m3fn", "kDLFloat6_e3m2fn", "kDLFloat4_e2m1fn",
};

static const char *code_name(unsigned code)
{
    return code < sizeof code_names / sizeof *code_names ? code_names[code] : "unknown code";
}

/* Sets *out and returns 1 when dt has a DLPack 1.1 type; else returns 0. A
 * switch without default, so -Wswitch-enum flags a new dtype. */
static int dlpack_type(ts_dtype dt, ts_dlpack_dtype *out)
{
    unsigned code;
    switch (dt) {
    case TS_DTYPE_INT8:
    case TS_DTYPE_INT16:
    case TS_DTYPE_INT32:
    case TS_DTYPE_INT64: code = TS_DLPACK_INT; break;
    case TS_DTYPE_UINT8:
    case TS_DTYPE_UINT16:
    case TS_DTYPE_UINT32:
    case TS_DTYPE_UINT64: code = TS_DLPACK_UINT; break;
    case TS_DTYPE_FLOAT16:
    case TS_DTYPE_FLOAT32:
    case TS_DTYPE_FLOAT64: code = TS_DLPACK_FLOAT; break;
    case TS_DTYPE_BFLOAT16: code = TS_DLPACK_BFLOAT; break;
    case TS_DTYPE_COMPLEX64:
    case TS_DTYPE_COMPLEX128: code = TS_DLPACK_COMPLEX; break;
    case TS_DTYPE_BOOL: code = TS_DLPACK_BOOL; break;
    case TS_DTYPE_FLOAT8_E4M3FN: code = TS_DLPACK_FLOAT8_E4M3FN; break;
    case TS_DTYPE_FLOAT8_E4M3FNUZ: code = TS_DLPACK_FLOAT8_E4M3FNUZ; break;
    case TS_DTYPE_FLOAT8_E5M2: code = TS_DLPACK_FLOAT8_E5M2; break;
    case TS_DTYPE_FLOAT8_E5M2FNUZ: code = TS_DLPACK_FLOAT8_E5M2FNUZ; break;
    case TS_DTYPE_FLOAT8_E8M0FNU: code = TS_DLPACK_FLOAT8_E8M0FNU; break;
    case TS_DTYPE_FLOAT6_E2M3FN: code = TS_DLPACK_FLOAT6_E2M3FN; break;
    case TS_DTYPE_FLOAT6_E3M2FN: code = TS_DLPACK_FLOAT6_E3M2FN; break;
    case TS_DTYPE_FLOAT4_E2M1FN: code = TS_DLPACK_FLOAT4_E2M1FN; break;
    case TS_DTYPE_UNKNOWN:
    case TS_DTYPE_LONGDOUBLE:
    case TS_DTYPE_CLONGDOUBLE:
    case TS_DTYPE_DATETIME64:
    case TS_DTYPE_TIMEDELTA64:
    case TS_DTYPE_BYTES:
    case TS_DTYPE_UNICODE:
    case TS_DTYPE_VOID:
    case TS_DTYPE_OBJECT:
    case TS_DTYPE_STRUCTURED:
    case TS_DTYPE_QUANTIZED:
    case TS_DTYPE_INT4:
    case TS_DTYPE_UINT4:
    case TS_DTYPE_INT2:
    case TS_DTYPE_UINT2:
    default:
        return 0;
    }
    out->code = (uint8_t)code;
    out->bits = (uint8_t)ts_dtype_bits(dt);
    out->lanes = 1;
    return 1;
}

ts_status ts_dtype_to_dlpack(ts_dtype dt, ts_dlpack_dtype *out, ts_error *err)
{
    TS__ARG_NONNULL(err, out);
    if (!ts__dtype_in_range(dt))
        return ts__bad_arg(err, __func__, "dt %d is not a ts_dtype", (int)dt);
    if (dlpack_type(dt, out))
        return TS_OK;
    if (dt == TS_DTYPE_LONGDOUBLE || dt == TS_DTYPE_CLONGDOUBLE)
        return ts__error(err, TS_ERR_DTYPE,
                         "dtype %s has no DLPack type: DLPack floats are IEEE without "
                         "padding, and the platform long double is not",
                         ts_dtype_name(dt));
    return ts__error(err, TS_ERR_DTYPE,
                     "dtype %s has no DLPack type (DLPack 1.1 describes bool, integers, "
                     "floats, bfloat16, complex and float8/6/4)",
                     ts_dtype_name(dt));
}

ts_status ts_dtype_from_dlpack(ts_dlpack_dtype dt, ts_dtype *out, ts_error *err)
{
    TS__ARG_NONNULL(err, out);
    if (dt.lanes != 1)
        return ts__error(err, TS_ERR_DTYPE,
                         "DLPack dtype (code %u %s, bits %u, lanes %u) is a vector type: "
                         "only lanes 1 has a tshape dtype",
                         (unsigned)dt.code, code_name(dt.code), (unsigned)dt.bits,
                         (unsigned)dt.lanes);
    ts_dlpack_dtype cand;
    for (int i = 0; i < TS_DTYPE_COUNT; i++)
        if (dlpack_type((ts_dtype)i, &cand) && cand.code == dt.code && cand.bits == dt.bits) {
            *out = (ts_dtype)i;
            return TS_OK;
        }
    if (dt.code >= TS_DLPACK_FLOAT8_E3M4 && dt.code <= TS_DLPACK_FLOAT8_E4M3B11FNUZ)
        return ts__error(err, TS_ERR_DTYPE,
                         "DLPack dtype code %u (%s) has no tshape dtype", (unsigned)dt.code,
                         code_name(dt.code));
    if (dt.code == TS_DLPACK_OPAQUE_HANDLE || dt.code > TS_DLPACK_FLOAT4_E2M1FN)
        return ts__error(err, TS_ERR_DTYPE,
                         "DLPack dtype code %u (%s) is not a numeric type tshape knows "
                         "(codes 0..17 of DLPack 1.1, except 3 opaque handle)",
                         (unsigned)dt.code, code_name(dt.code));
    return ts__error(err, TS_ERR_DTYPE,
                     "DLPack dtype code %u (%s) with bits %u has no tshape dtype",
                     (unsigned)dt.code, code_name(dt.code), (unsigned)dt.bits);
}

/* DLPack's "native byte order" in ts_array terms. */
static int native_order(char byteorder)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return byteorder != '<';
#else
    return byteorder != '>';
#endif
}

/*
 * Fills strides[0..n-1] (elements) for dims d: s[n-1] = 1, s[n-2] = row (the
 * row stride; pass d[n-1] for compact), s[k] = s[k+1] * d[k+1] further out.
 * fortran: s[0] = 1, s[k] = s[k-1] * d[k-1] (row is ignored).
 */
static ts_status fill_strides(const int64_t *d, int n, int64_t row, int fortran,
                              int64_t *strides, ts_error *err)
{
    char buf[TS__SHAPE_STR_MAX];
    int64_t s = 1;
    for (int i = 0; i < n; i++) {
        int k = fortran ? i : n - 1 - i;
        strides[k] = s;
        if (i == n - 1)
            break;
        int64_t factor = (!fortran && k == n - 1) ? row : d[k];
        if (ts__mul_overflow(s, factor, &s))
            return ts__error(err, TS_ERR_OVERFLOW,
                             "the strides of shape %s do not fit in int64",
                             ts__dims_str(d, n, buf, sizeof buf));
    }
    return TS_OK;
}

ts_status ts_blob_to_dlpack(const ts_blob *b, int64_t *shape, int64_t *strides,
                            ts_dlpack_tensor *out, ts_error *err)
{
    TS__ARG_NONNULL(err, b);
    TS__ARG_NONNULL(err, out);
    const int n = b->shape.ndim;
    const int64_t *d = ts_shape_dims(&b->shape);
    if (n < 0 || n > TS_MAX_NDIM)
        return ts__error(err, TS_ERR_NDIM, "blob has ndim %d, expected 0..%d", n,
                         TS_MAX_NDIM);
    if (n > 0 && (!shape || !strides))
        return ts__bad_arg(err, __func__,
                           "shape and strides buffers of %d elements are needed, got NULL", n);
    int64_t size;
    ts_status st = ts_shape_size(&b->shape, &size, err);
    if (st)
        return st;
    int32_t device;
    if (b->dev_mask == TS_DEV_CPU)
        device = TS_DLPACK_CPU;
    else if (b->dev_mask == TS_DEV_GPU)
        device = TS_DLPACK_CUDA;
    else
        return ts__error(err, TS_ERR_UNSUPPORTED,
                         "blob device mask %d has no DLPack device (expected %d cpu or "
                         "%d gpu)", b->dev_mask, TS_DEV_CPU, TS_DEV_GPU);
    ts_dlpack_dtype dt;
    st = ts_dtype_to_dlpack(b->dtype, &dt, err);
    if (st)
        return st;
    /* The row stride matters only when there are several rows. */
    int64_t row = n ? d[n - 1] : 1, rows = 1;
    if (n >= 2) {
        rows = size == 0 ? 0 : size / d[n - 1];
        if (rows > 1 && b->stride != d[n - 1]) {
            if (b->stride < d[n - 1])
                return ts__error(err, TS_ERR_LAYOUT,
                                 "blob row stride %lld is below the last dim %lld: its "
                                 "rows would overlap or run backwards",
                                 (long long)b->stride, (long long)d[n - 1]);
            row = b->stride;
        }
    }
    if (n > 0) {
        memcpy(shape, d, (size_t)n * sizeof *d);
        st = fill_strides(d, n, row, 0, strides, err);
        if (st)
            return st;
    }
    out->data = b->data;
    out->device.device_type = device;
    out->device.device_id = 0;
    out->ndim = n;
    out->dtype = dt;
    out->shape = n ? shape : NULL;
    out->strides = n ? strides : NULL;
    out->byte_offset = 0;
    return TS_OK;
}

/* Checks that DLPack strides fit a blob and returns its row stride. */
static ts_status blob_row_stride(const int64_t *d, const int64_t *s, int n, int64_t size,
                                 int64_t *row, ts_error *err)
{
    char sbuf[TS__SHAPE_STR_MAX], dbuf[TS__SHAPE_STR_MAX], ebuf[TS__SHAPE_STR_MAX];
    *row = n ? d[n - 1] : 1;
    if (!s || n == 0 || size == 0)
        return TS_OK; /* compact, a scalar, or no element to address */
    if (d[n - 1] != 1 && s[n - 1] != 1)
        return ts__error(err, TS_ERR_LAYOUT,
                         "strides %s of shape %s: the innermost stride is %lld elements, "
                         "a blob needs 1 (its last dim is contiguous)",
                         ts__dims_str(s, n, sbuf, sizeof sbuf),
                         ts__dims_str(d, n, dbuf, sizeof dbuf), (long long)s[n - 1]);
    /* The row stride is the stride of the innermost outer dim that has more
     * than one index; dims of size 1 never move the address. */
    int k = n - 2;
    while (k >= 0 && d[k] == 1)
        k--;
    if (k < 0)
        return TS_OK; /* a single row */
    int64_t r = s[k];
    if (r < d[n - 1])
        return ts__error(err, TS_ERR_LAYOUT,
                         "strides %s of shape %s: the row stride %lld is below the last "
                         "dim %lld, so rows would overlap or run backwards",
                         ts__dims_str(s, n, sbuf, sizeof sbuf),
                         ts__dims_str(d, n, dbuf, sizeof dbuf), (long long)r,
                         (long long)d[n - 1]);
    /* Every outer stride must be row-major over rows r elements apart. */
    int64_t expect = r;
    for (int j = n - 2; j >= 0; j--) {
        if (d[j] != 1 && s[j] != expect) {
            int64_t e[TS_MAX_NDIM];
            if (fill_strides(d, n, r, 0, e, NULL) != TS_OK)
                snprintf(ebuf, sizeof ebuf, "(overflow)");
            else
                ts__dims_str(e, n, ebuf, sizeof ebuf);
            return ts__error(err, TS_ERR_LAYOUT,
                             "strides %s of shape %s are not row-major with a row stride: "
                             "a blob with row stride %lld needs %s",
                             ts__dims_str(s, n, sbuf, sizeof sbuf),
                             ts__dims_str(d, n, dbuf, sizeof dbuf), (long long)r, ebuf);
        }
        if (j > 0 && ts__mul_overflow(expect, d[j], &expect))
            return ts__error(err, TS_ERR_OVERFLOW,
                             "strides of shape %s with row stride %lld do not fit in int64",
                             ts__dims_str(d, n, dbuf, sizeof dbuf), (long long)r);
    }
    *row = r;
    return TS_OK;
}

ts_status ts_blob_from_dlpack(const ts_dlpack_tensor *t, ts_blob *out, ts_error *err)
{
    TS__ARG_NONNULL(err, out);
    memset(out, 0, sizeof *out);
    ts_shape_init(&out->shape);
    out->dtype = TS_DTYPE_UNKNOWN;
    out->stride = 1;
    TS__ARG_NONNULL(err, t);
    if (t->ndim < 0 || t->ndim > TS_MAX_NDIM)
        return ts__error(err, TS_ERR_NDIM, "DLPack tensor has ndim %d, expected 0..%d",
                         (int)t->ndim, TS_MAX_NDIM);
    const int n = t->ndim;
    if (n > 0 && !t->shape)
        return ts__error(err, TS_ERR_INVALID_ARG,
                         "DLPack tensor has ndim %d but a NULL shape", n);
    int64_t size;
    ts_status st = ts__dims_size(t->shape, n, &size, err);
    if (st)
        return st;
    ts_dtype dt;
    st = ts_dtype_from_dlpack(t->dtype, &dt, err);
    if (st)
        return st;
    int dev;
    if (t->device.device_type == TS_DLPACK_CPU)
        dev = TS_DEV_CPU;
    else if (t->device.device_type == TS_DLPACK_CUDA)
        dev = TS_DEV_GPU;
    else
        return ts__error(err, TS_ERR_UNSUPPORTED,
                         "DLPack device type %d has no blob device mask (expected %d kDLCPU "
                         "or %d kDLCUDA)",
                         (int)t->device.device_type, TS_DLPACK_CPU, TS_DLPACK_CUDA);
    int64_t row;
    st = blob_row_stride(t->shape, t->strides, n, size, &row, err);
    if (st)
        return st;
    /* Integer arithmetic: the data pointer may be NULL (a description of a
     * file's bytes), and NULL + offset is undefined in C. */
    uintptr_t base = (uintptr_t)t->data;
    if (t->byte_offset > (uint64_t)(UINTPTR_MAX - base))
        return ts__error(err, TS_ERR_OVERFLOW,
                         "DLPack data pointer + byte_offset %llu overflows the address space",
                         (unsigned long long)t->byte_offset);
    st = ts_shape_assign(&out->shape, t->shape, n, err);
    if (st)
        return st;
    out->data = (void *)(base + (uintptr_t)t->byte_offset);
    out->stride = row;
    out->dev_mask = dev;
    out->dtype = dt;
    return TS_OK;
}

ts_status ts_array_to_dlpack(const ts_array *a, int64_t *shape, int64_t *strides,
                             ts_dlpack_tensor *out, ts_error *err)
{
    TS__ARG_NONNULL(err, a);
    TS__ARG_NONNULL(err, out);
    char name[128], dtbuf[64];
    const char *raw_name = a->name ? a->name : "";
    const char *spelling = a->format_dtype && *a->format_dtype ? a->format_dtype
                                                               : ts_dtype_name(a->dtype);
    ts__printable_str(raw_name, name, sizeof name);
    if (!native_order(a->byteorder))
        return ts__error(err, TS_ERR_DTYPE,
                         "array '%s' (%s) is %s-endian: DLPack data is in native byte "
                         "order, so it cannot be viewed without a byte swap",
                         name, ts__printable_str(spelling, dtbuf, sizeof dtbuf),
                         a->byteorder == '>' ? "big" : "little");
    ts_dlpack_dtype dt;
    ts_status st = ts_dtype_to_dlpack(a->dtype, &dt, err);
    if (st) {
        ts__error_prefix(err, "array '%s'", name);
        return st;
    }
    if (a->storage != TS_STORAGE_DENSE)
        return ts__error(err, TS_ERR_LAYOUT,
                         "array '%s' has %s storage: its data is not a dense array of its "
                         "shape", name, a->storage == TS_STORAGE_CSR ? "csr" : "row_sparse");
    if (a->data_offset < 0)
        return ts__error(err, TS_ERR_UNSUPPORTED,
                         "array '%s' has no data offset: its bytes are not stored as is "
                         "(e.g. a deflated npz member)", name);
    const int n = a->shape.ndim;
    const int64_t *d = ts_shape_dims(&a->shape);
    if (n < 0 || n > TS_MAX_NDIM)
        return ts__error(err, TS_ERR_NDIM, "array '%s' has ndim %d, expected 0..%d", name,
                         n, TS_MAX_NDIM);
    if (n > 0 && (!shape || !strides))
        return ts__bad_arg(err, __func__,
                           "shape and strides buffers of %d elements are needed, got NULL", n);
    int64_t size;
    st = ts__dims_size(d, n, &size, err);
    if (st)
        return st;
    if (n > 0) {
        memcpy(shape, d, (size_t)n * sizeof *d);
        st = fill_strides(d, n, d[n - 1], a->fortran_order != 0, strides, err);
        if (st)
            return st;
    }
    out->data = NULL;
    out->device.device_type = TS_DLPACK_CPU;
    out->device.device_id = 0;
    out->ndim = n;
    out->dtype = dt;
    out->shape = n ? shape : NULL;
    out->strides = n ? strides : NULL;
    out->byte_offset = (uint64_t)a->data_offset;
    return TS_OK;
}

/* The managed tensor and tshape's storage, in one allocation. The consumer
 * sees only `m` (the first member), and hands it back to the deleter. */
typedef struct holder {
    ts_dlpack_managed m;
    void (*release)(void *ctx);
    int64_t dims[]; /* shape, then strides */
} holder;

static void holder_delete(ts_dlpack_managed *self)
{
    if (!self)
        return;
    holder *h = (holder *)(void *)self;
    if (h->release)
        h->release(self->manager_ctx);
    free(h);
}

ts_status ts_dlpack_managed_new(const ts_dlpack_tensor *t, void (*release)(void *ctx),
                                void *ctx, ts_dlpack_managed **out, ts_error *err)
{
    TS__ARG_NONNULL(err, out);
    *out = NULL;
    TS__ARG_NONNULL(err, t);
    if (t->ndim < 0 || t->ndim > TS_MAX_NDIM)
        return ts__error(err, TS_ERR_NDIM, "DLPack tensor has ndim %d, expected 0..%d",
                         (int)t->ndim, TS_MAX_NDIM);
    const size_t n = (size_t)t->ndim;
    if (n > 0 && !t->shape)
        return ts__error(err, TS_ERR_INVALID_ARG,
                         "DLPack tensor has ndim %zu but a NULL shape", n);
    /* n <= TS_MAX_NDIM, so the size cannot overflow. */
    holder *h = malloc(sizeof *h + 2 * n * sizeof(int64_t));
    if (!h)
        return ts__error(err, TS_ERR_NOMEM, "out of memory for a DLPack managed tensor");
    h->m.dl_tensor = *t;
    h->m.manager_ctx = ctx;
    h->m.deleter = holder_delete;
    h->release = release;
    if (n > 0) {
        memcpy(h->dims, t->shape, n * sizeof(int64_t));
        h->m.dl_tensor.shape = h->dims;
        if (t->strides) {
            memcpy(h->dims + n, t->strides, n * sizeof(int64_t));
            h->m.dl_tensor.strides = h->dims + n;
        }
    } else {
        h->m.dl_tensor.shape = NULL;
        h->m.dl_tensor.strides = NULL;
    }
    *out = &h->m;
    return TS_OK;
}

ts_status ts_blob_to_dlpack_managed(const ts_blob *b, ts_dlpack_managed **out,
                                    ts_error *err)
{
    int64_t shape[TS_MAX_NDIM], strides[TS_MAX_NDIM];
    ts_dlpack_tensor t;
    TS__ARG_NONNULL(err, out);
    *out = NULL;
    TS__ARG_NONNULL(err, b);
    ts_status st = ts_blob_to_dlpack(b, shape, strides, &t, err);
    if (st)
        return st;
    return ts_dlpack_managed_new(&t, NULL, NULL, out, err);
}
