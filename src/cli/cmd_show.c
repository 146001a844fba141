/*
 * cmd_show.c - tshape show: the values of one array (ts_array_read), printed
 * as NumPy's print(a) prints them (numpy/core/arrayprint.py, defaults:
 * precision 8, threshold 1000, edgeitems 3, linewidth 75), or with --json as
 * nested lists of every value.
 *
 * What follows NumPy: summarisation with "..." past the threshold (only the
 * edge items are read, so a 1 GiB tensor costs a few reads); float
 * formatting (FloatingFormat: positional unless the largest magnitude is
 * >= 1e8 or the smallest non-zero < 1e-4 or their ratio > 1000; the
 * shortest digits that give back the value in its own precision, at most 8
 * after the point; positional values padded with spaces, scientific ones
 * with zeros, to a common width); ints right-aligned; bools " True"/"False";
 * complex as real part and signed imaginary part with 'j'; rows wrapped at
 * 75 columns with NumPy's hanging indent; 0-d arrays as the scalar.
 * bfloat16 and float8 values use their own precision for "shortest".
 */
#include "cli.h"
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const cli_option show_options[] = {
    CLI_ABOUT("Prints the values of array NAME of FILE as NumPy prints them (summarised\n"
              "with '...' past the threshold). NAME may be left out when the file holds\n"
              "one array. With --json, nested lists of every value (NaN and Inf as the\n"
              "strings \"nan\", \"inf\", \"-inf\"; complex as [re, im])."),
    CLI_VALUE("index", 'i', "I0,I1,...", "show a[I0,I1,...]: the sub-array at these leading\n"
                                         "indices (negative counts from the end)"),
    CLI_VALUE("edgeitems", 0, "N", "items shown at each edge when summarising (default 3)"),
    CLI_VALUE("threshold", 0, "N", "summarise arrays of more than N elements (default 1000)"),
    CLI_FLAG("recursive", 'r', "a FILE that is a folder without an index: its subfolders too"),
    CLI_REMOTE_OPTIONS,
    CLI_OPTIONS_END,
};

#define LINE_WIDTH 75

/* One value read from the file. */
typedef union value {
    double d;
    int64_t i;
    uint64_t u;
    double c[2];
} value;

typedef struct show {
    const ts_file *f;
    const ts_array *a;
    ts_value_kind kind;
    int ndim;
    int64_t dims[TS_MAX_NDIM];
    int64_t base;             /* flat index of the sub-array's first element */
    int64_t edge;
    int summarize;
    value *vals;              /* the displayed values, in display order */
    size_t nvals, cap;
    size_t next;              /* consumed while printing */
    /* float formats (complex: [0] real, [1] imaginary) */
    struct ffmt {
        int exp;              /* scientific */
        int pad_left, pad_right;
        int precision;        /* exp: digits after the point */
        int exp_size;
        int plus;             /* sign '+' (imaginary parts) */
    } ff[2];
    int width;                /* ints and bools */
    ts_error err;
    int failed;
} show;

/* ---- shortest digits ---------------------------------------------------------- */

/* v rounded to a float with mbits fraction bits and minimum normal exponent
 * emin (float32 23/-126, float16 10/-14, bfloat16 7/-126, ...). */
static double round_to(double v, int mbits, int emin)
{
    if (v == 0 || !isfinite(v))
        return v;
    int e;
    frexp(v, &e);
    e -= 1;
    if (e < emin)
        e = emin;
    double q = ldexp(1.0, e - mbits);
    return rint(v / q) * q;
}

