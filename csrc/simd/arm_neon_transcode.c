/*
 * arm_neon_transcode.c -- the transcoding blocks of the neon kernel
 * (kernels.h), for 64-bit ARM, where Advanced SIMD is part of the base
 * architecture.
 *
 * The same methods as the sse4 blocks (x86_sse4_transcode.c), on 16-byte
 * NEON vectors: TBL (vqtbl1q_u8) packs variable-length output with the
 * tables of x86_shuffle_tables.h -- TBL gives 0 for an index past the
 * table, as PSHUFB does for an index with its top bit set, so the tables
 * serve both -- BSL blends, ZIP interleaves, REV swaps byte orders, and
 * ST2/ST4 write ASCII widened to 16 or 32 bits.  NEON has no byte-mask
 * instruction (PMOVMSKB); byte_mask adds up each comparison's lanes
 * weighted by their bit instead.
 *
 *   UTF-8 -> UTF-16 / UTF-32, 16 input bytes per step: the block is checked
 *     against Unicode 3.9 Table 3-7 (continuation bytes exactly where the
 *     lead bytes ask for them; no C0, C1, F5..FF; E0 A0..BF; ED 80..9F;
 *     F0 90..BF; F4 80..8F), every code point is computed at its
 *     character's last byte from that byte and the three before it, and the
 *     code units at last bytes are packed 8 positions at a time (a
 *     surrogate pair, Unicode 3.9 Table 3-5, takes the last two bytes of its
 *     character).  Characters that start in bytes 0..12 end in the block;
 *     the step consumes them and stops before the first character that
 *     starts after byte 12.  A block that is not well-formed goes to the
 *     scalar reader.  Blocks of one kind only (1- and 2-byte, 3-byte,
 *     4-byte characters) take shorter steps.
 *   UTF-16 / UTF-32 -> UTF-8: each scalar value is encoded into a 32-bit
 *     lane, lead byte first (Unicode 3.9 Table 3-6), and the first 1..4
 *     bytes of four lanes are gathered per TBL.  Surrogates that are not
 *     part of a pair (UTF-16, D91) and units that are not scalar values
 *     (UTF-32, D90) stop the block there.
 *   UTF-16 <-> UTF-32: BMP units directly; UTF-32 -> UTF-16 splits the
 *     supplementary scalar values into pairs itself.
 *
 * Variable-length output goes through byte_writer: whole 16-byte stores
 * within the room kernels.h promises (the worst-case output of the whole
 * input), the last vector copied exactly.
 */
#include <string.h>

#include "../kernels.h"

#if defined(UTFKIT_AARCH64)
#include <arm_neon.h>

#include "x86_shuffle_tables.h"

/* Variable-length output, 16-byte vectors of which the first `count`
 * bytes count.  A vector is stored whole once the next one is known (the
 * next one's bytes go after its `count`); the last one is copied exactly
 * (byte_writer_finish). */
typedef struct byte_writer {
    uint8_t *out;
    uint8x16_t pending;
    unsigned count;
} byte_writer;

static inline byte_writer byte_writer_at(uint8_t *out)
{
    byte_writer writer = {out, vdupq_n_u8(0), 0};
    return writer;
}

static inline void byte_writer_put(byte_writer *writer, uint8x16_t bytes, unsigned count)
{
    if (count == 0)
        return;
    if (writer->count != 0) {
        vst1q_u8(writer->out, writer->pending);
        writer->out += writer->count;
    }
    writer->pending = bytes;
    writer->count = count;
}

/* Stores what is pending whole, for a store of at least 16 bytes at the
 * returned address to follow. */
static inline uint8_t *byte_writer_before_wide_store(byte_writer *writer)
{
    if (writer->count != 0) {
        vst1q_u8(writer->out, writer->pending);
        writer->out += writer->count;
        writer->count = 0;
    }
    return writer->out;
}

static inline uint8_t *byte_writer_finish(byte_writer *writer)
{
    uint8_t bytes[16];
    vst1q_u8(bytes, writer->pending);
    memcpy(writer->out, bytes, writer->count);
    return writer->out + writer->count;
}

/* ---- masks: one bit per lane of a comparison's all-ones / zero lanes ---- */

