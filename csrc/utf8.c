/*
 * utf8.c -- UTF-8 validation, first-error reporting, U+FFFD repair and
 * counting, all driven by the Table 3-7 automaton of utf8_dfa.h.
 *
 * The fast loops belong to the active kernel (utf8_scan.h, compiled once
 * per instruction set).  Everything that decides *what* is reported is here,
 * shared by all kernels: when a kernel stops at a rejected block, the block
 * is replayed byte by byte from its starting state to find the exact
 * rejecting byte, and the maximal subpart follows from the automaton
 * (utf8_dfa.h).
 */
#include <string.h>

#include "kernels.h"
#include "utf8_dfa.h"
#include "utf8_steps.h"
#include "utfkit.h"



static inline utfkit_result well_formed(size_t len)
{
    return (utfkit_result){UTFKIT_OK, len, 0, 0};
}

/* The input ended in the middle of a character that is well-formed so far. */
static utfkit_result truncated_at_end(const uint8_t *src, size_t len)
{
    size_t lead = len - 1;
    while (utf8_is_continuation(src[lead]))
        lead--;
    return (utfkit_result){UTFKIT_END_OF_DATA, lead, len - lead, 0};
}

/* Exact report for where kernel->utf8_advance stopped. */
static utfkit_result report(const uint8_t *src, size_t len, utf8_progress progress)
{
    if (progress.position == len) {
        if (UTF8_STATE(progress.state) == UTF8_ACCEPT)
            return well_formed(len);
        return truncated_at_end(src, len);
    }
    return ill_formed_at(src, progress.position, progress.state);
}

static utfkit_result first_ill_formed(const uint8_t *src, size_t len, const utfkit_kernel *kernel)
{
    utf8_progress start = {UTF8_ACCEPT, 0};
    return report(src, len, kernel->utf8_advance(src, len, start));
}

/* The first ill-formed subsequence at or after `bound`, a character
 * boundary with only well-formed text before it (utf8_well_formed_bound):
 * the automaton resumes there, so the text before it is not read again. */
static utfkit_result first_ill_formed_after(const uint8_t *src, size_t len, size_t bound,
                                            const utfkit_kernel *kernel)
{
    utf8_progress start = {UTF8_ACCEPT, bound};
    return report(src, len, kernel->utf8_advance(src, len, start));
}

utfkit_result utf8_first_ill_formed(const uint8_t *src, size_t len)
{
    return first_ill_formed(src, len, utfkit_kernel_active());
}

int utfkit_utf8_validate(const uint8_t *src, size_t len)
{
    return utfkit_kernel_active()->utf8_validate(src, len);
}

utfkit_result utfkit_utf8_check(const uint8_t *src, size_t len)
{
    const utfkit_kernel *kernel = utfkit_kernel_active();
    /* Well-formed input, the common case, takes the fast validation; the
     * exact search for an error starts where the validation found it (a
     * few vectors before it), not at the start. */
    size_t bound = kernel->utf8_well_formed_bound(src, len);
    if (bound == len)
        return well_formed(len);
    return first_ill_formed_after(src, len, bound, kernel);
}

/* ---- repair: U+FFFD substitution of maximal subparts, or removal ----
 *
 * The UTF-8 reader into UTF-8 with REPLACE or IGNORE (utf8_read): the
 * well-formed stretches are copied, each maximal subpart becomes U+FFFD or
 * nothing.  It never writes dst[cap] or beyond; on running out of room it
 * stops writing but keeps counting, so that `written` is always the exact
 * length of the whole output. */

static utfkit_result repaired(const uint8_t *src, size_t len, int errors, uint8_t *dst,
                              size_t cap)
{
    utfkit_sink sink = sink_over(dst, cap);
    return utf8_transcode(src, len, UTFKIT_UTF8, errors, &sink);
}

static utfkit_result repaired_length(const uint8_t *src, size_t len, int errors)
{
    utfkit_result result = repaired(src, len, errors, NULL, 0);
    if (result.status == UTFKIT_OUTPUT_TOO_SMALL)
        result.status = UTFKIT_OK;
    return result;
}

utfkit_result utfkit_utf8_sanitize(const uint8_t *src, size_t len, uint8_t *dst, size_t cap)
{
    return repaired(src, len, UTFKIT_REPLACE, dst, cap);
}

utfkit_result utfkit_utf8_sanitized_length(const uint8_t *src, size_t len)
{
    return repaired_length(src, len, UTFKIT_REPLACE);
}

