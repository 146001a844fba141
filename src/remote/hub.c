/*
 * hub.c - which file of a remote model folder to read: hf://ORG/NAME (a
 * Hub repository) or an http(s) URL ending in '/' (remote.h).
 *
 * The Hub lists a repository's files (GET ENDPOINT/api/models/REPO/
 * revision/REV: "siblings" with their "rfilename"s); other servers, and
 * Hub mirrors without the API, are asked for the usual names one by one.
 * The order is what transformers' from_pretrained looks for: the
 * safetensors index, the single safetensors file, the PyTorch index, the
 * single pytorch_model.bin; then a lone GGUF file.
 */
#include "remote.h"
#include "../core/json.h"

#include <stdio.h>
#include <stdlib.h>

static const char *const candidates[] = {"model.safetensors.index.json", "model.safetensors",
                                         "pytorch_model.bin.index.json", "pytorch_model.bin"};
#define NCAND (sizeof candidates / sizeof *candidates)

/* The most bytes of a Hub listing read (a repo of a few thousand files). */
#define LISTING_MAX ((size_t)16 << 20)

int ts__url_is_folder(const char *url)
{
    if (strncmp(url, "hf://", 5) == 0) {
        const char *s1 = strchr(url + 5, '/');
        return !s1 || !strchr(s1 + 1, '/') || url[strlen(url) - 1] == '/';
    }
    size_t n = strlen(url);
    return n > 0 && url[n - 1] == '/';
}

static int ends_with(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/*
 * The files of a Hub repository from its listing, ranked: *rank receives
 * the candidates' ranks (0..NCAND-1) of the best file found, or NCAND for a
 * lone .gguf, and *best its name (malloc'ed). *ggufs counts the .gguf files.
 * 1 when the listing was read, 0 when the endpoint has none.
 */
static int from_listing(const ts__url *u, const ts_open_options *o, char **best, size_t *rank,
                        size_t *ggufs)
{
    size_t cap = strlen(u->hf_endpoint) + 3 * (strlen(u->hf_repo) + strlen(u->hf_revision)) + 40;
    char *api = malloc(cap);
    if (!api)
        return 0;
    snprintf(api, cap, "%s/api/models/%s/revision/%s", u->hf_endpoint, u->hf_repo,
             u->hf_revision);
    unsigned char *text = NULL;
    size_t len = 0;
    ts_status st = ts__remote_read_all(api, o, LISTING_MAX, &text, &len, NULL, NULL);
    free(api);
    if (st)
        return 0;
    ts__json j;
    ts__json_init(&j, (const char *)text, len, NULL, NULL, NULL);
    *rank = NCAND + 1;
    *ggufs = 0;
    int found = 0;
    size_t count = 0;
    ts__json_str key;
    if (ts__json_peek(&j) != TS__JSON_OBJECT || ts__json_object_open(&j) != 0)
        goto out;
    while (ts__json_object_next(&j, &count, &key) == 1) {
        if (key.len != 8 || memcmp(text + key.at + 1, "siblings", 8) != 0 ||
            ts__json_peek(&j) != TS__JSON_ARRAY) {
            if (ts__json_skip(&j) != 0)
                goto out;
            continue;
        }
        found = 1;
        size_t n = 0;
        if (ts__json_array_open(&j) != 0)
            goto out;
        while (ts__json_array_next(&j, &n) == 1) {
            size_t c = 0;
            ts__json_str k2, v;
            if (ts__json_peek(&j) != TS__JSON_OBJECT || ts__json_object_open(&j) != 0)
                goto out;
            while (ts__json_object_next(&j, &c, &k2) == 1) {
                if (k2.len == 9 && memcmp(text + k2.at + 1, "rfilename", 9) == 0 &&
                    ts__json_peek(&j) == TS__JSON_STRING) {
                    if (ts__json_string(&j, &v) != 0)
                        goto out;
                    char *name = malloc(v.len + 1);
                    if (!name)
                        goto out;
                    ts__json_decode((const char *)text, &v, name);
                    name[v.len] = '\0';
                    size_t r = NCAND + 1;
                    for (size_t i = 0; i < NCAND; i++)
                        if (strcmp(name, candidates[i]) == 0)
                            r = i;
                    if (ends_with(name, v.len, ".gguf")) {
                        ++*ggufs;
                        r = NCAND;
                    }
                    if (r < *rank) {
                        free(*best);
                        *best = name;
                        *rank = r;
                    } else {
                        free(name);
                    }
                } else if (ts__json_skip(&j) != 0) {
                    goto out;
                }
            }
        }
    }
out:
    free(text);
    return found;
}

ts_status ts__remote_find_model(const char *url, const ts_open_options *o, char **out,
                                ts_error *err)
{
    *out = NULL;
    char *best = NULL;
    size_t rank = NCAND + 1, ggufs = 0;
    if (strncmp(url, "hf://", 5) == 0) {
        ts__url u;
        ts_status st = ts__url_resolve(url, &u, err);
        if (st)
            return st;
        int listed = from_listing(&u, o, &best, &rank, &ggufs);
        ts__url_free(&u);
        if (listed) {
            if (rank == NCAND && ggufs > 1) {
                free(best);
                return ts__error(err, TS_ERR_INVALID_ARG,
                                 "%s holds %zu GGUF files and no safetensors or PyTorch "
                                 "weights: name one (%s/FILE.gguf)", url, ggufs, url);
            }
            if (rank > NCAND) {
                free(best);
                return ts__error(err, TS_ERR_IO,
                                 "%s has no model weights tshape looks for (%s, %s, %s, %s "
                                 "or a .gguf file)", url, candidates[0], candidates[1],
                                 candidates[2], candidates[3]);
            }
            *out = ts__url_sibling(url, best);
            free(best);
            return *out ? TS_OK : ts__error(err, TS_ERR_NOMEM, "out of memory");
        }
    }
    /* No listing: ask for each usual name. */
    for (size_t i = 0; i < NCAND; i++) {
        char *c = ts__url_sibling(url, candidates[i]);
        if (!c)
            return ts__error(err, TS_ERR_NOMEM, "out of memory");
        uint64_t size;
        ts_error e;
        ts_status st = ts__remote_size(c, o, &size, &e);
        if (st == TS_OK) {
            *out = c;
            return TS_OK;
        }
        free(c);
        if (!ts__remote_missing(&e)) {
            if (err)
                *err = e;
            return st;
        }
    }
    return ts__error(err, TS_ERR_IO, "%s: none of %s, %s, %s, %s is there (and no file "
                     "listing to look further: name the file)", url, candidates[0],
                     candidates[1], candidates[2], candidates[3]);
}
