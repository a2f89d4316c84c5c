/*
 * offsets.c -- columns of strings in Apache Arrow's layout: one data buffer
 * and int32 or int64 offsets (Arrow Columnar Format, "Variable-size Binary
 * Layout"), each item validated, counted, repaired or converted in one call.
 *
 * The offsets come from outside (a Parquet file, another process), so they
 * are checked before any item is read: every item then lies inside
 * src[0..len).  Items are handed one by one to the single-buffer entry
 * points, so a column gives item for item what utfkit_validate,
 * utfkit_count and utfkit_transcode give.
 */
#include <string.h>

#include "utfkit.h"

/* The i-th offset, read byte-wise: an offsets buffer need not be aligned
 * (a slice of a NumPy array, a memoryview of a file). */
static int64_t offset_at(const uint8_t *offsets, int offset_width, size_t i)
{
    if (offset_width == 4) {
        int32_t value;
        memcpy(&value, offsets + i * 4, sizeof value);
        return value;
    }
    int64_t value;
    memcpy(&value, offsets + i * 8, sizeof value);
    return value;
}

static void set_offset(uint8_t *offsets, int offset_width, size_t i, size_t value)
{
    if (offset_width == 4) {
        int32_t narrow = (int32_t)value;
        memcpy(offsets + i * 4, &narrow, sizeof narrow);
    } else {
        int64_t wide = (int64_t)value;
        memcpy(offsets + i * 8, &wide, sizeof wide);
    }
}

static utfkit_offsets_result offsets_result(int status, size_t index)
{
    utfkit_offsets_result result;
    memset(&result, 0, sizeof result);
    result.status = status;
    result.index = index;
    return result;
}

/* Every offset within [0, len] and none below the one before: after this,
 * src + offsets[i] .. src + offsets[i + 1] is inside src for every item. */
static utfkit_offsets_result check_offsets(size_t len, const uint8_t *offsets, size_t entries,
                                           int offset_width)
{
    if (offset_width != 4 && offset_width != 8)
        return offsets_result(UTFKIT_OFFSETS_BAD_WIDTH, 0);
    int64_t previous = 0;
    for (size_t i = 0; i < entries; i++) {
        int64_t value = offset_at(offsets, offset_width, i);
        if (value < 0)
            return offsets_result(UTFKIT_OFFSETS_NEGATIVE, i);
        if ((uint64_t)value > (uint64_t)len)
            return offsets_result(UTFKIT_OFFSETS_PAST_END, i);
        if (i > 0 && value < previous)
            return offsets_result(UTFKIT_OFFSETS_DECREASING, i);
        previous = value;
    }
    return offsets_result(UTFKIT_OFFSETS_OK, 0);
}

/* Item i's start; its length is start(i + 1) - start(i).  Only after
 * check_offsets, which makes both casts exact. */
static size_t item_start(const uint8_t *offsets, int offset_width, size_t i)
{
    return (size_t)offset_at(offsets, offset_width, i);
}

/* Items are validated in groups of this many: one call over a group's
 * bytes settles all of them when it is well-formed (group_well_formed),
 * which short strings -- the usual column -- need, since a call costs more
 * than validating a few dozen bytes. */
#define GROUP_ITEMS 16

/* 1 if items first .. last - 1 are all well-formed UTF-8, settled by one
 * validation of their bytes end to end: well-formed UTF-8 is a sequence of
 * whole characters (Unicode 3.9 D92, Table 3-7), so cutting it where a
 * character begins -- at a byte that is not a continuation byte 80..BF --
 * gives well-formed pieces, and no item of a well-formed group starting
 * with a continuation byte means every cut is such a place.  0 means "not
 * settled": some item is ill-formed, or the form is not UTF-8, and the
 * items must be validated one by one. */
static int group_well_formed(const uint8_t *src, const uint8_t *offsets, int offset_width, int form,
                             size_t first, size_t last)
{
    if (form != UTFKIT_UTF8 || last - first < 2)
        return 0;
    size_t start = item_start(offsets, offset_width, first);
    size_t end = item_start(offsets, offset_width, last);
    for (size_t i = first + 1; i < last; i++) {
        size_t cut = item_start(offsets, offset_width, i);
        if (cut < end && (src[cut] & 0xC0) == 0x80)
            return 0;
    }
    return utfkit_utf8_validate(src + start, end - start);
}

static size_t group_end(size_t first, size_t items)
{
    return items - first > GROUP_ITEMS ? first + GROUP_ITEMS : items;
}

utfkit_offsets_result utfkit_offsets_validate(const uint8_t *src, size_t len, const uint8_t *offsets,
                                              size_t entries, int offset_width, int form,
                                              uint8_t *valid)
{
    utfkit_offsets_result result = check_offsets(len, offsets, entries, offset_width);
    if (result.status != UTFKIT_OFFSETS_OK || entries < 2)
        return result;
    size_t items = entries - 1;
    for (size_t first = 0; first < items; first = group_end(first, items)) {
        size_t last = group_end(first, items);
        if (group_well_formed(src, offsets, offset_width, form, first, last)) {
            memset(valid + first, 1, last - first);
            result.value += last - first;
            continue;
        }
        for (size_t i = first; i < last; i++) {
            size_t start = item_start(offsets, offset_width, i);
            size_t end = item_start(offsets, offset_width, i + 1);
            valid[i] = (uint8_t)(utfkit_validate(src + start, end - start, form) != 0);
            result.value += valid[i];
        }
    }
    return result;
}