utfkit_result utfkit_utf8_remove_ill_formed(const uint8_t *src, size_t len, uint8_t *dst,
                                            size_t cap)
{
    return repaired(src, len, UTFKIT_IGNORE, dst, cap);
}

utfkit_result utfkit_utf8_removed_length(const uint8_t *src, size_t len)
{
    return repaired_length(src, len, UTFKIT_IGNORE);
}

/* ---- counting ---- */

/* Characters in well-formed src[0..len): every byte that is not a
 * continuation byte (80..BF) starts one; the kernel counts them. */
static size_t count_characters(const uint8_t *src, size_t len, const utfkit_kernel *kernel)
{
    return kernel->utf8_code_points(src, len);
}

int utfkit_utf8_validate_lengths(const uint8_t *src, size_t len, size_t *code_points,
                                 size_t *utf16_units)
{
    const utfkit_kernel *kernel = utfkit_kernel_active();
    if (kernel->utf8_validate_census != NULL) {
        utf8_census census;
        if (kernel->utf8_validate_census(src, len, &census) != len)
            return 0;
        *code_points = census.code_points;
        *utf16_units = census.utf16_units;
        return 1;
    }
    if (!kernel->utf8_validate(src, len))
        return 0;
    *code_points = kernel->utf8_code_points(src, len);
    *utf16_units = kernel->utf8_utf16_units(src, len);
    return 1;
}

size_t utfkit_utf8_count(const uint8_t *src, size_t len)
{
    const utfkit_kernel *kernel = utfkit_kernel_active();
    size_t bound;
    if (kernel->utf8_validate_census != NULL) {
        utf8_census census;
        bound = kernel->utf8_validate_census(src, len, &census);
        if (bound == len)
            return census.code_points; /* one pass for well-formed text */
    } else {
        bound = kernel->utf8_well_formed_bound(src, len);
        if (bound == len)
            return count_characters(src, len, kernel);
    }
    /* src[0..bound) is well-formed: its characters are counted, the rest
     * is read error by error. */
    size_t characters = count_characters(src, bound, kernel), i = bound;
    for (;;) {
        utfkit_result error = first_ill_formed(src + i, len - i, kernel);
        characters += count_characters(src + i, error.position, kernel);
        if (error.status == UTFKIT_OK)
            return characters;
        characters += 1; /* one U+FFFD for the maximal subpart */
        i += error.position + error.subpart_length;
    }
}

/* ---- conversion to other forms ---- */

/* The most bytes one input byte of UTF-8 becomes in each form (ASCII
 * doubles in UTF-16 and quadruples in UTF-32); 0 when only counting. */
static UTFKIT_ALWAYS_INLINE size_t output_per_utf8_byte(int to)
{
    /* CESU-8 and MUTF-8: a 4-byte character becomes 6 bytes, and (MUTF-8)
     * U+0000 becomes C0 80. */
    return (to == UTFKIT_UTF8 || to == UTFKIT_WTF8) ? 1
         : (to == UTFKIT_UTF16LE || to == UTFKIT_UTF16BE || to == UTFKIT_CESU8 ||
            to == UTFKIT_MUTF8) ? 2
         : to == UTFKIT_COUNT_ONLY ? 0 : 4;
}

/* Decodes well-formed src[0..len) into the sink. */
static UTFKIT_ALWAYS_INLINE void utf8_decode_well_formed(const uint8_t *src, size_t len,
                                                         utfkit_sink *sink, int to)
{
    text_reader reader = text_reader_over(src, len, UTFKIT_STRICT, 0);
    sink_window window = SINK_WINDOW_STRETCHED;
    uint8_t scratch[SINK_SCRATCH];
    while (reader.i < len) {
        sink_window_open(sink, &window, scratch, reader.i, len, output_per_utf8_byte(to), 0);
        while (reader.i < window.stop)
            window.out = utf8_step(&reader, window.dst, window.out, window.run_end, to);
        reader.i = sink_window_close_status(sink, &window, reader.i, to, &reader.status);
    }
}

/* The reader for a kernel with a block converter to this form: blocks of
 * well-formed text go to the converter, which checks them itself (one pass
 * over the input); the rest -- a block with an ill-formed subsequence, the
 * tail, the last bytes before the sink is full -- goes through checked
 * scalar steps. */
