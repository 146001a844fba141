/*
 * jagged.c - TensorWrapper's JaggedShape, TiledShape and Nested<T> layers
 * (NWChemEx TensorWrapper docs/source/developer/design/shapev1.rst; none of
 * them exists in its code). A jagged shape is a tree: brace nodes are the
 * jagged modes, leaves are smooth shapes. The text form and the rank rule
 * are documented at ts_jagged in tshape.h and in tshape(1).
 *
 * Storage: flat arrays. nodes[] holds every node; a brace's children are
 * kids[first .. first+nchild-1] (node ids); a leaf's dims are
 * dims[first .. first+leaf_rank-1]. Everything is bounded by
 * TS_JAGGED_MAX_NODES (nodes, and separately leaf dims) and
 * TS_JAGGED_MAX_DEPTH, so hostile text cannot exhaust memory or the stack.
 */
#include "../core/internal.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct jnode {
    int32_t leaf;        /* 1: a smooth shape */
    int32_t nchild;      /* brace: number of children */
    int64_t first;       /* brace: index in kids; leaf: index in dims */
} jnode;

struct ts_jagged {
    jnode *nodes;
    size_t nnodes, node_cap;
    int32_t *kids;
    size_t nkids, kid_cap;
    int64_t *dims;
    size_t ndims, dim_cap;
    int32_t root;
    int depth;           /* brace levels above the leaves */
    int leaf_rank;       /* rank of every leaf; 0 when there is no leaf */
};

/* ---- storage ------------------------------------------------------------ */

static ts_status grow(void **p, size_t *cap, size_t need, size_t elem, ts_error *err)
{
    if (need <= *cap)
        return TS_OK;
    if (need > TS_JAGGED_MAX_NODES)
        return ts__error(err, TS_ERR_LIMIT,
                         "jagged shape: more than %d nodes or leaf dims", TS_JAGGED_MAX_NODES);
    size_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    if (n > TS_JAGGED_MAX_NODES)
        n = TS_JAGGED_MAX_NODES;
    void *q = realloc(*p, n * elem);
    if (!q)
        return ts__error(err, TS_ERR_NOMEM, "jagged shape: out of memory for %zu entries", n);
    *p = q;
    *cap = n;
    return TS_OK;
}

static ts_status add_node(ts_jagged *j, int leaf, int32_t nchild, int64_t first, int32_t *id,
                          ts_error *err)
{
    ts_status st = grow((void **)&j->nodes, &j->node_cap, j->nnodes + 1, sizeof *j->nodes, err);
    if (st)
        return st;
    jnode *n = &j->nodes[j->nnodes];
    n->leaf = leaf;
    n->nchild = nchild;
    n->first = first;
    *id = (int32_t)j->nnodes++;
    return TS_OK;
}

static ts_status add_leaf(ts_jagged *j, const int64_t *d, int rank, int32_t *id, ts_error *err)
{
    ts_status st = grow((void **)&j->dims, &j->dim_cap, j->ndims + (size_t)rank,
                        sizeof *j->dims, err);
    if (st)
        return st;
    if (rank > 0)
        memcpy(j->dims + j->ndims, d, (size_t)rank * sizeof *d);
    st = add_node(j, 1, 0, (int64_t)j->ndims, id, err);
    if (!st)
        j->ndims += (size_t)rank;
    return st;
}

/* Adds a brace whose n children are kid ids in ids[]. */
static ts_status add_brace(ts_jagged *j, const int32_t *ids, int32_t n, int32_t *id,
                           ts_error *err)
{
    ts_status st = grow((void **)&j->kids, &j->kid_cap, j->nkids + (size_t)n, sizeof *j->kids,
                        err);
    if (st)
        return st;
    if (n > 0)
        memcpy(j->kids + j->nkids, ids, (size_t)n * sizeof *ids);
    st = add_node(j, 0, n, (int64_t)j->nkids, id, err);
    if (!st)
        j->nkids += (size_t)n;
    return st;
}

