/*
 * x86_sse4_transcode.c -- transcoding blocks for CPUs with SSSE3, SSE4.1
 * and POPCNT: the transcoding blocks of the sse4 kernel (kernels.h).
 *
 * The same methods as the avx2 blocks, on 16-byte vectors: PSHUFB (SSSE3)
 * packs variable-length output with the tables of x86_shuffle_tables.h,
 * PBLENDVB, PMOVZX, PMINUW and PACKUSDW are SSE4.1.
 *
 *   UTF-8 -> UTF-16 / UTF-32, 16 input bytes per step: the block is checked
 *     against Unicode 3.9 Table 3-7 (continuation bytes exactly where the
 *     lead bytes ask for them; no C0, C1, F5..FF; E0 A0..BF; ED 80..9F;
 *     F0 90..BF; F4 80..8F), then every code point is computed at its
 *     character's last byte from that byte and the three before it, and the
 *     code units at last bytes are packed 8 positions at a time (a
 *     surrogate pair, Unicode 3.9 Table 3-5, takes the last two bytes of its
 *     character).  Characters that start in bytes 0..12 end in the block;
 *     the step consumes them and stops before the first character that
 *     starts after byte 12.  A block that is not well-formed goes to the
 *     scalar reader.  Text that begins with blocks mixing ASCII and
 *     characters of two or three bytes goes first to mixed_run, which takes
 *     16 bytes per step at a fixed stride, characters cut by a block's end
 *     written with the next block; the steps hand text back to it where
 *     blocks of three-byte characters follow a block of ASCII.
 *   UTF-16 / UTF-32 -> UTF-8: each scalar value is encoded into a 32-bit
 *     lane, lead byte first (Unicode 3.9 Table 3-6), and the first 1..4
 *     bytes of four lanes are gathered per PSHUFB.  Surrogates (UTF-16)
 *     and units that are not scalar values (UTF-32, D90) stop the block
 *     there.
 *   UTF-16 <-> UTF-32: BMP units directly; UTF-32 -> UTF-16 splits the
 *     supplementary scalar values into pairs itself.
 *
 * Variable-length output goes through byte_writer: whole 16-byte stores
 * within the room kernels.h promises (the worst-case output of the whole
 * input), the last vector copied exactly.
 */
#include <string.h>

#include "../kernels.h"

#if defined(UTFKIT_X86_64)
#include <immintrin.h>

#include "x86_shuffle_tables.h"

/* Everything below is compiled for these features, with no -m flag for the build. */
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("ssse3,sse4.1,popcnt"))), apply_to = function)
#elif defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("ssse3,sse4.1,popcnt")
#endif

#include "x86_byte_writer.h"

static inline __m128i swap_16(__m128i v)
{
    return _mm_shuffle_epi8(v, _mm_setr_epi8(1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14));
}

static inline __m128i swap_32(__m128i v)
{
    return _mm_shuffle_epi8(v, _mm_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12));
}

/* Unsigned byte comparisons, as SSE has only signed ones. */
static inline __m128i at_least(__m128i v, uint8_t bound)
{
    return _mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8((char)bound)), v);
}

static inline __m128i at_most(__m128i v, uint8_t bound)
{
    return _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8((char)bound)), v);
}

static inline uint32_t byte_mask(__m128i v)
{
    return (uint32_t)_mm_movemask_epi8(v);
}

/* Four 1-bit lane flags spread to two bits per lane (bit k to bit 2k). */
static const uint8_t two_bits_per_lane[16] = {0x00, 0x01, 0x04, 0x05, 0x10, 0x11, 0x14, 0x15,
                                              0x40, 0x41, 0x44, 0x45, 0x50, 0x51, 0x54, 0x55};

/* ---- UTF-8 -> UTF-16 / UTF-32 ---- */

/* A character that starts in bytes 0..LAST_LEAD of a 16-byte block ends
 * inside it (Table 3-7: at most 4 bytes). */
#define LAST_LEAD 12

/* Each byte's predecessor one, two or three bytes back, and its successor
 * (zero outside the block). */
static inline __m128i byte_before(__m128i v) { return _mm_slli_si128(v, 1); }
static inline __m128i byte_two_before(__m128i v) { return _mm_slli_si128(v, 2); }
static inline __m128i byte_three_before(__m128i v) { return _mm_slli_si128(v, 3); }
static inline __m128i byte_after(__m128i v) { return _mm_srli_si128(v, 1); }

/* Packs the code units of the positions set in `last` (8 bits) of eight
 * 16-bit lanes and writes them as UTF-16, or as UTF-32 with bits 16..20
 * from the low bytes of the 16-bit lanes of `tops`. */
static inline void put_units(byte_writer *writer, __m128i units, __m128i tops, unsigned last,
                             int big_endian, int utf16)
{
    const __m128i kept = _mm_load_si128((const __m128i *)utfkit_kept_units[last]);
    units = _mm_shuffle_epi8(units, kept);
    unsigned count = (unsigned)__builtin_popcount(last);
    if (utf16) {
        byte_writer_put(writer, units, 2 * count);
        return;
    }
    tops = _mm_shuffle_epi8(tops, kept);
    __m128i first = _mm_unpacklo_epi16(units, tops), second = _mm_unpackhi_epi16(units, tops);
    if (big_endian) {
        first = swap_32(first);
        second = swap_32(second);
    }
    byte_writer_put(writer, first, 4 * (count < 4 ? count : 4));
    if (count > 4)
        byte_writer_put(writer, second, 4 * (count - 4));
}

/* Steps for the commonest blocks of non-ASCII text, each checked against
 * Table 3-7 as the general step is; a block that fails its test goes to the
 * general step.  Each returns the bytes it consumed, 0 if the block is not
 * its kind. */

/* The steps below share what the caller found out about the block, one
 * bit per byte, by signed byte compares (80..BF are the bytes below -64,
 * C0 and C1 the other bytes below -62, E0..FF the bytes above -33 that
 * are not ASCII, F0..FF those above -17, A0..BF and ASCII those above -97):
 * `non_ascii` 80..FF, `continuation` 80..BF (and `is_continuation` as
 * vector), `three` E0..FF. */

/* Characters of one or two bytes only (the caller saw no byte E0..FF), as in Cyrillic,
 * Greek, Arabic or Hebrew text: every C2..DF lead byte has one continuation
 * byte after it; C0 and C1 begin no row.  A lead byte in byte 15 waits for
 * the next step. */
static inline size_t one_or_two_byte_step(__m128i block, __m128i is_continuation, uint32_t continuation,
                                          uint32_t non_ascii, byte_writer *writer, int big_endian, int utf16)
{
    uint32_t leads = non_ascii & ~continuation;
    size_t consumed = 16 - (leads >> 15);
    uint32_t in_block = (1u << consumed) - 1;
    uint32_t c0_or_c1 = byte_mask(_mm_cmpgt_epi8(_mm_set1_epi8(-62), block)) & leads;
    if (((leads << 1) & 0xFFFF) != continuation || (c0_or_c1 & in_block) != 0)
        return 0;
    /* at each character's last byte: low byte yyxxxxxx, high byte 00000yyy */
    __m128i before = _mm_and_si128(byte_before(block), is_continuation);
    __m128i low = _mm_or_si128(_mm_and_si128(block, _mm_set1_epi8(0x7F)),
                               _mm_and_si128(_mm_slli_epi16(before, 6), _mm_set1_epi8((char)0xC0)));
    __m128i high = _mm_and_si128(_mm_srli_epi16(before, 2), _mm_set1_epi8(0x07));
    uint32_t last = ~(continuation >> 1) & in_block;
    int swap = utf16 && big_endian;
    __m128i zero = _mm_setzero_si128();
    put_units(writer, swap ? _mm_unpacklo_epi8(high, low) : _mm_unpacklo_epi8(low, high), zero, last & 0xFF,
              big_endian, utf16);
    put_units(writer, swap ? _mm_unpackhi_epi8(high, low) : _mm_unpackhi_epi8(low, high), zero, last >> 8,
              big_endian, utf16);
    return consumed;
}

/* Five characters of three bytes in bytes 0..14, as in Chinese or
 * Japanese text: E0..EF lead bytes at 0, 3, 6, 9, 12 with two continuation
 * bytes each (E0: A0..BF first; ED: 80..9F first). */
static inline size_t three_byte_step(__m128i block, byte_writer *writer, int big_endian, int utf16)
{
    const uint32_t lead_positions = 0x1249, continuation_positions = 0x6DB6;
    uint32_t continuation = byte_mask(_mm_cmpgt_epi8(_mm_set1_epi8(-64), block));
    if ((continuation & 0x7FFF) != continuation_positions)
        return 0;
    __m128i second = byte_after(block);
    __m128i narrow = _mm_or_si128(
        _mm_and_si128(_mm_cmpeq_epi8(block, _mm_set1_epi8((char)0xE0)), at_most(second, 0x9F)),
        _mm_and_si128(_mm_cmpeq_epi8(block, _mm_set1_epi8((char)0xED)), at_least(second, 0xA0)));
    uint32_t three = byte_mask(at_least(block, 0xE0)) & ~byte_mask(at_least(block, 0xF0));
    if ((three & lead_positions) != lead_positions || (byte_mask(narrow) & lead_positions) != 0)
        return 0;
    /* per character: last two bytes as 10yyyyyy:10xxxxxx, lead byte as 1110zzzz:0 */
    __m128i tail = _mm_shuffle_epi8(block, _mm_setr_epi8(2, 1, 5, 4, 8, 7, 11, 10, 14, 13, -1, -1, -1, -1, -1, -1));
    __m128i lead = _mm_shuffle_epi8(block, _mm_setr_epi8(-1, 0, -1, 3, -1, 6, -1, 9, -1, 12, -1, -1, -1, -1, -1, -1));
    __m128i units = _mm_or_si128(
        _mm_or_si128(_mm_and_si128(tail, _mm_set1_epi16(0x3F)),
                     _mm_and_si128(_mm_srli_epi16(tail, 2), _mm_set1_epi16(0x0FC0))),
        _mm_slli_epi16(lead, 4));
    if (utf16) {
        byte_writer_put(writer, big_endian ? swap_16(units) : units, 10);
    } else {
        __m128i first = _mm_cvtepu16_epi32(units), fifth = _mm_cvtepu16_epi32(_mm_srli_si128(units, 8));
        byte_writer_put(writer, big_endian ? swap_32(first) : first, 16);
        byte_writer_put(writer, big_endian ? swap_32(fifth) : fifth, 4);
    }
    return 15;
}

