/*
 * utf16.c -- reading UTF-16 (Unicode 3.9 D91, Table 3-5), either byte
 * order, into any other form.
 *
 * Ill-formed subsequences are cut where CPython's UTF-16 decoder cuts them,
 * so that replacement and error positions match it: an unpaired trail
 * surrogate ("illegal encoding") and a lead surrogate not followed by a
 * trail surrogate ("illegal UTF-16 surrogate") are 2 bytes each, and the
 * next unit is read again; a lead surrogate whose pair is cut off by the end
 * of input, and a final odd byte ("truncated data"), run to the end.
 */
#include "readers.h"

static UTFKIT_ALWAYS_INLINE uint32_t load16(const uint8_t *p, int big_endian)
{
    return big_endian ? (uint32_t)p[0] << 8 | p[1] : (uint32_t)p[1] << 8 | p[0];
}

/* Four code units are all below 0x80: the high byte is 0, the low < 0x80. */
static UTFKIT_ALWAYS_INLINE int four_units_are_ascii(const uint8_t *p, int big_endian)
{
    uint64_t word;
    memcpy(&word, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    uint64_t not_ascii = big_endian ? 0xFF80FF80FF80FF80ull : 0x80FF80FF80FF80FFull;
#else
    uint64_t not_ascii = big_endian ? 0x80FF80FF80FF80FFull : 0xFF80FF80FF80FF80ull;
#endif
    return (word & not_ascii) == 0;
}

/* Reads one character, a block of four ASCII units, or one ill-formed
 * subsequence at *i; writes at most SINK_STEP_MAX bytes unchecked. */
static UTFKIT_ALWAYS_INLINE size_t utf16_step(const uint8_t *src, size_t len, size_t *i,
                                              uint8_t *dst, size_t out, int big_endian,
                                              int errors, int to, int *status, size_t *subpart)
{
    size_t at = *i;
    if (len - at >= 8 && four_units_are_ascii(src + at, big_endian)) {
        const int low_byte = big_endian ? 1 : 0;
        const uint8_t ascii[4] = {src[at + low_byte], src[at + 2 + low_byte],
                                  src[at + 4 + low_byte], src[at + 6 + low_byte]};
        *i = at + 8;
        return put_ascii(dst, out, to, ascii, 4);
    }
    int ill_formed;
    size_t length;
    if (len - at < 2) {
        ill_formed = UTFKIT_END_OF_DATA; /* a final odd byte */
        length = len - at;
    } else {
        uint32_t unit = load16(src + at, big_endian);
        if (unit < 0xD800 || unit > 0xDFFF) {
            *i = at + 2;
            return put(dst, out, to, unit);
        }
        if (unit <= 0xDBFF) { /* lead surrogate */
            if (len - at < 4) {
                ill_formed = UTFKIT_END_OF_DATA;
                length = len - at;
            } else {
                uint32_t trail = load16(src + at + 2, big_endian);
                if (trail >= 0xDC00 && trail <= 0xDFFF) {
                    *i = at + 4;
                    return put(dst, out, to, 0x10000 + ((unit - 0xD800) << 10) + (trail - 0xDC00));
                }
                ill_formed = UTFKIT_SURROGATE; /* "illegal UTF-16 surrogate" */
                length = 2;
            }
        } else {
            ill_formed = UTFKIT_SURROGATE; /* a trail surrogate alone: "illegal encoding" */
            length = 2;
        }
    }
    if (errors == UTFKIT_STRICT) {
        *status = ill_formed;
        *subpart = length;
        return out;
    }
    *i = at + length;
    return errors == UTFKIT_REPLACE ? put(dst, out, to, 0xFFFD) : out;
}

static UTFKIT_ALWAYS_INLINE utfkit_result utf16_read(const uint8_t *src, size_t len,
                                                     int big_endian, int errors,
                                                     utfkit_sink *sink, int to)
{
    size_t i = 0, subpart = 0;
    int status = UTFKIT_OK;
    SINK_RUN(sink, to, i, len, status != UTFKIT_OK,
             out = utf16_step(src, len, &i, dst, out, big_endian, errors, to, &status, &subpart));
    if (status != UTFKIT_OK)
        return sink_error(sink, status, i, subpart);
    return sink_result(sink, len);
}

/* The sink is worked on as a local copy: stores of output bytes (uint8_t,
 * which may alias anything) would otherwise force its fields to be reloaded
 * from memory after every byte. */
static UTFKIT_ALWAYS_INLINE utfkit_result utf16_read_locally(const uint8_t *src, size_t len,
                                                             int big_endian, int errors,
                                                             utfkit_sink *sink, int to)
{
    utfkit_sink local = *sink;
    utfkit_result result = utf16_read(src, len, big_endian, errors, &local, to);
    *sink = local;
    return result;
}

#define UTF16_LE(to) utf16_read_locally(src, len, 0, errors, sink, to)
#define UTF16_BE(to) utf16_read_locally(src, len, 1, errors, sink, to)

utfkit_result utf16_transcode(const uint8_t *src, size_t len, int big_endian, int to, int errors,
                              utfkit_sink *sink)
{
    if (big_endian) {
        UTFKIT_FOR_EACH_DESTINATION(to, UTF16_BE)
    }
    UTFKIT_FOR_EACH_DESTINATION(to, UTF16_LE)
}
