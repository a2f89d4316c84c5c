/*
 * partial.c -- bounded conversion (utfkit_transcode_partial): as much of
 * the input as fits the output, cut only where a reader of the whole input
 * is between characters, so that the conversion can go on from there.
 *
 * The input is converted a piece at a time.  A piece ends at a restart
 * point (reader_restart_point): a position after which every reader of the
 * form starts afresh -- after an ASCII byte or a whole sequence in the
 * UTF-8-based forms (D93b: a lead byte never continues an earlier
 * sequence), never after a lead surrogate (D91, and the surrogate byte
 * sequences of CESU-8, MUTF-8 and WTF-8, UTR #26 and WTF-8 section 4.3), at
 * code unit boundaries in UTF-16 and UTF-32.  A piece whose output does not
 * fit is halved at a restart point, until one that fits or one that cannot
 * be cut remains.
 */
#include "readers.h"

static inline int is_continuation(uint8_t byte)
{
    return (byte & 0xC0) == 0x80;
}

/* Bytes in the sequence a lead byte begins (Table 3-7 by its first byte;
 * C0 as in MUTF-8's C0 80); 1 for bytes that begin none. */
static inline size_t sequence_length(uint8_t lead)
{
    return lead < 0xC0 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : lead < 0xF5 ? 4 : 1;
}

/* 1 if every reader of a UTF-8-based form is between characters after
 * src[p - 1]: after an ASCII byte or a byte that begins nothing; after a
 * lead byte and as many continuation bytes as it announces (whether they
 * made a character or not, what follows starts afresh), unless that is a
 * lead surrogate byte sequence (ED A0..AF 80..BF), which waits for a trail;
 * after four continuation bytes, the last of which is ill-formed alone. */
static int utf8_family_settled(const uint8_t *src, size_t p)
{
    uint8_t last = src[p - 1];
    if (last < 0x80 || last >= 0xF5)
        return 1;
    if (!is_continuation(last))
        return 0; /* a lead byte waits for its continuation bytes */
    for (size_t back = 2; back <= 4 && back <= p; back++) {
        uint8_t lead = src[p - back];
        if (is_continuation(lead))
            continue;
        if (sequence_length(lead) != back)
            return 0;
        return !(back == 3 && lead == 0xED && src[p - 2] >= 0xA0 && src[p - 2] <= 0xAF);
    }
    return 1;
}

static inline int is_lead_surrogate(uint32_t unit)
{
    return unit >= 0xD800 && unit <= 0xDBFF;
}

static inline int is_trail_surrogate(uint32_t unit)
{
    return unit >= 0xDC00 && unit <= 0xDFFF;
}

size_t reader_restart_point(const uint8_t *src, size_t begin, size_t want, size_t len, int form)
{
    if (want >= len)
        return len;
    switch (form) {
    case UTFKIT_LATIN1:
    case UTFKIT_ASCII:
        return want;
    case UTFKIT_UTF32LE:
    case UTFKIT_UTF32BE: { /* D90: every unit boundary */
        size_t p = want - want % 4;
        return p > begin ? p : begin;
    }
    case UTFKIT_UTF16LE:
    case UTFKIT_UTF16BE: {
        int big_endian = form == UTFKIT_UTF16BE;
        size_t last = want - want % 2;
        /* D91: not after a lead surrogate, which may pair with what follows */
        for (size_t p = last; p > begin && p >= 2; p -= 2)
            if (!is_lead_surrogate(load16(src + p - 2, big_endian)))
                return p;
        /* A run of lead surrogates: cut between two of them (each is
         * unpaired either way, and replaced as one unit either way). */
        for (size_t p = last; p > begin && p >= 2; p -= 2)
            if (!is_trail_surrogate(load16(src + p, big_endian)))
                return p;
        return begin;
    }
    default:
        for (size_t p = want; p > begin; p--)
            if (utf8_family_settled(src, p))
                return p;
        /* Lead surrogate byte sequences only: cut before a lead byte that
         * does not begin a trail surrogate byte sequence. */
        for (size_t p = want; p > begin; p--)
            if (!is_continuation(src[p]) && src[p] != 0xED)
                return p;
        return begin;
    }
}

