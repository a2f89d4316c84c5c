/*
 * fuzz_partial.c -- bounded conversion (utfkit_transcode_partial) against
 * one-shot conversion (utfkit_transcode), for every pair of the twelve forms
 * of utfkit.h (Latin-1 and ASCII included, as source and as destination),
 * every errors mode and every kernel this CPU runs.
 *
 * A fixed-buffer loop, as a caller with a bounded output buffer writes it:
 * the input arrives in pieces (cut where the input says); each piece is
 * passed with what the calls before left unconsumed, final = 0 but for the
 * last; what each call writes is appended to the output.  Then (DESIGN.md
 * section 2, transcode_partial):
 *
 *   - with REPLACE and IGNORE, and with STRICT on input utfkit_transcode
 *     converts, the output is exactly utfkit_transcode's and the last call
 *     leaves nothing unconsumed;
 *   - with STRICT, the call that starts at the first ill-formed subsequence
 *     reports it as utfkit_transcode does (status, position counted from
 *     the input's start, maximal subpart), after the text before it was
 *     converted (a WTF-8 lead surrogate byte sequence before the trail
 *     whose pairing is the error, WTF-8 section 4.3, by the error call
 *     itself, in its written); or, when a character the destination cannot encode comes
 *     first, the call that starts at it reports UTFKIT_UNENCODABLE (a
 *     one-shot conversion decodes all of the input first and reports the
 *     ill-formed subsequence, as CPython's decode().encode() does);
 *   - a call that converts nothing for want of room had less room than the
 *     longest output of one character, and no call writes past its cap
 *     (every buffer is a heap block of exactly its size, for AddressSanitizer);
 *   - utfkit_transcode's results are the scalar kernel's, bit for bit, also
 *     into a dst 0..63 bytes past a heap block's start (derived from bytes
 *     2..4), nothing written before it.
 *
 * Input: byte 0 the source form (mod 12), byte 1 the destination form
 * (mod 12), byte 2 the output buffer's size (the longest output of one
 * character plus fuzz_length of it: 0 to 4096, around the SIMD blocks'
 * ends), byte 3 the first call's buffer (below 80: byte 3 mod that longest
 * output, so that it may be too small for any character; else the same
 * size), bytes 4..6 the cuts (fuzz_length of each, within the text); the
 * rest is the text.
 */
#include "fuzz_common.h"

#define FORMS 12 /* UTFKIT_UTF8 .. UTFKIT_UTF8_RFC2279 */
#define MODES 3
#define HEADER 7
#define CUTS 3

/* The longest output of one character or of one U+FFFD, and so the
 * smallest output buffer a bounded conversion always makes progress in: a
 * supplementary character is 6 bytes of CESU-8 or MUTF-8 (UTR #26); a
 * UTF-E-8 code point is up to 13 bytes, which UTF-E-8 and RFC 2279
 * destinations write as they read it. */
static size_t longest_character(int to)
{
    return to == UTFKIT_UTFE8 || to == UTFKIT_UTF8_RFC2279 ? 13 : 6;
}

typedef struct bounded_outcome {
    utfkit_result stopped; /* status OK, or the strict error that ended the loop */
    size_t stopped_at;     /* where that error is, counted from the input's start */
    size_t written;
} bounded_outcome;

/* The fixed-buffer loop over src[0..len), cut at cuts[0..CUTS) (sorted,
 * each <= len), writing into output[0..output_cap). */
