/*
 * test_latin1_partial.c -- checks Latin-1 and ASCII (csrc/latin1.c) and
 * bounded conversion (csrc/partial.c) through the public C API
 * (utfkit_transcode, utfkit_transcoded_length, utfkit_transcode_partial)
 * under every backend, against references written here.
 *
 * A standalone C program: no Python.  Built and run by `make ctest`,
 * `make ctest-asan` and tests/test_c_core.py (with --quick).
 *
 * The references, after CPython's latin-1 and ascii codecs:
 *   - a Latin-1 byte is the code point of its value; an ASCII byte 80..FF
 *     is ill-formed, one byte (UTFKIT_INVALID_START), replaced by U+FFFD;
 *   - the code points are written in the destination form by Table 3-6
 *     (UTF-8), Table 3-5 (UTF-16) and D90 (UTF-32);
 *   - into Latin-1 (ASCII), a code point above FF (7F) is UTFKIT_UNENCODABLE
 *     with errors = strict (written = the index of its output byte), '?'
 *     with replace, nothing with ignore.
 * Sections:
 *   1. Latin-1 and ASCII into every Unicode form: every byte alone, one
 *      byte 80..FF at every offset of ASCII text 0..200 bytes long (the
 *      vector blocks' boundaries), random texts up to 3000 bytes; and into
 *      UTF-16 and UTF-32 at every dst address mod 64 (the widening blocks
 *      store aligned to dst), nothing written before dst or past its end;
 *      ASCII validation at every src address mod 64 with a byte 80..FF
 *      at chosen places (the kernels' ASCII runs load from boundaries);
 *   2. every Unicode form into Latin-1 and ASCII: well-formed text of code
 *      points mostly below 100 with one above it at every offset, random
 *      texts; and UTF-8 damaged at random, where every kernel must give
 *      scalar's answer (status, position, subpart, written, bytes);
 *   3. utfkit_transcode_partial: repeated calls on the rest, at every
 *      output size from the longest character's output up, give exactly
 *      utfkit_transcode's output, and with strict the first error at
 *      transcode's position -- among them a WTF-8 surrogate pair written
 *      as two sequences before a later error (WTF-8 section 4.3: the
 *      pair is the error).
 * Every src is a heap block of exactly its length and every dst one of
 * exactly cap bytes, so that AddressSanitizer (`make ctest-asan`) reports
 * any access outside them.  --quick: fewer random texts and output sizes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utfkit.h"

static unsigned long long checks, failures;
static int quick;

#define CHECK(condition, ...)                                   \
    do {                                                        \
        checks++;                                               \
        if (!(condition)) {                                     \
            if (failures++ < 20) {                              \
                printf("FAILED %s:%d: ", __FILE__, __LINE__);   \
                printf(__VA_ARGS__);                            \
                printf("\n");                                   \
            }                                                   \
        }                                                       \
    } while (0)

static uint64_t random_state = 0x9E3779B97F4A7C15ull;
static uint32_t next_random(void)
{
    random_state ^= random_state << 13;
    random_state ^= random_state >> 7;
    random_state ^= random_state << 17;
    return (uint32_t)(random_state >> 11);
}

static uint8_t *heap_copy(const uint8_t *bytes, size_t len)
{
    uint8_t *copy = calloc(len ? len : 1, 1);
    if (len)
        memcpy(copy, bytes, len);
    return copy;
}

/* ---- the reference encoder: Table 3-6, Table 3-5, D90 ---- */

