/*
 * zip.c - central directory reading and member access for npz and PyTorch
 * archives (see zip.h). APPNOTE.TXT 4.3: end record, zip64 end record and
 * locator when present, central entries with their zip64 extra fields, and
 * each member's local header (NumPy writes a zip64 extra field only in the
 * local headers, so the central entry cannot give where the data starts).
 */
#include "zip.h"

#include <stdlib.h>
#include <zlib.h>

#define EOCD_LEN 22
#define EOCD64_LEN 56
#define EOCD64_LOCATOR_LEN 20
#define CDH_LEN 46    /* central directory file header */
#define LFH_LEN 30    /* local file header */
/* Deflate cannot expand more than about 1032:1 (zlib's FAQ); 1040 leaves
 * room for the few bytes of block headers of a tiny member. */
#define DEFLATE_MAX_RATIO 1040

struct ts__zip {
    ts_file *file;            /* owns this struct's memory (scratch) and
                                 gives its bytes (ts__file_need) */
    const unsigned char *data;
    size_t len;
    size_t count;
    ts__zip_member *members;
    char *names;              /* all names, NUL-terminated, in one block */
};

static int sig_at(const unsigned char *d, size_t len, uint64_t pos, const char *sig)
{
    return pos <= len && len - pos >= 4 && memcmp(d + pos, sig, 4) == 0;
}

/* Finds the end-of-central-directory record: the last "PK\5\6" in the
 * last 22 + 65535 bytes whose comment fits in the file. */
static ts_status find_eocd(const unsigned char *d, size_t len, size_t *out, ts_error *err)
{
    if (len >= EOCD_LEN) {
        size_t lo = len - EOCD_LEN > 65535 ? len - EOCD_LEN - 65535 : 0;
        for (size_t pos = len - EOCD_LEN;; pos--) {
            if (memcmp(d + pos, "PK\5\6", 4) == 0 &&
                ts__le16(d + pos + 20) <= len - pos - EOCD_LEN) {
                *out = pos;
                return TS_OK;
            }
            if (pos == lo)
                break;
        }
    }
    if (sig_at(d, len, 0, "PK\3\4"))
        return ts__fail(err, TS_ERR_TRUNCATED, 0, (int64_t)len,
                        "zip archive is truncated: no end-of-central-directory record "
                        "in its %zu bytes", len);
    return ts__fail(err, TS_ERR_FORMAT, 0, 0,
                    "not a zip archive: no end-of-central-directory record in its %zu "
                    "bytes", len);
}

/* Where the central directory is, from the end record (or the zip64 one). */
typedef struct cd_loc {
    uint64_t count, off, size, end;
    size_t eocd;
} cd_loc;

static ts_status locate_cd(ts_file *f, const unsigned char *d, size_t len, cd_loc *loc,
                           ts_error *err)
{
    size_t eocd = 0;
    /* The end record is in the last 22 + 65535 bytes. */
    size_t tail = len > EOCD_LEN + 65535 ? EOCD_LEN + 65535 : len;
    ts_status st = ts__file_need(f, len - tail, tail, err);
    if (st || (st = find_eocd(d, len, &eocd, err)))
        return st;
    uint64_t disk = ts__le16(d + eocd + 4), cd_disk = ts__le16(d + eocd + 6);
    loc->eocd = eocd;
    loc->count = ts__le16(d + eocd + 10);
    loc->size = ts__le32(d + eocd + 12);
    loc->off = ts__le32(d + eocd + 16);
    loc->end = eocd;
    if (eocd >= EOCD64_LOCATOR_LEN && sig_at(d, len, eocd - EOCD64_LOCATOR_LEN, "PK\6\7")) {
        size_t lp = eocd - EOCD64_LOCATOR_LEN;
        uint64_t rec = ts__le64(d + lp + 8);
        if (rec <= lp && lp - rec >= EOCD64_LEN && (st = ts__file_need(f, rec, EOCD64_LEN, err)))
            return st;
        if (rec > lp || lp - rec < EOCD64_LEN || !sig_at(d, len, rec, "PK\6\6"))
            return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)lp,
                            "zip64 end-of-central-directory locator at byte %zu points to "
                            "byte %llu, where there is no zip64 end record", lp,
                            (unsigned long long)rec);
        disk = ts__le32(d + rec + 16);
        cd_disk = ts__le32(d + rec + 20);
        loc->count = ts__le64(d + rec + 32);
        loc->size = ts__le64(d + rec + 40);
        loc->off = ts__le64(d + rec + 48);
        loc->end = rec;
    }
    if (disk != 0 || cd_disk != 0)
        return ts__fail(err, TS_ERR_UNSUPPORTED, 0, (int64_t)eocd,
                        "multi-disk zip archives are not supported (end record at byte "
                        "%zu names disk %llu)", eocd, (unsigned long long)disk);
    if (loc->off > loc->end || loc->size > loc->end - loc->off)
        return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)eocd,
                        "central directory of %llu bytes at byte %llu overlaps its end "
                        "record at byte %llu", (unsigned long long)loc->size,
                        (unsigned long long)loc->off, (unsigned long long)loc->end);
    if (loc->count > loc->size / CDH_LEN)
        return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)eocd,
                        "end record at byte %zu declares %llu entries, but the central "
                        "directory has room for at most %llu", eocd,
                        (unsigned long long)loc->count,
                        (unsigned long long)(loc->size / CDH_LEN));
    return TS_OK;
}

