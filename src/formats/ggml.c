/*
 * ggml.c - reader for llama.cpp's files from before GGUF (March to August
 * 2023): magic 'ggml' (unversioned), 'ggmf' v1, 'ggjt' v1..v3, and the
 * 'ggla' LoRA adapters of that time. Layout as llama.cpp's loader read it
 * (llama_file_loader in llama.cpp of July 2023, and the
 * convert-llama-ggml-to-gguf.py script that reads them):
 *
 *   u32 magic (little-endian: the bytes "lmgg", "fmgg", "tjgg", "algg")
 *   u32 version                       (not in 'ggml' files)
 *   model files: u32 n_vocab, n_embd, n_mult, n_head, n_layer, n_rot, ftype
 *                n_vocab times: u32 length, the token's bytes, and (not in
 *                'ggml' files) its f32 score
 *   'ggla':      u32 r, alpha
 *   then tensors to the end of the file:
 *     u32 n_dims, name_len, type; u32 ne[n_dims] (innermost first); name;
 *     'ggjt' and 'ggla': zeros to the next multiple of 32 bytes of the file;
 *     the data: ne[0] * ... elements of the type.
 *
 * Types are ggml's codes of that time (0 F32, 1 F16, 2 Q4_0, 3 Q4_1, 4 Q4_2,
 * 5 Q4_3, 6 Q5_0, 7 Q5_1, 8 Q8_0, 9 Q8_1, 10..15 the k-quants), whose block
 * layouts changed twice: llama.cpp #1405 (ggjt v2) reordered the quants of
 * every type, #1508 (ggjt v3) made the Q4_0, Q4_1 and Q8_0 scales float16.
 * Blocks laid out as GGUF lays them (ggjt v3; Q5_0 and Q5_1 of v2) are
 * decoded by the GGUF dequantisers; the others are reported with their size
 * and a note, and their values refused.
 *
 * Shapes are reported in NumPy order (ne reversed), or as stored with
 * ts_open_options.gguf_stored_order, as for GGUF.
 */
#include "reader.h"

#include <stdio.h>
#include <stdlib.h>

#define MAGIC_GGML 0x67676d6cu
#define MAGIC_GGMF 0x67676d66u
#define MAGIC_GGJT 0x67676a74u
#define MAGIC_GGLA 0x67676c61u

#define MAX_DIMS 4          /* GGML_MAX_DIMS */
#define ALIGN 32

/* The three block layouts of the quantised types: era 1 (ggml, ggmf, ggjt
 * v1), era 2 (ggjt v2), era 3 (ggjt v3, ggla). */
enum { ERA1 = 0, ERA2 = 1, ERA3 = 2 };

typedef struct old_type {
    const char *name, *lower;          /* "Q4_0", "q4_0" */
    ts_dtype dtype;                    /* F32, F16: the element type */
    struct {
        int32_t block, bytes;          /* 0: not defined in that era */
        int gguf;                      /* 1: GGUF's layout (decoded) */
    } era[3];
} old_type;

