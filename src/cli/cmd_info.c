/*
 * cmd_info.c - tshape info: one report per array in each file, or with
 * --summary one line per array and totals.
 *
 * Reports are records of output.c: each field is printed once, as a JSON
 * key or a "  label  text" line, so the two forms cannot drift apart.
 */
#include "cli.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const cli_option info_options[] = {
    CLI_ABOUT("FILE '-' reads standard input. Only headers are read, never the data.\n"
              "With --json, one JSON object per array (JSON Lines).\n"
              "PyTorch pickles are never run: a global outside tshape's allowlist (tensor\n"
              "rebuild functions, storage types, dtypes, OrderedDict ...) refuses the file."),
    CLI_CHOICE("format", 'f', "FMT",
               "force the format (default: detect from the magic bytes):", "@formats"),
    CLI_VALUE("filter", 0, "GLOB", "only arrays whose name matches GLOB (fnmatch)"),
    CLI_FLAG("summary", 's', "one line per array (name, dtype, shape) and totals"),
    CLI_FLAG("metadata", 'm', "show safetensors __metadata__, GGUF key/values and the "
                              "values of a PyTorch checkpoint that are not tensors"),
    CLI_VALUE("max-header", 0, "N", "largest .npy header accepted, in bytes (default 10000)"),
    CLI_FLAG("stored-order", 0, "GGUF: show dims as stored (innermost first)"),
    CLI_OPTIONS_END,
};

typedef struct info_opts {
    ts_open_options open;
    const char *filter;     /* --filter GLOB */
    int summary;            /* --summary */
    int metadata;           /* --metadata */
    int many_files;         /* more than one FILE: summary lines name the file */
    int tty;                /* stdout is a terminal: align summary columns */
} info_opts;

/* Sums for --summary, of all arrays or of one dtype. A sum that does not
 * fit in int64 stops there and is reported as "overflow" (JSON null). */
typedef struct sums {
    int64_t arrays, size, nbytes;
    int size_overflow, nbytes_overflow;
    int nbytes_unknown;     /* object arrays: the pickle's size is unknown */
} sums;

typedef struct dtype_total {
    char name[64];
    sums s;
} dtype_total;

typedef struct totals {
    sums all;
    dtype_total *by_dtype;
    size_t n_dtypes, cap;
} totals;

/* Summary rows are buffered so that columns can be aligned on a terminal;
 * each column is already escaped. */
typedef struct row {
    char *cols[4];
} row;

typedef struct rows {
    row *v;
    size_t n, cap;
} rows;

/* ---- the report of one array ------------------------------------------------ */

/* "  label          %s\n": the human form of a field. */
static const char *line(char *buf, size_t cap, const char *label)
{
    snprintf(buf, cap, "  %-14s %%s\n", label);
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
    print_int(ctx, PRINT_JSON, "itemsize", NULL, a->itemsize);
    if (a->bits % 8 != 0)
        print_int(ctx, PRINT_JSON, "bits", NULL, a->bits);
    if (a->block_size > 1) {
        print_int(ctx, PRINT_JSON, "block_size", NULL, a->block_size);
        print_int(ctx, PRINT_JSON, "block_bytes", NULL, a->block_bytes);
    }
    char bo[2] = {a->byteorder, '\0'};
    print_string(ctx, PRINT_JSON, "byteorder", NULL, bo);
}

/* Order, contiguity (NumPy's relaxed rule on the strides the reader gave or
 * implied), the 2-D view and where the data is. */
