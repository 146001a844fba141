/* check_pytorch.c - the PyTorch reader and its pickle machine: every file of
 * the shared corpus against its expected.json entry (names, dtypes, shapes,
 * strides, storage offsets, storages, devices, data offsets, values and
 * refusals), the fixtures of tests/fixtures/pytorch/ (gen_pytorch.py),
 * pickles built in memory (allowlist, refusals, limits, hostile trees),
 * and damaged files (every prefix, byte changes). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/pickle.h"
#include "formats/pickle_globals.h"
#include "testutil.h"

/* ---- the corpus against expected.json ----------------------------------- */

static const char *const corpus_files[] = {
    "cnn_zip.pt",    "cnn_legacy.pt", "checkpoint.pth", "views.pt",   "dtypes.pt",
    "parameter.pt",  "protocol4.pt",  "list.pt",        "tensor.pt",  "special.pt",
    "scripted.pt",   "evil.pt",       "bad_pickle.pt",  "truncated.pt", "tar_format.pt",
};

static json_t *expected_json(void)
{
    char path[512];
    if (!tu_corpus_path(path, sizeof path, "pytorch/expected.json"))
        return NULL;
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    ck_assert_msg(j != NULL, "%s: %s", path, je.text);
    return j;
}

static int64_t jint(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    ck_assert_msg(json_is_integer(v), "expected.json: '%s' is not an integer", key);
    return (int64_t)json_integer_value(v);
}

static void check_dims(const char *label, const char *what, const json_t *want,
                       const ts_shape *got)
{
    ck_assert_msg(json_is_array(want), "%s: %s missing", label, what);
    ck_assert_msg((size_t)ts_shape_ndim(got) == json_array_size(want), "%s: %s has %d dims, "
                  "expected %zu", label, what, ts_shape_ndim(got), json_array_size(want));
    for (size_t i = 0; i < json_array_size(want); i++)
        ck_assert_msg(ts_shape_dims(got)[i] == json_integer_value(json_array_get(want, i)),
                      "%s: %s[%zu] = %lld", label, what, i, (long long)ts_shape_dims(got)[i]);
}

static int contains(const char *s, const char *part)
{
    return s && strstr(s, part) != NULL;
}

static void check_tensor(const char *file, const json_t *t, const ts_array *a, int legacy)
{
    char label[300];
    const char *name = json_string_value(json_object_get(t, "name"));
    snprintf(label, sizeof label, "%s: '%s'", file, name);
    ck_assert_msg(strcmp(a->name, name) == 0, "%s: found '%s' instead", label, a->name);
    ck_assert_msg(strcmp(a->dtype_name, json_string_value(json_object_get(t, "dtype"))) == 0,
                  "%s: dtype %s", label, a->dtype_name);
    check_dims(label, "shape", json_object_get(t, "shape"), &a->shape);
    const char *kind = json_string_value(json_object_get(t, "kind"));
    const json_t *off = json_object_get(t, "data_offset");
    int64_t want_off = json_is_null(off) ? -1 : (int64_t)json_integer_value(off);
    ck_assert_msg(a->data_offset == want_off, "%s: data_offset %lld, expected %lld", label,
                  (long long)a->data_offset, (long long)want_off);
    if (strcmp(kind, "sparse") == 0) {
        ck_assert_msg(contains(a->note, json_string_value(json_object_get(t, "layout"))),
                      "%s: note %s", label, a->note);
        ck_assert_ptr_null(a->storage_key);
        ck_assert_int_eq(a->nbytes, 0);
        return;
    }
    check_dims(label, "stride", json_object_get(t, "stride"), &a->strides);
    ck_assert_int_eq(a->storage_offset, jint(t, "storage_offset"));
    ck_assert_int_eq(a->size, jint(t, "size"));
    ck_assert_int_eq(a->itemsize, jint(t, "itemsize"));
    ck_assert_int_eq(a->nbytes, jint(t, "nbytes"));
    ck_assert_int_eq(ts_is_c_contiguous(&a->shape, ts_shape_dims(&a->strides), 1),
                     json_is_true(json_object_get(t, "c_contiguous")));
    ck_assert_int_eq(ts_is_f_contiguous(&a->shape, ts_shape_dims(&a->strides), 1),
                     json_is_true(json_object_get(t, "f_contiguous")));
    ck_assert_int_eq(a->fortran_order, !json_is_true(json_object_get(t, "c_contiguous")) &&
                                           json_is_true(json_object_get(t, "f_contiguous")));
    ck_assert_str_eq(a->device, json_string_value(json_object_get(t, "location")));
    const json_t *st = json_object_get(t, "storage");
    if (json_is_null(st)) {
        ck_assert_ptr_null(a->storage_key);
    } else {
        char want[256];
        const char *key = json_string_value(st);
        ck_assert_ptr_nonnull(a->storage_key);
        if (legacy) {
            ck_assert_str_eq(a->storage_key, key);
        } else {
            snprintf(want, sizeof want, "/data/%s", key);
            size_t n = strlen(a->storage_key), k = strlen(want);
            ck_assert_msg(n > k && strcmp(a->storage_key + n - k, want) == 0,
                          "%s: storage key %s, expected .../data/%s", label, a->storage_key,
                          key);
        }
        ck_assert_str_eq(a->format_dtype, json_string_value(json_object_get(t,
                                                                             "storage_type")));
    }
    if (strcmp(kind, "parameter") == 0)
        ck_assert_msg(contains(a->note, "nn.Parameter"), "%s: note %s", label, a->note);
    else
        ck_assert_msg(!contains(a->note, "nn.Parameter"), "%s: note %s", label, a->note);
    if (json_is_true(json_object_get(t, "requires_grad")))
        ck_assert_msg(contains(a->note, "requires_grad"), "%s: note %s", label, a->note);
    else
        ck_assert_msg(!contains(a->note, "requires_grad"), "%s: note %s", label, a->note);
    if (strcmp(kind, "meta") == 0)
        ck_assert_msg(contains(a->note, "meta tensor"), "%s: note %s", label, a->note);
    const json_t *q = json_object_get(t, "quantization");
    if (q) {
        char want[128];
        snprintf(want, sizeof want, "%s, scale %g, zero_point %lld",
                 json_string_value(json_object_get(q, "scheme")),
                 json_real_value(json_object_get(q, "scale")), (long long)jint(q, "zero_point"));
        ck_assert_msg(contains(a->note, want), "%s: note %s, expected %s", label, a->note,
                      want);
    }
}

