/*
 * utfe8.c -- UTF-E-8 (seed 002): UTF-8 extended to code points up to
 * U+7FFFFFFFFFFFFFFF, as Perl's 64-bit "utf8" writes them.
 *
 *   U+0 .. U+7FFFFFFF           the original 1-6 byte UTF-8 (RFC 2279;
 *                               seed 004): lead bytes 00..7F, C2..FD
 *   U+80000000 .. U+FFFFFFFFF   FE + 6 continuation bytes (seed 002 3.3)
 *   U+1000000000 .. 2^63 - 1    FF + 12 continuation bytes (seed 002 3.4),
 *                               the first two 80 and 80..87
 *
 * Surrogates and values above 10FFFF are ordinary code points here.  Only
 * the shortest form is well-formed (Corrigendum #1): each length has a
 * lowest second byte (E0 A0, F0 90, F8 88, FC 84, FE 82), and FF needs a
 * value of 2^36 or more, which its bytes 3 to 7 decide.
 *
 * UTF-8 text is UTF-E-8 with the same boundaries and values, so the decoder
 * lets the UTF-8 kernel find the stretches that are UTF-8 and decodes them
 * with UTF-8's own reader (utf8.c); only where UTF-8 stops does it read a
 * sequence by the rules above.
 */
#include "surrogates.h"

#define UTFE8_LONGEST 13
#define UTFE8_MAX_CODE_POINT 0x7FFFFFFFFFFFFFFFull
#define RFC2279_MAX_CODE_POINT 0x7FFFFFFFull /* ISO 10646's 31 bits (seed 004) */

/* The sequence length a lead byte announces; 0 for 80..BF (continuation
 * bytes) and C0, C1 (whose every sequence is overlong). */
static size_t sequence_length(uint8_t lead)
{
    if (lead < 0x80) return 1;
    if (lead < 0xC2) return 0;
    if (lead < 0xE0) return 2;
    if (lead < 0xF0) return 3;
    if (lead < 0xF8) return 4;
    if (lead < 0xFC) return 5;
    if (lead < 0xFE) return 6;
    return lead == 0xFE ? 7 : UTFE8_LONGEST;
}

/* The lowest second byte of a shortest form, for the lead bytes whose
 * lowest code point needs it: E0 (U+800), F0 (U+10000), F8 (U+200000),
 * FC (U+4000000), FE (U+80000000). */
static uint8_t lowest_second_byte(uint8_t lead)
{
    switch (lead) {
    case 0xE0: return 0xA0;
    case 0xF0: return 0x90;
    case 0xF8: return 0x88;
    case 0xFC: return 0x84;
    case 0xFE: return 0x82;
    default: return 0x80;
    }
}

/* The lowest code point a shortest form of `length` bytes encodes
 * (seed 004's table; seed 002 sections 3.3 and 3.4). */
static uint64_t lowest_code_point(size_t length)
{
    switch (length) {
    case 2: return 0x80;
    case 3: return 0x800;
    case 4: return 0x10000;
    case 5: return 0x200000;
    case 6: return 0x4000000;
    case 7: return 0x80000000ull;
    case UTFE8_LONGEST: return 0x1000000000ull;
    default: return 0;
    }
}

/* 1 if every shortest form of `length` bytes that begins with the bytes
 * read so far -- their payload bits in `value`, `bits_left` payload bits
 * still to come -- encodes a code point above `limit`. */
static int must_exceed(uint64_t value, size_t bits_left, size_t length, uint64_t limit)
{
    if (lowest_code_point(length) > limit)
        return 1;
    if (bits_left >= 64)
        return value != 0;
    return value > (UINT64_MAX >> bits_left) || value << bits_left > limit;
}

typedef struct utfe8_sequence {
    int status;      /* UTFKIT_OK, or why src[at..at + length) is ill-formed */
    size_t length;   /* bytes read: the sequence, or the maximal subpart */
    uint64_t value;
} utfe8_sequence;

