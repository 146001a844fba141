/*
 * tfckpt.c - reader for TensorFlow checkpoints (tensor bundles, V2: what
 * tf.train.Checkpoint and tf.compat.v1.train.Saver write), header only: the
 * PREFIX.index file, whose entries name every variable and say where its
 * bytes are in the data shards PREFIX.data-0000k-of-0000N beside it.
 *
 * The .index is a LevelDB-format table (leveldb doc/table_format.md;
 * tensorflow/core/lib/io/table_builder.cc, block_builder.cc, format.cc):
 *   footer, the last 48 bytes: the metaindex and index block handles (varint
 *     offset, varint size each), zero padding to 40 bytes, the magic
 *     0xdb4775248b80fb57 (u64 little-endian);
 *   a block: entries (varint shared, varint unshared, varint value length,
 *     the key's unshared bytes, the value: each key is `shared` bytes of the
 *     key before it and its own), then the restart points (u32 each) and
 *     their count (u32); after it a compression byte (0 none, 1 snappy) and
 *     the masked CRC-32C of the block and that byte;
 *   the index block maps a key to the handle of the data block holding it.
 * Keys are sorted bytewise. The values are protobuf messages
 * (tensorflow/core/protobuf/tensor_bundle.proto): under the empty key, the
 * first, BundleHeaderProto (num_shards 1, endianness 2, version 3); under a
 * variable's name, BundleEntryProto (dtype 1, shape 2, shard_id 3, offset 4,
 * size 5, crc32c 6, slices 7). A partitioned variable's entry has no data
 * but lists its slices, each stored under a key encoded with OrderedCode
 * (saved_tensor_slice_util.cc EncodeTensorNameSlice: the number 0, the
 * name as an escaped string, the rank, then each dim's start and length as
 * signed numbers, length -1 for the whole dim).
 *
 * Each entry with data is an array: its name, the TF DataType in NumPy
 * spelling (format_dtype keeps DT_*), its shape, data_offset its offset in
 * its data shard and storage_key that shard's file name; a slice is named
 * NAME[start:stop,...] (":" for a whole dim) and its note says whose slice
 * it is; the partitioned variable itself has no data and is listed only
 * with want_activations (--all). Fixed-size data must take exactly the
 * entry's `size` bytes (TensorFlow refuses it otherwise); DT_STRING and
 * DT_VARIANT data (lengths in the data) are reported with their byte range.
 * The shards are found beside the index (sidefile.c: local files or the
 * URLs beside a remote index), each entry's range checked against its
 * shard's size; values are read from them (values/side.c).
 *
 * Block checksums are checked (as TensorFlow's table reader does). Blocks
 * compressed with snappy (written by TensorFlow only when asked: its
 * default is uncompressed) are inflated with Debian's libsnappy, loaded with
 * dlopen when the first one is met; without it the file is refused naming
 * the block. The data blocks must follow each other in the file, so the
 * walk reads each byte of the index at most once (snappy's expansion is
 * bounded too).
 */
#include "tfckpt.h"
#include "protobuf.h"
#include "../remote/remote.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define CK_MAGIC 0xdb4775248b80fb57ULL
#define CK_FOOTER 48
#define CK_TRAILER 5

/* At most this many data shards (each is looked for: a stat, or a request
 * for a remote checkpoint). */
#define CK_MAX_SHARDS 65536

/* A snappy block may inflate to at most this many times its size (snappy's
 * densest op, a 3-byte copy of 64 bytes, is about 22 times) and 1 GiB. */
#define CK_SNAPPY_RATIO 24
#define CK_SNAPPY_MAX ((size_t)1 << 30)

#define NAME_BUF 200

/* TF DataType (tensorflow/core/framework/types.proto). */
typedef struct ck_type {
    const char *name;          /* DT_* */
    ts_dtype dtype;            /* TS_DTYPE_UNKNOWN: no fixed-size elements here */
    const char *dtype_name;    /* for TS_DTYPE_UNKNOWN */
    const char *note;          /* what the NumPy dtype does not say */
} ck_type;

static const ck_type ck_types[] = {
    [1] = {"DT_FLOAT", TS_DTYPE_FLOAT32, NULL, NULL},
    [2] = {"DT_DOUBLE", TS_DTYPE_FLOAT64, NULL, NULL},
    [3] = {"DT_INT32", TS_DTYPE_INT32, NULL, NULL},
    [4] = {"DT_UINT8", TS_DTYPE_UINT8, NULL, NULL},
    [5] = {"DT_INT16", TS_DTYPE_INT16, NULL, NULL},
    [6] = {"DT_INT8", TS_DTYPE_INT8, NULL, NULL},
    [7] = {"DT_STRING", TS_DTYPE_OBJECT, NULL, NULL},
    [8] = {"DT_COMPLEX64", TS_DTYPE_COMPLEX64, NULL, NULL},
    [9] = {"DT_INT64", TS_DTYPE_INT64, NULL, NULL},
    [10] = {"DT_BOOL", TS_DTYPE_BOOL, NULL, NULL},
    [11] = {"DT_QINT8", TS_DTYPE_INT8, NULL, "quantized qint8 (its range is not in the checkpoint)"},
    [12] = {"DT_QUINT8", TS_DTYPE_UINT8, NULL,
            "quantized quint8 (its range is not in the checkpoint)"},
    [13] = {"DT_QINT32", TS_DTYPE_INT32, NULL,
            "quantized qint32 (its range is not in the checkpoint)"},
    [14] = {"DT_BFLOAT16", TS_DTYPE_BFLOAT16, NULL, NULL},
    [15] = {"DT_QINT16", TS_DTYPE_INT16, NULL,
            "quantized qint16 (its range is not in the checkpoint)"},
    [16] = {"DT_QUINT16", TS_DTYPE_UINT16, NULL,
            "quantized quint16 (its range is not in the checkpoint)"},
    [17] = {"DT_UINT16", TS_DTYPE_UINT16, NULL, NULL},
    [18] = {"DT_COMPLEX128", TS_DTYPE_COMPLEX128, NULL, NULL},
    [19] = {"DT_HALF", TS_DTYPE_FLOAT16, NULL, NULL},
    [20] = {"DT_RESOURCE", TS_DTYPE_UNKNOWN, "resource", NULL},
    [21] = {"DT_VARIANT", TS_DTYPE_UNKNOWN, "variant", NULL},
    [22] = {"DT_UINT32", TS_DTYPE_UINT32, NULL, NULL},
    [23] = {"DT_UINT64", TS_DTYPE_UINT64, NULL, NULL},
    [24] = {"DT_FLOAT8_E5M2", TS_DTYPE_FLOAT8_E5M2, NULL, NULL},
    [25] = {"DT_FLOAT8_E4M3FN", TS_DTYPE_FLOAT8_E4M3FN, NULL, NULL},
    [26] = {"DT_FLOAT8_E4M3FNUZ", TS_DTYPE_FLOAT8_E4M3FNUZ, NULL, NULL},
    [27] = {"DT_FLOAT8_E4M3B11FNUZ", TS_DTYPE_UNKNOWN, "float8_e4m3b11fnuz", NULL},
    [28] = {"DT_FLOAT8_E5M2FNUZ", TS_DTYPE_FLOAT8_E5M2FNUZ, NULL, NULL},
    /* TensorFlow keeps a 4- or 2-bit element in a byte of its own */
    [29] = {"DT_INT4", TS_DTYPE_INT8, NULL, "DT_INT4, one element per byte"},
    [30] = {"DT_UINT4", TS_DTYPE_UINT8, NULL, "DT_UINT4, one element per byte"},
    [31] = {"DT_INT2", TS_DTYPE_INT8, NULL, "DT_INT2, one element per byte"},
    [32] = {"DT_UINT2", TS_DTYPE_UINT8, NULL, "DT_UINT2, one element per byte"},
};
#define CK_NTYPES (sizeof ck_types / sizeof *ck_types)

