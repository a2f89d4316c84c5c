/*
 * x86_latin1.c -- the Latin-1 blocks of the x86 kernels (kernels.h:
 * latin1_to_utf8, latin1_to_utf16, latin1_to_utf32, utf8_to_latin1,
 * utf16_to_latin1, utf32_to_latin1): Latin-1 widened to UTF-8, UTF-16 and
 * UTF-32 (the last two by latin1_widen.h, compiled here once per kernel),
 * and UTF-8, UTF-16 and UTF-32 narrowed to Latin-1, for the sse4, avx2 and
 * avx512 kernels (avx2 takes sse4's UTF-16 and UTF-32 narrowing blocks).
 *
 * A Latin-1 byte is the code point of its value, so its UTF-8 form is the
 * byte itself below 80 and two bytes C2..C3 80..BF from 80 to FF (Unicode
 * 3.9 Table 3-6: 110000yy 10xxxxxx).  Widening writes each byte as a 16-bit
 * lane holding that form, first byte low, and then drops the second byte of
 * the lanes below 80: by a PSHUFB control chosen by the 8-bit mask of the
 * bytes above 7F (sse4, avx2: utfkit_two_byte_prefixes of x86_shuffle_tables.h;
 * narrowing uses gen_x86_latin1_tables.py's) or by VPCOMPRESSB
 * (avx512, with VBMI2).  Narrowing is the reverse: in a vector of UTF-8 the
 * only bytes it takes are ASCII and the pairs C2..C3 80..BF (Table 3-7, row
 * C2..DF, restricted to the code points U+0080..U+00FF); each pair's value
 * is made at its lead byte, and the continuation bytes are dropped the same
 * two ways.  A vector holding any other byte is converted up to it, and the
 * block stops there, before a character boundary, for the scalar reader in
 * latin1.c to decide (an error, a '?' or a character above U+00FF).
 *
 * The sse4 and avx2 blocks store 16 bytes at a time, past the bytes a
 * store produces; each store's excess is overwritten by the next store, and
 * the last is held back and written exactly, so that, as kernels.h asks,
 * exactly dst[0..*written) is written.  The avx512 widening masks every
 * store; the avx512 narrowing stores whole vectors while 64 bytes of input
 * remain (its output never passes its input, so they are within the
 * caller's room, as kernels.h allows) and masks the rest.
 */
#include "../kernels.h"

#if defined(UTFKIT_X86_64)
#include <immintrin.h>
#include <string.h>

#include "x86_latin1_tables.h"
#include "x86_shuffle_tables.h"

/* ---- sse4: SSSE3 (PSHUFB), SSE4.1 (PMOVZXBW, PBLENDVB) ---- */
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("ssse3,sse4.1"))), apply_to = function)
#elif defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("ssse3,sse4.1")
#endif

/* The set bits of an 8-bit mask (this file's sse4 functions are compiled
 * for SSSE3 and SSE4.1 only: no POPCNT instruction). */
static inline size_t bits_set_8(unsigned mask)
{
    mask = mask - ((mask >> 1) & 0x55);
    mask = (mask & 0x33) + ((mask >> 2) & 0x33);
    return (mask + (mask >> 4)) & 0x0F;
}

/* Eight Latin-1 code points in 16-bit lanes -> the lanes' UTF-8 forms,
 * first byte low (Table 3-6); a lane below 80 keeps its value. */
static inline __m128i utf8_forms_of_lanes(__m128i code_points)
{
    __m128i lead = _mm_or_si128(_mm_srli_epi16(code_points, 6), _mm_set1_epi16(0xC0));
    __m128i trail = _mm_or_si128(_mm_and_si128(code_points, _mm_set1_epi16(0x3F)),
                                 _mm_set1_epi16(0x80));
    __m128i two_bytes = _mm_or_si128(lead, _mm_slli_epi16(trail, 8));
    return _mm_blendv_epi8(code_points, two_bytes,
                           _mm_cmpgt_epi16(code_points, _mm_set1_epi16(0x7F)));
}

/* The UTF-8 form of eight Latin-1 bytes (the low half of `bytes`, whose
 * bytes above 7F are flagged in `high`), gathered to the front: 8 +
 * popcount(high) bytes. */
