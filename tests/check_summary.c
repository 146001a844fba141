/*
 * check_summary.c - ts_tensor_role (parameters, buffers, optimizer state by
 * name and dtype) and ts_summary (sums per role and dtype, the largest
 * tensors, layer groups), on safetensors and .npy images built here and on
 * fixtures with optimizer state and BatchNorm buffers.
 */
#define TS_EXPERIMENTAL_API
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* ---- roles ------------------------------------------------------------------- */

static const struct {
    const char *name;
    ts_dtype dtype;
    ts_role role;
} role_cases[] = {
    {"model.conv1.weight", TS_DTYPE_FLOAT32, TS_ROLE_PARAMETER},
    {"", TS_DTYPE_FLOAT32, TS_ROLE_PARAMETER},
    {"rotary_emb.inv_freq", TS_DTYPE_FLOAT32, TS_ROLE_PARAMETER},
    {"blk.0.attn_q.weight", TS_DTYPE_QUANTIZED, TS_ROLE_PARAMETER},
    {"w8", TS_DTYPE_FLOAT8_E4M3FN, TS_ROLE_PARAMETER},
    {"c", TS_DTYPE_COMPLEX64, TS_ROLE_PARAMETER},
    {"none", TS_DTYPE_UNKNOWN, TS_ROLE_PARAMETER},
    {"bn1.running_meanx", TS_DTYPE_FLOAT32, TS_ROLE_PARAMETER},
    {"model.exp_avg_pool.weight", TS_DTYPE_FLOAT32, TS_ROLE_PARAMETER},
    {"state.x.step", TS_DTYPE_FLOAT32, TS_ROLE_PARAMETER},
    {"states.0.w", TS_DTYPE_FLOAT32, TS_ROLE_PARAMETER},
    /* buffers */
    {"layer1.0.bn1.running_mean", TS_DTYPE_FLOAT32, TS_ROLE_BUFFER},
    {"layer1.0.bn1.running_var", TS_DTYPE_FLOAT32, TS_ROLE_BUFFER},
    {"layer1.0.bn1.num_batches_tracked", TS_DTYPE_INT64, TS_ROLE_BUFFER},
    {"bn_running_var", TS_DTYPE_FLOAT32, TS_ROLE_BUFFER},
    {"aux:bn0_moving_mean", TS_DTYPE_FLOAT32, TS_ROLE_BUFFER},
    {"aux:anything", TS_DTYPE_FLOAT32, TS_ROLE_BUFFER},
    {"model_weights/bn/bn/moving_variance:0", TS_DTYPE_FLOAT32, TS_ROLE_BUFFER},
    {"bert.embeddings.position_ids", TS_DTYPE_INT64, TS_ROLE_BUFFER},
    {"h.0.attn.bias", TS_DTYPE_BOOL, TS_ROLE_BUFFER},
    {"layers.0.qweight", TS_DTYPE_INT32, TS_ROLE_BUFFER},
    {"step", TS_DTYPE_INT64, TS_ROLE_BUFFER},
    {"text", TS_DTYPE_UNICODE, TS_ROLE_BUFFER},
    {"q4", TS_DTYPE_INT4, TS_ROLE_BUFFER},
    /* optimizer state */
    {"optimizer.state.0.exp_avg", TS_DTYPE_FLOAT32, TS_ROLE_OPTIMIZER_STATE},
    {"optimizer.state.0.step", TS_DTYPE_FLOAT32, TS_ROLE_OPTIMIZER_STATE},
    {"optimizer_state_dict.state.3.momentum_buffer", TS_DTYPE_FLOAT32, TS_ROLE_OPTIMIZER_STATE},
    {"optimizer_states.0.state.1.exp_avg_sq", TS_DTYPE_FLOAT32, TS_ROLE_OPTIMIZER_STATE},
    {"last_optimizer_state.state.7.exp_avg", TS_DTYPE_FLOAT16, TS_ROLE_OPTIMIZER_STATE},
    {"optimizer_weights/Adam/dense/kernel/m:0", TS_DTYPE_FLOAT32, TS_ROLE_OPTIMIZER_STATE},
    {"state.0.momentum_buffer", TS_DTYPE_FLOAT32, TS_ROLE_OPTIMIZER_STATE},
    {"state.12.step", TS_DTYPE_FLOAT32, TS_ROLE_OPTIMIZER_STATE},
    {"state/3/sum", TS_DTYPE_FLOAT32, TS_ROLE_OPTIMIZER_STATE},
    {"opt.state.0.exp_avg", TS_DTYPE_FLOAT32, TS_ROLE_OPTIMIZER_STATE},
    {"w.max_exp_avg_sq", TS_DTYPE_FLOAT32, TS_ROLE_OPTIMIZER_STATE},
    {"w.square_avg", TS_DTYPE_FLOAT32, TS_ROLE_OPTIMIZER_STATE},
    {"w.acc_delta", TS_DTYPE_FLOAT32, TS_ROLE_OPTIMIZER_STATE},
    {"optimizer.state.0.num_batches_tracked", TS_DTYPE_INT64, TS_ROLE_OPTIMIZER_STATE},
};