static int probe_tfckpt(const unsigned char *data, size_t len, ts__source *src)
{
    return len >= CK_FOOTER && ts__probe_need(src, len - 8, 8) &&
           ts__le64(data + len - 8) == CK_MAGIC;
}

/* ---- libsnappy, by dlopen ---------------------------------------------------- */

/* snappy-c.h: snappy_status is an int enum, SNAPPY_OK 0. */
typedef int (*snappy_len_fn)(const char *, size_t, size_t *);
typedef int (*snappy_unc_fn)(const char *, size_t, char *, size_t *);
static snappy_len_fn snappy_len;
static snappy_unc_fn snappy_unc;
static int snappy_state; /* 1 loaded, -1 not there */
static pthread_once_t snappy_once = PTHREAD_ONCE_INIT;

static void snappy_load(void)
{
    void *h = dlopen("libsnappy.so.1", RTLD_NOW | RTLD_LOCAL);
    void *l = h ? dlsym(h, "snappy_uncompressed_length") : NULL;
    void *u = h ? dlsym(h, "snappy_uncompress") : NULL;
    if (!l || !u) {
        snappy_state = -1;
        return;
    }
    memcpy(&snappy_len, &l, sizeof l);
    memcpy(&snappy_unc, &u, sizeof u);
    snappy_state = 1;
}

/* ---- the reader ------------------------------------------------------------- */

typedef struct ck {
    ts_file *f;                 /* the arrays go there */
    ts_file *img;               /* the index's bytes are asked of it */
    const unsigned char *d;
    size_t len;
    const ts_open_options *opts;
    ts_error *err;
    char *key, *prev;           /* a data block's current key, the previous
                                   one (scratch) */
    size_t key_n, prev_n, key_cap, prev_cap;
    char *ikey;                 /* the index block's current key */
    size_t ikey_n, ikey_cap;
    size_t nkeys;
    int64_t num_shards;
    int big;
    int64_t producer, min_consumer;
    char *prefix;               /* the index's file name without ".index", or NULL */
    const char **shard_name;    /* per shard, once looked for (strings of f) */
    int32_t *shard_side;        /* its side id (0: read from memory) */
    int64_t *shard_size;
    size_t arrays, slices, partitioned, compressed;
} ck;

/* LevelDB's masked CRC (util/crc32c.h Mask, TensorFlow crc32c::Mask): a
 * CRC stored next to the data it covers is rotated and offset. */
static uint32_t unmask(uint32_t masked)
{
    uint32_t rot = masked - 0xa282ead8u;
    return (rot >> 17) | (rot << 15);
}

/* A block: the bytes [0, n) of `base` (the image, or an inflated buffer),
 * `at` its offset in the file; entries in [pos, limit). */
typedef struct ck_block {
    const unsigned char *base;
    size_t start, n, pos, limit;
    uint64_t at;
    int inflated;
    const char *what;           /* "data block 3", "the index block" */
    char what_buf[48];
} ck_block;

/* Reads the handle's block (varints at base[*pos..end)). */
static ts_status read_handle(ck *r, const unsigned char *base, size_t *pos, size_t end,
                             uint64_t *off, uint64_t *size, const char *what)
{
    ts_status st = ts__pb_varint(base, pos, end, off, what, r->err);
    if (!st)
        st = ts__pb_varint(base, pos, end, size, what, r->err);
    return st;
}

