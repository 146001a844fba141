/* tshape_raw.c - raw TShape::Save binaries (not yet implemented). */
#include "reader.h"

static ts_status read_raw(ts_file *f, const unsigned char *data, size_t len,
                          const ts_open_options *opts, ts_error *err)
{
    (void)f; (void)data; (void)len; (void)opts;
    return ts__error(err, TS_ERR_UNSUPPORTED, "the raw TShape reader is not implemented yet");
}

const ts__reader ts__reader_tshape32 = {TS_FORMAT_TSHAPE32, NULL, read_raw};
const ts__reader ts__reader_tshape64 = {TS_FORMAT_TSHAPE64, NULL, read_raw};
