/* fuzz_file_tflite.c - the tflite reader on arbitrary bytes (format forced). */
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_file(data, size, TS_FORMAT_TFLITE, 0);
    return 0;
}
