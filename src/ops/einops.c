/*
 * einops.c - output shapes of einops' rearrange, reduce and repeat, and
 * parse_shape (arogozhnikov/einops: parsing.py ParsedExpression, einops.py
 * _prepare_transformation_recipe and _reconstruct_from_shape).
 *
 * The grammar and the rules are einops' own; the parser is strict and
 * bounded (TS_EINOPS_MAX_PATTERN bytes, TS_EINOPS_MAX_AXES tokens per side)
 * and reports columns. Two deliberate differences: anonymous axes with
 * leading zeros ("007", which einops reads as 7 and "01", which it rejects
 * with an internal error) are rejected, and axis sizes must be >= 0 (einops
 * divides by them). Errors carry einops' three-part envelope (pattern, input
 * shape and sizes, cause) on one line:
 *     rearrange "b c (h h2) w -> b c h h2 w" on shape (2,3,4,5) with h2=3:
 *     can't divide axis of length 4 into chunks of 3 (axis 2, (h h2))
 */
#include "../core/internal.h"

#include <stdio.h>
#include <stdlib.h>

enum { AX_NAME, AX_ANON, AX_ELLIPSIS, AX_SKIP };

/* An elementary axis of one side: a name, an anonymous length, "..." or '_'. */
typedef struct ax {
    size_t off, len;     /* text in the pattern */
    int kind;
    int64_t value;       /* AX_ANON: the length */
    int comp;            /* the composition entry it belongs to */
} ax;

/* A composition entry: one input/output dim, a list of elementary axes. */
typedef struct comp {
    int first, count;    /* axes[first .. first+count-1] */
    int paren;           /* written in parentheses */
    int is_ellipsis;     /* a bare "..." */
    size_t off, len;     /* its text, for messages */
} comp;

typedef struct side {
    ax axes[TS_EINOPS_MAX_AXES];
    comp comps[TS_EINOPS_MAX_AXES];
    int nax, ncomp;
    int has_ellipsis, ellipsis_paren;
    int non_unit_anon;   /* an anonymous axis other than 1 */
} side;

typedef struct kwarg {
    size_t off, len;     /* name in the kwarg buffer */
    int64_t size;
    int used;
} kwarg;

struct ts_einops {
    ts_einops_op op;
    char *pattern;       /* NUL-terminated copy */
    size_t plen;
    char *kwnames;       /* all kwarg names, concatenated */
    kwarg *kw;
    int nkw;
    side left, right;
    /* Recipe: where each axis's length comes from. For left axes: -1
     * unknown, else a kwarg index (AX_NAME) or the anonymous value. For right
     * axes: index of the left axis with that name, or -1 - kwarg index. */
    int left_kw[TS_EINOPS_MAX_AXES];
    int right_src[TS_EINOPS_MAX_AXES];
};

static const char *op_name(ts_einops_op op)
{
    switch (op) {
    case TS_EINOPS_REARRANGE: return "rearrange";
    case TS_EINOPS_REDUCE: return "reduce";
    case TS_EINOPS_REPEAT: return "repeat";
    }
    return "einops";
}

static int is_alnum_(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || ts__is_digit(c) || c == '_';
}

/* "'x'" or "byte 0xNN" for messages. */
static const char *show_char(char c, char *buf, size_t cap)
{
    unsigned char u = (unsigned char)c;
    if (u < 0x20 || u >= 0x7f)
        snprintf(buf, cap, "byte 0x%02x", u);
    else
        snprintf(buf, cap, "'%c'", c);
    return buf;
}

/* Checks an axis name as einops' check_axis_name_return_reason (ASCII). */
static const char *name_problem(const char *p, size_t n, int allow_underscore)
{
    if (n == 0 || ts__is_digit(p[0]))
        return "not a valid identifier";
    for (size_t i = 0; i < n; i++)
        if (!is_alnum_(p[i]))
            return "not a valid identifier";
    if (p[0] == '_' || p[n - 1] == '_') {
        if (n == 1 && allow_underscore)
            return NULL;
        return n == 1 ? "'_' is only allowed in parse_shape"
                      : "axis names should not start or end with '_'";
    }
    return NULL;
}

static int same_text(const char *a, size_t an, const char *b, size_t bn)
{
    return an == bn && memcmp(a, b, an) == 0;
}

