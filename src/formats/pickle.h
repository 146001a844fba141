/*
 * pickle.h - a restricted pickle machine: it interprets every opcode of
 * pickle protocols 0 to 5 (CPython's Lib/pickle.py) and builds a tree of
 * plain values. It never executes, imports or looks up anything: a GLOBAL
 * is a name that the caller's classifier gives a role, a REDUCE is recorded
 * as a call node (function and arguments), NEWOBJ, INST and OBJ as object
 * nodes, BUILD as the state of the node it targets, a persistent id as a
 * node holding the id. Readers give the tree its meaning (pytorch.c:
 * tensors and values); scan.c watches the machine run (ts__pk_observe_fn).
 *
 * Everything the input controls is bounded: opcodes (each consumes at least
 * one byte), lengths (never beyond the bytes left), the value stack, the
 * memo, the number of values and of container items, mark nesting, value
 * nesting (checked at the opcode that makes a value too deep) and GLOBAL
 * line length. Strings and bytes point into the input, which must outlive
 * the tree, except the text of protocol 0 opcodes (STRING, UNICODE), which
 * is decoded into memory the machine owns (flag `owned`).
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
    TS__PK_CALL,       /* REDUCE: func (what was called: a GLOBAL, or any
                          value for a chain), args (a TUPLE); u.seq: items
                          added by APPEND(S)/SETITEM(S)/ADDITEMS (see
                          `items`) */
    TS__PK_OBJECT,     /* NEWOBJ, NEWOBJ_EX, INST, OBJ: func (the class),
                          args (a TUPLE); u.seq as for CALL */
    TS__PK_PERSID      /* BINPERSID, PERSID: args = the persistent id */
} ts__pk_kind;

/* What a global may do. The classifier decides; TS__PK_REFUSE stops the
 * machine at the opcode that names the global. */
typedef enum ts__pk_role {
    TS__PK_REFUSE = 0,
    TS__PK_CONST,      /* a value (a dtype, a class marker): never called */
    TS__PK_CALLABLE,   /* REDUCE makes a CALL node (nothing is called) */
    TS__PK_DICT_TYPE,  /* REDUCE makes a DICT whose func is the global
                          (OrderedDict, defaultdict): with () or ([(k, v),
                          ...],) its items, with other arguments (a
                          defaultdict's factory) none */
    TS__PK_CLASS,      /* NEWOBJ, INST, OBJ make an OBJECT node (TorchScript) */
    TS__PK_INERT       /* a placeholder for a global tshape does not know and
                          does not call dangerous: REDUCE makes a CALL, NEWOBJ
                          INST OBJ an OBJECT, BUILD sets its state, APPEND and
                          SETITEM add items to it; nothing is ever called */
} ts__pk_role;

/* Items a CALL or OBJECT placeholder received (field `items`). */
enum { TS__PK_ITEMS_NONE, TS__PK_ITEMS_LIST, TS__PK_ITEMS_DICT, TS__PK_ITEMS_SET,
       TS__PK_ITEMS_MIXED };

typedef struct ts__pk_value ts__pk_value;
struct ts__pk_value {
    uint8_t kind;            /* ts__pk_kind */
    uint8_t role;            /* GLOBAL: ts__pk_role */
    uint8_t mark;            /* free for consumers (walk colour) */
    uint8_t items;           /* CALL, OBJECT: TS__PK_ITEMS_* */
    uint8_t owned;           /* STR, BYTES: u.s.p is the machine's decoded
                                copy, not a pointer into the input;
                                containers: u.seq.v is a memory block of
                                its own, not part of a slab */
    uint8_t op;              /* the opcode byte that made it */
    uint16_t depth;          /* nesting: 0 for scalars, 1 + the deepest
                                value a container, call or object holds
                                (when it was added) */
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
    int64_t data_at;         /* free for observers (joblib: the input offset
                                of the array bytes after this wrapper); 0 */
};

/* The classifier: the role of global module.name (bytes, not
 * NUL-terminated; "__builtin__" is passed as "builtins", as Python 3 maps
 * it), and a tag the caller chooses. */
typedef ts__pk_role (*ts__pk_classify_fn)(void *ctx, const char *module, size_t module_len,
                                          const char *name, size_t name_len, int *tag);

/* What an observer sees (ts__pk_options.observe), before the machine acts
 * on it. */
typedef enum ts__pk_event_kind {
    TS__PK_EV_GLOBAL,   /* GLOBAL, STACK_GLOBAL, INST: module/name as
                           written in the pickle (no "__builtin__" mapping) */
    TS__PK_EV_REDUCE,   /* a: what is called, b: its arguments */
    TS__PK_EV_NEWOBJ,   /* NEWOBJ, NEWOBJ_EX, INST, OBJ: a: the class, b: the
                           arguments */
    TS__PK_EV_BUILD,    /* a: the target, b: the state */
    TS__PK_EV_APPEND,   /* APPEND(S), SETITEM(S), ADDITEMS: a: the target */
    TS__PK_EV_PERSID    /* BINPERSID, PERSID: a: the id */
} ts__pk_event_kind;

