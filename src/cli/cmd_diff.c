/*
 * cmd_diff.c - tshape diff A B: the structural difference of two files or
 * models (folders, index files), of the same or different formats: tensors
 * only in A, only in B, and tensors whose dtype or shape differ; equal
 * tensors are counted. Exit 0 equal, 1 different, 2 error (as cmp, diff).
 *
 * Names are matched after mapping: --strip-prefix removes a prefix on
 * either side, --rename renames A's tensors. Each pair of tensors with one
 * name is compared by compare_pair(), which with --values also compares
 * the data (ts_array_compare, numpy.isclose's rule) of pairs of one shape:
 * a pair whose values are not all close is a difference of kind "values"
 * (or keeps its dtype kind, with the values' report beside it).
 */
#include "cli.h"
#include "model.h"
#include "names.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const cli_option diff_options[] = {
    CLI_ABOUT("A and B: files, model folders or index files (see info). Names are\n"
              "matched after --strip-prefix and --rename. Exit status 0 when A and B\n"
              "have the same tensors with the same dtypes and shapes (with --values:\n"
              "and values all close), 1 when they differ, 2 on error (a model with a\n"
              "missing shard, values that cannot be read).\n"
              "With --json, one object per difference, then one with the counts."),
    CLI_VALUE("strip-prefix", 'p', "A[:B]",
              "remove prefix A from A's names and B from B's (A alone: from both;\n"
              "a value ending in ':' is one prefix, as 'arg:'); repeatable"),
    CLI_VALUE("rename", 0, "MAPFILE",
              "lines 'A_NAME B_NAME': A's tensor A_NAME is B's B_NAME ('#' comments)"),
    CLI_FLAG("recursive", 'r', "folders without an index: their subfolders too"),
    CLI_FLAG("values", 0, "also compare the values of tensors of one shape, by\n"
                          "numpy.isclose's rule |a-b| <= atol + rtol*|b|"),
    CLI_VALUE("rtol", 0, "R", "relative tolerance of --values (default 1e-05)"),
    CLI_VALUE("atol", 0, "A", "absolute tolerance of --values (default 1e-08)"),
    CLI_FLAG("equal-nan", 0, "with --values, NaN is close to NaN"),
    CLI_FLAG("quiet", 'q', "print nothing; only the exit status"),
    CLI_OPTIONS_END,
};

/* One side: its model and each tensor's name after mapping. */
typedef struct side {
    const char *path;
    ts_model *m;
    char **key;           /* per tensor */
    size_t *order;        /* tensor indices sorted by key */
    size_t n;
} side;

typedef struct diff_opts {
    cli_names names;        /* --strip-prefix, --rename (names.c) */
    int quiet, recursive;
    int values;             /* --values */
    ts_compare_options cmp;
} diff_opts;

/* The kinds of difference, in the order of a report's counts. */
typedef enum diff_kind {
    DIFF_EQUAL,
    DIFF_ONLY_A,
    DIFF_ONLY_B,
    DIFF_DTYPE,
    DIFF_SHAPE,
    DIFF_DTYPE_SHAPE,
    DIFF_VALUES,            /* same dtype and shape, values not all close */
    DIFF_UNREADABLE         /* --values: the data of one side cannot be read */
} diff_kind;

static const char *const kind_names[] = {"equal", "only_a", "only_b", "dtype", "shape",
                                         "dtype_shape", "values", "unreadable"};

/* ---- options -------------------------------------------------------------- */

static void free_opts(diff_opts *o)
{
    cli_names_free(&o->names);
}

static int get_options(cli_ctx *ctx, const cli_args *args, diff_opts *o)
{
    memset(o, 0, sizeof *o);
    if (cli_names_get(ctx, args, &o->names) != CLI_OK)
        return CLI_ERROR;
    const ts_compare_options dflt = TS_COMPARE_OPTIONS_INIT;
    const char *v;
    o->cmp = dflt;
    o->values = cli_flag(args, "values") > 0;
    if ((v = cli_opt(args, "rtol")) && cli_arg_nonneg_double(ctx, v, "--rtol", &o->cmp.rtol))
        return CLI_ERROR;
    if ((v = cli_opt(args, "atol")) && cli_arg_nonneg_double(ctx, v, "--atol", &o->cmp.atol))
        return CLI_ERROR;
    o->cmp.equal_nan = cli_flag(args, "equal-nan") > 0;
    if (!o->values && (cli_opt(args, "rtol") || cli_opt(args, "atol") || o->cmp.equal_nan))
        return cli_usage(ctx, "--rtol, --atol and --equal-nan need --values");
    o->quiet = cli_flag(args, "quiet") > 0;
    o->recursive = cli_flag(args, "recursive") > 0;
    return CLI_OK;
}