/* Opens the block of the handle at byte handle_at (for messages). */
static ts_status open_block(ck *r, uint64_t off, uint64_t size, int64_t handle_at, ck_block *b)
{
    size_t body_end = r->len - CK_FOOTER;
    if (off > body_end || size > body_end - off || CK_TRAILER > body_end - off - size)
        return ts__fail(r->err, TS_ERR_FORMAT, 0, handle_at,
                        "%s: its handle at byte %lld (offset %llu, size %llu) runs past the "
                        "blocks, which end at byte %zu", b->what, (long long)handle_at,
                        (unsigned long long)off, (unsigned long long)size, body_end);
    ts_status st = ts__file_need(r->img, off, size + CK_TRAILER, r->err);
    if (st)
        return st;
    const unsigned char *p = r->d + off;
    uint32_t stored = ts__le32(p + size + 1);
    uint32_t crc = ts__crc32c(0, p, (size_t)size + 1);
    uint32_t masked = ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
    if (stored != masked)
        return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)(off + size + 1),
                        "%s at byte %llu: block checksum mismatch (stored 0x%08x, computed "
                        "0x%08x: the index is corrupt)", b->what, (unsigned long long)off,
                        stored, masked);
    b->at = off;
    b->inflated = 0;
    b->base = r->d;
    b->start = (size_t)off;
    b->n = (size_t)size;
    unsigned type = p[size];
    if (type == 1) {
        pthread_once(&snappy_once, snappy_load);
        if (snappy_state != 1)
            return ts__fail(r->err, TS_ERR_UNSUPPORTED, 0, (int64_t)off,
                            "%s at byte %llu is snappy-compressed, and reading it needs "
                            "libsnappy (libsnappy.so.1; Debian: apt install libsnappy1v5), "
                            "which is not installed", b->what, (unsigned long long)off);
        size_t out_n = 0;
        if (snappy_len((const char *)p, (size_t)size, &out_n) != 0)
            return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)off,
                            "%s at byte %llu: not a valid snappy block", b->what,
                            (unsigned long long)off);
        if (out_n > CK_SNAPPY_MAX || out_n / CK_SNAPPY_RATIO > size)
            return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)off,
                            "%s at byte %llu: snappy block of %llu bytes claims to inflate to "
                            "%zu bytes, more than snappy can expand", b->what,
                            (unsigned long long)off, (unsigned long long)size, out_n);
        unsigned char *buf = ts__scratch_alloc(r->f, out_n ? out_n : 1, r->err);
        if (!buf)
            return TS_ERR_NOMEM;
        size_t got = out_n;
        if (snappy_unc((const char *)p, (size_t)size, (char *)buf, &got) != 0 || got != out_n) {
            ts__scratch_free(r->f, buf);
            return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)off,
                            "%s at byte %llu: not a valid snappy block", b->what,
                            (unsigned long long)off);
        }
        b->base = buf;
        b->start = 0;
        b->n = out_n;
        b->inflated = 1;
        r->compressed++;
    } else if (type != 0) {
        return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)(off + size),
                        "%s at byte %llu: compression type %u is unknown (0: none, 1: snappy)",
                        b->what, (unsigned long long)off, type);
    }
    /* the restart points: a u32 count at the end, after that many u32s */
    if (b->n < 4)
        return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)off,
                        "%s at byte %llu: %zu bytes cannot hold its restart count", b->what,
                        (unsigned long long)off, b->n);
    uint32_t nr = ts__le32(b->base + b->start + b->n - 4);
    if (nr > (b->n - 4) / 4)
        return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)off,
                        "%s at byte %llu: %u restart points do not fit in its %zu bytes",
                        b->what, (unsigned long long)off, nr, b->n);
    b->pos = b->start;
    b->limit = b->start + b->n - 4 - 4 * (size_t)nr;
    return TS_OK;
}

static void close_block(ck *r, ck_block *b)
{
    if (b->inflated)
        ts__scratch_free(r->f, (void *)(uintptr_t)b->base);
    b->inflated = 0;
}

/* Where byte i of the block is, for messages: in the file, or in the
 * inflated block. */
static int64_t block_at(const ck_block *b, size_t i)
{
    return b->inflated ? (int64_t)b->at : (int64_t)i;
}

static ts_status grow(ck *r, char **p, size_t *cap, size_t n)
{
    if (n <= *cap)
        return TS_OK;
    size_t c = *cap ? *cap : 64;
    while (c < n)
        c *= 2;
    char *q = ts__scratch_realloc(r->f, *p, c, r->err);
    if (!q)
        return TS_ERR_NOMEM;
    *p = q;
    *cap = c;
    return TS_OK;
}

/* The next entry of b: 1 with its key in *key (*key_n bytes, *cap
 * allocated: the previous key's bytes are its shared prefix) and the value
 * [*vpos, *vpos + *vlen) of b->base, 0 at the end, -1 on error (*st set). */
static int next_entry(ck *r, ck_block *b, char **key, size_t *key_n, size_t *cap,
                      size_t *vpos, size_t *vlen, ts_status *st)
{
    if (b->pos >= b->limit)
        return 0;
    size_t at = b->pos;
    uint64_t shared, unshared, vn;
    if ((*st = ts__pb_varint(b->base, &b->pos, b->limit, &shared, "an entry's shared length",
                             r->err)) ||
        (*st = ts__pb_varint(b->base, &b->pos, b->limit, &unshared,
                             "an entry's key length", r->err)) ||
        (*st = ts__pb_varint(b->base, &b->pos, b->limit, &vn, "an entry's value length",
                             r->err)))
        return -1;
    if (shared > *key_n || unshared > b->limit - b->pos || vn > b->limit - b->pos - unshared) {
        *st = ts__fail(r->err, TS_ERR_FORMAT, 0, block_at(b, at),
                       "%s: entry at byte %zu%s shares %llu bytes of a %zu-byte key and has "
                       "%llu key and %llu value bytes, more than the %zu left", b->what,
                       at - b->start, b->inflated ? " of the inflated block" : "",
                       (unsigned long long)shared, *key_n, (unsigned long long)unshared,
                       (unsigned long long)vn, b->limit - b->pos);
        return -1;
    }
    if ((*st = grow(r, key, cap, (size_t)(shared + unshared) + 1)))
        return -1;
    memcpy(*key + shared, b->base + b->pos, (size_t)unshared);
    *key_n = (size_t)(shared + unshared);
    b->pos += (size_t)unshared;
    *vpos = b->pos;
    *vlen = (size_t)vn;
    b->pos += (size_t)vn;
    return 1;
}

/* A protobuf message over bytes [pos, pos + n) of base. */
static void pb_over(ts__pb_msg *m, const unsigned char *base, size_t base_len, size_t pos,
                    size_t n)
{
    ts__pb_init(m, base, base_len);
    m->pos = pos;
    m->end = pos + n;
    m->declared_end = pos + n;
}

