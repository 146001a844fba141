/*
 * check_model.c - ts_model on the fixtures of tests/fixtures/gen_model.py:
 * a sharded safetensors folder with its index, the same model as sharded
 * PyTorch .bin files, a missing shard, an index
 * with every kind of inconsistency, a folder of mixed formats without an
 * index (flat and recursive), the order of a folder's members, single
 * files, and that the number of threads never changes the result.
 */
#define TS_EXPERIMENTAL_API
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#define DIR "tests/fixtures/model/"

static ts_model *open_model(const char *path, int recursive, int threads)
{
    ts_model_options o = TS_MODEL_OPTIONS_INIT;
    ts_model *m = NULL;
    ts_error err;
    o.recursive = recursive;
    o.threads = threads;
    ts_status st = ts_model_open(path, &o, &m, &err);
    ck_assert_msg(st == TS_OK, "%s: %s", path, st ? err.message : "");
    return m;
}

/* "name@member-basename" for each tensor, joined with spaces. */
static void listing(const ts_model *m, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < ts_model_count(m); i++) {
        size_t f;
        ck_assert_ptr_nonnull(ts_model_array(m, i, &f));
        const char *p = strrchr(ts_model_file_path(m, f), '/');
        len += (size_t)snprintf(buf + len, cap - len, "%s%s@%s", i ? " " : "",
                                ts_model_array_name(m, i), p ? p + 1 : ts_model_file_path(m, f));
        ck_assert_uint_lt(len, cap);
    }
}

static void issues(const ts_model *m, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < ts_model_issue_count(m); i++) {
        const ts_model_issue *is = ts_model_issue_at(m, i);
        len += (size_t)snprintf(buf + len, cap - len, "%s%s %d: %s", i ? "\n" : "",
                                is->is_error ? "error" : "warning", (int)is->kind, is->message);
        ck_assert_uint_lt(len, cap);
    }
}

START_TEST(test_sharded)
{
    char buf[4096];
    ts_model *m = open_model(DIR "hf", 0, 0);
    ck_assert_str_eq(ts_model_index(m), DIR "hf/model.safetensors.index.json");
    ck_assert_uint_eq(ts_model_file_count(m), 2);
    ck_assert_uint_eq(ts_model_count(m), 12);
    ck_assert_uint_eq(ts_model_issue_count(m), 0);
    ck_assert_uint_eq(ts_model_error_count(m), 0);
    listing(m, buf, sizeof buf);
    ck_assert_str_eq(buf,
                     "model.embed_tokens.weight@model-00001-of-00002.safetensors "
                     "model.layers.0.input_layernorm.weight@model-00001-of-00002.safetensors "
                     "model.layers.0.mlp.up_proj.weight@model-00001-of-00002.safetensors "
                     "model.layers.0.self_attn.q_proj.weight@model-00001-of-00002.safetensors "
                     "model.layers.1.input_layernorm.weight@model-00001-of-00002.safetensors "
                     "model.layers.1.mlp.up_proj.weight@model-00001-of-00002.safetensors "
                     "model.layers.1.self_attn.q_proj.weight@model-00001-of-00002.safetensors "
                     "lm_head.weight@model-00002-of-00002.safetensors "
                     "model.layers.2.input_layernorm.weight@model-00002-of-00002.safetensors "
                     "model.layers.2.mlp.up_proj.weight@model-00002-of-00002.safetensors "
                     "model.layers.2.self_attn.q_proj.weight@model-00002-of-00002.safetensors "
                     "model.norm.weight@model-00002-of-00002.safetensors");
    ts_model_close(m);

    /* the index file itself opens the same model */
    char again[4096];
    m = open_model(DIR "hf/model.safetensors.index.json", 0, 1);
    listing(m, again, sizeof again);
    ck_assert_str_eq(again, buf);
    ts_model_close(m);
}
END_TEST

