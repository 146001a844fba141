/*
 * npy_header.c - parses the .npy preamble and header dict.
 *
 * NumPy reads the header with ast.literal_eval and then checks it
 * (numpy/lib/format.py, _read_array_header). We parse the same Python
 * literal with a small recursive-descent parser over the bounded header
 * bytes, accepting what NumPy accepts in practice:
 *
 *   header := ws "{" ws [ item { ws "," ws item } [ ws "," ] ] ws "}" ws
 *   item   := string ws ":" ws value        keys in any order, each once
 *   string := [uU] ( "'" ... "'" | '"' ... '"' )   backslash escapes
 *   descr  := string | fields               a typestr or a structured list
 *   fields := "[" [ field { "," field } [","] ] "]"
 *   field  := "(" name "," type [ "," subshape ] [","] ")"
 *   name   := string | "(" string "," string [","] ")"      (title, name)
 *   type   := string | fields | "(" type "," subshape [","] ")"
 *   shape  := "(" ")" | "(" int "," { int "," } [ int ] ")"  a tuple
 *   int    := digits [ "L" ]          (the L only in 1.0/2.0 headers)
 *   ws     := { " " | "\t" | "\n" | "\r" | "\f" }
 *
 * Exactly the keys 'descr', 'fortran_order' and 'shape' must appear (NumPy:
 * "Header does not contain the correct keys"); a list shape is rejected as
 * NumPy does ("shape is not valid"); negative dims are rejected. Version 1.0
 * and 2.0 headers are latin1, 3.0 headers UTF-8 (_header_size_info).
 */
#include "npy_header.h"

#include <stdio.h>
#include <stdlib.h>

int ts__npy_has_magic(const unsigned char *p, size_t len)
{
    return len >= TS__NPY_MAGIC_LEN && memcmp(p, TS__NPY_MAGIC, TS__NPY_MAGIC_LEN) == 0;
}

ts_status ts__npy_read_prelude(const unsigned char *p, size_t avail, int64_t stream_size,
                               size_t max_header, const char *container,
                               ts__npy_prelude *out, ts_error *err)
{
    size_t m = avail < TS__NPY_MAGIC_LEN ? avail : TS__NPY_MAGIC_LEN;
    if (memcmp(p, TS__NPY_MAGIC, m) != 0) {
        size_t at = 0;
        while (p[at] == (unsigned char)TS__NPY_MAGIC[at])
            at++;
        char c[8] = "";
        if (p[at] >= 0x20 && p[at] < 0x7f)
            snprintf(c, sizeof c, "'%c' ", (char)p[at]);
        return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)at,
                        "not an npy %s: expected the magic \\x93NUMPY at byte 0, "
                        "found %s(0x%02x) at byte %zu", container, c, p[at], at);
    }
    if (avail < 8)
        return ts__fail(err, TS_ERR_TRUNCATED, 0, (int64_t)avail,
                        "%s ends at byte %zu, inside the npy magic and version "
                        "(8 bytes)", container, avail);
    int major = p[6], minor = p[7];
    if (minor != 0 || major < 1 || major > 3)
        return ts__fail(err, TS_ERR_UNSUPPORTED, 0, 6,
                        "npy version %d.%d at byte 6 is not supported (NumPy reads "
                        "only 1.0, 2.0 and 3.0)", major, minor);
    size_t dict_start = major == 1 ? 10 : 12;
    if (avail < dict_start)
        return ts__fail(err, TS_ERR_TRUNCATED, 0, (int64_t)avail,
                        "%s ends at byte %zu, inside the %d-byte header length at "
                        "byte 8", container, avail, major == 1 ? 2 : 4);
    size_t header_len = major == 1 ? ts__le16(p + 8) : ts__le32(p + 8);
    int64_t left = stream_size - (int64_t)dict_start;
    if ((int64_t)header_len > left)
        return ts__fail(err, TS_ERR_TRUNCATED, 0, 8,
                        "header length %zu (at byte 8) runs past the end of the %s: "
                        "only %lld bytes follow byte %zu", header_len, container,
                        (long long)left, dict_start);
    size_t limit = max_header ? max_header : TS__NPY_DEFAULT_MAX_HEADER;
    if (header_len > limit)
        return ts__fail(err, TS_ERR_LIMIT, 0, 8,
                        "header length %zu (at byte 8) is above the limit of %zu bytes%s; "
                        "if the file is trusted, raise it with --max-header N "
                        "(ts_open_options.npy_max_header)", header_len, limit,
                        max_header ? "" : " (NumPy's default max_header_size)");
    out->major = major;
    out->minor = minor;
    out->version = major == 1 ? "1.0" : major == 2 ? "2.0" : "3.0";
    out->dict_start = dict_start;
    out->header_len = header_len;
    out->data_start = (int64_t)(dict_start + header_len);
    return TS_OK;
}

