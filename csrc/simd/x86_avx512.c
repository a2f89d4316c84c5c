/*
 * x86_avx512.c -- the AVX-512 kernel, for CPUs with AVX-512 F, BW and VBMI
 * (Intel Ice Lake and later, AMD Zen 4 and later; and BMI2, which all of
 * them have): ASCII runs 256 bytes per step from 64-byte boundaries, heads
 * and tails with masked loads that touch nothing outside src; UTF-8 validation by nibble
 * lookups 64 bytes per vector (utf8_lookup.h), the automaton's replays
 * built with BMI2; output lengths by counting 64 bytes per vector
 * (utf_lengths.h).
 */
#include "../kernels.h"

#if defined(UTFKIT_X86_64)
#include <immintrin.h>

/* Everything below is compiled for avx512f,avx512bw,avx512vbmi,bmi2,popcnt, with no -m flag for the build. */
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vbmi,bmi2,popcnt"))), apply_to = function)
#elif defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vbmi,bmi2,popcnt")
#endif

/* The bytes above 7F among the first n (< 64) at p, as a mask: a masked
 * load neither reads nor faults on the others. */
static inline uint64_t high_bytes_of_first(const uint8_t *p, size_t n)
{
    __mmask64 present = ((__mmask64)1 << n) - 1;
    return (uint64_t)_mm512_movepi8_mask(_mm512_maskz_loadu_epi8(present, (const void *)p));
}

/* Loads from 64-byte boundaries of src: the bytes before the first one by
 * one masked load, then whole vectors.  A load that spans two cache lines
 * costs two (measured: 64 KiB of ASCII 16 bytes past a boundary took 980
 * ns with unaligned loads, at a boundary 517). */
size_t utfkit_ascii_prefix_length_avx512(const uint8_t *src, size_t len)
{
    size_t head = (size_t)(-(uintptr_t)src & 63);
    size_t i = head < len ? head : len;
    uint64_t high = i != 0 ? high_bytes_of_first(src, i) : 0;
    if (high != 0)
        return (size_t)__builtin_ctzll(high);
    /* movepi8_mask gathers bit 7 of each of the 64 bytes; four vectors
     * OR-ed per step keep both load ports busy. */
    while (len - i >= 256) {
        __m512i a = _mm512_load_si512((const void *)(src + i));
        __m512i b = _mm512_load_si512((const void *)(src + i + 64));
        __m512i c = _mm512_load_si512((const void *)(src + i + 128));
        __m512i d = _mm512_load_si512((const void *)(src + i + 192));
        if (_mm512_movepi8_mask(_mm512_or_si512(_mm512_or_si512(a, b), _mm512_or_si512(c, d))) != 0)
            break; /* the loop below finds which byte */
        i += 256;
    }
    for (; len - i >= 64; i += 64) {
        high = (uint64_t)_mm512_movepi8_mask(_mm512_load_si512((const void *)(src + i)));
        if (high != 0)
            return i + (size_t)__builtin_ctzll(high);
    }
    high = i < len ? high_bytes_of_first(src + i, len - i) : 0;
    return high != 0 ? i + (size_t)__builtin_ctzll(high) : len;
}

/* ---- the vector operations utf8_lookup.h is written over ---- */
#define VEC_BYTES 64
typedef __m512i vec_t;

static inline vec_t vec_load(const uint8_t *p) { return _mm512_loadu_si512((const void *)p); }
/* A masked load: bytes at and past p[n] are neither read nor faulted on. */
static inline vec_t vec_load_partial(const uint8_t *p, size_t n)
{
    return _mm512_maskz_loadu_epi8((((__mmask64)1) << n) - 1, (const void *)p);
}
static inline vec_t vec_splat(uint8_t byte) { return _mm512_set1_epi8((char)byte); }
static inline vec_t vec_table(const uint8_t *table)
{
    return _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)table));
}
/* VPERMB (VBMI) reads only the low 6 bits of each index, and the table
 * repeats every 16 bytes, so no nibble needs masking: after a 16-bit shift
 * by 4, bits 4-5 of an index come from the neighbouring byte and select
 * only another copy of the table. */
static inline vec_t vec_lookup_high(vec_t table, vec_t v)
{
    return _mm512_permutexvar_epi8(_mm512_srli_epi16(v, 4), table);
}
static inline vec_t vec_lookup_low(vec_t table, vec_t v) { return _mm512_permutexvar_epi8(v, table); }
static inline vec_t vec_or(vec_t a, vec_t b) { return _mm512_or_si512(a, b); }
static inline vec_t vec_and(vec_t a, vec_t b) { return _mm512_and_si512(a, b); }
static inline vec_t vec_xor(vec_t a, vec_t b) { return _mm512_xor_si512(a, b); }
static inline vec_t vec_subs(vec_t a, vec_t b) { return _mm512_subs_epu8(a, b); }
/* VPALIGNR shifts within 16-byte lanes; VALIGNQ by six quadwords lines up
 * the lane before each lane (the last lane of `before` for the first).
 * Measured here, this beat one VPERMT2B per shift (destructive, so each
 * needs a copy of its index). */
#define vec_prev(v, before, n) \
    _mm512_alignr_epi8((v), _mm512_alignr_epi64((v), (before), 6), 16 - (n))
static inline int vec_any(vec_t v) { return _mm512_test_epi8_mask(v, v) != 0; }
static inline size_t vec_first_nonzero(vec_t v)
{
    return (size_t)__builtin_ctzll((uint64_t)_mm512_test_epi8_mask(v, v));
}
static inline int vec_is_ascii(vec_t v) { return _mm512_movepi8_mask(v) == 0; }
static inline int vec_is_positive(vec_t v) { return _mm512_cmple_epi8_mask(v, _mm512_setzero_si512()) == 0; }
static inline vec_t vec_min_signed(vec_t a, vec_t b) { return _mm512_min_epi8(a, b); }
static inline vec_t vec_min_unsigned(vec_t a, vec_t b) { return _mm512_min_epu8(a, b); }
static inline vec_t vec_max_unsigned(vec_t a, vec_t b) { return _mm512_max_epu8(a, b); }

#define UTF8_LOOKUP_NAME(stem) stem##_avx512
/* validation (UTF-8, CESU-8 and MUTF-8): this file's own loop, below */
#define UTF8_LOOKUP_ADVANCE_ONLY
#define UTF8_LOOKUP_OWN_BMP_VALIDATE
#include "utf8_lookup.h"

/* ---- and those utf_lengths.h adds ---- */
static inline vec_t vec_splat16(uint16_t unit) { return _mm512_set1_epi16((short)unit); }
static inline vec_t vec_splat32(uint32_t unit) { return _mm512_set1_epi32((int)unit); }
/* A comparison gives a mask: a masked add of 1 counts. */
static inline vec_t vec_count_gt8(vec_t acc, vec_t v, vec_t t)
{
    return _mm512_mask_add_epi8(acc, _mm512_cmpgt_epi8_mask(v, t), acc, _mm512_set1_epi8(1));
}
static inline vec_t vec_count_eq16(vec_t acc, vec_t a, vec_t b)
{
    return _mm512_mask_add_epi16(acc, _mm512_cmpeq_epi16_mask(a, b), acc, _mm512_set1_epi16(1));
}
static inline vec_t vec_count_lt32(vec_t acc, vec_t a, vec_t b)
{
    return _mm512_mask_add_epi32(acc, _mm512_cmplt_epi32_mask(a, b), acc, _mm512_set1_epi32(1));
}
static inline uint64_t vec_sum8(vec_t acc)
{
    return (uint64_t)_mm512_reduce_add_epi64(_mm512_sad_epu8(acc, _mm512_setzero_si512()));
}
static inline uint64_t vec_sum32(vec_t acc)
{
    vec_t low = _mm512_and_si512(acc, _mm512_set1_epi64(0xFFFFFFFF));
    return (uint64_t)_mm512_reduce_add_epi64(_mm512_add_epi64(low, _mm512_srli_epi64(acc, 32)));
}
static inline uint64_t vec_sum16(vec_t acc) { return vec_sum32(_mm512_madd_epi16(acc, _mm512_set1_epi16(1))); }
static inline vec_t vec_swap16(vec_t v)
{
    return _mm512_shuffle_epi8(v, _mm512_broadcast_i32x4(_mm_setr_epi8(1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14)));
}
static inline vec_t vec_swap32(vec_t v)
{
    return _mm512_shuffle_epi8(v, _mm512_broadcast_i32x4(_mm_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12)));
}

