/*
 * fuzz_einsum.c - ts_einsum_shape: the first line of the input is the
 * subscripts, each further line an operand shape (up to 8; lines that do not
 * parse as shapes are skipped).
 *
 * fuzz-needs: ts_einsum_shape
 */
/* Uses functions of the experimental part of tshape.h. */
#define TS_EXPERIMENTAL_API
#include "fuzz.h"

#define MAX_OPERANDS 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *rest;
    size_t rest_len;
    size_t head = fuzz_split(data, size, '\n', &rest, &rest_len);
    char *subscripts = fuzz_strndup(data, head);
    ts_shape ops[MAX_OPERANDS];
    int n = 0;
    ts_error err;
    while (rest_len > 0 && n < MAX_OPERANDS) {
        const uint8_t *line = rest;
        size_t len = fuzz_split(line, rest_len, '\n', &rest, &rest_len);
        ts_shape_init(&ops[n]);
        if (ts_shape_parse((const char *)line, len, 0, &ops[n], NULL, &err) == TS_OK)
            n++;
        else
            ts_shape_free(&ops[n]);
    }
    ts_shape out = TS_SHAPE_INIT;
    ts_status st = ts_einsum_shape(subscripts, ops, n, &out, &err);
    if (st == TS_OK) {
        FUZZ_CHECK(ts_shape_ndim(&out) >= 0 && ts_shape_ndim(&out) <= TS_MAX_NDIM);
        char *text = fuzz_format(&out, 0);
        free(text);
    } else {
        fuzz_check_error(st, &err);
    }
    ts_shape_free(&out);
    for (int i = 0; i < n; i++)
        ts_shape_free(&ops[i]);
    free(subscripts);
    return 0;
}
