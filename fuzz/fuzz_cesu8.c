/*
 * fuzz_cesu8.c -- CESU-8 (UTR #26) and Java's Modified UTF-8 through every
 * entry point: the checks of fuzz_utf8_family.h with either as the source,
 * and their round trips:
 *
 *   - well-formed CESU-8 / MUTF-8 -> UTF-16 -> back is the identity;
 *   - any 16-bit units -> MUTF-8 never fails and converts back to the same
 *     units (Java's String <-> modified UTF-8); -> CESU-8 fails exactly
 *     where UTF-16 itself is ill-formed;
 *   - the input read as UTF-16 / UTF-32 and written as CESU-8 / MUTF-8 is
 *     the same under every kernel, into room for all of it and into room
 *     cut short; so is the input read as UTF-8 (U+FFFD for what is
 *     ill-formed) and written as UTF-16 and UTF-32 first -- well-formed
 *     text long enough for the blocks, with the supplementary characters
 *     and U+0000 at which the writers cut the blocks' output.
 *
 * Input: byte 0 picks the form (even: CESU-8, odd: MUTF-8), byte 1 the cap
 * to try below the exact one; the rest is the text.
 */
#include "fuzz_utf8_family.h"

/* src converted from `from` to `to` into a heap block of exactly `cap`
 * bytes (the caller frees it). */
static uint8_t *convert_capped(const uint8_t *src, size_t len, int from, int to, int mode,
                               size_t cap, utfkit_result *result)
{
    uint8_t *dst = malloc(cap ? cap : 1);
    if (dst == NULL)
        abort();
    *result = utfkit_transcode(src, len, from, to, mode, cap ? dst : NULL, cap);
    return dst;
}

/* How much of `output` (CESU-8 or MUTF-8, `len` bytes) a writer with room
 * for `cap` bytes has whole: the longest prefix that ends between
 * characters, a surrogate pair being one (sink_drive.h). */
static size_t whole_prefix(const uint8_t *output, size_t len, size_t cap)
{
    size_t p = cap < len ? cap : len;
    while (p > 0 && p < len && (output[p] & 0xC0) == 0x80)
        p--;
    if (p >= 3 && p < len && output[p - 3] == 0xED && (output[p - 2] & 0xF0) == 0xA0 &&
        output[p] == 0xED && (output[p + 1] & 0xF0) == 0xB0)
        p -= 3; /* between the halves of a pair */
    return p;
}

/* The text read as UTF-16 and UTF-32 of either byte order, written as
 * CESU-8 and MUTF-8 (the UTF-8 blocks, their output cut before a
 * supplementary character or U+0000; the steps for the rest), every errors
 * mode: every kernel gives the scalar kernel's result and bytes; and into
 * room cap_cut bytes short of the whole, every kernel reports the same and
 * holds the same whole prefix of the output. */
static void writers_agree(const uint8_t *src, size_t len, size_t cap_cut)
{
    static const int sources[] = {UTFKIT_UTF16LE, UTFKIT_UTF16BE, UTFKIT_UTF32LE, UTFKIT_UTF32BE};
    static const int targets[] = {UTFKIT_CESU8, UTFKIT_MUTF8};
    const char *kernels[FUZZ_MAX_KERNELS];
    size_t kernel_count = fuzz_kernels(kernels);
    for (int f = 0; f < 4; f++)
        for (int t = 0; t < 2; t++)
            for (int mode = 0; mode < FAMILY_MODES; mode++) {
                utfkit_result expected, got;
                fuzz_use_kernel("scalar");
                uint8_t *reference = family_convert(src, len, sources[f], targets[t], mode, &expected);
                for (size_t k = 1; k < kernel_count; k++) {
                    fuzz_use_kernel(kernels[k]);
                    uint8_t *output = family_convert(src, len, sources[f], targets[t], mode, &got);
                    FUZZ_REQUIRE(fuzz_same_result(got, expected), "%s: %d->%d mode %d differs",
                                 kernels[k], sources[f], targets[t], mode);
                    if (got.status == UTFKIT_OK)
                        FUZZ_REQUIRE(memcmp(output, reference, got.written) == 0,
                                     "%s: %d->%d mode %d output differs", kernels[k], sources[f],
                                     targets[t], mode);
                    free(output);
                }
                if (expected.status == UTFKIT_OK && cap_cut != 0 && expected.written != 0) {
                    size_t cap = expected.written > cap_cut ? expected.written - cap_cut : 0;
                    size_t whole = whole_prefix(reference, expected.written, cap);
                    for (size_t k = 0; k < kernel_count; k++) {
                        fuzz_use_kernel(kernels[k]);
                        uint8_t *output = convert_capped(src, len, sources[f], targets[t], mode,
                                                         cap, &got);
                        FUZZ_REQUIRE(got.status == UTFKIT_OUTPUT_TOO_SMALL &&
                                     got.written == expected.written,
                                     "%s: %d->%d mode %d cap %zu: status %d written %zu",
                                     kernels[k], sources[f], targets[t], mode, cap, got.status,
                                     got.written);
                        FUZZ_REQUIRE(memcmp(output, reference, whole) == 0,
                                     "%s: %d->%d mode %d cap %zu: not a prefix of the output",
                                     kernels[k], sources[f], targets[t], mode, cap);
                        free(output);
                    }
                }
                free(reference);
            }
}