void ts_jagged_free(ts_jagged *j)
{
    if (!j)
        return;
    free(j->nodes);
    free(j->kids);
    free(j->dims);
    free(j);
}

/* A new empty tree. Every array starts allocated, so `dims + first` and
 * friends never do arithmetic on NULL, even for rank-0 leaves. */
static ts_jagged *jagged_new(ts_error *err)
{
    ts_jagged *j = calloc(1, sizeof *j);
    if (j && (grow((void **)&j->nodes, &j->node_cap, 1, sizeof *j->nodes, err) ||
              grow((void **)&j->kids, &j->kid_cap, 1, sizeof *j->kids, err) ||
              grow((void **)&j->dims, &j->dim_cap, 1, sizeof *j->dims, err))) {
        ts_jagged_free(j);
        return NULL;
    }
    if (!j)
        ts__error(err, TS_ERR_NOMEM, "jagged shape: out of memory");
    return j;
}

/* ---- parsing ------------------------------------------------------------ */

/* What is known about a subtree: its depth (exact, or at least `depth`
 * when it holds only empty braces) and the rank of its leaves (-1: none). */
typedef struct info {
    int depth;
    int exact;
    int leaf_rank;
} info;

typedef struct jparser {
    const char *s;
    size_t len, pos;
    ts_jagged *j;
    int32_t *stack;      /* child ids of the open braces */
    size_t nstack, stack_cap;
    ts_error *err;
} jparser;

static ts_status expected(jparser *p, const char *what);

static void skip_ws(jparser *p)
{
    p->pos = ts__skip_ws(p->s, p->len, p->pos, TS__WS_TEXT);
}

/* A dim: digits only (no sign), at most INT64_MAX; advances p->pos. */
static ts_status parse_dim(jparser *p, int64_t *out, const char *expected_what)
{
    ts__int v;
    int r = ts__scan_int(p->s, p->len, p->pos, 0, &v);
    if (r == TS__INT_NONE)
        return expected(p, expected_what);
    p->pos = v.end;
    if (r == TS__INT_OVERFLOW)
        return ts__fail(p->err, TS_ERR_OVERFLOW, (int64_t)v.start + 1, -1,
                        "dim at column %zu does not fit in int64", v.start + 1);
    *out = v.value;
    return TS_OK;
}

static ts_status expected(jparser *p, const char *what)
{
    char buf[16];
    return ts__fail(p->err, TS_ERR_PARSE, (int64_t)p->pos + 1, -1,
                    "expected %s at column %zu, found %s", what, p->pos + 1,
                    ts__found_at(p->s, p->len, p->pos, buf, sizeof buf));
}

/* A smooth tuple "(10,20)", "[10]", "()": strict, dims >= 0. */
static ts_status parse_tuple(jparser *p, int64_t *dims, int *rank)
{
    char open = p->s[p->pos], close = open == '(' ? ')' : ']';
    size_t open_col = p->pos + 1;
    *rank = 0;
    p->pos++;
    skip_ws(p);
    if (p->pos < p->len && p->s[p->pos] == close) {
        p->pos++;
        return TS_OK;
    }
    for (;;) {
        size_t start = p->pos;
        int64_t v;
        ts_status st = parse_dim(p, &v, *rank == 0 ? "a dim or the closing bracket" : "a dim");
        if (st)
            return st;
        if (*rank == TS_MAX_NDIM)
            return ts__fail(p->err, TS_ERR_NDIM, (int64_t)start + 1, -1,
                            "more than %d dims in the shape at column %zu", TS_MAX_NDIM,
                            open_col);
        dims[(*rank)++] = v;
        skip_ws(p);
        if (p->pos < p->len && p->s[p->pos] == ',') {
            p->pos++;
            skip_ws(p);
            if (p->pos < p->len && p->s[p->pos] == close) {
                p->pos++;
                return TS_OK;
            }
            continue;
        }
        if (p->pos < p->len && p->s[p->pos] == close) {
            p->pos++;
            return TS_OK;
        }
        char what[64];
        snprintf(what, sizeof what, "',' or '%c' (for the '%c' at column %zu)", close, open,
                 open_col);
        return expected(p, what);
    }
}

