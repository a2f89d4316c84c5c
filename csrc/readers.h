/*
 * readers.h -- one conversion loop per source encoding form (internal).
 * Each reads src in its form, handles ill-formed subsequences as `errors`
 * says, and writes every scalar value to the destination form `to` (or
 * only counts them, for UTFKIT_COUNT_ONLY) through a sink (sink.h).
 * transcode.c dispatches to them.
 */
#ifndef UTFKIT_READERS_H
#define UTFKIT_READERS_H

#include <string.h>

#include "kernels.h"
#include "sink.h"
#include "sink_drive.h"

utfkit_result utf8_transcode(const uint8_t *src, size_t len, int to, int errors, utfkit_sink *sink);
utfkit_result utf16_transcode(const uint8_t *src, size_t len, int big_endian, int to, int errors,
                              utfkit_sink *sink);
utfkit_result utf32_transcode(const uint8_t *src, size_t len, int big_endian, int to, int errors,
                              utfkit_sink *sink);
utfkit_result wtf8_transcode(const uint8_t *src, size_t len, int to, int errors, utfkit_sink *sink);
/* CESU-8, or MUTF-8 when modified is 1. */
utfkit_result cesu8_transcode(const uint8_t *src, size_t len, int modified, int to, int errors,
                              utfkit_sink *sink);
/* UTF-E-8 restricted to code points 0..limit: UTF-E-8 itself, or RFC 2279
 * (limit 7FFFFFFF). */
utfkit_result utfe8_transcode(const uint8_t *src, size_t len, uint64_t limit, int to, int errors,
                              utfkit_sink *sink);
/* The unfinished sequence at the end of src in that form (streams): its
 * bytes, well-formed so far, or 0. */
size_t utfe8_incomplete_suffix(const uint8_t *src, size_t len, uint64_t limit);

/* Latin-1, or ASCII when ascii is 1, into any form (latin1.c). */
utfkit_result latin1_transcode(const uint8_t *src, size_t len, int ascii, int to, int errors,
                               utfkit_sink *sink);
/* Any form but Latin-1 and ASCII into Latin-1 or ASCII (`to`), through
 * UTF-32 a piece at a time (latin1.c). */
utfkit_result narrow_transcode(const uint8_t *src, size_t len, int from, int to, int errors,
                               utfkit_sink *sink);

/* The conversion of src[0..len) from `from` to `to` into the sink, by the
 * reader of `from` (transcode.c): what utfkit_transcode does after checking
 * its arguments. */
utfkit_result transcode_read_into(const uint8_t *src, size_t len, int from, int to, int errors,
                                  utfkit_sink *sink);

/* The largest p in (begin, want] at which a reader of `form` that starts
 * at p reads src[p..len) exactly as the reader of src[begin..len) goes on
 * from p (between characters, with nothing pending); else a p at which
 * only the reason of a strict error may differ; else begin (partial.c). */
size_t reader_restart_point(const uint8_t *src, size_t begin, size_t want, size_t len, int form);

/* ---- the UTF-8 building blocks the other UTF-8-based forms share (utf8.c) ---- */

/* The first ill-formed subsequence of src as UTF-8 (Table 3-7): status,
 * position and maximal subpart, found by the active kernel. */
utfkit_result utf8_first_ill_formed(const uint8_t *src, size_t len);

/* Writes well-formed UTF-8 src[0..len) to the sink in form `to` (copied
 * whole into UTF-8 and WTF-8, only counted for UTFKIT_COUNT_ONLY). */
void utf8_well_formed_into(const uint8_t *src, size_t len, utfkit_sink *sink, int to);

/* Instantiates `body` (an always-inlined function taking the destination
 * form as its last argument) once per destination form. */
#define UTFKIT_FOR_EACH_DESTINATION(to, call)   \
    switch (to) {                               \
    case UTFKIT_UTF8: return call(UTFKIT_UTF8);       \
    case UTFKIT_UTF16LE: return call(UTFKIT_UTF16LE); \
    case UTFKIT_UTF16BE: return call(UTFKIT_UTF16BE); \
    case UTFKIT_UTF32LE: return call(UTFKIT_UTF32LE); \
    case UTFKIT_UTF32BE: return call(UTFKIT_UTF32BE); \
    case UTFKIT_WTF8: return call(UTFKIT_WTF8);       \
    case UTFKIT_CESU8: return call(UTFKIT_CESU8);     \
    case UTFKIT_MUTF8: return call(UTFKIT_MUTF8);     \
    default: return call(UTFKIT_COUNT_ONLY);          \
    }

