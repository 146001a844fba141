/* npy.c - reader for the npy format (not yet implemented). */
#include "reader.h"

static ts_status read_npy(ts_file *f, const unsigned char *data, size_t len,
                          const ts_open_options *opts, ts_error *err)
{
    (void)f; (void)data; (void)len; (void)opts;
    return ts__error(err, TS_ERR_UNSUPPORTED, "the npy reader is not implemented yet");
}

const ts__reader ts__reader_npy = {TS_FORMAT_NPY, NULL, read_npy};
