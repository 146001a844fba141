/*
 * scan.c - tshape scan: what torch.load, pickle.load, numpy.load and
 * joblib.load would import and run from a file or a folder
 * (include/tshape.h, "Scan"), without running anything.
 *
 * A file's content decides what it is, never its name (torch.load does the
 * same): a zip archive (torch.save, TorchScript, npz, Keras 3, or another
 * zip), a legacy torch.save file (five pickles, the first one torch's magic
 * number), a .npy file, an HDF5 file (Keras model_config), a file
 * compressed with gzip or zlib (joblib's compressors; inflated), a plain
 * pickle (any protocol), or something else. Every pickle found runs on the
 * restricted machine of pickle.c with a classifier that makes every global
 * an inert placeholder and an observer that records each global (with the
 * classes and allowlists of pickle_globals.c), checks what torch's
 * weights_only unpickler would do, skips joblib's array bytes
 * (pickle_numpy.c) and scans the byte strings that calls receive when they
 * hold a pickle or a zip (pickle.loads(b'...'),
 * torch.storage._load_from_bytes(b'...')). Tensor data is never read: a
 * zip member is read only when it is a pickle, a .npy header or a config.
 */
#include "npy_header.h"
#include "pickle.h"
#include "pickle_globals.h"
#include "pickle_numpy.h"
#include "reader.h"
#include "zip.h"
#include "../remote/remote.h"

#include <errno.h>
#include "../core/jansson_lazy.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include "../core/zlib_lazy.h"

#define MAX_NEST 4                          /* pickles in bytes in pickles */
#define MAX_GLOBALS ((size_t)100000)        /* distinct globals per file */
#define MAX_FINDINGS ((size_t)10000)        /* per file */
#define MAX_PICKLES 100                     /* back to back in one stream */
#define MAX_PICKLE_BYTES ((uint64_t)1 << 30)
#define FIRST_BYTES ((size_t)16 << 20)      /* first inflation of a member */
#define NPY_FIRST ((size_t)4096)            /* of an npz member's header */
#define MAX_JSON ((size_t)64 << 20)         /* a Keras config */
#define MAX_JSON_DEPTH 200
#define THREAD_FILES 64                     /* a folder of fewer: one thread */
#define THREAD_STEP ((size_t)8)             /* files a thread takes at a time */

/* ------------------------------------------------------------------------ */
/* The scan object                                                           */
/* ------------------------------------------------------------------------ */

typedef struct chunk {
    struct chunk *next;
    size_t used, cap;
    char data[];
} chunk;

struct ts_scan {
    ts_scan_file *files;
    size_t nfiles, files_cap;
    ts_scan_global *globals;
    size_t nglobals, globals_cap;
    ts_scan_finding *findings;
    size_t nfindings, findings_cap;
    chunk *chunks;
    size_t errors;
    struct known_global *known; /* globals classified so far (global_facts) */
    size_t known_n, known_cap;
    const char *recent[2];      /* the last texts of sdup_recent */
};

static const char *sdup(ts_scan *s, const char *p, size_t n)
{
    chunk *c = s->chunks;
    if (!c || c->cap - c->used < n + 1) {
        size_t cap = n + 1 > 16384 ? n + 1 : 16384;
        c = malloc(sizeof *c + cap);
        if (!c)
            return NULL;
        c->used = 0;
        c->cap = cap;
        c->next = s->chunks;
        s->chunks = c;
    }
    char *r = c->data + c->used;
    memcpy(r, p, n);
    r[n] = '\0';
    c->used += n + 1;
    return r;
}

/* sdup of a NUL-terminated text that is often one of the last two (the
 * weights_only reasons of a folder's files: 460 KB of copies for 1,000
 * pickles, a page fault every 4 KB): the copy kept then. */
static const char *sdup_recent(ts_scan *s, const char *p)
{
    for (int i = 0; i < 2; i++)
        if (s->recent[i] && strcmp(s->recent[i], p) == 0)
            return s->recent[i];
    const char *r = sdup(s, p, strlen(p));
    s->recent[1] = s->recent[0];
    s->recent[0] = r;
    return r;
}

/* Grows array *v of *cap elements of `size` bytes to hold n + 1. */
static int grow(void **v, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? *cap * 2 : 16;
    void *p = realloc(*v, c * size);
    if (!p)
        return -1;
    *v = p;
    *cap = c;
    return 0;
}

const char *ts_scan_class_name(ts_scan_class c)
{
    switch (c) {
    case TS_SCAN_NONE: return "none";
    case TS_SCAN_TENSOR: return "tensor";
    case TS_SCAN_DATA: return "data";
    case TS_SCAN_UNKNOWN: return "unknown";
    case TS_SCAN_DANGEROUS: return "dangerous";
    }
    return "unknown";
}

const char *ts_scan_finding_kind_name(ts_scan_finding_kind k)
{
    switch (k) {
    case TS_SCAN_FINDING_ZIP: return "zip";
    case TS_SCAN_FINDING_PICKLE: return "pickle";
    case TS_SCAN_FINDING_KERAS: return "keras";
    case TS_SCAN_FINDING_NOTE: return "note";
    }
    return "unknown";
}

const char *ts_scan_wo_name(ts_scan_wo w)
{
    switch (w) {
    case TS_SCAN_WO_NA: return "n/a";
    case TS_SCAN_WO_ACCEPTED: return "accepted";
    case TS_SCAN_WO_ALLOWLIST: return "allowlist";
    case TS_SCAN_WO_REFUSED: return "refused";
    case TS_SCAN_WO_JIT: return "torch.jit.load";
    }
    return "unknown";
}

/* ------------------------------------------------------------------------ */
/* One file                                                                  */
/* ------------------------------------------------------------------------ */

/* What torch.load(weights_only=True) of one version would do, so far. */
typedef struct wo_state {
    ts_scan_wo verdict;
    char why[300];
} wo_state;

typedef struct fscan {
    ts_scan *s;
    size_t file;
    ts_file *f;              /* the image and scratch memory */
    ts_status status;        /* the first error */
    char message[TS_ERROR_MESSAGE_MAX + 600];
    const char *container;
    int depth;               /* nesting of pickles in bytes */
    int wo_reads;            /* torch.load(weights_only=True) runs the current
                                pickle */
    wo_state wo[2];
    char *safe;              /* 2.4's add_safe_globals list (malloc) */
    size_t safe_len, safe_cap;
    size_t npickles;
    /* the current pickle: where its globals start (for counting repeats) */
    size_t pickle_globals;
    const char *pickle_name;
    int64_t pickle_base;     /* file offset of its byte 0, or -1 */
    int joblib;
    int memory;              /* an image in memory: no path to open */
    ts__pk *pk;              /* the file's machine, for pickles that do not
                                run inside another's load; loading = 1
                                while one does */
    int loading;
    size_t *seen;            /* this file's globals, by (pickle, opcode,
                                module, name): index + 1; 0 free */
    size_t seen_cap, seen_n;
    size_t recent[16];       /* the last global of each (module length, name
                                length) class met: index + 1, 0 none */
    size_t more_globals;     /* not listed past MAX_GLOBALS */
} fscan;

static ts_scan_file *rec(fscan *fs)
{
    return &fs->s->files[fs->file];
}

static ts_status nomem(void)
{
    return TS_ERR_NOMEM;
}

/* Records the file's first error (what was found before stays). */
static void file_error(fscan *fs, ts_status code, const ts_error *e, const char *prefix)
{
    if (fs->status != TS_OK)
        return;
    fs->status = code;
    snprintf(fs->message, sizeof fs->message, "%.500s%s%s", prefix ? prefix : "",
             prefix ? ": " : "", e ? e->message : ts_strerror(code));
}

static ts_status add_finding(fscan *fs, ts_scan_finding_kind kind, ts_scan_class cls,
                             const char *where, int64_t offset, const char *fmt, ...)
    TS__PRINTF(6, 7);
static ts_status add_finding(fscan *fs, ts_scan_finding_kind kind, ts_scan_class cls,
                             const char *where, int64_t offset, const char *fmt, ...)
{
    ts_scan *s = fs->s;
    if (rec(fs)->nfindings >= MAX_FINDINGS)
        return TS_OK;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (grow((void **)&s->findings, &s->findings_cap, s->nfindings, sizeof *s->findings))
        return nomem();
    ts_scan_finding *x = &s->findings[s->nfindings];
    x->file = fs->file;
    x->kind = kind;
    x->cls = cls;
    x->where = where ? sdup(s, where, strlen(where)) : NULL;
    x->offset = offset;
    x->message = sdup(s, msg, strlen(msg));
    if ((where && !x->where) || !x->message)
        return nomem();
    s->nfindings++;
    rec(fs)->nfindings++;
    return TS_OK;
}

/* ---- torch.load(weights_only=True) ---------------------------------------- */

static const char *const wo_names[2] = {"torch 1.13", "torch 2.4"};

static void wo_refuse(fscan *fs, int v, const char *fmt, ...) TS__PRINTF(3, 4);
static void wo_refuse(fscan *fs, int v, const char *fmt, ...)
{
    wo_state *w = &fs->wo[v];
    if (w->verdict == TS_SCAN_WO_REFUSED || w->verdict == TS_SCAN_WO_NA ||
        w->verdict == TS_SCAN_WO_JIT)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->why, sizeof w->why, fmt, ap);
    va_end(ap);
    w->verdict = TS_SCAN_WO_REFUSED;
}

/* torch >= 2.4 would load it once `name` is allowlisted. */
static ts_status wo_allowlist(fscan *fs, const char *name)
{
    wo_state *w = &fs->wo[1];
    if (w->verdict == TS_SCAN_WO_ACCEPTED) {
        w->verdict = TS_SCAN_WO_ALLOWLIST;
        snprintf(w->why, sizeof w->why, "needs torch.serialization.add_safe_globals (its "
                 "globals are not all on torch 2.4's allowlist)");
    }
    size_t n = strlen(name);
    /* once each */
    for (const char *p = fs->safe; p && p < fs->safe + fs->safe_len;) {
        const char *e = strstr(p, ", ");
        size_t k = e ? (size_t)(e - p) : (size_t)(fs->safe + fs->safe_len - p);
        if (k == n && memcmp(p, name, n) == 0)
            return TS_OK;
        p += k + 2;
    }
    if (fs->safe_len + n + 3 > fs->safe_cap) {
        size_t cap = (fs->safe_cap + n + 3) * 2;
        char *p = realloc(fs->safe, cap);
        if (!p)
            return nomem();
        fs->safe = p;
        fs->safe_cap = cap;
    }
    if (fs->safe_len) {
        memcpy(fs->safe + fs->safe_len, ", ", 2);
        fs->safe_len += 2;
    }
    memcpy(fs->safe + fs->safe_len, name, n);
    fs->safe_len += n;
    fs->safe[fs->safe_len] = '\0';
    return TS_OK;
}

static int text_is(const void *p, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(p, lit, n) == 0;
}

static int global_is(const ts__pk_value *g, const char *module, const char *name)
{
    return g && g->kind == TS__PK_GLOBAL && text_is(g->u.g.module, g->u.g.module_len, module) &&
           text_is(g->u.g.name, g->u.g.name_len, name);
}

/* BUILD targets of the weights_only unpicklers: a Tensor (a tensor rebuild
 * call), a Parameter, an OrderedDict. */
static int wo_build_ok(const ts__pk_value *t)
{
    if (t->kind == TS__PK_DICT)
        return global_is(t->func, "collections", "OrderedDict");
    const ts__pk_value *g = t->func;
    if (!g || g->kind != TS__PK_GLOBAL)
        return 0;
    if (t->kind == TS__PK_OBJECT)
        return global_is(g, "torch.nn.parameter", "Parameter");
    return (text_is(g->u.g.module, g->u.g.module_len, "torch._utils") &&
            g->u.g.name_len > 9 && memcmp(g->u.g.name, "_rebuild_", 9) == 0) ||
           global_is(g, "torch._tensor", "_rebuild_from_type_v2");
}

/* ---- globals -------------------------------------------------------------- */

/* h mixed with the n bytes at p, eight at a time (a multiply and a shift
 * per word: a byte at a time was a tenth of a folder scan). */
