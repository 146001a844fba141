/*
 * hdf5.c - reader for HDF5 files (Keras .h5 / .weights.h5 weights and any
 * other HDF5 file), through the real HDF5 library.
 *
 * libhdf5 is loaded with dlopen the first time an HDF5 file is read, so
 * commands that read no HDF5 file do not pay for loading it, and tshape
 * neither links it nor needs its headers to build. The few functions used
 * are looked up with dlsym and declared here with the ABI of HDF5 1.10
 * (soname libhdf5.so.103, Debian's libhdf5_serial.so.103): hid_t is 64-bit
 * and H5Lvisit passes the 1.10 H5L_info_t. The library's version is checked
 * before use; any other version is refused with a message.
 *
 * Opening: with a path (ts_file_open) the file is opened by name with
 * H5Fopen, read-only, so HDF5 reads only the metadata it needs; an image in
 * memory (ts_file_open_memory) is handed over with the core driver and
 * H5Pset_file_image (which copies it). HDF5's own error printing is turned
 * off: the library never prints. Before libhdf5 sees the bytes, the
 * signature and superblock are checked here (version, end-of-file address
 * against the file size), so a truncated file is reported as such.
 *
 * Every dataset reachable through hard links is one array, named by its
 * path without the leading '/', in H5Lvisit order (by name, depth first);
 * a dataset reached by a second hard link is not repeated; soft and
 * external links are not followed. data_offset (H5Dget_offset) is reported
 * only for contiguous, allocated, fixed-size data lying inside the file.
 * Other fixed-size datasets (chunked, compressed, compact, never written)
 * record a TS__SRC_HDF5 data source: the values layer reads them through
 * libhdf5 by hyperslab into its fixed buffer (ts__hdf5_read).
 */
#include "hdf5_child.h"

#include <dlfcn.h>
#include <pthread.h>
#include "../core/jansson_lazy.h"
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- HDF5 1.10 ABI ------------------------------------------------------- */

typedef int64_t hid_t;
typedef int herr_t;
typedef int htri_t;
typedef unsigned long long hsize_t;
typedef long long hssize_t;
typedef unsigned long long haddr_t;
#define HADDR_UNDEF (~(haddr_t)0)

typedef struct {
    int type;              /* H5L_type_t: 0 hard, 1 soft, 64 external */
    bool corder_valid;
    int64_t corder;
    int cset;
    union {
        haddr_t address;
        size_t val_size;
    } u;
} h5l_info_t;

typedef herr_t (*h5l_iterate_t)(hid_t group, const char *name, const h5l_info_t *info,
                                void *op_data);

typedef herr_t (*h5a_iterate_t)(hid_t loc, const char *name, const void *ainfo,
                                void *op_data);

/* H5FD_file_image_callbacks_t: how the core driver gets and frees the
 * memory of a file image (the op argument is H5FD_file_image_op_t). */
typedef struct {
    void *(*image_malloc)(size_t size, int op, void *udata);
    void *(*image_memcpy)(void *dest, const void *src, size_t size, int op, void *udata);
    void *(*image_realloc)(void *ptr, size_t size, int op, void *udata);
    herr_t (*image_free)(void *ptr, int op, void *udata);
    void *(*udata_copy)(void *udata);
    herr_t (*udata_free)(void *udata);
    void *udata;
} h5_image_callbacks;

enum { H5I_DATASET = 5 };
enum { H5T_INTEGER = 0, H5T_FLOAT, H5T_TIME, H5T_STRING, H5T_BITFIELD, H5T_OPAQUE,
       H5T_COMPOUND, H5T_REFERENCE, H5T_ENUM, H5T_VLEN, H5T_ARRAY };
enum { H5S_SCALAR = 0, H5S_SIMPLE = 1, H5S_NULL = 2 };
enum { H5D_COMPACT = 0, H5D_CONTIGUOUS = 1, H5D_CHUNKED = 2, H5D_VIRTUAL = 3 };
#define H5_MAX_RANK 32

static const char *const class_names[] = {"INTEGER", "FLOAT", "TIME", "STRING", "BITFIELD",
                                          "OPAQUE", "COMPOUND", "REFERENCE", "ENUM", "VLEN",
                                          "ARRAY"};

/* The functions used, by name. */
#define H5_FUNCS(X)                                                                       \
    X(herr_t, H5open, (void))                                                             \
    X(herr_t, H5get_libversion, (unsigned *, unsigned *, unsigned *))                     \
    X(herr_t, H5Eset_auto2, (hid_t, void *, void *))                                      \
    X(hid_t, H5Pcreate, (hid_t))                                                          \
    X(herr_t, H5Pset_fapl_core, (hid_t, size_t, bool))                                    \
    X(herr_t, H5Pset_file_image, (hid_t, void *, size_t))                                 \
    X(herr_t, H5Pset_file_image_callbacks, (hid_t, h5_image_callbacks *))                 \
    X(herr_t, H5Pclose, (hid_t))                                                          \
    X(hid_t, H5Fopen, (const char *, unsigned, hid_t))                                    \
    X(herr_t, H5Fclose, (hid_t))                                                          \
    X(herr_t, H5Lvisit, (hid_t, int, int, h5l_iterate_t, void *))                         \
    X(hid_t, H5Oopen, (hid_t, const char *, hid_t))                                       \
    X(herr_t, H5Oclose, (hid_t))                                                          \
    X(int, H5Iget_type, (hid_t))                                                          \
    X(hid_t, H5Dget_type, (hid_t))                                                        \
    X(hid_t, H5Dget_space, (hid_t))                                                       \
    X(hid_t, H5Dget_create_plist, (hid_t))                                                \
    X(hsize_t, H5Dget_storage_size, (hid_t))                                              \
    X(haddr_t, H5Dget_offset, (hid_t))                                                    \
    X(int, H5Pget_layout, (hid_t))                                                        \
    X(int, H5Pget_chunk, (hid_t, int, hsize_t *))                                         \
    X(int, H5Pget_nfilters, (hid_t))                                                      \
    X(int, H5Pget_filter2,                                                                \
      (hid_t, unsigned, unsigned *, size_t *, unsigned *, size_t, char *, unsigned *))    \
    X(int, H5Sget_simple_extent_type, (hid_t))                                            \
    X(int, H5Sget_simple_extent_ndims, (hid_t))                                           \
    X(int, H5Sget_simple_extent_dims, (hid_t, hsize_t *, hsize_t *))                      \
    X(hssize_t, H5Sget_simple_extent_npoints, (hid_t))                                    \
    X(herr_t, H5Sclose, (hid_t))                                                          \
    X(int, H5Tget_class, (hid_t))                                                         \
    X(size_t, H5Tget_size, (hid_t))                                                       \
    X(int, H5Tget_order, (hid_t))                                                         \
    X(int, H5Tget_sign, (hid_t))                                                          \
    X(int, H5Tget_cset, (hid_t))                                                          \
    X(htri_t, H5Tis_variable_str, (hid_t))                                                \
    X(herr_t, H5Tget_fields, (hid_t, size_t *, size_t *, size_t *, size_t *, size_t *))   \
    X(int, H5Tget_nmembers, (hid_t))                                                      \
    X(char *, H5Tget_member_name, (hid_t, unsigned))                                      \
    X(hid_t, H5Tget_member_type, (hid_t, unsigned))                                       \
    X(hid_t, H5Tget_super, (hid_t))                                                       \
    X(hid_t, H5Tcopy, (hid_t))                                                            \
    X(herr_t, H5Tclose, (hid_t))                                                          \
    X(htri_t, H5Aexists, (hid_t, const char *))                                           \
    X(hid_t, H5Aopen, (hid_t, const char *, hid_t))                                       \
    X(hid_t, H5Aget_type, (hid_t))                                                        \
    X(hid_t, H5Aget_space, (hid_t))                                                       \
    X(herr_t, H5Aread, (hid_t, hid_t, void *))                                            \
    X(herr_t, H5Aclose, (hid_t))                                                          \
    X(herr_t, H5Aiterate2, (hid_t, int, int, hsize_t *, h5a_iterate_t, void *))           \
    X(hid_t, H5Tget_native_type, (hid_t, int))                                            \
    X(htri_t, H5Lexists, (hid_t, const char *, hid_t))                                    \
    X(hid_t, H5Dopen2, (hid_t, const char *, hid_t))                                      \
    X(herr_t, H5Dclose, (hid_t))                                                          \
    X(herr_t, H5Dread, (hid_t, hid_t, hid_t, hid_t, hid_t, void *))                       \
    X(hid_t, H5Screate_simple, (int, const hsize_t *, const hsize_t *))                   \
    X(herr_t, H5Sselect_hyperslab,                                                        \
      (hid_t, int, const hsize_t *, const hsize_t *, const hsize_t *, const hsize_t *))   \
    X(herr_t, H5free_memory, (void *))

