/*
 * utf8_lookup.h -- UTF-8 validation by nibble lookups (Keiser & Lemire,
 * "Validating UTF-8 in less than one instruction per byte", Software:
 * Practice and Experience, 2021), written once over a handful of vector
 * operations and compiled once per instruction set.
 *
 * The file that includes it has set the target ("#pragma GCC target" /
 * "#pragma clang attribute push") and defined, for its vector type:
 *
 *     VEC_BYTES                   bytes per vector (16, 32 or 64)
 *     vec_t                       the vector type
 *     vec_load(p)                 VEC_BYTES bytes from p (unaligned)
 *     vec_load_partial(p, n)      n < VEC_BYTES bytes from p, zeros after;
 *                                 never reads p[n] or beyond
 *     vec_splat(byte)             every byte = byte
 *     vec_table(t)                the 16-byte table t, in every 16-byte lane
 *     vec_lookup_high(table, v)   table[v >> 4] per byte
 *     vec_lookup_low(table, v)    table[v & 15] per byte
 *     vec_or / vec_and / vec_xor
 *     vec_subs(a, b)              unsigned saturating a - b per byte
 *     vec_prev(v, before, n)      the stream shifted by n (1..3) bytes: byte k
 *                                 is the byte n places before v[k], taken from
 *                                 `before` (the previous vector) for k < n
 *     vec_any(v)                  1 if some byte of v is not zero
 *     vec_first_nonzero(v)        the index of the first byte of v that is not
 *                                 zero (v has one)
 *     vec_is_ascii(v)             1 if every byte of v is 00..7F
 *     vec_is_positive(v)          1 if every byte of v is 01..7F (above 0, as
 *                                 a signed byte)
 *     vec_min_signed(a, b)        the minimum per byte, as signed bytes
 *     vec_min_unsigned(a, b), vec_max_unsigned(a, b)
 *                                 the minimum / maximum per byte, as unsigned bytes
 *
 * and names the kernel:
 *
 *     #define UTF8_LOOKUP_NAME(stem) stem##_avx2
 *     #define UTF8_LOOKUP_ASCII_PREFIX_LENGTH utfkit_ascii_prefix_length_avx2
 *     #include "utf8_lookup.h"
 *
 * which defines utf8_advance_avx2, utf8_validate_avx2,
 * utf8_well_formed_bound_avx2, utf8_bmp_validate_avx2 and
 * utf8_bmp_prefix_length_avx2 with the contracts of kernels.h.
 *
 * The method.  Every rule of Table 3-7 concerns a byte and at most the three
 * before it.  The rules about a byte and the one before it are decided by
 * three 16-entry tables, indexed by the high nibble of the previous byte,
 * the low nibble of the previous byte and the high nibble of the byte: each
 * entry is a set of "ways this pair could be wrong" (one bit each), and the
 * pair is wrong iff the three sets share a bit.  What remains -- a
 * continuation byte must follow a lead, and only as many as the lead asks
 * for -- is decided from the bytes two and three places back.  All of it is
 * a few shuffles and logic operations per vector, with no branch on the
 * data; runs of ASCII skip it altogether.
 *
 * Only well-formedness is decided here.  When a vector holds an error, the
 * Table 3-7 automaton (utf8_dfa.h) is restarted a few bytes before the
 * first byte the vector flags and finds the exact rejected byte; the
 * maximal subpart follows from it (utf8.c).  So the automaton alone decides
 * what is reported, and an error costs a replay of about eight bytes, never
 * a rescan from the start.
 */
#include <string.h>

#include "../kernels.h"
#include "../utf8_dfa.h"

#ifndef UTF8_LOOKUP_TABLES
#define UTF8_LOOKUP_TABLES
/* The ways a pair (previous byte, byte) can be wrong, one bit each.  The
 * names say which bytes (as bit patterns) each catches. */
#define TOO_SHORT   (1u << 0) /* 11______ then 0_______ or 11______: a lead not continued */
#define TOO_LONG    (1u << 1) /* 0_______ then 10______: a continuation with no lead */
#define OVERLONG_3  (1u << 2) /* 11100000 100_____: E0 then 80..9F (Table 3-7, row E0) */
#define TOO_LARGE   (1u << 3) /* 11110100 1001____ / 101_____, F5..FF then 90..BF: above 10FFFF */
#define SURROGATE   (1u << 4) /* 11101101 101_____: ED then A0..BF (row ED) */
#define OVERLONG_2  (1u << 5) /* 1100000_ 10______: C0, C1 (never a first byte) */
#define TOO_LARGE_1000 (1u << 6) /* 11110101.. 1000____: F5..FF then 80..8F */
#define OVERLONG_4  (1u << 6) /* 11110000 1000____: F0 then 80..8F (row F0); shares the bit,
                                 as F0 and F5..FF never meet the same low nibble */
