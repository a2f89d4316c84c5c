/*
 * latin1_widen.h -- Latin-1 widened to UTF-16 and UTF-32 (kernels.h:
 * latin1_to_utf16, latin1_to_utf32), written once over a few vector
 * operations and compiled once per instruction set by x86_latin1.c (the
 * including file has set the target, as for utf_lengths.h).
 *
 * A Latin-1 byte is the code point of its value, so each byte becomes one
 * code unit of the same value (Unicode 3.9 D90, D91; no surrogate and
 * nothing above 00FF can arise): n bytes make n units of U = 2 or 4 bytes,
 * and output byte b holds src[b / U] when b % U is the position of the
 * unit's low byte (0 little-endian, U - 1 big-endian), else 00.
 *
 * The stores are aligned to the destination: a vector stored at output byte
 * b holds, in lane j (bytes b + U*j ..), the byte src[(b + q) / U + j] at
 * lane byte q, where q = (low byte's position - b) mod U; so every vector
 * from the first VEC_BYTES boundary of dst on is made whatever the address
 * dst has (even one that is not a multiple of U, as a caller's out= slice
 * may be), and none is split across two cache lines (measured: into a
 * buffer 16 bytes past a 64-byte boundary, the unaligned stores of UTF-16
 * took 2.5 times as long).  The first and the last vector are stored
 * unaligned at the output's two ends, overlapping the aligned ones with the
 * same bytes, so exactly dst[0 .. U*n) is written.
 *
 * The including file defines:
 *
 *     WIDEN_VEC_BYTES                    the bytes of a vector
 *     widen_vec_t                        its type
 *     widen_lanes16(p), widen_lanes32(p) the WIDEN_VEC_BYTES / 2 (/ 4) bytes at p,
 *                                        zero-extended into 16- (32-) bit lanes
 *     widen_shl16(v, n), widen_shl32(v, n)
 *                                        each lane shifted left by n bits (n a
 *                                        constant once inlined)
 *     widen_store(p, v), widen_storeu(p, v)
 *                                        v stored at p, aligned / unaligned
 *
 * and names the kernel: #define LATIN1_WIDEN_NAME(stem) stem##_avx2.  This file
 * undefines them all at its end, so that the next kernel defines its own.
 */

/* The vector at an output byte whose lane byte q (see above) holds the
 * low byte, from the code points at `from` (unit and q constants). */
static inline __attribute__((always_inline)) widen_vec_t LATIN1_WIDEN_NAME(widened_vector)(const uint8_t *from,
                                                                         size_t unit, unsigned q)
{
    if (unit == 2)
        return q == 0 ? widen_lanes16(from) : widen_shl16(widen_lanes16(from), 8);
    switch (q) {
    case 0:
        return widen_lanes32(from);
    case 1:
        return widen_shl32(widen_lanes32(from), 8);
    case 2:
        return widen_shl32(widen_lanes32(from), 16);
    default:
        return widen_shl32(widen_lanes32(from), 24);
    }
}

/* The aligned vectors from output byte b (at a WIDEN_VEC_BYTES boundary of
 * dst) while whole ones fit before `total`; q = (low byte's position - b)
 * mod unit, the same for all of them. */
static inline __attribute__((always_inline)) void LATIN1_WIDEN_NAME(store_aligned)(const uint8_t *src, uint8_t *dst,
                                                                 size_t b, size_t total,
                                                                 size_t unit, unsigned q)
{
    /* four vectors per step, so that the loop's own instructions do not
     * hold back the stores */
    for (; total - b >= 4 * WIDEN_VEC_BYTES; b += 4 * WIDEN_VEC_BYTES) {
        const uint8_t *from = src + (b + q) / unit;
        for (size_t k = 0; k < 4; k++)
            widen_store(dst + b + k * WIDEN_VEC_BYTES,
                        LATIN1_WIDEN_NAME(widened_vector)(from + k * WIDEN_VEC_BYTES / unit, unit, q));
    }
    for (; total - b >= WIDEN_VEC_BYTES; b += WIDEN_VEC_BYTES)
        widen_store(dst + b, LATIN1_WIDEN_NAME(widened_vector)(src + (b + q) / unit, unit, q));
}

/* The block: the whole of src[0..len) into dst (room for unit * len
 * bytes), or nothing when that is less than a vector. */
static inline __attribute__((always_inline)) size_t LATIN1_WIDEN_NAME(widen)(const uint8_t *src, size_t len,
                                                           int big_endian, uint8_t *dst,
                                                           size_t *written, size_t unit)
{
    size_t total = unit * len;
    if (total < WIDEN_VEC_BYTES) {
        *written = 0;
        return 0;
    }
    unsigned low = big_endian & 1 ? (unsigned)unit - 1 : 0; /* the low byte's position */
    widen_storeu(dst, LATIN1_WIDEN_NAME(widened_vector)(src, unit, low));
    size_t b = (size_t)(-(uintptr_t)dst & (WIDEN_VEC_BYTES - 1)); /* the first boundary */
    /* (the switch makes each shift a constant; UTF-16 needs two cases) */
    switch ((low - b) & (unit - 1)) {
    case 0:
        LATIN1_WIDEN_NAME(store_aligned)(src, dst, b, total, unit, 0);
        break;
    case 1:
        LATIN1_WIDEN_NAME(store_aligned)(src, dst, b, total, unit, 1);
        break;
    case 2:
        LATIN1_WIDEN_NAME(store_aligned)(src, dst, b, total, unit, 2);
        break;
    default:
        LATIN1_WIDEN_NAME(store_aligned)(src, dst, b, total, unit, 3);
        break;
    }
    widen_storeu(dst + total - WIDEN_VEC_BYTES,
                 LATIN1_WIDEN_NAME(widened_vector)(src + len - WIDEN_VEC_BYTES / unit, unit, low));
    *written = total;
    return len;
}

size_t LATIN1_WIDEN_NAME(utfkit_latin1_to_utf16)(const uint8_t *src, size_t len, int big_endian,
                                                 uint8_t *dst, size_t *written)
{
    return LATIN1_WIDEN_NAME(widen)(src, len, big_endian, dst, written, 2);
}

size_t LATIN1_WIDEN_NAME(utfkit_latin1_to_utf32)(const uint8_t *src, size_t len, int big_endian,
                                                 uint8_t *dst, size_t *written)
{
    return LATIN1_WIDEN_NAME(widen)(src, len, big_endian, dst, written, 4);
}

#undef LATIN1_WIDEN_NAME
#undef WIDEN_VEC_BYTES
#undef widen_vec_t
#undef widen_lanes16
#undef widen_lanes32
#undef widen_shl16
#undef widen_shl32
#undef widen_store
#undef widen_storeu
