/*
 * reshape.c - ts_reshape: NumPy's one-unknown rule and MXNet's special
 * values {0, -1, -2, -3, -4} with reverse.
 *
 * The MXNet branch follows InferReshapeShape (src/operator/tensor/
 * matrix_op-inl.h) step for step, including its positional consumption of
 * input dims, but closes its holes: MXNet's total-size check in
 * ReshapeShape is inside `#if 0`, its -1 is inferred with truncating
 * division (and divides by zero when the other dims multiply to 0), and a
 * -3 on a 0-d input underflows an unsigned bound. Here every one of those
 * is an error with a message.
 */
#include "../core/internal.h"

#include <stdio.h>

/* Text of the input and target for messages. */
typedef struct names {
    char in[TS__SHAPE_STR_MAX];
    char target[TS__SHAPE_STR_MAX];
} names;

static void fill_names(names *nm, const ts_shape *in, const ts_shape *target)
{
    ts__shape_str(in, nm->in, sizeof nm->in);
    ts__shape_str(target, nm->target, sizeof nm->target);
}

/* Product of n dims >= 0 into *out; 0 if any is 0. Returns 1 when the
 * product (with no zero) does not fit in int64. */
static int product(const int64_t *d, int n, int64_t *out)
{
    int64_t p = 1;
    int overflow = 0;
    for (int i = 0; i < n; i++) {
        if (d[i] == 0) {
            *out = 0;
            return 0;
        }
        if (!overflow && ts__mul_overflow(p, d[i], &p))
            overflow = 1;
    }
    *out = p;
    return overflow;
}

/*
 * Resolves the inferred dim at dims[unknown] (currently any value) so that
 * the n dims multiply to `size`. `lead` starts the message ("cannot reshape
 * (2,3) of size 6 into (5,-1)").
 */
static ts_status infer_unknown(int64_t *dims, int n, int unknown, int64_t size,
                               const names *nm, const char *lead, ts_error *err)
{
    dims[unknown] = 1;
    int64_t known;
    int overflow = product(dims, n, &known);
    if (overflow)
        return ts__error(err, TS_ERR_SIZE,
                         "%s: the other dims multiply to more than %lld, so the -1 "
                         "cannot be inferred", lead, (long long)INT64_MAX);
    if (known == 0) {
        if (size == 0)
            return ts__error(err, TS_ERR_SIZE,
                             "cannot infer the -1 of %s for %s: the other dims multiply "
                             "to 0, so any size fits", nm->target, nm->in);
        return ts__error(err, TS_ERR_SIZE,
                         "%s: the other dims multiply to 0, so no size gives %lld elements",
                         lead, (long long)size);
    }
    if (size % known != 0) {
        int nknown = 0;
        for (int i = 0; i < n; i++)
            nknown += i != unknown && dims[i] != 1;
        if (nknown <= 1)
            return ts__error(err, TS_ERR_SIZE, "%s: %lld is not a multiple of %lld", lead,
                             (long long)size, (long long)known);
        return ts__error(err, TS_ERR_SIZE,
                         "%s: %lld is not a multiple of %lld, the product of the other dims",
                         lead, (long long)size, (long long)known);
    }
    dims[unknown] = size / known;
    return TS_OK;
}

