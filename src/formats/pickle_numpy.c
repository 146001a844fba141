/*
 * pickle_numpy.c - NumPy arrays, dtypes and scalars in a pickle's value
 * tree (pickle_numpy.h). The shapes of the reduce tuples and states are
 * those of numpy/core/src/multiarray/methods.c (array_reduce,
 * array_reduce_ex_picklebuffer), descriptor.c (arraydescr_reduce) and
 * scalartypes.c (gentype_reduce); joblib's from joblib/numpy_pickle.py.
 */
#include "pickle_numpy.h"

#include "../values/values.h"

#include <math.h>
#include <stdio.h>

static int text_is(const unsigned char *p, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(p, lit, n) == 0;
}

/* Global g is numpy.<sub>.<name>, or numpy._<sub>.<name> (NumPy 2), or
 * module.name exactly when sub is NULL. */
static int global_is(const ts__pk_value *g, const char *module, const char *name)
{
    if (!g || g->kind != TS__PK_GLOBAL ||
        !text_is((const unsigned char *)g->u.g.name, g->u.g.name_len, name))
        return 0;
    const unsigned char *m = (const unsigned char *)g->u.g.module;
    size_t n = g->u.g.module_len;
    if (text_is(m, n, module))
        return 1;
    /* numpy.core.x <-> numpy._core.x */
    if (strncmp(module, "numpy.core.", 11) == 0 && n == strlen(module) + 1 &&
        memcmp(m, "numpy._core.", 12) == 0 && memcmp(m + 12, module + 11, n - 12) == 0)
        return 1;
    return 0;
}

static const ts__pk_value *arg_at(const ts__pk_value *v, size_t i)
{
    return v->args && v->args->kind == TS__PK_TUPLE && i < v->args->u.seq.n
               ? v->args->u.seq.v[i] : NULL;
}

static size_t nargs(const ts__pk_value *v)
{
    return v->args && v->args->kind == TS__PK_TUPLE ? v->args->u.seq.n : 0;
}

int ts__np_kind(const ts__pk_value *v)
{
    if (!v)
        return TS__NP_NONE;
    if (v->kind == TS__PK_CALL) {
        if (global_is(v->func, "numpy.core.multiarray", "_reconstruct") ||
            global_is(v->func, "numpy.core.numeric", "_frombuffer"))
            return TS__NP_ARRAY;
        if (global_is(v->func, "numpy.core.multiarray", "scalar"))
            return TS__NP_SCALAR;
        if (global_is(v->func, "numpy", "dtype"))
            return TS__NP_DTYPE;
    }
    if (v->kind == TS__PK_OBJECT &&
        global_is(v->func, "joblib.numpy_pickle", "NumpyArrayWrapper"))
        return TS__NP_ARRAY;
    return TS__NP_NONE;
}

static ts_status bad(ts_error *err, ts_status code, const char *what, const ts__pk_value *v)
{
    return ts__error(err, code, "%s is a %s, not what NumPy writes", what,
                     v ? ts__pk_kind_name(v->kind) : "missing value");
}

/* The value of key `key` of dict d (a DICT node: its own items only). */
static const ts__pk_value *dict_get(const ts__pk_value *d, const char *key)
{
    if (!d || d->kind != TS__PK_DICT)
        return NULL;
    for (size_t i = 0; i + 1 < d->u.seq.n; i += 2) {
        const ts__pk_value *k = d->u.seq.v[i];
        if (k->kind == TS__PK_STR && text_is(k->u.s.p, k->u.s.n, key))
            return d->u.seq.v[i + 1];
    }
    return NULL;
}

