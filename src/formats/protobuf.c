/*
 * protobuf.c - the protobuf wire-format walker (see protobuf.h). Keys and
 * varints are decoded; payloads are only located, never read.
 */
#include "protobuf.h"

const char *ts__pb_wire_name(int wire)
{
    switch (wire) {
    case 0: return "varint";
    case 1: return "fixed64";
    case 2: return "length-delimited";
    case 3: return "group start";
    case 4: return "group end";
    case 5: return "fixed32";
    default: return "invalid";
    }
}

void ts__pb_init(ts__pb_msg *m, const unsigned char *base, size_t len)
{
    ts__pb_init_src(m, base, len, NULL);
}

void ts__pb_init_src(ts__pb_msg *m, const unsigned char *base, size_t len, ts__source *src)
{
    memset(m, 0, sizeof *m);
    m->base = base;
    m->end = len;
    m->file_len = len;
    m->declared_end = len;
    m->src = src;
}

ts_status ts__pb_fetch(const ts__pb_msg *m, const ts__pb_field *f, ts_error *err)
{
    return m->src && f->wire == TS__PB_LEN ? ts__source_need(m->src, f->pos, f->len, err)
                                            : TS_OK;
}

/* The most bytes a key and the value after it take: two 10-byte varints. */
#define KEY_VALUE_MAX 20

/* The bytes [pos, end) end before a value that needs more: truncation when
 * `end` is the end of the file, else a value running past its message. */
static ts_status cut(size_t end, size_t file_len, size_t at, const char *what, ts_error *err)
{
    if (end >= file_len)
        return ts__fail(err, TS_ERR_TRUNCATED, 0, (int64_t)at,
                        "file ends inside %s at byte %zu", what, at);
    return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)at,
                    "%s at byte %zu runs past the end of its message (byte %zu)", what, at,
                    end);
}

static ts_status varint_at(const unsigned char *base, size_t *pos, size_t end, size_t file_len,
                           uint64_t *out, const char *what, ts_error *err)
{
    uint64_t v = 0;
    size_t p = *pos;
    for (int i = 0; i < 10; i++) {
        if (p >= end)
            return cut(end, file_len, *pos, what, err);
        unsigned char b = base[p++];
        if (i == 9 && (b & 0x80))
            break;
        if (i == 9 && b > 1)
            return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)*pos,
                            "%s at byte %zu: varint overflows 64 bits", what, *pos);
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *out = v;
            *pos = p;
            return TS_OK;
        }
    }
    return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)*pos,
                    "%s at byte %zu: varint longer than 10 bytes", what, *pos);
}

ts_status ts__pb_varint(const unsigned char *base, size_t *pos, size_t end, uint64_t *out,
                        const char *what, ts_error *err)
{
    /* Without the message, a cut value counts as running past `end`. */
    return varint_at(base, pos, end, SIZE_MAX, out, what, err);
}

static int next_field(ts__pb_msg *m, ts__pb_field *f, ts_error *err)
{
    if (m->pending) {
        ts__fail(err, TS_ERR_TRUNCATED, 0, (int64_t)m->file_len,
                 "file ends at byte %zu inside the field at byte %zu, whose length promises "
                 "%llu bytes", m->file_len, m->pending_key,
                 (unsigned long long)m->pending_len);
        return -1;
    }
    if (m->pos >= m->end) {
        if (m->declared_end > m->end) {
            ts__fail(err, TS_ERR_TRUNCATED, 0, (int64_t)m->end,
                     "file ends at byte %zu inside a message that should end at byte %llu",
                     m->end, (unsigned long long)m->declared_end);
            return -1;
        }
        return 0;
    }
    memset(f, 0, sizeof *f);
    f->key_pos = m->pos;
    uint64_t key;
    size_t p = m->pos;
    if (m->src) {
        ts_status st = ts__source_need(m->src, p, m->end - p < KEY_VALUE_MAX ? m->end - p
                                                                             : KEY_VALUE_MAX,
                                       err);
        if (st)
            return -1;
    }
    if (varint_at(m->base, &p, m->end, m->file_len, &key, "field key", err))
        return -1;
    f->wire = (int)(key & 7);
    uint64_t number = key >> 3;
    if (number == 0 || number > 0x1fffffff) {
        ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)f->key_pos,
                 "byte %zu: invalid field number %llu", f->key_pos, (unsigned long long)number);
        return -1;
    }
    f->number = (uint32_t)number;
    switch (f->wire) {
    case TS__PB_VARINT:
        f->pos = p;
        if (varint_at(m->base, &p, m->end, m->file_len, &f->value, "varint field", err))
            return -1;
        f->len = p - f->pos;
        break;
    case TS__PB_FIXED64:
    case TS__PB_FIXED32: {
        size_t n = f->wire == TS__PB_FIXED64 ? 8 : 4;
        if (m->end - p < n) {
            cut(m->end, m->file_len, p, f->wire == TS__PB_FIXED64 ? "fixed64 field"
                                                                  : "fixed32 field", err);
            return -1;
        }
        f->pos = p;
        f->len = n;
        f->value = n == 8 ? ts__le64(m->base + p) : ts__le32(m->base + p);
        p += n;
        break;
    }
    case TS__PB_LEN: {
        uint64_t len;
        if (varint_at(m->base, &p, m->end, m->file_len, &len, "field length", err))
            return -1;
        f->pos = p;
        f->declared_len = len;
        if (len > m->end - p) {
            if (m->end < m->file_len) {
                ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)f->key_pos,
                         "field %u at byte %zu: length %llu runs past the end of its "
                         "message (byte %zu)", f->number, f->key_pos,
                         (unsigned long long)len, m->end);
                return -1;
            }
            f->truncated = 1;
            f->len = m->end - p;
            m->pending = 1;
            m->pending_key = f->key_pos;
            m->pending_len = len;
        } else {
            f->len = (size_t)len;
        }
        if (m->src && f->len <= TS__PB_AUTO_FETCH && f->len > 0 &&
            ts__source_need(m->src, f->pos, f->len, err))
            return -1;
        p += f->len;
        break;
    }
    default:
        ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)f->key_pos,
                 "byte %zu: field %u has wire type %d (%s), which these files never use",
                 f->key_pos, f->number, f->wire, ts__pb_wire_name(f->wire));
        return -1;
    }
    m->pos = p;
    return 1;
}

