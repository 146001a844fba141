/* fuzz_file_hdf5.c - the hdf5 reader on arbitrary bytes (format forced): the
 * superblock checks here, then libhdf5 (not instrumented: a crash inside it
 * is libhdf5's, reported upstream rather than fixed here). */
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_file(data, size, TS_FORMAT_HDF5, 0);
    return 0;
}