/* The precision of the array's dtype: fraction bits and minimum exponent. */
static void precision_of(ts_dtype dt, int *mbits, int *emin)
{
    switch (dt) {
    case TS_DTYPE_FLOAT16: *mbits = 10; *emin = -14; return;
    case TS_DTYPE_BFLOAT16: *mbits = 7; *emin = -126; return;
    case TS_DTYPE_FLOAT32: case TS_DTYPE_COMPLEX64: *mbits = 23; *emin = -126; return;
    case TS_DTYPE_FLOAT8_E4M3FN: *mbits = 3; *emin = -6; return;
    case TS_DTYPE_FLOAT8_E4M3FNUZ: *mbits = 3; *emin = -7; return;
    case TS_DTYPE_FLOAT8_E5M2: *mbits = 2; *emin = -14; return;
    case TS_DTYPE_FLOAT8_E5M2FNUZ: *mbits = 2; *emin = -15; return;
    case TS_DTYPE_QUANTIZED: *mbits = 23; *emin = -126; return; /* dequantized to float32 */
    case TS_DTYPE_UNKNOWN: case TS_DTYPE_FLOAT64: case TS_DTYPE_UINT8: case TS_DTYPE_INT32:
    case TS_DTYPE_INT8: case TS_DTYPE_INT64: case TS_DTYPE_BOOL: case TS_DTYPE_INT16:
    case TS_DTYPE_UINT16: case TS_DTYPE_UINT32: case TS_DTYPE_UINT64: case TS_DTYPE_COMPLEX128:
    case TS_DTYPE_LONGDOUBLE: case TS_DTYPE_CLONGDOUBLE: case TS_DTYPE_FLOAT8_E8M0FNU:
    case TS_DTYPE_FLOAT6_E2M3FN: case TS_DTYPE_FLOAT6_E3M2FN: case TS_DTYPE_FLOAT4_E2M1FN:
    case TS_DTYPE_DATETIME64: case TS_DTYPE_TIMEDELTA64: case TS_DTYPE_BYTES:
    case TS_DTYPE_UNICODE: case TS_DTYPE_VOID: case TS_DTYPE_OBJECT: case TS_DTYPE_STRUCTURED:
    case TS_DTYPE_INT4: case TS_DTYPE_UINT4: case TS_DTYPE_INT2: case TS_DTYPE_UINT2:
        break;
    }
    *mbits = 52;
    *emin = -1022;
}

typedef struct prec {
    int mbits, emin;
} prec;

static int gives_back(const char *s, double v, const prec *p)
{
    double r = strtod(s, NULL);
    return (p->mbits >= 52 ? r : round_to(r, p->mbits, p->emin)) == v;
}

/* Positional digits of v: the fewest (<= max) after the point that give v
 * back, else v rounded to max digits; "1." style (trailing '.' kept). */
static void positional(double v, const prec *p, int max, int plus, char *buf, size_t cap)
{
    int d = 0;
    for (; d <= max; d++) {
        snprintf(buf, cap, plus ? "%+.*f" : "%.*f", d, v);
        if (gives_back(buf, v, p))
            break;
    }
    if (d > max)
        snprintf(buf, cap, plus ? "%+.*f" : "%.*f", max, v);
    /* trim trailing zeros of the fraction, keep the point */
    if (!strchr(buf, '.'))
        strncat(buf, ".", cap - strlen(buf) - 1);
    size_t n = strlen(buf);
    while (n > 0 && buf[n - 1] == '0' && strchr(buf, '.') < buf + n - 1)
        buf[--n] = '\0';
}

/* Scientific: mantissa digits after the point (the fewest <= max that give
 * v back), returned; the text in buf as C's %e. */
static int scientific_digits(double v, const prec *p, int max, char *buf, size_t cap)
{
    int d = 0;
    for (; d <= max; d++) {
        snprintf(buf, cap, "%.*e", d, v);
        if (gives_back(buf, v, p))
            return d;
    }
    snprintf(buf, cap, "%.*e", max, v);
    /* trailing zeros do not count */
    char *e = strchr(buf, 'e');
    int digits = max;
    while (digits > 0 && e && e[-1] == '0') {
        e--;
        digits--;
    }
    return digits;
}

/* ---- float format (FloatingFormat.fillFormat) ---------------------------------- */

