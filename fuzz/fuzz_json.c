/* fuzz_json.c - the library's JSON scanner (src/core/json.c) on arbitrary
 * bytes, as the safetensors header and the model index use it: the whole
 * text skipped and validated; then, when it is an object, its keys walked
 * and decoded. Checks: the scan stays inside the text and always advances,
 * a failed scan has a one-line message and a position inside the text,
 * decoding writes exactly the length the scan announced (valid UTF-8, no
 * NUL), equal keys compare equal. */
#include "../src/core/internal.h" /* before fuzz.h: the experimental API */
#include "fuzz.h"

#include "../src/core/json.h"

static void check_failed(const ts__json *j, size_t size)
{
    FUZZ_CHECK(j->error != TS__JSON_OK);
    FUZZ_CHECK(j->error_at <= size);
    FUZZ_CHECK(j->error_text[0] != '\0');
    FUZZ_CHECK(strchr(j->error_text, '\n') == NULL && strchr(j->error_text, '\r') == NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    ts__json j;
    ts__json_init(&j, s, size, NULL, NULL, NULL);
    if (ts__json_skip(&j) != 0 || ts__json_finish(&j) != 0) {
        check_failed(&j, size);
        return 0;
    }
    FUZZ_CHECK(j.i == size && j.depth == 0);
    ts__json_init(&j, s, size, NULL, NULL, NULL);
    if (ts__json_peek(&j) != TS__JSON_OBJECT)
        return 0;
    FUZZ_CHECK(ts__json_object_open(&j) == 0);
    ts__json_str key, prev = {0, 0, 0, 0, 0};
    size_t count = 0, last = j.i;
    int r;
    while ((r = ts__json_object_next(&j, &count, &key)) == 1) {
        FUZZ_CHECK(key.at >= last && key.end <= size && key.len <= key.end - key.at - 2);
        char *out = malloc(key.len + 1);
        FUZZ_CHECK(out != NULL);
        ts__json_decode(s, &key, out);
        FUZZ_CHECK(memchr(out, '\0', key.len) == NULL);
        size_t k = 0;
        while (k < key.len) {
            size_t m = ts__utf8_len((const unsigned char *)out + k, key.len - k);
            FUZZ_CHECK(m > 0);
            k += m;
        }
        FUZZ_CHECK(ts__json_fnv(TS__JSON_FNV_BASIS, out, key.len) == key.hash);
        free(out);
        FUZZ_CHECK(ts__json_str_equal(s, &key, &key));
        if (prev.end)
            FUZZ_CHECK(!ts__json_str_equal(s, &key, &prev)); /* the skip refused duplicates */
        prev = key;
        FUZZ_CHECK(ts__json_skip(&j) == 0);
        FUZZ_CHECK(j.i > last);
        last = j.i;
    }
    FUZZ_CHECK(r == 0 && ts__json_finish(&j) == 0);
    return 0;
}
