/*
 * utf8_scan.h -- the UTF-8 scanning loops, written once and compiled once
 * per kernel (the file that includes it sets the instruction set with
 * "#pragma GCC target" and names its ASCII-run finder first):
 *
 *     #define UTF8_SCAN_ASCII_PREFIX_LENGTH utfkit_ascii_prefix_length_avx2
 *     #define UTF8_SCAN_NAME(stem) stem##_avx2
 *     #include "../utf8_scan.h"
 *
 * (and may name UTF8_SCAN_NONZERO_ASCII_BLOCKS, the length of the longest
 * prefix of src[0..len) made of its steps of bytes 01..7F, for MUTF-8).
 *
 * which defines utf8_advance_avx2 and utf8_validate_avx2 with the contracts
 * of utfkit_kernel.advance and .validate (kernels.h).  Compiled for a CPU
 * with BMI2, each DFA step becomes one SHRX; the ASCII finder is called
 * directly, so it can be inlined.
 *
 * Speed, never a second copy of the rules: runs of ASCII are skipped in
 * blocks, everything else goes through the Table 3-7 automaton 16 bytes at
 * a time.  validate runs two halves of the input in lock step, so that the
 * CPU overlaps two independent dependency chains.
 */
#include <string.h>

#include "byte_order.h"
#include "kernels.h"
#include "utf8_dfa.h"

#ifndef UTF8_SCAN_BLOCK_HELPERS
#define UTF8_SCAN_BLOCK_HELPERS
#define UTF8_SCAN_BLOCK 16
#define UTF8_SCAN_HIGH_BITS 0x8080808080808080ull
#define UTF8_SCAN_LOW_BITS 0x0101010101010101ull
/* Inputs shorter than this are validated as one stream: splitting them
 * would cost more than the overlap gains. */
#define UTF8_SCAN_TWO_STREAM_MIN_LENGTH 256
/* Byte k, in memory order, of a word loaded with memcpy. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define UTF8_SCAN_WORD_BYTE(word, k) ((uint8_t)((word) >> (56 - 8 * (k))))
#else
#define UTF8_SCAN_WORD_BYTE(word, k) ((uint8_t)((word) >> (8 * (k))))
#endif
#endif

static inline int UTF8_SCAN_NAME(block_is_ascii)(const uint8_t *src, int nul_is_ill_formed)
{
    uint64_t first, second;
    memcpy(&first, src, 8);
    memcpy(&second, src + 8, 8);
    if (((first | second) & UTF8_SCAN_HIGH_BITS) != 0)
        return 0;
    /* With nul_is_ill_formed, 00 is not skipped either: in a word with no
     * byte 80..FF, subtracting 01 from each byte borrows into bit 7 exactly
     * from a byte 00 onwards. */
    return !nul_is_ill_formed ||
           (((first - UTF8_SCAN_LOW_BITS) | (second - UTF8_SCAN_LOW_BITS)) &
            UTF8_SCAN_HIGH_BITS) == 0;
}

/* How many bytes from src are 00..7F (01..7F with nul_is_ill_formed). */
static inline size_t UTF8_SCAN_NAME(ascii_run_length)(const uint8_t *src, size_t len,
                                                      int nul_is_ill_formed)
{
    if (!nul_is_ill_formed)
        return UTF8_SCAN_ASCII_PREFIX_LENGTH(src, len);
#if defined(UTF8_SCAN_NONZERO_ASCII_BLOCKS)
    /* the kernel's own steps first, up to the step that holds a byte that
     * is not 01..7F */
    size_t i = UTF8_SCAN_NONZERO_ASCII_BLOCKS(src, len);
#else
    size_t i = 0;
#endif
    /* 16 bytes a step, as block_is_ascii judges them, then the word that
     * holds the first byte that is not 01..7F. */
    while (len - i >= UTF8_SCAN_BLOCK && UTF8_SCAN_NAME(block_is_ascii)(src + i, 1))
        i += UTF8_SCAN_BLOCK;
    while (len - i >= 8) {
        uint64_t word;
        memcpy(&word, src + i, 8);
        uint64_t flagged = (word | (word - UTF8_SCAN_LOW_BITS)) & UTF8_SCAN_HIGH_BITS;
#if !(defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
        /* A borrow runs from a byte 00 to the bytes after it in memory, so
         * the lowest flagged byte is the first that is not 01..7F. */
        if (flagged != 0)
            return i + (size_t)(__builtin_ctzll(flagged) >> 3);
#else
        if (flagged != 0)
            break;
#endif
        i += 8;
    }
    while (i < len && (uint8_t)(src[i] - 1u) < 0x7Fu)
        i++;
    return i;
}

