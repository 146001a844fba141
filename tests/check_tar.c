/* check_tar.c - NumPy .npy files inside tar archives: the ustar, GNU and
 * pax archives of tests/fixtures/gen_tar.py (Python's tarfile), whose data
 * offsets the generator computed with tarfile (offset_data + npy header)
 * and which are checked here against the bytes there; the members that are
 * not arrays, named in the metadata; damaged archives; every truncation and
 * byte change. */
#define TS_EXPERIMENTAL_API
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

typedef struct tar_member {
    const char *name, *shape, *dtype_name;
    int64_t data_offset;
    const char *head;          /* the first data bytes */
    size_t head_len;
} tar_member;

typedef struct tar_case {
    const char *file, *version;
    size_t count;
    tar_member m[3];
} tar_case;

#define LONG "very/very/very/very/very/very/very/very/very/very/very/very/very/very/very/" \
             "very/very/very/very/very/very/very/long_name"

static const tar_case cases[] = {
    {"tar/arrays.tar", "ustar", 3, {
        {"a", "(2,3)", "float32", 640, "\0\0\0\0\0\0\x80\x3e", 8},
        {"sub/b", "(4,)", "int64", 2176, "\x0a\0\0\0\0\0\0\0\xec\xff", 10},
        {"sub/c", "(2,2)", "bool", 4224, "\1\0\0\1", 4},
    }},
    {"tar/gnu.tar", "gnu", 2, {
        {LONG, "(2,)", "float64", 1664, "\x3f\xf8\0\0\0\0\0\0", 8},
        {"short", "(2,3)", "float32", 2688, "\0\0\0\0\0\0\x80\x3e", 8},
    }},
    {"tar/pax.tar", "pax", 2, {
        {"gewichte/\xc3\xbc" "ber", "(4,)", "int64", 1664, "\x0a\0\0\0", 4},
        {LONG, "(2,2)", "bool", 3712, "\1\0\0\1", 4},
    }},
};

START_TEST(test_archive)
{
    const tar_case *c = &cases[_i];
    char name[256], path[256];
    size_t len;
    unsigned char *bytes = tu_read_named(tu_fixture(name, sizeof name, c->file), path,
                                         sizeof path, &len);
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.want_metadata = 1;
    ts_file *f;
    ts_error err;
    ck_assert_msg(ts_file_open(path, &o, &f, &err) == TS_OK, "%s: %s", path, err.message);
    ck_assert_int_eq(ts_file_format(f), TS_FORMAT_TAR);
    ck_assert_str_eq(ts_file_version(f), c->version);
    ck_assert_uint_eq(ts_file_count(f), c->count);
    for (size_t i = 0; i < c->count; i++) {
        const tar_member *m = &c->m[i];
        const ts_array *a = ts_file_array(f, i);
        ck_assert_str_eq(a->name, m->name);
        tu_assert_shape(&a->shape, m->shape);
        ck_assert_str_eq(a->dtype_name, m->dtype_name);
        ck_assert_int_eq(a->data_offset, m->data_offset);
        ck_assert_uint_le((size_t)a->data_offset + (size_t)a->nbytes, len);
        ck_assert_msg(memcmp(bytes + a->data_offset, m->head, m->head_len) == 0,
                      "%s: '%s': wrong bytes at data offset %lld", path, m->name,
                      (long long)a->data_offset);
    }
    ts_file_close(f);
    /* every truncation before the end-of-archive blocks fails (what
     * follows them is padding) */
    size_t end = 0;
    for (size_t at = 0; at + 1024 <= len && !end; at += 512) {
        static const unsigned char zero[1024];
        if (memcmp(bytes + at, zero, 1024) == 0)
            end = at + 1024;
    }
    ck_assert_uint_gt(end, 0);
    for (size_t n = 0; n < len; n++) {
        ts_status st = tu_open_exact(bytes, n, NULL, NULL);
        ck_assert_msg((st == TS_OK) == (n >= end), "%s: prefix of %zu bytes: status %d", path,
                      n, (int)st);
    }
    tu_check_byte_changes(bytes, len, 1024, NULL, NULL, 0);
    free(bytes);
}
END_TEST

