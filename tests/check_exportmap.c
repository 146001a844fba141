/*
 * check_exportmap.c - ts_diff across an export (ts_diff_rule in tshape.h):
 * PyTorch state_dicts against their torch.onnx.export models (initializers
 * named by the node that reads them, deduplicated ones by Identity nodes,
 * Conv+BatchNorm fusion, Constant operands, num_batches_tracked) and a
 * Keras HDF5 file against PyTorch weights (kernel layouts), on the
 * fixtures of tests/fixtures/gen_onnxmap.py. Each rule has its case here,
 * with the exact pairs it makes, its evidence and its permutation, and the
 * values compared after it.
 */
#define TS_EXPERIMENTAL_API
#include <stdio.h>
#include <string.h>

#include "testutil.h"

#define DIR "tests/fixtures/onnxmap/"

static ts_model *open_model(const char *path)
{
    ts_model *m = NULL;
    ts_error err;
    ck_assert_msg(ts_model_open(path, NULL, &m, &err) == TS_OK, "%s: %s", path, err.message);
    return m;
}

/* The pair whose A tensor (or, with no A tensor, B tensor) is named name. */
static const ts_diff_pair *pair_of(const ts_diff *d, const ts_model *a, const ts_model *b,
                                   const char *name)
{
    for (size_t i = 0; i < ts_diff_count(d); i++) {
        const ts_diff_pair *p = ts_diff_pair_at(d, i);
        const char *n = p->a != TS_DIFF_NONE ? ts_model_array_name(a, p->a)
                                             : ts_model_array_name(b, p->b);
        if (strcmp(n, name) == 0)
            return p;
    }
    ck_abort_msg("no pair of %s", name);
    return NULL;
}

/* Pair `name` (A's tensor name) has B's tensor b_name (NULL: none), the
 * rule, the kind, the evidence (NULL: none) and `explained`. */
static const ts_diff_pair *check_pair(const ts_diff *d, const ts_model *a, const ts_model *b,
                                      const char *name, const char *b_name, ts_diff_rule rule,
                                      ts_diff_kind kind, const char *via, int explained)
{
    const ts_diff_pair *p = pair_of(d, a, b, name);
    if (b_name && p->a != TS_DIFF_NONE)
        ck_assert_str_eq(ts_model_array_name(b, p->b), b_name);
    else if (p->a != TS_DIFF_NONE)
        ck_assert_uint_eq(p->b, TS_DIFF_NONE);
    ck_assert_msg(p->rule == rule, "%s: rule %s, expected %s", name, ts_diff_rule_name(p->rule),
                  ts_diff_rule_name(rule));
    ck_assert_msg(p->kind == kind, "%s: kind %s, expected %s", name, ts_diff_kind_name(p->kind),
                  ts_diff_kind_name(kind));
    if (via)
        ck_assert_str_eq(p->via, via);
    else
        ck_assert_ptr_null(p->via);
    ck_assert_int_eq(p->explained, explained);
    return p;
}

/* Compares the values of every pair; returns the pairs whose values are
 * not all close. */
static int compare_all(ts_diff *d)
{
    int notclose = 0;
    ts_error err;
    for (size_t i = 0; i < ts_diff_count(d); i++) {
        ck_assert_msg(ts_diff_compare_values(d, i, NULL, &err) == TS_OK, "pair %zu: %s", i,
                      err.message);
        const ts_diff_pair *p = ts_diff_pair_at(d, i);
        notclose += p->values == TS_DIFF_VALUES_COMPARED && p->compare.notclose > 0;
    }
    return notclose;
}

START_TEST(test_rule_names)
{
    static const char *const names[] = {"none", "name", "single", "gguf", "onnx_consumer",
                                        "onnx_identity", "onnx_fused", "bn_folded",
                                        "not_exported", "layout", "onnx_constant"};
    ck_assert_int_eq(TS_DIFF_RULE_COUNT, 11);
    for (int r = 0; r < TS_DIFF_RULE_COUNT; r++)
        ck_assert_str_eq(ts_diff_rule_name((ts_diff_rule)r), names[r]);
    ck_assert_str_eq(ts_diff_rule_name((ts_diff_rule)TS_DIFF_RULE_COUNT), "unknown");
    ck_assert_str_eq(ts_diff_rule_name((ts_diff_rule)-1), "unknown");
}
END_TEST

