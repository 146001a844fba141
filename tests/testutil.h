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

/* Parses `text` as a shape, failing the test on error. */
void tu_shape(ts_shape *s, const char *text);

/* Asserts that shape s prints as `text` (tuple style). */
#define tu_assert_shape(s, text)                                              \
    do {                                                                      \
        char tu_buf_[512];                                                    \
        ts_shape_format((s), 0, tu_buf_, sizeof tu_buf_);                     \
        ck_assert_str_eq(tu_buf_, (text));                                    \
    } while (0)

#endif
