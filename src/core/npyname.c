/*
 * npyname.c - tensor names as file names in a folder of .npy files
 * (ts_write's npy folder, read back by ts_model_open), issue 20 item 20 and
 * issue 26 item 4.
 *
 * A name is a path: each '/' separates a subfolder, so HDF5's
 * "dense/kernel:0" is the file dense/kernel:0.npy. Names that would leave
 * the folder or make no file name are refused: an empty part (a leading or
 * trailing '/', "a//b"), "." and "..". Within each part, the characters
 * that would make a file name dangerous to list or pass on are written as
 * %XX, one per byte of their UTF-8 (RFC 3986's percent-encoding, upper-case
 * hex):
 *   - C0 controls U+0000..U+001F and DEL (a terminal escape, a newline that
 *     splits `find | xargs`),
 *   - C1 controls U+0080..U+009F,
 *   - bidirectional controls (U+061C, U+200E, U+200F, U+202A..U+202E,
 *     U+2066..U+2069: a name shown backwards) and the line and paragraph
 *     separators U+2028, U+2029,
 *   - a '-' that starts a part (read as an option by rm, ls, cp),
 *   - '%' itself, so that decoding gives the name back.
 * Decoding undoes exactly these escapes and leaves any other '%' as it is,
 * so a folder of .npy files written by anyone else keeps its names unless
 * they hold such a sequence.
 */
#include "internal.h"

#include <stdlib.h>

/* 1 when the code point (UTF-8 sequence of k bytes at p) is escaped. */
static int escaped_char(const unsigned char *p, size_t k, int part_start)
{
    uint32_t cp;
    if (k == 1)
        return p[0] < 0x20 || p[0] == 0x7f || p[0] == '%' || (p[0] == '-' && part_start);
    if (k == 2)
        cp = (uint32_t)(p[0] & 0x1f) << 6 | (p[1] & 0x3f);
    else if (k == 3)
        cp = (uint32_t)(p[0] & 0x0f) << 12 | (uint32_t)(p[1] & 0x3f) << 6 | (p[2] & 0x3f);
    else
        return 0;
    return (cp >= 0x80 && cp <= 0x9f) || cp == 0x61c || cp == 0x200e || cp == 0x200f ||
           (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ||
           cp == 0x2028 || cp == 0x2029;
}

ts_status ts__npy_path(const char *name, char **out, ts_error *err)
{
    static const char hex[] = "0123456789ABCDEF";
    const unsigned char *s = (const unsigned char *)name;
    size_t n = strlen(name);
    *out = NULL;
    /* the parts: none empty, none "." or ".." */
    for (size_t start = 0; start <= n;) {
        const char *slash = memchr(name + start, '/', n - start);
        size_t end = slash ? (size_t)(slash - name) : n, len = end - start;
        if (len == 0 || (len == 1 && name[start] == '.') ||
            (len == 2 && name[start] == '.' && name[start + 1] == '.'))
            return ts__error(err, TS_ERR_VALUE, "the name cannot be a path in a folder of .npy "
                             "files (an empty, '.' or '..' part: it would leave the folder "
                             "or name no file)");
        start = end + 1;
    }
    char *p = malloc(3 * n + 1);
    if (!p)
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        size_t k = ts__utf8_len(s + i, n - i);
        if (k == 0) {
            free(p);
            return ts__error(err, TS_ERR_VALUE, "the name is not valid UTF-8");
        }
        if (escaped_char(s + i, k, i == 0 || s[i - 1] == '/')) {
            for (size_t j = 0; j < k; j++) {
                p[o++] = '%';
                p[o++] = hex[s[i + j] >> 4];
                p[o++] = hex[s[i + j] & 15];
            }
        } else {
            memcpy(p + o, s + i, k);
            o += k;
        }
        i += k;
    }
    p[o] = '\0';
    *out = p;
    return TS_OK;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The bytes of %XX%XX... at s (up to 4), or 0 when s does not start so. */
static size_t pct_bytes(const char *s, unsigned char *b, size_t want)
{
    for (size_t j = 0; j < want; j++) {
        if (s[3 * j] != '%' || hexval(s[3 * j + 1]) < 0 || hexval(s[3 * j + 2]) < 0)
            return 0;
        b[j] = (unsigned char)(hexval(s[3 * j + 1]) << 4 | hexval(s[3 * j + 2]));
    }
    return want;
}

char *ts__npy_name(const char *path)
{
    size_t n = strlen(path);
    char *p = malloc(n + 1);
    if (!p)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        unsigned char b[4];
        size_t k = 0;
        if (path[i] == '%' && pct_bytes(path + i, b, 1)) {
            k = b[0] < 0x80 ? 1 : b[0] >= 0xc2 && b[0] <= 0xdf ? 2 : b[0] >= 0xe0 && b[0] <= 0xef
                                                                   ? 3 : 0;
            if (k && (pct_bytes(path + i, b, k) != k || ts__utf8_len(b, k) != k ||
                      !escaped_char(b, k, i == 0 || path[i - 1] == '/')))
                k = 0;
        }
        if (k) {
            memcpy(p + o, b, k);
            o += k;
            i += 3 * k;
        } else {
            p[o++] = path[i++];
        }
    }
    p[o] = '\0';
    return p;
}