/* MatMul input 1: the Linear weight, stored transposed by the folded
 * Transpose (onnx::MatMul_N); both directions. */
START_TEST(test_consumer_matmul)
{
    ts_model *a = open_model(DIR "mlp.pt"), *b = open_model(DIR "mlp-cf.onnx");
    ts_diff *d;
    ts_error err;
    ck_assert_int_eq(ts_diff_new(a, b, NULL, &d, &err), TS_OK);
    ck_assert_uint_eq(ts_diff_count(d), 5);
    const ts_diff_pair *p = check_pair(d, a, b, "fc1.weight", "onnx::MatMul_13",
                                       TS_DIFF_RULE_ONNX_CONSUMER, TS_DIFF_EQUAL,
                                       "/fc1/MatMul input 1", 0);
    ck_assert_int_eq(p->perm_ndim, 2);
    ck_assert_int_eq(p->perm[0], 1);
    ck_assert_int_eq(p->perm[1], 0);
    check_pair(d, a, b, "fc2.weight", "onnx::MatMul_14", TS_DIFF_RULE_ONNX_CONSUMER,
               TS_DIFF_EQUAL, "/fc2/MatMul input 1", 0);
    check_pair(d, a, b, "norm.weight", "norm.weight", TS_DIFF_RULE_NAME, TS_DIFF_EQUAL, NULL, 0);
    const ts_diff_totals *t = ts_diff_totals_of(d);
    ck_assert_int_eq(t->rules[TS_DIFF_RULE_ONNX_CONSUMER], 2);
    ck_assert_int_eq(t->rules[TS_DIFF_RULE_NAME], 3);
    ck_assert_int_eq(t->different, 0);
    ck_assert_int_eq(compare_all(d), 0);
    p = pair_of(d, a, b, "fc1.weight");
    ck_assert_int_eq(p->compare.count, 24);
    ck_assert_double_eq(p->compare.max_abs, 0);
    ts_diff_free(d);

    /* ONNX as A: the same pairs from the other side */
    ck_assert_int_eq(ts_diff_new(b, a, NULL, &d, &err), TS_OK);
    p = check_pair(d, b, a, "onnx::MatMul_13", "fc1.weight", TS_DIFF_RULE_ONNX_CONSUMER,
                   TS_DIFF_EQUAL, "/fc1/MatMul input 1", 0);
    ck_assert_int_eq(p->perm_ndim, 2);
    ck_assert_int_eq(ts_diff_totals_of(d)->different, 0);
    ck_assert_int_eq(compare_all(d), 0);
    ts_diff_free(d);

    /* without the export rules: the renamed initializers are alone */
    ts_diff_options o = TS_DIFF_OPTIONS_INIT;
    o.export_names = 0;
    ck_assert_int_eq(ts_diff_new(a, b, &o, &d, &err), TS_OK);
    check_pair(d, a, b, "fc1.weight", NULL, TS_DIFF_RULE_NONE, TS_DIFF_ONLY_A, NULL, 0);
    ck_assert_int_eq(ts_diff_totals_of(d)->different, 4);
    ts_diff_free(d);
    o.export_names = 2;
    ck_assert_int_eq(ts_diff_new(a, b, &o, &d, &err), TS_ERR_INVALID_ARG);
    ts_model_close(a);
    ts_model_close(b);

    /* a Gemm (transB 1) keeps the names; fc2's MatMul is mapped */
    a = open_model(DIR "mlp-2d.onnx");
    b = open_model(DIR "mlp.pt");
    ck_assert_int_eq(ts_diff_new(a, b, NULL, &d, &err), TS_OK);
    check_pair(d, a, b, "fc1.weight", "fc1.weight", TS_DIFF_RULE_NAME, TS_DIFF_EQUAL, NULL, 0);
    check_pair(d, a, b, "onnx::MatMul_11", "fc2.weight", TS_DIFF_RULE_ONNX_CONSUMER,
               TS_DIFF_EQUAL, "/fc2/MatMul input 1", 0);
    ck_assert_int_eq(compare_all(d), 0);
    ts_diff_free(d);
    ts_model_close(a);
    ts_model_close(b);
}
END_TEST