static inline __m128i widened_half(__m128i bytes, unsigned high)
{
    __m128i forms = utf8_forms_of_lanes(_mm_cvtepu8_epi16(bytes));
    return _mm_shuffle_epi8(forms, _mm_load_si128((const __m128i *)utfkit_two_byte_prefixes[high]));
}

/* Where a block's output stands: dst[0..out) written exactly, and the bytes
 * in `held` (held_length of them, at dst + out) still to be stored. */
typedef struct held_output {
    size_t out;
    __m128i held;
    size_t held_length;
} held_output;

/* Stores the held bytes with a 16-byte store (its excess beyond
 * held_length is overwritten by the caller's next store) and holds `next`. */
static inline void store_and_hold(uint8_t *dst, held_output *output, __m128i next, size_t length)
{
    _mm_storeu_si128((__m128i *)(dst + output->out), output->held);
    output->out += output->held_length;
    output->held = next;
    output->held_length = length;
}

/* Writes the held bytes exactly; returns the bytes written in all. */
static inline size_t release_held(uint8_t *dst, held_output *output)
{
    uint8_t bytes[16];
    _mm_storeu_si128((__m128i *)bytes, output->held);
    memcpy(dst + output->out, bytes, output->held_length);
    return output->out + output->held_length;
}

/* 16 bytes of Latin-1 at src -> UTF-8 (16 to 32 bytes).  Every store is 16
 * bytes, at least as long as the excess of the one before; the caller has
 * room for 32 bytes from the held bytes' start. */
static inline void widen_16(const uint8_t *src, uint8_t *dst, held_output *output)
{
    __m128i bytes = _mm_loadu_si128((const __m128i *)src);
    unsigned high = (unsigned)_mm_movemask_epi8(bytes);
    if (high == 0) {
        store_and_hold(dst, output, bytes, 16);
        return;
    }
    unsigned low_half = high & 0xFF, high_half = high >> 8;
    store_and_hold(dst, output, widened_half(bytes, low_half),
                   8 + bits_set_8(low_half));
    store_and_hold(dst, output, widened_half(_mm_srli_si128(bytes, 8), high_half),
                   8 + bits_set_8(high_half));
}

size_t utfkit_latin1_to_utf8_sse4(const uint8_t *src, size_t len, int big_endian, uint8_t *dst,
                                  size_t *written)
{
    (void)big_endian;
    held_output output = {0, _mm_setzero_si128(), 0};
    size_t i = 0;
    for (; len - i >= 16; i += 16)
        widen_16(src + i, dst, &output);
    *written = release_held(dst, &output);
    return i;
}

/* How many of the 16 bytes of UTF-8 at src narrow_16 takes: up to the
 * first byte that is neither ASCII nor part of a pair C2..C3 80..BF (Table
 * 3-7, row C2..DF), and never a lead byte without the continuation byte
 * after it, so that they end on a character boundary.  `high` flags the
 * bytes above 7F, `lead` the bytes C2..C3, `continuation` the bytes 80..BF,
 * each as bit k for byte k. */
static inline unsigned narrowed_prefix(unsigned high, unsigned lead, unsigned continuation,
                                       unsigned count)
{
    unsigned last = 1u << (count - 1);
    unsigned whole_lead = lead & ~last; /* the pair of the last byte is not all here */
    unsigned out_of_place = (high & ~(lead | continuation)) | (continuation ^ (whole_lead << 1));
    unsigned taken = lead & last ? count - 1 : count;
    if (out_of_place != 0) {
        unsigned first = (unsigned)__builtin_ctz(out_of_place);
        if (first != 0 && (lead >> (first - 1) & 1))
            first--; /* the lead byte of a pair cut at `first` */
        taken = first < taken ? first : taken;
    }
    return taken;
}

/* 16 bytes of UTF-8 at src -> Latin-1, up to narrowed_prefix's end;
 * returns the bytes read.  The caller has room for 16 bytes from the held
 * bytes' start and for 16 from src's (narrowing never writes more bytes
 * than it reads). */
