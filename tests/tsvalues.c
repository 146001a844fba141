/*
 * tsvalues.c - a small driver of the values API for the NumPy cross-check
 * (tests/crosscheck_values.py) and the benchmark (bench/stats.sh). Not
 * installed; the user-facing commands are `tshape stats` and `tshape show`.
 *
 *   tsvalues stats [-t N] FILE...   one JSON object per array and line
 *   tsvalues dump FILE NAME [AS]    every element, one per line, %.17g
 *                                   (AS: f8 (default), i8, u8, c16)
 *   tsvalues sum FILE               memory-bandwidth floor: sums the file's
 *                                   bytes as uint64 words over its mmap, on
 *                                   as many threads as stats uses
 * Exit 0, or 2 after printing the first error to stderr.
 */
#define TS_EXPERIMENTAL_API
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tshape.h"

static void jnum(double v)
{
    if (v != v)
        printf("\"nan\"");
    else if (isinf(v))
        printf(v > 0 ? "\"inf\"" : "\"-inf\"");
    else
        printf("%.17g", v);
}

static int do_stats(int argc, char **argv)
{
    ts_stats_options o = TS_STATS_OPTIONS_INIT;
    int i = 0, rc = 0;
    if (argc > 1 && strcmp(argv[0], "-t") == 0) {
        o.nthreads = atoi(argv[1]);
        i = 2;
    }
    for (; i < argc; i++) {
        ts_file *f;
        ts_error e;
        if (ts_file_open(argv[i], NULL, &f, &e)) {
            fprintf(stderr, "tsvalues: %s: %s\n", argv[i], e.message);
            return 2;
        }
        for (size_t k = 0; k < ts_file_count(f); k++) {
            const ts_array *a = ts_file_array(f, k);
            ts_stats s;
            if (ts_array_stats(f, a, &o, &s, &e)) {
                printf("{\"name\": \"%s\", \"error\": \"%s\", \"code\": %d}\n", a->name,
                       e.message, (int)e.code);
                rc = 2;
                continue;
            }
            printf("{\"name\": \"%s\", \"dtype\": \"%s\", \"kind\": %d, \"count\": %" PRId64,
                   a->name, a->dtype_name, (int)s.kind, s.count);
            if (s.kind == TS_VALUE_INT)
                printf(", \"min\": %" PRId64 ", \"max\": %" PRId64, s.imin, s.imax);
            else if (s.kind == TS_VALUE_UINT || s.kind == TS_VALUE_BOOL)
                printf(", \"min\": %" PRIu64 ", \"max\": %" PRIu64, s.umin, s.umax);
            else {
                printf(", \"min\": ");
                jnum(s.min);
                printf(", \"max\": ");
                jnum(s.max);
            }
            printf(", \"mean\": ");
            jnum(s.mean);
            printf(", \"std\": ");
            jnum(s.std);
            printf(", \"absmax\": ");
            jnum(s.absmax);
            printf(", \"finite\": %" PRId64 ", \"zeros\": %" PRId64 ", \"nan\": %" PRId64
                   ", \"posinf\": %" PRId64 ", \"neginf\": %" PRId64 ", \"true\": %" PRId64 "}\n",
                   s.finite, s.zeros, s.nan, s.posinf, s.neginf, s.ntrue);
        }
        ts_file_close(f);
    }
    return rc;
}

static int do_dump(const char *path, const char *name, const char *as_text)
{
    ts_file *f;
    ts_error e;
    if (ts_file_open(path, NULL, &f, &e)) {
        fprintf(stderr, "tsvalues: %s: %s\n", path, e.message);
        return 2;
    }
    const ts_array *a = NULL;
    for (size_t k = 0; k < ts_file_count(f); k++)
        if (strcmp(ts_file_array(f, k)->name, name) == 0)
            a = ts_file_array(f, k);
    if (!a) {
        fprintf(stderr, "tsvalues: %s: no array '%s'\n", path, name);
        ts_file_close(f);
        return 2;
    }
    ts_dtype as = !as_text || strcmp(as_text, "f8") == 0 ? TS_DTYPE_FLOAT64
                  : strcmp(as_text, "i8") == 0           ? TS_DTYPE_INT64
                  : strcmp(as_text, "u8") == 0           ? TS_DTYPE_UINT64
                                                         : TS_DTYPE_COMPLEX128;
    int64_t step = 4096;
    double *buf = malloc((size_t)step * 16);
    int rc = 0;
    for (int64_t i = 0; buf && i < a->size; i += step) {
        int64_t n = a->size - i < step ? a->size - i : step;
        if (ts_array_read(f, a, i, n, as, buf, &e)) {
            fprintf(stderr, "tsvalues: %s: %s\n", path, e.message);
            rc = 2;
            break;
        }
        for (int64_t j = 0; j < n; j++) {
            if (as == TS_DTYPE_INT64)
                printf("%" PRId64 "\n", ((int64_t *)(void *)buf)[j]);
            else if (as == TS_DTYPE_UINT64)
                printf("%" PRIu64 "\n", ((uint64_t *)(void *)buf)[j]);
            else if (as == TS_DTYPE_COMPLEX128)
                printf("%.17g %.17g\n", buf[2 * j], buf[2 * j + 1]);
            else
                printf("%.17g\n", buf[j]);
        }
    }
    free(buf);
    ts_file_close(f);
    return rc;
}

typedef struct sum_job {
    const uint64_t *p;
    size_t n;
    uint64_t sum;
} sum_job;

static void *sum_main(void *arg)
{
    sum_job *j = arg;
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    size_t i = 0;
    for (; i + 4 <= j->n; i += 4) {
        s0 += j->p[i];
        s1 += j->p[i + 1];
        s2 += j->p[i + 2];
        s3 += j->p[i + 3];
    }
    for (; i < j->n; i++)
        s0 += j->p[i];
    j->sum = s0 + s1 + s2 + s3;
    return NULL;
}

static int do_sum(const char *path)
{
    int fd = open(path, O_RDONLY);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0) {
        perror(path);
        return 2;
    }
    size_t len = (size_t)sb.st_size;
    void *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED) {
        perror("mmap");
        return 2;
    }
    long nt = sysconf(_SC_NPROCESSORS_ONLN);
    if (nt < 1)
        nt = 1;
    size_t words = len / 8, per = words / (size_t)nt;
    sum_job jobs[256];
    pthread_t tid[256];
    if (nt > 256)
        nt = 256;
    for (long t = 0; t < nt; t++) {
        jobs[t].p = (const uint64_t *)m + per * (size_t)t;
        jobs[t].n = t == nt - 1 ? words - per * (size_t)t : per;
        if (t > 0)
            pthread_create(&tid[t], NULL, sum_main, &jobs[t]);
    }
    sum_main(&jobs[0]);
    uint64_t s = jobs[0].sum;
    for (long t = 1; t < nt; t++) {
        pthread_join(tid[t], NULL);
        s += jobs[t].sum;
    }
    printf("%" PRIu64 "\n", s);
    munmap(m, len);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "stats") == 0)
        return do_stats(argc - 2, argv + 2);
    if (argc >= 4 && strcmp(argv[1], "dump") == 0)
        return do_dump(argv[2], argv[3], argc > 4 ? argv[4] : NULL);
    if (argc == 3 && strcmp(argv[1], "sum") == 0)
        return do_sum(argv[2]);
    fprintf(stderr, "usage: tsvalues stats [-t N] FILE... | dump FILE NAME [f8|i8|u8|c16] | "
                    "sum FILE\n");
    return 2;
}
