/*
 * file.c - ts_file: opening a file, detecting its format, and the storage
 * shared by all readers (arrays, strings, metadata).
 *
 * The file is mapped read-only with mmap, so inspecting it costs time in
 * proportion to the headers a reader touches, not to the size of the data
 * (files of at most TS__READ_MAX bytes are read whole instead).
 */
/* madvise and MADV_DONTNEED (beyond _POSIX_C_SOURCE; posix_madvise's
 * DONTNEED does nothing in glibc). */
#define _DEFAULT_SOURCE
#include "reader.h"
#include "../remote/remote.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Strings live in a chain of blocks that never move, so pointers handed out
 * stay valid until ts_file_close. */
typedef struct str_block {
    struct str_block *next;
    size_t used, cap;
    char data[];
} str_block;

typedef struct meta_entry {
    const char *key;
    const char *value;        /* JSON text, or NULL until rendered */
    char *rendered;           /* value of a lazy entry once rendered (malloc) */
    ts__meta_render_fn render; /* lazy entries: writes the JSON text */
    uint64_t at;
    uint32_t kind;
} meta_entry;

/* Temporary allocations of a reader, freed when parsing ends or fails, and
 * when a fault jumps out of the reader (mapguard.c). */
typedef struct scratch {
    struct scratch *prev, *next;
    max_align_t data[];
} scratch;

struct ts_file {
    ts_format format;
    const char *version;
    int64_t nbytes;
    ts__source *src;         /* where the bytes come from */
    const unsigned char *data; /* its image (source.h) */
    size_t len;
    ts_array *arrays;
    size_t count, cap;
    meta_entry *meta;
    size_t meta_count, meta_cap;
    str_block *strings;
    scratch *scratch;        /* a reader's temporaries (ts__scratch_*) */
    ts__data_src *srcs;      /* per array, for data not stored as is
                                (ts__file_set_data_src); NULL when none */
    size_t srcs_cap;
    ts__sides *sides;        /* side files (ONNX external data), or NULL */
    int64_t extent;          /* bytes the headers account for, or -1
                                (ts__file_set_extent) */
    int dims_reversed;       /* GGUF read in NumPy order: ggml's ne reversed */
    ts__alias *aliases;      /* other frameworks' names (ts__file_add_alias) */
    size_t naliases, alias_cap;
    ts_status add_failure;   /* why the last ts__file_add_array failed */
};

/* The reader table (formats.def), in detection order. */
static const ts__reader *const readers[] = {
#define TS_READER(name) &ts__reader_##name,
#include "formats.def"
#undef TS_READER
};
#define N_READERS (sizeof readers / sizeof *readers)

static const ts__reader *reader_for(ts_format f)
{
    for (size_t i = 0; i < N_READERS; i++)
        if (readers[i]->info.format == f)
            return readers[i];
    return NULL;
}

size_t ts_format_count(void)
{
    return N_READERS;
}

const ts_format_info *ts_format_info_at(size_t i)
{
    return i < N_READERS ? &readers[i]->info : NULL;
}

int ts__format_owns_extensions(size_t i)
{
    return i < N_READERS && !readers[i]->probe_required;
}

const ts_format_info *ts_format_info_of(ts_format f)
{
    const ts__reader *r = reader_for(f);
    return r ? &r->info : NULL;
}

const char *ts_format_name(ts_format f)
{
    if (f == TS_FORMAT_AUTO)
        return "auto";
    const ts__reader *r = reader_for(f);
    return r ? r->info.name : "unknown";
}

/* Formats without a signature (protobuf files) say so with a detection
 * text starting "extension": their probe is a structural check, run only
 * when the file name has one of their extensions. */
static int needs_extension(const ts__reader *r)
{
    /* (its first byte first: asked for every reader of every file opened) */
    return r->info.detection && r->info.detection[0] == 'e' &&
           strncmp(r->info.detection, "extension", 9) == 0;
}

/* "a, b, c" from the names of the readers that are auto-detected by their
 * bytes (detected 1), never detected (0), detected by their extension (2),
 * or of all (-1), into buf. */
static const char *name_list(int detected, char *buf, size_t cap)
{
    size_t pos = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < N_READERS && pos < cap; i++) {
        if (detected == 2 && !needs_extension(readers[i]))
            continue;
        if ((detected == 0 || detected == 1) &&
            ((readers[i]->probe != NULL) != detected || needs_extension(readers[i])))
            continue;
        int k = snprintf(buf + pos, cap - pos, "%s%s", pos ? ", " : "", readers[i]->info.name);
        pos += k > 0 ? (size_t)k : 0;
    }
    return buf;
}

/*
 * What an undetected file looks like, for the "unknown file format" message
 * (static text, "" when nothing is recognised): the signatures of tensor
 * formats tshape has no reader for. len >= 8.
 */
