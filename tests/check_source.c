/* check_source.c - byte sources (src/formats/source.c): every reader asks
 * for the bytes it parses. Each fixture and corpus file is opened as usual
 * (mapped or read) and through a sparse source over pread, where a byte
 * nobody asked for is not there: the two reports must be the same, field
 * for field, metadata included, and no read of an unfetched byte may
 * happen. The same holds for the values the values layer reads. */
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/reader.h"
#include "testutil.h"

static void shape_eq(const char *what, const char *path, size_t i, const ts_shape *a,
                     const ts_shape *b)
{
    ck_assert_msg(ts_shape_ndim(a) == ts_shape_ndim(b), "%s: array %zu: %s ndim %d vs %d",
                  path, i, what, ts_shape_ndim(a), ts_shape_ndim(b));
    for (int k = 0; k < ts_shape_ndim(a); k++)
        ck_assert_msg(ts_shape_dims(a)[k] == ts_shape_dims(b)[k], "%s: array %zu: %s dim %d",
                      path, i, what, k);
}

static int str_eq(const char *a, const char *b)
{
    return (a == NULL) == (b == NULL) && (!a || strcmp(a, b) == 0);
}

static size_t unfetched_files;

/* Opens path both ways with these options and compares the results. */
static void compare_open(const char *path, const ts_open_options *o, size_t *opened)
{
    ts_file *fm = NULL, *fs = NULL;
    ts_error em, es;
    int before = ts__unfetched_faults;
    ts_status sm = ts_file_open(path, o, &fm, &em);
    ts__test_sparse = 2;
    ts_status ss = ts_file_open(path, o, &fs, &es);
    ts__test_sparse = 0;
    if (ts__unfetched_faults != before) {
        fprintf(stderr, "%s: %s\n", path, es.message);
        unfetched_files++;
        ts_file_close(fm);
        ts_file_close(fs);
        return;
    }
    ck_assert_msg(sm == ss, "%s: status %d mapped, %d sparse (%s | %s)", path, (int)sm, (int)ss,
                  sm ? em.message : "", ss ? es.message : "");
    if (sm) {
        ck_assert_msg(strcmp(em.message, es.message) == 0, "%s: '%s' vs '%s'", path,
                      em.message, es.message);
        ck_assert_int_eq(em.offset, es.offset);
        return;
    }
    ++*opened;
    ck_assert_int_eq(ts_file_format(fm), ts_file_format(fs));
    ck_assert_str_eq(ts_file_version(fm), ts_file_version(fs));
    ck_assert_uint_eq(ts_file_count(fm), ts_file_count(fs));
    for (size_t i = 0; i < ts_file_count(fm); i++) {
        const ts_array *a = ts_file_array(fm, i), *b = ts_file_array(fs, i);
        ck_assert_msg(strcmp(a->name, b->name) == 0, "%s: array %zu name", path, i);
        ck_assert_int_eq(a->dtype, b->dtype);
        ck_assert_str_eq(a->dtype_name, b->dtype_name);
        ck_assert_str_eq(a->format_dtype, b->format_dtype);
        shape_eq("shape", path, i, &a->shape, &b->shape);
        shape_eq("strides", path, i, &a->strides, &b->strides);
        shape_eq("storage shape", path, i, &a->storage_shape, &b->storage_shape);
        ck_assert_int_eq(a->size, b->size);
        ck_assert_int_eq(a->nbytes, b->nbytes);
        ck_assert_int_eq(a->data_offset, b->data_offset);
        ck_assert_int_eq(a->storage_offset, b->storage_offset);
        ck_assert_int_eq(a->fortran_order, b->fortran_order);
        ck_assert_int_eq(a->byteorder, b->byteorder);
        ck_assert_msg(str_eq(a->note, b->note), "%s: array %zu note", path, i);
        ck_assert_msg(str_eq(a->descr, b->descr), "%s: array %zu descr", path, i);
        ck_assert_msg(str_eq(a->storage_key, b->storage_key), "%s: array %zu key", path, i);
        ck_assert_msg(str_eq(a->device, b->device), "%s: array %zu device", path, i);
    }
    /* The values: statistics (every value read), the first and last
     * elements, and each array compared with itself across the two. */
    for (size_t i = 0; i < ts_file_count(fm); i++) {
        const ts_array *a = ts_file_array(fm, i), *b = ts_file_array(fs, i);
        if (ts_array_value_kind(a) == TS_VALUE_NONE || a->size > (1 << 22))
            continue;
        ts_stats_options so = TS_STATS_OPTIONS_INIT;
        so.nthreads = 2;
        ts_stats xm, xs;
        ts_status tm = ts_array_stats(fm, a, &so, &xm, &em);
        ts_status ts_ = ts_array_stats(fs, b, &so, &xs, &es);
        ck_assert_msg(tm == ts_, "%s: array %zu stats %d vs %d (%s)", path, i, (int)tm,
                      (int)ts_, ts_ ? es.message : em.message);
        if (tm == TS_OK) {
            ck_assert_int_eq(xm.count, xs.count);
            ck_assert_int_eq(xm.nan, xs.nan);
            ck_assert_int_eq(xm.zeros, xs.zeros);
            ck_assert_msg(memcmp(&xm.mean, &xs.mean, sizeof xm.mean) == 0 || xm.mean != xm.mean,
                          "%s: array %zu mean", path, i);
            ck_assert_msg(memcmp(&xm.max, &xs.max, sizeof xm.max) == 0 || xm.max != xm.max,
                          "%s: array %zu max", path, i);
        } else {
            ck_assert_str_eq(em.message, es.message);
        }
        double vm[2 * 8], vs[2 * 8];
        int64_t n = a->size < 8 ? a->size : 8;
        tm = ts_array_read(fm, a, a->size - n, n, TS_DTYPE_COMPLEX128, vm, &em);
        ts_ = ts_array_read(fs, b, b->size - n, n, TS_DTYPE_COMPLEX128, vs, &es);
        ck_assert_msg(tm == ts_, "%s: array %zu read %d vs %d", path, i, (int)tm, (int)ts_);
        if (tm == TS_OK)
            for (int64_t k = 0; k < 2 * n; k++)
                ck_assert_msg(vm[k] == vs[k] || (vm[k] != vm[k] && vs[k] != vs[k]),
                              "%s: array %zu value %lld", path, i, (long long)k / 2);
        ts_compare_options co = TS_COMPARE_OPTIONS_INIT;
        co.equal_nan = 1;
        ts_compare c;
        tm = ts_array_compare(fm, a, fs, b, &co, &c, &em);
        if (tm == TS_OK)
            ck_assert_msg(c.notclose == 0, "%s: array %zu: %lld values differ", path, i,
                          (long long)c.notclose);
    }
    ck_assert_msg(ts__unfetched_faults == before, "%s: values touched unfetched bytes", path);
    ck_assert_uint_eq(ts_file_metadata_count(fm), ts_file_metadata_count(fs));
    for (size_t i = 0; i < ts_file_metadata_count(fm); i++) {
        const char *km, *ks, *vm, *vs;
        ck_assert(ts_file_metadata(fm, i, &km, &vm));
        ck_assert(ts_file_metadata(fs, i, &ks, &vs));
        ck_assert_str_eq(km, ks);
        ck_assert_msg(str_eq(vm, vs), "%s: metadata '%s' differs", path, km);
    }
    ck_assert_msg(ts__unfetched_faults == before, "%s: metadata touched unfetched bytes", path);
    ts_file_close(fm);
    ts_file_close(fs);
}

