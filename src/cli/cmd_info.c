/*
 * cmd_info.c - tshape info: one report per array in each file, or with
 * --summary one line per array and totals.
 *
 * Reports are records of output.c: each field is printed once, as a JSON
 * key or a "  label  text" line, so the two forms cannot drift apart.
 */
#include "cli.h"
#include "model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const cli_option info_options[] = {
    CLI_ABOUT("FILE '-' reads standard input. Only headers are read, never the data.\n"
              "With --json, one JSON object per array (JSON Lines); a file without\n"
              "arrays gives one record saying so (man page: JSON RECORDS).\n"
              "PyTorch pickles are never run: a global outside tshape's allowlist (tensor\n"
              "rebuild functions, storage types, dtypes, OrderedDict ...) refuses the file."),
    CLI_CHOICE("format", 'f', "FMT",
               "force the format (default: detect from the magic bytes, or for onnx, "
               "caffe and caffe2 from the extension and protobuf structure):", "@formats"),
    CLI_FILTER_OPTIONS,
    CLI_FLAG("summary", 's', "one line per array (file, name, dtype, shape); the totals on\n"
                             "standard error (JSON: a last record); a folder: the model summary"),
    CLI_FLAG("metadata", 'm', "show safetensors __metadata__, GGUF key/values, ONNX and TFLite "
                              "graph inputs/outputs, opsets and counts, and the values of a "
                              "PyTorch checkpoint that are not tensors"),
    CLI_FLAG("all", 'a', "also the tensors whose data is not in the file (TFLite activations, "
                         "graph inputs and outputs, TF checkpoints' partitioned variables), "
                         "marked by data_offset -1 and their note"),
    CLI_VALUE("max-header", 0, "N", "largest .npy header accepted, in bytes (default 10000)"),
    CLI_FLAG("stored-order", 0, "GGUF: show dims as stored (innermost first)"),
    CLI_FLAG("ggml-order", 0, "GGUF: show dims in ggml's ne order (innermost first, as\n"
                              "llama.cpp prints them); the same as --stored-order"),
    CLI_FLAG("recursive", 'r', "a FILE that is a folder without an index: its subfolders too"),
    CLI_FLAG("group", 'l', "the model summary (implied), names that differ only in layer\n"
                           "numbers collapsed into one line"),
    CLI_VALUE("top", 0, "N", "the model summary (implied) with the N largest tensors (default 5)"),
    CLI_FLAG("memory", 0, "the model summary (implied) with the memory to load it: weights\n"
                          "and KV cache (config.json or GGUF keys)"),
    CLI_VALUE("context", 0, "N", "--memory: tokens of KV cache (default: the model's)"),
    CLI_VALUE("batch", 0, "B", "--memory: sequences of KV cache (default 1)"),
    CLI_CHOICE("kv-dtype", 0, "T", "--memory: the KV cache's dtype (default: config.json's\n"
                                   "torch_dtype, else float16)", "@dtypes"),
    CLI_FLAG("tensors", 0, "the model summary (implied); with --json every tensor in its record\n"
                           "(key tensors), as the text summary lists them"),
    CLI_REMOTE_OPTIONS,
    CLI_OPTIONS_END,
};

typedef struct info_opts {
    ts_open_options open;
    cli_filter filter;      /* --filter GLOB..., --exclude GLOB... */
    int summary;            /* --summary */
    int metadata;           /* --metadata */
    int tty;                /* stdout is a terminal: align summary columns */
    int recursive;          /* -r: folders' subfolders too */
} info_opts;

/* What --summary adds up over the files (ts_summary computes the sums). */
typedef struct totals {
    int64_t files;          /* files opened */
    ts_summary *sum;
} totals;

/* Summary rows are buffered so that columns can be aligned on a terminal;
 * each column is already escaped. Otherwise (stream) each row is written
 * at once, so a file of a million arrays costs no memory here. */
typedef struct row {
    char *cols[4];
} row;

typedef struct rows {
    row *v;
    size_t n, cap;
    int tty;
    int stream;             /* write each row at once: not a terminal, and
                               nothing else (--metadata) goes to stdout
                               before the rows */
} rows;

/* ---- the report of one array ------------------------------------------------ */

