/*
 * transcode.c -- the form-generic entry points: conversion between any two
 * encoding forms, its exact length, and validation / first error / counting
 * for every form, dispatched to the reader of the source form (readers.h).
 */
#include "readers.h"
#include "utfkit.h"

static int is_form(int form)
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

utfkit_result utfkit_transcode(const uint8_t *src, size_t len, int from, int to, int errors,
                               uint8_t *dst, size_t cap)
{
    if (!arguments_are_sound(len, from, to, errors) || to == UTFKIT_COUNT_ONLY)
        return unsound;
    utfkit_sink sink = sink_over(dst, cap);
    return read_into(src, len, from, to, errors, &sink);
}

utfkit_result utfkit_transcoded_length(const uint8_t *src, size_t len, int from, int to,
                                       int errors)
{
    if (!arguments_are_sound(len, from, to, errors) || to == UTFKIT_COUNT_ONLY)
        return unsound;
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

int utfkit_validate(const uint8_t *src, size_t len, int form)
{
    if (form == UTFKIT_UTF8)
        return utfkit_utf8_validate(src, len);
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