int ts__pb_next(ts__pb_msg *m, ts__pb_field *f, ts_error *err)
{
    ts_error local;
    int k = next_field(m, f, err ? err : &local);
    if (k < 0)
        m->status = err ? err->code : local.code;
    return k;
}

ts_status ts__pb_sub(const ts__pb_msg *m, const ts__pb_field *f, ts__pb_msg *child,
                     ts_error *err)
{
    if (f->wire != TS__PB_LEN)
        return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)f->key_pos,
                        "field %u at byte %zu: expected a message (length-delimited), "
                        "found wire type %s", f->number, f->key_pos,
                        ts__pb_wire_name(f->wire));
    if (m->depth + 1 > TS__PB_MAX_DEPTH)
        return ts__fail(err, TS_ERR_LIMIT, 0, (int64_t)f->key_pos,
                        "messages nested more than %d deep at byte %zu", TS__PB_MAX_DEPTH,
                        f->key_pos);
    memset(child, 0, sizeof *child);
    child->src = m->src;
    child->base = m->base;
    child->pos = f->pos;
    child->end = f->pos + f->len;
    child->file_len = m->file_len;
    child->declared_end = (uint64_t)f->pos + f->declared_len;
    child->depth = m->depth + 1;
    return TS_OK;
}

ts_status ts__pb_count_varints(const ts__pb_msg *m, const ts__pb_field *f, int64_t *count,
                               ts_error *err)
{
    int64_t n = 0;
    size_t pos = f->pos, end = f->pos + f->len;
    const unsigned char *base = m->base;
    ts_status st0 = ts__pb_fetch(m, f, err);
    if (st0)
        return st0;
    while (pos < end) {
        uint64_t v;
        ts_status st = ts__pb_varint(base, &pos, end, &v, "packed varint", err);
        if (st)
            return st;
        n++;
    }
    *count = n;
    return TS_OK;
}

ts_status ts__pb_want(const ts__pb_field *f, int wire, const char *what, ts_error *err)
{
    if (f->wire == wire)
        return TS_OK;
    return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)f->key_pos,
                    "%s (field %u) at byte %zu is %s, expected %s", what, f->number,
                    f->key_pos, ts__pb_wire_name(f->wire), ts__pb_wire_name(wire));
}

static ts_status push_dim(int64_t *dims, int *ndim, uint64_t v, size_t at, const char *what,
                          ts_error *err)
{
    if (*ndim >= TS_MAX_NDIM)
        return ts__fail(err, TS_ERR_NDIM, 0, (int64_t)at,
                        "%s at byte %zu: more than %d dims", what, at, TS_MAX_NDIM);
    if ((int64_t)v < 0)
        return ts__fail(err, TS_ERR_VALUE, 0, (int64_t)at,
                        "%s at byte %zu: dim %d is negative (%lld)", what, at, *ndim,
                        (long long)(int64_t)v);
    dims[(*ndim)++] = (int64_t)v;
    return TS_OK;
}

ts_status ts__pb_dims(const ts__pb_msg *m, const ts__pb_field *f, int64_t *dims, int *ndim,
                      const char *what, ts_error *err)
{
    if (f->wire == TS__PB_VARINT)
        return push_dim(dims, ndim, f->value, f->key_pos, what, err);
    const unsigned char *base = m->base;
    ts_status st = ts__pb_want(f, TS__PB_LEN, what, err);
    if (!st)
        st = ts__pb_fetch(m, f, err);
    size_t p = f->pos, e = f->pos + f->len;
    while (!st && p < e) {
        uint64_t v;
        size_t at = p;
        st = ts__pb_varint(base, &p, e, &v, what, err);
        if (!st)
            st = push_dim(dims, ndim, v, at, what, err);
    }
    return st;
}
