/* fuzz_file_tshape32.c - the tshape32 reader on arbitrary bytes (format forced). */
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_file(data, size, TS_FORMAT_TSHAPE32, 0);
    return 0;
}
