/*
 * transcode.c -- the form-generic entry points: conversion between any two
 * encoding forms, its exact length, and validation / first error / counting
 * for every form, dispatched to the reader of the source form (readers.h).
 */
#include <string.h>

#include "readers.h"
#include "utfkit.h"


/* UTF-E-8 and the original ISO 10646 UTF-8 (seeds 002, 004). */
static int is_utfe8_form(int form)
{
    return form == UTFKIT_UTFE8 || form == UTFKIT_UTF8_RFC2279;
}

static int is_form(int form)
{
    return (form >= UTFKIT_UTF8 && form <= UTFKIT_MUTF8) || form == UTFKIT_LATIN1 ||
           form == UTFKIT_ASCII || is_utfe8_form(form);
}

/* The forms of section 3.9 (UTF-8, UTF-16, UTF-32), whose well-formed
 * input converts without errors and whose output lengths are counted. */
static int is_unicode_form(int form)
{
    return form >= UTFKIT_UTF8 && form <= UTFKIT_UTF32BE;
}

utfkit_result transcode_read_into(const uint8_t *src, size_t len, int from, int to, int errors,
                                  utfkit_sink *sink)
{
    /* The other forms give only Unicode scalar values, which UTF-E-8 and
     * RFC 2279 write as UTF-8 does (seed 002 section 3.2, seed 004). */
    if (is_utfe8_form(to) && !is_utfe8_form(from))
        to = UTFKIT_UTF8;
    if (from == UTFKIT_LATIN1 || from == UTFKIT_ASCII)
        return latin1_transcode(src, len, from == UTFKIT_ASCII, to, errors, sink);
    if (to == UTFKIT_LATIN1 || to == UTFKIT_ASCII)
        return narrow_transcode(src, len, from, to, errors, sink);
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
    case UTFKIT_UTFE8:
        return utfe8_transcode(src, len, 0x7FFFFFFFFFFFFFFFull, to, errors, sink);
    case UTFKIT_UTF8_RFC2279:
        return utfe8_transcode(src, len, 0x7FFFFFFFull, to, errors, sink);
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
    int same_utf16 = from == to && (from == UTFKIT_UTF16LE || from == UTFKIT_UTF16BE);
    const utfkit_kernel *kernel = utfkit_kernel_active();
    if (same_utf16 && errors == UTFKIT_REPLACE && len % 2 == 0 && len != 0 && cap >= len &&
        kernel->utf16_copy_if_well_formed != NULL) {
        /* Well-formed UTF-16 (D91) is its own conversion: validated and
         * copied in one pass.  Only with REPLACE, whose output for an even
         * len is len bytes too (a U+FFFD, 2 bytes, for each ill-formed
         * unit), so that the reader below overwrites whatever a failed
         * copy left; with STRICT and IGNORE nothing may be written past
         * their shorter output. */
        if (kernel->utf16_copy_if_well_formed(src, len, from == UTFKIT_UTF16BE, dst)) {
            utfkit_result copied = {UTFKIT_OK, len, 0, len};
            return copied;
        }
    } else if (from == to && len != 0 && cap >= len &&
               (from == UTFKIT_UTF8 || (same_utf16 && (kernel->utf16_validate != NULL ||
                                                       kernel->utf16_validate_utf8_length != NULL))) &&
               utfkit_validate(src, len, from)) {
        /* Well-formed text (D92, D91) is its own conversion, whatever
         * `errors` says: one validation on the kernel's vectors, then a
         * copy. */
        memcpy(dst, src, len);
        utfkit_result copied = {UTFKIT_OK, len, 0, len};
        return copied;
    }
    utfkit_sink sink = sink_over(dst, cap);
    return transcode_read_into(src, len, from, to, errors, &sink);
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
    const utfkit_kernel *kernel = utfkit_kernel_active();
    int to_utf16 = to == UTFKIT_UTF16LE || to == UTFKIT_UTF16BE;
    int to_utf32 = to == UTFKIT_UTF32LE || to == UTFKIT_UTF32BE;
    if (from == UTFKIT_UTF8 && (to_utf16 || to_utf32) && kernel->utf8_validate_census != NULL) {
        /* Validation and the count in one pass over well-formed text. */
        utf8_census census;
        if (kernel->utf8_validate_census(src, len, &census) == len) {
            size_t length = to_utf16 ? 2 * census.utf16_units : 4 * census.code_points;
            return (utfkit_result){UTFKIT_OK, len, 0, length};
        }
    } else if ((from == UTFKIT_UTF16LE || from == UTFKIT_UTF16BE) && to == UTFKIT_UTF8 &&
               kernel->utf16_validate_utf8_length != NULL) {
        size_t length;
        if (kernel->utf16_validate_utf8_length(src, len, from == UTFKIT_UTF16BE, &length))
            return (utfkit_result){UTFKIT_OK, len, 0, length};
    } else if (is_unicode_form(from) && is_unicode_form(to) && utfkit_validate(src, len, from)) {
        /* Well-formed: counting is much faster than a conversion. */
        utfkit_result counted = {UTFKIT_OK, len, 0, utfkit_well_formed_length(src, len, from, to)};
        return counted;
    }
    utfkit_sink sink = sink_over(NULL, 0);
    utfkit_result result = transcode_read_into(src, len, from, to, errors, &sink);
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
    utfkit_result result = transcode_read_into(src, len, form, UTFKIT_COUNT_ONLY, UTFKIT_STRICT, &sink);
    result.written = 0;
    return result;
}

