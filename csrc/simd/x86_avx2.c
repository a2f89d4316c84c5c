/*
 * x86_avx2.c -- the AVX2 kernel, for CPUs with AVX2 and BMI2 (Intel
 * Haswell and later, AMD Excavator and later): ASCII runs 64 bytes per step,
 * and the UTF-8 loops of utf8_scan.h built with BMI2, where each DFA step
 * is a single SHRX.  dispatch.c uses it only after seeing both features.
 */
#include "../kernels.h"

#if defined(UTFKIT_X86_64)
#include <immintrin.h>

/* Everything below is compiled for avx2,bmi2, with no -m flag for the build. */
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,bmi2"))), apply_to = function)
#elif defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx2,bmi2")
#endif

size_t utfkit_ascii_prefix_length_avx2(const uint8_t *src, size_t len)
{
    size_t i = 0;
    /* Two loads OR-ed per step keep both load ports busy. */
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
        uint32_t first = (uint32_t)_mm256_movemask_epi8(
            _mm256_loadu_si256((const __m256i *)(src + i)));
        if (first != 0)
            return i + (size_t)__builtin_ctz(first);
        i += 32;
    }
    return i + utfkit_ascii_prefix_length_scalar(src + i, len - i);
}

#define UTF8_SCAN_ASCII_PREFIX_LENGTH utfkit_ascii_prefix_length_avx2
#define UTF8_SCAN_NAME(stem) stem##_avx2
#include "../utf8_scan.h"

#if defined(__clang__)
#pragma clang attribute pop
#elif defined(__GNUC__)
#pragma GCC pop_options
#endif
#endif