/* The same model as sharded PyTorch .bin files: same tensors, shard order. */
START_TEST(test_sharded_pytorch)
{
    ts_model *m = open_model(DIR "hf-bin", 0, 0);
    ck_assert_str_eq(ts_model_index(m), DIR "hf-bin/pytorch_model.bin.index.json");
    ck_assert_uint_eq(ts_model_file_count(m), 2);
    ck_assert_uint_eq(ts_model_count(m), 12);
    ck_assert_uint_eq(ts_model_issue_count(m), 0);
    ck_assert_int_eq(ts_file_format(ts_model_file(m, 0)), TS_FORMAT_PYTORCH);
    size_t f;
    const ts_array *a = ts_model_array(m, 11, &f);
    ck_assert_str_eq(a->name, "lm_head.weight");
    ck_assert_int_eq(a->dtype, TS_DTYPE_BFLOAT16);
    ck_assert_uint_eq(f, 1);
    ts_model_close(m);
}
END_TEST

START_TEST(test_missing_shard)
{
    char buf[4096];
    ts_model *m = open_model(DIR "missing", 0, 0);
    ck_assert_uint_eq(ts_model_file_count(m), 1);
    ck_assert_uint_eq(ts_model_count(m), 7);
    ck_assert_uint_eq(ts_model_error_count(m), 1);
    issues(m, buf, sizeof buf);
    ck_assert_str_eq(buf, "error 1: shard '" DIR "missing/model-00002-of-00002.safetensors' "
                          "is missing");
    const ts_model_issue *is = ts_model_issue_at(m, 0);
    ck_assert_int_eq(is->kind, TS_MODEL_SHARD_MISSING);
    ck_assert_ptr_null(is->name);
    ck_assert_str_eq(is->path, DIR "missing/model-00002-of-00002.safetensors");
    ts_model_close(m);
}
END_TEST

START_TEST(test_broken_index)
{
    char buf[4096];
    ts_model *m = open_model(DIR "broken", 0, 0);
    listing(m, buf, sizeof buf);
    ck_assert_str_eq(buf, "dup@a-00001-of-00002.safetensors moved@a-00001-of-00002.safetensors "
                          "w0@a-00001-of-00002.safetensors extra@a-00002-of-00002.safetensors "
                          "w1@a-00002-of-00002.safetensors");
    ck_assert_uint_eq(ts_model_error_count(m), 2);
    issues(m, buf, sizeof buf);
    ck_assert_str_eq(
        buf,
        "warning 5: tensor 'moved' is in '" DIR "broken/a-00001-of-00002.safetensors', the "
        "index says 'a-00002-of-00002.safetensors'\n"
        "error 4: tensor 'dup' is in '" DIR "broken/a-00001-of-00002.safetensors' and again in '"
        DIR "broken/a-00002-of-00002.safetensors'\n"
        "warning 6: tensor 'extra' in '" DIR "broken/a-00002-of-00002.safetensors' is not in the "
        "index\n"
        "error 3: tensor 'gone' is in the index but in no shard (the index says "
        "'a-00002-of-00002.safetensors')\n"
        "warning 7: '" DIR "broken/a-old.safetensors' is not named by the index");
    ts_model_close(m);
}
END_TEST