#define VEC_MASK16_BITS 1
static inline uint64_t vec_eq16_mask(vec_t a, vec_t b)
{
    return (uint64_t)_mm512_cmpeq_epi16_mask(a, b);
}
/* v, opaque to the compiler (utf_lengths.h: its thresholds) */
static inline vec_t vec_held(vec_t v)
{
    __asm__("" : "+v"(v));
    return v;
}
#define UTF_LENGTHS_WIDE_UTF32 /* narrowing costs more than it saves */
#define UTF_LENGTHS_NAME(stem) stem##_avx512
/* the UTF-8 counts and utf16_utf8_length: this file's own loops, below */
#define UTF_LENGTHS_NO_UTF8
#define UTF_LENGTHS_OWN_UTF16_UTF8_LENGTH
#include "utf_lengths.h"

/* utf_lengths.h's sum (3 per unit, less 1 for each unit below 0080, below
 * 0800 and each surrogate) in five instructions per 32 units: the top five
 * bits of a unit say whether it is below 0800 (00000) or a surrogate
 * (11011, D800..DFFF), so VPERMW looks up that 1 in a 32-entry table; a
 * masked add counts the units below 0080. */
size_t utf16_utf8_length_avx512(const uint8_t *src, size_t len, int big_endian)
{
    size_t end = len & ~(size_t)1, units = end / 2, less = 0, i = 0;
    const vec_t zero = vec_splat(0), one = vec_splat16(1), not_ascii = vec_splat16(0xFF80);
    const vec_t below_800_or_surrogate = _mm512_set_epi16(
        0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  /* top five bits 31..16 */
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1); /* 15..0 */
    vec_t ascii = zero, ascii_odd = zero, looked_up = zero, looked_up_odd = zero;
    /* The loop is bound by its loads, and a load that straddles two cache
     * lines costs two: the units up to src's next 64-byte boundary are
     * counted first (the lanes past them load as 0000, which counts 2 in
     * `less`: taken off again), unless src is at an odd address. */
    size_t head = (VEC_BYTES - (uintptr_t)src % VEC_BYTES) % VEC_BYTES;
    if (head % 2 == 0 && head != 0 && end >= 4 * VEC_BYTES) {
        vec_t unit = vec_load_partial(src, head);
        if (big_endian)
            unit = vec_swap16(unit);
        looked_up = _mm512_permutexvar_epi16(_mm512_srli_epi16(unit, 11), below_800_or_surrogate);
        ascii = _mm512_maskz_mov_epi16(_mm512_testn_epi16_mask(unit, not_ascii), one);
        less -= 2 * (VEC_BYTES - head) / 2;
        i = head;
    }
    while (end - i >= 2 * VEC_BYTES) {
        size_t pairs = UTF_LENGTHS_NAME(vectors_before_fold)(i, end, UTF_LENGTHS_WORD_FOLD) / 2;
        /* two vectors per step, each count in a chain of its own */
        for (size_t k = 0; k < pairs; k++, i += 2 * VEC_BYTES) {
            vec_t even = vec_load(src + i), odd = vec_load(src + i + VEC_BYTES);
            if (big_endian) {
                even = vec_swap16(even);
                odd = vec_swap16(odd);
            }
            looked_up = _mm512_add_epi16(
                looked_up, _mm512_permutexvar_epi16(_mm512_srli_epi16(even, 11), below_800_or_surrogate));
            looked_up_odd = _mm512_add_epi16(
                looked_up_odd, _mm512_permutexvar_epi16(_mm512_srli_epi16(odd, 11), below_800_or_surrogate));
            ascii = _mm512_mask_add_epi16(ascii, _mm512_testn_epi16_mask(even, not_ascii), ascii, one);
            ascii_odd = _mm512_mask_add_epi16(ascii_odd, _mm512_testn_epi16_mask(odd, not_ascii),
                                              ascii_odd, one);
        }
        less += vec_sum16(ascii) + vec_sum16(ascii_odd) + vec_sum16(looked_up) + vec_sum16(looked_up_odd);
        ascii = ascii_odd = looked_up = looked_up_odd = zero;
    }
    less += vec_sum16(ascii) + vec_sum16(looked_up); /* a head not followed by a pair */
    for (; i < end; i += 2) {
        uint32_t unit = UTF_LENGTHS_NAME(unit16)(src + i, big_endian);
        less += (unit < 0x80) + (unit < 0x800) + ((unit & 0xF800) == 0xD800);
    }
    return 3 * units - less;
}

/* ---- and those utf16_validate.h adds ---- */
static inline void vec_store(uint8_t *p, vec_t v) { _mm512_storeu_si512((void *)p, v); }
static inline vec_t vec_max_u16(vec_t a, vec_t b) { return _mm512_max_epu16(a, b); }
static inline int vec_any_above_u16(vec_t v, vec_t limit) { return _mm512_cmpgt_epu16_mask(v, limit) != 0; }
/* Four compares chained through their mask: 512-bit VPMAXUW runs on one
 * port only, compares on the other, so this takes three maxima off the
 * first (measured: Chinese text in L1, 47 KB, 162 -> 209 GB/s). */
static inline int vec_any_above_u16_x4(const vec_t *v, vec_t limit)
{
    __mmask32 at_most = _mm512_cmple_epu16_mask(v[0], limit);
    at_most = _mm512_mask_cmple_epu16_mask(at_most, v[1], limit);
    at_most = _mm512_mask_cmple_epu16_mask(at_most, v[2], limit);
    at_most = _mm512_mask_cmple_epu16_mask(at_most, v[3], limit);
    return at_most != (__mmask32)0xFFFFFFFF;
}
/* (measured: Chinese text, output 16 bytes past a line and 16 ahead of the
 * input in its page, 45 -> 51 GB/s; avx2 and sse4 measured slower so) */
#define UTF16_COPY_LOADS_FIRST 1
#include "utf16_validate.h"

/* ---- UTF-8 validation, counts fused in (this kernel's own loop) ----
 *
 * The rules are utf8_lookup.h's (Keiser & Lemire's nibble tables); what
 * differs is how few instructions a 64-byte vector costs, since the
 * validation, and everything fused with it, is bound by the two ports that
 * execute 512-bit operations (measured here: VPERMB, VPALIGNR, VALIGNQ,
 * compares into a mask one per cycle on one port; VPSRLW, VPSUBUSB,
 * VPMOVB2M, KMOVQ one per cycle on the other; VPTERNLOG, VPADDB, VPORD two
 * per cycle, on either; POPCNT and the other scalar operations run on
 * ports of their own):
 *
 *   - the vector loop reads from a 64-byte boundary: an unaligned 64-byte
 *     load straddles two cache lines and costs about twice an aligned one;
 *   - of the two vectors of a step, the first takes the bytes one, two and
 *     three places back as loads from memory (src + i - 1, - 2, - 3: no
 *     shuffle), the second shifts them out of the first (a VALIGNQ and
 *     three VPALIGNR).  Loads for both, or shifts for both, measured
 *     slower: the straddling loads cost more than the shuffles they save;
 *   - the three lookups meet in one VPTERNLOG, and the rule for the third
 *     and fourth bytes joins the running error in another;
 *   - a step of 128 bytes with no byte E0..FF, after a step that ended
 *     with no 3- or 4-byte character unfinished, holds characters of one
 *     and two bytes only (Unicode 3.9 Table 3-7): no byte there is a third
 *     or fourth byte, so the rule for them (a continuation byte after a
 *     continuation byte only there) is the pair tables' alone, and the
 *     step skips it -- about a quarter of the operations, on the Latin,
 *     Cyrillic, Greek, Hebrew and Arabic scripts.  The step's largest byte
 *     (VPMAXUB) says so, and says too whether it is all ASCII;
 *   - a vector that ends inside a character is checked lazily: only
 *     before a run of ASCII that the loop skips (inside the vector loop
 *     the next vector's rules see the cut-off character anyway);
 *   - counts (kernels.h, utf8_census) cost one compare into a mask per
 *     vector, and a KMOVQ: the bytes that start a code point are those
 *     above BF as signed bytes (00..7F, C0..FF: not a continuation byte
 *     80..BF), and POPCNT adds them up on a scalar port.  The 4-byte leads
 *     F0..FF (a UTF-16 surrogate pair each, D91) are counted the same way,
 *     in the steps whose largest byte is one (csrc/lengths.c is the
 *     reference: the same sums for any input). */

/* VPTERNLOG truth tables over (a, b, c) = (0xF0, 0xCC, 0xAA). */
#define TERNARY_AND3 0x80        /* a & b & c */
#define TERNARY_OR_AND 0xA8      /* (a | b) & c */
#define TERNARY_OR_XOR 0xF6      /* a | (b ^ c) */
#define TERNARY_OR3 0xFE         /* a | b | c */

/* The errors of the pair rules (a byte and the one before it) of a vector,
 * given its bytes' high nibbles (shifted right by 4 in 16-bit lanes) and
 * the bytes before each of its bytes (utf8_lookup.h, utf8_lookup_errors);
 * bit 7 marks a continuation byte after a continuation byte. */
