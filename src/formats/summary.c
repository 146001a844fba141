/*
 * summary.c - ts_summary: totals of a set of tensors (all, per role, per
 * dtype), the largest of them, and the groups of tensors whose names
 * differ only in layer numbers (tshape.h has the rules). The CLI's info
 * --summary prints what this computes.
 *
 * Groups are found with an open-addressing hash of (pattern, dtype, shape);
 * each keeps its layer numbers in the order met and sorts them when its
 * text is asked for.
 */
#define TS_EXPERIMENTAL_API
#include "../core/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Size of the first version of ts_summary_options (up to group). */
#define OPTIONS_V1_SIZE (offsetof(ts_summary_options, group) + sizeof(int))
#define TOP_MAX (1 << 20)
/* Longest layer number: 9 digits (fits in int64 and is never a hash). */
#define LAYER_DIGITS 9

typedef struct dtype_sum {
    char *name;
    ts_summary_sum sum;
} dtype_sum;

typedef struct group {
    ts_summary_group pub;
    char *pattern;
    int64_t *layers;        /* in the order met */
    size_t nlayers, cap;
    char *text;             /* pub.layers when made */
    int dirty;              /* layers changed since text was made */
} group;

struct ts_summary {
    ts_summary_options o;
    ts_summary_sum total, roles[TS_ROLE_COUNT];
    dtype_sum *dtypes;
    size_t ndtypes, dcap;
    ts_summary_tensor *top;     /* o.top slots, ntop used, largest first */
    size_t ntop;
    group *groups;
    size_t ngroups, gcap;
    size_t *slots, nslots;      /* hash of the groups: index + 1, 0 free */
    char *scratch;              /* the pattern being made */
    size_t scratch_cap;
};

/* ---- sums ---------------------------------------------------------------------- */

/* *sum += v, or the flag, leaving *sum at the last value that fitted. */
static void add_checked(int64_t *sum, int64_t v, int *overflow)
{
    int64_t r;
    if (*overflow)
        return;
    if (ts__add_overflow(*sum, v, &r))
        *overflow = 1;
    else
        *sum = r;
}

static void sum_add(ts_summary_sum *s, const ts_array *a)
{
    s->tensors++;
    add_checked(&s->size, a->size, &s->size_overflow);
    if (a->nbytes < 0)
        s->nbytes_unknown = 1;
    else
        add_checked(&s->nbytes, a->nbytes, &s->nbytes_overflow);
}

static ts_status nomem(ts_error *err)
{
    return ts__fail(err, TS_ERR_NOMEM, -1, -1, "ts_summary_add: out of memory");
}

static ts_status add_dtype(ts_summary *s, const char *dtype, const ts_array *a, ts_error *err)
{
    size_t d = 0;
    while (d < s->ndtypes && strcmp(s->dtypes[d].name, dtype) != 0)
        d++;
    if (d == s->ndtypes) {
        if (s->ndtypes == s->dcap) {
            size_t cap = s->dcap ? s->dcap * 2 : 8;
            dtype_sum *p = realloc(s->dtypes, cap * sizeof *p);
            if (!p)
                return nomem(err);
            s->dtypes = p;
            s->dcap = cap;
        }
        dtype_sum *n = &s->dtypes[d];
        memset(n, 0, sizeof *n);
        if (!(n->name = ts__strdup(dtype)))
            return nomem(err);
        s->ndtypes++;
    }
    sum_add(&s->dtypes[d].sum, a);
    return TS_OK;
}

/* ---- copies of tensors ------------------------------------------------------------ */

/* A tensor record whose dims and strings live in one block (freed with
 * the dims pointer). */
