/*
 * x86_avx512.c -- the AVX-512 kernel, for CPUs with AVX-512 F and BW (and
 * BMI2, which all of them have): ASCII runs 128 bytes per step, tails with
 * masked loads that touch nothing past the end; the UTF-8 loops of
 * utf8_scan.h built with BMI2.
 */
#include "../kernels.h"

#if defined(UTFKIT_X86_64)
#include <immintrin.h>

/* Everything below is compiled for avx512f,avx512bw,bmi2, with no -m flag for the build. */
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,bmi2"))), apply_to = function)
#elif defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,bmi2")
#endif

size_t utfkit_ascii_prefix_length_avx512(const uint8_t *src, size_t len)
{
    size_t i = 0;
    /* movepi8_mask gathers bit 7 of each of the 64 bytes. */
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
    while (i < len) {
        size_t left = len - i;
        __mmask64 in_bounds = left >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << left) - 1);
        uint64_t high = (uint64_t)_mm512_movepi8_mask(
            _mm512_maskz_loadu_epi8(in_bounds, (const void *)(src + i)));
        if (high != 0)
            return i + (size_t)__builtin_ctzll(high);
        i += left >= 64 ? 64 : left;
    }
    return len;
}

#define UTF8_SCAN_ASCII_PREFIX_LENGTH utfkit_ascii_prefix_length_avx512
#define UTF8_SCAN_NAME(stem) stem##_avx512
#include "../utf8_scan.h"

#if defined(__clang__)
#pragma clang attribute pop
#elif defined(__GNUC__)
#pragma GCC pop_options
#endif
#endif
