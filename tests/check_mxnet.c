/*
 * check_mxnet.c - the MXNet NDArray list reader (src/formats/mxnet.c).
 *
 * Expected values for the real files in ../shared/corpus/mxnet come from
 * README-mxnet.txt; the data offsets were computed from the files' bytes by
 * an independent Python walk of the grammar in docs/mxnet-format.md section 0
 * and are hard-coded here. Fixture values follow tests/fixtures/gen_mxnet.py.
 */
#include "testutil.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct exp_array {
    size_t index;
    const char *name;
    const char *shape;
    ts_dtype dtype;
    const char *dtype_name;
    const char *format_dtype;
    char byteorder;
    int64_t itemsize, size, nbytes, data_offset;
    ts_storage storage;
    const char *storage_shape;
    int32_t dev_type, dev_id;
    const char *note;
} exp_array;

/* Dense float32 on cpu(0), the common case. */
#define F32(i, name, shape, size, off)                                                 \
    {i, name, shape, TS_DTYPE_FLOAT32, "float32", "0", '<', 4, size, (size) * 4, off,  \
     TS_STORAGE_DENSE, "()", 1, 0, NULL}
/* Dense of any dtype on cpu(0). */
#define DENSE(i, name, shape, dt, dtname, flag, bo, isz, size, off)                    \
    {i, name, shape, dt, dtname, flag, bo, isz, size, (size) * (isz), off,             \
     TS_STORAGE_DENSE, "()", 1, 0, NULL}
#define NONE(i, name)                                                                  \
    {i, name, "()", TS_DTYPE_UNKNOWN, "none", "", '|', 0, 0, 0, -1, TS_STORAGE_DENSE,   \
     "()", 0, 0, "none (empty) array: nothing stored after the shape"}

typedef struct exp_file {
    const char *path;        /* under tests/fixtures/ or the corpus */
    int corpus;
    const char *version;
    size_t count;
    int64_t file_nbytes;
    const exp_array *arrays; /* the arrays checked (all, or a sample) */
    size_t n_arrays;
} exp_file;

#define N(a) (sizeof(a) / sizeof *(a))

/* ---- corpus ------------------------------------------------------------- */

static const exp_array legacy_v0[] = {
    F32(0, "", "(128,)", 128, 44),   F32(1, "", "(128,)", 128, 576),
    F32(2, "", "(128,)", 128, 1108), F32(3, "", "(128,)", 128, 1640),
    F32(4, "", "(128,)", 128, 2172), F32(5, "", "(128,)", 128, 2704),
};
static const exp_array mean_224[] = {
    F32(0, "mean_img", "(3,224,224)", 150528, 52),
};
static const exp_array gluon_note[] = {
    F32(0, "", "(4,)", 4, 56),
    F32(1, "", "(4,)", 4, 104),
};
static const exp_array cifar[] = {
    F32(0, "arg:cifarresnetv10_conv0_weight", "(16,3,3,3)", 432, 80),
    F32(1, "arg:cifarresnetv10_batchnorm0_gamma", "(16,)", 16, 1840),
    F32(3, "aux:cifarresnetv10_batchnorm0_running_mean", "(16,)", 16, 2032),
    F32(5, "arg:cifarresnetv10_stage1_conv0_weight", "(16,16,3,3)", 2304, 2248),
    F32(50, "arg:cifarresnetv10_stage2_conv3_weight", "(32,32,3,3)", 9216, 119616),
    F32(53, "aux:cifarresnetv10_stage2_batchnorm3_running_mean", "(32,)", 32, 156832),
    F32(77, "arg:cifarresnetv10_stage3_batchnorm1_beta", "(64,)", 64, 492568),
    F32(104, "aux:cifarresnetv10_stage3_batchnorm6_running_var", "(64,)", 64, 1097200),
    F32(105, "arg:cifarresnetv10_dense0_weight", "(10,64)", 640, 1097496),
    F32(106, "arg:cifarresnetv10_dense0_bias", "(10,)", 10, 1100088),
};
static const exp_array d2l[] = {
    F32(0, "hidden.weight", "(256,20)", 5120, 64),
    F32(1, "hidden.bias", "(256,)", 256, 20576),
    F32(2, "output.weight", "(10,256)", 2560, 21640),
    F32(3, "output.bias", "(10,)", 10, 31912),
};

/* ---- fixtures ------------------------------------------------------------ */