static void fill_float(struct ffmt *f, const double *x, size_t n, size_t stride,
                       const prec *p, int plus)
{
    memset(f, 0, sizeof *f);
    f->plus = plus;
    double mx = 0, mn = INFINITY;
    int any_finite = 0, any_nonfinite = 0, neg_inf = 0;
    for (size_t i = 0; i < n; i++) {
        double v = x[i * stride];
        if (!isfinite(v)) {
            any_nonfinite = 1;
            neg_inf |= isinf(v) && v < 0;
            continue;
        }
        any_finite = 1;
        double a = fabs(v);
        if (a != 0) {
            mx = a > mx ? a : mx;
            mn = a < mn ? a : mn;
        }
    }
    if (mn != INFINITY)
        f->exp = mx >= 1e8 || mn < 0.0001 || mx / mn > 1000.;
    char buf[512];
    if (any_finite && f->exp) {
        int prec_max = 0, exp_max = 0, left = 0;
        for (size_t i = 0; i < n; i++) {
            double v = x[i * stride];
            if (!isfinite(v))
                continue;
            int d = scientific_digits(v, p, 8, buf, sizeof buf);
            prec_max = d > prec_max ? d : prec_max;
            char *e = strchr(buf, 'e');
            int ed = e ? (int)strlen(e + 2) : 2;
            exp_max = ed > exp_max ? ed : exp_max;
            int l = (signbit(v) || plus) ? 2 : 1;
            left = l > left ? l : left;
        }
        f->precision = prec_max;
        f->exp_size = exp_max;
        f->pad_left = left;
        f->pad_right = f->exp_size + 2 + f->precision;
    } else if (any_finite) {
        int left = 0, right = 0;
        for (size_t i = 0; i < n; i++) {
            double v = x[i * stride];
            if (!isfinite(v))
                continue;
            positional(v, p, 8, plus, buf, sizeof buf);
            char *dot = strchr(buf, '.');
            int l = (int)(dot - buf), r = (int)strlen(dot + 1);
            left = l > left ? l : left;
            right = r > right ? r : right;
        }
        f->pad_left = left;
        f->pad_right = right;
    }
    if (any_nonfinite) {
        int neg = plus || neg_inf;
        int offset = f->pad_right + 1;
        int nanlen = 3, inflen = 3 + neg;
        if (nanlen - offset > f->pad_left)
            f->pad_left = nanlen - offset;
        if (inflen - offset > f->pad_left)
            f->pad_left = inflen - offset;
    }
}

/* One float with the format: into buf. */
static void format_float(const struct ffmt *f, double v, const prec *p, char *buf, size_t cap)
{
    char t[512];
    int width = f->pad_left + f->pad_right + 1;
    if (!isfinite(v)) {
        const char *s = v != v ? (f->plus ? "+nan" : "nan")
                                : v < 0 ? "-inf" : (f->plus ? "+inf" : "inf");
        snprintf(buf, cap, "%*s", width, s);
        return;
    }
    if (f->exp) {
        /* mantissa with exactly precision digits, exponent with exp_size */
        snprintf(t, sizeof t, "%.*e", f->precision, v);
        char *e = strchr(t, 'e');
        *e = '\0';
        int ex = atoi(e + 1);
        char mant[600];
        snprintf(mant, sizeof mant, "%s%s%s", f->plus && v >= 0 ? "+" : "", t,
                 f->precision == 0 ? "." : "");
        char *dot = strchr(mant, '.');
        int l = (int)(dot - mant);
        snprintf(buf, cap, "%*s%s%se%c%0*d", f->pad_left - l, "", mant, "", ex < 0 ? '-' : '+',
                 f->exp_size, ex < 0 ? -ex : ex);
        return;
    }
    positional(v, p, 8, f->plus, t, sizeof t);
    char *dot = strchr(t, '.');
    int l = (int)(dot - t), r = (int)strlen(dot + 1);
    snprintf(buf, cap, "%*s%s%*s", f->pad_left - l, "", t, f->pad_right - r, "");
}

/* ---- reading the displayed values ---------------------------------------------- */

