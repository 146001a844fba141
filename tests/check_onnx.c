/* check_onnx.c - the ONNX reader and the protobuf walker under it: every
 * tensor of ../shared/corpus/onnx/expected.json, the refused corpus files
 * with their messages, notes and metadata, models built in memory (packed
 * dims, unpacked float_data, training_info, functions, hostile varints,
 * nesting, overflowing dims, external paths), detection by extension, and
 * truncation and byte-change loops that must never crash. */
#define TS_EXPERIMENTAL_API
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "expected_json.h"
#include "pbwriter.h"
#include "testutil.h"

/* ---- the corpus ---------------------------------------------------------- */

START_TEST(test_corpus_expected)
{
    int n = ej_check_all("onnx", TS_FORMAT_ONNX, NULL);
    ck_assert(n == -1 || n == 65);
}
END_TEST

static ts_file *open_corpus(const char *rel, int metadata)
{
    char path[1024];
    if (!tu_corpus_path(path, sizeof path, rel))
        return NULL;
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.want_metadata = metadata;
    ts_file *f = NULL;
    ts_error err;
    ck_assert_msg(ts_file_open(path, &o, &f, &err) == TS_OK, "%s: %s", rel, err.message);
    return f;
}

static const ts_array *find(const ts_file *f, const char *name)
{
    for (size_t i = 0; i < ts_file_count(f); i++)
        if (strcmp(ts_file_array(f, i)->name, name) == 0)
            return ts_file_array(f, i);
    ck_abort_msg("no array '%s'", name);
    return NULL;
}

static const struct {
    const char *file, *name, *note, *format_dtype;
} notes[] = {
    {"onnx/typed.onnx", "w_float", "initializer, typed field float_data: 6 values (one packed "
                                   "field); read by no node", "FLOAT"},
    {"onnx/typed.onnx", "idx_int64", "initializer, typed field int64_data: 4 values; read by no node",
     "INT64"},
    {"onnx/typed.onnx", "labels_str", "initializer, typed field string_data: 3 values; "
     "read by no node", "STRING"},
    {"onnx/typed.onnx", "empty_float", "initializer, no data (0 elements); read by no node",
     "FLOAT"},
    {"onnx/typed.onnx", "u_uint32", "initializer, typed field uint64_data: 3 values; read by no "
     "node", "UINT32"},
    {"onnx/cnn.onnx", "conv1.weight", "initializer, raw_data; read by conv1", "FLOAT"},
    {"onnx/subgraph.onnx", "c_out", "Constant, raw_data", "FLOAT"},
    {"onnx/subgraph.onnx", "fill/value", "attribute, raw_data", "FLOAT"},
    {"onnx/subgraph.onnx", "cond_if/then_branch/k", "Constant, raw_data", "INT64"},
    {"onnx/sparse.onnx", "sparse.weight",
     "sparse_initializer, sparse (COO): nnz 3, values at byte 204, indices int64 (3,) at byte "
     "247", "FLOAT"},
    {"onnx/external.onnx", "emb.weight",
     "initializer, external data: external.onnx.data offset 0 length 4096; read by embed",
     "FLOAT"},
    {"onnx/lowbit.onnx", "i4", "initializer, raw_data", "INT4"},
};

START_TEST(test_corpus_notes)
{
    ts_file *f = open_corpus(notes[_i].file, 0);
    if (!f)
        return;
    const ts_array *a = find(f, notes[_i].name);
    ck_assert_str_eq(a->note, notes[_i].note);
    ck_assert_str_eq(a->format_dtype, notes[_i].format_dtype);
    ts_file_close(f);
}
END_TEST

START_TEST(test_corpus_external)
{
    ts_file *f = open_corpus("onnx/external.onnx", 0);
    if (!f)
        return;
    const ts_array *a = find(f, "head.weight");
    ck_assert_str_eq(a->storage_key, "external.onnx.data");
    ck_assert_int_eq(a->data_offset, 8192);
    ck_assert_ptr_null(find(f, "proj.bias")->storage_key);
    ck_assert_str_eq(ts_file_version(f), "IR 8");
    ts_file_close(f);
}
END_TEST

START_TEST(test_corpus_metadata)
{
    ts_file *f = open_corpus("onnx/dynamic.onnx", 1);
    if (!f)
        return;
    const char *k, *v;
    ck_assert_uint_eq(ts_file_metadata_count(f), 5);
    ck_assert(ts_file_metadata(f, 0, &k, &v));
    ck_assert_str_eq(k, "graph.inputs");
    ck_assert_str_eq(v, "[{\"name\":\"input_ids\",\"dtype\":\"int64\",\"shape\":[\"batch\","
                        "\"seq\"]},{\"name\":\"attention_mask\",\"dtype\":\"int64\",\"shape\":"
                        "[\"batch\",\"seq\"]},{\"name\":\"past\",\"dtype\":\"float32\",\"shape\":"
                        "[\"batch\",\"past_seq\",8]},{\"name\":\"scale\",\"dtype\":\"float32\","
                        "\"shape\":[null,8]},{\"name\":\"temperature\",\"dtype\":\"float32\","
                        "\"shape\":[]}]");
    ck_assert(ts_file_metadata(f, 1, &k, &v));
    ck_assert_str_eq(k, "graph.outputs");
    ck_assert(ts_file_metadata(f, 4, &k, &v));
    ck_assert_str_eq(k, "opset_import");
    ck_assert_str_eq(v, "{\"ai.onnx\":13}");
    ts_file_close(f);
}
END_TEST

