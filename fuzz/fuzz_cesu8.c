/*
 * fuzz_cesu8.c -- CESU-8 (UTR #26) and Java's Modified UTF-8 through every
 * entry point: the checks of fuzz_utf8_family.h with either as the source,
 * and their round trips:
 *
 *   - well-formed CESU-8 / MUTF-8 -> UTF-16 -> back is the identity;
 *   - any 16-bit units -> MUTF-8 never fails and converts back to the same
 *     units (Java's String <-> modified UTF-8); -> CESU-8 fails exactly
 *     where UTF-16 itself is ill-formed.
 *
 * Input: byte 0 picks the form (even: CESU-8, odd: MUTF-8), byte 1 the cap
 * to try below the exact one; the rest is the text.
 */
#include "fuzz_utf8_family.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    int from = data[0] % 2 ? UTFKIT_MUTF8 : UTFKIT_CESU8;
    size_t cap_cut = data[1];
    size_t len = size - 2;
    uint8_t *src = fuzz_copy(data + 2, len);
    family_fuzz(src, len, from, cap_cut);
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
