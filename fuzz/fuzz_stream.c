/*
 * fuzz_stream.c -- streams (utfkit_stream_init/_feed/_finish) and
 * utfkit_incomplete_suffix_length against one-shot processing, under every
 * kernel, in chunks of 0 to 4096 bytes (fuzz_length: on and around the
 * multiples of 16, 32 and 64 where the SIMD blocks end, so every kernel's
 * validators and transcoding blocks run inside the chunks):
 *   - a stream fed in chunks reports exactly utfkit_check's error for the
 *     whole text, in the feed that delivers the deciding byte (fail-fast:
 *     the shortest prefix whose utfkit_check gives an error other than
 *     END_OF_DATA ends inside that chunk), or at finish for END_OF_DATA;
 *   - cutting the text before each chunk's unfinished suffix and converting
 *     the pieces one by one (errors = replace and ignore) under each kernel
 *     gives the scalar kernel's one-shot conversion, for every destination
 *     form (but WTF-8 with ignore, where the stream joins a lead and a
 *     trail the pieces write apart) -- the property utfkit_stream_transcode
 *     relies on;
 *   - utfkit_stream_transcode in the chunks gives the one-shot conversion,
 *     or its strict error, for every destination form and errors mode;
 *   - every kernel reports the same.
 *
 * Input: byte 0 picks the form (mod 8: every form of utfkit.h, each of
 * which streams take); bytes 1..4 are chunk lengths (fuzz_length, repeated cyclically;
 * 0 = an empty chunk); the rest is the text.
 */
#include "fuzz_common.h"

#define FORMS 8         /* every utfkit_form: streams take them all */
#define MOST_HELD 7     /* the most a stream holds back (csrc/stream.c) */
#define MODES 3
#define CHUNK_LENGTHS 4

typedef struct stream_outcome {
    utfkit_result error;  /* the stream's, from a feed or finish */
    size_t failed_chunk_end; /* offset just past the chunk whose feed failed; 0 if none did */
} stream_outcome;

/* The length of the shortest prefix that utfkit_check finds ill-formed for
 * a reason other than running out of input (0 if none): the deciding byte
 * is its last.  Such errors, once there, stay (a longer prefix can only
 * settle an unfinished character), so a binary search finds it. */
static size_t deciding_length(const uint8_t *src, size_t len, int form)
{
    utfkit_result whole = utfkit_check(src, len, form);
    if (whole.status == UTFKIT_OK || whole.status == UTFKIT_END_OF_DATA)
        return 0;
    size_t low = 1, high = len; /* invariant: prefix of `high` is decided */
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        utfkit_result r = utfkit_check(src, middle, form);
        if (r.status != UTFKIT_OK && r.status != UTFKIT_END_OF_DATA)
            high = middle;
        else
            low = middle + 1;
    }
    return high;
}

static stream_outcome run_stream(const uint8_t *src, size_t len, int form, const uint8_t *lengths)
{
    stream_outcome o = {{UTFKIT_OK, 0, 0, 0}, 0};
    utfkit_stream stream;
    FUZZ_REQUIRE(utfkit_stream_init(&stream, form) == 0, "init form %d", form);
    size_t at = 0, empty_in_a_row = 0;
    for (size_t k = 0; at < len; k++) {
        size_t chunk = fuzz_length(lengths[k % CHUNK_LENGTHS]);
        /* Empty chunks are fed too, but never forever. */
        empty_in_a_row = chunk == 0 ? empty_in_a_row + 1 : 0;
        if (empty_in_a_row > CHUNK_LENGTHS)
            chunk = 1;
        if (chunk > len - at)
            chunk = len - at;
        uint8_t *piece = fuzz_copy(src + at, chunk);
        utfkit_result r = utfkit_stream_feed(&stream, piece, chunk);
        free(piece);
        if (r.status != UTFKIT_OK) {
            FUZZ_REQUIRE(stream.offset == at, "offset %llu after failing at %zu",
                         (unsigned long long)stream.offset, at);
            o.error = r;
            o.failed_chunk_end = at + chunk;
            /* An error is sticky. */
            utfkit_result again = utfkit_stream_feed(&stream, src, 0);
            FUZZ_REQUIRE(fuzz_same_result(again, r), "error not sticky");
            return o;
        }
        FUZZ_REQUIRE(stream.offset == at + chunk, "offset");
        FUZZ_REQUIRE(stream.pending_length <= MOST_HELD, "pending %u", stream.pending_length);
        at += chunk;
    }
    o.error = utfkit_stream_finish(&stream);
    return o;
}

/* The scalar kernel's one-shot conversions of src to every form with
 * replace and ignore: what the pieces must add up to under every kernel. */
typedef struct one_shot_outputs {
    uint8_t *output[FORMS][MODES];
    size_t length[FORMS][MODES];
} one_shot_outputs;