static int push_values(show *s, int64_t flat, int64_t n)
{
    if (n <= 0)
        return 0;
    if (s->nvals + (size_t)n > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 256;
        while (cap < s->nvals + (size_t)n)
            cap *= 2;
        value *p = realloc(s->vals, cap * sizeof *p);
        if (!p) {
            cli_fail(&s->err, TS_ERR_NOMEM, "out of memory");
            return -1;
        }
        s->vals = p;
        s->cap = cap;
    }
    ts_dtype as = s->kind == TS_VALUE_INT || s->kind == TS_VALUE_BOOL ? TS_DTYPE_INT64
                  : s->kind == TS_VALUE_UINT                         ? TS_DTYPE_UINT64
                  : s->kind == TS_VALUE_COMPLEX                      ? TS_DTYPE_COMPLEX128
                                                                     : TS_DTYPE_FLOAT64;
    value *dst = s->vals + s->nvals;
    if (as == TS_DTYPE_COMPLEX128) {
        double *tmp = malloc((size_t)n * 2 * sizeof *tmp);
        if (!tmp || ts_array_read(s->f, s->a, s->base + flat, n, as, tmp, &s->err) != TS_OK) {
            if (!tmp)
                cli_fail(&s->err, TS_ERR_NOMEM, "out of memory");
            free(tmp);
            return -1;
        }
        for (int64_t k = 0; k < n; k++) {
            dst[k].c[0] = tmp[2 * k];
            dst[k].c[1] = tmp[2 * k + 1];
        }
        free(tmp);
    } else {
        /* value is 16 bytes: read into a packed buffer, then spread */
        int64_t *tmp = malloc((size_t)n * sizeof *tmp);
        if (!tmp || ts_array_read(s->f, s->a, s->base + flat, n, as, tmp, &s->err) != TS_OK) {
            if (!tmp)
                cli_fail(&s->err, TS_ERR_NOMEM, "out of memory");
            free(tmp);
            return -1;
        }
        for (int64_t k = 0; k < n; k++)
            memcpy(&dst[k], &tmp[k], sizeof tmp[k]);
        free(tmp);
    }
    s->nvals += (size_t)n;
    return 0;
}

/* Visits the displayed elements of axes axis.. from flat offset `flat`. */
static int gather(show *s, int axis, int64_t flat, int64_t step)
{
    int64_t n = s->dims[axis], inner = step / (n ? n : 1);
    int sum = s->summarize && 2 * s->edge < n;
    int64_t lead = sum ? s->edge : n, trail_from = sum ? n - s->edge : n;
    if (axis == s->ndim - 1)
        return push_values(s, flat, lead) || (sum && push_values(s, flat + trail_from, s->edge));
    for (int64_t i = 0; i < lead; i++)
        if (gather(s, axis + 1, flat + i * inner, inner))
            return -1;
    for (int64_t i = sum ? trail_from : n; i < n; i++)
        if (gather(s, axis + 1, flat + i * inner, inner))
            return -1;
    return 0;
}

/* ---- printing --------------------------------------------------------------------- */

typedef struct sbuf {
    char *p;
    size_t n, cap;
} sbuf;

static void sb_add(sbuf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 256;
        while (cap < b->n + n + 1)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p)
            return;
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}
static void sb_str(sbuf *b, const char *s) { sb_add(b, s, strlen(s)); }

static void format_value(show *s, const value *v, char *buf, size_t cap)
{
    prec p;
    precision_of(s->a->dtype, &p.mbits, &p.emin);
    switch (s->kind) {
    case TS_VALUE_BOOL:
        snprintf(buf, cap, "%*s", s->width, v->i ? "True" : "False");
        return;
    case TS_VALUE_INT:
        snprintf(buf, cap, "%*lld", s->width, (long long)v->i);
        return;
    case TS_VALUE_UINT:
        snprintf(buf, cap, "%*llu", s->width, (unsigned long long)v->u);
        return;
    case TS_VALUE_COMPLEX: {
        char r[256], im[256];
        format_float(&s->ff[0], v->c[0], &p, r, sizeof r);
        format_float(&s->ff[1], v->c[1], &p, im, sizeof im);
        size_t sp = strlen(im);
        while (sp > 0 && im[sp - 1] == ' ')
            sp--;
        snprintf(buf, cap, "%s%.*sj%s", r, (int)sp, im, im + sp);
        return;
    }
    case TS_VALUE_FLOAT:
    case TS_VALUE_NONE:
        format_float(&s->ff[0], v->d, &p, buf, cap);
        return;
    }
}