typedef struct ts__pk_event {
    ts__pk_event_kind kind;
    unsigned char op;        /* the opcode byte */
    size_t at;               /* its input offset */
    const char *module, *name; /* GLOBAL */
    size_t module_len, name_len;
    ts__pk_value *a, *b;     /* observers may annotate them (data_at) */
    const unsigned char *data; /* the input (len bytes); the opcode ends at
                                  `pos` */
    size_t len, pos;
    size_t skip;             /* BUILD, set by the observer: bytes after the
                                opcode that are not pickle (joblib writes an
                                array's bytes there); checked against len */
} ts__pk_event;

/* Returns TS_OK to go on; anything else stops the load with that status
 * (the observer fills the error). */
typedef ts_status (*ts__pk_observe_fn)(void *ctx, ts__pk_event *e, ts_error *err);

typedef struct ts__pk_options {
    ts__pk_classify_fn classify;
    void *ctx;
    int allow_persid;        /* 1: BINPERSID and PERSID make PERSID nodes;
                                0: refused */
    const char *where;       /* names the pickle in messages: "cnn/data.pkl" */
    int64_t base;            /* file offset of input byte 0, or -1 when the
                                input is not in the file (inflated) */
    ts__pk_observe_fn observe; /* NULL, or called for each event */
    void *observe_ctx;
    ts__source *src;         /* when set, the input is this source's image
                                from `base` on, and the machine asks for
                                bytes (ts__source_need) before it reads
                                them: a pickle of unknown length (legacy
                                torch.save) costs what it runs over */
} ts__pk_options;

/* Limits (far above what real checkpoints use: torch.save pushes a few
 * values per tensor, and Python's pickler writes container items in
 * batches of 1000). */
#define TS__PK_MAX_STACK (1u << 20)     /* value stack entries */
#define TS__PK_MAX_MEMO (16u << 20)     /* memo entries */
#define TS__PK_MAX_VALUES (16u << 20)   /* nodes made, per machine */
#define TS__PK_MAX_ITEMS (32u << 20)    /* container items, per machine */
#define TS__PK_MAX_MARKS 1000           /* open MARKs */
#define TS__PK_MAX_DEPTH 1000           /* value nesting */
#define TS__PK_MAX_GLOBAL_LINE 1024     /* GLOBAL module and name lines,
                                           protocol 0 numbers and ids */
#define TS__PK_MAX_TEXT_LINE (64u << 20) /* protocol 0 STRING and UNICODE */

typedef struct ts__pk ts__pk;

/* A machine owns the nodes of every pickle it loads, until ts__pk_free.
 * With a file f its memory is f's scratch memory (reader.h: freed by f if
 * a fault ends the reader); with f NULL, malloc. */
ts_status ts__pk_new(ts__pk **out, ts_file *f, ts_error *err);
void ts__pk_free(ts__pk *pk);
/* Empties pk for pickles of another input (scan.c: one machine per thread
 * for the files of a folder): the nodes of earlier loads are gone and the
 * limits on values and items count from zero again; its largest blocks of
 * memory, its stack and memo are kept for reuse. */
void ts__pk_reset(ts__pk *pk);

/*
 * Runs the pickle that starts at data[start] (data has len bytes) up to its
 * STOP, as pickle.load does (any protocol; PROTO may be absent). *out
 * receives the result, *end the offset after STOP. The memo is emptied
 * first (each pickle has its own); nodes of earlier loads stay valid.
 * Offsets in nodes and messages are offsets in data; err->offset is
 * opts->base + that offset, or -1 when base is -1. Errors: TS_ERR_FORMAT (a
 * bad pickle: invalid opcode, stack underflow, wrong operand types; the
 * message names the byte), TS_ERR_TRUNCATED (the data ends inside an opcode
 * or before STOP: with more data the load could go on), TS_ERR_UNSUPPORTED
 * (a global the classifier refuses, a refused opcode (EXT1/2/4, out-of-band
 * buffers), a REDUCE or NEWOBJ or BUILD the roles do not allow; the message
 * names it and says nothing was executed), TS_ERR_LIMIT, TS_ERR_NOMEM, or
 * what the observer returned.
 */
ts_status ts__pk_load(ts__pk *pk, const unsigned char *data, size_t len, size_t start,
                      const ts__pk_options *opts, ts__pk_value **out, size_t *end,
                      ts_error *err);

/* For an observer: loads the pickle that starts at e->pos of the event's
 * input (joblib's object array) on a machine of its own, whose values are
 * dropped, and sets e->skip to its length. Errors: those of ts__pk_load. */
ts_status ts__pk_skip_nested(ts_file *f, ts__pk_event *e, const ts__pk_options *opts,
                             ts_error *err);

/* Number of opcodes run by the machine so far, over all loads. */
uint64_t ts__pk_opcodes(const ts__pk *pk);

/* The opcodes the last load ran: 1 when byte op was one. */
int ts__pk_opcode_seen(const ts__pk *pk, unsigned char op);

/* The name of opcode byte op ("BINUNICODE"), or NULL when it is none. */
const char *ts__pk_opcode_name(unsigned char op);

/* 1 when data[0..len) starts with torch's legacy magic number pickle:
 * PROTO 2-5, an optional FRAME, LONG1 of 0x1950a86a20f9469cfc6c, memo
 * opcodes, STOP (pytorch.c). Allocates nothing. */
int ts__torch_legacy_magic(const unsigned char *data, size_t len);

/* Name of a kind, for messages: "int", "str", "tuple", "call" ... */
const char *ts__pk_kind_name(int kind);

#endif /* TSHAPE_PICKLE_H */