static const char *what_it_looks_like(const unsigned char *d, size_t len)
{
    /* HDF5, PyTorch files and pickles that pass their probes never get
     * here. */
    if (len > 262 && memcmp(d + 257, "ustar", 5) == 0)
        return " (it is a tar archive, such as a PyTorch tar-format checkpoint, which "
               "this tshape does not read)";
    if (d[0] == 0x1f && d[1] == 0x8b)
        return " (it is gzip-compressed: decompress it first)";
    /* Protocol buffers start with a field key: field number 1..15, wire type
     * 0 (varint) or 2 (length-delimited). ONNX models start with ir_version
     * (0x08 n), Caffe nets with their name (0x0a n text) or a blob (0x08). */
    if ((d[0] == 0x08 && d[1] < 0x80) || (d[0] == 0x0a && d[1] < 0x80 && d[1] > 0))
        return " (its first bytes look like a protocol buffer: an ONNX model or a Caffe "
               "or Caffe2 file, which are recognised by their extension .onnx, "
               ".caffemodel, .binaryproto or .pb; or use --format onnx, caffe or caffe2)";
    /* Pickles of protocols 0 and 1 have no PROTO: a MARK and a dict or list
     * (protocol 0), an empty dict or list and BINPUT or MARK (1). */
    if ((d[0] == '(' && (d[1] == 'd' || d[1] == 'l')) ||
        ((d[0] == '}' || d[0] == ']') && (d[1] == 'q' || d[1] == '(')))
        return " (it looks like a pickle of protocol 0 or 1, which has no signature: "
               "--format pickle reads it)";
    if (d[0] == 0x78 && ((unsigned)d[0] << 8 | d[1]) % 31 == 0)
        return " (it looks like a zlib stream, such as a compressed joblib dump: decompress "
               "it first; tshape scan reads it as it is)";
    return "";
}

ts_status ts_format_from_name(const char *name, ts_format *out, ts_error *err)
{
    TS__ARG_NONNULL(err, name);
    TS__ARG_NONNULL(err, out);
    if (strcmp(name, "auto") == 0) {
        *out = TS_FORMAT_AUTO;
        return TS_OK;
    }
    for (size_t i = 0; i < N_READERS; i++)
        if (strcmp(name, readers[i]->info.name) == 0) {
            *out = readers[i]->info.format;
            return TS_OK;
        }
    char list[512];
    return ts__error(err, TS_ERR_INVALID_ARG, "unknown format '%s' (expected one of auto, %s)",
                     name, name_list(-1, list, sizeof list));
}

/* The first reader detected by its bytes, or TS_FORMAT_AUTO. */
static ts_format detect(const unsigned char *p, size_t len, ts__source *src)
{
    for (size_t i = 0; i < N_READERS; i++)
        if (readers[i]->probe && !needs_extension(readers[i]) &&
            readers[i]->probe(p, len, src))
            return readers[i]->info.format;
    return TS_FORMAT_AUTO;
}

ts_format ts_format_detect(const void *data, size_t len)
{
    return data ? detect(data, len, NULL) : TS_FORMAT_AUTO;
}

/* 1 when `path` ends with one of the space-separated extensions. */
static int has_extension(const char *path, const char *exts)
{
    size_t plen = strlen(path);
    while (*exts) {
        while (*exts == ' ')
            exts++;
        size_t n = strcspn(exts, " ");
        if (n && plen > n && strncasecmp(path + plen - n, exts, n) == 0)
            return 1;
        exts += n;
    }
    return 0;
}

/* Detection for the formats without a signature: the first reader whose
 * extension matches and whose structural probe accepts the bytes; else the
 * first whose extension matches (its reader then says what is wrong), else
 * TS_FORMAT_AUTO. */
static ts_format detect_by_extension(const unsigned char *data, size_t len, const char *path,
                                     ts__source *src)
{
    ts_format first = TS_FORMAT_AUTO;
    for (size_t i = 0; i < N_READERS; i++) {
        const ts__reader *r = readers[i];
        if (!needs_extension(r) || !has_extension(path, r->info.extensions))
            continue;
        if (r->probe && r->probe(data, len, src))
            return r->info.format;
        if (first == TS_FORMAT_AUTO && !r->probe_required)
            first = r->info.format;
    }
    return first;
}

/* The memory a file's array records may take: 4 bytes for each byte of the
 * file plus this much. A record (ts_array) is about 300 bytes whatever the
 * format spends on it, so a file of tiny records (2^20 empty MXNet arrays
 * in 4 MB) would otherwise cost 75 times its size; files that hold data,
 * or records of realistic names, never come near it. */
#define ARRAY_MEMORY_BASE ((size_t)16 << 20)