/* expected.json's {name, type, value} as the JSON text the reader writes. */
static json_t *expected_value(const json_t *v)
{
    const char *type = json_string_value(json_object_get(v, "type"));
    json_t *value = json_object_get(v, "value");
    static const char *const plain[] = {"int", "float", "str", "bool", "None", "list", "dict"};
    for (size_t i = 0; i < sizeof plain / sizeof *plain; i++)
        if (strcmp(type, plain[i]) == 0)
            return json_incref(value);
    return json_pack("{sO}", type, value);
}

static void check_values(const char *file, const json_t *values, const ts_file *f)
{
    ck_assert_uint_eq(ts_file_metadata_count(f), json_array_size(values));
    for (size_t i = 0; i < json_array_size(values); i++) {
        const json_t *v = json_array_get(values, i);
        const char *key, *text;
        ck_assert(ts_file_metadata(f, i, &key, &text));
        ck_assert_msg(strcmp(key, json_string_value(json_object_get(v, "name"))) == 0,
                      "%s: value %zu is '%s'", file, i, key);
        json_error_t je;
        json_t *got = json_loads(text, JSON_DECODE_ANY, &je);
        ck_assert_msg(got != NULL, "%s: value '%s' is not JSON: %s", file, key, text);
        json_t *want = expected_value(v);
        ck_assert_msg(json_equal(got, want), "%s: value '%s' is %s", file, key, text);
        json_decref(got);
        json_decref(want);
    }
}

START_TEST(test_corpus)
{
    const char *file = corpus_files[_i];
    char rel[128], path[512];
    snprintf(rel, sizeof rel, "pytorch/%s", file);
    if (!tu_corpus_path(path, sizeof path, rel))
        return;
    json_t *all = expected_json();
    if (!all)
        return;
    const json_t *e = json_object_get(all, file);
    ck_assert_ptr_nonnull(e);
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.want_metadata = 1;
    ts_file *f = NULL;
    ts_error err;
    ts_status st = ts_file_open(path, &o, &f, &err);
    const char *error = json_string_value(json_object_get(e, "error"));
    if (error) {
        ck_assert_msg(st != TS_OK, "%s: accepted, expected %s", file, error);
        ck_assert_ptr_null(f);
        if (strcmp(error, "unsafe_global") == 0) {
            char want[200];
            ck_assert_int_eq(st, TS_ERR_UNSUPPORTED);
            snprintf(want, sizeof want, "%s byte %lld: refusing the file: %s %s is dangerous",
                     json_string_value(json_object_get(e, "member")),
                     (long long)jint(e, "pickle_offset"),
                     json_string_value(json_object_get(e, "opcode")),
                     json_string_value(json_object_get(e, "global")));
            ck_assert_msg(contains(err.message, want), "%s: %s", file, err.message);
            ck_assert(contains(err.message, "nothing was executed"));
        } else if (strcmp(error, "bad_pickle") == 0) {
            char want[200];
            ck_assert_int_eq(st, TS_ERR_FORMAT);
            snprintf(want, sizeof want, "%s byte %lld: invalid pickle opcode",
                     json_string_value(json_object_get(e, "member")),
                     (long long)jint(e, "pickle_offset"));
            ck_assert_msg(contains(err.message, want), "%s: %s", file, err.message);
        } else if (strcmp(error, "truncated") == 0) {
            ck_assert_int_eq(st, TS_ERR_TRUNCATED);
        } else if (strcmp(error, "unsupported") == 0) {
            ck_assert_int_eq(st, TS_ERR_UNSUPPORTED);
            ck_assert_msg(contains(err.message, "tar-based torch.save"), "%s", err.message);
        } else {
            ck_abort_msg("%s: unexpected error kind %s", file, error);
        }
        json_decref(all);
        return;
    }
    ck_assert_msg(st == TS_OK, "%s: %s", file, err.message);
    ck_assert_int_eq(ts_file_format(f), TS_FORMAT_PYTORCH);
    int legacy = strcmp(json_string_value(json_object_get(e, "container")), "legacy") == 0;
    const char *format = json_string_value(json_object_get(e, "format"));
    const json_t *rv = json_object_get(e, "record_version");
    char version[64];
    if (legacy)
        snprintf(version, sizeof version, "legacy %lld",
                 (long long)jint(e, "legacy_protocol_version"));
    else
        snprintf(version, sizeof version, "%s %.*s",
                 strcmp(format, "torchscript") == 0 ? "torchscript" : "zip",
                 (int)strcspn(json_string_value(rv), "\n"), json_string_value(rv));
    ck_assert_str_eq(ts_file_version(f), version);
    const json_t *tensors = json_object_get(e, "tensors");
    ck_assert_msg(ts_file_count(f) == json_array_size(tensors), "%s: %zu arrays, expected %zu",
                  file, ts_file_count(f), json_array_size(tensors));
    for (size_t i = 0; i < json_array_size(tensors); i++)
        check_tensor(file, json_array_get(tensors, i), ts_file_array(f, i), legacy);
    check_values(file, json_object_get(e, "values"), f);
    ts_file_close(f);
    /* values are metadata: only on request */
    ck_assert_int_eq(ts_file_open(path, NULL, &f, &err), TS_OK);
    ck_assert_uint_eq(ts_file_metadata_count(f), 0);
    ts_file_close(f);
    json_decref(all);
}
END_TEST

/* The corpus files are detected as PyTorch, except those that are not
 * (tar) or cannot be (truncated: no directory, but its first member says
 * data.pkl). */
START_TEST(test_detect)
{
    static const char *const torch_files[] = {"cnn_zip.pt", "cnn_legacy.pt", "scripted.pt",
                                              "tar_format.pt", "truncated.pt", "evil.pt"};
    for (size_t i = 0; i < sizeof torch_files / sizeof *torch_files; i++) {
        char rel[128], path[512];
        snprintf(rel, sizeof rel, "pytorch/%s", torch_files[i]);
        if (!tu_corpus_path(path, sizeof path, rel))
            return;
        size_t len;
        unsigned char *d = tu_read_file(path, &len);
        ck_assert_ptr_nonnull(d);
        ck_assert_msg(ts_format_detect(d, len) == TS_FORMAT_PYTORCH, "%s", path);
        free(d);
    }
    /* an npz stays an npz */
    size_t len;
    unsigned char *d = tu_read_file("tests/fixtures/npy/mixed.npz", &len);
    ck_assert_ptr_nonnull(d);
    ck_assert_int_eq(ts_format_detect(d, len), TS_FORMAT_NPZ);
    free(d);
    ck_assert_int_eq(ts_format_detect("PYTORCH1", 8), TS_FORMAT_PYTORCH);
    /* a pickle that is not torch's legacy magic is a plain pickle */
    ck_assert_int_eq(ts_format_detect("\x80\x02\x8a\x0a", 4), TS_FORMAT_PICKLE);
    ck_assert_int_eq(ts_format_detect("\x80\x01\x8a\x0a", 4), TS_FORMAT_AUTO);
}
END_TEST