static inline uint64_t UTF8_SCAN_NAME(dfa_run_block)(const uint64_t *rows, uint64_t state,
                                                     const uint8_t *src)
{
    for (int k = 0; k < UTF8_SCAN_BLOCK; k++)
        state = rows[src[k]] >> (state & 63u);
    return state;
}

/* The loops below run the automaton over a table of rows: utf8_dfa_row for
 * UTF-8, or one of the BMP tables further down, the same automaton with
 * more bytes on the error row.  nul_is_ill_formed must be 1 exactly when
 * the table rejects 00, so that the ASCII skip does not pass over one. */
static UTFKIT_ALWAYS_INLINE utf8_progress UTF8_SCAN_NAME(advance_over)(
    const uint64_t *rows, int nul_is_ill_formed, const uint8_t *src, size_t len,
    utf8_progress progress)
{
    uint64_t state = progress.state;
    size_t i = progress.position;
    while (len - i >= UTF8_SCAN_BLOCK) {
        if (UTF8_STATE(state) == UTF8_ACCEPT &&
            UTF8_SCAN_NAME(block_is_ascii)(src + i, nul_is_ill_formed)) {
            i += UTF8_SCAN_BLOCK;
            i += UTF8_SCAN_NAME(ascii_run_length)(src + i, len - i, nul_is_ill_formed);
            continue;
        }
        uint64_t next = UTF8_SCAN_NAME(dfa_run_block)(rows, state, src + i);
        if (UTF8_STATE(next) == UTF8_ERROR)
            break; /* the byte loop below finds which byte of the block */
        state = next;
        i += UTF8_SCAN_BLOCK;
    }
    for (; i < len; i++) {
        uint64_t next = rows[src[i]] >> (state & 63u);
        if (UTF8_STATE(next) == UTF8_ERROR)
            return (utf8_progress){state, i};
        state = next;
    }
    return (utf8_progress){state, len};
}

utf8_progress UTF8_SCAN_NAME(utf8_advance)(const uint8_t *src, size_t len, utf8_progress progress)
{
    return UTF8_SCAN_NAME(advance_over)(utf8_dfa_row, 0, src, len, progress);
}

/* An advance loop over one table, which validate_over calls for the ends
 * of its two halves (kept out of line: the two-stream loop runs faster for
 * it). */
typedef utf8_progress (*UTF8_SCAN_NAME(advance_fn))(const uint8_t *src, size_t len,
                                                    utf8_progress progress);

static UTFKIT_ALWAYS_INLINE int UTF8_SCAN_NAME(ends_well_formed)(
    UTF8_SCAN_NAME(advance_fn) advance, const uint8_t *src, size_t len, utf8_progress progress)
{
    progress = advance(src, len, progress);
    return progress.position == len && UTF8_STATE(progress.state) == UTF8_ACCEPT;
}

