/* check_ggml.c - llama.cpp's files from before GGUF (tests/fixtures/gen_ggml.py,
 * written from the layout llama.cpp's loader read): every version's header,
 * vocabulary and padding, tensor names, NumPy-order shapes and data offsets
 * (checked against the bytes the generator wrote there), the hyperparameters
 * and vocabulary as metadata, the block layouts of older versions reported
 * and refused for values, damaged files, every truncation and byte change.
 * ggjt v3 values against gguf_dequant_ref.py: check_values.c. */
#define TS_EXPERIMENTAL_API
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

typedef struct ggml_tensor {
    const char *name, *shape, *dtype_name;
    int64_t nbytes, data_offset;
    double first;              /* the first value (NAN: not decoded) */
} ggml_tensor;

typedef struct ggml_case {
    const char *file, *version;
    size_t header_end;         /* where the tensors start */
    size_t count;
    ggml_tensor t[3];          /* the first tensors */
} ggml_case;

static const ggml_case cases[] = {
    /* header 8 + hparams 28 + vocab 5 * 8 + 22 bytes of tokens = 98; the
     * first tensor's record (12 + 8 + 21) ends at 139, padded to 160 */
    {"ggml/ggjt_v3.bin", "ggjt v3", 98, 12, {
        {"tok_embeddings.weight", "(5,32)", "float16", 320, 160, -3.0},
        {"norm.weight", "(32,)", "float32", 128, 512, -1.0},
        {"layers.0.attention.wq.weight", "(2,32)", "q4_0", 36, 704, 0},
    }},
    {"ggml/ggjt_v2.bin", "ggjt v2", 98, 4, {
        {"tok_embeddings.weight", "(5,32)", "float32", 640, 160, -2.0},
        {"layers.0.attention.wq.weight", "(1,32)", "q4_0", 20, 864, NAN},
        {"layers.0.attention.wo.weight", "(32,)", "q5_1", 24, 928, 0},
    }},
    {"ggml/ggjt_v1.bin", "ggjt v1", 98, 2, {
        {"tok_embeddings.weight", "(5,32)", "float16", 320, 160, -1.0},
        {"layers.0.attention.wq.weight", "(2,32)", "q4_2", 40, 544, NAN},
    }},
    /* no padding: the data follows the name */
    {"ggml/ggmf.bin", "ggmf v1", 98, 2, {
        {"tok_embeddings.weight", "(5,32)", "float32", 640, 139, 0.0},
        {"norm.weight", "(32,)", "float16", 64, 806, -5.0},
    }},
    /* no version, no scores: the vocabulary is 20 bytes shorter */
    {"ggml/ggml.bin", "ggml", 74, 2, {
        {"tok_embeddings.weight", "(5,32)", "float16", 320, 115, -4.0},
        {"output.weight", "(5,32)", "float32", 640, 468, -6.0},
    }},
    {"ggml/lora.bin", "ggla v1", 16, 2, {
        {"layers.0.attention.wq.weight.loraA", "(4,32)", "float32", 512, 96, -1.0},
        {"layers.0.attention.wq.weight.loraB", "(32,4)", "float32", 512, 672, -2.0},
    }},
};

START_TEST(test_file)
{
    const ggml_case *c = &cases[_i];
    char name[256], path[256];
    size_t len;
    unsigned char *bytes = tu_read_named(tu_fixture(name, sizeof name, c->file), path,
                                         sizeof path, &len);
    ts_file *f;
    ts_error err;
    ck_assert_msg(ts_file_open(path, NULL, &f, &err) == TS_OK, "%s: %s", path, err.message);
    ck_assert_int_eq(ts_file_format(f), TS_FORMAT_GGML);
    ck_assert_str_eq(ts_file_version(f), c->version);
    ck_assert_uint_eq(ts_file_count(f), c->count);
    for (size_t i = 0; i < 3 && c->t[i].name; i++) {
        const ggml_tensor *t = &c->t[i];
        const ts_array *a = ts_file_array(f, i);
        ck_assert_str_eq(a->name, t->name);
        tu_assert_shape(&a->shape, t->shape);
        ck_assert_str_eq(a->dtype_name, t->dtype_name);
        ck_assert_int_eq(a->nbytes, t->nbytes);
        ck_assert_int_eq(a->data_offset, t->data_offset);
        /* the bytes the generator wrote there: the first element */
        if (a->dtype == TS_DTYPE_FLOAT32) {
            float v;
            memcpy(&v, bytes + a->data_offset, 4);
            ck_assert(v == (float)t->first);
        }
        double v;
        ts_status st = ts_array_read(f, a, 0, 1, TS_DTYPE_FLOAT64, &v, &err);
        if (t->first != t->first) {
            /* an older block layout: named, refused */
            ck_assert_int_eq(st, TS_ERR_DTYPE);
            ck_assert_ptr_nonnull(strstr(err.message, "cannot decode values of dtype"));
            ck_assert_ptr_nonnull(a->note);
        } else {
            ck_assert_int_eq(st, TS_OK);
            if (a->dtype != TS_DTYPE_QUANTIZED)
                ck_assert(v == t->first);
        }
    }
    /* every truncation fails but at the end of the vocabulary (a file of
     * the vocabulary alone, as llama.cpp's models/ggml-vocab.bin) or of a
     * tensor's data */
    int64_t ends[16];
    size_t nends = ts_file_count(f);
    for (size_t i = 0; i < nends; i++)
        ends[i] = ts_file_array(f, i)->data_offset + ts_file_array(f, i)->nbytes;
    ts_file_close(f);
    for (size_t n = 0; n < len; n++) {
        int boundary = n == c->header_end;
        for (size_t i = 0; i < nends; i++)
            boundary |= (int64_t)n == ends[i];
        ts_open_options o = TS_OPEN_OPTIONS_INIT;
        o.format = TS_FORMAT_GGML;
        ts_status st = tu_open_exact(bytes, n, &o, NULL);
        ck_assert_msg((st == TS_OK) == boundary, "%s: prefix of %zu bytes: status %d", path, n,
                      (int)st);
    }
    tu_check_byte_changes(bytes, len, len < 400 ? len : 400, NULL, NULL, 0);
    free(bytes);
}
END_TEST