static inline vec_t utf8_pair_errors_avx512(const utf8_lookup_constants_avx512 *c,
                                            vec_t input_high, vec_t previous_1)
{
    return _mm512_ternarylogic_epi64(
        _mm512_permutexvar_epi8(_mm512_srli_epi16(previous_1, 4), c->previous_high),
        _mm512_permutexvar_epi8(previous_1, c->previous_low),
        _mm512_permutexvar_epi8(input_high, c->current_high), TERNARY_AND3);
}

/* The errors of a vector, given its bytes' high nibbles and the three
 * vectors of the bytes before each of its bytes, or'ed into `error`: the
 * pair rules, and bit 7 flipped where a byte two after E0..FF or three
 * after F0..FF stands (there a continuation byte must follow one). */
static inline vec_t utf8_errors_avx512(const utf8_lookup_constants_avx512 *c, vec_t error,
                                       vec_t input_high, vec_t previous_1, vec_t previous_2,
                                       vec_t previous_3)
{
    vec_t pair = utf8_pair_errors_avx512(c, input_high, previous_1);
    vec_t continuation_expected = _mm512_ternarylogic_epi64(
        _mm512_subs_epu8(previous_2, c->third_byte_floor),
        _mm512_subs_epu8(previous_3, c->fourth_byte_floor), c->bit_7, TERNARY_OR_AND);
    return _mm512_ternarylogic_epi64(error, continuation_expected, pair, TERNARY_OR_XOR);
}

/* Code points (bytes above BF as signed bytes) among the bytes of v that
 * `in` selects, and 4-byte leads (F0..FF). */
static inline size_t utf8_code_points_in_avx512(vec_t v, __mmask64 in)
{
    return (size_t)__builtin_popcountll(_mm512_mask_cmpgt_epi8_mask(in, v, vec_splat(0xBF)));
}
static inline size_t utf8_four_byte_leads_in_avx512(vec_t v, __mmask64 in)
{
    return (size_t)__builtin_popcountll(_mm512_mask_cmpge_epu8_mask(in, v, vec_splat(0xF0)));
}

/* len if src[0..len) is well-formed (as UTF-8, or the restricted UTF-8
 * that `form` names: UTF8_LOOKUP_BMP for CESU-8, UTF8_LOOKUP_BMP_WITHOUT_NUL
 * for MUTF-8, utf8_lookup.h); otherwise, with `locate`, a character
 * boundary p < len with src[0..p) well-formed (kernels.h,
 * utf8_well_formed_bound), and without it some p < len.  With `census`,
 * fills *census when the answer is len.  Always inlined with constant
 * flags, so that plain validation carries neither bookkeeping.  (CESU-8
 * and MUTF-8 are only validated: neither locate nor census.) */
