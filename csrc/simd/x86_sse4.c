/*
 * x86_sse4.c -- the SSE4 kernel, for x86-64 CPUs with SSSE3 and SSE4.1
 * (Intel Penryn and later, AMD Bulldozer and later): UTF-8 validation by
 * nibble lookups 16 bytes per vector (utf8_lookup.h).  The lookups are
 * PSHUFB and the shifts across vectors PALIGNR (SSSE3); the zero test is
 * PTEST (SSE4.1).  ASCII runs are found by the SSE2 kernel's finder.
 */
#include "../kernels.h"

#if defined(UTFKIT_X86_64)
#include <immintrin.h>
#include <string.h>

/* Everything below is compiled for ssse3,sse4.1, with no -m flag for the build. */
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("ssse3,sse4.1"))), apply_to = function)
#elif defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("ssse3,sse4.1")
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

#define UTF8_LOOKUP_NAME(stem) stem##_sse4
#include "utf8_lookup.h"

#if defined(__clang__)
#pragma clang attribute pop
#elif defined(__GNUC__)
#pragma GCC pop_options
#endif
#endif