static ts_status numpy_reshape(const ts_shape *in, int64_t size, const ts_shape *target,
                               ts_shape *out, ts_error *err)
{
    names nm;
    fill_names(&nm, in, target);
    char lead[3 * TS__SHAPE_STR_MAX];
    snprintf(lead, sizeof lead, "cannot reshape %s of size %lld into %s", nm.in,
             (long long)size, nm.target);

    int n = ts_shape_ndim(target);
    int64_t dims[TS_MAX_NDIM];
    if (n > 0)
        memcpy(dims, ts_shape_dims(target), (size_t)n * sizeof *dims);
    int unknown = -1;
    for (int i = 0; i < n; i++) {
        if (dims[i] == -1) {
            if (unknown >= 0)
                return ts__error(err, TS_ERR_VALUE,
                                 "%s: can only specify one unknown dimension, but -1 is at "
                                 "positions %d and %d", lead, unknown, i);
            unknown = i;
        } else if (dims[i] < 0) {
            return ts__error(err, TS_ERR_VALUE,
                             "%s: %lld at position %d is not a dim; only -1 (infer) may be "
                             "negative (MXNet's special values need MXNet mode)",
                             lead, (long long)dims[i], i);
        }
    }
    if (unknown >= 0) {
        ts_status st = infer_unknown(dims, n, unknown, size, &nm, lead, err);
        if (st)
            return st;
    } else {
        int64_t tsize;
        if (product(dims, n, &tsize))
            return ts__error(err, TS_ERR_SIZE,
                             "%s: the target's size does not fit in int64", lead);
        if (tsize != size)
            return ts__error(err, TS_ERR_SIZE, "%s of size %lld", lead, (long long)tsize);
    }
    return ts_shape_assign(out, dims, n, err);
}

/* State of the MXNet walk; positions are reported in the caller's order. */
typedef struct mx {
    int rev;
    int nd, np;             /* input ndim, target length */
    int64_t tmp[TS_MAX_NDIM];
    int len;
    const char *lead;
    ts_error *err;
} mx;

static int pos_param(const mx *m, int i)
{
    return m->rev ? m->np - 1 - i : i;
}

static int pos_input(const mx *m, int j)
{
    return m->rev ? m->nd - 1 - j : j;
}

static ts_status push(mx *m, int64_t v)
{
    if (m->len == TS_MAX_NDIM)
        return ts__error(m->err, TS_ERR_NDIM, "%s: the result has more than %d dims",
                         m->lead, TS_MAX_NDIM);
    m->tmp[m->len++] = v;
    return TS_OK;
}

/* Validates a -4 split value: a literal dim >= 0 or -1. */
static ts_status split_value(const mx *m, int64_t v, int at, int split_pos)
{
    if (v >= 0 || v == -1)
        return TS_OK;
    return ts__error(m->err, TS_ERR_VALUE,
                     "%s: the split dim %lld at position %d (for the -4 at position %d) "
                     "must be a dim >= 0 or -1", m->lead, (long long)v, pos_param(m, at),
                     pos_param(m, split_pos));
}

