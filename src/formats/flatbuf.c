/*
 * flatbuf.c - the FlatBuffers walk of flatbuf.h, shared by the TFLite and
 * ExecuTorch readers: verifier-style checks of every offset, vtable, field
 * and vector before it is read.
 */
#include "flatbuf.h"

void ts__fb_init(ts__fb *r, ts_file *f, const unsigned char *d, size_t len, unsigned factor,
                 ts_error *err)
{
    r->f = f;
    r->d = d;
    r->len = len;
    r->err = err;
    r->work = 0;
    r->work_max = (uint64_t)factor * len + ((uint64_t)16 << 20);
}

ts_status ts__fb_visit(ts__fb *r, uint64_t bytes, size_t at)
{
    r->work += bytes;
    if (r->work > r->work_max)
        return ts__fail(r->err, TS_ERR_LIMIT, 0, (int64_t)at,
                        "the file's tables point at the same data over and over (more than "
                        "%llu bytes visited for a %zu-byte file, at byte %zu)",
                        (unsigned long long)r->work_max, r->len, at);
    return TS_OK;
}

/* Asks for bytes [off, off + n), which must lie inside the file. */
ts_status ts__fb_need(ts__fb *r, uint64_t off, uint64_t n, const char *what)
{
    if (off > r->len || n > r->len - off)
        return ts__fail(r->err, TS_ERR_TRUNCATED, 0, (int64_t)off,
                        "%s at byte %llu needs %llu bytes, but the file ends at byte %zu",
                        what, (unsigned long long)off, (unsigned long long)n, r->len);
    return ts__file_need(r->f, off, n, r->err);
}

ts_status ts__fb_table(ts__fb *r, size_t pos, const char *what, ts__fbt *t)
{
    ts_status st;
    if (pos % 4)
        return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)pos,
                        "%s at byte %zu is not 4-byte aligned", what, pos);
    if ((st = ts__fb_need(r, pos, 4, what)))
        return st;
    int32_t so = (int32_t)ts__le32(r->d + pos);
    int64_t vt = (int64_t)pos - so;
    if (vt < 0 || (uint64_t)vt + 4 > r->len || vt % 2)
        return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)pos,
                        "%s at byte %zu: its vtable offset %ld points %s", what, pos, (long)so,
                        vt % 2 ? "at an odd byte" : "outside the file");
    if ((st = ts__fb_need(r, (uint64_t)vt, 4, what)))
        return st;
    t->pos = pos;
    t->vt = (size_t)vt;
    t->vsize = ts__le16(r->d + t->vt);
    t->tsize = ts__le16(r->d + t->vt + 2);
    if (t->vsize < 4 || t->vsize % 2 || t->tsize < 4)
        return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)t->vt,
                        "%s at byte %zu: its vtable at byte %zu gives a %u-byte vtable and a "
                        "%u-byte table", what, pos, t->vt, t->vsize, t->tsize);
    if ((st = ts__fb_need(r, t->vt, t->vsize, what)) || (st = ts__fb_need(r, pos, t->tsize, what)))
        return st;
    return ts__fb_visit(r, (uint64_t)t->vsize + t->tsize, pos);
}

/* The position of field `id` (`size` bytes, aligned to `align`), or 0 when
 * the table does not have it. */
ts_status ts__fb_field(ts__fb *r, const ts__fbt *t, unsigned id, unsigned size, const char *what,
                       size_t *at)
{
    *at = 0;
    size_t slot = 4 + 2 * (size_t)id;
    if (slot + 2 > t->vsize)
        return TS_OK;
    unsigned vo = ts__le16(r->d + t->vt + slot);
    if (vo == 0)
        return TS_OK;
    if (vo < 4 || vo + size > t->tsize)
        return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)t->pos,
                        "field %s at offset %u of the %u-byte table at byte %zu lies outside "
                        "it", what, vo, t->tsize, t->pos);
    if ((t->pos + vo) % size)
        return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)(t->pos + vo),
                        "field %s at byte %zu is not %u-byte aligned", what, t->pos + vo,
                        size);
    *at = t->pos + vo;
    return TS_OK;
}

ts_status ts__fb_u8(ts__fb *r, const ts__fbt *t, unsigned id, const char *what, unsigned *out)
{
    size_t at;
    ts_status st = ts__fb_field(r, t, id, 1, what, &at);
    *out = at ? r->d[at] : 0;
    return st;
}

ts_status ts__fb_u32(ts__fb *r, const ts__fbt *t, unsigned id, const char *what, uint32_t *out)
{
    size_t at;
    ts_status st = ts__fb_field(r, t, id, 4, what, &at);
    *out = at ? ts__le32(r->d + at) : 0;
    return st;
}

ts_status ts__fb_u64(ts__fb *r, const ts__fbt *t, unsigned id, const char *what, uint64_t *out)
{
    size_t at;
    ts_status st = ts__fb_field(r, t, id, 8, what, &at);
    *out = at ? ts__le64(r->d + at) : 0;
    return st;
}

