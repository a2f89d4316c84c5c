/*
 * dispatch.c -- CPU detection, once, and the table of kernels.
 *
 * The best kernel this CPU can run is chosen on first use; utfkit_set_backend
 * may force another (tests run the whole suite under each).  Detection uses
 * GCC/Clang's __builtin_cpu_supports, which also checks through XGETBV that
 * the operating system saves the wide registers.
 */
#include <string.h>

#include "kernels.h"
#include "utfkit.h"

/* A kernel: its UTF-8 loops, the ASCII-run finder it uses, the counting
 * loops of its lengths, and its one-pass validations with a count (UTF-8
 * census, UTF-16 to UTF-8 length; or NULL). */
#define KERNEL(suffix, ascii_finder, lengths, census, utf16_length)               \
    {.name = #suffix,                                                            \
     .ascii_prefix_length = utfkit_ascii_prefix_length_##ascii_finder,           \
     .utf8_advance = utf8_advance_##suffix,                                       \
     .utf8_validate = utf8_validate_##suffix,                                     \
     .utf8_well_formed_bound = utf8_well_formed_bound_##suffix,                   \
     .utf8_code_points = utf8_code_points_##lengths,                              \
     .utf8_utf16_units = utf8_utf16_units_##lengths,                              \
     .utf16_utf8_length = utf16_utf8_length_##lengths,                            \
     .utf16_surrogates = utf16_surrogates_##lengths,                              \
     .utf32_utf8_length = utf32_utf8_length_##lengths,                            \
     .utf32_supplementary = utf32_supplementary_##lengths,                        \
     .utf8_validate_census = census,                                              \
     .utf16_validate_utf8_length = utf16_length}

static const utfkit_kernel kernel_scalar = KERNEL(scalar, scalar, scalar, NULL, NULL);
#if defined(UTFKIT_X86_64)
static const utfkit_kernel kernel_sse2 = KERNEL(sse2, sse2, scalar, NULL, NULL);
static const utfkit_kernel kernel_sse4 = KERNEL(
    sse4, sse2, sse4, utf8_validate_census_sse4, utf16_validate_utf8_length_sse4);
static const utfkit_kernel kernel_avx2 = KERNEL(
    avx2, avx2, avx2, utf8_validate_census_avx2, utf16_validate_utf8_length_avx2);
static const utfkit_kernel kernel_avx512 =
    KERNEL(avx512, avx512, avx512, utf8_validate_census_avx512, utf16_validate_utf8_length_avx512);
#endif
#if defined(UTFKIT_AARCH64)
static const utfkit_kernel kernel_neon = KERNEL(neon, neon, scalar, NULL, NULL);
#endif

/* Transcoding blocks, per kernel (kernels.h); sse4 also needs POPCNT.  The avx512 ones need VBMI
 * and VBMI2 as well, which not every AVX-512 CPU has; without them the
 * avx512 kernel transcodes with the avx2 blocks. */
static const utfkit_transcoders no_transcoders = {NULL, NULL, NULL, NULL, NULL, NULL};
#if defined(UTFKIT_X86_64)
static const utfkit_transcoders transcoders_sse4 = {
    utfkit_utf8_to_utf16_sse4, utfkit_utf8_to_utf32_sse4,
    utfkit_utf16_to_utf8_sse4, utfkit_utf32_to_utf8_sse4,
    utfkit_utf16_to_utf32_sse4, utfkit_utf32_to_utf16_sse4};
static const utfkit_transcoders transcoders_avx2 = {
    utfkit_utf8_to_utf16_avx2, utfkit_utf8_to_utf32_avx2,
    utfkit_utf16_to_utf8_avx2, utfkit_utf32_to_utf8_avx2,
    utfkit_utf16_to_utf32_avx2, utfkit_utf32_to_utf16_avx2};
static const utfkit_transcoders transcoders_avx512 = {
    utfkit_utf8_to_utf16_avx512, utfkit_utf8_to_utf32_avx512,
    utfkit_utf16_to_utf8_avx512, utfkit_utf32_to_utf8_avx512,
    utfkit_utf16_to_utf32_avx512, utfkit_utf32_to_utf16_avx512};
#endif
const utfkit_transcoders *utfkit_active_transcoders = &no_transcoders;

/* From slowest to fastest; the best available is the last one that runs. */
static const utfkit_kernel *const all_kernels[] = {
    &kernel_scalar,
#if defined(UTFKIT_X86_64)
    &kernel_sse2,
    &kernel_sse4,
    &kernel_avx2,
    &kernel_avx512,
#endif
#if defined(UTFKIT_AARCH64)
    &kernel_neon,
#endif
};
#define KERNEL_COUNT (sizeof all_kernels / sizeof all_kernels[0])