#define TWO_CONTS   (1u << 7) /* 10______ 10______: allowed only as a third or fourth byte */
/* Every low nibble of a lead may be the start of these. */
#define CARRY       (TOO_SHORT | TOO_LONG | TWO_CONTS)

/* Indexed by the high nibble of the previous byte. */
static const uint8_t utf8_lookup_previous_high[16] = {
    /* 0_______: ASCII, nothing may continue it */
    TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG,
    /* 10______: a continuation may follow only inside a 3- or 4-byte sequence */
    TWO_CONTS, TWO_CONTS, TWO_CONTS, TWO_CONTS,
    /* 1100____ (C0..CF): C0, C1 are overlong */
    TOO_SHORT | OVERLONG_2,
    /* 1101____ (D0..DF) */
    TOO_SHORT,
    /* 1110____ (E0..EF): E0 overlong, ED surrogates */
    TOO_SHORT | OVERLONG_3 | SURROGATE,
    /* 1111____ (F0..FF): F0 overlong, F4 and up too large */
    TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4,
};

/* Indexed by the low nibble of the previous byte. */
static const uint8_t utf8_lookup_previous_low[16] = {
    /* ____0000: C0, E0, F0 */
    CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4,
    /* ____0001: C1 */
    CARRY | OVERLONG_2,
    /* ____001_ */
    CARRY, CARRY,
    /* ____0100: F4 -- 90..BF after it is above 10FFFF */
    CARRY | TOO_LARGE,
    /* ____0101 .. ____1100: F5..FC, never a lead */
    CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,
    /* ____1101: ED (surrogates), FD */
    CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE,
    /* ____111_: FE, FF */
    CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,
};

/* Indexed by the high nibble of the byte itself. */
static const uint8_t utf8_lookup_current_high[16] = {
    /* 0_______: ASCII may not follow an unfinished lead */
    TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
    /* 1000____ (80..8F) */
    TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4,
    /* 1001____ (90..9F) */
    TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE,
    /* 101_____ (A0..BF) */
    TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
    /* 11______: a lead may not follow an unfinished lead */
    TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
};

/* The largest byte allowed in each of the last three places of a vector if
 * nothing follows: no lead of a 4-, 3- or 2-byte sequence that the end
 * would cut off. */
static const uint8_t utf8_lookup_last_allowed[64] = {
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xEF, 0xDF, 0xBF,
};

/* UTF-8 restricted to the BMP: the text of CESU-8 (UTR #26 section 2) and
 * MUTF-8 (JVM spec section 4.4.7) that holds no surrogate, where a byte
 * F0..FF is ill-formed on its own (neither form has a 4-byte sequence).
 * The three tables above with TOO_LARGE redefined as "the byte is F0..FF":
 * every entry of the two tables of the previous byte has it, and of the
 * byte itself only the high nibble F -- so the same three lookups and ANDs
 * that judge UTF-8 judge this too, at no extra cost.  (TOO_LARGE is free
 * for it: the pairs it caught, F4..FF then 90..BF, start with such a byte.) */
static const uint8_t utf8_bmp_lookup_previous_high[16] = {
    TOO_LARGE | TOO_LONG, TOO_LARGE | TOO_LONG, TOO_LARGE | TOO_LONG, TOO_LARGE | TOO_LONG,
    TOO_LARGE | TOO_LONG, TOO_LARGE | TOO_LONG, TOO_LARGE | TOO_LONG, TOO_LARGE | TOO_LONG,
    TOO_LARGE | TWO_CONTS, TOO_LARGE | TWO_CONTS, TOO_LARGE | TWO_CONTS, TOO_LARGE | TWO_CONTS,
    TOO_LARGE | TOO_SHORT | OVERLONG_2,
    TOO_LARGE | TOO_SHORT,
    TOO_LARGE | TOO_SHORT | OVERLONG_3 | SURROGATE,
    TOO_LARGE | TOO_SHORT | TOO_LARGE_1000 | OVERLONG_4,
};