/* Adds one token (name, number, "..." or '_') to the side. */
static ts_status add_token(side *sd, const char *pat, size_t off, size_t len, int group,
                           int allow_underscore, const char *sidename, ts_error *err)
{
    const char *t = pat + off;
    int kind;
    int64_t value = 0;

    if (len == 3 && memcmp(t, "...", 3) == 0) {
        kind = AX_ELLIPSIS;
    } else if (ts__is_digit(t[0]) && strspn(t, "0123456789") >= len) {
        if (len == 1 && t[0] == '1') {
            /* "1": an empty composition outside a group, nothing inside. */
            if (group < 0) {
                if (sd->ncomp == TS_EINOPS_MAX_AXES)
                    goto limit;
                comp *c = &sd->comps[sd->ncomp++];
                c->first = sd->nax;
                c->count = 0;
                c->paren = 0;
                c->is_ellipsis = 0;
                c->off = off;
                c->len = len;
            }
            return TS_OK;
        }
        ts__int v;
        int r = ts__scan_int(t, len, 0, 0, &v); /* all digits: never NONE */
        if (v.leading_zero)
            return ts__fail(err, TS_ERR_PARSE, (int64_t)off + 1, -1,
                            "anonymous axis '%.*s' at column %zu has a leading zero",
                            (int)(len > 40 ? 40 : len), t, off + 1);
        if (r != TS__INT_OK)
            return ts__fail(err, TS_ERR_OVERFLOW, (int64_t)off + 1, -1,
                            "anonymous axis '%.*s' at column %zu does not fit in int64",
                            (int)(len > 40 ? 40 : len), t, off + 1);
        if (v.value == 0)
            return ts__fail(err, TS_ERR_PARSE, (int64_t)off + 1, -1,
                            "anonymous axis 0 at column %zu: anonymous axes should have "
                            "positive length", off + 1);
        kind = AX_ANON;
        value = v.value;
        sd->non_unit_anon = 1;
    } else {
        const char *why = name_problem(t, len, allow_underscore);
        if (why)
            return ts__fail(err, TS_ERR_PARSE, (int64_t)off + 1, -1,
                            "invalid axis name '%.*s' at column %zu: %s",
                            (int)(len > 40 ? 40 : len), t, off + 1, why);
        kind = (len == 1 && t[0] == '_') ? AX_SKIP : AX_NAME;
        if (kind == AX_NAME) {
            for (int i = 0; i < sd->nax; i++) {
                const ax *o = &sd->axes[i];
                if (o->kind == AX_NAME && same_text(pat + o->off, o->len, t, len))
                    return ts__fail(err, TS_ERR_PARSE, (int64_t)off + 1, -1,
                                    "duplicate axis '%.*s' %s, at columns %zu "
                                    "and %zu", (int)(len > 40 ? 40 : len), t, sidename,
                                    o->off + 1, off + 1);
            }
        }
    }
    if (sd->nax == TS_EINOPS_MAX_AXES)
        goto limit;
    if (kind == AX_ELLIPSIS) {
        sd->has_ellipsis = 1;
        sd->ellipsis_paren = group >= 0;
    }
    if (group < 0) {
        if (sd->ncomp == TS_EINOPS_MAX_AXES)
            goto limit;
        comp *c = &sd->comps[sd->ncomp++];
        c->first = sd->nax;
        c->count = 1;
        c->paren = 0;
        c->is_ellipsis = kind == AX_ELLIPSIS;
        c->off = off;
        c->len = len;
    } else {
        sd->comps[group].count++;
    }
    ax *a = &sd->axes[sd->nax++];
    a->off = off;
    a->len = len;
    a->kind = kind;
    a->value = value;
    a->comp = group < 0 ? sd->ncomp - 1 : group;
    return TS_OK;
limit:
    return ts__fail(err, TS_ERR_LIMIT, (int64_t)off + 1, -1,
                    "more than %d axes %s (at column %zu)", TS_EINOPS_MAX_AXES,
                    sidename, off + 1);
}

/*
 * Parses pat[begin, end) as one side (einops ParsedExpression). Columns are
 * positions in the whole pattern.
 */