/* Files under dir (recursively) whose names are not generator scripts. */
static void walk(const char *dir, size_t *files, size_t *opened, int depth)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (stat(path, &sb) != 0)
            continue;
        if (S_ISDIR(sb.st_mode)) {
            if (depth < 6)
                walk(path, files, opened, depth + 1);
            continue;
        }
        if (!S_ISREG(sb.st_mode) || fnmatch("*.py", e->d_name, 0) == 0 ||
            fnmatch("*.json", e->d_name, 0) == 0 || fnmatch("*.txt", e->d_name, 0) == 0 ||
            fnmatch("*.md", e->d_name, 0) == 0)
            continue;
        ts_open_options o = TS_OPEN_OPTIONS_INIT;
        o.want_metadata = 1;
        compare_open(path, &o, opened);
        ++*files;
    }
    closedir(d);
}

START_TEST(test_every_file_both_ways)
{
    static const char *const roots[] = {"tests/fixtures", "examples", "../shared/corpus"};
    size_t files = 0, opened = 0;
    for (size_t r = 0; r < sizeof roots / sizeof *roots; r++)
        walk(roots[r], &files, &opened, 0);
    ck_assert_msg(unfetched_files == 0, "%zu files were read past what was fetched",
                  unfetched_files);
    ck_assert_msg(files > 300, "only %zu files found", files);
    ck_assert_msg(opened > 150, "only %zu of %zu files opened", opened, files);
}
END_TEST

