/*
 * cmd_diff.c - tshape diff A B: the structural difference of two files or
 * models (folders, index files), of the same or different formats: tensors
 * only in A, only in B, and tensors whose dtype or shape differ; equal
 * tensors are counted. Exit 0 equal, 1 different, 2 error (as cmp, diff).
 *
 * The library computes the diff (ts_diff: names mapped by --strip-prefix
 * and --rename, selected by --filter/--exclude, matched by name or by the
 * single-pair rule, the kind of each pair, the totals, the metadata that
 * differs); this file prints it. With --values each pair of one shape has
 * its data compared (ts_diff_compare_values, numpy.isclose's rule) as it
 * is reported: a pair whose values are not all close is a difference of
 * kind "values" (or keeps its dtype kind, with the values' report beside
 * it); conversions and quantizations get error metrics instead, and their
 * table by dtype pair (ts_diff_metrics_group_at). The last line says when
 * the metadata differs, and --metadata lists the entries. --structure
 * prints the two listings as a unified diff instead.
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
                               "blk.N.attn_q), an ONNX export (onnx::Conv_46 read by\n"
                               "/layer1/layer1.0/conv1/Conv is layer1.0.conv1.weight)\n"
                               "or Keras kernel layouts"),
    CLI_REMOTE_OPTIONS,
    CLI_OPTIONS_END,
};

typedef struct diff_opts {
    cli_names names;        /* --strip-prefix*, --rename (names.c) */
    cli_filter filter;      /* --filter, --exclude on the mapped names */
    int quiet, recursive;
    int values;             /* --values */
    int metadata;           /* --metadata */
    int metrics;            /* --metrics */
    int structure;          /* --structure */
    int no_name_map;        /* --no-name-map */
    ts_compare_options cmp;
    ts_open_options open;   /* --max-fetch, --verbose, TSHAPE_IO; metadata */
} diff_opts;

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
    /* values read through a map of each local file (verify --deep's way:
     * no copy into buffers; the pages are released as they are read) */
    if (o->values && o->open.io == TS_IO_AUTO)
        o->open.io = TS_IO_MAP;
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

/* ---- the two models ------------------------------------------------------------ */

typedef struct sides {
    const char *path[2];
    ts_model *m[2];
} sides;

static int open_side(cli_ctx *ctx, diff_opts *o, sides *s, int i)
{
    if (cli_no_stdin(ctx, s->path[i]) != CLI_OK)
        return CLI_ERROR;
    s->m[i] = cli_model_open(ctx, s->path[i], &o->open, o->recursive);
    return s->m[i] ? CLI_OK : CLI_ERROR;
}

/* Tensor `index` of model m, and its member in *file. */
static const ts_array *tensor(const ts_model *m, size_t index, size_t *file)
{
    return ts_model_array(m, index, file);
}

/* ---- comparing values ------------------------------------------------------------ */

/* --values: the data of pair i compared (ts_diff_compare_values), with the
 * progress line; a side whose data cannot be read is an error line naming
 * its file (and the array, in the message). */
