/* fuzz_file_pytorch.c - the PyTorch reader (zip, legacy, TorchScript) on
 * arbitrary bytes, format forced: the zip directory, the pickle machine, the
 * allowlist, the tree walk, storages and geometry. */
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_file(data, size, TS_FORMAT_PYTORCH, 0);
    return 0;
}
