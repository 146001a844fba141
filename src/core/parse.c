/*
 * parse.c - shape text: the strict TShape grammar and the printer.
 *
 * The grammar is MXNet's TShape operator>> (include/mxnet/tuple.h) without
 * its leniencies: the seed's parser kept (3,4) from "(3,4,a)", accepted
 * "(3,4]" and left "x4" of "3x4" unread. Here each of those is an error that
 * names the column and what was expected.
 */
#include "internal.h"

#include <stdio.h>

typedef struct parser {
    const char *s;
    size_t len, pos;
    unsigned flags;
    ts_error *err;
} parser;

/* MXNet reads shapes with istream >>, which skips C isspace(). */
static void skip_ws(parser *p)
{
    p->pos = ts__skip_ws(p->s, p->len, p->pos, TS__WS_C);
}

static ts_status fail_at(parser *p, ts_status code, const char *expected)
{
    char buf[16];
    return ts__fail(p->err, code, (int64_t)p->pos + 1, -1,
                    "expected %s at column %zu, found %s", expected, p->pos + 1,
                    ts__found_at(p->s, p->len, p->pos, buf, sizeof buf));
}

/* int := ["-" | "+"] digits ["L" | "l"]. */
static ts_status parse_int(parser *p, int64_t *out, const char *expected)
{
    ts__int v;
    int r = ts__scan_int(p->s, p->len, p->pos, TS__INT_SIGN, &v);
    if (r == TS__INT_NONE)
        return fail_at(p, TS_ERR_PARSE, expected);
    p->pos = v.end;
    if (r == TS__INT_OVERFLOW)
        return ts__fail(p->err, TS_ERR_OVERFLOW, (int64_t)v.start + 1, -1,
                        "dim '%.*s' at column %zu does not fit in int64",
                        (int)(v.end - v.start > 40 ? 40 : v.end - v.start), p->s + v.start,
                        v.start + 1);
    if (v.negative && !(p->flags & TS_PARSE_ALLOW_NEGATIVE))
        return ts__fail(p->err, TS_ERR_VALUE, (int64_t)v.start + 1, -1,
                        "negative dim -%llu at column %zu: dims must be >= 0",
                        (unsigned long long)v.magnitude, v.start + 1);
    if (p->pos < p->len && (p->s[p->pos] == 'L' || p->s[p->pos] == 'l'))
        p->pos++; /* Python 2 long suffix, as in "4L" */
    *out = v.value;
    return TS_OK;
}

/*
 * Fast path for the common spellings: "(3, 4, 5)", "[3,4]", "()", "7" with
 * plain spaces, dims of at most 18 digits, nothing after the shape. Returns
 * the ndim it parsed into dims, or -1 for anything else (then the precise
 * parser below runs and, for bad input, explains the problem). Shape
 * commands run this once per input line, so it is kept tight.
 */
static int parse_fast(const char *s, size_t len, int64_t *dims)
{
    /* A private copy ending in NUL lets the loops below stop at the
     * sentinel instead of testing the end before every byte; nothing
     * outside s[0..len) is read. Long or odd input takes the slow path. */
    char buf[256];
    if (len >= sizeof buf)
        return -1;
    if (len) /* s may be NULL when len is 0 */
        memcpy(buf, s, len);
    buf[len] = '\0';
    const char *p = ts__skip_spaces_nul(buf);
    char close = *p == '(' ? ')' : *p == '[' ? ']' : 0; /* 0: a bare number */
    int ndim = 0;
    if (close) {
        p = ts__skip_spaces_nul(p + 1);
        if (*p == close) { /* "()" */
            p++;
            goto tail;
        }
    }
    for (;;) {
        unsigned d = (unsigned)(unsigned char)*p - '0';
        if (d > 9 || ndim == TS_MAX_NDIM)
            return -1;
        const char *start = p;
        uint64_t v;
        p = ts__scan_digits_nul(p + 1, d, &v);
        if (p - start > 18) /* might overflow: the slow path says so */
            return -1;
        dims[ndim++] = (int64_t)v;
        if (!close)
            goto tail;
        p = ts__skip_spaces_nul(p);
        if (*p == ',') {
            p = ts__skip_spaces_nul(p + 1);
            if (*p == close) { /* trailing comma */
                p++;
                goto tail;
            }
            continue;
        }
        if (*p != close)
            return -1;
        p++;
        goto tail;
    }
tail:
    p = ts__skip_spaces_nul(p);
    /* An embedded NUL stops here early: not the fast path's business. */
    return (size_t)(p - buf) == len ? ndim : -1;
}

/* 1 when the text at p->pos is the word `w` (not followed by a letter,
 * digit or '_'). */
