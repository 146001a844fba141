/*
 * tensordiff.c - ts_diff: two models compared tensor by tensor (names
 * mapped and selected, pairs matched by name or by the single-pair rule,
 * the kind of each pair, the totals) and by metadata (diffmeta.c); the
 * values of a pair on request (ts_array_compare, or ts_array_metrics for
 * conversions and quantizations, added up by dtype pair). tshape.h has the
 * rules; `tshape diff` prints what this computes.
 */
#include "diffmeta.h"
#include "reader.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Size of the first version of ts_diff_options (up to nexclude). */
#define OPTIONS_V1_SIZE (offsetof(ts_diff_options, nexclude) + sizeof(size_t))
/* ... and of ts_compare_options (compare.c), read here for metrics. */
#define COMPARE_V1_SIZE (offsetof(ts_compare_options, progress_ctx) + sizeof(void *))

/* A selected tensor in name order: its mapped name and its place among the
 * side's selected tensors. */
typedef struct keyed {
    const char *key;
    size_t i;
} keyed;

/* Another framework's name of a selected tensor (ts__alias of its file). */
typedef struct alias_ent {
    const char *name;
    size_t i;               /* the tensor's place among the side's selected */
    const ts__alias *al;
} alias_ent;

/* One side: its model, the tensors selected with their mapped names, and
 * its metadata. */
