/*
 * sink.h -- where converted text goes: the writers of every encoding form
 * (Unicode 3.9: Table 3-6 for UTF-8, Table 3-5 for UTF-16, D90 for UTF-32),
 * behind one capacity check (the readers' loop over it: sink_drive.h).
 *
 * A sink writes into dst[0..cap) while everything fits; the first step whose
 * output does not fit marks it full, after which nothing more is written but
 * every byte is still counted, so `out` always ends as the exact length of
 * the whole output.  Every writer is given only Unicode scalar values (readers
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

#include "byte_order.h"
#include "utfkit.h"

/* Not an encoding form: the sink only counts code points (written = their
 * number).  Used for validation and counting in every form. */
#define UTFKIT_COUNT_ONLY 15

/* Forms whose bytes for a BMP scalar value are UTF-8's (Table 3-6):
 * UTF-8 itself, WTF-8 (a superset) and CESU-8 (which differs only above
 * FFFF).  MUTF-8 differs at U+0000 too. */
static inline int form_writes_bmp_as_utf8(int form)
{
    return form == UTFKIT_UTF8 || form == UTFKIT_WTF8 || form == UTFKIT_CESU8;
}

/* Forms built on 8-bit code units (1 byte per ASCII character). */
static inline int form_is_8_bit(int form)
{
    return form_writes_bmp_as_utf8(form) || form == UTFKIT_MUTF8;
}

/* Forms a lone surrogate is written to as it is, when read from a form
 * that carries lone surrogates (WTF-8, MUTF-8): the two of them, UTF-16
 * (potentially ill-formed UTF-16, seed 003 section 4) and the counting
 * sink (a decoder yields the lone surrogate as a code point). */
static inline int form_takes_lone_surrogates(int form)
{
    return form == UTFKIT_WTF8 || form == UTFKIT_MUTF8 || form == UTFKIT_UTF16LE ||
           form == UTFKIT_UTF16BE || form == UTFKIT_COUNT_ONLY;
}

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

/* The most one reader step writes: 8 ASCII characters as UTF-32. */
#define SINK_STEP_MAX 32

/* Appends the n bytes at `bytes` (one step's output, or a count of code
 * points for UTFKIT_COUNT_ONLY) if all of them fit, else marks the sink
 * full; counts them either way. */
static UTFKIT_ALWAYS_INLINE void sink_append_whole(utfkit_sink *sink, int to, const uint8_t *bytes,
                                                   size_t n)
{
    if (to != UTFKIT_COUNT_ONLY) {
        if (!sink->full && sink->out <= sink->cap && sink->cap - sink->out >= n) {
            if (n != 0)
                memcpy(sink->dst + sink->out, bytes, n);
        } else {
            sink->full = 1;
        }
    }
    sink->out += n;
}

/* Writes one code point 0..10FFFF in generalized UTF-8 (Table 3-6, seed
 * 003 Table 2: the UTF-8 bit distribution, surrogates included) at p, and
 * returns the number of bytes written. */
static UTFKIT_ALWAYS_INLINE size_t put_generalized_utf8(uint8_t *p, uint32_t code_point)
{
    if (code_point < 0x80) {
        p[0] = (uint8_t)code_point;
        return 1;
    }
    if (code_point < 0x800) {
        p[0] = (uint8_t)(0xC0 | (code_point >> 6));
        p[1] = (uint8_t)(0x80 | (code_point & 0x3F));
        return 2;
    }
    if (code_point < 0x10000) {
        p[0] = (uint8_t)(0xE0 | (code_point >> 12));
        p[1] = (uint8_t)(0x80 | ((code_point >> 6) & 0x3F));
        p[2] = (uint8_t)(0x80 | (code_point & 0x3F));
        return 3;
    }
    p[0] = (uint8_t)(0xF0 | (code_point >> 18));
    p[1] = (uint8_t)(0x80 | ((code_point >> 12) & 0x3F));
    p[2] = (uint8_t)(0x80 | ((code_point >> 6) & 0x3F));
    p[3] = (uint8_t)(0x80 | (code_point & 0x3F));
    return 4;
}

