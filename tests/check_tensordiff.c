/*
 * check_tensordiff.c - names and diffs: ts_name_selected (fnmatch globs),
 * ts_namemap (prefixes per side in order, hits, renames, the rename file's
 * text), and ts_diff on the model fixtures: pairs in order with their
 * kinds, the single-pair rule, names held twice, values compared on
 * request (isclose, or error metrics across a GGUF conversion and their
 * groups), metadata differences with their labels, and the totals, each
 * as `tshape diff` reports them (tests/cli/golden/diff).
 */
#define TS_EXPERIMENTAL_API
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* ---- selection ---------------------------------------------------------------- */

START_TEST(test_selected)
{
    const char *inc[] = {"*.weight", "fc?_*"}, *exc[] = {"*running_*", "[ab]*"};
    ck_assert_int_eq(ts_name_selected("x", NULL, 0, NULL, 0), 1);
    ck_assert_int_eq(ts_name_selected("model/conv.weight", inc, 1, NULL, 0), 1); /* '*' and '/' */
    ck_assert_int_eq(ts_name_selected(".weight", inc, 1, NULL, 0), 1);
    ck_assert_int_eq(ts_name_selected("conv.bias", inc, 1, NULL, 0), 0);
    ck_assert_int_eq(ts_name_selected("fc1_bias", inc, 2, NULL, 0), 1);
    ck_assert_int_eq(ts_name_selected("fc10_bias", inc, 2, NULL, 0), 0);
    ck_assert_int_eq(ts_name_selected("bn.running_mean", NULL, 0, exc, 1), 0);
    ck_assert_int_eq(ts_name_selected("a.weight", inc, 2, exc, 2), 0);
    ck_assert_int_eq(ts_name_selected("c.weight", inc, 2, exc, 2), 1);
}
END_TEST

/* ---- name maps ---------------------------------------------------------------- */

START_TEST(test_namemap)
{
    ts_namemap *m;
    ts_error err;
    ck_assert_int_eq(ts_namemap_new(&m, &err), TS_OK);
    ck_assert_str_eq(ts_namemap_apply(m, TS_SIDE_A, "arg:x"), "arg:x");
    ck_assert_int_eq(ts_namemap_add_prefix(m, "arg:", TS_SIDE_A | TS_SIDE_B, &err), TS_OK);
    ck_assert_int_eq(ts_namemap_add_prefix(m, "ar", TS_SIDE_A, &err), TS_OK);
    ck_assert_int_eq(ts_namemap_add_prefix(m, "module.", TS_SIDE_B, &err), TS_OK);
    ck_assert_int_eq(ts_namemap_add_rename(m, "fc1", "dense1", &err), TS_OK);
    ck_assert_int_eq(ts_namemap_add_rename(m, "fc1", "second", &err), TS_OK);
    const char *name = "arg:fc1";
    /* the first prefix that matches, once; then A's renames (the first) */
    ck_assert_ptr_eq(ts_namemap_apply(m, TS_SIDE_B, name), name + 4);
    ck_assert_str_eq(ts_namemap_apply(m, TS_SIDE_A, name), "dense1");
    ck_assert_str_eq(ts_namemap_apply(m, TS_SIDE_A, "args"), "gs");
    ck_assert_str_eq(ts_namemap_apply(m, TS_SIDE_B, "module.fc1"), "fc1"); /* no renames on B */
    ck_assert_str_eq(ts_namemap_apply(m, TS_SIDE_A, "module.fc1"), "module.fc1");
    ck_assert_uint_eq(ts_namemap_prefix_count(m), 3);
    const ts_namemap_prefix *p = ts_namemap_prefix_at(m, 0);
    ck_assert_str_eq(p->prefix, "arg:");
    ck_assert_uint_eq(p->sides, TS_SIDE_A | TS_SIDE_B);
    ck_assert_int_eq(p->hits_a, 1);
    ck_assert_int_eq(p->hits_b, 1);
    p = ts_namemap_prefix_at(m, 1);
    ck_assert_int_eq(p->hits_a, 1);
    ck_assert_int_eq(p->hits_b, 0);
    p = ts_namemap_prefix_at(m, 2);
    ck_assert_int_eq(p->hits_a, 0);
    ck_assert_int_eq(p->hits_b, 1);
    ts_namemap_free(m);
}
END_TEST

