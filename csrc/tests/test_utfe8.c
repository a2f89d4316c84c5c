/*
 * test_utfe8.c -- UTF-E-8 (seed 002) and the original ISO 10646 / RFC 2279
 * UTF-8 (seed 004) in the C core: utfkit_utfe8_encode / _decode with their
 * limit, and the forms UTFKIT_UTFE8 and UTFKIT_UTF8_RFC2279 in the
 * form-generic calls (utfkit_check, _validate, _count, _transcode,
 * _transcoded_length) and in streams.
 *
 * A standalone C program: no Python.  Built and run by `make ctest`,
 * `make ctest-asan` and tests/test_c_core.py.
 *
 *   1. the seed's examples (seed 002 section 4), both ways, in both forms;
 *   2. a table of ill-formed inputs with the cut each form reports: Kuhn's
 *      overlong forms of U+000A (seed 004), the FF form's limits and its
 *      overlong range, input cut short, FE and FF in RFC 2279;
 *   3. conversion out of UTF-E-8: a surrogate or a code point above 10FFFF
 *      is an ill-formed subsequence of its whole sequence (issue 15);
 *   4. under every kernel this CPU runs, random text mixing UTF-8 with the
 *      longer forms and damaged bytes: every cap from 0 to the exact length
 *      (guard bytes after cap, exact heap blocks for AddressSanitizer), the
 *      same results as the scalar kernel, and streams fed at every single
 *      cut and byte by byte giving utfkit_check's error, fail-fast.
 * --quick runs 40 random texts instead of 600.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utfkit.h"

#define UTFE8_MAX 0x7FFFFFFFFFFFFFFFull
#define RFC2279_MAX 0x7FFFFFFFull
#define GUARD 0xA5

static unsigned long long checked, failures;

static void fail(const char *what, const uint8_t *src, size_t len)
{
    if (failures++ < 30) {
        fprintf(stderr, "FAIL %s: input", what);
        for (size_t i = 0; i < len; i++)
            fprintf(stderr, " %02X", src[i]);
        fprintf(stderr, "\n");
    }
}

static void expect(int condition, const char *what, const uint8_t *src, size_t len)
{
    checked++;
    if (!condition)
        fail(what, src, len);
}

static size_t from_hex(const char *hex, uint8_t *out)
{
    size_t n = 0;
    unsigned byte;
    int used;
    while (sscanf(hex, " %2x%n", &byte, &used) == 1) {
        out[n++] = (uint8_t)byte;
        hex += used;
    }
    return n;
}

/* ---- 1. seed 002 section 4 ---- */

static const struct {
    uint64_t code_point;
    const char *hex;
} seed_examples[] = {
    {0x41, "41"},
    {0x10FFFF, "F4 8F BF BF"},
    {0x110000, "F4 90 80 80"},
    {0x7FFFFFFF, "FD BF BF BF BF BF"},
    {0x80000000, "FE 82 80 80 80 80 80"},
    {0xFFFFFFFFF, "FE BF BF BF BF BF BF"},
    {0x1000000000, "FF 80 80 80 80 80 81 80 80 80 80 80 80"},
    {0x7FFFFFFFFFFFFFFF, "FF 80 87 BF BF BF BF BF BF BF BF BF BF"},
};

