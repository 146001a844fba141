/* fuzz_file_hdf5.c - the hdf5 reader on arbitrary bytes (format forced): the
 * superblock checks in src/formats/hdf5.c, then libhdf5 on the image, which
 * runs in its isolated child process (src/formats/hdf5_child.c,
 * sandbox.c): what this harness checks in tshape's process is the parent's
 * side, every record the child sends rebuilt and checked, and that a
 * failure of the child is one clean error. libhdf5 1.10.8 crashes, loops and
 * allocates what corrupted metadata says (H5HG_read, H5C_protect,
 * H5F__accum_read, H5VM_memcpyvv, H5B_find: man page BUGS); those now end
 * the child, never this process. They are counted, by how the child
 * ended, and printed at exit as libhdf5's ("died of signal": a fault in
 * libhdf5, or a forbidden system call; "exit status 1": a sanitizer report
 * in the child, which may be libhdf5's memcpy or free caught by ASan's
 * interceptors, or tshape's listing code, which runs in the child too;
 * "stopped answering": a hang). */
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_report_children_at_exit("fuzz_file_hdf5");
    fuzz_file(data, size, TS_FORMAT_HDF5, 0);
    return 0;
}
