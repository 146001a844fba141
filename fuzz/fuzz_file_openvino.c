/* fuzz_file_openvino.c - the OpenVINO IR reader on arbitrary bytes (format
 * forced; the model is in memory, so its .bin is not looked for). libexpat
 * parses the XML: an XML bomb must be refused, never expanded. */
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_file(data, size, TS_FORMAT_OPENVINO, 0);
    return 0;
}
