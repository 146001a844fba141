/* fuzz_file_mxnet.c - the mxnet reader on arbitrary bytes (format forced). */
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_file(data, size, TS_FORMAT_MXNET, 0);
    return 0;
}
