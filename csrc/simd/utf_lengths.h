/*
 * utf_lengths.h -- output lengths of well-formed text by counting code
 * units, written once over a few vector operations and compiled once per
 * instruction set (the file that includes it has set the target, as for
 * utf8_lookup.h).
 *
 * Every length is a sum over code units of a small function of the unit,
 * so a vector counts, per lane, how often each comparison held, in narrow
 * lanes folded into a total before they can overflow:
 *
 *   UTF-8 (Table 3-6): a code point per byte that is not a continuation
 *     byte 80..BF (as a signed byte: above -65); a UTF-16 surrogate pair
 *     per 4-byte lead F0..F4 (F0..FF are those above 0x6F once bit 7 is
 *     flipped).
 *   UTF-16 (D91) to UTF-8: 1 byte for ASCII, 2 below 0800, 3 for the rest
 *     of the BMP, and 2 for each surrogate (4 for the pair): 3 per unit,
 *     less 1 for each unit below 0080, below 0800, and each surrogate.
 *   UTF-32 (D90) to UTF-8: 4 per unit, less 1 for each unit below 0080,
 *     0800 and 10000 (signed comparisons: a unit from 80000000 up is below
 *     all three and counts 1).
 *     Each threshold is a multiple of 4, so a unit is below it exactly when
 *     the unit shifted right by 2 is below a quarter of it, and that stays
 *     true when the quarter is saturated to 16 bits (every quarter
 *     threshold is inside the int16 range): pairs of vectors are narrowed
 *     to one of 16-bit lanes, and the three comparisons count twice the
 *     units per operation.  A kernel whose comparisons give masks, for
 *     which narrowing costs more than it saves (x86_avx512.c), defines
 *     UTF_LENGTHS_WIDE_UTF32 and compares at 32 bits, and needs neither
 *     vec_count_lt16 nor vec_narrow_quarters.
 *
 * The scalar reference is csrc/lengths.c, which computes the same sums, so
 * every kernel gives the same number for any input, well-formed or not.
 *
 * The including file defines, besides those utf8_lookup.h needs
 * (VEC_BYTES, vec_t, vec_load, vec_splat, vec_and, vec_xor):
 *
 *     vec_splat16(u), vec_splat32(u)   every 16- / 32-bit lane = u
 *     vec_count_gt8(acc, v, t)         acc + 1 in each byte where (int8) v > (int8) t
 *     vec_count_eq16(acc, a, b)        acc + 1 in each 16-bit lane where a == b
 *     vec_count_lt32(acc, a, b)        acc + 1 in each 32-bit lane where (int32) a < (int32) b
 *     vec_count_lt16(acc, a, b)        acc + 1 in each 16-bit lane where (int16) a < (int16) b
 *     vec_narrow_quarters(a, b)        16-bit lanes: every 32-bit lane of a and of b
 *                                      shifted right by 2 (arithmetic) and saturated to
 *                                      int16, in any order
 *     vec_sum8(acc), vec_sum16(acc), vec_sum32(acc)
 *                                      the sum of the unsigned 8- / 16- / 32-bit lanes
 *                                      (16-bit lanes stay below 0x8000 here)
 *     vec_swap16(v), vec_swap32(v)     the bytes of each 16- / 32-bit lane reversed
 *     vec_eq16_mask(a, b)              a bit mask of the 16-bit lanes where a == b,
 *                                      VEC_MASK16_BITS bits per lane, first lane lowest
 *     vec_held(v)                      v, which the compiler no longer knows
 *
 * Every threshold a loop compares against goes through vec_held once, before
 * the loop: knowing it, GCC turns x > t into x >= t + 1, which x86 has no
 * instruction for, and builds it from a minimum and an equality -- two
 * operations where the comparison is one.
 *
 * and names the kernel: #define UTF_LENGTHS_NAME(stem) stem##_avx2.  A kernel
 * with a faster utf16_utf8_length of its own defines
 * UTF_LENGTHS_OWN_UTF16_UTF8_LENGTH and writes it (the same sum).
 */