static int tensor_copy(ts_summary_tensor *t, const char *name, const char *dtype,
                       const ts_array *a, ts_role role, size_t tag)
{
    int ndim = ts_shape_ndim(&a->shape);
    size_t nn = strlen(name) + 1, dn = strlen(dtype) + 1;
    size_t dims = (size_t)ndim * sizeof(int64_t);
    unsigned char *block = malloc(dims + nn + dn + (ndim ? 0 : sizeof(int64_t)));
    if (!block)
        return -1;
    memcpy(block, ts_shape_dims(&a->shape), dims);
    char *pn = (char *)block + dims + (ndim ? 0 : sizeof(int64_t));
    memcpy(pn, name, nn);
    memcpy(pn + nn, dtype, dn);
    t->dims = (const int64_t *)(void *)block;
    t->ndim = ndim;
    t->name = pn;
    t->dtype = pn + nn;
    t->size = a->size;
    t->nbytes = a->nbytes < 0 ? -1 : a->nbytes;
    t->role = role;
    t->tag = tag;
    return 0;
}

static void tensor_free(ts_summary_tensor *t)
{
    free((void *)(uintptr_t)t->dims);
    t->dims = NULL;
}

/* ---- the largest tensors ---------------------------------------------------------- */

static ts_status add_top(ts_summary *s, const char *name, const char *dtype, const ts_array *a,
                         ts_role role, size_t tag, ts_error *err)
{
    size_t cap = (size_t)s->o.top;
    int64_t b = a->nbytes < 0 ? -1 : a->nbytes;
    size_t k;
    if (cap == 0)
        return TS_OK;
    if (s->ntop < cap) {
        k = s->ntop;
    } else if (b > s->top[cap - 1].nbytes) {
        k = cap - 1;
        tensor_free(&s->top[k]);
        s->ntop--;
    } else {
        return TS_OK;
    }
    /* earlier tensors of the same size stay ahead */
    while (k > 0 && s->top[k - 1].nbytes < b) {
        s->top[k] = s->top[k - 1];
        k--;
    }
    if (tensor_copy(&s->top[k], name, dtype, a, role, tag) != 0) {
        /* close the gap */
        memmove(&s->top[k], &s->top[k + 1], (s->ntop - k) * sizeof *s->top);
        return nomem(err);
    }
    s->ntop++;
    return TS_OK;
}

/* ---- groups of layers --------------------------------------------------------------- */

/* The name with each layer number replaced by '#' into s->scratch; *layer
 * receives the first number (-1 when none). */