/* ---- names ------------------------------------------------------------------ */

static const side *sort_side; /* qsort has no user pointer */

static int cmp_key(const void *x, const void *y)
{
    size_t i = *(const size_t *)x, j = *(const size_t *)y;
    int c = strcmp(sort_side->key[i], sort_side->key[j]);
    return c ? c : (i > j) - (i < j);
}

static int load_side(cli_ctx *ctx, const diff_opts *o, side *s, int is_a)
{
    s->m = cli_model_open(ctx, s->path, NULL, o->recursive);
    if (!s->m)
        return CLI_ERROR;
    s->n = ts_model_count(s->m);
    s->key = calloc(s->n ? s->n : 1, sizeof *s->key);
    s->order = malloc((s->n ? s->n : 1) * sizeof *s->order);
    if (!s->key || !s->order)
        return cli_error(ctx, s->path, "out of memory");
    for (size_t i = 0; i < s->n; i++) {
        if (!(s->key[i] = cli_names_map(&o->names, is_a, ts_model_array_name(s->m, i))))
            return cli_error(ctx, s->path, "out of memory");
        s->order[i] = i;
    }
    sort_side = s;
    if (s->n > 1)
        qsort(s->order, s->n, sizeof *s->order, cmp_key);
    /* A name twice on one side (files of a folder without an index, or two
     * names mapped to one) leaves the comparison ambiguous: the first is
     * compared, and the others are reported. */
    for (size_t k = 1; k < s->n; k++)
        if (strcmp(s->key[s->order[k]], s->key[s->order[k - 1]]) == 0)
            cli_notice(ctx, s->path, "warning: tensor '%s' appears more than once; the first "
                                     "is compared", s->key[s->order[k]]);
    return CLI_OK;
}

static void free_side(side *s)
{
    if (s->key)
        for (size_t i = 0; i < s->n; i++)
            free(s->key[i]);
    free(s->key);
    free(s->order);
    ts_model_close(s->m);
}

/* The first tensor of s named key, or (size_t)-1. */
static size_t find(const side *s, const char *key)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(s->key[s->order[mid]], key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->n && strcmp(s->key[s->order[lo]], key) == 0 ? s->order[lo] : (size_t)-1;
}

/* Is tensor i the first of its name on its side? */
static int first_of_name(const side *s, size_t i)
{
    return find(s, s->key[i]) == i;
}

/* ---- comparing ----------------------------------------------------------------- */

/* The values' comparison of one pair, when --values compared them. */
typedef struct pair_values {
    int compared;
    int unreadable;         /* the data of one side could not be read */
    ts_compare c;
} pair_values;

/* The difference between tensor ia of A and ib of B, of one name. With
 * --values, pairs of one shape have their data compared into *pv; a side
 * whose data cannot be read is an error line naming it (its file and the
 * array) and sets pv->unreadable; the pair keeps its dtype difference, or
 * is DIFF_UNREADABLE (neither equal nor reported) when it has none. */
static diff_kind compare_pair(cli_ctx *ctx, const diff_opts *o, const side *sa, size_t ia,
                              const side *sb, size_t ib, pair_values *pv)
{
    size_t fa, fb;
    const ts_array *a = ts_model_array(sa->m, ia, &fa), *b = ts_model_array(sb->m, ib, &fb);
    int dt = strcmp(a->dtype_name, b->dtype_name) != 0;
    int sh = !ts_shape_equal(&a->shape, &b->shape);
    diff_kind k = dt && sh ? DIFF_DTYPE_SHAPE : dt ? DIFF_DTYPE : sh ? DIFF_SHAPE : DIFF_EQUAL;
    pv->compared = pv->unreadable = 0;
    if (!o->values || sh)
        return k;
    cli_progress progress;
    cli_progress_init(&progress, "diff");
    ts_compare_options co = o->cmp;
    if (progress.enabled) {
        co.progress = cli_progress_report;
        co.progress_ctx = &progress;
    }
    out_drain(ctx); /* what was reported is out before these values are read */
    cli_progress_start(&progress, ts_model_file_path(sa->m, fa), a->name);
    ts_error err;
    ts_status st = ts_array_compare(ts_model_file(sa->m, fa), a, ts_model_file(sb->m, fb), b,
                                    &co, &pv->c, &err);
    cli_progress_clear(&progress);
    if (st != TS_OK) {
        const side *bad = err.index == 1 ? sb : sa;
        cli_error(ctx, ts_model_file_path(bad->m, err.index == 1 ? fb : fa), "%s", err.message);
        pv->unreadable = 1;
        return k == DIFF_EQUAL ? DIFF_UNREADABLE : k;
    }
    pv->compared = 1;
    return k == DIFF_EQUAL && pv->c.notclose > 0 ? DIFF_VALUES : k;
}