/* ---- the fixtures of gen_pytorch.py -------------------------------------- */

typedef struct fx_array {
    const char *name, *dtype, *shape, *strides;
    int64_t storage_offset, data_offset;
    const char *device, *storage_key;
    char byteorder;
    const char *note;          /* exact, or NULL */
} fx_array;

typedef struct fx_case {
    const char *file;
    const char *version;
    size_t narrays, nvalues;
    fx_array a[8];
} fx_case;

#define DENSE_NOTE "dense in a permuted order (such as channels_last), not C or F order: " \
                   "read it with its strides"
#define DEFLATED_NOTE "storage member is deflated: data is compressed"

static const fx_case fixtures[] = {
    {"hf_tied.bin", "zip 3", 4, 0,
     {{"model.embed_tokens.weight", "bfloat16", "(8,4)", "(4,1)", 0, 512, "cpu",
       "archive/data/0", '<', "the same tensor as 'lm_head.weight'"},
      {"model.layers.0.mlp.up_proj.weight", "bfloat16", "(6,4)", "(4,1)", 0, 640, "cpu",
       "archive/data/1", '<', NULL},
      {"model.norm.weight", "bfloat16", "(4,)", "(1,)", 0, 768, "cpu", "archive/data/2", '<',
       NULL},
      {"lm_head.weight", "bfloat16", "(8,4)", "(4,1)", 0, 512, "cpu", "archive/data/0", '<',
       "the same tensor as 'model.embed_tokens.weight'"}}},
    {"deflated.pt", "zip 3", 2, 0,
     {{"w", "float32", "(3,4)", "(4,1)", 0, -1, "cpu", "deflated/data/0", '<', DEFLATED_NOTE},
      {"b", "float32", "(3,)", "(1,)", 0, -1, "cpu", "deflated/data/1", '<', DEFLATED_NOTE}}},
    {"per_channel.pt", "zip 3", 3, 0,
     {{"q", "qint8", "(2,3)", "(3,1)", 0, 512, "cpu", "per_channel/data/0", '|',
       "quantized qint8: per_channel_affine on axis 0, scales and zero points in "
       "<name>.q_per_channel_scales and <name>.q_per_channel_zero_points"},
      {"q.q_per_channel_scales", "float64", "(2,)", "(1,)", 0, 640, "cpu",
       "per_channel/data/1", '<', NULL},
      {"q.q_per_channel_zero_points", "int64", "(2,)", "(1,)", 0, 768, "cpu",
       "per_channel/data/2", '<', NULL}}},
    {"csr.pt", "zip 3", 4, 0,
     {{"csr", "float32", "(2,3)", "(3,1)", 0, -1, "cpu", NULL, '<',
       "sparse_csr tensor with 3 stored values in <name>.crow_indices, <name>.col_indices, "
       "<name>.values"},
      {"csr.crow_indices", "int64", "(3,)", "(1,)", 0, 576, "cpu", "csr/data/0", '<', NULL},
      {"csr.col_indices", "int64", "(3,)", "(1,)", 0, 704, "cpu", "csr/data/1", '<', NULL},
      {"csr.values", "float32", "(3,)", "(1,)", 0, 832, "cpu", "csr/data/2", '<', NULL}}},
    {"channels_last.pt", "zip 3", 1, 0,
     {{"cl", "float16", "(1,2,3,4)", "(24,1,8,2)", 0, -1, "cpu", "channels_last/data/0", '<',
       DENSE_NOTE}}},
    {"adam.pt", "zip 3", 8, 18,
     {{"model.module.weight", "float32", "(2,3)", "(3,1)", 0, 1152, "cpu", "adam/data/0", '<',
       NULL},
      {"model.module.bias", "float32", "(2,)", "(1,)", 0, 1280, "cpu", "adam/data/1", '<',
       NULL},
      {"optimizer.state.0.step", "float32", "()", "()", 0, 1408, "cpu", "adam/data/2", '<',
       NULL},
      {"optimizer.state.0.exp_avg", "float32", "(2,3)", "(3,1)", 0, 1536, "cpu",
       "adam/data/3", '<', NULL},
      {"optimizer.state.0.exp_avg_sq", "float32", "(2,3)", "(3,1)", 0, 1664, "cpu",
       "adam/data/4", '<', NULL},
      {"optimizer.state.1.step", "float32", "()", "()", 0, 1792, "cpu", "adam/data/5", '<',
       NULL},
      {"optimizer.state.1.exp_avg", "float32", "(2,)", "(1,)", 0, 1920, "cpu", "adam/data/6",
       '<', NULL},
      {"optimizer.state.1.exp_avg_sq", "float32", "(2,)", "(1,)", 0, 2048, "cpu",
       "adam/data/7", '<', NULL}}},
    {"storage.pt", "zip 3", 1, 0,
     {{"", "int32", "(5,)", "(1,)", 0, 192, "cpu", "storage/data/0", '<',
       "a storage saved on its own (no tensor)"}}},
    {"v3_float8.pt", "zip 3", 2, 0,
     {{"f8", "float8_e4m3fn", "(2,3)", "(3,1)", 0, 448, "cpu", "v3_float8/data/0", '|', NULL},
      {"u16", "uint16", "(3,)", "(1,)", 1, 578, "cpu", "v3_float8/data/1", '<', NULL}}},
    {"cuda_big_endian.pt", "zip 3", 2, 0,
     {{"w", "float32", "(2,2)", "(2,1)", 0, 448, "cuda:1", "cuda_big_endian/data/0", '>',
       NULL},
      {"i", "int16", "(3,)", "(1,)", 0, 576, "cpu", "cuda_big_endian/data/1", '>', NULL}}},
    {"from_type_v2.pt", "zip 3", 1, 0,
     {{"p", "float32", "(3,)", "(1,)", 0, 384, "cpu", "from_type_v2/data/0", '<',
       "nn.Parameter (requires_grad)"}}},
};