START_TEST(test_rename_text)
{
    ts_namemap *m;
    ts_error err;
    ck_assert_int_eq(ts_namemap_new(&m, &err), TS_OK);
    const char text[] = "# A-name B-name\n\n  \t\na b\r\n\tc\t d  \n#x y z\ne f"; /* no last LF */
    ck_assert_int_eq(ts_namemap_read_renames(m, text, sizeof text - 1, &err), TS_OK);
    ck_assert_str_eq(ts_namemap_apply(m, TS_SIDE_A, "a"), "b");
    ck_assert_str_eq(ts_namemap_apply(m, TS_SIDE_A, "c"), "d");
    ck_assert_str_eq(ts_namemap_apply(m, TS_SIDE_A, "e"), "f");
    ck_assert_str_eq(ts_namemap_apply(m, TS_SIDE_A, "#x"), "#x");
    const char bad[] = "g h\n\nonly\ni j\n";
    ck_assert_int_eq(ts_namemap_read_renames(m, bad, sizeof bad - 1, &err), TS_ERR_FORMAT);
    ck_assert_str_eq(err.message, "line 3: expected 'A_NAME B_NAME'");
    ck_assert_int_eq(err.index, 3);
    ck_assert_int_eq(err.offset, 5);
    ck_assert_str_eq(ts_namemap_apply(m, TS_SIDE_A, "g"), "h"); /* lines before are kept */
    ck_assert_str_eq(ts_namemap_apply(m, TS_SIDE_A, "i"), "i");
    const char three[] = "a b c\n";
    ck_assert_int_eq(ts_namemap_read_renames(m, three, sizeof three - 1, &err), TS_ERR_FORMAT);
    ck_assert_str_eq(err.message, "line 1: expected 'A_NAME B_NAME'");
    const char nul[] = "a b\0c\n";
    ck_assert_int_eq(ts_namemap_read_renames(m, nul, sizeof nul - 1, &err), TS_ERR_FORMAT);
    ts_namemap_free(m);
}
END_TEST

/* ---- diffs -------------------------------------------------------------------- */

static ts_model *open_model(const char *path, int metadata)
{
    ts_open_options oo = TS_OPEN_OPTIONS_INIT;
    ts_model_options mo = TS_MODEL_OPTIONS_INIT;
    ts_model *m = NULL;
    ts_error err;
    oo.want_metadata = metadata;
    mo.open = &oo;
    ck_assert_msg(ts_model_open(path, &mo, &m, &err) == TS_OK, "%s: %s", path, err.message);
    return m;
}

typedef struct want_pair {
    ts_diff_kind kind;
    const char *name, *a, *b; /* the original names (NULL: none) */
} want_pair;

static void check_pairs(const ts_diff *d, const ts_model *a, const ts_model *b,
                        const want_pair *w, size_t n)
{
    ck_assert_uint_eq(ts_diff_count(d), n);
    for (size_t i = 0; i < n; i++) {
        const ts_diff_pair *p = ts_diff_pair_at(d, i);
        ck_assert_msg(p->kind == w[i].kind, "pair %zu: kind %s, expected %s", i,
                      ts_diff_kind_name(p->kind), ts_diff_kind_name(w[i].kind));
        ck_assert_str_eq(p->name, w[i].name);
        if (w[i].a)
            ck_assert_str_eq(ts_model_array_name(a, p->a), w[i].a);
        else
            ck_assert_uint_eq(p->a, TS_DIFF_NONE);
        if (w[i].b)
            ck_assert_str_eq(ts_model_array_name(b, p->b), w[i].b);
        else
            ck_assert_uint_eq(p->b, TS_DIFF_NONE);
        ck_assert_int_eq(p->values, TS_DIFF_VALUES_NOT_COMPARED);
    }
}