static bounded_outcome convert_in_pieces(const uint8_t *src, size_t len, int from, int to, int mode,
                                         const size_t cuts[CUTS], size_t cap, size_t first_cap,
                                         uint8_t *output, size_t output_cap)
{
    bounded_outcome outcome = {{UTFKIT_OK, 0, 0, 0}, 0, 0};
    size_t consumed = 0, calls = 0, guaranteed = longest_character(to);
    int stalled = 0;
    for (size_t piece = 0; piece <= CUTS; piece++) {
        size_t end = piece < CUTS ? cuts[piece] : len;
        int final = piece == CUTS;
        if (end < consumed)
            continue; /* (a cut before input a call already consumed) */
        for (;;) {
            size_t room = calls++ == 0 ? first_cap : cap;
            if (stalled && room < guaranteed)
                room = guaranteed;
            stalled = 0;
            /* exactly the pending bytes and the room: reads and writes past
             * either are AddressSanitizer's to report */
            uint8_t *pending = fuzz_copy(src + consumed, end - consumed);
            uint8_t *dst = room ? malloc(room) : NULL;
            utfkit_result call = utfkit_transcode_partial(pending, end - consumed, from, to, mode,
                                                          final, dst, room);
            free(pending);
            FUZZ_REQUIRE(call.position <= end - consumed && call.written <= room,
                         "%d->%d mode %d: consumed %zu of %zu, wrote %zu of %zu", from, to, mode,
                         call.position, end - consumed, call.written, room);
            FUZZ_REQUIRE(outcome.written + call.written <= output_cap,
                         "%d->%d mode %d: more output than utfkit_transcode's %zu", from, to, mode,
                         output_cap);
            if (call.written)
                memcpy(output + outcome.written, dst, call.written);
            free(dst);
            if (call.status != UTFKIT_OK && call.status != UTFKIT_OUTPUT_TOO_SMALL) {
                /* a strict error comes alone, or with the text before it
                 * that no call can end before: a WTF-8 lead surrogate
                 * before the trail whose pairing is the error (WTF-8
                 * section 4.3) */
                FUZZ_REQUIRE(mode == UTFKIT_STRICT &&
                                 (call.written == 0 ||
                                  (from == UTFKIT_WTF8 && call.status == UTFKIT_SURROGATE)),
                             "%d->%d mode %d: status %d, written %zu", from, to, mode, call.status,
                             call.written);
                outcome.stopped = call;
                outcome.stopped_at = consumed + call.position;
                outcome.written += call.written;
                return outcome;
            }
            if (call.status == UTFKIT_OUTPUT_TOO_SMALL && call.position == 0 && call.written == 0) {
                FUZZ_REQUIRE(room < guaranteed,
                             "%d->%d mode %d: no progress at %zu with %zu bytes of room", from, to,
                             mode, consumed, room);
                stalled = 1; /* the next call has room enough */
                continue;
            }
            consumed += call.position;
            outcome.written += call.written;
            if (call.position == 0 && call.written == 0)
                break; /* needs the next piece */
        }
    }
    FUZZ_REQUIRE(consumed == len, "%d->%d mode %d: the final call left %zu of %zu bytes", from, to,
                 mode, len - consumed, len);
    return outcome;
}

/* One errors mode under the active kernel; `expected` is the scalar
 * kernel's utfkit_transcode output (replace_output: the REPLACE mode's,
 * which the text before a strict error also converts to). */
static void check_mode(const uint8_t *src, size_t len, int from, int to, int mode,
                       const size_t cuts[CUTS], size_t cap, size_t first_cap,
                       utfkit_result expected, const uint8_t *expected_output,
                       const uint8_t *replace_output, size_t replace_length)
{
    size_t output_cap = expected.status == UTFKIT_OK ? expected.written : replace_length;
    uint8_t *output = malloc(output_cap ? output_cap : 1);
    if (output == NULL)
        abort();
    bounded_outcome got = convert_in_pieces(src, len, from, to, mode, cuts, cap, first_cap, output,
                                            output_cap);
    if (expected.status == UTFKIT_OK) {
        FUZZ_REQUIRE(got.stopped.status == UTFKIT_OK, "%d->%d mode %d: stopped by %d at %zu, "
                     "utfkit_transcode converts it", from, to, mode, got.stopped.status,
                     got.stopped_at);
        FUZZ_REQUIRE(got.written == expected.written &&
                         memcmp(output, expected_output, expected.written) == 0,
                     "%d->%d mode %d: %zu bytes written, utfkit_transcode writes %zu", from, to,
                     mode, got.written, expected.written);
    } else if (got.stopped.status == UTFKIT_UNENCODABLE) {
        /* a character `to` cannot encode, met before any ill-formed
         * subsequence there may be */
        FUZZ_REQUIRE(expected.status == UTFKIT_UNENCODABLE || got.stopped_at < expected.position,
                     "%d->%d: unencodable at %zu, utfkit_transcode: %d at %zu", from, to,
                     got.stopped_at, expected.status, expected.position);
        if (expected.status == UTFKIT_UNENCODABLE) /* (written: the characters before it) */
            FUZZ_REQUIRE(got.written == expected.written, "%d->%d: %zu bytes before the "
                         "unencodable character, %zu characters", from, to, got.written,
                         expected.written);
        FUZZ_REQUIRE(memcmp(output, replace_output, got.written) == 0,
                     "%d->%d: the text before the unencodable character differs", from, to);
    } else {
        FUZZ_REQUIRE(got.stopped.status == expected.status && got.stopped_at == expected.position &&
                         got.stopped.subpart_length == expected.subpart_length,
                     "%d->%d strict: %d at %zu (%zu bytes), utfkit_transcode %d at %zu (%zu)", from,
                     to, got.stopped.status, got.stopped_at, got.stopped.subpart_length,
                     expected.status, expected.position, expected.subpart_length);
        FUZZ_REQUIRE(got.written == expected.written &&
                         memcmp(output, replace_output, got.written) == 0,
                     "%d->%d strict: %zu bytes before the error, utfkit_transcode %zu", from, to,
                     got.written, expected.written);
    }
    free(output);
}

typedef struct one_shot {
    utfkit_result result[MODES];
    uint8_t *output[MODES];
    size_t replace_length;
} one_shot;