static inline unsigned narrow_16(const uint8_t *src, uint8_t *dst, held_output *output)
{
    __m128i bytes = _mm_loadu_si128((const __m128i *)src);
    unsigned high = (unsigned)_mm_movemask_epi8(bytes);
    if (high == 0) {
        store_and_hold(dst, output, bytes, 16);
        return 16;
    }
    __m128i is_lead = _mm_cmpeq_epi8(_mm_and_si128(bytes, _mm_set1_epi8((char)0xFE)),
                                     _mm_set1_epi8((char)0xC2));
    /* 80..BF are the signed bytes below -64 (C0) */
    __m128i is_continuation = _mm_cmplt_epi8(bytes, _mm_set1_epi8((char)0xC0));
    unsigned lead = (unsigned)_mm_movemask_epi8(is_lead);
    unsigned continuation = (unsigned)_mm_movemask_epi8(is_continuation);
    unsigned taken = narrowed_prefix(high, lead, continuation, 16);
    if (taken == 0)
        return 0;
    /* Table 3-6 backwards: 110000yy 10xxxxxx -> yyxxxxxx, made at the lead */
    __m128i following = _mm_srli_si128(bytes, 1);
    __m128i value = _mm_or_si128(_mm_slli_epi16(_mm_and_si128(bytes, _mm_set1_epi8(0x03)), 6),
                                 _mm_and_si128(following, _mm_set1_epi8(0x3F)));
    __m128i narrowed = _mm_blendv_epi8(bytes, value, is_lead);
    unsigned kept = ~continuation & ((1u << taken) - 1);
    unsigned low_half = kept & 0xFF, high_half = kept >> 8;
    __m128i high_control = _mm_add_epi8(
        _mm_load_si128((const __m128i *)utfkit_latin1_kept_bytes[high_half]), _mm_set1_epi8(8));
    store_and_hold(dst, output,
                    _mm_shuffle_epi8(narrowed, _mm_load_si128((const __m128i *)
                                                              utfkit_latin1_kept_bytes[low_half])),
                    bits_set_8(low_half));
    store_and_hold(dst, output, _mm_shuffle_epi8(narrowed, high_control),
                    bits_set_8(high_half));
    return taken;
}

size_t utfkit_utf8_to_latin1_sse4(const uint8_t *src, size_t len, int big_endian, uint8_t *dst,
                                  size_t *written)
{
    (void)big_endian;
    held_output output = {0, _mm_setzero_si128(), 0};
    size_t i = 0;
    while (len - i >= 16) {
        unsigned taken = narrow_16(src + i, dst, &output);
        i += taken;
        if (taken < 15)
            break; /* stopped before a byte it does not take */
    }
    *written = release_held(dst, &output);
    return i;
}

/* UTF-16 and UTF-32 narrowed to Latin-1: a unit 0000..00FF is the code
 * point of its value (Unicode 3.9 D91, D90; never a surrogate), written as
 * that byte; a stretch of 16 units is taken whole or not at all, and the
 * block stops before the first stretch with a unit above 00FF. */
size_t utfkit_utf16_to_latin1_sse4(const uint8_t *src, size_t len, int big_endian, uint8_t *dst,
                                   size_t *written)
{
    /* the byte of each unit that must be 00 for the unit to be at most 00FF */
    const __m128i high_byte = _mm_set1_epi16(big_endian & 1 ? 0x00FF : (short)0xFF00);
    size_t units = len / 2, k = 0;
    for (; units - k >= 16; k += 16) {
        __m128i first = _mm_loadu_si128((const __m128i *)(src + 2 * k));
        __m128i second = _mm_loadu_si128((const __m128i *)(src + 2 * k + 16));
        if (!_mm_testz_si128(_mm_or_si128(first, second), high_byte))
            break;
        if (big_endian & 1) {
            first = _mm_srli_epi16(first, 8);
            second = _mm_srli_epi16(second, 8);
        }
        _mm_storeu_si128((__m128i *)(dst + k), _mm_packus_epi16(first, second));
    }
    *written = k;
    return 2 * k;
}