/* "  label          %s\n": the human form of a field. */
static const char *line(char *buf, size_t cap, const char *label)
{
    /* "  %-14s %s\n" without printf: it runs for every field of every
     * array (a million arrays make 15 million). */
    size_t n = strlen(label), w = n < 14 ? 14 : n;
    if (2 + w + 5 > cap) {
        snprintf(buf, cap, "  %-14s %%s\n", label);
        return buf;
    }
    memcpy(buf, "  ", 2);
    memcpy(buf + 2, label, n);
    memset(buf + 2 + n, ' ', w - n);
    memcpy(buf + 2 + w, " %s\n", 5);
    return buf;
}

static const char *byteorder_word(char c)
{
    switch (c) {
    case '<': return "little-endian";
    case '>': return "big-endian";
    case '=': return "native";
    default: return "not applicable";
    }
}

static const char *storage_name(ts_storage s)
{
    switch (s) {
    case TS_STORAGE_DENSE: return "default";
    case TS_STORAGE_ROW_SPARSE: return "row_sparse";
    case TS_STORAGE_CSR: return "csr";
    }
    return "unknown";
}

/* A JSON integer, or null when v < 0. */
static void json_int_or_null(cli_ctx *ctx, const char *key, int64_t v)
{
    if (v < 0)
        print_null(ctx, PRINT_JSON, key, NULL);
    else
        print_int(ctx, PRINT_JSON, key, NULL, v);
}

/* The size of an element in four keys every array record has
 * (ts_array_element_size; man page, JSON RECORDS); -1 is null. */
static void json_element_size(cli_ctx *ctx, const ts_array *a)
{
    ts_element_size e;
    ts_array_element_size(a, &e);
    json_int_or_null(ctx, "itemsize", e.itemsize);
    json_int_or_null(ctx, "bits", e.bits);
    json_int_or_null(ctx, "block_size", e.block_size);
    json_int_or_null(ctx, "block_bytes", e.block_bytes);
}

/* The dtype: its name, then (text only) the format's own spelling, the
 * element size and the byte order. */
static void report_dtype(cli_ctx *ctx, const ts_file *f, const ts_array *a)
{
    char buf[1024], size[128], fmt[32];
    const ts_format_info *fi = ts_format_info_of(ts_file_format(f));
    if (a->block_size > 1)
        snprintf(size, sizeof size, "block of %lld elements in %lld bytes",
                 (long long)a->block_size, (long long)a->block_bytes);
    else if (a->itemsize == 0 && a->bits > 0)
        snprintf(size, sizeof size, "%d bits per element", (int)a->bits);
    else
        snprintf(size, sizeof size, "itemsize %lld", (long long)a->itemsize);
    if (a->format_dtype[0])
        snprintf(buf, sizeof buf, "%s (%s %s%s%s, %s, %s)", a->dtype_name, fi->name,
                 fi->dtype_field, fi->dtype_field[0] ? " " : "", a->format_dtype, size,
                 byteorder_word(a->byteorder));
    else /* raw TShape files store no dtype */
        snprintf(buf, sizeof buf, "%s", a->dtype_name);
    print_string(ctx, PRINT_JSON, "dtype", NULL, a->dtype_name);
    print_string(ctx, PRINT_TEXT, NULL, line(fmt, sizeof fmt, "dtype"), buf);
    print_string(ctx, PRINT_JSON, "descr", NULL, a->descr);
    print_string(ctx, PRINT_JSON, "format_dtype", NULL, a->format_dtype);
    json_element_size(ctx, a);
    char bo[2] = {a->byteorder, '\0'};
    print_string(ctx, PRINT_JSON, "byteorder", NULL, bo);
}

/* Order, contiguity (NumPy's relaxed rule on the strides the reader gave or
 * implied), the 2-D view and where the data is. */