static const exp_array v1[] = {
    F32(0, "w", "(2,3)", 6, 60),
    DENSE(1, "b", "(4,)", TS_DTYPE_FLOAT64, "float64", "1", '<', 8, 4, 112),
};
static const exp_array v2_dtypes[] = {
    DENSE(0, "half", "(3,)", TS_DTYPE_FLOAT16, "float16", "2", '<', 2, 3, 56),
    DENSE(1, "long", "(2,2)", TS_DTYPE_INT64, "int64", "6", '<', 8, 4, 102),
    DENSE(2, "byte", "(5,)", TS_DTYPE_UINT8, "uint8", "3", '|', 1, 5, 166),
    DENSE(3, "mask", "(4,)", TS_DTYPE_BOOL, "bool", "7", '|', 1, 4, 203),
    DENSE(4, "brain", "(2,3)", TS_DTYPE_BFLOAT16, "bfloat16", "12", '<', 2, 6, 247),
};
static const exp_array v2_sparse[] = {
    F32(0, "d", "(2,)", 2, 56),
    /* values (2,3) f32 = 24 bytes + indices (2,) int64 = 16 bytes */
    {1, "rsp", "(5,3)", TS_DTYPE_FLOAT32, "float32", "0", '<', 4, 15, 40, 140,
     TS_STORAGE_ROW_SPARSE, "(2,3)", 1, 0,
     "row_sparse: values (2,3) + indices (2,) int64"},
    /* values (7,) f32 = 28 + indptr (5,) i64 = 40 + indices (7,) i64 = 56 */
    {2, "csr", "(4,6)", TS_DTYPE_FLOAT32, "float32", "0", '<', 4, 24, 124, 264,
     TS_STORAGE_CSR, "(7,)", 1, 0,
     "csr: values (7,) + indptr (5,) int64 + indices (7,) int64"},
};
static const exp_array v2_none[] = {
    F32(0, "", "(2,)", 2, 56),
    NONE(1, ""),
    DENSE(2, "", "(3,)", TS_DTYPE_INT32, "int32", "4", '<', 4, 3, 108),
};
static const exp_array v3_scalar[] = {
    F32(0, "scalar", "()", 1, 48),
    F32(1, "empty", "(0,3)", 0, 92),
    DENSE(2, "vec", "(2,)", TS_DTYPE_INT32, "int32", "4", '<', 4, 2, 124),
};
static const exp_array gpu_ctx[] = {
    {0, "gpu_w", "(2,2)", TS_DTYPE_FLOAT32, "float32", "0", '<', 4, 4, 16, 64,
     TS_STORAGE_DENSE, "()", 2, 1, NULL},
    {1, "shared_b", "(3,)", TS_DTYPE_INT8, "int8", "5", '|', 1, 3, 3, 112,
     TS_STORAGE_DENSE, "()", 5, 0, NULL},
};
static const exp_array legacy_names[] = {
    F32(0, "a", "(2,3)", 6, 48),
    NONE(1, "nothing"),
    DENSE(2, "c", "(4,)", TS_DTYPE_INT32, "int32", "4", '<', 4, 4, 96),
};
static const exp_array mixed[] = {
    F32(0, "", "(3,)", 3, 44),
    F32(1, "", "(2,2)", 4, 96),
};
static const exp_array mixed_all[] = {
    F32(0, "", "(1,)", 1, 56), F32(1, "", "(2,)", 2, 88),
    F32(2, "", "(3,)", 3, 116), F32(3, "", "(4,)", 4, 160),
};
static const exp_array trailing[] = {
    F32(0, "x", "(2,)", 2, 56),
};

