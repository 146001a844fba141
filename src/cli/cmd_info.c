/*
 * cmd_info.c - tshape info: one report per array in each file.
 *
 * Every field is emitted once through emit(): with --json it becomes a key
 * of the array's JSON object (jansson does the encoding), otherwise a
 * "label: text" line. So the human and JSON reports cannot drift apart
 * (the iproute2 print_*(PRINT_ANY, key, fmt, val) habit).
 */
#include "cli.h"

#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct info_opts {
    ts_open_options open;
    const char *filter;     /* --filter GLOB */
    int summary;            /* --summary */
    int metadata;           /* --metadata */
    int many_files;         /* more than one FILE: summary lines name the file */
    int tty;                /* stdout is a terminal: align summary columns */
} info_opts;

/* Per-dtype totals for --summary. */
typedef struct dtype_total {
    char name[64];
    int64_t arrays, size, nbytes;
    int nbytes_unknown;     /* object arrays: the pickle's size is unknown */
} dtype_total;

typedef struct totals {
    int64_t arrays, size, nbytes;
    int size_overflow, nbytes_overflow, nbytes_unknown;
    dtype_total *by_dtype;
    size_t n_dtypes, cap;
} totals;

/* Summary rows are buffered so that columns can be aligned on a terminal. */
typedef struct row {
    char *cols[4];
} row;

typedef struct rows {
    row *v;
    size_t n, cap;
} rows;

/* ---- the one emitter ---------------------------------------------------- */

typedef struct emitter {
    const cli_ctx *ctx;
    json_t *obj;            /* JSON mode: the array's object */
} emitter;

/* Takes ownership of `json`; `human` is the text for the human report (NULL
 * to omit the line in human mode). */
static void emit(emitter *e, const char *key, json_t *json, const char *human)
{
    if (e->ctx->json) {
        json_object_set_new(e->obj, key, json ? json : json_null());
        return;
    }
    json_decref(json);
    if (human)
        out_printf("  %-14s %s\n", key, human);
}

/* A JSON string from text read out of a file, which may not be UTF-8. */
static json_t *jstr(const char *s)
{
    json_t *j = json_string(s);
    if (j)
        return j;
    char *clean = cli_utf8_clean(s);
    j = clean ? json_string(clean) : NULL;
    free(clean);
    return j ? j : json_null();
}

static json_t *json_dims(const int64_t *d, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_integer(d[i]));
    return a;
}

