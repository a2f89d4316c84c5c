/*
 * surrogates.h -- surrogate byte sequences in the UTF-8-based forms that
 * hold them (WTF-8, CESU-8, MUTF-8; internal): recognising one (seed 003
 * Table 1), and the code point stream the readers of those forms write
 * through, which handles lone surrogates and ill-formed subsequences for
 * every destination form.
 */
#ifndef UTFKIT_SURROGATES_H
#define UTFKIT_SURROGATES_H

#include "readers.h"
#include "utf8_dfa.h"

/* Seed 003 Table 1: ED A0..BF 80..BF is a surrogate byte sequence.  Returns
 * the surrogate code point if src[at..len) starts with a whole one, else 0. */
static inline uint32_t surrogate_byte_sequence_at(const uint8_t *src, size_t len, size_t at)
{
    if (len - at < 3 || src[at] != 0xED || (src[at + 1] & 0xE0) != 0xA0 || /* A0..BF */
        !utf8_is_continuation(src[at + 2]))
        return 0;
    return 0xD000u | (uint32_t)(src[at + 1] & 0x3F) << 6 | (uint32_t)(src[at + 2] & 0x3F);
}

static inline int is_lead_surrogate(uint32_t code_point)
{
    return code_point >= 0xD800 && code_point <= 0xDBFF;
}

static inline int is_trail_surrogate(uint32_t code_point)
{
    return code_point >= 0xDC00 && code_point <= 0xDFFF;
}

/* Where a reader of a UTF-8-based form sends what it reads.  Output to
 * WTF-8 holds a lone lead surrogate back until the next code point is
 * known: a trail surrogate right after it (possible once an ill-formed
 * subsequence between them is ignored) joins it into one supplementary
 * code point, as encoding to WTF-8 does (seed 003 section 6.1), so WTF-8
 * output is always well-formed. */
typedef struct code_point_stream {
    utfkit_sink *sink;
    int to;
    int errors;
    uint32_t pending_lead; /* 0 or a lead surrogate not yet written (WTF-8 output) */
    int status;            /* the strict error that stopped the reader, or UTFKIT_OK */
    size_t position, subpart_length;
} code_point_stream;

static inline code_point_stream code_point_stream_into(utfkit_sink *sink, int to, int errors)
{
    code_point_stream stream = {sink, to, errors, 0, UTFKIT_OK, 0, 0};
    return stream;
}

static inline void flush_pending_lead(code_point_stream *stream)
{
    if (stream->pending_lead != 0) {
        sink_put_lone_surrogate(stream->sink, stream->to, stream->pending_lead);
        stream->pending_lead = 0;
    }
}

/* Well-formed UTF-8. */
static inline void emit_utf8(code_point_stream *stream, const uint8_t *src, size_t len)
{
    if (len == 0)
        return;
    flush_pending_lead(stream);
    utf8_well_formed_into(src, len, stream->sink, stream->to);
}

/* A Unicode scalar value. */
static inline void emit_scalar(code_point_stream *stream, uint32_t scalar)
{
    flush_pending_lead(stream);
    sink_put(stream->sink, stream->to, scalar);
}

/* An ill-formed subsequence of `length` bytes at `position`.  Returns 1 if
 * the reader must stop (errors = STRICT). */
static inline int emit_ill_formed(code_point_stream *stream, int status, size_t position,
                                  size_t length)
{
    if (stream->errors == UTFKIT_STRICT) {
        stream->status = status;
        stream->position = position;
        stream->subpart_length = length;
        return 1;
    }
    if (stream->errors == UTFKIT_REPLACE)
        emit_scalar(stream, 0xFFFD);
    return 0;
}

/* A lone surrogate of the 3 bytes at `position`: written where the
 * destination takes lone surrogates, else ill-formed.  Returns 1 if the
 * reader must stop. */
static inline int emit_lone_surrogate(code_point_stream *stream, uint32_t surrogate,
                                      size_t position)
{
    if (!form_takes_lone_surrogates(stream->to))
        return emit_ill_formed(stream, UTFKIT_SURROGATE, position, 3);
    if (stream->to == UTFKIT_WTF8) {
        if (is_trail_surrogate(surrogate) && stream->pending_lead != 0) {
            uint32_t lead = stream->pending_lead;
            stream->pending_lead = 0;
            sink_put(stream->sink, stream->to,
                     0x10000 + ((lead - 0xD800) << 10) + (surrogate - 0xDC00));
            return 0;
        }
        flush_pending_lead(stream);
        if (is_lead_surrogate(surrogate)) {
            stream->pending_lead = surrogate;
            return 0;
        }
    }
    sink_put_lone_surrogate(stream->sink, stream->to, surrogate);
    return 0;
}

/* The reader's result: everything written (a held-back lead included). */
static inline utfkit_result code_point_stream_result(code_point_stream *stream, size_t len)
{
    flush_pending_lead(stream);
    if (stream->status != UTFKIT_OK)
        return sink_error(stream->sink, stream->status, stream->position, stream->subpart_length);
    return sink_result(stream->sink, len);
}

/* How UTF-8 cuts the ill-formed subsequence at src[at] (utf8_error, found
 * by utf8_first_ill_formed), read as generalized UTF-8 (seed 003 section 5),
 * where ED may be followed by A0..BF too: ED A0..BF cut short is a maximal
 * subpart of 2 bytes, not 1. */
static inline void generalized_utf8_cut(const uint8_t *src, size_t len, size_t at,
                                        utfkit_result utf8_error, int *status, size_t *length)
{
    if (src[at] == 0xED && len - at >= 2 && src[at + 1] >= 0xA0 && src[at + 1] <= 0xBF) {
        /* not a whole surrogate byte sequence (the caller checked) */
        *status = len - at == 2 ? UTFKIT_END_OF_DATA : UTFKIT_INVALID_CONTINUATION;
        *length = 2;
        return;
    }
    *status = utf8_error.status;
    *length = utf8_error.subpart_length;
}

#endif /* UTFKIT_SURROGATES_H */
