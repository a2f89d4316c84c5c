/*
 * stream.c -- text that arrives in chunks (utfkit_stream), in every form.
 *
 * The one rule of streaming lives here: where a stream may be cut, and what
 * must be held back for the next chunk.  A stream is read exactly as the
 * one-shot utfkit_check and utfkit_transcode read it, because it is read BY
 * them, in segments cut where the one-shot reader is between two characters
 * (or two ill-formed subsequences) and what follows cannot change what came
 * before.  utfkit_incomplete_suffix_length finds such a cut from the end of a
 * segment alone; the bytes after it (at most STREAM_PENDING_MAX) are kept in
 * the stream, and the next feed completes them from the first bytes of its
 * chunk in a small buffer before reading the rest of that chunk in place.
 * Every decision about well-formedness is therefore the core's own reader's,
 * run by the active kernel; nothing here knows a second copy of the tables.
 *
 * Fail-fast (RFC 6455 section 8.1 for UTF-8): each segment is checked whole,
 * held-back bytes included, so a feed reports an error as soon as it holds
 * the byte that decides it; only "end of data" waits for more bytes.
 */
#include <string.h>

#include "readers.h"
#include "sink.h"
#include "utf8_dfa.h"
#include "utfkit.h"

/* The most a stream holds back: ED B0..BF after a lead surrogate sequence,
 * then a lead surrogate sequence and the first two bytes of its trail (2 + 3
 * + 2 = 7 bytes, see family_incomplete_suffix); in UTF-8, UTF-16 and UTF-32
 * it is 3 bytes. */
#define STREAM_PENDING_MAX 16u /* and a UTF-E-8 sequence less one byte: 12 */
/* The small buffer that completes the held-back bytes: they, plus enough of
 * the next chunk that the buffer cannot end with held-back bytes alone. */
#define STREAM_HEAD_BYTES (2u * STREAM_PENDING_MAX)

static int is_utfe8_form(int form)
{
    return form == UTFKIT_UTFE8 || form == UTFKIT_UTF8_RFC2279;
}

static int stream_form_is_known(int form)
{
    /* Latin-1 and ASCII: nothing is ever held */
    return (form >= UTFKIT_UTF8 && form <= UTFKIT_ASCII) || is_utfe8_form(form);
}

static int form_is_utf8_family(int form)
{
    return form == UTFKIT_WTF8 || form == UTFKIT_CESU8 || form == UTFKIT_MUTF8;
}

/* UTF-8: a lead byte (C2..F4) always begins a new row of Table 3-7 -- it is
 * never read as a continuation, so an earlier unfinished row it interrupts
 * ends before it (D93b).  The unfinished character at the end is therefore
 * the bytes from the last byte that is not 80..BF, if that byte is at most 3
 * back and the automaton, started there, neither rejects nor accepts. */
static size_t utf8_incomplete_suffix(const uint8_t *src, size_t len)
{
    size_t reach = len < 3 ? len : 3;
    for (size_t back = 1; back <= reach; back++) {
        if (utf8_is_continuation(src[len - back]))
            continue;
        uint64_t state = UTF8_ACCEPT;
        for (size_t i = len - back; i < len; i++) {
            state = utf8_dfa_step(state, src[i]);
            if (UTF8_STATE(state) == UTF8_ERROR)
                return 0;
        }
        return UTF8_STATE(state) == UTF8_ACCEPT ? 0 : back;
    }
    return 0;
}

/* UTF-16 (D91): a lead surrogate (D800..DBFF) is never the second unit of a
 * pair, so a final one waits for its trail; a final odd byte waits for the
 * rest of its unit. */
static size_t utf16_incomplete_suffix(const uint8_t *src, size_t len, int big_endian)
{
    size_t suffix = len & 1u;
    if (len - suffix >= 2) {
        uint32_t unit = load16(src + len - suffix - 2, big_endian);
        if (unit >= 0xD800 && unit <= 0xDBFF)
            suffix += 2;
    }
    return suffix;
}

/* ED A0..AF 80..BF: the byte sequence of a lead surrogate (D800..DBFF). */
static int is_lead_surrogate_sequence(const uint8_t *src)
{
    return src[0] == 0xED && src[1] >= 0xA0 && src[1] <= 0xAF && utf8_is_continuation(src[2]);
}

