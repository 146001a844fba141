/*
 * fuzz_shape_parse.c - ts_shape_parse on arbitrary text, then on every shape
 * it accepts: format -> parse round trips (tuple and list styles), size,
 * prod, flat2d, flat3d with axes taken from the input, get, and save/load
 * round trips in both binary layouts; and ts_shape_load on the raw bytes.
 */
#include "fuzz.h"

static void check_shape(const ts_shape *s, const uint8_t *data, size_t size)
{
    ts_error err;
    ts_status st;
    int n = ts_shape_ndim(s);
    FUZZ_CHECK(n >= 0 && n <= TS_MAX_NDIM);

    /* text round trips */
    static const unsigned styles[] = {0, TS_SHAPE_PRINT_LIST, TS_SHAPE_PRINT_SPACES,
                                      TS_SHAPE_PRINT_LIST | TS_SHAPE_PRINT_SPACES};
    for (size_t i = 0; i < sizeof styles / sizeof *styles; i++) {
        char *text = fuzz_format(s, styles[i]);
        ts_shape back = TS_SHAPE_INIT;
        st = ts_shape_parse(text, strlen(text), TS_PARSE_ALLOW_NEGATIVE, &back, NULL, &err);
        FUZZ_CHECK(st == TS_OK);
        FUZZ_CHECK(ts_shape_equal(&back, s));
        ts_shape_free(&back);
        free(text);
    }

    int64_t total = -1, two[2], three[3], p;
    st = ts_shape_size(s, &total, &err);
    if (st)
        fuzz_check_error(st, &err);
    else
        FUZZ_CHECK(total >= 0);
    st = ts_shape_flat2d(s, two, &err);
    if (st == TS_OK && total >= 0) {
        FUZZ_CHECK(two[0] >= 0 && two[1] >= 0);
        FUZZ_CHECK(total == 0 || (!__builtin_mul_overflow(two[0], two[1], &p) && p == total));
    } else if (st) {
        fuzz_check_error(st, &err);
    }
    /* axes from the input bytes, possibly negative or out of range */
    int64_t b = size > 0 ? (int8_t)data[0] % 70 : 0;
    int64_t e = size > 1 ? (int8_t)data[size - 1] % 70 : 0;
    st = ts_shape_flat3d(s, b, e, three, &err);
    if (st == TS_OK && total > 0)
        FUZZ_CHECK(!__builtin_mul_overflow(three[0], three[1], &p) &&
                   !__builtin_mul_overflow(p, three[2], &p) && p == total);
    else if (st)
        fuzz_check_error(st, &err);
    st = ts_shape_prod(s, b, e, &p, &err);
    if (st)
        fuzz_check_error(st, &err);
    st = ts_shape_prod(s, 0, n, &p, &err);
    if (st == TS_OK && total >= 0)
        FUZZ_CHECK(p == total);
    int64_t dims[TS_MAX_NDIM];
    st = ts_shape_get(s, n, dims, &err);
    FUZZ_CHECK(st == TS_OK);
    if (n)
        FUZZ_CHECK(memcmp(dims, ts_shape_dims(s), (size_t)n * sizeof *dims) == 0);
    st = ts_shape_get(s, n + 1, dims, &err);
    FUZZ_CHECK(st == TS_ERR_NDIM);
    fuzz_check_error(st, &err);

    /* binary round trips */
    for (int layout = TS_LAYOUT_MSHADOW; layout <= TS_LAYOUT_MXNET; layout++) {
        size_t need = 0, used = 0;
        st = ts_shape_save(s, (ts_shape_layout)layout, NULL, 0, &need, &err);
        if (st != TS_ERR_LIMIT && st != TS_OK) {
            fuzz_check_error(st, &err);
            continue;
        }
        unsigned char *buf = malloc(need ? need : 1);
        FUZZ_CHECK(buf != NULL);
        st = ts_shape_save(s, (ts_shape_layout)layout, buf, need, &used, &err);
        if (st == TS_OK) {
            FUZZ_CHECK(used == need);
            ts_shape back = TS_SHAPE_INIT;
            size_t consumed = 0;
            st = ts_shape_load(buf, used, (ts_shape_layout)layout, &back, &consumed, &err);
            FUZZ_CHECK(st == TS_OK);
            FUZZ_CHECK(consumed == used);
            FUZZ_CHECK(ts_shape_equal(&back, s));
            ts_shape_free(&back);
            /* every truncation of a saved shape is refused */
            if (used > 0) {
                st = ts_shape_load(buf, used - 1, (ts_shape_layout)layout, &back, NULL, &err);
                FUZZ_CHECK(st != TS_OK);
                fuzz_check_error(st, &err);
                ts_shape_free(&back);
            }
        } else {
            fuzz_check_error(st, &err);
        }
        free(buf);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const unsigned flags[] = {0, TS_PARSE_ALLOW_NEGATIVE};
    ts_error err;
    for (size_t i = 0; i < 2; i++) {
        ts_shape s = TS_SHAPE_INIT;
        /* not NUL-terminated: the parser must respect len */
        ts_status st = ts_shape_parse((const char *)data, size, flags[i], &s, NULL, &err);
        if (st == TS_OK)
            check_shape(&s, data, size);
        else
            fuzz_check_error(st, &err);
        /* prefix mode */
        size_t consumed = (size_t)-1;
        st = ts_shape_parse((const char *)data, size, flags[i], &s, &consumed, &err);
        if (st == TS_OK)
            FUZZ_CHECK(consumed <= size);
        else
            fuzz_check_error(st, &err);
        ts_shape_free(&s);
    }
    /* the raw bytes as a saved shape */
    for (int layout = TS_LAYOUT_MSHADOW; layout <= TS_LAYOUT_MXNET; layout++) {
        ts_shape s = TS_SHAPE_INIT;
        size_t consumed = (size_t)-1;
        ts_status st = ts_shape_load(data, size, (ts_shape_layout)layout, &s, &consumed, &err);
        if (st == TS_OK) {
            FUZZ_CHECK(consumed <= size);
            char *text = fuzz_format(&s, 0);
            free(text);
        } else {
            fuzz_check_error(st, &err);
        }
        ts_shape_free(&s);
    }
    return 0;
}
