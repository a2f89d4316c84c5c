/*
 * x86_avx2.c -- AVX2 building blocks, compiled with a per-function target
 * attribute (no -mavx2 for the whole build); dispatch.c calls them only
 * after the CPU and the OS have been seen to support AVX2.
 */
#include "../kernels.h"

#if defined(UTFKIT_X86_64)
#include <immintrin.h>

__attribute__((target("avx2")))
size_t utfkit_ascii_prefix_length_avx2(const uint8_t *src, size_t len)
{
    size_t i = 0;
    /* 64 bytes per step: two loads OR-ed keep both load ports busy. */
    while (len - i >= 64) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(src + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(src + i + 32));
        if (!_mm256_testz_si256(_mm256_or_si256(a, b), _mm256_set1_epi8((char)0x80))) {
            uint32_t first = (uint32_t)_mm256_movemask_epi8(a);
            if (first != 0)
                return i + (size_t)__builtin_ctz(first);
            return i + 32 + (size_t)__builtin_ctz((uint32_t)_mm256_movemask_epi8(b));
        }
        i += 64;
    }
    if (len - i >= 32) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(src + i));
        uint32_t first = (uint32_t)_mm256_movemask_epi8(a);
        if (first != 0)
            return i + (size_t)__builtin_ctz(first);
        i += 32;
    }
    return i + utfkit_ascii_prefix_length_scalar(src + i, len - i);
}
#endif