static void report_layout(cli_ctx *ctx, const ts_array *a)
{
    char buf[256], fmt[32];
    int c = ts_is_c_contiguous(&a->shape, ts_shape_dims(&a->strides), 1);
    int fo = ts_is_f_contiguous(&a->shape, ts_shape_dims(&a->strides), 1);
    /* C or F as the strides say (both: the format's flag); a view that is
     * neither (channels_last, a slice, a transpose of 3-D) is "strided", and
     * its strides and storage offset are shown */
    const char *order = c && fo ? (a->fortran_order ? "F" : "C") : c ? "C" : fo ? "F"
                                                                       : "strided";
    snprintf(buf, sizeof buf, "%s (c_contiguous %s, f_contiguous %s)", order,
             c ? "true" : "false", fo ? "true" : "false");
    print_string(ctx, PRINT_JSON, "order", NULL, order);
    print_string(ctx, PRINT_TEXT, NULL, line(fmt, sizeof fmt, "order"), buf);
    print_bool(ctx, PRINT_JSON, "c_contiguous", NULL, c);
    print_bool(ctx, PRINT_JSON, "f_contiguous", NULL, fo);
    if (!c && !fo) {
        print_dims(ctx, PRINT_TEXT, NULL, line(fmt, sizeof fmt, "strides"),
                   ts_shape_dims(&a->strides), ts_shape_ndim(&a->strides));
        if (!a->storage_key) /* else with the storage, below */
            print_int(ctx, PRINT_TEXT, NULL, line(fmt, sizeof fmt, "storage_offset"),
                      a->storage_offset);
    }

    int64_t f2[2];
    if (a->null_shape)
        print_null(ctx, PRINT_ANY, "flat2d", "  flat2d         none\n");
    else if (ts_shape_flat2d(&a->shape, f2, NULL) == TS_OK)
        print_dims(ctx, PRINT_ANY, "flat2d", line(fmt, sizeof fmt, "flat2d"), f2, 2);
    else
        print_null(ctx, PRINT_ANY, "flat2d", "  flat2d         overflows int64\n");
    if (a->data_offset >= 0)
        print_int(ctx, PRINT_ANY, "data_offset", line(fmt, sizeof fmt, "data_offset"),
                  a->data_offset);
    else
        print_null(ctx, PRINT_ANY, "data_offset", "  data_offset    not addressable\n");
}

/* Storage: MXNet sparse arrays, the device, and views into shared storage. */
static void report_storage(cli_ctx *ctx, const ts_array *a)
{
    char fmt[32];
    const cli_print sparse = a->storage != TS_STORAGE_DENSE ? PRINT_ANY : PRINT_JSON;
    print_string(ctx, sparse, "storage", line(fmt, sizeof fmt, "storage"),
                 storage_name(a->storage));
    if (a->storage != TS_STORAGE_DENSE)
        print_dims(ctx, PRINT_ANY, "storage_shape", line(fmt, sizeof fmt, "storage_shape"),
                   ts_shape_dims(&a->storage_shape), ts_shape_ndim(&a->storage_shape));
    else
        print_null(ctx, PRINT_JSON, "storage_shape", NULL);
    print_string(ctx, PRINT_ANY, "device", line(fmt, sizeof fmt, "device"), a->device);
    if (a->null_shape)
        print_null(ctx, PRINT_JSON, "strides", NULL);
    else
        print_dims(ctx, PRINT_JSON, "strides", NULL, ts_shape_dims(&a->strides),
                   ts_shape_ndim(&a->strides));
    print_int(ctx, a->storage_key ? PRINT_ANY : PRINT_JSON, "storage_offset",
              line(fmt, sizeof fmt, "storage_offset"), a->storage_offset);
    print_string(ctx, PRINT_ANY, "storage_key", line(fmt, sizeof fmt, "storage_key"),
                 a->storage_key);
    print_string(ctx, PRINT_ANY, "note", line(fmt, sizeof fmt, "note"), a->note);
}

static void report_array(cli_ctx *ctx, const char *path, const ts_file *f, const ts_array *a)
{
    char buf[256], fmt[32];
    int ndim = ts_shape_ndim(&a->shape);
    const char *format = ts_format_name(ts_file_format(f)), *version = ts_file_version(f);

    print_open_object(ctx, NULL);
    print_string(ctx, PRINT_ANY, "file", "%s", path);
    print_string(ctx, PRINT_TEXT, NULL, a->name[0] ? ": %s:\n" : ":\n", a->name);
    snprintf(buf, sizeof buf, "%s%s%s", format, version[0] ? " " : "", version);
    print_string(ctx, PRINT_JSON, "format", NULL, format);
    print_string(ctx, PRINT_TEXT, NULL, line(fmt, sizeof fmt, "format"), buf);
    print_string(ctx, PRINT_JSON, "version", NULL, version[0] ? version : NULL);
    print_string(ctx, PRINT_JSON, "name", NULL, a->name);
    print_array_shape(ctx, PRINT_ANY, "shape", line(fmt, sizeof fmt, "shape"), a);
    if (a->null_shape)
        print_null(ctx, PRINT_ANY, "ndim", "  ndim           none\n");
    else
        print_int(ctx, PRINT_ANY, "ndim", line(fmt, sizeof fmt, "ndim"), ndim);
    int64_t ne[4];
    int nne;
    if (ts_array_ggml_ne(f, a, ne, &nne, NULL) == TS_OK)
        print_dims(ctx, PRINT_JSON, "ne", NULL, ne, nne);
    else
        print_null(ctx, PRINT_JSON, "ne", NULL);
    report_dtype(ctx, f, a);
    print_int(ctx, PRINT_ANY, "size", line(fmt, sizeof fmt, "size"), a->size);
    if (a->nbytes >= 0)
        print_int(ctx, PRINT_ANY, "nbytes", line(fmt, sizeof fmt, "nbytes"), a->nbytes);
    else
        print_null(ctx, PRINT_ANY, "nbytes", "  nbytes         unknown\n");
    report_layout(ctx, a);
    report_storage(ctx, a);
    print_close_object(ctx);
    print_text(ctx, "\n");
}

