/*
 * utf16_bmp_prefix.h -- how far UTF-16 or UTF-32 text holds only BMP
 * characters: the units the kernels' UTF-16 -> UTF-8 and UTF-32 -> UTF-8
 * blocks may convert for CESU-8 (UTR #26 section 2: a supplementary
 * character is two 3-byte sequences, not one 4-byte one) and MUTF-8 (JVM
 * spec section 4.4.7: U+0000 is C0 80, never 00), where the UTF-8 of those
 * units is already right.  Written once over utf_lengths.h's vector
 * operations and compiled per kernel: the including file includes it after
 * utf_lengths.h, under the same UTF_LENGTHS_NAME.
 */

/* Bytes of src[0..len) (a whole number of units) before the first unit
 * that is a surrogate (D800..DFFF), or 0000 with nul_is_ill_formed; the
 * units are in the byte order big_endian says (kernels.h). */
size_t UTF_LENGTHS_NAME(utf16_bmp_prefix_length)(const uint8_t *src, size_t len, int big_endian,
                                                 int nul_is_ill_formed)
{
    /* A unit read in the other byte order has its bytes swapped: so are
     * the constants, and no unit needs swapping. */
    const vec_t high_5 = vec_splat16(big_endian ? 0x00F8 : 0xF800);
    const vec_t surrogate = vec_splat16(big_endian ? 0x00D8 : 0xD800);
    const vec_t nul = vec_splat16(0);
    size_t units = len / 2, k = 0;
    /* Four vectors per test; the loop below finds the unit. */
    for (; units - k >= 2 * VEC_BYTES; k += 2 * VEC_BYTES) {
        vec_t a = vec_load(src + 2 * k), b = vec_load(src + 2 * k + VEC_BYTES);
        vec_t c = vec_load(src + 2 * k + 2 * VEC_BYTES), d = vec_load(src + 2 * k + 3 * VEC_BYTES);
        uint64_t stops = vec_eq16_mask(vec_and(a, high_5), surrogate) |
                         vec_eq16_mask(vec_and(b, high_5), surrogate) |
                         vec_eq16_mask(vec_and(c, high_5), surrogate) |
                         vec_eq16_mask(vec_and(d, high_5), surrogate);
        if (nul_is_ill_formed)
            stops |= vec_eq16_mask(a, nul) | vec_eq16_mask(b, nul) | vec_eq16_mask(c, nul) |
                     vec_eq16_mask(d, nul);
        if (stops != 0)
            break;
    }
    for (; units - k >= VEC_BYTES / 2; k += VEC_BYTES / 2) {
        vec_t v = vec_load(src + 2 * k);
        uint64_t stops = vec_eq16_mask(vec_and(v, high_5), surrogate);
        if (nul_is_ill_formed)
            stops |= vec_eq16_mask(v, nul);
        if (stops != 0)
            return 2 * (k + (size_t)__builtin_ctzll(stops) / VEC_MASK16_BITS);
    }
    for (; k < units; k++) {
        uint32_t unit = big_endian ? (uint32_t)src[2 * k] << 8 | src[2 * k + 1]
                                   : (uint32_t)src[2 * k + 1] << 8 | src[2 * k];
        if ((unit & 0xF800) == 0xD800 || (nul_is_ill_formed && unit == 0))
            break;
    }
    return 2 * k;
}

/* The bits of a vec_eq16_mask answer for the units a UTF-32 stop is found
 * in: a unit is two 16-bit lanes, the first (lower) of each pair. */
#define UTF32_BMP_MASK_BITS (VEC_BYTES / 2 * VEC_MASK16_BITS)
#define UTF32_BMP_ALL_LANES (((uint64_t)1 << UTF32_BMP_MASK_BITS) - 1) /* at most 32 bits */
#define UTF32_BMP_FIRST_LANES \
    ((VEC_MASK16_BITS == 1 ? 0x5555555555555555ull : 0x3333333333333333ull) & UTF32_BMP_ALL_LANES)

/* Where the vector of UTF-32 units `v` stops a BMP stretch: a mask, in
 * vec_eq16_mask's lanes, with a bit set in the lanes of each unit 10000 and
 * above (its high half is not 0000; `high_half` selects that half in the
 * byte order of the text) and, with nul_is_ill_formed, of each unit 0
 * (both halves 0000). */
static inline uint64_t UTF_LENGTHS_NAME(utf32_bmp_stops)(vec_t v, vec_t high_half, int nul_is_ill_formed)
{
    const vec_t zero = vec_splat16(0);
    uint64_t stops = ~vec_eq16_mask(vec_and(v, high_half), zero) & UTF32_BMP_ALL_LANES;
    if (nul_is_ill_formed) {
        uint64_t zero_halves = vec_eq16_mask(v, zero);
        stops |= zero_halves & zero_halves >> VEC_MASK16_BITS & UTF32_BMP_FIRST_LANES;
    }
    return stops;
}

/* Bytes of src[0..len) (a whole number of units: len / 4 of them) before
 * the first unit 10000 and above -- a supplementary character, or no
 * scalar value at all -- or 0 with nul_is_ill_formed; the units are in the
 * byte order big_endian says (kernels.h).  Surrogate units are no stop:
 * the UTF-32 -> UTF-8 blocks leave them to the scalar reader anyway. */
size_t UTF_LENGTHS_NAME(utf32_bmp_prefix_length)(const uint8_t *src, size_t len, int big_endian,
                                                 int nul_is_ill_formed)
{
    /* The high half of a unit: its last two bytes in little-endian order,
     * its first two in big-endian order. */
    const vec_t high_half = vec_splat32(big_endian ? 0x0000FFFFu : 0xFFFF0000u);
    size_t units = len / 4, k = 0;
    /* Four vectors per test; the loop below finds the unit. */
    for (; units - k >= VEC_BYTES; k += VEC_BYTES) {
        const uint8_t *p = src + 4 * k;
        uint64_t stops =
            UTF_LENGTHS_NAME(utf32_bmp_stops)(vec_load(p), high_half, nul_is_ill_formed) |
            UTF_LENGTHS_NAME(utf32_bmp_stops)(vec_load(p + VEC_BYTES), high_half, nul_is_ill_formed) |
            UTF_LENGTHS_NAME(utf32_bmp_stops)(vec_load(p + 2 * VEC_BYTES), high_half, nul_is_ill_formed) |
            UTF_LENGTHS_NAME(utf32_bmp_stops)(vec_load(p + 3 * VEC_BYTES), high_half, nul_is_ill_formed);
        if (stops != 0)
            break;
    }
    for (; units - k >= VEC_BYTES / 4; k += VEC_BYTES / 4) {
        uint64_t stops = UTF_LENGTHS_NAME(utf32_bmp_stops)(vec_load(src + 4 * k), high_half,
                                                            nul_is_ill_formed);
        if (stops != 0)
            return 4 * (k + (size_t)__builtin_ctzll(stops) / (2 * VEC_MASK16_BITS));
    }
    for (; k < units; k++) {
        const uint8_t *p = src + 4 * k;
        uint32_t unit = big_endian ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
                                   : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
        if (unit >= 0x10000 || (nul_is_ill_formed && unit == 0))
            break;
    }
    return 4 * k;
}