/* A reader's bug, simulated: touching a byte of a sparse image that was
 * never asked for is an error that says so, not a crash. */
static ts_status touch_unasked(void *arg, ts_error *err)
{
    const volatile unsigned char *p = arg;
    (void)*(p + 100000);
    return ts__error(err, TS_ERR_FORMAT, "not reached");
}

START_TEST(test_unfetched_byte_is_an_error)
{
    const char *path = "/tmp/tshape-source-check.bin";
    FILE *fp = fopen(path, "wb");
    ck_assert_ptr_nonnull(fp);
    for (int i = 0; i < 300000; i++)
        fputc(i & 0xff, fp);
    fclose(fp);
    ts__source *s = NULL;
    ts_error err;
    ck_assert_int_eq(ts__source_open_path(path, TS__LOCAL_SPARSE, &s, &err), TS_OK);
    uint64_t size;
    const unsigned char *img = ts__source_image(s, &size);
    ck_assert_uint_eq(size, 300000);
    ck_assert_int_eq(ts__source_need(s, 10, 4, &err), TS_OK);
    ck_assert_int_eq(img[10], 10);
    ck_assert_int_eq(img[13], 13);
    const void *lo, *hi;
    ts__source_sparse_range(s, &lo, &hi);
    int before = ts__unfetched_faults;
    ts_status st = ts__guarded_sparse(lo, hi, touch_unasked, (void *)(uintptr_t)img, &err);
    ck_assert_int_eq(st, TS_ERR_FORMAT);
    ck_assert_int_eq(ts__unfetched_faults, before + 1);
    ck_assert_str_eq(err.message, "tshape read byte 100000 of the file without fetching it "
                                  "first (a bug in tshape's reader for this format; please "
                                  "report it)");
    /* asked for now: there */
    ck_assert_int_eq(ts__source_need(s, 100000, 1, &err), TS_OK);
    ck_assert_int_eq(img[100000], 100000 & 0xff);
    /* past the end: clamped, not an error */
    ck_assert_int_eq(ts__source_need(s, 299990, 100, &err), TS_OK);
    ck_assert_int_eq(img[299999], 299999 & 0xff);
    /* a budget */
    ts__source_set_budget(s, 1, "--max-fetch");
    ck_assert_int_eq(ts__source_need(s, 200000, 10, &err), TS_ERR_LIMIT);
    ck_assert_ptr_nonnull(strstr(err.message, "--max-fetch"));
    /* reads for values bypass the image */
    unsigned char buf[8];
    ck_assert_int_eq(ts__source_read(s, 250000, buf, 8, &err), TS_OK);
    ck_assert_int_eq(buf[0], 250000 & 0xff);
    ck_assert_int_eq(ts__source_read(s, 299999, buf, 8, &err), TS_ERR_TRUNCATED);
    ts__source_close(s);
    unlink(path);
}
END_TEST

/* A run of a MiB or more of a local sparse source is mapped from the file
 * (source.c, MAP_RUN): the same bytes; pages the image holds are the page
 * cache's, not a copy (the resident anonymous memory does not grow by the
 * run); and a page that vanishes because the file shrank is an error
 * saying so under the guard, not a SIGBUS that kills the run. */
static ts_status touch_at(void *arg, ts_error *err)
{
    const volatile unsigned char *p = arg;
    (void)*p;
    return ts__error(err, TS_ERR_FORMAT, "not reached");
}

