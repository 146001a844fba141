/*
 * json.c - the library's strict JSON scanner (see json.h). One pass over
 * text in memory, no tree: the caller pulls keys and values.
 *
 * Messages use jansson's words (load.c), which the previous readers
 * reported: "string or '}' expected near '}'", "invalid token near 'x'",
 * "unable to decode byte 0xff near '\"a'". As in jansson, the token is
 * quoted only when it is at most 20 bytes long, and a missing token is
 * "near end of file".
 */
#include "json.h"

#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void *default_realloc(void *ctx, void *p, size_t n)
{
    (void)ctx;
    return realloc(p, n ? n : 1);
}

static void default_free(void *ctx, void *p)
{
    (void)ctx;
    free(p);
}

void ts__json_init(ts__json *j, const char *s, size_t n, ts__json_realloc_fn realloc_fn,
                   ts__json_free_fn free_fn, void *ctx)
{
    memset(j, 0, sizeof *j);
    j->s = s;
    j->n = n;
    j->realloc_fn = realloc_fn ? realloc_fn : default_realloc;
    j->free_fn = free_fn ? free_fn : default_free;
    j->ctx = ctx;
}

const char *ts__json_kind_text(ts__json_kind k)
{
    switch (k) {
    case TS__JSON_OBJECT: return "an object";
    case TS__JSON_ARRAY: return "an array";
    case TS__JSON_STRING: return "a string";
    case TS__JSON_INTEGER: return "an integer";
    case TS__JSON_REAL: return "a real number";
    case TS__JSON_TRUE: return "true";
    case TS__JSON_FALSE: return "false";
    case TS__JSON_NULL: return "null";
    case TS__JSON_BAD: break;
    }
    return "not a JSON value";
}

