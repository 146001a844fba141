/* fuzz_file_tfckpt.c - the TensorFlow checkpoint reader on arbitrary bytes
 * (format forced; the index is in memory, so its data shards are not looked
 * for, and every entry is read). */
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_file(data, size, TS_FORMAT_TFCKPT, 0);
    return 0;
}