static const struct {
    const char *file;
    ts_status status;
    int64_t offset;
    const char *message;
} corpus_errors[] = {
    {"onnx/truncated.onnx", TS_ERR_TRUNCATED, 6449,
     "tensor 'fc.weight': file ends at byte 6449 inside its raw_data (byte 6349), whose "
     "length field promises 2560 bytes"},
    {"onnx/not_onnx.onnx", TS_ERR_FORMAT, 0,
     "not an ONNX model: byte 0: field 15 has wire type 3 (group start), which these files "
     "never use"},
    {"onnx/external_escape.onnx", TS_ERR_FORMAT, -2,
     "external data path leaves the model folder: emb.weight has location "
     "'../external.onnx.data'"},
    {"onnx/external_range.onnx", TS_ERR_TRUNCATED, -2,
     "external data out of range: head.weight: offset 8348 + length 256 > size of "
     "external.onnx.data (8448)"},
};

START_TEST(test_corpus_errors)
{
    char path[1024];
    if (!tu_corpus_path(path, sizeof path, corpus_errors[_i].file))
        return;
    ts_file *f = NULL;
    ts_error err;
    ts_status st = ts_file_open(path, NULL, &f, &err);
    ck_assert_msg(st == corpus_errors[_i].status, "%s: %s", corpus_errors[_i].file, err.message);
    ck_assert_ptr_null(f);
    ck_assert_str_eq(err.message, corpus_errors[_i].message);
    if (corpus_errors[_i].offset != -2)
        ck_assert_int_eq(err.offset, corpus_errors[_i].offset);
    else
        ck_assert_int_gt(err.offset, 0);
}
END_TEST

/* Every prefix of cnn.onnx, forced: a clean return; cut inside the last
 * weights' raw_data, TS_ERR_TRUNCATED. Byte changes in the first 600 bytes
 * of every small corpus model never crash. */
START_TEST(test_corpus_prefixes)
{
    char path[1024];
    size_t len;
    if (!tu_corpus_path(path, sizeof path, "onnx/cnn.onnx"))
        return;
    unsigned char *data = tu_read_file(path, &len);
    ck_assert_ptr_nonnull(data);
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.format = TS_FORMAT_ONNX;
    for (size_t n = 0; n < len; n++) {
        ts_error err;
        ts_status st = tu_open_exact(data, n, &o, &err);
        if (n > 6349 && n < 6349 + 2560)
            ck_assert_msg(st == TS_ERR_TRUNCATED, "prefix %zu: %s", n, err.message);
    }
    free(data);
}
END_TEST

static const char *const byte_change_files[] = {
    "onnx/typed.onnx", "onnx/subgraph.onnx", "onnx/sparse.onnx", "onnx/dtypes.onnx",
    "onnx/lowbit.onnx", "onnx/dynamic.onnx", "onnx/external.onnx",
};

START_TEST(test_corpus_byte_changes)
{
    char path[1024];
    size_t len;
    if (!tu_corpus_path(path, sizeof path, byte_change_files[_i]))
        return;
    unsigned char *data = tu_read_file(path, &len);
    ck_assert_ptr_nonnull(data);
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.format = TS_FORMAT_ONNX;
    o.want_metadata = 1;
    tu_check_byte_changes(data, len, 1300, &o, NULL, 0);
    free(data);
}
END_TEST

/* ---- the committed fixtures (tests/fixtures/gen_onnx.py) ----------------- */