size_t utfkit_utf32_to_latin1_sse4(const uint8_t *src, size_t len, int big_endian, uint8_t *dst,
                                   size_t *written)
{
    const __m128i high_bytes = _mm_set1_epi32(big_endian & 1 ? 0x00FFFFFF : (int)0xFFFFFF00);
    size_t units = len / 4, k = 0;
    for (; units - k >= 16; k += 16) {
        __m128i a = _mm_loadu_si128((const __m128i *)(src + 4 * k));
        __m128i b = _mm_loadu_si128((const __m128i *)(src + 4 * k + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(src + 4 * k + 32));
        __m128i d = _mm_loadu_si128((const __m128i *)(src + 4 * k + 48));
        if (!_mm_testz_si128(_mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d)), high_bytes))
            break;
        if (big_endian & 1) {
            a = _mm_srli_epi32(a, 24);
            b = _mm_srli_epi32(b, 24);
            c = _mm_srli_epi32(c, 24);
            d = _mm_srli_epi32(d, 24);
        }
        /* (every unit is at most 00FF: the saturating packs keep them) */
        __m128i low = _mm_packus_epi32(a, b), high = _mm_packus_epi32(c, d);
        _mm_storeu_si128((__m128i *)(dst + k), _mm_packus_epi16(low, high));
    }
    *written = k;
    return 4 * k;
}

/* Latin-1 widened to UTF-16 and UTF-32 (latin1_widen.h), 16 bytes per store. */
static inline __m128i four_bytes(const uint8_t *p)
{
    int32_t bytes;
    memcpy(&bytes, p, 4);
    return _mm_cvtsi32_si128(bytes);
}
#define WIDEN_VEC_BYTES 16
#define widen_vec_t __m128i
#define widen_lanes16(p) _mm_cvtepu8_epi16(_mm_loadl_epi64((const __m128i *)(p)))
#define widen_lanes32(p) _mm_cvtepu8_epi32(four_bytes(p))
#define widen_shl16(v, n) _mm_slli_epi16(v, n)
#define widen_shl32(v, n) _mm_slli_epi32(v, n)
#define widen_store(p, v) _mm_store_si128((__m128i *)(p), v)
#define widen_storeu(p, v) _mm_storeu_si128((__m128i *)(p), v)
#define LATIN1_WIDEN_NAME(stem) stem##_sse4
#include "latin1_widen.h"

#if defined(__clang__)
#pragma clang attribute pop
#elif defined(__GNUC__)
#pragma GCC pop_options
#endif

/* ---- avx2: the sse4 steps behind 32-byte ASCII tests ---- */
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,popcnt"))), apply_to = function)
#elif defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx2,popcnt")
#endif

size_t utfkit_latin1_to_utf8_avx2(const uint8_t *src, size_t len, int big_endian, uint8_t *dst,
                                  size_t *written)
{
    (void)big_endian;
    held_output output = {0, _mm_setzero_si128(), 0};
    size_t i = 0;
    for (; len - i >= 32; i += 32) {
        __m256i bytes = _mm256_loadu_si256((const __m256i *)(src + i));
        if (_mm256_movemask_epi8(bytes) == 0) {
            store_and_hold(dst, &output, _mm256_castsi256_si128(bytes), 16);
            store_and_hold(dst, &output, _mm256_extracti128_si256(bytes, 1), 16);
            continue;
        }
        widen_16(src + i, dst, &output);
        widen_16(src + i + 16, dst, &output);
    }
    for (; len - i >= 16; i += 16)
        widen_16(src + i, dst, &output);
    *written = release_held(dst, &output);
    return i;
}

size_t utfkit_utf8_to_latin1_avx2(const uint8_t *src, size_t len, int big_endian, uint8_t *dst,
                                  size_t *written)
{
    (void)big_endian;
    held_output output = {0, _mm_setzero_si128(), 0};
    size_t i = 0;
    while (len - i >= 16) {
        if (len - i >= 32) {
            __m256i bytes = _mm256_loadu_si256((const __m256i *)(src + i));
            if (_mm256_movemask_epi8(bytes) == 0) {
                store_and_hold(dst, &output, _mm256_castsi256_si128(bytes), 16);
                store_and_hold(dst, &output, _mm256_extracti128_si256(bytes, 1), 16);
                i += 32;
                continue;
            }
        }
        unsigned taken = narrow_16(src + i, dst, &output);
        i += taken;
        if (taken < 15)
            break;
    }
    *written = release_held(dst, &output);
    return i;
}

