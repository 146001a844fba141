/* check_convert.c - ts_write (issue 14): the exact bytes of a small
 * safetensors file (header, padding, placement) and of a .npy (NumPy's own
 * np.save bytes), npz members read back, rounding of --cast to float16 and
 * bfloat16 bit for bit, byte swapping and Fortran order, shards and their
 * index, and every error: dtypes a format lacks, names, an existing output,
 * a cancel, with no temporary file left behind. Sources are small images
 * opened with ts_file_open_memory (written here byte by byte) or fixtures. */
#define TS_EXPERIMENTAL_API
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"
#include "core/lazylib.h"   /* ts__crc32_soft */
#include "values/values.h" /* ts__test_before_verify, ts__test_npz_libzip */

/* ---- sources ---------------------------------------------------------------- */

/* A v1.0 .npy image of `n` data bytes with the given descr and shape text
 * ("(3,)"), header padded to 64 as NumPy pads it. */
static unsigned char *npy_image(const char *descr, const char *shape, const void *data,
                                size_t n, size_t *len)
{
    char dict[256];
    int k = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                     descr, shape);
    size_t hl = (size_t)k + 1, pad = 64 - (10 + hl) % 64, total = 10 + hl + pad + n;
    unsigned char *b = malloc(total);
    ck_assert_ptr_nonnull(b);
    memcpy(b, "\x93NUMPY\x01\x00", 8);
    b[8] = (unsigned char)(hl + pad);
    b[9] = (unsigned char)((hl + pad) >> 8);
    memcpy(b + 10, dict, (size_t)k);
    memset(b + 10 + k, ' ', pad);
    b[10 + hl + pad - 1] = '\n';
    memcpy(b + 10 + hl + pad, data, n);
    *len = total;
    return b;
}

/* A safetensors image of one tensor "x" (header JSON given whole). */
static unsigned char *st_image(const char *json, const void *data, size_t n, size_t *len)
{
    size_t h = strlen(json);
    unsigned char *b = malloc(8 + h + n);
    ck_assert_ptr_nonnull(b);
    memset(b, 0, 8);
    b[0] = (unsigned char)h;
    memcpy(b + 8, json, h);
    memcpy(b + 8 + h, data, n);
    *len = 8 + h + n;
    return b;
}

typedef struct src {
    unsigned char *img;
    ts_file *f;
} src;

static src open_image(unsigned char *img, size_t len)
{
    src s = {img, NULL};
    ts_error e;
    ck_assert_msg(ts_file_open_memory(img, len, NULL, &s.f, &e) == TS_OK, "%s", e.message);
    return s;
}

static void close_src(src *s)
{
    ts_file_close(s->f);
    free(s->img);
}

/* The sources of the exact-bytes tests: a = int16 [1, 2, 3], b = big-endian
 * float32 [1.5, -2]. */
static src src_a(void)
{
    const unsigned char d[] = {1, 0, 2, 0, 3, 0};
    size_t len;
    unsigned char *img = npy_image("<i2", "(3,)", d, sizeof d, &len);
    return open_image(img, len);
}

static src src_b(void)
{
    const unsigned char d[] = {0x3f, 0xc0, 0, 0, 0xc0, 0, 0, 0};
    size_t len;
    unsigned char *img = npy_image(">f4", "(2,)", d, sizeof d, &len);
    return open_image(img, len);
}

/* ---- temporary folders -------------------------------------------------------- */

static char *tmp_dir(void)
{
    char *d = strdup("/tmp/tshape-check-convert-XXXXXX");
    ck_assert_ptr_nonnull(d);
    ck_assert_ptr_nonnull(mkdtemp(d));
    return d;
}

/* Entries of a folder, "." and ".." left out. */
static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    ck_assert_ptr_nonnull(d);
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

