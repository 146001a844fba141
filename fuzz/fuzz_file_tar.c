/* fuzz_file_tar.c - the tar reader (.npy members) on arbitrary bytes
 * (format forced). */
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_file(data, size, TS_FORMAT_TAR, 0);
    return 0;
}