/* Reads the sequence at src[at], at < len, as UTF-E-8 restricted to code
 * points 0..limit (limit <= UTFE8_MAX_CODE_POINT).  An ill-formed one is
 * cut as a maximal subpart (D93b): the bytes before the one that shows no
 * well-formed sequence can continue them -- at least the lead byte.  A
 * sequence whose value the bytes read so far put above the limit is
 * UTFKIT_TOO_LARGE, cut before the byte that decides it; the lead byte alone
 * decides it when even the lowest shortest form of its length is above the
 * limit (FE and FF for RFC 2279's U+7FFFFFFF). */
static utfe8_sequence read_sequence(const uint8_t *src, size_t len, size_t at, uint64_t limit)
{
    uint8_t lead = src[at];
    size_t length = sequence_length(lead);
    if (length == 0)
        return (utfe8_sequence){UTFKIT_INVALID_START, 1, 0};
    if (length == 1)
        return lead <= limit ? (utfe8_sequence){UTFKIT_OK, 1, lead}
                             : (utfe8_sequence){UTFKIT_TOO_LARGE, 1, 0};
    /* 2-6 bytes: 7 - length payload bits in the lead; FE and FF: none */
    uint64_t value = length <= 6 ? lead & (0x7Fu >> length) : 0;
    if (must_exceed(value, 6 * (length - 1), length, limit))
        return (utfe8_sequence){UTFKIT_TOO_LARGE, 1, 0};
    for (size_t k = 1; k < length; k++) {
        if (at + k == len)
            return (utfe8_sequence){UTFKIT_END_OF_DATA, k, 0};
        uint8_t byte = src[at + k];
        if (!utf8_is_continuation(byte))
            return (utfe8_sequence){UTFKIT_INVALID_CONTINUATION, k, 0};
        if (k == 1 && byte < lowest_second_byte(lead))
            return (utfe8_sequence){UTFKIT_INVALID_CONTINUATION, 1, 0}; /* overlong */
        /* FF: bytes 2..7 carry bits 36..71, all zero below 2^36, the 7-byte
         * form's range (seed 002 section 3.4) -- overlong, decided by the
         * seventh byte */
        if (lead == 0xFF && k == 6 && value == 0 && byte == 0x80)
            return (utfe8_sequence){UTFKIT_INVALID_CONTINUATION, 6, 0};
        /* limit <= 2^63 - 1: must_exceed stops the FF form's 72 payload bits
         * before they overflow value (its second byte, bits 66..71, must be
         * 80, its third, bits 60..65, at most 87) */
        value = value << 6 | (byte & 0x3Fu);
        if (must_exceed(value, 6 * (length - 1 - k), length, limit))
            return (utfe8_sequence){UTFKIT_TOO_LARGE, k, 0};
    }
    return (utfe8_sequence){UTFKIT_OK, length, value};
}

size_t utfe8_incomplete_suffix(const uint8_t *src, size_t len, uint64_t limit)
{
    /* A lead byte never continues a sequence, so the unfinished one begins
     * at the last byte that is not 80..BF, at most 12 back. */
    size_t reach = len < UTFE8_LONGEST - 1 ? len : UTFE8_LONGEST - 1;
    for (size_t back = 1; back <= reach; back++) {
        if (utf8_is_continuation(src[len - back]))
            continue;
        utfe8_sequence sequence = read_sequence(src, len, len - back, limit);
        return sequence.status == UTFKIT_END_OF_DATA && sequence.length == back ? back : 0;
    }
    return 0;
}

static int is_scalar_value(uint64_t code_point)
{
    return code_point <= 0x10FFFF && (code_point < 0xD800 || code_point > 0xDFFF);
}

/* ---- reading into the other forms (transcode.c) ---- */

/* The most a target form carries of what UTF-E-8 encodes beyond Unicode
 * scalar values: everything for the counting sink (a decoder yields every
 * code point), up to its limit for UTF-E-8 and RFC 2279 output, nothing for
 * the Unicode forms and UTF-8's other relatives. */
