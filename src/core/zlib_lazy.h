/*
 * zlib_lazy.h - zlib, loaded with dlopen on first use (see lazylib.h).
 * Include it instead of <zlib.h>: every zlib function the library calls is
 * routed through src/core/lazylib.c. Function-like macros, so fields named
 * crc32 are left alone.
 */
#ifndef TSHAPE_ZLIB_LAZY_H
#define TSHAPE_ZLIB_LAZY_H

#include <zlib.h>

#include "lazylib.h"

uLong ts__z_crc32(uLong crc, const Bytef *buf, uInt len);
uLong ts__z_crc32_combine(uLong crc1, uLong crc2, z_off_t len2);
int ts__z_inflate(z_streamp strm, int flush);
int ts__z_inflateEnd(z_streamp strm);
int ts__z_inflateInit2_(z_streamp strm, int window_bits, const char *version, int stream_size);

#undef crc32
#undef crc32_combine
#undef inflate
#undef inflateEnd
#undef inflateInit2_
#define crc32(c, p, n) ts__z_crc32((c), (p), (n))
#define crc32_combine(a, b, n) ts__z_crc32_combine((a), (b), (n))
#define inflate(s, f) ts__z_inflate((s), (f))
#define inflateEnd(s) ts__z_inflateEnd((s))
#define inflateInit2_(s, w, v, n) ts__z_inflateInit2_((s), (w), (v), (n))

#endif
