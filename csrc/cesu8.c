/*
 * cesu8.c -- reading CESU-8 (Unicode Technical Report #26) and Java's
 * Modified UTF-8 (MUTF-8: the JNI specification's "modified UTF-8", the
 * class-file CONSTANT_Utf8 form) into any form.
 *
 * Both write each UTF-16 code unit of the text in generalized UTF-8's 1, 2
 * or 3 bytes (seed 003 section 5), so a supplementary character is a lead
 * surrogate byte sequence followed by a trail surrogate byte sequence (6
 * bytes) and there is no 4-byte form: F0..FF never start a sequence.
 * CESU-8 is ill-formed wherever its UTF-16 would be: an unpaired surrogate
 * is an error, cut as UTF-16 cuts one (UTR #26 section 2).  MUTF-8 carries
 * unpaired surrogates, as Java strings do; it writes U+0000 as C0 80 so
 * that no byte is 00, and a raw 00 is ill-formed.
 *
 * The UTF-8 kernel finds the stretches that are UTF-8 as well (below U+10000
 * the forms agree); the reader decides only where UTF-8 would stop, at a
 * byte F0..FF, and (MUTF-8) at a 00.
 */
#include "surrogates.h"
#include "utf8_steps.h"

/* First i in [from, to) with src[i] F0..FF, or 00 when zero_is_ill_formed. */
static size_t next_foreign_byte(const uint8_t *src, size_t from, size_t to, int zero_is_ill_formed)
{
    return from + utfkit_kernel_active()->utf8_bmp_prefix_length(src + from, to - from,
                                                                 zero_is_ill_formed);
}

/* After a lead surrogate sequence ending at `at`: 1 if the input ends where
 * a trail surrogate sequence could still follow (nothing, ED, or ED B0..BF),
 * so that the pair is cut short rather than unpaired. */
static int trail_cut_off_at_end(const uint8_t *src, size_t len, size_t at)
{
    size_t rest = len - at;
    return rest == 0 || (rest == 1 && src[at] == 0xED) ||
           (rest == 2 && src[at] == 0xED && src[at + 1] >= 0xB0 && src[at + 1] <= 0xBF);
}

/* Reads at reader->i what is not UTF-8 of the BMP -- a byte F0..FF, in
 * MUTF-8 a 00 or C0, a surrogate byte sequence (a pair, or one alone) or
 * ED A0..BF cut short -- or else what the UTF-8 reader reads there (a run of
 * ASCII that ends by run_end, one character, or one ill-formed
 * subsequence); writes unchecked into UTF-16 or UTF-32 (`to`), exactly as
 * the stream reader of cesu8_transcode below cuts and writes it.  run_end
 * comes before any 00 when `modified` (a 00 ends a run of ASCII there). */
static UTFKIT_ALWAYS_INLINE size_t cesu8_step(text_reader *reader, uint8_t *dst, size_t out,
                                              size_t run_end, int modified, int to)
{
    const uint8_t *src = reader->src;
    size_t len = reader->len, at = reader->i;
    uint8_t lead = src[at];
    if (lead >= 0xF0 || (modified && lead == 0)) /* no 4-byte form (UTR #26); U+0000 is C0 80 */
        return step_over_ill_formed(reader, UTFKIT_INVALID_START, 1, at, dst, out, to);
    if (modified && lead == 0xC0) {
        if (len - at >= 2 && src[at + 1] == 0x80) { /* MUTF-8: U+0000 */
            reader->i = at + 2;
            return put(dst, out, to, 0);
        }
        return step_over_ill_formed(reader, len - at == 1 ? UTFKIT_END_OF_DATA
                                                          : UTFKIT_INVALID_CONTINUATION,
                                    1, at, dst, out, to);
    }
    if (lead != 0xED || len - at < 2 || src[at + 1] < 0xA0 || src[at + 1] > 0xBF)
        return utf8_checked_step(reader, dst, out, run_end, to);
    uint32_t surrogate = surrogate_byte_sequence_at(src, len, at);
    if (surrogate == 0) /* ED A0..BF cut short: a subpart of 2 bytes (seed 003 section 5) */
        return step_over_ill_formed(reader, len - at == 2 ? UTFKIT_END_OF_DATA
                                                          : UTFKIT_INVALID_CONTINUATION,
                                    2, at, dst, out, to);
    uint32_t next = is_lead_surrogate(surrogate) ? surrogate_byte_sequence_at(src, len, at + 3) : 0;
    if (is_trail_surrogate(next)) { /* a surrogate pair: one supplementary character */
        reader->i = at + 6;
        return put(dst, out, to, 0x10000 + ((surrogate - 0xD800) << 10) + (next - 0xDC00));
    }
    if (modified) {
        if (!form_takes_lone_surrogates(to))
            return step_over_ill_formed(reader, UTFKIT_SURROGATE, 3, at, dst, out, to);
        reader->i = at + 3;
        return put_lone_surrogate(dst, out, to, surrogate);
    }
    if (is_lead_surrogate(surrogate) && trail_cut_off_at_end(src, len, at + 3))
        return step_over_ill_formed(reader, UTFKIT_END_OF_DATA, len - at, at, dst, out, to);
    return step_over_ill_formed(reader, UTFKIT_SURROGATE, 3, at, dst, out, to);
}