static int is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static size_t skip_ws(const ts__json *j, size_t i)
{
    while (i < j->n && is_ws(j->s[i]))
        i++;
    return i;
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int is_alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* End of the token starting at i, as a lexer would cut it (for messages). */
static size_t token_end(const ts__json *j, size_t i)
{
    const char *s = j->s;
    if (i >= j->n)
        return i;
    if (s[i] == '"') {
        for (i++; i < j->n && s[i] != '"'; i++)
            if (s[i] == '\\')
                i++;
        return i < j->n ? i + 1 : j->n;
    }
    if (s[i] == '-' || is_digit(s[i])) {
        for (i++; i < j->n && (is_digit(s[i]) || s[i] == '.' || s[i] == 'e' || s[i] == 'E' ||
                               s[i] == '+' || s[i] == '-');
             i++)
            ;
        return i;
    }
    if (is_alpha(s[i])) {
        while (i < j->n && is_alpha(s[i]))
            i++;
        return i;
    }
    return i + 1;
}

int ts__json_fail(ts__json *j, ts__json_error e, size_t start, size_t end, const char *msg)
{
    if (j->error)
        return -1;
    j->error = e;
    j->error_at = end;
    size_t len = end > start ? end - start : 0;
    if (len == 0) {
        snprintf(j->error_text, sizeof j->error_text, "%s%s", msg,
                 e == TS__JSON_EUTF8 ? "" : " near end of file");
    } else if (len <= 20) {
        char tok[24];
        for (size_t k = 0; k < len; k++) {
            unsigned char c = (unsigned char)j->s[start + k];
            tok[k] = (c < 0x20 || c == 0x7f) ? '?' : (char)c; /* one line */
        }
        tok[len] = '\0';
        snprintf(j->error_text, sizeof j->error_text, "%s near '%s'", msg, tok);
    } else {
        snprintf(j->error_text, sizeof j->error_text, "%s", msg);
    }
    return -1;
}

/* A failure about the token at i; a token that starts with a byte that is
 * not UTF-8 is reported as that (the text is not UTF-8 before it is not
 * JSON, as jansson's reading of a stream of characters finds). */
static int fail_at(ts__json *j, ts__json_error e, size_t i, const char *msg)
{
    if (i < j->n && (unsigned char)j->s[i] >= 0x80 &&
        ts__utf8_len((const unsigned char *)j->s + i, j->n - i) == 0) {
        char m[40];
        snprintf(m, sizeof m, "unable to decode byte 0x%x", (unsigned char)j->s[i]);
        return ts__json_fail(j, TS__JSON_EUTF8, i, i, m);
    }
    return ts__json_fail(j, e, i, token_end(j, i), msg);
}

/* ---- strings --------------------------------------------------------------- */

static int hex4(const char *p, uint32_t *out)
{
    uint32_t v = 0;
    for (int k = 0; k < 4; k++) {
        char c = p[k];
        unsigned d = is_digit(c)              ? (unsigned)(c - '0')
                     : (c >= 'a' && c <= 'f') ? (unsigned)(c - 'a' + 10)
                     : (c >= 'A' && c <= 'F') ? (unsigned)(c - 'A' + 10)
                                              : 16u;
        if (d > 15)
            return 0;
        v = v * 16 + d;
    }
    *out = v;
    return 1;
}

static size_t utf8_put(uint32_t cp, unsigned char *o)
{
    if (cp < 0x80) {
        o[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (unsigned char)(0xc0 | (cp >> 6));
        o[1] = (unsigned char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xe0 | (cp >> 12));
        o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
        o[2] = (unsigned char)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (unsigned char)(0xf0 | (cp >> 18));
    o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
    o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
    o[3] = (unsigned char)(0x80 | (cp & 0x3f));
    return 4;
}

/* The code point of the escape \uXXXX[\uXXXX] at p (p[0] == 'u', the text
 * validated), and its raw length after the backslash. */
static uint32_t escape_cp(const char *p, size_t *raw)
{
    uint32_t cp, lo;
    hex4(p + 1, &cp);
    *raw = 5;
    if (cp >= 0xd800 && cp <= 0xdbff) {
        hex4(p + 7, &lo);
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        *raw = 11;
    }
    return cp;
}

int ts__json_string(ts__json *j, ts__json_str *out)
{
    const char *s = j->s;
    size_t n = j->n, i = skip_ws(j, j->i), at = i;
    if (i >= n || s[i] != '"')
        return fail_at(j, TS__JSON_ESYNTAX, i, "string expected");
    uint64_t h = TS__JSON_FNV_BASIS;
    size_t len = 0;
    int escaped = 0;
    char msg[64];
    for (i++;;) {
        /* A run of plain ASCII. */
        size_t r = i;
        while (i < n) {
            unsigned char c = (unsigned char)s[i];
            if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80)
                break;
            i++;
        }
        h = ts__json_fnv(h, s + r, i - r);
        len += i - r;
        if (i >= n)
            return ts__json_fail(j, TS__JSON_ESYNTAX, at, n, "premature end of input");
        unsigned char c = (unsigned char)s[i];
        if (c == '"')
            break;
        if (c < 0x20) {
            snprintf(msg, sizeof msg, "control character 0x%x", c);
            return ts__json_fail(j, TS__JSON_ESYNTAX, at, i + 1, msg);
        }
        if (c >= 0x80) {
            size_t k = ts__utf8_len((const unsigned char *)s + i, n - i);
            if (k == 0) {
                snprintf(msg, sizeof msg, "unable to decode byte 0x%x", c);
                return ts__json_fail(j, TS__JSON_EUTF8, at, i, msg);
            }
            h = ts__json_fnv(h, s + i, k);
            len += k;
            i += k;
            continue;
        }
        /* An escape. */
        escaped = 1;
        if (i + 1 >= n)
            return ts__json_fail(j, TS__JSON_ESYNTAX, at, n, "premature end of input");
        char e = s[i + 1];
        unsigned char one;
        switch (e) {
        case '"': case '\\': case '/': one = (unsigned char)e; break;
        case 'b': one = '\b'; break;
        case 'f': one = '\f'; break;
        case 'n': one = '\n'; break;
        case 'r': one = '\r'; break;
        case 't': one = '\t'; break;
        case 'u': one = 0; break;
        default:
            return ts__json_fail(j, TS__JSON_ESYNTAX, at, i + 2, "invalid escape");
        }
        if (e != 'u') {
            h = ts__json_fnv(h, &one, 1);
            len++;
            i += 2;
            continue;
        }
        uint32_t cp, lo;
        if (i + 6 > n || !hex4(s + i + 2, &cp))
            return ts__json_fail(j, TS__JSON_ESYNTAX, at, i + 6 < n ? i + 6 : n,
                                 "invalid escape");
        size_t raw = 6;
        if (cp >= 0xdc00 && cp <= 0xdfff) {
            snprintf(msg, sizeof msg, "invalid Unicode '\\u%04X'", (unsigned)cp);
            return ts__json_fail(j, TS__JSON_ESYNTAX, at, i + 6, msg);
        }
        if (cp >= 0xd800 && cp <= 0xdbff) {
            if (i + 12 > n || s[i + 6] != '\\' || s[i + 7] != 'u' || !hex4(s + i + 8, &lo)) {
                snprintf(msg, sizeof msg, "invalid Unicode '\\u%04X'", (unsigned)cp);
                return ts__json_fail(j, TS__JSON_ESYNTAX, at, i + 6, msg);
            }
            if (lo < 0xdc00 || lo > 0xdfff) {
                snprintf(msg, sizeof msg, "invalid Unicode '\\u%04X\\u%04X'", (unsigned)cp,
                         (unsigned)lo);
                return ts__json_fail(j, TS__JSON_ESYNTAX, at, i + 12, msg);
            }
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            raw = 12;
        }
        if (cp == 0)
            return ts__json_fail(j, TS__JSON_ESYNTAX, at, i + 6,
                                 "\\u0000 is not allowed (text is kept as C strings)");
        unsigned char u[4];
        size_t k = utf8_put(cp, u);
        h = ts__json_fnv(h, u, k);
        len += k;
        i += raw;
    }
    out->at = at;
    out->end = i + 1;
    out->len = len;
    out->hash = h;
    out->escaped = escaped;
    j->i = i + 1;
    return 0;
}

size_t ts__json_decode_part(const char *s, const ts__json_str *str, size_t *pos, char *out,
                            size_t cap)
{
    size_t i = *pos, end = str->end - 1, o = 0;
    while (i < end) {
        unsigned char c = (unsigned char)s[i], u[4];
        size_t k, raw;
        if (c != '\\') {
            k = raw = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
            memcpy(u, s + i, k);
        } else {
            char e = s[i + 1];
            raw = 2;
            k = 1;
            switch (e) {
            case 'b': u[0] = '\b'; break;
            case 'f': u[0] = '\f'; break;
            case 'n': u[0] = '\n'; break;
            case 'r': u[0] = '\r'; break;
            case 't': u[0] = '\t'; break;
            case 'u': {
                uint32_t cp = escape_cp(s + i + 1, &raw);
                raw++;
                k = utf8_put(cp, u);
                break;
            }
            default: u[0] = (unsigned char)e; break;
            }
        }
        if (o + k > cap)
            break;
        memcpy(out + o, u, k);
        o += k;
        i += raw;
    }
    *pos = i;
    return o;
}

void ts__json_decode(const char *s, const ts__json_str *str, char *out)
{
    if (!str->escaped) {
        memcpy(out, s + str->at + 1, str->len);
        return;
    }
    size_t pos = str->at + 1;
    ts__json_decode_part(s, str, &pos, out, str->len);
}

int ts__json_str_equal(const char *s, const ts__json_str *a, const ts__json_str *b)
{
    if (a->len != b->len || a->hash != b->hash)
        return 0;
    if (!a->escaped && !b->escaped)
        return memcmp(s + a->at + 1, s + b->at + 1, a->len) == 0;
    /* Decode both in steps and compare what both have. */
    char ba[256], bb[256];
    size_t pa = a->at + 1, pb = b->at + 1, na = 0, nb = 0, oa = 0, ob = 0;
    for (;;) {
        if (oa == na) {
            na = ts__json_decode_part(s, a, &pa, ba, sizeof ba);
            oa = 0;
        }
        if (ob == nb) {
            nb = ts__json_decode_part(s, b, &pb, bb, sizeof bb);
            ob = 0;
        }
        if (na == 0 || nb == 0)
            return na == 0 && nb == 0;
        size_t k = na - oa < nb - ob ? na - oa : nb - ob;
        if (memcmp(ba + oa, bb + ob, k) != 0)
            return 0;
        oa += k;
        ob += k;
    }
}

/* ---- numbers and literals ------------------------------------------------------ */

/* End of the number at i (RFC 8259 grammar), or 0 when malformed; *real is
 * set when it has a fraction or an exponent. */
static size_t number_end(const ts__json *j, size_t i, int *real)
{
    const char *s = j->s;
    size_t n = j->n;
    *real = 0;
    if (i < n && s[i] == '-')
        i++;
    if (i >= n || !is_digit(s[i]))
        return 0;
    if (s[i] == '0')
        i++;
    else
        while (i < n && is_digit(s[i]))
            i++;
    if (i < n && s[i] == '.') {
        *real = 1;
        i++;
        if (i >= n || !is_digit(s[i]))
            return 0;
        while (i < n && is_digit(s[i]))
            i++;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        *real = 1;
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        if (i >= n || !is_digit(s[i]))
            return 0;
        while (i < n && is_digit(s[i]))
            i++;
    }
    /* "01", "1x", "1.2.3": the lexer would see one bad token. */
    if (i < n && (is_digit(s[i]) || is_alpha(s[i]) || s[i] == '.' || s[i] == '+' ||
                  s[i] == '-'))
        return 0;
    return i;
}

ts__json_kind ts__json_peek(ts__json *j)
{
    if (j->error)
        return TS__JSON_BAD;
    size_t i = skip_ws(j, j->i);
    j->i = i;
    if (i >= j->n) {
        ts__json_fail(j, TS__JSON_ESYNTAX, i, i, "unexpected token");
        return TS__JSON_BAD;
    }
    const char *s = j->s;
    switch (s[i]) {
    case '{': return TS__JSON_OBJECT;
    case '[': return TS__JSON_ARRAY;
    case '"': return TS__JSON_STRING;
    case ']': case '}': case ':': case ',':
        fail_at(j, TS__JSON_ESYNTAX, i, "unexpected token");
        return TS__JSON_BAD;
    default: break;
    }
    if (s[i] == '-' || is_digit(s[i])) {
        int real;
        if (!number_end(j, i, &real)) {
            fail_at(j, TS__JSON_ESYNTAX, i, "invalid token");
            return TS__JSON_BAD;
        }
        return real ? TS__JSON_REAL : TS__JSON_INTEGER;
    }
    size_t e = token_end(j, i);
    if (e - i == 4 && memcmp(s + i, "true", 4) == 0)
        return TS__JSON_TRUE;
    if (e - i == 5 && memcmp(s + i, "false", 5) == 0)
        return TS__JSON_FALSE;
    if (e - i == 4 && memcmp(s + i, "null", 4) == 0)
        return TS__JSON_NULL;
    fail_at(j, TS__JSON_ESYNTAX, i, "invalid token");
    return TS__JSON_BAD;
}

int ts__json_integer(ts__json *j, int64_t *out)
{
    ts__json_kind k = ts__json_peek(j);
    if (k != TS__JSON_INTEGER)
        return k == TS__JSON_BAD ? -1 : fail_at(j, TS__JSON_ESYNTAX, j->i, "integer expected");
    const char *s = j->s;
    size_t i = j->i;
    int neg = s[i] == '-';
    i += (size_t)neg;
    uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; i < j->n && is_digit(s[i]); i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (lim - d) / 10)
            return fail_at(j, TS__JSON_EOVERFLOW, j->i, "too big integer");
        v = v * 10 + d;
    }
    *out = neg ? (v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v) : (int64_t)v;
    j->i = i;
    return 0;
}

