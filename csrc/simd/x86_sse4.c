/*
 * x86_sse4.c -- the SSE4 kernel, for x86-64 CPUs with SSSE3 and SSE4.1
 * (Intel Penryn and later, AMD Bulldozer and later): UTF-8 validation by
 * nibble lookups 16 bytes per vector (utf8_lookup.h).  The lookups are
 * PSHUFB and the shifts across vectors PALIGNR (SSSE3); the zero test is
 * PTEST (SSE4.1).  ASCII runs are found by the SSE2 kernel's finder.
 * Output lengths by counting 16 bytes per vector (utf_lengths.h).
 */
#include "../kernels.h"

#if defined(UTFKIT_X86_64)
#include <immintrin.h>
#include <string.h>

/* Everything below is compiled for ssse3,sse4.1,popcnt (the features
 * dispatch.c checks for this kernel), with no -m flag for the build. */
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("ssse3,sse4.1,popcnt"))), apply_to = function)
#elif defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("ssse3,sse4.1,popcnt")
#endif

/* ---- the vector operations utf8_lookup.h is written over ---- */
#define VEC_BYTES 16
typedef __m128i vec_t;

static inline vec_t vec_load(const uint8_t *p) { return _mm_loadu_si128((const __m128i *)p); }
static inline vec_t vec_load_partial(const uint8_t *p, size_t n)
{
    uint8_t padded[VEC_BYTES] = {0};
    memcpy(padded, p, n);
    return vec_load(padded);
}
static inline vec_t vec_splat(uint8_t byte) { return _mm_set1_epi8((char)byte); }
static inline vec_t vec_table(const uint8_t *table) { return vec_load(table); }
/* PSHUFB looks up within 16-byte lanes and gives 0 for an index with bit 7
 * set, hence the nibbles are masked. */
static inline vec_t vec_lookup_high(vec_t table, vec_t v)
{
    return _mm_shuffle_epi8(table, _mm_and_si128(_mm_srli_epi16(v, 4), _mm_set1_epi8(0x0F)));
}
static inline vec_t vec_lookup_low(vec_t table, vec_t v)
{
    return _mm_shuffle_epi8(table, _mm_and_si128(v, _mm_set1_epi8(0x0F)));
}
static inline vec_t vec_or(vec_t a, vec_t b) { return _mm_or_si128(a, b); }
static inline vec_t vec_and(vec_t a, vec_t b) { return _mm_and_si128(a, b); }
static inline vec_t vec_xor(vec_t a, vec_t b) { return _mm_xor_si128(a, b); }
static inline vec_t vec_subs(vec_t a, vec_t b) { return _mm_subs_epu8(a, b); }
#define vec_prev(v, before, n) _mm_alignr_epi8((v), (before), 16 - (n))
static inline int vec_any(vec_t v) { return !_mm_testz_si128(v, v); }
static inline size_t vec_first_nonzero(vec_t v)
{
    unsigned zero = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128()));
    return (size_t)__builtin_ctz(~zero);
}
static inline int vec_is_ascii(vec_t v) { return _mm_movemask_epi8(v) == 0; }
static inline int vec_is_positive(vec_t v)
{
    return _mm_movemask_epi8(_mm_cmpgt_epi8(v, _mm_setzero_si128())) == 0xFFFF;
}
static inline vec_t vec_min_signed(vec_t a, vec_t b) { return _mm_min_epi8(a, b); }
static inline vec_t vec_min_unsigned(vec_t a, vec_t b) { return _mm_min_epu8(a, b); }
static inline vec_t vec_max_unsigned(vec_t a, vec_t b) { return _mm_max_epu8(a, b); }

#define UTF8_LOOKUP_NAME(stem) stem##_sse4
#include "utf8_lookup.h"

/* ---- and those utf_lengths.h adds ---- */
static inline vec_t vec_splat16(uint16_t unit) { return _mm_set1_epi16((short)unit); }
static inline vec_t vec_splat32(uint32_t unit) { return _mm_set1_epi32((int)unit); }
/* A comparison gives -1 where it holds: subtracting it counts. */
static inline vec_t vec_count_gt8(vec_t acc, vec_t v, vec_t t) { return _mm_sub_epi8(acc, _mm_cmpgt_epi8(v, t)); }
static inline vec_t vec_count_eq16(vec_t acc, vec_t a, vec_t b) { return _mm_sub_epi16(acc, _mm_cmpeq_epi16(a, b)); }
static inline vec_t vec_count_lt32(vec_t acc, vec_t a, vec_t b) { return _mm_sub_epi32(acc, _mm_cmplt_epi32(a, b)); }
static inline vec_t vec_count_lt16(vec_t acc, vec_t a, vec_t b) { return _mm_sub_epi16(acc, _mm_cmplt_epi16(a, b)); }
static inline vec_t vec_narrow_quarters(vec_t a, vec_t b)
{
    return _mm_packs_epi32(_mm_srai_epi32(a, 2), _mm_srai_epi32(b, 2));
}
static inline uint64_t vec_sum64(vec_t v)
{
    return (uint64_t)_mm_cvtsi128_si64(v) + (uint64_t)_mm_extract_epi64(v, 1);
}
static inline uint64_t vec_sum8(vec_t acc) { return vec_sum64(_mm_sad_epu8(acc, _mm_setzero_si128())); }
static inline uint64_t vec_sum32(vec_t acc)
{
    vec_t low = _mm_and_si128(acc, _mm_set1_epi64x(0xFFFFFFFF));
    return vec_sum64(_mm_add_epi64(low, _mm_srli_epi64(acc, 32)));
}
static inline uint64_t vec_sum16(vec_t acc) { return vec_sum32(_mm_madd_epi16(acc, _mm_set1_epi16(1))); }
static inline vec_t vec_swap16(vec_t v)
{
    return _mm_shuffle_epi8(v, _mm_setr_epi8(1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14));
}
static inline vec_t vec_swap32(vec_t v)
{
    return _mm_shuffle_epi8(v, _mm_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12));
}

#define VEC_MASK16_BITS 2 /* PMOVMSKB: both bytes of a unit */
static inline uint64_t vec_eq16_mask(vec_t a, vec_t b)
{
    return (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi16(a, b));
}
/* v, opaque to the compiler (utf_lengths.h: its thresholds) */
static inline vec_t vec_held(vec_t v)
{
    __asm__("" : "+x"(v));
    return v;
}
#define UTF_LENGTHS_NAME(stem) stem##_sse4
#include "utf_lengths.h"

/* ---- and those utf16_validate.h adds ---- */
static inline void vec_store(uint8_t *p, vec_t v) { _mm_storeu_si128((__m128i *)p, v); }
static inline vec_t vec_max_u16(vec_t a, vec_t b) { return _mm_max_epu16(a, b); } /* SSE4.1 PMAXUW */
/* (SSE compares signed only: what saturates to 0 is at or below limit) */
static inline int vec_any_above_u16(vec_t v, vec_t limit)
{
    vec_t above = _mm_subs_epu16(v, limit);
    return !_mm_testz_si128(above, above); /* SSE4.1 PTEST */
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
