/*
 * remote.h - files that are not on this machine: http:// and https:// URLs,
 * the Hugging Face Hub (hf://) and S3 (s3://), read with range requests
 * through libcurl, which is loaded (dlopen) the first time a URL is met.
 *
 * A remote file is a sparse byte source (src/formats/source.h) whose
 * fetcher makes range requests: readers ask for what they parse and get
 * exactly that, rounded to pages, plus read-ahead. Several ranges asked for
 * at once (a zip's local headers) go in one multi-range request when the
 * server answers those, else in parallel single-range requests.
 */
#ifndef TSHAPE_REMOTE_H
#define TSHAPE_REMOTE_H

#include "../formats/source.h"

/* 1 when path is a URL tshape reads: http://, https://, hf:// or s3://. */
int ts__is_url(const char *path);

/* A URL resolved to the HTTP request that reads it. */
typedef struct ts__url {
    char *http;               /* the http(s) URL requested */
    const char *given;        /* the URL as the user wrote it (borrowed) */
    int scheme;               /* TS__URL_HTTP, TS__URL_HF, TS__URL_S3 */
    char *bearer;             /* "Authorization: Bearer ..." header, or NULL */
    char *sigv4;              /* CURLOPT_AWS_SIGV4 text, or NULL */
    char *userpwd;            /* S3 "key:secret", or NULL */
    char *amz_token;          /* "x-amz-security-token: ..." header, or NULL */
    /* hf:// */
    char *hf_repo;            /* "org/name" */
    char *hf_revision;        /* "main" unless given */
    char *hf_path;            /* the file in the repo, "" for the repo */
    char *hf_endpoint;        /* HF_ENDPOINT, or https://huggingface.co */
} ts__url;

enum { TS__URL_HTTP = 1, TS__URL_HF = 2, TS__URL_S3 = 3 };

/*
 * Resolves `given` (a URL of ts__is_url) into *u: hf://ORG/NAME[@REV][/PATH]
 * to HF_ENDPOINT/ORG/NAME/resolve/REV/PATH with HF_TOKEN as a bearer token;
 * s3://BUCKET/KEY to AWS_ENDPOINT_URL/BUCKET/KEY (path style) or
 * https://BUCKET.s3.REGION.amazonaws.com/KEY, signed with SigV4 when
 * AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are set (AWS_SESSION_TOKEN,
 * AWS_REGION or AWS_DEFAULT_REGION, default us-east-1). Free with
 * ts__url_free. Errors: TS_ERR_INVALID_ARG (a URL that does not parse),
 * TS_ERR_NOMEM.
 */
ts_status ts__url_resolve(const char *given, ts__url *u, ts_error *err);
void ts__url_free(ts__url *u);

/*
 * The URL of `name` (a relative path, as an index names its shards) beside
 * the file `base` (a URL as the user wrote it: hf://, s3:// or http(s)),
 * malloc'ed; NULL when out of memory.
 */
char *ts__url_sibling(const char *base, const char *name);

/*
 * Opens the remote file `url` as a sparse source: one request reads its
 * first bytes and learns its size (Content-Range), later requests what the
 * reader asks for. o->max_fetch bounds what headers fetch, o->log receives
 * each request. Errors: TS_ERR_IO (the request failed: HTTP status, host and
 * path in the message; a server that ignores Range), TS_ERR_UNSUPPORTED
 * (libcurl cannot be loaded), TS_ERR_INVALID_ARG (a URL that does not
 * parse), TS_ERR_NOMEM.
 */
ts_status ts__remote_open(const char *url, const ts_open_options *o, ts__source **out,
                          ts_error *err);

/*
 * Reads a whole small remote file (an index or config.json) into a new
 * malloc'ed buffer of *len bytes (plus a NUL after them). A file larger
 * than `max` bytes is TS_ERR_LIMIT; one that is absent (HTTP 404) is
 * TS_ERR_IO with *missing set to 1 (when missing is not NULL). Other errors
 * as ts__remote_open.
 */
ts_status ts__remote_read_all(const char *url, const ts_open_options *o, size_t max,
                              unsigned char **buf, size_t *len, int *missing, ts_error *err);

/*
 * The size in bytes of the remote file `url` (one request for its first
 * byte). Errors as ts__remote_open.
 */
ts_status ts__remote_size(const char *url, const ts_open_options *o, uint64_t *size,
                          ts_error *err);

/* 1 when the error says the remote file is not there (HTTP 404). */
int ts__remote_missing(const ts_error *e);

/* 1 when url names a folder rather than a file: hf://ORG/NAME[@REV] (or
 * with a trailing '/'), or an http(s) URL ending in '/'. */
int ts__url_is_folder(const char *url);

/*
 * The file to read for the model folder `url` (ts__url_is_folder): a Hub
 * repository's listing picks the safetensors index, model.safetensors, the
 * PyTorch index, pytorch_model.bin or a lone .gguf, in that order; without
 * a listing those names are asked for one by one. *out receives its URL
 * (malloc'ed). Errors: TS_ERR_IO (none there; a request failed),
 * TS_ERR_INVALID_ARG (only GGUF files, several: the message names how to
 * pick one), TS_ERR_NOMEM.
 */
ts_status ts__remote_find_model(const char *url, const ts_open_options *o, char **out,
                                ts_error *err);

#endif /* TSHAPE_REMOTE_H */
