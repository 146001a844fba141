/*
 * cmd_diff.c - tshape diff A B: the structural difference of two files or
 * models (folders, index files), of the same or different formats: tensors
 * only in A, only in B, and tensors whose dtype or shape differ; equal
 * tensors are counted. Exit 0 equal, 1 different, 2 error (as cmp, diff).
 *
 * Names are matched after mapping: --strip-prefix removes a prefix from
 * both sides, --strip-prefix-a/-b from one, --rename renames A's tensors;
 * --filter/--exclude then select by the mapped names. When each side holds
 * exactly one tensor, the two are compared whatever their names (as cmp a
 * b). Each pair of tensors is compared by compare_pair(), which with
 * --values also compares the data (ts_array_compare, numpy.isclose's rule)
 * of pairs of one shape: a pair whose values are not all close is a
 * difference of kind "values" (or keeps its dtype kind, with the values'
 * report beside it). The files' metadata (metadiff.c) is compared too: the
 * last line says when it differs, and --metadata lists the entries.
 */
#include "cli.h"
#include "metadiff.h"
#include "model.h"
#include "names.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const cli_option diff_options[] = {
    CLI_ABOUT("A and B: files, model folders or index files (see info). Names are\n"
              "matched after --strip-prefix and --rename; when A and B hold one tensor\n"
              "each, the two are compared whatever their names. Exit status 0 when A\n"
              "and B have the same tensors with the same dtypes and shapes (with\n"
              "--values: and values all close; with --metadata: and the same metadata),\n"
              "1 when they differ, 2 on error (a model with a missing shard, values\n"
              "that cannot be read).\n"
              "With --json, one object per difference, then one with the counts."),
    CLI_VALUE("strip-prefix", 'p', "PREFIX",
              "remove PREFIX (as written, ':' included) from the names of A and B\n"
              "before matching; repeatable: the first that matches is removed"),
    CLI_VALUE("strip-prefix-a", 0, "PREFIX", "remove PREFIX from the names of A only (repeatable)"),
    CLI_VALUE("strip-prefix-b", 0, "PREFIX", "remove PREFIX from the names of B only (repeatable)"),
    CLI_VALUE("rename", 0, "MAPFILE",
              "lines 'A_NAME B_NAME': A's tensor A_NAME is B's B_NAME ('#' comments)"),
    CLI_FILTER_OPTIONS,
    CLI_FLAG("recursive", 'r', "folders without an index: their subfolders too"),
    CLI_FLAG("values", 0, "also compare the values of tensors of one shape, by\n"
                          "numpy.isclose's rule |a-b| <= atol + rtol*|b|"),
    CLI_VALUE("rtol", 0, "R", "relative tolerance of --values (default 1e-05)"),
    CLI_VALUE("atol", 0, "A", "absolute tolerance of --values (default 1e-08)"),
    CLI_FLAG("equal-nan", 0, "with --values, NaN is close to NaN"),
    CLI_FLAG("metrics", 0, "with --values, error metrics (max abs, RMSE, NMSE, cosine)\n"
                           "of every pair instead of isclose: the default for GGUF\n"
                           "conversions and quantized tensors"),
    CLI_FLAG("metadata", 'm', "also compare the metadata (values that are not tensors, file\n"
                              "metadata) and list the entries that differ"),
    CLI_FLAG("quiet", 'q', "print nothing; only the exit status"),
    CLI_FLAG("structure", 0, "print a unified diff (diff -u) of the two sorted listings\n"
                             "'NAME DTYPE SHAPE', without offsets or formats"),
    CLI_FLAG("no-name-map", 0, "do not map names across a GGUF conversion (A or B GGUF,\n"
                               "the other not: model.layers.N.self_attn.q_proj is\n"
                               "blk.N.attn_q)"),
    CLI_REMOTE_OPTIONS,
    CLI_OPTIONS_END,
};

/* One side: its model and the tensors selected (--filter/--exclude), each
 * with its name after mapping. */
