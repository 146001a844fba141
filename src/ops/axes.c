/*
 * axes.c - axis permutations and insertions: transpose, squeeze,
 * expand_dims, moveaxis (NumPy rules, normalize_axis_tuple for axis lists),
 * and flatten (PyTorch's inclusive start_dim..end_dim).
 */
#include "../core/internal.h"

#include <stdio.h>

/* Rejects a negative dim in the input of operation `op`. */
static ts_status check_dims(const ts_shape *in, const char *op, ts_error *err)
{
    const int64_t *d = ts_shape_dims(in);
    for (int i = 0; i < in->ndim; i++)
        if (d[i] < 0) {
            char buf[TS__SHAPE_STR_MAX];
            return ts__error(err, TS_ERR_VALUE, "%s of %s: dim %d is negative (%lld)", op,
                             ts__shape_str(in, buf, sizeof buf), i, (long long)d[i]);
        }
    return TS_OK;
}

/* Says which range of axes is valid for ndim dims. */
static void range_text(int ndim, char *buf, size_t cap)
{
    if (ndim == 0)
        snprintf(buf, cap, "there are no axes");
    else
        snprintf(buf, cap, "expected %d..%d for %d dim%s", -ndim, ndim - 1, ndim,
                 ndim == 1 ? "" : "s");
}

/*
 * Normalises n axes against ndim into out[] (NumPy normalize_axis_tuple):
 * each in -ndim..ndim-1, no axis twice. `what` names the list in messages,
 * e.g. "transpose axes (1,1,0) for (2,3,4)".
 */
static ts_status norm_axes(const int64_t *axes, size_t n, int ndim, int *out,
                           const char *what, ts_error *err)
{
    unsigned char seen[TS_MAX_NDIM];
    memset(seen, 0, sizeof seen);
    for (size_t i = 0; i < n; i++) {
        int64_t a = axes[i];
        if (a < -(int64_t)ndim || a >= ndim) {
            char r[64];
            range_text(ndim, r, sizeof r);
            return ts__error(err, TS_ERR_AXIS, "axis %lld in %s is out of bounds: %s",
                             (long long)a, what, r);
        }
        int k = (int)(a < 0 ? a + ndim : a);
        if (seen[k]) {
            if (a < 0)
                return ts__error(err, TS_ERR_AXIS,
                                 "repeated axis %d in %s (%lld is axis %d again)", k, what,
                                 (long long)a, k);
            return ts__error(err, TS_ERR_AXIS, "repeated axis %d in %s", k, what);
        }
        seen[k] = 1;
        out[i] = k;
    }
    return TS_OK;
}

/* "transpose axes (1,0) for (2,3,4)" */
static void describe(char *buf, size_t cap, const char *op, const int64_t *axes, size_t n,
                     const ts_shape *in)
{
    char a[TS__SHAPE_STR_MAX], s[TS__SHAPE_STR_MAX];
    /* Long lists are cut with "..." by ts__dims_str anyway. */
    ts__dims_str(axes, n > 256 ? 256 : (int)n, a, sizeof a);
    snprintf(buf, cap, "%s %s for %s", op, a, ts__shape_str(in, s, sizeof s));
}

ts_status ts_transpose(const ts_shape *in, const int64_t *axes, size_t naxes, ts_shape *out,
                       ts_error *err)
{
    TS__ARG_NONNULL(err, in);
    TS__ARG_NONNULL(err, out);
    ts_status st = check_dims(in, "transpose", err);
    if (st)
        return st;
    int nd = in->ndim;
    const int64_t *d = ts_shape_dims(in);
    int64_t res[TS_MAX_NDIM];
    if (!axes) {
        for (int i = 0; i < nd; i++)
            res[i] = d[nd - 1 - i];
        return ts_shape_assign(out, res, nd, err);
    }
    if (naxes != (size_t)nd) {
        char a[TS__SHAPE_STR_MAX], s[TS__SHAPE_STR_MAX];
        return ts__error(err, TS_ERR_NDIM,
                         "transpose axes %s have %zu entr%s but the shape %s has %d dim%s",
                         ts__dims_str(axes, naxes > TS_MAX_NDIM ? TS_MAX_NDIM : (int)naxes,
                                      a, sizeof a),
                         naxes, naxes == 1 ? "y" : "ies", ts__shape_str(in, s, sizeof s), nd,
                         nd == 1 ? "" : "s");
    }
    char what[3 * TS__SHAPE_STR_MAX];
    describe(what, sizeof what, "transpose axes", axes, naxes, in);
    int perm[TS_MAX_NDIM];
    st = norm_axes(axes, naxes, nd, perm, what, err);
    if (st)
        return st;
    for (int i = 0; i < nd; i++)
        res[i] = d[perm[i]];
    return ts_shape_assign(out, res, nd, err);
}