static ts_status mx_split(mx *m, const int64_t *par, const int64_t *src, int *i, int *src_idx)
{
    int at = *i;
    const char *dir = m->rev ? "preceded" : "followed";
    if (at + 2 >= m->np)
        return ts__error(m->err, TS_ERR_NDIM,
                         "%s: the -4 at position %d must be %s by the two dims to split "
                         "into", m->lead, pos_param(m, at), dir);
    if (*src_idx >= m->nd)
        return ts__error(m->err, TS_ERR_NDIM,
                         "%s: the -4 at position %d has no input dim left to split (the "
                         "input has %d dim%s)", m->lead, pos_param(m, at), m->nd,
                         m->nd == 1 ? "" : "s");
    int in_axis = pos_input(m, *src_idx);
    int64_t d0 = src[(*src_idx)++];
    int64_t d1 = par[++*i];
    int64_t d2 = par[++*i];
    ts_status st = split_value(m, d1, at + 1, at);
    if (!st)
        st = split_value(m, d2, at + 2, at);
    if (st)
        return st;
    if (d1 == -1 && d2 == -1)
        return ts__error(m->err, TS_ERR_VALUE,
                         "%s: the -4 at position %d splits input dim %d into (-1,-1): only "
                         "one of the two split dims can be -1", m->lead, pos_param(m, at),
                         in_axis);
    if (d1 == -1 || d2 == -1) {
        int64_t other = d1 == -1 ? d2 : d1;
        if (other == 0)
            return ts__error(m->err, TS_ERR_SIZE,
                             "%s: the -4 at position %d splits input dim %d (size %lld) into "
                             "(%lld,%lld): next to a 0 the -1 %s", m->lead,
                             pos_param(m, at), in_axis, (long long)d0, (long long)d1,
                             (long long)d2,
                             d0 == 0 ? "is ambiguous, any size fits" : "cannot be inferred");
        if (d0 % other != 0)
            return ts__error(m->err, TS_ERR_SIZE,
                             "%s: the -4 at position %d splits input dim %d (size %lld) into "
                             "(%lld,%lld): %lld is not a multiple of %lld", m->lead,
                             pos_param(m, at), in_axis, (long long)d0, (long long)d1,
                             (long long)d2, (long long)d0, (long long)other);
        if (d1 == -1)
            d1 = d0 / other;
        else
            d2 = d0 / other;
    }
    int64_t p;
    if (ts__mul_overflow(d1, d2, &p) || p != d0)
        return ts__error(m->err, TS_ERR_SIZE,
                         "%s: the -4 at position %d splits input dim %d (size %lld) into "
                         "(%lld,%lld), which do not multiply to %lld", m->lead,
                         pos_param(m, at), in_axis, (long long)d0, (long long)d1,
                         (long long)d2, (long long)d0);
    /* In reverse mode the pair is stored reversed like everything else. */
    st = push(m, d1);
    if (!st)
        st = push(m, d2);
    return st;
}

