/* testutil.c - helpers shared by the Check suites. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *tu_corpus_dir(void)
{
    const char *d = getenv("TSHAPE_CORPUS");
    return d && *d ? d : "../shared/corpus";
}

int tu_corpus_path(char *buf, size_t cap, const char *rel)
{
    snprintf(buf, cap, "%s/%s", tu_corpus_dir(), rel);
    if (access(buf, R_OK) == 0)
        return 1;
    fprintf(stderr, "skipped: corpus file %s is absent\n", buf);
    return 0;
}

const char *tu_fixture(char *buf, size_t cap, const char *rel)
{
    snprintf(buf, cap, "tests/fixtures/%s", rel);
    return buf;
}

unsigned char *tu_read_file(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    size_t cap = 4096, n = 0;
    unsigned char *buf = malloc(cap);
    size_t k;
    while (buf && (k = fread(buf + n, 1, cap - n, fp)) > 0) {
        n += k;
        if (n == cap) {
            unsigned char *p = realloc(buf, cap *= 2);
            if (!p) {
                free(buf);
                buf = NULL;
            } else {
                buf = p;
            }
        }
    }
    fclose(fp);
    *len = n;
    return buf;
}

void tu_shape(ts_shape *s, const char *text)
{
    ts_error err;
    ts_status st = ts_shape_parse(s, text, strlen(text), TS_PARSE_ALLOW_NEGATIVE, NULL, &err);
    ck_assert_msg(st == TS_OK, "cannot parse '%s': %s", text, err.message);
}