/* Sizes and local header offset of the central entry at p (its variable
 * fields already bounds-checked): the 32-bit fields, or, for those that hold
 * 0xFFFFFFFF, the zip64 extra field, where they appear in this order. */
static ts_status entry_sizes(const unsigned char *d, size_t p, size_t i, ts__zip_member *m,
                             uint64_t *local, ts_error *err)
{
    uint64_t v[3] = {ts__le32(d + p + 24), ts__le32(d + p + 20), ts__le32(d + p + 42)};
    int need = (v[0] == 0xFFFFFFFFu) + (v[1] == 0xFFFFFFFFu) + (v[2] == 0xFFFFFFFFu);
    if (need > 0) {
        size_t name_len = ts__le16(d + p + 28), extra_len = ts__le16(d + p + 30);
        size_t q = p + CDH_LEN + name_len, end = q + extra_len;
        int found = 0;
        while (!found && end - q >= 4) {
            size_t id = ts__le16(d + q), sz = ts__le16(d + q + 2);
            q += 4;
            if (sz > end - q)
                break;
            if (id == 1 && sz >= (size_t)need * 8) {
                for (int k = 0; k < 3; k++)
                    if (v[k] == 0xFFFFFFFFu) {
                        v[k] = ts__le64(d + q);
                        q += 8;
                    }
                found = 1;
            }
            q += found ? 0 : sz;
        }
        if (!found)
            return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)p,
                            "central directory entry %zu at byte %zu: a size or offset is "
                            "0xFFFFFFFF but no zip64 extra field gives it", i, p);
    }
    m->size = v[0];
    m->comp_size = v[1];
    *local = v[2];
    return TS_OK;
}

/* Finds where member m's bytes start from its local header, and checks
 * that they lie inside the file. */
static ts_status member_data(ts_file *f, const unsigned char *d, size_t len,
                             ts__zip_member *m, uint64_t local, ts_error *err)
{
    ts_status st;
    if (local <= len && (st = ts__file_need(f, local, LFH_LEN, err)))
        return st;
    if (local > len || len - local < LFH_LEN || !sig_at(d, len, local, "PK\3\4"))
        return ts__fail(err, local > len || len - local < LFH_LEN ? TS_ERR_TRUNCATED
                                                                  : TS_ERR_FORMAT,
                        0, (int64_t)(local < len ? local : len),
                        "local header at byte %llu: expected the signature PK\\3\\4 and %d "
                        "bytes in a %zu-byte file", (unsigned long long)local, LFH_LEN, len);
    uint64_t start = local + LFH_LEN + ts__le16(d + local + 26) + ts__le16(d + local + 28);
    if ((st = ts__file_need(f, local + LFH_LEN, start - local - LFH_LEN, err)))
        return st;
    if (start > len || m->comp_size > len - start)
        return ts__fail(err, TS_ERR_TRUNCATED, 0, (int64_t)(start < len ? start : len),
                        "member data of %llu bytes at byte %llu runs past the end of the "
                        "%zu-byte file", (unsigned long long)m->comp_size,
                        (unsigned long long)start, len);
    m->local_offset = (int64_t)local;
    m->data_offset = (int64_t)start;
    return TS_OK;
}

