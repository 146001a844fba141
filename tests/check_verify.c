/*
 * check_verify.c - ts_verify_path on the incidents of
 * tests/fixtures/verify/ (gen_verify.py): each fixture's verdict, and its
 * problems with their checks, classes, files, numbers and messages; the
 * deep pass (CRC-32s, NaN/Inf) on torch.save, np.savez and a file cut or
 * changed here; names of classes and checks; the options.
 */
#define TS_EXPERIMENTAL_API
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#define V "tests/fixtures/verify/"

/* One expected problem (message NULL: not compared). */
typedef struct want {
    ts_verify_check check;
    ts_verify_class cls;
    const char *path, *name;
    int64_t expected, actual;
    const char *message;
} want;

static const struct {
    const char *path;
    int deep;
    ts_verify_class verdict;
    int64_t files, tensors, nbytes;
    size_t n;
    want w[2];
} cases[] = {
    {V "ok", 0, TS_VERIFY_OK, 2, 12, 2304, 0, {{0}}},
    {"tests/fixtures/model/hf-bin", 1, TS_VERIFY_OK, 2, 12, 2304, 0, {{0}}},
    {V "bin", 1, TS_VERIFY_OK, 2, 5, 216, 0, {{0}}},
    {"tests/fixtures/model/missing", 0, TS_VERIFY_INCOMPLETE, 1, 7, 1344, 1,
     {{TS_VERIFY_MISSING, TS_VERIFY_INCOMPLETE,
       "tests/fixtures/model/missing/model-00002-of-00002.safetensors", NULL, -1, -1,
       NULL}}},
    {V "short", 0, TS_VERIFY_INCOMPLETE, 1, 7, 1344, 1,
     {{TS_VERIFY_SHORT, TS_VERIFY_INCOMPLETE, V "short/model-00002-of-00002.safetensors", NULL,
       -1, 1300,
       "'" V "short/model-00002-of-00002.safetensors' is shorter than its header says: tensor "
       "'lm_head.weight' data_offsets [448, 960] end at file byte 1400, but the file has 1300 "
       "bytes (100 missing)"}}},
    {V "empty", 0, TS_VERIFY_INCOMPLETE, 1, 7, 1344, 1,
     {{TS_VERIFY_EMPTY, TS_VERIFY_INCOMPLETE, V "empty/model-00002-of-00002.safetensors", NULL,
       -1, 0, NULL}}},
    {V "lfs", 0, TS_VERIFY_INCOMPLETE, 1, 7, 1344, 1,
     {{TS_VERIFY_LFS_POINTER, TS_VERIFY_INCOMPLETE, V "lfs/model-00002-of-00002.safetensors",
       NULL, 1400, 129,
       "'" V "lfs/model-00002-of-00002.safetensors' is a Git LFS pointer (129 bytes) to a file "
       "of 1400 bytes, not the file: the repository was cloned without git-lfs (git lfs pull "
       "fetches it)"}}},
    {V "noindex-lfs", 0, TS_VERIFY_INCOMPLETE, 0, 0, 0, 1,
     {{TS_VERIFY_LFS_POINTER, TS_VERIFY_INCOMPLETE, V "noindex-lfs/model.safetensors", NULL,
       2304, 129, NULL}}},
    {V "partial", 0, TS_VERIFY_INCOMPLETE, 2, 12, 2304, 1,
     {{TS_VERIFY_PARTIAL, TS_VERIFY_INCOMPLETE,
       V "partial/.cache/huggingface/download/tokenizer.json.9f86d081.incomplete", NULL, -1, 25,
       "'" V "partial/.cache/huggingface/download/tokenizer.json.9f86d081.incomplete' is a "
       "partial download huggingface_hub left (25 bytes): the download of 'tokenizer.json' did "
       "not finish"}}},
    {V "series", 0, TS_VERIFY_INCOMPLETE, 2, 8, 1760, 1,
     {{TS_VERIFY_MISSING, TS_VERIFY_INCOMPLETE, V "series/model-00002-of-00003.safetensors",
       NULL, -1, -1, NULL}}},
    {V "extra_entry", 0, TS_VERIFY_INCONSISTENT, 2, 12, 2304, 1,
     {{TS_VERIFY_INDEX_EXTRA, TS_VERIFY_INCONSISTENT, NULL, "model.layers.3.mlp.up_proj.weight",
       -1, -1,
       "tensor 'model.layers.3.mlp.up_proj.weight' is in the index but in no shard (the index "
       "says 'model-00002-of-00002.safetensors')"}}},
    {V "unindexed", 0, TS_VERIFY_INCONSISTENT, 2, 13, 2320, 1,
     {{TS_VERIFY_UNINDEXED, TS_VERIFY_INCONSISTENT, V "unindexed/model-00002-of-00002.safetensors",
       "model.rotary_emb.inv_freq", -1, -1, NULL}}},
    {V "duplicate", 0, TS_VERIFY_INCONSISTENT, 2, 12, 2304, 1,
     {{TS_VERIFY_DUPLICATE, TS_VERIFY_INCONSISTENT, V "duplicate/model-00002-of-00002.safetensors",
       "model.layers.0.self_attn.q_proj.weight", -1, -1, NULL}}},
    {V "total_size", 0, TS_VERIFY_INCONSISTENT, 2, 12, 2304, 1,
     {{TS_VERIFY_TOTAL_SIZE, TS_VERIFY_INCONSISTENT, V "total_size/model.safetensors.index.json",
       NULL, 2312, 2304,
       "index '" V "total_size/model.safetensors.index.json' says metadata.total_size 2312, but "
       "the tensors it names hold 2304 bytes (-8)"}}},
    {V "trailing.npy", 0, TS_VERIFY_CORRUPT, 1, 1, 24, 1,
     {{TS_VERIFY_LONG, TS_VERIFY_CORRUPT, V "trailing.npy", NULL, 152, 168,
       "'" V "trailing.npy' has 16 trailing bytes: its headers account for 152 bytes, the file "
       "has 168"}}},
    {V "trailing.npz", 0, TS_VERIFY_CORRUPT, 1, 1, 24, 1,
     {{TS_VERIFY_LONG, TS_VERIFY_CORRUPT, V "trailing.npz", NULL, 280, 296, NULL}}},
    {V "trailing.pt", 0, TS_VERIFY_CORRUPT, 1, 1, 12, 1,
     {{TS_VERIFY_LONG, TS_VERIFY_CORRUPT, V "trailing.pt", NULL, 750, 766, NULL}}},
    {V "trailing.gguf", 0, TS_VERIFY_CORRUPT, 1, 2, 116, 1,
     {{TS_VERIFY_LONG, TS_VERIFY_CORRUPT, V "trailing.gguf", NULL, 352, 452, NULL}}},
    {V "trailing.h5", 0, TS_VERIFY_CORRUPT, 1, 1, 24, 1,
     {{TS_VERIFY_LONG, TS_VERIFY_CORRUPT, V "trailing.h5", NULL, 4752, 4768, NULL}}},
    {V "short.gguf", 0, TS_VERIFY_INCOMPLETE, 1, 0, 0, 1,
     {{TS_VERIFY_SHORT, TS_VERIFY_INCOMPLETE, V "short.gguf", NULL, -1, 312, NULL}}},
    /* headers only: the changed byte is not seen */
    {V "badcrc.pt", 0, TS_VERIFY_OK, 1, 1, 256, 0, {{0}}},
    {V "badcrc.pt", 1, TS_VERIFY_CORRUPT, 1, 1, 256, 1,
     {{TS_VERIFY_CRC, TS_VERIFY_CORRUPT, V "badcrc.pt", "badcrc/data/0", 0xfb8c2d28,
       0xb9dca580,
       "'" V "badcrc.pt': zip member 'badcrc/data/0' (256 bytes at byte 320, tensor 'w') has "
       "CRC-32 b9dca580, its central directory entry says fb8c2d28"}}},
    {V "badcrc.npz", 1, TS_VERIFY_CORRUPT, 1, 2, 424, 1,
     {{TS_VERIFY_CRC, TS_VERIFY_CORRUPT, V "badcrc.npz", "a.npy", 0x764876bb, 0x5fce0313,
       NULL}}},
    {V "nonfinite.pt", 1, TS_VERIFY_OK, 1, 3, 72, 2,
     {{TS_VERIFY_NONFINITE, TS_VERIFY_OK, V "nonfinite.pt", "x", 1, 1,
       "'" V "nonfinite.pt': tensor 'x' (float32) holds 1 NaN and 1 infinite values"},
      {TS_VERIFY_NONFINITE, TS_VERIFY_OK, V "nonfinite.pt", "y", 1, 0, NULL}}},
};