#include "../kernels.h"

/* Lane counters are folded into the total at least this often (in
 * vectors): below 256 per byte lane at 2 per vector, below 0x8000 per
 * 16-bit lane at 2 per vector.  Each comparison counts into a vector of
 * its own, so that the additions form parallel chains. */
#ifndef UTF_LENGTHS_LIMITS
#define UTF_LENGTHS_LIMITS
#define UTF_LENGTHS_BYTE_FOLD 127
#define UTF_LENGTHS_WORD_FOLD 8192
#define UTF_LENGTHS_DWORD_FOLD (1u << 28)
#endif

/* Vectors left from i to end, but no more than fold. */
static inline size_t UTF_LENGTHS_NAME(vectors_before_fold)(size_t i, size_t end, size_t fold)
{
    size_t vectors = (end - i) / VEC_BYTES;
    return vectors < fold ? vectors : fold;
}

/* A kernel with UTF-8 loops of its own (x86_avx512.c: counts fused with
 * its validation) defines UTF_LENGTHS_NO_UTF8, and then takes only the
 * UTF-16 and UTF-32 lengths from here. */
#ifndef UTF_LENGTHS_NO_UTF8
size_t UTF_LENGTHS_NAME(utf8_code_points)(const uint8_t *src, size_t len)
{
    size_t total = 0, i = 0;
    const vec_t zero = vec_splat(0), above_continuation = vec_held(vec_splat(0xBF)); /* -65 */
    /* The bytes before the first VEC_BYTES boundary one at a time, so that
     * no vector load spans two cache lines. */
    size_t head = (VEC_BYTES - ((uintptr_t)src & (VEC_BYTES - 1))) & (VEC_BYTES - 1);
    for (; i < head && i < len; i++)
        total += (int8_t)src[i] > -65;
    while (len - i >= 4 * VEC_BYTES) {
        /* four vectors per step, two into each chain of additions */
        size_t steps = UTF_LENGTHS_NAME(vectors_before_fold)(i, len, 4 * UTF_LENGTHS_BYTE_FOLD) / 4;
        vec_t even = zero, odd = zero;
        for (size_t k = 0; k < steps; k++, i += 4 * VEC_BYTES) {
            even = vec_count_gt8(even, vec_load(src + i), above_continuation);
            odd = vec_count_gt8(odd, vec_load(src + i + VEC_BYTES), above_continuation);
            even = vec_count_gt8(even, vec_load(src + i + 2 * VEC_BYTES), above_continuation);
            odd = vec_count_gt8(odd, vec_load(src + i + 3 * VEC_BYTES), above_continuation);
        }
        total += vec_sum8(even) + vec_sum8(odd);
    }
    if (len - i >= VEC_BYTES) {
        vec_t counted = zero; /* at most three vectors */
        for (; len - i >= VEC_BYTES; i += VEC_BYTES)
            counted = vec_count_gt8(counted, vec_load(src + i), above_continuation);
        total += vec_sum8(counted);
    }
    for (; i < len; i++)
        total += (int8_t)src[i] > -65;
    return total;
}

size_t UTF_LENGTHS_NAME(utf8_utf16_units)(const uint8_t *src, size_t len)
{
    size_t total = 0, i = 0;
    const vec_t zero = vec_splat(0), above_continuation = vec_held(vec_splat(0xBF));
    const vec_t bit_7 = vec_splat(0x80), above_EF = vec_held(vec_splat(0xEF ^ 0x80));
    while (len - i >= 2 * VEC_BYTES) {
        size_t pairs = UTF_LENGTHS_NAME(vectors_before_fold)(i, len, 2 * UTF_LENGTHS_BYTE_FOLD) / 2;
        /* two vectors per step, each count in a chain of its own */
        vec_t code_points = zero, four_byte = zero, code_points_odd = zero, four_byte_odd = zero;
        for (size_t k = 0; k < pairs; k++, i += 2 * VEC_BYTES) {
            vec_t even = vec_load(src + i), odd = vec_load(src + i + VEC_BYTES);
            code_points = vec_count_gt8(code_points, even, above_continuation);
            code_points_odd = vec_count_gt8(code_points_odd, odd, above_continuation);
            four_byte = vec_count_gt8(four_byte, vec_xor(even, bit_7), above_EF);
            four_byte_odd = vec_count_gt8(four_byte_odd, vec_xor(odd, bit_7), above_EF);
        }
        total += vec_sum8(code_points) + vec_sum8(four_byte) + vec_sum8(code_points_odd) +
                 vec_sum8(four_byte_odd);
    }
    for (; i < len; i++)
        total += ((int8_t)src[i] > -65) + (src[i] >= 0xF0);
    return total;
}
#endif

