/*
 * scalar.c -- the portable kernel: plain C for any CPU.  ASCII runs are
 * found 8 bytes at a time as one 64-bit word ("SWAR"); the UTF-8 loops are
 * utf8_scan.h's.  It is always present, and UTFKIT_BACKEND=scalar forces
 * it, so that the tests exercise it on every machine.
 */
#include <string.h>

#include "kernels.h"

#define HIGH_BITS 0x8080808080808080ull

size_t utfkit_ascii_prefix_length_scalar(const uint8_t *src, size_t len)
{
    size_t i = 0;
    while (len - i >= 8) {
        uint64_t word;
        memcpy(&word, src + i, sizeof word); /* unaligned load, no aliasing issue */
        uint64_t high = word & HIGH_BITS;
        if (high != 0) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
            return i + (size_t)(__builtin_clzll(high) >> 3);
#else
            return i + (size_t)(__builtin_ctzll(high) >> 3);
#endif
        }
        i += 8;
    }
    while (i < len && src[i] < 0x80)
        i++;
    return i;
}

#define UTF8_SCAN_ASCII_PREFIX_LENGTH utfkit_ascii_prefix_length_scalar
#define UTF8_SCAN_NAME(stem) stem##_scalar
#include "utf8_scan.h"