static void check_problem(const char *label, const ts_verify_problem *p, const want *w)
{
    ck_assert_msg(p->check == w->check, "%s: check %s, expected %s (%s)", label,
                  ts_verify_check_name(p->check), ts_verify_check_name(w->check), p->message);
    ck_assert_msg(p->cls == w->cls, "%s: class %s", label, ts_verify_class_name(p->cls));
    if (w->path)
        ck_assert_str_eq(p->path, w->path);
    else
        ck_assert_ptr_null(p->path);
    if (w->name)
        ck_assert_str_eq(p->name, w->name);
    else
        ck_assert_ptr_null(p->name);
    ck_assert_msg(p->expected == w->expected && p->actual == w->actual,
                  "%s: expected/actual %lld/%lld", label, (long long)p->expected,
                  (long long)p->actual);
    if (w->message)
        ck_assert_str_eq(p->message, w->message);
}

START_TEST(test_incidents)
{
    ts_verify_options o = TS_VERIFY_OPTIONS_INIT;
    o.deep = cases[_i].deep;
    ts_verify *v = NULL;
    ts_error err;
    ts_status st = ts_verify_path(cases[_i].path, &o, &v, &err);
    ck_assert_msg(st == TS_OK, "%s: %s", cases[_i].path, err.message);
    ck_assert_msg(ts_verify_verdict(v) == cases[_i].verdict, "%s: verdict %s", cases[_i].path,
                  ts_verify_class_name(ts_verify_verdict(v)));
    ck_assert_msg(ts_verify_problem_count(v) == cases[_i].n, "%s: %zu problems, first: %s",
                  cases[_i].path, ts_verify_problem_count(v),
                  ts_verify_problem_count(v) ? ts_verify_problem_at(v, 0)->message : "");
    for (size_t i = 0; i < cases[_i].n; i++)
        check_problem(cases[_i].path, ts_verify_problem_at(v, i), &cases[_i].w[i]);
    const ts_verify_totals *t = ts_verify_totals_of(v);
    ck_assert_int_eq(t->files, cases[_i].files);
    ck_assert_int_eq(t->tensors, cases[_i].tensors);
    ck_assert_int_eq(t->nbytes, cases[_i].nbytes);
    ck_assert_int_eq(t->deep, cases[_i].deep);
    size_t errors = 0;
    for (size_t i = 0; i < ts_verify_problem_count(v); i++)
        errors += ts_verify_problem_at(v, i)->cls != TS_VERIFY_OK;
    ck_assert_uint_eq(ts_verify_error_count(v), errors);
    ts_verify_free(v);
}
END_TEST

