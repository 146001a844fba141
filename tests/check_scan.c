/*
 * check_scan.c - issue 21: the classes of globals and the weights_only
 * allowlists (src/formats/pickle_globals.c), the opcodes of protocols 0
 * and 1 and the limits of the pickle machine (pickle.c), NumPy values in
 * pickles (pickle_numpy.c) and the scan API (ts_scan_*, scan.c) on images
 * built here byte by byte.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "formats/pickle.h"
#include "formats/pickle_globals.h"
#include "formats/reader.h"
#include "testutil.h"

/* ---- classes -------------------------------------------------------------- */

static ts_scan_class cls(const char *m, const char *n, const char **what)
{
    const char *w;
    ts_scan_class c = ts__global_class(m, strlen(m), n, strlen(n), what ? what : &w);
    return c;
}

START_TEST(test_classes)
{
    const char *what;
    ck_assert_int_eq(cls("os", "system", &what), TS_SCAN_DANGEROUS);
    ck_assert_str_eq(what, "run a shell command");
    /* dotted names: Python resolves them attribute by attribute (defect 4) */
    ck_assert_int_eq(cls("torch", "os.system", &what), TS_SCAN_DANGEROUS);
    ck_assert_str_eq(what, "run a shell command");
    ck_assert_int_eq(cls("torch.storage", "_load_from_bytes", &what), TS_SCAN_DANGEROUS);
    ck_assert_str_eq(what, "load a torch.save file from bytes, with weights_only=False");
    ck_assert_int_eq(cls("torch.fx.graph_module", "reduce_graph_module", &what),
                     TS_SCAN_DANGEROUS);
    ck_assert_str_eq(what, "run Python code generated from a graph");
    ck_assert_int_eq(cls("timeit", "timeit", &what), TS_SCAN_DANGEROUS);
    ck_assert_int_eq(cls("collections", "OrderedDict.__init__.__globals__", &what),
                     TS_SCAN_DANGEROUS);
    ck_assert_str_eq(what, "reach interpreter internals through a dunder attribute");
    ck_assert_int_eq(cls("mymodule", "system", &what), TS_SCAN_DANGEROUS);
    ck_assert_str_eq(what, "call a function that runs code or commands");
    /* a submodule of a dangerous module (CVE-2025-10157) */
    ck_assert_int_eq(cls("asyncio.unix_events", "_UnixSubprocessTransport", &what),
                     TS_SCAN_DANGEROUS);
    ck_assert_int_eq(cls("__builtin__", "eval", NULL), TS_SCAN_DANGEROUS);
    ck_assert_int_eq(cls("__builtin__", "reduce", NULL), TS_SCAN_DANGEROUS);
    /* a single attribute named like a module is not that module */
    ck_assert_int_eq(cls("mymodule", "code", NULL), TS_SCAN_UNKNOWN);
    ck_assert_int_eq(cls("osx", "version", NULL), TS_SCAN_UNKNOWN);
    /* known: tensor and data */
    ck_assert_int_eq(cls("torch._utils", "_rebuild_tensor_v2", &what), TS_SCAN_TENSOR);
    ck_assert_int_eq(cls("torch", "BFloat16Storage", &what), TS_SCAN_TENSOR);
    ck_assert_str_eq(what, "a storage class");
    ck_assert_int_eq(cls("torch.cuda.sparse", "FloatTensor", NULL), TS_SCAN_TENSOR);
    ck_assert_int_eq(cls("torch", "float8_e4m3fn", NULL), TS_SCAN_TENSOR);
    ck_assert_int_eq(cls("__builtin__", "long", NULL), TS_SCAN_DATA);
    ck_assert_int_eq(cls("__builtin__", "set", NULL), TS_SCAN_DATA);
    ck_assert_int_eq(cls("copy_reg", "_reconstructor", NULL), TS_SCAN_DATA);
    ck_assert_int_eq(cls("copyreg", "add_extension", NULL), TS_SCAN_DANGEROUS);
    ck_assert_int_eq(cls("numpy._core.multiarray", "_reconstruct", NULL), TS_SCAN_DATA);
    ck_assert_int_eq(cls("numpy", "float64", NULL), TS_SCAN_DATA);
    ck_assert_int_eq(cls("numpy", "load", NULL), TS_SCAN_DANGEROUS);
    ck_assert_int_eq(cls("argparse", "Namespace", NULL), TS_SCAN_DATA);
    ck_assert_int_eq(cls("types", "SimpleNamespace", NULL), TS_SCAN_DATA);
    ck_assert_int_eq(cls("types", "CodeType", NULL), TS_SCAN_DANGEROUS);
    ck_assert_int_eq(cls("__torch__.m", "M", NULL), TS_SCAN_DATA);
    ck_assert_int_eq(cls("torch.nn.modules.linear", "Linear", &what), TS_SCAN_UNKNOWN);
    ck_assert_str_eq(what, "not known to tshape: torch.load would import it");
    ck_assert_int_eq(cls("__main__", "Net", NULL), TS_SCAN_UNKNOWN);
}
END_TEST