static uint64_t carried_beyond_unicode(int to)
{
    switch (to) {
    case UTFKIT_COUNT_ONLY: return UINT64_MAX;
    case UTFKIT_UTFE8: return UTFE8_MAX_CODE_POINT;
    case UTFKIT_UTF8_RFC2279: return RFC2279_MAX_CODE_POINT;
    default: return 0;
    }
}

utfkit_result utfe8_transcode(const uint8_t *src, size_t len, uint64_t limit, int to, int errors,
                              utfkit_sink *sink)
{
    uint64_t carried = carried_beyond_unicode(to);
    /* Unicode scalar values are written in UTF-E-8 and RFC 2279 exactly as
     * in UTF-8 (seed 002 section 3.2; seed 004); what is carried beyond
     * them is copied as it was read. */
    int written_as = to == UTFKIT_UTFE8 || to == UTFKIT_UTF8_RFC2279 ? UTFKIT_UTF8 : to;
    code_point_stream stream = code_point_stream_into(sink, written_as, errors);
    /* Below U+10FFFF some well-formed UTF-8 would be above the limit. */
    int utf8_runs = limit >= 0x10FFFF;
    size_t i = 0;
    while (i < len) {
        if (utf8_runs) {
            utfkit_result utf8_error = utf8_first_ill_formed(src + i, len - i);
            emit_utf8(&stream, src + i, utf8_error.position);
            i += utf8_error.position;
            if (utf8_error.status == UTFKIT_OK)
                break;
        }
        utfe8_sequence sequence = read_sequence(src, len, i, limit);
        int stop = 0;
        if (sequence.status != UTFKIT_OK) {
            stop = emit_ill_formed(&stream, sequence.status, i, sequence.length);
        } else if (is_scalar_value(sequence.value)) {
            emit_scalar(&stream, (uint32_t)sequence.value);
        } else if (sequence.value <= carried) {
            emit_utf8(&stream, src + i, sequence.length); /* copied, or counted as one */
        } else {
            /* issue 15: a code point the target cannot hold is an
             * ill-formed subsequence there, the whole sequence */
            int status = sequence.value <= 0xDFFF ? UTFKIT_SURROGATE : UTFKIT_TOO_LARGE;
            stop = emit_ill_formed(&stream, status, i, sequence.length);
        }
        if (stop)
            break;
        i += sequence.length;
    }
    return code_point_stream_result(&stream, len);
}

/* ---- decoding into code points ---- */

typedef struct code_point_output {
    uint64_t *dst;
    size_t cap, out;
} code_point_output;

static inline void write_code_point(code_point_output *output, uint64_t code_point)
{
    if (output->out < output->cap)
        output->dst[output->out] = code_point;
    output->out++;
}

/* Decodes well-formed UTF-8 src[0..len) through UTF-8's reader, into
 * UTF-32 in stretches of at most STRETCH bytes, widened to 64 bits. */
#define STRETCH 1024

static void decode_utf8(const uint8_t *src, size_t len, code_point_output *output)
{
    const int host_utf32 = UTFKIT_HOST_BIG_ENDIAN ? UTFKIT_UTF32BE : UTFKIT_UTF32LE;
    uint32_t units[STRETCH]; /* STRETCH bytes are at most STRETCH characters */
    size_t i = 0;
    while (i < len) {
        size_t end = len - i > STRETCH ? i + STRETCH : len;
        while (end < len && utf8_is_continuation(src[end]))
            end--; /* a character boundary; end > i as characters are <= 4 bytes */
        utfkit_sink sink = sink_over((uint8_t *)units, sizeof units);
        utf8_well_formed_into(src + i, end - i, &sink, host_utf32);
        size_t characters = sink.out / 4;
        for (size_t k = 0; k < characters; k++)
            write_code_point(output, units[k]);
        i = end;
    }
}

