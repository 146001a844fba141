/*
 * maxrss.c - runs one command and prints its peak resident memory, for
 * bench/memory.sh.
 *
 *   maxrss SECONDS COMMAND [ARG]...
 *
 * COMMAND runs with stdout on /dev/null (stdin and stderr inherited) in its
 * own process group; after SECONDS it is killed (the whole group). Prints
 * one line: peak resident KiB (ru_maxrss from wait4, which covers the
 * command and the children it waited for), wall seconds, and "exit N",
 * "signal N" or "killed". A child's ru_maxrss starts from its parent's
 * resident size at the fork, so the parent must be small: this program
 * (a Python or shell parent that made large inputs would count).
 * Exit status 0; 2 on usage errors or when the command cannot start.
 */
#define _DEFAULT_SOURCE /* wait4, kill */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: maxrss SECONDS COMMAND [ARG]...\n");
        return 2;
    }
    double limit = atof(argv[1]);
    double t0 = now();
    pid_t pid = fork();
    if (pid < 0) {
        perror("maxrss: fork");
        return 2;
    }
    if (pid == 0) {
        setpgid(0, 0);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, 1);
        execvp(argv[2], argv + 2);
        perror("maxrss: exec");
        _exit(127);
    }
    setpgid(pid, pid);
    int status = 0, killed = 0;
    struct rusage ru;
    for (;;) {
        pid_t r = wait4(pid, &status, WNOHANG, &ru);
        if (r == pid)
            break;
        if (r < 0) {
            perror("maxrss: wait4");
            return 2;
        }
        if (!killed && now() - t0 > limit) {
            kill(-pid, SIGKILL);
            killed = 1;
        }
        usleep(5000);
    }
    double dt = now() - t0;
    if (killed)
        printf("%ld %.2f killed\n", ru.ru_maxrss, dt);
    else if (WIFSIGNALED(status))
        printf("%ld %.2f signal %d\n", ru.ru_maxrss, dt, WTERMSIG(status));
    else
        printf("%ld %.2f exit %d\n", ru.ru_maxrss, dt, WEXITSTATUS(status));
    return 0;
}