typedef struct h5_api {
#define X(ret, name, args) ret(*name) args;
    H5_FUNCS(X)
#undef X
    hid_t *fapl_class;   /* H5P_CLS_FILE_ACCESS_ID_g */
} h5_api;

static h5_api api;
static int api_state; /* 0 not tried, 1 loaded, -1 failed */
static char api_error[256];

static const char *const sonames[] = {"libhdf5_serial.so.103", "libhdf5.so.103"};

static void load_api_once(void)
{
    void *h = NULL;
    for (size_t i = 0; !h && i < sizeof sonames / sizeof *sonames; i++)
        h = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(api_error, sizeof api_error,
                 "reading HDF5 needs the HDF5 1.10 library (libhdf5_serial.so.103 or "
                 "libhdf5.so.103; Debian: apt install libhdf5-103-1), which is not installed");
        { api_state = -1; return; }
    }
    /* POSIX dlsym returns void *; the cast to a function pointer is how it
     * is used (memcpy keeps ISO C pedantry quiet). */
#define X(ret, name, args)                                                               \
    {                                                                                    \
        void *sym = dlsym(h, #name);                                                     \
        if (!sym) {                                                                      \
            snprintf(api_error, sizeof api_error, "the HDF5 library lacks %s", #name);   \
            { api_state = -1; return; }                                                       \
        }                                                                                \
        memcpy(&api.name, &sym, sizeof sym);                                             \
    }
    H5_FUNCS(X)
#undef X
    api.fapl_class = dlsym(h, "H5P_CLS_FILE_ACCESS_ID_g");
    unsigned maj = 0, min = 0, rel = 0;
    if (!api.fapl_class || api.H5open() < 0 ||
        api.H5get_libversion(&maj, &min, &rel) < 0 || maj != 1 || min != 10) {
        snprintf(api_error, sizeof api_error,
                 "the HDF5 library found is version %u.%u.%u; tshape uses the 1.10 ABI", maj,
                 min, rel);
        { api_state = -1; return; }
    }
    api.H5Eset_auto2(0, NULL, NULL); /* never print error stacks */
    api_state = 1;
}

/* Loads libhdf5 once per process (threads may open HDF5 shards at once):
 * 1, or -1 with api_error set. The parent loads it, and each child that
 * runs it (hdf5_child.c) inherits it loaded. */
static int load_api(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, load_api_once);
    return api_state;
}

ts_status ts__hdf5_load(ts_error *err)
{
    return load_api() < 0 ? ts__error(err, TS_ERR_UNSUPPORTED, "%s", api_error) : TS_OK;
}

/* Under LeakSanitizer (make sanitize, fuzzing): libhdf5 1.10.8 leaks on some
 * of its error paths when a file is corrupted (H5Fopen or H5Lvisit failing);
 * those allocations are libhdf5's, not tshape's. The hook is the sanitizer's
 * documented one and does nothing in other builds. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libhdf5_serial.so\nleak:libhdf5.so\n";
}
/* ... and without the "Suppressions used" table on stderr, which would
 * break the one-line error contract the tests check. */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
    return "print_suppressions=0";
}

/* ---- the superblock, checked before libhdf5 sees the file ---------------- */

static const unsigned char signature[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};

/* Offset of the signature: 0, 512, 1024, 2048, ... (a user block), or -1.
 * A sparse source (a remote file) is searched only in the bytes it holds
 * (the first request's, 100,000 by default), so probing a file of another
 * format costs no request: a user block past them is found only in local
 * files (tshape(1), LIMITS). */
static int64_t find_signature(const unsigned char *data, size_t len, const ts__source *src)
{
    for (uint64_t at = 0; at + 8 <= len && ts__source_has(src, at, 8); at = at ? at * 2 : 512)
        if (memcmp(data + at, signature, 8) == 0)
            return (int64_t)at;
    return -1;
}

static int probe_hdf5(const unsigned char *data, size_t len, ts__source *src)
{
    return find_signature(data, len, src) >= 0;
}

static uint64_t le_n(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

/* Superblock versions 0..3: the version, and the end-of-file address
 * (relative to the base address) against the size of the file. */
static ts_status check_superblock(const unsigned char *data, size_t len, int64_t at,
                                  int64_t *extent, ts_error *err)
{
    size_t p = (size_t)at + 8;
    if (len - p < 1)
        goto short_file;
    int version = data[p];
    int so, base_at;
    if (version == 0 || version == 1) {
        if (len - p < 16)
            goto short_file;
        so = data[p + 5];
        base_at = 8 + 16 + (version == 1 ? 4 : 0);
    } else if (version == 2 || version == 3) {
        if (len - p < 4)
            goto short_file;
        so = data[p + 1];
        base_at = 8 + 4;
    } else {
        return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)p,
                        "not a readable HDF5 file: signature at byte %lld, but superblock "
                        "version %d does not exist (0 to 3)", (long long)at, version);
    }
    if (so != 2 && so != 4 && so != 8)
        return ts__fail(err, TS_ERR_FORMAT, 0, (int64_t)p,
                        "not a readable HDF5 file: size of offsets %d (2, 4 or 8)", so);
    /* base address, then (v0/1: free-space, EOF) (v2/3: extension, EOF) */
    size_t q = (size_t)at + (size_t)base_at;
    if (q > len || len - q < (size_t)so * 3)
        goto short_file;
    uint64_t base = le_n(data + q, so), eof = le_n(data + q + 2 * (size_t)so, so);
    uint64_t undef = so == 8 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * so)) - 1;
    /* libhdf5 writes the end address including the user block; be lenient:
     * only an end past the file in both readings is a truncation. */
    if (eof != undef && eof <= len)
        *extent = (int64_t)(base <= len - eof ? base + eof : eof);
    if (eof != undef && eof > len)
        return ts__fail(err, TS_ERR_TRUNCATED, 0, (int64_t)len,
                        "HDF5 file is truncated: %zu bytes, but its superblock says it ends "
                        "at byte %llu", len, (unsigned long long)eof);
    return TS_OK;