static ts_status parse_side(side *sd, const char *pat, size_t begin, size_t end,
                            int allow_underscore, const char *sidename, ts_error *err)
{
    int group = -1;
    size_t group_col = 0;
    char cbuf[16];
    ts_status st;

    sd->nax = sd->ncomp = 0;
    sd->has_ellipsis = sd->ellipsis_paren = sd->non_unit_anon = 0;
    size_t i = begin;
    while (i < end) {
        char c = pat[i];
        if (ts__is_ws(c, TS__WS_SP)) { /* einops splits on spaces only */
            i++;
        } else if (c == '(') {
            if (group >= 0)
                return ts__fail(err, TS_ERR_PARSE, (int64_t)i + 1, -1,
                                "'(' at column %zu inside the group opened at column %zu: "
                                "axis composition is one level (brackets inside brackets "
                                "are not allowed)", i + 1, group_col);
            if (sd->ncomp == TS_EINOPS_MAX_AXES)
                return ts__fail(err, TS_ERR_LIMIT, (int64_t)i + 1, -1,
                                "more than %d axes %s (at column %zu)",
                                TS_EINOPS_MAX_AXES, sidename, i + 1);
            group = sd->ncomp++;
            group_col = i + 1;
            comp *g = &sd->comps[group];
            g->first = sd->nax;
            g->count = 0;
            g->paren = 1;
            g->is_ellipsis = 0;
            g->off = i;
            g->len = 1;
            i++;
        } else if (c == ')') {
            if (group < 0)
                return ts__fail(err, TS_ERR_PARSE, (int64_t)i + 1, -1,
                                "')' at column %zu has no matching '(': brackets are not "
                                "balanced", i + 1);
            sd->comps[group].len = i + 1 - sd->comps[group].off;
            group = -1;
            i++;
        } else if (c == '.') {
            size_t s = i;
            if (i + 2 >= end || pat[i + 1] != '.' || pat[i + 2] != '.' ||
                (i + 3 < end && pat[i + 3] == '.'))
                return ts__fail(err, TS_ERR_PARSE, (int64_t)i + 1, -1,
                                "'.' at column %zu is not part of an ellipsis '...': dots "
                                "are only allowed as one '...'", i + 1);
            if (sd->has_ellipsis)
                return ts__fail(err, TS_ERR_PARSE, (int64_t)i + 1, -1,
                                "a second ellipsis '...' at column %zu %s: only "
                                "one is allowed", i + 1, sidename);
            i += 3;
            if (i < end && is_alnum_(pat[i]))
                return ts__fail(err, TS_ERR_PARSE, (int64_t)i + 1, -1,
                                "'...' at column %zu is followed by %s: put a space after it",
                                s + 1, show_char(pat[i], cbuf, sizeof cbuf));
            if ((st = add_token(sd, pat, s, 3, group, allow_underscore, sidename, err)))
                return st;
        } else if (is_alnum_(c)) {
            size_t s = i;
            while (i < end && is_alnum_(pat[i]))
                i++;
            if (i < end && pat[i] == '.')
                return ts__fail(err, TS_ERR_PARSE, (int64_t)i + 1, -1,
                                "'.' at column %zu is not part of an ellipsis '...': dots "
                                "are only allowed as one '...' separated by spaces", i + 1);
            if ((st = add_token(sd, pat, s, i - s, group, allow_underscore, sidename, err)))
                return st;
        } else {
            return ts__fail(err, TS_ERR_PARSE, (int64_t)i + 1, -1,
                            "unknown character %s at column %zu", show_char(c, cbuf, sizeof cbuf),
                            i + 1);
        }
    }
    if (group >= 0)
        return ts__fail(err, TS_ERR_PARSE, (int64_t)group_col, -1,
                        "imbalanced parentheses: '(' at column %zu is never closed", group_col);
    return TS_OK;
}

/* ---- messages ---------------------------------------------------------- */

/* Appends printf output to buf (cap bytes) at *pos, truncating quietly. */
static void append(char *buf, size_t cap, size_t *pos, const char *fmt, ...) TS__PRINTF(4, 5);
static void append(char *buf, size_t cap, size_t *pos, const char *fmt, ...)
{
    if (*pos >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *pos, cap - *pos, fmt, ap);
    va_end(ap);
    if (n > 0)
        *pos = (size_t)n >= cap - *pos ? cap - 1 : *pos + (size_t)n;
}

/* Prefixes err with: op "pattern"[ on shape (..)][ with k=v, ...]. */
static void envelope(ts_error *err, const char *opname, const char *pat, size_t plen,
                     const ts_shape *in, const char *kwnames, const kwarg *kw, int nkw)
{
    if (!err)
        return;
    char head[TS_ERROR_MESSAGE_MAX], sbuf[TS__SHAPE_STR_MAX], tbuf[168], nbuf[40];
    size_t pos = 0;
    append(head, sizeof head, &pos, "%s \"%s\"", opname,
           ts__printable(pat, plen, tbuf, sizeof tbuf));
    if (in)
        append(head, sizeof head, &pos, " on shape %s", ts__shape_str(in, sbuf, sizeof sbuf));
    for (int i = 0; i < nkw && i < 8; i++)
        append(head, sizeof head, &pos, "%s%s=%lld", i ? ", " : " with ",
               ts__printable(kwnames + kw[i].off, kw[i].len, nbuf, sizeof nbuf),
               (long long)kw[i].size);
    if (nkw > 8)
        append(head, sizeof head, &pos, ", ...");
    ts__error_prefix(err, "%s", head);
}

