/*
 * diffmeta.c - the metadata of a model as one list of entries, and the
 * entries that differ between two (diffmeta.h; the rule is ts_diff's in
 * tshape.h): one entry per key whose members agree, one per member where
 * they differ.
 */
#include "diffmeta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One entry as read: its key, value, member and place. */
typedef struct raw {
    const char *key, *value;
    size_t member, order;
} raw;

static int cmp_raw(const void *x, const void *y)
{
    const raw *a = x, *b = y;
    int c = strcmp(a->key, b->key);
    return c ? c : (a->order > b->order) - (a->order < b->order);
}

static int cmp_order(const void *x, const void *y)
{
    const ts__meta_entry *a = x, *b = y;
    return (a->order > b->order) - (a->order < b->order);
}

static char *label_of(const ts_model *m, const raw *r, int with_member)
{
    const char *member = with_member ? ts_model_file_label(m, r->member) : "";
    size_t n = strlen(member) + strlen(r->key) + 3;
    char *l = malloc(n);
    if (l)
        snprintf(l, n, "%s%s%s", member, with_member ? ": " : "", r->key);
    return l;
}

/* Label order, for lookups: a pair (label, index) sorted by label, then
 * index. */
typedef struct by_label {
    const char *label;
    size_t i;
} by_label;

static int cmp_label(const void *x, const void *y)
{
    const by_label *a = x, *b = y;
    int c = strcmp(a->label, b->label);
    return c ? c : (a->i > b->i) - (a->i < b->i);
}

static ts_status nomem(ts_error *err)
{
    return ts__error(err, TS_ERR_NOMEM, "out of memory");
}

ts_status ts__meta_collect(const ts_model *m, ts__meta *out, ts_error *err)
{
    memset(out, 0, sizeof *out);
    size_t total = 0;
    for (size_t f = 0; f < ts_model_file_count(m); f++)
        total += ts_file_metadata_count(ts_model_file(m, f));
    if (total == 0)
        return TS_OK;
    raw *r = malloc(total * sizeof *r);
    by_label *bl = malloc(total * sizeof *bl);
    out->v = calloc(total, sizeof *out->v);
    out->by_label = malloc(total * sizeof *out->by_label);
    if (!r || !bl || !out->v || !out->by_label) {
        free(r);
        free(bl);
        return nomem(err);
    }
    size_t n = 0;
    for (size_t f = 0; f < ts_model_file_count(m); f++) {
        const ts_file *file = ts_model_file(m, f);
        for (size_t i = 0; i < ts_file_metadata_count(file); i++, n++) {
            r[n] = (raw){NULL, NULL, f, n};
            ts_file_metadata(file, i, &r[n].key, &r[n].value);
            if (!r[n].value) {
                char q[256];
                ts_status st = ts__error(err, TS_ERR_IO, "metadata '%s' cannot be read",
                                         ts__printable_str(r[n].key, q, sizeof q));
                free(r);
                free(bl);
                return st;
            }
        }
    }
    qsort(r, n, sizeof *r, cmp_raw);
    ts_status st = TS_OK;
    for (size_t i = 0; i < n && !st;) {
        size_t j = i + 1;
        int same = 1;
        while (j < n && strcmp(r[j].key, r[i].key) == 0) {
            same &= strcmp(r[j].value, r[i].value) == 0;
            j++;
        }
        /* one value: one entry; else one per member */
        for (size_t k = i; k < (same ? i + 1 : j); k++) {
            ts__meta_entry *e = &out->v[out->n];
            if (!(e->label = label_of(m, &r[k], !same))) {
                st = nomem(err);
                break;
            }
            e->value = r[k].value;
            e->order = r[k].order;
            out->n++;
        }
        i = j;
    }
    free(r);
    if (!st) {
        qsort(out->v, out->n, sizeof *out->v, cmp_order);
        for (size_t i = 0; i < out->n; i++)
            bl[i] = (by_label){out->v[i].label, i};
        qsort(bl, out->n, sizeof *bl, cmp_label);
        for (size_t i = 0; i < out->n; i++)
            out->by_label[i] = bl[i].i;
    }
    free(bl);
    return st;
}

void ts__meta_free(ts__meta *mt)
{
    for (size_t i = 0; i < mt->n; i++)
        free(mt->v[i].label);
    free(mt->v);
    free(mt->by_label);
    memset(mt, 0, sizeof *mt);
}

/* The entry of mt labelled `label`, or NULL. */
static const ts__meta_entry *find(const ts__meta *mt, const char *label)
{
    size_t lo = 0, hi = mt->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(mt->v[mt->by_label[mid]].label, label) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < mt->n && strcmp(mt->v[mt->by_label[lo]].label, label) == 0
               ? &mt->v[mt->by_label[lo]]
               : NULL;
}

ts_status ts__meta_compare(const ts__meta *a, const ts__meta *b, ts__meta_diff **out,
                           size_t *n, ts_error *err)
{
    *out = NULL;
    *n = 0;
    if (a->n + b->n == 0)
        return TS_OK;
    ts__meta_diff *d = malloc((a->n + b->n) * sizeof *d);
    if (!d)
        return nomem(err);
    size_t k = 0;
    for (size_t i = 0; i < a->n; i++) {
        const ts__meta_entry *e = find(b, a->v[i].label);
        if (!e || strcmp(e->value, a->v[i].value) != 0)
            d[k++] = (ts__meta_diff){a->v[i].label, a->v[i].value, e ? e->value : NULL};
    }
    for (size_t i = 0; i < b->n; i++)
        if (!find(a, b->v[i].label))
            d[k++] = (ts__meta_diff){b->v[i].label, NULL, b->v[i].value};
    *out = d;
    *n = k;
    return TS_OK;
}
