/*
 * utf16_validate.h -- UTF-16 validation (Unicode 3.9 D91), alone or fused
 * with a copy of the text, written once over a few vector operations and
 * compiled once per instruction set (the including file has set the
 * target, as for utf_lengths.h, which it includes first).
 *
 * Most text has no surrogate at all, so the loop asks one question per four
 * vectors: is any unit in D800..DFFF?  Adding 2800 (mod 10000) moves exactly
 * the surrogates to 0000..07FF, so the unsigned minimum of the four vectors
 * has a lane below 0800 exactly when one of them has a surrogate: two vector
 * operations per vector.  Only then are the pairs checked, vector by vector,
 * as utf_lengths.h's utf16_validate_utf8_length does: the trail mask
 * (DC00..DFFF) must equal the lead mask (D800..DBFF) moved one unit on, the
 * last lead of a vector carried into the next.
 *
 * Besides what utf_lengths.h needs (vec_splat16, vec_and, vec_eq16_mask,
 * vec_swap16, VEC_MASK16_BITS, and vec_load_partial from utf8_lookup.h),
 * the including file defines
 *
 *     vec_store(p, v)     stores the VEC_BYTES bytes of v at p (unaligned)
 *     vec_add16(a, b)     lane-wise a + b in 16-bit lanes, modulo 10000
 *     vec_min_u16(a, b)   lane-wise unsigned minimum of 16-bit lanes
 *
 * and names the kernel as for utf_lengths.h (UTF_LENGTHS_NAME).
 */
#include <string.h>

/* Vectors per surrogate test. */
#ifndef UTF16_VALIDATE_STEP
#define UTF16_VALIDATE_STEP 8
#endif

/* The pair check of one vector of units (D91): misplaced gets a bit for each
 * trail that does not follow a lead and each lead not followed by a trail
 * (within the vector; a lead in the last unit is carried into the next). */
static inline uint64_t UTF_LENGTHS_NAME(utf16_misplaced_surrogates)(vec_t unit, uint64_t *carry)
{
    const uint64_t all = UTF_LENGTHS_MASK16_WIDTH == 64
                             ? ~(uint64_t)0
                             : ((uint64_t)1 << UTF_LENGTHS_MASK16_WIDTH) - 1;
    vec_t high_6 = vec_and(unit, vec_splat16(0xFC00));
    uint64_t leads = vec_eq16_mask(high_6, vec_splat16(0xD800));
    uint64_t trails = vec_eq16_mask(high_6, vec_splat16(0xDC00));
    uint64_t misplaced = trails ^ (((leads << VEC_MASK16_BITS) | *carry) & all);
    *carry = leads >> (UTF_LENGTHS_MASK16_WIDTH - VEC_MASK16_BITS);
    return misplaced;
}

/* 1 if src[0..len) is well-formed UTF-16 in the given byte order; with
 * copy, src[0..len) is stored to dst on the way (all of it when the answer
 * is 1; when it is 0, dst[0..len) holds a part of it). */
static inline __attribute__((always_inline)) int
UTF_LENGTHS_NAME(utf16_validate_into)(const uint8_t *src, size_t len, int big_endian,
                                      uint8_t *dst, int copy)
{
    if (len % 2 != 0)
        return 0; /* a byte cut off by the end: never a whole code unit */
    const vec_t to_low = vec_splat16(0x2800), above_7FF = vec_splat16(0xF800);
    const vec_t zero = vec_splat16(0);
    uint64_t carry = 0, misplaced = 0;
    size_t i = 0;
    /* A load that straddles two cache lines costs two, and this loop is
     * bound by its loads: a head up to src's next VEC_BYTES boundary is
     * checked alone when it holds no surrogate at all (so that no pair
     * crosses its end), and the loads after it are aligned.  Text with a
     * surrogate there, or at an odd address, runs unaligned. */
    size_t head = (VEC_BYTES - (uintptr_t)(copy ? dst : src) % VEC_BYTES) % VEC_BYTES;
    if (head % 2 == 0 && head != 0 && len >= UTF16_VALIDATE_STEP * VEC_BYTES + head) {
        vec_t unit = vec_load_partial(src, head);
        if (big_endian)
            unit = vec_swap16(unit);
        if (vec_eq16_mask(vec_and(vec_add16(unit, to_low), above_7FF), zero) == 0) {
            if (copy)
                memcpy(dst, src, head);
            i = head;
        }
    }
    while (len - i >= UTF16_VALIDATE_STEP * VEC_BYTES) {
        vec_t unit[UTF16_VALIDATE_STEP], lowest = vec_splat16(0xFFFF);
        for (int k = 0; k < UTF16_VALIDATE_STEP; k++) {
            unit[k] = vec_load(src + i + k * VEC_BYTES);
            if (copy)
                vec_store(dst + i + k * VEC_BYTES, unit[k]);
            if (big_endian)
                unit[k] = vec_swap16(unit[k]);
            lowest = vec_min_u16(lowest, vec_add16(unit[k], to_low));
        }
        i += UTF16_VALIDATE_STEP * VEC_BYTES;
        if (vec_eq16_mask(vec_and(lowest, above_7FF), zero) == 0) {
            /* no surrogate: a lead carried in from before is unpaired */
            if (carry != 0)
                return 0;
            continue;
        }
        for (int k = 0; k < UTF16_VALIDATE_STEP; k++)
            misplaced |= UTF_LENGTHS_NAME(utf16_misplaced_surrogates)(unit[k], &carry);
        if (misplaced != 0)
            return 0;
    }
    for (; len - i >= VEC_BYTES; i += VEC_BYTES) {
        vec_t unit = vec_load(src + i);
        if (copy)
            vec_store(dst + i, unit);
        misplaced |= UTF_LENGTHS_NAME(utf16_misplaced_surrogates)(
            big_endian ? vec_swap16(unit) : unit, &carry);
    }
    if (len - i != 0) {
        /* The lanes past the end load as 0000, which is no trail: a lead
         * in the last unit shows as misplaced. */
        vec_t unit = vec_load_partial(src + i, len - i);
        if (copy)
            memcpy(dst + i, src + i, len - i);
        misplaced |= UTF_LENGTHS_NAME(utf16_misplaced_surrogates)(
            big_endian ? vec_swap16(unit) : unit, &carry);
    }
    return misplaced == 0 && carry == 0;
}

int UTF_LENGTHS_NAME(utf16_validate)(const uint8_t *src, size_t len, int big_endian)
{
    return UTF_LENGTHS_NAME(utf16_validate_into)(src, len, big_endian, NULL, 0);
}

int UTF_LENGTHS_NAME(utf16_copy_if_well_formed)(const uint8_t *src, size_t len, int big_endian,
                                                uint8_t *dst)
{
    return UTF_LENGTHS_NAME(utf16_validate_into)(src, len, big_endian, dst, 1);
}
