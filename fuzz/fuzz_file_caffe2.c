/* fuzz_file_caffe2.c - the caffe2 reader on arbitrary bytes (format forced). */
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_file(data, size, TS_FORMAT_CAFFE2, 0);
    return 0;
}
