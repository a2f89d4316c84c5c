/*
 * fuzz_utf8.c -- the UTF-8 entry points (utfkit_utf8_validate, _check,
 * _sanitize, _sanitized_length, _remove_ill_formed, _removed_length,
 * _count, _validate_lengths, and utfkit_ascii_length): every kernel against
 * the scalar kernel, and the contracts of
 * utfkit.h -- validate agrees with check, a repair is well-formed and as
 * long as its length function says, a valid input is repaired to itself, a
 * too-small cap writes only a prefix and reports the exact length needed.
 */
#include "fuzz_common.h"

typedef struct utf8_outcome {
    int valid;
    utfkit_result check, sanitized_length, removed_length;
    size_t count, ascii_length, code_points, utf16_units;
    int valid_lengths;
    uint8_t *sanitized, *removed;
} utf8_outcome;

/* Runs a writer with cap = needed - 1 into a block of exactly that size:
 * it must say OUTPUT_TOO_SMALL with written = needed and leave a prefix of
 * `full` in dst (whatever it wrote). */
static void check_small_cap(const uint8_t *src, size_t len, const uint8_t *full, size_t needed,
                            utfkit_result (*writer)(const uint8_t *, size_t, uint8_t *, size_t))
{
    if (needed == 0)
        return;
    size_t cap = needed - 1 - (needed > 5 ? (size_t)src[0] % 5 : 0);
    uint8_t *dst = malloc(cap ? cap : 1);
    if (cap)
        memset(dst, 0xAA, cap);
    utfkit_result small = writer(src, len, cap ? dst : NULL, cap);
    FUZZ_REQUIRE(small.status == UTFKIT_OUTPUT_TOO_SMALL && small.written == needed,
                 "cap %zu of %zu: status %d written %zu", cap, needed, small.status, small.written);
    size_t same = 0;
    while (same < cap && dst[same] == full[same])
        same++;
    for (size_t i = same; i < cap; i++)
        FUZZ_REQUIRE(dst[i] == 0xAA, "byte %zu written but not the output's", i);
    free(dst);
}

static utf8_outcome run(const uint8_t *src, size_t len)
{
    utf8_outcome o;
    o.valid = utfkit_utf8_validate(src, len);
    o.check = utfkit_utf8_check(src, len);
    o.sanitized_length = utfkit_utf8_sanitized_length(src, len);
    o.removed_length = utfkit_utf8_removed_length(src, len);
    o.count = utfkit_utf8_count(src, len);
    FUZZ_REQUIRE(o.valid == (o.check.status == UTFKIT_OK), "validate %d, check %d", o.valid,
                 o.check.status);
    /* the ASCII prefix, and validation with the lengths in one pass */
    o.ascii_length = utfkit_ascii_length(src, len);
    FUZZ_REQUIRE(o.ascii_length <= len && (o.ascii_length == len || src[o.ascii_length] >= 0x80),
                 "ascii_length %zu of %zu", o.ascii_length, len);
    for (size_t i = 0; i < o.ascii_length; i++)
        FUZZ_REQUIRE(src[i] < 0x80, "byte %zu of the ASCII prefix is %02X", i, src[i]);
    o.code_points = o.utf16_units = 0;
    o.valid_lengths = utfkit_utf8_validate_lengths(src, len, &o.code_points, &o.utf16_units);
    FUZZ_REQUIRE(o.valid_lengths == o.valid, "validate_lengths %d, validate %d", o.valid_lengths, o.valid);
    if (o.valid)
        FUZZ_REQUIRE(o.code_points == o.count &&
                         2 * o.utf16_units == utfkit_well_formed_length(src, len, UTFKIT_UTF8, UTFKIT_UTF16LE),
                     "validate_lengths %zu, %zu", o.code_points, o.utf16_units);
    else
        o.code_points = o.utf16_units = 0; /* unset then: not compared */
    FUZZ_REQUIRE(o.check.position <= len, "position %zu > len %zu", o.check.position, len);
    if (o.check.status != UTFKIT_OK)
        FUZZ_REQUIRE(o.check.subpart_length >= 1 && o.check.subpart_length <= 3 &&
                         o.check.position + o.check.subpart_length <= len,
                     "subpart %zu at %zu", o.check.subpart_length, o.check.position);
    /* The well-formed prefix is well-formed, and the subpart is ill-formed. */
    FUZZ_REQUIRE(utfkit_utf8_validate(src, o.check.position), "prefix of %zu", o.check.position);

    size_t need = o.sanitized_length.written;
    o.sanitized = malloc(need ? need : 1);
    utfkit_result written = utfkit_utf8_sanitize(src, len, o.sanitized, need);
    FUZZ_REQUIRE(written.status == UTFKIT_OK && written.written == need, "sanitize %d %zu/%zu",
                 written.status, written.written, need);
    FUZZ_REQUIRE(utfkit_utf8_validate(o.sanitized, need), "sanitized output is ill-formed");
    if (o.valid)
        FUZZ_REQUIRE(need == len && memcmp(o.sanitized, src, len) == 0, "valid input changed");
    check_small_cap(src, len, o.sanitized, need, utfkit_utf8_sanitize);

    size_t kept = o.removed_length.written;
    o.removed = malloc(kept ? kept : 1);
    written = utfkit_utf8_remove_ill_formed(src, len, o.removed, kept);
    FUZZ_REQUIRE(written.status == UTFKIT_OK && written.written == kept, "remove %d %zu/%zu",
                 written.status, written.written, kept);
    FUZZ_REQUIRE(utfkit_utf8_validate(o.removed, kept), "removal output is ill-formed");
    FUZZ_REQUIRE(kept <= len, "removal grew the input");
    check_small_cap(src, len, o.removed, kept, utfkit_utf8_remove_ill_formed);
    return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *kernels[FUZZ_MAX_KERNELS];
    size_t kernel_count = fuzz_kernels(kernels);
    uint8_t *src = fuzz_copy(data, size);
    fuzz_use_kernel("scalar");
    utf8_outcome reference = run(src, size);
    for (size_t k = 1; k < kernel_count; k++) {
        fuzz_use_kernel(kernels[k]);
        utf8_outcome o = run(src, size);
        FUZZ_REQUIRE(o.valid == reference.valid, "validate differs");
        FUZZ_REQUIRE(fuzz_same_result(o.check, reference.check), "check differs");
        FUZZ_REQUIRE(fuzz_same_result(o.sanitized_length, reference.sanitized_length),
                     "sanitized_length differs");
        FUZZ_REQUIRE(fuzz_same_result(o.removed_length, reference.removed_length),
                     "removed_length differs");
        FUZZ_REQUIRE(o.count == reference.count, "count differs");
        FUZZ_REQUIRE(o.ascii_length == reference.ascii_length, "ascii_length differs");
        FUZZ_REQUIRE(o.valid_lengths == reference.valid_lengths && o.code_points == reference.code_points &&
                         o.utf16_units == reference.utf16_units,
                     "validate_lengths differs");
        FUZZ_REQUIRE(memcmp(o.sanitized, reference.sanitized, reference.sanitized_length.written) == 0,
                     "sanitize output differs");
        FUZZ_REQUIRE(memcmp(o.removed, reference.removed, reference.removed_length.written) == 0,
                     "remove output differs");
        free(o.sanitized);
        free(o.removed);
    }
    free(reference.sanitized);
    free(reference.removed);
    free(src);
    return 0;
}
