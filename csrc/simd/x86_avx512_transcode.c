/*
 * x86_avx512_transcode.c -- transcoding blocks for CPUs with AVX-512 F, BW,
 * VL, VBMI and VBMI2 (Intel Ice Lake and later, AMD Zen 4 and later): those
 * of the avx512 kernel (kernels.h).
 *
 * The method follows the published idea of Clausecker & Lemire
 * ("Transcoding Unicode characters with AVX-512 instructions", 2023): with
 * byte-granular permutes (VPERMB) and compression (VPCOMPRESSB/W) a whole
 * register of variable-length characters is gathered into fixed-size lanes,
 * converted with plain arithmetic, and packed again -- no lookup table of
 * shuffles at all.  The code is our own:
 *
 *   UTF-8 -> code points: a 64-byte block is first checked against Table
 *     3-7 with a few byte comparisons and 64-bit masks (below), so that a
 *     block with an ill-formed subsequence is left to the scalar reader and
 *     well-formed text is read once.  In the block, the characters that start in
 *     bytes 0..60 end inside it (a character is at most 4 bytes, Table 3-7).
 *     Their lead positions are compressed into a vector; VPERMB gathers each
 *     character's bytes, lead first, into the top of a 32-bit lane; the lead
 *     byte's high nibble gives the length (Table 3-6) and with it the marker
 *     bits to clear and the shift that drops the bytes after the character;
 *     the 6-bit payloads are then packed by shifts and masks.
 *   code points -> UTF-8: each code point is encoded into a 32-bit lane,
 *     lead byte first in memory (Table 3-6), and VPCOMPRESSB keeps the
 *     first 1..4 bytes of each lane.
 *
 * The input is never trusted: UTF-8 blocks stop before a block that is not
 * well-formed, and UTF-16 / UTF-32 blocks stop before
 * the first unit that is not a scalar value (surrogates, units above
 * 10FFFF) so that every error goes to the scalar readers.  Stores stay
 * within the room kernels.h gives a block (the worst case of its input):
 * the UTF-16 -> UTF-8 and UTF-8 -> UTF-32 blocks mask every store to the
 * bytes produced, as do the UTF-8 -> UTF-16 blocks for 4-byte characters
 * (16 surrogate pairs fill a whole vector, stored unmasked);
 * the other UTF-8 -> UTF-16 blocks (at most 2 bytes per byte read) and the
 * blocks from UTF-32 and UTF-16 -> UTF-32 store whole vectors within the
 * room, and only the bytes produced after the last whole vector.
 */
#include "../kernels.h"

#if defined(UTFKIT_X86_64)
#include <immintrin.h>

/* Everything below is compiled for these features, with no -m flag for the build. */
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi2,popcnt"))), apply_to = function)
#elif defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi2,popcnt")
#endif

/* A character that starts in bytes 0..LAST_LEAD of a 64-byte block ends
 * inside it. */
#define LAST_LEAD 60

