/*
 * model.c - models in the CLI (see model.h): opening with issues reported,
 * and the printing of summaries (ts_summary computes them): the model-level
 * summary (totals exact and in human units, totals per dtype and role, the
 * largest tensors, with --group the tensors whose names differ only in
 * layer numbers on one line) and the total of info --summary.
 */
#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int cli_is_model_path(const char *path)
{
    return ts_model_path(path);
}

int cli_no_stdin(cli_ctx *ctx, const char *path)
{
    if (strcmp(path, "-") != 0)
        return CLI_OK;
    return cli_error(ctx, "-", "only info reads standard input; save it to a file and name "
                               "the file (or /dev/stdin when it is redirected from one)");
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
    o->darknet_cfg = cli_opt(args, "darknet-cfg");
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
            cli_notice(ctx, path, "warning: %s%s", is->message,
                       is->kind == TS_MODEL_FOLDERS_SKIPPED && !recursive ? " (-r reads them)"
                                                                          : "");
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
    size_t nc = (size_t)t->ncols;
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        size_t *p = realloc(t->cells, (cap * nc + 1) * sizeof *p);
        if (!p)
            return;
        if (!t->cells)
            p[0] = 0;
        t->cells = p;
        t->cap = cap;
    }
    size_t *cell = t->cells + t->n * nc, width[CLI_TABLE_MAX_COLS];
    for (size_t c = 0; c < nc; c++) {
        const char *s = cols[c] ? cols[c] : "";
        size_t n = strlen(s), need = n * 4 + 16, w;
        if (t->text_cap - t->len < need) {
            size_t cap = t->text_cap ? t->text_cap : 4096;
            while (cap - t->len < need)
                cap *= 2;
            char *p = realloc(t->text, cap);
            if (!p) {
                t->len = cell[0]; /* the row is left out */
                return;
            }
            t->text = p;
            t->text_cap = cap;
        }
        cli_escape(CLI_ESC_TEXT, s, n, t->text + t->len, need, &w);
        t->len += w;
        cell[c + 1] = t->len;
        width[c] = w;
    }
    for (size_t c = 0; c < nc; c++)
        if (width[c] > t->width[c])
            t->width[c] = width[c];
    t->n++;
}

/* k blanks. */
static void out_blanks(cli_ctx *ctx, size_t k)
{
    static const char blanks[] = "                                ";
    while (k > 0) {
        size_t m = k < sizeof blanks - 1 ? k : sizeof blanks - 1;
        out_write(ctx, blanks, m);
        k -= m;
    }
}

void cli_table_flush(cli_ctx *ctx, cli_table *t, const char *indent)
{
    size_t nc = (size_t)t->ncols, il = strlen(indent);
    for (size_t r = 0; r < t->n; r++) {
        const size_t *cell = t->cells + r * nc;
        out_write(ctx, indent, il);
        /* the last non-empty cell ends the line: no trailing blanks */
        size_t last = nc - 1;
        while (last > 0 && cell[last + 1] == cell[last])
            last--;
        for (size_t c = 0; c <= last; c++) {
            size_t w = cell[c + 1] - cell[c];
            if (c)
                out_write(ctx, "  ", 2);
            if (t->right >> c & 1)
                out_blanks(ctx, t->width[c] - w);
            out_write(ctx, t->text + cell[c], w);
            if (!(t->right >> c & 1) && c < last)
                out_blanks(ctx, t->width[c] - w);
        }
        out_char(ctx, '\n');
    }
    free(t->cells);
    free(t->text);
    t->cells = NULL;
    t->text = NULL;
    t->n = t->cap = t->len = t->text_cap = 0;
    memset(t->width, 0, sizeof t->width);
}

/* ---- totals -------------------------------------------------------------------- */

/* The words of the roles' totals, as JSON keys and in text. */
static const char *const role_keys[TS_ROLE_COUNT] = {"parameters", "buffers", "optimizer_state"};

const char *cli_role_key(ts_role r)
{
    return (unsigned)r < TS_ROLE_COUNT ? role_keys[r] : "unknown";
}

/* {"tensors":..,"size":..,"nbytes":..}: a sum that overflowed (or an
 * nbytes with object arrays of unknown size) is null. */
