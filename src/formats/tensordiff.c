/*
 * tensordiff.c - ts_diff: two models compared tensor by tensor (names
 * mapped and selected, pairs matched by name or by the single-pair rule,
 * the kind of each pair, the totals) and by metadata (diffmeta.c); the
 * values of a pair on request (ts_array_compare). tshape.h has the rules;
 * `tshape diff` prints what this computes.
 */
#include "diffmeta.h"

#include <stdlib.h>
#include <string.h>

/* Size of the first version of ts_diff_options (up to nexclude). */
#define OPTIONS_V1_SIZE (offsetof(ts_diff_options, nexclude) + sizeof(size_t))

/* A selected tensor in name order: its mapped name and its place among the
 * side's selected tensors. */
typedef struct keyed {
    const char *key;
    size_t i;
} keyed;

/* One side: its model, the tensors selected with their mapped names, and
 * its metadata. */
typedef struct side {
    const ts_model *m;
    size_t n;               /* tensors selected */
    size_t *index;          /* per selected tensor: its index in the model */
    const char **key;       /* per selected tensor: its mapped name */
    keyed *sorted;          /* the selected tensors by (key, place) */
    ts__meta meta;
} side;

typedef struct duplicate {
    const char *name;
    unsigned side;
    size_t index;
} duplicate;

struct ts_diff {
    side a, b;
    int single;
    ts_diff_pair *pairs;
    ts_diff_kind *base;     /* per pair: its kind before values compared */
    size_t npairs;
    duplicate *dups;
    size_t ndups, dcap;
    ts__meta_diff *meta;
    size_t nmeta;
    ts_diff_totals totals;
};

static ts_status nomem(ts_error *err)
{
    return ts__error(err, TS_ERR_NOMEM, "out of memory");
}

static int cmp_keyed(const void *x, const void *y)
{
    const keyed *a = x, *b = y;
    int c = strcmp(a->key, b->key);
    return c ? c : (a->i > b->i) - (a->i < b->i);
}

/* The first selected tensor of s whose mapped name is key, or
 * TS_DIFF_NONE. */
static size_t find(const side *s, const char *key)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(s->sorted[mid].key, key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->n && strcmp(s->sorted[lo].key, key) == 0 ? s->sorted[lo].i : TS_DIFF_NONE;
}

static int first_of_name(const side *s, size_t i)
{
    return find(s, s->key[i]) == i;
}

static ts_status add_duplicate(ts_diff *d, const char *name, unsigned which, size_t index,
                               ts_error *err)
{
    if (d->ndups == d->dcap) {
        size_t cap = d->dcap ? 2 * d->dcap : 8;
        duplicate *p = realloc(d->dups, cap * sizeof *p);
        if (!p)
            return nomem(err);
        d->dups = p;
        d->dcap = cap;
    }
    d->dups[d->ndups++] = (duplicate){name, which, index};
    return TS_OK;
}

/* Maps and selects the tensors of s->m, sorts them by name and lists the
 * names it holds more than once. */
static ts_status load_side(ts_diff *d, side *s, unsigned which, const ts_diff_options *o,
                           ts_error *err)
{
    size_t n = ts_model_count(s->m), cap = n ? n : 1;
    s->index = malloc(cap * sizeof *s->index);
    s->key = malloc(cap * sizeof *s->key);
    s->sorted = malloc(cap * sizeof *s->sorted);
    if (!s->index || !s->key || !s->sorted)
        return nomem(err);
    for (size_t i = 0; i < n; i++) {
        const char *k = ts_model_array_name(s->m, i);
        if (o->names)
            k = ts_namemap_apply(o->names, which, k);
        if (!ts_name_selected(k, o->filter, o->nfilter, o->exclude, o->nexclude))
            continue;
        s->key[s->n] = k;
        s->index[s->n] = i;
        s->sorted[s->n] = (keyed){k, s->n};
        s->n++;
    }
    if (s->n > 1)
        qsort(s->sorted, s->n, sizeof *s->sorted, cmp_keyed);
    /* a name twice on one side: the first is compared, the others listed
     * (in the order of the side's tensors) */
    for (size_t i = 0; i < s->n; i++)
        if (!first_of_name(s, i)) {
            ts_status st = add_duplicate(d, s->key[i], which, s->index[i], err);
            if (st)
                return st;
        }
    return ts__meta_collect(s->m, &s->meta, err);
}

static void free_side(side *s)
{
    free(s->index);
    free(s->key);
    free(s->sorted);
    ts__meta_free(&s->meta);
}