/* Checks what a member's sizes promise against what its bytes can hold. */
static ts_status check_sizes(const ts__zip_member *m, ts_error *err)
{
    if (m->size > INT64_MAX)
        return ts__fail(err, TS_ERR_FORMAT, 0, m->local_offset,
                        "uncompressed size %llu does not fit in int64",
                        (unsigned long long)m->size);
    /* A stored member's bytes are its data: its uncompressed size must equal
     * the bytes it occupies, or data_offset + nbytes would point past them
     * (NumPy fails such a file on its CRC). */
    if (m->method == TS__ZIP_STORED && m->size != m->comp_size)
        return ts__fail(err, TS_ERR_FORMAT, 0, m->local_offset,
                        "stored member declares %llu uncompressed bytes but occupies %llu",
                        (unsigned long long)m->size, (unsigned long long)m->comp_size);
    if (m->method == TS__ZIP_DEFLATED && m->size / DEFLATE_MAX_RATIO > m->comp_size)
        return ts__fail(err, TS_ERR_FORMAT, 0, m->local_offset,
                        "deflated member declares %llu uncompressed bytes from %llu "
                        "compressed ones, more than deflate can expand (about 1032:1)",
                        (unsigned long long)m->size, (unsigned long long)m->comp_size);
    return TS_OK;
}

/* Bytes asked for at each local header when the directory has been read:
 * the header, its name and extra field (PyTorch pads it to align the data
 * at 64 bytes) and, for an npz, the start of the npy header after it; a
 * sparse source rounds each range out to a page anyway. */
#define LOCAL_AHEAD 512

/* Asks for the local headers of every entry of the directory at once (one
 * request for all of them on a remote file), before they are read one by
 * one. The local header offsets are those of the 32-bit fields; zip64
 * offsets are asked for when read. */
static ts_status need_local_headers(ts__zip *z, const cd_loc *loc, ts_error *err)
{
    const unsigned char *d = z->data;
    size_t p = (size_t)loc->off, end = (size_t)(loc->off + loc->size), n = 0;
    ts__range *r = ts__scratch_alloc(z->file, (z->count ? z->count : 1) * sizeof *r, err);
    if (!r)
        return TS_ERR_NOMEM;
    for (size_t i = 0; i < z->count && end - p >= CDH_LEN; i++) {
        size_t var = (size_t)ts__le16(d + p + 28) + ts__le16(d + p + 30) + ts__le16(d + p + 32);
        uint64_t local = ts__le32(d + p + 42);
        if (local < z->len) {
            r[n].off = local;
            r[n].len = LFH_LEN + ts__le16(d + p + 28) + LOCAL_AHEAD;
            n++;
        }
        if (var > end - p - CDH_LEN)
            break;
        p += CDH_LEN + var;
    }
    ts_status st = ts__source_need_ranges(ts__file_source(z->file), r, n, err);
    ts__scratch_free(z->file, r);
    return st;
}

static ts_status read_entries(ts__zip *z, const cd_loc *loc, ts_error *err)
{
    const unsigned char *d = z->data;
    size_t p = (size_t)loc->off, end = (size_t)(loc->off + loc->size);
    ts_status st0 = ts__file_need(z->file, loc->off, loc->size, err);
    if (st0 || (st0 = need_local_headers(z, loc, err)))
        return st0;
    /* The names lie inside the directory: its size plus a NUL per entry
     * bounds them, and the file bounds that. */
    z->names = ts__scratch_alloc(z->file, (size_t)loc->size + z->count + 1, err);
    if (!z->names)
        return TS_ERR_NOMEM;
    char *w = z->names;
    for (size_t i = 0; i < z->count; i++) {
        if (end - p < CDH_LEN || !sig_at(d, z->len, p, "PK\1\2"))
            return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)p,
                            "central directory entry %zu at byte %zu: expected the "
                            "signature PK\\1\\2 and %d bytes", i, p, CDH_LEN);
        size_t name_len = ts__le16(d + p + 28);
        size_t var = name_len + ts__le16(d + p + 30) + ts__le16(d + p + 32);
        if (var > end - p - CDH_LEN)
            return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)p,
                            "central directory entry %zu at byte %zu: its name, extra field "
                            "and comment (%zu bytes) run past the directory's end at byte %zu",
                            i, p, var, end);
        ts__zip_member *m = &z->members[i];
        memcpy(w, d + p + CDH_LEN, name_len);
        w[name_len] = '\0';
        m->name = w;
        w += name_len + 1;
        uint64_t local = 0;
        m->method = ts__le16(d + p + 10);
        m->flags = ts__le16(d + p + 8);
        m->crc32 = ts__le32(d + p + 16);
        ts_status st = memchr(m->name, '\0', name_len)
                       ? ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)(p + CDH_LEN),
                                  "central directory entry %zu at byte %zu: its name contains "
                                  "a NUL byte", i, p)
                       : entry_sizes(d, p, i, m, &local, err);
        if (!st)
            st = member_data(z->file, d, z->len, m, local, err);
        if (!st)
            st = check_sizes(m, err);
        if (st) {
            char shown[96];
            ts__error_entry(err, (int64_t)i, "member '%s'", ts__printable(m->name, name_len, shown,
                                                               sizeof shown));
            return st;
        }
        p += CDH_LEN + var;
    }
    return TS_OK;
}