/* The most a block is given: its input is still in L1 (48 KiB here) when
 * the search after it reads it again, beside the block's output (measured,
 * MUTF-8 to UTF-16 of lipsum Latin under sse4: 21.6 GB/s with 16384 bytes,
 * 24 with 4096). */
#define CESU8_BLOCK_SPAN_MAX 4096

/* The block step of the reader below: the UTF-8 block converter into
 * UTF-16 or UTF-32 (units of `unit_bytes`) reads src[i..run_end), as far
 * as that text is UTF-8 of the BMP with no byte F0..FF (nor 00, in
 * MUTF-8), where the forms agree with UTF-8 (UTR #26 section 2; JVM spec
 * section 4.4.7); the block stops by itself before a surrogate byte
 * sequence or C0 80, which are ill-formed UTF-8.  Where the last block met
 * more than ASCII, that stretch is searched first (*scan_first), which
 * also brings it into L1 for the block.  After a block of ASCII alone
 * (one unit written per byte read), the next block runs first, and what it
 * wrote is kept up to the first such byte of what it read: searched for
 * only if it met more than ASCII, or for 00 with memchr -- ASCII holds no
 * byte F0..FF.  A block cut after it ran halves the span the next is
 * given, and one not cut doubles it; the byte at a cut is the scalar
 * step's.  Returns 1 if it took something. */
static UTFKIT_ALWAYS_INLINE int cesu8_blocks_step(text_reader *reader, uint8_t *dst, size_t *out,
                                                  size_t run_end, int modified, size_t unit_bytes,
                                                  int *scan_first)
{
    size_t at = reader->i;
    if (at < reader->scalar_until || run_end - at < UTFKIT_TRANSCODE_BLOCK)
        return 0;
    size_t span = run_end - at < reader->block_span ? run_end - at : reader->block_span;
    const uint8_t *read = reader->src + at;
    size_t written = 0, consumed = 0, right;
    int cut;
    if (*scan_first) {
        right = reader->kernel->utf8_bmp_prefix_length(read, span, modified);
        if (right >= UTFKIT_TRANSCODE_BLOCK)
            consumed = reader->blocks(read, right, reader->block_byte_orders, dst + *out, &written);
        cut = consumed == right && right < span;
    } else {
        consumed = reader->blocks(read, span, reader->block_byte_orders, dst + *out, &written);
        if (written == unit_bytes * consumed) {
            const uint8_t *nul = modified ? memchr(read, 0, consumed) : NULL;
            right = nul != NULL ? (size_t)(nul - read) : consumed;
        } else {
            right = reader->kernel->utf8_bmp_prefix_length(read, consumed, modified);
        }
        cut = right < consumed;
        if (cut) {
            /* src[at..at + right) is UTF-8 of the BMP, a unit per character */
            written = unit_bytes * reader->kernel->utf8_code_points(read, right);
            consumed = right;
            if (reader->block_span > UTFKIT_CUT_SPAN_MIN)
                reader->block_span /= 2;
        } else if (reader->block_span < CESU8_BLOCK_SPAN_MAX) {
            reader->block_span *= 2;
        }
    }
    *scan_first = written != unit_bytes * consumed;
    reader->i = at + consumed;
    *out += written;
    return blocks_step_settled(reader, consumed, cut);
}

