/*
 * x86_avx2_transcode.c -- transcoding blocks for CPUs with AVX2, BMI2 and
 * POPCNT: those of the avx2 kernel (kernels.h).
 *
 * AVX2 has no byte compression and no permute across its 128-bit halves,
 * so variable-length output is packed 16 bytes at a time with PSHUFB and a
 * table indexed by a small mask (x86_shuffle_tables.h, written by
 * gen_x86_shuffle_tables.py):
 *
 *   UTF-8 -> UTF-16 / UTF-32, 32 input bytes per step: the block is checked
 *     against Table 3-7 (continuation bytes exactly where the lead bytes
 *     ask for them; no C0, C1; E0 A0..BF; ED 80..9F), then every code
 *     point is computed at its character's last byte from that byte and the
 *     one or two before it (the byte-wise method of x86_avx512_transcode.c)
 *     and the code units at last bytes are packed 8 positions at a time (a
 *     surrogate pair takes the last two bytes of its character).  Blocks
 *     that are not well-formed go to the scalar reader.  Text of
 *     characters of one to three bytes goes to mixed_run, 32 bytes per
 *     step at a fixed stride, each code unit computed at its character's
 *     last byte from the bytes before it, which may be the block before's.
 *   UTF-16 / UTF-32 -> UTF-8, 16 units per step: units of the BMP that are
 *     not surrogates are encoded in their 16-bit lanes (the first two bytes;
 *     the third in a second vector), interleaved into 32-bit lanes lead
 *     byte first (Table 3-6), and the first 1..3 bytes of four lanes are
 *     gathered per PSHUFB; runs of ASCII, of units below 0800 and of
 *     supplementary characters have steps of their own.  UTF-16 surrogate
 *     pairs are joined into one lane first (utf16_read_pairs); an unpaired
 *     surrogate (D91) and a UTF-32 unit that is not a scalar value (D90)
 *     stop the block there.
 *   UTF-16 <-> UTF-32: units of the BMP widened or narrowed directly, pairs
 *     joined or split (Table 3-5).
 *
 * UTF-8 -> UTF-16 output goes through byte_writer (x86_byte_writer.h):
 * nothing past *written changes.  The other blocks store whole vectors at
 * the end of their output, within the room kernels.h promises (the
 * worst-case output of the whole input: each step says how far it reaches).
 */
#include "../kernels.h"

#if defined(UTFKIT_X86_64)
#include <immintrin.h>

#include "x86_shuffle_tables.h"

/* Everything below is compiled for these features, with no -m flag for the build. */
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,bmi2,popcnt"))), apply_to = function)
#elif defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx2,bmi2,popcnt")
#endif

#include "x86_byte_writer.h"

static inline __m256i swap_16(__m256i v)
{
    const __m256i order = _mm256_setr_epi8(1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14,
                                           1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14);
    return _mm256_shuffle_epi8(v, order);
}

static inline __m256i swap_32(__m256i v)
{
    const __m256i order = _mm256_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12,
                                           3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12);
    return _mm256_shuffle_epi8(v, order);
}

/* Unsigned byte comparisons, as AVX2 has only signed ones. */
static inline __m256i at_least(__m256i v, uint8_t bound)
{
    return _mm256_cmpeq_epi8(_mm256_max_epu8(v, _mm256_set1_epi8((char)bound)), v);
}

static inline __m256i at_most(__m256i v, uint8_t bound)
{
    return _mm256_cmpeq_epi8(_mm256_min_epu8(v, _mm256_set1_epi8((char)bound)), v);
}

static inline uint32_t byte_mask(__m256i v)
{
    return (uint32_t)_mm256_movemask_epi8(v);
}

/* ---- UTF-8 -> UTF-16 / UTF-32 ---- */

/* A character that starts in bytes 0..LAST_LEAD of a 32-byte block ends
 * inside it. */
#define LAST_LEAD 28

/* The continuation bytes of 8 characters of 3 bytes each, as bits 0..23
 * of a block's mask. */
#define THREE_BYTE_RUN 0xDB6DB6u
/* ... and of 8 characters of 4 bytes each, filling the block. */
#define FOUR_BYTE_RUN 0xEEEEEEEEu

/* Each byte's predecessor one or two bytes back (zero before the block). */
static inline __m256i byte_before(__m256i v)
{
    return _mm256_alignr_epi8(v, _mm256_permute2x128_si256(v, v, 0x08), 15);
}

static inline __m256i byte_two_before(__m256i v)
{
    return _mm256_alignr_epi8(v, _mm256_permute2x128_si256(v, v, 0x08), 14);
}

static inline __m256i byte_three_before(__m256i v)
{
    return _mm256_alignr_epi8(v, _mm256_permute2x128_si256(v, v, 0x08), 13);
}

static inline __m256i byte_after(__m256i v)
{
    return _mm256_alignr_epi8(_mm256_permute2x128_si256(v, v, 0x81), v, 1);
}

/* Packs the code units of the positions set in `last` (8 bits) of eight
 * 16-bit lanes and writes them as UTF-16 (through the byte writer) or
 * UTF-32 (at *out, a whole 32-byte store). */
static inline void put_units(byte_writer *writer, uint8_t **out, __m128i units, unsigned last,
                             int big_endian, int utf16)
{
    units = _mm_shuffle_epi8(units, _mm_load_si128((const __m128i *)utfkit_kept_units[last]));
    unsigned count = (unsigned)__builtin_popcount(last);
    if (utf16) {
        byte_writer_put(writer, units, 2 * count);
        return;
    }
    __m256i wide = _mm256_cvtepu16_epi32(units);
    if (big_endian)
        wide = swap_32(wide);
    _mm256_storeu_si256((__m256i *)*out, wide); /* whole: see put_wide_units */
    *out += 4 * count;
}

/* The code points of the positions set in `last` of eight lanes whose low
 * 16 bits are in `units` and bits 16..20 in the low bytes of `tops`, packed
 * into the first popcount(last) 32-bit lanes. */
static inline __m256i kept_code_points(__m128i units, __m128i tops, unsigned last)
{
    const __m128i kept = _mm_load_si128((const __m128i *)utfkit_kept_units[last]);
    units = _mm_shuffle_epi8(units, kept);
    tops = _mm_shuffle_epi8(tops, kept);
    return _mm256_set_m128i(_mm_unpackhi_epi16(units, tops), _mm_unpacklo_epi16(units, tops));
}

/* UTF-32 of the positions set in `last` (see kept_code_points). */
static inline uint8_t *put_wide_units(uint8_t *out, __m128i units, __m128i tops, unsigned last,
                                      int big_endian)
{
    __m256i wide = kept_code_points(units, tops, last);
    if (big_endian)
        wide = swap_32(wide);
    unsigned count = (unsigned)__builtin_popcount(last);
    /* Stored whole: the lanes past `count` are garbage, which the next
     * store or the scalar reader overwrites; the 32 bytes stay within the
     * room of the worst case (4 bytes per UTF-8 byte, 2 per UTF-16 byte)
     * of the 8 units or more left to read. */
    _mm256_storeu_si256((__m256i *)out, wide);
    return out + 4 * count;
}

/* Runs of blocks of characters of one, two and three bytes (no byte
 * F0..FF), as in Cyrillic, Greek, Arabic or Hebrew words between ASCII
 * spaces, or Hindi, Thai and Korean text: the general step below waits for
 * the length of the step before it (where its last whole character ends)
 * before it can load its block, so on such text it runs at the latency of
 * that chain.  Here the blocks go at a fixed stride of 32 bytes: each
 * character's code unit is computed at its last byte from that byte and
 * the two before it, which may lie in the block before, and a character
 * that goes on into the next block is written with that block.
 *
 * Checked against Unicode 3.9 Table 3-7: every C2..DF lead byte has one
 * continuation byte after it and every E0..EF lead two, in this block or
 * the next (`owed` carries those of the next), and there are none
 * elsewhere; E0 is followed by A0..BF and ED by 80..9F; C0 and C1 begin no
 * row; no byte follows F0..FF.  A lead byte's fault shows at the byte
 * after it, so in the next block for a lead at a block's last byte.  A
 * block of ASCII that owes nothing to the one before is widened as it is
 * (text that mixes ASCII with such characters stays in the run).  The run
 * stops before a block where the check fails (an ill-formed block, or a
 * byte F0..FF: the steps take it) and when fewer than 32 bytes are left.
 * It returns the bytes of the whole characters written -- not the one the
 * last block cuts -- and where their code units end. */
typedef struct run_end {
    size_t consumed;
    uint8_t *out;
} run_end;

/* What the run knows of one block once it is checked. */
typedef struct run_block {
    uint64_t wanted; /* bit k: byte k must be a continuation byte (bits 32, 33: the next block's) */
    uint32_t failed; /* nonzero if the block breaks Table 3-7 or follows a byte F0..FF */
    __m256i is_continuation;
    __m256i before; /* the byte before each byte (the block before's byte 31 before byte 0) */
} run_block;

/* The bytes one and two places before each byte of `block`, those before
 * its first bytes from the end of `previous`. */
static inline __m256i one_byte_back(__m256i block, __m256i previous)
{
    return _mm256_alignr_epi8(block, _mm256_permute2x128_si256(previous, block, 0x21), 15);
}

static inline __m256i two_bytes_back(__m256i block, __m256i previous)
{
    return _mm256_alignr_epi8(block, _mm256_permute2x128_si256(previous, block, 0x21), 14);
}

