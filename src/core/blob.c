/*
 * blob.c - ts_blob, after mshadow's TBlob: a typed view (pointer, shape, row
 * stride, device, dtype) that only computes with shapes.
 */
#include "internal.h"

static int64_t last_dim(const ts_shape *s)
{
    return s->ndim ? ts_shape_dims(s)[s->ndim - 1] : 1;
}

ts_status ts_blob_init(ts_blob *b, void *data, const ts_shape *shape, int dev_mask,
                       ts_dtype dtype, ts_error *err)
{
    TS__ARG_NONNULL(err, b);
    /* Still a valid empty blob for ts_blob_free if an argument is bad. */
    b->data = NULL;
    ts_shape_init(&b->shape);
    b->stride = 1;
    b->dev_mask = TS_DEV_CPU;
    b->dtype = TS_DTYPE_UNKNOWN;
    TS__ARG_NONNULL(err, shape);
    if (dev_mask != TS_DEV_CPU && dev_mask != TS_DEV_GPU)
        return ts__bad_arg(err, __func__, "dev_mask %d is neither TS_DEV_CPU nor TS_DEV_GPU",
                           dev_mask);
    if (!ts__dtype_in_range(dtype))
        return ts__bad_arg(err, __func__, "dtype %d is not a ts_dtype", (int)dtype);
    int64_t size;
    b->data = data;
    b->dev_mask = dev_mask;
    b->dtype = dtype;
    b->stride = last_dim(shape);
    ts_status st = ts_shape_size(shape, &size, err);
    if (st)
        return st;
    return ts_shape_copy(&b->shape, shape, err);
}

void ts_blob_free(ts_blob *b)
{
    if (b)
        ts_shape_free(&b->shape);
}

int ts_blob_ndim(const ts_blob *b)
{
    return b ? b->shape.ndim : 0;
}

ts_status ts_blob_size(const ts_blob *b, int64_t *out, ts_error *err)
{
    TS__ARG_NONNULL(err, b);
    TS__ARG_NONNULL(err, out);
    return ts_shape_size(&b->shape, out, err);
}

int ts_blob_is_contiguous(const ts_blob *b)
{
    return b && b->stride == last_dim(&b->shape);
}

ts_status ts_blob_reshape(const ts_blob *b, const ts_shape *shape, ts_blob *out,
                          ts_error *err)
{
    TS__ARG_NONNULL(err, b);
    TS__ARG_NONNULL(err, shape);
    TS__ARG_NONNULL(err, out);
    int64_t old_size, new_size;
    char buf[TS__SHAPE_STR_MAX];
    if (!ts_blob_is_contiguous(b))
        return ts__error(err, TS_ERR_LAYOUT,
                         "blob is not contiguous (row stride %lld, last dim %lld): "
                         "reshaping needs a contiguous blob",
                         (long long)b->stride, (long long)last_dim(&b->shape));
    ts_status st = ts_shape_size(&b->shape, &old_size, err);
    if (!st)
        st = ts_shape_size(shape, &new_size, err);
    if (st)
        return st;
    if (old_size != new_size)
        return ts__error(err, TS_ERR_SIZE,
                         "cannot view %lld elements as shape %s of %lld elements",
                         (long long)old_size, ts__shape_str(shape, buf, sizeof buf),
                         (long long)new_size);
    ts_shape tmp = TS_SHAPE_INIT;
    st = ts_shape_copy(&tmp, shape, err);
    if (st)
        return st;
    ts_shape_move(&out->shape, &tmp);
    out->data = b->data;
    out->stride = last_dim(&out->shape);
    out->dev_mask = b->dev_mask;
    out->dtype = b->dtype;
    return TS_OK;
}

ts_status ts_blob_flat2d(const ts_blob *b, ts_blob *out, ts_error *err)
{
    TS__ARG_NONNULL(err, b);
    TS__ARG_NONNULL(err, out);
    int64_t d[2];
    ts_status st = ts_shape_flat2d(&b->shape, d, err);
    if (st)
        return st;
    st = ts_shape_assign(&out->shape, d, 2, err);
    if (st)
        return st;
    /* mshadow keeps the row stride: the 2-D view of a padded blob is valid. */
    out->data = b->data;
    out->stride = b->stride;
    out->dev_mask = b->dev_mask;
    out->dtype = b->dtype;
    return TS_OK;
}

ts_status ts_blob_flat3d(const ts_blob *b, int64_t axis_begin, int64_t axis_end,
                         ts_blob *out, ts_error *err)
{
    TS__ARG_NONNULL(err, b);
    TS__ARG_NONNULL(err, out);
    int64_t d[3];
    ts_shape s3 = TS_SHAPE_INIT;
    ts_status st = ts_shape_flat3d(&b->shape, axis_begin, axis_end, d, err);
    if (!st)
        st = ts_shape_assign(&s3, d, 3, err);
    if (!st)
        st = ts_blob_reshape(b, &s3, out, err);
    ts_shape_free(&s3);
    return st;
}