static size_t encode_one(uint32_t code_point, int form, uint8_t *out)
{
    switch (form) {
    case UTFKIT_UTF8:
        if (code_point < 0x80) {
            out[0] = (uint8_t)code_point;
            return 1;
        }
        if (code_point < 0x800) {
            out[0] = (uint8_t)(0xC0 | code_point >> 6);
            out[1] = (uint8_t)(0x80 | (code_point & 0x3F));
            return 2;
        }
        if (code_point < 0x10000) {
            out[0] = (uint8_t)(0xE0 | code_point >> 12);
            out[1] = (uint8_t)(0x80 | (code_point >> 6 & 0x3F));
            out[2] = (uint8_t)(0x80 | (code_point & 0x3F));
            return 3;
        }
        out[0] = (uint8_t)(0xF0 | code_point >> 18);
        out[1] = (uint8_t)(0x80 | (code_point >> 12 & 0x3F));
        out[2] = (uint8_t)(0x80 | (code_point >> 6 & 0x3F));
        out[3] = (uint8_t)(0x80 | (code_point & 0x3F));
        return 4;
    case UTFKIT_UTF16LE:
    case UTFKIT_UTF16BE: {
        uint16_t units[2];
        size_t count = 1;
        if (code_point < 0x10000) {
            units[0] = (uint16_t)code_point;
        } else {
            units[0] = (uint16_t)(0xD800 | (code_point - 0x10000) >> 10);
            units[1] = (uint16_t)(0xDC00 | ((code_point - 0x10000) & 0x3FF));
            count = 2;
        }
        for (size_t k = 0; k < count; k++) {
            out[2 * k + (form == UTFKIT_UTF16BE)] = (uint8_t)units[k];
            out[2 * k + (form != UTFKIT_UTF16BE)] = (uint8_t)(units[k] >> 8);
        }
        return 2 * count;
    }
    default: /* UTF-32LE / BE */
        for (int k = 0; k < 4; k++)
            out[form == UTFKIT_UTF32BE ? 3 - k : k] = (uint8_t)(code_point >> (8 * k));
        return 4;
    }
}

static size_t encode_all(const uint32_t *code_points, size_t count, int form, uint8_t *out)
{
    size_t length = 0;
    for (size_t k = 0; k < count; k++)
        length += encode_one(code_points[k], form, out + length);
    return length;
}

static const int unicode_forms[] = {UTFKIT_UTF8, UTFKIT_UTF16LE, UTFKIT_UTF16BE, UTFKIT_UTF32LE,
                                    UTFKIT_UTF32BE};
#define UNICODE_FORMS (sizeof unicode_forms / sizeof unicode_forms[0])

static const char *backends[8];
static size_t backend_count;

static void find_backends(void)
{
    for (size_t i = 0; utfkit_backend_name(i) != NULL; i++)
        if (utfkit_backend_available(utfkit_backend_name(i)))
            backends[backend_count++] = utfkit_backend_name(i);
}

/* Converts src under the backend into a block of exactly `needed` bytes
 * (and one of needed - 1, which must report OUTPUT_TOO_SMALL with a prefix
 * of the output); returns the result and fills `out` (room for needed). */
static utfkit_result convert_exactly(const uint8_t *src, size_t len, int from, int to, int errors,
                                     uint8_t *out, size_t needed)
{
    utfkit_result measured = utfkit_transcoded_length(src, len, from, to, errors);
    uint8_t *dst = malloc(needed ? needed : 1);
    utfkit_result result = utfkit_transcode(src, len, from, to, errors, dst, needed);
    memcpy(out, dst, needed);
    free(dst);
    if (result.status == UTFKIT_OK) {
        CHECK(measured.status == UTFKIT_OK && measured.written == result.written,
              "transcoded_length %zu vs transcode %zu (from %d to %d)", measured.written,
              result.written, from, to);
        if (needed != 0) {
            uint8_t *small = malloc(needed - 1 ? needed - 1 : 1);
            utfkit_result cut = utfkit_transcode(src, len, from, to, errors, small, needed - 1);
            CHECK(cut.status == UTFKIT_OUTPUT_TOO_SMALL && cut.written == needed,
                  "cap needed-1: status %d written %zu (needed %zu)", cut.status, cut.written,
                  needed);
            free(small);
        }
    }
    return result;
}

/* ---- 1. Latin-1 and ASCII into the Unicode forms ---- */