static void count_totals(ts_diff_totals *t)
{
    const int64_t *k = t->kinds;
    t->changed = k[TS_DIFF_DTYPE] + k[TS_DIFF_SHAPE] + k[TS_DIFF_DTYPE_SHAPE];
    t->different = t->changed + k[TS_DIFF_ONLY_A] + k[TS_DIFF_ONLY_B] + k[TS_DIFF_VALUES];
}

/* The kind of the pair of A's selected tensor ia and B's ib. */
static ts_diff_kind pair_kind(const ts_diff *d, size_t ia, size_t ib)
{
    const ts_array *a = ts_model_array(d->a.m, d->a.index[ia], NULL);
    const ts_array *b = ts_model_array(d->b.m, d->b.index[ib], NULL);
    int dt = strcmp(a->dtype_name, b->dtype_name) != 0;
    int sh = !ts_shape_equal(&a->shape, &b->shape) || a->null_shape != b->null_shape;
    return dt && sh ? TS_DIFF_DTYPE_SHAPE : dt ? TS_DIFF_DTYPE : sh ? TS_DIFF_SHAPE
                                                                   : TS_DIFF_EQUAL;
}

/* Matches the two sides into pairs (tshape.h has the order). */
static ts_status match(ts_diff *d, ts_error *err)
{
    side *a = &d->a, *b = &d->b;
    size_t cap = a->n + b->n ? a->n + b->n : 1;
    d->pairs = calloc(cap, sizeof *d->pairs);
    d->base = malloc(cap * sizeof *d->base);
    if (!d->pairs || !d->base)
        return nomem(err);
    d->single = a->n == 1 && b->n == 1 && strcmp(a->key[0], b->key[0]) != 0;
    for (size_t i = 0; i < a->n; i++) {
        if (!first_of_name(a, i))
            continue;
        size_t j = d->single ? 0 : find(b, a->key[i]);
        ts_diff_pair *p = &d->pairs[d->npairs];
        p->name = a->key[i];
        p->name_b = j == TS_DIFF_NONE ? NULL : b->key[j];
        p->a = a->index[i];
        p->b = j == TS_DIFF_NONE ? TS_DIFF_NONE : b->index[j];
        p->kind = j == TS_DIFF_NONE ? TS_DIFF_ONLY_A : pair_kind(d, i, j);
        d->base[d->npairs++] = p->kind;
    }
    for (size_t j = 0; j < b->n && !d->single; j++) {
        if (!first_of_name(b, j) || find(a, b->key[j]) != TS_DIFF_NONE)
            continue;
        ts_diff_pair *p = &d->pairs[d->npairs];
        p->name = p->name_b = b->key[j];
        p->a = TS_DIFF_NONE;
        p->b = b->index[j];
        p->kind = TS_DIFF_ONLY_B;
        d->base[d->npairs++] = p->kind;
    }
    for (size_t i = 0; i < d->npairs; i++)
        d->totals.kinds[d->pairs[i].kind]++;
    count_totals(&d->totals);
    return TS_OK;
}

/* A glob list of the options: NULL only when n is 0, no NULL in it. */
static ts_status check_globs(ts_error *err, const char *what, const char *const *list,
                             size_t n)
{
    if (!list && n)
        return ts__bad_arg(err, "ts_diff_new", "opts->%s is NULL but opts->n%s is %zu", what,
                           what, n);
    for (size_t i = 0; i < n; i++)
        if (!list[i])
            return ts__error_index(err, ts__bad_arg(err, "ts_diff_new", "opts->%s[%zu] is NULL",
                                                    what, i),
                                   (int64_t)i);
    return TS_OK;
}

ts_status ts_diff_new(const ts_model *a, const ts_model *b, const ts_diff_options *opts,
                      ts_diff **out, ts_error *err)
{
    if (out)
        *out = NULL;
    TS__ARG_NONNULL(err, a);
    TS__ARG_NONNULL(err, b);
    TS__ARG_NONNULL(err, out);
    ts_diff_options o = TS_DIFF_OPTIONS_INIT;
    if (opts) {
        ts_status st = ts__read_struct(err, __func__, "opts", "options", opts, OPTIONS_V1_SIZE,
                                       &o, sizeof o, "TS_DIFF_OPTIONS_INIT", "ts_diff_options");
        if (st)
            return st;
        if ((st = check_globs(err, "filter", o.filter, o.nfilter)) ||
            (st = check_globs(err, "exclude", o.exclude, o.nexclude)))
            return st;
    }
    ts_diff *d = calloc(1, sizeof *d);
    if (!d)
        return nomem(err);
    d->a.m = a;
    d->b.m = b;
    ts_status st = load_side(d, &d->a, TS_SIDE_A, &o, err);
    if (st == TS_ERR_IO)
        ts__error_index(err, st, 0);
    if (!st && (st = load_side(d, &d->b, TS_SIDE_B, &o, err)) == TS_ERR_IO)
        ts__error_index(err, st, 1);
    if (!st)
        st = match(d, err);
    if (!st)
        st = ts__meta_compare(&d->a.meta, &d->b.meta, &d->meta, &d->nmeta, err);
    if (st) {
        ts_diff_free(d);
        return st;
    }
    d->totals.metadata_different = (int64_t)d->nmeta;
    d->totals.metadata_a = (int64_t)d->a.meta.n;
    d->totals.metadata_b = (int64_t)d->b.meta.n;
    *out = d;
    ts__ok(err);
    return TS_OK;
}