short_file:
    return ts__fail(err, TS_ERR_TRUNCATED, 0, (int64_t)len,
                    "file ends inside the HDF5 superblock at byte %zu", len);
}

/* ---- datasets ------------------------------------------------------------- */

typedef struct h5_reader {
    ts_file *f;
    size_t len;
    ts_error *err;
    ts_status st;
    /* addresses of the objects already reported (hard links) */
    haddr_t *seen;
    size_t n_seen, cap_seen;
    const char *path;     /* the file's path (owned by f), or NULL: an image */
    ts__hdf5_array_fn on_array; /* told of each array added */
    void *on_array_arg;
} h5_reader;

/* Open-addressing set of object addresses; returns 1 if `a` was there. */
static int seen_before(h5_reader *r, haddr_t a)
{
    if (r->n_seen * 2 >= r->cap_seen) {
        size_t cap = r->cap_seen ? r->cap_seen * 2 : 64;
        haddr_t *t = malloc(cap * sizeof *t);
        if (!t)
            return -1;
        for (size_t i = 0; i < cap; i++)
            t[i] = HADDR_UNDEF;
        for (size_t i = 0; i < r->cap_seen; i++)
            if (r->seen[i] != HADDR_UNDEF) {
                size_t k = (size_t)(r->seen[i] * 0x9e3779b97f4a7c15ull) & (cap - 1);
                while (t[k] != HADDR_UNDEF)
                    k = (k + 1) & (cap - 1);
                t[k] = r->seen[i];
            }
        free(r->seen);
        r->seen = t;
        r->cap_seen = cap;
    }
    size_t k = (size_t)(a * 0x9e3779b97f4a7c15ull) & (r->cap_seen - 1);
    while (r->seen[k] != HADDR_UNDEF) {
        if (r->seen[k] == a)
            return 1;
        k = (k + 1) & (r->cap_seen - 1);
    }
    r->seen[k] = a;
    r->n_seen++;
    return 0;
}

static const char *filter_name(int id)
{
    switch (id) {
    case 1: return "deflate";
    case 2: return "shuffle";
    case 3: return "fletcher32";
    case 4: return "szip";
    case 5: return "nbit";
    case 6: return "scaleoffset";
    case 32000: return "lzf";
    case 32001: return "blosc";
    case 32004: return "lz4";
    case 32008: return "bitshuffle";
    case 32015: return "zstd";
    default: return NULL;
    }
}

/* Does attribute `name` of object o hold the string `want`? */
static int attr_is(hid_t o, const char *name, const char *want)
{
    if (api.H5Aexists(o, name) <= 0)
        return 0;
    hid_t a = api.H5Aopen(o, name, 0);
    if (a < 0)
        return 0;
    int yes = 0;
    hid_t t = api.H5Aget_type(a), s = api.H5Aget_space(a);
    if (t >= 0 && s >= 0 && api.H5Tget_class(t) == H5T_STRING &&
        api.H5Sget_simple_extent_npoints(s) == 1) {
        if (api.H5Tis_variable_str(t) > 0) {
            /* the file's own string type (same character set) as memory type */
            hid_t m = api.H5Tcopy(t);
            char *v = NULL;
            if (m >= 0 && api.H5Aread(a, m, &v) >= 0 && v) {
                yes = strcmp(v, want) == 0;
                api.H5free_memory(v);
            }
            if (m >= 0)
                api.H5Tclose(m);
        } else {
            size_t n = api.H5Tget_size(t);
            char buf[64];
            if (n < sizeof buf && api.H5Aread(a, t, buf) >= 0) {
                buf[n] = '\0';
                yes = strcmp(buf, want) == 0;
            }
        }
    }
    if (t >= 0)
        api.H5Tclose(t);
    if (s >= 0)
        api.H5Sclose(s);
    api.H5Aclose(a);
    return yes;
}

/* Fixed-size integer dtype from size and sign, or UNKNOWN. */
static ts_dtype int_dtype(size_t size, int is_signed)
{
    switch (size) {
    case 1: return is_signed ? TS_DTYPE_INT8 : TS_DTYPE_UINT8;
    case 2: return is_signed ? TS_DTYPE_INT16 : TS_DTYPE_UINT16;
    case 4: return is_signed ? TS_DTYPE_INT32 : TS_DTYPE_UINT32;
    case 8: return is_signed ? TS_DTYPE_INT64 : TS_DTYPE_UINT64;
    default: return TS_DTYPE_UNKNOWN;
    }
}

static ts_dtype float_dtype(hid_t t, size_t size)
{
    size_t spos, epos, esize, mpos, msize;
    switch (size) {
    case 2:
        if (api.H5Tget_fields(t, &spos, &epos, &esize, &mpos, &msize) >= 0 && esize == 8 &&
            msize == 7)
            return TS_DTYPE_BFLOAT16;
        return TS_DTYPE_FLOAT16;
    case 4: return TS_DTYPE_FLOAT32;
    case 8: return TS_DTYPE_FLOAT64;
    default: return TS_DTYPE_UNKNOWN;
    }
}

/* The member names of a compound or enum type, "a, b" (at most 20). */
static const char *member_list(h5_reader *r, hid_t t, int n, int *is_complex, int *is_bool)
{
    char buf[512];
    size_t pos = 0;
    buf[0] = '\0';
    char *names[2] = {NULL, NULL};
    for (int i = 0; i < n && i < 20; i++) {
        char *m = api.H5Tget_member_name(t, (unsigned)i);
        if (!m)
            continue;
        int k = snprintf(buf + pos, sizeof buf - pos, "%s%s", i ? ", " : "", m);
        if (k > 0 && (size_t)k < sizeof buf - pos)
            pos += (size_t)k;
        if (i < 2)
            names[i] = m;
        else
            api.H5free_memory(m);
    }
    if (n > 20)
        snprintf(buf + pos, sizeof buf - pos, ", ... (%d members)", n);
    if (is_complex)
        *is_complex = n == 2 && names[0] && names[1] && strcmp(names[0], "r") == 0 &&
                      strcmp(names[1], "i") == 0;
    if (is_bool)
        *is_bool = n == 2 && names[0] && names[1] && strcmp(names[0], "FALSE") == 0 &&
                   strcmp(names[1], "TRUE") == 0;
    for (int i = 0; i < 2; i++)
        if (names[i])
            api.H5free_memory(names[i]);
    return ts__file_strndup(r->f, buf, strlen(buf), r->err);
}

/* Fills dtype fields of a from the file type t. Returns 0 for a
 * variable-length type (no nbytes, no offset), 1 for fixed-size, -1 on
 * allocation failure. *what receives extra text for the note. */