static void test_seed_examples(void)
{
    for (size_t k = 0; k < sizeof seed_examples / sizeof *seed_examples; k++) {
        uint8_t bytes[16], written[16];
        size_t n = from_hex(seed_examples[k].hex, bytes);
        uint64_t code_point = seed_examples[k].code_point, decoded = 0;
        utfkit_result r = utfkit_utfe8_encode(&code_point, 1, UTFE8_MAX, written, sizeof written);
        expect(r.status == UTFKIT_OK && r.written == n && memcmp(written, bytes, n) == 0,
               "seed example encodes", bytes, n);
        r = utfkit_utfe8_decode(bytes, n, UTFKIT_STRICT, UTFE8_MAX, &decoded, 1);
        expect(r.status == UTFKIT_OK && r.written == 1 && decoded == code_point,
               "seed example decodes", bytes, n);
        expect(utfkit_validate(bytes, n, UTFKIT_UTFE8) == 1, "seed example is UTF-E-8", bytes, n);
        expect(utfkit_count(bytes, n, UTFKIT_UTFE8) == 1, "seed example counts 1", bytes, n);
        int within = code_point <= RFC2279_MAX;
        r = utfkit_check(bytes, n, UTFKIT_UTF8_RFC2279);
        expect(within ? r.status == UTFKIT_OK
                      : r.status == UTFKIT_TOO_LARGE && r.position == 0 && r.subpart_length == 1,
               "seed example in RFC 2279", bytes, n);
        r = utfkit_utfe8_encode(&code_point, 1, RFC2279_MAX, written, sizeof written);
        expect(within ? r.status == UTFKIT_OK
                      : r.status == UTFKIT_TOO_LARGE && r.position == 0 && r.subpart_length == 1,
               "encode limited to RFC 2279", bytes, n);
    }
}

/* ---- 2. ill-formed inputs ---- */

static const struct {
    const char *hex;
    int form;
    int status;
    size_t position, subpart_length;
} error_table[] = {
    /* seed 004: the five overlong forms of U+000A */
    {"C0 8A", UTFKIT_UTFE8, UTFKIT_INVALID_START, 0, 1},
    {"E0 80 8A", UTFKIT_UTFE8, UTFKIT_INVALID_CONTINUATION, 0, 1},
    {"F0 80 80 8A", UTFKIT_UTFE8, UTFKIT_INVALID_CONTINUATION, 0, 1},
    {"F8 80 80 80 8A", UTFKIT_UTFE8, UTFKIT_INVALID_CONTINUATION, 0, 1},
    {"FC 80 80 80 80 8A", UTFKIT_UTFE8, UTFKIT_INVALID_CONTINUATION, 0, 1},
    {"FC 80 80 80 80 8A", UTFKIT_UTF8_RFC2279, UTFKIT_INVALID_CONTINUATION, 0, 1},
    /* seed 002 sections 3.3, 3.4: FE below 2^31, FF below 2^36 or above 2^63 - 1 */
    {"FE 81 BF BF BF BF BF", UTFKIT_UTFE8, UTFKIT_INVALID_CONTINUATION, 0, 1},
    {"FF 80 80 80 80 80 80 BF BF BF BF BF BF", UTFKIT_UTFE8, UTFKIT_INVALID_CONTINUATION, 0, 6},
    {"FF 81", UTFKIT_UTFE8, UTFKIT_TOO_LARGE, 0, 1},
    {"FF 80 88", UTFKIT_UTFE8, UTFKIT_TOO_LARGE, 0, 2},
    {"41 FE 82 80 80", UTFKIT_UTFE8, UTFKIT_END_OF_DATA, 1, 4},
    {"FD BF BF 41", UTFKIT_UTFE8, UTFKIT_INVALID_CONTINUATION, 0, 3},
    {"80", UTFKIT_UTFE8, UTFKIT_INVALID_START, 0, 1},
    /* seed 004: "The bytes 0xFE and 0xFF are never used" -- above U+7FFFFFFF */
    {"41 FE 82 80 80 80 80 80", UTFKIT_UTF8_RFC2279, UTFKIT_TOO_LARGE, 1, 1},
    {"FF", UTFKIT_UTF8_RFC2279, UTFKIT_TOO_LARGE, 0, 1},
    {"FD BF BF BF BF", UTFKIT_UTF8_RFC2279, UTFKIT_END_OF_DATA, 0, 5},
    /* surrogates and values above 10FFFF are code points here */
    {"ED A0 80 F4 90 80 80 F7 BF BF BF C0", UTFKIT_UTF8_RFC2279, UTFKIT_INVALID_START, 11, 1},
};