static uint64_t mix_bytes(uint64_t h, const char *p, size_t n)
{
    const uint64_t k = 0x9E3779B97F4A7C15ull;
    for (; n >= 8; p += 8, n -= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * k;
        h ^= h >> 32;
    }
    uint64_t w = 0;
    memcpy(&w, p, n);
    h = (h ^ w ^ (uint64_t)n << 56) * k;
    return h ^ h >> 29;
}

/* The hash of a global's identity in a file: its pickle (an address), its
 * opcode (static text) and its names. */
static uint64_t global_hash(const char *pickle, const char *op, const char *m, size_t ml,
                            const char *n, size_t nl)
{
    uint64_t h = 1469598103934665603ull ^ (uint64_t)(uintptr_t)pickle ^
                 (uint64_t)(uintptr_t)op << 7;
    return mix_bytes(mix_bytes(h, m, ml), n, nl);
}

/* 1 when text (NUL-terminated) is the n bytes at p. */
static int same_text(const char *text, const char *p, size_t n)
{
    return strncmp(text, p, n) == 0 && text[n] == '\0';
}

/* What tshape knows of a global (module.name as written): its printable
 * names, class and weights_only allowlists; kept by the scan for the
 * files that name it again (the same names in 500 checkpoints are worked
 * out once per thread, not once per file). */
typedef struct known_global {
    const char *raw_module, *raw_name; /* the bytes (NULL: a free slot) */
    size_t module_len, name_len;
    uint64_t h;
    const char *module, *name;         /* printable */
    const char *what;
    ts_scan_class cls;
    int w113, w24;
} known_global;

#define MAX_KNOWN ((size_t)4096)        /* kept per scan (per thread) */
#define MAX_KNOWN_NAME ((size_t)512)    /* module + name bytes kept */

/* The facts of module.name (its bytes), in *out: the scan's, or worked
 * out into *tmp (printable names in m and n, 256 bytes each) and kept
 * while the scan has room. Errors: TS_ERR_NOMEM. */
static ts_status global_facts(ts_scan *s, const char *mod, size_t ml, const char *name,
                              size_t nl, known_global *tmp, char *m, char *n,
                              const known_global **out)
{
    uint64_t h = mix_bytes(mix_bytes((uint64_t)(uintptr_t)s, mod, ml), name, nl);
    size_t mask = s->known_cap - 1;
    for (size_t i = (size_t)h & mask; s->known_cap && s->known[i].raw_module;
         i = (i + 1) & mask) {
        const known_global *k = &s->known[i];
        if (k->h == h && k->module_len == ml && k->name_len == nl &&
            memcmp(k->raw_module, mod, ml) == 0 && memcmp(k->raw_name, name, nl) == 0) {
            *out = k;
            return TS_OK;
        }
    }
    memset(tmp, 0, sizeof *tmp);
    tmp->module = ts__printable(mod, ml, m, 256);
    tmp->name = ts__printable(name, nl, n, 256);
    tmp->cls = ts__global_class(mod, ml, name, nl, &tmp->what);
    tmp->w113 = ts__wo_global(TS__WO_1_13, mod, ml, name, nl);
    tmp->w24 = ts__wo_global(TS__WO_2_4, mod, ml, name, nl);
    *out = tmp;
    if (s->known_n >= MAX_KNOWN || ml + nl > MAX_KNOWN_NAME)
        return TS_OK;
    if (2 * (s->known_n + 1) > s->known_cap) {
        size_t cap = s->known_cap ? 2 * s->known_cap : 64;
        known_global *t = calloc(cap, sizeof *t);
        if (!t)
            return nomem();
        for (size_t i = 0; i < s->known_cap; i++)
            if (s->known[i].raw_module) {
                size_t j = (size_t)s->known[i].h & (cap - 1);
                while (t[j].raw_module)
                    j = (j + 1) & (cap - 1);
                t[j] = s->known[i];
            }
        free(s->known);
        s->known = t;
        s->known_cap = cap;
        mask = cap - 1;
    }
    size_t i = (size_t)h & mask;
    while (s->known[i].raw_module)
        i = (i + 1) & mask;
    known_global k = *tmp;
    k.raw_module = sdup(s, mod, ml);
    k.raw_name = sdup(s, name, nl);
    k.module_len = ml;
    k.name_len = nl;
    k.h = h;
    k.module = sdup(s, m, strlen(m));
    k.name = sdup(s, n, strlen(n));
    if (!k.raw_module || !k.raw_name || !k.module || !k.name)
        return nomem();
    s->known[i] = k;
    s->known_n++;
    *out = &s->known[i];
    return TS_OK;
}

static ts_status record_global(fscan *fs, const ts__pk_event *e)
{
    ts_scan *s = fs->s;
    const char *op = ts__pk_opcode_name(e->op);
    /* named again in this pickle: counted (printable names compare as
     * written; others get a record of their own, harmlessly); first
     * against the last global of its lengths (a state dict names the same
     * two or three globals per tensor: no hash then) */
    size_t *recent = &fs->recent[(e->module_len * 5 + e->name_len) & 15];
    if (*recent) {
        ts_scan_global *g = &s->globals[*recent - 1];
        if (g->pickle == fs->pickle_name && g->opcode == op &&
            same_text(g->module, e->module, e->module_len) &&
            same_text(g->name, e->name, e->name_len)) {
            g->count++;
            return TS_OK;
        }
    }
    uint64_t h = global_hash(fs->pickle_name, op, e->module, e->module_len, e->name,
                             e->name_len);
    size_t slot = 0;
    if (fs->seen_cap) {
        for (slot = (size_t)h & (fs->seen_cap - 1); fs->seen[slot];
             slot = (slot + 1) & (fs->seen_cap - 1)) {
            ts_scan_global *g = &s->globals[fs->seen[slot] - 1];
            if (g->pickle == fs->pickle_name && g->opcode == op &&
                same_text(g->module, e->module, e->module_len) &&
                same_text(g->name, e->name, e->name_len)) {
                g->count++;
                *recent = fs->seen[slot];
                return TS_OK;
            }
        }
    }
    char mbuf[256], nbuf[256];
    known_global tmp;
    const known_global *k;
    ts_status st = global_facts(s, e->module, e->module_len, e->name, e->name_len, &tmp, mbuf,
                                nbuf, &k);
    if (st)
        return st;
    const char *m = k->module, *n = k->name;
    ts_scan_class cls = k->cls;
    int w113 = k->w113, w24 = k->w24;
    if (fs->wo_reads) {
        if (!w113)
            wo_refuse(fs, 0, "%s %s.%s is not on torch 1.13's weights_only allowlist", op, m, n);
        if (w24) {
        } else if (cls == TS_SCAN_DANGEROUS) {
            wo_refuse(fs, 1, "%s %s.%s is dangerous: do not allowlist it", op, m, n);
        } else if (text_is(e->module, e->module_len, "__builtin__")) {
            wo_refuse(fs, 1, "%s %s.%s: torch 2.4 refuses the Python 2 module name even when "
                      "the global is allowlisted", op, m, n);
        } else {
            char full[520];
            snprintf(full, sizeof full, "%s.%s", m, n);
            if ((st = wo_allowlist(fs, full)))
                return st;
        }
    }
    if (rec(fs)->nglobals >= MAX_GLOBALS) {
        fs->more_globals++;
        return TS_OK;
    }
    if (grow((void **)&s->globals, &s->globals_cap, s->nglobals, sizeof *s->globals))
        return nomem();
    ts_scan_global *g = &s->globals[s->nglobals];
    memset(g, 0, sizeof *g);
    g->file = fs->file;
    g->pickle = fs->pickle_name;
    g->offset = (int64_t)e->at;
    g->file_offset = fs->pickle_base >= 0 ? fs->pickle_base + (int64_t)e->at : -1;
    g->opcode = op;
    /* the names of kept facts are the scan's already */
    g->module = k == &tmp ? sdup(s, m, strlen(m)) : m;
    g->name = k == &tmp ? sdup(s, n, strlen(n)) : n;
    g->count = 1;
    g->cls = cls;
    g->what = k->what;
    g->torch_1_13 = w113;
    g->torch_2_4 = w24;
    if (!g->module || !g->name)
        return nomem();
    s->nglobals++;
    rec(fs)->nglobals++;
    /* remembered for the repeats (the table stays at most half full) */
    if (2 * (fs->seen_n + 1) > fs->seen_cap) {
        size_t cap = fs->seen_cap ? fs->seen_cap * 2 : 64;
        size_t *t = calloc(cap, sizeof *t);
        if (!t)
            return nomem();
        free(fs->seen);
        fs->seen = t;
        fs->seen_cap = cap;
        fs->seen_n = 0;
        /* re-entered from the file's records */
        for (size_t i = rec(fs)->first_global; i + 1 < s->nglobals; i++)
            if (s->globals[i].pickle) {
                ts_scan_global *x = &s->globals[i];
                uint64_t xh = global_hash(x->pickle, x->opcode, x->module, strlen(x->module),
                                         x->name, strlen(x->name));
                size_t j = (size_t)xh & (cap - 1);
                while (t[j])
                    j = (j + 1) & (cap - 1);
                t[j] = i + 1;
                fs->seen_n++;
            }
        for (slot = (size_t)h & (cap - 1); t[slot]; slot = (slot + 1) & (cap - 1))
            ;
    }
    fs->seen[slot] = s->nglobals;
    fs->seen_n++;
    *recent = s->nglobals;
    return TS_OK;
}

/* ---- pickles -------------------------------------------------------------- */

static ts_status scan_content(fscan *fs, const unsigned char *d, size_t len, int64_t base,
                              const char *name);

/* Every global is an inert placeholder, but the dict classes, whose items
 * SETITEMS adds (the machine keeps them as dicts). */
static ts__pk_role scan_classify(void *ctx, const char *module, size_t module_len,
                                 const char *name, size_t name_len, int *tag)
{
    (void)ctx;
    *tag = 0;
    if (text_is(module, module_len, "collections") &&
        (text_is(name, name_len, "OrderedDict") || text_is(name, name_len, "Counter") ||
         text_is(name, name_len, "defaultdict")))
        return TS__PK_DICT_TYPE;
    return TS__PK_INERT;
}

/* Bytes that hold a pickle (PROTO first) or a zip: what the loaders a
 * pickle calls (pickle.loads, torch.load of io.BytesIO) would read. */
static int worth_scanning(const unsigned char *p, size_t n)
{
    return n >= 4 && ((p[0] == 0x80 && p[1] <= 5) || memcmp(p, "PK\3\4", 4) == 0);
}

/* Scans nested bytes p[0..n) found at input offset `at` of the current
 * pickle (file offset base, or -1). */
static ts_status scan_nested(fscan *fs, const unsigned char *p, size_t n, int64_t base,
                             size_t at, const char *what)
{
    if (fs->depth >= MAX_NEST)
        return add_finding(fs, TS_SCAN_FINDING_PICKLE, TS_SCAN_UNKNOWN, fs->pickle_name,
                           fs->pickle_base >= 0 ? fs->pickle_base + (int64_t)at : -1,
                           "%s at byte %zu holds a pickle nested more than %d deep: not "
                           "scanned", what, at, MAX_NEST);
    /* the scan of the nested bytes runs with its own state */
    const char *saved_name = fs->pickle_name;
    int64_t saved_base = fs->pickle_base;
    size_t saved_first = fs->pickle_globals;
    int saved_reads = fs->wo_reads;
    const char *saved_container = fs->container;
    char name[512];
    snprintf(name, sizeof name, "%s > %s at byte %zu", saved_name, what, at);
    fs->depth++;
    fs->wo_reads = 0;
    ts_status st = scan_content(fs, p, n, base, name);
    fs->depth--;
    fs->wo_reads = saved_reads;
    fs->pickle_name = saved_name;
    fs->pickle_base = saved_base;
    fs->pickle_globals = saved_first;
    fs->container = saved_container;
    return st;
}

/* The bytes of v when it is bytes that look worth scanning: in the input
 * (*owned 0), or decoded from protocol 2's _codecs.encode(text, 'latin1')
 * into malloc'd memory (*owned 1). */