static int cpu_can_run(const utfkit_kernel *kernel)
{
    if (kernel == &kernel_scalar)
        return 1;
#if defined(UTFKIT_AARCH64)
    if (kernel == &kernel_neon)
        return 1; /* Advanced SIMD is part of the AArch64 base architecture */
#endif
#if defined(UTFKIT_X86_64) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    if (kernel == &kernel_sse2)
        return __builtin_cpu_supports("sse2");
    if (kernel == &kernel_sse4)
        return __builtin_cpu_supports("ssse3") && __builtin_cpu_supports("sse4.1");
    if (kernel == &kernel_avx2)
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2");
    if (kernel == &kernel_avx512)
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512vbmi") &&
               __builtin_cpu_supports("bmi2");
#endif
    return 0;
}

static const utfkit_transcoders *transcoders_for(const utfkit_kernel *kernel)
{
#if defined(UTFKIT_X86_64)
    if (kernel == &kernel_avx512 && utfkit_transcoders_supported_avx512())
        return &transcoders_avx512;
    if ((kernel == &kernel_avx512 || kernel == &kernel_avx2) && utfkit_transcoders_supported_avx2())
        return &transcoders_avx2;
    if (kernel == &kernel_sse4 && utfkit_transcoders_supported_sse4())
        return &transcoders_sse4;
#endif
    (void)kernel;
    return &no_transcoders;
}

static const utfkit_kernel *best_kernel(void)
{
    for (size_t i = KERNEL_COUNT; i-- > 0;)
        if (cpu_can_run(all_kernels[i]))
            return all_kernels[i];
    return &kernel_scalar;
}

/* Starts as scalar so that a call before utfkit_set_backend is still
 * correct; utfkit_backend()/utfkit_set_backend(NULL) install the best. */
const utfkit_kernel *utfkit_active_kernel = &kernel_scalar;
static int kernel_chosen = 0;

/* ---- per operation: the faster kernel, by measurement ----
 *
 * The widest kernel is not always the fastest at everything: on AMD Zen 4,
 * simdutf's AVX2 kernel validates faster than its AVX-512 one (16.5 vs
 * 14.7 GB/s), while AVX-512 transcodes faster.  So when the best kernel is
 * chosen automatically, UTF-8 validation (utf8_validate, utf8_advance,
 * utf8_well_formed_bound and utf8_validate_census, which every validating
 * entry point uses) goes to whichever of AVX-512 and
 * AVX2 validates 16 KiB of non-ASCII text faster here, timed once, a few
 * microseconds in all, interleaved; the rest stays with the best kernel.
 * Both give bit-identical results (every kernel does), so the choice only
 * ever affects speed.  A kernel forced by name runs everything itself. */
static utfkit_kernel automatic_kernel;
static const utfkit_kernel *validation_kernel = &kernel_scalar;

#if defined(UTFKIT_X86_64) && (defined(__GNUC__) || defined(__clang__))
#define CALIBRATION_BYTES 16384
#define CALIBRATION_ROUNDS 12

static uint64_t cycles_to_validate(const utfkit_kernel *kernel, const uint8_t *text)
{
    uint64_t start = __builtin_ia32_rdtsc();
    int valid = kernel->utf8_validate(text, CALIBRATION_BYTES);
    uint64_t elapsed = __builtin_ia32_rdtsc() - start;
    return valid ? elapsed : UINT64_MAX; /* (the text is well-formed) */
}

/* The faster validator of `a` and `b`; `a` unless `b` is clearly faster. */
static const utfkit_kernel *faster_validator(const utfkit_kernel *a, const utfkit_kernel *b)
{
    /* Cyrillic and CJK in turn (2- and 3-byte characters, no ASCII). */
    static const uint8_t pattern[] = {0xD0, 0x96, 0xD0, 0xB8, 0xE6, 0x9D, 0xB1, 0xE4, 0xBA, 0xAC};
    static uint8_t text[CALIBRATION_BYTES];
    size_t filled = 0;
    while (filled + sizeof pattern <= sizeof text) {
        memcpy(text + filled, pattern, sizeof pattern);
        filled += sizeof pattern;
    }
    memset(text + filled, 'a', sizeof text - filled);

    uint64_t best_a = UINT64_MAX, best_b = UINT64_MAX;
    cycles_to_validate(a, text); /* warm up both */
    cycles_to_validate(b, text);
    for (int round = 0; round < CALIBRATION_ROUNDS; round++) {
        uint64_t time_a = cycles_to_validate(a, text), time_b = cycles_to_validate(b, text);
        best_a = time_a < best_a ? time_a : best_a;
        best_b = time_b < best_b ? time_b : best_b;
    }
    return best_b < best_a - best_a / 16 ? b : a; /* b must win by more than 6 % */
}
#endif