static void compare_values(cli_ctx *ctx, const diff_opts *o, const sides *s, ts_diff *d,
                           size_t i)
{
    const ts_diff_pair *p = ts_diff_pair_at(d, i);
    if (p->kind != TS_DIFF_EQUAL && p->kind != TS_DIFF_DTYPE)
        return; /* one side only, or shapes that differ */
    size_t fa, fb;
    const ts_array *a = tensor(s->m[0], p->a, &fa);
    tensor(s->m[1], p->b, &fb);
    cli_progress progress;
    cli_progress_init(&progress, "diff");
    ts_compare_options co = o->cmp;
    if (progress.enabled) {
        co.progress = cli_progress_report;
        co.progress_ctx = &progress;
    }
    out_drain(ctx); /* what was reported is out before these values are read */
    cli_progress_start(&progress, ts_model_file_path(s->m[0], fa), a->name);
    ts_error err;
    ts_status st = ts_diff_compare_values(d, i, &co, &err);
    cli_progress_clear(&progress);
    if (st != TS_OK) {
        int bad = err.index == 1;
        cli_error(ctx, ts_model_file_path(s->m[bad], bad ? fb : fa), "%s", err.message);
    }
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

/* "max abs 0.0123, rmse 0.00123, nmse 1.5e-05, cosine 0.99999 (rows of 32
 * heads reordered)" */
static void metrics_text(const ts_diff_pair *p, char *buf, size_t cap)
{
    char ma[64], rm[64], nm[64], co[64], heads[64] = "", nan[64] = "";
    cli_fmt_double(ma, sizeof ma, p->metrics.max_abs, 0);
    cli_fmt_double(rm, sizeof rm, p->metrics.rmse, 0);
    cli_fmt_double(nm, sizeof nm, p->metrics.nmse, 0);
    cli_fmt_double(co, sizeof co, p->metrics.cosine, 0);
    if (p->qk_heads > 0)
        snprintf(heads, sizeof heads, " (rows of %lld heads reordered)",
                 (long long)p->qk_heads);
    if (p->metrics.nan > 0)
        snprintf(nan, sizeof nan, ", %lld NaN pairs left out", (long long)p->metrics.nan);
    snprintf(buf, cap, "max abs %s, rmse %s, nmse %s, cosine %s%s%s", ma, rm, nm, co, nan,
             heads);
}

static void metrics_json(cli_ctx *ctx, const ts_diff_pair *p)
{
    char v[64];
    print_open_object(ctx, "metrics");
    print_string(ctx, PRINT_JSON, "reference", NULL, p->reference == TS_SIDE_B ? "b" : "a");
    print_int(ctx, PRINT_JSON, "qk_heads", NULL, p->qk_heads);
    print_int(ctx, PRINT_JSON, "count", NULL, p->metrics.count);
    print_int(ctx, PRINT_JSON, "nan", NULL, p->metrics.nan);
    cli_fmt_double(v, sizeof v, p->metrics.max_abs, 1);
    print_json_text(ctx, PRINT_JSON, "max_abs", NULL, v);
    cli_fmt_double(v, sizeof v, p->metrics.rmse, 1);
    print_json_text(ctx, PRINT_JSON, "rmse", NULL, v);
    cli_fmt_double(v, sizeof v, p->metrics.nmse, 1);
    print_json_text(ctx, PRINT_JSON, "nmse", NULL, v);
    cli_fmt_double(v, sizeof v, p->metrics.cosine, 1);
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

/* "transposed (1,0)" or "permuted (3,2,0,1)": how B's axes are taken to
 * compare with A's (ts_diff_pair.perm); "" when they are not. */
static void perm_text(const ts_diff_pair *p, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (p->perm_ndim == 0)
        return;
    size_t n = (size_t)snprintf(buf, cap, "B %s (", p->perm_ndim == 2 ? "transposed"
                                                                       : "permuted");
    for (int k = 0; k < p->perm_ndim && n < cap; k++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%d", k ? "," : "", p->perm[k]);
    if (n < cap)
        snprintf(buf + n, cap - n, ")");
}

/* Is the pair's rule one of the exporters' (reported with the pair)? */
static int export_rule(const ts_diff_pair *p)
{
    return p->rule >= TS_DIFF_RULE_ONNX_CONSUMER;
}

/* "by onnx_consumer: /fc/MatMul input 1, B transposed (1,0)" for a pair made
 * by an exporter's rule; "bn_folded into layer1.0.conv1.weight" for a
 * tensor alone that a rule explains. */
static void rule_text(const ts_diff_pair *p, char *buf, size_t cap)
{
    char perm[320];
    perm_text(p, perm, sizeof perm);
    const char *rule = ts_diff_rule_name(p->rule);
    if (p->explained)
        snprintf(buf, cap, "%s%s%s", rule,
                 p->via ? (p->rule == TS_DIFF_RULE_BN_FOLDED ? " into " : ": ") : "",
                 p->via ? p->via : "");
    else
        snprintf(buf, cap, "by %s%s%s%s%s", rule, p->via ? ": " : "", p->via ? p->via : "",
                 perm[0] && p->via ? ", " : perm[0] ? ": " : "", perm);
}

/* The pairing record of a pair made by an exporter's rule or a tensor alone
 * that one explains: {"rule", "name", "a", "b", "via", "perm",
 * "explained"}. */
static void rule_json(cli_ctx *ctx, const ts_diff_pair *p, const sides *s)
{
    print_open_object(ctx, NULL);
    print_string(ctx, PRINT_JSON, "rule", NULL, ts_diff_rule_name(p->rule));
    print_string(ctx, PRINT_JSON, "name", NULL, p->name);
    print_string(ctx, PRINT_JSON, "a", NULL,
                 p->a != TS_DIFF_NONE ? ts_model_array_name(s->m[0], p->a) : NULL);
    print_string(ctx, PRINT_JSON, "b", NULL,
                 p->b != TS_DIFF_NONE ? ts_model_array_name(s->m[1], p->b) : NULL);
    print_string(ctx, PRINT_JSON, "via", NULL, p->via);
    if (p->perm_ndim) {
        int64_t perm[TS_MAX_NDIM];
        for (int k = 0; k < p->perm_ndim; k++)
            perm[k] = p->perm[k];
        print_dims(ctx, PRINT_JSON, "perm", NULL, perm, p->perm_ndim);
    } else {
        print_null(ctx, PRINT_JSON, "perm", NULL);
    }
    print_bool(ctx, PRINT_JSON, "explained", NULL, p->explained);
    print_close_object(ctx);
}

static void tensor_text(const ts_array *a, char *buf, size_t cap)
{
    char shape[512];
    snprintf(buf, cap, "%s %s", cli_array_shape_text(a, shape, sizeof shape), a->dtype_name);
}

static void json_tensor(cli_ctx *ctx, const char *key, const ts_model *m, size_t index)
{
    size_t f;
    const ts_array *a = tensor(m, index, &f);
    print_open_object(ctx, key);
    print_string(ctx, PRINT_JSON, "name", NULL, ts_model_array_name(m, index));
    print_string(ctx, PRINT_JSON, "dtype", NULL, a->dtype_name);
    print_array_shape(ctx, PRINT_JSON, "shape", NULL, a);
    print_string(ctx, PRINT_JSON, "file", NULL, ts_model_file_path(m, f));
    print_close_object(ctx);
}

/* One pair that differs: a row of the table, or a JSON record. `name` is
 * the pair's name as shown ("a => b" for the single pair in text). */
static void report(cli_ctx *ctx, cli_table *t, const sides *s, const ts_diff_pair *p,
                   const char *name)
{
    const int has_a = p->a != TS_DIFF_NONE, has_b = p->b != TS_DIFF_NONE;
    const int compared = p->values == TS_DIFF_VALUES_COMPARED;
    if (ctx->json) {
        if (export_rule(p))
            rule_json(ctx, p, s);
        if (p->kind == TS_DIFF_EQUAL || p->explained)
            return;
        print_open_object(ctx, NULL);
        print_string(ctx, PRINT_JSON, "kind", NULL, ts_diff_kind_name(p->kind));
        print_string(ctx, PRINT_JSON, "name", NULL, name);
        if (has_a)
            json_tensor(ctx, "a", s->m[0], p->a);
        else
            print_null(ctx, PRINT_JSON, "a", NULL);
        if (has_b)
            json_tensor(ctx, "b", s->m[1], p->b);
        else
            print_null(ctx, PRINT_JSON, "b", NULL);
        if (compared && !p->by_metrics)
            values_json(ctx, tensor(s->m[0], p->a, NULL), &p->compare);
        else
            print_null(ctx, PRINT_JSON, "values", NULL);
        if (compared && p->by_metrics)
            metrics_json(ctx, p);
        else
            print_null(ctx, PRINT_JSON, "metrics", NULL);
        print_close_object(ctx);
        return;
    }
    static const char *const words[] = {"mapped", "only in A", "only in B", "dtype", "shape",
                                        "dtype, shape", "values", "unreadable"};
    char ta[600] = "", tb[600] = "";
    if (has_a)
        tensor_text(tensor(s->m[0], p->a, NULL), ta, sizeof ta);
    if (has_b)
        tensor_text(tensor(s->m[1], p->b, NULL), tb, sizeof tb);
    char tv[1024] = ""; /* where (600), NaN counts (96), two numbers (64 each), words */
    if (compared && p->by_metrics)
        metrics_text(p, tv, sizeof tv);
    else if (compared)
        values_text(tensor(s->m[0], p->a, NULL), &p->compare, tv, sizeof tv);
    char tr[1400] = "", both[1024 + 1400 + 8], pn[1024];
    if (export_rule(p))
        rule_text(p, tr, sizeof tr);
    snprintf(both, sizeof both, "%s%s%s", tv, tv[0] && tr[0] ? "; " : "", tr);
    if (has_a && has_b && export_rule(p) &&
        strcmp(p->name, ts_model_array_name(s->m[1], p->b)) != 0) {
        snprintf(pn, sizeof pn, "%.500s => %.500s", name, ts_model_array_name(s->m[1], p->b));
        name = pn;
    }
    const char *row[5] = {p->explained ? "explained" : words[p->kind], name, has_a ? ta : "-",
                          has_b ? tb : "-", both};
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

/* One metadata entry that differs: a row "metadata KEY A_VALUE B_VALUE"
 * ("-" for a side without it), or the JSON record {"metadata_key", "a",
 * "b", "only"}. */
static void report_meta(cli_ctx *ctx, cli_table *t, const char *label, const char *va,
                        const char *vb)
{
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
    cli_table_add(t, row);
}

/* The error metrics by dtype pair (with --values, after the rows): a table,
 * or one metrics group record each. */
static void report_groups(cli_ctx *ctx, const ts_diff *d)
{
    cli_table t = {NULL, 0, 0, 6, 0x3e};
    size_t n = ts_diff_metrics_group_count(d);
    if (n > 0 && !ctx->json) {
        const char *head[6] = {"metrics by dtype", "tensors", "max abs", "rmse", "nmse",
                               "min cosine"};
        out_str(ctx, "\n");
        cli_table_add(&t, head);
    }
    for (size_t i = 0; i < n; i++) {
        const ts_diff_metrics_group *x = ts_diff_metrics_group_at(d, i);
        char c[32], ma[64], rm[64], nm[64], co[64];
        int json = ctx->json;
        cli_fmt_double(ma, sizeof ma, x->max_abs, json);
        cli_fmt_double(rm, sizeof rm, x->rmse, json);
        cli_fmt_double(nm, sizeof nm, x->nmse, json);
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
        snprintf(c, sizeof c, "%lld", (long long)x->tensors);
        const char *row[6] = {x->label, c, ma, rm, nm, co};
        cli_table_add(&t, row);
    }
    cli_table_flush(ctx, &t, "");
    if (n > 0 && !ctx->json)
        out_str(ctx, "\n");
}

/* ---- --structure ------------------------------------------------------------------ */

/* One line of a listing: a pair's tensor of one side by its mapped name. */
typedef struct listed {
    const char *key;
    size_t index;           /* in the side's model */
} listed;

static int cmp_listed(const void *x, const void *y)
{
    return strcmp(((const listed *)x)->key, ((const listed *)y)->key);
}

/* "NAME DTYPE (SHAPE)" of tensor `index` of m by its mapped name key,
 * escaped. */
static char *listing_line(const ts_model *m, const listed *l)
{
    char shape[512], name[2048];
    size_t w;
    cli_escape(CLI_ESC_TEXT, l->key, strlen(l->key), name, sizeof name, &w);
    const ts_array *a = tensor(m, l->index, NULL);
    size_t n = strlen(name) + strlen(a->dtype_name) + 520;
    char *line = malloc(n);
    if (line)
        snprintf(line, n, "%s %s %s", name, a->dtype_name,
                 cli_array_shape_text(a, shape, sizeof shape));
    return line;
}

/* A unified diff of the two listings of the diff's tensors (the first of
 * each mapped name), sorted by name, as one hunk with all lines in context
 * (what diff -U N with N large prints): stable across formats, offsets and
 * orders, for diff -u and patch (gguf-tools' diffable listing). Returns
 * CLI_OK when equal, CLI_FALSE when not. */
static int structure_diff(cli_ctx *ctx, const sides *s, const ts_diff *d, int print)
{
    size_t np = ts_diff_count(d), na = 0, nb = 0;
    listed *la = malloc((np ? np : 1) * sizeof *la), *lb = malloc((np ? np : 1) * sizeof *lb);
    if (!la || !lb) {
        free(la);
        free(lb);
        return cli_error(ctx, NULL, "out of memory");
    }
    for (size_t i = 0; i < np; i++) {
        const ts_diff_pair *p = ts_diff_pair_at(d, i);
        if (p->a != TS_DIFF_NONE)
            la[na++] = (listed){p->name, p->a};
        if (p->b != TS_DIFF_NONE) /* a pair an exporter's rule made: by A's name */
            lb[nb++] = (listed){p->a != TS_DIFF_NONE && export_rule(p) ? p->name : p->name_b,
                                p->b};
    }
    qsort(la, na, sizeof *la, cmp_listed); /* names are unique on a side */
    qsort(lb, nb, sizeof *lb, cmp_listed);
    int status = CLI_OK;
    if (na + nb > 0 && print) {
        out_str(ctx, "--- ");
        out_escaped(ctx, CLI_ESC_TEXT, s->path[0], strlen(s->path[0]));
        out_str(ctx, "\n+++ ");
        out_escaped(ctx, CLI_ESC_TEXT, s->path[1], strlen(s->path[1]));
        out_printf(ctx, "\n@@ -%zu,%zu +%zu,%zu @@\n", na ? (size_t)1 : 0, na,
                   nb ? (size_t)1 : 0, nb);
    }
    for (size_t i = 0, j = 0; i < na || j < nb;) {
        int c = i >= na ? 1 : j >= nb ? -1 : strcmp(la[i].key, lb[j].key);
        char *ta = c <= 0 ? listing_line(s->m[0], &la[i]) : NULL;
        char *tb = c >= 0 ? listing_line(s->m[1], &lb[j]) : NULL;
        if ((c <= 0 && !ta) || (c >= 0 && !tb)) {
            free(ta);
            free(tb);
            status = cli_error(ctx, NULL, "out of memory");
            break;
        }
        if (c == 0 && strcmp(ta, tb) == 0) {
            if (print)
                out_printf(ctx, " %s\n", ta);
        } else {
            status = CLI_FALSE;
            if (ta && print)
                out_printf(ctx, "-%s\n", ta);
            if (tb && print)
                out_printf(ctx, "+%s\n", tb);
        }
        free(ta);
        free(tb);
        i += c <= 0;
        j += c >= 0;
    }
    free(la);
    free(lb);
    return status;
}

/* ---- the run ------------------------------------------------------------------- */

/* The warnings of a diff: names a side holds more than once, prefixes that
 * matched nothing. */
static void warn(cli_ctx *ctx, const sides *s, const ts_diff *d, const diff_opts *o)
{
    for (size_t i = 0; i < ts_diff_duplicate_count(d); i++) {
        unsigned side;
        const char *name = ts_diff_duplicate_at(d, i, &side, NULL);
        cli_notice(ctx, s->path[side == TS_SIDE_B], "warning: tensor '%s' appears more than "
                                                    "once; the first is compared", name);
    }
    cli_names_warn_unused(ctx, &o->names);
}

/* The last line: the counts, and whether the metadata differs.
 * explained_fused: the fused biases alone (ONNX_FUSED, explained). */
static void print_totals(cli_ctx *ctx, const diff_opts *o, const ts_diff_totals *t,
                         int64_t explained_fused)
{
    print_open_object(ctx, NULL);
    print_int(ctx, PRINT_ANY, "equal", "%s equal, ", t->kinds[TS_DIFF_EQUAL]);
    print_int(ctx, PRINT_ANY, "different", "%s different", t->different);
    print_text(ctx, " (");
    print_int(ctx, PRINT_ANY, "only_a", "%s only in A, ", t->kinds[TS_DIFF_ONLY_A]);
    print_int(ctx, PRINT_ANY, "only_b", "%s only in B, ", t->kinds[TS_DIFF_ONLY_B]);
    /* tensors alone that a rule explains are not differences: say how
     * many of those alone they are (JSON: "explained", below) */
    if (!ctx->json && t->explained > 0)
        out_printf(ctx, "%lld of them explained, ", (long long)t->explained);
    print_int(ctx, PRINT_ANY, "changed", "%s changed", t->changed);
    /* the values' counts only with --values (JSON: always) */
    print_int(ctx, o->values ? PRINT_ANY : PRINT_JSON, "values", ", %s values",
              t->kinds[TS_DIFF_VALUES]);
    print_int(ctx, o->values && t->unreadable ? PRINT_ANY : PRINT_JSON, "unreadable",
              ", %s unreadable", t->unreadable);
    print_text(ctx, ")");
    print_int(ctx, PRINT_JSON, "metadata_different", NULL, t->metadata_different);
    /* the exporters' rules: "; paired by onnx_consumer 2, onnx_identity 6;
     * explained 4 (bn_folded 2, not_exported 2)" when any applied */
    print_int(ctx, PRINT_JSON, "explained", NULL, t->explained);
    print_open_object(ctx, "rules");
    for (int r = 0; r < TS_DIFF_RULE_COUNT; r++)
        print_int(ctx, PRINT_JSON, ts_diff_rule_name((ts_diff_rule)r), NULL, t->rules[r]);
    print_close_object(ctx);
    for (int pass = 0; pass < 2 && !ctx->json; pass++) {
        int n = 0;
        for (int r = TS_DIFF_RULE_ONNX_CONSUMER; r < TS_DIFF_RULE_COUNT; r++) {
            int explains = r == TS_DIFF_RULE_BN_FOLDED || r == TS_DIFF_RULE_NOT_EXPORTED ||
                           r == TS_DIFF_RULE_ONNX_CONSTANT;
            int64_t c = t->rules[r];
            if (r == TS_DIFF_RULE_ONNX_FUSED)
                c = pass ? explained_fused : c - explained_fused;
            else if (explains != pass)
                continue;
            if (c == 0)
                continue;
            char m[96];
            if (n++ > 0) {
                print_text(ctx, ", ");
            } else if (pass == 0) {
                print_text(ctx, "; paired by ");
            } else {
                snprintf(m, sizeof m, "; explained %lld (", (long long)t->explained);
                print_text(ctx, m);
            }
            snprintf(m, sizeof m, "%s %lld", ts_diff_rule_name((ts_diff_rule)r), (long long)c);
            print_text(ctx, m);
        }
        if (n && pass)
            print_text(ctx, ")");
    }
    int64_t meta = t->metadata_different;
    if (meta > 0 || o->metadata) {
        char m[160];
        if (meta == 0)
            snprintf(m, sizeof m, "; metadata equal (%lld entr%s)", (long long)t->metadata_a,
                     t->metadata_a == 1 ? "y" : "ies");
        else
            snprintf(m, sizeof m, "; metadata differs: %lld entr%s%s", (long long)meta,
                     meta == 1 ? "y" : "ies", o->metadata ? "" : " (--metadata lists them)");
        print_text(ctx, m);
    }
    print_text(ctx, "\n");
    print_close_object(ctx);
}

/* Reports the diff (comparing values as it goes) and returns the status. */
static int run(cli_ctx *ctx, const diff_opts *o, const sides *s, ts_diff *d)
{
    cli_table t = {NULL, 0, 0, 5, 0};
    const int single = ts_diff_single(d);
    int64_t explained_fused = 0;
    char pair_name[1024];
    for (size_t i = 0; i < ts_diff_count(d); i++) {
        if (o->values)
            compare_values(ctx, o, s, d, i);
        const ts_diff_pair *p = ts_diff_pair_at(d, i);
        const char *name = p->name;
        if (single) {
            snprintf(pair_name, sizeof pair_name, "%s => %s", p->name, p->name_b);
            name = ctx->json ? p->name : pair_name;
        }
        explained_fused += p->explained && p->rule == TS_DIFF_RULE_ONNX_FUSED;
        if (((p->kind != TS_DIFF_EQUAL && p->kind != TS_DIFF_UNREADABLE) || export_rule(p)) &&
            !o->quiet)
            report(ctx, &t, s, p, name);
    }
    /* the metadata: listed with --metadata */
    for (size_t i = 0; o->metadata && !o->quiet && i < ts_diff_metadata_count(d); i++) {
        const char *label, *va, *vb;
        ts_diff_metadata_at(d, i, &label, &va, &vb);
        report_meta(ctx, &t, label, va, vb);
    }
    const ts_diff_totals *tot = ts_diff_totals_of(d);
    if (!o->quiet) {
        cli_table_flush(ctx, &t, "");
        report_groups(ctx, d);
        print_totals(ctx, o, tot, explained_fused);
    }
    int status = tot->unreadable ? CLI_ERROR
                 : tot->different || (o->metadata && tot->metadata_different > 0) ? CLI_FALSE
                                                                                   : CLI_OK;
    /* an incomplete model is an error whatever the comparison says */
    if (ts_model_error_count(s->m[0]) || ts_model_error_count(s->m[1]))
        status = CLI_ERROR;
    return status;
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
    sides s = {{args->ops[0], args->ops[1]}, {NULL, NULL}};
    int status = open_side(ctx, &o, &s, 0);
    if (status == CLI_OK)
        status = open_side(ctx, &o, &s, 1);
    ts_diff *d = NULL;
    if (status == CLI_OK) {
        ts_diff_options dopts = TS_DIFF_OPTIONS_INIT;
        dopts.names = o.names.map;
        dopts.filter = o.filter.filter;
        dopts.nfilter = o.filter.nfilter;
        dopts.exclude = o.filter.exclude;
        dopts.nexclude = o.filter.nexclude;
        dopts.gguf_names = !o.no_name_map;
        dopts.export_names = !o.no_name_map;
        dopts.metrics = o.metrics;
        ts_error err;
        if (ts_diff_new(s.m[0], s.m[1], &dopts, &d, &err) != TS_OK)
            status = cli_error(ctx, s.path[err.code == TS_ERR_IO && err.index == 1], "%s",
                               err.message);
    }
    if (status == CLI_OK)
        warn(ctx, &s, d, &o);
    if (status == CLI_OK && o.structure) {
        status = structure_diff(ctx, &s, d, !o.quiet);
        if (ts_model_error_count(s.m[0]) || ts_model_error_count(s.m[1]))
            status = CLI_ERROR;
    } else if (status == CLI_OK) {
        status = run(ctx, &o, &s, d);
    }
    ts_diff_free(d);
    ts_model_close(s.m[0]);
    ts_model_close(s.m[1]);
    free_opts(&o);
    return status;
}