ts_array *ts__file_add_array(ts_file *f, ts_error *err)
{
    if (f->count >= TS__MAX_ARRAYS) {
        f->add_failure = ts__error(err, TS_ERR_LIMIT,
                                   "more than %zu arrays in one file (tshape's limit per "
                                   "file, see LIMITS in tshape(1))", TS__MAX_ARRAYS);
        return NULL;
    }
    size_t need = (f->count + 1) * sizeof *f->arrays;
    if (need > ARRAY_MEMORY_BASE && (need - ARRAY_MEMORY_BASE) / 4 > f->len) {
        f->add_failure = ts__error(err, TS_ERR_LIMIT,
                  "%zu arrays in a file of %zu bytes: their records would take more than 4 "
                  "bytes per byte of the file + 16 MiB (%zu bytes each; see LIMITS in "
                  "tshape(1))", f->count + 1, f->len, sizeof *f->arrays);
        return NULL;
    }
    if (f->count == f->cap) {
        /* From 1 (a .npy, the file of one array, wastes no record; a
         * folder of 1,000 small files touches that many fewer pages),
         * doubling; never past the memory bound above. */
        size_t cap = f->cap ? f->cap * 2 : 1;
        size_t most = (4 * (f->len < SIZE_MAX / 8 ? f->len : SIZE_MAX / 8) + ARRAY_MEMORY_BASE) /
                          sizeof *f->arrays + 1;
        if (cap > most)
            cap = most > f->count ? most : f->count + 1;
        ts_array *p = realloc(f->arrays, cap * sizeof *p);
        if (!p) {
            f->add_failure = ts__error(err, TS_ERR_NOMEM, "out of memory for %zu arrays", cap);
            return NULL;
        }
        f->arrays = p;
        f->cap = cap;
    }
    ts_array *a = &f->arrays[f->count++];
    memset(a, 0, sizeof *a);
    a->name = "";
    ts_shape_init(&a->shape);
    ts_shape_init(&a->storage_shape);
    a->dtype = TS_DTYPE_UNKNOWN;
    a->dequantized_dtype = TS_DTYPE_UNKNOWN;
    a->dtype_name = "unknown";
    a->format_dtype = "";
    a->byteorder = '|';
    a->block_size = 1;
    a->data_offset = -1;
    a->storage = TS_STORAGE_DENSE;
    ts_shape_init(&a->strides);
    return a;
}

ts_status ts__file_add_failure(const ts_file *f)
{
    return f->add_failure ? f->add_failure : TS_ERR_NOMEM;
}

ts_array *ts__file_array_mut(ts_file *f, size_t i)
{
    return i < f->count ? &f->arrays[i] : NULL;
}

static scratch *scratch_of(void *p)
{
    return (scratch *)(void *)((char *)p - offsetof(scratch, data));
}

static void scratch_link(ts_file *f, scratch *s)
{
    s->prev = NULL;
    s->next = f->scratch;
    if (f->scratch)
        f->scratch->prev = s;
    f->scratch = s;
}

static void scratch_unlink(ts_file *f, scratch *s)
{
    if (s->prev)
        s->prev->next = s->next;
    else
        f->scratch = s->next;
    if (s->next)
        s->next->prev = s->prev;
}

void *ts__scratch_alloc(ts_file *f, size_t n, ts_error *err)
{
    return ts__scratch_realloc(f, NULL, n, err);
}

void *ts__scratch_realloc(ts_file *f, void *p, size_t n, ts_error *err)
{
    scratch *old = p ? scratch_of(p) : NULL;
    if (n > SIZE_MAX - sizeof(scratch)) {
        ts__error(err, TS_ERR_NOMEM, "out of memory for %zu bytes", n);
        return NULL;
    }
    if (old)
        scratch_unlink(f, old); /* realloc may move it */
    scratch *s = realloc(old, sizeof *s + (n ? n : 1));
    if (!s) {
        if (old)
            scratch_link(f, old); /* p stays valid, and ours */
        ts__error(err, TS_ERR_NOMEM, "out of memory for %zu bytes", n);
        return NULL;
    }
    scratch_link(f, s);
    return s->data;
}

void ts__scratch_free(ts_file *f, void *p)
{
    if (!p)
        return;
    scratch *s = scratch_of(p);
    scratch_unlink(f, s);
    free(s);
}

static void scratch_free_all(ts_file *f)
{
    while (f->scratch) {
        scratch *next = f->scratch->next;
        free(f->scratch);
        f->scratch = next;
    }
}

static char *arena_alloc(ts_file *f, size_t n, ts_error *err)
{
    str_block *b = f->strings;
    if (!b || b->cap - b->used < n) {
        /* Blocks grow from 64 bytes (a small file's one or two names: a
         * folder of small files keeps one each) to 64 KiB. */
        size_t want = !b ? 64 : b->cap >= 32768 ? 65536 : 2 * b->cap;
        size_t cap = n > want ? n : want;
        b = malloc(sizeof *b + cap);
        if (!b) {
            ts__error(err, TS_ERR_NOMEM, "out of memory for a %zu-byte string", n);
            return NULL;
        }
        b->used = 0;
        b->cap = cap;
        b->next = f->strings;
        f->strings = b;
    }
    char *p = b->data + b->used;
    b->used += n;
    return p;
}

char *ts__file_stralloc(ts_file *f, size_t n, ts_error *err)
{
    return arena_alloc(f, n, err);
}

