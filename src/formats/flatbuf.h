/*
 * flatbuf.h - a FlatBuffer walked with the checks of flatbuffers' Verifier
 * (flatbuffers/verifier.h), for the readers of FlatBuffers formats (TFLite,
 * ExecuTorch). Not installed.
 *
 * The wire format (flatbuffers.dev, "FlatBuffers internals"), all
 * little-endian: byte 0 holds the u32 offset of the root table; a table
 * starts with an i32, its vtable being at (table - that value); a vtable
 * holds u16 vtable bytes, u16 table bytes, then one u16 per field id: the
 * field's offset in the table, 0 (or past the vtable's end) when the field
 * is absent; a table, vector or string field holds a u32 added to the
 * field's own position; a vector is a u32 element count and the elements;
 * a string is a vector of bytes followed by a NUL byte.
 *
 * Every offset, vtable, field and vector length is checked against the
 * buffer before it is used: tables, vectors and offset fields 4-byte
 * aligned, vtables 2-byte aligned with an even size of at least 4, offsets
 * nonzero and below 2^31, scalar fields aligned to their size and inside
 * their table, strings NUL-terminated. Bytes are asked for (ts__file_need)
 * before they are read. Since a FlatBuffer may point many offsets at one
 * table, the bytes a walk visits are bounded (work_max), as the Verifier
 * bounds the tables it visits. Messages name `what` and the byte offset.
 */
#ifndef TSHAPE_FLATBUF_H
#define TSHAPE_FLATBUF_H

#include "reader.h"

typedef struct ts__fb {
    ts_file *f;
    const unsigned char *d;      /* the image: the FlatBuffer starts at d[0] */
    size_t len;                  /* bytes of the FlatBuffer (and after it) */
    ts_error *err;
    uint64_t work, work_max;     /* bytes visited, and the bound */
} ts__fb;

/* A table: its position, its vtable's, and their sizes. */
typedef struct ts__fbt {
    size_t pos, vt;
    unsigned vsize, tsize;
} ts__fbt;

/* Starts a walk of d[0..len) of f: at most factor * len + 16 MiB bytes
 * visited. */
void ts__fb_init(ts__fb *r, ts_file *f, const unsigned char *d, size_t len, unsigned factor,
                 ts_error *err);
/* Counts `bytes` visited at byte `at`: TS_ERR_LIMIT past the bound. */
ts_status ts__fb_visit(ts__fb *r, uint64_t bytes, size_t at);
/* Asks for bytes [off, off + n), which must lie inside the buffer
 * (TS_ERR_TRUNCATED). */
ts_status ts__fb_need(ts__fb *r, uint64_t off, uint64_t n, const char *what);
/* The table at pos. */
ts_status ts__fb_table(ts__fb *r, size_t pos, const char *what, ts__fbt *t);
/* The position of field `id` (`size` bytes, aligned to `size`), or 0 when
 * the table does not have it. */
ts_status ts__fb_field(ts__fb *r, const ts__fbt *t, unsigned id, unsigned size,
                       const char *what, size_t *at);
/* Scalar fields: 0 when absent (FlatBuffers' default for the ids read). */
ts_status ts__fb_u8(ts__fb *r, const ts__fbt *t, unsigned id, const char *what, unsigned *out);
ts_status ts__fb_u32(ts__fb *r, const ts__fbt *t, unsigned id, const char *what,
                     uint32_t *out);
ts_status ts__fb_u64(ts__fb *r, const ts__fbt *t, unsigned id, const char *what,
                     uint64_t *out);
/* The target of the u32 offset at `at` (nonzero, below 2^31, inside). */
ts_status ts__fb_deref(ts__fb *r, size_t at, const char *what, size_t *target);
/* The target of offset field `id`, or 0 when absent. */
ts_status ts__fb_ref(ts__fb *r, const ts__fbt *t, unsigned id, const char *what,
                     size_t *target);
/* A vector at pos of esize-byte elements: *n at *data; only the count is
 * asked for. */
ts_status ts__fb_vector(ts__fb *r, size_t pos, unsigned esize, const char *what, size_t *n,
                        size_t *data);
/* Vector field `id`, its elements asked for and visited; absent: *n 0. */
ts_status ts__fb_vector_field(ts__fb *r, const ts__fbt *t, unsigned id, unsigned esize,
                              const char *what, size_t *n, size_t *data);
/* String field `id`: *p and *n (NULL and 0 when absent). */
ts_status ts__fb_string_field(ts__fb *r, const ts__fbt *t, unsigned id, const char *what,
                              const unsigned char **p, size_t *n);
/* The root table (`what` names it) and its u32 field 0, the schema's
 * version (TFLite Model.version, ExecuTorch Program.version), which
 * becomes the file's version. */
ts_status ts__fb_root_version(ts__fb *r, const char *what, ts__fbt *root, uint32_t *version);
/* Element i of a vector of tables at data (the offsets asked for). */
ts_status ts__fb_element(ts__fb *r, size_t data, size_t i, const char *what, ts__fbt *t);

#endif /* TSHAPE_FLATBUF_H */
