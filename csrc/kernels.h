/*
 * kernels.h -- the function table that dispatch.c fills once per process
 * (internal to the core; the binding never sees it).
 *
 * A kernel is a set of instruction-set-specific building blocks with
 * identical contracts; the readers in utf8.c call them through
 * utfkit_active_kernel so that every kernel shares one DFA and one
 * error-reporting path and therefore gives bit-identical results.
 */
#ifndef UTFKIT_KERNELS_H
#define UTFKIT_KERNELS_H

#include <stddef.h>
#include <stdint.h>

typedef struct utfkit_kernel {
    const char *name;
    /* Length of the longest prefix of src[0..len) made of bytes 00..7F
     * (ASCII; each is a whole character in UTF-8, Table 3-7 row 1). */
    size_t (*ascii_prefix_length)(const uint8_t *src, size_t len);
} utfkit_kernel;

extern const utfkit_kernel *utfkit_active_kernel;

/* The portable kernel: 8 bytes at a time in plain C. */
size_t utfkit_ascii_prefix_length_scalar(const uint8_t *src, size_t len);

#if defined(__x86_64__) || defined(_M_X64)
#define UTFKIT_X86_64 1
size_t utfkit_ascii_prefix_length_sse2(const uint8_t *src, size_t len);
size_t utfkit_ascii_prefix_length_avx2(const uint8_t *src, size_t len);
size_t utfkit_ascii_prefix_length_avx512(const uint8_t *src, size_t len);
#endif

#endif /* UTFKIT_KERNELS_H */
