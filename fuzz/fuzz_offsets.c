/*
 * fuzz_offsets.c -- columns in Apache Arrow's layout (utfkit_offsets_*):
 * under every kernel, each item of a column gives what the one-shot entry
 * point gives for it alone --
 *
 *   - utfkit_offsets_validate: valid[i] = utfkit_validate(item i), value =
 *     the number of well-formed items;
 *   - utfkit_offsets_count: counts[i] = utfkit_count(item i);
 *   - utfkit_offsets_transcode with replace and ignore: the items'
 *     utfkit_transcode outputs end to end, new offsets their running sums
 *     from 0, into exact-size heap blocks (AddressSanitizer sees any write
 *     past them); with strict, the same when every item converts, else
 *     UTFKIT_OFFSETS_ILL_FORMED at the first item that does not, with that
 *     item's utfkit_transcode error;
 *   - utfkit_offsets_sanitize: a column whose items are all well-formed is
 *     its own repair (repaired 0, nothing written); otherwise the items'
 *     utfkit_transcode(form, form, replace) outputs end to end, repaired =
 *     the ill-formed items, and one byte less room is refused
 *     (UTFKIT_OFFSETS_OUTPUT_TOO_SMALL with the exact length needed);
 *   - offsets that decrease are refused (UTFKIT_OFFSETS_DECREASING at that
 *     offset) with nothing written.
 *
 * Input: byte 0 picks the form (mod 5), byte 1 the offset width (even: 4,
 * odd: 8), byte 2 the destination form of the conversion (mod 5); the rest
 * is the column's data, cut into up to 64 items whose lengths come from
 * the data's own bytes (fuzz_length: 0 to 4096, around the SIMD blocks'
 * ends).
 */
#include "fuzz_common.h"

#define FORMS 5
#define MAX_ITEMS 64

static void put_offset(uint8_t *offsets, size_t index, int width, size_t value)
{
    if (width == 4) {
        int32_t v = (int32_t)value;
        memcpy(offsets + 4 * index, &v, 4);
    } else {
        int64_t v = (int64_t)value;
        memcpy(offsets + 8 * index, &v, 8);
    }
}

static size_t get_offset(const uint8_t *offsets, size_t index, int width)
{
    if (width == 4) {
        int32_t v;
        memcpy(&v, offsets + 4 * index, 4);
        return (size_t)v;
    }
    int64_t v;
    memcpy(&v, offsets + 8 * index, 8);
    return (size_t)v;
}

/* utfkit_offsets_sanitize against the items' one-shot repairs. */
static void check_sanitize(const uint8_t *src, size_t len, const uint8_t *offsets, size_t entries,
                           int width, int form)
{
    size_t items = entries - 1, need = 0, ill_formed = 0;
    for (size_t i = 0; i < items; i++) {
        size_t start = get_offset(offsets, i, width), end = get_offset(offsets, i + 1, width);
        need += utfkit_transcoded_length(src + start, end - start, form, form, UTFKIT_REPLACE).written;
        ill_formed += !utfkit_validate(src + start, end - start, form);
    }
    size_t offsets_size = entries * (size_t)width;
    uint8_t *dst = malloc(need ? need : 1), *new_offsets = malloc(offsets_size);
    uint8_t *expected = malloc(need ? need : 1);
    if (dst == NULL || new_offsets == NULL || expected == NULL)
        abort();
    memset(dst, 0xAA, need ? need : 1);
    memset(new_offsets, 0xAA, offsets_size);
    utfkit_offsets_result repaired = utfkit_offsets_sanitize(src, len, offsets, entries, width, form,
                                                             dst, need, new_offsets, offsets_size);
    FUZZ_REQUIRE(repaired.status == UTFKIT_OFFSETS_OK && repaired.repaired == ill_formed,
                 "sanitize form %d: status %d, repaired %zu of %zu ill-formed items", form,
                 repaired.status, repaired.repaired, ill_formed);
    if (ill_formed == 0) {
        for (size_t k = 0; k < need; k++)
            FUZZ_REQUIRE(dst[k] == 0xAA, "sanitize wrote a well-formed column");
        for (size_t k = 0; k < offsets_size; k++)
            FUZZ_REQUIRE(new_offsets[k] == 0xAA, "sanitize wrote offsets for a well-formed column");
    } else {
        FUZZ_REQUIRE(repaired.value == need, "sanitize value %zu, need %zu", repaired.value, need);
        size_t out = 0;
        for (size_t i = 0; i < items; i++) {
            FUZZ_REQUIRE(get_offset(new_offsets, i, width) == out, "sanitize new offset %zu", i);
            size_t start = get_offset(offsets, i, width), end = get_offset(offsets, i + 1, width);
            out += utfkit_transcode(src + start, end - start, form, form, UTFKIT_REPLACE,
                                    expected + out, need - out).written;
        }
        FUZZ_REQUIRE(get_offset(new_offsets, items, width) == out && out == need,
                     "sanitize last new offset");
        FUZZ_REQUIRE(memcmp(dst, expected, need) == 0, "sanitize form %d: items differ", form);
        /* one byte too few */
        utfkit_offsets_result short_of_one = utfkit_offsets_sanitize(
            src, len, offsets, entries, width, form, need > 1 ? dst : NULL, need - 1, new_offsets,
            offsets_size);
        FUZZ_REQUIRE(short_of_one.status == UTFKIT_OFFSETS_OUTPUT_TOO_SMALL &&
                         short_of_one.value == need,
                     "sanitize with %zu bytes of room: status %d value %zu", need - 1,
                     short_of_one.status, short_of_one.value);
    }
    free(dst);
    free(new_offsets);
    free(expected);
}