ts_status ts__zip_open(ts__zip **out, ts_file *f, const unsigned char *data, size_t len,
                       ts_error *err)
{
    *out = NULL;
    cd_loc loc;
    ts_status st = locate_cd(f, data, len, &loc, err);
    if (st)
        return st;
    /* the archive ends with its end record and comment */
    ts__file_set_extent(f, (int64_t)loc.eocd + EOCD_LEN + ts__le16(data + loc.eocd + 20));
    ts__zip *z = ts__scratch_alloc(f, sizeof *z, err);
    if (!z)
        return TS_ERR_NOMEM;
    memset(z, 0, sizeof *z);
    z->file = f;
    z->data = data;
    z->len = len;
    z->count = (size_t)loc.count;
    /* count <= cd_size / 46 <= len / 46: bounded by the file size. */
    z->members = ts__scratch_alloc(f, (z->count ? z->count : 1) * sizeof *z->members, err);
    st = z->members ? read_entries(z, &loc, err) : TS_ERR_NOMEM;
    if (st) {
        ts__zip_close(f, z);
        return st;
    }
    *out = z;
    return TS_OK;
}

void ts__zip_close(ts_file *f, ts__zip *z)
{
    if (!z)
        return;
    ts__scratch_free(f, z->members);
    ts__scratch_free(f, z->names);
    ts__scratch_free(f, z);
}

size_t ts__zip_count(const ts__zip *z)
{
    return z->count;
}

const ts__zip_member *ts__zip_member_at(const ts__zip *z, size_t i)
{
    return i < z->count ? &z->members[i] : NULL;
}

/* Inflates the start of a raw deflate stream into buf[0..n). */
/* Compressed bytes asked for per step of inflate_prefix: a few times what
 * an npy header needs, growing with what is inflated. */
#define INFLATE_AHEAD ((uint64_t)4096)

static ts_status inflate_prefix(ts_file *f, const ts__zip_member *m, const unsigned char *src,
                                unsigned char *buf, size_t n, size_t *got, ts_error *err)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit2(&zs, -MAX_WBITS) != Z_OK)
        return ts__error(err, TS_ERR_NOMEM, "cannot start zlib's inflate");
    ts_status st = TS_OK;
    uint64_t in_left = m->comp_size;
    zs.next_out = buf;
    *got = 0;
    /* avail_in/avail_out are 32-bit: feed and drain in bounded steps. */
    while (*got < n) {
        if (zs.avail_in == 0 && in_left > 0) {
            /* Asked for in steps that grow with the output wanted: a
             * header costs a few KiB of a remote member, not all of it. */
            uint64_t ahead = INFLATE_AHEAD + (n - *got) / 2;
            uInt step = in_left > ahead ? (uInt)ahead : (uInt)in_left;
            uint64_t at = (uint64_t)m->data_offset + (m->comp_size - in_left);
            if ((st = ts__file_need(f, at, step, err)))
                break;
            zs.next_in = (Bytef *)(uintptr_t)(src + (m->comp_size - in_left));
            zs.avail_in = step;
            in_left -= step;
        }
        size_t want = n - *got;
        zs.avail_out = want > (1u << 30) ? (1u << 30) : (uInt)want;
        zs.next_out = buf + *got;
        int rc = inflate(&zs, Z_NO_FLUSH);
        *got += (size_t)(zs.next_out - (buf + *got));
        if (rc == Z_STREAM_END)
            break;
        if (rc == Z_BUF_ERROR && zs.avail_in == 0 && in_left == 0) {
            st = ts__fail(err, TS_ERR_TRUNCATED, 0, m->data_offset,
                          "deflate stream of %llu bytes at byte %lld ends after %zu "
                          "uncompressed bytes", (unsigned long long)m->comp_size,
                          (long long)m->data_offset, *got);
            break;
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR) {
            st = ts__fail(err, rc == Z_MEM_ERROR ? TS_ERR_NOMEM : TS_ERR_FORMAT, 0,
                          m->data_offset, "corrupt deflate stream at byte %lld: %s",
                          (long long)m->data_offset, zs.msg ? zs.msg : "zlib error");
            break;
        }
    }
    inflateEnd(&zs);
    return st;
}

