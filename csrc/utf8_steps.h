/*
 * utf8_steps.h -- the steps of the UTF-8 reader (internal): decoding one
 * character or a run of ASCII of well-formed text, and the checked step
 * that runs the Table 3-7 automaton (utf8_dfa.h) over each character and
 * cuts ill-formed subsequences into maximal subparts.  Shared by the UTF-8
 * reader (utf8.c) and the readers of the forms built on it (wtf8.c).
 */
#ifndef UTFKIT_UTF8_STEPS_H
#define UTFKIT_UTF8_STEPS_H

#include "readers.h"
#include "utf8_dfa.h"

/* The automaton, in `state_before`, rejected src[rejected]. */
static inline utfkit_result ill_formed_at(const uint8_t *src, size_t rejected, uint64_t state_before)
{
    if (UTF8_STATE(state_before) == UTF8_ACCEPT) {
        /* Not a first byte of any Table 3-7 row: a lone continuation byte,
         * C0, C1 or F5..FF.  The maximal subpart is the byte itself. */
        return (utfkit_result){UTFKIT_INVALID_START, rejected, 1, 0};
    }
    /* The automaton had read a lead byte and only continuation bytes since
     * (it accepts nothing else mid-character), so the lead is at most three
     * bytes back.  The subpart is lead..rejected-1; src[rejected] starts
     * again (seed 000, "must not consume" successor bytes). */
    size_t lead = rejected - 1;
    while (utf8_is_continuation(src[lead]))
        lead--;
    return (utfkit_result){UTFKIT_INVALID_CONTINUATION, lead, rejected - lead, 0};
}

/* Decodes the character, or the run of ASCII that ends by run_end, at
 * reader->i of well-formed text.  Reading the 1..3 bytes after its lead
 * byte is in bounds because every character is complete. */
static UTFKIT_ALWAYS_INLINE size_t utf8_step(text_reader *reader, uint8_t *dst, size_t out,
                                             size_t run_end, int to)
{
    const uint8_t *src = reader->src;
    size_t at = reader->i;
    uint32_t lead = src[at], scalar;
    if (lead < 0x80) { /* Table 3-6: 0xxxxxxx, often in runs */
        size_t run = 1;
        if (run_end - at >= 16 && (src[at + 1] | src[at + 2] | src[at + 3]) < 0x80)
            run = reader->kernel->ascii_prefix_length(src + at, run_end - at);
        reader->i = at + run;
        return put_ascii(dst, out, to, src + at, run);
    }
    if (lead < 0xE0) { /* 110yyyyy 10xxxxxx */
        /* Words are runs of characters of one length: stay in the loop of
         * that length while the run lasts (and ends by run_end). */
        do {
            out = put(dst, out, to, (lead & 0x1Fu) << 6 | (src[at + 1] & 0x3Fu));
            at += 2;
            lead = src[at < run_end ? at : at - 2]; /* re-read a known byte at the end */
        } while (at < run_end && (lead & 0xE0u) == 0xC0u);
        reader->i = at;
        return out;
    }
    if (lead < 0xF0) { /* 1110zzzz 10yyyyyy 10xxxxxx */
        do {
            out = put(dst, out, to,
                      (lead & 0x0Fu) << 12 | (src[at + 1] & 0x3Fu) << 6 | (src[at + 2] & 0x3Fu));
            at += 3;
            lead = src[at < run_end ? at : at - 3];
        } while (at < run_end && (lead & 0xF0u) == 0xE0u);
        reader->i = at;
        return out;
    } else { /* 11110uuu 10uuzzzz 10yyyyyy 10xxxxxx */
        scalar = (lead & 0x07u) << 18 | (src[at + 1] & 0x3Fu) << 12 |
                 (src[at + 2] & 0x3Fu) << 6 | (src[at + 3] & 0x3Fu);
        reader->i = at + 4;
    }
    return put(dst, out, to, scalar);
}

/* Reads at reader->i a run of ASCII that ends by run_end, one character,
 * or one ill-formed subsequence, running the Table 3-7 automaton over the
 * bytes of a character as it goes; writes unchecked.  The subpart is what
 * the automaton consumed before rejecting (at least the first byte),
 * exactly as first_ill_formed finds it, since a character boundary is
 * where the automaton starts again either way. */
static UTFKIT_ALWAYS_INLINE size_t utf8_checked_step(text_reader *reader, uint8_t *dst,
                                                     size_t out, size_t run_end, int to)
{
    const uint8_t *src = reader->src;
    size_t len = reader->len, at = reader->i;
    if (src[at] < 0x80)
        return utf8_step(reader, dst, out, run_end, to);
    uint64_t state = UTF8_ACCEPT;
    for (size_t k = at;;) {
        uint64_t next = utf8_dfa_step(state, src[k]);
        if (UTF8_STATE(next) == UTF8_ERROR) {
            utfkit_result error = ill_formed_at(src, k, state);
            return step_over_ill_formed(reader, error.status, error.subpart_length, at, dst, out,
                                        to);
        }
        state = next;
        k++;
        if (UTF8_STATE(state) == UTF8_ACCEPT) /* src[at..k) is one character */
            return utf8_step(reader, dst, out, k, to);
        if (k == len)
            return step_over_ill_formed(reader, UTFKIT_END_OF_DATA, len - at, at, dst, out, to);
    }
}

#endif /* UTFKIT_UTF8_STEPS_H */
