/* fuzz_file_hdf5.c - the hdf5 reader on arbitrary bytes (format forced): the
 * superblock checks in src/formats/hdf5.c, then libhdf5 on the image (core
 * driver). libhdf5 is not instrumented; what this finds inside it is
 * libhdf5's: with 1.10.8, allocation sizes taken from corrupted metadata
 * (H5C_protect, "allocation-size-too-big" under ASan's limit) and small
 * leaks on its error paths (H5Fopen / H5Lvisit failing). Run it with
 * -detect_leaks=0 to look past those for faults in tshape's own code. */
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_file(data, size, TS_FORMAT_HDF5, 0);
    return 0;
}