START_TEST(test_fixture)
{
    const fx_case *c = &fixtures[_i];
    char path[256], rel[128];
    snprintf(rel, sizeof rel, "pytorch/%s", c->file);
    tu_fixture(path, sizeof path, rel);
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.want_metadata = 1;
    ts_file *f;
    ts_error err;
    ck_assert_msg(ts_file_open(path, &o, &f, &err) == TS_OK, "%s: %s", path, err.message);
    ck_assert_int_eq(ts_file_format(f), TS_FORMAT_PYTORCH);
    ck_assert_str_eq(ts_file_version(f), c->version);
    ck_assert_uint_eq(ts_file_count(f), c->narrays);
    ck_assert_uint_eq(ts_file_metadata_count(f), c->nvalues);
    for (size_t i = 0; i < c->narrays; i++) {
        const fx_array *w = &c->a[i];
        const ts_array *a = ts_file_array(f, i);
        ck_assert_str_eq(a->name, w->name);
        ck_assert_str_eq(a->dtype_name, w->dtype);
        tu_assert_shape(&a->shape, w->shape);
        tu_assert_shape(&a->strides, w->strides);
        ck_assert_int_eq(a->storage_offset, w->storage_offset);
        ck_assert_msg(a->data_offset == w->data_offset, "%s '%s': data_offset %lld", c->file,
                      a->name, (long long)a->data_offset);
        ck_assert_str_eq(a->device, w->device);
        if (w->storage_key)
            ck_assert_str_eq(a->storage_key, w->storage_key);
        else
            ck_assert_ptr_null(a->storage_key);
        ck_assert_int_eq(a->byteorder, w->byteorder);
        if (w->note)
            ck_assert_str_eq(a->note, w->note);
        else
            ck_assert_msg(a->note == NULL, "%s '%s': note %s", c->file, a->name, a->note);
    }
    ts_file_close(f);
}
END_TEST

/* The legacy file's keys are addresses (they change when it is written
 * again): check each storage's data against its count in the file. */
START_TEST(test_fixture_legacy)
{
    char path[256];
    tu_fixture(path, sizeof path, "pytorch/legacy_p4.pt");
    size_t len;
    unsigned char *d = tu_read_file(path, &len);
    ck_assert_ptr_nonnull(d);
    /* protocol 4: PROTO 4, FRAME, then the magic */
    ck_assert_int_eq(memcmp(d, "\x80\x04\x95", 3), 0);
    ck_assert_int_eq(ts_format_detect(d, len), TS_FORMAT_PYTORCH);
    ts_file *f;
    ts_error err;
    ck_assert_msg(ts_file_open_memory(d, len, NULL, &f, &err) == TS_OK, "%s", err.message);
    ck_assert_str_eq(ts_file_version(f), "legacy 1001");
    ck_assert_uint_eq(ts_file_count(f), 2);
    static const char *const names[] = {"w", "steps"};
    static const char *const shapes[] = {"(2,3)", "()"};
    for (size_t i = 0; i < 2; i++) {
        const ts_array *a = ts_file_array(f, i);
        ck_assert_str_eq(a->name, names[i]);
        tu_assert_shape(&a->shape, shapes[i]);
        ck_assert_int_ge(a->data_offset, 8);
        int64_t count;
        memcpy(&count, d + a->data_offset - 8, 8);
        ck_assert_int_eq(count, a->size);
        ck_assert_ptr_nonnull(a->storage_key);
        ck_assert_uint_gt(strspn(a->storage_key, "0123456789"), 0);
    }
    ts_file_close(f);
    free(d);
}
END_TEST

typedef struct fx_error {
    const char *file;
    ts_status code;
    int64_t offset;
    const char *message;
} fx_error;

static const fx_error fixture_errors[] = {
    {"evil_stack_global.pt", TS_ERR_UNSUPPORTED, 64 + 155,
     "evil_stack_global/data.pkl byte 155: refusing the file: STACK_GLOBAL posix.system is "
     "dangerous (it would run a shell command under torch.load); nothing was executed"},
    {"evil_legacy_exec.pt", TS_ERR_UNSUPPORTED, 27,
     "object pickle byte 27: refusing the file: GLOBAL builtins.exec is dangerous (it would "
     "run Python code under torch.load); nothing was executed"},
    {"missing_storage.pt", TS_ERR_FORMAT, 64 + 93,
     "missing_storage/data.pkl byte 93: storage '7' (torch.FloatStorage, 2 elements) has no "
     "member missing_storage/data/7 in the archive"},
    {"bad_geometry.pt", TS_ERR_FORMAT, 64 + 137,
     "bad_geometry/data.pkl byte 137: tensor of shape (2,2), stride (2,1) and storage offset "
     "1 needs 20 bytes of storage '0', which has 16"},
};

START_TEST(test_fixture_error)
{
    const fx_error *c = &fixture_errors[_i];
    char path[256], rel[128];
    snprintf(rel, sizeof rel, "pytorch/%s", c->file);
    tu_expect_open_error(tu_fixture(path, sizeof path, rel), NULL, c->code, c->offset,
                         c->message);
}
END_TEST

/* Other files forced through the reader. */
START_TEST(test_forced)
{
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.format = TS_FORMAT_PYTORCH;
    tu_expect_open_error("tests/fixtures/npy/stored.npz", &o, TS_ERR_FORMAT, -1,
                         "not a PyTorch archive: the zip has no member <folder>/data.pkl "
                         "(3 members)");
    tu_expect_open_error("tests/fixtures/npy/float32.npy", &o, TS_ERR_FORMAT, 0,
                         "not a PyTorch file: expected a zip archive (PK\\3\\4) or a pickle "
                         "starting with PROTO (0x80) and the magic number "
                         "0x1950a86a20f9469cfc6c");
}
END_TEST

/* ---- pickles built in memory --------------------------------------------- */

typedef struct pb {
    unsigned char b[65536];
    size_t n;
} pb;

static void put(pb *p, const void *s, size_t n)
{
    ck_assert_uint_le(p->n + n, sizeof p->b);
    memcpy(p->b + p->n, s, n);
    p->n += n;
}
static void op(pb *p, unsigned char c) { put(p, &c, 1); }
static void ops(pb *p, const char *s) { put(p, s, strlen(s)); }
/* a literal that may hold NUL bytes */
#define OPS(p, lit) put((p), (lit), sizeof(lit) - 1)
static void str(pb *p, const char *s)
{
    unsigned char h[5] = {'X'};
    uint32_t n = (uint32_t)strlen(s);
    memcpy(h + 1, &n, 4);
    put(p, h, 5);
    put(p, s, n);
}
static void intv(pb *p, int v)
{
    if (v >= 0 && v < 256) {
        op(p, 'K');
        op(p, (unsigned char)v);
    } else {
        op(p, 'J');
        int32_t x = v;
        put(p, &x, 4);
    }
}
static void global(pb *p, const char *mod, const char *name)
{
    op(p, 'c');
    ops(p, mod);
    op(p, '\n');
    ops(p, name);
    op(p, '\n');
}
/* _rebuild_tensor_v2 of a float32 (or `type`) storage `key` of numel
 * elements, with `dims` size and stride tuples (text of BININT1s). */