START_TEST(test_folder)
{
    char buf[4096];
    ts_model *m = open_model(DIR "mixed", 0, 0);
    ck_assert_ptr_null(ts_model_index(m));
    listing(m, buf, sizeof buf);
    ck_assert_str_eq(buf, "embed@embed.npy head.bias@head.safetensors "
                          "head.weight@head.safetensors");
    ck_assert_int_eq(ts_file_format(ts_model_file(m, 0)), TS_FORMAT_NPY);
    ck_assert_int_eq(ts_file_format(ts_model_file(m, 1)), TS_FORMAT_SAFETENSORS);
    /* its subfolder is not read, and that is said (issue 20 item 20) */
    issues(m, buf, sizeof buf);
    ck_assert_str_eq(buf, "warning 9: 1 subfolder is not read (first 'sub'): the folder is "
                          "read without its subfolders");
    ck_assert_str_eq(ts_model_issue_at(m, 0)->path, DIR "mixed/sub");
    ck_assert_uint_eq(ts_model_other_file_count(m), 1);
    ck_assert_str_eq(ts_model_other_file(m, 0), DIR "mixed/config.json");
    ts_model_close(m);
    /* the external data of an ONNX member is part of the model */
    m = open_model("tests/fixtures/onnx", 0, 0);
    for (size_t i = 0; i < ts_model_other_file_count(m); i++)
        ck_assert_msg(!strstr(ts_model_other_file(m, i), "good_external.bin"), "%s",
                      ts_model_other_file(m, i));
    ck_assert_uint_gt(ts_model_count(m), 0);
    ts_model_close(m);
    m = open_model(DIR "mixed/embed.npy", 0, 0); /* a file: none */
    ck_assert_uint_eq(ts_model_other_file_count(m), 0);
    ck_assert_ptr_null(ts_model_other_file(m, 0));
    ts_model_close(m);

    m = open_model(DIR "mixed/", 1, 0);
    ck_assert_uint_eq(ts_model_issue_count(m), 0);
    listing(m, buf, sizeof buf);
    ck_assert_str_eq(buf, "embed@embed.npy head.bias@head.safetensors "
                          "head.weight@head.safetensors step@opt.npz lr@opt.npz");
    ck_assert_str_eq(ts_model_file_path(m, 2), DIR "mixed/sub/opt.npz");
    ts_model_close(m);

    /* one file: a model of one member, the stem naming an unnamed array */
    m = open_model(DIR "mixed/embed.npy", 0, 0);
    ck_assert_uint_eq(ts_model_count(m), 1);
    ck_assert_str_eq(ts_model_array_name(m, 0), "embed");
    ck_assert_str_eq(ts_model_array(m, 0, NULL)->name, "");
    ts_model_close(m);
}
END_TEST

/* Issue 20 item 21: without an index, a member that repeats the names of
 * another is a warning naming both (tests/fixtures/gen_folders.py); every
 * tensor is still listed. A folder whose members share no name has none. */
START_TEST(test_repeated_names)
{
    char buf[4096];
    ts_model *m = open_model("tests/fixtures/folders/unrelated", 0, 0);
    listing(m, buf, sizeof buf);
    ck_assert_str_eq(buf, "fc.bias@run1.safetensors fc.weight@run1.safetensors "
                          "fc.bias@run2.safetensors fc.weight@run2.safetensors");
    issues(m, buf, sizeof buf);
    ck_assert_str_eq(buf, "warning 8: 'run2.safetensors' repeats 2 tensor names of "
                          "'run1.safetensors' (first 'fc.bias'), and there is no index: these "
                          "look like separate checkpoints, not shards of one model");
    const ts_model_issue *is = ts_model_issue_at(m, 0);
    ck_assert_int_eq(is->kind, TS_MODEL_NAME_REPEATED);
    ck_assert_str_eq(is->path, "tests/fixtures/folders/unrelated/run2.safetensors");
    ck_assert_str_eq(is->name, "fc.bias");
    ck_assert_uint_eq(ts_model_error_count(m), 0);
    ts_model_close(m);
    m = open_model(DIR "mixed", 1, 0);
    ck_assert_uint_eq(ts_model_issue_count(m), 0);
    ts_model_close(m);
}
END_TEST

/* Issue 20 item 18: with metadata asked for, a folder's config.json
 * entries, its index's metadata and its shards' metadata, each pair once
 * (tests/fixtures/gen_folders.py); none without; a config.json that is not
 * JSON is a warning. */
