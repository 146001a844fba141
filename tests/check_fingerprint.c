/*
 * check_fingerprint.c - ts_model_fingerprint: exact digests of fixtures
 * (the same for a model as sharded safetensors and as torch.save shards,
 * structure and values), the listing handed to the caller, a listing
 * writer that stops, and the digest of the listing (the structure alone
 * is checked against NumPy and torch by tests/crosscheck_id.py).
 */
#define TS_EXPERIMENTAL_API
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

typedef struct text {
    char buf[4096];
    size_t len;
    int stop_after;              /* pieces before returning non-zero; 0: never */
    int pieces;
} text;

static int collect(void *user, const char *data, size_t len)
{
    text *t = user;
    if (t->len + len < sizeof t->buf) {
        memcpy(t->buf + t->len, data, len);
        t->len += len;
        t->buf[t->len] = '\0';
    }
    return t->stop_after && ++t->pieces >= t->stop_after;
}

static void fingerprint(const char *path, int values, ts_fingerprint *fp, text *t)
{
    ts_model *m = NULL;
    ts_error err;
    ck_assert_msg(ts_model_open(path, NULL, &m, &err) == TS_OK, "%s: %s", path, err.message);
    ts_fingerprint_options o = TS_FINGERPRINT_OPTIONS_INIT;
    o.values = values;
    o.nthreads = 2;
    if (t) {
        o.listing = collect;
        o.listing_user = t;
    }
    ck_assert_msg(ts_model_fingerprint(m, &o, fp, &err) == TS_OK, "%s: %s", path, err.message);
    ts_model_close(m);
}

START_TEST(test_formats_agree)
{
    ts_fingerprint a, b;
    fingerprint("tests/fixtures/model/hf", 0, &a, NULL);
    fingerprint("tests/fixtures/model/hf-bin", 0, &b, NULL);
    ck_assert_str_eq(a.sha256, "dfb8614355d034198a0feceb3b1bc27eb3a4513eac6410d9d437452bb965bb00");
    ck_assert_str_eq(b.sha256, a.sha256);
    ck_assert_int_eq(a.tensors, 12);
    ck_assert_int_eq(a.values, 0);
    ck_assert_int_eq(a.nbytes, 0);
    fingerprint("tests/fixtures/model/hf", 1, &a, NULL);
    fingerprint("tests/fixtures/model/hf-bin", 1, &b, NULL);
    ck_assert_str_eq(a.sha256, "9a461f848a68135316b8637fe7ed0f80214eaddd5d9b0e649070ff16093e9b20");
    ck_assert_str_eq(b.sha256, a.sha256);
    ck_assert_int_eq(a.nbytes, 2304);
    ck_assert_int_eq(a.values, 1);
}
END_TEST

START_TEST(test_listing)
{
    ts_fingerprint fp;
    text t = {"", 0, 0, 0};
    fingerprint("examples/checkpoint.npz", 1, &fp, &t);
    ck_assert_str_eq(t.buf,
        "10:conv1.bias float32 [8] "
        "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925\n"
        "12:conv1.weight float32 [8,3,3,3] "
        "a1b58fc8fbf87b946c0209327e27d8776a931abe733284898dffbd0a91083ab1\n"
        "4:step int64 [] b5b892a4bd079fc8fb3ea409e456e39f047a4ff8541dc0264d1a67dbad3f20eb\n");
    ck_assert_str_eq(fp.sha256, "06bb12fb90cdc98720abea5eae762f75862077b02f90890361a051dc8d03edaf");
    ck_assert_int_eq(fp.nbytes, 904);
    /* a writer that stops after its first piece */
    ts_model *m = NULL;
    ck_assert_int_eq(ts_model_open("examples/checkpoint.npz", NULL, &m, NULL), TS_OK);
    text s = {"", 0, 1, 0};
    ts_fingerprint_options o = TS_FINGERPRINT_OPTIONS_INIT;
    o.listing = collect;
    o.listing_user = &s;
    ts_error err;
    ck_assert_int_eq(ts_model_fingerprint(m, &o, &fp, &err), TS_ERR_IO);
    ck_assert_str_eq(err.message, "the listing's writer stopped");
    ck_assert_int_eq(s.pieces, 1);
    ts_model_close(m);
}
END_TEST

Suite *fingerprint_suite(void)
{
    Suite *s = suite_create("fingerprint");
    TCase *tc = tcase_create("digests");
    tcase_add_test(tc, test_formats_agree);
    tcase_add_test(tc, test_listing);
    suite_add_tcase(s, tc);
    return s;
}
