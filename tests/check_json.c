/*
 * check_json.c - the library's JSON scanner (src/core/json.c): decoding,
 * key comparison after decoding, and agreement with jansson (a dependency
 * of the library, which the safetensors and index readers used before) on
 * which texts are JSON: jansson with JSON_REJECT_DUPLICATES and
 * JSON_DECODE_ANY accepts a text exactly when the scanner does.
 */
#include <check.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "core/json.h"
#include "testutil.h"

/* Scans s whole: 0 when it is one JSON value and nothing else. */
static int scan(const char *s, size_t n, ts__json *j)
{
    ts__json_init(j, s, n, NULL, NULL, NULL);
    return ts__json_skip(j) == 0 && ts__json_finish(j) == 0 ? 0 : -1;
}

START_TEST(test_decode)
{
    const char *s = "[\"a\\u00e9\\ud83d\\ude00\\n\xe2\x82\xac\", \"\\u0061b\", \"ab\"]";
    ts__json j;
    ts__json_init(&j, s, strlen(s), NULL, NULL, NULL);
    size_t k = 0;
    ts__json_str v[3];
    ck_assert_int_eq(ts__json_array_open(&j), 0);
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(ts__json_array_next(&j, &k), 1);
        ck_assert_int_eq(ts__json_peek(&j), TS__JSON_STRING);
        ck_assert_int_eq(ts__json_string(&j, &v[i]), 0);
    }
    ck_assert_int_eq(ts__json_array_next(&j, &k), 0);
    ck_assert_int_eq(ts__json_finish(&j), 0);
    char out[32];
    ck_assert_uint_eq(v[0].len, 1 + 2 + 4 + 1 + 3);
    ts__json_decode(s, &v[0], out);
    ck_assert_int_eq(memcmp(out, "a\xc3\xa9\xf0\x9f\x98\x80\n\xe2\x82\xac", v[0].len), 0);
    ck_assert(v[0].escaped && v[1].escaped && !v[2].escaped);
    /* "\u0061b" and "ab" are one key; decoding in parts of 4 bytes never
     * splits a character. */
    ck_assert(ts__json_str_equal(s, &v[1], &v[2]));
    ck_assert(!ts__json_str_equal(s, &v[0], &v[2]));
    size_t pos = v[0].at + 1, n, total = 0;
    while ((n = ts__json_decode_part(s, &v[0], &pos, out, 4)) > 0) {
        ck_assert_uint_le(n, 4);
        ck_assert_uint_gt(ts__utf8_len((const unsigned char *)out, n), 0);
        total += n;
    }
    ck_assert_uint_eq(total, v[0].len);
    /* Integers: int64 bounds. */
    ts__json_init(&j, "-9223372036854775808", 20, NULL, NULL, NULL);
    int64_t x;
    ck_assert_int_eq(ts__json_integer(&j, &x), 0);
    ck_assert(x == INT64_MIN);
    ts__json_init(&j, "9223372036854775808", 19, NULL, NULL, NULL);
    ck_assert_int_eq(ts__json_integer(&j, &x), -1);
    ck_assert_int_eq(j.error, TS__JSON_EOVERFLOW);
    ck_assert_str_eq(j.error_text, "too big integer near '9223372036854775808'");
}
END_TEST

/* Texts jansson and the scanner must both accept or both refuse. */
static const char *const fixed[] = {
    "{}", "[]", "0", "-0", "1.5e-3", "\"\"", "true", " null ", "{\"a\":1,\"a\":2}",
    "{\"a\":1,\"\\u0061\":2}", "[01]", "[1.]", "[.5]", "[+1]", "[1e]", "[\"\\ud800\"]",
    "[\"\\udc00\"]", "[\"\\ud83d\\ude00\"]", "[\"\\u0000\"]", "[\"\\x\"]", "[\"a\tb\"]",
    "[\"\xc0\xaf\"]", "[\"\xed\xa0\x80\"]", "[\"\xf4\x90\x80\x80\"]", "[1,]", "{\"a\":1,}",
    "[1 2]", "{\"a\" 1}", "{1:2}", "[1e999]", "[-9223372036854775809]", "[tru]", "[nul]",
    "{} x", "\xef\xbb\xbf{}", "[\"\xe2\x82\"]",
};

START_TEST(test_fixed_agree)
{
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) {
        const char *s = fixed[i];
        json_error_t je;
        json_t *r = json_loadb(s, strlen(s), JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);
        ts__json j;
        int ours = scan(s, strlen(s), &j) == 0;
        ck_assert_msg((r != NULL) == ours, "'%s': jansson %s, the scanner %s", s,
                      r ? "accepts" : je.text, ours ? "accepts" : j.error_text);
        json_decref(r);
    }
}
END_TEST

/* 200,000 texts made by 1-3 random edits of valid seeds (deterministic). */
START_TEST(test_mutations_agree)
{
    static const char *const seeds[] = {
        ("{\"a\":{\"dtype\":\"F32\",\"shape\":[1,2],\"data_offsets\":[0,8]},"
         "\"__metadata__\":{\"k\":\"v\\u00e9\\ud83d\\ude00\"}}"),
        "[1,-0,2.5e10,true,false,null,\"x\\n\\t\\\"\\\\\\/\"]",
        "{\"a\":[[[{}]]],\"b\":-12345678901234567,\"c\":1E+2,\"d\":\"\xc3\xa9\xe2\x82\xac\"}",
        "  { \"k\" : [ 1 , 2 ] , \"k2\" : { \"x\" : \"y\" } }  ",
    };
    static const char alpha[] = "{}[],:\"\\u0123456789abcdefABCDEF.eE+-tfnrl \t\n"
                                "\x80\xc3\xa9\xed\xa0\xf4\x90";
    unsigned seed = 12345;
    char buf[512];
    size_t disagree = 0;
    for (long it = 0; it < 200000; it++) {
        const char *s0 = seeds[(unsigned)rand_r(&seed) % 4];
        size_t n = strlen(s0);
        memcpy(buf, s0, n);
        for (int m = 1 + rand_r(&seed) % 3; m > 0; m--) {
            int op = rand_r(&seed) % 4;
            size_t p = n ? (size_t)rand_r(&seed) % n : 0;
            char c = alpha[(unsigned)rand_r(&seed) % (sizeof alpha - 1)];
            if (op == 0 && n) {
                buf[p] = c;
            } else if (op == 1 && n < sizeof buf - 1) {
                memmove(buf + p + 1, buf + p, n - p);
                buf[p] = c;
                n++;
            } else if (op == 2 && n) {
                memmove(buf + p, buf + p + 1, n - p - 1);
                n--;
            } else if (op == 3) {
                n = p;
            }
        }
        json_error_t je;
        json_t *r = json_loadb(buf, n, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);
        ts__json j;
        int ours = scan(buf, n, &j) == 0;
        if ((r != NULL) != ours && disagree++ < 5)
            fprintf(stderr, "json: '%.*s': jansson %s, the scanner %s\n", (int)n, buf,
                    r ? "accepts" : je.text, ours ? "accepts" : j.error_text);
        json_decref(r);
    }
    ck_assert_uint_eq(disagree, 0);
}
END_TEST

Suite *json_suite(void)
{
    Suite *s = suite_create("json");
    TCase *tc = tcase_create("scanner");
    tcase_add_test(tc, test_decode);
    tcase_add_test(tc, test_fixed_agree);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_mutations_agree);
    suite_add_tcase(s, tc);
    return s;
}
