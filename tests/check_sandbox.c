/* check_sandbox.c - libhdf5 in its isolated process (src/formats/sandbox.c,
 * hdf5_child.c): files that crash libhdf5 1.10.8 (gen_hdf5_crash.py) are
 * one error, the rest of the file and the next files are read; a child that
 * crashes, hangs, exceeds its memory, or tries what the seccomp filter
 * forbids (exec, sockets, opening files, signalling others) is one error
 * naming how it ended; both ways of running a job (a reused worker, a child
 * per file) give the same arrays. Skipped without libhdf5. */
#define _GNU_SOURCE /* MAP_ANONYMOUS */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "formats/hdf5_child.h"
#include "formats/sandbox.h"
#include "testutil.h"

static int have_hdf5(void)
{
    ts_error err;
    if (ts__hdf5_load(&err) != TS_OK) {
        fprintf(stderr, "skipped: %s\n", err.message);
        return 0;
    }
    ts__child_pool_clear(); /* a hook applies to children started from now on */
    return 1;
}

static const char crashed[] = "libhdf5 crashed on this file: its isolated process died of "
                              "signal 11 (SIGSEGV, a memory fault)";

/* A corrupted global heap crashes libhdf5 reading an attribute: only the
 * metadata needs it, so without --metadata the file reads; the next file is
 * read by a new worker. */
START_TEST(test_crash_in_listing)
{
    if (!have_hdf5())
        return;
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.want_metadata = 1;
    ts_file *f = NULL;
    ts_error e;
    ck_assert_int_eq(ts_file_open("tests/fixtures/hdf5/crash_attr.h5", &o, &f, &e),
                     TS_ERR_FORMAT);
    ck_assert_str_eq(e.message, crashed);
    ck_assert_ptr_null(f);
    ck_assert_int_eq(ts_file_open("tests/fixtures/hdf5/crash_attr.h5", NULL, &f, &e), TS_OK);
    ck_assert_uint_eq(ts_file_count(f), 4);
    ts_file_close(f);
    ck_assert_int_eq(ts_file_open("tests/fixtures/hdf5/keras2.h5", &o, &f, &e), TS_OK);
    ck_assert_uint_eq(ts_file_metadata_count(f), 3);
    ts_file_close(f);
}
END_TEST

/* A compact dataset whose dataspace lies crashes libhdf5 reading its
 * values (far past its 12 bytes: an element of the 3,456,106,499 the
 * dataspace claims, so the fault does not depend on what lies next to the
 * buffer): that array fails, the others of the file read. */
START_TEST(test_crash_in_values)
{
    if (!have_hdf5())
        return;
    ts_file *f = NULL;
    ts_error e;
    ck_assert_int_eq(ts_file_open("tests/fixtures/hdf5/crash_compact.h5", NULL, &f, &e), TS_OK);
    const ts_array *a = NULL, *chunked = NULL;
    for (size_t i = 0; i < ts_file_count(f); i++) {
        if (strcmp(ts_file_array(f, i)->name, "compact") == 0)
            a = ts_file_array(f, i);
        if (strcmp(ts_file_array(f, i)->name, "chunked") == 0)
            chunked = ts_file_array(f, i);
    }
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(chunked);
    int64_t v[4];
    ck_assert_int_eq(ts_array_read(f, a, 3456106000, 4, TS_DTYPE_INT64, v, &e), TS_ERR_FORMAT);
    char want[256];
    snprintf(want, sizeof want, "array 'compact': %s", crashed);
    ck_assert_str_eq(e.message, want);
    double c[64];
    ck_assert_int_eq(ts_array_read(f, chunked, 0, 64, TS_DTYPE_FLOAT64, c, &e), TS_OK);
    ts_file_close(f);
}
END_TEST

/* ---- hooks: what the child does before its job ---------------------------------- */

static volatile int *volatile nowhere; /* NULL, out of the compiler's sight */

#if defined(__GNUC__) || defined(__clang__)
__attribute__((no_sanitize("address", "undefined"))) /* a fault, not a sanitizer report */
#endif
static void segfault(void)
{
    *nowhere = 1;
}

static void spin(void)
{
    for (volatile unsigned long i = 0;; i++)
        ;
}

static void exec_true(void)
{
    static char name[] = "true";
    char *argv[] = {name, NULL};
    execve("/bin/true", argv, NULL);
    _exit(40); /* not reached: the filter kills */
}

static void open_file(void)
{
    int fd = open("tests/fixtures/hdf5/mixed.h5", O_RDONLY);
    _exit(fd < 0 && errno == EACCES ? 51 : 50);
}

static void make_socket(void)
{
    socket(AF_INET, SOCK_STREAM, 0);
    _exit(40);
}

static void signal_parent(void)
{
    _exit(kill(getppid(), SIGTERM) != 0 && errno == EPERM ? 71 : 70);
}