static const uint8_t utf8_bmp_lookup_previous_low[16] = {
    TOO_LARGE | CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4,
    TOO_LARGE | CARRY | OVERLONG_2,
    TOO_LARGE | CARRY, TOO_LARGE | CARRY, TOO_LARGE | CARRY,
    TOO_LARGE | CARRY | TOO_LARGE_1000, TOO_LARGE | CARRY | TOO_LARGE_1000,
    TOO_LARGE | CARRY | TOO_LARGE_1000, TOO_LARGE | CARRY | TOO_LARGE_1000,
    TOO_LARGE | CARRY | TOO_LARGE_1000, TOO_LARGE | CARRY | TOO_LARGE_1000,
    TOO_LARGE | CARRY | TOO_LARGE_1000, TOO_LARGE | CARRY | TOO_LARGE_1000,
    TOO_LARGE | CARRY | TOO_LARGE_1000 | SURROGATE,
    TOO_LARGE | CARRY | TOO_LARGE_1000, TOO_LARGE | CARRY | TOO_LARGE_1000,
};

static const uint8_t utf8_bmp_lookup_current_high[16] = {
    TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE,
    TOO_SHORT, TOO_SHORT, TOO_SHORT,
    /* 1111____ (F0..FF): ill-formed whatever came before */
    TOO_SHORT | TOO_LARGE,
};

/* MUTF-8 (JVM spec section 4.4.7) in the tables, so that its bytes 00
 * cost the loops no test of their own: the BMP
 * tables with bit 6 (TOO_LARGE_1000 and OVERLONG_4, which only pairs that
 * start with a byte F0..FF set: that byte is ill-formed on its own there)
 * redefined as "the byte before is 00".  Only the high nibble 0 of the
 * previous byte and its low nibble 0 have it -- together, the byte 00 --
 * and every high nibble of the byte itself, so that any byte after a 00 is
 * flagged.  The loop must then see what follows each 00 (a 00 that ends
 * the text is followed by the zeros that pad the last vector: only the
 * first of them may be judged), and the text must not be taken to follow
 * a 00 (the loops' zeros before the text). */
#define NUL_BEFORE (1u << 6)
static const uint8_t utf8_mutf_lookup_previous_high[16] = {
    TOO_LARGE | TOO_LONG | NUL_BEFORE, TOO_LARGE | TOO_LONG, TOO_LARGE | TOO_LONG,
    TOO_LARGE | TOO_LONG, TOO_LARGE | TOO_LONG, TOO_LARGE | TOO_LONG, TOO_LARGE | TOO_LONG,
    TOO_LARGE | TOO_LONG,
    TOO_LARGE | TWO_CONTS, TOO_LARGE | TWO_CONTS, TOO_LARGE | TWO_CONTS, TOO_LARGE | TWO_CONTS,
    TOO_LARGE | TOO_SHORT | OVERLONG_2,
    TOO_LARGE | TOO_SHORT,
    TOO_LARGE | TOO_SHORT | OVERLONG_3 | SURROGATE,
    TOO_LARGE | TOO_SHORT,
};

static const uint8_t utf8_mutf_lookup_previous_low[16] = {
    TOO_LARGE | CARRY | OVERLONG_3 | OVERLONG_2 | NUL_BEFORE,
    TOO_LARGE | CARRY | OVERLONG_2,
    TOO_LARGE | CARRY, TOO_LARGE | CARRY, TOO_LARGE | CARRY,
    TOO_LARGE | CARRY, TOO_LARGE | CARRY, TOO_LARGE | CARRY, TOO_LARGE | CARRY,
    TOO_LARGE | CARRY, TOO_LARGE | CARRY, TOO_LARGE | CARRY, TOO_LARGE | CARRY,
    TOO_LARGE | CARRY | SURROGATE,
    TOO_LARGE | CARRY, TOO_LARGE | CARRY,
};

static const uint8_t utf8_mutf_lookup_current_high[16] = {
    TOO_SHORT | NUL_BEFORE, TOO_SHORT | NUL_BEFORE, TOO_SHORT | NUL_BEFORE, TOO_SHORT | NUL_BEFORE,
    TOO_SHORT | NUL_BEFORE, TOO_SHORT | NUL_BEFORE, TOO_SHORT | NUL_BEFORE, TOO_SHORT | NUL_BEFORE,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | NUL_BEFORE,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | NUL_BEFORE,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | NUL_BEFORE,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | NUL_BEFORE,
    TOO_SHORT | NUL_BEFORE, TOO_SHORT | NUL_BEFORE, TOO_SHORT | NUL_BEFORE,
    TOO_SHORT | TOO_LARGE | NUL_BEFORE,
};

