/*
 * zip.h - the zip archives inside npz and PyTorch files: one reading of the
 * central directory (APPNOTE.TXT 4.3), and the first bytes of a member.
 *
 * Readers need what a zip library does not give: where a stored member's
 * bytes start in the file (its local header offset plus that header's own
 * name and extra lengths), so that data_offset can point at the data. So the
 * directory is read here, once, with bounded reads; the same reading gives
 * names, sizes and methods, so two directory readings can never disagree
 * (an archive with two end records used to get its header from one and its
 * offset from the other). Deflated members are inflated with zlib, and only
 * as far as a reader asks: a zip bomb costs nothing.
 */
#ifndef TSHAPE_ZIP_H
#define TSHAPE_ZIP_H

#include "reader.h"

typedef struct ts__zip ts__zip;

#define TS__ZIP_STORED 0
#define TS__ZIP_DEFLATED 8

typedef struct ts__zip_member {
    const char *name;        /* as stored (NUL-terminated; names with a NUL
                                byte are rejected) */
    uint64_t size;           /* uncompressed bytes, from the central directory */
    uint64_t comp_size;      /* bytes it occupies in the file */
    int method;              /* TS__ZIP_STORED, TS__ZIP_DEFLATED or another */
    int64_t local_offset;    /* its local header */
    int64_t data_offset;     /* absolute offset of its (compressed) bytes */
    uint32_t crc32;          /* CRC-32 of the uncompressed bytes, from the
                                central directory */
    int flags;               /* general-purpose bit flags, from the central
                                directory */
} ts__zip_member;

/*
 * Reads the central directory of the archive data[0..len). Every offset and
 * size is checked against len; a stored member must occupy exactly its size;
 * a deflated one cannot declare more than 1032 bytes per compressed byte (the
 * most deflate can expand). Errors: TS_ERR_FORMAT, TS_ERR_TRUNCATED,
 * TS_ERR_UNSUPPORTED (multi-disk), TS_ERR_NOMEM; messages name the entry and
 * err->offset its byte. The archive's memory is scratch memory of f (see
 * reader.h): freed by ts__zip_close, or by f when a fault ends the reader.
 */
ts_status ts__zip_open(ts__zip **out, ts_file *f, const unsigned char *data, size_t len,
                       ts_error *err);
void ts__zip_close(ts_file *f, ts__zip *z);

size_t ts__zip_count(const ts__zip *z);
const ts__zip_member *ts__zip_member_at(const ts__zip *z, size_t i);

/*
 * Reads up to n bytes from the start of member i into buf: copied when
 * stored, inflated (zlib, raw deflate) when deflated. *got is the number of
 * bytes read: less than n only when the member is shorter. Errors:
 * TS_ERR_UNSUPPORTED (another method), TS_ERR_FORMAT (corrupt deflate
 * stream), TS_ERR_TRUNCATED (the stream ends before the member's size),
 * TS_ERR_NOMEM.
 */
ts_status ts__zip_read(const ts__zip *z, size_t i, unsigned char *buf, size_t n, size_t *got,
                       ts_error *err);

/* TS_OK when member m is stored or deflated (what ts__zip_read reads),
 * else TS_ERR_UNSUPPORTED naming its method: check it before allocating
 * for the member's declared size. */
ts_status ts__zip_readable(const ts__zip_member *m, ts_error *err);

/* Runs a parser on the first n bytes of a member (buf; base: the file
 * offset of buf[0], or -1 when inflated). TS_ERR_TRUNCATED asks for more. */
typedef ts_status (*ts__zip_try_fn)(void *arg, const unsigned char *buf, size_t n, int64_t base,
                                    ts_error *err);

/*
 * Reads member i for a parser that may need only a prefix of it (a
 * pickle, which ends at its STOP). Stored: try_fn runs once on the member
 * in place. Deflated: the member is inflated into a buffer of `first`
 * bytes (or its size), and again 4 times larger, each time try_fn returns
 * TS_ERR_TRUNCATED with the buffer short of the member's size; so memory
 * follows what the parser needs, and a parser that fails early (a bomb
 * that overflows its stack) stops the inflating. *buf receives the
 * inflated bytes (f's scratch memory, NULL when stored), which try_fn's
 * results may point into: free it after using them. Errors: try_fn's, and
 * those of ts__zip_read (prefixed with the member's name), TS_ERR_NOMEM.
 */
ts_status ts__zip_read_growing(const ts__zip *z, size_t i, ts_file *f, size_t first,
                               ts__zip_try_fn try_fn, void *arg, unsigned char **buf,
                               ts_error *err);

/* The name of zip compression method m (APPNOTE.TXT 4.4.5): "stored",
 * "deflated", "bzip2", "LZMA", "zstd", "xz", ...; "unknown" for others. */
const char *ts__zip_method_name(int m);

/*
 * A torch.export archive (.pt2, PT2 Archive, pt2.c), for the PyTorch
 * reader, which found its member <prefix>/archive_format: its weights and
 * constants as arrays, its graph signature as metadata (opts->want_metadata).
 * Errors: TS_ERR_FORMAT, TS_ERR_DTYPE, TS_ERR_UNSUPPORTED (a deflated
 * payload), TS_ERR_LIMIT, TS_ERR_NOMEM, those of ts__zip_read.
 */
ts_status ts__read_pt2(ts_file *f, const ts__zip *z, const char *prefix, size_t prefix_len,
                       const ts_open_options *opts, ts_error *err);

#endif /* TSHAPE_ZIP_H */