static const unsigned char *bytes_of(const ts__pk_value *v, size_t *n, int *owned)
{
    *owned = 0;
    if (v->kind == TS__PK_BYTES && worth_scanning(v->u.s.p, v->u.s.n)) {
        *n = v->u.s.n;
        return v->u.s.p;
    }
    if (v->kind != TS__PK_CALL || !global_is(v->func, "_codecs", "encode") || !v->args ||
        v->args->u.seq.n < 1 || v->args->u.seq.v[0]->kind != TS__PK_STR)
        return NULL;
    const ts__pk_value *t = v->args->u.seq.v[0];
    unsigned char *out = malloc(t->u.s.n ? t->u.s.n : 1);
    size_t k = 0;
    if (!out)
        return NULL;
    for (size_t i = 0; i < t->u.s.n;) {
        size_t l = ts__utf8_len(t->u.s.p + i, t->u.s.n - i);
        unsigned cp = l == 1 ? t->u.s.p[i]
                      : l == 2 ? (unsigned)(t->u.s.p[i] & 0x1f) << 6 | (t->u.s.p[i + 1] & 0x3f)
                               : 256;
        if (cp > 255)
            break;
        out[k++] = (unsigned char)cp;
        i += l;
    }
    if (!worth_scanning(out, k)) {
        free(out);
        return NULL;
    }
    *n = k;
    *owned = 1;
    return out;
}

/* Arguments of a call: scan those (and the items of tuple and list
 * arguments) that hold a pickle or a zip. */
static ts_status scan_args(fscan *fs, const ts__pk_value *args, const unsigned char *input)
{
    if (!args || args->kind != TS__PK_TUPLE)
        return TS_OK;
    ts_status st = TS_OK;
    for (size_t i = 0; i < args->u.seq.n && !st; i++) {
        const ts__pk_value *a = args->u.seq.v[i];
        size_t m = a->kind == TS__PK_TUPLE || a->kind == TS__PK_LIST ? a->u.seq.n : 0;
        for (size_t j = 0; j <= m && !st; j++) {
            const ts__pk_value *v = j < m ? a->u.seq.v[j] : a;
            size_t n;
            int owned;
            const unsigned char *p = bytes_of(v, &n, &owned);
            if (!p)
                continue;
            int64_t base = !owned && fs->pickle_base >= 0 && input
                               ? fs->pickle_base + (int64_t)(p - input) : -1;
            st = scan_nested(fs, p, n, base, (size_t)v->offset, "bytes");
            if (owned)
                free((void *)(uintptr_t)p);
        }
    }
    return st;
}

static ts_status scan_observe(void *vfs, ts__pk_event *e, ts_error *err)
{
    /* torch 2.5 (pytorch PR 129251) runs NEWOBJ and BUILD on classes
     * passed to add_safe_globals too */
    static const char *const later[2] = {"", "; torch 2.5 and later also those passed to "
                                             "add_safe_globals"};
    fscan *fs = vfs;
    ts_status st = TS_OK;
    switch (e->kind) {
    case TS__PK_EV_GLOBAL:
        return record_global(fs, e);
    case TS__PK_EV_REDUCE:
        if (e->a->kind != TS__PK_GLOBAL) {
            st = add_finding(fs, TS_SCAN_FINDING_PICKLE, TS_SCAN_UNKNOWN, fs->pickle_name,
                             fs->pickle_base >= 0 ? fs->pickle_base + (int64_t)e->at : -1,
                             "REDUCE at byte %zu calls what another call returned (a %s): "
                             "a chain of calls, not data", e->at,
                             ts__pk_kind_name(e->a->kind));
            if (fs->wo_reads)
                for (int v = 0; v < 2; v++)
                    wo_refuse(fs, v, "REDUCE at byte %zu calls what a call returned", e->at);
        }
        return st ? st : scan_args(fs, e->b, e->data);
    case TS__PK_EV_NEWOBJ:
        if (fs->wo_reads && !(e->op == 0x81 && global_is(e->a, "torch.nn.parameter",
                                                         "Parameter")))
            for (int v = 0; v < 2; v++)
                wo_refuse(fs, v, "%s at byte %zu instantiates a class (the weights_only "
                          "unpickler of %s instantiates only torch.nn.Parameter%s)",
                          ts__pk_opcode_name(e->op), e->at, wo_names[v], later[v]);
        return scan_args(fs, e->b, e->data);
    case TS__PK_EV_BUILD: {
        if (e->a->kind == TS__PK_GLOBAL) {
            char m[160], n[160];
            st = add_finding(fs, TS_SCAN_FINDING_PICKLE, TS_SCAN_DANGEROUS, fs->pickle_name,
                             fs->pickle_base >= 0 ? fs->pickle_base + (int64_t)e->at : -1,
                             "BUILD at byte %zu sets attributes of %s.%s itself (a module, "
                             "class or function): pickle.load would change it for the whole "
                             "program", e->at,
                             ts__printable(e->a->u.g.module, e->a->u.g.module_len, m, sizeof m),
                             ts__printable(e->a->u.g.name, e->a->u.g.name_len, n, sizeof n));
            if (st)
                return st;
        }
        if (fs->wo_reads && !wo_build_ok(e->a))
            for (int v = 0; v < 2; v++)
                wo_refuse(fs, v, "BUILD at byte %zu sets the state of a %s (the weights_only "
                          "unpickler of %s builds only Tensor, Parameter and OrderedDict%s)",
                          e->at, ts__pk_kind_name(e->a->kind), wo_names[v], later[v]);
        int nested;
        if ((st = ts__joblib_build(e, fs->pickle_name, &nested, err)))
            return st;
        if (e->skip || nested)
            fs->joblib = 1;
        if (nested) {
            /* joblib's object array: a pickle of its own follows; scan it
             * and skip it */
            const char *saved = fs->pickle_name;
            int64_t sb = fs->pickle_base;
            size_t sg = fs->pickle_globals;
            char name[512];
            snprintf(name, sizeof name, "%s > object array at byte %zu", saved, e->pos);
            ts__pk_options o;
            memset(&o, 0, sizeof o);
            o.classify = scan_classify;
            o.allow_persid = 1;
            o.observe = scan_observe;
            o.observe_ctx = fs;
            fs->pickle_name = sdup(fs->s, name, strlen(name));
            fs->pickle_base = sb;
            fs->pickle_globals = fs->s->nglobals;
            o.where = fs->pickle_name ? fs->pickle_name : "pickle";
            o.base = sb;
            st = fs->pickle_name ? ts__pk_skip_nested(fs->f, e, &o, err) : nomem();
            fs->pickle_name = saved;
            fs->pickle_globals = sg;
        }
        return st;
    }
    case TS__PK_EV_APPEND:
        /* APPEND(S) only on a list; SETITEM(S) is not checked in 2.4 */
        if (fs->wo_reads && (e->op == 'a' || e->op == 'e') && e->a->kind != TS__PK_LIST)
            for (int v = 0; v < 2; v++)
                wo_refuse(fs, v, "%s at byte %zu adds items to a %s",
                          ts__pk_opcode_name(e->op), e->at, ts__pk_kind_name(e->a->kind));
        return TS_OK;
    case TS__PK_EV_PERSID:
        return TS_OK;
    }
    return TS_OK;
}

/*
 * Runs the pickle at d[start] (d has len bytes; base: the file offset of
 * d[0] or -1) named `name`. *end receives the offset after STOP, *ran the
 * opcodes run. Errors are the machine's (the caller records them).
 */
static ts_status scan_pickle(fscan *fs, const unsigned char *d, size_t len, size_t start,
                             int64_t base, const char *name, size_t *end, uint64_t *ran,
                             ts_error *err)
{
    /* the file's machine, unless this pickle is found while another runs
     * on it (bytes of a call's arguments): then one of its own */
    ts__pk *pk = fs->loading ? NULL : fs->pk;
    ts_status st = pk ? TS_OK : ts__pk_new(&pk, fs->f, err);
    if (st)
        return st;
    if (!fs->loading)
        fs->pk = pk;
    int own = pk != fs->pk;
    uint64_t before = ts__pk_opcodes(pk);
    fs->pickle_name = sdup(fs->s, name, strlen(name));
    if (!fs->pickle_name) {
        if (own)
            ts__pk_free(pk);
        return nomem();
    }
    fs->pickle_base = base;
    fs->pickle_globals = fs->s->nglobals;
    ts__pk_options o;
    memset(&o, 0, sizeof o);
    o.classify = scan_classify;
    o.allow_persid = 1;
    o.where = fs->pickle_name;
    o.base = base;
    o.observe = scan_observe;
    o.observe_ctx = fs;
    /* a pickle of a remote file's own bytes: asked for as the machine reads */
    size_t image_len;
    if (fs->f && base == 0 && d == ts__file_image(fs->f, &image_len) &&
        !ts__source_is_whole(ts__file_source(fs->f)))
        o.src = ts__file_source(fs->f);
    ts__pk_value *v;
    int was = fs->loading;
    fs->loading = 1;
    st = ts__pk_load(pk, d, len, start, &o, &v, end, err);
    fs->loading = was;
    *ran = ts__pk_opcodes(pk) - before;
    fs->npickles++;
    if (fs->wo_reads) {
        /* the opcodes the weights_only unpicklers run */
        for (int ver = 0; ver < 2; ver++)
            for (unsigned op = 0; op < 256; op++)
                if (ts__pk_opcode_seen(pk, (unsigned char)op) &&
                    !ts__wo_opcode((ts__wo_version)ver, (unsigned char)op)) {
                    const char *nm = ts__pk_opcode_name((unsigned char)op);
                    wo_refuse(fs, ver, "opcode %s (0x%02x) is not run by the weights_only "
                              "unpickler of %s%s", nm ? nm : "?", op, wo_names[ver],
                              op == 0x95 || op == 0x8c || op == 0x93 || op == 0x94
                                  ? " (pickle protocol 4 or later)" : "");
                    break;
                }
    }
    if (own)
        ts__pk_free(pk);
    return st;
}

/* A pickle stream: the first pickle, then any that follow back to back
 * (PROTO first), as loaders that call pickle.load again read them. */
static ts_status scan_stream(fscan *fs, const unsigned char *d, size_t len, size_t start,
                             int64_t base, const char *name, int *is_pickle)
{
    ts_error e;
    size_t pos = start, end = 0;
    *is_pickle = 0;
    for (int i = 0; i < MAX_PICKLES && pos < len; i++) {
        char nm[512];
        if (i == 0)
            snprintf(nm, sizeof nm, "%s", name);
        else
            snprintf(nm, sizeof nm, "%s, pickle %d", name, i + 1);
        uint64_t ran = 0;
        ts_status st = scan_pickle(fs, d, len, pos, base, nm, &end, &ran, &e);
        if (st == TS_ERR_NOMEM)
            return st;
        if (st) {
            if (i == 0 && ran <= 1) {
                /* its first byte is no opcode pickle.load would run */
                fs->npickles--;
                return TS_OK;
            }
            file_error(fs, st, &e, NULL);
            *is_pickle = 1;
            return TS_OK;
        }
        *is_pickle = 1;
        pos = end;
        if (pos + 1 >= len || d[pos] != 0x80 || d[pos + 1] > 5)
            break;
    }
    return TS_OK;
}

/* ---- torch legacy ------------------------------------------------------- */

/* The five pickles of a legacy torch.save file; its storages follow. */
static ts_status scan_legacy(fscan *fs, const unsigned char *d, size_t len, int64_t base,
                               const char *name)
{
    static const char *const names[5] = {"magic number pickle", "protocol version pickle",
                                         "sys_info pickle", "object pickle",
                                         "storage key pickle"};
    size_t pos = 0;
    fs->container = "torch.save legacy";
    for (int i = 0; i < 5 && pos < len; i++) {
        ts_error e;
        size_t end = 0;
        uint64_t ran;
        char nm[600];
        if (fs->depth)
            snprintf(nm, sizeof nm, "%s > %s", name, names[i]);
        else
            snprintf(nm, sizeof nm, "%s", names[i]);
        ts_status st = scan_pickle(fs, d, len, pos, base, nm, &end, &ran, &e);
        if (st == TS_ERR_NOMEM)
            return st;
        if (st) {
            file_error(fs, st, &e, NULL);
            break;
        }
        pos = end;
    }
    return TS_OK;
}

