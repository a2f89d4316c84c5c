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
#include "utf8_dfa.h"

static inline int is_continuation(uint8_t byte)
{
    return (byte & 0xC0) == 0x80;
}

/* 1 if bytes[0..3) are a lead surrogate byte sequence, ED A0..AF 80..BF
 * (UTR #26, WTF-8 section 4.3). */
static inline int is_lead_surrogate_sequence(const uint8_t *bytes)
{
    return bytes[0] == 0xED && bytes[1] >= 0xA0 && bytes[1] <= 0xAF && is_continuation(bytes[2]);
}

/* 1 if a UTF-8 reader is between characters after src[p - 1], or in a
 * row of Table 3-7 that src[p] does not continue: then the row begun is a
 * maximal subpart whether the input ends at p or goes on (D93b), and only
 * the reason a strict error gives differs ("unexpected end of data"). */
static int utf8_settled(const uint8_t *src, size_t p, size_t len)
{
    size_t begun = utfkit_incomplete_suffix_length(src, p, UTFKIT_UTF8);
    if (begun == 0)
        return 1;
    if (p == len)
        return 0;
    uint64_t state = UTF8_ACCEPT;
    for (size_t i = p - begun; i <= p; i++)
        state = utf8_dfa_step(state, src[i]);
    return UTF8_STATE(state) == UTF8_ERROR;
}

/* 1 if every reader of `form`, a UTF-8-based form, is between characters
 * (or ill-formed subsequences) after src[p - 1].  UTF-8: exactly where no
 * Table 3-7 row is begun and well-formed so far (D93b: a lead byte never
 * continues an earlier row).  WTF-8, CESU-8, MUTF-8 read the same rows and
 * also the surrogate byte sequences (ED A0..BF 80..BF; UTR #26, WTF-8
 * section 4.3), of which a lead (ED A0..AF 80..BF) waits for what follows;
 * MUTF-8 reads C0 80 for U+0000; CESU-8 and MUTF-8 begin nothing at F0..FF,
 * so the bytes after such a byte are ill-formed alone. */
static int utf8_family_settled(const uint8_t *src, size_t begin, size_t p, size_t len, int form,
                               int input_ends, int lone_leads)
{
    if (form == UTFKIT_UTF8)
        return utf8_settled(src, p, len);
    uint8_t last = src[p - 1];
    /* CESU-8: a lead surrogate byte sequence and an ED, or ED B0..BF, that
     * the piece ends in are read as one pair cut short (one maximal
     * subpart), while the whole input's reader, seeing what follows, reads
     * the lead alone and the ED (B0..BF) as a second subpart (UTR #26; seed
     * 003 section 5): no cut there, unless the lead is before the piece. */
    if (form == UTFKIT_CESU8) {
        if (p >= begin + 4 && last == 0xED && is_lead_surrogate_sequence(src + p - 4))
            return 0;
        if (p >= begin + 5 && src[p - 2] == 0xED && last >= 0xB0 && last <= 0xBF &&
            is_lead_surrogate_sequence(src + p - 5))
            return 0;
    }
    /* (a begun sequence that the next byte does not continue is a maximal
     * subpart whatever follows: utf8_settled decides it) */
    int continued = p == len || is_continuation(src[p]);
    if ((last == 0xED || (form == UTFKIT_MUTF8 && last == 0xC0)) && continued)
        return 0;
    if (p >= 2 && src[p - 2] == 0xED && last >= 0xA0 && last <= 0xBF && continued)
        return 0;
    if (p >= 3 && is_lead_surrogate_sequence(src + p - 3)) {
        /* WTF-8 and MUTF-8 read a lead surrogate byte sequence whose trail
         * the end of the input cuts off (ED, or ED B0..BF, then the end) as
         * two maximal subparts, the lone lead and the trail begun (WTF-8
         * section 4.3, UTR #26): a cut between them, once the input is
         * known to end at len, is read the same. */
        int trail_cut_off = input_ends && p < len && len - p <= 2 && src[p] == 0xED &&
                            (len - p == 1 || (src[p + 1] >= 0xB0 && src[p + 1] <= 0xBF));
        /* lone_leads: WTF-8 into a form that takes no lone surrogates,
         * where a lead surrogate byte sequence is U+FFFD (or nothing)
         * whatever follows, and so is a trail, after a lead or not (WTF-8
         * section 4.3): a cut after the lead is read the same. */
        return (trail_cut_off && form != UTFKIT_CESU8) || (lone_leads && form == UTFKIT_WTF8);
    }
    if (form != UTFKIT_WTF8) {
        for (size_t back = 1; back <= 3 && back <= p; back++) {
            if (is_continuation(src[p - back]))
                continue;
            if (src[p - back] >= 0xF0)
                return 1;
            break;
        }
    }
    return utf8_settled(src, p, len);
}

