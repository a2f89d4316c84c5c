/*
 * kernels.h -- the kernel table's entry type, the CPU features kernels need,
 * and the active kernel (internal to the core; the binding never sees it).
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

/* What UTF-8 text holds, for the lengths of its other forms. */
typedef struct utf8_census {
    size_t code_points;  /* bytes that are not continuation bytes 80..BF */
    size_t utf16_units;  /* code_points plus the 4-byte lead bytes F0..FF (D91: a pair) */
} utf8_census;

/* ---- CPU features ----
 *
 * Every feature a kernel may need, listed once: X(constant, name) where
 * `name` is what __builtin_cpu_supports and utfkit_cpu_features() call it.
 * dispatch.c probes them once per process.  NEON (Advanced SIMD) is part
 * of the AArch64 base architecture, so it is present exactly there. */
#define UTFKIT_X86_CPU_FEATURES(X)                                               \
    X(SSE2, "sse2") X(SSSE3, "ssse3") X(SSE41, "sse4.1") X(SSE42, "sse4.2")      \
    X(POPCNT, "popcnt") X(BMI2, "bmi2") X(AVX, "avx") X(AVX2, "avx2")            \
    X(AVX512F, "avx512f") X(AVX512BW, "avx512bw") X(AVX512VL, "avx512vl")        \
    X(AVX512VBMI, "avx512vbmi") X(AVX512VBMI2, "avx512vbmi2")
#define UTFKIT_ARM_CPU_FEATURES(X) X(NEON, "neon")
#define UTFKIT_CPU_FEATURES(X) UTFKIT_X86_CPU_FEATURES(X) UTFKIT_ARM_CPU_FEATURES(X)

enum utfkit_cpu_feature_index {
#define UTFKIT_CPU_FEATURE_INDEX(constant, name) UTFKIT_CPU_INDEX_##constant,
    UTFKIT_CPU_FEATURES(UTFKIT_CPU_FEATURE_INDEX)
#undef UTFKIT_CPU_FEATURE_INDEX
    UTFKIT_CPU_FEATURE_COUNT
};

/* One bit per feature, for utfkit_kernel.features. */
enum utfkit_cpu_feature {
#define UTFKIT_CPU_FEATURE_BIT(constant, name) UTFKIT_CPU_##constant = 1u << UTFKIT_CPU_INDEX_##constant,
    UTFKIT_CPU_FEATURES(UTFKIT_CPU_FEATURE_BIT)
#undef UTFKIT_CPU_FEATURE_BIT
};

/* ---- transcoding blocks (csrc/simd/x86_*_transcode.c, arm_neon_transcode.c) ----
 *
 * Each converts a prefix of src[0..len) and returns its length in bytes;
 * *written receives the bytes written: the output is dst[0..*written).  The
 * caller has room for the worst case of the whole of src, and a block may
 * store whole vectors past *written within that room (what lies there after
 * the call means nothing); it never stores past it.
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
 *     left to the scalar reader, which reports or repairs it exactly.
 *   utf16_to_cesu8 / utf32_to_cesu8: as utf16_to_utf8 / utf32_to_utf8, but
 *     they consume only units below 10000 that are not surrogates: what
 *     they write is then CESU-8 (UTR #26 section 2) as it is, and the
 *     scalar reader writes the surrogate pairs.
 *   utf16_to_mutf8 / utf32_to_mutf8: the same, stopping at 0000 as well:
 *     what they write is MUTF-8 (JVM spec section 4.4.7), and the scalar
 *     reader writes U+0000 (C0 80).
 *   utf8_bmp_to_utf16 / utf8_bmp_to_utf32: as utf8_to_utf16 /
 *     utf8_to_utf32, for the readers of CESU-8 and MUTF-8 (cesu8.c): they
 *     consume no byte F0..FF either (no 4-byte form: UTR #26 section 2)
 *     and, when bit 1 of `big_endian` is set, no byte 00 (MUTF-8 writes
 *     U+0000 as C0 80: JVM spec section 4.4.7); bit 0 is the byte order.
 *     Below U+10000 these forms are UTF-8, so what they consume is
 *     converted right; surrogate byte sequences and C0 80 are ill-formed
 *     UTF-8, left to the reader like any.
 *   utf16_to_utf32 / utf32_to_utf16: as utf16_to_utf8 / utf32_to_utf8, but
 *     both sides have a byte order, so the `big_endian` argument holds the
 *     source's (1: big-endian) in bit 0 and the target's in bit 1.
 *   latin1_to_utf8 (csrc/simd/x86_latin1.c): src is Latin-1, every byte a
 *     character, so nothing is refused; `big_endian` is unused.
 *   latin1_to_utf16 / latin1_to_utf32 (the same file, simd/latin1_widen.h):
 *     src is Latin-1 (or ASCII), each byte one code unit of its value; they
 *     take the whole of src -- or nothing, when its output is shorter than
 *     one of their vectors -- and store aligned to dst, whatever its address
 *     (a caller's out= buffer is as unaligned as malloc makes it).
 *   utf8_to_latin1 (the same file): src is unchecked UTF-8, read from a
 *     character boundary; only ASCII and the pairs C2..C3 80..BF (Table
 *     3-7, U+0080..U+00FF) are consumed, whole, so everything else --
 *     errors and characters above U+00FF alike -- is left to the scalar
 *     reader (latin1.c); `big_endian` is unused.
 *   utf16_to_latin1 / utf32_to_latin1 (the same file): src is unchecked
 *     code units; only units 0000..00FF (code points of Latin-1, never a
 *     surrogate) are consumed, each written as the byte of its value, so
 *     every other unit -- an error or a character above U+00FF -- is left
 *     to the scalar reader (latin1.c). */