/* A real must be finite as a double (jansson: "real number overflow"). */
static int skip_real(ts__json *j)
{
    int real;
    size_t e = number_end(j, j->i, &real), len = e - j->i;
    char buf[512], *p = buf;
    if (len >= sizeof buf && !(p = j->realloc_fn(j->ctx, NULL, len + 1)))
        return ts__json_fail(j, TS__JSON_ENOMEM, j->i, j->i, "out of memory");
    memcpy(p, j->s + j->i, len);
    p[len] = '\0';
    double d = strtod(p, NULL);
    if (p != buf)
        j->free_fn(j->ctx, p);
    if (isinf(d))
        return fail_at(j, TS__JSON_EOVERFLOW, j->i, "real number overflow");
    j->i = e;
    return 0;
}

/* ---- objects and arrays ------------------------------------------------------- */

static int open_container(ts__json *j, char c)
{
    size_t i = skip_ws(j, j->i);
    if (i >= j->n || j->s[i] != c)
        return fail_at(j, TS__JSON_ESYNTAX, i, c == '{' ? "'{' expected" : "'[' expected");
    if (j->depth >= TS__JSON_MAX_DEPTH)
        return fail_at(j, TS__JSON_EDEPTH, i, "maximum parsing depth reached");
    j->depth++;
    j->i = i + 1;
    return 0;
}

