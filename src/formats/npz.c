/*
 * npz.c - reader for NumPy .npz archives: a zip with one .npy member per
 * array (numpy/lib/npyio.py, savez/savez_compressed and NpzFile).
 *
 * Every member whose name ends in ".npy" is one array, named like NumPy's
 * NpzFile key: the member name without ".npy" ("arr_0", "sub/deep").
 * Other members (NpzFile returns them as raw bytes) and directories are
 * skipped.
 *
 * libzip opens the archive and decompresses; we read only the first bytes
 * of each member, enough for its npy header (never more than the header
 * needs, so a zip bomb costs nothing), and check the member's uncompressed
 * size from the central directory against header + data.
 *
 * libzip has no API for a member's local header offset, which we need for
 * the absolute data offset of stored members. So we also walk the central
 * directory ourselves (end record, zip64 end record when present, entries,
 * zip64 extra fields; APPNOTE.TXT 4.3) with bounded reads, only to learn
 * each entry's local header offset, then read that local header's name
 * and extra lengths: NumPy writes a zip64 extra field only in the local
 * headers, so the central ones are shorter and cannot be used.
 */
#include "npy_header.h"

#include <stdlib.h>
#include <zip.h>

#define EOCD_LEN 22
#define EOCD64_LEN 56
#define EOCD64_LOCATOR_LEN 20
#define CDH_LEN 46    /* central directory file header */
#define LFH_LEN 30    /* local file header */

static int probe_npz(const unsigned char *d, size_t len)
{
    /* np.load: "PK\x03\x04" (a member) or "PK\x05\x06" (an empty zip). */
    return len >= 4 && d[0] == 'P' && d[1] == 'K' &&
           ((d[2] == 3 && d[3] == 4) || (d[2] == 5 && d[3] == 6));
}

/* ------------------------------------------------------------------------ */
/* Central directory: local header offsets only                              */
/* ------------------------------------------------------------------------ */

typedef struct zip_dir {
    uint64_t count;
    uint64_t *local;    /* local header offset of each entry, in order */
} zip_dir;

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

/* The local header offset of the central entry at p (header and its
 * variable fields already bounds-checked): the 32-bit field, or from the
 * zip64 extra field when that holds 0xFFFFFFFF. */
static ts_status entry_local_offset(const unsigned char *d, size_t p, uint64_t i,
                                    uint64_t *out, ts_error *err)
{
    uint64_t off = ts__le32(d + p + 42);
    if (off != 0xFFFFFFFFu) {
        *out = off;
        return TS_OK;
    }
    size_t name_len = ts__le16(d + p + 28), extra_len = ts__le16(d + p + 30);
    size_t q = p + CDH_LEN + name_len, end = q + extra_len;
    while (end - q >= 4) {
        size_t id = ts__le16(d + q), sz = ts__le16(d + q + 2);
        q += 4;
        if (sz > end - q)
            break;
        if (id == 1) {
            /* Present in this order, each only if its 32-bit field is full. */
            size_t skip = (ts__le32(d + p + 24) == 0xFFFFFFFFu ? 8 : 0) +
                          (ts__le32(d + p + 20) == 0xFFFFFFFFu ? 8 : 0);
            if (sz < skip + 8)
                break;
            *out = ts__le64(d + q + skip);
            return TS_OK;
        }
        q += sz;
    }
    return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)p,
                    "central directory entry %llu at byte %zu: local header offset is "
                    "0xFFFFFFFF but no zip64 extra field gives it", (unsigned long long)i, p);
}