static inline __m512i byte_index_vector(void)
{
    return _mm512_set_epi8(63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48,
                           47, 46, 45, 44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32,
                           31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16,
                           15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
}

/* Swaps the bytes of each 16-bit (or 32-bit) lane: the other byte order. */
static inline __m512i swap_16(__m512i v)
{
    const __m512i order = _mm512_set4_epi32(0x0E0F0C0D, 0x0A0B0809, 0x06070405, 0x02030001);
    return _mm512_shuffle_epi8(v, order);
}

static inline __m512i swap_32(__m512i v)
{
    const __m512i order = _mm512_set4_epi32(0x0C0D0E0F, 0x08090A0B, 0x04050607, 0x00010203);
    return _mm512_shuffle_epi8(v, order);
}

static inline __m256i swap_16_half(__m256i v)
{
    const __m256i order = _mm256_set_epi32(0x0E0F0C0D, 0x0A0B0809, 0x06070405, 0x02030001,
                                           0x0E0F0C0D, 0x0A0B0809, 0x06070405, 0x02030001);
    return _mm256_shuffle_epi8(v, order);
}

static inline __mmask16 first_lanes_16(unsigned n) /* n <= 16 */
{
    return (__mmask16)((1u << n) - 1u);
}

static inline __mmask32 first_lanes_32(unsigned n) /* n <= 32 */
{
    return (__mmask32)(n >= 32 ? 0xFFFFFFFFu : (1u << n) - 1u);
}

static inline __mmask64 first_lanes_64(unsigned n) /* n <= 64 */
{
    return (__mmask64)(n >= 64 ? ~0ull : (1ull << n) - 1ull);
}

/* ---- UTF-8 -> code points ---- */

/* The code points of 16 characters of `block` whose lead positions are the
 * bytes of `leads` (low 16 bytes used), one per 32-bit lane. */
static inline __m512i decode_16(__m512i block, __m512i leads)
{
    /* Lane j, byte k (in memory order) <- block[lead_j + 3 - k]: the lead
     * ends up in the top byte, and the lane reads b0 b1 b2 b3 from the most
     * significant byte down.  lead_j <= 60 keeps every index below 64. */
    const __m512i spread = _mm512_set_epi8(
        15, 15, 15, 15, 14, 14, 14, 14, 13, 13, 13, 13, 12, 12, 12, 12,
        11, 11, 11, 11, 10, 10, 10, 10, 9, 9, 9, 9, 8, 8, 8, 8,
        7, 7, 7, 7, 6, 6, 6, 6, 5, 5, 5, 5, 4, 4, 4, 4,
        3, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0);
    const __m512i following = _mm512_set1_epi32(0x00010203);
    __m512i index = _mm512_add_epi8(_mm512_permutexvar_epi8(spread, leads), following);
    __m512i bytes = _mm512_permutexvar_epi8(index, block);
    /* Table 3-6 by the lead byte's high nibble: 0..7 one byte 0xxxxxxx,
     * C..D two bytes 110yyyyy 10xxxxxx, E three 1110zzzz 10yyyyyy 10xxxxxx,
     * F four 11110uuu 10uuzzzz 10yyyyyy 10xxxxxx (8..B, continuation bytes,
     * never lead a character).  `markers` are the fixed bits to clear,
     * `drop` the bits after the character. */
    const __m512i markers = _mm512_set_epi32(
        (int)0xF0808080, (int)0xE0808000, (int)0xC0800000, (int)0xC0800000, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0);
    const __m512i drop = _mm512_set_epi32(0, 8, 16, 16, 24, 24, 24, 24,
                                          24, 24, 24, 24, 24, 24, 24, 24);
    __m512i nibble = _mm512_srli_epi32(bytes, 28);
    __m512i x = _mm512_xor_si512(bytes, _mm512_permutexvar_epi32(nibble, markers));
    x = _mm512_srlv_epi32(x, _mm512_permutexvar_epi32(nibble, drop));
    /* Now the character's bytes are x's low bytes, last byte lowest, each
     * continuation byte holding 6 payload bits and the lead at most 7. */
    __m512i code_point = _mm512_and_si512(x, _mm512_set1_epi32(0x7F));
    code_point = _mm512_or_si512(code_point,
                                 _mm512_and_si512(_mm512_srli_epi32(x, 2), _mm512_set1_epi32(0xFC0)));
    code_point = _mm512_or_si512(code_point, _mm512_and_si512(_mm512_srli_epi32(x, 4),
                                                              _mm512_set1_epi32(0x3F000)));
    code_point = _mm512_or_si512(code_point, _mm512_and_si512(_mm512_srli_epi32(x, 6),
                                                              _mm512_set1_epi32(0x1C0000)));
    return code_point;
}

/* The characters of a block that end inside it, given where characters
 * start (`leads`: the bytes that are not continuation bytes 80..BF), and
 * the bytes they take: those that start in 0..LAST_LEAD; the first one
 * that starts later (or byte 64) is where the next block begins. */
static inline uint64_t whole_characters(uint64_t leads, size_t *consumed)
{
    *consumed = LAST_LEAD + 1 + (size_t)__builtin_ctzll((leads >> (LAST_LEAD + 1)) | 8);
    return leads & ((2ull << LAST_LEAD) - 1);
}

/* Where the characters `taken` of the block, which fill its first
 * `consumed` bytes, break Table 3-7 (0: they are well-formed).  Two checks make the
 * table: (1) each lead byte is followed by exactly the continuation bytes
 * its length asks for (C0..DF one, E0..EF two, F0..FF three) -- the
 * continuation bytes of the block must be exactly those; (2) the second
 * byte is in its row's range. */
/* The range a second byte must be in, by its lead's low six bits (VPERMB
 * ignores the rest): 80..BF but E0 A0..BF, ED 80..9F, F0 90..BF, F4
 * 80..8F; none at all for C0, C1, F5..FF.  Built once per call of a block
 * function, outside its loop. */
typedef struct second_byte_ranges {
    __m512i lowest, highest;
} second_byte_ranges;

static inline second_byte_ranges second_byte_ranges_table(void)
{
    const __mmask64 begins_no_row = 0x3ull | ~0ull << 0x35;
    second_byte_ranges r;
    r.lowest = _mm512_set1_epi8((char)0x80);
    r.lowest = _mm512_mask_mov_epi8(r.lowest, 1ull << 0x20, _mm512_set1_epi8((char)0xA0));
    r.lowest = _mm512_mask_mov_epi8(r.lowest, 1ull << 0x30, _mm512_set1_epi8((char)0x90));
    r.lowest = _mm512_mask_mov_epi8(r.lowest, begins_no_row, _mm512_set1_epi8((char)0xFF));
    r.highest = _mm512_set1_epi8((char)0xBF);
    r.highest = _mm512_mask_mov_epi8(r.highest, 1ull << 0x2D, _mm512_set1_epi8((char)0x9F));
    r.highest = _mm512_mask_mov_epi8(r.highest, 1ull << 0x34, _mm512_set1_epi8((char)0x8F));
    r.highest = _mm512_mask_mov_epi8(r.highest, begins_no_row, _mm512_setzero_si512());
    return r;
}

static inline uint64_t ill_formed_bytes(__m512i block, uint64_t continuation, uint64_t taken,
                                        size_t consumed, __m512i byte_index, uint64_t *four_bytes,
                                        const second_byte_ranges *ranges)
{
    uint64_t in_block = consumed >= 64 ? ~0ull : (1ull << consumed) - 1;
    uint64_t two = _mm512_mask_cmpge_epu8_mask(taken, block, _mm512_set1_epi8((char)0xC0));
    uint64_t three = _mm512_mask_cmpge_epu8_mask(taken, block, _mm512_set1_epi8((char)0xE0));
    uint64_t four = _mm512_mask_cmpge_epu8_mask(taken, block, _mm512_set1_epi8((char)0xF0));
    *four_bytes = four;
    uint64_t misplaced = (two << 1 | three << 2 | four << 3) ^ (continuation & in_block);
    /* Every taken lead starts by byte 60, so its second byte is in the
     * block, and must be in the range its lead asks (second_byte_ranges). */
    __m512i second = _mm512_permutexvar_epi8(_mm512_add_epi8(byte_index, _mm512_set1_epi8(1)), block);
    uint64_t bad = _mm512_mask_cmplt_epu8_mask(two, second, _mm512_permutexvar_epi8(block, ranges->lowest)) |
                   _mm512_mask_cmpgt_epu8_mask(two, second, _mm512_permutexvar_epi8(block, ranges->highest));
    return misplaced | bad;
}

/* Writes 16 UTF-16 code units, or fewer lanes for the last group, with
 * surrogate pairs (Table 3-5) where a code point is above FFFF. */
static inline uint8_t *put_utf16(uint8_t *out, __m512i code_point, unsigned lanes, int big_endian)
{
    __mmask16 used = first_lanes_16(lanes);
    __mmask16 supplementary =
        _mm512_mask_cmpge_epu32_mask(used, code_point, _mm512_set1_epi32(0x10000));
    if (supplementary == 0) {
        __m256i units = _mm512_cvtepi32_epi16(code_point);
        if (big_endian)
            units = swap_16_half(units);
        _mm256_mask_storeu_epi16(out, used, units);
        return out + 2 * lanes;
    }
    /* wwww = uuuuu - 1: lead 110110wwwwxxxxxx, trail 110111xxxxxxxxxx */
    __m512i offset = _mm512_sub_epi32(code_point, _mm512_set1_epi32(0x10000));
    __m512i lead = _mm512_or_si512(_mm512_srli_epi32(offset, 10), _mm512_set1_epi32(0xD800));
    __m512i trail = _mm512_or_si512(_mm512_and_si512(offset, _mm512_set1_epi32(0x3FF)),
                                    _mm512_set1_epi32(0xDC00));
    __m512i pair = _mm512_or_si512(lead, _mm512_slli_epi32(trail, 16));
    if (supplementary == 0xFFFF) { /* 16 pairs: a whole vector is the 64 bytes produced */
        if (big_endian)
            pair = swap_16(pair);
        _mm512_storeu_si512((void *)out, pair);
        return out + 64;
    }
    __m512i units = _mm512_mask_mov_epi32(code_point, supplementary, pair);
    /* Every lane's low unit counts; its high unit only for a pair. */
    uint32_t kept = _pdep_u32(used, 0x55555555u) | _pdep_u32(supplementary, 0xAAAAAAAAu);
    units = _mm512_maskz_compress_epi16(kept, units);
    if (big_endian)
        units = swap_16(units);
    unsigned count = (unsigned)__builtin_popcount(kept);
    _mm512_mask_storeu_epi16(out, first_lanes_32(count), units);
    return out + 2 * count;
}

static inline uint8_t *put_utf32(uint8_t *out, __m512i code_point, unsigned lanes, int big_endian)
{
    if (big_endian)
        code_point = swap_32(code_point);
    _mm512_mask_storeu_epi32(out, first_lanes_16(lanes), code_point);
    return out + 4 * lanes;
}

/* VPERMT2B indexes that interleave the low bytes (first operand) and high
 * bytes (second) of code units `first`.. into UTF-16 units, or into UTF-32
 * units whose upper bytes are then zeroed, in the given byte order. */
static inline __m512i interleave_utf16(__m512i byte_index, int first, int big_endian)
{
    __m512i unit = _mm512_and_si512(_mm512_srli_epi16(byte_index, 1), _mm512_set1_epi8(0x7F));
    __m512i high = _mm512_and_si512(byte_index, _mm512_set1_epi8(1));
    if (big_endian)
        high = _mm512_xor_si512(high, _mm512_set1_epi8(1));
    return _mm512_add_epi8(_mm512_add_epi8(unit, _mm512_set1_epi8((char)first)),
                           _mm512_slli_epi16(high, 6));
}

static inline __m512i interleave_utf32(__m512i byte_index, int first, int big_endian)
{
    __m512i unit = _mm512_and_si512(_mm512_srli_epi16(byte_index, 2), _mm512_set1_epi8(0x3F));
    __m512i high = _mm512_and_si512(byte_index, _mm512_set1_epi8(1));
    if (big_endian)
        high = _mm512_xor_si512(high, _mm512_set1_epi8(1));
    return _mm512_add_epi8(_mm512_add_epi8(unit, _mm512_set1_epi8((char)first)),
                           _mm512_slli_epi16(high, 6));
}

/* A well-formed block whose characters are all in the BMP (1 to 3 bytes),
 * decoded at the last byte of each character: there, the code point's low
 * byte is yyxxxxxx -- the byte's own payload (7 bits for ASCII, 6 for a
 * continuation byte) and two bits of the byte before -- and its high byte
 * zzzzyyyy -- four bits of the byte before and four of the one before
 * that (Table 3-6), where those belong to the same character.  The low
 * and high bytes of the characters are then compressed out and
 * interleaved into code units.  The UTF-16 stores are whole vectors: what
 * came before the block is at most 2 bytes per byte read, and each vector
 * ends within that bound for the block's 64 bytes (the room kernels.h
 * gives); masked stores cost more there.  (For UTF-32 the masked stores
 * measured faster.) */
static inline uint8_t *put_bmp_block(uint8_t *out, __m512i block, uint64_t continuation,
                                     size_t consumed, int big_endian, int utf16,
                                     __m512i byte_index)
{
    uint64_t in_block = consumed >= 64 ? ~0ull : (1ull << consumed) - 1;
    uint64_t last_bytes = ~(continuation >> 1) & in_block;
    __m512i before = _mm512_maskz_permutexvar_epi8(
        continuation, _mm512_sub_epi8(byte_index, _mm512_set1_epi8(1)), block);
    __m512i two_before = _mm512_maskz_permutexvar_epi8(
        continuation & continuation << 1, _mm512_sub_epi8(byte_index, _mm512_set1_epi8(2)), block);
    /* (16-bit shifts: the bits they carry across bytes are masked off) */
    __m512i low = _mm512_ternarylogic_epi32(_mm512_and_si512(block, _mm512_set1_epi8(0x7F)),
                                            _mm512_slli_epi16(before, 6),
                                            _mm512_set1_epi8((char)0xC0), 0xF8); /* A | (B & C) */
    __m512i high = _mm512_ternarylogic_epi32(_mm512_srli_epi16(before, 2),
                                             _mm512_slli_epi16(two_before, 4),
                                             _mm512_set1_epi8(0x0F), 0xE4); /* C ? A : B */
    low = _mm512_maskz_compress_epi8(last_bytes, low);
    high = _mm512_maskz_compress_epi8(last_bytes, high);
    unsigned characters = (unsigned)__builtin_popcountll(last_bytes);
    if (utf16) {
        __m512i units = _mm512_permutex2var_epi8(low, interleave_utf16(byte_index, 0, big_endian), high);
        _mm512_storeu_si512((void *)out, units);
        if (characters > 32) {
            units = _mm512_permutex2var_epi8(low, interleave_utf16(byte_index, 32, big_endian), high);
            _mm512_storeu_si512((void *)(out + 64), units);
        }
        return out + 2 * characters;
    }
    const __mmask64 unit_bytes = big_endian ? 0xCCCCCCCCCCCCCCCCull : 0x3333333333333333ull;
    for (unsigned first = 0; first < characters; first += 16) {
        __m512i units = _mm512_maskz_permutex2var_epi8(
            unit_bytes, low, interleave_utf32(byte_index, (int)first, big_endian), high);
        unsigned lanes = characters - first < 16 ? characters - first : 16;
        _mm512_mask_storeu_epi32(out + 4 * first, first_lanes_16(lanes), units);
    }
    return out + 4 * characters;
}

/* Text in the scripts written without spaces (Chinese, Japanese) is long
 * runs of 3-byte characters (U+0800..FFFF, Table 3-6: 1110zzzz 10yyyyyy
 * 10xxxxxx).  Where the first 48 bytes of a block are 16 such characters,
 * VPERMB gathers each into a 32-bit lane (lead in byte 2) and the lanes are
 * checked and decoded with 32-bit arithmetic -- no compression, which is
 * what makes the general path slow on this text.  Returns the mask of the
 * lanes whose characters are well-formed (Table 3-7: a lead E0..EF, two
 * continuation bytes, the code point neither below 800 (E0 80..9F) nor a
 * surrogate (ED A0..BF)), and their code points in *code_point. */
/* The continuation bytes (80..BF) of 16 characters of 3 bytes each, as
 * bits 0..47 of a block's mask. */
#define THREE_BYTE_RUN 0xDB6DB6DB6DB6ull

static inline __mmask16 decode_3_byte_run(__m512i block, __m512i *code_point)
{
    /* lane j: byte 0 <- block[3j + 2], 1 <- [3j + 1], 2 <- [3j], 3 <- 0 */
    const __m512i gather = _mm512_set_epi32(
        0x002D2E2F, 0x002A2B2C, 0x00272829, 0x00242526, 0x00212223, 0x001E1F20, 0x001B1C1D,
        0x0018191A, 0x00151617, 0x00121314, 0x000F1011, 0x000C0D0E, 0x00090A0B, 0x00060708,
        0x00030405, 0x00000102);
    __m512i lane = _mm512_maskz_permutexvar_epi8(0x7777777777777777ull, gather, block);
    /* Clearing the fixed bits of 1110zzzz 10yyyyyy 10xxxxxx leaves only the
     * payload where the lane has that shape. */
    lane = _mm512_xor_si512(lane, _mm512_set1_epi32(0x00E08080));
    __mmask16 shaped = _mm512_testn_epi32_mask(lane, _mm512_set1_epi32(0x00F0C0C0));
    __m512i low = _mm512_ternarylogic_epi32(lane, _mm512_srli_epi32(lane, 2),
                                            _mm512_set1_epi32(0x3F), 0xE4); /* C ? A : B */
    __m512i cp = _mm512_ternarylogic_epi32(low, _mm512_srli_epi32(lane, 4),
                                           _mm512_set1_epi32(0xFFF), 0xE4);
    /* With the shape right, only the bits 12..15 of srli(lane, 4) can
     * reach past bit 11: cp is zzzzyyyyyyxxxxxx. */
    __mmask16 scalar = _mm512_mask_cmpge_epu32_mask(shaped, cp, _mm512_set1_epi32(0x800));
    scalar = _mm512_mask_cmpneq_epi32_mask(
        scalar, _mm512_and_si512(cp, _mm512_set1_epi32(0xF800)), _mm512_set1_epi32(0xD800));
    *code_point = cp;
    return scalar;
}

/* Text in the alphabetic scripts other than Latin (Greek, Cyrillic,
 * Hebrew, Arabic...) and Latin with accents is ASCII and 2-byte characters
 * (U+0080..07FF, Table 3-6: 110yyyyy 10xxxxxx) only.  A block of such
 * characters is checked and decoded with a fixed stride: it takes all 64
 * bytes, or 63 when byte 63 is the lead of a character cut by the block's
 * end; no byte needs to be compressed before decoding.  VPERMB makes the
 * 16-bit lane of each byte b[i] | b[i+1] << 8, each lane is decoded as if
 * it started a character (ASCII: b[i]; a lead: the low 5 bits of b[i],
 * then the low 6 of b[i+1]), and VPCOMPRESSW keeps the lanes where a
 * character starts.  Returns the bytes taken, or 0 (nothing written) when
 * the block holds anything else: a byte E0..FF, a lead C0 or C1 (Table
 * 3-7 has no row for them), or continuation bytes that do not follow a
 * lead one to one -- the general step then converts or rejects it. */
static inline size_t put_two_byte_block(uint8_t **out, __m512i block, uint64_t non_ascii,
                                        uint64_t continuation, uint8_t last_byte,
                                        int big_endian)
{
    /* C2..DF -> 00..1D, every other byte above it */
    uint64_t leads = _mm512_cmplt_epu8_mask(_mm512_sub_epi8(block, _mm512_set1_epi8((char)0xC2)),
                                            _mm512_set1_epi8(0x1E));
    if ((leads | continuation) != non_ascii || leads << 1 != continuation)
        return 0;
    /* (from the byte itself, not the mask: the next block's address then
     * waits on one byte load, not on the compare above) */
    size_t consumed = 64 - (size_t)(last_byte >= 0xC0);
    uint64_t starts = ~continuation & (consumed == 64 ? ~0ull : ~0ull >> 1);
    /* 16-bit lane j of pairs_low holds bytes j, j + 1; of pairs_high bytes
     * 32 + j, 33 + j (the index 64 of the last lane wraps to byte 0; that
     * lane is a character start only if byte 63 is ASCII). */
    const __m512i pair_index = _mm512_set_epi8(
        32, 31, 31, 30, 30, 29, 29, 28, 28, 27, 27, 26, 26, 25, 25, 24, 24, 23, 23, 22, 22, 21,
        21, 20, 20, 19, 19, 18, 18, 17, 17, 16, 16, 15, 15, 14, 14, 13, 13, 12, 12, 11, 11, 10,
        10, 9, 9, 8, 8, 7, 7, 6, 6, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 0);
    const __m512i high_half = _mm512_set1_epi8(32);
    __m512i pairs[2];
    pairs[0] = _mm512_permutexvar_epi8(pair_index, block);
    pairs[1] = _mm512_permutexvar_epi8(_mm512_add_epi8(pair_index, high_half), block);
    for (int half = 0; half < 2; half++) {
        __m512i pair = pairs[half];
        uint32_t ascii = (uint32_t)(~non_ascii >> (32 * half));
        uint32_t kept = (uint32_t)(starts >> (32 * half));
        /* a lead: 00000yyyyyxxxxxx from yyyyy of the low byte, xxxxxx of the high */
        __m512i unit = _mm512_ternarylogic_epi32(_mm512_slli_epi16(pair, 6),
                                                 _mm512_srli_epi16(pair, 8),
                                                 _mm512_set1_epi16(0x07C0), 0xE4); /* C ? A : B */
        unit = _mm512_mask_mov_epi16(unit, ascii, _mm512_and_si512(pair, _mm512_set1_epi16(0xFF)));
        unit = _mm512_maskz_compress_epi16(kept, unit);
        if (big_endian)
            unit = swap_16(unit);
        unsigned count = (unsigned)__builtin_popcount(kept);
        /* a whole vector: 64 bytes from out, which is at most 2 bytes per
         * byte read before this half of the block (put_bmp_block) */
        _mm512_storeu_si512((void *)*out, unit);
        *out += 2 * count;
    }
    return consumed;
}

/* Any well-formed block of characters of 1 to 3 bytes (U+0000..FFFF) is
 * converted with a fixed stride, as in Clausecker & Lemire's design: it
 * takes all 64 bytes but the lead of a character cut by the block's end,
 * and that is found from the last two bytes alone (a lead C0..FF in byte
 * 63, or E0..FF in byte 62), so the next block's address waits on a byte
 * load, not on the block's masks.  The block is checked against Table 3-7
 * with 64-bit masks: of non-ASCII bytes, of continuation bytes (10xxxxxx),
 * and of bit 5 (a shift and VPMOVB2M), which with the others marks the leads
 * of 3 or more bytes (111xxxxx) and, in continuation bytes, A0..BF; one VPERMB
 * by each lead's low six bits gives what its second byte must be
 * (lead_rules).  The characters are then decoded at their last bytes
 * (put_bmp_block). */

/* Byte k of the table is for the leads whose low six bits are k (C0 + k):
 * bit 7 set, the second byte must be A0..BF (E0: Table 3-7 row E0, no
 * overlong form); bit 6 set, 80..9F (ED: no surrogate).  Both set, no
 * second byte will do: C0 and C1 (overlong, no row in Table 3-7) and
 * F0..FF (4 bytes or none: not in this step). */
static inline __m512i lead_rules(void)
{
    return _mm512_set_epi8(
        -64, -64, -64, -64, -64, -64, -64, -64, -64, -64, -64, -64, -64, -64, -64, -64, /* F0..FF */
        0, 0, 64, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -128, /* EF..E0: ED, E0 */
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -64, -64); /* C1, C0 */
}

/* Bit 7 - shift of each byte of v, as a mask: the top bit after a shift
 * left by `shift` (within 16-bit lanes: what crosses into the next byte
 * lands in its low bits, never in its top bit). */
static inline uint64_t byte_bit(__m512i v, unsigned shift)
{
    return (uint64_t)_mm512_movepi8_mask(_mm512_slli_epi16(v, shift));
}

/* Whether the block, from a character boundary, is well-formed (Table 3-7)
 * up to the lead of a character its end cuts, with no character of 4
 * bytes.  The continuation bytes must be exactly those the leads ask for
 * (11xxxxxx one, 111xxxxx two more; a lead in byte 62 or 63 asks for bytes
 * past the block, which are not checked and not taken), and every second
 * byte must be in the range its lead's row asks for. */
static inline int bmp_stride_is_well_formed(__m512i block, uint64_t non_ascii,
                                            uint64_t continuation, uint64_t bit_5)
{
    uint64_t leads = non_ascii & ~continuation;
    uint64_t three = leads & bit_5;
    uint64_t expected = leads << 1 | three << 2;
    __m512i rules = _mm512_permutexvar_epi8(block, lead_rules());
    uint64_t needs_high = byte_bit(rules, 0) & leads;
    uint64_t needs_low = byte_bit(rules, 1) & leads;
    uint64_t out_of_range = (needs_high << 1 & ~bit_5) | (needs_low << 1 & bit_5);
    return ((expected ^ continuation) | out_of_range) == 0;
}

/* The bytes such a block takes: 64, less the bytes of the character its
 * end cuts (a lead in byte 63, or a lead of 3 bytes in byte 62). */
static inline size_t bmp_stride(const uint8_t *block)
{
    return 64 - (size_t)(block[63] >= 0xC0) - 2 * (size_t)(block[62] >= 0xE0);
}

/* Writes 64 ASCII bytes as 64 code units: whole vectors, aligned or not. */
static inline uint8_t *put_ascii(uint8_t *out, __m512i block, int big_endian, int utf16)
{
    if (utf16) {
        __m512i low = _mm512_cvtepu8_epi16(_mm512_castsi512_si256(block));
        __m512i high = _mm512_cvtepu8_epi16(_mm512_extracti64x4_epi64(block, 1));
        if (big_endian) {
            low = swap_16(low);
            high = swap_16(high);
        }
        _mm512_storeu_si512((void *)out, low);
        _mm512_storeu_si512((void *)(out + 64), high);
        return out + 128;
    }
    for (int quarter = 0; quarter < 4; quarter++) {
        __m512i units = _mm512_cvtepu8_epi32(_mm512_castsi512_si128(block));
        if (big_endian)
            units = swap_32(units);
        _mm512_storeu_si512((void *)(out + 64 * quarter), units);
        block = _mm512_alignr_epi32(block, block, 4);
    }
    return out + 256;
}

/* UTF-32 output of a long run of ASCII: four bytes written per byte read,
 * 256 per block, into lines that are in L2 at best (the corpus' outputs are
 * larger than L1).  From the fifth block of a run on, each block first asks
 * for the four output lines 512 bytes (two blocks) ahead (PREFETCHT0: a
 * prefetch never faults, wherever it points), so that their fills overlap
 * the stores before them.  Measured (bench_kernels, avx512, 8to32, output
 * 16 bytes past a line): Latin lipsum 14.4-14.6 -> 15.2-15.3 GB/s; from
 * the first block of every run instead, German and Esperanto text (runs of
 * one to three blocks between accented letters) ran 2-4 % slower.  UTF-16
 * output (two bytes per byte) ran 3 % slower with it, so it has none. */
#define UTF32_RUN_PREFETCH_AFTER 4
#define UTF32_RUN_PREFETCH_AHEAD 512

/* After a block of ASCII, while the next ones are ASCII too: a run of ASCII
 * is bound by its stores (2 or 4 bytes per byte read), and a 64-byte store
 * that straddles two cache lines costs about two.  So when the next block
 * is ASCII as well, first the few characters that bring the output to a
 * 64-byte boundary are written (one masked store inside a line), and then
 * whole blocks with aligned stores.  (When dst is not aligned to the unit,
 * nor is any output, and the run goes on unaligned.)  Returns where the run
 * ends. */
static inline size_t put_ascii_run(const uint8_t *src, size_t len, size_t i, uint8_t **out,
                                   int big_endian, int utf16)
{
    const unsigned unit = utf16 ? 2 : 4;
    unsigned misalign = (unsigned)((uintptr_t)*out & 63);
    if (len - i < 64 || misalign % unit != 0)
        return i;
    __m512i block = _mm512_loadu_si512((const void *)(src + i));
    if (_mm512_movepi8_mask(block) != 0)
        return i;
    if (misalign != 0) {
        unsigned characters = (64 - misalign) / unit; /* at most 32 (UTF-16) or 16 */
        if (utf16) {
            __m512i units = _mm512_cvtepu8_epi16(_mm512_castsi512_si256(block));
            if (big_endian)
                units = swap_16(units);
            _mm512_mask_storeu_epi16(*out, first_lanes_32(characters), units);
        } else {
            __m512i units = _mm512_cvtepu8_epi32(_mm512_castsi512_si128(block));
            if (big_endian)
                units = swap_32(units);
            _mm512_mask_storeu_epi32(*out, first_lanes_16(characters), units);
        }
        *out += unit * characters;
        i += characters;
    }
    for (unsigned blocks = 0; len - i >= 64; blocks++) {
        block = _mm512_loadu_si512((const void *)(src + i));
        if (_mm512_movepi8_mask(block) != 0)
            break;
        if (!utf16 && blocks >= UTF32_RUN_PREFETCH_AFTER)
            for (unsigned line = 0; line < 4; line++)
                _mm_prefetch((const char *)*out + UTF32_RUN_PREFETCH_AHEAD + 64 * line, _MM_HINT_T0);
        *out = put_ascii(*out, block, big_endian, utf16);
        i += 64;
    }
    return i;
}

/* UTF-8 to UTF-16 (utf16 = 1) or UTF-32, 64 input bytes per step.  (Inlined
 * into each caller, so that the byte order and the form are constants.) */
static inline __attribute__((always_inline)) size_t
utf8_to_units(const uint8_t *src, size_t len, int big_endian, uint8_t *dst, size_t *written,
              int utf16)
{
    size_t i = 0;
    uint8_t *out = dst;
    const __m512i byte_index = byte_index_vector();
    const second_byte_ranges ranges = second_byte_ranges_table();
    while (len - i >= 64) {
        __m512i block = _mm512_loadu_si512((const void *)(src + i));
        uint64_t non_ascii = (uint64_t)_mm512_movepi8_mask(block);
        if (non_ascii == 0) { /* 64 characters of one byte each */
            out = put_ascii(out, block, big_endian, utf16);
            i += 64;
            i = put_ascii_run(src, len, i, &out, big_endian, utf16);
            continue;
        }
        size_t consumed;
        uint64_t continuation = (uint64_t)_mm512_cmplt_epi8_mask(block, _mm512_set1_epi8(-64));
        /* bytes 0..47: a lead byte, then two continuation bytes, 16 times */
        if ((continuation & 0xFFFFFFFFFFFFull) == THREE_BYTE_RUN) {
            __m512i code_point;
            if (decode_3_byte_run(block, &code_point) == 0xFFFF) {
                if (utf16) {
                    __m256i units = _mm512_cvtepi32_epi16(code_point);
                    if (big_endian)
                        units = swap_16_half(units);
                    _mm256_storeu_si256((__m256i *)out, units);
                    out += 32;
                } else {
                    if (big_endian)
                        code_point = swap_32(code_point);
                    _mm512_storeu_si512((void *)out, code_point);
                    out += 64;
                }
                i += 48;
                continue;
            }
        }
        if (utf16) {
            size_t two_byte_block = put_two_byte_block(&out, block, non_ascii, continuation,
                                                       src[i + 63], big_endian);
            if (two_byte_block != 0) {
                i += two_byte_block;
                continue;
            }
        }
        uint64_t bit_5 = byte_bit(block, 2);
        if (bmp_stride_is_well_formed(block, non_ascii, continuation, bit_5)) {
            consumed = bmp_stride(src + i);
            out = put_bmp_block(out, block, continuation, consumed, big_endian, utf16, byte_index);
            i += consumed;
            continue;
        }
        uint64_t taken = whole_characters(~continuation, &consumed);
        uint64_t four_bytes;
        uint64_t ill_formed = ill_formed_bytes(block, continuation, taken, consumed, byte_index,
                                               &four_bytes, &ranges);
        if (ill_formed != 0) {
            /* The first flagged byte is where a character breaks: a byte
             * the one before it expected as continuation, a continuation
             * byte where none was expected, or a lead whose second byte is
             * out of range.  Every character that starts before the last
             * lead (of those taken) before it is whole and well-formed;
             * convert those, and leave the rest to the scalar reader. */
            uint64_t before = taken & ((1ull << __builtin_ctzll(ill_formed)) - 1);
            if (before == 0)
                break;
            consumed = (size_t)(63 - __builtin_clzll(before));
            if (consumed == 0)
                break;
            taken &= (1ull << consumed) - 1;
            four_bytes &= taken;
            ill_formed = ~0ull; /* stop after this block */
        }
        i += consumed;
        if (four_bytes == 0) { /* every character in the BMP */
            out = put_bmp_block(out, block, continuation, consumed, big_endian, utf16, byte_index);
            if (ill_formed != 0)
                break;
            continue;
        }
        unsigned characters = (unsigned)__builtin_popcountll(taken);
        __m512i leads = _mm512_maskz_compress_epi8(taken, byte_index);
        for (unsigned done = 0; done < characters; done += 16) {
            unsigned lanes = characters - done < 16 ? characters - done : 16;
            __m512i code_point = decode_16(block, leads);
            out = utf16 ? put_utf16(out, code_point, lanes, big_endian)
                        : put_utf32(out, code_point, lanes, big_endian);
            leads = _mm512_alignr_epi32(_mm512_setzero_si512(), leads, 4);
        }
        if (ill_formed != 0)
            break;
    }
    *written = (size_t)(out - dst);
    return i;
}

size_t utfkit_utf8_to_utf16_avx512(const uint8_t *src, size_t len, int big_endian, uint8_t *dst,
                                   size_t *written)
{
    return big_endian ? utf8_to_units(src, len, 1, dst, written, 1)
                      : utf8_to_units(src, len, 0, dst, written, 1);
}

size_t utfkit_utf8_to_utf32_avx512(const uint8_t *src, size_t len, int big_endian, uint8_t *dst,
                                   size_t *written)
{
    return big_endian ? utf8_to_units(src, len, 1, dst, written, 0)
                      : utf8_to_units(src, len, 0, dst, written, 0);
}

/* ---- code points -> UTF-8 ---- */

/* Table 3-6 takes a scalar value's bits from 18, 12, 6 and 0 up, one field
 * per byte: 11110uuu 10uuzzzz 10yyyyyy 10xxxxxx, the shorter forms using
 * the last one to three fields.  VPMULTISHIFTQB copies into bytes 0..3 of
 * each 32-bit lane the 8 bits that start at those positions of the lane's
 * value (these bit offsets, and the same plus 32 for the upper lane of each
 * 64-bit group).  A byte mask per lane then keeps each length's payload:
 * 7F (1 byte: the last field), 1F 3F (2), 0F 3F 3F (3), 07 3F 3F 3F (4),
 * and the marker bits are the mask's complement shifted left by one within
 * each byte: 3F gives 80, 1F C0, 0F E0, 07 F0, 7F 00. */
#define UTF8_FIELD_OFFSETS 0x20262C3200060C12ll
#define UTF8_KEEP_1 0x7F000000
#define UTF8_KEEP_2 0x3F1F0000
#define UTF8_KEEP_3 0x3F3F0F00
#define UTF8_KEEP_4 0x3F3F3F07

/* The UTF-8 bytes of each lane (in bytes 0..3, lead first) whose payload
 * mask is `keep` (UTF8_KEEP_n per lane, 0 in a lane not written). */
static inline __m512i utf8_lanes(__m512i code_point, __m512i keep)
{
    __m512i fields = _mm512_multishift_epi64_epi8(_mm512_set1_epi64(UTF8_FIELD_OFFSETS), code_point);
    __m512i marker = _mm512_sub_epi8(_mm512_set1_epi8((char)0xFE), _mm512_add_epi8(keep, keep));
    return _mm512_ternarylogic_epi32(fields, keep, marker, 0xEA); /* (A & B) | C */
}

/* Writes the UTF-8 of the scalar values in the lanes `used` (Table 3-6),
 * given the lanes of `used` at or above 0080 (`two`), 0800 (`three`) and
 * 10000 (`four`): each lane encoded in place, then VPCOMPRESSB keeps the
 * bytes that count.  One whole-vector store: at most 64 bytes for the 16
 * units (64 bytes) read, so within the room the caller has (kernels.h);
 * put_utf8_last_lanes stores only the bytes that count, for the units
 * after the last whole vector. */
static inline uint8_t *put_utf8_lanes(uint8_t *out, __m512i code_point, __mmask16 used,
                                      __mmask16 two, __mmask16 three, __mmask16 four)
{
    __m512i keep = _mm512_maskz_mov_epi32(used, _mm512_set1_epi32(UTF8_KEEP_1));
    keep = _mm512_mask_mov_epi32(keep, two, _mm512_set1_epi32(UTF8_KEEP_2));
    keep = _mm512_mask_mov_epi32(keep, three, _mm512_set1_epi32(UTF8_KEEP_3));
    keep = _mm512_mask_mov_epi32(keep, four, _mm512_set1_epi32(UTF8_KEEP_4));
    __mmask64 kept = _mm512_test_epi8_mask(keep, keep);
    _mm512_storeu_si512((void *)out, _mm512_maskz_compress_epi8(kept, utf8_lanes(code_point, keep)));
    return out + __builtin_popcountll(kept);
}

static inline uint8_t *put_utf8_last_lanes(uint8_t *out, __m512i code_point, __mmask16 used)
{
    __m512i keep = _mm512_maskz_mov_epi32(used, _mm512_set1_epi32(UTF8_KEEP_1));
    keep = _mm512_mask_mov_epi32(keep, _mm512_mask_cmpge_epu32_mask(used, code_point, _mm512_set1_epi32(0x80)),
                                 _mm512_set1_epi32(UTF8_KEEP_2));
    keep = _mm512_mask_mov_epi32(keep, _mm512_mask_cmpge_epu32_mask(used, code_point, _mm512_set1_epi32(0x800)),
                                 _mm512_set1_epi32(UTF8_KEEP_3));
    keep = _mm512_mask_mov_epi32(keep, _mm512_mask_cmpge_epu32_mask(used, code_point, _mm512_set1_epi32(0x10000)),
                                 _mm512_set1_epi32(UTF8_KEEP_4));
    __mmask64 kept = _mm512_test_epi8_mask(keep, keep);
    unsigned count = (unsigned)__builtin_popcountll(kept);
    _mm512_mask_storeu_epi8(out, first_lanes_64(count),
                            _mm512_maskz_compress_epi8(kept, utf8_lanes(code_point, keep)));
    return out + count;
}

/* put_utf8_lanes for any scalar values. */
static inline uint8_t *put_utf8_any(uint8_t *out, __m512i code_point, __mmask16 used)
{
    return put_utf8_lanes(out, code_point, used,
                          _mm512_mask_cmpge_epu32_mask(used, code_point, _mm512_set1_epi32(0x80)),
                          _mm512_mask_cmpge_epu32_mask(used, code_point, _mm512_set1_epi32(0x800)),
                          _mm512_mask_cmpge_epu32_mask(used, code_point, _mm512_set1_epi32(0x10000)));
}

/* Writes 16 scalar values 0800..FFFF, 3 bytes each: the bytes 1..3 of
 * each lane, gathered by a fixed VPERMB (no compression). */
static inline uint8_t *put_utf8_three_bytes(uint8_t *out, __m512i code_point)
{
    const __m512i gather = _mm512_set_epi8(
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        63, 62, 61, 59, 58, 57, 55, 54, 53, 51, 50, 49, 47, 46, 45, 43,
        42, 41, 39, 38, 37, 35, 34, 33, 31, 30, 29, 27, 26, 25, 23, 22,
        21, 19, 18, 17, 15, 14, 13, 11, 10, 9, 7, 6, 5, 3, 2, 1);
    __m512i bytes = utf8_lanes(code_point, _mm512_set1_epi32(UTF8_KEEP_3));
    _mm512_storeu_si512((void *)out, _mm512_permutexvar_epi8(gather, bytes));
    return out + 48;
}

/* Writes 32 16-bit units below 0800 as UTF-8 (Table 3-6: 0xxxxxxx, or
 * 110yyyyy 10xxxxxx), each unit's bytes lead first in its lane; VPCOMPRESSB
 * keeps every lane's first byte and the second of the 2-byte ones. */
static inline uint8_t *put_utf8_below_800(uint8_t *out, __m512i units)
{
    __mmask32 longer = _mm512_test_epi16_mask(units, _mm512_set1_epi16((short)0xFF80));
    __m512i two = _mm512_or_si512(
        _mm512_or_si512(_mm512_srli_epi16(units, 6),
                        _mm512_slli_epi16(_mm512_and_si512(units, _mm512_set1_epi16(0x3F)), 8)),
        _mm512_set1_epi16((short)0x80C0));
    __m512i bytes = _mm512_mask_mov_epi16(units, longer, two);
    __mmask64 kept = 0x5555555555555555ull | _pdep_u64(longer, 0xAAAAAAAAAAAAAAAAull);
    unsigned count = (unsigned)__builtin_popcountll(kept);
    _mm512_mask_storeu_epi8(out, first_lanes_64(count), _mm512_maskz_compress_epi8(kept, bytes));
    return out + count;
}

/* ---- UTF-16 -> UTF-8 of the BMP, any mix of lengths ----
 *
 * Text in most scripts mixes characters of 1, 2 and 3 bytes (Table 3-6)
 * from one unit to the next: Cyrillic or Arabic with ASCII spaces and
 * markup, Hindi or Korean with ASCII spaces.  One step writes 16 such
 * units without a branch on their lengths: VPERMB spreads them to the low
 * halves of 32-bit lanes (in either byte order; the high halves are left
 * as they come, as nothing below reads them), VPMULTISHIFTQB copies each
 * unit's 6-bit fields into its lane's bytes (UTF8_FIELD_OFFSETS: the
 * fields a 3-byte character keeps are bits 0..15), and the unit's length
 * comes from min(u >> 7, 16), in 16-bit lanes: 0 for 0000..007F, 1..15
 * for 0080..07FF, 16 for 0800..FFFF, which picks the lane's payload mask
 * UTF8_KEEP_n from a table of 17 (VPERMT2D, over two vectors, reads only
 * the index's low 5 bits).  VPCOMPRESSB then keeps each lane's bytes that
 * count. */
static inline __m512i utf8_keep_1_2(void) /* entries 0..15 */
{
    return _mm512_setr_epi32(UTF8_KEEP_1, UTF8_KEEP_2, UTF8_KEEP_2, UTF8_KEEP_2, UTF8_KEEP_2,
                             UTF8_KEEP_2, UTF8_KEEP_2, UTF8_KEEP_2, UTF8_KEEP_2, UTF8_KEEP_2,
                             UTF8_KEEP_2, UTF8_KEEP_2, UTF8_KEEP_2, UTF8_KEEP_2, UTF8_KEEP_2,
                             UTF8_KEEP_2);
}

/* VPERMB indexes that put UTF-16 unit `first` + k of a 64-byte vector in
 * the low half of 32-bit lane k and the unit after it in the high half
 * (unit 32, past the vector, is unit 0 again), low byte first (in either
 * byte order). */
#define UNIT_BYTES(k) (2 * (k) | (2 * (k) + 1) << 8 | (2 * (k) + 2) << 16 | (2 * (k) + 3) << 24)
static inline __m512i spread_units(int first, int big_endian)
{
    __m512i index = _mm512_setr_epi32(UNIT_BYTES(0), UNIT_BYTES(1), UNIT_BYTES(2), UNIT_BYTES(3),
                                      UNIT_BYTES(4), UNIT_BYTES(5), UNIT_BYTES(6), UNIT_BYTES(7),
                                      UNIT_BYTES(8), UNIT_BYTES(9), UNIT_BYTES(10), UNIT_BYTES(11),
                                      UNIT_BYTES(12), UNIT_BYTES(13), UNIT_BYTES(14), UNIT_BYTES(15));
    if (big_endian)
        index = swap_16(index);
    return _mm512_add_epi8(index, _mm512_set1_epi8((char)(2 * first)));
}

/* A value the compiler must keep in a register: built once before a loop,
 * not again at each use inside it (GCC otherwise broadcasts constants
 * from general registers in the loop, on the shuffle port). */
static inline __m512i held(__m512i v)
{
    __asm__("" : "+v"(v));
    return v;
}

/* The constants of put_utf8_bmp_lanes, held in registers by its caller. */
typedef struct bmp_lane_constants {
    __m512i field_offsets, sixteen, keep_1_2, keep_3, marker_base;
} bmp_lane_constants;

static inline bmp_lane_constants bmp_lane_constants_held(void)
{
    bmp_lane_constants c;
    c.field_offsets = held(_mm512_set1_epi64(UTF8_FIELD_OFFSETS));
    c.sixteen = held(_mm512_set1_epi16(16));
    c.keep_1_2 = held(utf8_keep_1_2());
    c.keep_3 = held(_mm512_set1_epi32(UTF8_KEEP_3));
    c.marker_base = held(_mm512_set1_epi8((char)0xFE));
    return c;
}

/* The bytes `keep` selects of each lane's code point (its UTF-8 lead
 * first, with the marker bits of Table 3-6), compressed to `out`: one
 * whole-vector store (`whole`: within the caller's room, kernels.h), else
 * only the bytes that count. */
static inline uint8_t *put_kept_lanes(uint8_t *out, __m512i lanes, __m512i keep, int whole,
                                      const bmp_lane_constants *c)
{
    __mmask64 kept = _mm512_test_epi8_mask(keep, keep);
    __m512i fields = _mm512_multishift_epi64_epi8(c->field_offsets, lanes);
    __m512i marker = _mm512_sub_epi8(c->marker_base, _mm512_add_epi8(keep, keep));
    __m512i bytes = _mm512_maskz_compress_epi8(
        kept, _mm512_ternarylogic_epi32(fields, keep, marker, 0xEA)); /* (A & B) | C */
    unsigned count = (unsigned)__builtin_popcountll(kept);
    if (whole)
        _mm512_storeu_si512((void *)out, bytes);
    else
        _mm512_mask_storeu_epi8(out, first_lanes_64(count), bytes);
    return out + count;
}

/* Writes the UTF-8 of 16 units of the BMP that are no surrogate, each in
 * the low half of a 32-bit lane (put_kept_lanes).  As utf8_lanes: the
 * marker bits of each kept byte are FE - 2 * its mask. */
static inline uint8_t *put_utf8_bmp_lanes(uint8_t *out, __m512i lanes, int whole,
                                          const bmp_lane_constants *c)
{
    __m512i length = _mm512_min_epu16(_mm512_srli_epi16(lanes, 7), c->sixteen);
    __m512i keep = _mm512_permutex2var_epi32(c->keep_1_2, length, c->keep_3);
    return put_kept_lanes(out, lanes, keep, whole, c);
}

/* put_utf8_bmp_lanes for 16 units of which `lead` are lead surrogates
 * whose trails follow among the units `used`, and `trail` those trails:
 * a lead's lane holds its trail in the high half (spread_units), from
 * which it takes the code point 10000 + (lead & 3FF) * 400 + (trail & 3FF)
 * (Table 3-5) and its 4 bytes (Table 3-6); a trail's lane, and a lane not
 * used, keeps no byte. */
static inline uint8_t *put_utf8_paired_lanes(uint8_t *out, __m512i lanes, __mmask16 used,
                                             __mmask16 lead, __mmask16 trail, int whole,
                                             const bmp_lane_constants *c)
{
    __m512i length = _mm512_min_epu16(_mm512_srli_epi16(lanes, 7), c->sixteen);
    __m512i keep = _mm512_permutex2var_epi32(c->keep_1_2, length, c->keep_3);
    keep = _mm512_mask_mov_epi32(keep, lead, _mm512_set1_epi32(UTF8_KEEP_4));
    keep = _mm512_maskz_mov_epi32(used & (__mmask16)~trail, keep);
    __m512i code_point = _mm512_ternarylogic_epi32(_mm512_slli_epi32(lanes, 10), _mm512_srli_epi32(lanes, 16),
                                                   _mm512_set1_epi32(0xFFC00), 0xE4); /* C ? A : B */
    lanes = _mm512_mask_add_epi32(lanes, lead, code_point, _mm512_set1_epi32(0x10000));
    return put_kept_lanes(out, lanes, keep, whole, c);
}

/* Writes the UTF-8 of 32 units below 0800 (Table 3-6: 0xxxxxxx, or
 * 110yyyyy 10xxxxxx), each unit's bytes lead first in its 16-bit lane:
 * VPCOMPRESSB keeps every lane's first byte and the second where it is
 * not zero (only a 2-byte character has one).  One whole-vector store: at
 * most 64 bytes for the 64 read, within the caller's room (kernels.h). */
static inline uint8_t *put_utf8_two_byte_units(uint8_t *out, __m512i units, __m512i six_bits_high,
                                               __m512i two_byte_markers, __m512i second_bytes)
{
    __mmask32 longer = _mm512_cmpge_epu16_mask(units, _mm512_set1_epi16(0x80));
    /* (u >> 6) | (u << 8 & 3F00), then the markers 80C0 */
    __m512i two = _mm512_ternarylogic_epi32(_mm512_srli_epi16(units, 6), _mm512_slli_epi16(units, 8),
                                            six_bits_high, 0xF8); /* A | (B & C) */
    __m512i bytes = _mm512_mask_add_epi16(units, longer, two, two_byte_markers);
    /* the first byte of each lane is at least 00, the second at least 01 */
    __mmask64 kept = _mm512_cmpge_epu8_mask(bytes, second_bytes);
    _mm512_storeu_si512((void *)out, _mm512_maskz_compress_epi8(kept, bytes));
    return out + __builtin_popcountll(kept);
}

/* Writes 16 surrogate pairs, each a lead in a 32-bit lane's low half and
 * its trail in the high half, as 16 characters of 4 bytes: the code point
 * 10000 + (lead & 3FF) * 400 + (trail & 3FF) (Table 3-5), then its UTF-8
 * (Table 3-6).  64 bytes for the 64 read: no compression, one store. */
static inline uint8_t *put_utf8_pairs(uint8_t *out, __m512i pairs)
{
    __m512i code_point = _mm512_ternarylogic_epi32(_mm512_slli_epi32(pairs, 10), _mm512_srli_epi32(pairs, 16),
                                                   _mm512_set1_epi32(0xFFC00), 0xE4); /* C ? A : B */
    code_point = _mm512_add_epi32(code_point, _mm512_set1_epi32(0x10000));
    _mm512_storeu_si512((void *)out, utf8_lanes(code_point, _mm512_set1_epi32(UTF8_KEEP_4)));
    return out + 64;
}

/* A run of ASCII is taken 64 units at a time once ASCII_WINDOW bytes
 * of it are ahead. */
#define ASCII_WINDOW 128

/* a | b, and with nul_stops each unit 0000 of a or b as FFFF: 0000 (U+0000,
 * which MUTF-8 writes as C0 80, JVM spec section 4.4.7) is the one unit
 * whose value less 1 has bits a smaller unit lacks, so min(a, b) - 1 ORed
 * in makes it fail a test for units above 007F and changes nothing for
 * the others.  `borrow` subtracts 1 from a unit in the source byte order:
 * FFFF, or FF00 (the low byte of a big-endian unit; the carry out of its
 * lane is lost, which the test for 007F does not mind). */
static inline __m512i units_or_nul(__m512i a, __m512i b, int nul_stops, __m512i borrow)
{
    if (!nul_stops)
        return _mm512_or_si512(a, b);
    return _mm512_ternarylogic_epi32(a, b, _mm512_add_epi16(_mm512_min_epu16(a, b), borrow),
                                     0xFE); /* A | B | C */
}

/* 1 if the ASCII_WINDOW bytes at src are ASCII UTF-16 units (`bits`: the
 * bits of a unit above 007F, in the source byte order). */
static inline int ascii_units(const uint8_t *src, __m512i bits)
{
    __m512i any = _mm512_or_si512(_mm512_loadu_si512((const void *)src),
                                  _mm512_loadu_si512((const void *)(src + 64)));
    if (ASCII_WINDOW == 256)
        any = _mm512_ternarylogic_epi32(any, _mm512_loadu_si512((const void *)(src + 128)),
                                        _mm512_loadu_si512((const void *)(src + 192)), 0xFE); /* A | B | C */
    return _mm512_test_epi16_mask(any, bits) == 0;
}

/* A step stores whole vectors while 76 bytes of input are left: its two
 * stores reach 112 bytes past out (the first 16 units give at most 48),
 * within the worst case of 38 units, 114 bytes (Table 3-6: 3 per unit). */
#define UTF16_WHOLE_STORES 76

/* UTF-16 -> UTF-8, 32 units (64 bytes) per step: runs of ASCII 64 units
 * at a time (ascii_units); 32 units below 0800 by put_utf8_two_byte_units;
 * 32 units of the BMP with no surrogate, whatever their lengths, by
 * put_utf8_bmp_lanes; 16 surrogate pairs in a row by put_utf8_pairs; the
 * rest, BMP and pairs mixed, by put_utf8_paired_lanes, up to the first
 * unit out of place (D91).
 * The same loop writes CESU-8 (UTR #26 section 2) with `bmp_only`: it then
 * stops at the first surrogate, whose 3-byte sequences the scalar reader
 * writes; and MUTF-8 (JVM spec section 4.4.7) with `nul_stops` as well: it
 * also stops at 0000, which the scalar reader writes as C0 80.  The units
 * before such a stop are the BMP characters UTF-8 writes as these forms do;
 * the tests for them fold into those each step makes anyway.  (Always
 * inlined: each caller's constant `big_endian`, `bmp_only` and `nul_stops`
 * then take their branches out of the loop.) */
static inline __attribute__((always_inline)) size_t utf16_to_utf8(const uint8_t *src, size_t len,
                                                                  int big_endian, uint8_t *dst,
                                                                  size_t *written, int bmp_only,
                                                                  int nul_stops)
{
    size_t i = 0;
    uint8_t *out = dst;
    const __m512i in_order = _mm512_set_epi64(7, 5, 3, 1, 6, 4, 2, 0);
    const __m512i first_half = held(spread_units(0, big_endian));
    const __m512i second_half = held(spread_units(16, big_endian));
    const bmp_lane_constants constants = bmp_lane_constants_held();
    /* D800..DFFF, in the source byte order */
    const __m512i surrogate_bits = held(_mm512_set1_epi16(big_endian ? 0x00F8 : (short)0xF800));
    const __m512i surrogate_value = held(_mm512_set1_epi16(big_endian ? 0x00D8 : (short)0xD800));
    const __m512i six_bits_high = held(_mm512_set1_epi16(0x3F00));
    const __m512i two_byte_markers = held(_mm512_set1_epi16((short)0x80C0));
    const __m512i second_bytes = held(_mm512_set1_epi16(0x0100));
    const __m512i ascii_bits = held(_mm512_set1_epi16(big_endian ? (short)0x80FF : (short)0xFF80));
    const __m512i nul_borrow = _mm512_set1_epi16(big_endian ? (short)0xFF00 : -1);
    while (len - i >= 64) {
        if (len - i >= ASCII_WINDOW && ascii_units(src + i, ascii_bits)) {
            /* 64 ASCII units at a time, narrowed to bytes (VPACKUSWB); the
             * window test lets 0000 in, which this loop's test does not */
            do {
                __m512i a = _mm512_loadu_si512((const void *)(src + i));
                __m512i b = _mm512_loadu_si512((const void *)(src + i + 64));
                if (_mm512_test_epi16_mask(units_or_nul(a, b, nul_stops, nul_borrow), ascii_bits) != 0)
                    break;
                if (big_endian) {
                    a = _mm512_srli_epi16(a, 8);
                    b = _mm512_srli_epi16(b, 8);
                }
                _mm512_storeu_si512((void *)out, _mm512_permutexvar_epi64(in_order, _mm512_packus_epi16(a, b)));
                out += 64;
                i += 128;
            } while (len - i >= 128);
            if (len - i < 64)
                break;
        }
        __m512i raw = _mm512_loadu_si512((const void *)(src + i));
        /* 0000, in either byte order */
        __mmask32 nul = nul_stops ? _mm512_testn_epi16_mask(raw, raw) : 0;
        if ((_mm512_test_epi16_mask(raw, surrogate_bits) | nul) == 0) { /* 32 units below 0800 */
            out = put_utf8_two_byte_units(out, big_endian ? swap_16(raw) : raw, six_bits_high,
                                          two_byte_markers, second_bytes);
            i += 64;
            continue;
        }
        __mmask32 surrogate = _mm512_cmpeq_epi16_mask(_mm512_and_si512(raw, surrogate_bits), surrogate_value);
        if ((surrogate | nul) == 0) {
            int whole = len - i >= UTF16_WHOLE_STORES;
            out = put_utf8_bmp_lanes(out, _mm512_permutexvar_epi8(first_half, raw), whole,
                                     &constants);
            out = put_utf8_bmp_lanes(out, _mm512_permutexvar_epi8(second_half, raw), whole,
                                     &constants);
            i += 64;
            continue;
        }
        if (bmp_only) {
            /* the units before the first stop; the scalar reader takes it */
            unsigned taken = (unsigned)__builtin_ctz(surrogate | nul);
            __mmask32 used = first_lanes_32(taken);
            int whole = len - i >= UTF16_WHOLE_STORES;
            if (taken != 0)
                out = put_utf8_paired_lanes(out, _mm512_permutexvar_epi8(first_half, raw), (__mmask16)used,
                                            0, 0, whole, &constants);
            if (taken > 16)
                out = put_utf8_paired_lanes(out, _mm512_permutexvar_epi8(second_half, raw),
                                            (__mmask16)(used >> 16), 0, 0, whole, &constants);
            i += 2 * taken;
            break;
        }
        __m512i units = big_endian ? swap_16(raw) : raw;
        if (_mm512_cmpeq_epi32_mask(_mm512_and_si512(units, _mm512_set1_epi32((int)0xFC00FC00)),
                                    _mm512_set1_epi32((int)0xDC00D800)) == 0xFFFF) {
            out = put_utf8_pairs(out, units); /* lead, trail, lead, ... */
            i += 64;
            continue;
        }
        /* D800..DFFF: surrogates.  A lead (D800..DBFF) must be followed, and
         * a trail (DC00..DFFF) preceded, by the other (D91); a pair cut by
         * the end of the 32 units waits for the next step, and anything
         * else stops the step there, for the scalar reader. */
        unsigned taken = 32;
        __mmask32 lead = surrogate & _mm512_cmpeq_epi16_mask(
            _mm512_and_si512(units, _mm512_set1_epi16((short)0xFC00)), _mm512_set1_epi16((short)0xD800));
        __mmask32 trail = surrogate & ~lead;
        uint32_t unpaired = (lead & ~(trail >> 1)) | (trail & ~(lead << 1));
        if (unpaired)
            taken = (unsigned)__builtin_ctz(unpaired);
        if (taken == 0)
            break;
        __mmask32 used = first_lanes_32(taken);
        int whole = len - i >= UTF16_WHOLE_STORES;
        out = put_utf8_paired_lanes(out, _mm512_permutexvar_epi8(first_half, raw), (__mmask16)used,
                                    (__mmask16)(lead & used), (__mmask16)(trail & used), whole, &constants);
        if (taken > 16)
            out = put_utf8_paired_lanes(out, _mm512_permutexvar_epi8(second_half, raw), (__mmask16)(used >> 16),
                                        (__mmask16)((lead & used) >> 16), (__mmask16)((trail & used) >> 16),
                                        whole, &constants);
        i += 2 * taken;
    }
    *written = (size_t)(out - dst);
    return i;
}

/* Defines the block `name` (kernels.h) as `body` with the stops of its
 * form, instantiated for each byte order.  (UTF-32 has no such blocks
 * here: compiled from one source with them, UTF-32 -> UTF-8 itself got
 * another block order and ran 5-15 % slower on russian and french, while
 * its output cut at 00 and F0..FF already ran CESU-8 and MUTF-8 at 0.82
 * or more of UTF-8's speed.) */
#define TO_UTF8_BLOCK(name, body, bmp_only, nul_stops)                                            \
    size_t name(const uint8_t *src, size_t len, int big_endian, uint8_t *dst, size_t *written)    \
    {                                                                                              \
        return big_endian ? body(src, len, 1, dst, written, bmp_only, nul_stops)                   \
                          : body(src, len, 0, dst, written, bmp_only, nul_stops);                  \
    }

TO_UTF8_BLOCK(utfkit_utf16_to_utf8_avx512, utf16_to_utf8, 0, 0)
TO_UTF8_BLOCK(utfkit_utf16_to_cesu8_avx512, utf16_to_utf8, 1, 0)
TO_UTF8_BLOCK(utfkit_utf16_to_mutf8_avx512, utf16_to_utf8, 1, 1)

/* The lanes of 16 UTF-32 units that are not scalar values (D90: the
 * surrogates D800..DFFF and the units above 10FFFF). */
static inline __mmask16 not_scalar_values(__m512i units)
{
    return _mm512_cmpgt_epu32_mask(units, _mm512_set1_epi32(0x10FFFF)) |
           _mm512_cmpeq_epi32_mask(_mm512_and_si512(units, _mm512_set1_epi32((int)0xFFFFF800)),
                                   _mm512_set1_epi32(0xD800));
}

/* How many units, from the start of src, bring it to a 64-byte boundary
 * (0 if src is not 4-byte aligned: then no unit boundary is one). */
static inline unsigned units_to_alignment(const uint8_t *src)
{
    uintptr_t address = (uintptr_t)src;
    return (address & 3) != 0 ? 0 : (unsigned)((64 - (address & 63)) & 63) / 4;
}

/* UTF-32 -> UTF-8, 16 units (one 64-byte line of src) per step.  A first
 * partial step brings src to a 64-byte boundary, so that no later load
 * spans two cache lines; the steps advance by a constant 64 bytes, so that
 * the next load never waits for this one's units, and the first unit that
 * is not a scalar value ends the loop.  Runs of ASCII go 64 units per
 * step (VPACKUSDW, VPACKUSWB), runs below 0800 32 (VPACKUSDW, then
 * put_utf8_below_800), runs of 0800..FFFF (Chinese, Japanese) 16 without
 * compression; any other mix is encoded lane by lane (put_utf8_lanes). */
static inline size_t utf32_to_utf8(const uint8_t *src, size_t len, int big_endian, uint8_t *dst,
                                   size_t *written)
{
    size_t i = 0;
    uint8_t *out = dst;
    const __m512i in_order = _mm512_set_epi64(7, 5, 3, 1, 6, 4, 2, 0);
    /* VPACKUSDW then VPACKUSWB work per 128-bit lane: lane k holds four
     * units of each of the four sources, which this puts back in order */
    const __m512i ascii_order = _mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0);
    unsigned head = units_to_alignment(src);
    if (head != 0 && len >= 64) {
        __m512i units = _mm512_loadu_si512((const void *)src);
        if (big_endian)
            units = swap_32(units);
        __mmask16 invalid = not_scalar_values(units) | (__mmask16)~first_lanes_16(head);
        unsigned taken = (unsigned)__builtin_ctz(invalid);
        out = put_utf8_any(out, units, first_lanes_16(taken));
        i = 4 * (size_t)taken;
        if (taken < head) { /* the scalar reader takes the unit at i */
            *written = (size_t)(out - dst);
            return i;
        }
    }
    while (len - i >= 64) {
        __m512i units = _mm512_loadu_si512((const void *)(src + i));
        if (big_endian)
            units = swap_32(units);
        __mmask16 two = _mm512_test_epi32_mask(units, _mm512_set1_epi32((int)0xFFFFFF80));
        if (two == 0) {
            /* ASCII: one byte per unit, then 64 units per step while it lasts */
            _mm_storeu_si128((__m128i *)out, _mm512_cvtepi32_epi8(units));
            out += 16;
            i += 64;
            while (len - i >= 256) {
                __m512i a = _mm512_loadu_si512((const void *)(src + i));
                __m512i b = _mm512_loadu_si512((const void *)(src + i + 64));
                __m512i c = _mm512_loadu_si512((const void *)(src + i + 128));
                __m512i d = _mm512_loadu_si512((const void *)(src + i + 192));
                __m512i any = _mm512_or_si512(_mm512_or_si512(a, b), _mm512_or_si512(c, d));
                if (_mm512_test_epi32_mask(any, _mm512_set1_epi32(big_endian ? (int)0x80FFFFFF : (int)0xFFFFFF80)) != 0)
                    break;
                if (big_endian) {
                    a = _mm512_srli_epi32(a, 24);
                    b = _mm512_srli_epi32(b, 24);
                    c = _mm512_srli_epi32(c, 24);
                    d = _mm512_srli_epi32(d, 24);
                }
                __m512i bytes = _mm512_packus_epi16(_mm512_packus_epi32(a, b), _mm512_packus_epi32(c, d));
                _mm512_storeu_si512((void *)out, _mm512_permutexvar_epi32(ascii_order, bytes));
                out += 64;
                i += 256;
            }
            continue;
        }
        __mmask16 three = _mm512_test_epi32_mask(units, _mm512_set1_epi32((int)0xFFFFF800));
        if (three == 0) {
            /* below 0800: with the next 16 units if they are too */
            if (len - i >= 128) {
                __m512i next = _mm512_loadu_si512((const void *)(src + i + 64));
                if (big_endian)
                    next = swap_32(next);
                if (_mm512_test_epi32_mask(next, _mm512_set1_epi32((int)0xFFFFF800)) == 0) {
                    out = put_utf8_below_800(out, _mm512_permutexvar_epi64(in_order, _mm512_packus_epi32(units, next)));
                    i += 128;
                    continue;
                }
            }
            out = put_utf8_lanes(out, units, 0xFFFF, two, 0, 0);
            i += 64;
            continue;
        }
        __mmask16 four = _mm512_test_epi32_mask(units, _mm512_set1_epi32((int)0xFFFF0000));
        __mmask16 surrogate = _mm512_cmpeq_epi32_mask(_mm512_and_si512(units, _mm512_set1_epi32((int)0xFFFFF800)),
                                                      _mm512_set1_epi32(0xD800));
        if ((four | surrogate) == 0) {
            if (three == 0xFFFF)
                out = put_utf8_three_bytes(out, units);
            else
                out = put_utf8_lanes(out, units, 0xFFFF, two, three, 0);
            i += 64;
            continue;
        }
        __mmask16 invalid = surrogate | _mm512_cmpgt_epu32_mask(units, _mm512_set1_epi32(0x10FFFF));
        if (invalid != 0) {
            unsigned taken = (unsigned)__builtin_ctz(invalid);
            out = put_utf8_any(out, units, first_lanes_16(taken));
            *written = (size_t)(out - dst);
            return i + 4 * (size_t)taken;
        }
        out = put_utf8_lanes(out, units, 0xFFFF, two, three, four);
        i += 64;
    }
    /* the whole units after the last whole vector: a masked load, and a
     * store of only the bytes they give */
    unsigned last = (unsigned)(len - i) / 4;
    if (last != 0) {
        __m512i units = _mm512_maskz_loadu_epi32(first_lanes_16(last), (const void *)(src + i));
        if (big_endian)
            units = swap_32(units);
        __mmask16 invalid = not_scalar_values(units) | (__mmask16)~first_lanes_16(last);
        unsigned taken = (unsigned)__builtin_ctz(invalid);
        out = put_utf8_last_lanes(out, units, first_lanes_16(taken));
        i += 4 * (size_t)taken;
    }
    *written = (size_t)(out - dst);
    return i;
}