static inline run_block check_run_block(__m256i block, __m256i previous, uint64_t owed)
{
    run_block b;
    uint32_t non_ascii = byte_mask(block);
    /* E0..FF are the signed bytes above -33 that are not ASCII; 80..BF those below -64 */
    uint32_t three = byte_mask(_mm256_cmpgt_epi8(block, _mm256_set1_epi8(-33))) & non_ascii;
    b.is_continuation = _mm256_cmpgt_epi8(_mm256_set1_epi8(-64), block);
    uint32_t continuation = byte_mask(b.is_continuation);
    uint32_t leads = non_ascii & ~continuation;
    b.wanted = (uint64_t)leads << 1 | (uint64_t)three << 2 | owed;
    b.before = one_byte_back(block, previous);
    __m256i after_c0_c1 = _mm256_cmpeq_epi8(_mm256_or_si256(b.before, _mm256_set1_epi8(1)),
                                            _mm256_set1_epi8((char)0xC1));
    __m256i after_f0_ff = at_least(b.before, 0xF0);
    /* E0 then 80..9F (below -96 as signed bytes), ED then A0..BF (above -97) */
    __m256i narrow = _mm256_or_si256(
        _mm256_and_si256(_mm256_cmpeq_epi8(b.before, _mm256_set1_epi8((char)0xE0)),
                         _mm256_cmpgt_epi8(_mm256_set1_epi8(-96), block)),
        _mm256_and_si256(_mm256_cmpeq_epi8(b.before, _mm256_set1_epi8((char)0xED)),
                         _mm256_cmpgt_epi8(block, _mm256_set1_epi8(-97))));
    b.failed = ((uint32_t)b.wanted ^ continuation) |
               byte_mask(_mm256_or_si256(narrow, _mm256_or_si256(after_c0_c1, after_f0_ff)));
    return b;
}

/* Packs the code units of the positions set in `last` (8 bits) of eight
 * 16-bit lanes and stores them whole at out: 16 bytes of UTF-16, or 32 of
 * UTF-32, for the 8 input bytes they come from, so within the room of the
 * worst case (kernels.h) of what the run has read.  Returns the end of the
 * units kept. */
static inline uint8_t *put_run_units(uint8_t *out, __m128i units, unsigned last, int big_endian, int utf16)
{
    units = _mm_shuffle_epi8(units, _mm_load_si128((const __m128i *)utfkit_kept_units[last]));
    unsigned count = (unsigned)__builtin_popcount(last);
    if (utf16) {
        _mm_storeu_si128((__m128i *)out, units);
        return out + 2 * count;
    }
    __m256i wide = _mm256_cvtepu16_epi32(units);
    if (big_endian)
        wide = swap_32(wide);
    _mm256_storeu_si256((__m256i *)out, wide);
    return out + 4 * count;
}

/* Writes the code units of the characters that end in a checked block: at
 * each character's last byte, low byte yyxxxxxx and high byte zzzzyyyy
 * (Table 3-6; 16-bit shifts, the bits they carry across bytes masked off). */
static inline uint8_t *put_run_block(uint8_t *out, __m256i block, __m256i previous, const run_block *b,
                                     int big_endian, int utf16)
{
    __m256i continued = _mm256_and_si256(b->is_continuation, _mm256_cmpgt_epi8(_mm256_set1_epi8(-64), b->before));
    __m256i two_before = _mm256_and_si256(two_bytes_back(block, previous), continued);
    __m256i before = _mm256_and_si256(b->before, b->is_continuation);
    __m256i low = _mm256_or_si256(_mm256_and_si256(block, _mm256_set1_epi8(0x7F)),
                                  _mm256_and_si256(_mm256_slli_epi16(before, 6), _mm256_set1_epi8((char)0xC0)));
    __m256i high = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(before, 2), _mm256_set1_epi8(0x0F)),
                                   _mm256_and_si256(_mm256_slli_epi16(two_before, 4), _mm256_set1_epi8((char)0xF0)));
    /* a byte ends a character unless a continuation byte is wanted after it */
    uint32_t last = ~(uint32_t)(b->wanted >> 1);
    int swap = utf16 && big_endian;
    /* bytes 0..7 and 16..23; 8..15 and 24..31 */
    __m256i first_halves = swap ? _mm256_unpacklo_epi8(high, low) : _mm256_unpacklo_epi8(low, high);
    __m256i second_halves = swap ? _mm256_unpackhi_epi8(high, low) : _mm256_unpackhi_epi8(low, high);
    out = put_run_units(out, _mm256_castsi256_si128(first_halves), last & 0xFF, big_endian, utf16);
    out = put_run_units(out, _mm256_castsi256_si128(second_halves), last >> 8 & 0xFF, big_endian, utf16);
    out = put_run_units(out, _mm256_extracti128_si256(first_halves, 1), last >> 16 & 0xFF, big_endian, utf16);
    return put_run_units(out, _mm256_extracti128_si256(second_halves, 1), last >> 24, big_endian, utf16);
}

/* Writes 32 ASCII bytes as 32 code units (whole stores: 2 or 4 bytes per byte read). */
static inline uint8_t *put_ascii_block(uint8_t *out, __m256i block, int big_endian, int utf16)
{
    if (utf16) {
        __m256i low = _mm256_cvtepu8_epi16(_mm256_castsi256_si128(block));
        __m256i high = _mm256_cvtepu8_epi16(_mm256_extracti128_si256(block, 1));
        _mm256_storeu_si256((__m256i *)out, big_endian ? swap_16(low) : low);
        _mm256_storeu_si256((__m256i *)(out + 32), big_endian ? swap_16(high) : high);
        return out + 64;
    }
    for (int quarter = 0; quarter < 4; quarter++) {
        __m128i part = quarter < 2 ? _mm256_castsi256_si128(block) : _mm256_extracti128_si256(block, 1);
        __m256i units = _mm256_cvtepu8_epi32(quarter & 1 ? _mm_srli_si128(part, 8) : part);
        _mm256_storeu_si256((__m256i *)(out + 32 * quarter), big_endian ? swap_32(units) : units);
    }
    return out + 128;
}

static inline __attribute__((always_inline)) run_end mixed_run(const uint8_t *src, size_t len, uint8_t *out,
                                                               int big_endian, int utf16)
{
    size_t i = 0;
    __m256i previous = _mm256_setzero_si256();
    uint64_t owed = 0;        /* continuation bytes owed at bits 0..1 of the next block */
    uint64_t last_wanted = 0; /* the last block's `wanted` */
    for (; len - i >= 32; i += 32) {
        __m256i block = _mm256_loadu_si256((const __m256i *)(src + i));
        if (__builtin_expect((byte_mask(block) | owed) == 0, 0)) {
            /* 32 characters of one byte, widened as they are */
            out = put_ascii_block(out, block, big_endian, utf16);
            previous = block;
            last_wanted = 0;
            continue;
        }
        run_block b = check_run_block(block, previous, owed);
        if (b.failed)
            break;
        out = put_run_block(out, block, previous, &b, big_endian, utf16);
        previous = block;
        last_wanted = b.wanted;
        owed = last_wanted >> 32;
    }
    /* A character still owed bytes began at the last block's last byte
     * that is no lead's continuation byte (`wanted` marks those): it is
     * left for the caller. */
    run_end end = {owed != 0 ? i - 32 + (size_t)(31 - __builtin_clz(~(uint32_t)last_wanted)) : i, out};
    return end;
}

/* One copy per output form, called rather than inlined and each at the
 * start of a cache line, so that the steps' loop keeps its registers and
 * the run's loop its place relative to the instruction fetch windows
 * whatever code is around it. */
#define MIXED_RUN_FUNCTION __attribute__((noinline, aligned(64)))
static MIXED_RUN_FUNCTION run_end mixed_run_utf16le(const uint8_t *src, size_t len, uint8_t *out)
{
    return mixed_run(src, len, out, 0, 1);
}
static MIXED_RUN_FUNCTION run_end mixed_run_utf16be(const uint8_t *src, size_t len, uint8_t *out)
{
    return mixed_run(src, len, out, 1, 1);
}
static MIXED_RUN_FUNCTION run_end mixed_run_utf32le(const uint8_t *src, size_t len, uint8_t *out)
{
    return mixed_run(src, len, out, 0, 0);
}
static MIXED_RUN_FUNCTION run_end mixed_run_utf32be(const uint8_t *src, size_t len, uint8_t *out)
{
    return mixed_run(src, len, out, 1, 0);
}

/* (Always inlined: each caller's constant `big_endian` and `utf16` then
 * take their branches out of the loop.) */