/* Latin-1 widened to UTF-16 and UTF-32 (latin1_widen.h), 32 bytes per store. */
#define WIDEN_VEC_BYTES 32
#define widen_vec_t __m256i
#define widen_lanes16(p) _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(p)))
#define widen_lanes32(p) _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(p)))
#define widen_shl16(v, n) _mm256_slli_epi16(v, n)
#define widen_shl32(v, n) _mm256_slli_epi32(v, n)
#define widen_store(p, v) _mm256_store_si256((__m256i *)(p), v)
#define widen_storeu(p, v) _mm256_storeu_si256((__m256i *)(p), v)
#define LATIN1_WIDEN_NAME(stem) stem##_avx2
#include "latin1_widen.h"

#if defined(__clang__)
#pragma clang attribute pop
#elif defined(__GNUC__)
#pragma GCC pop_options
#endif

/* ---- avx512: F, BW, VBMI (VPERMB), VBMI2 (VPCOMPRESSB) ---- */
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi2,popcnt"))), apply_to = function)
#elif defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi2,popcnt")
#endif

/* The first n bits (n <= 64). */
static inline uint64_t first_bits(size_t n)
{
    return _bzhi_u64(~0ull, (unsigned)n);
}

size_t utfkit_latin1_to_utf8_avx512(const uint8_t *src, size_t len, int big_endian, uint8_t *dst,
                                    size_t *written)
{
    (void)big_endian;
    const __m512i low_six = _mm512_set1_epi16(0x3F);
    size_t i = 0, out = 0;
    /* 32 bytes at a time (the last ones masked): each a 16-bit lane holding
     * its UTF-8 form (Table 3-6), whose second byte VPCOMPRESSB keeps only
     * above 7F. */
    while (i < len) {
        if (len - i >= 128) { /* ASCII, two vectors at a time, unmasked */
            __m512i first = _mm512_loadu_si512((const void *)(src + i));
            __m512i second = _mm512_loadu_si512((const void *)(src + i + 64));
            if (_mm512_movepi8_mask(_mm512_or_si512(first, second)) == 0) {
                _mm512_storeu_si512((void *)(dst + out), first);
                _mm512_storeu_si512((void *)(dst + out + 64), second);
                i += 128;
                out += 128;
                continue;
            }
        }
        size_t count = len - i < 32 ? len - i : 32;
        __m256i bytes = _mm256_maskz_loadu_epi8((__mmask32)first_bits(count), src + i);
        uint32_t high = _mm256_movepi8_mask(bytes);
        __m512i code_points = _mm512_cvtepu8_epi16(bytes);
        __m512i two_bytes = _mm512_or_si512(
            _mm512_or_si512(_mm512_srli_epi16(code_points, 6), _mm512_set1_epi16(0xC0)),
            _mm512_slli_epi16(_mm512_or_si512(_mm512_and_si512(code_points, low_six),
                                              _mm512_set1_epi16(0x80)), 8));
        __m512i forms = _mm512_mask_blend_epi16(high, code_points, two_bytes);
        uint64_t kept = (0x5555555555555555ull | _pdep_u64(high, 0xAAAAAAAAAAAAAAAAull)) &
                        first_bits(2 * count);
        size_t produced = count + (size_t)__builtin_popcount(high);
        _mm512_mask_storeu_epi8(dst + out, first_bits(produced),
                                _mm512_maskz_compress_epi8(kept, forms));
        i += count;
        out += produced;
    }
    *written = out;
    return i;
}