START_TEST(test_fixtures)
{
    char path[512];
    ts_file *f;
    ts_error err;
    ck_assert_msg(ts_file_open(tu_fixture(path, sizeof path, "onnx/good_external.onnx"), NULL, &f,
                               &err) == TS_OK, "%s", err.message);
    ck_assert_int_eq(ts_file_format(f), TS_FORMAT_ONNX);
    ck_assert_int_eq(ts_file_array(f, 0)->data_offset, 0);
    ck_assert_int_eq(ts_file_array(f, 1)->data_offset, 4096); /* no 'length' key */
    ck_assert_str_eq(ts_file_array(f, 1)->storage_key, "good_external.bin");
    ts_file_close(f);
    ck_assert_msg(ts_file_open(tu_fixture(path, sizeof path, "onnx/good_mixed.onnx"), NULL, &f,
                               &err) == TS_OK, "%s", err.message);
    ck_assert_uint_eq(ts_file_count(f), 7);
    ck_assert_str_eq(ts_file_array(f, 4)->name, "c");
    ck_assert_str_eq(ts_file_array(f, 5)->name, "pick/else_branch/w");
    ts_file_close(f);
    tu_expect_open_error(tu_fixture(path, sizeof path, "onnx/bad_absolute.onnx"), NULL,
                         TS_ERR_FORMAT, 23,
                         "external data path leaves the model folder: a has absolute location "
                         "'/etc/passwd'");
    tu_expect_open_error(tu_fixture(path, sizeof path, "onnx/bad_raw_length.onnx"), NULL,
                         TS_ERR_FORMAT, 310,
                         "tensor 'fc.weight': raw_data at byte 310 has 47 bytes, but FLOAT (3,4) "
                         "needs 48");
    tu_expect_open_error(tu_fixture(path, sizeof path, "onnx/bad_truncated.onnx"), NULL,
                         TS_ERR_TRUNCATED, 320,
                         "tensor 'fc.weight': file ends at byte 320 inside its raw_data (byte "
                         "310), whose length field promises 48 bytes");
}
END_TEST

/* ---- models built in memory ---------------------------------------------- */

/* TensorProto: name, data_type, dims (unpacked), raw_data of n bytes. */
static void tensor_raw(pbw *t, const char *name, int type, const int64_t *dims, int ndim,
                       size_t n)
{
    for (int i = 0; i < ndim; i++)
        pbw_uint(t, 1, (uint64_t)dims[i]);
    pbw_uint(t, 2, (uint64_t)type);
    pbw_str(t, 8, name);
    unsigned char zero[64] = {0};
    ck_assert_uint_le(n, sizeof zero);
    pbw_bytes(t, 9, zero, n);
}

/* ModelProto { ir_version 8, graph { initializer... } } from one tensor. */
static void model_of(pbw *m, pbw *tensor)
{
    pbw g = {0};
    pbw_msg(&g, 5, tensor);
    pbw_uint(m, 1, 8);
    pbw_msg(m, 7, &g);
}

static ts_status open_model(const pbw *m, ts_file **f, ts_error *err)
{
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.format = TS_FORMAT_ONNX;
    tu_open_exact(m->p, m->n, &o, err);
    return ts_file_open_memory(m->p, m->n, &o, f, err);
}

START_TEST(test_packed_dims_and_unpacked_floats)
{
    pbw t = {0}, m = {0}, dims = {0};
    pbw_varint(&dims, 2);
    pbw_varint(&dims, 3);
    pbw_msg(&t, 1, &dims);
    pbw_uint(&t, 2, 1);
    pbw_str(&t, 8, "w");
    for (int i = 0; i < 6; i++)
        pbw_fixed32(&t, 4, 0x3f800000u);
    model_of(&m, &t);
    ts_file *f;
    ts_error err;
    ck_assert_msg(open_model(&m, &f, &err) == TS_OK, "%s", err.message);
    const ts_array *a = ts_file_array(f, 0);
    tu_assert_shape(&a->shape, "(2,3)");
    ck_assert_int_eq(a->data_offset, -1);
    ck_assert_int_eq(a->nbytes, 24);
    ck_assert_str_eq(a->note, "initializer, typed field float_data: 6 values");
    ts_file_close(f);
    free(m.p);
}
END_TEST

START_TEST(test_training_info_and_functions)
{
    int64_t d[1] = {2};
    pbw t = {0}, g = {0}, ti = {0}, m = {0}, fn = {0}, node = {0}, attr = {0}, t2 = {0};
    tensor_raw(&t, "state", 1, d, 1, 8);
    pbw_msg(&g, 5, &t);
    pbw_msg(&ti, 1, &g);
    /* a function with a Constant node */
    tensor_raw(&t2, "", 7, d, 1, 16);
    pbw_str(&attr, 1, "value");
    pbw_msg(&attr, 5, &t2);
    pbw_str(&node, 2, "k");
    pbw_str(&node, 4, "Constant");
    pbw_msg(&node, 5, &attr);
    pbw_str(&fn, 1, "myfn");
    pbw_msg(&fn, 7, &node);
    pbw g0 = {0}, t0 = {0};
    tensor_raw(&t0, "w", 1, d, 1, 8);
    pbw_msg(&g0, 5, &t0);
    pbw_uint(&m, 1, 8);
    pbw_msg(&m, 7, &g0);
    pbw_msg(&m, 20, &ti);
    pbw_msg(&m, 25, &fn);
    ts_file *f;
    ts_error err;
    ck_assert_msg(open_model(&m, &f, &err) == TS_OK, "%s", err.message);
    ck_assert_uint_eq(ts_file_count(f), 3);
    ck_assert_str_eq(ts_file_array(f, 0)->name, "w");
    ck_assert_str_eq(ts_file_array(f, 1)->name, "training_info[0]/state");
    ck_assert_str_eq(ts_file_array(f, 2)->name, "functions/myfn/k");
    ck_assert_str_eq(ts_file_array(f, 2)->dtype_name, "int64");
    ts_file_close(f);
    free(m.p);
}
END_TEST