static inline __attribute__((always_inline)) size_t utf8_to_units(const uint8_t *src, size_t len,
                                                                  int big_endian, uint8_t *dst,
                                                                  size_t *written, int utf16)
{
    size_t i = 0;
    uint8_t *out = dst; /* UTF-32 */
    size_t unit_bytes = utf16 ? 2 : 4;
    if (len >= 32 && ((uintptr_t)dst & (unit_bytes - 1)) == 0 && ((uintptr_t)dst & 31) != 0) {
        /* The ASCII characters up to the output's next 32-byte boundary
         * first, if they are ASCII, so that the vector stores below do not
         * straddle cache lines. */
        size_t characters = (32 - ((uintptr_t)dst & 31)) / unit_bytes; /* 1..15 */
        __m128i head = _mm_loadu_si128((const __m128i *)src);
        if ((_mm_movemask_epi8(head) & ((1u << characters) - 1)) == 0) {
            __m256i units = utf16 ? _mm256_cvtepu8_epi16(head) : _mm256_cvtepu8_epi32(head);
            if (big_endian)
                units = utf16 ? swap_16(units) : swap_32(units);
            _mm256_storeu_si256((__m256i *)dst, units);
            out += unit_bytes * characters;
            i = characters;
        }
    }
    byte_writer writer = byte_writer_at(out); /* UTF-16 */
    while (len - i >= 32) {
        __m256i block = _mm256_loadu_si256((const __m256i *)(src + i));
        if (_mm256_movemask_epi8(block) == 0) { /* 32 characters of one byte */
            if (utf16) {
                out = byte_writer_before_wide_store(&writer);
                __m256i low = _mm256_cvtepu8_epi16(_mm256_castsi256_si128(block));
                __m256i high = _mm256_cvtepu8_epi16(_mm256_extracti128_si256(block, 1));
                if (big_endian) {
                    low = swap_16(low);
                    high = swap_16(high);
                }
                _mm256_storeu_si256((__m256i *)out, low);
                _mm256_storeu_si256((__m256i *)(out + 32), high);
                writer.out = out + 64;
            } else {
                for (int quarter = 0; quarter < 4; quarter++) {
                    __m128i part = quarter < 2 ? _mm256_castsi256_si128(block)
                                               : _mm256_extracti128_si256(block, 1);
                    __m256i units = _mm256_cvtepu8_epi32(quarter & 1 ? _mm_srli_si128(part, 8) : part);
                    if (big_endian)
                        units = swap_32(units);
                    _mm256_storeu_si256((__m256i *)(out + 32 * quarter), units);
                }
                out += 128;
            }
            i += 32;
            continue;
        }
        /* 80..BF are the signed bytes below -64 */
        __m256i is_continuation = _mm256_cmpgt_epi8(_mm256_set1_epi8(-64), block);
        uint32_t continuation = byte_mask(is_continuation);
        if ((continuation & 0xFFFFFF) == THREE_BYTE_RUN) {
            /* Bytes 0..23 are a lead byte and two continuation bytes, 8
             * times: the run of 3-byte characters of the scripts written
             * without spaces (Table 3-6: 1110zzzz 10yyyyyy 10xxxxxx).  Four
             * characters per 128-bit half go to 32-bit lanes, lead in byte
             * 2; clearing the fixed bits leaves only the payload where the
             * shape is right, and Table 3-7 asks the code point to be 800 or
             * more (not E0 80..9F) and not a surrogate (not ED A0..BF). */
            __m256i characters = _mm256_loadu2_m128i((const __m128i *)(src + i + 12),
                                                     (const __m128i *)(src + i));
            const __m256i gather = _mm256_setr_epi8(2, 1, 0, -128, 5, 4, 3, -128, 8, 7, 6, -128, 11, 10, 9, -128,
                                                    2, 1, 0, -128, 5, 4, 3, -128, 8, 7, 6, -128, 11, 10, 9, -128);
            __m256i lane = _mm256_xor_si256(_mm256_shuffle_epi8(characters, gather),
                                            _mm256_set1_epi32(0x00E08080));
            __m256i code_point = _mm256_or_si256(
                _mm256_or_si256(_mm256_and_si256(lane, _mm256_set1_epi32(0x3F)),
                                _mm256_and_si256(_mm256_srli_epi32(lane, 2), _mm256_set1_epi32(0xFC0))),
                _mm256_and_si256(_mm256_srli_epi32(lane, 4), _mm256_set1_epi32(0xF000)));
            __m256i shaped = _mm256_cmpeq_epi32(_mm256_and_si256(lane, _mm256_set1_epi32(0x00F0C0C0)),
                                                _mm256_setzero_si256());
            __m256i out_of_range = _mm256_or_si256(
                _mm256_cmpgt_epi32(_mm256_set1_epi32(0x800), code_point),
                _mm256_cmpeq_epi32(_mm256_and_si256(code_point, _mm256_set1_epi32(0xF800)),
                                   _mm256_set1_epi32(0xD800)));
            if (_mm256_movemask_epi8(_mm256_andnot_si256(out_of_range, shaped)) == -1) {
                if (utf16) {
                    __m128i units = _mm256_castsi256_si128(
                        _mm256_permute4x64_epi64(_mm256_packus_epi32(code_point, code_point), 0x08));
                    if (big_endian)
                        units = _mm_shuffle_epi8(units, _mm_setr_epi8(1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14));
                    byte_writer_put(&writer, units, 16);
                } else {
                    if (big_endian)
                        code_point = swap_32(code_point);
                    _mm256_storeu_si256((__m256i *)out, code_point);
                    out += 32;
                }
                i += 24;
                continue;
            }
        }
        if (continuation == FOUR_BYTE_RUN) {
            /* Eight characters of 4 bytes, one per 32-bit lane, lead byte
             * first (Table 3-6: 11110uuu 10uuzzzz 10yyyyyy 10xxxxxx), as
             * emoji come: clearing the fixed bits leaves only the payload
             * where the shape is right, and Table 3-7 (F0: 90..BF first,
             * F4: 80..8F first, no F5..F7) asks the code point to be
             * 10000..10FFFF. */
            __m256i lane = _mm256_xor_si256(block, _mm256_set1_epi32((int)0x808080F0));
            __m256i code_point = _mm256_or_si256(
                _mm256_or_si256(_mm256_slli_epi32(_mm256_and_si256(lane, _mm256_set1_epi32(0x07)), 18),
                                _mm256_slli_epi32(_mm256_and_si256(lane, _mm256_set1_epi32(0x3F00)), 4)),
                _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi32(lane, 10), _mm256_set1_epi32(0xFC0)),
                                _mm256_srli_epi32(lane, 24)));
            __m256i shaped = _mm256_cmpeq_epi32(_mm256_and_si256(lane, _mm256_set1_epi32((int)0xC0C0C0F8)),
                                                _mm256_setzero_si256());
            __m256i out_of_range = _mm256_or_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32(0x10000), code_point),
                                                   _mm256_cmpgt_epi32(code_point, _mm256_set1_epi32(0x10FFFF)));
            if (_mm256_movemask_epi8(_mm256_andnot_si256(out_of_range, shaped)) == -1) {
                if (utf16) {
                    /* Table 3-5: lead surrogate in each lane's low half, trail in its high half */
                    __m256i offset = _mm256_sub_epi32(code_point, _mm256_set1_epi32(0x10000));
                    __m256i pairs = _mm256_or_si256(
                        _mm256_or_si256(_mm256_srli_epi32(offset, 10),
                                        _mm256_slli_epi32(_mm256_and_si256(offset, _mm256_set1_epi32(0x3FF)), 16)),
                        _mm256_set1_epi32((int)0xDC00D800));
                    out = byte_writer_before_wide_store(&writer);
                    _mm256_storeu_si256((__m256i *)out, big_endian ? swap_16(pairs) : pairs);
                    writer.out = out + 32;
                } else {
                    _mm256_storeu_si256((__m256i *)out, big_endian ? swap_32(code_point) : code_point);
                    out += 32;
                }
                i += 32;
                continue;
            }
        }
        if (byte_mask(at_least(block, 0xF0)) == 0) {
            /* characters of one, two and three bytes: a run of such
             * blocks, if this one is well-formed */
            uint8_t *at = utf16 ? byte_writer_before_wide_store(&writer) : out;
            run_end run = (utf16 ? (big_endian ? mixed_run_utf16be : mixed_run_utf16le)
                                 : (big_endian ? mixed_run_utf32be : mixed_run_utf32le))(src + i, len - i, at);
            if (run.consumed != 0) {
                i += run.consumed;
                if (utf16)
                    writer.out = run.out;
                else
                    out = run.out;
                continue;
            }
        }
        uint32_t leads = ~continuation;
        size_t consumed = LAST_LEAD + 1 + (size_t)__builtin_ctz((leads >> (LAST_LEAD + 1)) | 8);
        uint32_t taken = leads & ((2u << LAST_LEAD) - 1);
        uint32_t in_block = consumed >= 32 ? ~0u : (1u << consumed) - 1;
        /* Table 3-7: C0..DF lead one continuation byte, E0..EF two, F0..F4
         * three; then the rows with a narrower second byte. */
        uint32_t two = byte_mask(at_least(block, 0xC0)) & taken;
        uint32_t three = byte_mask(at_least(block, 0xE0)) & taken;
        uint32_t four = byte_mask(at_least(block, 0xF0)) & taken;
        if ((two << 1 | three << 2 | four << 3) != (continuation & in_block))
            break;
        __m256i second = byte_after(block);
        __m256i narrow = _mm256_or_si256(
            _mm256_or_si256(
                _mm256_and_si256(_mm256_cmpeq_epi8(block, _mm256_set1_epi8((char)0xE0)), at_most(second, 0x9F)),
                _mm256_and_si256(_mm256_cmpeq_epi8(block, _mm256_set1_epi8((char)0xED)), at_least(second, 0xA0))),
            _mm256_or_si256(
                _mm256_and_si256(_mm256_cmpeq_epi8(block, _mm256_set1_epi8((char)0xF0)), at_most(second, 0x8F)),
                _mm256_and_si256(_mm256_cmpeq_epi8(block, _mm256_set1_epi8((char)0xF4)), at_least(second, 0x90))));
        /* C0, C1 and F5..FF begin no row */
        __m256i no_row = _mm256_or_si256(
            _mm256_cmpeq_epi8(_mm256_and_si256(block, _mm256_set1_epi8((char)0xFE)), _mm256_set1_epi8((char)0xC0)),
            at_least(block, 0xF5));
        if ((byte_mask(narrow) & taken) != 0 || byte_mask(no_row) != 0)
            break;
        i += consumed;
        /* At each character's last byte: low byte yyxxxxxx, high byte
         * zzzzyyyy and, for 4-byte characters, top byte 000uuuuu (16-bit
         * shifts; the bits they carry across bytes are masked off). */
        __m256i continued = _mm256_and_si256(is_continuation, byte_before(is_continuation));
        __m256i before = _mm256_and_si256(byte_before(block), is_continuation);
        __m256i two_before = _mm256_and_si256(byte_two_before(block), continued);
        __m256i low = _mm256_or_si256(
            _mm256_and_si256(block, _mm256_set1_epi8(0x7F)),
            _mm256_and_si256(_mm256_slli_epi16(before, 6), _mm256_set1_epi8((char)0xC0)));
        __m256i high = _mm256_or_si256(
            _mm256_and_si256(_mm256_srli_epi16(before, 2), _mm256_set1_epi8(0x0F)),
            _mm256_and_si256(_mm256_slli_epi16(two_before, 4), _mm256_set1_epi8((char)0xF0)));
        uint32_t last = ~(continuation >> 1) & in_block;
        __m256i top = _mm256_setzero_si256();
        if (four != 0) {
            /* the last bytes of 4-byte characters: three continuation bytes in a row */
            __m256i fourth = _mm256_and_si256(continued, byte_two_before(is_continuation));
            top = _mm256_and_si256(
                fourth, _mm256_or_si256(
                            _mm256_and_si256(_mm256_srli_epi16(two_before, 4), _mm256_set1_epi8(0x03)),
                            _mm256_and_si256(_mm256_slli_epi16(byte_three_before(block), 2),
                                             _mm256_set1_epi8(0x1C))));
            if (utf16) {
                /* Table 3-5: the trail surrogate 110111xx xxxxxxxx at the last
                 * byte, the lead 110110ww wwxxxxxx (wwww = uuuuu - 1) at the
                 * byte before it, from the top and high bytes after it. */
                __m256i top_after = _mm256_sub_epi8(byte_after(top), _mm256_set1_epi8(1));
                __m256i high_after = byte_after(high);
                __m256i lead_low = _mm256_or_si256(
                    _mm256_and_si256(_mm256_slli_epi16(top_after, 6), _mm256_set1_epi8((char)0xC0)),
                    _mm256_and_si256(_mm256_srli_epi16(high_after, 2), _mm256_set1_epi8(0x3F)));
                __m256i lead_high = _mm256_or_si256(
                    _mm256_and_si256(_mm256_srli_epi16(top_after, 2), _mm256_set1_epi8(0x03)),
                    _mm256_set1_epi8((char)0xD8));
                __m256i trail_high = _mm256_or_si256(_mm256_and_si256(high, _mm256_set1_epi8(0x03)),
                                                     _mm256_set1_epi8((char)0xDC));
                __m256i third = byte_after(fourth);
                high = _mm256_blendv_epi8(_mm256_blendv_epi8(high, trail_high, fourth), lead_high, third);
                low = _mm256_blendv_epi8(low, lead_low, third);
                last |= byte_mask(third) & in_block;
            }
        }
        if (utf16 || four == 0) {
            int swap = utf16 && big_endian;
            __m256i first_halves = swap ? _mm256_unpacklo_epi8(high, low) : _mm256_unpacklo_epi8(low, high);
            __m256i second_halves = swap ? _mm256_unpackhi_epi8(high, low) : _mm256_unpackhi_epi8(low, high);
            put_units(&writer, &out, _mm256_castsi256_si128(first_halves), last & 0xFF, big_endian, utf16);
            put_units(&writer, &out, _mm256_castsi256_si128(second_halves), last >> 8 & 0xFF, big_endian, utf16);
            put_units(&writer, &out, _mm256_extracti128_si256(first_halves, 1), last >> 16 & 0xFF, big_endian, utf16);
            put_units(&writer, &out, _mm256_extracti128_si256(second_halves, 1), last >> 24, big_endian, utf16);
        } else {
            __m256i first_halves = _mm256_unpacklo_epi8(low, high);
            __m256i second_halves = _mm256_unpackhi_epi8(low, high);
            __m256i first_tops = _mm256_unpacklo_epi8(top, _mm256_setzero_si256());
            __m256i second_tops = _mm256_unpackhi_epi8(top, _mm256_setzero_si256());
            out = put_wide_units(out, _mm256_castsi256_si128(first_halves), _mm256_castsi256_si128(first_tops),
                                 last & 0xFF, big_endian);
            out = put_wide_units(out, _mm256_castsi256_si128(second_halves), _mm256_castsi256_si128(second_tops),
                                 last >> 8 & 0xFF, big_endian);
            out = put_wide_units(out, _mm256_extracti128_si256(first_halves, 1),
                                 _mm256_extracti128_si256(first_tops, 1), last >> 16 & 0xFF, big_endian);
            out = put_wide_units(out, _mm256_extracti128_si256(second_halves, 1),
                                 _mm256_extracti128_si256(second_tops, 1), last >> 24, big_endian);
        }
    }
    if (utf16)
        out = byte_writer_finish(&writer);
    *written = (size_t)(out - dst);
    return i;
}

