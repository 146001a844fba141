/* fuzz_file_tshape64.c - the tshape64 reader on arbitrary bytes (format forced). */
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_file(data, size, TS_FORMAT_TSHAPE64, 0);
    return 0;
}