static ts_status read_central_dir(const unsigned char *d, size_t len, zip_dir *dir,
                                  ts_error *err)
{
    size_t eocd = 0;
    ts_status st = find_eocd(d, len, &eocd, err);
    if (st)
        return st;
    uint64_t disk = ts__le16(d + eocd + 4), cd_disk = ts__le16(d + eocd + 6);
    uint64_t count = ts__le16(d + eocd + 10);
    uint64_t cd_size = ts__le32(d + eocd + 12), cd_off = ts__le32(d + eocd + 16);
    uint64_t cd_end = eocd;
    if (eocd >= EOCD64_LOCATOR_LEN && sig_at(d, len, eocd - EOCD64_LOCATOR_LEN, "PK\6\7")) {
        size_t loc = eocd - EOCD64_LOCATOR_LEN;
        uint64_t rec = ts__le64(d + loc + 8);
        if (rec > loc || loc - rec < EOCD64_LEN || !sig_at(d, len, rec, "PK\6\6"))
            return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)loc,
                            "zip64 end-of-central-directory locator at byte %zu points to "
                            "byte %llu, where there is no zip64 end record", loc,
                            (unsigned long long)rec);
        disk = ts__le32(d + rec + 16);
        cd_disk = ts__le32(d + rec + 20);
        count = ts__le64(d + rec + 32);
        cd_size = ts__le64(d + rec + 40);
        cd_off = ts__le64(d + rec + 48);
        cd_end = rec;
    }
    if (disk != 0 || cd_disk != 0)
        return ts__fail(err, TS_ERR_UNSUPPORTED, 0, (int64_t)eocd,
                        "multi-disk zip archives are not supported (end record at byte "
                        "%zu names disk %llu)", eocd, (unsigned long long)disk);
    if (cd_off > cd_end || cd_size > cd_end - cd_off)
        return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)eocd,
                        "central directory of %llu bytes at byte %llu overlaps its end "
                        "record at byte %llu", (unsigned long long)cd_size,
                        (unsigned long long)cd_off, (unsigned long long)cd_end);
    if (count > cd_size / CDH_LEN)
        return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)eocd,
                        "end record at byte %zu declares %llu entries, but the central "
                        "directory has room for at most %llu", eocd, (unsigned long long)count,
                        (unsigned long long)(cd_size / CDH_LEN));
    dir->count = count;
    dir->local = NULL;
    if (count == 0)
        return TS_OK;
    /* count <= cd_size / 46 <= len / 46: bounded by the file size. */
    dir->local = malloc((size_t)count * sizeof *dir->local);
    if (!dir->local)
        return ts__error(err, TS_ERR_NOMEM, "out of memory for %llu zip entries",
                         (unsigned long long)count);
    size_t p = (size_t)cd_off, end = (size_t)(cd_off + cd_size);
    for (uint64_t i = 0; i < count; i++) {
        if (end - p < CDH_LEN || !sig_at(d, len, p, "PK\1\2"))
            return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)p,
                            "central directory entry %llu at byte %zu: expected the "
                            "signature PK\\1\\2 and %d bytes", (unsigned long long)i, p, CDH_LEN);
        size_t var = (size_t)ts__le16(d + p + 28) + ts__le16(d + p + 30) + ts__le16(d + p + 32);
        if (var > end - p - CDH_LEN)
            return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)p,
                            "central directory entry %llu at byte %zu: its name, extra field "
                            "and comment (%zu bytes) run past the directory's end at byte %zu",
                            (unsigned long long)i, p, var, end);
        st = entry_local_offset(d, p, i, &dir->local[i], err);
        if (st)
            return st;
        p += CDH_LEN + var;
    }
    return TS_OK;
}

/* ------------------------------------------------------------------------ */
/* Members                                                                   */
/* ------------------------------------------------------------------------ */

static ts_status zip_status(int code)
{
    switch (code) {
    case ZIP_ER_MEMORY: return TS_ERR_NOMEM;
    case ZIP_ER_EOF: return TS_ERR_TRUNCATED;
    case ZIP_ER_NOPASSWD:
    case ZIP_ER_WRONGPASSWD:
    case ZIP_ER_ENCRNOTSUPP:
    case ZIP_ER_COMPNOTSUPP:
    case ZIP_ER_MULTIDISK: return TS_ERR_UNSUPPORTED;
    default: return TS_ERR_FORMAT;
    }
}

/* Reads up to n bytes; *got receives how many arrived before the end. */
static ts_status read_upto(zip_file_t *zf, unsigned char *buf, size_t n, size_t *got,
                           ts_error *err)
{
    *got = 0;
    while (*got < n) {
        zip_int64_t r = zip_fread(zf, buf + *got, n - *got);
        if (r < 0) {
            zip_error_t *ze = zip_file_get_error(zf);
            return ts__error(err, zip_status(zip_error_code_zip(ze)),
                             "cannot read the member: %s", zip_error_strerror(ze));
        }
        if (r == 0)
            break;
        *got += (size_t)r;
    }
    return TS_OK;
}

typedef struct member {
    zip_uint64_t index;
    const char *name;        /* as libzip gives it (UTF-8) */
    uint64_t size;           /* uncompressed, from the central directory */
    int method;
    uint64_t local;          /* local header offset */
    int64_t start;           /* absolute offset of the member's bytes */
} member;

