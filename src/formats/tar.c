/*
 * tar.c - reader for NumPy .npy files inside a tar archive: POSIX ustar
 * (IEEE Std 1003.1, pax), with pax extended headers ('x': path, size) and
 * GNU long names ('L'), as Python's tarfile and GNU tar write them.
 *
 * The archive is a chain of 512-byte member headers, each followed by the
 * member's data padded to 512 bytes, ended by two blocks of zeros (POSIX;
 * an archive without them was cut short). Every header's checksum is checked. Each regular member
 * whose name ends in ".npy" is one array, named by its path without ".npy"
 * (as np.load names the members of an .npz); its npy header is parsed as a
 * .npy file's is, and data_offset is the absolute offset of its data in the
 * archive. Other members are not read: with metadata asked for, each is an
 * entry named by its path ({"type": ..., "size": ..., "data_offset": ...}),
 * so nothing is left out silently.
 *
 * Only headers are read: one request per member header, one for each npy
 * header, never the data.
 */
#include "npy_header.h"

#include <stdio.h>
#include <stdlib.h>

#define BLOCK 512
/* Longest pax extended header or GNU long name read (they hold a path). */
#define MAX_EXTENDED ((uint64_t)1 << 20)

static int sum_ok(const unsigned char *h);

static int probe_tar(const unsigned char *d, size_t len, ts__source *src)
{
    (void)src;
    return len >= BLOCK && memcmp(d + 257, "ustar", 5) == 0 && sum_ok(d);
}

/* An octal field (tar's numbers: digits, ended by NUL or space, leading
 * spaces allowed), or GNU's base-256 form (first byte 0x80, big-endian
 * after it). -1 when it is neither or does not fit in int64. */
static int64_t number(const unsigned char *p, size_t n)
{
    if (n > 0 && p[0] == 0x80) {
        uint64_t v = 0;
        for (size_t i = 1; i < n; i++) {
            if (v >> 55)
                return -1;
            v = v << 8 | p[i];
        }
        return (int64_t)v;
    }
    size_t i = 0;
    while (i < n && p[i] == ' ')
        i++;
    uint64_t v = 0;
    size_t digits = 0;
    for (; i < n && p[i] >= '0' && p[i] <= '7'; i++, digits++) {
        if (v >> 60)
            return -1;
        v = v * 8 + (uint64_t)(p[i] - '0');
    }
    if (digits == 0 || (i < n && p[i] != ' ' && p[i] != '\0'))
        return -1;
    return (int64_t)v;
}

/* The header's checksum (bytes 148..155) equals the sum of its bytes with
 * that field counted as spaces (unsigned, as POSIX says; old tars summed
 * signed chars, accepted too). */
static int sum_ok(const unsigned char *h)
{
    int64_t want = number(h + 148, 8);
    int64_t u = 0, s = 0;
    for (size_t i = 0; i < BLOCK; i++) {
        unsigned char c = i >= 148 && i < 156 ? ' ' : h[i];
        u += c;
        s += (signed char)c;
    }
    return want >= 0 && (want == u || want == s);
}

static int all_zero(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

static const char *type_name(unsigned char t)
{
    switch (t) {
    case '0': case '\0': case '7': return "file";
    case '1': return "hard link";
    case '2': return "symbolic link";
    case '3': return "character device";
    case '4': return "block device";
    case '5': return "directory";
    case '6': return "FIFO";
    default: return "other";
    }
}

/* Names from extended headers, for the next member. */
typedef struct pending {
    const char *path;            /* pax path or GNU long name (in the image) */
    size_t path_len;
    int64_t size;                /* pax size, or -1 */
} pending;

/*
 * Parses pax records "LEN KEY=VALUE\n" in [p, p + n) at file offset off,
 * keeping path and size. Errors: TS_ERR_FORMAT naming the record.
 */
static ts_status read_pax(const unsigned char *p, size_t n, uint64_t off, pending *pd,
                          ts_error *err)
{
    size_t at = 0;
    while (at < n && p[at] != '\0') {
        size_t i = at, len = 0;
        while (i < n && p[i] >= '0' && p[i] <= '9' && len < n)
            len = len * 10 + (size_t)(p[i++] - '0');
        if (i == at || i >= n || p[i] != ' ' || len <= i - at || len > n - at ||
            p[at + len - 1] != '\n')
            return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)(off + at),
                            "pax extended header record at byte %llu is not 'LENGTH "
                            "KEY=VALUE\\n'", (unsigned long long)(off + at));
        const unsigned char *k = p + i + 1, *end = p + at + len - 1;
        const unsigned char *eq = memchr(k, '=', (size_t)(end - k));
        if (!eq)
            return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)(off + at),
                            "pax extended header record at byte %llu has no '='",
                            (unsigned long long)(off + at));
        size_t kl = (size_t)(eq - k), vl = (size_t)(end - eq - 1);
        if (kl == 4 && memcmp(k, "path", 4) == 0) {
            pd->path = (const char *)eq + 1;
            pd->path_len = vl;
        } else if (kl == 4 && memcmp(k, "size", 4) == 0) {
            int64_t v = 0;
            size_t d = 0;
            for (; d < vl && eq[1 + d] >= '0' && eq[1 + d] <= '9' && v < INT64_MAX / 16; d++)
                v = v * 10 + (eq[1 + d] - '0');
            if (d == 0 || d != vl)
                return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)(off + at),
                                "pax extended header record at byte %llu: size is not a "
                                "decimal number", (unsigned long long)(off + at));
            pd->size = v;
        }
        at += len;
    }
    return TS_OK;
}

