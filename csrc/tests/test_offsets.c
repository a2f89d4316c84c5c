/*
 * test_offsets.c -- columns in Apache Arrow's layout (csrc/offsets.c):
 *   - offsets that are negative, decreasing, past the end of the data or of
 *     a width other than 4 and 8 are refused with the status and index
 *     that say which, before anything is read or written;
 *   - on random columns of random items (bytes Table 3-7, D91 and D90 tell
 *     apart), in every encoding form, with int32 and int64 offsets placed at
 *     unaligned addresses, first offsets other than 0 (a sliced array), and
 *     empty items: each item's validity and count are utfkit_validate's and
 *     utfkit_count's; the repaired column is each item's
 *     utfkit_transcode(form, form, REPLACE) end to end (UTF-8:
 *     utfkit_utf8_sanitize), and nothing is written when no item needs it;
 *     a transcoded column is each item's utfkit_transcode, and a strict
 *     conversion stops at the first ill-formed item;
 *   - an output buffer one byte too small is never written past (every
 *     buffer here is malloc'd to its exact size, for ASan), and the exact
 *     size needed is reported.
 *
 * A standalone C program (make ctest, make ctest-asan, tests/test_c_core.py).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utfkit.h"

static const uint8_t alphabet[] = {0x00, 0x41, 0x61, 0x80, 0x8F, 0x90, 0xA0, 0xBF, 0xC2, 0xC3,
                                   0xE0, 0xED, 0xF0, 0xF4, 0xD8, 0xDC, 0x10, 0xFF};
#define FORMS 8

static unsigned long long checked, failures;
static uint64_t rng_state = 0x9E3779B97F4A7C15u;

static uint64_t next_random(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void fail(const char *what, int form, size_t trial)
{
    if (failures++ < 20)
        fprintf(stderr, "FAIL %s: form %d trial %zu\n", what, form, trial);
}

static void put_offset(uint8_t *offsets, int width, size_t i, int64_t value)
{
    if (width == 4) {
        int32_t narrow = (int32_t)value;
        memcpy(offsets + i * 4, &narrow, 4);
    } else {
        memcpy(offsets + i * 8, &value, 8);
    }
}

static int64_t get_offset(const uint8_t *offsets, int width, size_t i)
{
    if (width == 4) {
        int32_t narrow;
        memcpy(&narrow, offsets + i * 4, 4);
        return narrow;
    }
    int64_t wide;
    memcpy(&wide, offsets + i * 8, 8);
    return wide;
}

/* Offsets read from offsets_block + 1: never aligned for their width. */
static uint8_t *unaligned_offsets(size_t entries, int width, uint8_t **block)
{
    *block = malloc(entries * (size_t)width + 1);
    return *block + 1;
}

