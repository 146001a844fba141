/*
 * check_qdiff.c - across a conversion to GGUF: the name rule table
 * (ts_tensor_name_map, both ways), the heads of llama.cpp's Q/K row
 * reordering read from a GGUF file (ts_gguf_qk_heads), and the error
 * metrics of ts_array_metrics on the tiny llama of gen_qdiff.py (its F16
 * conversion equal to the checkpoint once the rows are put back, the
 * Q8_0 one as NumPy measured it) and on arrays of known errors.
 */
#define TS_EXPERIMENTAL_API
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

static const struct {
    ts_name_map dir;
    const char *name, *mapped;
} names[] = {
    {TS_NAME_MAP_TO_GGUF, "model.layers.3.self_attn.q_proj.weight", "blk.3.attn_q.weight"},
    {TS_NAME_MAP_TO_GGUF, "model.layers.31.mlp.down_proj.weight", "blk.31.ffn_down.weight"},
    {TS_NAME_MAP_TO_GGUF, "model.layers.0.self_attn.k_proj.bias", "blk.0.attn_k.bias"},
    {TS_NAME_MAP_TO_GGUF, "model.embed_tokens.weight", "token_embd.weight"},
    {TS_NAME_MAP_TO_GGUF, "lm_head.weight", "output.weight"},
    {TS_NAME_MAP_TO_GGUF, "model.norm.weight", "output_norm.weight"},
    {TS_NAME_MAP_TO_GGUF, "model.layers.7.post_attention_layernorm.weight",
     "blk.7.ffn_norm.weight"},
    {TS_NAME_MAP_TO_GGUF, "layers.2.attention.wq.weight", "blk.2.attn_q.weight"},
    {TS_NAME_MAP_TO_GGUF, "layers.2.feed_forward.w1.weight", "blk.2.ffn_gate.weight"},
    {TS_NAME_MAP_TO_GGUF, "transformer.h.5.attn.c_attn.weight", "blk.5.attn_qkv.weight"},
    {TS_NAME_MAP_TO_GGUF, "encoder.layer.1.output.LayerNorm.weight",
     "blk.1.layer_output_norm.weight"},
    {TS_NAME_MAP_TO_GGUF, "embeddings.LayerNorm.bias", "token_embd_norm.bias"},
    /* no rule: a layer number must be digits, the suffix weight or bias */
    {TS_NAME_MAP_TO_GGUF, "model.layers.x.mlp.up_proj.weight", ""},
    {TS_NAME_MAP_TO_GGUF, "model.layers.1.mlp.up_proj.scales", ""},
    {TS_NAME_MAP_TO_GGUF, "model.layers.1234567890.mlp.up_proj.weight", ""},
    {TS_NAME_MAP_TO_GGUF, "blk.0.attn_q.weight", ""},
    /* back: the first row of a GGUF name, Hugging Face's llama */
    {TS_NAME_MAP_FROM_GGUF, "blk.3.attn_q.weight", "model.layers.3.self_attn.q_proj.weight"},
    {TS_NAME_MAP_FROM_GGUF, "token_embd.weight", "model.embed_tokens.weight"},
    {TS_NAME_MAP_FROM_GGUF, "blk.12.ffn_up.weight", "model.layers.12.mlp.up_proj.weight"},
    {TS_NAME_MAP_FROM_GGUF, "output.weight", "lm_head.weight"},
    {TS_NAME_MAP_FROM_GGUF, "model.embed_tokens.weight", ""},
};

START_TEST(test_names)
{
    char buf[128];
    size_t n = ts_tensor_name_map(names[_i].dir, names[_i].name, buf, sizeof buf);
    ck_assert_str_eq(buf, names[_i].mapped);
    ck_assert_uint_eq(n, strlen(names[_i].mapped));
}
END_TEST

START_TEST(test_name_buffer)
{
    char buf[8];
    /* snprintf-style: the full length, the text cut */
    ck_assert_uint_eq(ts_tensor_name_map(TS_NAME_MAP_TO_GGUF, "model.norm.weight", buf, sizeof buf),
                      18);
    ck_assert_str_eq(buf, "output_");
}
END_TEST

