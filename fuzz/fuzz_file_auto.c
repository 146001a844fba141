/* fuzz_file_auto.c - format detection, then whichever reader it picks. */
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ts_format f = ts_format_detect(data, size);
    FUZZ_CHECK(f == TS_FORMAT_AUTO || ts_format_info_of(f) != NULL);
    FUZZ_CHECK(strcmp(ts_format_name(f), "unknown") != 0);
    fuzz_file(data, size, TS_FORMAT_AUTO, 0);
    return 0;
}