static void report_layout(cli_ctx *ctx, const ts_array *a)
{
    char buf[256], fmt[32];
    const char *order = a->fortran_order ? "F" : "C";
    int c = ts_is_c_contiguous(&a->shape, ts_shape_dims(&a->strides), 1);
    int fo = ts_is_f_contiguous(&a->shape, ts_shape_dims(&a->strides), 1);
    snprintf(buf, sizeof buf, "%s (c_contiguous %s, f_contiguous %s)", order,
             c ? "true" : "false", fo ? "true" : "false");
    print_string(ctx, PRINT_JSON, "order", NULL, order);
    print_string(ctx, PRINT_TEXT, NULL, line(fmt, sizeof fmt, "order"), buf);
    print_bool(ctx, PRINT_JSON, "c_contiguous", NULL, c);
    print_bool(ctx, PRINT_JSON, "f_contiguous", NULL, fo);

    int64_t f2[2];
    if (ts_shape_flat2d(&a->shape, f2, NULL) == TS_OK)
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
    if (a->storage != TS_STORAGE_DENSE) {
        print_string(ctx, PRINT_ANY, "storage", line(fmt, sizeof fmt, "storage"),
                     storage_name(a->storage));
        print_dims(ctx, PRINT_ANY, "storage_shape", line(fmt, sizeof fmt, "storage_shape"),
                   ts_shape_dims(&a->storage_shape), ts_shape_ndim(&a->storage_shape));
    }
    print_string(ctx, PRINT_ANY, "device", line(fmt, sizeof fmt, "device"), a->device);
    print_dims(ctx, PRINT_JSON, "strides", NULL, ts_shape_dims(&a->strides),
               ts_shape_ndim(&a->strides));
    print_int(ctx, a->storage_key ? PRINT_ANY : PRINT_JSON, "storage_offset",
              line(fmt, sizeof fmt, "storage_offset"), a->storage_offset);
    print_string(ctx, PRINT_ANY, "storage_key", line(fmt, sizeof fmt, "storage_key"),
                 a->storage_key);
    if (a->note)
        print_string(ctx, PRINT_ANY, "note", line(fmt, sizeof fmt, "note"), a->note);
}

