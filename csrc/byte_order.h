/*
 * byte_order.h -- code units in memory in either byte order (Unicode 3.9
 * D90-D99: the BE and LE encoding schemes), internal to the core.  Written
 * as memcpy plus a byte swap so that the compiler emits plain
 * (vectorisable) loads and stores.
 */
#ifndef UTFKIT_BYTE_ORDER_H
#define UTFKIT_BYTE_ORDER_H

#include <stdint.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define UTFKIT_ALWAYS_INLINE inline __attribute__((always_inline))
#define UTFKIT_NOINLINE __attribute__((noinline))
#else
#define UTFKIT_ALWAYS_INLINE inline
#define UTFKIT_NOINLINE
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define UTFKIT_HOST_BIG_ENDIAN 1
#else
#define UTFKIT_HOST_BIG_ENDIAN 0
#endif

static UTFKIT_ALWAYS_INLINE void store16(uint8_t *p, uint32_t unit, int big_endian)
{
    uint16_t value = (uint16_t)unit;
    if (big_endian != UTFKIT_HOST_BIG_ENDIAN)
        value = __builtin_bswap16(value);
    memcpy(p, &value, 2);
}

static UTFKIT_ALWAYS_INLINE void store32(uint8_t *p, uint32_t unit, int big_endian)
{
    if (big_endian != UTFKIT_HOST_BIG_ENDIAN)
        unit = __builtin_bswap32(unit);
    memcpy(p, &unit, 4);
}

static UTFKIT_ALWAYS_INLINE uint32_t load16(const uint8_t *p, int big_endian)
{
    uint16_t value;
    memcpy(&value, p, 2);
    return big_endian != UTFKIT_HOST_BIG_ENDIAN ? __builtin_bswap16(value) : value;
}

static UTFKIT_ALWAYS_INLINE uint32_t load32(const uint8_t *p, int big_endian)
{
    uint32_t value;
    memcpy(&value, p, 4);
    return big_endian != UTFKIT_HOST_BIG_ENDIAN ? __builtin_bswap32(value) : value;
}

#endif /* UTFKIT_BYTE_ORDER_H */
