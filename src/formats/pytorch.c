/*
 * pytorch.c - reader for PyTorch torch.save files, header-only and without
 * running anything: the zip format (torch >= 1.6, any archive folder name),
 * the legacy format (_use_new_zipfile_serialization=False and torch < 1.6)
 * and TorchScript archives; Hugging Face pytorch_model.bin files are the
 * same formats; torch.export PT2 Archives (.pt2, torch >= 2.6) are read by
 * pt2.c. The old tar format, the 2018 zip preview, early TorchScript
 * (model.json) and the torch.export archives of torch 2.1 to 2.5 are
 * recognised and refused by name. See ../shared/docs/pytorch-format.md.
 *
 * The pickles are run by the restricted machine of pickle.c with the
 * allowlist below: storage types, tensor rebuild functions, dtypes,
 * OrderedDict and a few plain value builders, each with a fixed meaning
 * here. Any other global refuses the whole file at the opcode that names
 * it. Nothing is imported or called; the tree of values is then read:
 *
 *   1. load the pickle(s) into a value tree;
 *   2. count the leaves of the tree (memoised per node, so shared sub-trees
 *      cost nothing and a cycle is found), interpreting each tensor rebuild
 *      call on the way: storage (persistent id), geometry, dtype;
 *   3. find each storage's bytes: the zip member <p>/data/<key>, or the
 *      legacy blocks after the last pickle, in the order of the key list;
 *   4. walk the tree again and name every leaf (dict keys and list indices
 *      joined with '.'), then report tensors as arrays and the other
 *      leaves as metadata entries (JSON values).
 */
#include "npy_header.h"
#include "pickle.h"
#include "pickle_globals.h"
#include "pickle_numpy.h"
#include "zip.h"

#include <stdio.h>
#include <stdlib.h>

/* ------------------------------------------------------------------------ */
/* Limits                                                                    */
/* ------------------------------------------------------------------------ */

#define MAX_PICKLE_BYTES ((uint64_t)1 << 30)  /* a data.pkl is read whole */
#define PICKLE_FIRST_BYTES ((size_t)16 << 20) /* a deflated one inflates into this first */
#define MAX_DEPTH 1000                         /* container nesting */
#define MAX_LEAVES (10u << 20)                 /* names reported */
#define MAX_NAME 65536                         /* bytes in one name */
#define MAX_KEY_DEPTH 16                       /* tuples inside dict keys */
#define MAX_TENSOR_NESTING 8                   /* Parameter(tensor), sparse parts */

/* ------------------------------------------------------------------------ */
/* dtypes and storage types                                                  */
/* ------------------------------------------------------------------------ */

typedef struct dtype_row {
    const char *torch;        /* torch.<torch> */
    ts_dtype dt;              /* TS_DTYPE_UNKNOWN: tshape has none */
    const char *name;         /* NumPy-style name reported */
    int bits;
} dtype_row;

/* torch dtype names (with the aliases torch.float, torch.long, ...). */
static const dtype_row dtypes[] = {
    {"float32", TS_DTYPE_FLOAT32, "float32", 32},
    {"float64", TS_DTYPE_FLOAT64, "float64", 64},
    {"float16", TS_DTYPE_FLOAT16, "float16", 16},
    {"bfloat16", TS_DTYPE_BFLOAT16, "bfloat16", 16},
    {"int8", TS_DTYPE_INT8, "int8", 8},
    {"uint8", TS_DTYPE_UINT8, "uint8", 8},
    {"int16", TS_DTYPE_INT16, "int16", 16},
    {"int32", TS_DTYPE_INT32, "int32", 32},
    {"int64", TS_DTYPE_INT64, "int64", 64},
    {"bool", TS_DTYPE_BOOL, "bool", 8},
    {"complex64", TS_DTYPE_COMPLEX64, "complex64", 64},
    {"complex128", TS_DTYPE_COMPLEX128, "complex128", 128},
    {"uint16", TS_DTYPE_UINT16, "uint16", 16},
    {"uint32", TS_DTYPE_UINT32, "uint32", 32},
    {"uint64", TS_DTYPE_UINT64, "uint64", 64},
    {"float8_e5m2", TS_DTYPE_FLOAT8_E5M2, "float8_e5m2", 8},
    {"float8_e4m3fn", TS_DTYPE_FLOAT8_E4M3FN, "float8_e4m3fn", 8},
    {"float8_e5m2fnuz", TS_DTYPE_FLOAT8_E5M2FNUZ, "float8_e5m2fnuz", 8},
    {"float8_e4m3fnuz", TS_DTYPE_FLOAT8_E4M3FNUZ, "float8_e4m3fnuz", 8},
    {"float8_e8m0fnu", TS_DTYPE_FLOAT8_E8M0FNU, "float8_e8m0fnu", 8},
    {"complex32", TS_DTYPE_UNKNOWN, "complex32", 32},
    {"float4_e2m1fn_x2", TS_DTYPE_UNKNOWN, "float4_e2m1fn_x2", 8},
    {"qint8", TS_DTYPE_UNKNOWN, "qint8", 8},
    {"quint8", TS_DTYPE_UNKNOWN, "quint8", 8},
    {"qint32", TS_DTYPE_UNKNOWN, "qint32", 32},
    {"quint4x2", TS_DTYPE_UNKNOWN, "quint4x2", 8},
    {"quint2x4", TS_DTYPE_UNKNOWN, "quint2x4", 8},
    {"bits1x8", TS_DTYPE_UNKNOWN, "bits1x8", 8},
    {"bits2x4", TS_DTYPE_UNKNOWN, "bits2x4", 8},
    {"bits4x2", TS_DTYPE_UNKNOWN, "bits4x2", 8},
    {"bits8", TS_DTYPE_UNKNOWN, "bits8", 8},
    {"bits16", TS_DTYPE_UNKNOWN, "bits16", 16},
    /* aliases */
    {"float", TS_DTYPE_FLOAT32, "float32", 32},
    {"double", TS_DTYPE_FLOAT64, "float64", 64},
    {"half", TS_DTYPE_FLOAT16, "float16", 16},
    {"short", TS_DTYPE_INT16, "int16", 16},
    {"int", TS_DTYPE_INT32, "int32", 32},
    {"long", TS_DTYPE_INT64, "int64", 64},
    {"cfloat", TS_DTYPE_COMPLEX64, "complex64", 64},
    {"cdouble", TS_DTYPE_COMPLEX128, "complex128", 128},
    {"chalf", TS_DTYPE_UNKNOWN, "complex32", 32},
};
#define N_DTYPES (sizeof dtypes / sizeof *dtypes)
enum { DT_UINT8 = 5 }; /* the bytes of an untyped storage */

/* torch.<Name>Storage (or torch.cuda.<Name>Storage) -> row of dtypes[]. */
static const struct {
    const char *name;
    int dtype;
} storage_types[] = {
    {"FloatStorage", 0},   {"DoubleStorage", 1},  {"HalfStorage", 2},
    {"BFloat16Storage", 3}, {"CharStorage", 4},   {"ByteStorage", 5},
    {"ShortStorage", 6},   {"IntStorage", 7},     {"LongStorage", 8},
    {"BoolStorage", 9},    {"ComplexFloatStorage", 10}, {"ComplexDoubleStorage", 11},
    {"QInt8Storage", 22},  {"QUInt8Storage", 23}, {"QInt32Storage", 24},
    {"QUInt4x2Storage", 25}, {"QUInt2x4Storage", 26},
};

static const char *const qschemes[] = {
    "per_tensor_affine", "per_channel_affine", "per_tensor_symmetric",
    "per_channel_symmetric", "per_channel_affine_float_qparams",
};

/* ------------------------------------------------------------------------ */
/* The allowlist                                                             */
/* ------------------------------------------------------------------------ */

/* Tags: the low 8 bits say what a global is, the rest index a table. */
enum {
    G_STORAGE = 1,            /* << 8: dtypes[] row */
    G_UNTYPED_STORAGE,
    G_DTYPE,                  /* << 8: dtypes[] row */
    G_QSCHEME,                /* << 8: qschemes[] index */
    G_REBUILD_TENSOR,         /* (storage, offset, size, stride) */
    G_REBUILD_TENSOR_V2,      /* (..., requires_grad, hooks[, metadata]) */
    G_REBUILD_TENSOR_V3,      /* (..., requires_grad, hooks, dtype[, metadata]) */
    G_REBUILD_PARAMETER,      /* (data, requires_grad, hooks) */
    G_REBUILD_PARAMETER_STATE, /* (data, requires_grad, hooks, state) */
    G_REBUILD_FROM_TYPE_V2,   /* (func, type, args, state) */
    G_REBUILD_QTENSOR,        /* (storage, offset, size, stride, qparams, rg, hooks) */
    G_REBUILD_SPARSE,         /* (layout, data) */
    G_REBUILD_SPARSE_CSR,     /* (layout, data), torch 1.x */
    G_REBUILD_META,           /* (dtype, size, stride, requires_grad) */
    G_REBUILD_DEVICE_FROM_CPU, /* (data, dtype, device, requires_grad) */
    G_REBUILD_UNSUPPORTED,    /* nested, wrapper subclasses, numpy, xla */
    G_ORDERED_DICT,
    G_SIZE,
    G_DEVICE,
    G_GET_LAYOUT,
    G_TENSOR_CLASS,
    G_PARAMETER_CLASS,
    G_SET,
    G_FROZENSET,
    G_COMPLEX,
    G_BYTEARRAY,
    G_ENCODE,
    G_TS_CLASS,               /* __torch__.* (TorchScript only) */
    G_JIT_LIST,               /* torch.jit._pickle.build_intlist ... */
    G_JIT_TENSORLIST,
    G_RESTORE_TYPE_TAG,
    G_INERT,                  /* a placeholder: never called (pickle.h) */
};
#define TAG(kind, index) ((kind) | ((index) << 8))
#define TAG_KIND(tag) ((tag) & 0xff)
#define TAG_INDEX(tag) ((tag) >> 8)

typedef struct allow_row {
    const char *module, *name;
    ts__pk_role role;
    int tag;
} allow_row;

static const allow_row allowed[] = {
    {"torch", "UntypedStorage", TS__PK_CONST, G_UNTYPED_STORAGE},
    {"torch.storage", "UntypedStorage", TS__PK_CONST, G_UNTYPED_STORAGE},
    {"torch._utils", "_rebuild_tensor", TS__PK_CALLABLE, G_REBUILD_TENSOR},
    {"torch._utils", "_rebuild_tensor_v2", TS__PK_CALLABLE, G_REBUILD_TENSOR_V2},
    {"torch._utils", "_rebuild_tensor_v3", TS__PK_CALLABLE, G_REBUILD_TENSOR_V3},
    {"torch._utils", "_rebuild_parameter", TS__PK_CALLABLE, G_REBUILD_PARAMETER},
    {"torch._utils", "_rebuild_parameter_with_state", TS__PK_CALLABLE,
     G_REBUILD_PARAMETER_STATE},
    {"torch._tensor", "_rebuild_from_type_v2", TS__PK_CALLABLE, G_REBUILD_FROM_TYPE_V2},
    {"torch._utils", "_rebuild_qtensor", TS__PK_CALLABLE, G_REBUILD_QTENSOR},
    {"torch._utils", "_rebuild_sparse_tensor", TS__PK_CALLABLE, G_REBUILD_SPARSE},
    {"torch._utils", "_rebuild_sparse_csr_tensor", TS__PK_CALLABLE, G_REBUILD_SPARSE_CSR},
    {"torch._utils", "_rebuild_meta_tensor_no_storage", TS__PK_CALLABLE, G_REBUILD_META},
    {"torch._utils", "_rebuild_device_tensor_from_cpu_tensor", TS__PK_CALLABLE,
     G_REBUILD_DEVICE_FROM_CPU},
    {"torch._utils", "_rebuild_nested_tensor", TS__PK_CALLABLE, G_REBUILD_UNSUPPORTED},
    {"torch._utils", "_rebuild_wrapper_subclass", TS__PK_CALLABLE, G_REBUILD_UNSUPPORTED},
    {"torch._utils", "_rebuild_device_tensor_from_numpy", TS__PK_CALLABLE,
     G_REBUILD_UNSUPPORTED},
    {"torch._utils", "_rebuild_xla_tensor", TS__PK_CALLABLE, G_REBUILD_UNSUPPORTED},
    {"torch._utils", "_rebuild_mlc_tensor", TS__PK_CALLABLE, G_REBUILD_UNSUPPORTED},
    {"collections", "OrderedDict", TS__PK_DICT_TYPE, G_ORDERED_DICT},
    {"collections", "Counter", TS__PK_DICT_TYPE, G_ORDERED_DICT},
    {"torch", "Size", TS__PK_CALLABLE, G_SIZE},
    {"torch", "device", TS__PK_CALLABLE, G_DEVICE},
    {"torch.serialization", "_get_layout", TS__PK_CALLABLE, G_GET_LAYOUT},
    {"torch", "Tensor", TS__PK_CONST, G_TENSOR_CLASS},
    {"torch._tensor", "Tensor", TS__PK_CONST, G_TENSOR_CLASS},
    {"torch.nn.parameter", "Parameter", TS__PK_CONST, G_PARAMETER_CLASS},
    {"builtins", "set", TS__PK_CALLABLE, G_SET},
    {"builtins", "frozenset", TS__PK_CALLABLE, G_FROZENSET},
    {"builtins", "complex", TS__PK_CALLABLE, G_COMPLEX},
    {"builtins", "bytearray", TS__PK_CALLABLE, G_BYTEARRAY},
    {"_codecs", "encode", TS__PK_CALLABLE, G_ENCODE},
    {"torch.jit._pickle", "build_intlist", TS__PK_CALLABLE, G_JIT_LIST},
    {"torch.jit._pickle", "build_doublelist", TS__PK_CALLABLE, G_JIT_LIST},
    {"torch.jit._pickle", "build_boollist", TS__PK_CALLABLE, G_JIT_LIST},
    {"torch.jit._pickle", "build_tensorlist", TS__PK_CALLABLE, G_JIT_TENSORLIST},
    {"torch.jit._pickle", "restore_type_tag", TS__PK_CALLABLE, G_RESTORE_TYPE_TAG},
};