static void test_bad_offsets(void)
{
    static const uint8_t data[4] = {'a', 'b', 'c', 'd'};
    struct {
        int64_t values[4];
        size_t entries;
        int status;
        size_t index;
    } cases[] = {
        {{0, 2, 4, 4}, 4, UTFKIT_OFFSETS_OK, 0},
        {{1, 1, 3, 3}, 4, UTFKIT_OFFSETS_OK, 0},
        {{0, -1, 2, 4}, 4, UTFKIT_OFFSETS_NEGATIVE, 1},
        {{-5, 0, 2, 4}, 4, UTFKIT_OFFSETS_NEGATIVE, 0},
        {{0, 3, 2, 4}, 4, UTFKIT_OFFSETS_DECREASING, 2},
        {{0, 2, 5, 5}, 4, UTFKIT_OFFSETS_PAST_END, 2},
        {{0, 2, 4, 5}, 4, UTFKIT_OFFSETS_PAST_END, 3},
        {{0x100000000LL, 0, 0, 0}, 1, UTFKIT_OFFSETS_PAST_END, 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        for (int width = 4; width <= 8; width += 4) {
            if (width == 4 && cases[c].values[0] > INT32_MAX)
                continue;
            uint8_t *block;
            uint8_t *offsets = unaligned_offsets(cases[c].entries, width, &block);
            for (size_t i = 0; i < cases[c].entries; i++)
                put_offset(offsets, width, i, cases[c].values[i]);
            uint8_t valid[3] = {7, 7, 7};
            int64_t counts[3] = {7, 7, 7};
            uint8_t dst[16], new_offsets[32];
            utfkit_offsets_result results[4] = {
                utfkit_offsets_validate(data, 4, offsets, cases[c].entries, width, UTFKIT_UTF8, valid),
                utfkit_offsets_count(data, 4, offsets, cases[c].entries, width, UTFKIT_UTF8, counts),
                utfkit_offsets_sanitize(data, 4, offsets, cases[c].entries, width, UTFKIT_UTF8, dst,
                                        sizeof dst, new_offsets, sizeof new_offsets),
                utfkit_offsets_transcode(data, 4, offsets, cases[c].entries, width, UTFKIT_UTF8,
                                         UTFKIT_UTF16LE, UTFKIT_STRICT, dst, sizeof dst, new_offsets,
                                         sizeof new_offsets),
            };
            for (int r = 0; r < 4; r++) {
                checked++;
                if (results[r].status != cases[c].status || results[r].index != cases[c].index)
                    fail("bad offsets: status or index", r, c);
            }
            if (cases[c].status != UTFKIT_OFFSETS_OK && (valid[0] != 7 || counts[0] != 7))
                fail("bad offsets: something was written", 0, c);
            free(block);
        }
    }
    static const uint8_t zeros[16] = {0};
    for (int width = 0; width <= 16; width++) {
        if (width == 4 || width == 8)
            continue;
        uint8_t valid[1];
        checked++;
        if (utfkit_offsets_validate(data, 4, zeros, 2, width, UTFKIT_UTF8, valid).status !=
            UTFKIT_OFFSETS_BAD_WIDTH)
            fail("width other than 4 and 8 accepted", width, 0);
    }
}

/* One item converted alone, as the column must convert it. */
static utfkit_result convert_item(const uint8_t *src, size_t n, int from, int to, int errors,
                                  uint8_t *dst, size_t cap)
{
    if (from == UTFKIT_UTF8 && to == UTFKIT_UTF8 && errors == UTFKIT_REPLACE)
        return utfkit_utf8_sanitize(src, n, dst, cap);
    return utfkit_transcode(src, n, from, to, errors, dst, cap);
}

/* The expected output of a column, item by item; returns its length, or
 * (size_t)-1 with *bad_item set when a strict conversion fails. */
static size_t expected_column(const uint8_t *src, const uint8_t *offsets, size_t entries, int width,
                              int from, int to, int errors, uint8_t *dst, size_t cap,
                              int64_t *ends, size_t *bad_item)
{
    size_t written = 0;
    for (size_t i = 0; i + 1 < entries; i++) {
        int64_t start = get_offset(offsets, width, i), end = get_offset(offsets, width, i + 1);
        utfkit_result r = convert_item(src + start, (size_t)(end - start), from, to, errors,
                                       dst + written, cap - written);
        if (r.status != UTFKIT_OK) {
            *bad_item = i;
            return (size_t)-1;
        }
        written += r.written;
        ends[i] = (int64_t)written;
    }
    return written;
}

static void test_random_column(int form, size_t trial)
{
    /* up to 3 groups of GROUP_ITEMS (offsets.c), mostly ASCII or mostly not */
    size_t items = next_random() % 50;
    int mostly_ascii = next_random() % 4 != 0;
    size_t entries = items + 1;
    int width = next_random() % 2 ? 4 : 8;
    size_t skip = next_random() % 3; /* bytes before the first item: a sliced array */
    size_t len = skip;
    size_t lengths[50];
    for (size_t i = 0; i < items; i++) {
        lengths[i] = next_random() % 4 == 0 ? 0 : next_random() % 9;
        if (next_random() % 64 == 0) /* a multi-byte character cut across two items */
            lengths[i] = 1;
        len += lengths[i];
    }
    size_t tail = next_random() % 3; /* bytes after the last item */
    len += tail;
    uint8_t *src = malloc(len + 1);
    /* well-formed UTF-8 cut anywhere: the whole is well-formed, items cut
     * inside a character are not */
    static const uint8_t text[] = "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80z";
    if (next_random() % 3 == 0) {
        size_t phase = next_random() % (sizeof text - 1);
        for (size_t i = 0; i < len; i++)
            src[i] = text[(phase + i) % (sizeof text - 1)];
        if (phase % 2 && len > 0) /* and now and then one byte that breaks it */
            src[next_random() % len] ^= 0x40;
    } else
    for (size_t i = 0; i < len; i++)
        src[i] = next_random() % (mostly_ascii ? 200 : 3) ? (uint8_t)('a' + next_random() % 26)
                                   : alphabet[next_random() % sizeof alphabet];
    uint8_t *block;
    uint8_t *offsets = unaligned_offsets(entries, width, &block);
    size_t at = skip;
    put_offset(offsets, width, 0, (int64_t)at);
    for (size_t i = 0; i < items; i++) {
        at += lengths[i];
        put_offset(offsets, width, i + 1, (int64_t)at);
    }

    /* validate and count, item by item */
    uint8_t *valid = malloc(items + 1);
    int64_t *counts = malloc((items + 1) * sizeof *counts);
    utfkit_offsets_result v = utfkit_offsets_validate(src, len, offsets, entries, width, form, valid);
    utfkit_offsets_result c = utfkit_offsets_count(src, len, offsets, entries, width, form, counts);
    size_t well_formed = 0;
    int all_valid = 1;
    for (size_t i = 0; i < items; i++) {
        int64_t start = get_offset(offsets, width, i), end = get_offset(offsets, width, i + 1);
        int expected = utfkit_validate(src + start, (size_t)(end - start), form);
        checked++;
        if (valid[i] != expected)
            fail("validate differs from utfkit_validate", form, trial);
        if ((size_t)counts[i] != utfkit_count(src + start, (size_t)(end - start), form))
            fail("count differs from utfkit_count", form, trial);
        well_formed += (size_t)expected;
        all_valid &= expected;
    }
    if (v.status != UTFKIT_OFFSETS_OK || v.value != well_formed || c.status != UTFKIT_OFFSETS_OK)
        fail("validate/count result", form, trial);

    /* sanitize and transcode (to UTF-8 and UTF-16LE, every error mode) */
    size_t cap_expected = 6 * len + 8;
    uint8_t *expected = malloc(cap_expected);
    int64_t *ends = malloc((items + 1) * sizeof *ends);
    for (int run = 0; run < 4; run++) {
        int to = run == 0 ? form : run == 1 ? UTFKIT_UTF8 : UTFKIT_UTF16LE;
        int errors = run == 0 ? UTFKIT_REPLACE : run == 3 ? UTFKIT_STRICT : (int)(next_random() % 3);
        size_t bad_item = 0;
        size_t need = expected_column(src, offsets, entries, width, form, to, errors, expected,
                                      cap_expected, ends, &bad_item);
        /* exact room, then one byte too little */
        for (size_t shortfall = 0; shortfall <= 1; shortfall++) {
            size_t cap = need == (size_t)-1 ? 6 * len + 8 : need - (need >= shortfall ? shortfall : need);
            uint8_t *dst = malloc(cap + 1);
            uint8_t *new_block;
            uint8_t *new_offsets = unaligned_offsets(entries, width, &new_block);
            utfkit_offsets_result r =
                run == 0 ? utfkit_offsets_sanitize(src, len, offsets, entries, width, form, dst, cap,
                                                   new_offsets, entries * (size_t)width)
                         : utfkit_offsets_transcode(src, len, offsets, entries, width, form, to, errors,
                                                    dst, cap, new_offsets, entries * (size_t)width);
            checked++;
            if (need == (size_t)-1) {
                if (r.status != UTFKIT_OFFSETS_ILL_FORMED || r.index != bad_item)
                    fail("strict column: not stopped at the first ill-formed item", form, trial);
            } else if (run == 0 && all_valid) {
                if (r.status != UTFKIT_OFFSETS_OK || r.repaired != 0)
                    fail("sanitize of a well-formed column wrote something", form, trial);
            } else if (cap < need) {
                if (r.status != UTFKIT_OFFSETS_OUTPUT_TOO_SMALL || r.value != need)
                    fail("too small: status or length needed", form, trial);
            } else {
                if (r.status != UTFKIT_OFFSETS_OK || r.value != need || memcmp(dst, expected, need) != 0)
                    fail("column output differs from item-by-item output", form, trial);
                if (run == 0 && r.repaired != items - well_formed)
                    fail("sanitize: repaired count", form, trial);
                if (items > 0 && get_offset(new_offsets, width, 0) != 0)
                    fail("new offsets do not start at 0", form, trial);
                for (size_t i = 0; i < items; i++)
                    if (get_offset(new_offsets, width, i + 1) != ends[i])
                        fail("new offsets differ", form, trial);
            }
            free(dst);
            free(new_block);
            if (need == (size_t)-1 || need == 0)
                break;
        }
    }
    free(expected);
    free(ends);
    free(valid);
    free(counts);
    free(block);
    free(src);
}

int main(int argc, char **argv)
{
    size_t trials = argc > 1 && strcmp(argv[1], "--quick") == 0 ? 300 : 3000;
    test_bad_offsets();
    for (size_t kernel = 0; utfkit_backend_name(kernel) != NULL; kernel++) {
        const char *name = utfkit_backend_name(kernel);
        if (utfkit_set_backend(name) != 0)
            continue;
        for (int form = 0; form < FORMS; form++)
            for (size_t trial = 0; trial < trials; trial++)
                test_random_column(form, trial);
    }
    utfkit_set_backend(NULL);
    if (failures == 0)
        printf("test_offsets: %llu checks, all passed\n", checked);
    else
        printf("test_offsets: %llu checks, %llu failures\n", checked, failures);
    return failures != 0;
}