static const char *pattern_of(ts_summary *s, const char *name, int64_t *layer)
{
    size_t n = strlen(name) + 1;
    if (n > s->scratch_cap) {
        char *p = realloc(s->scratch, n);
        if (!p)
            return NULL;
        s->scratch = p;
        s->scratch_cap = n;
    }
    char *o = s->scratch;
    *layer = -1;
    for (const char *p = name; *p;) {
        const char *q = p;
        while (*q >= '0' && *q <= '9')
            q++;
        if (q > p && q - p <= LAYER_DIGITS && (p == name || p[-1] == '.') &&
            (*q == '.' || *q == '\0')) {
            if (*layer < 0) {
                int64_t v = 0;
                for (const char *d = p; d < q; d++)
                    v = v * 10 + (*d - '0');
                *layer = v;
            }
            *o++ = '#';
            p = q;
        } else if (q > p) {
            memcpy(o, p, (size_t)(q - p));
            o += q - p;
            p = q;
        } else {
            *o++ = *p++;
        }
    }
    *o = '\0';
    return s->scratch;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static uint64_t group_hash(const char *pattern, const char *dtype, const int64_t *dims, int ndim)
{
    uint64_t h = fnv(1469598103934665603ull, pattern, strlen(pattern) + 1);
    h = fnv(h, dtype, strlen(dtype) + 1);
    return fnv(h, dims, (size_t)ndim * sizeof *dims) ^ (uint64_t)ndim;
}

static int group_is(const group *g, const char *pattern, const char *dtype, const int64_t *dims,
                    int ndim)
{
    const ts_summary_tensor *f = &g->pub.first;
    return f->ndim == ndim && strcmp(g->pattern, pattern) == 0 &&
           strcmp(f->dtype, dtype) == 0 &&
           (ndim == 0 || memcmp(f->dims, dims, (size_t)ndim * sizeof *dims) == 0);
}

static int slots_grow(ts_summary *s)
{
    size_t n = s->nslots ? s->nslots * 2 : 1024;
    size_t *slots = calloc(n, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < s->ngroups; i++) {
        const group *g = &s->groups[i];
        size_t k = (size_t)group_hash(g->pattern, g->pub.first.dtype, g->pub.first.dims,
                                      g->pub.first.ndim) & (n - 1);
        while (slots[k])
            k = (k + 1) & (n - 1);
        slots[k] = i + 1;
    }
    free(s->slots);
    s->slots = slots;
    s->nslots = n;
    return 0;
}

static ts_status add_group(ts_summary *s, const char *name, const char *dtype, const ts_array *a,
                           ts_role role, size_t tag, ts_error *err)
{
    int64_t layer;
    const char *pat = pattern_of(s, name, &layer);
    if (!pat || (2 * (s->ngroups + 1) > s->nslots && slots_grow(s) != 0))
        return nomem(err);
    const int64_t *dims = ts_shape_dims(&a->shape);
    int ndim = ts_shape_ndim(&a->shape);
    size_t k = (size_t)group_hash(pat, dtype, dims, ndim) & (s->nslots - 1);
    while (s->slots[k] && !group_is(&s->groups[s->slots[k] - 1], pat, dtype, dims, ndim))
        k = (k + 1) & (s->nslots - 1);
    group *g;
    if (s->slots[k]) {
        g = &s->groups[s->slots[k] - 1];
    } else {
        if (s->ngroups == s->gcap) {
            size_t cap = s->gcap ? s->gcap * 2 : 64;
            group *p = realloc(s->groups, cap * sizeof *p);
            if (!p)
                return nomem(err);
            s->groups = p;
            s->gcap = cap;
        }
        g = &s->groups[s->ngroups];
        memset(g, 0, sizeof *g);
        if (!(g->pattern = ts__strdup(pat)))
            return nomem(err);
        if (tensor_copy(&g->pub.first, name, dtype, a, role, tag) != 0) {
            free(g->pattern);
            return nomem(err);
        }
        s->slots[k] = ++s->ngroups;
    }
    g->pub.count++;
    g->dirty = 1;
    if (layer >= 0) {
        if (g->nlayers == g->cap) {
            size_t cap = g->cap ? g->cap * 2 : 8;
            int64_t *p = realloc(g->layers, cap * sizeof *p);
            if (!p)
                return nomem(err);
            g->layers = p;
            g->cap = cap;
        }
        g->layers[g->nlayers++] = layer;
    }
    return TS_OK;
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return a < b ? -1 : a > b;
}

/* "0-31", "0-3,5,7-9" into a new string (each number at most 9 digits). */
static char *layer_text(group *g)
{
    if (g->nlayers > 1)
        qsort(g->layers, g->nlayers, sizeof *g->layers, cmp_i64);
    size_t cap = g->nlayers * (2 * LAYER_DIGITS + 2) + 1, o = 0;
    char *t = malloc(cap);
    if (!t)
        return NULL;
    t[0] = '\0';
    for (size_t i = 0; i < g->nlayers;) {
        size_t j = i;
        while (j + 1 < g->nlayers && g->layers[j + 1] <= g->layers[j] + 1)
            j++;
        o += (size_t)snprintf(t + o, cap - o, "%s%lld", o ? "," : "",
                              (long long)g->layers[i]);
        if (g->layers[j] > g->layers[i])
            o += (size_t)snprintf(t + o, cap - o, "-%lld", (long long)g->layers[j]);
        i = j + 1;
    }
    return t;
}

/* ---- the API ------------------------------------------------------------------- */

ts_status ts_summary_new(const ts_summary_options *opts, ts_summary **out, ts_error *err)
{
    if (out)
        *out = NULL;
    TS__ARG_NONNULL(err, out);
    ts_summary_options o = TS_SUMMARY_OPTIONS_INIT;
    if (opts) {
        ts_status st = ts__read_struct(err, __func__, "opts", "options", opts, OPTIONS_V1_SIZE,
                                       &o, sizeof o, "TS_SUMMARY_OPTIONS_INIT",
                                       "ts_summary_options");
        if (st)
            return st;
        if (o.top < 0 || o.top > TOP_MAX)
            return ts__bad_arg(err, __func__, "opts->top is %lld, not 0..%d", (long long)o.top,
                               TOP_MAX);
        if (o.group != 0 && o.group != 1)
            return ts__bad_arg(err, __func__, "opts->group is %d, not 0 or 1", o.group);
    }
    ts_summary *s = calloc(1, sizeof *s);
    if (!s || (o.top > 0 && !(s->top = calloc((size_t)o.top, sizeof *s->top)))) {
        free(s);
        return ts__fail(err, TS_ERR_NOMEM, -1, -1, "ts_summary_new: out of memory");
    }
    s->o = o;
    *out = s;
    ts__ok(err);
    return TS_OK;
}

void ts_summary_free(ts_summary *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->ndtypes; i++)
        free(s->dtypes[i].name);
    free(s->dtypes);
    for (size_t i = 0; i < s->ntop; i++)
        tensor_free(&s->top[i]);
    free(s->top);
    for (size_t i = 0; i < s->ngroups; i++) {
        group *g = &s->groups[i];
        free(g->pattern);
        free(g->layers);
        free(g->text);
        tensor_free(&g->pub.first);
    }
    free(s->groups);
    free(s->slots);
    free(s->scratch);
    free(s);
}

