/*
 * fuzz_utfe8.c -- UTF-E-8 (seed 002): decoding any bytes with every errors
 * mode under every kernel into exact-size heap blocks (AddressSanitizer
 * sees any write past them), and encoding any 64-bit values:
 *
 *   - utfkit_utfe8_check agrees with a strict decode; decode's count is
 *     exact (a decode into exactly that many code points succeeds, into
 *     fewer reports OUTPUT_TOO_SMALL with the same count);
 *   - well-formed input re-encodes to itself; replace output re-encodes to
 *     well-formed UTF-E-8;
 *   - encoding reports the first value above 2^63 - 1, else the exact
 *     length, and decodes back to the values -- under every kernel, with
 *     the values as they come, shortened to every sequence length, and
 *     folded into U+0000..U+10FFFF: the last gives long stretches of UTF-8,
 *     which the decoder hands to the active kernel's UTF-8 validator
 *     (utfe8.c), so every kernel's SIMD blocks run;
 *   - UTF-8 is UTF-E-8 with the same values: well-formed UTF-8 decodes as
 *     UTF-8 -> UTF-32 converts it, and UTF-E-8 of scalar values only is
 *     well-formed UTF-8 (the kernel's UTF-8 validator and blocks run here);
 *   - the form-generic utfkit_check with UTFKIT_UTFE8 agrees with
 *     utfkit_utfe8_check, and with UTFKIT_UTF8_RFC2279 with a strict
 *     decode limited to U+7FFFFFFF;
 *   - every kernel gives the scalar kernel's results.
 *
 * Input: byte 0 is the cap to try below the exact one; the rest is both
 * the text to decode and, 8 bytes at a time, values to encode.
 * fuzz/make_seeds.py writes texts of up to 4 KiB (UTF-8 with the longer
 * sequences mixed in), cut around multiples of 16, 32 and 64.
 */
#include "fuzz_common.h"

#define UTFE8_LIMIT 0x7FFFFFFFFFFFFFFFull
#define RFC2279_LIMIT 0x7FFFFFFFull

typedef struct decode_outcome {
    utfkit_result result[3];
    uint64_t *code_points[3];
} decode_outcome;

static uint64_t *decode_exact(const uint8_t *src, size_t len, int mode, utfkit_result *result)
{
    utfkit_result counted = utfkit_utfe8_decode(src, len, mode, UTFE8_LIMIT, NULL, 0);
    size_t need = counted.written;
    FUZZ_REQUIRE(need <= len, "%zu code points from %zu bytes", need, len);
    uint64_t *dst = malloc(need ? need * sizeof *dst : 1);
    if (dst == NULL)
        abort();
    *result = utfkit_utfe8_decode(src, len, mode, UTFE8_LIMIT, need ? dst : NULL, need);
    if (counted.status == UTFKIT_OUTPUT_TOO_SMALL || counted.status == UTFKIT_OK)
        FUZZ_REQUIRE(result->status == UTFKIT_OK && result->written == need,
                     "mode %d: status %d written %zu need %zu", mode, result->status,
                     result->written, need);
    else
        FUZZ_REQUIRE(fuzz_same_result(*result, counted), "strict error depends on cap");
    return dst;
}

static uint8_t *encode_exact(const uint64_t *values, size_t count, utfkit_result *result)
{
    utfkit_result measured = utfkit_utfe8_encode(values, count, UTFE8_LIMIT, NULL, 0);
    size_t need = measured.status == UTFKIT_TOO_LARGE ? 0 : measured.written;
    uint8_t *dst = malloc(need ? need : 1);
    if (dst == NULL)
        abort();
    *result = utfkit_utfe8_encode(values, count, UTFE8_LIMIT, need ? dst : NULL, need);
    if (measured.status != UTFKIT_TOO_LARGE)
        FUZZ_REQUIRE(result->status == UTFKIT_OK && result->written == need, "encode length");
    else
        FUZZ_REQUIRE(fuzz_same_result(*result, measured), "encode error depends on cap");
    return dst;
}

/* UTF-8 is UTF-E-8 with the same values (seed 002): well-formed UTF-8
 * decodes to what UTF-8 -> UTF-32 gives, and UTF-E-8 whose values are all
 * Unicode scalar values (D76) is well-formed UTF-8.  Checked with the
 * UTF-8 entry points of the active kernel: its SIMD validator and its
 * UTF-8 -> UTF-32 blocks run on the same text as the UTF-E-8 decoder. */