/* _extendLine: wrap before `word` when it would pass the width. */
static void extend_line(sbuf *out, sbuf *line, const char *word, size_t width,
                        const char *indent)
{
    int wrap = line->n + strlen(word) > width && line->n > strlen(indent);
    if (wrap) {
        size_t n = line->n;
        while (n > 0 && line->p[n - 1] == ' ')
            n--;
        sb_add(out, line->p, n);
        sb_str(out, "\n");
        line->n = 0;
        sb_str(line, indent);
    }
    sb_str(line, word);
}

/* _formatArray's recurser: appends the text of axes axis.. to out. */
static void recurse(show *s, int axis, const char *indent, size_t width, sbuf *out)
{
    int64_t n = s->dims[axis];
    int sum = s->summarize && 2 * s->edge < n;
    int64_t lead = sum ? s->edge : 0, trail = sum ? s->edge : n;
    char next_indent[TS_MAX_NDIM + 2];
    snprintf(next_indent, sizeof next_indent, "%s ", indent);
    size_t next_width = width - 1;
    sbuf body = {NULL, 0, 0};
    char word[1024];
    if (axis == s->ndim - 1) {
        size_t elem_width = width - 1; /* max(len(' '.rstrip()), len(']')) */
        sbuf line = {NULL, 0, 0};
        sb_str(&line, indent);
        for (int64_t i = 0; i < lead; i++) {
            format_value(s, &s->vals[s->next++], word, sizeof word);
            extend_line(&body, &line, word, elem_width, indent);
            sb_str(&line, " ");
        }
        if (sum) {
            extend_line(&body, &line, "...", elem_width, indent);
            sb_str(&line, " ");
        }
        for (int64_t i = trail; i > 1; i--) {
            format_value(s, &s->vals[s->next++], word, sizeof word);
            extend_line(&body, &line, word, elem_width, indent);
            sb_str(&line, " ");
        }
        if (trail > 0) {
            format_value(s, &s->vals[s->next++], word, sizeof word);
            extend_line(&body, &line, word, elem_width, indent);
        }
        if (line.p)
            sb_add(&body, line.p, line.n);
        free(line.p);
    } else {
        int axes_left = s->ndim - axis;
        char sep[TS_MAX_NDIM + 2];
        memset(sep, '\n', (size_t)(axes_left - 1));
        sep[axes_left - 1] = '\0';
        for (int64_t i = 0; i < lead; i++) {
            sb_str(&body, indent);
            recurse(s, axis + 1, next_indent, next_width, &body);
            sb_str(&body, sep);
        }
        if (sum) {
            sb_str(&body, indent);
            sb_str(&body, "...");
            sb_str(&body, sep);
        }
        for (int64_t i = trail; i > 1; i--) {
            sb_str(&body, indent);
            recurse(s, axis + 1, next_indent, next_width, &body);
            sb_str(&body, sep);
        }
        if (trail > 0) {
            sb_str(&body, indent);
            recurse(s, axis + 1, next_indent, next_width, &body);
        }
    }
    sb_str(out, "[");
    size_t skip = strlen(indent);
    if (body.p && body.n >= skip)
        sb_add(out, body.p + skip, body.n - skip);
    sb_str(out, "]");
    free(body.p);
}

/* Widths and float formats from every displayed value. */
static void fill_formats(show *s)
{
    prec p;
    precision_of(s->a->dtype, &p.mbits, &p.emin);
    s->width = 0;
    for (size_t i = 0; i < s->nvals; i++) {
        char buf[64];
        int w = 0;
        if (s->kind == TS_VALUE_BOOL)
            w = s->vals[i].i ? 4 : 5;
        else if (s->kind == TS_VALUE_INT)
            w = snprintf(buf, sizeof buf, "%lld", (long long)s->vals[i].i);
        else if (s->kind == TS_VALUE_UINT)
            w = snprintf(buf, sizeof buf, "%llu", (unsigned long long)s->vals[i].u);
        s->width = w > s->width ? w : s->width;
    }
    if (s->kind == TS_VALUE_FLOAT)
        fill_float(&s->ff[0], &s->vals[0].d, s->nvals, sizeof(value) / sizeof(double), &p, 0);
    if (s->kind == TS_VALUE_COMPLEX) {
        fill_float(&s->ff[0], &s->vals[0].c[0], s->nvals, sizeof(value) / sizeof(double), &p, 0);
        fill_float(&s->ff[1], &s->vals[0].c[1], s->nvals, sizeof(value) / sizeof(double), &p, 1);
    }
}