static int set_type(h5_reader *r, ts_array *a, hid_t d, hid_t t, const char **what)
{
    int cls = api.H5Tget_class(t);
    size_t size = api.H5Tget_size(t);
    int order = api.H5Tget_order(t);
    char bo = size <= 1 ? '|' : order == 1 ? '>' : '<';
    *what = NULL;
    a->format_dtype = cls >= 0 && cls <= H5T_ARRAY ? class_names[cls] : "unknown class";
    ts_dtype dt = TS_DTYPE_UNKNOWN;
    switch (cls) {
    case H5T_INTEGER:
        dt = int_dtype(size, api.H5Tget_sign(t) == 1);
        break;
    case H5T_FLOAT:
        dt = float_dtype(t, size);
        break;
    case H5T_STRING:
        if (api.H5Tis_variable_str(t) > 0) {
            ts__array_set_dtype(a, TS_DTYPE_OBJECT);
            *what = api.H5Tget_cset(t) == 1 ? "variable-length UTF-8 strings"
                                            : "variable-length ASCII strings";
            return 0;
        }
        if (size > (1u << 28))
            break;
        ts__array_set_dtype(a, TS_DTYPE_BYTES);
        a->itemsize = a->block_bytes = (int64_t)size;
        a->bits = (int32_t)size * 8;
        a->dtype_name = ts__file_printf(r->f, r->err, "bytes%zu", size * 8);
        *what = api.H5Tget_cset(t) == 1 ? "fixed-length UTF-8 strings"
                                        : "fixed-length ASCII strings";
        return a->dtype_name ? 1 : -1;
    case H5T_OPAQUE:
        if (size == 2 && attr_is(d, "dtype", "bfloat16")) {
            ts__array_set_dtype(a, TS_DTYPE_BFLOAT16);
            a->byteorder = '<';
            *what = "opaque 2-byte data with attribute dtype = bfloat16 (Keras 3)";
            return 1;
        }
        goto as_void;
    case H5T_COMPOUND: {
        int n = api.H5Tget_nmembers(t), cplx = 0;
        const char *m = member_list(r, t, n, &cplx, NULL);
        if (!m)
            return -1;
        if (cplx && (size == 8 || size == 16)) {
            hid_t m0 = api.H5Tget_member_type(t, 0);
            int ok = m0 >= 0 && api.H5Tget_class(m0) == H5T_FLOAT &&
                     api.H5Tget_size(m0) == size / 2;
            if (m0 >= 0) {
                bo = api.H5Tget_order(m0) == 1 ? '>' : '<';
                api.H5Tclose(m0);
            }
            if (ok) {
                ts__array_set_dtype(a, size == 8 ? TS_DTYPE_COMPLEX64 : TS_DTYPE_COMPLEX128);
                a->byteorder = bo;
                *what = "compound {r, i} (h5py complex)";
                return 1;
            }
        }
        ts__array_set_dtype(a, TS_DTYPE_STRUCTURED);
        a->itemsize = a->block_bytes = (int64_t)size;
        a->bits = size < (1u << 28) ? (int32_t)size * 8 : 0;
        *what = ts__file_printf(r->f, r->err, "compound {%s}", m);
        return *what ? 1 : -1;
    }
    case H5T_ENUM: {
        int n = api.H5Tget_nmembers(t), isbool = 0;
        const char *m = member_list(r, t, n, NULL, &isbool);
        if (!m)
            return -1;
        hid_t base = api.H5Tget_super(t);
        int sgn = base >= 0 ? api.H5Tget_sign(base) == 1 : 0;
        if (base >= 0)
            api.H5Tclose(base);
        dt = isbool && size == 1 ? TS_DTYPE_BOOL : int_dtype(size, sgn);
        *what = ts__file_printf(r->f, r->err, "enum {%s}", m);
        if (!*what)
            return -1;
        break;
    }
    case H5T_VLEN:
        ts__array_set_dtype(a, TS_DTYPE_OBJECT);
        *what = "variable-length sequences";
        return 0;
    default: /* TIME, BITFIELD, REFERENCE, ARRAY: named, never guessed */
        goto as_void;
    }
    if (dt == TS_DTYPE_UNKNOWN)
        goto as_void;
    ts__array_set_dtype(a, dt);
    a->byteorder = a->itemsize > 1 ? bo : '|';
    return 1;
as_void:
    if (size > (1u << 28))
        size = 0;
    ts__array_set_dtype(a, TS_DTYPE_VOID);
    a->itemsize = a->block_bytes = (int64_t)size;
    a->bits = (int32_t)size * 8;
    a->dtype_name = ts__file_printf(r->f, r->err, "void%zu", size * 8);
    return a->dtype_name ? 1 : -1;
}