const char *ts__file_strndup(ts_file *f, const char *s, size_t n, ts_error *err)
{
    char *p = arena_alloc(f, n + 1, err);
    if (!p)
        return NULL;
    if (n)
        memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

const char *ts__file_printf(ts_file *f, ts_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        ts__error(err, TS_ERR_INVALID_ARG, "bad format string");
        return NULL;
    }
    char *p = arena_alloc(f, (size_t)n + 1, err);
    if (!p)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

void ts__file_set_version(ts_file *f, const char *version)
{
    f->version = version;
}

void ts__file_set_extent(ts_file *f, int64_t end)
{
    f->extent = end;
}

int64_t ts__file_extent(const ts_file *f)
{
    return f->extent;
}

static meta_entry *add_meta(ts_file *f, const char *key, size_t key_len, ts_error *err)
{
    if (f->meta_count == f->meta_cap) {
        size_t cap = f->meta_cap ? f->meta_cap * 2 : 8;
        meta_entry *p = realloc(f->meta, cap * sizeof *p);
        if (!p) {
            ts__error(err, TS_ERR_NOMEM, "out of memory for metadata");
            return NULL;
        }
        f->meta = p;
        f->meta_cap = cap;
    }
    const char *k = ts__file_strndup(f, key, key_len, err);
    if (!k)
        return NULL;
    meta_entry *m = &f->meta[f->meta_count++];
    memset(m, 0, sizeof *m);
    m->key = k;
    return m;
}

ts_status ts__file_add_metadata(ts_file *f, const char *key, size_t key_len,
                                const char *json_value, size_t value_len,
                                ts_error *err)
{
    meta_entry *m = add_meta(f, key, key_len, err);
    if (m && !(m->value = ts__file_strndup(f, json_value, value_len, err)))
        f->meta_count--;
    return m && m->value ? TS_OK : TS_ERR_NOMEM;
}

ts_status ts__file_add_lazy_metadata(ts_file *f, const char *key, size_t key_len,
                                     ts__meta_render_fn render, uint64_t at, uint32_t kind,
                                     ts_error *err)
{
    meta_entry *m = add_meta(f, key, key_len, err);
    if (!m)
        return TS_ERR_NOMEM;
    m->render = render;
    m->at = at;
    m->kind = kind;
    return TS_OK;
}

void ts__array_set_dtype(ts_array *a, ts_dtype dt)
{
    a->dtype = dt;
    a->dtype_name = ts_dtype_name(dt);
    a->bits = ts_dtype_bits(dt);
    a->itemsize = a->bits % 8 == 0 ? a->bits / 8 : 0;
    a->block_size = 1;
    a->block_bytes = a->itemsize;
}

ts_status ts__array_compute_sizes(ts_array *a, ts_error *err)
{
    ts_status st = ts_shape_size(&a->shape, &a->size, err);
    if (st)
        return st;
    int64_t nbytes;
    if (a->block_size > 1) {
        if (a->size % a->block_size != 0)
            return ts__error(err, TS_ERR_FORMAT,
                             "%lld elements are not a whole number of %lld-element blocks",
                             (long long)a->size, (long long)a->block_size);
        if (ts__mul_overflow(a->size / a->block_size, a->block_bytes, &nbytes))
            goto overflow;
    } else if (a->itemsize == 0 && a->bits > 0) {
        /* Sub-byte types (float4, float6): bits, rounded up to bytes. */
        int64_t bits;
        if (ts__mul_overflow(a->size, a->bits, &bits))
            goto overflow;
        nbytes = bits / 8 + (bits % 8 != 0);
    } else if (ts__mul_overflow(a->size, a->itemsize, &nbytes)) {
        goto overflow;
    }
    a->nbytes = nbytes;
    return TS_OK;
overflow: {
        char buf[TS__SHAPE_STR_MAX];
        return ts__error(err, TS_ERR_OVERFLOW,
                         "byte size of shape %s x %s does not fit in int64",
                         ts__shape_str(&a->shape, buf, sizeof buf), a->dtype_name);
    }
}

/*
 * Fills what every array must report and its reader may leave unset: the
 * NumPy descr derived from the dtype, and the strides of a dense array in C
 * or F order. So the report needs no per-format branch.
 */
static ts_status fill_defaults(ts_file *f, ts_error *err)
{
    const char *last = NULL; /* arrays of one dtype share its descr string */
    for (size_t i = 0; i < f->count; i++) {
        ts_array *a = &f->arrays[i];
        char descr[32];
        if (!a->descr && ts_descr_format(a->dtype, a->byteorder, descr, sizeof descr) > 0) {
            if (last && strcmp(last, descr) == 0)
                a->descr = last;
            else if (!(a->descr = last = ts__file_strndup(f, descr, strlen(descr), err)))
                return TS_ERR_NOMEM;
        }
        int ndim = ts_shape_ndim(&a->shape);
        if (ts_shape_ndim(&a->strides) == ndim && ndim > 0)
            continue; /* the reader gave them */
        ts_status st = ts_shape_resize(&a->strides, ndim, err);
        if (st)
            return st;
        if (ndim > 0 && a->size >= 0 &&
            ts_strides(&a->shape, 1, a->fortran_order ? 'F' : 'C',
                       ts_shape_dims_mut(&a->strides), NULL) != TS_OK)
            memset(ts_shape_dims_mut(&a->strides), 0, (size_t)ndim * sizeof(int64_t));
    }
    return TS_OK;
}

/* Size of the first version of ts_open_options (up to want_metadata): the
 * smallest struct_size accepted. It never changes when fields are appended. */
#define OPTIONS_V1_SIZE (offsetof(ts_open_options, want_metadata) + sizeof(int))

/*
 * Copies the caller's options (NULL: defaults) into *o, a full struct of this
 * version, by the rule documented at ts_open_options: fields beyond
 * struct_size default to 0; bytes beyond what this version knows must be 0.
 */
static ts_status read_options(const ts_open_options *opts, ts_open_options *o,
                              const char *fn, ts_error *err)
{
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    if (!opts)
        return TS_OK;
    ts_status st = ts__read_struct(err, fn, "opts", "options", opts, OPTIONS_V1_SIZE, o,
                                   sizeof *o, "TS_OPEN_OPTIONS_INIT", "ts_open_options");
    if (st)
        return st;
    if (o->format != TS_FORMAT_AUTO && !reader_for(o->format))
        return ts__bad_arg(err, fn, "opts->format %d is not a ts_format with a reader",
                           (int)o->format);
    if (o->gguf_stored_order != 0 && o->gguf_stored_order != 1)
        return ts__bad_arg(err, fn, "opts->gguf_stored_order is %d, not 0 or 1",
                           o->gguf_stored_order);
    if (o->want_metadata != 0 && o->want_metadata != 1)
        return ts__bad_arg(err, fn, "opts->want_metadata is %d, not 0 or 1", o->want_metadata);
    if (o->want_activations != 0 && o->want_activations != 1)
        return ts__bad_arg(err, fn, "opts->want_activations is %d, not 0 or 1",
                           o->want_activations);
    if (o->io != TS_IO_AUTO && o->io != TS_IO_MAP && o->io != TS_IO_PREAD)
        return ts__bad_arg(err, fn, "opts->io is %d, not a ts_io_mode", (int)o->io);
    return TS_OK;
}

/* `opts` has passed read_options; f->src is set. */
static ts_status parse_image(ts_file *f, const ts_open_options *opts, ts_error *err)
{
    const unsigned char *data = f->data;
    size_t len = f->len;
    ts_status st;
    ts_format fmt = opts->format;
    if ((st = ts__source_need(f->src, 0, TS__HEAD_MIN, err)))
        return st;
    if (fmt == TS_FORMAT_AUTO) {
        fmt = detect(data, len, f->src);
        if (fmt == TS_FORMAT_AUTO && opts->path)
            fmt = detect_by_extension(data, len, opts->path, f->src);
        if (fmt == TS_FORMAT_AUTO && (st = ts__source_error(f->src, err)))
            return st;
        if (fmt == TS_FORMAT_AUTO) {
            if (len < 8)
                return ts__fail(err, TS_ERR_FORMAT, 0, 0,
                                "file is %zu bytes long, too short for any known "
                                "tensor format", len);
            char yes[512], no[256], ext[256];
            return ts__fail(err, TS_ERR_FORMAT, 0, 0,
                            "unknown file format%s: the first bytes match none of %s "
                            "(formats without a signature need --format: %s; or their "
                            "extension: %s)",
                            what_it_looks_like(data, len), name_list(1, yes, sizeof yes),
                            name_list(0, no, sizeof no), name_list(2, ext, sizeof ext));
        }
    }
    const ts__reader *r = reader_for(fmt);
    if (!r)
        return ts__error(err, TS_ERR_INVALID_ARG,
                         "opts->format %d is not a ts_format with a reader", (int)fmt);
    f->format = fmt;
    f->dims_reversed = fmt == TS_FORMAT_GGUF && !opts->gguf_stored_order;
    if (ts__test_sparse == 2)
        ts__source_strict(f->src);
    st = r->read(f, data, len, opts, err);
    scratch_free_all(f);
    return st ? st : fill_defaults(f, err);
}

typedef struct parse_job {
    ts_file *f;
    const ts_open_options *opts;
} parse_job;

static ts_status run_parse(void *arg, ts_error *err)
{
    parse_job *j = arg;
    return parse_image(j->f, j->opts, err);
}

void (*ts__test_after_map)(void);
int ts__test_sparse;
volatile int ts__unfetched_faults;

static ts_file *file_new(ts_error *err)
{
    ts_file *f = calloc(1, sizeof *f);
    if (!f)
        ts__error(err, TS_ERR_NOMEM, "out of memory");
    else {
        f->version = "";
        f->extent = -1;
    }
    return f;
}

/*
 * Runs fn(arg, err) over f's image: under the guard that turns a fault on
 * the image (a mapped file that shrank, a sparse image's byte nobody asked
 * for) into an error, when the image can fault.
 */
ts_status ts__file_guard(const ts_file *f, ts__parse_fn fn, void *arg, ts_error *err)
{
    const void *lo, *hi;
    ts__source_sparse_range(f->src, &lo, &hi);
    if (lo)
        return ts__guarded_sparse(lo, hi, fn, arg, err);
    if (ts__source_is_mapped(f->src))
        return ts__guarded_parse(f->data, f->len, fn, arg, err);
    return fn(arg, err);
}

/* A ts_file over source src (taken over, also on failure) that no reader
 * parses. */
static ts_status file_of_source(ts__source *src, ts_file **out, ts_error *err)
{
    ts_file *f = file_new(err);
    if (!f) {
        ts__source_close(src);
        return TS_ERR_NOMEM;
    }
    f->src = src;
    uint64_t size;
    f->data = ts__source_image(src, &size);
    f->len = (size_t)size;
    f->nbytes = (int64_t)size;
    *out = f;
    return TS_OK;
}

/* Parses the file of source src (which f takes over, also on failure). */
static ts_status open_source(ts__source *src, ts_open_options *o, ts_file **out,
                             ts_error *err)
{
    ts_file *f;
    ts_status st = file_of_source(src, &f, err);
    if (st)
        return st;
    if (ts__test_after_map)
        ts__test_after_map();
    parse_job job = {f, o};
    st = ts__file_guard(f, run_parse, &job, err);
    if (st) {
        ts_file_close(f);
        return st;
    }
    *out = f;
    return TS_OK;
}

ts_status ts_file_open_memory(const void *data, size_t len, const ts_open_options *opts,
                              ts_file **out, ts_error *err)
{
    TS__ARG_NONNULL(err, out);
    *out = NULL;
    TS__ARG_ARRAY(err, data, len);
    ts_open_options o;
    ts_status st = read_options(opts, &o, __func__, err);
    if (st)
        return st;
    ts__ok(err);
    ts__source *src;
    if ((st = ts__source_open_memory(data, len, &src, err)))
        return st;
    return open_source(src, &o, out, err);
}

ts_status ts__file_open_memory_sparse(const void *data, size_t len,
                                      const ts_open_options *opts, ts_file **out,
                                      ts_error *err)
{
    *out = NULL;
    ts_open_options o;
    ts_status st = read_options(opts, &o, __func__, err);
    if (st)
        return st;
    ts__source *src;
    if ((st = ts__source_open_memory_sparse(data, len, &src, err)))
        return st;
    return open_source(src, &o, out, err);
}

/* The local path of ts_file_open, or of a member a folder's listing found
 * to be a regular file (listed: no fstat for a small file, opened from
 * the folder's descriptor when dir is not NULL). */
static ts_status open_local(const char *path, ts__local_mode mode, ts__dir_fd *dir,
                            ts__source **src, ts_error *err)
{
    if (!dir)
        return ts__source_open_path(path, mode, src, err);
    if (mode == TS__LOCAL_AUTO)
        mode = (ts__local_mode)(mode | TS__LOCAL_LISTED);
    const char *name;
    int fd = ts__dir_at(dir, path, &name);
    return ts__source_open_at(fd, name, mode, src, err);
}

/* ts_file_open, and (listed) ts__file_open_listed. */
/* path + ".index", malloc'ed, or NULL. */
static char *with_index(const char *path)
{
    size_t n = strlen(path);
    char *s = malloc(n + 7);
    if (s) {
        memcpy(s, path, n);
        memcpy(s + n, ".index", 7);
    }
    return s;
}

/* (bytes: a listed small file's, read whole by a batch, or NULL) */
static ts_status open_path(const char *path, const ts_open_options *opts, ts__dir_fd *listed,
                           const ts__read_bytes *bytes, ts_file **out, ts_error *err)
{
    *out = NULL;
    ts_open_options o;
    ts_status st = read_options(opts, &o, "ts_file_open", err);
    if (st)
        return st;
    ts__ok(err);
    ts__source *src;
    char *index = NULL; /* a TensorFlow checkpoint prefix's PREFIX.index */
    if (ts__is_url(path)) {
        if ((st = ts__remote_open(path, &o, &src, err))) {
            /* a checkpoint prefix: one more request, only after a 404 */
            if (!ts__remote_missing(err) || !(index = with_index(path)))
                return st;
            ts_error again;
            if (ts__remote_open(index, &o, &src, &again)) {
                free(index);
                return st; /* the prefix's own error */
            }
            ts__ok(err);
            path = index;
        }
    } else {
        ts__local_mode mode = ts__test_sparse || o.io == TS_IO_PREAD ? TS__LOCAL_SPARSE
                              : ts__test_after_map || o.io == TS_IO_MAP ? TS__LOCAL_MAP
                                                                        : TS__LOCAL_AUTO;
        /* (read whole as AUTO would have read it) */
        st = bytes && mode == TS__LOCAL_AUTO ? ts__source_of_read(bytes->data, bytes->len, &src, err)
                                            : open_local(path, mode, listed, &src, err);
        /* a checkpoint prefix: PREFIX.index, asked only when PREFIX is not
         * there (a listed member always is) */
        if (st && !listed && (index = ts__tf_prefix_index(path))) {
            ts_error again;
            if (open_local(index, mode, NULL, &src, &again)) {
                free(index);
                return st; /* the prefix's own error */
            }
            ts__ok(err);
            path = index;
        } else if (st) {
            return st;
        }
    }
    /* Readers may need the file's name (side files, extension): pass it.
     * (They copy what they keep of it.) */
    if (!o.path || index)
        o.path = path;
    st = open_source(src, &o, out, err);
    free(index);
    return st;
}

char *ts__tf_prefix_index(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) == 0 || errno != ENOENT)
        return NULL;
    char *index = with_index(path);
    if (index && (stat(index, &sb) != 0 || !S_ISREG(sb.st_mode))) {
        free(index);
        index = NULL;
    }
    return index;
}

