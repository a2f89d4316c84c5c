/*
 * test_kernels_agree.c -- every kernel against the scalar one, on random
 * structured UTF-8 (a differential test: the scalar kernel, itself proved
 * against Table 3-7 by test_utf8_table_3_7.c, is the reference).
 *
 * A standalone C program: no Python.  Built and run by `make ctest`,
 * `make ctest-asan` and tests/test_c_core.py.
 *
 * Each input is real-looking text -- runs of ASCII and of 2-, 3- and 4-byte
 * characters, of random lengths, so that characters straddle every vector
 * boundary -- with 0 to 3 damages: a byte overwritten by any value, a piece
 * of one of the ways Table 3-7 fails (overlongs, surrogates, values above
 * 10FFFF, bytes that never start a character, lone continuations, leads
 * not continued), or the input cut inside a character.  Inputs sit in a
 * heap block that ends exactly at their end, so AddressSanitizer sees any
 * read past it.  For each input and kernel, every UTF-8 entry point must
 * give the scalar kernel's answer: utfkit_utf8_validate, utfkit_utf8_check
 * (status, position, maximal subpart), utfkit_utf8_count,
 * utfkit_utf8_sanitize (output bytes); WTF-8 into UTF-16 and UTF-32;
 * CESU-8 and MUTF-8: validate, check, count, into UTF-16 and UTF-32, and
 * UTF-16 and UTF-32 into them;
 * and, with the same bytes read as UTF-8, UTF-16 and UTF-32 of either byte
 * order, utfkit_transcode to every other of those forms (strict and
 * replace: the readers and the kernels' blocks; output bytes too),
 * utfkit_count, utfkit_transcoded_length (strict and replace) and
 * utfkit_well_formed_length to every other of those forms (the counting
 * loops of each kernel, well-formed input or not).
 *
 * Then the validating counts on texts damaged at every position of their
 * first 1100 bytes in turn (every_position, below), the conversions whose
 * blocks align their stores into an output at every offset of a cache line
 * (output_at_every_line_offset), and UTF-16 validation with a misplaced
 * surrogate at every position of long texts
 * (utf16_surrogates_at_every_position), CESU-8 and MUTF-8 with their own
 * sequences (or F0..FF, 00) at every position (form_stops_at_every_position),
 * UTF-16 and UTF-32 into CESU-8 and MUTF-8 with a stop for the blocks at
 * every position (bmp_writers_stop_at_every_position), and every pair of
 * forms at every
 * input length 0..260 into exactly the room utfkit.h promises, guard bytes
 * after it (bounds_at_every_length).
 *
 * Usage: test_kernels_agree [--quick] [--inputs N] [--seed S]
 * (default 200,000 inputs of up to 1200 bytes, one in 16 up to 4800;
 * --quick 20,000).
 * Exit status 0 when every kernel agrees; 1 after printing the first
 * disagreements (input in hex, kernel, entry point, both answers).
 */
#define _POSIX_C_SOURCE 200112L /* posix_memalign */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utfkit.h"

/* At least as many kernels as utfkit_backend_name lists. */
#define MAX_KERNELS 32

/* xorshift64*: a fixed-seed generator, the same sequence on every machine. */
static uint64_t random_state = 0x9E3779B97F4A7C15ull;
static uint64_t next_random(void)
{
    random_state ^= random_state >> 12;
    random_state ^= random_state << 25;
    random_state ^= random_state >> 27;
    return random_state * 0x2545F4914F6CDD1Dull;
}
static size_t below(size_t n) { return (size_t)(next_random() % n); }