/* Lists the identifiers of `sd` not in `other` (names, numbers, "..."). */
static int list_missing(const side *sd, const side *other, const char *pat, char *buf,
                        size_t cap, size_t *pos)
{
    int n = 0;
    for (int i = 0; i < sd->nax; i++) {
        const ax *a = &sd->axes[i];
        int found = 0;
        if (a->kind == AX_NAME) {
            for (int j = 0; j < other->nax && !found; j++)
                found = other->axes[j].kind == AX_NAME &&
                        same_text(pat + other->axes[j].off, other->axes[j].len, pat + a->off,
                                  a->len);
        } else if (a->kind == AX_ELLIPSIS) {
            found = other->has_ellipsis;
        }
        /* anonymous axes are all distinct (einops AnonymousAxis) */
        if (found)
            continue;
        append(buf, cap, pos, "%s%.*s", n ? ", " : "", (int)(a->len > 40 ? 40 : a->len),
               pat + a->off);
        n++;
    }
    return n;
}

/* ---- compile ------------------------------------------------------------ */

static int find_kw(const ts_einops *e, const char *p, size_t n)
{
    for (int k = 0; k < e->nkw; k++)
        if (same_text(e->kwnames + e->kw[k].off, e->kw[k].len, p, n))
            return k;
    return -1;
}

static int find_name(const side *sd, const char *pat, const char *p, size_t n)
{
    for (int i = 0; i < sd->nax; i++)
        if (sd->axes[i].kind == AX_NAME && same_text(pat + sd->axes[i].off, sd->axes[i].len, p, n))
            return i;
    return -1;
}