static ts_status parse_header(ck *r, const ck_block *b, size_t vpos, size_t vlen)
{
    ts__pb_msg m, v;
    ts__pb_field fl;
    int k;
    ts_status st = TS_OK;
    pb_over(&m, b->base, b->start + b->n, vpos, vlen);
    r->num_shards = 0;
    while (!st && (k = ts__pb_next(&m, &fl, r->err)) == 1) {
        if (fl.number == 1) {
            if (!(st = ts__pb_want(&fl, TS__PB_VARINT, "num_shards", r->err)))
                r->num_shards = (int32_t)fl.value;
        } else if (fl.number == 2) {
            if (!(st = ts__pb_want(&fl, TS__PB_VARINT, "endianness", r->err))) {
                if (fl.value > 1)
                    return ts__fail(r->err, TS_ERR_FORMAT, 0, block_at(b, fl.key_pos),
                                    "the header's endianness is %llu, not 0 (little) or 1 "
                                    "(big)", (unsigned long long)fl.value);
                r->big = fl.value == 1;
            }
        } else if (fl.number == 3) {
            if (!(st = ts__pb_want(&fl, TS__PB_LEN, "version", r->err)) &&
                !(st = ts__pb_sub(&m, &fl, &v, r->err))) {
                ts__pb_field g;
                while ((k = ts__pb_next(&v, &g, r->err)) == 1)
                    if (g.number == 1 && g.wire == TS__PB_VARINT)
                        r->producer = (int32_t)g.value;
                    else if (g.number == 2 && g.wire == TS__PB_VARINT)
                        r->min_consumer = (int32_t)g.value;
                if (k < 0)
                    st = v.status;
            }
        }
    }
    if (!st && k < 0)
        st = m.status;
    if (st)
        return st;
    if (r->num_shards < 0 || r->num_shards > CK_MAX_SHARDS)
        return ts__fail(r->err, TS_ERR_LIMIT, 0, block_at(b, vpos),
                        "the header says %lld data shards (tshape reads at most %d)",
                        (long long)r->num_shards, CK_MAX_SHARDS);
    return TS_OK;
}

/* A BundleEntryProto. */
typedef struct ck_entry {
    uint64_t dtype;
    int ndim, has_shape;
    int64_t dims[TS_MAX_NDIM];
    int64_t shard, offset, size;
    size_t nslices;
    int has_crc32c;
    uint32_t crc32c;            /* unmasked: the CRC-32C of the tensor's bytes */
} ck_entry;

ts_status ts__tf_shape(const ts__pb_msg *m, const ts__pb_field *fl, int64_t *dims, int *ndim,
                       int *unknown_rank, const char *who, ts_error *err)
{
    ts__pb_msg s, dm;
    ts__pb_field g, h;
    int k, j;
    ts_status st = ts__pb_sub(m, fl, &s, err);
    *ndim = 0;
    *unknown_rank = 0;
    while (!st && (k = ts__pb_next(&s, &g, err)) == 1) {
        if (g.number == 3 && g.wire == TS__PB_VARINT)
            *unknown_rank = g.value != 0;
        if (g.number != 2)
            continue;
        if ((st = ts__pb_want(&g, TS__PB_LEN, "a dim", err)) ||
            (st = ts__pb_sub(&s, &g, &dm, err)))
            return st;
        int64_t size = 0;
        while ((j = ts__pb_next(&dm, &h, err)) == 1)
            if (h.number == 1 && h.wire == TS__PB_VARINT)
                size = (int64_t)h.value;
        if (j < 0)
            return dm.status;
        if (size < -1)
            return ts__fail(err, TS_ERR_VALUE, 0, (int64_t)g.key_pos,
                            "%s: dim %d at byte %zu is %lld (-1 is unknown, others are sizes)",
                            who, *ndim, g.key_pos, (long long)size);
        if (*ndim >= TS_MAX_NDIM)
            return ts__fail(err, TS_ERR_NDIM, 0, (int64_t)g.key_pos, "%s: more than %d dims",
                            who, TS_MAX_NDIM);
        dims[(*ndim)++] = size;
    }
    if (!st && k < 0)
        st = s.status;
    return st;
}

static ts_status parse_shape(ck *r, const ck_block *b, ts__pb_msg *m, const ts__pb_field *fl,
                             ck_entry *e, const char *who)
{
    int unknown;
    e->has_shape = 1;
    ts_status st = ts__tf_shape(m, fl, e->dims, &e->ndim, &unknown, who, r->err);
    if (st)
        return st;
    if (unknown)
        return ts__fail(r->err, TS_ERR_FORMAT, 0, block_at(b, fl->key_pos),
                        "%s: its shape has unknown rank (a checkpoint's shapes are known)", who);
    for (int d = 0; d < e->ndim; d++)
        if (e->dims[d] < 0)
            return ts__fail(r->err, TS_ERR_FORMAT, 0, block_at(b, fl->key_pos),
                            "%s: dim %d is unknown (a checkpoint's shapes are known)", who, d);
    return TS_OK;
}

int ts__tf_set_dtype(ts_array *a, uint64_t datatype, int big, const char **note)
{
    const ck_type *ty =
        datatype < CK_NTYPES && ck_types[datatype].name ? &ck_types[datatype] : NULL;
    if (note)
        *note = ty ? ty->note : NULL;
    if (!ty)
        return -1;
    a->format_dtype = ty->name;
    int fixed = ty->dtype != TS_DTYPE_UNKNOWN && ty->dtype != TS_DTYPE_OBJECT;
    if (ty->dtype != TS_DTYPE_UNKNOWN)
        ts__array_set_dtype(a, ty->dtype);
    else
        a->dtype_name = ty->dtype_name;
    if (fixed && a->itemsize > 1)
        a->byteorder = big ? '>' : '<';
    return fixed;
}