START_TEST(test_diff_kinds)
{
    ts_model *a = open_model("tests/fixtures/model/diff/model.params", 0);
    ts_model *b = open_model("tests/fixtures/model/diff/changed.npz", 0);
    ts_namemap *nm;
    ts_diff *d;
    ts_error err;
    ck_assert_int_eq(ts_namemap_new(&nm, NULL), TS_OK);
    ck_assert_int_eq(ts_namemap_add_prefix(nm, "arg:", TS_SIDE_A | TS_SIDE_B, NULL), TS_OK);
    ck_assert_int_eq(ts_namemap_add_prefix(nm, "aux:", TS_SIDE_A | TS_SIDE_B, NULL), TS_OK);
    ck_assert_int_eq(ts_namemap_add_prefix(nm, "nothing.", TS_SIDE_B, NULL), TS_OK);
    ts_diff_options o = TS_DIFF_OPTIONS_INIT;
    o.names = nm;
    ck_assert_int_eq(ts_diff_new(a, b, &o, &d, &err), TS_OK);
    /* the golden case diff/mxnet-npz-changed, with the equal pair */
    const want_pair w[] = {
        {TS_DIFF_EQUAL, "conv0_weight", "arg:conv0_weight", "conv0_weight"},
        {TS_DIFF_DTYPE, "conv0_bias", "arg:conv0_bias", "conv0_bias"},
        {TS_DIFF_SHAPE, "fc1_weight", "arg:fc1_weight", "fc1_weight"},
        {TS_DIFF_ONLY_A, "bn0_moving_mean", "aux:bn0_moving_mean", NULL},
        {TS_DIFF_ONLY_B, "fc2_weight", NULL, "fc2_weight"},
    };
    check_pairs(d, a, b, w, sizeof w / sizeof *w);
    ck_assert_int_eq(ts_diff_single(d), 0);
    const ts_diff_totals *t = ts_diff_totals_of(d);
    ck_assert_int_eq(t->kinds[TS_DIFF_EQUAL], 1);
    ck_assert_int_eq(t->changed, 2);
    ck_assert_int_eq(t->different, 4);
    ck_assert_int_eq(t->unreadable, 0);
    ck_assert_int_eq(ts_namemap_prefix_at(nm, 0)->hits_a, 3);
    ck_assert_int_eq(ts_namemap_prefix_at(nm, 1)->hits_a, 1);
    ck_assert_int_eq(ts_namemap_prefix_at(nm, 2)->hits_b, 0); /* a prefix that matched nothing */
    ck_assert_uint_eq(ts_diff_duplicate_count(d), 0);
    ck_assert_uint_eq(ts_diff_metadata_count(d), 0);
    ts_diff_free(d);

    /* selection on mapped names; a rename making a name twice on A */
    const char *filter[] = {"fc*", "conv*"}, *exclude[] = {"*_bias"};
    o.filter = filter;
    o.nfilter = 2;
    o.exclude = exclude;
    o.nexclude = 1;
    ck_assert_int_eq(ts_namemap_add_rename(nm, "fc1_weight", "conv0_weight", NULL), TS_OK);
    ck_assert_int_eq(ts_diff_new(a, b, &o, &d, &err), TS_OK);
    const want_pair w2[] = {
        {TS_DIFF_EQUAL, "conv0_weight", "arg:conv0_weight", "conv0_weight"},
        {TS_DIFF_ONLY_B, "fc1_weight", NULL, "fc1_weight"},
        {TS_DIFF_ONLY_B, "fc2_weight", NULL, "fc2_weight"},
    };
    check_pairs(d, a, b, w2, sizeof w2 / sizeof *w2);
    ck_assert_uint_eq(ts_diff_duplicate_count(d), 1);
    unsigned side = 0;
    size_t index = 99;
    ck_assert_str_eq(ts_diff_duplicate_at(d, 0, &side, &index), "conv0_weight");
    ck_assert_uint_eq(side, TS_SIDE_A);
    ck_assert_str_eq(ts_model_array_name(a, index), "arg:fc1_weight");
    ts_diff_free(d);
    ts_namemap_free(nm);
    ts_model_close(a);
    ts_model_close(b);
}
END_TEST

