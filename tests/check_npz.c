/* check_npz.c - the .npz reader: archives written by NumPy (fixtures of
 * tests/fixtures/gen_npy.py and the shared corpus), hand-written zips (zip64
 * central directory, a lazy zip bomb), member errors, corrupt directories,
 * and truncation at every length. Stored members' data offsets were
 * computed by the generator with Python's zipfile (local header offset + 30
 * + name + local extra + npy header) and are checked against the bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define OBJ_NOTE "object dtype: the payload is a Python pickle and was not inspected"
#define DEFLATED "deflated member: data is compressed"

typedef struct member_case {
    const char *name;
    const char *shape;
    const char *dtype_name;
    const char *format_dtype;
    int64_t nbytes, data_offset;
    const char *note;
    /* The first data bytes at data_offset (stored members), or NULL. */
    const char *head;
    size_t head_len;
} member_case;

typedef struct npz_case {
    const char *path;          /* "corpus:" prefix: in the shared corpus */
    const char *version;
    size_t count;
    member_case m[5];
} npz_case;

static const npz_case cases[] = {
    {"corpus:npy/npyz_uncompressed.npz", "1.0", 2, {
        {"ints", "(4,)", "int64", "<i8", 32, 186, NULL,
         "\1\0\0\0\0\0\0\0\2\0\0\0\0\0\0\0", 16},
        {"floats", "(2,1)", "float64", "<f8", 16, 406, NULL, NULL, 0},
    }},
    {"corpus:npy/npyz_compressed.npz", "1.0", 2, {
        {"ints", "(4,)", "int64", "<i8", 32, -1, DEFLATED, NULL, 0},
        {"floats", "(2,1)", "float64", "<f8", 16, -1, DEFLATED, NULL, 0},
    }},
    /* np.savez(f, arange(3), a=ones((2,3), f4), be=arange(4, >i4)). */
    {"tests/fixtures/npy/stored.npz", "1.0", 3, {
        {"a", "(2,3)", "float32", "<f4", 24, 183, NULL, "\0\0\x80\x3f\0\0\x80\x3f", 8},
        {"be", "(4,)", "int32", ">i4", 16, 391, NULL, "\0\0\0\0\0\0\0\1\0\0\0\2", 12},
        {"arr_0", "(3,)", "int64", "<i8", 24, 594, NULL, "\0\0\0\0\0\0\0\0\1\0\0\0", 12},
    }},
    {"tests/fixtures/npy/compressed.npz", "1.0", 3, {
        {"x", "(5,4)", "float64", "<f8", 160, -1, DEFLATED, NULL, 0},
        {"be", "(4,)", "uint16", ">u2", 8, -1, DEFLATED, NULL, 0},
        {"s", "()", "float32", "<f4", 4, -1, DEFLATED, NULL, 0},
    }},
    /* readme.txt and the directory sub/ are skipped; the version is the
     * first member's. */
    {"tests/fixtures/npy/mixed.npz", "2.0", 3, {
        {"v2", "(3,)", "int16", "<i2", 6, 184, NULL, "\0\0\1\0\2\0", 6},
        {"sub/deep", "(2,2)", "bool", "|b1", 4, -1, DEFLATED, NULL, 0},
        {"obj", "(1,)", "object", "|O", -1, 637, OBJ_NOTE, "\x80", 1},
    }},
    {"tests/fixtures/npy/empty.npz", "", 0, {{NULL, NULL, NULL, NULL, 0, 0, NULL, NULL, 0}}},
    /* Local header offsets only in zip64 extra fields; zip64 end record. */
    {"tests/fixtures/npy/zip64_cd.npz", "1.0", 1, {
        {"z", "(5,)", "uint32", "<u4", 20, 163, NULL, "\0\0\0\0\1\0\0\0\2\0\0\0", 12},
    }},
};