/* torch/_weights_only_unpickler.py of 1.13 and 2.4 */
START_TEST(test_weights_only_tables)
{
#define WO(v, m, n) ts__wo_global((v), (m), strlen(m), (n), strlen(n))
    ck_assert(WO(TS__WO_1_13, "torch._utils", "_rebuild_tensor_v2"));
    ck_assert(WO(TS__WO_1_13, "torch", "FloatStorage"));
    ck_assert(WO(TS__WO_1_13, "torch.cuda", "HalfStorage"));
    ck_assert(!WO(TS__WO_1_13, "torch.cuda", "QInt8Storage"));
    ck_assert(WO(TS__WO_1_13, "torch.sparse", "FloatTensor"));
    ck_assert(!WO(TS__WO_1_13, "torch.sparse", "BoolTensor"));
    ck_assert(!WO(TS__WO_1_13, "torch", "bfloat16"));      /* 10 dtypes only */
    ck_assert(!WO(TS__WO_1_13, "torch", "device"));
    ck_assert(!WO(TS__WO_1_13, "torch._utils", "_rebuild_tensor_v3"));
    ck_assert(!WO(TS__WO_1_13, "collections", "Counter"));
    ck_assert(WO(TS__WO_2_4, "torch", "bfloat16"));
    ck_assert(WO(TS__WO_2_4, "torch", "device"));
    ck_assert(WO(TS__WO_2_4, "torch._utils", "_rebuild_tensor_v3"));
    ck_assert(WO(TS__WO_2_4, "collections", "Counter"));
    ck_assert(WO(TS__WO_2_4, "torch", "per_channel_affine"));
    ck_assert(!WO(TS__WO_2_4, "_codecs", "encode"));           /* from 2.5 */
    ck_assert(!WO(TS__WO_2_4, "builtins", "set"));
    ck_assert(!WO(TS__WO_2_4, "__builtin__", "set"));
    ck_assert(!WO(TS__WO_2_4, "argparse", "Namespace"));
    /* opcodes: 1.13 has no BINFLOAT; neither has protocol 4's */
    ck_assert(!ts__wo_opcode(TS__WO_1_13, 'G'));
    ck_assert(ts__wo_opcode(TS__WO_2_4, 'G'));
    ck_assert(ts__wo_opcode(TS__WO_1_13, 'X'));
    ck_assert(ts__wo_opcode(TS__WO_1_13, 0x81));
    ck_assert(!ts__wo_opcode(TS__WO_2_4, 0x95));
    ck_assert(!ts__wo_opcode(TS__WO_2_4, 0x93));
    ck_assert(!ts__wo_opcode(TS__WO_2_4, 'B'));
    ck_assert(!ts__wo_opcode(TS__WO_2_4, 0));
#undef WO
}
END_TEST

/* ---- the machine: protocols 0 and 1, limits -------------------------------------- */

static ts__pk_role inert(void *ctx, const char *m, size_t ml, const char *n, size_t nl, int *tag)
{
    (void)ctx, (void)m, (void)ml, (void)n, (void)nl;
    *tag = 0;
    return TS__PK_INERT;
}

static ts_status run(const void *p, size_t n, ts__pk_value **v, ts_error *err, ts__pk **pk)
{
    ts__pk_options o;
    memset(&o, 0, sizeof o);
    o.classify = inert;
    o.where = "t";
    o.base = -1;
    o.allow_persid = 1;
    size_t end;
    ck_assert_int_eq(ts__pk_new(pk, NULL, NULL), TS_OK);
    return ts__pk_load(*pk, p, n, 0, &o, v, &end, err);
}

START_TEST(test_protocol0)
{
    /* (I01 L-123456789012345678901234567890L F0.5 S'a\x41\n\101' V\u00e9
     * p0 g0 l d) 0 2 t . */
    static const char p[] = "(I01\nL-123456789012345678901234567890L\nF0.5\n"
                            "S'a\\x41\\n\\101'\nV\\u00e9\np0\ng0\n(l(dI5\n02t.";
    ts__pk *pk;
    ts__pk_value *v;
    ts_error err;
    ck_assert_msg(run(p, sizeof p - 1, &v, &err, &pk) == TS_OK, "%s", err.message);
    ck_assert_int_eq(v->kind, TS__PK_TUPLE);
    ck_assert_uint_eq(v->u.seq.n, 9);
    ts__pk_value **x = v->u.seq.v;
    ck_assert_int_eq(x[0]->kind, TS__PK_BOOL);
    ck_assert_int_eq(x[0]->u.i, 1);
    ck_assert_int_eq(x[1]->kind, TS__PK_BIGINT); /* -1234...890: 13 bytes */
    ck_assert_uint_eq(x[1]->u.s.n, 13);
    ck_assert(x[2]->kind == TS__PK_FLOAT && x[2]->u.f == 0.5);
    ck_assert_int_eq(x[3]->kind, TS__PK_STR);
    ck_assert_uint_eq(x[3]->u.s.n, 4);
    ck_assert(memcmp(x[3]->u.s.p, "aA\nA", 4) == 0 && x[3]->owned);
    ck_assert_uint_eq(x[4]->u.s.n, 2);
    ck_assert(memcmp(x[4]->u.s.p, "\xc3\xa9", 2) == 0);
    ck_assert_ptr_eq(x[5], x[4]); /* p0 g0: the same value */
    ck_assert_int_eq(x[6]->kind, TS__PK_LIST);
    ck_assert_int_eq(x[7]->kind, TS__PK_DICT);
    /* I5\n 0 POP drops 5, 2 DUP copies the dict */
    ck_assert_ptr_eq(x[8], x[7]);
    ts__pk_free(pk);

    /* INST, OBJ, NEWOBJ_EX make objects of inert globals; PERSID a text id */
    static const char q[] = "((ia\nB\n(cc\nD\no\x80\x04\x8c\x01" "e\x8c\x01" "f\x93)}\x92"
                            "Pid\nt.";
    ck_assert_msg(run(q, sizeof q - 1, &v, &err, &pk) == TS_OK, "%s", err.message);
    ck_assert_uint_eq(v->u.seq.n, 4);
    ck_assert_int_eq(v->u.seq.v[0]->kind, TS__PK_OBJECT);
    ck_assert_int_eq(v->u.seq.v[0]->op, 'i');
    ck_assert_int_eq(v->u.seq.v[1]->kind, TS__PK_OBJECT);
    ck_assert_int_eq(v->u.seq.v[1]->op, 'o');
    ck_assert_int_eq(v->u.seq.v[2]->op, 0x92);
    ck_assert_int_eq(v->u.seq.v[3]->kind, TS__PK_PERSID);
    ck_assert_uint_eq(v->u.seq.v[3]->args->u.s.n, 2);
    ts__pk_free(pk);
}
END_TEST

