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

static int fuzz_same_result(utfkit_result a, utfkit_result b)
{
    return a.status == b.status && a.position == b.position &&
           a.subpart_length == b.subpart_length && a.written == b.written;
}

#endif /* UTFKIT_FUZZ_COMMON_H */