size_t utfkit_utf8_to_utf16_avx2(const uint8_t *src, size_t len, int big_endian, uint8_t *dst,
                                 size_t *written)
{
    return big_endian ? utf8_to_units(src, len, 1, dst, written, 1)
                      : utf8_to_units(src, len, 0, dst, written, 1);
}

size_t utfkit_utf8_to_utf32_avx2(const uint8_t *src, size_t len, int big_endian, uint8_t *dst,
                                 size_t *written)
{
    return big_endian ? utf8_to_units(src, len, 1, dst, written, 0)
                      : utf8_to_units(src, len, 0, dst, written, 0);
}

/* ---- scalar values -> UTF-8 ----
 *
 * Variable-length output is stored 16 bytes at a time at the end of what
 * is written so far, which then moves on by the bytes that count; the
 * next store overwrites the rest.  kernels.h gives room for the worst case
 * of the whole input (Table 3-6: 3 bytes per UTF-16 unit, 4 per UTF-32
 * unit), so a step may store past its own output as long as it stays
 * within the worst case of the input not yet consumed (each step says
 * how far it reaches). */

static inline uint8_t *put_bytes(uint8_t *out, __m128i bytes, unsigned count)
{
    _mm_storeu_si128((__m128i *)out, bytes);
    return out + count;
}

/* Four 32-bit lanes holding one character's UTF-8 each, lead byte first,
 * where `code` has each lane's length - 1 in two bits (lane 0 lowest):
 * writes the characters' bytes in turn (16-byte store). */
static inline uint8_t *put_lane_prefixes(uint8_t *out, __m128i lanes, unsigned code)
{
    lanes = _mm_shuffle_epi8(lanes, _mm_load_si128((const __m128i *)utfkit_lane_prefixes[code]));
    return put_bytes(out, lanes, utfkit_lane_prefixes_length[code]);
}

/* The four bytes 11110uuu 10uuzzzz 10yyyyyy 10xxxxxx (Table 3-6) of eight
 * supplementary code points, lead byte first in each 32-bit lane. */
static inline __m256i four_byte_lanes(__m256i code_point)
{
    const __m256i six_bits = _mm256_set1_epi32(0x3F);
    __m256i lead_and_second = _mm256_or_si256(
        _mm256_srli_epi32(code_point, 18),
        _mm256_slli_epi32(_mm256_and_si256(_mm256_srli_epi32(code_point, 12), six_bits), 8));
    __m256i third_and_last = _mm256_or_si256(
        _mm256_slli_epi32(_mm256_and_si256(_mm256_srli_epi32(code_point, 6), six_bits), 16),
        _mm256_slli_epi32(_mm256_and_si256(code_point, six_bits), 24));
    return _mm256_or_si256(_mm256_or_si256(lead_and_second, third_and_last),
                           _mm256_set1_epi32((int)0x808080F0));
}

/* Encodes the `lanes` first scalar values of eight 32-bit lanes (Table
 * 3-6), lead byte first in memory, and writes their bytes in turn: two
 * 16-byte stores, the second at most 16 bytes on, so they reach 32 bytes
 * past out (the worst case of 8 UTF-32 units).  `supplementary` says
 * whether any may be above FFFF. */
static inline uint8_t *put_utf8(uint8_t *out, __m256i code_point, unsigned lanes, int supplementary)
{
    unsigned longest = 0;
    __m256i four_bytes = _mm256_setzero_si256();
    if (supplementary) {
        four_bytes = _mm256_cmpgt_epi32(code_point, _mm256_set1_epi32(0xFFFF));
        longest = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(four_bytes));
    }
    const __m256i six_bits = _mm256_set1_epi32(0x3F);
    __m256i two_or_more = _mm256_cmpgt_epi32(code_point, _mm256_set1_epi32(0x7F));
    __m256i three_or_more = _mm256_cmpgt_epi32(code_point, _mm256_set1_epi32(0x7FF));
    __m256i last = _mm256_and_si256(code_point, six_bits);                          /* xxxxxx */
    __m256i middle = _mm256_and_si256(_mm256_srli_epi32(code_point, 6), six_bits);  /* yyyyyy */
    /* 110yyyyy 10xxxxxx */
    __m256i two = _mm256_or_si256(
        _mm256_or_si256(_mm256_srli_epi32(code_point, 6), _mm256_slli_epi32(last, 8)),
        _mm256_set1_epi32(0x80C0));
    /* 1110zzzz 10yyyyyy 10xxxxxx */
    __m256i three = _mm256_or_si256(
        _mm256_or_si256(_mm256_srli_epi32(code_point, 12), _mm256_slli_epi32(middle, 8)),
        _mm256_or_si256(_mm256_slli_epi32(last, 16), _mm256_set1_epi32(0x8080E0)));
    __m256i bytes = _mm256_blendv_epi8(code_point, two, two_or_more);
    bytes = _mm256_blendv_epi8(bytes, three, three_or_more);
    unsigned longer = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(two_or_more));
    unsigned longer_still = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(three_or_more));
    /* per lane, length - 1 in two bits */
    unsigned length_code = _pdep_u32(longer, 0x5555) + _pdep_u32(longer_still, 0x5555);
    if (longest) {
        bytes = _mm256_blendv_epi8(bytes, four_byte_lanes(code_point), four_bytes);
        length_code += _pdep_u32(longest, 0x5555);
    }
    for (unsigned half = 0; half < 2 && 4 * half < lanes; half++) {
        __m128i quarter = half ? _mm256_extracti128_si256(bytes, 1) : _mm256_castsi256_si128(bytes);
        unsigned code = length_code >> (8 * half) & 0xFF;
        unsigned in_half = lanes - 4 * half < 4 ? lanes - 4 * half : 4;
        /* lanes past `in_half` count as one byte each in the table's length */
        code &= (1u << (2 * in_half)) - 1;
        unsigned count = utfkit_lane_prefixes_length[code] - (4 - in_half);
        quarter = _mm_shuffle_epi8(quarter, _mm_load_si128((const __m128i *)utfkit_lane_prefixes[code]));
        out = put_bytes(out, quarter, count);
    }
    return out;
}

/* Writes the low bytes of sixteen 16-bit units below 80 (one 16-byte store). */
static inline uint8_t *put_ascii_units(uint8_t *out, __m256i units)
{
    __m256i packed = _mm256_packus_epi16(units, units);
    packed = _mm256_permute4x64_epi64(packed, 0x08); /* lanes 0 and 2 to the front */
    return put_bytes(out, _mm256_castsi256_si128(packed), 16);
}

/* Writes sixteen 16-bit units below 0800 as UTF-8 (Table 3-6: 0xxxxxxx,
 * or 110yyyyy 10xxxxxx), each unit's bytes lead first in its lane, gathered
 * eight lanes per PSHUFB (utfkit_two_byte_prefixes): two 16-byte stores,
 * reaching 32 bytes past out. */