START_TEST(test_limits)
{
    ts__pk *pk;
    ts__pk_value *v;
    ts_error err;
    /* TUPLE1 chains stop at the opcode that makes them 1001 deep (defect 3) */
    size_t n = 4 + 2000 + 1;
    unsigned char *p = malloc(n);
    memcpy(p, "\x80\x02K\x00", 4);
    memset(p + 4, 0x85, 2000);
    p[n - 1] = '.';
    ck_assert_int_eq(run(p, n, &v, &err, &pk), TS_ERR_LIMIT);
    ck_assert_str_eq(err.message, "t byte 1004: values nested more than 1000 deep (tshape's "
                                  "limit)");
    ts__pk_free(pk);
    free(p);
    /* a stack of BININT1 stops at 1,048,576 entries (defect 2) */
    n = 2 + 2 * (1u << 20) + 2 + 1;
    p = malloc(n);
    memcpy(p, "\x80\x02", 2);
    for (size_t i = 2; i + 1 < n; i += 2)
        memcpy(p + i, "K\x07", 2);
    p[n - 1] = '.';
    ck_assert_int_eq(run(p, n, &v, &err, &pk), TS_ERR_LIMIT);
    ck_assert_str_eq(err.message, "t byte 2097154: the value stack grows beyond 1048576 "
                                  "entries (tshape's limit)");
    ts__pk_free(pk);
    free(p);
    /* the refused opcodes */
    ck_assert_int_eq(run("\x80\x02\x82\x01.", 5, &v, &err, &pk), TS_ERR_UNSUPPORTED);
    ck_assert_str_eq(err.message, "t byte 2: refusing the file: opcode EXT1 (0x82) is not "
                                  "allowed (it reads the copyreg extension registry, which "
                                  "pickle.load leaves empty); nothing was executed");
    ts__pk_free(pk);
}
END_TEST

/* A machine emptied for another input (ts__pk_reset, one machine per
 * thread of a folder scan): the shared small ints were nodes of the blocks
 * it reuses and are made again; a container of its own block is freed. */
START_TEST(test_machine_reset)
{
    ts__pk *pk;
    ts__pk_value *v;
    ts_error err;
    size_t end;
    ck_assert_msg(run("\x80\x02K\x07.", 5, &v, &err, &pk) == TS_OK, "%s", err.message);
    ck_assert(v->kind == TS__PK_INT && v->u.i == 7);
    ts__pk_options o;
    memset(&o, 0, sizeof o);
    o.classify = inert;
    o.where = "t";
    o.base = -1;
    /* a list of 300 items: more than a slab's small arrays */
    unsigned char big[2 + 2 + 600 + 2];
    memcpy(big, "\x80\x02](", 4);
    for (int i = 0; i < 300; i++)
        memcpy(big + 4 + 2 * i, "K\x01", 2);
    memcpy(big + 604, "e.", 2);
    ck_assert_msg(ts__pk_load(pk, big, sizeof big, 0, &o, &v, &end, &err) == TS_OK, "%s",
                  err.message);
    ck_assert_int_eq(v->kind, TS__PK_LIST);
    ck_assert_uint_eq(v->u.seq.n, 300);
    ck_assert(v->owned);
    ck_assert_int_eq(v->u.seq.v[299]->u.i, 1);
    ts__pk_reset(pk);
    ck_assert_uint_eq(ts__pk_opcodes(pk), 0);
    static const char q[] = "\x80\x02X\x01\0\0\0aK\x07\x86.";
    ck_assert_msg(ts__pk_load(pk, (const unsigned char *)q, sizeof q - 1, 0, &o, &v, &end,
                              &err) == TS_OK,
                  "%s", err.message);
    ck_assert_int_eq(v->kind, TS__PK_TUPLE);
    ck_assert_uint_eq(v->u.seq.n, 2);
    ck_assert_int_eq(v->u.seq.v[0]->kind, TS__PK_STR);
    ck_assert_int_eq(v->u.seq.v[1]->kind, TS__PK_INT);
    ck_assert_int_eq(v->u.seq.v[1]->u.i, 7);
    ck_assert_uint_eq(ts__pk_opcodes(pk), 5);
    ts__pk_free(pk);
}
END_TEST

/* ---- scan ------------------------------------------------------------------------ */

static ts_scan *scan_of(const void *p, size_t n, const char *name)
{
    ts_scan *s;
    ts_error err;
    ck_assert_msg(ts_scan_open_memory(p, n, name, &s, &err) == TS_OK, "%s", err.message);
    ck_assert_uint_eq(ts_scan_file_count(s), 1);
    return s;
}