START_TEST(test_roles)
{
    ck_assert_msg(ts_tensor_role(role_cases[_i].name, role_cases[_i].dtype) ==
                      role_cases[_i].role,
                  "'%s' (%s): %s, expected %s", role_cases[_i].name,
                  ts_dtype_name(role_cases[_i].dtype),
                  ts_role_name(ts_tensor_role(role_cases[_i].name, role_cases[_i].dtype)),
                  ts_role_name(role_cases[_i].role));
}
END_TEST

START_TEST(test_role_names)
{
    ck_assert_str_eq(ts_role_name(TS_ROLE_PARAMETER), "parameter");
    ck_assert_str_eq(ts_role_name(TS_ROLE_BUFFER), "buffer");
    ck_assert_str_eq(ts_role_name(TS_ROLE_OPTIMIZER_STATE), "optimizer_state");
    ck_assert_int_eq(TS_ROLE_COUNT, 3);
}
END_TEST

/* ---- images ---------------------------------------------------------------- */

/* A safetensors image of tensors "NAME DTYPE d0,d1,..." (dims may be
 * empty), data zeros. */
typedef struct spec {
    const char *name, *dtype, *dims;
    int itemsize;
} spec;

static ts_file *open_specs(const spec *sp, size_t n, unsigned char **image)
{
    char header[8192];
    size_t h = 0, off = 0;
    h += (size_t)snprintf(header + h, sizeof header - h, "{");
    for (size_t i = 0; i < n; i++) {
        int64_t size = 1;
        for (const char *p = sp[i].dims; *p;) {
            char *end;
            size *= strtoll(p, &end, 10);
            p = *end == ',' ? end + 1 : end;
        }
        size_t bytes = (size_t)size * (size_t)sp[i].itemsize;
        h += (size_t)snprintf(header + h, sizeof header - h,
                              "%s\"%s\":{\"dtype\":\"%s\",\"shape\":[%s],\"data_offsets\":[%zu,%zu]}",
                              i ? "," : "", sp[i].name, sp[i].dtype, sp[i].dims, off, off + bytes);
        off += bytes;
    }
    h += (size_t)snprintf(header + h, sizeof header - h, "}");
    ck_assert_uint_lt(h, sizeof header);
    size_t total = 8 + h + off;
    unsigned char *img = calloc(1, total);
    ck_assert_ptr_nonnull(img);
    for (int k = 0; k < 8; k++)
        img[k] = (unsigned char)((uint64_t)h >> (8 * k));
    memcpy(img + 8, header, h);
    ts_file *f = NULL;
    ts_error err;
    ck_assert_msg(ts_file_open_memory(img, total, NULL, &f, &err) == TS_OK, "%s", err.message);
    *image = img; /* the caller frees it after ts_file_close */
    return f;
}