/* Two files of one array each: one pair, whatever the names; values. */
START_TEST(test_diff_single_values)
{
    ts_model *a = open_model("tests/fixtures/values/diff/a.npz", 0);
    ts_model *b = open_model("tests/fixtures/values/diff/b.npz", 0);
    ts_diff *d;
    ts_error err;
    ck_assert_int_eq(ts_diff_new(a, b, NULL, &d, &err), TS_OK);
    /* the golden case diff/values */
    ck_assert_int_eq(ts_diff_totals_of(d)->different, 4);
    for (size_t i = 0; i < ts_diff_count(d); i++) {
        const ts_diff_pair *p = ts_diff_pair_at(d, i);
        ts_status st = ts_diff_compare_values(d, i, NULL, &err);
        if (strcmp(p->name, "text") == 0) {
            ck_assert_int_eq(st, TS_ERR_DTYPE);
            ck_assert_str_eq(err.message, "array 'text': cannot decode values of dtype str96");
            ck_assert_int_eq(err.index, 0);
            ck_assert_int_eq(p->values, TS_DIFF_VALUES_FAILED);
            ck_assert_int_eq(p->kind, TS_DIFF_DTYPE);
        } else {
            ck_assert_int_eq(st, TS_OK);
        }
        if (strcmp(p->name, "x") == 0) {
            ck_assert_int_eq(p->kind, TS_DIFF_VALUES);
            ck_assert_int_eq(p->compare.notclose, 3);
            ck_assert_int_eq(p->compare.first, 1);
            ck_assert_int_eq(p->compare.nan_b, 1);
        }
    }
    const ts_diff_totals *t = ts_diff_totals_of(d);
    ck_assert_int_eq(t->kinds[TS_DIFF_EQUAL], 2);
    ck_assert_int_eq(t->kinds[TS_DIFF_VALUES], 2);
    ck_assert_int_eq(t->changed, 2);
    ck_assert_int_eq(t->different, 6);
    ck_assert_int_eq(t->unreadable, 1);
    /* comparing again, with tolerances that make every pair close but x, whose
     * NaN in B has no NaN in A */
    ts_compare_options co = TS_COMPARE_OPTIONS_INIT;
    co.atol = 10;
    co.equal_nan = 1;
    for (size_t i = 0; i < ts_diff_count(d); i++)
        ts_diff_compare_values(d, i, &co, NULL);
    ck_assert_int_eq(t->kinds[TS_DIFF_VALUES], 1);
    ck_assert_int_eq(t->kinds[TS_DIFF_EQUAL], 3);
    ck_assert_int_eq(t->unreadable, 1);
    ck_assert_int_eq(t->different, 5);
    ts_diff_free(d);
    ts_model_close(a);
    ts_model_close(b);

    a = open_model("tests/fixtures/values/f4.npy", 0);
    b = open_model("tests/fixtures/values/f8_fortran.npy", 0);
    ck_assert_int_eq(ts_diff_new(a, b, NULL, &d, &err), TS_OK);
    ck_assert_int_eq(ts_diff_single(d), 1);
    ck_assert_uint_eq(ts_diff_count(d), 1);
    const ts_diff_pair *p = ts_diff_pair_at(d, 0);
    ck_assert_str_eq(p->name, "f4");
    ck_assert_str_eq(p->name_b, "f8_fortran");
    ck_assert_int_eq(p->kind, TS_DIFF_DTYPE_SHAPE); /* (8,) float32, (2,3) float64 */
    ts_diff_free(d);
    ts_model_close(a);
    ts_model_close(b);
}
END_TEST

