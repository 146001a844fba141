/*
 * sandbox.c - a child process for a third-party library's work on a hostile
 * file (sandbox.h says what the child may do and what the parent checks).
 *
 * The seccomp filter is built once per process, the first time a child is
 * needed, with libseccomp loaded by dlopen (as libhdf5 is: a run that reads
 * no HDF5 file loads neither), and kept as the BPF program libseccomp
 * exports; each child then installs it with one prctl call. Filter rules:
 * reading and writing descriptors it already has (its socket and
 * /dev/null), memory (mmap, brk, mprotect, madvise), time, futex, exit;
 * open, openat and creat fail with EACCES (a filter plugin libhdf5 would
 * load is then "not available", and a dataset stored in an external file
 * is not read); exec, fork, clone, sockets, ptrace and the other process's
 * memory calls kill the child (SIGSYS); anything else fails with EPERM,
 * kill and tgkill included, so abort() ends in a SIGSEGV.
 *
 * Serving the file's bytes from the parent (TS__MSG_NEED): a child that
 * cannot open files reads the file from memory it inherited (the parent's
 * map or copy of it). For a file whose bytes are not in the parent's memory
 * (a remote file read by range requests), the child's library would be
 * given a read callback (for libhdf5 a small virtual file driver) that
 * sends TS__MSG_NEED {offset, length} and reads the TS__MSG_BYTES answer;
 * the parent's ts__child_recv would answer those from the file's byte
 * source before returning the job's next message. Nothing else changes:
 * the job's messages and the checks on them stay as they are.
 */
#define _GNU_SOURCE /* close_range, F_SETPIPE_SZ, MSG_NOSIGNAL */
#include "sandbox.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void (*ts__test_in_child)(void);
int ts__test_child_silence_ms;

/* ---- the filter, built once ----------------------------------------------------- */

typedef struct syscall_rule {
    const char *name;
    uint32_t action;
} syscall_rule;

#define ALLOW SCMP_ACT_ALLOW
#define KILL SCMP_ACT_KILL_PROCESS
static const syscall_rule rules[] = {
    /* its descriptors: the socket, /dev/null */
    {"read", ALLOW}, {"write", ALLOW}, {"readv", ALLOW}, {"writev", ALLOW},
    {"pread64", ALLOW}, {"preadv", ALLOW}, {"lseek", ALLOW}, {"close", ALLOW},
    {"fstat", ALLOW}, {"recvfrom", ALLOW}, {"recvmsg", ALLOW}, {"sendto", ALLOW},
    {"sendmsg", ALLOW}, {"poll", ALLOW}, {"ppoll", ALLOW},
    /* memory */
    {"mmap", ALLOW}, {"munmap", ALLOW}, {"mremap", ALLOW}, {"mprotect", ALLOW},
    {"brk", ALLOW}, {"madvise", ALLOW},
    /* time, locks, signals to itself returning, the end */
    {"clock_gettime", ALLOW}, {"clock_getres", ALLOW}, {"gettimeofday", ALLOW},
    {"time", ALLOW}, {"nanosleep", ALLOW}, {"clock_nanosleep", ALLOW}, {"futex", ALLOW},
    {"sched_yield", ALLOW}, {"getpid", ALLOW}, {"gettid", ALLOW}, {"getrandom", ALLOW},
    {"rt_sigreturn", ALLOW}, {"rt_sigprocmask", ALLOW}, {"rt_sigaction", ALLOW},
    {"sigaltstack", ALLOW}, {"restart_syscall", ALLOW}, {"exit", ALLOW},
    {"exit_group", ALLOW},
    /* no file is opened */
    {"open", SCMP_ACT_ERRNO(EACCES)}, {"openat", SCMP_ACT_ERRNO(EACCES)},
    {"openat2", SCMP_ACT_ERRNO(EACCES)}, {"creat", SCMP_ACT_ERRNO(EACCES)},
    /* never: killed on the spot */
    {"execve", KILL}, {"execveat", KILL}, {"fork", KILL}, {"vfork", KILL}, {"clone", KILL},
    {"clone3", KILL}, {"socket", KILL}, {"socketpair", KILL}, {"connect", KILL},
    {"bind", KILL}, {"listen", KILL}, {"accept", KILL}, {"accept4", KILL},
    {"ptrace", KILL}, {"process_vm_readv", KILL}, {"process_vm_writev", KILL},
};
#undef ALLOW
#undef KILL

