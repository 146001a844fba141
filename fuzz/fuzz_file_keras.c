/* fuzz_file_keras.c - the Keras 3 .keras reader on arbitrary bytes (format
 * forced): the zip directory (zip.c), the member checks and the JSON members
 * in tshape's process (src/formats/keras.c), then model.weights.h5 through
 * the HDF5 reader, whose libhdf5 calls run in the isolated child (see
 * fuzz_file_hdf5.c): its faults are counted and printed at exit as
 * libhdf5's, never this process's. */
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_report_children_at_exit("fuzz_file_keras");
    fuzz_file(data, size, TS_FORMAT_KERAS, 0);
    return 0;
}