/* Appends the UTF-8 of code point cp (a scalar value) to out. */
static size_t put_utf8(uint8_t *out, uint32_t cp)
{
    if (cp < 0x80) {
        out[0] = (uint8_t)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (uint8_t)(0xC0 | cp >> 6);
        out[1] = (uint8_t)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (uint8_t)(0xE0 | cp >> 12);
        out[1] = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
        out[2] = (uint8_t)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (uint8_t)(0xF0 | cp >> 18);
    out[1] = (uint8_t)(0x80 | (cp >> 12 & 0x3F));
    out[2] = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
    out[3] = (uint8_t)(0x80 | (cp & 0x3F));
    return 4;
}

/* A random scalar value of the given UTF-8 length (1..4). */
static uint32_t scalar_of_length(int length)
{
    switch (length) {
    case 1: return 0x20 + (uint32_t)below(0x5F);
    case 2: return 0x80 + (uint32_t)below(0x800 - 0x80);
    case 3: {
        uint32_t cp = 0x800 + (uint32_t)below(0x10000 - 0x800 - 0x800);
        return cp >= 0xD800 ? cp + 0x800 : cp; /* no surrogates */
    }
    default: return 0x10000 + (uint32_t)below(0x110000 - 0x10000);
    }
}

/* Ways Table 3-7 fails, as byte pieces. */
static const char *const ill_formed_pieces[] = {
    "\x80", "\xBF", "\xC0\x80", "\xC1\xBF", "\xF5\x80\x80\x80", "\xFF", "\xFE",
    "\xE0\x80\x80", "\xE0\x9F\xBF", "\xF0\x80\x80\x80", "\xF0\x8F\xBF\xBF",
    "\xED\xA0\x80", "\xED\xBF\xBF", "\xF4\x90\x80\x80", "\xF4\xBF\xBF\xBF",
    "\xC3", "\xE2\x82", "\xF0\x9F\x98", "\xE2", "\xF0", "\xF0\x9F", "\xC3\xA9\xA9",
    /* well-formed WTF-8 (seed 003 Table 1: lone surrogates), a surrogate
     * pair byte sequence (ill-formed there too), and ED A0..BF cut short */
    "\xED\xB0\x80", "\xED\xAF\xBF", "\xED\xA0\x80\xED\xB0\x80", "\xED\xA0\x41",
    /* CESU-8 and MUTF-8 (UTR #26, JVM spec section 4.4.7): a surrogate pair
     * as two 3-byte sequences (U+1F600), a pair cut after its lead, MUTF-8's
     * U+0000 (C0 80), and a raw 00 (ill-formed in MUTF-8; memcpy of the
     * piece's length copies it) */
    "\xED\xA0\xBD\xED\xB8\x80", "\xED\xA0\xBD\xED", "\xC0\x80", "A\0",
};
#define PIECES (sizeof ill_formed_pieces / sizeof ill_formed_pieces[0])

/* Builds a random input of at most max bytes into out; returns its length. */
static size_t random_text(uint8_t *out, size_t max)
{
    size_t target = below(max + 1), n = 0;
    while (n + 4 <= target) {
        /* a run of characters of one length, as words of one script are */
        int length = (int)below(4) + 1;
        /* ASCII runs may be long, past the 4-vector skips of the kernels;
         * runs of other lengths too, past the transcoders' fixed-stride
         * paths (16 characters of 3 bytes in one step on avx512) */
        size_t run = length == 1 && below(3) == 0 ? below(600) + 1
                     : below(4) == 0              ? below(200) + 1
                                                  : below(40) + 1;
        for (size_t k = 0; k < run && n + 4 <= target; k++)
            n += put_utf8(out + n, scalar_of_length(length));
    }
    size_t damages = below(4);
    for (size_t d = 0; d < damages && n > 0; d++) {
        size_t at = below(n);
        switch (below(3)) {
        case 0: /* one byte overwritten by any value */
            out[at] = (uint8_t)below(256);
            break;
        case 1: { /* a Table 3-7 failure written over the text */
            const char *piece = ill_formed_pieces[below(PIECES)];
            size_t length = piece[0] == 'A' ? 2 : strlen(piece);
            if (at + length <= n)
                memcpy(out + at, piece, length);
            break;
        }
        default: /* cut anywhere, often inside a character */
            n = at + 1;
            break;
        }
    }
    return n;
}

static int failures = 0;

static void report(const uint8_t *src, size_t len, const char *kernel, const char *what,
                   long long expected, long long got)
{
    if (failures++ >= 10)
        return;
    fprintf(stderr, "FAIL kernel %s, %s: scalar %lld, got %lld; input (%zu bytes):", kernel,
            what, expected, got, len);
    for (size_t i = 0; i < len; i++)
        fprintf(stderr, " %02X", src[i]);
    fprintf(stderr, "\n");
}

/* The forms whose lengths are counted (kernels.h: utf8_code_points,
 * utf16_utf8_length ...): every pair, both byte orders. */
static const int unicode_forms[] = {UTFKIT_UTF8, UTFKIT_UTF16LE, UTFKIT_UTF16BE, UTFKIT_UTF32LE,
                                    UTFKIT_UTF32BE};
#define UNICODE_FORMS 5

typedef struct answers {
    int valid;
    utfkit_result check, sanitized;
    /* utfkit_ascii_length, and utfkit_utf8_validate_lengths' answer with
     * its two lengths (0 when not valid: they are unset then) */
    size_t ascii_length;
    int valid_lengths;
    size_t lengths_code_points, lengths_utf16_units;
    /* the input read as each form: transcode to each other form, strict
     * and replace, and a digest of the bytes written */
    utfkit_result transcoded[UNICODE_FORMS][UNICODE_FORMS][2];
    uint64_t transcoded_digest[UNICODE_FORMS][UNICODE_FORMS][2];
    size_t count;
    /* the input read as each form: well_formed_length to each form (any
     * bytes: for ill-formed ones the number means nothing, but every kernel
     * must count alike), transcoded_length strict / replace, and count */
    size_t well_formed_length[UNICODE_FORMS][UNICODE_FORMS];
    utfkit_result transcoded_length[UNICODE_FORMS][UNICODE_FORMS][2];
    size_t count_as[UNICODE_FORMS];
    /* the input read as WTF-8 (the UTF-8 blocks with surrogates at their
     * edges): transcode to UTF-16 and UTF-32, strict / replace / ignore */
    utfkit_result wtf8_transcoded[UNICODE_FORMS - 1][3];
    uint64_t wtf8_digest[UNICODE_FORMS - 1][3];
    /* the input read as UTF-16 and UTF-32, either byte order, into WTF-8
     * (the UTF-8 blocks, unpaired surrogates at their edges), strict /
     * replace / ignore */
    utfkit_result wtf8_written[UNICODE_FORMS - 1][3];
    uint64_t wtf8_written_digest[UNICODE_FORMS - 1][3];
    /* the input read as CESU-8 and as MUTF-8 (the UTF-8 blocks and the
     * BMP lookups, with surrogates and C0 80 at their edges): validate,
     * check, count, and transcode to UTF-16 and UTF-32, strict / replace /
     * ignore */
    int bmp_valid[2];
    utfkit_result bmp_check[2];
    size_t bmp_count[2];
    utfkit_result bmp_transcoded[2][UNICODE_FORMS - 1][3];
    uint64_t bmp_digest[2][UNICODE_FORMS - 1][3];
    /* the input read as UTF-16 and UTF-32, either byte order, into CESU-8
     * and MUTF-8 (the UTF-8 blocks over the BMP units), strict / replace */
    utfkit_result bmp_written[UNICODE_FORMS - 1][2][2];
    uint64_t bmp_written_digest[UNICODE_FORMS - 1][2][2];
} answers;

/* CESU-8, MUTF-8. */
static const int bmp_forms[2] = {UTFKIT_CESU8, UTFKIT_MUTF8};

/* FNV-1a over the bytes: equal outputs, equal digests. */
static uint64_t digest(const uint8_t *bytes, size_t len)
{
    uint64_t hash = 0xCBF29CE484222325ull;
    for (size_t i = 0; i < len; i++)
        hash = (hash ^ bytes[i]) * 0x100000001B3ull;
    return hash;
}

static answers answer(const uint8_t *src, size_t len, uint8_t *scratch, size_t scratch_size,
                      uint8_t **sanitized_copy)
{
    answers a;
    a.valid = utfkit_utf8_validate(src, len);
    a.check = utfkit_utf8_check(src, len);
    a.count = utfkit_utf8_count(src, len);
    a.ascii_length = utfkit_ascii_length(src, len);
    a.lengths_code_points = a.lengths_utf16_units = 0;
    a.valid_lengths = utfkit_utf8_validate_lengths(src, len, &a.lengths_code_points, &a.lengths_utf16_units);
    a.sanitized = utfkit_utf8_sanitize(src, len, scratch, scratch_size);
    *sanitized_copy = malloc(a.sanitized.written + 1);
    memcpy(*sanitized_copy, scratch, a.sanitized.written);
    for (int f = 0; f < UNICODE_FORMS; f++)
        for (int t = 0; t < UNICODE_FORMS; t++)
            for (int e = 0; e < 2; e++) {
                a.transcoded[f][t][e] =
                    utfkit_transcode(src, len, unicode_forms[f], unicode_forms[t],
                                     e ? UTFKIT_REPLACE : UTFKIT_STRICT, scratch, scratch_size);
                /* (with UTFKIT_OUTPUT_TOO_SMALL, `written` may pass the end of scratch) */
                size_t written = a.transcoded[f][t][e].written;
                a.transcoded_digest[f][t][e] =
                    digest(scratch, written < scratch_size ? written : scratch_size);
            }
    for (int f = 0; f < UNICODE_FORMS; f++) {
        a.count_as[f] = utfkit_count(src, len, unicode_forms[f]);
        for (int t = 0; t < UNICODE_FORMS; t++) {
            a.well_formed_length[f][t] =
                utfkit_well_formed_length(src, len, unicode_forms[f], unicode_forms[t]);
            for (int e = 0; e < 2; e++)
                a.transcoded_length[f][t][e] = utfkit_transcoded_length(
                    src, len, unicode_forms[f], unicode_forms[t], e ? UTFKIT_REPLACE : UTFKIT_STRICT);
        }
    }
    for (int t = 1; t < UNICODE_FORMS; t++)
        for (int e = 0; e < 3; e++) {
            a.wtf8_transcoded[t - 1][e] =
                utfkit_transcode(src, len, UTFKIT_WTF8, unicode_forms[t], e, scratch, scratch_size);
            size_t written = a.wtf8_transcoded[t - 1][e].written;
            a.wtf8_digest[t - 1][e] = digest(scratch, written < scratch_size ? written : scratch_size);
            a.wtf8_written[t - 1][e] =
                utfkit_transcode(src, len, unicode_forms[t], UTFKIT_WTF8, e, scratch, scratch_size);
            written = a.wtf8_written[t - 1][e].written;
            a.wtf8_written_digest[t - 1][e] =
                digest(scratch, written < scratch_size ? written : scratch_size);
        }
    for (int m = 0; m < 2; m++) {
        a.bmp_valid[m] = utfkit_validate(src, len, bmp_forms[m]);
        a.bmp_check[m] = utfkit_check(src, len, bmp_forms[m]);
        a.bmp_count[m] = utfkit_count(src, len, bmp_forms[m]);
        for (int t = 1; t < UNICODE_FORMS; t++)
            for (int e = 0; e < 3; e++) {
                a.bmp_transcoded[m][t - 1][e] =
                    utfkit_transcode(src, len, bmp_forms[m], unicode_forms[t], e, scratch, scratch_size);
                size_t written = a.bmp_transcoded[m][t - 1][e].written;
                a.bmp_digest[m][t - 1][e] =
                    digest(scratch, written < scratch_size ? written : scratch_size);
            }
        for (int f = 1; f < UNICODE_FORMS; f++)
            for (int e = 0; e < 2; e++) {
                a.bmp_written[f - 1][m][e] = utfkit_transcode(src, len, unicode_forms[f], bmp_forms[m],
                                                              e ? UTFKIT_REPLACE : UTFKIT_STRICT,
                                                              scratch, scratch_size);
                size_t written = a.bmp_written[f - 1][m][e].written;
                a.bmp_written_digest[f - 1][m][e] =
                    digest(scratch, written < scratch_size ? written : scratch_size);
            }
    }
    return a;
}

/* ---- every position of the counting loops' steps ----
 *
 * The validating counts (utfkit_utf8_count, utfkit_transcoded_length from
 * UTF-8) test for errors once a block of vectors, skip runs of ASCII, and
 * on avx512 leave out the leads a text has not shown so far (running a
 * block again when it shows one): an error must be found wherever it
 * stands in a block.  Texts of one to three scripts, each with one damage
 * at every position of its first 1100 bytes in turn (the bytes before the
 * first 64-byte boundary and past two blocks), at several offsets from a
 * 64-byte boundary; every kernel against scalar. */

/* Damages written over the text at a position: bytes never in UTF-8, a
 * lone continuation byte, each rule of Table 3-7 for a second byte, and a
 * character cut short (ASCII where a continuation byte was). */
static const char *const position_damages[] = {
    "\xFF", "\x80", "\xE0\x9F\x80", "\xF4\x90\x80\x80", "A", "\xF0\x8F\x80\x80", /* (--quick: these) */
    "\xC0\x80", "\xC1\xBF", "\xED\xA0\x80", "\xF5\x80\x80\x80",
};
/* --quick: the first six (each kind of rule, and F0's second byte, which
 * the runs of F0 characters check on their own) */
#define QUICK_POSITION_DAMAGES 6
#define POSITION_DAMAGES (sizeof position_damages / sizeof position_damages[0])

/* In text_of_lengths' set: the 4-byte characters are emoji (lead F0,
 * U+1F300..U+1FAFF), 63 in 64 characters, the others of the lengths set. */
#define EMOJI_TEXT (1u << 5)

/* Characters of the given lengths (a bit set: 1 << length), with a run of
 * ASCII now and then when `ascii_runs`. */
static size_t text_of_lengths(uint8_t *out, size_t max, unsigned lengths, int ascii_runs)
{
    size_t n = 0;
    while (n + 4 <= max) {
        if (ascii_runs && below(64) == 0) {
            for (size_t k = below(300); k > 0 && n + 4 <= max; k--)
                out[n++] = (uint8_t)scalar_of_length(1);
            continue;
        }
        if (lengths & EMOJI_TEXT && below(64) != 0) {
            n += put_utf8(out + n, 0x1F300 + (uint32_t)below(0x1FB00 - 0x1F300));
            continue;
        }
        int length;
        do
            length = (int)below(4) + 1;
        while (!(lengths >> length & 1));
        n += put_utf8(out + n, scalar_of_length(length));
    }
    return n;
}

/* The validating counts of src[0..len) under every kernel against scalar's. */
static void counts_agree(const uint8_t *src, size_t len, const char *const *kernels, size_t kernel_count)
{
    utfkit_set_backend("scalar");
    size_t count = utfkit_utf8_count(src, len);
    utfkit_result to16 = utfkit_transcoded_length(src, len, UTFKIT_UTF8, UTFKIT_UTF16LE, UTFKIT_STRICT);
    utfkit_result to32 = utfkit_transcoded_length(src, len, UTFKIT_UTF8, UTFKIT_UTF32LE, UTFKIT_STRICT);
    for (size_t k = 1; k < kernel_count; k++) {
        utfkit_set_backend(kernels[k]);
        size_t got_count = utfkit_utf8_count(src, len);
        utfkit_result got16 = utfkit_transcoded_length(src, len, UTFKIT_UTF8, UTFKIT_UTF16LE, UTFKIT_STRICT);
        utfkit_result got32 = utfkit_transcoded_length(src, len, UTFKIT_UTF8, UTFKIT_UTF32LE, UTFKIT_STRICT);
        if (got_count != count)
            report(src, len, kernels[k], "utf8_count (every position)", (long long)count, (long long)got_count);
        if (got16.status != to16.status || got16.position != to16.position || got16.written != to16.written)
            report(src, len, kernels[k], "transcoded_length UTF-16 (every position)", (long long)to16.written,
                   (long long)got16.written);
        if (got32.status != to32.status || got32.position != to32.position || got32.written != to32.written)
            report(src, len, kernels[k], "transcoded_length UTF-32 (every position)", (long long)to32.written,
                   (long long)got32.written);
    }
}

static void every_position(const char *const *kernels, size_t kernel_count, int quick)
{
    /* the lengths, ASCII runs or not, and how many ASCII bytes come first */
    static const unsigned scripts[][3] = {
        {1u << 2, 0, 0}, {1u << 3, 0, 0}, {1u << 4, 0, 0}, {1u << 2 | 1u << 3, 1, 0}, {1u << 3 | 1u << 4, 0, 0},
        {1u << 1 | 1u << 4, 1, 0}, {1u << 2 | 1u << 3 | 1u << 4, 1, 0},
        /* emoji: runs of F0 characters (avx512 counts them apart), their
         * leads at each position mod 4 of a vector (the ASCII first, and
         * the offsets), left and re-entered by other characters */
        {1u << 4 | EMOJI_TEXT, 0, 0}, {1u << 4 | EMOJI_TEXT, 0, 1}, {1u << 4 | EMOJI_TEXT, 0, 2},
        {1u << 1 | 1u << 3 | EMOJI_TEXT, 1, 3}, {1u << 2 | 1u << 4 | EMOJI_TEXT, 0, 1},
    };
    /* --quick: two offsets (64 and 31 bytes before the first boundary),
     * the first 700 bytes (past the first block), six of the damages */
    static const size_t all_offsets[] = {0, 33, 1, 2, 3, 31, 61, 62, 63};
    size_t offsets = quick ? 2 : sizeof all_offsets / sizeof all_offsets[0];
    size_t last = quick ? 700 : 1100, damages = quick ? QUICK_POSITION_DAMAGES : POSITION_DAMAGES;
    uint8_t text[1300];
    unsigned long long inputs = 0;
    for (size_t t = 0; t < sizeof scripts / sizeof scripts[0]; t++) {
        size_t ascii_first = scripts[t][2];
        memset(text, 'a', ascii_first);
        size_t len = ascii_first +
                     text_of_lengths(text + ascii_first, last + 200 - ascii_first, scripts[t][0], (int)scripts[t][1]);
        for (size_t o = 0; o < offsets; o++) {
            size_t offset = all_offsets[o];
            uint8_t *block = NULL;
            if (posix_memalign((void **)&block, 64, offset + len) != 0)
                return;
            uint8_t *src = block + offset;
            for (size_t at = 0; at <= last && at <= len; at++)
                for (size_t d = 0; d < damages; d++) {
                    memcpy(src, text, len);
                    /* the undamaged text once, then each damage */
                    if (at < len) {
                        size_t length = strlen(position_damages[d]);
                        memcpy(src + at, position_damages[d], at + length <= len ? length : len - at);
                    } else if (d > 0) {
                        break;
                    }
                    inputs++;
                    counts_agree(src, len, kernels, kernel_count);
                }
            free(block);
        }
    }
    printf("%llu damaged texts at every position under %zu kernels\n", inputs, kernel_count);
}

/* ---- CESU-8 and MUTF-8: what the forms read apart from UTF-8, at every position ----
 *
 * The readers of CESU-8 and MUTF-8 hand the text to blocks that stop by
 * themselves before a byte F0..FF or (MUTF-8) 00 -- in the ASCII loop, in
 * each step, in the runs of mixed characters -- and read the form's own
 * sequence (a surrogate pair as two 3-byte sequences, UTR #26 section 2;
 * C0 80, JVM spec section 4.4.7) or error there, then go on.  Texts of
 * several scripts with one such sequence inserted at every position of
 * their first 260 bytes (every position of the first blocks and their
 * edges), into UTF-16 and UTF-32 of both byte orders, strict and replace;
 * every kernel against scalar. */
static const char *const form_stops[] = {
    "\xF0\x9F\x98\x80", "\xFF", "\xED\xA0\xBD\xED\xB8\x80", "\xED\xB0\x80", "\xC0\x80", "A\0",
};
/* (memcpy copies the 00 of the last: its length is given apart) */
static const size_t form_stop_lengths[] = {4, 1, 6, 3, 2, 2};
#define FORM_STOPS (sizeof form_stops / sizeof form_stops[0])

static void form_stops_agree(const uint8_t *src, size_t len, const char *const *kernels, size_t kernel_count,
                             uint8_t *dst, size_t cap)
{
    for (int m = 0; m < 2; m++)
        for (size_t t = 1; t < UNICODE_FORMS; t++)
            for (int e = 0; e < 2; e++) {
                int errors = e ? UTFKIT_REPLACE : UTFKIT_STRICT;
                utfkit_set_backend("scalar");
                utfkit_result want = utfkit_transcode(src, len, bmp_forms[m], unicode_forms[t], errors, dst, cap);
                uint64_t want_digest = digest(dst, want.written);
                for (size_t k = 1; k < kernel_count; k++) {
                    utfkit_set_backend(kernels[k]);
                    utfkit_result got = utfkit_transcode(src, len, bmp_forms[m], unicode_forms[t], errors, dst, cap);
                    if (got.status != want.status || got.position != want.position || got.written != want.written ||
                        digest(dst, got.written) != want_digest)
                        report(src, len, kernels[k], m ? "MUTF-8 -> UTF-16/32 (form stop at every position)"
                                                       : "CESU-8 -> UTF-16/32 (form stop at every position)",
                               (long long)want.written, (long long)got.written);
                }
            }
}

static void form_stops_at_every_position(const char *const *kernels, size_t kernel_count)
{
    /* ASCII alone (the ASCII loop), ASCII with runs of 2-byte characters,
     * 3-byte characters alone, all three mixed (the mixed runs), 2-byte
     * characters alone */
    static const unsigned scripts[][2] = {
        {1u << 1, 0}, {1u << 1 | 1u << 2, 1}, {1u << 3, 0}, {1u << 1 | 1u << 2 | 1u << 3, 1}, {1u << 2, 0},
    };
    const size_t last = 260;
    uint8_t text[400], with[420], dst[4 * 420];
    unsigned long long inputs = 0;
    for (size_t t = 0; t < sizeof scripts / sizeof scripts[0]; t++) {
        size_t len = text_of_lengths(text, 330, scripts[t][0], (int)scripts[t][1]);
        for (size_t at = 0; at <= last && at <= len; at++)
            for (size_t d = 0; d < FORM_STOPS; d++) {
                size_t length = form_stop_lengths[d];
                memcpy(with, text, at);
                memcpy(with + at, form_stops[d], length);
                memcpy(with + at + length, text + at, len - at);
                /* exactly the input on the heap: any over-read is out of bounds */
                uint8_t *src = malloc(len + length);
                memcpy(src, with, len + length);
                form_stops_agree(src, len + length, kernels, kernel_count, dst, sizeof dst);
                free(src);
                inputs++;
            }
    }
    printf("%llu CESU-8/MUTF-8 texts with the forms' own sequences at every position under %zu kernels\n",
           inputs, kernel_count);
}

/* ---- UTF-8 -> UTF-16 / UTF-32: damage at every position of the runs ----
 *
 * The UTF-8 readers of the sse4 and avx2 kernels take text of characters
 * of one to three bytes in runs of blocks at a fixed stride: a character
 * cut by a block's end is written with the next block, a lead byte's
 * fault shows in the block of the byte after it, and the run stops before
 * a block of ASCII, a byte F0..FF or an ill-formed block, leaving a cut
 * character to what follows.  Texts of such characters (Cyrillic words
 * between spaces, Cyrillic alone, Cyrillic, Devanagari and Hangul mixed
 * with ASCII, Latin letters in ASCII, Cyrillic with an emoji now and then)
 * with one damage or well-formed edge case at every position of their
 * first 230 bytes (past seven blocks of 32), converted into UTF-16 and
 * UTF-32 of both byte orders, strict and replace, into an output at two
 * offsets: status, position and bytes of every kernel against scalar's.
 * The input is exactly len bytes on the heap: any over-read is out of
 * bounds under the sanitizers. */
static const char *const run_damages[] = {
    "\xFF", "A", "\xE0\x9F\x80", "\xED\xA0\x80", "\xC0\x80", "\xF0\x9F\x98\x80", /* (--quick: these) */
    "\x80", "\xC1\xBF", "\xE0\xA0\x80", "\xED\x9F\xBF", "\xF4\x90\x80\x80", "\xC2",
};
#define QUICK_RUN_DAMAGES 6
#define RUN_DAMAGES (sizeof run_damages / sizeof run_damages[0])

/* A character of run text `kind` (above), at random. */
static uint32_t run_text_character(int kind)
{
    switch (kind) {
    case 0: return below(7) == 0 ? ' ' : 0x410 + (uint32_t)below(0x40);
    case 1: return 0x400 + (uint32_t)below(0x100);
    case 2: {
        static const uint32_t first[] = {' ', 0x430, 0x900, 0xAC00, 'a'};
        size_t script = below(5);
        return first[script] + (uint32_t)below(script == 0 ? 1 : 0x60);
    }
    case 3: return below(16) == 0 ? 0xC0 + (uint32_t)below(0x40) : 'a' + (uint32_t)below(26);
    default: return below(40) == 0 ? 0x1F600 + (uint32_t)below(0x40) : 0x430 + (uint32_t)below(0x20);
    }
}

static void utf8_runs_damaged_at_every_position(const char *const *kernels, size_t kernel_count, int quick)
{
    static const int to_forms[] = {UTFKIT_UTF16LE, UTFKIT_UTF16BE, UTFKIT_UTF32LE, UTFKIT_UTF32BE};
    enum { TEXT = 330, LAST = 230, CAP = 4 * TEXT + 64 };
    uint8_t text[TEXT + 4], *dst = malloc(CAP + 64), *expected = malloc(CAP);
    if (dst == NULL || expected == NULL)
        return;
    size_t damages = quick ? QUICK_RUN_DAMAGES : RUN_DAMAGES;
    unsigned long long inputs = 0;
    for (int kind = 0; kind < 5; kind++) {
        size_t len = 0;
        while (len + 4 <= TEXT)
            len += put_utf8(text + len, run_text_character(kind));
        for (size_t at = 0; at <= LAST; at++)
            for (size_t d = 0; d < damages; d++) {
                uint8_t *src = malloc(len);
                memcpy(src, text, len);
                size_t length = strlen(run_damages[d]);
                memcpy(src + at, run_damages[d], at + length <= len ? length : len - at);
                for (size_t f = 0; f < sizeof to_forms / sizeof to_forms[0]; f++)
                    for (int e = 0; e < 2; e++)
                        for (size_t offset = 0; offset < 8; offset += quick ? 8 : 4) {
                            int errors = e ? UTFKIT_REPLACE : UTFKIT_STRICT;
                            uint8_t *out = dst + offset;
                            utfkit_set_backend("scalar");
                            utfkit_result want = utfkit_transcode(src, len, UTFKIT_UTF8, to_forms[f], errors, out, CAP);
                            memcpy(expected, out, want.written);
                            inputs++;
                            for (size_t k = 1; k < kernel_count; k++) {
                                utfkit_set_backend(kernels[k]);
                                utfkit_result got = utfkit_transcode(src, len, UTFKIT_UTF8, to_forms[f], errors, out, CAP);
                                char what[160];
                                snprintf(what, sizeof what, "UTF-8 -> %d (%s), run text %d, damage %zu at %zu: %s",
                                         to_forms[f], e ? "replace" : "strict", kind, d, at,
                                         got.status != want.status || got.position != want.position
                                             ? "status/position (position shown)" : "written/bytes");
                                if (got.status != want.status || got.position != want.position)
                                    report(src, len, kernels[k], what, (long long)want.position,
                                           (long long)got.position);
                                else if (got.written != want.written || memcmp(expected, out, want.written) != 0)
                                    report(src, len, kernels[k], what, (long long)want.written,
                                           (long long)got.written);
                            }
                        }
                free(src);
            }
    }
    free(dst);
    free(expected);
    printf("%llu UTF-8 conversions of run texts damaged at every position under %zu kernels\n", inputs,
           kernel_count);
}

/* ---- leads with a range of their own at block edges ----
 *
 * On text whose first bytes have no lead C0, C1, E0, ED or F0..FF (CJK),
 * the avx512 census takes such a lead for a reason to run its block again
 * checking second bytes, and keeps checking them for a few blocks: the
 * second byte after a block's last byte is then the next block's.  Long CJK
 * text, with one such character well-formed somewhere past the first
 * bytes, and an ill-formed E0 or ED sequence with its lead at the end of
 * each vector in turn (and a well-formed one, which must not count as an
 * error). */
static void ranged_leads_at_block_edges(const char *const *kernels, size_t kernel_count)
{
    static const char *const edges[] = {"\xE0\x9F\x80", "\xED\xA0\x80", "\xE0\xA0\x80"};
    enum { LENGTH = 6144 };
    uint8_t *block = NULL;
    if (posix_memalign((void **)&block, 64, LENGTH + 64) != 0)
        return;
    uint8_t text[LENGTH];
    unsigned long long inputs = 0;
    for (size_t ascii_first = 0; ascii_first < 3; ascii_first++) {
        memset(text, 'a', ascii_first);
        size_t len = ascii_first;
        while (len + 3 <= LENGTH)
            len += put_utf8(text + len, 0x4E00 + (uint32_t)below(0x5000)); /* E4..E9 */
        for (size_t well_formed_at = 600; well_formed_at < len; well_formed_at += 1021) {
            size_t ranged = well_formed_at - (well_formed_at - ascii_first) % 3;
            for (size_t offset = 0; offset < 64; offset += 31) {
                uint8_t *src = block + offset;
                for (size_t at = ranged + 3; at + 3 <= len; at += 3) {
                    if ((uintptr_t)(src + at + 1) % 64 != 0)
                        continue; /* the lead at a vector's last byte */
                    for (size_t e = 0; e < sizeof edges / sizeof edges[0]; e++) {
                        memcpy(src, text, len);
                        memcpy(src + ranged, "\xED\x9F\xBF", 3); /* U+D7FF */
                        memcpy(src + at, edges[e], 3);
                        inputs++;
                        counts_agree(src, len, kernels, kernel_count);
                    }
                }
            }
        }
    }
    free(block);
    printf("%llu CJK texts with E0/ED at vector ends under %zu kernels\n", inputs, kernel_count);
}

/* ---- second bytes after E0 and ED in Indic, Thai and Hangul text ----
 *
 * Text whose first bytes have a lead E0 or ED (Devanagari, Thai: E0;
 * Hangul: EA..ED) has the second byte of such leads checked at the lead on
 * avx512: steps of 128 bytes, tested for errors once a block of 512, with
 * the lead's second byte read one byte on (in the next step or block for a
 * lead at a step's last byte), and the lead before the first step checked
 * on its own.  A block with a 4-byte character is left to the general
 * steps, and the eight after it too, so the run is entered again
 * mid-text.  Unicode 3.9 Table 3-7: E0 takes A0..BF, ED 80..9F; an
 * ill-formed pair (E0 80..9F, ED A0..BF) and a well-formed one at the ends
 * of that range, with the lead at every byte of the first blocks (every
 * position in a step, at each step's and block's end, before and after the
 * first 64-byte boundary), and around where the run is entered again after
 * a 4-byte character. */
/* Characters from code points script[0] .. script[0] + script[1] - 1
 * written from out[n] while they fit before out[end], with a space now and
 * then, and with `four_byte`, U+1F600 as the first character from byte
 * 100 on; returns where they end. */
static size_t script_text(uint8_t *out, size_t n, size_t end, const uint32_t script[2], int four_byte)
{
    while (n + 4 <= end) {
        if (four_byte && n >= 100) {
            n += put_utf8(out + n, 0x1F600);
            four_byte = 0;
        } else if (below(12) == 0) {
            out[n++] = ' ';
        } else {
            n += put_utf8(out + n, script[0] + (uint32_t)below(script[1]));
        }
    }
    return n;
}

static void ranged_text_second_bytes(const char *const *kernels, size_t kernel_count, int quick)
{
    /* the first code point and how many: Devanagari (E0 A4..A5), Thai (E0
     * B8..B9), Hangul syllables (EA B0 .. ED 9E) */
    static const uint32_t scripts[][2] = {{0x0900, 0x80}, {0x0E00, 0x80}, {0xAC00, 0xD7A4 - 0xAC00}};
    /* (--quick: the first three) */
    static const char *const pairs[] = {"\xE0\x9F\xBF", "\xED\xA0\x80", "\xED\x9F\xBF",
                                        "\xE0\xA0\x80", "\xE0\x80\x80", "\xED\xBF\xBF"};
    enum { LENGTH = 5600 };
    /* where a run entered again after the 4-byte character at byte 100
     * starts: 1 + 8 blocks of 512 past the first 64-byte boundary */
    const size_t again = 9 * 512;
    uint8_t *block = NULL;
    if (posix_memalign((void **)&block, 64, LENGTH + 64) != 0)
        return;
    uint8_t text[LENGTH];
    unsigned long long inputs = 0;
    for (size_t s = 0; s < sizeof scripts / sizeof scripts[0]; s++)
        for (int four_byte = 0; four_byte < 2; four_byte++)
            for (size_t offset = 0; offset < 64; offset += quick ? 61 : 29) {
                uint8_t *src = block + offset;
                size_t head = 64 - offset; /* the first 64-byte boundary */
                size_t first = 0, last = 3 * 512 + head;
                if (four_byte) {
                    first = again + head - 140;
                    last = again + head + 140;
                }
                for (size_t at = first; at < last; at++)
                    for (size_t p = 0; p < (quick ? 3 : sizeof pairs / sizeof pairs[0]); p++) {
                        /* characters of the script (and the 4-byte one),
                         * with a space now and then, up to `at`, spaces to
                         * reach it, the pair, and characters again */
                        size_t len = script_text(text, 0, at, scripts[s], four_byte);
                        while (len < at)
                            text[len++] = ' ';
                        memcpy(text + len, pairs[p], 3);
                        len = script_text(text, len + 3, LENGTH, scripts[s], 0);
                        memcpy(src, text, len);
                        inputs++;
                        counts_agree(src, len, kernels, kernel_count);
                    }
            }
    free(block);
    printf("%llu Indic/Thai/Hangul texts with E0/ED pairs at every step position under %zu kernels\n", inputs,
           kernel_count);
}

/* ---- the output at every offset of a cache line ----
 *
 * The blocks whose output is bound by its stores (ASCII runs from UTF-8
 * and Latin-1, UTF-16 -> UTF-32, UTF-32 -> UTF-16) first write a head
 * that brings the output to a line (or 32-byte) boundary and then store
 * whole aligned vectors.  Long texts (past the avx512 kernel's long ASCII
 * run, 16 blocks) converted into a buffer at every offset 0..63 from a
 * 64-byte boundary, odd ones included (then no unit is aligned), each with
 * no error or with one ill-formed unit just before, at and after where
 * the head ends (and where the first aligned vector ends): the status,
 * position and bytes of every kernel must be scalar's, strict and with
 * replacement (which re-enters the blocks at whatever offset the U+FFFD
 * leaves), and no kernel may write before the output or past `cap`: the
 * bytes around it are guards, checked after every call.  Without an
 * error, `cap` is also one unit short of the output, where every kernel
 * must stop alike. */

#define LINE_TEXT 2400 /* characters: past 16 blocks of 64 bytes as UTF-8 */
#define GUARD 0xA5

typedef struct line_case {
    int from, to;
    int text; /* 0 ASCII, 1 Cyrillic and ASCII (the BMP), 2 Latin-1 letters */
} line_case;

static size_t form_unit(int form)
{
    return form == UTFKIT_UTF16LE || form == UTFKIT_UTF16BE ? 2
         : form == UTFKIT_UTF32LE || form == UTFKIT_UTF32BE ? 4 : 1;
}

/* Text `text` (line_case) as UTF-32LE. */
static size_t line_text(uint8_t *out, int text)
{
    for (size_t k = 0; k < LINE_TEXT; k++) {
        uint32_t cp = text == 0   ? 'a' + (uint32_t)(k % 26)
                    : text == 1 ? (k % 7 == 6 ? ' ' : 0x430 + (uint32_t)(k % 32))
                                : 0xC0 + (uint32_t)(k % 64);
        memcpy(out + 4 * k, &cp, 4);
    }
    return 4 * LINE_TEXT;
}

/* Makes the unit at `at` of src ill-formed in its form: FF in UTF-8, a
 * lone surrogate (D800 or DC00) in UTF-16, D800 or 110000 in UTF-32. */
static void damage_unit(uint8_t *src, int form, size_t at, int kind)
{
    size_t unit = form_unit(form);
    uint32_t value = form_unit(form) == 1 ? 0xFF : unit == 2 ? (kind ? 0xDC00u : 0xD800u)
                                                              : (kind ? 0x110000u : 0xD800u);
    int big_endian = form == UTFKIT_UTF16BE || form == UTFKIT_UTF32BE;
    for (size_t b = 0; b < unit; b++)
        src[at * unit + b] = (uint8_t)(value >> (8 * (big_endian ? unit - 1 - b : b)));
}

/* One conversion into dst = line + offset under every kernel, against
 * scalar's; `line` holds `room` bytes from dst and GUARD bytes around. */
static void line_offsets_agree(const uint8_t *src, size_t len, const line_case *c, int errors,
                               size_t cap, uint8_t *line, size_t offset, size_t room,
                               uint8_t *expected, const char *const *kernels, size_t kernel_count)
{
    uint8_t *dst = line + offset;
    utfkit_result want = {0};
    for (size_t k = 0; k < kernel_count; k++) {
        utfkit_set_backend(kernels[k]);
        memset(line, GUARD, offset + room + 64);
        utfkit_result got = utfkit_transcode(src, len, c->from, c->to, errors, dst, cap);
        int guarded = 1;
        for (size_t b = 0; b < offset; b++)
            guarded &= line[b] == GUARD;
        for (size_t b = cap; b < room + 64; b++)
            guarded &= dst[b] == GUARD;
        char what[160];
        snprintf(what, sizeof what, "transcode %d -> %d (%s) into a line at +%zu, cap %zu: %%s",
                 c->from, c->to, errors ? "replace" : "strict", offset, cap);
        char detail[200];
        if (!guarded) {
            snprintf(detail, sizeof detail, what, "wrote before dst or past cap");
            report(src, len, kernels[k], detail, 0, 1);
        }
        size_t written = got.written < cap ? got.written : cap;
        if (k == 0) {
            want = got;
            memcpy(expected, dst, written);
            continue;
        }
        if (got.status != want.status || got.position != want.position || got.written != want.written) {
            snprintf(detail, sizeof detail, what, "status/position/written (written shown)");
            report(src, len, kernels[k], detail, (long long)want.written, (long long)got.written);
        } else if (memcmp(expected, dst, written) != 0) {
            snprintf(detail, sizeof detail, what, "bytes differ");
            report(src, len, kernels[k], detail, 0, 1);
        }
    }
}

static void output_at_every_line_offset(const char *const *kernels, size_t kernel_count)
{
    static const line_case cases[] = {
        {UTFKIT_UTF8, UTFKIT_UTF16LE, 0},    {UTFKIT_UTF8, UTFKIT_UTF16BE, 0},
        {UTFKIT_UTF8, UTFKIT_UTF32LE, 0},    {UTFKIT_UTF8, UTFKIT_UTF32BE, 0},
        {UTFKIT_UTF8, UTFKIT_UTF16LE, 1},    {UTFKIT_UTF16LE, UTFKIT_UTF32LE, 1},
        {UTFKIT_UTF16BE, UTFKIT_UTF32LE, 1}, {UTFKIT_UTF16LE, UTFKIT_UTF32BE, 0},
        {UTFKIT_UTF32LE, UTFKIT_UTF16LE, 1}, {UTFKIT_UTF32BE, UTFKIT_UTF16BE, 0},
        {UTFKIT_LATIN1, UTFKIT_UTF16LE, 2},  {UTFKIT_LATIN1, UTFKIT_UTF32BE, 0},
    };
    enum { SOURCE_ROOM = 4 * LINE_TEXT, ROOM = 4 * LINE_TEXT + 64 };
    uint8_t *utf32 = malloc(SOURCE_ROOM), *source = malloc(SOURCE_ROOM), *expected = malloc(ROOM);
    uint8_t *line = NULL;
    if (utf32 == NULL || source == NULL || expected == NULL ||
        posix_memalign((void **)&line, 64, 64 + ROOM + 64) != 0)
        return;
    unsigned long long inputs = 0;
    for (size_t n = 0; n < sizeof cases / sizeof cases[0]; n++) {
        const line_case *c = &cases[n];
        size_t in_unit = form_unit(c->from), out_unit = form_unit(c->to);
        utfkit_set_backend("scalar");
        size_t len = utfkit_transcode(utf32, line_text(utf32, c->text), UTFKIT_UTF32LE, c->from,
                                      UTFKIT_STRICT, source, SOURCE_ROOM).written;
        size_t characters = len / in_unit;
        uint8_t *src = malloc(len); /* exactly len bytes: any over-read is out of bounds */
        for (size_t offset = 0; offset < 64; offset++) {
            /* where the 64-byte and 32-byte heads end, in units of the
             * output, and 64 units after the first (avx512 writes one
             * block before its ASCII run's head) */
            size_t head = (64 - offset) % 64 / out_unit, head_32 = (32 - offset % 32) % 32 / out_unit;
            size_t at[] = {head, head + 1, head_32, head_32 + 1, head + 64, head + 65, 0, 1, 1200};
            memcpy(src, source, len);
            utfkit_set_backend("scalar");
            size_t whole = utfkit_transcode(src, len, c->from, c->to, UTFKIT_STRICT, line, ROOM).written;
            line_offsets_agree(src, len, c, UTFKIT_STRICT, whole, line, offset, ROOM, expected, kernels,
                               kernel_count);
            line_offsets_agree(src, len, c, UTFKIT_STRICT, whole - out_unit, line, offset, ROOM, expected,
                               kernels, kernel_count);
            inputs += 2;
            for (size_t a = 0; c->from != UTFKIT_LATIN1 && a < sizeof at / sizeof at[0]; a++)
                for (size_t before = 0; before < 2; before++) {
                    if (at[a] < before || at[a] - before >= characters)
                        continue;
                    memcpy(src, source, len);
                    damage_unit(src, c->from, at[a] - before, (int)(a & 1));
                    for (int errors = UTFKIT_STRICT; errors <= UTFKIT_REPLACE; errors++)
                        line_offsets_agree(src, len, c, errors, ROOM, line, offset, ROOM, expected, kernels,
                                           kernel_count);
                    inputs += 2;
                }
        }
        free(src);
    }
    free(line);
    free(utf32);
    free(source);
    free(expected);
    printf("%llu conversions into every offset of a line under %zu kernels\n", inputs, kernel_count);
}

/* ---- UTF-16 surrogates at every position of the validation's blocks ----
 *
 * The vector kernels validate UTF-16 (D91) a block of up to 512 bytes at a
 * time: a filter for units at or above D800 first, the exact surrogate test
 * only when it fails, and then, for 16 blocks, the exact test alone; pairs
 * are checked only in blocks with a surrogate, a lead in a block's last
 * unit carried into the next.  Long texts of three kinds -- every unit
 * below D800 (the filter holds throughout); one FF0C early on (the exact
 * test alone for 16 blocks, then the filter again); well-formed pairs now
 * and then (pairs across every block edge) -- each with a lone lead, a
 * lone trail, a trail and a lead swapped, or a lone lead and a lone trail
 * a block later, or a well-formed pair, at every unit position in
 * turn (--quick: the first 700 units and the last 1000, which take in the
 * head, the first blocks, the filter's return and the units after the last
 * block), with input and output at offsets from a 64-byte boundary that
 * take each of the copy's alignments (odd ones too); in both byte orders.  Every kernel against scalar: utfkit_validate, transcode to the
 * same form strict (status, position, length) and with replacement (the
 * copy fused with the validation: length and bytes). */
static void put_unit(uint8_t *out, uint16_t unit, int big_endian)
{
    out[big_endian ? 1 : 0] = (uint8_t)unit;
    out[big_endian ? 0 : 1] = (uint8_t)(unit >> 8);
}

static void utf16_agree(const uint8_t *src, size_t len, int form, uint8_t *dst, size_t cap,
                        const char *const *kernels, size_t kernel_count)
{
    utfkit_set_backend("scalar");
    int valid = utfkit_validate(src, len, form);
    utfkit_result strict = utfkit_transcode(src, len, form, form, UTFKIT_STRICT, dst, cap);
    utfkit_result replaced = utfkit_transcode(src, len, form, form, UTFKIT_REPLACE, dst, cap);
    uint64_t replaced_digest = digest(dst, replaced.written <= cap ? replaced.written : cap);
    for (size_t k = 1; k < kernel_count; k++) {
        utfkit_set_backend(kernels[k]);
        int got_valid = utfkit_validate(src, len, form);
        utfkit_result got_strict = utfkit_transcode(src, len, form, form, UTFKIT_STRICT, dst, cap);
        utfkit_result got_replaced = utfkit_transcode(src, len, form, form, UTFKIT_REPLACE, dst, cap);
        if (got_valid != valid)
            report(src, len, kernels[k], "UTF-16 validate (every position)", valid, got_valid);
        if (got_strict.status != strict.status || got_strict.position != strict.position ||
            got_strict.written != strict.written)
            report(src, len, kernels[k], "UTF-16 -> same form, strict (every position): position",
                   (long long)strict.position, (long long)got_strict.position);
        if (got_replaced.written != replaced.written ||
            digest(dst, got_replaced.written <= cap ? got_replaced.written : cap) != replaced_digest)
            report(src, len, kernels[k], "UTF-16 -> same form, replace (every position): bytes",
                   (long long)replaced.written, (long long)got_replaced.written);
    }
}

static void utf16_surrogates_at_every_position(const char *const *kernels, size_t kernel_count,
                                               int quick)
{
    /* 20 blocks of 512 bytes and 100 units more: past the 16 blocks of
     * exact tests after the FF0C */
    enum { UNITS = 20 * 256 + 100, FF0C_AT = 300 };
    /* a unit, and another so many units on (0: none) */
    static const struct {
        uint16_t unit, later;
        size_t distance;
    } damages[] = {{0xD800, 0, 0}, {0xDC00, 0, 0}, {0xDFFF, 0xDBFF, 1},
                   /* a lone lead, and a lone trail a block of avx2 / avx512
                    * later: no lead may be carried over a block without
                    * surrogates */
                   {0xDBFF, 0xDC00, 129}, {0xDBFF, 0xDC00, 257},
                   /* a well-formed pair: across every edge, the end of
                    * the head that aligns the loads or the copy's stores
                    * too (a lead there is carried into the first block) */
                   {0xD800, 0xDC00, 1}};
    /* src and dst offsets from a 64-byte boundary: the copy's head aligns
     * its stores (dst 16 and 50 ahead of src; 2, behind it; src odd),
     * both at once (src and dst at the same offset), its loads (dst odd,
     * src even) or neither (both odd); validation alone aligns its loads
     * (src even) or none (src odd) */
    static const struct {
        size_t src, dst;
    } offsets[] = {{0, 16}, {34, 50}, {34, 2}, {34, 34}, {1, 16}, {34, 17}, {1, 17}};
    uint16_t text[UNITS];
    uint8_t *block = NULL, *dst = NULL;
    size_t cap = 2 * UNITS + 64;
    if (posix_memalign((void **)&block, 64, 2 * UNITS + 64) != 0 ||
        posix_memalign((void **)&dst, 64, cap + 64) != 0)
        return;
    unsigned long long inputs = 0;
    for (int kind = 0; kind < 3; kind++) {
        for (size_t u = 0; u < UNITS; u++)
            text[u] = below(5) == 0 ? (uint16_t)(0x20 + below(0x5F)) : (uint16_t)(0x4E00 + below(0x5000));
        if (kind == 1)
            text[FF0C_AT] = 0xFF0C; /* FULLWIDTH COMMA */
        if (kind == 2)
            for (size_t u = below(40); u + 1 < UNITS; u += 1 + below(80)) {
                text[u] = (uint16_t)(0xD800 + below(0x400));
                text[++u] = (uint16_t)(0xDC00 + below(0x400));
            }
        for (size_t o = 0; o < sizeof offsets / sizeof offsets[0]; o++) {
            uint8_t *src = block + offsets[o].src;
            for (int big_endian = 0; big_endian < 2; big_endian++) {
                int form = big_endian ? UTFKIT_UTF16BE : UTFKIT_UTF16LE;
                for (size_t at = 0; at < UNITS; at++) {
                    /* every unit of the first three blocks (every stride
                     * position, both kernels' blocks), of the blocks where
                     * the exact window after the FF0C ends and the filter
                     * takes over again, and of the tail; --quick, fewer */
                    if (quick ? at >= 700 && at + 1000 < UNITS
                              : at >= 3 * 256 + 100 && at + 1124 < UNITS)
                        continue;
                    for (size_t d = 0; d < sizeof damages / sizeof damages[0]; d++) {
                        for (size_t u = 0; u < UNITS; u++)
                            put_unit(src + 2 * u, text[u], big_endian);
                        put_unit(src + 2 * at, damages[d].unit, big_endian);
                        if (damages[d].later != 0 && at + damages[d].distance < UNITS)
                            put_unit(src + 2 * (at + damages[d].distance), damages[d].later, big_endian);
                        inputs++;
                        utf16_agree(src, 2 * UNITS, form, dst + offsets[o].dst, cap, kernels, kernel_count);
                    }
                }
            }
        }
    }
    free(block);
    free(dst);
    printf("%llu UTF-16 texts with a misplaced surrogate at every position under %zu kernels\n", inputs,
           kernel_count);
}

/* ---- UTF-32 units that do not narrow at every position of the blocks ----
 *
 * The vector kernels narrow UTF-32 of the BMP to UTF-16 several vectors at
 * a time (avx2: 32 units, then 16, under one test for all of them), then
 * eight units at a time, and pairs in steps of their own.  A text of BMP
 * units (Cyrillic, CJK, and E000..FFFF) with one unit at every position of
 * the first 200 (every step of the first blocks, and the tail) that is
 * not a scalar value (D90: surrogates D800..DFFF, 110000 and above, units
 * whose low half is a BMP unit but whose high half is not zero), or that is
 * supplementary (a pair: Table 3-5), or at the edges of the BMP's ranges;
 * both byte orders, strict and with replacement, the output at a 32-byte
 * boundary, 2 bytes past one (the avx2 kernel's head) and at an odd address:
 * status, position, length and bytes of every kernel against scalar's. */
static void utf32_units_at_every_position(const char *const *kernels, size_t kernel_count)
{
    enum { UNITS = 230, POSITIONS = 200 };
    static const uint32_t units[] = {0xD800,     0xDBFF,     0xDC00,     0xDFFF,     0x110000,
                                     0x10D800,   0x1DFFF,    0x80000041, 0xFFFF0430, 0x7FFF0000,
                                     0x10000,    0x10FFFF,   0xD7FF,     0xE000,     0xFFFF};
    static const size_t offsets[] = {0, 2, 1};
    uint32_t text[UNITS];
    uint8_t *src = malloc(4 * UNITS), *dst = NULL, *expected = malloc(4 * UNITS);
    size_t cap = 4 * UNITS;
    if (src == NULL || expected == NULL || posix_memalign((void **)&dst, 64, cap + 64) != 0)
        return;
    for (size_t u = 0; u < UNITS; u++)
        text[u] = u % 5 == 4 ? 0xE000 + (uint32_t)below(0x2000)
                : u % 2 ? 0x4E00 + (uint32_t)below(0x5000) : 0x410 + (uint32_t)below(0x40);
    unsigned long long inputs = 0;
    for (int big_endian = 0; big_endian < 2; big_endian++) {
        int from = big_endian ? UTFKIT_UTF32BE : UTFKIT_UTF32LE, to = big_endian ? UTFKIT_UTF16BE : UTFKIT_UTF16LE;
        for (size_t at = 0; at < POSITIONS; at++)
            for (size_t d = 0; d < sizeof units / sizeof units[0]; d++) {
                for (size_t u = 0; u < UNITS; u++) {
                    uint32_t unit = u == at ? units[d] : text[u];
                    for (size_t b = 0; b < 4; b++)
                        src[4 * u + b] = (uint8_t)(unit >> (8 * (big_endian ? 3 - b : b)));
                }
                for (size_t o = 0; o < sizeof offsets / sizeof offsets[0]; o++)
                    for (int errors = UTFKIT_STRICT; errors <= UTFKIT_REPLACE; errors++) {
                        utfkit_set_backend("scalar");
                        utfkit_result want = utfkit_transcode(src, 4 * UNITS, from, to, errors, dst + offsets[o], cap);
                        memcpy(expected, dst + offsets[o], want.written);
                        inputs++;
                        for (size_t k = 1; k < kernel_count; k++) {
                            utfkit_set_backend(kernels[k]);
                            memset(dst, 0, cap + 64);
                            utfkit_result got = utfkit_transcode(src, 4 * UNITS, from, to, errors, dst + offsets[o], cap);
                            if (got.status != want.status || got.position != want.position ||
                                got.written != want.written)
                                report(src, 4 * UNITS, kernels[k], "UTF-32 -> UTF-16 (every position): position",
                                       (long long)want.position, (long long)got.position);
                            else if (memcmp(expected, dst + offsets[o], want.written) != 0)
                                report(src, 4 * UNITS, kernels[k], "UTF-32 -> UTF-16 (every position): bytes", 0, 1);
                        }
                    }
            }
    }
    free(src);
    free(dst);
    free(expected);
    printf("%llu UTF-32 -> UTF-16 conversions with a unit that does not narrow at every position under %zu kernels\n",
           inputs, kernel_count);
}

/* ---- UTF-16 -> UTF-32 at every alignment of input and output ----
 *
 * The avx512 kernel converts runs of the BMP from aligned 64-byte windows
 * of the input into aligned lines of the output, picking each output
 * vector's units from two windows at a shift set by where the input stands
 * in its window when the output reaches a line (the output runs at twice
 * the input's pace); a window is tested whole for surrogates before any of
 * it is used.  A text of BMP units (Cyrillic, CJK, E000..FFFF, and D7FF,
 * E000, FFFF at the edges of the surrogates) with a lone lead, a lone trail
 * or a surrogate pair (Table 3-5) at every position of the first 200 units
 * (the head, the first windows, the loop's return after a pair), and
 * without one, cut at lengths that end a window early or late; the input
 * at a 64-byte boundary (at the start of its allocation: a read before it
 * is out of bounds as one past its end is), 16 and 40 bytes past one, and
 * at an odd address; the output at every 4-byte offset of a line (every
 * shift), 2 past one and odd; every pair of byte orders, strict and with
 * replacement: status, position, length and bytes of every kernel against
 * scalar's, and nothing written past what scalar writes. */
static void utf16_to_utf32_at_every_alignment(const char *const *kernels, size_t kernel_count)
{
    enum { UNITS = 700, POSITIONS = 200 };
    static const size_t src_offsets[] = {0, 16, 40, 1};
    static const size_t dst_offsets[] = {0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60, 2, 1};
    static const size_t trims[] = {0, 1, 17, 31, 32, 33};
    static const struct {
        uint16_t unit, next;
    } damages[] = {{0, 0}, {0xD800, 0}, {0xDFFF, 0}, {0xD83D, 0xDE00}};
    uint16_t text[UNITS];
    for (size_t u = 0; u < UNITS; u++)
        text[u] = u % 37 == 36 ? (uint16_t)(u % 3 == 0 ? 0xD7FF : u % 3 == 1 ? 0xE000 : 0xFFFF)
                : u % 5 == 4 ? (uint16_t)(0xE000 + below(0x2000))
                : u % 2      ? (uint16_t)(0x4E00 + below(0x5000))
                             : (uint16_t)(0x410 + below(0x40));
    size_t room = 4 * UNITS;
    uint8_t *dst = NULL, *expected = malloc(room);
    if (expected == NULL || posix_memalign((void **)&dst, 64, 64 + room + 64) != 0)
        return;
    unsigned long long inputs = 0;
    int failures_before = failures;
    for (size_t s = 0; s < sizeof src_offsets / sizeof src_offsets[0]; s++) {
        /* exactly up to the text's end: any over-read is out of bounds */
        uint8_t *block = NULL;
        if (posix_memalign((void **)&block, 64, src_offsets[s] + 2 * UNITS) != 0)
            break;
        uint8_t *src = block + src_offsets[s];
        for (int orders = 0; orders < 4; orders++) {
            int from = orders & 1 ? UTFKIT_UTF16BE : UTFKIT_UTF16LE;
            int to = orders & 2 ? UTFKIT_UTF32BE : UTFKIT_UTF32LE;
            for (size_t d = 0; d < sizeof damages / sizeof damages[0]; d++)
                for (size_t at = 0; at < (d == 0 ? sizeof trims / sizeof trims[0] : POSITIONS); at++) {
                    size_t len = 2 * (UNITS - (d == 0 ? trims[at] : 0));
                    for (size_t u = 0; u < len / 2; u++) {
                        uint16_t unit = d != 0 && u == at                             ? damages[d].unit
                                      : d != 0 && u == at + 1 && damages[d].next != 0 ? damages[d].next
                                                                                      : text[u];
                        put_unit(src + 2 * u, unit, orders & 1);
                    }
                    for (size_t o = 0; o < sizeof dst_offsets / sizeof dst_offsets[0] && failures - failures_before < 10; o++)
                        for (int errors = UTFKIT_STRICT; errors <= UTFKIT_REPLACE; errors++) {
                            uint8_t *out = dst + 64 + dst_offsets[o];
                            utfkit_set_backend("scalar");
                            size_t exact = utfkit_transcode(src, len, from, to, errors, out, room).written;
                            /* room to spare, and just the room scalar's answer needs */
                            for (size_t c = 0; c < 2; c++) {
                                size_t cap = c == 0 ? room : exact;
                                utfkit_set_backend("scalar");
                                utfkit_result want = utfkit_transcode(src, len, from, to, errors, out, cap);
                                memcpy(expected, out, want.written);
                                inputs++;
                                for (size_t k = 1; k < kernel_count; k++) {
                                    utfkit_set_backend(kernels[k]);
                                    memset(dst, GUARD, 64 + room + 64);
                                    utfkit_result got = utfkit_transcode(src, len, from, to, errors, out, cap);
                                    int guarded = 1;
                                    for (uint8_t *b = dst; b < out; b++)
                                        guarded &= *b == GUARD;
                                    for (uint8_t *b = out + cap; b < dst + 64 + room + 64; b++)
                                        guarded &= *b == GUARD;
                                    if (got.status != want.status || got.position != want.position ||
                                        got.written != want.written)
                                        report(src, len, kernels[k], "UTF-16 -> UTF-32 (every alignment): position",
                                               (long long)want.position, (long long)got.position);
                                    else if (memcmp(expected, out, want.written) != 0)
                                        report(src, len, kernels[k], "UTF-16 -> UTF-32 (every alignment): bytes", 0, 1);
                                    else if (!guarded)
                                        report(src, len, kernels[k],
                                               "UTF-16 -> UTF-32 (every alignment): wrote outside dst[0..cap)", 0, 1);
                                }
                            }
                        }
                }
        }
        free(block);
    }
    free(dst);
    free(expected);
    printf("%llu UTF-16 -> UTF-32 conversions at every alignment of input and output under %zu kernels\n",
           inputs, kernel_count);
}

/* ---- UTF-8 lengths of UTF-16 from every offset of a line ----
 *
 * The vector kernels count the UTF-8 length of UTF-16 (utf_lengths.h) a
 * vector at a time after a head of units taken one at a time up to the
 * input's first vector boundary (none when the input is odd).  Text of
 * ASCII, units below 0800, the rest of the BMP and surrogates, from every
 * offset 0..64 of a 64-byte boundary (odd ones too), every length 0..300
 * bytes (odd ones too: the last byte is no unit), both byte orders: every
 * kernel's utfkit_well_formed_length to UTF-8 against scalar's. */
static void utf16_lengths_at_every_offset(const char *const *kernels, size_t kernel_count)
{
    enum { BYTES = 300, OFFSETS = 65 };
    uint8_t *line = NULL;
    if (posix_memalign((void **)&line, 64, OFFSETS + BYTES) != 0)
        return;
    for (size_t b = 0; b + 1 < OFFSETS + BYTES; b += 2) {
        uint32_t kind = (uint32_t)below(4);
        uint32_t unit = kind == 0 ? (uint32_t)below(0x80) : kind == 1 ? 0x80 + (uint32_t)below(0x780)
                      : kind == 2 ? 0x800 + (uint32_t)below(0xF800) : 0xD800 + (uint32_t)below(0x800);
        line[b] = (uint8_t)unit;
        line[b + 1] = (uint8_t)(unit >> 8);
    }
    unsigned long long inputs = 0;
    for (size_t offset = 0; offset < OFFSETS; offset++)
        for (size_t len = 0; len <= BYTES; len++)
            for (int big_endian = 0; big_endian < 2; big_endian++) {
                int form = big_endian ? UTFKIT_UTF16BE : UTFKIT_UTF16LE;
                utfkit_set_backend("scalar");
                size_t want = utfkit_well_formed_length(line + offset, len, form, UTFKIT_UTF8);
                inputs++;
                for (size_t k = 1; k < kernel_count; k++) {
                    utfkit_set_backend(kernels[k]);
                    size_t got = utfkit_well_formed_length(line + offset, len, form, UTFKIT_UTF8);
                    if (got != want)
                        report(line + offset, len, kernels[k], "UTF-16 -> UTF-8 length (every offset)",
                               (long long)want, (long long)got);
                }
            }
    free(line);
    printf("%llu UTF-16 -> UTF-8 lengths from every offset of a line under %zu kernels\n", inputs,
           kernel_count);
}

/* ---- CESU-8 and MUTF-8 writers: a stop at every position ----
 *
 * The UTF-16 and UTF-32 -> CESU-8 / MUTF-8 blocks (kernels.h:
 * utf16_to_cesu8, utf32_to_mutf8 ...; or the UTF-8 blocks with their
 * output cut, readers.h: transcode_blocks_step_cut) stop where the text
 * turns to what the scalar reader writes: a supplementary character (two
 * 3-byte surrogate sequences, UTR #26 section 2), a lone surrogate, and in
 * MUTF-8 U+0000 (C0 80, JVM spec section 4.4.7).  Texts of each class a
 * block takes whole (ASCII; units below 0800 with ASCII; three-byte CJK
 * with ASCII; all of them mixed), with one such stop at every unit
 * position of their first WRITER_HEAD units and their last WRITER_TAIL
 * (every lane of every step, the edges of the 32- and 64-unit steps, the
 * end where the vectors give way to the scalar steps), or two stops a few
 * units apart, in UTF-16 and UTF-32 of both byte orders, into CESU-8 and
 * MUTF-8, strict and with replacement: every kernel's status, position,
 * length and bytes must be scalar's.  The source is a heap block of exactly
 * its length. */

#define WRITER_UNITS 640
#define WRITER_HEAD 300
#define WRITER_TAIL 80

/* The k-th character of text `kind`. */
static uint32_t writer_text_character(int kind, size_t k)
{
    uint32_t ascii = 'a' + (uint32_t)(k % 26);
    switch (kind) {
    case 0: return ascii;
    case 1: return k % 9 == 8 ? ' ' : 0x410 + (uint32_t)(k % 48);      /* Cyrillic */
    case 2: return k % 11 == 10 ? ascii : 0x4E00 + (uint32_t)(k * 7 % 4096); /* CJK */
    default: {
        static const uint32_t mixed[] = {'x', 0xE9, 0x3B1, 0x5D0, 0x939, 0xE01, 0xAC00, ' '};
        return mixed[k * 5 % 8];
    }
    }
}

/* Writes code points cps[0..n) as units of `form` (UTF-16 or UTF-32, either
 * byte order): in UTF-16 a code point above FFFF becomes a pair (Table
 * 3-5) and D800..DFFF stays a lone unit; returns the bytes written. */
static size_t writer_units(const uint32_t *cps, size_t n, int form, uint8_t *out)
{
    int big_endian = form == UTFKIT_UTF16BE || form == UTFKIT_UTF32BE;
    size_t at = 0;
    for (size_t k = 0; k < n; k++) {
        if (form == UTFKIT_UTF32LE || form == UTFKIT_UTF32BE) {
            for (int b = 0; b < 4; b++)
                out[at + (size_t)b] = (uint8_t)(cps[k] >> (8 * (big_endian ? 3 - b : b)));
            at += 4;
        } else if (cps[k] > 0xFFFF) {
            put_unit(out + at, (uint16_t)(0xD800 + ((cps[k] - 0x10000) >> 10)), big_endian);
            put_unit(out + at + 2, (uint16_t)(0xDC00 + ((cps[k] - 0x10000) & 0x3FF)), big_endian);
            at += 4;
        } else {
            put_unit(out + at, (uint16_t)cps[k], big_endian);
            at += 2;
        }
    }
    return at;
}

static void bmp_writers_stop_at_every_position(const char *const *kernels, size_t kernel_count,
                                               int quick)
{
    static const int from_forms[] = {UTFKIT_UTF16LE, UTFKIT_UTF16BE, UTFKIT_UTF32LE, UTFKIT_UTF32BE};
    /* U+0000, a supplementary character, a lone lead, a lone trail */
    static const uint32_t stops[] = {0x0000, 0x1F600, 0xD800, 0xDC00};
    size_t head = quick ? 140 : WRITER_HEAD, tail = quick ? 40 : WRITER_TAIL;
    uint32_t cps[WRITER_UNITS];
    size_t room = 4 * WRITER_UNITS, cap = 6 * WRITER_UNITS + 64;
    uint8_t *source = malloc(room), *dst = malloc(cap), *expected = malloc(cap);
    if (source == NULL || dst == NULL || expected == NULL)
        return;
    unsigned long long inputs = 0;
    for (int kind = 0; kind < 4; kind++)
        for (size_t f = 0; f < sizeof from_forms / sizeof from_forms[0]; f++)
            for (size_t at = 0; at < WRITER_UNITS; at++) {
                if (at >= head && at + tail < WRITER_UNITS)
                    continue;
                for (size_t s = 0; s < sizeof stops / sizeof stops[0]; s++)
                    for (int second = 0; second < 2; second++) {
                        for (size_t k = 0; k < WRITER_UNITS; k++)
                            cps[k] = writer_text_character(kind, k);
                        cps[at] = stops[s];
                        /* a second stop a few units on: the scalar steps
                         * hand back to the block between them */
                        size_t later = at + 3 + at % 29;
                        if (second && later < WRITER_UNITS)
                            cps[later] = stops[(s + 1 + at) % 4];
                        else if (second)
                            continue;
                        size_t len = writer_units(cps, WRITER_UNITS, from_forms[f], source);
                        uint8_t *src = malloc(len); /* exactly len bytes */
                        memcpy(src, source, len);
                        for (int m = 0; m < 2; m++)
                            for (int errors = UTFKIT_STRICT; errors <= UTFKIT_REPLACE; errors++) {
                                utfkit_set_backend("scalar");
                                utfkit_result want =
                                    utfkit_transcode(src, len, from_forms[f], bmp_forms[m], errors, dst, cap);
                                memcpy(expected, dst, want.written);
                                inputs++;
                                for (size_t k = 1; k < kernel_count; k++) {
                                    utfkit_set_backend(kernels[k]);
                                    utfkit_result got = utfkit_transcode(src, len, from_forms[f], bmp_forms[m],
                                                                         errors, dst, cap);
                                    char what[160];
                                    snprintf(what, sizeof what,
                                             "transcode %d -> %d (%s), text %d, stop %X at unit %zu%s: %s",
                                             from_forms[f], bmp_forms[m], errors ? "replace" : "strict", kind,
                                             (unsigned)stops[s], at, second ? " and later" : "",
                                             got.status != want.status || got.position != want.position
                                                 ? "status/position (position shown)" : "written/bytes");
                                    if (got.status != want.status || got.position != want.position)
                                        report(src, len, kernels[k], what, (long long)want.position,
                                               (long long)got.position);
                                    else if (got.written != want.written ||
                                             (want.status == UTFKIT_OK && memcmp(expected, dst, want.written) != 0))
                                        report(src, len, kernels[k], what, (long long)want.written,
                                               (long long)got.written);
                                }
                            }
                        free(src);
                    }
            }
    free(source);
    free(dst);
    free(expected);
    printf("%llu conversions into CESU-8/MUTF-8 with a stop at every position under %zu kernels\n",
           inputs, kernel_count);
}

/* ---- every input length into exactly the documented room ----
 *
 * utfkit.h: a conversion never writes dst[cap] or beyond, whatever cap is,
 * and reports UTFKIT_OUTPUT_TOO_SMALL with the exact length when cap is
 * short; the Python binding gives the worst case (_binding.py,
 * worst_case_size) and C callers often the exact length.  For every pair of
 * forms the core converts between (UTF-8, UTF-16 and UTF-32 of both byte
 * orders, WTF-8, CESU-8, MUTF-8, Latin-1, ASCII, UTF-E-8, RFC 2279), every
 * errors mode and every input length 0..260 bytes -- prefixes of one text,
 * so lengths that are not a multiple of the code unit and characters cut
 * short at the end come in turn -- and every kernel: utfkit_transcode and
 * utfkit_transcode_partial into cap = the exact output length, the worst
 * case, one byte less than the output and half of it, and 1, 2, 3 and 4
 * bytes per input byte (each reader's own worst case, sink_drive.h's
 * per_byte: steps straight into dst, then a staged stretch), in a buffer followed
 * by guard bytes that must stay untouched (and with AddressSanitizer also
 * in a heap block of exactly cap bytes, so that a write past cap is
 * reported by ASan itself).  Status, position, subpart length and written
 * must be scalar's, and so must the bytes when the status is OK (the whole
 * output; past it, room to spare may hold vector stores) or, short of room,
 * all of dst[0..cap) (utfkit.h: the longest prefix of whole characters
 * that fits, nothing else; for utfkit_transcode_partial, dst[0..written)).
 * After a strict error only the result is compared: what the kernels'
 * blocks stored past the part written is not promised.  The source is a
 * heap block of exactly the input's length.  (Breaking the avx512 UTF-32
 * reader's last partial step to read a cut-off unit as a whole one makes
 * this fail at once; so does letting sink_drive.h's direct window run to
 * the end without its margin: "wrote past cap".)
 * The texts, one per length in rotation: ASCII; ASCII, 2-, 3- and 4-byte
 * characters in runs; BMP letters (Cyrillic, CJK) with spaces; that mix
 * with lone surrogates (carried by WTF-8, MUTF-8 and UTF-16, U+FFFD in the
 * other forms) and then bytes overwritten; and U+0000..U+00FF (MUTF-8's
 * C0 80, the Latin-1 blocks). */

#if defined(__SANITIZE_ADDRESS__)
#define BOUNDS_EXACT_BLOCKS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BOUNDS_EXACT_BLOCKS 1
#endif
#endif
#ifndef BOUNDS_EXACT_BLOCKS
#define BOUNDS_EXACT_BLOCKS 0
#endif

static const int bounds_forms[] = {UTFKIT_UTF8,  UTFKIT_UTF16LE, UTFKIT_UTF16BE, UTFKIT_UTF32LE,
                                   UTFKIT_UTF32BE, UTFKIT_WTF8,  UTFKIT_CESU8,   UTFKIT_MUTF8,
                                   UTFKIT_LATIN1, UTFKIT_ASCII,  UTFKIT_UTFE8,   UTFKIT_UTF8_RFC2279};
#define BOUNDS_FORMS (sizeof bounds_forms / sizeof bounds_forms[0])
#define BOUNDS_LONGEST 260 /* input bytes */
#define BOUNDS_TEXTS 5
#define BOUNDS_GUARD 64

static size_t bounds_unit(int form)
{
    return form == UTFKIT_UTF16LE || form == UTFKIT_UTF16BE ? 2
         : form == UTFKIT_UTF32LE || form == UTFKIT_UTF32BE ? 4 : 1;
}

/* The worst case as the Python binding computes it (_binding.py,
 * worst_case_size): a code point per source unit (a partial final unit
 * too), at most 3 bytes of the 8-bit forms or 2 of UTF-16 from a 1- or
 * 2-byte unit, 4 bytes (6 in CESU-8 and MUTF-8) from a UTF-32 unit, and
 * one byte into Latin-1 and ASCII. */
static size_t bounds_worst_case(size_t len, int from, int to)
{
    size_t units = (len + bounds_unit(from) - 1) / bounds_unit(from);
    if (to == UTFKIT_LATIN1 || to == UTFKIT_ASCII)
        return units;
    if (bounds_unit(from) == 4)
        return units * (to == UTFKIT_CESU8 || to == UTFKIT_MUTF8 ? 6 : 4);
    return units * (bounds_unit(to) == 1 ? 3 : bounds_unit(to) == 2 ? 2 : 4);
}

/* Text `kind` as UTF-16LE units (lone surrogates in kind 3); returns the
 * bytes. */
static size_t bounds_utf16_text(uint8_t *out, size_t units, int kind)
{
    size_t n = 0;
    while (n + 2 <= units) {
        size_t run = 1 + below(kind == 0 ? 200 : 24);
        int what = kind == 0 ? 0 : kind == 2 ? 1 + (int)below(2) : kind == 4 ? 4 : (int)below(5);
        for (size_t k = 0; k < run && n + 2 <= units; k++) {
            uint32_t cp;
            switch (what) {
            case 0: cp = 0x20 + (uint32_t)below(0x5F); break;
            case 1: cp = k % 6 == 5 ? ' ' : 0x400 + (uint32_t)below(0x100); break;
            case 2: cp = k % 6 == 5 ? ' ' : 0x4E00 + (uint32_t)below(0x5000); break;
            case 3: cp = 0x10000 + (uint32_t)below(0x100000); break;
            default: cp = kind == 4 ? (uint32_t)below(0x100) : 0x80 + (uint32_t)below(0x780); break;
            }
            if (kind == 3 && below(16) == 0)
                cp = 0xD800 + (uint32_t)below(0x800); /* a lone surrogate */
            if (cp >= 0x10000) {
                put_unit(out + 2 * n++, (uint16_t)(0xD800 | (cp - 0x10000) >> 10), 0);
                cp = 0xDC00 | (cp & 0x3FF);
            }
            put_unit(out + 2 * n++, (uint16_t)cp, 0);
        }
    }
    return 2 * n;
}

/* One call of utfkit_transcode (partial < 0) or utfkit_transcode_partial
 * (final = partial) into dst[0..cap). */
static utfkit_result bounds_call(const uint8_t *src, size_t len, int from, int to, int errors,
                                 int partial, uint8_t *dst, size_t cap)
{
    return partial < 0 ? utfkit_transcode(src, len, from, to, errors, dst, cap)
                       : utfkit_transcode_partial(src, len, from, to, errors, partial, dst, cap);
}

static int same_result(utfkit_result a, utfkit_result b)
{
    return a.status == b.status && a.position == b.position && a.subpart_length == b.subpart_length &&
           a.written == b.written;
}

/* The UTF-16 same-form copy with replacement (validation fused with the
 * copy) takes a head up to a vector boundary of its output, or of its
 * input, as their offsets allow, and then whole blocks of up to 512 bytes:
 * input and output in blocks of exactly their length, each at every offset
 * from a 64-byte boundary (--quick: every third input offset), lengths that
 * just reach a block of each kernel after the longest head, and longer;
 * text of surrogate pairs (one across every head's end, as the text starts
 * with a pair or a lone BMP unit), then with a lone lead and a lone trail
 * on either side of the longest head's end.  Every kernel's output against
 * scalar's, and nothing written past it (ASan: nothing read or written
 * outside either block). */
static void bounds_utf16_copy_at_every_offset(const char *const *kernels, size_t kernel_count, int quick)
{
    enum { LONGEST = 1090 };
    static const size_t lengths[] = {128 + 62, 256 + 64, 512 + 62, 512 + 64, LONGEST};
    uint8_t expected[LONGEST], text[LONGEST];
    unsigned long long calls = 0;
    for (size_t src_offset = 0; src_offset < 64; src_offset += quick ? 3 : 1)
        for (size_t dst_offset = 0; dst_offset < 64; dst_offset++)
            for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++) {
                size_t len = lengths[l];
                uint8_t *src_block = NULL, *dst_block = NULL;
                if (posix_memalign((void **)&src_block, 64, src_offset + len) != 0)
                    return;
                if (posix_memalign((void **)&dst_block, 64, dst_offset + len + BOUNDS_GUARD) != 0) {
                    free(src_block);
                    return;
                }
                uint8_t *src = src_block + src_offset, *dst = dst_block + dst_offset;
                /* the unit at the end of the longest head (the avx512 kernel's) */
                size_t head_end = (64 - (uintptr_t)dst % 64) % 64 / 2;
                for (int kind = 0; kind < 4; kind++) {
                    size_t u = 0;
                    if (kind == 1)
                        put_unit(text + 2 * u++, 0x4E00, 0);
                    while (2 * u + 4 <= len) {
                        put_unit(text + 2 * u, (uint16_t)(0xD800 + u * 37 % 0x400), 0);
                        put_unit(text + 2 * u + 2, (uint16_t)(0xDC00 + u * 91 % 0x400), 0);
                        u += 2;
                    }
                    if (2 * u < len)
                        put_unit(text + 2 * u++, 0x20, 0);
                    if (kind >= 2 && head_end > 0)
                        put_unit(text + 2 * (head_end - (kind == 2)), kind == 2 ? 0xD800 : 0xDC00, 0);
                    memcpy(src, text, len);
                    utfkit_set_backend("scalar");
                    utfkit_result want =
                        utfkit_transcode(src, len, UTFKIT_UTF16LE, UTFKIT_UTF16LE, UTFKIT_REPLACE, expected, len);
                    for (size_t k = 1; k < kernel_count; k++) {
                        utfkit_set_backend(kernels[k]);
                        for (size_t b = 0; b < len + BOUNDS_GUARD; b++)
                            dst[b] = (uint8_t)(GUARD ^ b);
                        utfkit_result got =
                            utfkit_transcode(src, len, UTFKIT_UTF16LE, UTFKIT_UTF16LE, UTFKIT_REPLACE, dst, len);
                        calls++;
                        char what[160];
                        snprintf(what, sizeof what,
                                 "bounds: UTF-16LE copy with replacement, input +%zu, output +%zu, len %zu: %s",
                                 src_offset, dst_offset, len, "written, or bytes differ (0), or written past (1)");
                        size_t b = len;
                        while (b < len + BOUNDS_GUARD && dst[b] == (uint8_t)(GUARD ^ b))
                            b++;
                        if (!same_result(got, want))
                            report(src, len, kernels[k], what, (long long)want.written, (long long)got.written);
                        else if (memcmp(dst, expected, want.written) != 0)
                            report(src, len, kernels[k], what, 1, 0);
                        else if (b < len + BOUNDS_GUARD)
                            report(src, len, kernels[k], what, 0, 1);
                    }
                }
                free(src_block);
                free(dst_block);
            }
    printf("%llu UTF-16 copies with replacement at every pair of input and output offsets under %zu kernels\n",
           calls, kernel_count);
}