/* A stored zip of members (name, bytes) as torch.save writes it. */
static unsigned char *zip_of(const char *const *names, const char *const *data,
                             const size_t *lens, int n, size_t *out_len)
{
    unsigned char *z = calloc(1, 65536);
    size_t at = 0, cd, cdn = 0;
    unsigned char central[4096];
    for (int i = 0; i < n; i++) {
        size_t nl = strlen(names[i]);
        uint32_t crc = (uint32_t)crc32(0L, (const unsigned char *)data[i], (uInt)lens[i]);
        unsigned char h[30] = {'P', 'K', 3, 4, 20};
        ts__put_le32(h + 14, crc);
        ts__put_le32(h + 18, (uint32_t)lens[i]);
        ts__put_le32(h + 22, (uint32_t)lens[i]);
        h[26] = (unsigned char)nl;
        unsigned char c[46] = {'P', 'K', 1, 2, 20, 0, 20};
        ts__put_le32(c + 16, crc);
        ts__put_le32(c + 20, (uint32_t)lens[i]);
        ts__put_le32(c + 24, (uint32_t)lens[i]);
        c[28] = (unsigned char)nl;
        ts__put_le32(c + 42, (uint32_t)at);
        memcpy(central + cdn, c, 46);
        memcpy(central + cdn + 46, names[i], nl);
        cdn += 46 + nl;
        memcpy(z + at, h, 30);
        memcpy(z + at + 30, names[i], nl);
        memcpy(z + at + 30 + nl, data[i], lens[i]);
        at += 30 + nl + lens[i];
    }
    cd = at;
    memcpy(z + at, central, cdn);
    at += cdn;
    unsigned char e[22] = {'P', 'K', 5, 6};
    e[8] = e[10] = (unsigned char)n;
    ts__put_le32(e + 12, (uint32_t)cdn);
    ts__put_le32(e + 16, (uint32_t)cd);
    memcpy(z + at, e, 22);
    *out_len = at + 22;
    return z;
}

static const ts_scan_file *only(ts_scan *s)
{
    return ts_scan_file_at(s, 0);
}

START_TEST(test_scan_pickle)
{
    /* os.system('x') then the global again: one record counted twice */
    static const char p[] = "\x80\x02" "cos\nsystem\nX\x01\0\0\0x\x85R0cos\nsystem\n.";
    ts_scan *s = scan_of(p, sizeof p - 1, "evil.bin");
    const ts_scan_file *f = only(s);
    ck_assert_str_eq(f->container, "pickle");
    ck_assert_int_eq(f->verdict, TS_SCAN_DANGEROUS);
    ck_assert_int_eq(ts_scan_verdict(s), TS_SCAN_DANGEROUS);
    ck_assert_uint_eq(f->nglobals, 1);
    const ts_scan_global *g = ts_scan_global_at(s, 0);
    ck_assert_str_eq(g->pickle, "evil.bin");
    ck_assert_int_eq(g->offset, 2);
    ck_assert_int_eq(g->file_offset, 2);
    ck_assert_str_eq(g->opcode, "GLOBAL");
    ck_assert_str_eq(g->module, "os");
    ck_assert_str_eq(g->name, "system");
    ck_assert_uint_eq(g->count, 2);
    ck_assert_str_eq(g->what, "run a shell command");
    ck_assert(!g->torch_1_13 && !g->torch_2_4);
    /* a .bin that is a plain pickle: a note; torch.load refuses it */
    ck_assert_uint_eq(f->nfindings, 1);
    ck_assert_int_eq(ts_scan_finding_at(s, 0)->kind, TS_SCAN_FINDING_NOTE);
    ck_assert_int_eq(f->torch_1_13, TS_SCAN_WO_REFUSED);
    ck_assert_int_eq(f->torch_2_4, TS_SCAN_WO_REFUSED);
    ts_scan_close(s);

    /* not a pickle at all: nothing */
    s = scan_of("{\"a\": 1}\n", 9, "config.json");
    ck_assert_str_eq(only(s)->container, "other");
    ck_assert_int_eq(only(s)->verdict, TS_SCAN_NONE);
    ck_assert_int_eq(only(s)->torch_1_13, TS_SCAN_WO_NA);
    ck_assert_uint_eq(ts_scan_error_count(s), 0);
    ts_scan_close(s);

    /* a pickle cut short: an error, with what was found before */
    static const char cut[] = "\x80\x02" "cposix\nsystem\nX\x09\0\0\0ab";
    s = scan_of(cut, sizeof cut - 1, "cut.pkl");
    ck_assert_uint_eq(ts_scan_error_count(s), 1);
    ck_assert_int_eq(only(s)->status, TS_ERR_TRUNCATED);
    ck_assert_str_eq(only(s)->error, "cut.pkl byte 16: BINUNICODE of 9 bytes runs past the end "
                                     "of the pickle (2 bytes left)");
    ck_assert_int_eq(only(s)->verdict, TS_SCAN_DANGEROUS);
    ts_scan_close(s);
}
END_TEST