typedef struct side {
    const ts_model *m;
    size_t n;               /* tensors selected */
    size_t *index;          /* per selected tensor: its index in the model */
    const char **key;       /* per selected tensor: its mapped name */
    keyed *sorted;          /* the selected tensors by (key, place) */
    char **owned;           /* per model tensor: its GGUF name when mapped */
    ts__meta meta;
    int gguf;               /* every member is a GGUF file */
    int any_gguf;           /* some member is */
    int onnx, any_onnx;     /* every member / some member is an ONNX file */
    int keras, torch;       /* every member is Keras's (HDF5, TF) / PyTorch's
                               (torch.save, safetensors) */
    alias_ent *al;          /* the aliases of selected tensors, by name */
    alias_ent *by_i;        /* the same by tensor (then name) */
    size_t nal;
    unsigned char *paired;  /* per selected tensor: in a pair already */
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
    int gguf_names;         /* one side's names mapped to GGUF's */
    int metrics;            /* opts->metrics */
    ts_diff_metrics_group *groups;
    size_t ngroups, gcap;
    int export_names;       /* opts->export_names and one side ONNX */
    int layout;             /* opts->export_names, one side Keras, one PyTorch */
    const ts__alias **alias_of; /* per pair: the alias it was made by, or NULL */
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

/* Which members of s->m are GGUF, ONNX, Keras's and PyTorch's files. */
static void member_formats(side *s)
{
    size_t nf = ts_model_file_count(s->m), g = 0, o = 0, k = 0, t = 0;
    for (size_t i = 0; i < nf; i++) {
        ts_format f = ts_file_format(ts_model_file(s->m, i));
        g += f == TS_FORMAT_GGUF;
        o += f == TS_FORMAT_ONNX;
        k += f == TS_FORMAT_HDF5 || f == TS_FORMAT_TFCKPT || f == TS_FORMAT_SAVEDMODEL ||
             f == TS_FORMAT_TFJS;
        t += f == TS_FORMAT_PYTORCH || f == TS_FORMAT_SAFETENSORS;
    }
    s->gguf = nf > 0 && g == nf;
    s->any_gguf = g > 0;
    s->onnx = nf > 0 && o == nf;
    s->any_onnx = o > 0;
    s->keras = nf > 0 && k == nf;
    s->torch = nf > 0 && t == nf;
}

/* A model tensor by its ts_array (the aliases name a file's array). */
typedef struct by_array {
    const ts_array *a;
    size_t index;
} by_array;

static int cmp_by_array(const void *x, const void *y)
{
    const ts_array *a = ((const by_array *)x)->a, *b = ((const by_array *)y)->a;
    return (a > b) - (a < b);
}

static int cmp_alias(const void *x, const void *y)
{
    const alias_ent *a = x, *b = y;
    int c = strcmp(a->name, b->name);
    return c ? c : (a->i > b->i) - (a->i < b->i);
}

static int cmp_alias_i(const void *x, const void *y)
{
    const alias_ent *a = x, *b = y;
    int c = (a->i > b->i) - (a->i < b->i);
    return c ? c : strcmp(a->name, b->name);
}

/* The aliases of s's selected tensors (the first of each name), sorted by
 * name into s->al and by tensor into s->by_i. */
static ts_status load_aliases(side *s, ts_error *err)
{
    size_t nf = ts_model_file_count(s->m), total = 0;
    for (size_t k = 0; k < nf; k++)
        total += ts__file_alias_count(ts_model_file(s->m, k));
    if (total == 0)
        return TS_OK;
    size_t n = ts_model_count(s->m);
    by_array *arr = malloc((n ? n : 1) * sizeof *arr);
    size_t *place = malloc((n ? n : 1) * sizeof *place);
    s->al = malloc(total * sizeof *s->al);
    if (!arr || !place || !s->al) {
        free(arr);
        free(place);
        return nomem(err);
    }
    for (size_t i = 0; i < n; i++) {
        arr[i] = (by_array){ts_model_array(s->m, i, NULL), i};
        place[i] = TS_DIFF_NONE;
    }
    for (size_t i = 0; i < s->n; i++)
        if (first_of_name(s, i))
            place[s->index[i]] = i;
    qsort(arr, n, sizeof *arr, cmp_by_array);
    for (size_t k = 0; k < nf; k++) {
        const ts_file *f = ts_model_file(s->m, k);
        for (size_t j = 0; j < ts__file_alias_count(f); j++) {
            const ts__alias *al = ts__file_alias_at(f, j);
            by_array key = {ts_file_array(f, al->array), 0};
            const by_array *hit = key.a ? bsearch(&key, arr, n, sizeof *arr, cmp_by_array)
                                        : NULL;
            if (hit && place[hit->index] != TS_DIFF_NONE)
                s->al[s->nal++] = (alias_ent){al->name, place[hit->index], al};
        }
    }
    free(arr);
    free(place);
    if (s->nal > 1)
        qsort(s->al, s->nal, sizeof *s->al, cmp_alias);
    if (!(s->by_i = malloc(s->nal * sizeof *s->by_i)))
        return nomem(err);
    memcpy(s->by_i, s->al, s->nal * sizeof *s->by_i);
    if (s->nal > 1)
        qsort(s->by_i, s->nal, sizeof *s->by_i, cmp_alias_i);
    return TS_OK;
}

/* The first of s->by_i whose tensor is model tensor t or after it (the
 * selected tensors are in model order). */
static size_t first_alias(const side *s, size_t t)
{
    size_t lo = 0, hi = s->nal;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->index[s->by_i[mid].i] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The first alias of s named key, or NULL. */
static const alias_ent *find_alias(const side *s, const char *key)
{
    size_t lo = 0, hi = s->nal;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(s->al[mid].name, key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->nal && strcmp(s->al[lo].name, key) == 0 ? &s->al[lo] : NULL;
}

/* Name k as llama.cpp's converter names it (ts_tensor_name_map), kept in
 * s->owned[i]; k itself when no rule matches. NULL: out of memory. */
static const char *gguf_name(side *s, size_t i, const char *k)
{
    char buf[1024];
    size_t n = ts_tensor_name_map(TS_NAME_MAP_TO_GGUF, k, buf, sizeof buf);
    if (n == 0)
        return k;
    char *g = malloc(n + 1);
    if (g && n < sizeof buf)
        memcpy(g, buf, n + 1);
    else if (g)
        ts_tensor_name_map(TS_NAME_MAP_TO_GGUF, k, g, n + 1);
    return s->owned[i] = g;
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
    int map = d->gguf_names && !s->gguf;
    if (map && !(s->owned = calloc(cap, sizeof *s->owned)))
        return nomem(err);
    for (size_t i = 0; i < n; i++) {
        const char *k = ts_model_array_name(s->m, i);
        if (o->names)
            k = ts_namemap_apply(o->names, which, k);
        if (map && !(k = gguf_name(s, i, k)))
            return nomem(err);
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
    if (!(s->paired = calloc(s->n ? s->n : 1, 1)))
        return nomem(err);
    ts_status st = d->export_names && s->onnx ? load_aliases(s, err) : TS_OK;
    return st ? st : ts__meta_collect(s->m, &s->meta, err);
}

static void free_side(side *s)
{
    if (s->owned)
        for (size_t i = 0; i < ts_model_count(s->m); i++)
            free(s->owned[i]);
    free(s->owned);
    free(s->index);
    free(s->key);
    free(s->sorted);
    free(s->al);
    free(s->by_i);
    free(s->paired);
    ts__meta_free(&s->meta);
}

static void count_totals(ts_diff_totals *t)
{
    const int64_t *k = t->kinds;
    t->changed = k[TS_DIFF_DTYPE] + k[TS_DIFF_SHAPE] + k[TS_DIFF_DTYPE_SHAPE];
    t->different = t->changed + k[TS_DIFF_ONLY_A] + k[TS_DIFF_ONLY_B] + k[TS_DIFF_VALUES] -
                   t->explained;
}

/* Does b's shape with its axes in the order of p's perm (none: as is)
 * equal a's? */
static int same_shape(const ts_array *a, const ts_array *b, const ts_diff_pair *p)
{
    return ts__shape_equal_permuted(&a->shape, &b->shape, p->perm, p->perm_ndim);
}

/* The kind of pair p (both tensors set). */
static ts_diff_kind pair_kind(const ts_diff *d, const ts_diff_pair *p)
{
    const ts_array *a = ts_model_array(d->a.m, p->a, NULL);
    const ts_array *b = ts_model_array(d->b.m, p->b, NULL);
    int dt = strcmp(a->dtype_name, b->dtype_name) != 0;
    int sh = !same_shape(a, b, p) || a->null_shape != b->null_shape;
    return dt && sh ? TS_DIFF_DTYPE_SHAPE : dt ? TS_DIFF_DTYPE : sh ? TS_DIFF_SHAPE
                                                                   : TS_DIFF_EQUAL;
}

/* Sets p's perm to the 2-D transpose (an alias that holds the parameter
 * transposed), when both tensors have 2 dims. */
static void set_transposed(const ts_diff *d, ts_diff_pair *p)
{
    const ts_array *a = ts_model_array(d->a.m, p->a, NULL);
    const ts_array *b = ts_model_array(d->b.m, p->b, NULL);
    if (ts_shape_ndim(&a->shape) == 2 && ts_shape_ndim(&b->shape) == 2) {
        p->perm_ndim = 2;
        p->perm[0] = 1;
        p->perm[1] = 0;
    }
}

/* Pair p (A's selected tensor ia, B's ib; ib TS_DIFF_NONE: A's alone) made
 * by rule through alias al (or NULL). */
static void make_pair(ts_diff *d, ts_diff_pair *p, size_t ia, size_t ib, ts_diff_rule rule,
                      const ts__alias *al)
{
    side *a = &d->a, *b = &d->b;
    p->name = a->key[ia];
    p->name_b = ib == TS_DIFF_NONE ? NULL : b->key[ib];
    p->a = a->index[ia];
    p->b = ib == TS_DIFF_NONE ? TS_DIFF_NONE : b->index[ib];
    p->rule = ib == TS_DIFF_NONE ? TS_DIFF_RULE_NONE : rule;
    p->via = al ? al->via : NULL;
    if (ib != TS_DIFF_NONE) {
        a->paired[ia] = 1;
        b->paired[ib] = 1;
        if (al && al->transposed)
            set_transposed(d, p);
    }
    d->alias_of[d->npairs] = al;
    p->kind = ib == TS_DIFF_NONE ? TS_DIFF_ONLY_A : pair_kind(d, p);
    d->base[d->npairs++] = p->kind;
}

/* B's selected tensor for A's ia by the aliases of either side, or
 * TS_DIFF_NONE; *al the alias. An alias of A names a B tensor not paired
 * (nor to be paired by its own name); an alias of B names the B tensor
 * that holds it, paired or not (deduplicated and tied weights are one
 * initializer for several tensors). */
static size_t by_alias_a(const ts_diff *d, size_t ia, const ts__alias **al)
{
    const side *a = &d->a, *b = &d->b;
    for (size_t k = first_alias(a, a->index[ia]); k < a->nal && a->by_i[k].i == ia; k++) {
        size_t j = find(b, a->by_i[k].name);
        if (j != TS_DIFF_NONE && !b->paired[j] && find(a, b->key[j]) == TS_DIFF_NONE) {
            *al = a->by_i[k].al;
            return j;
        }
    }
    const alias_ent *e = find_alias(b, a->key[ia]);
    if (e) {
        *al = e->al;
        return e->i;
    }
    return TS_DIFF_NONE;
}

/* ---- across an export (ts_diff_rule in tshape.h) ------------------------------ */

/* The ONNX side's tensor of pair i (A's or B's) is one the exporter made
 * for a Conv: read by a Conv or ConvTranspose, under a name the exporter
 * gave it ("onnx::Conv_46", not a parameter's). */
static int fused_conv(const ts_diff *d, size_t i, int onnx_a)
{
    const ts__alias *al = d->alias_of[i];
    const ts_diff_pair *p = &d->pairs[i];
    size_t t = onnx_a ? p->a : p->b;
    if (t == TS_DIFF_NONE)
        return 0;
    const char *name = ts_model_array_name(onnx_a ? d->a.m : d->b.m, t);
    if (strncmp(name, "onnx::", 6) != 0)
        return 0;
    if (al)
        return al->rule == TS_DIFF_RULE_ONNX_CONSUMER &&
               (strcmp(al->op, "Conv") == 0 || strcmp(al->op, "ConvTranspose") == 0);
    /* alone: by its aliases */
    const side *s = onnx_a ? &d->a : &d->b;
    for (size_t k = first_alias(s, t); k < s->nal && s->index[s->by_i[k].i] == t; k++)
        if (s->by_i[k].al->rule == TS_DIFF_RULE_ONNX_CONSUMER &&
            (strcmp(s->by_i[k].al->op, "Conv") == 0 ||
             strcmp(s->by_i[k].al->op, "ConvTranspose") == 0))
            return 1;
    return 0;
}

/* The BatchNorm parameter suffixes (torch.nn.BatchNorm*d's state_dict). */
static const char *const bn_suffix[] = {".weight", ".bias", ".running_mean", ".running_var",
                                        ".num_batches_tracked"};

/* Is key the tensor of a BatchNorm of side s with no partner: NAME.SUFFIX
 * where s holds NAME.running_mean and NAME.running_var, both alone? */
static int folded_bn(const side *s, const char *key)
{
    size_t n = strlen(key);
    for (size_t k = 0; k < sizeof bn_suffix / sizeof *bn_suffix; k++) {
        size_t sn = strlen(bn_suffix[k]);
        if (n <= sn || strcmp(key + n - sn, bn_suffix[k]) != 0 || n - sn > 960)
            continue;
        char buf[1024];
        int ok = 1;
        for (int r = 2; r <= 3 && ok; r++) {
            snprintf(buf, sizeof buf, "%.*s%s", (int)(n - sn), key, bn_suffix[r]);
            size_t i = find(s, buf);
            ok = i != TS_DIFF_NONE && !s->paired[i];
        }
        return ok;
    }
    return 0;
}

/* Is tensor t of m an ONNX Constant node's? (onnx.c writes the source first
 * in the note: "Constant, raw_data".) */
static int onnx_constant(const ts_model *m, size_t t)
{
    const char *note = ts_model_array(m, t, NULL)->note;
    return note && strncmp(note, "Constant,", 9) == 0;
}

static int cmp_size(const void *x, const void *y)
{
    size_t a = *(const size_t *)x, b = *(const size_t *)y;
    return (a > b) - (a < b);
}

/* The PyTorch-side model indices of the fused Conv weights (pairs made by
 * ONNX_CONSUMER from a Conv's "onnx::" initializer, named "*.weight"),
 * sorted, into *out (*n of them). */
static ts_status fused_weights(const ts_diff *d, int onnx_a, size_t **out, size_t *n,
                               ts_error *err)
{
    *n = 0;
    if (!(*out = malloc((d->npairs ? d->npairs : 1) * sizeof **out)))
        return nomem(err);
    for (size_t j = 0; j < d->npairs; j++) {
        size_t tj = onnx_a ? d->pairs[j].b : d->pairs[j].a;
        if (tj == TS_DIFF_NONE || !d->alias_of[j] || !fused_conv(d, j, onnx_a))
            continue;
        const char *tn = ts_model_array_name(onnx_a ? d->b.m : d->a.m, tj);
        size_t tl = strlen(tn);
        if (tl > 7 && strcmp(tn + tl - 7, ".weight") == 0)
            (*out)[(*n)++] = tj;
    }
    qsort(*out, *n, sizeof **out, cmp_size);
    return TS_OK;
}

/* Explains the tensors alone across an ONNX export: BatchNorms folded into
 * the Conv initializers the exporter made (ONNX_FUSED, BN_FOLDED), the
 * num_batches_tracked no ONNX operator reads (NOT_EXPORTED). */
static ts_status explain_export(ts_diff *d, ts_error *err)
{
    const int onnx_a = d->a.onnx;
    const side *ts = onnx_a ? &d->b : &d->a; /* the PyTorch side */
    const ts_model *tm = ts->m;
    /* folding: Conv initializers the exporter made, and a BatchNorm alone */
    int nfused = 0;
    for (size_t i = 0; i < d->npairs && !nfused; i++)
        nfused = d->alias_of[i] && fused_conv(d, i, onnx_a);
    int folding = 0;
    for (size_t i = 0; i < d->npairs && nfused && !folding; i++) {
        const ts_diff_pair *p = &d->pairs[i];
        if ((onnx_a ? p->b : p->a) != TS_DIFF_NONE && (onnx_a ? p->a : p->b) == TS_DIFF_NONE)
            folding = folded_bn(ts, onnx_a ? p->name_b : p->name);
    }
    nfused = folding;
    size_t *fw = NULL, nfw = 0;
    ts_status st = folding ? fused_weights(d, onnx_a, &fw, &nfw, err) : TS_OK;
    if (st)
        return st;
    for (size_t i = 0; i < d->npairs; i++) {
        ts_diff_pair *p = &d->pairs[i];
        size_t t = onnx_a ? p->b : p->a, o = onnx_a ? p->a : p->b;
        if (t != TS_DIFF_NONE && o == TS_DIFF_NONE) { /* PyTorch's alone */
            const char *key = onnx_a ? p->name_b : p->name;
            if (nfused && folded_bn(ts, key)) {
                p->rule = TS_DIFF_RULE_BN_FOLDED;
                p->explained = 1;
                /* the fused Conv weight before it in its model's order */
                size_t lo = 0, hi = nfw;
                while (lo < hi) {
                    size_t mid = lo + (hi - lo) / 2;
                    if (fw[mid] < t)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                p->via = lo > 0 ? ts_model_array_name(tm, fw[lo - 1]) : NULL;
            } else if (strlen(key) >= 20 &&
                       strcmp(key + strlen(key) - 20, ".num_batches_tracked") == 0) {
                p->rule = TS_DIFF_RULE_NOT_EXPORTED;
                p->explained = 1;
            }
        } else if (t == TS_DIFF_NONE && onnx_constant(onnx_a ? d->a.m : d->b.m, o)) {
            p->rule = TS_DIFF_RULE_ONNX_CONSTANT;
            p->explained = 1;
        } else if (nfused && o != TS_DIFF_NONE && fused_conv(d, i, onnx_a)) {
            p->rule = TS_DIFF_RULE_ONNX_FUSED;
            if (t == TS_DIFF_NONE) { /* a bias the fusion gave a Conv without one */
                p->explained = 1;
                const side *os = onnx_a ? &d->a : &d->b;
                size_t k = first_alias(os, o);
                if (k < os->nal && os->index[os->by_i[k].i] == o)
                    p->via = os->by_i[k].al->via;
            }
        }
    }
    free(fw);
    return TS_OK;
}

/* Keras's kernel layout as PyTorch's (ts_diff_rule LAYOUT): the axes of a
 * Keras kernel of nd dims in PyTorch's order: (nd-1, nd-2, 0, ..., nd-3). */
static void keras_perm(int nd, int *perm)
{
    perm[0] = nd - 1;
    perm[1] = nd - 2;
    for (int k = 2; k < nd; k++)
        perm[k] = k - 2;
}

/* Is name a Keras kernel: its last part (after '/') "kernel" or
 * "kernel:N" (Keras 2, TensorFlow), or Keras 3's first variable of a Dense
 * or Conv layer, ".../LAYER/vars/0" with LAYER named "dense..." or
 * "conv..." (Keras 3 saves a layer's variables as vars/0, vars/1, ... in
 * the order the layer builds them, the kernel first, under the layer's
 * name, by default its class's in snake case)? */
static int keras_kernel(const char *name)
{
    const char *last = strrchr(name, '/');
    last = last ? last + 1 : name;
    if (strncmp(last, "kernel", 6) == 0 && (last[6] == '\0' || last[6] == ':'))
        return 1;
    size_t n = (size_t)(last - name);
    if (strcmp(last, "0") != 0 || n < 6 || strncmp(name + n - 6, "/vars/", 6) != 0)
        return 0;
    size_t e = n - 6, b = e; /* the layer's name: name[b..e) */
    while (b > 0 && name[b - 1] != '/')
        b--;
    return strncmp(name + b, "dense", 5) == 0 || strncmp(name + b, "conv", 4) == 0;
}

/* Pairs of a Keras kernel and a PyTorch weight compared in one layout. */
static void apply_layout(ts_diff *d)
{
    const int keras_a = d->a.keras;
    for (size_t i = 0; i < d->npairs; i++) {
        ts_diff_pair *p = &d->pairs[i];
        if (p->a == TS_DIFF_NONE || p->b == TS_DIFF_NONE || p->perm_ndim)
            continue;
        const ts_array *a = ts_model_array(d->a.m, p->a, NULL);
        const ts_array *b = ts_model_array(d->b.m, p->b, NULL);
        int nd = ts_shape_ndim(&a->shape);
        const ts_array *k = keras_a ? a : b;
        if (nd < 2 || nd > 5 || ts_shape_ndim(&b->shape) != nd || !keras_kernel(k->name))
            continue;
        int perm[5], q[5];
        keras_perm(nd, perm); /* PyTorch's = transpose(keras, perm) */
        if (keras_a) /* B = transpose(A, perm): A = transpose(B, inverse) */
            for (int x = 0; x < nd; x++)
                q[perm[x]] = x;
        else
            memcpy(q, perm, sizeof q);
        ts_diff_pair t = *p;
        t.perm_ndim = nd;
        memcpy(t.perm, q, (size_t)nd * sizeof *q);
        if (!same_shape(a, b, &t))
            continue; /* not a pure permutation (depthwise kernels) */
        *p = t;
        p->rule = TS_DIFF_RULE_LAYOUT;
        p->kind = pair_kind(d, p);
        d->base[i] = p->kind;
    }
}

/* Matches the two sides into pairs (tshape.h has the order). */
static ts_status match(ts_diff *d, ts_error *err)
{
    side *a = &d->a, *b = &d->b;
    size_t cap = a->n + b->n ? a->n + b->n : 1;
    d->pairs = calloc(cap, sizeof *d->pairs);
    d->base = malloc(cap * sizeof *d->base);
    d->alias_of = calloc(cap, sizeof *d->alias_of);
    if (!d->pairs || !d->base || !d->alias_of)
        return nomem(err);
    d->single = a->n == 1 && b->n == 1 && strcmp(a->key[0], b->key[0]) != 0;
    for (size_t i = 0; i < a->n; i++) {
        if (!first_of_name(a, i))
            continue;
        size_t j = d->single ? 0 : find(b, a->key[i]);
        ts_diff_rule rule = d->single ? TS_DIFF_RULE_SINGLE
                            : (a->owned && a->owned[a->index[i]]) ||
                                      (b->owned && j != TS_DIFF_NONE && b->owned[b->index[j]])
                                ? TS_DIFF_RULE_GGUF
                                : TS_DIFF_RULE_NAME;
        const ts__alias *al = NULL;
        if (j == TS_DIFF_NONE && (a->nal || b->nal)) {
            j = by_alias_a(d, i, &al);
            rule = al ? (ts_diff_rule)al->rule : rule;
        }
        make_pair(d, &d->pairs[d->npairs], i, j, rule, al);
    }
    for (size_t j = 0; j < b->n && !d->single; j++) {
        if (!first_of_name(b, j) || b->paired[j] || find(a, b->key[j]) != TS_DIFF_NONE)
            continue;
        const alias_ent *e = find_alias(a, b->key[j]);
        ts_diff_pair *p = &d->pairs[d->npairs];
        if (e) {
            make_pair(d, p, e->i, j, (ts_diff_rule)e->al->rule, e->al);
            continue;
        }
        p->name = p->name_b = b->key[j];
        p->a = TS_DIFF_NONE;
        p->b = b->index[j];
        p->kind = TS_DIFF_ONLY_B;
        p->rule = TS_DIFF_RULE_NONE;
        d->base[d->npairs++] = p->kind;
    }
    ts_status st = d->export_names ? explain_export(d, err) : TS_OK;
    if (st)
        return st;
    if (d->layout)
        apply_layout(d);
    for (size_t i = 0; i < d->npairs; i++) {
        d->totals.kinds[d->pairs[i].kind]++;
        d->totals.rules[d->pairs[i].rule]++;
        d->totals.explained += d->pairs[i].explained;
    }
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
    if (o.gguf_names != 0 && o.gguf_names != 1)
        return ts__bad_arg(err, __func__, "opts->gguf_names is %d, not 0 or 1", o.gguf_names);
    if (o.metrics != 0 && o.metrics != 1)
        return ts__bad_arg(err, __func__, "opts->metrics is %d, not 0 or 1", o.metrics);
    if (o.export_names != 0 && o.export_names != 1)
        return ts__bad_arg(err, __func__, "opts->export_names is %d, not 0 or 1",
                           o.export_names);
    ts_diff *d = calloc(1, sizeof *d);
    if (!d)
        return nomem(err);
    d->a.m = a;
    d->b.m = b;
    member_formats(&d->a);
    member_formats(&d->b);
    /* one side an ONNX export of the other; Keras against PyTorch */
    d->export_names = o.export_names && ((d->a.onnx && !d->b.any_onnx) ||
                                         (d->b.onnx && !d->a.any_onnx));
    d->layout = o.export_names && ((d->a.keras && d->b.torch) || (d->a.torch && d->b.keras));
    /* one side a GGUF conversion of the other: llama.cpp's names */
    d->gguf_names = o.gguf_names && ((d->a.gguf && !d->b.any_gguf) ||
                                     (d->b.gguf && !d->a.any_gguf));
    d->metrics = o.metrics;
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
    free(d->alias_of);
    free(d->dups);
    free(d->meta);
    for (size_t i = 0; i < d->ngroups; i++)
        free((char *)(uintptr_t)d->groups[i].label);
    free(d->groups);
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

const char *ts_diff_rule_name(ts_diff_rule rule)
{
    switch (rule) {
    case TS_DIFF_RULE_NONE: return "none";
    case TS_DIFF_RULE_NAME: return "name";
    case TS_DIFF_RULE_SINGLE: return "single";
    case TS_DIFF_RULE_GGUF: return "gguf";
    case TS_DIFF_RULE_ONNX_CONSUMER: return "onnx_consumer";
    case TS_DIFF_RULE_ONNX_IDENTITY: return "onnx_identity";
    case TS_DIFF_RULE_ONNX_FUSED: return "onnx_fused";
    case TS_DIFF_RULE_BN_FOLDED: return "bn_folded";
    case TS_DIFF_RULE_NOT_EXPORTED: return "not_exported";
    case TS_DIFF_RULE_LAYOUT: return "layout";
    case TS_DIFF_RULE_ONNX_CONSTANT: return "onnx_constant";
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

int ts_diff_gguf_names(const ts_diff *d)
{
    return d ? d->gguf_names : 0;
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

/* ---- metrics groups ---------------------------------------------------------- */

/* The group's derived figures from its sums. */
static void group_finish(ts_diff_metrics_group *g, double max_abs)
{
    int64_t k = g->count - g->nan;
    g->max_abs = k > 0 ? max_abs : NAN;
    g->rmse = k > 0 ? sqrt(g->sq_err / (double)k) : NAN;
    g->nmse = g->sq_ref > 0 ? g->sq_err / g->sq_ref : g->sq_err > 0 ? INFINITY : 0;
}

/* Adds the metrics of pair p (compared by metrics) to its dtype pair's
 * group. */
static ts_status group_add(ts_diff *d, const ts_diff_pair *p, ts_error *err)
{
    const ts_array *a = ts_model_array(d->a.m, p->a, NULL);
    const ts_array *b = ts_model_array(d->b.m, p->b, NULL);
    const ts_array *ref = p->reference == TS_SIDE_B ? b : a, *other = ref == a ? b : a;
    size_t n = strlen(ref->dtype_name) + strlen(other->dtype_name) + 5;
    char *label = malloc(n);
    if (!label)
        return nomem(err);
    snprintf(label, n, "%s -> %s", ref->dtype_name, other->dtype_name);
    size_t i = 0;
    while (i < d->ngroups && strcmp(d->groups[i].label, label) != 0)
        i++;
    if (i < d->ngroups) {
        free(label);
    } else {
        if (d->ngroups == d->gcap) {
            size_t cap = d->gcap ? 2 * d->gcap : 8;
            ts_diff_metrics_group *g = realloc(d->groups, cap * sizeof *g);
            if (!g) {
                free(label);
                return nomem(err);
            }
            d->groups = g;
            d->gcap = cap;
        }
        memset(&d->groups[i], 0, sizeof d->groups[i]);
        d->groups[i].label = label;
        d->groups[i].max_abs = d->groups[i].cosine_min = NAN;
        d->ngroups++;
    }
    ts_diff_metrics_group *g = &d->groups[i];
    const ts_metrics *m = &p->metrics;
    double max_abs = g->tensors > 0 && !isnan(g->max_abs) ? g->max_abs : 0;
    g->tensors++;
    g->count += m->count;
    g->nan += m->nan;
    g->sq_err += m->sq_err;
    g->sq_ref += m->sq_ref;
    if (m->max_abs > max_abs)
        max_abs = m->max_abs;
    if (!isnan(m->cosine) && (isnan(g->cosine_min) || m->cosine < g->cosine_min))
        g->cosine_min = m->cosine;
    group_finish(g, max_abs);
    return TS_OK;
}

/* The groups again from every pair compared by metrics (a pair compared
 * again: its old figures cannot be taken out of a maximum). */
static ts_status groups_rebuild(ts_diff *d, ts_error *err)
{
    for (size_t i = 0; i < d->ngroups; i++)
        free((char *)(uintptr_t)d->groups[i].label);
    d->ngroups = 0;
    for (size_t i = 0; i < d->npairs; i++) {
        const ts_diff_pair *p = &d->pairs[i];
        if (p->values == TS_DIFF_VALUES_COMPARED && p->by_metrics) {
            ts_status st = group_add(d, p, err);
            if (st)
                return st;
        }
    }
    return TS_OK;
}

size_t ts_diff_metrics_group_count(const ts_diff *d)
{
    return d ? d->ngroups : 0;
}

const ts_diff_metrics_group *ts_diff_metrics_group_at(const ts_diff *d, size_t i)
{
    return d && i < d->ngroups ? &d->groups[i] : NULL;
}

/* ---- values ------------------------------------------------------------------ */

/* Are the values of a and b compared by error metrics (tshape.h)? */
static int use_metrics(const ts_diff *d, const ts_array *a, const ts_array *b)
{
    if (ts_array_value_kind(a) == TS_VALUE_COMPLEX || ts_array_value_kind(b) == TS_VALUE_COMPLEX)
        return 0;
    return d->metrics || d->gguf_names || a->dtype == TS_DTYPE_QUANTIZED ||
           b->dtype == TS_DTYPE_QUANTIZED;
}

/* The error metrics of pair p into *m, the reference and the Q/K heads in
 * *ref and *heads; err->index 0 for A, 1 for B. */
static ts_status pair_metrics(const ts_diff *d, const ts_diff_pair *p,
                              const ts_compare_options *co, ts_metrics *m, unsigned *ref,
                              int64_t *heads, ts_error *err)
{
    ts_compare_options o = TS_COMPARE_OPTIONS_INIT;
    if (co) {
        ts_status st = ts__read_struct(err, "ts_diff_compare_values", "opts", "options", co,
                                       COMPARE_V1_SIZE, &o, sizeof o, "TS_COMPARE_OPTIONS_INIT",
                                       "ts_compare_options");
        if (st)
            return st;
    }
    int ref_b = d->a.gguf && d->gguf_names; /* the reference: the side that is not GGUF */
    const side *rs = ref_b ? &d->b : &d->a, *cs = ref_b ? &d->a : &d->b;
    size_t rf, cf;
    const ts_array *ra = ts_model_array(rs->m, ref_b ? p->b : p->a, &rf);
    const ts_array *ca = ts_model_array(cs->m, ref_b ? p->a : p->b, &cf);
    ts_metrics_options mo = TS_METRICS_OPTIONS_INIT;
    mo.qk_heads = d->gguf_names ? ts_gguf_qk_heads(ts_model_file(cs->m, cf), ca->name) : 0;
    mo.nthreads = o.nthreads;
    mo.progress = o.progress;
    mo.progress_ctx = o.progress_ctx;
    *ref = ref_b ? TS_SIDE_B : TS_SIDE_A;
    *heads = mo.qk_heads;
    ts_status st = ts_array_metrics(ts_model_file(rs->m, rf), ra, ts_model_file(cs->m, cf), ca,
                                    &mo, m, err);
    if (st && err && (err->index == 0 || err->index == 1))
        err->index = ref_b ? !err->index : err->index;
    return st;
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
    ts_metrics m;
    unsigned ref = 0;
    int64_t heads = 0;
    ts_error e;
    /* a permuted pair: by isclose, B read as a permuted view */
    const int by_metrics = p->perm_ndim == 0 && use_metrics(d, a, b);
    ts_status st = by_metrics ? pair_metrics(d, p, opts, &m, &ref, &heads, &e)
                   : p->perm_ndim ? ts__array_compare_permuted(
                                        ts_model_file(d->a.m, fa), a, ts_model_file(d->b.m, fb),
                                        b, p->perm, opts, &c, &e)
                                  : ts_array_compare(ts_model_file(d->a.m, fa), a,
                                                     ts_model_file(d->b.m, fb), b, opts, &c, &e);
    if (err)
        *err = e;
    /* the options, not the data: the pair stays as it was */
    if (st == TS_ERR_INVALID_ARG || (st == TS_ERR_UNSUPPORTED && e.index != 0 && e.index != 1))
        return st;
    const int had_metrics = p->values == TS_DIFF_VALUES_COMPARED && p->by_metrics;
    d->totals.kinds[p->kind]--;
    if (p->values == TS_DIFF_VALUES_FAILED)
        d->totals.unreadable--;
    p->by_metrics = by_metrics;
    p->reference = ref;
    p->qk_heads = heads;
    if (st) {
        p->values = TS_DIFF_VALUES_FAILED;
        p->kind = base == TS_DIFF_EQUAL ? TS_DIFF_UNREADABLE : base;
        d->totals.unreadable++;
    } else if (by_metrics) {
        p->values = TS_DIFF_VALUES_COMPARED;
        p->metrics = m;
        p->kind = base == TS_DIFF_EQUAL && (m.max_abs != 0 || m.nan > 0) ? TS_DIFF_VALUES : base;
    } else {
        p->values = TS_DIFF_VALUES_COMPARED;
        p->compare = c;
        p->kind = base == TS_DIFF_EQUAL && c.notclose > 0 ? TS_DIFF_VALUES : base;
    }
    d->totals.kinds[p->kind]++;
    count_totals(&d->totals);
    if (had_metrics || (st == TS_OK && by_metrics)) {
        ts_error ge;
        ts_status gs = had_metrics ? groups_rebuild(d, &ge) : group_add(d, p, &ge);
        if (gs && !st) {
            if (err)
                *err = ge;
            return gs;
        }
    }
    if (!st)
        ts__ok(err);
    return st;
}