/* The record of a file that holds no arrays (a GGUF vocabulary, an empty
 * .npz, a safetensors header with only __metadata__), so that every FILE
 * named gives output: JSON {"file","format","version","arrays":0,
 * "metadata_keys"}; text "FILE: no arrays" and the same fields. */
static void report_empty_file(cli_ctx *ctx, const char *path, const ts_file *f)
{
    char buf[256], fmt[32];
    const char *format = ts_format_name(ts_file_format(f)), *version = ts_file_version(f);
    print_open_object(ctx, NULL);
    print_string(ctx, PRINT_ANY, "file", "%s: no arrays\n", path);
    snprintf(buf, sizeof buf, "%s%s%s", format, version[0] ? " " : "", version);
    print_string(ctx, PRINT_JSON, "format", NULL, format);
    print_string(ctx, PRINT_TEXT, NULL, line(fmt, sizeof fmt, "format"), buf);
    print_string(ctx, PRINT_JSON, "version", NULL, version[0] ? version : NULL);
    print_int(ctx, PRINT_JSON, "arrays", NULL, 0);
    print_int(ctx, PRINT_ANY, "metadata_keys", line(fmt, sizeof fmt, "metadata_keys"),
              (int64_t)ts_file_metadata_count(f));
    print_close_object(ctx);
    print_text(ctx, "\n");
}

/* The file's key/value pairs. The library gives each value as JSON text,
 * written verbatim (a round trip through a parser would respell 1e-05 and
 * quote big uint64s). */
static int report_metadata(cli_ctx *ctx, const char *path, const ts_file *f)
{
    size_t n = ts_file_metadata_count(f);
    int status = CLI_OK;
    ts_error err;
    char fmt[64];
    print_open_object(ctx, NULL);
    print_string(ctx, PRINT_ANY, "file", "%s", path);
    snprintf(fmt, sizeof fmt, ": metadata (%zu entr%s)\n", n, n == 1 ? "y" : "ies");
    print_text(ctx, fmt);
    print_open_object(ctx, "metadata");
    for (size_t i = 0; i < n; i++) {
        const char *k;
        ts_file_metadata(f, i, &k, NULL); /* the key alone: values stream */
        print_string(ctx, PRINT_TEXT, NULL, "  %s = ", k);
        if (print_metadata_value(ctx, k, "%s\n", f, i, &err) != 0)
            status = cli_error(ctx, path, "metadata '%s': %s", k, err.message);
    }
    print_close_object(ctx);
    print_close_object(ctx);
    print_text(ctx, "\n");
    return status;
}

/* A path from the model's folder (its own when it is not below it). */
static const char *below(const char *path, const char *root)
{
    size_t n = strlen(root);
    while (n > 1 && root[n - 1] == '/')
        n--;
    return strncmp(path, root, n) == 0 && path[n] == '/' ? path + n + 1 : path;
}

/*
 * A model's metadata (ts_model_metadata_at): text, one heading per source
 * ("config.json", the index, "SHARD and N more files"), its key = value
 * lines below; JSON, one record {"model_metadata": PATH, "entries": [{
 * "source", "path", "key", "value", "files"}]}.
 */