/* Appends printf text at buf[*pos], cut at cap. */
static void note_add(char *buf, size_t cap, size_t *pos, const char *fmt, ...) TS__PRINTF(4, 5);
static void note_add(char *buf, size_t cap, size_t *pos, const char *fmt, ...)
{
    if (*pos + 1 >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(buf + *pos, cap - *pos, fmt, ap);
    va_end(ap);
    if (k > 0)
        *pos += (size_t)k < cap - *pos ? (size_t)k : cap - *pos - 1;
}

static ts_status read_dataset(h5_reader *r, hid_t d, const char *name)
{
    ts_error *err = r->err;
    ts_status st = TS_OK;
    hid_t t = api.H5Dget_type(d), s = api.H5Dget_space(d), p = api.H5Dget_create_plist(d);
    ts_array *a = NULL;
    const char *type_note = NULL;
    char layout_note[512];
    if (t < 0 || s < 0 || p < 0) {
        st = ts__error(err, TS_ERR_FORMAT, "dataset '%s': HDF5 cannot read its type, space "
                                           "or creation properties", name);
        goto done;
    }
    a = ts__file_add_array(r->f, err);
    if (!a) {
        st = ts__file_add_failure(r->f);
        goto done;
    }
    if (!(a->name = ts__file_strndup(r->f, name, strlen(name), err))) {
        st = TS_ERR_NOMEM;
        goto done;
    }
    int fixed = set_type(r, a, d, t, &type_note);
    if (fixed < 0) {
        st = TS_ERR_NOMEM;
        goto done;
    }
    int stype = api.H5Sget_simple_extent_type(s);
    int ndim = stype == H5S_SIMPLE ? api.H5Sget_simple_extent_ndims(s) : 0;
    hsize_t hd[H5_MAX_RANK];
    int64_t dims[H5_MAX_RANK];
    if (ndim < 0 || ndim > H5_MAX_RANK ||
        (ndim > 0 && api.H5Sget_simple_extent_dims(s, hd, NULL) != ndim)) {
        st = ts__error(err, TS_ERR_FORMAT, "dataset '%s': HDF5 cannot read its dataspace", name);
        goto done;
    }
    for (int i = 0; i < ndim; i++) {
        if (hd[i] > (hsize_t)INT64_MAX) {
            st = ts__error(err, TS_ERR_OVERFLOW, "dataset '%s': dim %d does not fit in int64",
                           name, i);
            goto done;
        }
        dims[i] = (int64_t)hd[i];
    }
    if (stype == H5S_NULL) { /* no shape, no data: (0,) for size 0 (tshape.h) */
        dims[ndim++] = 0;
        a->null_shape = 1;
    }
    if ((st = ts_shape_assign(&a->shape, dims, ndim, err)) ||
        (st = ts__array_compute_sizes(a, err))) {
        ts__error_prefix(err, "dataset '%s'", name);
        goto done;
    }
    if (!fixed)
        a->nbytes = -1;
    int layout = api.H5Pget_layout(p);
    hsize_t storage = api.H5Dget_storage_size(d);
    size_t pos = 0;
    layout_note[0] = '\0';
#define NOTE(...) note_add(layout_note, sizeof layout_note, &pos, __VA_ARGS__)
    switch (layout) {
    case H5D_COMPACT: NOTE("compact"); break;
    case H5D_CONTIGUOUS: NOTE("contiguous"); break;
    case H5D_VIRTUAL: NOTE("virtual"); break;
    case H5D_CHUNKED: {
        hsize_t cd[H5_MAX_RANK];
        int cn = api.H5Pget_chunk(p, H5_MAX_RANK, cd);
        NOTE("chunked (");
        for (int i = 0; i < cn && i < H5_MAX_RANK; i++)
            NOTE("%s%llu", i ? "," : "", (unsigned long long)cd[i]);
        NOTE(cn == 1 ? ",)" : ")");
        int nf = api.H5Pget_nfilters(p);
        for (int i = 0; i < nf && i < 32; i++) {
            unsigned flags = 0, cfg = 0, cdv[8];
            size_t ncd = 8;
            char fname[64];
            int id = api.H5Pget_filter2(p, (unsigned)i, &flags, &ncd, cdv, sizeof fname, fname,
                                        &cfg);
            const char *fn = filter_name(id);
            if (fn)
                NOTE("%s%s", i ? ", " : ", filters ", fn);
            else
                NOTE("%sfilter %d", i ? ", " : ", filters ", id);
        }
        break;
    }
    default: NOTE("layout %d", layout); break;
    }
    NOTE(", storage %llu bytes", (unsigned long long)storage);
    if (layout == H5D_CONTIGUOUS && fixed && storage > 0) {
        haddr_t off = api.H5Dget_offset(d);
        if (off != HADDR_UNDEF && off <= (haddr_t)r->len && a->nbytes >= 0 &&
            (uint64_t)a->nbytes <= r->len - off)
            a->data_offset = (int64_t)off;
        else if (off != HADDR_UNDEF)
            NOTE(", data at byte %llu outside the file", (unsigned long long)off);
    } else if (layout == H5D_CONTIGUOUS && storage == 0 && a->size > 0) {
        NOTE(" (never written)");
    }
#undef NOTE
    if (a->data_offset < 0 && fixed && a->size > 0 && a->nbytes > 0) {
        ts__data_src ds;
        memset(&ds, 0, sizeof ds);
        ds.kind = TS__SRC_HDF5;
        ds.size = a->nbytes;
        ds.h5_dataset = a->name;
        ds.h5_path = r->path;
        if ((st = ts__file_set_data_src(r->f, a, &ds, err)))
            goto done;
    }
    a->note = ts__file_printf(r->f, err, "%s%s%s%s",
                              a->null_shape ? "null dataspace (h5py.Empty): no shape, no "
                                              "data; " : "",
                              type_note ? type_note : "", type_note ? "; " : "", layout_note);
    if (!a->note)
        st = TS_ERR_NOMEM;
done:
    if (t >= 0)
        api.H5Tclose(t);
    if (s >= 0)
        api.H5Sclose(s);
    if (p >= 0)
        api.H5Pclose(p);
    return st;
}

static herr_t visit(hid_t group, const char *name, const h5l_info_t *info, void *op_data)
{
    h5_reader *r = op_data;
    if (info->type != 0) /* soft and external links are not followed */
        return 0;
    hid_t o = api.H5Oopen(group, name, 0);
    if (o < 0)
        return 0; /* a dangling or unreadable object: skipped */
    int is_dataset = api.H5Iget_type(o) == H5I_DATASET;
    if (is_dataset) {
        int seen = seen_before(r, info->u.address);
        if (seen < 0)
            r->st = ts__error(r->err, TS_ERR_NOMEM, "out of memory");
        else if (!seen && !(r->st = read_dataset(r, o, name)) && r->on_array)
            r->st = r->on_array(r->f, r->on_array_arg, r->err);
    }
    api.H5Oclose(o);
    return r->st ? -1 : 0;
}


/* ---- Keras attributes (metadata) ------------------------------------------ */

/* The strings of attribute `name` of object o (scalar or 1-D, fixed or
 * variable length), appended to the JSON array `out`. Returns the number
 * appended, or -1 when the attribute is absent or not strings. Bounded:
 * at most 1,000,000 strings and 64 MiB of fixed-length text. */
static int attr_strings(hid_t o, const char *name, json_t *out)
{
    if (api.H5Aexists(o, name) <= 0)
        return -1;
    hid_t a = api.H5Aopen(o, name, 0);
    if (a < 0)
        return -1;
    int n_out = -1;
    hid_t t = api.H5Aget_type(a), s = api.H5Aget_space(a);
    hssize_t n = s >= 0 ? api.H5Sget_simple_extent_npoints(s) : -1;
    if (t >= 0 && api.H5Tget_class(t) == H5T_STRING && n >= 0 && n <= 1000000) {
        size_t size = api.H5Tget_size(t);
        if (api.H5Tis_variable_str(t) > 0) {
            char **v = calloc((size_t)n ? (size_t)n : 1, sizeof *v);
            hid_t m = api.H5Tcopy(t);
            if (v && m >= 0 && api.H5Aread(a, m, v) >= 0) {
                n_out = 0;
                for (hssize_t i = 0; i < n; i++) {
                    json_t *j = v[i] ? json_string(v[i]) : NULL;
                    json_array_append_new(out, j ? j : json_string("?"));
                    n_out++;
                    if (v[i])
                        api.H5free_memory(v[i]);
                }
            }
            if (m >= 0)
                api.H5Tclose(m);
            free(v);
        } else if (size > 0 && (uint64_t)size * (uint64_t)n <= (64u << 20)) {
            char *buf = malloc(size * (size_t)n + 1);
            if (buf && api.H5Aread(a, t, buf) >= 0) {
                n_out = 0;
                for (hssize_t i = 0; i < n; i++) {
                    const char *p = buf + (size_t)i * size;
                    size_t len = strnlen(p, size);
                    json_t *j = json_stringn(p, len);
                    json_array_append_new(out, j ? j : json_string("?"));
                    n_out++;
                }
            }
            free(buf);
        }
    }
    if (t >= 0)
        api.H5Tclose(t);
    if (s >= 0)
        api.H5Sclose(s);
    api.H5Aclose(a);
    return n_out;
}

static ts_status add_json_metadata(ts_file *f, const char *key, json_t *value, ts_error *err)
{
    char *text = json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY);
    if (!text)
        return ts__error(err, TS_ERR_NOMEM, "out of memory for metadata");
    ts_status st = ts__file_add_metadata(f, key, strlen(key), text, strlen(text), err);
    free(text);
    return st;
}

/* An attribute's value as JSON: strings (fixed or variable length) as a
 * string, or an array of them; integers and floats as numbers, or an array
 * (at most 1,000,000); anything else as a string that says what it is.
 * NULL when it cannot be read. */
