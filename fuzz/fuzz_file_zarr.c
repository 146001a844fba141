/* fuzz_file_zarr.c - the Zarr metadata reader (.zarray, zarr.json; format
 * forced) on arbitrary bytes: the JSON scanner, shape, chunks, dtype,
 * codecs and fill value. Read from memory, it has no chunk files. */
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_file(data, size, TS_FORMAT_ZARR, 0);
    return 0;
}
