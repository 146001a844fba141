/*
 * output.c - standard output: the buffer, the one string escaper, the one
 * JSON writer, and the print_* functions that print a record as human text
 * or JSON from the same calls.
 *
 * The buffer is written with write(2) when full and at exit (out_finish).
 * A write error is remembered and reported once at exit; a closed pipe
 * (EPIPE: head, grep -q) is not an error worth a message: output is then
 * dropped, and the stdin driver stops reading, so the exit status is that
 * of the input processed so far.
 */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char hex[] = "0123456789abcdef";

/* ---- the buffer ------------------------------------------------------------ */

void out_drain(cli_ctx *ctx)
{
    cli_out *o = &ctx->out;
    size_t off = 0;
    while (off < o->len && !o->closed && !o->error) {
        ssize_t k = write(STDOUT_FILENO, o->buf + off, o->len - off);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EPIPE)
                o->closed = 1;
            else
                o->error = errno;
            break;
        }
        off += (size_t)k;
    }
    o->len = 0;
}

int out_finish(cli_ctx *ctx, int status)
{
    out_drain(ctx);
    if (ctx->out.error) {
        int e = ctx->out.error;
        ctx->out.error = 0; /* reported once */
        cli_error(ctx, NULL, "error writing standard output: %s", strerror(e));
    }
    return cli_worse(status, ctx->status);
}

void out_write(cli_ctx *ctx, const char *s, size_t n)
{
    cli_out *o = &ctx->out;
    while (n > 0) {
        size_t room = sizeof o->buf - o->len;
        size_t k = n < room ? n : room;
        memcpy(o->buf + o->len, s, k);
        o->len += k;
        s += k;
        n -= k;
        if (o->len == sizeof o->buf)
            out_drain(ctx);
    }
}

void out_str(cli_ctx *ctx, const char *s)
{
    out_write(ctx, s, strlen(s));
}

void out_char(cli_ctx *ctx, char c)
{
    cli_out *o = &ctx->out;
    if (o->len == sizeof o->buf)
        out_drain(ctx);
    o->buf[o->len++] = c;
}

/* Two digits per step (the classic table trick): numbers are most of what
 * the shape commands print. */