ts_status ts__zip_read(const ts__zip *z, size_t i, unsigned char *buf, size_t n, size_t *got,
                       ts_error *err)
{
    const ts__zip_member *m = ts__zip_member_at(z, i);
    *got = 0;
    if (!m)
        return ts__error(err, TS_ERR_INVALID_ARG, "no zip member %zu", i);
    if (n > m->size)
        n = (size_t)m->size;
    const unsigned char *src = z->data + m->data_offset;
    ts_status st = ts__zip_readable(m, err);
    if (st)
        return st;
    if (m->method == TS__ZIP_DEFLATED)
        return inflate_prefix(z->file, m, src, buf, n, got, err);
    if ((st = ts__file_need(z->file, (uint64_t)m->data_offset, n, err)))
        return st;
    memcpy(buf, src, n);
    *got = n;
    return TS_OK;
}

ts_status ts__zip_readable(const ts__zip_member *m, ts_error *err)
{
    if (m->method == TS__ZIP_STORED || m->method == TS__ZIP_DEFLATED)
        return TS_OK;
    return ts__fail(err, TS_ERR_UNSUPPORTED, 0, m->local_offset,
                    "member is compressed with zip method %d; only stored (0) and "
                    "deflated (8) members can be read", m->method);
}

const char *ts__zip_method_name(int m)
{
    switch (m) {
    case 0: return "stored";
    case 1: return "shrunk";
    case 2: case 3: case 4: case 5: return "reduced";
    case 6: return "imploded";
    case 8: return "deflated";
    case 9: return "deflate64";
    case 12: return "bzip2";
    case 14: return "LZMA";
    case 93: return "zstd";
    case 95: return "xz";
    case 96: return "JPEG";
    case 97: return "WavPack";
    case 98: return "PPMd";
    case 99: return "AES-encrypted";
    default: return "unknown";
    }
}

ts_status ts__zip_read_growing(const ts__zip *z, size_t i, ts_file *f, size_t first,
                               ts__zip_try_fn try_fn, void *arg, unsigned char **buf,
                               ts_error *err)
{
    const ts__zip_member *m = ts__zip_member_at(z, i);
    *buf = NULL;
    if (!m)
        return ts__error(err, TS_ERR_INVALID_ARG, "no zip member %zu", i);
    ts_status st;
    if (m->method == TS__ZIP_STORED)
        return (st = ts__file_need(z->file, (uint64_t)m->data_offset, m->size, err))
                   ? st
                   : try_fn(arg, z->data + m->data_offset, (size_t)m->size, m->data_offset, err);
    st = ts__zip_readable(m, err);
    if (st) {
        ts__error_prefix(err, "%s", m->name);
        return st;
    }
    if (m->size > SIZE_MAX)
        return ts__error(err, TS_ERR_NOMEM, "%s: out of memory for %llu bytes", m->name,
                         (unsigned long long)m->size);
    unsigned char *out = NULL;
    size_t got = 0, cap = m->size < first ? (size_t)m->size : first;
    for (;;) {
        unsigned char *p = ts__scratch_realloc(f, out, cap ? cap : 1, NULL);
        if (!p) {
            st = ts__error(err, TS_ERR_NOMEM, "out of memory for %s (%zu bytes)", m->name, cap);
            break;
        }
        out = p;
        if ((st = ts__zip_read(z, i, out, cap, &got, err)) == TS_OK && got < cap)
            st = ts__error(err, TS_ERR_TRUNCATED, "inflates to %zu bytes, not %llu", got,
                           (unsigned long long)m->size);
        if (st) {
            ts__error_prefix(err, "%s", m->name);
            break;
        }
        st = try_fn(arg, out, got, -1, err);
        if (st != TS_ERR_TRUNCATED || got == m->size)
            break;
        cap = m->size / 4 < cap ? (size_t)m->size : cap * 4;
    }
    if (st) {
        ts__scratch_free(f, out);
        return st;
    }
    *buf = out;
    return TS_OK;
}