static const utfkit_kernel *automatic(const utfkit_kernel *best)
{
    automatic_kernel = *best;
    validation_kernel = best;
#if defined(UTFKIT_X86_64) && (defined(__GNUC__) || defined(__clang__))
    if (best == &kernel_avx512 && cpu_can_run(&kernel_avx2))
        validation_kernel = faster_validator(&kernel_avx512, &kernel_avx2);
#endif
    automatic_kernel.utf8_advance = validation_kernel->utf8_advance;
    automatic_kernel.utf8_validate = validation_kernel->utf8_validate;
    automatic_kernel.utf8_well_formed_bound = validation_kernel->utf8_well_formed_bound;
    automatic_kernel.utf8_validate_census = validation_kernel->utf8_validate_census;
    return &automatic_kernel;
}

static const utfkit_kernel *kernel_named(const char *name)
{
    for (size_t i = 0; i < KERNEL_COUNT; i++)
        if (strcmp(all_kernels[i]->name, name) == 0)
            return all_kernels[i];
    return NULL;
}

/* Every kernel name, whichever this build has: a name of another
 * architecture's kernel is known, just not runnable here. */
static int name_is_known(const char *name)
{
    static const char *const known[] = {"scalar", "sse2", "sse4", "avx2", "avx512", "neon"};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(known[i], name) == 0)
            return 1;
    return 0;
}

int utfkit_set_backend(const char *name)
{
    const utfkit_kernel *kernel;
    if (name == NULL) {
        kernel = best_kernel();
    } else {
        kernel = kernel_named(name);
        if (kernel == NULL)
            return name_is_known(name) ? -2 : -1;
        if (!cpu_can_run(kernel))
            return -2;
    }
    utfkit_active_transcoders = transcoders_for(kernel);
    if (name == NULL) {
        kernel = automatic(kernel);
    } else {
        validation_kernel = kernel;
    }
    utfkit_active_kernel = kernel;
    kernel_chosen = 1;
    return 0;
}

const char *utfkit_backend(void)
{
    if (!kernel_chosen)
        utfkit_set_backend(NULL);
    return utfkit_active_kernel->name;
}

const char *utfkit_backend_of(const char *operation)
{
    if (!kernel_chosen)
        utfkit_set_backend(NULL);
    if (operation != NULL && strcmp(operation, "validate") == 0)
        return validation_kernel->name;
    return utfkit_active_kernel->name;
}

const char *utfkit_backend_name(size_t index)
{
    return index < KERNEL_COUNT ? all_kernels[index]->name : NULL;
}

int utfkit_backend_available(const char *name)
{
    const utfkit_kernel *kernel = name ? kernel_named(name) : NULL;
    return kernel != NULL && cpu_can_run(kernel);
}

const char *utfkit_cpu_features(void)
{
    static char features[160];
    if (features[0] != '\0')
        return features;
    char found[160] = "";
#if defined(UTFKIT_X86_64) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    static const char *const names[] = {"sse2", "ssse3", "sse4.1", "sse4.2", "popcnt", "bmi2",
                                        "avx", "avx2", "avx512f", "avx512bw", "avx512vl",
                                        "avx512vbmi"};
    /* __builtin_cpu_supports needs a string literal, hence the table of tests. */
    const int present[] = {
        __builtin_cpu_supports("sse2"),     __builtin_cpu_supports("ssse3"),
        __builtin_cpu_supports("sse4.1"),   __builtin_cpu_supports("sse4.2"),
        __builtin_cpu_supports("popcnt"),   __builtin_cpu_supports("bmi2"),
        __builtin_cpu_supports("avx"),      __builtin_cpu_supports("avx2"),
        __builtin_cpu_supports("avx512f"),  __builtin_cpu_supports("avx512bw"),
        __builtin_cpu_supports("avx512vl"), __builtin_cpu_supports("avx512vbmi"),
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!present[i])
            continue;
        if (found[0] != '\0')
            strcat(found, " ");
        strcat(found, names[i]);
    }
#endif
#if defined(UTFKIT_AARCH64)
    strcpy(found, "neon"); /* Advanced SIMD: always there on AArch64 */
#endif
    if (found[0] == '\0')
        strcpy(found, "none");
    strcpy(features, found);
    return features;
}