START_TEST(test_scan_weights_only)
{
    /* {'w': _rebuild_tensor_v2(storage, 0, (1,), (1,), False, OrderedDict())} */
#define TENSOR "\x80\x02}X\x01\0\0\0wctorch._utils\n_rebuild_tensor_v2\n((X\x07\0\0\0storage" \
               "ctorch\nFloatStorage\nX\x01\0\0\0" "0X\x03\0\0\0cpuK\x01tQK\0K\x01\x85K\x01\x85" \
               "\x89" "ccollections\nOrderedDict\n)RtRs"
    static const char clean[] = TENSOR ".";
    static const char flt[] = TENSOR "X\x02\0\0\0lrG?\xb9\x99\x99\x99\x99\x99\x9as.";
    static const char thing[] = TENSOR "X\x01\0\0\0tcmymod\nThing\n)Rs.";
    static const char obj[] = TENSOR "X\x01\0\0\0tcargparse\nNamespace\n)\x81}bs.";
    const char *names[] = {"a/data.pkl", "a/data/0", "a/version"};
    const char *data[] = {NULL, "\0\0\0\0", "3\n"};
    size_t lens[] = {0, 4, 2};
    struct {
        const char *p;
        size_t n;
        ts_scan_wo w113, w24;
        const char *why113, *why24, *safe;
    } cases[] = {
        {clean, sizeof clean - 1, TS_SCAN_WO_ACCEPTED, TS_SCAN_WO_ACCEPTED, NULL, NULL, NULL},
        {flt, sizeof flt - 1, TS_SCAN_WO_REFUSED, TS_SCAN_WO_ACCEPTED,
         "opcode BINFLOAT (0x47) is not run by the weights_only unpickler of torch 1.13", NULL,
         NULL},
        {thing, sizeof thing - 1, TS_SCAN_WO_REFUSED, TS_SCAN_WO_ALLOWLIST,
         "GLOBAL mymod.Thing is not on torch 1.13's weights_only allowlist",
         "needs torch.serialization.add_safe_globals (its globals are not all on torch 2.4's "
         "allowlist)", "mymod.Thing"},
        {obj, sizeof obj - 1, TS_SCAN_WO_REFUSED, TS_SCAN_WO_REFUSED,
         "GLOBAL argparse.Namespace is not on torch 1.13's weights_only allowlist",
         "NEWOBJ at byte 160 instantiates a class (the weights_only unpickler of torch 2.4 "
         "instantiates only torch.nn.Parameter; torch 2.5 and later also those passed "
         "to add_safe_globals)", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        data[0] = cases[i].p;
        lens[0] = cases[i].n;
        size_t n;
        unsigned char *z = zip_of(names, data, lens, 3, &n);
        ts_scan *s = scan_of(z, n, "m.pt");
        const ts_scan_file *f = only(s);
        ck_assert_msg(f->status == TS_OK, "%zu: %s", i, f->error);
        ck_assert_str_eq(f->container, "torch.save zip");
        ck_assert_msg(f->torch_1_13 == cases[i].w113, "case %zu: %d", i, f->torch_1_13);
        ck_assert_msg(f->torch_2_4 == cases[i].w24, "case %zu: %d", i, f->torch_2_4);
        if (cases[i].why113)
            ck_assert_str_eq(f->why_1_13, cases[i].why113);
        else
            ck_assert_ptr_null(f->why_1_13);
        if (cases[i].why24)
            ck_assert_str_eq(f->why_2_4, cases[i].why24);
        if (cases[i].safe)
            ck_assert_str_eq(f->safe_globals, cases[i].safe);
        else
            ck_assert_ptr_null(f->safe_globals);
        ck_assert_int_eq(f->verdict, i == 2 ? TS_SCAN_UNKNOWN : TS_SCAN_DATA);
        /* the first global is at byte 9 of data.pkl, stored at byte 40 */
        ck_assert_int_eq(ts_scan_global_at(s, 0)->offset, 9);
        ck_assert_int_eq(ts_scan_global_at(s, 0)->file_offset, 30 + 10 + 9);
        ts_scan_close(s);
        free(z);
    }
#undef TENSOR
}
END_TEST

START_TEST(test_scan_zip_differentials)
{
    /* a second data.pkl folder: torch reads a/ (the first member's), the
     * evil one is b/; both are scanned */
    static const char evil[] = "\x80\x02" "cos\nsystem\n)R.";
    const char *names[] = {"a/data.pkl", "a/version", "b/data.pkl"};
    const char *data[] = {"\x80\x02}.", "3\n", evil};
    size_t lens[] = {4, 2, sizeof evil - 1};
    size_t n;
    unsigned char *z = zip_of(names, data, lens, 3, &n);
    ts_scan *s = scan_of(z, n, "two.pt");
    const ts_scan_file *f = only(s);
    ck_assert_int_eq(f->verdict, TS_SCAN_DANGEROUS);
    ck_assert_uint_eq(f->npickles, 2);
    ck_assert_uint_eq(f->nfindings, 1);
    ck_assert_str_eq(ts_scan_finding_at(s, 0)->message, "data.pkl in two folders, a/ and b/: "
                     "torch.load reads a/data.pkl (the folder of the first member); tshape "
                     "scans both");
    ck_assert_str_eq(ts_scan_global_at(s, 0)->pickle, "b/data.pkl");
    /* torch.load reads a/data.pkl, which is clean */
    ck_assert_int_eq(f->torch_1_13, TS_SCAN_WO_ACCEPTED);
    ts_scan_close(s);
    /* a wrong CRC-32 in the central directory */
    z[n - 22 - 46 * 3 - 10 - 9 - 10 + 16] ^= 1;
    s = scan_of(z, n, "two.pt");
    ck_assert_uint_eq(only(s)->nfindings, 3);
    ck_assert_str_eq(ts_scan_finding_at(s, 0)->message, "member a/data.pkl has CRC-32 "
                     "0x89deb73d in its local header, 0x89deb73c in the central directory: "
                     "readers disagree");
    ck_assert_str_eq(ts_scan_finding_at(s, 2)->message, "member a/data.pkl has CRC-32 "
                     "0x89deb73d, the central directory says 0x89deb73c: Python's zipfile (and "
                     "scanners built on it) refuse the member, torch.load does not check it");
    ts_scan_close(s);
    free(z);
}
END_TEST

/* NumPy arrays in a plain pickle: names, dtypes, shapes, bytes (written by
 * gen_scan_clean.py with pickle.dump, protocol 4). */
START_TEST(test_numpy_in_pickle)
{
    ts_file *f;
    ts_error err;
    ck_assert_msg(ts_file_open("tests/fixtures/scan/clean/arrays.pkl", NULL, &f, &err) == TS_OK,
                  "%s", err.message);
    ck_assert_int_eq(ts_file_format(f), TS_FORMAT_PICKLE);
    ck_assert_str_eq(ts_file_version(f), "protocol 4");
    ck_assert_uint_eq(ts_file_count(f), 3);
    const ts_array *a = ts_file_array(f, 2);
    ck_assert_str_eq(a->name, "i");
    ck_assert_int_eq(a->dtype, TS_DTYPE_INT16);
    ck_assert_str_eq(a->descr, "<i2");
    ck_assert_int_eq(ts_shape_ndim(&a->shape), 2);
    ck_assert_int_eq(a->nbytes, 12);
    ck_assert_int_ge(a->data_offset, 0);
    int64_t v[6];
    ck_assert_msg(ts_array_read(f, a, 0, 6, TS_DTYPE_INT64, v, &err) == TS_OK, "%s",
                  err.message);
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(v[i], i);
    ts_file_close(f);
}
END_TEST

/* Protocol 0 text lines longer than the machine's 4 KiB steps, and plain
 * pickles read through a strict sparse source (as a remote file or a local
 * one of more than 64 KiB): every byte the reader touches was asked for. */
START_TEST(test_long_lines_sparse)
{
    size_t n = 5000;
    char *p = malloc(n + 4);
    ck_assert_ptr_nonnull(p);
    p[0] = 'V';
    memset(p + 1, 'y', n);
    memcpy(p + 1 + n, "\n.", 2);
    ts__pk *pk;
    ts__pk_value *v;
    ts_error err;
    ck_assert_msg(run(p, n + 3, &v, &err, &pk) == TS_OK, "%s", err.message);
    ck_assert_int_eq(v->kind, TS__PK_STR);
    ck_assert_uint_eq(v->u.s.n, n);
    ts__pk_free(pk);
    /* numbers stay within 1024 bytes */
    p[0] = 'I';
    memset(p + 1, '7', n);
    ck_assert_int_eq(run(p, n + 3, &v, &err, &pk), TS_ERR_LIMIT);
    ck_assert_str_eq(err.message, "t byte 0: INT's text is longer than 1024 bytes");
    ts__pk_free(pk);
    free(p);

    static const struct {
        const char *name;
        ts_format format;
        size_t arrays;
    } files[] = {{"scan/clean/protocol0.pkl", TS_FORMAT_PICKLE, 1},
                 {"scan/clean/large.joblib", TS_FORMAT_AUTO, 3},
                 {"scan/clean/arrays.pkl", TS_FORMAT_AUTO, 3}};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char path[256];
        size_t len;
        unsigned char *d = tu_read_file(tu_fixture(path, sizeof path, files[i].name), &len);
        ck_assert_ptr_nonnull(d);
        ts_open_options o = TS_OPEN_OPTIONS_INIT;
        o.format = files[i].format;
        int before = ts__unfetched_faults;
        ts_file *f;
        ck_assert_msg(ts__file_open_memory_sparse(d, len, &o, &f, &err) == TS_OK, "%s: %s",
                      files[i].name, err.message);
        ck_assert_int_eq(ts__unfetched_faults, before);
        ck_assert_uint_eq(ts_file_count(f), files[i].arrays);
        ts_file_close(f);
        free(d);
    }
}
END_TEST