static ts_status parse_entry(ck *r, const ck_block *b, size_t vpos, size_t vlen, ck_entry *e,
                             const char *who)
{
    ts__pb_msg m;
    ts__pb_field fl;
    int k;
    ts_status st = TS_OK;
    memset(e, 0, sizeof *e);
    pb_over(&m, b->base, b->start + b->n, vpos, vlen);
    while (!st && (k = ts__pb_next(&m, &fl, r->err)) == 1) {
        switch (fl.number) {
        case 1:
            if (!(st = ts__pb_want(&fl, TS__PB_VARINT, "dtype", r->err)))
                e->dtype = fl.value;
            break;
        case 2:
            if (!(st = ts__pb_want(&fl, TS__PB_LEN, "shape", r->err)))
                st = parse_shape(r, b, &m, &fl, e, who);
            break;
        case 3:
            if (!(st = ts__pb_want(&fl, TS__PB_VARINT, "shard_id", r->err)))
                e->shard = (int32_t)fl.value;
            break;
        case 4:
            if (!(st = ts__pb_want(&fl, TS__PB_VARINT, "offset", r->err)))
                e->offset = (int64_t)fl.value;
            break;
        case 5:
            if (!(st = ts__pb_want(&fl, TS__PB_VARINT, "size", r->err)))
                e->size = (int64_t)fl.value;
            break;
        case 6:
            if (!(st = ts__pb_want(&fl, TS__PB_FIXED32, "crc32c", r->err))) {
                e->crc32c = unmask((uint32_t)fl.value);
                e->has_crc32c = 1;
            }
            break;
        case 7:
            if (!(st = ts__pb_want(&fl, TS__PB_LEN, "slices", r->err)))
                e->nslices++;
            break;
        default:
            break;
        }
    }
    if (!st && k < 0)
        st = m.status;
    if (st) {
        ts__error_prefix(r->err, "%s", who);
        return st;
    }
    if (e->shard < 0 || e->offset < 0 || e->size < 0)
        return ts__fail(r->err, TS_ERR_FORMAT, 0, block_at(b, vpos),
                        "%s: negative %s", who,
                        e->shard < 0 ? "shard_id" : e->offset < 0 ? "offset" : "size");
    return TS_OK;
}

/* OrderedCode (tensorflow/core/lib/strings/ordered_code.cc): a number
 * written as its byte count and its big-endian bytes. */
static int oc_num(const unsigned char *p, size_t n, size_t *pos, uint64_t *v)
{
    if (*pos >= n || p[*pos] > 8 || p[*pos] > n - *pos - 1)
        return 0;
    size_t len = p[(*pos)++];
    *v = 0;
    for (size_t i = 0; i < len; i++)
        *v = *v << 8 | p[(*pos)++];
    return 1;
}

/* A signed number: the sign bit, then as many bits equal to it as the
 * encoding has bytes after the first, a bit that differs, the value. */
static int oc_signed(const unsigned char *p, size_t n, size_t *pos, int64_t *v)
{
    static const uint64_t len_mask[11] = {
        0, 0x80ULL, 0xc000ULL, 0xe00000ULL, 0xf0000000ULL, 0xf800000000ULL,
        0xfc0000000000ULL, 0xfe000000000000ULL, 0xff00000000000000ULL,
        0x8000000000000000ULL, 0};
    if (*pos >= n)
        return 0;
    unsigned x = p[*pos] & 0x80 ? 0 : 0xff; /* negative: read the bits inverted */
    unsigned b0 = p[*pos] ^ x, b1 = *pos + 1 < n ? (unsigned)(p[*pos + 1] ^ x) : 0;
    size_t len = 0;
    unsigned bits = b0 << 8 | b1;
    while (len < 11 && (bits & (0x8000u >> len)))
        len++;
    if (len == 0 || len > 10 || len > n - *pos)
        return 0;
    uint64_t u = 0;
    size_t first = len > 8 ? len - 8 : 0;
    for (size_t i = first; i < len; i++)
        u = u << 8 | (uint64_t)(p[*pos + i] ^ x);
    u &= ~len_mask[len];
    *pos += len;
    *v = x ? (int64_t)~u : (int64_t)u;
    return 1;
}

/* Decodes the slice key in r->key into "NAME[a:b,:]" in storage of f and
 * its full name (scratch), checking its rank and lengths against e. */
static ts_status slice_name(ck *r, const ck_entry *e, const ck_block *b, size_t at,
                            const char **name, const char **full)
{
    const unsigned char *p = (const unsigned char *)r->key;
    size_t n = r->key_n, pos = 0;
    uint64_t v;
    char kb[NAME_BUF];
    const char *shown = ts__printable(r->key, r->key_n, kb, sizeof kb);
    if (!oc_num(p, n, &pos, &v) || v != 0)
        goto bad;
    /* the escaped name, up to 0x00 0x01 */
    char *s = ts__scratch_alloc(r->f, n + 64 * (size_t)TS_MAX_NDIM + 8, r->err);
    if (!s)
        return TS_ERR_NOMEM;
    size_t sn = 0;
    for (;;) {
        if (pos + 1 >= n)
            goto bad_free;
        unsigned char c = p[pos];
        if (c == 0 && p[pos + 1] == 1) {
            pos += 2;
            break;
        }
        if (c == 0 && p[pos + 1] == 0xff)
            s[sn++] = '\0', pos += 2;
        else if (c == 0xff && p[pos + 1] == 0)
            s[sn++] = (char)0xff, pos += 2;
        else if (c == 0 || c == 0xff)
            goto bad_free;
        else
            s[sn++] = (char)c, pos++;
    }
    if (memchr(s, '\0', sn))
        goto bad_free;
    s[sn] = '\0';
    *full = s;
    uint64_t rank;
    if (!oc_num(p, n, &pos, &rank) || rank > TS_MAX_NDIM)
        goto bad_free;
    if ((int)rank != e->ndim) {
        ts__scratch_free(r->f, s);
        return ts__fail(r->err, TS_ERR_FORMAT, 0, block_at(b, at),
                        "slice key '%s' has %d dims, but its entry's shape has %d", shown,
                        (int)rank, e->ndim);
    }
    char *t = s + sn + 1;
    size_t tn = 0;
    t[tn++] = '[';
    for (uint64_t d = 0; d < rank; d++) {
        int64_t start, length;
        if (!oc_signed(p, n, &pos, &start) || !oc_signed(p, n, &pos, &length) || start < 0 ||
            length < -1)
            goto bad_free;
        if (length >= 0 && length != e->dims[d]) {
            ts__scratch_free(r->f, s);
            return ts__fail(r->err, TS_ERR_FORMAT, 0, block_at(b, at),
                            "slice key '%s' says dim %d has length %lld, but its entry's "
                            "shape says %lld", shown, (int)d, (long long)length,
                            (long long)e->dims[d]);
        }
        if (length < 0)
            tn += (size_t)sprintf(t + tn, "%s:", d ? "," : "");
        else
            tn += (size_t)sprintf(t + tn, "%s%lld:%lld", d ? "," : "", (long long)start,
                                  (long long)(start + length));
    }
    t[tn++] = ']';
    if (pos != n)
        goto bad_free;
    *name = ts__file_printf(r->f, r->err, "%s%.*s", s, (int)tn, t);
    return *name ? TS_OK : TS_ERR_NOMEM;
bad_free:
    ts__scratch_free(r->f, s);
bad:
    return ts__fail(r->err, TS_ERR_FORMAT, 0, block_at(b, at),
                    "key '%s' starts with a NUL byte but is not a slice key (OrderedCode: 0, "
                    "the name, the rank, each dim's start and length)", shown);
}