size_t utfkit_utf32_to_utf8_avx512(const uint8_t *src, size_t len, int big_endian, uint8_t *dst,
                                   size_t *written)
{
    return big_endian ? utf32_to_utf8(src, len, 1, dst, written)
                      : utf32_to_utf8(src, len, 0, dst, written);
}

/* ---- UTF-16 <-> UTF-32 ----
 *
 * `byte_orders` is the source's byte order (1: big-endian) in bit 0 and
 * the target's in bit 1 (kernels.h). */

/* UTF-16 -> UTF-32 of the units `used` of 32 (64 bytes): each unit
 * zero-extended to a 32-bit lane, and at each lead surrogate (`lead`)
 * followed by a trail surrogate (`trail`) the code point of the pair,
 * 10000 + (lead - D800) * 400 + (trail - DC00) (Table 3-5), with the
 * trail's lane then compressed out.  A lead among `used` has its trail
 * among them.  Whole-vector stores: at most 128 bytes for the 64 read,
 * within the caller's room (kernels.h). */
static inline uint8_t *put_utf32_from_utf16(uint8_t *out, __m512i units, __mmask32 used,
                                            __mmask32 lead, __mmask32 trail, int big_endian)
{
    /* unit k + 1 in lane k (VPERMW), for the trail after each lead */
    const __m512i next_unit = _mm512_set_epi16(31, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17,
                                               16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1);
    /* The pair's code point in the lead's lane: bits 0..15 are the lead's
     * low 6 bits, then the trail's low 10; bits 16..20 the lead's bits
     * 6..9 plus 1. */
    __m512i following = _mm512_permutexvar_epi16(next_unit, units);
    __m512i low = _mm512_mask_mov_epi16(
        units, lead,
        _mm512_ternarylogic_epi32(_mm512_slli_epi16(units, 10), following, _mm512_set1_epi16(0x3FF),
                                  0xF8)); /* A | (B & C) */
    __m512i top = _mm512_maskz_add_epi16(
        lead, _mm512_and_si512(_mm512_srli_epi16(units, 6), _mm512_set1_epi16(0xF)), _mm512_set1_epi16(1));
    __mmask32 kept = used & ~trail;
    low = _mm512_maskz_compress_epi16(kept, low);
    top = _mm512_maskz_compress_epi16(kept, top);
    unsigned count = (unsigned)__builtin_popcount((uint32_t)kept);
    __m512i first = _mm512_or_si512(_mm512_cvtepu16_epi32(_mm512_castsi512_si256(low)),
                                    _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm512_castsi512_si256(top)), 16));
    if (big_endian)
        first = swap_32(first);
    _mm512_storeu_si512((void *)out, first);
    if (count > 16) {
        __m512i second = _mm512_or_si512(
            _mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(low, 1)),
            _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(top, 1)), 16));
        if (big_endian)
            second = swap_32(second);
        _mm512_storeu_si512((void *)(out + 64), second);
    }
    return out + 4 * count;
}

