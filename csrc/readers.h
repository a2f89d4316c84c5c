/*
 * readers.h -- one conversion loop per source encoding form (internal).
 * Each reads src in its form, handles ill-formed subsequences as `errors`
 * says, and writes every scalar value to the destination form `to` (or
 * only counts them, for UTFKIT_COUNT_ONLY) through a sink (sink.h).
 * transcode.c dispatches to them.
 */
#ifndef UTFKIT_READERS_H
#define UTFKIT_READERS_H

#include "sink.h"

utfkit_result utf8_transcode(const uint8_t *src, size_t len, int to, int errors, utfkit_sink *sink);
utfkit_result utf16_transcode(const uint8_t *src, size_t len, int big_endian, int to, int errors,
                              utfkit_sink *sink);
utfkit_result utf32_transcode(const uint8_t *src, size_t len, int big_endian, int to, int errors,
                              utfkit_sink *sink);

/* Instantiates `body` (an always-inlined function taking the destination
 * form as its last argument) once per destination form. */
#define UTFKIT_FOR_EACH_DESTINATION(to, call)   \
    switch (to) {                               \
    case UTFKIT_UTF8: return call(UTFKIT_UTF8);       \
    case UTFKIT_UTF16LE: return call(UTFKIT_UTF16LE); \
    case UTFKIT_UTF16BE: return call(UTFKIT_UTF16BE); \
    case UTFKIT_UTF32LE: return call(UTFKIT_UTF32LE); \
    case UTFKIT_UTF32BE: return call(UTFKIT_UTF32BE); \
    default: return call(UTFKIT_COUNT_ONLY);          \
    }

#endif /* UTFKIT_READERS_H */