static inline uint32_t UTF_LENGTHS_NAME(unit16)(const uint8_t *p, int big_endian)
{
    return big_endian ? (uint32_t)p[0] << 8 | p[1] : (uint32_t)p[1] << 8 | p[0];
}

static inline uint32_t UTF_LENGTHS_NAME(unit32)(const uint8_t *p, int big_endian)
{
    return big_endian ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
                      : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

#if !defined(UTF_LENGTHS_OWN_UTF16_UTF8_LENGTH)
size_t UTF_LENGTHS_NAME(utf16_utf8_length)(const uint8_t *src, size_t len, int big_endian)
{
    size_t end = len & ~(size_t)1, units = end / 2, less = 0, i = 0;
    const vec_t zero = vec_splat(0), not_ascii = vec_splat16(0xFF80);
    const vec_t above_7FF = vec_splat16(0xF800), surrogate = vec_splat16(0xD800);
    /* The units before the first VEC_BYTES boundary one at a time (none if
     * src is odd: then no unit starts at one), so that no vector load
     * spans two cache lines: this loop is bound by its comparisons, and a
     * split load costs it about a tenth. */
    size_t head = ((uintptr_t)src & 1) != 0 ? 0 : (VEC_BYTES - ((uintptr_t)src & (VEC_BYTES - 1))) & (VEC_BYTES - 1);
    for (; i < head && i < end; i += 2) {
        uint32_t unit = UTF_LENGTHS_NAME(unit16)(src + i, big_endian);
        less += (unit < 0x80) + (unit < 0x800) + ((unit & 0xF800) == 0xD800);
    }
    while (end - i >= VEC_BYTES) {
        size_t vectors = UTF_LENGTHS_NAME(vectors_before_fold)(i, end, UTF_LENGTHS_WORD_FOLD);
        vec_t ascii = zero, below_800 = zero, surrogates = zero;
        for (size_t k = 0; k < vectors; k++, i += VEC_BYTES) {
            vec_t unit = vec_load(src + i);
            if (big_endian)
                unit = vec_swap16(unit);
            vec_t high_5 = vec_and(unit, above_7FF);
            ascii = vec_count_eq16(ascii, vec_and(unit, not_ascii), zero);
            below_800 = vec_count_eq16(below_800, high_5, zero);
            surrogates = vec_count_eq16(surrogates, high_5, surrogate);
        }
        less += vec_sum16(ascii) + vec_sum16(below_800) + vec_sum16(surrogates);
    }
    for (; i < end; i += 2) {
        uint32_t unit = UTF_LENGTHS_NAME(unit16)(src + i, big_endian);
        less += (unit < 0x80) + (unit < 0x800) + ((unit & 0xF800) == 0xD800);
    }
    return 3 * units - less;
}
#endif

size_t UTF_LENGTHS_NAME(utf16_surrogates)(const uint8_t *src, size_t len, int big_endian)
{
    size_t end = len & ~(size_t)1, total = 0, i = 0;
    const vec_t zero = vec_splat(0), above_7FF = vec_splat16(0xF800);
    const vec_t surrogate = vec_splat16(0xD800);
    while (end - i >= VEC_BYTES) {
        size_t vectors = UTF_LENGTHS_NAME(vectors_before_fold)(i, end, UTF_LENGTHS_WORD_FOLD);
        vec_t counted = zero;
        for (size_t k = 0; k < vectors; k++, i += VEC_BYTES) {
            vec_t unit = vec_load(src + i);
            if (big_endian)
                unit = vec_swap16(unit);
            counted = vec_count_eq16(counted, vec_and(unit, above_7FF), surrogate);
        }
        total += vec_sum16(counted);
    }
    for (; i < end; i += 2)
        total += (UTF_LENGTHS_NAME(unit16)(src + i, big_endian) & 0xF800) == 0xD800;
    return total;
}

/* How many bytes of UTF-32 units from src bring it to a VEC_BYTES boundary
 * (none if src is not 4-byte aligned: then no unit boundary is one), at
 * most len: taken by one partial load first, so that no vector load after
 * them spans two cache lines. */
static inline size_t UTF_LENGTHS_NAME(utf32_head)(const uint8_t *src, size_t len)
{
    uintptr_t address = (uintptr_t)src;
    size_t head = (address & 3) != 0 ? 0 : (VEC_BYTES - (address & (VEC_BYTES - 1))) & (VEC_BYTES - 1);
    return head < len ? head : len & ~(size_t)3;
}

/* The UTF-32 units of src[0..n), n < VEC_BYTES a multiple of 4, read by
 * one partial load, zeros after them. */
static inline vec_t UTF_LENGTHS_NAME(utf32_load_partial)(const uint8_t *src, size_t n, int big_endian)
{
    vec_t unit = vec_load_partial(src, n);
    return big_endian ? vec_swap32(unit) : unit;
}

/* The thresholds of a UTF-32 unit's UTF-8 length (Table 3-6), held. */
typedef struct {
    vec_t x80, x800, x10000;
} UTF_LENGTHS_NAME(utf32_thresholds);

static inline UTF_LENGTHS_NAME(utf32_thresholds) UTF_LENGTHS_NAME(utf32_thresholds_setup)(void)
{
    UTF_LENGTHS_NAME(utf32_thresholds) t = {vec_held(vec_splat32(0x80)), vec_held(vec_splat32(0x800)),
                                            vec_held(vec_splat32(0x10000))};
    return t;
}

/* acc + 1 per 32-bit lane for each of 0080, 0800 and 10000 the unit is below. */
static inline vec_t UTF_LENGTHS_NAME(utf32_count_below)(const UTF_LENGTHS_NAME(utf32_thresholds) *t,
                                                        vec_t acc, vec_t unit)
{
    acc = vec_count_lt32(acc, unit, t->x80);
    acc = vec_count_lt32(acc, unit, t->x800);
    return vec_count_lt32(acc, unit, t->x10000);
}

size_t UTF_LENGTHS_NAME(utf32_utf8_length)(const uint8_t *src, size_t len, int big_endian)
{
    size_t end = len & ~(size_t)3, units = end / 4, less = 0;
    size_t i = UTF_LENGTHS_NAME(utf32_head)(src, end);
    const UTF_LENGTHS_NAME(utf32_thresholds) t = UTF_LENGTHS_NAME(utf32_thresholds_setup)();
#if !defined(UTF_LENGTHS_WIDE_UTF32)
    /* the thresholds' quarters, for the units narrowed to 16 bits */
    const vec_t x20 = vec_held(vec_splat16(0x80 / 4)), x200 = vec_held(vec_splat16(0x800 / 4));
    const vec_t x4000 = vec_held(vec_splat16(0x10000 / 4));
#endif
    const vec_t zero = vec_splat(0);
    /* the zero lanes of partial loads count below all three: taken off */
    size_t padding = 0;
    vec_t total = zero;
    if (i != 0) {
        total = UTF_LENGTHS_NAME(utf32_count_below)(
            &t, total, UTF_LENGTHS_NAME(utf32_load_partial)(src, i, big_endian));
        padding += (VEC_BYTES - i) / 4;
    }
    while (end - i >= 2 * VEC_BYTES) {
#if defined(UTF_LENGTHS_WIDE_UTF32)
        size_t pairs = UTF_LENGTHS_NAME(vectors_before_fold)(i, end, UTF_LENGTHS_DWORD_FOLD) / 2;
        /* two vectors per step, each in a chain of its own */
        vec_t even_total = zero, odd_total = zero;
        for (size_t k = 0; k < pairs; k++, i += 2 * VEC_BYTES) {
            vec_t even = vec_load(src + i), odd = vec_load(src + i + VEC_BYTES);
            if (big_endian) {
                even = vec_swap32(even);
                odd = vec_swap32(odd);
            }
            even_total = UTF_LENGTHS_NAME(utf32_count_below)(&t, even_total, even);
            odd_total = UTF_LENGTHS_NAME(utf32_count_below)(&t, odd_total, odd);
        }
        less += vec_sum32(even_total) + vec_sum32(odd_total);
#else
        /* a 16-bit lane counts up to 3 per pair of vectors */
        size_t pairs = UTF_LENGTHS_NAME(vectors_before_fold)(i, end, UTF_LENGTHS_WORD_FOLD) / 2;
        vec_t below = zero;
        for (size_t k = 0; k < pairs; k++, i += 2 * VEC_BYTES) {
            vec_t even = vec_load(src + i), odd = vec_load(src + i + VEC_BYTES);
            if (big_endian) {
                even = vec_swap32(even);
                odd = vec_swap32(odd);
            }
            vec_t quarters = vec_narrow_quarters(even, odd);
            below = vec_count_lt16(below, quarters, x20);
            below = vec_count_lt16(below, quarters, x200);
            below = vec_count_lt16(below, quarters, x4000);
        }
        less += vec_sum16(below);
#endif
    }
    if (end - i >= VEC_BYTES) {
        vec_t unit = vec_load(src + i);
        total = UTF_LENGTHS_NAME(utf32_count_below)(&t, total, big_endian ? vec_swap32(unit) : unit);
        i += VEC_BYTES;
    }
    if (end - i != 0) {
        total = UTF_LENGTHS_NAME(utf32_count_below)(
            &t, total, UTF_LENGTHS_NAME(utf32_load_partial)(src + i, end - i, big_endian));
        padding += (VEC_BYTES - (end - i)) / 4;
    }
    less += vec_sum32(total) - 3 * padding;
    return 4 * units - less;
}

size_t UTF_LENGTHS_NAME(utf32_supplementary)(const uint8_t *src, size_t len, int big_endian)
{
    size_t end = len & ~(size_t)3, units = end / 4, bmp = 0;
    size_t i = UTF_LENGTHS_NAME(utf32_head)(src, end);
    const vec_t zero = vec_splat(0), x10000 = vec_held(vec_splat32(0x10000));
    size_t padding = 0;
    vec_t counted = zero;
    if (i != 0) {
        counted = vec_count_lt32(counted, UTF_LENGTHS_NAME(utf32_load_partial)(src, i, big_endian), x10000);
        padding += (VEC_BYTES - i) / 4;
    }
    while (end - i >= VEC_BYTES) {
        size_t vectors = UTF_LENGTHS_NAME(vectors_before_fold)(i, end, UTF_LENGTHS_DWORD_FOLD);
        for (size_t k = 0; k < vectors; k++, i += VEC_BYTES) {
            vec_t unit = vec_load(src + i);
            if (big_endian)
                unit = vec_swap32(unit);
            counted = vec_count_lt32(counted, unit, x10000);
        }
        bmp += vec_sum32(counted);
        counted = zero;
    }
    if (end - i != 0) {
        counted = vec_count_lt32(counted, UTF_LENGTHS_NAME(utf32_load_partial)(src + i, end - i, big_endian),
                                 x10000);
        padding += (VEC_BYTES - (end - i)) / 4;
    }
    bmp += vec_sum32(counted) - padding;
    return units - bmp;
}

#ifndef UTF_LENGTHS_NO_UTF8
/* ---- validation and census in one pass (kernels.h, utf8_validate_census) ----
 *
 * utf8_lookup.h's utf8_well_formed_bound with the census counted on the way: the
 * including file includes utf8_lookup.h first, under the same suffix.  Runs
 * of ASCII, which the validation skips, count a code point per byte. */
size_t UTF_LENGTHS_NAME(utf8_validate_census)(const uint8_t *src, size_t len,
                                              utf8_census *census)
{
    const UTF8_LOOKUP_NAME(utf8_lookup_constants) c = UTF8_LOOKUP_NAME(utf8_lookup_setup)();
    const vec_t zero = vec_splat(0), above_continuation = vec_held(vec_splat(0xBF));
    const vec_t bit_7 = vec_splat(0x80), above_EF = vec_held(vec_splat(0xEF ^ 0x80));
    vec_t error = zero, before = zero, unfinished = zero, code_points = zero, four_byte = zero;
    size_t i = 0, clean = 0, total_code_points = 0, total_four_byte = 0;
    unsigned steps_to_test = 1, test_interval = 1, steps_to_fold = UTF_LENGTHS_BYTE_FOLD;
    while (len - i >= 2 * VEC_BYTES) {
        vec_t first = vec_load(src + i), second = vec_load(src + i + VEC_BYTES);
        if (vec_is_ascii(vec_or(first, second))) {
            error = vec_or(error, unfinished);
            unfinished = zero;
            before = zero;
            size_t run_start = i;
            i += 2 * VEC_BYTES;
            while (len - i >= 4 * VEC_BYTES &&
                   vec_is_ascii(vec_or(vec_or(vec_load(src + i), vec_load(src + i + VEC_BYTES)),
                                       vec_or(vec_load(src + i + 2 * VEC_BYTES),
                                              vec_load(src + i + 3 * VEC_BYTES)))))
                i += 4 * VEC_BYTES;
            total_code_points += i - run_start;
            continue;
        }
        error = vec_or(error, UTF8_LOOKUP_NAME(utf8_lookup_errors)(&c, first, before));
        error = vec_or(error, UTF8_LOOKUP_NAME(utf8_lookup_errors)(&c, second, first));
        unfinished = UTF8_LOOKUP_NAME(utf8_lookup_unfinished)(&c, second);
        code_points = vec_count_gt8(code_points, first, above_continuation);
        code_points = vec_count_gt8(code_points, second, above_continuation);
        four_byte = vec_count_gt8(four_byte, vec_xor(first, bit_7), above_EF);
        four_byte = vec_count_gt8(four_byte, vec_xor(second, bit_7), above_EF);
        if (--steps_to_test == 0) {
            if (vec_any(error))
                return utf8_lookup_boundary_before(src, clean);
            test_interval = test_interval < 4 ? 2 * test_interval : 4;
            steps_to_test = test_interval;
            clean = i + 2 * VEC_BYTES;
        }
        if (--steps_to_fold == 0) {
            total_code_points += vec_sum8(code_points);
            total_four_byte += vec_sum8(four_byte);
            code_points = four_byte = zero;
            steps_to_fold = UTF_LENGTHS_BYTE_FOLD;
        }
        before = second;
        i += 2 * VEC_BYTES;
    }
    total_code_points += vec_sum8(code_points);
    total_four_byte += vec_sum8(four_byte);
    for (size_t k = i; k < len; k++) {
        total_code_points += (int8_t)src[k] > -65;
        total_four_byte += src[k] >= 0xF0;
    }
    if (len - i >= VEC_BYTES) {
        vec_t input = vec_load(src + i);
        error = vec_or(error, UTF8_LOOKUP_NAME(utf8_lookup_errors)(&c, input, before));
        before = input;
        i += VEC_BYTES;
    }
    vec_t last = vec_load_partial(src + i, len - i);
    error = vec_or(error, UTF8_LOOKUP_NAME(utf8_lookup_errors)(&c, last, before));
    census->code_points = total_code_points;
    census->utf16_units = total_code_points + total_four_byte;
    return vec_any(error) ? utf8_lookup_boundary_before(src, clean) : len;
}
#endif

/* ---- UTF-16 validation and UTF-8 length in one pass (kernels.h,
 * utf16_validate_utf8_length) ----
 *
 * D91: UTF-16 is well-formed when every lead surrogate (D800..DBFF) is
 * followed by a trail surrogate (DC00..DFFF) and every trail surrogate
 * follows a lead.  As bit masks over the units (vec_eq16_mask, with
 * VEC_MASK16_BITS bits per unit), the trail mask must equal the lead mask
 * moved one unit on, the last lead of one vector carried into the next. */
#define UTF_LENGTHS_MASK16_WIDTH (VEC_BYTES / 2 * VEC_MASK16_BITS)

int UTF_LENGTHS_NAME(utf16_validate_utf8_length)(const uint8_t *src, size_t len, int big_endian,
                                                 size_t *utf8_length)
{
    size_t end = len & ~(size_t)1, units = end / 2, less = 0, i = 0;
    const uint64_t all = UTF_LENGTHS_MASK16_WIDTH == 64 ? ~(uint64_t)0
                                                         : ((uint64_t)1 << UTF_LENGTHS_MASK16_WIDTH) - 1;
    const vec_t zero = vec_splat(0), not_ascii = vec_splat16(0xFF80);
    const vec_t above_7FF = vec_splat16(0xF800), surrogate = vec_splat16(0xD800);
    const vec_t high_6_bits = vec_splat16(0xFC00), trail = vec_splat16(0xDC00);
    uint64_t misplaced = 0, carry = 0;
    while (end - i >= VEC_BYTES) {
        size_t vectors = UTF_LENGTHS_NAME(vectors_before_fold)(i, end, UTF_LENGTHS_WORD_FOLD);
        vec_t ascii = zero, below_800 = zero, surrogates = zero;
        for (size_t k = 0; k < vectors; k++, i += VEC_BYTES) {
            vec_t unit = vec_load(src + i);
            if (big_endian)
                unit = vec_swap16(unit);
            vec_t high_5 = vec_and(unit, above_7FF);
            ascii = vec_count_eq16(ascii, vec_and(unit, not_ascii), zero);
            below_800 = vec_count_eq16(below_800, high_5, zero);
            surrogates = vec_count_eq16(surrogates, high_5, surrogate);
            /* only a vector with a surrogate, or after a lead, needs the
             * pairs checked */
            if ((vec_eq16_mask(high_5, surrogate) | carry) == 0)
                continue;
            vec_t high_6 = vec_and(unit, high_6_bits);
            uint64_t leads = vec_eq16_mask(high_6, surrogate);
            uint64_t trails = vec_eq16_mask(high_6, trail);
            misplaced |= trails ^ (((leads << VEC_MASK16_BITS) | carry) & all);
            carry = leads >> (UTF_LENGTHS_MASK16_WIDTH - VEC_MASK16_BITS);
        }
        less += vec_sum16(ascii) + vec_sum16(below_800) + vec_sum16(surrogates);
        if (misplaced != 0)
            return 0;
    }
    int after_lead = carry != 0;
    for (; i < end; i += 2) {
        uint32_t unit = UTF_LENGTHS_NAME(unit16)(src + i, big_endian);
        int is_trail = (unit & 0xFC00) == 0xDC00;
        if (is_trail != after_lead)
            return 0;
        after_lead = (unit & 0xFC00) == 0xD800;
        less += (unit < 0x80) + (unit < 0x800) + ((unit & 0xF800) == 0xD800);
    }
    if (after_lead || end != len)
        return 0; /* a lead surrogate, or a byte, cut off by the end */
    *utf8_length = 3 * units - less;
    return 1;
}