static void json_sum_keys(cli_ctx *ctx, const ts_summary_sum *s)
{
    print_int(ctx, PRINT_JSON, "tensors", NULL, s->tensors);
    if (s->size_overflow)
        print_null(ctx, PRINT_JSON, "size", NULL);
    else
        print_int(ctx, PRINT_JSON, "size", NULL, s->size);
    if (s->nbytes_overflow || s->nbytes_unknown)
        print_null(ctx, PRINT_JSON, "nbytes", NULL);
    else
        print_int(ctx, PRINT_JSON, "nbytes", NULL, s->nbytes);
}

static int sum_overflow(const ts_summary_sum *s)
{
    return s->size_overflow || s->nbytes_overflow;
}

void cli_total_json(cli_ctx *ctx, int64_t files, const ts_summary *s)
{
    const ts_summary_sum *all = ts_summary_total(s), *d;
    int overflow = sum_overflow(all);
    for (size_t i = 0; ts_summary_dtype_at(s, i, &d); i++)
        overflow |= sum_overflow(d);
    print_open_object(ctx, "total");
    print_int(ctx, PRINT_JSON, "files", NULL, files);
    json_sum_keys(ctx, all);
    print_bool(ctx, PRINT_JSON, "overflow", NULL, overflow);
    for (int r = 0; r < TS_ROLE_COUNT; r++) {
        print_open_object(ctx, role_keys[r]);
        json_sum_keys(ctx, ts_summary_role(s, (ts_role)r));
        print_close_object(ctx);
    }
    print_open_object(ctx, "dtypes");
    const char *name;
    for (size_t i = 0; (name = ts_summary_dtype_at(s, i, &d)) != NULL; i++) {
        print_open_object(ctx, name);
        json_sum_keys(ctx, d);
        print_close_object(ctx);
    }
    print_close_object(ctx);
    print_close_object(ctx);
}

/* Text from a file, escaped (CLI_ESC_TEXT), to f. */
static void put_escaped(FILE *f, const char *s)
{
    char buf[512];
    size_t n = strlen(s), w;
    while (n > 0) {
        size_t used = cli_escape(CLI_ESC_TEXT, s, n, buf, sizeof buf, &w);
        fwrite(buf, 1, w, f);
        if (used == 0)
            break;
        s += used;
        n -= used;
    }
}

static void put_number(FILE *f, int64_t v, int overflow)
{
    if (overflow)
        fputs("overflow", f);
    else
        fprintf(f, "%lld", (long long)v);
}

/* "tensors=2 size=224 nbytes=896": the JSON keys, so text and JSON say the
 * same thing in the same words. nbytes is "896+unknown" when object arrays
 * of unknown size are part of the sum, "unknown" when all of it is. */
static void put_sum(FILE *f, const ts_summary_sum *s)
{
    fprintf(f, "tensors=%lld size=", (long long)s->tensors);
    put_number(f, s->size, s->size_overflow);
    fputs(" nbytes=", f);
    if (s->nbytes_unknown && s->nbytes == 0 && !s->nbytes_overflow) {
        fputs("unknown", f);
        return;
    }
    put_number(f, s->nbytes, s->nbytes_overflow);
    if (s->nbytes_unknown)
        fputs("+unknown", f);
}

void cli_total_line(cli_ctx *ctx, int64_t files, const ts_summary *s)
{
    /* made whole, then written at once after the rows */
    char *line = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&line, &len);
    if (!f) {
        cli_error(ctx, NULL, "out of memory");
        return;
    }
    const ts_summary_sum *d;
    const char *name;
    fprintf(f, "total: files=%lld ", (long long)files);
    put_sum(f, ts_summary_total(s));
    for (size_t i = 0; (name = ts_summary_dtype_at(s, i, &d)) != NULL; i++) {
        fputs(i ? "; " : " | ", f);
        put_escaped(f, name);
        fputs(": ", f);
        put_sum(f, d);
    }
    /* the parameters always; buffers and optimizer state when there are some */
    for (int r = 0; r < TS_ROLE_COUNT; r++) {
        const ts_summary_sum *rs = ts_summary_role(s, (ts_role)r);
        if (r > 0 && rs->tensors == 0)
            continue;
        fprintf(f, "%s%s: ", r ? "; " : " | ", role_keys[r]);
        put_sum(f, rs);
    }
    fputc('\n', f);
    if (fclose(f) == 0) {
        out_drain(ctx); /* after the rows, on a terminal */
        fwrite(line, 1, len, stderr);
    }
    free(line);
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