static inline int is_lead_surrogate(uint32_t unit)
{
    return unit >= 0xD800 && unit <= 0xDBFF;
}

static inline int is_trail_surrogate(uint32_t unit)
{
    return unit >= 0xDC00 && unit <= 0xDFFF;
}

/* 1 if a UTF-E-8 (or RFC 2279) reader that began at src[lead] has ended
 * its first character or maximal subpart by p, so that what follows, up
 * to p, is continuation bytes ill-formed alone (seed 002: the reader is
 * Table 3-7's extended to 13 bytes, and decides a subpart by the bytes it
 * has read). */
static int utfe8_ended_by(const uint8_t *src, size_t lead, size_t p, size_t len, int form)
{
    utfkit_result first = utfkit_check(src + lead, p - lead, form);
    if (first.status == UTFKIT_OK || first.position > 0)
        return 1;
    if (p < len) { /* begun, and src[p] does not continue it (F0 8F: overlong) */
        utfkit_result next = utfkit_check(src + lead, p + 1 - lead, form);
        if (next.status != UTFKIT_OK && next.status != UTFKIT_END_OF_DATA &&
            next.position == 0 && next.subpart_length <= p - lead)
            return 1;
    }
    return first.status != UTFKIT_END_OF_DATA || first.subpart_length < p - lead;
}

/* reader_restart_point; input_ends: 1 if the input ends at len (the final
 * call), not only the bytes there are so far; lone_leads: 1 if the
 * destination takes no lone surrogates. */
static size_t restart_point(const uint8_t *src, size_t begin, size_t want, size_t len, int form,
                            int input_ends, int lone_leads)
{
    if (want >= len)
        return len;
    switch (form) {
    case UTFKIT_LATIN1:
    case UTFKIT_ASCII:
        return want;
    case UTFKIT_UTFE8:
    case UTFKIT_UTF8_RFC2279:
        /* Seed 002: a lead byte never continues a sequence, so every
         * sequence and maximal subpart ends before one; and a continuation
         * byte after the character or maximal subpart the last lead byte
         * begins (or with no lead byte since begin, itself a restart point)
         * belongs to none: it is ill-formed alone, a subpart of its own. */
        for (size_t p = want; p > begin; p--) {
            if (!is_continuation(src[p]))
                return p;
            size_t last_lead = p - 1;
            while (last_lead > begin && is_continuation(src[last_lead]) && p - last_lead <= 12)
                last_lead--;
            if (is_continuation(src[last_lead]) || utfe8_ended_by(src, last_lead, p, len, form))
                return p;
        }
        return begin;
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
        /* A run of lead surrogates: cut between two of them, or before the
         * odd byte the input ends in (each is unpaired either way, and
         * replaced as one unit either way); no unit is read past len. */
        for (size_t p = last; p > begin && p >= 2; p -= 2)
            if (p + 2 > len || !is_trail_surrogate(load16(src + p, big_endian)))
                return p;
        return begin;
    }
    default:
        for (size_t p = want; p > begin; p--)
            if (utf8_family_settled(src, begin, p, len, form, input_ends, lone_leads))
                return p;
        /* After a lead surrogate byte sequence that no trail surrogate
         * byte sequence follows, whole or cut off by the end of the input:
         * unpaired whether the input ends there or not, and replaced as one
         * 3-byte subpart either way. */
        for (size_t p = want; p > begin && p >= 3; p--)
            if (src[p - 3] == 0xED && src[p - 2] >= 0xA0 && src[p - 2] <= 0xAF &&
                is_continuation(src[p - 1]) &&
                (src[p] != 0xED || (p + 1 < len && !(src[p + 1] >= 0xB0 && src[p + 1] <= 0xBF)) ||
                 (p + 2 < len && !is_continuation(src[p + 2]))))
                return p;
        return begin;
    }
}

size_t reader_restart_point(const uint8_t *src, size_t begin, size_t want, size_t len, int form)
{
    return restart_point(src, begin, want, len, form, 0, 0);
}