/* UTF-16 -> UTF-32 of a run of the BMP (one unit each way, Table 3-5),
 * reading src in aligned 64-byte windows as well as storing to aligned
 * lines.  The output runs at twice the input's pace, so once the output is
 * at a line boundary the step loop's input loads are unaligned unless src
 * and dst happen to be placed alike, and half of them then span two lines.
 * This loop is bound by the stores into L2: on the corpus' L2-sized
 * outputs, storing alone (no loads) runs 7-10 % faster than it.  With
 * split loads, prefetching the output lines ahead gained nothing; with
 * aligned ones, 5-7 % (a probe outside the repository).  Each output
 * vector's 16 units are picked from the window before them and the next
 * by one VPERMT2W, zeroing the high half of each 32-bit lane (the unit
 * widened).  Every window is tested whole
 * for surrogates before any of it is used, so the loop stops at the last
 * window boundary before one, perhaps a few units early; the step loop
 * takes over from there.  The two lines 512 bytes ahead of the output are
 * prefetched (PREFETCHT0, a hint) while the rest of the run's output, if
 * all of the BMP, still reaches them: never past the room kernels.h gives
 * (2 bytes written per byte read).  `*out` must be 64-byte aligned;
 * returns the new input position, having advanced *out. */
#define UTF32_BMP_PREFETCH_AHEAD 512