static void test_error_table(void)
{
    for (size_t k = 0; k < sizeof error_table / sizeof *error_table; k++) {
        uint8_t bytes[16];
        size_t n = from_hex(error_table[k].hex, bytes);
        utfkit_result r = utfkit_check(bytes, n, error_table[k].form);
        expect(r.status == error_table[k].status && r.position == error_table[k].position &&
                   r.subpart_length == error_table[k].subpart_length,
               "utfkit_check cut", bytes, n);
        uint64_t limit = error_table[k].form == UTFKIT_UTFE8 ? UTFE8_MAX : RFC2279_MAX;
        utfkit_result decoded = utfkit_utfe8_decode(bytes, n, UTFKIT_STRICT, limit, NULL, 0);
        expect(decoded.status == r.status && decoded.position == r.position &&
                   decoded.subpart_length == r.subpart_length,
               "utfkit_utfe8_decode cuts as utfkit_check", bytes, n);
        expect(utfkit_validate(bytes, n, error_table[k].form) == 0, "validate", bytes, n);
    }
}

/* ---- 3. out of UTF-E-8 ---- */

static void test_conversion_out(void)
{
    uint8_t bytes[32], out[64];
    size_t n = from_hex("41 ED A0 80 42 F4 90 80 80 43 FE 82 80 80 80 80 80", bytes);
    utfkit_result r = utfkit_transcode(bytes, n, UTFKIT_UTFE8, UTFKIT_UTF32LE, UTFKIT_STRICT, out,
                                       sizeof out);
    expect(r.status == UTFKIT_SURROGATE && r.position == 1 && r.subpart_length == 3 && r.written == 4,
           "a surrogate is ill-formed in UTF-32", bytes, n);
    r = utfkit_transcode(bytes + 4, n - 4, UTFKIT_UTFE8, UTFKIT_UTF16LE, UTFKIT_STRICT, out, sizeof out);
    expect(r.status == UTFKIT_TOO_LARGE && r.position == 1 && r.subpart_length == 4 && r.written == 2,
           "a code point above 10FFFF is ill-formed in UTF-16", bytes + 4, n - 4);
    r = utfkit_transcode(bytes, n, UTFKIT_UTFE8, UTFKIT_UTF8, UTFKIT_REPLACE, out, sizeof out);
    expect(r.status == UTFKIT_OK && r.written == 12 &&
               memcmp(out, "A\xEF\xBF\xBD" "B\xEF\xBF\xBD" "C\xEF\xBF\xBD", 12) == 0,
           "replace writes U+FFFD for each whole sequence", bytes, n);
    r = utfkit_transcode(bytes, n, UTFKIT_UTFE8, UTFKIT_UTF8_RFC2279, UTFKIT_IGNORE, out, sizeof out);
    expect(r.status == UTFKIT_OK && r.written == 10 && memcmp(out, bytes, 10) == 0,
           "RFC 2279 keeps what it holds and drops FE", bytes, n);
    /* into UTF-E-8, a Unicode form is written as UTF-8 */
    const uint8_t utf16[] = {0x3D, 0xD8, 0x00, 0xDE, 0xE9, 0x00};
    r = utfkit_transcode(utf16, sizeof utf16, UTFKIT_UTF16LE, UTFKIT_UTFE8, UTFKIT_STRICT, out,
                         sizeof out);
    expect(r.status == UTFKIT_OK && r.written == 6 && memcmp(out, "\xF0\x9F\x98\x80\xC3\xA9", 6) == 0,
           "UTF-16 into UTF-E-8", utf16, sizeof utf16);
}

/* ---- 4. random text, every kernel, every cap, streams ---- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t next_random(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Text of UTF-8 runs (long enough for the SIMD blocks), longer forms at
 * every length boundary and random values, and damage. */