/* What the scan judges (a constant argument of the always-inlined scan). */
enum utf8_lookup_form {
    UTF8_LOOKUP_UTF8,         /* Table 3-7 */
    UTF8_LOOKUP_BMP,          /* and no byte F0..FF */
    UTF8_LOOKUP_BMP_WITHOUT_NUL /* and no byte F0..FF nor 00 (MUTF-8 writes U+0000 as C0 80):
                                   the MUTF-8 tables */
};
#endif

/* The vector constants, made once per call (the compiler keeps them in
 * registers across the loop). */
typedef struct UTF8_LOOKUP_NAME(utf8_lookup_constants) {
    vec_t previous_high, previous_low, current_high;
    vec_t third_byte_floor, fourth_byte_floor, bit_7, last_allowed;
} UTF8_LOOKUP_NAME(utf8_lookup_constants);

static inline UTF8_LOOKUP_NAME(utf8_lookup_constants) UTF8_LOOKUP_NAME(utf8_lookup_setup_form)(int form)
{
    UTF8_LOOKUP_NAME(utf8_lookup_constants) c;
    int bmp = form != UTF8_LOOKUP_UTF8, mutf8 = form == UTF8_LOOKUP_BMP_WITHOUT_NUL;
    c.previous_high = vec_table(mutf8 ? utf8_mutf_lookup_previous_high
                                : bmp ? utf8_bmp_lookup_previous_high : utf8_lookup_previous_high);
    c.previous_low = vec_table(mutf8 ? utf8_mutf_lookup_previous_low
                               : bmp ? utf8_bmp_lookup_previous_low : utf8_lookup_previous_low);
    c.current_high = vec_table(mutf8 ? utf8_mutf_lookup_current_high
                               : bmp ? utf8_bmp_lookup_current_high : utf8_lookup_current_high);
    c.third_byte_floor = vec_splat(0xE0 - 0x80);
    c.fourth_byte_floor = vec_splat(0xF0 - 0x80);
    c.bit_7 = vec_splat(0x80);
    c.last_allowed = vec_load(utf8_lookup_last_allowed + 64 - VEC_BYTES);
    return c;
}

static inline UTF8_LOOKUP_NAME(utf8_lookup_constants) UTF8_LOOKUP_NAME(utf8_lookup_setup)(void)
{
    return UTF8_LOOKUP_NAME(utf8_lookup_setup_form)(UTF8_LOOKUP_UTF8);
}

/* Non-zero bytes where `input`, preceded by `before`, breaks Table 3-7
 * (or, with `bmp`, the BMP forms' rules: the BMP or MUTF-8 tables are in
 * c).  In those forms a byte F0..FF is flagged where it stands, so the
 * rule about the byte three places after one is not needed: a vector
 * register and three instructions fewer. */
static inline __attribute__((always_inline)) vec_t UTF8_LOOKUP_NAME(utf8_lookup_errors_of)(
    const UTF8_LOOKUP_NAME(utf8_lookup_constants) *c, vec_t input, vec_t before, int bmp)
{
    vec_t previous_1 = vec_prev(input, before, 1);
    vec_t pair = vec_and(vec_and(vec_lookup_high(c->previous_high, previous_1),
                                 vec_lookup_low(c->previous_low, previous_1)),
                         vec_lookup_high(c->current_high, input));
    /* A byte two places after E0..FF, or three after F0..FF, must be a
     * continuation that follows a continuation: exactly TWO_CONTS (bit 7)
     * there, and nowhere else.  Saturating subtraction leaves bit 7 set
     * exactly for bytes at or above E0 (resp. F0). */
    vec_t third = vec_subs(vec_prev(input, before, 2), c->third_byte_floor);
    if (bmp)
        return vec_xor(vec_and(third, c->bit_7), pair);
    vec_t fourth = vec_subs(vec_prev(input, before, 3), c->fourth_byte_floor);
    vec_t continuation_expected = vec_and(vec_or(third, fourth), c->bit_7);
    return vec_xor(continuation_expected, pair);
}

static inline vec_t UTF8_LOOKUP_NAME(utf8_lookup_errors)(
    const UTF8_LOOKUP_NAME(utf8_lookup_constants) *c, vec_t input, vec_t before)
{
    return UTF8_LOOKUP_NAME(utf8_lookup_errors_of)(c, input, before, 0);
}

