/*
 * fuzz_utf8_family.h -- the checks fuzz_wtf8.c and fuzz_cesu8.c share: one
 * source form (WTF-8, CESU-8 or MUTF-8) converted to every form with every
 * errors mode, under every kernel, against the contracts of utfkit.h:
 *
 *   - validate agrees with check; positions stay within the input;
 *   - transcoded_length is exactly what transcode writes, into a heap block
 *     of exactly that size (AddressSanitizer sees any write past it);
 *   - a strict error of a conversion is the check error when the
 *     destination takes lone surrogates, and never after it otherwise;
 *   - replace / ignore output is well-formed in the destination (UTF-16
 *     output is read back as potentially ill-formed UTF-16 via WTF-8);
 *   - replace output has count() code points;
 *   - a too-small cap (in its own exact heap block) reports
 *     OUTPUT_TOO_SMALL with the exact length and holds a prefix;
 *   - every kernel gives the scalar kernel's results, byte for byte.
 */
#ifndef UTFKIT_FUZZ_UTF8_FAMILY_H
#define UTFKIT_FUZZ_UTF8_FAMILY_H

#include "fuzz_common.h"

#define FAMILY_FORMS 8 /* UTFKIT_UTF8 .. UTFKIT_MUTF8 */
#define FAMILY_MODES 3

static int takes_lone_surrogates(int form)
{
    return form == UTFKIT_WTF8 || form == UTFKIT_MUTF8 || form == UTFKIT_UTF16LE ||
           form == UTFKIT_UTF16BE;
}

static int is_utf16(int form)
{
    return form == UTFKIT_UTF16LE || form == UTFKIT_UTF16BE;
}

typedef struct family_outcome {
    utfkit_result check, length[FAMILY_FORMS][FAMILY_MODES], converted[FAMILY_FORMS][FAMILY_MODES];
    int valid;
    size_t count;
    uint8_t *output[FAMILY_FORMS][FAMILY_MODES];
} family_outcome;

/* Converts src[0..len) from `from` to `to` into a fresh exact-size block;
 * returns it (the caller frees) and the result in *result. */
static uint8_t *family_convert(const uint8_t *src, size_t len, int from, int to, int mode,
                               utfkit_result *result)
{
    utfkit_result length = utfkit_transcoded_length(src, len, from, to, mode);
    size_t need = length.status == UTFKIT_OK ? length.written : 0;
    uint8_t *dst = malloc(need ? need : 1);
    if (dst == NULL)
        abort();
    *result = utfkit_transcode(src, len, from, to, mode, need ? dst : NULL, need);
    if (length.status == UTFKIT_OK)
        FUZZ_REQUIRE(result->status == UTFKIT_OK && result->written == need,
                     "%d->%d mode %d: status %d written %zu, length said %zu", from, to, mode,
                     result->status, result->written, need);
    else
        FUZZ_REQUIRE(fuzz_same_result(*result, length) || (result->status == length.status &&
                     result->position == length.position), "%d->%d: length and transcode disagree",
                     from, to);
    return dst;
}