static json_t *attr_json(hid_t o, const char *name)
{
    json_t *strings = json_array();
    int n_str = strings ? attr_strings(o, name, strings) : -1;
    hid_t a = n_str >= 0 ? -1 : api.H5Aopen(o, name, 0);
    if (n_str >= 0 || a < 0) {
        if (n_str < 0) {
            json_decref(strings);
            return NULL;
        }
        hid_t a2 = api.H5Aopen(o, name, 0), s2 = a2 >= 0 ? api.H5Aget_space(a2) : -1;
        int scalar = s2 >= 0 && api.H5Sget_simple_extent_type(s2) == H5S_SCALAR;
        if (s2 >= 0)
            api.H5Sclose(s2);
        if (a2 >= 0)
            api.H5Aclose(a2);
        if (scalar && n_str == 1) {
            json_t *one = json_incref(json_array_get(strings, 0));
            json_decref(strings);
            return one;
        }
        return strings;
    }
    json_decref(strings);
    json_t *out = NULL;
    hid_t t = api.H5Aget_type(a), s = api.H5Aget_space(a), m = -1;
    hssize_t n = s >= 0 ? api.H5Sget_simple_extent_npoints(s) : -1;
    int cls = t >= 0 ? api.H5Tget_class(t) : -1;
    int scalar = s >= 0 && api.H5Sget_simple_extent_type(s) == H5S_SCALAR;
    if ((cls == H5T_INTEGER || cls == H5T_FLOAT) && n >= 0 && n <= 1000000 &&
        (m = api.H5Tget_native_type(t, 0 /* H5T_DIR_DEFAULT */)) >= 0) {
        size_t size = api.H5Tget_size(m);
        int sgn = cls == H5T_INTEGER && api.H5Tget_sign(m) == 1;
        unsigned char *buf = size > 0 && size <= 16 ? malloc((size_t)n * size + 1) : NULL;
        if (buf && api.H5Aread(a, m, buf) >= 0) {
            out = scalar ? NULL : json_array();
            for (hssize_t i = 0; i < n && (scalar || out); i++) {
                const unsigned char *p = buf + (size_t)i * size;
                json_t *v = NULL;
                if (cls == H5T_FLOAT && size == 4) {
                    float x;
                    memcpy(&x, p, 4);
                    v = json_real(x);
                } else if (cls == H5T_FLOAT && size == 8) {
                    double x;
                    memcpy(&x, p, 8);
                    v = json_real(x);
                } else if (cls == H5T_INTEGER && size <= 8) {
                    uint64_t u = 0;
                    memcpy(&u, p, size); /* native order: little-endian here */
                    if (sgn && size < 8 && (u >> (8 * size - 1)) & 1)
                        u |= ~(uint64_t)0 << (8 * size);
                    v = sgn || u <= (uint64_t)INT64_MAX ? json_integer((json_int_t)u)
                                                        : json_real((double)u);
                }
                if (!v) /* NaN, Inf (JSON has none), long double */
                    v = json_string(cls == H5T_FLOAT ? "non-finite or long double" : "?");
                if (scalar) {
                    out = v;
                    break;
                }
                json_array_append_new(out, v);
            }
        }
        free(buf);
    }
    if (!out) {
        char what[128];
        snprintf(what, sizeof what, "(an attribute of HDF5 class %s, %lld element%s: not shown)",
                 cls >= 0 && cls <= H5T_ARRAY ? class_names[cls] : "unknown",
                 (long long)n, n == 1 ? "" : "s");
        out = json_string(what);
    }
    if (m >= 0)
        api.H5Tclose(m);
    if (t >= 0)
        api.H5Tclose(t);
    if (s >= 0)
        api.H5Sclose(s);
    api.H5Aclose(a);
    return out;
}

/* 1 for "layer_names" and its parts "layer_names0", "layer_names1", ... */
static int is_layer_names(const char *name)
{
    if (strncmp(name, "layer_names", 11) != 0)
        return 0;
    for (const char *p = name + 11; *p; p++)
        if (*p < '0' || *p > '9')
            return 0;
    return 1;
}

typedef struct attr_walk {
    ts_file *f;
    ts_error *err;
    ts_status st;
    hid_t root;            /* the file's root group */
    const char *prefix;    /* "" or "model_weights/" */
    int layer_group;       /* the layer names of this group are keras.layer_names */
    int count;
} attr_walk;

#define MAX_ATTRS 10000

static herr_t one_attr(hid_t loc, const char *name, const void *info, void *op_data)
{
    attr_walk *w = op_data;
    (void)info;
    if (++w->count > MAX_ATTRS)
        return 1; /* named below */
    if (w->layer_group && is_layer_names(name))
        return 0; /* keras.layer_names */
    json_t *v = attr_json(loc, name);
    if (!v)
        return 0;
    if (w->prefix[0] && api.H5Aexists(w->root, name) > 0) {
        json_t *r = attr_json(w->root, name);
        int same = r && json_equal(r, v);
        json_decref(r);
        if (same) { /* model_weights/ repeats the root's (keras_version, backend) */
            json_decref(v);
            return 0;
        }
    }
    char key[512];
    snprintf(key, sizeof key, "%s%s", w->prefix, name);
    w->st = add_json_metadata(w->f, key, v, w->err);
    json_decref(v);
    return w->st ? -1 : 0;
}

/* Every attribute of the root and of model_weights/ (Keras: keras_version,
 * backend, model_config, training_config, ...), as h5ls -v shows them, by
 * name (model_weights/'s under "model_weights/NAME", but for those equal to
 * the root's), and the Keras layer names (layer_names, or its parts
 * layer_names0, layer_names1, ...) of model_weights/, or else of the root,
 * as keras.layer_names. At most MAX_ATTRS per group. */
static ts_status keras_metadata(ts_file *f, hid_t file, ts_error *err)
{
    hid_t g = -1;
    if (api.H5Lexists(file, "model_weights", 0) > 0)
        g = api.H5Oopen(file, "model_weights", 0);
    hid_t names_of = g >= 0 ? g : file;
    attr_walk w = {f, err, TS_OK, file, "", names_of == file, 0};
    hsize_t idx = 0;
    api.H5Aiterate2(file, 0 /* by name */, 0 /* increasing */, &idx, one_attr, &w);
    ts_status st = w.st;
    if (!st && w.count > MAX_ATTRS)
        st = ts__error(err, TS_ERR_LIMIT, "more than %d attributes on the root group",
                       MAX_ATTRS);
    json_t *names = json_array();
    int n = attr_strings(names_of, "layer_names", names);
    for (int part = 0; n < 0 && part < 1000; part++) {
        char key[32];
        snprintf(key, sizeof key, "layer_names%d", part);
        if (attr_strings(names_of, key, names) < 0)
            break;
        if (part == 0)
            n = 0;
    }
    if (!st && n >= 0)
        st = add_json_metadata(f, "keras.layer_names", names, err);
    json_decref(names);
    if (!st && g >= 0) {
        attr_walk mw = {f, err, TS_OK, file, "model_weights/", 1, 0};
        idx = 0;
        api.H5Aiterate2(g, 0, 0, &idx, one_attr, &mw);
        st = mw.st;
        if (!st && mw.count > MAX_ATTRS)
            st = ts__error(err, TS_ERR_LIMIT, "more than %d attributes on model_weights/",
                           MAX_ATTRS);
    }
    if (g >= 0)
        api.H5Oclose(g);
    return st;
}