/* Writes n files into the new folder dir (a mkdtemp template), in turn:
 * a pickle that runs os.system (named twice), a tensor pickle (three
 * globals), a JSON text and a pickle cut short (an error); file i is
 * f%03d.bin, or .json. */
static void write_scan_folder(char *dir, int n)
{
    static const char evil[] = "\x80\x02" "cos\nsystem\nX\x01\0\0\0x\x85R0cos\nsystem\n.";
    static const char tensor[] = "\x80\x02}X\x01\0\0\0wctorch._utils\n_rebuild_tensor_v2\n((X"
                                 "\x07\0\0\0storagectorch\nFloatStorage\nX\x01\0\0\0" "0X\x03"
                                 "\0\0\0cpuK\x01tQK\0K\x01\x85K\x01\x85\x89" "ccollections\n"
                                 "OrderedDict\n)RtRs.";
    static const char cut[] = "\x80\x02" "cposix\nsystem\nX\x09\0\0\0ab";
    static const struct {
        const char *data;
        size_t len;
    } kinds[4] = {{evil, sizeof evil - 1}, {tensor, sizeof tensor - 1},
                  {"{\"a\": 1}\n", 9}, {cut, sizeof cut - 1}};
    char path[256];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/f%03d.%s", dir, i, i % 4 == 2 ? "json" : "bin");
        FILE *fp = fopen(path, "wb");
        ck_assert_ptr_nonnull(fp);
        ck_assert_uint_eq(fwrite(kinds[i % 4].data, 1, kinds[i % 4].len, fp), kinds[i % 4].len);
        fclose(fp);
    }
}

static void remove_scan_folder(const char *dir, int n)
{
    char path[256];
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/f%03d.%s", dir, i, i % 4 == 2 ? "json" : "bin");
        unlink(path);
    }
    rmdir(dir);
}

/* A folder of more files than one thread takes (scan_pool: the threads
 * take 8 at a time, each with one machine for all its files), and enough
 * for them to be read in batches (TS__BATCH_FILES): each file's record,
 * globals and findings are those of the file scanned alone, in path
 * order. */