/* The tar container of torch's first releases (members sys_info, pickle,
 * storages, tensors: pickles, then raw bytes): torch.load unpickles them;
 * each member is scanned as a stream of pickles. */
static ts_status scan_tar(fscan *fs, const unsigned char *d, size_t len, int64_t base)
{
    fs->container = "torch.save tar";
    size_t pos = 0;
    for (int k = 0; k < 10000 && len - pos >= 512 && d[pos]; k++) {
        char name[101];
        memcpy(name, d + pos, 100);
        name[100] = '\0';
        uint64_t size = 0;
        for (int i = 124; i < 136 && d[pos + (size_t)i] >= '0' && d[pos + (size_t)i] <= '7'; i++)
            size = size * 8 + (uint64_t)(d[pos + (size_t)i] - '0');
        size_t at = pos + 512;
        if (size > len - at) {
            ts_error e;
            ts__error(&e, TS_ERR_TRUNCATED, "tar member %s of %llu bytes runs past the end of "
                      "the file", name, (unsigned long long)size);
            file_error(fs, TS_ERR_TRUNCATED, &e, NULL);
            return TS_OK;
        }
        if (size && (d[pos + 156] == '0' || d[pos + 156] == 0)) {
            int saved = fs->wo_reads, is_pickle;
            fs->wo_reads = fs->depth == 0 && (!strcmp(name, "pickle") ||
                                              !strcmp(name, "sys_info"));
            ts_status st = scan_stream(fs, d + at, (size_t)size, 0,
                                       base >= 0 ? base + (int64_t)at : -1, name, &is_pickle);
            fs->wo_reads = saved;
            if (st)
                return st;
        }
        pos = at + (size_t)((size + 511) / 512 * 512);
        if (pos > len)
            break;
    }
    return TS_OK;
}

/* ---- zip archives ------------------------------------------------------- */

typedef struct member_job {
    fscan *fs;
    const ts__zip_member *m;
    int64_t base_shift;      /* file offset of the archive's byte 0, or -1 */
    int npy;                 /* an npz member: header, then an object
                                array's pickle */
    /* what to restore before another try */
    size_t nglobals, nfindings, file_globals, file_findings, npickles, safe_len;
    wo_state wo[2];
    int is_pickle;
} member_job;

static void job_snapshot(member_job *j)
{
    fscan *fs = j->fs;
    j->nglobals = fs->s->nglobals;
    j->nfindings = fs->s->nfindings;
    j->file_globals = rec(fs)->nglobals;
    j->file_findings = rec(fs)->nfindings;
    j->npickles = fs->npickles;
    j->safe_len = fs->safe_len;
    memcpy(j->wo, fs->wo, sizeof j->wo);
}

static void job_restore(member_job *j)
{
    fscan *fs = j->fs;
    fs->s->nglobals = j->nglobals;
    fs->s->nfindings = j->nfindings;
    rec(fs)->nglobals = j->file_globals;
    rec(fs)->nfindings = j->file_findings;
    fs->npickles = j->npickles;
    fs->safe_len = j->safe_len;
    if (fs->seen_cap) /* it may name records of the try being undone */
        memset(fs->seen, 0, fs->seen_cap * sizeof *fs->seen);
    fs->seen_n = 0;
    if (fs->safe)
        fs->safe[fs->safe_len] = '\0';
    memcpy(fs->wo, j->wo, sizeof j->wo);
}

/* One try on the first n bytes of a member (ts__zip_read_growing): its
 * records are those of the last try only. */
static ts_status try_member(void *arg, const unsigned char *buf, size_t n, int64_t base,
                            ts_error *err)
{
    member_job *j = arg;
    fscan *fs = j->fs;
    job_restore(j);
    int64_t b = base >= 0 && j->base_shift >= 0 ? j->base_shift + base : -1;
    size_t start = 0;
    if (j->npy) {
        ts__npy_prelude pre;
        ts_status st = ts__npy_read_prelude(buf, n, (int64_t)j->m->size, 0, "member", &pre,
                                            err);
        if (st == TS_ERR_TRUNCATED && n < j->m->size)
            return st;
        ts_array *a = st ? NULL : ts__file_add_array(fs->f, err);
        if (!st && !a)
            st = ts__file_add_failure(fs->f);
        if (!st && (uint64_t)pre.data_start > n)
            return n < j->m->size ? TS_ERR_TRUNCATED : ts__error(err, TS_ERR_TRUNCATED,
                                                                 "the .npy header is cut");
        if (!st)
            st = ts__npy_parse_header(fs->f, a, &pre, buf + pre.dict_start, err);
        if (st) {
            ts__error_prefix(err, "%s", j->m->name);
            return st;
        }
        if (a->dtype != TS_DTYPE_OBJECT)
            return TS_OK;
        start = (size_t)pre.data_start;
    }
    char name[600], shown[200];
    snprintf(name, sizeof name, "%s%s", ts__printable_str(j->m->name, shown, sizeof shown),
             j->npy ? " (object array)" : "");
    size_t end;
    uint64_t ran;
    ts_status st = scan_pickle(fs, buf, n, start, b, name, &end, &ran, err);
    j->is_pickle = !(st && ran <= 1 && !j->npy);
    if (st == TS_ERR_TRUNCATED && n < j->m->size)
        return st;
    if (st && !j->is_pickle) {
        fs->npickles--;
        return TS_OK;
    }
    if (!st && n == j->m->size) {
        /* the CRC-32 torch.load does not check, Python's zipfile does */
        uint32_t crc = (uint32_t)crc32(0L, Z_NULL, 0);
        for (size_t k = 0; k < n;) {
            uInt step = n - k > (1u << 30) ? (1u << 30) : (uInt)(n - k);
            crc = (uint32_t)crc32(crc, buf + k, step);
            k += step;
        }
        if (crc != j->m->crc32)
            st = add_finding(fs, TS_SCAN_FINDING_ZIP, TS_SCAN_UNKNOWN, shown,
                             j->base_shift >= 0 ? j->base_shift + j->m->local_offset : -1,
                             "member %s has CRC-32 0x%08x, the central directory says 0x%08x: "
                             "Python's zipfile (and scanners built on it) refuse the member, "
                             "torch.load does not check it", shown, crc, j->m->crc32);
    }
    return st;
}