/* ---- the file image, handed to libhdf5 without a copy ------------------------ */

/* The core driver keeps a file image in memory it gets from these
 * callbacks. Each hands back the caller's image itself (udata) and copies
 * nothing, as libhdf5's H5LTopen_file_image does with DONT_COPY: the file is
 * read in place from the parent's map or buffer, which the child inherited,
 * so no file is opened and no copy is made. The file is opened read-only:
 * nothing ever writes to the image (its map is read-only anyway). */
static void *image_malloc(size_t size, int op, void *udata)
{
    (void)size;
    (void)op;
    return udata;
}

static void *image_memcpy(void *dest, const void *src, size_t size, int op, void *udata)
{
    (void)size;
    (void)op;
    return dest == udata && src == udata ? dest : NULL;
}

static void *image_realloc(void *ptr, size_t size, int op, void *udata)
{
    (void)ptr;
    (void)size;
    (void)op;
    (void)udata;
    return NULL;
}

static herr_t image_free(void *ptr, int op, void *udata)
{
    (void)ptr;
    (void)op;
    (void)udata;
    return 0;
}

static void *udata_copy(void *udata)
{
    return udata;
}

static herr_t udata_free(void *udata)
{
    (void)udata;
    return 0;
}

/* Opens the image data[0..len) read-only through the core driver, or -1. */
static hid_t open_image(const unsigned char *data, size_t len)
{
    hid_t fapl = api.H5Pcreate(*api.fapl_class), file = -1;
    if (fapl < 0)
        return -1;
    h5_image_callbacks cb = {image_malloc, image_memcpy, image_realloc, image_free,
                             udata_copy, udata_free, (void *)(uintptr_t)data};
    if (api.H5Pset_fapl_core(fapl, 1 << 16, 0) >= 0 &&
        api.H5Pset_file_image_callbacks(fapl, &cb) >= 0 &&
        api.H5Pset_file_image(fapl, (void *)(uintptr_t)data, len) >= 0)
        file = api.H5Fopen("image.h5", 0 /* H5F_ACC_RDONLY */, fapl);
    api.H5Pclose(fapl);
    return file;
}

/* ---- the reader --------------------------------------------------------------- */

/* Runs in the child (hdf5_child.c): every array of the file into f, each
 * passed to on_array(f, arg) as soon as it is added. */
ts_status ts__hdf5_list(ts_file *f, const unsigned char *data, size_t len,
                        const ts_open_options *opts, ts__hdf5_array_fn on_array, void *arg,
                        ts_error *err)
{
    int64_t at = find_signature(data, len, ts__file_source(f));
    if (load_api() < 0)
        return ts__error(err, TS_ERR_UNSUPPORTED, "%s", api_error);
    hid_t file = at < 0 ? -1 : open_image(data, len);
    if (file < 0)
        return ts__fail(err, TS_ERR_FORMAT, 0, at,
                        "not a readable HDF5 file: libhdf5 cannot open it (signature at byte "
                        "%lld)", (long long)at);
    h5_reader r = {f, len, err, TS_OK, NULL, 0, 0, NULL, on_array, arg};
    if (opts->path && !(r.path = ts__file_strndup(f, opts->path, strlen(opts->path), err))) {
        api.H5Fclose(file);
        return TS_ERR_NOMEM;
    }
    herr_t ret = api.H5Lvisit(file, 0 /* by name */, 0 /* increasing */, visit, &r);
    ts_status st = r.st;
    if (!st && ret < 0)
        st = ts__error(err, TS_ERR_FORMAT, "not a readable HDF5 file: libhdf5 cannot list its "
                                           "groups");
    free(r.seen);
    if (!st && opts->want_metadata)
        st = keras_metadata(f, file, err);
    api.H5Fclose(file);
    return st;
}

/* The checks tshape makes itself, then libhdf5's listing in a child
 * process (hdf5_child.c). */
static ts_status read_hdf5(ts_file *f, const unsigned char *data, size_t len,
                           const ts_open_options *opts, ts_error *err)
{
    int64_t at = find_signature(data, len, ts__file_source(f));
    if (at < 0)
        return ts__fail(err, TS_ERR_FORMAT, 0, 0,
                        "not an HDF5 file: no signature \\x89HDF\\r\\n\\x1a\\n at byte 0, 512, "
                        "1024 or a later power of two");
    /* The superblock fields checked here: at most 8 + 28 + 3 * 8 bytes. */
    ts_status st = ts__file_need(f, (uint64_t)at, 64, err);
    int64_t extent = -1;
    if (st || (st = check_superblock(data, len, at, &extent, err)))
        return st;
    ts__file_set_extent(f, extent); /* the superblock's end of file */
    if (load_api() < 0)
        return ts__error(err, TS_ERR_UNSUPPORTED, "%s", api_error);
    /* The child reads the image in memory: a file read by range requests
     * (or sparsely) is fetched whole first (the fetch budget bounds it). */
    if ((st = ts__file_need(f, 0, len, err)))
        return st;
    const char *version = ts__file_printf(f, err, "superblock %d", data[at + 8]);
    if (!version)
        return TS_ERR_NOMEM;
    ts__file_set_version(f, version);
    return ts__hdf5_isolated_list(f, data, len, opts, err);
}

/* An HDF5 file inside f's file (a .keras zip member): checked and listed
 * like a file of its own, its arrays then placed in f (hdf5_child.h). */
ts_status ts__hdf5_read_embedded(ts_file *f, const unsigned char *img, size_t len,
                                 int64_t base, const ts_open_options *opts, ts_error *err)
{
    int64_t at = find_signature(img, len, NULL), extent = -1;
    ts_status st;
    if (at < 0)
        st = ts__fail(err, TS_ERR_FORMAT, 0, 0,
                      "not an HDF5 file: no signature \\x89HDF\\r\\n\\x1a\\n at byte 0, "
                      "512, 1024 or a later power of two");
    else
        st = check_superblock(img, len, at, &extent, err);
    if (st) {
        if (err && base >= 0 && err->offset >= 0)
            err->offset += base;
        return st;
    }
    if (load_api() < 0)
        return ts__error(err, TS_ERR_UNSUPPORTED, "%s", api_error);
    size_t first = ts_file_count(f);
    if ((st = ts__hdf5_isolated_list(f, img, len, opts, err)))
        return st;
    for (size_t i = first; i < ts_file_count(f); i++) {
        ts_array *a = ts__file_array_mut(f, i);
        const ts__data_src *old = ts__file_data_src(f, a);
        ts__data_src ds;
        if (old) {
            ds = *old;
        } else {
            memset(&ds, 0, sizeof ds);
            ds.kind = TS__SRC_HDF5;
            ds.size = a->nbytes;
            ds.h5_dataset = a->name;
        }
        if (a->data_offset >= 0 && base >= 0) {
            a->data_offset += base; /* fits: the member lies inside the file */
            continue;
        }
        if (a->data_offset >= 0) { /* inside an inflated copy: read through libhdf5 */
            const char *note = ts__file_printf(f, err, "%s; at byte %lld of the inflated "
                                               "member, no offset in the file",
                                               a->note ? a->note : "", (long long)a->data_offset);
            if (!note)
                return TS_ERR_NOMEM;
            a->note = note;
            a->data_offset = -1;
        } else if (!old) {
            continue; /* no data: variable-length, empty */
        }
        if (base >= 0)
            ds.h5_image_offset = base;
        else
            ds.h5_image = img;
        ds.h5_image_len = len;
        if ((st = ts__file_set_data_src(f, a, &ds, err)))
            return st;
    }
    return TS_OK;
}