static void check_utf8_is_utfe8(const uint8_t *src, size_t len, utfkit_result strict,
                                const uint64_t *code_points)
{
    int utf8 = utfkit_utf8_validate(src, len);
    if (strict.status != UTFKIT_OK) {
        FUZZ_REQUIRE(!utf8, "well-formed UTF-8 is ill-formed UTF-E-8 (status %d at %zu)",
                     strict.status, strict.position);
        return;
    }
    int scalar_values = 1;
    for (size_t k = 0; k < strict.written; k++)
        if (code_points[k] > 0x10FFFF || (code_points[k] >= 0xD800 && code_points[k] <= 0xDFFF))
            scalar_values = 0;
    FUZZ_REQUIRE(utf8 == scalar_values, "utf8_validate %d, but UTF-E-8 values all scalar: %d",
                 utf8, scalar_values);
    if (!utf8)
        return;
    size_t need = 4 * strict.written;
    uint8_t *utf32 = malloc(need ? need : 1);
    if (utf32 == NULL)
        abort();
    utfkit_result done = utfkit_transcode(src, len, UTFKIT_UTF8, UTFKIT_UTF32LE, UTFKIT_STRICT,
                                          need ? utf32 : NULL, need);
    FUZZ_REQUIRE(done.status == UTFKIT_OK && done.written == need, "UTF-8 -> UTF-32: status %d "
                 "written %zu, UTF-E-8 decoded %zu code points", done.status, done.written,
                 strict.written);
    for (size_t k = 0; k < strict.written; k++) {
        uint64_t value = (uint64_t)utf32[4 * k] | (uint64_t)utf32[4 * k + 1] << 8 |
                         (uint64_t)utf32[4 * k + 2] << 16 | (uint64_t)utf32[4 * k + 3] << 24;
        FUZZ_REQUIRE(value == code_points[k], "code point %zu: UTF-8 %llx, UTF-E-8 %llx", k,
                     (unsigned long long)value, (unsigned long long)code_points[k]);
    }
    free(utf32);
}

static decode_outcome run(const uint8_t *src, size_t len, size_t cap_cut)
{
    decode_outcome o;
    utfkit_result check = utfkit_utfe8_check(src, len);
    utfkit_result as_form = utfkit_check(src, len, UTFKIT_UTFE8);
    FUZZ_REQUIRE(as_form.status == check.status && as_form.position == check.position &&
                     as_form.subpart_length == check.subpart_length,
                 "utfkit_check(UTFKIT_UTFE8) and utfkit_utfe8_check differ");
    utfkit_result rfc2279 = utfkit_utfe8_decode(src, len, UTFKIT_STRICT, RFC2279_LIMIT, NULL, 0);
    if (rfc2279.status == UTFKIT_OUTPUT_TOO_SMALL)
        rfc2279.status = UTFKIT_OK;
    as_form = utfkit_check(src, len, UTFKIT_UTF8_RFC2279);
    FUZZ_REQUIRE(as_form.status == rfc2279.status && as_form.position == rfc2279.position &&
                     as_form.subpart_length == rfc2279.subpart_length,
                 "utfkit_check(UTFKIT_UTF8_RFC2279) and a decode limited to 7FFFFFFF differ");
    for (int mode = 0; mode < 3; mode++) {
        o.code_points[mode] = decode_exact(src, len, mode, &o.result[mode]);
        utfkit_result r = o.result[mode];
        if (mode == UTFKIT_STRICT) {
            FUZZ_REQUIRE(r.status == check.status && r.position == check.position &&
                             r.subpart_length == check.subpart_length,
                         "check and strict decode differ");
            FUZZ_REQUIRE(r.position + r.subpart_length <= len, "subpart past the end");
            check_utf8_is_utfe8(src, len, r, o.code_points[mode]);
            if (r.status != UTFKIT_OK)
                continue;
        }
        /* re-encode: well-formed input gives itself back */
        utfkit_result encoded;
        uint8_t *bytes = encode_exact(o.code_points[mode], r.written, &encoded);
        FUZZ_REQUIRE(encoded.status == UTFKIT_OK, "decoded values do not encode");
        FUZZ_REQUIRE(utfkit_utfe8_check(bytes, encoded.written).status == UTFKIT_OK,
                     "re-encoded output ill-formed");
        if (check.status == UTFKIT_OK)
            FUZZ_REQUIRE(encoded.written == len && memcmp(bytes, src, len) == 0,
                         "decode then encode is not the identity");
        free(bytes);
        if (r.written != 0) {
            size_t cap = cap_cut % r.written;
            uint64_t *small = malloc(cap ? cap * sizeof *small : 1);
            utfkit_result cut = utfkit_utfe8_decode(src, len, mode, UTFE8_LIMIT, cap ? small : NULL, cap);
            FUZZ_REQUIRE(cut.status == UTFKIT_OUTPUT_TOO_SMALL && cut.written == r.written,
                         "cap %zu: status %d written %zu", cap, cut.status, cut.written);
            FUZZ_REQUIRE(cap == 0 || memcmp(small, o.code_points[mode], cap * sizeof *small) == 0,
                         "small cap holds no prefix");
            free(small);
        }
    }
    return o;
}

