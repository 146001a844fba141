/*
 * model.c - models in the CLI (see model.h): opening with issues reported,
 * and the model-level summary: totals exact and in human units, totals per
 * dtype, the largest tensors, and with --group the tensors whose names
 * differ only in layer numbers collapsed into one line.
 */
#include "model.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int cli_is_model_path(const char *path)
{
    return ts_model_path(path);
}

/* --verbose: each request of a remote file, on standard error. */
static void log_request(void *user, const char *line)
{
    (void)user;
    fprintf(stderr, "tshape: %s\n", line);
}

const ts_open_options *cli_open_options(cli_ctx *ctx, const cli_args *args,
                                        ts_open_options *o)
{
    ts_open_options init = TS_OPEN_OPTIONS_INIT;
    *o = init;
    const char *io = getenv("TSHAPE_IO");
    if (io && strcmp(io, "pread") == 0)
        o->io = TS_IO_PREAD;
    else if (io && strcmp(io, "map") == 0)
        o->io = TS_IO_MAP;
    if (cli_flag(args, "verbose") > 0)
        o->log = log_request;
    int64_t bytes;
    if (cli_opt(args, "max-fetch")) {
        if (cli_opt_size(ctx, args, "max-fetch", &bytes) != CLI_OK)
            return NULL;
        o->max_fetch = (uint64_t)bytes;
    }
    return o;
}

ts_model *cli_model_open(cli_ctx *ctx, const char *path, const ts_open_options *open,
                         int recursive)
{
    ts_model_options o = TS_MODEL_OPTIONS_INIT;
    ts_model *m = NULL;
    ts_error err;
    o.open = open;
    o.recursive = recursive;
    if (ts_model_open(path, &o, &m, &err) != TS_OK) {
        cli_error(ctx, path, "%s", err.message);
        return NULL;
    }
    for (size_t i = 0; i < ts_model_issue_count(m); i++) {
        const ts_model_issue *is = ts_model_issue_at(m, i);
        if (is->is_error)
            cli_error(ctx, path, "%s", is->message);
        else
            cli_notice(ctx, path, "warning: %s", is->message);
    }
    return m;
}

/* ---- human units ---------------------------------------------------------- */

/* v / unit with three significant digits. */
static void three_digits(char *buf, size_t cap, double x, const char *unit)
{
    if (x < 9.995)
        snprintf(buf, cap, "%.2f%s", x, unit);
    else if (x < 99.95)
        snprintf(buf, cap, "%.1f%s", x, unit);
    else
        snprintf(buf, cap, "%.0f%s", x, unit);
}

const char *cli_human_count(int64_t v, char *buf, size_t cap)
{
    static const char *const units[] = {"K", "M", "B", "T", "P", "E"};
    double x = (double)v;
    if (v < 1000) {
        snprintf(buf, cap, "%lld", (long long)v);
        return buf;
    }
    int u = -1;
    while (x >= 999.5 && u < 5) {
        x /= 1000;
        u++;
    }
    three_digits(buf, cap, x, units[u]);
    return buf;
}

const char *cli_human_bytes(int64_t v, char *buf, size_t cap)
{
    static const char *const units[] = {" KiB", " MiB", " GiB", " TiB", " PiB", " EiB"};
    double x = (double)v;
    if (v < 1024) {
        snprintf(buf, cap, "%lld B", (long long)v);
        return buf;
    }
    int u = -1;
    while (x >= 1023.5 && u < 5) {
        x /= 1024;
        u++;
    }
    three_digits(buf, cap, x, units[u]);
    return buf;
}

/* ---- aligned tables ------------------------------------------------------- */


typedef cli_table table;
#define table_add cli_table_add
#define table_flush cli_table_flush

