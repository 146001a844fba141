/*
 * renames.c - ts_namemap: the renaming of tensor names between two sides
 * (diff A B, convert IN OUT): prefixes stripped per side, then side A's
 * renames (tshape.h has the rules), and the rename file's text format.
 *
 * Renames are kept in the order added and looked up through an index
 * sorted by `from` (then by order, so the first added wins), rebuilt
 * lazily after additions.
 */
#include "../core/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rename {
    char *from, *to;
} rename_t;

/* A rename in the sorted index: its from and its place in renames. */
typedef struct rename_key {
    const char *from;
    size_t order;
} rename_key;

struct ts_namemap {
    ts_namemap_prefix *prefixes;
    size_t nprefixes, pcap;
    rename_t *renames;          /* in the order added */
    size_t nrenames, rcap;
    rename_key *sorted;         /* renames by (from, order) */
    size_t nsorted;             /* renames indexed in sorted */
};

static ts_status nomem(ts_error *err, const char *fn)
{
    return ts__fail(err, TS_ERR_NOMEM, -1, -1, "%s: out of memory", fn);
}

ts_status ts_namemap_new(ts_namemap **out, ts_error *err)
{
    TS__ARG_NONNULL(err, out);
    *out = calloc(1, sizeof **out);
    if (!*out)
        return nomem(err, __func__);
    ts__ok(err);
    return TS_OK;
}

void ts_namemap_free(ts_namemap *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->nprefixes; i++)
        free((char *)(uintptr_t)m->prefixes[i].prefix);
    free(m->prefixes);
    for (size_t i = 0; i < m->nrenames; i++) {
        free(m->renames[i].from);
        free(m->renames[i].to);
    }
    free(m->renames);
    free(m->sorted);
    free(m);
}

ts_status ts_namemap_add_prefix(ts_namemap *m, const char *prefix, unsigned sides,
                                ts_error *err)
{
    TS__ARG_NONNULL(err, m);
    TS__ARG_NONNULL(err, prefix);
    if (sides == 0 || (sides & ~(TS_SIDE_A | TS_SIDE_B)))
        return ts__bad_arg(err, __func__, "sides is 0x%x, not TS_SIDE_A, TS_SIDE_B or both",
                           sides);
    if (m->nprefixes == m->pcap) {
        size_t cap = m->pcap ? 2 * m->pcap : 4;
        ts_namemap_prefix *p = realloc(m->prefixes, cap * sizeof *p);
        if (!p)
            return nomem(err, __func__);
        m->prefixes = p;
        m->pcap = cap;
    }
    char *copy = ts__strdup(prefix);
    if (!copy)
        return nomem(err, __func__);
    m->prefixes[m->nprefixes++] = (ts_namemap_prefix){copy, sides, 0, 0};
    ts__ok(err);
    return TS_OK;
}

/* Adds the rename from[0..nf) -> to[0..nt). */
static ts_status add_rename(ts_namemap *m, const char *from, size_t nf, const char *to,
                            size_t nt, ts_error *err)
{
    if (m->nrenames == m->rcap) {
        size_t cap = m->rcap ? 2 * m->rcap : 16;
        rename_t *r = realloc(m->renames, cap * sizeof *r);
        if (!r)
            return nomem(err, "ts_namemap_add_rename");
        m->renames = r;
        m->rcap = cap;
    }
    rename_t *r = &m->renames[m->nrenames];
    r->from = malloc(nf + 1);
    r->to = malloc(nt + 1);
    if (!r->from || !r->to) {
        free(r->from);
        free(r->to);
        return nomem(err, "ts_namemap_add_rename");
    }
    memcpy(r->from, from, nf);
    r->from[nf] = '\0';
    memcpy(r->to, to, nt);
    r->to[nt] = '\0';
    m->nrenames++;
    return TS_OK;
}

ts_status ts_namemap_add_rename(ts_namemap *m, const char *from, const char *to, ts_error *err)
{
    TS__ARG_NONNULL(err, m);
    TS__ARG_NONNULL(err, from);
    TS__ARG_NONNULL(err, to);
    ts_status st = add_rename(m, from, strlen(from), to, strlen(to), err);
    if (!st)
        ts__ok(err);
    return st;
}