static void check_narrow_source(const uint8_t *bytes, size_t len, int ascii)
{
    uint8_t *src = heap_copy(bytes, len);
    uint32_t *code_points = malloc((len + 1) * sizeof *code_points);
    uint8_t *expected = malloc(4 * len + 4), *got = malloc(4 * len + 4);
    int from = ascii ? UTFKIT_ASCII : UTFKIT_LATIN1;
    for (int errors = UTFKIT_STRICT; errors <= UTFKIT_IGNORE; errors++) {
        /* the reference decoding */
        size_t count = 0, first_bad = SIZE_MAX;
        for (size_t i = 0; i < len; i++) {
            if (ascii && src[i] >= 0x80) {
                if (first_bad == SIZE_MAX)
                    first_bad = i;
                if (errors == UTFKIT_REPLACE)
                    code_points[count++] = 0xFFFD;
                continue;
            }
            code_points[count++] = src[i];
        }
        for (size_t f = 0; f < UNICODE_FORMS; f++) {
            int to = unicode_forms[f];
            for (size_t b = 0; b < backend_count; b++) {
                utfkit_set_backend(backends[b]);
                if (errors == UTFKIT_STRICT && first_bad != SIZE_MAX) {
                    utfkit_result result = utfkit_transcode(src, len, from, to, errors, got,
                                                            4 * len + 4);
                    CHECK(result.status == UTFKIT_INVALID_START && result.position == first_bad &&
                              result.subpart_length == 1,
                          "%s: ascii error at %zu reported %d at %zu", backends[b], first_bad,
                          result.status, result.position);
                    continue;
                }
                size_t needed = encode_all(code_points, count, to, expected);
                utfkit_result result = convert_exactly(src, len, from, to, errors, got, needed);
                CHECK(result.status == UTFKIT_OK && result.written == needed &&
                          memcmp(got, expected, needed) == 0,
                      "%s: %s (%zu bytes) -> form %d errors %d: status %d written %zu of %zu",
                      backends[b], ascii ? "ascii" : "latin-1", len, to, errors, result.status,
                      result.written, needed);
            }
        }
        if (!ascii)
            break; /* Latin-1 decoding never fails: errors change nothing */
    }
    utfkit_set_backend(NULL);
    free(src);
    free(code_points);
    free(expected);
    free(got);
}

static void section_1(void)
{
    uint8_t text[3000];
    for (int byte = 0; byte < 256; byte++) {
        text[0] = (uint8_t)byte;
        check_narrow_source(text, 1, 0);
        check_narrow_source(text, 1, 1);
    }
    for (size_t len = 1; len <= 200; len += quick ? 7 : 1)
        for (size_t at = 0; at < len; at++) {
            for (size_t i = 0; i < len; i++)
                text[i] = (uint8_t)('a' + i % 26);
            text[at] = (uint8_t)(0x80 + (at * 37 + len) % 128);
            check_narrow_source(text, len, 0);
            check_narrow_source(text, len, 1);
        }
    for (int trial = 0; trial < (quick ? 60 : 400); trial++) {
        size_t len = next_random() % 3000;
        unsigned density = next_random() % 4; /* none, few, some, all above 7F */
        for (size_t i = 0; i < len; i++) {
            unsigned r = next_random();
            int high = density == 3 || (density == 1 && r % 50 == 0) || (density == 2 && r % 4 == 0);
            text[i] = high ? (uint8_t)(0x80 | r >> 8) : (uint8_t)((r >> 8) % 0x80);
        }
        check_narrow_source(text, len, 0);
        check_narrow_source(text, len, 1);
    }
    printf("1. Latin-1 and ASCII into every form: %llu checks\n", checks);
}

/* Latin-1 (or ASCII) text into UTF-16 or UTF-32 under every backend at
 * every address of dst from a 64-byte boundary on (0..63 bytes past it, so
 * also at addresses that are no multiple of a code unit, as a slice of a
 * caller's out= buffer may be): exactly the reference's bytes, in a block
 * that ends where the output does, and nothing written before dst. */
