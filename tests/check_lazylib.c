/*
 * check_lazylib.c - the libraries loaded on first use (src/core/lazylib.c):
 * calls routed through zlib_lazy.h and jansson_lazy.h give what the
 * libraries give when linked (the runner links zlib and jansson, so the
 * same functions are called both ways), the plain-C CRC-32 fallbacks agree
 * with zlib, XXH3-64 through libxxhash is the headers' own, and hypot
 * follows C11 Annex F.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/lazylib.h"
#include "testutil.h"
#define XXH_INLINE_ALL
#include <xxhash.h>

/* zlib's own, taken before zlib_lazy.h routes the names. */
static uLong z_crc(uLong c, const unsigned char *p, uInt n) { return crc32(c, p, n); }
static uLong z_combine(uLong a, uLong b, z_off_t n) { return crc32_combine(a, b, n); }

#include "core/jansson_lazy.h"
#include "core/zlib_lazy.h"

static unsigned char *bytes(size_t n, unsigned seed)
{
    unsigned char *p = malloc(n ? n : 1);
    ck_assert_ptr_nonnull(p);
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        p[i] = (unsigned char)(seed >> 16);
    }
    return p;
}

START_TEST(test_crc_soft)
{
    static const size_t lens[] = {0, 1, 7, 64, 1000, 65537};
    ck_assert_uint_eq(ts__crc32_soft(0, (const unsigned char *)"123456789", 9), 0xcbf43926u);
    for (size_t a = 0; a < sizeof lens / sizeof *lens; a++)
        for (size_t b = 0; b < sizeof lens / sizeof *lens; b++) {
            unsigned char *p = bytes(lens[a] + lens[b], (unsigned)(a * 7 + b));
            uint32_t ca = ts__crc32_soft(0, p, lens[a]);
            uint32_t cb = ts__crc32_soft(0, p + lens[a], lens[b]);
            uint32_t whole = (uint32_t)z_crc(0, p, (uInt)(lens[a] + lens[b]));
            ck_assert_uint_eq(ca, (uint32_t)z_crc(0, p, (uInt)lens[a]));
            ck_assert_uint_eq(ts__crc32_soft(ca, p + lens[a], lens[b]), whole);
            ck_assert_uint_eq(ts__crc32_combine_soft(ca, cb, lens[b]), whole);
            ck_assert_uint_eq((uint32_t)z_combine(ca, cb, (z_off_t)lens[b]), whole);
            free(p);
        }
    /* ts__crc32_fast (ISA-L or libdeflate when one loads) carries on as
     * zlib */
    for (size_t a = 0; a < sizeof lens / sizeof *lens; a++) {
        unsigned char *p = bytes(lens[a] + 5, (unsigned)a);
        uint32_t c = ts__crc32_fast(0, p, lens[a]);
        ck_assert_uint_eq(c, (uint32_t)z_crc(0, p, (uInt)lens[a]));
        ck_assert_uint_eq(ts__crc32_fast(c, p + lens[a], 5),
                          (uint32_t)z_crc(0, p, (uInt)lens[a] + 5));
        free(p);
    }
    ck_assert_uint_eq(ts__crc32_fast(0, (const unsigned char *)"123456789", 9), 0xcbf43926u);
    /* the wide loops of the vector code: 1 MiB and 3 bytes from an odd
     * address, carried on from a CRC, in two cuts */
    unsigned char *big = bytes((1 << 20) + 8, 99);
    uint32_t zb = (uint32_t)z_crc(0x1234u, big + 1, (1 << 20) + 3);
    ck_assert_uint_eq(ts__crc32_fast(0x1234u, big + 1, (1 << 20) + 3), zb);
    ck_assert_uint_eq(ts__crc32_fast(ts__crc32_fast(0x1234u, big + 1, 777), big + 778,
                                     (1 << 20) + 3 - 777), zb);
    free(big);
    /* a length beyond 4 GiB: zlib agrees */
    ck_assert_uint_eq(ts__crc32_combine_soft(0x12345678u, 0x9abcdef0u, 5000000000ull),
                      (uint32_t)z_combine(0x12345678u, 0x9abcdef0u, (z_off_t)5000000000ll));
}
END_TEST