/* Appends the array of the .npy member whose data (size bytes) starts at
 * file offset doff. Errors carry offsets in the file. */
static ts_status read_npy_member(ts_file *f, const unsigned char *data, uint64_t doff,
                                 int64_t size, const char *name, size_t name_len,
                                 size_t max_header, ts_error *err)
{
    ts__npy_prelude pre;
    size_t avail = size < TS__NPY_PRELUDE_MAX ? (size_t)size : TS__NPY_PRELUDE_MAX;
    ts_status st = ts__file_need(f, doff, avail, err);
    if (!st && avail == 0)
        st = ts__fail(err, TS_ERR_TRUNCATED, 0, 0, "member is empty: no npy magic");
    if (!st)
        st = ts__npy_read_prelude(data + doff, avail, size, max_header, "member", &pre, err);
    if (!st)
        st = ts__file_need(f, doff + pre.dict_start, pre.header_len, err);
    if (!st) {
        ts_array *a = ts__file_add_array(f, err);
        if (!a)
            return TS_ERR_NOMEM;
        if (!(a->name = ts__file_strndup(f, name, name_len - 4, err)))
            return TS_ERR_NOMEM;
        st = ts__npy_parse_header(f, a, &pre, data + doff + pre.dict_start, err);
        if (!st)
            st = ts__npy_check_data(a, &pre, size, " of the member", err);
        if (!st)
            a->data_offset = (int64_t)doff + pre.data_start;
    }
    if (st && err && err->offset >= 0)
        err->offset += (int64_t)doff;
    return st;
}

/* The metadata entry of a member that is not read. */
static ts_status name_member(ts_file *f, const char *name, size_t name_len, unsigned char type,
                             int64_t size, uint64_t doff, ts_error *err)
{
    char value[160];
    int n = snprintf(value, sizeof value, "{\"type\":\"%s\",\"size\":%lld,\"data_offset\":%llu}",
                     type_name(type), (long long)size, (unsigned long long)doff);
    return ts__file_add_metadata(f, name, name_len, value, (size_t)n, err);
}