/* What a reader of the whole input emits first from src[at] on (at, a
 * restart point), with IGNORE: a trail surrogate (NEXT_IS_TRAIL, *through
 * set to where the piece that ends with it may end), something else or
 * nothing before the end of a final input (NEXT_IS_NO_TRAIL), or not known
 * yet: only ill-formed bytes until the end of a non-final input
 * (NEXT_IS_UNKNOWN).  Read by converting into UTF-16, which takes lone
 * surrogates as WTF-8 does (WTF-8 section 4.2), one code unit at a time. */
enum { NEXT_IS_NO_TRAIL, NEXT_IS_TRAIL, NEXT_IS_UNKNOWN };

static int first_emitted_after(const uint8_t *src, size_t at, size_t len, int from, int final,
                               size_t *through)
{
    for (size_t p = at;;) {
        uint8_t unit[2];
        utfkit_result step = utfkit_transcode_partial(src + p, len - p, from, UTFKIT_UTF16LE,
                                                      UTFKIT_IGNORE, final, unit, sizeof unit);
        if (step.written == sizeof unit) {
            *through = p + step.position;
            return is_trail_surrogate(load16(unit, 0)) ? NEXT_IS_TRAIL : NEXT_IS_NO_TRAIL;
        }
        if (step.status == UTFKIT_OUTPUT_TOO_SMALL && step.position == 0)
            return NEXT_IS_NO_TRAIL; /* a supplementary character: two units */
        p += step.position;
        if (step.position == 0 || p == len)
            return final && p == len ? NEXT_IS_NO_TRAIL : NEXT_IS_UNKNOWN;
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
    case UTFKIT_UTFE8:
    case UTFKIT_UTF8_RFC2279:
        return len - utfkit_incomplete_suffix_length(src, len, form);
    case UTFKIT_LATIN1:
    case UTFKIT_ASCII:
        return len;
    default:
        if (len == 0 || utf8_family_settled(src, 0, len, len, form, 0, 0))
            return len;
        return reader_restart_point(src, 0, len - 1, len, form);
    }
}

/* The strict error `error` at src[error.position], in a call that cannot
 * end before it (no restart point between): reported with the text before
 * it, which only a WTF-8 lead surrogate byte sequence before the trail
 * surrogate byte sequence whose pairing is the error can be (WTF-8 section
 * 4.3).  utfkit_transcode writes that lead before it reports the error;
 * so does this call, consuming nothing (the next call, starting at the
 * trail, would read it as a lone surrogate), as the error's written.  A
 * cap too small for that text: UTFKIT_OUTPUT_TOO_SMALL, nothing consumed. */
static utfkit_result text_before_error(const uint8_t *src, int from, int to, utfkit_result error,
                                       uint8_t *dst, size_t cap)
{
    error.written = 0;
    if (error.position == 0)
        return error;
    utfkit_result before = utfkit_transcode(src, error.position, from, to, UTFKIT_STRICT, dst, cap);
    if (before.status == UTFKIT_OUTPUT_TOO_SMALL) {
        utfkit_result stopped = {UTFKIT_OUTPUT_TOO_SMALL, 0, 0, 0};
        return stopped;
    }
    if (before.status == UTFKIT_OK)
        error.written = before.written;
    return error;
}

/* 1 if the last bytes of a WTF-8 output are a lead surrogate byte sequence:
 * a lone lead surrogate, which a WTF-8 writer joins with a trail surrogate
 * that comes next (WTF-8 section 6.1). */
static int ends_in_lead_surrogate(const uint8_t *output, size_t length)
{
    return length >= 3 && is_lead_surrogate_sequence(output + length - 3);
}

/* Where src[begin..end), whose WTF-8 output ends in a lone lead surrogate,
 * reads it: the last lead surrogate byte sequence there (ED never
 * continues a sequence, so one that the reader meets is read whole: only
 * ill-formed bytes, which IGNORE drops, or a trail surrogate byte sequence
 * WTF-8 section 4.3 makes ill-formed, can follow it there). */
static size_t last_lead_surrogate_sequence(const uint8_t *src, size_t begin, size_t end)
{
    for (size_t at = end - 3; at > begin; at--)
        if (is_lead_surrogate_sequence(src + at))
            return at;
    return begin;
}