static ts_status scan_member(fscan *fs, const ts__zip *z, size_t i, int64_t shift, int npy,
                             int reads)
{
    const ts__zip_member *m = ts__zip_member_at(z, i);
    if (m->size > MAX_PICKLE_BYTES) {
        ts_error e;
        char shown[200];
        ts__error(&e, TS_ERR_LIMIT, "%s is %llu bytes, more than tshape's limit of 1 GiB "
                  "for a pickle", ts__printable_str(m->name, shown, sizeof shown),
                  (unsigned long long)m->size);
        file_error(fs, TS_ERR_LIMIT, &e, NULL);
        return TS_OK;
    }
    member_job j;
    memset(&j, 0, sizeof j);
    j.fs = fs;
    j.m = m;
    j.base_shift = shift;
    j.npy = npy;
    int saved = fs->wo_reads;
    fs->wo_reads = reads;
    job_snapshot(&j);
    unsigned char *buf = NULL;
    ts_error e;
    ts_status st = ts__zip_read_growing(z, i, fs->f, npy ? NPY_FIRST : FIRST_BYTES,
                                        try_member, &j, &buf, &e);
    fs->wo_reads = saved;
    ts__scratch_free(fs->f, buf);
    if (st == TS_ERR_NOMEM)
        return st;
    if (st)
        file_error(fs, st, &e, NULL);
    return TS_OK;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* The bytes of a small member (a config), whole, in malloc'd memory. */
static unsigned char *member_bytes(const ts__zip *z, size_t i, size_t *n, ts_error *e)
{
    const ts__zip_member *m = ts__zip_member_at(z, i);
    if (m->size > MAX_JSON) {
        char shown[200];
        ts__error(e, TS_ERR_LIMIT, "%s is %llu bytes, more than tshape's limit of 64 MiB for a "
                  "config", ts__printable_str(m->name, shown, sizeof shown),
                  (unsigned long long)m->size);
        return NULL;
    }
    unsigned char *p = malloc((size_t)m->size + 1);
    if (!p) {
        ts__error(e, TS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (ts__zip_read(z, i, p, (size_t)m->size, n, e) != TS_OK) {
        free(p);
        return NULL;
    }
    p[*n] = '\0';
    return p;
}

static ts_status scan_keras_json(fscan *fs, const char *text, size_t n, const char *where);

static int cmp_names(const void *a, const void *b)
{
    const ts__zip_member *const *x = a, *const *y = b;
    return strcmp((*x)->name, (*y)->name);
}

/* Differentials: what Python's zipfile reads differently from torch's
 * reader (miniz, by the central directory, flags and CRC ignored). */
static ts_status zip_differentials(fscan *fs, const ts__zip *z, const unsigned char *d,
                                   size_t len, int64_t shift)
{
    size_t n = ts__zip_count(z);
    ts_status st = TS_OK;
    for (size_t i = 0; i < n && !st; i++) {
        const ts__zip_member *m = ts__zip_member_at(z, i);
        int64_t off = shift >= 0 ? shift + m->local_offset : -1;
        char nm[200];
        ts__printable_str(m->name, nm, sizeof nm);
        size_t lo = (size_t)m->local_offset;
        if (shift >= 0 && (st = ts__file_need(fs->f, (uint64_t)shift + lo, 30, NULL)))
            break;
        size_t ln = ts__le16(d + lo + 26);
        if (shift >= 0 && (st = ts__file_need(fs->f, (uint64_t)shift + lo + 30, ln, NULL)))
            break;
        int lflags = ts__le16(d + lo + 6);
        size_t cn = strlen(m->name);
        if (lo + 30 + ln > len || ln != cn || memcmp(d + lo + 30, m->name, cn) != 0) {
            char shown[200];
            size_t k = lo + 30 <= len ? (len - lo - 30 < ln ? len - lo - 30 : ln) : 0;
            st = add_finding(fs, TS_SCAN_FINDING_ZIP, TS_SCAN_UNKNOWN, nm, off,
                             "member %s is named '%s' in its local header: Python's zipfile "
                             "refuses the member, torch.load reads it by the central "
                             "directory's name", nm,
                             ts__printable((const char *)d + lo + 30, k, shown, sizeof shown));
        }
        int odd = (m->flags | lflags) & ~0x0808;
        if (!st && odd)
            st = add_finding(fs, TS_SCAN_FINDING_ZIP, TS_SCAN_UNKNOWN, nm, off,
                             "member %s has general-purpose flags 0x%04x (central) and 0x%04x "
                             "(local)%s: Python's zipfile (and scanners built on it) refuse "
                             "or misread it, torch.load ignores the flags", nm, m->flags,
                             lflags, (m->flags | lflags) & 1 ? ", the encryption bit set" : "");
        if (!st && !(lflags & 8) && ts__le32(d + lo + 14) != m->crc32)
            st = add_finding(fs, TS_SCAN_FINDING_ZIP, TS_SCAN_UNKNOWN, nm, off,
                             "member %s has CRC-32 0x%08x in its local header, 0x%08x in the "
                             "central directory: readers disagree", nm,
                             ts__le32(d + lo + 14), m->crc32);
    }
    /* duplicate names */
    const ts__zip_member **v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return nomem();
    for (size_t i = 0; i < n; i++)
        v[i] = ts__zip_member_at(z, i);
    qsort(v, n, sizeof *v, cmp_names);
    for (size_t i = 1; i < n && !st; i++) {
        char nm[200];
        if (strcmp(v[i]->name, v[i - 1]->name) == 0 &&
            (i < 2 || strcmp(v[i]->name, v[i - 2]->name)))
            st = add_finding(fs, TS_SCAN_FINDING_ZIP, TS_SCAN_UNKNOWN,
                             ts__printable_str(v[i]->name, nm, sizeof nm),
                             shift >= 0 ? shift + v[i]->local_offset : -1,
                             "two members are named %s: readers disagree on which one they "
                             "read; tshape scans both", nm);
    }
    free(v);
    return st;
}

/* Folder of member m ("" when at the root), into buf. */
static const char *folder_of(const char *name, char *buf, size_t cap)
{
    const char *slash = strchr(name, '/');
    size_t k = slash ? (size_t)(slash - name) : 0;
    if (k >= cap)
        k = cap - 1;
    memcpy(buf, name, k);
    buf[k] = '\0';
    return buf;
}

/* Text of JSON or zip names for messages (one line, bounded). */
static const char *shown(const char *s, char *buf, size_t cap)
{
    return s ? ts__printable_str(s, buf, cap) : NULL;
}

static ts_status scan_zip(fscan *fs, const unsigned char *d, size_t len, int64_t shift)
{
    ts__zip *z;
    ts_error e;
    ts_status st = ts__zip_open(&z, fs->f, d, len, &e);
    if (st) {
        fs->container = "zip";
        if (st == TS_ERR_NOMEM)
            return st;
        file_error(fs, st, &e, NULL);
        return TS_OK;
    }
    size_t n = ts__zip_count(z);
    /* torch takes its folder from the first member */
    char folder[512] = "", want[600], other[512] = "";
    const ts__zip_member *first = n ? ts__zip_member_at(z, 0) : NULL;
    if (first)
        folder_of(first->name, folder, sizeof folder);
    snprintf(want, sizeof want, "%s/data.pkl", folder);
    long reads = -1, constants = -1, keras = -1, npy = 0, pkl_folders = 0;
    for (size_t i = 0; i < n; i++) {
        const char *nm = ts__zip_member_at(z, i)->name;
        const char *slash = strchr(nm, '/');
        if (strcmp(nm, want) == 0 && reads < 0 && folder[0])
            reads = (long)i;
        if (slash && strcmp(slash, "/data.pkl") == 0 && !strchr(slash + 1, '/')) {
            char f2[512];
            folder_of(nm, f2, sizeof f2);
            if (strcmp(f2, folder) != 0 && !other[0]) {
                snprintf(other, sizeof other, "%s", f2);
                pkl_folders++;
            }
        }
        if (slash && folder[0] && strncmp(nm, folder, strlen(folder)) == 0 &&
            strcmp(slash, "/constants.pkl") == 0)
            constants = (long)i;
        if (strcmp(nm, "config.json") == 0)
            keras = (long)i;
        npy += ends_with(nm, ".npy");
    }
    int torch = reads >= 0;
    fs->container = torch ? (constants >= 0 ? "TorchScript" : "torch.save zip")
                    : keras >= 0 ? "keras" : npy && (size_t)npy == n ? "npz" : "zip";
    if (fs->depth == 0 && torch) {
        if (constants >= 0) {
            for (int v = 0; v < 2; v++) {
                fs->wo[v].verdict = TS_SCAN_WO_JIT;
                snprintf(fs->wo[v].why, sizeof fs->wo[v].why, "torch.load hands a TorchScript "
                         "archive to torch.jit.load, which weights_only does not restrict "
                         "before torch 2.6 (CVE-2025-32434)");
            }
            st = add_finding(fs, TS_SCAN_FINDING_NOTE, TS_SCAN_NONE, NULL, -1,
                             "a TorchScript archive: torch.load hands it to torch.jit.load, "
                             "which compiles its code/ (TorchScript, not Python) and runs the "
                             "pickles with its own unpickler; weights_only=True does not apply "
                             "before torch 2.6 (CVE-2025-32434)");
        } else {
            fs->wo[0].verdict = fs->wo[1].verdict = TS_SCAN_WO_ACCEPTED;
        }
    } else if (fs->depth == 0) {
        for (int v = 0; v < 2; v++) {
            fs->wo[v].verdict = TS_SCAN_WO_REFUSED;
            snprintf(fs->wo[v].why, sizeof fs->wo[v].why, "a zip without <folder>/data.pkl "
                     "in the folder of its first member: torch.load refuses it");
        }
    }
    if (!st)
        st = zip_differentials(fs, z, d, len, shift);
    char s1[200], s2[200], s3[200];
    if (!st && pkl_folders)
        st = add_finding(fs, TS_SCAN_FINDING_ZIP, TS_SCAN_UNKNOWN, shown(other, s2, sizeof s2),
                         -1, "data.pkl in two folders, %s/ and %s/: torch.load reads %s "
                         "(the folder of the first member); tshape scans both",
                         folder[0] ? shown(folder, s1, sizeof s1) : "(none)", s2,
                         torch ? shown(want, s3, sizeof s3) : "neither");
    for (size_t i = 0; i < n && !st; i++) {
        const ts__zip_member *m = ts__zip_member_at(z, i);
        if (ends_with(m->name, ".pkl") || ends_with(m->name, ".debug_pkl") ||
            ends_with(m->name, ".pickle"))
            st = scan_member(fs, z, i, shift, 0, (long)i == reads && constants < 0);
        else if (ends_with(m->name, ".npy"))
            st = scan_member(fs, z, i, shift, 1, 0);
        else if ((long)i == keras) {
            size_t got;
            unsigned char *text = member_bytes(z, i, &got, &e);
            if (!text) {
                file_error(fs, e.code, &e, NULL);
                continue;
            }
            char where[200];
            st = scan_keras_json(fs, (const char *)text, got, shown(m->name, where, sizeof where));
            free(text);
        }
    }
    ts__zip_close(fs->f, z);
    return st;
}

/* ---- .npy ----------------------------------------------------------------- */

static ts_status scan_npy(fscan *fs, const unsigned char *d, size_t len, int64_t base,
                          const char *name)
{
    ts__npy_prelude pre;
    ts_error e;
    fs->container = "npy";
    ts_status st = ts__npy_read_prelude(d, len, (int64_t)len, 0, "file", &pre, &e);
    ts_array *a = st ? NULL : ts__file_add_array(fs->f, &e);
    if (!st && !a)
        st = ts__file_add_failure(fs->f);
    if (!st)
        st = ts__npy_parse_header(fs->f, a, &pre, d + pre.dict_start, &e);
    if (st == TS_ERR_NOMEM)
        return st;
    if (st) {
        file_error(fs, st, &e, NULL);
        return TS_OK;
    }
    if (a->dtype != TS_DTYPE_OBJECT)
        return TS_OK;
    char nm[512];
    snprintf(nm, sizeof nm, "%s (object array)", name);
    size_t end;
    uint64_t ran;
    st = scan_pickle(fs, d, len, (size_t)pre.data_start, base, nm, &end, &ran, &e);
    if (st && st != TS_ERR_NOMEM)
        file_error(fs, st, &e, NULL);
    return st == TS_ERR_NOMEM ? st : TS_OK;
}

/* ---- compressed streams (joblib's zlib and gzip) -------------------------- */

typedef struct inflated {
    unsigned char *p;
    size_t n;
} inflated;

/* Inflates up to `want` bytes of a zlib (wbits 15) or gzip (31) stream. */
static ts_status inflate_some(const unsigned char *d, size_t len, int wbits, size_t want,
                              inflated *out, ts_error *err)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    out->p = malloc(want ? want : 1);
    out->n = 0;
    if (!out->p || inflateInit2(&zs, wbits) != Z_OK) {
        free(out->p);
        out->p = NULL;
        return ts__error(err, TS_ERR_NOMEM, "out of memory to inflate");
    }
    ts_status st = TS_OK;
    size_t in = 0;
    while (out->n < want) {
        if (zs.avail_in == 0 && in < len) {
            uInt step = len - in > (1u << 30) ? (1u << 30) : (uInt)(len - in);
            zs.next_in = (Bytef *)(uintptr_t)(d + in);
            zs.avail_in = step;
            in += step;
        }
        size_t room = want - out->n;
        zs.next_out = out->p + out->n;
        zs.avail_out = room > (1u << 30) ? (1u << 30) : (uInt)room;
        int rc = inflate(&zs, Z_NO_FLUSH);
        out->n = (size_t)(zs.next_out - out->p);
        if (rc == Z_STREAM_END)
            break;
        if (rc == Z_BUF_ERROR && zs.avail_in == 0 && in == len)
            break; /* the stream is cut: what there is */
        if (rc != Z_OK && rc != Z_BUF_ERROR) {
            st = ts__error(err, TS_ERR_FORMAT, "corrupt %s stream: %s",
                           wbits > 15 ? "gzip" : "zlib", zs.msg ? zs.msg : "zlib error");
            break;
        }
    }
    inflateEnd(&zs);
    return st;
}

static ts_status scan_compressed(fscan *fs, const unsigned char *d, size_t len, int wbits,
                                 const char *name)
{
    fs->container = wbits > 15 ? "gzip" : "zlib";
    size_t want = FIRST_BYTES;
    for (;;) {
        inflated in;
        ts_error e;
        ts_status st = inflate_some(d, len, wbits, want, &in, &e);
        if (st) {
            free(in.p);
            if (st == TS_ERR_NOMEM)
                return st;
            file_error(fs, st, &e, name);
            return TS_OK;
        }
        /* the content: a pickle as joblib writes it; retried on more bytes
         * when the machine runs out of them */
        size_t g = fs->s->nglobals, fi = fs->s->nfindings, rg = rec(fs)->nglobals,
               rf = rec(fs)->nfindings, np = fs->npickles;
        ts_status saved = fs->status;
        int is_pickle = 0;
        char nm[512];
        snprintf(nm, sizeof nm, "%s (inflated)", name);
        st = scan_stream(fs, in.p, in.n, 0, -1, nm, &is_pickle);
        int again = fs->status == TS_ERR_TRUNCATED && in.n == want &&
                    (uint64_t)want < MAX_PICKLE_BYTES;
        free(in.p);
        if (st)
            return st;
        if (!again) {
            if (is_pickle && fs->depth == 0)
                fs->container = fs->joblib ? "joblib" : wbits > 15 ? "gzip pickle" : "zlib pickle";
            return TS_OK;
        }
        fs->s->nglobals = g;
        fs->s->nfindings = fi;
        if (fs->seen_cap)
            memset(fs->seen, 0, fs->seen_cap * sizeof *fs->seen);
        fs->seen_n = 0;
        rec(fs)->nglobals = rg;
        rec(fs)->nfindings = rf;
        fs->npickles = np;
        fs->status = saved;
        want *= 4;
    }
}

/* ---- Keras ---------------------------------------------------------------- */

/* Keras 2 layer classes (keras/layers/__init__.py) and the other classes a
 * Keras 2 model_config names. A layer class not listed is a custom object. */
static const char *const keras_classes[] = {
    "InputLayer", "Dense", "Activation", "Dropout", "Flatten", "Reshape", "Permute",
    "RepeatVector", "Lambda", "ActivityRegularization", "Masking", "SpatialDropout1D",
    "SpatialDropout2D", "SpatialDropout3D", "Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose",
    "Conv2DTranspose", "Conv3DTranspose", "SeparableConv1D", "SeparableConv2D",
    "DepthwiseConv1D", "DepthwiseConv2D", "Cropping1D", "Cropping2D", "Cropping3D",
    "UpSampling1D", "UpSampling2D", "UpSampling3D", "ZeroPadding1D", "ZeroPadding2D",
    "ZeroPadding3D", "MaxPooling1D", "MaxPooling2D", "MaxPooling3D", "AveragePooling1D",
    "AveragePooling2D", "AveragePooling3D", "GlobalMaxPooling1D", "GlobalMaxPooling2D",
    "GlobalMaxPooling3D", "GlobalAveragePooling1D", "GlobalAveragePooling2D",
    "GlobalAveragePooling3D", "MaxPool1D", "MaxPool2D", "MaxPool3D", "AvgPool1D", "AvgPool2D",
    "AvgPool3D", "GlobalMaxPool1D", "GlobalMaxPool2D", "GlobalAvgPool1D", "GlobalAvgPool2D",
    "LocallyConnected1D", "LocallyConnected2D", "SimpleRNN", "GRU", "LSTM", "SimpleRNNCell",
    "GRUCell", "LSTMCell", "StackedRNNCells", "RNN", "Bidirectional", "TimeDistributed",
    "ConvLSTM1D", "ConvLSTM2D", "ConvLSTM3D", "CuDNNGRU", "CuDNNLSTM", "Embedding", "Add",
    "Subtract", "Multiply", "Average", "Maximum", "Minimum", "Concatenate", "Dot",
    "BatchNormalization", "LayerNormalization", "GroupNormalization", "UnitNormalization",
    "Normalization", "GaussianNoise", "GaussianDropout", "AlphaDropout", "LeakyReLU", "PReLU",
    "ELU", "ThresholdedReLU", "Softmax", "ReLU", "Attention", "AdditiveAttention",
    "MultiHeadAttention", "TFOpLambda", "SlicingOpLambda", "Rescaling", "Resizing",
    "CenterCrop", "RandomFlip", "RandomRotation", "RandomZoom", "RandomTranslation",
    "RandomContrast", "RandomCrop", "TextVectorization", "StringLookup", "IntegerLookup",
    "CategoryEncoding", "Hashing", "Discretization", "Sequential", "Functional", "Model",
    "TFOpLambda", "Identity", "EinsumDense", "Cropping", "Wrapper", "InputSpec",
};

static int keras_builtin(const char *name)
{
    for (size_t i = 0; i < sizeof keras_classes / sizeof *keras_classes; i++)
        if (strcmp(name, keras_classes[i]) == 0)
            return 1;
    return 0;
}

static const char *jstr(const json_t *o, const char *key)
{
    json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
    return json_is_string(v) ? json_string_value(v) : NULL;
}

typedef struct kwalk {
    fscan *fs;
    const char *where;
    size_t nodes;
} kwalk;

static ts_status keras_object(kwalk *w, json_t *o, int in_layers)
{
    fscan *fs = w->fs;
    const char *cls = jstr(o, "class_name"), *module = jstr(o, "module");
    json_t *config = json_object_get(o, "config");
    const char *lname = jstr(config, "name");
    char who[400], c1[160], c2[160], mod[160];
    snprintf(who, sizeof who, "%s%s%s%s", cls ? shown(cls, c1, sizeof c1) : "object",
             lname ? " '" : "", lname ? shown(lname, c2, sizeof c2) : "", lname ? "'" : "");
    if (module)
        shown(module, mod, sizeof mod);
    if (cls && (strcmp(cls, "Lambda") == 0 || strcmp(cls, "__lambda__") == 0)) {
        json_t *fn = strcmp(cls, "Lambda") == 0 ? json_object_get(config, "function") : o;
        const char *fmod = jstr(fn, "module"), *fname = json_is_object(fn)
                                                          ? jstr(fn, "config") : NULL;
        if (json_is_object(fn) && fmod && fname && !jstr(json_object_get(fn, "config"), "code")) {
            const char *what;
            ts_scan_class c = ts__global_class(fmod, strlen(fmod), fname, strlen(fname), &what);
            return add_finding(fs, TS_SCAN_FINDING_KERAS, c == TS_SCAN_DANGEROUS ? c
                               : TS_SCAN_UNKNOWN, w->where, -1,
                               "Keras layer %s calls %s.%s, which Keras imports when it loads "
                               "the model%s%s", who, shown(fmod, c1, sizeof c1),
                               shown(fname, c2, sizeof c2),
                               c == TS_SCAN_DANGEROUS ? ": it would " : "",
                               c == TS_SCAN_DANGEROUS ? what : "");
        }
        return add_finding(fs, TS_SCAN_FINDING_KERAS, TS_SCAN_DANGEROUS, w->where, -1,
                           "Keras layer %s holds marshalled Python bytecode, which Keras runs "
                           "when it loads the model (Keras 2 always, Keras 3 with "
                           "safe_mode=False)", who);
    }
    if (cls && module && strncmp(module, "keras", 5) != 0 && strcmp(module, "builtins") != 0)
        return add_finding(fs, TS_SCAN_FINDING_KERAS, TS_SCAN_UNKNOWN, w->where, -1,
                           "Keras custom object %s of module %s: Keras imports it when it "
                           "loads the model", who, mod);
    const char *reg = jstr(o, "registered_name");
    if (cls && reg && strchr(reg, '>'))
        return add_finding(fs, TS_SCAN_FINDING_KERAS, TS_SCAN_UNKNOWN, w->where, -1,
                           "Keras custom object %s registered as %s: the loader needs its "
                           "code", who, shown(reg, c1, sizeof c1));
    if (cls && in_layers && !module && !keras_builtin(cls))
        return add_finding(fs, TS_SCAN_FINDING_KERAS, TS_SCAN_UNKNOWN, w->where, -1,
                           "Keras custom layer %s: not a Keras layer; the loader needs its "
                           "code (custom_objects)", who);
    return TS_OK;
}

static ts_status keras_walk(kwalk *w, json_t *v, int depth, int in_layers)
{
    if (depth > MAX_JSON_DEPTH || ++w->nodes > 10000000)
        return TS_OK;
    ts_status st = TS_OK;
    if (json_is_object(v)) {
        if (json_object_get(v, "class_name") && (st = keras_object(w, v, in_layers)))
            return st;
        const char *key;
        json_t *x;
        json_object_foreach(v, key, x) {
            if ((st = keras_walk(w, x, depth + 1, strcmp(key, "layers") == 0)))
                return st;
        }
    } else if (json_is_array(v)) {
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x) {
            if ((st = keras_walk(w, x, depth + 1, in_layers)))
                return st;
        }
    }
    return st;
}

static ts_status scan_keras_json(fscan *fs, const char *text, size_t n, const char *where)
{
    json_error_t je;
    json_t *root = json_loadb(text, n, JSON_DECODE_ANY, &je);
    if (!root) {
        ts_error e;
        ts__error(&e, TS_ERR_FORMAT, "%s is not JSON: %s (line %d)", where, je.text, je.line);
        file_error(fs, TS_ERR_FORMAT, &e, NULL);
        return TS_OK;
    }
    kwalk w = {fs, where, 0};
    ts_status st = keras_walk(&w, root, 0, 0);
    json_decref(root);
    return st;
}

/* An HDF5 file: a Keras .h5 model holds its model_config (JSON) as an
 * attribute, read through hdf5.c (libhdf5). */
/* libhdf5 (serial) must be called from one thread at a time. */
static pthread_mutex_t hdf5_lock = PTHREAD_MUTEX_INITIALIZER;

static ts_status scan_hdf5_locked(fscan *fs, const char *path, const unsigned char *d,
                                  size_t len);

static ts_status scan_hdf5(fscan *fs, const char *path, const unsigned char *d, size_t len)
{
    pthread_mutex_lock(&hdf5_lock);
    ts_status st = scan_hdf5_locked(fs, path, d, len);
    pthread_mutex_unlock(&hdf5_lock);
    return st;
}

static ts_status scan_hdf5_locked(fscan *fs, const char *path, const unsigned char *d,
                                  size_t len)
{
    fs->container = "hdf5";
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.format = TS_FORMAT_HDF5;
    o.want_metadata = 1;
    ts_file *h;
    ts_error e;
    ts_status st = path ? ts_file_open(path, &o, &h, &e) : ts_file_open_memory(d, len, &o, &h, &e);
    if (st) {
        if (st == TS_ERR_NOMEM)
            return st;
        file_error(fs, st, &e, NULL);
        return TS_OK;
    }
    for (size_t i = 0; i < ts_file_metadata_count(h) && !st; i++) {
        const char *key, *value;
        if (!ts_file_metadata(h, i, &key, &value) || strcmp(key, "model_config") != 0 || !value)
            continue;
        fs->container = "keras";
        /* the attribute is a JSON string holding the config */
        json_error_t je;
        json_t *s = json_loads(value, JSON_DECODE_ANY, &je);
        if (json_is_string(s))
            st = scan_keras_json(fs, json_string_value(s), json_string_length(s),
                                 "model_config");
        json_decref(s);
    }
    ts_file_close(h);
    return st;
}

/* ---- dispatch --------------------------------------------------------------- */

static int hdf5_at(const unsigned char *d, size_t len)
{
    static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    for (size_t at = 0; at + 8 <= len; at = at ? at * 2 : 512)
        if (memcmp(d + at, sig, 8) == 0)
            return 1;
    return 0;
}

static ts_status scan_content(fscan *fs, const unsigned char *d, size_t len, int64_t base,
                              const char *name)
{
    if (len >= 4 && (memcmp(d, "PK\3\4", 4) == 0 || memcmp(d, "PK\5\6", 4) == 0))
        return scan_zip(fs, d, len, base);
    /* The kinds read here whole (a remote file: asked for whole, within
     * the fetch budget); zips and pickles ask for what they read. */
    int whole = fs->depth == 0 && fs->f && base == 0 &&
                !ts__source_is_whole(ts__file_source(fs->f)) &&
                !ts__torch_legacy_magic(d, len) && !(len >= 1 && d[0] == 0x80);
    if (whole) {
        ts_error e;
        ts_status st = ts__file_need(fs->f, 0, len, &e);
        if (st) {
            file_error(fs, st, &e, NULL);
            return st == TS_ERR_NOMEM ? st : TS_OK;
        }
    }
    if (ts__npy_has_magic(d, len))
        return scan_npy(fs, d, len, base, name);
    if (ts__torch_legacy_magic(d, len)) {
        int saved = fs->wo_reads;
        if (fs->depth == 0) {
            fs->wo[0].verdict = fs->wo[1].verdict = TS_SCAN_WO_ACCEPTED;
            fs->wo_reads = 1;
        }
        ts_status st = scan_legacy(fs, d, len, base, name);
        fs->wo_reads = saved;
        return st;
    }
    if (len > 262 && memcmp(d + 257, "ustar", 5) == 0) {
        if (fs->depth == 0)
            fs->wo[0].verdict = fs->wo[1].verdict = TS_SCAN_WO_ACCEPTED;
        return scan_tar(fs, d, len, base);
    }
    if (len >= 2 && d[0] == 0x1f && d[1] == 0x8b)
        return scan_compressed(fs, d, len, 31, name);
    if (len >= 2 && d[0] == 0x78 && (d[0] * 256 + d[1]) % 31 == 0)
        return scan_compressed(fs, d, len, 15, name);
    static const struct {
        const char *magic;
        size_t n;
        const char *what;
    } packed[] = {{"BZh", 3, "bzip2"}, {"\xfd" "7zXZ\0", 6, "xz"}, {"\x04\x22\x4d\x18", 4, "lz4"},
                  {"\x5d\0\0", 3, "lzma"}};
    for (size_t i = 0; i < sizeof packed / sizeof *packed; i++)
        if (len >= packed[i].n && memcmp(d, packed[i].magic, packed[i].n) == 0) {
            ts_error e;
            fs->container = packed[i].what;
            ts__error(&e, TS_ERR_UNSUPPORTED, "compressed with %s, which tshape cannot read: "
                      "joblib.load would decompress it and run its pickle", packed[i].what);
            file_error(fs, TS_ERR_UNSUPPORTED, &e, NULL);
            return TS_OK;
        }
    if (fs->depth == 0 && hdf5_at(d, len))
        return scan_hdf5(fs, fs->memory ? NULL : rec(fs)->path, d, len);
    ts_format fmt = ts_format_detect(d, len);
    if (fmt != TS_FORMAT_AUTO && fmt != TS_FORMAT_PICKLE && fmt != TS_FORMAT_PYTORCH) {
        fs->container = ts_format_name(fmt);
        return TS_OK;
    }
    /* a pickle of any protocol, as pickle.load and torch.load read it */
    int is_pickle = 0;
    const char *saved = fs->container;
    ts_status st = scan_stream(fs, d, len, 0, base, name, &is_pickle);
    if (st || !is_pickle) {
        fs->container = saved;
        return st;
    }
    fs->container = fs->joblib ? "joblib" : "pickle";
    if (fs->depth == 0)
        for (int v = 0; v < 2; v++) {
            fs->wo[v].verdict = TS_SCAN_WO_REFUSED;
            snprintf(fs->wo[v].why, sizeof fs->wo[v].why, "not a torch.save file: torch.load "
                     "reads its first pickle, with the weights_only unpickler, as the "
                     "magic number of a legacy file, and this one is not");
        }
    return TS_OK;
}

/* The name's extension says torch.save but the content is not (scanners
 * that trust extensions miss these: CVE-2025-10155). */
static ts_status extension_notes(fscan *fs)
{
    const char *path = rec(fs)->path, *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash : path, '.');
    if (!dot || fs->status != TS_OK)
        return TS_OK;
    int torchy = !strcmp(dot, ".bin") || !strcmp(dot, ".pt") || !strcmp(dot, ".pth") ||
                 !strcmp(dot, ".ckpt");
    const char *c = fs->container;
    if (torchy && (!strcmp(c, "pickle") || !strcmp(c, "joblib")))
        return add_finding(fs, TS_SCAN_FINDING_NOTE, TS_SCAN_NONE, NULL, -1,
                           "named %s, but a plain pickle, not a torch.save file: torch.load "
                           "runs it (its legacy path unpickles the first pickle) before it "
                           "fails; scanners that look only into zips miss it", dot);
    if (torchy && !strcmp(c, "zip"))
        return add_finding(fs, TS_SCAN_FINDING_NOTE, TS_SCAN_NONE, NULL, -1,
                           "named %s, but a zip archive without <folder>/data.pkl: torch.load "
                           "refuses it", dot);
    return TS_OK;
}