static one_shot_outputs convert_whole(const uint8_t *src, size_t len, int form)
{
    one_shot_outputs whole;
    fuzz_use_kernel("scalar");
    for (int mode = UTFKIT_REPLACE; mode <= UTFKIT_IGNORE; mode++) {
        for (int to = 0; to < FORMS; to++) {
            size_t need = utfkit_transcoded_length(src, len, form, to, mode).written;
            uint8_t *dst = malloc(need ? need : 1);
            utfkit_result done = utfkit_transcode(src, len, form, to, mode, dst, need);
            FUZZ_REQUIRE(done.status == UTFKIT_OK && done.written == need, "one-shot %d->%d", form, to);
            whole.output[to][mode] = dst;
            whole.length[to][mode] = need;
        }
    }
    return whole;
}

static void release_whole(one_shot_outputs *whole)
{
    for (int mode = UTFKIT_REPLACE; mode <= UTFKIT_IGNORE; mode++)
        for (int to = 0; to < FORMS; to++)
            free(whole->output[to][mode]);
}

/* Replace/ignore conversion of src in pieces cut before each chunk's
 * unfinished suffix, under the active kernel, equals the one-shot
 * conversion.  Each piece goes to utfkit_transcode in a heap block of its
 * own exact size, so AddressSanitizer sees a block reading past it. */
static void check_cut_conversion(const uint8_t *src, size_t len, int form, const uint8_t *lengths,
                                 const one_shot_outputs *whole)
{
    for (int mode = UTFKIT_REPLACE; mode <= UTFKIT_IGNORE; mode++) {
        for (int to = 0; to < FORMS; to++) {
            /* (into WTF-8 with IGNORE, pieces converted apart may write a lead
             * and a trail that the whole joins, WTF-8 section 6.1: the stream
             * joins them, checked by check_stream_transcode) */
            if (to == UTFKIT_WTF8 && mode == UTFKIT_IGNORE)
                continue;
            size_t need = whole->length[to][mode];
            uint8_t *pieces = malloc(need ? need : 1);
            size_t out = 0, piece_start = 0, at = 0;
            for (size_t k = 0; at < len; k++) {
                size_t chunk = fuzz_length(lengths[k % CHUNK_LENGTHS]);
                if (chunk == 0)
                    chunk = 1;
                at = chunk > len - at ? len : at + chunk;
                /* The stream so far is src[piece_start..at); cut before its unfinished end. */
                size_t carried = at == len ? 0
                               : utfkit_incomplete_suffix_length(src + piece_start, at - piece_start, form);
                size_t cut = at - carried;
                FUZZ_REQUIRE(carried <= MOST_HELD, "suffix %zu", carried);
                uint8_t *piece = fuzz_copy(src + piece_start, cut - piece_start);
                utfkit_result part = utfkit_transcode(piece, cut - piece_start, form, to, mode,
                                                      pieces + out, need - out);
                free(piece);
                FUZZ_REQUIRE(part.status == UTFKIT_OK, "piece %zu..%zu: status %d", piece_start, cut,
                             part.status);
                out += part.written;
                piece_start = cut;
            }
            FUZZ_REQUIRE(out == need && memcmp(pieces, whole->output[to][mode], need) == 0,
                         "form %d to %d mode %d: pieces differ from one shot", form, to, mode);
            free(pieces);
        }
    }
}

/* utfkit_stream_transcode fed the chunks (empty ones too), into every form
 * with every errors mode, under the active kernel, equals the scalar
 * kernel's one-shot utfkit_transcode: the output with REPLACE and IGNORE --
 * into WTF-8 too, where a lone lead surrogate that ends one call's output
 * is joined with a trail that begins the next (WTF-8 section 6.1) -- and
 * with STRICT the output, or the error (status, stream position, maximal
 * subpart).  Each call's output buffer is a heap block of the documented
 * size, so AddressSanitizer sees a write past it. */