static const char digits2[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* Writes v in decimal at p (room for 20 bytes); returns the length. */
static size_t format_i64(char *p, int64_t v)
{
    static const uint64_t pow10[20] = {
        1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
        100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL,
        10000000000000ULL, 100000000000000ULL, 1000000000000000ULL,
        10000000000000000ULL, 100000000000000000ULL, 1000000000000000000ULL,
        10000000000000000000ULL,
    };
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    char *q = p;
    if (v < 0)
        *q++ = '-';
    /* Count the digits, then fill them in from the end, two at a time.
     * digits = floor(log10 u) + 1, from the bit length (1233/4096 ~ log10 2). */
    unsigned t = ((unsigned)(64 - __builtin_clzll(u | 1)) * 1233) >> 12;
    unsigned n = u < 10 ? 1 : t + 1 - (u < pow10[t]);
    char *e = q + n;
    while (u >= 100) {
        unsigned i = (unsigned)(u % 100) * 2;
        u /= 100;
        *--e = digits2[i + 1];
        *--e = digits2[i];
    }
    if (u >= 10) {
        *--e = digits2[u * 2 + 1];
        *--e = digits2[u * 2];
    } else {
        *--e = (char)('0' + u);
    }
    return (size_t)(q + n - p);
}

void out_i64(cli_ctx *ctx, int64_t v)
{
    cli_out *o = &ctx->out;
    if (sizeof o->buf - o->len < 24)
        out_drain(ctx);
    o->len += format_i64(o->buf + o->len, v);
}

void out_printf(cli_ctx *ctx, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof buf) {
        out_write(ctx, buf, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big)
        return;
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    out_write(ctx, big, (size_t)n);
    free(big);
}

void out_dims(cli_ctx *ctx, const int64_t *d, int n)
{
    out_char(ctx, ctx->json ? '[' : '(');
    for (int i = 0; i < n; i++) {
        if (i)
            out_char(ctx, ',');
        out_i64(ctx, d[i]);
    }
    if (n == 1 && !ctx->json)
        out_char(ctx, ',');
    out_char(ctx, ctx->json ? ']' : ')');
}

void cli_fmt_double(char *buf, size_t cap, double v, int json)
{
    if (v != v)
        snprintf(buf, cap, json ? "\"nan\"" : "nan");
    else if (isinf(v))
        snprintf(buf, cap, json ? "\"%sinf\"" : "%sinf", v < 0 ? "-" : "");
    else
        snprintf(buf, cap, json ? "%.17g" : "%.6g", v);
}

void out_shape(cli_ctx *ctx, const ts_shape *s)
{
    out_dims(ctx, ts_shape_dims(s), ts_shape_ndim(s));
}

int cli_shape_fits(const ts_shape *s, ts_error *err)
{
    int64_t size;
    return ts_shape_size(s, &size, err) == TS_OK ? CLI_OK : CLI_ERROR;
}

int out_shape_line(cli_ctx *ctx, const ts_shape *s, ts_error *err)
{
    if (cli_shape_fits(s, err) != CLI_OK)
        return CLI_ERROR;
    out_shape(ctx, s);
    out_char(ctx, '\n');
    return CLI_OK;
}

/* ---- the escaper ----------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at p[0..n) (1..4), with its code point
 * in *cp, or 0 if it is not one (RFC 3629: no overlongs, no surrogates,
 * nothing above U+10FFFF). */
static size_t utf8_decode(const unsigned char *p, size_t n, uint32_t *cp)
{
    unsigned char c = p[0];
    size_t k;
    uint32_t v;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xc2 && c <= 0xdf) {
        k = 2;
        v = c & 0x1fu;
    } else if (c >= 0xe0 && c <= 0xef) {
        k = 3;
        v = c & 0x0fu;
    } else if (c >= 0xf0 && c <= 0xf4) {
        k = 4;
        v = c & 0x07u;
    } else {
        return 0;
    }
    if (k > n)
        return 0;
    for (size_t i = 1; i < k; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        v = (v << 6) | (p[i] & 0x3fu);
    }
    if ((k == 3 && v < 0x800) || (k == 4 && (v < 0x10000 || v > 0x10ffff)) ||
        (v >= 0xd800 && v <= 0xdfff))
        return 0;
    *cp = v;
    return k;
}

/* Characters that move the cursor, break a line or reorder text on a
 * terminal: C0 and C1 controls, DEL, line and paragraph separators, and
 * the bidirectional controls (marks, embeddings, overrides, isolates). */
static int unsafe(uint32_t cp)
{
    return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x061c || cp == 0x200e ||
           cp == 0x200f || cp == 0x2028 || cp == 0x2029 || (cp >= 0x202a && cp <= 0x202e) ||
           (cp >= 0x2066 && cp <= 0x2069);
}

/* The escaped form of one character (k bytes at p, code point cp, k == 0
 * for an invalid byte) into q; returns its length (at most 12). */
static size_t escape_one(cli_esc mode, const unsigned char *p, size_t k, uint32_t cp, char *q)
{
    size_t o = 0;
    if (mode == CLI_ESC_JSON) {
        if (k == 0) {
            memcpy(q, "\\ufffd", 6);
            return 6;
        }
        const char *s = cp == '"' ? "\\\"" : cp == '\\' ? "\\\\" : cp == '\n' ? "\\n"
                        : cp == '\t' ? "\\t" : cp == '\r' ? "\\r" : cp == '\b' ? "\\b"
                        : cp == '\f' ? "\\f" : NULL;
        if (s) {
            memcpy(q, s, 2);
            return 2;
        }
        if (!unsafe(cp)) {
            memcpy(q, p, k);
            return k;
        }
        char u[6] = {'\\', 'u', hex[cp >> 12], hex[(cp >> 8) & 15], hex[(cp >> 4) & 15],
                     hex[cp & 15]};
        memcpy(q, u, 6);
        return 6;
    }
    if (k != 0 && cp == '\\' && mode == CLI_ESC_TEXT) {
        memcpy(q, "\\\\", 2);
        return 2;
    }
    if (k != 0 && !unsafe(cp)) {
        memcpy(q, p, k);
        return k;
    }
    for (size_t i = 0; i < (k ? k : 1); i++) { /* every byte as \xNN */
        q[o++] = '\\';
        q[o++] = 'x';
        q[o++] = hex[p[i] >> 4];
        q[o++] = hex[p[i] & 15];
    }
    return o;
}