static inline uint8_t *put_utf8_below_800(uint8_t *out, __m256i units)
{
    __m256i is_ascii = _mm256_cmpeq_epi16(_mm256_and_si256(units, _mm256_set1_epi16((short)0xFF80)),
                                          _mm256_setzero_si256());
    __m256i two = _mm256_or_si256(
        _mm256_or_si256(_mm256_srli_epi16(units, 6),
                        _mm256_slli_epi16(_mm256_and_si256(units, _mm256_set1_epi16(0x3F)), 8)),
        _mm256_set1_epi16((short)0x80C0));
    __m256i bytes = _mm256_blendv_epi8(two, units, is_ascii);
    uint32_t longer = _pext_u32(~byte_mask(is_ascii), 0x55555555);
    unsigned first = longer & 0xFF, second = longer >> 8;
    out = put_bytes(out,
                    _mm_shuffle_epi8(_mm256_castsi256_si128(bytes),
                                     _mm_load_si128((const __m128i *)utfkit_two_byte_prefixes[first])),
                    8 + (unsigned)__builtin_popcount(first));
    return put_bytes(out,
                     _mm_shuffle_epi8(_mm256_extracti128_si256(bytes, 1),
                                      _mm_load_si128((const __m128i *)utfkit_two_byte_prefixes[second])),
                     8 + (unsigned)__builtin_popcount(second));
}

/* Writes sixteen 16-bit units of the BMP that are not surrogates as UTF-8
 * (Table 3-6: 0xxxxxxx; 110yyyyy 10xxxxxx; 1110zzzz 10yyyyyy 10xxxxxx).
 * Each unit's first two bytes are built in its own 16-bit lane and its
 * third (10xxxxxx, kept only for three) in a second vector; interleaving
 * the two gives each unit a 32-bit lane with its bytes lead first, and
 * PSHUFB gathers four lanes at a time (utfkit_lane_prefixes).  Four
 * 16-byte stores, each at most 12 bytes after the one before: they reach
 * 52 bytes past out, for at most 48 bytes of output. */
static inline uint8_t *put_utf8_bmp(uint8_t *out, __m256i units)
{
    const __m256i zero = _mm256_setzero_si256(), six_bits_high = _mm256_set1_epi16(0x3F00);
    __m256i one_byte = _mm256_cmpeq_epi16(_mm256_and_si256(units, _mm256_set1_epi16((short)0xFF80)), zero);
    __m256i two_at_most = _mm256_cmpeq_epi16(_mm256_and_si256(units, _mm256_set1_epi16((short)0xF800)), zero);
    /* 110yyyyy, then 10xxxxxx */
    __m256i two = _mm256_or_si256(
        _mm256_or_si256(_mm256_srli_epi16(units, 6), _mm256_and_si256(_mm256_slli_epi16(units, 8), six_bits_high)),
        _mm256_set1_epi16((short)0x80C0));
    /* 1110zzzz, then 10yyyyyy (bits 6..11 moved to 8..13) */
    __m256i three = _mm256_or_si256(
        _mm256_or_si256(_mm256_srli_epi16(units, 12), _mm256_and_si256(_mm256_slli_epi16(units, 2), six_bits_high)),
        _mm256_set1_epi16((short)0x80E0));
    __m256i third = _mm256_or_si256(_mm256_and_si256(units, _mm256_set1_epi16(0x3F)), _mm256_set1_epi16(0x80));
    __m256i first_two = _mm256_blendv_epi8(_mm256_blendv_epi8(three, two, two_at_most), units, one_byte);
    /* VPUNPCK*WD work per 128-bit half: units 0..3 and 8..11, 4..7 and 12..15 */
    __m256i lanes_low = _mm256_unpacklo_epi16(first_two, third);
    __m256i lanes_high = _mm256_unpackhi_epi16(first_two, third);
    uint32_t single = byte_mask(one_byte), narrow = byte_mask(two_at_most);
    /* per unit (two bits of each mask), length - 1: 0, 1 or 2 */
    uint32_t code = (~single & narrow & 0x55555555u) | (~narrow & 0xAAAAAAAAu);
    if (code == 0xAAAAAAAAu) { /* sixteen characters of 3 bytes (the CJK scripts) */
        const __m256i first_three = _mm256_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -128, -128, -128, -128,
                                                     0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -128, -128, -128, -128);
        lanes_low = _mm256_shuffle_epi8(lanes_low, first_three);
        lanes_high = _mm256_shuffle_epi8(lanes_high, first_three);
        out = put_bytes(out, _mm256_castsi256_si128(lanes_low), 12);
        out = put_bytes(out, _mm256_castsi256_si128(lanes_high), 12);
        out = put_bytes(out, _mm256_extracti128_si256(lanes_low, 1), 12);
        return put_bytes(out, _mm256_extracti128_si256(lanes_high, 1), 12);
    }
    out = put_lane_prefixes(out, _mm256_castsi256_si128(lanes_low), code & 0xFF);
    out = put_lane_prefixes(out, _mm256_castsi256_si128(lanes_high), code >> 8 & 0xFF);
    out = put_lane_prefixes(out, _mm256_extracti128_si256(lanes_low, 1), code >> 16 & 0xFF);
    return put_lane_prefixes(out, _mm256_extracti128_si256(lanes_high, 1), code >> 24);
}

/* ---- UTF-16 with surrogate pairs (D91, Table 3-5) ----
 *
 * Sixteen units at a time: a lead surrogate D800..DBFF must be followed by
 * a trail surrogate DC00..DFFF and a trail must follow a lead, so with
 * VPMOVMSKB's two bits per unit the trail mask equals the lead mask moved
 * one unit on.  The pair's code point 10000 + (lead - D800) * 400 +
 * (trail - DC00) goes to the lead's lane: its low 16 bits are the lead's
 * low 6 bits then the trail's low 10 (the lead shifted left by 10, in a
 * 16-bit lane), its bits 16..20 the lead's bits 6..9 plus 1.  The trail's
 * lane is then dropped. */
typedef struct utf16_pairs {
    __m256i low, top;  /* per unit: the code point's bits 0..15 and 16..20 */
    uint32_t kept;     /* one bit per unit (of the first `taken`) that is not a trail */
    unsigned taken;    /* units that are whole characters, from the first */
    int stop;          /* an ill-formed unit follows the taken ones */
} utf16_pairs;

static inline utf16_pairs utf16_read_pairs(__m256i units)
{
    utf16_pairs pairs;
    __m256i high_6 = _mm256_and_si256(units, _mm256_set1_epi16((short)0xFC00));
    __m256i is_lead = _mm256_cmpeq_epi16(high_6, _mm256_set1_epi16((short)0xD800));
    uint32_t leads = byte_mask(is_lead);
    uint32_t trails = byte_mask(_mm256_cmpeq_epi16(high_6, _mm256_set1_epi16((short)0xDC00)));
    uint32_t misplaced = trails ^ (leads << 2);
    pairs.taken = 16;
    pairs.stop = misplaced != 0;
    if (misplaced != 0) {
        /* the first unit out of place: a trail after no lead, or the unit
         * after a lead that is not a trail (the lead is then not taken) */
        unsigned first = (unsigned)__builtin_ctz(misplaced) / 2;
        pairs.taken = first - (first > 0 && (leads >> (2 * first - 2) & 1));
    } else if (leads >> 31) {
        pairs.taken = 15; /* a lead last: its trail is in the next step */
    }
    uint32_t in_taken = pairs.taken == 16 ? ~0u : (1u << (2 * pairs.taken)) - 1;
    pairs.kept = _pext_u32(~trails & in_taken, 0x55555555);
    __m256i next = _mm256_alignr_epi8(_mm256_permute2x128_si256(units, units, 0x81), units, 2);
    pairs.low = _mm256_blendv_epi8(
        units,
        _mm256_or_si256(_mm256_slli_epi16(units, 10), _mm256_and_si256(next, _mm256_set1_epi16(0x3FF))),
        is_lead);
    pairs.top = _mm256_and_si256(
        is_lead, _mm256_add_epi16(_mm256_and_si256(_mm256_srli_epi16(units, 6), _mm256_set1_epi16(0xF)),
                                  _mm256_set1_epi16(1)));
    return pairs;
}


/* Eight surrogate pairs, each a lead in a 32-bit lane's low half and its
 * trail in the high half: their code points, 10000 + (lead - D800) * 400 +
 * (trail - DC00) (Table 3-5). */
static inline __m256i paired_code_points(__m256i pairs)
{
    const __m256i ten_bits = _mm256_set1_epi32(0x3FF);
    __m256i lead = _mm256_slli_epi32(_mm256_and_si256(pairs, ten_bits), 10);
    __m256i trail = _mm256_and_si256(_mm256_srli_epi32(pairs, 16), ten_bits);
    return _mm256_add_epi32(_mm256_or_si256(lead, trail), _mm256_set1_epi32(0x10000));
}

/* ---- CESU-8 and MUTF-8 ----
 *
 * Their text without surrogates is UTF-8 with no 4-byte sequence, and for
 * MUTF-8 no byte 00 (UTR #26 section 2; JVM spec section 4.4.7: U+0000 is
 * C0 80 there), so the UTF-16/UTF-32 -> UTF-8 blocks below write it as
 * well when they also stop at every surrogate and supplementary unit (and
 * 0000): `bmp_only` and `nul_stops`, constants in each caller, add those
 * stops to the tests each step makes anyway. */

/* Defines the block `name` (kernels.h) as `body` (utf16_to_utf8 or
 * utf32_to_utf8) with the stops of its form, instantiated for each byte
 * order (a constant `big_endian` takes its branches out of the loops). */
#define TO_UTF8_BLOCK(name, body, bmp_only, nul_stops)                                            \
    size_t name(const uint8_t *src, size_t len, int big_endian, uint8_t *dst, size_t *written)    \
    {                                                                                              \
        return big_endian ? body(src, len, 1, dst, written, bmp_only, nul_stops)                   \
                          : body(src, len, 0, dst, written, bmp_only, nul_stops);                  \
    }

/* FFFF in each 16-bit lane holding 0000. */
static inline __m256i nul_units(__m256i units)
{
    return _mm256_cmpeq_epi16(units, _mm256_setzero_si256());
}

/* Each 16-bit unit minus 1, 0000 becoming FFFF, in the byte order
 * `big_endian`.  ORed into what a step tests for units at or above a power
 * of two, it makes 0000 fail the test too, and changes nothing for the
 * other units (u - 1 < u). */