utfkit_result utfkit_utfe8_decode(const uint8_t *src, size_t len, int errors, uint64_t limit,
                                  uint64_t *dst, size_t cap)
{
    if (errors < UTFKIT_STRICT || errors > UTFKIT_IGNORE || limit > UTFE8_MAX_CODE_POINT)
        return (utfkit_result){UTFKIT_TOO_LARGE, 0, 0, 0};
    code_point_output output = {dst, cap, 0};
    int utf8_runs = limit >= 0x10FFFF; /* as in utfe8_transcode */
    size_t i = 0;
    while (i < len) {
        if (utf8_runs) {
            utfkit_result utf8_error = utf8_first_ill_formed(src + i, len - i);
            decode_utf8(src + i, utf8_error.position, &output);
            i += utf8_error.position;
            if (utf8_error.status == UTFKIT_OK)
                break;
        }
        utfe8_sequence sequence = read_sequence(src, len, i, limit);
        if (sequence.status == UTFKIT_OK) {
            write_code_point(&output, sequence.value);
        } else if (errors == UTFKIT_STRICT) {
            return (utfkit_result){sequence.status, i, sequence.length, output.out};
        } else if (errors == UTFKIT_REPLACE) {
            write_code_point(&output, 0xFFFD);
        }
        i += sequence.length;
    }
    return (utfkit_result){output.out > cap ? UTFKIT_OUTPUT_TOO_SMALL : UTFKIT_OK, len, 0,
                           output.out};
}

utfkit_result utfkit_utfe8_check(const uint8_t *src, size_t len)
{
    utfkit_result result =
        utfkit_utfe8_decode(src, len, UTFKIT_STRICT, UTFE8_MAX_CODE_POINT, NULL, 0);
    if (result.status == UTFKIT_OUTPUT_TOO_SMALL)
        result.status = UTFKIT_OK;
    return result;
}

/* ---- encoding ---- */

static size_t encoded_length(uint64_t code_point)
{
    if (code_point < 0x80) return 1;
    if (code_point < 0x800) return 2;
    if (code_point < 0x10000) return 3;
    if (code_point < 0x200000) return 4;
    if (code_point < 0x4000000) return 5;
    if (code_point < 0x80000000ull) return 6;
    if (code_point < 0x1000000000ull) return 7;
    return UTFE8_LONGEST;
}

/* Writes the shortest form of code_point (<= 2^63 - 1), `length` bytes. */
static void write_sequence(uint8_t *p, uint64_t code_point, size_t length)
{
    if (length == 1) {
        p[0] = (uint8_t)code_point;
        return;
    }
    for (size_t k = length - 1; k >= 1; k--) {
        p[k] = (uint8_t)(0x80 | (code_point & 0x3F));
        code_point >>= 6;
    }
    /* 2-6 bytes: length high bits set, then a 0, then the payload;
     * FE and FF carry no payload in the lead byte */
    p[0] = length <= 6 ? (uint8_t)((0xFF00u >> length) | code_point)
                       : (uint8_t)(length == 7 ? 0xFE : 0xFF);
}

utfkit_result utfkit_utfe8_encode(const uint64_t *code_points, size_t count, uint64_t limit,
                                  uint8_t *dst, size_t cap)
{
    if (count > SIZE_MAX / UTFE8_LONGEST || limit > UTFE8_MAX_CODE_POINT)
        return (utfkit_result){UTFKIT_TOO_LARGE, 0, 0, 0};
    size_t out = 0;
    int full = 0;
    for (size_t k = 0; k < count; k++) {
        uint64_t code_point = code_points[k];
        if (code_point > limit)
            return (utfkit_result){UTFKIT_TOO_LARGE, k, 1, out};
        size_t length = encoded_length(code_point);
        if (!full && cap - out >= length) /* out <= cap while not full */
            write_sequence(dst + out, code_point, length);
        else
            full = 1;
        out += length;
    }
    return (utfkit_result){full ? UTFKIT_OUTPUT_TOO_SMALL : UTFKIT_OK, count, 0, out};
}
