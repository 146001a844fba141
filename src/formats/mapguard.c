/*
 * mapguard.c - parsing a memory-mapped file that may shrink under us.
 *
 * Readers parse straight from an mmap of the file. If another process
 * truncates the file meanwhile, touching a page past the new end raises
 * SIGBUS, which would kill the whole program (and every other file of the
 * run). So parsing runs under a guard: a SIGBUS whose address lies in the
 * guarded mapping, on the thread that set the guard, jumps back out and the
 * open fails with TS_ERR_IO naming the file as changed (guards nest: a fault
 * in an outer guard's mapping jumps out of the inner ones too, so reading
 * two files at once, as diff --values does, is covered for both). Any other SIGBUS is
 * passed on to the handler that was installed before ours (or gets the
 * default action: the process dies as it would have without us).
 *
 * The handler is installed once, the first time a mapped file is parsed.
 * Memory that a helper library (jansson) held at the moment of the fault is
 * not recovered; the ts_file and its arrays are.
 */
#include "reader.h"

#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>

typedef struct guard {
    const char *lo, *hi;
    struct guard *outer;    /* the guard it is nested in, or NULL */
    sigjmp_buf jump;
} guard;

static _Thread_local guard *volatile active;
static struct sigaction previous;
static atomic_int installed;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
    const char *addr = si ? (const char *)si->si_addr : NULL;
    /* the innermost guard of that mapping: nested guards (diff --values
     * reads two files) each cover their own */
    for (guard *g = active; g; g = g->outer)
        if (addr >= g->lo && addr < g->hi) {
            active = NULL;
            siglongjmp(g->jump, 1);
        }
    if (previous.sa_flags & SA_SIGINFO) {
        previous.sa_sigaction(sig, si, uc);
    } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
        previous.sa_handler(sig);
    } else {
        /* Returning re-runs the faulting access, which now gets the
         * default action. */
        signal(SIGBUS, SIG_DFL);
    }
}

static void install(void)
{
    int expected = 0;
    if (!atomic_compare_exchange_strong(&installed, &expected, 1))
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &previous);
}

ts_status ts__guarded_parse(const void *map, size_t len, ts__parse_fn fn, void *arg,
                            ts_error *err)
{
    install();
    guard g;
    g.lo = map;
    g.hi = (const char *)map + len;
    guard *outer = active;
    g.outer = outer;
    if (sigsetjmp(g.jump, 1)) {
        active = outer;
        return ts__fail(err, TS_ERR_IO, 0, -1,
                        "the file shrank while it was being read (truncated by another "
                        "program?): a page of its mapping vanished");
    }
    active = &g;
    ts_status st = fn(arg, err);
    active = outer;
    return st;
}