static void tensor(pb *p, const char *type, const char *key, int numel, int offset, int ndim,
                   const int *size, const int *stride)
{
    global(p, "torch._utils", "_rebuild_tensor_v2");
    op(p, '(');
    op(p, '(');
    str(p, "storage");
    global(p, "torch", type);
    str(p, key);
    str(p, "cpu");
    intv(p, numel);
    op(p, 'N'); /* legacy: view_metadata */
    op(p, 't');
    op(p, 'Q');
    intv(p, offset);
    op(p, '(');
    for (int i = 0; i < ndim; i++)
        intv(p, size[i]);
    op(p, 't');
    op(p, '(');
    for (int i = 0; i < ndim; i++)
        intv(p, stride[i]);
    op(p, 't');
    op(p, 0x89);
    global(p, "collections", "OrderedDict");
    op(p, ')');
    op(p, 'R');
    op(p, 't');
    op(p, 'R');
}

/* A legacy file: the four header pickles, the object pickle `obj`, the key
 * list and zero-filled storages of counts[i] elements of itemsize[i]. */
static unsigned char *legacy(const pb *obj, const char *const *keys, const int64_t *counts,
                             const int *itemsize, int n, size_t *len)
{
    static pb out;
    out.n = 0;
    put(&out, "\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19.", 15);
    put(&out, "\x80\x02M\xe9\x03.", 6);
    put(&out, "\x80\x02}.", 4);
    put(&out, obj->b, obj->n);
    put(&out, "\x80\x02](", 4);
    for (int i = 0; i < n; i++)
        str(&out, keys[i]);
    put(&out, "e.", 2);
    for (int i = 0; i < n; i++) {
        put(&out, &counts[i], 8);
        for (int64_t k = 0; k < counts[i] * itemsize[i]; k++)
            op(&out, 0);
    }
    *len = out.n;
    return out.b;
}

/* With storage k0 of 6 float32 when `k0`, else no storage. */
static ts_status open_legacy(const pb *obj, ts_error *err, ts_file **out, int k0)
{
    static const char *const keys[] = {"k0"};
    static const int64_t counts[] = {6};
    static const int sizes[] = {4};
    size_t len;
    unsigned char *d = legacy(obj, keys, counts, sizes, k0, &len);
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.want_metadata = 1;
    if (!out)
        return tu_open_exact(d, len, &o, err);
    static unsigned char keep[65536];
    memcpy(keep, d, len);
    return ts_file_open_memory(keep, len, &o, out, err);
}

static const int S23[] = {2, 3}, T23[] = {3, 1};

START_TEST(test_legacy_built)
{
    pb p = {.n = 0};
    ops(&p, "\x80\x02}");
    str(&p, "w");
    tensor(&p, "FloatStorage", "k0", 6, 0, 2, S23, T23);
    op(&p, 's');
    str(&p, "t");
    tensor(&p, "FloatStorage", "k0", 6, 2, 1, (const int[]){2}, (const int[]){2});
    op(&p, 's');
    op(&p, '.');
    ts_file *f;
    ts_error err;
    ck_assert_msg(open_legacy(&p, &err, &f, 1) == TS_OK, "%s", err.message);
    ck_assert_str_eq(ts_file_version(f), "legacy 1001");
    ck_assert_uint_eq(ts_file_count(f), 2);
    const ts_array *a = ts_file_array(f, 0), *b = ts_file_array(f, 1);
    ck_assert_str_eq(a->name, "w");
    tu_assert_shape(&a->shape, "(2,3)");
    ck_assert_int_eq(a->data_offset, (int64_t)(15 + 6 + 4 + p.n + 13 + 8));
    ck_assert_str_eq(a->storage_key, "k0");
    ck_assert_str_eq(b->name, "t");
    ck_assert_int_eq(b->storage_offset, 2);
    ck_assert_int_eq(b->data_offset, -1); /* stride 2: not one run */
    ck_assert(contains(b->note, "strided view"));
    ck_assert(contains(b->note, "shares its storage with 'w'"));
    ck_assert(contains(a->note, "shares its storage with 't'"));
    ts_file_close(f);
}
END_TEST

/* Bytes of a pickle that must be refused, and words its message holds. */
typedef struct refusal {
    const char *what;
    void (*build)(pb *p);
    ts_status code;
    const char *words;
    int k0;                  /* the file has storage k0 */
} refusal;