static ts_status mxnet_reshape(const ts_shape *in, int64_t size, const ts_shape *target,
                               int rev, ts_shape *out, ts_error *err)
{
    names nm;
    fill_names(&nm, in, target);
    char lead[3 * TS__SHAPE_STR_MAX];
    snprintf(lead, sizeof lead, "MXNet reshape of %s by %s%s", nm.in, nm.target,
             rev ? " (reverse)" : "");

    mx m;
    m.rev = rev;
    m.nd = ts_shape_ndim(in);
    m.np = ts_shape_ndim(target);
    m.len = 0;
    m.lead = lead;
    m.err = err;
    int64_t src[TS_MAX_NDIM], par[TS_MAX_NDIM];
    const int64_t *di = ts_shape_dims(in), *dt = ts_shape_dims(target);
    for (int j = 0; j < m.nd; j++)
        src[j] = di[rev ? m.nd - 1 - j : j];
    for (int i = 0; i < m.np; i++)
        par[i] = dt[rev ? m.np - 1 - i : i];

    int src_idx = 0; /* may pass nd: positives and -1 consume without a check */
    int inf = -1, inf_at = -1;
    ts_status st = TS_OK;
    for (int i = 0; i < m.np && !st; i++) {
        int64_t v = par[i];
        if (v > 0) {
            st = push(&m, v);
            src_idx++;
        } else if (v == 0) {
            if (src_idx >= m.nd)
                return ts__error(err, TS_ERR_NDIM,
                                 "%s: the 0 at position %d has no input dim left to copy (the "
                                 "input has %d dim%s)", lead, pos_param(&m, i), m.nd,
                                 m.nd == 1 ? "" : "s");
            st = push(&m, src[src_idx++]);
        } else if (v == -1) {
            if (inf >= 0)
                return ts__error(err, TS_ERR_VALUE,
                                 "%s: -1 at positions %d and %d: only one dim can be inferred",
                                 lead, pos_param(&m, rev ? i : inf_at),
                                 pos_param(&m, rev ? inf_at : i));
            inf = m.len;
            inf_at = i;
            st = push(&m, 1);
            src_idx++;
        } else if (v == -2) {
            while (src_idx < m.nd && !st)
                st = push(&m, src[src_idx++]);
        } else if (v == -3) {
            if (src_idx + 1 >= m.nd)
                return ts__error(err, TS_ERR_NDIM,
                                 "%s: the -3 at position %d needs two input dims to merge, but "
                                 "%d of the %d input dims %s left", lead, pos_param(&m, i),
                                 src_idx < m.nd ? m.nd - src_idx : 0, m.nd,
                                 src_idx == m.nd - 1 ? "is" : "are");
            int64_t d1 = src[src_idx++], d2 = src[src_idx++], p;
            if (ts__mul_overflow(d1, d2, &p))
                return ts__error(err, TS_ERR_OVERFLOW,
                                 "%s: the -3 at position %d merges %lld x %lld, which does "
                                 "not fit in int64", lead, pos_param(&m, i), (long long)d1,
                                 (long long)d2);
            st = push(&m, p);
        } else if (v == -4) {
            st = mx_split(&m, par, src, &i, &src_idx);
        } else {
            return ts__error(err, TS_ERR_VALUE,
                             "%s: %lld at position %d is not an MXNet reshape value (expected "
                             "a dim > 0, or 0, -1, -2, -3, -4)", lead, (long long)v,
                             pos_param(&m, i));
        }
        if (src_idx > TS_MAX_NDIM + 1)
            src_idx = TS_MAX_NDIM + 1; /* past the end either way; keeps it bounded */
    }
    if (st)
        return st;
    if (inf >= 0) {
        char lead2[4 * TS__SHAPE_STR_MAX];
        snprintf(lead2, sizeof lead2, "%s: cannot infer the -1 at position %d", lead,
                 pos_param(&m, inf_at));
        st = infer_unknown(m.tmp, m.len, inf, size, &nm, lead2, err);
        if (st)
            return st;
    }
    if (rev) {
        for (int a = 0, b = m.len - 1; a < b; a++, b--) {
            int64_t t = m.tmp[a];
            m.tmp[a] = m.tmp[b];
            m.tmp[b] = t;
        }
    }
    /* The check MXNet compiled out. */
    int64_t osize;
    char obuf[TS__SHAPE_STR_MAX];
    if (product(m.tmp, m.len, &osize))
        return ts__error(err, TS_ERR_SIZE,
                         "%s: the result %s has more than %lld elements, not %lld", lead,
                         ts__dims_str(m.tmp, m.len, obuf, sizeof obuf), (long long)INT64_MAX,
                         (long long)size);
    if (osize != size)
        return ts__error(err, TS_ERR_SIZE,
                         "%s: the result %s has %lld elements, the input %lld", lead,
                         ts__dims_str(m.tmp, m.len, obuf, sizeof obuf), (long long)osize,
                         (long long)size);
    return ts_shape_assign(out, m.tmp, m.len, err);
}

ts_status ts_reshape(const ts_shape *in, const ts_shape *target, unsigned flags,
                     ts_shape *out, ts_error *err)
{
    TS__ARG_NONNULL(err, in);
    TS__ARG_NONNULL(err, target);
    TS__ARG_NONNULL(err, out);
    TS__ARG_FLAGS(err, flags, TS_RESHAPE_MXNET | TS_RESHAPE_REVERSE);
    if ((flags & TS_RESHAPE_REVERSE) && !(flags & TS_RESHAPE_MXNET))
        return ts__error(err, TS_ERR_INVALID_ARG,
                         "reshape: reverse applies only to MXNet's special values, so "
                         "TS_RESHAPE_REVERSE needs TS_RESHAPE_MXNET");
    int64_t size;
    ts_status st = ts_shape_size(in, &size, err);
    if (st) {
        char buf[TS__SHAPE_STR_MAX];
        ts__error_prefix(err, "reshape of %s", ts__shape_str(in, buf, sizeof buf));
        return st;
    }
    if (flags & TS_RESHAPE_MXNET)
        return mxnet_reshape(in, size, target, (flags & TS_RESHAPE_REVERSE) != 0, out, err);
    return numpy_reshape(in, size, target, out, err);
}