/* The hyperparameters and the vocabulary, as metadata; the stored order. */
START_TEST(test_metadata)
{
    char path[256];
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.want_metadata = 1;
    o.gguf_stored_order = 1;
    ts_file *f;
    ts_error err;
    ck_assert_int_eq(ts_file_open(tu_fixture(path, sizeof path, "ggml/ggjt_v3.bin"), &o, &f,
                                  &err), TS_OK);
    tu_assert_shape(&ts_file_array(f, 0)->shape, "(32,5)");
    static const char *const want[][2] = {
        {"n_vocab", "5"}, {"n_embd", "32"}, {"n_mult", "256"}, {"n_head", "4"},
        {"n_layer", "1"}, {"n_rot", "8"}, {"ftype", "2"},
        {"vocab.tokens", "[\"<unk>\",\"<s>\",\"</s>\",\"\xe2\x96\x81the\",\"\\\"q\\\"\\n\"]"},
        {"vocab.scores", "[0.0,0.0,0.0,-1.5,-2.25]"},
    };
    ck_assert_uint_eq(ts_file_metadata_count(f), 9);
    for (size_t i = 0; i < 9; i++) {
        const char *k, *v;
        ck_assert(ts_file_metadata(f, i, &k, &v));
        ck_assert_str_eq(k, want[i][0]);
        ck_assert_str_eq(v, want[i][1]);
    }
    ts_file_close(f);
    /* unversioned files have no scores */
    ck_assert_int_eq(ts_file_open(tu_fixture(path, sizeof path, "ggml/ggml.bin"), &o, &f, &err),
                     TS_OK);
    ck_assert_uint_eq(ts_file_metadata_count(f), 8);
    ts_file_close(f);
    ck_assert_int_eq(ts_file_open(tu_fixture(path, sizeof path, "ggml/lora.bin"), &o, &f, &err),
                     TS_OK);
    const char *k, *v;
    ck_assert(ts_file_metadata(f, 1, &k, &v));
    ck_assert_str_eq(k, "alpha");
    ck_assert_str_eq(v, "8");
    ts_file_close(f);
}
END_TEST

typedef struct bad_case {
    const char *file;
    ts_status code;
    int64_t offset;
    const char *message;
} bad_case;

static const bad_case bad_cases[] = {
    {"ggml/bad_version.bin", TS_ERR_UNSUPPORTED, 4,
     "'ggjt' file version 4 at byte 4 is not one llama.cpp wrote (ggmf 1, ggjt 1 to 3, "
     "ggla 1)"},
    {"ggml/bad_type.bin", TS_ERR_FORMAT, 106,
     "tensor 0 'w': type 4 is not a ggml type of ggjt v3 files (Q4_2)"},
    {"ggml/bad_dims.bin", TS_ERR_FORMAT, 98,
     "tensor 0 at byte 98 has 5 dims: ggml tensors have 1 to 4"},
    {"ggml/bad_block.bin", TS_ERR_FORMAT, 110,
     "tensor 0 'w': ne[0] 20 is not a multiple of the Q4_0 block size 32"},
    {"ggml/bad_dup.bin", TS_ERR_FORMAT, 272,
     "duplicate tensor name 'norm.weight' at bytes 114 and 272"},
    {"ggml/bad_truncated.bin", TS_ERR_TRUNCATED, 128,
     "tensor 0 'norm.weight': 128 data bytes at byte 128 run past the end of the file (251 "
     "bytes, 5 missing)"},
    {"ggml/bad_vocab.bin", TS_ERR_TRUNCATED, 8,
     "n_vocab 1048576 (at byte 8) needs at least 8388608 bytes of vocabulary, but only 220 "
     "bytes are left in the file"},
};

START_TEST(test_bad)
{
    const bad_case *c = &bad_cases[_i];
    char path[256];
    tu_expect_open_error(tu_fixture(path, sizeof path, c->file), NULL, c->code, c->offset,
                         c->message);
}
END_TEST

Suite *ggml_suite(void)
{
    Suite *s = suite_create("ggml");
    TCase *t = tcase_create("files");
    tcase_set_timeout(t, 120);
    tcase_add_loop_test(t, test_file, 0, (int)(sizeof cases / sizeof *cases));
    tcase_add_test(t, test_metadata);
    suite_add_tcase(s, t);
    TCase *e = tcase_create("errors");
    tcase_add_loop_test(e, test_bad, 0, (int)(sizeof bad_cases / sizeof *bad_cases));
    suite_add_tcase(s, e);
    return s;
}