int utfkit_validate(const uint8_t *src, size_t len, int form)
{
    if (form == UTFKIT_UTF8)
        return utfkit_utf8_validate(src, len);
    if (form == UTFKIT_LATIN1)
        return 1; /* every byte is a code point */
    if (form == UTFKIT_ASCII)
        return utfkit_kernel_active()->ascii_prefix_length(src, len) == len;
    const utfkit_kernel *kernel = utfkit_kernel_active();
    if ((form == UTFKIT_UTF16LE || form == UTFKIT_UTF16BE) && kernel->utf16_validate != NULL)
        return kernel->utf16_validate(src, len, form == UTFKIT_UTF16BE);
    if ((form == UTFKIT_UTF16LE || form == UTFKIT_UTF16BE) && len % 2 == 0) {
        /* D91: units without surrogates are well-formed, and counting them
         * is cheap -- tried when the first KiB has none (text with
         * surrogates goes straight to the pairing check below). */
        size_t probe = len < 1024 ? len : 1024;
        int big_endian = form == UTFKIT_UTF16BE;
        if (kernel->utf16_surrogates(src, probe, big_endian) == 0 &&
            kernel->utf16_surrogates(src + probe, len - probe, big_endian) == 0)
            return 1;
    }
    if ((form == UTFKIT_UTF16LE || form == UTFKIT_UTF16BE) &&
        kernel->utf16_validate_utf8_length != NULL) {
        size_t length;
        return kernel->utf16_validate_utf8_length(src, len, form == UTFKIT_UTF16BE, &length);
    }
    if (form == UTFKIT_CESU8 || form == UTFKIT_MUTF8) {
        /* Without surrogates, both are UTF-8 of the BMP (and MUTF-8 has no
         * 00): one pass of the kernel settles it, the full reader runs only
         * if it fails. */
        if (kernel->utf8_bmp_validate(src, len, form == UTFKIT_MUTF8))
            return 1;
    } else if (form == UTFKIT_WTF8 || is_utfe8_form(form)) {
        /* Text in these forms is mostly UTF-8 as well: the fast UTF-8
         * validation settles it, the full reader runs only if it fails. */
        if (utfkit_utf8_validate(src, len))
            return 1;
    }
    return utfkit_check(src, len, form).status == UTFKIT_OK;
}

size_t utfkit_ascii_length(const uint8_t *src, size_t len)
{
    return utfkit_kernel_active()->ascii_prefix_length(src, len);
}

size_t utfkit_count(const uint8_t *src, size_t len, int form)
{
    if (form == UTFKIT_UTF8)
        return utfkit_utf8_count(src, len);
    if (form == UTFKIT_LATIN1 || form == UTFKIT_ASCII)
        return len; /* a character, or one U+FFFD (ASCII 80..FF), per byte */
    if (!arguments_are_sound(len, form, UTFKIT_COUNT_ONLY, UTFKIT_REPLACE))
        return 0;
    utfkit_sink sink = sink_over(NULL, 0);
    return transcode_read_into(src, len, form, UTFKIT_COUNT_ONLY, UTFKIT_REPLACE, &sink).written;
}

/* ---- output lengths of well-formed input, by counting ----
 *
 * The active kernel counts (kernels.h; csrc/lengths.c is the reference). */

size_t utfkit_well_formed_length(const uint8_t *src, size_t len, int from, int to)
{
    if (!arguments_are_sound(len, from, to, UTFKIT_STRICT) || to == UTFKIT_COUNT_ONLY)
        return 0;
    if (!is_unicode_form(from) || !is_unicode_form(to)) {
        /* WTF-8, CESU-8, MUTF-8: measured by a conversion (with REPLACE, so
         * that it is the length of WTF-8 to UTF-8's lossy conversion too). */
        utfkit_sink sink = sink_over(NULL, 0);
        return transcode_read_into(src, len, from, to, UTFKIT_REPLACE, &sink).written;
    }
    const utfkit_kernel *kernel = utfkit_kernel_active();
    int to_utf16 = to == UTFKIT_UTF16LE || to == UTFKIT_UTF16BE;
    if (from == UTFKIT_UTF8) {
        if (to == UTFKIT_UTF8)
            return len;
        /* D91: a surrogate pair for each supplementary character; D90: one
         * 4-byte unit for each character. */
        return to_utf16 ? 2 * kernel->utf8_utf16_units(src, len)
                        : 4 * kernel->utf8_code_points(src, len);
    }
    int from_utf16 = from == UTFKIT_UTF16LE || from == UTFKIT_UTF16BE;
    int big_endian = from == UTFKIT_UTF16BE || from == UTFKIT_UTF32BE;
    if (to == UTFKIT_UTF8)
        return from_utf16 ? kernel->utf16_utf8_length(src, len, big_endian)
                          : kernel->utf32_utf8_length(src, len, big_endian);
    if (to_utf16 == from_utf16)
        return len; /* same form, either byte order */
    if (from_utf16) /* to UTF-32: a pair (two units) becomes one 4-byte unit */
        return 2 * len - 2 * kernel->utf16_surrogates(src, len, big_endian);
    /* UTF-32 to UTF-16: a supplementary character becomes a pair */
    return len / 2 + 2 * kernel->utf32_supplementary(src, len, big_endian);
}
