/*
 * statsum.c - ts_stats_summary: the model-wide line of `tshape stats
 * --summary` (arrays, elements, NaN and infinity counts, the largest
 * absmax, the arrays that hold a non-finite value), added up from the
 * ts_stats of each array (tshape.h has the rules).
 */
#include "../core/internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

struct ts_stats_summary {
    unsigned flags;
    ts_stats_totals t;
    char **names;           /* labels of the arrays with a non-finite value */
    size_t cap;
};

ts_status ts_stats_summary_new(unsigned flags, ts_stats_summary **out, ts_error *err)
{
    if (out)
        *out = NULL;
    TS__ARG_NONNULL(err, out);
    TS__ARG_FLAGS(err, flags, TS_STATS_SUMMARY_FILES);
    ts_stats_summary *s = calloc(1, sizeof *s);
    if (!s)
        return ts__error(err, TS_ERR_NOMEM, "ts_stats_summary_new: out of memory");
    s->flags = flags;
    s->t.absmax = NAN;
    *out = s;
    ts__ok(err);
    return TS_OK;
}

void ts_stats_summary_free(ts_stats_summary *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->t.nonfinite; i++)
        free(s->names[i]);
    free(s->names);
    free(s);
}

/* *sum += v, stopping at INT64_MAX. */
static void add_sat(int64_t *sum, int64_t v)
{
    if (ts__add_overflow(*sum, v, sum))
        *sum = INT64_MAX;
}

/* "NAME", "FILE:NAME" (TS_STATS_SUMMARY_FILES) or "FILE" (unnamed). */
static char *label(const ts_stats_summary *s, const char *file, const char *name)
{
    int with_file = (s->flags & TS_STATS_SUMMARY_FILES) || !name[0];
    size_t n = strlen(file) + strlen(name) + 2;
    char *l = malloc(n);
    if (l)
        snprintf(l, n, "%s%s%s", with_file ? file : "", with_file && name[0] ? ":" : "",
                 name);
    return l;
}

ts_status ts_stats_summary_add(ts_stats_summary *s, const char *file, const char *name,
                               const ts_stats *st, ts_error *err)
{
    TS__ARG_NONNULL(err, s);
    TS__ARG_NONNULL(err, file);
    TS__ARG_NONNULL(err, name);
    TS__ARG_NONNULL(err, st);
    if (st->nan + st->posinf + st->neginf > 0) {
        if (s->t.nonfinite == s->cap) {
            size_t cap = s->cap ? 2 * s->cap : 16;
            char **p = realloc(s->names, cap * sizeof *p);
            if (!p)
                return ts__error(err, TS_ERR_NOMEM, "ts_stats_summary_add: out of memory");
            s->names = p;
            s->cap = cap;
        }
        if (!(s->names[s->t.nonfinite] = label(s, file, name)))
            return ts__error(err, TS_ERR_NOMEM, "ts_stats_summary_add: out of memory");
        s->t.nonfinite++;
    }
    s->t.arrays++;
    add_sat(&s->t.elements, st->count);
    add_sat(&s->t.nan, st->nan);
    add_sat(&s->t.posinf, st->posinf);
    add_sat(&s->t.neginf, st->neginf);
    s->t.capped += st->capped != 0;
    if (!isnan(st->absmax) && (isnan(s->t.absmax) || st->absmax > s->t.absmax))
        s->t.absmax = st->absmax;
    ts__ok(err);
    return TS_OK;
}

void ts_stats_summary_fail(ts_stats_summary *s)
{
    if (s)
        s->t.failed++;
}

const ts_stats_totals *ts_stats_summary_totals(const ts_stats_summary *s)
{
    return s ? &s->t : NULL;
}

const char *ts_stats_summary_nonfinite_at(const ts_stats_summary *s, size_t i)
{
    return s && i < s->t.nonfinite ? s->names[i] : NULL;
}