/* Hostile inputs: each must fail with this status and message part. */
static void expect_fail(const pbw *m, ts_status status, const char *part)
{
    ts_file *f = (ts_file *)1;
    ts_error err;
    ts_status st = open_model(m, &f, &err);
    ck_assert_msg(st == status, "status %d: %s", (int)st, err.message);
    ck_assert_ptr_null(f);
    ck_assert_msg(strstr(err.message, part), "'%s' lacks '%s'", err.message, part);
}

START_TEST(test_hostile_varints)
{
    static const unsigned char eleven[] = {0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                           0x80, 0x80, 0x01};
    pbw m = {0};
    pbw_raw(&m, eleven, sizeof eleven);
    expect_fail(&m, TS_ERR_FORMAT, "varint longer than 10 bytes");
    m.n = 0;
    static const unsigned char over[] = {0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                         0xff, 0x7f};
    pbw_raw(&m, over, sizeof over);
    expect_fail(&m, TS_ERR_FORMAT, "varint overflows 64 bits");
    m.n = 0;
    static const unsigned char field0[] = {0x02, 0x00};
    pbw_raw(&m, field0, sizeof field0);
    expect_fail(&m, TS_ERR_FORMAT, "invalid field number 0");
    m.n = 0;
    /* graph length past the end of the file */
    pbw_uint(&m, 1, 8);
    pbw_key(&m, 7, 2);
    pbw_varint(&m, 1000);
    expect_fail(&m, TS_ERR_TRUNCATED, "file ends");
    free(m.p);
}
END_TEST

START_TEST(test_hostile_tensors)
{
    int64_t big[3] = {INT64_C(1) << 40, INT64_C(1) << 40, 1 << 20};
    int64_t neg[1] = {-1};
    int64_t two[1] = {2};
    pbw t = {0}, m = {0};
    tensor_raw(&t, "huge", 1, big, 3, 4);
    model_of(&m, &t);
    expect_fail(&m, TS_ERR_OVERFLOW, "huge");
    m.n = 0;
    tensor_raw(&t, "neg", 1, neg, 1, 4);
    model_of(&m, &t);
    expect_fail(&m, TS_ERR_VALUE, "tensor 'neg': dim 0 is negative (-1)");
    m.n = 0;
    tensor_raw(&t, "short", 1, two, 1, 4);
    model_of(&m, &t);
    expect_fail(&m, TS_ERR_FORMAT, "tensor 'short': raw_data at byte");
    m.n = 0;
    tensor_raw(&t, "odd", 99, two, 1, 4);
    model_of(&m, &t);
    expect_fail(&m, TS_ERR_DTYPE, "tensor 'odd': unknown data_type 99");
    m.n = 0;
    pbw_uint(&t, 2, 1);
    pbw_uint(&t, 1, 5);
    pbw_str(&t, 8, "nodata");
    model_of(&m, &t);
    expect_fail(&m, TS_ERR_FORMAT, "tensor 'nodata' has 5 elements but no data");
    m.n = 0;
    pbw_uint(&t, 2, 8);
    pbw_uint(&t, 1, 2);
    pbw_str(&t, 8, "strs");
    pbw_str(&t, 6, "a");
    model_of(&m, &t);
    expect_fail(&m, TS_ERR_FORMAT, "tensor 'strs': string_data has 1 values, the shape needs 2");
    m.n = 0;
    unsigned char nul[4] = {'a', 0, 'b', 0};
    pbw_uint(&t, 2, 1);
    pbw_bytes(&t, 8, nul, 3);
    pbw_bytes(&t, 9, nul, 4);
    model_of(&m, &t);
    expect_fail(&m, TS_ERR_FORMAT, "contains a NUL byte");
    free(m.p);
}
END_TEST

static void external_model(pbw *m, const char *location)
{
    pbw t = {0}, e = {0};
    pbw_uint(&t, 1, 4);
    pbw_uint(&t, 2, 1);
    pbw_str(&t, 8, "ext");
    pbw_str(&e, 1, "location");
    pbw_str(&e, 2, location);
    pbw_msg(&t, 13, &e);
    pbw_str(&e, 1, "length");
    pbw_str(&e, 2, "16");
    pbw_msg(&t, 13, &e);
    pbw_uint(&t, 14, 1);
    model_of(m, &t);
}

START_TEST(test_external_paths)
{
    static const char *const bad[] = {"/etc/passwd", "../../etc/passwd", "a/../../b",
                                      "..\\x", "C:\\w.bin"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        pbw m = {0};
        external_model(&m, bad[i]);
        expect_fail(&m, TS_ERR_FORMAT, "external data path leaves the model folder");
        free(m.p);
    }
    /* From memory a good location is reported, unchecked. */
    pbw m = {0};
    external_model(&m, "w.bin");
    ts_file *f;
    ts_error err;
    ck_assert_msg(open_model(&m, &f, &err) == TS_OK, "%s", err.message);
    const ts_array *a = ts_file_array(f, 0);
    ck_assert_int_eq(a->data_offset, -1);
    ck_assert_str_eq(a->storage_key, "w.bin");
    ck_assert_str_eq(a->note, "initializer, external data: w.bin offset 0 length 16 (not "
                              "checked: the model was read from memory)");
    ts_file_close(f);
    free(m.p);
}
END_TEST