static void report_model_metadata(cli_ctx *ctx, const char *path, const ts_model *m)
{
    static const char *const sources[] = {"", "config", "index", "member"};
    size_t n = ts_model_metadata_count(m);
    char fmt[64];
    print_open_object(ctx, NULL);
    print_string(ctx, PRINT_ANY, "model_metadata", "%s", path);
    snprintf(fmt, sizeof fmt, ": metadata (%zu entr%s)\n", n, n == 1 ? "y" : "ies");
    print_text(ctx, fmt);
    print_open_array(ctx, "entries");
    for (size_t i = 0; i < n; i++) {
        const ts_model_meta *e = ts_model_metadata_at(m, i);
        const ts_model_meta *prev = i ? ts_model_metadata_at(m, i - 1) : NULL;
        if (!ctx->json && (!prev || prev->source != e->source ||
                           strcmp(prev->path, e->path) != 0 || prev->files != e->files)) {
            out_str(ctx, "  ");
            out_escaped(ctx, CLI_ESC_TEXT, below(e->path, path), strlen(below(e->path, path)));
            if (e->files > 1)
                out_printf(ctx, " and %zu more file%s", e->files - 1, e->files > 2 ? "s" : "");
            out_str(ctx, ":\n");
        }
        print_open_object(ctx, NULL);
        print_string(ctx, PRINT_JSON, "source", NULL, sources[e->source]);
        print_string(ctx, PRINT_JSON, "path", NULL, e->path);
        print_string(ctx, PRINT_ANY, "key", "    %s = ", e->key);
        print_json_value(ctx, "value", "%s\n", e->value);
        print_int(ctx, PRINT_JSON, "files", NULL, (int64_t)e->files);
        print_close_object(ctx);
    }
    print_close_array(ctx);
    print_close_object(ctx);
    print_text(ctx, "\n");
}

/* ---- summary ------------------------------------------------------------------ */

/* Escaped copy of s, for a summary column. */
static char *column(const char *s)
{
    size_t n = strlen(s), cap = n * 12 + 1, w = 0;
    char *c = malloc(cap);
    if (c) {
        cli_escape(CLI_ESC_TEXT, s, n, c, cap, &w);
        char *fit = realloc(c, strlen(c) + 1); /* the escape's room back */
        if (fit)
            c = fit;
    }
    return c;
}

static void add_row(rows *r, const char *c0, const char *c1, const char *c2, const char *c3)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 64;
        row *p = realloc(r->v, cap * sizeof *p);
        if (!p)
            return;
        r->v = p;
        r->cap = cap;
    }
    row *w = &r->v[r->n++];
    const char *src[4] = {c0, c1, c2, c3};
    for (int i = 0; i < 4; i++)
        w->cols[i] = src[i] ? column(src[i]) : NULL;
}

static void flush_rows(cli_ctx *ctx, rows *r)
{
    size_t width[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < r->n; i++)
        for (int c = 0; c < 4; c++)
            if (r->v[i].cols[c] && strlen(r->v[i].cols[c]) > width[c])
                width[c] = strlen(r->v[i].cols[c]);
    for (size_t i = 0; i < r->n; i++) {
        int first = 1;
        for (int c = 0; c < 4; c++) {
            const char *s = r->v[i].cols[c];
            if (!s)
                continue;
            if (!first)
                out_char(ctx, r->tty ? ' ' : '\t');
            out_str(ctx, s);
            /* Pad all but the last column on a terminal. */
            if (r->tty && c < 3)
                for (size_t k = strlen(s); k < width[c] + 1; k++)
                    out_char(ctx, ' ');
            first = 0;
            free(r->v[i].cols[c]);
        }
        out_char(ctx, '\n');
    }
    free(r->v);
    r->v = NULL;
    r->n = r->cap = 0;
}

/* One array of --summary: the columns file, name, dtype, shape, whatever
 * the number of files, so `cut -f3` is always the dtype. */
static void summary_row(cli_ctx *ctx, rows *r, const char *path, const ts_array *a)
{
    if (ctx->json) {
        print_open_object(ctx, NULL);
        print_string(ctx, PRINT_JSON, "file", NULL, path);
        print_string(ctx, PRINT_JSON, "name", NULL, a->name);
        print_string(ctx, PRINT_JSON, "dtype", NULL, a->dtype_name);
        print_string(ctx, PRINT_JSON, "descr", NULL, a->descr);
        print_array_shape(ctx, PRINT_JSON, "shape", NULL, a);
        print_string(ctx, PRINT_JSON, "role", NULL,
                     ts_role_name(ts_tensor_role(a->name, a->dequantized_dtype != TS_DTYPE_UNKNOWN
                                                                 ? a->dequantized_dtype : a->dtype)));
        print_close_object(ctx);
        return;
    }
    char shape[512];
    cli_array_shape_text(a, shape, sizeof shape);
    add_row(r, path, a->name[0] ? a->name : "-", ts_summary_dtype(a), shape);
    if (r->stream)
        flush_rows(ctx, r);
}

