/*
 * utf16_validate.h -- UTF-16 validation (Unicode 3.9 D91), alone or fused
 * with a copy of the text, written once over a few vector operations and
 * compiled once per instruction set (the including file has set the
 * target, as for utf_lengths.h, which it includes first).
 *
 * Most text has no surrogate at all, so the loop asks one question per
 * block of UTF16_VALIDATE_STEP vectors, and asks it as cheaply as it can,
 * since the loop is bound by its loads only while it spends about one
 * vector operation per vector loaded:
 *
 *   - the filter: is any unit at or above D800?  The unsigned maximum of
 *     the block's vectors, one operation per vector, says no for all text
 *     below D800 -- every alphabet, the CJK ideographs, Hangul;
 *   - the exact test: is any unit in D800..DFFF?  Flipping bit 13 (XOR
 *     2000) swaps C000..DFFF with E000..FFFF, so that exactly the
 *     surrogates land on F800..FFFF, the top of the range: the unsigned
 *     maximum of the flipped vectors is above F7FF exactly when the block
 *     has a surrogate.  Two operations per vector.
 *
 * Text with units from E000 up (CJK's full-width punctuation FF00..FFEF,
 * U+FEFF, private use) or with surrogates tends to have them in block
 * after block, where the filter would only add its cost: once it fails,
 * the next UTF16_VALIDATE_EXACT_BLOCKS blocks take the exact test alone,
 * then the filter is tried again.  Only a block with a surrogate has its
 * pairs checked, vector by vector, as utf_lengths.h's
 * utf16_validate_utf8_length does: the trail mask (DC00..DFFF) must equal
 * the lead mask (D800..DBFF) moved one unit on, the last lead of a vector
 * carried into the next.
 *
 * Besides what utf_lengths.h needs (vec_splat16, vec_and, vec_xor,
 * vec_eq16_mask, vec_swap16, VEC_MASK16_BITS, and vec_load_partial from
 * utf8_lookup.h), the including file defines
 *
 *     vec_store(p, v)            stores the VEC_BYTES bytes of v at p (unaligned)
 *     vec_max_u16(a, b)          lane-wise unsigned maximum of 16-bit lanes
 *     vec_any_above_u16(v, l)    nonzero if some 16-bit lane of v is above that of l (unsigned)
 *     vec_any_above_u16_x4(v, l) the same for any of the four vectors v[0..3]
 *
 * and names the kernel as for utf_lengths.h (UTF_LENGTHS_NAME).
 */
#include <string.h>

/* Vectors per block (a power of two: the maxima are taken as a tree). */
#ifndef UTF16_VALIDATE_STEP
#define UTF16_VALIDATE_STEP 8
#endif
/* Blocks that take the exact test alone after the filter has failed. */
#ifndef UTF16_VALIDATE_EXACT_BLOCKS
#define UTF16_VALIDATE_EXACT_BLOCKS 16
#endif
/* 1: the copy loads a whole block before it stores any of it; 0: each
 * vector is stored as soon as it is loaded.  A load whose address equals
 * an older store's in its low 12 bits is re-issued after it ("4K
 * aliasing" in the Intel 64 and IA-32 Architectures Optimization
 * Reference Manual): with the output less than a vector ahead of
 * the input in a page (dst - src modulo 4096), a vector stored as soon as
 * it is loaded aliases the next vector's load, and a block loaded first
 * takes that away but for one load per block.  The including file
 * chooses, by measurement. */
#ifndef UTF16_COPY_LOADS_FIRST
#define UTF16_COPY_LOADS_FIRST 0
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

/* The maxima of the block's vectors, each first XOR-ed with flip (0000:
 * the filter; 2000: the exact test, above F7FF exactly for a surrogate),
 * taken as a tree down to `parts` vectors (a power of two) in highest[]. */
static inline void UTF_LENGTHS_NAME(utf16_block_maxima)(const vec_t *unit, vec_t flip, vec_t *highest,
                                                        int parts)
{
    for (int k = 0; k < UTF16_VALIDATE_STEP / 2; k++)
        highest[k] = vec_max_u16(vec_xor(unit[k], flip), vec_xor(unit[k + UTF16_VALIDATE_STEP / 2], flip));
    for (int width = UTF16_VALIDATE_STEP / 4; width >= parts; width /= 2)
        for (int k = 0; k < width; k++)
            highest[k] = vec_max_u16(highest[k], highest[k + width]);
}