static void rm_dir(char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char p[512];
    while (d && (e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (unlink(p) != 0) {
            DIR *sub = opendir(p);
            struct dirent *f;
            char q[768];
            while (sub && (f = readdir(sub)) != NULL) {
                snprintf(q, sizeof q, "%s/%s", p, f->d_name);
                unlink(q);
            }
            if (sub)
                closedir(sub);
            rmdir(p);
        }
    }
    if (d)
        closedir(d);
    rmdir(dir);
    free(dir);
}

static char *path_in(const char *dir, const char *name)
{
    char *p = malloc(strlen(dir) + strlen(name) + 2);
    ck_assert_ptr_nonnull(p);
    sprintf(p, "%s/%s", dir, name);
    return p;
}

static ts_status write_one(const char *path, ts_write_tensor *t, size_t n,
                           const ts_write_options *o, ts_error *e)
{
    ts_write_result r;
    return ts_write(path, t, n, o, &r, e);
}

/* ---- exact bytes ----------------------------------------------------------------- */

START_TEST(test_safetensors_bytes)
{
    src a = src_a(), b = src_b();
    char *dir = tmp_dir(), *out = path_in(dir, "m.safetensors");
    ts_write_tensor t[] = {{"b", b.f, ts_file_array(b.f, 0)}, {"a", a.f, ts_file_array(a.f, 0)}};
    ts_write_options o = TS_WRITE_OPTIONS_INIT;
    ts_write_result r;
    ts_error e;
    ck_assert_msg(ts_write(out, t, 2, &o, &r, &e) == TS_OK, "%s", e.message);
    /* keys by name, __metadata__ first; data: larger itemsize first */
    const char *json = "{\"__metadata__\":{\"format\":\"pt\"},"
                       "\"a\":{\"dtype\":\"I16\",\"shape\":[3],\"data_offsets\":[8,14]},"
                       "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}";
    size_t h = strlen(json), padded = h + (8 - (8 + h) % 8) % 8;
    unsigned char want[512];
    memset(want, 0, 8);
    want[0] = (unsigned char)padded;
    memcpy(want + 8, json, h);
    memset(want + 8 + h, ' ', padded - h);
    const unsigned char data[] = {0, 0, 0xc0, 0x3f, 0, 0, 0, 0xc0, 1, 0, 2, 0, 3, 0};
    memcpy(want + 8 + padded, data, sizeof data);
    size_t len;
    unsigned char *got = tu_read_file(out, &len);
    ck_assert_ptr_nonnull(got);
    ck_assert_uint_eq(len, 8 + padded + sizeof data);
    ck_assert_uint_eq((8 + padded) % 8, 0);
    ck_assert_msg(memcmp(got, want, len) == 0, "bytes differ: %.*s", (int)(len - 8), got + 8);
    ck_assert_uint_eq(r.tensors, 2);
    ck_assert_int_eq(r.data_bytes, 14);
    ck_assert_int_eq(r.file_bytes, (int64_t)len);
    ck_assert_uint_eq(r.files, 1);
    ck_assert_int_eq(count_entries(dir), 1); /* no temporary file left */
    /* source_format and source_file are recorded, escaped */
    unlink(out);
    o.source_format = "npy";
    o.source_file = "w\"x.npy";
    ck_assert_msg(ts_write(out, t, 2, &o, &r, &e) == TS_OK, "%s", e.message);
    free(got);
    got = tu_read_file(out, &len);
    ck_assert_ptr_nonnull(strstr((char *)got + 8, "{\"__metadata__\":{\"format\":\"pt\","
                                 "\"source_file\":\"w\\\"x.npy\",\"source_format\":\"npy\"},"));
    free(got);
    free(out);
    rm_dir(dir);
    close_src(&a);
    close_src(&b);
}
END_TEST

/* NumPy 1.24's np.save(f, np.array([1, 2, 3], dtype='<i2')), byte for byte. */
static const char numpy_i2[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '<i2', 'fortran_order': False, 'shape': (3,), }"
    "                                                            \n\x01\x00\x02\x00\x03\x00";

START_TEST(test_npy_bytes)
{
    src a = src_a(), b = src_b();
    char *dir = tmp_dir(), *out = path_in(dir, "d");
    ts_write_tensor t[] = {{"a", a.f, ts_file_array(a.f, 0)}, {"b", b.f, ts_file_array(b.f, 0)}};
    ts_write_options o = TS_WRITE_OPTIONS_INIT;
    ts_error e;
    o.format = TS_WRITE_NPY_DIR;
    ck_assert_msg(write_one(out, t, 2, &o, &e) == TS_OK, "%s", e.message);
    char *fa = path_in(out, "a.npy"), *fb = path_in(out, "b.npy");
    size_t len;
    unsigned char *got = tu_read_file(fa, &len);
    ck_assert_uint_eq(len, sizeof numpy_i2 - 1);
    ck_assert(memcmp(got, numpy_i2, len) == 0);
    ck_assert_uint_eq((size_t)((unsigned char *)memchr(got, '\n', len) - got + 1) % 64, 0);
    free(got);
    got = tu_read_file(fb, &len);
    ck_assert_uint_eq(len, 128 + 8); /* 64-aligned data, little-endian now */
    ck_assert(memcmp(got + 10, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                     57) == 0);
    ck_assert(memcmp(got + 128, "\0\0\xc0\x3f\0\0\0\xc0", 8) == 0);
    free(got);
    ck_assert_int_eq(count_entries(dir), 1);
    ck_assert_int_eq(count_entries(out), 2);
    free(fa), free(fb), free(out);
    rm_dir(dir);
    close_src(&a);
    close_src(&b);
}
END_TEST

/* Issue 20 item 20 and issue 26 item 4: a folder of .npy files keeps every
 * name: '/' makes subfolders, control, C1 and bidirectional characters, a
 * leading '-' and '%' are escaped as %XX, names that would leave the folder
 * are refused; ts_model_open (recursive) gives the names back. */
START_TEST(test_npy_dir_names)
{
    static const char *const names[] = {"dense/kernel:0", "-rf", "a\nb", "bell\a",
                                        "\342\200\256evil", "100%", "sub/-x", "\xc2\x85",
                                        "%2D", "ok.v1"};
    static const char *const files[] = {"dense/kernel:0.npy", "%2Drf.npy", "a%0Ab.npy",
                                        "bell%07.npy", "%E2%80%AEevil.npy", "100%25.npy",
                                        "sub/%2Dx.npy", "%C2%85.npy", "%252D.npy", "ok.v1.npy"};
    const size_t n = sizeof names / sizeof *names;
    src a = src_a();
    const ts_array *aa = ts_file_array(a.f, 0);
    char *dir = tmp_dir(), *out = path_in(dir, "out");
    ts_write_tensor t[16];
    for (size_t i = 0; i < n; i++)
        t[i] = (ts_write_tensor){names[i], a.f, aa};
    ts_write_options o = TS_WRITE_OPTIONS_INIT;
    o.format = TS_WRITE_NPY_DIR;
    ts_error e;
    ck_assert_msg(write_one(out, t, n, &o, &e) == TS_OK, "%s", e.message);
    for (size_t i = 0; i < n; i++) {
        char *f = path_in(out, files[i]);
        struct stat sb;
        ck_assert_msg(stat(f, &sb) == 0 && S_ISREG(sb.st_mode), "no %s", f);
        free(f);
    }
    ts_model_options mo = TS_MODEL_OPTIONS_INIT;
    mo.recursive = 1;
    ts_model *m = NULL;
    ck_assert_int_eq(ts_model_open(out, &mo, &m, &e), TS_OK);
    ck_assert_uint_eq(ts_model_count(m), n);
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        while (k < n && strcmp(names[k], ts_model_array_name(m, i)) != 0)
            k++;
        ck_assert_msg(k < n, "name %zu read back as '%s'", i, ts_model_array_name(m, i));
    }
    ck_assert_uint_eq(ts_model_issue_count(m), 0);
    ts_model_close(m);
    /* names that would leave the folder or name no file */
    static const char *const bad[] = {"../up", "/abs", "a//b", "a/", ".", "x/./y", "x/.."};
    char *out2 = path_in(dir, "out2");
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ts_write_tensor b = {bad[i], a.f, aa};
        ck_assert_int_eq(write_one(out2, &b, 1, &o, &e), TS_ERR_VALUE);
        ck_assert_int_eq(ts_write_check(&b, &o, &e), TS_ERR_VALUE);
        ck_assert_msg(strstr(e.message, "the name cannot be a path in a folder of .npy files"),
                      "%s", e.message);
    }
    ck_assert_int_eq(count_entries(dir), 1);
    /* --force replaces a folder of .npy files in subfolders */
    o.overwrite = 1;
    ck_assert_msg(write_one(out, t, 2, &o, &e) == TS_OK, "%s", e.message);
    ck_assert_int_eq(count_entries(out), 2); /* dense/ and %2Drf.npy */
    char *cmd = malloc(strlen(dir) + 32);
    sprintf(cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
    free(cmd);
    free(dir), free(out), free(out2);
    close_src(&a);
}
END_TEST

/* Issue 20 item 19: files copied beside the output with it (config.json
 * into a model folder), all or nothing; a missing folder is named. */