/*
 * Folds what is known about child `k` (starting at column col) into the
 * aggregate of its siblings; `first_*` remember which sibling fixed what.
 */
static ts_status merge(jparser *p, info *agg, const info *child, int k, size_t col,
                       int *depth_from, int *rank_from, size_t brace_col)
{
    /* Depth: exact values must agree; "at least" values must not exceed. */
    int conflict = 0;
    if (k == 0) {
        *agg = *child;
        *depth_from = 0;
        *rank_from = child->leaf_rank >= 0 ? 0 : -1;
        return TS_OK;
    }
    if (agg->exact && child->exact)
        conflict = agg->depth != child->depth;
    else if (agg->exact)
        conflict = child->depth > agg->depth;
    else if (child->exact)
        conflict = agg->depth > child->depth;
    int rank_conflict = agg->leaf_rank >= 0 && child->leaf_rank >= 0 &&
                        agg->leaf_rank != child->leaf_rank;
    if (conflict || rank_conflict) {
        int r_child = child->depth + child->leaf_rank, r_agg = agg->depth + agg->leaf_rank;
        if (rank_conflict && r_child != r_agg)
            return ts__fail(p->err, TS_ERR_PARSE, (int64_t)col, -1,
                            "ragged jagged shape: element %d of {...} at column %zu has rank "
                            "%d but element %d has rank %d (the {...} opens at column %zu)",
                            k, col, r_child, *rank_from, r_agg, brace_col);
        /* Same rank split differently, or brace levels that differ. */
        return ts__fail(p->err, TS_ERR_PARSE, (int64_t)col, -1,
                        "ragged jagged shape: element %d of {...} at column %zu has %s%d "
                        "jagged mode%s but element %d has %s%d (the {...} opens at column %zu)",
                        k, col, child->exact ? "" : "at least ", child->depth,
                        child->depth == 1 && child->exact ? "" : "s", *depth_from,
                        agg->exact ? "" : "at least ", agg->depth, brace_col);
    }
    if (child->exact && !agg->exact) {
        agg->depth = child->depth;
        agg->exact = 1;
        *depth_from = k;
    } else if (!agg->exact && child->depth > agg->depth) {
        agg->depth = child->depth;
        *depth_from = k;
    }
    if (agg->leaf_rank < 0 && child->leaf_rank >= 0) {
        agg->leaf_rank = child->leaf_rank;
        *rank_from = k;
    }
    return TS_OK;
}

static ts_status parse_item(jparser *p, int level, int32_t *id, info *out);