/* The block of vectors at src, in unit[] (byte-swapped when big_endian);
 * with copy, stored to dst as they were read. */
static inline __attribute__((always_inline)) void
UTF_LENGTHS_NAME(utf16_load_block)(const uint8_t *src, uint8_t *dst, int copy, int big_endian, vec_t *unit)
{
    for (int k = 0; k < UTF16_VALIDATE_STEP; k++) {
        unit[k] = vec_load(src + k * VEC_BYTES);
        if (copy && !UTF16_COPY_LOADS_FIRST)
            vec_store(dst + k * VEC_BYTES, unit[k]);
    }
    for (int k = 0; copy && UTF16_COPY_LOADS_FIRST && k < UTF16_VALIDATE_STEP; k++)
        vec_store(dst + k * VEC_BYTES, unit[k]);
    for (int k = 0; big_endian && k < UTF16_VALIDATE_STEP; k++)
        unit[k] = vec_swap16(unit[k]);
}

/* Not a carry of utf16_head_pairs: a surrogate out of place in the head. */
#define UTF16_HEAD_MISPLACED (~(uint64_t)0)

/* The head of utf16_validate_into when it holds surrogates (text of
 * emoji, say): their pairs (D91) checked in the head's `head` bytes (its
 * lanes past them hold 0000, no trail, so that a lead in the head's last
 * unit shows as misplaced in the lane after it).  When they are in place,
 * the head is taken alone, and the carry into the first block is returned:
 * 0, or a lead in the head's last unit, whose trail (the unit after the
 * head) is then in the first block, which so takes the exact test.  For a
 * surrogate out of place, UTF16_HEAD_MISPLACED: the text then runs
 * unaligned, and the blocks find it.  Out of line, and returning its
 * answer: the filter's loop after it keeps the code it had without it. */
