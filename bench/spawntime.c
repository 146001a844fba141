/*
 * spawntime.c - times whole processes for bench/startup.sh, with as little
 * of its own work as possible between the clock reads: posix_spawn (a vfork
 * in glibc), then wait4.
 *
 *   spawntime RUNS WARMUP COMMAND [:: COMMAND]...
 *
 * Each COMMAND is a program and its arguments (no shell), run with stdin,
 * stdout and stderr on /dev/null. After WARMUP uncounted rounds, RUNS
 * rounds each run every command once, interleaved, starting with a
 * different command each round, so drift in the machine's speed hits every
 * command alike. For each command it prints the median, 10th and 90th
 * percentile wall time per call, the median CPU time (user + system) per
 * call, and the median over rounds of its wall time divided by the first
 * command's in the same round (with the 10th and 90th percentiles).
 * Exit status 0; 1 when a command could not be started or did not exit 0;
 * 2 on usage errors.
 */
#define _DEFAULT_SOURCE /* wait4 */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

typedef struct run_stats {
    double *wall, *cpu, *ratio; /* seconds; ratio to command 0 */
} run_stats;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Runs argv once; returns 0 and the wall and CPU seconds, or -1. */
static int run_once(char *const *argv, const posix_spawn_file_actions_t *fa, double *wall,
                    double *cpu)
{
    pid_t pid;
    int status;
    struct rusage ru;
    double t0 = now();
    if (posix_spawn(&pid, argv[0], fa, NULL, argv, environ) != 0)
        return -1;
    if (wait4(pid, &status, 0, &ru) != pid)
        return -1;
    *wall = now() - t0;
    *cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The q-quantile of v[0..n) (sorts v). */
static double quantile(double *v, size_t n, double q)
{
    qsort(v, n, sizeof *v, cmp_double);
    return v[(size_t)(q * (double)(n - 1) + 0.5)];
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: spawntime RUNS WARMUP COMMAND [:: COMMAND]...\n");
        return 2;
    }
    long runs = strtol(argv[1], NULL, 10), warmup = strtol(argv[2], NULL, 10);
    if (runs < 1 || runs > 1000000 || warmup < 0 || warmup > 1000000) {
        fprintf(stderr, "spawntime: RUNS must be 1..1000000, WARMUP 0..1000000\n");
        return 2;
    }
    /* Split the commands at "::" (the separators become the NULLs that end
     * each argv). */
    char **cmd[64];
    size_t ncmd = 0;
    cmd[ncmd++] = &argv[3];
    for (int i = 3; i < argc; i++) {
        if (strcmp(argv[i], "::") == 0) {
            argv[i] = NULL;
            if (ncmd == 64 || i + 1 >= argc) {
                fprintf(stderr, "spawntime: at most 64 commands, none empty\n");
                return 2;
            }
            cmd[ncmd++] = &argv[i + 1];
        }
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);

    run_stats st[64];
    for (size_t c = 0; c < ncmd; c++) {
        st[c].wall = calloc((size_t)runs, sizeof(double));
        st[c].cpu = calloc((size_t)runs, sizeof(double));
        st[c].ratio = calloc((size_t)runs, sizeof(double));
        if (!st[c].wall || !st[c].cpu || !st[c].ratio) {
            fprintf(stderr, "spawntime: out of memory\n");
            return 1;
        }
    }
    for (long r = -warmup; r < runs; r++) {
        double wall[64], cpu[64];
        for (size_t k = 0; k < ncmd; k++) {
            size_t c = (size_t)((r + warmup + (long)k) % (long)ncmd);
            if (run_once(cmd[c], &fa, &wall[c], &cpu[c]) != 0) {
                fprintf(stderr, "spawntime: '%s' could not start or did not exit 0\n",
                        cmd[c][0]);
                return 1;
            }
        }
        if (r < 0)
            continue;
        for (size_t c = 0; c < ncmd; c++) {
            st[c].wall[r] = wall[c];
            st[c].cpu[r] = cpu[c];
            st[c].ratio[r] = wall[c] / wall[0];
        }
    }
    printf("%9s %9s %9s %9s  %-22s %s\n", "median", "p10", "p90", "cpu", "ratio [p10, p90]",
           "command (ms per call; ratio to the first command, round by round)");
    for (size_t c = 0; c < ncmd; c++) {
        char label[512] = "";
        for (char **w = cmd[c]; *w; w++) { /* quoted as a shell would need */
            size_t len = strlen(label);
            int plain = **w && strspn(*w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                          "0123456789_./=:,+-") == strlen(*w);
            snprintf(label + len, sizeof label - len, plain ? "%s%s" : "%s'%s'",
                     w == cmd[c] ? "" : " ", *w);
        }
        size_t n = (size_t)runs;
        double med = quantile(st[c].wall, n, 0.5), p10 = quantile(st[c].wall, n, 0.1),
               p90 = quantile(st[c].wall, n, 0.9), cpu = quantile(st[c].cpu, n, 0.5);
        double rmed = quantile(st[c].ratio, n, 0.5), r10 = quantile(st[c].ratio, n, 0.1),
               r90 = quantile(st[c].ratio, n, 0.9);
        char ratio[64];
        snprintf(ratio, sizeof ratio, "%.2fx [%.2f, %.2f]", rmed, r10, r90);
        printf("%9.3f %9.3f %9.3f %9.3f  %-22s %s\n", med * 1e3, p10 * 1e3, p90 * 1e3,
               cpu * 1e3, ratio, label);
    }
    posix_spawn_file_actions_destroy(&fa);
    return 0;
}