/* A location through a symbolic link to another folder is refused; a plain
 * one in a subfolder is read. */
START_TEST(test_external_symlink)
{
    char dir[] = "/tmp/tshape-onnx-XXXXXX", other[] = "/tmp/tshape-onnx-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_ptr_nonnull(mkdtemp(other));
    char path[256], model[256];
    snprintf(path, sizeof path, "%s/w.bin", other);
    FILE *fp = fopen(path, "wb");
    ck_assert_ptr_nonnull(fp);
    static const unsigned char zeros[16];
    fwrite(zeros, 1, 16, fp);
    fclose(fp);
    snprintf(path, sizeof path, "%s/sub", dir);
    ck_assert_int_eq(symlink(other, path), 0);
    snprintf(path, sizeof path, "%s/real", dir);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/real/w.bin", dir);
    fp = fopen(path, "wb");
    fwrite(zeros, 1, 16, fp);
    fclose(fp);
    for (int i = 0; i < 2; i++) {
        pbw m = {0};
        external_model(&m, i ? "real/w.bin" : "sub/w.bin");
        snprintf(model, sizeof model, "%s/m.onnx", dir);
        fp = fopen(model, "wb");
        fwrite(m.p, 1, m.n, fp);
        fclose(fp);
        free(m.p);
        ts_file *f = NULL;
        ts_error err;
        ts_status st = ts_file_open(model, NULL, &f, &err);
        if (i == 0) {
            ck_assert_int_eq(st, TS_ERR_FORMAT);
            ck_assert_msg(strstr(err.message, "resolves outside it"), "%s", err.message);
        } else {
            ck_assert_msg(st == TS_OK, "%s", err.message);
            ck_assert_int_eq(ts_file_array(f, 0)->data_offset, 0);
            ts_file_close(f);
        }
        unlink(model);
    }
    snprintf(path, sizeof path, "%s/real/w.bin", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/real", dir);
    rmdir(path);
    snprintf(path, sizeof path, "%s/sub", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/w.bin", other);
    unlink(path);
    rmdir(dir);
    rmdir(other);
}
END_TEST

/* Issue 20 item 13: the values of external data are read from the side
 * file (stats, read, compare and convert go through one walker), from the
 * offset the model gives; a side file replaced by a link or cut short
 * since the model was opened is an error naming it, and a model read from
 * memory says why its side file is not read. */
static void write_bytes(const char *path, const void *p, size_t n)
{
    FILE *fp = fopen(path, "wb");
    ck_assert_ptr_nonnull(fp);
    ck_assert_uint_eq(fwrite(p, 1, n, fp), n);
    fclose(fp);
}

START_TEST(test_external_values)
{
    char dir[] = "/tmp/tshape-onnx-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char side[256], model[256], moved[256];
    snprintf(side, sizeof side, "%s/w.bin", dir);
    snprintf(moved, sizeof moved, "%s/moved.bin", dir);
    snprintf(model, sizeof model, "%s/m.onnx", dir);
    const float data[8] = {9, 9, 9, 9, 1.5f, -2, 3, 4};
    write_bytes(side, data, sizeof data);
    pbw t = {0}, e = {0}, m = {0};
    pbw_uint(&t, 1, 4);
    pbw_uint(&t, 2, 1);
    pbw_str(&t, 8, "ext");
    pbw_str(&e, 1, "location");
    pbw_str(&e, 2, "w.bin");
    pbw_msg(&t, 13, &e);
    pbw_str(&e, 1, "offset");
    pbw_str(&e, 2, "16");
    pbw_msg(&t, 13, &e);
    pbw_str(&e, 1, "length");
    pbw_str(&e, 2, "16");
    pbw_msg(&t, 13, &e);
    pbw_uint(&t, 14, 1);
    model_of(&m, &t);
    write_bytes(model, m.p, m.n);

    ts_file *f = NULL;
    ts_error err;
    ck_assert_msg(ts_file_open(model, NULL, &f, &err) == TS_OK, "%s", err.message);
    const ts_array *a = ts_file_array(f, 0);
    double v[4];
    ck_assert_msg(ts_array_read(f, a, 0, 4, TS_DTYPE_FLOAT64, v, &err) == TS_OK, "%s",
                  err.message);
    ck_assert(v[0] == 1.5 && v[1] == -2 && v[2] == 3 && v[3] == 4);
    ts_stats s;
    ck_assert_int_eq(ts_array_stats(f, a, NULL, &s, &err), TS_OK);
    ck_assert_int_eq(s.count, 4);
    ck_assert(s.mean == 1.625 && s.min == -2 && s.max == 4);
    ts_compare c;
    ck_assert_int_eq(ts_array_compare(f, a, f, a, NULL, &c, &err), TS_OK);
    ck_assert_int_eq(c.notclose, 0);
    ts_file_close(f);
    /* the side file cut to 20 bytes after the model was opened (and before
     * its first read): 4 of the data's 16 bytes are left */
    ck_assert_msg(ts_file_open(model, NULL, &f, &err) == TS_OK, "%s", err.message);
    ck_assert_int_eq(truncate(side, 20), 0);
    ts_file *g = NULL;
    ck_assert_int_eq(ts_file_open(model, NULL, &g, &err), TS_ERR_TRUNCATED); /* checked at open */
    a = ts_file_array(f, 0);
    ck_assert_int_eq(ts_array_read(f, a, 0, 4, TS_DTYPE_FLOAT64, v, &err), TS_ERR_TRUNCATED);
    ck_assert_str_eq(err.message, "array 'ext': the data needs 4 elements, 16 bytes, but its "
                                  "external data file holds 4 bytes from data offset 16");
    ts_file_close(f);
    /* replaced by a symbolic link after the model was opened */
    write_bytes(side, data, sizeof data);
    ck_assert_msg(ts_file_open(model, NULL, &f, &err) == TS_OK, "%s", err.message);
    ck_assert_int_eq(rename(side, moved), 0);
    ck_assert_int_eq(symlink(moved, side), 0);
    ck_assert_int_eq(ts_array_read(f, ts_file_array(f, 0), 0, 4, TS_DTYPE_FLOAT64, v, &err),
                     TS_ERR_IO);
    ck_assert_msg(strstr(err.message, "array 'ext': its external data file '") &&
                  strstr(err.message, "/w.bin': cannot open: Too many levels of symbolic "
                                      "links"), "%s", err.message);
    ts_file_close(f);
    /* from memory: no folder to find the side file in */
    ck_assert_int_eq(open_model(&m, &f, &err), TS_OK);
    ck_assert_int_eq(ts_array_read(f, ts_file_array(f, 0), 0, 4, TS_DTYPE_FLOAT64, v, &err),
                     TS_ERR_UNSUPPORTED);
    ck_assert_str_eq(err.message, "array 'ext': its data is in the external file 'w.bin', "
                                  "which is not read here (the model was read from memory)");
    ts_file_close(f);
    free(m.p);
    unlink(side);
    unlink(moved);
    unlink(model);
    rmdir(dir);
}
END_TEST

START_TEST(test_nesting_limit)
{
    /* If node whose then_branch holds an If node ... 200 deep */
    pbw g = {0};
    int64_t d[1] = {1};
    pbw t = {0};
    tensor_raw(&t, "leaf", 1, d, 1, 4);
    pbw_msg(&g, 5, &t);
    for (int i = 0; i < 200; i++) {
        pbw attr = {0}, node = {0}, outer = {0};
        pbw_str(&attr, 1, "then_branch");
        pbw_msg(&attr, 6, &g);
        pbw_str(&node, 3, "n");
        pbw_str(&node, 4, "If");
        pbw_msg(&node, 5, &attr);
        pbw_msg(&outer, 1, &node);
        g = outer;
    }
    pbw m = {0};
    pbw_uint(&m, 1, 8);
    pbw_msg(&m, 7, &g);
    expect_fail(&m, TS_ERR_LIMIT, "nested more than 100 deep");
    free(m.p);
}
END_TEST

/* Detection: no signature, so bytes alone never say ONNX; the extension
 * (with a structural check) does. */
START_TEST(test_detection)
{
    char path[1024];
    if (!tu_corpus_path(path, sizeof path, "onnx/cnn.onnx"))
        return;
    size_t len;
    unsigned char *data = tu_read_file(path, &len);
    ck_assert_int_eq(ts_format_detect(data, len), TS_FORMAT_AUTO);
    ts_file *f;
    ts_error err;
    ck_assert_int_eq(ts_file_open_memory(data, len, NULL, &f, &err), TS_ERR_FORMAT);
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.path = "model.pb";
    ck_assert_int_eq(ts_file_open_memory(data, len, &o, &f, &err), TS_OK);
    ck_assert_int_eq(ts_file_format(f), TS_FORMAT_ONNX);
    ts_file_close(f);
    o.path = "model.txt";
    ck_assert_int_eq(ts_file_open_memory(data, len, &o, &f, &err), TS_ERR_FORMAT);
    free(data);
    const ts_format_info *fi = ts_format_info_of(TS_FORMAT_ONNX);
    ck_assert_str_eq(fi->name, "onnx");
    /* external data: storage_key names a side file, which walk.c opens and
     * convert does not treat as a storage viewed; the formats whose data
     * lives beside them are exactly these */
    size_t side = 0;
    for (size_t i = 0; i < ts_format_count(); i++) {
        const ts_format_info *x = ts_format_info_at(i);
        int expect = x->format == TS_FORMAT_ONNX || x->format == TS_FORMAT_TFJS ||
                     x->format == TS_FORMAT_OPENVINO || x->format == TS_FORMAT_TFCKPT ||
                     x->format == TS_FORMAT_COREML;
        ck_assert_msg(x->side_files == expect, "%s: side_files %d", x->name, x->side_files);
        side += (size_t)x->side_files;
    }
    ck_assert_uint_eq(side, 5);
}
END_TEST

/* Protobuf merges an embedded message given twice (repeated fields
 * concatenated, scalars last): ModelProto.graph twice is one graph of both
 * initializers, as onnx and onnxruntime read it; an attribute's g and a
 * training_info initialization twice likewise; a singular TensorProto
 * given twice (AttributeProto t, sparse_tensor; SparseTensorProto values,
 * indices) would merge into a tensor nobody wrote: refused. */
START_TEST(test_merged_messages)
{
    int64_t d[1] = {2};
    pbw t1 = {0}, t2 = {0}, g1 = {0}, g2 = {0}, m = {0}, in = {0};
    tensor_raw(&t1, "a", 1, d, 1, 8);
    tensor_raw(&t2, "b", 1, d, 1, 8);
    pbw_msg(&g1, 5, &t1);
    pbw_str(&in, 1, "x");
    pbw_msg(&g1, 11, &in);
    pbw_msg(&g2, 5, &t2);
    pbw_str(&in, 1, "y");
    pbw_msg(&g2, 12, &in);
    pbw_uint(&m, 1, 8);
    pbw_msg(&m, 7, &g1);
    pbw_msg(&m, 7, &g2);
    ts_file *f;
    ts_error err;
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.format = TS_FORMAT_ONNX;
    o.want_metadata = 1;
    ck_assert_msg(ts_file_open_memory(m.p, m.n, &o, &f, &err) == TS_OK, "%s", err.message);
    ck_assert_uint_eq(ts_file_count(f), 2);
    ck_assert_str_eq(ts_file_array(f, 0)->name, "a");
    ck_assert_str_eq(ts_file_array(f, 1)->name, "b");
    const char *k, *v;
    ck_assert(ts_file_metadata(f, 0, &k, &v));
    ck_assert_str_eq(k, "graph.inputs");
    ck_assert_str_eq(v, "[{\"name\":\"x\",\"dtype\":null,\"shape\":null}]");
    ck_assert(ts_file_metadata(f, 1, &k, &v));
    ck_assert_str_eq(k, "graph.outputs");
    ck_assert_str_eq(v, "[{\"name\":\"y\",\"dtype\":null,\"shape\":null}]");
    ts_file_close(f);
    free(m.p);
    memset(&m, 0, sizeof m);

    /* an If node's then_branch (g) given twice: both bodies' tensors */
    pbw attr = {0}, node = {0}, g = {0};
    tensor_raw(&t1, "c", 1, d, 1, 8);
    tensor_raw(&t2, "e", 1, d, 1, 8);
    pbw_msg(&g1, 5, &t1);
    pbw_msg(&g2, 5, &t2);
    pbw_str(&attr, 1, "then_branch");
    pbw_msg(&attr, 6, &g1);
    pbw_msg(&attr, 6, &g2);
    pbw_str(&node, 3, "if");
    pbw_str(&node, 4, "If");
    pbw_msg(&node, 5, &attr);
    pbw_msg(&g, 1, &node);
    pbw_uint(&m, 1, 8);
    pbw_msg(&m, 7, &g);
    /* and a training_info whose initialization is given twice */
    pbw ti = {0};
    tensor_raw(&t1, "s1", 1, d, 1, 8);
    tensor_raw(&t2, "s2", 1, d, 1, 8);
    pbw_msg(&g1, 5, &t1);
    pbw_msg(&g2, 5, &t2);
    pbw_msg(&ti, 1, &g1);
    pbw_msg(&ti, 1, &g2);
    pbw_msg(&m, 20, &ti);
    ck_assert_msg(open_model(&m, &f, &err) == TS_OK, "%s", err.message);
    ck_assert_uint_eq(ts_file_count(f), 4);
    ck_assert_str_eq(ts_file_array(f, 0)->name, "if/then_branch/c");
    ck_assert_str_eq(ts_file_array(f, 1)->name, "if/then_branch/e");
    ck_assert_str_eq(ts_file_array(f, 2)->name, "training_info[0]/s1");
    ck_assert_str_eq(ts_file_array(f, 3)->name, "training_info[0]/s2");
    ts_file_close(f);
    free(m.p);
    memset(&m, 0, sizeof m);

    /* a Constant whose value (t) is given twice */
    tensor_raw(&t1, "", 1, d, 1, 8);
    tensor_raw(&t2, "", 7, d, 1, 16);
    pbw_str(&attr, 1, "value");
    pbw_msg(&attr, 5, &t1);
    pbw_msg(&attr, 5, &t2);
    pbw_str(&node, 2, "k");
    pbw_str(&node, 4, "Constant");
    pbw_msg(&node, 5, &attr);
    pbw_msg(&g, 1, &node);
    pbw_uint(&m, 1, 8);
    pbw_msg(&m, 7, &g);
    expect_fail(&m, TS_ERR_FORMAT, "AttributeProto field t (5) given a second time at byte");
    free(m.p);
    memset(&m, 0, sizeof m);

    /* a sparse initializer whose values are given twice */
    pbw sp = {0};
    tensor_raw(&t1, "sv", 1, d, 1, 8);
    tensor_raw(&t2, "sv", 1, d, 1, 8);
    pbw_msg(&sp, 1, &t1);
    pbw_msg(&sp, 1, &t2);
    tensor_raw(&t1, "si", 7, d, 1, 16);
    pbw_msg(&sp, 2, &t1);
    pbw_uint(&sp, 3, 10);
    pbw_msg(&g, 15, &sp);
    pbw_uint(&m, 1, 8);
    pbw_msg(&m, 7, &g);
    expect_fail(&m, TS_ERR_FORMAT, "SparseTensorProto field values (1) given a second time");
    free(m.p);
}
END_TEST

/* Each initializer's note names the nodes that read it (at most three,
 * then how many more; a node without a name by its op_type), so an
 * exported model's onnx::Conv_193 can be matched to its layer. */
START_TEST(test_initializer_consumers)
{
    int64_t d[1] = {2};
    pbw g = {0}, m = {0}, t = {0}, node = {0};
    static const char *const inits[] = {"onnx::Conv_193", "w2", "unused"};
    for (int i = 0; i < 3; i++) {
        tensor_raw(&t, inits[i], 1, d, 1, 8);
        pbw_msg(&g, 5, &t);
    }
    /* /layer1/conv1/Conv reads onnx::Conv_193 (twice: counted once) */
    pbw_str(&node, 1, "x");
    pbw_str(&node, 1, "onnx::Conv_193");
    pbw_str(&node, 1, "onnx::Conv_193");
    pbw_str(&node, 2, "y");
    pbw_str(&node, 3, "/layer1/conv1/Conv");
    pbw_str(&node, 4, "Conv");
    pbw_msg(&g, 1, &node);
    /* four nodes read w2, the last without a name */
    for (int i = 0; i < 4; i++) {
        char name[16];
        snprintf(name, sizeof name, "/add%d", i);
        pbw_str(&node, 1, "w2");
        if (i < 3)
            pbw_str(&node, 3, name);
        pbw_str(&node, 4, "Add");
        pbw_msg(&g, 1, &node);
    }
    pbw_uint(&m, 1, 8);
    pbw_msg(&m, 7, &g);
    ts_file *f;
    ts_error err;
    ck_assert_msg(open_model(&m, &f, &err) == TS_OK, "%s", err.message);
    ck_assert_str_eq(ts_file_array(f, 0)->note, "initializer, raw_data; read by "
                                                "/layer1/conv1/Conv");
    ck_assert_str_eq(ts_file_array(f, 1)->note, "initializer, raw_data; read by /add0, /add1, "
                                                "/add2 and 1 more");
    ck_assert_str_eq(ts_file_array(f, 2)->note, "initializer, raw_data; read by no node");
    ts_file_close(f);
    free(m.p);
}
END_TEST

Suite *onnx_suite(void)
{
    Suite *s = suite_create("onnx");
    TCase *tc = tcase_create("corpus");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_corpus_expected);
    tcase_add_loop_test(tc, test_corpus_notes, 0, (int)(sizeof notes / sizeof *notes));
    tcase_add_test(tc, test_corpus_external);
    tcase_add_test(tc, test_corpus_metadata);
    tcase_add_loop_test(tc, test_corpus_errors, 0,
                        (int)(sizeof corpus_errors / sizeof *corpus_errors));
    tcase_add_test(tc, test_corpus_prefixes);
    tcase_add_loop_test(tc, test_corpus_byte_changes, 0,
                        (int)(sizeof byte_change_files / sizeof *byte_change_files));
    tcase_add_test(tc, test_detection);
    tcase_add_test(tc, test_fixtures);
    suite_add_tcase(s, tc);
    tc = tcase_create("memory");
    tcase_add_test(tc, test_packed_dims_and_unpacked_floats);
    tcase_add_test(tc, test_training_info_and_functions);
    tcase_add_test(tc, test_merged_messages);
    tcase_add_test(tc, test_initializer_consumers);
    tcase_add_test(tc, test_hostile_varints);
    tcase_add_test(tc, test_hostile_tensors);
    tcase_add_test(tc, test_external_paths);
    tcase_add_test(tc, test_nesting_limit);
    tcase_add_test(tc, test_external_symlink);
    tcase_add_test(tc, test_external_values);
    suite_add_tcase(s, tc);
    return s;
}
