/*
 * transcode.c -- the form-generic entry points: conversion between any two
 * encoding forms, its exact length, and validation / first error / counting
 * for every form, dispatched to the reader of the source form (readers.h).
 */
#include "readers.h"
#include "utfkit.h"

#define STRETCH 4096 /* counted with 32-bit sums, which cannot overflow */

static int is_form(int form)
{
    return form >= UTFKIT_UTF8 && form <= UTFKIT_MUTF8;
}

/* The forms of section 3.9 (UTF-8, UTF-16, UTF-32), whose well-formed
 * input converts without errors and whose output lengths are counted. */
static int is_unicode_form(int form)
{
    return form >= UTFKIT_UTF8 && form <= UTFKIT_UTF32BE;
}

static utfkit_result read_into(const uint8_t *src, size_t len, int from, int to, int errors,
                               utfkit_sink *sink)
{
    switch (from) {
    case UTFKIT_UTF8:
        return utf8_transcode(src, len, to, errors, sink);
    case UTFKIT_UTF16LE:
    case UTFKIT_UTF16BE:
        return utf16_transcode(src, len, from == UTFKIT_UTF16BE, to, errors, sink);
    case UTFKIT_WTF8:
        return wtf8_transcode(src, len, to, errors, sink);
    case UTFKIT_CESU8:
    case UTFKIT_MUTF8:
        return cesu8_transcode(src, len, from == UTFKIT_MUTF8, to, errors, sink);
    default:
        return utf32_transcode(src, len, from == UTFKIT_UTF32BE, to, errors, sink);
    }
}

/* A code unit of any form becomes at most 4 bytes in any other (a UTF-8
 * byte becomes a 4-byte UTF-32 unit at most), so output lengths cannot
 * overflow a size_t when len <= SIZE_MAX / 4. */
static int arguments_are_sound(size_t len, int from, int to, int errors)
{
    return len <= SIZE_MAX / 4 && is_form(from) && (is_form(to) || to == UTFKIT_COUNT_ONLY) &&
           errors >= UTFKIT_STRICT && errors <= UTFKIT_IGNORE;
}

static const utfkit_result unsound = {UTFKIT_TOO_LARGE, 0, 0, 0};
static const utfkit_result overlapping = {UTFKIT_OVERLAPPING_BUFFERS, 0, 0, 0};

/* Compared as integers: the two ranges may belong to different objects. */
static int ranges_overlap(const uint8_t *src, size_t len, const uint8_t *dst, size_t cap)
{
    uintptr_t source = (uintptr_t)src, target = (uintptr_t)dst;
    return len != 0 && cap != 0 && source < target + cap && target < source + len;
}

utfkit_result utfkit_transcode(const uint8_t *src, size_t len, int from, int to, int errors,
                               uint8_t *dst, size_t cap)
{
    if (!arguments_are_sound(len, from, to, errors) || to == UTFKIT_COUNT_ONLY)
        return unsound;
    if (ranges_overlap(src, len, dst, cap))
        return overlapping;
    utfkit_sink sink = sink_over(dst, cap);
    return read_into(src, len, from, to, errors, &sink);
}

int64_t utfkit_transcode_packed(const uint8_t *src, size_t len, int how, uint8_t *dst, size_t cap)
{
    utfkit_result result = utfkit_transcode(src, len, how & 0xF, (how >> 4) & 0xF, (how >> 8) & 0xF,
                                            dst, cap);
    if (result.status != UTFKIT_OK || result.written > (size_t)INT64_MAX)
        return -1 - (int64_t)(result.status != UTFKIT_OK ? result.status : UTFKIT_TOO_LARGE);
    return (int64_t)result.written;
}