/* Metadata: one entry per key the members agree on, per member otherwise. */
START_TEST(test_diff_metadata)
{
    ts_model *a = open_model("tests/fixtures/model/diffmeta/epoch2.pt", 1);
    ts_model *b = open_model("tests/fixtures/model/diffmeta/epoch3.pt", 1);
    ts_diff *d;
    ts_error err;
    ck_assert_int_eq(ts_diff_new(a, b, NULL, &d, &err), TS_OK);
    const char *want[][3] = {{"epoch", "2", "3"},
                             {"loss", "0.5", "0.25"},
                             {"args.name", "\"run\"", NULL},
                             {"args.seed", NULL, "7"}};
    ck_assert_uint_eq(ts_diff_metadata_count(d), 4);
    for (size_t i = 0; i < 4; i++) {
        const char *label, *va, *vb;
        ck_assert_int_eq(ts_diff_metadata_at(d, i, &label, &va, &vb), 1);
        ck_assert_str_eq(label, want[i][0]);
        ck_assert_pstr_eq(va, want[i][1]);
        ck_assert_pstr_eq(vb, want[i][2]);
    }
    ck_assert_int_eq(ts_diff_totals_of(d)->metadata_different, 4);
    ck_assert_int_eq(ts_diff_totals_of(d)->different, 0);
    ts_diff_free(d);
    ts_model_close(a);
    ts_model_close(b);

    a = open_model("tests/fixtures/model/diffmeta/shards", 1);
    b = open_model("tests/fixtures/model/diffmeta/shards2", 1);
    ck_assert_int_eq(ts_diff_new(a, b, NULL, &d, &err), TS_OK);
    const char *want2[][3] = {{"part0.safetensors: step", "\"10\"", NULL},
                              {"part1.safetensors: step", "\"11\"", NULL},
                              {"step", NULL, "\"12\""}};
    ck_assert_uint_eq(ts_diff_metadata_count(d), 3);
    for (size_t i = 0; i < 3; i++) {
        const char *label, *va, *vb;
        ck_assert_int_eq(ts_diff_metadata_at(d, i, &label, &va, &vb), 1);
        ck_assert_str_eq(label, want2[i][0]);
        ck_assert_pstr_eq(va, want2[i][1]);
        ck_assert_pstr_eq(vb, want2[i][2]);
    }
    ck_assert_str_eq(ts_model_file_label(a, 1), "part1.safetensors");
    ts_diff_free(d);
    ts_model_close(a);
    ts_model_close(b);
}
END_TEST

/* Across a GGUF conversion (tests/fixtures/qdiff, gen_qdiff.py): the names
 * of the side that is not GGUF become llama.cpp's, values are compared by
 * error metrics against it (the figures of expected.json, NumPy's), the
 * Q/K rows by heads, and the metrics are added up by dtype pair (the golden
 * case diff/gguf-conversion). */