static const exp_file files[] = {
    {"mxnet/legacy_ndarray.v0", 1, "legacy", 6, 3224, legacy_v0, N(legacy_v0)},
    {"mxnet/mean_224.nd", 1, "legacy", 1, 602188, mean_224, N(mean_224)},
    {"mxnet/gluon_note_code_test.params", 1, "V2", 2, 128, gluon_note, N(gluon_note)},
    {"mxnet/cifar_resnet20_v1-0000.params", 1, "V2", 107, 1105597, cifar, N(cifar)},
    {"mxnet/d2l_mlp_v3.params", 1, "V3", 4, 32040, d2l, N(d2l)},
    {"mxnet/v1.params", 0, "V1", 2, 170, v1, N(v1)},
    {"mxnet/v2_dtypes.params", 0, "V2", 5, 328, v2_dtypes, N(v2_dtypes)},
    {"mxnet/v2_sparse.params", 0, "V2", 3, 427, v2_sparse, N(v2_sparse)},
    {"mxnet/v2_none.nd", 0, "V2", 3, 128, v2_none, N(v2_none)},
    {"mxnet/v3_scalar.params", 0, "V3", 3, 178, v3_scalar, N(v3_scalar)},
    {"mxnet/gpu_ctx.params", 0, "V2", 2, 152, gpu_ctx, N(gpu_ctx)},
    {"mxnet/legacy_names.nd", 0, "legacy", 3, 153, legacy_names, N(legacy_names)},
    {"mxnet/mixed.params", 0, "mixed (legacy, V2)", 2, 120, mixed, N(mixed)},
    {"mxnet/mixed_all.params", 0, "mixed (legacy, V1, V2, V3)", 4, 184, mixed_all,
     N(mixed_all)},
    {"mxnet/empty.params", 0, "", 0, 32, NULL, 0},
    {"mxnet/trailing.params", 0, "V2", 1, 98, trailing, N(trailing)},
};

/* Returns the path of a test file, or NULL when a corpus file is absent. */
static const char *file_path(char *buf, size_t cap, const char *rel, int corpus)
{
    if (corpus)
        return tu_corpus_path(buf, cap, rel) ? buf : NULL;
    return tu_fixture(buf, cap, rel);
}

static void check_array(const ts_array *a, const exp_array *e, const char *path)
{
    ck_assert_msg(a != NULL, "%s: array %zu missing", path, e->index);
    ck_assert_str_eq(a->name, e->name);
    tu_assert_shape(&a->shape, e->shape);
    ck_assert_int_eq(a->dtype, e->dtype);
    ck_assert_str_eq(a->dtype_name, e->dtype_name);
    ck_assert_str_eq(a->format_dtype, e->format_dtype);
    ck_assert_int_eq(a->byteorder, e->byteorder);
    ck_assert_int_eq(a->itemsize, e->itemsize);
    ck_assert_int_eq(a->size, e->size);
    ck_assert_int_eq(a->nbytes, e->nbytes);
    ck_assert_int_eq(a->data_offset, e->data_offset);
    ck_assert_int_eq(a->fortran_order, 0);
    ck_assert_int_eq(a->storage, e->storage);
    tu_assert_shape(&a->storage_shape, e->storage_shape);
    ck_assert_int_eq(a->dev_type, e->dev_type);
    ck_assert_int_eq(a->dev_id, e->dev_id);
    if (e->note)
        ck_assert_str_eq(a->note, e->note);
    else
        ck_assert_ptr_null(a->note);
    if (e->dtype != TS_DTYPE_UNKNOWN) {
        ck_assert_int_eq(a->bits, e->itemsize * 8);
        ck_assert_int_eq(a->block_size, 1);
        ck_assert_int_eq(a->block_bytes, e->itemsize);
    }
}

START_TEST(test_files)
{
    const exp_file *e = &files[_i];
    char path[512];
    if (!file_path(path, sizeof path, e->path, e->corpus))
        return;
    ts_file *f = NULL;
    ts_error err;
    ts_status st = ts_file_open(path, NULL, &f, &err);
    ck_assert_msg(st == TS_OK, "%s: %s", path, err.message);
    ck_assert_int_eq(ts_file_format(f), TS_FORMAT_MXNET);
    ck_assert_str_eq(ts_file_version(f), e->version);
    ck_assert_uint_eq(ts_file_count(f), e->count);
    ck_assert_int_eq(ts_file_nbytes(f), e->file_nbytes);
    ck_assert_uint_eq(ts_file_metadata_count(f), 0);
    for (size_t i = 0; i < e->n_arrays; i++)
        check_array(ts_file_array(f, e->arrays[i].index), &e->arrays[i], path);
    ck_assert_ptr_null(ts_file_array(f, e->count));
    ts_file_close(f);
}
END_TEST

/* Every array of the ResNet checkpoint: the element total, the names'
 * arg:/aux: prefixes, and that the payloads tile the file in order. */
