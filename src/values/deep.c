/*
 * deep.c - the deep pass of ts_verify (verify.h): the data of every member
 * of a model, read once, on all cores.
 *
 * The work is a list of jobs taken by a pool of threads in order:
 *   - chunks of regions: runs of stored bytes, each read once (a zip
 *     member stored as is, or where zips are not involved, a tensor's
 *     data or the storage its views share), cut in steps of CHUNK bytes;
 *     each step's CRC-32 (zlib) when the region has one to match (a zip
 *     member's, from the central directory; the CRC-32C of a TensorFlow
 *     checkpoint tensor, from its index entry) and the NaN and infinite
 *     values among the float elements it holds (the region's scan range);
 *     the steps' CRCs are joined in order with crc32_combine;
 *   - streams: the data of one tensor that is not stored as is (a
 *     deflated .npz member, inflated whole so that walk.c checks its size
 *     and CRC-32; ONNX typed fields; chunked HDF5 datasets), read through
 *     the values layer;
 *   - inflations: a deflated zip member that is no tensor's data (a
 *     pickle), inflated with zlib to check its size and CRC-32.
 * Step boundaries of a region fall on multiples of CHUNK from the start of
 * its scan range, so no element straddles two steps. A mapped file's steps
 * are read under the fault guard and released from memory afterwards; a
 * file read with pread (or over HTTP) is read into each thread's buffer.
 */
#include "values.h"
#include "../formats/verify.h"
#include "../formats/zip.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include "../core/zlib_lazy.h"

/* Bytes per step of a region (a multiple of 8: element boundaries). */
#define CHUNK ((int64_t)8 << 20)
/* Bytes of a step handed to the CRC and then to the scan, while they are
 * in the cache (a multiple of 8: element boundaries stay aligned). */
#define PIECE ((int64_t)128 << 10)
/* Bytes between progress reports. */
#define PROGRESS_BYTES ((int64_t)64 << 20)
/* Compressed bytes read per step of an inflation. */
#define INFLATE_IN ((size_t)1 << 20)

typedef enum job_kind { JOB_CHUNK, JOB_STREAM, JOB_INFLATE } job_kind;

/* A run of stored bytes read once (see above). */
typedef struct region {
    ts__source *src;
    size_t file;                 /* member of the model */
    int64_t off, len;
    int has_crc;
    uint32_t crc;                /* expected CRC-32 */
    const char *member;          /* zip member, or NULL */
    ts_dtype scan;               /* float dtype scanned, or TS_DTYPE_UNKNOWN */
    int64_t scan_off, scan_len;
    const char *tensor;          /* the tensor (first of a storage) scanned */
    size_t first, nchunks;       /* its jobs */
    int castagnoli;              /* crc is a CRC-32C (a TensorFlow checkpoint
                                    tensor's, for crc_of in the shard `where`) */
    const char *crc_of, *where;
} region;

typedef struct job {
    job_kind kind;
    size_t region;               /* JOB_CHUNK */
    int64_t off, len;            /* JOB_CHUNK: bytes; JOB_INFLATE: compressed */
    size_t file;                 /* JOB_STREAM, JOB_INFLATE */
    const ts_array *array;       /* JOB_STREAM */
    const char *member;          /* JOB_INFLATE */
    int64_t size;                /* JOB_INFLATE: inflated bytes expected */
    uint32_t crc;                /* JOB_INFLATE: the CRC-32 expected */
    uint32_t found;              /* JOB_CHUNK, JOB_INFLATE: the CRC-32 of the data */
    int64_t nan, inf;
    ts_status st;
    ts_error *err;               /* malloc'ed on failure */
} job;

typedef struct pass {
    const ts_model *m;
    const ts_verify_options *o;
    region *r;
    size_t nr, capr;
    job *j;
    size_t nj, capj;
    atomic_size_t next;
    atomic_llong done;
    int64_t total;
    long long reported;
    int nthreads;
    char **names;                /* zip member names, freed at the end */
    size_t nnames;
} pass;

typedef struct worker {
    pass *P;
    int reporter;
    unsigned char *buf;          /* CHUNK bytes */
    job *cur;
} worker;

/* ---- CRC-32 ------------------------------------------------------------------ */

/* The CRC-32 of zip: ts__crc32_fast (lazylib.c: ISA-L's or libdeflate's
 * when one loads, zlib's otherwise). */
#define crc_update(crc, p, n) ts__crc32_fast((crc), (p), (n))

