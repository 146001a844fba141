/* fuzz_file_executorch.c - the ExecuTorch reader on arbitrary bytes (format
 * forced): the FlatBuffers walk, the extended header, segment offsets. */
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_file(data, size, TS_FORMAT_EXECUTORCH, 0);
    return 0;
}