/* Non-zero if `input` ends inside a character (checked against what
 * follows by the next vector's errors, or -- when the next is ASCII and
 * skipped, or there is none -- on its own). */
static inline vec_t UTF8_LOOKUP_NAME(utf8_lookup_unfinished)(
    const UTF8_LOOKUP_NAME(utf8_lookup_constants) *c, vec_t input)
{
    return vec_subs(input, c->last_allowed);
}

#ifndef UTF8_LOOKUP_BOUND_HELPER
#define UTF8_LOOKUP_BOUND_HELPER
/* Where the exact search starts once the vectors tested clean up to
 * `clean` and then found an error: every character that starts before
 * clean - 4 was checked whole, together with the byte after it (an error
 * is flagged at most four bytes past the start of its character), so the
 * last byte at or before clean - 4 that is not a continuation byte is a
 * character boundary with only well-formed text before it. */
static inline size_t utf8_lookup_boundary_before(const uint8_t *src, size_t clean)
{
    size_t p = clean >= 4 ? clean - 4 : 0;
    while (p > 0 && utf8_is_continuation(src[p]))
        p--;
    return p;
}
#endif

/* Non-zero bytes where `input` holds a byte 00: saturating 1 - byte is 1
 * there and 0 elsewhere. */
static inline vec_t UTF8_LOOKUP_NAME(utf8_lookup_nul_bytes)(vec_t input)
{
    return vec_subs(vec_splat(1), input);
}

/* 1 if every byte of the vectors whose signed minimum per byte is `least`
 * is 01..7F: ASCII with no 00 (a byte 80..FF is negative as a signed
 * byte).  One comparison with zero, which needs no constant of its own:
 * the MUTF-8 loop has no vector register to spare. */
static inline int UTF8_LOOKUP_NAME(utf8_lookup_is_ascii_without_nul)(vec_t least)
{
    return vec_is_positive(least);
}

/* len if src[0..len) is well-formed (as UTF-8, or the restricted UTF-8
 * that `form` names); otherwise, with `locate`, a character boundary
 * p < len with src[0..p) well-formed, at most 4 steps (8 vectors) before
 * the first error (kernels.h, utf8_well_formed_bound), and without it, some
 * p < len.  (Always inlined with constant `locate` and `form`, so that
 * plain validation carries none of the bookkeeping.) */