static inline __attribute__((always_inline)) size_t utf16_bmp_windows(const uint8_t *src, size_t len, size_t i,
                                                                        int byte_orders, uint8_t **out)
{
    uintptr_t start = (uintptr_t)src, at = (start + i) & ~(uintptr_t)63, end = start + len;
    if (at < start || end - at < 128 || ((start + i) & 1) != 0 || ((uintptr_t)*out & 63) != 0)
        return i;
    /* the units of the first window before src + i are converted already */
    unsigned shift = (unsigned)(start + i - at) / 2;
    const __m512i high_5 = _mm512_set1_epi16((short)0xF800), lead_bits = _mm512_set1_epi16((short)0xD800);
    /* even 16-bit lanes: units shift + 0..15 of the two windows (indexes
     * 32..63 are the second's); the odd lanes are zeroed by the mask */
    const __m512i pick_first = _mm512_add_epi16(
        _mm512_set_epi16(0, 15, 0, 14, 0, 13, 0, 12, 0, 11, 0, 10, 0, 9, 0, 8, 0, 7, 0, 6, 0, 5, 0, 4, 0, 3, 0, 2, 0, 1, 0, 0),
        _mm512_set1_epi16((short)shift));
    const __m512i pick_second = _mm512_add_epi16(pick_first, _mm512_set1_epi16(16));
    __m512i window = _mm512_load_si512((const void *)at);
    if (byte_orders & 1)
        window = swap_16(window);
    if (_mm512_cmpeq_epi16_mask(_mm512_and_si512(window, high_5), lead_bits) != 0)
        return i;
    uint8_t *o = *out;
    /* The prefetch is taken while at least this much input is left from
     * `at`: from src + at + 2 * shift (where `o` is), half the bytes
     * ahead of the two lines prefetched. */
    size_t prefetch_stop = 2 * (size_t)shift + (UTF32_BMP_PREFETCH_AHEAD + 128) / 2;
    while (end - at >= 128) {
        __m512i next = _mm512_load_si512((const void *)(at + 64));
        if (byte_orders & 1)
            next = swap_16(next);
        if (_mm512_cmpeq_epi16_mask(_mm512_and_si512(next, high_5), lead_bits) != 0)
            break;
        if (end - at >= prefetch_stop) {
            _mm_prefetch((const char *)o + UTF32_BMP_PREFETCH_AHEAD, _MM_HINT_T0);
            _mm_prefetch((const char *)o + UTF32_BMP_PREFETCH_AHEAD + 64, _MM_HINT_T0);
        }
        __m512i first = _mm512_maskz_permutex2var_epi16(0x55555555u, window, pick_first, next);
        __m512i second = _mm512_maskz_permutex2var_epi16(0x55555555u, window, pick_second, next);
        if (byte_orders & 2) {
            first = swap_32(first);
            second = swap_32(second);
        }
        _mm512_store_si512((void *)o, first);
        _mm512_store_si512((void *)(o + 64), second);
        o += 128;
        at += 64;
        window = next;
    }
    *out = o;
    return (size_t)(at - start) + 2 * (size_t)shift;
}