static void check_widening_at_every_address(const uint8_t *src, size_t len, int from, int to)
{
    size_t unit = to == UTFKIT_UTF16LE || to == UTFKIT_UTF16BE ? 2 : 4;
    size_t needed = unit * len;
    uint8_t *expected = malloc(needed + 1);
    for (size_t i = 0; i < len; i++)
        encode_one(src[i], to, expected + unit * i);
    for (size_t b = 0; b < backend_count; b++) {
        utfkit_set_backend(backends[b]);
        for (size_t offset = 0; offset < 64; offset++) {
            /* (malloc's blocks begin at 16-byte boundaries at least: offsets
             * 0..63 from one reach every address mod 64 but a few) */
            size_t rounded = (offset + needed + 63) / 64 * 64;
            uint8_t *block = aligned_alloc(64, rounded);
            uint8_t *end_block = malloc(offset + needed);
            uint8_t *blocks[2] = {block, end_block};
            size_t sizes[2] = {rounded, offset + needed};
            for (int k = 0; k < 2; k++) {
                uint8_t *dst = blocks[k] + offset;
                memset(blocks[k], 0xA5, sizes[k]);
                utfkit_result result = utfkit_transcode(src, len, from, to, UTFKIT_STRICT, dst,
                                                        needed);
                int around_untouched = 1;
                for (size_t i = 0; i < sizes[k]; i++)
                    if (i < offset || i >= offset + needed)
                        around_untouched &= blocks[k][i] == 0xA5;
                CHECK(result.status == UTFKIT_OK && result.written == needed &&
                          memcmp(dst, expected, needed) == 0 && around_untouched,
                      "%s: %zu bytes -> form %d at dst %% 64 == %zu: status %d written %zu of "
                      "%zu, bytes around the output %s",
                      backends[b], len, to, (size_t)((uintptr_t)dst & 63), result.status,
                      result.written, needed, around_untouched ? "untouched" : "written");
            }
            free(block);
            free(end_block);
        }
    }
    utfkit_set_backend(NULL);
    free(expected);
}

static void section_1_destination_addresses(void)
{
    static const int wide_forms[] = {UTFKIT_UTF16LE, UTFKIT_UTF16BE, UTFKIT_UTF32LE,
                                     UTFKIT_UTF32BE};
    /* lengths around the blocks' vectors and the readers' least block (64) */
    static const size_t lengths[] = {1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 66, 79, 95, 127, 128,
                                     129, 191, 255, 256, 257, 300, 1000};
    uint8_t *text = malloc(1000);
    size_t tried = quick ? 8 : sizeof lengths / sizeof lengths[0];
    for (size_t l = 0; l < tried; l++) {
        size_t len = lengths[quick ? 4 + 2 * l : l];
        for (int ascii = 0; ascii <= 1; ascii++) {
            for (size_t i = 0; i < len; i++)
                text[i] = (uint8_t)(ascii ? next_random() % 0x80 : next_random());
            uint8_t *src = heap_copy(text, len);
            for (size_t f = 0; f < 4; f++)
                check_widening_at_every_address(src, len, ascii ? UTFKIT_ASCII : UTFKIT_LATIN1,
                                                wide_forms[f]);
            free(src);
        }
    }
    free(text);
    printf("1b. Latin-1 and ASCII into UTF-16/UTF-32 at every dst address: %llu checks\n", checks);
}

/* ASCII validation (the kernels' ascii_prefix_length, which loads from
 * 64-byte boundaries) at every address of src mod 64: a text of len bytes
 * 00..7F with at most one byte 80..FF, at `bad` (len: none), in a heap
 * block that ends where the text does.  utfkit_check reports that byte
 * where the reader's ASCII runs stop at it. */