static void encode_values(const uint8_t *data, size_t size, size_t cap_cut)
{
    size_t count = size / 8;
    uint64_t *values = malloc(count ? count * sizeof *values : 1);
    if (values == NULL)
        abort();
    if (count)
        memcpy(values, data, count * sizeof *values);
    for (int pass = 0; pass < 3; pass++) {
        if (pass == 1) /* the second time, all in range, of every length */
            for (size_t k = 0; k < count; k++)
                values[k] = (values[k] & 0x7FFFFFFFFFFFFFFFull) >> (values[k] % 64);
        if (pass == 2) /* the third, Unicode code points of 1 to 4 UTF-8 bytes (D76) */
            for (size_t k = 0; k < count; k++)
                values[k] = (values[k] % 0x110000u) >> (values[k] >> 32) % 17;
        utfkit_result encoded;
        uint8_t *bytes = encode_exact(values, count, &encoded);
        size_t first_too_large = count;
        for (size_t k = 0; k < count; k++)
            if (values[k] > 0x7FFFFFFFFFFFFFFFull) {
                first_too_large = k;
                break;
            }
        if (first_too_large < count) {
            FUZZ_REQUIRE(encoded.status == UTFKIT_TOO_LARGE && encoded.position == first_too_large,
                         "value %zu above 2^63 - 1 not reported", first_too_large);
        } else {
            FUZZ_REQUIRE(encoded.status == UTFKIT_OK, "encode status %d", encoded.status);
            utfkit_result decoded;
            uint64_t *back = decode_exact(bytes, encoded.written, UTFKIT_STRICT, &decoded);
            FUZZ_REQUIRE(decoded.status == UTFKIT_OK && decoded.written == count &&
                             (count == 0 || memcmp(back, values, count * sizeof *values) == 0),
                         "encode then decode is not the identity");
            free(back);
            if (encoded.written != 0) {
                size_t cap = cap_cut % encoded.written;
                uint8_t *small = malloc(cap ? cap : 1);
                utfkit_result cut = utfkit_utfe8_encode(values, count, UTFE8_LIMIT, cap ? small : NULL, cap);
                FUZZ_REQUIRE(cut.status == UTFKIT_OUTPUT_TOO_SMALL && cut.written == encoded.written,
                             "encode cap %zu: status %d", cap, cut.status);
                free(small);
            }
        }
        free(bytes);
    }
    free(values);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t cap_cut = data[0];
    size_t len = size - 1;
    uint8_t *src = fuzz_copy(data + 1, len);
    const char *kernels[FUZZ_MAX_KERNELS];
    size_t kernel_count = fuzz_kernels(kernels);
    fuzz_use_kernel("scalar");
    decode_outcome reference = run(src, len, cap_cut);
    for (size_t k = 1; k < kernel_count; k++) {
        fuzz_use_kernel(kernels[k]);
        decode_outcome o = run(src, len, cap_cut);
        for (int mode = 0; mode < 3; mode++) {
            FUZZ_REQUIRE(fuzz_same_result(o.result[mode], reference.result[mode]),
                         "decode mode %d differs from scalar", mode);
            if (o.result[mode].status == UTFKIT_OK && o.result[mode].written != 0)
                FUZZ_REQUIRE(memcmp(o.code_points[mode], reference.code_points[mode],
                                    o.result[mode].written * sizeof(uint64_t)) == 0,
                             "decode mode %d output differs from scalar", mode);
            free(o.code_points[mode]);
        }
    }
    for (int mode = 0; mode < 3; mode++)
        free(reference.code_points[mode]);
    for (size_t k = 0; k < kernel_count; k++) {
        fuzz_use_kernel(kernels[k]);
        encode_values(src, len, cap_cut);
    }
    free(src);
    return 0;
}