static void check_stream_transcode(const uint8_t *src, size_t len, int form,
                                   const uint8_t *lengths, const one_shot_outputs *whole)
{
    for (int mode = UTFKIT_STRICT; mode <= UTFKIT_IGNORE; mode++) {
        for (int to = 0; to < FORMS; to++) {
            int replace_or_ignore = mode != UTFKIT_STRICT;
            utfkit_result expected = utfkit_transcoded_length(src, len, form, to, mode);
            const uint8_t *expected_output = whole->output[to][replace_or_ignore ? mode : UTFKIT_REPLACE];
            utfkit_stream stream;
            utfkit_stream_init(&stream, form);
            size_t need = whole->length[to][UTFKIT_REPLACE];
            uint8_t *output = malloc(need + 1);
            size_t out = 0, at = 0, empty_in_a_row = 0;
            utfkit_result failed = {UTFKIT_OK, 0, 0, 0};
            for (size_t k = 0; failed.status == UTFKIT_OK; k++) {
                size_t chunk = fuzz_length(lengths[k % CHUNK_LENGTHS]);
                empty_in_a_row = chunk == 0 ? empty_in_a_row + 1 : 0;
                if (empty_in_a_row > CHUNK_LENGTHS)
                    chunk = 1;
                if (chunk > len - at)
                    chunk = len - at;
                int final = at + chunk == len;
                /* the conversion of pending_length + chunk bytes: at most 4
                 * output bytes per input byte (UTF-32 from one byte), and 3
                 * for a held lead surrogate */
                size_t room = 4 * (stream.pending_length + chunk) + 3;
                uint8_t *piece = fuzz_copy(src + at, chunk);
                uint8_t *dst = malloc(room);
                utfkit_result r = utfkit_stream_transcode(&stream, piece, chunk, final, to, mode, dst, room);
                free(piece);
                if (r.status == UTFKIT_OK) {
                    FUZZ_REQUIRE(out + r.written <= need, "%d->%d mode %d: more output than one-shot's %zu",
                                 form, to, mode, need);
                    memcpy(output + out, dst, r.written);
                    out += r.written;
                } else {
                    failed = r;
                }
                free(dst);
                at += chunk;
                if (final && r.status == UTFKIT_OK)
                    break;
            }
            if (expected.status == UTFKIT_OK) {
                FUZZ_REQUIRE(failed.status == UTFKIT_OK, "%d->%d mode %d: stream failed with %d at %zu",
                             form, to, mode, failed.status, failed.position);
                FUZZ_REQUIRE(out == expected.written && memcmp(output, expected_output, out) == 0,
                             "%d->%d mode %d: stream wrote %zu bytes, one-shot %zu (or other bytes)", form,
                             to, mode, out, expected.written);
            } else {
                FUZZ_REQUIRE(failed.status == expected.status && failed.position == expected.position &&
                                 failed.subpart_length == expected.subpart_length,
                             "%d->%d strict: stream %d at %zu (+%zu), one-shot %d at %zu (+%zu)", form, to,
                             failed.status, failed.position, failed.subpart_length, expected.status,
                             expected.position, expected.subpart_length);
            }
            free(output);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 + CHUNK_LENGTHS)
        return 0;
    int form = data[0] % FORMS;
    utfkit_stream accepted;
    if (utfkit_stream_init(&accepted, form) != 0) {
        FUZZ_REQUIRE(0, "streams refuse form %d", form);
        return 0;
    }
    const uint8_t *lengths = data + 1;
    size_t len = size - 1 - CHUNK_LENGTHS;
    uint8_t *src = fuzz_copy(data + 1 + CHUNK_LENGTHS, len);
    /* The pieces property holds in every form (csrc/stream.c). */
    int cut_conversion = 1;
    one_shot_outputs whole;
    if (cut_conversion)
        whole = convert_whole(src, len, form);
    const char *kernels[FUZZ_MAX_KERNELS];
    size_t kernel_count = fuzz_kernels(kernels);
    stream_outcome reference = {{0, 0, 0, 0}, 0};
    for (size_t k = 0; k < kernel_count; k++) {
        fuzz_use_kernel(kernels[k]);
        utfkit_result one_shot = utfkit_check(src, len, form);
        stream_outcome o = run_stream(src, len, form, lengths);
        FUZZ_REQUIRE(o.error.status == one_shot.status, "stream status %d, one-shot %d",
                     o.error.status, one_shot.status);
        if (one_shot.status != UTFKIT_OK)
            FUZZ_REQUIRE(o.error.position == one_shot.position &&
                             o.error.subpart_length == one_shot.subpart_length,
                         "stream error %zu+%zu, one-shot %zu+%zu", o.error.position,
                         o.error.subpart_length, one_shot.position, one_shot.subpart_length);
        size_t decided = deciding_length(src, len, form);
        if (decided == 0) {
            FUZZ_REQUIRE(o.failed_chunk_end == 0, "a feed failed with nothing decided");
        } else {
            /* The failing chunk delivered the deciding byte: it ends at or
             * after it and began before it. */
            FUZZ_REQUIRE(o.failed_chunk_end >= decided, "failed before the deciding byte");
            utfkit_stream probe;
            utfkit_stream_init(&probe, form);
            uint8_t *before = fuzz_copy(src, decided - 1);
            FUZZ_REQUIRE(utfkit_stream_feed(&probe, before, decided - 1).status == UTFKIT_OK,
                         "the stream failed before the deciding byte");
            free(before);
        }
        if (k == 0)
            reference = o;
        else
            FUZZ_REQUIRE(fuzz_same_result(o.error, reference.error) &&
                             o.failed_chunk_end == reference.failed_chunk_end,
                         "kernel %s differs from scalar", kernels[k]);
        if (cut_conversion) {
            check_cut_conversion(src, len, form, lengths, &whole);
            check_stream_transcode(src, len, form, lengths, &whole);
        }
    }
    if (cut_conversion)
        release_whole(&whole);
    free(src);
    return 0;
}