static inline __m256i nul_as_high(__m256i units, int big_endian)
{
    if (big_endian)
        return _mm256_add_epi16(units, _mm256_set1_epi16((short)0xFF00)); /* 1 in the low byte of the lane */
    return _mm256_add_epi16(units, _mm256_set1_epi16(-1));
}

/* Of sixteen units at src (in the byte order `big_endian`), writes as
 * UTF-8 those before the first surrogate (or, with nul_stops, 0000) and
 * moves *i past them: at most 48 bytes, stored up to 52 bytes past out
 * (put_utf8 twice, eight units each, 28 bytes past its out at most). */
static inline uint8_t *put_bmp_prefix(uint8_t *out, const uint8_t *src, int big_endian, int nul_stops, size_t *i)
{
    __m256i units = _mm256_loadu_si256((const __m256i *)src);
    if (big_endian)
        units = swap_16(units);
    __m256i stops = _mm256_cmpeq_epi16(_mm256_and_si256(units, _mm256_set1_epi16((short)0xF800)),
                                       _mm256_set1_epi16((short)0xD800));
    if (nul_stops)
        stops = _mm256_or_si256(stops, nul_units(units));
    uint32_t stop = byte_mask(stops); /* two bits per unit */
    unsigned taken = stop != 0 ? (unsigned)__builtin_ctz(stop) / 2 : 16;
    if (taken > 0)
        out = put_utf8(out, _mm256_cvtepu16_epi32(_mm256_castsi256_si128(units)), taken < 8 ? taken : 8, 0);
    if (taken > 8)
        out = put_utf8(out, _mm256_cvtepu16_epi32(_mm256_extracti128_si256(units, 1)), taken - 8, 0);
    *i += 2 * taken;
    return out;
}

/* Sixteen units are read per step, and their output (48 bytes at most)
 * may be stored up to 52 bytes on (put_utf8_bmp): a step starts only with
 * 36 bytes of input left, whose worst case, 54 bytes, covers that. */
#define UTF16_STEP_INPUT 36

/* (Always inlined: each caller's constant `big_endian` then takes its
 * branches out of the loops.) */
static inline __attribute__((always_inline)) size_t utf16_to_utf8(const uint8_t *src, size_t len, int big_endian,
                                                        uint8_t *dst, size_t *written, int bmp_only,
                                                        int nul_stops)
{
    size_t i = 0;
    uint8_t *out = dst;
    int ascii_run = 1; /* the last step's units were all below 80 */
    while (len - i >= UTF16_STEP_INPUT) {
        /* 32 ASCII units at a time, narrowed to bytes (PACKUSWB) */
        while (ascii_run && len - i >= 64) {
            __m256i a = _mm256_loadu_si256((const __m256i *)(src + i));
            __m256i b = _mm256_loadu_si256((const __m256i *)(src + i + 32));
            __m256i either = _mm256_or_si256(a, b);
            if (nul_stops) /* 0000 as FFFF (nul_as_high) */
                either = _mm256_or_si256(either, nul_as_high(_mm256_min_epu16(a, b), big_endian));
            if (!_mm256_testz_si256(either, _mm256_set1_epi16(big_endian ? (short)0x80FF : (short)0xFF80)))
                break;
            if (big_endian) {
                a = _mm256_srli_epi16(a, 8);
                b = _mm256_srli_epi16(b, 8);
            }
            _mm256_storeu_si256((__m256i *)out, _mm256_permute4x64_epi64(_mm256_packus_epi16(a, b), 0xD8));
            out += 32;
            i += 64;
        }
        ascii_run = 0;
        /* Sixteen units of the BMP that are not surrogates at a time; the
         * ones with surrogates go to the step below. */
        while (len - i >= UTF16_STEP_INPUT) {
            __m256i units = _mm256_loadu_si256((const __m256i *)(src + i));
            if (big_endian)
                units = swap_16(units);
            __m256i tested = nul_stops ? _mm256_or_si256(units, nul_as_high(units, 0)) : units;
            if (!_mm256_testz_si256(tested, _mm256_set1_epi16((short)0xF800))) {
                __m256i is_surrogate = _mm256_cmpeq_epi16(
                    _mm256_and_si256(units, _mm256_set1_epi16((short)0xF800)), _mm256_set1_epi16((short)0xD800));
                if (nul_stops)
                    is_surrogate = _mm256_or_si256(is_surrogate, nul_units(units));
                if (!_mm256_testz_si256(is_surrogate, is_surrogate))
                    break;
                out = put_utf8_bmp(out, units);
            } else if (_mm256_testz_si256(units, _mm256_set1_epi16((short)0xFF80))) {
                out = put_ascii_units(out, units);
                i += 32;
                ascii_run = 1;
                break; /* to the loop above */
            } else {
                out = put_utf8_below_800(out, units);
            }
            i += 32;
        }
        if (ascii_run || len - i < UTF16_STEP_INPUT)
            continue;
        if (bmp_only) {
            out = put_bmp_prefix(out, src + i, big_endian, nul_stops, &i);
            break;
        }
        /* Eight surrogate pairs at a time (lead, trail, lead, ...: a lead
         * in the low half of each 32-bit lane, its trail in the high half),
         * eight characters of 4 bytes each */
        while (len - i >= UTF16_STEP_INPUT) {
            __m256i pairs = _mm256_loadu_si256((const __m256i *)(src + i));
            if (big_endian)
                pairs = swap_16(pairs);
            __m256i paired = _mm256_cmpeq_epi32(_mm256_and_si256(pairs, _mm256_set1_epi32((int)0xFC00FC00)),
                                                _mm256_set1_epi32((int)0xDC00D800));
            if (_mm256_movemask_epi8(paired) != -1)
                break;
            _mm256_storeu_si256((__m256i *)out, four_byte_lanes(paired_code_points(pairs)));
            out += 32;
            i += 32;
        }
        if (len - i < UTF16_STEP_INPUT)
            break;
        /* D800..DFFF: surrogates, paired here up to the first one out of
         * place, which the scalar reader reports or replaces. */
        __m256i units = _mm256_loadu_si256((const __m256i *)(src + i));
        if (big_endian)
            units = swap_16(units);
        utf16_pairs pairs = utf16_read_pairs(units);
        if (pairs.taken == 0)
            break;
        unsigned first = pairs.kept & 0xFF, second = pairs.kept >> 8;
        out = put_utf8(out,
                       kept_code_points(_mm256_castsi256_si128(pairs.low), _mm256_castsi256_si128(pairs.top), first),
                       (unsigned)__builtin_popcount(first), 1);
        if (second != 0)
            out = put_utf8(out,
                           kept_code_points(_mm256_extracti128_si256(pairs.low, 1),
                                            _mm256_extracti128_si256(pairs.top, 1), second),
                           (unsigned)__builtin_popcount(second), 1);
        i += 2 * pairs.taken;
        if (pairs.stop)
            break;
    }
    *written = (size_t)(out - dst);
    return i;
}

TO_UTF8_BLOCK(utfkit_utf16_to_utf8_avx2, utf16_to_utf8, 0, 0)
TO_UTF8_BLOCK(utfkit_utf16_to_cesu8_avx2, utf16_to_utf8, 1, 0)
TO_UTF8_BLOCK(utfkit_utf16_to_mutf8_avx2, utf16_to_utf8, 1, 1)

/* (Always inlined: each caller's constant `big_endian` then takes its
 * branches out of the loops.) */
static inline __attribute__((always_inline)) size_t utf32_to_utf8(const uint8_t *src, size_t len, int big_endian,
                                                        uint8_t *dst, size_t *written, int bmp_only,
                                                        int nul_stops)
{
    /* Every step stores at most as far as the worst case of what it reads
     * (4 bytes per unit, Table 3-6): 32 bytes for 8 units, 52 for 16. */
    size_t i = 0;
    uint8_t *out = dst;
    int ascii_run = 1; /* the last step's units were all below 80 */
    while (len - i >= 32) {
        /* 32 ASCII units at a time, narrowed to bytes */
        while (ascii_run && len - i >= 128) {
            __m256i a = _mm256_loadu_si256((const __m256i *)(src + i));
            __m256i b = _mm256_loadu_si256((const __m256i *)(src + i + 32));
            __m256i c = _mm256_loadu_si256((const __m256i *)(src + i + 64));
            __m256i d = _mm256_loadu_si256((const __m256i *)(src + i + 96));
            __m256i any = _mm256_or_si256(_mm256_or_si256(a, b), _mm256_or_si256(c, d));
            if (!_mm256_testz_si256(any, _mm256_set1_epi32(big_endian ? (int)0x80FFFFFF : (int)0xFFFFFF80)))
                break;
            if (big_endian) {
                a = _mm256_srli_epi32(a, 24);
                b = _mm256_srli_epi32(b, 24);
                c = _mm256_srli_epi32(c, 24);
                d = _mm256_srli_epi32(d, 24);
            }
            /* PACKUSDW and PACKUSWB work per 128-bit half: four units of
             * each source per 32-bit lane, put back in order */
            __m256i bytes = _mm256_packus_epi16(_mm256_packus_epi32(a, b), _mm256_packus_epi32(c, d));
            /* 0000, now a byte 00: its mask is tested in a general register
             * (VPMOVMSKB), for VPTEST takes the shuffle port that the packing
             * above keeps busy */
            if (nul_stops && _mm256_movemask_epi8(_mm256_cmpeq_epi8(bytes, _mm256_setzero_si256())) != 0)
                break;
            bytes = _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
            _mm256_storeu_si256((__m256i *)out, bytes);
            out += 32;
            i += 128;
        }
        ascii_run = 0;
        /* Sixteen units of the BMP that are not surrogates at a time,
         * narrowed to 16 bits (PACKUSDW saturates, so the test for units
         * above FFFF is on the 32-bit units). */
        while (len - i >= 64) {
            __m256i a = _mm256_loadu_si256((const __m256i *)(src + i));
            __m256i b = _mm256_loadu_si256((const __m256i *)(src + i + 32));
            if (big_endian) {
                a = swap_32(a);
                b = swap_32(b);
            }
            if (!_mm256_testz_si256(_mm256_or_si256(a, b), _mm256_set1_epi32((int)0xFFFF0000)))
                break;
            __m256i units = _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xD8);
            /* 0000 is tested apart, in a general register (VPMOVMSKB), so
             * that the tests below, whose branches follow the text, do not
             * wait for it as they would if it were folded into them */
            if (nul_stops && _mm256_movemask_epi8(nul_units(units)) != 0)
                break;
            if (!_mm256_testz_si256(units, _mm256_set1_epi16((short)0xF800))) {
                __m256i is_surrogate = _mm256_cmpeq_epi16(
                    _mm256_and_si256(units, _mm256_set1_epi16((short)0xF800)), _mm256_set1_epi16((short)0xD800));
                if (!_mm256_testz_si256(is_surrogate, is_surrogate))
                    break;
                out = put_utf8_bmp(out, units);
            } else if (_mm256_testz_si256(units, _mm256_set1_epi16((short)0xFF80))) {
                out = put_ascii_units(out, units);
                i += 64;
                ascii_run = 1;
                break; /* to the loop above */
            } else {
                out = put_utf8_below_800(out, units);
            }
            i += 64;
        }
        if (ascii_run || len - i < 32)
            continue;
        /* Eight supplementary code points (10000..10FFFF) at a time */
        while (!bmp_only && len - i >= 32) {
            __m256i units = _mm256_loadu_si256((const __m256i *)(src + i));
            if (big_endian)
                units = swap_32(units);
            if (!_mm256_testz_si256(_mm256_sub_epi32(units, _mm256_set1_epi32(0x10000)),
                                    _mm256_set1_epi32((int)0xFFF00000)))
                break;
            _mm256_storeu_si256((__m256i *)out, four_byte_lanes(units));
            out += 32;
            i += 32;
        }
        if (len - i < 32)
            break;
        __m256i units = _mm256_loadu_si256((const __m256i *)(src + i));
        if (big_endian)
            units = swap_32(units);
        /* D90: surrogates D800..DFFF and units above 10FFFF are not scalar
         * values (unit >> 16 fits a signed compare); CESU-8 and MUTF-8 stop
         * at the supplementary ones as well, and MUTF-8 at 0000. */
        __m256i invalid = _mm256_or_si256(
            _mm256_cmpgt_epi32(_mm256_srli_epi32(units, 16), _mm256_set1_epi32(bmp_only ? 0 : 0x10)),
            _mm256_cmpeq_epi32(_mm256_and_si256(units, _mm256_set1_epi32((int)0xFFFFF800)),
                               _mm256_set1_epi32(0xD800)));
        if (nul_stops)
            invalid = _mm256_or_si256(invalid, _mm256_cmpeq_epi32(units, _mm256_setzero_si256()));
        unsigned bad = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(invalid));
        unsigned taken = bad ? (unsigned)__builtin_ctz(bad) : 8;
        if (taken == 0)
            break;
        out = put_utf8(out, units, taken, !bmp_only);
        i += 4 * taken;
    }
    *written = (size_t)(out - dst);
    return i;
}