/* The members that are not arrays are named in the metadata. */
START_TEST(test_other_members)
{
    char path[256];
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.want_metadata = 1;
    ts_file *f;
    ts_error err;
    ck_assert_int_eq(ts_file_open(tu_fixture(path, sizeof path, "tar/arrays.tar"), &o, &f,
                                  &err), TS_OK);
    ck_assert_uint_eq(ts_file_metadata_count(f), 2);
    const char *k, *v;
    ck_assert(ts_file_metadata(f, 0, &k, &v));
    ck_assert_str_eq(k, "sub/");
    ck_assert_str_eq(v, "{\"type\":\"directory\",\"size\":0,\"data_offset\":1536}");
    ck_assert(ts_file_metadata(f, 1, &k, &v));
    ck_assert_str_eq(k, "notes.txt");
    ck_assert_str_eq(v, "{\"type\":\"file\",\"size\":13,\"data_offset\":3072}");
    ts_file_close(f);
    /* without metadata asked for, none is collected */
    ck_assert_int_eq(ts_file_open(path, NULL, &f, &err), TS_OK);
    ck_assert_uint_eq(ts_file_metadata_count(f), 0);
    /* the values are read from their offsets */
    double v6[6];
    ck_assert_int_eq(ts_array_read(f, ts_file_array(f, 0), 0, 6, TS_DTYPE_FLOAT64, v6, &err),
                     TS_OK);
    ck_assert(v6[0] == 0 && v6[1] == 0.25 && v6[5] == 1.25);
    ts_file_close(f);
}
END_TEST

typedef struct bad_case {
    const char *file;
    ts_status code;
    int64_t offset;
    const char *message;
} bad_case;

static const bad_case bad_cases[] = {
    {"tar/bad_checksum.tar", TS_ERR_FORMAT, 1024 + 148,
     "member header at byte 1024: the checksum does not match its bytes: not a tar archive, "
     "or a damaged one"},
    {"tar/bad_truncated.tar", TS_ERR_TRUNCATED, 3584 + 124,
     "member header at byte 3584: its 132 data bytes run past the end of the archive (4200 "
     "bytes)"},
    {"tar/bad_nonpy.tar", TS_ERR_FORMAT, 0,
     "tar archive of 2 members and no .npy member (the first is 'readme.txt'): tshape reads "
     "NumPy .npy files inside tar archives"},
    /* the npy error's offset is the member's data start (1536) + 8 */
    {"tar/bad_member.tar", TS_ERR_TRUNCATED, 1536 + 8,
     "member 'broken.npy': header length 118 (at byte 8) runs past the end of the member: "
     "only 28 bytes follow byte 10"},
    {"tar/bad_short_data.tar", TS_ERR_TRUNCATED, 512 + 128,
     "member 'a.npy': data is truncated: shape (2,3) of float32 needs 24 bytes at offset 128 "
     "of the member, but only 8 remain"},
};

START_TEST(test_bad)
{
    const bad_case *c = &bad_cases[_i];
    char path[256];
    tu_expect_open_error(tu_fixture(path, sizeof path, c->file), NULL, c->code, c->offset,
                         c->message);
}
END_TEST

/* Detection: the ustar magic and a valid checksum; the pax and GNU
 * extensions; base-256 sizes. */
START_TEST(test_detect)
{
    unsigned char h[512];
    memset(h, 0, sizeof h);
    memcpy(h, "x.npy", 5);
    memcpy(h + 124, "00000000000", 11);
    memcpy(h + 257, "ustar\0" "00", 8);
    memcpy(h + 148, "        ", 8);
    unsigned sum = 0;
    for (size_t i = 0; i < sizeof h; i++)
        sum += h[i];
    snprintf((char *)h + 148, 8, "%06o", sum);
    ck_assert_int_eq(ts_format_detect(h, sizeof h), TS_FORMAT_TAR);
    h[0] = 'y'; /* the checksum no longer matches */
    ck_assert_int_eq(ts_format_detect(h, sizeof h), TS_FORMAT_AUTO);
}
END_TEST

Suite *tar_suite(void)
{
    Suite *s = suite_create("tar");
    TCase *t = tcase_create("archives");
    tcase_set_timeout(t, 120);
    tcase_add_loop_test(t, test_archive, 0, (int)(sizeof cases / sizeof *cases));
    tcase_add_test(t, test_other_members);
    tcase_add_test(t, test_detect);
    suite_add_tcase(s, t);
    TCase *e = tcase_create("errors");
    tcase_add_loop_test(e, test_bad, 0, (int)(sizeof bad_cases / sizeof *bad_cases));
    suite_add_tcase(s, e);
    return s;
}