static inline __attribute__((always_inline)) size_t UTF8_LOOKUP_NAME(utf8_lookup_scan)(
    const uint8_t *src, size_t len, int locate, int form)
{
    const UTF8_LOOKUP_NAME(utf8_lookup_constants) c = UTF8_LOOKUP_NAME(utf8_lookup_setup_form)(
        form == UTF8_LOOKUP_BMP_WITHOUT_NUL ? UTF8_LOOKUP_BMP : form);
    const int nul_is_ill_formed = form == UTF8_LOOKUP_BMP_WITHOUT_NUL;
    const int bmp = form != UTF8_LOOKUP_UTF8;
    vec_t zero = vec_splat(0);
    /* MUTF-8 (JVM spec section 4.4.7) is judged by the BMP tables, and its
     * 00s by a test of their own: in the ASCII test (by the signed
     * minimum), and in each step the rules judge (by the unsigned minimum
     * of its two vectors).  Zeros stand for the ASCII before a vector (the
     * text's start, a skipped run): any byte 00..7F is alike to the rules. */
    vec_t error = zero, before = zero, unfinished = zero;
    size_t i = 0, clean = 0;
    /* Ill-formed input stops the scan within 8 steps of its first error
     * (sanitize and count validate first, and dirty text is common there);
     * testing less often keeps the test off the clean path.  Locating, the
     * tests come after 1, 2, then every 4 steps: a loop over the errors of
     * dirty text calls this from each error to the next, often a few
     * vectors away, and everything after the last clean test is read
     * again. */
    unsigned test_interval = locate ? 1 : 8, steps_to_test = test_interval;
    /* Two vectors per step: one test skips both when both are ASCII. */
    while (len - i >= 2 * VEC_BYTES) {
        vec_t first = vec_load(src + i), second = vec_load(src + i + VEC_BYTES);
        /* (MUTF-8: and no 00, in the same test) */
        if (nul_is_ill_formed
                ? UTF8_LOOKUP_NAME(utf8_lookup_is_ascii_without_nul)(vec_min_signed(first, second))
                : vec_is_ascii(vec_or(first, second))) {
            error = vec_or(error, unfinished);
            unfinished = zero;
            /* What follows a 00 that ended the vector before, in MUTF-8,
             * no rule will see either: every 00 of that vector is flagged
             * (the others the rules flagged already). */
            before = zero;
            i += 2 * VEC_BYTES;
            /* A run of ASCII: four vectors per test. */
            if (nul_is_ill_formed) {
                while (len - i >= 4 * VEC_BYTES &&
                       UTF8_LOOKUP_NAME(utf8_lookup_is_ascii_without_nul)(vec_min_signed(
                           vec_min_signed(vec_load(src + i), vec_load(src + i + VEC_BYTES)),
                           vec_min_signed(vec_load(src + i + 2 * VEC_BYTES),
                                          vec_load(src + i + 3 * VEC_BYTES)))))
                    i += 4 * VEC_BYTES;
            } else {
                while (len - i >= 4 * VEC_BYTES &&
                       vec_is_ascii(vec_or(vec_or(vec_load(src + i), vec_load(src + i + VEC_BYTES)),
                                           vec_or(vec_load(src + i + 2 * VEC_BYTES),
                                                  vec_load(src + i + 3 * VEC_BYTES)))))
                    i += 4 * VEC_BYTES;
            }
            continue;
        } else {
            error = vec_or(error, UTF8_LOOKUP_NAME(utf8_lookup_errors_of)(&c, first, before, bmp));
            error = vec_or(error, UTF8_LOOKUP_NAME(utf8_lookup_errors_of)(&c, second, first, bmp));
            if (nul_is_ill_formed)
                error = vec_or(error, UTF8_LOOKUP_NAME(utf8_lookup_nul_bytes)(
                                          vec_min_unsigned(first, second)));
            unfinished = UTF8_LOOKUP_NAME(utf8_lookup_unfinished)(&c, second);
            if (--steps_to_test == 0) {
                if (vec_any(error))
                    return locate ? utf8_lookup_boundary_before(src, clean) : 0;
                if (locate) {
                    test_interval = test_interval < 4 ? 2 * test_interval : 4;
                    clean = i + 2 * VEC_BYTES; /* (all but a character `second` leaves unfinished) */
                }
                steps_to_test = test_interval;
            }
        }
        before = second;
        i += 2 * VEC_BYTES;
    }
    if (len - i >= VEC_BYTES) {
        vec_t input = vec_load(src + i);
        error = vec_or(error, UTF8_LOOKUP_NAME(utf8_lookup_errors_of)(&c, input, before, bmp));
        if (nul_is_ill_formed)
            error = vec_or(error, UTF8_LOOKUP_NAME(utf8_lookup_nul_bytes)(input));
        before = input;
        i += VEC_BYTES;
    }
    /* The rest, padded with ASCII: a character the end cuts off is then a
     * lead followed by ASCII, which the pair rules reject.  (Zeros, but
     * spaces in MUTF-8, whose 00 test would take the padding's zeros for
     * 00s of the text.) */
    vec_t last;
    if (nul_is_ill_formed) {
        uint8_t padded[VEC_BYTES];
        memset(padded, ' ', sizeof padded);
        memcpy(padded, src + i, len - i);
        last = vec_load(padded);
    } else {
        last = vec_load_partial(src + i, len - i);
    }
    error = vec_or(error, UTF8_LOOKUP_NAME(utf8_lookup_errors_of)(&c, last, before, bmp));
    if (nul_is_ill_formed)
        error = vec_or(error, UTF8_LOOKUP_NAME(utf8_lookup_nul_bytes)(last));
    if (!vec_any(error))
        return len;
    return locate ? utf8_lookup_boundary_before(src, clean) : 0;
}

/* A kernel that validates UTF-8 with a loop of its own (x86_avx512.c)
 * defines UTF8_LOOKUP_ADVANCE_ONLY: then utf8_well_formed_bound and
 * utf8_validate are its own, and the tables, the vector rules, the BMP
 * operations and utf8_advance come from here; and UTF8_LOOKUP_OWN_BMP_VALIDATE
 * when its loop judges CESU-8 and MUTF-8 too (utf8_bmp_validate). */