static void evil_os_system(pb *p)
{
    global(p, "os", "system");
    str(p, "touch PWNED");
    op(p, 0x85);
    op(p, 'R');
}
static void evil_posix(pb *p) { global(p, "posix", "system"); }
static void evil_eval(pb *p) { global(p, "__builtin__", "eval"); }
static void evil_getattr(pb *p) { global(p, "builtins", "getattr"); }
static void evil_subprocess(pb *p) { global(p, "subprocess", "Popen"); }
/* Dotted names resolved through another module (issue 21, defect 4). */
static void evil_dotted(pb *p)
{
    op(p, 0x8c);
    op(p, 5);
    ops(p, "torch");
    op(p, 0x8c);
    op(p, 9);
    ops(p, "os.system");
    op(p, 0x93);
}
static void evil_load_from_bytes(pb *p) { global(p, "torch.storage", "_load_from_bytes"); }
static void evil_fx(pb *p) { global(p, "torch.fx.graph_module", "reduce_graph_module"); }
static void evil_timeit(pb *p) { global(p, "timeit", "timeit"); }
static void evil_stack_global(pb *p)
{
    op(p, 0x8c);
    op(p, 2);
    ops(p, "nt");
    op(p, 0x8c);
    op(p, 6);
    ops(p, "system");
    op(p, 0x93);
}
static void evil_inst(pb *p) { ops(p, "(ios\nsystem\n"); }
static void evil_reduce_const(pb *p)
{
    global(p, "torch", "float32");
    op(p, ')');
    op(p, 'R');
}
static void evil_newobj(pb *p)
{
    global(p, "collections", "OrderedDict");
    op(p, ')');
    op(p, 0x81);
}
static void evil_build_list(pb *p)
{
    op(p, ']');
    op(p, '}');
    op(p, 'b');
}
static void evil_persid_module(pb *p)
{
    op(p, '(');
    str(p, "module");
    op(p, 't');
    op(p, 'Q');
}
static void bad_opcode(pb *p) { op(p, 0xff); }
static void bad_memo(pb *p)
{
    op(p, 'j');
    put(p, "\xff\xff\xff\x7f", 4);
}
static void bad_marks(pb *p)
{
    for (int i = 0; i < 1001; i++)
        op(p, '(');
}
static void bad_stop_mark(pb *p)
{
    op(p, '(');
    op(p, 'N');
}
static void bad_underflow(pb *p)
{
    op(p, 'N');
    op(p, '(');
    op(p, 0x85);
}
static void bad_long_string(pb *p) { put(p, "X\xff\xff\xff\x7f", 5); }
static void bad_frame(pb *p) { put(p, "\x95\xff\xff\xff\xff\x00\x00\x00\x00", 9); }
/* A list that contains itself. */
static void bad_cycle(pb *p)
{
    OPS(p, "]q\x00h\x00");
    op(p, 'a');
}
/* 2^40 paths from 40 levels of [x, x]: refused by the leaf count. */
static void bad_laughs(pb *p)
{
    intv(p, 1);
    for (int i = 0; i < 40; i++)
        OPS(p, "q\x00h\x00\x86");
}
/* 1001 nested lists. */
static void bad_deep(pb *p)
{
    for (int i = 0; i < 1002; i++)
        op(p, ']');
    for (int i = 0; i < 1001; i++)
        op(p, 'a');
}
/* A 995-deep chain D, reached from the root directly (counted there) and
 * again below a 10-deep chain: 1006 deep on the second path. */
static void bad_deep_shared(pb *p)
{
    op(p, ']');
    for (int i = 0; i < 995; i++)
        op(p, ']');
    intv(p, 1);
    for (int i = 0; i < 995; i++)
        op(p, 'a');
    OPS(p, "q\x00" "a");
    for (int i = 0; i < 10; i++)
        op(p, ']');
    OPS(p, "h\x00");
    for (int i = 0; i < 10; i++)
        op(p, 'a');
    op(p, 'a');
}
static void bad_geometry(pb *p)
{
    op(p, '}');
    str(p, "w");
    tensor(p, "FloatStorage", "k0", 6, 1, 2, S23, T23);
    op(p, 's');
}
static void bad_negative_dim(pb *p)
{
    op(p, '}');
    str(p, "w");
    tensor(p, "FloatStorage", "k0", 6, 0, 2, (const int[]){2, -3}, T23);
    op(p, 's');
}
static void bad_missing_storage(pb *p)
{
    op(p, '}');
    str(p, "w");
    tensor(p, "FloatStorage", "k1", 6, 0, 2, S23, T23);
    op(p, 's');
}
static void bad_key_type(pb *p)
{
    op(p, '}');
    op(p, ']');
    str(p, "v");
    op(p, 's');
}
static void bad_numel(pb *p)
{
    op(p, '}');
    str(p, "w");
    tensor(p, "FloatStorage", "k0", 5, 0, 1, (const int[]){5}, (const int[]){1});
    op(p, 's');
}

static const refusal refusals[] = {
    {"os.system", evil_os_system, TS_ERR_UNSUPPORTED,
     "object pickle byte 27: refusing the file: GLOBAL os.system is dangerous (it would run a "
     "shell command under torch.load); nothing was executed", 0},
    {"posix.system", evil_posix, TS_ERR_UNSUPPORTED, "GLOBAL posix.system is dangerous", 0},
    {"__builtin__.eval", evil_eval, TS_ERR_UNSUPPORTED,
     "GLOBAL builtins.eval is dangerous (it would run Python code", 0},
    {"getattr", evil_getattr, TS_ERR_UNSUPPORTED, "GLOBAL builtins.getattr is dangerous", 0},
    {"subprocess", evil_subprocess, TS_ERR_UNSUPPORTED, "subprocess.Popen is dangerous", 0},
    {"dotted", evil_dotted, TS_ERR_UNSUPPORTED,
     "STACK_GLOBAL torch.os.system is dangerous (it would run a shell command", 0},
    {"_load_from_bytes", evil_load_from_bytes, TS_ERR_UNSUPPORTED,
     "GLOBAL torch.storage._load_from_bytes is dangerous (it would load a torch.save file "
     "from bytes, with weights_only=False", 0},
    {"fx", evil_fx, TS_ERR_UNSUPPORTED, "GLOBAL torch.fx.graph_module.reduce_graph_module is "
     "dangerous (it would run Python code generated from a graph", 0},
    {"timeit", evil_timeit, TS_ERR_UNSUPPORTED, "GLOBAL timeit.timeit is dangerous (it would "
     "run Python code", 0},
    {"STACK_GLOBAL", evil_stack_global, TS_ERR_UNSUPPORTED,
     "object pickle byte 39: refusing the file: STACK_GLOBAL nt.system is dangerous", 0},
    {"INST", evil_inst, TS_ERR_UNSUPPORTED, "INST os.system is dangerous (it would run a "
     "shell command", 0},
    {"REDUCE of a dtype", evil_reduce_const, TS_ERR_UNSUPPORTED,
     "REDUCE calls torch.float32, which is allowed only as a value", 0},
    {"NEWOBJ", evil_newobj, TS_ERR_UNSUPPORTED, "only TorchScript classes are allowed", 0},
    {"BUILD on a list", evil_build_list, TS_ERR_UNSUPPORTED, "BUILD sets the state of a list", 0},
    {"module persistent id", evil_persid_module, TS_ERR_UNSUPPORTED,
     "persistent id of kind 'module'", 0},
    {"bad opcode", bad_opcode, TS_ERR_FORMAT, "byte 27: invalid pickle opcode 0xff", 0},
    {"memo", bad_memo, TS_ERR_FORMAT, "LONG_BINGET of memo entry 2147483647, which was never "
     "set", 0},
    {"marks", bad_marks, TS_ERR_LIMIT, "more than 1000 MARKs open at once", 0},
    {"open mark", bad_stop_mark, TS_ERR_FORMAT, "STOP with 1 MARK still open", 0},
    {"underflow", bad_underflow, TS_ERR_FORMAT, "TUPLE1/2/3 needs 1 value on the stack above "
     "the last MARK, found 0", 0},
    {"long string", bad_long_string, TS_ERR_TRUNCATED, "BINUNICODE of 2147483647 bytes runs "
     "past the end of the pickle", 0},
    {"frame", bad_frame, TS_ERR_TRUNCATED, "FRAME of 4294967295 bytes runs past the end", 0},
    {"cycle", bad_cycle, TS_ERR_FORMAT, "a list contains itself", 0},
    {"laughs", bad_laughs, TS_ERR_LIMIT, "names more than", 0},
    {"deep", bad_deep, TS_ERR_LIMIT, "object pickle byte 2029: values nested more than 1000 "
     "deep", 0},
    {"deep shared", bad_deep_shared, TS_ERR_LIMIT, "object pickle byte 2040: values nested "
     "more than 1000 deep", 0},
    {"geometry", bad_geometry, TS_ERR_FORMAT, "tensor of shape (2,3), stride (3,1) and storage "
     "offset 1 needs 28 bytes of storage 'k0', which has 24", 1},
    {"negative dim", bad_negative_dim, TS_ERR_VALUE, "tensor size has a negative entry -3", 1},
    {"missing storage", bad_missing_storage, TS_ERR_FORMAT, "storage key 'k0' (key list, byte", 1},
    {"key type", bad_key_type, TS_ERR_FORMAT, "dict key is a list, which cannot name an entry", 0},
    {"numel", bad_numel, TS_ERR_FORMAT, "element count 6 at byte", 1},
};