/* WTF-8, CESU-8 and MUTF-8.  The bytes from the last byte that is not 80..BF
 * (at most 3 back: the longest unfinished sequence, WTF-8's 4-byte rows cut
 * short) are unfinished if the form's own reader, started there, reports
 * "end of data" for them: such a byte is never read as a continuation (CESU-8
 * and MUTF-8 read ED as the fourth byte of a pair only after a lead surrogate
 * sequence, which is then held back with it, below).
 *
 * Then the lead surrogate sequence (ED A0..AF 80..BF) right before that:
 *   - if what is held could still become its trail (nothing, ED, or ED
 *     B0..BF), it is held too, since the next bytes decide what it is: half
 *     of a pair (CESU-8, MUTF-8), the lead of an ill-formed surrogate pair
 *     byte sequence (WTF-8, seed 003 section 6), or a lone surrogate;
 *   - if it is followed by ED or ED B0..BF that the held bytes cut short, its
 *     fate is decided (no trail follows), but CESU-8 read to the end of the
 *     input takes a lead and such bytes as ONE subsequence cut short
 *     (utfkit.h), where the whole stream reads two: the cut goes right after
 *     the lead, whose own reading at an end (one subsequence of 3 bytes) is
 *     then the stream's, and the bytes after it are held.  This is looked at
 *     again before a lead held by the first rule. */
static size_t family_incomplete_suffix(const uint8_t *src, size_t len, int form)
{
    size_t held = 0;
    size_t reach = len < 3 ? len : 3;
    for (size_t back = 1; back <= reach; back++) {
        if (utf8_is_continuation(src[len - back]))
            continue;
        utfkit_result found = utfkit_check(src + len - back, back, form);
        if (found.status == UTFKIT_END_OF_DATA && found.position == 0)
            held = back;
        break;
    }
    size_t cut = len - held;
    int held_may_be_a_trail =
        held == 0 || (src[cut] == 0xED &&
                      (held == 1 || (held == 2 && src[cut + 1] >= 0xB0 && src[cut + 1] <= 0xBF)));
    if (cut >= 3 && is_lead_surrogate_sequence(src + cut - 3) && held_may_be_a_trail) {
        held += 3;
        cut -= 3;
    }
    if (cut >= 4 && src[cut - 1] == 0xED && is_lead_surrogate_sequence(src + cut - 4))
        held += 1;
    else if (cut >= 5 && src[cut - 2] == 0xED && src[cut - 1] >= 0xB0 && src[cut - 1] <= 0xBF &&
             is_lead_surrogate_sequence(src + cut - 5))
        held += 2;
    return held;
}

size_t utfkit_incomplete_suffix_length(const uint8_t *src, size_t len, int form)
{
    switch (form) {
    case UTFKIT_UTF8: return utf8_incomplete_suffix(src, len);
    case UTFKIT_UTF16LE: return utf16_incomplete_suffix(src, len, 0);
    case UTFKIT_UTF16BE: return utf16_incomplete_suffix(src, len, 1);
    case UTFKIT_UTF32LE:
    case UTFKIT_UTF32BE: return len & 3u; /* D90: 4-byte code units */
    case UTFKIT_WTF8:
    case UTFKIT_CESU8:
    case UTFKIT_MUTF8: return family_incomplete_suffix(src, len, form);
    /* UTF-E-8 and RFC 2279 (seed 002): up to 12 bytes of a 13-byte sequence */
    case UTFKIT_UTFE8: return utfe8_incomplete_suffix(src, len, 0x7FFFFFFFFFFFFFFFull);
    case UTFKIT_UTF8_RFC2279: return utfe8_incomplete_suffix(src, len, 0x7FFFFFFFull);
    default: return 0;
    }
}

int utfkit_stream_init(utfkit_stream *stream, int form)
{
    memset(stream, 0, sizeof *stream);
    stream->form = form;
    if (!stream_form_is_known(form)) {
        stream->status = UTFKIT_INVALID_START; /* unusable: every call reports an error */
        return -1;
    }
    stream->status = UTFKIT_OK;
    return 0;
}

static utfkit_result stream_error(const utfkit_stream *stream)
{
    return (utfkit_result){stream->status, (size_t)stream->error_position,
                           (size_t)stream->error_length, 0};
}

