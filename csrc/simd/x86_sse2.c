/*
 * x86_sse2.c -- the SSE2 kernel (every x86-64 CPU has SSE2): ASCII runs
 * 32 bytes per step; the UTF-8 loops of utf8_scan.h.
 */
#include "../kernels.h"

#if defined(UTFKIT_X86_64)
#include <emmintrin.h>

size_t utfkit_ascii_prefix_length_sse2(const uint8_t *src, size_t len)
{
    size_t i = 0;
    /* Bit 7 of each byte gathered into a mask: 0 means all ASCII. */
    while (len - i >= 32) {
        __m128i a = _mm_loadu_si128((const __m128i *)(src + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(src + i + 16));
        unsigned mask = (unsigned)_mm_movemask_epi8(_mm_or_si128(a, b));
        if (mask != 0) {
            unsigned first = (unsigned)_mm_movemask_epi8(a);
            if (first != 0)
                return i + (size_t)__builtin_ctz(first);
            return i + 16 + (size_t)__builtin_ctz((unsigned)_mm_movemask_epi8(b));
        }
        i += 32;
    }
    return i + utfkit_ascii_prefix_length_scalar(src + i, len - i);
}

/* The length of the longest prefix of src[0..len) made of 64-byte steps
 * (and a last one of 32) of bytes 01..7F (MUTF-8's one-byte characters:
 * U+0000 is C0 80 there, JVM spec section 4.4.7).  A signed saturating
 * byte - 1 (PSUBSB) is negative exactly for 00 (-1) and 80..FF (which stay
 * at or below -127): one instruction per vector, then their sign bits ORed. */
static inline __m128i not_nonzero_ascii_sse2(__m128i v)
{
    return _mm_subs_epi8(v, _mm_set1_epi8(1));
}

static inline size_t nonzero_ascii_blocks_sse2(const uint8_t *src, size_t len)
{
    size_t i = 0;
    while (len - i >= 64) {
        __m128i a = not_nonzero_ascii_sse2(_mm_loadu_si128((const __m128i *)(src + i)));
        __m128i b = not_nonzero_ascii_sse2(_mm_loadu_si128((const __m128i *)(src + i + 16)));
        __m128i c = not_nonzero_ascii_sse2(_mm_loadu_si128((const __m128i *)(src + i + 32)));
        __m128i d = not_nonzero_ascii_sse2(_mm_loadu_si128((const __m128i *)(src + i + 48)));
        __m128i first = _mm_or_si128(a, b);
        if (_mm_movemask_epi8(_mm_or_si128(first, _mm_or_si128(c, d))) != 0) {
            /* the first half may still be one step of 32 */
            if (_mm_movemask_epi8(first) == 0)
                i += 32;
            break;
        }
        i += 64;
    }
    return i;
}

#define UTF8_SCAN_ASCII_PREFIX_LENGTH utfkit_ascii_prefix_length_sse2
#define UTF8_SCAN_NONZERO_ASCII_BLOCKS nonzero_ascii_blocks_sse2
#define UTF8_SCAN_NAME(stem) stem##_sse2
#include "../utf8_scan.h"
#endif