static ts_file *open_meta(const char *path)
{
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.want_metadata = 1;
    ts_file *f = NULL;
    ts_error err;
    ck_assert_msg(ts_file_open(path, &o, &f, &err) == TS_OK, "%s: %s", path, err.message);
    return f;
}

START_TEST(test_heads)
{
    ts_file *f = open_meta("tests/fixtures/qdiff/q8_0.gguf");
    ck_assert_int_eq(ts_gguf_qk_heads(f, "blk.0.attn_q.weight"), 4);
    ck_assert_int_eq(ts_gguf_qk_heads(f, "blk.1.attn_k.weight"), 2);
    ck_assert_int_eq(ts_gguf_qk_heads(f, "blk.1.attn_v.weight"), 0);
    ck_assert_int_eq(ts_gguf_qk_heads(f, "token_embd.weight"), 0);
    ts_file_close(f);
    /* without metadata, or not llama */
    ts_file *g = NULL;
    ck_assert_int_eq(ts_file_open("tests/fixtures/qdiff/q8_0.gguf", NULL, &g, NULL), TS_OK);
    ck_assert_int_eq(ts_gguf_qk_heads(g, "blk.0.attn_q.weight"), 0);
    ts_file_close(g);
    g = open_meta("tests/fixtures/gguf/good_v3.gguf"); /* llama without head counts */
    ck_assert_int_eq(ts_gguf_qk_heads(g, "blk.0.attn_q.weight"), 0);
    ts_file_close(g);
}
END_TEST

/* The named tensor of a file. */
static const ts_array *find(const ts_file *f, const char *name)
{
    for (size_t i = 0; i < ts_file_count(f); i++)
        if (strcmp(ts_file_array(f, i)->name, name) == 0)
            return ts_file_array(f, i);
    ck_abort_msg("no tensor %s", name);
    return NULL;
}

START_TEST(test_metrics)
{
    ts_file *hf = open_meta("tests/fixtures/qdiff/hf/model.safetensors");
    ts_file *f16 = open_meta("tests/fixtures/qdiff/f16.gguf");
    ts_file *q8 = open_meta("tests/fixtures/qdiff/q8_0.gguf");
    const ts_array *a = find(hf, "model.layers.0.self_attn.k_proj.weight");
    ts_metrics_options o = TS_METRICS_OPTIONS_INIT;
    ts_metrics m;
    ts_error err;
    /* F16: equal once the rows are in the converter's order */
    o.qk_heads = 2;
    ck_assert_int_eq(ts_array_metrics(hf, a, f16, find(f16, "blk.0.attn_k.weight"), &o, &m,
                                      &err), TS_OK);
    ck_assert_int_eq(m.count, 32 * 64);
    ck_assert(m.max_abs == 0 && m.rmse == 0 && m.nmse == 0 && m.cosine > 0.9999999999);
    o.qk_heads = 0; /* without: far apart */
    ck_assert_int_eq(ts_array_metrics(hf, a, f16, find(f16, "blk.0.attn_k.weight"), &o, &m,
                                      &err), TS_OK);
    ck_assert(m.nmse > 0.5);
    /* Q8_0: NumPy's float64 figures (expected.json), 2 threads or 1 */
    for (int t = 1; t <= 2; t++) {
        o.qk_heads = 2;
        o.nthreads = t;
        ck_assert_int_eq(ts_array_metrics(hf, a, q8, find(q8, "blk.0.attn_k.weight"), &o, &m,
                                          &err), TS_OK);
        ck_assert_msg(fabs(m.max_abs - 0.0164642333984375) < 1e-15, "%.17g", m.max_abs);
        ck_assert_msg(fabs(m.rmse - 0.005584651753252052) < 1e-14, "%.17g", m.rmse);
        ck_assert_msg(fabs(m.nmse - 3.1226071649331374e-05) < 1e-17, "%.17g", m.nmse);
        ck_assert_msg(fabs(m.cosine - 0.9999843941424555) < 1e-14, "%.17g", m.cosine);
        ck_assert_int_eq(m.nan, 0);
    }
    /* rows that heads do not divide */
    o.qk_heads = 3;
    ck_assert_int_eq(ts_array_metrics(hf, a, q8, find(q8, "blk.0.attn_k.weight"), &o, &m, &err),
                     TS_ERR_SIZE);
    ck_assert_str_eq(err.message, "shape (32,64) cannot hold 3 heads of row pairs (the rows "
                                  "must be a multiple of 2 x heads)");
    /* shapes that differ */
    ck_assert_int_eq(ts_array_metrics(hf, a, q8, find(q8, "blk.0.attn_q.weight"), NULL, &m,
                                      &err), TS_ERR_SIZE);
    ck_assert_str_eq(err.message, "shapes (32,64) and (64,64) differ");
    ts_file_close(hf);
    ts_file_close(f16);
    ts_file_close(q8);
}
END_TEST

