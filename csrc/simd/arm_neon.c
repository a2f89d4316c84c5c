/*
 * arm_neon.c -- the NEON kernel, for 64-bit ARM (AArch64, where Advanced
 * SIMD is part of the base architecture, so it is always available there):
 * ASCII runs 64 bytes per step and UTF-8 validation by nibble lookups 16
 * bytes per vector (utf8_lookup.h): the lookups are TBL, the shifts across
 * vectors EXT, the zero tests UMAXV.
 */
#include "../kernels.h"

#if defined(UTFKIT_AARCH64)
#include <arm_neon.h>
#include <string.h>

size_t utfkit_ascii_prefix_length_neon(const uint8_t *src, size_t len)
{
    size_t i = 0;
    while (len - i >= 64) {
        uint8x16_t a = vld1q_u8(src + i), b = vld1q_u8(src + i + 16);
        uint8x16_t c = vld1q_u8(src + i + 32), d = vld1q_u8(src + i + 48);
        if (vmaxvq_u8(vorrq_u8(vorrq_u8(a, b), vorrq_u8(c, d))) >= 0x80)
            break; /* the first non-ASCII byte is in these 64; the word loop finds it */
        i += 64;
    }
    return i + utfkit_ascii_prefix_length_scalar(src + i, len - i);
}

/* ---- the vector operations utf8_lookup.h is written over ---- */
#define VEC_BYTES 16
typedef uint8x16_t vec_t;

static inline vec_t vec_load(const uint8_t *p) { return vld1q_u8(p); }
static inline vec_t vec_load_partial(const uint8_t *p, size_t n)
{
    uint8_t padded[VEC_BYTES] = {0};
    memcpy(padded, p, n);
    return vld1q_u8(padded);
}
static inline vec_t vec_splat(uint8_t byte) { return vdupq_n_u8(byte); }
static inline vec_t vec_table(const uint8_t *table) { return vld1q_u8(table); }
/* TBL gives 0 for an index past the table; the nibbles are in range. */
static inline vec_t vec_lookup_high(vec_t table, vec_t v) { return vqtbl1q_u8(table, vshrq_n_u8(v, 4)); }
static inline vec_t vec_lookup_low(vec_t table, vec_t v)
{
    return vqtbl1q_u8(table, vandq_u8(v, vdupq_n_u8(0x0F)));
}
static inline vec_t vec_or(vec_t a, vec_t b) { return vorrq_u8(a, b); }
static inline vec_t vec_and(vec_t a, vec_t b) { return vandq_u8(a, b); }
static inline vec_t vec_xor(vec_t a, vec_t b) { return veorq_u8(a, b); }
static inline vec_t vec_subs(vec_t a, vec_t b) { return vqsubq_u8(a, b); }
#define vec_prev(v, before, n) vextq_u8((before), (v), 16 - (n))
static inline int vec_any(vec_t v) { return vmaxvq_u8(v) != 0; }
/* SHRN by 4 packs the 0x00/0xFF bytes of VTST into one nibble each. */
static inline size_t vec_first_nonzero(vec_t v)
{
    uint8x8_t nibbles = vshrn_n_u16(vreinterpretq_u16_u8(vtstq_u8(v, v)), 4);
    return (size_t)__builtin_ctzll(vget_lane_u64(vreinterpret_u64_u8(nibbles), 0)) >> 2;
}
static inline int vec_is_ascii(vec_t v) { return vmaxvq_u8(v) < 0x80; }
static inline int vec_is_positive(vec_t v) { return vminvq_s8(vreinterpretq_s8_u8(v)) > 0; }
static inline vec_t vec_min_signed(vec_t a, vec_t b) { return vreinterpretq_u8_s8(vminq_s8(vreinterpretq_s8_u8(a), vreinterpretq_s8_u8(b))); }
static inline vec_t vec_min_unsigned(vec_t a, vec_t b) { return vminq_u8(a, b); }
static inline vec_t vec_max_unsigned(vec_t a, vec_t b) { return vmaxq_u8(a, b); }

#define UTF8_LOOKUP_NAME(stem) stem##_neon
#include "utf8_lookup.h"
#endif