static void check_ascii_at_every_address(size_t len, size_t bad)
{
    for (size_t offset = 0; offset < 64; offset++) {
        uint8_t *block = malloc(offset + len + 1);
        uint8_t *src = block + offset;
        for (size_t i = 0; i < len; i++)
            src[i] = (uint8_t)(i * 7 % 0x80);
        if (bad < len)
            src[bad] = (uint8_t)(0x80 | (bad * 13 + offset));
        for (size_t b = 0; b < backend_count; b++) {
            utfkit_set_backend(backends[b]);
            int valid = utfkit_validate(src, len, UTFKIT_ASCII);
            utfkit_result checked = utfkit_check(src, len, UTFKIT_ASCII);
            CHECK(valid == (bad >= len) &&
                      (bad >= len ? checked.status == UTFKIT_OK
                                  : checked.status == UTFKIT_INVALID_START && checked.position == bad),
                  "%s: ascii, %zu bytes at src %% 64 == %zu, byte 80..FF at %zu: validate %d, "
                  "check %d at %zu", backends[b], len, (size_t)((uintptr_t)src & 63), bad, valid,
                  checked.status, checked.position);
        }
        free(block);
    }
    utfkit_set_backend(NULL);
}

static void section_1_ascii_addresses(void)
{
    for (size_t len = 0; len <= 600; len += len < 300 ? (quick ? 7 : 1) : 37) {
        check_ascii_at_every_address(len, len);
        size_t places[] = {0, 1, len / 2, len - 1, 63, 64, 65, 255, 256, 257,
                           next_random() % (len + 1)};
        for (size_t k = 0; k < sizeof places / sizeof places[0]; k++)
            if (places[k] < len)
                check_ascii_at_every_address(len, places[k]);
    }
    printf("1c. ASCII validation at every src address: %llu checks\n", checks);
}

/* ---- 2. the Unicode forms into Latin-1 and ASCII ---- */

static void check_narrow_target(const uint32_t *code_points, size_t count)
{
    uint8_t *bytes = malloc(4 * count + 4);
    uint8_t *expected = malloc(count + 1), *got = malloc(count + 1);
    for (size_t f = 0; f < UNICODE_FORMS; f++) {
        int from = unicode_forms[f];
        size_t len = encode_all(code_points, count, from, bytes);
        uint8_t *src = heap_copy(bytes, len);
        for (int to = UTFKIT_LATIN1; to <= UTFKIT_ASCII; to++) {
            uint32_t limit = to == UTFKIT_LATIN1 ? 0xFF : 0x7F;
            for (int errors = UTFKIT_STRICT; errors <= UTFKIT_IGNORE; errors++) {
                size_t needed = 0, first_above = SIZE_MAX;
                for (size_t k = 0; k < count; k++) {
                    if (code_points[k] <= limit) {
                        expected[needed++] = (uint8_t)code_points[k];
                        continue;
                    }
                    if (first_above == SIZE_MAX)
                        first_above = k;
                    if (errors == UTFKIT_REPLACE)
                        expected[needed++] = '?';
                }
                for (size_t b = 0; b < backend_count; b++) {
                    utfkit_set_backend(backends[b]);
                    if (errors == UTFKIT_STRICT && first_above != SIZE_MAX) {
                        utfkit_result result = utfkit_transcode(src, len, from, to, errors, got,
                                                                count + 1);
                        CHECK(result.status == UTFKIT_UNENCODABLE && result.written == first_above,
                              "%s: form %d -> %d: unencodable at %zu reported %d at %zu",
                              backends[b], from, to, first_above, result.status, result.written);
                        continue;
                    }
                    utfkit_result result = convert_exactly(src, len, from, to, errors, got, needed);
                    CHECK(result.status == UTFKIT_OK && result.written == needed &&
                              memcmp(got, expected, needed) == 0,
                          "%s: form %d (%zu code points) -> %d errors %d: status %d written %zu "
                          "of %zu", backends[b], from, count, to, errors, result.status,
                          result.written, needed);
                }
            }
        }
        free(src);
    }
    utfkit_set_backend(NULL);
    free(bytes);
    free(expected);
    free(got);
}

