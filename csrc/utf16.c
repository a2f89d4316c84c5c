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

static UTFKIT_ALWAYS_INLINE utfkit_result utf16_read(const uint8_t *src, size_t len,
                                                     int big_endian, int errors,
                                                     utfkit_sink *sink, int to)
{
    size_t i = 0;
    const int low_byte = big_endian ? 1 : 0;
    while (i < len) {
        if (len - i >= 8 && four_units_are_ascii(src + i, big_endian)) {
            const uint8_t ascii[4] = {src[i + low_byte], src[i + 2 + low_byte],
                                      src[i + 4 + low_byte], src[i + 6 + low_byte]};
            emit_ascii(sink, to, ascii, 4);
            i += 8;
            continue;
        }
        int status;
        size_t subpart;
        if (len - i < 2) {
            status = UTFKIT_END_OF_DATA; /* a final odd byte */
            subpart = len - i;
        } else {
            uint32_t unit = load16(src + i, big_endian);
            if (unit < 0xD800 || unit > 0xDFFF) {
                emit(sink, to, unit);
                i += 2;
                continue;
            }
            if (unit <= 0xDBFF) { /* lead surrogate */
                if (len - i < 4) {
                    status = UTFKIT_END_OF_DATA;
                    subpart = len - i;
                } else {
                    uint32_t trail = load16(src + i + 2, big_endian);
                    if (trail >= 0xDC00 && trail <= 0xDFFF) {
                        emit(sink, to, 0x10000 + ((unit - 0xD800) << 10) + (trail - 0xDC00));
                        i += 4;
                        continue;
                    }
                    status = UTFKIT_SURROGATE;
                    subpart = 2;
                }
            } else { /* trail surrogate with no lead */
                status = UTFKIT_SURROGATE;
                subpart = 2;
            }
        }
        if (errors == UTFKIT_STRICT)
            return sink_error(sink, status, i, subpart);
        if (errors == UTFKIT_REPLACE)
            emit(sink, to, 0xFFFD);
        i += subpart;
    }
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