START_TEST(test_model_metadata)
{
    ts_open_options fo = TS_OPEN_OPTIONS_INIT;
    ts_model_options o = TS_MODEL_OPTIONS_INIT;
    ts_model *m = NULL;
    ts_error err;
    fo.want_metadata = 1;
    o.open = &fo;
    ck_assert_int_eq(ts_model_open("tests/fixtures/folders/llama", &o, &m, &err), TS_OK);
    ck_assert_uint_eq(ts_model_metadata_count(m), 19);
    const ts_model_meta *e = ts_model_metadata_at(m, 0);
    ck_assert_int_eq(e->source, TS_MODEL_META_CONFIG);
    ck_assert_str_eq(e->path, "tests/fixtures/folders/llama/config.json");
    ck_assert_str_eq(e->key, "architectures");
    ck_assert_str_eq(e->value, "[\"LlamaForCausalLM\"]"); /* compacted */
    ck_assert_uint_eq(e->files, 1);
    e = ts_model_metadata_at(m, 7);
    ck_assert_str_eq(e->key, "model_type");
    ck_assert_str_eq(e->value, "\"llama\"");
    e = ts_model_metadata_at(m, 17);
    ck_assert_int_eq(e->source, TS_MODEL_META_INDEX);
    ck_assert_str_eq(e->key, "total_size");
    ck_assert_str_eq(e->value, "688");
    e = ts_model_metadata_at(m, 18);
    ck_assert_int_eq(e->source, TS_MODEL_META_MEMBER);
    ck_assert_str_eq(e->key, "format");
    ck_assert_str_eq(e->value, "\"pt\"");
    ck_assert_uint_eq(e->files, 3);
    ck_assert_str_eq(e->path, "tests/fixtures/folders/llama/model-00001-of-00003.safetensors");
    ck_assert_ptr_null(ts_model_metadata_at(m, 19));
    /* the files that hold no tensors (item 19: convert copies them) */
    char files[1024] = "";
    for (size_t i = 0; i < ts_model_other_file_count(m); i++)
        snprintf(files + strlen(files), sizeof files - strlen(files), "%s%s", i ? " " : "",
                 ts_model_other_file(m, i) + strlen("tests/fixtures/folders/llama/"));
    ck_assert_str_eq(files, "README.md config.json generation_config.json "
                            "special_tokens_map.json tokenizer.json tokenizer_config.json");
    ts_model_close(m);
    /* the same through the index; without metadata asked for, none */
    ck_assert_int_eq(ts_model_open("tests/fixtures/folders/llama/model.safetensors.index.json",
                                   &o, &m, &err), TS_OK);
    ck_assert_uint_eq(ts_model_metadata_count(m), 19);
    ts_model_close(m);
    m = open_model("tests/fixtures/folders/llama", 0, 0);
    ck_assert_uint_eq(ts_model_metadata_count(m), 0);
    ts_model_close(m);
    /* two unrelated checkpoints: their one key and value, held by both */
    ck_assert_int_eq(ts_model_open("tests/fixtures/folders/unrelated", &o, &m, &err), TS_OK);
    ck_assert_uint_eq(ts_model_metadata_count(m), 1);
    ck_assert_uint_eq(ts_model_metadata_at(m, 0)->files, 2);
    ts_model_close(m);
    /* a config.json that is not JSON */
    char dir[] = "/tmp/tshape-model-XXXXXX", path[256];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/config.json", dir);
    FILE *fp = fopen(path, "w");
    fputs("{\"model_type\": \"llama\",\n \"x\": }\n", fp);
    fclose(fp);
    ck_assert_int_eq(ts_model_open(dir, &o, &m, &err), TS_OK);
    ck_assert_uint_eq(ts_model_metadata_count(m), 1); /* the entry before the error */
    char buf[1024], want[1024];
    issues(m, buf, sizeof buf);
    snprintf(want, sizeof want, "warning 10: '%s' is not read: unexpected token near '}' "
             "(line 2)", path);
    ck_assert_str_eq(buf, want);
    ts_model_close(m);
    unlink(path);
    rmdir(dir);
}
END_TEST

