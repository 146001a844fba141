/*
 * pickle.c - the restricted pickle machine of pickle.h.
 *
 * Opcodes follow CPython's Lib/pickle.py (_Unpickler) and pickletools.py:
 * a value stack, a stack of MARK positions (items below the last mark are
 * out of reach until it is consumed, like pickle.py's metastack) and a memo.
 * Every opcode of protocols 0 to 5 is interpreted as pickle.load would,
 * except that nothing is ever looked up or called: EXT1/2/4 (the copyreg
 * extension registry, empty unless a program fills it) and the out-of-band
 * buffers of protocol 5 (absent from a file) are refused by name.
 */
#include "pickle.h"

#include "pickle_globals.h"
#include "reader.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Values are made in blocks that grow from 32 (a small pickle touches
 * little memory) to 1024. */
#define BLOCK_VALUES 1024
#define BLOCK_FIRST 32

typedef struct block {
    struct block *next;
    size_t used, cap;
    ts__pk_value v[];
} block;

/* The item arrays of containers of up to SMALL_ITEMS items are cut from
 * slabs (of 256 to 8192 pointers) that live as long as the machine: a
 * 16-tensor state dict makes some 60 small tuples, and a malloc and free
 * each was a tenth of a folder scan. A larger array is a memory block of
 * its own (`owned` set), grown with realloc. */
#define SMALL_ITEMS 256
#define SLAB_FIRST 256
#define SLAB_MAX 8192

typedef struct slab {
    struct slab *next;
    size_t used, cap;
    ts__pk_value *v[];
} slab;

/* Text decoded from protocol 0 opcodes (STRING, UNICODE, long INT). */
typedef struct text {
    struct text *next;
    unsigned char data[];
} text;

struct ts__pk {
    ts_file *file;           /* owns the memory (scratch), or NULL: malloc */
    block *blocks;
    slab *slabs;
    size_t owned_items;      /* containers whose items have a block of
                                their own (freed with the nodes) */
    text *texts;
    size_t nvalues;
    uint64_t nitems;         /* container items made, for the limit */
    uint64_t opcodes;
    uint64_t seen[4];        /* opcode bytes run by the last load */
    ts__pk_value **stack;
    size_t sp, scap;
    size_t *marks;           /* grown to TS__PK_MAX_MARKS at most (kept
                                out of the struct: a machine per file of a
                                folder cleared 8 KB it seldom used) */
    size_t nmarks, marks_cap;
    /* memo: open addressing, key index + 1 (0 = empty) */
    uint64_t *mkeys;
    ts__pk_value **mvals;
    size_t mcap, mcount;
    uint64_t seed;           /* hash seed: memo indices come from the file */
    /* shared immutable constants */
    ts__pk_value *none, *true_, *false_;
    ts__pk_value *small[256];
    /* the current load */
    const unsigned char *data;
    size_t len;
    const ts__pk_options *opts;
    ts_error *err;           /* the caller's, or local_err */
    ts_error local_err;
};

const char *ts__pk_kind_name(int kind)
{
    switch ((ts__pk_kind)kind) {
    case TS__PK_NONE: return "None";
    case TS__PK_BOOL: return "bool";
    case TS__PK_INT: return "int";
    case TS__PK_BIGINT: return "int";
    case TS__PK_FLOAT: return "float";
    case TS__PK_STR: return "str";
    case TS__PK_BYTES: return "bytes";
    case TS__PK_TUPLE: return "tuple";
    case TS__PK_LIST: return "list";
    case TS__PK_DICT: return "dict";
    case TS__PK_SET: return "set";
    case TS__PK_FROZENSET: return "frozenset";
    case TS__PK_GLOBAL: return "global";
    case TS__PK_CALL: return "call";
    case TS__PK_OBJECT: return "object";
    case TS__PK_PERSID: return "persistent id";
    }
    return "value";
}

/* pickletools.py's names, by opcode byte. */
const char *ts__pk_opcode_name(unsigned char op)
{
    switch (op) {
    case '(': return "MARK";
    case '.': return "STOP";
    case '0': return "POP";
    case '1': return "POP_MARK";
    case '2': return "DUP";
    case 'F': return "FLOAT";
    case 'I': return "INT";
    case 'J': return "BININT";
    case 'K': return "BININT1";
    case 'L': return "LONG";
    case 'M': return "BININT2";
    case 'N': return "NONE";
    case 'P': return "PERSID";
    case 'Q': return "BINPERSID";
    case 'R': return "REDUCE";
    case 'S': return "STRING";
    case 'T': return "BINSTRING";
    case 'U': return "SHORT_BINSTRING";
    case 'V': return "UNICODE";
    case 'X': return "BINUNICODE";
    case 'a': return "APPEND";
    case 'b': return "BUILD";
    case 'c': return "GLOBAL";
    case 'd': return "DICT";
    case '}': return "EMPTY_DICT";
    case 'e': return "APPENDS";
    case 'g': return "GET";
    case 'h': return "BINGET";
    case 'i': return "INST";
    case 'j': return "LONG_BINGET";
    case 'l': return "LIST";
    case ']': return "EMPTY_LIST";
    case 'o': return "OBJ";
    case 'p': return "PUT";
    case 'q': return "BINPUT";
    case 'r': return "LONG_BINPUT";
    case 's': return "SETITEM";
    case 't': return "TUPLE";
    case ')': return "EMPTY_TUPLE";
    case 'u': return "SETITEMS";
    case 'G': return "BINFLOAT";
    case 'B': return "BINBYTES";
    case 'C': return "SHORT_BINBYTES";
    case 0x80: return "PROTO";
    case 0x81: return "NEWOBJ";
    case 0x82: return "EXT1";
    case 0x83: return "EXT2";
    case 0x84: return "EXT4";
    case 0x85: return "TUPLE1";
    case 0x86: return "TUPLE2";
    case 0x87: return "TUPLE3";
    case 0x88: return "NEWTRUE";
    case 0x89: return "NEWFALSE";
    case 0x8a: return "LONG1";
    case 0x8b: return "LONG4";
    case 0x8c: return "SHORT_BINUNICODE";
    case 0x8d: return "BINUNICODE8";
    case 0x8e: return "BINBYTES8";
    case 0x8f: return "EMPTY_SET";
    case 0x90: return "ADDITEMS";
    case 0x91: return "FROZENSET";
    case 0x92: return "NEWOBJ_EX";
    case 0x93: return "STACK_GLOBAL";
    case 0x94: return "MEMOIZE";
    case 0x95: return "FRAME";
    case 0x96: return "BYTEARRAY8";
    case 0x97: return "NEXT_BUFFER";
    case 0x98: return "READONLY_BUFFER";
    default: return NULL;
    }
}

static int text_eq(const char *a, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(a, lit, n) == 0;
}

/* ------------------------------------------------------------------------ */
/* Memory                                                                    */
/* ------------------------------------------------------------------------ */

/* Memory: the file's scratch memory when there is a file (freed by it
 * if a fault ends the reader), else malloc. Failures set no error. */
static void *mem_realloc(ts_file *f, void *p, size_t n)
{
    return f ? ts__scratch_realloc(f, p, n, NULL) : realloc(p, n ? n : 1);
}

static void mem_free(ts_file *f, void *p)
{
    if (f)
        ts__scratch_free(f, p);
    else
        free(p);
}

ts_status ts__pk_new(ts__pk **out, ts_file *f, ts_error *err)
{
    *out = mem_realloc(f, NULL, sizeof **out);
    if (!*out)
        return ts__error(err, TS_ERR_NOMEM, "out of memory for the pickle machine");
    memset(*out, 0, sizeof **out);
    (*out)->file = f;
    (*out)->seed = (uint64_t)(uintptr_t)*out * 0x9E3779B97F4A7C15ull;
    return TS_OK;
}

/* Kinds whose u.seq may own an array. */
static int has_seq(int kind)
{
    return kind == TS__PK_TUPLE || kind == TS__PK_LIST || kind == TS__PK_DICT ||
           kind == TS__PK_SET || kind == TS__PK_FROZENSET || kind == TS__PK_CALL ||
           kind == TS__PK_OBJECT;
}

/* Frees the nodes' memory but the first `keep` blocks and slabs (the
 * newest, the largest: emptied). */