/* Records where the error `found` lies, found in segment[0..) whose first
 * byte is at stream offset `base`; error_unit is what the binding needs to
 * word the reason: the UTF-16 code unit (an unpaired lead or trail
 * surrogate), the surrogate a WTF-8/CESU-8/MUTF-8 surrogate byte sequence
 * encodes, else the first byte. */
static void stream_note_error(utfkit_stream *stream, uint64_t base, utfkit_result found,
                              const uint8_t *segment, size_t segment_length)
{
    stream->error_position = base + found.position;
    stream->error_length = found.subpart_length;
    int form = stream->form;
    const uint8_t *at = segment + found.position;
    size_t left = segment_length - found.position;
    if (left == 0)
        stream->error_unit = 0;
    else if ((form == UTFKIT_UTF16LE || form == UTFKIT_UTF16BE) && left >= 2)
        stream->error_unit = load16(at, form == UTFKIT_UTF16BE);
    else if (form_is_utf8_family(form) && found.status == UTFKIT_SURROGATE && left >= 3)
        stream->error_unit = 0xD000u | (uint32_t)(at[1] & 0x3F) << 6 | (uint32_t)(at[2] & 0x3F);
    else
        stream->error_unit = at[0];
}

static utfkit_result stream_fail(utfkit_stream *stream, uint64_t base, utfkit_result found,
                                 const uint8_t *segment, size_t segment_length)
{
    stream->status = found.status;
    stream_note_error(stream, base, found, segment, segment_length);
    return stream_error(stream);
}

/* Checks a segment that begins where the stream may be cut; *held is set to
 * the bytes to keep for the next chunk.  The whole segment is checked, held
 * bytes included (fail-fast); "end of data" is no error in mid-stream, and
 * the bytes it covers are held. */
static utfkit_result check_segment(const uint8_t *segment, size_t len, int form, size_t *held)
{
    size_t tail = utfkit_incomplete_suffix_length(segment, len, form);
    size_t cut = len - tail;
    *held = tail;
    if (utfkit_validate(segment, cut, form)) {
        /* The common case, at the speed of the form's validation (the UTF-8
         * kernels for the UTF-8 relatives): all is well before the cut, and
         * the held bytes begin where the stream may be cut, so their own
         * reading is the whole stream's. */
        utfkit_result found = utfkit_check(segment + cut, tail, form);
        if (found.status == UTFKIT_END_OF_DATA || found.status == UTFKIT_OK)
            return (utfkit_result){UTFKIT_OK, len, 0, 0};
        found.position += cut;
        return found;
    }
    utfkit_result found = utfkit_check(segment, len, form);
    if (found.status == UTFKIT_END_OF_DATA) {
        if (len - found.position > tail)
            tail = len - found.position;
        found.status = UTFKIT_OK;
    }
    *held = tail;
    return found;
}

utfkit_result utfkit_stream_feed(utfkit_stream *stream, const uint8_t *src, size_t len)
{
    if (stream->status != UTFKIT_OK)
        return stream_error(stream);
    int form = stream->form;
    size_t resume = 0; /* src[0..resume) has been read */
    while (stream->pending_length != 0 && resume < len) {
        /* Settle the held-back bytes with the next bytes of src. */
        uint8_t head[STREAM_HEAD_BYTES];
        size_t kept = stream->pending_length;
        size_t taken = STREAM_HEAD_BYTES - kept;
        if (taken > len - resume)
            taken = len - resume;
        memcpy(head, stream->pending, kept);
        memcpy(head + kept, src + resume, taken);
        size_t head_length = kept + taken, held;
        uint64_t head_base = stream->offset + resume - kept;
        utfkit_result found = check_segment(head, head_length, form, &held);
        if (found.status != UTFKIT_OK)
            return stream_fail(stream, head_base, found, head, head_length);
        resume += taken;
        if (held > taken) {
            /* What is held begins in the old held-back bytes: src ran out
             * before settling them. */
            memmove(stream->pending, head + head_length - held, held);
            stream->pending_length = (uint32_t)held;
        } else {
            /* What is held, if anything, lies in src itself. */
            resume -= held;
            stream->pending_length = 0;
        }
    }
    if (stream->pending_length != 0) { /* src used up */
        stream->offset += len;
        return (utfkit_result){UTFKIT_OK, len, 0, 0};
    }
    const uint8_t *rest = src + resume;
    size_t rest_length = len - resume, held;
    utfkit_result found = check_segment(rest, rest_length, form, &held);
    if (found.status != UTFKIT_OK)
        return stream_fail(stream, stream->offset + resume, found, rest, rest_length);
    if (held != 0)
        memcpy(stream->pending, rest + rest_length - held, held);
    stream->pending_length = (uint32_t)held;
    stream->offset += len;
    return (utfkit_result){UTFKIT_OK, len, 0, 0};
}