/* The totals after the rows: JSON {"total":{...}} on standard output; text
 * "total: ..." on standard error, so that the rows alone go down a pipeline
 * (info --summary FILE | cut -f4 | tshape size). */
static void summary_total(cli_ctx *ctx, const totals *t)
{
    if (ctx->json) {
        print_open_object(ctx, NULL);
        cli_total_json(ctx, t->files, t->sum);
        print_close_object(ctx);
    } else {
        cli_total_line(ctx, t->files, t->sum);
    }
}

/* ---- reading files ------------------------------------------------------------ */

/* Reads all of stdin into a malloc'ed buffer for "-": at most
 * CLI_STDIN_MAX bytes (LIMITS in the man page), doubling as it goes. Once
 * the first 64 KiB are in (or all of it, when shorter), a stream whose
 * format cannot be told from them, or that declares a header past a limit,
 * is refused at once with the library's words (*early_error, status
 * *early_status): the rest is not read. */
static unsigned char *slurp_stdin(size_t *len, const char **error, const ts_open_options *o,
                                  ts_error *early_error, ts_status *early_status)
{
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    int checked = 0;
    *error = NULL;
    *early_status = TS_OK;
    while (buf) {
        if (!checked && (n == cap || n >= (1 << 16))) {
            /* the first bytes say what the stream is, or that it is not */
            checked = 1;
            ts_file *f = NULL;
            ts_status st = ts_file_open_memory(buf, n, o, &f, early_error);
            ts_file_close(f);
            if ((st == TS_ERR_FORMAT && ts_format_detect(buf, n) == TS_FORMAT_AUTO &&
                 o->format == TS_FORMAT_AUTO) || st == TS_ERR_LIMIT) {
                *early_status = st;
                free(buf);
                return NULL;
            }
        }
        if (n == cap) {
            if (cap > CLI_STDIN_MAX) {
                free(buf);
                *error = "standard input is larger than " CLI_STDIN_MAX_TEXT
                         ", the limit of '-' (save it to a file and name the file)";
                return NULL;
            }
            /* one byte past the limit tells a longer input from one at it */
            size_t grown = cap * 2 > CLI_STDIN_MAX ? (size_t)CLI_STDIN_MAX + 1 : cap * 2;
            unsigned char *p = realloc(buf, grown);
            if (!p)
                break;
            buf = p;
            cap = grown;
        }
        ssize_t k = read(STDIN_FILENO, buf + n, cap - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            *error = strerror(errno);
            free(buf);
            return NULL;
        }
        if (k == 0) {
            *len = n;
            return buf;
        }
        n += (size_t)k;
    }
    free(buf);
    *error = "out of memory";
    return NULL;
}

/* A folder or an index: every tensor of the model, with its shard as the
 * file (model.c reports the model's issues). */
static int info_model(cli_ctx *ctx, const info_opts *o, const char *path)
{
    ts_model *m = cli_model_open(ctx, path, &o->open, o->recursive);
    if (!m)
        return CLI_ERROR;
    for (size_t i = 0; i < ts_model_count(m) && !ctx->out.closed; i++) {
        size_t k;
        const ts_array *a = ts_model_array(m, i, &k);
        if (cli_filter_match(&o->filter, a->name))
            report_array(ctx, ts_model_file_path(m, k), ts_model_file(m, k), a);
    }
    if (o->metadata)
        report_model_metadata(ctx, path, m);
    /* every file says something: one without arrays says so */
    for (size_t k = 0; k < ts_model_file_count(m) && !ctx->out.closed; k++)
        if (ts_file_count(ts_model_file(m, k)) == 0)
            report_empty_file(ctx, ts_model_file_path(m, k), ts_model_file(m, k));
    if (ts_model_file_count(m) == 0 && !ts_model_error_count(m)) {
        /* an empty folder: the empty-file record, of no format */
        print_open_object(ctx, NULL);
        print_string(ctx, PRINT_ANY, "file", "%s: no arrays\n", path);
        print_string(ctx, PRINT_JSON, "format", NULL, "folder");
        print_null(ctx, PRINT_JSON, "version", NULL);
        print_int(ctx, PRINT_JSON, "arrays", NULL, 0);
        print_int(ctx, PRINT_JSON, "metadata_keys", NULL, 0);
        print_close_object(ctx);
    }
    int status = ts_model_error_count(m) ? CLI_ERROR : CLI_OK;
    ts_model_close(m);
    return status;
}