/* Eval-mode export: Conv and BatchNorm fused (onnx::Conv_N paired with the
 * Conv's tensors, its values no longer theirs), the BatchNorms folded, a
 * bias the fusion made, the LayerNorm's Constant operands; the scopes
 * /layer1/layer1.0/conv1 make layer1.0.conv1. */
START_TEST(test_fused)
{
    ts_model *a = open_model(DIR "net.pt"), *b = open_model(DIR "net-eval.onnx");
    ts_diff *d;
    ts_error err;
    ck_assert_int_eq(ts_diff_new(a, b, NULL, &d, &err), TS_OK);
    ck_assert_uint_eq(ts_diff_count(d), 23);
    check_pair(d, a, b, "layer1.0.conv1.weight", "onnx::Conv_46", TS_DIFF_RULE_ONNX_FUSED,
               TS_DIFF_EQUAL, "/layer1/layer1.0/conv1/Conv input 1", 0);
    check_pair(d, a, b, "layer1.0.conv2.bias", "onnx::Conv_50", TS_DIFF_RULE_ONNX_FUSED,
               TS_DIFF_EQUAL, "/layer1/layer1.0/conv2/Conv input 2", 0);
    check_pair(d, a, b, "layer1.0.bn1.running_var", NULL, TS_DIFF_RULE_BN_FOLDED,
               TS_DIFF_ONLY_A, "layer1.0.conv1.weight", 1);
    check_pair(d, a, b, "layer1.0.bn2.num_batches_tracked", NULL, TS_DIFF_RULE_BN_FOLDED,
               TS_DIFF_ONLY_A, "layer1.0.conv2.weight", 1);
    check_pair(d, a, b, "onnx::Conv_47", NULL, TS_DIFF_RULE_ONNX_FUSED, TS_DIFF_ONLY_B,
               "/layer1/layer1.0/conv1/Conv input 2", 1);
    check_pair(d, a, b, "/ln/Constant_output_0", NULL, TS_DIFF_RULE_ONNX_CONSTANT,
               TS_DIFF_ONLY_B, NULL, 1);
    check_pair(d, a, b, "stem.weight", "stem.weight", TS_DIFF_RULE_NAME, TS_DIFF_EQUAL, NULL, 0);
    const ts_diff_totals *t = ts_diff_totals_of(d);
    ck_assert_int_eq(t->kinds[TS_DIFF_EQUAL], 10);
    ck_assert_int_eq(t->kinds[TS_DIFF_ONLY_A], 10);
    ck_assert_int_eq(t->kinds[TS_DIFF_ONLY_B], 3);
    ck_assert_int_eq(t->explained, 13);
    ck_assert_int_eq(t->different, 0);
    ck_assert_int_eq(t->rules[TS_DIFF_RULE_ONNX_FUSED], 4);
    ck_assert_int_eq(t->rules[TS_DIFF_RULE_BN_FOLDED], 10);
    ck_assert_int_eq(t->rules[TS_DIFF_RULE_ONNX_CONSTANT], 2);
    ck_assert_int_eq(t->rules[TS_DIFF_RULE_NAME], 7);
    /* the fused Conv's values are not the state_dict's */
    ck_assert_int_eq(compare_all(d), 3);
    ck_assert_int_eq(ts_diff_totals_of(d)->different, 3);
    ts_diff_free(d);
    ts_model_close(a);
    ts_model_close(b);

    /* without constant folding the same fusion; safetensors as PyTorch */
    a = open_model(DIR "net-eval-nocf.onnx");
    b = open_model(DIR "net.safetensors");
    ck_assert_int_eq(ts_diff_new(a, b, NULL, &d, &err), TS_OK);
    check_pair(d, a, b, "onnx::Conv_49", "layer1.0.conv2.weight", TS_DIFF_RULE_ONNX_FUSED,
               TS_DIFF_EQUAL, "/layer1/layer1.0/conv2/Conv input 1", 0);
    check_pair(d, a, b, "layer1.0.bn1.bias", NULL, TS_DIFF_RULE_BN_FOLDED, TS_DIFF_ONLY_B,
               "layer1.0.conv1.weight", 1);
    ck_assert_int_eq(ts_diff_totals_of(d)->explained, 13);
    ck_assert_int_eq(ts_diff_totals_of(d)->different, 0);
    ts_diff_free(d);
    ts_model_close(a);
    ts_model_close(b);
}
END_TEST

