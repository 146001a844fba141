/*
 * diffmeta.h - the metadata of a model as one list of entries, as ts_diff
 * compares it (diffmeta.c; tshape.h, ts_diff, has the rule). Not installed.
 */
#ifndef TSHAPE_DIFFMETA_H
#define TSHAPE_DIFFMETA_H

#include "../core/internal.h"

typedef struct ts__meta_entry {
    char *label;            /* the key, or "MEMBER: key" */
    const char *value;      /* JSON text, owned by the model's file */
    size_t order;           /* position in member and file order */
} ts__meta_entry;

typedef struct ts__meta {
    ts__meta_entry *v;      /* in member and file order */
    size_t n;
    size_t *by_label;       /* indices of v sorted by label */
} ts__meta;

/* The metadata entries of model m into *out (zeroed first; free with
 * ts__meta_free even on failure). Errors: TS_ERR_IO (a value that cannot
 * be rendered: "metadata 'KEY' cannot be read"), TS_ERR_NOMEM. */
ts_status ts__meta_collect(const ts_model *m, ts__meta *out, ts_error *err);
void ts__meta_free(ts__meta *mt);

/* One difference: a label whose value differs between a and b, or that
 * only one holds (the other's value NULL). */
typedef struct ts__meta_diff {
    const char *label, *a, *b;
} ts__meta_diff;

/* The differences between a and b into *out (malloc'd, *n of them; free
 * it): a's entries in a's order, then those only in b in b's order.
 * Errors: TS_ERR_NOMEM. */
ts_status ts__meta_compare(const ts__meta *a, const ts__meta *b, ts__meta_diff **out,
                           size_t *n, ts_error *err);

#endif