/* Parses "{ item, ... }" at p->pos. */
static ts_status parse_brace(jparser *p, int level, int32_t *id, info *out)
{
    size_t brace_col = p->pos + 1;
    ts_status st;
    if (level >= TS_JAGGED_MAX_DEPTH)
        return ts__fail(p->err, TS_ERR_LIMIT, (int64_t)brace_col, -1,
                        "'{' at column %zu nests deeper than %d levels", brace_col,
                        TS_JAGGED_MAX_DEPTH);
    p->pos++;
    size_t base = p->nstack;
    info agg = {0, 0, -1};
    int depth_from = 0, rank_from = -1, k = 0;
    skip_ws(p);
    if (p->pos < p->len && p->s[p->pos] == '}') {
        p->pos++;
    } else {
        for (;;) {
            skip_ws(p);
            size_t col = p->pos + 1;
            int32_t child;
            info ci;
            if ((st = parse_item(p, level + 1, &child, &ci)) != TS_OK)
                return st;
            if ((st = merge(p, &agg, &ci, k, col, &depth_from, &rank_from, brace_col)) != TS_OK)
                return st;
            if ((st = grow((void **)&p->stack, &p->stack_cap, p->nstack + 1, sizeof *p->stack,
                           p->err)) != TS_OK)
                return st;
            p->stack[p->nstack++] = child;
            k++;
            skip_ws(p);
            if (p->pos < p->len && p->s[p->pos] == ',') {
                p->pos++;
                skip_ws(p);
                if (p->pos < p->len && p->s[p->pos] == '}') {
                    p->pos++;
                    break;
                }
                continue;
            }
            if (p->pos < p->len && p->s[p->pos] == '}') {
                p->pos++;
                break;
            }
            char what[64];
            snprintf(what, sizeof what, "',' or '}' (for the '{' at column %zu)", brace_col);
            return expected(p, what);
        }
    }
    /* no child ever pushed: the stack may still be NULL */
    st = add_brace(p->j, p->stack ? p->stack + base : NULL, (int32_t)(p->nstack - base), id,
                   p->err);
    p->nstack = base;
    if (st)
        return st;
    if (k == 0) {
        out->depth = 1;
        out->exact = 0;
        out->leaf_rank = -1;
    } else {
        out->depth = agg.depth + 1;
        out->exact = agg.exact;
        out->leaf_rank = agg.leaf_rank;
    }
    if (out->depth + (out->leaf_rank > 0 ? out->leaf_rank : 0) > TS_MAX_NDIM)
        return ts__fail(p->err, TS_ERR_NDIM, (int64_t)brace_col, -1,
                        "the {...} at column %zu has rank above %d", brace_col, TS_MAX_NDIM);
    return TS_OK;
}

/* item := tuple | "{" ... "}". */
static ts_status parse_item(jparser *p, int level, int32_t *id, info *out)
{
    skip_ws(p);
    if (p->pos < p->len && p->s[p->pos] == '{')
        return parse_brace(p, level, id, out);
    if (p->pos < p->len && (p->s[p->pos] == '(' || p->s[p->pos] == '[')) {
        int64_t dims[TS_MAX_NDIM];
        int rank;
        ts_status st = parse_tuple(p, dims, &rank);
        if (st)
            return st;
        out->depth = 0;
        out->exact = 1;
        out->leaf_rank = rank;
        return add_leaf(p->j, dims, rank, id, p->err);
    }
    return expected(p, "a shape tuple such as (10,20) or a nested {...}");
}

/* "tile" { ws tuple }: TiledShape. */
static ts_status parse_tile(jparser *p, ts_jagged **out)
{
    ts_shape tiles[TS_JAGGED_MAX_DEPTH];
    int n = 0;
    ts_status st = TS_OK;
    p->pos += 4;
    if (p->pos < p->len && !ts__is_ws(p->s[p->pos], TS__WS_BLANK))
        return expected(p, "a space after 'tile'");
    for (;;) {
        skip_ws(p);
        if (p->pos >= p->len)
            break;
        if (p->s[p->pos] != '(' && p->s[p->pos] != '[') {
            st = expected(p, "a tuple of tile extents such as (5,10,15)");
            break;
        }
        if (n == TS_JAGGED_MAX_DEPTH) {
            st = ts__fail(p->err, TS_ERR_LIMIT, (int64_t)p->pos + 1, -1,
                          "more than %d tiled modes (at column %zu)", TS_JAGGED_MAX_DEPTH,
                          p->pos + 1);
            break;
        }
        int64_t dims[TS_MAX_NDIM];
        int rank;
        if ((st = parse_tuple(p, dims, &rank)) != TS_OK)
            break;
        ts_shape_init(&tiles[n]);
        if ((st = ts_shape_assign(&tiles[n], dims, rank, p->err)) != TS_OK)
            break;
        n++;
    }
    if (!st)
        st = ts_jagged_tile(tiles, n, out, p->err);
    for (int i = 0; i < n; i++)
        ts_shape_free(&tiles[i]);
    return st;
}