START_TEST(test_large_run_mapped)
{
    const char *path = "/tmp/tshape-source-map-check.bin";
    const size_t n = (size_t)3 << 20;
    FILE *fp = fopen(path, "wb");
    ck_assert_ptr_nonnull(fp);
    for (size_t i = 0; i < n; i++)
        fputc((int)((i * 7) & 0xff), fp);
    fclose(fp);
    ts__source *s = NULL;
    ts_error err;
    ck_assert_int_eq(ts__source_open_path(path, TS__LOCAL_SPARSE, &s, &err), TS_OK);
    uint64_t size;
    const unsigned char *img = ts__source_image(s, &size);
    ck_assert_uint_eq(size, n);
    ck_assert_int_eq(ts__source_need(s, 0, n, &err), TS_OK);
    for (size_t i = 0; i < n; i += 4093)
        ck_assert_int_eq(img[i], (int)((i * 7) & 0xff));
    ck_assert_int_eq(img[n - 1], (int)(((n - 1) * 7) & 0xff));
    /* the file cut to 1 MiB: the mapped pages past it vanish */
    ck_assert_int_eq(truncate(path, (off_t)1 << 20), 0);
    const void *lo, *hi;
    ts__source_sparse_range(s, &lo, &hi);
    int before = ts__unfetched_faults;
    ts_status st = ts__guarded_sparse(lo, hi, touch_at, (void *)(uintptr_t)(img + (2u << 20)),
                                      &err);
    ck_assert_int_eq(st, TS_ERR_IO);
    ck_assert_ptr_nonnull(strstr(err.message, "the file shrank while it was being read"));
    ck_assert_int_eq(ts__unfetched_faults, before); /* not a reader's mistake */
    ts__source_close(s);
    unlink(path);
}
END_TEST

/* Ranges asked for together are fetched in one call of the fetcher. */
typedef struct counting {
    const unsigned char *data;
    unsigned calls, ranges;
} counting;

static ts_status count_fetch(void *impl, ts__range *r, size_t n, unsigned *requests,
                             ts_error *err)
{
    (void)err;
    counting *c = impl;
    c->calls++;
    c->ranges += (unsigned)n;
    for (size_t i = 0; i < n; i++)
        memcpy(r[i].buf, c->data + r[i].off, r[i].len);
    *requests += 1;
    return TS_OK;
}

static void count_close(void *impl)
{
    (void)impl;
}

/* Reads into callers' buffers from several threads at once: a local
 * file's pread runs unlocked (the fetcher says it may), every byte right and
 * every request counted; a fetcher that does not say so is never entered
 * by two threads at once. */
typedef struct reader_arg {
    ts__source *s;
    int t;
    int bad;
} reader_arg;

#define READS 200
#define READ_LEN ((size_t)64 << 10)

static void *read_many(void *arg)
{
    reader_arg *a = arg;
    unsigned char *buf = malloc(READ_LEN);
    ts_error err;
    for (int k = 0; k < READS && buf; k++) {
        uint64_t off = ((uint64_t)(k * 4 + a->t) * 4099) % ((2u << 20) - READ_LEN);
        if (ts__source_read(a->s, off, buf, READ_LEN, &err) != TS_OK) {
            a->bad++;
            continue;
        }
        for (size_t i = 0; i < READ_LEN; i += 509)
            a->bad += buf[i] != (unsigned char)(((off + i) * 7) & 0xff);
    }
    free(buf);
    return NULL;
}

static void read_from_threads(ts__source *s)
{
    pthread_t tid[4];
    reader_arg args[4];
    for (int t = 0; t < 4; t++) {
        args[t] = (reader_arg){s, t, 0};
        ck_assert_int_eq(pthread_create(&tid[t], NULL, read_many, &args[t]), 0);
    }
    for (int t = 0; t < 4; t++) {
        pthread_join(tid[t], NULL);
        ck_assert_int_eq(args[t].bad, 0);
    }
}

typedef struct exclusive {
    const unsigned char *data;
    atomic_int inside, overlaps;
} exclusive;

static ts_status exclusive_fetch(void *impl, ts__range *r, size_t n, unsigned *requests,
                                 ts_error *err)
{
    (void)err;
    exclusive *x = impl;
    if (atomic_fetch_add(&x->inside, 1) != 0)
        atomic_fetch_add(&x->overlaps, 1);
    for (size_t i = 0; i < n; i++)
        memcpy(r[i].buf, x->data + r[i].off, r[i].len);
    for (volatile int spin = 0; spin < 1000; spin++)
        ;
    *requests += 1;
    atomic_fetch_sub(&x->inside, 1);
    return TS_OK;
}

