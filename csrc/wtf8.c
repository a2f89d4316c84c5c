/*
 * wtf8.c -- reading WTF-8 (seed 003 section 6) into any form.
 *
 * WTF-8 is generalized UTF-8 (seed 003 section 5) minus surrogate pair byte
 * sequences: UTF-8 with lone surrogate byte sequences (ED A0..BF 80..BF,
 * seed 003 Table 1) among its characters.  So the reader lets the UTF-8
 * kernel find the next place where the text stops being UTF-8 -- the long
 * well-formed stretches go to the sink as UTF-8 does them -- and decides
 * there: a surrogate byte sequence is a lone surrogate (a trail one right
 * after a lead one is a surrogate pair byte sequence, ill-formed), anything
 * else is cut as UTF-8 cuts it, reading ED A0..BF as the start of a
 * surrogate byte sequence.
 *
 * Converted to UTF-16 (potentially ill-formed, seed 003 section 6.3) or
 * MUTF-8, lone surrogates are written as they are; to UTF-8 (section 6.4),
 * UTF-32 or CESU-8 each is an ill-formed subsequence, which REPLACE turns
 * into U+FFFD -- the lossy conversion, same length in UTF-8 -- and STRICT
 * reports: the strict conversion.
 */
#include "surrogates.h"
#include "utf8_steps.h"

/* Reads at reader->i a lone surrogate byte sequence, an ED A0..BF cut
 * short, or else what the UTF-8 reader reads there (a run of ASCII that
 * ends by run_end, one character, or one ill-formed subsequence); writes
 * unchecked.  *lead_end is where the last lead surrogate read ended: a
 * trail surrogate right there makes a surrogate pair byte sequence, which
 * WTF-8 does not allow (seed 003 section 6). */
static UTFKIT_ALWAYS_INLINE size_t wtf8_step(text_reader *reader, uint8_t *dst, size_t out,
                                             size_t run_end, int to, size_t *lead_end)
{
    const uint8_t *src = reader->src;
    size_t len = reader->len, at = reader->i;
    if (src[at] != 0xED || len - at < 2 || src[at + 1] < 0xA0 || src[at + 1] > 0xBF)
        return utf8_checked_step(reader, dst, out, run_end, to);
    uint32_t surrogate = surrogate_byte_sequence_at(src, len, at);
    if (surrogate == 0) /* ED A0..BF cut short: a subpart of 2 bytes (seed 003 section 5) */
        return step_over_ill_formed(reader, len - at == 2 ? UTFKIT_END_OF_DATA
                                                          : UTFKIT_INVALID_CONTINUATION,
                                    2, at, dst, out, to);
    if (is_lead_surrogate(surrogate))
        *lead_end = at + 3;
    if ((is_trail_surrogate(surrogate) && at == *lead_end) || !form_takes_lone_surrogates(to))
        return step_over_ill_formed(reader, UTFKIT_SURROGATE, 3, at, dst, out, to);
    reader->i = at + 3;
    return put_lone_surrogate(dst, out, to, surrogate);
}

/* WTF-8 into a form the active kernel has UTF-8 block converters for
 * (UTF-16, UTF-32): the blocks take the surrogate-free stretches and stop
 * before any surrogate byte sequence, which the steps take. */