START_TEST(test_cifar_totals)
{
    char path[512];
    if (!tu_corpus_path(path, sizeof path, "mxnet/cifar_resnet20_v1-0000.params"))
        return;
    ts_file *f = NULL;
    ts_error err;
    ck_assert_msg(ts_file_open(path, NULL, &f, &err) == TS_OK, "%s", err.message);
    int64_t size = 0, nbytes = 0, end = 0;
    size_t args = 0, auxs = 0;
    for (size_t i = 0; i < ts_file_count(f); i++) {
        const ts_array *a = ts_file_array(f, i);
        size += a->size;
        nbytes += a->nbytes;
        ck_assert_int_gt(a->data_offset, end);
        end = a->data_offset + a->nbytes;
        if (strncmp(a->name, "arg:", 4) == 0)
            args++;
        else if (strncmp(a->name, "aux:", 4) == 0)
            auxs++;
    }
    ck_assert_int_eq(size, 274042);
    ck_assert_int_eq(nbytes, 1096168);
    ck_assert_uint_eq(args + auxs, 107);
    /* 21 batch norms (19 in the blocks, 2 in the downsampling shortcuts) x
     * (running_mean, running_var) */
    ck_assert_uint_eq(auxs, 42);
    ck_assert_int_eq(end, 1100128);
    ts_file_close(f);
}
END_TEST

/* ---- bad files ----------------------------------------------------------- */

typedef struct bad_case {
    const char *path;
    ts_format format;        /* TS_FORMAT_AUTO: detect */
    ts_status status;
    int64_t offset;
    const char *message;     /* exact */
} bad_case;

static const bad_case bad[] = {
    {"mxnet/bad_names_count.params", TS_FORMAT_AUTO, TS_ERR_FORMAT, 204,
     "file has 5 arrays but 3 names (name count at byte 204; it must be 0 or the "
     "number of arrays)"},
    {"mxnet/bad_list_magic.params", TS_FORMAT_MXNET, TS_ERR_FORMAT, 0,
     "expected the MXNet NDArray list magic 0x112 at byte 0, found 0x113"},
    {"mxnet/bad_list_magic.params", TS_FORMAT_AUTO, TS_ERR_FORMAT, 0,
     "unknown file format: the first bytes match none of npy, pytorch, pickle, tar, keras, npz, mxnet, "
     "safetensors, gguf, ggml, hdf5, tflite, executorch, tfckpt (formats without a signature "
     "need --format: tshape32, tshape64; or their extension: savedmodel, onnx, caffe, caffe2, "
     "tfjs, openvino, darknet, zarr, coreml)"},
    {"mxnet/bad_record_magic.params", TS_FORMAT_AUTO, TS_ERR_FORMAT, 24,
     "array 0: unknown record magic 0xF993FACB at byte 24 (expected 0xF993FAC8 V1, "
     "0xF993FAC9 V2, 0xF993FACA V3, or a legacy ndim <= 64)"},
    {"mxnet/bad_stype.params", TS_FORMAT_AUTO, TS_ERR_FORMAT, 28,
     "array 0: storage type 5 at byte 28 is not 0 (dense), 1 (row_sparse) or 2 (csr)"},
    {"mxnet/bad_type_flag.params", TS_FORMAT_AUTO, TS_ERR_DTYPE, 92,
     "array 1: type flag 99 at byte 92 is not an MXNet type (0 float32 .. 12 bfloat16)"},
    {"mxnet/bad_ndim.params", TS_FORMAT_AUTO, TS_ERR_LIMIT, 32,
     "array 0: shape ndim 1000 at byte 32 is above the limit of 64"},
    {"mxnet/bad_legacy_ndim.nd", TS_FORMAT_AUTO, TS_ERR_LIMIT, 24,
     "array 0: first word 1000 (0x000003E8) at byte 24 is no record magic, and as a "
     "legacy ndim it is above the limit of 64"},
    {"mxnet/bad_negative_ndim.params", TS_FORMAT_AUTO, TS_ERR_FORMAT, 32,
     "array 0: shape ndim -1 at byte 32 is negative (an unknown shape, which MXNet "
     "never saves)"},
    {"mxnet/bad_negative_dim.params", TS_FORMAT_AUTO, TS_ERR_FORMAT, 44,
     "array 0: shape dim 1 at byte 44 is negative (-2)"},
    {"mxnet/bad_count.params", TS_FORMAT_AUTO, TS_ERR_TRUNCATED, 16,
     "file declares 1152921504606846976 arrays at byte 16 but has only 48 bytes left "
     "(each array takes at least 4 bytes, the name count 8)"},
    {"mxnet/bad_names_truncated.params", TS_FORMAT_AUTO, TS_ERR_TRUNCATED, 72,
     "array 0's name: length 1000 at byte 72 runs past the end of the file (3 bytes "
     "left)"},
    {"mxnet/bad_aux_type.params", TS_FORMAT_AUTO, TS_ERR_DTYPE, 84,
     "array 0: indices type flag 99 at byte 84 is not an MXNet type (0 float32 .. "
     "12 bfloat16)"},
    {"mxnet/bad_v3_sparse.params", TS_FORMAT_AUTO, TS_ERR_FORMAT, 28,
     "array 0: storage type 1 (row_sparse) at byte 28 in a V3 record: V3 records are "
     "dense only"},
    {"mxnet/bad_payload_truncated.params", TS_FORMAT_AUTO, TS_ERR_TRUNCATED, 96,
     "array 1: file ends inside the data at byte 96: need 400 bytes, 32 left"},
    {"mxnet/bad_overflow.params", TS_FORMAT_AUTO, TS_ERR_OVERFLOW, 24,
     "array 0: element count of shape (1099511627776,1099511627776) does not fit in "
     "int64"},
};