START_TEST(test_copy_files)
{
    src a = src_a();
    const ts_array *aa = ts_file_array(a.f, 0);
    char *dir = tmp_dir(), *out = path_in(dir, "model.safetensors");
    ts_write_tensor t = {"w", a.f, aa};
    const char *const copies[] = {"tests/fixtures/folders/llama/config.json",
                                  "tests/fixtures/folders/llama/README.md"};
    ts_write_options o = TS_WRITE_OPTIONS_INIT;
    o.copy_files = copies;
    o.copy_count = 2;
    ts_write_result r;
    ts_error e;
    ck_assert_msg(ts_write(out, &t, 1, &o, &r, &e) == TS_OK, "%s", e.message);
    ck_assert_uint_eq(r.files, 1); /* the copies are not counted */
    ck_assert_int_eq(count_entries(dir), 3);
    size_t la, lb;
    unsigned char *x = tu_read_file(copies[0], &la), *y;
    char *c = path_in(dir, "config.json");
    y = tu_read_file(c, &lb);
    ck_assert(la == lb && memcmp(x, y, la) == 0);
    free(x), free(y);
    /* again: config.json is there, so nothing is written without overwrite */
    unlink(out);
    ck_assert_int_eq(ts_write(out, &t, 1, &o, &r, &e), TS_ERR_IO);
    ck_assert_msg(strstr(e.message, "will not replace") && strstr(e.message, "config.json"),
                  "%s", e.message);
    ck_assert_int_eq(count_entries(dir), 2);
    o.overwrite = 1;
    ck_assert_msg(ts_write(out, &t, 1, &o, &r, &e) == TS_OK, "%s", e.message);
    /* a file that is its own target is left alone */
    const char *const self[] = {c};
    o.copy_files = self;
    o.copy_count = 1;
    ck_assert_msg(ts_write(out, &t, 1, &o, &r, &e) == TS_OK, "%s", e.message);
    /* a missing source: nothing written */
    const char *const gone[] = {"tests/fixtures/folders/llama/no-such.json"};
    o.copy_files = gone;
    unlink(out);
    ck_assert_int_eq(ts_write(out, &t, 1, &o, &r, &e), TS_ERR_IO);
    ck_assert_msg(strstr(e.message, "cannot open 'tests/fixtures/folders/llama/no-such.json'"),
                  "%s", e.message);
    ck_assert_int_eq(count_entries(dir), 2);
    /* a folder that does not exist is named, not a temporary file */
    char *missing = path_in(dir, "no/such/model.safetensors"), want[512];
    o.copy_count = 0;
    ck_assert_int_eq(ts_write(missing, &t, 1, &o, &r, &e), TS_ERR_IO);
    snprintf(want, sizeof want, "cannot write '%s': its folder '%s/no/such' does not exist",
             missing, dir);
    ck_assert_str_eq(e.message, want);
    /* copies are for files beside a file */
    o.copy_count = 1;
    o.format = TS_WRITE_NPY_DIR;
    ck_assert_int_eq(ts_write(out, &t, 1, &o, &r, &e), TS_ERR_INVALID_ARG);
    free(missing), free(c);
    char *cmd = malloc(strlen(dir) + 32);
    sprintf(cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
    free(cmd), free(dir), free(out);
    close_src(&a);
}
END_TEST

/* npz, stored and deflated: members NAME.npy read back by the npz reader. */
START_TEST(test_npz_roundtrip)
{
    src a = src_a(), b = src_b();
    for (int compress = 0; compress <= 1; compress++) {
        char *dir = tmp_dir(), *out = path_in(dir, "m.npz");
        ts_write_tensor t[] = {{"sub/a", a.f, ts_file_array(a.f, 0)},
                               {"b", b.f, ts_file_array(b.f, 0)}};
        ts_write_options o = TS_WRITE_OPTIONS_INIT;
        ts_error e;
        o.format = TS_WRITE_NPZ;
        o.compress = compress;
        ck_assert_msg(write_one(out, t, 2, &o, &e) == TS_OK, "%s", e.message);
        ts_file *f = NULL;
        ck_assert_msg(ts_file_open(out, NULL, &f, &e) == TS_OK, "%s", e.message);
        ck_assert_int_eq(ts_file_format(f), TS_FORMAT_NPZ);
        ck_assert_uint_eq(ts_file_count(f), 2);
        const ts_array *x = ts_file_array(f, 0), *y = ts_file_array(f, 1);
        ck_assert_str_eq(x->name, "b"); /* members in name order */
        ck_assert_str_eq(y->name, "sub/a");
        ck_assert_int_eq(x->byteorder, '<');
        ck_assert_int_eq(y->data_offset >= 0, !compress);
        double v[3];
        ck_assert_int_eq(ts_array_read(f, x, 0, 2, TS_DTYPE_FLOAT64, v, &e), TS_OK);
        ck_assert(v[0] == 1.5 && v[1] == -2);
        ck_assert_int_eq(ts_array_read(f, y, 0, 3, TS_DTYPE_FLOAT64, v, &e), TS_OK);
        ck_assert(v[0] == 1 && v[1] == 2 && v[2] == 3);
        ts_file_close(f);
        ck_assert_int_eq(count_entries(dir), 1);
        free(out);
        rm_dir(dir);
    }
    close_src(&a);
    close_src(&b);
}
END_TEST

/* ---- cast ------------------------------------------------------------------------ */

static uint16_t le16(const unsigned char *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

/* float32 values cast to float16 and bfloat16: round to nearest even, from
 * the exact value (bits checked one by one). */
static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
    return le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* A member of a zip image found through its central directory (ZIP64 end
 * record when the end record says so): its stored bytes, size and CRC. */
static const unsigned char *zip_find(const unsigned char *z, size_t len, const char *name,
                                     uint64_t *size, uint32_t *crc)
{
    ck_assert_uint_ge(len, 22);
    const unsigned char *end = z + len - 22;
    ck_assert_uint_eq(le32(end), 0x06054b50);
    uint64_t n = le16(end + 10), at = le32(end + 16);
    if (n == 0xffff || at == 0xffffffffu) {
        const unsigned char *loc = end - 20, *r;
        ck_assert_uint_eq(le32(loc), 0x07064b50);
        r = z + le64(loc + 8);
        ck_assert_uint_eq(le32(r), 0x06064b50);
        n = le64(r + 32);
        at = le64(r + 48);
    }
    for (uint64_t i = 0; i < n; i++) {
        const unsigned char *c = z + at;
        ck_assert_uint_eq(le32(c), 0x02014b50);
        size_t nl = le16(c + 28), xl = le16(c + 30);
        uint64_t sz = le32(c + 24), off = le32(c + 42);
        const unsigned char *x = c + 46 + nl;
        if (xl) { /* ZIP64: the fields that were 0xFFFFFFFF, in order */
            ck_assert_uint_eq(le16(x), 1);
            const unsigned char *v = x + 4;
            if (sz == 0xffffffffu) {
                sz = le64(v);
                ck_assert_uint_eq(le64(v + 8), sz); /* stored: compressed = size */
                v += 16;
            }
            if (off == 0xffffffffu)
                off = le64(v);
        }
        if (nl == strlen(name) && memcmp(c + 46, name, nl) == 0) {
            const unsigned char *l = z + off;
            ck_assert_uint_eq(le32(l), 0x04034b50);
            ck_assert_uint_eq(le16(l + 8), 0); /* stored */
            ck_assert_uint_eq(le32(l + 14), le32(c + 16));
            *size = sz;
            *crc = le32(c + 16);
            return l + 30 + le16(l + 26) + le16(l + 28);
        }
        at += 46 + nl + xl + le16(c + 32);
    }
    ck_abort_msg("no member %s", name);
    return NULL;
}

/* An .npz without compression is written by write.c itself: each member
 * holds exactly the .npy the npy folder output holds, with zip's CRC-32 of
 * it, and the same bytes libzip's writer stores; with ZIP64 fields forced
 * (the test hook) the same members are read back. */
START_TEST(test_npz_stored_bytes)
{
    src a = src_a(), b = src_b();
    char *dir = tmp_dir(), *npz = path_in(dir, "m.npz"), *lz = path_in(dir, "lz.npz");
    char *z64 = path_in(dir, "z64.npz"), *d = path_in(dir, "d");
    ts_write_tensor t[] = {{"a", a.f, ts_file_array(a.f, 0)},
                           {"b\xc3\xa9", b.f, ts_file_array(b.f, 0)}};
    ts_write_options o = TS_WRITE_OPTIONS_INIT;
    ts_error e;
    o.format = TS_WRITE_NPY_DIR;
    ck_assert_msg(write_one(d, t, 2, &o, &e) == TS_OK, "%s", e.message);
    o.format = TS_WRITE_NPZ;
    ck_assert_msg(write_one(npz, t, 2, &o, &e) == TS_OK, "%s", e.message);
    ts__test_npz_libzip = 1;
    ts_status st = write_one(lz, t, 2, &o, &e);
    ts__test_npz_libzip = 0;
    ck_assert_msg(st == TS_OK, "%s", e.message);
    ts__test_zip64_at = 1;
    st = write_one(z64, t, 2, &o, &e);
    ts__test_zip64_at = 0;
    ck_assert_msg(st == TS_OK, "%s", e.message);

    size_t len, llen, zlen;
    unsigned char *z = tu_read_file(npz, &len), *l = tu_read_file(lz, &llen);
    unsigned char *w = tu_read_file(z64, &zlen);
    /* the layout: "a.npy" first (name order), then "b\xc3\xa9.npy" UTF-8
     * flagged; the directory; the end record */
    ck_assert_uint_eq(le32(z), 0x04034b50);
    ck_assert_uint_eq(le16(z + 4), 20);
    ck_assert_uint_eq(le16(z + 6), 0);
    ck_assert_uint_eq(le16(z + 26), 5);
    ck_assert_uint_eq(le16(z + 28), 0);
    ck_assert_int_eq(memcmp(z + 30, "a.npy", 5), 0);
    size_t second = 30 + 5 + 128 + 6;
    ck_assert_uint_eq(le32(z + second), 0x04034b50);
    ck_assert_uint_eq(le16(z + second + 6), 0x0800);
    ck_assert_uint_eq(le16(z + len - 22 + 10), 2);
    static const char *const names[2] = {"a", "b\xc3\xa9"};
    for (int i = 0; i < 2; i++) {
        char mn[32], fn[32];
        snprintf(mn, sizeof mn, "%s.npy", names[i]);
        snprintf(fn, sizeof fn, "d/%s.npy", names[i]);
        char *fp = path_in(dir, fn);
        size_t nlen;
        unsigned char *npy = tu_read_file(fp, &nlen);
        uint64_t sz, lsz, zsz;
        uint32_t crc, lcrc, zcrc;
        const unsigned char *m = zip_find(z, len, mn, &sz, &crc);
        const unsigned char *lm = zip_find(l, llen, mn, &lsz, &lcrc);
        const unsigned char *zm = zip_find(w, zlen, mn, &zsz, &zcrc);
        ck_assert_uint_eq(sz, nlen);
        ck_assert_int_eq(memcmp(m, npy, nlen), 0);
        ck_assert_uint_eq(crc, ts__crc32_soft(0, npy, nlen));
        ck_assert_uint_eq(lsz, nlen);
        ck_assert_uint_eq(lcrc, crc);
        ck_assert_int_eq(memcmp(lm, npy, nlen), 0);
        ck_assert_uint_eq(zsz, nlen);
        ck_assert_uint_eq(zcrc, crc);
        ck_assert_int_eq(memcmp(zm, npy, nlen), 0);
        free(npy), free(fp);
    }
    /* ZIP64: version 4.5, sizes in the local header's extra field, the end
     * record pointing to the ZIP64 one */
    ck_assert_uint_eq(le16(w + 4), 45);
    ck_assert_uint_eq(le32(w + 18), 0xffffffffu);
    ck_assert_uint_eq(le16(w + 28), 20);
    ck_assert_uint_eq(le16(w + 30 + 5), 1);
    ck_assert_uint_eq(le16(w + zlen - 22 + 10), 0xffff);
    ck_assert_uint_eq(le32(w + zlen - 22 + 16), 0xffffffffu);
    ts_file *f = NULL;
    ck_assert_msg(ts_file_open(z64, NULL, &f, &e) == TS_OK, "%s", e.message);
    ck_assert_uint_eq(ts_file_count(f), 2);
    double v[3];
    ck_assert_int_eq(ts_array_read(f, ts_file_array(f, 0), 0, 3, TS_DTYPE_FLOAT64, v, &e), TS_OK);
    ck_assert(v[0] == 1 && v[1] == 2 && v[2] == 3);
    ts_file_close(f);
    free(z), free(l), free(w);
    free(npz), free(lz), free(z64), free(d);
    rm_dir(dir);
    close_src(&a);
    close_src(&b);
}
END_TEST

START_TEST(test_cast_rounding)
{
    static const float in[] = {
        1.0f, 1.0009765625f /* 1+2^-10 */, 1.00048828125f /* 1+2^-11: tie, even */,
        1.00146484375f /* 1+3*2^-11: tie, up to even */, 65504.0f, 65520.0f /* to Inf */,
        1e-8f /* below half the least subnormal: 0 */, 3e-8f /* to 2^-24 */,
        -0.0f, 1.00390625f /* 1+2^-8 */, 1.01171875f /* 1+3*2^-8 */, 3.4028235e38f,
        -1e-45f};
    static const uint16_t f16[] = {0x3c00, 0x3c01, 0x3c00, 0x3c02, 0x7bff, 0x7c00, 0x0000,
                                   0x0001, 0x8000, 0x3c04, 0x3c0c, 0x7c00, 0x8000};
    static const uint16_t bf16[] = {0x3f80, 0x3f80, 0x3f80, 0x3f80, 0x4780, 0x4780, 0x322c,
                                    0x3301, 0x8000, 0x3f80, 0x3f82, 0x7f80, 0x8000};
    const size_t n = sizeof in / sizeof *in;
    char shape[16];
    snprintf(shape, sizeof shape, "(%zu,)", n);
    size_t len;
    unsigned char *img = npy_image("<f4", shape, in, sizeof in, &len);
    src s = open_image(img, len);
    for (int k = 0; k < 2; k++) {
        char *dir = tmp_dir(), *out = path_in(dir, "c.safetensors");
        ts_write_tensor t = {"x", s.f, ts_file_array(s.f, 0)};
        ts_write_options o = TS_WRITE_OPTIONS_INIT;
        ts_error e;
        o.cast = 1;
        o.cast_dtype = k ? TS_DTYPE_BFLOAT16 : TS_DTYPE_FLOAT16;
        ck_assert_msg(write_one(out, &t, 1, &o, &e) == TS_OK, "%s", e.message);
        ts_file *f = NULL;
        ck_assert_int_eq(ts_file_open(out, NULL, &f, &e), TS_OK);
        const ts_array *a = ts_file_array(f, 0);
        ck_assert_int_eq(a->dtype, o.cast_dtype);
        unsigned char *got = tu_read_file(out, &len);
        for (size_t i = 0; i < n; i++)
            ck_assert_msg(le16(got + a->data_offset + 2 * i) == (k ? bf16 : f16)[i],
                          "%s of %.9g: %04x, expected %04x", k ? "bfloat16" : "float16",
                          (double)in[i], le16(got + a->data_offset + 2 * i),
                          (k ? bf16 : f16)[i]);
        free(got);
        ts_file_close(f);
        free(out);
        rm_dir(dir);
    }
    close_src(&s);
}
END_TEST

/* Big-endian Fortran-order data and a PyTorch view are written as C-order
 * little-endian copies with the values NumPy reads. */
START_TEST(test_swap_and_order)
{
    static const char *const files[] = {"tests/fixtures/values/i2_be_fortran.npy",
                                        "tests/fixtures/values/f8_fortran.npy",
                                        "tests/fixtures/pytorch/channels_last.pt"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        ts_file *in = NULL, *f = NULL;
        ts_error e;
        ck_assert_msg(ts_file_open(files[i], NULL, &in, &e) == TS_OK, "%s", e.message);
        const ts_array *a = ts_file_array(in, 0);
        char *dir = tmp_dir(), *out = path_in(dir, "o.safetensors");
        ts_write_tensor t = {"x", in, a};
        ck_assert_msg(write_one(out, &t, 1, NULL, &e) == TS_OK, "%s: %s", files[i], e.message);
        ck_assert_int_eq(ts_file_open(out, NULL, &f, &e), TS_OK);
        const ts_array *b = ts_file_array(f, 0);
        ck_assert(ts_shape_equal(&a->shape, &b->shape));
        ck_assert_int_eq(a->dtype, b->dtype);
        ck_assert_int_eq(b->fortran_order, 0);
        double *va = malloc((size_t)a->size * sizeof *va), *vb = malloc((size_t)a->size * sizeof *vb);
        ck_assert_int_eq(ts_array_read(in, a, 0, a->size, TS_DTYPE_FLOAT64, va, &e), TS_OK);
        ck_assert_int_eq(ts_array_read(f, b, 0, b->size, TS_DTYPE_FLOAT64, vb, &e), TS_OK);
        ck_assert_msg(memcmp(va, vb, (size_t)a->size * sizeof *va) == 0, "%s", files[i]);
        free(va), free(vb);
        ts_file_close(f);
        ts_file_close(in);
        free(out);
        rm_dir(dir);
    }
}
END_TEST

/* --max-shard-size: STEM-0000K-of-0000N.safetensors and the index. */
START_TEST(test_shards)
{
    src a = src_a(), b = src_b();
    char *dir = tmp_dir(), *out = path_in(dir, "model.safetensors");
    ts_write_tensor t[] = {{"w.b", b.f, ts_file_array(b.f, 0)},
                           {"w.a", a.f, ts_file_array(a.f, 0)},
                           {"w.c", a.f, ts_file_array(a.f, 0)}};
    ts_write_options o = TS_WRITE_OPTIONS_INIT;
    ts_write_result r;
    ts_error e;
    o.max_shard_size = 12; /* w.a (6) + w.b (8) do not fit together */
    ck_assert_msg(ts_write(out, t, 3, &o, &r, &e) == TS_OK, "%s", e.message);
    ck_assert_uint_eq(r.files, 4);
    ck_assert_int_eq(count_entries(dir), 4);
    char *idx = path_in(dir, "model.safetensors.index.json");
    size_t len;
    unsigned char *got = tu_read_file(idx, &len);
    ck_assert_ptr_nonnull(got);
    const char *want = "{\n  \"metadata\": {\n    \"total_size\": 20\n  },\n"
                       "  \"weight_map\": {\n"
                       "    \"w.a\": \"model-00001-of-00003.safetensors\",\n"
                       "    \"w.b\": \"model-00002-of-00003.safetensors\",\n"
                       "    \"w.c\": \"model-00003-of-00003.safetensors\"\n  }\n}\n";
    ck_assert_uint_eq(len, strlen(want));
    ck_assert(memcmp(got, want, len) == 0);
    free(got);
    /* the folder opens as one model */
    ts_model *m = NULL;
    ck_assert_int_eq(ts_model_open(dir, NULL, &m, &e), TS_OK);
    ck_assert_uint_eq(ts_model_count(m), 3);
    ck_assert_uint_eq(ts_model_error_count(m), 0);
    ts_model_close(m);
    /* written again without overwrite: refused, nothing changed */
    ck_assert_int_eq(ts_write(out, t, 3, &o, &r, &e), TS_ERR_IO);
    ck_assert_ptr_nonnull(strstr(e.message, "will not replace"));
    ck_assert_int_eq(count_entries(dir), 4);
    free(idx), free(out);
    rm_dir(dir);
    close_src(&a);
    close_src(&b);
}
END_TEST

/* ---- errors ------------------------------------------------------------------------- */

static int stop_now(void *ctx, int64_t done, int64_t total)
{
    (void)done, (void)total;
    ++*(int *)ctx;
    return 1;
}

START_TEST(test_errors)
{
    src a = src_a();
    const unsigned char bf[] = {0x80, 0x3f, 0, 0xc0};
    size_t len;
    unsigned char *img = st_image("{\"x\":{\"dtype\":\"BF16\",\"shape\":[2],\"data_offsets\":[0,4]}}",
                                  bf, sizeof bf, &len);
    src b = open_image(img, len);
    ts_file *c16 = NULL, *q = NULL;
    ts_error e;
    ck_assert_int_eq(ts_file_open("tests/fixtures/values/c16_be.npy", NULL, &c16, &e), TS_OK);
    ck_assert_int_eq(ts_file_open("tests/fixtures/values/quant.gguf", NULL, &q, &e), TS_OK);
    const ts_array *aa = ts_file_array(a.f, 0);
    char *dir = tmp_dir(), *st = path_in(dir, "o.safetensors"), *npz = path_in(dir, "o.npz");
    ts_write_options o = TS_WRITE_OPTIONS_INIT, onpz = TS_WRITE_OPTIONS_INIT;
    onpz.format = TS_WRITE_NPZ;

    ts_write_tensor bf16 = {"x", b.f, ts_file_array(b.f, 0)};
    ck_assert_int_eq(write_one(npz, &bf16, 1, &onpz, &e), TS_ERR_DTYPE);
    ck_assert_str_eq(e.message, "array 'x': NumPy .npy has no dtype bfloat16; cast it to a "
                                "float dtype the format has");
    onpz.cast = 1; /* --cast float32 makes it fit */
    ck_assert_msg(write_one(npz, &bf16, 1, &onpz, &e) == TS_OK, "%s", e.message);
    unlink(npz);

    ts_write_tensor cx = {"z", c16, ts_file_array(c16, 0)};
    ck_assert_int_eq(write_one(st, &cx, 1, &o, &e), TS_ERR_DTYPE);
    ck_assert_str_eq(e.message, "array 'z': safetensors has no dtype complex128; cast it to "
                                "complex64");

    ts_write_tensor qt = {"q", q, ts_file_array(q, 0)};
    ck_assert_int_eq(write_one(st, &qt, 1, &o, &e), TS_ERR_DTYPE);
    ck_assert_str_eq(e.message, "array 'q': GGUF block type q4_0 cannot be copied to "
                                "safetensors; dequantize it (to float32 or float16)");

    /* ts_write_check gives each tensor's error from its header, writing
     * nothing (convert lists them all; issue 20 item 16) */
    ck_assert_int_eq(ts_write_check(&qt, &o, &e), TS_ERR_DTYPE);
    ck_assert_str_eq(e.message, "array 'q': GGUF block type q4_0 cannot be copied to "
                                "safetensors; dequantize it (to float32 or float16)");
    ck_assert_int_eq(ts_write_check(&cx, &o, &e), TS_ERR_DTYPE);
    ck_assert_int_eq(ts_write_check(&bf16, &onpz, &e), TS_OK); /* cast set above */
    ck_assert_int_eq(ts_write_check(&bf16, NULL, &e), TS_OK);
    ts_write_options dq = TS_WRITE_OPTIONS_INIT;
    dq.dequantize = 1;
    ck_assert_int_eq(ts_write_check(&qt, &dq, &e), TS_OK);
    ts_file *sp = NULL, *emp = NULL;
    ck_assert_int_eq(ts_file_open("tests/fixtures/values/sparse.params", NULL, &sp, &e), TS_OK);
    ts_write_tensor rsp = {"r", sp, ts_file_array(sp, 1)};
    ck_assert_int_eq(ts_write_check(&rsp, &o, &e), TS_ERR_UNSUPPORTED);
    ck_assert_str_eq(e.message, "array 'r': MXNet sparse storage cannot be written");
    ts_file_close(sp);
    ck_assert_int_eq(ts_file_open("tests/fixtures/hdf5/empty.h5", NULL, &emp, &e), TS_OK);
    for (size_t i = 0; i < ts_file_count(emp); i++) {
        ts_write_tensor et = {ts_file_array(emp, i)->name, emp, ts_file_array(emp, i)};
        ts_status want = strcmp(et.name, "null") == 0 ? TS_ERR_UNSUPPORTED : TS_OK;
        ck_assert_int_eq(ts_write_check(&et, &onpz, &e), want);
        if (want)
            ck_assert_str_eq(e.message, "array 'null': it has no shape (an HDF5 null "
                                        "dataspace, h5py.Empty), which NumPy .npy cannot hold");
    }
    ts_file_close(emp);
    ck_assert_int_eq(count_entries(dir), 0);

    ts_write_tensor dup[] = {{"n", a.f, aa}, {"n", a.f, aa}};
    ck_assert_int_eq(write_one(st, dup, 2, &o, &e), TS_ERR_VALUE);
    ck_assert_str_eq(e.message, "array 'n': two arrays have this name");
    ts_write_tensor empty = {"", a.f, aa};
    ck_assert_int_eq(write_one(st, &empty, 1, &o, &e), TS_ERR_VALUE);
    ts_write_tensor bad_utf8 = {"a\xff", a.f, aa};
    ck_assert_int_eq(write_one(st, &bad_utf8, 1, &o, &e), TS_ERR_VALUE);
    ts_write_tensor up = {"../x", a.f, aa};
    ck_assert_int_eq(write_one(npz, &up, 1, &onpz, &e), TS_ERR_VALUE);
    ck_assert_int_eq(write_one(st, &up, 0, &o, &e), TS_ERR_VALUE);
    ck_assert_str_eq(e.message, "nothing to write: no arrays");
    ck_assert_int_eq(count_entries(dir), 0);

    /* an existing output is kept */
    FILE *fp = fopen(st, "w");
    fputs("keep", fp);
    fclose(fp);
    ts_write_tensor one = {"a", a.f, aa};
    ck_assert_int_eq(write_one(st, &one, 1, &o, &e), TS_ERR_IO);
    ck_assert_ptr_nonnull(strstr(e.message, "will not replace"));
    unsigned char *kept = tu_read_file(st, &len);
    ck_assert_uint_eq(len, 4);
    free(kept);
    o.overwrite = 1;
    ck_assert_int_eq(write_one(st, &one, 1, &o, &e), TS_OK);
    unlink(st);

    /* a cancel leaves nothing, for each format */
    int calls = 0;
    for (int fmt = 0; fmt < 3; fmt++) {
        ts_write_options oc = TS_WRITE_OPTIONS_INIT;
        oc.format = (ts_write_format)fmt;
        oc.progress = stop_now;
        oc.progress_ctx = &calls;
        ck_assert_int_eq(write_one(fmt == 1 ? npz : st, &one, 1, &oc, &e), TS_ERR_CANCELED);
        ck_assert_int_eq(count_entries(dir), 0);
    }
    ck_assert_int_eq(calls, 3);

    /* options */
    ts_write_options bad = TS_WRITE_OPTIONS_INIT;
    bad.max_shard_size = 5;
    bad.format = TS_WRITE_NPZ;
    ck_assert_int_eq(write_one(npz, &one, 1, &bad, &e), TS_ERR_INVALID_ARG);
    bad = o;
    bad.cast = 1;
    bad.cast_dtype = TS_DTYPE_INT8;
    ck_assert_int_eq(write_one(st, &one, 1, &bad, &e), TS_ERR_INVALID_ARG);
    bad = o;
    bad.dequantize = 1;
    bad.dequantize_dtype = TS_DTYPE_BFLOAT16;
    ck_assert_int_eq(write_one(st, &one, 1, &bad, &e), TS_ERR_INVALID_ARG);
    ck_assert_int_eq(count_entries(dir), 0);

    free(st), free(npz);
    rm_dir(dir);
    ts_file_close(c16);
    ts_file_close(q);
    close_src(&a);
    close_src(&b);
}
END_TEST

/* Verification reads the output back: a byte changed on its way to the
 * disk is an error naming the array, and nothing is left. */
static void flip_last_byte(const char *tmp)
{
    FILE *fp = fopen(tmp, "r+b");
    ck_assert_ptr_nonnull(fp);
    ck_assert_int_eq(fseek(fp, -1, SEEK_END), 0);
    int c = fgetc(fp);
    ck_assert_int_eq(fseek(fp, -1, SEEK_END), 0);
    fputc(c ^ 1, fp);
    fclose(fp);
}

START_TEST(test_verify_catches)
{
    src a = src_a();
    char *dir = tmp_dir(), *out = path_in(dir, "o.safetensors");
    ts_write_tensor t = {"a", a.f, ts_file_array(a.f, 0)};
    ts_write_options o = TS_WRITE_OPTIONS_INIT;
    ts_error e;
    ts__test_before_verify = flip_last_byte;
    ts_status st = write_one(out, &t, 1, &o, &e);
    ck_assert_int_eq(st, TS_ERR_IO);
    ck_assert_ptr_nonnull(strstr(e.message, "the data of array 'a' read back has checksum (XXH3-64)"));
    ck_assert_int_eq(count_entries(dir), 0);
    o.no_verify = 1; /* unverified, the changed byte goes through */
    st = write_one(out, &t, 1, &o, &e);
    ts__test_before_verify = NULL;
    ck_assert_int_eq(st, TS_OK);
    ck_assert_int_eq(count_entries(dir), 1);
    free(out);
    rm_dir(dir);
    close_src(&a);
}
END_TEST

/* What test_verify_damage does to the written file before verification:
 * a byte flipped at damage_at (from the end when negative), or the file
 * cut by damage_cut bytes. */
static long damage_at, damage_cut;
static void damage(const char *tmp)
{
    FILE *fp = fopen(tmp, "r+b");
    ck_assert_ptr_nonnull(fp);
    ck_assert_int_eq(fseek(fp, 0, SEEK_END), 0);
    long size = ftell(fp);
    if (damage_cut) {
        fclose(fp);
        ck_assert_int_eq(truncate(tmp, size - damage_cut), 0);
        return;
    }
    long at = damage_at < 0 ? size + damage_at : damage_at;
    ck_assert_int_eq(fseek(fp, at, SEEK_SET), 0);
    int c = fgetc(fp);
    ck_assert_int_eq(fseek(fp, at, SEEK_SET), 0);
    fputc(c ^ 0x10, fp);
    fclose(fp);
}

/* Verification reads back what is on the disk (the page cache): each kind
 * of damage of the written file is an error, and nothing is left. An .npz
 * of one member "a.npy": local header at 0 (its CRC-32 at byte 14), the
 * name, the npy header (128 bytes) and the data from byte 163 (6 bytes),
 * the directory entry at 169 (its CRC-32 at 185), the end record. */
START_TEST(test_verify_damage)
{
    src a = src_a();
    char *dir = tmp_dir();
    ts_write_tensor t = {"a", a.f, ts_file_array(a.f, 0)};
    static const struct {
        int npz;
        long at, cut;
        const char *says;
    } cases[] = {
        {1, 14, 0, "member 'a.npy' reads back with CRC-32 "},      /* local header's CRC */
        {1, 185, 0, "member 'a.npy' reads back with CRC-32 "},     /* directory entry's */
        {1, 163 + 5, 0, "the data of array 'a' read back has checksum (XXH3-64)"},
        {1, 40, 0, "verifying"},                                   /* the npy header */
        {1, 0, 1, "verifying"},                                    /* one byte short */
        {1, 0, 30, "verifying"},
        {0, 0, 1, "verifying"},
        {0, -3, 0, "the data of array 'a' read back has checksum (XXH3-64)"},
        {0, 20, 0, "verifying"},                                   /* the header */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *out = path_in(dir, cases[i].npz ? "o.npz" : "o.safetensors");
        ts_write_options o = TS_WRITE_OPTIONS_INIT;
        o.format = cases[i].npz ? TS_WRITE_NPZ : TS_WRITE_SAFETENSORS;
        ts_error e;
        damage_at = cases[i].at;
        damage_cut = cases[i].cut;
        ts__test_before_verify = damage;
        ts_status st = write_one(out, &t, 1, &o, &e);
        ts__test_before_verify = NULL;
        ck_assert_msg(st == TS_ERR_IO && e.code == TS_ERR_IO &&
                      strstr(e.message, "verifying '") == e.message &&
                      strstr(e.message, cases[i].says), "case %zu: %s", i, e.message);
        ck_assert_int_eq(count_entries(dir), 0);
        free(out);
    }
    /* undamaged, the CRC-32 fields are those zlib computes (and the
     * offsets above are right) */
    char *out = path_in(dir, "o.npz");
    ts_write_options o = TS_WRITE_OPTIONS_INIT;
    o.format = TS_WRITE_NPZ;
    ts_error e;
    ck_assert_msg(write_one(out, &t, 1, &o, &e) == TS_OK, "%s", e.message);
    size_t got;
    unsigned char *b = tu_read_file(out, &got);
    ck_assert_uint_eq(got, 169 + 46 + 5 + 22);
    uint32_t crc = ts__crc32_soft(0, b + 35, 128 + 6);
    ck_assert_uint_eq(b[14] | b[15] << 8 | b[16] << 16 | (uint32_t)b[17] << 24, crc);
    ck_assert_uint_eq(b[185] | b[186] << 8 | b[187] << 16 | (uint32_t)b[188] << 24, crc);
    ck_assert_int_eq(memcmp(b + 169, "PK\1\2", 4), 0);
    free(b);
    free(out);
    rm_dir(dir);
    close_src(&a);
}
END_TEST

/* Arrays copied unchanged from a local file are read straight into the
 * pump's buffer: the bytes equal those of the pump's path, for safetensors
 * and npz output; a change on the way to the disk is still caught, a
 * cancel or an input that shrank leaves nothing. */
static void write_file(const char *path, const unsigned char *p, size_t n)
{
    FILE *fp = fopen(path, "wb");
    ck_assert_ptr_nonnull(fp);
    ck_assert_uint_eq(fwrite(p, 1, n, fp), n);
    ck_assert_int_eq(fclose(fp), 0);
}

/* The input of test_direct_read, cut to 4,000,000 bytes by the hook
 * ts__test_map_step as the second array's first step begins. */
static const char *shrink_path;
static int shrink_calls;
static void shrink_input(void)
{
    if (++shrink_calls == 2)
        ck_assert_int_eq(truncate(shrink_path, 4000000), 0);
}

START_TEST(test_direct_read)
{
    char *dir = tmp_dir(), *in = path_in(dir, "in.safetensors");
    /* x: float32 [40000], y: int16 [3], z: float32 [2400000] (above the 64
     * KiB a file is read whole: opened for pread; z in 3 pieces) */
    const char *json = "{\"x\":{\"dtype\":\"F32\",\"shape\":[40000],\"data_offsets\":[0,160000]},"
                       "\"y\":{\"dtype\":\"I16\",\"shape\":[3],\"data_offsets\":[9760000,9760006]},"
                       "\"z\":{\"dtype\":\"F32\",\"shape\":[2400000],\"data_offsets\":[160000,9760000]}}";
    size_t n = 9760006, len;
    unsigned char *data = malloc(n);
    ck_assert_ptr_nonnull(data);
    for (size_t i = 0; i < n; i++)
        data[i] = (unsigned char)(i * 131 + (i >> 9));
    unsigned char *img = st_image(json, data, n, &len);
    write_file(in, img, len);
    free(img), free(data);
    ts_file *f = NULL;
    ts_error e;
    ck_assert_msg(ts_file_open(in, NULL, &f, &e) == TS_OK, "%s", e.message);
    ts_write_tensor t[3];
    for (size_t i = 0; i < 3; i++) {
        t[i].name = ts_file_array(f, i)->name;
        t[i].file = f;
        t[i].array = ts_file_array(f, i);
    }
    static const char *const outs[2] = {"o.safetensors", "o.npz"};
    for (int fmt = 0; fmt < 2; fmt++) {
        unsigned char *ref = NULL;
        size_t ref_len = 0;
        /* 0: written from a map of the input; 1: read straight into the
         * pump's buffer; 2: through the pump */
        for (int way = 0; way < 3; way++) {
            char *out = path_in(dir, outs[fmt]);
            ts_write_options o = TS_WRITE_OPTIONS_INIT;
            o.format = fmt ? TS_WRITE_NPZ : TS_WRITE_SAFETENSORS;
            ts__test_direct_bytes = ts__test_mapped_bytes = 0;
            ts__test_no_map = way == 1;
            ts__test_no_direct = way == 2;
            ts_status st = write_one(out, t, 3, &o, &e);
            ts__test_no_direct = ts__test_no_map = 0;
            ck_assert_msg(st == TS_OK, "%s", e.message);
            ck_assert_uint_eq(ts__test_mapped_bytes, way == 0 ? 9760006 : 0);
            ck_assert_uint_eq(ts__test_direct_bytes, way == 1 ? 9760006 : 0);
            size_t got;
            unsigned char *b = tu_read_file(out, &got);
            /* as long as its contents, no longer (its blocks were reserved
             * first): the header and the data, or an npz ending with its
             * end record */
            if (fmt == 0) {
                ck_assert_uint_ge(got, 8);
                uint64_t hl = 0;
                for (int k = 7; k >= 0; k--)
                    hl = hl << 8 | b[k];
                ck_assert_uint_eq(got, 8 + hl + 9760006);
            } else {
                ck_assert_uint_ge(got, 22);
                ck_assert_int_eq(memcmp(b + got - 22, "PK\5\6", 4), 0);
            }
            if (way == 0) {
                ref = b;
                ref_len = got;
            } else if (fmt == 0) {
                ck_assert_uint_eq(got, ref_len);
                ck_assert_int_eq(memcmp(b, ref, got), 0);
                free(b);
            } else { /* an npz: the same members (its time fields may differ) */
                for (size_t i = 0; i < 3; i++) {
                    char mn[16];
                    uint64_t sa, sb;
                    uint32_t ca, cb;
                    snprintf(mn, sizeof mn, "%s.npy", t[i].name);
                    const unsigned char *ma = zip_find(ref, ref_len, mn, &sa, &ca);
                    const unsigned char *mb = zip_find(b, got, mn, &sb, &cb);
                    ck_assert_uint_eq(sa, sb);
                    ck_assert_uint_eq(ca, cb);
                    ck_assert_uint_eq(ca, ts__crc32_soft(0, ma, (size_t)sa));
                    ck_assert_int_eq(memcmp(ma, mb, (size_t)sa), 0);
                }
                free(b);
            }
            unlink(out);
            free(out);
        }
        free(ref);
        /* verification still reads the output back */
        char *out = path_in(dir, outs[fmt]);
        ts_write_options o = TS_WRITE_OPTIONS_INIT;
        o.format = fmt ? TS_WRITE_NPZ : TS_WRITE_SAFETENSORS;
        ts__test_before_verify = flip_last_byte;
        ts_status st = write_one(out, t, 3, &o, &e);
        ts__test_before_verify = NULL;
        ck_assert_int_eq(st, TS_ERR_IO);
        ck_assert_ptr_nonnull(strstr(e.message, "verifying"));
        int calls = 0;
        o.progress = stop_now;
        o.progress_ctx = &calls;
        ck_assert_int_eq(write_one(out, t, 3, &o, &e), TS_ERR_CANCELED);
        ck_assert_int_eq(calls, 1);
        ck_assert_int_eq(count_entries(dir), 1); /* in.safetensors alone */
        free(out);
    }
    /* the input shrinks after it was opened: a read error naming the array,
     * and nothing left; mapped (a SIGBUS the map guard turns into the
     * error), read, and mapped with the pages vanishing once the second
     * array's copy began */
    ck_assert_int_eq(truncate(in, 4000000), 0);
    for (int fmt = 0; fmt < 2; fmt++)
        for (int way = 0; way < 3; way++) {
            char *out = path_in(dir, outs[fmt]);
            ts_write_options o = TS_WRITE_OPTIONS_INIT;
            o.format = fmt ? TS_WRITE_NPZ : TS_WRITE_SAFETENSORS;
            if (way == 2) { /* whole again, cut as the second array's copy
                               begins */
                img = st_image(json, "", 0, &len); /* the header alone */
                unsigned char *whole = calloc(1, len + n);
                ck_assert_ptr_nonnull(whole);
                memcpy(whole, img, len);
                write_file(in, whole, len + n);
                free(img), free(whole);
                shrink_path = in;
                shrink_calls = 0;
                ts__test_map_step = shrink_input;
            }
            ts__test_no_map = way == 1;
            ts__test_mapped_bytes = 0;
            ts_status st = write_one(out, t, 3, &o, &e);
            ts__test_no_map = 0;
            ts__test_map_step = NULL;
            ck_assert_int_eq(st, TS_ERR_IO);
            /* safetensors writes x, z, y (larger itemsize first, then by
             * name), npz x, y, z: x, in the first 4 MB, goes whole */
            ck_assert_msg(strstr(e.message, fmt ? "array 'y': " : "array 'z': ") == e.message &&
                          strstr(e.message, way == 1 ? "the file shrank while it was being "
                                                       "read (truncated by another program?): "
                                                       "it ends before byte"
                                                     : "the file shrank while it was being "
                                                       "read (truncated by another program?): "
                                                       "a page of its mapping vanished"),
                          "%s", e.message);
            ck_assert_uint_eq(ts__test_mapped_bytes, way == 1 ? 0 : 160000);
            ck_assert_int_eq(count_entries(dir), 1);
            free(out);
        }
    ts_file_close(f);
    free(in);
    rm_dir(dir);
}
END_TEST

Suite *convert_suite(void)
{
    Suite *s = suite_create("convert");
    TCase *tc = tcase_create("bytes");
    tcase_add_test(tc, test_safetensors_bytes);
    tcase_add_test(tc, test_npy_bytes);
    tcase_add_test(tc, test_npz_roundtrip);
    tcase_add_test(tc, test_npz_stored_bytes);
    tcase_add_test(tc, test_npy_dir_names);
    tcase_add_test(tc, test_copy_files);
    tcase_add_test(tc, test_cast_rounding);
    tcase_add_test(tc, test_swap_and_order);
    tcase_add_test(tc, test_shards);
    suite_add_tcase(s, tc);
    TCase *te = tcase_create("errors");
    tcase_add_test(te, test_errors);
    tcase_add_test(te, test_verify_catches);
    tcase_add_test(te, test_direct_read);
    tcase_add_test(te, test_verify_damage);
    suite_add_tcase(s, te);
    return s;
}