/* The checks of _prepare_transformation_recipe that need no shape. */
static ts_status check_rules(ts_einops *e, ts_error *err)
{
    const char *pat = e->pattern;
    side *l = &e->left, *r = &e->right;
    char list[256];
    size_t pos = 0;

    if (!l->has_ellipsis && r->has_ellipsis)
        return ts__error(err, TS_ERR_VALUE,
                         "ellipsis found in the right side, but not the left side of the pattern");
    if (l->has_ellipsis && l->ellipsis_paren)
        return ts__error(err, TS_ERR_VALUE,
                         "ellipsis inside parentheses in the left side is not allowed");
    switch (e->op) {
    case TS_EINOPS_REARRANGE:
        for (int s = 0; s < 2; s++) {
            const side *sd = s ? r : l;
            for (int i = 0; i < sd->nax; i++)
                if (sd->axes[i].kind == AX_ANON)
                    return ts__fail(err, TS_ERR_VALUE, (int64_t)sd->axes[i].off + 1, -1,
                                    "non-unitary anonymous axis %.*s at column %zu: "
                                    "rearrange allows no anonymous axes other than 1",
                                    (int)sd->axes[i].len, pat + sd->axes[i].off,
                                    sd->axes[i].off + 1);
        }
        {
            char rlist[256];
            size_t rpos = 0;
            int nl = list_missing(l, r, pat, list, sizeof list, &pos);
            int nr = list_missing(r, l, pat, rlist, sizeof rlist, &rpos);
            if (nl || nr)
                return ts__error(err, TS_ERR_VALUE,
                                 "identifiers only on one side of the pattern (they must be "
                                 "on both): %s%s%s%s%s",
                                 nl ? list : "", nl ? " (left)" : "", nl && nr ? "; " : "",
                                 nr ? rlist : "", nr ? " (right)" : "");
        }
        break;
    case TS_EINOPS_REPEAT:
        if (list_missing(l, r, pat, list, sizeof list, &pos))
            return ts__error(err, TS_ERR_VALUE,
                             "unexpected identifiers on the left side of repeat: %s", list);
        pos = 0;
        {
            int n = 0;
            for (int i = 0; i < r->nax; i++) {
                const ax *a = &r->axes[i];
                if (a->kind != AX_NAME || find_name(l, pat, pat + a->off, a->len) >= 0 ||
                    find_kw(e, pat + a->off, a->len) >= 0)
                    continue;
                append(list, sizeof list, &pos, "%s%.*s", n++ ? ", " : "",
                       (int)(a->len > 40 ? 40 : a->len), pat + a->off);
            }
            if (n)
                return ts__error(err, TS_ERR_VALUE,
                                 "specify sizes for new axes in repeat: %s (e.g. %.*s=2)", list,
                                 (int)strcspn(list, ","), list);
        }
        break;
    case TS_EINOPS_REDUCE:
        if (list_missing(r, l, pat, list, sizeof list, &pos))
            return ts__error(err, TS_ERR_VALUE,
                             "unexpected identifiers on the right side of reduce: %s", list);
        break;
    }

    /* Sizes: valid names, each used, once. */
    for (int k = 0; k < e->nkw; k++) {
        const char *p = e->kwnames + e->kw[k].off;
        size_t n = e->kw[k].len;
        const char *why = name_problem(p, n, 0);
        char nbuf[48];
        if (why)
            return ts__error(err, TS_ERR_VALUE, "invalid name for an axis '%s': %s",
                             ts__printable(p, n, nbuf, sizeof nbuf), why);
        if (find_kw(e, p, n) != k)
            return ts__error(err, TS_ERR_VALUE, "axis %.*s is given a size twice",
                             (int)(n > 40 ? 40 : n), p);
        if (e->kw[k].size < 0)
            return ts__error(err, TS_ERR_VALUE, "size %lld of axis %.*s is negative",
                             (long long)e->kw[k].size, (int)(n > 40 ? 40 : n), p);
        if (find_name(l, pat, p, n) < 0 && find_name(r, pat, p, n) < 0)
            return ts__error(err, TS_ERR_VALUE, "axis %.*s is not used in transform",
                             (int)(n > 40 ? 40 : n), p);
    }

    /* Where lengths come from; at most one unknown per left group. */
    for (int i = 0; i < l->nax; i++) {
        const ax *a = &l->axes[i];
        e->left_kw[i] = a->kind == AX_NAME ? find_kw(e, pat + a->off, a->len) : -1;
    }
    for (int c = 0; c < l->ncomp; c++) {
        const comp *g = &l->comps[c];
        int unknown = 0;
        pos = 0;
        for (int i = g->first; i < g->first + g->count; i++) {
            const ax *a = &l->axes[i];
            if (a->kind == AX_NAME && e->left_kw[i] < 0) {
                append(list, sizeof list, &pos, "%s%.*s", unknown ? ", " : "",
                       (int)(a->len > 40 ? 40 : a->len), pat + a->off);
                unknown++;
            }
        }
        if (unknown > 1)
            return ts__fail(err, TS_ERR_SIZE, (int64_t)g->off + 1, -1,
                            "could not infer sizes for %s in %.*s at column %zu: give all "
                            "but one of them a size", list, (int)(g->len > 80 ? 80 : g->len),
                            pat + g->off, g->off + 1);
    }
    for (int i = 0; i < r->nax; i++) {
        const ax *a = &r->axes[i];
        e->right_src[i] = 0;
        if (a->kind != AX_NAME)
            continue;
        int li = find_name(l, pat, pat + a->off, a->len);
        e->right_src[i] = li >= 0 ? li : -1 - find_kw(e, pat + a->off, a->len);
    }
    return TS_OK;
}

void ts_einops_free(ts_einops *e)
{
    if (!e)
        return;
    free(e->pattern);
    free(e->kwnames);
    free(e->kw);
    free(e);
}