static void bounds_at_every_length(const char *const *kernels, size_t kernel_count, int quick)
{
    bounds_utf16_copy_at_every_offset(kernels, kernel_count, quick);
    enum { TEXT_ROOM = 6 * 400 + 64, OUT_ROOM = 6 * BOUNDS_LONGEST + BOUNDS_GUARD };
    static uint8_t texts[BOUNDS_FORMS][BOUNDS_TEXTS][TEXT_ROOM];
    static uint8_t expected[OUT_ROOM], buffer[OUT_ROOM], want_at_cap[OUT_ROOM];
    uint8_t utf16[2 * 400];
    utfkit_set_backend("scalar");
    for (int kind = 0; kind < BOUNDS_TEXTS; kind++) {
        size_t bytes16 = bounds_utf16_text(utf16, 400, kind);
        for (size_t f = 0; f < BOUNDS_FORMS; f++) {
            int form = bounds_forms[f];
            uint8_t *text = texts[f][kind];
            size_t n;
            if (form == UTFKIT_LATIN1 || form == UTFKIT_ASCII) {
                /* any bytes are Latin-1; ASCII mostly, 80..FF ill-formed */
                for (n = 0; n < 400; n++)
                    text[n] = (uint8_t)(kind == 0 ? 0x20 + below(0x5F)
                                        : kind == 2 || below(8) == 0 ? 0x80 + below(0x80)
                                                                     : 0x20 + below(0x5F));
            } else {
                n = utfkit_transcode(utf16, bytes16, UTFKIT_UTF16LE, form, UTFKIT_REPLACE, text, TEXT_ROOM)
                        .written;
            }
            if (kind == 3)
                for (int d = 0; d < 3; d++)
                    text[below(BOUNDS_LONGEST)] = (uint8_t)below(256);
            if (n < BOUNDS_LONGEST) {
                report(text, n, "scalar", "bounds: a text shorter than the longest input", BOUNDS_LONGEST,
                       (long long)n);
                return;
            }
        }
    }
    unsigned long long calls = 0;
    for (size_t f = 0; f < BOUNDS_FORMS; f++)
        for (size_t t = 0; t < BOUNDS_FORMS; t++)
            for (int errors = UTFKIT_STRICT; errors <= UTFKIT_IGNORE; errors++)
                for (size_t len = 0; len <= BOUNDS_LONGEST; len++) {
                    /* --quick: each length under one errors mode, in turn */
                    if (quick && (int)((len + f + t) % 3) != errors)
                        continue;
                    int from = bounds_forms[f], to = bounds_forms[t];
                    int kind = (int)((len + f) % BOUNDS_TEXTS);
                    uint8_t *src = malloc(len ? len : 1); /* exactly len bytes */
                    memcpy(src, texts[f][kind], len);
                    /* partial -1: utfkit_transcode; 0 and 1: utfkit_transcode_partial's final */
                    for (int partial = -1; partial <= 1; partial++) {
                        if (partial == 0 && quick && len % 2 == 0)
                            continue;
                        utfkit_set_backend("scalar");
                        utfkit_result whole = bounds_call(src, len, from, to, errors, partial, expected, OUT_ROOM);
                        size_t needed = whole.status == UTFKIT_OUTPUT_TOO_SMALL ? OUT_ROOM : whole.written;
                        size_t worst = bounds_worst_case(len, from, to);
                        if (partial < 0 && (needed > worst || whole.status == UTFKIT_OUTPUT_TOO_SMALL)) {
                            char what[120];
                            snprintf(what, sizeof what, "bounds: %d -> %d errors %d: output above the worst case",
                                     from, to, errors);
                            report(src, len, "scalar", what, (long long)worst, (long long)needed);
                            continue;
                        }
                        /* and 1, 2, 3 and 4 bytes per input byte: exactly the
                         * worst case each reader plans for (sink_drive.h's
                         * per_byte) */
                        size_t caps[8] = {needed, worst, needed > 0 ? needed - 1 : needed, needed / 2,
                                          len, 2 * len, 3 * len, 4 * len};
                        for (size_t c = 0; c < 8; c++) {
                            size_t cap = caps[c];
                            int seen = 0;
                            for (size_t d = 0; d < c; d++)
                                seen |= caps[d] == cap;
                            if (seen || cap + BOUNDS_GUARD > OUT_ROOM)
                                continue;
                            utfkit_result want = {0};
                            for (size_t k = 0; k < kernel_count; k++) {
                                utfkit_set_backend(kernels[k]);
                                for (size_t b = 0; b < cap + BOUNDS_GUARD; b++)
                                    buffer[b] = (uint8_t)(GUARD ^ b);
                                utfkit_result got = bounds_call(src, len, from, to, errors, partial, buffer, cap);
                                calls++;
                                char what[160];
                                snprintf(what, sizeof what, "bounds: %s %d -> %d errors %d, len %zu, cap %zu (needs %zu): %%s",
                                         partial < 0 ? "transcode" : partial ? "partial final" : "partial",
                                         from, to, errors, len, cap, needed);
                                char detail[220];
                                size_t b = cap;
                                while (b < cap + BOUNDS_GUARD && buffer[b] == (uint8_t)(GUARD ^ b))
                                    b++;
                                if (b < cap + BOUNDS_GUARD) {
                                    snprintf(detail, sizeof detail, what, "wrote past cap (at cap + shown)");
                                    report(src, len, kernels[k], detail, 0, (long long)(b - cap));
                                }
                                size_t compared = got.written < cap ? got.written : cap;
                                if (partial < 0 && cap >= needed)
                                    compared = needed;
                                if (k == 0) {
                                    want = got;
                                    memcpy(want_at_cap, buffer, cap);
                                    if (partial < 0 && whole.status == UTFKIT_OK && cap >= needed &&
                                        memcmp(buffer, expected, needed) != 0) {
                                        snprintf(detail, sizeof detail, what, "bytes differ from the call with room");
                                        report(src, len, kernels[k], detail, 0, 1);
                                    }
                                    continue;
                                }
                                if (!same_result(got, want)) {
                                    snprintf(detail, sizeof detail, what, "status/position/written (written shown)");
                                    report(src, len, kernels[k], detail, (long long)want.written, (long long)got.written);
                                } else if ((want.status == UTFKIT_OK || want.status == UTFKIT_OUTPUT_TOO_SMALL) &&
                                           memcmp(buffer, want_at_cap, partial < 0 && cap < needed ? cap : compared) != 0) {
                                    snprintf(detail, sizeof detail, what, "bytes differ");
                                    report(src, len, kernels[k], detail, 0, 1);
                                }
                                if (BOUNDS_EXACT_BLOCKS) {
                                    /* a block of exactly cap bytes: ASan reports any write past it */
                                    uint8_t *exact = cap ? malloc(cap) : NULL;
                                    utfkit_result again = bounds_call(src, len, from, to, errors, partial, exact, cap);
                                    if (!same_result(again, got)) {
                                        snprintf(detail, sizeof detail, what, "differs in an exact block");
                                        report(src, len, kernels[k], detail, (long long)got.written,
                                               (long long)again.written);
                                    }
                                    free(exact);
                                }
                            }
                        }
                    }
                    free(src);
                }
    printf("%llu conversions of every length 0..%d into exact and worst-case room, %zu forms, under %zu kernels\n",
           calls, BOUNDS_LONGEST, BOUNDS_FORMS, kernel_count);
}