/* The target of the u32 offset at `at` (checked: nonzero, below 2^31,
 * inside the file). */
ts_status ts__fb_deref(ts__fb *r, size_t at, const char *what, size_t *target)
{
    uint32_t o = ts__le32(r->d + at);
    if (o == 0 || o > INT32_MAX)
        return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)at,
                        "%s: the offset at byte %zu is %lu (not a FlatBuffers offset)", what,
                        at, (unsigned long)o);
    if (o >= r->len - at)
        return ts__fail(r->err, TS_ERR_TRUNCATED, 0, (int64_t)at,
                        "%s: the offset at byte %zu points to byte %llu, past the end of the "
                        "%zu-byte file", what, at, (unsigned long long)at + o, r->len);
    *target = at + o;
    return TS_OK;
}

/* The target of offset field `id`, or 0 when absent. */
ts_status ts__fb_ref(ts__fb *r, const ts__fbt *t, unsigned id, const char *what, size_t *target)
{
    size_t at;
    ts_status st = ts__fb_field(r, t, id, 4, what, &at);
    *target = 0;
    return st || !at ? st : ts__fb_deref(r, at, what, target);
}

/* A vector at pos of elements of esize bytes: *n elements at *data. Only
 * the count is asked for; the caller asks for the elements it reads. */
ts_status ts__fb_vector(ts__fb *r, size_t pos, unsigned esize, const char *what, size_t *n,
                        size_t *data)
{
    ts_status st;
    if (pos % 4)
        return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)pos,
                        "%s at byte %zu is not 4-byte aligned", what, pos);
    if ((st = ts__fb_need(r, pos, 4, what)))
        return st;
    uint32_t count = ts__le32(r->d + pos);
    if (count > (r->len - pos - 4) / esize)
        return ts__fail(r->err, TS_ERR_TRUNCATED, 0, (int64_t)pos,
                        "%s at byte %zu holds %lu elements of %u bytes, but only %zu bytes "
                        "are left in the file", what, pos, (unsigned long)count, esize,
                        r->len - pos - 4);
    *n = count;
    *data = pos + 4;
    return TS_OK;
}

/* Vector field `id` whose elements are read: count and elements asked for.
 * Absent: *n = 0. */
ts_status ts__fb_vector_field(ts__fb *r, const ts__fbt *t, unsigned id, unsigned esize,
                              const char *what, size_t *n, size_t *data)
{
    size_t pos;
    ts_status st = ts__fb_ref(r, t, id, what, &pos);
    *n = 0;
    *data = 0;
    if (st || !pos)
        return st;
    if ((st = ts__fb_vector(r, pos, esize, what, n, data)) ||
        (st = ts__fb_need(r, *data, (uint64_t)*n * esize, what)))
        return st;
    return ts__fb_visit(r, (uint64_t)*n * esize, pos);
}

ts_status ts__fb_root_version(ts__fb *r, const char *what, ts__fbt *root, uint32_t *version)
{
    size_t pos;
    ts_status st = ts__fb_deref(r, 0, "the root table", &pos);
    if (!st)
        st = ts__fb_table(r, pos, what, root);
    if (!st)
        st = ts__fb_u32(r, root, 0, "version", version);
    if (st)
        return st;
    const char *vt = ts__file_printf(r->f, r->err, "%lu", (unsigned long)*version);
    if (!vt)
        return TS_ERR_NOMEM;
    ts__file_set_version(r->f, vt);
    return TS_OK;
}

/* String field `id`: *p and *n (0 and NULL when absent). */
ts_status ts__fb_string_field(ts__fb *r, const ts__fbt *t, unsigned id, const char *what,
                              const unsigned char **p, size_t *n)
{
    size_t pos, at;
    ts_status st = ts__fb_ref(r, t, id, what, &pos);
    *p = NULL;
    *n = 0;
    if (st || !pos)
        return st;
    if ((st = ts__fb_vector(r, pos, 1, what, n, &at)))
        return st;
    if (*n == r->len - at)
        return ts__fail(r->err, TS_ERR_TRUNCATED, 0, (int64_t)pos,
                        "%s at byte %zu: the file ends before its NUL byte", what, pos);
    if ((st = ts__fb_need(r, at, *n + 1, what)) || (st = ts__fb_visit(r, *n + 1, pos)))
        return st;
    if (r->d[at + *n] != 0)
        return ts__fail(r->err, TS_ERR_FORMAT, 0, (int64_t)(at + *n),
                        "%s at byte %zu is not NUL-terminated", what, pos);
    *p = r->d + at;
    return TS_OK;
}

/* Element i of a vector of tables at data (the offsets asked for). */
ts_status ts__fb_element(ts__fb *r, size_t data, size_t i, const char *what, ts__fbt *t)
{
    size_t pos;
    ts_status st = ts__fb_deref(r, data + 4 * i, what, &pos);
    return st ? st : ts__fb_table(r, pos, what, t);
}