/* Readers call a block function only with at least this many bytes. */
#define UTFKIT_TRANSCODE_BLOCK 64

typedef size_t (*utfkit_transcode_block)(const uint8_t *src, size_t len, int big_endian,
                                         uint8_t *dst, size_t *written);

/* ---- the kernel table ----
 *
 * One entry per instruction set (dispatch.c): its name, the CPU features
 * every one of its functions is compiled for, and every operation.  An
 * operation a kernel does not have is NULL, and the callers then do that
 * part with the scalar code.  Adding an operation means one member here
 * and one initialiser line per kernel in dispatch.c. */
typedef struct utfkit_kernel {
    const char *name;
    /* UTFKIT_CPU_* bits this CPU must have to run the kernel. */
    uint32_t features;

    /* ---- UTF-8 validation (never NULL in a kernel that runs) ---- */
    /* Length of the longest prefix of src[0..len) made of bytes 00..7F
     * (ASCII; each is a whole character, Table 3-7 row 1). */
    size_t (*ascii_prefix_length)(const uint8_t *src, size_t len);
    /* Runs the automaton over src[progress.position..len) from
     * progress.state; returns where it stopped (see utf8_progress). */
    utf8_progress (*utf8_advance)(const uint8_t *src, size_t len, utf8_progress progress);
    /* 1 if src[0..len) is well-formed UTF-8. */
    int (*utf8_validate)(const uint8_t *src, size_t len);
    /* The same validation, telling where to look for the error: len if
     * src[0..len) is well-formed, else a character boundary p < len with
     * src[0..p) well-formed -- for the vector kernels a few vectors before
     * the first error, so that utf8_advance from p finds it without
     * scanning the text again from the start (0 for the others). */
    size_t (*utf8_well_formed_bound)(const uint8_t *src, size_t len);

    /* ---- output lengths (never NULL in a kernel that runs) ----
     * Lengths of well-formed text, by counting code units (csrc/lengths.c
     * is the reference, simd/utf_lengths.h the vector form).  For
     * ill-formed text the numbers mean nothing, but every kernel gives the
     * same ones and reads nothing outside src[0..len). */
    size_t (*utf8_code_points)(const uint8_t *src, size_t len);
    size_t (*utf8_utf16_units)(const uint8_t *src, size_t len);
    /* UTF-8 length of the len / 2 UTF-16 units of src. */
    size_t (*utf16_utf8_length)(const uint8_t *src, size_t len, int big_endian);
    /* Units D800..DFFF among the len / 2 UTF-16 units. */
    size_t (*utf16_surrogates)(const uint8_t *src, size_t len, int big_endian);
    /* UTF-8 length of the len / 4 UTF-32 units of src. */
    size_t (*utf32_utf8_length)(const uint8_t *src, size_t len, int big_endian);
    /* Units 10000 and above among the len / 4 UTF-32 units. */
    size_t (*utf32_supplementary)(const uint8_t *src, size_t len, int big_endian);

    /* ---- validation fused with a length (NULL: validate, then count) ---- */
    /* UTF-8 validation and census in one pass: utf8_well_formed_bound's
     * answer, and *census filled in when it is len (else *census means
     * nothing). */
    size_t (*utf8_validate_census)(const uint8_t *src, size_t len, utf8_census *census);
    /* UTF-16 validation (D91) and UTF-8 length in one pass: 1 and
     * *utf8_length set if src[0..len) is well-formed UTF-16, else 0. */
    int (*utf16_validate_utf8_length)(const uint8_t *src, size_t len, int big_endian,
                                      size_t *utf8_length);
    /* UTF-16 validation (D91) alone: 1 if src[0..len) is well-formed
     * UTF-16 in the given byte order, else 0. */
    int (*utf16_validate)(const uint8_t *src, size_t len, int big_endian);
    /* The same, copying src[0..len) to dst (which does not overlap it) on
     * the way: when it returns 1, dst[0..len) equals src[0..len); when 0,
     * dst[0..len) means nothing. */
    int (*utf16_copy_if_well_formed)(const uint8_t *src, size_t len, int big_endian,
                                     uint8_t *dst);

    /* ---- UTF-8 restricted to the BMP (never NULL in a kernel that runs) ----
     * The surrogate-free text of CESU-8 (UTR #26 section 2) and MUTF-8
     * (JVM spec section 4.4.7) is UTF-8 with no 4-byte sequence, so no byte
     * F0..FF, and for MUTF-8 (nul_is_ill_formed) no byte 00 either: U+0000
     * is C0 80 there.  The readers of those forms (cesu8.c) hand such
     * stretches to the UTF-8 blocks. */
    /* utf8_validate for that text: 1 if src[0..len) is well-formed UTF-8
     * with no byte F0..FF (nor 00). */
    int (*utf8_bmp_validate)(const uint8_t *src, size_t len, int nul_is_ill_formed);
    /* The position of the first byte F0..FF (or 00) of src[0..len), or len. */
    size_t (*utf8_bmp_prefix_length)(const uint8_t *src, size_t len, int nul_is_ill_formed);

    /* ---- transcoding blocks (NULL: the scalar reader does it all) ---- */
    utfkit_transcode_block utf8_to_utf16;
    utfkit_transcode_block utf8_to_utf32;
    utfkit_transcode_block utf8_bmp_to_utf16;
    utfkit_transcode_block utf8_bmp_to_utf32;
    utfkit_transcode_block utf16_to_utf8;
    utfkit_transcode_block utf32_to_utf8;
    utfkit_transcode_block utf16_to_utf32;
    utfkit_transcode_block utf32_to_utf16;
    utfkit_transcode_block utf16_to_cesu8;
    utfkit_transcode_block utf32_to_cesu8;
    utfkit_transcode_block utf16_to_mutf8;
    utfkit_transcode_block utf32_to_mutf8;
    utfkit_transcode_block latin1_to_utf8;
    utfkit_transcode_block latin1_to_utf16;
    utfkit_transcode_block latin1_to_utf32;
    utfkit_transcode_block utf8_to_latin1;
    utfkit_transcode_block utf16_to_latin1;
    utfkit_transcode_block utf32_to_latin1;
} utfkit_kernel;