static UTFKIT_ALWAYS_INLINE int UTF8_SCAN_NAME(validate_over)(
    const uint64_t *rows, int nul_is_ill_formed, UTF8_SCAN_NAME(advance_fn) advance,
    const uint8_t *src, size_t len)
{
    utf8_progress pa = {UTF8_ACCEPT, 0}, pb = {UTF8_ACCEPT, 0};
    if (len < UTF8_SCAN_TWO_STREAM_MIN_LENGTH)
        return UTF8_SCAN_NAME(ends_well_formed)(advance, src, len, pa);

    /* Split at a character boundary: in well-formed UTF-8 every byte that
     * is not a continuation byte starts a character, and Table 3-7 allows
     * at most three continuation bytes in a row. */
    size_t middle = len / 2;
    for (int k = 0; k < 4 && utf8_is_continuation(src[middle]); k++)
        middle++;
    if (utf8_is_continuation(src[middle]))
        return 0;

    const uint8_t *a = src, *b = src + middle;
    size_t a_len = middle, b_len = len - middle;
    while (a_len - pa.position >= UTF8_SCAN_BLOCK && b_len - pb.position >= UTF8_SCAN_BLOCK) {
        int a_skips = UTF8_STATE(pa.state) == UTF8_ACCEPT &&
                      UTF8_SCAN_NAME(block_is_ascii)(a + pa.position, nul_is_ill_formed);
        int b_skips = UTF8_STATE(pb.state) == UTF8_ACCEPT &&
                      UTF8_SCAN_NAME(block_is_ascii)(b + pb.position, nul_is_ill_formed);
        if (a_skips | b_skips) {
            if (a_skips) {
                pa.position += UTF8_SCAN_BLOCK;
                pa.position += UTF8_SCAN_NAME(ascii_run_length)(a + pa.position,
                                                                a_len - pa.position,
                                                                nul_is_ill_formed);
            }
            if (b_skips) {
                pb.position += UTF8_SCAN_BLOCK;
                pb.position += UTF8_SCAN_NAME(ascii_run_length)(b + pb.position,
                                                                b_len - pb.position,
                                                                nul_is_ill_formed);
            }
            continue;
        }
        const uint8_t *block_a = a + pa.position, *block_b = b + pb.position;
        uint64_t sa = pa.state, sb = pb.state;
        /* Bytes come in as 64-bit words: one load per 8 bytes leaves the
         * load ports to the row lookups. */
        for (int half = 0; half < UTF8_SCAN_BLOCK; half += 8) {
            uint64_t wa, wb;
            memcpy(&wa, block_a + half, 8);
            memcpy(&wb, block_b + half, 8);
            for (int k = 0; k < 8; k++) {
                sa = rows[UTF8_SCAN_WORD_BYTE(wa, k)] >> (sa & 63u);
                sb = rows[UTF8_SCAN_WORD_BYTE(wb, k)] >> (sb & 63u);
            }
        }
        if (UTF8_STATE(sa) == UTF8_ERROR || UTF8_STATE(sb) == UTF8_ERROR)
            return 0;
        pa.state = sa;
        pb.state = sb;
        pa.position += UTF8_SCAN_BLOCK;
        pb.position += UTF8_SCAN_BLOCK;
    }
    return UTF8_SCAN_NAME(ends_well_formed)(advance, a, a_len, pa) &&
           UTF8_SCAN_NAME(ends_well_formed)(advance, b, b_len, pb);
}

int UTF8_SCAN_NAME(utf8_validate)(const uint8_t *src, size_t len)
{
    return UTF8_SCAN_NAME(validate_over)(utf8_dfa_row, 0, UTF8_SCAN_NAME(utf8_advance), src, len);
}

/* Without vectors to narrow it down, the error is searched from the start. */
size_t UTF8_SCAN_NAME(utf8_well_formed_bound)(const uint8_t *src, size_t len)
{
    return UTF8_SCAN_NAME(utf8_validate)(src, len) ? len : 0;
}

/* ---- UTF-8 of the BMP (kernels.h, utf8_bmp_*): the surrogate-free text of
 * CESU-8 and MUTF-8, with no byte F0..FF (nor 00) ---- */

#ifndef UTF8_SCAN_BMP_HELPERS
#define UTF8_SCAN_BMP_HELPERS
/* Bytes judged at a time: by their largest and smallest value, loops the
 * compiler turns into byte-wise vector max/min (PMAXUB, PMINUB on any
 * x86-64) even in this portable kernel. */
#define UTF8_SCAN_BMP_CHUNK 256

/* 1 if src[0..n) has no byte F0..FF, nor 00 with nul_is_ill_formed. */
static inline int utf8_scan_chunk_is_bmp(const uint8_t *src, size_t n, int nul_is_ill_formed)
{
    uint8_t largest = 0, smallest = 0xFF;
    for (size_t k = 0; k < n; k++) {
        largest = src[k] > largest ? src[k] : largest;
        smallest = src[k] < smallest ? src[k] : smallest;
    }
    return largest < 0xF0 && !(nul_is_ill_formed && smallest == 0);
}