/* The block step of the reader below: the kernel's blocks for these forms
 * take src[i..run_end) up to what they leave to cesu8_step.  A block that
 * stops before run_end was cut there, and one cut after less than a block
 * counts as a refusal (blocks_step_settled): in text full of what the
 * blocks leave (emoji, written as surrogate pairs), the scalar steps go
 * on for ever longer stretches rather than the blocks taking a few bytes
 * at a time between them. */
static UTFKIT_ALWAYS_INLINE int cesu8_bmp_blocks_step(text_reader *reader, uint8_t *dst, size_t *out,
                                                      size_t run_end)
{
    size_t at = reader->i;
    if (at < reader->scalar_until || run_end - at < UTFKIT_TRANSCODE_BLOCK)
        return 0;
    size_t written;
    size_t consumed = reader->blocks(reader->src + at, run_end - at, reader->block_byte_orders,
                                     dst + *out, &written);
    reader->i = at + consumed;
    *out += written;
    return blocks_step_settled(reader, consumed, consumed < run_end - at);
}

/* CESU-8 or MUTF-8 into UTF-16 or UTF-32 on a kernel whose blocks for
 * these forms (utf8_bmp_to_utf16, utf8_bmp_to_utf32: kernels.h) stop by
 * themselves before a byte F0..FF (and 00, in MUTF-8): one pass over the
 * text.  The blocks take what they can, cesu8_step the rest -- the byte
 * or sequence the form treats apart from UTF-8, the characters just
 * before it, errors -- and the blocks go on after it.  A scalar step's run
 * of ASCII must not pass a 00 (MUTF-8): for those steps alone the reader
 * looks ahead for the next byte F0..FF or 00 (block_lookahead, readers.h). */
static UTFKIT_ALWAYS_INLINE utfkit_result cesu8_read_in_bmp_blocks(const uint8_t *src, size_t len,
                                                                   int modified, int errors,
                                                                   utfkit_sink *sink, int to,
                                                                   utfkit_transcode_block blocks)
{
    text_reader reader = text_reader_over(src, len, errors, 0);
    reader.blocks = blocks;
    reader.block_byte_orders = (to == UTFKIT_UTF16BE || to == UTFKIT_UTF32BE) | modified << 1;
    size_t unit_bytes = to == UTFKIT_UTF16LE || to == UTFKIT_UTF16BE ? 2 : 4;
    block_lookahead lookahead = BLOCK_LOOKAHEAD_START;
    sink_window window = SINK_WINDOW_START;
    uint8_t scratch[SINK_SCRATCH];
    while (reader.i < len && reader.status == UTFKIT_OK) {
        /* As UTF-8: a unit (2 or 4 bytes) per character of 1 byte or more,
         * a U+FFFD for each ill-formed subsequence of 1 byte or more. */
        sink_window_open(sink, &window, scratch, reader.i, len, unit_bytes, 0);
        while (reader.i < window.stop && reader.status == UTFKIT_OK) {
            if (cesu8_bmp_blocks_step(&reader, window.dst, &window.out, window.run_end))
                continue;
            if (block_lookahead_wanted(&lookahead, reader.i, len)) {
                size_t span = block_lookahead_span(&lookahead, len);
                block_lookahead_extend(&lookahead, span,
                                       reader.kernel->utf8_bmp_prefix_length(
                                           src + lookahead.end, span, modified));
            }
            /* A 00 ends a run of ASCII here: run_end is never past one. */
            size_t run_end = window.run_end < lookahead.end ? window.run_end : lookahead.end;
            window.out = cesu8_step(&reader, window.dst, window.out,
                                    reader.i == run_end ? window.run_end
                                                        : scalar_run_end(&reader, run_end),
                                    modified, to);
        }
        reader.i = sink_window_close(sink, &window, reader.i, to);
    }
    return text_reader_result(&reader, sink);
}

/* CESU-8 or MUTF-8 into UTF-16 or UTF-32 on a kernel with UTF-8 block
 * converters into that form but none for these forms: cesu8_blocks_step
 * takes what it can, and cesu8_step the rest.  A scalar step's run of ASCII must not pass a byte
 * F0..FF or 00 (MUTF-8): for those steps alone the reader looks ahead for
 * the next such byte (block_lookahead, readers.h). */