static int at_word(const parser *p, const char *w)
{
    size_t n = strlen(w);
    if (p->len - p->pos < n || memcmp(p->s + p->pos, w, n) != 0)
        return 0;
    char c = p->pos + n < p->len ? p->s[p->pos + n] : '\0';
    return !(ts__is_digit(c) || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'));
}

/* A dim of TensorFlow/Keras spelled None (unknown until run time): an error
 * that names it, not "expected a dim". */
static ts_status unknown_dim(parser *p, int index)
{
    return ts__fail(p->err, TS_ERR_VALUE, (int64_t)p->pos + 1, -1,
                    "dim %d is None (unknown) at column %zu: a shape needs the size of every "
                    "dim", index, p->pos + 1);
}

/* list := "(" items ")" | "[" items "]", at p->pos (an opening bracket). */
static ts_status parse_list(parser *p, int64_t *dims, int *ndim)
{
    char open = p->s[p->pos];
    size_t open_pos = p->pos;
    char close = open == '(' ? ')' : ']';
    /* Static texts: this runs once per line of big inputs. */
    const char *expect_item = open == '(' ? "a dim or ')'" : "a dim or ']'";
    const char *expect_sep = open == '(' ? "',' or ')'" : "',' or ']'";
    ts_status st;
    p->pos++;
    skip_ws(p);
    if (p->pos < p->len && p->s[p->pos] == close) {
        p->pos++;
        return TS_OK;
    }
    for (;;) {
        if (*ndim == TS_MAX_NDIM)
            return ts__fail(p->err, TS_ERR_NDIM, (int64_t)p->pos + 1, -1,
                            "more than %d dims at column %zu", TS_MAX_NDIM, p->pos + 1);
        if (at_word(p, "None"))
            return unknown_dim(p, *ndim);
        st = parse_int(p, &dims[*ndim], *ndim == 0 ? expect_item : "a dim");
        if (st)
            return st;
        ++*ndim;
        skip_ws(p);
        if (p->pos < p->len && p->s[p->pos] == ',') {
            p->pos++;
            skip_ws(p);
            if (p->pos < p->len && p->s[p->pos] == close) {
                p->pos++;
                return TS_OK;
            }
            continue;
        }
        if (p->pos < p->len && p->s[p->pos] == close) {
            p->pos++;
            return TS_OK;
        }
        if (p->pos < p->len && (p->s[p->pos] == ')' || p->s[p->pos] == ']')) {
            char buf[16];
            return ts__fail(p->err, TS_ERR_PARSE, (int64_t)p->pos + 1, -1,
                            "expected %s at column %zu to match '%c' at column %zu, found %s",
                            expect_sep, p->pos + 1, open, open_pos + 1,
                            ts__found_at(p->s, p->len, p->pos, buf, sizeof buf));
        }
        return fail_at(p, TS_ERR_PARSE, expect_sep);
    }
}

/* The shape objects frameworks print: torch.Size([3, 4]) (PyTorch's repr,
 * also torch.Size() for a scalar) and TensorShape([3, 4]) (TensorFlow's
 * repr; tf.TensorShape(...) as written in code). */
static const char *const wrappers[] = {"torch.Size", "tf.TensorShape", "TensorShape"};

/* wrapper := NAME ws "(" ws [ list ] ws ")", at p->pos (the name). */
static ts_status parse_wrapped(parser *p, const char *name, int64_t *dims, int *ndim)
{
    size_t name_pos = p->pos;
    char buf[16];
    p->pos += strlen(name);
    skip_ws(p);
    if (p->pos >= p->len || p->s[p->pos] != '(')
        return ts__fail(p->err, TS_ERR_PARSE, (int64_t)p->pos + 1, -1,
                        "expected '(' after %s at column %zu, found %s", name, p->pos + 1,
                        ts__found_at(p->s, p->len, p->pos, buf, sizeof buf));
    size_t open_pos = p->pos++;
    skip_ws(p);
    if (at_word(p, "None"))
        return ts__fail(p->err, TS_ERR_VALUE, (int64_t)p->pos + 1, -1,
                        "%s(None) at column %zu has an unknown number of dims: a shape needs "
                        "them", name, name_pos + 1);
    int list = p->pos < p->len && (p->s[p->pos] == '(' || p->s[p->pos] == '[');
    if (list) {
        ts_status st = parse_list(p, dims, ndim);
        if (st)
            return st;
        skip_ws(p);
    }
    if (p->pos >= p->len || p->s[p->pos] != ')')
        return ts__fail(p->err, TS_ERR_PARSE, (int64_t)p->pos + 1, -1,
                        "expected %s at column %zu to close '%s(' at column %zu, found %s",
                        list ? "')'" : "a list or ')'", p->pos + 1, name, open_pos + 1,
                        ts__found_at(p->s, p->len, p->pos, buf, sizeof buf));
    p->pos++;
    return TS_OK;
}

ts_status ts_shape_parse(const char *text, size_t len, unsigned flags, ts_shape *out,
                         size_t *consumed, ts_error *err)
{
    TS__ARG_ARRAY(err, text, len);
    TS__ARG_FLAGS(err, flags, TS_PARSE_ALLOW_NEGATIVE);
    TS__ARG_NONNULL(err, out);
    if (!consumed) {
        int64_t fast[TS_MAX_NDIM];
        int n = parse_fast(text, len, fast);
        if (n >= 0) {
            if (n <= TS_STACK_CACHE) {
                /* Inline storage: no allocation, no call. */
                out->ndim = n;
                for (int i = 0; i < n; i++)
                    out->stack[i] = fast[i];
                return TS_OK;
            }
            return ts_shape_assign(out, fast, n, err);
        }
    }
    parser p = {text, len, 0, flags, err};
    int64_t dims[TS_MAX_NDIM];
    int ndim = 0;
    ts_status st;

    skip_ws(&p);
    if (p.pos >= p.len)
        return ts__fail(err, TS_ERR_PARSE, (int64_t)p.pos + 1, -1,
                        "expected a shape such as (3,4) at column %zu, found %s",
                        p.pos + 1, p.len == 0 ? "an empty string" : "only whitespace");
    char open = p.s[p.pos];
    const char *wrapper = NULL;
    for (size_t i = 0; i < sizeof wrappers / sizeof *wrappers && !wrapper; i++)
        if (at_word(&p, wrappers[i]))
            wrapper = wrappers[i];
    if (wrapper) {
        st = parse_wrapped(&p, wrapper, dims, &ndim);
        if (st)
            return st;
    } else if (open == '(' || open == '[') {
        st = parse_list(&p, dims, &ndim);
        if (st)
            return st;
    } else if (ts__is_digit(open) || open == '-' || open == '+') {
        st = parse_int(&p, &dims[0], "a shape such as (3,4)");
        if (st)
            return st;
        ndim = 1;
    } else if (at_word(&p, "None")) {
        return unknown_dim(&p, 0);
    } else {
        return fail_at(&p, TS_ERR_PARSE, "'(', '[' or a number");
    }
    skip_ws(&p);
    if (!consumed && p.pos < p.len) {
        size_t rest = p.len - p.pos;
        return ts__fail(err, TS_ERR_PARSE, (int64_t)p.pos + 1, -1,
                        "unexpected '%.*s%s' after the shape at column %zu",
                        (int)(rest > 20 ? 20 : rest), p.s + p.pos, rest > 20 ? "..." : "",
                        p.pos + 1);
    }
    st = ts_shape_assign(out, dims, ndim, err);
    if (st)
        return st;
    if (consumed)
        *consumed = p.pos;
    ts__ok(err);
    return TS_OK;
}

/* Writes v in decimal to p (at least 20 bytes); returns the length. */
static size_t put_int(char *p, int64_t v)
{
    char tmp[24];
    size_t n = 0;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    size_t len = 0;
    if (v < 0)
        p[len++] = '-';
    while (n)
        p[len++] = tmp[--n];
    return len;
}

size_t ts_shape_format(const ts_shape *s, unsigned flags, char *buf, size_t cap)
{
    if (!buf && cap)
        return 0;
    if (!s || (flags & ~(TS_SHAPE_PRINT_LIST | TS_SHAPE_PRINT_SPACES))) {
        if (cap)
            buf[0] = '\0';
        return 0;
    }
    const int64_t *d = ts_shape_dims(s);
    int list = (flags & TS_SHAPE_PRINT_LIST) != 0;
    int spaces = (flags & TS_SHAPE_PRINT_SPACES) != 0;
    size_t total = 0;
    char num[24];
    /* Append helper: count everything, copy what fits. */
#define PUT(src, n)                                                            \
    do {                                                                       \
        size_t n_ = (n);                                                       \
        if (total < cap) {                                                     \
            size_t room_ = cap - total - 1 < n_ ? cap - total - 1 : n_;        \
            memcpy(buf + total, (src), room_);                                 \
        }                                                                      \
        total += n_;                                                           \
    } while (0)
    PUT(list ? "[" : "(", 1);
    for (int i = 0; i < s->ndim; i++) {
        if (i)
            PUT(spaces ? ", " : ",", spaces ? 2u : 1u);
        PUT(num, put_int(num, d[i]));
    }
    if (s->ndim == 1 && !list)
        PUT(",", 1); /* Python one-tuple, as mshadow prints (3,) */
    PUT(list ? "]" : ")", 1);
#undef PUT
    if (cap)
        buf[total < cap ? total : cap - 1] = '\0';
    return total;
}