/* libseccomp, by dlopen: the functions used. */
typedef struct seccomp_api {
    scmp_filter_ctx (*init)(uint32_t);
    int (*resolve)(const char *);
    int (*rule_add)(scmp_filter_ctx, uint32_t, int, unsigned, ...);
    int (*export_bpf)(const scmp_filter_ctx, int);
    void (*release)(scmp_filter_ctx);
} seccomp_api;

static pthread_once_t filter_once = PTHREAD_ONCE_INIT;
static struct sock_filter *filter_prog;
static unsigned short filter_len;
static char filter_error[256];

static int load_sym(void *h, const char *name, void *fn_ptr)
{
    void *sym = dlsym(h, name);
    if (!sym) {
        snprintf(filter_error, sizeof filter_error, "libseccomp lacks %s", name);
        return -1;
    }
    memcpy(fn_ptr, &sym, sizeof sym);
    return 0;
}

/* The BPF program libseccomp writes for ctx, read back through a pipe. */
static void export_filter(const seccomp_api *api, scmp_filter_ctx ctx)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) {
        snprintf(filter_error, sizeof filter_error, "cannot make a pipe: %s", strerror(errno));
        return;
    }
    fcntl(p[1], F_SETPIPE_SZ, 1 << 20); /* the program must fit: it is written first */
    int rc = api->export_bpf(ctx, p[1]);
    close(p[1]);
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = rc == 0 ? malloc(cap) : NULL;
    while (buf && n < cap) {
        ssize_t k = read(p[0], buf + n, cap - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        n += (size_t)k;
    }
    close(p[0]);
    if (!buf || n == 0 || n % sizeof(struct sock_filter) != 0 || n == cap) {
        free(buf);
        snprintf(filter_error, sizeof filter_error, "libseccomp cannot export its filter");
        return;
    }
    filter_prog = (struct sock_filter *)(void *)buf;
    filter_len = (unsigned short)(n / sizeof(struct sock_filter));
}

static void build_filter(void)
{
    void *h = dlopen("libseccomp.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(filter_error, sizeof filter_error,
                 "reading it safely needs libseccomp (libseccomp.so.2; Debian: apt install "
                 "libseccomp2), which is not installed");
        return;
    }
    seccomp_api api;
    if (load_sym(h, "seccomp_init", &api.init) ||
        load_sym(h, "seccomp_syscall_resolve_name", &api.resolve) ||
        load_sym(h, "seccomp_rule_add", &api.rule_add) ||
        load_sym(h, "seccomp_export_bpf", &api.export_bpf) ||
        load_sym(h, "seccomp_release", &api.release))
        return;
    scmp_filter_ctx ctx = api.init(SCMP_ACT_ERRNO(EPERM));
    if (!ctx) {
        snprintf(filter_error, sizeof filter_error, "libseccomp cannot start a filter");
        return;
    }
    for (size_t i = 0; i < sizeof rules / sizeof *rules; i++) {
        int nr = api.resolve(rules[i].name);
        if (nr == __NR_SCMP_ERROR)
            continue; /* not a system call of this architecture */
        if (api.rule_add(ctx, rules[i].action, nr, 0) != 0) {
            snprintf(filter_error, sizeof filter_error, "libseccomp refuses a rule for %s",
                     rules[i].name);
            api.release(ctx);
            return;
        }
    }
    export_filter(&api, ctx);
    api.release(ctx);
}

/* ---- the child's side ----------------------------------------------------------------- */