static UTFKIT_ALWAYS_INLINE utfkit_result cesu8_read_in_blocks(const uint8_t *src, size_t len,
                                                               int modified, int errors,
                                                               utfkit_sink *sink, int to,
                                                               utfkit_transcode_block blocks)
{
    text_reader reader = text_reader_over(src, len, errors, 0);
    reader.blocks = blocks;
    reader.block_byte_orders = to == UTFKIT_UTF16BE || to == UTFKIT_UTF32BE;
    reader.block_span = CESU8_BLOCK_SPAN_MAX;
    size_t unit_bytes = to == UTFKIT_UTF16LE || to == UTFKIT_UTF16BE ? 2 : 4;
    int scan_first = 0;
    block_lookahead lookahead = BLOCK_LOOKAHEAD_START;
    sink_window window = SINK_WINDOW_START;
    uint8_t scratch[SINK_SCRATCH];
    while (reader.i < len && reader.status == UTFKIT_OK) {
        /* As UTF-8: a unit (2 or 4 bytes) per character of 1 byte or more,
         * a U+FFFD for each ill-formed subsequence of 1 byte or more. */
        sink_window_open(sink, &window, scratch, reader.i, len, unit_bytes, 0);
        while (reader.i < window.stop && reader.status == UTFKIT_OK) {
            if (cesu8_blocks_step(&reader, window.dst, &window.out, window.run_end, modified,
                                  unit_bytes, &scan_first))
                continue;
            if (block_lookahead_wanted(&lookahead, reader.i, len)) {
                size_t span = block_lookahead_span(&lookahead, len);
                block_lookahead_extend(&lookahead, span,
                                       reader.kernel->utf8_bmp_prefix_length(
                                           src + lookahead.end, span, modified));
            }
            /* A 00 ends a run of ASCII here: run_end is never past one. */
            size_t run_end = window.run_end < lookahead.end ? window.run_end : lookahead.end;
            window.out = cesu8_step(&reader, window.dst, window.out,
                                    reader.i == run_end ? window.run_end
                                                        : scalar_run_end(&reader, run_end),
                                    modified, to);
        }
        reader.i = sink_window_close(sink, &window, reader.i, to);
    }
    return text_reader_result(&reader, sink);
}

#define CESU8_IN_BLOCKS(form, blocks) \
    cesu8_read_in_blocks(src, len, modified, errors, sink, form, blocks)
#define CESU8_IN_BMP_BLOCKS(form, blocks) \
    cesu8_read_in_bmp_blocks(src, len, modified, errors, sink, form, blocks)

