/*
 * wtf8.c -- reading WTF-8 (seed 003 section 6) into any form.
 *
 * WTF-8 is generalized UTF-8 (seed 003 section 5) minus surrogate pair byte
 * sequences: UTF-8 with lone surrogate byte sequences (ED A0..BF 80..BF,
 * seed 003 Table 1) among its characters.  So the reader lets the UTF-8
 * kernel find the next place where the text stops being UTF-8 -- the long
 * well-formed stretches go to the sink as UTF-8 does them -- and decides
 * there: a surrogate byte sequence is a lone surrogate (a trail one right
 * after a lead one is a surrogate pair byte sequence, ill-formed), anything
 * else is cut as UTF-8 cuts it, reading ED A0..BF as the start of a
 * surrogate byte sequence.
 *
 * Converted to UTF-16 (potentially ill-formed, seed 003 section 6.3) or
 * MUTF-8, lone surrogates are written as they are; to UTF-8 (section 6.4),
 * UTF-32 or CESU-8 each is an ill-formed subsequence, which REPLACE turns
 * into U+FFFD -- the lossy conversion, same length in UTF-8 -- and STRICT
 * reports: the strict conversion.
 */
#include "surrogates.h"


utfkit_result wtf8_transcode(const uint8_t *src, size_t len, int to, int errors, utfkit_sink *sink)
{
    code_point_stream stream = code_point_stream_into(sink, to, errors);
    /* src[i..utf8_end) is known to be well-formed UTF-8, and utf8_error is
     * what ends it (valid while utf8_end >= i). */
    size_t i = 0, utf8_end = 0, lead_end = SIZE_MAX;
    utfkit_result utf8_error = {UTFKIT_OK, 0, 0, 0};
    int known = 0;
    while (i < len) {
        if (!known || i > utf8_end) {
            utf8_error = utf8_first_ill_formed(src + i, len - i);
            utf8_end = i + utf8_error.position;
            known = 1;
        }
        if (i < utf8_end) {
            emit_utf8(&stream, src + i, utf8_end - i);
            i = utf8_end;
            continue;
        }
        if (utf8_error.status == UTFKIT_OK)
            break;
        uint32_t surrogate = surrogate_byte_sequence_at(src, len, i);
        if (surrogate != 0) {
            int stop;
            if (is_trail_surrogate(surrogate) && lead_end == i) {
                /* seed 003 section 6: a surrogate pair byte sequence is
                 * ill-formed; the lead stands, the trail is the error. */
                stop = emit_ill_formed(&stream, UTFKIT_SURROGATE, i, 3);
            } else {
                stop = emit_lone_surrogate(&stream, surrogate, i);
            }
            if (stop)
                break;
            if (is_lead_surrogate(surrogate))
                lead_end = i + 3;
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