ts_status ts_file_open(const char *path, const ts_open_options *opts, ts_file **out,
                       ts_error *err)
{
    TS__ARG_NONNULL(err, out);
    *out = NULL;
    TS__ARG_NONNULL(err, path);
    return open_path(path, opts, NULL, NULL, out, err);
}

ts_status ts__file_open_listed(ts__dir_fd *dir, const char *path, const ts_open_options *opts,
                               const ts__read_bytes *bytes, ts_file **out, ts_error *err)
{
    return open_path(path, opts, dir, bytes, out, err);
}

/* ts__file_open_image, and (listed) ts__file_open_image_listed. */
static ts_status open_image(ts__dir_fd *listed, const char *path, const ts_open_options *opts,
                            ts_file **out, ts_error *err)
{
    *out = NULL;
    ts__source *src;
    /* a URL: range requests, the bytes asked for (ts__file_need) */
    if (ts__is_url(path)) {
        ts_status st = ts__remote_open(path, opts, &src, err);
        return st ? st : file_of_source(src, out, err);
    }
    /* a small file is read whole (AUTO), a larger one mapped */
    ts_status st = open_local(path, TS__LOCAL_AUTO, listed, &src, err);
    if (!st && !ts__source_is_whole(src)) {
        ts__source_close(src);
        st = ts__source_open_path(path, TS__LOCAL_MAP, &src, err);
    }
    return st ? st : file_of_source(src, out, err);
}