/* A 0-d value as NumPy's scalar str: Python's repr rules for floats. */
static void scalar_text(show *s, const value *v, char *buf, size_t cap)
{
    prec p;
    precision_of(s->a->dtype, &p.mbits, &p.emin);
    if (s->kind == TS_VALUE_BOOL || s->kind == TS_VALUE_INT || s->kind == TS_VALUE_UINT) {
        int saved = s->width;
        s->width = 0;
        format_value(s, v, buf, cap);
        s->width = saved;
        return;
    }
    double parts[2] = {s->kind == TS_VALUE_COMPLEX ? v->c[0] : v->d,
                       s->kind == TS_VALUE_COMPLEX ? v->c[1] : 0};
    char t[2][120];
    for (int k = 0; k < (s->kind == TS_VALUE_COMPLEX ? 2 : 1); k++) {
        double x = parts[k];
        if (x != x) {
            snprintf(t[k], sizeof t[k], "nan");
            continue;
        }
        if (isinf(x)) {
            snprintf(t[k], sizeof t[k], x < 0 ? "-inf" : "inf");
            continue;
        }
        double a = fabs(x);
        if (a != 0 && (a < 1e-4 || a >= 1e16)) {
            int d;
            for (d = 0; d < 17; d++) {
                snprintf(t[k], sizeof t[k], "%.*e", d, x);
                if (gives_back(t[k], x, &p))
                    break;
            }
            /* Python: 1e-05, 1.5e+16 */
            char *e = strchr(t[k], 'e'), mant[64];
            snprintf(mant, sizeof mant, "%.*s", (int)(e - t[k]), t[k]);
            int ex = atoi(e + 1);
            snprintf(t[k], sizeof t[k], "%se%c%02d", mant, ex < 0 ? '-' : '+', ex < 0 ? -ex : ex);
        } else {
            positional(x, &p, 25, 0, t[k], sizeof t[k]);
            if (t[k][strlen(t[k]) - 1] == '.')
                strncat(t[k], "0", sizeof t[k] - strlen(t[k]) - 1);
        }
    }
    if (s->kind == TS_VALUE_COMPLEX)
        snprintf(buf, cap, "(%s%s%sj)", t[0], t[1][0] == '-' || t[1][0] == 'n' ? "" : "+",
                 t[1]);
    else
        snprintf(buf, cap, "%s", t[0]);
}

/* ---- JSON: every value, streamed ------------------------------------------------- */

static void json_number(char *buf, size_t cap, double v, const prec *p)
{
    if (v != v) {
        snprintf(buf, cap, "\"nan\"");
    } else if (isinf(v)) {
        snprintf(buf, cap, v < 0 ? "\"-inf\"" : "\"inf\"");
    } else {
        for (int d = 1; d <= 17; d++) {
            snprintf(buf, cap, "%.*g", d, v);
            if (gives_back(buf, v, p))
                return;
        }
    }
}

static void empty_json(cli_ctx *ctx, const int64_t *dims, int ndim)
{
    out_char(ctx, '[');
    for (int64_t i = 0; ndim > 1 && i < dims[0] && !ctx->out.closed; i++) {
        if (i)
            out_char(ctx, ',');
        empty_json(ctx, dims + 1, ndim - 1);
    }
    out_char(ctx, ']');
}