/* Plain printable ASCII: copied as it is in every mode. */
static int plain(unsigned char c)
{
    return c >= 0x20 && c < 0x7f && c != '\\' && c != '"';
}

/* The length of the run of plain characters p[0..n) starts with: eight
 * bytes a step while no byte of them can be anything else (a word with a
 * byte below 0x20, at or above 0x7f, '"' or '\\' sets a high bit below;
 * a false alarm only moves to the byte loop early). */
static size_t plain_run(const unsigned char *p, size_t n)
{
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    size_t i = 0;
    for (; n - i >= 8; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
        uint64_t odd = ((w - ones * 0x20) & ~w) | (w + ones) | w | ((q - ones) & ~q) |
                       ((b - ones) & ~b);
        if (odd & highs)
            break;
    }
    while (i < n && plain(p[i]))
        i++;
    return i;
}

size_t cli_escape(cli_esc mode, const char *s, size_t n, char *dst, size_t cap,
                  size_t *written)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, o = 0;
    char tmp[12];
    while (i < n) {
        /* Runs of plain characters are copied whole, as far as they fit
         * (a byte at a time was most of the time `tshape scan` of a
         * folder spent printing). */
        size_t room = o + 1 < cap ? cap - 1 - o : 0;
        size_t run = plain_run(p + i, n - i < room ? n - i : room);
        memcpy(dst + o, p + i, run);
        o += run;
        i += run;
        if (i == n || plain(p[i]))
            break; /* the end, or no room left */
        uint32_t cp = 0;
        size_t k = utf8_decode(p + i, n - i, &cp);
        size_t m = escape_one(mode, p + i, k, cp, tmp);
        if (o + m >= cap)
            break;
        memcpy(dst + o, tmp, m);
        o += m;
        i += k ? k : 1;
    }
    dst[o] = '\0';
    if (written)
        *written = o;
    return i;
}

const char *cli_quote(const char *s, size_t n, char *buf, size_t cap)
{
    size_t w;
    size_t used = cli_escape(CLI_ESC_TEXT, s, n, buf, cap - 3, &w);
    if (used < n)
        memcpy(buf + w, "...", 4);
    return buf;
}

void out_escaped(cli_ctx *ctx, cli_esc mode, const char *s, size_t n)
{
    /* escaped straight into the buffer; with 64 bytes free at least, each
     * step takes a character (an escape is at most 12 bytes) */
    cli_out *o = &ctx->out;
    while (n > 0) {
        if (sizeof o->buf - o->len < 64)
            out_drain(ctx);
        size_t w, k = cli_escape(mode, s, n, o->buf + o->len, sizeof o->buf - o->len, &w);
        o->len += w;
        s += k;
        n -= k;
    }
}

/* ---- records: one JSON writer, human text from the same calls ------------- */

static int json_on(const cli_ctx *ctx, cli_print p)
{
    return ctx->json && p != PRINT_TEXT;
}

static int text_on(const cli_ctx *ctx, cli_print p, const char *fmt)
{
    return !ctx->json && p != PRINT_JSON && fmt;
}

/* The comma before a value, and its key inside an object. */
static void json_key(cli_ctx *ctx, const char *key)
{
    cli_out *o = &ctx->out;
    if (o->depth == 0)
        return; /* a top-level value: one per line */
    if (o->more[o->depth - 1])
        out_char(ctx, ',');
    o->more[o->depth - 1] = 1;
    if (key) {
        out_char(ctx, '"');
        out_escaped(ctx, CLI_ESC_JSON, key, strlen(key));
        out_str(ctx, "\":");
    }
}

