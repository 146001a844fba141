/*
 * fuzz_einops.c - einops patterns: byte 0 picks the operation (rearrange,
 * reduce, repeat), the first line after it is the pattern, the second the
 * input shape, each further line "name=size" an axis length (up to 8). Runs
 * ts_einops_compile + ts_einops_apply, the one-shot ts_einops_shape (which
 * must agree), and ts_einops_parse_shape of the pattern's left side.
 *
 * fuzz-needs: ts_einops_compile ts_einops_apply ts_einops_free ts_einops_shape ts_einops_parse_shape
 */
/* Uses functions of the experimental part of tshape.h. */
#define TS_EXPERIMENTAL_API
#include "fuzz.h"

#include <inttypes.h>

#define MAX_SIZES 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    ts_einops_op op = (ts_einops_op)(data[0] % 3);
    const uint8_t *rest;
    size_t rest_len;
    size_t plen = fuzz_split(data + 1, size - 1, '\n', &rest, &rest_len);
    char *pattern = fuzz_strndup(data + 1, plen);
    const uint8_t *line = rest;
    size_t slen = fuzz_split(line, rest_len, '\n', &rest, &rest_len);
    ts_shape in = TS_SHAPE_INIT;
    ts_error err;
    int have_shape = ts_shape_parse((const char *)line, slen, 0, &in, NULL, &err) == TS_OK;

    ts_axis_size sizes[MAX_SIZES];
    char *names[MAX_SIZES];
    int nsizes = 0;
    while (rest_len > 0 && nsizes < MAX_SIZES) {
        line = rest;
        size_t len = fuzz_split(line, rest_len, '\n', &rest, &rest_len);
        char *text = fuzz_strndup(line, len);
        char *eq = strchr(text, '=');
        if (!eq) {
            free(text);
            continue;
        }
        *eq = '\0';
        names[nsizes] = text;
        sizes[nsizes].name = text;
        sizes[nsizes].name_len = strlen(text);
        sizes[nsizes].size = strtoll(eq + 1, NULL, 10);
        nsizes++;
    }

    ts_einops *e = (ts_einops *)1;
    ts_status st = ts_einops_compile(op, pattern, sizes, nsizes, &e, &err);
    if (st == TS_OK) {
        FUZZ_CHECK(e != NULL);
        if (have_shape) {
            ts_shape out = TS_SHAPE_INIT, out2 = TS_SHAPE_INIT;
            ts_status st1 = ts_einops_apply(e, &in, &out, &err);
            if (st1)
                fuzz_check_error(st1, &err);
            ts_status st2 = ts_einops_shape(op, pattern, &in, sizes, nsizes, &out2, &err);
            if (st2)
                fuzz_check_error(st2, &err);
            FUZZ_CHECK(st1 == st2);
            if (st1 == TS_OK)
                FUZZ_CHECK(ts_shape_equal(&out, &out2));
            ts_shape_free(&out);
            ts_shape_free(&out2);
        }
        ts_einops_free(e);
    } else {
        fuzz_check_error(st, &err);
        FUZZ_CHECK(e == NULL);
    }

    if (have_shape) {
        /* parse_shape takes one side: the text before "->", if any */
        char *arrow = strstr(pattern, "->");
        if (arrow)
            *arrow = '\0';
        ts_axis_size axes[TS_MAX_NDIM];
        size_t count = (size_t)-1;
        st = ts_einops_parse_shape(pattern, &in, axes, &count, &err);
        if (st == TS_OK) {
            FUZZ_CHECK(count <= TS_MAX_NDIM);
            for (size_t i = 0; i < count; i++) {
                FUZZ_CHECK(axes[i].name >= pattern &&
                           axes[i].name + axes[i].name_len <= pattern + strlen(pattern));
                FUZZ_CHECK(axes[i].size >= 0);
            }
        } else {
            fuzz_check_error(st, &err);
        }
    }
    ts_shape_free(&in);
    for (int i = 0; i < nsizes; i++)
        free(names[i]);
    free(pattern);
    return 0;
}