/* All n bytes sent (send, never SIGPIPE) or read: 0, or -1 when the other
 * side is gone. */
static int move_all(int fd, unsigned char *p, size_t n, int sending)
{
    while (n > 0) {
        ssize_t k = sending ? send(fd, p, n, MSG_NOSIGNAL) : read(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static int write_all(int fd, const void *p, size_t n)
{
    return move_all(fd, (unsigned char *)(uintptr_t)p, n, 1);
}

static int read_all(int fd, void *p, size_t n)
{
    return move_all(fd, p, n, 0);
}

int ts__chan_send(int fd, uint32_t type, const void *p, size_t n)
{
    if (n > TS__CHILD_MSG_MAX)
        return -1;
    unsigned char small[4096];
    uint32_t h[2] = {type, (uint32_t)n};
    if (n <= sizeof small - sizeof h) { /* one write for the usual small record */
        memcpy(small, h, sizeof h);
        if (n)
            memcpy(small + sizeof h, p, n);
        return write_all(fd, small, sizeof h + n);
    }
    return write_all(fd, h, sizeof h) || write_all(fd, p, n) ? -1 : 0;
}

int ts__chan_recv(int fd, uint32_t *type, void *buf, size_t cap, size_t *n)
{
    uint32_t h[2];
    if (read_all(fd, h, sizeof h) || h[1] > cap || read_all(fd, buf, h[1]))
        return -1;
    *type = h[0];
    *n = h[1];
    return 0;
}

int ts__chan_recv_alloc(int fd, uint32_t *type, unsigned char **buf, size_t *cap, size_t *n)
{
    uint32_t h[2];
    if (read_all(fd, h, sizeof h) || h[1] > TS__CHILD_MSG_MAX)
        return -1;
    if (h[1] + (size_t)1 > *cap) {
        unsigned char *b = realloc(*buf, h[1] + (size_t)1);
        if (!b)
            return -1;
        *buf = b;
        *cap = h[1] + (size_t)1;
    }
    if (read_all(fd, *buf, h[1]))
        return -1;
    *type = h[0];
    *n = h[1];
    return 0;
}

int ts__chan_error(int fd, ts_status st, const ts_error *err)
{
    unsigned char msg[12 + TS_ERROR_MESSAGE_MAX];
    int32_t code = (int32_t)st;
    int64_t offset = err ? err->offset : -1;
    const char *text = err && err->message[0] ? err->message : ts_strerror(st);
    size_t len = strnlen(text, TS_ERROR_MESSAGE_MAX - 1);
    memcpy(msg, &code, 4);
    memcpy(msg + 4, &offset, 8);
    memcpy(msg + 12, text, len);
    return ts__chan_send(fd, TS__MSG_ERROR, msg, 12 + len);
}

/* The child's data segment now, in bytes (/proc/self/statm: data + stack
 * pages), or 0 when unknown. */
static uint64_t data_now(void)
{
    int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    char buf[256];
    ssize_t k = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (k <= 0)
        return 0;
    buf[k] = '\0';
    unsigned long long f[6] = {0};
    if (sscanf(buf, "%llu %llu %llu %llu %llu %llu", &f[0], &f[1], &f[2], &f[3], &f[4],
               &f[5]) != 6)
        return 0;
    return (uint64_t)f[5] * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* Closes every descriptor above 2 but keep. */
static void close_others(int keep)
{
#ifdef SYS_close_range
    if ((keep <= 3 || syscall(SYS_close_range, 3u, (unsigned)keep - 1, 0u) == 0) &&
        syscall(SYS_close_range, (unsigned)keep + 1, ~0u, 0u) == 0)
        return;
#endif
    long max = sysconf(_SC_OPEN_MAX);
    if (max < 0 || max > 65536)
        max = 65536;
    for (int fd = 3; fd < max; fd++)
        if (fd != keep)
            close(fd);
}

/* Sanitizer builds (make sanitize, fuzzing): the runtime's own fault
 * handler catches a crash in the child and exits with status 1, and its
 * interceptors stop libhdf5's overflowing memcpy the same way. So that a
 * crash reads as one in every build, its death callback ends the child by
 * SIGSEGV: the handler reset with the raw system call (the runtime
 * intercepts sigaction), then a fault, which kills since SIGSEGV is
 * blocked inside the runtime's handler or has its default action. */
void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

#if defined(__GNUC__) || defined(__clang__)
__attribute__((no_sanitize("address", "undefined"))) /* the fault is the point */
#endif
static void die_by_segv(void)
{
    unsigned long k[4] = {0, 0, 0, 0}; /* SIG_DFL, no flags, empty mask: any layout */
    syscall(SYS_rt_sigaction, SIGSEGV, k, NULL, (size_t)8);
    *(volatile int *)(uintptr_t)k[0] = 0;
    _exit(139);
}

static _Noreturn void child_main(int fd, ts__child_fn fn, void *arg)
{
    if (__sanitizer_set_death_callback)
        __sanitizer_set_death_callback(die_by_segv);
    /* A fault kills the child with its signal (not a handler of the
     * parent's: mapguard's, a sanitizer's or libFuzzer's). */
    static const int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS,
                                 SIGTRAP, SIGXCPU, SIGXFSZ};
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    for (size_t i = 0; i < sizeof faults / sizeof *faults; i++)
        sigaction(faults[i], &dfl, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);

    struct rlimit zero = {0, 0};
    setrlimit(RLIMIT_CORE, &zero);
    setrlimit(RLIMIT_FSIZE, &zero);
#if !defined(__SANITIZE_ADDRESS__) && !defined(TS__NO_DATA_LIMIT)
    /* (AddressSanitizer's shadow memory counts as data: no limit there.) */
    uint64_t now = data_now();
    if (now) {
        struct rlimit data = {(rlim_t)(now + TS__CHILD_DATA_MAX),
                              (rlim_t)(now + TS__CHILD_DATA_MAX)};
        setrlimit(RLIMIT_DATA, &data);
    }
#else
    (void)data_now;
#endif

    int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (fd <= 2)
        fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    for (int k = 0; k <= 2 && nul >= 0; k++)
        if (nul != k)
            dup2(nul, k);
    close_others(fd);

    ts_error err;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        ts__chan_error(fd, ts__error(&err, TS_ERR_UNSUPPORTED, "cannot confine the process "
                                     "(no_new_privs: %s)", strerror(errno)), &err);
        _exit(3);
    }
    struct sock_fprog prog = {filter_len, filter_prog};
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0) {
        ts__chan_error(fd, ts__error(&err, TS_ERR_UNSUPPORTED, "the kernel refuses the "
                                     "seccomp filter that confines it: %s", strerror(errno)),
                       &err);
        _exit(3);
    }
    if (ts__test_in_child)
        ts__test_in_child();
    _exit(fn(fd, arg));
}

/* ---- the parent's side ------------------------------------------------------------- */

struct ts__child {
    pid_t pid;
    int fd;
    const char *lib;
    unsigned char *buf;     /* the last message's payload */
    size_t cap;
    ts__child_fn fn;        /* what it runs (pool workers: their loop) */
    int silence_ms;         /* the longest wait for a message */
    unsigned jobs;          /* jobs done (pool workers) */
    struct ts__child *next; /* in the pool */
};

ts_status ts__child_start(ts__child **out, const char *lib, ts__child_fn fn, void *arg,
                          ts_error *err)
{
    *out = NULL;
    pthread_once(&filter_once, build_filter);
    if (!filter_prog)
        return ts__error(err, TS_ERR_UNSUPPORTED, "%s", filter_error);
    ts__child *c = calloc(1, sizeof *c);
    if (!c)
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        int e = errno;
        free(c);
        return ts__error(err, TS_ERR_IO, "cannot make a socket pair for %s's process: %s",
                         lib, strerror(e));
    }
    pid_t pid = fork();
    if (pid == 0) {
        close(sv[0]);
        child_main(sv[1], fn, arg);
    }
    int e = errno;
    close(sv[1]);
    if (pid < 0) {
        close(sv[0]);
        free(c);
        return ts__error(err, TS_ERR_IO, "cannot start a process for %s: %s", lib,
                         strerror(e));
    }
    c->pid = pid;
    c->fd = sv[0];
    c->lib = lib;
    c->fn = fn;
    c->silence_ms = TS__CHILD_SILENCE_MS;
    *out = c;
    return TS_OK;
}

