/* fuzz_file_gguf.c - the gguf reader on arbitrary bytes (format forced). */
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_file(data, size, TS_FORMAT_GGUF, 0);
    fuzz_file(data, size, TS_FORMAT_GGUF, 1); /* dims innermost first */
    return 0;
}
