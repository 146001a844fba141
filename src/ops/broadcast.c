/*
 * broadcast.c - ts_broadcast: NumPy broadcasting of any number of shapes
 * (np.broadcast_shapes). Where NumPy names only the clashing arguments,
 * the error here also names the axis and both sizes.
 */
#include "../core/internal.h"

ts_status ts_broadcast(const ts_shape *const *shapes, size_t n, ts_shape *out, ts_error *err)
{
    TS__ARG_ARRAY(err, shapes, n);
    TS__ARG_NONNULL(err, out);
    TS__ARG_EACH(err, shapes, n);
    int nd = 0;
    for (size_t k = 0; k < n; k++) {
        const ts_shape *s = shapes[k];
        const int64_t *d = ts_shape_dims(s);
        for (int i = 0; i < s->ndim; i++)
            if (d[i] < 0) {
                char buf[TS__SHAPE_STR_MAX];
                ts__error(err, TS_ERR_VALUE,
                          "broadcast: shape %s (arg %zu) has a negative dim %lld at axis %d",
                          ts__shape_str(s, buf, sizeof buf), k, (long long)d[i], i);
                return ts__error_index(err, TS_ERR_VALUE, (int64_t)k);
            }
        if (s->ndim > nd)
            nd = s->ndim;
    }
    /* res[a] is the result dim at axis a (from the left of the result);
     * who[a] the first argument that set it to a value other than 1. */
    int64_t res[TS_MAX_NDIM];
    size_t who[TS_MAX_NDIM];
    for (int a = 0; a < nd; a++) {
        res[a] = 1;
        who[a] = (size_t)-1;
    }
    for (size_t k = 0; k < n; k++) {
        const ts_shape *s = shapes[k];
        const int64_t *d = ts_shape_dims(s);
        int off = nd - s->ndim;
        for (int i = 0; i < s->ndim; i++) {
            int a = off + i;
            if (d[i] == 1 || d[i] == res[a])
                continue;
            if (res[a] == 1) {
                res[a] = d[i];
                who[a] = k;
                continue;
            }
            char b1[TS__SHAPE_STR_MAX], b2[TS__SHAPE_STR_MAX];
            size_t j = who[a];
            /* err->index: the argument that does not fit the ones before. */
            ts__error(err, TS_ERR_BROADCAST,
                      "shapes %s (arg %zu) and %s (arg %zu) cannot be broadcast: axis %d "
                      "(counted from the left of the result) has %lld vs %lld",
                      ts__shape_str(shapes[j], b1, sizeof b1), j,
                      ts__shape_str(s, b2, sizeof b2), k, a, (long long)res[a],
                      (long long)d[i]);
            return ts__error_index(err, TS_ERR_BROADCAST, (int64_t)k);
        }
    }
    return ts_shape_assign(out, res, nd, err);
}