/* The data file of shard k, looked for once. */
static ts_status shard_file(ck *r, int64_t k, const char *who, size_t at)
{
    if (!r->shard_name) {
        size_t n = (size_t)r->num_shards;
        r->shard_name = ts__scratch_alloc(r->f, n * sizeof *r->shard_name, r->err);
        r->shard_side = ts__scratch_alloc(r->f, n * sizeof *r->shard_side, r->err);
        r->shard_size = ts__scratch_alloc(r->f, n * sizeof *r->shard_size, r->err);
        if (!r->shard_name || !r->shard_side || !r->shard_size)
            return TS_ERR_NOMEM;
        memset(r->shard_name, 0, n * sizeof *r->shard_name);
    }
    if (r->shard_name[k])
        return TS_OK;
    /* tensor_bundle.cc DataFilename: "%s.data-%05d-of-%05d" */
    const char *name = ts__file_printf(r->f, r->err, "%s.data-%05lld-of-%05lld",
                                       r->prefix ? r->prefix : "PREFIX", (long long)k,
                                       (long long)r->num_shards);
    if (!name)
        return TS_ERR_NOMEM;
    r->shard_name[k] = name;
    r->shard_side[k] = 0;
    r->shard_size[k] = -1;
    if (!r->prefix)
        return TS_OK;
    char *rs = NULL;
    ts_status st = ts__side_locate(r->opts, name, "data shard", who, at, &rs,
                                   &r->shard_size[k], NULL, r->err);
    if (!st && rs)
        st = ts__side_add(r->f, rs, r->opts, &r->shard_side[k], r->err);
    free(rs);
    return st;
}