static ts_status scan_run(void *arg, ts_error *err)
{
    fscan *fs = arg;
    size_t len;
    const unsigned char *d = ts__file_image(fs->f, &len);
    const char *path = rec(fs)->path, *slash = strrchr(path, '/');
    ts_status st = scan_content(fs, d, len, 0, slash ? slash + 1 : path);
    if (!st)
        st = extension_notes(fs);
    if (st)
        ts__error(err, st, "out of memory");
    return st;
}

/* Scans one file (mem NULL: by path) into a new record, with `machine`
 * (the thread's, emptied after; NULL: a machine of the file's own). With
 * listed and mem both given, mem is the listed file's bytes, read whole
 * (ts__batch_read), and it is scanned as the file. Errors: only
 * TS_ERR_NOMEM (the file's own problems are in its record). */
static ts_status scan_file(ts_scan *s, const char *path, ts__dir_fd *listed, const void *mem,
                           size_t memlen, ts__pk *machine, ts_error *err)
{
    if (grow((void **)&s->files, &s->files_cap, s->nfiles, sizeof *s->files))
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    ts_scan_file *r = &s->files[s->nfiles];
    memset(r, 0, sizeof *r);
    r->path = sdup(s, path, strlen(path));
    r->container = "other";
    r->first_global = s->nglobals;
    r->first_finding = s->nfindings;
    if (!r->path)
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    s->nfiles++;
    fscan fs;
    memset(&fs, 0, sizeof fs);
    fs.s = s;
    fs.file = s->nfiles - 1;
    fs.container = "other";
    fs.memory = mem != NULL && !listed;
    ts_error e;
    ts_status st = mem && listed ? ts__file_of_read(mem, memlen, &fs.f, &e)
                   : mem    ? ts__file_of_memory(mem, memlen, &fs.f, &e)
                   : listed ? ts__file_open_image_listed(listed, path, &fs.f, &e)
                            : ts__file_open_image(path, NULL, &fs.f, &e);
    if (st == TS_ERR_NOMEM)
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    if (!st) {
        size_t len;
        const unsigned char *d = ts__file_image(fs.f, &len);
        const void *lo, *hi;
        ts__source_sparse_range(ts__file_source(fs.f), &lo, &hi);
        fs.pk = machine;
        st = lo ? ts__guarded_sparse(lo, hi, scan_run, &fs, &e)
             : ts__file_is_mapped(fs.f) ? ts__guarded_parse(d, len, scan_run, &fs, &e)
                                        : scan_run(&fs, &e);
        if (machine)
            ts__pk_reset(machine);
        else
            ts__pk_free(fs.pk);
        fs.pk = NULL;
        if (st == TS_ERR_NOMEM) {
            ts_file_close(fs.f);
            free(fs.safe);
            free(fs.seen);
            return ts__error(err, TS_ERR_NOMEM, "out of memory");
        }
    }
    if (st)
        file_error(&fs, st, &e, NULL);
    if (!st && fs.more_globals)
        st = add_finding(&fs, TS_SCAN_FINDING_PICKLE, TS_SCAN_UNKNOWN, NULL, -1,
                         "%zu more distinct globals than tshape lists (%zu)", fs.more_globals,
                         MAX_GLOBALS);
    ts_file_close(fs.f);
    free(fs.seen);
    r = &s->files[fs.file];
    r->container = fs.container;
    r->npickles = fs.npickles;
    r->status = fs.status;
    if (fs.status) {
        r->error = sdup(s, fs.message, strlen(fs.message));
        s->errors++;
    }
    r->verdict = TS_SCAN_NONE;
    for (size_t i = r->first_global; i < r->first_global + r->nglobals; i++)
        if (s->globals[i].cls > r->verdict)
            r->verdict = s->globals[i].cls;
    for (size_t i = r->first_finding; i < r->first_finding + r->nfindings; i++)
        if (s->findings[i].cls > r->verdict)
            r->verdict = s->findings[i].cls;
    r->torch_1_13 = fs.wo[0].verdict;
    r->torch_2_4 = fs.wo[1].verdict;
    if (fs.status && (r->torch_1_13 == TS_SCAN_WO_ACCEPTED || r->torch_1_13 ==
                      TS_SCAN_WO_ALLOWLIST))
        for (int v = 0; v < 2; v++) {
            fs.wo[v].verdict = TS_SCAN_WO_REFUSED;
            snprintf(fs.wo[v].why, sizeof fs.wo[v].why, "tshape could not read the file whole");
        }
    r->torch_1_13 = fs.wo[0].verdict;
    r->torch_2_4 = fs.wo[1].verdict;
    if (r->torch_1_13 != TS_SCAN_WO_ACCEPTED && r->torch_1_13 != TS_SCAN_WO_NA)
        r->why_1_13 = sdup_recent(s, fs.wo[0].why);
    if (r->torch_2_4 != TS_SCAN_WO_ACCEPTED && r->torch_2_4 != TS_SCAN_WO_NA)
        r->why_2_4 = sdup_recent(s, fs.wo[1].why);
    if (r->torch_2_4 == TS_SCAN_WO_ALLOWLIST && fs.safe)
        r->safe_globals = sdup(s, fs.safe, fs.safe_len);
    free(fs.safe);
    if ((fs.status && !r->error) || (r->torch_1_13 > TS_SCAN_WO_ACCEPTED && !r->why_1_13) ||
        (r->torch_2_4 > TS_SCAN_WO_ACCEPTED && !r->why_2_4))
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    return st == TS_ERR_NOMEM ? ts__error(err, st, "out of memory") : TS_OK;
}