utfkit_result utfkit_transcoded_length(const uint8_t *src, size_t len, int from, int to,
                                       int errors)
{
    if (!arguments_are_sound(len, from, to, errors) || to == UTFKIT_COUNT_ONLY)
        return unsound;
    if (is_unicode_form(from) && is_unicode_form(to) && utfkit_validate(src, len, from)) {
        /* Well-formed: counting is much faster than a conversion. */
        utfkit_result counted = {UTFKIT_OK, len, 0, utfkit_well_formed_length(src, len, from, to)};
        return counted;
    }
    utfkit_sink sink = sink_over(NULL, 0);
    utfkit_result result = read_into(src, len, from, to, errors, &sink);
    if (result.status == UTFKIT_OUTPUT_TOO_SMALL)
        result.status = UTFKIT_OK;
    return result;
}

utfkit_result utfkit_check(const uint8_t *src, size_t len, int form)
{
    if (form == UTFKIT_UTF8)
        return utfkit_utf8_check(src, len);
    if (!arguments_are_sound(len, form, UTFKIT_COUNT_ONLY, UTFKIT_STRICT))
        return unsound;
    utfkit_sink sink = sink_over(NULL, 0);
    utfkit_result result = read_into(src, len, form, UTFKIT_COUNT_ONLY, UTFKIT_STRICT, &sink);
    result.written = 0;
    return result;
}

/* 1 if src has no byte F0..FF, nor 00 when zero_is_ill_formed.  For
 * well-formed UTF-8 this says it is CESU-8 (no 4-byte form) or MUTF-8. */
static int has_no_4_byte_lead(const uint8_t *src, size_t len, int zero_is_ill_formed)
{
    for (size_t i = 0; i < len;) {
        size_t end = len - i > STRETCH ? i + STRETCH : len;
        uint32_t found = 0;
        for (; i < end; i++)
            found |= (src[i] >= 0xF0) | (zero_is_ill_formed & (src[i] == 0));
        if (found)
            return 0;
    }
    return 1;
}

int utfkit_validate(const uint8_t *src, size_t len, int form)
{
    if (form == UTFKIT_UTF8)
        return utfkit_utf8_validate(src, len);
    if (form == UTFKIT_WTF8 || form == UTFKIT_CESU8 || form == UTFKIT_MUTF8) {
        /* Text in these forms is mostly UTF-8 as well: the fast UTF-8
         * validation settles it, the full reader runs only if it fails. */
        if (utfkit_utf8_validate(src, len) &&
            (form == UTFKIT_WTF8 || has_no_4_byte_lead(src, len, form == UTFKIT_MUTF8)))
            return 1;
    }
    return utfkit_check(src, len, form).status == UTFKIT_OK;
}

size_t utfkit_count(const uint8_t *src, size_t len, int form)
{
    if (form == UTFKIT_UTF8)
        return utfkit_utf8_count(src, len);
    if (!arguments_are_sound(len, form, UTFKIT_COUNT_ONLY, UTFKIT_REPLACE))
        return 0;
    utfkit_sink sink = sink_over(NULL, 0);
    return read_into(src, len, form, UTFKIT_COUNT_ONLY, UTFKIT_REPLACE, &sink).written;
}

/* ---- output lengths of well-formed input, by counting ---- */

/* UTF-8: characters are the bytes that are not continuation bytes (as
 * signed bytes, 80..BF are the values below -64); supplementary ones are
 * those with a 4-byte lead byte, F0..F4. */
static void utf8_census(const uint8_t *src, size_t len, size_t *characters, size_t *supplementary)
{
    size_t continuation = 0, four = 0;
    for (size_t i = 0; i < len;) {
        size_t end = len - i > STRETCH ? i + STRETCH : len;
        uint32_t c = 0, f = 0;
        for (; i < end; i++) {
            c += (int8_t)src[i] < -64;
            f += src[i] >= 0xF0;
        }
        continuation += c;
        four += f;
    }
    *characters = len - continuation;
    *supplementary = four;
}

/* UTF-16 or UTF-32 code units, by the UTF-8 length of their value: a
 * surrogate (one half of a pair) counts 2, so a pair counts 4. */