START_TEST(test_archive)
{
    const npz_case *c = &cases[_i];
    char path[512];
    if (strncmp(c->path, "corpus:", 7) == 0) {
        if (!tu_corpus_path(path, sizeof path, c->path + 7))
            return;
    } else {
        snprintf(path, sizeof path, "%s", c->path);
    }
    size_t len;
    unsigned char *bytes = tu_read_file(path, &len);
    ck_assert_ptr_nonnull(bytes);
    ts_file *f;
    ts_error err;
    ck_assert_msg(ts_file_open(path, NULL, &f, &err) == TS_OK, "%s: %s", path, err.message);
    ck_assert_int_eq(ts_file_format(f), TS_FORMAT_NPZ);
    ck_assert_str_eq(ts_file_version(f), c->version);
    ck_assert_int_eq(ts_file_nbytes(f), (int64_t)len);
    ck_assert_uint_eq(ts_file_count(f), c->count);
    ck_assert_ptr_null(ts_file_array(f, c->count));
    for (size_t i = 0; i < c->count; i++) {
        const member_case *m = &c->m[i];
        const ts_array *a = ts_file_array(f, i);
        ck_assert_str_eq(a->name, m->name);
        tu_assert_shape(&a->shape, m->shape);
        ck_assert_str_eq(a->dtype_name, m->dtype_name);
        ck_assert_str_eq(a->format_dtype, m->format_dtype);
        ck_assert_int_eq(a->nbytes, m->nbytes);
        ck_assert_int_eq(a->data_offset, m->data_offset);
        ck_assert_int_eq(a->fortran_order, 0);
        if (m->note)
            ck_assert_str_eq(a->note, m->note);
        else
            ck_assert_ptr_null(a->note);
        if (m->head) {
            ck_assert_uint_le((size_t)a->data_offset + m->head_len, len);
            ck_assert_msg(memcmp(bytes + a->data_offset, m->head, m->head_len) == 0,
                          "%s: member '%s': wrong bytes at data offset %lld", path, m->name,
                          (long long)a->data_offset);
        }
    }
    ts_file_close(f);

    /* The same from memory, with the format forced. */
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.format = TS_FORMAT_NPZ;
    ck_assert_int_eq(ts_file_open_memory(bytes, len, &o, &f, &err), TS_OK);
    ck_assert_uint_eq(ts_file_count(f), c->count);
    ts_file_close(f);
    free(bytes);
}
END_TEST

/* ---- errors ---------------------------------------------------------------- */

typedef struct bad_case {
    const char *file;
    ts_format format;
    size_t max_header;
    ts_status code;
    int64_t offset;
    const char *message;
    int64_t index;   /* err.index: the member, in archive order; -1 none */
} bad_case;

static const bad_case bad_cases[] = {
    /* Deflated member: the offset is its local header's. */
    {"bad_member_truncated.npz", TS_FORMAT_AUTO, 0, TS_ERR_TRUNCATED, 192,
     "member 'short.npy': data is truncated: shape (4,4) of float64 needs 128 bytes at "
     "offset 128 of the member, but only 16 remain", 1},
    /* A stored member whose uncompressed size exceeds its stored bytes would
     * put its data past the end of the file (review finding). */
    {"bad_stored_size_lie.npz", TS_FORMAT_AUTO, 0, TS_ERR_FORMAT, 0,
     "member 'a.npy': stored member declares 452 uncompressed bytes but occupies 160", 0},
    /* Stored member: the absolute offset of the bad byte. */
    {"bad_member_magic.npz", TS_FORMAT_AUTO, 0, TS_ERR_FORMAT, 63,
     "member 'junk.npy': not an npy member: expected the magic \\x93NUMPY at byte 0, found "
     "'Z' (0x5a) at byte 5", 0},
    {"stored.npz", TS_FORMAT_AUTO, 100, TS_ERR_LIMIT, 55 + 8,
     "member 'a.npy': header length 118 (at byte 8) is above the limit of 100 bytes; if the "
     "file is trusted, raise it with --max-header N (ts_open_options.npy_max_header)", 0},
    {"compressed.npz", TS_FORMAT_AUTO, 100, TS_ERR_LIMIT, 0,
     "member 'x.npy': header length 118 (at byte 8) is above the limit of 100 bytes; if the "
     "file is trusted, raise it with --max-header N (ts_open_options.npy_max_header)", 0},
    /* Claims 800 MB from 165 deflated bytes: impossible, rejected before
     * anything is inflated (issue 16: it was reported as an array). */
    {"lazy_bomb.npz", TS_FORMAT_AUTO, 0, TS_ERR_FORMAT, 0,
     "member 'bomb.npy': deflated member declares 800000128 uncompressed bytes from 165 "
     "compressed ones, more than deflate can expand (about 1032:1)", 0},
    {"v1.npy", TS_FORMAT_NPZ, 0, TS_ERR_FORMAT, 0,
     "not a zip archive: no end-of-central-directory record in its 144 bytes", -1},
};