static const char *compared_as(ts_value_kind k)
{
    return k == TS_VALUE_INT ? "int" : k == TS_VALUE_COMPLEX ? "complex128" : "float64";
}

/* The first element not close as a multi-index of the shape. */
static int first_index(const ts_array *a, int64_t flat, int64_t *idx)
{
    return flat >= 0 && ts_unravel_index(&a->shape, flat, 'C', idx, NULL) == TS_OK;
}

/* Text: "2 of 6 not close, first (0,1), max abs diff 0.5, max rel diff 0.25"
 * or "all 6 close, max abs diff 0.0001, max rel diff 1e-05". */
static void values_text(const ts_array *a, const ts_compare *c, char *buf, size_t cap)
{
    char ma[64], mr[64], where[600] = "";
    int64_t idx[TS_MAX_NDIM];
    cli_fmt_double(ma, sizeof ma, c->max_abs, 0);
    cli_fmt_double(mr, sizeof mr, c->max_rel, 0);
    if (first_index(a, c->first, idx)) {
        size_t n = (size_t)snprintf(where, sizeof where, ", first (");
        int nd = ts_shape_ndim(&a->shape);
        for (int i = 0; i < nd && n < sizeof where; i++)
            n += (size_t)snprintf(where + n, sizeof where - n, "%s%lld", i ? "," : "",
                                  (long long)idx[i]);
        if (n < sizeof where)
            snprintf(where + n, sizeof where - n, nd == 1 ? ",)" : ")");
    }
    if (c->notclose > 0)
        snprintf(buf, cap, "%lld of %lld not close%s, max abs diff %s, max rel diff %s",
                 (long long)c->notclose, (long long)c->count, where, ma, mr);
    else
        snprintf(buf, cap, "all %lld close, max abs diff %s, max rel diff %s",
                 (long long)c->count, ma, mr);
}

static void values_json(cli_ctx *ctx, const ts_array *a, const ts_compare *c)
{
    char ma[64], mr[64];
    int64_t idx[TS_MAX_NDIM];
    cli_fmt_double(ma, sizeof ma, c->max_abs, 1);
    cli_fmt_double(mr, sizeof mr, c->max_rel, 1);
    print_open_object(ctx, "values");
    print_string(ctx, PRINT_JSON, "compared_as", NULL, compared_as(c->kind));
    print_int(ctx, PRINT_JSON, "count", NULL, c->count);
    print_int(ctx, PRINT_JSON, "notclose", NULL, c->notclose);
    if (first_index(a, c->first, idx))
        print_dims(ctx, PRINT_JSON, "first", NULL, idx, ts_shape_ndim(&a->shape));
    else
        print_null(ctx, PRINT_JSON, "first", NULL);
    print_json_text(ctx, PRINT_JSON, "max_abs", NULL, ma);
    print_json_text(ctx, PRINT_JSON, "max_rel", NULL, mr);
    print_int(ctx, PRINT_JSON, "nan_a", NULL, c->nan_a);
    print_int(ctx, PRINT_JSON, "nan_b", NULL, c->nan_b);
    print_close_object(ctx);
}

static void tensor_text(const ts_array *a, char *buf, size_t cap)
{
    char shape[512];
    ts_shape_format(&a->shape, 0, shape, sizeof shape);
    snprintf(buf, cap, "%s %s", shape, a->dtype_name);
}

static void json_tensor(cli_ctx *ctx, const char *key, const side *s, size_t i)
{
    size_t f;
    const ts_array *a = ts_model_array(s->m, i, &f);
    print_open_object(ctx, key);
    print_string(ctx, PRINT_JSON, "name", NULL, ts_model_array_name(s->m, i));
    print_string(ctx, PRINT_JSON, "dtype", NULL, a->dtype_name);
    print_dims(ctx, PRINT_JSON, "shape", NULL, ts_shape_dims(&a->shape), ts_shape_ndim(&a->shape));
    print_string(ctx, PRINT_JSON, "file", NULL, ts_model_file_path(s->m, f));
    print_close_object(ctx);
}

