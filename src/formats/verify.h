/*
 * verify.h - what verify.c (the header checks of ts_verify_path) and the
 * deep pass (src/values/deep.c) share: adding a problem to a result, and
 * the deep pass itself. Not installed.
 */
#ifndef TSHAPE_VERIFY_H
#define TSHAPE_VERIFY_H

#define TS_EXPERIMENTAL_API
#include "reader.h"

/*
 * Appends a problem of `check` and class `cls` (TS_VERIFY_OK: a warning)
 * about the file `path` and the tensor or member `name` (either may be
 * NULL), with the numbers of ts_verify_problem (-1 when none) and a
 * printf message. Errors: TS_ERR_NOMEM.
 */
ts_status ts__verify_add(ts_verify *v, ts_verify_check check, ts_verify_class cls,
                         const char *path, const char *name, int64_t expected, int64_t actual,
                         ts_error *err, const char *fmt, ...) TS__PRINTF(9, 10);

/* The result's totals, for the deep pass to add to. */
ts_verify_totals *ts__verify_totals(ts_verify *v);

/*
 * The deep pass (deep.c) over the members of m: the CRC-32 of every zip
 * member, every tensor's bytes read, NaN and infinite values of float
 * tensors counted; problems go to v (CRC, DATA, UNREADABLE_FILE,
 * NONFINITE), bytes read to its totals. opts as given to ts_verify_path,
 * checked. Errors (the pass could not run): TS_ERR_NOMEM.
 */
ts_status ts__verify_deep(ts_verify *v, const ts_model *m, const ts_verify_options *opts,
                          ts_error *err);

#endif /* TSHAPE_VERIFY_H */