/* The input read as UTF-8, U+FFFD for each ill-formed subsequence, as
 * well-formed UTF-32 and UTF-16 (text, not random units), through
 * writers_agree. */
static void writers_agree_on_text(const uint8_t *src, size_t len, size_t cap_cut)
{
    static const int forms[] = {UTFKIT_UTF32LE, UTFKIT_UTF16BE};
    fuzz_use_kernel("scalar");
    for (int f = 0; f < 2; f++) {
        utfkit_result units;
        uint8_t *text = family_convert(src, len, UTFKIT_UTF8, forms[f], UTFKIT_REPLACE, &units);
        writers_agree(text, units.written, cap_cut);
        free(text);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    int from = data[0] % 2 ? UTFKIT_MUTF8 : UTFKIT_CESU8;
    size_t cap_cut = data[1];
    size_t len = size - 2;
    uint8_t *src = fuzz_copy(data + 2, len);
    family_fuzz(src, len, from, cap_cut);
    writers_agree(src, len, cap_cut);
    writers_agree_on_text(src, len, cap_cut);
    fuzz_use_kernel("scalar");
    if (utfkit_validate(src, len, from)) {
        utfkit_result units, back;
        uint8_t *utf16 = family_convert(src, len, from, UTFKIT_UTF16BE, UTFKIT_STRICT, &units);
        FUZZ_REQUIRE(units.status == UTFKIT_OK, "to UTF-16 failed");
        uint8_t *again = family_convert(utf16, units.written, UTFKIT_UTF16BE, from, UTFKIT_STRICT,
                                        &back);
        FUZZ_REQUIRE(back.status == UTFKIT_OK && back.written == len && memcmp(again, src, len) == 0,
                     "form -> UTF-16 -> form is not the identity");
        free(utf16);
        free(again);
    }
    if (len % 2 == 0) {
        utfkit_result modified, back, cesu8;
        uint8_t *mutf8 = family_convert(src, len, UTFKIT_UTF16LE, UTFKIT_MUTF8, UTFKIT_STRICT, &modified);
        FUZZ_REQUIRE(modified.status == UTFKIT_OK, "UTF-16 -> MUTF-8 failed");
        FUZZ_REQUIRE(utfkit_validate(mutf8, modified.written, UTFKIT_MUTF8), "MUTF-8 ill-formed");
        FUZZ_REQUIRE(memchr(mutf8, 0, modified.written) == NULL, "a 00 byte in MUTF-8");
        uint8_t *units = family_convert(mutf8, modified.written, UTFKIT_MUTF8, UTFKIT_UTF16LE,
                                        UTFKIT_STRICT, &back);
        FUZZ_REQUIRE(back.status == UTFKIT_OK && back.written == len && memcmp(units, src, len) == 0,
                     "UTF-16 -> MUTF-8 -> UTF-16 is not the identity");
        uint8_t *plain = family_convert(src, len, UTFKIT_UTF16LE, UTFKIT_CESU8, UTFKIT_STRICT, &cesu8);
        utfkit_result utf16_check = utfkit_check(src, len, UTFKIT_UTF16LE);
        FUZZ_REQUIRE(cesu8.status == utf16_check.status && cesu8.position == utf16_check.position,
                     "UTF-16 -> CESU-8 fails where UTF-16 does not (or not where it does)");
        free(mutf8);
        free(units);
        free(plain);
    }
    free(src);
    return 0;
}
