/* fuzz_file_safetensors.c - the safetensors reader on arbitrary bytes (format forced). */
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_file(data, size, TS_FORMAT_SAFETENSORS, 0);
    return 0;
}