ts_status ts__np_dtype_descr(const ts__pk_value *dt, char *buf, size_t cap, ts_error *err)
{
    if (ts__np_kind(dt) != TS__NP_DTYPE)
        return bad(err, TS_ERR_FORMAT, "the array's dtype", dt);
    const ts__pk_value *code = arg_at(dt, 0), *st = dt->state;
    if (!code || code->kind != TS__PK_STR || code->u.s.n == 0 || code->u.s.n > 16)
        return bad(err, TS_ERR_FORMAT, "numpy.dtype's argument", code);
    char order = '|';
    if (st) {
        if (st->kind != TS__PK_TUPLE || st->u.seq.n < 8)
            return bad(err, TS_ERR_FORMAT, "numpy.dtype's state", st);
        const ts__pk_value *bo = st->u.seq.v[1], *sub = st->u.seq.v[2],
                           *names = st->u.seq.v[3];
        if (bo->kind != TS__PK_STR || bo->u.s.n != 1 || !strchr("<>|=", bo->u.s.p[0]))
            return bad(err, TS_ERR_FORMAT, "numpy.dtype's byte order", bo);
        order = (char)bo->u.s.p[0];
        if (sub->kind != TS__PK_NONE || names->kind != TS__PK_NONE)
            return ts__error(err, TS_ERR_DTYPE, "a structured or subarray NumPy dtype (%.*s "
                             "with fields): tshape reports only simple dtypes here",
                             (int)code->u.s.n, (const char *)code->u.s.p);
    }
    char kind = (char)code->u.s.p[0];
    if (kind == 'O') {
        snprintf(buf, cap, "|O");
        return TS_OK;
    }
    char unit[40] = "";
    if ((kind == 'M' || kind == 'm') && st && st->u.seq.n >= 9) {
        /* metadata ({}, (b'ns', num, den, events)) */
        const ts__pk_value *md = st->u.seq.v[8];
        const ts__pk_value *u =
            md->kind == TS__PK_TUPLE && md->u.seq.n == 2 ? md->u.seq.v[1] : NULL;
        if (!u || u->kind != TS__PK_TUPLE || u->u.seq.n < 2 ||
            (u->u.seq.v[0]->kind != TS__PK_BYTES && u->u.seq.v[0]->kind != TS__PK_STR) ||
            u->u.seq.v[0]->u.s.n > 16 || u->u.seq.v[1]->kind != TS__PK_INT)
            return bad(err, TS_ERR_FORMAT, "a datetime dtype's unit", u);
        int64_t num = u->u.seq.v[1]->u.i;
        if (num > 1)
            snprintf(unit, sizeof unit, "[%lld%.*s]", (long long)num,
                     (int)u->u.seq.v[0]->u.s.n, (const char *)u->u.seq.v[0]->u.s.p);
        else
            snprintf(unit, sizeof unit, "[%.*s]", (int)u->u.seq.v[0]->u.s.n,
                     (const char *)u->u.seq.v[0]->u.s.p);
    }
    snprintf(buf, cap, "%c%.*s%s", order, (int)code->u.s.n, (const char *)code->u.s.p, unit);
    ts_descr d;
    ts_status s = ts_descr_parse(buf, &d, err);
    if (s)
        return s;
    if (d.itemsize <= 1 && order != '|' && kind != 'S' && kind != 'V')
        buf[0] = '|';
    return TS_OK;
}

/* A shape tuple of ints >= 0. */
static ts_status shape_of(const ts__pk_value *t, ts__np_array *out, ts_error *err)
{
    if (!t || (t->kind != TS__PK_TUPLE && t->kind != TS__PK_LIST))
        return bad(err, TS_ERR_FORMAT, "the array's shape", t);
    if (t->u.seq.n > TS_MAX_NDIM)
        return ts__error(err, TS_ERR_NDIM, "the array has %zu dims, more than %d", t->u.seq.n,
                         TS_MAX_NDIM);
    out->ndim = (int)t->u.seq.n;
    for (int i = 0; i < out->ndim; i++) {
        const ts__pk_value *d = t->u.seq.v[i];
        if (d->kind != TS__PK_INT)
            return bad(err, TS_ERR_FORMAT, "a dim of the array's shape", d);
        if (d->u.i < 0)
            return ts__error(err, TS_ERR_VALUE, "the array's shape has a negative dim %lld",
                             (long long)d->u.i);
        out->shape[i] = d->u.i;
    }
    return TS_OK;
}

/* The element bytes of raw: bytes in the input, or why not. */
static void data_of(const ts__pk_value *raw, ts__np_array *out)
{
    if (raw && raw->kind == TS__PK_BYTES && !raw->owned)
        out->data = raw;
    else if (raw && raw->kind == TS__PK_CALL && raw->func && raw->func->kind == TS__PK_GLOBAL &&
             text_is((const unsigned char *)raw->func->u.g.module, raw->func->u.g.module_len,
                     "_codecs"))
        out->why = "its bytes are written as latin-1 text (pickle protocols 0 to 2): not "
                   "addressable";
    else if (raw && (raw->kind == TS__PK_LIST || raw->kind == TS__PK_TUPLE))
        out->why = "the array holds Python objects";
    else
        out->why = "its bytes are not in the pickle as bytes";
}

/* nbytes = size x itemsize, checked against the bytes present. */
static ts_status check_bytes(ts__np_array *out, ts_error *err)
{
    ts_descr d;
    ts_status st = ts_descr_parse(out->descr, &d, err);
    if (st)
        return st;
    int64_t size, nbytes;
    if ((st = ts__dims_size(out->shape, out->ndim, &size, err)))
        return st;
    if (d.dtype == TS_DTYPE_OBJECT) {
        if (!out->why)
            out->why = "the array holds Python objects";
        out->data = NULL;
        return TS_OK;
    }
    if (ts__mul_overflow(size, d.itemsize, &nbytes))
        return ts__error(err, TS_ERR_OVERFLOW, "the array's byte count overflows int64");
    if (out->data && (uint64_t)nbytes != out->data->u.s.n)
        return ts__error(err, TS_ERR_FORMAT, "the array's bytes are %zu, but %lld elements of "
                         "%s need %lld", out->data->u.s.n, (long long)size, out->descr,
                         (long long)nbytes);
    return TS_OK;
}