/* ------------------------------------------------------------------------ */
/* The API                                                                   */
/* ------------------------------------------------------------------------ */


static ts_scan *scan_new(ts_error *err)
{
    ts_scan *s = calloc(1, sizeof *s);
    if (!s)
        ts__error(err, TS_ERR_NOMEM, "out of memory");
    return s;
}

/* Calls each(user, s, i) for file i, the last one merged into s; 1 when
 * it asked to stop (err says so). */
static int deliver(ts_scan *s, ts_scan_each_fn each, void *user, ts_error *err)
{
    if (!each || each(user, s, s->nfiles - 1) == 0)
        return 0;
    ts__error(err, TS_ERR_CANCELED, "stopped by the callback after %zu files", s->nfiles);
    return 1;
}

/* A folder's files shared by the threads, taken THREAD_STEP at a time (a
 * batch) so that a thread slowed by the machine's other work takes fewer
 * (contiguous halves left the faster thread idle at the end). A thread
 * hands each batch's records over when it is done; the calling thread
 * merges the batches into the scan in path order between its own batches
 * and calls `each` for their files, so that its caller prints file i while
 * the other threads scan the files after it (a printout of 1,000 files
 * after the last one was scanned took a tenth of the run on one core). */
typedef struct scan_batch {
    ts_scan_file *files;     /* the records, the thread's arrays handed over */
    ts_scan_global *globals;
    ts_scan_finding *findings;
    size_t nfiles, nglobals, nfindings;
    int ready;               /* handed over (under the pool's lock) */
} scan_batch;

typedef struct scan_pool {
    char **paths;
    size_t n;
    int listed;              /* the paths are a folder's regular files */
    atomic_size_t next;      /* the next file to take */
    scan_batch *batches;     /* batch b: files b * THREAD_STEP ... */
    size_t nbatches;
    pthread_mutex_t lock;    /* over ready, failed and waiting */
    pthread_cond_t handed;   /* a batch was handed over, or a thread failed */
    int failed;              /* a thread stopped (out of memory) */
    int waiting;             /* the calling thread waits for a batch */
    /* the calling thread's: */
    ts_scan *s;              /* the scan the batches are merged into */
    size_t merged;           /* batches merged */
    ts_scan_each_fn each;
    void *user;
    ts_status st;            /* a merge ran out of memory, or each asked to stop */
    ts_error err;
} scan_pool;

typedef struct scan_job {
    scan_pool *pool;
    int t;                   /* 0: the calling thread (ts__run_jobs runs job 0) */
    ts_scan *part;
    ts_status st;
    ts_error err;
} scan_job;

/* Hands the records of part (batch b) over to the merge; part starts
 * empty arrays for the next batch (its strings stay in its chunks). */
static void hand_over(scan_pool *p, ts_scan *part, size_t b)
{
    scan_batch *x = &p->batches[b];
    pthread_mutex_lock(&p->lock);
    x->files = part->files;
    x->globals = part->globals;
    x->findings = part->findings;
    x->nfiles = part->nfiles;
    x->nglobals = part->nglobals;
    x->nfindings = part->nfindings;
    x->ready = 1;
    if (p->waiting)
        pthread_cond_signal(&p->handed);
    pthread_mutex_unlock(&p->lock);
    part->files = NULL;
    part->globals = NULL;
    part->findings = NULL;
    part->nfiles = part->nglobals = part->nfindings = 0;
    part->files_cap = part->globals_cap = part->findings_cap = 0;
}

/* *v (of *cap elements of `size` bytes) grown to hold need, to `want`
 * when that is more and can be had. */
static int grow_to(void **v, size_t *cap, size_t need, size_t want, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t c = need > 2 * *cap ? need : 2 * *cap;
    void *p = NULL;
    if (want > c && want <= SIZE_MAX / size && (p = realloc(*v, want * size)))
        c = want;
    else if (c > SIZE_MAX / size || !(p = realloc(*v, c * size)))
        return -1;
    *v = p;
    *cap = c;
    return 0;
}

/* have so far for `done` files, and as many per file for `rest` more. */
static size_t extrapolate(size_t have, size_t done, size_t rest)
{
    double x = (double)have + (double)have / (double)done * (double)rest * 1.125;
    return x < (double)(SIZE_MAX / 2) ? (size_t)x : SIZE_MAX / 2;
}

/* Room in s for batch x's records, and for as many per file as so far
 * for the n - done files to come (one array each, not a copy per doubling:
 * pages never written cost nothing). */
static ts_status reserve_batch(ts_scan *s, const scan_batch *x, size_t n, size_t done,
                               ts_error *err)
{
    size_t files = done + x->nfiles, rest = n > files ? n - files : 0;
    size_t ng = s->nglobals + x->nglobals, nx = s->nfindings + x->nfindings;
    if (grow_to((void **)&s->files, &s->files_cap, s->nfiles + x->nfiles, n,
                sizeof *s->files) ||
        grow_to((void **)&s->globals, &s->globals_cap, ng, extrapolate(ng, files, rest),
                sizeof *s->globals) ||
        grow_to((void **)&s->findings, &s->findings_cap, nx, extrapolate(nx, files, rest),
                sizeof *s->findings))
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    return TS_OK;
}

/* Appends file k of batch x (reserve_batch made room) to s: its record,
 * globals and findings renumbered, its error counted. */