/* Four characters of four bytes, as in emoji: F0..F4 lead bytes at 0, 4,
 * 8, 12 with three continuation bytes each (F0: 90..BF first; F4: 80..8F
 * first); to UTF-16, four surrogate pairs (Table 3-5). */
static inline size_t four_byte_step(__m128i block, byte_writer *writer, int big_endian, int utf16)
{
    const uint32_t lead_positions = 0x1111;
    uint32_t continuation = byte_mask(_mm_cmpgt_epi8(_mm_set1_epi8(-64), block));
    if (continuation != 0xEEEE)
        return 0;
    __m128i second = byte_after(block);
    __m128i narrow = _mm_or_si128(
        _mm_and_si128(_mm_cmpeq_epi8(block, _mm_set1_epi8((char)0xF0)), at_most(second, 0x8F)),
        _mm_and_si128(_mm_cmpeq_epi8(block, _mm_set1_epi8((char)0xF4)), at_least(second, 0x90)));
    uint32_t four = byte_mask(at_least(block, 0xF0)) & ~byte_mask(at_least(block, 0xF5));
    if ((four & lead_positions) != lead_positions || (byte_mask(narrow) & lead_positions) != 0)
        return 0;
    /* lead byte first in each lane's high byte: 11110uuu 10uuzzzz 10yyyyyy 10xxxxxx */
    __m128i bytes = swap_32(block);
    __m128i code_point = _mm_or_si128(
        _mm_or_si128(_mm_and_si128(bytes, _mm_set1_epi32(0x3F)),
                     _mm_and_si128(_mm_srli_epi32(bytes, 2), _mm_set1_epi32(0xFC0))),
        _mm_or_si128(_mm_and_si128(_mm_srli_epi32(bytes, 4), _mm_set1_epi32(0x3F000)),
                     _mm_and_si128(_mm_srli_epi32(bytes, 6), _mm_set1_epi32(0x1C0000))));
    if (utf16) {
        __m128i offset = _mm_sub_epi32(code_point, _mm_set1_epi32(0x10000));
        __m128i lead = _mm_or_si128(_mm_srli_epi32(offset, 10), _mm_set1_epi32(0xD800));
        __m128i trail = _mm_or_si128(_mm_and_si128(offset, _mm_set1_epi32(0x3FF)), _mm_set1_epi32(0xDC00));
        __m128i pairs = _mm_or_si128(lead, _mm_slli_epi32(trail, 16));
        byte_writer_put(writer, big_endian ? swap_16(pairs) : pairs, 16);
    } else {
        byte_writer_put(writer, big_endian ? swap_32(code_point) : code_point, 16);
    }
    return 16;
}

/* Characters of one, two and three bytes mixed (no byte F0..FF), as in
 * Korean, Hindi or Thai words between ASCII spaces, or CJK text between
 * ASCII markup: every character that starts in bytes 0..13 ends in the
 * block, so the step consumes 14..16 bytes.  Checked against Table 3-7 as
 * the general step is, less the rows of F0..F4: C2..DF lead one
 * continuation byte, E0..EF two (E0: A0..BF first; ED: 80..9F first); C0
 * and C1 begin no row.  Returns 0 if the block is not well-formed there,
 * for the scalar reader. */
#define MIXED_LAST_LEAD 13

static inline size_t mixed_step(__m128i block, __m128i is_continuation, uint32_t continuation,
                                uint32_t non_ascii, uint32_t three, byte_writer *writer, int big_endian,
                                int utf16)
{
    uint32_t leads = non_ascii & ~continuation;
    uint32_t starts = ~continuation & 0xFFFF;
    size_t consumed = MIXED_LAST_LEAD + 1 + (size_t)__builtin_ctz((starts >> (MIXED_LAST_LEAD + 1)) | 4);
    uint32_t taken = starts & ((2u << MIXED_LAST_LEAD) - 1);
    uint32_t in_block = (1u << consumed) - 1;
    if (((leads & taken) << 1 | (three & taken) << 2) != (continuation & in_block))
        return 0;
    /* bit k: byte k + 1 is A0..BF (it is a continuation byte where it is
     * checked: after a lead byte) */
    uint32_t upper_second = byte_mask(_mm_cmpgt_epi8(block, _mm_set1_epi8(-97))) >> 1;
    uint32_t e0 = byte_mask(_mm_cmpeq_epi8(block, _mm_set1_epi8((char)0xE0)));
    uint32_t ed = byte_mask(_mm_cmpeq_epi8(block, _mm_set1_epi8((char)0xED)));
    uint32_t c0_or_c1 = byte_mask(_mm_cmpgt_epi8(_mm_set1_epi8(-62), block)) & leads;
    if (((e0 & ~upper_second) | (ed & upper_second) | c0_or_c1) & taken)
        return 0;
    /* At each character's last byte: low byte yyxxxxxx, high byte zzzzyyyy
     * (16-bit shifts; the bits they carry across bytes are masked off). */
    __m128i continued = _mm_and_si128(is_continuation, byte_before(is_continuation));
    __m128i before = _mm_and_si128(byte_before(block), is_continuation);
    __m128i two_before = _mm_and_si128(byte_two_before(block), continued);
    __m128i low = _mm_or_si128(_mm_and_si128(block, _mm_set1_epi8(0x7F)),
                               _mm_and_si128(_mm_slli_epi16(before, 6), _mm_set1_epi8((char)0xC0)));
    __m128i high = _mm_or_si128(_mm_and_si128(_mm_srli_epi16(before, 2), _mm_set1_epi8(0x0F)),
                                _mm_and_si128(_mm_slli_epi16(two_before, 4), _mm_set1_epi8((char)0xF0)));
    uint32_t last = ~(continuation >> 1) & in_block;
    int swap = utf16 && big_endian;
    __m128i zero = _mm_setzero_si128();
    put_units(writer, swap ? _mm_unpacklo_epi8(high, low) : _mm_unpacklo_epi8(low, high), zero, last & 0xFF,
              big_endian, utf16);
    put_units(writer, swap ? _mm_unpackhi_epi8(high, low) : _mm_unpackhi_epi8(low, high), zero, last >> 8,
              big_endian, utf16);
    return consumed;
}

/* Runs of blocks of characters of one, two and three bytes mixed (no byte
 * F0..FF), as in Korean, Hindi or Thai words between ASCII spaces, 16
 * bytes per step at a fixed stride: each character's code unit is
 * computed at its last byte from that byte and the two before it, which
 * may lie in the block before (PALIGNR), and a character that goes on into
 * the next block is written with that block.  No step waits for the
 * length of the one before it, as mixed_step's do.
 *
 * Checked against Unicode 3.9 Table 3-7 as mixed_step is: every C2..DF
 * lead byte has one continuation byte after it and every E0..EF lead two,
 * in this block or the next (`owed` carries those of the next), and there
 * are none elsewhere; E0 is followed by A0..BF and ED by 80..9F; C0 and C1
 * begin no row; no byte is F0..FF.  The run stops before a block where
 * this fails (a lead byte's fault shows in the block of the byte after
 * it), before two blocks of ASCII that owe nothing to the one before
 * (the caller's ASCII step is faster on longer stretches; a single one, as
 * between words in CJK pages, costs less here than handing the text over
 * and back), and when fewer than 16 bytes are left (before the last 16..31
 * bytes, before one such block).
 * It returns the bytes of the whole characters written -- not the one the
 * last block cuts -- and where their code units end. */
typedef struct mixed_run_end {
    size_t consumed;
    uint8_t *out;
} mixed_run_end;

/* What mixed_run knows of one block once it is checked. */
typedef struct mixed_block_check {
    uint32_t wanted;        /* bit k: byte k is owed as a continuation byte (bits 16, 17: the next block's) */
    uint32_t failed;        /* nonzero if the block breaks Table 3-7 or holds a byte F0..FF */
    __m128i is_continuation;
    __m128i before;         /* the byte before each byte (the block before's byte 15 before byte 0) */
} mixed_block_check;

