/*
 * cmd_stats.c - tshape stats: what is in each tensor (ts_array_stats): count,
 * min, max, mean, std, absmax, zeros, NaN and Inf counts, one pass over the
 * data; with --summary the model-wide line instead.
 *
 * Human output is one row per tensor under a header (columns aligned on a
 * terminal, tab-separated otherwise, as info --summary); --json is one
 * record per tensor. A tensor that cannot be read is one error line naming
 * it; the others are still reported and the exit status is 2.
 */
#include "cli.h"
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const cli_option stats_options[] = {
    CLI_ABOUT("Reads every value of each array (all cores, one pass) and reports count,\n"
              "min, max, mean, std (population), absmax, zeros, NaN, +Inf and -Inf (bool:\n"
              "also the true count; complex: statistics of |z|). mean and std are over the\n"
              "finite values. With --json, one JSON object per array (JSON Lines); NaN and\n"
              "Inf are the strings \"nan\", \"inf\", \"-inf\"."),
    CLI_FILTER_OPTIONS,
    CLI_FLAG("summary", 's', "only the model-wide line: arrays, elements, NaN/Inf totals,\n"
                             "global absmax, the first 5 arrays with a non-finite value\n"
                             "(JSON: all of them)"),
    CLI_FLAG("recursive", 'r', "a FILE that is a folder without an index: its subfolders too"),
    CLI_REMOTE_OPTIONS,
    CLI_VALUE("max-bytes", 0, "SIZE",
              "read at most SIZE bytes of each array (its first elements, 64MB, 1GiB):\n"
              "an array read in part shows count as 'READ of SIZE' (JSON: size, capped)"),
    CLI_OPTIONS_END,
};

#define NCOLS 15

typedef struct row {
    char *cols[NCOLS];
} row;

typedef struct stats_run {
    cli_filter filter;
    int summary, many_files, tty, recursive;
    int header_done;        /* rows written as they come: the header is out */
    int64_t max_bytes;      /* --max-bytes, or 0 */
    int64_t capped;         /* arrays read in part */
    row *rows;
    size_t nrows, cap;
    /* --summary */
    int64_t arrays, elements, nan, posinf, neginf, failed;
    double absmax;
    char *bad;              /* names of arrays with a non-finite value */
    size_t bad_len, nbad;
    cli_progress progress;
    ts_open_options open;   /* --max-fetch, --verbose, TSHAPE_IO */
} stats_run;

static const char *const header[NCOLS] = {"file", "name", "dtype", "shape", "count",
                                          "min", "max", "mean", "std", "absmax",
                                          "zeros", "nan", "+inf", "-inf", "true"};

static void fmt_min_max(char *buf, size_t cap, const ts_stats *s, int max, int json)
{
    if (s->count > 0 && s->kind == TS_VALUE_INT)
        snprintf(buf, cap, "%lld", (long long)(max ? s->imax : s->imin));
    else if (s->count > 0 && (s->kind == TS_VALUE_UINT || s->kind == TS_VALUE_BOOL))
        snprintf(buf, cap, "%llu", (unsigned long long)(max ? s->umax : s->umin));
    else
        cli_fmt_double(buf, cap, max ? s->max : s->min, json);
}

static char *dup_escaped(const char *s)
{
    size_t n = strlen(s), cap = n * 12 + 1, w;
    char *c = malloc(cap);
    if (c)
        cli_escape(CLI_ESC_TEXT, s, n, c, cap, &w);
    return c;
}

/* One line of cells: aligned to width (a terminal), or tab-separated. */
static void print_line(cli_ctx *ctx, const stats_run *r, const char *const *cells,
                       const size_t *width)
{
    int first = 1;
    for (int c = 0; c < NCOLS; c++) {
        if (c == 0 && !r->many_files)
            continue;
        const char *s = cells[c] ? cells[c] : "-";
        if (!first)
            out_char(ctx, width ? ' ' : '\t');
        out_str(ctx, s);
        if (width && c < NCOLS - 1)
            for (size_t k = strlen(s); k < width[c]; k++)
                out_char(ctx, ' ');
        first = 0;
    }
    out_char(ctx, '\n');
}

/* A row: held until the end on a terminal (to align the columns), else
 * written at once, after the header, so that what was reported is out
 * before the next file is opened (output survives a crash). */