ts_status ts_jagged_parse(const char *text, size_t len, ts_jagged **out, ts_error *err)
{
    TS__ARG_NONNULL(err, out);
    *out = NULL;
    TS__ARG_ARRAY(err, text, len);
    jparser p = {text, len, 0, NULL, NULL, 0, 0, err};
    ts_status st;
    skip_ws(&p);
    if (p.pos >= p.len)
        return ts__fail(err, TS_ERR_PARSE, (int64_t)p.pos + 1, -1,
                        "expected a jagged shape such as {(10,),(20,)} at column %zu, found %s",
                        p.pos + 1, len == 0 ? "an empty string" : "only whitespace");
    if (p.len - p.pos >= 4 && memcmp(p.s + p.pos, "tile", 4) == 0) {
        st = parse_tile(&p, out);
        if (st)
            *out = NULL;
        return st;
    }
    if (!(p.j = jagged_new(err)))
        return TS_ERR_NOMEM;
    char c = p.s[p.pos];
    if (c == '{' || c == '(' || c == '[') {
        info inf;
        st = parse_item(&p, 0, &p.j->root, &inf);
        if (!st) {
            p.j->depth = inf.depth;
            p.j->leaf_rank = inf.leaf_rank > 0 ? inf.leaf_rank : 0;
        }
    } else if (ts__is_digit(c)) {
        /* A bare integer at the top level is a 1-D smooth shape, as SHAPE. */
        int64_t d1 = 0;
        st = parse_dim(&p, &d1, "a dim");
        if (!st)
            st = add_leaf(p.j, &d1, 1, &p.j->root, err);
        p.j->depth = 0;
        p.j->leaf_rank = 1;
    } else {
        st = expected(&p, "'{', a shape tuple such as (10,20), or 'tile'");
    }
    if (!st) {
        skip_ws(&p);
        char buf[16];
        if (p.pos < p.len)
            st = ts__fail(err, TS_ERR_PARSE, (int64_t)p.pos + 1, -1,
                          "unexpected %s after the jagged shape at column %zu",
                          ts__found_at(p.s, p.len, p.pos, buf, sizeof buf), p.pos + 1);
    }
    free(p.stack);
    if (st) {
        ts_jagged_free(p.j);
        return st;
    }
    *out = p.j;
    ts__ok(err);
    return TS_OK;
}

/* Leaves and brace depth below node id (an empty brace counts 1). */
static void tree_stats(const ts_jagged *j, int32_t id, int64_t *leaves, int *depth)
{
    const jnode *nd = &j->nodes[id];
    *depth = 0;
    if (nd->leaf) {
        (*leaves)++;
        return;
    }
    int deepest = 0;
    for (int32_t i = 0; i < nd->nchild; i++) {
        int d;
        tree_stats(j, j->kids[nd->first + i], leaves, &d);
        if (d > deepest)
            deepest = d;
    }
    *depth = deepest + 1;
}

/*
 * A shape without any leaf has no leaf rank its text could record ("{}"
 * reads as rank 1 whatever built it), so such shapes get the rank their
 * canonical text has: the brace depth, leaf rank 0. This keeps
 * format -> parse a fixed point for tiles and slices too.
 */
static void normalize(ts_jagged *j)
{
    int64_t leaves = 0;
    int depth;
    tree_stats(j, j->root, &leaves, &depth);
    if (leaves == 0) {
        j->depth = depth;
        j->leaf_rank = 0;
    }
}

/* ---- tiles -------------------------------------------------------------- */

/* Builds the subtree for tile indices idx[0..level-1]. */
static ts_status build_tile(ts_jagged *j, const ts_shape *tiles, int n, int level,
                            int64_t *idx, int32_t *id, ts_error *err)
{
    if (level == n) {
        int64_t d[TS_JAGGED_MAX_DEPTH];
        for (int k = 0; k < n; k++)
            d[k] = ts_shape_dims(&tiles[k])[idx[k]];
        return add_leaf(j, d, n, id, err);
    }
    int32_t count = (int32_t)tiles[level].ndim;
    int32_t kids[TS_MAX_NDIM];
    for (int32_t i = 0; i < count; i++) {
        idx[level] = i;
        ts_status st = build_tile(j, tiles, n, level + 1, idx, &kids[i], err);
        if (st)
            return st;
    }
    return add_brace(j, kids, count, id, err);
}