static inline mixed_block_check check_mixed_block(__m128i block, __m128i previous, uint32_t owed, int nul)
{
    mixed_block_check check;
    uint32_t non_ascii = byte_mask(block);
    uint32_t three = byte_mask(_mm_cmpgt_epi8(block, _mm_set1_epi8(-33))) & non_ascii;
    check.is_continuation = _mm_cmpgt_epi8(_mm_set1_epi8(-64), block);
    uint32_t continuation = byte_mask(check.is_continuation);
    uint32_t leads = non_ascii & ~continuation;
    check.wanted = leads << 1 | three << 2 | owed;
    check.before = _mm_alignr_epi8(block, previous, 15);
    /* After a byte C0 or C1 (which begin no row) or F0..FF, and E0 then
     * 80..9F (an overlong form), ED then A0..BF (a surrogate).  Every lead
     * byte has a byte after it in this block or the next, checked there
     * before its character is written. */
    __m128i after_c0_c1 = _mm_cmpeq_epi8(_mm_or_si128(check.before, _mm_set1_epi8(1)), _mm_set1_epi8((char)0xC1));
    __m128i after_f0_ff = _mm_cmpeq_epi8(_mm_max_epu8(check.before, _mm_set1_epi8((char)0xF0)), check.before);
    __m128i narrow = _mm_or_si128(
        _mm_and_si128(_mm_cmpeq_epi8(check.before, _mm_set1_epi8((char)0xE0)), _mm_cmpgt_epi8(_mm_set1_epi8(-96), block)),
        _mm_and_si128(_mm_cmpeq_epi8(check.before, _mm_set1_epi8((char)0xED)), _mm_cmpgt_epi8(block, _mm_set1_epi8(-97))));
    check.failed = ((check.wanted & 0xFFFF) ^ continuation) |
                   byte_mask(_mm_or_si128(narrow, _mm_or_si128(after_c0_c1, after_f0_ff)));
    if (nul) /* MUTF-8 (JVM spec section 4.4.7): U+0000 is C0 80, a byte 00 is ill-formed */
        check.failed |= byte_mask(_mm_cmpeq_epi8(block, _mm_setzero_si128()));
    return check;
}

/* Writes the code units of the characters that end in a checked block:
 * at each character's last byte, low byte yyxxxxxx and high byte zzzzyyyy
 * (16-bit shifts; the bits they carry across bytes are masked off), from
 * that byte and the two before it. */
static inline uint8_t *put_mixed_block(uint8_t *out, __m128i block, __m128i previous, const mixed_block_check *check,
                                       int big_endian, int utf16)
{
    __m128i continued = _mm_and_si128(check->is_continuation, _mm_cmpgt_epi8(_mm_set1_epi8(-64), check->before));
    __m128i two_before = _mm_and_si128(_mm_alignr_epi8(block, previous, 14), continued);
    __m128i before = _mm_and_si128(check->before, check->is_continuation);
    __m128i low = _mm_or_si128(_mm_and_si128(block, _mm_set1_epi8(0x7F)),
                               _mm_and_si128(_mm_slli_epi16(before, 6), _mm_set1_epi8((char)0xC0)));
    __m128i high = _mm_or_si128(_mm_and_si128(_mm_srli_epi16(before, 2), _mm_set1_epi8(0x0F)),
                                _mm_and_si128(_mm_slli_epi16(two_before, 4), _mm_set1_epi8((char)0xF0)));
    /* a byte ends a character unless a continuation byte is owed after it */
    uint32_t last = ~(check->wanted >> 1) & 0xFFFF;
    int swap = utf16 && big_endian;
    __m128i halves[2] = {swap ? _mm_unpacklo_epi8(high, low) : _mm_unpacklo_epi8(low, high),
                         swap ? _mm_unpackhi_epi8(high, low) : _mm_unpackhi_epi8(low, high)};
    /* Each half block's units are stored whole: at most 2 (UTF-16) or 4
     * (UTF-32) bytes per input byte read so far, within the room kernels.h
     * promises. */
    for (int half = 0; half < 2; half++) {
        unsigned kept = half ? last >> 8 : last & 0xFF;
        __m128i units = _mm_shuffle_epi8(halves[half], _mm_load_si128((const __m128i *)utfkit_kept_units[kept]));
        unsigned count = (unsigned)__builtin_popcount(kept);
        if (utf16) {
            _mm_storeu_si128((__m128i *)out, units);
            out += 2 * count;
        } else {
            __m128i low_four = _mm_cvtepu16_epi32(units), high_four = _mm_cvtepu16_epi32(_mm_srli_si128(units, 8));
            _mm_storeu_si128((__m128i *)out, big_endian ? swap_32(low_four) : low_four);
            _mm_storeu_si128((__m128i *)(out + 16), big_endian ? swap_32(high_four) : high_four);
            out += 4 * count;
        }
    }
    return out;
}

/* Two blocks per step while both pass, with one test for both; then one
 * block per step up to the one that fails. */
static inline __attribute__((always_inline)) mixed_run_end mixed_run(const uint8_t *src, size_t len, uint8_t *out,
                                                                     int big_endian, int utf16, int nul)
{
    size_t i = 0;
    __m128i previous = _mm_setzero_si128();
    uint32_t owed = 0;        /* continuation bytes owed at bits 0..1 of the next block */
    uint32_t last_wanted = 0; /* the last block's `wanted` */
    for (; len - i >= 32; i += 32) {
        __m128i first = _mm_loadu_si128((const __m128i *)(src + i));
        __m128i second = _mm_loadu_si128((const __m128i *)(src + i + 16));
        if ((byte_mask(first) | byte_mask(second) | owed) == 0)
            goto ended;
        mixed_block_check first_check = check_mixed_block(first, previous, owed, nul);
        mixed_block_check second_check = check_mixed_block(second, first, first_check.wanted >> 16, nul);
        if (first_check.failed | second_check.failed)
            break;
        out = put_mixed_block(out, first, previous, &first_check, big_endian, utf16);
        out = put_mixed_block(out, second, first, &second_check, big_endian, utf16);
        previous = second;
        last_wanted = second_check.wanted;
        owed = last_wanted >> 16;
    }
    for (; len - i >= 16; i += 16) {
        __m128i block = _mm_loadu_si128((const __m128i *)(src + i));
        if ((byte_mask(block) | owed) == 0)
            break;
        mixed_block_check check = check_mixed_block(block, previous, owed, nul);
        if (check.failed)
            break;
        out = put_mixed_block(out, block, previous, &check, big_endian, utf16);
        previous = block;
        last_wanted = check.wanted;
        owed = last_wanted >> 16;
    }
ended:;
    /* A character still owed bytes began at the last block's last byte
     * that is no lead's continuation byte (`wanted` marks those): it is
     * left for the caller. */
    mixed_run_end end = {owed != 0 ? i - 16 + (size_t)(31 - __builtin_clz(~last_wanted & 0xFFFF)) : i, out};
    return end;
}

/* One copy per output form, called rather than inlined, each aligned to a
 * cache line: the loop of the steps below keeps its registers and its
 * layout, and the run's own loop sits in the same place relative to the
 * instruction fetch windows whatever code is around it (both measurably
 * move the speed of the loops on some CPUs). */
#define MIXED_RUN_FUNCTION __attribute__((noinline, aligned(64)))
static MIXED_RUN_FUNCTION mixed_run_end mixed_run_utf16le(const uint8_t *src, size_t len, uint8_t *out)
{
    return mixed_run(src, len, out, 0, 1, 0);
}
static MIXED_RUN_FUNCTION mixed_run_end mixed_run_utf16be(const uint8_t *src, size_t len, uint8_t *out)
{
    return mixed_run(src, len, out, 1, 1, 0);
}
static MIXED_RUN_FUNCTION mixed_run_end mixed_run_utf32le(const uint8_t *src, size_t len, uint8_t *out)
{
    return mixed_run(src, len, out, 0, 0, 0);
}
static MIXED_RUN_FUNCTION mixed_run_end mixed_run_utf32be(const uint8_t *src, size_t len, uint8_t *out)
{
    return mixed_run(src, len, out, 1, 0, 0);
}
/* The same for MUTF-8, whose blocks stop before a byte 00 as well (the
 * run already stops before F0..FF). */
static MIXED_RUN_FUNCTION mixed_run_end mixed_run_nul_utf16le(const uint8_t *src, size_t len, uint8_t *out)
{
    return mixed_run(src, len, out, 0, 1, 1);
}
static MIXED_RUN_FUNCTION mixed_run_end mixed_run_nul_utf16be(const uint8_t *src, size_t len, uint8_t *out)
{
    return mixed_run(src, len, out, 1, 1, 1);
}
static MIXED_RUN_FUNCTION mixed_run_end mixed_run_nul_utf32le(const uint8_t *src, size_t len, uint8_t *out)
{
    return mixed_run(src, len, out, 0, 0, 1);
}
static MIXED_RUN_FUNCTION mixed_run_end mixed_run_nul_utf32be(const uint8_t *src, size_t len, uint8_t *out)
{
    return mixed_run(src, len, out, 1, 0, 1);
}

/* The steps hand the text back to mixed_run after this many steps in a
 * row over blocks with characters of three bytes (and no F0..FF) that
 * follow a block of ASCII: text that mixes ASCII markup or spaces with such
 * characters, as Thai, Hindi or CJK pages do.  Text without ASCII blocks
 * stays with the steps (three_byte_step is faster on CJK prose). */
#define RUN_AFTER_STEPS 4

/* Whether a block is 16 characters of one byte: ASCII, and for MUTF-8
 * (`nul`) bytes 01..7F, above 00 as signed bytes. */
static inline int ascii_block(__m128i block, int nul)
{
    if (nul)
        return _mm_movemask_epi8(_mm_cmpgt_epi8(block, _mm_setzero_si128())) == 0xFFFF;
    return _mm_movemask_epi8(block) == 0;
}

/* Inlined into each of its callers, so that `big_endian`, `utf16`, `bmp`
 * and `nul` are constants there and every test of them is decided at
 * compile time.  `bmp`: the block stops before a byte F0..FF, as the
 * readers of CESU-8 and MUTF-8 want it (no 4-byte form: UTR #26 section
 * 2); `nul` (MUTF-8, JVM spec section 4.4.7): before a byte 00 as well.
 * Either stops the step whose 16 bytes hold such a byte, before them (or
 * the general step before that byte's character). */
