/*
 * pickle.c - the restricted pickle machine of pickle.h.
 *
 * Opcodes follow CPython's Lib/pickle.py (_Unpickler) and pickletools.py:
 * a value stack, a stack of MARK positions (items below the last mark are
 * out of reach until it is consumed, like pickle.py's metastack) and a memo.
 * Only the opcodes that protocol 2-5 pickles of tensors use are accepted;
 * the others (INST, OBJ, NEWOBJ_EX, EXT*, PERSID, out-of-band buffers and
 * the protocol-0 text opcodes) are refused by name.
 */
#include "pickle.h"

#include "reader.h"

#include <stdio.h>
#include <stdlib.h>

#define BLOCK_VALUES 1024

typedef struct block {
    struct block *next;
    size_t used;
    ts__pk_value v[BLOCK_VALUES];
} block;

struct ts__pk {
    ts_file *file;           /* owns the memory (scratch), or NULL: malloc */
    block *blocks;
    size_t nvalues;
    uint64_t opcodes;
    ts__pk_value **stack;
    size_t sp, scap;
    size_t marks[TS__PK_MAX_MARKS];
    size_t nmarks;
    /* memo: open addressing, key index + 1 (0 = empty) */
    uint64_t *mkeys;
    ts__pk_value **mvals;
    size_t mcap, mcount;
    uint64_t seed;           /* hash seed: memo indices come from the file */
    /* shared immutable constants */
    ts__pk_value *none, *true_, *false_;
    ts__pk_value *small[256];
    /* the current load */
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

/* ------------------------------------------------------------------------ */
/* Globals that pickle exploits use                                          */
/* ------------------------------------------------------------------------ */

typedef struct danger {
    const char *module;      /* the module or a package prefix */
    const char *name;        /* NULL: every name of the module */
    const char *what;
} danger;

/* After picklescan's list and the payloads of published pickle exploits.
 * "__builtin__" is normalised to "builtins" before the lookup. */
static const danger dangers[] = {
    {"os", "system", "run a shell command"},
    {"os", "popen", "run a shell command"},
    {"posix", "system", "run a shell command"},
    {"posix", "popen", "run a shell command"},
    {"nt", "system", "run a shell command"},
    {"nt", "popen", "run a shell command"},
    {"os", NULL, "act on files and processes"},
    {"posix", NULL, "act on files and processes"},
    {"nt", NULL, "act on files and processes"},
    {"subprocess", NULL, "run a command"},
    {"pty", NULL, "run a command"},
    {"commands", NULL, "run a command"},
    {"asyncio", NULL, "run a command"},
    {"multiprocessing", NULL, "start processes"},
    {"builtins", "eval", "run Python code"},
    {"builtins", "exec", "run Python code"},
    {"builtins", "execfile", "run Python code"},
    {"builtins", "compile", "compile Python code"},
    {"builtins", "open", "open a file"},
    {"builtins", "file", "open a file"},
    {"builtins", "getattr", "reach any attribute of any object"},
    {"builtins", "setattr", "change any attribute of any object"},
    {"builtins", "delattr", "change any attribute of any object"},
    {"builtins", "__import__", "import any module"},
    {"builtins", "breakpoint", "start a debugger"},
    {"builtins", "input", "read from the terminal"},
    {"builtins", "apply", "call any function"},
    {"builtins", "globals", "reach the interpreter's globals"},
    {"builtins", "vars", "reach the interpreter's globals"},
    {"runpy", NULL, "run Python code"},
    {"code", NULL, "run Python code"},
    {"numpy.testing._private.utils", "runstring", "run Python code"},
    {"importlib", NULL, "import any module"},
    {"imp", NULL, "import any module"},
    {"pkgutil", NULL, "import any module"},
    {"operator", "attrgetter", "reach any attribute of any object"},
    {"operator", "methodcaller", "call any method"},
    {"operator", "itemgetter", "reach any item of any object"},
    {"functools", "partial", "call any function"},
    {"types", "CodeType", "build Python code"},
    {"types", "FunctionType", "build Python functions"},
    {"marshal", NULL, "build Python code"},
    {"pickle", NULL, "load another pickle"},
    {"_pickle", NULL, "load another pickle"},
    {"cPickle", NULL, "load another pickle"},
    {"copyreg", NULL, "build objects of any class"},
    {"copy_reg", NULL, "build objects of any class"},
    {"dill", NULL, "load another pickle"},
    {"joblib", NULL, "load another pickle"},
    {"torch", "load", "load another pickle"},
    {"torch.serialization", "load", "load another pickle"},
    {"torch.hub", NULL, "download and run code"},
    {"numpy", "load", "load another pickle"},
    {"sys", NULL, "change the interpreter"},
    {"ctypes", NULL, "call C functions"},
    {"_ctypes", NULL, "call C functions"},
    {"bdb", NULL, "start a debugger"},
    {"pdb", NULL, "start a debugger"},
    {"socket", NULL, "open network connections"},
    {"http", NULL, "open network connections"},
    {"httplib", NULL, "open network connections"},
    {"urllib", NULL, "open network connections"},
    {"urllib2", NULL, "open network connections"},
    {"requests", NULL, "open network connections"},
    {"aiohttp", NULL, "open network connections"},
    {"ftplib", NULL, "open network connections"},
    {"smtplib", NULL, "open network connections"},
    {"telnetlib", NULL, "open network connections"},
    {"webbrowser", NULL, "open a web browser"},
    {"shutil", NULL, "copy or delete files"},
    {"tempfile", NULL, "create files"},
    {"glob", NULL, "list files"},
    {"io", NULL, "open files"},
    {"_io", NULL, "open files"},
    {"signal", NULL, "change the process's signals"},
};

static int text_eq(const char *a, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(a, lit, n) == 0;
}

/* module == m, or module starts with m + "." (a package and its modules) */
static int module_in(const char *module, size_t n, const char *m)
{
    size_t k = strlen(m);
    return n >= k && memcmp(module, m, k) == 0 && (n == k || module[k] == '.');
}

const char *ts__pk_danger(const char *module, size_t module_len, const char *name,
                          size_t name_len)
{
    for (size_t i = 0; i < sizeof dangers / sizeof *dangers; i++) {
        const danger *d = &dangers[i];
        if (d->name ? text_eq(module, module_len, d->module) && text_eq(name, name_len, d->name)
                    : module_in(module, module_len, d->module))
            return d->what;
    }
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* The machine                                                               */
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

static int is_container(int kind)
{
    return kind == TS__PK_TUPLE || kind == TS__PK_LIST || kind == TS__PK_DICT ||
           kind == TS__PK_SET || kind == TS__PK_FROZENSET;
}

void ts__pk_free(ts__pk *pk)
{
    if (!pk)
        return;
    ts_file *f = pk->file;
    while (pk->blocks) {
        block *b = pk->blocks;
        for (size_t i = 0; i < b->used; i++)
            if (is_container(b->v[i].kind))
                mem_free(f, b->v[i].u.seq.v);
        pk->blocks = b->next;
        mem_free(f, b);
    }
    mem_free(f, pk->stack);
    mem_free(f, pk->mkeys);
    mem_free(f, pk->mvals);
    mem_free(f, pk);
}

uint64_t ts__pk_opcodes(const ts__pk *pk)
{
    return pk->opcodes;
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
    if (!b || b->used == BLOCK_VALUES) {
        b = mem_realloc(pk->file, NULL, sizeof *b);
        if (!b) {
            ts__error(pk->err, TS_ERR_NOMEM, "out of memory for pickle values");
            return NULL;
        }
        b->used = 0;
        b->next = pk->blocks;
        pk->blocks = b;
    }
    ts__pk_value *v = &b->v[b->used++];
    memset(v, 0, sizeof *v);
    v->kind = (uint8_t)kind;
    v->offset = (int64_t)at;
    v->state_offset = -1;
    pk->nvalues++;
    return v;
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

static ts_status seq_add(ts__pk *pk, ts__pk_value *c, ts__pk_value *item)
{
    if (c->u.seq.n == c->u.seq.cap) {
        size_t cap = c->u.seq.cap ? c->u.seq.cap * 2 : 4;
        ts__pk_value **p = mem_realloc(pk->file, c->u.seq.v, cap * sizeof *p);
        if (!p)
            return ts__error(pk->err, TS_ERR_NOMEM, "out of memory for a %zu-item container",
                             cap);
        c->u.seq.v = p;
        c->u.seq.cap = cap;
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
    if (n) {
        c->u.seq.v = mem_realloc(pk->file, NULL, n * sizeof *c->u.seq.v);
        if (!c->u.seq.v)
            return ts__error(pk->err, TS_ERR_NOMEM, "out of memory for a %zu-item tuple", n);
        memcpy(c->u.seq.v, pk->stack + from, n * sizeof *c->u.seq.v);
        c->u.seq.n = c->u.seq.cap = n;
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
    if (!pk->mcap)
        return NULL;
    size_t s = memo_slot(pk, index + 1);
    return pk->mkeys[s] ? pk->mvals[s] : NULL;
}

/* ---- globals ------------------------------------------------------------- */

static ts_status make_global(ts__pk *pk, const char *mod, size_t ml, const char *name,
                             size_t nl, const char *op, size_t at)
{
    if (text_eq(mod, ml, "__builtin__")) {
        mod = "builtins";
        ml = 8;
    }
    int tag = 0;
    ts__pk_role role = pk->opts->classify
                           ? pk->opts->classify(pk->opts->ctx, mod, ml, name, nl, &tag)
                           : TS__PK_REFUSE;
    if (role == TS__PK_REFUSE) {
        char m[160], n[160];
        ts__printable(mod, ml, m, sizeof m);
        ts__printable(name, nl, n, sizeof n);
        const char *what = ts__pk_danger(mod, ml, name, nl);
        if (what)
            return fail(pk, TS_ERR_UNSUPPORTED, at,
                        "refusing the file: %s %s.%s is dangerous (it would %s under "
                        "torch.load); nothing was executed", op, m, n, what);
        return fail(pk, TS_ERR_UNSUPPORTED, at,
                    "refusing the file: %s %s.%s is not on the tensor-file allowlist "
                    "(torch.load would import it); nothing was executed", op, m, n);
    }
    ts__pk_value *g = new_value(pk, TS__PK_GLOBAL, at);
    if (!g)
        return pk->err->code;
    g->role = (uint8_t)role;
    g->tag = tag;
    g->u.g.module = mod;
    g->u.g.module_len = ml;
    g->u.g.name = name;
    g->u.g.name_len = nl;
    return push(pk, g, at);
}

/* One '\n'-terminated line of GLOBAL's operand at *pos. */
static ts_status global_line(ts__pk *pk, const unsigned char *d, size_t len, size_t *pos,
                             const char *what, size_t at, const char **s, size_t *n)
{
    size_t limit = len - *pos;
    if (limit > TS__PK_MAX_GLOBAL_LINE + 1)
        limit = TS__PK_MAX_GLOBAL_LINE + 1;
    const unsigned char *nl = memchr(d + *pos, '\n', limit);
    if (!nl) {
        if (limit == TS__PK_MAX_GLOBAL_LINE + 1)
            return fail(pk, TS_ERR_LIMIT, at, "GLOBAL's %s is longer than %d bytes",
                        what, TS__PK_MAX_GLOBAL_LINE);
        return fail(pk, TS_ERR_TRUNCATED, at, "the pickle ends inside GLOBAL's %s", what);
    }
    *s = (const char *)d + *pos;
    *n = (size_t)(nl - (d + *pos));
    if (*n == 0)
        return fail(pk, TS_ERR_FORMAT, at, "GLOBAL's %s is empty", what);
    *pos += *n + 1;
    return TS_OK;
}

/* ---- the refused opcodes ------------------------------------------------- */

static const char *refused_opcode(unsigned char op, const char **why)
{
    switch (op) {
    case 'i': *why = "it instantiates a class"; return "INST";
    case 'o': *why = "it instantiates a class"; return "OBJ";
    case 0x92: *why = "it instantiates a class"; return "NEWOBJ_EX";
    case 0x82: *why = "it reads the copyreg extension registry"; return "EXT1";
    case 0x83: *why = "it reads the copyreg extension registry"; return "EXT2";
    case 0x84: *why = "it reads the copyreg extension registry"; return "EXT4";
    case 'P': *why = "torch.save writes binary persistent ids"; return "PERSID";
    case 0x97: *why = "out-of-band buffers are not in the file"; return "NEXT_BUFFER";
    case 0x98: *why = "out-of-band buffers are not in the file"; return "READONLY_BUFFER";
    case 'I': *why = "protocol 0 text opcodes are not used by torch.save"; return "INT";
    case 'L': *why = "protocol 0 text opcodes are not used by torch.save"; return "LONG";
    case 'F': *why = "protocol 0 text opcodes are not used by torch.save"; return "FLOAT";
    case 'S': *why = "protocol 0 text opcodes are not used by torch.save"; return "STRING";
    case 'V': *why = "protocol 0 text opcodes are not used by torch.save"; return "UNICODE";
    case 'g': *why = "protocol 0 text opcodes are not used by torch.save"; return "GET";
    case 'p': *why = "protocol 0 text opcodes are not used by torch.save"; return "PUT";
    case 'd': *why = "protocol 0 text opcodes are not used by torch.save"; return "DICT";
    case 'l': *why = "protocol 0 text opcodes are not used by torch.save"; return "LIST";
    case '0': *why = "torch.save never writes it"; return "POP";
    case '1': *why = "torch.save never writes it"; return "POP_MARK";
    case '2': *why = "torch.save never writes it"; return "DUP";
    default: return NULL;
    }
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

/* LONG1/LONG4: n bytes of little-endian two's complement. */
static ts_status long_value(ts__pk *pk, const unsigned char *p, size_t n, size_t at)
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
    return push(pk, v, at);
}

ts_status ts__pk_load(ts__pk *pk, const unsigned char *data, size_t len, size_t start,
                      const ts__pk_options *opts, ts__pk_value **out, size_t *end,
                      ts_error *err)
{
    pk->opts = opts;
    pk->err = err ? err : &pk->local_err;
    pk->sp = 0;
    pk->nmarks = 0;
    memo_clear(pk);
    *out = NULL;
    const unsigned char *d = data;
    size_t pos = start, have = start;
    ts_status st = TS_OK;
    if (pos >= len)
        return fail(pk, TS_ERR_TRUNCATED, pos, "expected a pickle, found the end of the data");
    if ((st = fetch(pk, pos, PK_AHEAD, &have)))
        return st;
    if (d[pos] != 0x80)
        return fail(pk, TS_ERR_FORMAT, pos, "a pickle of protocol 2 or later starts with "
                    "PROTO (0x80), found byte 0x%02x", d[pos]);
    while (st == TS_OK) {
        if (pos >= len)
            return fail(pk, TS_ERR_TRUNCATED, pos, "the pickle ends without STOP");
        if ((st = fetch(pk, pos, PK_AHEAD, &have)))
            return st;
        size_t at = pos;
        unsigned char op = d[pos++];
        pk->opcodes++;
        ts__pk_value *a, *b, *c;
        size_t mark = 0;
        uint64_t n;
        switch (op) {
        case 0x80: /* PROTO */
            NEED(1, "PROTO");
            if (d[pos] < 2 || d[pos] > 5)
                return fail(pk, TS_ERR_UNSUPPORTED, at, "pickle protocol %d is not supported "
                            "(protocols 2 to 5 are)", d[pos]);
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
            pk->marks[pk->nmarks++] = pk->sp;
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
            if ((st = pop_mark(pk, "TUPLE", at, &mark)) == TS_OK)
                st = collect(pk, TS__PK_TUPLE, mark, at);
            break;
        case 0x91: /* FROZENSET */
            if ((st = pop_mark(pk, "FROZENSET", at, &mark)) == TS_OK)
                st = collect(pk, TS__PK_FROZENSET, mark, at);
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
            if (c->kind != TS__PK_DICT)
                return fail(pk, TS_ERR_FORMAT, at, "SETITEM on a %s, not a dict",
                            ts__pk_kind_name(c->kind));
            if ((st = seq_add(pk, c, pk->stack[pk->sp - 2])) == TS_OK)
                st = seq_add(pk, c, pk->stack[pk->sp - 1]);
            pk->sp -= 2;
            break;
        case 'u': /* SETITEMS */
        case 'e': /* APPENDS */
        case 0x90: { /* ADDITEMS */
            const char *name = op == 'u' ? "SETITEMS" : op == 'e' ? "APPENDS" : "ADDITEMS";
            int want = op == 'u' ? TS__PK_DICT : op == 'e' ? TS__PK_LIST : TS__PK_SET;
            if ((st = pop_mark(pk, name, at, &mark)))
                break;
            if (mark == 0 || mark - 1 < floor_of(pk))
                return fail(pk, TS_ERR_FORMAT, at, "%s has no container below its MARK",
                            name);
            c = pk->stack[mark - 1];
            if (c->kind != want)
                return fail(pk, TS_ERR_FORMAT, at, "%s on a %s, not a %s", name,
                            ts__pk_kind_name(c->kind), ts__pk_kind_name(want));
            if (op == 'u' && (pk->sp - mark) % 2)
                return fail(pk, TS_ERR_FORMAT, at, "SETITEMS with an odd number of values "
                            "(%zu) above its MARK", pk->sp - mark);
            for (size_t i = mark; i < pk->sp && !st; i++)
                st = seq_add(pk, c, pk->stack[i]);
            pk->sp = mark;
            break;
        }
        case 'a': /* APPEND */
            if ((st = need_items(pk, 2, "APPEND", at)))
                break;
            c = pk->stack[pk->sp - 2];
            if (c->kind != TS__PK_LIST)
                return fail(pk, TS_ERR_FORMAT, at, "APPEND on a %s, not a list",
                            ts__pk_kind_name(c->kind));
            st = seq_add(pk, c, pk->stack[pk->sp - 1]);
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
            st = long_value(pk, d + pos, (size_t)n, at);
            pos += (size_t)n;
            break;
        case 0x8b: /* LONG4 */
            NEED(4, "LONG4");
            n = ts__le32(d + pos);
            pos += 4;
            if (n & 0x80000000u)
                return fail(pk, TS_ERR_FORMAT, at, "LONG4 with a negative length");
            NEED(n, "LONG4");
            st = long_value(pk, d + pos, (size_t)n, at);
            pos += (size_t)n;
            break;
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
                            op == 'C' ? "SHORT_BINBYTES" : op == 'U' ? "SHORT_BINSTRING"
                                                                     : "SHORT_BINUNICODE",
                            at);
            break;
        case 0x8d: /* BINUNICODE8 */
        case 0x8e: /* BINBYTES8 */
        case 0x96: /* BYTEARRAY8 */
            NEED(8, "an 8-byte length");
            n = ts__le64(d + pos);
            pos += 8;
            st = text_value(pk, d, len, &pos, &have, n, op == 0x8d ? TS__PK_STR : TS__PK_BYTES,
                            op == 0x8d ? "BINUNICODE8" : op == 0x8e ? "BINBYTES8"
                                                                    : "BYTEARRAY8", at);
            break;
        case 'q': /* BINPUT */
        case 'r': /* LONG_BINPUT */
        case 0x94: /* MEMOIZE */
            if (op == 'q') {
                NEED(1, "BINPUT");
                n = d[pos++];
            } else if (op == 'r') {
                NEED(4, "LONG_BINPUT");
                n = ts__le32(d + pos);
                pos += 4;
            } else {
                n = pk->mcount;
            }
            if (pk->sp == floor_of(pk))
                return fail(pk, TS_ERR_FORMAT, at, "%s with no value to memoize",
                            op == 'q' ? "BINPUT" : op == 'r' ? "LONG_BINPUT" : "MEMOIZE");
            st = memo_put(pk, n, pk->stack[pk->sp - 1], at);
            break;
        case 'h': /* BINGET */
        case 'j': /* LONG_BINGET */
            if (op == 'h') {
                NEED(1, "BINGET");
                n = d[pos++];
            } else {
                NEED(4, "LONG_BINGET");
                n = ts__le32(d + pos);
                pos += 4;
            }
            a = memo_get(pk, n);
            if (!a)
                return fail(pk, TS_ERR_FORMAT, at, "%s of memo entry %llu, which was never "
                            "set", op == 'h' ? "BINGET" : "LONG_BINGET", (unsigned long long)n);
            st = push(pk, a, at);
            break;
        case 'c': { /* GLOBAL */
            const char *mod, *name;
            size_t ml, nl;
            if ((st = global_line(pk, d, len, &pos, "module", at, &mod, &ml)) ||
                (st = global_line(pk, d, len, &pos, "name", at, &name, &nl)))
                break;
            st = make_global(pk, mod, ml, name, nl, "GLOBAL", at);
            break;
        }
        case 0x93: /* STACK_GLOBAL */
            if ((st = need_items(pk, 2, "STACK_GLOBAL", at)))
                break;
            a = pk->stack[pk->sp - 2];
            b = pk->stack[pk->sp - 1];
            if (a->kind != TS__PK_STR || b->kind != TS__PK_STR)
                return fail(pk, TS_ERR_FORMAT, at, "STACK_GLOBAL needs two str values, found "
                            "%s and %s", ts__pk_kind_name(a->kind), ts__pk_kind_name(b->kind));
            pk->sp -= 2;
            st = make_global(pk, (const char *)a->u.s.p, a->u.s.n, (const char *)b->u.s.p,
                             b->u.s.n, "STACK_GLOBAL", at);
            break;
        case 'R': /* REDUCE */
        case 0x81: { /* NEWOBJ */
            const char *name = op == 'R' ? "REDUCE" : "NEWOBJ";
            if ((st = need_items(pk, 2, name, at)))
                break;
            a = pk->stack[pk->sp - 2];
            b = pk->stack[pk->sp - 1];
            if (a->kind != TS__PK_GLOBAL)
                return fail(pk, TS_ERR_UNSUPPORTED, at, "refusing the file: %s calls a %s, "
                            "not an allowlisted global; nothing was executed", name,
                            ts__pk_kind_name(a->kind));
            if (b->kind != TS__PK_TUPLE)
                return fail(pk, TS_ERR_FORMAT, at, "%s's arguments are a %s, not a tuple",
                            name, ts__pk_kind_name(b->kind));
            char m[160], g[160];
            ts__printable(a->u.g.module, a->u.g.module_len, m, sizeof m);
            ts__printable(a->u.g.name, a->u.g.name_len, g, sizeof g);
            if (op == 0x81) {
                if (a->role != TS__PK_CLASS)
                    return fail(pk, TS_ERR_UNSUPPORTED, at, "refusing the file: NEWOBJ "
                                "instantiates %s.%s; only TorchScript classes are allowed and "
                                "nothing was executed", m, g);
                c = new_value(pk, TS__PK_OBJECT, at);
            } else if (a->role == TS__PK_CALLABLE) {
                c = new_value(pk, TS__PK_CALL, at);
            } else if (a->role == TS__PK_DICT_TYPE) {
                c = new_value(pk, TS__PK_DICT, at);
                if (c && b->u.seq.n == 1 && b->u.seq.v[0]->kind == TS__PK_LIST)
                    c->args = b->u.seq.v[0];
                else if (b->u.seq.n != 0)
                    return fail(pk, TS_ERR_FORMAT, at, "%s.%s takes no argument or a list "
                                "of pairs, found %zu arguments", m, g, b->u.seq.n);
                b = NULL;
            } else {
                return fail(pk, TS_ERR_UNSUPPORTED, at, "refusing the file: REDUCE calls "
                            "%s.%s, which is allowed only as a value; nothing was executed",
                            m, g);
            }
            if (!c)
                return pk->err->code;
            c->func = a;
            if (b)
                c->args = b;
            pk->sp -= 2;
            st = push(pk, c, at);
            break;
        }
        case 'b': /* BUILD */
            if ((st = need_items(pk, 2, "BUILD", at)))
                break;
            c = pk->stack[pk->sp - 2];
            if (!(c->kind == TS__PK_CALL || c->kind == TS__PK_OBJECT ||
                  (c->kind == TS__PK_DICT && c->func)))
                return fail(pk, TS_ERR_UNSUPPORTED, at, "refusing the file: BUILD sets the "
                            "state of a %s (only objects from allowlisted calls have one); "
                            "nothing was executed", ts__pk_kind_name(c->kind));
            c->state = pk->stack[pk->sp - 1];
            c->state_offset = (int64_t)at;
            pk->sp--;
            break;
        case 'Q': /* BINPERSID */
            if (!pk->opts->allow_persid)
                return fail(pk, TS_ERR_UNSUPPORTED, at, "refusing the file: BINPERSID "
                            "(a persistent id) is not allowed in this pickle");
            if ((st = need_items(pk, 1, "BINPERSID", at)))
                break;
            c = new_value(pk, TS__PK_PERSID, at);
            if (!c)
                return pk->err->code;
            c->args = pk->stack[pk->sp - 1];
            pk->stack[pk->sp - 1] = c;
            break;
        default: {
            const char *why = NULL, *name = refused_opcode(op, &why);
            if (name)
                return fail(pk, TS_ERR_UNSUPPORTED, at, "refusing the file: opcode %s (0x%02x) "
                            "is not allowed (%s); nothing was executed", name, op, why);
            return fail(pk, TS_ERR_FORMAT, at, "invalid pickle opcode 0x%02x", op);
        }
        }
    }
    return st;
}
