/*
 * lazylib.h - shared libraries loaded on first use (internal).
 *
 * A command that reads no zip member, parses no JSON through jansson and
 * takes no complex magnitude (`tshape size`, `broadcast`, ...) should not pay
 * the dynamic loader for libz, libjansson and libm at start-up (issue 28:
 * start-up at most 1.2x /bin/true). The library therefore links none of
 * them: zlib_lazy.h and jansson_lazy.h turn the calls into calls of the
 * functions below, which dlopen the library once per process (thread-safe)
 * and call through the pointers dlsym gave. The headers are the
 * libraries' own, so types, constants and macros are unchanged.
 *
 * When a library cannot be loaded (it is a dependency of the package, so
 * only a broken installation gets there): zlib's inflateInit2_ returns
 * Z_VERSION_ERROR (callers report that inflate cannot start), crc32 and
 * crc32_combine compute the same values in plain C (ts__crc32_soft and
 * ts__crc32_combine_soft); jansson's constructors and parsers return NULL
 * (json_loadb and json_loads name the missing library in error->text);
 * hypot is computed in long double.
 */
#ifndef TSHAPE_LAZYLIB_H
#define TSHAPE_LAZYLIB_H

#include <stddef.h>
#include <stdint.h>

/* Loads every library above now (each once per process): for a child
 * process that will be forbidden to open files (sandbox.c). */
void ts__lazylib_preload(void);

/* hypot(x, y) of libm (C11 7.12.7.3), libm loaded on first use. */
double ts__hypot(double x, double y);

/* zip's CRC-32 (ISO 3309, as zlib's crc32) of p[0..n) carried on from crc,
 * in plain C; and zlib's crc32_combine: the CRC of A then B from A's CRC,
 * B's CRC and B's length in bytes. The fallbacks of zlib_lazy.h, exported
 * for the tests that compare them with zlib. */
uint32_t ts__crc32_soft(uint32_t crc, const unsigned char *p, size_t n);
uint32_t ts__crc32_combine_soft(uint32_t crc1, uint32_t crc2, uint64_t len2);

/* zip's CRC-32 (the same values as zlib's crc32) of p[0..n) carried on from
 * crc (0 for the bytes alone), n of any size: ISA-L's crc32_gzip_refl when
 * libisal.so.2 can be loaded (Debian libisal2: AVX-512 carry-less multiply
 * where the CPU has it, 1 GiB in 0.024 s here), else libdeflate's
 * libdeflate_crc32 when libdeflate.so.0 can be (Debian libdeflate0: 0.074
 * s), else zlib's crc32 (lazy, in steps of 1 GiB; 0.25 s). Loaded once per
 * process, thread-safe. */
uint32_t ts__crc32_fast(uint32_t crc, const unsigned char *p, size_t n);

/* liburing (Debian liburing2), for reading a folder's small files in
 * batches (src/formats/source_batch.c): its four functions that are not
 * inline in liburing.h, loaded on first use; without the library they
 * return -ENOSYS (queue_exit does nothing). Built only where liburing.h
 * is (TS_HAVE_LIBURING). */
#if defined(__has_include)
#if __has_include(<liburing.h>)
#define TS_HAVE_LIBURING 1
#endif
#endif
#ifndef TS_HAVE_LIBURING
#define TS_HAVE_LIBURING 0
#endif
#if TS_HAVE_LIBURING
#include <liburing.h>
int ts__uring_queue_init_params(unsigned entries, struct io_uring *ring,
                                struct io_uring_params *p);
void ts__uring_queue_exit(struct io_uring *ring);
int ts__uring_register_files_sparse(struct io_uring *ring, unsigned nr);
int ts__uring_submit_and_wait(struct io_uring *ring, unsigned wait_nr);
#endif

/* Adds p[0..n) to the XXH3-64 hash of xxHash 0.8 kept in state (an
 * XXH3_state_t, void * here because XXH_INLINE_ALL renames the type in each
 * file that includes xxhash.h) set up by xxhash.h's XXH3_64bits_reset and
 * read by XXH3_64bits_digest: the same as xxhash.h's XXH3_64bits_update,
 * through XXH3_64bits_update_dispatch of libxxhash.so.0 (Debian libxxhash0)
 * when that library is the headers' version, which takes the AVX2 or
 * AVX-512 code the CPU has (1 GiB in 0.024 s against 0.055 for the SSE2
 * code xxhash.h compiles to here), else with the headers' code. Loaded once
 * per process, thread-safe. */
void ts__xxh3_update(void *state, const void *p, size_t n);

#endif