static void append_file(ts_scan *s, const scan_batch *x, size_t k)
{
    ts_scan_file r = x->files[k];
    size_t file = s->nfiles;
    for (size_t i = 0; i < r.nglobals; i++) {
        s->globals[s->nglobals + i] = x->globals[r.first_global + i];
        s->globals[s->nglobals + i].file = file;
    }
    for (size_t i = 0; i < r.nfindings; i++) {
        s->findings[s->nfindings + i] = x->findings[r.first_finding + i];
        s->findings[s->nfindings + i].file = file;
    }
    r.first_global = s->nglobals;
    r.first_finding = s->nfindings;
    s->nglobals += r.nglobals;
    s->nfindings += r.nfindings;
    s->errors += r.status != TS_OK;
    s->files[s->nfiles++] = r;
}

static void free_batch(scan_batch *x)
{
    free(x->files);
    free(x->globals);
    free(x->findings);
    x->files = NULL;
    x->globals = NULL;
    x->findings = NULL;
}

/* The calling thread: merges the batches handed over, in order, and calls
 * each for their files; with wait, until every batch is merged (or a
 * thread failed), else only those already there. */
static void merge_ready(scan_pool *p, int wait)
{
    while (!p->st && p->merged < p->nbatches) {
        scan_batch *x = &p->batches[p->merged];
        pthread_mutex_lock(&p->lock);
        p->waiting = wait;
        while (wait && !x->ready && !p->failed)
            pthread_cond_wait(&p->handed, &p->lock);
        p->waiting = 0;
        int ready = x->ready;
        pthread_mutex_unlock(&p->lock);
        if (!ready)
            return;
        p->merged++;
        p->st = reserve_batch(p->s, x, p->n, (p->merged - 1) * THREAD_STEP, &p->err);
        for (size_t k = 0; k < x->nfiles && !p->st; k++) {
            append_file(p->s, x, k);
            if (deliver(p->s, p->each, p->user, &p->err))
                p->st = TS_ERR_CANCELED;
        }
        free_batch(x);
    }
    if (p->st)
        atomic_store(&p->next, p->n); /* the others stop too */
}

static void *scan_worker(void *arg)
{
    scan_job *j = arg;
    scan_pool *p = j->pool;
    ts__pk *pk = NULL; /* the thread's machine, for all its files */
    j->part = scan_new(&j->err);
    j->st = j->part ? ts__pk_new(&pk, NULL, &j->err) : TS_ERR_NOMEM;
    ts__dir_fd dir = TS__DIR_FD_INIT;
    /* a large folder's files read a batch at a time when io_uring can be
     * had */
    ts__batch *reader = p->listed && p->n >= TS__BATCH_FILES && !j->st ? ts__batch_new() : NULL;
    _Static_assert(THREAD_STEP <= TS__BATCH_MAX, "a batch is read at once");
    while (!j->st) {
        size_t i = atomic_fetch_add(&p->next, THREAD_STEP);
        if (i >= p->n)
            break;
        size_t b = i / THREAD_STEP, end = p->n - i > THREAD_STEP ? i + THREAD_STEP : p->n;
        const unsigned char *data[THREAD_STEP];
        long len[THREAD_STEP];
        for (size_t k = 0; k < THREAD_STEP; k++)
            len[k] = -1;
        if (reader)
            ts__batch_read(reader, &dir, p->paths + i, end - i, data, len);
        for (size_t k = 0; i < end && !j->st; i++, k++)
            j->st = scan_file(j->part, p->paths[i], p->listed ? &dir : NULL,
                              len[k] >= 0 ? data[k] : NULL, len[k] >= 0 ? (size_t)len[k] : 0,
                              pk, &j->err);
        if (!j->st)
            hand_over(p, j->part, b);
        if (j->t == 0)
            merge_ready(p, 0);
    }
    if (j->st) {
        atomic_store(&p->next, p->n); /* the others stop too */
        pthread_mutex_lock(&p->lock);
        p->failed = 1;
        pthread_cond_signal(&p->handed);
        pthread_mutex_unlock(&p->lock);
    }
    ts__batch_free(reader);
    ts__dir_fd_close(&dir);
    ts__pk_free(pk);
    if (j->t == 0 && !j->st)
        merge_ready(p, 1);
    return NULL;
}

/* A folder's files, on up to 4 threads (scan_pool), or on this one for a
 * small folder, each delivered (each, NULL for none) once merged into s;
 * listed: the paths are a folder's regular files (ts__folder_files). */
static ts_status scan_files(ts_scan *s, char **paths, size_t n, int listed,
                            ts_scan_each_fn each, void *user, ts_error *err)
{
    int threads = n >= THREAD_FILES ? ts__cpu_count(4) : 1;
    if (threads == 1) {
        ts__pk *pk = NULL;
        ts_status st = n ? ts__pk_new(&pk, NULL, err) : TS_OK;
        ts__dir_fd dir = TS__DIR_FD_INIT;
        for (size_t i = 0; i < n && !st; i++)
            if (!(st = scan_file(s, paths[i], listed ? &dir : NULL, NULL, 0, pk, err)) &&
                deliver(s, each, user, err))
                st = TS_ERR_CANCELED;
        ts__dir_fd_close(&dir);
        ts__pk_free(pk);
        return st;
    }
    scan_pool pool = {.paths = paths, .n = n, .listed = listed, .s = s, .each = each,
                      .user = user, .nbatches = (n + THREAD_STEP - 1) / THREAD_STEP};
    atomic_init(&pool.next, 0);
    if (!(pool.batches = calloc(pool.nbatches, sizeof *pool.batches)))
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    pthread_mutex_init(&pool.lock, NULL);
    pthread_cond_init(&pool.handed, NULL);
    scan_job jobs[4];
    memset(jobs, 0, sizeof jobs);
    for (int t = 0; t < threads; t++) {
        jobs[t].pool = &pool;
        jobs[t].t = t;
    }
    ts__run_jobs(scan_worker, jobs, sizeof *jobs, threads);
    ts_status st = TS_OK;
    for (int t = 0; t < threads && !st; t++)
        if (jobs[t].st) {
            st = jobs[t].st;
            if (err)
                *err = jobs[t].err;
        }
    if (!st && pool.st) {
        st = pool.st;
        if (err)
            *err = pool.err;
    }
    for (size_t b = pool.merged; b < pool.nbatches; b++)
        free_batch(&pool.batches[b]);
    for (int t = 0; t < threads; t++) { /* the strings move with their chunks */
        ts_scan *part = jobs[t].part;
        if (!part)
            continue;
        chunk **tail = &part->chunks;
        while (*tail)
            tail = &(*tail)->next;
        *tail = s->chunks;
        s->chunks = part->chunks;
        part->chunks = NULL;
        ts_scan_close(part);
    }
    pthread_cond_destroy(&pool.handed);
    pthread_mutex_destroy(&pool.lock);
    free(pool.batches);
    return st;
}

/* A URL: a file, or a model (an index, a Hub repository) whose files are
 * scanned one by one, each by range requests for what it reads. */
static ts_status scan_url(ts_scan *s, const char *url, ts_scan_each_fn each, void *user,
                          ts_error *err)
{
    if (!ts_model_path(url)) {
        ts_status st = scan_file(s, url, NULL, NULL, 0, NULL, err);
        return st ? st : deliver(s, each, user, err) ? TS_ERR_CANCELED : TS_OK;
    }
    ts_model *m = NULL;
    ts_status st = ts_model_open(url, NULL, &m, err);
    size_t n = ts_model_file_count(m);
    char **paths = st ? NULL : calloc(n ? n : 1, sizeof *paths);
    if (!st && !paths)
        st = ts__error(err, TS_ERR_NOMEM, "out of memory");
    for (size_t i = 0; !st && i < n; i++)
        if (!(paths[i] = ts__strdup(ts_model_file_path(m, i))))
            st = ts__error(err, TS_ERR_NOMEM, "out of memory");
    ts_model_close(m);
    if (!st)
        st = scan_files(s, paths, n, 0, each, user, err);
    for (size_t i = 0; paths && i < n; i++)
        free(paths[i]);
    free(paths);
    return st;
}

/* What ts_scan_open_each scans into s: a URL, a folder, a file. */
static ts_status scan_path(ts_scan *s, const char *path, ts_scan_each_fn each, void *user,
                           ts_error *err)
{
    if (ts__is_url(path))
        return scan_url(s, path, each, user, err);
    struct stat sb;
    char *index = NULL; /* a TensorFlow checkpoint prefix: its .index (reader.h) */
    if (stat(path, &sb) != 0) {
        int e = errno;
        if (!(index = ts__tf_prefix_index(path)) || stat(index, &sb) != 0) {
            free(index);
            return ts__error(err, TS_ERR_IO, "cannot open: %s", strerror(e));
        }
    }
    ts_status st;
    if (!index && S_ISDIR(sb.st_mode)) {
        char **paths = NULL;
        size_t n = 0;
        st = ts__folder_files(path, &paths, &n, err);
        if (!st)
            st = scan_files(s, paths, n, 1, each, user, err);
        for (size_t i = 0; i < n; i++)
            free(paths[i]);
        free(paths);
        return st;
    }
    st = scan_file(s, index ? index : path, NULL, NULL, 0, NULL, err);
    free(index);
    return st ? st : deliver(s, each, user, err) ? TS_ERR_CANCELED : TS_OK;
}

ts_status ts_scan_open_each(const char *path, ts_scan_each_fn each, void *user, ts_scan **out,
                            ts_error *err)
{
    TS__ARG_NONNULL(err, out);
    *out = NULL;
    TS__ARG_NONNULL(err, path);
    ts__ok(err);
    ts_scan *s = scan_new(err);
    if (!s)
        return TS_ERR_NOMEM;
    ts_status st = scan_path(s, path, each, user, err);
    if (st) {
        ts_scan_close(s);
        return st;
    }
    *out = s;
    return TS_OK;
}

ts_status ts_scan_open(const char *path, ts_scan **out, ts_error *err)
{
    TS__ARG_NONNULL(err, out);
    *out = NULL;
    TS__ARG_NONNULL(err, path);
    return ts_scan_open_each(path, NULL, NULL, out, err);
}

ts_status ts_scan_open_memory(const void *data, size_t len, const char *name, ts_scan **out,
                              ts_error *err)
{
    TS__ARG_NONNULL(err, out);
    *out = NULL;
    TS__ARG_ARRAY(err, data, len);
    ts_status st;
    ts__ok(err);
    ts_scan *s = scan_new(err);
    if (!s)
        return TS_ERR_NOMEM;
    static const unsigned char empty[1];
    st = scan_file(s, name ? name : "-", NULL, data ? data : empty, len, NULL, err);
    if (st) {
        ts_scan_close(s);
        return st;
    }
    *out = s;
    return TS_OK;
}

void ts_scan_close(ts_scan *s)
{
    if (!s)
        return;
    while (s->chunks) {
        chunk *c = s->chunks->next;
        free(s->chunks);
        s->chunks = c;
    }
    free(s->files);
    free(s->globals);
    free(s->findings);
    free(s->known);
    free(s);
}

ts_scan_class ts_scan_verdict(const ts_scan *s)
{
    ts_scan_class v = TS_SCAN_NONE;
    for (size_t i = 0; s && i < s->nfiles; i++)
        if (s->files[i].verdict > v)
            v = s->files[i].verdict;
    return v;
}

size_t ts_scan_error_count(const ts_scan *s) { return s ? s->errors : 0; }
size_t ts_scan_file_count(const ts_scan *s) { return s ? s->nfiles : 0; }
size_t ts_scan_global_count(const ts_scan *s) { return s ? s->nglobals : 0; }
size_t ts_scan_finding_count(const ts_scan *s) { return s ? s->nfindings : 0; }

const ts_scan_file *ts_scan_file_at(const ts_scan *s, size_t i)
{
    return s && i < s->nfiles ? &s->files[i] : NULL;
}

const ts_scan_global *ts_scan_global_at(const ts_scan *s, size_t i)
{
    return s && i < s->nglobals ? &s->globals[i] : NULL;
}

const ts_scan_finding *ts_scan_finding_at(const ts_scan *s, size_t i)
{
    return s && i < s->nfindings ? &s->findings[i] : NULL;
}