static void add_row(cli_ctx *ctx, stats_run *r, const char *const *cols)
{
    if (!r->tty) {
        char *cells[NCOLS];
        if (!r->header_done)
            print_line(ctx, r, header, NULL);
        r->header_done = 1;
        for (int i = 0; i < NCOLS; i++)
            cells[i] = cols[i] ? dup_escaped(cols[i]) : NULL;
        print_line(ctx, r, (const char *const *)cells, NULL);
        for (int i = 0; i < NCOLS; i++)
            free(cells[i]);
        return;
    }
    if (r->nrows == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 64;
        row *p = realloc(r->rows, cap * sizeof *p);
        if (!p)
            return;
        r->rows = p;
        r->cap = cap;
    }
    row *w = &r->rows[r->nrows++];
    for (int i = 0; i < NCOLS; i++)
        w->cols[i] = cols[i] ? dup_escaped(cols[i]) : NULL;
}

static void flush_rows(cli_ctx *ctx, stats_run *r)
{
    if (r->nrows == 0)
        return;
    size_t width[NCOLS] = {0};
    for (int c = 0; c < NCOLS; c++)
        width[c] = strlen(header[c]);
    for (size_t i = 0; i < r->nrows; i++)
        for (int c = 0; c < NCOLS; c++)
            if (r->rows[i].cols[c] && strlen(r->rows[i].cols[c]) > width[c])
                width[c] = strlen(r->rows[i].cols[c]);
    print_line(ctx, r, header, width);
    for (size_t i = 0; i < r->nrows; i++) {
        print_line(ctx, r, (const char *const *)r->rows[i].cols, width);
        for (int c = 0; c < NCOLS; c++)
            free(r->rows[i].cols[c]);
    }
    free(r->rows);
    r->rows = NULL;
    r->nrows = r->cap = 0;
}

static void report(cli_ctx *ctx, stats_run *r, const char *path, const char *name,
                   const ts_array *a, const ts_stats *s)
{
    char mn[64], mx[64], mean[64], sd[64], am[64];
    int json = ctx->json;
    fmt_min_max(mn, sizeof mn, s, 0, json);
    fmt_min_max(mx, sizeof mx, s, 1, json);
    cli_fmt_double(mean, sizeof mean, s->mean, json);
    cli_fmt_double(sd, sizeof sd, s->std, json);
    cli_fmt_double(am, sizeof am, s->absmax, json);
    if (json) {
        print_open_object(ctx, NULL);
        print_string(ctx, PRINT_JSON, "file", NULL, path);
        print_string(ctx, PRINT_JSON, "name", NULL, name);
        print_string(ctx, PRINT_JSON, "dtype", NULL, a->dtype_name);
        print_array_shape(ctx, PRINT_JSON, "shape", NULL, a);
        print_int(ctx, PRINT_JSON, "count", NULL, s->count);
        if (s->count < a->size) { /* --max-bytes: a prefix */
            print_int(ctx, PRINT_JSON, "size", NULL, a->size);
            print_bool(ctx, PRINT_JSON, "capped", NULL, 1);
        }
        print_json_text(ctx, PRINT_JSON, "min", NULL, mn);
        print_json_text(ctx, PRINT_JSON, "max", NULL, mx);
        print_json_text(ctx, PRINT_JSON, "mean", NULL, mean);
        print_json_text(ctx, PRINT_JSON, "std", NULL, sd);
        print_json_text(ctx, PRINT_JSON, "absmax", NULL, am);
        print_int(ctx, PRINT_JSON, "zeros", NULL, s->zeros);
        print_int(ctx, PRINT_JSON, "nan", NULL, s->nan);
        print_int(ctx, PRINT_JSON, "posinf", NULL, s->posinf);
        print_int(ctx, PRINT_JSON, "neginf", NULL, s->neginf);
        if (s->kind == TS_VALUE_BOOL)
            print_int(ctx, PRINT_JSON, "true", NULL, s->ntrue);
        print_close_object(ctx);
        return;
    }
    char shape[512], count[64], z[32], nn[32], pi[32], ni[32], tr[32];
    cli_array_shape_text(a, shape, sizeof shape);
    if (s->count < a->size)
        snprintf(count, sizeof count, "%lld of %lld", (long long)s->count, (long long)a->size);
    else
        snprintf(count, sizeof count, "%lld", (long long)s->count);
    snprintf(z, sizeof z, "%lld", (long long)s->zeros);
    snprintf(nn, sizeof nn, "%lld", (long long)s->nan);
    snprintf(pi, sizeof pi, "%lld", (long long)s->posinf);
    snprintf(ni, sizeof ni, "%lld", (long long)s->neginf);
    snprintf(tr, sizeof tr, "%lld", (long long)s->ntrue);
    const char *cols[NCOLS] = {path, name[0] ? name : "-", a->dtype_name, shape, count,
                               mn, mx, mean, sd, am, z, nn, pi, ni,
                               s->kind == TS_VALUE_BOOL ? tr : NULL};
    add_row(ctx, r, cols);
}

