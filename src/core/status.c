/* status.c - the version, status codes with their static text, and detailed
 * error reports (ts_error). */
#include "internal.h"

#include <stdio.h>

const char *ts_version(void)
{
    return TS_VERSION_STRING;
}

/* A switch without default: -Wswitch-enum breaks the build when a status
 * code has no text (curl lib/strerror.c). */
const char *ts_strerror(ts_status code)
{
    switch (code) {
    case TS_OK: return "success";
    case TS_ERR_NOMEM: return "out of memory";
    case TS_ERR_INVALID_ARG: return "invalid argument";
    case TS_ERR_PARSE: return "syntax error";
    case TS_ERR_OVERFLOW: return "integer overflow";
    case TS_ERR_AXIS: return "axis out of range";
    case TS_ERR_NDIM: return "wrong number of dimensions";
    case TS_ERR_SIZE: return "size mismatch";
    case TS_ERR_BROADCAST: return "shapes cannot be broadcast";
    case TS_ERR_LAYOUT: return "incompatible memory layout";
    case TS_ERR_IO: return "I/O error";
    case TS_ERR_FORMAT: return "invalid file format";
    case TS_ERR_TRUNCATED: return "file is truncated";
    case TS_ERR_UNSUPPORTED: return "unsupported";
    case TS_ERR_LIMIT: return "resource limit exceeded";
    case TS_ERR_DTYPE: return "unknown dtype";
    case TS_ERR_INDEX: return "index out of bounds";
    case TS_ERR_VALUE: return "invalid value";
    case TS_ERR_CANCELED: return "canceled";
    }
    return "unknown error";
}

/* Rewrites control characters in msg as \xNN, in place within cap bytes
 * (truncating), so a message that quotes hostile input (a member name, a
 * key, a line of text) stays one printable line. */
static void escape_controls(char *msg, size_t cap)
{
    static const char hex[] = "0123456789abcdef";
    char tmp[TS_ERROR_MESSAGE_MAX];
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)msg; *p && n + 1 < sizeof tmp; p++) {
        /* C0 controls, DEL, and C1 controls in UTF-8 (c2 80 .. c2 9f, such
         * as CSI c2 9b): each byte as \xNN. */
        int c1 = p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f;
        if (c1 && n + 9 <= sizeof tmp) {
            static const char c2[] = "\\xc2\\x";
            memcpy(tmp + n, c2, 6);
            n += 6;
            p++;
            tmp[n++] = hex[*p >> 4];
            tmp[n++] = hex[*p & 15];
            continue;
        }
        if (c1 || *p < 0x20 || *p == 0x7f) {
            if (n + 5 > sizeof tmp)
                break;
            tmp[n++] = '\\';
            tmp[n++] = 'x';
            tmp[n++] = hex[*p >> 4];
            tmp[n++] = hex[*p & 15];
        } else {
            tmp[n++] = (char)*p;
        }
    }
    tmp[n] = '\0';
    if (n >= cap)
        n = cap - 1;
    memcpy(msg, tmp, n);
    msg[n] = '\0';
}

ts_status ts__vfail(ts_error *err, ts_status code, int64_t column, int64_t offset,
                    const char *fmt, va_list ap)
{
    if (err) {
        err->code = code;
        err->column = column;
        err->offset = offset;
        err->index = -1;
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        escape_controls(err->message, sizeof err->message);
    }
    return code;
}

ts_status ts__fail(ts_error *err, ts_status code, int64_t column, int64_t offset,
                   const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ts__vfail(err, code, column, offset, fmt, ap);
    va_end(ap);
    return code;
}

void ts__error_prefix(ts_error *err, const char *fmt, ...)
{
    if (!err)
        return;
    char prefix[TS_ERROR_MESSAGE_MAX];
    char old[TS_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(old, err->message, sizeof old);
    /* Assemble by hand: truncation is intended and must not warn. */
    size_t cap = sizeof err->message - 1, n = strlen(prefix);
    if (n > cap)
        n = cap;
    memcpy(err->message, prefix, n);
    const char *parts[2] = {": ", old};
    for (int i = 0; i < 2; i++) {
        size_t k = strlen(parts[i]);
        if (k > cap - n)
            k = cap - n;
        memcpy(err->message + n, parts[i], k);
        n += k;
    }
    err->message[n] = '\0';
    escape_controls(err->message, sizeof err->message);
}

void ts__error_entry(ts_error *err, int64_t index, const char *fmt, ...)
{
    if (!err)
        return;
    char prefix[TS_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    ts__error_prefix(err, "%s", prefix);
    err->index = index;
}

ts_status ts__error_index(ts_error *err, ts_status code, int64_t index)
{
    if (err)
        err->index = index;
    return code;
}

ts_status ts__bad_arg(ts_error *err, const char *fn, const char *fmt, ...)
{
    char msg[TS_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ts__fail(err, TS_ERR_INVALID_ARG, 0, -1, "%s: %s", fn, msg);
}

ts_status ts__read_struct(ts_error *err, const char *fn, const char *arg, const char *what,
                          const void *given, size_t v1_size, void *out, size_t size,
                          const char *init, const char *type)
{
    size_t n;
    memcpy(&n, given, sizeof n);
    if (n < v1_size)
        return ts__bad_arg(err, fn,
                           "%s->struct_size is %zu: initialise the %s with %s (struct_size = "
                           "sizeof(%s) = %zu)", arg, n, what, init, type, size);
    if (n > size) {
        const unsigned char *tail = (const unsigned char *)given + size;
        for (size_t i = 0; i < n - size; i++)
            if (tail[i])
                return ts__fail(err, TS_ERR_UNSUPPORTED, 0, -1,
                                "%s: %s sets byte %zu, beyond the %zu bytes of %s this "
                                "version of the library knows (struct_size %zu)",
                                fn, arg, size + i, size, what, n);
        n = size;
    }
    memcpy(out, given, n);
    memcpy(out, &size, sizeof size);
    return TS_OK;
}

void ts__ok(ts_error *err)
{
    if (err) {
        err->code = TS_OK;
        err->column = 0;
        err->offset = -1;
        err->index = -1;
        err->message[0] = '\0';
    }
}