/* UTF-16 -> UTF-32, 32 units (64 bytes) per step.  A first partial step
 * brings the output to a 64-byte boundary, where text of the BMP keeps it
 * (its stores, twice the loads, are what this is bound by).  Steps without
 * surrogates widen each unit; steps of 16 pairs that fill the 16 32-bit
 * lanes exactly (text of supplementary characters, such as emoji) convert
 * each lane in place with shifts and masks; other steps with surrogates
 * compress the trails out (put_utf32_from_utf16).  D91: a lead must be
 * followed, and a trail preceded, by the other; the first unit out of
 * place (with the lead before it, if any) ends the loop for the scalar
 * reader; a lead in the last lane waits for the next step. */
static inline size_t utf16_to_utf32(const uint8_t *src, size_t len, int byte_orders, uint8_t *dst,
                                     size_t *written)
{
    size_t i = 0;
    uint8_t *out = dst;
    const __m512i high_6 = _mm512_set1_epi16((short)0xFC00), high_5 = _mm512_set1_epi16((short)0xF800);
    const __m512i lead_bits = _mm512_set1_epi16((short)0xD800), trail_bits = _mm512_set1_epi16((short)0xDC00);
    unsigned head = units_to_alignment(dst);
    if (head != 0 && len >= 64) {
        __m512i units = _mm512_loadu_si512((const void *)src);
        if (byte_orders & 1)
            units = swap_16(units);
        __mmask32 lead = _mm512_cmpeq_epi16_mask(_mm512_and_si512(units, high_6), lead_bits);
        __mmask32 trail = _mm512_cmpeq_epi16_mask(_mm512_and_si512(units, high_6), trail_bits);
        uint32_t misplaced = ((uint32_t)trail ^ ((uint32_t)lead << 1)) & first_lanes_32(head);
        unsigned end = misplaced != 0 ? (unsigned)__builtin_ctz(misplaced) : head;
        unsigned taken = end - (end > 0 && ((uint32_t)lead >> (end - 1) & 1));
        out = put_utf32_from_utf16(out, units, first_lanes_32(taken), lead, trail, byte_orders & 2);
        i = 2 * (size_t)taken;
        if (misplaced != 0) {
            *written = (size_t)(out - dst);
            return i;
        }
    }
    while (len - i >= 64) {
        __m512i units = _mm512_loadu_si512((const void *)(src + i));
        if (byte_orders & 1)
            units = swap_16(units);
        if (_mm512_cmpeq_epi16_mask(_mm512_and_si512(units, high_5), lead_bits) == 0) {
            /* 32 units of the BMP, one code point each */
            __m512i first = _mm512_cvtepu16_epi32(_mm512_castsi512_si256(units));
            __m512i second = _mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(units, 1));
            if (byte_orders & 2) {
                first = swap_32(first);
                second = swap_32(second);
            }
            _mm512_storeu_si512((void *)out, first);
            _mm512_storeu_si512((void *)(out + 64), second);
            out += 128;
            i += 64;
            i = utf16_bmp_windows(src, len, i, byte_orders, &out);
            continue;
        }
        __mmask32 lead = _mm512_cmpeq_epi16_mask(_mm512_and_si512(units, high_6), lead_bits);
        __mmask32 trail = _mm512_cmpeq_epi16_mask(_mm512_and_si512(units, high_6), trail_bits);
        if (lead == 0x55555555u && trail == 0xAAAAAAAAu) {
            /* 16 pairs, each lead in the low half of a 32-bit lane and its
             * trail in the high half: 10000 + (lead & 3FF) << 10 + (trail & 3FF) */
            __m512i code_point = _mm512_add_epi32(
                _mm512_ternarylogic_epi32(_mm512_slli_epi32(units, 10), _mm512_srli_epi32(units, 16),
                                          _mm512_set1_epi32(0xFFC00), 0xE4), /* C ? A : B */
                _mm512_set1_epi32(0x10000));
            if (byte_orders & 2)
                code_point = swap_32(code_point);
            _mm512_storeu_si512((void *)out, code_point);
            out += 64;
            i += 64;
            continue;
        }
        uint32_t misplaced = (uint32_t)trail ^ ((uint32_t)lead << 1);
        if (misplaced != 0) {
            unsigned first = (unsigned)__builtin_ctz(misplaced);
            unsigned taken = first - (first > 0 && ((uint32_t)lead >> (first - 1) & 1));
            out = put_utf32_from_utf16(out, units, first_lanes_32(taken), lead, trail, byte_orders & 2);
            i += 2 * (size_t)taken;
            break;
        }
        if ((uint32_t)lead >> 31) { /* its trail is in the next step */
            out = put_utf32_from_utf16(out, units, 0x7FFFFFFFu, lead, trail, byte_orders & 2);
            i += 62;
        } else {
            out = put_utf32_from_utf16(out, units, 0xFFFFFFFFu, lead, trail, byte_orders & 2);
            i += 64;
        }
    }
    *written = (size_t)(out - dst);
    return i;
}

