/*
 * readers.h -- one conversion loop per source encoding form (internal).
 * Each reads src in its form, handles ill-formed subsequences as `errors`
 * says, and writes every scalar value to the destination form `to` (or
 * only counts them, for UTFKIT_COUNT_ONLY) through a sink (sink.h).
 * transcode.c dispatches to them.
 */
#ifndef UTFKIT_READERS_H
#define UTFKIT_READERS_H

#include "kernels.h"
#include "sink.h"

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

typedef struct block_schedule {
    size_t scalar_until; /* the scalar steps go on up to here */
    size_t stretch;      /* the next stretch after a refusal */
} block_schedule;

#define BLOCK_SCHEDULE_START {0, UTFKIT_SCALAR_STRETCH_MIN}

/* The part of a reader step that hands the text before run_end to the
 * active kernel's block converter `blocks` (kernels.h) while a block of it
 * is left: returns 1, having advanced *i and *out, if the converter took
 * something.  Converters write at most as many bytes per byte they consume
 * as the reader's steps may (SINK_DRIVE's per_byte). */
static UTFKIT_ALWAYS_INLINE int transcode_blocks_step(utfkit_transcode_block blocks,
                                                      int big_endian, block_schedule *schedule,
                                                      const uint8_t *src, size_t *i,
                                                      size_t run_end, uint8_t *dst, size_t *out)
{
    if (blocks == NULL || *i < schedule->scalar_until || run_end - *i < UTFKIT_TRANSCODE_BLOCK)
        return 0;
    size_t written;
    size_t consumed = blocks(src + *i, run_end - *i, big_endian, dst + *out, &written);
    if (consumed == 0) {
        schedule->scalar_until = *i + schedule->stretch;
        if (schedule->stretch < UTFKIT_SCALAR_STRETCH_MAX)
            schedule->stretch *= 2;
        return 0;
    }
    schedule->stretch = UTFKIT_SCALAR_STRETCH_MIN;
    *i += consumed;
    *out += written;
    return 1;
}

/* Where the scalar step at i may end a run: within the stretch that
 * follows a refusal, so that the converter is tried again there (a scalar
 * run of ASCII, say, would otherwise go on to run_end). */
static UTFKIT_ALWAYS_INLINE size_t scalar_run_end(size_t i, size_t run_end,
                                                  const block_schedule *schedule)
{
    return schedule->scalar_until > i && schedule->scalar_until < run_end ? schedule->scalar_until
                                                                          : run_end;
}

/* A reader STEP for SINK_DRIVE (sink.h): a block conversion where one
 * applies, else `scalar_step`. */
#define STEP_IN_BLOCKS(blocks, big_endian, schedule, src, i, run_end, dst, out, scalar_step) \
    (transcode_blocks_step(blocks, big_endian, schedule, src, i, run_end, dst, &(out))      \
         ? (out) : (scalar_step))

#endif /* UTFKIT_READERS_H */
