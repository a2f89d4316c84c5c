/*
 * utf32.c -- reading UTF-32 (Unicode 3.9 D90), either byte order, into any
 * other form.  A code unit that is a surrogate or above 10FFFF is ill-formed
 * (4 bytes); a final unit cut short runs to the end ("truncated data", as
 * CPython reports it).
 */
#include "readers.h"

static UTFKIT_ALWAYS_INLINE uint32_t load32(const uint8_t *p, int big_endian)
{
    return big_endian ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
                      : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* Reads one code unit, or a final partial one, at *i. */
static UTFKIT_ALWAYS_INLINE size_t utf32_step(const uint8_t *src, size_t len, size_t *i,
                                              uint8_t *dst, size_t out, int big_endian,
                                              int errors, int to, int *status, size_t *subpart)
{
    size_t at = *i;
    int ill_formed;
    size_t length;
    if (len - at < 4) {
        ill_formed = UTFKIT_END_OF_DATA;
        length = len - at;
    } else {
        uint32_t unit = load32(src + at, big_endian);
        if (unit < 0xD800 || (unit > 0xDFFF && unit <= 0x10FFFF)) {
            *i = at + 4;
            return put(dst, out, to, unit);
        }
        ill_formed = unit <= 0xDFFF ? UTFKIT_SURROGATE : UTFKIT_TOO_LARGE;
        length = 4;
    }
    if (errors == UTFKIT_STRICT) {
        *status = ill_formed;
        *subpart = length;
        return out;
    }
    *i = at + length;
    return errors == UTFKIT_REPLACE ? put(dst, out, to, 0xFFFD) : out;
}

static UTFKIT_ALWAYS_INLINE utfkit_result utf32_read(const uint8_t *src, size_t len,
                                                     int big_endian, int errors,
                                                     utfkit_sink *sink, int to)
{
    size_t i = 0, subpart = 0;
    int status = UTFKIT_OK;
    SINK_RUN(sink, to, i, len, status != UTFKIT_OK,
             out = utf32_step(src, len, &i, dst, out, big_endian, errors, to, &status, &subpart));
    if (status != UTFKIT_OK)
        return sink_error(sink, status, i, subpart);
    return sink_result(sink, len);
}

/* The sink is worked on as a local copy: stores of output bytes (uint8_t,
 * which may alias anything) would otherwise force its fields to be reloaded
 * from memory after every byte. */
static UTFKIT_ALWAYS_INLINE utfkit_result utf32_read_locally(const uint8_t *src, size_t len,
                                                             int big_endian, int errors,
                                                             utfkit_sink *sink, int to)
{
    utfkit_sink local = *sink;
    utfkit_result result = utf32_read(src, len, big_endian, errors, &local, to);
    *sink = local;
    return result;
}

#define UTF32_LE(to) utf32_read_locally(src, len, 0, errors, sink, to)
#define UTF32_BE(to) utf32_read_locally(src, len, 1, errors, sink, to)

utfkit_result utf32_transcode(const uint8_t *src, size_t len, int big_endian, int to, int errors,
                              utfkit_sink *sink)
{
    if (big_endian) {
        UTFKIT_FOR_EACH_DESTINATION(to, UTF32_BE)
    }
    UTFKIT_FOR_EACH_DESTINATION(to, UTF32_LE)
}
