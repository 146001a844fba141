/*
 * runstat.c - one run of a command for bench/convert.sh: its wall time and
 * peak resident set, measured by the parent (posix_spawn, then wait4's
 * rusage), so no external timing tool is needed.
 *
 *   runstat COMMAND [ARG]...
 *
 * Prints "SECONDS MAXRSS_KIB" on standard output; the command's standard
 * output goes to /dev/null, its standard error stays. Exit status: the
 * command's (1 when it could not be started or was killed), 2 on usage
 * errors.
 */
#define _DEFAULT_SOURCE /* wait4 */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: runstat COMMAND [ARG]...\n");
        return 2;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid;
    if (posix_spawnp(&pid, argv[1], &fa, NULL, argv + 1, environ) != 0) {
        perror(argv[1]);
        return 1;
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid) {
        perror("wait4");
        return 1;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("%.4f %ld\n", (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9,
           ru.ru_maxrss);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