ts_status ts__file_open_image(const char *path, const ts_open_options *opts, ts_file **out,
                              ts_error *err)
{
    return open_image(NULL, path, opts, out, err);
}

ts_status ts__file_open_image_listed(ts__dir_fd *dir, const char *path, ts_file **out,
                                     ts_error *err)
{
    return open_image(dir, path, NULL, out, err);
}

ts_status ts__file_of_read(const void *data, size_t len, ts_file **out, ts_error *err)
{
    *out = NULL;
    ts__source *src;
    ts_status st = ts__source_of_read(data, len, &src, err);
    return st ? st : file_of_source(src, out, err);
}

ts_status ts__file_of_memory(const void *data, size_t len, ts_file **out, ts_error *err)
{
    static const unsigned char empty[1];
    *out = NULL;
    ts__source *src;
    ts_status st = ts__source_open_memory(data ? data : empty, len, &src, err);
    return st ? st : file_of_source(src, out, err);
}

void ts_file_close(ts_file *f)
{
    if (!f)
        return;
    /* the shapes' storage (not ts_shape_free, which also resets each
     * shape: the records go next) */
    for (size_t i = 0; i < f->count; i++) {
        free(f->arrays[i].shape.heap);
        free(f->arrays[i].storage_shape.heap);
        free(f->arrays[i].strides.heap);
    }
    scratch_free_all(f);
    ts__sides_free(f->sides);
    for (size_t i = 0; i < f->meta_count; i++)
        free(f->meta[i].rendered);
    free(f->arrays);
    free(f->aliases);
    free(f->srcs);
    free(f->meta);
    while (f->strings) {
        str_block *next = f->strings->next;
        free(f->strings);
        f->strings = next;
    }
    ts__source_close(f->src);
    free(f);
}