ts_status ts_summary_add(ts_summary *s, const char *name, const ts_array *a, size_t tag,
                         ts_error *err)
{
    TS__ARG_NONNULL(err, s);
    TS__ARG_NONNULL(err, a);
    if (!name)
        name = a->name ? a->name : "";
    const char *dtype = ts_summary_dtype(a);
    /* a quantised weight has the role of what it stands for */
    ts_role role = ts_tensor_role(name, a->dequantized_dtype != TS_DTYPE_UNKNOWN
                                            ? a->dequantized_dtype : a->dtype);
    sum_add(&s->total, a);
    sum_add(&s->roles[role], a);
    ts_status st = add_dtype(s, dtype, a, err);
    if (!st)
        st = add_top(s, name, dtype, a, role, tag, err);
    if (!st && s->o.group)
        st = add_group(s, name, dtype, a, role, tag, err);
    if (!st)
        ts__ok(err);
    return st;
}

const ts_summary_sum *ts_summary_total(const ts_summary *s)
{
    return s ? &s->total : NULL;
}

const ts_summary_sum *ts_summary_role(const ts_summary *s, ts_role role)
{
    return s && (unsigned)role < TS_ROLE_COUNT ? &s->roles[role] : NULL;
}

size_t ts_summary_dtype_count(const ts_summary *s)
{
    return s ? s->ndtypes : 0;
}

const char *ts_summary_dtype_at(const ts_summary *s, size_t i, const ts_summary_sum **sum)
{
    if (!s || i >= s->ndtypes)
        return NULL;
    if (sum)
        *sum = &s->dtypes[i].sum;
    return s->dtypes[i].name;
}

size_t ts_summary_largest_count(const ts_summary *s)
{
    return s ? s->ntop : 0;
}

const ts_summary_tensor *ts_summary_largest(const ts_summary *s, size_t i)
{
    return s && i < s->ntop ? &s->top[i] : NULL;
}

size_t ts_summary_group_count(const ts_summary *s)
{
    return s ? s->ngroups : 0;
}

const ts_summary_group *ts_summary_group_at(ts_summary *s, size_t i)
{
    if (!s || i >= s->ngroups)
        return NULL;
    group *g = &s->groups[i];
    if (g->dirty) {
        char *t = g->pub.count > 1 ? layer_text(g) : ts__strdup("");
        if (!t)
            return NULL;
        free(g->text);
        g->text = t;
        g->dirty = 0;
    }
    g->pub.layers = g->text;
    g->pub.name = g->pub.count > 1 ? g->pattern : g->pub.first.name;
    return &g->pub;
}

const char *ts_summary_dtype(const ts_array *a)
{
    if (!a)
        return "";
    const int flexible = a->dtype == TS_DTYPE_BYTES || a->dtype == TS_DTYPE_UNICODE ||
                         a->dtype == TS_DTYPE_VOID;
    if (flexible && a->descr && a->descr[0])
        return a->descr[0] == '|' ? a->descr + 1 : a->descr;
    return a->dtype_name ? a->dtype_name : "";
}
