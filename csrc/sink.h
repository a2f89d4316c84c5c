/*
 * sink.h -- where converted text goes: the writers of every encoding form
 * (Unicode 3.9: Table 3-6 for UTF-8, Table 3-5 for UTF-16, D90 for UTF-32),
 * behind one capacity check.
 *
 * A sink writes into dst[0..cap) while everything fits; the first item that
 * does not fit marks it full, after which nothing more is written but every
 * item is still counted, so `out` always ends as the exact length of the
 * whole output.  Every writer is given only Unicode scalar values (readers
 * replace or drop anything else first), so a writer never fails.
 *
 * The form is an argument of every function here; the readers call them
 * from always-inlined loops instantiated once per destination form, so the
 * compiler folds each switch away.
 */
#ifndef UTFKIT_SINK_H
#define UTFKIT_SINK_H

#include <stdint.h>
#include <string.h>

#include "utfkit.h"

#if defined(__GNUC__) || defined(__clang__)
#define UTFKIT_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define UTFKIT_ALWAYS_INLINE inline
#endif

/* Not an encoding form: the sink only counts code points (written = their
 * number).  Used for validation and counting in every form. */
#define UTFKIT_COUNT_ONLY 5

typedef struct utfkit_sink {
    uint8_t *dst;
    size_t cap;
    size_t out;  /* bytes produced: written, or counted once full */
    int full;    /* something did not fit; nothing is written any more */
} utfkit_sink;

static inline utfkit_sink sink_over(uint8_t *dst, size_t cap)
{
    utfkit_sink sink = {dst, cap, 0, 0};
    return sink;
}

/* Room for n more bytes at the end of the output, or NULL (and counted). */
static UTFKIT_ALWAYS_INLINE uint8_t *sink_reserve(utfkit_sink *sink, size_t n)
{
    uint8_t *room = NULL;
    if (!sink->full && sink->cap - sink->out >= n)
        room = sink->dst + sink->out;
    else
        sink->full = 1;
    sink->out += n;
    return room;
}

static UTFKIT_ALWAYS_INLINE void store16(uint8_t *p, uint32_t unit, int big_endian)
{
    if (big_endian) {
        p[0] = (uint8_t)(unit >> 8);
        p[1] = (uint8_t)unit;
    } else {
        p[0] = (uint8_t)unit;
        p[1] = (uint8_t)(unit >> 8);
    }
}

static UTFKIT_ALWAYS_INLINE void store32(uint8_t *p, uint32_t unit, int big_endian)
{
    if (big_endian) {
        p[0] = (uint8_t)(unit >> 24);
        p[1] = (uint8_t)(unit >> 16);
        p[2] = (uint8_t)(unit >> 8);
        p[3] = (uint8_t)unit;
    } else {
        p[0] = (uint8_t)unit;
        p[1] = (uint8_t)(unit >> 8);
        p[2] = (uint8_t)(unit >> 16);
        p[3] = (uint8_t)(unit >> 24);
    }
}

/* Bytes the scalar value takes in the form. */
static UTFKIT_ALWAYS_INLINE size_t encoded_size(int form, uint32_t scalar)
{
    switch (form) {
    case UTFKIT_UTF8:
        return scalar < 0x80 ? 1 : scalar < 0x800 ? 2 : scalar < 0x10000 ? 3 : 4;
    case UTFKIT_UTF16LE:
    case UTFKIT_UTF16BE:
        return scalar < 0x10000 ? 2 : 4;
    case UTFKIT_UTF32LE:
    case UTFKIT_UTF32BE:
        return 4;
    default:
        return 1; /* UTFKIT_COUNT_ONLY: one per code point */
    }
}

/* Writes one Unicode scalar value. */
static UTFKIT_ALWAYS_INLINE void emit(utfkit_sink *sink, int form, uint32_t scalar)
{
    size_t size = encoded_size(form, scalar);
    if (form == UTFKIT_COUNT_ONLY) {
        sink->out += 1;
        return;
    }
    uint8_t *p = sink_reserve(sink, size);
    if (p == NULL)
        return;
    switch (form) {
    case UTFKIT_UTF8: /* Table 3-6 */
        if (size == 1) {
            p[0] = (uint8_t)scalar;
        } else if (size == 2) {
            p[0] = (uint8_t)(0xC0 | (scalar >> 6));
            p[1] = (uint8_t)(0x80 | (scalar & 0x3F));
        } else if (size == 3) {
            p[0] = (uint8_t)(0xE0 | (scalar >> 12));
            p[1] = (uint8_t)(0x80 | ((scalar >> 6) & 0x3F));
            p[2] = (uint8_t)(0x80 | (scalar & 0x3F));
        } else {
            p[0] = (uint8_t)(0xF0 | (scalar >> 18));
            p[1] = (uint8_t)(0x80 | ((scalar >> 12) & 0x3F));
            p[2] = (uint8_t)(0x80 | ((scalar >> 6) & 0x3F));
            p[3] = (uint8_t)(0x80 | (scalar & 0x3F));
        }
        break;
    case UTFKIT_UTF16LE:
    case UTFKIT_UTF16BE: { /* Table 3-5: wwww = uuuuu - 1 */
        int big_endian = form == UTFKIT_UTF16BE;
        if (size == 2) {
            store16(p, scalar, big_endian);
        } else {
            uint32_t offset = scalar - 0x10000;
            store16(p, 0xD800 | (offset >> 10), big_endian);
            store16(p + 2, 0xDC00 | (offset & 0x3FF), big_endian);
        }
        break;
    }
    default: /* UTF-32, D90 */
        store32(p, scalar, form == UTFKIT_UTF32BE);
        break;
    }
}

/* Writes n ASCII characters (all below 0x80). */
static UTFKIT_ALWAYS_INLINE void emit_ascii(utfkit_sink *sink, int form, const uint8_t *ascii,
                                            size_t n)
{
    if (form == UTFKIT_COUNT_ONLY) {
        sink->out += n;
        return;
    }
    size_t unit = form == UTFKIT_UTF8 ? 1 : (form == UTFKIT_UTF16LE || form == UTFKIT_UTF16BE) ? 2 : 4;
    uint8_t *p = sink_reserve(sink, n * unit);
    if (p == NULL)
        return;
    switch (form) {
    case UTFKIT_UTF8:
        memcpy(p, ascii, n);
        break;
    case UTFKIT_UTF16LE:
    case UTFKIT_UTF16BE:
        for (size_t k = 0; k < n; k++)
            store16(p + 2 * k, ascii[k], form == UTFKIT_UTF16BE);
        break;
    default:
        for (size_t k = 0; k < n; k++)
            store32(p + 4 * k, ascii[k], form == UTFKIT_UTF32BE);
        break;
    }
}

/* The result of a conversion that read all of its input. */
static inline utfkit_result sink_result(const utfkit_sink *sink, size_t len)
{
    utfkit_result result = {sink->full ? UTFKIT_OUTPUT_TOO_SMALL : UTFKIT_OK, len, 0, sink->out};
    return result;
}

/* The result of a strict conversion stopped by an ill-formed subsequence. */
static inline utfkit_result sink_error(const utfkit_sink *sink, int status, size_t position,
                                       size_t subpart_length)
{
    utfkit_result result = {status, position, subpart_length, sink->out};
    return result;
}

#endif /* UTFKIT_SINK_H */
