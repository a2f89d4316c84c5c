/*
 * x86_avx512.c -- AVX-512 (F + BW) building blocks, compiled with a
 * per-function target attribute; used only where dispatch.c has seen the
 * CPU and the OS support AVX-512BW.
 */
#include "../kernels.h"

#if defined(UTFKIT_X86_64)
#include <immintrin.h>

__attribute__((target("avx512f,avx512bw")))
size_t utfkit_ascii_prefix_length_avx512(const uint8_t *src, size_t len)
{
    size_t i = 0;
    /* 128 bytes per step; movepi8_mask gathers bit 7 of each byte. */
    while (len - i >= 128) {
        __m512i a = _mm512_loadu_si512((const void *)(src + i));
        __m512i b = _mm512_loadu_si512((const void *)(src + i + 64));
        uint64_t high = (uint64_t)_mm512_movepi8_mask(_mm512_or_si512(a, b));
        if (high != 0) {
            uint64_t first = (uint64_t)_mm512_movepi8_mask(a);
            if (first != 0)
                return i + (size_t)__builtin_ctzll(first);
            return i + 64 + (size_t)__builtin_ctzll((uint64_t)_mm512_movepi8_mask(b));
        }
        i += 128;
    }
    /* The tail, up to 127 bytes, with masked loads that touch nothing past
     * src[len - 1]. */
    while (i < len) {
        size_t left = len - i;
        __mmask64 in_bounds = left >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << left) - 1);
        __m512i a = _mm512_maskz_loadu_epi8(in_bounds, (const void *)(src + i));
        uint64_t high = (uint64_t)_mm512_movepi8_mask(a);
        if (high != 0)
            return i + (size_t)__builtin_ctzll(high);
        i += left >= 64 ? 64 : left;
    }
    return len;
}
#endif