/* ------------------------------------------------------------------------ */
/* The dict parser                                                           */
/* ------------------------------------------------------------------------ */

/* Deepest nesting of structured dtypes accepted (NumPy's recursion is
 * bounded by the interpreter; real files nest two or three levels). */
#define MAX_DEPTH 32
/* Longest decoded key or typestr kept; longer ones are reported as wrong. */
#define SHORT_STR 64

typedef struct hp {
    const unsigned char *s;  /* the header dict text, len bytes */
    size_t len, pos;
    size_t base;             /* stream offset of s[0] */
    int major;               /* npy major version: 'L' suffix, encoding */
    ts_error *err;
    int has_object;          /* an 'O' typestr anywhere */
    int has_native;          /* a '=' byte order anywhere */
    int depth;
} hp;

/* Stream offset of header position `at`. */
static size_t at_(const hp *h, size_t at)
{
    return h->base + at;
}

static ts_status hp_fail(hp *h, ts_status code, size_t at, const char *fmt, ...)
    TS__PRINTF(4, 5);

static ts_status hp_fail(hp *h, ts_status code, size_t at, const char *fmt, ...)
{
    char msg[TS_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ts__fail(h->err, code, 0, (int64_t)at_(h, at), "header dict at byte %zu: %s",
                    h->base, msg);
}

static int is_ident(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_';
}

/* Describes what is at `at` for "found ..." in messages. */
static const char *found(const hp *h, size_t at, char *buf, size_t cap)
{
    if (at >= h->len) {
        snprintf(buf, cap, "the end of the header");
        return buf;
    }
    unsigned c = h->s[at];
    if (is_ident((int)c)) {
        size_t n = 0;
        while (at + n < h->len && is_ident(h->s[at + n]) && n < 24)
            n++;
        int more = at + n < h->len && is_ident(h->s[at + n]);
        snprintf(buf, cap, "'%.*s%s'", (int)n, (const char *)h->s + at, more ? "..." : "");
    } else if (c == '\n') {
        snprintf(buf, cap, "a newline");
    } else if (c == '\'' || c == '"') {
        snprintf(buf, cap, "a string");
    } else if (c >= 0x20 && c < 0x7f) {
        snprintf(buf, cap, "'%c'", (char)c);
    } else {
        snprintf(buf, cap, "byte 0x%02x", c);
    }
    return buf;
}

#define FOUND(h, at) found((h), (at), fbuf_, sizeof fbuf_)

/* Python's tokenizer skips these between the tokens of a literal. */
static void skip_ws(hp *h)
{
    h->pos = ts__skip_ws((const char *)h->s, h->len, h->pos, TS__WS_PY);
}

static int peek(const hp *h)
{
    return h->pos < h->len ? h->s[h->pos] : -1;
}

/* Consumes `c` (after whitespace) or fails: "expected C CONTEXT at byte N,
 * found X". */
static ts_status expect(hp *h, char c, const char *context)
{
    char fbuf_[48];
    skip_ws(h);
    if (peek(h) != (unsigned char)c)
        return hp_fail(h, TS_ERR_FORMAT, h->pos, "expected '%c' %s at byte %zu, found %s", c,
                       context, at_(h, h->pos), FOUND(h, h->pos));
    h->pos++;
    return TS_OK;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static int at_string(const hp *h)
{
    int c = peek(h);
    if ((c == 'u' || c == 'U') && h->pos + 1 < h->len)
        c = h->s[h->pos + 1];
    return c == '\'' || c == '"';
}

/*
 * Parses a Python string literal at h->pos. With out != NULL the value is
 * decoded into out (cap bytes, NUL-terminated; escapes \\ \' \" \n \r \t
 * \xHH); *too_long is set when it does not fit. With out == NULL the string
 * is only checked and skipped (any escaped character is accepted: field
 * names are reported as written, not decoded).
 */
static ts_status parse_string(hp *h, const char *what, char *out, size_t cap, int *too_long)
{
    char fbuf_[48];
    size_t start = h->pos;
    if (!at_string(h))
        return hp_fail(h, TS_ERR_FORMAT, h->pos, "expected a quoted string for %s at byte %zu, "
                       "found %s", what, at_(h, h->pos), FOUND(h, h->pos));
    if (peek(h) == 'u' || peek(h) == 'U')
        h->pos++;
    unsigned char q = h->s[h->pos++];
    size_t n = 0;
    if (too_long)
        *too_long = 0;
    for (;;) {
        if (h->pos >= h->len || h->s[h->pos] == '\n')
            return hp_fail(h, TS_ERR_FORMAT, start, "string %s starting at byte %zu is not "
                           "closed: expected %c before %s", what, at_(h, start), q,
                           h->pos >= h->len ? "the end of the header" : "the end of the line");
        unsigned char c = h->s[h->pos];
        if (c == q) {
            h->pos++;
            break;
        }
        if (c == '\\') {
            size_t esc = h->pos;
            if (h->pos + 1 >= h->len) {
                h->pos++; /* reported as unterminated on the next turn */
                continue;
            }
            unsigned char e = h->s[h->pos + 1];
            h->pos += 2;
            if (!out)
                continue;
            switch (e) {
            case '\\': case '\'': case '"': c = e; break;
            case 'n': c = '\n'; break;
            case 'r': c = '\r'; break;
            case 't': c = '\t'; break;
            case 'x': {
                int hi = h->pos < h->len ? hexval(h->s[h->pos]) : -1;
                int lo = h->pos + 1 < h->len ? hexval(h->s[h->pos + 1]) : -1;
                if (hi < 0 || lo < 0)
                    return hp_fail(h, TS_ERR_FORMAT, esc, "bad escape at byte %zu in %s: "
                                   "\\x needs two hex digits", at_(h, esc), what);
                c = (unsigned char)(hi * 16 + lo);
                h->pos += 2;
                break;
            }
            default:
                return hp_fail(h, TS_ERR_FORMAT, esc, "unsupported escape '\\%c' at byte %zu "
                               "in %s", e >= 0x20 && e < 0x7f ? (char)e : '?', at_(h, esc),
                               what);
            }
        } else {
            h->pos++;
        }
        if (out) {
            if (n + 1 < cap)
                out[n++] = (char)c;
            else if (too_long)
                *too_long = 1;
        }
    }
    if (out)
        out[n] = '\0';
    return TS_OK;
}

/*
 * Parses a non-negative Python int (digits, the Python 2 'L' suffix in
 * 1.0/2.0 headers) into *out. `what` names it in messages.
 */
static ts_status parse_int(hp *h, const char *what, int64_t *out)
{
    char fbuf_[48];
    size_t start = h->pos;
    ts__int v;
    int r = ts__scan_int((const char *)h->s, h->len, start, TS__INT_SIGN, &v);
    if (r != TS__INT_NONE && v.negative)
        return hp_fail(h, TS_ERR_FORMAT, start, "%s at byte %zu is negative (%.*s); NumPy: "
                       "negative dimensions are not allowed", what, at_(h, start),
                       (int)(v.end - start > 24 ? 24 : v.end - start),
                       (const char *)h->s + start);
    if (r == TS__INT_NONE || h->s[start] == '+')
        return hp_fail(h, TS_ERR_FORMAT, start, "expected a non-negative int for %s at byte %zu, "
                       "found %s", what, at_(h, start), FOUND(h, start));
    h->pos = v.end;
    if (r == TS__INT_OVERFLOW)
        return hp_fail(h, TS_ERR_OVERFLOW, start, "%s at byte %zu does not fit in int64",
                       what, at_(h, start));
    if (v.leading_zero)
        return hp_fail(h, TS_ERR_FORMAT, start, "%s at byte %zu has leading zeros, which a "
                       "Python int literal may not have", what, at_(h, start));
    if (peek(h) == 'L') {
        if (h->major > 2)
            return hp_fail(h, TS_ERR_FORMAT, h->pos, "the Python 2 'L' suffix at byte %zu is "
                           "only allowed in version 1.0 and 2.0 headers", at_(h, h->pos));
        h->pos++;
    }
    if (is_ident(peek(h)))
        return hp_fail(h, TS_ERR_FORMAT, start, "expected a non-negative int for %s at byte %zu, "
                       "found %s", what, at_(h, start), FOUND(h, start));
    *out = v.value;
    return TS_OK;
}

/* parse_int of dimension n of `what` ("dimension 0 of the shape"): the
 * label is written only when there is an error to report (a folder of
 * small .npy files parses a shape per file). */
static ts_status parse_dim(hp *h, int n, const char *what, int64_t *out)
{
    ts__int v;
    size_t start = h->pos;
    int r = ts__scan_int((const char *)h->s, h->len, start, TS__INT_SIGN, &v);
    if (r == TS__INT_OK && !v.negative && h->s[start] != '+' && !v.leading_zero &&
        (v.end >= h->len || (h->s[v.end] != 'L' && !is_ident(h->s[v.end])))) {
        h->pos = v.end;
        *out = v.value;
        return TS_OK;
    }
    char item[48];
    snprintf(item, sizeof item, "dimension %d of %s", n, what);
    return parse_int(h, item, out);
}

/*
 * Parses a tuple of non-negative ints at '(' into dims (at most TS_MAX_NDIM)
 * and *ndim. A parenthesised int without a comma, "(3)", is an int in
 * Python, not a tuple, and is rejected.
 */
static ts_status parse_dims_tuple(hp *h, const char *what, int64_t *dims, int *ndim)
{
    char fbuf_[48];
    size_t open = h->pos;
    h->pos++; /* '(' */
    int n = 0, commas = 0;
    for (;;) {
        skip_ws(h);
        if (peek(h) == ')') {
            h->pos++;
            break;
        }
        if (n == TS_MAX_NDIM)
            return hp_fail(h, TS_ERR_NDIM, open, "%s at byte %zu has more than %d dimensions",
                           what, at_(h, open), TS_MAX_NDIM);
        ts_status st = parse_dim(h, n, what, &dims[n]);
        if (st)
            return st;
        n++;
        skip_ws(h);
        if (peek(h) == ',') {
            h->pos++;
            commas++;
        } else if (peek(h) != ')') {
            return hp_fail(h, TS_ERR_FORMAT, h->pos, "expected ',' or ')' in %s at byte %zu, "
                           "found %s", what, at_(h, h->pos), FOUND(h, h->pos));
        }
    }
    if (n == 1 && commas == 0)
        return hp_fail(h, TS_ERR_FORMAT, open, "%s at byte %zu is an int in parentheses, not "
                       "a tuple: a 1-d shape is written (%lld,)", what, at_(h, open),
                       (long long)dims[0]);
    *ndim = n;
    return TS_OK;
}

/* Bytes of one element of typestr `text`, or an error naming it. */
static ts_status typestr_size(hp *h, size_t at, const char *text, int too_long,
                              ts_descr *d)
{
    ts_error sub;
    if (too_long)
        return hp_fail(h, TS_ERR_DTYPE, at, "descr at byte %zu is not a NumPy dtype: '%s...' "
                       "is too long for a typestr", at_(h, at), text);
    if (ts_descr_parse(text, d, &sub) != TS_OK)
        return hp_fail(h, TS_ERR_DTYPE, at, "descr at byte %zu is not a NumPy dtype: %s",
                       at_(h, at), sub.message);
    if (d->dtype == TS_DTYPE_OBJECT)
        h->has_object = 1;
    if (d->byteorder == '=')
        h->has_native = 1;
    return TS_OK;
}

static ts_status parse_fields(hp *h, int64_t *itemsize);

/* Multiplies *size by the element count of a subarray shape (an int or a
 * tuple of ints) at h->pos. */
static ts_status parse_subshape(hp *h, int64_t *size)
{
    size_t at = h->pos;
    int64_t dims[TS_MAX_NDIM];
    int ndim = 1;
    ts_status st;
    if (peek(h) == '(')
        st = parse_dims_tuple(h, "the subarray shape", dims, &ndim);
    else
        st = parse_int(h, "the subarray shape", &dims[0]);
    if (st)
        return st;
    int64_t count;
    if (ts__dims_size(dims, ndim, &count, NULL) != TS_OK ||
        ts__mul_overflow(*size, count, size))
        return hp_fail(h, TS_ERR_OVERFLOW, at, "the byte size of the subarray at byte %zu does "
                       "not fit in int64", at_(h, at));
    return TS_OK;
}

/* A field's type: a typestr, a nested field list, or (type, subshape). */
static ts_status parse_field_type(hp *h, int64_t *size)
{
    char fbuf_[48];
    size_t at = h->pos;
    if (peek(h) == '[')
        return parse_fields(h, size);
    if (peek(h) == '(') {
        /* (base, shape): older NumPy's descr_to_dtype accepted it. */
        if (++h->depth > MAX_DEPTH)
            return hp_fail(h, TS_ERR_LIMIT, at, "dtype nesting at byte %zu is deeper than %d "
                           "levels", at_(h, at), MAX_DEPTH);
        h->pos++;
        skip_ws(h);
        ts_status st = parse_field_type(h, size);
        if (!st)
            st = expect(h, ',', "after the subarray base type");
        if (!st) {
            skip_ws(h);
            st = parse_subshape(h, size);
        }
        if (st)
            return st;
        skip_ws(h);
        if (peek(h) == ',')
            h->pos++;
        h->depth--;
        return expect(h, ')', "to close the (type, shape) tuple");
    }
    if (!at_string(h))
        return hp_fail(h, TS_ERR_FORMAT, at, "expected a field type (a string such as '<f4' "
                       "or a list of fields) at byte %zu, found %s", at_(h, at), FOUND(h, at));
    char text[SHORT_STR];
    int too_long;
    ts_status st = parse_string(h, "the field type", text, sizeof text, &too_long);
    if (st)
        return st;
    ts_descr d;
    st = typestr_size(h, at, text, too_long, &d);
    if (st)
        return st;
    *size = d.itemsize;
    return TS_OK;
}

/* One field tuple: (name, type) or (name, type, shape); name may be a
 * (title, name) tuple. */
static ts_status parse_field(hp *h, int64_t *size)
{
    char fbuf_[48];
    size_t at = h->pos;
    if (peek(h) != '(')
        return hp_fail(h, TS_ERR_FORMAT, at, "expected a field tuple such as ('x', '<f4') at "
                       "byte %zu, found %s", at_(h, at), FOUND(h, at));
    h->pos++;
    skip_ws(h);
    ts_status st;
    if (peek(h) == '(') {
        h->pos++;
        skip_ws(h);
        st = parse_string(h, "a field title", NULL, 0, NULL);
        if (!st)
            st = expect(h, ',', "between a field's title and name");
        if (!st) {
            skip_ws(h);
            st = parse_string(h, "a field name", NULL, 0, NULL);
        }
        if (!st) {
            skip_ws(h);
            if (peek(h) == ',')
                h->pos++;
            st = expect(h, ')', "to close the (title, name) pair");
        }
    } else {
        st = parse_string(h, "a field name", NULL, 0, NULL);
    }
    if (!st)
        st = expect(h, ',', "after the field name");
    if (st)
        return st;
    skip_ws(h);
    st = parse_field_type(h, size);
    if (st)
        return st;
    skip_ws(h);
    if (peek(h) == ',') {
        h->pos++;
        skip_ws(h);
        if (peek(h) != ')') {
            st = parse_subshape(h, size);
            if (st)
                return st;
            skip_ws(h);
            if (peek(h) == ',')
                h->pos++;
        }
    }
    return expect(h, ')', "to close the field tuple");
}

/* A structured descr: a list of fields at '['. *itemsize receives the sum
 * of the field sizes (NumPy descr_to_dtype lays fields out back to back). */
static ts_status parse_fields(hp *h, int64_t *itemsize)
{
    char fbuf_[48];
    size_t open = h->pos;
    if (++h->depth > MAX_DEPTH)
        return hp_fail(h, TS_ERR_LIMIT, open, "dtype nesting at byte %zu is deeper than %d "
                       "levels", at_(h, open), MAX_DEPTH);
    h->pos++; /* '[' */
    int64_t total = 0;
    for (;;) {
        skip_ws(h);
        if (peek(h) == ']') {
            h->pos++;
            break;
        }
        int64_t size = 0;
        ts_status st = parse_field(h, &size);
        if (st)
            return st;
        if (ts__add_overflow(total, size, &total))
            return hp_fail(h, TS_ERR_OVERFLOW, open, "the itemsize of the structured dtype at "
                           "byte %zu does not fit in int64", at_(h, open));
        skip_ws(h);
        if (peek(h) == ',')
            h->pos++;
        else if (peek(h) != ']')
            return hp_fail(h, TS_ERR_FORMAT, h->pos, "expected ',' or ']' after a field at byte "
                           "%zu, found %s", at_(h, h->pos), FOUND(h, h->pos));
    }
    h->depth--;
    *itemsize = total;
    return TS_OK;
}

/* Copies header text into f; latin1 (1.0/2.0 headers) becomes UTF-8. */
static const char *dup_text(ts_file *f, const hp *h, size_t from, size_t to, ts_error *err)
{
    size_t extra = 0;
    if (h->major < 3)
        for (size_t i = from; i < to; i++)
            extra += h->s[i] >= 0x80;
    if (!extra)
        return ts__file_strndup(f, (const char *)h->s + from, to - from, err);
    char *buf = ts__scratch_alloc(f, to - from + extra, err);
    if (!buf)
        return NULL;
    size_t n = 0;
    for (size_t i = from; i < to; i++) {
        unsigned char c = h->s[i];
        if (c < 0x80) {
            buf[n++] = (char)c;
        } else {
            buf[n++] = (char)(0xc0 | (c >> 6));
            buf[n++] = (char)(0x80 | (c & 0x3f));
        }
    }
    const char *s = ts__file_strndup(f, buf, n, err);
    ts__scratch_free(f, buf);
    return s;
}

/* Offset of the first invalid UTF-8 sequence in s (len bytes), or len. */
static size_t utf8_invalid_at(const unsigned char *s, size_t len)
{
    size_t i = 0, k;
    while (i < len && (k = ts__utf8_len(s + i, len - i)) > 0)
        i += k;
    return i;
}

/* Fills a's dtype fields from a simple typestr. */
static ts_status apply_typestr(ts_file *f, ts_array *a, const ts_descr *d, const char *text,
                               ts_error *err)
{
    ts__array_set_dtype(a, d->dtype);
    a->itemsize = d->itemsize;
    a->bits = d->itemsize <= INT32_MAX / 8 ? (int32_t)(d->itemsize * 8) : 0;
    a->block_bytes = d->itemsize;
    a->byteorder = d->byteorder;
    a->format_dtype = ts__file_strndup(f, text, strlen(text), err);
    if (!a->format_dtype)
        return TS_ERR_NOMEM;
    a->descr = a->format_dtype; /* the header's own text is the descr */
    /* NumPy's dtype.name: sized flexible types are named by bits, long
     * doubles by their real size, datetimes carry their unit. */
    long long bits = (long long)a->bits;
    const char *name = NULL;
    int named = 0;
    switch (d->dtype) {
    case TS_DTYPE_BYTES:
    case TS_DTYPE_UNICODE:
    case TS_DTYPE_VOID:
        if (bits > 0) {
            named = 1;
            name = ts__file_printf(f, err, "%s%lld", ts_dtype_name(d->dtype), bits);
        }
        break;
    case TS_DTYPE_LONGDOUBLE:
    case TS_DTYPE_CLONGDOUBLE:
        named = 1;
        name = ts__file_printf(f, err, "%s%lld",
                               d->dtype == TS_DTYPE_LONGDOUBLE ? "float" : "complex", bits);
        break;
    case TS_DTYPE_DATETIME64:
    case TS_DTYPE_TIMEDELTA64:
        if (d->unit[0]) {
            named = 1;
            name = ts__file_printf(f, err, "%s[%s]", ts_dtype_name(d->dtype), d->unit);
        }
        break;
    case TS_DTYPE_UNKNOWN: case TS_DTYPE_FLOAT32: case TS_DTYPE_FLOAT64:
    case TS_DTYPE_FLOAT16: case TS_DTYPE_UINT8: case TS_DTYPE_INT32: case TS_DTYPE_INT8:
    case TS_DTYPE_INT64: case TS_DTYPE_BOOL: case TS_DTYPE_INT16: case TS_DTYPE_UINT16:
    case TS_DTYPE_UINT32: case TS_DTYPE_UINT64: case TS_DTYPE_BFLOAT16:
    case TS_DTYPE_COMPLEX64: case TS_DTYPE_COMPLEX128: case TS_DTYPE_FLOAT8_E5M2:
    case TS_DTYPE_FLOAT8_E4M3FN: case TS_DTYPE_FLOAT8_E4M3FNUZ: case TS_DTYPE_FLOAT8_E5M2FNUZ:
    case TS_DTYPE_FLOAT8_E8M0FNU: case TS_DTYPE_FLOAT6_E2M3FN: case TS_DTYPE_FLOAT6_E3M2FN:
    case TS_DTYPE_FLOAT4_E2M1FN: case TS_DTYPE_OBJECT: case TS_DTYPE_STRUCTURED:
    case TS_DTYPE_QUANTIZED: case TS_DTYPE_INT4: case TS_DTYPE_UINT4: case TS_DTYPE_INT2:
    case TS_DTYPE_UINT2:
        return TS_OK;
    }
    if (!named)
        return TS_OK;
    if (!name)
        return TS_ERR_NOMEM;
    a->dtype_name = name;
    return TS_OK;
}

ts_status ts__npy_apply_descr(ts_file *f, ts_array *a, const char *descr, ts_error *err)
{
    ts_descr d;
    ts_status st = ts_descr_parse(descr, &d, err);
    return st ? st : apply_typestr(f, a, &d, descr, err);
}

enum { KEY_DESCR, KEY_FORTRAN, KEY_SHAPE, KEY_COUNT };
static const char *const key_names[KEY_COUNT] = {"descr", "fortran_order", "shape"};

/* The value of 'descr' at h->pos. */
static ts_status parse_descr(ts_file *f, ts_array *a, hp *h)
{
    char fbuf_[48];
    size_t at = h->pos;
    if (peek(h) == '[') {
        int64_t itemsize;
        ts_status st = parse_fields(h, &itemsize);
        if (st)
            return st;
        ts__array_set_dtype(a, TS_DTYPE_STRUCTURED);
        a->itemsize = itemsize;
        a->bits = itemsize <= INT32_MAX / 8 ? (int32_t)(itemsize * 8) : 0;
        a->block_bytes = itemsize;
        a->byteorder = '|';
        a->format_dtype = dup_text(f, h, at, h->pos, h->err);
        a->descr = a->format_dtype;
        return a->format_dtype ? TS_OK : TS_ERR_NOMEM;
    }
    if (peek(h) == '(')
        return hp_fail(h, TS_ERR_UNSUPPORTED, at, "descr at byte %zu is a (type, shape) tuple; "
                       "NumPy no longer writes subarray descrs at the top level and tshape "
                       "does not read them", at_(h, at));
    if (!at_string(h))
        return hp_fail(h, TS_ERR_FORMAT, at, "descr at byte %zu must be a string such as "
                       "'<f4' or a list of fields, found %s", at_(h, at), FOUND(h, at));
    char text[SHORT_STR];
    int too_long;
    ts_status st = parse_string(h, "descr", text, sizeof text, &too_long);
    if (st)
        return st;
    ts_descr d;
    st = typestr_size(h, at, text, too_long, &d);
    if (st)
        return st;
    return apply_typestr(f, a, &d, text, h->err);
}

static ts_status parse_fortran(ts_array *a, hp *h)
{
    char fbuf_[48];
    size_t at = h->pos, n = 0;
    while (at + n < h->len && is_ident(h->s[at + n]))
        n++;
    if (n == 4 && memcmp(h->s + at, "True", 4) == 0)
        a->fortran_order = 1;
    else if (n == 5 && memcmp(h->s + at, "False", 5) == 0)
        a->fortran_order = 0;
    else
        return hp_fail(h, TS_ERR_FORMAT, at, "fortran_order at byte %zu must be True or False, "
                       "found %s", at_(h, at), FOUND(h, at));
    h->pos += n;
    return TS_OK;
}

static ts_status parse_shape(ts_array *a, hp *h)
{
    char fbuf_[48];
    size_t at = h->pos;
    if (peek(h) == '[')
        return hp_fail(h, TS_ERR_FORMAT, at, "shape at byte %zu is a list; NumPy requires a "
                       "tuple such as (2, 3) (\"shape is not valid\")", at_(h, at));
    if (peek(h) != '(')
        return hp_fail(h, TS_ERR_FORMAT, at, "shape at byte %zu must be a tuple of "
                       "non-negative ints such as (2, 3), found %s", at_(h, at), FOUND(h, at));
    int64_t dims[TS_MAX_NDIM];
    int ndim = 0;
    ts_status st = parse_dims_tuple(h, "the shape", dims, &ndim);
    if (st)
        return st;
    return ts_shape_assign(&a->shape, dims, ndim, h->err);
}

ts_status ts__npy_parse_header(ts_file *f, ts_array *a, const ts__npy_prelude *pre,
                               const unsigned char *dict, ts_error *err)
{
    char fbuf_[48];
    hp h = {dict, pre->header_len, 0, pre->dict_start, pre->major, err, 0, 0, 0};
    if (pre->major >= 3) {
        size_t bad = utf8_invalid_at(dict, h.len);
        if (bad < h.len)
            return hp_fail(&h, TS_ERR_FORMAT, bad, "invalid UTF-8 at byte %zu (version 3.0 "
                           "headers are UTF-8)", at_(&h, bad));
    }
    ts_status st = expect(&h, '{', "to open the header dict");
    if (st)
        return st;
    int seen[KEY_COUNT] = {0, 0, 0};
    for (;;) {
        skip_ws(&h);
        if (peek(&h) == '}') {
            h.pos++;
            break;
        }
        size_t kat = h.pos;
        char key[SHORT_STR];
        int too_long;
        st = parse_string(&h, "a key", key, sizeof key, &too_long);
        if (st)
            return st;
        int k = 0;
        while (k < KEY_COUNT && (too_long || strcmp(key, key_names[k]) != 0))
            k++;
        if (k == KEY_COUNT)
            return hp_fail(&h, TS_ERR_FORMAT, kat, "unexpected key '%s%s' at byte %zu (an npy "
                           "header has exactly the keys 'descr', 'fortran_order' and 'shape')",
                           key, too_long ? "..." : "", at_(&h, kat));
        if (seen[k])
            return hp_fail(&h, TS_ERR_FORMAT, kat, "duplicate key '%s' at byte %zu",
                           key_names[k], at_(&h, kat));
        seen[k] = 1;
        skip_ws(&h);
        if (peek(&h) != ':')
            return hp_fail(&h, TS_ERR_FORMAT, h.pos, "expected ':' at byte %zu after key '%s', "
                           "found %s", at_(&h, h.pos), key_names[k], FOUND(&h, h.pos));
        h.pos++;
        skip_ws(&h);
        st = k == KEY_DESCR ? parse_descr(f, a, &h)
             : k == KEY_FORTRAN ? parse_fortran(a, &h) : parse_shape(a, &h);
        if (st)
            return st;
        skip_ws(&h);
        if (peek(&h) == ',')
            h.pos++;
        else if (peek(&h) != '}')
            return hp_fail(&h, TS_ERR_FORMAT, h.pos, "expected ',' or '}' at byte %zu after the "
                           "value of '%s', found %s", at_(&h, h.pos), key_names[k],
                           FOUND(&h, h.pos));
    }
    skip_ws(&h);
    if (h.pos < h.len)
        return hp_fail(&h, TS_ERR_FORMAT, h.pos, "unexpected %s at byte %zu after the header "
                       "dict (only spaces and a newline may follow it)", FOUND(&h, h.pos),
                       at_(&h, h.pos));
    if (!seen[KEY_DESCR] || !seen[KEY_FORTRAN] || !seen[KEY_SHAPE]) {
        char missing[64] = "";
        int n = 0;
        for (int k = 0; k < KEY_COUNT; k++)
            if (!seen[k]) {
                size_t used = strlen(missing);
                snprintf(missing + used, sizeof missing - used, "%s'%s'", n ? " and " : "",
                         key_names[k]);
                n++;
            }
        return hp_fail(&h, TS_ERR_FORMAT, 0, "no %s key%s (an npy header has exactly the keys "
                       "'descr', 'fortran_order' and 'shape')", missing, n > 1 ? "s" : "");
    }

    if (h.has_object) {
        a->nbytes = -1;
        a->note = "object dtype: the payload is a Python pickle and was not inspected";
        st = ts_shape_size(&a->shape, &a->size, err);
    } else {
        st = ts__array_compute_sizes(a, err);
        if (h.has_native)
            a->note = "native byte order ('=')";
    }
    if (st) {
        ts__error_prefix(err, "header dict at byte %zu", h.base);
        if (err)
            err->offset = (int64_t)h.base;
    }
    return st;
}

ts_status ts__npy_check_data(const ts_array *a, const ts__npy_prelude *pre,
                             int64_t stream_size, const char *where, ts_error *err)
{
    if (a->nbytes < 0)
        return TS_OK;
    int64_t left = stream_size - pre->data_start;
    if (a->nbytes <= left)
        return TS_OK;
    char buf[TS__SHAPE_STR_MAX];
    return ts__fail(err, TS_ERR_TRUNCATED, 0, pre->data_start,
                    "data is truncated: shape %s of %s needs %lld bytes at offset %lld%s, "
                    "but only %lld remain", ts__shape_str(&a->shape, buf, sizeof buf),
                    a->dtype_name, (long long)a->nbytes, (long long)pre->data_start, where,
                    (long long)left);
}