ts_status ts_einops_compile(ts_einops_op op, const char *pattern, const ts_axis_size *sizes,
                            size_t nsizes, ts_einops **out, ts_error *err)
{
    ts_status st;
    TS__ARG_NONNULL(err, out);
    *out = NULL;
    if (op != TS_EINOPS_REARRANGE && op != TS_EINOPS_REDUCE && op != TS_EINOPS_REPEAT)
        return ts__bad_arg(err, __func__, "op %d is not a ts_einops_op", (int)op);
    TS__ARG_NONNULL(err, pattern);
    TS__ARG_ARRAY(err, sizes, nsizes);
    size_t plen = strlen(pattern);
    if (plen > TS_EINOPS_MAX_PATTERN)
        return ts__error(err, TS_ERR_LIMIT, "%s pattern of %zu bytes: the limit is %d bytes",
                         op_name(op), plen, TS_EINOPS_MAX_PATTERN);
    if (nsizes > TS_EINOPS_MAX_AXES)
        return ts__error(err, TS_ERR_LIMIT, "%s: %zu axis sizes given, the limit is %d",
                         op_name(op), nsizes, TS_EINOPS_MAX_AXES);

    ts_einops *e = calloc(1, sizeof *e);
    size_t kwbytes = 0;
    for (size_t k = 0; k < nsizes; k++) {
        if (!sizes[k].name || sizes[k].name_len > TS_EINOPS_MAX_PATTERN) {
            ts_einops_free(e);
            return ts__error(err, TS_ERR_INVALID_ARG, "%s: axis size %zu has no valid name",
                             op_name(op), k);
        }
        kwbytes += sizes[k].name_len;
    }
    if (e) {
        e->pattern = malloc(plen + 1);
        e->kwnames = malloc(kwbytes + 1);
        e->kw = malloc((nsizes + 1) * sizeof *e->kw);
    }
    if (!e || !e->pattern || !e->kwnames || !e->kw) {
        ts_einops_free(e);
        return ts__error(err, TS_ERR_NOMEM, "%s: out of memory", op_name(op));
    }
    e->op = op;
    memcpy(e->pattern, pattern, plen + 1);
    e->plen = plen;
    size_t off = 0;
    for (size_t k = 0; k < nsizes; k++) {
        memcpy(e->kwnames + off, sizes[k].name, sizes[k].name_len);
        e->kw[k].off = off;
        e->kw[k].len = sizes[k].name_len;
        e->kw[k].size = sizes[k].size;
        e->kw[k].used = 0;
        off += sizes[k].name_len;
    }
    e->nkw = (int)nsizes;

    const char *arrow = strstr(pattern, "->");
    if (!arrow) {
        st = ts__error(err, TS_ERR_PARSE, "expected 'left -> right', the pattern has no '->'");
    } else if (strstr(arrow + 2, "->")) {
        size_t second = (size_t)(strstr(arrow + 2, "->") - pattern);
        st = ts__fail(err, TS_ERR_PARSE, (int64_t)second + 1, -1,
                      "a second '->' at column %zu: the pattern has one left and one right "
                      "side", second + 1);
    } else {
        size_t a = (size_t)(arrow - pattern);
        st = parse_side(&e->left, pattern, 0, a, 0, "on the left side", err);
        if (!st)
            st = parse_side(&e->right, pattern, a + 2, plen, 0, "on the right side", err);
        if (!st)
            st = check_rules(e, err);
    }
    if (st) {
        envelope(err, op_name(op), pattern, plen, NULL, e->kwnames, e->kw, e->nkw);
        ts_einops_free(e);
        return st;
    }
    *out = e;
    ts__ok(err);
    return TS_OK;
}

/* ---- apply -------------------------------------------------------------- */