/* Appends "NAME", "FILE:NAME" (several files) or "FILE" (an unnamed
 * array) to the list of arrays with a non-finite value, NUL-separated. */
static void note_bad(stats_run *r, const char *path, const char *name)
{
    size_t need = strlen(path) + strlen(name) + 4;
    char *p = realloc(r->bad, r->bad_len + need);
    if (!p)
        return;
    r->bad = p;
    int with_path = r->many_files || !name[0];
    r->bad_len += (size_t)snprintf(r->bad + r->bad_len, need, "%s%s%s",
                                   with_path ? path : "", with_path && name[0] ? ":" : "",
                                   name) + 1;
    r->nbad++;
}

static void summarize(stats_run *r, const char *path, const char *name, const ts_stats *s)
{
    r->arrays++;
    r->elements += s->count;
    r->nan += s->nan;
    r->posinf += s->posinf;
    r->neginf += s->neginf;
    if (s->absmax == s->absmax && (r->absmax != r->absmax || s->absmax > r->absmax))
        r->absmax = s->absmax;
    if (s->nan + s->posinf + s->neginf > 0)
        note_bad(r, path, name);
}

/* Arrays with non-finite values named in the text of --summary. */
#define SUMMARY_NAMES 5

static void print_summary(cli_ctx *ctx, stats_run *r)
{
    char am[64];
    cli_fmt_double(am, sizeof am, r->absmax, ctx->json);
    if (ctx->json) {
        print_open_object(ctx, NULL);
        print_open_object(ctx, "summary");
        print_int(ctx, PRINT_JSON, "arrays", NULL, r->arrays);
        print_int(ctx, PRINT_JSON, "elements", NULL, r->elements);
        print_int(ctx, PRINT_JSON, "nan", NULL, r->nan);
        print_int(ctx, PRINT_JSON, "posinf", NULL, r->posinf);
        print_int(ctx, PRINT_JSON, "neginf", NULL, r->neginf);
        print_json_text(ctx, PRINT_JSON, "absmax", NULL, am);
        print_int(ctx, PRINT_JSON, "failed", NULL, r->failed);
        if (r->max_bytes)
            print_int(ctx, PRINT_JSON, "capped", NULL, r->capped);
        print_open_array(ctx, "nonfinite");
        for (size_t at = 0; at < r->bad_len; at += strlen(r->bad + at) + 1)
            print_string(ctx, PRINT_JSON, NULL, NULL, r->bad + at);
        print_close_array(ctx);
        print_close_object(ctx);
        print_close_object(ctx);
        return;
    }
    out_printf(ctx, "summary: %lld array%s, %lld elements, nan %lld, +inf %lld, -inf %lld, "
               "absmax %s", (long long)r->arrays, r->arrays == 1 ? "" : "s",
               (long long)r->elements, (long long)r->nan, (long long)r->posinf,
               (long long)r->neginf, am);
    if (r->failed)
        out_printf(ctx, ", %lld unreadable", (long long)r->failed);
    if (r->capped)
        out_printf(ctx, ", %lld read in part (--max-bytes)", (long long)r->capped);
    out_printf(ctx, "; %zu array%s with non-finite values", r->nbad, r->nbad == 1 ? "" : "s");
    /* the first few by name: a diverged model has thousands (JSON has all) */
    size_t shown = 0;
    for (size_t at = 0; at < r->bad_len && shown < SUMMARY_NAMES; at += strlen(r->bad + at) + 1) {
        out_str(ctx, at ? ", " : ": ");
        out_escaped(ctx, CLI_ESC_TEXT, r->bad + at, strlen(r->bad + at));
        shown++;
    }
    if (r->nbad > shown)
        out_printf(ctx, " and %zu more", r->nbad - shown);
    out_char(ctx, '\n');
}