/* ---- values: reading a dataset through libhdf5 ------------------------------ */

typedef struct h5_read {
    hid_t file, dset, type, space;
    int ndim;
    hsize_t dims[H5_MAX_RANK];
    size_t itemsize;
} h5_read;

void ts__hdf5_local_end(void *state)
{
    h5_read *h = state;
    if (!h)
        return;
    if (h->space >= 0)
        api.H5Sclose(h->space);
    if (h->type >= 0)
        api.H5Tclose(h->type);
    if (h->dset >= 0)
        api.H5Dclose(h->dset);
    if (h->file >= 0)
        api.H5Fclose(h->file);
    free(h);
}

ts_status ts__hdf5_local_begin(const char *dataset, const unsigned char *image, size_t len,
                               size_t itemsize, int64_t count, void **state, ts_error *err)
{
    *state = NULL;
    if (load_api() < 0)
        return ts__error(err, TS_ERR_UNSUPPORTED, "%s", api_error);
    h5_read *h = calloc(1, sizeof *h);
    if (!h)
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    h->file = h->dset = h->type = h->space = -1;
    h->file = open_image(image, len);
    if (h->file >= 0)
        h->dset = api.H5Dopen2(h->file, dataset, 0);
    if (h->dset >= 0) {
        h->type = api.H5Dget_type(h->dset);
        h->space = api.H5Dget_space(h->dset);
    }
    if (h->type < 0 || h->space < 0) {
        ts__hdf5_local_end(h);
        return ts__error(err, TS_ERR_FORMAT, "libhdf5 cannot open the dataset");
    }
    h->itemsize = api.H5Tget_size(h->type);
    h->ndim = api.H5Sget_simple_extent_type(h->space) == H5S_SIMPLE
                  ? api.H5Sget_simple_extent_ndims(h->space) : 0;
    if (h->ndim < 0 || h->ndim > H5_MAX_RANK || h->itemsize == 0 ||
        (h->ndim > 0 && api.H5Sget_simple_extent_dims(h->space, h->dims, NULL) != h->ndim)) {
        ts__hdf5_local_end(h);
        return ts__error(err, TS_ERR_FORMAT, "libhdf5 cannot read the dataset's dataspace");
    }
    /* The dataset must still be what the listing found (a file read from
     * its map may have changed since), or reads would not fit the caller's
     * buffers. */
    hsize_t total = 1;
    int fits = 1;
    for (int k = 0; k < h->ndim; k++) {
        if (h->dims[k] != 0 && total > (hsize_t)INT64_MAX / h->dims[k])
            fits = 0;
        total *= h->dims[k];
    }
    if (!fits || total != (hsize_t)count || h->itemsize != itemsize) {
        const size_t now = h->itemsize;
        ts__hdf5_local_end(h);
        return ts__error(err, TS_ERR_FORMAT, "the dataset has changed since the file was "
                                             "opened (%llu elements of %zu bytes, not %lld of "
                                             "%zu)", fits ? (unsigned long long)total : 0ULL,
                         now, (long long)count, itemsize);
    }
    *state = h;
    return TS_OK;
}

/*
 * The flat range is cut into hyperslabs: at flat position p (multi-index
 * idx), the largest block that starts there and fits the rest: axis k is
 * the outermost axis such that idx is 0 on every axis after k and one
 * step of k (the product of the dims after it) still fits; the block then
 * takes m steps along k (not past its end) and whole extents after it.
 */
ts_status ts__hdf5_local_read(void *state, int64_t first, int64_t n, void *out, ts_error *err)
{
    h5_read *h = state;
    unsigned char *o = out;
    hsize_t size = 1;
    for (int k = 0; k < h->ndim; k++)
        size *= h->dims[k];  /* fits: checked by ts__hdf5_begin */
    if (first < 0 || n < 0 || (hsize_t)first > size || (hsize_t)n > size - (hsize_t)first)
        return ts__error(err, TS_ERR_INDEX, "elements %lld..%lld are outside the dataset",
                         (long long)first, (long long)(first + n));
    if (n == 0)
        return TS_OK;
    if (h->ndim == 0) {
        if (first != 0 || n != 1 || api.H5Dread(h->dset, h->type, 0, 0, 0, o) < 0)
            return ts__error(err, TS_ERR_FORMAT, "libhdf5 cannot read the scalar dataset");
        return TS_OK;
    }
    const int nd = h->ndim;
    hsize_t unit[H5_MAX_RANK];
    unit[nd - 1] = 1;
    for (int k = nd - 2; k >= 0; k--)
        unit[k] = unit[k + 1] * h->dims[k + 1];
    while (n > 0) {
        hsize_t idx[H5_MAX_RANK], rest = (hsize_t)first;
        for (int k = 0; k < nd; k++) {
            idx[k] = rest / unit[k];
            rest %= unit[k];
        }
        int k = nd - 1;
        while (k > 0 && idx[k] == 0 && unit[k - 1] <= (hsize_t)n)
            k--;
        hsize_t m = (hsize_t)n / unit[k];
        if (m > h->dims[k] - idx[k])
            m = h->dims[k] - idx[k];
        hsize_t start[H5_MAX_RANK], count[H5_MAX_RANK];
        for (int j = 0; j < nd; j++) {
            start[j] = j <= k ? idx[j] : 0;
            count[j] = j < k ? 1 : j == k ? m : h->dims[j];
        }
        hsize_t total = m * unit[k];
        hid_t mem = api.H5Screate_simple(1, &total, NULL);
        herr_t rc = -1;
        if (mem >= 0 && api.H5Sselect_hyperslab(h->space, 0 /* H5S_SELECT_SET */, start, NULL,
                                                count, NULL) >= 0)
            rc = api.H5Dread(h->dset, h->type, mem, h->space, 0, o);
        if (mem >= 0)
            api.H5Sclose(mem);
        if (rc < 0)
            return ts__error(err, TS_ERR_FORMAT,
                             "libhdf5 cannot read elements %lld..%lld (a filter it lacks, "
                             "or corrupt chunks)", (long long)first,
                             (long long)(first + (int64_t)total));
        o += total * h->itemsize;
        first += (int64_t)total;
        n -= (int64_t)total;
    }
    return TS_OK;
}

const ts__reader ts__reader_hdf5 = {
    {TS_FORMAT_HDF5, "hdf5", ".h5 .hdf5 .weights.h5",
     "the 8-byte signature 0x89 HDF 0d 0a 1a 0a at byte 0 or after a user block (512, 1024, ...)",
     "HDF5 / Keras weights (every dataset; libhdf5 1.10, loaded when needed)", "class", 0},
    probe_hdf5,
    read_hdf5,
    0,
};