static void blow_up(void)
{
    /* beyond TS__CHILD_DATA_MAX (2 GiB) above what the process had */
    void *p = mmap(NULL, (size_t)3 << 30, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    _exit(p == MAP_FAILED ? 61 : 60);
}

static const struct {
    void (*hook)(void);
    const char *message;
} hooks[] = {
    {segfault, "libhdf5 crashed on this file: its isolated process died of signal 11 "
               "(SIGSEGV, a memory fault)"},
    {exec_true, "libhdf5 crashed on this file: its isolated process died of signal 31 "
                "(SIGSYS, a system call the sandbox forbids)"},
    {make_socket, "libhdf5 crashed on this file: its isolated process died of signal 31 "
                  "(SIGSYS, a system call the sandbox forbids)"},
    {open_file, "libhdf5's isolated process ended (exit status 51) without an answer"},
    {signal_parent, "libhdf5's isolated process ended (exit status 71) without an answer"},
    {spin, "libhdf5 stopped answering on this file (nothing for 0.5 s): its isolated process "
           "was stopped"},
    {blow_up, "libhdf5's isolated process ended (exit status 61) without an answer"},
};

/* Each hook, for both ways of running a job (worker, child per file), when
 * the file is listed and when a dataset's values are read. */
START_TEST(test_child_hooks)
{
    if (!have_hdf5())
        return;
    int hook = _i / 2, per_file = _i % 2;
#if defined(__SANITIZE_ADDRESS__)
    if (hooks[hook].hook == blow_up)
        return; /* no data limit under AddressSanitizer (sandbox.c) */
#endif
    ts__test_child_silence_ms = 500;
    ts__hdf5_worker_max = per_file ? 0 : (size_t)1 << 20;
    ts_file *f = NULL;
    ts_error e;
    /* the values first: listed before the hook is set */
    ck_assert_int_eq(ts_file_open("tests/fixtures/hdf5/chunked.h5", NULL, &f, &e), TS_OK);
    ts__child_pool_clear();
    ts__test_in_child = hooks[hook].hook;
    double v[4];
    size_t i = 0;
    while (strcmp(ts_file_array(f, i)->name, "gzip") != 0)
        i++;
    ck_assert_int_eq(ts_array_read(f, ts_file_array(f, i), 0, 4, TS_DTYPE_FLOAT64, v, &e),
                     TS_ERR_FORMAT);
    char want[256];
    snprintf(want, sizeof want, "array 'gzip': %s", hooks[hook].message);
    ck_assert_str_eq(e.message, want);
    ts_file_close(f);
    f = NULL;
    ck_assert_int_eq(ts_file_open("tests/fixtures/hdf5/mixed.h5", NULL, &f, &e), TS_ERR_FORMAT);
    ck_assert_str_eq(e.message, hooks[hook].message);
    ck_assert_ptr_null(f);
    /* without the hook, all is well again */
    ts__test_in_child = NULL;
    ck_assert_int_eq(ts_file_open("tests/fixtures/hdf5/mixed.h5", NULL, &f, &e), TS_OK);
    ts_file_close(f);
}
END_TEST

/* The two ways of running a job give the same arrays, notes and values,
 * and a worker serves many files in turn. */
START_TEST(test_worker_and_child_agree)
{
    if (!have_hdf5())
        return;
    static const char *const files[] = {"tests/fixtures/hdf5/mixed.h5",
                                        "tests/fixtures/hdf5/chunked.h5",
                                        "tests/fixtures/hdf5/keras2.h5"};
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.want_metadata = 1;
    for (int round = 0; round < 3; round++)
        for (size_t k = 0; k < sizeof files / sizeof *files; k++) {
            ts_file *f[2];
            ts_error e;
            for (int per_file = 0; per_file < 2; per_file++) {
                ts__hdf5_worker_max = per_file ? 0 : (size_t)1 << 20;
                ck_assert_int_eq(ts_file_open(files[k], &o, &f[per_file], &e), TS_OK);
            }
            ck_assert_uint_eq(ts_file_count(f[0]), ts_file_count(f[1]));
            ck_assert_uint_eq(ts_file_metadata_count(f[0]), ts_file_metadata_count(f[1]));
            for (size_t i = 0; i < ts_file_count(f[0]); i++) {
                const ts_array *a = ts_file_array(f[0], i), *b = ts_file_array(f[1], i);
                ck_assert_str_eq(a->name, b->name);
                ck_assert_str_eq(a->dtype_name, b->dtype_name);
                ck_assert(ts_shape_equal(&a->shape, &b->shape));
                ck_assert_int_eq(a->nbytes, b->nbytes);
                ck_assert_int_eq(a->data_offset, b->data_offset);
                ck_assert_str_eq(a->note ? a->note : "", b->note ? b->note : "");
                if (ts_array_value_kind(a) == TS_VALUE_NONE || a->size > 1000)
                    continue;
                double va[2000], vb[2000];
                ck_assert_int_eq(ts_array_read(f[0], a, 0, a->size, TS_DTYPE_COMPLEX128, va,
                                               &e), TS_OK);
                ck_assert_int_eq(ts_array_read(f[1], b, 0, b->size, TS_DTYPE_COMPLEX128, vb,
                                               &e), TS_OK);
                ck_assert(memcmp(va, vb, (size_t)a->size * 2 * sizeof(double)) == 0);
            }
            for (size_t i = 0; i < ts_file_metadata_count(f[0]); i++) {
                const char *ka, *va, *kb, *vb;
                ck_assert(ts_file_metadata(f[0], i, &ka, &va) && ts_file_metadata(f[1], i, &kb, &vb));
                ck_assert_str_eq(ka, kb);
                ck_assert_str_eq(va, vb);
            }
            ts_file_close(f[0]);
            ts_file_close(f[1]);
        }
    ts__hdf5_worker_max = (size_t)1 << 20;
}
END_TEST

Suite *sandbox_suite(void)
{
    Suite *s = suite_create("sandbox");
    TCase *tc = tcase_create("sandbox");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_crash_in_listing);
    tcase_add_test(tc, test_crash_in_values);
    tcase_add_loop_test(tc, test_child_hooks, 0, (int)(2 * (sizeof hooks / sizeof *hooks)));
    tcase_add_test(tc, test_worker_and_child_agree);
    suite_add_tcase(s, tc);
    return s;
}