/* Damaged UTF-8 into Latin-1, `offset` bytes after the start of a heap
 * block of exactly offset + len bytes (the avx512 block reads from the
 * 64-byte boundaries of src, so where they fall matters): every kernel
 * gives scalar's answer. */
static void check_kernels_agree_at(const uint8_t *bytes, size_t len, size_t offset)
{
    uint8_t *block = malloc(offset + len != 0 ? offset + len : 1);
    memcpy(block + offset, bytes, len);
    uint8_t *src = block + offset;
    uint8_t *reference = malloc(len + 1), *got = malloc(len + 1);
    for (int errors = UTFKIT_STRICT; errors <= UTFKIT_IGNORE; errors++) {
        utfkit_set_backend("scalar");
        utfkit_result expected = utfkit_transcode(src, len, UTFKIT_UTF8, UTFKIT_LATIN1, errors,
                                                  reference, len + 1);
        for (size_t b = 1; b < backend_count; b++) {
            utfkit_set_backend(backends[b]);
            utfkit_result result = utfkit_transcode(src, len, UTFKIT_UTF8, UTFKIT_LATIN1, errors,
                                                    got, len + 1);
            size_t compared = result.written < len + 1 ? result.written : len + 1;
            CHECK(result.status == expected.status && result.position == expected.position &&
                      result.subpart_length == expected.subpart_length &&
                      result.written == expected.written &&
                      (result.status != UTFKIT_OK || memcmp(got, reference, compared) == 0),
                  "%s vs scalar, damaged UTF-8 (%zu bytes) errors %d: status %d/%d position "
                  "%zu/%zu written %zu/%zu", backends[b], len, errors, result.status,
                  expected.status, result.position, expected.position, result.written,
                  expected.written);
        }
    }
    utfkit_set_backend(NULL);
    free(block);
    free(reference);
    free(got);
}

static void check_kernels_agree(const uint8_t *bytes, size_t len)
{
    check_kernels_agree_at(bytes, len, 0);
}

static uint32_t random_code_point(unsigned mix)
{
    uint32_t r = next_random();
    switch (mix == 0 ? 0 : r % (mix + 1)) {
    case 0:
        return 0x20 + r % 0x5F; /* ASCII */
    case 1:
        return 0x80 + (r >> 4) % 0x80; /* U+0080..U+00FF: a pair C2..C3 xx */
    case 2:
        return 0x100 + (r >> 4) % 0x700; /* beyond Latin-1, 2 bytes of UTF-8 */
    default: {
        uint32_t code_point = (r >> 4) % 0x10FFFF;
        return code_point >= 0xD800 && code_point <= 0xDFFF ? 0x20AC : code_point;
    }
    }
}

