/*
 * stream.c -- checking a stream that arrives in chunks (utfkit_stream).
 *
 * A stream is read exactly as the one-shot utfkit_check reads it, because
 * it is read BY utfkit_check, in pieces cut where the one-shot reader is
 * between two characters (or two ill-formed subsequences): there, what
 * comes after cannot change what came before.  Such cut points are found
 * from the end of each chunk alone (utfkit_incomplete_suffix_length): the
 * unfinished character at the end of a chunk is kept in the stream (at most
 * 3 bytes), and the next feed completes it from the first bytes of its chunk
 * in a small buffer before reading the rest of that chunk in place.  Every
 * UTF-8 decision is therefore the Table 3-7 automaton's (utf8_dfa.h), run by
 * the active kernel; nothing here knows a second copy of the rules.
 *
 * Fail-fast (RFC 6455 section 8.1 for UTF-8): a chunk is checked up to its
 * unfinished suffix, and a suffix is kept only if it is well-formed so far,
 * so a feed reports an error as soon as it holds the byte that decides it.
 */
#include <string.h>

#include "readers.h"
#include "utf8_dfa.h"
#include "utfkit.h"

/* The longest unfinished character a stream keeps, plus the bytes that
 * decide it: a character (UTF-8), a surrogate pair (UTF-16) or a code unit
 * (UTF-32) is at most 4 bytes, so 4 - pending_length more bytes always
 * settle what the pending bytes begin; a UTF-E-8 sequence is at most 13
 * (seed 002 section 3.4). */
#define STREAM_DECISION_BYTES 4u
#define UTFE8_DECISION_BYTES 13u

static int is_utfe8_form(int form)
{
    return form == UTFKIT_UTFE8 || form == UTFKIT_UTF8_RFC2279;
}

static int stream_form_is_known(int form)
{
    return form == UTFKIT_UTF8 || form == UTFKIT_UTF16LE || form == UTFKIT_UTF16BE ||
           form == UTFKIT_UTF32LE || form == UTFKIT_UTF32BE || is_utfe8_form(form);
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

size_t utfkit_incomplete_suffix_length(const uint8_t *src, size_t len, int form)
{
    switch (form) {
    case UTFKIT_UTF8: return utf8_incomplete_suffix(src, len);
    case UTFKIT_UTF16LE: return utf16_incomplete_suffix(src, len, 0);
    case UTFKIT_UTF16BE: return utf16_incomplete_suffix(src, len, 1);
    case UTFKIT_UTF32LE:
    case UTFKIT_UTF32BE: return len & 3u; /* D90: 4-byte code units */
    case UTFKIT_UTFE8: return utfe8_incomplete_suffix(src, len, 0x7FFFFFFFFFFFFFFFull);
    case UTFKIT_UTF8_RFC2279: return utfe8_incomplete_suffix(src, len, 0x7FFFFFFFull);
    default: return 0;
    }
}

/* utfkit_check on src[0..cut) of a stream that goes on with an unfinished
 * character of `suffix` bytes.  Where the checked part itself ends inside a
 * character, the one-shot reader would meet the suffix's first byte next --
 * a lead byte (UTF-8) or a lead surrogate (UTF-16), neither of which can
 * continue it -- so its "end of data" is really the subpart that byte ends:
 * same position and length, the status the one-shot reader gives. */
static utfkit_result check_before_suffix(const uint8_t *src, size_t cut, size_t suffix, int form)
{
    utfkit_result found = utfkit_check(src, cut, form);
    if (found.status == UTFKIT_END_OF_DATA && suffix != 0)
        found.status = form == UTFKIT_UTF8 || is_utfe8_form(form) ? UTFKIT_INVALID_CONTINUATION
                                                                  : UTFKIT_SURROGATE;
    return found;
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

/* Records the error utfkit_check found in buffer[0..), whose first byte is
 * at stream offset `base`. */
static utfkit_result stream_fail(utfkit_stream *stream, uint64_t base, utfkit_result found,
                                 const uint8_t *buffer, size_t buffer_length)
{
    stream->status = found.status;
    stream->error_position = base + found.position;
    stream->error_length = found.subpart_length;
    int form = stream->form;
    if ((form == UTFKIT_UTF16LE || form == UTFKIT_UTF16BE) &&
        buffer_length - found.position >= 2)
        stream->error_unit = load16(buffer + found.position, form == UTFKIT_UTF16BE);
    else
        stream->error_unit = buffer[found.position];
    return stream_error(stream);
}

utfkit_result utfkit_stream_feed(utfkit_stream *stream, const uint8_t *src, size_t len)
{
    if (stream->status != UTFKIT_OK)
        return stream_error(stream);
    int form = stream->form;
    size_t resume = 0; /* src[0..resume) has been read */
    while (stream->pending_length != 0 && resume < len) {
        /* Settle the pending character with the next bytes of src. */
        uint8_t head[2 * UTFE8_DECISION_BYTES];
        size_t kept = stream->pending_length;
        size_t taken = (is_utfe8_form(form) ? UTFE8_DECISION_BYTES : STREAM_DECISION_BYTES) - kept;
        if (taken > len - resume)
            taken = len - resume;
        memcpy(head, stream->pending, kept);
        memcpy(head + kept, src + resume, taken);
        size_t head_length = kept + taken;
        size_t suffix = utfkit_incomplete_suffix_length(head, head_length, form);
        uint64_t head_base = stream->offset + resume - kept;
        utfkit_result found = check_before_suffix(head, head_length - suffix, suffix, form);
        if (found.status != UTFKIT_OK)
            return stream_fail(stream, head_base, found, head, head_length);
        resume += taken;
        if (suffix > taken) {
            /* The unfinished character begins in the pending bytes: src
             * ran out before settling it, or (UTF-16) the pending lead
             * surrogate and odd byte were settled and the unit they ended
             * is another lead surrogate.  It becomes the pending one. */
            memmove(stream->pending, head + head_length - suffix, suffix);
            stream->pending_length = (uint32_t)suffix;
        } else {
            /* The unfinished character, if any, lies in src itself. */
            resume -= suffix;
            stream->pending_length = 0;
        }
    }
    if (stream->pending_length != 0) { /* src used up */
        stream->offset += len;
        return (utfkit_result){UTFKIT_OK, len, 0, 0};
    }
    const uint8_t *rest = src + resume;
    size_t rest_length = len - resume;
    size_t suffix = utfkit_incomplete_suffix_length(rest, rest_length, form);
    utfkit_result found = check_before_suffix(rest, rest_length - suffix, suffix, form);
    if (found.status != UTFKIT_OK)
        return stream_fail(stream, stream->offset + resume, found, rest, rest_length);
    if (suffix != 0)
        memcpy(stream->pending, rest + rest_length - suffix, suffix);
    stream->pending_length = (uint32_t)suffix;
    stream->offset += len;
    return (utfkit_result){UTFKIT_OK, len, 0, 0};
}

utfkit_result utfkit_stream_finish(utfkit_stream *stream)
{
    if (stream->status != UTFKIT_OK)
        return stream_error(stream);
    size_t kept = stream->pending_length;
    if (kept == 0)
        return (utfkit_result){UTFKIT_OK, 0, 0, 0};
    /* The one-shot reader sees the same bytes at the end of its input. */
    utfkit_result found = utfkit_check(stream->pending, kept, stream->form);
    return stream_fail(stream, stream->offset - kept, found, stream->pending, kept);
}
