/*
 * sandbox.h - running a third-party library's work on a hostile file in a
 * child process (sandbox.c), so that its crash, hang or memory blow-up
 * costs that file, never the run, and what it could do if subverted is
 * reading memory it was given and talking to its parent.
 *
 * The child is forked for one job (a file's listing, one dataset's values)
 * and talks to the parent over a socket pair in messages:
 *
 *     uint32 type, uint32 length (native byte order), then `length` bytes
 *
 * The parent trusts nothing it receives: every message is bounded
 * (TS__CHILD_MSG_MAX) and the caller checks every field. Message types are
 * the job's own, but for two reserved by the sandbox: TS__MSG_ERROR (the
 * job's error: int32 status, int64 byte offset, the message text) and
 * TS__MSG_NEED (reserved: the child asks the parent for bytes of the file,
 * int64 offset, int64 length; the parent answers TS__MSG_BYTES. This is how
 * a file that is not on the local disk, such as a remote file read by HTTP
 * range requests, is to be served to a child that may open no file; see
 * sandbox.c).
 *
 * In the child, before the job runs: every signal handler that would catch
 * a fault is reset (a fault kills the child with its signal); core dumps
 * and file writes are off and its data segment is limited
 * (TS__CHILD_DATA_MAX beyond what the parent had); standard input, output
 * and error are /dev/null and every other descriptor but its socket is
 * closed; then a seccomp filter allows only what reading memory and
 * answering needs: no exec, no new process, no socket, no opening of any
 * file (open fails with EACCES), no signal to another process. The parent
 * waits for each message at most TS__CHILD_SILENCE_MS (or what the job
 * sets); a silent child is killed. A child that dies without an answer gives one error naming its
 * signal or exit status.
 */
#ifndef TSHAPE_SANDBOX_H
#define TSHAPE_SANDBOX_H

#include "../core/internal.h"

#define TS__CHILD_MSG_MAX ((size_t)64 << 20)
#define TS__CHILD_DATA_MAX ((uint64_t)2 << 30)
#define TS__CHILD_SILENCE_MS 60000

enum {
    TS__MSG_ERROR = 1,
    TS__MSG_NEED = 2,  /* reserved: child asks for file bytes */
    TS__MSG_BYTES = 3, /* reserved: parent's answer to TS__MSG_NEED */
    TS__MSG_JOB = 16   /* the first type a job may use */
};

typedef struct ts__child ts__child;

/* The job, run in the child with its end of the socket pair: returns the
 * child's exit status (0 when it answered). */
typedef int (*ts__child_fn)(int fd, void *arg);

/*
 * Forks the child that runs fn(fd, arg) under the sandbox. `lib` names the
 * library the child runs ("libhdf5"), for messages. Errors: TS_ERR_IO (no
 * socket or process could be made), TS_ERR_UNSUPPORTED (libseccomp
 * missing), TS_ERR_NOMEM.
 */
ts_status ts__child_start(ts__child **out, const char *lib, ts__child_fn fn, void *arg,
                          ts_error *err);
/* The longest wait for each message from now on, in ms (default
 * TS__CHILD_SILENCE_MS; 0 restores it): a job whose steps are all quick
 * gets a shorter one, so a hang is found sooner. */
void ts__child_set_silence(ts__child *c, int ms);
/* Sends one message. An error means the child is gone: it is reaped and
 * the error says how it ended. */
ts_status ts__child_send(ts__child *c, uint32_t type, const void *p, size_t n, ts_error *err);
/*
 * Receives the next message into storage owned by c (valid until the next
 * call). A TS__MSG_ERROR message is returned as the error it carries. When
 * the child dies, stays silent past the limit, or sends a malformed
 * message, it is killed and reaped, and the error says which (TS_ERR_FORMAT
 * naming the signal, "stopped answering", ...).
 */
ts_status ts__child_recv(ts__child *c, uint32_t *type, const unsigned char **p, size_t *n,
                         ts_error *err);
/* Closes the socket, waits for the child (killing it if it does not end
 * at once) and frees c; accepts NULL. */
void ts__child_end(ts__child *c);

/*
 * Workers reused for several jobs of a run: ts__child_acquire gives an idle
 * worker that runs `loop` (arg NULL), or starts one; the caller sends it a
 * job and reads the answers, then ts__child_release puts it back (healthy:
 * the job ended as the protocol says) or ends it (after an error, or when
 * enough are idle). A worker is a child as above, so ts__child_send, _recv
 * and _end apply. Thread-safe.
 */
ts_status ts__child_acquire(ts__child **out, const char *lib, ts__child_fn loop,
                            ts_error *err);
void ts__child_release(ts__child *c, int healthy);

/* Child side: one message, all of it (0), or -1 when the parent is gone. */
int ts__chan_send(int fd, uint32_t type, const void *p, size_t n);
/* Child side: the next message into buf (cap bytes); -1 when the parent is
 * gone or the message does not fit. */
int ts__chan_recv(int fd, uint32_t *type, void *buf, size_t cap, size_t *n);
/* Child side: the next message into *buf (grown as needed, up to
 * TS__CHILD_MSG_MAX; *cap its size); -1 when the parent is gone. */
int ts__chan_recv_alloc(int fd, uint32_t *type, unsigned char **buf, size_t *cap, size_t *n);
/* Child side: an error message from a status and err. */
int ts__chan_error(int fd, ts_status st, const ts_error *err);

/* Ends the idle workers (the next job starts a new one). */
void ts__child_pool_clear(void);

/* Tests only: run in the child right before the job (a crash, a hang, a
 * forbidden call), and the silence limit in ms when > 0. */
extern void (*ts__test_in_child)(void);
extern int ts__test_child_silence_ms;

#endif /* TSHAPE_SANDBOX_H */
