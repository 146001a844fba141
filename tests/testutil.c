/* testutil.c - helpers shared by the Check suites. */
#define TS_EXPERIMENTAL_API /* ts_array_read */
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

ts_status tu_open_exact(const unsigned char *data, size_t n, const ts_open_options *opts,
                        ts_error *err)
{
    ts_error local;
    if (!err)
        err = &local;
    unsigned char *copy = malloc(n ? n : 1);
    ck_assert_ptr_nonnull(copy);
    if (n)
        memcpy(copy, data, n);
    ts_file *f = (ts_file *)copy; /* must be overwritten */
    ts_status st = ts_file_open_memory(copy, n, opts, &f, err);
    if (st == TS_OK) {
        ck_assert_ptr_nonnull(f);
        ts_file_close(f);
    } else {
        ck_assert_ptr_null(f);
        ck_assert_int_eq(err->code, st);
        ck_assert_msg(err->message[0] != '\0', "status %d with an empty message", (int)st);
        ck_assert_msg(strchr(err->message, '\n') == NULL, "message has a newline: %s",
                      err->message);
        ck_assert_int_le(err->offset, (int64_t)n);
    }
    free(copy);
    return st;
}

void tu_check_prefixes(const char *label, const unsigned char *data, size_t len,
                       ts_format format, size_t truncated_from)
{
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    ck_assert_msg(tu_open_exact(data, len, &o, NULL) == TS_OK, "%s: the whole file fails", label);
    for (int forced = 0; forced < 2; forced++) {
        o.format = forced ? format : TS_FORMAT_AUTO;
        for (size_t n = 0; n < len; n++) {
            ts_error err;
            ts_status st = tu_open_exact(data, n, &o, &err);
            ck_assert_msg(st != TS_OK, "%s: prefix of %zu bytes accepted", label, n);
            if (forced && n >= truncated_from)
                ck_assert_msg(st == TS_ERR_TRUNCATED, "%s: prefix of %zu bytes: %s", label, n,
                              err.message);
        }
    }
}

void tu_check_byte_changes(const unsigned char *data, size_t len, size_t limit,
                           const ts_open_options *opts, const unsigned char *values,
                           size_t nvalues)
{
    static const unsigned char telling[] = {0x00, 0x01, 0x09, 0x20, 0x7f, 0x80, 0xff};
    if (!values) {
        values = telling;
        nvalues = sizeof telling;
    }
    unsigned char *p = malloc(len ? len : 1);
    ck_assert_ptr_nonnull(p);
    if (limit > len)
        limit = len;
    for (size_t i = 0; i < limit; i++)
        for (size_t v = 0; v < nvalues; v++) {
            memcpy(p, data, len);
            p[i] = values[v];
            tu_open_exact(p, len, opts, NULL);
        }
    free(p);
}

unsigned char *tu_read_named(const char *name, char *path, size_t cap, size_t *len)
{
    if (strncmp(name, "corpus:", 7) == 0) {
        if (!tu_corpus_path(path, cap, name + 7))
            return NULL;
    } else {
        snprintf(path, cap, "%s", name);
    }
    unsigned char *data = tu_read_file(path, len);
    ck_assert_msg(data != NULL, "cannot read %s", path);
    return data;
}

void tu_expect_open_error(const char *path, const ts_open_options *opts, ts_status status,
                          int64_t offset, const char *message)
{
    ts_file *f = (ts_file *)1;
    ts_error err;
    ts_status st = ts_file_open(path, opts, &f, &err);
    ck_assert_msg(st == status, "%s: status %d (%s), expected %d", path, (int)st, err.message,
                  (int)status);
    ck_assert_ptr_null(f);
    ck_assert_int_eq(err.code, status);
    ck_assert_str_eq(err.message, message);
    ck_assert_int_eq(err.offset, offset);
    ck_assert_int_eq(err.column, 0);
    int64_t index = tu_entry_index(message);
    ck_assert_int_ge(err.index, -1);
    if (index >= 0)
        ck_assert_int_eq(err.index, index);
    ck_assert_int_eq(ts_file_open(path, opts, &f, NULL), status); /* NULL report is fine */
}

int64_t tu_entry_index(const char *message)
{
    static const char *const nouns[] = {"array ", "tensor ", "key/value pair ", "key ",
                                        "shape "};
    for (size_t i = 0; i < sizeof nouns / sizeof *nouns; i++) {
        size_t n = strlen(nouns[i]);
        if (strncmp(message, nouns[i], n) != 0 || message[n] < '0' || message[n] > '9')
            continue;
        int64_t v = 0;
        for (const char *p = message + n; *p >= '0' && *p <= '9'; p++)
            v = v * 10 + (*p - '0');
        return v;
    }
    return -2;
}

void tu_shape(ts_shape *s, const char *text)
{
    ts_error err;
    ts_status st = ts_shape_parse(text, strlen(text), TS_PARSE_ALLOW_NEGATIVE, s, NULL, &err);
    ck_assert_msg(st == TS_OK, "cannot parse '%s': %s", text, err.message);
}

ts_file *tu_open_fixture(const char *rel, int all)
{
    char path[1024];
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.want_metadata = 1;
    o.want_activations = all;
    ts_file *f;
    ts_error err;
    ck_assert_msg(ts_file_open(tu_fixture(path, sizeof path, rel), &o, &f, &err) == TS_OK,
                  "%s: %s", rel, err.message);
    return f;
}

const ts_array *tu_array_named(const ts_file *f, const char *name)
{
    for (size_t i = 0; i < ts_file_count(f); i++)
        if (strcmp(ts_file_array(f, i)->name, name) == 0)
            return ts_file_array(f, i);
    ck_abort_msg("no array '%s'", name);
    return NULL;
}

const char *tu_metadata(const ts_file *f, const char *key)
{
    for (size_t i = 0; i < ts_file_metadata_count(f); i++) {
        const char *k, *v;
        ck_assert_int_eq(ts_file_metadata(f, i, &k, &v), 1);
        if (strcmp(k, key) == 0)
            return v;
    }
    ck_abort_msg("no metadata '%s'", key);
    return NULL;
}

void tu_expect_values(const ts_file *f, const char *name, const double *want, int64_t n)
{
    double v[16];
    ts_error err;
    ck_assert_int_le(n, 16);
    ck_assert_msg(ts_array_read(f, tu_array_named(f, name), 0, n, TS_DTYPE_FLOAT64, v, &err) ==
                      TS_OK, "%s: %s", name, err.message);
    for (int64_t k = 0; k < n; k++)
        ck_assert_msg(v[k] == want[k], "%s[%lld] = %g, expected %g", name, (long long)k, v[k],
                      want[k]);
}