/* The kernel every core function uses: NULL until the first call chooses
 * one (the best this CPU runs) or utfkit_set_backend sets one.  Always an
 * entry of dispatch.c's table, which is constant, so that swapping it is a
 * single pointer store and a call in another thread sees either kernel
 * whole.  Read it with utfkit_kernel_active(). */
extern const utfkit_kernel *utfkit_chosen_kernel;

/* Chooses the best kernel for this CPU if none was chosen yet; returns the
 * chosen one (dispatch.c). */
const utfkit_kernel *utfkit_kernel_choose(void);

static inline const utfkit_kernel *utfkit_kernel_active(void)
{
    const utfkit_kernel *kernel = __atomic_load_n(&utfkit_chosen_kernel, __ATOMIC_ACQUIRE);
    return kernel != NULL ? kernel : utfkit_kernel_choose();
}

/* ---- the functions of each kernel (named stem_kernel) ---- */

#define UTFKIT_DECLARE_KERNEL(suffix)                                                     \
    size_t utfkit_ascii_prefix_length_##suffix(const uint8_t *src, size_t len);          \
    utf8_progress utf8_advance_##suffix(const uint8_t *src, size_t len, utf8_progress p); \
    int utf8_validate_##suffix(const uint8_t *src, size_t len);                          \
    size_t utf8_well_formed_bound_##suffix(const uint8_t *src, size_t len);