/* fmt with its "%s" replaced by the value, escaped with `mode`. */
static void text_field(cli_ctx *ctx, const char *fmt, const char *v, size_t n, cli_esc mode)
{
    const char *at = fmt; /* strstr(fmt, "%s"), without its set-up cost */
    while (*at && !(at[0] == '%' && at[1] == 's'))
        at++;
    if (!*at)
        at = NULL;
    if (!at) {
        out_str(ctx, fmt);
        return;
    }
    out_write(ctx, fmt, (size_t)(at - fmt));
    out_escaped(ctx, mode, v, n);
    out_str(ctx, at + 2);
}

static void open_container(cli_ctx *ctx, const char *key, char c)
{
    cli_out *o = &ctx->out;
    if (!ctx->json)
        return;
    if (o->depth == CLI_JSON_DEPTH)
        abort(); /* a programming error: no record nests this deep */
    json_key(ctx, key);
    out_char(ctx, c);
    o->more[o->depth++] = 0;
}

static void close_container(cli_ctx *ctx, char c)
{
    cli_out *o = &ctx->out;
    if (!ctx->json)
        return;
    if (o->depth == 0)
        abort();
    out_char(ctx, c);
    if (--o->depth == 0)
        out_char(ctx, '\n');
}

void print_open_object(cli_ctx *ctx, const char *key)
{
    open_container(ctx, key, '{');
}

void print_close_object(cli_ctx *ctx)
{
    close_container(ctx, '}');
}

void print_open_array(cli_ctx *ctx, const char *key)
{
    open_container(ctx, key, '[');
}

void print_close_array(cli_ctx *ctx)
{
    close_container(ctx, ']');
}

void print_string(cli_ctx *ctx, cli_print p, const char *key, const char *fmt, const char *v)
{
    if (json_on(ctx, p)) {
        json_key(ctx, key);
        if (!v) {
            out_str(ctx, "null");
            return;
        }
        out_char(ctx, '"');
        out_escaped(ctx, CLI_ESC_JSON, v, strlen(v));
        out_char(ctx, '"');
    } else if (text_on(ctx, p, fmt) && v) {
        text_field(ctx, fmt, v, strlen(v), CLI_ESC_TEXT);
    }
}

void print_int(cli_ctx *ctx, cli_print p, const char *key, const char *fmt, int64_t v)
{
    char buf[24];
    size_t n = format_i64(buf, v);
    if (json_on(ctx, p)) {
        json_key(ctx, key);
        out_write(ctx, buf, n);
    } else if (text_on(ctx, p, fmt)) {
        text_field(ctx, fmt, buf, n, CLI_ESC_SAFE);
    }
}

void print_bool(cli_ctx *ctx, cli_print p, const char *key, const char *fmt, int v)
{
    const char *s = v ? "true" : "false";
    if (json_on(ctx, p)) {
        json_key(ctx, key);
        out_str(ctx, s);
    } else if (text_on(ctx, p, fmt)) {
        text_field(ctx, fmt, s, strlen(s), CLI_ESC_SAFE);
    }
}

void print_null(cli_ctx *ctx, cli_print p, const char *key, const char *fmt)
{
    if (json_on(ctx, p)) {
        json_key(ctx, key);
        out_str(ctx, "null");
    } else if (text_on(ctx, p, fmt)) {
        out_str(ctx, fmt);
    }
}

void print_dims(cli_ctx *ctx, cli_print p, const char *key, const char *fmt, const int64_t *d,
                int n)
{
    if (json_on(ctx, p)) {
        json_key(ctx, key);
        out_dims(ctx, d, n);
    } else if (text_on(ctx, p, fmt)) {
        const char *at = strstr(fmt, "%s");
        if (!at) {
            out_str(ctx, fmt);
            return;
        }
        out_write(ctx, fmt, (size_t)(at - fmt));
        out_dims(ctx, d, n);
        out_str(ctx, at + 2);
    }
}