void ts__child_set_silence(ts__child *c, int ms)
{
    c->silence_ms = ms > 0 ? ms : TS__CHILD_SILENCE_MS;
}

/* The silence limit in force for c (tests may shorten it). */
static int silence_of(const ts__child *c)
{
    return ts__test_child_silence_ms > 0 ? ts__test_child_silence_ms : c->silence_ms;
}

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV, a memory fault";
    case SIGBUS: return "SIGBUS, a fault on a mapped page: did the file shrink?";
    case SIGSYS: return "SIGSYS, a system call the sandbox forbids";
    case SIGKILL: return "SIGKILL";
    case SIGABRT: return "SIGABRT";
    case SIGFPE: return "SIGFPE, an arithmetic fault";
    case SIGILL: return "SIGILL";
    case SIGXCPU: return "SIGXCPU, its CPU time limit";
    case SIGTRAP: return "SIGTRAP";
    default: return "a signal";
    }
}

/* Ends the child and returns its wait status, or -1 when it was not ours
 * to wait for (SIGCHLD ignored, or reaped elsewhere). A child that already
 * ended (the socket's end of file is its exit) keeps the status it ended
 * with: a kill does not change it. */
static int reap(ts__child *c)
{
    int status = 0;
    kill(c->pid, SIGKILL);
    pid_t r;
    while ((r = waitpid(c->pid, &status, 0)) < 0 && errno == EINTR)
        ;
    c->pid = 0;
    return r < 0 ? -1 : status;
}

