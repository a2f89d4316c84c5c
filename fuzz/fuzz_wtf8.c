/*
 * fuzz_wtf8.c -- WTF-8 (seed 003) through every entry point: the checks of
 * fuzz_utf8_family.h with WTF-8 as the source, and the round trips seed
 * 003 section 6 promises, with the same bytes read as UTF-16 too:
 *
 *   - any 16-bit units -> WTF-8 never fails, and converts back to the same
 *     units (section 6.3);
 *   - WTF-8 -> UTF-8 with replace is as long as the input (section 6.4);
 *   - WTF-8 <-> MUTF-8 is lossless both ways.
 *
 * Input: byte 0 is the cap to try below the exact one; the rest is the
 * text.
 */
#include "fuzz_utf8_family.h"

static void units_round_trip(const uint8_t *src, size_t len, int utf16)
{
    utfkit_result to_wtf8, back;
    uint8_t *wtf8 = family_convert(src, len, utf16, UTFKIT_WTF8, UTFKIT_STRICT, &to_wtf8);
    if (len % 2 != 0) {
        FUZZ_REQUIRE(to_wtf8.status == UTFKIT_END_OF_DATA && to_wtf8.position == len - 1,
                     "odd byte: status %d", to_wtf8.status);
        free(wtf8);
        return;
    }
    FUZZ_REQUIRE(to_wtf8.status == UTFKIT_OK, "UTF-16 -> WTF-8 failed: %d", to_wtf8.status);
    FUZZ_REQUIRE(utfkit_validate(wtf8, to_wtf8.written, UTFKIT_WTF8), "WTF-8 output ill-formed");
    FUZZ_REQUIRE(utfkit_count(wtf8, to_wtf8.written, UTFKIT_WTF8) <= len / 2, "count");
    uint8_t *units = family_convert(wtf8, to_wtf8.written, UTFKIT_WTF8, utf16, UTFKIT_STRICT, &back);
    FUZZ_REQUIRE(back.status == UTFKIT_OK && back.written == len && memcmp(units, src, len) == 0,
                 "UTF-16 -> WTF-8 -> UTF-16 is not the identity");
    free(units);
    free(wtf8);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t cap_cut = data[0];
    size_t len = size - 1;
    uint8_t *src = fuzz_copy(data + 1, len);
    family_fuzz(src, len, UTFKIT_WTF8, cap_cut);
    fuzz_use_kernel("scalar");
    units_round_trip(src, len, UTFKIT_UTF16LE);
    units_round_trip(src, len, UTFKIT_UTF16BE);
    if (utfkit_validate(src, len, UTFKIT_WTF8)) {
        utfkit_result lossy, mutf8, back;
        uint8_t *utf8 = family_convert(src, len, UTFKIT_WTF8, UTFKIT_UTF8, UTFKIT_REPLACE, &lossy);
        FUZZ_REQUIRE(lossy.written == len, "lossy UTF-8 is %zu bytes, WTF-8 %zu", lossy.written, len);
        uint8_t *modified = family_convert(src, len, UTFKIT_WTF8, UTFKIT_MUTF8, UTFKIT_STRICT, &mutf8);
        FUZZ_REQUIRE(mutf8.status == UTFKIT_OK, "WTF-8 -> MUTF-8 failed");
        uint8_t *wtf8 = family_convert(modified, mutf8.written, UTFKIT_MUTF8, UTFKIT_WTF8,
                                       UTFKIT_STRICT, &back);
        FUZZ_REQUIRE(back.status == UTFKIT_OK && back.written == len && memcmp(wtf8, src, len) == 0,
                     "WTF-8 -> MUTF-8 -> WTF-8 is not the identity");
        free(utf8);
        free(modified);
        free(wtf8);
    }
    free(src);
    return 0;
}
