/*
 * utf32.c -- reading UTF-32 (Unicode 3.9 D90), either byte order, into any
 * other form.  A code unit that is a surrogate or above 10FFFF is ill-formed
 * (4 bytes); a final unit cut short runs to the end ("truncated data", as
 * CPython reports it).
 */
#include "readers.h"


/* Length in units of the run at src[0..n_bytes) of units the destination
 * takes without decoding: ASCII for UTF-8 (but 0 for MUTF-8, which writes
 * U+0000 as C0 80), BMP scalar values for UTF-16, any scalar value for
 * UTF-32. */
static UTFKIT_ALWAYS_INLINE size_t utf32_simple_run(const uint8_t *src, size_t n_bytes,
                                                    int big_endian, int to)
{
    size_t k = 0;
    for (; n_bytes - 4 * k >= 4; k++) {
        uint32_t unit = load32(src + 4 * k, big_endian);
        int simple = form_is_8_bit(to) ? unit < 0x80 && !(to == UTFKIT_MUTF8 && unit == 0)
                   : (to == UTFKIT_UTF16LE || to == UTFKIT_UTF16BE)
                       ? (unit < 0xD800 || (unit > 0xDFFF && unit < 0x10000))
                       : (unit < 0xD800 || (unit > 0xDFFF && unit <= 0x10FFFF));
        if (!simple)
            break;
    }
    return k;
}

/* Reads at reader->i one code unit, a final partial one, or a run of units that
 * end by run_end and need no decoding; writes unchecked. */
static UTFKIT_ALWAYS_INLINE size_t utf32_step(text_reader *reader, uint8_t *dst, size_t out,
                                              size_t run_end, int to)
{
    const uint8_t *src = reader->src;
    size_t len = reader->len, at = reader->i;
    int big_endian = reader->big_endian;
    if (form_is_8_bit(to) && run_end - at >= 16 && load32(src + at, big_endian) >= 0x80) {
        /* Four BMP scalar values (but U+0000, in MUTF-8) go to UTF-8
         * without a branch per unit. */
        uint32_t units[4], wide = 0, high = 0;
        for (int k = 0; k < 4; k++) {
            units[k] = load32(src + at + 4 * k, big_endian);
            wide |= units[k] >= 0x10000 || (units[k] & 0xF800) == 0xD800 ||
                    (to == UTFKIT_MUTF8 && units[k] == 0);
            high |= units[k];
        }
        if (!wide && high >= 0x80) {
            for (int k = 0; k < 4; k++)
                out = put_utf8_bmp_wide(dst, out, units[k]);
            reader->i = at + 16;
            return out;
        }
    }
    /* A run is tried only where one starts (it needs a second simple unit). */
    if (run_end - at >= 16 && to != UTFKIT_COUNT_ONLY &&
        utf32_simple_run(src + at, 8, big_endian, to) == 2) {
        size_t run = utf32_simple_run(src + at, run_end - at, big_endian, to);
        if (run != 0) {
            uint8_t *p = dst + out;
            reader->i = at + 4 * run;
            if (form_is_8_bit(to)) {
                for (size_t k = 0; k < run; k++)
                    p[k] = src[at + 4 * k + (big_endian ? 3 : 0)];
                return out + run;
            }
            if (to == UTFKIT_UTF16LE || to == UTFKIT_UTF16BE) {
                for (size_t k = 0; k < run; k++)
                    store16(p + 2 * k, load32(src + at + 4 * k, big_endian), to == UTFKIT_UTF16BE);
                return out + 2 * run;
            }
            if ((to == UTFKIT_UTF32BE) == (big_endian != 0)) {
                memcpy(p, src + at, 4 * run);
            } else {
                for (size_t k = 0; k < run; k++)
                    store32(p + 4 * k, load32(src + at + 4 * k, big_endian), to == UTFKIT_UTF32BE);
            }
            return out + 4 * run;
        }
    }
    int ill_formed;
    size_t length;
    if (len - at < 4) {
        ill_formed = UTFKIT_END_OF_DATA;
        length = len - at;
    } else {
        uint32_t unit = load32(src + at, big_endian);
        if (unit < 0xD800 || (unit > 0xDFFF && unit <= 0x10FFFF)) {
            reader->i = at + 4;
            return put(dst, out, to, unit);
        }
        ill_formed = unit <= 0xDFFF ? UTFKIT_SURROGATE : UTFKIT_TOO_LARGE;
        length = 4;
    }
    return step_over_ill_formed(reader, ill_formed, length, at, dst, out, to);
}