utfkit_offsets_result utfkit_offsets_count(const uint8_t *src, size_t len, const uint8_t *offsets,
                                           size_t entries, int offset_width, int form,
                                           int64_t *counts)
{
    utfkit_offsets_result result = check_offsets(len, offsets, entries, offset_width);
    if (result.status != UTFKIT_OFFSETS_OK || entries < 2)
        return result;
    size_t start = item_start(offsets, offset_width, 0);
    for (size_t i = 0; i + 1 < entries; i++) {
        size_t end = item_start(offsets, offset_width, i + 1);
        counts[i] = (int64_t)utfkit_count(src + start, end - start, form);
        result.value += (size_t)counts[i];
        start = end;
    }
    return result;
}

/* The largest output an offset of offset_width bytes can point at. */
static size_t largest_offset(int offset_width)
{
    return offset_width == 4 ? (size_t)INT32_MAX : (SIZE_MAX < (uint64_t)INT64_MAX ? SIZE_MAX : (size_t)INT64_MAX);
}

/* Where a column's output goes: dst[0..cap) for the items, new_offsets for
 * their offsets.  `needed` counts every byte of output, written or not:
 * once something does not fit, nothing more is written (so dst never holds
 * a later item after a missing one) and the rest is only measured. */
typedef struct column_sink {
    uint8_t *dst;
    size_t cap;
    size_t needed;
    int fits;
    uint8_t *new_offsets;
    int offset_width;
    size_t largest;
} column_sink;

/* Records that the output so far ends at `needed`, as item i's end offset
 * (i + 1); 0 if that end is past what an offset can hold. */
static int end_item(column_sink *sink, size_t i)
{
    if (sink->needed > sink->largest)
        return 0;
    if (sink->fits)
        set_offset(sink->new_offsets, sink->offset_width, i + 1, sink->needed);
    return 1;
}

/* Appends n bytes of well-formed src: copied as they are. */
static int append_copy(column_sink *sink, const uint8_t *src, size_t n)
{
    if (n > SIZE_MAX - sink->needed)
        return 0;
    if (sink->fits && n > sink->cap - sink->needed)
        sink->fits = 0;
    if (sink->fits && n > 0)
        memcpy(sink->dst + sink->needed, src, n);
    sink->needed += n;
    return 1;
}

/* Appends one item converted by utfkit_transcode (or, UTF-8 to UTF-8 with
 * replacement, utfkit_utf8_sanitize, which copies well-formed runs whole).
 * Returns the item's result: OK, or its first ill-formed subsequence
 * (strict), or TOO_LARGE when the output would not fit in a size_t. */
static utfkit_result append_converted(column_sink *sink, const uint8_t *src, size_t n, int from, int to,
                                      int errors)
{
    int utf8_repair = from == UTFKIT_UTF8 && to == UTFKIT_UTF8 && errors == UTFKIT_REPLACE;
    utfkit_result item;
    if (sink->fits) {
        uint8_t *at = sink->dst + sink->needed;
        size_t room = sink->cap - sink->needed;
        item = utf8_repair ? utfkit_utf8_sanitize(src, n, at, room)
                           : utfkit_transcode(src, n, from, to, errors, at, room);
        if (item.status == UTFKIT_OUTPUT_TOO_SMALL) {
            sink->fits = 0;
            item.status = UTFKIT_OK;
        }
    } else {
        item = utf8_repair ? utfkit_utf8_sanitized_length(src, n)
                           : utfkit_transcoded_length(src, n, from, to, errors);
    }
    if (item.status != UTFKIT_OK)
        return item;
    if (item.written > SIZE_MAX - sink->needed) {
        item.status = UTFKIT_TOO_LARGE;
        return item;
    }
    sink->needed += item.written;
    return item;
}

static utfkit_offsets_result finish(utfkit_offsets_result result, const column_sink *sink)
{
    result.value = sink->needed;
    if (!sink->fits)
        result.status = UTFKIT_OFFSETS_OUTPUT_TOO_SMALL;
    return result;
}

static column_sink new_sink(uint8_t *dst, size_t cap, uint8_t *new_offsets, size_t new_offsets_cap,
                            size_t entries, int offset_width)
{
    column_sink sink = {dst, cap, 0, 1, new_offsets, offset_width, largest_offset(offset_width)};
    /* the offsets are all written or none: room for every one, or none is */
    if (entries > new_offsets_cap / (size_t)offset_width)
        sink.fits = 0;
    if (sink.fits && entries > 0)
        set_offset(new_offsets, offset_width, 0, 0);
    return sink;
}