static void report(cli_ctx *ctx, cli_table *t, diff_kind k, const char *name, const side *a,
                   size_t ia, const side *b, size_t ib, const pair_values *pv)
{
    if (ctx->json) {
        print_open_object(ctx, NULL);
        print_string(ctx, PRINT_JSON, "kind", NULL, kind_names[k]);
        print_string(ctx, PRINT_JSON, "name", NULL, name);
        if (ia != (size_t)-1)
            json_tensor(ctx, "a", a, ia);
        else
            print_null(ctx, PRINT_JSON, "a", NULL);
        if (ib != (size_t)-1)
            json_tensor(ctx, "b", b, ib);
        else
            print_null(ctx, PRINT_JSON, "b", NULL);
        if (pv && pv->compared)
            values_json(ctx, ts_model_array(a->m, ia, NULL), &pv->c);
        else
            print_null(ctx, PRINT_JSON, "values", NULL);
        print_close_object(ctx);
        return;
    }
    static const char *const words[] = {"", "only in A", "only in B", "dtype", "shape",
                                        "dtype, shape", "values", "unreadable"};
    char ta[600] = "", tb[600] = "";
    if (ia != (size_t)-1)
        tensor_text(ts_model_array(a->m, ia, NULL), ta, sizeof ta);
    if (ib != (size_t)-1)
        tensor_text(ts_model_array(b->m, ib, NULL), tb, sizeof tb);
    char tv[800] = "";
    if (pv && pv->compared)
        values_text(ts_model_array(a->m, ia, NULL), &pv->c, tv, sizeof tv);
    const char *row[5] = {words[k], name, ia != (size_t)-1 ? ta : "-",
                          ib != (size_t)-1 ? tb : "-", tv};
    cli_table_add(t, row);
}

int cmd_diff(cli_ctx *ctx, const cli_args *args)
{
    diff_opts o;
    if (args->nops != 2)
        return cli_usage(ctx, "expected two operands, A and B, not %d", args->nops);
    if (get_options(ctx, args, &o) != CLI_OK) {
        free_opts(&o);
        return CLI_ERROR;
    }
    side a = {args->ops[0], NULL, NULL, NULL, 0}, b = {args->ops[1], NULL, NULL, NULL, 0};
    int status = load_side(ctx, &o, &a, 1);
    if (status == CLI_OK)
        status = load_side(ctx, &o, &b, 0);
    int64_t count[8] = {0}, unreadable = 0;
    if (status == CLI_OK) {
        cli_table t = {NULL, 0, 0, 5, 0};
        /* A's tensors in A's order, then those only in B in B's order */
        for (size_t i = 0; i < a.n; i++) {
            if (!first_of_name(&a, i))
                continue;
            size_t j = find(&b, a.key[i]);
            pair_values pv = {0};
            diff_kind k = j == (size_t)-1 ? DIFF_ONLY_A : compare_pair(ctx, &o, &a, i, &b, j, &pv);
            count[k]++;
            unreadable += pv.unreadable;
            if (k != DIFF_EQUAL && k != DIFF_UNREADABLE && !o.quiet)
                report(ctx, &t, k, a.key[i], &a, i, &b, j, &pv);
        }
        for (size_t j = 0; j < b.n; j++) {
            if (!first_of_name(&b, j) || find(&a, b.key[j]) != (size_t)-1)
                continue;
            count[DIFF_ONLY_B]++;
            if (!o.quiet)
                report(ctx, &t, DIFF_ONLY_B, b.key[j], &a, (size_t)-1, &b, j, NULL);
        }
        int64_t changed = count[DIFF_DTYPE] + count[DIFF_SHAPE] + count[DIFF_DTYPE_SHAPE];
        int64_t different = changed + count[DIFF_ONLY_A] + count[DIFF_ONLY_B] +
                            count[DIFF_VALUES];
        if (!o.quiet) {
            cli_table_flush(ctx, &t, "");
            print_open_object(ctx, NULL);
            print_int(ctx, PRINT_ANY, "equal", "%s equal, ", count[DIFF_EQUAL]);
            print_int(ctx, PRINT_ANY, "different", "%s different", different);
            print_text(ctx, " (");
            print_int(ctx, PRINT_ANY, "only_a", "%s only in A, ", count[DIFF_ONLY_A]);
            print_int(ctx, PRINT_ANY, "only_b", "%s only in B, ", count[DIFF_ONLY_B]);
            print_int(ctx, PRINT_ANY, "changed", "%s changed", changed);
            /* the values' counts only with --values (JSON: always) */
            print_int(ctx, o.values ? PRINT_ANY : PRINT_JSON, "values", ", %s values",
                      count[DIFF_VALUES]);
            print_int(ctx, o.values && unreadable ? PRINT_ANY : PRINT_JSON, "unreadable",
                      ", %s unreadable", unreadable);
            print_text(ctx, ")\n");
            print_close_object(ctx);
        }
        status = unreadable ? CLI_ERROR : different ? CLI_FALSE : CLI_OK;
        /* an incomplete model is an error whatever the comparison says */
        if (ts_model_error_count(a.m) || ts_model_error_count(b.m))
            status = CLI_ERROR;
    }
    free_side(&a);
    free_side(&b);
    free_opts(&o);
    return status;
}