static UTFKIT_ALWAYS_INLINE utfkit_result utf32_read(const uint8_t *src, size_t len,
                                                     int big_endian, int errors,
                                                     utfkit_sink *sink, int to)
{
    text_reader reader = text_reader_over(src, len, errors, big_endian);
    /* To UTF-8, the active kernel's block converter (kernels.h) takes the
     * scalar values before run_end, and the steps here everything else.
     * To WTF-8 too: a UTF-32 surrogate unit is ill-formed either way, and
     * WTF-8 writes every scalar value as UTF-8 does (WTF-8 section 6.1). */
    /* To UTF-16, the block converter takes both byte orders (kernels.h). */
    int to_utf16 = to == UTFKIT_UTF16LE || to == UTFKIT_UTF16BE;
    reader.blocks = to == UTFKIT_UTF8 || to == UTFKIT_WTF8 ? reader.kernel->utf32_to_utf8
                    : to_utf16 ? reader.kernel->utf32_to_utf16
                               : NULL;
    reader.block_byte_orders = to_utf16 ? big_endian | (to == UTFKIT_UTF16BE) << 1 : big_endian;
    /* To CESU-8 and MUTF-8, the UTF-8 block converter writes the units
     * below 10000 (but 0, for MUTF-8), whose UTF-8 is theirs (UTR #26, JVM
     * spec section 4.4.7), its output cut before anything else
     * (transcode_blocks_step_cut); the steps take the rest: a
     * supplementary character (6 bytes), U+0000 (C0 80), errors. */
    int cut_blocks = 0;
    if (to == UTFKIT_CESU8 || to == UTFKIT_MUTF8) {
        /* ...or, where the kernel has one, its block that stops before
         * whatever the steps take (kernels.h: utf32_to_cesu8 and
         * utf32_to_mutf8), whose
         * output needs no cut. */
        reader.blocks = to == UTFKIT_CESU8 ? reader.kernel->utf32_to_cesu8 : reader.kernel->utf32_to_mutf8;
        cut_blocks = reader.blocks == NULL;
        if (cut_blocks) {
            reader.blocks = reader.kernel->utf32_to_utf8;
            reader.block_byte_orders = big_endian;
        }
    }
    /* At most 1 output byte per input byte (2 for CESU-8 and MUTF-8: a
     * supplementary unit becomes 6 bytes); 4 bytes from the end, a cut-off
     * unit may become a whole U+FFFD -- where there is one: when len is a
     * whole number of units, every step, the last included, keeps to
     * per_byte, and the block converters take the text to its end. */
    size_t per_byte = to == UTFKIT_COUNT_ONLY ? 0 : (to == UTFKIT_CESU8 || to == UTFKIT_MUTF8) ? 2 : 1;
    size_t tail = len % 4 != 0 ? 4 : 0;
    sink_window window = SINK_WINDOW_STRETCHED;
    uint8_t scratch[SINK_SCRATCH];
    while (reader.i < len && reader.status == UTFKIT_OK) {
        sink_window_open(sink, &window, scratch, reader.i, len, per_byte, tail);
        while (reader.i < window.stop && reader.status == UTFKIT_OK) {
            if (cut_blocks ? !transcode_blocks_step_cut(&reader, window.dst, &window.out,
                                                        window.run_end, 4, to == UTFKIT_MUTF8)
                           : !transcode_blocks_step(&reader, window.dst, &window.out,
                                                    window.run_end))
                window.out = utf32_step(&reader, window.dst, window.out,
                                        scalar_run_end(&reader, window.run_end), to);
        }
        reader.i = sink_window_close_status(sink, &window, reader.i, to, &reader.status);
    }
    return text_reader_result(&reader, sink);
}

#define UTF32_LE(to) utf32_read(src, len, 0, errors, sink, to)
#define UTF32_BE(to) utf32_read(src, len, 1, errors, sink, to)

utfkit_result utf32_transcode(const uint8_t *src, size_t len, int big_endian, int to, int errors,
                              utfkit_sink *sink)
{
    if (big_endian) {
        UTFKIT_FOR_EACH_DESTINATION(to, UTF32_BE)
    }
    UTFKIT_FOR_EACH_DESTINATION(to, UTF32_LE)
}
