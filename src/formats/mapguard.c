/*
 * mapguard.c - parsing a memory-mapped file that may shrink under us.
 *
 * Readers parse straight from an mmap of the file. If another process
 * truncates the file meanwhile, touching a page past the new end raises
 * SIGBUS, which would kill the whole program (and every other file of the
 * run). So parsing runs under a guard: a SIGBUS whose address lies in the
 * guarded mapping, on the thread that set the guard, jumps back out and the
 * open fails with TS_ERR_IO naming the file as changed. Any other SIGBUS is
 * passed on to the handler that was installed before ours (or gets the
 * default action: the process dies as it would have without us).
 *
 * A sparse image (source.h) faults with SIGSEGV on a byte nobody asked
 * for; the same guard turns that into an error naming tshape's mistake. Its
 * large runs are mapped from a local file (source.c), so a SIGBUS there is
 * a file that shrank, as for a mapped one.
 *
 * The handlers are installed once, the first time they are needed.
 * Memory that a helper library (jansson) held at the moment of the fault is
 * not recovered; the ts_file and its arrays are.
 */
#include "reader.h"

#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>

typedef struct guard {
    const char *lo, *hi;
    int sparse;                 /* a sparse image: SIGSEGV is an unfetched byte */
    volatile int sig;           /* the signal that jumped out */
    struct guard *outer;
    const char *volatile fault;  /* the faulting address */
    sigjmp_buf jump;
} guard;

static _Thread_local guard *volatile active;
static struct sigaction previous_bus, previous_segv;
static atomic_int installed_bus, installed_segv;

/* The innermost guard of this thread whose range holds addr and whose
 * image faults with sig (SIGBUS: any, the pages a sparse image maps from a
 * local file too; SIGSEGV: a sparse one), or NULL. */
static guard *guard_for(int sig, const char *addr)
{
    for (guard *g = active; g; g = g->outer)
        if (addr >= g->lo && addr < g->hi && (sig == SIGBUS || g->sparse))
            return g;
    return NULL;
}

static void on_fault(int sig, siginfo_t *si, void *uc)
{
    const char *addr = si ? (const char *)si->si_addr : NULL;
    guard *g = addr ? guard_for(sig, addr) : NULL;
    if (g) {
        if (sig == SIGSEGV)
            ts__unfetched_faults++;
        g->sig = sig;
        g->fault = addr;
        active = g->outer;
        siglongjmp(g->jump, 1);
    }
    const struct sigaction *prev = sig == SIGBUS ? &previous_bus : &previous_segv;
    if (prev->sa_flags & SA_SIGINFO) {
        prev->sa_sigaction(sig, si, uc);
    } else if (prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN) {
        prev->sa_handler(sig);
    } else {
        /* Returning re-runs the faulting access, which now gets the
         * default action. */
        signal(sig, SIG_DFL);
    }
}

static void install(int sig)
{
    atomic_int *flag = sig == SIGBUS ? &installed_bus : &installed_segv;
    int expected = 0;
    if (!atomic_compare_exchange_strong(flag, &expected, 1))
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, sig == SIGBUS ? &previous_bus : &previous_segv);
}

static ts_status run_guarded(const void *lo, const void *hi, int sparse, ts__parse_fn fn,
                             void *arg, ts_error *err)
{
    install(SIGBUS);
    if (sparse)
        install(SIGSEGV);
    guard g;
    g.lo = lo;
    g.hi = hi;
    g.sparse = sparse;
    g.sig = 0;
    g.outer = active;
    if (sigsetjmp(g.jump, 1)) {
        active = g.outer;
        if (g.sig == SIGSEGV)
            return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)(g.fault - g.lo),
                            "tshape read byte %lld of the file without fetching it first (a "
                            "bug in tshape's reader for this format; please report it)",
                            (long long)(g.fault - g.lo));
        return ts__fail(err, TS_ERR_IO, 0, -1,
                        "the file shrank while it was being read (truncated by another "
                        "program?): a page of its mapping vanished");
    }
    active = &g;
    ts_status st = fn(arg, err);
    active = g.outer;
    return st;
}

ts_status ts__guarded_parse(const void *map, size_t len, ts__parse_fn fn, void *arg,
                            ts_error *err)
{
    return run_guarded(map, (const char *)map + len, 0, fn, arg, err);
}

ts_status ts__guarded_sparse(const void *lo, const void *hi, ts__parse_fn fn, void *arg,
                             ts_error *err)
{
    return run_guarded(lo, hi, 1, fn, arg, err);
}