/* "(3,4)" of dims. */
static const char *dims_text(const int64_t *d, int n, char *buf, size_t cap)
{
    ts_shape s = TS_SHAPE_INIT;
    buf[0] = '\0';
    if (ts_shape_assign(&s, d, n, NULL) == TS_OK)
        ts_shape_format(&s, 0, buf, cap);
    ts_shape_free(&s);
    return buf;
}

/* One tensor of a model summary record ("largest", "tensors"). */
static void json_tensor(cli_ctx *ctx, const ts_model *m, const char *name, const char *dtype,
                        const int64_t *dims, int ndim, int64_t size, int64_t nbytes,
                        ts_role role, size_t i)
{
    size_t f = 0;
    ts_model_array(m, i, &f);
    print_open_object(ctx, NULL);
    print_string(ctx, PRINT_JSON, "name", NULL, name);
    print_dims(ctx, PRINT_JSON, "shape", NULL, dims, ndim);
    print_string(ctx, PRINT_JSON, "dtype", NULL, dtype);
    print_int(ctx, PRINT_JSON, "size", NULL, size);
    if (nbytes < 0)
        print_null(ctx, PRINT_JSON, "nbytes", NULL);
    else
        print_int(ctx, PRINT_JSON, "nbytes", NULL, nbytes);
    print_string(ctx, PRINT_JSON, "role", NULL, ts_role_name(role));
    print_string(ctx, PRINT_JSON, "file", NULL, ts_model_file_path(m, f));
    print_close_object(ctx);
}

static void json_summary_tensor(cli_ctx *ctx, const ts_model *m, const ts_summary_tensor *t)
{
    json_tensor(ctx, m, t->name, t->dtype, t->dims, t->ndim, t->size, t->nbytes, t->role, t->tag);
}

/* -1 as JSON null. */
static void json_count(cli_ctx *ctx, const char *key, int64_t v)
{
    if (v < 0)
        print_null(ctx, PRINT_JSON, key, NULL);
    else
        print_int(ctx, PRINT_JSON, key, NULL, v);
}

static void identity_json(cli_ctx *ctx, const ts_identity *id)
{
    print_open_object(ctx, "identity");
    print_string(ctx, PRINT_JSON, "kind", NULL, ts_checkpoint_kind_name(id->kind));
    print_string(ctx, PRINT_JSON, "family", NULL, id->family);
    print_string(ctx, PRINT_JSON, "evidence", NULL, id->family ? id->evidence : NULL);
    json_count(ctx, "layers", id->layers);
    json_count(ctx, "hidden", id->hidden);
    json_count(ctx, "vocab", id->vocab);
    json_count(ctx, "heads", id->heads);
    json_count(ctx, "kv_heads", id->kv_heads);
    print_close_object(ctx);
}

static void memory_json(cli_ctx *ctx, const ts_memory *mm)
{
    print_open_object(ctx, "memory");
    print_int(ctx, PRINT_JSON, "weights", NULL, mm->weights);
    json_count(ctx, "kv_cache", mm->kv_cache);
    print_int(ctx, PRINT_JSON, "total", NULL, mm->total);
    print_string(ctx, PRINT_JSON, "source", NULL, mm->source);
    json_count(ctx, "layers", mm->layers);
    json_count(ctx, "kv_heads", mm->kv_heads);
    json_count(ctx, "head_dim_k", mm->head_dim_k);
    json_count(ctx, "head_dim_v", mm->head_dim_v);
    json_count(ctx, "context", mm->context);
    json_count(ctx, "sliding_window", mm->sliding_window);
    print_int(ctx, PRINT_JSON, "sliding_layers", NULL, mm->sliding_layers);
    print_int(ctx, PRINT_JSON, "batch", NULL, mm->batch);
    print_string(ctx, PRINT_JSON, "kv_dtype", NULL,
                 mm->kv_type ? mm->kv_type : ts_dtype_name(mm->kv_dtype));
    print_close_object(ctx);
}