static int show_json(cli_ctx *ctx, show *s, int64_t size)
{
    prec p;
    precision_of(s->a->dtype, &p.mbits, &p.emin);
    int64_t suffix[TS_MAX_NDIM + 1];
    suffix[s->ndim] = 1;
    for (int k = s->ndim - 1; k >= 0; k--)
        suffix[k] = suffix[k + 1] * s->dims[k];
    if (size == 0) {
        /* a.tolist(): dims[0] lists of dims[1] lists ... down to a 0 dim */
        empty_json(ctx, s->dims, s->ndim);
        out_char(ctx, '\n');
        return CLI_OK;
    }
    for (int64_t at = 0; at < size && !ctx->out.closed;) {
        int64_t n = size - at < 4096 ? size - at : 4096;
        s->nvals = 0;
        if (push_values(s, at, n))
            return CLI_ERROR;
        for (int64_t k = 0; k < n; k++) {
            int64_t i = at + k;
            int opens = 0, closes = 0;
            for (int d = s->ndim - 1; d >= 0 && i % suffix[d] == 0; d--)
                opens++;
            for (int d = s->ndim - 1; d >= 0 && (i + 1) % suffix[d] == 0; d--)
                closes++;
            if (i > 0 && opens < s->ndim)
                out_char(ctx, ',');
            for (int j = 0; j < opens && s->ndim > 0; j++)
                out_char(ctx, '[');
            char buf[128], b2[128];
            const value *v = &s->vals[k];
            switch (s->kind) {
            case TS_VALUE_BOOL: out_str(ctx, v->i ? "true" : "false"); break;
            case TS_VALUE_INT: out_printf(ctx, "%lld", (long long)v->i); break;
            case TS_VALUE_UINT: out_printf(ctx, "%llu", (unsigned long long)v->u); break;
            case TS_VALUE_COMPLEX:
                json_number(buf, sizeof buf, v->c[0], &p);
                json_number(b2, sizeof b2, v->c[1], &p);
                out_printf(ctx, "[%s,%s]", buf, b2);
                break;
            case TS_VALUE_FLOAT:
            case TS_VALUE_NONE:
                json_number(buf, sizeof buf, v->d, &p);
                out_str(ctx, buf);
                break;
            }
            for (int j = 0; j < closes && s->ndim > 0; j++)
                out_char(ctx, ']');
        }
        at += n;
    }
    out_char(ctx, '\n');
    return CLI_OK;
}

/* ---- the command ---------------------------------------------------------------------- */

static int positive_opt(cli_ctx *ctx, const cli_args *args, const char *name, int64_t def,
                        int64_t *out)
{
    const char *v = cli_opt(args, name);
    *out = def;
    if (!v)
        return CLI_OK;
    char what[32];
    snprintf(what, sizeof what, "--%s", name);
    if (cli_arg_i64(ctx, v, what, out))
        return CLI_ERROR;
    if (*out < 0)
        return cli_usage(ctx, "--%s must not be negative, not %lld", name, (long long)*out);
    return CLI_OK;
}

/* The i-th tensor's name in the model, for suggestions. */
static const char *array_name(void *m, size_t i)
{
    return ts_model_array_name(m, i);
}