START_TEST(test_scan_folder_threads)
{
    char dir[] = "/tmp/tshape-scan-XXXXXX", path[256];
    enum { N = 520 };
    _Static_assert(N >= TS__BATCH_FILES, "read in batches");
    write_scan_folder(dir, N);
    ts_scan *all, *one;
    ts_error err;
    ck_assert_msg(ts_scan_open(dir, &all, &err) == TS_OK, "%s", err.message);
    ck_assert_uint_eq(ts_scan_file_count(all), N);
    ck_assert_uint_eq(ts_scan_error_count(all), N / 4);
    size_t globals = 0, findings = 0;
    for (size_t i = 0; i < N; i++) {
        snprintf(path, sizeof path, "%s/f%03zu.%s", dir, i, i % 4 == 2 ? "json" : "bin");
        ck_assert_msg(ts_scan_open(path, &one, &err) == TS_OK, "%s", err.message);
        const ts_scan_file *a = ts_scan_file_at(all, i), *b = ts_scan_file_at(one, 0);
        ck_assert_str_eq(a->path, path);
        ck_assert_str_eq(a->container, b->container);
        ck_assert_int_eq(a->verdict, b->verdict);
        ck_assert_uint_eq(a->npickles, b->npickles);
        ck_assert_int_eq(a->status, b->status);
        if (b->error)
            ck_assert_str_eq(a->error, b->error);
        ck_assert_int_eq(a->torch_1_13, b->torch_1_13);
        ck_assert_int_eq(a->torch_2_4, b->torch_2_4);
        ck_assert_uint_eq(a->first_global, globals);
        ck_assert_uint_eq(a->nglobals, b->nglobals);
        for (size_t k = 0; k < b->nglobals; k++) {
            const ts_scan_global *x = ts_scan_global_at(all, a->first_global + k);
            const ts_scan_global *y = ts_scan_global_at(one, k);
            ck_assert_uint_eq(x->file, i);
            ck_assert_str_eq(x->module, y->module);
            ck_assert_str_eq(x->name, y->name);
            ck_assert_uint_eq(x->count, y->count);
            ck_assert_int_eq(x->offset, y->offset);
            ck_assert_int_eq(x->cls, y->cls);
            ck_assert_str_eq(x->what, y->what);
            ck_assert_int_eq(x->torch_2_4, y->torch_2_4);
        }
        ck_assert_uint_eq(a->first_finding, findings);
        ck_assert_uint_eq(a->nfindings, b->nfindings);
        for (size_t k = 0; k < b->nfindings; k++) {
            const ts_scan_finding *x = ts_scan_finding_at(all, a->first_finding + k);
            ck_assert_uint_eq(x->file, i);
            ck_assert_str_eq(x->message, ts_scan_finding_at(one, k)->message);
        }
        globals += a->nglobals;
        findings += a->nfindings;
        ts_scan_close(one);
        unlink(path);
    }
    /* os.system named twice: one record counted twice; the tensor file's
     * three globals */
    ck_assert_uint_eq(ts_scan_global_at(all, 0)->count, 2);
    ck_assert_uint_eq(ts_scan_file_at(all, 1)->nglobals, 3);
    ck_assert_uint_eq(ts_scan_global_count(all), globals);
    ck_assert_uint_eq(ts_scan_finding_count(all), findings);
    ts_scan_close(all);
    rmdir(dir);
}
END_TEST

/* What ts_scan_open_each's callback saw of each file. */
typedef struct each_seen {
    size_t calls, stop_at;       /* stop_at: return 1 on that call (0: never) */
    int order_ok;                /* i was calls - 1, and s held files 0..i */
    char *path[200];
    size_t nglobals[200], nfindings[200], first_global[200];
    ts_scan_class verdict[200];
    char *module[200];           /* its first global's, or NULL */
    size_t errors[200];          /* ts_scan_error_count(s) then */
} each_seen;

static int on_each(void *user, const ts_scan *s, size_t i)
{
    each_seen *e = user;
    const ts_scan_file *f = ts_scan_file_at(s, i);
    e->order_ok &= i == e->calls && ts_scan_file_count(s) == i + 1 && f != NULL &&
                   ts_scan_global_count(s) == f->first_global + f->nglobals &&
                   ts_scan_finding_count(s) == f->first_finding + f->nfindings;
    if (f && i < 200) {
        e->path[i] = strdup(f->path);
        e->nglobals[i] = f->nglobals;
        e->nfindings[i] = f->nfindings;
        e->first_global[i] = f->first_global;
        e->verdict[i] = f->verdict;
        e->module[i] = f->nglobals ? strdup(ts_scan_global_at(s, f->first_global)->module)
                                   : NULL;
        e->errors[i] = ts_scan_error_count(s);
    }
    e->calls++;
    return e->stop_at != 0 && e->calls == e->stop_at;
}

static void each_free(each_seen *e)
{
    for (size_t i = 0; i < 200; i++) {
        free(e->path[i]);
        free(e->module[i]);
    }
}

/* ts_scan_open_each on a folder of n files: each file delivered once, in
 * path order, as the finished scan has it, with the files before it (on
 * threads for 150 files, on the calling thread for 20). */
