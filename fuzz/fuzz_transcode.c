/*
 * fuzz_transcode.c -- the form-generic entry points (utfkit_transcode,
 * _transcoded_length, _well_formed_length, _check, _validate,
 * _validate_many, _count, _transcode_packed) for
 * every (from, to) pair and errors mode: every kernel against the scalar
 * kernel, and the contracts of utfkit.h -- the length function is exact, a
 * strict error agrees with utfkit_check, replace/ignore outputs are
 * well-formed, a too-small cap writes only a prefix and reports the exact
 * length needed (a strict error winning over it).
 *
 * utfkit_transcode_packed must give utfkit_transcode's answer, and a dst
 * overlapping src must be refused with nothing written.
 *
 * Input: byte 0 picks the source form (mod 5), byte 1 the cap to try below
 * the exact one; the rest is the source text (fuzz/make_seeds.py writes
 * texts of 0 to 4 KiB, cut on and around multiples of 16, 32 and 64, so
 * that every kernel's blocks and the scalar tails after them run).
 */
#include "fuzz_common.h"

#define FORMS 5
#define MODES 3

typedef struct transcode_outcome {
    utfkit_result check, length[FORMS][MODES], converted[FORMS][MODES];
    int valid;
    size_t count, valid_many;
    uint8_t *output[FORMS][MODES];
} transcode_outcome;

/* utfkit_validate_many over src cut into pieces (lengths from the text's
 * own bytes, by fuzz_length: 0 to 4096, around the SIMD blocks' ends):
 * each answer is utfkit_validate's on the piece; lengths that do not add up
 * to len give (size_t)-1 and write nothing.  Returns the count. */
static size_t check_validate_many(const uint8_t *src, size_t len, int form)
{
    size_t lengths[64], count = 0, total = 0;
    while (count < 64 && total < len) {
        size_t piece = fuzz_length(src[total]);
        if (piece > len - total || count == 63)
            piece = len - total;
        lengths[count++] = piece;
        total += piece;
    }
    uint8_t *valid = malloc(count + 1);
    size_t good = utfkit_validate_many(src, len, lengths, count, form, valid);
    size_t expected = 0;
    for (size_t i = 0, at = 0; i < count; at += lengths[i], i++) {
        int answer = utfkit_validate(src + at, lengths[i], form);
        FUZZ_REQUIRE(valid[i] == answer, "validate_many piece %zu: %d, validate %d", i, valid[i], answer);
        expected += (size_t)answer;
    }
    FUZZ_REQUIRE(good == expected, "validate_many returned %zu, expected %zu", good, expected);
    memset(valid, 0xAA, count + 1);
    FUZZ_REQUIRE(utfkit_validate_many(src, len + 1, lengths, count, form, valid) == (size_t)-1,
                 "lengths not adding up were accepted");
    for (size_t i = 0; i <= count; i++)
        FUZZ_REQUIRE(valid[i] == 0xAA, "validate_many wrote after refusing");
    free(valid);
    return good;
}

/* utfkit_transcode_packed is utfkit_transcode with `how` = from | to << 4 |
 * errors << 8: the bytes written, or -1 - status.  And a dst that overlaps
 * src is refused (UTFKIT_OVERLAPPING_BUFFERS) before anything is written:
 * dst here is src itself, from its start and from its middle. */
static void check_packed_and_overlap(const uint8_t *src, size_t len, int from,
                                     const transcode_outcome *o)
{
    for (int to = 0; to < FORMS; to++) {
        for (int mode = 0; mode < MODES; mode++) {
            utfkit_result done = o->converted[to][mode];
            size_t need = o->length[to][mode].written;
            uint8_t *dst = malloc(need ? need : 1);
            int64_t packed = utfkit_transcode_packed(src, len, from | to << 4 | mode << 8,
                                                     need ? dst : NULL, need);
            if (done.status == UTFKIT_OK)
                FUZZ_REQUIRE(packed == (int64_t)done.written &&
                                 memcmp(dst, o->output[to][mode], done.written) == 0,
                             "packed %d->%d mode %d: %lld, transcode wrote %zu", from, to, mode,
                             (long long)packed, done.written);
            else
                FUZZ_REQUIRE(packed == -1 - (int64_t)done.status, "packed %d->%d mode %d: %lld, "
                             "transcode status %d", from, to, mode, (long long)packed, done.status);
            free(dst);
        }
    }
    if (len == 0)
        return;
    uint8_t *text = fuzz_copy(src, len);
    for (size_t start = 0; start < len; start += len / 2 + 1) {
        utfkit_result refused = utfkit_transcode(text, len, from, UTFKIT_UTF8, UTFKIT_REPLACE,
                                                 text + start, len - start);
        FUZZ_REQUIRE(refused.status == UTFKIT_OVERLAPPING_BUFFERS && refused.written == 0,
                     "overlapping dst at %zu: status %d", start, refused.status);
        FUZZ_REQUIRE(memcmp(text, src, len) == 0, "overlapping dst written to");
    }
    free(text);
}

