/*
 * metadiff.c - the metadata of a model as one list of entries, and the
 * entries that differ between two (see metadiff.h).
 */
#include "metadiff.h"

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

static const cli_meta_entry *sort_base; /* qsort has no user pointer */

static int cmp_label(const void *x, const void *y)
{
    const cli_meta_entry *a = &sort_base[*(const size_t *)x], *b = &sort_base[*(const size_t *)y];
    int c = strcmp(a->label, b->label);
    return c ? c : (a->order > b->order) - (a->order < b->order);
}

static int cmp_order(const void *x, const void *y)
{
    const cli_meta_entry *a = x, *b = y;
    return (a->order > b->order) - (a->order < b->order);
}

/* The member's path from the model's folder: after `root` (the folder
 * named) or the index's folder, else its base name. */
static const char *member_label(const ts_model *m, const char *root, size_t i)
{
    const char *p = ts_model_file_path(m, i), *index = ts_model_index(m);
    size_t n = strlen(root);
    if (n > 0 && strncmp(p, root, n) == 0 && (p[n] == '/' || root[n - 1] == '/'))
        return p + n + (p[n] == '/');
    const char *e = index ? strrchr(index, '/') : NULL;
    if (e && strncmp(p, index, (size_t)(e - index) + 1) == 0)
        return p + (e - index) + 1;
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static char *label_of(const ts_model *m, const char *root, const raw *r, int with_member)
{
    const char *member = with_member ? member_label(m, root, r->member) : "";
    size_t n = strlen(member) + strlen(r->key) + 3;
    char *l = malloc(n);
    if (l)
        snprintf(l, n, "%s%s%s", member, with_member ? ": " : "", r->key);
    return l;
}

int cli_meta_collect(cli_ctx *ctx, const char *path, const ts_model *m, cli_meta *out)
{
    memset(out, 0, sizeof *out);
    size_t total = 0;
    for (size_t f = 0; f < ts_model_file_count(m); f++)
        total += ts_file_metadata_count(ts_model_file(m, f));
    if (total == 0)
        return CLI_OK;
    raw *r = malloc(total * sizeof *r);
    out->v = calloc(total, sizeof *out->v);
    out->by_label = malloc(total * sizeof *out->by_label);
    if (!r || !out->v || !out->by_label) {
        free(r);
        return cli_error(ctx, path, "out of memory");
    }
    size_t n = 0;
    for (size_t f = 0; f < ts_model_file_count(m); f++) {
        const ts_file *file = ts_model_file(m, f);
        for (size_t i = 0; i < ts_file_metadata_count(file); i++, n++) {
            r[n].member = f;
            r[n].order = n;
            r[n].value = NULL;
            ts_file_metadata(file, i, &r[n].key, &r[n].value);
            if (!r[n].value) {
                char q[256];
                int st = cli_error(ctx, ts_model_file_path(m, f), "metadata '%s' cannot be read",
                                   cli_quote(r[n].key, strlen(r[n].key), q, sizeof q));
                free(r);
                return st;
            }
        }
    }
    qsort(r, n, sizeof *r, cmp_raw);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        int same = 1;
        while (j < n && strcmp(r[j].key, r[i].key) == 0) {
            same &= strcmp(r[j].value, r[i].value) == 0;
            j++;
        }
        /* one value: one entry; else one per member */
        for (size_t k = i; k < (same ? i + 1 : j); k++) {
            cli_meta_entry *e = &out->v[out->n];
            if (!(e->label = label_of(m, path, &r[k], !same))) {
                free(r);
                return cli_error(ctx, path, "out of memory");
            }
            e->value = r[k].value;
            e->order = r[k].order;
            out->n++;
        }
        i = j;
    }
    free(r);
    qsort(out->v, out->n, sizeof *out->v, cmp_order);
    for (size_t i = 0; i < out->n; i++)
        out->by_label[i] = i;
    sort_base = out->v;
    if (out->n > 1)
        qsort(out->by_label, out->n, sizeof *out->by_label, cmp_label);
    return CLI_OK;
}

void cli_meta_free(cli_meta *mt)
{
    for (size_t i = 0; i < mt->n; i++)
        free(mt->v[i].label);
    free(mt->v);
    free(mt->by_label);
    memset(mt, 0, sizeof *mt);
}

/* The entry of mt labelled `label`, or NULL. */
static const cli_meta_entry *find(const cli_meta *mt, const char *label)
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

size_t cli_meta_compare(const cli_meta *a, const cli_meta *b, cli_meta_fn fn, void *user)
{
    size_t n = 0;
    for (size_t i = 0; i < a->n; i++) {
        const cli_meta_entry *e = find(b, a->v[i].label);
        if (!e || strcmp(e->value, a->v[i].value) != 0) {
            fn(user, a->v[i].label, a->v[i].value, e ? e->value : NULL);
            n++;
        }
    }
    for (size_t i = 0; i < b->n; i++)
        if (!find(a, b->v[i].label)) {
            fn(user, b->v[i].label, NULL, b->v[i].value);
            n++;
        }
    return n;
}