static UTFKIT_ALWAYS_INLINE utfkit_result utf8_read_in_blocks(const uint8_t *src, size_t len,
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
    sink_window window = SINK_WINDOW_STRETCHED;
    uint8_t scratch[SINK_SCRATCH];
    while (reader.i < len && reader.status == UTFKIT_OK) {
        /* A U+FFFD is no longer than the output bound of the shortest
         * subpart, one byte, so no tail needs the staged path. */
        sink_window_open(sink, &window, scratch, reader.i, len, output_per_utf8_byte(to), 0);
        while (reader.i < window.stop && reader.status == UTFKIT_OK) {
            if (!transcode_blocks_step(&reader, window.dst, &window.out, window.run_end))
                window.out = utf8_checked_step(&reader, window.dst, window.out,
                                               scalar_run_end(&reader, window.run_end), to);
        }
        reader.i = sink_window_close_status(sink, &window, reader.i, to, &reader.status);
    }
    return text_reader_result(&reader, sink);
}

static UTFKIT_ALWAYS_INLINE utfkit_result utf8_read(const uint8_t *src, size_t len, int errors,
                                                    utfkit_sink *sink, int to)
{
    const utfkit_kernel *kernel = utfkit_kernel_active();
    utfkit_transcode_block blocks =
        to == UTFKIT_UTF16LE || to == UTFKIT_UTF16BE ? kernel->utf8_to_utf16
        : to == UTFKIT_UTF32LE || to == UTFKIT_UTF32BE ? kernel->utf8_to_utf32
        : NULL;
    if (blocks != NULL)
        return utf8_read_in_blocks(src, len, errors, sink, to, blocks);
    /* Well-formed input, the common case, is validated by the kernel and
     * then copied (UTF-8, WTF-8) or decoded without further checks. */
    size_t bound = kernel->utf8_well_formed_bound(src, len);
    if (bound == len) {
        utf8_well_formed_into(src, len, sink, to);
        return sink_result(sink, len);
    }
    /* src[0..bound) is well-formed: written unchecked, the rest read error
     * by error. */
    utf8_well_formed_into(src, bound, sink, to);
    size_t i = bound;
    for (;;) {
        utfkit_result error = first_ill_formed(src + i, len - i, kernel);
        utf8_well_formed_into(src + i, error.position, sink, to);
        if (error.status == UTFKIT_OK)
            break;
        if (errors == UTFKIT_STRICT)
            return sink_error(sink, error.status, i + error.position, error.subpart_length);
        if (errors == UTFKIT_REPLACE)
            sink_put(sink, to, 0xFFFD);
        i += error.position + error.subpart_length;
    }
    return sink_result(sink, len);
}

#define UTF8_TO(to) utf8_read(src, len, errors, sink, to)

utfkit_result utf8_transcode(const uint8_t *src, size_t len, int to, int errors, utfkit_sink *sink)
{
    UTFKIT_FOR_EACH_DESTINATION(to, UTF8_TO)
}

/* ---- for the other UTF-8-based forms (readers.h) ---- */

/* Copies well-formed UTF-8 unchanged into a UTF-8 or WTF-8 sink: as much
 * as fits, cut back to a character boundary, so that dst holds only whole
 * characters. */
static void copy_well_formed(const uint8_t *src, size_t len, utfkit_sink *sink)
{
    if (!sink->full) {
        size_t room = sink->out <= sink->cap ? sink->cap - sink->out : 0;
        size_t n = len;
        if (n > room) {
            n = room;
            while (n > 0 && utf8_is_continuation(src[n]))
                n--; /* src[n] starts the first character that does not fit */
            sink->full = 1;
        }
        if (n != 0)
            memcpy(sink->dst + sink->out, src, n);
    }
    sink->out += len;
}

void utf8_well_formed_into(const uint8_t *src, size_t len, utfkit_sink *sink, int to)
{
    switch (to) {
    case UTFKIT_UTF8:
    case UTFKIT_WTF8:
        copy_well_formed(src, len, sink);
        return;
    case UTFKIT_COUNT_ONLY:
        sink->out += count_characters(src, len, utfkit_kernel_active());
        return;
    case UTFKIT_UTF16LE: utf8_decode_well_formed(src, len, sink, UTFKIT_UTF16LE); return;
    case UTFKIT_UTF16BE: utf8_decode_well_formed(src, len, sink, UTFKIT_UTF16BE); return;
    case UTFKIT_UTF32LE: utf8_decode_well_formed(src, len, sink, UTFKIT_UTF32LE); return;
    case UTFKIT_UTF32BE: utf8_decode_well_formed(src, len, sink, UTFKIT_UTF32BE); return;
    case UTFKIT_CESU8: utf8_decode_well_formed(src, len, sink, UTFKIT_CESU8); return;
    default: utf8_decode_well_formed(src, len, sink, UTFKIT_MUTF8); return;
    }
}
