/* fuzz_file_hdf5.c - the hdf5 reader on arbitrary bytes (format forced): the
 * superblock checks in src/formats/hdf5.c, then libhdf5 on the image (core
 * driver). libhdf5 is not instrumented; what this finds inside it is
 * libhdf5's: with 1.10.8, allocation sizes taken from corrupted metadata
 * (H5C_protect, "allocation-size-too-big" under ASan's limit), a heap
 * over-read in H5MM_xstrdup (object header messages), a wild memcpy in
 * H5HG_read when a variable-length attribute points into a corrupted global
 * heap, and small leaks on its error paths (suppressed for LeakSanitizer by
 * src/formats/hdf5.c). Run it with -detect_leaks=0 and
 * ASAN_OPTIONS=allocator_may_return_null=1 (bench/fuzz.sh does) to look past
 * those for faults in tshape's own code; variable-length string attributes
 * are not read (ts__hdf5_skip_vlen_attrs), so H5HG_read's fault does not
 * stop every run within seconds. */
#include "fuzz_file.h"

extern int ts__hdf5_skip_vlen_attrs;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ts__hdf5_skip_vlen_attrs = 1;
    fuzz_file(data, size, TS_FORMAT_HDF5, 0);
    return 0;
}