START_TEST(test_refusal)
{
    const refusal *r = &refusals[_i];
    pb p = {.n = 0};
    ops(&p, "\x80\x02");
    r->build(&p);
    op(&p, '.');
    ts_error err;
    ts_status st = open_legacy(&p, &err, NULL, r->k0);
    ck_assert_msg(st == r->code, "%s: status %d: %s", r->what, st, err.message);
    ck_assert_msg(contains(err.message, r->words), "%s: %s", r->what, err.message);
}
END_TEST

/* The machine alone: values, memo sharing, protocol 4 opcodes. */
static ts__pk_role allow_od(void *ctx, const char *m, size_t ml, const char *n, size_t nl,
                            int *tag)
{
    (void)ctx;
    *tag = 7;
    if (ml == 11 && memcmp(m, "collections", 11) == 0 && nl == 11 &&
        memcmp(n, "OrderedDict", 11) == 0)
        return TS__PK_DICT_TYPE;
    return TS__PK_REFUSE;
}

START_TEST(test_machine)
{
    /* protocol 4: FRAME, MEMOIZE, SHORT_BINUNICODE, STACK_GLOBAL, LONG1,
     * EMPTY_SET + ADDITEMS, BINFLOAT, BINBYTES, and a memo read */
    pb p = {.n = 0};
    ops(&p, "\x80\x04\x95");
    put(&p, "\x00\x00\x00\x00\x00\x00\x00\x00", 8);
    size_t frame_at = p.n - 8;
    ops(&p, "\x8c\x0b" "collections\x94\x8c\x0bOrderedDict\x94\x93\x94)R\x94(");
    OPS(&p, "\x8c\x01" "a\x8a\x06\x00\x00\x00\x00\x00\x01");        /* 2^40 */
    OPS(&p, "\x8c\x01" "bG\x3f\xe0\x00\x00\x00\x00\x00\x00");        /* 0.5 */
    ops(&p, "\x8c\x01" "c\x8f\x94(K\x01K\x03\x90");                  /* {1, 3} */
    OPS(&p, "\x8c\x01" "dC\x02\x00\xff");                            /* b'\0\xff' */
    ops(&p, "\x8c\x01" "eh\x04");                                    /* the set again */
    OPS(&p, "\x8c\x01" "f\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x00\x01"); /* 2^64 */
    ops(&p, "u.");
    uint64_t fl = p.n - frame_at - 8;
    memcpy(p.b + frame_at, &fl, 8);
    ts__pk *pk;
    ck_assert_int_eq(ts__pk_new(&pk, NULL, NULL), TS_OK);
    ts__pk_options o;
    memset(&o, 0, sizeof o);
    o.classify = allow_od;
    o.where = "test";
    o.base = -1;
    ts__pk_value *v;
    size_t end;
    ts_error err;
    ck_assert_msg(ts__pk_load(pk, p.b, p.n, 0, &o, &v, &end, &err) == TS_OK, "%s", err.message);
    ck_assert_uint_eq(end, p.n);
    ck_assert_int_eq(v->kind, TS__PK_DICT);
    ck_assert_ptr_nonnull(v->func);
    ck_assert_int_eq(v->func->tag, 7);
    ck_assert_uint_eq(v->u.seq.n, 12);
    ck_assert_int_eq(v->u.seq.v[1]->kind, TS__PK_INT);
    ck_assert_int_eq(v->u.seq.v[1]->u.i, (int64_t)1 << 40);
    ck_assert(v->u.seq.v[3]->u.f == 0.5);
    ck_assert_int_eq(v->u.seq.v[5]->kind, TS__PK_SET);
    ck_assert_uint_eq(v->u.seq.v[5]->u.seq.n, 2);
    ck_assert_ptr_eq(v->u.seq.v[9], v->u.seq.v[5]); /* memo: the same node */
    ck_assert_int_eq(v->u.seq.v[7]->kind, TS__PK_BYTES);
    ck_assert_int_eq(v->u.seq.v[11]->kind, TS__PK_BIGINT);
    ck_assert_uint_eq(v->u.seq.v[11]->u.s.n, 9);
    /* a second pickle in the same machine: its own memo */
    static const unsigned char two[] = "\x80\x02h\x00.";
    ck_assert_int_eq(ts__pk_load(pk, two, 5, 0, &o, &v, &end, &err), TS_ERR_FORMAT);
    ck_assert_str_eq(err.message, "test byte 2: BINGET of memo entry 0, which was never set");
    ck_assert_int_eq(err.offset, -1);
    /* NULL error report */
    ck_assert_int_eq(ts__pk_load(pk, two, 5, 0, &o, &v, &end, NULL), TS_ERR_FORMAT);
    ck_assert_int_eq(ts__pk_load(pk, two, 3, 0, &o, &v, &end, NULL), TS_ERR_TRUNCATED);
    ts__pk_free(pk);
    ck_assert_str_eq(ts__global_danger("os", 2, "system", 6), "run a shell command");
    ck_assert_str_eq(ts__global_danger("http.client", 11, "HTTPConnection", 14),
                     "open network connections");
    ck_assert_ptr_null(ts__global_danger("torch", 5, "FloatStorage", 12));
    ck_assert_ptr_null(ts__global_danger("osx", 3, "version", 7));
}
END_TEST