START_TEST(test_bad)
{
    const bad_case *c = &bad_cases[_i];
    char path[256];
    snprintf(path, sizeof path, "tests/fixtures/npy/%s", c->file);
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.format = c->format;
    o.npy_max_header = c->max_header;
    tu_expect_open_error(path, &o, c->code, c->offset, c->message);
    ts_file *f;
    ts_error err;
    ck_assert_int_eq(ts_file_open(path, &o, &f, &err), c->code);
    ck_assert_int_eq(err.index, c->index);
}
END_TEST

/* Corruptions of stored.npz (798 bytes: local headers at 0, 207, 407, each
 * with a 20-byte zip64 extra, so be.npy's bytes start at 263; central
 * entries at 618, 669, 721; the end record at 776). */
typedef struct patch_case {
    size_t at;
    const char *bytes;
    size_t n;
    ts_status code;
    int64_t offset;
    const char *message;
} patch_case;

static const patch_case patch_cases[] = {
    /* End record: 200 entries cannot fit in 185 bytes of directory. */
    {776 + 10, "\xc8\x00", 2, TS_ERR_FORMAT, 776,
     "end record at byte 776 declares 200 entries, but the central directory has room for at "
     "most 3"},
    /* End record: directory offset past the end record. */
    {776 + 16, "\x00\x04\x00\x00", 4, TS_ERR_FORMAT, 776,
     "central directory of 158 bytes at byte 1024 overlaps its end record at byte 776"},
    {776 + 4, "\x01\x00", 2, TS_ERR_UNSUPPORTED, 776,
     "multi-disk zip archives are not supported (end record at byte 776 names disk 1)"},
    /* Central entry 1's signature. */
    {669, "PK\x09\x09", 4, TS_ERR_FORMAT, 669,
     "central directory entry 1 at byte 669: expected the signature PK\\1\\2 and 46 bytes"},
    /* Central entry 2's name length runs past the directory. */
    {721 + 28, "\xff\x00", 2, TS_ERR_FORMAT, 721,
     "central directory entry 2 at byte 721: its name, extra field and comment (255 bytes) "
     "run past the directory's end at byte 776"},
    /* Local header of be.npy: wrong signature. */
    {207, "XX", 2, TS_ERR_FORMAT, 207,
     "member 'be.npy': local header at byte 207: expected the signature PK\\3\\4 and 30 bytes "
     "in a 798-byte file"},
    /* Local header of arr_0.npy: an extra field that runs off the end. */
    {407 + 28, "\xff\xff", 2, TS_ERR_TRUNCATED, 798,
     "member 'arr_0.npy': member data of 152 bytes at byte 65981 runs past the end of the "
     "798-byte file"},
    /* The npy header inside a stored member, at absolute offsets. */
    {263 + 21, "?", 1, TS_ERR_DTYPE, 263 + 20,
     "member 'be.npy': header dict at byte 10: descr at byte 20 is not a NumPy dtype: unknown "
     "dtype '?i4': expected a byte order (<, >, |, =) then a kind (b i u f c m M S U V O) then "
     "a size, like '<f4'"},
};