static void summary_json(cli_ctx *ctx, const cli_summary_opts *o, const char *path,
                         const ts_model *m, ts_summary *s, const unsigned char *keep,
                         const ts_identity *id, const ts_memory *mm)
{
    print_open_object(ctx, NULL);
    print_string(ctx, PRINT_JSON, "model", NULL, path);
    print_string(ctx, PRINT_JSON, "index", NULL, ts_model_index(m));
    cli_total_json(ctx, (int64_t)ts_model_file_count(m), s);
    identity_json(ctx, id);
    if (mm)
        memory_json(ctx, mm);
    else
        print_null(ctx, PRINT_JSON, "memory", NULL);
    print_open_array(ctx, "largest");
    for (size_t k = 0; k < ts_summary_largest_count(s); k++)
        json_summary_tensor(ctx, m, ts_summary_largest(s, k));
    print_close_array(ctx);
    if (o->group) {
        print_open_array(ctx, "groups");
        const ts_summary_group *g;
        for (size_t i = 0; (g = ts_summary_group_at(s, i)) != NULL; i++) {
            print_open_object(ctx, NULL);
            print_string(ctx, PRINT_JSON, "name", NULL, g->name);
            print_dims(ctx, PRINT_JSON, "shape", NULL, g->first.dims, g->first.ndim);
            print_string(ctx, PRINT_JSON, "dtype", NULL, g->first.dtype);
            print_int(ctx, PRINT_JSON, "count", NULL, g->count);
            print_string(ctx, PRINT_JSON, "layers", NULL, g->layers[0] ? g->layers : NULL);
            print_string(ctx, PRINT_JSON, "role", NULL, ts_role_name(g->first.role));
            print_close_object(ctx);
        }
        print_close_array(ctx);
    } else {
        print_null(ctx, PRINT_JSON, "groups", NULL); /* the same keys always */
    }
    if (o->tensors) {
        print_open_array(ctx, "tensors");
        for (size_t i = 0; i < ts_model_count(m); i++) {
            if (!keep[i])
                continue;
            const ts_array *a = ts_model_array(m, i, NULL);
            const char *name = ts_model_array_name(m, i);
            json_tensor(ctx, m, name, ts_summary_dtype(a), ts_shape_dims(&a->shape),
                        ts_shape_ndim(&a->shape), a->size, a->nbytes,
                        ts_tensor_role(name, a->dequantized_dtype != TS_DTYPE_UNKNOWN
                                                     ? a->dequantized_dtype : a->dtype), i);
        }
        print_close_array(ctx);
    } else {
        print_null(ctx, PRINT_JSON, "tensors", NULL); /* the same keys always */
    }
    print_int(ctx, PRINT_JSON, "errors", NULL, (int64_t)ts_model_error_count(m));
    print_close_object(ctx);
}

/* "tensors size bytes" rows of one sum. */
static void sum_row(table *t, const char *label, const ts_summary_sum *s)
{
    char num[32], num2[32], h[32];
    snprintf(num, sizeof num, "%lld", (long long)s->tensors);
    snprintf(num2, sizeof num2, "%lld", (long long)s->size);
    const char *row[5] = {label, num, s->size_overflow ? "overflow" : num2,
                          s->nbytes_overflow ? "overflow" : cli_human_bytes(s->nbytes, h, sizeof h),
                          s->nbytes_unknown ? "+ unknown" : ""};
    table_add(t, row);
}

/* "kind: model, llama-style decoder (layers.N.self_attn.q_proj., ...): 2
 * layers, hidden 64, vocab 32" */