/* Names: tuple, int, bool, None and float keys; an empty container is a
 * value; a memoised tensor is reported at both paths. */
START_TEST(test_names)
{
    pb p = {.n = 0};
    ops(&p, "\x80\x02}(");
    op(&p, 'K');
    op(&p, 3);
    tensor(&p, "FloatStorage", "k0", 6, 0, 2, S23, T23);
    ops(&p, "q\x07");
    ops(&p, "\x88h\x07");                              /* True: the same tensor */
    ops(&p, "NK\x01");                                 /* None: 1 */
    ops(&p, "G\x3f\xb9\x99\x99\x99\x99\x99\x9a]");     /* 0.1: [] */
    OPS(&p, "G\x41\x2e\x84\x80\x00\x00\x00\x00)");     /* 1e6: () */
    ops(&p, "G\x3e\xe4\xf8\xb5\x88\xe3\x68\xf1}");     /* 1e-05: {} */
    OPS(&p, "K\x01X\x01\x00\x00\x00" "a\x86X\x01\x00\x00\x00x"); /* (1,'a'): 'x' */
    ops(&p, "u.");
    ts_file *f;
    ts_error err;
    ck_assert_msg(open_legacy(&p, &err, &f, 1) == TS_OK, "%s", err.message);
    ck_assert_uint_eq(ts_file_count(f), 2);
    ck_assert_str_eq(ts_file_array(f, 0)->name, "3");
    ck_assert_str_eq(ts_file_array(f, 1)->name, "True");
    ck_assert_str_eq(ts_file_array(f, 1)->note, "the same tensor as '3'");
    static const char *const want[][2] = {{"None", "1"},     {"0.1", "[]"},
                                          {"1000000.0", "{\"tuple\":[]}"},
                                          {"1e-05", "{}"}, {"(1,a)", "\"x\""}};
    ck_assert_uint_eq(ts_file_metadata_count(f), 5);
    for (size_t i = 0; i < 5; i++) {
        const char *k, *v;
        ck_assert(ts_file_metadata(f, i, &k, &v));
        ck_assert_str_eq(k, want[i][0]);
        ck_assert_str_eq(v, want[i][1]);
    }
    ts_file_close(f);
}
END_TEST

/* 20000 paths to one tensor: notes name four others and count the rest,
 * in time independent of how many there are. */
START_TEST(test_many_views)
{
    static pb p;
    p.n = 0;
    ops(&p, "\x80\x02]");
    tensor(&p, "FloatStorage", "k0", 6, 0, 2, S23, T23);
    ops(&p, "q\x01" "a(");
    for (int i = 1; i < 20000; i++)
        ops(&p, "h\x01");
    ops(&p, "e.");
    ts_file *f;
    ts_error err;
    ck_assert_msg(open_legacy(&p, &err, &f, 1) == TS_OK, "%s", err.message);
    ck_assert_uint_eq(ts_file_count(f), 20000);
    ck_assert_str_eq(ts_file_array(f, 0)->note,
                     "the same tensor as '1', '2', '3', '4' and 19995 more");
    ck_assert_str_eq(ts_file_array(f, 19999)->name, "19999");
    ck_assert_str_eq(ts_file_array(f, 19999)->note,
                     "the same tensor as '0', '1', '2', '3' and 19995 more");
    ts_file_close(f);
}
END_TEST

/* ---- damaged files ------------------------------------------------------- */

static const char *const damage_files[] = {
    "tests/fixtures/pytorch/legacy_p4.pt",
    "tests/fixtures/pytorch/csr.pt",
    "tests/fixtures/pytorch/per_channel.pt",
    "tests/fixtures/pytorch/deflated.pt",
    "corpus:pytorch/cnn_legacy.pt",
    "corpus:pytorch/cnn_zip.pt",
    "corpus:pytorch/special.pt",
    "corpus:pytorch/scripted.pt",
};

START_TEST(test_every_prefix_fails)
{
    char path[512];
    size_t len;
    unsigned char *full = tu_read_named(damage_files[_i], path, sizeof path, &len);
    if (!full)
        return;
    tu_check_prefixes(path, full, len, TS_FORMAT_PYTORCH, SIZE_MAX);
    free(full);
}
END_TEST

START_TEST(test_byte_changes)
{
    char path[512];
    size_t len;
    unsigned char *full = tu_read_named(damage_files[_i], path, sizeof path, &len);
    if (!full)
        return;
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.want_metadata = 1;
    tu_check_byte_changes(full, len, 2048, &o, NULL, 0);
    o.format = TS_FORMAT_PYTORCH;
    tu_check_byte_changes(full, len, 2048, &o, (const unsigned char *)"\x00\xff", 2);
    free(full);
}
END_TEST

Suite *pytorch_suite(void)
{
    Suite *s = suite_create("pytorch");
    TCase *tc = tcase_create("corpus");
    tcase_add_loop_test(tc, test_corpus, 0, (int)(sizeof corpus_files / sizeof *corpus_files));
    tcase_add_test(tc, test_detect);
    suite_add_tcase(s, tc);

    tc = tcase_create("fixtures");
    tcase_add_loop_test(tc, test_fixture, 0, (int)(sizeof fixtures / sizeof *fixtures));
    tcase_add_test(tc, test_fixture_legacy);
    tcase_add_test(tc, test_forced);
    tcase_add_loop_test(tc, test_fixture_error, 0,
                        (int)(sizeof fixture_errors / sizeof *fixture_errors));
    suite_add_tcase(s, tc);

    tc = tcase_create("pickles");
    tcase_add_test(tc, test_legacy_built);
    tcase_add_loop_test(tc, test_refusal, 0, (int)(sizeof refusals / sizeof *refusals));
    tcase_add_test(tc, test_machine);
    tcase_add_test(tc, test_names);
    tcase_add_test(tc, test_many_views);
    suite_add_tcase(s, tc);

    tc = tcase_create("damaged");
    tcase_add_loop_test(tc, test_every_prefix_fails, 0,
                        (int)(sizeof damage_files / sizeof *damage_files));
    tcase_add_loop_test(tc, test_byte_changes, 0,
                        (int)(sizeof damage_files / sizeof *damage_files));
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}