int cmd_show(cli_ctx *ctx, const cli_args *args)
{
    int64_t edge, threshold;
    if (positive_opt(ctx, args, "edgeitems", 3, &edge) ||
        positive_opt(ctx, args, "threshold", 1000, &threshold))
        return CLI_ERROR;
    if (args->nops == 0)
        return cli_usage(ctx, "missing FILE");
    if (args->nops > 2)
        return cli_usage(ctx, "expected FILE [NAME], got %d operands", args->nops);
    const char *path = args->ops[0];
    ts_open_options oo;
    const ts_open_options *open = cli_open_options(ctx, args, &oo);
    if (!open)
        return CLI_ERROR;
    ts_error err;
    if (cli_no_stdin(ctx, path) != CLI_OK)
        return CLI_ERROR;
    /* a file, or a folder or index read as one model: NAME is the tensor's
     * name in the model (an unnamed array: its file's stem) */
    ts_model *m = cli_model_open(ctx, path, open, cli_flag(args, "recursive") > 0);
    if (!m)
        return CLI_ERROR;
    show s;
    memset(&s, 0, sizeof s);
    char q[256];
    size_t member = 0;
    if (args->nops == 2) {
        for (size_t i = 0; i < ts_model_count(m) && !s.a; i++)
            if (strcmp(ts_model_array(m, i, NULL)->name, args->ops[1]) == 0 ||
                strcmp(ts_model_array_name(m, i), args->ops[1]) == 0)
                s.a = ts_model_array(m, i, &member);
        if (!s.a) {
            char hint[1024];
            cli_suggest_text(args->ops[1], array_name, m, ts_model_count(m), hint, sizeof hint);
            ts_model_close(m);
            return cli_error(ctx, path, "no array named '%s'%s",
                             cli_quote(args->ops[1], strlen(args->ops[1]), q, sizeof q), hint);
        }
    } else if (ts_model_count(m) == 1) {
        s.a = ts_model_array(m, 0, &member);
    } else {
        size_t n = ts_model_count(m);
        ts_model_close(m);
        return cli_usage(ctx, "%s holds %zu arrays: name one", cli_quote(path, strlen(path), q,
                                                                      sizeof q), n);
    }
    s.f = ts_model_file(m, member);
    const ts_array *a = s.a;
    s.kind = ts_array_value_kind(a);
    s.ndim = ts_shape_ndim(&a->shape);
    memcpy(s.dims, ts_shape_dims(&a->shape), (size_t)s.ndim * sizeof(int64_t));
    s.edge = edge;
    int status = CLI_OK;
    /* --index: the leading indices select a sub-array, a contiguous flat range */
    const char *iv = cli_opt(args, "index");
    if (iv) {
        int64_t idx[TS_MAX_NDIM];
        int n = 0;
        if (cli_arg_ints(ctx, iv, "--index", idx, &n)) {
            ts_model_close(m);
            return CLI_ERROR;
        }
        if (n > s.ndim) {
            status = cli_error(ctx, path, "--index has %d indices but array '%s' has %d dims",
                               n, cli_quote(a->name, strlen(a->name), q, sizeof q), s.ndim);
            ts_model_close(m);
            return status;
        }
        int64_t flat = 0;
        for (int k = 0; k < n; k++) {
            int64_t i = idx[k] < 0 ? idx[k] + s.dims[k] : idx[k];
            if (i < 0 || i >= s.dims[k]) {
                status = cli_error(ctx, path, "index %lld is out of bounds for axis %d with "
                                   "size %lld", (long long)idx[k], k, (long long)s.dims[k]);
                ts_model_close(m);
                return status;
            }
            flat = flat * s.dims[k] + i;
        }
        for (int k = n; k < s.ndim; k++)
            flat *= s.dims[k];
        s.base = flat;
        memmove(s.dims, s.dims + n, (size_t)(s.ndim - n) * sizeof(int64_t));
        s.ndim -= n;
    }
    int64_t size = 1;
    for (int k = 0; k < s.ndim; k++)
        size *= s.dims[k];
    if (s.kind == TS_VALUE_NONE) {
        /* the library names the array and the dtype */
        ts_stats st;
        ts_array_stats(s.f, a, NULL, &st, &err);
        status = cli_error(ctx, path, "%s", err.message);
        ts_model_close(m);
        return status;
    }
    if (a->null_shape) {
        /* h5py reads it as h5py.Empty: nothing to show */
        if (ctx->json)
            out_str(ctx, "null\n");
        else
            out_printf(ctx, "no shape, no values (an HDF5 null dataspace, h5py.Empty of %s)\n",
                       a->dtype_name);
    } else if (ctx->json) {
        status = show_json(ctx, &s, size);
    } else if (s.ndim == 0) {
        if (push_values(&s, 0, 1) == 0) {
            char buf[256];
            scalar_text(&s, &s.vals[0], buf, sizeof buf);
            out_str(ctx, buf);
            out_char(ctx, '\n');
        } else {
            status = CLI_ERROR;
        }
    } else if (size == 0) {
        out_str(ctx, "[]\n");
    } else {
        s.summarize = size > threshold;
        if (gather(&s, 0, 0, size) == 0) {
            fill_formats(&s);
            sbuf text = {NULL, 0, 0};
            recurse(&s, 0, " ", LINE_WIDTH, &text);
            if (text.p)
                out_write(ctx, text.p, text.n);
            out_char(ctx, '\n');
            free(text.p);
        } else {
            status = CLI_ERROR;
        }
    }
    if (status == CLI_ERROR)
        cli_error(ctx, path, "%s", s.err.message);
    free(s.vals);
    ts_model_close(m);
    return status;
}
