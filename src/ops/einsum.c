/*
 * einsum.c - output shapes of NumPy einsum and of TensorWrapper's labelled
 * shape composition.
 *
 * einsum follows PyArray_EinsteinSum (numpy/core/src/multiarray/einsum.c.src,
 * the path numpy.einsum takes with optimize=False): operand terms end at ','
 * or '-', spaces are ignored, "..." marks broadcast dims, the implicit output
 * is the broadcast dims then the labels seen exactly once in ASCII order, a
 * label repeated within one operand needs equal dims (get_combined_dims_view)
 * and across operands dims broadcast as in NpyIter (equal, or 1). Messages use
 * torch's clearer wording ("einsum(): subscript j has size 4 for operand 1
 * which does not broadcast with previously seen size 3") and add columns.
 *
 * Labelled composition follows TensorWrapper's shape_from_labels.hpp and
 * IndexedShape design, plus the extent check its design promised.
 */
#include "../core/internal.h"

#include <stdio.h>
#include <stdlib.h>

static int is_letter(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* "'x'" or "byte 0xNN" for a character in a message. */
static const char *show_char(char c, char *buf, size_t cap)
{
    unsigned char u = (unsigned char)c;
    if (u < 0x20 || u >= 0x7f)
        snprintf(buf, cap, "byte 0x%02x", u);
    else
        snprintf(buf, cap, "'%c'", c);
    return buf;
}

/* Per-label state over all operands, indexed by the ASCII code. */
typedef struct label_state {
    int64_t size[128];
    int count[128];        /* occurrences in all inputs */
    int first_op[128];     /* -1: not seen yet */
} label_state;

/* Combines dim d of operand iop into label c (NpyIter broadcasting). */
static ts_status combine_label(label_state *ls, char c, int64_t d, int iop, ts_error *err)
{
    int k = (unsigned char)c;
    if (ls->first_op[k] < 0) {
        ls->first_op[k] = iop;
        ls->size[k] = d;
        return TS_OK;
    }
    if (ls->size[k] == d || d == 1)
        return TS_OK;
    if (ls->size[k] == 1) {
        ls->size[k] = d;
        return TS_OK;
    }
    return ts__error(err, TS_ERR_BROADCAST,
                     "einsum(): subscript %c has size %lld for operand %d which does not "
                     "broadcast with previously seen size %lld",
                     c, (long long)d, iop, (long long)ls->size[k]);
}

/*
 * Broadcast dims accumulated right-aligned: rb[0] is the last dim. Combines
 * the n dims d[0..n-1] (left to right) of operand iop.
 */
static ts_status combine_ellipsis(int64_t *rb, int *nrb, const int64_t *d, int n, int iop,
                                  ts_error *err)
{
    for (int r = 0; r < n; r++) {
        int64_t v = d[n - 1 - r];
        if (r >= *nrb) {
            rb[r] = v;
            continue;
        }
        if (rb[r] == v || v == 1)
            continue;
        if (rb[r] == 1) {
            rb[r] = v;
            continue;
        }
        return ts__error(err, TS_ERR_BROADCAST,
                         "einsum(): dim %d of the ellipsis of operand %d has size %lld "
                         "which does not broadcast with previously seen size %lld",
                         n - 1 - r, iop, (long long)v, (long long)rb[r]);
    }
    if (n > *nrb)
        *nrb = n;
    return TS_OK;
}

/*
 * Checks that spec[i..] starts a proper "..." (NumPy parse_*_subscripts),
 * given the end of the term and whether one was seen.
 */
static ts_status check_ellipsis(const char *spec, size_t i, size_t term_end, int seen,
                                const char *where, ts_error *err)
{
    if (seen)
        return ts__fail(err, TS_ERR_PARSE, (int64_t)i + 1, -1,
                        "einsum(): a second ellipsis at column %zu in %s: at most one "
                        "'...' is allowed", i + 1, where);
    if (i + 2 >= term_end || spec[i + 1] != '.' || spec[i + 2] != '.')
        return ts__fail(err, TS_ERR_PARSE, (int64_t)i + 1, -1,
                        "einsum(): '.' at column %zu in %s is not part of an ellipsis "
                        "'...'", i + 1, where);
    return TS_OK;
}

/* Parses the term [start, stop) of operand iop and folds its dims in. */
static ts_status parse_operand(const char *spec, size_t start, size_t stop, int iop,
                               const ts_shape *op, label_state *ls, int64_t *rb, int *nrb,
                               ts_error *err)
{
    char labels[TS_MAX_NDIM];
    int nl = 0, ell = -1;
    const int ndim = op->ndim;
    const int64_t *dims = ts_shape_dims(op);
    char where[32], cbuf[16], sbuf[TS__SHAPE_STR_MAX], tbuf[96];
    ts_status st;

    snprintf(where, sizeof where, "operand %d", iop);
    for (size_t i = start; i < stop; i++) {
        char c = spec[i];
        if (is_letter(c)) {
            if (nl >= ndim)
                return ts__fail(err, TS_ERR_NDIM, (int64_t)i + 1, -1,
                                "einsum(): too many subscripts for operand %d: '%s' names "
                                "more than the %d dims of %s (at column %zu)",
                                iop,
                                ts__printable(spec + start, stop - start, tbuf, sizeof tbuf),
                                ndim,
                                ts__shape_str(op, sbuf, sizeof sbuf), i + 1);
            labels[nl++] = c;
        } else if (c == '.') {
            if ((st = check_ellipsis(spec, i, stop, ell >= 0, where, err)) != TS_OK)
                return st;
            ell = nl;
            i += 2;
        } else if (!ts__is_ws(c, TS__WS_SP)) { /* NumPy skips spaces only */
            return ts__fail(err, TS_ERR_PARSE, (int64_t)i + 1, -1,
                            "einsum(): invalid subscript %s at column %zu, subscripts must "
                            "be letters [a-zA-Z]", show_char(c, cbuf, sizeof cbuf), i + 1);
        }
    }
    if (ell < 0 && nl != ndim)
        return ts__fail(err, TS_ERR_NDIM, (int64_t)start + 1, -1,
                        "einsum(): operand %d has %d dims %s but the equation gives it %d "
                        "subscript%s '%s' and no ellipsis '...'",
                        iop, ndim, ts__shape_str(op, sbuf, sizeof sbuf), nl,
                        nl == 1 ? "" : "s",
                        ts__printable(spec + start, stop - start, tbuf, sizeof tbuf));
    for (int i = 0; i < ndim; i++)
        if (dims[i] < 0)
            return ts__error(err, TS_ERR_VALUE,
                             "einsum(): operand %d %s has a negative dim", iop,
                             ts__shape_str(op, sbuf, sizeof sbuf));

    /* Labels before the ellipsis map to the leading dims, the others to the
     * trailing ones; the ellipsis takes what is left. */
    int nb = ndim - nl; /* dims under the ellipsis */
    int64_t ldim[TS_MAX_NDIM];
    for (int k = 0; k < nl; k++)
        ldim[k] = dims[ell < 0 || k < ell ? k : k + nb];
    for (int k = 0; k < nl; k++) {
        for (int m = 0; m < k; m++) {
            if (labels[m] == labels[k] && ldim[m] != ldim[k])
                return ts__error(err, TS_ERR_SIZE,
                                 "einsum(): subscript %c is repeated for operand %d but the "
                                 "sizes don't match, %lld != %lld",
                                 labels[k], iop, (long long)ldim[m], (long long)ldim[k]);
        }
        ls->count[(unsigned char)labels[k]]++;
        if ((st = combine_label(ls, labels[k], ldim[k], iop, err)) != TS_OK)
            return st;
    }
    if (ell >= 0 && nb > 0)
        return combine_ellipsis(rb, nrb, dims + ell, nb, iop, err);
    return TS_OK;
}

ts_status ts_einsum_shape(const char *spec, const ts_shape *operands, size_t noperands,
                          ts_shape *out, ts_error *err)
{
    label_state ls;
    int64_t rb[TS_MAX_NDIM];
    int nrb = 0;
    ts_status st;
    char cbuf[16], tbuf[208];

    if (!spec)
        return ts__bad_arg(err, __func__, "subscripts is NULL");
    TS__ARG_ARRAY(err, operands, noperands);
    TS__ARG_NONNULL(err, out);
    if (noperands < 1)
        return ts__error(err, TS_ERR_INVALID_ARG,
                         "einsum(): at least one operand is needed, got 0");
    for (int k = 0; k < 128; k++) {
        ls.count[k] = 0;
        ls.first_op[k] = -1;
        ls.size[k] = 0;
    }

    /* Operand terms end at ',' or '-' (NumPy strcspn(subscripts, ",-")). */
    const size_t len = strlen(spec);
    size_t arrow = strcspn(spec, "-");
    int nterms = 1;
    for (size_t i = 0; i < arrow; i++)
        if (spec[i] == ',')
            nterms++;
    if ((size_t)nterms != noperands)
        return ts__error(err, TS_ERR_INVALID_ARG,
                         "einsum(): the equation '%s' has %d operand term%s but %zu "
                         "operand%s %s given",
                         ts__printable(spec, len, tbuf, sizeof tbuf), nterms,
                         nterms == 1 ? "" : "s",
                         noperands, noperands == 1 ? "" : "s",
                         noperands == 1 ? "was" : "were");
    size_t start = 0;
    for (int iop = 0; iop < nterms; iop++) {
        size_t stop = start + strcspn(spec + start, ",-");
        st = parse_operand(spec, start, stop, iop, &operands[iop], &ls, rb, &nrb, err);
        if (st)
            return ts__error_index(err, st, iop); /* every error here is about operand iop */
        start = stop + 1;
    }

    int64_t odims[TS_MAX_NDIM];
    int ond = 0;
    if (arrow == len) {
        /* Implicit: broadcast dims, then labels seen once in ASCII order. */
        for (int r = nrb - 1; r >= 0; r--)
            odims[ond++] = rb[r];
        for (int k = 0; k < 128; k++) {
            if (ls.count[k] != 1)
                continue;
            if (ond == TS_MAX_NDIM)
                return ts__error(err, TS_ERR_NDIM,
                                 "einsum(): the output would have more than %d dims",
                                 TS_MAX_NDIM);
            odims[ond++] = ls.size[k];
        }
    } else {
        if (spec[arrow + 1] != '>')
            return ts__fail(err, TS_ERR_PARSE, (int64_t)arrow + 1, -1,
                            "einsum(): '-' at column %zu is not followed by '>' of '->'",
                            arrow + 1);
        int ell = 0;
        for (size_t i = arrow + 2; i < len; i++) {
            char c = spec[i];
            if (is_letter(c)) {
                const char *again = memchr(spec + i + 1, c, len - i - 1);
                if (again)
                    return ts__fail(err, TS_ERR_PARSE, (int64_t)(again - spec) + 1, -1,
                                    "einsum(): output subscript %c appears more than once, "
                                    "at columns %zu and %zu", c, i + 1,
                                    (size_t)(again - spec) + 1);
                if (ls.count[(unsigned char)c] == 0)
                    return ts__fail(err, TS_ERR_VALUE, (int64_t)i + 1, -1,
                                    "einsum(): output subscript %c at column %zu does not "
                                    "appear in the equation for any input operand", c, i + 1);
                if (ond == TS_MAX_NDIM)
                    return ts__error(err, TS_ERR_NDIM,
                                     "einsum(): the output would have more than %d dims",
                                     TS_MAX_NDIM);
                odims[ond++] = ls.size[(unsigned char)c];
            } else if (c == '.') {
                if ((st = check_ellipsis(spec, i, len, ell, "the output", err)) != TS_OK)
                    return st;
                ell = 1;
                i += 2;
                if (ond + nrb > TS_MAX_NDIM)
                    return ts__error(err, TS_ERR_NDIM,
                                     "einsum(): the output would have more than %d dims",
                                     TS_MAX_NDIM);
                for (int r = nrb - 1; r >= 0; r--)
                    odims[ond++] = rb[r];
            } else if (!ts__is_ws(c, TS__WS_SP)) {
                return ts__fail(err, TS_ERR_PARSE, (int64_t)i + 1, -1,
                                "einsum(): invalid subscript %s at column %zu in the "
                                "output, subscripts must be letters [a-zA-Z]",
                                show_char(c, cbuf, sizeof cbuf), i + 1);
            }
        }
        if (!ell && nrb > 0)
            return ts__fail(err, TS_ERR_VALUE, (int64_t)arrow + 3, -1,
                            "einsum(): the ellipses of the operands cover %d dim%s but the "
                            "output after '->' has no '...' to keep them",
                            nrb, nrb == 1 ? "" : "s");
    }
    if ((st = ts_shape_assign(out, odims, ond, err)) != TS_OK)
        return st;
    ts__ok(err);
    return TS_OK;
}

/* ------------------------------------------------------------------------ */
/* Labelled composition                                                      */
/* ------------------------------------------------------------------------ */

typedef struct label {
    const char *p;
    size_t n;
    size_t column;   /* 1-based column in its list */
} label;

static int is_ident_start(char c)
{
    return is_letter(c) || c == '_';
}

static int is_ident(char c)
{
    return is_ident_start(c) || ts__is_digit(c);
}

/*
 * Parses a comma-separated label list into out[0..TS_MAX_NDIM-1]. `what`
 * names the list in messages ("the result labels", "the labels of input 1").
 */
static ts_status parse_labels(const char *text, const char *what, label *out, int *n,
                              ts_error *err)
{
    size_t i = 0, len = strlen(text);
    char cbuf[16], tbuf[96];
    *n = 0;
    i = ts__skip_ws(text, len, i, TS__WS_BLANK);
    if (i == len)
        return TS_OK; /* rank 0 */
    for (;;) {
        if (i >= len || !is_ident_start(text[i]))
            return ts__fail(err, TS_ERR_PARSE, (int64_t)i + 1, -1,
                            "expected a label (a letter or '_', then letters, digits, '_') "
                            "at column %zu of %s '%s', found %s",
                            i + 1, what, ts__printable(text, len, tbuf, sizeof tbuf),
                            i >= len ? "the end" : show_char(text[i], cbuf, sizeof cbuf));
        if (*n == TS_MAX_NDIM)
            return ts__fail(err, TS_ERR_NDIM, (int64_t)i + 1, -1,
                            "more than %d labels in %s", TS_MAX_NDIM, what);
        size_t s = i;
        while (i < len && is_ident(text[i]))
            i++;
        out[*n].p = text + s;
        out[*n].n = i - s;
        out[*n].column = s + 1;
        (*n)++;
        i = ts__skip_ws(text, len, i, TS__WS_BLANK);
        if (i == len)
            return TS_OK;
        if (text[i] != ',')
            return ts__fail(err, TS_ERR_PARSE, (int64_t)i + 1, -1,
                            "expected ',' or the end at column %zu of %s '%s', found %s",
                            i + 1, what, ts__printable(text, len, tbuf, sizeof tbuf),
                            show_char(text[i], cbuf, sizeof cbuf));
        i++;
        i = ts__skip_ws(text, len, i, TS__WS_BLANK);
    }
}

static int label_eq(const label *a, const label *b)
{
    return a->n == b->n && memcmp(a->p, b->p, a->n) == 0;
}

/* A label of some input, with where it is and its extent. */
typedef struct input_label {
    label l;
    int input, mode;
    int64_t extent;
} input_label;

static ts_status compose(const char *result_labels, const char *const *labels,
                         const ts_shape *shapes, size_t ninputs, ts_shape *out, ts_error *err)
{
    label res[TS_MAX_NDIM], tmp[TS_MAX_NDIM];
    int nres = 0;
    ts_status st;
    char what[48], sbuf[TS__SHAPE_STR_MAX], tbuf[96];

    if (ninputs < 1)
        return ts__error(err, TS_ERR_INVALID_ARG, "at least one labelled input is needed, got 0");
    if (ninputs > INT32_MAX)
        return ts__error(err, TS_ERR_LIMIT, "%zu labelled inputs: the limit is %d", ninputs,
                         INT32_MAX);
    if ((st = parse_labels(result_labels, "the result labels", res, &nres, err)) != TS_OK)
        return st;
    for (int k = 0; k < nres; k++)
        for (int m = 0; m < k; m++)
            if (label_eq(&res[m], &res[k]))
                return ts__fail(err, TS_ERR_VALUE, (int64_t)res[k].column, -1,
                                "label '%.*s' appears twice in the result labels '%s' "
                                "(columns %zu and %zu)", (int)res[k].n, res[k].p,
                                ts__printable(result_labels, strlen(result_labels), tbuf,
                                          sizeof tbuf), res[m].column, res[k].column);

    size_t total = 0;
    for (size_t i = 0; i < ninputs; i++)
        total += (size_t)shapes[i].ndim;
    input_label *all = malloc((total ? total : 1) * sizeof *all);
    if (!all)
        return ts__error(err, TS_ERR_NOMEM, "out of memory for %zu labels", total);
    size_t nall = 0;
    int failed = -1; /* the input an error is about: err->index */
    for (int i = 0; i < (int)ninputs && !st; i++) {
        int n = 0;
        const int64_t *dims = ts_shape_dims(&shapes[i]);
        failed = i;
        snprintf(what, sizeof what, "the labels of input %d", i);
        if ((st = parse_labels(labels[i], what, tmp, &n, err)) != TS_OK)
            break;
        if (n != shapes[i].ndim) {
            st = ts__error(err, TS_ERR_NDIM,
                           "input %d has %d label%s '%s' but its shape %s has %d "
                           "mode%s", i, n, n == 1 ? "" : "s",
                           ts__printable(labels[i], strlen(labels[i]), tbuf, sizeof tbuf),
                           ts__shape_str(&shapes[i], sbuf, sizeof sbuf), shapes[i].ndim,
                           shapes[i].ndim == 1 ? "" : "s");
            break;
        }
        for (int m = 0; m < n && !st; m++) {
            if (dims[m] < 0) {
                st = ts__error(err, TS_ERR_VALUE, "input %d %s has a negative extent",
                               i, ts__shape_str(&shapes[i], sbuf, sizeof sbuf));
                break;
            }
            /* Every occurrence must agree with the first one. */
            for (size_t q = 0; q < nall; q++) {
                if (!label_eq(&all[q].l, &tmp[m]))
                    continue;
                if (all[q].extent != dims[m])
                    st = ts__error(err, TS_ERR_SIZE,
                                   "label '%.*s' has extent %lld in input %d (mode "
                                   "%d) but %lld in input %d (mode %d)",
                                   (int)tmp[m].n, tmp[m].p, (long long)all[q].extent,
                                   all[q].input, all[q].mode, (long long)dims[m], i, m);
                break;
            }
            all[nall].l = tmp[m];
            all[nall].input = i;
            all[nall].mode = m;
            all[nall].extent = dims[m];
            nall++;
        }
    }
    if (st)
        ts__error_index(err, st, failed);
    int64_t odims[TS_MAX_NDIM];
    for (int k = 0; k < nres && !st; k++) {
        size_t q = 0;
        while (q < nall && !label_eq(&all[q].l, &res[k]))
            q++;
        if (q == nall) {
            st = ts__fail(err, TS_ERR_VALUE, (int64_t)res[k].column, -1,
                          "label '%.*s' of the result is in no input", (int)res[k].n,
                          res[k].p);
            break;
        }
        odims[k] = all[q].extent;
    }
    free(all);
    if (st)
        return st;
    if ((st = ts_shape_assign(out, odims, nres, err)) != TS_OK)
        return st;
    ts__ok(err);
    return TS_OK;
}

ts_status ts_label_compose(const char *result_labels, const char *const *labels,
                           const ts_shape *shapes, size_t ninputs, ts_shape *out, ts_error *err)
{
    TS__ARG_NONNULL(err, result_labels);
    TS__ARG_ARRAY(err, labels, ninputs);
    TS__ARG_ARRAY(err, shapes, ninputs);
    TS__ARG_NONNULL(err, out);
    TS__ARG_EACH(err, labels, ninputs);
    ts_status st = compose(result_labels, labels, shapes, ninputs, out, err);
    if (st)
        ts__error_prefix(err, "compose");
    return st;
}
