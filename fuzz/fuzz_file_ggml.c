/* fuzz_file_ggml.c - the GGML-era llama.cpp reader (ggml, ggmf, ggjt, ggla)
 * on arbitrary bytes (format forced). */
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_file(data, size, TS_FORMAT_GGML, 0);
    return 0;
}
