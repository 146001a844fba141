/*
 * npz.c - reader for NumPy .npz archives: a zip with one .npy member per
 * array (numpy/lib/npyio.py, savez/savez_compressed and NpzFile).
 *
 * Every member whose name ends in ".npy" is one array, named like NumPy's
 * NpzFile key: the member name without ".npy" ("arr_0", "sub/deep").
 * Other members (NpzFile returns them as raw bytes) and directories are
 * skipped.
 *
 * The archive's directory is read by zip.c. Of each member we read only its
 * npy header (inflated when the member is deflated: never more than the
 * header needs, so a zip bomb costs nothing), and check the member's
 * uncompressed size from the central directory against header + data.
 */
#include "npy_header.h"
#include "zip.h"

#include <stdlib.h>

static int probe_npz(const unsigned char *d, size_t len, ts__source *src)
{
    (void)src;
    /* np.load: "PK\x03\x04" (a member) or "PK\x05\x06" (an empty zip). */
    return len >= 4 && d[0] == 'P' && d[1] == 'K' &&
           ((d[2] == 3 && d[3] == 4) || (d[2] == 5 && d[3] == 6));
}

/* Reads and parses member i's npy header into a new array. */
static ts_status read_member(ts_file *f, const ts__zip *z, size_t i, size_t max_header,
                             ts__npy_prelude *pre, ts_array **out, ts_error *err)
{
    const ts__zip_member *m = ts__zip_member_at(z, i);
    unsigned char head[TS__NPY_PRELUDE_MAX];
    size_t got;
    ts_status st = ts__zip_read(z, i, head, sizeof head, &got, err);
    if (!st)
        st = ts__npy_read_prelude(head, got, (int64_t)m->size, max_header, "member", pre, err);
    if (st)
        return st;
    /* header_len is at most max_header (the prelude checked it). */
    size_t want = pre->dict_start + pre->header_len;
    unsigned char *buf = ts__scratch_alloc(f, want, err);
    if (!buf)
        return TS_ERR_NOMEM;
    st = ts__zip_read(z, i, buf, want, &got, err);
    if (!st && got < want)
        st = ts__fail(err, TS_ERR_TRUNCATED, 0, (int64_t)got,
                      "member data ends after %zu bytes, inside its %zu-byte header", got,
                      pre->header_len);
    if (!st) {
        ts_array *a = *out = ts__file_add_array(f, err);
        if (!a) {
            st = ts__file_add_failure(f);
        } else {
            a->name = ts__file_strndup(f, m->name, strlen(m->name) - 4, err);
            st = a->name ? ts__npy_parse_header(f, a, pre, buf + pre->dict_start, err)
                         : TS_ERR_NOMEM;
            if (!st)
                st = ts__npy_check_data(a, pre, (int64_t)m->size, " of the member", err);
        }
    }
    ts__scratch_free(f, buf);
    return st;
}

/* Says in the array's note that its data is compressed. */
static ts_status note_compressed(ts_file *f, ts_array *a, int method, ts_error *err)
{
    const char *what = method == TS__ZIP_DEFLATED
                       ? "deflated member: data is compressed"
                       : ts__file_printf(f, err, "member compressed with zip method %d: "
                                         "data is compressed", method);
    if (what && a->note)
        what = ts__file_printf(f, err, "%s; %s", what, a->note);
    if (!what)
        return TS_ERR_NOMEM;
    a->note = what;
    return TS_OK;
}

static ts_status read_npz(ts_file *f, const unsigned char *data, size_t len,
                          const ts_open_options *opts, ts_error *err)
{
    ts__zip *z;
    ts_status st = ts__zip_open(&z, f, data, len, err);
    for (size_t i = 0; !st && i < ts__zip_count(z); i++) {
        const ts__zip_member *m = ts__zip_member_at(z, i);
        size_t nl = strlen(m->name);
        if (nl < 4 || strcmp(m->name + nl - 4, ".npy") != 0)
            continue;
        ts__npy_prelude pre;
        ts_array *a = NULL;
        st = read_member(f, z, i, opts->npy_max_header, &pre, &a, err);
        if (st) {
            /* Offsets inside a stored member are file offsets once shifted. */
            if (err)
                err->offset = m->method == TS__ZIP_STORED && err->offset >= 0
                              ? m->data_offset + err->offset : m->local_offset;
            char shown[96];
            ts__error_entry(err, (int64_t)i, "member '%s'", ts__printable_str(m->name, shown, sizeof shown));
            break;
        }
        if (ts_file_count(f) == 1)
            ts__file_set_version(f, pre.version);
        if (m->method == TS__ZIP_STORED) {
            a->data_offset = m->data_offset + pre.data_start;
        } else {
            st = note_compressed(f, a, m->method, err);
            if (!st && m->method == TS__ZIP_DEFLATED) {
                ts__data_src src;
                memset(&src, 0, sizeof src);
                src.kind = TS__SRC_DEFLATE;
                src.comp_offset = m->data_offset;
                src.comp_size = (int64_t)m->comp_size;
                src.size = (int64_t)m->size;
                src.skip = pre.data_start;
                src.crc32 = m->crc32;
                st = ts__file_set_data_src(f, a, &src, err);
            }
        }
    }
    /* A zip with members but no .npy member is some other archive (a
     * PyTorch checkpoint, a Keras .keras file not detected as one): say so rather than report
     * an empty npz. np.savez() with no arrays writes a zip with no member. */
    if (!st && ts_file_count(f) == 0 && ts__zip_count(z) > 0) {
        const char *what = "";
        char shown[96];
        for (size_t i = 0; i < ts__zip_count(z) && !what[0]; i++) {
            const char *n = ts__zip_member_at(z, i)->name;
            size_t nl = strlen(n);
            if (nl >= 8 && strcmp(n + nl - 8, "data.pkl") == 0)
                what = "; it looks like a PyTorch checkpoint (torch.save zip): try "
                       "--format pytorch";
            else if (strcmp(n, "config.json") == 0 || strcmp(n, "model.weights.h5") == 0)
                what = "; it looks like a Keras 3 .keras archive: try --format keras";
        }
        st = ts__fail(err, TS_ERR_FORMAT, 0, 0,
                      "zip archive of %zu members and no .npy member (the first is '%s'): "
                      "not a NumPy .npz%s",
                      ts__zip_count(z),
                      ts__printable_str(ts__zip_member_at(z, 0)->name, shown, sizeof shown),
                      what);
    }
    ts__zip_close(f, z);
    return st;
}

const ts__reader ts__reader_npz = {
    {TS_FORMAT_NPZ, "npz", ".npz", "zip signature PK 03 04",
     "NumPy archive of .npy members (stored or deflated)", "descr", 0},
    probe_npz,
    read_npz,
    0,
};