static const old_type types[] = {
    [0] = {"F32", NULL, TS_DTYPE_FLOAT32, {{1, 4, 1}, {1, 4, 1}, {1, 4, 1}}},
    [1] = {"F16", NULL, TS_DTYPE_FLOAT16, {{1, 2, 1}, {1, 2, 1}, {1, 2, 1}}},
    /* float d, 16 bytes of quants (v1: pairs of neighbours per byte) */
    [2] = {"Q4_0", "q4_0", TS_DTYPE_QUANTIZED, {{32, 20, 0}, {32, 20, 0}, {32, 18, 1}}},
    [3] = {"Q4_1", "q4_1", TS_DTYPE_QUANTIZED, {{32, 24, 0}, {32, 24, 0}, {32, 20, 1}}},
    /* fp16 d (and m), 8 bytes of quants for 16 elements; removed by #1405 */
    [4] = {"Q4_2", "q4_2", TS_DTYPE_QUANTIZED, {{16, 10, 0}, {0, 0, 0}, {0, 0, 0}}},
    [5] = {"Q4_3", "q4_3", TS_DTYPE_QUANTIZED, {{16, 12, 0}, {0, 0, 0}, {0, 0, 0}}},
    [6] = {"Q5_0", "q5_0", TS_DTYPE_QUANTIZED, {{32, 22, 0}, {32, 22, 1}, {32, 22, 1}}},
    [7] = {"Q5_1", "q5_1", TS_DTYPE_QUANTIZED, {{32, 24, 0}, {32, 24, 1}, {32, 24, 1}}},
    [8] = {"Q8_0", "q8_0", TS_DTYPE_QUANTIZED, {{32, 36, 0}, {32, 36, 0}, {32, 34, 1}}},
    /* float d, s0, s1 (v1) or d, s (v2, v3); GGUF's has fp16 d, s */
    [9] = {"Q8_1", "q8_1", TS_DTYPE_QUANTIZED, {{32, 44, 0}, {32, 40, 0}, {32, 40, 0}}},
    /* the k-quants came with ggjt v3 (QK_K 256) */
    [10] = {"Q2_K", "q2_k", TS_DTYPE_QUANTIZED, {{0, 0, 0}, {0, 0, 0}, {256, 84, 1}}},
    [11] = {"Q3_K", "q3_k", TS_DTYPE_QUANTIZED, {{0, 0, 0}, {0, 0, 0}, {256, 110, 1}}},
    [12] = {"Q4_K", "q4_k", TS_DTYPE_QUANTIZED, {{0, 0, 0}, {0, 0, 0}, {256, 144, 1}}},
    [13] = {"Q5_K", "q5_k", TS_DTYPE_QUANTIZED, {{0, 0, 0}, {0, 0, 0}, {256, 176, 1}}},
    [14] = {"Q6_K", "q6_k", TS_DTYPE_QUANTIZED, {{0, 0, 0}, {0, 0, 0}, {256, 210, 1}}},
    [15] = {"Q8_K", "q8_k", TS_DTYPE_QUANTIZED, {{0, 0, 0}, {0, 0, 0}, {256, 292, 1}}},
};
#define NTYPES ((uint32_t)(sizeof types / sizeof *types))

static const char *const era_names[3] = {"ggml, ggmf and ggjt v1", "ggjt v2", "ggjt v3"};
static const char *const hparam_names[7] = {"n_vocab", "n_embd", "n_mult", "n_head",
                                            "n_layer", "n_rot", "ftype"};

static int probe_ggml(const unsigned char *d, size_t len, ts__source *src)
{
    (void)src;
    /* the magic alone: the reader names a version llama.cpp never wrote */
    if (len < 8)
        return 0;
    uint32_t magic = ts__le32(d);
    return magic == MAGIC_GGML || magic == MAGIC_GGMF || magic == MAGIC_GGJT ||
           magic == MAGIC_GGLA;
}

typedef struct ggml_reader {
    ts_file *f;
    ts__cursor c;
    const ts_open_options *opts;
    int era, padded, scores;
    const char *version;
} ggml_reader;

/* Renders the vocabulary (kind 0: the tokens, 1: the scores) of the file
 * whose first token is at byte `at`; n_vocab is read from the header. */
static ts_status render_vocab(const unsigned char *data, size_t len, uint64_t at, uint32_t kind,
                              ts__source *src, ts__sink *out, ts_error *err)
{
    ts__cursor c;
    ts__cursor_init_src(&c, data, len, src, 0);
    c.pos = (size_t)at - 28; /* n_vocab, the first hyperparameter */
    uint32_t n = 0, tl;
    ts_status st = ts__read_u32(&c, &n, "n_vocab", err);
    c.pos = (size_t)at;
    if (!st)
        st = ts__sink_add(out, "[", 1, err);
    for (uint32_t i = 0; !st && i < n; i++) {
        if (i > 0 && (st = ts__sink_add(out, ",", 1, err)))
            break;
        if ((st = ts__read_u32(&c, &tl, "token length", err)) ||
            (st = ts__cursor_need(&c, (size_t)tl + (kind & 2 ? 4 : 0), "token", err)))
            break;
        const unsigned char *p = c.data + c.pos;
        c.pos += tl;
        if (kind & 2) {
            if (kind & 1) {
                uint32_t u = ts__le32(c.data + c.pos);
                float v;
                memcpy(&v, &u, sizeof v);
                char buf[48];
                ts__json_real(v, 1, buf, sizeof buf);
                st = ts__sink_add(out, buf, strlen(buf), err);
            }
            c.pos += 4;
        }
        if (!(kind & 1))
            st = ts__sink_json_string(out, p, tl, err);
    }
    return st ? st : ts__sink_add(out, "]", 1, err);
}

