/* fuzz_file_npz.c - the npz reader on arbitrary bytes (format forced). */
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_file(data, size, TS_FORMAT_NPZ, 0);
    return 0;
}
