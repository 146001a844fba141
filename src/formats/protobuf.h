/*
 * protobuf.h - a walker over the protobuf wire format, shared by the ONNX,
 * Caffe and Caffe2 readers.
 *
 * It never copies or reads a payload: a length-delimited field is returned
 * as (offset, length) inside the file image and skipped by its length, so
 * time and memory do not depend on the size of the weights. Every length is
 * checked against the end of the enclosing message (and so of the file);
 * varints longer than 10 bytes, wire types 3, 4, 6, 7 (groups and
 * non-existent ones) and field number 0 are corrupt input; sub-messages
 * nest at most TS__PB_MAX_DEPTH deep (protobuf's own default limit).
 *
 * Truncated files: a length-delimited field whose length runs past the end
 * of the file is still returned (f->truncated set, length clamped to what is
 * there), so a reader can descend into it and name the innermost place the
 * file ends (a tensor's raw_data rather than the graph that holds it). The
 * next call on that message, or the end of the clamped sub-message, then
 * fails with TS_ERR_TRUNCATED.
 *
 * Over a file's byte source (ts__pb_init_src), the walker asks for the
 * bytes it decodes (keys, varints, fixed values) and for length-delimited
 * payloads of at most TS__PB_AUTO_FETCH bytes (names, dims, small strings);
 * a reader that reads a longer payload asks with ts__pb_fetch first. Skipped
 * payloads (tensor data) are never fetched.
 */
#ifndef TSHAPE_PROTOBUF_H
#define TSHAPE_PROTOBUF_H

#include "../core/internal.h"
#include "source.h"

#define TS__PB_MAX_DEPTH 100

enum { TS__PB_VARINT = 0, TS__PB_FIXED64 = 1, TS__PB_LEN = 2, TS__PB_FIXED32 = 5 };

/* A message: the bytes [pos, end) of the image `base`. */
typedef struct ts__pb_msg {
    const unsigned char *base;   /* the whole file image */
    size_t pos, end;             /* absolute offsets */
    size_t file_len;             /* length of the image */
    uint64_t declared_end;       /* end its length promised (> end: clamped) */
    int depth;                   /* 0 for the top-level message */
    int pending;                 /* a truncated field was returned */
    size_t pending_key;          /* its key offset, for the error */
    uint64_t pending_len;        /* its declared length */
    ts_status status;            /* the error of the last failed ts__pb_next */
    ts__source *src;             /* NULL: the image holds every byte */
} ts__pb_msg;

/* Length-delimited payloads up to this many bytes are fetched with their
 * field. */
#define TS__PB_AUTO_FETCH 4096

typedef struct ts__pb_field {
    uint32_t number;
    int wire;
    uint64_t value;              /* varint value, or fixed32/fixed64 bits */
    size_t key_pos;              /* absolute offset of the key */
    size_t pos;                  /* absolute offset of the payload */
    size_t len;                  /* payload bytes (varint: its encoded length) */
    uint64_t declared_len;       /* wire 2: the length as written */
    int truncated;               /* wire 2: runs past the end of the file */
} ts__pb_field;

/* The whole image [0, len) as the top-level message. */
void ts__pb_init(ts__pb_msg *m, const unsigned char *base, size_t len);
/* The same over a file's image whose bytes come from src (NULL: all
 * there); sub-messages inherit it. */
void ts__pb_init_src(ts__pb_msg *m, const unsigned char *base, size_t len, ts__source *src);

/* Asks m's source for the payload of field f (a no-op without a source).
 * Errors: those of ts__source_need. */
ts_status ts__pb_fetch(const ts__pb_msg *m, const ts__pb_field *f, ts_error *err);

/*
 * Next field of m: 1 with *f filled, 0 at the end of the message, -1 on
 * corrupt input (err set: TS_ERR_FORMAT, TS_ERR_TRUNCATED, with the byte
 * offset; m->status holds the code, since err may be NULL).
 */
int ts__pb_next(ts__pb_msg *m, ts__pb_field *f, ts_error *err);

/* The payload of length-delimited field f of m as a sub-message. Errors:
 * TS_ERR_FORMAT (not length-delimited), TS_ERR_LIMIT (nesting deeper than
 * TS__PB_MAX_DEPTH). */
ts_status ts__pb_sub(const ts__pb_msg *m, const ts__pb_field *f, ts__pb_msg *child,
                     ts_error *err);

/* Decodes one varint at base[*pos] before `end` (at most 10 bytes, the 10th
 * adding only bit 63). Errors as ts__pb_next; `what` names the value. */
ts_status ts__pb_varint(const unsigned char *base, size_t *pos, size_t end, uint64_t *out,
                        const char *what, ts_error *err);

/* Number of varints in the packed payload of field f of m, each checked.
 * Reads (and so fetches) the payload: use it for the small varint lists
 * (dims, int32_data). */
ts_status ts__pb_count_varints(const ts__pb_msg *m, const ts__pb_field *f, int64_t *count,
                               ts_error *err);

/* TS_OK when field f has wire type `wire`, else TS_ERR_FORMAT naming `what`
 * ("dims"), the field and its byte offset. */
ts_status ts__pb_want(const ts__pb_field *f, int wire, const char *what, ts_error *err);

/* Collects a repeated int64 field (dims) that may come unpacked (one varint
 * per key) or packed: appends to dims[*ndim], at most TS_MAX_NDIM in all
 * (TS_ERR_NDIM beyond), each checked to be >= 0 (TS_ERR_VALUE). */
ts_status ts__pb_dims(const ts__pb_msg *m, const ts__pb_field *f, int64_t *dims, int *ndim,
                      const char *what, ts_error *err);

/* Name of a wire type for messages ("varint", "length-delimited", ...). */
const char *ts__pb_wire_name(int wire);

#endif /* TSHAPE_PROTOBUF_H */