int ts__json_object_open(ts__json *j)
{
    return j->error ? -1 : open_container(j, '{');
}

int ts__json_array_open(ts__json *j)
{
    return j->error ? -1 : open_container(j, '[');
}

int ts__json_object_next(ts__json *j, size_t *count, ts__json_str *key)
{
    if (j->error)
        return -1;
    size_t i = skip_ws(j, j->i);
    const char *s = j->s;
    if (i < j->n && s[i] == '}') {
        j->i = i + 1;
        j->depth--;
        return 0;
    }
    if (*count > 0) {
        if (i >= j->n || s[i] != ',')
            return fail_at(j, TS__JSON_ESYNTAX, i, "'}' expected");
        i = skip_ws(j, i + 1);
    }
    if (i >= j->n || s[i] != '"')
        return fail_at(j, TS__JSON_ESYNTAX, i, "string or '}' expected");
    j->i = i;
    if (ts__json_string(j, key) != 0)
        return -1;
    i = skip_ws(j, j->i);
    if (i >= j->n || s[i] != ':')
        return fail_at(j, TS__JSON_ESYNTAX, i, "':' expected");
    j->i = i + 1;
    (*count)++;
    return 1;
}

int ts__json_array_next(ts__json *j, size_t *count)
{
    if (j->error)
        return -1;
    size_t i = skip_ws(j, j->i);
    if (i < j->n && j->s[i] == ']' && *count == 0) {
        j->i = i + 1;
        j->depth--;
        return 0;
    }
    if (*count > 0) {
        if (i < j->n && j->s[i] == ']') {
            j->i = i + 1;
            j->depth--;
            return 0;
        }
        if (i >= j->n || j->s[i] != ',')
            return fail_at(j, TS__JSON_ESYNTAX, i, "']' expected");
        i++;
    }
    j->i = i;
    (*count)++;
    return 1;
}