/* When a reader tries its block converter again after it took nothing:
 * the scalar steps first go on for a stretch, short at first -- an error
 * should cost little scalar work, the converters taking the well-formed
 * text before it themselves -- and twice as long after each refusal in a
 * row, so that text full of what the converter leaves alone (surrogate
 * pairs for some kernels) does not retry it at every character. */
#define UTFKIT_SCALAR_STRETCH_MIN 4
#define UTFKIT_SCALAR_STRETCH_MAX 256

/* The bounds of text_reader.block_span (transcode_blocks_step_cut). */
#define UTFKIT_CUT_SPAN_MIN 64
#define UTFKIT_CUT_SPAN_MAX 16384

/* What a reader's steps share: the input, where they are in it, how errors
 * are handled and what stopped them, and the active kernel's block
 * converter into the destination form. */
typedef struct text_reader {
    const uint8_t *src;
    size_t len;
    size_t i;         /* the next byte to read */
    int errors;       /* UTFKIT_STRICT, UTFKIT_REPLACE or UTFKIT_IGNORE */
    int big_endian;   /* the byte order of a UTF-16 / UTF-32 source */
    int status;       /* UTFKIT_OK, or the strict error at i that stopped the reader */
    size_t subpart;   /* that error's maximal subpart, in bytes */
    const utfkit_kernel *kernel;
    /* The kernel's block converter into the destination (kernels.h), or
     * NULL, and the byte orders it is given. */
    utfkit_transcode_block blocks;
    int block_byte_orders;
    size_t scalar_until; /* after a refusal, the scalar steps go on up to here */
    size_t stretch;      /* the next stretch after a refusal */
    size_t block_span;   /* how much a block whose output may be cut is given (below) */
    /* For a reader of UTF-8 or WTF-8 whose block also takes runs shorter
     * than a block (transcode_blocks_tail): the bytes the block writes for
     * a byte of padding, U+0000 in the destination form; else 0. */
    size_t tail_pad_out;
} text_reader;

static UTFKIT_ALWAYS_INLINE text_reader text_reader_over(const uint8_t *src, size_t len,
                                                         int errors, int big_endian)
{
    text_reader reader = {src, len, 0, errors, big_endian, UTFKIT_OK, 0, utfkit_kernel_active(),
                          NULL, 0, 0, UTFKIT_SCALAR_STRETCH_MIN, UTFKIT_CUT_SPAN_MAX, 0};
    return reader;
}

/* The reader's result once its loop ends. */
static UTFKIT_ALWAYS_INLINE utfkit_result text_reader_result(const text_reader *reader,
                                                             const utfkit_sink *sink)
{
    if (reader->status != UTFKIT_OK)
        return sink_error(sink, reader->status, reader->i, reader->subpart);
    return sink_result(sink, reader->len);
}

/* What a reader step does with an ill-formed subsequence of `length` bytes
 * at `at`: with STRICT, records it in the reader's status and subpart and
 * stays put (the loop then stops); otherwise moves past it, writing one
 * U+FFFD for REPLACE.  Returns the new out. */
static UTFKIT_ALWAYS_INLINE size_t step_over_ill_formed(text_reader *reader, int ill_formed,
                                                        size_t length, size_t at, uint8_t *dst,
                                                        size_t out, int to)
{
    if (reader->errors == UTFKIT_STRICT) {
        reader->status = ill_formed;
        reader->subpart = length;
        return out;
    }
    reader->i = at + length;
    return reader->errors == UTFKIT_REPLACE ? put(dst, out, to, 0xFFFD) : out;
}

/* The shortest run the padded tail takes: below it the scalar steps cost
 * less than the two copies and the block.  (UTF-8 text shorter than a
 * block, Cyrillic into UTF-16LE with the avx512 kernel: 48 bytes 92 ns a
 * call in scalar steps, 29 ns through the padded block; the UTF-16 and
 * UTF-32 readers' scalar steps are as fast as the padded block.) */
#define UTFKIT_TAIL_MIN 16

/* A run of UTF-8 (or WTF-8) shorter than a block, from reader->i to
 * run_end, converted by the block all the same: copied into a buffer of
 * two blocks padded with zero bytes -- U+0000, which the blocks convert
 * like any character -- and the block's output, staged, copied for the
 * run's own characters only.  A character cut at run_end is ill-formed
 * against the padding, so the block stops before it, as it stops before
 * any error; a block takes only whole characters, so what it took beyond
 * the run is padding, reader->tail_pad_out bytes of output a byte, at the
 * end of its output.  Returns the bytes of the run consumed (0: the block
 * refused) and sets *written. */