static size_t random_text(uint8_t *text, size_t room)
{
    static const uint64_t boundaries[] = {0x7F, 0x80, 0x7FF, 0x800, 0xFFFF, 0x10000, 0x10FFFF,
                                          0x110000, 0x1FFFFF, 0x200000, 0x3FFFFFF, 0x4000000,
                                          0x7FFFFFFF, 0x80000000, 0xFFFFFFFFF, 0x1000000000,
                                          UTFE8_MAX, 0xD800, 0xDFFF};
    size_t n = 0;
    while (n + 80 < room) {
        uint64_t pick = next_random() % 8;
        if (pick < 3) {
            size_t run = next_random() % 70;
            for (size_t k = 0; k < run; k++)
                text[n++] = k % 7 == 3 ? 0xD0 : (uint8_t)('a' + k % 26); /* D0 xx: Cyrillic */
            if (text[n - 1] == 0xD0)
                text[n++] = 0xB0;
        } else if (pick < 7) {
            uint64_t value = pick == 3 ? boundaries[next_random() % (sizeof boundaries / 8)]
                                       : next_random() >> (next_random() % 64);
            if (value > UTFE8_MAX)
                value >>= 1;
            utfkit_result r = utfkit_utfe8_encode(&value, 1, UTFE8_MAX, text + n, room - n);
            n += r.written;
        } else {
            text[n++] = (uint8_t)next_random();
        }
    }
    if (next_random() % 3 == 0 && n > 0)
        n -= 1 + next_random() % (n < 12 ? n : 12); /* cut a sequence short */
    return n;
}

static uint8_t *exact_copy(const uint8_t *src, size_t len)
{
    uint8_t *copy = malloc(len ? len : 1);
    if (copy == NULL)
        abort();
    memcpy(copy, src, len);
    return copy;
}

static const int destinations[] = {UTFKIT_UTF8, UTFKIT_UTF16LE, UTFKIT_UTF32BE, UTFKIT_WTF8,
                                   UTFKIT_CESU8, UTFKIT_UTFE8, UTFKIT_UTF8_RFC2279};
#define DESTINATIONS (sizeof destinations / sizeof *destinations)

typedef struct outcome {
    utfkit_result check[2], result[2][DESTINATIONS][3];
    size_t count[2];
} outcome;

static int same(utfkit_result a, utfkit_result b)
{
    return a.status == b.status && a.position == b.position && a.subpart_length == b.subpart_length &&
           a.written == b.written;
}

static void check_caps(const uint8_t *src, size_t len, int from, int to, int errors,
                       utfkit_result *recorded)
{
    utfkit_result measured = utfkit_transcoded_length(src, len, from, to, errors);
    size_t need = measured.written;
    uint8_t *whole = malloc(need + 16);
    utfkit_result full = utfkit_transcode(src, len, from, to, errors, whole, need + 16);
    expect(same(full, measured) || (measured.status == UTFKIT_OK && full.status == UTFKIT_OK &&
                                    full.written == need),
           "transcode and transcoded_length agree", src, len);
    *recorded = full;
    size_t step = need > 200 ? need / 97 + 1 : 1;
    for (size_t cap = 0; cap < need && measured.status == UTFKIT_OK; cap += step) {
        uint8_t *dst = malloc(cap + 8);
        memset(dst, GUARD, cap + 8);
        utfkit_result r = utfkit_transcode(src, len, from, to, errors, dst, cap);
        expect(r.status == UTFKIT_OUTPUT_TOO_SMALL && r.written == need, "small cap reports need",
               src, len);
        size_t k = 0;
        while (k < cap && dst[k] == whole[k])
            k++;
        int prefix = 1;
        for (size_t j = k; j < cap + 8; j++)
            prefix &= dst[j] == GUARD;
        expect(prefix, "small cap writes a prefix of the output, nothing after it", src, len);
        free(dst);
    }
    free(whole);
}

static size_t deciding_length(const uint8_t *src, size_t len, int form)
{
    for (size_t p = 1; p <= len; p++) {
        utfkit_result r = utfkit_check(src, p, form);
        if (r.status != UTFKIT_OK && !(r.status == UTFKIT_END_OF_DATA && r.position + r.subpart_length == p))
            return p;
    }
    return len + 1;
}

/* Feeds src in chunks ending at the set bits of cut_after (bit i: after
 * byte i), or byte by byte when one_by_one. */