#define UTFKIT_DECLARE_BMP(suffix)                                                        \
    int utf8_bmp_validate_##suffix(const uint8_t *src, size_t len, int nul_is_ill_formed); \
    size_t utf8_bmp_prefix_length_##suffix(const uint8_t *src, size_t len, int nul_is_ill_formed);

#define UTFKIT_DECLARE_LENGTHS(suffix)                                                  \
    size_t utf8_code_points_##suffix(const uint8_t *src, size_t len);                   \
    size_t utf8_utf16_units_##suffix(const uint8_t *src, size_t len);                   \
    size_t utf16_utf8_length_##suffix(const uint8_t *src, size_t len, int big_endian);  \
    size_t utf16_surrogates_##suffix(const uint8_t *src, size_t len, int big_endian);   \
    size_t utf32_utf8_length_##suffix(const uint8_t *src, size_t len, int big_endian);  \
    size_t utf32_supplementary_##suffix(const uint8_t *src, size_t len, int big_endian);

#define UTFKIT_DECLARE_TRANSCODERS(suffix)                                                  \
    size_t utfkit_utf8_to_utf16_##suffix(const uint8_t *, size_t, int, uint8_t *, size_t *); \
    size_t utfkit_utf8_to_utf32_##suffix(const uint8_t *, size_t, int, uint8_t *, size_t *); \
    size_t utfkit_utf16_to_utf8_##suffix(const uint8_t *, size_t, int, uint8_t *, size_t *); \
    size_t utfkit_utf32_to_utf8_##suffix(const uint8_t *, size_t, int, uint8_t *, size_t *); \
    size_t utfkit_utf16_to_utf32_##suffix(const uint8_t *, size_t, int, uint8_t *, size_t *); \
    size_t utfkit_utf32_to_utf16_##suffix(const uint8_t *, size_t, int, uint8_t *, size_t *);

#define UTFKIT_DECLARE_CESU8_BLOCKS(suffix)                                                  \
    size_t utfkit_utf16_to_cesu8_##suffix(const uint8_t *, size_t, int, uint8_t *, size_t *); \
    size_t utfkit_utf32_to_cesu8_##suffix(const uint8_t *, size_t, int, uint8_t *, size_t *); \
    size_t utfkit_utf16_to_mutf8_##suffix(const uint8_t *, size_t, int, uint8_t *, size_t *); \
    size_t utfkit_utf32_to_mutf8_##suffix(const uint8_t *, size_t, int, uint8_t *, size_t *);

/* The portable kernel: plain C, 8 bytes at a time for ASCII runs. */
UTFKIT_DECLARE_KERNEL(scalar)
UTFKIT_DECLARE_BMP(scalar)
UTFKIT_DECLARE_LENGTHS(scalar)

