/* check_mapguard.c - a file that shrinks while it is read (issue 16 item 1):
 * ts_file_open returns TS_ERR_IO instead of dying of SIGBUS. The test hook
 * truncates the file right after it is mapped, as another program could. */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/reader.h"
#include "testutil.h"

static off_t truncate_to;
static const char *truncate_path;

static void shrink(void)
{
    ck_assert_int_eq(truncate(truncate_path, truncate_to), 0);
}

/* Copies src to a new temporary file; returns its path (static buffer). */
static const char *copy_to_temp(const unsigned char *data, size_t len)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/tshape-mapguard-XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
    close(fd);
    return path;
}

static void expect_shrank(const char *label, const unsigned char *data, size_t len,
                          ts_format format)
{
    const char *tmp = copy_to_temp(data, len);
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.format = format;
    o.want_metadata = 1;
    ts_file *f = NULL;
    ts_error err;
    truncate_to = 0;
    truncate_path = tmp;
    ts__test_after_map = shrink;
    ts_status st = ts_file_open(tmp, &o, &f, &err);
    ts__test_after_map = NULL;
    unlink(tmp);
    ck_assert_msg(st == TS_ERR_IO && f == NULL, "%s (format %s): status %d, expected I/O",
                  label, ts_format_name(format), (int)st);
    ck_assert_str_eq(err.message, "the file shrank while it was being read (truncated by "
                                  "another program?): a page of its mapping vanished");
}

/* Every fixture of every format, detected and forced to each reader. */
START_TEST(test_every_fixture)
{
    static const char *const patterns[] = {"tests/fixtures/*/*", "examples/*.*"};
    size_t files = 0;
    for (size_t p = 0; p < sizeof patterns / sizeof *patterns; p++) {
        glob_t g;
        if (glob(patterns[p], 0, NULL, &g) != 0)
            continue;
        for (size_t i = 0; i < g.gl_pathc; i++) {
            size_t len;
            unsigned char *data = tu_read_file(g.gl_pathv[i], &len);
            if (!data || len == 0) { /* directories, empty files: nothing is mapped */
                free(data);
                continue;
            }
            expect_shrank(g.gl_pathv[i], data, len, TS_FORMAT_AUTO);
            for (size_t k = 0; k < ts_format_count(); k++)
                expect_shrank(g.gl_pathv[i], data, len, ts_format_info_at(k)->format);
            free(data);
            files++;
        }
        globfree(&g);
    }
    ck_assert_uint_gt(files, 100);
}
END_TEST

/* Writes a GGUF v3 file of n_kv uint8 key/values with keys of key_len
 * bytes, plus, when value_len > 0, one string value of that many bytes. */
static unsigned char *make_gguf(size_t n_kv, size_t key_len, size_t value_len, size_t *len)
{
    *len = 24 + n_kv * (8 + key_len + 4 + 1) + (value_len ? 8 + 1 + 4 + 8 + value_len : 0);
    unsigned char *d = calloc(1, *len), *p = d;
    memcpy(p, "GGUF", 4), p += 4;
    ts__put_le32(p, 3), p += 4;                        /* version */
    ts__put_le64(p, 0), p += 8;                        /* tensors */
    ts__put_le64(p, n_kv + (value_len > 0)), p += 8;   /* key/values */
    for (size_t i = 0; i < n_kv; i++) {
        ts__put_le64(p, key_len), p += 8;
        memset(p, 'k', key_len);
        snprintf((char *)p, key_len, "k%07zu", i);
        p[strlen((char *)p)] = 'k';
        p += key_len;
        ts__put_le32(p, 0), p += 4;                    /* uint8 */
        *p++ = 7;
    }
    if (value_len) {
        ts__put_le64(p, 1), p += 8;
        *p++ = 'v';
        ts__put_le32(p, 8), p += 4;                    /* string */
        ts__put_le64(p, value_len), p += 8;
        memset(p, 'v', value_len);
    }
    return d;
}

static int discard(void *user, const char *data, size_t len)
{
    (void)data;
    *(size_t *)user += len;
    return 0;
}

/* Keys over many pages, cut to the first page right after mapping: the
 * fault comes in the middle of the reader's work. */
START_TEST(test_mid_parse)
{
    size_t len;
    unsigned char *d = make_gguf(4000, 100, 0, &len);
    const char *tmp = copy_to_temp(d, len);
    free(d);
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    ts_file *f = NULL;
    ts_error err;
    ck_assert_int_eq(ts_file_open(tmp, &o, &f, &err), TS_OK); /* whole, it reads */
    ck_assert_uint_eq(ts_file_metadata_count(f), 0);
    ts_file_close(f);
    truncate_to = 4096;
    truncate_path = tmp;
    ts__test_after_map = shrink;
    ts_status st = ts_file_open(tmp, &o, &f, &err);
    ts__test_after_map = NULL;
    unlink(tmp);
    ck_assert_int_eq(st, TS_ERR_IO);
    ck_assert_ptr_null(f);
    ck_assert_ptr_nonnull(strstr(err.message, "the file shrank while it was being read"));
}
END_TEST

/* GGUF metadata of a mapped file is rendered when asked for: a file cut
 * after it was opened fails then, with an error, and the value is streamed
 * in bounded pieces. (Read with pread, the default, the metadata is read
 * when the file is opened and is there when rendered.) */