static family_outcome family_run(const uint8_t *src, size_t len, int from, size_t cap_cut)
{
    family_outcome o;
    o.check = utfkit_check(src, len, from);
    o.valid = utfkit_validate(src, len, from);
    o.count = utfkit_count(src, len, from);
    FUZZ_REQUIRE(o.valid == (o.check.status == UTFKIT_OK), "validate %d, check %d", o.valid,
                 o.check.status);
    FUZZ_REQUIRE(o.check.position <= len && o.check.position + o.check.subpart_length <= len,
                 "check %zu+%zu past %zu", o.check.position, o.check.subpart_length, len);
    for (int to = 0; to < FAMILY_FORMS; to++) {
        for (int mode = 0; mode < FAMILY_MODES; mode++) {
            o.length[to][mode] = utfkit_transcoded_length(src, len, from, to, mode);
            utfkit_result done;
            uint8_t *dst = family_convert(src, len, from, to, mode, &done);
            o.converted[to][mode] = done;
            o.output[to][mode] = dst;
            if (mode == UTFKIT_STRICT) {
                if (done.status != UTFKIT_OK) {
                    FUZZ_REQUIRE(done.position <= o.check.position, "strict error after check's");
                    if (takes_lone_surrogates(to) || from == UTFKIT_CESU8)
                        FUZZ_REQUIRE(done.status == o.check.status &&
                                         done.position == o.check.position &&
                                         done.subpart_length == o.check.subpart_length,
                                     "strict %d->%d %d@%zu, check %d@%zu", from, to, done.status,
                                     done.position, o.check.status, o.check.position);
                    continue;
                }
                FUZZ_REQUIRE(o.valid, "strict conversion of ill-formed input succeeded");
            }
            FUZZ_REQUIRE(done.status == UTFKIT_OK, "%d->%d mode %d status %d", from, to, mode,
                         done.status);
            size_t need = done.written;
            if (is_utf16(to)) {
                /* potentially ill-formed UTF-16 reads back into WTF-8 */
                utfkit_result back;
                uint8_t *wtf8 = family_convert(dst, need, to, UTFKIT_WTF8, UTFKIT_STRICT, &back);
                FUZZ_REQUIRE(back.status == UTFKIT_OK, "UTF-16 output does not read back");
                FUZZ_REQUIRE(utfkit_validate(wtf8, back.written, UTFKIT_WTF8), "WTF-8 ill-formed");
                if (from == UTFKIT_WTF8 && mode == UTFKIT_STRICT)
                    FUZZ_REQUIRE(back.written == len && memcmp(wtf8, src, len) == 0,
                                 "WTF-8 -> UTF-16 -> WTF-8 is not the identity");
                free(wtf8);
            } else {
                FUZZ_REQUIRE(utfkit_validate(dst, need, to), "%d->%d mode %d output ill-formed",
                             from, to, mode);
            }
            if (mode == UTFKIT_REPLACE && !is_utf16(to)) /* one code point or U+FFFD each */
                FUZZ_REQUIRE(utfkit_count(dst, need, to) == o.count, "%d->%d: replace output "
                             "has %zu code points, count() says %zu", from, to,
                             utfkit_count(dst, need, to), o.count);
            if (mode == UTFKIT_STRICT && to == from)
                FUZZ_REQUIRE(need == len && memcmp(dst, src, len) == 0, "valid input not copied");
            if (need != 0) {
                size_t cap = cap_cut % need;
                uint8_t *small = malloc(cap ? cap : 1);
                if (small == NULL)
                    abort();
                utfkit_result cut = utfkit_transcode(src, len, from, to, mode, cap ? small : NULL, cap);
                FUZZ_REQUIRE(cut.status == UTFKIT_OUTPUT_TOO_SMALL && cut.written == need,
                             "cap %zu: status %d written %zu, need %zu", cap, cut.status,
                             cut.written, need);
                free(small);
            }
        }
    }
    return o;
}

static void family_release(family_outcome *o)
{
    for (int to = 0; to < FAMILY_FORMS; to++)
        for (int mode = 0; mode < FAMILY_MODES; mode++)
            free(o->output[to][mode]);
}

/* Runs family_run under every kernel and requires the scalar kernel's
 * results of all of them. */
static void family_fuzz(const uint8_t *src, size_t len, int from, size_t cap_cut)
{
    const char *kernels[FUZZ_MAX_KERNELS];
    size_t kernel_count = fuzz_kernels(kernels);
    fuzz_use_kernel("scalar");
    family_outcome reference = family_run(src, len, from, cap_cut);
    for (size_t k = 1; k < kernel_count; k++) {
        fuzz_use_kernel(kernels[k]);
        family_outcome o = family_run(src, len, from, cap_cut);
        FUZZ_REQUIRE(fuzz_same_result(o.check, reference.check), "check differs");
        FUZZ_REQUIRE(o.valid == reference.valid && o.count == reference.count,
                     "validate / count differ");
        for (int to = 0; to < FAMILY_FORMS; to++) {
            for (int mode = 0; mode < FAMILY_MODES; mode++) {
                utfkit_result a = o.converted[to][mode], b = reference.converted[to][mode];
                FUZZ_REQUIRE(fuzz_same_result(a, b), "transcode %d->%d mode %d differs", from, to,
                             mode);
                FUZZ_REQUIRE(fuzz_same_result(o.length[to][mode], reference.length[to][mode]),
                             "transcoded_length %d->%d mode %d differs", from, to, mode);
                if (a.status == UTFKIT_OK)
                    FUZZ_REQUIRE(memcmp(o.output[to][mode], reference.output[to][mode], a.written) == 0,
                                 "transcode %d->%d mode %d output differs", from, to, mode);
            }
        }
        family_release(&o);
    }
    family_release(&reference);
}

#endif /* UTFKIT_FUZZ_UTF8_FAMILY_H */