#ifndef UTF8_LOOKUP_ADVANCE_ONLY
size_t UTF8_LOOKUP_NAME(utf8_well_formed_bound)(const uint8_t *src, size_t len)
{
    return UTF8_LOOKUP_NAME(utf8_lookup_scan)(src, len, 1, UTF8_LOOKUP_UTF8);
}

int UTF8_LOOKUP_NAME(utf8_validate)(const uint8_t *src, size_t len)
{
    return UTF8_LOOKUP_NAME(utf8_lookup_scan)(src, len, 0, UTF8_LOOKUP_UTF8) == len;
}
#endif

#ifndef UTF8_LOOKUP_OWN_BMP_VALIDATE
/* One function per form, each starting on a 64-byte boundary, and (GCC)
 * its loops and jump targets too: the speed of these loops on text that
 * goes in and out of ASCII (wikipedia_mars german) depends on where their
 * code falls -- under sse4, as one function, CESU-8 went 25 -> 14 GB/s when
 * the MUTF-8 loop changed, and MUTF-8 alone was 13-16 GB/s at three
 * placements and 22 with these (bench_kernels, -O3; UTF-8's own 21-23). */
#if defined(__GNUC__) && !defined(__clang__)
#define UTF8_LOOKUP_PLACED __attribute__((noinline, aligned(64), \
                                          optimize("align-jumps=64", "align-loops=64")))
#else
#define UTF8_LOOKUP_PLACED __attribute__((noinline, aligned(64)))
#endif
static UTF8_LOOKUP_PLACED int UTF8_LOOKUP_NAME(utf8_lookup_cesu8_validate)(
    const uint8_t *src, size_t len)
{
    return UTF8_LOOKUP_NAME(utf8_lookup_scan)(src, len, 0, UTF8_LOOKUP_BMP) == len;
}

static UTF8_LOOKUP_PLACED int UTF8_LOOKUP_NAME(utf8_lookup_mutf8_validate)(
    const uint8_t *src, size_t len)
{
    return UTF8_LOOKUP_NAME(utf8_lookup_scan)(src, len, 0, UTF8_LOOKUP_BMP_WITHOUT_NUL) == len;
}

int UTF8_LOOKUP_NAME(utf8_bmp_validate)(const uint8_t *src, size_t len, int nul_is_ill_formed)
{
    return nul_is_ill_formed ? UTF8_LOOKUP_NAME(utf8_lookup_mutf8_validate)(src, len)
                             : UTF8_LOOKUP_NAME(utf8_lookup_cesu8_validate)(src, len);
}
#endif

/* Non-zero bytes where `input` holds a byte F0..FF (or 00). */
static inline vec_t UTF8_LOOKUP_NAME(utf8_lookup_foreign_bytes)(vec_t input, int nul_is_ill_formed)
{
    vec_t foreign = vec_subs(input, vec_splat(0xEF)); /* non-zero exactly for F0..FF */
    return nul_is_ill_formed ? vec_or(foreign, UTF8_LOOKUP_NAME(utf8_lookup_nul_bytes)(input))
                             : foreign;
}

/* The first byte F0..FF (or 00, with nul_is_ill_formed) of src[0..len),
 * or len: where a BMP-only stretch of UTF-8 must end.  Four vectors per
 * test, folded by their unsigned maximum (a byte F0..FF is there if the
 * maximum is one) and minimum (a 00 if the minimum is one): the writers
 * into CESU-8 and MUTF-8 run this over every block's output (readers.h,
 * transcode_blocks_step_cut). */
static inline __attribute__((always_inline)) size_t UTF8_LOOKUP_NAME(utf8_lookup_bmp_prefix)(
    const uint8_t *src, size_t len, int nul_is_ill_formed)
{
    const vec_t above_bmp_lead = vec_splat(0xEF), one = vec_splat(1);
    size_t i = 0;
    while (len - i >= 4 * VEC_BYTES) {
        vec_t a = vec_load(src + i), b = vec_load(src + i + VEC_BYTES);
        vec_t c = vec_load(src + i + 2 * VEC_BYTES), d = vec_load(src + i + 3 * VEC_BYTES);
        vec_t found = vec_subs(vec_max_unsigned(vec_max_unsigned(a, b), vec_max_unsigned(c, d)),
                               above_bmp_lead);
        if (nul_is_ill_formed)
            found = vec_or(found, vec_subs(one, vec_min_unsigned(vec_min_unsigned(a, b),
                                                                 vec_min_unsigned(c, d))));
        if (vec_any(found))
            break;
        i += 4 * VEC_BYTES;
    }
    for (; len - i >= VEC_BYTES; i += VEC_BYTES) {
        vec_t foreign =
            UTF8_LOOKUP_NAME(utf8_lookup_foreign_bytes)(vec_load(src + i), nul_is_ill_formed);
        if (vec_any(foreign))
            return i + vec_first_nonzero(foreign);
    }
    for (; i < len; i++)
        if (src[i] >= 0xF0 || (nul_is_ill_formed && src[i] == 0))
            return i;
    return len;
}

