/* fuzz_npyname.c - tensor names as paths in a folder of .npy files
 * (src/core/npyname.c: ts_write's npy folders, read back by ts_model_open)
 * on arbitrary bytes as a name. Checks: a refused name is a clean error; an
 * accepted one gives a path with no empty, "." or ".." part, no control,
 * C1 or bidirectional character and no part starting with '-', that stays
 * inside the folder, and decoding it gives the name back exactly. Any
 * string decodes without reading past its end. */
#include "../src/core/internal.h" /* before fuzz.h: the experimental API */
#include "fuzz.h"

/* 1 when the UTF-8 path holds a character the escaping must remove. */
static int dangerous(const char *p)
{
    const unsigned char *s = (const unsigned char *)p;
    size_t n = strlen(p);
    for (size_t i = 0; i < n; i++) {
        if (s[i] < 0x20 || s[i] == 0x7f)
            return 1;
        if (s[i] == 0xc2 && i + 1 < n && s[i + 1] >= 0x80 && s[i + 1] <= 0x9f)
            return 1; /* C1 */
        if (s[i] == 0xe2 && i + 2 < n && s[i + 1] == 0x80 &&
            ((s[i + 2] >= 0xaa && s[i + 2] <= 0xae) || s[i + 2] == 0x8e || s[i + 2] == 0x8f ||
             s[i + 2] == 0xa8 || s[i + 2] == 0xa9))
            return 1; /* U+202A..E, U+200E/F, U+2028/9 */
        if (s[i] == 0xe2 && i + 2 < n && s[i + 1] == 0x81 && s[i + 2] >= 0xa6 && s[i + 2] <= 0xa9)
            return 1; /* U+2066..9 */
        if (s[i] == '-' && (i == 0 || s[i - 1] == '/'))
            return 1;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *name = malloc(size + 1);
    FUZZ_CHECK(name != NULL);
    memcpy(name, data, size);
    name[size] = '\0';
    /* any text decodes, escapes or not */
    char *any = ts__npy_name(name);
    FUZZ_CHECK(any != NULL && strlen(any) <= strlen(name));
    free(any);
    char *path = NULL;
    ts_error err;
    ts_status st = ts__npy_path(name, &path, &err);
    if (st != TS_OK) {
        fuzz_check_error(st, &err);
        FUZZ_CHECK(st == TS_ERR_VALUE && path == NULL);
        free(name);
        return 0;
    }
    FUZZ_CHECK(path[0] != '\0' && path[0] != '/' && !dangerous(path));
    for (const char *part = path; part;) {
        const char *slash = strchr(part, '/');
        size_t len = slash ? (size_t)(slash - part) : strlen(part);
        FUZZ_CHECK(len > 0 && !(len == 1 && part[0] == '.') &&
                   !(len == 2 && part[0] == '.' && part[1] == '.'));
        part = slash ? slash + 1 : NULL;
    }
    char *back = ts__npy_name(path);
    FUZZ_CHECK(back != NULL && strcmp(back, name) == 0);
    free(back);
    free(path);
    free(name);
    return 0;
}