/* The child is gone, silent or broken: ends it and says how. */
static ts_status child_failed(ts__child *c, int why, ts_error *err)
{
    enum { GONE, SILENT, GARBLED };
    if (c->fd >= 0) {
        close(c->fd);
        c->fd = -1;
    }
    int status = c->pid ? reap(c) : -1;
    int limit = silence_of(c);
    if (why == SILENT)
        return ts__error(err, TS_ERR_FORMAT, "%s stopped answering on this file (nothing for "
                         "%g s): its isolated process was stopped", c->lib, limit / 1000.0);
    if (why == GARBLED)
        return ts__error(err, TS_ERR_FORMAT, "%s's isolated process sent a malformed answer "
                         "and was stopped", c->lib);
    if (status != -1 && WIFSIGNALED(status))
        return ts__error(err, TS_ERR_FORMAT, "%s crashed on this file: its isolated process "
                         "died of signal %d (%s)", c->lib, WTERMSIG(status),
                         signal_name(WTERMSIG(status)));
    if (status != -1 && WIFEXITED(status))
        return ts__error(err, TS_ERR_FORMAT, "%s's isolated process ended (exit status %d) "
                         "without an answer", c->lib, WEXITSTATUS(status));
    return ts__error(err, TS_ERR_FORMAT, "%s's isolated process ended without an answer",
                     c->lib);
}

/* Reads n bytes, waiting at most the silence limit for each piece: 0, or
 * GONE/SILENT + 1 for child_failed. */
static int recv_all(ts__child *c, void *p, size_t n)
{
    unsigned char *q = p;
    int limit = silence_of(c);
    while (n > 0) {
        struct pollfd pfd = {c->fd, POLLIN, 0};
        int r = poll(&pfd, 1, limit);
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0)
            return 2; /* SILENT + 1 */
        ssize_t k = read(c->fd, q, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return 1; /* GONE + 1 */
        q += k;
        n -= (size_t)k;
    }
    return 0;
}

