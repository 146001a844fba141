/* fuzz_file_caffe.c - the caffe reader on arbitrary bytes (format forced). */
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_file(data, size, TS_FORMAT_CAFFE, 0);
    return 0;
}
