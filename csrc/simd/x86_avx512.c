/*
 * x86_avx512.c -- the AVX-512 kernel, for CPUs with AVX-512 F, BW and VBMI
 * (Intel Ice Lake and later, AMD Zen 4 and later; and BMI2, which all of
 * them have): ASCII runs 128 bytes per step, tails with
 * masked loads that touch nothing past the end; UTF-8 validation by nibble
 * lookups 64 bytes per vector (utf8_lookup.h), the automaton's replays
 * built with BMI2; output lengths by counting 64 bytes per vector
 * (utf_lengths.h).
 */
#include "../kernels.h"

#if defined(UTFKIT_X86_64)
#include <immintrin.h>

/* Everything below is compiled for avx512f,avx512bw,avx512vbmi,bmi2, with no -m flag for the build. */
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vbmi,bmi2"))), apply_to = function)
#elif defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vbmi,bmi2")
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

/* ---- the vector operations utf8_lookup.h is written over ---- */
#define VEC_BYTES 64
typedef __m512i vec_t;

static inline vec_t vec_load(const uint8_t *p) { return _mm512_loadu_si512((const void *)p); }
/* A masked load: bytes at and past p[n] are neither read nor faulted on. */
static inline vec_t vec_load_partial(const uint8_t *p, size_t n)
{
    return _mm512_maskz_loadu_epi8((((__mmask64)1) << n) - 1, (const void *)p);
}
static inline vec_t vec_splat(uint8_t byte) { return _mm512_set1_epi8((char)byte); }
static inline vec_t vec_table(const uint8_t *table)
{
    return _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)table));
}
/* VPERMB (VBMI) reads only the low 6 bits of each index, and the table
 * repeats every 16 bytes, so no nibble needs masking: after a 16-bit shift
 * by 4, bits 4-5 of an index come from the neighbouring byte and select
 * only another copy of the table. */
static inline vec_t vec_lookup_high(vec_t table, vec_t v)
{
    return _mm512_permutexvar_epi8(_mm512_srli_epi16(v, 4), table);
}
static inline vec_t vec_lookup_low(vec_t table, vec_t v) { return _mm512_permutexvar_epi8(v, table); }
static inline vec_t vec_or(vec_t a, vec_t b) { return _mm512_or_si512(a, b); }
static inline vec_t vec_and(vec_t a, vec_t b) { return _mm512_and_si512(a, b); }
static inline vec_t vec_xor(vec_t a, vec_t b) { return _mm512_xor_si512(a, b); }
static inline vec_t vec_subs(vec_t a, vec_t b) { return _mm512_subs_epu8(a, b); }
/* VPALIGNR shifts within 16-byte lanes; VALIGNQ by six quadwords lines up
 * the lane before each lane (the last lane of `before` for the first).
 * Measured here, this beat one VPERMT2B per shift (destructive, so each
 * needs a copy of its index). */
#define vec_prev(v, before, n) \
    _mm512_alignr_epi8((v), _mm512_alignr_epi64((v), (before), 6), 16 - (n))
static inline int vec_any(vec_t v) { return _mm512_test_epi8_mask(v, v) != 0; }
static inline size_t vec_first_nonzero(vec_t v)
{
    return (size_t)__builtin_ctzll((uint64_t)_mm512_test_epi8_mask(v, v));
}
static inline int vec_is_ascii(vec_t v) { return _mm512_movepi8_mask(v) == 0; }
static inline vec_t vec_min_signed(vec_t a, vec_t b) { return _mm512_min_epi8(a, b); }

#define UTF8_LOOKUP_NAME(stem) stem##_avx512
#include "utf8_lookup.h"

/* ---- and those utf_lengths.h adds ---- */
static inline vec_t vec_splat16(uint16_t unit) { return _mm512_set1_epi16((short)unit); }
static inline vec_t vec_splat32(uint32_t unit) { return _mm512_set1_epi32((int)unit); }
/* A comparison gives a mask: a masked add of 1 counts. */
static inline vec_t vec_count_gt8(vec_t acc, vec_t v, vec_t t)
{
    return _mm512_mask_add_epi8(acc, _mm512_cmpgt_epi8_mask(v, t), acc, _mm512_set1_epi8(1));
}
static inline vec_t vec_count_eq16(vec_t acc, vec_t a, vec_t b)
{
    return _mm512_mask_add_epi16(acc, _mm512_cmpeq_epi16_mask(a, b), acc, _mm512_set1_epi16(1));
}
static inline vec_t vec_count_lt32(vec_t acc, vec_t a, vec_t b)
{
    return _mm512_mask_add_epi32(acc, _mm512_cmplt_epi32_mask(a, b), acc, _mm512_set1_epi32(1));
}
static inline uint64_t vec_sum8(vec_t acc)
{
    return (uint64_t)_mm512_reduce_add_epi64(_mm512_sad_epu8(acc, _mm512_setzero_si512()));
}
static inline uint64_t vec_sum32(vec_t acc)
{
    vec_t low = _mm512_and_si512(acc, _mm512_set1_epi64(0xFFFFFFFF));
    return (uint64_t)_mm512_reduce_add_epi64(_mm512_add_epi64(low, _mm512_srli_epi64(acc, 32)));
}
static inline uint64_t vec_sum16(vec_t acc) { return vec_sum32(_mm512_madd_epi16(acc, _mm512_set1_epi16(1))); }
static inline vec_t vec_swap16(vec_t v)
{
    return _mm512_shuffle_epi8(v, _mm512_broadcast_i32x4(_mm_setr_epi8(1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14)));
}
static inline vec_t vec_swap32(vec_t v)
{
    return _mm512_shuffle_epi8(v, _mm512_broadcast_i32x4(_mm_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12)));
}

#define VEC_MASK16_BITS 1
static inline uint64_t vec_eq16_mask(vec_t a, vec_t b)
{
    return (uint64_t)_mm512_cmpeq_epi16_mask(a, b);
}
#define UTF_LENGTHS_NAME(stem) stem##_avx512
#include "utf_lengths.h"
#include "utf16_bmp_prefix.h"

#if defined(__clang__)
#pragma clang attribute pop
#elif defined(__GNUC__)
#pragma GCC pop_options
#endif
#endif