static inline uint32_t byte_mask(uint8x16_t is)
{
    static const uint8_t weights[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
    uint8x16_t bits = vandq_u8(is, vld1q_u8(weights));
    return (uint32_t)vaddv_u8(vget_low_u8(bits)) | (uint32_t)vaddv_u8(vget_high_u8(bits)) << 8;
}

static inline uint32_t unit_mask(uint16x8_t is)
{
    static const uint16_t weights[8] = {1, 2, 4, 8, 16, 32, 64, 128};
    return vaddvq_u16(vandq_u16(is, vld1q_u16(weights)));
}

static inline uint32_t lane_mask(uint32x4_t is)
{
    static const uint32_t weights[4] = {1, 2, 4, 8};
    return vaddvq_u32(vandq_u32(is, vld1q_u32(weights)));
}

static inline uint8x16_t as_bytes16(uint16x8_t v) { return vreinterpretq_u8_u16(v); }
static inline uint8x16_t as_bytes32(uint32x4_t v) { return vreinterpretq_u8_u32(v); }
static inline uint16x8_t as_units16(uint8x16_t v) { return vreinterpretq_u16_u8(v); }
static inline uint32x4_t as_units32(uint8x16_t v) { return vreinterpretq_u32_u8(v); }

static inline uint8x16_t swap_16(uint8x16_t v) { return vrev16q_u8(v); }
static inline uint8x16_t swap_32(uint8x16_t v) { return vrev32q_u8(v); }

static inline uint8x16_t at_least(uint8x16_t v, uint8_t bound) { return vcgeq_u8(v, vdupq_n_u8(bound)); }
static inline uint8x16_t at_most(uint8x16_t v, uint8_t bound) { return vcleq_u8(v, vdupq_n_u8(bound)); }
static inline uint8x16_t equal(uint8x16_t v, uint8_t byte) { return vceqq_u8(v, vdupq_n_u8(byte)); }
/* 80..BF: the continuation bytes of Table 3-7 (signed, the bytes below -64) */
static inline uint8x16_t continuation_bytes(uint8x16_t v)
{
    return vcltq_s8(vreinterpretq_s8_u8(v), vdupq_n_s8(-64));
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
static inline uint8x16_t byte_before(uint8x16_t v) { return vextq_u8(vdupq_n_u8(0), v, 15); }
static inline uint8x16_t byte_two_before(uint8x16_t v) { return vextq_u8(vdupq_n_u8(0), v, 14); }
static inline uint8x16_t byte_three_before(uint8x16_t v) { return vextq_u8(vdupq_n_u8(0), v, 13); }
static inline uint8x16_t byte_after(uint8x16_t v) { return vextq_u8(v, vdupq_n_u8(0), 1); }

/* Packs the code units of the positions set in `last` (8 bits) of eight
 * 16-bit lanes and writes them as UTF-16, or as UTF-32 with bits 16..20
 * from the low bytes of the 16-bit lanes of `tops`. */
static inline void put_units(byte_writer *writer, uint8x16_t units, uint8x16_t tops, unsigned last,
                             int big_endian, int utf16)
{
    const uint8x16_t kept = vld1q_u8(utfkit_kept_units[last]);
    units = vqtbl1q_u8(units, kept);
    unsigned count = (unsigned)__builtin_popcount(last);
    if (utf16) {
        byte_writer_put(writer, units, 2 * count);
        return;
    }
    tops = vqtbl1q_u8(tops, kept);
    uint8x16_t first = as_bytes16(vzip1q_u16(as_units16(units), as_units16(tops)));
    uint8x16_t second = as_bytes16(vzip2q_u16(as_units16(units), as_units16(tops)));
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

/* Characters of one or two bytes only (no byte E0..FF), as in Cyrillic,
 * Greek, Arabic or Hebrew text: every C2..DF lead byte has one continuation
 * byte after it; C0 and C1 begin no row.  A lead byte in byte 15 waits for
 * the next step. */
static inline size_t one_or_two_byte_step(uint8x16_t block, byte_writer *writer, int big_endian, int utf16)
{
    if (vmaxvq_u8(block) >= 0xE0)
        return 0;
    uint8x16_t is_continuation = continuation_bytes(block);
    uint32_t continuation = byte_mask(is_continuation);
    uint32_t leads = byte_mask(at_least(block, 0xC0));
    size_t consumed = 16 - (leads >> 15);
    uint32_t in_block = (1u << consumed) - 1;
    uint8x16_t c0_or_c1 = equal(vandq_u8(block, vdupq_n_u8(0xFE)), 0xC0);
    if (((leads << 1) & 0xFFFF) != continuation || (byte_mask(c0_or_c1) & in_block) != 0)
        return 0;
    /* at each character's last byte: low byte yyxxxxxx, high byte 00000yyy */
    uint8x16_t before = vandq_u8(byte_before(block), is_continuation);
    uint8x16_t low = vorrq_u8(vandq_u8(block, vdupq_n_u8(0x7F)), vshlq_n_u8(before, 6));
    uint8x16_t high = vandq_u8(vshrq_n_u8(before, 2), vdupq_n_u8(0x07));
    uint32_t last = ~(continuation >> 1) & in_block;
    int swap = utf16 && big_endian;
    uint8x16_t zero = vdupq_n_u8(0);
    put_units(writer, swap ? vzip1q_u8(high, low) : vzip1q_u8(low, high), zero, last & 0xFF, big_endian,
              utf16);
    put_units(writer, swap ? vzip2q_u8(high, low) : vzip2q_u8(low, high), zero, last >> 8, big_endian,
              utf16);
    return consumed;
}

/* Five characters of three bytes in bytes 0..14, as in Chinese or
 * Japanese text: E0..EF lead bytes at 0, 3, 6, 9, 12 with two continuation
 * bytes each (E0: A0..BF first; ED: 80..9F first). */
static inline size_t three_byte_step(uint8x16_t block, byte_writer *writer, int big_endian, int utf16)
{
    static const uint8_t tail_bytes[16] = {2, 1, 5, 4, 8, 7, 11, 10, 14, 13, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
    static const uint8_t lead_bytes[16] = {0xFF, 0, 0xFF, 3, 0xFF, 6, 0xFF, 9, 0xFF, 12,
                                           0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
    const uint32_t lead_positions = 0x1249, continuation_positions = 0x6DB6;
    uint32_t continuation = byte_mask(continuation_bytes(block));
    if ((continuation & 0x7FFF) != continuation_positions)
        return 0;
    uint8x16_t second = byte_after(block);
    uint8x16_t narrow = vorrq_u8(vandq_u8(equal(block, 0xE0), at_most(second, 0x9F)),
                                 vandq_u8(equal(block, 0xED), at_least(second, 0xA0)));
    uint32_t three = byte_mask(vandq_u8(at_least(block, 0xE0), vcltq_u8(block, vdupq_n_u8(0xF0))));
    if ((three & lead_positions) != lead_positions || (byte_mask(narrow) & lead_positions) != 0)
        return 0;
    /* per character: last two bytes as 10yyyyyy:10xxxxxx, lead byte as 1110zzzz:0 */
    uint16x8_t tail = as_units16(vqtbl1q_u8(block, vld1q_u8(tail_bytes)));
    uint16x8_t lead = as_units16(vqtbl1q_u8(block, vld1q_u8(lead_bytes)));
    uint16x8_t units = vorrq_u16(vorrq_u16(vandq_u16(tail, vdupq_n_u16(0x3F)),
                                           vandq_u16(vshrq_n_u16(tail, 2), vdupq_n_u16(0x0FC0))),
                                 vshlq_n_u16(lead, 4));
    if (utf16) {
        uint8x16_t bytes = as_bytes16(units);
        byte_writer_put(writer, big_endian ? swap_16(bytes) : bytes, 10);
    } else {
        uint8x16_t first = as_bytes32(vmovl_u16(vget_low_u16(units)));
        uint8x16_t fifth = as_bytes32(vmovl_high_u16(units));
        byte_writer_put(writer, big_endian ? swap_32(first) : first, 16);
        byte_writer_put(writer, big_endian ? swap_32(fifth) : fifth, 4);
    }
    return 15;
}

/* Four characters of four bytes, as in emoji: F0..F4 lead bytes at 0, 4,
 * 8, 12 with three continuation bytes each (F0: 90..BF first; F4: 80..8F
 * first); to UTF-16, four surrogate pairs (Table 3-5). */
static inline size_t four_byte_step(uint8x16_t block, byte_writer *writer, int big_endian, int utf16)
{
    const uint32_t lead_positions = 0x1111;
    uint32_t continuation = byte_mask(continuation_bytes(block));
    if (continuation != 0xEEEE)
        return 0;
    uint8x16_t second = byte_after(block);
    uint8x16_t narrow = vorrq_u8(vandq_u8(equal(block, 0xF0), at_most(second, 0x8F)),
                                 vandq_u8(equal(block, 0xF4), at_least(second, 0x90)));
    uint32_t four = byte_mask(vandq_u8(at_least(block, 0xF0), at_most(block, 0xF4)));
    if ((four & lead_positions) != lead_positions || (byte_mask(narrow) & lead_positions) != 0)
        return 0;
    /* lead byte first in each lane's high byte: 11110uuu 10uuzzzz 10yyyyyy 10xxxxxx */
    uint32x4_t bytes = as_units32(swap_32(block));
    uint32x4_t code_point = vorrq_u32(
        vorrq_u32(vandq_u32(bytes, vdupq_n_u32(0x3F)), vandq_u32(vshrq_n_u32(bytes, 2), vdupq_n_u32(0xFC0))),
        vorrq_u32(vandq_u32(vshrq_n_u32(bytes, 4), vdupq_n_u32(0x3F000)),
                  vandq_u32(vshrq_n_u32(bytes, 6), vdupq_n_u32(0x1C0000))));
    if (utf16) {
        uint32x4_t offset = vsubq_u32(code_point, vdupq_n_u32(0x10000));
        uint32x4_t lead = vorrq_u32(vshrq_n_u32(offset, 10), vdupq_n_u32(0xD800));
        uint32x4_t trail = vorrq_u32(vandq_u32(offset, vdupq_n_u32(0x3FF)), vdupq_n_u32(0xDC00));
        uint8x16_t pairs = as_bytes32(vorrq_u32(lead, vshlq_n_u32(trail, 16)));
        byte_writer_put(writer, big_endian ? swap_16(pairs) : pairs, 16);
    } else {
        uint8x16_t units = as_bytes32(code_point);
        byte_writer_put(writer, big_endian ? swap_32(units) : units, 16);
    }
    return 16;
}

/* Sixteen ASCII characters, one code unit each (Table 3-7 row 1), with
 * the zero bytes of their units interleaved by ST2 / ST4. */
static inline uint8_t *put_ascii(uint8_t *out, uint8x16_t block, int big_endian, int utf16)
{
    uint8x16_t zero = vdupq_n_u8(0);
    if (utf16) {
        uint8x16x2_t units = {{big_endian ? zero : block, big_endian ? block : zero}};
        vst2q_u8(out, units);
        return out + 32;
    }
    uint8x16x4_t units = {{big_endian ? zero : block, zero, zero, big_endian ? block : zero}};
    vst4q_u8(out, units);
    return out + 64;
}

/* Inlined into each of its four callers, so that `big_endian` and `utf16`
 * are constants there and every test of them is decided at compile time. */
static inline __attribute__((always_inline)) size_t utf8_to_units(const uint8_t *src, size_t len,
                                                                  int big_endian, uint8_t *dst,
                                                                  size_t *written, int utf16)
{
    size_t i = 0;
    byte_writer writer = byte_writer_at(dst);
    while (len - i >= 16) {
        uint8x16_t block = vld1q_u8(src + i);
        if (vmaxvq_u8(block) < 0x80) { /* 16 characters of one byte */
            writer.out = put_ascii(byte_writer_before_wide_store(&writer), block, big_endian, utf16);
            i += 16;
            continue;
        }
        size_t fast = one_or_two_byte_step(block, &writer, big_endian, utf16);
        if (fast == 0)
            fast = three_byte_step(block, &writer, big_endian, utf16);
        if (fast == 0)
            fast = four_byte_step(block, &writer, big_endian, utf16);
        if (fast != 0) {
            i += fast;
            continue;
        }
        uint8x16_t is_continuation = continuation_bytes(block);
        uint32_t continuation = byte_mask(is_continuation);
        uint32_t leads = ~continuation;
        size_t consumed = LAST_LEAD + 1 + (size_t)__builtin_ctz((leads >> (LAST_LEAD + 1)) | 8);
        uint32_t taken = leads & ((2u << LAST_LEAD) - 1);
        uint32_t in_block = (1u << consumed) - 1;
        /* Table 3-7: C0..DF lead one continuation byte, E0..EF two, F0..F4
         * three; then the rows with a narrower second byte. */
        uint32_t two = byte_mask(at_least(block, 0xC0)) & taken;
        uint32_t three = byte_mask(at_least(block, 0xE0)) & taken;
        uint32_t four = byte_mask(at_least(block, 0xF0)) & taken;
        if ((two << 1 | three << 2 | four << 3) != (continuation & in_block))
            break;
        uint8x16_t second = byte_after(block);
        uint8x16_t narrow = vorrq_u8(vorrq_u8(vandq_u8(equal(block, 0xE0), at_most(second, 0x9F)),
                                              vandq_u8(equal(block, 0xED), at_least(second, 0xA0))),
                                     vorrq_u8(vandq_u8(equal(block, 0xF0), at_most(second, 0x8F)),
                                              vandq_u8(equal(block, 0xF4), at_least(second, 0x90))));
        /* C0, C1 and F5..FF begin no row */
        uint8x16_t no_row = vorrq_u8(equal(vandq_u8(block, vdupq_n_u8(0xFE)), 0xC0), at_least(block, 0xF5));
        if ((byte_mask(narrow) & taken) != 0 || (byte_mask(no_row) & in_block) != 0)
            break;
        i += consumed;
        /* At each character's last byte: low byte yyxxxxxx, high byte
         * zzzzyyyy and, for 4-byte characters, top byte 000uuuuu (byte
         * shifts: each byte keeps only its own bits). */
        uint8x16_t continued = vandq_u8(is_continuation, byte_before(is_continuation));
        uint8x16_t before = vandq_u8(byte_before(block), is_continuation);
        uint8x16_t two_before = vandq_u8(byte_two_before(block), continued);
        uint8x16_t low = vorrq_u8(vandq_u8(block, vdupq_n_u8(0x7F)), vshlq_n_u8(before, 6));
        uint8x16_t high = vorrq_u8(vandq_u8(vshrq_n_u8(before, 2), vdupq_n_u8(0x0F)), vshlq_n_u8(two_before, 4));
        uint32_t last = ~(continuation >> 1) & in_block;
        uint8x16_t top = vdupq_n_u8(0);
        if (four != 0) {
            /* the last bytes of 4-byte characters: three continuation bytes in a row */
            uint8x16_t fourth = vandq_u8(continued, byte_two_before(is_continuation));
            top = vandq_u8(fourth, vorrq_u8(vandq_u8(vshrq_n_u8(two_before, 4), vdupq_n_u8(0x03)),
                                            vandq_u8(vshlq_n_u8(byte_three_before(block), 2),
                                                     vdupq_n_u8(0x1C))));
            if (utf16) {
                /* Table 3-5: the trail surrogate 110111xx xxxxxxxx at the last
                 * byte, the lead 110110ww wwxxxxxx (wwww = uuuuu - 1) at the
                 * byte before it, from the top and high bytes after it. */
                uint8x16_t top_after = vsubq_u8(byte_after(top), vdupq_n_u8(1));
                uint8x16_t high_after = byte_after(high);
                uint8x16_t lead_low = vorrq_u8(vshlq_n_u8(top_after, 6), vshrq_n_u8(high_after, 2));
                uint8x16_t lead_high =
                    vorrq_u8(vandq_u8(vshrq_n_u8(top_after, 2), vdupq_n_u8(0x03)), vdupq_n_u8(0xD8));
                uint8x16_t trail_high = vorrq_u8(vandq_u8(high, vdupq_n_u8(0x03)), vdupq_n_u8(0xDC));
                uint8x16_t third = byte_after(fourth);
                high = vbslq_u8(third, lead_high, vbslq_u8(fourth, trail_high, high));
                low = vbslq_u8(third, lead_low, low);
                last |= byte_mask(third) & in_block;
            }
        }
        int swap = utf16 && big_endian;
        uint8x16_t zero = vdupq_n_u8(0);
        uint8x16_t first_half = swap ? vzip1q_u8(high, low) : vzip1q_u8(low, high);
        uint8x16_t second_half = swap ? vzip2q_u8(high, low) : vzip2q_u8(low, high);
        put_units(&writer, first_half, vzip1q_u8(top, zero), last & 0xFF, big_endian, utf16);
        put_units(&writer, second_half, vzip2q_u8(top, zero), last >> 8 & 0xFF, big_endian, utf16);
    }
    *written = (size_t)(byte_writer_finish(&writer) - dst);
    return i;
}

size_t utfkit_utf8_to_utf16_neon(const uint8_t *src, size_t len, int big_endian, uint8_t *dst,
                                 size_t *written)
{
    return big_endian ? utf8_to_units(src, len, 1, dst, written, 1)
                      : utf8_to_units(src, len, 0, dst, written, 1);
}

size_t utfkit_utf8_to_utf32_neon(const uint8_t *src, size_t len, int big_endian, uint8_t *dst,
                                 size_t *written)
{
    return big_endian ? utf8_to_units(src, len, 1, dst, written, 0)
                      : utf8_to_units(src, len, 0, dst, written, 0);
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
static inline void put_utf8(byte_writer *writer, uint32x4_t code_point, uint32x4_t previous, unsigned lanes,
                            int supplementary, int pairs)
{
    const uint32x4_t six_bits = vdupq_n_u32(0x3F);
    uint32x4_t two_or_more = vcgtq_u32(code_point, vdupq_n_u32(0x7F));
    uint32x4_t three_or_more = vcgtq_u32(code_point, vdupq_n_u32(0x7FF));
    uint32x4_t last = vandq_u32(code_point, six_bits);                     /* xxxxxx */
    uint32x4_t middle = vandq_u32(vshrq_n_u32(code_point, 6), six_bits); /* yyyyyy */
    /* 110yyyyy 10xxxxxx */
    uint32x4_t two = vorrq_u32(vorrq_u32(vshrq_n_u32(code_point, 6), vshlq_n_u32(last, 8)), vdupq_n_u32(0x80C0));
    /* 1110zzzz 10yyyyyy 10xxxxxx */
    uint32x4_t three = vorrq_u32(vorrq_u32(vshrq_n_u32(code_point, 12), vshlq_n_u32(middle, 8)),
                                 vorrq_u32(vshlq_n_u32(last, 16), vdupq_n_u32(0x8080E0)));
    uint32x4_t bytes = vbslq_u32(two_or_more, two, code_point);
    bytes = vbslq_u32(three_or_more, three, bytes);
    /* per lane, length - 1 in two bits */
    unsigned length_code =
        (unsigned)two_bits_per_lane[lane_mask(two_or_more)] + two_bits_per_lane[lane_mask(three_or_more)];
    if (supplementary) {
        uint32x4_t four_bytes = vcgtq_u32(code_point, vdupq_n_u32(0xFFFF));
        unsigned longest = lane_mask(four_bytes);
        if (longest) {
            /* 11110uuu 10uuzzzz 10yyyyyy 10xxxxxx */
            uint32x4_t upper = vandq_u32(vshrq_n_u32(code_point, 12), six_bits);
            uint32x4_t four = vorrq_u32(vorrq_u32(vshrq_n_u32(code_point, 18), vshlq_n_u32(upper, 8)),
                                        vorrq_u32(vorrq_u32(vshlq_n_u32(middle, 16), vshlq_n_u32(last, 24)),
                                                  vdupq_n_u32(0x808080F0)));
            bytes = vbslq_u32(four_bytes, four, bytes);
            length_code += two_bits_per_lane[longest];
        }
    }
    if (pairs) {
        uint32x4_t ten_bits = vandq_u32(code_point, vdupq_n_u32(0xFC00));
        uint32x4_t is_lead = vceqq_u32(ten_bits, vdupq_n_u32(0xD800));
        uint32x4_t is_trail = vceqq_u32(ten_bits, vdupq_n_u32(0xDC00));
        unsigned surrogate = lane_mask(vorrq_u32(is_lead, is_trail));
        if (surrogate) {
            /* uuuuu zzzz (and two bits of yyyyyy) = wwww + 1, then the rest */
            uint32x4_t plane = vaddq_u32(vandq_u32(code_point, vdupq_n_u32(0x3FF)), vdupq_n_u32(0x40));
            uint32x4_t lead_bytes =
                vorrq_u32(vorrq_u32(vshrq_n_u32(plane, 8), vshlq_n_u32(vandq_u32(vshrq_n_u32(plane, 2), six_bits), 8)),
                          vdupq_n_u32(0x80F0));
            uint32x4_t trail_bytes = vorrq_u32(
                vorrq_u32(vshlq_n_u32(vandq_u32(previous, vdupq_n_u32(3)), 4),
                          vandq_u32(vshrq_n_u32(code_point, 6), vdupq_n_u32(0x0F))),
                vorrq_u32(vshlq_n_u32(last, 8), vdupq_n_u32(0x8080)));
            bytes = vbslq_u32(is_trail, trail_bytes, vbslq_u32(is_lead, lead_bytes, bytes));
            length_code -= two_bits_per_lane[surrogate]; /* three bytes counted, two written */
        }
    }
    /* lanes past `lanes` count as one byte each in the table's length */
    length_code &= (1u << (2 * lanes)) - 1;
    unsigned count = utfkit_lane_prefixes_length[length_code] - (4 - lanes);
    byte_writer_put(writer, vqtbl1q_u8(as_bytes32(bytes), vld1q_u8(utfkit_lane_prefixes[length_code])), count);
}

/* Writes eight units below 800 (Table 3-6: one or two bytes each). */
static inline void put_one_or_two_bytes(byte_writer *writer, uint16x8_t units)
{
    /* 110yyyyy 10xxxxxx, lead byte first: in the lane's low byte */
    uint16x8_t two = vorrq_u16(vorrq_u16(vshrq_n_u16(units, 6), vshlq_n_u16(vandq_u16(units, vdupq_n_u16(0x3F)), 8)),
                               vdupq_n_u16(0x80C0));
    uint16x8_t is_two = vcgtq_u16(units, vdupq_n_u16(0x7F));
    uint8x16_t bytes = as_bytes16(vbslq_u16(is_two, two, units));
    unsigned lanes = unit_mask(is_two);
    bytes = vqtbl1q_u8(bytes, vld1q_u8(utfkit_two_byte_prefixes[lanes]));
    byte_writer_put(writer, bytes, 8 + (unsigned)__builtin_popcount(lanes));
}

/* Writes eight units 800..FFFF that are not surrogates (Table 3-6: three
 * bytes each, 1110zzzz 10yyyyyy 10xxxxxx). */
static inline void put_three_bytes(byte_writer *writer, uint16x8_t units)
{
    /* lane_prefixes entry 0xAA: three bytes of each of four lanes */
    static const uint8_t three_of_four[16] = {0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 0xFF, 0xFF, 0xFF, 0xFF};
    for (int half = 0; half < 2; half++) {
        uint32x4_t code_point = half ? vmovl_high_u16(units) : vmovl_u16(vget_low_u16(units));
        uint32x4_t three = vorrq_u32(
            vorrq_u32(vshrq_n_u32(code_point, 12),
                      vshlq_n_u32(vandq_u32(vshrq_n_u32(code_point, 6), vdupq_n_u32(0x3F)), 8)),
            vorrq_u32(vshlq_n_u32(vandq_u32(code_point, vdupq_n_u32(0x3F)), 16), vdupq_n_u32(0x8080E0)));
        byte_writer_put(writer, vqtbl1q_u8(as_bytes32(three), vld1q_u8(three_of_four)), 12);
    }
}

/* Writes four surrogate pairs, each a lead surrogate in a 32-bit lane's low
 * half and its trail in the high half: 11110uuu 10uuzzzz 10yyyyyy 10xxxxxx
 * (Table 3-6) for U+10000 + (wwwwxxxxxx xxxxxxxxxx) with uuuuu = wwww + 1
 * (Table 3-5). */
static inline void put_pairs(byte_writer *writer, uint32x4_t pairs)
{
    const uint32x4_t six_bits = vdupq_n_u32(0x3F);
    uint32x4_t plane = vaddq_u32(vandq_u32(pairs, vdupq_n_u32(0x3FF)), vdupq_n_u32(0x40));
    uint32x4_t trail = vshrq_n_u32(pairs, 16);
    uint32x4_t bytes = vorrq_u32(
        vorrq_u32(vshrq_n_u32(plane, 8), vshlq_n_u32(vandq_u32(vshrq_n_u32(plane, 2), six_bits), 8)),
        vorrq_u32(vshlq_n_u32(vorrq_u32(vshlq_n_u32(vandq_u32(plane, vdupq_n_u32(3)), 4),
                                        vandq_u32(vshrq_n_u32(trail, 6), vdupq_n_u32(0x0F))),
                              16),
                  vorrq_u32(vshlq_n_u32(vandq_u32(trail, six_bits), 24), vdupq_n_u32(0x808080F0))));
    byte_writer_put(writer, as_bytes32(bytes), 16);
}

/* Surrogate pairs (D91, Table 3-5) are taken whole; a lead surrogate
 * without a trail after it, a trail without a lead before it, and a lead
 * in the last unit of a step stop the block there, for the scalar reader
 * (which reports or repairs the unpaired ones). */
size_t utfkit_utf16_to_utf8_neon(const uint8_t *src, size_t len, int big_endian, uint8_t *dst,
                                 size_t *written)
{
    size_t i = 0;
    byte_writer writer = byte_writer_at(dst);
    while (len - i >= 16) {
        uint8x16_t raw = vld1q_u8(src + i);
        uint16x8_t units = as_units16(big_endian ? swap_16(raw) : raw);
        if (vmaxvq_u16(units) < 0x80) { /* eight of one byte */
            uint16x8_t next = vdupq_n_u16(0xFFFF);
            if (len - i >= 32) {
                uint8x16_t raw_next = vld1q_u8(src + i + 16);
                next = as_units16(big_endian ? swap_16(raw_next) : raw_next);
            }
            if (vmaxvq_u16(next) < 0x80) { /* and eight more */
                vst1q_u8(byte_writer_before_wide_store(&writer), vcombine_u8(vmovn_u16(units), vmovn_u16(next)));
                writer.out += 16;
                i += 32;
                continue;
            }
            uint8x8_t narrow = vmovn_u16(units);
            byte_writer_put(&writer, vcombine_u8(narrow, narrow), 8);
            i += 16;
            continue;
        }
        if (vmaxvq_u16(units) < 0x800) { /* eight of one or two bytes */
            put_one_or_two_bytes(&writer, units);
            i += 16;
            continue;
        }
        uint16x8_t ten_bits = vandq_u16(units, vdupq_n_u16(0xFC00));
        uint32_t leads = unit_mask(vceqq_u16(ten_bits, vdupq_n_u16(0xD800)));
        uint32_t trails = unit_mask(vceqq_u16(ten_bits, vdupq_n_u16(0xDC00)));
        if ((leads | trails) == 0 && vminvq_u16(units) >= 0x800) {
            put_three_bytes(&writer, units);
            i += 16;
            continue;
        }
        if (leads == 0x55 && trails == 0xAA) {
            put_pairs(&writer, vreinterpretq_u32_u16(units));
            i += 16;
            continue;
        }
        unsigned taken = 8;
        int pairs = (leads | trails) != 0;
        if (pairs) {
            /* a lead whose next unit is no trail; a trail whose previous unit is no lead */
            uint32_t stop = ((leads & ~(trails >> 1)) | (trails & ~(leads << 1))) & 0xFF;
            if (stop != 0)
                taken = (unsigned)__builtin_ctz(stop);
            if (taken == 0)
                break;
        }
        uint16x8_t previous = vextq_u16(vdupq_n_u16(0), units, 7);
        if (pairs) {
            put_utf8(&writer, vmovl_u16(vget_low_u16(units)), vmovl_u16(vget_low_u16(previous)),
                     taken < 4 ? taken : 4, 0, 1);
            if (taken > 4)
                put_utf8(&writer, vmovl_high_u16(units), vmovl_high_u16(previous), taken - 4, 0, 1);
        } else {
            put_utf8(&writer, vmovl_u16(vget_low_u16(units)), vdupq_n_u32(0), 4, 0, 0);
            put_utf8(&writer, vmovl_high_u16(units), vdupq_n_u32(0), 4, 0, 0);
        }
        i += 2 * taken;
    }
    *written = (size_t)(byte_writer_finish(&writer) - dst);
    return i;
}

/* D90: surrogates D800..DFFF and units above 10FFFF are not scalar values. */
static inline uint32x4_t not_scalar_values(uint32x4_t units)
{
    return vorrq_u32(vcgtq_u32(units, vdupq_n_u32(0x10FFFF)),
                     vceqq_u32(vandq_u32(units, vdupq_n_u32(0xFFFFF800)), vdupq_n_u32(0xD800)));
}

static inline uint32x4_t load_units32(const uint8_t *src, int big_endian)
{
    uint8x16_t raw = vld1q_u8(src);
    return as_units32(big_endian ? swap_32(raw) : raw);
}

size_t utfkit_utf32_to_utf8_neon(const uint8_t *src, size_t len, int big_endian, uint8_t *dst,
                                 size_t *written)
{
    size_t i = 0;
    byte_writer writer = byte_writer_at(dst);
    while (len - i >= 16) {
        uint32x4_t units = load_units32(src + i, big_endian);
        unsigned bad = lane_mask(not_scalar_values(units));
        unsigned taken = bad ? (unsigned)__builtin_ctz(bad) : 4;
        if (taken == 0)
            break;
        unsigned non_ascii = lane_mask(vcgtq_u32(units, vdupq_n_u32(0x7F))) & ((1u << taken) - 1);
        if (non_ascii == 0) {
            uint16x4_t narrow = vmovn_u32(units);
            uint8x8_t bytes = vmovn_u16(vcombine_u16(narrow, narrow));
            byte_writer_put(&writer, vcombine_u8(bytes, bytes), taken);
        } else {
            put_utf8(&writer, units, units, taken, 1, 0);
        }
        i += 4 * taken;
    }
    *written = (size_t)(byte_writer_finish(&writer) - dst);
    return i;
}

/* ---- UTF-16 <-> UTF-32 ----
 *
 * `byte_orders` is the source's byte order (1: big-endian) in bit 0 and
 * the target's in bit 1 (kernels.h).  UTF-16 -> UTF-32 takes the units of
 * the BMP (one unit each way, Table 3-5); surrogates -- pairs included --
 * stop its step, for the scalar reader.  UTF-32 -> UTF-16 splits the
 * supplementary scalar values into pairs itself. */

size_t utfkit_utf16_to_utf32_neon(const uint8_t *src, size_t len, int byte_orders, uint8_t *dst,
                                  size_t *written)
{
    size_t i = 0;
    uint8_t *out = dst;
    while (len - i >= 16) {
        uint8x16_t raw = vld1q_u8(src + i);
        uint16x8_t units = as_units16(byte_orders & 1 ? swap_16(raw) : raw);
        uint32_t bad = unit_mask(vceqq_u16(vandq_u16(units, vdupq_n_u16(0xF800)), vdupq_n_u16(0xD800)));
        unsigned taken = bad ? (unsigned)__builtin_ctz(bad) : 8;
        if (taken == 0)
            break;
        uint8x16_t first = as_bytes32(vmovl_u16(vget_low_u16(units)));
        uint8x16_t second = as_bytes32(vmovl_high_u16(units));
        if (byte_orders & 2) {
            first = swap_32(first);
            second = swap_32(second);
        }
        if (taken < 8) { /* exactly the units before the surrogate */
            uint8_t code_points[32];
            vst1q_u8(code_points, first);
            vst1q_u8(code_points + 16, second);
            memcpy(out, code_points, 4 * taken);
            out += 4 * taken;
            i += 2 * taken;
            break;
        }
        vst1q_u8(out, first);
        vst1q_u8(out + 16, second);
        out += 32;
        i += 16;
    }
    *written = (size_t)(out - dst);
    return i;
}

size_t utfkit_utf32_to_utf16_neon(const uint8_t *src, size_t len, int byte_orders, uint8_t *dst,
                                  size_t *written)
{
    size_t i = 0;
    uint8_t *out = dst;
    while (len - i >= 16) {
        uint32x4_t units = load_units32(src + i, byte_orders & 1);
        /* above FFFF (pairs, or not scalar values: D90) or a surrogate */
        uint32x4_t surrogate = vceqq_u32(vandq_u32(units, vdupq_n_u32(0xFFFFF800)), vdupq_n_u32(0xD800));
        if (vmaxvq_u32(units) <= 0xFFFF && vmaxvq_u32(surrogate) == 0) { /* four BMP units */
            uint8x8_t narrow = vreinterpret_u8_u16(vmovn_u32(units));
            if (byte_orders & 2)
                narrow = vrev16_u8(narrow);
            vst1_u8(out, narrow);
            out += 8;
            i += 16;
            continue;
        }
        unsigned bad = lane_mask(not_scalar_values(units));
        unsigned taken = bad ? (unsigned)__builtin_ctz(bad) : 4;
        if (taken == 0)
            break;
        uint32x4_t is_supplementary = vcgtq_u32(units, vdupq_n_u32(0xFFFF));
        unsigned supplementary = lane_mask(is_supplementary) & ((1u << taken) - 1);
        /* Table 3-5: lead 110110wwwwxxxxxx (wwww = uuuuu - 1) in the lane's
         * low half, trail 110111xxxxxxxxxx in its high half. */
        uint32x4_t offset = vsubq_u32(units, vdupq_n_u32(0x10000));
        uint32x4_t lead = vorrq_u32(vshrq_n_u32(offset, 10), vdupq_n_u32(0xD800));
        uint32x4_t trail = vorrq_u32(vandq_u32(offset, vdupq_n_u32(0x3FF)), vdupq_n_u32(0xDC00));
        uint32x4_t pair = vorrq_u32(lead, vshlq_n_u32(trail, 16));
        uint8x16_t lanes = as_bytes32(vbslq_u32(is_supplementary, pair, units));
        if (byte_orders & 2)
            lanes = swap_16(lanes);
        /* each used lane's low unit, and its high unit for a pair */
        unsigned kept = two_bits_per_lane[(1u << taken) - 1] | (unsigned)two_bits_per_lane[supplementary] << 1;
        lanes = vqtbl1q_u8(lanes, vld1q_u8(utfkit_kept_units[kept]));
        uint8_t code_units[16];
        vst1q_u8(code_units, lanes);
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
#endif