static void note_add(char *note, size_t cap, const char *fmt, ...) TS__PRINTF(3, 4);
static void note_add(char *note, size_t cap, const char *fmt, ...)
{
    size_t n = strlen(note);
    if (n && n + 2 < cap) {
        memcpy(note + n, "; ", 3);
        n += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(note + n, cap - n, fmt, ap);
    va_end(ap);
}

static ts_status add_entry(ck *r, const ck_block *b, size_t vpos, size_t vlen)
{
    char kb[NAME_BUF], who[NAME_BUF + 64];
    int is_slice = r->key_n > 0 && r->key[0] == '\0';
    snprintf(who, sizeof who, "entry '%s' %s %lld",
             ts__printable(r->key, r->key_n, kb, sizeof kb),
             b->inflated ? "in the snappy block at byte" : "at byte",
             (long long)block_at(b, vpos));
    ck_entry e;
    ts_status st = parse_entry(r, b, vpos, vlen, &e, who);
    if (st)
        return st;
    const char *name = NULL, *full = NULL;
    if (is_slice) {
        if ((st = slice_name(r, &e, b, vpos, &name, &full)))
            return st;
        r->slices++;
    } else {
        name = ts__file_strndup(r->f, r->key, r->key_n, r->err);
        if (!name)
            return TS_ERR_NOMEM;
    }
    if (e.nslices)
        r->partitioned++;
    if (e.nslices && !r->opts->want_activations)
        return TS_OK;
    if (e.dtype >= CK_NTYPES || !ck_types[e.dtype].name)
        return ts__fail(r->err, TS_ERR_DTYPE, 0, block_at(b, vpos),
                        "%s: DataType %llu is not one tshape knows (DT_FLOAT 1 .. DT_UINT2 32)",
                        who, (unsigned long long)e.dtype);
    ts_array *a = ts__file_add_array(r->f, r->err);
    if (!a)
        return ts__file_add_failure(r->f);
    r->arrays++;
    a->name = name;
    if ((st = ts_shape_resize(&a->shape, e.ndim, r->err)))
        return st;
    memcpy(ts_shape_dims_mut(&a->shape), e.dims, (size_t)e.ndim * sizeof *e.dims);
    const char *type_note;
    int fixed = ts__tf_set_dtype(a, e.dtype, r->big, &type_note);
    if (fixed) {
        if ((st = ts__array_compute_sizes(a, r->err))) {
            ts__error_prefix(r->err, "%s", who);
            return st;
        }
    } else {
        a->nbytes = -1;
        if ((st = ts_shape_size(&a->shape, &a->size, r->err))) {
            ts__error_prefix(r->err, "%s", who);
            return st;
        }
    }
    char note[512] = "";
    if (type_note)
        note_add(note, sizeof note, "%s", type_note);
    if (is_slice) {
        char fb[NAME_BUF];
        note_add(note, sizeof note, "a slice of partitioned variable '%s'",
                 ts__printable_str(full, fb, sizeof fb));
        ts__scratch_free(r->f, (void *)(uintptr_t)full);
    }
    if (e.nslices) {
        note_add(note, sizeof note,
                 "partitioned variable: no data of its own, its values are in %zu slices "
                 "(NAME[start:stop,...])", e.nslices);
        a->note = ts__file_strndup(r->f, note, strlen(note), r->err);
        return a->note ? TS_OK : TS_ERR_NOMEM;
    }
    if (e.shard >= r->num_shards)
        return ts__fail(r->err, TS_ERR_FORMAT, 0, block_at(b, vpos),
                        "%s: shard_id %lld, but the header says %lld shards", who,
                        (long long)e.shard, (long long)r->num_shards);
    if (fixed && e.size != a->nbytes) {
        char sb[TS__SHAPE_STR_MAX];
        return ts__fail(r->err, TS_ERR_FORMAT, 0, block_at(b, vpos),
                        "%s: its size is %lld bytes, but shape %s of %s needs %lld "
                        "(TensorFlow refuses it too)", who, (long long)e.size,
                        ts__shape_str(&a->shape, sb, sizeof sb), a->dtype_name,
                        (long long)a->nbytes);
    }
    if ((st = shard_file(r, e.shard, who, (size_t)block_at(b, vpos))))
        return st;
    const char *file = r->shard_name[e.shard];
    int64_t end;
    if (ts__add_overflow(e.offset, e.size, &end) ||
        (r->shard_size[e.shard] >= 0 && end > r->shard_size[e.shard]))
        return ts__fail(r->err, TS_ERR_TRUNCATED, 0, block_at(b, vpos),
                        "%s: bytes %lld..%lld of %s, which holds %lld bytes", who,
                        (long long)e.offset, (long long)e.offset + (long long)e.size, file,
                        (long long)r->shard_size[e.shard]);
    a->storage_key = file;
    if (!fixed) {
        note_add(note, sizeof note, "%s data: %lld bytes at byte %lld of %s%s", a->format_dtype,
                 (long long)e.size, (long long)e.offset, file,
                 e.dtype == 7 ? " (varint lengths, a masked CRC-32C, the bytes)" : "");
    } else {
        a->data_offset = e.offset;
        if (!r->prefix)
            note_add(note, sizeof note, "data in shard %lld (not checked: the index was read "
                     "from memory)", (long long)e.shard);
        else if (r->shard_side[e.shard] &&
                 (st = ts__file_set_data_src(r->f, a, &(ts__data_src){
                      .side = r->shard_side[e.shard], .has_crc32c = e.has_crc32c,
                      .crc32c = e.crc32c}, r->err)))
            return st;
    }
    if (note[0] && !(a->note = ts__file_strndup(r->f, note, strlen(note), r->err)))
        return TS_ERR_NOMEM;
    return TS_OK;
}

/* Keys must increase (a LevelDB table is sorted, without duplicates). */
static ts_status check_order(ck *r, const ck_block *b, size_t at)
{
    if (r->nkeys > 0) {
        size_t m = r->key_n < r->prev_n ? r->key_n : r->prev_n;
        int c = memcmp(r->key, r->prev, m);
        if (c < 0 || (c == 0 && r->key_n <= r->prev_n)) {
            char kb[NAME_BUF], pb[NAME_BUF];
            return ts__fail(r->err, TS_ERR_FORMAT, 0, block_at(b, at),
                            "%s: key '%s' %s key '%s' before it (the table's keys must be "
                            "sorted and unique)", b->what,
                            ts__printable(r->key, r->key_n, kb, sizeof kb),
                            c == 0 && r->key_n == r->prev_n ? "repeats the" : "sorts before the",
                            ts__printable(r->prev, r->prev_n, pb, sizeof pb));
        }
    }
    ts_status st = grow(r, &r->prev, &r->prev_cap, r->key_n + 1);
    if (st)
        return st;
    memcpy(r->prev, r->key, r->key_n);
    r->prev_n = r->key_n;
    r->nkeys++;
    return TS_OK;
}

static ts_status read_data_block(ck *r, ck_block *b)
{
    size_t vpos, vlen;
    int k;
    ts_status st = TS_OK;
    r->key_n = 0;
    while ((k = next_entry(r, b, &r->key, &r->key_n, &r->key_cap, &vpos, &vlen, &st)) == 1) {
        if ((st = check_order(r, b, vpos)))
            return st;
        if (r->nkeys == 1) {
            if (r->key_n != 0)
                return ts__fail(r->err, TS_ERR_FORMAT, 0, block_at(b, vpos),
                                "the first entry is not the header (BundleHeaderProto, under "
                                "the empty key): not a TensorFlow checkpoint index");
            if ((st = parse_header(r, b, vpos, vlen)))
                return st;
            continue;
        }
        if ((st = add_entry(r, b, vpos, vlen)))
            return st;
    }
    return k < 0 ? st : TS_OK;
}

static ts_status add_meta_int(ck *r, const char *key, long long v)
{
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%lld", v);
    return ts__file_add_metadata(r->f, key, strlen(key), buf, (size_t)n, r->err);
}

/* Walks the table of r->d[0..r->len) (bytes asked of r->img); *nblocks
 * receives the number of data blocks. */
static ts_status walk(ck *r, size_t *nblocks)
{
    const unsigned char *data = r->d;
    size_t len = r->len;
    ts_error *err = r->err;
    size_t tail = len < CK_FOOTER ? len : CK_FOOTER;
    ts_status st = ts__file_need(r->img, len - tail, tail, err);
    if (st)
        return st;
    if (len >= 8 && ts__le64(data + len - 8) == CK_MAGIC && len < CK_FOOTER)
        return ts__fail(err, TS_ERR_TRUNCATED, 0, 0,
                        "%zu bytes end with the table magic but cannot hold a table footer "
                        "(48 bytes)", len);
    if (len < 8 || ts__le64(data + len - 8) != CK_MAGIC)
        return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)(len < 8 ? 0 : len - 8),
                        "no table magic 0xdb4775248b80fb57 in the last 8 bytes: not a "
                        "TensorFlow checkpoint index");
    size_t pos = len - CK_FOOTER;
    uint64_t moff, msize, ioff, isize;
    if ((st = read_handle(r, data, &pos, len - 8, &moff, &msize, "the metaindex handle")) ||
        (st = read_handle(r, data, &pos, len - 8, &ioff, &isize, "the index handle")))
        return st;
    (void)moff;
    (void)msize;
    ck_block ix;
    memset(&ix, 0, sizeof ix);
    ix.what = "the index block";
    if ((st = open_block(r, ioff, isize, (int64_t)(len - CK_FOOTER), &ix)))
        return st;
    /* The index's keys are separators; its values the data blocks' handles,
     * which must follow each other. */
    uint64_t next_free = 0;
    size_t vpos, vlen;
    int k;
    *nblocks = 0;
    while (!st && (k = next_entry(r, &ix, &r->ikey, &r->ikey_n, &r->ikey_cap, &vpos, &vlen,
                                  &st)) == 1) {
        size_t p = vpos;
        uint64_t off, size;
        if ((st = read_handle(r, ix.base, &p, vpos + vlen, &off, &size, "a data block handle")))
            break;
        ck_block b;
        memset(&b, 0, sizeof b);
        snprintf(b.what_buf, sizeof b.what_buf, "data block %zu", *nblocks);
        b.what = b.what_buf;
        if (off < next_free) {
            st = ts__fail(err, TS_ERR_FORMAT, 0, block_at(&ix, vpos),
                          "%s at byte %llu overlaps the block before it (which ends at byte "
                          "%llu): data blocks follow each other", b.what,
                          (unsigned long long)off, (unsigned long long)next_free);
            break;
        }
        if (!(st = open_block(r, off, size, block_at(&ix, vpos), &b)))
            st = read_data_block(r, &b);
        close_block(r, &b);
        next_free = off + size + CK_TRAILER;
        (*nblocks)++;
    }
    close_block(r, &ix);
    if (st)
        return st;
    if (r->nkeys == 0)
        return ts__error(err, TS_ERR_FORMAT,
                         "the table is empty: no header (BundleHeaderProto under the empty "
                         "key), not a TensorFlow checkpoint index");
    return TS_OK;
}