/* Writes one Unicode scalar value at dst + out, unchecked (the caller has
 * made sure of SINK_STEP_MAX bytes of room), and returns the new out.  For
 * UTFKIT_COUNT_ONLY nothing is written and out counts code points. */
static UTFKIT_ALWAYS_INLINE size_t put(uint8_t *dst, size_t out, int form, uint32_t scalar)
{
    uint8_t *p = form == UTFKIT_COUNT_ONLY ? NULL : dst + out; /* dst is NULL when counting */
    switch (form) {
    case UTFKIT_UTF8: /* Table 3-6 */
    case UTFKIT_WTF8: /* seed 003 section 6.1: UTF-8's bytes for a scalar value */
        return out + put_generalized_utf8(p, scalar);
    case UTFKIT_MUTF8: /* U+0000 as the 2-byte form, so that no byte is 00 */
        if (scalar == 0) {
            p[0] = 0xC0;
            p[1] = 0x80;
            return out + 2;
        }
        /* fall through */
    case UTFKIT_CESU8: /* UTR #26: each UTF-16 code unit in generalized UTF-8 */
        if (scalar < 0x10000)
            return out + put_generalized_utf8(p, scalar);
        put_generalized_utf8(p, 0xD800 | ((scalar - 0x10000) >> 10));
        put_generalized_utf8(p + 3, 0xDC00 | ((scalar - 0x10000) & 0x3FF));
        return out + 6;
    case UTFKIT_UTF16LE:
    case UTFKIT_UTF16BE: { /* Table 3-5: wwww = uuuuu - 1 */
        int big_endian = form == UTFKIT_UTF16BE;
        if (scalar < 0x10000) {
            store16(p, scalar, big_endian);
            return out + 2;
        }
        uint32_t offset = scalar - 0x10000;
        store16(p, 0xD800 | (offset >> 10), big_endian);
        store16(p + 2, 0xDC00 | (offset & 0x3FF), big_endian);
        return out + 4;
    }
    case UTFKIT_UTF32LE:
    case UTFKIT_UTF32BE: /* D90 */
        store32(p, scalar, form == UTFKIT_UTF32BE);
        return out + 4;
    default: /* UTFKIT_COUNT_ONLY */
        return out + 1;
    }
}

/* Writes n ASCII characters (all below 0x80), unchecked. */
static UTFKIT_ALWAYS_INLINE size_t put_ascii(uint8_t *dst, size_t out, int form,
                                             const uint8_t *ascii, size_t n)
{
    uint8_t *p = form == UTFKIT_COUNT_ONLY ? NULL : dst + out; /* dst is NULL when counting */
    switch (form) {
    case UTFKIT_UTF8:
    case UTFKIT_WTF8:
    case UTFKIT_CESU8:
        memcpy(p, ascii, n);
        return out + n;
    case UTFKIT_MUTF8: { /* U+0000 as C0 80 */
        size_t written = 0;
        for (size_t k = 0; k < n; k++) {
            if (ascii[k] == 0) {
                p[written++] = 0xC0;
                p[written++] = 0x80;
            } else {
                p[written++] = ascii[k];
            }
        }
        return out + written;
    }
    case UTFKIT_UTF16LE:
    case UTFKIT_UTF16BE: {
        /* Each unit as the host reads it: the byte shifted to where the
         * unit's low byte lies in memory (D90-D99), so that the compiler
         * vectorises either byte order as a plain widening (a byte swap of
         * each unit it does not). */
        int shift = (form == UTFKIT_UTF16BE) != UTFKIT_HOST_BIG_ENDIAN ? 8 : 0;
        for (size_t k = 0; k < n; k++) {
            uint16_t unit = (uint16_t)(ascii[k] << shift);
            memcpy(p + 2 * k, &unit, 2);
        }
        return out + 2 * n;
    }
    case UTFKIT_UTF32LE:
    case UTFKIT_UTF32BE: {
        int shift = (form == UTFKIT_UTF32BE) != UTFKIT_HOST_BIG_ENDIAN ? 24 : 0;
        for (size_t k = 0; k < n; k++) {
            uint32_t unit = (uint32_t)ascii[k] << shift;
            memcpy(p + 4 * k, &unit, 4);
        }
        return out + 4 * n;
    }
    default:
        return out + n;
    }
}