static int info_file(cli_ctx *ctx, const info_opts *o, const char *path, totals *t, rows *r)
{
    out_drain(ctx); /* the previous files' report is out before this one is opened */
    if (strcmp(path, "-") != 0 && cli_is_model_path(path))
        return info_model(ctx, o, path);
    ts_file *f = NULL;
    ts_error err;
    ts_status st;
    unsigned char *mem = NULL;
    size_t len = 0;
    const char *shown = path;
    struct stat sb;
    if (strcmp(path, "-") == 0 && fstat(STDIN_FILENO, &sb) == 0 && S_ISREG(sb.st_mode)) {
        /* redirected from a file: mapped like a named one, no copy */
        shown = "<stdin>";
        st = ts_file_open("/dev/stdin", &o->open, &f, &err);
        path = "/dev/stdin";
    } else if (strcmp(path, "-") == 0) {
        const char *why;
        shown = "<stdin>";
        ts_status early;
        mem = slurp_stdin(&len, &why, &o->open, &err, &early);
        if (!mem && early)
            return cli_error(ctx, shown, "%s", err.message);
        if (!mem)
            return cli_error(ctx, shown, "cannot read: %s", why);
        st = ts_file_open_memory(mem, len, &o->open, &f, &err);
    } else {
        st = ts_file_open(path, &o->open, &f, &err);
    }
    if (st != TS_OK) {
        free(mem);
        return cli_error(ctx, shown, "%s", err.message);
    }
    t->files++;
    if (ts_file_count(f) == 0 && !o->open.want_metadata) {
        /* Again with metadata, for the empty file's key count. */
        ts_open_options with = o->open;
        ts_file *g = NULL;
        with.want_metadata = 1;
        st = mem ? ts_file_open_memory(mem, len, &with, &g, &err)
                 : ts_file_open(path, &with, &g, &err);
        if (st == TS_OK) {
            ts_file_close(f);
            f = g;
        }
    }
    /* Text --summary rows are arrays: an empty file only counts in files=. */
    if (ts_file_count(f) == 0 && !(o->summary && !ctx->json))
        report_empty_file(ctx, shown, f);
    for (size_t i = 0; i < ts_file_count(f); i++) {
        const ts_array *a = ts_file_array(f, i);
        if (!cli_filter_match(&o->filter, a->name))
            continue;
        if (o->summary) {
            summary_row(ctx, r, shown, a);
            if (ts_summary_add(t->sum, NULL, a, i, &err) != TS_OK) {
                ts_file_close(f);
                free(mem);
                return cli_error(ctx, shown, "%s", err.message);
            }
        } else {
            report_array(ctx, shown, f, a);
        }
    }
    int status = o->metadata ? report_metadata(ctx, shown, f) : CLI_OK;
    ts_file_close(f);
    free(mem);
    return status;
}

static int get_options(cli_ctx *ctx, const cli_args *args, info_opts *o)
{
    const char *v;
    ts_error err;
    memset(o, 0, sizeof *o);
    if (!cli_open_options(ctx, args, &o->open))
        return CLI_ERROR;
    if ((v = cli_opt(args, "format")) && ts_format_from_name(v, &o->open.format, &err) != TS_OK)
        return cli_usage(ctx, "%s", err.message);
    if ((v = cli_opt(args, "max-header"))) {
        int64_t n;
        if (cli_arg_i64(ctx, v, "--max-header", &n))
            return CLI_ERROR;
        if (n <= 0)
            return cli_usage(ctx, "--max-header must be positive, not %lld", (long long)n);
        o->open.npy_max_header = (size_t)n;
    }
    cli_filter_init(&o->filter, args);
    o->summary = cli_flag(args, "summary");
    o->metadata = cli_flag(args, "metadata") > 0;
    /* Collected when asked for; a file without arrays is opened again with
     * metadata to give its key count (reading metadata can cost: HDF5
     * attributes go through libhdf5). */
    o->open.want_metadata = o->metadata;
    o->open.gguf_stored_order = cli_flag(args, "stored-order") > 0 ||
                                cli_flag(args, "ggml-order") > 0;
    o->open.want_activations = cli_flag(args, "all") > 0;
    o->recursive = cli_flag(args, "recursive") > 0;
    o->tty = isatty(STDOUT_FILENO);
    return CLI_OK;
}