/* The deep pass's numbers: every zip member's CRC checked, the bytes read. */
START_TEST(test_deep_totals)
{
    ts_verify_options o = TS_VERIFY_OPTIONS_INIT;
    o.deep = 1;
    o.nthreads = 3;
    ts_verify *v = NULL;
    ck_assert_int_eq(ts_verify_path(V "ok", &o, &v, NULL), TS_OK);
    const ts_verify_totals *t = ts_verify_totals_of(v);
    ck_assert_int_eq(t->crc_checked, 0);
    ck_assert_int_eq(t->data_bytes, 2304);
    ck_assert_int_eq(t->length_checked, 2);
    ck_assert_int_eq(t->length_unchecked, 0);
    ck_assert_int_eq(t->file_bytes, 2008 + 1400);
    ts_verify_free(v);
    /* np.savez: stored members, each one region with its CRC */
    ck_assert_int_eq(ts_verify_path(V "badcrc.npz", &o, &v, NULL), TS_OK);
    t = ts_verify_totals_of(v);
    ck_assert_int_eq(t->crc_checked, 2);
    ts_verify_free(v);
    /* ONNX: one protobuf message, no length of its own */
    ck_assert_int_eq(ts_verify_path("tests/fixtures/onnx/good_external.onnx", &o, &v, NULL),
                     TS_OK);
    t = ts_verify_totals_of(v);
    ck_assert_int_eq(ts_verify_verdict(v), TS_VERIFY_OK);
    ck_assert_int_eq(t->length_unchecked, 1);
    ck_assert_int_eq(t->data_bytes, t->nbytes);
    ts_verify_free(v);
}
END_TEST

/* A file cut or grown under the test: the reader's refusal is a result. */
START_TEST(test_single_files)
{
    char path[] = "/tmp/tshape-check-verify-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    size_t len;
    unsigned char *data = tu_read_file("examples/model.safetensors", &len);
    ck_assert_ptr_nonnull(data);
    ck_assert_int_eq(write(fd, data, len - 8), (ssize_t)(len - 8));
    close(fd);
    ts_verify *v = NULL;
    ck_assert_int_eq(ts_verify_path(path, NULL, &v, NULL), TS_OK);
    ck_assert_int_eq(ts_verify_verdict(v), TS_VERIFY_INCOMPLETE);
    ck_assert_int_eq(ts_verify_problem_at(v, 0)->check, TS_VERIFY_SHORT);
    ts_verify_free(v);
    /* safetensors refuses trailing bytes itself: an invalid file */
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fwrite(data, 1, len, f);
    fwrite("xx", 1, 2, f);
    fclose(f);
    ck_assert_int_eq(ts_verify_path(path, NULL, &v, NULL), TS_OK);
    ck_assert_int_eq(ts_verify_verdict(v), TS_VERIFY_CORRUPT);
    ck_assert_int_eq(ts_verify_problem_at(v, 0)->check, TS_VERIFY_INVALID);
    ck_assert_ptr_nonnull(strstr(ts_verify_problem_at(v, 0)->message, "2 trailing bytes"));
    ts_verify_free(v);
    /* an empty file */
    f = fopen(path, "wb");
    fclose(f);
    ck_assert_int_eq(ts_verify_path(path, NULL, &v, NULL), TS_OK);
    ck_assert_int_eq(ts_verify_verdict(v), TS_VERIFY_INCOMPLETE);
    ck_assert_int_eq(ts_verify_problem_at(v, 0)->check, TS_VERIFY_EMPTY);
    ts_verify_free(v);
    unlink(path);
    free(data);
    /* nothing at the path: an error, no result */
    ts_error err;
    ck_assert_int_eq(ts_verify_path(path, NULL, &v, &err), TS_ERR_IO);
    ck_assert_ptr_null(v);
    ck_assert_int_eq(strncmp(err.message, "cannot open: ", 13), 0);
}
END_TEST

