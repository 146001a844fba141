/* fuzz_protobuf.c - the protobuf wire-format walker (src/formats/protobuf.c)
 * on arbitrary bytes: every length-delimited field is also walked as a
 * sub-message, recursively up to the walker's depth bound, and packed
 * varint lists and dims are decoded. Checks: every field lies inside its
 * message, the walk always advances, errors are clean one-line reports. */
#include "fuzz.h"

#include "../src/formats/protobuf.h"

static size_t fields_seen;

static void walk(const ts__pb_msg *m0, size_t size)
{
    ts__pb_msg m = *m0;
    ts__pb_field f;
    ts_error err;
    int k;
    size_t last = m.pos;
    while ((k = ts__pb_next(&m, &f, &err)) > 0) {
        fields_seen++;
        FUZZ_CHECK(m.pos > last || f.len == 0);
        FUZZ_CHECK(m.pos <= m.end && m.end <= size);
        FUZZ_CHECK(f.pos <= size && f.len <= size - f.pos);
        FUZZ_CHECK(f.key_pos >= m0->pos && f.pos + f.len <= m.end);
        FUZZ_CHECK(f.number > 0 && (f.wire == 0 || f.wire == 1 || f.wire == 2 || f.wire == 5));
        last = m.pos;
        if (f.wire != TS__PB_LEN)
            continue;
        int64_t n;
        if (ts__pb_count_varints(&m, &f, &n, &err) == TS_OK)
            FUZZ_CHECK(n >= 0 && (uint64_t)n <= f.len);
        else
            fuzz_check_error(err.code, &err);
        int64_t dims[TS_MAX_NDIM];
        int ndim = 0;
        if (ts__pb_dims(&m, &f, dims, &ndim, "dims", &err) == TS_OK)
            FUZZ_CHECK(ndim >= 0 && ndim <= TS_MAX_NDIM);
        else
            fuzz_check_error(err.code, &err);
        ts__pb_msg child;
        ts_status st = ts__pb_sub(&m, &f, &child, &err);
        if (st == TS_OK) {
            FUZZ_CHECK(child.depth == m.depth + 1 && child.depth <= TS__PB_MAX_DEPTH);
            walk(&child, size);
        } else {
            fuzz_check_error(st, &err);
        }
    }
    if (k < 0) {
        FUZZ_CHECK(m.status != TS_OK);
        fuzz_check_error(m.status, &err);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ts__pb_msg m;
    ts__pb_init(&m, data, size);
    fields_seen = 0;
    walk(&m, size);
    /* the same with a NULL error report */
    ts__pb_field f;
    ts__pb_init(&m, data, size);
    while (ts__pb_next(&m, &f, NULL) > 0)
        ;
    return 0;
}