static UTFKIT_ALWAYS_INLINE size_t utf8_length_of_units(const uint8_t *src, size_t len,
                                                         size_t unit_size, int big_endian)
{
    size_t total = 0, units = len / unit_size;
    for (size_t k = 0; k < units;) {
        size_t end = units - k > STRETCH ? k + STRETCH : units;
        uint32_t stretch = 0;
        for (; k < end; k++) {
            uint32_t unit = unit_size == 2 ? load16(src + 2 * k, big_endian)
                                           : load32(src + 4 * k, big_endian);
            uint32_t surrogate = unit_size == 2 && (unit & 0xF800) == 0xD800;
            stretch += 1 + (unit >= 0x80) + ((unit >= 0x800) & !surrogate) + (unit >= 0x10000);
        }
        total += stretch;
    }
    return total;
}

/* UTF-16 surrogate units (each half of a pair), or UTF-32 units above FFFF. */
static UTFKIT_ALWAYS_INLINE size_t supplementary_units(const uint8_t *src, size_t len,
                                                        size_t unit_size, int big_endian)
{
    size_t total = 0, units = len / unit_size;
    for (size_t k = 0; k < units;) {
        size_t end = units - k > STRETCH ? k + STRETCH : units;
        uint32_t stretch = 0;
        for (; k < end; k++) {
            if (unit_size == 2)
                stretch += (load16(src + 2 * k, big_endian) & 0xF800) == 0xD800;
            else
                stretch += load32(src + 4 * k, big_endian) >= 0x10000;
        }
        total += stretch;
    }
    return total;
}

size_t utfkit_well_formed_length(const uint8_t *src, size_t len, int from, int to)
{
    if (!arguments_are_sound(len, from, to, UTFKIT_STRICT) || to == UTFKIT_COUNT_ONLY)
        return 0;
    if (!is_unicode_form(from) || !is_unicode_form(to)) {
        /* WTF-8, CESU-8, MUTF-8: measured by a conversion (with REPLACE, so
         * that it is the length of WTF-8 to UTF-8's lossy conversion too). */
        utfkit_sink sink = sink_over(NULL, 0);
        return read_into(src, len, from, to, UTFKIT_REPLACE, &sink).written;
    }
    int to_utf16 = to == UTFKIT_UTF16LE || to == UTFKIT_UTF16BE;
    if (from == UTFKIT_UTF8) {
        if (to == UTFKIT_UTF8)
            return len;
        size_t characters, supplementary;
        utf8_census(src, len, &characters, &supplementary);
        return to_utf16 ? 2 * (characters + supplementary) : 4 * characters;
    }
    int from_utf16 = from == UTFKIT_UTF16LE || from == UTFKIT_UTF16BE;
    if (to == UTFKIT_UTF8) {
        /* one instance per source form, so that each loop is vectorised */
        switch (from) {
        case UTFKIT_UTF16LE: return utf8_length_of_units(src, len, 2, 0);
        case UTFKIT_UTF16BE: return utf8_length_of_units(src, len, 2, 1);
        case UTFKIT_UTF32LE: return utf8_length_of_units(src, len, 4, 0);
        default: return utf8_length_of_units(src, len, 4, 1);
        }
    }
    if (to_utf16 == from_utf16)
        return len; /* same form, either byte order */
    size_t supplementary;
    switch (from) {
    case UTFKIT_UTF16LE: supplementary = supplementary_units(src, len, 2, 0); break;
    case UTFKIT_UTF16BE: supplementary = supplementary_units(src, len, 2, 1); break;
    case UTFKIT_UTF32LE: supplementary = supplementary_units(src, len, 4, 0); break;
    default: supplementary = supplementary_units(src, len, 4, 1); break;
    }
    if (from_utf16) /* to UTF-32: a pair (two units) becomes one 4-byte unit */
        return 2 * len - 2 * supplementary;
    return len / 2 + 2 * supplementary; /* UTF-32 to UTF-16 */
}
