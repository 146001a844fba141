/* fuzz_file_darknet.c - the Darknet .weights reader (format forced) with
 * its cfg: the input is the cfg's text, a line "%%", then the weights
 * (bench/fuzz.sh joins each fixture's .cfg and .weights so); without the
 * separator the whole input is the weights and there is no cfg. */
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char sep[] = "\n%%\n";
    size_t at = size;
    for (size_t i = 0; i + 4 <= size; i++)
        if (memcmp(data + i, sep, 4) == 0) {
            at = i;
            break;
        }
    if (at < size) {
        ts__darknet_test_cfg = (const char *)data;
        ts__darknet_test_cfg_len = at;
        fuzz_file(data + at + 4, size - at - 4, TS_FORMAT_DARKNET, 0);
    } else {
        ts__darknet_test_cfg = NULL;
        fuzz_file(data, size, TS_FORMAT_DARKNET, 0);
    }
    ts__darknet_test_cfg = NULL;
    return 0;
}
