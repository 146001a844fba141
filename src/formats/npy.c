/*
 * npy.c - reader for NumPy .npy files, versions 1.0, 2.0 and 3.0
 * (numpy/lib/format.py). One array, named "". Only the header is parsed;
 * the data is never read, only its length checked against the file size.
 * The header grammar and checks live in npy_header.c, shared with npz.c.
 */
#include "npy_header.h"

static int probe_npy(const unsigned char *data, size_t len, ts__source *src)
{
    (void)src;
    return ts__npy_has_magic(data, len);
}

static ts_status read_npy(ts_file *f, const unsigned char *data, size_t len,
                          const ts_open_options *opts, ts_error *err)
{
    ts__npy_prelude pre;
    ts_status st = ts__npy_read_prelude(data, len, (int64_t)len, opts->npy_max_header, "file",
                                        &pre, err);
    if (st)
        return st;
    ts__file_set_version(f, pre.version);
    if ((st = ts__file_need(f, pre.dict_start, pre.header_len, err)))
        return st;
    ts_array *a = ts__file_add_array(f, err);
    if (!a)
        return ts__file_add_failure(f);
    st = ts__npy_parse_header(f, a, &pre, data + pre.dict_start, err);
    if (st)
        return st;
    a->data_offset = pre.data_start;
    st = ts__npy_check_data(a, &pre, (int64_t)len, "", err);
    if (!st && a->nbytes >= 0)
        ts__file_set_extent(f, a->data_offset + a->nbytes);
    return st;
}

const ts__reader ts__reader_npy = {
    {TS_FORMAT_NPY, "npy", ".npy", "magic 0x93 NUMPY",
     "NumPy array (.npy 1.0, 2.0, 3.0)", "descr", 0},
    probe_npy,
    read_npy,
    0,
};