/* An array against itself, with NaN and infinities (f4.npy). */
START_TEST(test_metrics_exact)
{
    ts_file *f = NULL;
    ck_assert_int_eq(ts_file_open("tests/fixtures/values/f4.npy", NULL, &f, NULL), TS_OK);
    const ts_array *a = ts_file_array(f, 0);
    ts_metrics m;
    ck_assert_int_eq(ts_array_metrics(f, a, f, a, NULL, &m, NULL), TS_OK);
    /* equal infinities differ by 0; the NaN pair is left out */
    ck_assert(m.max_abs == 0 && m.rmse == 0 && m.nmse == 0);
    ck_assert_int_eq(m.count, a->size);
    ck_assert_int_eq(m.nan, 1);
    ts_file_close(f);
}
END_TEST

/* float32 read where it lies at an odd address (safetensors data need not
 * be aligned): 11 elements, the last 3 past the vector loop (UBSan caught
 * a misaligned float load there: fuzz-crashes/fuzz_file_coreml). */
START_TEST(test_metrics_unaligned)
{
    char hdr[160];
    int n = snprintf(hdr, sizeof hdr,
                     "{\"a\":{\"dtype\":\"F32\",\"shape\":[11],\"data_offsets\":[0,44]},"
                     "\"b\":{\"dtype\":\"F32\",\"shape\":[11],\"data_offsets\":[44,88]}}");
    if (n % 2 == 0)
        hdr[n++] = ' '; /* an odd header: the data starts at an odd byte */
    unsigned char img[256];
    uint64_t len = (uint64_t)n;
    memcpy(img, &len, 8);
    memcpy(img + 8, hdr, (size_t)n);
    for (int i = 0; i < 11; i++) {
        float a = (float)(i + 1), b = a + 0.5f;
        memcpy(img + 8 + n + 4 * i, &a, 4);
        memcpy(img + 8 + n + 44 + 4 * i, &b, 4);
    }
    ts_open_options o = TS_OPEN_OPTIONS_INIT;
    o.path = "odd.safetensors";
    ts_file *f = NULL;
    ck_assert_int_eq(ts_file_open_memory(img, (size_t)(8 + n + 88), &o, &f, NULL), TS_OK);
    ts_metrics m;
    ck_assert_int_eq(ts_array_metrics(f, find(f, "a"), f, find(f, "b"), NULL, &m, NULL), TS_OK);
    ck_assert_int_eq(m.count, 11);
    ck_assert(m.max_abs == 0.5 && m.rmse == 0.5 && m.sq_err == 11 * 0.25);
    ts_file_close(f);
}
END_TEST

Suite *qdiff_suite(void)
{
    Suite *s = suite_create("qdiff");
    TCase *tc = tcase_create("names");
    tcase_add_loop_test(tc, test_names, 0, (int)(sizeof names / sizeof *names));
    tcase_add_test(tc, test_name_buffer);
    tcase_add_test(tc, test_heads);
    suite_add_tcase(s, tc);
    tc = tcase_create("metrics");
    tcase_add_test(tc, test_metrics);
    tcase_add_test(tc, test_metrics_exact);
    tcase_add_test(tc, test_metrics_unaligned);
    suite_add_tcase(s, tc);
    return s;
}