static void identity_text(cli_ctx *ctx, const ts_identity *id)
{
    out_printf(ctx, "kind: %s", ts_checkpoint_kind_name(id->kind));
    if (id->family) {
        out_str(ctx, ", ");
        out_str(ctx, id->family);
        out_str(ctx, " (");
        out_escaped(ctx, CLI_ESC_TEXT, id->evidence, strlen(id->evidence));
        out_str(ctx, ")");
    }
    const char *sep = ": ";
    if (id->layers >= 0)
        out_printf(ctx, "%s%lld layers", sep, (long long)id->layers), sep = ", ";
    if (id->hidden >= 0)
        out_printf(ctx, "%shidden %lld", sep, (long long)id->hidden), sep = ", ";
    if (id->vocab >= 0)
        out_printf(ctx, "%svocab %lld", sep, (long long)id->vocab), sep = ", ";
    if (id->heads >= 0)
        out_printf(ctx, "%s%lld heads", sep, (long long)id->heads), sep = ", ";
    if (id->kv_heads >= 0)
        out_printf(ctx, "%s%lld KV heads", sep, (long long)id->kv_heads);
    out_char(ctx, '\n');
}

/* "memory: weights 155 KiB + KV cache 64 KiB (...) = 219 KiB" */
static void memory_text(cli_ctx *ctx, const ts_memory *mm)
{
    char w[32], k[32], t[32];
    out_printf(ctx, "memory: weights %s (%lld bytes)", cli_human_bytes(mm->weights, w, sizeof w),
               (long long)mm->weights);
    if (mm->kv_cache < 0) {
        out_str(ctx, "; KV cache unknown (no config.json or GGUF attention keys)\n");
        return;
    }
    out_printf(ctx, " + KV cache %s (%lld layers", cli_human_bytes(mm->kv_cache, k, sizeof k),
               (long long)mm->layers);
    if (mm->sliding_layers > 0)
        out_printf(ctx, ", %lld of them with a sliding window of %lld",
                   (long long)mm->sliding_layers, (long long)mm->sliding_window);
    out_printf(ctx, " x %lld tokens x %lld KV heads x (%lld + %lld) x %s, batch %lld; %s)",
               (long long)mm->context, (long long)mm->kv_heads, (long long)mm->head_dim_k,
               (long long)mm->head_dim_v,
               mm->kv_type ? mm->kv_type : ts_dtype_name(mm->kv_dtype), (long long)mm->batch,
               mm->source);
    out_printf(ctx, " = %s (%lld bytes)\n", cli_human_bytes(mm->total, t, sizeof t),
               (long long)mm->total);
}