/* A folder's members in strcmp order of their names (the listing sorts by
 * the first 8 bytes as numbers, strcmp on a tie): names shorter than 8
 * bytes, equal up to 8, differing after 8, bytes over 0x7f, upper case. */
START_TEST(test_folder_order)
{
    static const char *const names[] = {
        "abcdefgh0", "\xc3\xa9t\xc3\xa9", "a", "abcdefgg", "B", "abcdefgh", "ab",
        "abcdefgh\xc3\xa9", "abcdefghA", "_x", "a.b", "xxxxxxxxxxxxxxxxxxxy",
        "xxxxxxxxxxxxxxxxxxxx", "xxxxxxxx", "abcdefghi"};
    static const char want[] =
        "B@B.npy _x@_x.npy a.b@a.b.npy a@a.npy ab@ab.npy abcdefgg@abcdefgg.npy "
        "abcdefgh@abcdefgh.npy abcdefgh0@abcdefgh0.npy abcdefghA@abcdefghA.npy "
        "abcdefghi@abcdefghi.npy abcdefgh\xc3\xa9@abcdefgh\xc3\xa9.npy "
        "xxxxxxxx@xxxxxxxx.npy xxxxxxxxxxxxxxxxxxxx@xxxxxxxxxxxxxxxxxxxx.npy "
        "xxxxxxxxxxxxxxxxxxxy@xxxxxxxxxxxxxxxxxxxy.npy "
        "\xc3\xa9t\xc3\xa9@\xc3\xa9t\xc3\xa9.npy";
    size_t len;
    unsigned char *npy = tu_read_file(DIR "mixed/embed.npy", &len);
    char dir[] = "/tmp/tshape-order-XXXXXX", path[256], buf[4096];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        snprintf(path, sizeof path, "%s/%s.npy", dir, names[i]);
        FILE *fp = fopen(path, "wb");
        ck_assert_ptr_nonnull(fp);
        ck_assert_uint_eq(fwrite(npy, 1, len, fp), len);
        fclose(fp);
    }
    ts_model *m = open_model(dir, 0, 1);
    listing(m, buf, sizeof buf);
    ck_assert_str_eq(buf, want);
    ts_model_close(m);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        snprintf(path, sizeof path, "%s/%s.npy", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
    free(npy);
}
END_TEST

START_TEST(test_threads_do_not_matter)
{
    char one[4096], many[4096], i1[4096], i2[4096];
    static const char *const dirs[] = {DIR "hf", DIR "hf-bin", DIR "broken", DIR "mixed"};
    for (size_t d = 0; d < 4; d++) {
        ts_model *a = open_model(dirs[d], 1, 1), *b = open_model(dirs[d], 1, 64);
        listing(a, one, sizeof one);
        listing(b, many, sizeof many);
        issues(a, i1, sizeof i1);
        issues(b, i2, sizeof i2);
        ck_assert_str_eq(one, many);
        ck_assert_str_eq(i1, i2);
        ts_model_close(a);
        ts_model_close(b);
    }
}
END_TEST

/* A folder's small files are read TS__BATCH_MAX at a time (io_uring where
 * it can be had, run_step in model.c): the same members, arrays and
 * issues as files read one by one (TS_IO_PREAD), mapped (TS_IO_MAP), on
 * one thread or several, with a file too large to be read whole in a
 * batch, a cut one and one that is no tensor file among 523 (a folder of
 * fewer than 512 is read file by file). */
#define N_SMALL 520
static void write_bytes(const char *path, const void *p, size_t n)
{
    FILE *fp = fopen(path, "wb");
    ck_assert_ptr_nonnull(fp);
    ck_assert_uint_eq(fwrite(p, 1, n, fp), n);
    ck_assert_int_eq(fclose(fp), 0);
}