static int blank(char c)
{
    return c == ' ' || c == '\t';
}

ts_status ts_namemap_read_renames(ts_namemap *m, const char *text, size_t len, ts_error *err)
{
    TS__ARG_NONNULL(err, m);
    TS__ARG_ARRAY(err, text, len);
    size_t pos = 0;
    int64_t lineno = 0;
    while (pos < len) {
        size_t start = pos, end = pos;
        while (end < len && text[end] != '\n')
            end++;
        pos = end < len ? end + 1 : end;
        lineno++;
        if (end > start && text[end - 1] == '\r')
            end--;
        size_t p = start;
        while (p < end && blank(text[p]))
            p++;
        if (p == end || text[p] == '#')
            continue;
        size_t a = p;
        while (p < end && !blank(text[p]) && text[p] != '\0')
            p++;
        size_t an = p - a;
        while (p < end && blank(text[p]))
            p++;
        size_t b = p;
        while (p < end && !blank(text[p]) && text[p] != '\0')
            p++;
        size_t bn = p - b;
        while (p < end && blank(text[p]))
            p++;
        if (bn == 0 || p != end) {
            ts_status st = ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)start,
                                    "line %lld: expected 'A_NAME B_NAME'", (long long)lineno);
            return ts__error_index(err, st, lineno);
        }
        ts_status st = add_rename(m, text + a, an, text + b, bn, err);
        if (st)
            return st;
    }
    ts__ok(err);
    return TS_OK;
}

static int cmp_key(const void *x, const void *y)
{
    const rename_key *a = x, *b = y;
    int c = strcmp(a->from, b->from);
    return c ? c : (a->order > b->order) - (a->order < b->order);
}

/* The index of renames sorted by from; 0 when out of memory. */
static int index_renames(ts_namemap *m)
{
    if (m->nsorted == m->nrenames)
        return 1;
    rename_key *s = realloc(m->sorted, m->nrenames * sizeof *s);
    if (!s)
        return 0;
    m->sorted = s;
    for (size_t i = 0; i < m->nrenames; i++)
        s[i] = (rename_key){m->renames[i].from, i};
    qsort(s, m->nrenames, sizeof *s, cmp_key);
    m->nsorted = m->nrenames;
    return 1;
}

/* The first rename of `from` added, or NULL. A map whose index cannot be
 * made (out of memory) is searched in order. */
static const rename_t *find_rename(ts_namemap *m, const char *from)
{
    if (!index_renames(m)) {
        for (size_t i = 0; i < m->nrenames; i++)
            if (strcmp(m->renames[i].from, from) == 0)
                return &m->renames[i];
        return NULL;
    }
    size_t lo = 0, hi = m->nrenames;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(m->sorted[mid].from, from) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->nrenames && strcmp(m->sorted[lo].from, from) == 0
               ? &m->renames[m->sorted[lo].order]
               : NULL;
}

const char *ts_namemap_apply(ts_namemap *m, unsigned side, const char *name)
{
    if (!m || !name || (side != TS_SIDE_A && side != TS_SIDE_B))
        return NULL;
    for (size_t i = 0; i < m->nprefixes; i++) {
        ts_namemap_prefix *p = &m->prefixes[i];
        size_t n = strlen(p->prefix);
        if ((p->sides & side) && strncmp(name, p->prefix, n) == 0) {
            if (side == TS_SIDE_A)
                p->hits_a++;
            else
                p->hits_b++;
            name += n;
            break;
        }
    }
    if (side == TS_SIDE_A && m->nrenames) {
        const rename_t *r = find_rename(m, name);
        if (r)
            name = r->to;
    }
    return name;
}

size_t ts_namemap_prefix_count(const ts_namemap *m)
{
    return m ? m->nprefixes : 0;
}

const ts_namemap_prefix *ts_namemap_prefix_at(const ts_namemap *m, size_t i)
{
    return m && i < m->nprefixes ? &m->prefixes[i] : NULL;
}