ts_status ts__np_array_of(const ts__pk_value *v, ts__np_array *out, ts_error *err)
{
    memset(out, 0, sizeof *out);
    out->data_at = -1;
    ts_status st;
    if (v->kind == TS__PK_OBJECT) {
        /* joblib NumpyArrayWrapper: state {'subclass', 'shape', 'order',
         * 'dtype', 'allow_mmap'[, 'numpy_array_alignment_bytes']} */
        const ts__pk_value *order = dict_get(v->state, "order");
        if ((st = shape_of(dict_get(v->state, "shape"), out, err)) ||
            (st = ts__np_dtype_descr(dict_get(v->state, "dtype"), out->descr,
                                     sizeof out->descr, err)))
            return st;
        if (!order || order->kind != TS__PK_STR || order->u.s.n != 1)
            return bad(err, TS_ERR_FORMAT, "joblib's array order", order);
        out->fortran = order->u.s.p[0] == 'F';
        out->data_at = v->data_at > 0 ? v->data_at : -1;
        if (out->data_at < 0)
            out->why = "joblib writes its bytes after the pickle's opcodes";
        return check_bytes(out, err);
    }
    if (global_is(v->func, "numpy.core.numeric", "_frombuffer")) {
        /* (buffer, dtype, shape, order) */
        const ts__pk_value *order = arg_at(v, 3);
        if (nargs(v) != 4 || !order || order->kind != TS__PK_STR || order->u.s.n != 1)
            return bad(err, TS_ERR_FORMAT, "_frombuffer's arguments", v->args);
        if ((st = shape_of(arg_at(v, 2), out, err)) ||
            (st = ts__np_dtype_descr(arg_at(v, 1), out->descr, sizeof out->descr, err)))
            return st;
        out->fortran = order->u.s.p[0] == 'F';
        data_of(arg_at(v, 0), out);
        return check_bytes(out, err);
    }
    /* _reconstruct(ndarray, (0,), b'b') + BUILD (version, shape, dtype,
     * is_fortran, rawdata); version 0 files omit the version */
    const ts__pk_value *s = v->state;
    if (!s)
        return ts__error(err, TS_ERR_FORMAT, "numpy _reconstruct without its BUILD state");
    if (s->kind != TS__PK_TUPLE || (s->u.seq.n != 5 && s->u.seq.n != 4))
        return bad(err, TS_ERR_FORMAT, "the array's state", s);
    ts__pk_value *const *f = s->u.seq.v + (s->u.seq.n == 5);
    if ((st = shape_of(f[0], out, err)) ||
        (st = ts__np_dtype_descr(f[1], out->descr, sizeof out->descr, err)))
        return st;
    if (f[2]->kind != TS__PK_BOOL && f[2]->kind != TS__PK_INT)
        return bad(err, TS_ERR_FORMAT, "the array's is_fortran flag", f[2]);
    out->fortran = f[2]->u.i != 0;
    data_of(f[3], out);
    return check_bytes(out, err);
}