/* A version 1.0 .npy of rows x cols float32 zeros (header 128 bytes). */
static void write_npy(const char *path, int rows, int cols)
{
    size_t n = 128 + (size_t)rows * (size_t)cols * 4;
    unsigned char *p = calloc(1, n);
    ck_assert_ptr_nonnull(p);
    memcpy(p, "\x93NUMPY\x01\x00\x76\x00", 10);
    memset(p + 10, ' ', 117);
    int k = snprintf((char *)p + 10, 118,
                     "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }", rows, cols);
    p[10 + k] = ' ';
    p[127] = '\n';
    write_bytes(path, p, n);
    free(p);
}

START_TEST(test_batched_folder)
{
    char dir[] = "/tmp/tshape-batch-model-XXXXXX", path[256];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    for (int i = 0; i < N_SMALL; i++) { /* f<i>: (i + 1) x 3 */
        snprintf(path, sizeof path, "%s/f%03d.npy", dir, i);
        write_npy(path, i + 1, 3);
    }
    snprintf(path, sizeof path, "%s/f007cut.npy", dir);
    write_bytes(path, "\x93NUMPY\x01\x00\x76\x00{'descr'", 17);
    snprintf(path, sizeof path, "%s/notes.txt", dir);
    write_bytes(path, "not a tensor file\n", 18);
    /* 128 x 160 float32 (80 KiB): more than a batch reads of a file */
    snprintf(path, sizeof path, "%s/f99big.npy", dir);
    write_npy(path, 128, 160);

    static char want[16384], want_issues[4096], got[16384], got_issues[4096];
    static const ts_io_mode modes[] = {TS_IO_AUTO, TS_IO_PREAD, TS_IO_MAP};
    for (size_t k = 0; k < 3; k++)
        for (int threads = 1; threads <= 4; threads += 3) {
            ts_open_options oo = TS_OPEN_OPTIONS_INIT;
            oo.io = modes[k];
            ts_model_options o = TS_MODEL_OPTIONS_INIT;
            o.open = &oo;
            o.threads = threads;
            ts_model *m = NULL;
            ts_error err;
            ck_assert_int_eq(ts_model_open(dir, &o, &m, &err), TS_OK);
            listing(m, k + threads == 1 ? want : got, sizeof got);
            issues(m, k + threads == 1 ? want_issues : got_issues, sizeof got_issues);
            if (k + threads == 1) {
                /* the small ones and the large one, the cut one an error,
                 * notes.txt another file */
                ck_assert_uint_eq(ts_model_count(m), N_SMALL + 1);
                ck_assert_uint_eq(ts_model_issue_count(m), 1);
                ck_assert_int_eq(ts_model_issue_at(m, 0)->is_error, 1);
                ck_assert_ptr_nonnull(strstr(ts_model_issue_at(m, 0)->path, "/f007cut.npy"));
                ck_assert_ptr_nonnull(strstr(want, " f519@f519.npy f99big@f99big.npy"));
                ck_assert_uint_eq(ts_model_other_file_count(m), 1);
            } else {
                ck_assert_str_eq(got, want);
                ck_assert_str_eq(got_issues, want_issues);
            }
            /* each file's own shape: f<i> (i + 1) x 3, f99big 128 x 160 */
            for (size_t i = 0; i <= N_SMALL; i++) {
                const ts_array *a = ts_model_array(m, i, NULL);
                ck_assert_int_eq(a->shape.ndim, 2);
                ck_assert_int_eq(ts_shape_dims(&a->shape)[0], i < N_SMALL ? (int64_t)i + 1 : 128);
                ck_assert_int_eq(ts_shape_dims(&a->shape)[1], i < N_SMALL ? 3 : 160);
                ck_assert_int_eq(a->data_offset, 128);
            }
            ts_model_close(m);
        }
    for (int i = 0; i < N_SMALL; i++) {
        snprintf(path, sizeof path, "%s/f%03d.npy", dir, i);
        unlink(path);
    }
    static const char *const rest[] = {"f007cut.npy", "notes.txt", "f99big.npy"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, rest[i]);
        unlink(path);
    }
    rmdir(dir);
}
END_TEST