static void summary_text(cli_ctx *ctx, const cli_summary_opts *o, const char *path,
                         const ts_model *m, ts_summary *s, const unsigned char *keep,
                         const ts_identity *id, const ts_memory *mm)
{
    char shape[512], h1[32], h2[32];
    /* the tensors, or their groups */
    table t = {.ncols = o->group ? 5 : 4, .right = o->group ? 1u << 3 : 0};
    if (o->group) {
        const ts_summary_group *g;
        for (size_t i = 0; (g = ts_summary_group_at(s, i)) != NULL; i++) {
            char count[32];
            snprintf(count, sizeof count, "\xc3\x97%lld", (long long)g->count);
            size_t lcap = strlen(g->layers) + 8;
            char *layers = malloc(lcap);
            if (layers)
                snprintf(layers, lcap, "%s%s", g->layers[0] ? "layers " : "", g->layers);
            const char *row[5] = {g->name, dims_text(g->first.dims, g->first.ndim, shape,
                                                     sizeof shape),
                                  g->first.dtype, g->count > 1 ? count : "",
                                  g->count > 1 && layers ? layers : ""};
            table_add(&t, row);
            free(layers);
        }
    } else {
        for (size_t i = 0; i < ts_model_count(m); i++) {
            if (!keep[i])
                continue;
            size_t f;
            const ts_array *a = ts_model_array(m, i, &f);
            cli_array_shape_text(a, shape, sizeof shape);
            const char *row[4] = {ts_model_array_name(m, i), shape, ts_summary_dtype(a),
                                  member_name(ts_model_file_path(m, f), path)};
            table_add(&t, row);
        }
    }
    table_flush(ctx, &t, "");

    /* the totals per dtype, then per role when not all are parameters */
    out_str(ctx, "\n");
    table dt = {.ncols = 5, .right = 0x1e};
    const char *head[5] = {"dtype", "tensors", "size", "bytes", ""};
    table_add(&dt, head);
    const ts_summary_sum *d;
    const char *name;
    for (size_t i = 0; (name = ts_summary_dtype_at(s, i, &d)) != NULL; i++)
        sum_row(&dt, name, d);
    table_flush(ctx, &dt, "");
    const ts_summary_sum *params = ts_summary_role(s, TS_ROLE_PARAMETER),
                         *all = ts_summary_total(s);
    if (params->tensors != all->tensors) {
        out_str(ctx, "\n");
        table rt = {.ncols = 5, .right = 0x1e};
        const char *rhead[5] = {"role", "tensors", "size", "bytes", ""};
        table_add(&rt, rhead);
        for (int r = 0; r < TS_ROLE_COUNT; r++)
            sum_row(&rt, role_keys[r], ts_summary_role(s, (ts_role)r));
        table_flush(ctx, &rt, "");
    }

    if (ts_summary_largest_count(s) > 0) {
        out_str(ctx, "\nlargest\n");
        table lt = {.ncols = 4, .right = 1u << 3};
        for (size_t k = 0; k < ts_summary_largest_count(s); k++) {
            const ts_summary_tensor *x = ts_summary_largest(s, k);
            const char *row[4] = {x->name, dims_text(x->dims, x->ndim, shape, sizeof shape),
                                  x->dtype,
                                  x->nbytes < 0 ? "unknown"
                                                : cli_human_bytes(x->nbytes, h2, sizeof h2)};
            table_add(&lt, row);
        }
        table_flush(ctx, &lt, "  ");
    }

    /* what it is, then the total line last (`| tail -1` gives it) */
    out_str(ctx, "\n");
    identity_text(ctx, id);
    if (mm)
        memory_text(ctx, mm);
    out_escaped(ctx, CLI_ESC_TEXT, path, strlen(path));
    size_t nf = ts_model_file_count(m);
    out_printf(ctx, ": %lld tensor%s in %zu file%s", (long long)all->tensors,
               all->tensors == 1 ? "" : "s", nf, nf == 1 ? "" : "s");
    if (params->size_overflow)
        out_str(ctx, ", parameters overflow int64");
    else
        out_printf(ctx, ", %lld parameters (%s)", (long long)params->size,
                   cli_human_count(params->size, h1, sizeof h1));
    if (all->nbytes_overflow)
        out_str(ctx, ", bytes overflow int64\n");
    else
        out_printf(ctx, ", %lld bytes (%s)%s\n", (long long)all->nbytes,
                   cli_human_bytes(all->nbytes, h2, sizeof h2),
                   all->nbytes_unknown ? " + object arrays of unknown size" : "");
}

static int summary_one(cli_ctx *ctx, const cli_summary_opts *o, const char *path)
{
    ts_model *m = cli_model_open(ctx, path, o->open, o->recursive);
    if (!m)
        return CLI_ERROR;
    size_t n = ts_model_count(m);
    unsigned char *keep = calloc(n ? n : 1, 1);
    ts_summary_options so = TS_SUMMARY_OPTIONS_INIT;
    so.top = o->top;
    so.group = o->group;
    ts_summary *s = NULL;
    ts_error err;
    int status = CLI_OK;
    if (!keep || ts_summary_new(&so, &s, &err) != TS_OK) {
        status = cli_error(ctx, path, "%s", keep ? err.message : "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        const char *name = ts_model_array_name(m, i);
        if (!cli_filter_match(o->filter, name))
            continue;
        keep[i] = 1;
        if (ts_summary_add(s, name, ts_model_array(m, i, NULL), i, &err) != TS_OK) {
            status = cli_error(ctx, path, "%s", err.message);
            goto done;
        }
    }
    ts_identity id;
    ts_memory mm;
    if (ts_model_identify(m, &id, &err) != TS_OK ||
        (o->memory && ts_model_memory(m, &o->mem, &mm, &err) != TS_OK)) {
        status = cli_error(ctx, path, "%s", err.message);
        goto done;
    }
    if (ctx->json)
        summary_json(ctx, o, path, m, s, keep, &id, o->memory ? &mm : NULL);
    else
        summary_text(ctx, o, path, m, s, keep, &id, o->memory ? &mm : NULL);
    status = ts_model_error_count(m) ? CLI_ERROR : CLI_OK;
done:
    ts_summary_free(s);
    free(keep);
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