int main(int argc, char **argv)
{
    size_t inputs = 200000, max_length = 1200;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            inputs = 20000;
        else if (strcmp(argv[i], "--inputs") == 0 && i + 1 < argc)
            inputs = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            random_state = strtoull(argv[++i], NULL, 10) | 1;
        else {
            fprintf(stderr, "usage: %s [--quick] [--inputs N] [--seed S]\n", argv[0]);
            return 2;
        }
    }
    const char *available[MAX_KERNELS];
    size_t kernels = 0;
    printf("kernels:");
    for (size_t k = 0; utfkit_backend_name(k) != NULL && kernels < MAX_KERNELS; k++)
        if (utfkit_backend_available(utfkit_backend_name(k))) {
            available[kernels++] = utfkit_backend_name(k);
            printf(" %s", utfkit_backend_name(k));
        }
    printf("\n");

    /* One input in 16 is up to 4 times longer: errors past the first
     * kilobyte, where the vector kernels test for errors in batches of
     * vectors (kernels.h, utf8_well_formed_bound), and UTF-32 of those. */
    size_t scratch_size = 16 * max_length + 16;
    uint8_t *text = malloc(scratch_size), *scratch = malloc(scratch_size);
    unsigned long long bytes = 0;
    for (size_t n = 0; n < inputs && failures < 10; n++) {
        size_t len = random_text(text, n % 16 == 15 ? 4 * max_length : max_length);
        if (below(3) == 0) {
            /* The text as UTF-16 or UTF-32 (U+FFFD for what was ill-formed),
             * so that the UTF-16 and UTF-32 entry points see their own
             * well-formed text, surrogate pairs included; sometimes with
             * one byte overwritten (an unpaired surrogate, a unit above
             * 10FFFF, a cut-off unit). */
            int form = unicode_forms[1 + below(UNICODE_FORMS - 1)];
            utfkit_utf8_validate(text, len); /* (sets the best kernel up first) */
            utfkit_set_backend("scalar");
            len = utfkit_transcode(text, len, UTFKIT_UTF8, form, UTFKIT_REPLACE, scratch,
                                   scratch_size).written;
            memcpy(text, scratch, len);
            if (len > 0 && below(2) == 0)
                text[below(len)] = (uint8_t)below(256);
            if (len > 0 && below(4) == 0)
                len -= below(3);
        }
        bytes += len;
        /* exactly len bytes on the heap: any over-read is out of bounds */
        uint8_t *src = malloc(len ? len : 1);
        memcpy(src, text, len);
        uint8_t *expected_sanitized;
        utfkit_set_backend("scalar");
        answers expected = answer(src, len, scratch, scratch_size, &expected_sanitized);
        for (size_t k = 1; k < kernels; k++) {
            utfkit_set_backend(available[k]);
            uint8_t *got_sanitized;
            answers got = answer(src, len, scratch, scratch_size, &got_sanitized);
            const char *kernel = available[k];
#define SAME(field, what) \
    if ((long long)(expected.field) != (long long)(got.field)) \
        report(src, len, kernel, what, (long long)(expected.field), (long long)(got.field));
            SAME(valid, "utf8_validate")
            SAME(check.status, "utf8_check status")
            SAME(check.position, "utf8_check position")
            SAME(check.subpart_length, "utf8_check subpart_length")
            SAME(count, "utf8_count")
            SAME(ascii_length, "ascii_length")
            SAME(valid_lengths, "utf8_validate_lengths: valid")
            SAME(lengths_code_points, "utf8_validate_lengths: code points")
            SAME(lengths_utf16_units, "utf8_validate_lengths: UTF-16 units")
            SAME(sanitized.status, "utf8_sanitize status")
            SAME(sanitized.written, "utf8_sanitize written")
            for (int f = 0; f < UNICODE_FORMS; f++)
                for (int t = 0; t < UNICODE_FORMS; t++)
                    for (int e = 0; e < 2; e++) {
                        SAME(transcoded[f][t][e].status, "transcode (every pair, strict/replace): status")
                        SAME(transcoded[f][t][e].position, "transcode (every pair, strict/replace): position")
                        SAME(transcoded[f][t][e].written, "transcode (every pair, strict/replace): written")
                        SAME(transcoded_digest[f][t][e], "transcode (every pair, strict/replace): bytes")
                    }
            for (int f = 0; f < UNICODE_FORMS; f++) {
                SAME(count_as[f], "count (as each form)")
                for (int t = 0; t < UNICODE_FORMS; t++) {
                    SAME(well_formed_length[f][t], "well_formed_length (every pair of forms)")
                    for (int e = 0; e < 2; e++) {
                        SAME(transcoded_length[f][t][e].status, "transcoded_length status")
                        SAME(transcoded_length[f][t][e].position, "transcoded_length position")
                        SAME(transcoded_length[f][t][e].written, "transcoded_length written")
                    }
                }
            }
            for (int t = 0; t < UNICODE_FORMS - 1; t++)
                for (int e = 0; e < 3; e++) {
                    SAME(wtf8_transcoded[t][e].status, "transcode WTF-8 -> UTF-16/32: status")
                    SAME(wtf8_transcoded[t][e].position, "transcode WTF-8 -> UTF-16/32: position")
                    SAME(wtf8_transcoded[t][e].written, "transcode WTF-8 -> UTF-16/32: written")
                    SAME(wtf8_digest[t][e], "transcode WTF-8 -> UTF-16/32: bytes")
                    SAME(wtf8_written[t][e].status, "transcode UTF-16/32 -> WTF-8: status")
                    SAME(wtf8_written[t][e].position, "transcode UTF-16/32 -> WTF-8: position")
                    SAME(wtf8_written[t][e].written, "transcode UTF-16/32 -> WTF-8: written")
                    SAME(wtf8_written_digest[t][e], "transcode UTF-16/32 -> WTF-8: bytes")
                }
            for (int m = 0; m < 2; m++) {
                SAME(bmp_valid[m], "validate CESU-8/MUTF-8")
                SAME(bmp_check[m].status, "check CESU-8/MUTF-8: status")
                SAME(bmp_check[m].position, "check CESU-8/MUTF-8: position")
                SAME(bmp_check[m].subpart_length, "check CESU-8/MUTF-8: subpart_length")
                SAME(bmp_count[m], "count CESU-8/MUTF-8")
                for (int t = 0; t < UNICODE_FORMS - 1; t++)
                    for (int e = 0; e < 3; e++) {
                        SAME(bmp_transcoded[m][t][e].status, "transcode CESU-8/MUTF-8 -> UTF-16/32: status")
                        SAME(bmp_transcoded[m][t][e].position, "transcode CESU-8/MUTF-8 -> UTF-16/32: position")
                        SAME(bmp_transcoded[m][t][e].written, "transcode CESU-8/MUTF-8 -> UTF-16/32: written")
                        SAME(bmp_digest[m][t][e], "transcode CESU-8/MUTF-8 -> UTF-16/32: bytes")
                    }
                for (int f = 0; f < UNICODE_FORMS - 1; f++)
                    for (int e = 0; e < 2; e++) {
                        SAME(bmp_written[f][m][e].status, "transcode UTF-16/32 -> CESU-8/MUTF-8: status")
                        SAME(bmp_written[f][m][e].position, "transcode UTF-16/32 -> CESU-8/MUTF-8: position")
                        SAME(bmp_written[f][m][e].written, "transcode UTF-16/32 -> CESU-8/MUTF-8: written")
                        SAME(bmp_written_digest[f][m][e], "transcode UTF-16/32 -> CESU-8/MUTF-8: bytes")
                    }
                if (expected.bmp_valid[m] != (expected.bmp_check[m].status == UTFKIT_OK))
                    report(src, len, "scalar", "CESU-8/MUTF-8 validate vs check", expected.bmp_valid[m],
                           expected.bmp_check[m].status);
            }
#undef SAME
            if (expected.sanitized.written == got.sanitized.written &&
                memcmp(expected_sanitized, got_sanitized, got.sanitized.written) != 0)
                report(src, len, kernel, "utf8_sanitize bytes differ", 0, 1);
            if (expected.valid != (expected.check.status == UTFKIT_OK))
                report(src, len, "scalar", "validate vs check", expected.valid,
                       expected.check.status);
            if (expected.valid_lengths != expected.valid ||
                (expected.valid && (expected.lengths_code_points != expected.count ||
                                    2 * expected.lengths_utf16_units !=
                                        expected.well_formed_length[0][1])))
                report(src, len, "scalar", "utf8_validate_lengths vs validate, count, UTF-16 length",
                       expected.valid, expected.valid_lengths);
            {
                size_t ascii = 0;
                while (ascii < len && src[ascii] < 0x80)
                    ascii++;
                if (expected.ascii_length != ascii)
                    report(src, len, "scalar", "ascii_length vs a byte loop", (long long)ascii,
                           (long long)expected.ascii_length);
            }
            free(got_sanitized);
        }
        free(expected_sanitized);
        free(src);
    }
    free(text);
    free(scratch);
    every_position(available, kernels, inputs <= 20000);
    ranged_leads_at_block_edges(available, kernels);
    utf8_runs_damaged_at_every_position(available, kernels, inputs <= 20000);
    form_stops_at_every_position(available, kernels);
    ranged_text_second_bytes(available, kernels, inputs <= 20000);
    output_at_every_line_offset(available, kernels);
    utf16_surrogates_at_every_position(available, kernels, inputs <= 20000);
    utf32_units_at_every_position(available, kernels);
    utf16_to_utf32_at_every_alignment(available, kernels);
    utf16_lengths_at_every_offset(available, kernels);
    bmp_writers_stop_at_every_position(available, kernels, inputs <= 20000);
    bounds_at_every_length(available, kernels, inputs <= 20000);
    if (failures) {
        printf("%d disagreement(s)\n", failures);
        return 1;
    }
    printf("%zu inputs (%llu bytes) under %zu kernels: every kernel agrees with scalar: all passed\n",
           inputs, bytes, kernels);
    return 0;
}