void cli_table_add(cli_table *t, const char *const *cols)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        char **p = realloc(t->cells, cap * (size_t)t->ncols * sizeof *p);
        if (!p)
            return;
        t->cells = p;
        t->cap = cap;
    }
    for (int c = 0; c < t->ncols; c++) {
        const char *s = cols[c] ? cols[c] : "";
        size_t n = strlen(s), cap = n * 4 + 16, w;
        char *e = malloc(cap);
        if (e)
            cli_escape(CLI_ESC_TEXT, s, n, e, cap, &w);
        t->cells[t->n * (size_t)t->ncols + (size_t)c] = e;
    }
    t->n++;
}

void cli_table_flush(cli_ctx *ctx, cli_table *t, const char *indent)
{
    size_t width[CLI_TABLE_MAX_COLS] = {0};
    for (size_t i = 0; i < t->n * (size_t)t->ncols; i++) {
        size_t w = t->cells[i] ? strlen(t->cells[i]) : 0;
        int c = (int)(i % (size_t)t->ncols);
        if (w > width[c])
            width[c] = w;
    }
    for (size_t r = 0; r < t->n; r++) {
        out_str(ctx, indent);
        /* the last non-empty cell ends the line: no trailing blanks */
        int last = t->ncols - 1;
        while (last > 0 && (!t->cells[r * (size_t)t->ncols + (size_t)last] ||
                            !t->cells[r * (size_t)t->ncols + (size_t)last][0]))
            last--;
        for (int c = 0; c <= last; c++) {
            const char *s = t->cells[r * (size_t)t->ncols + (size_t)c];
            size_t w = s ? strlen(s) : 0;
            if (c)
                out_str(ctx, "  ");
            if (t->right >> c & 1)
                for (size_t k = w; k < width[c]; k++)
                    out_char(ctx, ' ');
            out_str(ctx, s ? s : "");
            if (!(t->right >> c & 1) && c < last)
                for (size_t k = w; k < width[c]; k++)
                    out_char(ctx, ' ');
        }
        out_char(ctx, '\n');
    }
    for (size_t i = 0; i < t->n * (size_t)t->ncols; i++)
        free(t->cells[i]);
    free(t->cells);
    t->cells = NULL;
    t->n = t->cap = 0;
}

/* ---- totals ------------------------------------------------------------------ */

/* A sum that stops at overflow (reported as null / "overflow"). */
typedef struct sum {
    int64_t tensors, size, nbytes;
    int overflow, unknown;  /* unknown: an object array's bytes */
} sum;

static void sum_add(sum *s, const ts_array *a)
{
    s->tensors++;
    if (__builtin_add_overflow(s->size, a->size, &s->size))
        s->overflow = 1;
    if (a->nbytes < 0)
        s->unknown = 1;
    else if (__builtin_add_overflow(s->nbytes, a->nbytes, &s->nbytes))
        s->overflow = 1;
}

typedef struct dtype_sum {
    const char *name;
    sum s;
} dtype_sum;

/* ---- groups of layers ------------------------------------------------------- */

/* The name with every dot-separated part that is all digits replaced by
 * '#', into buf; *layer receives the first such number (-1 when none). */
static const char *pattern_of(const char *name, char *buf, size_t cap, int64_t *layer)
{
    size_t o = 0;
    *layer = -1;
    for (const char *p = name; *p && o + 2 < cap;) {
        const char *q = p;
        while (*q >= '0' && *q <= '9')
            q++;
        int part = q > p && (p == name || p[-1] == '.') && (*q == '.' || *q == '\0') &&
                   q - p <= 9;
        if (part) {
            if (*layer < 0)
                *layer = strtoll(p, NULL, 10);
            buf[o++] = '#';
            p = q;
        } else {
            buf[o++] = *p++;
        }
    }
    buf[o] = '\0';
    return buf;
}

typedef struct group {
    char *pattern;
    const ts_array *first;
    size_t first_index;     /* model tensor index of the first member */
    int64_t count, lo, hi;
    int64_t *layers;        /* the layer numbers, in order met */
    size_t nlayers, cap;
    int mixed;              /* members differ in dtype or shape */
} group;

typedef struct groups {
    group *v;
    size_t n, cap;
    size_t *slots, nslots;  /* hash of pattern+dtype+shape -> group + 1 */
} groups;