/* ---- key sets ---------------------------------------------------------------------- */

int ts__json_keys_add(ts__json *j, ts__json_keys *set, const ts__json_str *key)
{
    if (2 * (set->n + 1) > set->cap) {
        size_t cap = set->cap ? set->cap * 2 : 16;
        if (cap > SIZE_MAX / sizeof *set->v)
            return ts__json_fail(j, TS__JSON_ENOMEM, key->at, key->at, "out of memory");
        ts__json_str *v = j->realloc_fn(j->ctx, NULL, cap * sizeof *v);
        if (!v)
            return ts__json_fail(j, TS__JSON_ENOMEM, key->at, key->at, "out of memory");
        memset(v, 0, cap * sizeof *v);
        for (size_t k = 0; k < set->cap; k++) {
            if (!set->v[k].end)
                continue;
            size_t p = (size_t)set->v[k].hash & (cap - 1);
            while (v[p].end)
                p = (p + 1) & (cap - 1);
            v[p] = set->v[k];
        }
        if (set->v)
            j->free_fn(j->ctx, set->v);
        set->v = v;
        set->cap = cap;
    }
    size_t p = (size_t)key->hash & (set->cap - 1);
    while (set->v[p].end) {
        if (ts__json_str_equal(j->s, &set->v[p], key))
            return ts__json_fail(j, TS__JSON_EDUPLICATE, key->at, key->end,
                                 "duplicate object key");
        p = (p + 1) & (set->cap - 1);
    }
    set->v[p] = *key;
    set->n++;
    return 0;
}

void ts__json_keys_free(ts__json *j, ts__json_keys *set)
{
    if (set->v)
        j->free_fn(j->ctx, set->v);
    set->v = NULL;
    set->cap = set->n = 0;
}

/* ---- skipping ------------------------------------------------------------------------ */

int ts__json_skip(ts__json *j)
{
    ts__json_str str;
    size_t count = 0;
    int r;
    switch (ts__json_peek(j)) {
    case TS__JSON_BAD:
        return -1;
    case TS__JSON_OBJECT: {
        ts__json_keys keys = {NULL, 0, 0};
        if (ts__json_object_open(j) != 0)
            return -1;
        while ((r = ts__json_object_next(j, &count, &str)) == 1)
            if (ts__json_keys_add(j, &keys, &str) != 0 || ts__json_skip(j) != 0) {
                r = -1;
                break;
            }
        ts__json_keys_free(j, &keys);
        return r;
    }
    case TS__JSON_ARRAY:
        if (ts__json_array_open(j) != 0)
            return -1;
        while ((r = ts__json_array_next(j, &count)) == 1)
            if (ts__json_skip(j) != 0)
                return -1;
        return r;
    case TS__JSON_STRING:
        return ts__json_string(j, &str);
    case TS__JSON_INTEGER: {
        int64_t v;
        return ts__json_integer(j, &v);
    }
    case TS__JSON_REAL:
        return skip_real(j);
    case TS__JSON_TRUE:
    case TS__JSON_NULL:
        j->i += 4;
        return 0;
    case TS__JSON_FALSE:
        j->i += 5;
        return 0;
    }
    return -1;
}

int ts__json_finish(ts__json *j)
{
    if (j->error)
        return -1;
    size_t i = skip_ws(j, j->i);
    if (i < j->n)
        return fail_at(j, TS__JSON_ESYNTAX, i, "end of file expected");
    j->i = i;
    return 0;
}

size_t ts__json_line(const ts__json *j, size_t at)
{
    size_t line = 1;
    for (size_t i = 0; i < at && i < j->n; i++)
        line += j->s[i] == '\n';
    return line;
}