/* The accessors answer 0 or NULL for a NULL file (tshape.h). */
ts_format ts_file_format(const ts_file *f) { return f ? f->format : TS_FORMAT_AUTO; }
const char *ts_file_version(const ts_file *f) { return f ? f->version : NULL; }
int64_t ts_file_nbytes(const ts_file *f) { return f ? f->nbytes : 0; }
size_t ts_file_count(const ts_file *f) { return f ? f->count : 0; }

const ts_array *ts_file_array(const ts_file *f, size_t i)
{
    return f && i < f->count ? &f->arrays[i] : NULL;
}

size_t ts_file_metadata_count(const ts_file *f) { return f ? f->meta_count : 0; }

typedef struct render_job {
    const ts_file *f;
    const meta_entry *m;
    ts__sink *out;
} render_job;

static ts_status run_render(void *arg, ts_error *err)
{
    render_job *j = arg;
    ts_status st = j->m->render(j->f->data, j->f->len, j->m->at, j->m->kind, j->f->src,
                                j->out, err);
    return st ? st : ts__sink_flush(j->out, err);
}

/* Renders a lazy entry into out, under the SIGBUS guard when mapped: the
 * file may have shrunk since it was opened. */
static ts_status render(const ts_file *f, const meta_entry *m, ts__sink *out, ts_error *err)
{
    render_job job = {f, m, out};
    return ts__file_guard(f, run_render, &job, err);
}

int ts_file_metadata(const ts_file *f, size_t i, const char **key, const char **json_value)
{
    if (!f || !key || i >= f->meta_count)
        return 0;
    meta_entry *m = &f->meta[i];
    *key = m->key;
    if (!json_value)
        return 1; /* the key alone: nothing to render */
    if (!m->value) {
        /* First call: measure, then render into the file's own storage. */
        ts__sink count = {NULL, 0, 0, 0, NULL, NULL};
        char *text = NULL;
        if (render(f, m, &count, NULL) == TS_OK &&
            count.total < SIZE_MAX && (text = malloc(count.total + 1)) != NULL) {
            ts__sink fill = {text, 0, count.total, 0, NULL, NULL};
            if (render(f, m, &fill, NULL) == TS_OK) {
                text[fill.n] = '\0';
                m->value = m->rendered = text;
            } else {
                free(text);
            }
        }
    }
    *json_value = m->value;
    return 1;
}