static ts_summary *new_summary(int64_t top, int group)
{
    ts_summary_options o = TS_SUMMARY_OPTIONS_INIT;
    o.top = top;
    o.group = group;
    ts_summary *s = NULL;
    ck_assert_int_eq(ts_summary_new(&o, &s, NULL), TS_OK);
    return s;
}

static void add_all(ts_summary *s, const ts_file *f)
{
    for (size_t i = 0; i < ts_file_count(f); i++)
        ck_assert_int_eq(ts_summary_add(s, NULL, ts_file_array(f, i), i, NULL), TS_OK);
}

static void assert_sum(const ts_summary_sum *s, int64_t tensors, int64_t size, int64_t nbytes)
{
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(s->tensors, tensors);
    ck_assert_int_eq(s->size, size);
    ck_assert_int_eq(s->nbytes, nbytes);
    ck_assert_int_eq(s->size_overflow, 0);
    ck_assert_int_eq(s->nbytes_overflow, 0);
    ck_assert_int_eq(s->nbytes_unknown, 0);
}

/* ---- sums ------------------------------------------------------------------ */

START_TEST(test_sums)
{
    const spec sp[] = {
        {"conv.weight", "F32", "4,3", 4},
        {"bn.running_mean", "F32", "4", 4},
        {"bn.num_batches_tracked", "I64", "", 8},
        {"fc.weight", "F16", "2,4", 2},
        {"optimizer.state.0.momentum_buffer", "F32", "4,3", 4},
    };
    unsigned char *img;
    ts_file *f = open_specs(sp, sizeof sp / sizeof *sp, &img);
    ts_summary *s = new_summary(0, 0);
    add_all(s, f);
    ts_file_close(f);
    free(img);
    /* the file is closed: everything below was copied */
    assert_sum(ts_summary_total(s), 5, 12 + 4 + 1 + 8 + 12, 48 + 16 + 8 + 16 + 48);
    assert_sum(ts_summary_role(s, TS_ROLE_PARAMETER), 2, 20, 64);
    assert_sum(ts_summary_role(s, TS_ROLE_BUFFER), 2, 5, 24);
    assert_sum(ts_summary_role(s, TS_ROLE_OPTIMIZER_STATE), 1, 12, 48);
    /* dtypes in the order first met (safetensors sorts by name: bn.* first) */
    ck_assert_uint_eq(ts_summary_dtype_count(s), 3);
    const ts_summary_sum *d;
    ck_assert_str_eq(ts_summary_dtype_at(s, 0, &d), "float32");
    assert_sum(d, 3, 28, 112);
    ck_assert_str_eq(ts_summary_dtype_at(s, 1, &d), "int64");
    assert_sum(d, 1, 1, 8);
    ck_assert_str_eq(ts_summary_dtype_at(s, 2, NULL), "float16");
    ck_assert_uint_eq(ts_summary_largest_count(s), 0);
    ck_assert_uint_eq(ts_summary_group_count(s), 0);
    ts_summary_free(s);
}
END_TEST

/* An .npy image of dtype |S0 and shape (2^62,): 2^62 elements, 0 bytes. */
static ts_file *open_s0(void)
{
    static unsigned char img[128];
    char h[128];
    snprintf(h, sizeof h, "%-117s\n",
             "{'descr': '|S0', 'fortran_order': False, 'shape': (4611686018427387904,), }");
    memcpy(img, "\x93NUMPY\x01\x00\x76\x00", 10);
    memcpy(img + 10, h, 118);
    ts_file *f = NULL;
    ts_error err;
    ck_assert_msg(ts_file_open_memory(img, sizeof img, NULL, &f, &err) == TS_OK, "%s",
                  err.message);
    return f;
}