static __attribute__((noinline, cold)) uint64_t
UTF_LENGTHS_NAME(utf16_head_pairs)(vec_t unit, const uint8_t *src, size_t head, int big_endian)
{
    uint64_t carry = 0;
    uint64_t misplaced = UTF_LENGTHS_NAME(utf16_misplaced_surrogates)(unit, &carry);
    unsigned head_bits = (unsigned)(head / 2) * VEC_MASK16_BITS;
    uint64_t lead_at_end = misplaced >> head_bits & (((uint64_t)1 << VEC_MASK16_BITS) - 1);
    unsigned next = big_endian ? (unsigned)src[head] << 8 | src[head + 1]
                               : (unsigned)src[head + 1] << 8 | src[head];
    if ((misplaced & (((uint64_t)1 << head_bits) - 1)) != 0 ||
        (lead_at_end != 0 && (next & 0xFC00) != 0xDC00))
        return UTF16_HEAD_MISPLACED;
    return lead_at_end;
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
    const vec_t no_flip = vec_splat16(0), surrogates_to_top = vec_splat16(0x2000);
    const vec_t below_surrogates = vec_splat16(0xD7FF), below_flipped = vec_splat16(0xF7FF);
    uint64_t carry = 0, misplaced = 0;
    size_t i = 0;
    /* A load that straddles two cache lines costs two, a store more: a
     * head up to the next VEC_BYTES boundary of dst (the copy) or src
     * (validation alone) is checked alone, and the stores (loads) after it
     * are aligned.  When dst and src lie the same distance past a boundary
     * both are; when they do not, the copy aligns its stores, which
     * measured faster on every kernel than aligning its loads (sse4, avx2,
     * avx512; text of emoji, Chinese, Latin; each of src and dst 0, 2, 16,
     * 32 and 48 bytes past a 64-byte boundary).  A head must be whole
     * units: with dst at an odd address, the copy aligns its loads when
     * src is at an even one; with both odd, or a misplaced surrogate in
     * the head, the text runs unaligned. */
    size_t head = (VEC_BYTES - (uintptr_t)(copy ? dst : src) % VEC_BYTES) % VEC_BYTES;
    if (head % 2 != 0)
        head = (VEC_BYTES - (uintptr_t)src % VEC_BYTES) % VEC_BYTES;
    if (head % 2 == 0 && head != 0 && len >= UTF16_VALIDATE_STEP * VEC_BYTES + head) {
        vec_t unit = vec_load_partial(src, head);
        if (big_endian)
            unit = vec_swap16(unit);
        /* (the lanes past head load as 0000, which flips to 2000) */
        uint64_t head_carry = 0;
        if (vec_any_above_u16(vec_xor(unit, surrogates_to_top), below_flipped))
            head_carry = UTF_LENGTHS_NAME(utf16_head_pairs)(unit, src, head, big_endian);
        if (head_carry != UTF16_HEAD_MISPLACED) {
            carry = head_carry;
            if (copy)
                memcpy(dst, src, head);
            i = head;
        }
    }
    const size_t block = UTF16_VALIDATE_STEP * VEC_BYTES;
    while (len - i >= block) {
        vec_t unit[UTF16_VALIDATE_STEP], highest[UTF16_VALIDATE_STEP / 2];
        UTF_LENGTHS_NAME(utf16_load_block)(src + i, copy ? dst + i : dst, copy, big_endian, unit);
        i += block;
        /* (no lead is carried into a block the filter passes: below;
         * nor from the head, whose carried lead's trail is in this block) */
        UTF_LENGTHS_NAME(utf16_block_maxima)(unit, no_flip, highest, 4);
        if (!vec_any_above_u16_x4(highest, below_surrogates))
            continue;
        /* This block and the next UTF16_VALIDATE_EXACT_BLOCKS, and any
         * after them while a lead is carried, take the exact test alone. */
        for (int exact_blocks = 0;; exact_blocks++) {
            UTF_LENGTHS_NAME(utf16_block_maxima)(unit, surrogates_to_top, highest, 1);
            if (vec_any_above_u16(highest[0], below_flipped)) {
                for (int k = 0; k < UTF16_VALIDATE_STEP; k++)
                    misplaced |= UTF_LENGTHS_NAME(utf16_misplaced_surrogates)(unit[k], &carry);
                if (misplaced != 0)
                    return 0;
            } else if (carry != 0) {
                return 0; /* no surrogate: a lead carried in from before is unpaired */
            }
            if ((exact_blocks >= UTF16_VALIDATE_EXACT_BLOCKS && carry == 0) || len - i < block)
                break;
            UTF_LENGTHS_NAME(utf16_load_block)(src + i, copy ? dst + i : dst, copy, big_endian, unit);
            i += block;
        }
    }
    /* The units after the blocks (fewer than a block): their exact test
     * first, the lanes past the end loading as 0000 (flipped to 2000), and
     * the pairs only if it finds a surrogate. */
    vec_t rest_highest = vec_splat16(0);
    for (size_t at = i; at < len; at += VEC_BYTES) {
        size_t bytes = len - at < VEC_BYTES ? len - at : VEC_BYTES;
        vec_t unit = bytes == VEC_BYTES ? vec_load(src + at) : vec_load_partial(src + at, bytes);
        if (copy) {
            if (bytes == VEC_BYTES)
                vec_store(dst + at, unit);
            else
                memcpy(dst + at, src + at, bytes);
        }
        if (big_endian)
            unit = vec_swap16(unit);
        rest_highest = vec_max_u16(rest_highest, vec_xor(unit, surrogates_to_top));
    }
    if (!vec_any_above_u16(rest_highest, below_flipped))
        return carry == 0;
    for (; i < len; i += VEC_BYTES) {
        /* The lanes past the end load as 0000, which is no trail: a lead
         * in the last unit shows as misplaced. */
        vec_t unit = len - i < VEC_BYTES ? vec_load_partial(src + i, len - i) : vec_load(src + i);
        misplaced |= UTF_LENGTHS_NAME(utf16_misplaced_surrogates)(
            big_endian ? vec_swap16(unit) : unit, &carry);
    }
    return misplaced == 0 && carry == 0;
}

/* (one loop per byte order: no test of it inside) */
int UTF_LENGTHS_NAME(utf16_validate)(const uint8_t *src, size_t len, int big_endian)
{
    return big_endian ? UTF_LENGTHS_NAME(utf16_validate_into)(src, len, 1, NULL, 0)
                      : UTF_LENGTHS_NAME(utf16_validate_into)(src, len, 0, NULL, 0);
}

int UTF_LENGTHS_NAME(utf16_copy_if_well_formed)(const uint8_t *src, size_t len, int big_endian,
                                                uint8_t *dst)
{
    return big_endian ? UTF_LENGTHS_NAME(utf16_validate_into)(src, len, 1, dst, 1)
                      : UTF_LENGTHS_NAME(utf16_validate_into)(src, len, 0, dst, 1);
}
