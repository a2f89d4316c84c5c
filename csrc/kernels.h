/*
 * kernels.h -- the function table that dispatch.c fills once per process
 * (internal to the core; the binding never sees it).
 *
 * A kernel is one instruction set's build of the same building blocks with
 * identical contracts.  The UTF-8 loops are written once and compiled per
 * kernel: the automaton's loops (utf8_scan.h) for scalar and sse2, the
 * vector lookups (simd/utf8_lookup.h) for sse4, avx2, avx512 and neon.
 * Where a kernel stops, the Table 3-7 automaton (utf8_dfa.h) decides the
 * exact byte, and utf8.c turns that into positions and repairs shared by
 * all kernels.  Every kernel therefore gives bit-identical results.
 */
#ifndef UTFKIT_KERNELS_H
#define UTFKIT_KERNELS_H

#include <stddef.h>
#include <stdint.h>

/* How far the Table 3-7 automaton got: either position == len and state is
 * the state after the last byte, or the automaton, in `state`, rejects the
 * byte src[position]. */
typedef struct utf8_progress {
    uint64_t state;
    size_t position;
} utf8_progress;

typedef struct utfkit_kernel {
    const char *name;
    /* Length of the longest prefix of src[0..len) made of bytes 00..7F
     * (ASCII; each is a whole character, Table 3-7 row 1). */
    size_t (*ascii_prefix_length)(const uint8_t *src, size_t len);
    /* Runs the automaton over src[progress.position..len) from
     * progress.state; returns where it stopped (see utf8_progress). */
    utf8_progress (*utf8_advance)(const uint8_t *src, size_t len, utf8_progress progress);
    /* 1 if src[0..len) is well-formed UTF-8. */
    int (*utf8_validate)(const uint8_t *src, size_t len);
} utfkit_kernel;

extern const utfkit_kernel *utfkit_active_kernel;

#define UTFKIT_DECLARE_KERNEL(suffix)                                                     \
    size_t utfkit_ascii_prefix_length_##suffix(const uint8_t *src, size_t len);          \
    utf8_progress utf8_advance_##suffix(const uint8_t *src, size_t len, utf8_progress p); \
    int utf8_validate_##suffix(const uint8_t *src, size_t len);

/* The portable kernel: plain C, 8 bytes at a time for ASCII runs. */
UTFKIT_DECLARE_KERNEL(scalar)

#if defined(__x86_64__) || defined(_M_X64)
#define UTFKIT_X86_64 1
UTFKIT_DECLARE_KERNEL(sse2)
/* SSE4 finds ASCII runs with the SSE2 finder. */
utf8_progress utf8_advance_sse4(const uint8_t *src, size_t len, utf8_progress p);
int utf8_validate_sse4(const uint8_t *src, size_t len);
UTFKIT_DECLARE_KERNEL(avx2)
UTFKIT_DECLARE_KERNEL(avx512)
#endif

#if defined(__aarch64__)
#define UTFKIT_AARCH64 1
UTFKIT_DECLARE_KERNEL(neon)
#endif

/* ---- transcoding blocks (csrc/simd/x86_*_transcode.c) ----
 *
 * Each converts a prefix of src[0..len) and returns its length in bytes;
 * *written receives the bytes written, and exactly dst[0..*written) is
 * written (the caller has room for the worst case of the whole of src).
 * A block function stops before anything it does not handle and when too
 * little input remains for its vectors, so it may return 0; the scalar
 * readers (utf8.c, utf16.c, utf32.c) take over from there.  `big_endian`
 * is the byte order of the UTF-16 / UTF-32 side.
 *
 *   utf8_to_utf16 / utf8_to_utf32: src is unchecked UTF-8, read from a
 *     character boundary; only whole characters of well-formed (Table 3-7)
 *     stretches are consumed, so every ill-formed subsequence, with the
 *     characters around it, is left to the scalar reader.
 *   utf16_to_utf8 / utf32_to_utf8: src is unchecked code units; only units
 *     that are scalar values (never a surrogate or a unit above 10FFFF,
 *     whose handling depends on `errors`) are consumed, so every error is
 *     left to the scalar reader, which reports or repairs it exactly. */
/* Readers call a block function only with at least this many bytes. */
#define UTFKIT_TRANSCODE_BLOCK 64

typedef size_t (*utfkit_transcode_block)(const uint8_t *src, size_t len, int big_endian,
                                         uint8_t *dst, size_t *written);

typedef struct utfkit_transcoders {
    utfkit_transcode_block utf8_to_utf16, utf8_to_utf32, utf16_to_utf8, utf32_to_utf8;
} utfkit_transcoders;

/* The blocks of the active kernel; a NULL member means the scalar reader
 * does all of that direction.  Set with utfkit_active_kernel. */
extern const utfkit_transcoders *utfkit_active_transcoders;

#if defined(UTFKIT_X86_64)
#define UTFKIT_DECLARE_TRANSCODERS(suffix)                                                  \
    size_t utfkit_utf8_to_utf16_##suffix(const uint8_t *, size_t, int, uint8_t *, size_t *); \
    size_t utfkit_utf8_to_utf32_##suffix(const uint8_t *, size_t, int, uint8_t *, size_t *); \
    size_t utfkit_utf16_to_utf8_##suffix(const uint8_t *, size_t, int, uint8_t *, size_t *); \
    size_t utfkit_utf32_to_utf8_##suffix(const uint8_t *, size_t, int, uint8_t *, size_t *); \
    int utfkit_transcoders_supported_##suffix(void);
UTFKIT_DECLARE_TRANSCODERS(avx2)
UTFKIT_DECLARE_TRANSCODERS(avx512)
#endif

#endif /* UTFKIT_KERNELS_H */
