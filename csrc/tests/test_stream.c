/*
 * test_stream.c -- streams (utfkit_stream_init/_feed/_finish) against the
 * one-shot utfkit_check, on every short input over bytes that Table 3-7,
 * D91 and D90 tell apart, cut at every set of chunk boundaries, in every
 * encoding form:
 *   - the error a stream reports (status, position, subpart length) is
 *     utfkit_check's on the whole input, or none when that is OK;
 *   - fail-fast: the feed that reports it is the one whose chunk holds the
 *     deciding byte -- the last byte of the shortest prefix on which
 *     utfkit_check reports something other than END_OF_DATA -- and an
 *     END_OF_DATA error is reported by finish, after every feed succeeded;
 *   - utfkit_incomplete_suffix_length: where the input has no error
 *     before the held-back bytes, checking the prefix before them never
 *     meets END_OF_DATA, and at most 7 bytes are held.
 * Then longer random texts in random chunks, under every kernel; and
 * utfkit_stream_transcode in random chunks against one-shot
 * utfkit_transcode, on texts of surrogates and ill-formed bytes.
 *
 * A standalone C program (make ctest, make ctest-asan, tests/test_c_core.py).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utfkit.h"

/* Bytes that fall in different classes for UTF-8 (Table 3-7) and, as high
 * or low bytes of code units, for UTF-16 and UTF-32. */
static const uint8_t alphabet[] = {0x00, 0x41, 0x80, 0x8F, 0x90, 0xA0, 0xB0, 0xBF, 0xC0,
                                   0xC2, 0xE0, 0xED, 0xF0, 0xF4, 0xD8, 0xDC, 0x10, 0x11, 0xFF};
#define ALPHABET_SIZE (sizeof alphabet)
/* UTF-8, UTF-16LE/BE, UTF-32LE/BE, WTF-8, CESU-8, MUTF-8 */
#define FORMS 8
/* The most a stream holds back (csrc/stream.c). */
#define MOST_HELD 7
#define MAX_SHORT 4

static unsigned long long checked, failures;

static void fail(const char *what, int form, const uint8_t *src, size_t len, uint64_t cuts)
{
    if (failures++ < 20) {
        fprintf(stderr, "FAIL %s: form %d cuts %#llx input", what, form, (unsigned long long)cuts);
        for (size_t i = 0; i < len; i++)
            fprintf(stderr, " %02X", src[i]);
        fprintf(stderr, "\n");
    }
}

static size_t deciding_length(const uint8_t *src, size_t len, int form)
{
    for (size_t p = 1; p <= len; p++) {
        utfkit_result r = utfkit_check(src, p, form);
        if (r.status != UTFKIT_OK && r.status != UTFKIT_END_OF_DATA)
            return p;
    }
    return 0;
}

/* Feeds src cut after every byte i with bit i of `cuts` set. */
static void check_stream(const uint8_t *src, size_t len, int form, uint64_t cuts)
{
    checked++;
    utfkit_result whole = utfkit_check(src, len, form);
    size_t decided = deciding_length(src, len, form);
    utfkit_stream stream;
    if (utfkit_stream_init(&stream, form) != 0) {
        fail("init", form, src, len, cuts);
        return;
    }
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i != len && !(cuts >> i & 1u))
            continue;
        uint8_t *chunk = malloc(i - start + 1); /* an exact block for ASan (+1: malloc(0)) */
        memcpy(chunk, src + start, i - start);
        utfkit_result r = utfkit_stream_feed(&stream, chunk, i - start);
        free(chunk);
        if (r.status != UTFKIT_OK) {
            if (r.status != whole.status || r.position != whole.position ||
                r.subpart_length != whole.subpart_length)
                fail("feed error differs from utfkit_check", form, src, len, cuts);
            if (!(decided > start && decided <= i))
                fail("feed failed in the wrong chunk", form, src, len, cuts);
            if (stream.offset != start)
                fail("offset moved on a failing feed", form, src, len, cuts);
            return;
        }
        if (stream.offset != i || stream.pending_length > MOST_HELD)
            fail("offset or pending", form, src, len, cuts);
        start = i;
    }
    if (decided != 0)
        fail("no feed failed", form, src, len, cuts);
    utfkit_result end = utfkit_stream_finish(&stream);
    if (end.status != whole.status ||
        (end.status != UTFKIT_OK && (end.position != whole.position ||
                                     end.subpart_length != whole.subpart_length)))
        fail("finish differs from utfkit_check", form, src, len, cuts);
    size_t suffix = utfkit_incomplete_suffix_length(src, len, form);
    int undecided = whole.status == UTFKIT_OK || whole.status == UTFKIT_END_OF_DATA;
    if (suffix > MOST_HELD || suffix > len ||
        (undecided && utfkit_check(src, len - suffix, form).status != UTFKIT_OK))
        fail("incomplete suffix", form, src, len, cuts);
}

static uint64_t random_state = 0x9E3779B97F4A7C15ull;
static uint32_t random_next(void)
{
    random_state ^= random_state << 13;
    random_state ^= random_state >> 7;
    random_state ^= random_state << 17;
    return (uint32_t)random_state;
}

/* Tokens of the UTF-8 relatives (and their UTF-16 units) around which a
 * stream decides whether a lead and a trail surrogate join: surrogate byte
 * sequences (WTF-8 section 3.3), bytes ill-formed in every form (dropped by
 * IGNORE), ASCII, C0 80 (MUTF-8's U+0000), a 4-byte sequence, and the
 * little-endian code units D800, DC00, 0041. */