void print_array_shape(cli_ctx *ctx, cli_print p, const char *key, const char *fmt,
                       const ts_array *a)
{
    if (a->null_shape) {
        if (json_on(ctx, p))
            print_null(ctx, p, key, fmt);
        else if (text_on(ctx, p, fmt))
            print_string(ctx, PRINT_TEXT, NULL, fmt, "none");
        return;
    }
    print_dims(ctx, p, key, fmt, ts_shape_dims(&a->shape), ts_shape_ndim(&a->shape));
}

const char *cli_array_shape_text(const ts_array *a, char *buf, size_t cap)
{
    if (a->null_shape)
        snprintf(buf, cap, "none");
    else
        ts_shape_format(&a->shape, 0, buf, cap);
    return buf;
}

void print_json_text(cli_ctx *ctx, cli_print p, const char *key, const char *fmt,
                     const char *json)
{
    if (json_on(ctx, p)) {
        json_key(ctx, key);
        out_str(ctx, json);
    } else if (text_on(ctx, p, fmt)) {
        text_field(ctx, fmt, json, strlen(json), CLI_ESC_SAFE);
    }
}

/* Streams the library's JSON text into the output as it comes. */
typedef struct verbatim {
    cli_ctx *ctx;
    size_t written;
} verbatim;

static int write_verbatim(void *user, const char *data, size_t len)
{
    verbatim *v = user;
    out_write(v->ctx, data, len);
    v->written += len;
    return 0;
}

/* Keeps the first CLI_TEXT_VALUE_MAX bytes of a value, then stops it. */
typedef struct value_head {
    char text[CLI_TEXT_VALUE_MAX + 64]; /* room for the marker */
    size_t n;
    int cut;
} value_head;

static int keep_head(void *user, const char *data, size_t len)
{
    value_head *h = user;
    size_t k = len < CLI_TEXT_VALUE_MAX - h->n ? len : CLI_TEXT_VALUE_MAX - h->n;
    memcpy(h->text + h->n, data, k);
    h->n += k;
    h->cut = k < len;
    return h->cut;
}

/* Text: the value kept in h, cut on a character boundary with a marker. */
static void print_head(cli_ctx *ctx, const char *fmt, value_head *h)
{
    if (h->cut) {
        while (h->n > 0 && ((unsigned char)h->text[h->n] & 0xc0) == 0x80)
            h->n--;
        int k = snprintf(h->text + h->n, sizeof h->text - h->n,
                         "... (cut at %d bytes; --json shows it whole)", CLI_TEXT_VALUE_MAX);
        h->n += k > 0 ? (size_t)k : 0;
    }
    text_field(ctx, fmt, h->text, h->n, CLI_ESC_SAFE);
}

void print_json_value(cli_ctx *ctx, const char *key, const char *fmt, const char *json)
{
    if (ctx->json) {
        json_key(ctx, key);
        out_str(ctx, json);
        return;
    }
    value_head h = {{0}, 0, 0};
    keep_head(&h, json, strlen(json));
    print_head(ctx, fmt, &h);
}

int print_metadata_value(cli_ctx *ctx, const char *key, const char *fmt, const ts_file *f,
                         size_t i, ts_error *err)
{
    if (ctx->json) {
        verbatim v = {ctx, 0};
        json_key(ctx, key);
        if (ts_file_metadata_write(f, i, write_verbatim, &v, err) == TS_OK)
            return 0;
        if (v.written == 0) /* failed before a byte: the record stays valid */
            out_str(ctx, "null");
        return -1;
    }
    value_head h = {{0}, 0, 0};
    int failed = ts_file_metadata_write(f, i, keep_head, &h, err) != TS_OK && !h.cut;
    print_head(ctx, fmt, &h); /* cut on a character boundary, and said so */
    return failed ? -1 : 0;
}

void print_no_result(cli_ctx *ctx)
{
    out_str(ctx, ctx->json ? "null\n" : "\n");
}

void print_text(cli_ctx *ctx, const char *text)
{
    if (!ctx->json)
        out_str(ctx, text);
}