static const char *dims_text(const int64_t *d, int n, char *buf, size_t cap)
{
    ts_shape s = TS_SHAPE_INIT;
    if (ts_shape_assign(&s, d, n, NULL) != TS_OK) {
        snprintf(buf, cap, "?");
        return buf;
    }
    ts_shape_format(&s, 0, buf, cap);
    ts_shape_free(&s);
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

static void report_array(const cli_ctx *ctx, const char *path, const ts_file *f,
                         const ts_array *a)
{
    char buf[1024], tmp[256];
    emitter e = {ctx, ctx->json ? json_object() : NULL};
    const int64_t *dims = ts_shape_dims(&a->shape);
    int ndim = ts_shape_ndim(&a->shape);
    const char *version = ts_file_version(f);

    if (!ctx->json) {
        char *p = cli_printable(path), *n = cli_printable(a->name);
        out_printf("%s%s%s:\n", p ? p : "?", a->name[0] ? ": " : "", n ? n : "?");
        free(p);
        free(n);
    }
    emit(&e, "file", jstr(path), NULL);
    snprintf(buf, sizeof buf, "%s%s%s", ts_format_name(ts_file_format(f)),
             version[0] ? " " : "", version);
    emit(&e, "format", json_string(ts_format_name(ts_file_format(f))), buf);
    emit(&e, "version", jstr(version), NULL);
    emit(&e, "name", jstr(a->name), NULL);
    emit(&e, "shape", json_dims(dims, ndim), dims_text(dims, ndim, buf, sizeof buf));
    snprintf(buf, sizeof buf, "%d", ndim);
    emit(&e, "ndim", json_integer(ndim), buf);

    /* dtype line: name, then the format's own spelling, itemsize, byte order. */
    const ts_format_info *fi = ts_format_info_of(ts_file_format(f));
    const char *descr = a->descr;
    if (a->block_size > 1)
        snprintf(tmp, sizeof tmp, "block of %lld elements in %lld bytes",
                 (long long)a->block_size, (long long)a->block_bytes);
    else if (a->itemsize == 0 && a->bits > 0)
        snprintf(tmp, sizeof tmp, "%d bits per element", (int)a->bits);
    else
        snprintf(tmp, sizeof tmp, "itemsize %lld", (long long)a->itemsize);
    if (a->format_dtype[0])
        snprintf(buf, sizeof buf, "%s (%s %s%s%s, %s, %s)", a->dtype_name, fi->name,
                 fi->dtype_field, fi->dtype_field[0] ? " " : "", a->format_dtype, tmp,
                 byteorder_word(a->byteorder));
    else /* raw TShape files store no dtype */
        snprintf(buf, sizeof buf, "%s", a->dtype_name);
    emit(&e, "dtype", jstr(a->dtype_name), buf);
    emit(&e, "descr", descr ? jstr(descr) : json_null(), NULL);
    emit(&e, "format_dtype", jstr(a->format_dtype), NULL);
    emit(&e, "itemsize", json_integer(a->itemsize), NULL);
    if (a->bits % 8 != 0)
        emit(&e, "bits", json_integer(a->bits), NULL);
    if (a->block_size > 1) {
        emit(&e, "block_size", json_integer(a->block_size), NULL);
        emit(&e, "block_bytes", json_integer(a->block_bytes), NULL);
    }
    char bo[2] = {a->byteorder, '\0'};
    emit(&e, "byteorder", json_string(bo), NULL);

    snprintf(buf, sizeof buf, "%lld", (long long)a->size);
    emit(&e, "size", json_integer(a->size), buf);
    if (a->nbytes >= 0)
        snprintf(buf, sizeof buf, "%lld", (long long)a->nbytes);
    else
        snprintf(buf, sizeof buf, "unknown");
    emit(&e, "nbytes", a->nbytes >= 0 ? json_integer(a->nbytes) : json_null(), buf);

    /* NumPy's relaxed rule on the strides the reader gave or implied. */
    int c = ts_is_c_contiguous(&a->shape, ts_shape_dims(&a->strides), 1);
    int fo = ts_is_f_contiguous(&a->shape, ts_shape_dims(&a->strides), 1);
    snprintf(buf, sizeof buf, "%s (c_contiguous %s, f_contiguous %s)",
             a->fortran_order ? "F" : "C", c ? "true" : "false", fo ? "true" : "false");
    emit(&e, "order", json_string(a->fortran_order ? "F" : "C"), buf);
    emit(&e, "c_contiguous", json_boolean(c), NULL);
    emit(&e, "f_contiguous", json_boolean(fo), NULL);

    int64_t f2[2];
    if (ts_shape_flat2d(&a->shape, f2, NULL) == TS_OK)
        emit(&e, "flat2d", json_dims(f2, 2), dims_text(f2, 2, buf, sizeof buf));
    else
        emit(&e, "flat2d", json_null(), "overflows int64");

    if (a->data_offset >= 0)
        snprintf(buf, sizeof buf, "%lld", (long long)a->data_offset);
    else
        snprintf(buf, sizeof buf, "not addressable");
    emit(&e, "data_offset", a->data_offset >= 0 ? json_integer(a->data_offset) : json_null(),
         buf);

    if (a->storage != TS_STORAGE_DENSE) {
        emit(&e, "storage", json_string(storage_name(a->storage)), storage_name(a->storage));
        emit(&e, "storage_shape",
             json_dims(ts_shape_dims(&a->storage_shape), ts_shape_ndim(&a->storage_shape)),
             dims_text(ts_shape_dims(&a->storage_shape), ts_shape_ndim(&a->storage_shape), buf,
                       sizeof buf));
    }
    emit(&e, "device", a->device ? jstr(a->device) : json_null(), a->device);
    emit(&e, "strides", json_dims(ts_shape_dims(&a->strides), ts_shape_ndim(&a->strides)), NULL);
    if (a->storage_key) {
        snprintf(buf, sizeof buf, "%lld", (long long)a->storage_offset);
        emit(&e, "storage_offset", json_integer(a->storage_offset), buf);
    } else {
        emit(&e, "storage_offset", json_integer(a->storage_offset), NULL);
    }
    emit(&e, "storage_key", a->storage_key ? jstr(a->storage_key) : json_null(), a->storage_key);
    if (a->note)
        emit(&e, "note", jstr(a->note), a->note);

    if (ctx->json) {
        char *text = json_dumps(e.obj, JSON_COMPACT);
        if (text) {
            out_str(text);
            out_char('\n');
            free(text);
        }
        json_decref(e.obj);
    } else {
        out_char('\n');
    }
}

/* Metadata values longer than this are cut in human output (man page,
 * --metadata); JSON always carries them whole. */
#define HUMAN_VALUE_MAX 400

static int write_out(void *user, const char *data, size_t len)
{
    (void)user;
    out_write(data, len);
    return 0;
}

/* Keeps the first HUMAN_VALUE_MAX bytes of a value, then stops it. */
typedef struct head {
    char text[HUMAN_VALUE_MAX + 1];
    size_t n;
    int cut;
} head;

static int keep_head(void *user, const char *data, size_t len)
{
    head *h = user;
    size_t k = len < HUMAN_VALUE_MAX - h->n ? len : HUMAN_VALUE_MAX - h->n;
    memcpy(h->text + h->n, data, k);
    h->n += k;
    h->cut = k < len;
    return h->cut;
}

static int report_metadata(const cli_ctx *ctx, const char *path, const ts_file *f)
{
    size_t n = ts_file_metadata_count(f);
    ts_error err;
    int status = CLI_OK;
    if (ctx->json) {
        /* The library streams each value as JSON text: written verbatim (a
         * jansson round trip would respell 1e-05 and quote big uint64s),
         * never held whole. */
        out_str("{\"file\":");
        out_json_string(path);
        out_str(",\"metadata\":{");
        for (size_t i = 0; i < n; i++) {
            const char *k;
            ts_file_metadata(f, i, &k, NULL); /* the key only: values stream */
            if (i)
                out_char(',');
            out_json_string(k);
            out_char(':');
            if (ts_file_metadata_write(f, i, write_out, NULL, &err) != TS_OK) {
                out_str("null");
                status = cli_error(path, "metadata '%s': %s", k, err.message);
            }
        }
        out_str("}}\n");
        return status;
    }
    char *pp = cli_printable(path);
    out_printf("%s: metadata (%zu entr%s)\n", pp ? pp : "?", n, n == 1 ? "y" : "ies");
    free(pp);
    for (size_t i = 0; i < n; i++) {
        const char *k;
        ts_file_metadata(f, i, &k, NULL);
        head h = {{0}, 0, 0};
        if (ts_file_metadata_write(f, i, keep_head, &h, &err) != TS_OK && !h.cut)
            status = cli_error(path, "metadata '%s': %s", k, err.message);
        /* Cut on a character boundary. Values are JSON text from the
         * library, already escaped. */
        while (h.cut && h.n > 0 && ((unsigned char)h.text[h.n] & 0xc0) == 0x80)
            h.n--;
        h.text[h.n] = '\0';
        char *pk = cli_printable(k);
        if (h.cut)
            out_printf("  %s = %s... (cut at %d bytes; --json shows it whole)\n",
                       pk ? pk : "?", h.text, HUMAN_VALUE_MAX);
        else
            out_printf("  %s = %s\n", pk ? pk : "?", h.text);
        free(pk);
    }
    out_char('\n');
    return status;
}

/* ---- summary ------------------------------------------------------------ */

static void add_total(totals *t, const ts_array *a)
{
    dtype_total *d = NULL;
    for (size_t i = 0; i < t->n_dtypes; i++)
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
    t->arrays++;
    d->arrays++;
    if (__builtin_add_overflow(t->size, a->size, &t->size))
        t->size_overflow = 1;
    d->size += a->size;
    if (a->nbytes < 0) {
        t->nbytes_unknown = 1;
        d->nbytes_unknown = 1;
    } else {
        if (__builtin_add_overflow(t->nbytes, a->nbytes, &t->nbytes))
            t->nbytes_overflow = 1;
        d->nbytes += a->nbytes;
    }
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
        w->cols[i] = src[i] ? strdup(src[i]) : NULL;
}

static void flush_rows(const info_opts *o, rows *r)
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
                out_char(o->tty ? ' ' : '\t');
            out_str(s);
            /* Pad all but the last column on a terminal. */
            if (o->tty && c < 3)
                for (size_t k = strlen(s); k < width[c] + 1; k++)
                    out_char(' ');
            first = 0;
            free(r->v[i].cols[c]);
        }
        out_char('\n');
    }
    free(r->v);
    r->v = NULL;
    r->n = r->cap = 0;
}