static ts_status read_tar(ts_file *f, const unsigned char *data, size_t len,
                          const ts_open_options *opts, ts_error *err)
{
    pending pd = {NULL, 0, -1};
    uint64_t off = 0, ext_off = 0;
    size_t members = 0, others = 0;
    const char *first_other = NULL;
    int pax = 0, gnu = 0;
    char shown[96];
    ts_status st = TS_OK;
    int ended = 0;
    while (off < len) {
        size_t have = len - off < BLOCK ? (size_t)(len - off) : BLOCK;
        if ((st = ts__file_need(f, off, have, err)))
            return st;
        if (have < BLOCK)
            return ts__fail(err, TS_ERR_TRUNCATED, 0, (int64_t)off,
                            "archive ends at byte %zu, inside the %s at byte %llu (512 "
                            "bytes)", len, all_zero(data + off, have) ? "end-of-archive blocks"
                                                                      : "member header",
                            (unsigned long long)off);
        const unsigned char *h = data + off;
        if (all_zero(h, BLOCK)) {
            /* the end: two zero blocks (POSIX); what follows is padding */
            if (len - off < 2 * BLOCK)
                break;
            if ((st = ts__file_need(f, off + BLOCK, BLOCK, err)))
                return st;
            ended = 1;
            break;
        }
        if (!sum_ok(h))
            return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)off + 148,
                            "member header at byte %llu: the checksum does not match its "
                            "bytes: not a tar archive, or a damaged one",
                            (unsigned long long)off);
        int ustar = memcmp(h + 257, "ustar\0", 6) == 0;
        gnu |= memcmp(h + 257, "ustar  \0", 8) == 0;
        int64_t size = number(h + 124, 12);
        unsigned char type = h[156];
        if (size < 0)
            return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)off + 124,
                            "member header at byte %llu: the size field is not a number",
                            (unsigned long long)off);
        if (pd.size >= 0 && type != 'x' && type != 'g' && type != 'L' && type != 'K')
            size = pd.size;
        uint64_t doff = off + BLOCK;
        if ((uint64_t)size > len - doff)
            return ts__fail(err, TS_ERR_TRUNCATED, 0, (int64_t)off + 124,
                            "member header at byte %llu: its %lld data bytes run past the "
                            "end of the archive (%zu bytes)", (unsigned long long)off,
                            (long long)size, len);
        /* the data is padded to whole blocks (tar refuses an archive that
         * ends inside the padding) */
        uint64_t next = doff + ((uint64_t)size + BLOCK - 1) / BLOCK * BLOCK;
        if (next > len)
            return ts__fail(err, TS_ERR_TRUNCATED, 0, (int64_t)len,
                            "member header at byte %llu: the archive ends at byte %zu, inside "
                            "the padding of the member's data to 512-byte blocks",
                            (unsigned long long)off, len);
        if (type == 'x' || type == 'g' || type == 'L' || type == 'K') {
            if ((uint64_t)size > MAX_EXTENDED)
                return ts__fail(err, TS_ERR_LIMIT, 0, (int64_t)off + 124,
                                "extended header at byte %llu is %lld bytes long, above "
                                "tshape's limit of %llu", (unsigned long long)off,
                                (long long)size, (unsigned long long)MAX_EXTENDED);
            if ((st = ts__file_need(f, doff, (uint64_t)size, err)))
                return st;
            ext_off = off;
            if (type == 'x') {
                pax = 1;
                if ((st = read_pax(data + doff, (size_t)size, doff, &pd, err)))
                    return st;
            } else if (type == 'L') {
                const unsigned char *z = memchr(data + doff, '\0', (size_t)size);
                pd.path = (const char *)data + doff;
                pd.path_len = z ? (size_t)(z - (data + doff)) : (size_t)size;
            } else if (type == 'g') {
                pax = 1; /* global defaults: nothing tshape uses */
            }
            off = next;
            continue;
        }
        /* The member's name: the pending long name, else prefix/name. */
        char *name;
        size_t name_len;
        if (pd.path) {
            name_len = pd.path_len;
            if (!(name = ts__file_stralloc(f, name_len + 1, err)))
                return TS_ERR_NOMEM;
            memcpy(name, pd.path, name_len);
        } else {
            const unsigned char *z = memchr(h, '\0', 100);
            size_t nl = z ? (size_t)(z - h) : 100, pl = 0;
            if (ustar) {
                const unsigned char *pz = memchr(h + 345, '\0', 155);
                pl = pz ? (size_t)(pz - (h + 345)) : 155;
            }
            name_len = pl ? pl + 1 + nl : nl;
            if (!(name = ts__file_stralloc(f, name_len + 1, err)))
                return TS_ERR_NOMEM;
            if (pl) {
                memcpy(name, h + 345, pl);
                name[pl] = '/';
            }
            memcpy(name + (pl ? pl + 1 : 0), h, nl);
        }
        name[name_len] = '\0';
        pd.path = NULL;
        pd.size = -1;
        if (memchr(name, '\0', name_len))
            return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)off,
                            "member at byte %llu: its name holds a NUL byte",
                            (unsigned long long)off);
        int regular = type == '0' || type == '\0' || type == '7';
        if (regular && name_len > 4 && memcmp(name + name_len - 4, ".npy", 4) == 0) {
            st = read_npy_member(f, data, doff, size, name, name_len, opts->npy_max_header,
                                 err);
            if (st) {
                ts__error_entry(err, (int64_t)members, "member '%s'",
                                ts__printable(name, name_len, shown, sizeof shown));
                return st;
            }
        } else {
            if (others++ == 0)
                first_other = name;
            if (opts->want_metadata &&
                (st = name_member(f, name, name_len, type, size, doff, err)))
                return st;
        }
        members++;
        off = next;
    }
    if (pd.path || pd.size >= 0)
        return ts__fail(err, TS_ERR_TRUNCATED, 0, (int64_t)ext_off,
                        "archive ends after the extended header at byte %llu, before the "
                        "member it describes", (unsigned long long)ext_off);
    if (!ended)
        return ts__fail(err, TS_ERR_TRUNCATED, 0, (int64_t)len,
                        "archive ends at byte %zu without its end-of-archive blocks (two "
                        "blocks of 512 zero bytes): it was cut short", len);
    ts__file_set_version(f, pax ? "pax" : gnu ? "gnu" : "ustar");
    if (ts_file_count(f) == 0 && members > 0)
        return ts__fail(err, TS_ERR_FORMAT, 0, 0,
                        "tar archive of %zu member%s and no .npy member (the first is '%s'): "
                        "tshape reads NumPy .npy files inside tar archives", members,
                        members == 1 ? "" : "s",
                        ts__printable_str(first_other ? first_other : "", shown,
                                          sizeof shown));
    return TS_OK;
}

const ts__reader ts__reader_tar = {
    {TS_FORMAT_TAR, "tar", ".tar", "magic ustar at byte 257",
     "NumPy .npy files in a tar archive (ustar, pax, GNU)", "descr", 0},
    probe_tar,
    read_tar,
    0,
};
