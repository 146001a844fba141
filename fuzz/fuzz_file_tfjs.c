/* fuzz_file_tfjs.c - the tfjs reader on arbitrary bytes (format forced; the
 * model is in memory, so its shards are not looked for). */
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_file(data, size, TS_FORMAT_TFJS, 0);
    return 0;
}
