/*
 * finding.c - the records that checks report (model.c's issues, verify.c's
 * problems): a growing array of them, and the three strings each owns (the
 * file's path, the tensor's name and the message).
 */
#include "internal.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

void *ts__grow(void *v, size_t *cap, size_t n, size_t item, size_t first, ts_error *err)
{
    if (n < *cap)
        return v;
    size_t c = *cap ? *cap : first;
    if (c > SIZE_MAX / 2 / item) {
        ts__error(err, TS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    c = *cap ? c * 2 : c;
    void *p = realloc(v, c * item);
    if (!p) {
        ts__error(err, TS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    *cap = c;
    return p;
}

ts_status ts__finding_set(ts__finding *r, const char *path, const char *name, ts_error *err,
                          const char *fmt, va_list ap)
{
    char msg[TS_ERROR_MESSAGE_MAX];
    vsnprintf(msg, sizeof msg, fmt, ap);
    r->path = path ? ts__strdup(path) : NULL;
    r->name = name ? ts__strdup(name) : NULL;
    r->message = ts__strdup(msg);
    if ((path && !r->path) || (name && !r->name) || !r->message) {
        ts__finding_free(r);
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    }
    return TS_OK;
}

void ts__finding_free(ts__finding *r)
{
    free(r->path);
    free(r->name);
    free(r->message);
    r->path = r->name = r->message = NULL;
}
