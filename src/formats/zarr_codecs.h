/*
 * zarr_codecs.h - Zarr's zstd and blosc chunk compressors through their
 * libraries, loaded with dlopen when first needed (zarr_codecs.c).
 */
#ifndef TSHAPE_ZARR_CODECS_H
#define TSHAPE_ZARR_CODECS_H

#include "../core/internal.h"

/*
 * Decompresses the chunk src (n bytes) compressed with codec "zstd" (a zstd
 * frame, numcodecs Zstd and the Zarr v3 zstd codec) or "blosc" (a c-blosc 1
 * buffer, numcodecs Blosc and the v3 blosc codec) into dst (cap bytes);
 * *out receives the bytes written. Errors: TS_ERR_UNSUPPORTED (another
 * codec, or its library cannot be loaded: the message names the Debian
 * package), TS_ERR_FORMAT (the library refuses the chunk, or a blosc
 * header whose sizes do not match the chunk).
 */
ts_status ts__zarr_decompress(const char *codec, const void *src, size_t n, void *dst,
                              size_t cap, size_t *out, ts_error *err);

#endif