START_TEST(test_after_open)
{
    size_t len, got = 0;
    unsigned char *d = make_gguf(1, 16, 1u << 20, &len);
    const char *tmp = copy_to_temp(d, len);
    free(d);
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.want_metadata = 1;
    o.io = TS_IO_MAP;
    ts_file *f = NULL;
    ts_error err;
    ck_assert_int_eq(ts_file_open(tmp, &o, &f, &err), TS_OK);
    ck_assert_uint_eq(ts_file_metadata_count(f), 2);
    ck_assert_int_eq(ts_file_metadata_write(f, 1, discard, &got, &err), TS_OK);
    ck_assert_uint_eq(got, (1u << 20) + 2); /* the quoted string */
    ck_assert_int_eq(truncate(tmp, 4096), 0);
    got = 0;
    ck_assert_int_eq(ts_file_metadata_write(f, 1, discard, &got, &err), TS_ERR_IO);
    ck_assert_ptr_nonnull(strstr(err.message, "the file shrank while it was being read"));
    const char *k, *v = "unset";
    ck_assert_int_eq(ts_file_metadata(f, 1, &k, &v), 1);
    ck_assert_ptr_null(v);
    ts_file_close(f);
    unlink(tmp);
}
END_TEST

/* A .npy image of n float32 (or float64) values 0, 1, 2, ... */
static unsigned char *npy_values(size_t n, int f64, size_t *len)
{
    char dict[128];
    int k = snprintf(dict, sizeof dict, "{'descr': '<f%d', 'fortran_order': False, "
                     "'shape': (%zu,), }", f64 ? 8 : 4, n);
    size_t hl = (size_t)k + 1, pad = 64 - (10 + hl) % 64, head = 10 + hl + pad;
    size_t item = f64 ? 8 : 4;
    *len = head + n * item;
    unsigned char *d = malloc(*len);
    ck_assert_ptr_nonnull(d);
    memcpy(d, "\x93NUMPY\x01\x00", 8);
    d[8] = (unsigned char)((hl + pad) & 0xff);
    d[9] = (unsigned char)((hl + pad) >> 8);
    memcpy(d + 10, dict, (size_t)k);
    memset(d + 10 + k, ' ', pad);
    d[head - 1] = '\n';
    for (size_t i = 0; i < n; i++) {
        if (f64) {
            double v = (double)i;
            memcpy(d + head + i * 8, &v, 8);
        } else {
            float v = (float)i;
            memcpy(d + head + i * 4, &v, 4);
        }
    }
    return d;
}

static int cancel_never(void *ctx, int64_t done, int64_t total)
{
    (void)ctx, (void)done, (void)total;
    return 0;
}

/* Every value command's function on files cut to their first page after
 * they were opened (so their data vanishes mid-read): stats, reads (show),
 * compare (diff --values: a or b cut; in place on threads, and in pieces),
 * write (convert). Each is TS_ERR_IO "the file shrank", never a SIGBUS. */
START_TEST(test_values_mid_read)
{
    const size_t n = 2u << 20; /* 8 MiB of float32: compared in place, on threads */
    size_t len[2];
    unsigned char *d[2] = {npy_values(n, 0, &len[0]), npy_values(n, _i >= 4, &len[1])};
    char path[2][64];
    ts_file *f[2];
    ts_error err;
    for (int k = 0; k < 2; k++) {
        snprintf(path[k], sizeof path[k], "%s", copy_to_temp(d[k], len[k]));
        ck_assert_int_eq(ts_file_open(path[k], NULL, &f[k], &err), TS_OK);
        free(d[k]);
    }
    const ts_array *a = ts_file_array(f[0], 0), *b = ts_file_array(f[1], 0);
    int cut = _i % 2; /* which file is cut (compare only) */
    ck_assert_int_eq(truncate(path[cut], 4096), 0);
    ts_status st = TS_OK;
    switch (_i) {
    case 0: {
        ts_stats s;
        st = ts_array_stats(f[0], a, NULL, &s, &err);
        break;
    }
    case 1: {
        double *v = malloc(n * sizeof *v);
        st = ts_array_read(f[1], b, 0, (int64_t)n, TS_DTYPE_FLOAT64, v, &err);
        free(v);
        break;
    }
    case 2: case 3: case 4: case 5: { /* same dtype: in place; float64 b: in pieces */
        ts_compare c;
        st = ts_array_compare(f[0], a, f[1], b, NULL, &c, &err);
        ck_assert_msg(err.index == cut, "index %lld, not %d: %s", (long long)err.index, cut,
                      err.message);
        break;
    }
    default: {
        char out[96];
        snprintf(out, sizeof out, "%s.out.safetensors", path[0]);
        ts_write_tensor t = {"x", f[0], a};
        ts_write_options o = TS_WRITE_OPTIONS_INIT;
        o.progress = cancel_never;
        st = ts_write(out, &t, 1, &o, NULL, &err);
        ck_assert_int_ne(access(out, F_OK), 0);
        break;
    }
    }
    ck_assert_int_eq(st, TS_ERR_IO);
    ck_assert_ptr_nonnull(strstr(err.message, "the file shrank while it was being read"));
    for (int k = 0; k < 2; k++) {
        ts_file_close(f[k]);
        unlink(path[k]);
    }
}
END_TEST

Suite *mapguard_suite(void)
{
    Suite *s = suite_create("mapguard");
    TCase *tc = tcase_create("shrinking files");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_every_fixture);
    tcase_add_test(tc, test_mid_parse);
    tcase_add_test(tc, test_after_open);
    tcase_add_loop_test(tc, test_values_mid_read, 0, 7);
    suite_add_tcase(s, tc);
    return s;
}
