/* fuzz_file_onnx.c - the onnx reader on arbitrary bytes (format forced). */
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_file(data, size, TS_FORMAT_ONNX, 0);
    return 0;
}