static inline __attribute__((always_inline)) size_t utf8_scan_avx512(const uint8_t *src,
                                                                      size_t len, int locate,
                                                                      utf8_census *census, int form)
{
    const utf8_lookup_constants_avx512 c = utf8_lookup_setup_form_avx512(form);
    const int mutf8 = form == UTF8_LOOKUP_BMP_WITHOUT_NUL;
    const vec_t zero = vec_splat(0);
    /* What stands before the text for the rules: ASCII, as any byte 00..7F
     * is to them -- but no 00 in MUTF-8, whose tables flag what follows a
     * 00. */
    const vec_t before_text = mutf8 ? vec_splat(' ') : zero;
    vec_t three_byte_lead = vec_splat(0xE0), four_byte_lead = vec_splat(0xF0),
          above_continuation = vec_splat(0xBF);
    /* kept in registers: gcc would otherwise broadcast them anew in the loop */
    __asm__("" : "+v"(three_byte_lead), "+v"(four_byte_lead), "+v"(above_continuation));
    const __mmask64 all = ~(__mmask64)0;
    vec_t error = zero;
    size_t code_points = 0, four_byte = 0;
    /* The vector loop reads from a 64-byte boundary (`start`): a load that
     * straddles two cache lines costs about twice one that does not, and
     * runs of ASCII cost little else.  The bytes before it (the head) are
     * one masked vector, and `before_start` holds them at its end, for the
     * rules of the first vector (zeros, as ASCII, before the text). */
    size_t start = (size_t)(-(uintptr_t)src) & (VEC_BYTES - 1);
    vec_t before_start = before_text;
    if (start != 0 && len >= start + 2 * VEC_BYTES) {
        __mmask64 in_head = ((__mmask64)1 << start) - 1;
        vec_t head = _mm512_maskz_loadu_epi8(in_head, (const void *)src);
        /* Only the head's own bytes are judged: the zeros after it would
         * cut its last character off. */
        vec_t head_error = utf8_errors_avx512(&c, zero, _mm512_srli_epi16(head, 4),
                                              vec_prev(head, before_text, 1),
                                              vec_prev(head, before_text, 2),
                                              vec_prev(head, before_text, 3));
        error = _mm512_maskz_mov_epi8(in_head, head_error);
        if (census != NULL) {
            code_points = utf8_code_points_in_avx512(head, in_head);
            four_byte = utf8_four_byte_leads_in_avx512(head, in_head);
        }
        /* byte k of before_start = head[k + start - 64] (the last `start`
         * places; the others are never read) */
        const vec_t iota = _mm512_set_epi8(
            63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43,
            42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22,
            21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
        before_start = _mm512_permutexvar_epi8(_mm512_add_epi8(iota, vec_splat((uint8_t)start)),
                                               head);
    } else {
        start = 0;
    }
    size_t i = start, clean = 0, ascii = 0;
    /* Whether the bytes before i may end inside a character of three or
     * four bytes (the head is not looked at: as if it did). */
    int wide_before = 1;
    /* Ill-formed input stops the scan within 8 steps of its first error;
     * locating, the tests come after 1, 2, then every 4 steps (as in
     * utf8_lookup.h, for the error loops that call this from each error to
     * the next). */
    unsigned test_interval = locate ? 1 : 8, steps_to_test = test_interval;
    while (len - i >= 2 * VEC_BYTES) {
        vec_t first = vec_load(src + i), second = vec_load(src + i + VEC_BYTES);
        vec_t top = _mm512_max_epu8(first, second);
        vec_t first_high = _mm512_srli_epi16(first, 4), second_high = _mm512_srli_epi16(second, 4);
        uint64_t first_points = 0, second_points = 0;
        if (census != NULL) {
            first_points = _mm512_cmpgt_epi8_mask(first, above_continuation);
            second_points = _mm512_cmpgt_epi8_mask(second, above_continuation);
        }
        if (!wide_before && _mm512_cmpge_epu8_mask(top, three_byte_lead) == 0) {
            /* With the counts, only a step with no continuation byte can
             * be all ASCII. */
            /* MUTF-8: a run of ASCII has no 00 either (each byte 01..7F,
             * above 0 as a signed byte). */
            if ((census == NULL || (first_points & second_points) == ~(uint64_t)0) &&
                (mutf8 ? _mm512_cmple_epi8_mask(vec_min_signed(first, second), zero) == 0
                       : vec_is_ascii(top))) {
                /* A character the vector before left unfinished meets
                 * ASCII here, which no rule below will see; so would what
                 * follows a 00 that ended it, in MUTF-8 (which is only
                 * validated, never located). */
                error = vec_or(error, UTF8_LOOKUP_NAME(utf8_lookup_unfinished)(
                                          &c, i == start ? before_start : vec_load(src + i - VEC_BYTES)));
                if (mutf8 && i != 0 && src[i - 1] == 0)
                    return 0;
                size_t run_start = i;
                i += 2 * VEC_BYTES;
                if (mutf8) {
                    while (len - i >= 4 * VEC_BYTES &&
                           _mm512_cmple_epi8_mask(
                               vec_min_signed(
                                   vec_min_signed(vec_load(src + i), vec_load(src + i + VEC_BYTES)),
                                   vec_min_signed(vec_load(src + i + 2 * VEC_BYTES),
                                                  vec_load(src + i + 3 * VEC_BYTES))),
                               zero) == 0)
                        i += 4 * VEC_BYTES;
                } else {
                    while (len - i >= 4 * VEC_BYTES &&
                           vec_is_ascii(
                               vec_or(vec_or(vec_load(src + i), vec_load(src + i + VEC_BYTES)),
                                      vec_or(vec_load(src + i + 2 * VEC_BYTES),
                                             vec_load(src + i + 3 * VEC_BYTES)))))
                        i += 4 * VEC_BYTES;
                }
                ascii += i - run_start;
                continue;
            }
            /* Characters of one and two bytes only: the pair rules. */
            vec_t first_pair = utf8_pair_errors_avx512(
                &c, first_high, i == start ? vec_prev(first, before_start, 1) : vec_load(src + i - 1));
            vec_t second_pair = utf8_pair_errors_avx512(&c, second_high, vec_prev(second, first, 1));
            error = _mm512_ternarylogic_epi64(error, first_pair, second_pair, TERNARY_OR3);
        } else {
            if (i == start)
                error = utf8_errors_avx512(&c, error, first_high, vec_prev(first, before_start, 1),
                                           vec_prev(first, before_start, 2),
                                           vec_prev(first, before_start, 3));
            else
                error = utf8_errors_avx512(&c, error, first_high, vec_load(src + i - 1),
                                           vec_load(src + i - 2), vec_load(src + i - 3));
            error = utf8_errors_avx512(&c, error, second_high, vec_prev(second, first, 1),
                                       vec_prev(second, first, 2), vec_prev(second, first, 3));
            if (census != NULL && _mm512_cmpge_epu8_mask(top, four_byte_lead) != 0)
                four_byte += utf8_four_byte_leads_in_avx512(first, all) +
                             utf8_four_byte_leads_in_avx512(second, all);
            /* The next step needs the third/fourth-byte rule only where
             * this one ends inside a character of three or four bytes. */
            wide_before = src[i + 2 * VEC_BYTES - 1] >= 0xE0 || src[i + 2 * VEC_BYTES - 2] >= 0xE0 ||
                          src[i + 2 * VEC_BYTES - 3] >= 0xF0;
        }
        code_points += (size_t)__builtin_popcountll(first_points) +
                       (size_t)__builtin_popcountll(second_points);
        if (--steps_to_test == 0) {
            if (vec_any(error))
                return locate ? utf8_lookup_boundary_before(src, clean) : 0;
            if (locate) {
                test_interval = test_interval < 4 ? 2 * test_interval : 4;
                clean = i + 2 * VEC_BYTES;
            }
            steps_to_test = test_interval;
        }
        i += 2 * VEC_BYTES;
    }
    /* The rest: at most one whole vector, then one padded with zeros
     * (ASCII), so that a character the end cuts off is a lead followed by
     * ASCII, which the pair rules reject. */
    vec_t before = i == start ? before_start : vec_load(src + i - VEC_BYTES);
    if (len - i >= VEC_BYTES) {
        vec_t input = vec_load(src + i);
        error = utf8_errors_avx512(&c, error, _mm512_srli_epi16(input, 4), vec_prev(input, before, 1),
                                   vec_prev(input, before, 2), vec_prev(input, before, 3));
        if (census != NULL) {
            code_points += utf8_code_points_in_avx512(input, all);
            four_byte += utf8_four_byte_leads_in_avx512(input, all);
        }
        before = input;
        i += VEC_BYTES;
    }
    __mmask64 in_bounds = ((__mmask64)1 << (len - i)) - 1;
    vec_t last = _mm512_maskz_loadu_epi8(in_bounds, (const void *)(src + i));
    vec_t last_high = _mm512_srli_epi16(last, 4);
    if (mutf8) {
        /* Of the zeros that pad it, only the first is judged: what follows
         * the text's last byte (utf8_lookup.h, the MUTF-8 tables). */
        vec_t last_error = utf8_errors_avx512(&c, zero, last_high, vec_prev(last, before, 1),
                                              vec_prev(last, before, 2), vec_prev(last, before, 3));
        error = vec_or(error, _mm512_maskz_mov_epi8(in_bounds << 1 | 1, last_error));
    } else {
        error = utf8_errors_avx512(&c, error, last_high, vec_prev(last, before, 1),
                                   vec_prev(last, before, 2), vec_prev(last, before, 3));
    }
    if (vec_any(error))
        return locate ? utf8_lookup_boundary_before(src, clean) : 0;
    if (census != NULL) {
        code_points += utf8_code_points_in_avx512(last, in_bounds);
        four_byte += utf8_four_byte_leads_in_avx512(last, in_bounds);
        census->code_points = ascii + code_points;
        census->utf16_units = census->code_points + four_byte;
    }
    return len;
}

size_t utf8_well_formed_bound_avx512(const uint8_t *src, size_t len)
{
    return utf8_scan_avx512(src, len, 1, NULL, UTF8_LOOKUP_UTF8);
}

int utf8_validate_avx512(const uint8_t *src, size_t len)
{
    return utf8_scan_avx512(src, len, 0, NULL, UTF8_LOOKUP_UTF8) == len;
}

/* CESU-8 and MUTF-8 without surrogates (kernels.h, utf8_bmp_validate): the
 * same loop over the BMP tables of utf8_lookup.h, for MUTF-8 the ones that
 * flag what follows a 00 too. */
int utf8_bmp_validate_avx512(const uint8_t *src, size_t len, int nul_is_ill_formed)
{
    return (nul_is_ill_formed ? utf8_scan_avx512(src, len, 0, NULL, UTF8_LOOKUP_BMP_WITHOUT_NUL)
                              : utf8_scan_avx512(src, len, 0, NULL, UTF8_LOOKUP_BMP)) == len;
}

/* ---- UTF-8 validation with its counts, on bit masks (utf8_validate_census) ----
 *
 * The counts need, for every byte, whether it is a continuation byte
 * 80..BF; this loop judges well-formedness from that mask too, and from
 * the masks of the leads, so that a 64-byte vector costs about ten
 * operations on the two ports that run 512-bit instructions (against
 * fourteen for the nibble lookups of utf8_scan_avx512, and two more for
 * each count there).  Unicode 3.9 Table 3-7, split in two:
 *
 *   - structure: a byte C0..FF is followed by one continuation byte, a
 *     byte E0..FF by two and a byte F0..FF by three, and no other byte is
 *     a continuation byte.  With the 64-bit masks of the leads (a compare
 *     and a KMOVQ each), the continuation bytes expected are lead2 << 1 |
 *     lead3 << 2 | lead4 << 3 (and what the vector before carries over),
 *     and the structure is right iff that equals the mask of the
 *     continuation bytes: scalar shifts, ORs and an XOR, on ports the
 *     vector operations leave free;
 *   - the second byte's range: E0 A0..BF, ED 80..9F, F0 90..BF, F4 80..8F,
 *     80..BF after the other leads, and nothing after C0, C1, F5..FF.  One
 *     VPERMB, indexed by the low 6 bits of the byte before where that is
 *     a lead (C0..FF), gives a number to add to each continuation byte:
 *     the sum has bit 6 set iff the byte is out of range (60..7F or
 *     C0..FF; in range it stays in 80..BF).  Where the byte before is
 *     00..7F the structure is wrong anyway.  (VPERMI2B, which would need
 *     no compare, is three operations on these ports.)
 *
 * 4-byte characters are rare: the loop runs in blocks of four 128-byte
 * steps without their leads, taking every byte F0..FF for an error (the
 * second table), and runs a block that shows an error again with them
 * (and the next blocks too, as text with one 4-byte character tends to
 * have more).  A block without an error has no byte F0..FF but perhaps its
 * last, whose second byte the next block then sees; so its structure
 * without lead4 is the whole structure.  The counts are POPCNT of the
 * masks: code points are the bytes that are not continuation bytes, and
 * UTF-16 units (D91) one more per 4-byte lead. */

/* Added to a continuation byte after a lead C0..FF (by the lead's low 6
 * bits), as above; the first 64 with 4-byte characters, the others
 * without. */
static const uint8_t utf8_second_byte_offsets[2][64] = {
    {
        0x40, 0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* C0 C1: never a first byte */
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,       /* D0..DF */
        0xE0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x20, 0, 0, /* E0: A0..BF, ED: 80..9F */
        0xF0, 0, 0, 0, 0x30, 0x40, 0x40, 0x40,                /* F0: 90..BF, F4: 80..8F */
        0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40,       /* F5..FF: never a first byte */
    },
    {
        0x40, 0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0xE0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x20, 0, 0,
        0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, /* F0..FF: taken for errors */
        0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40,
    },
};

/* 0x40 (bit 6, as the sums above) for the leads C0..FF, by their low 6
 * bits, whose second byte has a range of its own or none: C0, C1, E0, ED,
 * F0..FF. */
static const uint8_t utf8_ranged_leads[64] = {
    0x40, 0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x40, 0, 0,
    0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40,
};

/* Blocks run with the second bytes checked after one that had a lead with
 * a range of its own. */
#define UTF8_CENSUS_FULL_RANGE_BLOCKS 8

/* A block: the bytes between two tests for errors, 4 steps of 128. */
#define UTF8_CENSUS_BLOCK (4 * 2 * VEC_BYTES)
/* Blocks run with the 4-byte leads after one that needed them. */
#define UTF8_CENSUS_FOUR_BYTE_BLOCKS 8

typedef struct utf8_census_state_avx512 {
    /* the continuation bytes the bytes before expect in the next vector
     * (bit k: its byte k) */
    uint64_t carry;
    uint64_t structure; /* bits set where the structure is wrong */
    vec_t range;        /* bit 6 set where a second byte is out of range */
    size_t continuations, four_byte;
} utf8_census_state_avx512;

typedef struct utf8_census_constants_avx512 {
    vec_t continuation_floor, lead3, lead4, offsets, offsets_without_four_byte, ranged_leads;
} utf8_census_constants_avx512;

/* A mask's bits in a general register, moved there once: gcc would
 * otherwise move a mask again (KMOVQ) for each use, on a port that the
 * vector operations need, or keep a scalar value in a mask register. */
static inline uint64_t utf8_census_bits(__mmask64 mask)
{
    uint64_t bits = (uint64_t)mask;
    __asm__("" : "+r"(bits));
    return bits;
}

/* The high 64 bits of the 128-bit mask (high:low) shifted left by n
 * (1..3): the bits of a vector's mask moved n places on, with those that
 * the vector before moves into it. */
static inline uint64_t utf8_census_shifted_in(uint64_t high, uint64_t low, unsigned n)
{
    return high << n | low >> (64 - n);
}

/* The continuation bytes that 4-byte leads among src[i - 3 .. i) expect
 * from src[i] on, as bits of the carry (bit 0: src[i]). */
static inline uint64_t utf8_four_byte_carry(const uint8_t *src, size_t i)
{
    uint64_t carry = 0;
    for (size_t k = 1; k <= 3 && k <= i; k++)
        carry |= (uint64_t)(src[i - k] >= 0xF0) << (3 - k);
    return carry;
}

/* The sums above (bit 6: out of range) for the continuation bytes of v,
 * given the bytes before each of its bytes; 0 for the other bytes. */
static inline vec_t utf8_second_byte_sums_avx512(const utf8_census_constants_avx512 *k, vec_t offsets,
                                                 vec_t v, vec_t previous_1, __mmask64 continuation)
{
    __mmask64 after_lead = _mm512_cmpge_epu8_mask(previous_1, k->continuation_floor);
    return _mm512_maskz_add_epi8(continuation, v,
                                 _mm512_maskz_permutexvar_epi8(after_lead, previous_1, offsets));
}

/* One vector, 4-byte leads and all: the head and the tail of the text. */
static inline __attribute__((always_inline)) void utf8_census_vector_avx512(
    const utf8_census_constants_avx512 *k, utf8_census_state_avx512 *s, vec_t v, vec_t previous_1)
{
    __mmask64 continuation = _mm512_cmplt_epi8_mask(v, k->continuation_floor);
    uint64_t c = (uint64_t)continuation;
    uint64_t lead2 = (uint64_t)_mm512_cmpge_epu8_mask(v, k->continuation_floor);
    uint64_t lead3 = (uint64_t)_mm512_cmpge_epu8_mask(v, k->lead3);
    uint64_t lead4 = (uint64_t)_mm512_cmpge_epu8_mask(v, k->lead4);
    s->structure |= ((lead2 << 1 | lead3 << 2 | lead4 << 3 | s->carry) ^ c);
    s->carry = lead2 >> 63 | lead3 >> 62 | lead4 >> 61;
    s->range = vec_or(s->range, utf8_second_byte_sums_avx512(k, k->offsets, v, previous_1, continuation));
    s->continuations += (size_t)__builtin_popcountll(c);
    s->four_byte += (size_t)__builtin_popcountll(lead4);
}

/* Where the run of ASCII from src[i] ends, in steps of 256 bytes that
 * `limit` leaves room for. */
static inline size_t utf8_census_ascii_run_avx512(const uint8_t *src, size_t i, size_t limit)
{
    for (; limit - i >= 4 * VEC_BYTES; i += 4 * VEC_BYTES) {
        vec_t low = vec_or(vec_load(src + i), vec_load(src + i + VEC_BYTES));
        vec_t high = vec_or(vec_load(src + i + 2 * VEC_BYTES), vec_load(src + i + 3 * VEC_BYTES));
        if (!vec_is_ascii(vec_or(low, high)))
            break;
    }
    return i;
}

/* Steps of 128 bytes from src[i] (i > 0) while `limit` leaves room for
 * one, until `stop` (a run of ASCII may pass it); returns where it
 * stopped.  With `four_byte`, the 4-byte leads are computed and counted;
 * without, they are taken to be none, and every byte F0..FF for an error.
 * Without `second_bytes` (and without `four_byte`), every lead whose second
 * byte has a range of its own (C0, C1, E0, ED, F0..FF) is taken for an
 * error instead of checking the byte after it (one VPERMB per vector, not
 * three operations): the text of most CJK blocks has none, and a block
 * that has one is run again. */
static inline __attribute__((always_inline)) size_t utf8_census_steps_avx512(
    const utf8_census_constants_avx512 *k, utf8_census_state_avx512 *s, const uint8_t *src, size_t i,
    size_t limit, size_t stop, int four_byte, int second_bytes)
{
    const vec_t offsets = four_byte ? k->offsets : k->offsets_without_four_byte;
    if (stop > limit - 2 * VEC_BYTES + 1)
        stop = limit - 2 * VEC_BYTES + 1;
    while (i < stop) {
        vec_t first = vec_load(src + i), second = vec_load(src + i + VEC_BYTES);
        __mmask64 continuation_first = _mm512_cmplt_epi8_mask(first, k->continuation_floor),
                  continuation_second = _mm512_cmplt_epi8_mask(second, k->continuation_floor);
        uint64_t c_first = utf8_census_bits(continuation_first),
                 c_second = utf8_census_bits(continuation_second);
        __mmask64 leads_first = _mm512_cmpge_epu8_mask(first, k->continuation_floor),
                  leads_second = _mm512_cmpge_epu8_mask(second, k->continuation_floor);
        uint64_t lead2_first = utf8_census_bits(leads_first), lead2_second = utf8_census_bits(leads_second);
        if ((c_first | c_second | lead2_first | lead2_second) == 0) {
            /* ASCII: nothing may be left unfinished before it */
            s->structure |= s->carry;
            s->carry = 0;
            i = utf8_census_ascii_run_avx512(src, i + 2 * VEC_BYTES, limit);
            continue;
        }
        uint64_t lead3_first = utf8_census_bits(_mm512_cmpge_epu8_mask(first, k->lead3)),
                 lead3_second = utf8_census_bits(_mm512_cmpge_epu8_mask(second, k->lead3));
        uint64_t lead4_first = 0, lead4_second = 0;
        if (four_byte) {
            lead4_first = utf8_census_bits(_mm512_cmpge_epu8_mask(first, k->lead4));
            lead4_second = utf8_census_bits(_mm512_cmpge_epu8_mask(second, k->lead4));
            s->four_byte += (size_t)__builtin_popcountll(lead4_first) +
                            (size_t)__builtin_popcountll(lead4_second);
        }
        uint64_t expected_first = lead2_first << 1 | lead3_first << 2 | lead4_first << 3 | s->carry;
        uint64_t expected_second = utf8_census_shifted_in(lead2_second, lead2_first, 1) |
                                   utf8_census_shifted_in(lead3_second, lead3_first, 2) |
                                   utf8_census_shifted_in(lead4_second, lead4_first, 3);
        s->structure |= (expected_first ^ c_first) | (expected_second ^ c_second);
        s->carry = utf8_census_bits(lead2_second >> 63 | lead3_second >> 62 | lead4_second >> 61);
        if (second_bytes)
            s->range = _mm512_ternarylogic_epi64(
                s->range,
                utf8_second_byte_sums_avx512(k, offsets, first, vec_load(src + i - 1), continuation_first),
                utf8_second_byte_sums_avx512(k, offsets, second, vec_load(src + i + VEC_BYTES - 1),
                                             continuation_second),
                TERNARY_OR3);
        else
            s->range = _mm512_ternarylogic_epi64(s->range,
                                                 _mm512_maskz_permutexvar_epi8(leads_first, first, k->ranged_leads),
                                                 _mm512_maskz_permutexvar_epi8(leads_second, second, k->ranged_leads),
                                                 TERNARY_OR3);
        s->continuations += (size_t)__builtin_popcountll(c_first) + (size_t)__builtin_popcountll(c_second);
        i += 2 * VEC_BYTES;
    }
    return i;
}

/* ---- the steps again, in a loop of their own, second bytes checked at their lead ----
 *
 * The steps above without 4-byte leads, over many blocks in one loop that
 * keeps its state in registers (gcc keeps the census state of the steps
 * above partly in memory and in mask registers): the masks of the leads
 * of the vector before stand in for the carry, so the continuation bytes
 * expected are two SHLDs; a step with no lead is ASCII (or an error).
 *
 * Where nearly every block has a lead whose second byte has a range of
 * its own (Indic and Thai scripts: E0; Hangul: ED), the range is checked
 * at the lead, not at the second byte: VPERMB indexed by the bytes
 * themselves, masked by the lead mask that the structure check compares
 * anyway, gives each lead C0..FF the number utf8_second_byte_offsets
 * gives it (Unicode 3.9 Table 3-7: E0 A0..BF, ED 80..9F; every byte F0..FF
 * an error), which is added to the byte after it (an unaligned load).  No
 * compare of the bytes before is needed: one operation less per vector on
 * the port that runs VPERMB and the compares.  A lead followed by a byte
 * that is not a continuation byte breaks the structure anyway, so what its
 * sum says does not matter; the lead before the first step is checked on
 * its own.  Elsewhere every lead with a range of its own is taken for an
 * error, as in the steps above.  A block with an error (or a 4-byte lead)
 * is left to the steps above. */

/* The high 64 bits of the 128-bit mask (high:low) shifted left by 1 and
 * by 2, as utf8_census_shifted_in, in one instruction each (SHLD): gcc
 * writes three, or goes through memory for a 128-bit shift. */
static inline uint64_t utf8_census_shifted_in_1(uint64_t high, uint64_t low)
{
    __asm__("shldq $1, %1, %0" : "+r"(high) : "r"(low) : "cc");
    return high;
}

static inline uint64_t utf8_census_shifted_in_2(uint64_t high, uint64_t low)
{
    __asm__("shldq $2, %1, %0" : "+r"(high) : "r"(low) : "cc");
    return high;
}

/* From src[i] (i > 0, the state error-free), blocks while `stop` is not
 * reached and a byte follows the step (the second byte of a lead at its
 * end), counted in *s; with `second_bytes`, the second bytes checked at
 * their leads, without, the leads with a range of their own taken for
 * errors.  Returns where it stopped: at the start of the first block with
 * an error or a 4-byte lead (i if it is the first). */
static inline __attribute__((always_inline)) size_t utf8_census_lead_steps_avx512(
    const utf8_census_constants_avx512 *k, utf8_census_state_avx512 *s, const uint8_t *src, size_t i, size_t len,
    size_t stop, int second_bytes)
{
    const vec_t floor = k->continuation_floor, lead3 = k->lead3, offsets = k->offsets_without_four_byte,
                ranged_leads = k->ranged_leads;
    /* the lead before src[i], whose second byte src[i] is */
    if (src[i - 1] >= 0xC0 && ((src[i] + utf8_second_byte_offsets[1][src[i - 1] & 0x3F]) & 0x40) != 0)
        return i;
    if (s->carry > 3)
        return i; /* a 4-byte lead before */
    /* the leads of the vector before, as far as they reach into the next:
     * the carry's bit 0 from a lead C0..FF at its last byte, bit 1 from a
     * lead E0..FF there */
    uint64_t lead2_before = s->carry << 63, lead3_before = s->carry >> 1 << 63;
    size_t continuations = s->continuations;
    while (i < stop && len - i > 2 * VEC_BYTES) {
        const size_t block_start = i, block_end = i + UTF8_CENSUS_BLOCK;
        const uint64_t block_lead2 = lead2_before, block_lead3 = lead3_before;
        const size_t block_continuations = continuations;
        uint64_t structure = 0;
        vec_t range = vec_splat(0);
        do {
            vec_t first = vec_load(src + i), second = vec_load(src + i + VEC_BYTES);
            __mmask64 leads_first = _mm512_cmpge_epu8_mask(first, floor),
                      leads_second = _mm512_cmpge_epu8_mask(second, floor);
            uint64_t lead2_first = utf8_census_bits(leads_first), lead2_second = utf8_census_bits(leads_second);
            uint64_t c_first = utf8_census_bits(_mm512_cmplt_epi8_mask(first, floor)),
                     c_second = utf8_census_bits(_mm512_cmplt_epi8_mask(second, floor));
            if ((lead2_first | lead2_second) == 0) {
                /* no lead: ASCII, or an error */
                structure |= lead2_before >> 63 | lead3_before >> 62 | c_first | c_second;
                lead2_before = lead3_before = 0;
                i = utf8_census_ascii_run_avx512(src, i + 2 * VEC_BYTES, len);
                continue;
            }
            uint64_t lead3_first = utf8_census_bits(_mm512_cmpge_epu8_mask(first, lead3)),
                     lead3_second = utf8_census_bits(_mm512_cmpge_epu8_mask(second, lead3));
            uint64_t expected_first = utf8_census_shifted_in_1(lead2_first, lead2_before) |
                                      utf8_census_shifted_in_2(lead3_first, lead3_before);
            uint64_t expected_second = utf8_census_shifted_in_1(lead2_second, lead2_first) |
                                       utf8_census_shifted_in_2(lead3_second, lead3_first);
            structure |= (expected_first ^ c_first) | (expected_second ^ c_second);
            lead2_before = lead2_second;
            lead3_before = lead3_second;
            if (second_bytes) {
                vec_t sums_first =
                    _mm512_maskz_add_epi8(leads_first, vec_load(src + i + 1),
                                          _mm512_maskz_permutexvar_epi8(leads_first, first, offsets));
                vec_t sums_second =
                    _mm512_maskz_add_epi8(leads_second, vec_load(src + i + VEC_BYTES + 1),
                                          _mm512_maskz_permutexvar_epi8(leads_second, second, offsets));
                range = _mm512_ternarylogic_epi64(range, sums_first, sums_second, TERNARY_OR3);
            } else {
                range = _mm512_ternarylogic_epi64(range,
                                                  _mm512_maskz_permutexvar_epi8(leads_first, first, ranged_leads),
                                                  _mm512_maskz_permutexvar_epi8(leads_second, second, ranged_leads),
                                                  TERNARY_OR3);
            }
            continuations += (size_t)__builtin_popcountll(c_first) + (size_t)__builtin_popcountll(c_second);
            i += 2 * VEC_BYTES;
        } while (i < block_end && len - i > 2 * VEC_BYTES);
        if ((structure | (uint64_t)_mm512_test_epi8_mask(range, vec_splat(0x40))) != 0) {
            i = block_start;
            lead2_before = block_lead2;
            lead3_before = block_lead3;
            continuations = block_continuations;
            break;
        }
    }
    s->carry = lead2_before >> 63 | lead3_before >> 62;
    s->continuations = continuations;
    return i;
}

/* ---- runs of 4-byte characters with lead F0 (emoji, CJK extension B) ----
 *
 * Where every character is 4 bytes long, the leads stand every 4 bytes,
 * so each byte's role in its character follows from its position and from
 * the continuation bytes the state carries into the vector (1 << n) - 1
 * when the lead is n bytes in.  Unicode 3.9 Table 3-7, row F0: lead F0,
 * second byte 90..BF, third and fourth 80..BF.  A vector is such a run iff
 * each byte minus its role's floor is at most its role's span (one
 * subtraction and one saturating subtraction per vector, and no mask on
 * the general registers): the count is then 16 code points and 32 UTF-16
 * units per 64 bytes.  Leads F1..F4 (other planes) leave the run to the
 * general steps. */

/* The floors and spans by role, lead first, from byte 0 of a character:
 * loaded from offset (4 - n) % 4 when the lead is n bytes into a vector. */
#define UTF8_F0_CHARACTER(lead, second, other) lead, second, other, other
#define UTF8_F0_FOUR(lead, second, other)                                                       \
    UTF8_F0_CHARACTER(lead, second, other), UTF8_F0_CHARACTER(lead, second, other),            \
        UTF8_F0_CHARACTER(lead, second, other), UTF8_F0_CHARACTER(lead, second, other)
#define UTF8_F0_VECTOR(lead, second, other)                                                     \
    UTF8_F0_FOUR(lead, second, other), UTF8_F0_FOUR(lead, second, other),                      \
        UTF8_F0_FOUR(lead, second, other), UTF8_F0_FOUR(lead, second, other),                  \
        UTF8_F0_CHARACTER(lead, second, other)
static const uint8_t utf8_f0_run_floor[VEC_BYTES + 4] = {UTF8_F0_VECTOR(0xF0, 0x90, 0x80)};
static const uint8_t utf8_f0_run_span[VEC_BYTES + 4] = {UTF8_F0_VECTOR(0x00, 0x2F, 0x3F)};
#undef UTF8_F0_VECTOR
#undef UTF8_F0_FOUR
#undef UTF8_F0_CHARACTER

/* Where the steps of 128 bytes from src[i] (on a 64-byte boundary) that
 * are runs of 4-byte characters with lead F0 end (i if none), the lead of
 * the first character in each vector `lead_at` bytes in.  Apart from the
 * census loop, which keeps its state in registers. */
static __attribute__((noinline)) size_t utf8_f0_run_end_avx512(const uint8_t *src, size_t i, size_t len,
                                                               unsigned lead_at)
{
    size_t role_at = (4 - lead_at) % 4;
    const vec_t floor = vec_load(utf8_f0_run_floor + role_at), span = vec_load(utf8_f0_run_span + role_at);
    while (len - i >= 2 * VEC_BYTES) {
        vec_t first = _mm512_subs_epu8(_mm512_sub_epi8(vec_load(src + i), floor), span);
        vec_t second = _mm512_subs_epu8(_mm512_sub_epi8(vec_load(src + i + VEC_BYTES), floor), span);
        if (_mm512_test_epi8_mask(vec_or(first, second), vec_or(first, second)) != 0)
            break;
        i += 2 * VEC_BYTES;
    }
    return i;
}

/* The run above from src[i] (i > 0), counted in *s; returns where it ends
 * (i if none).  The bytes of the character the state carries into the
 * first vector are checked by the general rule (its lead may be any), by
 * one more look at that vector's second bytes. */
static inline __attribute__((always_inline)) size_t utf8_census_f0_run_avx512(
    const utf8_census_constants_avx512 *k, utf8_census_state_avx512 *s, const uint8_t *src, size_t i, size_t len)
{
    uint64_t carry = s->carry;
    if (carry > 7 || (carry & (carry + 1)) != 0)
        return i; /* not the continuation bytes of one character */
    unsigned lead_at = (unsigned)__builtin_popcountll(carry);
    size_t end = utf8_f0_run_end_avx512(src, i, len, lead_at);
    if (end != i) {
        size_t characters = (end - i) / 4;
        s->continuations += 3 * characters;
        s->four_byte += characters;
        __mmask64 leads = (__mmask64)(0x1111111111111111ull << lead_at);
        s->range = vec_or(s->range, utf8_second_byte_sums_avx512(k, k->offsets, vec_load(src + i),
                                                                 vec_load(src + i - 1), ~leads));
    }
    return end;
}

/* 1 if what the state has seen holds an error. */
static inline int utf8_census_failed(const utf8_census_state_avx512 *s)
{
    return (s->structure | (uint64_t)_mm512_test_epi8_mask(s->range, vec_splat(0x40))) != 0;
}

/* Blocks with this many 4-byte characters or more: text of 4-byte
 * characters, where utf8_scan_avx512 is as fast (it needs no second pass
 * for them), so the rest of the text goes there. */
#define UTF8_CENSUS_HAND_OVER 64

/* The census of src[0..len), src[0..end) well-formed but for the
 * continuation bytes s->carry expects from src[end] on, and counted in
 * *s: the rest is read by utf8_scan_avx512, from the lead of the
 * character that the carry leaves unfinished, if any. */
static size_t utf8_census_hand_over_avx512(const utf8_census_state_avx512 *s, const uint8_t *src,
                                           size_t len, size_t end, utf8_census *census)
{
    size_t start = end;
    if (s->carry != 0)
        do
            start--;
        while (utf8_is_continuation(src[start]));
    size_t continuations = s->continuations, four_byte = s->four_byte;
    if (start < end) {
        /* the lead at src[start] and its continuation bytes before end */
        continuations -= end - start - 1;
        four_byte -= src[start] >= 0xF0;
    }
    utf8_census rest = {0, 0};
    size_t bound = utf8_scan_avx512(src + start, len - start, 1, &rest, UTF8_LOOKUP_UTF8);
    if (bound != len - start)
        return start + bound;
    census->code_points = start - continuations + rest.code_points;
    census->utf16_units = census->code_points + four_byte + (rest.utf16_units - rest.code_points);
    return len;
}

/* The bytes looked at to choose a loop for the census. */
#define UTF8_CENSUS_SAMPLE (8 * VEC_BYTES)

/* 1 if among the first UTF8_CENSUS_SAMPLE bytes of src[0..len) is a lead
 * C0, C1, E0, ED or F0..FF (Indic and Thai scripts: E0; Hangul: ED):
 * text whose blocks all check their second bytes. */
static inline int utf8_census_ranged_text(const uint8_t *src, size_t len)
{
    const vec_t ranged_leads = _mm512_loadu_si512((const void *)utf8_ranged_leads);
    size_t sample = len < UTF8_CENSUS_SAMPLE ? len : UTF8_CENSUS_SAMPLE;
    vec_t found = vec_splat(0);
    for (size_t i = 0; i < sample; i += VEC_BYTES) {
        vec_t v = sample - i >= VEC_BYTES ? vec_load(src + i) : vec_load_partial(src + i, sample - i);
        found = vec_or(found, _mm512_maskz_permutexvar_epi8(_mm512_cmpge_epu8_mask(v, vec_splat(0xC0)), v,
                                                            ranged_leads));
    }
    return _mm512_test_epi8_mask(found, found) != 0;
}

size_t utf8_validate_census_avx512(const uint8_t *src, size_t len, utf8_census *census)
{
    utf8_census_constants_avx512 k;
    k.continuation_floor = vec_splat(0xC0); /* -64: 80..BF are the signed bytes below it */
    k.lead3 = vec_splat(0xE0);
    k.lead4 = vec_splat(0xF0);
    k.offsets = _mm512_loadu_si512((const void *)utf8_second_byte_offsets[0]);
    k.offsets_without_four_byte = _mm512_loadu_si512((const void *)utf8_second_byte_offsets[1]);
    k.ranged_leads = _mm512_loadu_si512((const void *)utf8_ranged_leads);
    /* kept in registers: gcc would otherwise broadcast them anew in the loop */
    __asm__("" : "+v"(k.continuation_floor), "+v"(k.lead3), "+v"(k.lead4), "+v"(k.offsets),
                 "+v"(k.offsets_without_four_byte), "+v"(k.ranged_leads));
    const vec_t zero = vec_splat(0);
    utf8_census_state_avx512 s = {0, 0, zero, 0, 0};
    size_t i = 0, clean = 0;
    /* The loop reads from a 64-byte boundary (a load that straddles two
     * cache lines costs about twice one that does not): the bytes before
     * it (or the first 64, when src is on one) are one vector, at its end,
     * after zeros (ASCII, as before the text). */
    size_t head = VEC_BYTES - (size_t)((uintptr_t)src % VEC_BYTES);
    /* whether the 4-byte leads before i were counted */
    int counted_four_byte = 1;
    if (len >= head + 2 * VEC_BYTES) {
        vec_t v = _mm512_maskz_loadu_epi8(~(__mmask64)0 << (VEC_BYTES - head),
                                          (const void *)((uintptr_t)src + head - VEC_BYTES));
        utf8_census_vector_avx512(&k, &s, v, vec_prev(v, zero, 1));
        i = head;
        unsigned four_byte_blocks = 0;
        /* blocks run with the second bytes checked after one that needed it
         * (none for text whose first bytes show such a lead) */
        unsigned full_range_blocks = 0;
        const int ranged_text = utf8_census_ranged_text(src, len);
        while (len - i >= 2 * VEC_BYTES) {
            size_t end = i;
            if (four_byte_blocks > 0) {
                size_t run = utf8_census_f0_run_avx512(&k, &s, src, i, len);
                if (run != i) {
                    if (utf8_census_failed(&s))
                        return utf8_lookup_boundary_before(src, clean);
                    clean = i = run;
                    continue;
                }
                four_byte_blocks--;
                end = utf8_census_steps_avx512(&k, &s, src, i, len, i + UTF8_CENSUS_BLOCK, 1, 1);
                counted_four_byte = 1;
            } else {
                utf8_census_state_avx512 before = s;
                /* (the lead before the block has its second byte in it) */
                int ranged = ranged_text || full_range_blocks > 0 ||
                             (src[i - 1] >= 0xC0 && utf8_ranged_leads[src[i - 1] & 0x3F] != 0);
                /* First the loop of its own: over the rest of the text, up
                 * to an error, a 4-byte lead or (second bytes not checked)
                 * a lead with a range of its own; or over one block with
                 * the second bytes checked after such a lead. */
                if (ranged_text)
                    end = utf8_census_lead_steps_avx512(&k, &s, src, i, len, len, 1);
                else if (full_range_blocks > 0)
                    end = utf8_census_lead_steps_avx512(&k, &s, src, i, len, i + UTF8_CENSUS_BLOCK, 1);
                else
                    end = utf8_census_lead_steps_avx512(&k, &s, src, i, len, len, 0);
                if (full_range_blocks > 0)
                    full_range_blocks--;
                if (end != i) {
                    /* (the head vector's errors are in s) */
                    if (utf8_census_failed(&s))
                        return utf8_lookup_boundary_before(src, clean);
                    counted_four_byte = 0;
                    clean = i = end;
                    continue;
                }
                /* Then, for that block, the steps above */
                if (!ranged) {
                    end = utf8_census_steps_avx512(&k, &s, src, i, len, i + UTF8_CENSUS_BLOCK, 0, 0);
                    if (utf8_census_failed(&s)) {
                        s = before;
                        full_range_blocks = UTF8_CENSUS_FULL_RANGE_BLOCKS;
                        ranged = 1;
                    }
                }
                if (ranged)
                    end = utf8_census_steps_avx512(&k, &s, src, i, len, i + UTF8_CENSUS_BLOCK, 0, 1);
                if (!utf8_census_failed(&s)) {
                    counted_four_byte = 0;
                } else {
                    /* again, with the 4-byte leads: those the block before
                     * carries over too (counted if they were not) */
                    s = before;
                    uint64_t carry4 = utf8_four_byte_carry(src, i);
                    s.carry |= carry4;
                    if (!counted_four_byte)
                        s.four_byte += (size_t)__builtin_popcountll(carry4);
                    utf8_census_steps_avx512(&k, &s, src, i, end, end, 1, 1);
                    four_byte_blocks = UTF8_CENSUS_FOUR_BYTE_BLOCKS;
                    counted_four_byte = 1;
                    if (!utf8_census_failed(&s) && end < len &&
                        s.four_byte - before.four_byte >= UTF8_CENSUS_HAND_OVER) {
                        /* a run of F0 characters stays here; other
                         * 4-byte text goes to the old loop */
                        size_t run = utf8_census_f0_run_avx512(&k, &s, src, end, len);
                        if (run == end)
                            return utf8_census_hand_over_avx512(&s, src, len, end, census);
                        end = run;
                    }
                }
            }
            if (utf8_census_failed(&s))
                return utf8_lookup_boundary_before(src, clean);
            clean = i = end;
        }
    }
    /* The rest: vectors of up to 64 bytes, the last one padded with zeros
     * (ASCII, so that a character the end cuts off is a lead not
     * continued). */
    uint64_t carry4 = utf8_four_byte_carry(src, i);
    s.carry |= carry4;
    if (!counted_four_byte)
        s.four_byte += (size_t)__builtin_popcountll(carry4);
    while (i < len) {
        size_t left = len - i, n = left < VEC_BYTES ? left : VEC_BYTES;
        __mmask64 in_bounds = n == VEC_BYTES ? ~(__mmask64)0 : ((__mmask64)1 << n) - 1;
        vec_t v = _mm512_maskz_loadu_epi8(in_bounds, (const void *)(src + i));
        vec_t previous_1 = i == 0 ? vec_prev(v, zero, 1)
                                  : _mm512_maskz_loadu_epi8(in_bounds, (const void *)(src + i - 1));
        utf8_census_vector_avx512(&k, &s, v, previous_1);
        i += n;
    }
    s.structure |= s.carry; /* what the end cuts off */
    if (utf8_census_failed(&s))
        return utf8_lookup_boundary_before(src, clean);
    census->code_points = len - s.continuations;
    census->utf16_units = census->code_points + s.four_byte;
    return len;
}

/* ---- counts of unchecked UTF-8 (kernels.h, utf8_code_points and
 * utf8_utf16_units; csrc/lengths.c is the reference) ---- */

/* Byte weights by high nibble: 1 per code point, 2 for a 4-byte lead
 * F0..FF (a surrogate pair, D91), 0 for a continuation byte. */
static const uint8_t utf8_utf16_weights[16] = {1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 2};

/* Four vectors per step, each in a byte-lane counter of its own that gains
 * at most 2 per step: 127 steps stay below 256. */
#define UTF8_COUNT_FOLD_STEPS 127

/* How many bytes come before the loop's first 64-byte boundary (0 when the
 * input is too short for the loop to run from there). */
static inline size_t utf8_count_head_avx512(const uint8_t *src, size_t len)
{
    size_t head = (size_t)(-(uintptr_t)src) & (VEC_BYTES - 1);
    return len >= head + 4 * VEC_BYTES ? head : 0;
}

size_t utf8_code_points_avx512(const uint8_t *src, size_t len)
{
    const vec_t zero = vec_splat(0), above_continuation = vec_splat(0xBF); /* -65 */
    vec_t totals = zero;
    /* The bytes before a 64-byte boundary first, masked: the loop's loads
     * then never straddle two cache lines. */
    size_t i = utf8_count_head_avx512(src, len);
    if (i != 0) {
        __mmask64 in_head = ((__mmask64)1 << i) - 1;
        vec_t head = _mm512_maskz_loadu_epi8(in_head, (const void *)src);
        totals = _mm512_sad_epu8(_mm512_maskz_mov_epi8(_mm512_cmpgt_epi8_mask(head, above_continuation) & in_head,
                                                       vec_splat(1)), zero);
    }
    while (len - i >= 4 * VEC_BYTES) {
        /* four chains of additions, one per vector of a step */
        vec_t a = zero, b = zero, d = zero, e = zero;
        for (unsigned step = 0; step < UTF8_COUNT_FOLD_STEPS && len - i >= 4 * VEC_BYTES;
             step++, i += 4 * VEC_BYTES) {
            a = vec_count_gt8(a, vec_load(src + i), above_continuation);
            b = vec_count_gt8(b, vec_load(src + i + VEC_BYTES), above_continuation);
            d = vec_count_gt8(d, vec_load(src + i + 2 * VEC_BYTES), above_continuation);
            e = vec_count_gt8(e, vec_load(src + i + 3 * VEC_BYTES), above_continuation);
        }
        totals = _mm512_add_epi64(
            totals, _mm512_add_epi64(_mm512_add_epi64(_mm512_sad_epu8(a, zero), _mm512_sad_epu8(b, zero)),
                                     _mm512_add_epi64(_mm512_sad_epu8(d, zero), _mm512_sad_epu8(e, zero))));
    }
    /* The rest, a vector at a time, the last one masked. */
    vec_t tail = zero;
    while (i < len) {
        size_t left = len - i;
        __mmask64 in_bounds = left >= VEC_BYTES ? ~(__mmask64)0 : (((__mmask64)1 << left) - 1);
        vec_t input = _mm512_maskz_loadu_epi8(in_bounds, (const void *)(src + i));
        tail = _mm512_mask_add_epi8(tail, in_bounds & _mm512_cmpgt_epi8_mask(input, above_continuation),
                                    tail, vec_splat(1));
        i += left >= VEC_BYTES ? VEC_BYTES : left;
    }
    totals = _mm512_add_epi64(totals, _mm512_sad_epu8(tail, zero));
    return (size_t)_mm512_reduce_add_epi64(totals);
}

size_t utf8_utf16_units_avx512(const uint8_t *src, size_t len)
{
    const vec_t zero = vec_splat(0), weights = vec_table(utf8_utf16_weights);
    vec_t totals = zero;
    size_t i = utf8_count_head_avx512(src, len);
    if (i != 0) {
        __mmask64 in_head = ((__mmask64)1 << i) - 1;
        vec_t head = _mm512_maskz_loadu_epi8(in_head, (const void *)src);
        totals = _mm512_sad_epu8(_mm512_maskz_permutexvar_epi8(in_head, _mm512_srli_epi16(head, 4), weights), zero);
    }
    while (len - i >= 4 * VEC_BYTES) {
        vec_t a = zero, b = zero, d = zero, e = zero;
        for (unsigned step = 0; step < UTF8_COUNT_FOLD_STEPS && len - i >= 4 * VEC_BYTES;
             step++, i += 4 * VEC_BYTES) {
            a = _mm512_add_epi8(a, vec_lookup_high(weights, vec_load(src + i)));
            b = _mm512_add_epi8(b, vec_lookup_high(weights, vec_load(src + i + VEC_BYTES)));
            d = _mm512_add_epi8(d, vec_lookup_high(weights, vec_load(src + i + 2 * VEC_BYTES)));
            e = _mm512_add_epi8(e, vec_lookup_high(weights, vec_load(src + i + 3 * VEC_BYTES)));
        }
        totals = _mm512_add_epi64(
            totals, _mm512_add_epi64(_mm512_add_epi64(_mm512_sad_epu8(a, zero), _mm512_sad_epu8(b, zero)),
                                     _mm512_add_epi64(_mm512_sad_epu8(d, zero), _mm512_sad_epu8(e, zero))));
    }
    vec_t tail = zero;
    while (i < len) {
        size_t left = len - i;
        __mmask64 in_bounds = left >= VEC_BYTES ? ~(__mmask64)0 : (((__mmask64)1 << left) - 1);
        vec_t input = _mm512_maskz_loadu_epi8(in_bounds, (const void *)(src + i));
        tail = _mm512_add_epi8(tail, _mm512_maskz_permutexvar_epi8(
                                         in_bounds, _mm512_srli_epi16(input, 4), weights));
        i += left >= VEC_BYTES ? VEC_BYTES : left;
    }
    totals = _mm512_add_epi64(totals, _mm512_sad_epu8(tail, zero));
    return (size_t)_mm512_reduce_add_epi64(totals);
}

#if defined(__clang__)
#pragma clang attribute pop
#elif defined(__GNUC__)
#pragma GCC pop_options
#endif
#endif