/* PRESERVE: every name kept, num_batches_tracked not exported, values
 * equal; a fresh net's equal tensors deduplicated behind Identity nodes. */
START_TEST(test_kept_and_identity)
{
    ts_model *a = open_model(DIR "net.pt"), *b = open_model(DIR "net-keep.onnx");
    ts_diff *d;
    ts_error err;
    ck_assert_int_eq(ts_diff_new(a, b, NULL, &d, &err), TS_OK);
    check_pair(d, a, b, "layer1.0.bn1.num_batches_tracked", NULL, TS_DIFF_RULE_NOT_EXPORTED,
               TS_DIFF_ONLY_A, NULL, 1);
    check_pair(d, a, b, "layer1.0.bn2.running_var", "layer1.0.bn2.running_var",
               TS_DIFF_RULE_NAME, TS_DIFF_EQUAL, NULL, 0);
    ck_assert_int_eq(ts_diff_totals_of(d)->rules[TS_DIFF_RULE_NAME], 18);
    ck_assert_int_eq(ts_diff_totals_of(d)->explained, 4);
    ck_assert_int_eq(ts_diff_totals_of(d)->different, 0);
    ck_assert_int_eq(compare_all(d), 0);
    ts_diff_free(d);
    ts_model_close(a);
    ts_model_close(b);

    a = open_model(DIR "dedup.onnx");
    b = open_model(DIR "dedup.pt");
    ck_assert_int_eq(ts_diff_new(a, b, NULL, &d, &err), TS_OK);
    /* ONNX as A: B's names left over pair with the initializer an Identity
     * reads, after A's own pairs */
    const ts_diff_pair *p = NULL;
    for (size_t i = 0; i < ts_diff_count(d); i++)
        if (ts_diff_pair_at(d, i)->b != TS_DIFF_NONE &&
            strcmp(ts_model_array_name(b, ts_diff_pair_at(d, i)->b), "layer1.0.bn2.running_var") ==
                0)
            p = ts_diff_pair_at(d, i);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(p->rule, TS_DIFF_RULE_ONNX_IDENTITY);
    ck_assert_str_eq(ts_model_array_name(a, p->a), "layer1.0.bn1.weight");
    ck_assert_str_eq(p->via, "Identity_0");
    ck_assert_int_eq(p->kind, TS_DIFF_EQUAL);
    const ts_diff_totals *t = ts_diff_totals_of(d);
    ck_assert_int_eq(t->rules[TS_DIFF_RULE_ONNX_IDENTITY], 6);
    ck_assert_int_eq(t->kinds[TS_DIFF_EQUAL], 18);
    ck_assert_int_eq(t->different, 0);
    ck_assert_int_eq(compare_all(d), 0);
    ts_diff_free(d);
    /* PyTorch as A: the same six */
    ck_assert_int_eq(ts_diff_new(b, a, NULL, &d, &err), TS_OK);
    check_pair(d, b, a, "layer1.0.bn2.bias", "layer1.0.bn1.bias", TS_DIFF_RULE_ONNX_IDENTITY,
               TS_DIFF_EQUAL, "Identity_2", 0);
    ck_assert_int_eq(ts_diff_totals_of(d)->rules[TS_DIFF_RULE_ONNX_IDENTITY], 6);
    ts_diff_free(d);
    ts_model_close(a);
    ts_model_close(b);
}
END_TEST

/* Keras kernels against PyTorch weights, paired by the rename file: Dense
 * transposed, Conv2D permuted, values compared after it. */