static ts_status read_tfckpt(ts_file *f, const unsigned char *data, size_t len,
                             const ts_open_options *opts, ts_error *err)
{
    ck r;
    memset(&r, 0, sizeof r);
    r.f = r.img = f;
    r.d = data;
    r.len = len;
    r.opts = opts;
    r.err = err;
    if (opts->path) {
        const char *base = strrchr(opts->path, '/');
        base = base ? base + 1 : opts->path;
        size_t n = strlen(base);
        if (n > 6 && strcmp(base + n - 6, ".index") == 0) {
            r.prefix = ts__scratch_alloc(f, n - 5, err);
            if (!r.prefix)
                return TS_ERR_NOMEM;
            memcpy(r.prefix, base, n - 6);
            r.prefix[n - 6] = '\0';
        }
    }
    size_t nblocks;
    ts_status st = walk(&r, &nblocks);
    if (st)
        return st;
    ts__file_set_version(f, "V2");
    if (!opts->want_metadata)
        return TS_OK;
    if (!(st = add_meta_int(&r, "num_shards", r.num_shards)) &&
        !(st = ts__file_add_metadata(f, "endianness", 10, r.big ? "\"big\"" : "\"little\"",
                                     r.big ? 5 : 8, err)) &&
        !(st = add_meta_int(&r, "version.producer", r.producer)) &&
        !(st = add_meta_int(&r, "version.min_consumer", r.min_consumer)) &&
        !(st = add_meta_int(&r, "entries", (long long)(r.nkeys - 1))) &&
        !(st = add_meta_int(&r, "slices", (long long)r.slices)) &&
        !(st = add_meta_int(&r, "partitioned_variables", (long long)r.partitioned)) &&
        !(st = add_meta_int(&r, "data_blocks", (long long)nblocks)))
        st = add_meta_int(&r, "snappy_blocks", (long long)r.compressed);
    return st;
}

ts_status ts__tfckpt_variables(ts_file *f, const char *prefix, const ts_open_options *opts,
                               size_t *count, int *absent, ts_error *err)
{
    *absent = 0;
    ck r;
    memset(&r, 0, sizeof r);
    r.f = f;
    r.opts = opts;
    r.err = err;
    *count = 0;
    size_t pn = strlen(prefix);
    char *loc = ts__scratch_alloc(f, pn + 7, err);
    if (!loc)
        return TS_ERR_NOMEM;
    memcpy(loc, prefix, pn);
    memcpy(loc + pn, ".index", 7);
    r.prefix = (char *)(uintptr_t)prefix;
    char *resolved = NULL;
    int64_t size;
    int missing;
    ts_status st = ts__side_locate(opts, loc, "variables index", "the SavedModel", 0, &resolved,
                                   &size, &missing, err);
    ts_file *img = NULL;
    if (st && missing) { /* no variables: a model of constants only */
        *absent = 1;
        ts__scratch_free(f, loc);
        return TS_OK;
    }
    if (!st)
        st = ts__file_open_image(resolved, opts, &img, err);
    free(resolved);
    size_t nblocks;
    if (!st) {
        r.img = img;
        r.d = ts__file_image(img, &r.len);
        st = walk(&r, &nblocks);
        *count = r.arrays;
    }
    ts_file_close(img);
    if (st)
        ts__error_prefix(err, "%s", loc);
    ts__scratch_free(f, loc);
    return st;
}

const ts__reader ts__reader_tfckpt = {
    {TS_FORMAT_TFCKPT, "tfckpt", ".index",
     "table magic 0xdb4775248b80fb57 in the last 8 bytes (a LevelDB-format table)",
     "TensorFlow checkpoint (tensor bundle): PREFIX.index and its PREFIX.data-*-of-* shards, "
     "partitioned variables' slices, snappy blocks", "dtype", 1},
    probe_tfckpt,
    read_tfckpt,
    0,
};