ts_status ts_squeeze(const ts_shape *in, const int64_t *axes, size_t naxes, ts_shape *out,
                     ts_error *err)
{
    TS__ARG_NONNULL(err, in);
    TS__ARG_NONNULL(err, out);
    ts_status st = check_dims(in, "squeeze", err);
    if (st)
        return st;
    int nd = in->ndim;
    const int64_t *d = ts_shape_dims(in);
    unsigned char drop[TS_MAX_NDIM];
    memset(drop, 0, sizeof drop);
    if (!axes) {
        for (int i = 0; i < nd; i++)
            drop[i] = d[i] == 1;
    } else {
        char what[3 * TS__SHAPE_STR_MAX];
        int ax[TS_MAX_NDIM + 1];
        /* Among more axes than dims, one repeats or is out of range. */
        size_t n = naxes > (size_t)nd ? (size_t)nd + 1 : naxes;
        describe(what, sizeof what, "squeeze axes", axes, naxes, in);
        st = norm_axes(axes, n, nd, ax, what, err);
        if (st)
            return st;
        for (size_t i = 0; i < n; i++) {
            int k = ax[i];
            if (d[k] != 1) {
                char s[TS__SHAPE_STR_MAX], given[48] = "";
                if (axes[i] < 0)
                    snprintf(given, sizeof given, " (given as %lld)", (long long)axes[i]);
                return ts__error(err, TS_ERR_AXIS,
                                 "cannot squeeze axis %d%s of %s: its size is %lld, not 1", k,
                                 given, ts__shape_str(in, s, sizeof s), (long long)d[k]);
            }
            drop[k] = 1;
        }
    }
    int64_t res[TS_MAX_NDIM];
    int m = 0;
    for (int i = 0; i < nd; i++)
        if (!drop[i])
            res[m++] = d[i];
    return ts_shape_assign(out, res, m, err);
}

ts_status ts_expand_dims(const ts_shape *in, const int64_t *axes, size_t naxes, ts_shape *out,
                         ts_error *err)
{
    TS__ARG_NONNULL(err, in);
    TS__ARG_ARRAY(err, axes, naxes);
    TS__ARG_NONNULL(err, out);
    ts_status st = check_dims(in, "expand_dims", err);
    if (st)
        return st;
    int nd = in->ndim;
    if (naxes > (size_t)(TS_MAX_NDIM - nd)) {
        char s[TS__SHAPE_STR_MAX];
        return ts__error(err, TS_ERR_NDIM,
                         "expand_dims of %s by %zu axes would give %zu dims, more than the "
                         "limit of %d", ts__shape_str(in, s, sizeof s), naxes,
                         (size_t)nd + naxes, TS_MAX_NDIM);
    }
    int nout = nd + (int)naxes;
    char what[3 * TS__SHAPE_STR_MAX + 48];
    char a[TS__SHAPE_STR_MAX], s[TS__SHAPE_STR_MAX];
    snprintf(what, sizeof what, "expand_dims axes %s for %s (they index the result)",
             ts__dims_str(axes, (int)naxes, a, sizeof a), ts__shape_str(in, s, sizeof s));
    int ax[TS_MAX_NDIM];
    st = norm_axes(axes, naxes, nout, ax, what, err);
    if (st)
        return st;
    unsigned char isnew[TS_MAX_NDIM];
    memset(isnew, 0, sizeof isnew);
    for (size_t i = 0; i < naxes; i++)
        isnew[ax[i]] = 1;
    const int64_t *d = ts_shape_dims(in);
    int64_t res[TS_MAX_NDIM];
    for (int i = 0, j = 0; i < nout; i++)
        res[i] = isnew[i] ? 1 : d[j++];
    return ts_shape_assign(out, res, nout, err);
}