utfkit_result utfkit_transcode_partial(const uint8_t *src, size_t len, int from, int to,
                                       int errors, int final, uint8_t *dst, size_t cap)
{
    size_t whole = len; /* (errors are decided by all the bytes there are) */
    int lone_leads = !form_takes_lone_surrogates(to);
    /* WTF-8 output with IGNORE: a lone lead surrogate and a trail surrogate
     * that only dropped bytes separate are joined into one 4-byte sequence
     * (WTF-8 section 6.1), as one-shot conversion joins them, so no call may
     * end between them (nor, with final = 0, after such a lead while what
     * follows is unknown).  The sources that carry lone surrogates into
     * WTF-8 with ill-formed bytes between them: WTF-8 and MUTF-8 (UTF-16
     * has none to drop but a final odd byte). */
    int joins = to == UTFKIT_WTF8 && errors == UTFKIT_IGNORE &&
                (from == UTFKIT_WTF8 || from == UTFKIT_MUTF8);
    int joining = 0; /* converting a piece from a lead through its trail */
    if (!final)
        len = settled_length(src, len, from);
    size_t consumed = 0, written = 0;
    size_t piece = cap > 64 ? cap : 64; /* input bytes to try next */
    size_t next_end = 0; /* where the next piece must end, once known (0: not known) */
    while (consumed < len) {
        size_t end = next_end;
        next_end = 0;
        if (end <= consumed) {
            size_t want = len - consumed > piece ? consumed + piece : len;
            end = restart_point(src, consumed, want, len, from, final, lone_leads);
            if (end == consumed) { /* no restart point yet: a longer piece */
                piece = piece > len / 2 ? len : 2 * piece;
                continue;
            }
        }
        uint8_t *out = dst == NULL ? NULL : dst + written;
        utfkit_result converted =
            utfkit_transcode(src + consumed, end - consumed, from, to, errors, out, cap - written);
        if (converted.status == UTFKIT_OK && joins && !joining &&
            ends_in_lead_surrogate(out, converted.written) && (end < whole || !final)) {
            size_t through = 0;
            int next = first_emitted_after(src, end, whole, from, final, &through);
            if (next != NEXT_IS_NO_TRAIL) {
                /* The lead must not end this call's output: end the piece
                 * before it, or (a piece that begins with it) after the
                 * trail it joins; or, with a non-final input that may yet
                 * bring that trail, leave it unconsumed. */
                size_t lead = last_lead_surrogate_sequence(src, consumed, end);
                size_t before = restart_point(src, consumed, lead, len, from, final, lone_leads);
                if (before > consumed) {
                    next_end = before;
                    continue;
                }
                if (consumed != 0 || next == NEXT_IS_UNKNOWN)
                    break;
                joining = 1;
                next_end = through;
                continue;
            }
        }
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
            joining = 0;
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
            utfkit_result exact = utfkit_transcoded_length(src + consumed, whole - consumed, from,
                                                           to, UTFKIT_STRICT);
            if (exact.status == UTFKIT_OK || exact.status == UTFKIT_UNENCODABLE ||
                exact.position > end - consumed)
                exact = converted;
            /* The text before it ends where the reader of what follows
             * starts afresh: not between a lead surrogate and the trail
             * surrogate whose pairing is the error (WTF-8 section 4.3: in
             * WTF-8 a pair is one 4-byte sequence), which a call starting
             * at the trail would read as a lone surrogate. */
            size_t boundary = exact.position == 0 ? consumed
                            : restart_point(src, consumed, consumed + exact.position, whole,
                                            from, final, lone_leads);
            if (boundary == consumed) {
                if (consumed != 0) /* the text before it is this call's output */
                    break;
                return text_before_error(src, from, to, exact, dst, cap);
            }
            next_end = boundary;
            continue;
        }
        if (joining) { /* the lead and its trail, joined, do not fit */
            utfkit_result stopped = {UTFKIT_OUTPUT_TOO_SMALL, 0, 0, 0};
            return stopped;
        }
        /* Too long a piece: half of it, or failing that the longest piece
         * shorter than this one. */
        size_t shorter = restart_point(src, consumed, consumed + (end - consumed) / 2, len, from,
                                       final, lone_leads);
        if (shorter == consumed)
            shorter = restart_point(src, consumed, end - 1, len, from, final, lone_leads);
        if (shorter == consumed) { /* one piece that cannot be cut: stop before it */
            if (converted.status == UTFKIT_UNENCODABLE && consumed != 0)
                break; /* reported by the next call, which starts there */
            utfkit_result stopped = {converted.status, consumed, 0, written};
            return stopped;
        }
        piece = shorter - consumed;
    }
    utfkit_result done = {UTFKIT_OK, consumed, 0, written}; /* (consumed < len: an error next) */
    return done;
}