static void free_nodes(ts__pk *pk, int keep)
{
    ts_file *f = pk->file;
    for (block *b = pk->blocks; b && pk->owned_items; b = b->next)
        for (size_t i = 0; i < b->used; i++)
            if (has_seq(b->v[i].kind) && b->v[i].owned) {
                mem_free(f, b->v[i].u.seq.v);
                pk->owned_items--;
            }
    block **bp = &pk->blocks;
    for (int k = 0; k < keep && *bp; k++) {
        (*bp)->used = 0;
        bp = &(*bp)->next;
    }
    while (*bp) {
        block *b = *bp;
        *bp = b->next;
        mem_free(f, b);
    }
    slab **sp = &pk->slabs;
    for (int k = 0; k < keep && *sp; k++) {
        (*sp)->used = 0;
        sp = &(*sp)->next;
    }
    while (*sp) {
        slab *b = *sp;
        *sp = b->next;
        mem_free(f, b);
    }
    while (pk->texts) {
        text *t = pk->texts;
        pk->texts = t->next;
        mem_free(f, t);
    }
}

static void memo_clear(ts__pk *pk);

void ts__pk_reset(ts__pk *pk)
{
    free_nodes(pk, 1);
    pk->nvalues = 0;
    pk->nitems = 0;
    pk->opcodes = 0;
    pk->sp = 0;
    pk->nmarks = 0;
    memo_clear(pk);
    /* the shared constants were nodes */
    pk->none = pk->true_ = pk->false_ = NULL;
    memset(pk->small, 0, sizeof pk->small);
}

void ts__pk_free(ts__pk *pk)
{
    if (!pk)
        return;
    ts_file *f = pk->file;
    free_nodes(pk, 0);
    mem_free(f, pk->stack);
    mem_free(f, pk->marks);
    mem_free(f, pk->mkeys);
    mem_free(f, pk->mvals);
    mem_free(f, pk);
}

uint64_t ts__pk_opcodes(const ts__pk *pk)
{
    return pk->opcodes;
}

int ts__pk_opcode_seen(const ts__pk *pk, unsigned char op)
{
    return (int)(pk->seen[op >> 6] >> (op & 63) & 1);
}

/* "<where> byte <at>: <message>", err->offset from base. */
static ts_status fail(ts__pk *pk, ts_status code, size_t at, const char *fmt, ...)
    TS__PRINTF(4, 5);
