/* fuzz_file_pickle.c - the plain pickle reader (pickle.dump, joblib.dump,
 * paddle.save) on arbitrary bytes, format forced: the machine's opcodes of
 * every protocol, inert placeholders, NumPy arrays, scalars and dtypes
 * read from the tree, joblib's array bytes after BUILD. */
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_file(data, size, TS_FORMAT_PICKLE, 0);
    return 0;
}
