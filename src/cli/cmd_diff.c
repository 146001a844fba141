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
 * it). The last line says when the metadata differs, and --metadata lists
 * the entries.
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
    CLI_FLAG("metadata", 'm', "also compare the metadata (values that are not tensors, file\n"
                              "metadata) and list the entries that differ"),
    CLI_FLAG("quiet", 'q', "print nothing; only the exit status"),
    CLI_REMOTE_OPTIONS,
    CLI_OPTIONS_END,
};

typedef struct diff_opts {
    cli_names names;        /* --strip-prefix*, --rename (names.c) */
    cli_filter filter;      /* --filter, --exclude on the mapped names */
    int quiet, recursive;
    int values;             /* --values */
    int metadata;           /* --metadata */
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
        if (compared)
            values_json(ctx, tensor(s->m[0], p->a, NULL), &p->compare);
        else
            print_null(ctx, PRINT_JSON, "values", NULL);
        print_close_object(ctx);
        return;
    }
    static const char *const words[] = {"", "only in A", "only in B", "dtype", "shape",
                                        "dtype, shape", "values", "unreadable"};
    char ta[600] = "", tb[600] = "";
    if (has_a)
        tensor_text(tensor(s->m[0], p->a, NULL), ta, sizeof ta);
    if (has_b)
        tensor_text(tensor(s->m[1], p->b, NULL), tb, sizeof tb);
    char tv[1024] = ""; /* where (600), NaN counts (96), two numbers (64 each), words */
    if (compared)
        values_text(tensor(s->m[0], p->a, NULL), &p->compare, tv, sizeof tv);
    const char *row[5] = {words[p->kind], name, has_a ? ta : "-", has_b ? tb : "-", tv};
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

/* The last line: the counts, and whether the metadata differs. */
static void print_totals(cli_ctx *ctx, const diff_opts *o, const ts_diff_totals *t)
{
    print_open_object(ctx, NULL);
    print_int(ctx, PRINT_ANY, "equal", "%s equal, ", t->kinds[TS_DIFF_EQUAL]);
    print_int(ctx, PRINT_ANY, "different", "%s different", t->different);
    print_text(ctx, " (");
    print_int(ctx, PRINT_ANY, "only_a", "%s only in A, ", t->kinds[TS_DIFF_ONLY_A]);
    print_int(ctx, PRINT_ANY, "only_b", "%s only in B, ", t->kinds[TS_DIFF_ONLY_B]);
    print_int(ctx, PRINT_ANY, "changed", "%s changed", t->changed);
    /* the values' counts only with --values (JSON: always) */
    print_int(ctx, o->values ? PRINT_ANY : PRINT_JSON, "values", ", %s values",
              t->kinds[TS_DIFF_VALUES]);
    print_int(ctx, o->values && t->unreadable ? PRINT_ANY : PRINT_JSON, "unreadable",
              ", %s unreadable", t->unreadable);
    print_text(ctx, ")");
    print_int(ctx, PRINT_JSON, "metadata_different", NULL, t->metadata_different);
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
        if (p->kind != TS_DIFF_EQUAL && p->kind != TS_DIFF_UNREADABLE && !o->quiet)
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
        print_totals(ctx, o, tot);
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
        ts_error err;
        if (ts_diff_new(s.m[0], s.m[1], &dopts, &d, &err) != TS_OK)
            status = cli_error(ctx, s.path[err.code == TS_ERR_IO && err.index == 1], "%s",
                               err.message);
    }
    if (status == CLI_OK) {
        warn(ctx, &s, d, &o);
        status = run(ctx, &o, &s, d);
    }
    ts_diff_free(d);
    ts_model_close(s.m[0]);
    ts_model_close(s.m[1]);
    free_opts(&o);
    return status;
}
