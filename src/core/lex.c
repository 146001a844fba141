/*
 * lex.c - the library's one lexer: decimal integers with overflow checks
 * (ts__scan_int; whitespace sets and the fast digit loop are inline in
 * internal.h), and the two parsers the CLI uses for its arguments:
 * ts_parse_i64 (one integer) and ts_parse_i64_list (an integer list).
 */
#include "internal.h"

#include <stdio.h>

int ts__scan_int(const char *s, size_t len, size_t pos, unsigned flags, ts__int *out)
{
    size_t p = pos;
    out->start = pos;
    out->end = pos;
    out->negative = 0;
    out->leading_zero = 0;
    out->value = 0;
    out->magnitude = 0;
    if ((flags & TS__INT_SIGN) && p < len && (s[p] == '-' || s[p] == '+'))
        out->negative = s[p++] == '-';
    if (p >= len || !ts__is_digit(s[p])) {
        out->negative = 0;
        return TS__INT_NONE;
    }
    size_t first = p;
    uint64_t v = 0;
    int overflow = 0;
    for (; p < len && ts__is_digit(s[p]); p++) {
        unsigned d = (unsigned)(s[p] - '0');
        if (__builtin_mul_overflow(v, 10u, &v) || __builtin_add_overflow(v, d, &v))
            overflow = 1;
    }
    out->end = p;
    out->leading_zero = p - first > 1 && s[first] == '0';
    /* -9223372036854775808 is a valid int64 (axes and indices may be). */
    if (overflow || v > (uint64_t)INT64_MAX + (uint64_t)out->negative)
        return TS__INT_OVERFLOW;
    /* "-0" is 0, as Python reads it ((-0, 2) is the shape (0, 2)). */
    if (v == 0)
        out->negative = 0;
    out->magnitude = v;
    out->value = out->negative ? (int64_t)(0 - v) : (int64_t)v;
    return TS__INT_OK;
}

/* Scans one integer of ts_parse_i64 / ts_parse_i64_list at text[*pos] and
 * advances *pos past it. */
static ts_status int_at(const char *text, size_t len, size_t *pos, unsigned flags,
                        int64_t *out, ts_error *err)
{
    ts__int v;
    char buf[16];
    switch (ts__scan_int(text, len, *pos, TS__INT_SIGN, &v)) {
    case TS__INT_NONE:
        return ts__fail(err, TS_ERR_PARSE, (int64_t)*pos + 1, -1,
                        "expected an integer at column %zu, found %s", *pos + 1,
                        ts__found_at(text, len, *pos, buf, sizeof buf));
    case TS__INT_OVERFLOW:
        return ts__fail(err, TS_ERR_OVERFLOW, (int64_t)v.start + 1, -1,
                        "integer at column %zu does not fit in int64", v.start + 1);
    default:
        break;
    }
    if (v.negative && !(flags & TS_PARSE_ALLOW_NEGATIVE))
        return ts__fail(err, TS_ERR_VALUE, (int64_t)v.start + 1, -1,
                        "negative integer -%llu at column %zu: expected an integer >= 0",
                        (unsigned long long)v.magnitude, v.start + 1);
    *out = v.value;
    *pos = v.end;
    return TS_OK;
}

ts_status ts_parse_i64(const char *text, size_t len, unsigned flags, int64_t *out, ts_error *err)
{
    TS__ARG_ARRAY(err, text, len);
    TS__ARG_FLAGS(err, flags, TS_PARSE_ALLOW_NEGATIVE);
    TS__ARG_NONNULL(err, out);
    size_t pos = 0;
    int64_t v;
    ts_status st = int_at(text, len, &pos, flags, &v, err);
    if (st)
        return st;
    if (pos < len) {
        char buf[16];
        return ts__fail(err, TS_ERR_PARSE, (int64_t)pos + 1, -1,
                        "expected the end of the integer at column %zu, found %s", pos + 1,
                        ts__found_at(text, len, pos, buf, sizeof buf));
    }
    *out = v;
    ts__ok(err);
    return TS_OK;
}

ts_status ts_parse_i64_list(const char *text, size_t len, unsigned flags, ts_shape *out,
                            ts_error *err)
{
    TS__ARG_ARRAY(err, text, len);
    TS__ARG_FLAGS(err, flags, TS_PARSE_ALLOW_NEGATIVE);
    TS__ARG_NONNULL(err, out);
    size_t pos = ts__skip_ws(text, len, 0, TS__WS_TEXT);
    /* A tuple or list: the shape grammar, which allows (3,) and (). */
    if (pos < len && (text[pos] == '(' || text[pos] == '['))
        return ts_shape_parse(text, len, flags, out, NULL, err);
    int64_t v[TS_MAX_NDIM];
    int n = 0;
    ts_status st;
    for (;;) {
        pos = ts__skip_ws(text, len, pos, TS__WS_TEXT);
        if (n == TS_MAX_NDIM)
            return ts__fail(err, TS_ERR_NDIM, (int64_t)pos + 1, -1,
                            "more than %d entries at column %zu", TS_MAX_NDIM, pos + 1);
        if ((st = int_at(text, len, &pos, flags, &v[n++], err)) != TS_OK)
            return st;
        pos = ts__skip_ws(text, len, pos, TS__WS_TEXT);
        if (pos == len)
            break;
        if (text[pos] != ',') {
            char buf[16];
            return ts__fail(err, TS_ERR_PARSE, (int64_t)pos + 1, -1,
                            "expected ',' or the end at column %zu, found %s", pos + 1,
                            ts__found_at(text, len, pos, buf, sizeof buf));
        }
        pos++;
    }
    if ((st = ts_shape_assign(out, v, n, err)) != TS_OK)
        return st;
    ts__ok(err);
    return TS_OK;
}
