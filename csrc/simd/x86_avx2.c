/*
 * x86_avx2.c -- the AVX2 kernel, for CPUs with AVX2 and BMI2 (Intel
 * Haswell and later, AMD Excavator and later): ASCII runs 64 bytes per step,
 * UTF-8 validation by nibble lookups 32 bytes per vector (utf8_lookup.h),
 * with the automaton's replays built with BMI2, where each DFA step is a
 * single SHRX; output lengths by counting 32 bytes per vector
 * (utf_lengths.h).  dispatch.c uses it only after seeing both features.
 */
#include "../kernels.h"

#if defined(UTFKIT_X86_64)
#include <immintrin.h>
#include <string.h>

/* Everything below is compiled for avx2,bmi2,popcnt (the features dispatch.c
 * checks for this kernel), with no -m flag for the build. */
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,bmi2,popcnt"))), apply_to = function)
#elif defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx2,bmi2,popcnt")
#endif

/* Loads from 32-byte boundaries of src after a first unaligned vector, and
 * a last one that ends at src[len - 1] (both overlap bytes known to be
 * ASCII): a load that spans two cache lines costs two (measured: 64 KiB of
 * ASCII 16 bytes past a 64-byte boundary took 1220 ns with unaligned loads,
 * at one 874). */
size_t utfkit_ascii_prefix_length_avx2(const uint8_t *src, size_t len)
{
    if (len < 32)
        return utfkit_ascii_prefix_length_scalar(src, len);
    uint32_t high = (uint32_t)_mm256_movemask_epi8(_mm256_loadu_si256((const __m256i *)src));
    if (high != 0)
        return (size_t)__builtin_ctz(high);
    size_t i = 32 - ((uintptr_t)src & 31); /* the first boundary after src[0]: 1..32 */
    /* Two loads OR-ed per step keep both load ports busy. */
    while (len - i >= 64) {
        __m256i a = _mm256_load_si256((const __m256i *)(src + i));
        __m256i b = _mm256_load_si256((const __m256i *)(src + i + 32));
        if (!_mm256_testz_si256(_mm256_or_si256(a, b), _mm256_set1_epi8((char)0x80))) {
            uint32_t first = (uint32_t)_mm256_movemask_epi8(a);
            if (first != 0)
                return i + (size_t)__builtin_ctz(first);
            return i + 32 + (size_t)__builtin_ctz((uint32_t)_mm256_movemask_epi8(b));
        }
        i += 64;
    }
    if (len - i >= 32) {
        high = (uint32_t)_mm256_movemask_epi8(_mm256_load_si256((const __m256i *)(src + i)));
        if (high != 0)
            return i + (size_t)__builtin_ctz(high);
        i += 32;
    }
    if (i == len)
        return len;
    /* the last 32 bytes; those before i are ASCII, so the first byte above
     * 7F among them is at i or after */
    high = (uint32_t)_mm256_movemask_epi8(_mm256_loadu_si256((const __m256i *)(src + len - 32)));
    return high != 0 ? len - 32 + (size_t)__builtin_ctz(high) : len;
}

/* ---- the vector operations utf8_lookup.h is written over ---- */
#define VEC_BYTES 32
typedef __m256i vec_t;

static inline vec_t vec_load(const uint8_t *p) { return _mm256_loadu_si256((const __m256i *)p); }
static inline vec_t vec_load_partial(const uint8_t *p, size_t n)
{
    uint8_t padded[VEC_BYTES] = {0};
    memcpy(padded, p, n);
    return vec_load(padded);
}
static inline vec_t vec_splat(uint8_t byte) { return _mm256_set1_epi8((char)byte); }
static inline vec_t vec_table(const uint8_t *table)
{
    return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)table));
}
/* PSHUFB looks up within 16-byte lanes and gives 0 for an index with bit 7
 * set, hence the nibbles are masked. */
static inline vec_t vec_lookup_high(vec_t table, vec_t v)
{
    return _mm256_shuffle_epi8(table, _mm256_and_si256(_mm256_srli_epi16(v, 4), _mm256_set1_epi8(0x0F)));
}
static inline vec_t vec_lookup_low(vec_t table, vec_t v)
{
    return _mm256_shuffle_epi8(table, _mm256_and_si256(v, _mm256_set1_epi8(0x0F)));
}
static inline vec_t vec_or(vec_t a, vec_t b) { return _mm256_or_si256(a, b); }
static inline vec_t vec_and(vec_t a, vec_t b) { return _mm256_and_si256(a, b); }
static inline vec_t vec_xor(vec_t a, vec_t b) { return _mm256_xor_si256(a, b); }
static inline vec_t vec_subs(vec_t a, vec_t b) { return _mm256_subs_epu8(a, b); }
/* VPALIGNR shifts within 16-byte lanes: the lane before each lane is
 * (previous high lane, this low lane), put together by VPERM2I128. */
#define vec_prev(v, before, n) \
    _mm256_alignr_epi8((v), _mm256_permute2x128_si256((before), (v), 0x21), 16 - (n))