START_TEST(test_names)
{
    ck_assert_str_eq(ts_verify_class_name(TS_VERIFY_OK), "ok");
    ck_assert_str_eq(ts_verify_class_name(TS_VERIFY_INCONSISTENT), "inconsistent");
    ck_assert_str_eq(ts_verify_class_name(TS_VERIFY_CORRUPT), "corrupt");
    ck_assert_str_eq(ts_verify_class_name(TS_VERIFY_INCOMPLETE), "incomplete");
    ck_assert_str_eq(ts_verify_class_name(TS_VERIFY_UNREADABLE), "unreadable");
    ck_assert_str_eq(ts_verify_class_name((ts_verify_class)5), "unknown");
    ck_assert_str_eq(ts_verify_class_text(TS_VERIFY_INCOMPLETE), "incomplete download");
    ck_assert_str_eq(ts_verify_class_text(TS_VERIFY_INCONSISTENT), "inconsistent checkpoint");
    ck_assert_str_eq(ts_verify_class_text((ts_verify_class)-1), "unknown");
    ck_assert_str_eq(ts_verify_check_name(TS_VERIFY_MISSING), "missing");
    ck_assert_str_eq(ts_verify_check_name(TS_VERIFY_LFS_POINTER), "lfs_pointer");
    ck_assert_str_eq(ts_verify_check_name(TS_VERIFY_UNREADABLE_FILE), "unreadable");
    ck_assert_str_eq(ts_verify_check_name(TS_VERIFY_NOTE), "note");
    ck_assert_str_eq(ts_verify_check_name((ts_verify_check)0), "unknown");
    ck_assert_str_eq(ts_verify_check_name((ts_verify_check)(TS_VERIFY_CHECK_MAX + 1)),
                     "unknown");
}
END_TEST

START_TEST(test_options)
{
    ts_verify *v = (ts_verify *)1;
    ts_error err;
    ts_verify_options o = TS_VERIFY_OPTIONS_INIT;
    o.deep = 2;
    ck_assert_int_eq(ts_verify_path(V "ok", &o, &v, &err), TS_ERR_INVALID_ARG);
    ck_assert_ptr_null(v);
    ck_assert_str_eq(err.message, "ts_verify_path: opts->deep is 2, not 0 or 1");
    o.deep = 0;
    o.nthreads = -1;
    ck_assert_int_eq(ts_verify_path(V "ok", &o, &v, &err), TS_ERR_INVALID_ARG);
    o.nthreads = 0;
    o.struct_size = 8;
    ck_assert_int_eq(ts_verify_path(V "ok", &o, &v, &err), TS_ERR_INVALID_ARG);
    ck_assert_int_eq(ts_verify_path(NULL, NULL, &v, &err), TS_ERR_INVALID_ARG);
    ck_assert_int_eq(ts_verify_path(V "ok", NULL, NULL, &err), TS_ERR_INVALID_ARG);
    ck_assert_int_eq(ts_verify_verdict(NULL), TS_VERIFY_OK);
    ck_assert_uint_eq(ts_verify_problem_count(NULL), 0);
    ck_assert_uint_eq(ts_verify_error_count(NULL), 0);
    ck_assert_ptr_null(ts_verify_problem_at(NULL, 0));
    ck_assert_ptr_null(ts_verify_totals_of(NULL));
    ts_verify_free(NULL);
}
END_TEST

Suite *verify_suite(void)
{
    Suite *s = suite_create("verify");
    TCase *tc = tcase_create("incidents");
    tcase_add_loop_test(tc, test_incidents, 0, (int)(sizeof cases / sizeof *cases));
    tcase_add_test(tc, test_deep_totals);
    tcase_add_test(tc, test_single_files);
    suite_add_tcase(s, tc);
    tc = tcase_create("api");
    tcase_add_test(tc, test_names);
    tcase_add_test(tc, test_options);
    suite_add_tcase(s, tc);
    return s;
}