START_TEST(test_layout)
{
    ts_model *a = open_model(DIR "keras.h5"), *b = open_model(DIR "keras-torch.pt");
    ts_namemap *nm;
    ts_diff *d;
    ts_error err;
    ck_assert_int_eq(ts_namemap_new(&nm, &err), TS_OK);
    FILE *f = fopen(DIR "keras-rename.txt", "rb");
    ck_assert_ptr_nonnull(f);
    char text[2048];
    size_t n = fread(text, 1, sizeof text, f);
    fclose(f);
    ck_assert_int_eq(ts_namemap_read_renames(nm, text, n, &err), TS_OK);
    ts_diff_options o = TS_DIFF_OPTIONS_INIT;
    o.names = nm;
    ck_assert_int_eq(ts_diff_new(a, b, &o, &d, &err), TS_OK);
    ck_assert_uint_eq(ts_diff_count(d), 7);
    const ts_diff_pair *p = check_pair(d, a, b, "model_weights/conv/conv/kernel:0",
                                       "conv.weight", TS_DIFF_RULE_LAYOUT, TS_DIFF_EQUAL, NULL,
                                       0);
    /* keras (3,3,2,4) is PyTorch (4,2,3,3) with axes (3,2,0,1): B's (2,3,1,0) */
    ck_assert_int_eq(p->perm_ndim, 4);
    ck_assert_int_eq(p->perm[0], 2);
    ck_assert_int_eq(p->perm[1], 3);
    ck_assert_int_eq(p->perm[2], 1);
    ck_assert_int_eq(p->perm[3], 0);
    p = check_pair(d, a, b, "model_weights/fc2/fc2/kernel:0", "fc2.weight", TS_DIFF_RULE_LAYOUT,
                   TS_DIFF_EQUAL, NULL, 0);
    ck_assert_int_eq(p->perm_ndim, 2);
    check_pair(d, a, b, "model_weights/fc1/fc1/bias:0", "fc1.bias", TS_DIFF_RULE_NAME,
               TS_DIFF_EQUAL, NULL, 0);
    ck_assert_int_eq(ts_diff_totals_of(d)->rules[TS_DIFF_RULE_LAYOUT], 3);
    ck_assert_int_eq(ts_diff_totals_of(d)->different, 0);
    ck_assert_int_eq(compare_all(d), 0);
    p = pair_of(d, a, b, "model_weights/conv/conv/kernel:0");
    ck_assert_int_eq(p->compare.count, 72);
    ck_assert_int_eq(p->compare.notclose, 0);
    ts_diff_free(d);
    /* without the layout rule: shapes differ */
    o.export_names = 0;
    ck_assert_int_eq(ts_diff_new(a, b, &o, &d, &err), TS_OK);
    check_pair(d, a, b, "model_weights/conv/conv/kernel:0", "conv.weight", TS_DIFF_RULE_NAME,
               TS_DIFF_SHAPE, NULL, 0);
    ts_diff_free(d);
    ts_namemap_free(nm);
    ts_model_close(a);

    /* Keras 3: a Dense's or Conv's vars/0 is its kernel */
    a = open_model(DIR "keras3.weights.h5");
    ck_assert_int_eq(ts_namemap_new(&nm, &err), TS_OK);
    f = fopen(DIR "keras3-rename.txt", "rb");
    ck_assert_ptr_nonnull(f);
    n = fread(text, 1, sizeof text, f);
    fclose(f);
    ck_assert_int_eq(ts_namemap_read_renames(nm, text, n, &err), TS_OK);
    o.names = nm;
    o.export_names = 1;
    ck_assert_int_eq(ts_diff_new(a, b, &o, &d, &err), TS_OK);
    p = check_pair(d, a, b, "layers/conv2d/vars/0", "conv.weight", TS_DIFF_RULE_LAYOUT,
                   TS_DIFF_EQUAL, NULL, 0);
    ck_assert_int_eq(p->perm_ndim, 4);
    check_pair(d, a, b, "layers/dense_1/vars/0", "fc2.weight", TS_DIFF_RULE_LAYOUT,
               TS_DIFF_EQUAL, NULL, 0);
    /* not a kernel: a bias, a LayerNormalization's gamma */
    check_pair(d, a, b, "layers/dense/vars/1", "fc1.bias", TS_DIFF_RULE_NAME, TS_DIFF_EQUAL,
               NULL, 0);
    check_pair(d, a, b, "layers/layer_normalization/vars/0", "norm.weight", TS_DIFF_RULE_NAME,
               TS_DIFF_EQUAL, NULL, 0);
    ck_assert_int_eq(ts_diff_totals_of(d)->rules[TS_DIFF_RULE_LAYOUT], 3);
    ck_assert_int_eq(ts_diff_totals_of(d)->different, 0);
    ck_assert_int_eq(compare_all(d), 0);
    ts_diff_free(d);
    ts_namemap_free(nm);
    ts_model_close(a);
    ts_model_close(b);
}
END_TEST