/* The hyperparameters (as metadata when asked for) and the vocabulary,
 * checked entry by entry. */
static ts_status read_vocab(ggml_reader *r, ts_error *err)
{
    ts__cursor *c = &r->c;
    size_t at = c->pos;
    uint32_t hp[7];
    ts_status st = ts__cursor_need(c, sizeof hp, "the hyperparameters", err);
    if (st)
        return st;
    for (int i = 0; i < 7; i++)
        hp[i] = ts__le32(c->data + c->pos + 4 * (size_t)i);
    c->pos += sizeof hp;
    uint32_t n = hp[0];
    size_t min = r->scores ? 8 : 4;
    if (n > ts__cursor_left(c) / min)
        return ts__fail(err, TS_ERR_TRUNCATED, 0, (int64_t)at,
                        "n_vocab %lu (at byte %zu) needs at least %zu bytes of vocabulary, "
                        "but only %zu bytes are left in the file", (unsigned long)n, at,
                        (size_t)n * min, ts__cursor_left(c));
    size_t vocab = c->pos;
    ts__source_hint(c->src, (uint64_t)n * 16);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t tl;
        size_t tat = c->pos;
        if ((st = ts__read_u32(c, &tl, "token length", err)))
            return st;
        if (tl > ts__cursor_left(c) || ts__cursor_left(c) - tl < min - 4)
            return ts__fail(err, TS_ERR_TRUNCATED, 0, (int64_t)tat,
                            "token %lu at byte %zu: its %lu bytes%s run past the end of the "
                            "file", (unsigned long)i, tat, (unsigned long)tl,
                            r->scores ? " and score" : "");
        if ((st = ts__skip(c, tl + min - 4, "token", err)))
            return st;
    }
    if (!r->opts->want_metadata)
        return TS_OK;
    for (int i = 0; i < 7; i++) {
        char v[16];
        int k = snprintf(v, sizeof v, "%lu", (unsigned long)hp[i]);
        const char *key = hparam_names[i];
        if ((st = ts__file_add_metadata(r->f, key, strlen(key), v, (size_t)k, err)))
            return st;
    }
    uint32_t kind = r->scores ? 2 : 0;
    st = ts__file_add_lazy_metadata(r->f, "vocab.tokens", 12, render_vocab, vocab, kind, err);
    if (!st && r->scores)
        st = ts__file_add_lazy_metadata(r->f, "vocab.scores", 12, render_vocab, vocab, kind | 1,
                                        err);
    return st;
}

/* A tensor's name in the image (fetched). */
typedef struct name_span {
    const unsigned char *p;
    size_t at, len;
} name_span;

static int cmp_span(const void *pa, const void *pb)
{
    const name_span *a = pa, *b = pb;
    int k = memcmp(a->p, b->p, a->len < b->len ? a->len : b->len);
    if (k)
        return k;
    return a->len != b->len ? (a->len < b->len ? -1 : 1) : (a->at < b->at ? -1 : a->at > b->at);
}

/* One tensor record at the cursor, which ends past its data; *name: its
 * name, for the check of duplicates. */