/* UTF-8 narrowed to Latin-1.  Each continuation byte 80..BF is where its
 * character's Latin-1 byte is made: itself after C2, itself + 40 after C3
 * (Unicode 3.9 Table 3-6 backwards: 110000yy 10xxxxxx -> yyxxxxxx, and yy
 * is 0 or 1); VPCOMPRESSB then drops the lead bytes.
 *
 * The bytes taken are ASCII and the pairs C2..C3 80..BF (Table 3-7, row
 * C2..DF).  A byte is out of place when it is above 7F and neither of
 * those ("another byte above 7F": C0, C1, C4..FF), or when it is a
 * continuation byte and the byte before it is not a lead byte C2..C3, or
 * the other way round.  The block stops at the first byte out of place,
 * before the lead byte of a pair it breaks, and before a lead byte that
 * ends the input. */

/* Where a narrowing stands: src[0..i) read, dst[0..out) written, and bit 0
 * of lead_before set when src[i - 1] is a lead byte C2..C3 whose
 * continuation byte is still to come (it has made no byte yet). */
typedef struct narrowing {
    size_t i, out;
    uint64_t lead_before;
} narrowing;

/* The exact reading: a vector of 64 bytes (the last ones masked) at a
 * time, each checked before it is written, up to `stop` (<= len) or the
 * first byte out of place.  A lead byte just before `stop` is carried in
 * lead_before when src[stop] exists (stop < len), and found missing its
 * continuation byte at the end of src. */
static inline void narrow_exactly(const uint8_t *src, size_t stop, size_t len, uint8_t *dst,
                                  narrowing *at)
{
    const __m512i fe = _mm512_set1_epi8((char)0xFE);
    const __m512i c2 = _mm512_set1_epi8((char)0xC2);
    const __m512i c3 = _mm512_set1_epi8((char)0xC3);
    const __m512i c0 = _mm512_set1_epi8((char)0xC0);
    const __m512i upper = _mm512_set1_epi8(0x40);
    size_t i = at->i, out = at->out;
    uint64_t lead_before = at->lead_before;
    uint64_t c3_before = i != 0 && src[i - 1] == 0xC3;
    while (i < stop) {
        size_t count = stop - i < 64 ? stop - i : 64;
        uint64_t present = first_bits(count);
        __m512i bytes = _mm512_maskz_loadu_epi8(present, src + i);
        uint64_t high = _mm512_movepi8_mask(bytes);
        uint64_t lead = _mm512_cmpeq_epi8_mask(_mm512_and_si512(bytes, fe), c2);
        uint64_t is_c3 = _mm512_cmpeq_epi8_mask(bytes, c3);
        /* 80..BF are the signed bytes below -64 (C0) */
        uint64_t continuation = _mm512_cmplt_epi8_mask(bytes, c0);
        /* A lead byte expects a continuation byte after it: at bit 64 (the
         * next vector's byte 0) it is carried, at bit count < 64 (past the
         * vector; a byte the masked load made 00) it is carried when the
         * input goes on, else found missing. */
        uint64_t expected = lead << 1 | lead_before;
        uint64_t checked = i + count < len ? present : ~0ull;
        uint64_t out_of_place = ((high ^ lead ^ continuation) | (continuation ^ expected)) & checked;
        size_t taken = count;
        if (out_of_place != 0) {
            size_t first = (size_t)__builtin_ctzll(out_of_place);
            taken = first - (first != 0 && (lead >> (first - 1) & 1));
            if (taken == 0)
                break; /* (a lead byte before it is given back by the caller) */
        }
        __m512i narrowed = _mm512_mask_add_epi8(bytes, is_c3 << 1 | c3_before, bytes, upper);
        uint64_t kept = ~lead & first_bits(taken);
        size_t produced = (size_t)__builtin_popcountll(kept);
        _mm512_mask_storeu_epi8(dst + out, first_bits(produced),
                                _mm512_maskz_compress_epi8(kept, narrowed));
        i += taken;
        out += produced;
        lead_before = taken == count ? lead >> (count - 1) & 1 : 0;
        c3_before = is_c3 >> (count - 1) & 1;
        if (taken != count)
            break;
    }
    at->i = i;
    at->out = out;
    at->lead_before = lead_before;
}

/* Vectors per stretch of the fast reading. */
#define NARROW_STRETCH 4

