/* safetensors.c - reader for the safetensors format (not yet implemented). */
#include "reader.h"

static ts_status read_safetensors(ts_file *f, const unsigned char *data, size_t len,
                          const ts_open_options *opts, ts_error *err)
{
    (void)f; (void)data; (void)len; (void)opts;
    return ts__error(err, TS_ERR_UNSUPPORTED, "the safetensors reader is not implemented yet");
}

const ts__reader ts__reader_safetensors = {TS_FORMAT_SAFETENSORS, NULL, read_safetensors};