static ts_status read_tensor(ggml_reader *r, size_t i, name_span *name, ts_error *err)
{
    ts__cursor *c = &r->c;
    size_t at = c->pos;
    uint32_t head[3];
    ts_status st = ts__cursor_need(c, sizeof head, "tensor header", err);
    if (st)
        return st;
    for (int k = 0; k < 3; k++)
        head[k] = ts__le32(c->data + c->pos + 4 * (size_t)k);
    c->pos += sizeof head;
    uint32_t n_dims = head[0], name_len = head[1], code = head[2];
    if (n_dims < 1 || n_dims > MAX_DIMS)
        return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)at,
                        "tensor %zu at byte %zu has %lu dims: ggml tensors have 1 to %d", i,
                        at, (unsigned long)n_dims, MAX_DIMS);
    uint32_t ne[MAX_DIMS];
    if ((st = ts__cursor_need(c, 4 * (size_t)n_dims, "tensor dims", err)))
        return st;
    for (uint32_t k = 0; k < n_dims; k++)
        ne[k] = ts__le32(c->data + c->pos + 4 * (size_t)k);
    c->pos += 4 * (size_t)n_dims;
    if (name_len > ts__cursor_left(c))
        return ts__fail(err, TS_ERR_TRUNCATED, 0, (int64_t)at + 4,
                        "tensor %zu at byte %zu: its %lu-byte name runs past the end of the "
                        "file", i, at, (unsigned long)name_len);
    if ((st = ts__cursor_fetch(c, name_len, err)))
        return st;
    const char *nm = (const char *)c->data + c->pos;
    name->p = c->data + c->pos;
    name->at = c->pos;
    name->len = name_len;
    c->pos += name_len;
    char shown[96];
    const char *tname = ts__printable(nm, name_len, shown, sizeof shown);
    if (memchr(nm, '\0', name_len))
        return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)name->at,
                        "tensor %zu '%s' at byte %zu: its name holds a NUL byte", i, tname, at);
    const old_type *t = code < NTYPES ? &types[code] : NULL;
    if (!t || !t->name || t->era[r->era].block == 0)
        return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)at + 8,
                        "tensor %zu '%s': type %lu is not a ggml type of %s files%s%s%s", i,
                        tname, (unsigned long)code, era_names[r->era],
                        t && t->name ? " (" : "", t && t->name ? t->name : "",
                        t && t->name ? ")" : "");
    int32_t block = t->era[r->era].block, bytes = t->era[r->era].bytes;
    if (ne[0] % (uint32_t)block != 0)
        return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)at + 12,
                        "tensor %zu '%s': ne[0] %lu is not a multiple of the %s block size %d",
                        i, tname, (unsigned long)ne[0], t->name, (int)block);
    if (r->padded) {
        size_t pad = (ALIGN - c->pos % ALIGN) % ALIGN;
        if (pad > ts__cursor_left(c))
            return ts__fail(err, TS_ERR_TRUNCATED, 0, (int64_t)c->pos,
                            "tensor %zu '%s': the file ends at byte %zu, inside the padding "
                            "before its data", i, tname, c->len);
        c->pos += pad;
    }
    ts_array *a = ts__file_add_array(r->f, err);
    if (!a)
        return TS_ERR_NOMEM;
    if (!(a->name = ts__file_strndup(r->f, nm, name_len, err)))
        return TS_ERR_NOMEM;
    int64_t dims[MAX_DIMS];
    for (uint32_t k = 0; k < n_dims; k++)
        dims[k] = r->opts->gguf_stored_order ? ne[k] : ne[n_dims - 1 - k];
    if ((st = ts_shape_assign(&a->shape, dims, (int)n_dims, err)))
        return st;
    if (t->dtype == TS_DTYPE_QUANTIZED) {
        a->dtype = TS_DTYPE_QUANTIZED;
        a->dtype_name = t->lower;
        a->block_size = block;
        a->block_bytes = bytes;
        a->byteorder = '<';
        if (!t->era[r->era].gguf)
            a->note = ts__file_printf(r->f, err, "%s blocks of %s files (%d elements in %d "
                                      "bytes), not GGUF's: values are not decoded%s",
                                      t->name, era_names[r->era], (int)block, (int)bytes,
                                      code == 2 || code == 3 || code == 8
                                      ? " (llama.cpp #1508 changed them in ggjt v3)"
                                      : code == 9 ? "" : " (llama.cpp #1405 changed them in "
                                                         "ggjt v2)");
        if (!t->era[r->era].gguf && !a->note)
            return TS_ERR_NOMEM;
    } else {
        ts__array_set_dtype(a, t->dtype);
        a->byteorder = '<';
    }
    a->format_dtype = t->name;
    if ((st = ts__array_compute_sizes(a, err))) {
        ts__error_prefix(err, "tensor %zu '%s'", i, tname);
        return st;
    }
    if ((uint64_t)a->nbytes > ts__cursor_left(c))
        return ts__fail(err, TS_ERR_TRUNCATED, 0, (int64_t)c->pos,
                        "tensor %zu '%s': %lld data bytes at byte %zu run past the end of the "
                        "file (%zu bytes, %lld missing)", i, tname, (long long)a->nbytes,
                        c->pos, c->len,
                        (long long)(a->nbytes - (int64_t)ts__cursor_left(c)));
    a->data_offset = (int64_t)c->pos;
    c->pos += (size_t)a->nbytes;
    return TS_OK;
}