/* The fast reading, NARROW_STRETCH vectors at a time while whole ones
 * remain, each loaded from a 64-byte boundary of src (the bytes before the
 * first boundary are read exactly): each vector is written unchecked, and
 * the stretch's checks are made once, at its end; where they fail the
 * stretch is read again exactly (narrow_exactly), which stops in it.
 * Each vector takes the byte before it (src[i - 1]) from a second load,
 * so that nothing is carried from one vector to the next but the lead
 * bytes' mask, and the only test per vector of the other bytes above 7F
 * is a byte maximum: with byte ^ 02, they are exactly the values C2..FF
 * (C2..C3 become C0..C1), so a stretch without them has every byte at or
 * above C0 a lead byte C2..C3, and every byte 80..BF (above 7F and below
 * C0) a continuation byte. */
size_t utfkit_utf8_to_latin1_avx512(const uint8_t *src, size_t len, int big_endian, uint8_t *dst,
                                    size_t *written)
{
    (void)big_endian;
    const __m512i c0 = _mm512_set1_epi8((char)0xC0);
    const __m512i c2 = _mm512_set1_epi8((char)0xC2);
    const __m512i c3 = _mm512_set1_epi8((char)0xC3);
    const __m512i two = _mm512_set1_epi8(0x02);
    const __m512i upper = _mm512_set1_epi8(0x40);
    narrowing at = {0, 0, 0};
    /* the first 64-byte boundary after src[0], so that src[i - 1] exists */
    size_t head = 64 - ((uintptr_t)src & 63);
    if (len < head + 64 * NARROW_STRETCH) {
        narrow_exactly(src, len, len, dst, &at);
        *written = at.out;
        return at.i - at.lead_before;
    }
    narrow_exactly(src, head, len, dst, &at);
    if (at.i != head) {
        *written = at.out;
        return at.i - at.lead_before;
    }
    int ascii_before = 0; /* the stretch before was all ASCII */
    while (len - at.i >= 64 * NARROW_STRETCH) {
        const uint8_t *from = src + at.i; /* (on a 64-byte boundary) */
        if (ascii_before) { /* then this one may be too: copied if it is */
            __m512i vectors[NARROW_STRETCH], any = _mm512_setzero_si512();
            for (int k = 0; k < NARROW_STRETCH; k++) {
                vectors[k] = _mm512_load_si512((const void *)(from + 64 * k));
                any = _mm512_or_si512(any, vectors[k]);
            }
            if (_mm512_movepi8_mask(any) == 0) {
                for (int k = 0; k < NARROW_STRETCH; k++)
                    _mm512_storeu_si512((void *)(dst + at.out + 64 * k), vectors[k]);
                at.i += 64 * NARROW_STRETCH;
                at.out += 64 * NARROW_STRETCH;
                continue;
            }
        }
        size_t out = at.out;
        uint64_t lead_before = at.lead_before, misplaced = 0;
        __m512i largest = _mm512_setzero_si512();
        for (int k = 0; k < NARROW_STRETCH; k++) {
            __m512i bytes = _mm512_load_si512((const void *)(from + 64 * k));
            /* src[i - 1 + j] in byte j */
            __m512i before = _mm512_loadu_si512((const void *)(from + 64 * k - 1));
            largest = _mm512_max_epu8(largest, _mm512_xor_si512(bytes, two));
            __mmask64 keep = _mm512_cmplt_epu8_mask(bytes, c0);
            __m512i narrowed = _mm512_mask_add_epi8(bytes, _mm512_cmpeq_epi8_mask(before, c3),
                                                    bytes, upper);
            /* (out <= i: the caller's room holds the whole vector) */
            _mm512_storeu_si512((void *)(dst + out), _mm512_maskz_compress_epi8(keep, narrowed));
            uint64_t kept = _cvtmask64_u64(keep);
            uint64_t continuation = _cvtmask64_u64(_mm512_movepi8_mask(bytes)) & kept;
            uint64_t lead = ~kept;
            misplaced |= continuation ^ (lead << 1 | lead_before);
            lead_before = lead >> 63;
            out += (size_t)__builtin_popcountll(kept);
        }
        if (misplaced != 0 || _mm512_cmpge_epu8_mask(largest, c2) != 0) {
            narrow_exactly(src, at.i + 64 * NARROW_STRETCH, len, dst, &at);
            /* (it stops in the stretch: the lead byte that may end it has
             * its continuation byte, or this stretch would have failed) */
            *written = at.out;
            return at.i - at.lead_before;
        }
        at.i += 64 * NARROW_STRETCH;
        at.out = out;
        at.lead_before = lead_before;
        ascii_before = _mm512_movepi8_mask(largest) == 0; /* (byte ^ 02 keeps bit 7) */
    }
    narrow_exactly(src, len, len, dst, &at);
    /* A lead byte at the end of the input, or before a byte out of place,
     * has made no byte yet: it is not taken. */
    *written = at.out;
    return at.i - at.lead_before;
}


