/* fuzz_file_coreml.c - the Core ML reader on arbitrary bytes (format forced;
 * the model is in memory, so weights/weight.bin is not looked for: its
 * blob references are noted, not read). */
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_file(data, size, TS_FORMAT_COREML, 0);
    return 0;
}