static ts_status apply(const ts_einops *e, const ts_shape *in, ts_shape *out, ts_error *err)
{
    const side *l = &e->left, *r = &e->right;
    const char *pat = e->pattern;
    const int ndim = in->ndim;
    const int64_t *dims = ts_shape_dims(in);
    int64_t len[TS_EINOPS_MAX_AXES];
    int ell_first = 0, ell_ndim = 0;

    for (int i = 0; i < ndim; i++)
        if (dims[i] < 0)
            return ts__error(err, TS_ERR_VALUE, "dim %d is negative (%lld)", i,
                             (long long)dims[i]);
    if (l->has_ellipsis) {
        int others = l->ncomp - 1;
        if (ndim < others)
            return ts__error(err, TS_ERR_NDIM,
                             "wrong shape: expected >=%d dims, received a %d-dim shape",
                             others, ndim);
        ell_ndim = ndim - others;
    } else if (ndim != l->ncomp) {
        return ts__error(err, TS_ERR_NDIM, "wrong shape: expected %d dims, received a %d-dim shape",
                         l->ncomp, ndim);
    }

    /* Infer the lengths of the left axes, input dim by input dim. */
    int d = 0;
    for (int c = 0; c < l->ncomp; c++) {
        const comp *g = &l->comps[c];
        if (g->is_ellipsis) {
            ell_first = d;
            d += ell_ndim;
            continue;
        }
        int64_t length = dims[d], known = 1;
        int unknown = -1, overflow = 0;
        for (int i = g->first; i < g->first + g->count; i++) {
            const ax *a = &l->axes[i];
            int64_t v;
            if (a->kind == AX_ANON)
                v = a->value;
            else if (e->left_kw[i] >= 0)
                v = e->kw[e->left_kw[i]].size;
            else {
                unknown = i;
                continue;
            }
            len[i] = v;
            if (!overflow && ts__mul_overflow(known, v, &known))
                overflow = 1;
        }
        if (overflow && known != 0)
            return ts__error(err, TS_ERR_OVERFLOW,
                             "the lengths in %.*s (axis %d) multiply beyond int64",
                             (int)(g->len > 80 ? 80 : g->len), pat + g->off, d);
        if (unknown < 0) {
            if (length != known)
                return ts__error(err, TS_ERR_SIZE, "shape mismatch, %lld != %lld (axis %d, %.*s)",
                                 (long long)length, (long long)known, d,
                                 (int)(g->len > 80 ? 80 : g->len), pat + g->off);
        } else {
            if (known == 0)
                return ts__error(err, TS_ERR_SIZE,
                                 "can't infer the length of %.*s from axis %d of length %lld: "
                                 "the other lengths of %.*s multiply to 0",
                                 (int)l->axes[unknown].len, pat + l->axes[unknown].off, d,
                                 (long long)length, (int)(g->len > 80 ? 80 : g->len),
                                 pat + g->off);
            if (length % known != 0)
                return ts__error(err, TS_ERR_SIZE,
                                 "can't divide axis of length %lld into chunks of %lld (axis %d, "
                                 "%.*s)", (long long)length, (long long)known, d,
                                 (int)(g->len > 80 ? 80 : g->len), pat + g->off);
            len[unknown] = length / known;
        }
        d++;
    }

    /* Multiply out the right groups. */
    int64_t odims[TS_MAX_NDIM];
    int ond = 0;
    for (int c = 0; c < r->ncomp; c++) {
        const comp *g = &r->comps[c];
        if (g->is_ellipsis) {
            if (ond + ell_ndim > TS_MAX_NDIM)
                goto too_many;
            for (int k = 0; k < ell_ndim; k++)
                odims[ond++] = dims[ell_first + k];
            continue;
        }
        int64_t p = 1;
        int zero = 0, overflow = 0;
        for (int i = g->first; i < g->first + g->count; i++) {
            const ax *a = &r->axes[i];
            int64_t v = 1;
            if (a->kind == AX_ANON) {
                v = a->value;
            } else if (a->kind == AX_ELLIPSIS) {
                for (int k = 0; k < ell_ndim; k++) {
                    int64_t w = dims[ell_first + k];
                    if (w == 0)
                        zero = 1;
                    else if (!overflow && ts__mul_overflow(p, w, &p))
                        overflow = 1;
                }
                continue;
            } else {
                int src = e->right_src[i];
                v = src >= 0 ? len[src] : e->kw[-1 - src].size;
            }
            if (v == 0)
                zero = 1;
            else if (!overflow && ts__mul_overflow(p, v, &p))
                overflow = 1;
        }
        if (zero)
            p = 0;
        else if (overflow)
            return ts__error(err, TS_ERR_OVERFLOW,
                             "the length of output axis %d, %.*s, does not fit in int64", ond,
                             (int)(g->len > 80 ? 80 : g->len), pat + g->off);
        if (ond == TS_MAX_NDIM)
            goto too_many;
        odims[ond++] = p;
    }
    return ts_shape_assign(out, odims, ond, err);
too_many:
    return ts__error(err, TS_ERR_NDIM, "the output would have more than %d dims", TS_MAX_NDIM);
}

ts_status ts_einops_apply(const ts_einops *e, const ts_shape *in, ts_shape *out, ts_error *err)
{
    TS__ARG_NONNULL(err, e);
    TS__ARG_NONNULL(err, in);
    TS__ARG_NONNULL(err, out);
    ts_status st = apply(e, in, out, err);
    if (st) {
        envelope(err, op_name(e->op), e->pattern, e->plen, in, e->kwnames, e->kw, e->nkw);
        return st;
    }
    ts__ok(err);
    return TS_OK;
}

ts_status ts_einops_shape(ts_einops_op op, const char *pattern, const ts_shape *in,
                          const ts_axis_size *sizes, size_t nsizes, ts_shape *out, ts_error *err)
{
    if (op != TS_EINOPS_REARRANGE && op != TS_EINOPS_REDUCE && op != TS_EINOPS_REPEAT)
        return ts__bad_arg(err, __func__, "op %d is not a ts_einops_op", (int)op);
    TS__ARG_NONNULL(err, pattern);
    TS__ARG_NONNULL(err, in);
    TS__ARG_ARRAY(err, sizes, nsizes);
    TS__ARG_NONNULL(err, out);
    ts_einops *e = NULL;
    ts_status st = ts_einops_compile(op, pattern, sizes, nsizes, &e, err);
    if (st)
        return st;
    st = ts_einops_apply(e, in, out, err);
    ts_einops_free(e);
    return st;
}

