/*
 * fuzz_jagged.c - ts_jagged_parse on arbitrary text; for every accepted
 * jagged shape: format -> parse -> format is a fixed point, rank/depth/size
 * are consistent, slices by indices taken from the input work or fail
 * cleanly, and a smooth shape round-trips through ts_jagged_smooth.
 *
 * fuzz-needs: ts_jagged_parse ts_jagged_free ts_jagged_format ts_jagged_rank ts_jagged_depth ts_jagged_size ts_jagged_slice ts_jagged_smooth
 */
/* Uses functions of the experimental part of tshape.h. */
#define TS_EXPERIMENTAL_API
#include "fuzz.h"

static char *format_jagged(const ts_jagged *j)
{
    size_t n = ts_jagged_format(j, NULL, 0);
    char *buf = malloc(n + 1);
    FUZZ_CHECK(buf != NULL);
    FUZZ_CHECK(ts_jagged_format(j, buf, n + 1) == n);
    FUZZ_CHECK(strlen(buf) == n);
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ts_jagged *j = (ts_jagged *)1;
    ts_error err;
    ts_status st = ts_jagged_parse((const char *)data, size, &j, &err);
    if (st != TS_OK) {
        fuzz_check_error(st, &err);
        FUZZ_CHECK(j == NULL);
        return 0;
    }
    FUZZ_CHECK(j != NULL);
    int rank = ts_jagged_rank(j), depth = ts_jagged_depth(j);
    FUZZ_CHECK(depth >= 0 && depth <= rank);
    int64_t total = -1;
    st = ts_jagged_size(j, &total, &err);
    if (st)
        fuzz_check_error(st, &err);
    else
        FUZZ_CHECK(total >= 0);

    /* canonical text is a fixed point */
    char *text = format_jagged(j);
    ts_jagged *k = NULL;
    st = ts_jagged_parse(text, strlen(text), &k, &err);
    FUZZ_CHECK(st == TS_OK);
    char *text2 = format_jagged(k);
    FUZZ_CHECK(strcmp(text, text2) == 0);
    FUZZ_CHECK(ts_jagged_rank(k) == rank && ts_jagged_depth(k) == depth);
    free(text2);
    ts_jagged_free(k);
    free(text);

    /* a slice by indices from the input bytes */
    int64_t index[4];
    int n = (int)(size % 5);
    for (int i = 0; i < n; i++)
        index[i] = size > (size_t)i ? data[i] % 4 : 0;
    ts_jagged *sl = (ts_jagged *)1;
    st = ts_jagged_slice(j, index, (size_t)n, &sl, &err);
    if (st == TS_OK) {
        FUZZ_CHECK(sl != NULL);
        FUZZ_CHECK(ts_jagged_rank(sl) <= rank);
        ts_jagged_free(sl);
    } else {
        fuzz_check_error(st, &err);
    }

    ts_shape smooth = TS_SHAPE_INIT;
    err.code = TS_OK;
    if (ts_jagged_smooth(j, &smooth, &err) == TS_OK) {
        FUZZ_CHECK(depth == 0);
        FUZZ_CHECK(ts_shape_ndim(&smooth) == rank);
        int64_t ssize;
        if (ts_shape_size(&smooth, &ssize, &err) == TS_OK && total >= 0)
            FUZZ_CHECK(ssize == total);
    } else {
        FUZZ_CHECK((depth > 0 && err.code == TS_ERR_NDIM) || err.code == TS_ERR_NOMEM);
    }
    ts_shape_free(&smooth);
    ts_jagged_free(j);
    return 0;
}