/* Reads and parses the member's npy header into a new array. */
static ts_status read_member(ts_file *f, zip_t *za, const member *m, size_t max_header,
                             ts__npy_prelude *pre, ts_array **out, ts_error *err)
{
    zip_file_t *zf = zip_fopen_index(za, m->index, 0);
    if (!zf) {
        zip_error_t *ze = zip_get_error(za);
        return ts__error(err, zip_status(zip_error_code_zip(ze)), "cannot open the member: %s",
                         zip_error_strerror(ze));
    }
    unsigned char head[TS__NPY_PRELUDE_MAX];
    size_t want = m->size < sizeof head ? (size_t)m->size : sizeof head, got;
    unsigned char *dict = NULL;
    ts_status st = read_upto(zf, head, want, &got, err);
    if (!st && got < want)
        st = ts__fail(err, TS_ERR_TRUNCATED, 0, (int64_t)got,
                      "member data ends after %zu bytes, but its uncompressed size is %llu",
                      got, (unsigned long long)m->size);
    if (!st)
        st = ts__npy_read_prelude(head, got, (int64_t)m->size, max_header, "member", pre, err);
    size_t have = 0;
    if (!st) {
        /* Grow the buffer with what actually arrives, so a header length the
         * data does not back costs no memory. */
        size_t cap = pre->header_len < 65536 ? pre->header_len : 65536;
        dict = malloc(cap ? cap : 1);
        if (!dict)
            st = ts__error(err, TS_ERR_NOMEM, "out of memory for a %zu-byte header", cap);
        have = got - pre->dict_start;
        if (have > pre->header_len)
            have = pre->header_len;
        if (dict)
            memcpy(dict, head + pre->dict_start, have);
        while (!st && have < pre->header_len) {
            if (have == cap) {
                cap = cap > pre->header_len / 2 ? pre->header_len : cap * 2;
                unsigned char *p = realloc(dict, cap);
                if (!p) {
                    st = ts__error(err, TS_ERR_NOMEM, "out of memory for a %zu-byte header",
                                   cap);
                    break;
                }
                dict = p;
            }
            size_t n;
            st = read_upto(zf, dict + have, cap - have, &n, err);
            if (!st && n == 0)
                st = ts__fail(err, TS_ERR_TRUNCATED, 0, (int64_t)(pre->dict_start + have),
                              "member data ends after %zu bytes, inside its %zu-byte header",
                              pre->dict_start + have, pre->header_len);
            have += n;
        }
    }
    zip_fclose(zf);
    if (!st) {
        ts_array *a = *out = ts__file_add_array(f, err);
        if (!a) {
            st = TS_ERR_NOMEM;
        } else {
            a->name = ts__file_strndup(f, m->name, strlen(m->name) - 4, err);
            st = a->name ? ts__npy_parse_header(f, a, pre, dict, err) : TS_ERR_NOMEM;
            if (!st)
                st = ts__npy_check_data(a, pre, (int64_t)m->size, " of the member", err);
        }
    }
    free(dict);
    return st;
}

/* Finds where the member's bytes start from its local header. */
static ts_status member_start(const unsigned char *d, size_t len, member *m, uint64_t csize,
                              ts_error *err)
{
    uint64_t p = m->local;
    if (p > len || len - p < LFH_LEN || !sig_at(d, len, p, "PK\3\4"))
        return ts__fail(err, p > len || len - p < LFH_LEN ? TS_ERR_TRUNCATED : TS_ERR_FORMAT,
                        0, (int64_t)(p < len ? p : len),
                        "local header at byte %llu: expected the signature PK\\3\\4 and %d "
                        "bytes in a %zu-byte file", (unsigned long long)p, LFH_LEN, len);
    uint64_t start = p + LFH_LEN + ts__le16(d + p + 26) + ts__le16(d + p + 28);
    if (start > len || csize > len - start)
        return ts__fail(err, TS_ERR_TRUNCATED, 0, (int64_t)(start < len ? start : len),
                        "member data of %llu bytes at byte %llu runs past the end of the "
                        "%zu-byte file", (unsigned long long)csize, (unsigned long long)start,
                        len);
    m->start = (int64_t)start;
    return TS_OK;
}

