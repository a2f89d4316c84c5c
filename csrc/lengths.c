/*
 * lengths.c -- the scalar kernel's output lengths of well-formed text, by
 * counting code units: the reference for csrc/simd/utf_lengths.h, which
 * computes the same sums a vector at a time (its comment gives the rules:
 * Table 3-6 for UTF-8, D91 for UTF-16, D90 for UTF-32).
 *
 * Each loop counts in stretches with 32-bit sums, which cannot overflow and
 * let the compiler vectorise the loop for the baseline instruction set.
 */
#include "kernels.h"

#define STRETCH 4096

static inline uint32_t unit16(const uint8_t *p, int big_endian)
{
    return big_endian ? (uint32_t)p[0] << 8 | p[1] : (uint32_t)p[1] << 8 | p[0];
}

static inline int32_t unit32(const uint8_t *p, int big_endian)
{
    return (int32_t)(big_endian
                         ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
                         : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 |
                               p[0]);
}

/* Every byte that is not a continuation byte 80..BF (as a signed byte,
 * above -65) begins a code point. */
size_t utf8_code_points_scalar(const uint8_t *src, size_t len)
{
    size_t total = 0;
    for (size_t i = 0; i < len;) {
        size_t end = len - i > STRETCH ? i + STRETCH : len;
        uint32_t stretch = 0;
        for (; i < end; i++)
            stretch += (int8_t)src[i] > -65;
        total += stretch;
    }
    return total;
}

/* A code unit per code point, and a second one (a surrogate pair, D91) per
 * 4-byte lead byte F0..F4. */
size_t utf8_utf16_units_scalar(const uint8_t *src, size_t len)
{
    size_t total = 0;
    for (size_t i = 0; i < len;) {
        size_t end = len - i > STRETCH ? i + STRETCH : len;
        uint32_t stretch = 0;
        for (; i < end; i++)
            stretch += ((int8_t)src[i] > -65) + (src[i] >= 0xF0);
        total += stretch;
    }
    return total;
}

static inline size_t utf16_utf8_length(const uint8_t *src, size_t len, int big_endian)
{
    size_t units = len / 2, less = 0;
    for (size_t k = 0; k < units;) {
        size_t end = units - k > STRETCH ? k + STRETCH : units;
        uint32_t stretch = 0;
        for (; k < end; k++) {
            uint32_t unit = unit16(src + 2 * k, big_endian);
            stretch += (unit < 0x80) + (unit < 0x800) + ((unit & 0xF800) == 0xD800);
        }
        less += stretch;
    }
    return 3 * units - less;
}

/* One instance per byte order, so that each loop is vectorised. */
size_t utf16_utf8_length_scalar(const uint8_t *src, size_t len, int big_endian)
{
    return big_endian ? utf16_utf8_length(src, len, 1) : utf16_utf8_length(src, len, 0);
}

static inline size_t utf16_surrogates(const uint8_t *src, size_t len, int big_endian)
{
    size_t units = len / 2, total = 0;
    for (size_t k = 0; k < units;) {
        size_t end = units - k > STRETCH ? k + STRETCH : units;
        uint32_t stretch = 0;
        for (; k < end; k++)
            stretch += (unit16(src + 2 * k, big_endian) & 0xF800) == 0xD800;
        total += stretch;
    }
    return total;
}

size_t utf16_surrogates_scalar(const uint8_t *src, size_t len, int big_endian)
{
    return big_endian ? utf16_surrogates(src, len, 1) : utf16_surrogates(src, len, 0);
}

static inline size_t utf32_utf8_length(const uint8_t *src, size_t len, int big_endian)
{
    size_t units = len / 4, less = 0;
    for (size_t k = 0; k < units;) {
        size_t end = units - k > STRETCH ? k + STRETCH : units;
        uint32_t stretch = 0;
        for (; k < end; k++) {
            int32_t unit = unit32(src + 4 * k, big_endian);
            stretch += (unit < 0x80) + (unit < 0x800) + (unit < 0x10000);
        }
        less += stretch;
    }
    return 4 * units - less;
}

size_t utf32_utf8_length_scalar(const uint8_t *src, size_t len, int big_endian)
{
    return big_endian ? utf32_utf8_length(src, len, 1) : utf32_utf8_length(src, len, 0);
}

static inline size_t utf32_supplementary(const uint8_t *src, size_t len, int big_endian)
{
    size_t units = len / 4, bmp = 0;
    for (size_t k = 0; k < units;) {
        size_t end = units - k > STRETCH ? k + STRETCH : units;
        uint32_t stretch = 0;
        for (; k < end; k++)
            stretch += unit32(src + 4 * k, big_endian) < 0x10000;
        bmp += stretch;
    }
    return units - bmp;
}

size_t utf32_supplementary_scalar(const uint8_t *src, size_t len, int big_endian)
{
    return big_endian ? utf32_supplementary(src, len, 1) : utf32_supplementary(src, len, 0);
}