static inline __attribute__((always_inline)) size_t utf8_to_units(const uint8_t *src, size_t len,
                                                                  int big_endian, uint8_t *dst,
                                                                  size_t *written, int utf16,
                                                                  int *run_next, int bmp, int nul)
{
    size_t i = 0;
    byte_writer writer = byte_writer_at(dst);
    /* steps in a row over blocks with characters of three bytes since the
     * last stretch of ASCII or step of one- and two-byte characters (none
     * before the first: text that begins without one stays here) */
    unsigned run_steps = RUN_AFTER_STEPS;
    *run_next = 0;
    while (len - i >= 16) {
        __m128i block = _mm_loadu_si128((const __m128i *)(src + i));
        if (ascii_block(block, nul)) { /* 16 characters of one byte */
          /* the blocks of ASCII in a row in a loop of their own, whose few
           * instructions run alike wherever they are placed */
          do {
            uint8_t *out = byte_writer_before_wide_store(&writer);
            if (utf16) {
                __m128i low = _mm_cvtepu8_epi16(block), high = _mm_cvtepu8_epi16(_mm_srli_si128(block, 8));
                if (big_endian) {
                    low = swap_16(low);
                    high = swap_16(high);
                }
                _mm_storeu_si128((__m128i *)out, low);
                _mm_storeu_si128((__m128i *)(out + 16), high);
                writer.out = out + 32;
            } else {
                __m128i units[4] = {_mm_cvtepu8_epi32(block), _mm_cvtepu8_epi32(_mm_srli_si128(block, 4)),
                                    _mm_cvtepu8_epi32(_mm_srli_si128(block, 8)),
                                    _mm_cvtepu8_epi32(_mm_srli_si128(block, 12))};
                for (int quarter = 0; quarter < 4; quarter++)
                    _mm_storeu_si128((__m128i *)(out + 16 * quarter),
                                     big_endian ? swap_32(units[quarter]) : units[quarter]);
                writer.out = out + 64;
            }
            i += 16;
            if (len - i < 16)
                break;
            block = _mm_loadu_si128((const __m128i *)(src + i));
          } while (ascii_block(block, nul));
            run_steps = 0;
            continue;
        }
        if (nul && byte_mask(_mm_cmpeq_epi8(block, _mm_setzero_si128())) != 0)
            break;
        uint32_t non_ascii = (uint32_t)_mm_movemask_epi8(block);
        __m128i is_continuation = _mm_cmpgt_epi8(_mm_set1_epi8(-64), block);
        uint32_t continuation = byte_mask(is_continuation);
        uint32_t three = byte_mask(_mm_cmpgt_epi8(block, _mm_set1_epi8(-33))) & non_ascii;
        size_t fast = 0;
        if (three == 0)
            fast = one_or_two_byte_step(block, is_continuation, continuation, non_ascii, &writer, big_endian,
                                        utf16);
        else if ((continuation & 0x7FFF) == 0x6DB6)
            fast = three_byte_step(block, &writer, big_endian, utf16);
        if (fast != 0) {
            i += fast;
            run_steps = three != 0 ? run_steps + 1 : 0;
            if (run_steps == RUN_AFTER_STEPS)
                goto run_next;
            continue;
        }
        if ((byte_mask(_mm_cmpgt_epi8(block, _mm_set1_epi8(-17))) & non_ascii) == 0) {
            /* no byte F0..FF: characters of one, two and three bytes */
            fast = mixed_step(block, is_continuation, continuation, non_ascii, three, &writer, big_endian, utf16);
            if (fast == 0)
                break; /* not well-formed: the general step would stop here too */
            i += fast;
            if (++run_steps == RUN_AFTER_STEPS)
                goto run_next;
            continue;
        }
        if (bmp)
            break; /* a byte F0..FF */
        fast = four_byte_step(block, &writer, big_endian, utf16);
        if (fast != 0) {
            i += fast;
            continue;
        }
        uint32_t leads = ~continuation;
        size_t consumed = LAST_LEAD + 1 + (size_t)__builtin_ctz((leads >> (LAST_LEAD + 1)) | 8);
        uint32_t taken = leads & ((2u << LAST_LEAD) - 1);
        uint32_t in_block = (1u << consumed) - 1;
        /* Table 3-7: C0..DF lead one continuation byte, E0..EF two, F0..F4
         * three; then the rows with a narrower second byte. */
        uint32_t two = byte_mask(at_least(block, 0xC0)) & taken;
        uint32_t four = byte_mask(at_least(block, 0xF0)) & taken;
        if ((two << 1 | (three & taken) << 2 | four << 3) != (continuation & in_block))
            break;
        __m128i second = byte_after(block);
        __m128i narrow = _mm_or_si128(
            _mm_or_si128(
                _mm_and_si128(_mm_cmpeq_epi8(block, _mm_set1_epi8((char)0xE0)), at_most(second, 0x9F)),
                _mm_and_si128(_mm_cmpeq_epi8(block, _mm_set1_epi8((char)0xED)), at_least(second, 0xA0))),
            _mm_or_si128(
                _mm_and_si128(_mm_cmpeq_epi8(block, _mm_set1_epi8((char)0xF0)), at_most(second, 0x8F)),
                _mm_and_si128(_mm_cmpeq_epi8(block, _mm_set1_epi8((char)0xF4)), at_least(second, 0x90))));
        /* C0, C1 and F5..FF begin no row */
        __m128i no_row = _mm_or_si128(
            _mm_cmpeq_epi8(_mm_and_si128(block, _mm_set1_epi8((char)0xFE)), _mm_set1_epi8((char)0xC0)),
            at_least(block, 0xF5));
        if ((byte_mask(narrow) & taken) != 0 || (byte_mask(no_row) & in_block) != 0)
            break;
        i += consumed;
        /* At each character's last byte: low byte yyxxxxxx, high byte
         * zzzzyyyy and, for 4-byte characters, top byte 000uuuuu (16-bit
         * shifts; the bits they carry across bytes are masked off). */
        __m128i continued = _mm_and_si128(is_continuation, byte_before(is_continuation));
        __m128i before = _mm_and_si128(byte_before(block), is_continuation);
        __m128i two_before = _mm_and_si128(byte_two_before(block), continued);
        __m128i low = _mm_or_si128(
            _mm_and_si128(block, _mm_set1_epi8(0x7F)),
            _mm_and_si128(_mm_slli_epi16(before, 6), _mm_set1_epi8((char)0xC0)));
        __m128i high = _mm_or_si128(
            _mm_and_si128(_mm_srli_epi16(before, 2), _mm_set1_epi8(0x0F)),
            _mm_and_si128(_mm_slli_epi16(two_before, 4), _mm_set1_epi8((char)0xF0)));
        uint32_t last = ~(continuation >> 1) & in_block;
        __m128i top = _mm_setzero_si128();
        if (four != 0) {
            /* the last bytes of 4-byte characters: three continuation bytes in a row */
            __m128i fourth = _mm_and_si128(continued, byte_two_before(is_continuation));
            top = _mm_and_si128(
                fourth, _mm_or_si128(
                            _mm_and_si128(_mm_srli_epi16(two_before, 4), _mm_set1_epi8(0x03)),
                            _mm_and_si128(_mm_slli_epi16(byte_three_before(block), 2),
                                          _mm_set1_epi8(0x1C))));
            if (utf16) {
                /* Table 3-5: the trail surrogate 110111xx xxxxxxxx at the last
                 * byte, the lead 110110ww wwxxxxxx (wwww = uuuuu - 1) at the
                 * byte before it, from the top and high bytes after it. */
                __m128i top_after = _mm_sub_epi8(byte_after(top), _mm_set1_epi8(1));
                __m128i high_after = byte_after(high);
                __m128i lead_low = _mm_or_si128(
                    _mm_and_si128(_mm_slli_epi16(top_after, 6), _mm_set1_epi8((char)0xC0)),
                    _mm_and_si128(_mm_srli_epi16(high_after, 2), _mm_set1_epi8(0x3F)));
                __m128i lead_high = _mm_or_si128(
                    _mm_and_si128(_mm_srli_epi16(top_after, 2), _mm_set1_epi8(0x03)),
                    _mm_set1_epi8((char)0xD8));
                __m128i trail_high = _mm_or_si128(_mm_and_si128(high, _mm_set1_epi8(0x03)),
                                                  _mm_set1_epi8((char)0xDC));
                __m128i third = byte_after(fourth);
                high = _mm_blendv_epi8(_mm_blendv_epi8(high, trail_high, fourth), lead_high, third);
                low = _mm_blendv_epi8(low, lead_low, third);
                last |= byte_mask(third) & in_block;
            }
        }
        int swap = utf16 && big_endian;
        __m128i first_half = swap ? _mm_unpacklo_epi8(high, low) : _mm_unpacklo_epi8(low, high);
        __m128i second_half = swap ? _mm_unpackhi_epi8(high, low) : _mm_unpackhi_epi8(low, high);
        __m128i first_tops = _mm_unpacklo_epi8(top, _mm_setzero_si128());
        __m128i second_tops = _mm_unpackhi_epi8(top, _mm_setzero_si128());
        put_units(&writer, first_half, first_tops, last & 0xFF, big_endian, utf16);
        put_units(&writer, second_half, second_tops, last >> 8 & 0xFF, big_endian, utf16);
    }
    *written = (size_t)(byte_writer_finish(&writer) - dst);
    return i;
run_next:
    *run_next = 1;
    *written = (size_t)(byte_writer_finish(&writer) - dst);
    return i;
}

/* The steps' loop, one copy per output form and both byte orders, at the
 * start of a cache line: where its many branches fall relative to the
 * instruction fetch windows moves its speed by up to a third on some CPUs,
 * so it is kept the same whatever code is around it. */