ts_status ts__np_scalar_json(const ts__pk_value *v, char *buf, size_t cap, ts_error *err)
{
    char descr[48];
    ts_status st = ts__np_dtype_descr(arg_at(v, 0), descr, sizeof descr, err);
    if (st)
        return st;
    const ts__pk_value *raw = arg_at(v, 1);
    ts_descr d;
    if ((st = ts_descr_parse(descr, &d, err)))
        return st;
    if (!raw || raw->kind != TS__PK_BYTES || d.dtype == TS_DTYPE_OBJECT) {
        /* protocol 2 writes the bytes as latin-1 text: decode it */
        unsigned char tmp[16];
        size_t n = 0;
        const ts__pk_value *t = raw && raw->kind == TS__PK_CALL ? arg_at(raw, 0) : NULL;
        if (t && t->kind == TS__PK_STR && d.dtype != TS_DTYPE_OBJECT) {
            for (size_t i = 0; i < t->u.s.n && n < sizeof tmp;) {
                size_t k = ts__utf8_len(t->u.s.p + i, t->u.s.n - i);
                unsigned cp = k == 1 ? t->u.s.p[i]
                              : k == 2 ? (unsigned)(t->u.s.p[i] & 0x1f) << 6 |
                                         (t->u.s.p[i + 1] & 0x3f) : 256;
                if (cp > 255)
                    break;
                tmp[n++] = (unsigned char)cp;
                i += k;
            }
        }
        if (!t || n != (size_t)d.itemsize) {
            snprintf(buf, cap, "{\"numpy\":\"%s\"}", descr);
            return TS_OK;
        }
        ts__pk_value fake;
        memset(&fake, 0, sizeof fake);
        fake.kind = TS__PK_BYTES;
        fake.u.s.p = tmp;
        fake.u.s.n = n;
        ts__pk_value args, *items[2] = {(ts__pk_value *)(uintptr_t)arg_at(v, 0), &fake};
        memset(&args, 0, sizeof args);
        args.kind = TS__PK_TUPLE;
        args.u.seq.v = items;
        args.u.seq.n = 2;
        ts__pk_value call = *v;
        call.args = &args;
        return ts__np_scalar_json(&call, buf, cap, err);
    }
    if (raw->u.s.n != (size_t)d.itemsize)
        return ts__error(err, TS_ERR_FORMAT, "a NumPy %s scalar of %zu bytes", descr,
                         raw->u.s.n);
    ts_array a;
    memset(&a, 0, sizeof a);
    ts__array_set_dtype(&a, d.dtype);
    a.byteorder = d.byteorder;
    ts__decoder dec;
    if (ts__decoder_for(&a, &dec, NULL) != TS_OK) {
        snprintf(buf, cap, "{\"numpy\":\"%s\"}", descr);
        return TS_OK;
    }
    if (dec.kind == TS_VALUE_BOOL) {
        int64_t x;
        dec.to_i64(raw->u.s.p, 1, &x);
        snprintf(buf, cap, "%s", x ? "true" : "false");
    } else if (dec.kind == TS_VALUE_INT) {
        int64_t x;
        dec.to_i64(raw->u.s.p, 1, &x);
        snprintf(buf, cap, "%lld", (long long)x);
    } else if (dec.kind == TS_VALUE_UINT) {
        uint64_t x;
        dec.to_u64(raw->u.s.p, 1, &x);
        snprintf(buf, cap, "%llu", (unsigned long long)x);
    } else if (dec.kind == TS_VALUE_COMPLEX) {
        double x[2];
        dec.to_double(raw->u.s.p, 1, x);
        snprintf(buf, cap, "{\"complex\":[%.17g,%.17g]}", x[0], x[1]);
    } else {
        double x;
        dec.to_double(raw->u.s.p, 1, &x);
        if (isnan(x) || isinf(x))
            snprintf(buf, cap, "\"%s\"", x != x ? "nan" : x > 0 ? "inf" : "-inf");
        else
            snprintf(buf, cap, "%.17g", x);
    }
    return TS_OK;
}

static ts_status joblib_build(ts__pk_event *e, int *nested, ts_error *err)
{
    *nested = 0;
    e->skip = 0;
    ts__pk_value *w = e->a;
    if (!w || w->kind != TS__PK_OBJECT ||
        !global_is(w->func, "joblib.numpy_pickle", "NumpyArrayWrapper"))
        return TS_OK;
    const ts__pk_value *st = e->b;
    ts__np_array arr;
    memset(&arr, 0, sizeof arr);
    ts_status s;
    if ((s = shape_of(dict_get(st, "shape"), &arr, err)) ||
        (s = ts__np_dtype_descr(dict_get(st, "dtype"), arr.descr, sizeof arr.descr, err)))
        return s;
    ts_descr d;
    if ((s = ts_descr_parse(arr.descr, &d, err)))
        return s;
    if (d.dtype == TS_DTYPE_OBJECT) {
        *nested = 1;
        return TS_OK;
    }
    size_t pos = e->pos;
    const ts__pk_value *align = dict_get(st, "numpy_array_alignment_bytes");
    if (align && align->kind != TS__PK_NONE) {
        if (pos >= e->len)
            return ts__error(err, TS_ERR_TRUNCATED, "joblib's padding byte after the array "
                             "wrapper at byte %zu is missing", pos);
        pos += 1 + (size_t)e->data[pos];
    }
    int64_t size, nbytes;
    if ((s = ts__dims_size(arr.shape, arr.ndim, &size, err)))
        return s;
    if (ts__mul_overflow(size, d.itemsize, &nbytes) || (uint64_t)nbytes > SIZE_MAX)
        return ts__error(err, TS_ERR_OVERFLOW, "joblib's array byte count overflows");
    if (pos > e->len || (uint64_t)nbytes > e->len - pos)
        return ts__error(err, TS_ERR_TRUNCATED, "joblib's array of %lld bytes at byte %zu "
                         "runs past the end of the file", (long long)nbytes, pos);
    w->data_at = (int64_t)pos;
    e->skip = pos - e->pos + (size_t)nbytes;
    return TS_OK;
}

ts_status ts__joblib_build(ts__pk_event *e, const char *where, int *nested, ts_error *err)
{
    ts_status st = joblib_build(e, nested, err);
    if (st)
        ts__error_prefix(err, "%s byte %zu", where, e->at);
    return st;
}