/* The statistics of one array (a's name in the report: `name`), reported
 * or added to the summary; an array that cannot be read is an error line. */
static int stats_array(cli_ctx *ctx, stats_run *r, const char *path, const ts_file *f,
                       const ts_array *a, const char *name)
{
    ts_stats_options o = TS_STATS_OPTIONS_INIT;
    o.max_bytes = r->max_bytes;
    if (r->progress.enabled) {
        o.progress = cli_progress_report;
        o.progress_ctx = &r->progress;
    }
    ts_stats s;
    ts_error err;
    cli_progress_start(&r->progress, path, name);
    ts_status st = ts_array_stats(f, a, &o, &s, &err);
    cli_progress_clear(&r->progress);
    if (st != TS_OK) {
        r->failed++;
        return cli_error(ctx, path, "%s", err.message);
    }
    r->capped += s.count < a->size;
    if (r->summary)
        summarize(r, path, name, &s);
    else
        report(ctx, r, path, name, a, &s);
    return CLI_OK;
}

/* A folder or an index: every tensor of the model, by its model name, with
 * its shard as the file (model.c reports the model's issues). */
static int stats_model(cli_ctx *ctx, stats_run *r, const char *path)
{
    ts_model *m = cli_model_open(ctx, path, &r->open, r->recursive);
    if (!m)
        return CLI_ERROR;
    int status = ts_model_error_count(m) ? CLI_ERROR : CLI_OK;
    for (size_t i = 0; i < ts_model_count(m) && !ctx->out.closed; i++) {
        size_t k;
        const ts_array *a = ts_model_array(m, i, &k);
        const char *name = ts_model_array_name(m, i);
        if (cli_filter_match(&r->filter, name))
            status = cli_worse(status, stats_array(ctx, r, ts_model_file_path(m, k),
                                                   ts_model_file(m, k), a, name));
    }
    ts_model_close(m);
    return status;
}

static int stats_file(cli_ctx *ctx, stats_run *r, const char *path)
{
    out_drain(ctx); /* the previous files' report is out before this one is opened */
    if (cli_no_stdin(ctx, path) != CLI_OK)
        return CLI_ERROR;
    if (cli_is_model_path(path))
        return stats_model(ctx, r, path);
    ts_file *f = NULL;
    ts_error err;
    if (ts_file_open(path, &r->open, &f, &err) != TS_OK)
        return cli_error(ctx, path, "%s", err.message);
    int status = CLI_OK;
    for (size_t i = 0; i < ts_file_count(f) && !ctx->out.closed; i++) {
        const ts_array *a = ts_file_array(f, i);
        if (cli_filter_match(&r->filter, a->name))
            status = cli_worse(status, stats_array(ctx, r, path, f, a, a->name));
    }
    ts_file_close(f);
    return status;
}

int cmd_stats(cli_ctx *ctx, const cli_args *args)
{
    if (args->nops == 0)
        return cli_usage(ctx, "missing FILE");
    stats_run r;
    memset(&r, 0, sizeof r);
    if (!cli_open_options(ctx, args, &r.open))
        return CLI_ERROR;
    cli_filter_init(&r.filter, args);
    r.summary = cli_flag(args, "summary") > 0;
    r.many_files = args->nops > 1;
    r.recursive = cli_flag(args, "recursive") > 0;
    for (int i = 0; i < args->nops && !r.many_files; i++)
        r.many_files = cli_is_model_path(args->ops[i]); /* a model: its shards */
    r.tty = isatty(STDOUT_FILENO);
    r.absmax = NAN;
    const char *v = cli_opt(args, "max-bytes");
    if (v && cli_opt_size(ctx, args, "max-bytes", &r.max_bytes) != CLI_OK)
        return CLI_ERROR;
    cli_progress_init(&r.progress, "stats");
    int status = CLI_OK;
    for (int i = 0; i < args->nops && !ctx->out.closed; i++)
        status = cli_worse(status, stats_file(ctx, &r, args->ops[i]));
    if (r.summary)
        print_summary(ctx, &r);
    else
        flush_rows(ctx, &r);
    free(r.bad);
    return status;
}