#define STEPS_FUNCTION __attribute__((noinline, aligned(64)))
static STEPS_FUNCTION size_t steps_utf16(const uint8_t *src, size_t len, int big_endian, uint8_t *dst,
                                         size_t *written, int *run_next)
{
    return big_endian ? utf8_to_units(src, len, 1, dst, written, 1, run_next, 0, 0)
                      : utf8_to_units(src, len, 0, dst, written, 1, run_next, 0, 0);
}
static STEPS_FUNCTION size_t steps_utf32(const uint8_t *src, size_t len, int big_endian, uint8_t *dst,
                                         size_t *written, int *run_next)
{
    return big_endian ? utf8_to_units(src, len, 1, dst, written, 0, run_next, 0, 0)
                      : utf8_to_units(src, len, 0, dst, written, 0, run_next, 0, 0);
}
/* The same steps for the readers of CESU-8 (`bmp`) and MUTF-8 (`bmp` and
 * `nul`), one copy per form and output form. */
static STEPS_FUNCTION size_t cesu8_steps_utf16(const uint8_t *src, size_t len, int big_endian, uint8_t *dst,
                                               size_t *written, int *run_next)
{
    return big_endian ? utf8_to_units(src, len, 1, dst, written, 1, run_next, 1, 0)
                      : utf8_to_units(src, len, 0, dst, written, 1, run_next, 1, 0);
}
static STEPS_FUNCTION size_t mutf8_steps_utf16(const uint8_t *src, size_t len, int big_endian, uint8_t *dst,
                                               size_t *written, int *run_next)
{
    return big_endian ? utf8_to_units(src, len, 1, dst, written, 1, run_next, 1, 1)
                      : utf8_to_units(src, len, 0, dst, written, 1, run_next, 1, 1);
}
static STEPS_FUNCTION size_t cesu8_steps_utf32(const uint8_t *src, size_t len, int big_endian, uint8_t *dst,
                                               size_t *written, int *run_next)
{
    return big_endian ? utf8_to_units(src, len, 1, dst, written, 0, run_next, 1, 0)
                      : utf8_to_units(src, len, 0, dst, written, 0, run_next, 1, 0);
}
static STEPS_FUNCTION size_t mutf8_steps_utf32(const uint8_t *src, size_t len, int big_endian, uint8_t *dst,
                                               size_t *written, int *run_next)
{
    return big_endian ? utf8_to_units(src, len, 1, dst, written, 0, run_next, 1, 1)
                      : utf8_to_units(src, len, 0, dst, written, 0, run_next, 1, 1);
}

/* Whether a block holds characters of two or three bytes, with no byte
 * F0..FF: mixed_run's kind of block.  2 if it also holds ASCII, 1 if not,
 * 0 if it is not of that kind. */
static inline int mixed_block(const uint8_t *src)
{
    __m128i block = _mm_loadu_si128((const __m128i *)src);
    uint32_t non_ascii = byte_mask(block);
    uint32_t four = byte_mask(_mm_cmpgt_epi8(block, _mm_set1_epi8(-17))) & non_ascii;
    if (non_ascii == 0 || four != 0)
        return 0;
    return non_ascii != 0xFFFF ? 2 : 1;
}

/* Whether the first four blocks are each of mixed_run's kind and at least
 * two of them mix in ASCII (Korean, Hindi, Russian or Hebrew words
 * between ASCII spaces). */
static inline int starts_mixed(const uint8_t *src)
{
    int first = mixed_block(src), second = mixed_block(src + 16), third = mixed_block(src + 32),
        fourth = mixed_block(src + 48);
    return first && second && third && fourth && first + second + third + fourth >= 6;
}

/* Text that starts with blocks mixing ASCII and characters of two or three
 * bytes goes to mixed_run first, whose fixed stride is faster there than
 * the steps, which change step with every mix of lengths; the steps take
 * whatever it leaves, and hand the text back to it where such blocks come
 * again (RUN_AFTER_STEPS). */
static inline __attribute__((always_inline)) size_t utf8_to_units_dispatch(const uint8_t *src, size_t len,
                                                                           int big_endian, uint8_t *dst,
                                                                           size_t *written, int utf16,
                                                                           int bmp, int nul)
{
    size_t done = 0;
    uint8_t *out = dst;
    int run_next = len >= 64 && starts_mixed(src);
    for (;;) {
        if (run_next) {
            mixed_run_end run =
                nul ? (utf16 ? (big_endian ? mixed_run_nul_utf16be : mixed_run_nul_utf16le)(src + done, len - done, out)
                             : (big_endian ? mixed_run_nul_utf32be : mixed_run_nul_utf32le)(src + done, len - done, out))
                    : (utf16 ? (big_endian ? mixed_run_utf16be : mixed_run_utf16le)(src + done, len - done, out)
                             : (big_endian ? mixed_run_utf32be : mixed_run_utf32le)(src + done, len - done, out));
            done += run.consumed;
            out = run.out;
        }
        size_t steps_written;
        size_t (*steps)(const uint8_t *, size_t, int, uint8_t *, size_t *, int *) =
            !bmp ? (utf16 ? steps_utf16 : steps_utf32)
                 : nul ? (utf16 ? mutf8_steps_utf16 : mutf8_steps_utf32)
                       : (utf16 ? cesu8_steps_utf16 : cesu8_steps_utf32);
        done += steps(src + done, len - done, big_endian, out, &steps_written, &run_next);
        out += steps_written;
        if (!run_next)
            break;
    }
    *written = (size_t)(out - dst);
    return done;
}

size_t utfkit_utf8_to_utf16_sse4(const uint8_t *src, size_t len, int big_endian, uint8_t *dst,
                                 size_t *written)
{
    return big_endian ? utf8_to_units_dispatch(src, len, 1, dst, written, 1, 0, 0)
                      : utf8_to_units_dispatch(src, len, 0, dst, written, 1, 0, 0);
}

size_t utfkit_utf8_to_utf32_sse4(const uint8_t *src, size_t len, int big_endian, uint8_t *dst,
                                 size_t *written)
{
    return big_endian ? utf8_to_units_dispatch(src, len, 1, dst, written, 0, 0, 0)
                      : utf8_to_units_dispatch(src, len, 0, dst, written, 0, 0, 0);
}

/* CESU-8 and MUTF-8 (kernels.h: utf8_bmp_to_utf16, utf8_bmp_to_utf32):
 * the UTF-8 blocks with their stops; bit 0 of `flags` is the byte order,
 * bit 1 asks for the stop at 00 as well. */
size_t utfkit_utf8_bmp_to_utf16_sse4(const uint8_t *src, size_t len, int flags, uint8_t *dst,
                                     size_t *written)
{
    int big_endian = flags & 1;
    if (flags & 2)
        return big_endian ? utf8_to_units_dispatch(src, len, 1, dst, written, 1, 1, 1)
                          : utf8_to_units_dispatch(src, len, 0, dst, written, 1, 1, 1);
    return big_endian ? utf8_to_units_dispatch(src, len, 1, dst, written, 1, 1, 0)
                      : utf8_to_units_dispatch(src, len, 0, dst, written, 1, 1, 0);
}

size_t utfkit_utf8_bmp_to_utf32_sse4(const uint8_t *src, size_t len, int flags, uint8_t *dst,
                                     size_t *written)
{
    int big_endian = flags & 1;
    if (flags & 2)
        return big_endian ? utf8_to_units_dispatch(src, len, 1, dst, written, 0, 1, 1)
                          : utf8_to_units_dispatch(src, len, 0, dst, written, 0, 1, 1);
    return big_endian ? utf8_to_units_dispatch(src, len, 1, dst, written, 0, 1, 0)
                      : utf8_to_units_dispatch(src, len, 0, dst, written, 0, 1, 0);
}

/* ---- scalar values -> UTF-8 ---- */

/* Encodes the `lanes` first scalar values of four 32-bit lanes (Table
 * 3-6), lead byte first in memory, and writes their bytes in turn.
 * `supplementary` says whether any may be above FFFF.  With `pairs`, a
 * lane may also hold a UTF-16 surrogate pair's lead surrogate, whose
 * character's first two bytes it writes, or its trail surrogate (with the
 * lead in the same lane of `previous`), whose last two bytes it writes:
 * for U+10000 + (wwwwxxxxxx xxxxxxxxxx) (Table 3-5) with uuuuu = wwww + 1,
 * 11110uuu 10uuzzzz from the lead alone, 10yyyyyy 10xxxxxx from the trail
 * and the lead's last two bits. */
