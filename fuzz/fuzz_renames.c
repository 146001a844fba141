/*
 * fuzz_renames.c - ts_namemap_read_renames on arbitrary text (the rename
 * file of `tshape diff --rename`): it succeeds or fails cleanly with the
 * line number in err->index and an offset inside the text; every rename
 * it accepted maps a name of side A to a name without blanks; prefixes
 * from the input strip and count as ts_namemap's rule says.
 *
 * fuzz-needs: ts_namemap_new ts_namemap_read_renames ts_namemap_apply ts_namemap_add_prefix ts_namemap_prefix_at ts_namemap_free
 */
/* Uses functions of the experimental part of tshape.h. */
#define TS_EXPERIMENTAL_API
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ts_namemap *m = NULL;
    ts_error err;
    FUZZ_CHECK(ts_namemap_new(&m, &err) == TS_OK);
    ts_status st = ts_namemap_read_renames(m, (const char *)data, size, &err);
    if (st != TS_OK) {
        fuzz_check_error(st, &err);
        FUZZ_CHECK(st == TS_ERR_FORMAT || st == TS_ERR_NOMEM);
        if (st == TS_ERR_FORMAT)
            FUZZ_CHECK(err.index >= 1 && err.offset >= 0 && (size_t)err.offset < size);
    }
    /* the first word of each line, as a name of A and of B */
    char name[64];
    size_t n = 0;
    for (size_t i = 0; i <= size; i++) {
        if (i < size && data[i] != '\n' && data[i] != ' ' && data[i] && n + 1 < sizeof name) {
            name[n++] = (char)data[i];
            continue;
        }
        name[n] = '\0';
        const char *a = ts_namemap_apply(m, TS_SIDE_A, name);
        FUZZ_CHECK(a != NULL);
        if (a < name || a > name + n) /* renamed: a rename's B name, one word */
            FUZZ_CHECK(a[0] && !strchr(a, ' ') && !strchr(a, '\t') && !strchr(a, '\n'));
        /* no renames on B: its names only lose a prefix */
        const char *b = ts_namemap_apply(m, TS_SIDE_B, name);
        FUZZ_CHECK(b >= name && b <= name + n);
        if (n > 1 && ts_namemap_add_prefix(m, name + n - 1, TS_SIDE_B, &err) == TS_OK) {
            b = ts_namemap_apply(m, TS_SIDE_B, name + n - 1);
            FUZZ_CHECK(b == name + n); /* the whole name stripped */
        }
        while (i + 1 < size && data[i + 1] != '\n' && data[i] != '\n')
            i++;
        n = 0;
    }
    const ts_namemap_prefix *p = ts_namemap_prefix_at(m, 0);
    FUZZ_CHECK(!p || p->hits_b >= 1);
    ts_namemap_free(m);
    return 0;
}