utfkit_result utfkit_stream_finish(utfkit_stream *stream)
{
    if (stream->status != UTFKIT_OK)
        return stream_error(stream);
    size_t kept = stream->pending_length;
    /* The one-shot reader sees the same bytes at the end of its input (a
     * held-back lone lead surrogate of WTF-8 or MUTF-8 is well-formed). */
    utfkit_result found = utfkit_check(stream->pending, kept, stream->form);
    if (found.status == UTFKIT_OK)
        return (utfkit_result){UTFKIT_OK, 0, 0, 0};
    return stream_fail(stream, stream->offset - kept, found, stream->pending, kept);
}

/* Converts a segment that begins where the stream may be cut, up to what it
 * holds back (nothing when `final`).  Where the converted part ends inside a
 * sequence that the held bytes' first byte interrupts, the converted part
 * alone reads "end of data": the reader of the whole stream gives that byte's
 * verdict instead (same position; and, with replacement or removal, the same
 * output, since the subpart is the same).  With STRICT, an error already
 * decided inside the held bytes is reported now (fail-fast). */
static utfkit_result convert_segment(const uint8_t *segment, size_t len, int final, int from,
                                     int to, int errors, uint8_t *dst, size_t cap, size_t *held)
{
    size_t tail = final ? 0 : utfkit_incomplete_suffix_length(segment, len, from);
    size_t cut = len - tail;
    /* Text in the UTF-8 relatives is mostly UTF-8 as well: where it is
     * well-formed in both, it holds the same code points (no surrogate byte
     * sequences, no 4-byte forms, no C0 80), and UTF-8's faster reader
     * converts it. */
    int as_utf8 = form_is_utf8_family(from) && utfkit_utf8_validate(segment, cut) &&
                  (from == UTFKIT_WTF8 || utfkit_validate(segment, cut, from));
    utfkit_result made =
        utfkit_transcode(segment, cut, as_utf8 ? UTFKIT_UTF8 : from, to, errors, dst, cap);
    *held = tail;
    if (tail == 0 || errors != UTFKIT_STRICT)
        return made;
    if (made.status == UTFKIT_END_OF_DATA) {
        utfkit_result whole = utfkit_check(segment, len, from);
        if (whole.status != UTFKIT_OK && whole.position == made.position) {
            made.status = whole.status;
            made.subpart_length = whole.subpart_length;
        }
    } else if (made.status == UTFKIT_OK) {
        utfkit_result kept = utfkit_check(segment + cut, tail, from);
        if (kept.status != UTFKIT_OK && kept.status != UTFKIT_END_OF_DATA) {
            /* the held bytes before it may hold an earlier conversion error
             * (a lone surrogate that `to` cannot carry) */
            utfkit_result before =
                utfkit_transcoded_length(segment + cut, kept.position, from, to, UTFKIT_STRICT);
            if (before.status != UTFKIT_OK)
                kept = before;
            kept.position += cut;
            kept.written = made.written;
            return kept;
        }
    }
    return made;
}

/* WTF-8 output (WTF-8 section 6.1).  A lone lead surrogate that ends one
 * call's output waits in the stream: a trail surrogate that begins the next
 * output joins it into one supplementary code point, as the one-shot writer
 * joins a lead and a trail that only dropped bytes separate; anything else
 * after it, or the end of the stream, leaves it lone.  (The stream never
 * cuts between a lead and a trail that are adjacent in the input.) */
static uint32_t surrogate_of_sequence(const uint8_t *bytes)
{
    return 0xD000u | (uint32_t)(bytes[1] & 0x3F) << 6 | (uint32_t)(bytes[2] & 0x3F);
}

static void put_surrogate_sequence(uint8_t *dst, uint32_t surrogate)
{
    dst[0] = 0xED;
    dst[1] = (uint8_t)(0x80 | (surrogate >> 6 & 0x3F));
    dst[2] = (uint8_t)(0x80 | (surrogate & 0x3F));
}