START_TEST(test_errors)
{
    ts_model *m = (ts_model *)1;
    ts_error err;
    ck_assert_int_eq(ts_model_open(DIR "nonexistent", NULL, &m, &err), TS_ERR_IO);
    ck_assert_ptr_null(m);
    ck_assert_int_eq(strncmp(err.message, "cannot open", 11), 0); /* ts_file_open's words */
    /* a regular file that is not a tensor file: ts_file_open's error */
    ck_assert_int_eq(ts_model_open(DIR "hf/config.json", NULL, &m, &err), TS_ERR_FORMAT);
    ck_assert_ptr_null(m);
    /* an index that is no index */
    FILE *f = fopen("build/tests/bad.index.json", "w");
    ck_assert_ptr_nonnull(f);
    fputs("{\"weight_map\": {\"a\": \"../../etc/passwd\"}}", f);
    fclose(f);
    ck_assert_int_eq(ts_model_open("build/tests/bad.index.json", NULL, &m, &err), TS_ERR_FORMAT);
    ck_assert_str_eq(err.message, "index 'build/tests/bad.index.json': tensor 'a' has a shard "
                                  "that is not a relative file name inside the folder");
    f = fopen("build/tests/bad.index.json", "w");
    ck_assert_ptr_nonnull(f);
    fputs("{\"weight_map\": [1]}", f);
    fclose(f);
    ck_assert_int_eq(ts_model_open("build/tests/bad.index.json", NULL, &m, &err), TS_ERR_FORMAT);
    ck_assert_str_eq(err.message,
                     "index 'build/tests/bad.index.json' has no \"weight_map\" object");
    /* The one JSON scanner's checks: a repeated tensor (escaped or not), a
     * syntax error, a lone surrogate; the line is the offending token's. */
    static const char *const texts[][2] = {
        {"{\"weight_map\": {\"a\": \"x.safetensors\",\n \"\\u0061\": \"y.safetensors\"}}",
         "duplicate object key near '\"\\u0061\"' (line 2)"},
        {"{\"weight_map\": {\"a\": \"x.safetensors\",}}", "string or '}' expected near '}' (line 1)"},
        {"{\"metadata\": {},\n\n \"weight_map\": {\"\\ud800\": \"x\"}}",
         "invalid Unicode '\\uD800' near '\"\\ud800' (line 3)"},
        {"{\"weight_map\": {}} x", "end of file expected near 'x' (line 1)"},
    };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        f = fopen("build/tests/bad.index.json", "w");
        ck_assert_ptr_nonnull(f);
        fputs(texts[i][0], f);
        fclose(f);
        ck_assert_int_eq(ts_model_open("build/tests/bad.index.json", NULL, &m, &err),
                         TS_ERR_FORMAT);
        char want[256];
        snprintf(want, sizeof want, "index 'build/tests/bad.index.json': %s", texts[i][1]);
        ck_assert_str_eq(err.message, want);
    }
    remove("build/tests/bad.index.json");
}
END_TEST

Suite *model_suite(void)
{
    Suite *s = suite_create("model");
    TCase *tc = tcase_create("folders and shards");
    tcase_add_test(tc, test_sharded);
    tcase_add_test(tc, test_sharded_pytorch);
    tcase_add_test(tc, test_missing_shard);
    tcase_add_test(tc, test_broken_index);
    tcase_add_test(tc, test_folder);
    tcase_add_test(tc, test_repeated_names);
    tcase_add_test(tc, test_model_metadata);
    tcase_add_test(tc, test_folder_order);
    tcase_add_test(tc, test_batched_folder);
    tcase_add_test(tc, test_threads_do_not_matter);
    tcase_add_test(tc, test_errors);
    suite_add_tcase(s, tc);
    return s;
}