START_TEST(test_concurrent_reads)
{
    const char *path = "/tmp/tshape-source-threads-check.bin";
    const size_t n = (size_t)2 << 20;
    unsigned char *data = malloc(n);
    ck_assert_ptr_nonnull(data);
    for (size_t i = 0; i < n; i++)
        data[i] = (unsigned char)((i * 7) & 0xff);
    FILE *fp = fopen(path, "wb");
    ck_assert_ptr_nonnull(fp);
    ck_assert_uint_eq(fwrite(data, 1, n, fp), n);
    fclose(fp);
    ts__source *s = NULL;
    ts_error err;
    ck_assert_int_eq(ts__source_open_path(path, TS__LOCAL_SPARSE, &s, &err), TS_OK);
    ts__source_stats before = ts__source_get_stats(s);
    read_from_threads(s);
    ts__source_stats after = ts__source_get_stats(s);
    ck_assert_uint_eq(after.requests - before.requests, 4 * READS);
    ck_assert_uint_eq(after.bytes - before.bytes, 4 * READS * READ_LEN);
    ts__source_close(s);
    unlink(path);

    exclusive x = {data, 0, 0};
    ts__fetcher fe = {exclusive_fetch, count_close, &x, 0};
    ck_assert_int_eq(ts__source_open_fetcher(n, fe, &s, &err), TS_OK);
    read_from_threads(s);
    ck_assert_int_eq(atomic_load(&x.overlaps), 0);
    ts__source_close(s);
    free(data);
}
END_TEST

/* TS__LOCAL_LISTED: a file of at most 64 KiB is read whole by one read
 * (every byte, its exact size); one byte more and it is opened as without
 * the flag (sparse); an empty file is empty; a folder is refused. */
START_TEST(test_listed_small_file)
{
    static const size_t sizes[] = {0, 1, 4095, 65536, 65537, 200000};
    const char *path = "/tmp/tshape-source-listed.bin";
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        FILE *fp = fopen(path, "wb");
        ck_assert_ptr_nonnull(fp);
        for (size_t i = 0; i < sizes[k]; i++)
            fputc((int)((i * 7) & 0xff), fp);
        fclose(fp);
        ts__source *s = NULL;
        ts_error err;
        ck_assert_int_eq(ts__source_open_path(path, (ts__local_mode)(TS__LOCAL_AUTO |
                                                                   TS__LOCAL_LISTED),
                                              &s, &err), TS_OK);
        uint64_t size;
        const unsigned char *img = ts__source_image(s, &size);
        ck_assert_uint_eq(size, sizes[k]);
        ck_assert_int_eq(ts__source_is_whole(s), sizes[k] <= 65536);
        if (sizes[k] > 0) {
            ck_assert_int_eq(ts__source_need(s, sizes[k] - 1, 1, &err), TS_OK);
            ck_assert_int_eq(img[sizes[k] - 1], (int)(((sizes[k] - 1) * 7) & 0xff));
            ck_assert_int_eq(ts__source_need(s, 0, 1, &err), TS_OK);
            ck_assert_int_eq(img[0], 0);
        }
        ts__source_close(s);
    }
    remove(path);
    ts__source *s = NULL;
    ts_error err;
    ck_assert_int_eq(ts__source_open_path("/tmp", (ts__local_mode)(TS__LOCAL_AUTO |
                                                                 TS__LOCAL_LISTED),
                                          &s, &err), TS_ERR_IO);
    ck_assert_ptr_null(s);
}
END_TEST

/* ts__batch_read: a batch of a folder's files read whole in one
 * submission, byte for byte; what it cannot read whole (longer than 64
 * KiB, gone since the listing, a folder, a file of another folder) has
 * len -1 and the others are still read; a second batch reuses the slots.
 * Without io_uring (no liburing, a kernel or seccomp filter refusing it)
 * ts__batch_new is NULL: the caller reads file by file. */