static void report_array(cli_ctx *ctx, const char *path, const ts_file *f, const ts_array *a)
{
    char buf[256], fmt[32];
    const int64_t *dims = ts_shape_dims(&a->shape);
    int ndim = ts_shape_ndim(&a->shape);
    const char *format = ts_format_name(ts_file_format(f)), *version = ts_file_version(f);

    print_open_object(ctx, NULL);
    print_string(ctx, PRINT_ANY, "file", "%s", path);
    print_string(ctx, PRINT_TEXT, NULL, a->name[0] ? ": %s:\n" : ":\n", a->name);
    snprintf(buf, sizeof buf, "%s%s%s", format, version[0] ? " " : "", version);
    print_string(ctx, PRINT_JSON, "format", NULL, format);
    print_string(ctx, PRINT_TEXT, NULL, line(fmt, sizeof fmt, "format"), buf);
    print_string(ctx, PRINT_JSON, "version", NULL, version);
    print_string(ctx, PRINT_JSON, "name", NULL, a->name);
    print_dims(ctx, PRINT_ANY, "shape", line(fmt, sizeof fmt, "shape"), dims, ndim);
    print_int(ctx, PRINT_ANY, "ndim", line(fmt, sizeof fmt, "ndim"), ndim);
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

/* ---- summary ------------------------------------------------------------------ */

/* *sum += v, or the overflow flag once it no longer fits. */
static void add_checked(int64_t *sum, int64_t v, int *overflow)
{
    if (!*overflow && __builtin_add_overflow(*sum, v, sum))
        *overflow = 1;
}

static void add_sums(sums *s, const ts_array *a)
{
    s->arrays++;
    add_checked(&s->size, a->size, &s->size_overflow);
    if (a->nbytes < 0)
        s->nbytes_unknown = 1;
    else
        add_checked(&s->nbytes, a->nbytes, &s->nbytes_overflow);
}

static void add_total(totals *t, const ts_array *a)
{
    dtype_total *d = NULL;
    for (size_t i = 0; i < t->n_dtypes && !d; i++)
        if (strcmp(t->by_dtype[i].name, a->dtype_name) == 0)
            d = &t->by_dtype[i];
    if (!d) {
        if (t->n_dtypes == t->cap) {
            size_t cap = t->cap ? t->cap * 2 : 8;
            dtype_total *p = realloc(t->by_dtype, cap * sizeof *p);
            if (!p)
                return;
            t->by_dtype = p;
            t->cap = cap;
        }
        d = &t->by_dtype[t->n_dtypes++];
        memset(d, 0, sizeof *d);
        snprintf(d->name, sizeof d->name, "%s", a->dtype_name);
    }
    add_sums(&t->all, a);
    add_sums(&d->s, a);
}

/* Escaped copy of s, for a summary column. */
static char *column(const char *s)
{
    size_t n = strlen(s), cap = n * 12 + 1, w;
    char *c = malloc(cap);
    if (c)
        cli_escape(CLI_ESC_TEXT, s, n, c, cap, &w);
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

static void flush_rows(cli_ctx *ctx, const info_opts *o, rows *r)
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
                out_char(ctx, o->tty ? ' ' : '\t');
            out_str(ctx, s);
            /* Pad all but the last column on a terminal. */
            if (o->tty && c < 3)
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

static void summary_row(cli_ctx *ctx, const info_opts *o, rows *r, const char *path,
                        const ts_array *a)
{
    if (ctx->json) {
        print_open_object(ctx, NULL);
        print_string(ctx, PRINT_JSON, "file", NULL, path);
        print_string(ctx, PRINT_JSON, "name", NULL, a->name);
        print_string(ctx, PRINT_JSON, "dtype", NULL, a->dtype_name);
        print_dims(ctx, PRINT_JSON, "shape", NULL, ts_shape_dims(&a->shape),
                   ts_shape_ndim(&a->shape));
        print_close_object(ctx);
        return;
    }
    char shape[512];
    ts_shape_format(&a->shape, 0, shape, sizeof shape);
    add_row(r, o->many_files ? path : NULL, a->name[0] ? a->name : "-", a->dtype_name, shape);
}

/* A sum as a JSON number, or null when it overflowed (or is unknown). */
static void json_sum(cli_ctx *ctx, const char *key, int64_t v, int null)
{
    if (null)
        print_null(ctx, PRINT_JSON, key, NULL);
    else
        print_int(ctx, PRINT_JSON, key, NULL, v);
}

/* The total's nbytes is null when some are unknown; a dtype's is the known
 * part. */
static void json_sums(cli_ctx *ctx, const sums *s, int unknown_is_null)
{
    print_int(ctx, PRINT_JSON, "arrays", NULL, s->arrays);
    json_sum(ctx, "size", s->size, s->size_overflow);
    json_sum(ctx, "nbytes", s->nbytes,
             s->nbytes_overflow || (unknown_is_null && s->nbytes_unknown));
}

/* JSON {"total":{"arrays":..,"size":..,"nbytes":..,"overflow":..,"dtypes":{..}}}. */
static void summary_total_json(cli_ctx *ctx, const totals *t)
{
    int overflow = t->all.size_overflow || t->all.nbytes_overflow;
    for (size_t i = 0; i < t->n_dtypes; i++)
        overflow |= t->by_dtype[i].s.size_overflow || t->by_dtype[i].s.nbytes_overflow;
    print_open_object(ctx, NULL);
    print_open_object(ctx, "total");
    json_sums(ctx, &t->all, 1);
    print_bool(ctx, PRINT_JSON, "overflow", NULL, overflow);
    print_open_object(ctx, "dtypes");
    for (size_t i = 0; i < t->n_dtypes; i++) {
        print_open_object(ctx, t->by_dtype[i].name);
        json_sums(ctx, &t->by_dtype[i].s, 0);
        print_close_object(ctx);
    }
    print_close_object(ctx);
    print_close_object(ctx);
    print_close_object(ctx);
}

/* A sum as text: the number, or "overflow". */
static void text_sum(cli_ctx *ctx, int64_t v, int overflow)
{
    if (overflow)
        out_str(ctx, "overflow");
    else
        out_i64(ctx, v);
}

/* "total: 3 arrays, 225 elements, 904 bytes | float32 2 arrays 896 bytes; ..." */
static void summary_total(cli_ctx *ctx, const totals *t)
{
    const sums *s = &t->all;
    if (ctx->json) {
        summary_total_json(ctx, t);
        return;
    }
    out_printf(ctx, "total: %lld array%s, ", (long long)s->arrays, s->arrays == 1 ? "" : "s");
    text_sum(ctx, s->size, s->size_overflow);
    out_str(ctx, " elements, ");
    text_sum(ctx, s->nbytes, s->nbytes_overflow);
    out_str(ctx, s->nbytes_unknown ? " bytes (+ object arrays of unknown size)" : " bytes");
    for (size_t i = 0; i < t->n_dtypes; i++) {
        const sums *d = &t->by_dtype[i].s;
        out_str(ctx, i ? "; " : " | ");
        out_escaped(ctx, CLI_ESC_TEXT, t->by_dtype[i].name, strlen(t->by_dtype[i].name));
        out_printf(ctx, " %lld array%s ", (long long)d->arrays, d->arrays == 1 ? "" : "s");
        if (d->nbytes_unknown && d->nbytes == 0 && !d->nbytes_overflow) {
            out_str(ctx, "of unknown size");
            continue;
        }
        text_sum(ctx, d->nbytes, d->nbytes_overflow);
        out_str(ctx, d->nbytes_unknown ? " bytes + unknown" : " bytes");
    }
    out_char(ctx, '\n');
}

/* ---- reading files ------------------------------------------------------------ */

/* Reads all of stdin into a malloc'ed buffer for "-". */
static unsigned char *slurp_stdin(size_t *len, const char **error)
{
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    *error = NULL;
    while (buf) {
        if (n == cap) {
            unsigned char *p = realloc(buf, cap * 2);
            if (!p)
                break;
            buf = p;
            cap *= 2;
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

static int info_file(cli_ctx *ctx, const info_opts *o, const char *path, totals *t, rows *r)
{
    ts_file *f = NULL;
    ts_error err;
    ts_status st;
    unsigned char *mem = NULL;
    const char *shown = path;
    if (strcmp(path, "-") == 0) {
        size_t len = 0;
        const char *why;
        shown = "<stdin>";
        mem = slurp_stdin(&len, &why);
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
    for (size_t i = 0; i < ts_file_count(f); i++) {
        const ts_array *a = ts_file_array(f, i);
        if (o->filter && fnmatch(o->filter, a->name, 0) != 0)
            continue;
        if (o->summary) {
            summary_row(ctx, o, r, shown, a);
            add_total(t, a);
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
    o->open.struct_size = sizeof o->open;
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
    o->filter = cli_opt(args, "filter");
    o->summary = cli_flag(args, "summary");
    o->metadata = o->open.want_metadata = cli_flag(args, "metadata") > 0;
    o->open.gguf_stored_order = cli_flag(args, "stored-order") > 0;
    o->many_files = args->nops > 1;
    o->tty = isatty(STDOUT_FILENO);
    return CLI_OK;
}

int cmd_info(cli_ctx *ctx, const cli_args *args)
{
    info_opts o;
    if (get_options(ctx, args, &o))
        return CLI_ERROR;
    if (args->nops == 0)
        return cli_usage(ctx, "missing FILE");
    totals t;
    memset(&t, 0, sizeof t);
    rows r = {NULL, 0, 0};
    int status = CLI_OK, opened = 0;
    for (int i = 0; i < args->nops && !ctx->out.closed; i++) {
        if (info_file(ctx, &o, args->ops[i], &t, &r) != CLI_OK)
            status = CLI_ERROR;
        else
            opened++;
    }
    if (o.summary && opened > 0) { /* no totals of nothing when every file failed */
        flush_rows(ctx, &o, &r);
        summary_total(ctx, &t);
    }
    free(t.by_dtype);
    return status;
}