static uint64_t hash_key(const char *pattern, const ts_array *a)
{
    uint64_t h = 1469598103934665603ull;
    for (const char *p = pattern; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    for (const char *p = a->dtype_name; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    const int64_t *d = ts_shape_dims(&a->shape);
    for (int i = 0; i < ts_shape_ndim(&a->shape); i++)
        h = (h ^ (uint64_t)d[i]) * 1099511628211ull;
    return h ^ (uint64_t)ts_shape_ndim(&a->shape);
}

static int same_key(const group *g, const char *pattern, const ts_array *a)
{
    return strcmp(g->pattern, pattern) == 0 && strcmp(g->first->dtype_name, a->dtype_name) == 0 &&
           ts_shape_equal(&g->first->shape, &a->shape);
}

static int groups_grow(groups *gs)
{
    size_t n = gs->nslots ? gs->nslots * 2 : 1024;
    size_t *s = calloc(n, sizeof *s);
    if (!s)
        return -1;
    for (size_t i = 0; i < gs->n; i++) {
        size_t k = (size_t)hash_key(gs->v[i].pattern, gs->v[i].first) & (n - 1);
        while (s[k])
            k = (k + 1) & (n - 1);
        s[k] = i + 1;
    }
    free(gs->slots);
    gs->slots = s;
    gs->nslots = n;
    return 0;
}

static void groups_add(groups *gs, const ts_array *a, const char *name, size_t index)
{
    char pat[1024];
    int64_t layer;
    pattern_of(name, pat, sizeof pat, &layer);
    if (2 * (gs->n + 1) > gs->nslots && groups_grow(gs) != 0)
        return;
    size_t k = (size_t)hash_key(pat, a) & (gs->nslots - 1);
    while (gs->slots[k] && !same_key(&gs->v[gs->slots[k] - 1], pat, a))
        k = (k + 1) & (gs->nslots - 1);
    group *g;
    if (gs->slots[k]) {
        g = &gs->v[gs->slots[k] - 1];
    } else {
        if (gs->n == gs->cap) {
            size_t cap = gs->cap ? gs->cap * 2 : 64;
            group *p = realloc(gs->v, cap * sizeof *p);
            if (!p)
                return;
            gs->v = p;
            gs->cap = cap;
        }
        g = &gs->v[gs->n];
        memset(g, 0, sizeof *g);
        size_t n = strlen(pat) + 1;
        if (!(g->pattern = malloc(n)))
            return;
        memcpy(g->pattern, pat, n);
        g->first = a;
        g->first_index = index;
        g->lo = g->hi = layer;
        gs->slots[k] = ++gs->n;
    }
    g->count++;
    if (layer >= 0) {
        if (layer < g->lo || g->lo < 0)
            g->lo = layer;
        if (layer > g->hi)
            g->hi = layer;
        if (g->nlayers == g->cap) {
            size_t cap = g->cap ? g->cap * 2 : 8;
            int64_t *p = realloc(g->layers, cap * sizeof *p);
            if (!p)
                return;
            g->layers = p;
            g->cap = cap;
        }
        g->layers[g->nlayers++] = layer;
    }
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* "0-31", or "0-3,5,7-9" when there are gaps; "" without layers. */
static void layer_ranges(group *g, char *buf, size_t cap)
{
    size_t o = 0;
    buf[0] = '\0';
    if (g->nlayers > 1)
        qsort(g->layers, g->nlayers, sizeof *g->layers, cmp_i64);
    for (size_t i = 0; i < g->nlayers && o + 48 < cap;) {
        size_t j = i;
        while (j + 1 < g->nlayers && g->layers[j + 1] <= g->layers[j] + 1)
            j++;
        if (g->layers[j] > g->layers[i])
            o += (size_t)snprintf(buf + o, cap - o, "%s%lld-%lld", o ? "," : "",
                                  (long long)g->layers[i], (long long)g->layers[j]);
        else
            o += (size_t)snprintf(buf + o, cap - o, "%s%lld", o ? "," : "",
                                  (long long)g->layers[i]);
        i = j + 1;
    }
}

static void groups_free(groups *gs)
{
    for (size_t i = 0; i < gs->n; i++) {
        free(gs->v[i].pattern);
        free(gs->v[i].layers);
    }
    free(gs->v);
    free(gs->slots);
}

/* ---- the summary of one model ------------------------------------------------ */

/* The member's path from the model's folder, for the file column. */
static const char *member_name(const char *path, const char *root)
{
    size_t n = strlen(root);
    if (strncmp(path, root, n) == 0 && path[n] == '/')
        return path + n + 1;
    if (strncmp(path, root, n) == 0 && n > 0 && root[n - 1] == '/')
        return path + n;
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static void shape_text(const ts_array *a, char *buf, size_t cap)
{
    ts_shape_format(&a->shape, 0, buf, cap);
}

static void json_sum(cli_ctx *ctx, const sum *s)
{
    char h[32];
    print_int(ctx, PRINT_JSON, "tensors", NULL, s->tensors);
    if (s->overflow) {
        print_null(ctx, PRINT_JSON, "parameters", NULL);
        print_null(ctx, PRINT_JSON, "nbytes", NULL);
        return;
    }
    print_int(ctx, PRINT_JSON, "parameters", NULL, s->size);
    print_string(ctx, PRINT_JSON, "parameters_human", NULL, cli_human_count(s->size, h, sizeof h));
    print_int(ctx, PRINT_JSON, "nbytes", NULL, s->nbytes);
    print_string(ctx, PRINT_JSON, "nbytes_human", NULL, cli_human_bytes(s->nbytes, h, sizeof h));
    if (s->unknown)
        print_bool(ctx, PRINT_JSON, "nbytes_partial", NULL, 1);
}

/* Indices of the `top` largest tensors by bytes, largest first (ties:
 * model order). */
static size_t largest(const ts_model *m, const unsigned char *keep, int64_t top, size_t *out)
{
    size_t n = 0, cap = top > 0 ? (size_t)top : 0;
    for (size_t i = 0; i < ts_model_count(m); i++) {
        if (!keep[i])
            continue;
        int64_t b = ts_model_array(m, i, NULL)->nbytes;
        size_t k;
        if (n < cap)
            k = n++;
        else if (cap > 0 && b > ts_model_array(m, out[cap - 1], NULL)->nbytes)
            k = cap - 1;
        else
            continue;
        while (k > 0 && ts_model_array(m, out[k - 1], NULL)->nbytes < b) {
            out[k] = out[k - 1];
            k--;
        }
        out[k] = i;
    }
    return n;
}

/* One tensor of a model summary record ("largest", "tensors"). */
static void json_tensor(cli_ctx *ctx, const ts_model *m, size_t i)
{
    size_t f;
    const ts_array *a = ts_model_array(m, i, &f);
    print_open_object(ctx, NULL);
    print_string(ctx, PRINT_JSON, "name", NULL, ts_model_array_name(m, i));
    print_dims(ctx, PRINT_JSON, "shape", NULL, ts_shape_dims(&a->shape),
               ts_shape_ndim(&a->shape));
    print_string(ctx, PRINT_JSON, "dtype", NULL, a->dtype_name);
    print_int(ctx, PRINT_JSON, "parameters", NULL, a->size);
    print_int(ctx, PRINT_JSON, "nbytes", NULL, a->nbytes);
    print_string(ctx, PRINT_JSON, "file", NULL, ts_model_file_path(m, f));
    print_close_object(ctx);
}

static int summary_one(cli_ctx *ctx, const cli_summary_opts *o, const char *path)
{
    ts_model *m = cli_model_open(ctx, path, o->open, o->recursive);
    if (!m)
        return CLI_ERROR;
    size_t n = ts_model_count(m);
    unsigned char *keep = calloc(n ? n : 1, 1);
    size_t *top = malloc((size_t)(o->top > 0 ? o->top : 1) * sizeof *top);
    dtype_sum *dts = NULL;
    size_t ndt = 0;
    sum all;
    groups gs;
    memset(&all, 0, sizeof all);
    memset(&gs, 0, sizeof gs);
    if (!keep || !top) {
        free(keep);
        free(top);
        ts_model_close(m);
        return cli_error(ctx, path, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        const ts_array *a = ts_model_array(m, i, NULL);
        const char *name = ts_model_array_name(m, i);
        if (!cli_filter_match(o->filter, name))
            continue;
        keep[i] = 1;
        sum_add(&all, a);
        size_t d = 0;
        while (d < ndt && strcmp(dts[d].name, a->dtype_name) != 0)
            d++;
        if (d == ndt) {
            dtype_sum *p = realloc(dts, (ndt + 1) * sizeof *p);
            if (!p)
                continue;
            dts = p;
            memset(&dts[ndt], 0, sizeof *dts);
            dts[ndt++].name = a->dtype_name;
        }
        sum_add(&dts[d].s, a);
        if (o->group)
            groups_add(&gs, a, name, i);
    }
    size_t ntop = largest(m, keep, o->top, top);
    char h1[32], h2[32], shape[512], num[32], num2[32], layers[256];

    if (ctx->json) {
        print_open_object(ctx, NULL);
        print_string(ctx, PRINT_JSON, "model", NULL, path);
        print_string(ctx, PRINT_JSON, "index", NULL, ts_model_index(m));
        print_int(ctx, PRINT_JSON, "files", NULL, (int64_t)ts_model_file_count(m));
        print_open_object(ctx, "total");
        json_sum(ctx, &all);
        print_close_object(ctx);
        print_open_array(ctx, "dtypes");
        for (size_t d = 0; d < ndt; d++) {
            print_open_object(ctx, NULL);
            print_string(ctx, PRINT_JSON, "dtype", NULL, dts[d].name);
            json_sum(ctx, &dts[d].s);
            print_close_object(ctx);
        }
        print_close_array(ctx);
        print_open_array(ctx, "largest");
        for (size_t k = 0; k < ntop; k++)
            json_tensor(ctx, m, top[k]);
        print_close_array(ctx);
        if (o->group) {
            print_open_array(ctx, "groups");
            for (size_t g = 0; g < gs.n; g++) {
                group *G = &gs.v[g];
                print_open_object(ctx, NULL);
                print_string(ctx, PRINT_JSON, "name", NULL,
                             G->count > 1 ? G->pattern
                                          : ts_model_array_name(m, G->first_index));
                print_dims(ctx, PRINT_JSON, "shape", NULL, ts_shape_dims(&G->first->shape),
                           ts_shape_ndim(&G->first->shape));
                print_string(ctx, PRINT_JSON, "dtype", NULL, G->first->dtype_name);
                print_int(ctx, PRINT_JSON, "count", NULL, G->count);
                layer_ranges(G, layers, sizeof layers);
                print_string(ctx, PRINT_JSON, "layers", NULL,
                             G->count > 1 && layers[0] ? layers : NULL);
                print_close_object(ctx);
            }
            print_close_array(ctx);
        } else {
            print_null(ctx, PRINT_JSON, "groups", NULL); /* the same keys always */
        }
        if (o->tensors) {
            print_open_array(ctx, "tensors");
            for (size_t i = 0; i < n; i++)
                if (keep[i])
                    json_tensor(ctx, m, i);
            print_close_array(ctx);
        } else {
            print_null(ctx, PRINT_JSON, "tensors", NULL); /* the same keys always */
        }
        print_int(ctx, PRINT_JSON, "errors", NULL, (int64_t)ts_model_error_count(m));
        print_close_object(ctx);
    } else {
        /* the tensors, or their groups */
        table t = {NULL, 0, 0, o->group ? 5 : 4, o->group ? 1u << 3 : 0};
        if (o->group) {
            for (size_t g = 0; g < gs.n; g++) {
                group *G = &gs.v[g];
                shape_text(G->first, shape, sizeof shape);
                layer_ranges(G, layers, sizeof layers);
                char count[32], lr[300];
                snprintf(count, sizeof count, "\xc3\x97%lld", (long long)G->count);
                snprintf(lr, sizeof lr, "%s%s", layers[0] ? "layers " : "", layers);
                const char *row[5] = {G->count > 1 ? G->pattern
                                                   : ts_model_array_name(m, G->first_index),
                                      shape, G->first->dtype_name, G->count > 1 ? count : "",
                                      G->count > 1 ? lr : ""};
                table_add(&t, row);
            }
        } else {
            for (size_t i = 0; i < n; i++) {
                if (!keep[i])
                    continue;
                size_t f;
                const ts_array *a = ts_model_array(m, i, &f);
                shape_text(a, shape, sizeof shape);
                const char *row[4] = {ts_model_array_name(m, i), shape, a->dtype_name,
                                      member_name(ts_model_file_path(m, f), path)};
                table_add(&t, row);
            }
        }
        table_flush(ctx, &t, "");

        out_str(ctx, "\n");
        table dt = {NULL, 0, 0, 5, 0x1e};
        const char *head[5] = {"dtype", "tensors", "parameters", "bytes", ""};
        table_add(&dt, head);
        for (size_t d = 0; d < ndt; d++) {
            const sum *s = &dts[d].s;
            snprintf(num, sizeof num, "%lld", (long long)s->tensors);
            snprintf(num2, sizeof num2, "%lld", (long long)s->size);
            const char *row[5] = {dts[d].name, num, s->overflow ? "overflow" : num2,
                                  s->overflow ? "overflow" : cli_human_bytes(s->nbytes, h2, sizeof h2),
                                  s->unknown ? "+ unknown" : ""};
            table_add(&dt, row);
        }
        table_flush(ctx, &dt, "");

        if (ntop > 0) {
            out_str(ctx, "\nlargest\n");
            table lt = {NULL, 0, 0, 4, 1u << 3};
            for (size_t k = 0; k < ntop; k++) {
                const ts_array *a = ts_model_array(m, top[k], NULL);
                shape_text(a, shape, sizeof shape);
                const char *row[4] = {ts_model_array_name(m, top[k]), shape, a->dtype_name,
                                      a->nbytes < 0 ? "unknown"
                                                    : cli_human_bytes(a->nbytes, h2, sizeof h2)};
                table_add(&lt, row);
            }
            table_flush(ctx, &lt, "  ");
        }

        out_str(ctx, "\n");
        out_escaped(ctx, CLI_ESC_TEXT, path, strlen(path));
        size_t nf = ts_model_file_count(m);
        out_printf(ctx, ": %lld tensor%s in %zu file%s", (long long)all.tensors,
                   all.tensors == 1 ? "" : "s", nf, nf == 1 ? "" : "s");
        if (all.overflow) {
            out_str(ctx, ", parameters overflow int64\n");
        } else {
            out_printf(ctx, ", %lld parameters (%s), %lld bytes (%s)%s\n", (long long)all.size,
                       cli_human_count(all.size, h1, sizeof h1), (long long)all.nbytes,
                       cli_human_bytes(all.nbytes, h2, sizeof h2),
                       all.unknown ? " + object arrays of unknown size" : "");
        }
    }
    groups_free(&gs);
    free(dts);
    free(keep);
    free(top);
    int status = ts_model_error_count(m) ? CLI_ERROR : CLI_OK;
    ts_model_close(m);
    return status;
}

int cli_model_summary(cli_ctx *ctx, const cli_summary_opts *o, char *const *paths, int n)
{
    int status = CLI_OK;
    for (int i = 0; i < n && !ctx->out.closed; i++) {
        if (i > 0 && !ctx->json)
            out_str(ctx, "\n");
        status = cli_worse(status, summary_one(ctx, o, paths[i]));
    }
    return status;
}