static int is_trail_surrogate_sequence(const uint8_t *src)
{
    return src[0] == 0xED && src[1] >= 0xB0 && src[1] <= 0xBF && utf8_is_continuation(src[2]);
}

/* dst[0..3) holds the held lead and dst[3..written) the call's own output:
 * joins the lead with a trail that begins that output.  Returns the bytes
 * written now. */
static size_t join_held_lead(uint8_t *dst, size_t written)
{
    if (written < 6 || !is_trail_surrogate_sequence(dst + 3))
        return written;
    uint32_t lead = surrogate_of_sequence(dst), trail = surrogate_of_sequence(dst + 3);
    uint32_t supplementary = 0x10000 + ((lead - 0xD800) << 10) + (trail - 0xDC00);
    dst[0] = (uint8_t)(0xF0 | supplementary >> 18);
    dst[1] = (uint8_t)(0x80 | (supplementary >> 12 & 0x3F));
    dst[2] = (uint8_t)(0x80 | (supplementary >> 6 & 0x3F));
    dst[3] = (uint8_t)(0x80 | (supplementary & 0x3F));
    memmove(dst + 4, dst + 6, written - 6);
    return written - 2;
}

utfkit_result utfkit_stream_transcode(utfkit_stream *stream, const uint8_t *src, size_t len,
                                      int final, int to, int errors, uint8_t *dst, size_t cap)
{
    if (stream->status != UTFKIT_OK)
        return stream_error(stream);
    utfkit_stream work = *stream; /* committed only when the whole call succeeds */
    int from = work.form;
    size_t resume = 0, written = 0, held;
    utfkit_result made;
    if (work.held_lead != 0) { /* written first, joined below */
        if (cap < 3)
            return (utfkit_result){UTFKIT_OUTPUT_TOO_SMALL, 0, 0, 3};
        put_surrogate_sequence(dst, work.held_lead);
        written = 3;
        work.held_lead = 0;
    }
    while (work.pending_length != 0 && (resume < len || final)) {
        uint8_t head[STREAM_HEAD_BYTES];
        size_t kept = work.pending_length;
        size_t taken = STREAM_HEAD_BYTES - kept;
        if (taken > len - resume)
            taken = len - resume;
        memcpy(head, work.pending, kept);
        if (taken != 0)
            memcpy(head + kept, src + resume, taken);
        size_t head_length = kept + taken;
        int ends = final && resume + taken == len;
        made = convert_segment(head, head_length, ends, from, to, errors, dst + written,
                               cap - written, &held);
        if (made.status != UTFKIT_OK) {
            stream_note_error(stream, work.offset + resume - kept, made, head, head_length);
            made.position = (size_t)stream->error_position;
            made.written += written;
            return made;
        }
        written += made.written;
        resume += taken;
        if (held > taken) {
            memmove(work.pending, head + head_length - held, held);
            work.pending_length = (uint32_t)held;
        } else {
            resume -= held;
            work.pending_length = 0;
        }
        if (ends)
            break;
    }
    if (work.pending_length == 0) {
        const uint8_t *rest = src + resume;
        size_t rest_length = len - resume;
        made = convert_segment(rest, rest_length, final, from, to, errors, dst + written,
                               cap - written, &held);
        if (made.status != UTFKIT_OK) {
            stream_note_error(stream, work.offset + resume, made, rest, rest_length);
            made.position = (size_t)stream->error_position;
            made.written += written;
            return made;
        }
        written += made.written;
        if (held != 0)
            memcpy(work.pending, rest + rest_length - held, held);
        work.pending_length = (uint32_t)held;
    }
    if (stream->held_lead != 0)
        written = join_held_lead(dst, written);
    if (!final && to == UTFKIT_WTF8 && written >= 3 && dst[written - 3] == 0xED &&
        dst[written - 2] >= 0xA0 && dst[written - 2] <= 0xAF) {
        /* (ED is never a continuation byte: it begins the last sequence) */
        work.held_lead = surrogate_of_sequence(dst + written - 3);
        written -= 3;
    }
    work.offset += len;
    if (final)
        utfkit_stream_init(&work, from); /* a new stream begins */
    *stream = work;
    return (utfkit_result){UTFKIT_OK, len, 0, written};
}