START_TEST(test_diff_gguf)
{
    ts_model *a = open_model("tests/fixtures/qdiff/q8_0.gguf", 1);
    ts_model *b = open_model("tests/fixtures/qdiff/hf", 1);
    ts_diff *d;
    ts_error err;
    ck_assert_int_eq(ts_diff_new(a, b, NULL, &d, &err), TS_OK);
    ck_assert_int_eq(ts_diff_gguf_names(d), 1);
    ck_assert_uint_eq(ts_diff_count(d), 21);
    for (size_t i = 0; i < ts_diff_count(d); i++)
        ck_assert_int_eq(ts_diff_compare_values(d, i, NULL, &err), TS_OK);
    const ts_diff_pair *p = ts_diff_pair_at(d, 2), *k = ts_diff_pair_at(d, 3);
    ck_assert_str_eq(p->name, "blk.0.attn_q.weight");
    ck_assert_str_eq(k->name, "blk.0.attn_k.weight");
    ck_assert_str_eq(ts_model_array_name(b, p->b), "model.layers.0.self_attn.q_proj.weight");
    ck_assert_int_eq(p->kind, TS_DIFF_DTYPE); /* q8_0 and float16 */
    ck_assert_int_eq(p->by_metrics, 1);
    ck_assert_uint_eq(p->reference, TS_SIDE_B);
    ck_assert_int_eq(p->qk_heads, 4);
    ck_assert_int_eq(p->metrics.count, 4096);
    ck_assert_double_eq(p->metrics.max_abs, 0.015289306640625);
    ck_assert_double_eq_tol(p->metrics.rmse, 0.005541118331633893, 1e-15);
    ck_assert_double_eq_tol(p->metrics.cosine, 0.9999851131378291, 1e-14);
    ck_assert_int_eq(k->qk_heads, 2); /* attn_k: the key/value heads */
    ck_assert_uint_eq(ts_diff_metrics_group_count(d), 2);
    const ts_diff_metrics_group *g = ts_diff_metrics_group_at(d, 0);
    ck_assert_str_eq(g->label, "float16 -> q8_0");
    ck_assert_int_eq(g->tensors, 16);
    ck_assert_int_eq(g->count, 77824);
    ck_assert_double_eq(g->max_abs, 0.0174560546875);
    ck_assert_double_eq_tol(g->cosine_min, 0.9999843941424555, 1e-14);
    g = ts_diff_metrics_group_at(d, 1);
    ck_assert_str_eq(g->label, "float32 -> float32");
    ck_assert_int_eq(g->tensors, 5);
    ck_assert_double_eq(g->max_abs, 0);
    ck_assert_double_eq(g->nmse, 0);
    ck_assert_double_eq(g->cosine_min, 1);
    /* compared again: the groups are the same */
    ck_assert_int_eq(ts_diff_compare_values(d, 2, NULL, &err), TS_OK);
    ck_assert_uint_eq(ts_diff_metrics_group_count(d), 2);
    ck_assert_int_eq(ts_diff_metrics_group_at(d, 0)->tensors, 16);
    ck_assert_double_eq(ts_diff_metrics_group_at(d, 0)->max_abs, 0.0174560546875);
    const ts_diff_totals *t = ts_diff_totals_of(d);
    ck_assert_int_eq(t->kinds[TS_DIFF_DTYPE], 16);
    ck_assert_int_eq(t->kinds[TS_DIFF_EQUAL], 5);
    ts_diff_free(d);

    /* without the GGUF names nothing pairs up */
    ts_diff_options o = TS_DIFF_OPTIONS_INIT;
    o.gguf_names = 0;
    ck_assert_int_eq(ts_diff_new(a, b, &o, &d, &err), TS_OK);
    ck_assert_int_eq(ts_diff_gguf_names(d), 0);
    ck_assert_int_eq(ts_diff_totals_of(d)->kinds[TS_DIFF_ONLY_A], 21);
    ck_assert_int_eq(ts_diff_totals_of(d)->kinds[TS_DIFF_ONLY_B], 21);
    ts_diff_free(d);
    ts_model_close(a);
    ts_model_close(b);

    /* --metrics on two NumPy files: every pair but the complex one (isclose);
     * a string array's error names A */
    a = open_model("tests/fixtures/values/diff/a.npz", 0);
    b = open_model("tests/fixtures/values/diff/b.npz", 0);
    o.gguf_names = 1;
    o.metrics = 1;
    ck_assert_int_eq(ts_diff_new(a, b, &o, &d, &err), TS_OK);
    for (size_t i = 0; i < ts_diff_count(d); i++) {
        p = ts_diff_pair_at(d, i);
        ts_status st = ts_diff_compare_values(d, i, NULL, &err);
        if (strcmp(p->name, "text") == 0) {
            ck_assert_int_eq(st, TS_ERR_DTYPE);
            ck_assert_int_eq(err.index, 0);
            ck_assert_int_eq(p->values, TS_DIFF_VALUES_FAILED);
        } else if (strcmp(p->name, "c") == 0) {
            ck_assert_int_eq(p->by_metrics, 0);
            ck_assert_int_eq(p->compare.notclose, 1);
        } else if (strcmp(p->name, "x") == 0) {
            ck_assert_int_eq(p->by_metrics, 1);
            ck_assert_uint_eq(p->reference, TS_SIDE_A);
            ck_assert_double_eq(p->metrics.max_abs, 0.25);
            ck_assert_int_eq(p->metrics.nan, 1);
            ck_assert_int_eq(p->kind, TS_DIFF_VALUES);
        }
    }
    ck_assert_uint_eq(ts_diff_metrics_group_count(d), 3);
    ck_assert_str_eq(ts_diff_metrics_group_at(d, 2)->label, "float64 -> float32");
    ts_diff_free(d);
    ts_model_close(a);
    ts_model_close(b);
}
END_TEST

Suite *tensordiff_suite(void)
{
    Suite *s = suite_create("tensordiff");
    TCase *tc = tcase_create("names");
    tcase_add_test(tc, test_selected);
    tcase_add_test(tc, test_namemap);
    tcase_add_test(tc, test_rename_text);
    suite_add_tcase(s, tc);
    tc = tcase_create("diff");
    tcase_add_test(tc, test_diff_kinds);
    tcase_add_test(tc, test_diff_single_values);
    tcase_add_test(tc, test_diff_metadata);
    tcase_add_test(tc, test_diff_gguf);
    suite_add_tcase(s, tc);
    return s;
}
