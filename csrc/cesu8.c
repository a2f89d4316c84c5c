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


/* First i in [from, to) with src[i] F0..FF, or 00 when zero_is_ill_formed. */
static size_t next_foreign_byte(const uint8_t *src, size_t from, size_t to, int zero_is_ill_formed)
{
    size_t i = from;
    for (; to - i >= 8; i += 8) {
        uint32_t found = 0;
        for (int k = 0; k < 8; k++)
            found |= (src[i + k] >= 0xF0) | (zero_is_ill_formed & (src[i + k] == 0));
        if (found)
            break;
    }
    for (; i < to; i++)
        if (src[i] >= 0xF0 || (zero_is_ill_formed && src[i] == 0))
            return i;
    return to;
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

utfkit_result cesu8_transcode(const uint8_t *src, size_t len, int modified, int to, int errors,
                              utfkit_sink *sink)
{
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