static void check_each_folder(int n)
{
    char dir[] = "/tmp/tshape-scan-XXXXXX";
    write_scan_folder(dir, n);
    ts_scan *all, *each;
    ts_error err;
    each_seen *e = calloc(1, sizeof *e);
    ck_assert_ptr_nonnull(e);
    e->order_ok = 1;
    ck_assert_msg(ts_scan_open(dir, &all, &err) == TS_OK, "%s", err.message);
    ck_assert_msg(ts_scan_open_each(dir, on_each, e, &each, &err) == TS_OK, "%s", err.message);
    ck_assert_int_eq(e->order_ok, 1);
    ck_assert_uint_eq(e->calls, (size_t)n);
    ck_assert_uint_eq(ts_scan_file_count(each), (size_t)n);
    ck_assert_uint_eq(ts_scan_global_count(each), ts_scan_global_count(all));
    ck_assert_uint_eq(ts_scan_finding_count(each), ts_scan_finding_count(all));
    ck_assert_uint_eq(ts_scan_error_count(each), (size_t)n / 4);
    for (size_t i = 0; i < (size_t)n; i++) {
        const ts_scan_file *a = ts_scan_file_at(all, i), *b = ts_scan_file_at(each, i);
        ck_assert_str_eq(e->path[i], a->path);
        ck_assert_str_eq(b->path, a->path);
        ck_assert_uint_eq(e->nglobals[i], a->nglobals);
        ck_assert_uint_eq(e->nfindings[i], a->nfindings);
        ck_assert_uint_eq(e->first_global[i], a->first_global);
        ck_assert_uint_eq(b->first_global, a->first_global);
        ck_assert_int_eq(e->verdict[i], a->verdict);
        ck_assert_int_eq(e->verdict[i], i % 4 == 2 ? TS_SCAN_NONE : i % 4 == 1 ? TS_SCAN_DATA
                                                                             : TS_SCAN_DANGEROUS);
        /* (the errors so far: the cut pickles, one file in 4 from f003) */
        ck_assert_uint_eq(e->errors[i], (i + 1) / 4);
        if (a->nglobals)
            ck_assert_str_eq(e->module[i], ts_scan_global_at(all, a->first_global)->module);
        else
            ck_assert_ptr_null(e->module[i]);
    }
    ck_assert_str_eq(e->module[1], "torch._utils");
    ck_assert_str_eq(e->module[3], "posix");
    ts_scan_close(all);
    ts_scan_close(each);
    each_free(e);

    /* a callback that says stop: no scan, nothing reported after it */
    memset(e, 0, sizeof *e);
    e->order_ok = 1;
    e->stop_at = 12;
    each = (ts_scan *)1;
    ck_assert_int_eq(ts_scan_open_each(dir, on_each, e, &each, &err), TS_ERR_CANCELED);
    ck_assert_str_eq(err.message, "stopped by the callback after 12 files");
    ck_assert_ptr_null(each);
    ck_assert_uint_eq(e->calls, 12);
    ck_assert_int_eq(e->order_ok, 1);
    each_free(e);
    free(e);
    remove_scan_folder(dir, n);
}

START_TEST(test_scan_each_threads)
{
    check_each_folder(150);
}
END_TEST

START_TEST(test_scan_each_small)
{
    check_each_folder(20);
}
END_TEST

/* One file and one image: one call; a stop there is TS_ERR_CANCELED too. */
START_TEST(test_scan_each_file)
{
    char dir[] = "/tmp/tshape-scan-XXXXXX", path[256];
    write_scan_folder(dir, 2);
    snprintf(path, sizeof path, "%s/f001.bin", dir);
    each_seen *e = calloc(1, sizeof *e);
    ck_assert_ptr_nonnull(e);
    e->order_ok = 1;
    ts_scan *s;
    ts_error err;
    ck_assert_msg(ts_scan_open_each(path, on_each, e, &s, &err) == TS_OK, "%s", err.message);
    ck_assert_uint_eq(e->calls, 1);
    ck_assert_int_eq(e->order_ok, 1);
    ck_assert_str_eq(e->path[0], path);
    ck_assert_uint_eq(e->nglobals[0], 3);
    ck_assert_str_eq(e->module[0], "torch._utils");
    ck_assert_int_eq(e->verdict[0], TS_SCAN_DATA);
    ts_scan_close(s);
    each_free(e);
    memset(e, 0, sizeof *e);
    e->stop_at = 1;
    ck_assert_int_eq(ts_scan_open_each(path, on_each, e, &s, &err), TS_ERR_CANCELED);
    ck_assert_ptr_null(s);
    ck_assert_uint_eq(e->calls, 1);
    each_free(e);
    free(e);
    /* NULL each: ts_scan_open */
    ck_assert_msg(ts_scan_open_each(path, NULL, NULL, &s, &err) == TS_OK, "%s", err.message);
    ck_assert_uint_eq(ts_scan_global_count(s), 3);
    ts_scan_close(s);
    remove_scan_folder(dir, 2);
}
END_TEST

Suite *scan_suite(void)
{
    Suite *s = suite_create("scan");
    TCase *tc = tcase_create("globals");
    tcase_add_test(tc, test_classes);
    tcase_add_test(tc, test_weights_only_tables);
    suite_add_tcase(s, tc);
    tc = tcase_create("machine");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_protocol0);
    tcase_add_test(tc, test_limits);
    tcase_add_test(tc, test_machine_reset);
    tcase_add_test(tc, test_long_lines_sparse);
    suite_add_tcase(s, tc);
    tc = tcase_create("scan");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_scan_pickle);
    tcase_add_test(tc, test_scan_weights_only);
    tcase_add_test(tc, test_scan_zip_differentials);
    tcase_add_test(tc, test_numpy_in_pickle);
    tcase_add_test(tc, test_scan_folder_threads);
    tcase_add_test(tc, test_scan_each_threads);
    tcase_add_test(tc, test_scan_each_small);
    tcase_add_test(tc, test_scan_each_file);
    suite_add_tcase(s, tc);
    return s;
}