START_TEST(test_bad)
{
    const bad_case *c = &bad[_i];
    char path[512];
    tu_fixture(path, sizeof path, c->path);
    ts_open_options opts = TS_OPEN_OPTIONS_INIT;
    opts.format = c->format;
    ts_file *f = (ts_file *)&opts;   /* must be reset to NULL */
    ts_error err;
    ts_status st = ts_file_open(path, &opts, &f, &err);
    ck_assert_msg(st == c->status, "%s: status %d (%s), expected %d", c->path, (int)st,
                  err.message, (int)c->status);
    ck_assert_ptr_null(f);
    ck_assert_int_eq(err.code, c->status);
    ck_assert_int_eq(err.offset, c->offset);
    ck_assert_int_eq(err.column, 0);
    ck_assert_str_eq(err.message, c->message);
    /* The same with err NULL: no crash, same status. */
    ck_assert_int_eq(ts_file_open(path, &opts, &f, NULL), c->status);
}
END_TEST

/* ---- truncation ---------------------------------------------------------- */

/* Every proper prefix of a valid file must fail cleanly, detected and with
 * the format forced. Prefixes of at least 24 bytes keep the container
 * header, so the reader itself must report the truncation. */
static void truncation_loop(const char *path)
{
    size_t len;
    unsigned char *data = tu_read_file(path, &len);
    ck_assert_msg(data != NULL, "cannot read %s", path);
    tu_check_prefixes(path, data, len, TS_FORMAT_MXNET, 24);
    free(data);
}

START_TEST(test_truncation_corpus_v2)
{
    char path[512];
    if (tu_corpus_path(path, sizeof path, "mxnet/gluon_note_code_test.params"))
        truncation_loop(path);
}
END_TEST

START_TEST(test_truncation_corpus_v3)
{
    char path[512];
    if (tu_corpus_path(path, sizeof path, "mxnet/d2l_mlp_v3.params"))
        truncation_loop(path);
}
END_TEST

static const char *const trunc_fixtures[] = {
    "mxnet/v2_sparse.params", "mxnet/legacy_names.nd", "mxnet/v1.params",
    "mxnet/v3_scalar.params", "mxnet/mixed_all.params",
};

START_TEST(test_truncation_fixtures)
{
    char path[512];
    truncation_loop(tu_fixture(path, sizeof path, trunc_fixtures[_i]));
}
END_TEST

/* ---- detection, forced format, memory ----------------------------------- */

START_TEST(test_detect)
{
    unsigned char buf[24] = {0x12, 0x01};
    ck_assert_int_eq(ts_format_detect(buf, sizeof buf), TS_FORMAT_MXNET);
    ck_assert_int_eq(ts_format_detect(buf, 8), TS_FORMAT_MXNET);
    ck_assert_int_eq(ts_format_detect(buf, 7), TS_FORMAT_AUTO);
    buf[0] = 0x13;
    ck_assert_int_eq(ts_format_detect(buf, sizeof buf), TS_FORMAT_AUTO);
    buf[0] = 0x12;
    buf[7] = 1;   /* the magic is a whole u64 */
    ck_assert_int_eq(ts_format_detect(buf, sizeof buf), TS_FORMAT_AUTO);
}
END_TEST

/* A hand-built list in memory: a legacy record whose u32 dims reach 2^32-1,
 * no names; and the same bytes read with err NULL. */