/* Writes n UTF-16 code units, none a surrogate, read from src in the byte
 * order big_endian says, unchecked.  Not for UTF-8 (use put_ascii). */
static UTFKIT_ALWAYS_INLINE size_t put_bmp_run(uint8_t *dst, size_t out, int form,
                                               const uint8_t *src, size_t n, int big_endian)
{
    if (form == UTFKIT_COUNT_ONLY)
        return out + n;
    uint8_t *p = dst + out;
    int same_order = (form == UTFKIT_UTF16BE) == (big_endian != 0);
    if (form == UTFKIT_UTF16LE || form == UTFKIT_UTF16BE) {
        if (same_order) {
            memcpy(p, src, 2 * n);
        } else {
            for (size_t k = 0; k < n; k++)
                store16(p + 2 * k, load16(src + 2 * k, big_endian), !big_endian);
        }
        return out + 2 * n;
    }
    /* UTF-32: each unit widened */
    for (size_t k = 0; k < n; k++)
        store32(p + 4 * k, load16(src + 2 * k, big_endian), form == UTFKIT_UTF32BE);
    return out + 4 * n;
}

/* Writes a lone surrogate code point (D800..DFFF) to a form that takes
 * lone surrogates (form_takes_lone_surrogates): a surrogate byte sequence
 * (seed 003 Table 1) in WTF-8 and MUTF-8, the code unit itself in UTF-16;
 * unchecked. */
static UTFKIT_ALWAYS_INLINE size_t put_lone_surrogate(uint8_t *dst, size_t out, int form,
                                                      uint32_t surrogate)
{
    switch (form) {
    case UTFKIT_UTF16LE:
    case UTFKIT_UTF16BE:
        store16(dst + out, surrogate, form == UTFKIT_UTF16BE);
        return out + 2;
    case UTFKIT_COUNT_ONLY:
        return out + 1;
    default:
        return out + put_generalized_utf8(dst + out, surrogate);
    }
}

/* Writes the UTF-8 form of a scalar value below 0x10000 that is not a
 * surrogate as one 4-byte store -- only its first 1..3 bytes count, the
 * rest is overwritten by what follows -- and returns the new out.  Branch
 * free, so text that mixes lengths (words and spaces) costs no
 * mispredictions.  The caller needs 4 bytes of room. */
static UTFKIT_ALWAYS_INLINE size_t put_utf8_bmp_wide(uint8_t *dst, size_t out, uint32_t scalar)
{
    uint32_t one = scalar;
    uint32_t two = (0xC0 | scalar >> 6) | (0x80 | (scalar & 0x3F)) << 8;
    uint32_t three = (0xE0 | scalar >> 12) | (0x80 | (scalar >> 6 & 0x3F)) << 8 |
                     (0x80 | (scalar & 0x3F)) << 16;
    uint32_t bytes = scalar < 0x80 ? one : scalar < 0x800 ? two : three;
    if (UTFKIT_HOST_BIG_ENDIAN)
        bytes = __builtin_bswap32(bytes); /* first byte at the lowest address */
    memcpy(dst + out, &bytes, 4);
    return out + 1 + (scalar >= 0x80) + (scalar >= 0x800);
}

/* Writes one scalar value through the checked path: whole if it fits,
 * else nothing more is written (the sink is full); counted either way. */
static UTFKIT_ALWAYS_INLINE void sink_put(utfkit_sink *sink, int to, uint32_t scalar)
{
    uint8_t staging[SINK_STEP_MAX];
    sink_append_whole(sink, to, staging, put(staging, 0, to, scalar));
}

/* Writes one lone surrogate through the checked path. */
static UTFKIT_ALWAYS_INLINE void sink_put_lone_surrogate(utfkit_sink *sink, int to, uint32_t surrogate)
{
    uint8_t staging[SINK_STEP_MAX];
    sink_append_whole(sink, to, staging, put_lone_surrogate(staging, 0, to, surrogate));
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