static one_shot convert_whole(const uint8_t *src, size_t len, int from, int to)
{
    one_shot o;
    o.replace_length = utfkit_transcoded_length(src, len, from, to, UTFKIT_REPLACE).written;
    for (int mode = 0; mode < MODES; mode++) {
        /* the strict output, or the text before its error, is at most the
         * replace output's length */
        size_t need = utfkit_transcoded_length(src, len, from, to, mode).written;
        if (mode == UTFKIT_STRICT)
            need = o.replace_length;
        o.output[mode] = malloc(need ? need : 1);
        if (o.output[mode] == NULL)
            abort();
        o.result[mode] = utfkit_transcode(src, len, from, to, mode, o.output[mode], need);
        FUZZ_REQUIRE(mode == UTFKIT_STRICT || o.result[mode].status == UTFKIT_OK,
                     "%d->%d mode %d: utfkit_transcode status %d", from, to, mode,
                     o.result[mode].status);
    }
    return o;
}

/* utfkit_transcode with each errors mode into a dst `offset` bytes (0..63)
 * past a heap block's start, the block ending where the output does: the
 * scalar kernel's result and bytes, and nothing written before dst (the
 * widening blocks of Latin-1 into UTF-16 and UTF-32 store aligned to dst,
 * whatever its address). */
static void check_at_offset(const uint8_t *src, size_t len, int from, int to, size_t offset,
                            const one_shot *reference)
{
    for (int mode = 0; mode < MODES; mode++) {
        utfkit_result expected = reference->result[mode];
        size_t need = mode == UTFKIT_STRICT ? reference->replace_length : expected.written;
        uint8_t *block = malloc(offset + need + 1);
        if (block == NULL)
            abort();
        memset(block, 0xA5, offset + need);
        utfkit_result got = utfkit_transcode(src, len, from, to, mode, block + offset, need);
        FUZZ_REQUIRE(fuzz_same_result(got, expected), "transcode %d->%d mode %d at dst offset "
                     "%zu differs", from, to, mode, offset);
        if (got.status == UTFKIT_OK)
            FUZZ_REQUIRE(memcmp(block + offset, reference->output[mode], got.written) == 0,
                         "transcode %d->%d mode %d at dst offset %zu: output differs", from, to,
                         mode, offset);
        for (size_t i = 0; i < offset; i++)
            FUZZ_REQUIRE(block[i] == 0xA5, "transcode %d->%d mode %d wrote before dst (offset %zu)",
                         from, to, mode, offset);
        free(block);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < HEADER)
        return 0;
    int from = data[0] % FORMS, to = data[1] % FORMS;
    size_t longest = longest_character(to);
    size_t cap = longest + fuzz_length(data[2]);
    size_t first_cap = data[3] < 0x80 ? data[3] % longest : cap;
    size_t len = size - HEADER;
    size_t cuts[CUTS];
    for (int k = 0; k < CUTS; k++) {
        size_t at = fuzz_length(data[4 + k]);
        cuts[k] = at < len ? at : len;
    }
    for (int k = 1; k < CUTS; k++) /* sorted (three: insertion) */
        for (int j = k; j > 0 && cuts[j - 1] > cuts[j]; j--) {
            size_t kept = cuts[j];
            cuts[j] = cuts[j - 1];
            cuts[j - 1] = kept;
        }
    uint8_t *src = fuzz_copy(data + HEADER, len);
    /* (mixed from header bytes, so that inputs reach every offset 0..63) */
    size_t dst_offset = (size_t)(data[2] + 3u * data[3] + 5u * data[4]) & 63;
    const char *kernels[FUZZ_MAX_KERNELS];
    size_t kernel_count = fuzz_kernels(kernels);
    fuzz_use_kernel("scalar");
    one_shot reference = convert_whole(src, len, from, to);
    for (size_t k = 0; k < kernel_count; k++) {
        fuzz_use_kernel(kernels[k]);
        if (k != 0) {
            check_at_offset(src, len, from, to, dst_offset, &reference);
            one_shot o = convert_whole(src, len, from, to);
            for (int mode = 0; mode < MODES; mode++) {
                utfkit_result a = o.result[mode], b = reference.result[mode];
                FUZZ_REQUIRE(fuzz_same_result(a, b), "transcode %d->%d mode %d differs", from, to,
                             mode);
                if (a.status == UTFKIT_OK)
                    FUZZ_REQUIRE(memcmp(o.output[mode], reference.output[mode], a.written) == 0,
                                 "transcode %d->%d mode %d output differs", from, to, mode);
                free(o.output[mode]);
            }
        }
        for (int mode = 0; mode < MODES; mode++)
            check_mode(src, len, from, to, mode, cuts, cap, first_cap, reference.result[mode],
                       reference.output[mode], reference.output[UTFKIT_REPLACE],
                       reference.replace_length);
    }
    for (int mode = 0; mode < MODES; mode++)
        free(reference.output[mode]);
    free(src);
    return 0;
}