START_TEST(test_batch_read)
{
    static const size_t sizes[] = {0, 1, 834, 65536, 65537, 200000};
    char dir[] = "/tmp/tshape-batch-XXXXXX", path[TS__BATCH_MAX][64], other[80];
    char *paths[TS__BATCH_MAX];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    for (size_t k = 0; k < 6; k++) {
        snprintf(path[k], sizeof path[k], "%s/f%zu.bin", dir, k);
        FILE *fp = fopen(path[k], "wb");
        ck_assert_ptr_nonnull(fp);
        for (size_t i = 0; i < sizes[k]; i++)
            fputc((int)((i * 7 + k) & 0xff), fp);
        fclose(fp);
        paths[k] = path[k];
    }
    snprintf(path[6], sizeof path[6], "%s/gone.bin", dir);   /* never written */
    snprintf(path[7], sizeof path[7], "%s/sub", dir);        /* a folder */
    ck_assert_int_eq(mkdir(path[7], 0755), 0);
    paths[6] = path[6];
    paths[7] = path[7];
    ts__batch *b = ts__batch_new();
    if (!b) {
        fprintf(stderr, "check_source: test_batch_read: no io_uring here (ts__batch_new "
                        "NULL): the file-by-file path only\n");
    } else {
        ts__dir_fd d = TS__DIR_FD_INIT;
        const unsigned char *data[TS__BATCH_MAX];
        long len[TS__BATCH_MAX];
        for (int round = 0; round < 2; round++) {
            ts__batch_read(b, &d, paths, TS__BATCH_MAX, data, len);
            for (size_t k = 0; k < 4; k++) {
                ck_assert_int_eq(len[k], (long)sizes[k]);
                for (size_t i = 0; i < sizes[k]; i++)
                    ck_assert_int_eq(data[k][i], (int)((i * 7 + k) & 0xff));
            }
            for (size_t k = 4; k < TS__BATCH_MAX; k++)
                ck_assert_int_eq(len[k], -1);
        }
        /* a path of another folder and those after it: -1; fewer files */
        snprintf(other, sizeof other, "%s/x.bin", path[7]);
        FILE *fp = fopen(other, "wb");
        ck_assert_ptr_nonnull(fp);
        fputs("abc", fp);
        fclose(fp);
        char *mixed[3] = {path[2], other, path[1]};
        ts__batch_read(b, &d, mixed, 3, data, len);
        ck_assert_int_eq(len[0], 834);
        ck_assert_int_eq(len[1], -1);
        ck_assert_int_eq(len[2], -1);
        char *sub[1] = {other};
        ts__batch_read(b, &d, sub, 1, data, len);
        ck_assert_int_eq(len[0], 3);
        ck_assert_int_eq(memcmp(data[0], "abc", 3), 0);
        ts__dir_fd_close(&d);
        ts__batch_free(b);
        remove(other);
    }
    ts__batch_free(NULL);
    for (size_t k = 0; k < 6; k++)
        remove(path[k]);
    rmdir(path[7]);
    rmdir(dir);
}
END_TEST

START_TEST(test_ranges_in_one_call)
{
    static unsigned char data[1 << 20];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (unsigned char)(i * 7);
    counting c = {data, 0, 0};
    ts__fetcher fe = {count_fetch, count_close, &c, 0};
    ts__source *s = NULL;
    ts_error err;
    ck_assert_int_eq(ts__source_open_fetcher(sizeof data, fe, &s, &err), TS_OK);
    ts__range r[3] = {{500000, 30, NULL}, {100000, 30, NULL}, {900000, 30, NULL}};
    ck_assert_int_eq(ts__source_need_ranges(s, r, 3, &err), TS_OK);
    ck_assert_uint_eq(c.calls, 1);
    ck_assert_uint_eq(c.ranges, 3);
    uint64_t size;
    const unsigned char *img = ts__source_image(s, &size);
    ck_assert_int_eq(img[500029], (unsigned char)(500029 * 7));
    ck_assert_int_eq(img[100000], (unsigned char)(100000 * 7));
    /* again: nothing to fetch */
    ck_assert_int_eq(ts__source_need_ranges(s, r, 3, &err), TS_OK);
    ck_assert_uint_eq(c.calls, 1);
    ts__source_stats st = ts__source_get_stats(s);
    ck_assert_uint_eq(st.requests, 1);
    ck_assert_uint_eq(st.bytes, 3 * 4096);
    /* a sequential reader's read-ahead grows */
    ck_assert_int_eq(ts__source_need(s, 0, 10, &err), TS_OK);
    ck_assert_uint_eq(c.calls, 2);
    ts__source_close(s);
}
END_TEST

Suite *source_suite(void)
{
    Suite *s = suite_create("source");
    TCase *tc = tcase_create("sources");
    tcase_add_test(tc, test_unfetched_byte_is_an_error);
    tcase_add_test(tc, test_ranges_in_one_call);
    tcase_add_test(tc, test_large_run_mapped);
    tcase_add_test(tc, test_listed_small_file);
    tcase_add_test(tc, test_batch_read);
    tcase_add_test(tc, test_concurrent_reads);
    suite_add_tcase(s, tc);
    TCase *all = tcase_create("files");
    tcase_set_timeout(all, 600);
    tcase_add_test(all, test_every_file_both_ways);
    suite_add_tcase(s, all);
    return s;
}
