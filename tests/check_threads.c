/*
 * check_threads.c - the library's fork/join (src/core/threads.c): every job
 * runs exactly once, on the caller's thread or the pool's; calls reuse the
 * pool's threads; a job may fork/join again (nested) without deadlock; a
 * forked child runs jobs on a pool of its own; a thread started placed
 * (ts__thread_start) runs and is then allowed on every CPU the process is.
 */
#define _GNU_SOURCE /* cpu_set_t, pthread_getaffinity_np */
#include <check.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/internal.h"
#include "testutil.h"

typedef struct job {
    int index;
    int runs;               /* times fn ran this job */
    pthread_t thread;       /* the thread that ran it */
    int nested;             /* > 0: fork/join this many jobs inside */
    long sum;               /* nested: the sum of their indices + 1 */
} job;

static void *run(void *arg)
{
    job *j = arg;
    j->runs++;
    j->thread = pthread_self();
    if (j->nested > 0) {
        job inner[8];
        for (int k = 0; k < j->nested; k++)
            inner[k] = (job){k, 0, 0, 0, 0};
        ts__run_jobs(run, inner, sizeof *inner, j->nested);
        j->sum = 0;
        for (int k = 0; k < j->nested; k++)
            j->sum += inner[k].runs == 1 ? inner[k].index + 1 : -1000;
    }
    return NULL;
}

START_TEST(test_each_job_once)
{
    for (int n = 0; n <= 9; n++) {
        job jobs[9];
        for (int k = 0; k < n; k++)
            jobs[k] = (job){k, 0, 0, 0, 0};
        ts__run_jobs(run, jobs, sizeof *jobs, n);
        for (int k = 0; k < n; k++)
            ck_assert_int_eq(jobs[k].runs, 1);
        if (n >= 1) /* job 0 is the caller's */
            ck_assert(pthread_equal(jobs[0].thread, pthread_self()));
    }
}
END_TEST

START_TEST(test_many_calls)
{
    /* a thousand fork/joins (a diff of a large model makes one per tensor) */
    long total = 0;
    for (int c = 0; c < 1000; c++) {
        job jobs[3] = {{0, 0, 0, 0, 0}, {1, 0, 0, 0, 0}, {2, 0, 0, 0, 0}};
        ts__run_jobs(run, jobs, sizeof *jobs, 3);
        for (int k = 0; k < 3; k++)
            total += jobs[k].runs;
    }
    ck_assert_int_eq(total, 3000);
}
END_TEST

START_TEST(test_nested)
{
    job jobs[4];
    for (int k = 0; k < 4; k++)
        jobs[k] = (job){k, 0, 0, 5, 0};
    ts__run_jobs(run, jobs, sizeof *jobs, 4);
    for (int k = 0; k < 4; k++) {
        ck_assert_int_eq(jobs[k].runs, 1);
        ck_assert_int_eq(jobs[k].sum, 1 + 2 + 3 + 4 + 5);
    }
}
END_TEST

START_TEST(test_fork_child)
{
    job jobs[2] = {{0, 0, 0, 0, 0}, {1, 0, 0, 0, 0}};
    ts__run_jobs(run, jobs, sizeof *jobs, 2); /* the parent's pool exists */
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        job c[4];
        for (int k = 0; k < 4; k++)
            c[k] = (job){k, 0, 0, 2, 0};
        ts__run_jobs(run, c, sizeof *c, 4);
        int ok = 1;
        for (int k = 0; k < 4; k++)
            ok &= c[k].runs == 1 && c[k].sum == 3;
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status));
    ck_assert_int_eq(WEXITSTATUS(status), 0);
}
END_TEST

static void *record(void *arg)
{
    *(int *)arg = 1;
    return NULL;
}

/* Starts a thread with ts__thread_start: it runs its function with its
 * argument, and its CPU mask is the process's again. */
static void start_and_check(int k)
{
    cpu_set_t all, mine;
    ck_assert_int_eq(sched_getaffinity(0, sizeof all, &all), 0);
    int ran = 0;
    pthread_t t;
    ck_assert_int_eq(ts__thread_start(&t, record, &ran, k), 0);
    ck_assert_int_eq(pthread_getaffinity_np(t, sizeof mine, &mine), 0);
    ck_assert(CPU_EQUAL(&all, &mine));
    ck_assert_int_eq(pthread_join(t, NULL), 0);
    ck_assert_int_eq(ran, 1);
}

START_TEST(test_thread_start)
{
    for (int k = 0; k < 5; k++)
        start_and_check(k);
    /* a process allowed on one CPU: no other CPU to put it on */
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(sched_getcpu(), &one);
        if (sched_setaffinity(0, sizeof one, &one) != 0)
            _exit(2);
        start_and_check(0);
        start_and_check(3);
        _exit(0);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status));
    ck_assert_int_eq(WEXITSTATUS(status), 0);
}
END_TEST

Suite *threads_suite(void)
{
    Suite *s = suite_create("threads");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_each_job_once);
    tcase_add_test(tc, test_many_calls);
    tcase_add_test(tc, test_nested);
    tcase_add_test(tc, test_fork_child);
    tcase_add_test(tc, test_thread_start);
    suite_add_tcase(s, tc);
    return s;
}