START_TEST(test_overflow)
{
    ts_file *f = open_s0();
    const ts_array *a = ts_file_array(f, 0);
    ck_assert_str_eq(ts_summary_dtype(a), "S0");
    ts_summary *s = new_summary(0, 0);
    ck_assert_int_eq(ts_summary_add(s, "a", a, 0, NULL), TS_OK);
    ck_assert_int_eq(ts_summary_add(s, "b", a, 1, NULL), TS_OK);
    ck_assert_int_eq(ts_summary_add(s, "c", a, 2, NULL), TS_OK);
    const ts_summary_sum *t = ts_summary_total(s);
    ck_assert_int_eq(t->tensors, 3);
    ck_assert_int_eq(t->size_overflow, 1);
    ck_assert_int_eq(t->size, INT64_C(4611686018427387904)); /* the last that fitted */
    ck_assert_int_eq(t->nbytes, 0);
    ck_assert_int_eq(t->nbytes_overflow, 0);
    /* a string dtype is never a parameter */
    ck_assert_int_eq(ts_summary_role(s, TS_ROLE_BUFFER)->tensors, 3);
    ck_assert_int_eq(ts_summary_role(s, TS_ROLE_PARAMETER)->tensors, 0);
    const ts_summary_sum *d;
    ck_assert_str_eq(ts_summary_dtype_at(s, 0, &d), "S0");
    ck_assert_int_eq(d->size_overflow, 1);
    ts_summary_free(s);
    ts_file_close(f);
}
END_TEST

/* ---- the largest tensors ------------------------------------------------------- */

START_TEST(test_largest)
{
    const spec sp[] = {
        {"a", "F32", "2", 4},   /* 8 B */
        {"b", "F32", "8", 4},   /* 32 B */
        {"c", "F16", "16", 2},  /* 32 B, a tie with b: b first */
        {"d", "F64", "1", 8},   /* 8 B */
        {"e", "F32", "3,4", 4}, /* 48 B */
    };
    unsigned char *img;
    ts_file *f = open_specs(sp, sizeof sp / sizeof *sp, &img);
    ts_summary *s = new_summary(3, 0);
    add_all(s, f);
    ts_file_close(f);
    free(img);
    ck_assert_uint_eq(ts_summary_largest_count(s), 3);
    const ts_summary_tensor *t = ts_summary_largest(s, 0);
    ck_assert_str_eq(t->name, "e");
    ck_assert_str_eq(t->dtype, "float32");
    ck_assert_int_eq(t->ndim, 2);
    ck_assert_int_eq(t->dims[0], 3);
    ck_assert_int_eq(t->dims[1], 4);
    ck_assert_int_eq(t->size, 12);
    ck_assert_int_eq(t->nbytes, 48);
    ck_assert_int_eq(t->role, TS_ROLE_PARAMETER);
    ck_assert_uint_eq(t->tag, 4);
    ck_assert_str_eq(ts_summary_largest(s, 1)->name, "b");
    ck_assert_str_eq(ts_summary_largest(s, 2)->name, "c");
    ck_assert_ptr_null(ts_summary_largest(s, 3));
    ts_summary_free(s);

    /* more room than tensors; a scalar keeps ndim 0 */
    const spec one[] = {{"x", "F32", "", 4}};
    f = open_specs(one, 1, &img);
    s = new_summary(5, 0);
    add_all(s, f);
    ts_file_close(f);
    free(img);
    ck_assert_uint_eq(ts_summary_largest_count(s), 1);
    ck_assert_int_eq(ts_summary_largest(s, 0)->ndim, 0);
    ck_assert_int_eq(ts_summary_largest(s, 0)->size, 1);
    ts_summary_free(s);
}
END_TEST

/* ---- groups ------------------------------------------------------------------- */