static inline int vec_any(vec_t v) { return !_mm256_testz_si256(v, v); }
static inline size_t vec_first_nonzero(vec_t v)
{
    uint32_t zero = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_setzero_si256()));
    return (size_t)__builtin_ctz(~zero);
}
static inline int vec_is_ascii(vec_t v) { return _mm256_movemask_epi8(v) == 0; }
static inline int vec_is_positive(vec_t v)
{
    return _mm256_movemask_epi8(_mm256_cmpgt_epi8(v, _mm256_setzero_si256())) == -1;
}
static inline vec_t vec_min_signed(vec_t a, vec_t b) { return _mm256_min_epi8(a, b); }
static inline vec_t vec_min_unsigned(vec_t a, vec_t b) { return _mm256_min_epu8(a, b); }
static inline vec_t vec_max_unsigned(vec_t a, vec_t b) { return _mm256_max_epu8(a, b); }

#define UTF8_LOOKUP_NAME(stem) stem##_avx2
#include "utf8_lookup.h"

/* ---- and those utf_lengths.h adds ---- */
static inline vec_t vec_splat16(uint16_t unit) { return _mm256_set1_epi16((short)unit); }
static inline vec_t vec_splat32(uint32_t unit) { return _mm256_set1_epi32((int)unit); }
/* A comparison gives -1 where it holds: subtracting it counts. */
static inline vec_t vec_count_gt8(vec_t acc, vec_t v, vec_t t) { return _mm256_sub_epi8(acc, _mm256_cmpgt_epi8(v, t)); }
static inline vec_t vec_count_eq16(vec_t acc, vec_t a, vec_t b) { return _mm256_sub_epi16(acc, _mm256_cmpeq_epi16(a, b)); }
static inline vec_t vec_count_lt32(vec_t acc, vec_t a, vec_t b) { return _mm256_sub_epi32(acc, _mm256_cmpgt_epi32(b, a)); }
static inline vec_t vec_count_lt16(vec_t acc, vec_t a, vec_t b) { return _mm256_sub_epi16(acc, _mm256_cmpgt_epi16(b, a)); }
static inline vec_t vec_narrow_quarters(vec_t a, vec_t b)
{
    return _mm256_packs_epi32(_mm256_srai_epi32(a, 2), _mm256_srai_epi32(b, 2));
}
static inline uint64_t vec_sum64(vec_t v)
{
    __m128i halves = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    return (uint64_t)_mm_cvtsi128_si64(halves) + (uint64_t)_mm_extract_epi64(halves, 1);
}
static inline uint64_t vec_sum8(vec_t acc) { return vec_sum64(_mm256_sad_epu8(acc, _mm256_setzero_si256())); }
static inline uint64_t vec_sum32(vec_t acc)
{
    vec_t low = _mm256_and_si256(acc, _mm256_set1_epi64x(0xFFFFFFFF));
    return vec_sum64(_mm256_add_epi64(low, _mm256_srli_epi64(acc, 32)));
}
static inline uint64_t vec_sum16(vec_t acc) { return vec_sum32(_mm256_madd_epi16(acc, _mm256_set1_epi16(1))); }
static inline vec_t vec_swap16(vec_t v)
{
    return _mm256_shuffle_epi8(v, _mm256_setr_epi8(1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14,
                                                   1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14));
}
static inline vec_t vec_swap32(vec_t v)
{
    return _mm256_shuffle_epi8(v, _mm256_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12,
                                                   3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12));
}

#define VEC_MASK16_BITS 2 /* VPMOVMSKB: both bytes of a unit */
static inline uint64_t vec_eq16_mask(vec_t a, vec_t b)
{
    return (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi16(a, b));
}
/* v, opaque to the compiler (utf_lengths.h: its thresholds) */
static inline vec_t vec_held(vec_t v)
{
    __asm__("" : "+x"(v));
    return v;
}
#define UTF_LENGTHS_NAME(stem) stem##_avx2
#include "utf_lengths.h"

/* ---- and those utf16_validate.h adds ---- */
static inline void vec_store(uint8_t *p, vec_t v) { _mm256_storeu_si256((__m256i *)p, v); }
static inline vec_t vec_max_u16(vec_t a, vec_t b) { return _mm256_max_epu16(a, b); }
/* (AVX2 compares signed only: what saturates to 0 is at or below limit) */
static inline int vec_any_above_u16(vec_t v, vec_t limit)
{
    vec_t above = _mm256_subs_epu16(v, limit);
    return !_mm256_testz_si256(above, above);
}
static inline int vec_any_above_u16_x4(const vec_t *v, vec_t limit)
{
    return vec_any_above_u16(vec_max_u16(vec_max_u16(v[0], v[1]), vec_max_u16(v[2], v[3])), limit);
}
#include "utf16_validate.h"

#if defined(__clang__)
#pragma clang attribute pop
#elif defined(__GNUC__)
#pragma GCC pop_options
#endif
#endif