size_t utfkit_utf16_to_utf32_avx512(const uint8_t *src, size_t len, int byte_orders, uint8_t *dst,
                                    size_t *written)
{
    switch (byte_orders & 3) { /* one loop per pair of byte orders */
    case 0: return utf16_to_utf32(src, len, 0, dst, written);
    case 1: return utf16_to_utf32(src, len, 1, dst, written);
    case 2: return utf16_to_utf32(src, len, 2, dst, written);
    default: return utf16_to_utf32(src, len, 3, dst, written);
    }
}

/* Writes the UTF-16 of the scalar values in the lanes `used` of 16
 * (Table 3-5), `supplementary` those of them at or above 10000: one unit
 * each, or a pair, lead first (wwww = uuuuu - 1: lead 110110wwwwxxxxxx,
 * trail 110111xxxxxxxxxx), in the lane's low and high halves.  One
 * whole-vector store: at most 64 bytes for the 64 read, within the
 * caller's room (kernels.h); or, not `whole`, only the bytes that count. */
static inline uint8_t *put_utf16_from_utf32(uint8_t *out, __m512i units, __mmask16 used,
                                            __mmask16 supplementary, int big_endian, int whole)
{
    if (supplementary == 0) {
        __m256i narrow = _mm512_cvtepi32_epi16(units);
        if (big_endian)
            narrow = swap_16_half(narrow);
        if (whole)
            _mm256_storeu_si256((__m256i *)out, narrow);
        else
            _mm256_mask_storeu_epi16(out, used, narrow);
        return out + 2 * __builtin_popcount(used);
    }
    /* lead = (u >> 10) + D800 - 40, trail = DC00 | (u & 3FF) */
    __m512i pair = _mm512_ternarylogic_epi32(
        _mm512_add_epi32(_mm512_srli_epi32(units, 10), _mm512_set1_epi32((int)0xDC00D7C0)),
        _mm512_slli_epi32(units, 16), _mm512_set1_epi32(0x03FF0000), 0xF8); /* A | (B & C) */
    __m512i lanes = _mm512_mask_mov_epi32(units, supplementary, pair);
    if (big_endian)
        lanes = swap_16(lanes);
    if (used == 0xFFFF && supplementary == 0xFFFF) { /* 16 pairs: no gaps */
        _mm512_storeu_si512((void *)out, lanes);
        return out + 64;
    }
    /* every lane's low unit counts; its high unit only for a pair */
    uint32_t kept = _pdep_u32(used, 0x55555555u) | _pdep_u32(supplementary, 0xAAAAAAAAu);
    unsigned count = (unsigned)__builtin_popcount(kept);
    if (whole)
        _mm512_storeu_si512((void *)out, _mm512_maskz_compress_epi16(kept, lanes));
    else
        _mm512_mask_storeu_epi16(out, first_lanes_32(count), _mm512_maskz_compress_epi16(kept, lanes));
    return out + 2 * count;
}

