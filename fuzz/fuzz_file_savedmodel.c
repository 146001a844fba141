/* fuzz_file_savedmodel.c - the SavedModel reader on arbitrary bytes (format
 * forced; the model is in memory, so its variables are not read). */
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_file(data, size, TS_FORMAT_SAVEDMODEL, 0);
    return 0;
}