START_TEST(test_routed)
{
    unsigned char *p = bytes(4096, 3);
    ck_assert_uint_eq((uint32_t)crc32(0L, p, 4096), (uint32_t)z_crc(0, p, 4096));
    ck_assert_uint_eq((uint32_t)crc32_combine(1u, 2u, 100), (uint32_t)z_combine(1u, 2u, 100));
    free(p);
    /* inflate of a stored deflate block "abc" (raw deflate) */
    static const unsigned char raw[] = {0x01, 0x03, 0x00, 0xfc, 0xff, 'a', 'b', 'c'};
    unsigned char out[8];
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    ck_assert_int_eq(inflateInit2(&zs, -MAX_WBITS), Z_OK);
    zs.next_in = (Bytef *)(uintptr_t)raw;
    zs.avail_in = sizeof raw;
    zs.next_out = out;
    zs.avail_out = sizeof out;
    ck_assert_int_eq(inflate(&zs, Z_NO_FLUSH), Z_STREAM_END);
    ck_assert_uint_eq(zs.total_out, 3);
    ck_assert_int_eq(memcmp(out, "abc", 3), 0);
    ck_assert_int_eq(inflateEnd(&zs), Z_OK);

    json_error_t e;
    json_t *j = json_loads("{\"a\": [1, 2.5, \"x\"]}", 0, &e);
    ck_assert_ptr_nonnull(j);
    json_t *a = json_object_get(j, "a");
    ck_assert_uint_eq(json_array_size(a), 3);
    ck_assert_str_eq(json_string_value(json_array_get(a, 2)), "x");
    const char *k;
    json_t *v;
    int n = 0;
    json_object_foreach(j, k, v) n++;
    ck_assert_int_eq(n, 1);
    json_t *q = json_pack("{s:i,s:s}", "n", 3, "s", "t");
    char *txt = json_dumps(q, JSON_SORT_KEYS | JSON_COMPACT);
    ck_assert_str_eq(txt, "{\"n\":3,\"s\":\"t\"}");
    free(txt);
    json_decref(json_incref(q));
    json_decref(q);
    json_decref(j);
    ck_assert_ptr_null(json_loadb("[", 1, 0, &e));
    ck_assert_str_eq(e.text, "']' expected near end of file");
}
END_TEST

/* ts__xxh3_update (libxxhash's dispatch when it loads) gives xxhash.h's
 * XXH3-64, however the bytes are cut: lengths around the 64-byte stripes,
 * the 1,024-byte blocks and the 256-byte internal buffer. */
START_TEST(test_xxh3)
{
    static const size_t lens[] = {0, 1, 63, 64, 255, 256, 1023, 1024, 1025, 100000};
    XXH3_state_t *s = XXH3_createState();
    ck_assert_ptr_nonnull(s);
    for (size_t a = 0; a < sizeof lens / sizeof *lens; a++)
        for (size_t b = 0; b < sizeof lens / sizeof *lens; b++) {
            unsigned char *p = bytes(lens[a] + lens[b], (unsigned)(a * 11 + b));
            XXH3_64bits_reset(s);
            ts__xxh3_update(s, p, lens[a]);
            ts__xxh3_update(s, p + lens[a], lens[b]);
            ck_assert_uint_eq(XXH3_64bits_digest(s), XXH3_64bits(p, lens[a] + lens[b]));
            free(p);
        }
    /* XXH3-64 of the empty input (xxHash's sanity check) and of "abc" */
    XXH3_64bits_reset(s);
    ck_assert_uint_eq(XXH3_64bits_digest(s), 0x2D06800538D394C2ull);
    XXH3_64bits_reset(s);
    ts__xxh3_update(s, "abc", 3);
    ck_assert_uint_eq(XXH3_64bits_digest(s), XXH3_64bits("abc", 3));
    XXH3_freeState(s);
}
END_TEST

START_TEST(test_hypot)
{
    ck_assert(ts__hypot(3, 4) == 5);
    ck_assert(ts__hypot(-1e300, 1e300) == hypot(1e300, 1e300));
    ck_assert(ts__hypot(INFINITY, NAN) == INFINITY);
    ck_assert(ts__hypot(NAN, -INFINITY) == INFINITY);
    ck_assert(isnan(ts__hypot(NAN, 1)));
}
END_TEST

Suite *lazylib_suite(void)
{
    Suite *s = suite_create("lazylib");
    TCase *tc = tcase_create("routed");
    tcase_add_test(tc, test_crc_soft);
    tcase_add_test(tc, test_routed);
    tcase_add_test(tc, test_xxh3);
    tcase_add_test(tc, test_hypot);
    suite_add_tcase(s, tc);
    return s;
}
