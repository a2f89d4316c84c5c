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

#define UTF8_SCAN_ASCII_PREFIX_LENGTH utfkit_ascii_prefix_length_sse2
#define UTF8_SCAN_NAME(stem) stem##_sse2
#include "../utf8_scan.h"
#endif
