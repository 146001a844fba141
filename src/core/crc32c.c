/*
 * crc32c.c - CRC-32C (Castagnoli: reflected polynomial 0x82F63B78, initial
 * and final value 0xFFFFFFFF; RFC 3720 B.4), as LevelDB and TensorFlow's
 * tensor bundles use it (tensorflow/core/platform/crc32c.h, table blocks and
 * BundleEntryProto.crc32c), and the combination of two reflected CRCs of
 * any polynomial (CRC-32C's here, zip's CRC-32 for lazylib.c).
 *
 * Debian has no C library for CRC-32C (zlib and libdeflate compute only
 * zip's CRC-32; Google's crc32c is not packaged; python3-crc32c is a Python
 * module), so it is here: the SSE4.2 crc32 instruction on x86-64 when the
 * CPU has it (CPUID leaf 1, ECX bit 20, asked once), 8 bytes per
 * instruction; else slicing by 8 over tables built once.
 */
#include "internal.h"

#include <pthread.h>

#define POLY 0x82f63b78u

static uint32_t table[8][256];
static int have_sse42;
static pthread_once_t once = PTHREAD_ONCE_INIT;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>

static int cpu_has_sse42(void)
{
    unsigned a, b, c, d;
    return __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 20));
}

__attribute__((target("sse4.2"))) static uint32_t hw_update(uint32_t crc, const unsigned char *p,
                                                            size_t n)
{
    uint64_t c = crc;
    for (; n > 0 && ((uintptr_t)p & 7); n--)
        c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
    for (; n >= 8; n -= 8, p += 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        c = __builtin_ia32_crc32di(c, w);
    }
    for (; n > 0; n--)
        c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
    return (uint32_t)c;
}
#else
static int cpu_has_sse42(void)
{
    return 0;
}

static uint32_t hw_update(uint32_t crc, const unsigned char *p, size_t n)
{
    (void)p;
    (void)n;
    return crc;
}
#endif

static void init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? (c >> 1) ^ POLY : c >> 1;
        table[0][i] = c;
    }
    for (int t = 1; t < 8; t++)
        for (int i = 0; i < 256; i++)
            table[t][i] = (table[t - 1][i] >> 8) ^ table[0][table[t - 1][i] & 0xff];
    have_sse42 = cpu_has_sse42();
}

/* Slicing by 8 (little-endian loads): the state without pre/post inversion. */
static uint32_t sw_update(uint32_t c, const unsigned char *p, size_t n)
{
    for (; n >= 8; n -= 8, p += 8) {
        uint32_t lo = c ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                           (uint32_t)p[3] << 24);
        c = table[7][lo & 0xff] ^ table[6][(lo >> 8) & 0xff] ^ table[5][(lo >> 16) & 0xff] ^
            table[4][lo >> 24] ^ table[3][p[4]] ^ table[2][p[5]] ^ table[1][p[6]] ^
            table[0][p[7]];
    }
    for (; n > 0; n--)
        c = table[0][(c ^ *p++) & 0xff] ^ (c >> 8);
    return c;
}

uint32_t ts__crc32c(uint32_t crc, const void *data, size_t n)
{
    pthread_once(&once, init);
    const unsigned char *p = data;
    uint32_t c = ~crc;
    c = have_sse42 ? hw_update(c, p, n) : sw_update(c, p, n);
    return ~c;
}

uint32_t ts__crc32c_tables(uint32_t crc, const void *data, size_t n)
{
    pthread_once(&once, init);
    return ~sw_update(~crc, data, n);
}

/* a * b modulo the polynomial poly, all as reflected bit strings (bit 31
 * is x^0). */
static uint32_t mulmod(uint32_t a, uint32_t b, uint32_t poly)
{
    uint32_t m = 1u << 31, p = 0;
    for (;;) {
        if (a & m) {
            p ^= b;
            if ((a & (m - 1)) == 0)
                break;
        }
        m >>= 1;
        b = b & 1 ? (b >> 1) ^ poly : b >> 1;
    }
    return p;
}

/* crc(A B) = crc(A) x^(8 len(B)) + crc(B) modulo the polynomial (the pre
 * and post inversions cancel: a CRC is affine in its input), x^(8 len(B))
 * built from x^(8 2^k) by squaring: the method of zlib's crc32_combine
 * (Mark Adler). */
uint32_t ts__crc_combine(uint32_t poly, uint32_t crc1, uint32_t crc2, uint64_t len2)
{
    uint32_t x2k = 1u << 23;   /* x^8 (bit 31 - 8): one byte */
    uint32_t op = 1u << 31;    /* x^0 */
    for (; len2 > 0; len2 >>= 1) {
        if (len2 & 1)
            op = mulmod(x2k, op, poly);
        x2k = mulmod(x2k, x2k, poly);
    }
    return mulmod(op, crc1, poly) ^ crc2;
}

uint32_t ts__crc32c_combine(uint32_t crc1, uint32_t crc2, uint64_t len2)
{
    return ts__crc_combine(POLY, crc1, crc2, len2);
}