ts_status ts_moveaxis(const ts_shape *in, const int64_t *src, const int64_t *dst, size_t n,
                      ts_shape *out, ts_error *err)
{
    TS__ARG_NONNULL(err, in);
    TS__ARG_ARRAY(err, src, n);
    TS__ARG_ARRAY(err, dst, n);
    TS__ARG_NONNULL(err, out);
    ts_status st = check_dims(in, "moveaxis", err);
    if (st)
        return st;
    int nd = in->ndim;
    char what[3 * TS__SHAPE_STR_MAX];
    size_t m = n > (size_t)nd ? (size_t)nd + 1 : n; /* beyond nd, a repeat is certain */
    int s_ax[TS_MAX_NDIM + 1], d_ax[TS_MAX_NDIM + 1];
    describe(what, sizeof what, "moveaxis source", src, n, in);
    st = norm_axes(src, m, nd, s_ax, what, err);
    if (st)
        return st;
    describe(what, sizeof what, "moveaxis destination", dst, n, in);
    st = norm_axes(dst, m, nd, d_ax, what, err);
    if (st)
        return st;
    /* NumPy: order = the axes not moved, then each source inserted at its
     * destination in increasing destination order; equivalently every
     * source lands at its destination and the rest fill the gaps in order. */
    int perm[TS_MAX_NDIM];
    unsigned char moved[TS_MAX_NDIM];
    memset(moved, 0, sizeof moved);
    for (int i = 0; i < nd; i++)
        perm[i] = -1;
    for (size_t i = 0; i < n; i++) {
        perm[d_ax[i]] = s_ax[i];
        moved[s_ax[i]] = 1;
    }
    for (int i = 0, next = 0; i < nd; i++) {
        if (perm[i] >= 0)
            continue;
        while (moved[next])
            next++;
        perm[i] = next++;
    }
    const int64_t *d = ts_shape_dims(in);
    int64_t res[TS_MAX_NDIM];
    for (int i = 0; i < nd; i++)
        res[i] = d[perm[i]];
    return ts_shape_assign(out, res, nd, err);
}

ts_status ts_flatten(const ts_shape *in, int64_t start_dim, int64_t end_dim, ts_shape *out,
                     ts_error *err)
{
    TS__ARG_NONNULL(err, in);
    TS__ARG_NONNULL(err, out);
    ts_status st = check_dims(in, "flatten", err);
    if (st)
        return st;
    int nd = in->ndim;
    int nd_eff = nd > 0 ? nd : 1; /* torch wraps dims of a scalar as if 1-D */
    char s[TS__SHAPE_STR_MAX];
    ts__shape_str(in, s, sizeof s);
    int64_t v[2] = {start_dim, end_dim};
    static const char *const names[2] = {"start_dim", "end_dim"};
    int k[2];
    for (int i = 0; i < 2; i++) {
        if (v[i] < -(int64_t)nd_eff || v[i] >= nd_eff)
            return ts__error(err, TS_ERR_AXIS,
                             "flatten %s %lld is out of range for %s: expected %d..%d%s",
                             names[i], (long long)v[i], s, -nd_eff, nd_eff - 1,
                             nd == 0 ? " (a scalar counts as one dim)" : "");
        k[i] = (int)(v[i] < 0 ? v[i] + nd_eff : v[i]);
    }
    if (k[0] > k[1])
        return ts__error(err, TS_ERR_AXIS,
                         "flatten start_dim %lld (dim %d) comes after end_dim %lld (dim %d) "
                         "for %s: the range start..end is inclusive and must not be empty",
                         (long long)start_dim, k[0], (long long)end_dim, k[1], s);
    if (nd == 0) {
        int64_t one = 1;
        return ts_shape_assign(out, &one, 1, err);
    }
    const int64_t *d = ts_shape_dims(in);
    int64_t res[TS_MAX_NDIM], merged;
    st = ts__dims_size(d + k[0], k[1] - k[0] + 1, &merged, err);
    if (st) {
        ts__error_prefix(err, "flatten of %s over dims %d..%d", s, k[0], k[1]);
        return st;
    }
    int m = 0;
    for (int i = 0; i < k[0]; i++)
        res[m++] = d[i];
    res[m++] = merged;
    for (int i = k[1] + 1; i < nd; i++)
        res[m++] = d[i];
    return ts_shape_assign(out, res, m, err);
}
