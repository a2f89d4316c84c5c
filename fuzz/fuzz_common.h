/*
 * fuzz_common.h -- helpers shared by the libFuzzer targets in fuzz/.
 *
 * Every target checks that each kernel this CPU runs gives bit-identical
 * results to the scalar kernel (DESIGN.md section 4), visiting kernels by
 * utfkit_backend_name, so kernels added later are fuzzed without a change
 * here.  Inputs and outputs live in heap blocks of exactly the size the
 * core may touch, so that AddressSanitizer reports any access past them.
 */
#ifndef UTFKIT_FUZZ_COMMON_H
#define UTFKIT_FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utfkit.h"

#define FUZZ_MAX_KERNELS 16

#define FUZZ_REQUIRE(condition, ...)                                        \
    do {                                                                    \
        if (!(condition)) {                                                 \
            fprintf(stderr, "%s:%d: %s: ", __FILE__, __LINE__, #condition); \
            fprintf(stderr, __VA_ARGS__);                                   \
            fprintf(stderr, " (kernel %s)\n", utfkit_backend());            \
            abort();                                                        \
        }                                                                   \
    } while (0)

/* Names of the kernels this CPU runs, scalar first. */
static size_t fuzz_kernels(const char *names[FUZZ_MAX_KERNELS])
{
    size_t count = 0;
    for (size_t i = 0; count < FUZZ_MAX_KERNELS; i++) {
        const char *name = utfkit_backend_name(i);
        if (name == NULL)
            break;
        if (utfkit_backend_available(name))
            names[count++] = name;
    }
    return count;
}

static void fuzz_use_kernel(const char *name)
{
    int status = utfkit_set_backend(name);
    if (status != 0) {
        fprintf(stderr, "utfkit_set_backend(%s) = %d\n", name, status);
        abort();
    }
}

/* A heap block of exactly len bytes holding data (malloc(0) may be NULL:
 * one byte is allocated then, but len 0 is passed on). */
static uint8_t *fuzz_copy(const uint8_t *data, size_t len)
{
    uint8_t *block = malloc(len ? len : 1);
    if (block == NULL)
        abort();
    if (len)
        memcpy(block, data, len);
    return block;
}

/* A length of 0 to 4096 bytes from one input byte, dense where the kernels'
 * blocks end: the widest SIMD block is 64 bytes (AVX-512; a transcoding
 * block needs UTFKIT_TRANSCODE_BLOCK = 64 bytes of input), so lengths must
 * reach well past it and land on, just before and just after multiples of
 * 16, 32 and 64.
 *
 *   00..3F        the length itself, 0..63 (every tail a block leaves);
 *   40..FF        (b - 0x40) = 3 s + k: base(s) + k - 1, where base(s) is
 *                 64 + 16 s for s < 32 (64..560, every multiple of 16) and
 *                 128 (s - 31) for s >= 32 (128..4096).  */
static inline size_t fuzz_length(uint8_t b)
{
    if (b < 0x40)
        return b;
    size_t s = (size_t)(b - 0x40) / 3, k = (size_t)(b - 0x40) % 3;
    size_t base = s < 32 ? 64 + 16 * s : 128 * (s - 31);
    return base + k - 1;
}

static inline int fuzz_same_result(utfkit_result a, utfkit_result b)
{
    return a.status == b.status && a.position == b.position &&
           a.subpart_length == b.subpart_length && a.written == b.written;
}

#endif /* UTFKIT_FUZZ_COMMON_H */