/* ---- parse_shape -------------------------------------------------------- */

static ts_status parse_shape_impl(const char *pattern, const ts_shape *s, side *sd,
                                  ts_axis_size *out, size_t *count, ts_error *err)
{
    size_t plen = strlen(pattern);
    ts_status st;
    if (plen > TS_EINOPS_MAX_PATTERN)
        return ts__error(err, TS_ERR_LIMIT, "pattern of %zu bytes: the limit is %d bytes", plen,
                         TS_EINOPS_MAX_PATTERN);
    const char *arrow = strstr(pattern, "->");
    if (arrow)
        return ts__fail(err, TS_ERR_PARSE, (int64_t)(arrow - pattern) + 1, -1,
                        "'->' at column %zu: parse_shape takes one side, without '->'",
                        (size_t)(arrow - pattern) + 1);
    if ((st = parse_side(sd, pattern, 0, plen, 1, "in the pattern", err)) != TS_OK)
        return st;
    for (int c = 0; c < sd->ncomp; c++) {
        const comp *g = &sd->comps[c];
        if (g->count > 1)
            return ts__fail(err, TS_ERR_VALUE, (int64_t)g->off + 1, -1,
                            "can't parse shape with composite axes: %.*s at column %zu",
                            (int)(g->len > 80 ? 80 : g->len), pattern + g->off, g->off + 1);
        if (g->count == 1 && g->paren && sd->axes[g->first].kind == AX_ELLIPSIS)
            return ts__fail(err, TS_ERR_VALUE, (int64_t)g->off + 1, -1,
                            "ellipsis inside parentheses at column %zu is not allowed in "
                            "parse_shape", g->off + 1);
    }
    const int ndim = s->ndim;
    const int64_t *dims = ts_shape_dims(s);
    int ell_ndim = 0;
    if (sd->has_ellipsis) {
        if (ndim < sd->ncomp - 1)
            return ts__error(err, TS_ERR_NDIM,
                             "can't parse shape with this number of dimensions: the pattern "
                             "needs at least %d, the shape has %d", sd->ncomp - 1, ndim);
        ell_ndim = ndim - (sd->ncomp - 1);
    } else if (ndim != sd->ncomp) {
        return ts__error(err, TS_ERR_NDIM,
                         "can't parse shape with different number of dimensions: the pattern "
                         "has %d, the shape has %d", sd->ncomp, ndim);
    }
    int d = 0;
    size_t n = 0;
    for (int c = 0; c < sd->ncomp; c++) {
        const comp *g = &sd->comps[c];
        if (g->is_ellipsis) {
            d += ell_ndim;
            continue;
        }
        int64_t length = dims[d];
        if (g->count == 0) {
            if (length != 1)
                return ts__fail(err, TS_ERR_SIZE, (int64_t)g->off + 1, -1,
                                "length of axis is not 1: %.*s at column %zu stands for a dim of "
                                "1 but axis %d has length %lld",
                                (int)(g->len > 80 ? 80 : g->len), pattern + g->off, g->off + 1,
                                d, (long long)length);
        } else {
            const ax *a = &sd->axes[g->first];
            if (a->kind == AX_ANON && a->value != length)
                return ts__fail(err, TS_ERR_SIZE, (int64_t)a->off + 1, -1,
                                "length of anonymous axis does not match: %lld at column %zu, "
                                "but axis %d has length %lld", (long long)a->value, a->off + 1,
                                d, (long long)length);
            if (a->kind == AX_NAME) {
                out[n].name = pattern + a->off;
                out[n].name_len = a->len;
                out[n].size = length;
                n++;
            }
        }
        d++;
    }
    *count = n;
    return TS_OK;
}

ts_status ts_einops_parse_shape(const char *pattern, const ts_shape *s, ts_axis_size *out,
                                size_t *count, ts_error *err)
{
    TS__ARG_NONNULL(err, pattern);
    TS__ARG_NONNULL(err, s);
    TS__ARG_NONNULL(err, out);
    TS__ARG_NONNULL(err, count);
    side *sd = malloc(sizeof *sd);
    if (!sd)
        return ts__error(err, TS_ERR_NOMEM, "parse_shape: out of memory");
    ts_status st = parse_shape_impl(pattern, s, sd, out, count, err);
    free(sd);
    if (st) {
        envelope(err, "parse_shape", pattern, strlen(pattern), s, NULL, NULL, 0);
        return st;
    }
    ts__ok(err);
    return TS_OK;
}