static const struct token {
    uint8_t length, bytes[4];
} tokens[] = {
    {3, {0xED, 0xA0, 0x80}}, {3, {0xED, 0xAF, 0xBF}}, {3, {0xED, 0xB0, 0x80}}, {3, {0xED, 0xBF, 0xBF}},
    {1, {0xFF}},             {1, {0x80}},             {1, {0xED}},             {2, {0xED, 0xB0}},
    {1, {0x41}},             {2, {0xC0, 0x80}},       {4, {0xF0, 0x90, 0x80, 0x80}},
    {2, {0x00, 0xD8}},       {2, {0x00, 0xDC}},       {2, {0x41, 0x00}},
};
#define TOKEN_COUNT (sizeof tokens / sizeof tokens[0])
/* a destination's output per input byte, at most (UTF-32 from one byte) */
#define MOST_OUTPUT_PER_BYTE 4

/* utfkit_stream_transcode of src cut after every byte i with bit i of
 * `cuts` set, against one-shot utfkit_transcode: the same output, or (with
 * STRICT) the same error.  Every call's output buffer is an exact heap
 * block of the documented size (pending_length + chunk bytes' conversion,
 * and 3 for a held lead surrogate). */
static void check_stream_transcode(const uint8_t *src, size_t len, int from, int to, int errors,
                                   uint64_t cuts)
{
    checked++;
    uint8_t expected[64 * MOST_OUTPUT_PER_BYTE], streamed[64 * MOST_OUTPUT_PER_BYTE + 3];
    utfkit_result whole = utfkit_transcode(src, len, from, to, errors, expected, sizeof expected);
    utfkit_stream stream;
    utfkit_stream_init(&stream, from);
    size_t start = 0, out = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i != len && !(cuts >> i & 1u))
            continue;
        size_t room = MOST_OUTPUT_PER_BYTE * (stream.pending_length + i - start) + 3;
        uint8_t *chunk = malloc(i - start + 1), *dst = malloc(room);
        memcpy(chunk, src + start, i - start);
        utfkit_result r = utfkit_stream_transcode(&stream, chunk, i - start, i == len, to, errors, dst, room);
        free(chunk);
        if (r.status == UTFKIT_OK && out + r.written <= sizeof streamed) {
            memcpy(streamed + out, dst, r.written);
            out += r.written;
        }
        free(dst);
        if (r.status != UTFKIT_OK) {
            if (r.status != whole.status || r.position != whole.position ||
                r.subpart_length != whole.subpart_length)
                fail("stream transcode error differs from utfkit_transcode", from, src, len, cuts);
            return;
        }
        start = i;
    }
    if (whole.status != UTFKIT_OK || out != whole.written || memcmp(streamed, expected, out) != 0)
        fail("stream transcode output differs from utfkit_transcode", from, src, len, cuts);
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    uint8_t src[64];
    printf("1. every input of 0..%d bytes over %zu byte values, every set of cuts, every form\n",
           MAX_SHORT, ALPHABET_SIZE);
    for (size_t len = 0; len <= MAX_SHORT; len++) {
        size_t total = 1;
        for (size_t i = 0; i < len; i++)
            total *= ALPHABET_SIZE;
        for (size_t n = 0; n < total; n++) {
            size_t digits = n;
            for (size_t i = 0; i < len; i++) {
                src[i] = alphabet[digits % ALPHABET_SIZE];
                digits /= ALPHABET_SIZE;
            }
            for (int form = 0; form < FORMS; form++)
                for (uint64_t cuts = 0; cuts < (1ull << len); cuts += quick && len == MAX_SHORT ? 3 : 1)
                    check_stream(src, len, form, cuts);
        }
    }
    printf("2. random texts of up to 64 bytes in random chunks, under every kernel\n");
    for (size_t k = 0;; k++) {
        const char *name = utfkit_backend_name(k);
        if (name == NULL)
            break;
        if (!utfkit_backend_available(name) || utfkit_set_backend(name) != 0)
            continue;
        for (int round = 0; round < (quick ? 20000 : 200000); round++) {
            size_t len = random_next() % 33 + (random_next() % 2 ? 31 : 0);
            for (size_t i = 0; i < len; i++)
                src[i] = random_next() % 4 ? alphabet[random_next() % ALPHABET_SIZE] : (uint8_t)random_next();
            uint64_t cuts = ((uint64_t)random_next() << 32 | random_next()) & ((uint64_t)random_next() | random_next());
            check_stream(src, len, (int)(random_next() % FORMS), cuts);
        }
    }
    printf("3. utfkit_stream_transcode of surrogates, dropped bytes and pairs in random chunks, every "
           "destination and errors mode, under every kernel\n");
    for (size_t k = 0;; k++) {
        const char *name = utfkit_backend_name(k);
        if (name == NULL)
            break;
        if (!utfkit_backend_available(name) || utfkit_set_backend(name) != 0)
            continue;
        for (int round = 0; round < (quick ? 3000 : 30000); round++) {
            size_t len = 0, count = random_next() % 12;
            for (size_t t = 0; t < count; t++) {
                const struct token *token = &tokens[random_next() % TOKEN_COUNT];
                if (len + token->length > sizeof src)
                    break;
                memcpy(src + len, token->bytes, token->length);
                len += token->length;
            }
            uint64_t cuts = (uint64_t)random_next() << 32 | random_next();
            int from = (int)(random_next() % FORMS), to = (int)(random_next() % FORMS);
            check_stream_transcode(src, len, from, to, (int)(random_next() % 3), cuts & random_next());
        }
    }
    utfkit_set_backend(NULL);
    printf("%llu streams checked, %llu failures\n", checked, failures);
    if (failures)
        return 1;
    printf("all passed\n");
    return 0;
}
