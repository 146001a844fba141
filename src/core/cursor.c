/* cursor.c - bounds-checked reading of little-endian integers from a byte
 * range: every read checks what is left first (see ts__cursor in internal.h). */
#include "internal.h"
#include "../formats/source.h"

/* Bytes asked for at least, so that reading a header field by field does
 * not ask for each field (the source reads ahead further). */
#define FETCH_MIN 4096

ts_status ts__cursor_fetch_at(ts__cursor *c, size_t pos, size_t n, ts_error *err)
{
    if (!c->src || (pos >= c->have_lo && pos + n <= c->have_hi))
        return TS_OK;
    size_t want = n < FETCH_MIN ? FETCH_MIN : n;
    if (want > c->len - pos)
        want = c->len - pos;
    ts_status st = ts__source_need(c->src, c->src_off + pos, want, err);
    if (!st) {
        c->have_lo = pos;
        c->have_hi = pos + want;
    }
    return st;
}

ts_status ts__cursor_need(ts__cursor *c, size_t n, const char *what, ts_error *err)
{
    if (n > c->len - c->pos)
        return ts__fail(err, TS_ERR_TRUNCATED, 0, (int64_t)c->pos,
                        "file ends inside %s at byte %zu: need %zu bytes, %zu left",
                        what, c->pos, n, c->len - c->pos);
    return ts__cursor_fetch(c, n, err);
}

ts_status ts__read_u32(ts__cursor *c, uint32_t *out, const char *what, ts_error *err)
{
    ts_status st = ts__cursor_need(c, 4, what, err);
    if (st)
        return st;
    *out = ts__le32(c->data + c->pos);
    c->pos += 4;
    return TS_OK;
}

ts_status ts__read_i32(ts__cursor *c, int32_t *out, const char *what, ts_error *err)
{
    uint32_t u;
    ts_status st = ts__read_u32(c, &u, what, err);
    if (st)
        return st;
    memcpy(out, &u, sizeof *out);
    return TS_OK;
}

ts_status ts__read_u64(ts__cursor *c, uint64_t *out, const char *what, ts_error *err)
{
    ts_status st = ts__cursor_need(c, 8, what, err);
    if (st)
        return st;
    *out = ts__le64(c->data + c->pos);
    c->pos += 8;
    return TS_OK;
}

ts_status ts__read_i64(ts__cursor *c, int64_t *out, const char *what, ts_error *err)
{
    uint64_t u;
    ts_status st = ts__read_u64(c, &u, what, err);
    if (st)
        return st;
    memcpy(out, &u, sizeof *out);
    return TS_OK;
}

ts_status ts__skip(ts__cursor *c, uint64_t n, const char *what, ts_error *err)
{
    if (n > (uint64_t)(c->len - c->pos))
        return ts__fail(err, TS_ERR_TRUNCATED, 0, (int64_t)c->pos,
                        "file ends inside %s at byte %zu: need %llu bytes, %zu left",
                        what, c->pos, (unsigned long long)n, c->len - c->pos);
    c->pos += (size_t)n;
    return TS_OK;
}