/* The length of src without an unfinished character at its end: what
 * final = 0 converts. */
static size_t settled_length(const uint8_t *src, size_t len, int form)
{
    switch (form) {
    case UTFKIT_UTF8:
    case UTFKIT_UTF16LE:
    case UTFKIT_UTF16BE:
    case UTFKIT_UTF32LE:
    case UTFKIT_UTF32BE:
        return len - utfkit_incomplete_suffix_length(src, len, form);
    case UTFKIT_LATIN1:
    case UTFKIT_ASCII:
        return len;
    default:
        if (len == 0 || utf8_family_settled(src, len))
            return len;
        return reader_restart_point(src, 0, len - 1, len, form);
    }
}

utfkit_result utfkit_transcode_partial(const uint8_t *src, size_t len, int from, int to,
                                       int errors, int final, uint8_t *dst, size_t cap)
{
    if (!final)
        len = settled_length(src, len, from);
    size_t consumed = 0, written = 0;
    size_t piece = cap > 64 ? cap : 64; /* input bytes to try next */
    size_t before_error = 0; /* the end of the text before a strict error, once found */
    while (consumed < len) {
        size_t end = before_error;
        before_error = 0;
        if (end <= consumed) {
            size_t want = len - consumed > piece ? consumed + piece : len;
            end = reader_restart_point(src, consumed, want, len, from);
            if (end == consumed) { /* no restart point yet: a longer piece */
                piece = piece > len / 2 ? len : 2 * piece;
                continue;
            }
        }
        utfkit_result converted = utfkit_transcode(src + consumed, end - consumed, from, to,
                                                   errors, dst == NULL ? NULL : dst + written,
                                                   cap - written);
        if (converted.status == UTFKIT_OK) {
            size_t room = cap - written - converted.written;
            /* the next piece: about as long as the room left takes, at the
             * rate this one converted */
            piece = converted.written == 0 ? (piece > len / 2 ? len : 2 * piece)
                  : room / converted.written * (end - consumed) +
                        room % converted.written * (end - consumed) / converted.written;
            piece = piece < 64 ? 64 : piece > len ? len : piece;
            consumed = end;
            written += converted.written;
            continue;
        }
        if (converted.status == UTFKIT_OVERLAPPING_BUFFERS ||
            (converted.status == UTFKIT_TOO_LARGE && converted.subpart_length == 0))
            return converted; /* arguments refused */
        if (converted.status != UTFKIT_OUTPUT_TOO_SMALL &&
            converted.status != UTFKIT_UNENCODABLE) {
            /* A strict decode error: exactly as the reader of the whole
             * rest reports it.  Raised if it is next; else the text before
             * it is converted first. */
            utfkit_result exact = utfkit_transcoded_length(src + consumed, len - consumed, from,
                                                           to, UTFKIT_STRICT);
            if (exact.status == UTFKIT_OK || exact.status == UTFKIT_UNENCODABLE)
                exact = converted;
            if (exact.position == 0) {
                exact.position = consumed;
                exact.written = written;
                return exact;
            }
            before_error = consumed + exact.position; /* a boundary, whatever the form */
            continue;
        }
        /* Too long a piece: half of it, or failing that the longest piece
         * shorter than this one. */
        size_t shorter = reader_restart_point(src, consumed, consumed + (end - consumed) / 2, len,
                                              from);
        if (shorter == consumed)
            shorter = reader_restart_point(src, consumed, end - 1, len, from);
        if (shorter == consumed) { /* one piece that cannot be cut: stop before it */
            utfkit_result stopped = {converted.status, consumed, 0, written};
            return stopped;
        }
        piece = shorter - consumed;
    }
    utfkit_result done = {UTFKIT_OK, consumed, 0, written};
    return done;
}