START_TEST(test_groups)
{
    /* safetensors sorts by name, so the order met is the byte order */
    const spec sp[] = {
        {"blk.10.attn.weight", "F16", "4,4", 2},
        {"blk.9.attn.weight", "F16", "4,4", 2},
        {"lm_head.weight", "F32", "2,4", 4},
        {"model.layers.0.w", "F32", "4", 4},
        {"model.layers.1.w", "F32", "4", 4},
        {"model.layers.2.w", "F32", "8", 4},     /* another shape: its own group */
        {"model.layers.3.w", "F32", "4", 4},
        {"model.layers.5.w", "F32", "4", 4},
        {"model.layers.7.w", "F32", "4", 4},
        {"x.1234567890.w", "F32", "1", 4},        /* 10 digits: not a layer */
        {"x.12345678901.w", "F32", "1", 4},
        {"y.0a.w", "F32", "1", 4},               /* not all digits */
        {"z.0.w.1", "F32", "1", 4},              /* two layer numbers */
        {"z.1.w.0", "F32", "1", 4},
    };
    unsigned char *img;
    ts_file *f = open_specs(sp, sizeof sp / sizeof *sp, &img);
    ts_summary *s = new_summary(0, 1);
    add_all(s, f);
    ts_file_close(f);
    free(img);
    static const struct {
        const char *name, *layers;
        int64_t count, d0;
    } want[] = {
        {"blk.#.attn.weight", "9-10", 2, 4},
        {"lm_head.weight", "", 1, 2},
        {"model.layers.#.w", "0-1,3,5,7", 5, 4},
        {"model.layers.2.w", "", 1, 8},
        {"x.1234567890.w", "", 1, 1},
        {"x.12345678901.w", "", 1, 1},
        {"y.0a.w", "", 1, 1},
        {"z.#.w.#", "0-1", 2, 1},
    };
    ck_assert_uint_eq(ts_summary_group_count(s), sizeof want / sizeof *want);
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        const ts_summary_group *g = ts_summary_group_at(s, i);
        ck_assert_ptr_nonnull(g);
        ck_assert_str_eq(g->name, want[i].name);
        ck_assert_str_eq(g->layers, want[i].layers);
        ck_assert_int_eq(g->count, want[i].count);
        ck_assert_int_eq(g->first.dims[0], want[i].d0);
    }
    ck_assert_str_eq(ts_summary_group_at(s, 0)->first.name, "blk.10.attn.weight");
    ck_assert_str_eq(ts_summary_group_at(s, 0)->first.dtype, "float16");
    ck_assert_uint_eq(ts_summary_group_at(s, 2)->first.tag, 3);
    ck_assert_ptr_null(ts_summary_group_at(s, sizeof want / sizeof *want));

    /* a later add refreshes the layer text */
    const spec more[] = {{"model.layers.4.w", "F32", "4", 4}};
    f = open_specs(more, 1, &img);
    add_all(s, f);
    ts_file_close(f);
    free(img);
    ck_assert_str_eq(ts_summary_group_at(s, 2)->layers, "0-1,3-5,7");
    ck_assert_int_eq(ts_summary_group_at(s, 2)->count, 6);
    ts_summary_free(s);
}
END_TEST

/* Many groups: the hash grows and keeps every group apart. */
START_TEST(test_many_groups)
{
    ts_file *f = open_s0();
    const ts_array *a = ts_file_array(f, 0);
    ts_summary *s = new_summary(0, 1);
    char name[64];
    for (int i = 0; i < 3000; i++) {
        snprintf(name, sizeof name, "t%d.%d.w", i % 1500, i / 1500);
        ck_assert_int_eq(ts_summary_add(s, name, a, (size_t)i, NULL), TS_OK);
    }
    ck_assert_uint_eq(ts_summary_group_count(s), 1500);
    const ts_summary_group *g = ts_summary_group_at(s, 1499);
    ck_assert_str_eq(g->name, "t1499.#.w");
    ck_assert_str_eq(g->layers, "0-1");
    ck_assert_int_eq(g->count, 2);
    ts_summary_free(s);
    ts_file_close(f);
}
END_TEST

/* ---- real checkpoints ------------------------------------------------------------ */

/* A torch.save of {"model", "optimizer" (Adam), "epoch", "args"}
 * (tests/fixtures/gen_pytorch.py): the parameters are the model's 8
 * elements, as sum(p.numel() for p in model.parameters()), not 26. */