#if defined(__x86_64__) || defined(_M_X64)
#define UTFKIT_X86_64 1
UTFKIT_DECLARE_KERNEL(sse2)
UTFKIT_DECLARE_BMP(sse2)
/* SSE4 finds ASCII runs with the SSE2 finder. */
utf8_progress utf8_advance_sse4(const uint8_t *src, size_t len, utf8_progress p);
int utf8_validate_sse4(const uint8_t *src, size_t len);
size_t utf8_well_formed_bound_sse4(const uint8_t *src, size_t len);
UTFKIT_DECLARE_KERNEL(avx2)
UTFKIT_DECLARE_KERNEL(avx512)
UTFKIT_DECLARE_BMP(sse4)
UTFKIT_DECLARE_BMP(avx2)
UTFKIT_DECLARE_BMP(avx512)
UTFKIT_DECLARE_LENGTHS(sse4)
UTFKIT_DECLARE_LENGTHS(avx2)
UTFKIT_DECLARE_LENGTHS(avx512)
size_t utf8_validate_census_sse4(const uint8_t *src, size_t len, utf8_census *census);
size_t utf8_validate_census_avx2(const uint8_t *src, size_t len, utf8_census *census);
size_t utf8_validate_census_avx512(const uint8_t *src, size_t len, utf8_census *census);
int utf16_validate_utf8_length_sse4(const uint8_t *src, size_t len, int big_endian, size_t *utf8_length);
int utf16_validate_sse4(const uint8_t *src, size_t len, int big_endian);
int utf16_copy_if_well_formed_sse4(const uint8_t *src, size_t len, int big_endian, uint8_t *dst);
int utf16_validate_utf8_length_avx2(const uint8_t *src, size_t len, int big_endian, size_t *utf8_length);
int utf16_validate_avx2(const uint8_t *src, size_t len, int big_endian);
int utf16_copy_if_well_formed_avx2(const uint8_t *src, size_t len, int big_endian, uint8_t *dst);
int utf16_validate_utf8_length_avx512(const uint8_t *src, size_t len, int big_endian, size_t *utf8_length);
int utf16_validate_avx512(const uint8_t *src, size_t len, int big_endian);
int utf16_copy_if_well_formed_avx512(const uint8_t *src, size_t len, int big_endian, uint8_t *dst);
UTFKIT_DECLARE_TRANSCODERS(sse4)
UTFKIT_DECLARE_TRANSCODERS(avx2)
UTFKIT_DECLARE_TRANSCODERS(avx512)
UTFKIT_DECLARE_CESU8_BLOCKS(avx2)
/* (avx512 has UTF-16 -> CESU-8 and MUTF-8 alone: x86_avx512_transcode.c) */
size_t utfkit_utf16_to_cesu8_avx512(const uint8_t *, size_t, int, uint8_t *, size_t *);
size_t utfkit_utf16_to_mutf8_avx512(const uint8_t *, size_t, int, uint8_t *, size_t *);
/* (sse4 has UTF-8 -> UTF-16/UTF-32 stopping before F0..FF, UTF-32 -> CESU-8, and UTF-16 ->
 * CESU-8 and MUTF-8: x86_sse4_transcode.c) */
size_t utfkit_utf8_bmp_to_utf16_sse4(const uint8_t *, size_t, int, uint8_t *, size_t *);
size_t utfkit_utf8_bmp_to_utf32_sse4(const uint8_t *, size_t, int, uint8_t *, size_t *);
size_t utfkit_utf32_to_cesu8_sse4(const uint8_t *, size_t, int, uint8_t *, size_t *);
size_t utfkit_utf16_to_cesu8_sse4(const uint8_t *, size_t, int, uint8_t *, size_t *);
size_t utfkit_utf16_to_mutf8_sse4(const uint8_t *, size_t, int, uint8_t *, size_t *);
#define UTFKIT_DECLARE_LATIN1_BLOCKS(suffix)                                                  \
    size_t utfkit_latin1_to_utf8_##suffix(const uint8_t *, size_t, int, uint8_t *, size_t *); \
    size_t utfkit_latin1_to_utf16_##suffix(const uint8_t *, size_t, int, uint8_t *, size_t *); \
    size_t utfkit_latin1_to_utf32_##suffix(const uint8_t *, size_t, int, uint8_t *, size_t *); \
    size_t utfkit_utf8_to_latin1_##suffix(const uint8_t *, size_t, int, uint8_t *, size_t *); \
    size_t utfkit_utf16_to_latin1_##suffix(const uint8_t *, size_t, int, uint8_t *, size_t *); \
    size_t utfkit_utf32_to_latin1_##suffix(const uint8_t *, size_t, int, uint8_t *, size_t *);
UTFKIT_DECLARE_LATIN1_BLOCKS(sse4)
UTFKIT_DECLARE_LATIN1_BLOCKS(avx2)
UTFKIT_DECLARE_LATIN1_BLOCKS(avx512)
#endif

#if defined(__aarch64__)
#define UTFKIT_AARCH64 1
UTFKIT_DECLARE_KERNEL(neon)
UTFKIT_DECLARE_TRANSCODERS(neon)
UTFKIT_DECLARE_BMP(neon)
#endif

#endif /* UTFKIT_KERNELS_H */