static ts_status read_ggml(ts_file *f, const unsigned char *data, size_t len,
                           const ts_open_options *opts, ts_error *err)
{
    ggml_reader r;
    memset(&r, 0, sizeof r);
    r.f = f;
    r.opts = opts;
    ts__cursor_init_src(&r.c, data, len, ts__file_source(f), 0);
    ts__cursor *c = &r.c;
    uint32_t magic, version = 0;
    ts_status st = ts__read_u32(c, &magic, "the magic", err);
    if (st)
        return st;
    if (magic != MAGIC_GGML && (st = ts__read_u32(c, &version, "the version", err)))
        return st;
    if (magic == MAGIC_GGML) {
        r.version = "ggml";
    } else if (magic == MAGIC_GGMF && version == 1) {
        r.version = "ggmf v1";
        r.scores = 1;
    } else if (magic == MAGIC_GGJT && version >= 1 && version <= 3) {
        static const char *const v[] = {"ggjt v1", "ggjt v2", "ggjt v3"};
        r.version = v[version - 1];
        r.scores = r.padded = 1;
        r.era = version == 1 ? ERA1 : version == 2 ? ERA2 : ERA3;
    } else if (magic == MAGIC_GGLA && version == 1) {
        r.version = "ggla v1";
        r.padded = 1;
        r.era = ERA3;
    } else if (magic == MAGIC_GGMF || magic == MAGIC_GGJT || magic == MAGIC_GGLA) {
        return ts__fail(err, TS_ERR_UNSUPPORTED, 0, 4,
                        "'%s' file version %lu at byte 4 is not one llama.cpp wrote "
                        "(ggmf 1, ggjt 1 to 3, ggla 1)",
                        magic == MAGIC_GGMF ? "ggmf" : magic == MAGIC_GGJT ? "ggjt" : "ggla",
                        (unsigned long)version);
    } else {
        return ts__fail(err, TS_ERR_FORMAT, 0, 0,
                        "not a GGML-era llama.cpp file: the magic 0x%08lx is not 'ggml', "
                        "'ggmf', 'ggjt' or 'ggla'", (unsigned long)magic);
    }
    ts__file_set_version(f, r.version);
    if (magic == MAGIC_GGLA) {
        if ((st = ts__cursor_need(c, 8, "the LoRA rank and alpha", err)))
            return st;
        if (opts->want_metadata) {
            char v[16];
            int k = snprintf(v, sizeof v, "%lu", (unsigned long)ts__le32(c->data + c->pos));
            if ((st = ts__file_add_metadata(f, "r", 1, v, (size_t)k, err)))
                return st;
            k = snprintf(v, sizeof v, "%lu", (unsigned long)ts__le32(c->data + c->pos + 4));
            if ((st = ts__file_add_metadata(f, "alpha", 5, v, (size_t)k, err)))
                return st;
        }
        c->pos += 8;
    } else if ((st = read_vocab(&r, err))) {
        return st;
    }
    /* the tensors, to the end of the file (at least 16 bytes each) */
    size_t cap = 0, n = 0;
    name_span *names = NULL;
    while (ts__cursor_left(c) > 0) {
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            names = ts__scratch_realloc(f, names, cap * sizeof *names, err);
            if (!names)
                return TS_ERR_NOMEM;
        }
        if ((st = read_tensor(&r, n, &names[n], err))) {
            ts__error_index(err, st, (int64_t)n);
            return st;
        }
        n++;
    }
    /* llama.cpp keeps the last of two tensors of one name: refuse them */
    if (n > 1) {
        qsort(names, n, sizeof *names, cmp_span);
        for (size_t i = 1; i < n; i++)
            if (names[i].len == names[i - 1].len &&
                memcmp(names[i].p, names[i - 1].p, names[i].len) == 0) {
                char shown[96];
                return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)names[i].at,
                                "duplicate tensor name '%s' at bytes %zu and %zu",
                                ts__printable((const char *)names[i].p, names[i].len, shown,
                                              sizeof shown),
                                names[i - 1].at, names[i].at);
            }
    }
    return TS_OK;
}

const ts__reader ts__reader_ggml = {
    {TS_FORMAT_GGML, "ggml", ".bin", "magic ggml, ggmf, ggjt or ggla (u32 little-endian)",
     "llama.cpp files from before GGUF (ggml, ggmf v1, ggjt v1-v3, ggla LoRA)", "type", 0},
    probe_ggml,
    read_ggml,
    0,
};