ts_status ts_jagged_tile(const ts_shape *tiles, size_t ntiles, ts_jagged **out, ts_error *err)
{
    TS__ARG_NONNULL(err, out);
    *out = NULL;
    TS__ARG_ARRAY(err, tiles, ntiles);
    if (ntiles > TS_JAGGED_MAX_DEPTH || 2 * ntiles > TS_MAX_NDIM)
        return ts__error(err, TS_ERR_LIMIT, "tile: %zu tiled modes, the limit is %d", ntiles,
                         TS_MAX_NDIM / 2 < TS_JAGGED_MAX_DEPTH ? TS_MAX_NDIM / 2
                                                               : TS_JAGGED_MAX_DEPTH);
    const int n = (int)ntiles;
    /* Count nodes and leaf dims before allocating anything. */
    int64_t level_nodes = 1, total = 1;
    for (int k = 0; k < n; k++) {
        const int64_t *t = ts_shape_dims(&tiles[k]);
        for (int i = 0; i < tiles[k].ndim; i++)
            if (t[i] < 0)
                return ts__error(err, TS_ERR_VALUE, "tile: extent %lld of tiled mode %d is negative",
                                 (long long)t[i], k);
        level_nodes *= tiles[k].ndim; /* <= TS_JAGGED_MAX_NODES * 64: no overflow */
        total += level_nodes;
        if (total > TS_JAGGED_MAX_NODES || level_nodes * n > TS_JAGGED_MAX_NODES)
            return ts__error(err, TS_ERR_LIMIT,
                             "tile: more than %d nodes or leaf dims in the tiling",
                             TS_JAGGED_MAX_NODES);
    }
    ts_jagged *j = jagged_new(err);
    if (!j)
        return TS_ERR_NOMEM;
    int64_t idx[TS_JAGGED_MAX_DEPTH];
    ts_status st = build_tile(j, tiles, n, 0, idx, &j->root, err);
    if (st) {
        ts_jagged_free(j);
        return st;
    }
    j->depth = n;
    j->leaf_rank = n;
    normalize(j);
    *out = j;
    ts__ok(err);
    return TS_OK;
}

/* ---- queries ------------------------------------------------------------ */

int ts_jagged_rank(const ts_jagged *j)
{
    return j ? j->depth + j->leaf_rank : 0;
}

int ts_jagged_depth(const ts_jagged *j)
{
    return j ? j->depth : 0;
}

/* Number of distinct index prefixes of length `len` below node `id` at
 * brace level `level` (see ts_jagged_layers). */
static ts_status count_prefixes(const ts_jagged *j, int32_t id, int level, int len,
                                 int64_t *out, ts_error *err)
{
    const jnode *nd = &j->nodes[id];
    if (level == len) {
        *out = 1;
        return TS_OK;
    }
    if (nd->leaf) {
        ts_status st = ts__dims_size(j->dims + nd->first, len - level, out, err);
        return st;
    }
    int64_t sum = 0;
    for (int32_t i = 0; i < nd->nchild; i++) {
        int64_t c;
        ts_status st = count_prefixes(j, j->kids[nd->first + i], level + 1, len, &c, err);
        if (st)
            return st;
        if (ts__add_overflow(sum, c, &sum))
            return ts__error(err, TS_ERR_OVERFLOW,
                             "the element count of the jagged shape does not fit in int64");
    }
    *out = sum;
    return TS_OK;
}