START_TEST(test_patched)
{
    const patch_case *c = &patch_cases[_i];
    size_t len;
    unsigned char *b = tu_read_file("tests/fixtures/npy/stored.npz", &len);
    ck_assert_ptr_nonnull(b);
    ck_assert_uint_eq(len, 798);
    ck_assert_int_eq(memcmp(b + 776, "PK\5\6", 4), 0);
    ck_assert_int_eq(memcmp(b + 618, "PK\1\2", 4), 0);
    ck_assert_int_eq(memcmp(b + 263, "\x93NUMPY\x01\x00v\x00{'descr': '>i4'", 25), 0);
    memcpy(b + c->at, c->bytes, c->n);
    ts_file *f;
    ts_error err;
    ts_status st = ts_file_open_memory(b, len, NULL, &f, &err);
    ck_assert_msg(st == c->code, "patch at %zu: status %d, expected %d: %s", c->at, st,
                  c->code, err.message);
    ck_assert_int_eq(err.offset, c->offset);
    ck_assert_str_eq(err.message, c->message);
    free(b);
}
END_TEST

START_TEST(test_not_a_zip)
{
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.format = TS_FORMAT_NPZ;
    ts_file *f;
    ts_error err;
    ck_assert_int_eq(ts_file_open_memory("", 0, &o, &f, &err), TS_ERR_FORMAT);
    ck_assert_str_eq(err.message,
                     "not a zip archive: no end-of-central-directory record in its 0 bytes");
    /* A local header but no end record: truncated. */
    ck_assert_int_eq(ts_file_open_memory("PK\3\4", 4, NULL, &f, &err), TS_ERR_TRUNCATED);
    ck_assert_str_eq(err.message, "zip archive is truncated: no end-of-central-directory "
                     "record in its 4 bytes");
    ck_assert_int_eq(ts_format_detect("PK\3\4", 4), TS_FORMAT_NPZ);
    ck_assert_int_eq(ts_format_detect("PK\5\6", 4), TS_FORMAT_NPZ);
    ck_assert_int_eq(ts_format_detect("PK\1\2", 4), TS_FORMAT_AUTO);
}
END_TEST

/* Little-endian u16/u32 into p. */
static unsigned char *le(unsigned char *p, uint32_t v, int n)
{
    for (int i = 0; i < n; i++)
        *p++ = (unsigned char)(v >> (8 * i));
    return p;
}

/* A zip of one stored member `name` holding one byte; returns its length. */
static size_t one_member_zip(unsigned char *buf, const char *name)
{
    uint16_t nl = (uint16_t)strlen(name);
    uint32_t crc = 0xe8b7be43u; /* crc32("a") */
    unsigned char *p = buf;
    p = le(p, 0x04034b50u, 4); p = le(p, 20, 2); p = le(p, 0, 2); p = le(p, 0, 2);
    p = le(p, 0, 4); p = le(p, crc, 4); p = le(p, 1, 4); p = le(p, 1, 4);
    p = le(p, nl, 2); p = le(p, 0, 2);
    memcpy(p, name, nl); p += nl; *p++ = 'a';
    uint32_t cd = (uint32_t)(p - buf);
    p = le(p, 0x02014b50u, 4); p = le(p, 20, 2); p = le(p, 20, 2); p = le(p, 0, 2);
    p = le(p, 0, 2); p = le(p, 0, 4); p = le(p, crc, 4); p = le(p, 1, 4); p = le(p, 1, 4);
    p = le(p, nl, 2); p = le(p, 0, 2); p = le(p, 0, 2); p = le(p, 0, 2); p = le(p, 0, 2);
    p = le(p, 0, 4); p = le(p, 0, 4);
    memcpy(p, name, nl); p += nl;
    uint32_t cdlen = (uint32_t)(p - buf) - cd;
    p = le(p, 0x06054b50u, 4); p = le(p, 0, 2); p = le(p, 0, 2); p = le(p, 1, 2);
    p = le(p, 1, 2); p = le(p, cdlen, 4); p = le(p, cd, 4); p = le(p, 0, 2);
    return (size_t)(p - buf);
}

/* Issue 15: a zip without .npy members (a PyTorch checkpoint) was reported
 * as an npz holding no arrays; np.savez() of nothing (no member) still is. */