static void summary_row(const cli_ctx *ctx, const info_opts *o, rows *r, const char *path,
                        const ts_array *a)
{
    char shape[512];
    if (ctx->json) {
        json_t *obj = json_pack("{s:o,s:o,s:o,s:o}", "file", jstr(path), "name", jstr(a->name),
                                "dtype", jstr(a->dtype_name), "shape",
                                json_dims(ts_shape_dims(&a->shape), ts_shape_ndim(&a->shape)));
        char *text = json_dumps(obj, JSON_COMPACT);
        if (text) {
            out_str(text);
            out_char('\n');
            free(text);
        }
        json_decref(obj);
        return;
    }
    ts_shape_format(&a->shape, 0, shape, sizeof shape);
    char *p = cli_printable(path), *n = cli_printable(a->name[0] ? a->name : "-");
    add_row(r, o->many_files ? p : NULL, n ? n : "?", a->dtype_name, shape);
    free(p);
    free(n);
}

static void summary_total(const cli_ctx *ctx, const totals *t)
{
    if (ctx->json) {
        json_t *by = json_object();
        for (size_t i = 0; i < t->n_dtypes; i++)
            json_object_set_new(by, t->by_dtype[i].name,
                                json_pack("{s:I,s:I,s:I}", "arrays",
                                          (json_int_t)t->by_dtype[i].arrays, "size",
                                          (json_int_t)t->by_dtype[i].size, "nbytes",
                                          (json_int_t)t->by_dtype[i].nbytes));
        json_t *o = json_pack("{s:{s:I,s:I,s:o,s:o}}", "total", "arrays", (json_int_t)t->arrays,
                              "size", (json_int_t)t->size, "nbytes",
                              t->nbytes_unknown ? json_null() : json_integer(t->nbytes),
                              "dtypes", by);
        char *text = json_dumps(o, JSON_COMPACT);
        if (text) {
            out_str(text);
            out_char('\n');
            free(text);
        }
        json_decref(o);
        return;
    }
    out_printf("total: %lld array%s, %lld elements, %lld bytes%s", (long long)t->arrays,
               t->arrays == 1 ? "" : "s", (long long)t->size, (long long)t->nbytes,
               t->nbytes_unknown ? " (+ object arrays of unknown size)" : "");
    for (size_t i = 0; i < t->n_dtypes; i++) {
        const dtype_total *d = &t->by_dtype[i];
        out_printf("%s %s %lld array%s ", i ? ";" : " |", d->name, (long long)d->arrays,
                   d->arrays == 1 ? "" : "s");
        if (d->nbytes_unknown && d->nbytes == 0)
            out_str("of unknown size");
        else
            out_printf("%lld bytes%s", (long long)d->nbytes, d->nbytes_unknown ? " + unknown" : "");
    }
    out_char('\n');
}