static inline void put_utf8(byte_writer *writer, __m128i code_point, __m128i previous, unsigned lanes,
                            int supplementary, int pairs)
{
    const __m128i six_bits = _mm_set1_epi32(0x3F);
    __m128i two_or_more = _mm_cmpgt_epi32(code_point, _mm_set1_epi32(0x7F));
    __m128i three_or_more = _mm_cmpgt_epi32(code_point, _mm_set1_epi32(0x7FF));
    __m128i last = _mm_and_si128(code_point, six_bits);                         /* xxxxxx */
    __m128i middle = _mm_and_si128(_mm_srli_epi32(code_point, 6), six_bits); /* yyyyyy */
    /* 110yyyyy 10xxxxxx */
    __m128i two = _mm_or_si128(_mm_or_si128(_mm_srli_epi32(code_point, 6), _mm_slli_epi32(last, 8)),
                               _mm_set1_epi32(0x80C0));
    /* 1110zzzz 10yyyyyy 10xxxxxx */
    __m128i three = _mm_or_si128(
        _mm_or_si128(_mm_srli_epi32(code_point, 12), _mm_slli_epi32(middle, 8)),
        _mm_or_si128(_mm_slli_epi32(last, 16), _mm_set1_epi32(0x8080E0)));
    __m128i bytes = _mm_blendv_epi8(code_point, two, two_or_more);
    bytes = _mm_blendv_epi8(bytes, three, three_or_more);
    /* per lane, length - 1 in two bits */
    unsigned length_code = (unsigned)two_bits_per_lane[_mm_movemask_ps(_mm_castsi128_ps(two_or_more))] +
                           two_bits_per_lane[_mm_movemask_ps(_mm_castsi128_ps(three_or_more))];
    if (supplementary) {
        __m128i four_bytes = _mm_cmpgt_epi32(code_point, _mm_set1_epi32(0xFFFF));
        unsigned longest = (unsigned)_mm_movemask_ps(_mm_castsi128_ps(four_bytes));
        if (longest) {
            /* 11110uuu 10uuzzzz 10yyyyyy 10xxxxxx */
            __m128i upper = _mm_and_si128(_mm_srli_epi32(code_point, 12), six_bits);
            __m128i four = _mm_or_si128(
                _mm_or_si128(_mm_srli_epi32(code_point, 18), _mm_slli_epi32(upper, 8)),
                _mm_or_si128(_mm_or_si128(_mm_slli_epi32(middle, 16), _mm_slli_epi32(last, 24)),
                             _mm_set1_epi32((int)0x808080F0)));
            bytes = _mm_blendv_epi8(bytes, four, four_bytes);
            length_code += two_bits_per_lane[longest];
        }
    }
    if (pairs) {
        __m128i ten_bits = _mm_and_si128(code_point, _mm_set1_epi32(0xFC00));
        __m128i is_lead = _mm_cmpeq_epi32(ten_bits, _mm_set1_epi32(0xD800));
        __m128i is_trail = _mm_cmpeq_epi32(ten_bits, _mm_set1_epi32(0xDC00));
        unsigned surrogate = (unsigned)_mm_movemask_ps(_mm_castsi128_ps(_mm_or_si128(is_lead, is_trail)));
        if (surrogate) {
            /* uuuuu zzzz (and two bits of yyyyyy) = wwww + 1, then the rest */
            __m128i plane = _mm_add_epi32(_mm_and_si128(code_point, _mm_set1_epi32(0x3FF)), _mm_set1_epi32(0x40));
            __m128i lead_bytes = _mm_or_si128(
                _mm_or_si128(_mm_srli_epi32(plane, 8),
                             _mm_slli_epi32(_mm_and_si128(_mm_srli_epi32(plane, 2), six_bits), 8)),
                _mm_set1_epi32(0x80F0));
            __m128i trail_bytes = _mm_or_si128(
                _mm_or_si128(_mm_slli_epi32(_mm_and_si128(previous, _mm_set1_epi32(3)), 4),
                             _mm_and_si128(_mm_srli_epi32(code_point, 6), _mm_set1_epi32(0x0F))),
                _mm_or_si128(_mm_slli_epi32(last, 8), _mm_set1_epi32(0x8080)));
            bytes = _mm_blendv_epi8(_mm_blendv_epi8(bytes, lead_bytes, is_lead), trail_bytes, is_trail);
            length_code -= two_bits_per_lane[surrogate]; /* three bytes counted, two written */
        }
    }
    /* lanes past `lanes` count as one byte each in the table's length */
    length_code &= (1u << (2 * lanes)) - 1;
    unsigned count = utfkit_lane_prefixes_length[length_code] - (4 - lanes);
    bytes = _mm_shuffle_epi8(bytes, _mm_load_si128((const __m128i *)utfkit_lane_prefixes[length_code]));
    byte_writer_put(writer, bytes, count);
}

/* Writes eight units below 800 (Table 3-6: one or two bytes each). */
static inline void put_one_or_two_bytes(byte_writer *writer, __m128i units)
{
    /* 110yyyyy 10xxxxxx, lead byte first: in the lane's low byte */
    __m128i two = _mm_or_si128(
        _mm_or_si128(_mm_srli_epi16(units, 6), _mm_slli_epi16(_mm_and_si128(units, _mm_set1_epi16(0x3F)), 8)),
        _mm_set1_epi16((short)0x80C0));
    __m128i is_two = _mm_cmpgt_epi16(units, _mm_set1_epi16(0x7F));
    __m128i bytes = _mm_blendv_epi8(units, two, is_two);
    unsigned lanes = (unsigned)_mm_movemask_epi8(_mm_packs_epi16(is_two, is_two)) & 0xFF;
    bytes = _mm_shuffle_epi8(bytes, _mm_load_si128((const __m128i *)utfkit_two_byte_prefixes[lanes]));
    byte_writer_put(writer, bytes, 8 + (unsigned)__builtin_popcount(lanes));
}

/* Writes eight units that are not surrogates, of one, two and three bytes
 * mixed (Table 3-6), as in CJK or Thai text between ASCII: the first two
 * bytes of each character are built in 16-bit lanes, the third in
 * another, the two interleaved into four 32-bit lanes per half, lead byte
 * first, and the bytes used gathered with utfkit_lane_prefixes. */
static inline void put_bmp_units(byte_writer *writer, __m128i units)
{
    const __m128i six_bits = _mm_set1_epi16(0x3F);
    __m128i is_two = _mm_cmpeq_epi16(_mm_max_epu16(units, _mm_set1_epi16(0x80)), units);
    __m128i is_three = _mm_cmpeq_epi16(_mm_max_epu16(units, _mm_set1_epi16(0x800)), units);
    /* 110yyyyy 10xxxxxx */
    __m128i two = _mm_or_si128(_mm_or_si128(_mm_srli_epi16(units, 6), _mm_slli_epi16(_mm_and_si128(units, six_bits), 8)),
                               _mm_set1_epi16((short)0x80C0));
    /* 1110zzzz 10yyyyyy, then 10xxxxxx */
    __m128i three = _mm_or_si128(
        _mm_or_si128(_mm_srli_epi16(units, 12), _mm_and_si128(_mm_slli_epi16(units, 2), _mm_set1_epi16(0x3F00))),
        _mm_set1_epi16((short)0x80E0));
    __m128i third = _mm_or_si128(_mm_and_si128(units, six_bits), _mm_set1_epi16(0x80));
    __m128i first_two = _mm_blendv_epi8(_mm_blendv_epi8(units, two, is_two), three, is_three);
    /* Per unit, length - 1 in two bits (utfkit_lane_prefixes' code): the
     * low byte of a 16-bit lane is FF for two bytes, the high byte FF for
     * three, so that the byte mask holds units 0..3 in bits 0..7 and units
     * 4..7 in bits 8..15. */
    unsigned lengths = (unsigned)_mm_movemask_epi8(_mm_xor_si128(_mm_and_si128(is_two, _mm_set1_epi16(0xFF)), is_three));
    unsigned low_code = lengths & 0xFF, high_code = lengths >> 8;
    __m128i low = _mm_shuffle_epi8(_mm_unpacklo_epi16(first_two, third),
                                   _mm_load_si128((const __m128i *)utfkit_lane_prefixes[low_code]));
    __m128i high = _mm_shuffle_epi8(_mm_unpackhi_epi16(first_two, third),
                                    _mm_load_si128((const __m128i *)utfkit_lane_prefixes[high_code]));
    byte_writer_put(writer, low, utfkit_lane_prefixes_length[low_code]);
    byte_writer_put(writer, high, utfkit_lane_prefixes_length[high_code]);
}

/* Writes four surrogate pairs, each a lead surrogate in a 32-bit lane's low
 * half and its trail in the high half: 11110uuu 10uuzzzz 10yyyyyy 10xxxxxx
 * (Table 3-6) for U+10000 + (wwwwxxxxxx xxxxxxxxxx) with uuuuu = wwww + 1
 * (Table 3-5). */
static inline void put_pairs(byte_writer *writer, __m128i pairs)
{
    const __m128i six_bits = _mm_set1_epi32(0x3F);
    __m128i plane = _mm_add_epi32(_mm_and_si128(pairs, _mm_set1_epi32(0x3FF)), _mm_set1_epi32(0x40));
    __m128i trail = _mm_srli_epi32(pairs, 16);
    __m128i bytes = _mm_or_si128(
        _mm_or_si128(_mm_srli_epi32(plane, 8), _mm_slli_epi32(_mm_and_si128(_mm_srli_epi32(plane, 2), six_bits), 8)),
        _mm_or_si128(
            _mm_slli_epi32(_mm_or_si128(_mm_slli_epi32(_mm_and_si128(plane, _mm_set1_epi32(3)), 4),
                                        _mm_and_si128(_mm_srli_epi32(trail, 6), _mm_set1_epi32(0x0F))),
                           16),
            _mm_or_si128(_mm_slli_epi32(_mm_and_si128(trail, six_bits), 24), _mm_set1_epi32((int)0x808080F0))));
    byte_writer_put(writer, bytes, 16);
}

/* One step of eight units, any of them surrogates: surrogate pairs (D91,
 * Table 3-5) are taken whole; a lead surrogate without a trail after it, a
 * trail without a lead before it, and a lead in the last unit of a step
 * stop the block there, for the scalar reader (which reports or repairs
 * the unpaired ones).  Returns the bytes consumed, 0 at such a stop. */