typedef struct side {
    const char *path;
    ts_model *m;
    size_t n;             /* tensors selected */
    size_t *index;        /* per selected tensor: its index in the model */
    char **key;           /* per selected tensor: its name after mapping */
    size_t *order;        /* selected tensors sorted by key */
    cli_meta meta;
    int gguf;             /* every member is a GGUF file */
    int any_gguf;         /* some member is */
} side;

typedef struct diff_opts {
    cli_names names;        /* --strip-prefix*, --rename (names.c) */
    cli_filter filter;      /* --filter, --exclude on the mapped names */
    int quiet, recursive;
    int values;             /* --values */
    int metadata;           /* --metadata */
    int name_map;           /* 1: map names to GGUF's (set once both sides are open) */
    int metrics;            /* --metrics */
    int structure;          /* --structure */
    int no_name_map;        /* --no-name-map */
    ts_compare_options cmp;
    ts_open_options open;   /* --max-fetch, --verbose, TSHAPE_IO; metadata */
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
    if (!cli_open_options(ctx, args, &o->open))
        return CLI_ERROR;
    if (cli_names_get(ctx, args, &o->names) != CLI_OK)
        return CLI_ERROR;
    cli_filter_init(&o->filter, args);
    const ts_compare_options dflt = TS_COMPARE_OPTIONS_INIT;
    const char *v;
    o->open.want_metadata = 1; /* the last line says whether metadata differs */
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
    o->metadata = cli_flag(args, "metadata") > 0;
    o->no_name_map = cli_flag(args, "no-name-map") > 0;
    o->metrics = cli_flag(args, "metrics") > 0;
    o->structure = cli_flag(args, "structure") > 0;
    if (o->structure && (o->values || o->metadata || ctx->json))
        return cli_usage(ctx, "--structure prints a unified diff: not with --values, "
                              "--metadata or --json");
    if (o->metrics && !o->values)
        return cli_usage(ctx, "--metrics needs --values");
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

static int open_side(cli_ctx *ctx, diff_opts *o, side *s)
{
    if (cli_no_stdin(ctx, s->path) != CLI_OK)
        return CLI_ERROR;
    s->m = cli_model_open(ctx, s->path, &o->open, o->recursive);
    if (!s->m)
        return CLI_ERROR;
    size_t nf = ts_model_file_count(s->m), g = 0;
    for (size_t i = 0; i < nf; i++)
        g += ts_file_format(ts_model_file(s->m, i)) == TS_FORMAT_GGUF;
    s->gguf = nf > 0 && g == nf;
    s->any_gguf = g > 0;
    return CLI_OK;
}

/* A name of a side that is not GGUF as llama.cpp's converter names it
 * (ts_tensor_name_map), or itself when no rule matches; k is the name after
 * --strip-prefix and --rename, freed here when replaced. */
static char *gguf_name(char *k)
{
    char buf[1024];
    size_t n = ts_tensor_name_map(TS_NAME_MAP_TO_GGUF, k, buf, sizeof buf);
    if (n == 0 || n >= sizeof buf)
        return k;
    char *g = malloc(n + 1);
    if (!g)
        return k;
    memcpy(g, buf, n + 1);
    free(k);
    return g;
}

static int load_side(cli_ctx *ctx, diff_opts *o, side *s, int is_a)
{
    size_t n = ts_model_count(s->m);
    s->key = calloc(n ? n : 1, sizeof *s->key);
    s->index = malloc((n ? n : 1) * sizeof *s->index);
    s->order = malloc((n ? n : 1) * sizeof *s->order);
    if (!s->key || !s->index || !s->order)
        return cli_error(ctx, s->path, "out of memory");
    for (size_t i = 0; i < n; i++) {
        char *k = cli_names_map(&o->names, is_a, ts_model_array_name(s->m, i));
        if (k && o->name_map && !s->gguf)
            k = gguf_name(k);
        if (!k)
            return cli_error(ctx, s->path, "out of memory");
        if (!cli_filter_match(&o->filter, k)) {
            free(k);
            continue;
        }
        s->key[s->n] = k;
        s->index[s->n] = i;
        s->order[s->n] = s->n;
        s->n++;
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
    return cli_meta_collect(ctx, s->path, s->m, &s->meta);
}

static void free_side(side *s)
{
    if (s->key)
        for (size_t i = 0; i < s->n; i++)
            free(s->key[i]);
    free(s->key);
    free(s->index);
    free(s->order);
    cli_meta_free(&s->meta);
    ts_model_close(s->m);
}

/* The first selected tensor of s named key, or (size_t)-1. */
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

/* Is selected tensor i the first of its name on its side? */
static int first_of_name(const side *s, size_t i)
{
    return find(s, s->key[i]) == i;
}

/* Selected tensor i of s, and its member in *file. */
static const ts_array *tensor(const side *s, size_t i, size_t *file)
{
    return ts_model_array(s->m, s->index[i], file);
}

/* ---- comparing ----------------------------------------------------------------- */

/* The values' comparison of one pair, when --values compared them. */
typedef struct pair_values {
    int compared;
    int unreadable;         /* the data of one side could not be read */
    ts_compare c;
    int metrics;            /* a conversion: error metrics instead of isclose */
    int ref_b;              /* the reference is B's tensor (A is the GGUF) */
    int64_t heads;          /* Q/K rows reordered by the converter, by heads */
    ts_metrics m;
} pair_values;

/* The error metrics of the pairs of one (reference dtype, other dtype). */
typedef struct metrics_group {
    char label[96];         /* "bfloat16 -> q8_0" */
    int64_t tensors, count, nan;
    double sq_err, sq_ref, max_abs, cosine_min;
} metrics_group;

typedef struct metrics_groups {
    metrics_group *v;
    size_t n, cap;
} metrics_groups;

static void group_add(metrics_groups *g, const ts_array *ref, const ts_array *other,
                      const ts_metrics *m)
{
    char label[96];
    snprintf(label, sizeof label, "%s -> %s", ref->dtype_name, other->dtype_name);
    size_t i = 0;
    while (i < g->n && strcmp(g->v[i].label, label) != 0)
        i++;
    if (i == g->n) {
        if (g->n == g->cap) {
            size_t cap = g->cap ? 2 * g->cap : 8;
            metrics_group *p = realloc(g->v, cap * sizeof *p);
            if (!p)
                return;
            g->v = p;
            g->cap = cap;
        }
        memset(&g->v[i], 0, sizeof g->v[i]);
        snprintf(g->v[i].label, sizeof g->v[i].label, "%s", label);
        g->v[i].cosine_min = NAN;
        g->n++;
    }
    metrics_group *x = &g->v[i];
    x->tensors++;
    x->count += m->count;
    x->nan += m->nan;
    x->sq_err += m->sq_err;
    x->sq_ref += m->sq_ref;
    if (m->max_abs > x->max_abs)
        x->max_abs = m->max_abs;
    if (!isnan(m->cosine) && (isnan(x->cosine_min) || m->cosine < x->cosine_min))
        x->cosine_min = m->cosine;
}

/* The difference between tensor ia of A and ib of B, of one name. With
 * --values, pairs of one shape have their data compared into *pv; a side
 * whose data cannot be read is an error line naming it (its file and the
 * array) and sets pv->unreadable; the pair keeps its dtype difference, or
 * is DIFF_UNREADABLE (neither equal nor reported) when it has none. */
static diff_kind compare_pair(cli_ctx *ctx, const diff_opts *o, const side *sa, size_t ia,
                              const side *sb, size_t ib, pair_values *pv)
{
    size_t fa, fb;
    const ts_array *a = tensor(sa, ia, &fa), *b = tensor(sb, ib, &fb);
    int dt = strcmp(a->dtype_name, b->dtype_name) != 0;
    int sh = !ts_shape_equal(&a->shape, &b->shape) || a->null_shape != b->null_shape;
    diff_kind k = dt && sh ? DIFF_DTYPE_SHAPE : dt ? DIFF_DTYPE : sh ? DIFF_SHAPE : DIFF_EQUAL;
    pv->compared = pv->unreadable = pv->metrics = 0;
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
    ts_status st;
    int complex = ts_array_value_kind(a) == TS_VALUE_COMPLEX ||
                  ts_array_value_kind(b) == TS_VALUE_COMPLEX; /* no metrics: isclose */
    if (!complex && (o->metrics || o->name_map || a->dtype == TS_DTYPE_QUANTIZED ||
                     b->dtype == TS_DTYPE_QUANTIZED)) {
        /* a conversion or quantization: how far the copy is from the
         * reference (the side that is not GGUF; else A), with the Q/K rows
         * in the converter's order */
        pv->metrics = 1;
        pv->ref_b = sa->gguf;
        const side *rs = pv->ref_b ? sb : sa, *cs = pv->ref_b ? sa : sb;
        size_t rf = pv->ref_b ? fb : fa, cf = pv->ref_b ? fa : fb;
        const ts_array *ra = pv->ref_b ? b : a, *ca = pv->ref_b ? a : b;
        ts_metrics_options mo = TS_METRICS_OPTIONS_INIT;
        mo.qk_heads = o->name_map ? ts_gguf_qk_heads(ts_model_file(cs->m, cf), ca->name) : 0;
        pv->heads = mo.qk_heads;
        if (progress.enabled) {
            mo.progress = cli_progress_report;
            mo.progress_ctx = &progress;
        }
        st = ts_array_metrics(ts_model_file(rs->m, rf), ra, ts_model_file(cs->m, cf), ca, &mo,
                              &pv->m, &err);
        if (st != TS_OK && err.index >= 0)
            err.index = pv->ref_b ? !err.index : err.index; /* 0: A, 1: B */
    } else {
        st = ts_array_compare(ts_model_file(sa->m, fa), a, ts_model_file(sb->m, fb), b, &co,
                              &pv->c, &err);
    }
    cli_progress_clear(&progress);
    if (st != TS_OK) {
        const side *bad = err.index == 1 ? sb : sa;
        cli_error(ctx, ts_model_file_path(bad->m, err.index == 1 ? fb : fa), "%s", err.message);
        pv->unreadable = 1;
        return k == DIFF_EQUAL ? DIFF_UNREADABLE : k;
    }
    pv->compared = 1;
    if (pv->metrics)
        return k == DIFF_EQUAL && (pv->m.max_abs != 0 || pv->m.nan > 0) ? DIFF_VALUES : k;
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

/* ", 2 NaN in A, 1 in B" (nothing without NaN): the counts the maxima,
 * NaN then, do not show. */
static void nan_text(const ts_compare *c, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (c->nan_a && c->nan_b)
        snprintf(buf, cap, ", %lld NaN in A, %lld in B", (long long)c->nan_a,
                 (long long)c->nan_b);
    else if (c->nan_a || c->nan_b)
        snprintf(buf, cap, ", %lld NaN in %s", (long long)(c->nan_a ? c->nan_a : c->nan_b),
                 c->nan_a ? "A" : "B");
}

/* Text: "2 of 6 not close, first (0,1), 1 NaN in A, max abs diff nan, max
 * rel diff nan" or "all 6 close, max abs diff 0.0001, max rel diff 1e-05". */
static void values_text(const ts_array *a, const ts_compare *c, char *buf, size_t cap)
{
    char ma[64], mr[64], where[600] = "", nan[96];
    int64_t idx[TS_MAX_NDIM];
    cli_fmt_double(ma, sizeof ma, c->max_abs, 0);
    cli_fmt_double(mr, sizeof mr, c->max_rel, 0);
    nan_text(c, nan, sizeof nan);
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
        snprintf(buf, cap, "%lld of %lld not close%s%s, max abs diff %s, max rel diff %s",
                 (long long)c->notclose, (long long)c->count, where, nan, ma, mr);
    else
        snprintf(buf, cap, "all %lld close%s, max abs diff %s, max rel diff %s",
                 (long long)c->count, nan, ma, mr);
}

/* "max abs 0.0123, rmse 0.00123, nmse 1.5e-05, cosine 0.99999 (Q/K rows of 32
 * heads)" */
static void metrics_text(const pair_values *pv, char *buf, size_t cap)
{
    char ma[64], rm[64], nm[64], co[64], heads[64] = "", nan[64] = "";
    cli_fmt_double(ma, sizeof ma, pv->m.max_abs, 0);
    cli_fmt_double(rm, sizeof rm, pv->m.rmse, 0);
    cli_fmt_double(nm, sizeof nm, pv->m.nmse, 0);
    cli_fmt_double(co, sizeof co, pv->m.cosine, 0);
    if (pv->heads > 0)
        snprintf(heads, sizeof heads, " (rows of %lld heads reordered)", (long long)pv->heads);
    if (pv->m.nan > 0)
        snprintf(nan, sizeof nan, ", %lld NaN pairs left out", (long long)pv->m.nan);
    snprintf(buf, cap, "max abs %s, rmse %s, nmse %s, cosine %s%s%s", ma, rm, nm, co, nan,
             heads);
}

static void metrics_json(cli_ctx *ctx, const pair_values *pv)
{
    char v[64];
    print_open_object(ctx, "metrics");
    print_string(ctx, PRINT_JSON, "reference", NULL, pv->ref_b ? "b" : "a");
    print_int(ctx, PRINT_JSON, "qk_heads", NULL, pv->heads);
    print_int(ctx, PRINT_JSON, "count", NULL, pv->m.count);
    print_int(ctx, PRINT_JSON, "nan", NULL, pv->m.nan);
    cli_fmt_double(v, sizeof v, pv->m.max_abs, 1);
    print_json_text(ctx, PRINT_JSON, "max_abs", NULL, v);
    cli_fmt_double(v, sizeof v, pv->m.rmse, 1);
    print_json_text(ctx, PRINT_JSON, "rmse", NULL, v);
    cli_fmt_double(v, sizeof v, pv->m.nmse, 1);
    print_json_text(ctx, PRINT_JSON, "nmse", NULL, v);
    cli_fmt_double(v, sizeof v, pv->m.cosine, 1);
    print_json_text(ctx, PRINT_JSON, "cosine", NULL, v);
    print_close_object(ctx);
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
    snprintf(buf, cap, "%s %s", cli_array_shape_text(a, shape, sizeof shape), a->dtype_name);
}

static void json_tensor(cli_ctx *ctx, const char *key, const side *s, size_t i)
{
    size_t f;
    const ts_array *a = tensor(s, i, &f);
    print_open_object(ctx, key);
    print_string(ctx, PRINT_JSON, "name", NULL, ts_model_array_name(s->m, s->index[i]));
    print_string(ctx, PRINT_JSON, "dtype", NULL, a->dtype_name);
    print_array_shape(ctx, PRINT_JSON, "shape", NULL, a);
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
        if (pv && pv->compared && !pv->metrics)
            values_json(ctx, tensor(a, ia, NULL), &pv->c);
        else
            print_null(ctx, PRINT_JSON, "values", NULL);
        if (pv && pv->compared && pv->metrics)
            metrics_json(ctx, pv);
        else
            print_null(ctx, PRINT_JSON, "metrics", NULL);
        print_close_object(ctx);
        return;
    }
    static const char *const words[] = {"", "only in A", "only in B", "dtype", "shape",
                                        "dtype, shape", "values", "unreadable"};
    char ta[600] = "", tb[600] = "";
    if (ia != (size_t)-1)
        tensor_text(tensor(a, ia, NULL), ta, sizeof ta);
    if (ib != (size_t)-1)
        tensor_text(tensor(b, ib, NULL), tb, sizeof tb);
    char tv[1024] = ""; /* where (600), NaN counts (96), two numbers (64 each), words */
    if (pv && pv->compared && pv->metrics)
        metrics_text(pv, tv, sizeof tv);
    else if (pv && pv->compared)
        values_text(tensor(a, ia, NULL), &pv->c, tv, sizeof tv);
    const char *row[5] = {words[k], name, ia != (size_t)-1 ? ta : "-",
                          ib != (size_t)-1 ? tb : "-", tv};
    cli_table_add(t, row);
}

/* ---- metadata ----------------------------------------------------------------- */

/* Metadata values in the table are cut to this many bytes (at a character
 * boundary) with "..."; JSON has them whole. */
#define META_TEXT_MAX 60

static const char *cut_value(const char *v, char *buf, size_t cap)
{
    size_t n = strlen(v);
    if (n <= META_TEXT_MAX)
        return v;
    n = META_TEXT_MAX;
    while (n > 0 && ((unsigned char)v[n] & 0xc0) == 0x80) /* a UTF-8 continuation */
        n--;
    snprintf(buf, cap, "%.*s...", (int)n, v);
    return buf;
}

typedef struct meta_report {
    cli_ctx *ctx;
    cli_table *t;
} meta_report;

/* One metadata entry that differs: a row "metadata KEY A_VALUE B_VALUE"
 * ("-" for a side without it), or the JSON record {"metadata_key", "a",
 * "b", "only"}. */
static void report_meta(void *user, const char *label, const char *va, const char *vb)
{
    meta_report *r = user;
    cli_ctx *ctx = r->ctx;
    if (ctx->json) {
        print_open_object(ctx, NULL);
        print_string(ctx, PRINT_JSON, "metadata_key", NULL, label);
        print_json_text(ctx, PRINT_JSON, "a", NULL, va ? va : "null");
        print_json_text(ctx, PRINT_JSON, "b", NULL, vb ? vb : "null");
        print_string(ctx, PRINT_JSON, "only", NULL, !va ? "b" : !vb ? "a" : NULL);
        print_close_object(ctx);
        return;
    }
    char ca[META_TEXT_MAX + 8], cb[META_TEXT_MAX + 8];
    const char *row[5] = {"metadata", label, va ? cut_value(va, ca, sizeof ca) : "-",
                          vb ? cut_value(vb, cb, sizeof cb) : "-", ""};
    cli_table_add(r->t, row);
}

static void count_meta(void *user, const char *label, const char *va, const char *vb)
{
    (void)user, (void)label, (void)va, (void)vb;
}

/* The error metrics by dtype pair (with --values, after the rows): a table,
 * or one metrics group record each. */
static void report_groups(cli_ctx *ctx, const metrics_groups *g)
{
    cli_table t = {NULL, 0, 0, 6, 0x3e};
    if (g->n > 0 && !ctx->json) {
        const char *head[6] = {"metrics by dtype", "tensors", "max abs", "rmse", "nmse",
                               "min cosine"};
        out_str(ctx, "\n");
        cli_table_add(&t, head);
    }
    for (size_t i = 0; i < g->n; i++) {
        const metrics_group *x = &g->v[i];
        int64_t k = x->count - x->nan;
        double rmse = k > 0 ? sqrt(x->sq_err / (double)k) : NAN;
        double nmse = x->sq_ref > 0 ? x->sq_err / x->sq_ref : x->sq_err > 0 ? INFINITY : 0;
        char n[32], ma[64], rm[64], nm[64], co[64];
        int json = ctx->json;
        cli_fmt_double(ma, sizeof ma, k > 0 ? x->max_abs : NAN, json);
        cli_fmt_double(rm, sizeof rm, rmse, json);
        cli_fmt_double(nm, sizeof nm, nmse, json);
        cli_fmt_double(co, sizeof co, x->cosine_min, json);
        if (json) {
            print_open_object(ctx, NULL);
            print_string(ctx, PRINT_JSON, "metrics_group", NULL, x->label);
            print_int(ctx, PRINT_JSON, "tensors", NULL, x->tensors);
            print_int(ctx, PRINT_JSON, "count", NULL, x->count);
            print_int(ctx, PRINT_JSON, "nan", NULL, x->nan);
            print_json_text(ctx, PRINT_JSON, "max_abs", NULL, ma);
            print_json_text(ctx, PRINT_JSON, "rmse", NULL, rm);
            print_json_text(ctx, PRINT_JSON, "nmse", NULL, nm);
            print_json_text(ctx, PRINT_JSON, "cosine_min", NULL, co);
            print_close_object(ctx);
            continue;
        }
        snprintf(n, sizeof n, "%lld", (long long)x->tensors);
        const char *row[6] = {x->label, n, ma, rm, nm, co};
        cli_table_add(&t, row);
    }
    cli_table_flush(ctx, &t, "");
}

/* ---- --structure ------------------------------------------------------------------ */

/* "NAME DTYPE (SHAPE)" of selected tensor i of s (its mapped name), escaped. */
static char *listing_line(const side *s, size_t i)
{
    char shape[512], name[2048];
    size_t w;
    const char *k = s->key[i];
    cli_escape(CLI_ESC_TEXT, k, strlen(k), name, sizeof name, &w);
    const ts_array *a = tensor(s, i, NULL);
    size_t n = strlen(name) + strlen(a->dtype_name) + 520;
    char *line = malloc(n);
    if (line)
        snprintf(line, n, "%s %s %s", name, a->dtype_name,
                 cli_array_shape_text(a, shape, sizeof shape));
    return line;
}

/* A unified diff of the two listings, sorted by name, as one hunk with all
 * lines in context (what diff -U N with N large prints): stable across
 * formats, offsets and orders, for diff -u and patch (gguf-tools' diffable
 * listing). Returns CLI_OK when equal, CLI_FALSE when not. */
static int structure_diff(cli_ctx *ctx, const side *a, const side *b, int print)
{
    size_t na = 0, nb = 0;
    for (size_t i = 0; i < a->n; i++)
        na += first_of_name(a, a->order[i]);
    for (size_t j = 0; j < b->n; j++)
        nb += first_of_name(b, b->order[j]);
    int differ = 0;
    if (na + nb == 0)
        return CLI_OK;
    if (print) {
        out_str(ctx, "--- ");
        out_escaped(ctx, CLI_ESC_TEXT, a->path, strlen(a->path));
        out_str(ctx, "\n+++ ");
        out_escaped(ctx, CLI_ESC_TEXT, b->path, strlen(b->path));
        out_printf(ctx, "\n@@ -%zu,%zu +%zu,%zu @@\n", na ? (size_t)1 : 0, na,
                   nb ? (size_t)1 : 0, nb);
    }
    size_t i = 0, j = 0;
    while (i < a->n || j < b->n) {
        if (i < a->n && !first_of_name(a, a->order[i])) {
            i++;
            continue;
        }
        if (j < b->n && !first_of_name(b, b->order[j])) {
            j++;
            continue;
        }
        int c = i >= a->n ? 1 : j >= b->n ? -1
                                          : strcmp(a->key[a->order[i]], b->key[b->order[j]]);
        char *la = c <= 0 ? listing_line(a, a->order[i]) : NULL;
        char *lb = c >= 0 ? listing_line(b, b->order[j]) : NULL;
        if ((c <= 0 && !la) || (c >= 0 && !lb)) {
            free(la);
            free(lb);
            return cli_error(ctx, NULL, "out of memory");
        }
        if (c == 0 && strcmp(la, lb) == 0) {
            if (print)
                out_printf(ctx, " %s\n", la);
        } else {
            differ = 1;
            if (la && print)
                out_printf(ctx, "-%s\n", la);
            if (lb && print)
                out_printf(ctx, "+%s\n", lb);
        }
        free(la);
        free(lb);
        i += c <= 0;
        j += c >= 0;
    }
    return differ ? CLI_FALSE : CLI_OK;
}

/* ---- the run ------------------------------------------------------------------- */

/* The single-array rule: when each side holds exactly one tensor, they are
 * one pair whatever their names (as cmp a.npy b.npy; two .npy files are
 * named after their files). Returns 1 when it applies. */
static int single_pair(const side *a, const side *b)
{
    return a->n == 1 && b->n == 1 && strcmp(a->key[0], b->key[0]) != 0;
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
    side a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.path = args->ops[0];
    b.path = args->ops[1];
    int status = open_side(ctx, &o, &a);
    if (status == CLI_OK)
        status = open_side(ctx, &o, &b);
    /* one side a GGUF conversion of the other: llama.cpp's names */
    o.name_map = !o.no_name_map && status == CLI_OK &&
                 ((a.gguf && !b.any_gguf) || (b.gguf && !a.any_gguf));
    if (status == CLI_OK)
        status = load_side(ctx, &o, &a, 1);
    if (status == CLI_OK)
        status = load_side(ctx, &o, &b, 0);
    if (status == CLI_OK)
        cli_names_warn_unused(ctx, &o.names);
    int64_t count[8] = {0}, unreadable = 0;
    metrics_groups groups = {NULL, 0, 0};
    if (status == CLI_OK && o.structure) {
        status = structure_diff(ctx, &a, &b, !o.quiet);
        if (ts_model_error_count(a.m) || ts_model_error_count(b.m))
            status = CLI_ERROR;
    } else if (status == CLI_OK) {
        cli_table t = {NULL, 0, 0, 5, 0};
        const int single = single_pair(&a, &b);
        char pair_name[1024];
        /* A's tensors in A's order, then those only in B in B's order */
        for (size_t i = 0; i < a.n; i++) {
            if (!first_of_name(&a, i))
                continue;
            size_t j = single ? 0 : find(&b, a.key[i]);
            pair_values pv = {0};
            diff_kind k = j == (size_t)-1 ? DIFF_ONLY_A : compare_pair(ctx, &o, &a, i, &b, j, &pv);
            count[k]++;
            unreadable += pv.unreadable;
            if (pv.compared && pv.metrics) {
                const ts_array *ta = tensor(&a, i, NULL), *tb = tensor(&b, j, NULL);
                group_add(&groups, pv.ref_b ? tb : ta, pv.ref_b ? ta : tb, &pv.m);
            }
            const char *name = a.key[i];
            if (single) {
                snprintf(pair_name, sizeof pair_name, "%s => %s", a.key[0], b.key[0]);
                name = ctx->json ? a.key[0] : pair_name;
            }
            if (k != DIFF_EQUAL && k != DIFF_UNREADABLE && !o.quiet)
                report(ctx, &t, k, name, &a, i, &b, j, &pv);
        }
        for (size_t j = 0; j < b.n && !single; j++) {
            if (!first_of_name(&b, j) || find(&a, b.key[j]) != (size_t)-1)
                continue;
            count[DIFF_ONLY_B]++;
            if (!o.quiet)
                report(ctx, &t, DIFF_ONLY_B, b.key[j], &a, (size_t)-1, &b, j, NULL);
        }
        /* the metadata: listed with --metadata, else only counted */
        meta_report mr = {ctx, &t};
        size_t meta = cli_meta_compare(&a.meta, &b.meta,
                                       o.metadata && !o.quiet ? report_meta : count_meta, &mr);
        int64_t changed = count[DIFF_DTYPE] + count[DIFF_SHAPE] + count[DIFF_DTYPE_SHAPE];
        int64_t different = changed + count[DIFF_ONLY_A] + count[DIFF_ONLY_B] +
                            count[DIFF_VALUES];
        if (!o.quiet) {
            cli_table_flush(ctx, &t, "");
            report_groups(ctx, &groups);
            if (groups.n > 0 && !ctx->json)
                out_str(ctx, "\n");
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
            print_text(ctx, ")");
            print_int(ctx, PRINT_JSON, "metadata_different", NULL, (int64_t)meta);
            if (meta > 0 || o.metadata) {
                char m[160];
                if (meta == 0)
                    snprintf(m, sizeof m, "; metadata equal (%zu entr%s)", a.meta.n,
                             a.meta.n == 1 ? "y" : "ies");
                else
                    snprintf(m, sizeof m, "; metadata differs: %zu entr%s%s", meta,
                             meta == 1 ? "y" : "ies",
                             o.metadata ? "" : " (--metadata lists them)");
                print_text(ctx, m);
            }
            print_text(ctx, "\n");
            print_close_object(ctx);
        }
        status = unreadable ? CLI_ERROR
                 : different || (o.metadata && meta > 0) ? CLI_FALSE
                                                          : CLI_OK;
        /* an incomplete model is an error whatever the comparison says */
        if (ts_model_error_count(a.m) || ts_model_error_count(b.m))
            status = CLI_ERROR;
    }
    free(groups.v);
    free_side(&a);
    free_side(&b);
    free_opts(&o);
    return status;
}
