/*
 * fuzz.h - shared helpers for the libFuzzer harnesses in fuzz/.
 *
 * Each harness is one fuzz/fuzz_<name>.c defining LLVMFuzzerTestOneInput. A
 * harness that needs public functions other engineers add names them on a
 * line "fuzz-needs: ts_a ts_b"; fuzz/harnesses.sh builds it only once
 * include/tshape.h declares them all.
 *
 * Besides the sanitizers' own checks (ASan, UBSan, libFuzzer's leak, OOM and
 * timeout detection) the harnesses assert the library's promises with
 * FUZZ_CHECK, which aborts so libFuzzer records the input: a failing call
 * sets err->code to its status and writes a one-line, non-empty message.
 */
#ifndef TSHAPE_FUZZ_H
#define TSHAPE_FUZZ_H

#include "tshape.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                      \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "%s:%d: fuzz invariant failed: %s\n", __FILE__,   \
                    __LINE__, #cond);                                         \
            abort();                                                          \
        }                                                                     \
    } while (0)

/* The error report of a failed call: code matches, one NUL-terminated line
 * that says something. With FUZZ_ALLOW_MULTILINE set in the environment a
 * newline in the message is tolerated, so a run can look past that (known)
 * class of bug for memory errors. */
/* Failures of an isolated child process (libhdf5's), by how it ended: the
 * HDF5 harness prints them at exit. */
static unsigned long fuzz_child_signal, fuzz_child_exit, fuzz_child_hang;

static inline void fuzz_count_child(const ts_error *err)
{
    if (strstr(err->message, "isolated process died of signal"))
        fuzz_child_signal++;
    else if (strstr(err->message, "isolated process ended"))
        fuzz_child_exit++;
    else if (strstr(err->message, "stopped answering"))
        fuzz_child_hang++;
}

/* Prints the counts above at exit, as the failures of libhdf5's isolated
 * process, never this process's (the harnesses that run libhdf5: hdf5,
 * keras). Call at every input: registers once. */
static const char *fuzz_child_harness;
static void fuzz_child_report(void)
{
    fprintf(stderr, "%s: libhdf5's isolated process: %lu crashes (signal), %lu other exits "
            "(sanitizer reports), %lu hangs; tshape's process: none\n", fuzz_child_harness,
            fuzz_child_signal, fuzz_child_exit, fuzz_child_hang);
}

static inline void fuzz_report_children_at_exit(const char *harness)
{
    if (!fuzz_child_harness) {
        fuzz_child_harness = harness;
        atexit(fuzz_child_report);
    }
}

static inline void fuzz_check_error(ts_status st, const ts_error *err)
{
    fuzz_count_child(err);
    static int allow_multiline = -1;
    if (allow_multiline < 0)
        allow_multiline = getenv("FUZZ_ALLOW_MULTILINE") != NULL;
    FUZZ_CHECK(st != TS_OK);
    FUZZ_CHECK(err->code == st);
    size_t n = strnlen(err->message, sizeof err->message);
    FUZZ_CHECK(n > 0 && n < sizeof err->message);
    if (!allow_multiline)
        FUZZ_CHECK(strchr(err->message, '\n') == NULL);
    FUZZ_CHECK(strcmp(ts_strerror(st), "unknown error") != 0);
}

/* Formats a shape exactly: the snprintf-style length must match. Returns a
 * malloc'ed string (caller frees). */
static inline char *fuzz_format(const ts_shape *s, unsigned flags)
{
    size_t n = ts_shape_format(s, flags, NULL, 0);
    char *buf = malloc(n + 1);
    FUZZ_CHECK(buf != NULL);
    FUZZ_CHECK(ts_shape_format(s, flags, buf, n + 1) == n);
    FUZZ_CHECK(strlen(buf) == n);
    return buf;
}

/* A NUL-terminated copy of data[0..size). */
static inline char *fuzz_strndup(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    FUZZ_CHECK(s != NULL);
    if (size)
        memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* Splits data at the first byte `sep`: *rest and *rest_len get what follows
 * (empty when there is no separator). Returns the length of the head. */
static inline size_t fuzz_split(const uint8_t *data, size_t size, uint8_t sep,
                                const uint8_t **rest, size_t *rest_len)
{
    const uint8_t *p = size ? memchr(data, sep, size) : NULL;
    if (!p) {
        *rest = data + size;
        *rest_len = 0;
        return size;
    }
    *rest = p + 1;
    *rest_len = size - (size_t)(p - data) - 1;
    return (size_t)(p - data);
}

#endif