ts_status ts_jagged_size(const ts_jagged *j, int64_t *out, ts_error *err)
{
    TS__ARG_NONNULL(err, j);
    TS__ARG_NONNULL(err, out);
    ts_status st = count_prefixes(j, j->root, 0, ts_jagged_rank(j), out, err);
    if (!st)
        ts__ok(err);
    return st;
}

ts_status ts_jagged_layers(const ts_jagged *j, const int64_t *layers, size_t nlayers,
                           int64_t *elements, ts_error *err)
{
    TS__ARG_NONNULL(err, j);
    TS__ARG_ARRAY(err, layers, nlayers);
    TS__ARG_ARRAY(err, elements, nlayers);
    int64_t sum = 0;
    const int rank = ts_jagged_rank(j);
    for (size_t i = 0; i < nlayers; i++) {
        if (layers[i] < 0)
            return ts__error(err, TS_ERR_VALUE, "layer %zu has %lld modes: layers need >= 0",
                             i, (long long)layers[i]);
        if (layers[i] > TS_MAX_NDIM || ts__add_overflow(sum, layers[i], &sum) ||
            sum > TS_MAX_NDIM)
            sum = TS_MAX_NDIM + 1;
    }
    if (sum != rank) {
        char buf[TS__SHAPE_STR_MAX];
        size_t pos = 0;
        buf[0] = '\0';
        for (size_t i = 0; i < nlayers && pos + 24 < sizeof buf; i++)
            pos += (size_t)snprintf(buf + pos, sizeof buf - pos, "%s%lld", i ? "," : "",
                                    (long long)layers[i]);
        if (sum > TS_MAX_NDIM)
            return ts__error(err, TS_ERR_VALUE,
                             "layers %s sum to more than %d but the shape has rank %d",
                             nlayers ? buf : "()", TS_MAX_NDIM, rank);
        return ts__error(err, TS_ERR_VALUE, "layers %s sum to rank %lld but the shape has rank %d",
                         nlayers ? buf : "()", (long long)sum, rank);
    }
    int len = 0;
    for (size_t i = 0; i < nlayers; i++) {
        len += (int)layers[i];
        ts_status st = count_prefixes(j, j->root, 0, len, &elements[i], err);
        if (st)
            return st;
    }
    ts__ok(err);
    return TS_OK;
}

/* ---- slices ------------------------------------------------------------- */

/* Copies the subtree at `id` of src into dst, returning its new id. */
static ts_status copy_tree(const ts_jagged *src, int32_t id, ts_jagged *dst, int32_t *out,
                           ts_error *err)
{
    const jnode *nd = &src->nodes[id];
    if (nd->leaf)
        return add_leaf(dst, src->dims + nd->first, src->leaf_rank, out, err);
    int32_t kids[64];
    int32_t *ids = nd->nchild <= 64 ? kids : malloc((size_t)nd->nchild * sizeof *ids);
    if (!ids)
        return ts__error(err, TS_ERR_NOMEM, "jagged shape: out of memory");
    ts_status st = TS_OK;
    for (int32_t i = 0; i < nd->nchild && !st; i++)
        st = copy_tree(src, src->kids[nd->first + i], dst, &ids[i], err);
    if (!st)
        st = add_brace(dst, ids, nd->nchild, out, err);
    if (ids != kids)
        free(ids);
    return st;
}

