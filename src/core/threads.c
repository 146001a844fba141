/*
 * threads.c - the library's one way to run work on several threads: the
 * online CPU count, and a fork/join of n jobs (stats, compare).
 */
#include "internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

int ts__cpu_count(int cap)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > cap ? cap : (int)n;
}

void ts__run_jobs(void *(*fn)(void *), void *jobs, size_t size, int n)
{
    pthread_t *tid = n > 1 ? malloc((size_t)(n - 1) * sizeof *tid) : NULL;
    unsigned char *started = n > 1 ? calloc((size_t)(n - 1), 1) : NULL;
    char *job = jobs;
    for (int t = 1; t < n && tid && started; t++)
        started[t - 1] = pthread_create(&tid[t - 1], NULL, fn, job + (size_t)t * size) == 0;
    fn(job);
    for (int t = 1; t < n; t++) {
        if (tid && started && started[t - 1])
            pthread_join(tid[t - 1], NULL);
        else
            fn(job + (size_t)t * size);
    }
    free(tid);
    free(started);
}