ts_status ts_file_metadata_write(const ts_file *f, size_t i, ts_write_fn write, void *user,
                                 ts_error *err)
{
    TS__ARG_NONNULL(err, f);
    TS__ARG_NONNULL(err, write);
    ts__ok(err);
    if (i >= f->meta_count)
        return ts__error(err, TS_ERR_INVALID_ARG, "no metadata entry %zu (the file has %zu)", i,
                         f->meta_count);
    const meta_entry *m = &f->meta[i];
    char buf[16384];
    ts__sink out = {buf, 0, sizeof buf, 0, write, user};
    if (m->value)
        return ts__sink_add(&out, m->value, strlen(m->value), err) ||
                       ts__sink_flush(&out, err)
                   ? (err ? err->code : TS_ERR_IO) : TS_OK;
    return render(f, m, &out, err);
}

void ts__file_release(ts_file *f, size_t offset, size_t len)
{
    ts__source_release(f->src, offset, len);
}

const unsigned char *ts__file_image(const ts_file *f, size_t *len)
{
    *len = f->len;
    return f->data;
}

int ts__file_is_mapped(const ts_file *f)
{
    return ts__source_is_mapped(f->src);
}

void ts_file_io_stats(const ts_file *f, uint64_t *requests, uint64_t *bytes)
{
    ts__source_stats st = {0, 0};
    if (f)
        st = ts__source_get_stats(f->src);
    if (requests)
        *requests = st.requests;
    if (bytes)
        *bytes = st.bytes;
}

ts__source *ts__file_source(const ts_file *f)
{
    return f->src;
}

ts_status ts__file_need(ts_file *f, uint64_t off, uint64_t len, ts_error *err)
{
    return ts__source_need(f->src, off, len, err);
}

ts_status ts__file_set_data_src(ts_file *f, const ts_array *a, const ts__data_src *src,
                                ts_error *err)
{
    size_t i = (size_t)(a - f->arrays);
    if (i >= f->count)
        return ts__error(err, TS_ERR_INVALID_ARG, "array is not one of the file's");
    if (i >= f->srcs_cap) {
        size_t cap = f->count > 8 ? f->count * 2 : 8;
        ts__data_src *p = realloc(f->srcs, cap * sizeof *p);
        if (!p)
            return ts__error(err, TS_ERR_NOMEM, "out of memory for %zu data sources", cap);
        memset(p + f->srcs_cap, 0, (cap - f->srcs_cap) * sizeof *p);
        f->srcs = p;
        f->srcs_cap = cap;
    }
    f->srcs[i] = *src;
    return TS_OK;
}

const ts__data_src *ts__file_data_src(const ts_file *f, const ts_array *a)
{
    size_t i = (size_t)(a - f->arrays);
    if (i >= f->count || i >= f->srcs_cap ||
        (f->srcs[i].kind == TS__SRC_STORED && f->srcs[i].storage_nbytes == 0 &&
         !f->srcs[i].has_storage && !f->srcs[i].side))
        return NULL;
    return &f->srcs[i];
}

ts__sides *ts__file_sides(const ts_file *f)
{
    return f->sides;
}

void ts__file_set_sides(ts_file *f, ts__sides *s)
{
    f->sides = s;
}

ts_status ts_array_ggml_ne(const ts_file *f, const ts_array *a, int64_t ne[4], int *n,
                           ts_error *err)
{
    TS__ARG_NONNULL(err, f);
    TS__ARG_NONNULL(err, a);
    TS__ARG_NONNULL(err, ne);
    TS__ARG_NONNULL(err, n);
    if (f->format != TS_FORMAT_GGUF)
        return ts__bad_arg(err, __func__, "f is a %s file, not GGUF", ts_format_name(f->format));
    if (a < f->arrays || a >= f->arrays + f->count)
        return ts__bad_arg(err, __func__, "a is not an array of f");
    int nd = ts_shape_ndim(&a->shape);
    const int64_t *d = ts_shape_dims(&a->shape);
    if (nd > 4) /* the reader refuses more (GGML_MAX_DIMS) */
        return ts__bad_arg(err, __func__, "a has %d dims", nd);
    for (int i = 0; i < nd; i++)
        ne[i] = f->dims_reversed ? d[nd - 1 - i] : d[i];
    *n = nd;
    ts__ok(err);
    return TS_OK;
}

ts_status ts__file_add_alias(ts_file *f, const ts__alias *a, ts_error *err)
{
    ts__alias *p = ts__grow(f->aliases, &f->alias_cap, f->naliases, sizeof *p, 16, err);
    if (!p)
        return TS_ERR_NOMEM;
    f->aliases = p;
    f->aliases[f->naliases++] = *a;
    return TS_OK;
}

size_t ts__file_alias_count(const ts_file *f)
{
    return f ? f->naliases : 0;
}

const ts__alias *ts__file_alias_at(const ts_file *f, size_t i)
{
    return f && i < f->naliases ? &f->aliases[i] : NULL;
}