ts_status ts__child_recv(ts__child *c, uint32_t *type, const unsigned char **p, size_t *n,
                         ts_error *err)
{
    uint32_t h[2];
    int r = c->fd < 0 ? 1 : recv_all(c, h, sizeof h);
    if (r)
        return child_failed(c, r - 1, err);
    if (h[1] > TS__CHILD_MSG_MAX)
        return child_failed(c, 2, err);
    if (h[1] + (size_t)1 > c->cap) {
        size_t cap = h[1] + (size_t)1 > 4096 ? h[1] + (size_t)1 : 4096;
        unsigned char *b = realloc(c->buf, cap);
        if (!b)
            return ts__error(err, TS_ERR_NOMEM, "out of memory for a %u-byte answer", h[1]);
        c->buf = b;
        c->cap = cap;
    }
    if ((r = recv_all(c, c->buf, h[1])))
        return child_failed(c, r - 1, err);
    c->buf[h[1]] = '\0';
    if (h[0] == TS__MSG_ERROR) {
        if (h[1] < 12)
            return child_failed(c, 2, err);
        int32_t code;
        int64_t offset;
        memcpy(&code, c->buf, 4);
        memcpy(&offset, c->buf + 4, 8);
        if (code <= 0 || code > TS_ERR_CANCELED)
            code = TS_ERR_FORMAT;
        return ts__fail(err, (ts_status)code, 0, offset, "%s", (const char *)c->buf + 12);
    }
    *type = h[0];
    *p = c->buf;
    *n = h[1];
    return TS_OK;
}

ts_status ts__child_send(ts__child *c, uint32_t type, const void *p, size_t n, ts_error *err)
{
    if (c->fd < 0 || ts__chan_send(c->fd, type, p, n) != 0)
        return child_failed(c, 0, err);
    return TS_OK;
}

void ts__child_end(ts__child *c)
{
    if (!c)
        return;
    if (c->fd >= 0)
        close(c->fd);
    if (c->pid)
        reap(c); /* done with it: whatever it is doing is not wanted */
    free(c->buf);
    free(c);
}

/* ---- the pool of workers ------------------------------------------------------------ */

/* Idle workers, most recently used first; at most POOL_IDLE kept, each
 * retired after POOL_JOBS jobs (what a library leaks on its error paths
 * stays bounded). */
#define POOL_IDLE 4
#define POOL_JOBS 1000
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static ts__child *pool;

ts_status ts__child_acquire(ts__child **out, const char *lib, ts__child_fn loop,
                            ts_error *err)
{
    pthread_mutex_lock(&pool_lock);
    ts__child **p = &pool;
    while (*p && (*p)->fn != loop)
        p = &(*p)->next;
    ts__child *c = *p;
    if (c)
        *p = c->next;
    pthread_mutex_unlock(&pool_lock);
    if (c) {
        c->next = NULL;
        *out = c;
        return TS_OK;
    }
    return ts__child_start(out, lib, loop, NULL, err);
}

void ts__child_release(ts__child *c, int healthy)
{
    if (!c)
        return;
    if (!healthy || c->fd < 0 || ++c->jobs >= POOL_JOBS) {
        ts__child_end(c);
        return;
    }
    pthread_mutex_lock(&pool_lock);
    size_t idle = 0;
    for (ts__child *q = pool; q; q = q->next)
        idle++;
    if (idle < POOL_IDLE) {
        c->next = pool;
        pool = c;
        c = NULL;
    }
    pthread_mutex_unlock(&pool_lock);
    ts__child_end(c);
}

void ts__child_pool_clear(void)
{
    pthread_mutex_lock(&pool_lock);
    ts__child *c = pool;
    pool = NULL;
    pthread_mutex_unlock(&pool_lock);
    while (c) {
        ts__child *next = c->next;
        ts__child_end(c);
        c = next;
    }
}