static void check_column(const uint8_t *src, size_t len, const uint8_t *offsets, size_t entries,
                         int width, int form, int to)
{
    size_t items = entries - 1;
    uint8_t *valid = malloc(items ? items : 1);
    int64_t *counts = malloc(items ? items * sizeof *counts : 1);
    if (valid == NULL || counts == NULL)
        abort();
    utfkit_offsets_result validated = utfkit_offsets_validate(src, len, offsets, entries, width, form, valid);
    utfkit_offsets_result counted = utfkit_offsets_count(src, len, offsets, entries, width, form, counts);
    FUZZ_REQUIRE(validated.status == UTFKIT_OFFSETS_OK && counted.status == UTFKIT_OFFSETS_OK,
                 "validate %d, count %d", validated.status, counted.status);
    size_t well_formed = 0;
    for (size_t i = 0; i < items; i++) {
        size_t start = get_offset(offsets, i, width), end = get_offset(offsets, i + 1, width);
        int answer = utfkit_validate(src + start, end - start, form);
        FUZZ_REQUIRE(valid[i] == answer, "item %zu: valid %d, utfkit_validate %d", i, valid[i], answer);
        FUZZ_REQUIRE(counts[i] == (int64_t)utfkit_count(src + start, end - start, form),
                     "item %zu: count %lld", i, (long long)counts[i]);
        well_formed += (size_t)answer;
    }
    FUZZ_REQUIRE(validated.value == well_formed, "validate value %zu, items %zu", validated.value,
                 well_formed);
    check_sanitize(src, len, offsets, entries, width, form);
    for (int mode = UTFKIT_STRICT; mode <= UTFKIT_IGNORE; mode++) {
        size_t need = 0, first_bad = items;
        utfkit_result bad = {UTFKIT_OK, 0, 0, 0};
        for (size_t i = 0; i < items; i++) {
            size_t start = get_offset(offsets, i, width), end = get_offset(offsets, i + 1, width);
            utfkit_result length = utfkit_transcoded_length(src + start, end - start, form, to, mode);
            if (length.status != UTFKIT_OK && first_bad == items) {
                first_bad = i;
                bad = length;
            }
            if (first_bad == items)
                need += length.written;
        }
        if (first_bad != items) { /* strict, and item first_bad does not convert */
            uint8_t *dst = malloc(need ? need : 1), *new_offsets = malloc(entries * (size_t)width);
            if (dst == NULL || new_offsets == NULL)
                abort();
            utfkit_offsets_result refused = utfkit_offsets_transcode(
                src, len, offsets, entries, width, form, to, mode, dst, need, new_offsets,
                entries * (size_t)width);
            FUZZ_REQUIRE(refused.status == UTFKIT_OFFSETS_ILL_FORMED && refused.index == first_bad &&
                             refused.item.status == bad.status &&
                             refused.item.position == bad.position &&
                             refused.item.subpart_length == bad.subpart_length,
                         "%d->%d strict: status %d at item %zu (%d@%zu), expected item %zu (%d@%zu)",
                         form, to, refused.status, refused.index, refused.item.status,
                         refused.item.position, first_bad, bad.status, bad.position);
            free(dst);
            free(new_offsets);
            continue;
        }
        uint8_t *dst = malloc(need ? need : 1), *expected = malloc(need ? need : 1);
        uint8_t *new_offsets = malloc(entries * (size_t)width);
        if (dst == NULL || expected == NULL || new_offsets == NULL)
            abort();
        utfkit_offsets_result done = utfkit_offsets_transcode(src, len, offsets, entries, width, form,
                                                              to, mode, dst, need, new_offsets,
                                                              entries * (size_t)width);
        FUZZ_REQUIRE(done.status == UTFKIT_OFFSETS_OK && done.value == need,
                     "%d->%d mode %d: status %d value %zu, need %zu", form, to, mode, done.status,
                     done.value, need);
        size_t out = 0;
        for (size_t i = 0; i < items; i++) {
            FUZZ_REQUIRE(get_offset(new_offsets, i, width) == out, "new offset %zu", i);
            size_t start = get_offset(offsets, i, width), end = get_offset(offsets, i + 1, width);
            utfkit_result one = utfkit_transcode(src + start, end - start, form, to, mode,
                                                 expected + out, need - out);
            FUZZ_REQUIRE(one.status == UTFKIT_OK, "item %zu alone: status %d", i, one.status);
            out += one.written;
        }
        FUZZ_REQUIRE(get_offset(new_offsets, items, width) == out, "last new offset");
        FUZZ_REQUIRE(memcmp(dst, expected, need) == 0, "%d->%d mode %d: items differ", form, to, mode);
        free(dst);
        free(expected);
        free(new_offsets);
    }
    free(valid);
    free(counts);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    int form = data[0] % FORMS, width = data[1] % 2 ? 8 : 4, to = data[2] % FORMS;
    size_t len = size - 3;
    uint8_t *src = fuzz_copy(data + 3, len);
    /* The items' lengths from the data's own bytes, the last item taking the rest. */
    size_t lengths[MAX_ITEMS], items = 0, total = 0;
    while (items < MAX_ITEMS && total < len) {
        size_t piece = fuzz_length(src[total]);
        if (piece > len - total || items == MAX_ITEMS - 1)
            piece = len - total;
        lengths[items++] = piece;
        total += piece;
    }
    size_t entries = items + 1;
    uint8_t *offsets = malloc(entries * (size_t)width);
    if (offsets == NULL)
        abort();
    put_offset(offsets, 0, width, 0);
    for (size_t i = 0, at = 0; i < items; i++) {
        at += lengths[i];
        put_offset(offsets, i + 1, width, at);
    }
    const char *kernels[FUZZ_MAX_KERNELS];
    size_t kernel_count = fuzz_kernels(kernels);
    for (size_t k = 0; k < kernel_count; k++) {
        fuzz_use_kernel(kernels[k]);
        check_column(src, len, offsets, entries, width, form, to);
    }
    /* An offset below the one before is refused, and nothing is written. */
    if (entries >= 3 && get_offset(offsets, 1, width) > 0) {
        size_t kept = get_offset(offsets, 1, width);
        put_offset(offsets, 2, width, kept - 1);
        uint8_t *valid = malloc(entries);
        memset(valid, 0xAA, entries);
        utfkit_offsets_result refused = utfkit_offsets_validate(src, len, offsets, entries, width, form, valid);
        FUZZ_REQUIRE(refused.status == UTFKIT_OFFSETS_DECREASING && refused.index == 2,
                     "decreasing offset: status %d index %zu", refused.status, refused.index);
        for (size_t i = 0; i < entries; i++)
            FUZZ_REQUIRE(valid[i] == 0xAA, "written after refusing");
        free(valid);
    }
    free(offsets);
    free(src);
    return 0;
}