static ts_status fail(ts__pk *pk, ts_status code, size_t at, const char *fmt, ...)
{
    char msg[TS_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const ts__pk_options *o = pk->opts;
    int64_t off = o->base >= 0 ? o->base + (int64_t)at : -1;
    return ts__fail(pk->err, code, 0, off, "%s byte %zu: %s", o->where ? o->where : "pickle",
                    at, msg);
}

static ts__pk_value *new_value(ts__pk *pk, int kind, size_t at)
{
    if (pk->nvalues >= TS__PK_MAX_VALUES) {
        fail(pk, TS_ERR_LIMIT, at, "the pickle builds more than %u values (tshape's limit)",
             TS__PK_MAX_VALUES);
        return NULL;
    }
    block *b = pk->blocks;
    if (!b || b->used == b->cap) {
        size_t cap = !b ? BLOCK_FIRST : b->cap < BLOCK_VALUES ? 2 * b->cap : BLOCK_VALUES;
        b = mem_realloc(pk->file, NULL, sizeof *b + cap * sizeof b->v[0]);
        if (!b) {
            ts__error(pk->err, TS_ERR_NOMEM, "out of memory for pickle values");
            return NULL;
        }
        b->used = 0;
        b->cap = cap;
        b->next = pk->blocks;
        pk->blocks = b;
    }
    /* field by field: a memset of the value compiled to rep stos, which
     * was most of this function's time */
    ts__pk_value *v = &b->v[b->used++];
    v->kind = (uint8_t)kind;
    v->role = v->mark = v->items = v->owned = v->op = 0;
    v->depth = 0;
    v->tag = 0;
    v->offset = (int64_t)at;
    _Static_assert(sizeof v->u == sizeof v->u.g, "u.g spans the union");
    v->u.g.module = v->u.g.name = NULL;
    v->u.g.module_len = v->u.g.name_len = 0;
    v->func = v->args = v->state = NULL;
    v->state_offset = -1;
    v->aux = NULL;
    v->count = 0;
    v->data_at = 0;
    pk->nvalues++;
    return v;
}

/* Room for the n items (1..SMALL_ITEMS) of a small container, from the
 * slabs; NULL when out of memory (no error set). */
static ts__pk_value **small_items(ts__pk *pk, size_t n)
{
    slab *b = pk->slabs;
    if (!b || b->cap - b->used < n) {
        size_t cap = !b ? SLAB_FIRST : b->cap < SLAB_MAX ? 2 * b->cap : SLAB_MAX;
        b = mem_realloc(pk->file, NULL, sizeof *b + cap * sizeof b->v[0]);
        if (!b)
            return NULL;
        b->used = 0;
        b->cap = cap;
        b->next = pk->slabs;
        pk->slabs = b;
    }
    ts__pk_value **p = b->v + b->used;
    b->used += n;
    return p;
}

/* The items of c, moved to room for cap (> c->u.seq.n) items: from the
 * slabs while small, else a block of its own. 0, or -1 when out of
 * memory (c unchanged). */
static int resize_items(ts__pk *pk, ts__pk_value *c, size_t cap)
{
    ts__pk_value **p;
    if (cap <= SMALL_ITEMS) {
        p = small_items(pk, cap);
        if (p && c->u.seq.n)
            memcpy(p, c->u.seq.v, c->u.seq.n * sizeof *p);
    } else if (c->owned) {
        p = mem_realloc(pk->file, c->u.seq.v, cap * sizeof *p);
    } else {
        p = mem_realloc(pk->file, NULL, cap * sizeof *p);
        if (p && c->u.seq.n)
            memcpy(p, c->u.seq.v, c->u.seq.n * sizeof *p);
        if (p) {
            c->owned = 1;
            pk->owned_items++;
        }
    }
    if (!p)
        return -1;
    c->u.seq.v = p;
    c->u.seq.cap = cap;
    return 0;
}

/* n bytes the machine owns until ts__pk_free (decoded text). */
static unsigned char *new_text(ts__pk *pk, size_t n)
{
    text *t = mem_realloc(pk->file, NULL, sizeof *t + (n ? n : 1));
    if (!t) {
        ts__error(pk->err, TS_ERR_NOMEM, "out of memory for %zu bytes of pickle text", n);
        return NULL;
    }
    t->next = pk->texts;
    pk->texts = t;
    return t->data;
}

static ts__pk_value *constant(ts__pk *pk, ts__pk_value **slot, int kind, int64_t i)
{
    if (!*slot) {
        ts__pk_value *v = new_value(pk, kind, 0);
        if (!v)
            return NULL;
        v->offset = -1;
        v->u.i = i;
        *slot = v;
    }
    return *slot;
}

static ts__pk_value *int_value(ts__pk *pk, int64_t i, size_t at)
{
    if (i >= 0 && i < 256)
        return constant(pk, &pk->small[i], TS__PK_INT, i);
    ts__pk_value *v = new_value(pk, TS__PK_INT, at);
    if (v)
        v->u.i = i;
    return v;
}

static ts_status push(ts__pk *pk, ts__pk_value *v, size_t at)
{
    if (!v)
        return pk->err ? pk->err->code : TS_ERR_NOMEM;
    if (pk->sp == pk->scap) {
        if (pk->scap >= TS__PK_MAX_STACK)
            return fail(pk, TS_ERR_LIMIT, at, "the value stack grows beyond %u entries "
                        "(tshape's limit)", TS__PK_MAX_STACK);
        size_t cap = pk->scap ? pk->scap * 2 : 64;
        ts__pk_value **p = mem_realloc(pk->file, pk->stack, cap * sizeof *p);
        if (!p)
            return ts__error(pk->err, TS_ERR_NOMEM, "out of memory for the pickle stack");
        pk->stack = p;
        pk->scap = cap;
    }
    pk->stack[pk->sp++] = v;
    return TS_OK;
}

/* Stack height below which the current mark hides the items. */
static size_t floor_of(const ts__pk *pk)
{
    return pk->nmarks ? pk->marks[pk->nmarks - 1] : 0;
}

static ts_status need_items(ts__pk *pk, size_t n, const char *op, size_t at)
{
    size_t have = pk->sp - floor_of(pk);
    if (have < n)
        return fail(pk, TS_ERR_FORMAT, at, "%s needs %zu value%s on the stack%s, found %zu",
                    op, n, n == 1 ? "" : "s", pk->nmarks ? " above the last MARK" : "", have);
    return TS_OK;
}

/* c now holds (or calls with, or has the state) `item`: c is at least one
 * level deeper. Checked here, where a chain grows, not when it is walked. */
static ts_status deepen(ts__pk *pk, ts__pk_value *c, const ts__pk_value *item, size_t at)
{
    if (item && item->depth >= c->depth) {
        if (item->depth >= TS__PK_MAX_DEPTH)
            return fail(pk, TS_ERR_LIMIT, at, "values nested more than %d deep (tshape's "
                        "limit)", TS__PK_MAX_DEPTH);
        c->depth = (uint16_t)(item->depth + 1);
    }
    return TS_OK;
}

static ts_status count_items(ts__pk *pk, size_t n, size_t at)
{
    if (n > TS__PK_MAX_ITEMS - pk->nitems)
        return fail(pk, TS_ERR_LIMIT, at, "the pickle's containers hold more than %u items "
                    "(tshape's limit)", TS__PK_MAX_ITEMS);
    pk->nitems += n;
    return TS_OK;
}

static ts_status seq_add(ts__pk *pk, ts__pk_value *c, ts__pk_value *item, size_t at)
{
    ts_status st = count_items(pk, 1, at);
    if (!st)
        st = deepen(pk, c, item, at);
    if (st)
        return st;
    if (c->u.seq.n == c->u.seq.cap) {
        size_t cap = c->u.seq.cap ? c->u.seq.cap * 2 : 4;
        if (resize_items(pk, c, cap))
            return ts__error(pk->err, TS_ERR_NOMEM, "out of memory for a %zu-item container",
                             cap);
    }
    c->u.seq.v[c->u.seq.n++] = item;
    return TS_OK;
}

/* A new container of `kind` holding stack[from..sp), which is popped. */
static ts_status collect(ts__pk *pk, int kind, size_t from, size_t at)
{
    ts__pk_value *c = new_value(pk, kind, at);
    if (!c)
        return pk->err->code;
    size_t n = pk->sp - from;
    ts_status st = count_items(pk, n, at);
    for (size_t i = from; i < pk->sp && !st; i++)
        st = deepen(pk, c, pk->stack[i], at);
    if (st)
        return st;
    if (n) {
        if (resize_items(pk, c, n))
            return ts__error(pk->err, TS_ERR_NOMEM, "out of memory for a %zu-item tuple", n);
        memcpy(c->u.seq.v, pk->stack + from, n * sizeof *c->u.seq.v);
        c->u.seq.n = n;
    }
    pk->sp = from;
    return push(pk, c, at);
}

static ts_status pop_mark(ts__pk *pk, const char *op, size_t at, size_t *mark)
{
    if (!pk->nmarks)
        return fail(pk, TS_ERR_FORMAT, at, "%s without a MARK before it", op);
    *mark = pk->marks[--pk->nmarks];
    return TS_OK;
}

/* Tells the observer about an event of kind at input offset `at` (the
 * opcode ends at `pos`); *skip receives what it asks to skip (BUILD). */
static ts_status observe(ts__pk *pk, ts__pk_event_kind kind, unsigned char op, size_t at,
                         ts__pk_value *a, ts__pk_value *b, const unsigned char *d, size_t len,
                         size_t pos, size_t *skip)
{
    if (skip)
        *skip = 0;
    if (!pk->opts->observe)
        return TS_OK;
    ts__pk_event e = {.kind = kind, .op = op, .at = at, .a = a, .b = b,
                      .data = d ? d : pk->data, .len = d ? len : pk->len, .pos = pos};
    ts_status st = pk->opts->observe(pk->opts->observe_ctx, &e, pk->err);
    if (skip)
        *skip = e.skip;
    return st;
}

/* ---- memo ---------------------------------------------------------------- */

static void memo_clear(ts__pk *pk)
{
    if (pk->mcount)
        memset(pk->mkeys, 0, pk->mcap * sizeof *pk->mkeys);
    pk->mcount = 0;
}

static size_t memo_slot(const ts__pk *pk, uint64_t key)
{
    /* splitmix64 of the seeded key: a file cannot choose colliding indices
     * without knowing the seed (an address, different in every process) */
    uint64_t x = key ^ pk->seed;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    x ^= x >> 31;
    size_t mask = pk->mcap - 1;
    size_t h = (size_t)x & mask;
    while (pk->mkeys[h] && pk->mkeys[h] != key)
        h = (h + 1) & mask;
    return h;
}

static ts_status memo_put(ts__pk *pk, uint64_t index, ts__pk_value *v, size_t at)
{
    uint64_t key = index + 1;
    if (index == UINT64_MAX)
        return fail(pk, TS_ERR_FORMAT, at, "memo index %llu is out of range",
                    (unsigned long long)index);
    if (pk->mcap && pk->mkeys[memo_slot(pk, key)] == key) {
        pk->mvals[memo_slot(pk, key)] = v;
        return TS_OK;
    }
    if (pk->mcount >= TS__PK_MAX_MEMO)
        return fail(pk, TS_ERR_LIMIT, at, "the memo grows beyond %u entries (tshape's limit)",
                    TS__PK_MAX_MEMO);
    if ((pk->mcount + 1) * 2 > pk->mcap) {
        size_t cap = pk->mcap ? pk->mcap * 2 : 256;
        uint64_t *k = mem_realloc(pk->file, NULL, cap * sizeof *k);
        ts__pk_value **vals = mem_realloc(pk->file, NULL, cap * sizeof *vals);
        if (k)
            memset(k, 0, cap * sizeof *k);
        if (!k || !vals) {
            mem_free(pk->file, k);
            mem_free(pk->file, vals);
            return ts__error(pk->err, TS_ERR_NOMEM, "out of memory for the pickle memo");
        }
        uint64_t *ok = pk->mkeys;
        ts__pk_value **ov = pk->mvals;
        size_t ocap = pk->mcap;
        pk->mkeys = k;
        pk->mvals = vals;
        pk->mcap = cap;
        for (size_t i = 0; i < ocap; i++)
            if (ok[i]) {
                size_t s = memo_slot(pk, ok[i]);
                pk->mkeys[s] = ok[i];
                pk->mvals[s] = ov[i];
            }
        mem_free(pk->file, ok);
        mem_free(pk->file, ov);
    }
    size_t s = memo_slot(pk, key);
    pk->mkeys[s] = key;
    pk->mvals[s] = v;
    pk->mcount++;
    return TS_OK;
}

static ts__pk_value *memo_get(const ts__pk *pk, uint64_t index)
{
    if (!pk->mcap || index == UINT64_MAX)
        return NULL;
    size_t s = memo_slot(pk, index + 1);
    return pk->mkeys[s] ? pk->mvals[s] : NULL;
}

/* ---- globals ------------------------------------------------------------- */

/* A GLOBAL node for module.name (as written), after the observer and the
 * classifier; *out receives it. */
static ts_status make_global(ts__pk *pk, const char *mod, size_t ml, const char *name,
                             size_t nl, unsigned char op, size_t at, ts__pk_value **out)
{
    if (pk->opts->observe) {
        ts__pk_event e = {.kind = TS__PK_EV_GLOBAL, .op = op, .at = at, .module = mod,
                          .module_len = ml, .name = name, .name_len = nl};
        ts_status st = pk->opts->observe(pk->opts->observe_ctx, &e, pk->err);
        if (st)
            return st;
    }
    if (text_eq(mod, ml, "__builtin__")) {
        mod = "builtins";
        ml = 8;
    }
    int tag = 0;
    ts__pk_role role = pk->opts->classify
                           ? pk->opts->classify(pk->opts->ctx, mod, ml, name, nl, &tag)
                           : TS__PK_REFUSE;
    const char *opname = ts__pk_opcode_name(op);
    if (role == TS__PK_REFUSE) {
        char m[160], n[160];
        ts__printable(mod, ml, m, sizeof m);
        ts__printable(name, nl, n, sizeof n);
        const char *what = ts__global_danger(mod, ml, name, nl);
        if (what)
            return fail(pk, TS_ERR_UNSUPPORTED, at,
                        "refusing the file: %s %s.%s is dangerous (it would %s under "
                        "torch.load); nothing was executed", opname, m, n, what);
        return fail(pk, TS_ERR_UNSUPPORTED, at,
                    "refusing the file: %s %s.%s is not on the tensor-file allowlist "
                    "(torch.load would import it); nothing was executed", opname, m, n);
    }
    ts__pk_value *g = new_value(pk, TS__PK_GLOBAL, at);
    if (!g)
        return pk->err->code;
    g->role = (uint8_t)role;
    g->op = op;
    g->tag = tag;
    g->u.g.module = mod;
    g->u.g.module_len = ml;
    g->u.g.name = name;
    g->u.g.name_len = nl;
    *out = g;
    return TS_OK;
}

static ts_status fetch(ts__pk *pk, size_t pos, uint64_t n, size_t *have);

/* One '\n'-terminated line at *pos of at most max bytes (GLOBAL's operands,
 * protocol 0 text): *s and *n without the newline. With a source, the
 * bytes are asked for in growing steps until the newline. */
static ts_status line_at(ts__pk *pk, const unsigned char *d, size_t len, size_t *pos,
                         size_t *have, size_t max, const char *what, size_t at,
                         const char **s, size_t *n)
{
    size_t limit = len - *pos, from = 0, avail = 0;
    if (limit > max + 1)
        limit = max + 1;
    const unsigned char *nl = NULL;
    while (!nl && avail < limit) {
        avail = from < 2048 ? 4096 : 2 * from;
        if (avail > limit)
            avail = limit;
        ts_status st = fetch(pk, *pos, avail, have);
        if (st)
            return st;
        nl = memchr(d + *pos + from, '\n', avail - from);
        from = avail;
    }
    if (!nl) {
        if (limit == max + 1)
            return fail(pk, TS_ERR_LIMIT, at, "%s is longer than %zu bytes", what, max);
        return fail(pk, TS_ERR_TRUNCATED, at, "the pickle ends inside %s", what);
    }
    *s = (const char *)d + *pos;
    *n = (size_t)(nl - (d + *pos));
    *pos += *n + 1;
    return TS_OK;
}

static ts_status global_line(ts__pk *pk, const unsigned char *d, size_t len, size_t *pos,
                             size_t *have, const char *what, size_t at, const char **s,
                             size_t *n)
{
    ts_status st = line_at(pk, d, len, pos, have, TS__PK_MAX_GLOBAL_LINE, what, at, s, n);
    if (!st && *n == 0)
        return fail(pk, TS_ERR_FORMAT, at, "%s is empty", what);
    return st;
}

/* ---- the loop ------------------------------------------------------------ */

/* Bytes asked for at each opcode of a pickle read from a source: more than
 * any opcode's fixed operands and GLOBAL's two lines. */
#define PK_AHEAD 4096

/* With opts->src: makes input bytes [pos, pos + n) readable (*have: the
 * end of what is known to be there). */
static ts_status fetch(ts__pk *pk, size_t pos, uint64_t n, size_t *have)
{
    if (!pk->opts->src || pos + n <= *have)
        return TS_OK;
    ts_status st = ts__source_need(pk->opts->src, (uint64_t)pk->opts->base + pos, n, pk->err);
    if (!st)
        *have = pos + (size_t)n;
    return st;
}

/* A protocol 0 number or id line into s1, n1. */
#define NUM_LINE(what)                                                           \
    line_at(pk, d, len, &pos, &have, TS__PK_MAX_GLOBAL_LINE, (what), at, &s1, &n1)

#define NEED(n, name)                                                            \
    do {                                                                         \
        if ((uint64_t)(len - pos) < (uint64_t)(n))                               \
            return fail(pk, TS_ERR_TRUNCATED, at,                                \
                        "the pickle ends inside %s: it needs %llu more bytes, "  \
                        "%zu are left", (name), (unsigned long long)(n),         \
                        len - pos);                                              \
        if ((st = fetch(pk, pos, (uint64_t)(n), &have)))                         \
            return st;                                                           \
    } while (0)

static ts_status text_value(ts__pk *pk, const unsigned char *d, size_t len, size_t *pos,
                            size_t *have, uint64_t n, int kind, const char *name, size_t at)
{
    if ((uint64_t)(len - *pos) < n)
        return fail(pk, TS_ERR_TRUNCATED, at,
                    "%s of %llu bytes runs past the end of the pickle (%zu bytes left)", name,
                    (unsigned long long)n, len - *pos);
    ts_status st = fetch(pk, *pos, n, have);
    if (st)
        return st;
    ts__pk_value *v = new_value(pk, kind, at);
    if (!v)
        return pk->err->code;
    v->u.s.p = d + *pos;
    v->u.s.n = (size_t)n;
    *pos += (size_t)n;
    return push(pk, v, at);
}

/* A STR or BYTES value of n decoded bytes the machine owns. */
static ts_status owned_value(ts__pk *pk, int kind, unsigned char *p, size_t n, size_t at)
{
    ts__pk_value *v = new_value(pk, kind, at);
    if (!v)
        return pk->err->code;
    v->u.s.p = p;
    v->u.s.n = n;
    v->owned = 1;
    return push(pk, v, at);
}

/* LONG1/LONG4 and long text integers: n bytes of little-endian two's
 * complement. `owned`: p is the machine's. */
static ts_status long_value(ts__pk *pk, const unsigned char *p, size_t n, int owned, size_t at)
{
    /* drop sign-extension bytes that do not change the value */
    while (n > 1 && ((p[n - 1] == 0 && !(p[n - 2] & 0x80)) ||
                     (p[n - 1] == 0xff && (p[n - 2] & 0x80))))
        n--;
    if (n <= 8) {
        uint64_t u = 0;
        for (size_t i = 0; i < n; i++)
            u |= (uint64_t)p[i] << (8 * i);
        if (n > 0 && n < 8 && (p[n - 1] & 0x80))
            u |= ~(uint64_t)0 << (8 * n);
        int64_t i;
        memcpy(&i, &u, sizeof i);
        return push(pk, int_value(pk, i, at), at);
    }
    ts__pk_value *v = new_value(pk, TS__PK_BIGINT, at);
    if (!v)
        return pk->err->code;
    v->u.s.p = p;
    v->u.s.n = n;
    v->owned = (uint8_t)owned;
    return push(pk, v, at);
}

/* The integer of a protocol 0 INT or LONG line (Python's int(text, 0):
 * blanks around, a sign, 0x/0o/0b prefixes, '_' between digits; LONG may
 * end in 'L'). Pushes an INT, or a BIGINT of the machine's bytes. */
static ts_status text_int(ts__pk *pk, const char *s, size_t n, const char *op, size_t at)
{
    size_t i = 0;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        n--;
    if (n && s[n - 1] == 'L')
        n--;
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    int neg = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    unsigned base = 10;
    if (n - i >= 2 && s[i] == '0' && strchr("xXoObB", s[i + 1])) {
        base = s[i + 1] == 'x' || s[i + 1] == 'X' ? 16 : s[i + 1] == 'o' || s[i + 1] == 'O' ? 8 : 2;
        i += 2;
    }
    /* magnitude, little-endian, at most the line's bits */
    unsigned char mag[TS__PK_MAX_GLOBAL_LINE / 2 + 2];
    size_t mn = 0, digits = 0;
    for (; i < n; i++) {
        unsigned c = (unsigned char)s[i], dv;
        if (c == '_' && digits)
            continue;
        if (c >= '0' && c <= '9')
            dv = c - '0';
        else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
            dv = (c | 0x20) - 'a' + 10;
        else
            dv = 99;
        if (dv >= base)
            return fail(pk, TS_ERR_FORMAT, at, "%s's text is not an integer", op);
        unsigned carry = dv;
        for (size_t k = 0; k < mn; k++) {
            unsigned x = mag[k] * base + carry;
            mag[k] = (unsigned char)x;
            carry = x >> 8;
        }
        if (carry && mn < sizeof mag)
            mag[mn++] = (unsigned char)carry;
        digits++;
    }
    if (!digits)
        return fail(pk, TS_ERR_FORMAT, at, "%s's text is not an integer", op);
    /* two's complement with a sign byte */
    unsigned char *b = new_text(pk, mn + 1);
    if (!b)
        return pk->err->code;
    memcpy(b, mag, mn);
    b[mn] = 0;
    if (neg) {
        unsigned carry = 1;
        for (size_t k = 0; k <= mn; k++) {
            unsigned x = (unsigned)(~b[k] & 0xff) + carry;
            b[k] = (unsigned char)x;
            carry = x >> 8;
        }
    }
    return long_value(pk, b, mn + 1, 1, at);
}

/* Appends code point cp as UTF-8 (surrogates too, as "surrogatepass"). */
static size_t put_utf8(unsigned char *o, uint32_t cp)
{
    if (cp < 0x80) {
        o[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (unsigned char)(0xc0 | cp >> 6);
        o[1] = (unsigned char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xe0 | cp >> 12);
        o[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
        o[2] = (unsigned char)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (unsigned char)(0xf0 | cp >> 18);
    o[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
    o[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
    o[3] = (unsigned char)(0x80 | (cp & 0x3f));
    return 4;
}

static int hex_digits(const char *s, size_t n, uint32_t *out)
{
    uint32_t v = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned c = (unsigned char)s[i];
        unsigned d = c >= '0' && c <= '9' ? c - '0'
                     : (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10 : 16;
        if (d == 16)
            return 0;
        v = v << 4 | d;
    }
    *out = v;
    return 1;
}

/* STRING: a quoted Python 2 repr, decoded as codecs.escape_decode does;
 * UNICODE: raw-unicode-escape (\uXXXX, \UXXXXXXXX; other bytes latin-1). */
static ts_status text_string(ts__pk *pk, const char *s, size_t n, int unicode, size_t at)
{
    if (!unicode) {
        if (n < 2 || (s[0] != '\'' && s[0] != '"') || s[n - 1] != s[0])
            return fail(pk, TS_ERR_FORMAT, at, "STRING's text is not a quoted string");
        s++;
        n -= 2;
    }
    unsigned char *o = new_text(pk, 2 * n + 1), *w = o;
    if (!o)
        return pk->err->code;
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        if (unicode) {
            uint32_t cp;
            size_t k = i + 1 < n && s[i + 1] == 'u' ? 4 : i + 1 < n && s[i + 1] == 'U' ? 8 : 0;
            if (c == '\\' && k && n - i - 2 >= k) {
                if (!hex_digits(s + i + 2, k, &cp) || cp > 0x10ffff)
                    return fail(pk, TS_ERR_FORMAT, at, "UNICODE's text has a bad \\%c escape",
                                s[i + 1]);
                w += put_utf8(w, cp);
                i += 2 + k;
            } else {
                w += put_utf8(w, c);
                i++;
            }
            continue;
        }
        if (c != '\\' || i + 1 == n) {
            *w++ = c;
            i++;
            continue;
        }
        char e = s[i + 1];
        i += 2;
        switch (e) {
        case '\n': break;
        case '\\': *w++ = '\\'; break;
        case '\'': *w++ = '\''; break;
        case '"': *w++ = '"'; break;
        case 'a': *w++ = 7; break;
        case 'b': *w++ = 8; break;
        case 'f': *w++ = 12; break;
        case 'n': *w++ = 10; break;
        case 'r': *w++ = 13; break;
        case 't': *w++ = 9; break;
        case 'v': *w++ = 11; break;
        case 'x': {
            uint32_t v;
            if (n - i < 2 || !hex_digits(s + i, 2, &v))
                return fail(pk, TS_ERR_FORMAT, at, "STRING's text has a bad \\x escape");
            *w++ = (unsigned char)v;
            i += 2;
            break;
        }
        default:
            if (e >= '0' && e <= '7') {
                unsigned v = (unsigned)(e - '0');
                for (int k = 0; k < 2 && i < n && s[i] >= '0' && s[i] <= '7'; k++)
                    v = v * 8 + (unsigned)(s[i++] - '0');
                *w++ = (unsigned char)v;
            } else {
                *w++ = '\\';
                *w++ = (unsigned char)e;
            }
        }
    }
    return owned_value(pk, TS__PK_STR, o, (size_t)(w - o), at);
}

/* A placeholder (or an allowed container) receives items: APPEND(S),
 * SETITEM(S), ADDITEMS on what is not a list, dict or set. */
static ts_status take_items(ts__pk *pk, ts__pk_value *c, int items, const char *op,
                            size_t at)
{
    if (c->kind != TS__PK_CALL && c->kind != TS__PK_OBJECT)
        return fail(pk, TS_ERR_FORMAT, at, "%s on a %s", op, ts__pk_kind_name(c->kind));
    const ts__pk_value *g = c->func;
    while (g && g->kind != TS__PK_GLOBAL && (g->kind == TS__PK_CALL || g->kind == TS__PK_OBJECT))
        g = g->func == g ? NULL : g->func;
    if (g && g->kind == TS__PK_GLOBAL && g->role != TS__PK_INERT)
        return fail(pk, TS_ERR_UNSUPPORTED, at, "refusing the file: %s on a %s value; nothing "
                    "was executed", op, ts__pk_kind_name(c->kind));
    if (c->items != TS__PK_ITEMS_NONE && c->items != items)
        c->items = TS__PK_ITEMS_MIXED;
    else
        c->items = (uint8_t)items;
    return TS_OK;
}

/* What REDUCE, NEWOBJ, INST and OBJ may call: `cls` is a GLOBAL with the
 * role, or the result of an inert call (a chain). */
static ts_status make_call(ts__pk *pk, ts__pk_value *callee, ts__pk_value *args, int object,
                           unsigned char op, size_t at, ts__pk_value **out)
{
    const char *name = ts__pk_opcode_name(op);
    ts_status st = observe(pk, object ? TS__PK_EV_NEWOBJ : TS__PK_EV_REDUCE, op, at, callee,
                           args, NULL, 0, 0, NULL);
    if (st)
        return st;
    if (args->kind != TS__PK_TUPLE)
        return fail(pk, TS_ERR_FORMAT, at, "%s's arguments are a %s, not a tuple", name,
                    ts__pk_kind_name(args->kind));
    ts__pk_value *c;
    if (callee->kind == TS__PK_GLOBAL) {
        /* module.name for messages, made only when one is written */
        char m[160], g[160];
#define NAMES()                                                                  \
    (ts__printable(callee->u.g.module, callee->u.g.module_len, m, sizeof m),      \
     ts__printable(callee->u.g.name, callee->u.g.name_len, g, sizeof g))
        int role = callee->role;
        int od = text_eq(callee->u.g.name, callee->u.g.name_len, "OrderedDict");
        if (object) {
            if (role != TS__PK_CLASS && role != TS__PK_INERT)
                return NAMES(), fail(pk, TS_ERR_UNSUPPORTED, at, "refusing the file: %s "
                                     "instantiates %s.%s; only TorchScript classes are "
                                     "allowed and nothing was executed", name, m, g);
            c = new_value(pk, TS__PK_OBJECT, at);
        } else if (role == TS__PK_CALLABLE || role == TS__PK_INERT) {
            c = new_value(pk, TS__PK_CALL, at);
        } else if (role == TS__PK_DICT_TYPE) {
            /* OrderedDict(), OrderedDict([(k, v), ...]), Counter({k: v}),
             * defaultdict(factory[, items]): the items are the dict's; a
             * factory is a global, seen by the observer, and dropped */
            size_t n = args->u.seq.n;
            ts__pk_value *last = n ? args->u.seq.v[n - 1] : NULL;
            int items = last && (last->kind == TS__PK_LIST || last->kind == TS__PK_DICT);
            if (n > 2 || (n == 2 && !items) || (od && n && !items))
                return NAMES(), fail(pk, TS_ERR_FORMAT, at, "%s.%s takes no argument or a "
                                     "list of pairs, found %zu arguments", m, g, n);
            c = new_value(pk, TS__PK_DICT, at);
            if (c && items && last->kind == TS__PK_LIST) {
                c->args = last;
                st = deepen(pk, c, last, at);
            }
            for (size_t i = 0; c && items && last->kind == TS__PK_DICT && i < last->u.seq.n &&
                               !st; i++)
                st = seq_add(pk, c, last->u.seq.v[i], at);
            if (st)
                return st;
            args = NULL;
        } else {
            return NAMES(), fail(pk, TS_ERR_UNSUPPORTED, at, "refusing the file: %s calls "
                                 "%s.%s, which is allowed only as a value; nothing was "
                                 "executed", name, m, g);
        }
#undef NAMES
    } else if (callee->kind == TS__PK_CALL || callee->kind == TS__PK_OBJECT) {
        /* calling what an inert call returned: another placeholder */
        c = new_value(pk, object ? TS__PK_OBJECT : TS__PK_CALL, at);
    } else {
        return fail(pk, TS_ERR_FORMAT, at, "%s calls a %s, which cannot be called", name,
                    ts__pk_kind_name(callee->kind));
    }
    if (!c)
        return pk->err->code;
    c->func = callee;
    c->op = op;
    if (args)
        c->args = args;
    if ((st = deepen(pk, c, callee, at)) || (args && (st = deepen(pk, c, args, at))))
        return st;
    *out = c;
    return TS_OK;
}

/* make_call on the top two values (callee, args), which it replaces. */
static ts_status call_top(ts__pk *pk, int object, unsigned char op, size_t at)
{
    ts__pk_value *c;
    ts_status st = make_call(pk, pk->stack[pk->sp - 2], pk->stack[pk->sp - 1], object, op, at,
                             &c);
    if (st)
        return st;
    pk->sp -= 2;
    return push(pk, c, at);
}

/* Which opcodes this machine refuses, and why. */
static const char *refused_opcode(unsigned char op)
{
    switch (op) {
    case 0x82:
    case 0x83:
    case 0x84: return "it reads the copyreg extension registry, which pickle.load leaves empty";
    case 0x97:
    case 0x98: return "out-of-band buffers are not in the file";
    default: return NULL;
    }
}

ts_status ts__pk_load(ts__pk *pk, const unsigned char *data, size_t len, size_t start,
                      const ts__pk_options *opts, ts__pk_value **out, size_t *end,
                      ts_error *err)
{
    pk->opts = opts;
    pk->data = data;
    pk->len = len;
    pk->err = err ? err : &pk->local_err;
    pk->sp = 0;
    pk->nmarks = 0;
    memset(pk->seen, 0, sizeof pk->seen);
    memo_clear(pk);
    *out = NULL;
    const unsigned char *d = data;
    size_t pos = start, have = start;
    ts_status st = TS_OK;
    if (pos >= len)
        return fail(pk, TS_ERR_TRUNCATED, pos, "expected a pickle, found the end of the data");
    while (st == TS_OK) {
        if (pos >= len)
            return fail(pk, TS_ERR_TRUNCATED, pos, "the pickle ends without STOP");
        if ((st = fetch(pk, pos, PK_AHEAD, &have)))
            return st;
        size_t at = pos;
        unsigned char op = d[pos++];
        pk->opcodes++;
        pk->seen[op >> 6] |= (uint64_t)1 << (op & 63);
        ts__pk_value *a, *b, *c;
        size_t mark = 0;
        uint64_t n;
        const char *s1, *s2;
        size_t n1, n2;
        switch (op) {
        case 0x80: /* PROTO */
            NEED(1, "PROTO");
            if (d[pos] > 5)
                return fail(pk, TS_ERR_UNSUPPORTED, at, "pickle protocol %d is not supported "
                            "(protocols 0 to 5 are)", d[pos]);
            pos++;
            break;
        case 0x95: /* FRAME */
            NEED(8, "FRAME");
            n = ts__le64(d + pos);
            pos += 8;
            if (n > len - pos)
                return fail(pk, TS_ERR_TRUNCATED, at, "FRAME of %llu bytes runs past the end "
                            "of the pickle (%zu bytes left)", (unsigned long long)n, len - pos);
            break;
        case '.': /* STOP */
            if (pk->nmarks)
                return fail(pk, TS_ERR_FORMAT, at, "STOP with %zu MARK%s still open",
                            pk->nmarks, pk->nmarks == 1 ? "" : "s");
            if (pk->sp == 0)
                return fail(pk, TS_ERR_FORMAT, at, "STOP on an empty stack");
            *out = pk->stack[pk->sp - 1];
            pk->sp = 0;
            *end = pos;
            return TS_OK;
        case '(': /* MARK */
            if (pk->nmarks == TS__PK_MAX_MARKS)
                return fail(pk, TS_ERR_LIMIT, at, "more than %d MARKs open at once (tshape's "
                            "limit)", TS__PK_MAX_MARKS);
            if (pk->nmarks == pk->marks_cap) {
                size_t cap = pk->marks_cap ? 2 * pk->marks_cap : 32;
                if (cap > TS__PK_MAX_MARKS)
                    cap = TS__PK_MAX_MARKS;
                size_t *m = mem_realloc(pk->file, pk->marks, cap * sizeof *m);
                if (!m)
                    return ts__error(pk->err, TS_ERR_NOMEM, "out of memory for pickle marks");
                pk->marks = m;
                pk->marks_cap = cap;
            }
            pk->marks[pk->nmarks++] = pk->sp;
            break;
        case '0': /* POP: the top, or the mark when nothing is above it */
            if (pk->sp > floor_of(pk))
                pk->sp--;
            else
                st = pop_mark(pk, "POP", at, &mark);
            break;
        case '1': /* POP_MARK */
            if ((st = pop_mark(pk, "POP_MARK", at, &mark)) == TS_OK)
                pk->sp = mark;
            break;
        case '2': /* DUP */
            if ((st = need_items(pk, 1, "DUP", at)) == TS_OK)
                st = push(pk, pk->stack[pk->sp - 1], at);
            break;
        case '}': /* EMPTY_DICT */
            st = push(pk, new_value(pk, TS__PK_DICT, at), at);
            break;
        case ']': /* EMPTY_LIST */
            st = push(pk, new_value(pk, TS__PK_LIST, at), at);
            break;
        case ')': /* EMPTY_TUPLE */
            st = push(pk, new_value(pk, TS__PK_TUPLE, at), at);
            break;
        case 0x8f: /* EMPTY_SET */
            st = push(pk, new_value(pk, TS__PK_SET, at), at);
            break;
        case 't': /* TUPLE */
        case 'l': /* LIST */
        case 0x91: /* FROZENSET */
            if ((st = pop_mark(pk, ts__pk_opcode_name(op), at, &mark)) == TS_OK)
                st = collect(pk, op == 't' ? TS__PK_TUPLE : op == 'l' ? TS__PK_LIST
                                                                      : TS__PK_FROZENSET,
                             mark, at);
            break;
        case 'd': /* DICT: key, value pairs above the mark */
            if ((st = pop_mark(pk, "DICT", at, &mark)))
                break;
            if ((pk->sp - mark) % 2)
                return fail(pk, TS_ERR_FORMAT, at, "DICT with an odd number of values (%zu) "
                            "above its MARK", pk->sp - mark);
            st = collect(pk, TS__PK_DICT, mark, at);
            break;
        case 0x85: /* TUPLE1 */
        case 0x86: /* TUPLE2 */
        case 0x87: /* TUPLE3 */
            if ((st = need_items(pk, (size_t)(op - 0x84), "TUPLE1/2/3", at)) == TS_OK)
                st = collect(pk, TS__PK_TUPLE, pk->sp - (size_t)(op - 0x84), at);
            break;
        case 's': /* SETITEM */
            if ((st = need_items(pk, 3, "SETITEM", at)))
                break;
            c = pk->stack[pk->sp - 3];
            if ((st = observe(pk, TS__PK_EV_APPEND, op, at, c, NULL, d, len, pos, NULL)))
                break;
            if (c->kind != TS__PK_DICT && (st = take_items(pk, c, TS__PK_ITEMS_DICT,
                                                           "SETITEM", at)))
                break;
            if ((st = seq_add(pk, c, pk->stack[pk->sp - 2], at)) == TS_OK)
                st = seq_add(pk, c, pk->stack[pk->sp - 1], at);
            pk->sp -= 2;
            break;
        case 'u': /* SETITEMS */
        case 'e': /* APPENDS */
        case 0x90: { /* ADDITEMS */
            const char *name = ts__pk_opcode_name(op);
            int want = op == 'u' ? TS__PK_DICT : op == 'e' ? TS__PK_LIST : TS__PK_SET;
            if ((st = pop_mark(pk, name, at, &mark)))
                break;
            if (mark == 0 || mark - 1 < floor_of(pk))
                return fail(pk, TS_ERR_FORMAT, at, "%s has no container below its MARK",
                            name);
            c = pk->stack[mark - 1];
            if ((st = observe(pk, TS__PK_EV_APPEND, op, at, c, NULL, d, len, pos, NULL)))
                break;
            if (c->kind != want &&
                (st = take_items(pk, c, op == 'u' ? TS__PK_ITEMS_DICT : op == 'e'
                                                  ? TS__PK_ITEMS_LIST : TS__PK_ITEMS_SET,
                                 name, at)))
                break;
            if (op == 'u' && (pk->sp - mark) % 2)
                return fail(pk, TS_ERR_FORMAT, at, "SETITEMS with an odd number of values "
                            "(%zu) above its MARK", pk->sp - mark);
            for (size_t i = mark; i < pk->sp && !st; i++)
                st = seq_add(pk, c, pk->stack[i], at);
            pk->sp = mark;
            break;
        }
        case 'a': /* APPEND */
            if ((st = need_items(pk, 2, "APPEND", at)))
                break;
            c = pk->stack[pk->sp - 2];
            if ((st = observe(pk, TS__PK_EV_APPEND, op, at, c, NULL, d, len, pos, NULL)))
                break;
            if (c->kind != TS__PK_LIST &&
                (st = take_items(pk, c, TS__PK_ITEMS_LIST, "APPEND", at)))
                break;
            st = seq_add(pk, c, pk->stack[pk->sp - 1], at);
            pk->sp--;
            break;
        case 'K': /* BININT1 */
            NEED(1, "BININT1");
            st = push(pk, int_value(pk, d[pos], at), at);
            pos++;
            break;
        case 'M': /* BININT2 */
            NEED(2, "BININT2");
            st = push(pk, int_value(pk, ts__le16(d + pos), at), at);
            pos += 2;
            break;
        case 'J': /* BININT */
            NEED(4, "BININT");
            st = push(pk, int_value(pk, (int32_t)ts__le32(d + pos), at), at);
            pos += 4;
            break;
        case 0x8a: /* LONG1 */
            NEED(1, "LONG1");
            n = d[pos++];
            NEED(n, "LONG1");
            st = long_value(pk, d + pos, (size_t)n, 0, at);
            pos += (size_t)n;
            break;
        case 0x8b: /* LONG4 */
            NEED(4, "LONG4");
            n = ts__le32(d + pos);
            pos += 4;
            if (n & 0x80000000u)
                return fail(pk, TS_ERR_FORMAT, at, "LONG4 with a negative length");
            NEED(n, "LONG4");
            st = long_value(pk, d + pos, (size_t)n, 0, at);
            pos += (size_t)n;
            break;
        case 'I': /* INT (protocol 0): "00"/"01" are False/True */
        case 'L': /* LONG (protocol 0) */
            if ((st = NUM_LINE(op == 'I' ? "INT's text" : "LONG's text")))
                break;
            if (op == 'I' && n1 == 2 && s1[0] == '0' && (s1[1] == '0' || s1[1] == '1'))
                st = push(pk, s1[1] == '1' ? constant(pk, &pk->true_, TS__PK_BOOL, 1)
                                           : constant(pk, &pk->false_, TS__PK_BOOL, 0), at);
            else
                st = text_int(pk, s1, n1, op == 'I' ? "INT" : "LONG", at);
            break;
        case 'F': { /* FLOAT (protocol 0): float(text) */
            char tmp[TS__PK_MAX_GLOBAL_LINE + 1], *e;
            if ((st = NUM_LINE("FLOAT's text")))
                break;
            size_t k = 0;
            for (size_t i = 0; i < n1; i++)
                if (s1[i] != '_')
                    tmp[k++] = s1[i];
            tmp[k] = '\0';
            double x = strtod(tmp, &e);
            while (*e == ' ' || *e == '\t' || *e == '\r')
                e++;
            if (e == tmp || *e)
                return fail(pk, TS_ERR_FORMAT, at, "FLOAT's text is not a number");
            a = new_value(pk, TS__PK_FLOAT, at);
            if (a)
                a->u.f = x;
            st = push(pk, a, at);
            break;
        }
        case 'G': { /* BINFLOAT, big-endian */
            NEED(8, "BINFLOAT");
            uint64_t u = 0;
            for (int i = 0; i < 8; i++)
                u = u << 8 | d[pos + (size_t)i];
            pos += 8;
            a = new_value(pk, TS__PK_FLOAT, at);
            if (a)
                memcpy(&a->u.f, &u, sizeof a->u.f);
            st = push(pk, a, at);
            break;
        }
        case 0x88: /* NEWTRUE */
            st = push(pk, constant(pk, &pk->true_, TS__PK_BOOL, 1), at);
            break;
        case 0x89: /* NEWFALSE */
            st = push(pk, constant(pk, &pk->false_, TS__PK_BOOL, 0), at);
            break;
        case 'N': /* NONE */
            st = push(pk, constant(pk, &pk->none, TS__PK_NONE, 0), at);
            break;
        case 'S': /* STRING (protocol 0): a quoted repr */
        case 'V': /* UNICODE (protocol 0): raw-unicode-escape */
            if ((st = line_at(pk, d, len, &pos, &have, TS__PK_MAX_TEXT_LINE,
                              op == 'S' ? "STRING's text" : "UNICODE's text", at, &s1,
                              &n1)) == TS_OK)
                st = text_string(pk, s1, n1, op == 'V', at);
            break;
        case 'X': /* BINUNICODE */
        case 'B': /* BINBYTES */
            NEED(4, op == 'X' ? "BINUNICODE" : "BINBYTES");
            n = ts__le32(d + pos);
            pos += 4;
            st = text_value(pk, d, len, &pos, &have, n, op == 'X' ? TS__PK_STR : TS__PK_BYTES,
                            op == 'X' ? "BINUNICODE" : "BINBYTES", at);
            break;
        case 'T': /* BINSTRING (Python 2 str, read as UTF-8 like torch.load) */
            NEED(4, "BINSTRING");
            n = ts__le32(d + pos);
            pos += 4;
            if (n & 0x80000000u)
                return fail(pk, TS_ERR_FORMAT, at, "BINSTRING with a negative length");
            st = text_value(pk, d, len, &pos, &have, n, TS__PK_STR, "BINSTRING", at);
            break;
        case 0x8c: /* SHORT_BINUNICODE */
        case 'U':  /* SHORT_BINSTRING */
        case 'C':  /* SHORT_BINBYTES */
            NEED(1, "a short string");
            n = d[pos++];
            st = text_value(pk, d, len, &pos, &have, n, op == 'C' ? TS__PK_BYTES : TS__PK_STR,
                            ts__pk_opcode_name(op), at);
            break;
        case 0x8d: /* BINUNICODE8 */
        case 0x8e: /* BINBYTES8 */
        case 0x96: /* BYTEARRAY8 */
            NEED(8, "an 8-byte length");
            n = ts__le64(d + pos);
            pos += 8;
            st = text_value(pk, d, len, &pos, &have, n, op == 0x8d ? TS__PK_STR : TS__PK_BYTES,
                            ts__pk_opcode_name(op), at);
            break;
        case 'q': /* BINPUT */
        case 'r': /* LONG_BINPUT */
        case 'p': /* PUT (protocol 0) */
        case 0x94: /* MEMOIZE */
            if (op == 'q') {
                NEED(1, "BINPUT");
                n = d[pos++];
            } else if (op == 'r') {
                NEED(4, "LONG_BINPUT");
                n = ts__le32(d + pos);
                pos += 4;
            } else if (op == 'p') {
                if ((st = NUM_LINE("PUT's text")))
                    break;
                int64_t v;
                if (n1 == 0 || ts_parse_i64(s1, n1, 0, &v, NULL) != TS_OK)
                    return fail(pk, TS_ERR_FORMAT, at, "PUT's index is not an integer >= 0");
                n = (uint64_t)v;
            } else {
                n = pk->mcount;
            }
            if (pk->sp == floor_of(pk))
                return fail(pk, TS_ERR_FORMAT, at, "%s with no value to memoize",
                            ts__pk_opcode_name(op));
            st = memo_put(pk, n, pk->stack[pk->sp - 1], at);
            break;
        case 'h': /* BINGET */
        case 'j': /* LONG_BINGET */
        case 'g': /* GET (protocol 0) */
            if (op == 'h') {
                NEED(1, "BINGET");
                n = d[pos++];
            } else if (op == 'j') {
                NEED(4, "LONG_BINGET");
                n = ts__le32(d + pos);
                pos += 4;
            } else {
                if ((st = NUM_LINE("GET's text")))
                    break;
                int64_t v;
                if (n1 == 0 || ts_parse_i64(s1, n1, 0, &v, NULL) != TS_OK)
                    return fail(pk, TS_ERR_FORMAT, at, "GET's index is not an integer >= 0");
                n = (uint64_t)v;
            }
            a = memo_get(pk, n);
            if (!a)
                return fail(pk, TS_ERR_FORMAT, at, "%s of memo entry %llu, which was never "
                            "set", ts__pk_opcode_name(op), (unsigned long long)n);
            st = push(pk, a, at);
            break;
        case 'c': /* GLOBAL */
            if ((st = global_line(pk, d, len, &pos, &have, "GLOBAL's module", at, &s1, &n1)) ||
                (st = global_line(pk, d, len, &pos, &have, "GLOBAL's name", at, &s2, &n2)) ||
                (st = make_global(pk, s1, n1, s2, n2, op, at, &a)))
                break;
            st = push(pk, a, at);
            break;
        case 0x93: /* STACK_GLOBAL */
            if ((st = need_items(pk, 2, "STACK_GLOBAL", at)))
                break;
            a = pk->stack[pk->sp - 2];
            b = pk->stack[pk->sp - 1];
            if (a->kind != TS__PK_STR || b->kind != TS__PK_STR)
                return fail(pk, TS_ERR_FORMAT, at, "STACK_GLOBAL needs two str values, found "
                            "%s and %s", ts__pk_kind_name(a->kind), ts__pk_kind_name(b->kind));
            pk->sp -= 2;
            if ((st = make_global(pk, (const char *)a->u.s.p, a->u.s.n, (const char *)b->u.s.p,
                                  b->u.s.n, op, at, &c)) == TS_OK)
                st = push(pk, c, at);
            break;
        case 'i': /* INST: module, name lines; the arguments above the mark */
            if ((st = global_line(pk, d, len, &pos, &have, "GLOBAL's module", at, &s1, &n1)) ||
                (st = global_line(pk, d, len, &pos, &have, "GLOBAL's name", at, &s2, &n2)) ||
                (st = make_global(pk, s1, n1, s2, n2, op, at, &a)) ||
                (st = pop_mark(pk, "INST", at, &mark)) ||
                (st = push(pk, a, at)))
                break;
            /* the class goes below its arguments */
            memmove(pk->stack + mark + 1, pk->stack + mark,
                    (pk->sp - 1 - mark) * sizeof *pk->stack);
            pk->stack[mark] = a;
            if ((st = collect(pk, TS__PK_TUPLE, mark + 1, at)) == TS_OK)
                st = call_top(pk, 1, op, at);
            break;
        case 'o': /* OBJ: the class and its arguments above the mark */
            if ((st = pop_mark(pk, "OBJ", at, &mark)))
                break;
            if (pk->sp == mark)
                return fail(pk, TS_ERR_FORMAT, at, "OBJ without a class above its MARK");
            if ((st = collect(pk, TS__PK_TUPLE, mark + 1, at)) == TS_OK)
                st = call_top(pk, 1, op, at);
            break;
        case 'R': /* REDUCE */
        case 0x81: /* NEWOBJ */
            if ((st = need_items(pk, 2, ts__pk_opcode_name(op), at)) == TS_OK)
                st = call_top(pk, op == 0x81, op, at);
            break;
        case 0x92: /* NEWOBJ_EX: class, args, kwargs (kept as the state's place
                      is BUILD's: the kwargs are dropped, their globals seen) */
            if ((st = need_items(pk, 3, "NEWOBJ_EX", at)) ||
                (st = make_call(pk, pk->stack[pk->sp - 3], pk->stack[pk->sp - 2], 1, op, at,
                                &c)))
                break;
            if ((st = deepen(pk, c, pk->stack[pk->sp - 1], at)))
                break;
            pk->sp -= 3;
            st = push(pk, c, at);
            break;
        case 'b': { /* BUILD */
            if ((st = need_items(pk, 2, "BUILD", at)))
                break;
            c = pk->stack[pk->sp - 2];
            b = pk->stack[pk->sp - 1];
            size_t skip;
            if ((st = observe(pk, TS__PK_EV_BUILD, op, at, c, b, d, len, pos, &skip)))
                break;
            if (!(c->kind == TS__PK_CALL || c->kind == TS__PK_OBJECT ||
                  (c->kind == TS__PK_DICT && c->func) ||
                  (c->kind == TS__PK_GLOBAL && c->role == TS__PK_INERT)))
                return fail(pk, TS_ERR_UNSUPPORTED, at, "refusing the file: BUILD sets the "
                            "state of a %s (only objects from allowlisted calls have one); "
                            "nothing was executed", ts__pk_kind_name(c->kind));
            if ((st = deepen(pk, c, b, at)))
                break;
            c->state = b;
            c->state_offset = (int64_t)at;
            pk->sp--;
            if (skip > len - pos)
                return fail(pk, TS_ERR_TRUNCATED, at, "the %zu bytes that follow BUILD run past "
                            "the end of the pickle (%zu bytes left)", skip, len - pos);
            pos += skip;
            break;
        }
        case 'Q': /* BINPERSID */
        case 'P': /* PERSID (protocol 0): the id is a text line */
            if (!pk->opts->allow_persid)
                return fail(pk, TS_ERR_UNSUPPORTED, at, "refusing the file: %s "
                            "(a persistent id) is not allowed in this pickle",
                            ts__pk_opcode_name(op));
            if (op == 'P') {
                if ((st = NUM_LINE("PERSID's text")) ||
                    (st = text_value(pk, (const unsigned char *)s1, n1, &(size_t){0},
                                     &(size_t){SIZE_MAX}, n1, TS__PK_STR, "PERSID", at)))
                    break;
            }
            if ((st = need_items(pk, 1, ts__pk_opcode_name(op), at)) ||
                (st = observe(pk, TS__PK_EV_PERSID, op, at, pk->stack[pk->sp - 1], NULL, d, len,
                                pos, NULL)))
                break;
            c = new_value(pk, TS__PK_PERSID, at);
            if (!c)
                return pk->err->code;
            c->op = op;
            c->args = pk->stack[pk->sp - 1];
            if ((st = deepen(pk, c, c->args, at)))
                break;
            pk->stack[pk->sp - 1] = c;
            break;
        default: {
            const char *why = refused_opcode(op), *name = ts__pk_opcode_name(op);
            if (why)
                return fail(pk, TS_ERR_UNSUPPORTED, at, "refusing the file: opcode %s (0x%02x) "
                            "is not allowed (%s); nothing was executed", name, op, why);
            return fail(pk, TS_ERR_FORMAT, at, "invalid pickle opcode 0x%02x", op);
        }
        }
    }
    return st;
}

ts_status ts__pk_skip_nested(ts_file *f, ts__pk_event *e, const ts__pk_options *opts,
                             ts_error *err)
{
    ts__pk *pk;
    ts__pk_value *v;
    size_t end = 0;
    ts_status st = ts__pk_new(&pk, f, err);
    if (st)
        return st;
    st = ts__pk_load(pk, e->data, e->len, e->pos, opts, &v, &end, err);
    ts__pk_free(pk);
    if (!st)
        e->skip = end - e->pos;
    return st;
}