static void check_stream(const uint8_t *src, size_t len, int form, size_t cut, int one_by_one)
{
    utfkit_result whole = utfkit_check(src, len, form);
    size_t decided = deciding_length(src, len, form);
    utfkit_stream stream;
    expect(utfkit_stream_init(&stream, form) == 0, "stream_init", src, len);
    size_t start = 0;
    for (size_t end = 1; end <= len; end++) {
        if (!(one_by_one || end == cut || end == len))
            continue;
        uint8_t *chunk = exact_copy(src + start, end - start);
        utfkit_result r = utfkit_stream_feed(&stream, chunk, end - start);
        free(chunk);
        if (r.status != UTFKIT_OK) {
            expect(r.status == whole.status && r.position == whole.position &&
                       r.subpart_length == whole.subpart_length,
                   "stream error equals utfkit_check", src, len);
            expect(decided > start && decided <= end, "stream fails fast", src, len);
            return;
        }
        start = end;
    }
    utfkit_result r = utfkit_stream_finish(&stream);
    expect(whole.status == UTFKIT_OK ? r.status == UTFKIT_OK
                                     : r.status == whole.status && r.position == whole.position &&
                                           r.subpart_length == whole.subpart_length,
           "stream finish equals utfkit_check", src, len);
}

static void run_text(const uint8_t *text, size_t len, outcome *o)
{
    static const int forms[2] = {UTFKIT_UTFE8, UTFKIT_UTF8_RFC2279};
    uint8_t *src = exact_copy(text, len);
    for (int f = 0; f < 2; f++) {
        o->check[f] = utfkit_check(src, len, forms[f]);
        o->count[f] = utfkit_count(src, len, forms[f]);
        expect(utfkit_validate(src, len, forms[f]) == (o->check[f].status == UTFKIT_OK),
               "validate agrees with check", src, len);
        for (size_t t = 0; t < DESTINATIONS; t++)
            for (int errors = 0; errors < 3; errors++)
                check_caps(src, len, forms[f], destinations[t], errors, &o->result[f][t][errors]);
    }
    free(src);
}

static int same_outcome(const outcome *a, const outcome *b)
{
    int equal = 1;
    for (int f = 0; f < 2; f++) {
        equal &= same(a->check[f], b->check[f]) && a->count[f] == b->count[f];
        for (size_t t = 0; t < DESTINATIONS; t++)
            for (int errors = 0; errors < 3; errors++)
                equal &= same(a->result[f][t][errors], b->result[f][t][errors]);
    }
    return equal;
}

static void test_random_text(int quick)
{
    int texts = quick ? 40 : 600;
    uint8_t text[1200];
    outcome *by_kernel = malloc(sizeof *by_kernel), *scalar = malloc(sizeof *scalar);
    for (int round = 0; round < texts; round++) {
        size_t len = random_text(text, next_random() % 3 == 0 ? 100 : sizeof text);
        int first = 1;
        for (size_t k = 0; utfkit_backend_name(k) != NULL; k++) {
            const char *name = utfkit_backend_name(k);
            if (!utfkit_backend_available(name) || utfkit_set_backend(name) != 0)
                continue;
            outcome *o = first ? scalar : by_kernel;
            memset(o, 0, sizeof *o);
            run_text(text, len, o);
            if (!first)
                expect(same_outcome(o, scalar), "every kernel as the scalar one", text, len);
            first = 0;
        }
        for (int f = 0; f < 2; f++) {
            int form = f ? UTFKIT_UTF8_RFC2279 : UTFKIT_UTFE8;
            check_stream(text, len, form, len ? next_random() % len : 0, 0);
            if (round % 10 == 0)
                check_stream(text, len, form, 0, 1);
        }
    }
    utfkit_set_backend(NULL);
    free(by_kernel);
    free(scalar);
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    test_seed_examples();
    test_error_table();
    test_conversion_out();
    test_random_text(quick);
    if (failures == 0)
        printf("%llu checks: all passed\n", checked);
    else
        printf("%llu checks: %llu failed\n", checked, failures);
    return failures != 0;
}