static transcode_outcome run(const uint8_t *src, size_t len, int from, size_t cap_cut)
{
    transcode_outcome o;
    o.check = utfkit_check(src, len, from);
    o.valid = utfkit_validate(src, len, from);
    o.count = utfkit_count(src, len, from);
    o.valid_many = check_validate_many(src, len, from);
    FUZZ_REQUIRE(o.valid == (o.check.status == UTFKIT_OK), "validate %d check %d", o.valid,
                 o.check.status);
    FUZZ_REQUIRE(o.check.position <= len, "position %zu", o.check.position);
    for (int to = 0; to < FORMS; to++) {
        for (int mode = 0; mode < MODES; mode++) {
            utfkit_result length = utfkit_transcoded_length(src, len, from, to, mode);
            o.length[to][mode] = length;
            size_t need = length.written;
            uint8_t *dst = malloc(need ? need : 1);
            utfkit_result done = utfkit_transcode(src, len, from, to, mode, dst, need);
            o.converted[to][mode] = done;
            o.output[to][mode] = dst;
            if (mode == UTFKIT_STRICT && o.check.status != UTFKIT_OK) {
                FUZZ_REQUIRE(done.status == o.check.status && done.position == o.check.position &&
                                 done.subpart_length == o.check.subpart_length,
                             "strict %d@%zu, check %d@%zu", done.status, done.position,
                             o.check.status, o.check.position);
                FUZZ_REQUIRE(length.status == o.check.status, "length status %d", length.status);
                continue;
            }
            FUZZ_REQUIRE(length.status == UTFKIT_OK, "length status %d", length.status);
            FUZZ_REQUIRE(done.status == UTFKIT_OK && done.written == need,
                         "%d->%d mode %d: status %d written %zu need %zu", from, to, mode,
                         done.status, done.written, need);
            FUZZ_REQUIRE(utfkit_validate(dst, need, to), "output ill-formed in form %d", to);
            if (mode == UTFKIT_REPLACE)
                FUZZ_REQUIRE(utfkit_count(dst, need, to) == o.count, "replace count differs");
            if (mode == UTFKIT_STRICT)
                FUZZ_REQUIRE(utfkit_well_formed_length(src, len, from, to) == need,
                             "well_formed_length differs");
            if (need != 0) {
                size_t cap = cap_cut % need;
                uint8_t *small = malloc(cap ? cap : 1);
                utfkit_result cut = utfkit_transcode(src, len, from, to, mode, cap ? small : NULL, cap);
                FUZZ_REQUIRE(cut.status == UTFKIT_OUTPUT_TOO_SMALL && cut.written == need,
                             "cap %zu: status %d written %zu need %zu", cap, cut.status,
                             cut.written, need);
                free(small);
            }
        }
    }
    check_packed_and_overlap(src, len, from, &o);
    return o;
}

static void release(transcode_outcome *o)
{
    for (int to = 0; to < FORMS; to++)
        for (int mode = 0; mode < MODES; mode++)
            free(o->output[to][mode]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    int from = data[0] % FORMS;
    size_t cap_cut = data[1];
    const char *kernels[FUZZ_MAX_KERNELS];
    size_t kernel_count = fuzz_kernels(kernels);
    uint8_t *src = fuzz_copy(data + 2, size - 2);
    size_t len = size - 2;
    fuzz_use_kernel("scalar");
    transcode_outcome reference = run(src, len, from, cap_cut);
    for (size_t k = 1; k < kernel_count; k++) {
        fuzz_use_kernel(kernels[k]);
        transcode_outcome o = run(src, len, from, cap_cut);
        FUZZ_REQUIRE(fuzz_same_result(o.check, reference.check), "check differs");
        FUZZ_REQUIRE(o.valid == reference.valid && o.count == reference.count &&
                         o.valid_many == reference.valid_many, "validate/count/validate_many differ");
        for (int to = 0; to < FORMS; to++) {
            for (int mode = 0; mode < MODES; mode++) {
                FUZZ_REQUIRE(fuzz_same_result(o.length[to][mode], reference.length[to][mode]),
                             "transcoded_length %d->%d mode %d differs", from, to, mode);
                utfkit_result a = o.converted[to][mode], b = reference.converted[to][mode];
                FUZZ_REQUIRE(fuzz_same_result(a, b), "transcode %d->%d mode %d differs", from, to, mode);
                if (a.status == UTFKIT_OK)
                    FUZZ_REQUIRE(memcmp(o.output[to][mode], reference.output[to][mode], a.written) == 0,
                                 "transcode %d->%d mode %d output differs", from, to, mode);
            }
        }
        release(&o);
    }
    release(&reference);
    free(src);
    return 0;
}