/* The model summary (model.c) is what --summary gives for a folder or an
 * index, and what --group, --top and --tensors ask for whatever FILE is
 * (they belong to it: each implies it, --summary or not). */
static int wants_model_summary(const info_opts *o, const cli_args *args)
{
    if (cli_flag(args, "group") || cli_opt(args, "top") || cli_flag(args, "tensors") ||
        cli_flag(args, "memory"))
        return 1;
    for (int i = 0; i < args->nops && o->summary; i++)
        if (strcmp(args->ops[i], "-") != 0 && cli_is_model_path(args->ops[i]))
            return 1;
    return 0;
}

int cmd_info(cli_ctx *ctx, const cli_args *args)
{
    info_opts o;
    if (get_options(ctx, args, &o))
        return CLI_ERROR;
    if (args->nops == 0)
        return cli_usage(ctx, "missing FILE");
    if (wants_model_summary(&o, args)) {
        cli_summary_opts so = {&o.open, &o.filter, o.recursive, cli_flag(args, "group") > 0, 5,
                               cli_flag(args, "tensors") > 0, cli_flag(args, "memory") > 0,
                               TS_MEMORY_OPTIONS_INIT};
        const char *v;
        if ((cli_opt(args, "context") || cli_opt(args, "batch") || cli_opt(args, "kv-dtype")) &&
            !so.memory)
            return cli_usage(ctx, "--context, --batch and --kv-dtype need --memory");
        if ((v = cli_opt(args, "context")) &&
            (cli_arg_i64(ctx, v, "--context", &so.mem.context) || so.mem.context <= 0))
            return so.mem.context <= 0 ? cli_usage(ctx, "--context must be above 0") : CLI_ERROR;
        if ((v = cli_opt(args, "batch")) &&
            (cli_arg_i64(ctx, v, "--batch", &so.mem.batch) || so.mem.batch <= 0))
            return so.mem.batch <= 0 ? cli_usage(ctx, "--batch must be above 0") : CLI_ERROR;
        if ((v = cli_opt(args, "kv-dtype"))) {
            ts_error e;
            /* a dtype, or a quantised cache type of llama.cpp that the
             * library checks (q8_0) */
            if (ts_dtype_from_string(v, &so.mem.kv_dtype, &e) != TS_OK ||
                ts_dtype_bits(so.mem.kv_dtype) <= 0) {
                so.mem.kv_dtype = TS_DTYPE_UNKNOWN;
                if (!ts_kv_cache_type(v, NULL, NULL))
                    return cli_usage(ctx, "--kv-dtype '%s': neither a dtype of fixed size nor "
                                     "a quantised cache type of llama.cpp (q8_0, q4_0, q4_1, "
                                     "iq4_nl, q5_0, q5_1)", v);
                so.mem.kv_type = v;
            }
        }
        if (so.memory)
            o.open.want_metadata = 1; /* config.json, GGUF keys */
        const char *top = cli_opt(args, "top");
        if (top && cli_arg_i64(ctx, top, "--top", &so.top))
            return CLI_ERROR;
        if (so.top < 0 || so.top > CLI_TOP_MAX)
            return cli_usage(ctx, "--top must be 0..%d, not %lld", CLI_TOP_MAX,
                             (long long)so.top);
        for (int i = 0; i < args->nops; i++)
            if (strcmp(args->ops[i], "-") == 0)
                return cli_usage(ctx, "the model summary (--summary of a folder, --group, "
                                      "--top, --tensors) reads files, not standard input");
        return cli_model_summary(ctx, &so, args->ops, args->nops);
    }
    totals t = {0, NULL};
    ts_error err;
    if (o.summary && ts_summary_new(NULL, &t.sum, &err) != TS_OK)
        return cli_error(ctx, NULL, "%s", err.message);
    rows r = {NULL, 0, 0, o.tty, !o.tty && !o.metadata};
    int status = CLI_OK, opened = 0;
    for (int i = 0; i < args->nops && !ctx->out.closed; i++) {
        if (info_file(ctx, &o, args->ops[i], &t, &r) != CLI_OK)
            status = CLI_ERROR;
        else
            opened++;
    }
    if (o.summary && opened > 0) { /* no totals of nothing when every file failed */
        flush_rows(ctx, &r);
        summary_total(ctx, &t);
    }
    ts_summary_free(t.sum);
    return status;
}
