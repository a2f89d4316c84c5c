/*
 * utf8_scan.h -- the UTF-8 scanning loops, written once and compiled once
 * per kernel (the file that includes it sets the instruction set with
 * "#pragma GCC target" and names its ASCII-run finder first):
 *
 *     #define UTF8_SCAN_ASCII_PREFIX_LENGTH utfkit_ascii_prefix_length_avx2
 *     #define UTF8_SCAN_NAME(stem) stem##_avx2
 *     #include "../utf8_scan.h"
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

#include "kernels.h"
#include "utf8_dfa.h"

#ifndef UTF8_SCAN_BLOCK_HELPERS
#define UTF8_SCAN_BLOCK_HELPERS
#define UTF8_SCAN_BLOCK 16
#define UTF8_SCAN_HIGH_BITS 0x8080808080808080ull
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

static inline int UTF8_SCAN_NAME(block_is_ascii)(const uint8_t *src)
{
    uint64_t first, second;
    memcpy(&first, src, 8);
    memcpy(&second, src + 8, 8);
    return ((first | second) & UTF8_SCAN_HIGH_BITS) == 0;
}

static inline uint64_t UTF8_SCAN_NAME(dfa_run_block)(uint64_t state, const uint8_t *src)
{
    for (int k = 0; k < UTF8_SCAN_BLOCK; k++)
        state = utf8_dfa_step(state, src[k]);
    return state;
}

utf8_progress UTF8_SCAN_NAME(utf8_advance)(const uint8_t *src, size_t len, utf8_progress progress)
{
    uint64_t state = progress.state;
    size_t i = progress.position;
    while (len - i >= UTF8_SCAN_BLOCK) {
        if (UTF8_STATE(state) == UTF8_ACCEPT && UTF8_SCAN_NAME(block_is_ascii)(src + i)) {
            i += UTF8_SCAN_BLOCK;
            i += UTF8_SCAN_ASCII_PREFIX_LENGTH(src + i, len - i);
            continue;
        }
        uint64_t next = UTF8_SCAN_NAME(dfa_run_block)(state, src + i);
        if (UTF8_STATE(next) == UTF8_ERROR)
            break; /* the byte loop below finds which byte of the block */
        state = next;
        i += UTF8_SCAN_BLOCK;
    }
    for (; i < len; i++) {
        uint64_t next = utf8_dfa_step(state, src[i]);
        if (UTF8_STATE(next) == UTF8_ERROR)
            return (utf8_progress){state, i};
        state = next;
    }
    return (utf8_progress){state, len};
}

static int UTF8_SCAN_NAME(ends_well_formed)(const uint8_t *src, size_t len, utf8_progress progress)
{
    progress = UTF8_SCAN_NAME(utf8_advance)(src, len, progress);
    return progress.position == len && UTF8_STATE(progress.state) == UTF8_ACCEPT;
}

int UTF8_SCAN_NAME(utf8_validate)(const uint8_t *src, size_t len)
{
    utf8_progress pa = {UTF8_ACCEPT, 0}, pb = {UTF8_ACCEPT, 0};
    if (len < UTF8_SCAN_TWO_STREAM_MIN_LENGTH)
        return UTF8_SCAN_NAME(ends_well_formed)(src, len, pa);

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
                      UTF8_SCAN_NAME(block_is_ascii)(a + pa.position);
        int b_skips = UTF8_STATE(pb.state) == UTF8_ACCEPT &&
                      UTF8_SCAN_NAME(block_is_ascii)(b + pb.position);
        if (a_skips | b_skips) {
            if (a_skips) {
                pa.position += UTF8_SCAN_BLOCK;
                pa.position += UTF8_SCAN_ASCII_PREFIX_LENGTH(a + pa.position, a_len - pa.position);
            }
            if (b_skips) {
                pb.position += UTF8_SCAN_BLOCK;
                pb.position += UTF8_SCAN_ASCII_PREFIX_LENGTH(b + pb.position, b_len - pb.position);
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
                sa = utf8_dfa_row[UTF8_SCAN_WORD_BYTE(wa, k)] >> (sa & 63u);
                sb = utf8_dfa_row[UTF8_SCAN_WORD_BYTE(wb, k)] >> (sb & 63u);
            }
        }
        if (UTF8_STATE(sa) == UTF8_ERROR || UTF8_STATE(sb) == UTF8_ERROR)
            return 0;
        pa.state = sa;
        pb.state = sb;
        pa.position += UTF8_SCAN_BLOCK;
        pb.position += UTF8_SCAN_BLOCK;
    }
    return UTF8_SCAN_NAME(ends_well_formed)(a, a_len, pa) &&
           UTF8_SCAN_NAME(ends_well_formed)(b, b_len, pb);
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
#endif

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
    for (size_t i = 0; i < len; i += UTF8_SCAN_BMP_CHUNK * 16) {
        size_t n = len - i < UTF8_SCAN_BMP_CHUNK * 16 ? len - i : UTF8_SCAN_BMP_CHUNK * 16;
        if (!utf8_scan_chunk_is_bmp(src + i, n, nul_is_ill_formed))
            return 0;
    }
    return UTF8_SCAN_NAME(utf8_validate)(src, len);
}
