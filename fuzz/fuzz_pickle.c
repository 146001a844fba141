/* fuzz_pickle.c - the restricted pickle machine alone (src/formats/pickle.h),
 * on the input as a pickle of any protocol and on every pickle found in it:
 * one starts at each PROTO byte (0x80) followed by a version 0-5, so torch
 * files are good seeds (their data.pkl members are stored). Pickles run
 * back to back in one machine like the five of a legacy file. The
 * classifier here gives every role to some globals (chosen by the name's
 * length), so REDUCE, NEWOBJ, INST, OBJ, BUILD, dict classes, inert
 * placeholders and persistent ids are all reached, and an observer sees
 * every event (and asks to skip bytes after some BUILDs, as joblib's does);
 * then the tree is walked with an explicit stack, as a reader would, to
 * touch every node. */
#include "fuzz.h"

#include "../src/formats/pickle.h"

static ts__pk_role classify(void *ctx, const char *module, size_t module_len, const char *name,
                            size_t name_len, int *tag)
{
    (void)ctx;
    (void)module;
    (void)name;
    *tag = (int)(module_len + name_len);
    return (ts__pk_role)((module_len + name_len) % 6);
}

static ts_status observe(void *ctx, ts__pk_event *e, ts_error *err)
{
    (void)ctx;
    (void)err;
    FUZZ_CHECK(e->at < e->len || e->len == 0);
    if (e->kind == TS__PK_EV_GLOBAL)
        FUZZ_CHECK(e->module && e->name);
    if (e->kind == TS__PK_EV_BUILD) {
        FUZZ_CHECK(e->a && e->b && e->pos <= e->len);
        e->skip = e->pos < e->len ? e->data[e->pos] % 8 : 0;
    }
    return TS_OK;
}

static size_t sink;

static void walk(ts__pk_value *root, uint8_t mark)
{
    ts__pk_value *stack[256];
    size_t n = 0;
    stack[n++] = root;
    while (n) {
        ts__pk_value *v = stack[--n];
        if (!v || v->mark == mark)
            continue;
        v->mark = mark;
        switch ((ts__pk_kind)v->kind) {
        case TS__PK_STR:
        case TS__PK_BYTES:
        case TS__PK_BIGINT:
            for (size_t i = 0; i < v->u.s.n; i++)
                sink += v->u.s.p[i];
            break;
        case TS__PK_GLOBAL:
            FUZZ_CHECK(v->role != TS__PK_REFUSE);
            sink += v->u.g.module_len + v->u.g.name_len;
            break;
        case TS__PK_TUPLE:
        case TS__PK_LIST:
        case TS__PK_DICT:
        case TS__PK_SET:
        case TS__PK_FROZENSET:
            for (size_t i = 0; i < v->u.seq.n && n < 250; i++)
                stack[n++] = v->u.seq.v[i];
            break;
        case TS__PK_CALL:
        case TS__PK_OBJECT:
        case TS__PK_PERSID:
        case TS__PK_NONE:
        case TS__PK_BOOL:
        case TS__PK_INT:
        case TS__PK_FLOAT:
            break;
        }
        if (n < 250) {
            stack[n++] = v->func;
            stack[n++] = v->args;
            stack[n++] = v->state;
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ts__pk *pk;
    FUZZ_CHECK(ts__pk_new(&pk, NULL, NULL) == TS_OK);
    ts__pk_options o;
    memset(&o, 0, sizeof o);
    o.classify = classify;
    o.observe = observe;
    o.allow_persid = size % 2;
    o.where = "fuzz";
    o.base = 0;
    int starts = 0;
    uint8_t mark = 1;
    for (size_t pos = 0; pos + 1 < size && starts < 16; pos++) {
        if (pos > 0 && (data[pos] != 0x80 || data[pos + 1] > 5))
            continue;
        starts++;
        size_t at = pos;
        for (int k = 0; k < 5; k++) {
            ts__pk_value *v = NULL;
            size_t end = 0;
            ts_error err;
            ts_status st = ts__pk_load(pk, data, size, at, &o, &v, &end, &err);
            if (st != TS_OK) {
                fuzz_check_error(st, &err);
                FUZZ_CHECK(err.offset >= -1 && err.offset <= (int64_t)size);
                break;
            }
            FUZZ_CHECK(v != NULL && end > at && end <= size);
            walk(v, mark++);
            if (mark == 0)
                mark = 1;
            at = end;
            if (at >= size)
                break;
        }
    }
    ts__pk_free(pk);
    return 0;
}