TO_UTF8_BLOCK(utfkit_utf32_to_utf8_avx2, utf32_to_utf8, 0, 0)
TO_UTF8_BLOCK(utfkit_utf32_to_cesu8_avx2, utf32_to_utf8, 1, 0)
TO_UTF8_BLOCK(utfkit_utf32_to_mutf8_avx2, utf32_to_utf8, 1, 1)

/* ---- UTF-16 <-> UTF-32 ----
 *
 * `byte_orders` is the source's byte order (1: big-endian) in bit 0 and
 * the target's in bit 1 (kernels.h).  UTF-16 -> UTF-32 widens the units
 * of the BMP and joins surrogate pairs (utf16_read_pairs); UTF-32 -> UTF-16
 * splits the supplementary scalar values into pairs (Table 3-5). */

/* (Always inlined: each caller's constant `byte_orders` then takes its
 * branches out of the loops.) */
static inline __attribute__((always_inline)) size_t utf16_to_utf32(const uint8_t *src, size_t len,
                                                                   int byte_orders, uint8_t *dst,
                                                                   size_t *written)
{
    size_t i = 0;
    uint8_t *out = dst;
    int target_big_endian = byte_orders >> 1 & 1;
    const __m256i high_5 = _mm256_set1_epi16((short)0xF800), surrogate = _mm256_set1_epi16((short)0xD800);
    if (len >= 32 && ((uintptr_t)out & 3) == 0 && ((uintptr_t)out & 31) != 0) {
        /* The units up to the output's next 32-byte boundary first, if
         * they are of the BMP, so that the stores below do not straddle
         * cache lines. */
        __m128i units = _mm_loadu_si128((const __m128i *)src);
        if (byte_orders & 1)
            units = _mm_shuffle_epi8(units, _mm_setr_epi8(1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14));
        if (_mm_movemask_epi8(_mm_cmpeq_epi16(_mm_and_si128(units, _mm_set1_epi16((short)0xF800)),
                                              _mm_set1_epi16((short)0xD800))) == 0) {
            __m256i wide = _mm256_cvtepu16_epi32(units);
            _mm256_storeu_si256((__m256i *)out, target_big_endian ? swap_32(wide) : wide);
            size_t units_to_boundary = (32 - ((uintptr_t)out & 31)) / 4;
            out += 4 * units_to_boundary;
            i += 2 * units_to_boundary;
        }
    }
    while (len - i >= 32) {
        /* thirty-two units of the BMP, one code point each, at a time */
        while (len - i >= 64) {
            __m256i a = _mm256_loadu_si256((const __m256i *)(src + i));
            __m256i b = _mm256_loadu_si256((const __m256i *)(src + i + 32));
            if (byte_orders & 1) {
                a = swap_16(a);
                b = swap_16(b);
            }
            __m256i surrogates = _mm256_or_si256(_mm256_cmpeq_epi16(_mm256_and_si256(a, high_5), surrogate),
                                                 _mm256_cmpeq_epi16(_mm256_and_si256(b, high_5), surrogate));
            if (!_mm256_testz_si256(surrogates, surrogates))
                break;
            __m256i wide[4] = {_mm256_cvtepu16_epi32(_mm256_castsi256_si128(a)),
                               _mm256_cvtepu16_epi32(_mm256_extracti128_si256(a, 1)),
                               _mm256_cvtepu16_epi32(_mm256_castsi256_si128(b)),
                               _mm256_cvtepu16_epi32(_mm256_extracti128_si256(b, 1))};
            for (int k = 0; k < 4; k++)
                _mm256_storeu_si256((__m256i *)(out + 32 * k), target_big_endian ? swap_32(wide[k]) : wide[k]);
            out += 128;
            i += 64;
        }
        /* eight surrogate pairs (lead, trail, lead, ...) at a time: eight
         * code points */
        while (len - i >= 32) {
            __m256i units = _mm256_loadu_si256((const __m256i *)(src + i));
            if (byte_orders & 1)
                units = swap_16(units);
            __m256i paired = _mm256_cmpeq_epi32(_mm256_and_si256(units, _mm256_set1_epi32((int)0xFC00FC00)),
                                                _mm256_set1_epi32((int)0xDC00D800));
            if (_mm256_movemask_epi8(paired) != -1)
                break;
            __m256i code_points = paired_code_points(units);
            _mm256_storeu_si256((__m256i *)out, target_big_endian ? swap_32(code_points) : code_points);
            out += 32;
            i += 32;
        }
        if (len - i < 32)
            break;
        __m256i units = _mm256_loadu_si256((const __m256i *)(src + i));
        if (byte_orders & 1)
            units = swap_16(units);
        uint32_t surrogates = byte_mask(_mm256_cmpeq_epi16(_mm256_and_si256(units, high_5), surrogate));
        if (surrogates == 0) { /* sixteen units of the BMP */
            __m256i first = _mm256_cvtepu16_epi32(_mm256_castsi256_si128(units));
            __m256i second = _mm256_cvtepu16_epi32(_mm256_extracti128_si256(units, 1));
            if (target_big_endian) {
                first = swap_32(first);
                second = swap_32(second);
            }
            _mm256_storeu_si256((__m256i *)out, first);
            _mm256_storeu_si256((__m256i *)(out + 32), second);
            out += 64;
            i += 32;
            continue;
        }
        /* surrogate pairs, up to the first surrogate out of place, which
         * the scalar reader reports or replaces */
        utf16_pairs pairs = utf16_read_pairs(units);
        if (pairs.taken == 0)
            break;
        out = put_wide_units(out, _mm256_castsi256_si128(pairs.low), _mm256_castsi256_si128(pairs.top),
                             pairs.kept & 0xFF, target_big_endian);
        out = put_wide_units(out, _mm256_extracti128_si256(pairs.low, 1),
                             _mm256_extracti128_si256(pairs.top, 1), pairs.kept >> 8, target_big_endian);
        i += 2 * pairs.taken;
        if (pairs.stop)
            break;
    }
    *written = (size_t)(out - dst);
    return i;
}

size_t utfkit_utf16_to_utf32_avx2(const uint8_t *src, size_t len, int byte_orders, uint8_t *dst,
                                  size_t *written)
{
    switch (byte_orders & 3) { /* one loop per pair of byte orders */
    case 0: return utf16_to_utf32(src, len, 0, dst, written);
    case 1: return utf16_to_utf32(src, len, 1, dst, written);
    case 2: return utf16_to_utf32(src, len, 2, dst, written);
    default: return utf16_to_utf32(src, len, 3, dst, written);
    }
}

/* UTF-32 -> UTF-16 of eight lanes of which the first `taken` are scalar
 * values and `supplementary` says which are above FFFF: surrogate pairs
 * (Table 3-5), lead 110110wwwwxxxxxx (wwww = uuuuu - 1) in the lane's low
 * half and trail 110111xxxxxxxxxx in its high half, then each lane's low
 * unit, and its high unit for a pair, packed. */