START_TEST(test_zip_not_npz)
{
    unsigned char buf[512];
    ts_file *f;
    ts_error err;
    /* A member named <folder>/data.pkl makes it a PyTorch archive: its
     * reader comes first and reports the bad pickle. */
    size_t n = one_member_zip(buf, "model/data.pkl");
    ck_assert_int_eq(ts_file_open_memory(buf, n, NULL, &f, &err), TS_ERR_FORMAT);
    ck_assert_int_eq(ts_format_detect(buf, n), TS_FORMAT_PYTORCH);
    n = one_member_zip(buf, "x.npy.txt");
    ck_assert_int_eq(ts_file_open_memory(buf, n, NULL, &f, &err), TS_ERR_FORMAT);
    ck_assert_str_eq(err.message, "zip archive of 1 members and no .npy member (the first is "
                     "'x.npy.txt'): not a NumPy .npz");
    ck_assert_int_eq(ts_file_open("tests/fixtures/npy/empty.npz", NULL, &f, &err), TS_OK);
    ck_assert_uint_eq(ts_file_count(f), 0);
    ts_file_close(f);
}
END_TEST

/* Issue 15: "unknown file format" says what the first bytes look like. */
static const struct {
    const char *bytes;
    size_t len;
    const char *says;
} sniff_cases[] = {
    {"\x08\x08\x12\x0f" "tshape-f", 12, "unknown file format (its first bytes look like a "
     "protocol buffer: an ONNX model or a Caffe or Caffe2 file, which are recognised by their "
     "extension .onnx, .caffemodel, .binaryproto or .pb; or use --format onnx, caffe or "
     "caffe2): "},
    {"\x1f\x8b\x08\0\0\0\0\0\0\0\0\0", 12, "unknown file format (it is gzip-compressed: "
     "decompress it first): "},
    {"hello world!", 12, "unknown file format: the first bytes match none of "},
};

START_TEST(test_unknown_format_says_what)
{
    ts_file *f;
    ts_error err;
    ck_assert_int_eq(ts_file_open_memory(sniff_cases[_i].bytes, sniff_cases[_i].len, NULL, &f,
                                         &err), TS_ERR_FORMAT);
    ck_assert_msg(strncmp(err.message, sniff_cases[_i].says, strlen(sniff_cases[_i].says)) == 0,
                  "got: %s", err.message);
}
END_TEST

/* Every proper prefix of an archive fails cleanly. */
static const char *const prefix_files[] = {
    "tests/fixtures/npy/mixed.npz",
    "tests/fixtures/npy/zip64_cd.npz",
    "corpus:npy/npyz_uncompressed.npz",
    "corpus:npy/npyz_compressed.npz",
};

START_TEST(test_every_prefix_fails)
{
    char path[512];
    size_t len;
    unsigned char *full = tu_read_named(prefix_files[_i], path, sizeof path, &len);
    if (!full)
        return; /* corpus absent */
    tu_check_prefixes(path, full, len, TS_FORMAT_NPZ, SIZE_MAX);
    free(full);
}
END_TEST

Suite *npz_suite(void)
{
    Suite *s = suite_create("npz");
    TCase *tc = tcase_create("archives");
    tcase_add_loop_test(tc, test_archive, 0, (int)(sizeof cases / sizeof *cases));
    suite_add_tcase(s, tc);

    tc = tcase_create("errors");
    tcase_add_loop_test(tc, test_bad, 0, (int)(sizeof bad_cases / sizeof *bad_cases));
    tcase_add_loop_test(tc, test_patched, 0, (int)(sizeof patch_cases / sizeof *patch_cases));
    tcase_add_test(tc, test_not_a_zip);
    tcase_add_test(tc, test_zip_not_npz);
    tcase_add_loop_test(tc, test_unknown_format_says_what, 0,
                        (int)(sizeof sniff_cases / sizeof *sniff_cases));
    tcase_add_loop_test(tc, test_every_prefix_fails, 0,
                        (int)(sizeof prefix_files / sizeof *prefix_files));
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    return s;
}