static UTFKIT_NOINLINE size_t transcode_blocks_tail(const text_reader *reader, uint8_t *dst,
                                                    size_t run_end, size_t *written)
{
    size_t n = run_end - reader->i;
    uint8_t padded[2 * UTFKIT_TRANSCODE_BLOCK];
    /* room for the worst case of the whole padded input: UTF-32, 4 bytes
     * for an ASCII byte */
    uint8_t staged[4 * sizeof padded];
    memset(padded, 0, sizeof padded);
    memcpy(padded, reader->src + reader->i, n);
    size_t consumed = reader->blocks(padded, sizeof padded, reader->block_byte_orders, staged, written);
    if (consumed > n) {
        *written -= (consumed - n) * reader->tail_pad_out;
        consumed = n;
    }
    memcpy(dst, staged, *written);
    return consumed;
}

/* The part of a reader step that hands the text before run_end to the
 * reader's block converter while a block of it is left (and a shorter run
 * of at least UTFKIT_TAIL_MIN bytes, padded, for the readers that set
 * tail_pad_out): returns 1, having advanced reader->i and *out, if the
 * converter took something.  Converters write at most as many bytes per
 * byte they consume as the reader's steps may (sink_window_open's
 * per_byte). */
static UTFKIT_ALWAYS_INLINE int transcode_blocks_step(text_reader *reader, uint8_t *dst,
                                                      size_t *out, size_t run_end)
{
    size_t at = reader->i;
    if (reader->blocks == NULL || at < reader->scalar_until)
        return 0;
    size_t written, consumed;
    if (run_end - at >= UTFKIT_TRANSCODE_BLOCK)
        consumed = reader->blocks(reader->src + at, run_end - at, reader->block_byte_orders,
                                  dst + *out, &written);
    else if (reader->tail_pad_out != 0 && run_end - at >= UTFKIT_TAIL_MIN)
        consumed = transcode_blocks_tail(reader, dst + *out, run_end, &written);
    else
        return 0;
    if (consumed == 0) {
        reader->scalar_until = at + reader->stretch;
        if (reader->stretch < UTFKIT_SCALAR_STRETCH_MAX)
            reader->stretch *= 2;
        return 0;
    }
    reader->stretch = UTFKIT_SCALAR_STRETCH_MIN;
    reader->i = at + consumed;
    *out += written;
    return 1;
}

/* The end of a block step whose block may be cut where the text turns to
 * what the block must not take (the CESU-8/MUTF-8 readers and writers):
 * reader->i is past the `consumed` bytes, `cut` says whether the block was
 * cut.  Nothing consumed, or a cut that left less than a block, counts as a
 * refusal: the scalar step takes the next stretch, which doubles each time.
 * Otherwise the stretch starts small again, and the character at a cut is
 * the scalar step's.  Returns whether the step consumed anything. */
static UTFKIT_ALWAYS_INLINE int blocks_step_settled(text_reader *reader, size_t consumed, int cut)
{
    if (consumed == 0 || (cut && consumed < UTFKIT_TRANSCODE_BLOCK)) {
        reader->scalar_until = reader->i + reader->stretch;
        if (reader->stretch < UTFKIT_SCALAR_STRETCH_MAX)
            reader->stretch *= 2;
        return consumed != 0;
    }
    reader->stretch = UTFKIT_SCALAR_STRETCH_MIN;
    if (cut)
        reader->scalar_until = reader->i + 1;
    return 1;
}

/* transcode_blocks_step for UTF-16 or UTF-32 (units of `unit_bytes`) into
 * CESU-8 or MUTF-8 (nul_is_ill_formed) on the UTF-16/UTF-32 -> UTF-8
 * blocks.  Their output is right for these forms up to its first byte
 * F0..FF -- the 4-byte sequence of a supplementary character, which these
 * forms write as two 3-byte surrogate sequences (UTR #26 section 2) -- or,
 * for MUTF-8, 00 (U+0000, written C0 80: JVM spec section 4.4.7): the
 * output is cut there, by the kernel's utf8_bmp_prefix_length, and the
 * input with it (before the cut, each unit was one character, so the units
 * consumed are the characters written).  Looking at the output, in cache
 * and at most 3/4 of the input's size from UTF-32, costs less than looking
 * ahead in the input.  A block is given at most reader->block_span bytes,
 * so that the work after a cut, thrown away, stays small: the span halves
 * at each cut and doubles after a block that is not cut.  The character at
 * the cut goes to the scalar step; a cut that leaves less than a block
 * counts as a refusal. */