START_TEST(test_memory_legacy_u32_dims)
{
    unsigned char buf[24 + 4 + 4 + 12 + 8 + 8];
    memset(buf, 0, sizeof buf);
    buf[0] = 0x12;
    buf[1] = 0x01;
    buf[16] = 1;                         /* n_arrays */
    buf[24] = 1;                         /* legacy ndim 1 */
    memset(buf + 28, 0, 4);              /* dim 0 = 0: zero-size */
    buf[32] = 1;                         /* dev_type cpu */
    buf[40] = 11;                        /* type flag uint64 */
    /* 0 data bytes, then n_names = 0 (8 bytes) at 44; 4 bytes trailing. */
    ts_file *f = NULL;
    ts_error err;
    ck_assert_msg(ts_file_open_memory(buf, sizeof buf, NULL, &f, &err) == TS_OK, "%s",
                  err.message);
    ck_assert_str_eq(ts_file_version(f), "legacy");
    const ts_array *a = ts_file_array(f, 0);
    tu_assert_shape(&a->shape, "(0,)");
    ck_assert_str_eq(a->dtype_name, "uint64");
    ck_assert_str_eq(a->format_dtype, "11");
    ck_assert_int_eq(a->size, 0);
    ck_assert_int_eq(a->nbytes, 0);
    ck_assert_int_eq(a->data_offset, 44);
    ts_file_close(f);

    /* dim 2^32-1 of uint64: 34 GB declared in a 60-byte buffer. */
    memset(buf + 28, 0xff, 4);
    ck_assert_int_eq(ts_file_open_memory(buf, sizeof buf, NULL, &f, &err),
                     TS_ERR_TRUNCATED);
    ck_assert_str_eq(err.message, "array 0: file ends inside the data at byte 44: need "
                                  "34359738360 bytes, 16 left");
    ck_assert_int_eq(err.offset, 44);
    ck_assert_int_eq(ts_file_open_memory(buf, sizeof buf, NULL, &f, NULL),
                     TS_ERR_TRUNCATED);
}
END_TEST

/*
 * Payloads are skipped, never read: a 4 GiB float32 payload in a sparse file
 * is inspected in far less than Check's timeout, and its names (after the
 * payload, past 2^32) are found. Skipped where sparse files are unsupported.
 */
START_TEST(test_huge_sparse_file)
{
    char path[] = "/tmp/tshape-mxnet-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    /* header, V2 record (1<<30,) float32, then n_names 1, name "big" */
    unsigned char head[24 + 8 + 12 + 12];
    memset(head, 0, sizeof head);
    head[0] = 0x12;
    head[1] = 0x01;
    head[16] = 1;
    const unsigned char magic[4] = {0xc9, 0xfa, 0x93, 0xf9};
    memcpy(head + 24, magic, 4);
    head[32] = 1;                          /* ndim 1 */
    head[36 + 3] = 0x40;                   /* dim 1 << 30 */
    head[44] = 1;                          /* dev_type */
    /* dev_id 0 at 48, type flag 0 at 52: payload at 56 */
    const int64_t payload = (int64_t)1 << 32;
    unsigned char tail[8 + 8 + 3] = {1, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0,
                                     'b', 'i', 'g'};
    if (pwrite(fd, head, sizeof head, 0) != (ssize_t)sizeof head ||
        pwrite(fd, tail, sizeof tail, 56 + payload) != (ssize_t)sizeof tail) {
        fprintf(stderr, "skipped: cannot write a sparse 4 GiB file in /tmp\n");
        close(fd);
        unlink(path);
        return;
    }
    close(fd);
    ts_file *f = NULL;
    ts_error err;
    ts_status st = ts_file_open(path, NULL, &f, &err);
    unlink(path);
    ck_assert_msg(st == TS_OK, "%s", err.message);
    const ts_array *a = ts_file_array(f, 0);
    ck_assert_str_eq(a->name, "big");
    ck_assert_int_eq(a->size, (int64_t)1 << 30);
    ck_assert_int_eq(a->nbytes, payload);
    ck_assert_int_eq(a->data_offset, 56);
    ck_assert_int_eq(ts_file_nbytes(f), 56 + payload + (int64_t)sizeof tail);
    ts_file_close(f);
}
END_TEST

/*
 * The array-count cap (LIMITS): 2^20 + 1 empty legacy records (4 bytes
 * each, all there) are refused at the count, before any array is kept;
 * a file with 3 of them is read.
 */