/* ---- NaN and infinity --------------------------------------------------- */

/* 1 on a little-endian machine, whose loads give stored '<' values. */
static int little_endian(void)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

/* Float dtypes whose non-finite values are counted, by their exponent
 * bits (IEEE 754 binary16/32/64, bfloat16). */
static int scannable(const ts_array *a)
{
    if (a->byteorder == '>' || !little_endian())
        return 0;
    return a->dtype == TS_DTYPE_FLOAT16 || a->dtype == TS_DTYPE_BFLOAT16 ||
           a->dtype == TS_DTYPE_FLOAT32 || a->dtype == TS_DTYPE_FLOAT64;
}

/* The any-test of count_nonfinite over 64-bit words [0, words): 1 when a
 * lane of one has all its exponent bits set. */
static int any_nonfinite(const unsigned char *p, size_t words, uint64_t M, uint64_t add,
                         uint64_t top)
{
    uint64_t any = 0;
    for (size_t i = 0; i < words; i++) {
        uint64_t w;
        memcpy(&w, p + 8 * i, 8);
        any |= ~(((w & M) ^ M) + add) & top;
    }
    return any != 0;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
/* any_nonfinite with AVX2, four words at a time (the same lanes: a 64-bit
 * addition does not carry across them either). */
__attribute__((target("avx2"))) static int any_nonfinite_avx2(const unsigned char *p,
                                                              size_t words, uint64_t M,
                                                              uint64_t add, uint64_t top)
{
    const __m256i m = _mm256_set1_epi64x((long long)M), a = _mm256_set1_epi64x((long long)add),
                  t = _mm256_set1_epi64x((long long)top);
    __m256i acc = _mm256_setzero_si256();
    size_t i = 0;
    for (; i + 4 <= words; i += 4) {
        __m256i w = _mm256_loadu_si256((const __m256i *)(const void *)(p + 8 * i));
        acc = _mm256_or_si256(
            acc, _mm256_andnot_si256(
                     _mm256_add_epi64(_mm256_xor_si256(_mm256_and_si256(w, m), m), a), t));
    }
    return !_mm256_testz_si256(acc, acc) || any_nonfinite(p + 8 * i, words - i, M, add, top);
}
#endif

/*
 * Counts NaN and infinite values among the n bytes at p (whole elements).
 * A first pass over 64-bit words finds whether any element has all its
 * exponent bits set, lane by lane without branches: x = (w & M) ^ M is 0 in
 * such a lane, and adding 2^(bits-1) - 1 to each lane (which cannot carry
 * out of it, x being below the lane's top bit) leaves the top bit clear
 * only there. Only then are the elements classified one by one.
 */
static void count_nonfinite(ts_dtype dt, const unsigned char *p, size_t n, int64_t *nan,
                            int64_t *inf)
{
    uint64_t M, add, top;
    size_t isz;
    if (dt == TS_DTYPE_FLOAT16) {
        M = 0x7c007c007c007c00u, add = 0x7fff7fff7fff7fffu, top = 0x8000800080008000u;
        isz = 2;
    } else if (dt == TS_DTYPE_BFLOAT16) {
        M = 0x7f807f807f807f80u, add = 0x7fff7fff7fff7fffu, top = 0x8000800080008000u;
        isz = 2;
    } else if (dt == TS_DTYPE_FLOAT32) {
        M = 0x7f8000007f800000u, add = 0x7fffffff7fffffffu, top = 0x8000000080000000u;
        isz = 4;
    } else if (dt == TS_DTYPE_FLOAT64) {
        M = 0x7ff0000000000000u, add = 0x7fffffffffffffffu, top = 0x8000000000000000u;
        isz = 8;
    } else {
        return;
    }
    size_t words = n / 8;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    int any = ts__cpu_has_avx2() ? any_nonfinite_avx2(p, words, M, add, top)
                                 : any_nonfinite(p, words, M, add, top);
#else
    int any = any_nonfinite(p, words, M, add, top);
#endif
    int tail = 0;
    for (size_t i = words * 8; i + isz <= n; i += isz) {
        uint64_t w = 0;
        memcpy(&w, p + i, isz);
        tail |= (w & M & (isz == 8 ? ~(uint64_t)0 : (((uint64_t)1 << (8 * isz)) - 1))) ==
                (M & (isz == 8 ? ~(uint64_t)0 : (((uint64_t)1 << (8 * isz)) - 1)));
    }
    if (!any && !tail)
        return;
    uint64_t em = isz == 8 ? M : M & (((uint64_t)1 << (8 * isz)) - 1);
    uint64_t sign = (uint64_t)1 << (8 * isz - 1);
    for (size_t i = 0; i + isz <= n; i += isz) {
        uint64_t w = 0;
        memcpy(&w, p + i, isz);
        if ((w & em) != em)
            continue;
        if (w & ~em & ~sign)
            (*nan)++;
        else
            (*inf)++;
    }
}

/* ---- building the jobs ---------------------------------------------------- */

static ts_status add_job(pass *P, const job *j, ts_error *err)
{
    if (P->nj == P->capj) {
        size_t cap = P->capj ? P->capj * 2 : 64;
        job *p = realloc(P->j, cap * sizeof *p);
        if (!p)
            return ts__error(err, TS_ERR_NOMEM, "out of memory");
        P->j = p;
        P->capj = cap;
    }
    P->j[P->nj++] = *j;
    return TS_OK;
}

static ts_status add_region(pass *P, const region *r, ts_error *err)
{
    if (P->nr == P->capr) {
        size_t cap = P->capr ? P->capr * 2 : 64;
        region *p = realloc(P->r, cap * sizeof *p);
        if (!p)
            return ts__error(err, TS_ERR_NOMEM, "out of memory");
        P->r = p;
        P->capr = cap;
    }
    P->r[P->nr++] = *r;
    return TS_OK;
}

/* The zip members of file f (npz, PyTorch), copied out of the directory. */
typedef struct zip_job {
    ts_file *f;
    const unsigned char *data;
    size_t len;
    ts__zip_member *members;
    char **names;                /* copies, kept by the pass (pass.names) */
    size_t n;
} zip_job;

static ts_status read_directory(void *arg, ts_error *err)
{
    zip_job *z = arg;
    ts__zip *zip;
    ts_status st = ts__zip_open(&zip, z->f, z->data, z->len, err);
    if (st != TS_OK)
        return st;
    z->n = ts__zip_count(zip);
    z->members = malloc((z->n ? z->n : 1) * sizeof *z->members);
    z->names = calloc(z->n ? z->n : 1, sizeof *z->names);
    st = z->members && z->names ? TS_OK : ts__error(err, TS_ERR_NOMEM, "out of memory");
    for (size_t i = 0; st == TS_OK && i < z->n; i++) {
        z->members[i] = *ts__zip_member_at(zip, i);
        size_t k = strlen(z->members[i].name) + 1;
        if (!(z->names[i] = malloc(k)))
            st = ts__error(err, TS_ERR_NOMEM, "out of memory");
        else
            memcpy(z->names[i], z->members[i].name, k);
        z->members[i].name = z->names[i];
    }
    ts__zip_close(z->f, zip);
    return st;
}

/* Takes over the member names of z (freed with the pass); -1 when out of
 * memory (the names are freed). */
static int keep_names(pass *P, zip_job *z)
{
    if (!z->names)
        return 0;
    char **p = realloc(P->names, (P->nnames + z->n + 1) * sizeof *p);
    if (!p) {
        for (size_t i = 0; i < z->n; i++)
            free(z->names[i]);
        free(z->names);
        z->names = NULL;
        return -1;
    }
    P->names = p;
    for (size_t i = 0; i < z->n; i++)
        P->names[P->nnames++] = z->names[i];
    free(z->names);
    z->names = (char **)P->names + P->nnames - z->n;
    return 0;
}

/* Where the stored bytes of a are (its storage's, for a view): source,
 * start and length; 0 when its data is not stored as is. */
static int stored_range(const ts_file *f, const ts_array *a, ts__source **src, int64_t *base,
                        int64_t *len, ts_error *err, ts_status *st)
{
    const ts__data_src *ds = ts__file_data_src(f, a);
    *st = TS_OK;
    *src = ts__file_source(f);
    if (ds && ds->kind != TS__SRC_STORED)
        return 0;
    if (ds && ds->side && (*st = ts__side_source(f, ds->side, src, err)) != TS_OK)
        return 0;
    *base = ds && ds->has_storage ? ds->storage_start : a->data_offset;
    *len = ds && ds->has_storage && ds->storage_nbytes > 0 ? ds->storage_nbytes : a->nbytes;
    return *base >= 0 && *len >= 0;
}

/* The jobs of member i: its zip members, its tensors' regions, streams. */
static ts_status plan_file(pass *P, size_t i, ts_verify *v, ts_error *err)
{
    const ts_file *f = ts_model_file(P->m, i);
    const char *path = ts_model_file_path(P->m, i);
    size_t len;
    const unsigned char *data = ts__file_image(f, &len);
    size_t first_region = P->nr;
    zip_job z = {(ts_file *)(uintptr_t)f, data, len, NULL, NULL, 0};
    int zip = len >= 4 && memcmp(data, "PK\3\4", 4) == 0;
    ts_status st = TS_OK;
    unsigned char *covered = NULL;
    if (zip) {
        ts_error e;
        st = ts__file_guard(f, read_directory, &z, &e);
        if (keep_names(P, &z) != 0 && st == TS_OK)
            st = ts__error(&e, TS_ERR_NOMEM, "out of memory");
        if (st != TS_OK) {
            free(z.members);
            if (st == TS_ERR_NOMEM)
                return ts__error(err, st, "out of memory");
            return ts__verify_add(v, TS_VERIFY_UNREADABLE_FILE, TS_VERIFY_UNREADABLE, path,
                                  NULL, -1, -1, err, "'%s': its zip directory cannot be "
                                  "read again: %s", path, e.message);
        }
        covered = calloc(z.n ? z.n : 1, 1);
        if (!covered) {
            free(z.members);
            return ts__error(err, TS_ERR_NOMEM, "out of memory");
        }
        for (size_t k = 0; st == TS_OK && k < z.n; k++) {
            const ts__zip_member *zm = &z.members[k];
            if (zm->method != TS__ZIP_STORED)
                continue;
            region r = {ts__file_source(f), i, zm->data_offset, (int64_t)zm->size, 1,
                        zm->crc32, z.names[k], TS_DTYPE_UNKNOWN, zm->data_offset, 0, NULL,
                        0, 0, 0, NULL, NULL};
            covered[k] = 1;
            st = add_region(P, &r, err);
        }
    }
    /* the tensors */
    for (size_t k = 0; st == TS_OK && k < ts_file_count(f); k++) {
        const ts_array *a = ts_file_array(f, k);
        if (a->size == 0 || a->nbytes == 0)
            continue;
        ts__source *src;
        int64_t base, n;
        ts_error e;
        ts_status sst;
        int stored = stored_range(f, a, &src, &base, &n, &e, &sst);
        if (sst) {
            st = ts__verify_add(v, TS_VERIFY_UNREADABLE_FILE, TS_VERIFY_UNREADABLE, path, a->name,
                                -1, -1, err, "'%s': tensor '%s': %s", path, a->name, e.message);
            continue;
        }
        if (!stored) {
            const ts__data_src *ds = ts__file_data_src(f, a);
            if (!ds) {
                st = ts__verify_add(v, TS_VERIFY_NOTE, TS_VERIFY_OK, path, a->name, -1, -1, err,
                                    "'%s': tensor '%s' was not read: its data is not stored "
                                    "in the file%s%s", path, a->name, a->note ? ": " : "",
                                    a->note ? a->note : "");
                continue;
            }
            /* a deflated member read whole checks its CRC (walk.c) */
            for (size_t q = 0; zip && q < z.n; q++)
                if (ds->kind == TS__SRC_DEFLATE && z.members[q].data_offset == ds->comp_offset) {
                    if (covered[q])
                        goto next; /* its member is read by another view */
                    covered[q] = 1;
                }
            job j = {JOB_STREAM, 0, 0, 0, i, a, NULL, 0, 0, 0, 0, 0, TS_OK, NULL};
            st = add_job(P, &j, err);
            P->total += a->nbytes;
            continue;
        }
        /* a stored run: inside a zip member's region, or its own */
        size_t r;
        for (r = first_region; r < P->nr; r++)
            if (P->r[r].src == src && base >= P->r[r].off && n <= P->r[r].off + P->r[r].len - base)
                break;
        if (r == P->nr) {
            region nr = {src, i, base, n, 0, 0, NULL, TS_DTYPE_UNKNOWN, base, 0, NULL, 0, 0,
                         0, NULL, NULL};
            const ts__data_src *ds = ts__file_data_src(f, a);
            if (ds && ds->has_crc32c && n == a->nbytes) {
                nr.has_crc = nr.castagnoli = 1;
                nr.crc = ds->crc32c;
                nr.crc_of = a->name;
                nr.where = a->storage_key;
            }
            if ((st = add_region(P, &nr, err)) != TS_OK)
                break;
        }
        if (P->r[r].scan == TS_DTYPE_UNKNOWN && !P->r[r].tensor && scannable(a)) {
            P->r[r].scan = a->dtype;
            P->r[r].scan_off = base;
            P->r[r].scan_len = n / a->itemsize * a->itemsize;
            P->r[r].tensor = a->name;
        }
    next:;
    }
    /* deflated zip members no tensor reads (pickles): inflated */
    for (size_t k = 0; st == TS_OK && zip && k < z.n; k++) {
        const ts__zip_member *zm = &z.members[k];
        if (covered[k])
            continue;
        if (zm->method != TS__ZIP_DEFLATED) {
            st = ts__verify_add(v, TS_VERIFY_NOTE, TS_VERIFY_OK, path, NULL, -1, -1, err,
                                "'%s': zip member %zu (compression method %d) was not "
                                "checked", path, k, zm->method);
            continue;
        }
        job j = {JOB_INFLATE, 0, zm->data_offset, (int64_t)zm->comp_size, i, NULL,
                 z.names[k], (int64_t)zm->size, zm->crc32, 0, 0, 0, TS_OK, NULL};
        st = add_job(P, &j, err);
        P->total += (int64_t)zm->comp_size;
    }
    free(z.members);
    free(covered);
    return st;
}

/* Cuts every region in steps, boundaries at multiples of CHUNK from its
 * scan range's start. */
static ts_status plan_chunks(pass *P, ts_error *err)
{
    for (size_t r = 0; r < P->nr; r++) {
        region *g = &P->r[r];
        int64_t end = g->off + g->len, at = g->off;
        g->first = P->nj;
        while (at < end) {
            /* the first boundary scan_off + m * CHUNK past at */
            int64_t rel = at - g->scan_off;
            int64_t m = rel >= 0 ? rel / CHUNK + 1 : -((-rel - 1) / CHUNK);
            int64_t b = g->scan_off + m * CHUNK;
            if (b > end)
                b = end;
            job j = {JOB_CHUNK, r, at, b - at, g->file, NULL, NULL, 0, 0, 0, 0, 0, TS_OK, NULL};
            ts_status st = add_job(P, &j, err);
            if (st)
                return st;
            at = b;
        }
        g->nchunks = P->nj - g->first;
        P->total += g->len;
    }
    return TS_OK;
}

/* ---- running the jobs ------------------------------------------------------- */

static void progress(worker *w, int64_t bytes)
{
    pass *P = w->P;
    long long now = atomic_fetch_add(&P->done, bytes) + bytes;
    if (w->reporter && P->o->progress && now / PROGRESS_BYTES != P->reported / PROGRESS_BYTES) {
        P->reported = now;
        P->o->progress(P->o->progress_ctx, now, P->total);
    }
}

static ts_status run_chunk_bytes(void *arg, ts_error *err)
{
    worker *w = arg;
    job *j = w->cur;
    const region *g = &w->P->r[j->region];
    const unsigned char *p = ts__source_view(g->src, (uint64_t)j->off, (size_t)j->len, w->buf,
                                             err);
    if (!p)
        return err ? err->code : TS_ERR_IO;
    /* the CRC and the scan of each piece while it is in the cache */
    int64_t s0 = j->off > g->scan_off ? j->off : g->scan_off;
    int64_t s1 = j->off + j->len < g->scan_off + g->scan_len ? j->off + j->len
                                                             : g->scan_off + g->scan_len;
    uint32_t crc = 0;
    for (int64_t at = j->off; at < j->off + j->len; at += PIECE) {
        int64_t end = at + PIECE < j->off + j->len ? at + PIECE : j->off + j->len;
        if (g->has_crc)
            crc = g->castagnoli ? ts__crc32c(crc, p + (at - j->off), (size_t)(end - at))
                                : crc_update(crc, p + (at - j->off), (size_t)(end - at));
        int64_t a = at > s0 ? at : s0, b = end < s1 ? end : s1;
        if (g->scan != TS_DTYPE_UNKNOWN && b > a)
            count_nonfinite(g->scan, p + (a - j->off), (size_t)(b - a), &j->nan, &j->inf);
    }
    j->found = crc;
    return TS_OK;
}

static ts_status run_chunk(worker *w, job *j, ts_error *err)
{
    const region *g = &w->P->r[j->region];
    w->cur = j;
    ts_status st;
    if (ts__source_is_mapped(g->src)) {
        uint64_t size;
        const unsigned char *image = ts__source_image(g->src, &size);
        st = ts__guarded_parse(image, (size_t)size, run_chunk_bytes, w, err);
        ts__source_release(g->src, (uint64_t)j->off, (uint64_t)j->len);
    } else {
        st = run_chunk_bytes(w, err);
    }
    progress(w, j->len);
    return st;
}

/* A stream's sink: counts the values, reports progress. */
typedef struct stream_ctx {
    worker *w;
    job *j;
    const ts__data *d;
    int scan;
} stream_ctx;

static ts_status stream_sink(void *ctx, const unsigned char *p, int64_t n, ts_error *err)
{
    stream_ctx *s = ctx;
    (void)err;
    int64_t bytes = s->d->dec.block > 1 ? n / s->d->dec.block * s->d->dec.block_bytes
                                        : n * s->d->dec.elem_bytes;
    if (s->scan)
        count_nonfinite(s->j->array->dtype, p, (size_t)bytes, &s->j->nan, &s->j->inf);
    progress(s->w, bytes);
    return TS_OK;
}

static ts_status run_stream(worker *w, job *j, ts_error *err)
{
    const ts_file *f = ts_model_file(w->P->m, j->file);
    ts__data d;
    ts_status st = ts__data_open(&d, f, j->array, err);
    if (st)
        return st;
    stream_ctx s = {w, j, &d, scannable(j->array)};
    if (d.count == 0)
        return TS_OK;
    if (!d.contiguous)
        return ts__values_fail(j->array, err, ts__error(err, TS_ERR_UNSUPPORTED,
                               "a strided view of data that is not stored as is"));
    return ts__data_stream(&d, 0, d.count, stream_sink, &s, err);
}

/* Inflates a zip member whole: its size and CRC-32 against the directory. */
static ts_status run_inflate(worker *w, job *j, ts_error *err)
{
    const ts_file *f = ts_model_file(w->P->m, j->file);
    ts__source *src = ts__file_source(f);
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    unsigned char *in = malloc(INFLATE_IN), *out = w->buf;
    if (!in || inflateInit2(&zs, -MAX_WBITS) != Z_OK) {
        free(in);
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    }
    uLong crc = crc32(0L, Z_NULL, 0);
    int64_t left = j->len, inflated = 0, at = j->off;
    int rc = Z_OK;
    ts_status st = TS_OK;
    while (rc != Z_STREAM_END) {
        if (zs.avail_in == 0 && left > 0) {
            size_t k = (uint64_t)left < INFLATE_IN ? (size_t)left : INFLATE_IN;
            if ((st = ts__source_read(src, (uint64_t)at, in, k, err)) != TS_OK)
                break;
            zs.next_in = in;
            zs.avail_in = (uInt)k;
            at += (int64_t)k;
            left -= (int64_t)k;
            progress(w, (int64_t)k);
        }
        zs.next_out = out;
        zs.avail_out = (uInt)CHUNK;
        rc = inflate(&zs, Z_NO_FLUSH);
        size_t produced = (size_t)CHUNK - zs.avail_out;
        crc = crc32(crc, out, (uInt)produced);
        inflated += (int64_t)produced;
        if (rc != Z_OK && rc != Z_STREAM_END) {
            if (!(rc == Z_BUF_ERROR && produced > 0)) {
                st = ts__error(err, rc == Z_MEM_ERROR ? TS_ERR_NOMEM : TS_ERR_FORMAT,
                               "its deflate stream fails to inflate after %lld bytes: %s",
                               (long long)inflated, zs.msg ? zs.msg : "ends early");
                break;
            }
        }
        if (inflated > j->size) /* a bound on the work: a bomb stops here */
            break;
    }
    inflateEnd(&zs);
    free(in);
    if (st)
        return st;
    if (inflated != j->size)
        return ts__error(err, TS_ERR_FORMAT, "it inflates to %s%lld bytes, the central directory "
                         "says %lld", inflated > j->size ? "more than " : "",
                         (long long)(inflated > j->size ? j->size : inflated), (long long)j->size);
    j->found = (uint32_t)crc;
    return TS_OK;
}

static void *thread_main(void *arg)
{
    worker *w = arg;
    pass *P = w->P;
    for (;;) {
        size_t i = atomic_fetch_add(&P->next, 1);
        if (i >= P->nj)
            return NULL;
        job *j = &P->j[i];
        ts_error e;
        switch (j->kind) {
        case JOB_CHUNK:
            j->st = run_chunk(w, j, &e);
            break;
        case JOB_STREAM:
            j->st = run_stream(w, j, &e);
            break;
        case JOB_INFLATE:
            j->st = run_inflate(w, j, &e);
            break;
        }
        if (j->st && (j->err = malloc(sizeof *j->err)) != NULL)
            *j->err = e;
    }
}

/* ---- results ------------------------------------------------------------------ */

/* A read that failed: the file could not be read (I/O, shrank), or its
 * data is not what its header says. */
static ts_status read_problem(ts_verify *v, const char *path, const char *name,
                              const job *j, ts_error *err)
{
    const char *why = j->err ? j->err->message : "out of memory";
    if (j->st == TS_ERR_IO || j->st == TS_ERR_NOMEM || j->st == TS_ERR_TRUNCATED)
        return ts__verify_add(v, TS_VERIFY_UNREADABLE_FILE, TS_VERIFY_UNREADABLE, path, name, -1,
                              -1, err, "'%s': %s%s%s: cannot be read: %s", path,
                              name ? "'" : "", name ? name : "the data", name ? "'" : "", why);
    return ts__verify_add(v, TS_VERIFY_DATA, TS_VERIFY_CORRUPT, path, name, -1, -1, err,
                          "'%s': %s%s%s: %s", path, name ? "tensor '" : "", name ? name : "data",
                          name ? "'" : "", why);
}

static ts_status nonfinite_problem(ts_verify *v, const char *path, const char *name,
                                   ts_dtype dt, int64_t nan, int64_t inf, ts_error *err)
{
    if (nan == 0 && inf == 0)
        return TS_OK;
    return ts__verify_add(v, TS_VERIFY_NONFINITE, TS_VERIFY_OK, path, name, nan, inf, err,
                          "'%s': tensor '%s' (%s) holds %lld NaN and %lld infinite values",
                          path, name, ts_dtype_name(dt), (long long)nan, (long long)inf);
}

static ts_status report(pass *P, ts_verify *v, ts_error *err)
{
    ts_verify_totals *t = ts__verify_totals(v);
    ts_status st = TS_OK;
    for (size_t r = 0; st == TS_OK && r < P->nr; r++) {
        const region *g = &P->r[r];
        const char *path = ts_model_file_path(P->m, g->file);
        uLong crc = 0;
        int64_t nan = 0, inf = 0;
        const job *bad = NULL;
        for (size_t k = 0; k < g->nchunks; k++) {
            const job *j = &P->j[g->first + k];
            if (j->st && !bad)
                bad = j;
            crc = k == 0 ? j->found
                  : g->castagnoli ? ts__crc32c_combine((uint32_t)crc, j->found, (uint64_t)j->len)
                                  : crc32_combine(crc, j->found, (z_off_t)j->len);
            nan += j->nan;
            inf += j->inf;
        }
        t->data_bytes += g->len;
        if (bad) {
            st = read_problem(v, path, g->member ? g->member : g->tensor, bad, err);
            continue;
        }
        if (g->has_crc) {
            t->crc_checked++;
            if (g->len == 0)
                crc = 0;
            if (g->castagnoli && (uint32_t)crc != g->crc)
                st = ts__verify_add(v, TS_VERIFY_CRC, TS_VERIFY_CORRUPT, path, g->crc_of,
                                    (int64_t)g->crc, (int64_t)(uint32_t)crc, err,
                                    "'%s': tensor '%s' (%lld bytes at byte %lld of %s) has "
                                    "CRC-32C %08lx, its index entry says %08lx (TensorFlow "
                                    "refuses it: checksum does not match)", path, g->crc_of,
                                    (long long)g->len, (long long)g->off,
                                    g->where ? g->where : "its data shard",
                                    (unsigned long)(uint32_t)crc, (unsigned long)g->crc);
            else if ((uint32_t)crc != g->crc)
                st = ts__verify_add(v, TS_VERIFY_CRC, TS_VERIFY_CORRUPT, path, g->member,
                                    (int64_t)g->crc, (int64_t)(uint32_t)crc, err,
                                    "'%s': zip member '%s' (%lld bytes at byte %lld%s%s%s) has "
                                    "CRC-32 %08lx, its central directory entry says %08lx",
                                    path, g->member, (long long)g->len, (long long)g->off,
                                    g->tensor ? ", tensor '" : "", g->tensor ? g->tensor : "",
                                    g->tensor ? "'" : "", (unsigned long)(uint32_t)crc,
                                    (unsigned long)g->crc);
        }
        if (st == TS_OK && g->tensor)
            st = nonfinite_problem(v, path, g->tensor, g->scan, nan, inf, err);
    }
    for (size_t i = 0; st == TS_OK && i < P->nj; i++) {
        const job *j = &P->j[i];
        const char *path = ts_model_file_path(P->m, j->file);
        if (j->kind == JOB_STREAM) {
            const ts__data_src *ds = ts__file_data_src(ts_model_file(P->m, j->file), j->array);
            t->data_bytes += j->array->nbytes;
            if (ds && ds->kind == TS__SRC_DEFLATE)
                t->crc_checked++;
            if (j->st == TS_ERR_DTYPE)
                st = ts__verify_add(v, TS_VERIFY_NOTE, TS_VERIFY_OK, path, j->array->name, -1,
                                    -1, err, "'%s': tensor '%s' was not read: %s", path,
                                    j->array->name, j->err ? j->err->message : "");
            else if (j->st)
                st = ts__verify_add(v, TS_VERIFY_DATA, TS_VERIFY_CORRUPT, path, j->array->name,
                                    -1, -1, err, "'%s': %s", path,
                                    j->err ? j->err->message : "out of memory");
            else
                st = nonfinite_problem(v, path, j->array->name, j->array->dtype, j->nan, j->inf,
                                       err);
        } else if (j->kind == JOB_INFLATE) {
            t->data_bytes += j->len;
            t->crc_checked++;
            if (j->st)
                st = read_problem(v, path, j->member, j, err);
            else if (j->found != j->crc)
                st = ts__verify_add(v, TS_VERIFY_CRC, TS_VERIFY_CORRUPT, path, j->member,
                                    (int64_t)j->crc, (int64_t)j->found, err,
                                    "'%s': zip member '%s' inflates to data of CRC-32 %08lx, "
                                    "its central directory entry says %08lx", path, j->member,
                                    (unsigned long)j->found, (unsigned long)j->crc);
        }
    }
    return st;
}

ts_status ts__verify_deep(ts_verify *v, const ts_model *m, const ts_verify_options *opts,
                          ts_error *err)
{
    pass P;
    memset(&P, 0, sizeof P);
    P.m = m;
    P.o = opts;
    ts_status st = TS_OK;
    for (size_t i = 0; st == TS_OK && i < ts_model_file_count(m); i++)
        st = plan_file(&P, i, v, err);
    /* the regions' steps come first, in file order, then the streams */
    size_t streams = P.nj;
    job *others = NULL;
    if (st == TS_OK && streams > 0) {
        others = P.j;
        P.j = NULL;
        P.nj = P.capj = 0;
    }
    if (st == TS_OK)
        st = plan_chunks(&P, err);
    for (size_t i = 0; st == TS_OK && i < streams; i++)
        st = add_job(&P, &others[i], err);
    free(others);
    int n = opts->nthreads > 0 ? opts->nthreads : ts__cpu_count(256);
    if ((size_t)n > P.nj)
        n = P.nj > 0 ? (int)P.nj : 1;
    worker *w = st == TS_OK ? calloc((size_t)n, sizeof *w) : NULL;
    if (st == TS_OK && !w)
        st = ts__error(err, TS_ERR_NOMEM, "out of memory");
    for (int t = 0; st == TS_OK && t < n; t++) {
        w[t].P = &P;
        w[t].reporter = t == 0;
        if (!(w[t].buf = malloc((size_t)CHUNK)))
            st = ts__error(err, TS_ERR_NOMEM, "out of memory");
    }
    if (st == TS_OK) {
        atomic_init(&P.next, 0);
        atomic_init(&P.done, 0);
        ts__run_jobs(thread_main, w, sizeof *w, n);
        if (opts->progress && P.total >= PROGRESS_BYTES)
            opts->progress(opts->progress_ctx, P.total, P.total);
        st = report(&P, v, err);
    }
    for (int t = 0; w && t < n; t++)
        free(w[t].buf);
    free(w);
    for (size_t i = 0; i < P.nj; i++)
        free(P.j[i].err);
    free(P.j);
    free(P.r);
    for (size_t i = 0; i < P.nnames; i++)
        free(P.names[i]);
    free(P.names);
    return st;
}