static inline uint8_t *put_utf16_pairs(uint8_t *out, __m256i units, unsigned taken,
                                       unsigned supplementary, int big_endian)
{
    __m256i offset = _mm256_sub_epi32(units, _mm256_set1_epi32(0x10000));
    __m256i lead = _mm256_or_si256(_mm256_srli_epi32(offset, 10), _mm256_set1_epi32(0xD800));
    __m256i trail = _mm256_or_si256(_mm256_and_si256(offset, _mm256_set1_epi32(0x3FF)),
                                    _mm256_set1_epi32(0xDC00));
    __m256i pair = _mm256_or_si256(lead, _mm256_slli_epi32(trail, 16));
    __m256i is_supplementary = _mm256_cmpgt_epi32(units, _mm256_set1_epi32(0xFFFF));
    __m256i lanes = _mm256_blendv_epi8(units, pair, is_supplementary);
    if (big_endian)
        lanes = swap_16(lanes);
    unsigned used = (1u << taken) - 1;
    for (int half = 0; half < 2; half++) {
        unsigned kept = _pdep_u32(used >> (4 * half) & 0xF, 0x55) |
                        _pdep_u32(supplementary >> (4 * half) & 0xF, 0xAA);
        __m128i part = half ? _mm256_extracti128_si256(lanes, 1) : _mm256_castsi256_si128(lanes);
        part = _mm_shuffle_epi8(part, _mm_load_si128((const __m128i *)utfkit_kept_units[kept]));
        /* whole: at most 16 bytes for the 16 bytes of input read, within
         * the room kernels.h promises */
        _mm_storeu_si128((__m128i *)out, part);
        out += 2 * (unsigned)__builtin_popcount(kept);
    }
    return out;
}

/* Sixteen UTF-32 units from p as two vectors whose 128-bit halves hold the
 * 16-byte quarters 0 and 2, and 1 and 3: PACKUSDW, which packs within
 * halves, then leaves the sixteen units in order with no permute across
 * halves (whose shuffle port the packs already use), and a 16-byte load
 * into a vector's upper half is no shuffle. */
static inline __m256i utf32_quarters(const uint8_t *p, int big_endian)
{
    __m256i v = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)p)),
                                        _mm_loadu_si128((const __m128i *)(p + 32)), 1);
    return big_endian ? swap_32(v) : v;
}

/* Which 16-bit lanes of a packed vector are surrogates (D800..DFFF) or
 * come from a UTF-32 unit above FFFF: the bits of the odd bytes of the
 * returned mask (0xAAAAAAAA) are set for them.  A unit above FFFF has a
 * nonzero high half, which an unsigned saturating add of 7FFF takes to
 * 8000 or above (its sign bit); `wide` is the OR of the UTF-32 units. */
static inline __m256i not_narrowed(__m256i wide, __m256i narrow)
{
    __m256i high = _mm256_adds_epu16(_mm256_and_si256(wide, _mm256_set1_epi32((int)0xFFFF0000)),
                                     _mm256_set1_epi32(0x7FFF0000));
    __m256i surrogate = _mm256_cmpeq_epi16(_mm256_and_si256(narrow, _mm256_set1_epi16((short)0xF800)),
                                           _mm256_set1_epi16((short)0xD800));
    return _mm256_or_si256(high, surrogate);
}

#define NARROWED_SIGNS 0xAAAAAAAAu /* the high byte of every 16-bit lane */

static inline size_t utf32_to_utf16(const uint8_t *src, size_t len, int byte_orders, uint8_t *dst,
                                     size_t *written)
{
    const __m128i swap = _mm_setr_epi8(1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14);
    size_t i = 0;
    uint8_t *out = dst;
    int narrow_next = 1; /* tried again after a step with only BMP units */
    if (len >= 64 && ((uintptr_t)out & 1) == 0 && ((uintptr_t)out & 31) != 0) {
        /* The units up to the output's next 32-byte boundary first, if
         * they are of the BMP and not surrogates, so that the stores below
         * do not straddle cache lines. */
        __m256i a = _mm256_loadu_si256((const __m256i *)src);
        __m256i b = _mm256_loadu_si256((const __m256i *)(src + 32));
        if (byte_orders & 1) {
            a = swap_32(a);
            b = swap_32(b);
        }
        __m256i narrow = _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xD8);
        __m256i is_surrogate = _mm256_cmpeq_epi16(_mm256_and_si256(narrow, _mm256_set1_epi16((short)0xF800)),
                                                  _mm256_set1_epi16((short)0xD800));
        if (_mm256_testz_si256(_mm256_or_si256(a, b), _mm256_set1_epi32((int)0xFFFF0000)) &&
            _mm256_testz_si256(is_surrogate, is_surrogate)) {
            _mm256_storeu_si256((__m256i *)out, byte_orders & 2 ? swap_16(narrow) : narrow);
            size_t units_to_boundary = (32 - ((uintptr_t)out & 31)) / 2;
            out += 2 * units_to_boundary;
            i += 4 * units_to_boundary;
        }
    }
    while (len - i >= 32) {
        /* Sixteen units of the BMP that are not surrogates at a time, one
         * unit each way: narrowed with saturation (PACKUSDW), which leaves
         * the units below 10000 as they are. */
        while (narrow_next && len - i >= 128) { /* 32 units, one test */
            __m256i a = utf32_quarters(src + i, byte_orders & 1);
            __m256i b = utf32_quarters(src + i + 16, byte_orders & 1);
            __m256i c = utf32_quarters(src + i + 64, byte_orders & 1);
            __m256i d = utf32_quarters(src + i + 80, byte_orders & 1);
            __m256i first = _mm256_packus_epi32(a, b), second = _mm256_packus_epi32(c, d);
            __m256i wide = _mm256_or_si256(_mm256_or_si256(a, b), _mm256_or_si256(c, d));
            /* one test for both: where a lane failed does not matter */
            __m256i bad = _mm256_or_si256(not_narrowed(wide, first), not_narrowed(wide, second));
            if ((unsigned)_mm256_movemask_epi8(bad) & NARROWED_SIGNS)
                break;
            if (byte_orders & 2) {
                first = swap_16(first);
                second = swap_16(second);
            }
            _mm256_storeu_si256((__m256i *)out, first);
            _mm256_storeu_si256((__m256i *)(out + 32), second);
            out += 64;
            i += 128;
        }
        while (narrow_next && len - i >= 64) {
            __m256i a = utf32_quarters(src + i, byte_orders & 1);
            __m256i b = utf32_quarters(src + i + 16, byte_orders & 1);
            __m256i narrow = _mm256_packus_epi32(a, b);
            if ((unsigned)_mm256_movemask_epi8(not_narrowed(_mm256_or_si256(a, b), narrow)) & NARROWED_SIGNS)
                break;
            if (byte_orders & 2)
                narrow = swap_16(narrow);
            _mm256_storeu_si256((__m256i *)out, narrow);
            out += 32;
            i += 64;
        }
        /* Eight supplementary code points (10000..10FFFF) at a time: eight
         * surrogate pairs, lead in the low half of each 32-bit lane */
        while (len - i >= 32) {
            __m256i units = _mm256_loadu_si256((const __m256i *)(src + i));
            if (byte_orders & 1)
                units = swap_32(units);
            __m256i offset = _mm256_sub_epi32(units, _mm256_set1_epi32(0x10000));
            if (!_mm256_testz_si256(offset, _mm256_set1_epi32((int)0xFFF00000)))
                break;
            __m256i pairs = _mm256_or_si256(
                _mm256_or_si256(_mm256_srli_epi32(offset, 10),
                                _mm256_slli_epi32(_mm256_and_si256(offset, _mm256_set1_epi32(0x3FF)), 16)),
                _mm256_set1_epi32((int)0xDC00D800));
            if (byte_orders & 2)
                pairs = swap_16(pairs);
            _mm256_storeu_si256((__m256i *)out, pairs);
            out += 32;
            i += 32;
        }
        if (len - i < 32)
            break;
        __m256i units = _mm256_loadu_si256((const __m256i *)(src + i));
        if (byte_orders & 1)
            units = swap_32(units);
        /* above FFFF (pairs, or not scalar values: D90) or a surrogate */
        __m256i other = _mm256_or_si256(
            _mm256_cmpgt_epi32(_mm256_srli_epi32(units, 16), _mm256_setzero_si256()),
            _mm256_cmpeq_epi32(_mm256_and_si256(units, _mm256_set1_epi32((int)0xFFFFF800)),
                               _mm256_set1_epi32(0xD800)));
        narrow_next = _mm256_movemask_ps(_mm256_castsi256_ps(other)) == 0;
        if (narrow_next) { /* eight BMP units */
            __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(units, units), 0x08);
            __m128i narrow = _mm256_castsi256_si128(packed);
            if (byte_orders & 2)
                narrow = _mm_shuffle_epi8(narrow, swap);
            _mm_storeu_si128((__m128i *)out, narrow);
            out += 16;
            i += 32;
            continue;
        }
        /* D90: surrogates D800..DFFF and units above 10FFFF are not scalar
         * values (unit >> 16 fits a signed compare). */
        __m256i invalid = _mm256_or_si256(
            _mm256_cmpgt_epi32(_mm256_srli_epi32(units, 16), _mm256_set1_epi32(0x10)),
            _mm256_cmpeq_epi32(_mm256_and_si256(units, _mm256_set1_epi32((int)0xFFFFF800)),
                               _mm256_set1_epi32(0xD800)));
        unsigned bad = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(invalid));
        unsigned taken = bad ? (unsigned)__builtin_ctz(bad) : 8;
        if (taken == 0)
            break;
        unsigned supplementary = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(
                                     _mm256_cmpgt_epi32(units, _mm256_set1_epi32(0xFFFF)))) &
                                 ((1u << taken) - 1);
        out = put_utf16_pairs(out, units, taken, supplementary, byte_orders >> 1 & 1);
        i += 4 * taken;
        if (taken < 8)
            break;
    }
    *written = (size_t)(out - dst);
    return i;
}

size_t utfkit_utf32_to_utf16_avx2(const uint8_t *src, size_t len, int byte_orders, uint8_t *dst,
                                  size_t *written)
{
    switch (byte_orders & 3) { /* one loop per pair of byte orders */
    case 0: return utf32_to_utf16(src, len, 0, dst, written);
    case 1: return utf32_to_utf16(src, len, 1, dst, written);
    case 2: return utf32_to_utf16(src, len, 2, dst, written);
    default: return utf32_to_utf16(src, len, 3, dst, written);
    }
}

#if defined(__clang__)
#pragma clang attribute pop
#elif defined(__GNUC__)
#pragma GCC pop_options
#endif
#endif
