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


/* Four code units, read in the given byte order as 64-bit lanes. */
static UTFKIT_ALWAYS_INLINE uint64_t four_units(const uint8_t *p, int big_endian)
{
    uint64_t word;
    memcpy(&word, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    int swap = !big_endian;
#else
    int swap = big_endian;
#endif
    if (swap)
        word = (word >> 8 & 0x00FF00FF00FF00FFull) | (word & 0x00FF00FF00FF00FFull) << 8;
    return word;
}

/* 1 if none of the four 16-bit lanes is a surrogate (D800..DFFF): a lane
 * of t is zero exactly where its unit is one. */
static UTFKIT_ALWAYS_INLINE int four_units_have_no_surrogate(uint64_t units)
{
    uint64_t t = (units & 0xF800F800F800F800ull) ^ 0xD800D800D800D800ull;
    return ((t - 0x0001000100010001ull) & ~t & 0x8000800080008000ull) == 0;
}

/* 1 if one of the four 16-bit lanes is 0000 (U+0000, which MUTF-8 writes
 * as C0 80). */
static UTFKIT_ALWAYS_INLINE int four_units_have_nul(uint64_t units)
{
    return ((units - 0x0001000100010001ull) & ~units & 0x8000800080008000ull) != 0;
}

/* Length in units of the run at src[0..n_bytes) of units that are ASCII
 * (ascii_only; and not 0000 with nul_is_ill_formed) or that are not
 * surrogates. */
static UTFKIT_ALWAYS_INLINE size_t utf16_simple_run(const uint8_t *src, size_t n_bytes,
                                                    int big_endian, int ascii_only,
                                                    int nul_is_ill_formed)
{
    size_t k = 0;
    for (; n_bytes - 2 * k >= 8; k += 4) {
        uint64_t units = four_units(src + 2 * k, big_endian);
        if (ascii_only) {
            /* 01..7F: a unit less 1 is below 0080 too (0000 less 1 is
             * FFFF; a lane borrows only from a 0000 below it) */
            if (((nul_is_ill_formed ? units | (units - 0x0001000100010001ull) : units) &
                 0xFF80FF80FF80FF80ull) != 0)
                break;
        } else if (!four_units_have_no_surrogate(units)) {
            break;
        }
    }
    for (; n_bytes - 2 * k >= 2; k++) {
        uint32_t unit = load16(src + 2 * k, big_endian);
        if (ascii_only ? unit >= 0x80 || (nul_is_ill_formed && unit == 0)
                       : (unit >= 0xD800 && unit <= 0xDFFF))
            break;
    }
    return k;
}

/* Reads at reader->i one character, one ill-formed subsequence, or a run of units
 * that end by run_end and need no decoding (ASCII for UTF-8 output, any
 * unit but a surrogate otherwise); writes unchecked. */
static UTFKIT_ALWAYS_INLINE size_t utf16_step(text_reader *reader, uint8_t *dst, size_t out,
                                              size_t run_end, int to)
{
    const uint8_t *src = reader->src;
    size_t len = reader->len, at = reader->i;
    int big_endian = reader->big_endian;
    int modified = to == UTFKIT_MUTF8; /* U+0000 is C0 80 (JVM spec section 4.4.7) */
    if (form_is_8_bit(to) && run_end - at >= 16) {
        /* Four units that are not surrogates (nor 0000, in MUTF-8) go to
         * UTF-8 without a branch per unit. */
        uint64_t units = four_units(src + at, big_endian);
        if (four_units_have_no_surrogate(units) && (units & 0xFF80FF80FF80FF80ull) != 0 &&
            !(modified && four_units_have_nul(units))) {
            for (int k = 0; k < 4; k++)
                out = put_utf8_bmp_wide(dst, out, (uint32_t)(units >> (16 * k)) & 0xFFFF);
            reader->i = at + 8;
            return out;
        }
    }
    /* A run is tried only where one starts: that costs text without runs
     * (Cyrillic to UTF-8, say) one comparison per unit. */
    int ascii_only = form_is_8_bit(to);
    if (run_end - at >= 16 &&
        (ascii_only ? load16(src + at, big_endian) < 0x80 &&
                          !(modified && load16(src + at, big_endian) == 0)
                    : (load16(src + at, big_endian) & 0xF800) != 0xD800)) {
        size_t run = utf16_simple_run(src + at, run_end - at, big_endian, ascii_only, modified);
        if (run != 0) {
            reader->i = at + 2 * run;
            if (ascii_only) {
                uint8_t *p = dst + out;
                for (size_t k = 0; k < run; k++)
                    p[k] = src[at + 2 * k + (big_endian ? 1 : 0)];
                return out + run;
            }
            return put_bmp_run(dst, out, to, src + at, run, big_endian);
        }
    }
    int ill_formed;
    size_t length;
    if (len - at < 2) {
        ill_formed = UTFKIT_END_OF_DATA; /* a final odd byte */
        length = len - at;
    } else {
        uint32_t unit = load16(src + at, big_endian);
        if (unit < 0xD800 || unit > 0xDFFF) {
            reader->i = at + 2;
            return put(dst, out, to, unit);
        }
        int pair = unit <= 0xDBFF && len - at >= 4 &&
                   (load16(src + at + 2, big_endian) & 0xFC00) == 0xDC00;
        if (!pair && (to == UTFKIT_WTF8 || to == UTFKIT_MUTF8)) {
            /* Read as potentially ill-formed UTF-16 (seed 003 section 4.2),
             * whose unpaired surrogates these forms carry. */
            reader->i = at + 2;
            return put_lone_surrogate(dst, out, to, unit);
        }
        if (unit <= 0xDBFF) { /* lead surrogate */
            if (len - at < 4) {
                ill_formed = UTFKIT_END_OF_DATA;
                length = len - at;
            } else {
                uint32_t trail = load16(src + at + 2, big_endian);
                if (trail >= 0xDC00 && trail <= 0xDFFF) {
                    reader->i = at + 4;
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
    return step_over_ill_formed(reader, ill_formed, length, at, dst, out, to);
}

static UTFKIT_ALWAYS_INLINE utfkit_result utf16_read(const uint8_t *src, size_t len,
                                                     int big_endian, int errors,
                                                     utfkit_sink *sink, int to)
{
    text_reader reader = text_reader_over(src, len, errors, big_endian);
    /* To UTF-8, the active kernel's block converter (kernels.h) takes the
     * scalar values before run_end, and the steps here everything else.
     * To WTF-8 too: WTF-8 writes every scalar value as UTF-8 does (WTF-8
     * sections 6.1 and 6.3), and the block stops at the unpaired surrogates
     * that only WTF-8 writes, which the steps then take. */
    /* To UTF-32, the block converter takes both byte orders (kernels.h). */
    int to_utf32 = to == UTFKIT_UTF32LE || to == UTFKIT_UTF32BE;
    reader.blocks = to == UTFKIT_UTF8 || to == UTFKIT_WTF8 ? reader.kernel->utf16_to_utf8
                    : to_utf32 ? reader.kernel->utf16_to_utf32
                               : NULL;
    reader.block_byte_orders = to_utf32 ? big_endian | (to == UTFKIT_UTF32BE) << 1 : big_endian;
    /* To CESU-8 and MUTF-8, the UTF-8 block converter writes the units
     * that are no surrogate (nor 0000, for MUTF-8), whose UTF-8 is theirs
     * (UTR #26, JVM spec section 4.4.7), its output cut before anything
     * else (transcode_blocks_step_cut); the steps take the rest: a
     * surrogate pair (6 bytes), U+0000 (C0 80), lone surrogates, errors. */
    int cut_blocks = 0;
    if (to == UTFKIT_CESU8 || to == UTFKIT_MUTF8) {
        /* ...or, where the kernel has one, its block that stops before
         * whatever the steps take (kernels.h: utf16_to_cesu8 and
         * utf16_to_mutf8), whose
         * output needs no cut. */
        reader.blocks = to == UTFKIT_CESU8 ? reader.kernel->utf16_to_cesu8 : reader.kernel->utf16_to_mutf8;
        cut_blocks = reader.blocks == NULL;
        if (cut_blocks) {
            reader.blocks = reader.kernel->utf16_to_utf8;
            reader.block_byte_orders = big_endian;
        }
    }
    /* At most 2 output bytes per input byte (a unit of the BMP into
     * UTF-32, or a lone surrogate -- a lead cut off at the end included --
     * into U+FFFD in UTF-32); only a final odd byte, whose U+FFFD is 3 or 4
     * bytes, writes more, so the steps within 4 bytes of the end take the
     * staged path only when len is odd.  When it is even, the block
     * converters take the text to its end and the sink is appended to
     * once. */
    size_t per_byte = to == UTFKIT_COUNT_ONLY ? 0 : 2;
    size_t tail = len % 2 != 0 ? 4 : 0;
    sink_window window = SINK_WINDOW_STRETCHED;
    uint8_t scratch[SINK_SCRATCH];
    while (reader.i < len && reader.status == UTFKIT_OK) {
        sink_window_open(sink, &window, scratch, reader.i, len, per_byte, tail);
        while (reader.i < window.stop && reader.status == UTFKIT_OK) {
            if (cut_blocks ? !transcode_blocks_step_cut(&reader, window.dst, &window.out,
                                                        window.run_end, 2, to == UTFKIT_MUTF8)
                           : !transcode_blocks_step(&reader, window.dst, &window.out,
                                                    window.run_end))
                window.out = utf16_step(&reader, window.dst, window.out,
                                        scalar_run_end(&reader, window.run_end), to);
        }
        reader.i = sink_window_close_status(sink, &window, reader.i, to, &reader.status);
    }
    return text_reader_result(&reader, sink);
}

#define UTF16_LE(to) utf16_read(src, len, 0, errors, sink, to)
#define UTF16_BE(to) utf16_read(src, len, 1, errors, sink, to)

utfkit_result utf16_transcode(const uint8_t *src, size_t len, int big_endian, int to, int errors,
                              utfkit_sink *sink)
{
    if (big_endian) {
        UTFKIT_FOR_EACH_DESTINATION(to, UTF16_BE)
    }
    UTFKIT_FOR_EACH_DESTINATION(to, UTF16_LE)
}