static UTFKIT_ALWAYS_INLINE utfkit_result wtf8_read_in_blocks(const uint8_t *src, size_t len,
                                                              int errors, utfkit_sink *sink,
                                                              int to,
                                                              utfkit_transcode_block blocks)
{
    text_reader reader = text_reader_over(src, len, errors, 0);
    reader.blocks = blocks;
    reader.block_byte_orders = to == UTFKIT_UTF16BE || to == UTFKIT_UTF32BE;
    /* a run shorter than a block too (transcode_blocks_tail): a padding
     * byte is U+0000, one UTF-16 or UTF-32 code unit */
    reader.tail_pad_out = to == UTFKIT_UTF16LE || to == UTFKIT_UTF16BE ? 2 : 4;
    size_t lead_end = SIZE_MAX;
    sink_window window = SINK_WINDOW_START;
    uint8_t scratch[SINK_SCRATCH];
    while (reader.i < len && reader.status == UTFKIT_OK) {
        /* As UTF-8 (a surrogate byte sequence becomes one unit, a U+FFFD
         * at most 4 bytes for at least 1 byte): no tail. */
        sink_window_open(sink, &window, scratch, reader.i, len, to == UTFKIT_UTF16LE || to == UTFKIT_UTF16BE ? 2 : 4, 0);
        while (reader.i < window.stop && reader.status == UTFKIT_OK) {
            if (!transcode_blocks_step(&reader, window.dst, &window.out, window.run_end))
                window.out = wtf8_step(&reader, window.dst, window.out,
                                       scalar_run_end(&reader, window.run_end), to, &lead_end);
        }
        reader.i = sink_window_close(sink, &window, reader.i, to);
    }
    return text_reader_result(&reader, sink);
}

utfkit_result wtf8_transcode(const uint8_t *src, size_t len, int to, int errors, utfkit_sink *sink)
{
    const utfkit_kernel *kernel = utfkit_kernel_active();
    switch (to) {
    case UTFKIT_UTF16LE:
    case UTFKIT_UTF16BE:
        if (kernel->utf8_to_utf16 != NULL)
            return to == UTFKIT_UTF16LE
                       ? wtf8_read_in_blocks(src, len, errors, sink, UTFKIT_UTF16LE, kernel->utf8_to_utf16)
                       : wtf8_read_in_blocks(src, len, errors, sink, UTFKIT_UTF16BE, kernel->utf8_to_utf16);
        break;
    case UTFKIT_UTF32LE:
    case UTFKIT_UTF32BE:
        if (kernel->utf8_to_utf32 != NULL)
            return to == UTFKIT_UTF32LE
                       ? wtf8_read_in_blocks(src, len, errors, sink, UTFKIT_UTF32LE, kernel->utf8_to_utf32)
                       : wtf8_read_in_blocks(src, len, errors, sink, UTFKIT_UTF32BE, kernel->utf8_to_utf32);
        break;
    default:
        break;
    }
    code_point_stream stream = code_point_stream_into(sink, to, errors);
    /* src[i..utf8_end) is known to be well-formed UTF-8, and utf8_error is
     * what ends it (valid while utf8_end >= i). */
    size_t i = 0, utf8_end = 0, lead_end = SIZE_MAX;
    utfkit_result utf8_error = {UTFKIT_OK, 0, 0, 0};
    int known = 0;
    while (i < len) {
        if (!known || i > utf8_end) {
            utf8_error = utf8_first_ill_formed(src + i, len - i);
            utf8_end = i + utf8_error.position;
            known = 1;
        }
        if (i < utf8_end) {
            emit_utf8(&stream, src + i, utf8_end - i);
            i = utf8_end;
            continue;
        }
        if (utf8_error.status == UTFKIT_OK)
            break;
        uint32_t surrogate = surrogate_byte_sequence_at(src, len, i);
        if (surrogate != 0) {
            int stop;
            if (is_trail_surrogate(surrogate) && lead_end == i) {
                /* seed 003 section 6: a surrogate pair byte sequence is
                 * ill-formed; the lead stands, the trail is the error. */
                stop = emit_ill_formed(&stream, UTFKIT_SURROGATE, i, 3);
            } else {
                stop = emit_lone_surrogate(&stream, surrogate, i);
            }
            if (stop)
                break;
            if (is_lead_surrogate(surrogate))
                lead_end = i + 3;
            i += 3;
            continue;
        }
        int status;
        size_t length;
        generalized_utf8_cut(src, len, i, utf8_error, &status, &length);
        if (emit_ill_formed(&stream, status, i, length))
            break;
        i += length;
    }
    return code_point_stream_result(&stream, len);
}
