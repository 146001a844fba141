/*
 * cpu.c - x86-64 instruction set extensions the value kernels may use,
 * asked with CPUID when first needed (cpuid.h, which gcc and clang both
 * have). Not __builtin_cpu_supports: it links libgcc's constructor, which
 * runs CPUID at every start-up (slow in a virtual machine; issue 28), and
 * clang 14's does not know "f16c".
 */
#include "internal.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <stdlib.h>

/* TSHAPE_SIMD=none: the portable kernels only (tests compare them with the
 * vector ones, which must give the same bits). */
static int simd_off(void)
{
    const char *e = getenv("TSHAPE_SIMD");
    return e && strcmp(e, "none") == 0;
}

/* CPUID leaf 1 ECX has AVX (bit 28) and OSXSAVE (27), plus `more` bits, and
 * the OS saves the YMM registers (XCR0 bits 1 and 2; Intel SDM vol. 1,
 * 14.3). */
static int avx_with(unsigned more)
{
    unsigned a, b, c, d;
    const unsigned need = (1u << 28) | (1u << 27) | more;
    if (!__get_cpuid(1, &a, &b, &c, &d) || (c & need) != need)
        return 0;
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    (void)hi;
    return (lo & 0x6u) == 0x6u;
}

/* The answers, asked once (a benign race: every thread computes the
 * same); -1 until asked. */
static int has_avx2 = -1, has_f16c = -1, has_fma = -1;

int ts__cpu_has_avx2(void)
{
    if (has_avx2 < 0) {
        unsigned a, b, c, d;
        has_avx2 = !simd_off() && avx_with(0) && __get_cpuid_count(7, 0, &a, &b, &c, &d) &&
                   (b & (1u << 5));
    }
    return has_avx2;
}

int ts__cpu_has_f16c(void)
{
    if (has_f16c < 0)
        has_f16c = !simd_off() && avx_with(1u << 29);
    return has_f16c;
}

/* FMA (CPUID leaf 1 ECX bit 12) whatever TSHAPE_SIMD says: it decides how
 * sums round (fused or not), which must not change with the kernel. */
int ts__cpu_has_fma(void)
{
    if (has_fma < 0)
        has_fma = avx_with(1u << 12);
    return has_fma;
}
#else
int ts__cpu_has_avx2(void)
{
    return 0;
}

int ts__cpu_has_f16c(void)
{
    return 0;
}

int ts__cpu_has_fma(void)
{
    return 0;
}
#endif
