/*
 * threads.c - the library's one way to run work on several threads: the
 * online CPU count, and a fork/join of n jobs (stats, compare, metrics,
 * scan) on a pool of threads that stay parked between calls.
 *
 * A diff of a model runs one fork/join per tensor: threads started and
 * joined for each cost tens of microseconds apiece (more on a virtual
 * machine), so the pool starts its threads when first needed and keeps
 * them. A call puts its jobs in a queue, runs job 0 itself, then takes
 * its own jobs that no thread has taken yet, and waits for the rest: a job
 * that calls ts__run_jobs again (nested) never waits for a thread that is
 * not already working, so nothing deadlocks. A fork's child starts a pool
 * of its own; the threads stop when the library is unloaded.
 */
#define _GNU_SOURCE /* sched_getcpu, cpu_set_t, pthread_attr_setaffinity_np */
#include "internal.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

int ts__cpu_count(int cap)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > cap ? cap : (int)n;
}

int ts__thread_start(pthread_t *tid, void *(*fn)(void *), void *arg, int k)
{
#ifdef __linux__
    cpu_set_t all, one;
    int me = sched_getcpu(), n;
    if (me >= 0 && k >= 0 && sched_getaffinity(0, sizeof all, &all) == 0 &&
        (n = CPU_COUNT(&all) - (CPU_ISSET(me, &all) != 0)) > 0) {
        int cpu = 0;
        for (int skip = k % n;; cpu++) /* the (k mod n)-th allowed CPU but this one */
            if (cpu != me && CPU_ISSET(cpu, &all) && skip-- == 0)
                break;
        pthread_attr_t a;
        if (pthread_attr_init(&a) == 0) {
            CPU_ZERO(&one);
            CPU_SET(cpu, &one);
            int rc = pthread_attr_setaffinity_np(&a, sizeof one, &one) == 0
                         ? pthread_create(tid, &a, fn, arg)
                         : -1;
            pthread_attr_destroy(&a);
            if (rc == 0) {
                /* (it stays where it was put while that CPU is allowed) */
                (void)pthread_setaffinity_np(*tid, sizeof all, &all);
                return 0;
            }
        }
    }
#else
    (void)k;
#endif
    return pthread_create(tid, NULL, fn, arg);
}

/* Threads the pool keeps at most. */
#define POOL_MAX 255

/* The jobs of one call. */
typedef struct batch {
    void *(*fn)(void *);
    char *jobs;
    size_t size;
    int n;
    int next;               /* the next job nobody has taken */
    int left;               /* jobs 1..n-1 not yet done */
    struct batch *later;    /* the queue: batches with jobs not taken */
} batch;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work = PTHREAD_COND_INITIALIZER; /* a batch was queued */
static pthread_cond_t done = PTHREAD_COND_INITIALIZER; /* a job finished */
static batch *queue;
static pthread_t workers[POOL_MAX];
static int nworkers;
static int stopping;
static int atfork_set;

/* Takes job `i` of the queue's first batch (lock held), unlinking the batch
 * once its last job is taken. */
static batch *take(int *i)
{
    batch *b = queue;
    *i = b->next++;
    if (b->next == b->n)
        queue = b->later;
    return b;
}

/* Unlinks b from the queue if it is still there (lock held). */
static void unlink_batch(batch *b)
{
    for (batch **p = &queue; *p; p = &(*p)->later)
        if (*p == b) {
            *p = b->later;
            return;
        }
}

static void *worker_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    for (;;) {
        while (!queue && !stopping)
            pthread_cond_wait(&work, &lock);
        if (stopping)
            break;
        int i;
        batch *b = take(&i);
        pthread_mutex_unlock(&lock);
        b->fn(b->jobs + (size_t)i * b->size);
        pthread_mutex_lock(&lock);
        if (--b->left == 0)
            pthread_cond_broadcast(&done);
    }
    pthread_mutex_unlock(&lock);
    return NULL;
}

/* A fork's child has none of the parent's threads: it starts its own. */
static void child_reset(void)
{
    pthread_mutex_init(&lock, NULL);
    pthread_cond_init(&work, NULL);
    pthread_cond_init(&done, NULL);
    queue = NULL;
    nworkers = stopping = 0;
}

/* The library unloaded (dlclose): the parked threads stop with it. */
__attribute__((destructor)) static void pool_stop(void)
{
    pthread_mutex_lock(&lock);
    stopping = 1;
    pthread_cond_broadcast(&work);
    int n = nworkers;
    pthread_mutex_unlock(&lock);
    for (int k = 0; k < n; k++)
        pthread_join(workers[k], NULL);
}

void ts__run_jobs(void *(*fn)(void *), void *jobs, size_t size, int n)
{
    char *job = jobs;
    if (n <= 1) {
        if (n == 1)
            fn(job);
        return;
    }
    batch b = {fn, job, size, n, 1, n - 1, NULL};
    pthread_mutex_lock(&lock);
    if (!atfork_set)
        atfork_set = pthread_atfork(NULL, NULL, child_reset) == 0;
    /* a thread for each job but the caller's, kept for later calls */
    while (nworkers < n - 1 && nworkers < POOL_MAX &&
           ts__thread_start(&workers[nworkers], worker_main, NULL, nworkers) == 0)
        nworkers++;
    b.later = NULL;
    batch **tail = &queue;
    while (*tail)
        tail = &(*tail)->later;
    *tail = &b;
    pthread_cond_broadcast(&work);
    pthread_mutex_unlock(&lock);

    fn(job);
    pthread_mutex_lock(&lock);
    while (b.next < b.n) { /* jobs no thread has taken (or none could start) */
        int i = b.next++;
        if (b.next == b.n)
            unlink_batch(&b);
        pthread_mutex_unlock(&lock);
        fn(job + (size_t)i * size);
        pthread_mutex_lock(&lock);
        b.left--;
    }
    while (b.left > 0)
        pthread_cond_wait(&done, &lock);
    pthread_mutex_unlock(&lock);
}