/* ---- reading files ------------------------------------------------------ */

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

static int info_file(const cli_ctx *ctx, const info_opts *o, const char *path, totals *t,
                     rows *r)
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
            return cli_error(shown, "cannot read: %s", why);
        st = ts_file_open_memory(mem, len, &o->open, &f, &err);
    } else {
        st = ts_file_open(path, &o->open, &f, &err);
    }
    if (st != TS_OK) {
        free(mem);
        return cli_error(shown, "%s", err.message);
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

static const char info_help[] =
    "Options:\n"
    "  -j, --json           one JSON object per array (JSON Lines)\n"
    "  -f, --format FMT     force the format: npy npz mxnet safetensors gguf\n"
    "                       tshape32 tshape64 (default: detect from magic bytes)\n"
    "      --filter GLOB    only arrays whose name matches GLOB (fnmatch)\n"
    "  -s, --summary        one line per array (name, dtype, shape) and totals\n"
    "  -m, --metadata       show safetensors __metadata__ and GGUF key/values\n"
    "      --max-header N   largest .npy header accepted, in bytes (default 10000)\n"
    "      --stored-order   GGUF: show dims as stored (innermost first)\n"
    "  -h, --help           show this help\n"
    "FILE '-' reads standard input. Only headers are read, never the data.\n";

static int cmd_info(cli_ctx *ctx, int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},
        {"format", required_argument, NULL, 'f'},
        {"filter", required_argument, NULL, 'F'},
        {"summary", no_argument, NULL, 's'},
        {"metadata", no_argument, NULL, 'm'},
        {"max-header", required_argument, NULL, 'M'},
        {"stored-order", no_argument, NULL, 'S'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    info_opts o;
    memset(&o, 0, sizeof o);
    o.open.struct_size = sizeof o.open;
    int c;
    int64_t v;
    ts_error err;
    while ((c = getopt_long(argc, argv, "jf:smh", opts, NULL)) != -1) {
        switch (c) {
        case 'j':
            ctx->json = 1;
            break;
        case 'f':
            if (ts_format_from_name(optarg, &o.open.format, &err) != TS_OK)
                return cli_usage_error(ctx, "%s", err.message);
            break;
        case 'F':
            o.filter = optarg;
            break;
        case 's':
            o.summary = 1;
            break;
        case 'm':
            o.metadata = 1;
            o.open.want_metadata = 1;
            break;
        case 'M':
            if (cli_parse_i64(ctx, optarg, "--max-header", &v))
                return CLI_ERROR;
            if (v <= 0)
                return cli_usage_error(ctx, "--max-header must be positive, not %s", optarg);
            o.open.npy_max_header = (size_t)v;
            break;
        case 'S':
            o.open.gguf_stored_order = 1;
            break;
        case 'h':
            cli_print_command_help(cli_find_command("info"), info_help);
            return CLI_OK;
        default:
            fprintf(stderr, "Try 'tshape info --help'.\n");
            return CLI_ERROR;
        }
    }
    if (optind >= argc)
        return cli_usage_error(ctx, "missing FILE");
    o.many_files = argc - optind > 1;
    o.tty = isatty(STDOUT_FILENO);
    totals t;
    memset(&t, 0, sizeof t);
    rows r = {NULL, 0, 0};
    int status = CLI_OK, opened = 0;
    for (int i = optind; i < argc; i++) {
        if (info_file(ctx, &o, argv[i], &t, &r) != CLI_OK)
            status = CLI_ERROR;
        else
            opened++;
    }
    if (o.summary && opened > 0) { /* no totals of nothing when every file failed */
        flush_rows(&o, &r);
        summary_total(ctx, &t);
    }
    free(t.by_dtype);
    return status;
}

const cli_command cli_cmds_info[] = {
    {"info", cmd_info, "info [OPTIONS] FILE...", "report on each array in each file (headers only)"},
    {NULL, NULL, NULL, NULL},
};