/* 32 UTF-32 units at src, in the source byte order: narrowed to 32 UTF-16
 * units in *narrow, in the target byte order, if they are all of the BMP
 * and none is a surrogate (then 1), else 0.  VPACKUSDW (which leaves the
 * units below 10000 as they are) works per 128-bit lane: *narrow holds in
 * lane k four units of the first 16 and then four of the second 16
 * (PACKED_UNIT_BYTES puts them in order). */
static inline int utf32_bmp_32(const uint8_t *src, int byte_orders, __m512i *narrow)
{
    __m512i a = _mm512_loadu_si512((const void *)src);
    __m512i b = _mm512_loadu_si512((const void *)(src + 64));
    if (byte_orders & 1) {
        a = swap_32(a);
        b = swap_32(b);
    }
    if (_mm512_test_epi32_mask(_mm512_or_si512(a, b), _mm512_set1_epi32((int)0xFFFF0000)) != 0)
        return 0;
    __m512i units = _mm512_packus_epi32(a, b);
    if (_mm512_cmpeq_epi16_mask(_mm512_and_si512(units, _mm512_set1_epi16((short)0xF800)),
                                _mm512_set1_epi16((short)0xD800)) != 0)
        return 0;
    *narrow = byte_orders & 2 ? swap_16(units) : units;
    return 1;
}

/* Where byte k of the 32 units in order is in utf32_bmp_32's *narrow. */
static inline __m512i packed_unit_bytes(void)
{
    return _mm512_set_epi8(63, 62, 61, 60, 59, 58, 57, 56, 47, 46, 45, 44, 43, 42, 41, 40,
                           31, 30, 29, 28, 27, 26, 25, 24, 15, 14, 13, 12, 11, 10, 9, 8,
                           55, 54, 53, 52, 51, 50, 49, 48, 39, 38, 37, 36, 35, 34, 33, 32,
                           23, 22, 21, 20, 19, 18, 17, 16, 7, 6, 5, 4, 3, 2, 1, 0);
}

/* A run of the BMP from src + *i, 32 units (64 bytes out) per step, while
 * 128 bytes are left; returns the new out.  The loads are aligned (the
 * caller's first step saw to it); so that the stores are too, each 64
 * bytes of output are stored as the line they fall in: the last bytes of
 * the step before and the first of this one, put in order and joined by
 * one VPERMT2B (the first line only from `out` on, by a masked store); the
 * rest goes in the next line, and the last step's output whole at the
 * end. */
static inline uint8_t *utf32_to_utf16_bmp_run(const uint8_t *src, size_t len, size_t *i,
                                              int byte_orders, uint8_t *out)
{
    __m512i narrow;
    if (len - *i < 128 || !utf32_bmp_32(src + *i, byte_orders, &narrow))
        return out;
    unsigned misaligned = (unsigned)((uintptr_t)out & 63);
    /* line byte k: byte 64 - misaligned + k of the step before, below
     * misaligned, else byte k - misaligned of this step (bit 6 chooses),
     * each where utf32_bmp_32 has it */
    const __m512i in_order = packed_unit_bytes();
    __m512i join = _mm512_add_epi8(byte_index_vector(), _mm512_set1_epi8((char)(64 - misaligned)));
    join = _mm512_ternarylogic_epi32(_mm512_permutexvar_epi8(join, in_order), join,
                                     _mm512_set1_epi8(0x40), 0xF8); /* A | (B & C) */
    uint8_t *line = out - misaligned;
    _mm512_mask_storeu_epi8(line, ~0ull << misaligned, _mm512_permutexvar_epi8(join, narrow));
    for (;;) {
        line += 64;
        out += 64;
        *i += 128;
        __m512i previous = narrow;
        if (len - *i < 128 || !utf32_bmp_32(src + *i, byte_orders, &narrow)) {
            _mm512_storeu_si512((void *)(out - 64), _mm512_permutexvar_epi8(in_order, previous));
            return out;
        }
        _mm512_store_si512((void *)line, _mm512_permutex2var_epi8(previous, join, narrow));
    }
}

/* UTF-32 -> UTF-16, 16 units (one 64-byte line) per step, after a first
 * partial step that brings src to a 64-byte boundary; runs of the BMP go
 * 32 units per step, narrowed with unsigned saturation (VPACKUSDW, which
 * leaves the units below 10000 as they are).  D90: a surrogate or a unit
 * above 10FFFF ends the loop, for the scalar reader. */
static inline size_t utf32_to_utf16(const uint8_t *src, size_t len, int byte_orders, uint8_t *dst,
                                    size_t *written)
{
    size_t i = 0;
    uint8_t *out = dst;
    const int target_big_endian = byte_orders >> 1 & 1;
    unsigned head = units_to_alignment(src);
    if (head != 0 && len >= 64) {
        __m512i units = _mm512_loadu_si512((const void *)src);
        if (byte_orders & 1)
            units = swap_32(units);
        __mmask16 invalid = not_scalar_values(units) | (__mmask16)~first_lanes_16(head);
        unsigned taken = (unsigned)__builtin_ctz(invalid);
        __mmask16 used = first_lanes_16(taken);
        out = put_utf16_from_utf32(out, units, used,
                                   _mm512_mask_cmpge_epu32_mask(used, units, _mm512_set1_epi32(0x10000)),
                                   target_big_endian, 1);
        i = 4 * (size_t)taken;
        if (taken < head) {
            *written = (size_t)(out - dst);
            return i;
        }
    }
    int bmp_run = 1; /* the last step's units were all in the BMP */
    while (len - i >= 64) {
        if (bmp_run && len - i >= 128) {
            uint8_t *run_out = utf32_to_utf16_bmp_run(src, len, &i, byte_orders, out);
            if (run_out != out) {
                out = run_out;
                continue;
            }
        }
        __m512i units = _mm512_loadu_si512((const void *)(src + i));
        if (byte_orders & 1)
            units = swap_32(units);
        __mmask16 supplementary = _mm512_test_epi32_mask(units, _mm512_set1_epi32((int)0xFFFF0000));
        __mmask16 invalid = _mm512_cmpeq_epi32_mask(_mm512_and_si512(units, _mm512_set1_epi32((int)0xFFFFF800)),
                                                    _mm512_set1_epi32(0xD800));
        if (supplementary != 0)
            invalid |= _mm512_cmpgt_epu32_mask(units, _mm512_set1_epi32(0x10FFFF));
        if (invalid != 0) {
            unsigned taken = (unsigned)__builtin_ctz(invalid);
            __mmask16 used = first_lanes_16(taken);
            out = put_utf16_from_utf32(out, units, used, supplementary & used, target_big_endian, 1);
            *written = (size_t)(out - dst);
            return i + 4 * (size_t)taken;
        }
        out = put_utf16_from_utf32(out, units, 0xFFFF, supplementary, target_big_endian, 1);
        bmp_run = supplementary == 0;
        i += 64;
    }
    /* the whole units after the last whole vector: a masked load, and a
     * store of only the bytes they give */
    unsigned last = (unsigned)(len - i) / 4;
    if (last != 0) {
        __m512i units = _mm512_maskz_loadu_epi32(first_lanes_16(last), (const void *)(src + i));
        if (byte_orders & 1)
            units = swap_32(units);
        __mmask16 invalid = not_scalar_values(units) | (__mmask16)~first_lanes_16(last);
        unsigned taken = (unsigned)__builtin_ctz(invalid);
        __mmask16 used = first_lanes_16(taken);
        out = put_utf16_from_utf32(out, units, used,
                                   _mm512_mask_cmpge_epu32_mask(used, units, _mm512_set1_epi32(0x10000)),
                                   target_big_endian, 0);
        i += 4 * (size_t)taken;
    }
    *written = (size_t)(out - dst);
    return i;
}

size_t utfkit_utf32_to_utf16_avx512(const uint8_t *src, size_t len, int byte_orders, uint8_t *dst,
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