size_t UTF8_LOOKUP_NAME(utf8_bmp_prefix_length)(const uint8_t *src, size_t len,
                                                int nul_is_ill_formed)
{
    return nul_is_ill_formed ? UTF8_LOOKUP_NAME(utf8_lookup_bmp_prefix)(src, len, 1)
                             : UTF8_LOOKUP_NAME(utf8_lookup_bmp_prefix)(src, len, 0);
}

/* The automaton from `state` over src[i..end): stops at the first rejected
 * byte (position = it, state = the state before it) or at end. */
static inline utf8_progress UTF8_LOOKUP_NAME(utf8_lookup_replay)(const uint8_t *src, size_t i,
                                                                 size_t end, uint64_t state)
{
    for (; i < end; i++) {
        uint64_t next = utf8_dfa_step(state, src[i]);
        if (UTF8_STATE(next) == UTF8_ERROR)
            return (utf8_progress){state, i};
        state = next;
    }
    return (utf8_progress){state, end};
}

utf8_progress UTF8_LOOKUP_NAME(utf8_advance)(const uint8_t *src, size_t len, utf8_progress progress)
{
    const UTF8_LOOKUP_NAME(utf8_lookup_constants) c = UTF8_LOOKUP_NAME(utf8_lookup_setup)();
    vec_t zero = vec_splat(0);
    size_t i = progress.position;
    for (;;) {
        /* The vectors start at a character boundary, as if after ASCII:
         * first the automaton finishes a character in progress. */
        uint64_t state = progress.state;
        while (UTF8_STATE(state) != UTF8_ACCEPT) {
            if (i == len)
                return (utf8_progress){state, len}; /* the end cuts the character off */
            uint64_t next = utf8_dfa_step(state, src[i]);
            if (UTF8_STATE(next) == UTF8_ERROR)
                return (utf8_progress){state, i};
            state = next;
            i++;
        }
        size_t start = i;
        vec_t before = zero, unfinished = zero;
        int suspect = 0;
        size_t flagged = len; /* the first byte a vector flags */
        while (len - i >= VEC_BYTES) {
            vec_t input = vec_load(src + i);
            if (vec_is_ascii(input)) {
                if (vec_any(unfinished)) {
                    /* the previous vector ended inside a character */
                    suspect = 1;
                    flagged = i;
                    break;
                }
                unfinished = zero;
            } else {
                vec_t error = UTF8_LOOKUP_NAME(utf8_lookup_errors)(&c, input, before);
                if (vec_any(error)) {
                    suspect = 1;
                    flagged = i + vec_first_nonzero(error);
                    break;
                }
                unfinished = UTF8_LOOKUP_NAME(utf8_lookup_unfinished)(&c, input);
            }
            before = input;
            i += VEC_BYTES;
        }
        /* Where to restart the automaton.  A pair rule flags the byte the
         * automaton rejects, or the byte after it (after C0, C1 or F5..FF,
         * which the automaton rejects at once); the character that holds the
         * error begins at most three bytes before the rejected byte.  So
         * everything before flagged - 4 is well-formed, and the automaton
         * starts at the last byte there that is not a continuation (three
         * back at most, in well-formed text), or at `start`.  At the end of
         * the input (no vector flagged) the same holds for the character
         * that the last whole vector may have left unfinished. */
        size_t restart = flagged < len ? flagged : i;
        restart = restart - start >= 4 ? restart - 4 : start;
        while (restart > start && utf8_is_continuation(src[restart]))
            restart--;
        size_t end = suspect ? i + VEC_BYTES : len;
        progress = UTF8_LOOKUP_NAME(utf8_lookup_replay)(src, restart, end, UTF8_ACCEPT);
        if (progress.position < end || end == len)
            return progress;
        /* The vector raised an alarm the automaton does not confirm (the
         * two judges are proved to agree, but the automaton is the one that
         * decides): carry on after it. */
        i = end;
    }
}
