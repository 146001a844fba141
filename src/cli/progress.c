/*
 * progress.c - the progress line of long reads and writes (stats, convert)
 * on standard error: "\rtshape: CMD: WHAT: D / T MiB, R GB/s", shown after
 * the first second and erased when done. The caller shows it only when
 * standard error is a terminal.
 */
#include "cli.h"

#include <stdio.h>

static double since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

void cli_progress_start(cli_progress *p)
{
    clock_gettime(CLOCK_MONOTONIC, &p->t0);
}

void cli_progress_show(cli_progress *p, const char *cmd, const char *what, int64_t done,
                       int64_t total)
{
    double dt = since(&p->t0);
    if (dt < 1.0 || done >= total)
        return;
    fprintf(stderr, "\rtshape: %s: %s: %lld / %lld MiB, %.1f GB/s   ", cmd, what,
            (long long)(done >> 20), (long long)(total >> 20), (double)done / dt / 1e9);
    p->shown = 1;
}

void cli_progress_clear(cli_progress *p)
{
    if (p->shown)
        fprintf(stderr, "\r\033[K");
    p->shown = 0;
}