utfkit_result cesu8_transcode(const uint8_t *src, size_t len, int modified, int to, int errors,
                              utfkit_sink *sink)
{
    const utfkit_kernel *kernel = utfkit_kernel_active();
    switch (to) {
    case UTFKIT_UTF16LE:
        if (kernel->utf8_bmp_to_utf16 != NULL)
            return CESU8_IN_BMP_BLOCKS(UTFKIT_UTF16LE, kernel->utf8_bmp_to_utf16);
        if (kernel->utf8_to_utf16 != NULL)
            return CESU8_IN_BLOCKS(UTFKIT_UTF16LE, kernel->utf8_to_utf16);
        break;
    case UTFKIT_UTF16BE:
        if (kernel->utf8_bmp_to_utf16 != NULL)
            return CESU8_IN_BMP_BLOCKS(UTFKIT_UTF16BE, kernel->utf8_bmp_to_utf16);
        if (kernel->utf8_to_utf16 != NULL)
            return CESU8_IN_BLOCKS(UTFKIT_UTF16BE, kernel->utf8_to_utf16);
        break;
    case UTFKIT_UTF32LE:
        if (kernel->utf8_bmp_to_utf32 != NULL)
            return CESU8_IN_BMP_BLOCKS(UTFKIT_UTF32LE, kernel->utf8_bmp_to_utf32);
        if (kernel->utf8_to_utf32 != NULL)
            return CESU8_IN_BLOCKS(UTFKIT_UTF32LE, kernel->utf8_to_utf32);
        break;
    case UTFKIT_UTF32BE:
        if (kernel->utf8_bmp_to_utf32 != NULL)
            return CESU8_IN_BMP_BLOCKS(UTFKIT_UTF32BE, kernel->utf8_bmp_to_utf32);
        if (kernel->utf8_to_utf32 != NULL)
            return CESU8_IN_BLOCKS(UTFKIT_UTF32BE, kernel->utf8_to_utf32);
        break;
    default:
        break;
    }
    /* Text without surrogates is UTF-8 of the BMP (and, in MUTF-8, with no
     * 00), which one pass of the kernel validates: it is then written as
     * well-formed UTF-8, as the UTF-8 reader writes what the kernel
     * validated. */
    if (kernel->utf8_bmp_validate(src, len, modified)) {
        utf8_well_formed_into(src, len, sink, to);
        return sink_result(sink, len);
    }
    code_point_stream stream = code_point_stream_into(sink, to, errors);
    /* src[i..utf8_end) is known to be well-formed UTF-8, and utf8_error is
     * what ends it (valid while utf8_end >= i). */
    size_t i = 0, utf8_end = 0;
    utfkit_result utf8_error = {UTFKIT_OK, 0, 0, 0};
    int known = 0;
    while (i < len) {
        if (!known || i > utf8_end) {
            utf8_error = utf8_first_ill_formed(src + i, len - i);
            utf8_end = i + utf8_error.position;
            known = 1;
        }
        if (i < utf8_end) {
            if (utf8_is_continuation(src[i])) {
                /* the rest of a 4-byte UTF-8 sequence whose lead byte was
                 * rejected: each byte is an invalid start, as in UTF-8 */
                if (emit_ill_formed(&stream, UTFKIT_INVALID_START, i, 1))
                    break;
                i += 1;
                continue;
            }
            /* i is a character boundary of UTF-8 text */
            size_t foreign = next_foreign_byte(src, i, utf8_end, modified);
            emit_utf8(&stream, src + i, foreign - i);
            i = foreign;
            if (i < utf8_end) {
                /* F0..F4: the 4-byte form does not exist here (UTR #26);
                 * 00 in MUTF-8: U+0000 is C0 80. */
                if (emit_ill_formed(&stream, UTFKIT_INVALID_START, i, 1))
                    break;
                i += 1;
            }
            continue;
        }
        if (utf8_error.status == UTFKIT_OK)
            break;
        if (src[i] >= 0xF0) {
            /* F0..F4 (a 4-byte sequence, here cut short or ill-formed) and
             * F5..FF start nothing: one byte, as inside UTF-8 text above */
            if (emit_ill_formed(&stream, UTFKIT_INVALID_START, i, 1))
                break;
            i += 1;
            continue;
        }
        if (modified && src[i] == 0xC0) {
            /* MUTF-8: C0 80 is U+0000 (the 2-byte form of 00) */
            if (len - i >= 2 && src[i + 1] == 0x80) {
                emit_scalar(&stream, 0);
                i += 2;
                continue;
            }
            if (emit_ill_formed(&stream, len - i == 1 ? UTFKIT_END_OF_DATA
                                                      : UTFKIT_INVALID_CONTINUATION, i, 1))
                break;
            i += 1;
            continue;
        }
        uint32_t surrogate = surrogate_byte_sequence_at(src, len, i);
        if (surrogate != 0) {
            uint32_t next = is_lead_surrogate(surrogate)
                                ? surrogate_byte_sequence_at(src, len, i + 3) : 0;
            if (is_trail_surrogate(next)) {
                /* a surrogate pair: one supplementary character */
                emit_scalar(&stream, 0x10000 + ((surrogate - 0xD800) << 10) + (next - 0xDC00));
                i += 6;
                continue;
            }
            int stop;
            if (modified) {
                stop = emit_lone_surrogate(&stream, surrogate, i);
            } else if (is_lead_surrogate(surrogate) && trail_cut_off_at_end(src, len, i + 3)) {
                stop = emit_ill_formed(&stream, UTFKIT_END_OF_DATA, i, len - i);
                i = len - 3; /* (ignored or replaced: the input ends here) */
            } else {
                stop = emit_ill_formed(&stream, UTFKIT_SURROGATE, i, 3);
            }
            if (stop)
                break;
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