/* The automaton's rows (utf8_dfa.h) with F0..FF, and for MUTF-8 00 as
 * well, on the error row (UTF8_ROW_NEVER, 0, as every entry left out of an
 * initializer): the 4-byte form does not exist in CESU-8 (UTR #26 section
 * 2) nor in MUTF-8, where U+0000 is C0 80 (JVM specification section
 * 4.4.7).  One pass of the automaton then validates their surrogate-free
 * text. */
#define UTF8_SCAN_ASCII_ROWS_16                                          \
    UTF8_ROW_ASCII, UTF8_ROW_ASCII, UTF8_ROW_ASCII, UTF8_ROW_ASCII,      \
    UTF8_ROW_ASCII, UTF8_ROW_ASCII, UTF8_ROW_ASCII, UTF8_ROW_ASCII,      \
    UTF8_ROW_ASCII, UTF8_ROW_ASCII, UTF8_ROW_ASCII, UTF8_ROW_ASCII,      \
    UTF8_ROW_ASCII, UTF8_ROW_ASCII, UTF8_ROW_ASCII, UTF8_ROW_ASCII
#define UTF8_SCAN_ROWS_80_EF \
    UTF8_ROWS_64(0x80), UTF8_ROWS_16(0xC0), UTF8_ROWS_16(0xD0), UTF8_ROWS_16(0xE0)

static const uint64_t utf8_scan_cesu8_row[256] = {
    UTF8_ROWS_64(0x00), UTF8_ROWS_64(0x40), UTF8_SCAN_ROWS_80_EF
};
static const uint64_t utf8_scan_mutf8_row[256] = {
    UTF8_ROW_NEVER, UTF8_ROW_ASCII, UTF8_ROW_ASCII, UTF8_ROW_ASCII, UTF8_ROW_ASCII,
    UTF8_ROW_ASCII, UTF8_ROW_ASCII, UTF8_ROW_ASCII, UTF8_ROW_ASCII, UTF8_ROW_ASCII,
    UTF8_ROW_ASCII, UTF8_ROW_ASCII, UTF8_ROW_ASCII, UTF8_ROW_ASCII, UTF8_ROW_ASCII,
    UTF8_ROW_ASCII, UTF8_SCAN_ASCII_ROWS_16, UTF8_SCAN_ASCII_ROWS_16, UTF8_SCAN_ASCII_ROWS_16,
    UTF8_SCAN_ASCII_ROWS_16, UTF8_SCAN_ASCII_ROWS_16, UTF8_SCAN_ASCII_ROWS_16,
    UTF8_SCAN_ASCII_ROWS_16, UTF8_SCAN_ROWS_80_EF
};
#endif

static utf8_progress UTF8_SCAN_NAME(cesu8_advance)(const uint8_t *src, size_t len,
                                                   utf8_progress progress)
{
    return UTF8_SCAN_NAME(advance_over)(utf8_scan_cesu8_row, 0, src, len, progress);
}

static utf8_progress UTF8_SCAN_NAME(mutf8_advance)(const uint8_t *src, size_t len,
                                                   utf8_progress progress)
{
    return UTF8_SCAN_NAME(advance_over)(utf8_scan_mutf8_row, 1, src, len, progress);
}

size_t UTF8_SCAN_NAME(utf8_bmp_prefix_length)(const uint8_t *src, size_t len, int nul_is_ill_formed)
{
    size_t i = 0;
    while (len - i >= UTF8_SCAN_BMP_CHUNK &&
           utf8_scan_chunk_is_bmp(src + i, UTF8_SCAN_BMP_CHUNK, nul_is_ill_formed))
        i += UTF8_SCAN_BMP_CHUNK;
    for (; i < len; i++)
        if (src[i] >= 0xF0 || (nul_is_ill_formed && src[i] == 0))
            return i;
    return len;
}

int UTF8_SCAN_NAME(utf8_bmp_validate)(const uint8_t *src, size_t len, int nul_is_ill_formed)
{
    return nul_is_ill_formed
               ? UTF8_SCAN_NAME(validate_over)(utf8_scan_mutf8_row, 1, UTF8_SCAN_NAME(mutf8_advance),
                                               src, len)
               : UTF8_SCAN_NAME(validate_over)(utf8_scan_cesu8_row, 0, UTF8_SCAN_NAME(cesu8_advance),
                                               src, len);
}
