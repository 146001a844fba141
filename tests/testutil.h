/* testutil.h - helpers shared by the Check suites. */
#ifndef TSHAPE_TESTUTIL_H
#define TSHAPE_TESTUTIL_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

#include "tshape.h"

/* Prototypes of every suite (build/tests/suites.h lists them). */
#define TS_SUITE(name) Suite *name##_suite(void);
#include "suites.h"
#undef TS_SUITE

/* Directory of the shared corpus of real tensor files: $TSHAPE_CORPUS, or
 * ../shared/corpus relative to the repository root (tests run from there). */
const char *tu_corpus_dir(void);

/* Fills buf with "<corpus>/<rel>" and returns 1 if that file exists; 0 (and a
 * message on stderr saying the test is skipped) if it does not. */
int tu_corpus_path(char *buf, size_t cap, const char *rel);

/* Path of a committed fixture: "tests/fixtures/<rel>". */
const char *tu_fixture(char *buf, size_t cap, const char *rel);

/* Reads a whole file into a malloc'ed buffer (*len set); NULL on failure. */
unsigned char *tu_read_file(const char *path, size_t *len);

/* Reads a file named as in the tests' tables: "corpus:<rel>" is a file of
 * the shared corpus (NULL, after a "skipped" note, when it is absent), any
 * other name a path from the repository root. path (cap bytes) receives the
 * resolved path. Fails the test if the file cannot be read. */
unsigned char *tu_read_named(const char *name, char *path, size_t cap, size_t *len);

/*
 * Opens data[0..n) with ts_file_open_memory after copying it into an
 * allocation of exactly n bytes, so a sanitizer build catches any read past
 * the end. Asserts that the call returned cleanly: on success a ts_file
 * (closed here); on failure a NULL file, err->code equal to the status, and
 * a non-empty one-line message whose offset is not past n. Returns the
 * status; *err (may be NULL) receives the report.
 */
ts_status tu_open_exact(const unsigned char *data, size_t n, const ts_open_options *opts,
                        ts_error *err);

/*
 * Every proper prefix of a valid file fails cleanly, both auto-detected and
 * with `format` forced. Prefixes of at least `truncated_from` bytes must
 * fail with TS_ERR_TRUNCATED when the format is forced (pass SIZE_MAX for no
 * such check). `label` names the file in failure messages.
 */
void tu_check_prefixes(const char *label, const unsigned char *data, size_t len,
                       ts_format format, size_t truncated_from);

/*
 * Every byte in [0, limit) replaced, one at a time, by each of `values`
 * (NULL: 0x00 0x01 0x09 0x20 0x7f 0x80 0xff): every open must return
 * cleanly (tu_open_exact), whatever it decides.
 */
void tu_check_byte_changes(const unsigned char *data, size_t len, size_t limit,
                           const ts_open_options *opts, const unsigned char *values,
                           size_t nvalues);

/*
 * Opens the file at path with opts and asserts the exact failure: status,
 * err.code, message, byte offset, column 0, no ts_file; then that the same
 * open with a NULL error report returns the same status.
 */
void tu_expect_open_error(const char *path, const ts_open_options *opts, ts_status status,
                          int64_t offset, const char *message);

/* The err.index a reader reports with `message`: N when the message starts
 * with "array N", "tensor N", "key N", "key/value pair N" or "shape N" (the
 * entry it names), else -2 (not known from the text: npz members and
 * safetensors tensors are named, not numbered). */
int64_t tu_entry_index(const char *message);

/* Parses `text` as a shape, failing the test on error. */
void tu_shape(ts_shape *s, const char *text);

/* Opens tests/fixtures/<rel> with want_metadata (and want_activations when
 * `all`), failing the test with the error message when it cannot. */
ts_file *tu_open_fixture(const char *rel, int all);

/* The array of f named `name`; fails the test when there is none. */
const ts_array *tu_array_named(const ts_file *f, const char *name);

/* The JSON value of f's metadata entry `key`; fails the test when there is
 * none. */
const char *tu_metadata(const ts_file *f, const char *key);

/* Asserts that the first n (at most 16) elements of array `name` of f, read
 * as float64 (ts_array_read), are want[0..n). */
void tu_expect_values(const ts_file *f, const char *name, const double *want, int64_t n);

/* Asserts that shape s prints as `text` (tuple style). */
#define tu_assert_shape(s, text)                                              \
    do {                                                                      \
        char tu_buf_[512];                                                    \
        ts_shape_format((s), 0, tu_buf_, sizeof tu_buf_);                     \
        ck_assert_str_eq(tu_buf_, (text));                                    \
    } while (0)

#endif