ts_status ts_jagged_slice(const ts_jagged *j, const int64_t *index, size_t nindex,
                          ts_jagged **out, ts_error *err)
{
    TS__ARG_NONNULL(err, out);
    *out = NULL;
    TS__ARG_NONNULL(err, j);
    TS__ARG_ARRAY(err, index, nindex);
    const int rank = ts_jagged_rank(j);
    if (nindex > (size_t)rank)
        return ts__error(err, TS_ERR_NDIM, "jagged slice: %zu indices for a shape of rank %d",
                         nindex, rank);
    const int n = (int)nindex;
    int32_t id = j->root;
    int k = 0;
    for (; k < n && !j->nodes[id].leaf; k++) {
        const jnode *nd = &j->nodes[id];
        if (index[k] < 0 || index[k] >= nd->nchild)
            return ts__error(err, TS_ERR_INDEX,
                             "jagged slice: index %lld is out of bounds for jagged mode %d with "
                             "%d element%s", (long long)index[k], k, (int)nd->nchild,
                             nd->nchild == 1 ? "" : "s");
        id = j->kids[nd->first + index[k]];
    }
    ts_jagged *r = jagged_new(err);
    if (!r)
        return TS_ERR_NOMEM;
    ts_status st;
    if (k < n) {
        /* The rest chips the smooth leaf. */
        const int64_t *d = j->dims + j->nodes[id].first;
        int skip = n - k;
        for (int i = 0; i < skip; i++)
            if (index[k + i] < 0 || index[k + i] >= d[i]) {
                ts_jagged_free(r);
                return ts__error(err, TS_ERR_INDEX,
                                 "jagged slice: index %lld is out of bounds for mode %d with "
                                 "extent %lld", (long long)index[k + i], k + i, (long long)d[i]);
            }
        st = add_leaf(r, d + skip, j->leaf_rank - skip, &r->root, err);
        r->depth = 0;
        r->leaf_rank = j->leaf_rank - skip;
    } else {
        r->leaf_rank = j->leaf_rank;
        st = copy_tree(j, id, r, &r->root, err);
        r->depth = j->depth - k;
        if (!st)
            normalize(r);
    }
    if (st) {
        ts_jagged_free(r);
        return st;
    }
    *out = r;
    ts__ok(err);
    return TS_OK;
}

ts_status ts_jagged_smooth(const ts_jagged *j, ts_shape *out, ts_error *err)
{
    TS__ARG_NONNULL(err, j);
    TS__ARG_NONNULL(err, out);
    if (j->depth != 0) {
        char buf[96];
        size_t n = ts_jagged_format(j, buf, sizeof buf);
        return ts__error(err, TS_ERR_NDIM,
                         "jagged shape %s%s has %d jagged mode%s: it is not smooth", buf,
                         n >= sizeof buf ? "..." : "", j->depth, j->depth == 1 ? "" : "s");
    }
    const jnode *nd = &j->nodes[j->root];
    ts_status st = ts_shape_assign(out, j->dims + nd->first, j->leaf_rank, err);
    if (st)
        return st;
    ts__ok(err);
    return TS_OK;
}

/* ---- format ------------------------------------------------------------- */

typedef struct writer {
    char *buf;
    size_t cap, pos;
} writer;

static void put(writer *w, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++, w->pos++)
        if (w->pos + 1 < w->cap)
            w->buf[w->pos] = s[i];
}

static void put_tree(const ts_jagged *j, int32_t id, writer *w)
{
    const jnode *nd = &j->nodes[id];
    if (nd->leaf) {
        char tmp[TS_MAX_NDIM * 21 + 4];
        size_t p = 0;
        tmp[p++] = '(';
        for (int i = 0; i < j->leaf_rank; i++)
            p += (size_t)snprintf(tmp + p, sizeof tmp - p, "%s%lld", i ? "," : "",
                                  (long long)j->dims[nd->first + i]);
        if (j->leaf_rank == 1)
            tmp[p++] = ',';
        tmp[p++] = ')';
        put(w, tmp, p);
        return;
    }
    put(w, "{", 1);
    for (int32_t i = 0; i < nd->nchild; i++) {
        if (i)
            put(w, ",", 1);
        put_tree(j, j->kids[nd->first + i], w);
    }
    put(w, "}", 1);
}

size_t ts_jagged_format(const ts_jagged *j, char *buf, size_t cap)
{
    if (!buf && cap)
        return 0;
    if (!j) {
        if (cap)
            buf[0] = '\0';
        return 0;
    }
    writer w = {buf, cap, 0};
    put_tree(j, j->root, &w);
    if (cap > 0)
        buf[w.pos < cap ? w.pos : cap - 1] = '\0';
    return w.pos;
}