START_TEST(test_array_count_cap)
{
    const size_t n = ((size_t)1 << 20) + 1;
    size_t len = 24 + 4 * n + 8;
    unsigned char *buf = calloc(1, len);
    ck_assert_ptr_nonnull(buf);
    buf[0] = 0x12;
    buf[1] = 0x01;
    for (int i = 0; i < 8; i++)
        buf[16 + i] = (unsigned char)((uint64_t)n >> (8 * i));
    ts_file *f = NULL;
    ts_error err;
    ck_assert_int_eq(ts_file_open_memory(buf, len, NULL, &f, &err), TS_ERR_LIMIT);
    ck_assert_ptr_null(f);
    ck_assert_str_eq(err.message, "file declares 1048577 arrays at byte 16, more than the "
                                  "1048576 tshape reads from one file (see LIMITS in "
                                  "tshape(1))");
    ck_assert_int_eq(err.offset, 16);
    buf[16] = 3;
    buf[17] = buf[18] = 0;
    ck_assert_int_eq(ts_file_open_memory(buf, 24 + 12 + 8, NULL, &f, &err), TS_OK);
    ck_assert_uint_eq(ts_file_count(f), 3);
    ck_assert_str_eq(ts_file_array(f, 2)->dtype_name, "none");
    ts_file_close(f);
    free(buf);
}
END_TEST

/* Records' memory: at most 4 bytes per byte of the file + 16 MiB (issue 26:
 * 2^20 empty records in 4 MB took 302 MiB). 50,000 empty records (200 KB)
 * are read; the 2^20 of the cap stop at the first array past the bound,
 * named with both numbers. */
START_TEST(test_array_memory_bound)
{
    const size_t n = (size_t)1 << 20, base = (size_t)16 << 20;
    size_t len = 24 + 4 * n + 8;
    unsigned char *buf = calloc(1, len);
    ck_assert_ptr_nonnull(buf);
    buf[0] = 0x12;
    buf[1] = 0x01;
    buf[16] = 0x50; /* 50,000 = 0xc350 */
    buf[17] = 0xc3;
    ts_file *f = NULL;
    ts_error err;
    size_t small = 24 + 4 * 50000 + 8;
    ck_assert_msg(ts_file_open_memory(buf, small, NULL, &f, &err) == TS_OK, "%s", err.message);
    ck_assert_uint_eq(ts_file_count(f), 50000);
    ts_file_close(f);
    buf[16] = 0;
    buf[17] = 0;
    buf[18] = 0x10; /* 2^20 */
    size_t k = 1;
    while (!(k * sizeof(ts_array) > base && (k * sizeof(ts_array) - base) / 4 > len))
        k++;
    char want[256];
    snprintf(want, sizeof want, "%zu arrays in a file of %zu bytes: their records would take "
             "more than 4 bytes per byte of the file + 16 MiB (%zu bytes each; see LIMITS in "
             "tshape(1))", k, len, sizeof(ts_array));
    ts_status st = ts_file_open_memory(buf, len, NULL, &f, &err);
    ck_assert_msg(st == TS_ERR_LIMIT, "status %d: %s", (int)st, err.message);
    ck_assert_ptr_null(f);
    ck_assert_str_eq(err.message, want);
    ck_assert_uint_lt(k * sizeof(ts_array), 4 * len + base + sizeof(ts_array));
    free(buf);
}
END_TEST

Suite *mxnet_suite(void)
{
    Suite *s = suite_create("mxnet");
    TCase *tc = tcase_create("files");
    tcase_add_loop_test(tc, test_files, 0, (int)N(files));
    tcase_add_test(tc, test_cifar_totals);
    tcase_add_test(tc, test_detect);
    tcase_add_test(tc, test_memory_legacy_u32_dims);
    tcase_add_test(tc, test_huge_sparse_file);
    tcase_add_test(tc, test_array_count_cap);
    tcase_add_test(tc, test_array_memory_bound);
    suite_add_tcase(s, tc);

    tc = tcase_create("errors");
    tcase_add_loop_test(tc, test_bad, 0, (int)N(bad));
    suite_add_tcase(s, tc);

    tc = tcase_create("truncation");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_truncation_corpus_v2);
    tcase_add_test(tc, test_truncation_corpus_v3);
    tcase_add_loop_test(tc, test_truncation_fixtures, 0, (int)N(trunc_fixtures));
    suite_add_tcase(s, tc);
    return s;
}