static inline __attribute__((always_inline)) size_t utf16_units_step(byte_writer *writer, __m128i units)
{
    if (_mm_testz_si128(units, _mm_set1_epi16((short)0xF800))) { /* eight of one or two bytes */
        put_one_or_two_bytes(writer, units);
        return 16;
    }
    __m128i ten_bits = _mm_and_si128(units, _mm_set1_epi16((short)0xFC00));
    __m128i lead = _mm_cmpeq_epi16(ten_bits, _mm_set1_epi16((short)0xD800));
    __m128i trail = _mm_cmpeq_epi16(ten_bits, _mm_set1_epi16((short)0xDC00));
    uint32_t leads = byte_mask(lead), trails = byte_mask(trail);
    if ((leads | trails) == 0) {
        put_bmp_units(writer, units);
        return 16;
    }
    if (leads == 0x3333 && trails == 0xCCCC) {
        put_pairs(writer, units);
        return 16;
    }
    __m128i unpaired = _mm_or_si128(_mm_andnot_si128(_mm_srli_si128(trail, 2), lead),
                                    _mm_andnot_si128(_mm_slli_si128(lead, 2), trail));
    uint32_t stop = byte_mask(unpaired); /* two bits per unit */
    unsigned taken = stop != 0 ? (unsigned)__builtin_ctz(stop) / 2 : 8;
    if (taken == 0)
        return 0;
    __m128i previous = _mm_slli_si128(units, 2);
    put_utf8(writer, _mm_cvtepu16_epi32(units), _mm_cvtepu16_epi32(previous), taken < 4 ? taken : 4, 0, 1);
    if (taken > 4)
        put_utf8(writer, _mm_cvtepu16_epi32(_mm_srli_si128(units, 8)),
                 _mm_cvtepu16_epi32(_mm_srli_si128(previous, 8)), taken - 4, 0, 1);
    return 2 * taken;
}

/* 32 units at a time where they are all of one class -- ASCII; below 800
 * (one or two bytes, as in Latin, Cyrillic, Greek, Arabic or Hebrew text);
 * no surrogates (one, two or three bytes, as in CJK, Indic or Thai text) --
 * so that in each class the writing is the same whatever the mix of
 * lengths, and the test that picks it changes rarely (a branch per mix of
 * lengths would mispredict every few units in text that mixes them).
 * Other stretches go by eight units (utf16_units_step). */
size_t utfkit_utf16_to_utf8_sse4(const uint8_t *src, size_t len, int big_endian, uint8_t *dst,
                                 size_t *written)
{
    size_t i = 0;
    byte_writer writer = byte_writer_at(dst);
    while (len - i >= 16) {
        if (len - i >= 64) {
            __m128i units[4];
            for (int k = 0; k < 4; k++) {
                units[k] = _mm_loadu_si128((const __m128i *)(src + i + 16 * k));
                if (big_endian)
                    units[k] = swap_16(units[k]);
            }
            __m128i any = _mm_or_si128(_mm_or_si128(units[0], units[1]), _mm_or_si128(units[2], units[3]));
            if (_mm_testz_si128(any, _mm_set1_epi16((short)0xFF80))) { /* 32 of one byte */
                uint8_t *out = byte_writer_before_wide_store(&writer);
                _mm_storeu_si128((__m128i *)out, _mm_packus_epi16(units[0], units[1]));
                _mm_storeu_si128((__m128i *)(out + 16), _mm_packus_epi16(units[2], units[3]));
                writer.out = out + 32;
                i += 64;
                continue;
            }
            if (_mm_testz_si128(any, _mm_set1_epi16((short)0xF800))) { /* 32 of one or two bytes */
                for (int k = 0; k < 4; k++)
                    put_one_or_two_bytes(&writer, units[k]);
                i += 64;
                continue;
            }
            /* surrogates D800..DFFF */
            __m128i surrogate = _mm_setzero_si128();
            for (int k = 0; k < 4; k++)
                surrogate = _mm_or_si128(surrogate, _mm_cmpeq_epi16(_mm_and_si128(units[k], _mm_set1_epi16((short)0xF800)),
                                                                    _mm_set1_epi16((short)0xD800)));
            if (_mm_testz_si128(surrogate, surrogate)) { /* 32 of one, two or three bytes */
                for (int k = 0; k < 4; k++)
                    put_bmp_units(&writer, units[k]);
                i += 64;
                continue;
            }
        }
        /* Up to 128 units by eight before the next try of 32 at once: text
         * with surrogate pairs tends to have more of them. */
        size_t step_end = len - i >= 256 ? i + 256 : len;
        while (i < step_end && len - i >= 16) {
            __m128i units = _mm_loadu_si128((const __m128i *)(src + i));
            if (big_endian)
                units = swap_16(units);
            size_t consumed = utf16_units_step(&writer, units);
            if (consumed == 0)
                goto stopped;
            i += consumed;
        }
    }
stopped:
    *written = (size_t)(byte_writer_finish(&writer) - dst);
    return i;
}

/* D90: surrogates D800..DFFF and units above 10FFFF are not scalar values
 * (unit >> 16 fits a signed compare); CESU-8 stops at the supplementary
 * ones as well (bmp_only: UTR #26 section 2 writes them as two 3-byte
 * surrogate sequences). */
static inline __m128i not_scalar_values(__m128i units, int bmp_only)
{
    return _mm_or_si128(_mm_cmpgt_epi32(_mm_srli_epi32(units, 16), _mm_set1_epi32(bmp_only ? 0 : 0x10)),
                        _mm_cmpeq_epi32(_mm_and_si128(units, _mm_set1_epi32((int)0xFFFFF800)),
                                        _mm_set1_epi32(0xD800)));
}

static inline __attribute__((always_inline)) size_t utf32_to_utf8(const uint8_t *src, size_t len, int big_endian,
                                                                   uint8_t *dst, size_t *written, int bmp_only)
{
    size_t i = 0;
    byte_writer writer = byte_writer_at(dst);
    while (len - i >= 16) {
        __m128i units = _mm_loadu_si128((const __m128i *)(src + i));
        if (big_endian)
            units = swap_32(units);
        unsigned bad = (unsigned)_mm_movemask_ps(_mm_castsi128_ps(not_scalar_values(units, bmp_only)));
        unsigned taken = bad ? (unsigned)__builtin_ctz(bad) : 4;
        if (taken == 0)
            break;
        __m128i wide = _mm_cmpgt_epi32(units, _mm_set1_epi32(0x7F));
        unsigned non_ascii = (unsigned)_mm_movemask_ps(_mm_castsi128_ps(wide)) & ((1u << taken) - 1);
        if (non_ascii == 0) {
            __m128i narrow = _mm_packus_epi32(units, units);
            byte_writer_put(&writer, _mm_packus_epi16(narrow, narrow), taken);
        } else {
            put_utf8(&writer, units, units, taken, !bmp_only, 0);
        }
        i += 4 * taken;
    }
    *written = (size_t)(byte_writer_finish(&writer) - dst);
    return i;
}

size_t utfkit_utf32_to_utf8_sse4(const uint8_t *src, size_t len, int big_endian, uint8_t *dst,
                                 size_t *written)
{
    return utf32_to_utf8(src, len, big_endian, dst, written, 0);
}

/* CESU-8 (kernels.h: utf32_to_cesu8).  There is no MUTF-8 form: the test
 * for 0000, two more instructions per four units, cost more than the
 * reader's search of the UTF-8 block's output (readers.h:
 * transcode_blocks_step_cut).  The UTF-16 ones are written apart, at the
 * end of this file: compiled from one source with the stops, the UTF-16 ->
 * UTF-8 block above got another block layout for UTF-8 itself, at the same
 * instruction count, and ran 25-40 % slower on ASCII text. */
size_t utfkit_utf32_to_cesu8_sse4(const uint8_t *src, size_t len, int big_endian, uint8_t *dst,
                                  size_t *written)
{
    return utf32_to_utf8(src, len, big_endian, dst, written, 1);
}

/* ---- UTF-16 <-> UTF-32 ----
 *
 * `byte_orders` is the source's byte order (1: big-endian) in bit 0 and
 * the target's in bit 1 (kernels.h).  UTF-16 -> UTF-32 takes the units of
 * the BMP (one unit each way, Table 3-5); surrogates -- pairs included --
 * stop its step, for the scalar reader.  UTF-32 -> UTF-16 splits the
 * supplementary scalar values into pairs itself. */

size_t utfkit_utf16_to_utf32_sse4(const uint8_t *src, size_t len, int byte_orders, uint8_t *dst,
                                  size_t *written)
{
    size_t i = 0;
    uint8_t *out = dst;
    while (len - i >= 16) {
        __m128i units = _mm_loadu_si128((const __m128i *)(src + i));
        if (byte_orders & 1)
            units = swap_16(units);
        __m128i surrogate = _mm_cmpeq_epi16(_mm_and_si128(units, _mm_set1_epi16((short)0xF800)),
                                            _mm_set1_epi16((short)0xD800));
        unsigned bad = byte_mask(surrogate); /* two bits per unit */
        unsigned taken = bad ? (unsigned)__builtin_ctz(bad) / 2 : 8;
        if (taken == 0)
            break;
        __m128i first = _mm_cvtepu16_epi32(units), second = _mm_cvtepu16_epi32(_mm_srli_si128(units, 8));
        if (byte_orders & 2) {
            first = swap_32(first);
            second = swap_32(second);
        }
        if (taken < 8) { /* exactly the units before the surrogate */
            uint8_t code_points[32];
            _mm_storeu_si128((__m128i *)code_points, first);
            _mm_storeu_si128((__m128i *)(code_points + 16), second);
            memcpy(out, code_points, 4 * taken);
            out += 4 * taken;
            i += 2 * taken;
            break;
        }
        _mm_storeu_si128((__m128i *)out, first);
        _mm_storeu_si128((__m128i *)(out + 16), second);
        out += 32;
        i += 16;
    }
    *written = (size_t)(out - dst);
    return i;
}