START_TEST(test_adam_checkpoint)
{
    ts_file *f = NULL;
    ck_assert_int_eq(ts_file_open("tests/fixtures/pytorch/adam.pt", NULL, &f, NULL), TS_OK);
    ts_summary *s = new_summary(1, 0);
    add_all(s, f);
    assert_sum(ts_summary_total(s), 8, 26, 104);
    assert_sum(ts_summary_role(s, TS_ROLE_PARAMETER), 2, 8, 32);
    assert_sum(ts_summary_role(s, TS_ROLE_BUFFER), 0, 0, 0);
    assert_sum(ts_summary_role(s, TS_ROLE_OPTIMIZER_STATE), 6, 18, 72);
    ck_assert_str_eq(ts_summary_largest(s, 0)->name, "model.module.weight");
    ts_summary_free(s);
    ts_file_close(f);
}
END_TEST

/* MXNet aux: states are buffers. */
START_TEST(test_mxnet_aux)
{
    ts_file *f = NULL;
    ck_assert_int_eq(ts_file_open("tests/fixtures/model/diff/model.params", NULL, &f, NULL),
                     TS_OK);
    ts_summary *s = new_summary(0, 0);
    add_all(s, f);
    assert_sum(ts_summary_total(s), 4, 476, 1904);
    assert_sum(ts_summary_role(s, TS_ROLE_PARAMETER), 3, 472, 1888);
    assert_sum(ts_summary_role(s, TS_ROLE_BUFFER), 1, 4, 16);
    ts_summary_free(s);
    ts_file_close(f);
}
END_TEST

/* The corpus's SmallCNN (../shared/corpus/pytorch/make_pytorch.py: two
 * Conv2d, two BatchNorm2d, a Linear): torch counts
 * sum(p.numel() for p in model.parameters()) = 383 in 9 tensors and
 * 22 buffer elements in 6 (running_mean, running_var, num_batches_tracked
 * of each BatchNorm2d). checkpoint.pth holds that state_dict, an EMA copy
 * (parameters again: only the model's code knows better) and SGD momentum
 * for the 9 parameters. */
START_TEST(test_corpus_cnn)
{
    char path[4096];
    if (!tu_corpus_path(path, sizeof path, "pytorch/cnn_zip.pt"))
        return;
    ts_file *f = NULL;
    ck_assert_int_eq(ts_file_open(path, NULL, &f, NULL), TS_OK);
    ts_summary *s = new_summary(0, 0);
    add_all(s, f);
    assert_sum(ts_summary_role(s, TS_ROLE_PARAMETER), 9, 383, 383 * 4);
    assert_sum(ts_summary_role(s, TS_ROLE_BUFFER), 6, 22, 20 * 4 + 2 * 8);
    assert_sum(ts_summary_role(s, TS_ROLE_OPTIMIZER_STATE), 0, 0, 0);
    ts_summary_free(s);
    ts_file_close(f);
    if (!tu_corpus_path(path, sizeof path, "pytorch/checkpoint.pth"))
        return;
    ck_assert_int_eq(ts_file_open(path, NULL, &f, NULL), TS_OK);
    s = new_summary(0, 0);
    add_all(s, f);
    assert_sum(ts_summary_role(s, TS_ROLE_PARAMETER), 18, 766, 766 * 4);
    assert_sum(ts_summary_role(s, TS_ROLE_OPTIMIZER_STATE), 9, 383, 383 * 4);
    ts_summary_free(s);
    ts_file_close(f);
}
END_TEST

Suite *summary_suite(void)
{
    Suite *s = suite_create("summary");
    TCase *tc = tcase_create("roles");
    tcase_add_loop_test(tc, test_roles, 0, (int)(sizeof role_cases / sizeof *role_cases));
    tcase_add_test(tc, test_role_names);
    suite_add_tcase(s, tc);
    tc = tcase_create("summary");
    tcase_add_test(tc, test_sums);
    tcase_add_test(tc, test_overflow);
    tcase_add_test(tc, test_largest);
    tcase_add_test(tc, test_groups);
    tcase_add_test(tc, test_many_groups);
    tcase_add_test(tc, test_adam_checkpoint);
    tcase_add_test(tc, test_mxnet_aux);
    tcase_add_test(tc, test_corpus_cnn);
    suite_add_tcase(s, tc);
    return s;
}
