/*
 * fuzz_dtype.c - dtype spellings: ts_descr_parse and ts_dtype_from_string on
 * arbitrary text, ts_descr_format round trips, and the DLPack dtype mapping
 * on the first four bytes read as a DLDataType.
 */
/* Uses functions of the experimental part of tshape.h. */
#define TS_EXPERIMENTAL_API
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_strndup(data, size);
    ts_error err;
    ts_descr d;
    ts_status st = ts_descr_parse(text, &d, &err);
    if (st == TS_OK) {
        FUZZ_CHECK(d.itemsize >= 0);
        FUZZ_CHECK(strcmp(ts_dtype_name(d.dtype), "unknown") != 0);
        char buf[64];
        size_t n = ts_descr_format(d.dtype, d.byteorder == '>' ? '>' : '<', buf, sizeof buf);
        if (n > 0) {
            ts_descr again;
            FUZZ_CHECK(n < sizeof buf);
            FUZZ_CHECK(ts_descr_parse(buf, &again, &err) == TS_OK);
            FUZZ_CHECK(again.dtype == d.dtype);
        }
    } else {
        fuzz_check_error(st, &err);
    }
    ts_dtype dt;
    st = ts_dtype_from_string(text, &dt, &err);
    if (st == TS_OK)
        FUZZ_CHECK(dt >= 0 && dt < TS_DTYPE_COUNT);
    else
        fuzz_check_error(st, &err);

    if (size >= 4) {
        ts_dlpack_dtype dl = {data[0], data[1], (uint16_t)(data[2] | data[3] << 8)};
        st = ts_dtype_from_dlpack(dl, &dt, &err);
        if (st == TS_OK) {
            ts_dlpack_dtype back;
            FUZZ_CHECK(ts_dtype_to_dlpack(dt, &back, &err) == TS_OK);
            FUZZ_CHECK(back.code == dl.code && back.bits == dl.bits && back.lanes == dl.lanes);
        } else {
            fuzz_check_error(st, &err);
        }
    }
    free(text);
    return 0;
}