void ts_diff_free(ts_diff *d)
{
    if (!d)
        return;
    free_side(&d->a);
    free_side(&d->b);
    free(d->pairs);
    free(d->base);
    free(d->dups);
    free(d->meta);
    free(d);
}

const char *ts_diff_kind_name(ts_diff_kind kind)
{
    switch (kind) {
    case TS_DIFF_EQUAL: return "equal";
    case TS_DIFF_ONLY_A: return "only_a";
    case TS_DIFF_ONLY_B: return "only_b";
    case TS_DIFF_DTYPE: return "dtype";
    case TS_DIFF_SHAPE: return "shape";
    case TS_DIFF_DTYPE_SHAPE: return "dtype_shape";
    case TS_DIFF_VALUES: return "values";
    case TS_DIFF_UNREADABLE: return "unreadable";
    }
    return "unknown";
}

size_t ts_diff_count(const ts_diff *d)
{
    return d ? d->npairs : 0;
}

const ts_diff_pair *ts_diff_pair_at(const ts_diff *d, size_t i)
{
    return d && i < d->npairs ? &d->pairs[i] : NULL;
}

int ts_diff_single(const ts_diff *d)
{
    return d ? d->single : 0;
}

const ts_diff_totals *ts_diff_totals_of(const ts_diff *d)
{
    return d ? &d->totals : NULL;
}

size_t ts_diff_duplicate_count(const ts_diff *d)
{
    return d ? d->ndups : 0;
}

const char *ts_diff_duplicate_at(const ts_diff *d, size_t i, unsigned *which, size_t *index)
{
    if (!d || i >= d->ndups)
        return NULL;
    if (which)
        *which = d->dups[i].side;
    if (index)
        *index = d->dups[i].index;
    return d->dups[i].name;
}

size_t ts_diff_metadata_count(const ts_diff *d)
{
    return d ? d->nmeta : 0;
}

int ts_diff_metadata_at(const ts_diff *d, size_t i, const char **label, const char **a,
                        const char **b)
{
    if (!d || i >= d->nmeta)
        return 0;
    if (label)
        *label = d->meta[i].label;
    if (a)
        *a = d->meta[i].a;
    if (b)
        *b = d->meta[i].b;
    return 1;
}

ts_status ts_diff_compare_values(ts_diff *d, size_t i, const ts_compare_options *opts,
                                 ts_error *err)
{
    TS__ARG_NONNULL(err, d);
    if (i >= d->npairs)
        return ts__bad_arg(err, __func__, "i is %zu, not below the %zu pairs", i, d->npairs);
    ts_diff_pair *p = &d->pairs[i];
    ts_diff_kind base = d->base[i];
    if (base != TS_DIFF_EQUAL && base != TS_DIFF_DTYPE) {
        ts__ok(err);
        return TS_OK;
    }
    size_t fa, fb;
    const ts_array *a = ts_model_array(d->a.m, p->a, &fa);
    const ts_array *b = ts_model_array(d->b.m, p->b, &fb);
    ts_compare c;
    ts_error e;
    ts_status st = ts_array_compare(ts_model_file(d->a.m, fa), a, ts_model_file(d->b.m, fb), b,
                                    opts, &c, &e);
    if (err)
        *err = e;
    /* the options, not the data: the pair stays as it was */
    if (st == TS_ERR_INVALID_ARG || (st == TS_ERR_UNSUPPORTED && e.index != 0 && e.index != 1))
        return st;
    d->totals.kinds[p->kind]--;
    if (p->values == TS_DIFF_VALUES_FAILED)
        d->totals.unreadable--;
    if (st) {
        p->values = TS_DIFF_VALUES_FAILED;
        p->kind = base == TS_DIFF_EQUAL ? TS_DIFF_UNREADABLE : base;
        d->totals.unreadable++;
    } else {
        p->values = TS_DIFF_VALUES_COMPARED;
        p->compare = c;
        p->kind = base == TS_DIFF_EQUAL && c.notclose > 0 ? TS_DIFF_VALUES : base;
        ts__ok(err);
    }
    d->totals.kinds[p->kind]++;
    count_totals(&d->totals);
    return st;
}
