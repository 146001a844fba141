/* mxnet.c - reader for the mxnet format (not yet implemented). */
#include "reader.h"

static ts_status read_mxnet(ts_file *f, const unsigned char *data, size_t len,
                          const ts_open_options *opts, ts_error *err)
{
    (void)f; (void)data; (void)len; (void)opts;
    return ts__error(err, TS_ERR_UNSUPPORTED, "the mxnet reader is not implemented yet");
}

const ts__reader ts__reader_mxnet = {TS_FORMAT_MXNET, NULL, read_mxnet};
