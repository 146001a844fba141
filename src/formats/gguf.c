/* gguf.c - reader for the gguf format (not yet implemented). */
#include "reader.h"

static ts_status read_gguf(ts_file *f, const unsigned char *data, size_t len,
                          const ts_open_options *opts, ts_error *err)
{
    (void)f; (void)data; (void)len; (void)opts;
    return ts__error(err, TS_ERR_UNSUPPORTED, "the gguf reader is not implemented yet");
}

const ts__reader ts__reader_gguf = {TS_FORMAT_GGUF, NULL, read_gguf};