utfkit_offsets_result utfkit_offsets_sanitize(const uint8_t *src, size_t len, const uint8_t *offsets,
                                              size_t entries, int offset_width, int form,
                                              uint8_t *dst, size_t cap,
                                              uint8_t *new_offsets, size_t new_offsets_cap)
{
    utfkit_offsets_result result = check_offsets(len, offsets, entries, offset_width);
    if (result.status != UTFKIT_OFFSETS_OK || entries < 2)
        return result;
    /* Validate first: a column that is well-formed throughout is left as it
     * is, and a damaged one is written only from its first ill-formed item
     * on, its well-formed items before that copied in one piece. */
    size_t items = entries - 1;
    size_t first_start = item_start(offsets, offset_width, 0);
    size_t first_bad = items;
    for (size_t first = 0; first < items && first_bad == items; first = group_end(first, items)) {
        size_t last = group_end(first, items);
        if (group_well_formed(src, offsets, offset_width, form, first, last))
            continue;
        for (size_t i = first; i < last; i++) {
            size_t start = item_start(offsets, offset_width, i);
            if (!utfkit_validate(src + start, item_start(offsets, offset_width, i + 1) - start, form)) {
                first_bad = i;
                break;
            }
        }
    }
    if (first_bad == items)
        return result;
    size_t bad_start = item_start(offsets, offset_width, first_bad);

    column_sink sink = new_sink(dst, cap, new_offsets, new_offsets_cap, entries, offset_width);
    if (!append_copy(&sink, src + first_start, bad_start - first_start))
        return offsets_result(UTFKIT_OFFSETS_TOO_LARGE, 0);
    for (size_t i = 0; i < first_bad; i++) {
        size_t end = item_start(offsets, offset_width, i + 1) - first_start;
        if (end > sink.largest)
            return offsets_result(UTFKIT_OFFSETS_TOO_LARGE, i);
        if (sink.fits)
            set_offset(sink.new_offsets, offset_width, i + 1, end);
    }
    for (size_t first = first_bad; first < items; first = group_end(first, items)) {
        size_t last = group_end(first, items);
        if (first != first_bad && group_well_formed(src, offsets, offset_width, form, first, last)) {
            /* copied in one piece; each item's end moves by the same amount */
            size_t group_start = item_start(offsets, offset_width, first);
            size_t shift_to = sink.needed;
            if (!append_copy(&sink, src + group_start, item_start(offsets, offset_width, last) - group_start))
                return offsets_result(UTFKIT_OFFSETS_TOO_LARGE, first);
            if (sink.needed > sink.largest)
                return offsets_result(UTFKIT_OFFSETS_TOO_LARGE, last - 1);
            if (sink.fits)
                for (size_t i = first; i < last; i++)
                    set_offset(sink.new_offsets, offset_width, i + 1,
                               shift_to + (item_start(offsets, offset_width, i + 1) - group_start));
            continue;
        }
        for (size_t i = first; i < last; i++) {
            size_t item_begin = item_start(offsets, offset_width, i);
            const uint8_t *item = src + item_begin;
            size_t n = item_start(offsets, offset_width, i + 1) - item_begin;
            if (i != first_bad && utfkit_validate(item, n, form)) {
                if (!append_copy(&sink, item, n) || !end_item(&sink, i))
                    return offsets_result(UTFKIT_OFFSETS_TOO_LARGE, i);
                continue;
            }
            result.repaired++;
            utfkit_result repaired = append_converted(&sink, item, n, form, form, UTFKIT_REPLACE);
            if (repaired.status != UTFKIT_OK || !end_item(&sink, i))
                return offsets_result(UTFKIT_OFFSETS_TOO_LARGE, i);
        }
    }
    return finish(result, &sink);
}

utfkit_offsets_result utfkit_offsets_transcode(const uint8_t *src, size_t len, const uint8_t *offsets,
                                               size_t entries, int offset_width, int from, int to,
                                               int errors, uint8_t *dst, size_t cap,
                                               uint8_t *new_offsets, size_t new_offsets_cap)
{
    utfkit_offsets_result result = check_offsets(len, offsets, entries, offset_width);
    if (result.status != UTFKIT_OFFSETS_OK)
        return result;
    column_sink sink = new_sink(dst, cap, new_offsets, new_offsets_cap, entries, offset_width);
    if (entries < 2)
        return finish(result, &sink);
    size_t start = item_start(offsets, offset_width, 0);
    for (size_t i = 0; i + 1 < entries; i++) {
        size_t end = item_start(offsets, offset_width, i + 1);
        utfkit_result item = append_converted(&sink, src + start, end - start, from, to, errors);
        start = end;
        if (item.status == UTFKIT_TOO_LARGE && item.subpart_length == 0)
            return offsets_result(UTFKIT_OFFSETS_TOO_LARGE, i);
        if (item.status != UTFKIT_OK) {
            result = offsets_result(UTFKIT_OFFSETS_ILL_FORMED, i);
            result.item = item;
            return result;
        }
        if (!end_item(&sink, i))
            return offsets_result(UTFKIT_OFFSETS_TOO_LARGE, i);
    }
    return finish(result, &sink);
}
