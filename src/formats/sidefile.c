/*
 * sidefile.c - files beside a model that hold its data, named by the model
 * relative to its own folder: TensorFlow.js weight shards (the manifest's
 * "paths") and ONNX external data ("location"). A name from a file is
 * hostile: it may not leave the model's folder, by an absolute path, a
 * ".." part or (for a local model) a symbolic link, as the ONNX checker
 * refuses (onnx/checker.cc, resolve_external_data_location).
 */
/* realpath(3) is XSI */
#define _XOPEN_SOURCE 700

#include "reader.h"
#include "../remote/remote.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

ts_status ts__side_check_name(const char *loc, size_t n, const char *kind, const char *who,
                              size_t at, ts_error *err)
{
    char buf[128];
    const char *shown = ts__printable(loc, n, buf, sizeof buf);
    if (n == 0)
        return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)at, "%s: %s has an empty location",
                        who, kind);
    if (memchr(loc, '\0', n))
        return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)at,
                        "%s: %s location '%s' contains a NUL byte", who, kind, shown);
    if (loc[0] == '/' || loc[0] == '\\' || (n >= 2 && loc[1] == ':'))
        return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)at,
                        "%s path leaves the model folder: %s has absolute location '%s'", kind,
                        who, shown);
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || loc[i] == '/' || loc[i] == '\\') {
            if (i - start == 2 && loc[start] == '.' && loc[start + 1] == '.')
                return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)at,
                                "%s path leaves the model folder: %s has location '%s'", kind,
                                who, shown);
            start = i + 1;
        }
    }
    return TS_OK;
}

ts_status ts__side_locate(const ts_open_options *o, const char *loc, const char *kind,
                          const char *who, size_t at, char **resolved, int64_t *size,
                          int *missing, ts_error *err)
{
    *resolved = NULL;
    *size = 0;
    int gone_dummy;
    if (!missing)
        missing = &gone_dummy;
    *missing = 0;
    if (ts__is_url(o->path)) {
        char *url = ts__url_sibling(o->path, loc);
        if (!url)
            return ts__error(err, TS_ERR_NOMEM, "out of memory");
        uint64_t n = 0;
        ts_status st = ts__remote_size(url, o, &n, err);
        if (st) {
            free(url);
            /* the words of a local file that is not there */
            if ((*missing = ts__remote_missing(err)))
                return ts__fail(err, TS_ERR_IO, 0, (int64_t)at,
                                "%s: %s file '%s' beside the model is missing", who, kind, loc);
            return st;
        }
        *resolved = url;
        *size = (int64_t)n;
        return TS_OK;
    }
    const char *model = o->path, *slash = strrchr(model, '/');
    size_t dn = slash ? (size_t)(slash - model) : 0;
    char *side = malloc(dn + strlen(loc) + 2), *dir = malloc(dn + 2);
    if (!side || !dir) {
        free(side);
        free(dir);
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    }
    if (slash)
        sprintf(side, "%.*s/%s", (int)dn, model, loc);
    else
        strcpy(side, loc);
    strcpy(dir, slash ? (dn ? "" : "/") : ".");
    if (dn)
        sprintf(dir, "%.*s", (int)dn, model);
    struct stat sb;
    ts_status st = TS_OK;
    char *rd = NULL, *rs = NULL;
    int gone = lstat(side, &sb) != 0;
    if (gone && errno == ENOENT) {
        *missing = 1;
        st = ts__fail(err, TS_ERR_IO, 0, (int64_t)at,
                      "%s: %s file '%s' beside the model is missing", who, kind, loc);
    } else if (gone) {
        st = ts__fail(err, TS_ERR_IO, 0, (int64_t)at, "%s: %s file %s cannot be read", who,
                      kind, side);
    } else if (S_ISLNK(sb.st_mode) || !S_ISREG(sb.st_mode)) {
        st = ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)at,
                      "%s: %s file %s is not a regular file (symbolic links are refused, as "
                      "by the ONNX checker)", who, kind, side);
    } else {
        /* A symbolic link among the folders of the location could still
         * lead out: the resolved file must lie inside the resolved folder. */
        rd = realpath(dir, NULL);
        rs = realpath(side, NULL);
        size_t rdl = rd ? strlen(rd) : 0;
        if (!rd || !rs ||
            (strcmp(rd, "/") != 0 && (strncmp(rs, rd, rdl) != 0 || rs[rdl] != '/')))
            st = ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)at,
                          "%s path leaves the model folder: %s has location '%s', which "
                          "resolves outside it (through a symbolic link)", kind, who, loc);
    }
    free(rd);
    free(side);
    free(dir);
    if (st) {
        free(rs);
        return st;
    }
    *resolved = rs;
    *size = (int64_t)sb.st_size;
    return TS_OK;
}