size_t utfkit_utf32_to_utf16_sse4(const uint8_t *src, size_t len, int byte_orders, uint8_t *dst,
                                  size_t *written)
{
    size_t i = 0;
    uint8_t *out = dst;
    while (len - i >= 16) {
        __m128i units = _mm_loadu_si128((const __m128i *)(src + i));
        if (byte_orders & 1)
            units = swap_32(units);
        /* above FFFF (pairs, or not scalar values: D90) or a surrogate */
        __m128i other = _mm_or_si128(
            _mm_cmpgt_epi32(_mm_srli_epi32(units, 16), _mm_setzero_si128()),
            _mm_cmpeq_epi32(_mm_and_si128(units, _mm_set1_epi32((int)0xFFFFF800)), _mm_set1_epi32(0xD800)));
        if (_mm_movemask_ps(_mm_castsi128_ps(other)) == 0) { /* four BMP units */
            __m128i narrow = _mm_packus_epi32(units, units);
            if (byte_orders & 2)
                narrow = swap_16(narrow);
            _mm_storel_epi64((__m128i *)out, narrow);
            out += 8;
            i += 16;
            continue;
        }
        unsigned bad = (unsigned)_mm_movemask_ps(_mm_castsi128_ps(not_scalar_values(units, 0)));
        unsigned taken = bad ? (unsigned)__builtin_ctz(bad) : 4;
        if (taken == 0)
            break;
        __m128i is_supplementary = _mm_cmpgt_epi32(units, _mm_set1_epi32(0xFFFF));
        unsigned supplementary =
            (unsigned)_mm_movemask_ps(_mm_castsi128_ps(is_supplementary)) & ((1u << taken) - 1);
        /* Table 3-5: lead 110110wwwwxxxxxx (wwww = uuuuu - 1) in the lane's
         * low half, trail 110111xxxxxxxxxx in its high half. */
        __m128i offset = _mm_sub_epi32(units, _mm_set1_epi32(0x10000));
        __m128i lead = _mm_or_si128(_mm_srli_epi32(offset, 10), _mm_set1_epi32(0xD800));
        __m128i trail = _mm_or_si128(_mm_and_si128(offset, _mm_set1_epi32(0x3FF)), _mm_set1_epi32(0xDC00));
        __m128i pair = _mm_or_si128(lead, _mm_slli_epi32(trail, 16));
        __m128i lanes = _mm_blendv_epi8(units, pair, is_supplementary);
        if (byte_orders & 2)
            lanes = swap_16(lanes);
        /* each used lane's low unit, and its high unit for a pair */
        unsigned kept = two_bits_per_lane[(1u << taken) - 1] | (unsigned)two_bits_per_lane[supplementary] << 1;
        lanes = _mm_shuffle_epi8(lanes, _mm_load_si128((const __m128i *)utfkit_kept_units[kept]));
        uint8_t code_units[16];
        _mm_storeu_si128((__m128i *)code_units, lanes);
        unsigned count = 2 * (unsigned)__builtin_popcount(kept);
        memcpy(out, code_units, count);
        out += count;
        i += 4 * taken;
        if (taken < 4)
            break;
    }
    *written = (size_t)(out - dst);
    return i;
}

/* ---- UTF-16 -> CESU-8 and MUTF-8 ----
 *
 * kernels.h: utf16_to_cesu8 and utf16_to_mutf8.  The loop of
 * utfkit_utf16_to_utf8_sse4 with the stops of these forms folded into the
 * tests each step makes anyway, so that the text is read once: a
 * surrogate stops the block (UTR #26 section 2: CESU-8 writes a
 * supplementary character as two 3-byte surrogate sequences; MUTF-8 does
 * too, and carries lone surrogates, JVM spec section 4.4.7), and, for
 * MUTF-8, 0000 (written C0 80); the scalar reader writes what stops it.
 * Before a stop, each unit is a character of the BMP, whose UTF-8 is
 * theirs.  Written apart from the UTF-8 block rather than compiled from its
 * source (see utfkit_utf32_to_cesu8_sse4), and last in the file, so that
 * no other function of the file moves (in the Makefile's link, whose
 * sources go in name order, this file is the last: no code moves at all). */

/* The least of four vectors' 16-bit units (PMINUW). */
static inline __m128i least_unit(const __m128i units[4])
{
    return _mm_min_epu16(_mm_min_epu16(units[0], units[1]), _mm_min_epu16(units[2], units[3]));
}

/* Stores 32 bytes (32 units of one byte, packed) after what is pending. */
static inline void put_32_bytes(byte_writer *writer, __m128i low, __m128i high)
{
    uint8_t *out = byte_writer_before_wide_store(writer);
    _mm_storeu_si128((__m128i *)out, low);
    _mm_storeu_si128((__m128i *)(out + 16), high);
    writer->out = out + 32;
}

static inline __attribute__((always_inline)) size_t utf16_to_bmp_form(const uint8_t *src, size_t len,
                                                                     int big_endian, uint8_t *dst,
                                                                     size_t *written, int nul_stops)
{
    size_t i = 0;
    byte_writer writer = byte_writer_at(dst);
    while (len - i >= 16) {
        if (len - i >= 64) {
            __m128i units[4];
            for (int k = 0; k < 4; k++) {
                units[k] = _mm_loadu_si128((const __m128i *)(src + i + 16 * k));
                if (big_endian)
                    units[k] = swap_16(units[k]);
            }
            if (nul_stops) {
                /* PACKUSWB keeps 0001..007F, makes 0000 and 8000..FFFF 00
                 * and 0080..7FFF 80..FF: 32 units of one byte but 0000
                 * pack to bytes that are all positive (PMINSB, PCMPGTB) */
                __m128i low = _mm_packus_epi16(units[0], units[1]), high = _mm_packus_epi16(units[2], units[3]);
                if (byte_mask(_mm_cmpgt_epi8(_mm_min_epi8(low, high), _mm_setzero_si128())) == 0xFFFF) {
                    put_32_bytes(&writer, low, high);
                    i += 64;
                    continue;
                }
            }
            __m128i any = _mm_or_si128(_mm_or_si128(units[0], units[1]), _mm_or_si128(units[2], units[3]));
            if (!nul_stops && _mm_testz_si128(any, _mm_set1_epi16((short)0xFF80))) { /* 32 of one byte */
                put_32_bytes(&writer, _mm_packus_epi16(units[0], units[1]), _mm_packus_epi16(units[2], units[3]));
                i += 64;
                continue;
            }
            __m128i nul = nul_stops ? _mm_cmpeq_epi16(least_unit(units), _mm_setzero_si128()) : _mm_setzero_si128();
            if (_mm_testz_si128(any, _mm_set1_epi16((short)0xF800)) && (!nul_stops || _mm_testz_si128(nul, nul))) {
                for (int k = 0; k < 4; k++) /* 32 of one or two bytes */
                    put_one_or_two_bytes(&writer, units[k]);
                i += 64;
                continue;
            }
            /* surrogates D800..DFFF, and 0000 */
            __m128i stop = nul;
            for (int k = 0; k < 4; k++)
                stop = _mm_or_si128(stop, _mm_cmpeq_epi16(_mm_and_si128(units[k], _mm_set1_epi16((short)0xF800)),
                                                          _mm_set1_epi16((short)0xD800)));
            if (_mm_testz_si128(stop, stop)) { /* 32 of one, two or three bytes */
                for (int k = 0; k < 4; k++)
                    put_bmp_units(&writer, units[k]);
                i += 64;
                continue;
            }
        }
        /* By eight units, up to 128, before the next try of 32 at once;
         * the units before a stop are written and the block ends there. */
        size_t step_end = len - i >= 256 ? i + 256 : len;
        while (i < step_end && len - i >= 16) {
            __m128i units = _mm_loadu_si128((const __m128i *)(src + i));
            if (big_endian)
                units = swap_16(units);
            __m128i stops = _mm_cmpeq_epi16(_mm_and_si128(units, _mm_set1_epi16((short)0xF800)),
                                            _mm_set1_epi16((short)0xD800));
            if (nul_stops)
                stops = _mm_or_si128(stops, _mm_cmpeq_epi16(units, _mm_setzero_si128()));
            uint32_t stop = byte_mask(stops); /* two bits per unit */
            if (stop == 0) {
                if (_mm_testz_si128(units, _mm_set1_epi16((short)0xF800)))
                    put_one_or_two_bytes(&writer, units);
                else
                    put_bmp_units(&writer, units);
                i += 16;
                continue;
            }
            unsigned taken = (unsigned)__builtin_ctz(stop) / 2;
            if (taken > 0)
                put_utf8(&writer, _mm_cvtepu16_epi32(units), _mm_setzero_si128(), taken < 4 ? taken : 4, 0, 0);
            if (taken > 4)
                put_utf8(&writer, _mm_cvtepu16_epi32(_mm_srli_si128(units, 8)), _mm_setzero_si128(), taken - 4,
                         0, 0);
            i += 2 * taken;
            goto stopped;
        }
    }
stopped:
    *written = (size_t)(byte_writer_finish(&writer) - dst);
    return i;
}

size_t utfkit_utf16_to_cesu8_sse4(const uint8_t *src, size_t len, int big_endian, uint8_t *dst,
                                  size_t *written)
{
    return big_endian ? utf16_to_bmp_form(src, len, 1, dst, written, 0)
                      : utf16_to_bmp_form(src, len, 0, dst, written, 0);
}

size_t utfkit_utf16_to_mutf8_sse4(const uint8_t *src, size_t len, int big_endian, uint8_t *dst,
                                  size_t *written)
{
    return big_endian ? utf16_to_bmp_form(src, len, 1, dst, written, 1)
                      : utf16_to_bmp_form(src, len, 0, dst, written, 1);
}

#if defined(__clang__)
#pragma clang attribute pop
#elif defined(__GNUC__)
#pragma GCC pop_options
#endif
#endif
