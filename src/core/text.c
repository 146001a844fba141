/*
 * text.c - copies of strings, UTF-8 validation and the printable form of
 * untrusted text in error messages (names, keys, dtype spellings and patterns come from files
 * and command lines, and must not break a message across lines or drive a
 * terminal).
 */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

char *ts__strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

size_t ts__utf8_len(const unsigned char *p, size_t n)
{
    if (n == 0)
        return 0;
    unsigned char c = p[0];
    size_t k;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        k = 2;
        cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        k = 3;
        cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        k = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (k > n)
        return 0;
    for (size_t i = 1; i < k; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3f);
    }
    /* No overlong forms, no surrogates, nothing above U+10FFFF (RFC 3629). */
    if ((k == 3 && cp < 0x800) || (k == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return k;
}

const char *ts__printable(const char *s, size_t n, char *buf, size_t cap)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *u = (const unsigned char *)s;
    size_t o = 0, i = 0;
    while (i < n && o + 8 < cap) {
        if (i >= 80) {
            memcpy(buf + o, "...", 3);
            o += 3;
            break;
        }
        size_t k = ts__utf8_len(u + i, n - i);
        int control = u[i] < 0x20 || u[i] == 0x7f || (k == 2 && u[i] == 0xc2 && u[i + 1] < 0xa0);
        if (k == 0 || control) {
            size_t m = k ? k : 1; /* a C1 control: both of its bytes */
            for (size_t j = 0; j < m && o + 8 < cap; j++) {
                buf[o++] = '\\';
                buf[o++] = 'x';
                buf[o++] = hex[u[i + j] >> 4];
                buf[o++] = hex[u[i + j] & 15];
            }
            i += m;
        } else {
            memcpy(buf + o, u + i, k);
            o += k;
            i += k;
        }
    }
    if (i < n && o + 4 <= cap && (o < 3 || memcmp(buf + o - 3, "...", 3) != 0)) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o] = '\0';
    return buf;
}

const char *ts__printable_str(const char *s, char *buf, size_t cap)
{
    return ts__printable(s, strlen(s), buf, cap);
}

const char *ts__found_at(const char *s, size_t len, size_t pos, char *buf, size_t cap)
{
    if (pos >= len)
        return "the end of the input";
    unsigned char c = (unsigned char)s[pos];
    if (c < 0x20 || c >= 0x7f)
        snprintf(buf, cap, "byte 0x%02x", c);
    else
        snprintf(buf, cap, "'%c'", c);
    return buf;
}

/* ---- sinks and the library's JSON string escaper ----------------------- */

ts_status ts__sink_flush(ts__sink *s, ts_error *err)
{
    if (s->n > 0 && s->write) {
        if (s->write(s->user, s->buf, s->n) != 0)
            return ts__error(err, TS_ERR_IO, "the output refused %zu bytes", s->n);
        s->n = 0;
    }
    return TS_OK;
}

ts_status ts__sink_add(ts__sink *s, const char *d, size_t n, ts_error *err)
{
    s->total += n;
    while (n > 0) {
        if (s->n == s->cap) {
            if (!s->write)
                return TS_OK; /* counting or full fixed buffer: drop the rest */
            ts_status st = ts__sink_flush(s, err);
            if (st)
                return st;
        }
        size_t k = n < s->cap - s->n ? n : s->cap - s->n;
        memcpy(s->buf + s->n, d, k);
        s->n += k;
        d += k;
        n -= k;
    }
    return TS_OK;
}

ts_status ts__sink_json_string(ts__sink *s, const unsigned char *p, size_t n, ts_error *err)
{
    ts_status st = ts__sink_add(s, "\"", 1, err);
    if (!st)
        st = ts__sink_json_chars(s, p, n, err);
    return st ? st : ts__sink_add(s, "\"", 1, err);
}

ts_status ts__sink_json_chars(ts__sink *s, const unsigned char *p, size_t n, ts_error *err)
{
    static const char hex[] = "0123456789abcdef";
    ts_status st = TS_OK;
    size_t run = 0; /* start of the bytes that need no escape */
    for (size_t i = 0; !st && i < n;) {
        unsigned char c = p[i];
        size_t k = c < 0x80 ? 1 : ts__utf8_len(p + i, n - i);
        if (k != 0 && c >= 0x20 && c != '"' && c != '\\') {
            i += k;
            continue;
        }
        st = ts__sink_add(s, (const char *)p + run, i - run, err);
        char e[8] = {'\\', 0};
        size_t m = 2;
        if (k == 0) { /* invalid UTF-8: U+FFFD, the output stays valid JSON */
            memcpy(e, "\xef\xbf\xbd", 3);
            m = 3;
        } else if (c == '"' || c == '\\') {
            e[1] = (char)c;
        } else if (c == '\n' || c == '\t' || c == '\r' || c == '\b' || c == '\f') {
            e[1] = c == '\n' ? 'n' : c == '\t' ? 't' : c == '\r' ? 'r' : c == '\b' ? 'b' : 'f';
        } else {
            memcpy(e, "\\u00", 4);
            e[4] = hex[c >> 4];
            e[5] = hex[c & 15];
            m = 6;
        }
        if (!st)
            st = ts__sink_add(s, e, m, err);
        i += 1;
        run = i;
    }
    return st ? st : ts__sink_add(s, (const char *)p + run, n - run, err);
}

/* Shortest text that reads back as the same float/double, Python-style
 * ("1e-05", "32.0"); non-finite values, which JSON has no literal for, are
 * the strings "nan", "inf" and "-inf" (as tshape show --json writes them). */
void ts__json_real(double v, int is_float, char *buf, size_t cap)
{
    if (!isfinite(v)) {
        snprintf(buf, cap, "%s", v != v ? "\"nan\"" : v > 0 ? "\"inf\"" : "\"-inf\"");
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, cap, "%.*g", prec, v);
        if (is_float ? strtof(buf, NULL) == (float)v : strtod(buf, NULL) == v)
            break;
    }
    if (!strpbrk(buf, ".eE")) {
        size_t n = strlen(buf);
        if (n + 2 < cap)
            memcpy(buf + n, ".0", 3);
    }
}