static ts_status read_npz(ts_file *f, const unsigned char *data, size_t len,
                          const ts_open_options *opts, ts_error *err)
{
    zip_dir dir = {0, NULL};
    ts_status st = read_central_dir(data, len, &dir, err);
    if (st) {
        free(dir.local);
        return st;
    }
    zip_error_t ze;
    zip_error_init(&ze);
    zip_source_t *src = zip_source_buffer_create(data, len, 0, &ze);
    zip_t *za = src ? zip_open_from_source(src, ZIP_RDONLY, &ze) : NULL;
    if (!za) {
        st = ts__fail(err, zip_status(zip_error_code_zip(&ze)), 0, -1,
                      "cannot open the zip archive: %s", zip_error_strerror(&ze));
        zip_source_free(src);
        zip_error_fini(&ze);
        free(dir.local);
        return st;
    }
    zip_error_fini(&ze);
    zip_int64_t n = zip_get_num_entries(za, 0);
    if (n < 0 || (uint64_t)n != dir.count) {
        st = ts__error(err, TS_ERR_FORMAT, "libzip sees %lld entries, the central directory "
                       "declares %llu", (long long)n, (unsigned long long)dir.count);
        n = 0;
    }
    for (zip_int64_t i = 0; i < n && !st; i++) {
        zip_stat_t zs;
        zip_stat_init(&zs);
        if (zip_stat_index(za, (zip_uint64_t)i, 0, &zs) != 0) {
            zip_error_t *e = zip_get_error(za);
            st = ts__error(err, zip_status(zip_error_code_zip(e)), "zip entry %lld: %s",
                           (long long)i, zip_error_strerror(e));
            break;
        }
        const zip_uint64_t need = ZIP_STAT_NAME | ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE |
                                  ZIP_STAT_COMP_METHOD;
        if ((zs.valid & need) != need) {
            st = ts__error(err, TS_ERR_FORMAT, "zip entry %lld: libzip gives no name, size "
                           "or compression method", (long long)i);
            break;
        }
        size_t nl = strlen(zs.name);
        if (nl < 4 || strcmp(zs.name + nl - 4, ".npy") != 0)
            continue;
        member m = {(zip_uint64_t)i, zs.name, zs.size, zs.comp_method, dir.local[i], -1};
        ts__npy_prelude pre;
        int64_t err_base = -1;
        ts_array *a = NULL;
        if (zs.size > INT64_MAX)
            st = ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)m.local,
                          "uncompressed size %llu does not fit in 64 bits",
                          (unsigned long long)zs.size);
        /* A stored member's bytes are its data: its uncompressed size must
         * equal the bytes it occupies, or data_offset + nbytes would point
         * past them (NumPy fails such a file on its CRC). */
        if (!st && m.method == ZIP_CM_STORE && zs.size != zs.comp_size)
            st = ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)m.local,
                          "stored member declares %llu uncompressed bytes but occupies %llu",
                          (unsigned long long)zs.size, (unsigned long long)zs.comp_size);
        if (!st)
            st = member_start(data, len, &m, zs.comp_size, err);
        if (!st) {
            if (m.method == ZIP_CM_STORE)
                err_base = m.start;
            st = read_member(f, za, &m, opts->npy_max_header, &pre, &a, err);
            if (st && err)
                err->offset = err_base >= 0 && err->offset >= 0 ? err_base + err->offset
                                                                : (int64_t)m.local;
        }
        if (st) {
            ts__error_entry(err, (int64_t)i, "member '%s'", m.name);
            break;
        }
        if (ts_file_count(f) == 1)
            ts__file_set_version(f, pre.version);
        if (m.method == ZIP_CM_STORE) {
            a->data_offset = m.start + pre.data_start;
            continue;
        }
        const char *what = m.method == ZIP_CM_DEFLATE
                           ? "deflated member: data is compressed"
                           : ts__file_printf(f, err, "member compressed with zip method %d: "
                                             "data is compressed", m.method);
        if (!what) {
            st = TS_ERR_NOMEM;
            break;
        }
        if (a->note) {
            what = ts__file_printf(f, err, "%s; %s", what, a->note);
            if (!what) {
                st = TS_ERR_NOMEM;
                break;
            }
        }
        a->note = what;
    }
    zip_discard(za);
    free(dir.local);
    return st;
}

const ts__reader ts__reader_npz = {TS_FORMAT_NPZ, probe_npz, read_npz};
