/*
 * pickle.h - a restricted pickle machine: it interprets the opcodes of
 * pickle protocols 2 to 5 that tensor files use and builds a tree of plain
 * values. It never executes, imports or looks up anything: a GLOBAL is a
 * name checked against the caller's allowlist, a REDUCE is recorded as a
 * call node (function and arguments), a persistent id as a node holding the
 * id. Readers give the tree its meaning (pytorch.c: tensors and values).
 *
 * Everything the input controls is bounded: opcodes (each consumes at least
 * one byte), lengths (never beyond the bytes left), the value stack, the
 * memo, the number of values, mark nesting and GLOBAL line length. Strings
 * and bytes point into the input, which must outlive the tree.
 *
 * Memo reads return the same node, not a copy (reference semantics, as
 * Python): a tree may share sub-trees, and a hostile pickle may make a
 * container contain itself. Consumers walk it with explicit stacks, cycle
 * checks and counts (see pytorch.c).
 */
#ifndef TSHAPE_PICKLE_H
#define TSHAPE_PICKLE_H

#include "../core/internal.h"
#include "source.h"

typedef enum ts__pk_kind {
    TS__PK_NONE,
    TS__PK_BOOL,       /* u.i: 0 or 1 */
    TS__PK_INT,        /* u.i */
    TS__PK_BIGINT,     /* u.s: > 8 bytes of little-endian two's complement */
    TS__PK_FLOAT,      /* u.f */
    TS__PK_STR,        /* u.s: UTF-8 (unchecked: torch writes surrogatepass) */
    TS__PK_BYTES,      /* u.s */
    TS__PK_TUPLE,      /* u.seq */
    TS__PK_LIST,       /* u.seq */
    TS__PK_DICT,       /* u.seq: 2n entries, key then value, in insertion
                          order; func: the dict class (OrderedDict) or NULL;
                          args: a list of (key, value) tuples given to the
                          class (its first items), or NULL */
    TS__PK_SET,        /* u.seq */
    TS__PK_FROZENSET,  /* u.seq */
    TS__PK_GLOBAL,     /* u.g; tag and role from the classifier */
    TS__PK_CALL,       /* REDUCE: func (a GLOBAL), args (a TUPLE) */
    TS__PK_OBJECT,     /* NEWOBJ: func (a GLOBAL of role CLASS), args */
    TS__PK_PERSID      /* BINPERSID: args = the persistent id */
} ts__pk_kind;

/* What a global may do. The classifier decides; anything not listed is
 * TS__PK_REFUSE and stops the machine at the opcode that names it. */
typedef enum ts__pk_role {
    TS__PK_REFUSE = 0,
    TS__PK_CONST,      /* a value (a dtype, a class marker): never called */
    TS__PK_CALLABLE,   /* REDUCE makes a CALL node (nothing is called) */
    TS__PK_DICT_TYPE,  /* REDUCE with () or ([(k, v), ...],) makes a DICT
                          whose func is the global (OrderedDict) */
    TS__PK_CLASS       /* NEWOBJ makes an OBJECT node (TorchScript) */
} ts__pk_role;

typedef struct ts__pk_value ts__pk_value;
struct ts__pk_value {
    uint8_t kind;            /* ts__pk_kind */
    uint8_t role;            /* GLOBAL: ts__pk_role */
    uint8_t mark;            /* free for consumers (walk colour) */
    int tag;                 /* GLOBAL: the classifier's tag */
    int64_t offset;          /* input offset of the opcode that made it (-1
                                for the shared small constants) */
    union {
        int64_t i;
        double f;
        struct {
            const unsigned char *p;
            size_t n;
        } s;
        struct {
            ts__pk_value **v;
            size_t n, cap;
        } seq;
        struct {
            const char *module, *name;  /* not NUL-terminated */
            size_t module_len, name_len;
        } g;
    } u;
    ts__pk_value *func, *args;
    ts__pk_value *state;     /* BUILD's state, or NULL */
    int64_t state_offset;    /* input offset of that BUILD */
    void *aux;               /* free for consumers */
    uint64_t count;          /* free for consumers */
};

/* The allowlist: the role of global module.name (bytes, not NUL-terminated;
 * "__builtin__" is passed as "builtins"), and a tag the caller chooses. */
typedef ts__pk_role (*ts__pk_classify_fn)(void *ctx, const char *module, size_t module_len,
                                          const char *name, size_t name_len, int *tag);

typedef struct ts__pk_options {
    ts__pk_classify_fn classify;
    void *ctx;
    int allow_persid;        /* 1: BINPERSID makes PERSID nodes; 0: refused */
    const char *where;       /* names the pickle in messages: "cnn/data.pkl" */
    int64_t base;            /* file offset of input byte 0, or -1 when the
                                input is not in the file (inflated) */
    ts__source *src;         /* when set, the input is this source's image
                                from `base` on, and the machine asks for
                                bytes (ts__source_need) before it reads
                                them: a pickle of unknown length (legacy
                                torch.save) costs what it runs over */
} ts__pk_options;

/* Limits (far above what real checkpoints use). */
#define TS__PK_MAX_STACK (16u << 20)    /* value stack entries */
#define TS__PK_MAX_MEMO (16u << 20)     /* memo entries */
#define TS__PK_MAX_VALUES (16u << 20)   /* nodes made, per machine */
#define TS__PK_MAX_MARKS 1000           /* open MARKs */
#define TS__PK_MAX_GLOBAL_LINE 1024     /* GLOBAL module and name lines */

typedef struct ts__pk ts__pk;

/* A machine owns the nodes of every pickle it loads, until ts__pk_free.
 * With a file f its memory is f's scratch memory (reader.h: freed by f if
 * a fault ends the reader); with f NULL, malloc. */
ts_status ts__pk_new(ts__pk **out, ts_file *f, ts_error *err);
void ts__pk_free(ts__pk *pk);

/*
 * Runs the pickle that starts at data[start] (data has len bytes) up to its
 * STOP. *out receives the result, *end the offset after STOP. The memo is
 * emptied first (each pickle has its own); nodes of earlier loads stay
 * valid. Offsets in nodes and messages are offsets in data; err->offset is
 * opts->base + that offset, or -1 when base is -1. Errors:
 * TS_ERR_FORMAT (a bad pickle: invalid opcode, stack underflow, wrong
 * operand types; the message names the byte), TS_ERR_TRUNCATED (the data
 * ends inside an opcode or before STOP), TS_ERR_UNSUPPORTED (a global the
 * allowlist refuses, a refused opcode, a REDUCE or NEWOBJ or BUILD the
 * machine does not allow; the message names it and says nothing was
 * executed), TS_ERR_LIMIT, TS_ERR_NOMEM.
 */
ts_status ts__pk_load(ts__pk *pk, const unsigned char *data, size_t len, size_t start,
                      const ts__pk_options *opts, ts__pk_value **out, size_t *end,
                      ts_error *err);

/* Number of opcodes run by the machine so far, over all loads. */
uint64_t ts__pk_opcodes(const ts__pk *pk);

/* Name of a kind, for messages: "int", "str", "tuple", "call" ... */
const char *ts__pk_kind_name(int kind);

/*
 * When module.name is a global that pickle exploits use (os.system,
 * builtins.eval, subprocess.*, ...), a short phrase saying what it does
 * ("runs a shell command"); NULL otherwise.
 */
const char *ts__pk_danger(const char *module, size_t module_len, const char *name,
                          size_t name_len);

#endif /* TSHAPE_PICKLE_H */
