/*
 * utf16_bmp_prefix.h -- how far UTF-16 text holds only BMP characters: the
 * units the kernels' UTF-16 -> UTF-8 blocks may convert for CESU-8 (UTR #26
 * section 2: a supplementary character is two 3-byte sequences, not one
 * 4-byte one) and MUTF-8 (JVM spec section 4.4.7: U+0000 is C0 80, never
 * 00), where the UTF-8 of those units is already right.  Written once over
 * utf_lengths.h's vector operations and compiled per kernel: the including
 * file includes it after utf_lengths.h, under the same UTF_LENGTHS_NAME.
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