static UTFKIT_ALWAYS_INLINE int transcode_blocks_step_cut(text_reader *reader, uint8_t *dst,
                                                          size_t *out, size_t run_end,
                                                          size_t unit_bytes, int nul_is_ill_formed)
{
    size_t at = reader->i;
    if (reader->blocks == NULL || at < reader->scalar_until ||
        run_end - at < UTFKIT_TRANSCODE_BLOCK)
        return 0;
    size_t span = run_end - at < reader->block_span ? run_end - at : reader->block_span;
    size_t written;
    size_t consumed = reader->blocks(reader->src + at, span, reader->block_byte_orders, dst + *out,
                                     &written);
    /* A byte of output per unit is ASCII throughout: CESU-8 as it is,
     * MUTF-8 up to its first 00 (memchr: the C library's fastest scan). */
    size_t right;
    if (written == consumed / unit_bytes) {
        const uint8_t *nul = nul_is_ill_formed ? memchr(dst + *out, 0, written) : NULL;
        right = nul != NULL ? (size_t)(nul - (dst + *out)) : written;
    } else {
        right = reader->kernel->utf8_bmp_prefix_length(dst + *out, written, nul_is_ill_formed);
    }
    int cut = right < written;
    if (cut) {
        consumed = unit_bytes * reader->kernel->utf8_code_points(dst + *out, right);
        written = right;
        if (reader->block_span > UTFKIT_CUT_SPAN_MIN)
            reader->block_span /= 2;
    } else if (reader->block_span < UTFKIT_CUT_SPAN_MAX) {
        reader->block_span *= 2;
    }
    reader->i = at + consumed;
    *out += written;
    return blocks_step_settled(reader, consumed, cut);
}

/* Where the scalar step at reader->i may end a run: within the stretch
 * that follows a refusal, so that the converter is tried again there (a
 * scalar run of ASCII, say, would otherwise go on to run_end). */
static UTFKIT_ALWAYS_INLINE size_t scalar_run_end(const text_reader *reader, size_t run_end)
{
    return reader->scalar_until > reader->i && reader->scalar_until < run_end
               ? reader->scalar_until : run_end;
}

/* ---- blocks over part of the text ----
 *
 * Some readers may hand a kernel's block converter only part of their text:
 * CESU-8 and MUTF-8 (cesu8.c) only stretches with no byte F0..FF (nor 00),
 * where the UTF-8 the blocks read is right for the form.  The reader looks
 * ahead with a kernel function for the next place the blocks must not see,
 * a bounded span at a time, and gives the blocks the text up to there.
 * (Into those forms, the writers cut the blocks' output instead:
 * transcode_blocks_step_cut.) */

/* How far a reader looks ahead at a time (while the span is in cache for
 * the block that reads it next). */
#define UTFKIT_LOOKAHEAD 4096

/* src[reader.i..end) is right for the blocks; src[end] is not when
 * `stopped`, else the look-ahead has not gone past end yet. */
typedef struct block_lookahead {
    size_t end;
    int stopped;
} block_lookahead;

#define BLOCK_LOOKAHEAD_START {0, 0}

/* 1 if the reader at i should look ahead further, from lookahead->end
 * (what was seen before i no longer matters). */
static UTFKIT_ALWAYS_INLINE int block_lookahead_wanted(block_lookahead *lookahead, size_t i,
                                                       size_t len)
{
    if (i > lookahead->end) {
        lookahead->end = i;
        lookahead->stopped = 0;
    }
    return !lookahead->stopped && lookahead->end < len &&
           lookahead->end - i < 2 * UTFKIT_TRANSCODE_BLOCK;
}

/* The span to look at next: from lookahead->end, at most UTFKIT_LOOKAHEAD
 * bytes. */
static UTFKIT_ALWAYS_INLINE size_t block_lookahead_span(const block_lookahead *lookahead,
                                                        size_t len)
{
    return len - lookahead->end < UTFKIT_LOOKAHEAD ? len - lookahead->end : UTFKIT_LOOKAHEAD;
}

/* The first `right` bytes of that span of `span` are right for the
 * blocks. */
static UTFKIT_ALWAYS_INLINE void block_lookahead_extend(block_lookahead *lookahead, size_t span,
                                                        size_t right)
{
    lookahead->end += right;
    lookahead->stopped = right < span;
}

#endif /* UTFKIT_READERS_H */