static void section_2(void)
{
    uint32_t code_points[1500];
    for (size_t count = 1; count <= 140; count += quick ? 5 : 1)
        for (size_t at = 0; at < count; at++) {
            for (size_t k = 0; k < count; k++)
                code_points[k] = k % 3 == 0 ? 0xE9 : 'a' + k % 26;
            code_points[at] = at % 2 ? 0x20AC : 0x1F600;
            check_narrow_target(code_points, count);
        }
    for (int trial = 0; trial < (quick ? 60 : 400); trial++) {
        size_t count = next_random() % 1500;
        unsigned mix = next_random() % 4;
        for (size_t k = 0; k < count; k++)
            code_points[k] = random_code_point(mix == 3 ? (next_random() % 50 == 0 ? 3 : 1) : mix);
        check_narrow_target(code_points, count);
    }
    uint8_t utf8[4 * 1500];
    for (int trial = 0; trial < (quick ? 300 : 3000); trial++) {
        size_t count = next_random() % 400;
        for (size_t k = 0; k < count; k++)
            code_points[k] = random_code_point(next_random() % 2);
        size_t len = encode_all(code_points, count, UTFKIT_UTF8, utf8);
        for (unsigned damage = next_random() % 4; damage > 0 && len > 0; damage--) {
            size_t at = next_random() % len;
            uint32_t kind = next_random() % 3;
            utf8[at] = kind == 0 ? (uint8_t)next_random() : kind == 1 ? 0xC3 : 0x80;
        }
        if (len > 0 && next_random() % 4 == 0)
            len--; /* cut inside the last character, now and then */
        check_kernels_agree(utf8, len);
    }
    /* Mostly U+0080..U+00FF (pairs C2..C3 xx) between ASCII, long enough
     * for the avx512 block's stretches, at every offset from a 64-byte
     * boundary (malloc's blocks are 16-byte aligned at least, so some
     * offset in 0..63 of them is each one), damaged now and then. */
    for (int trial = 0; trial < (quick ? 6 : 40); trial++) {
        size_t count = 300 + next_random() % 500;
        for (size_t k = 0; k < count; k++)
            code_points[k] = random_code_point(next_random() % 3 == 0);
        size_t len = encode_all(code_points, count, UTFKIT_UTF8, utf8);
        if (trial % 2) {
            size_t at = next_random() % len;
            uint32_t kind = next_random() % 3;
            utf8[at] = kind == 0 ? (uint8_t)next_random() : kind == 1 ? 0xC3 : 0x80;
        }
        for (size_t offset = 0; offset < 64; offset++)
            check_kernels_agree_at(utf8, len, offset);
    }
    printf("2. every form into Latin-1 and ASCII: %llu checks\n", checks);
}

/* ---- 3. bounded conversion ---- */

/* Calls utfkit_transcode_partial on the rest with a dst of `size` bytes
 * until all is consumed or it stops; compares the output so far and the
 * first error with utfkit_transcode's. */
static void check_partial(const uint8_t *bytes, size_t len, int from, int to, int errors,
                          size_t size)
{
    uint8_t *src = heap_copy(bytes, len);
    size_t whole_cap = 4 * len + 8;
    uint8_t *whole = malloc(whole_cap), *joined = malloc(whole_cap);
    utfkit_result expected = utfkit_transcode(src, len, from, to, errors, whole, whole_cap);
    uint8_t *dst = malloc(size);
    size_t consumed = 0, written = 0;
    utfkit_result stop = {UTFKIT_OK, 0, 0, 0};
    while (consumed < len) {
        utfkit_result step = utfkit_transcode_partial(src + consumed, len - consumed, from, to,
                                                      errors, 1, dst, size);
        if (step.written > size || written + step.written > whole_cap) {
            CHECK(0, "partial wrote %zu into %zu", step.written, size);
            break;
        }
        memcpy(joined + written, dst, step.written);
        written += step.written;
        if (step.status != UTFKIT_OK && step.status != UTFKIT_OUTPUT_TOO_SMALL) {
            stop = step;
            stop.position += consumed;
            break;
        }
        if (step.position == 0 && step.written == 0) {
            stop = step;
            break;
        }
        consumed += step.position;
    }
    if (expected.status == UTFKIT_OK) {
        CHECK(consumed == len && written == expected.written &&
                  memcmp(joined, whole, written) == 0,
              "partial (form %d -> %d, errors %d, size %zu, %zu bytes): consumed %zu written %zu "
              "of %zu", from, to, errors, size, len, consumed, written, expected.written);
    } else if (expected.status != UTFKIT_UNENCODABLE && stop.status != UTFKIT_UNENCODABLE) {
        /* (calls convert in order: a character `to` cannot encode before
         * the ill-formed subsequence is met first, while transcode, as
         * CPython's decode().encode(), reports the decode error) */
        CHECK(stop.status == expected.status && stop.position == expected.position &&
                  stop.subpart_length == expected.subpart_length,
              "partial (form %d -> %d, size %zu, %zu bytes): error %d at %zu (+%zu), transcode "
              "%d at %zu (+%zu)", from, to, size, len, stop.status, stop.position,
              stop.subpart_length, expected.status, expected.position, expected.subpart_length);
    }
    free(src);
    free(whole);
    free(joined);
    free(dst);
}