/* UTF-16 and UTF-32 narrowed to Latin-1, as the sse4 blocks: 64 bytes of
 * units at a time, the units before the first one above 00FF taken. */
size_t utfkit_utf16_to_latin1_avx512(const uint8_t *src, size_t len, int big_endian, uint8_t *dst,
                                     size_t *written)
{
    const __m512i swap_bytes = _mm512_set4_epi32(0x0E0F0C0D, 0x0A0B0809, 0x06070405, 0x02030001);
    const __m512i high_byte = _mm512_set1_epi16((short)0xFF00);
    size_t units = len / 2, k = 0;
    for (; units - k >= 32; k += 32) {
        __m512i code_units = _mm512_loadu_si512((const void *)(src + 2 * k));
        if (big_endian & 1)
            code_units = _mm512_shuffle_epi8(code_units, swap_bytes); /* to the host's order */
        uint32_t above = _mm512_test_epi16_mask(code_units, high_byte);
        __m256i bytes = _mm512_cvtepi16_epi8(code_units);
        if (above != 0) {
            size_t taken = (size_t)__builtin_ctz(above);
            _mm256_mask_storeu_epi8(dst + k, (__mmask32)first_bits(taken), bytes);
            k += taken;
            break;
        }
        _mm256_storeu_si256((__m256i *)(dst + k), bytes);
    }
    *written = k;
    return 2 * k;
}

size_t utfkit_utf32_to_latin1_avx512(const uint8_t *src, size_t len, int big_endian, uint8_t *dst,
                                     size_t *written)
{
    const __m512i swap_bytes = _mm512_set4_epi32(0x0C0D0E0F, 0x08090A0B, 0x04050607, 0x00010203);
    const __m512i high_bytes = _mm512_set1_epi32((int)0xFFFFFF00);
    size_t units = len / 4, k = 0;
    for (; units - k >= 16; k += 16) {
        __m512i code_units = _mm512_loadu_si512((const void *)(src + 4 * k));
        if (big_endian & 1)
            code_units = _mm512_shuffle_epi8(code_units, swap_bytes); /* to the host's order */
        uint32_t above = _mm512_test_epi32_mask(code_units, high_bytes);
        __m128i bytes = _mm512_cvtepi32_epi8(code_units);
        if (above != 0) {
            size_t taken = (size_t)__builtin_ctz(above);
            _mm_mask_storeu_epi8(dst + k, (__mmask16)first_bits(taken), bytes);
            k += taken;
            break;
        }
        _mm_storeu_si128((__m128i *)(dst + k), bytes);
    }
    *written = k;
    return 4 * k;
}

/* Latin-1 widened to UTF-16 and UTF-32 (latin1_widen.h), 64 bytes per store. */
#define WIDEN_VEC_BYTES 64
#define widen_vec_t __m512i
#define widen_lanes16(p) _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(p)))
#define widen_lanes32(p) _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(p)))
#define widen_shl16(v, n) _mm512_slli_epi16(v, n)
#define widen_shl32(v, n) _mm512_slli_epi32(v, n)
#define widen_store(p, v) _mm512_store_si512((void *)(p), v)
#define widen_storeu(p, v) _mm512_storeu_si512((void *)(p), v)
#define LATIN1_WIDEN_NAME(stem) stem##_avx512
#include "latin1_widen.h"

#if defined(__clang__)
#pragma clang attribute pop
#elif defined(__GNUC__)
#pragma GCC pop_options
#endif

#endif /* UTFKIT_X86_64 */