static int text_is(const char *s, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

/* The reader's state for one file. */
typedef struct storage storage;
typedef struct tensor tensor;

typedef struct strmap {
    struct slot {
        const char *s;
        size_t len;
        size_t val;
    } *slots;
    size_t cap, n;
    uint64_t seed;           /* names come from the file: a seeded hash */
} strmap;

typedef struct chunk {
    struct chunk *next;
    size_t used, cap;
    int64_t data[];
} chunk;

typedef struct entry {
    const char *name;        /* owned by the file */
    tensor *t;               /* a tensor, or NULL for a value */
    const ts__pk_value *v;   /* the value */
} entry;

typedef struct ctx {
    ts_file *f;
    const ts_open_options *opts;
    ts_error *err;
    const unsigned char *file;
    size_t file_len;
    ts__pk *pk;
    int torchscript;
    int legacy;
    char byteorder;          /* '<' or '>' */
    /* the pickle of the objects */
    const char *where;       /* "cnn/data.pkl", "object pickle" */
    int64_t base;            /* file offset of that pickle's input, or -1 */
    size_t pickle_len;
    /* zip */
    ts__zip *zip;
    strmap members;          /* name -> member index */
    const char *prefix;      /* "<p>" */
    size_t prefix_len;
    /* storages */
    storage **storages;
    size_t nstorages, storages_cap;
    strmap keys;             /* key -> storage index */
    /* leaves */
    entry *entries;
    size_t nentries, entries_cap;
    uint64_t name_bytes, name_budget;
    chunk *chunks;
    int nesting;             /* tensor interpretation depth */
    /* legacy: the key list and where the storages start */
    const ts__pk_value *legacy_keys;
    size_t legacy_data;
    const unsigned char *pk_data; /* the input of the last load */
    const char *storage_dir; /* zip: "data" (data.pkl), "constants" */
    int plain;               /* a plain pickle (no persistent ids) */
    int joblib;              /* it holds joblib array wrappers */
} ctx;

static ts__pk_role classify(void *vc, const char *mod, size_t ml, const char *name, size_t nl,
                            int *tag)
{
    ctx *c = vc;
    for (size_t i = 0; i < sizeof allowed / sizeof *allowed; i++)
        if (text_is(mod, ml, allowed[i].module) && text_is(name, nl, allowed[i].name)) {
            *tag = allowed[i].tag;
            return allowed[i].role;
        }
    if (text_is(mod, ml, "torch") || text_is(mod, ml, "torch.cuda")) {
        for (size_t i = 0; i < sizeof storage_types / sizeof *storage_types; i++)
            if (text_is(name, nl, storage_types[i].name)) {
                *tag = TAG(G_STORAGE, storage_types[i].dtype);
                return TS__PK_CONST;
            }
    }
    if (text_is(mod, ml, "torch")) {
        for (size_t i = 0; i < N_DTYPES; i++)
            if (text_is(name, nl, dtypes[i].torch)) {
                *tag = TAG(G_DTYPE, (int)i);
                return TS__PK_CONST;
            }
        for (size_t i = 0; i < sizeof qschemes / sizeof *qschemes; i++)
            if (text_is(name, nl, qschemes[i])) {
                *tag = TAG(G_QSCHEME, (int)i);
                return TS__PK_CONST;
            }
    }
    /* TorchScript classes: inert records of attributes, never looked up. */
    if (c->torchscript && ml > 10 && memcmp(mod, "__torch__.", 10) == 0) {
        *tag = G_TS_CLASS;
        return TS__PK_CLASS;
    }
    if (c->torchscript && text_is(mod, ml, "__torch__")) {
        *tag = G_TS_CLASS;
        return TS__PK_CLASS;
    }
    if (text_is(mod, ml, "collections") && text_is(name, nl, "defaultdict")) {
        *tag = G_ORDERED_DICT;
        return TS__PK_DICT_TYPE;
    }
    /* Anything else torch.load would import: refused when it is known to
     * run code, else an inert placeholder (NumPy arrays and scalars are
     * read from theirs, pickle_numpy.h) */
    if (ts__global_danger(mod, ml, name, nl))
        return TS__PK_REFUSE;
    *tag = G_INERT;
    return TS__PK_INERT;
}

/* ------------------------------------------------------------------------ */
/* Small helpers: arena, string map, messages                                */
/* ------------------------------------------------------------------------ */

static void *arena(ctx *c, size_t n)
{
    n = (n + 7) & ~(size_t)7;
    chunk *k = c->chunks;
    if (!k || k->cap - k->used < n) {
        size_t cap = n > 65536 ? n : 65536;
        k = ts__scratch_alloc(c->f, sizeof *k + cap, NULL);
        if (!k) {
            ts__error(c->err, TS_ERR_NOMEM, "out of memory");
            return NULL;
        }
        k->used = 0;
        k->cap = cap;
        k->next = c->chunks;
        c->chunks = k;
    }
    void *p = (char *)k->data + k->used;
    k->used += n;
    memset(p, 0, n);
    return p;
}

/* FNV-1a from a seed (an address: different in every process, so a file
 * cannot choose names that collide), then splitmix64's finaliser. */
static uint64_t hash_bytes(uint64_t seed, const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull ^ seed;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
    h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
    return h ^ (h >> 31);
}

static size_t strmap_find(const strmap *m, const char *s, size_t n)
{
    size_t mask = m->cap - 1, i = (size_t)hash_bytes(m->seed, s, n) & mask;
    while (m->slots[i].s && !(m->slots[i].len == n && memcmp(m->slots[i].s, s, n) == 0))
        i = (i + 1) & mask;
    return i;
}

/* 1 and *val when found. */
static int strmap_get(const strmap *m, const char *s, size_t n, size_t *val)
{
    if (!m->cap)
        return 0;
    size_t i = strmap_find(m, s, n);
    if (!m->slots[i].s)
        return 0;
    *val = m->slots[i].val;
    return 1;
}

/* Adds s (which must stay valid) unless present. */
static ts_status strmap_put(ctx *c, strmap *m, const char *s, size_t n, size_t val)
{
    if ((m->n + 1) * 2 > m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        struct slot *old = m->slots;
        if (!m->cap)
            m->seed = (uint64_t)(uintptr_t)m * 0x9E3779B97F4A7C15ull;
        size_t ocap = m->cap;
        m->slots = ts__scratch_alloc(c->f, cap * sizeof *m->slots, NULL);
        if (m->slots)
            memset(m->slots, 0, cap * sizeof *m->slots);
        if (!m->slots) {
            m->slots = old;
            return ts__error(c->err, TS_ERR_NOMEM, "out of memory for a table of %zu names",
                             cap);
        }
        m->cap = cap;
        for (size_t i = 0; i < ocap; i++)
            if (old[i].s)
                m->slots[strmap_find(m, old[i].s, old[i].len)] = old[i];
        ts__scratch_free(c->f, old);
    }
    size_t i = strmap_find(m, s, n);
    if (!m->slots[i].s) {
        m->slots[i].s = s;
        m->slots[i].len = n;
        m->slots[i].val = val;
        m->n++;
    }
    return TS_OK;
}

/* An error about the pickle value v: "<where> byte N: message". */
static ts_status vfail(ctx *c, ts_status code, const ts__pk_value *v, const char *fmt, ...)
    TS__PRINTF(4, 5);
static ts_status vfail(ctx *c, ts_status code, const ts__pk_value *v, const char *fmt, ...)
{
    char msg[TS_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int64_t at = v && v->offset >= 0 ? v->offset : -1;
    if (at < 0)
        return ts__fail(c->err, code, 0, -1, "%s: %s", c->where, msg);
    return ts__fail(c->err, code, 0, c->base >= 0 ? c->base + at : -1, "%s byte %lld: %s",
                    c->where, (long long)at, msg);
}

static const char *kind_of(const ts__pk_value *v)
{
    return ts__pk_kind_name(v->kind);
}

/* module.name of a GLOBAL, printable, into buf (GLOBAL_TEXT bytes). */
#define GLOBAL_TEXT 320
static const char *global_text(const ts__pk_value *g, char *buf, size_t cap)
{
    if (!g || g->kind != TS__PK_GLOBAL) {
        snprintf(buf, cap, "(what a call returned)");
        return buf;
    }
    char m[128], n[128];
    ts__printable(g->u.g.module, g->u.g.module_len, m, sizeof m);
    ts__printable(g->u.g.name, g->u.g.name_len, n, sizeof n);
    snprintf(buf, cap, "%s.%s", m, n);
    return buf;
}

static int tag_kind(const ts__pk_value *v)
{
    return v && v->kind == TS__PK_GLOBAL ? TAG_KIND(v->tag) : 0;
}

/* The callee tag of a CALL node, 0 for anything else. */
static int call_tag(const ts__pk_value *v)
{
    return v && v->kind == TS__PK_CALL ? tag_kind(v->func) : 0;
}

static size_t nargs(const ts__pk_value *call)
{
    return call->args ? call->args->u.seq.n : 0;
}

static ts__pk_value *arg(const ts__pk_value *call, size_t i)
{
    return call->args->u.seq.v[i];
}

/* ------------------------------------------------------------------------ */
/* Storages and tensors                                                      */
/* ------------------------------------------------------------------------ */

struct storage {
    const char *key;         /* points into the pickle input */
    size_t key_len;
    int dtype;               /* dtypes[] row of the storage type */
    int untyped;             /* torch.UntypedStorage: numel counts bytes */
    const char *type_text;   /* "torch.FloatStorage" (file-owned) */
    const char *location;    /* "cpu", "cuda:0" (file-owned) */
    int64_t numel, itemsize, nbytes;
    int64_t data_offset;     /* absolute, or -1 when not addressable */
    int located;             /* its bytes were found */
    int deflated;            /* its member is not stored: method */
    int method;
    int64_t comp_offset, comp_size; /* deflated: the member's stream */
    uint32_t crc32;
    const char *report_key;  /* ts_array.storage_key (file-owned) */
    const ts__pk_value *pid; /* for messages */
    size_t *users;           /* entries on this storage, for notes */
    size_t nusers, users_cap;
};

enum { K_TENSOR, K_PARAMETER, K_QUANTIZED, K_META, K_SPARSE, K_STORAGE, K_UNSUPPORTED,
       K_NUMPY };

struct tensor {
    int kind;
    storage *s;              /* NULL for meta, sparse, unsupported */
    int dtype;               /* dtypes[] row, -1 unknown */
    const char *format_dtype;
    int ndim;
    int64_t *shape, *stride;
    int64_t storage_offset;
    int requires_grad;
    const char *device;      /* overrides the storage's location */
    const char *extra;       /* kind details for the note (file-owned) */
    size_t uses;             /* entries that report this record */
    tensor *comp[3];         /* sparse indices/values, per-channel qparams */
    const char *comp_name[3];
    int ncomp;
    ts__np_array *np;        /* K_NUMPY: a NumPy array inside the pickle */
};

static ts_status need_int(ctx *c, const ts__pk_value *v, const char *what, int64_t *out)
{
    if (v->kind == TS__PK_INT || v->kind == TS__PK_BOOL) {
        *out = v->u.i;
        return TS_OK;
    }
    if (v->kind == TS__PK_BIGINT)
        return vfail(c, TS_ERR_OVERFLOW, v, "%s is an integer of %zu bytes, beyond int64", what,
                     v->u.s.n);
    return vfail(c, TS_ERR_FORMAT, v, "%s is a %s, not an int", what, kind_of(v));
}

/* A size or stride: a tuple, a list or a torch.Size of ints >= 0. */
static ts_status need_dims(ctx *c, const ts__pk_value *v, const char *what, int64_t **out,
                           int *ndim)
{
    if (call_tag(v) == G_SIZE && nargs(v) == 1)
        v = arg(v, 0);
    if (v->kind != TS__PK_TUPLE && v->kind != TS__PK_LIST)
        return vfail(c, TS_ERR_FORMAT, v, "tensor %s is a %s, not a tuple", what, kind_of(v));
    if (v->u.seq.n > TS_MAX_NDIM)
        return vfail(c, TS_ERR_NDIM, v, "tensor %s has %zu dims, more than %d", what,
                     v->u.seq.n, TS_MAX_NDIM);
    int n = (int)v->u.seq.n;
    int64_t *d = arena(c, (size_t)(n ? n : 1) * sizeof *d);
    if (!d)
        return TS_ERR_NOMEM;
    for (int i = 0; i < n; i++) {
        ts_status st = need_int(c, v->u.seq.v[i], what, &d[i]);
        if (st)
            return st;
        if (d[i] < 0)
            return vfail(c, TS_ERR_VALUE, v, "tensor %s has a negative entry %lld", what,
                         (long long)d[i]);
    }
    *out = d;
    *ndim = n;
    return TS_OK;
}

/* A str value as file-owned text. */
static const char *file_text(ctx *c, const ts__pk_value *v)
{
    return ts__file_strndup(c->f, (const char *)v->u.s.p, v->u.s.n, c->err);
}

static ts_status add_storage(ctx *c, storage *s)
{
    if (c->nstorages == c->storages_cap) {
        size_t cap = c->storages_cap ? c->storages_cap * 2 : 16;
        storage **p = ts__scratch_realloc(c->f, c->storages, cap * sizeof *p, NULL);
        if (!p)
            return ts__error(c->err, TS_ERR_NOMEM, "out of memory for %zu storages", cap);
        c->storages = p;
        c->storages_cap = cap;
    }
    c->storages[c->nstorages] = s;
    return strmap_put(c, &c->keys, s->key, s->key_len, c->nstorages++);
}

/*
 * A persistent id: ('storage', storage_type, key, location, numel) in zip
 * archives, with a sixth field view_metadata (None) in legacy files.
 */
static ts_status get_storage(ctx *c, ts__pk_value *pid, storage **out)
{
    if (pid->aux) {
        *out = pid->aux;
        return TS_OK;
    }
    const ts__pk_value *t = pid->args;
    size_t want = c->legacy ? 6 : 5;
    if (t->kind != TS__PK_TUPLE || t->u.seq.n == 0)
        return vfail(c, TS_ERR_UNSUPPORTED, pid, "persistent id is a %s, not a tuple "
                     "('storage', ...)", kind_of(t));
    const ts__pk_value *k0 = t->u.seq.v[0];
    if (k0->kind != TS__PK_STR || !text_is((const char *)k0->u.s.p, k0->u.s.n, "storage")) {
        char what[64] = "a non-string";
        if (k0->kind == TS__PK_STR)
            ts__printable((const char *)k0->u.s.p, k0->u.s.n, what, sizeof what);
        return vfail(c, TS_ERR_UNSUPPORTED, pid, "persistent id of kind '%s': only storages "
                     "('storage', ...) are supported (legacy 'module' ids hold pickled "
                     "nn.Module source)", what);
    }
    if (t->u.seq.n != want)
        return vfail(c, TS_ERR_FORMAT, pid, "storage persistent id has %zu fields, expected "
                     "%zu", t->u.seq.n, want);
    const ts__pk_value *type = t->u.seq.v[1], *key = t->u.seq.v[2], *loc = t->u.seq.v[3];
    int tk = tag_kind(type);
    if (tk != G_STORAGE && tk != G_UNTYPED_STORAGE)
        return vfail(c, TS_ERR_FORMAT, pid, "storage type is a %s, not a storage class",
                     kind_of(type));
    if (key->kind != TS__PK_STR)
        return vfail(c, TS_ERR_FORMAT, pid, "storage key is a %s, not a str", kind_of(key));
    if (key->u.s.n == 0 || memchr(key->u.s.p, '\0', key->u.s.n) || key->u.s.n > 256)
        return vfail(c, TS_ERR_FORMAT, pid, "storage key of %zu bytes is empty, too long or "
                     "holds a NUL byte", key->u.s.n);
    if (loc->kind != TS__PK_STR)
        return vfail(c, TS_ERR_FORMAT, pid, "storage location is a %s, not a str",
                     kind_of(loc));
    int64_t numel;
    ts_status st = need_int(c, t->u.seq.v[4], "storage size", &numel);
    if (st)
        return st;
    if (numel < 0)
        return vfail(c, TS_ERR_VALUE, pid, "storage size %lld is negative", (long long)numel);
    if (c->legacy && t->u.seq.v[5]->kind != TS__PK_NONE)
        return vfail(c, TS_ERR_UNSUPPORTED, pid, "storage views (view_metadata of torch "
                     "before 0.4) are not supported");
    int dtype = tk == G_STORAGE ? TAG_INDEX(type->tag) : DT_UINT8;
    int64_t itemsize = dtypes[dtype].bits / 8, nbytes;
    if (ts__mul_overflow(numel, itemsize, &nbytes))
        return vfail(c, TS_ERR_OVERFLOW, pid, "storage of %lld elements of %lld bytes "
                     "overflows int64", (long long)numel, (long long)itemsize);
    size_t idx;
    if (strmap_get(&c->keys, (const char *)key->u.s.p, key->u.s.n, &idx)) {
        storage *s = c->storages[idx];
        if (s->dtype != dtype || s->numel != numel || s->untyped != (tk == G_UNTYPED_STORAGE)) {
            char k[96], ty[GLOBAL_TEXT];
            return vfail(c, TS_ERR_FORMAT, pid, "storage '%s' is named again with another "
                         "type or size (%s of %lld elements; first %s of %lld)",
                         ts__printable((const char *)key->u.s.p, key->u.s.n, k, sizeof k),
                         global_text(type, ty, sizeof ty), (long long)numel, s->type_text,
                         (long long)s->numel);
        }
        pid->aux = s;
        *out = s;
        return TS_OK;
    }
    storage *s = arena(c, sizeof *s);
    if (!s)
        return TS_ERR_NOMEM;
    char buf[GLOBAL_TEXT];
    s->key = (const char *)key->u.s.p;
    s->key_len = key->u.s.n;
    s->dtype = dtype;
    s->untyped = tk == G_UNTYPED_STORAGE;
    s->type_text = ts__file_strndup(c->f, buf, strlen(global_text(type, buf, sizeof buf)),
                                    c->err);
    s->location = file_text(c, loc);
    s->numel = numel;
    s->itemsize = itemsize;
    s->nbytes = nbytes;
    s->data_offset = -1;
    s->comp_offset = -1;
    s->comp_size = 0;
    s->crc32 = 0;
    s->pid = pid;
    if (!s->type_text || !s->location)
        return TS_ERR_NOMEM;
    if ((st = add_storage(c, s)))
        return st;
    pid->aux = s;
    *out = s;
    return TS_OK;
}

static tensor *new_tensor(ctx *c, int kind)
{
    tensor *t = arena(c, sizeof *t);
    if (t) {
        t->kind = kind;
        t->dtype = -1;
    }
    return t;
}

/* The geometry of t must lie inside its storage (elements of the tensor's
 * dtype; an untyped storage holds bytes). */
static ts_status check_geometry(ctx *c, const ts__pk_value *at, tensor *t)
{
    int64_t last = t->storage_offset, size = 1;
    for (int i = 0; i < t->ndim; i++) {
        int64_t step;
        if (ts__mul_overflow(size, t->shape[i], &size) ||
            (t->shape[i] > 0 && (ts__mul_overflow(t->shape[i] - 1, t->stride[i], &step) ||
                                 ts__add_overflow(last, step, &last))))
            return vfail(c, TS_ERR_OVERFLOW, at, "tensor geometry overflows int64");
    }
    if (size == 0 || !t->s)
        return TS_OK;
    int64_t itemsize = dtypes[t->dtype].bits / 8, need;
    if (ts__add_overflow(last, 1, &need) || ts__mul_overflow(need, itemsize, &need))
        return vfail(c, TS_ERR_OVERFLOW, at, "tensor geometry overflows int64");
    if (need > t->s->nbytes) {
        char k[96], sh[TS__SHAPE_STR_MAX], sd[TS__SHAPE_STR_MAX];
        return vfail(c, TS_ERR_FORMAT, at, "tensor of shape %s, stride %s and storage offset "
                     "%lld needs %lld bytes of storage '%s', which has %lld",
                     ts__dims_str(t->shape, t->ndim, sh, sizeof sh),
                     ts__dims_str(t->stride, t->ndim, sd, sizeof sd),
                     (long long)t->storage_offset, (long long)need,
                     ts__printable(t->s->key, t->s->key_len, k, sizeof k),
                     (long long)t->s->nbytes);
    }
    return TS_OK;
}

static ts_status get_tensor(ctx *c, ts__pk_value *v, const char *what, tensor **out);
static void py_float(double x, char *out, size_t cap);

/* storage, storage_offset, size, stride: the common head of the rebuild
 * functions. dtype: -1 to take the storage's. */
static ts_status rebuild_strided(ctx *c, ts__pk_value *at, ts__pk_value *const *a, int kind,
                                 int dtype, tensor **out)
{
    if (a[0]->kind != TS__PK_PERSID)
        return vfail(c, TS_ERR_FORMAT, at, "tensor storage is a %s, not a persistent id",
                     kind_of(a[0]));
    tensor *t = new_tensor(c, kind);
    if (!t)
        return TS_ERR_NOMEM;
    ts_status st = get_storage(c, a[0], &t->s);
    int n2 = 0;
    if (!st)
        st = need_int(c, a[1], "storage offset", &t->storage_offset);
    if (!st && t->storage_offset < 0)
        st = vfail(c, TS_ERR_VALUE, at, "storage offset %lld is negative",
                   (long long)t->storage_offset);
    if (!st)
        st = need_dims(c, a[2], "size", &t->shape, &t->ndim);
    if (!st)
        st = need_dims(c, a[3], "stride", &t->stride, &n2);
    if (!st && n2 != t->ndim)
        st = vfail(c, TS_ERR_FORMAT, at, "tensor size has %d dims but stride has %d", t->ndim,
                   n2);
    if (st)
        return st;
    t->dtype = dtype >= 0 ? dtype : t->s->dtype;
    if (dtype >= 0 && !t->s->untyped && t->s->dtype != dtype)
        return vfail(c, TS_ERR_FORMAT, at, "tensor of dtype %s on a %s", dtypes[dtype].name,
                     t->s->type_text);
    t->format_dtype = t->s->type_text;
    if ((st = check_geometry(c, at, t)))
        return st;
    *out = t;
    return TS_OK;
}

static ts_status need_dtype(ctx *c, const ts__pk_value *v, int *dtype)
{
    if (tag_kind(v) != G_DTYPE)
        return vfail(c, TS_ERR_FORMAT, v, "expected a torch dtype, found a %s", kind_of(v));
    *dtype = TAG_INDEX(v->tag);
    return TS_OK;
}

/* "cuda:0" from a torch.device call or a str. */
static const char *device_text(ctx *c, const ts__pk_value *v)
{
    if (v->kind == TS__PK_STR)
        return file_text(c, v);
    if (call_tag(v) != G_DEVICE || nargs(v) < 1 || arg(v, 0)->kind != TS__PK_STR)
        return NULL;
    const ts__pk_value *type = arg(v, 0);
    if (nargs(v) >= 2 && arg(v, 1)->kind == TS__PK_INT)
        return ts__file_printf(c->f, c->err, "%.*s:%lld", (int)(type->u.s.n > 64 ? 64 : type->u.s.n),
                               (const char *)type->u.s.p, (long long)arg(v, 1)->u.i);
    return file_text(c, type);
}

static const char *layout_name(const ts__pk_value *v, size_t *n)
{
    if (call_tag(v) == G_GET_LAYOUT && nargs(v) == 1 && arg(v, 0)->kind == TS__PK_STR) {
        const ts__pk_value *s = arg(v, 0);
        const char *p = (const char *)s->u.s.p;
        *n = s->u.s.n;
        if (*n > 6 && memcmp(p, "torch.", 6) == 0) {
            p += 6;
            *n -= 6;
        }
        return p;
    }
    return NULL;
}

/* _rebuild_sparse_tensor(layout, data) */
static ts_status rebuild_sparse(ctx *c, ts__pk_value *call, tensor **out)
{
    size_t ln = 0;
    const char *layout = nargs(call) == 2 ? layout_name(arg(call, 0), &ln) : NULL;
    if (!layout)
        return vfail(c, TS_ERR_FORMAT, call, "sparse tensor without a layout");
    ts__pk_value *data = arg(call, 1);
    if (data->kind != TS__PK_TUPLE)
        return vfail(c, TS_ERR_FORMAT, call, "sparse tensor data is a %s, not a tuple",
                     kind_of(data));
    int coo = text_is(layout, ln, "sparse_coo");
    int csc = text_is(layout, ln, "sparse_csc") || text_is(layout, ln, "sparse_bsc");
    int csr = text_is(layout, ln, "sparse_csr") || text_is(layout, ln, "sparse_bsr");
    if (!coo && !csr && !csc) {
        char l[64];
        return vfail(c, TS_ERR_UNSUPPORTED, call, "sparse layout '%s' is not supported",
                     ts__printable(layout, ln, l, sizeof l));
    }
    size_t need = coo ? 3 : 4, n = data->u.seq.n;
    if (n < need || n > need + 1)
        return vfail(c, TS_ERR_FORMAT, call, "sparse tensor data has %zu fields, expected "
                     "%zu", n, need);
    tensor *t = new_tensor(c, K_SPARSE);
    if (!t)
        return TS_ERR_NOMEM;
    ts__pk_value *const *d = data->u.seq.v;
    tensor *values = NULL, *idx[2] = {NULL, NULL};
    ts_status st = TS_OK;
    int nidx = coo ? 1 : 2;
    for (int i = 0; i < nidx && !st; i++)
        st = get_tensor(c, d[i], "sparse indices", &idx[i]);
    if (!st)
        st = get_tensor(c, d[nidx], "sparse values", &values);
    if (!st)
        st = need_dims(c, d[nidx + 1], "size", &t->shape, &t->ndim);
    if (st)
        return st;
    t->dtype = values->dtype;
    t->format_dtype = values->format_dtype;
    t->device = values->device ? values->device : values->s ? values->s->location : NULL;
    t->comp[0] = idx[0];
    t->comp_name[0] = coo ? "indices" : csc ? "ccol_indices" : "crow_indices";
    if (!coo) {
        t->comp[1] = idx[1];
        t->comp_name[1] = csc ? "row_indices" : "col_indices";
    }
    t->ncomp = coo ? 2 : 3;
    t->comp[t->ncomp - 1] = values;
    t->comp_name[t->ncomp - 1] = "values";
    int64_t nnz = values->ndim ? values->shape[0] : 1;
    t->extra = ts__file_printf(c->f, c->err, "%.*s tensor with %lld stored values in "
                               "<name>.%s, <name>.%s%s%s", (int)ln, layout, (long long)nnz,
                               t->comp_name[0], t->comp_name[1], coo ? "" : ", <name>.",
                               coo ? "" : t->comp_name[2]);
    if (!t->extra)
        return TS_ERR_NOMEM;
    *out = t;
    return TS_OK;
}

/* _rebuild_qtensor(storage, offset, size, stride, qparams, requires_grad, hooks) */
static ts_status rebuild_qtensor(ctx *c, ts__pk_value *call, tensor **out)
{
    if (nargs(call) != 7)
        return vfail(c, TS_ERR_FORMAT, call, "_rebuild_qtensor takes 7 arguments, found %zu",
                     nargs(call));
    tensor *t;
    ts_status st = rebuild_strided(c, call, call->args->u.seq.v, K_QUANTIZED, -1, &t);
    if (st)
        return st;
    ts__pk_value *q = arg(call, 4);
    if (q->kind != TS__PK_TUPLE || q->u.seq.n < 1 || tag_kind(q->u.seq.v[0]) != G_QSCHEME)
        return vfail(c, TS_ERR_FORMAT, call, "quantized tensor parameters are not a tuple "
                     "starting with a torch qscheme");
    const char *scheme = qschemes[TAG_INDEX(q->u.seq.v[0]->tag)];
    if (q->u.seq.n == 3 && q->u.seq.v[1]->kind == TS__PK_FLOAT) {
        int64_t zp;
        if ((st = need_int(c, q->u.seq.v[2], "zero point", &zp)))
            return st;
        char scale[40];
        py_float(q->u.seq.v[1]->u.f, scale, sizeof scale);
        t->extra = ts__file_printf(c->f, c->err, "quantized %s: %s, scale %s, zero_point %lld",
                                   dtypes[t->dtype].name, scheme, scale, (long long)zp);
    } else if (q->u.seq.n == 4) {
        int64_t axis;
        if ((st = get_tensor(c, q->u.seq.v[1], "per-channel scales", &t->comp[0])) ||
            (st = get_tensor(c, q->u.seq.v[2], "per-channel zero points", &t->comp[1])) ||
            (st = need_int(c, q->u.seq.v[3], "quantization axis", &axis)))
            return st;
        t->comp_name[0] = "q_per_channel_scales";
        t->comp_name[1] = "q_per_channel_zero_points";
        t->ncomp = 2;
        t->extra = ts__file_printf(c->f, c->err, "quantized %s: %s on axis %lld, scales and "
                                   "zero points in <name>.q_per_channel_scales and "
                                   "<name>.q_per_channel_zero_points", dtypes[t->dtype].name,
                                   scheme, (long long)axis);
    } else {
        return vfail(c, TS_ERR_FORMAT, call, "quantized tensor parameters for %s have %zu "
                     "fields", scheme, q->u.seq.n);
    }
    if (!t->extra)
        return TS_ERR_NOMEM;
    *out = t;
    return TS_OK;
}

/* Interprets a tensor rebuild with callee tag `tag` and arguments a[0..n). */
static ts_status rebuild(ctx *c, ts__pk_value *call, int tag, ts__pk_value *args,
                         tensor **out)
{
    size_t n = args->u.seq.n;
    ts__pk_value *const *a = args->u.seq.v;
    tensor *t = NULL, *base = NULL;
    ts_status st = TS_OK;
    char fn[GLOBAL_TEXT];
    switch (tag) {
    case G_REBUILD_TENSOR:
    case G_REBUILD_TENSOR_V2:
        if (tag == G_REBUILD_TENSOR ? n != 4 : (n != 6 && n != 7))
            return vfail(c, TS_ERR_FORMAT, call, "%s takes %s arguments, found %zu",
                         global_text(call->func, fn, sizeof fn),
                         tag == G_REBUILD_TENSOR ? "4" : "6 or 7", n);
        if ((st = rebuild_strided(c, call, a, K_TENSOR, -1, &t)))
            return st;
        if (n >= 5)
            t->requires_grad = a[4]->kind == TS__PK_BOOL && a[4]->u.i;
        break;
    case G_REBUILD_TENSOR_V3: {
        int dt;
        if (n != 7 && n != 8)
            return vfail(c, TS_ERR_FORMAT, call, "_rebuild_tensor_v3 takes 7 or 8 arguments, "
                         "found %zu", n);
        if ((st = need_dtype(c, a[6], &dt)) || (st = rebuild_strided(c, call, a, K_TENSOR, dt, &t)))
            return st;
        t->requires_grad = a[4]->kind == TS__PK_BOOL && a[4]->u.i;
        break;
    }
    case G_REBUILD_PARAMETER:
    case G_REBUILD_PARAMETER_STATE:
        if (tag == G_REBUILD_PARAMETER ? n != 3 : n != 4)
            return vfail(c, TS_ERR_FORMAT, call, "%s takes %d arguments, found %zu",
                         global_text(call->func, fn, sizeof fn),
                         tag == G_REBUILD_PARAMETER ? 3 : 4, n);
        if ((st = get_tensor(c, a[0], "parameter data", &base)))
            return st;
        if (!(t = new_tensor(c, K_PARAMETER)))
            return TS_ERR_NOMEM;
        *t = *base;
        t->kind = base->kind == K_TENSOR ? K_PARAMETER : base->kind;
        t->requires_grad = a[1]->kind == TS__PK_BOOL && a[1]->u.i;
        break;
    case G_REBUILD_FROM_TYPE_V2: {
        if (n != 4)
            return vfail(c, TS_ERR_FORMAT, call, "_rebuild_from_type_v2 takes 4 arguments, "
                         "found %zu", n);
        int ft = tag_kind(a[0]), ty = tag_kind(a[1]);
        if (ty != G_TENSOR_CLASS && ty != G_PARAMETER_CLASS)
            return vfail(c, TS_ERR_UNSUPPORTED, call, "tensor subclass %s is not supported",
                         a[1]->kind == TS__PK_GLOBAL ? global_text(a[1], fn, sizeof fn)
                                                     : kind_of(a[1]));
        if (a[2]->kind != TS__PK_TUPLE ||
            !(ft == G_REBUILD_TENSOR || ft == G_REBUILD_TENSOR_V2 || ft == G_REBUILD_TENSOR_V3 ||
              ft == G_REBUILD_PARAMETER || ft == G_REBUILD_PARAMETER_STATE ||
              ft == G_REBUILD_QTENSOR || ft == G_REBUILD_META))
            return vfail(c, TS_ERR_FORMAT, call, "_rebuild_from_type_v2 with a function that "
                         "does not rebuild a tensor");
        if (++c->nesting > MAX_TENSOR_NESTING)
            return vfail(c, TS_ERR_LIMIT, call, "tensors nested more than %d deep",
                         MAX_TENSOR_NESTING);
        /* a virtual call: the function applied to the arguments */
        ts__pk_value virt = *call;
        virt.func = a[0];
        virt.args = a[2];
        st = rebuild(c, &virt, ft, a[2], &t);
        c->nesting--;
        if (st)
            return st;
        if (ty == G_PARAMETER_CLASS && t->kind == K_TENSOR) {
            tensor *p = new_tensor(c, K_PARAMETER);
            if (!p)
                return TS_ERR_NOMEM;
            *p = *t;
            p->kind = K_PARAMETER;
            t = p;
        }
        break;
    }
    case G_REBUILD_QTENSOR:
        if ((st = rebuild_qtensor(c, call, &t)))
            return st;
        break;
    case G_REBUILD_SPARSE:
    case G_REBUILD_SPARSE_CSR:
        if ((st = rebuild_sparse(c, call, &t)))
            return st;
        break;
    case G_REBUILD_META: {
        int dt, n2 = 0;
        if (n < 3)
            return vfail(c, TS_ERR_FORMAT, call, "_rebuild_meta_tensor_no_storage takes 4 "
                         "arguments, found %zu", n);
        if (!(t = new_tensor(c, K_META)))
            return TS_ERR_NOMEM;
        if ((st = need_dtype(c, a[0], &dt)) ||
            (st = need_dims(c, a[1], "size", &t->shape, &t->ndim)) ||
            (st = need_dims(c, a[2], "stride", &t->stride, &n2)))
            return st;
        if (n2 != t->ndim)
            return vfail(c, TS_ERR_FORMAT, call, "tensor size has %d dims but stride has %d",
                         t->ndim, n2);
        if ((st = check_geometry(c, call, t)))
            return st;
        t->dtype = dt;
        t->format_dtype = ts__file_printf(c->f, c->err, "torch.%s", dtypes[dt].torch);
        t->device = "meta";
        t->requires_grad = n >= 4 && a[3]->kind == TS__PK_BOOL && a[3]->u.i;
        t->extra = "meta tensor: shape and dtype only, no data";
        if (!t->format_dtype)
            return TS_ERR_NOMEM;
        break;
    }
    case G_REBUILD_DEVICE_FROM_CPU:
        if (n != 4)
            return vfail(c, TS_ERR_FORMAT, call, "_rebuild_device_tensor_from_cpu_tensor "
                         "takes 4 arguments, found %zu", n);
        if ((st = get_tensor(c, a[0], "device tensor data", &base)))
            return st;
        if (!(t = new_tensor(c, base->kind)))
            return TS_ERR_NOMEM;
        *t = *base;
        t->device = device_text(c, a[2]);
        t->requires_grad = a[3]->kind == TS__PK_BOOL && a[3]->u.i;
        break;
    default:
        if (!(t = new_tensor(c, K_UNSUPPORTED)))
            return TS_ERR_NOMEM;
        t->extra = ts__file_printf(c->f, c->err, "tensor rebuilt by %s: not supported, its "
                                   "dtype and shape are not reported",
                                   global_text(call->func, fn, sizeof fn));
        if (!t->extra)
            return TS_ERR_NOMEM;
        break;
    }
    *out = t;
    return TS_OK;
}

static int is_tensor_tag(int tag)
{
    return tag >= G_REBUILD_TENSOR && tag <= G_REBUILD_UNSUPPORTED;
}

/* The tensor a CALL node rebuilds (memoised in the node: a tensor reached
 * twice is one tensor). */
static ts_status get_tensor(ctx *c, ts__pk_value *v, const char *what, tensor **out)
{
    if (v->kind != TS__PK_CALL || !is_tensor_tag(call_tag(v)))
        return vfail(c, TS_ERR_FORMAT, v, "%s is a %s, not a tensor", what, kind_of(v));
    if (v->aux) {
        *out = v->aux;
        return TS_OK;
    }
    if (++c->nesting > MAX_TENSOR_NESTING) {
        c->nesting--;
        return vfail(c, TS_ERR_LIMIT, v, "tensors nested more than %d deep",
                     MAX_TENSOR_NESTING);
    }
    ts_status st = rebuild(c, v, call_tag(v), v->args, out);
    c->nesting--;
    if (!st)
        v->aux = *out;
    return st;
}

/* ------------------------------------------------------------------------ */
/* The tree: containers, leaves and their children                           */
/* ------------------------------------------------------------------------ */

/* N_PLACEHOLDER: a container that is also an entry of its own (what a
 * global tshape did not run stands for, and what it holds) */
enum { N_LEAF, N_CONTAINER, N_TENSOR, N_STORAGE, N_PLACEHOLDER };

static int walks_into(int cls)
{
    return cls == N_CONTAINER || cls == N_PLACEHOLDER;
}

/* The dict of an object's attributes (TorchScript), or NULL. */
static const ts__pk_value *object_attrs(const ts__pk_value *v)
{
    return v->state && v->state->kind == TS__PK_DICT ? v->state : NULL;
}

/* Pairs of a dict: the class's initial list, then its own items. */
static size_t dict_pairs(const ts__pk_value *d)
{
    return (d->args ? d->args->u.seq.n : 0) + d->u.seq.n / 2;
}

/* ---- placeholders ---------------------------------------------------------- */

/* A CALL or OBJECT that stands for what tshape did not run: an inert
 * global was called or instantiated, or what such a call returned. */
static int is_placeholder(const ts__pk_value *v)
{
    if (v->kind != TS__PK_CALL && v->kind != TS__PK_OBJECT)
        return 0;
    const ts__pk_value *f = v->func;
    return !f || f->kind != TS__PK_GLOBAL || f->role == TS__PK_INERT;
}

/* Dict d's value for str key `key` (its own items), or NULL. */
static const ts__pk_value *own_item(const ts__pk_value *d, const char *key)
{
    for (size_t i = 0; i + 1 < d->u.seq.n; i += 2) {
        const ts__pk_value *k = d->u.seq.v[i];
        if (k->kind == TS__PK_STR && text_is((const char *)k->u.s.p, k->u.s.n, key))
            return d->u.seq.v[i + 1];
    }
    return NULL;
}

/*
 * The dicts whose pairs are a placeholder's children after its items: for
 * a pickled nn.Module (a state with _parameters and _modules) those two
 * and _buffers, so its tensors get their state_dict names; else the state
 * dict, or the two dicts of a (state, slotstate) pair. 0 when the state is
 * something else (then it is one child, "state").
 */
static int state_dicts(const ts__pk_value *v, const ts__pk_value *out[3])
{
    const ts__pk_value *s = v->state;
    out[0] = out[1] = out[2] = NULL;
    if (!s)
        return 0;
    if (s->kind == TS__PK_DICT) {
        const ts__pk_value *p = own_item(s, "_parameters"), *m = own_item(s, "_modules"),
                           *b = own_item(s, "_buffers");
        if (p && m && p->kind == TS__PK_DICT && m->kind == TS__PK_DICT) {
            out[0] = p;
            out[1] = b && b->kind == TS__PK_DICT ? b : NULL;
            out[2] = m;
        } else {
            out[0] = s;
        }
        return 1;
    }
    if (s->kind == TS__PK_TUPLE && s->u.seq.n == 2) {
        for (int i = 0; i < 2; i++) {
            const ts__pk_value *x = s->u.seq.v[i];
            if (x->kind == TS__PK_DICT)
                out[i] = x;
            else if (x->kind != TS__PK_NONE)
                return out[0] = out[1] = NULL, 0;
        }
        return 1;
    }
    return 0;
}

static size_t item_count(const ts__pk_value *v)
{
    return v->items == TS__PK_ITEMS_DICT ? v->u.seq.n / 2 : v->u.seq.n;
}

/* Arguments worth walking into: any that is not a scalar (its JSON shows
 * scalars; containers may hold tensors). */
static int has_args(const ts__pk_value *v)
{
    if (!v->args || v->args->kind != TS__PK_TUPLE)
        return 0;
    for (size_t i = 0; i < v->args->u.seq.n; i++) {
        const ts__pk_value *a = v->args->u.seq.v[i];
        if (a->kind == TS__PK_CALL ? is_placeholder(a) || is_tensor_tag(call_tag(a))
                                   : a->kind >= TS__PK_TUPLE && a->kind != TS__PK_GLOBAL)
            return 1;
    }
    return 0;
}

/* A placeholder's children: its items (APPEND, SETITEM), its state, and
 * its arguments as one child "args". */
static size_t placeholder_children(const ts__pk_value *v)
{
    const ts__pk_value *d[3];
    size_t n = item_count(v);
    if (state_dicts(v, d)) {
        for (int i = 0; i < 3; i++)
            n += d[i] ? dict_pairs(d[i]) : 0;
    } else if (v->state) {
        n++;
    }
    return n + (size_t)has_args(v);
}

/* Names of the state and arguments of a placeholder. */
static const ts__pk_value key_state = {.kind = TS__PK_STR,
                                       .u = {.s = {(const unsigned char *)"state", 5}}};
static const ts__pk_value key_args = {.kind = TS__PK_STR,
                                      .u = {.s = {(const unsigned char *)"args", 4}}};

static size_t children_of(const ts__pk_value *v)
{
    if (is_placeholder(v))
        return placeholder_children(v);
    switch ((ts__pk_kind)v->kind) {
    case TS__PK_DICT: return dict_pairs(v);
    case TS__PK_LIST:
    case TS__PK_TUPLE: return v->u.seq.n;
    case TS__PK_OBJECT: return object_attrs(v) ? dict_pairs(object_attrs(v)) : 0;
    case TS__PK_CALL: return 1; /* restore_type_tag, build_tensorlist */
    case TS__PK_NONE:
    case TS__PK_BOOL:
    case TS__PK_INT:
    case TS__PK_BIGINT:
    case TS__PK_FLOAT:
    case TS__PK_STR:
    case TS__PK_BYTES:
    case TS__PK_SET:
    case TS__PK_FROZENSET:
    case TS__PK_GLOBAL:
    case TS__PK_PERSID: return 0;
    }
    return 0;
}

/* A NumPy array inside the pickle (memoised in the node, as tensors). */
static ts_status numpy_class(ctx *c, ts__pk_value *v, int *cls)
{
    if (!v->aux) {
        tensor *t = new_tensor(c, K_NUMPY);
        ts__np_array *a = arena(c, sizeof *a);
        if (!t || !a)
            return TS_ERR_NOMEM;
        ts_error e;
        ts_status st = ts__np_array_of(v, a, &e);
        if (st)
            return vfail(c, st, v, "NumPy array: %s", e.message);
        t->np = a;
        v->aux = t;
    }
    *cls = N_TENSOR;
    return TS_OK;
}

/*
 * Classifies v (interpreting tensor calls, checking BUILD targets) and
 * says whether it is a container to walk into.
 */
static ts_status node_class(ctx *c, ts__pk_value *v, int *cls)
{
    tensor *t;
    ts_status st;
    switch ((ts__pk_kind)v->kind) {
    case TS__PK_DICT:
        if (v->func && tag_kind(v->func) != G_ORDERED_DICT)
            return vfail(c, TS_ERR_FORMAT, v, "dict of an unexpected class");
        *cls = dict_pairs(v) ? N_CONTAINER : N_LEAF;
        return TS_OK;
    case TS__PK_LIST:
    case TS__PK_TUPLE:
        *cls = v->u.seq.n ? N_CONTAINER : N_LEAF;
        return TS_OK;
    case TS__PK_OBJECT:
        if (ts__np_kind(v) == TS__NP_ARRAY)
            return numpy_class(c, v, cls);
        if (is_placeholder(v)) {
            *cls = placeholder_children(v) ? N_PLACEHOLDER : N_LEAF;
            return TS_OK;
        }
        if (v->state && !object_attrs(v))
            return vfail(c, TS_ERR_FORMAT, v, "TorchScript object state is a %s, not a dict",
                         kind_of(v->state));
        *cls = children_of(v) ? N_CONTAINER : N_LEAF;
        return TS_OK;
    case TS__PK_PERSID: {
        storage *s;
        if ((st = get_storage(c, v, &s)))
            return st;
        *cls = N_STORAGE;
        return TS_OK;
    }
    case TS__PK_CALL: {
        int tag = call_tag(v);
        if (is_tensor_tag(tag)) {
            if ((st = get_tensor(c, v, "value", &t)))
                return st;
            *cls = N_TENSOR;
            return TS_OK;
        }
        int np = ts__np_kind(v);
        if (np == TS__NP_ARRAY)
            return numpy_class(c, v, cls);
        if (np == TS__NP_SCALAR || np == TS__NP_DTYPE) {
            *cls = N_LEAF;
            return TS_OK;
        }
        if (is_placeholder(v)) {
            *cls = placeholder_children(v) ? N_PLACEHOLDER : N_LEAF;
            return TS_OK;
        }
        if (v->state) {
            char fn[GLOBAL_TEXT];
            return vfail(c, TS_ERR_UNSUPPORTED, v, "refusing the file: BUILD (byte %lld) sets "
                         "the state of a %s value", (long long)v->state_offset,
                         global_text(v->func, fn, sizeof fn));
        }
        if (tag == G_RESTORE_TYPE_TAG || tag == G_JIT_TENSORLIST) {
            if (nargs(v) < 1)
                return vfail(c, TS_ERR_FORMAT, v, "TorchScript list or type tag without a "
                             "value");
            *cls = N_CONTAINER;
            return TS_OK;
        }
        *cls = N_LEAF;
        return TS_OK;
    }
    case TS__PK_NONE:
    case TS__PK_BOOL:
    case TS__PK_INT:
    case TS__PK_BIGINT:
    case TS__PK_FLOAT:
    case TS__PK_STR:
    case TS__PK_BYTES:
    case TS__PK_SET:
    case TS__PK_FROZENSET:
    case TS__PK_GLOBAL:
        *cls = N_LEAF;
        return TS_OK;
    }
    *cls = N_LEAF;
    return TS_OK;
}

/* Child i of container v: *key the dict key (NULL for list items and
 * transparent calls), *index the list index. */
/* Pair i of dict d: the class's initial list, then its own items. */
static ts_status dict_child(ctx *c, const ts__pk_value *d, size_t i, ts__pk_value **child,
                            const ts__pk_value **key)
{
    size_t first = d->args ? d->args->u.seq.n : 0;
    if (i < first) {
        const ts__pk_value *pair = d->args->u.seq.v[i];
        if (pair->kind != TS__PK_TUPLE || pair->u.seq.n != 2)
            return vfail(c, TS_ERR_FORMAT, pair, "OrderedDict item is a %s, not a (key, "
                         "value) pair", kind_of(pair));
        *key = pair->u.seq.v[0];
        *child = pair->u.seq.v[1];
        return TS_OK;
    }
    i -= first;
    *key = d->u.seq.v[2 * i];
    *child = d->u.seq.v[2 * i + 1];
    return TS_OK;
}

/* Child i of placeholder v (see placeholder_children). */
static ts_status placeholder_child(ctx *c, const ts__pk_value *v, size_t i,
                                   ts__pk_value **child, const ts__pk_value **key,
                                   size_t *index)
{
    size_t ni = item_count(v);
    if (i < ni) {
        if (v->items == TS__PK_ITEMS_DICT) {
            *key = v->u.seq.v[2 * i];
            *child = v->u.seq.v[2 * i + 1];
        } else {
            *child = v->u.seq.v[i];
        }
        return TS_OK;
    }
    i -= ni;
    const ts__pk_value *d[3];
    if (state_dicts(v, d)) {
        for (int k = 0; k < 3; k++) {
            size_t np = d[k] ? dict_pairs(d[k]) : 0;
            if (i < np)
                return dict_child(c, d[k], i, child, key);
            i -= np;
        }
    } else if (v->state) {
        if (i == 0) {
            *child = v->state;
            *key = &key_state;
            return TS_OK;
        }
        i--;
    }
    *child = v->args;
    *key = &key_args;
    *index = i;
    return TS_OK;
}

static ts_status child_at(ctx *c, const ts__pk_value *v, size_t i, ts__pk_value **child,
                          const ts__pk_value **key, size_t *index)
{
    *key = NULL;
    *index = i;
    if (is_placeholder(v))
        return placeholder_child(c, v, i, child, key, index);
    if (v->kind == TS__PK_LIST || v->kind == TS__PK_TUPLE) {
        *child = v->u.seq.v[i];
        return TS_OK;
    }
    if (v->kind == TS__PK_CALL) {
        *child = v->args->u.seq.v[0];
        *index = SIZE_MAX; /* adds no name component */
        return TS_OK;
    }
    return dict_child(c, v->kind == TS__PK_OBJECT ? object_attrs(v) : v, i, child, key);
}

/* ------------------------------------------------------------------------ */
/* Pass 1: count the leaves                                                  */
/* ------------------------------------------------------------------------ */

enum { WHITE = 0, GREY = 1, BLACK = 2 };

typedef struct frame {
    ts__pk_value *v;
    size_t next, name_len;
} frame;

static uint64_t leaf_count(ctx *c, ts__pk_value *v, int cls)
{
    if (cls == N_TENSOR) {
        tensor *t = v->aux;
        return 1 + (uint64_t)t->ncomp;
    }
    (void)c;
    return 1;
}

static ts_status count_leaves(ctx *c, ts__pk_value *root, uint64_t limit, frame *stack)
{
    int cls;
    ts_status st = node_class(c, root, &cls);
    if (st)
        return st;
    if (!walks_into(cls)) {
        root->count = leaf_count(c, root, cls);
        return TS_OK;
    }
    size_t depth = 0;
    root->mark = GREY;
    root->count = cls == N_PLACEHOLDER;
    stack[depth++] = (frame){root, 0, 0};
    while (depth) {
        frame *fr = &stack[depth - 1];
        ts__pk_value *v = fr->v;
        if (fr->next == children_of(v)) {
            v->mark = BLACK;
            depth--;
            if (depth) {
                ts__pk_value *p = stack[depth - 1].v;
                p->count = p->count + v->count > limit ? limit + 1 : p->count + v->count;
            }
            continue;
        }
        ts__pk_value *ch;
        const ts__pk_value *key;
        size_t index;
        if ((st = child_at(c, v, fr->next++, &ch, &key, &index)) ||
            (st = node_class(c, ch, &cls)))
            return st;
        uint64_t add;
        if (!walks_into(cls)) {
            add = leaf_count(c, ch, cls);
        } else if (ch->mark == BLACK) {
            add = ch->count;
        } else if (ch->mark == GREY) {
            return vfail(c, TS_ERR_FORMAT, ch, "a %s contains itself", kind_of(ch));
        } else {
            if (depth == MAX_DEPTH)
                return vfail(c, TS_ERR_LIMIT, ch, "containers nested more than %d deep "
                             "(tshape's limit)", MAX_DEPTH);
            ch->mark = GREY;
            ch->count = cls == N_PLACEHOLDER;
            stack[depth++] = (frame){ch, 0, 0};
            continue;
        }
        v->count = v->count + add > limit ? limit + 1 : v->count + add;
    }
    return TS_OK;
}

/* ------------------------------------------------------------------------ */
/* Names                                                                     */
/* ------------------------------------------------------------------------ */

typedef struct sbuf {
    ts_file *f;              /* owns p (scratch memory) */
    char *p;
    size_t n, cap;
    int failed;              /* out of memory */
} sbuf;

static void sb_add(sbuf *b, const char *s, size_t n)
{
    if (b->failed)
        return;
    if (b->cap - b->n < n + 1) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap - b->n < n + 1)
            cap *= 2;
        char *p = ts__scratch_realloc(b->f, b->p, cap, NULL);
        if (!p) {
            b->failed = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

static void sb_str(sbuf *b, const char *s)
{
    sb_add(b, s, strlen(s));
}

static void sb_printf(sbuf *b, const char *fmt, ...) TS__PRINTF(2, 3);
static void sb_printf(sbuf *b, const char *fmt, ...)
{
    char tmp[128];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (k > 0)
        sb_add(b, tmp, (size_t)k < sizeof tmp ? (size_t)k : sizeof tmp - 1);
}

/* Python's repr of a float: the shortest text that reads back the same,
 * fixed notation for exponents -4..15, else d.ddde+XX. */
static void py_float(double x, char *out, size_t cap)
{
    if (x != x) {
        snprintf(out, cap, "nan");
        return;
    }
    if (x > 1.7976931348623157e308 || x < -1.7976931348623157e308) {
        snprintf(out, cap, x > 0 ? "inf" : "-inf");
        return;
    }
    char tmp[64];
    for (int p = 1; p <= 17; p++) {
        snprintf(tmp, sizeof tmp, "%.*e", p - 1, x);
        if (strtod(tmp, NULL) == x)
            break;
    }
    /* tmp: [-]d[.ddd]e[+-]XX */
    char digits[32];
    size_t nd = 0;
    const char *q = tmp;
    int neg = *q == '-';
    if (neg)
        q++;
    for (; *q && *q != 'e'; q++)
        if (*q >= '0' && *q <= '9' && nd < sizeof digits - 1)
            digits[nd++] = *q;
    int exp = *q == 'e' ? atoi(q + 1) : 0;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = '\0';
    char *o = out;
    size_t left = cap;
#define PUT(ch)                  \
    do {                         \
        if (left > 1) {          \
            *o++ = (ch);         \
            left--;              \
        }                        \
    } while (0)
    if (neg)
        PUT('-');
    if (exp >= -4 && exp < 16) {
        if (exp < 0) {
            PUT('0');
            PUT('.');
            for (int i = 0; i < -exp - 1; i++)
                PUT('0');
            for (size_t i = 0; i < nd; i++)
                PUT(digits[i]);
        } else {
            for (int i = 0; i <= exp; i++)
                PUT((size_t)i < nd ? digits[i] : '0');
            PUT('.');
            if ((size_t)exp + 1 < nd)
                for (size_t i = (size_t)exp + 1; i < nd; i++)
                    PUT(digits[i]);
            else
                PUT('0');
        }
        *o = '\0';
    } else {
        PUT(digits[0]);
        if (nd > 1) {
            PUT('.');
            for (size_t i = 1; i < nd; i++)
                PUT(digits[i]);
        }
        *o = '\0';
        snprintf(o, left, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    }
#undef PUT
}

/* Decimal text of a little-endian two's complement integer of n bytes. */
static void big_decimal(sbuf *b, const unsigned char *p, size_t n)
{
    unsigned char mag[64];
    if (n > sizeof mag) {
        sb_printf(b, "<%zu-byte integer>", n);
        return;
    }
    int neg = (p[n - 1] & 0x80) != 0;
    /* magnitude: negate when negative */
    unsigned carry = 1;
    for (size_t i = 0; i < n; i++) {
        unsigned x = neg ? (unsigned)(~p[i] & 0xff) + carry : p[i];
        mag[i] = (unsigned char)x;
        carry = neg ? x >> 8 : 0;
    }
    char digits[700];
    size_t nd = 0, len = n;
    while (len > 0 && nd < sizeof digits) {
        unsigned rem = 0;
        for (size_t i = len; i-- > 0;) {
            unsigned cur = rem << 8 | mag[i];
            mag[i] = (unsigned char)(cur / 10);
            rem = cur % 10;
        }
        digits[nd++] = (char)('0' + rem);
        while (len > 0 && mag[len - 1] == 0)
            len--;
    }
    if (neg)
        sb_add(b, "-", 1);
    if (!nd)
        sb_add(b, "0", 1);
    while (nd)
        sb_add(b, &digits[--nd], 1);
}

/* The name component of a dict key. */
static ts_status key_name(ctx *c, sbuf *b, const ts__pk_value *k, int depth)
{
    char tmp[64];
    switch ((ts__pk_kind)k->kind) {
    case TS__PK_STR:
        if (memchr(k->u.s.p, '\0', k->u.s.n))
            return vfail(c, TS_ERR_FORMAT, k, "dict key holds a NUL byte");
        sb_add(b, (const char *)k->u.s.p, k->u.s.n);
        return TS_OK;
    case TS__PK_INT:
        sb_printf(b, "%lld", (long long)k->u.i);
        return TS_OK;
    case TS__PK_BIGINT:
        big_decimal(b, k->u.s.p, k->u.s.n);
        return TS_OK;
    case TS__PK_BOOL:
        sb_str(b, k->u.i ? "True" : "False");
        return TS_OK;
    case TS__PK_NONE:
        sb_str(b, "None");
        return TS_OK;
    case TS__PK_FLOAT:
        py_float(k->u.f, tmp, sizeof tmp);
        sb_str(b, tmp);
        return TS_OK;
    case TS__PK_BYTES:
        sb_str(b, "b'");
        for (size_t i = 0; i < k->u.s.n; i++) {
            unsigned char ch = k->u.s.p[i];
            if (ch >= 0x20 && ch < 0x7f && ch != '\'' && ch != '\\')
                sb_add(b, (const char *)&k->u.s.p[i], 1);
            else
                sb_printf(b, "\\x%02x", ch);
        }
        sb_str(b, "'");
        return TS_OK;
    case TS__PK_TUPLE:
        if (depth >= MAX_KEY_DEPTH)
            return vfail(c, TS_ERR_LIMIT, k, "dict key nests tuples more than %d deep",
                         MAX_KEY_DEPTH);
        sb_str(b, "(");
        for (size_t i = 0; i < k->u.seq.n; i++) {
            if (i)
                sb_str(b, ",");
            ts_status st = key_name(c, b, k->u.seq.v[i], depth + 1);
            if (st)
                return st;
            if (b->n > MAX_NAME)
                return vfail(c, TS_ERR_LIMIT, k, "dict key is longer than %d bytes", MAX_NAME);
        }
        sb_str(b, ")");
        return TS_OK;
    case TS__PK_LIST:
    case TS__PK_DICT:
    case TS__PK_SET:
    case TS__PK_FROZENSET:
    case TS__PK_GLOBAL:
    case TS__PK_CALL:
    case TS__PK_OBJECT:
    case TS__PK_PERSID:
        break;
    }
    return vfail(c, TS_ERR_FORMAT, k, "dict key is a %s, which cannot name an entry",
                 kind_of(k));
}

static ts_status add_entry(ctx *c, const char *name, size_t n, tensor *t,
                           const ts__pk_value *v, const ts__pk_value *at)
{
    if (n > MAX_NAME)
        return vfail(c, TS_ERR_LIMIT, at, "an entry's name is longer than %d bytes "
                     "(tshape's limit)", MAX_NAME);
    c->name_bytes += n + 1;
    if (c->name_bytes > c->name_budget)
        return vfail(c, TS_ERR_LIMIT, at, "the names of the entries take more than %llu "
                     "bytes (tshape's limit for this file)",
                     (unsigned long long)c->name_budget);
    if (c->nentries == c->entries_cap) {
        size_t cap = c->entries_cap ? c->entries_cap * 2 : 64;
        entry *p = ts__scratch_realloc(c->f, c->entries, cap * sizeof *p, NULL);
        if (!p)
            return ts__error(c->err, TS_ERR_NOMEM, "out of memory for %zu entries", cap);
        c->entries = p;
        c->entries_cap = cap;
    }
    entry *e = &c->entries[c->nentries];
    e->name = ts__file_strndup(c->f, name, n, c->err);
    if (!e->name)
        return TS_ERR_NOMEM;
    e->t = t;
    e->v = v;
    c->nentries++;
    return TS_OK;
}

/* A leaf at path b: a tensor (and its components) or a value. */
static ts_status emit_leaf(ctx *c, sbuf *b, ts__pk_value *v, int cls)
{
    if (b->failed)
        return ts__error(c->err, TS_ERR_NOMEM, "out of memory for names");
    if (cls == N_TENSOR) {
        tensor *t = v->aux;
        ts_status st = add_entry(c, b->p, b->n, t, v, v);
        size_t n0 = b->n;
        for (int i = 0; i < t->ncomp && !st; i++) {
            if (b->n)
                sb_str(b, ".");
            sb_str(b, t->comp_name[i]);
            if (b->failed)
                return ts__error(c->err, TS_ERR_NOMEM, "out of memory for names");
            st = add_entry(c, b->p, b->n, t->comp[i], NULL, v);
            b->n = n0;
            b->p[n0] = '\0';
        }
        return st;
    }
    if (cls == N_STORAGE) {
        tensor *t = new_tensor(c, K_STORAGE);
        if (!t)
            return TS_ERR_NOMEM;
        t->s = v->aux;
        t->dtype = t->s->dtype;
        t->format_dtype = t->s->type_text;
        t->ndim = 1;
        t->shape = &t->s->numel;
        t->stride = arena(c, sizeof *t->stride);
        if (!t->stride)
            return TS_ERR_NOMEM;
        t->stride[0] = 1;
        t->extra = "a storage saved on its own (no tensor)";
        return add_entry(c, b->p, b->n, t, v, v);
    }
    return add_entry(c, b->p, b->n, NULL, v, v);
}

/* Pass 2: the leaves in order, with their names. */
static ts_status name_leaves(ctx *c, ts__pk_value *root, frame *stack)
{
    sbuf b = {c->f, NULL, 0, 0, 0};
    sb_add(&b, "", 0);
    int cls;
    ts_status st = node_class(c, root, &cls);
    if (!st && cls == N_PLACEHOLDER)
        st = emit_leaf(c, &b, root, N_LEAF);
    if (st || !walks_into(cls)) {
        if (!st)
            st = emit_leaf(c, &b, root, cls);
        ts__scratch_free(c->f, b.p);
        return st;
    }
    size_t depth = 0;
    stack[depth++] = (frame){root, 0, 0};
    while (depth && !st) {
        frame *fr = &stack[depth - 1];
        ts__pk_value *v = fr->v;
        b.n = fr->name_len;
        if (b.p)
            b.p[b.n] = '\0';
        if (fr->next == children_of(v)) {
            depth--;
            continue;
        }
        ts__pk_value *ch;
        const ts__pk_value *key;
        size_t index;
        if ((st = child_at(c, v, fr->next++, &ch, &key, &index)) ||
            (st = node_class(c, ch, &cls)))
            break;
        if (key || index != SIZE_MAX) {
            if (b.n)
                sb_str(&b, ".");
            if (key)
                st = key_name(c, &b, key, 0);
            else
                sb_printf(&b, "%zu", index);
            if (st)
                break;
            if (b.n > MAX_NAME) {
                st = vfail(c, TS_ERR_LIMIT, ch, "an entry's name is longer than %d bytes "
                           "(tshape's limit)", MAX_NAME);
                break;
            }
        }
        if (walks_into(cls)) {
            /* a sub-tree counted at a shallower path may lie deeper here */
            if (depth == MAX_DEPTH) {
                st = vfail(c, TS_ERR_LIMIT, ch, "containers nested more than %d deep "
                           "(tshape's limit)", MAX_DEPTH);
                break;
            }
            if (cls == N_PLACEHOLDER && (st = emit_leaf(c, &b, ch, N_LEAF)))
                break;
            stack[depth++] = (frame){ch, 0, b.n};
            continue;
        }
        st = emit_leaf(c, &b, ch, cls);
    }
    if (!st && b.failed)
        st = ts__error(c->err, TS_ERR_NOMEM, "out of memory for names");
    ts__scratch_free(c->f, b.p);
    return st;
}

/* ------------------------------------------------------------------------ */
/* Values as JSON (metadata entries)                                         */
/* ------------------------------------------------------------------------ */

#define JSON_TEXT_MAX 1024   /* bytes of a str or bytes value shown */
#define JSON_MAX 4096        /* a value's JSON text, else summarised */

static void json_string(sbuf *b, const unsigned char *p, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    size_t shown = n > JSON_TEXT_MAX ? JSON_TEXT_MAX : n;
    sb_str(b, "\"");
    for (size_t i = 0; i < shown;) {
        size_t k = ts__utf8_len(p + i, shown - i);
        if (k == 0) {
            sb_str(b, "\\ufffd");
            i++;
            continue;
        }
        unsigned char ch = p[i];
        if (k == 1 && (ch < 0x20 || ch == '"' || ch == '\\' || ch == 0x7f)) {
            char e[8] = {'\\', 'u', '0', '0', hex[ch >> 4], hex[ch & 15], 0, 0};
            if (ch == '"' || ch == '\\') {
                e[1] = (char)ch;
                e[2] = 0;
            }
            sb_str(b, e);
        } else {
            sb_add(b, (const char *)p + i, k);
        }
        i += k;
    }
    if (shown < n)
        sb_printf(b, "... (%zu bytes)", n);
    sb_str(b, "\"");
}

static void json_hex(sbuf *b, const unsigned char *p, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    size_t shown = n > JSON_TEXT_MAX / 2 ? JSON_TEXT_MAX / 2 : n;
    sb_str(b, "\"");
    for (size_t i = 0; i < shown; i++) {
        char h[2] = {hex[p[i] >> 4], hex[p[i] & 15]};
        sb_add(b, h, 2);
    }
    if (shown < n)
        sb_printf(b, "... (%zu bytes)", n);
    sb_str(b, "\"");
}

static void json_value(sbuf *b, const ts__pk_value *v, int depth);

static void json_items(sbuf *b, ts__pk_value *const *v, size_t n, int depth)
{
    sb_str(b, "[");
    for (size_t i = 0; i < n; i++) {
        if (i)
            sb_str(b, ",");
        if (b->n > JSON_MAX) {
            sb_printf(b, "\"... (%zu items)\"", n);
            break;
        }
        json_value(b, v[i], depth + 1);
    }
    sb_str(b, "]");
}

/* The rest of a placeholder's JSON object: its arguments, and that it was
 * not run. */
static void json_not_run(sbuf *b, const ts__pk_value *v, int depth)
{
    if (v->args && v->args->kind == TS__PK_TUPLE && v->args->u.seq.n) {
        sb_str(b, ",\"args\":");
        json_items(b, v->args->u.seq.v, v->args->u.seq.n, depth);
    }
    sb_str(b, ",\"not_executed\":true");
}

static void json_float(sbuf *b, double f)
{
    char tmp[64];
    py_float(f, tmp, sizeof tmp);
    if (f != f || f > 1.7976931348623157e308 || f < -1.7976931348623157e308)
        sb_printf(b, "\"%s\"", tmp);
    else
        sb_str(b, tmp);
}

static void json_value(sbuf *b, const ts__pk_value *v, int depth)
{
    char tmp[GLOBAL_TEXT];
    if (depth > 8) {
        sb_printf(b, "\"(a %s)\"", kind_of(v));
        return;
    }
    switch ((ts__pk_kind)v->kind) {
    case TS__PK_NONE: sb_str(b, "null"); return;
    case TS__PK_BOOL: sb_str(b, v->u.i ? "true" : "false"); return;
    case TS__PK_INT: sb_printf(b, "%lld", (long long)v->u.i); return;
    case TS__PK_BIGINT:
        if (v->u.s.n > 64)
            sb_printf(b, "\"<%zu-byte integer>\"", v->u.s.n);
        else
            big_decimal(b, v->u.s.p, v->u.s.n);
        return;
    case TS__PK_FLOAT: json_float(b, v->u.f); return;
    case TS__PK_STR: json_string(b, v->u.s.p, v->u.s.n); return;
    case TS__PK_BYTES:
        sb_str(b, "{\"bytes\":");
        json_hex(b, v->u.s.p, v->u.s.n);
        sb_str(b, "}");
        return;
    case TS__PK_LIST: json_items(b, v->u.seq.v, v->u.seq.n, depth); return;
    case TS__PK_TUPLE:
        sb_str(b, "{\"tuple\":");
        json_items(b, v->u.seq.v, v->u.seq.n, depth);
        sb_str(b, "}");
        return;
    case TS__PK_SET:
    case TS__PK_FROZENSET:
        sb_str(b, v->kind == TS__PK_SET ? "{\"set\":" : "{\"frozenset\":");
        json_items(b, v->u.seq.v, v->u.seq.n, depth);
        sb_str(b, "}");
        return;
    case TS__PK_DICT:
        /* only empty dicts are leaves */
        sb_str(b, "{}");
        return;
    case TS__PK_GLOBAL: {
        int k = TAG_KIND(v->tag);
        if (k == G_DTYPE)
            sb_printf(b, "{\"torch.dtype\":\"%s\"}", dtypes[TAG_INDEX(v->tag)].name);
        else if (k == G_QSCHEME)
            sb_printf(b, "{\"torch.qscheme\":\"%s\"}", qschemes[TAG_INDEX(v->tag)]);
        else {
            sb_str(b, "{\"global\":");
            global_text(v, tmp, sizeof tmp);
            json_string(b, (const unsigned char *)tmp, strlen(tmp));
            sb_str(b, "}");
        }
        return;
    }
    case TS__PK_OBJECT:
        sb_str(b, "{\"object\":");
        global_text(v->func, tmp, sizeof tmp);
        json_string(b, (const unsigned char *)tmp, strlen(tmp));
        if (is_placeholder(v))
            json_not_run(b, v, depth);
        sb_str(b, "}");
        return;
    case TS__PK_PERSID:
        sb_str(b, "\"(a persistent id)\"");
        return;
    case TS__PK_CALL:
        break;
    }
    /* a value-building call */
    int tag = call_tag(v);
    size_t n = nargs(v);
    ts__pk_value *a0 = n ? arg(v, 0) : NULL;
    int np = ts__np_kind(v);
    if (np == TS__NP_SCALAR || np == TS__NP_DTYPE) {
        ts_error e;
        if (np == TS__NP_SCALAR ? ts__np_scalar_json(v, tmp, sizeof tmp, &e) == TS_OK
                                : ts__np_dtype_descr(v, tmp + 64, sizeof tmp - 64, &e) == TS_OK) {
            if (np == TS__NP_DTYPE)
                sb_printf(b, "{\"numpy.dtype\":\"%s\"}", tmp + 64);
            else
                sb_str(b, tmp);
            return;
        }
    }
    switch (tag) {
    case G_SIZE:
        sb_str(b, "{\"torch.Size\":");
        if (a0 && (a0->kind == TS__PK_TUPLE || a0->kind == TS__PK_LIST))
            json_items(b, a0->u.seq.v, a0->u.seq.n, depth);
        else
            sb_str(b, "[]");
        sb_str(b, "}");
        return;
    case G_DEVICE:
        sb_str(b, "{\"torch.device\":");
        if (a0 && a0->kind == TS__PK_STR) {
            if (n >= 2 && arg(v, 1)->kind == TS__PK_INT) {
                snprintf(tmp, sizeof tmp, "%.*s:%lld", (int)(a0->u.s.n > 64 ? 64 : a0->u.s.n),
                         (const char *)a0->u.s.p, (long long)arg(v, 1)->u.i);
                json_string(b, (const unsigned char *)tmp, strlen(tmp));
            } else {
                json_string(b, a0->u.s.p, a0->u.s.n);
            }
        } else {
            sb_str(b, "null");
        }
        sb_str(b, "}");
        return;
    case G_GET_LAYOUT: {
        size_t ln;
        const char *l = layout_name(v, &ln);
        sb_str(b, "{\"torch.layout\":");
        if (l)
            json_string(b, (const unsigned char *)l, ln);
        else
            sb_str(b, "null");
        sb_str(b, "}");
        return;
    }
    case G_COMPLEX:
        sb_str(b, "{\"complex\":[");
        for (size_t i = 0; i < 2; i++) {
            if (i)
                sb_str(b, ",");
            const ts__pk_value *x = i < n ? arg(v, i) : NULL;
            if (!x)
                sb_str(b, "0.0");
            else if (x->kind == TS__PK_FLOAT)
                json_float(b, x->u.f);
            else
                json_value(b, x, depth + 1);
        }
        sb_str(b, "]}");
        return;
    case G_SET:
    case G_FROZENSET:
        sb_str(b, tag == G_SET ? "{\"set\":" : "{\"frozenset\":");
        if (a0 && (a0->kind == TS__PK_LIST || a0->kind == TS__PK_TUPLE ||
                   a0->kind == TS__PK_SET || a0->kind == TS__PK_FROZENSET))
            json_items(b, a0->u.seq.v, a0->u.seq.n, depth);
        else
            sb_str(b, "[]");
        sb_str(b, "}");
        return;
    case G_ENCODE:
        /* _codecs.encode(text, 'latin1'): one byte per code point < 256 */
        sb_str(b, "{\"bytes\":");
        if (a0 && a0->kind == TS__PK_STR) {
            unsigned char out[JSON_TEXT_MAX / 2];
            size_t no = 0, i = 0, total = 0;
            while (i < a0->u.s.n) {
                size_t k = ts__utf8_len(a0->u.s.p + i, a0->u.s.n - i);
                unsigned cp = k == 1 ? a0->u.s.p[i]
                              : k == 2 ? (unsigned)(a0->u.s.p[i] & 0x1f) << 6 |
                                         (a0->u.s.p[i + 1] & 0x3f)
                                       : 0x3f; /* '?' */
                if (no < sizeof out)
                    out[no++] = (unsigned char)(cp < 256 ? cp : '?');
                i += k ? k : 1;
                total++;
            }
            json_hex(b, out, no);
            (void)total;
        } else {
            sb_str(b, "null");
        }
        sb_str(b, "}");
        return;
    case G_BYTEARRAY:
        sb_str(b, "{\"bytearray\":");
        if (a0 && a0->kind == TS__PK_BYTES)
            json_hex(b, a0->u.s.p, a0->u.s.n);
        else if (a0)
            json_value(b, a0, depth + 1);
        else
            sb_str(b, "\"\"");
        sb_str(b, "}");
        return;
    case G_JIT_LIST:
        if (a0 && a0->kind == TS__PK_LIST)
            json_items(b, a0->u.seq.v, a0->u.seq.n, depth);
        else
            sb_str(b, "[]");
        return;
    default:
        sb_str(b, "{\"call\":");
        global_text(v->func, tmp, sizeof tmp);
        json_string(b, (const unsigned char *)tmp, strlen(tmp));
        if (is_placeholder(v))
            json_not_run(b, v, depth);
        sb_str(b, "}");
        return;
    }
}

/* ------------------------------------------------------------------------ */
/* Reporting                                                                 */
/* ------------------------------------------------------------------------ */

static int is_c_contig(const tensor *t)
{
    int64_t expect = 1;
    for (int i = t->ndim; i-- > 0;) {
        if (t->shape[i] == 0)
            return 1;
        if (t->shape[i] != 1) {
            if (t->stride[i] != expect)
                return 0;
            expect *= t->shape[i];
        }
    }
    return 1;
}

static int is_f_contig(const tensor *t)
{
    int64_t expect = 1;
    for (int i = 0; i < t->ndim; i++) {
        if (t->shape[i] == 0)
            return 1;
        if (t->shape[i] != 1) {
            if (t->stride[i] != expect)
                return 0;
            expect *= t->shape[i];
        }
    }
    return 1;
}

/* Non-overlapping and dense in some order of the dims (channels_last):
 * sorted by stride, each stride is the product of the sizes below it. */
static int is_dense(const tensor *t)
{
    int order[TS_MAX_NDIM], n = 0;
    for (int i = 0; i < t->ndim; i++)
        if (t->shape[i] != 1)
            order[n++] = i;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && t->stride[order[j]] < t->stride[order[j - 1]]; j--) {
            int x = order[j];
            order[j] = order[j - 1];
            order[j - 1] = x;
        }
    int64_t expect = 1;
    for (int i = 0; i < n; i++) {
        if (t->stride[order[i]] != expect)
            return 0;
        expect *= t->shape[order[i]];
    }
    return 1;
}

static const char *kind_note(const tensor *t)
{
    switch (t->kind) {
    case K_PARAMETER: return t->requires_grad ? "nn.Parameter (requires_grad)" : "nn.Parameter";
    case K_TENSOR: return t->requires_grad ? "requires_grad" : NULL;
    default: return NULL;
    }
}

/* "note" text of entry i: kind, layout, sharing. */
static ts_status entry_note(ctx *c, size_t i, ts_array *a, const char **out)
{
    const entry *e = &c->entries[i];
    const tensor *t = e->t;
    sbuf b = {c->f, NULL, 0, 0, 0};
    const char *k = kind_note(t);
    if (k)
        sb_str(&b, k);
    if (t->extra) {
        if (b.n)
            sb_str(&b, "; ");
        sb_str(&b, t->extra);
        if (t->kind == K_QUANTIZED && t->requires_grad)
            sb_str(&b, " (requires_grad)");
    }
    if (t->s && t->s->deflated) {
        if (b.n)
            sb_str(&b, "; ");
        if (t->s->method == TS__ZIP_DEFLATED)
            sb_str(&b, "storage member is deflated: data is compressed");
        else
            sb_printf(&b, "storage member is compressed with zip method %d (%s), which tshape "
                      "cannot read", t->s->method, ts__zip_method_name(t->s->method));
    } else if (t->s && a->data_offset < 0 && a->size > 0 && t->kind != K_STORAGE) {
        if (b.n)
            sb_str(&b, "; ");
        sb_str(&b, is_dense(t) ? "dense in a permuted order (such as channels_last), not C or "
                                 "F order: read it with its strides"
                               : "strided view: its elements are not one run of bytes");
    }
    /* the same tensor at other paths (memo), then other tensors on its
     * storage: up to 4 names of each, found in at most 256 steps, so a
     * storage with a million views costs no more per view */
    const storage *s = t->s;
    if (s && s->nusers > 1) {
        size_t total[2] = {t->uses - 1, s->nusers - t->uses}, found[2] = {0, 0};
        size_t pick[2][4];
        for (size_t j = 0; j < s->nusers && j < 256; j++) {
            size_t u = s->users[j];
            int same = c->entries[u].t == t ? 0 : 1;
            if (u != i && found[same] < 4 && found[same] < total[same])
                pick[same][found[same]++] = u;
            if (found[0] == (total[0] < 4 ? total[0] : 4) &&
                found[1] == (total[1] < 4 ? total[1] : 4))
                break;
        }
        for (int g = 0; g < 2; g++) {
            if (!total[g])
                continue;
            sb_str(&b, b.n ? "; " : "");
            sb_str(&b, g == 0 ? "the same tensor as "
                              : total[0] ? "its storage is shared with " : "shares its storage with ");
            for (size_t j = 0; j < found[g]; j++) {
                char nm[100];
                sb_printf(&b, "%s'%s'", j ? ", " : "",
                          ts__printable_str(c->entries[pick[g][j]].name, nm, sizeof nm));
            }
            if (total[g] > found[g])
                sb_printf(&b, "%s%zu more", found[g] ? " and " : "", total[g] - found[g]);
        }
    }
    *out = NULL;
    if (b.failed) {
        ts__scratch_free(c->f, b.p);
        return ts__error(c->err, TS_ERR_NOMEM, "out of memory for a note");
    }
    if (b.n) {
        *out = ts__file_strndup(c->f, b.p, b.n, c->err);
        ts__scratch_free(c->f, b.p);
        return *out ? TS_OK : TS_ERR_NOMEM;
    }
    ts__scratch_free(c->f, b.p);
    return TS_OK;
}

/* A NumPy array inside the pickle: its bytes are the pickle's (a bytes
 * value, or joblib's raw bytes after the wrapper), addressable when the
 * pickle is stored in the file. */
static ts_status report_numpy(ctx *c, const tensor *t, ts_array *a)
{
    const ts__np_array *np = t->np;
    ts_status st = ts__npy_apply_descr(c->f, a, np->descr, c->err);
    if (!st)
        st = ts_shape_assign(&a->shape, np->shape, np->ndim, c->err);
    if (!st)
        st = ts__array_compute_sizes(a, c->err);
    if (st)
        return st;
    a->fortran_order = np->fortran;
    if (a->dtype == TS_DTYPE_OBJECT)
        a->nbytes = -1;
    int64_t at = np->data ? (int64_t)(np->data->u.s.p - c->pk_data) : np->data_at;
    if (at >= 0 && c->base >= 0 && a->nbytes >= 0)
        a->data_offset = c->base + at;
    a->note = ts__file_printf(c->f, c->err, "NumPy array inside the pickle%s%s",
                              np->why ? ": " : "", np->why ? np->why : "");
    return a->note ? TS_OK : TS_ERR_NOMEM;
}

static ts_status report_tensor(ctx *c, size_t i)
{
    const entry *e = &c->entries[i];
    const tensor *t = e->t;
    ts_array *a = ts__file_add_array(c->f, c->err);
    if (!a)
        return ts__file_add_failure(c->f);
    a->name = e->name;
    ts_status st;
    if (t->kind == K_NUMPY)
        return report_numpy(c, t, a);
    if (t->kind == K_UNSUPPORTED) {
        a->nbytes = -1;
        a->size = 1;
        a->format_dtype = "";
        a->note = t->extra;
        return TS_OK;
    }
    const dtype_row *dr = &dtypes[t->dtype];
    if (dr->dt != TS_DTYPE_UNKNOWN) {
        ts__array_set_dtype(a, dr->dt);
    } else {
        a->dtype = TS_DTYPE_UNKNOWN;
        a->dtype_name = dr->name;
        a->bits = dr->bits;
        a->itemsize = dr->bits / 8;
        a->block_size = 1;
        a->block_bytes = a->itemsize;
    }
    a->format_dtype = t->format_dtype ? t->format_dtype : "";
    a->byteorder = a->itemsize > 1 ? c->byteorder : '|';
    /* a sparse tensor has no strides: the file gives the dense C ones */
    if ((st = ts_shape_assign(&a->shape, t->shape, t->ndim, c->err)) ||
        (t->stride && (st = ts_shape_assign(&a->strides, t->stride, t->ndim, c->err))) ||
        (st = ts__array_compute_sizes(a, c->err)))
        return st;
    int cc = !t->stride || is_c_contig(t), fc = t->stride && is_f_contig(t);
    a->fortran_order = !cc && fc;
    a->storage_offset = t->storage_offset;
    if (t->kind == K_SPARSE) {
        a->nbytes = 0; /* the bytes are in the component tensors */
        a->storage_offset = 0;
    }
    if (t->s) {
        a->storage_key = t->s->report_key;
        a->device = t->s->location;
        int64_t off;
        if (t->s->data_offset >= 0 && (cc || fc) &&
            !ts__mul_overflow(t->storage_offset, a->itemsize, &off) && off <= t->s->nbytes)
            a->data_offset = t->s->data_offset + off;
        /* Where the values layer (src/values) finds the storage, for views
         * of any strides and for deflated members. */
        if (t->kind != K_SPARSE && t->s->located &&
            (t->s->data_offset >= 0 || t->s->comp_offset >= 0)) {
            ts__data_src src;
            memset(&src, 0, sizeof src);
            src.kind = t->s->data_offset >= 0 ? TS__SRC_STORED : TS__SRC_DEFLATE;
            src.comp_offset = t->s->comp_offset;
            src.comp_size = t->s->comp_size;
            src.size = t->s->nbytes;
            src.crc32 = t->s->crc32;
            src.storage_nbytes = t->s->nbytes;
            src.has_storage = 1;
            src.storage_start = t->s->data_offset;
            if ((st = ts__file_set_data_src(c->f, a, &src, c->err)))
                return st;
        }
    }
    if (t->device)
        a->device = t->device;
    return entry_note(c, i, a, &a->note);
}

static ts_status report(ctx *c)
{
    /* storage users, for the sharing notes */
    for (size_t i = 0; i < c->nentries; i++) {
        storage *s = c->entries[i].t ? c->entries[i].t->s : NULL;
        if (c->entries[i].t)
            c->entries[i].t->uses++;
        if (!s)
            continue;
        if (s->nusers == s->users_cap) {
            size_t cap = s->users_cap ? s->users_cap * 2 : 4;
            size_t *p = ts__scratch_realloc(c->f, s->users, cap * sizeof *p, NULL);
            if (!p)
                return ts__error(c->err, TS_ERR_NOMEM, "out of memory");
            s->users = p;
            s->users_cap = cap;
        }
        s->users[s->nusers++] = i;
    }
    ts_status st = TS_OK;
    sbuf b = {c->f, NULL, 0, 0, 0};
    for (size_t i = 0; i < c->nentries && !st; i++) {
        const entry *e = &c->entries[i];
        if (e->t) {
            st = report_tensor(c, i);
        } else if (c->opts->want_metadata) {
            b.n = 0;
            json_value(&b, e->v, 0);
            c->name_bytes += b.n;
            if (b.failed)
                st = ts__error(c->err, TS_ERR_NOMEM, "out of memory for values");
            else if (c->name_bytes > c->name_budget)
                st = vfail(c, TS_ERR_LIMIT, e->v, "the names and values of the entries take "
                           "more than %llu bytes (tshape's limit for this file)",
                           (unsigned long long)c->name_budget);
            else
                st = ts__file_add_metadata(c->f, e->name, strlen(e->name), b.p, b.n, c->err);
        }
    }
    ts__scratch_free(c->f, b.p);
    return st;
}

/* ------------------------------------------------------------------------ */
/* The object pickle: load, count, locate, name                              */
/* ------------------------------------------------------------------------ */

/* A plain pickle's observer: joblib writes an array's bytes after the
 * BUILD of its wrapper, and an object array's pickle; both are skipped
 * (pickle_numpy.h). */
static ts_status plain_observe(void *vc, ts__pk_event *e, ts_error *err)
{
    ctx *c = vc;
    int nested = 0;
    if (e->kind != TS__PK_EV_BUILD)
        return TS_OK;
    ts_status st = ts__joblib_build(e, c->where, &nested, err);
    if (st)
        return st;
    if (e->skip || nested)
        c->joblib = 1;
    if (nested) {
        /* an object array: its own pickle, run on a machine of its own
         * only to find where it ends */
        ts__pk_options o;
        memset(&o, 0, sizeof o);
        o.classify = classify;
        o.ctx = c;
        o.where = "joblib object array pickle";
        o.base = c->base >= 0 ? c->base : -1;
        o.src = e->data == c->file ? ts__file_source(c->f) : NULL;
        st = ts__pk_skip_nested(c->f, e, &o, err);
    }
    return st;
}

static ts_status load(ctx *c, const unsigned char *d, size_t len, size_t start,
                      const char *where, int64_t base, int persid, ts__pk_value **out,
                      size_t *end)
{
    ts__pk_options o;
    memset(&o, 0, sizeof o);
    o.classify = classify;
    o.ctx = c;
    o.allow_persid = persid;
    o.where = where;
    o.base = base;
    if (c->plain) {
        o.observe = plain_observe;
        o.observe_ctx = c;
    }
    c->pk_data = d;
    /* The legacy container's pickles are read from the file itself, whose
     * bytes are asked for as the machine reaches them. */
    o.src = d == c->file ? ts__file_source(c->f) : NULL;
    return ts__pk_load(c->pk, d, len, start, &o, out, end, c->err);
}

/* Passes 1 and 2 on the object tree; storages are located in between by
 * the caller's `locate`. */
static ts_status read_tree(ctx *c, ts__pk_value *root, ts_status (*locate)(ctx *c))
{
    frame *stack = ts__scratch_alloc(c->f, MAX_DEPTH * sizeof *stack, NULL);
    if (!stack)
        return ts__error(c->err, TS_ERR_NOMEM, "out of memory");
    /* Leaves: each needs an opcode, except through shared sub-trees, which
     * real checkpoints use a little (tied weights); hostile ones to build
     * 2^n paths from a few bytes. */
    uint64_t limit = 8 * ts__pk_opcodes(c->pk) + 4096;
    if (limit > MAX_LEAVES)
        limit = MAX_LEAVES;
    c->name_budget = 16 * (uint64_t)c->pickle_len + ((uint64_t)16 << 20);
    ts_status st = count_leaves(c, root, limit, stack);
    if (!st && root->count > limit)
        st = vfail(c, TS_ERR_LIMIT, root, "the pickle names more than %llu entries (through "
                   "shared sub-trees; tshape's limit for this file)",
                   (unsigned long long)limit);
    if (!st)
        st = locate(c);
    if (!st)
        st = name_leaves(c, root, stack);
    ts__scratch_free(c->f, stack);
    if (!st)
        st = report(c);
    return st;
}

/* ------------------------------------------------------------------------ */
/* The legacy container                                                      */
/* ------------------------------------------------------------------------ */

static const unsigned char MAGIC[10] = {0x6c, 0xfc, 0x9c, 0x46, 0xf9,
                                        0x20, 0x6a, 0xa8, 0x50, 0x19};

static int is_magic(const ts__pk_value *v)
{
    return v && v->kind == TS__PK_BIGINT && v->u.s.n == 10 && memcmp(v->u.s.p, MAGIC, 10) == 0;
}

/* The first pickle is the magic number: PROTO, an optional FRAME, LONG1 of
 * the 10 magic bytes, optional memo opcodes, STOP. Checked without
 * allocating (probes run before the reader has any memory). */
int ts__torch_legacy_magic(const unsigned char *d, size_t len)
{
    size_t p = 0;
    if (len < 2 || d[0] != 0x80 || d[1] < 2 || d[1] > 5)
        return 0;
    p = 2;
    if (p < len && d[p] == 0x95)
        p += 9;
    if (p + 12 > len || d[p] != 0x8a || d[p + 1] != 10 || memcmp(d + p + 2, MAGIC, 10) != 0)
        return 0;
    p += 12;
    while (p < len && (d[p] == 0x94 || d[p] == 'q' || d[p] == 'r'))
        p += d[p] == 0x94 ? 1 : d[p] == 'q' ? 2 : 5;
    return p < len && d[p] == '.';
}

/* The storages follow the last pickle, each an 8-byte element count and
 * its bytes, in the order of the key list. */
/* Asks for the 8-byte element count before each storage in the key list,
 * all at once (the storages' sizes come from the pickle), so a remote file
 * costs one request for them. Keys the check below refuses end the list. */
static ts_status legacy_need_counts(ctx *c)
{
    const ts__pk_value *keys = c->legacy_keys;
    ts__range *r = ts__scratch_alloc(c->f, (keys->u.seq.n ? keys->u.seq.n : 1) * sizeof *r,
                                     c->err);
    if (!r)
        return TS_ERR_NOMEM;
    size_t n = 0;
    uint64_t pos = c->legacy_data;
    for (size_t i = 0; i < keys->u.seq.n && c->file_len - pos >= 8; i++) {
        const ts__pk_value *k = keys->u.seq.v[i];
        size_t idx;
        if (k->kind != TS__PK_STR || !strmap_get(&c->keys, (const char *)k->u.s.p, k->u.s.n, &idx))
            break;
        r[n].off = pos;
        r[n++].len = 8;
        uint64_t nbytes = (uint64_t)c->storages[idx]->nbytes;
        if (nbytes > c->file_len - pos - 8)
            break;
        pos += 8 + nbytes;
    }
    ts_status st = ts__source_need_ranges(ts__file_source(c->f), r, n, c->err);
    ts__scratch_free(c->f, r);
    return st;
}

static ts_status legacy_locate(ctx *c)
{
    size_t pos = c->legacy_data;
    const ts__pk_value *keys = c->legacy_keys;
    ts_status st0 = legacy_need_counts(c);
    if (st0)
        return st0;
    for (size_t i = 0; i < keys->u.seq.n; i++) {
        const ts__pk_value *k = keys->u.seq.v[i];
        char kt[96];
        if (k->kind != TS__PK_STR)
            return ts__fail(c->err, TS_ERR_FORMAT, 0, k->offset, "storage key %zu (key list, "
                            "byte %lld) is a %s, not a str", i, (long long)k->offset,
                            kind_of(k));
        ts__printable((const char *)k->u.s.p, k->u.s.n, kt, sizeof kt);
        size_t idx;
        if (!strmap_get(&c->keys, (const char *)k->u.s.p, k->u.s.n, &idx))
            return ts__fail(c->err, TS_ERR_FORMAT, 0, k->offset,
                            "storage key '%s' (key list, byte %lld) is not used by any tensor, "
                            "so its element size is unknown", kt, (long long)k->offset);
        storage *s = c->storages[idx];
        if (s->located)
            return ts__fail(c->err, TS_ERR_FORMAT, 0, k->offset,
                            "storage key '%s' appears twice in the key list", kt);
        if (c->file_len - pos < 8)
            return ts__fail(c->err, TS_ERR_TRUNCATED, 0, (int64_t)pos,
                            "storage '%s': the file ends at byte %zu, before its 8-byte "
                            "element count at byte %zu", kt, c->file_len, pos);
        int64_t count;
        uint64_t u = ts__le64(c->file + pos);
        memcpy(&count, &u, sizeof count);
        if (count != s->numel)
            return ts__fail(c->err, TS_ERR_FORMAT, 0, (int64_t)pos,
                            "storage '%s': element count %lld at byte %zu, but its "
                            "persistent id declares %lld", kt, (long long)count, pos,
                            (long long)s->numel);
        pos += 8;
        if ((uint64_t)s->nbytes > c->file_len - pos)
            return ts__fail(c->err, TS_ERR_TRUNCATED, 0, (int64_t)pos,
                            "storage '%s': %lld bytes at byte %zu run past the end of the "
                            "%zu-byte file", kt, (long long)s->nbytes, pos, c->file_len);
        s->data_offset = (int64_t)pos;
        s->located = 1;
        s->report_key = ts__file_strndup(c->f, s->key, s->key_len, c->err);
        if (!s->report_key)
            return TS_ERR_NOMEM;
        pos += (size_t)s->nbytes;
    }
    ts__file_set_extent(c->f, (int64_t)pos); /* the last storage ends the file */
    for (size_t i = 0; i < c->nstorages; i++)
        if (!c->storages[i]->located) {
            char kt[96];
            const storage *s = c->storages[i];
            return vfail(c, TS_ERR_FORMAT, s->pid, "storage '%s' is missing from the key "
                         "list, so its bytes cannot be found",
                         ts__printable(s->key, s->key_len, kt, sizeof kt));
        }
    return TS_OK;
}

static ts_status read_legacy(ctx *c)
{
    static const char *const names[4] = {"magic number pickle", "protocol version pickle",
                                         "sys_info pickle", "object pickle"};
    ts__pk_value *v[5];
    size_t pos = 0, start[5];
    ts_status st;
    for (int i = 0; i < 5; i++) {
        start[i] = pos;
        st = load(c, c->file, c->file_len, pos, i < 4 ? names[i] : "storage key pickle", 0,
                  i == 3, &v[i], &pos);
        if (st)
            return st;
        if (i == 0 && !is_magic(v[0]))
            return ts__fail(c->err, TS_ERR_FORMAT, 0, 0, "not a PyTorch legacy file: the "
                            "first pickle is not the magic number 0x1950a86a20f9469cfc6c");
        if (i == 1) {
            if (v[1]->kind != TS__PK_INT)
                return ts__fail(c->err, TS_ERR_FORMAT, 0, (int64_t)start[1], "legacy protocol "
                                "version at byte %zu is a %s, not an int", start[1],
                                kind_of(v[1]));
            if (v[1]->u.i != 1001)
                return ts__fail(c->err, TS_ERR_UNSUPPORTED, 0, (int64_t)start[1],
                                "legacy protocol version %lld is not supported (1001 is)",
                                (long long)v[1]->u.i);
        }
        if (i == 2 && v[2]->kind != TS__PK_DICT)
            return ts__fail(c->err, TS_ERR_FORMAT, 0, (int64_t)start[2], "sys_info at byte "
                            "%zu is a %s, not a dict", start[2], kind_of(v[2]));
        if (i == 4 && v[4]->kind != TS__PK_LIST)
            return ts__fail(c->err, TS_ERR_FORMAT, 0, (int64_t)start[4], "storage key list at "
                            "byte %zu is a %s, not a list", start[4], kind_of(v[4]));
    }
    ts__file_set_version(c->f, "legacy 1001");
    c->where = "object pickle";
    c->base = 0;
    c->pickle_len = start[4] - start[3];
    c->legacy_keys = v[4];
    c->legacy_data = pos;
    return read_tree(c, v[3], legacy_locate);
}

/* ------------------------------------------------------------------------ */
/* The zip container                                                         */
/* ------------------------------------------------------------------------ */

/* The member named prefix + "/" + rest, or -1 (-2 when out of memory). */
static long find_member(ctx *c, const char *rest, size_t rest_len)
{
    char local[1024], *name = local;
    size_t n = c->prefix_len + 1 + rest_len;
    if (n > sizeof local && !(name = ts__scratch_alloc(c->f, n, c->err)))
        return -2;
    memcpy(name, c->prefix, c->prefix_len);
    name[c->prefix_len] = '/';
    memcpy(name + c->prefix_len + 1, rest, rest_len);
    size_t idx;
    long found = strmap_get(&c->members, name, n, &idx) ? (long)idx : -1;
    if (name != local)
        ts__scratch_free(c->f, name);
    return found;
}

static ts_status zip_locate(ctx *c)
{
    for (size_t i = 0; i < c->nstorages; i++) {
        storage *s = c->storages[i];
        char rest[300], kt[96];
        snprintf(rest, sizeof rest, "%s/%.*s", c->storage_dir, (int)s->key_len, s->key);
        ts__printable(s->key, s->key_len, kt, sizeof kt);
        long m = find_member(c, rest, strlen(rest));
        if (m == -2)
            return TS_ERR_NOMEM;
        if (m < 0)
            return vfail(c, TS_ERR_FORMAT, s->pid, "storage '%s' (%s, %lld elements) has no "
                         "member %.*s/%s/%s in the archive", kt, s->type_text,
                         (long long)s->numel, (int)c->prefix_len, c->prefix, c->storage_dir,
                         kt);
        const ts__zip_member *zm = ts__zip_member_at(c->zip, (size_t)m);
        if (zm->size != (uint64_t)s->nbytes)
            return vfail(c, TS_ERR_FORMAT, s->pid, "member %s holds %llu bytes, but storage "
                         "'%s' declares %lld elements of %lld bytes", zm->name,
                         (unsigned long long)zm->size, kt, (long long)s->numel,
                         (long long)s->itemsize);
        s->located = 1;
        s->deflated = zm->method != TS__ZIP_STORED;
        s->method = zm->method;
        s->data_offset = s->deflated ? -1 : zm->data_offset;
        s->comp_offset = zm->method == TS__ZIP_DEFLATED ? zm->data_offset : -1;
        s->comp_size = (int64_t)zm->comp_size;
        s->crc32 = zm->crc32;
        s->report_key = ts__file_strndup(c->f, zm->name, strlen(zm->name), c->err);
        if (!s->report_key)
            return TS_ERR_NOMEM;
    }
    return TS_OK;
}

/* The first bytes of a small text member ("3\n", "little"), or "" when the
 * member is absent. */
static ts_status read_record(ctx *c, const char *rest, char *buf, size_t cap, int *present)
{
    buf[0] = '\0';
    *present = 0;
    long m = find_member(c, rest, strlen(rest));
    if (m == -2)
        return TS_ERR_NOMEM;
    if (m < 0)
        return TS_OK;
    size_t got = 0;
    ts_status st = ts__zip_read(c->zip, (size_t)m, (unsigned char *)buf, cap - 1, &got, c->err);
    if (st) {
        ts__error_prefix(c->err, "record %s", rest);
        return st;
    }
    buf[got] = '\0';
    *present = 1;
    return TS_OK;
}

/* What a member name says about the archive. */
enum { M_OTHER, M_DATA_PKL, M_CONSTANTS, M_PT2, M_MODEL_JSON, M_EXPORT, M_STORAGE };

static int member_kind(const char *name, size_t n, size_t *prefix_len)
{
    const char *slash = memchr(name, '/', n);
    if (!slash) {
        *prefix_len = 0;
        return text_is(name, n, "serialized_exported_program.json") ? M_EXPORT : M_OTHER;
    }
    size_t p = (size_t)(slash - name);
    const char *rest = slash + 1;
    size_t rn = n - p - 1;
    *prefix_len = p;
    if (p == 0)
        return M_OTHER;
    if (text_is(rest, rn, "data.pkl"))
        return M_DATA_PKL;
    if (text_is(rest, rn, "constants.pkl"))
        return M_CONSTANTS;
    if (text_is(rest, rn, "archive_format"))
        return M_PT2;
    if (text_is(rest, rn, "model.json"))
        return M_MODEL_JSON;
    if (rn > 5 && memcmp(rest, "data/", 5) == 0 && !memchr(rest + 5, '/', rn - 5))
        return M_STORAGE;
    return M_OTHER;
}

/* One try of load_member on the first n bytes of the member. */
typedef struct member_try {
    ctx *c;
    ts__pk_value **root;
    int tries;
} member_try;

static ts_status try_member(void *arg, const unsigned char *buf, size_t n, int64_t base,
                            ts_error *err)
{
    member_try *t = arg;
    ctx *c = t->c;
    size_t end;
    (void)err;
    if (t->tries++) {
        /* run again from the start, on a fresh machine */
        ts__pk_free(c->pk);
        c->pk = NULL;
        ts_status st = ts__pk_new(&c->pk, c->f, c->err);
        if (st)
            return st;
    }
    c->base = base;
    return load(c, buf, n, 0, c->where, base, 1, t->root, &end);
}

/*
 * Loads the pickle of member mi: in place when stored; when deflated,
 * inflated only as far as the machine needs (ts__zip_read_growing, from
 * PICKLE_FIRST_BYTES): a pickle that fails early (a bomb of BININT1
 * opcodes that overflows the value stack) stops the inflating. *buf
 * receives the inflated bytes, which the tree points into (free them
 * after using it).
 */
static ts_status load_member(ctx *c, size_t mi, ts__pk_value **root, unsigned char **buf)
{
    const ts__zip_member *pm = ts__zip_member_at(c->zip, mi);
    if (pm->size > MAX_PICKLE_BYTES)
        return ts__fail(c->err, TS_ERR_LIMIT, 0, pm->local_offset, "%s is %llu bytes, more "
                        "than tshape's limit of 1 GiB for a pickle", pm->name,
                        (unsigned long long)pm->size);
    c->pickle_len = (size_t)pm->size;
    c->where = pm->name;
    member_try t = {c, root, 0};
    return ts__zip_read_growing(c->zip, mi, c->f, PICKLE_FIRST_BYTES, try_member, &t, buf,
                                c->err);
}

/*
 * TorchScript's constants.pkl: a tuple of the tensors the code refers to
 * as CONSTANTS.c0, CONSTANTS.c1, ..., whose storages are the members
 * <p>/constants/<key> (their own namespace of keys). Read after data.pkl's
 * tree is reported, on the same machine.
 */
static ts_status read_constants(ctx *c, size_t mi)
{
    c->nentries = 0;
    for (size_t i = 0; i < c->nstorages; i++)
        ts__scratch_free(c->f, c->storages[i]->users);
    c->nstorages = 0;
    ts__scratch_free(c->f, c->keys.slots);
    memset(&c->keys, 0, sizeof c->keys);
    c->storage_dir = "constants";
    ts__pk_value *root;
    unsigned char *inflated = NULL;
    ts_status st = load_member(c, mi, &root, &inflated);
    if (!st && root->kind != TS__PK_TUPLE)
        st = vfail(c, TS_ERR_FORMAT, root, "TorchScript constants are a %s, not a tuple",
                   kind_of(root));
    c->name_budget = 16 * (uint64_t)c->pickle_len + ((uint64_t)16 << 20);
    for (size_t i = 0; !st && i < root->u.seq.n; i++) {
        ts__pk_value *v = root->u.seq.v[i];
        char name[40];
        int n = snprintf(name, sizeof name, "CONSTANTS.c%zu", i);
        tensor *t = NULL;
        if (v->kind == TS__PK_CALL && is_tensor_tag(call_tag(v)))
            st = get_tensor(c, v, "constant", &t);
        if (!st)
            st = add_entry(c, name, (size_t)n, t, v, v);
    }
    if (!st)
        st = zip_locate(c);
    if (!st)
        st = report(c);
    ts__scratch_free(c->f, inflated);
    return st;
}

static ts_status read_zip(ctx *c)
{
    ts_status st = ts__zip_open(&c->zip, c->f, c->file, c->file_len, c->err);
    if (st)
        return st;
    size_t n = ts__zip_count(c->zip);
    long pkl = -1;
    int export_ = 0, pt2 = 0, model_json = 0;
    const char *pt2_prefix = NULL;
    size_t pt2_prefix_len = 0;
    for (size_t i = 0; i < n; i++) {
        const ts__zip_member *m = ts__zip_member_at(c->zip, i);
        size_t len = strlen(m->name), p;
        if ((st = strmap_put(c, &c->members, m->name, len, i)))
            return st;
        int k = member_kind(m->name, len, &p);
        if (k == M_DATA_PKL && pkl < 0)
            pkl = (long)i;
        export_ |= k == M_EXPORT;
        if (k == M_PT2 && !pt2) {
            pt2_prefix = m->name;
            pt2_prefix_len = p;
        }
        pt2 |= k == M_PT2;
        model_json |= k == M_MODEL_JSON;
    }
    if (pkl >= 0) {
        /* torch takes the folder from the first member: prefer its data.pkl */
        const ts__zip_member *first = ts__zip_member_at(c->zip, 0);
        const char *slash = strchr(first->name, '/');
        if (slash) {
            char want[1024];
            size_t p = (size_t)(slash - first->name);
            if (p + 10 < sizeof want) {
                memcpy(want, first->name, p);
                memcpy(want + p, "/data.pkl", 10);
                size_t idx;
                if (strmap_get(&c->members, want, p + 9, &idx))
                    pkl = (long)idx;
            }
        }
    }
    if (pkl < 0) {
        if (pt2)
            return ts__read_pt2(c->f, c->zip, pt2_prefix, pt2_prefix_len, c->opts, c->err);
        if (export_)
            return ts__error(c->err, TS_ERR_UNSUPPORTED, "torch.export archive of torch 2.1 "
                             "to 2.5 (serialized_exported_program.json): not supported; its "
                             "state dict is the torch.save archive in member "
                             "serialized_state_dict.pt (unzip it and read that)");
        if (model_json)
            return ts__error(c->err, TS_ERR_UNSUPPORTED, "early TorchScript archive "
                             "(model.json, torch 1.0 to 1.2): not supported");
        return ts__error(c->err, TS_ERR_FORMAT, "not a PyTorch archive: the zip has no "
                         "member <folder>/data.pkl (%zu members)", n);
    }
    const ts__zip_member *pm = ts__zip_member_at(c->zip, (size_t)pkl);
    c->prefix = pm->name;
    c->prefix_len = strlen(pm->name) - 9;
    long cm = find_member(c, "constants.pkl", 13);
    if (cm == -2)
        return TS_ERR_NOMEM;
    c->torchscript = cm >= 0;
    c->where = pm->name;

    char version[40], order[16];
    int have_version, have_order;
    if ((st = read_record(c, "version", version, sizeof version, &have_version)))
        return st;
    if (!have_version &&
        (st = read_record(c, ".data/version", version, sizeof version, &have_version)))
        return st;
    if ((st = read_record(c, "byteorder", order, sizeof order, &have_order)))
        return st;
    if (have_order) {
        if (strcmp(order, "little") == 0)
            c->byteorder = '<';
        else if (strcmp(order, "big") == 0)
            c->byteorder = '>';
        else {
            char shown[64];
            return ts__error(c->err, TS_ERR_FORMAT, "record %.*s/byteorder says '%s', not "
                             "'little' or 'big'", (int)c->prefix_len, c->prefix,
                             ts__printable_str(order, shown, sizeof shown));
        }
    }
    size_t vl = strlen(version);
    while (vl && (version[vl - 1] == '\n' || version[vl - 1] == '\r' || version[vl - 1] == ' '))
        version[--vl] = '\0';
    char shown[64];
    ts__printable(version, vl, shown, sizeof shown);
    const char *vt = ts__file_printf(c->f, c->err, "%s%s%s",
                                     c->torchscript ? "torchscript" : "zip", vl ? " " : "",
                                     shown);
    if (!vt)
        return TS_ERR_NOMEM;
    ts__file_set_version(c->f, vt);

    ts__pk_value *root;
    unsigned char *inflated = NULL;
    c->storage_dir = "data";
    st = load_member(c, (size_t)pkl, &root, &inflated);
    if (!st)
        st = read_tree(c, root, zip_locate);
    /* the tree points into the inflated pickle until here */
    ts__scratch_free(c->f, inflated);
    if (!st && cm >= 0)
        st = read_constants(c, (size_t)cm);
    return st;
}

/* ------------------------------------------------------------------------ */
/* Detection and the reader                                                  */
/* ------------------------------------------------------------------------ */

static int is_torch_tar(const unsigned char *d, size_t len)
{
    static const char *const names[] = {"sys_info", "pickle", "storages", "tensors"};
    if (len < 512 || memcmp(d + 257, "ustar", 5) != 0)
        return 0;
    for (size_t i = 0; i < 4; i++) {
        size_t n = strlen(names[i]);
        if (memcmp(d, names[i], n) == 0 && d[n] == '\0')
            return 1;
    }
    return 0;
}

/* Does any member name say PyTorch? A walk of the central directory that
 * allocates nothing (probes run before the reader has any memory); when
 * there is no directory (a truncated file), the first member's name:
 * torch.save writes data.pkl first, TorchScript its data/ members. */
static int zip_is_torch(const unsigned char *d, size_t len, ts__source *src)
{
    size_t p;
    if (len >= 22) {
        size_t lo = len - 22 > 65535 ? len - 22 - 65535 : 0;
        if (!ts__probe_need(src, lo, len - lo))
            return 0;
        for (size_t e = len - 22;; e--) {
            if (memcmp(d + e, "PK\5\6", 4) == 0 && ts__le16(d + e + 20) <= len - e - 22) {
                uint64_t count = ts__le16(d + e + 10), off = ts__le32(d + e + 16);
                if (e >= 20 && memcmp(d + e - 20, "PK\6\7", 4) == 0) {
                    uint64_t rec = ts__le64(d + e - 20 + 8);
                    if (rec <= e - 20 && e - 20 - rec >= 56 && ts__probe_need(src, rec, 56) &&
                        memcmp(d + rec, "PK\6\6", 4) == 0) {
                        count = ts__le64(d + rec + 32);
                        off = ts__le64(d + rec + 48);
                    }
                }
                /* The directory ends at the end record (or the zip64 one). */
                if (off < e && !ts__probe_need(src, off, e - off))
                    return 0;
                for (uint64_t i = 0; i < count && off <= e && e - off >= 46 &&
                                     memcmp(d + off, "PK\1\2", 4) == 0; i++) {
                    size_t n = ts__le16(d + off + 28);
                    if (n > e - off - 46)
                        break;
                    int k = member_kind((const char *)d + off + 46, n, &p);
                    if (k != M_OTHER && k != M_STORAGE)
                        return 1;
                    off += 46 + n + ts__le16(d + off + 30) + ts__le16(d + off + 32);
                }
                return 0;
            }
            if (e == lo)
                break;
        }
    }
    if (len < 30)
        return 0;
    size_t n = ts__le16(d + 26);
    if (n > len - 30)
        return 0;
    return member_kind((const char *)d + 30, n, &p) != M_OTHER;
}

static int probe_pytorch(const unsigned char *d, size_t len, ts__source *src)
{
    if (len >= 8 && memcmp(d, "PYTORCH1", 8) == 0)
        return 1;
    if (len >= 4 && memcmp(d, "PK\3\4", 4) == 0)
        return zip_is_torch(d, len, src);
    return ts__torch_legacy_magic(d, len) || is_torch_tar(d, len);
}

/* A plain pickle (pickle.dump, joblib.dump, paddle.save): its first pickle,
 * as pickle.load reads it; no persistent ids (pickle.load has no
 * persistent_load). */
static ts_status no_storages(ctx *c)
{
    (void)c;
    return TS_OK;
}

static ts_status read_plain(ctx *c)
{
    ts__pk_value *root;
    size_t end;
    c->plain = 1;
    c->where = "pickle";
    c->base = 0;
    c->pickle_len = c->file_len;
    ts_status st = load(c, c->file, c->file_len, 0, "pickle", 0, 0, &root, &end);
    if (st)
        return st;
    char proto[16] = "0 or 1";
    if (c->file_len >= 2 && c->file[0] == 0x80)
        snprintf(proto, sizeof proto, "%d", c->file[1]);
    const char *v = ts__file_printf(c->f, c->err, "%sprotocol %s", c->joblib ? "joblib, " : "",
                                    proto);
    if (!v)
        return TS_ERR_NOMEM;
    ts__file_set_version(c->f, v);
    return read_tree(c, root, no_storages);
}

static ts_status read_any(ts_file *f, const unsigned char *data, size_t len,
                          const ts_open_options *opts, int plain, ts_error *err)
{
    ctx c;
    memset(&c, 0, sizeof c);
    c.f = f;
    c.opts = opts;
    c.err = err;
    c.file = data;
    c.file_len = len;
    c.byteorder = '<';
    c.base = -1;
    c.where = "pickle";
    ts_status st = ts__pk_new(&c.pk, f, err);
    if (st)
        return st;
    if (plain)
        st = read_plain(&c);
    else if (len >= 8 && memcmp(data, "PYTORCH1", 8) == 0)
        st = ts__fail(err, TS_ERR_UNSUPPORTED, 0, 0, "the PyTorch zip preview format of 2018 "
                      "(magic PYTORCH1) is not supported");
    else if (len >= 4 && memcmp(data, "PK", 2) == 0)
        st = read_zip(&c);
    else if (is_torch_tar(data, len))
        st = ts__fail(err, TS_ERR_UNSUPPORTED, 0, 0, "tar-based torch.save format of torch "
                      "0.1 (members sys_info, pickle, storages, tensors): not supported; "
                      "load and save it again with a newer torch");
    else if (len >= 1 && data[0] == 0x80) {
        c.legacy = 1;
        st = read_legacy(&c);
    } else
        st = ts__fail(err, TS_ERR_FORMAT, 0, 0, "not a PyTorch file: expected a zip archive "
                      "(PK\\3\\4) or a pickle starting with PROTO (0x80) and the magic "
                      "number 0x1950a86a20f9469cfc6c");
    for (size_t i = 0; i < c.nstorages; i++)
        ts__scratch_free(f, c.storages[i]->users);
    ts__scratch_free(f, c.storages);
    ts__scratch_free(f, c.keys.slots);
    ts__scratch_free(f, c.members.slots);
    ts__scratch_free(f, c.entries);
    while (c.chunks) {
        chunk *k = c.chunks->next;
        ts__scratch_free(f, c.chunks);
        c.chunks = k;
    }
    if (c.zip)
        ts__zip_close(f, c.zip);
    ts__pk_free(c.pk);
    return st;
}

static ts_status read_pytorch(ts_file *f, const unsigned char *data, size_t len,
                              const ts_open_options *opts, ts_error *err)
{
    return read_any(f, data, len, opts, 0, err);
}

static ts_status read_pickle(ts_file *f, const unsigned char *data, size_t len,
                             const ts_open_options *opts, ts_error *err)
{
    return read_any(f, data, len, opts, 1, err);
}

/* PROTO 2..5 first: what pickle.dump writes (torch's legacy magic is tried
 * first, by the pytorch row); not a safetensors file whose header length
 * starts with the same two bytes (640, 896, 1152 or 1408, + k * 65536). */
static int probe_pickle(const unsigned char *d, size_t len, ts__source *src)
{
    return len >= 2 && d[0] == 0x80 && d[1] >= 2 && d[1] <= 5 &&
           !ts__probe_safetensors(d, len, src);
}

const ts__reader ts__reader_pickle = {
    {TS_FORMAT_PICKLE, "pickle", ".pkl .pickle .pdparams .joblib",
     "PROTO opcode 0x80 and a protocol 2-5 (--format pickle: any protocol)",
     "a plain pickle (pickle.dump, paddle.save, joblib.dump): NumPy arrays and values, read "
     "without running it",
     "descr", 0},
    probe_pickle,
    read_pickle,
    0,
};

const ts__reader ts__reader_pytorch = {
    {TS_FORMAT_PYTORCH, "pytorch", ".pt .pth .bin .ckpt .pt2",
     "zip archive with <folder>/data.pkl or <folder>/archive_format, or pickle magic "
     "0x1950a86a20f9469cfc6c",
     "PyTorch torch.save (zip and legacy), TorchScript and torch.export .pt2, read without "
     "running the pickle",
     "storage type", 0},
    probe_pytorch,
    read_pytorch,
    0,
};