static void section_3(void)
{
    static const uint8_t lead[] = {0xED, 0xA0, 0x80}, trail[] = {0xED, 0xB0, 0x80};
    static const uint8_t after[][2] = {{0xFF, 0}, {0x80, 0}, {'z', 0xFF}};
    uint8_t text[400];
    /* WTF-8 section 4.3: a pair written as two sequences, then a later error */
    for (size_t before = 0; before <= 72; before += quick ? 9 : 1)
        for (size_t a = 0; a < 3; a++) {
            size_t len = 0;
            for (; len < before; len++)
                text[len] = 'a';
            memcpy(text + len, lead, 3);
            memcpy(text + len + 3, trail, 3);
            len += 6;
            text[len++] = after[a][0];
            if (after[a][1])
                text[len++] = after[a][1];
            for (size_t size = 6; size <= 80; size += quick ? 11 : 1) {
                check_partial(text, len, UTFKIT_WTF8, UTFKIT_UTF16LE, UTFKIT_STRICT, size);
                check_partial(text, len, UTFKIT_WTF8, UTFKIT_UTF8, UTFKIT_REPLACE, size);
            }
        }
    /* Latin-1, UTF-8 and WTF-8 text, clean and damaged, every output size */
    static const int pairs[][2] = {
        {UTFKIT_LATIN1, UTFKIT_UTF8},   {UTFKIT_LATIN1, UTFKIT_UTF16LE},
        {UTFKIT_UTF8, UTFKIT_LATIN1},   {UTFKIT_UTF8, UTFKIT_ASCII},
        {UTFKIT_WTF8, UTFKIT_UTF16BE},  {UTFKIT_UTF16LE, UTFKIT_LATIN1},
        {UTFKIT_ASCII, UTFKIT_UTF32LE}, {UTFKIT_WTF8, UTFKIT_LATIN1},
    };
    for (int trial = 0; trial < (quick ? 40 : 300); trial++) {
        uint32_t code_points[100];
        size_t count = next_random() % 100;
        for (size_t k = 0; k < count; k++)
            code_points[k] = random_code_point(next_random() % 4);
        for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
            int from = pairs[p][0], to = pairs[p][1];
            size_t len;
            if (from == UTFKIT_LATIN1 || from == UTFKIT_ASCII) {
                len = count;
                for (size_t k = 0; k < count; k++)
                    text[k] = (uint8_t)code_points[k];
            } else {
                len = encode_all(code_points, count, from == UTFKIT_WTF8 ? UTFKIT_UTF8 : from,
                                 text);
            }
            if (len > 0 && next_random() % 3 == 0)
                text[next_random() % len] = next_random() % 2 ? 0xED : 0xFF;
            for (int errors = UTFKIT_STRICT; errors <= UTFKIT_IGNORE; errors++)
                for (size_t size = 6; size <= 60; size += quick ? 13 : 3)
                    for (size_t b = 0; b < backend_count; b += quick ? backend_count - 1 : 1) {
                        utfkit_set_backend(backends[b]);
                        check_partial(text, len, from, to, errors, size);
                        if (backend_count == 1)
                            break;
                    }
        }
    }
    utfkit_set_backend(NULL);
    printf("3. bounded conversion: %llu checks\n", checks);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        quick |= strcmp(argv[i], "--quick") == 0;
    find_backends();
    printf("backends:");
    for (size_t b = 0; b < backend_count; b++)
        printf(" %s", backends[b]);
    printf("\n");
    section_1();
    section_1_destination_addresses();
    section_1_ascii_addresses();
    section_2();
    section_3();
    if (failures != 0) {
        printf("%llu checks, %llu FAILED\n", checks, failures);
        return 1;
    }
    printf("%llu checks under %zu backend(s): all passed\n", checks, backend_count);
    return 0;
}