/* The node-name and input rules one by one (rules.onnx, written with
 * onnx.helper), and the names no rule may map. */
START_TEST(test_consumer_rules)
{
    ts_model *a = open_model(DIR "rules.onnx"), *b = open_model(DIR "rules.safetensors");
    ts_diff *d;
    ts_error err;
    ck_assert_int_eq(ts_diff_new(a, b, NULL, &d, &err), TS_OK);
    static const struct {
        const char *onnx, *torch, *via;
    } want[] = {
        {"onnx::W_1", "features.0.weight", "/features/features.0/Conv input 1"},
        {"onnx::W_2", "features.0.1.weight", "/features/features.0/features.0.1/Conv input 1"},
        {"onnx::W_3", "enc.weight", "/enc/Conv_3 input 1"},
        {"onnx::W_7", "head.weight", "/head/Gemm input 1"},
        {"onnx::W_8", "head.bias", "/head/Gemm input 2"},
        {"onnx::W_9", "bn.weight", "/bn/BatchNormalization input 1"},
        {"onnx::W_10", "bn.bias", "/bn/BatchNormalization input 2"},
        {"onnx::W_11", "bn.running_mean", "/bn/BatchNormalization input 3"},
        {"onnx::W_12", "bn.running_var", "/bn/BatchNormalization input 4"},
        {"onnx::W_13", "emb.weight", "/emb/Gather input 0"},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        const ts_diff_pair *p = check_pair(d, a, b, want[i].onnx, want[i].torch,
                                           TS_DIFF_RULE_ONNX_CONSUMER, TS_DIFF_EQUAL,
                                           want[i].via, 0);
        /* Gemm with transB 0 holds the weight transposed */
        ck_assert_int_eq(p->perm_ndim, strcmp(want[i].torch, "head.weight") == 0 ? 2 : 0);
    }
    /* scopes that do not nest, an op without a scope, a Relu */
    check_pair(d, a, b, "onnx::W_4", NULL, TS_DIFF_RULE_NONE, TS_DIFF_ONLY_A, NULL, 0);
    check_pair(d, a, b, "onnx::W_5", NULL, TS_DIFF_RULE_NONE, TS_DIFF_ONLY_A, NULL, 0);
    check_pair(d, a, b, "onnx::W_6", NULL, TS_DIFF_RULE_NONE, TS_DIFF_ONLY_A, NULL, 0);
    check_pair(d, a, b, "a.1.weight", NULL, TS_DIFF_RULE_NONE, TS_DIFF_ONLY_B, NULL, 0);
    check_pair(d, a, b, "weight", NULL, TS_DIFF_RULE_NONE, TS_DIFF_ONLY_B, NULL, 0);
    check_pair(d, a, b, "enc.bias", NULL, TS_DIFF_RULE_NONE, TS_DIFF_ONLY_B, NULL, 0);
    const ts_diff_totals *t = ts_diff_totals_of(d);
    ck_assert_int_eq(t->rules[TS_DIFF_RULE_ONNX_CONSUMER], 10);
    ck_assert_int_eq(t->rules[TS_DIFF_RULE_ONNX_FUSED], 0); /* no BatchNorm folded */
    ck_assert_int_eq(t->rules[TS_DIFF_RULE_NONE], 6);
    ck_assert_int_eq(t->different, 6);
    ck_assert_int_eq(compare_all(d), 0);
    ts_diff_free(d);
    ts_model_close(a);
    ts_model_close(b);
}
END_TEST

Suite *exportmap_suite(void)
{
    Suite *s = suite_create("exportmap");
    TCase *tc = tcase_create("rules");
    tcase_add_test(tc, test_rule_names);
    tcase_add_test(tc, test_consumer_matmul);
    tcase_add_test(tc, test_consumer_rules);
    tcase_add_test(tc, test_fused);
    tcase_add_test(tc, test_kept_and_identity);
    tcase_add_test(tc, test_layout);
    suite_add_tcase(s, tc);
    return s;
}
