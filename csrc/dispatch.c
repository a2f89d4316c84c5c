/*
 * dispatch.c -- the one table of kernels, CPU detection once, and the
 * active kernel.
 *
 * Each entry of `kernels` names an instruction set, the CPU features its
 * functions are compiled for (kernels.h, UTFKIT_CPU_*), and every
 * operation it has.  The table lists every kernel of every architecture,
 * so each name is written once here: an entry built for another
 * architecture has no operations and needs a feature this CPU never
 * reports (x86 features on ARM, NEON on x86), so it is known by name but
 * never runs.  The first core call chooses the best kernel the CPU runs
 * (the last such entry); utfkit_set_backend may force another (the tests
 * run under each).  Detection uses GCC/Clang's __builtin_cpu_supports,
 * which also checks through XGETBV that the operating system saves the
 * wide registers.
 */
#include <string.h>

#include "kernels.h"
#include "utfkit.h"

/* From slowest to fastest; the best available is the last one that runs.
 * Adding an operation: one initialiser line in each kernel that has it. */
static const utfkit_kernel kernels[] = {
    {
        .name = "scalar",
        .features = 0,
        .ascii_prefix_length = utfkit_ascii_prefix_length_scalar,
        .utf8_advance = utf8_advance_scalar,
        .utf8_validate = utf8_validate_scalar,
        .utf8_well_formed_bound = utf8_well_formed_bound_scalar,
        .utf8_bmp_validate = utf8_bmp_validate_scalar,
        .utf8_bmp_prefix_length = utf8_bmp_prefix_length_scalar,
        .utf8_code_points = utf8_code_points_scalar,
        .utf8_utf16_units = utf8_utf16_units_scalar,
        .utf16_utf8_length = utf16_utf8_length_scalar,
        .utf16_surrogates = utf16_surrogates_scalar,
        .utf32_utf8_length = utf32_utf8_length_scalar,
        .utf32_supplementary = utf32_supplementary_scalar,
    },
    {
        .name = "sse2",
        .features = UTFKIT_CPU_SSE2,
#if defined(UTFKIT_X86_64)
        .ascii_prefix_length = utfkit_ascii_prefix_length_sse2,
        .utf8_advance = utf8_advance_sse2,
        .utf8_validate = utf8_validate_sse2,
        .utf8_well_formed_bound = utf8_well_formed_bound_sse2,
        .utf8_bmp_validate = utf8_bmp_validate_sse2,
        .utf8_bmp_prefix_length = utf8_bmp_prefix_length_sse2,
        .utf8_code_points = utf8_code_points_scalar,
        .utf8_utf16_units = utf8_utf16_units_scalar,
        .utf16_utf8_length = utf16_utf8_length_scalar,
        .utf16_surrogates = utf16_surrogates_scalar,
        .utf32_utf8_length = utf32_utf8_length_scalar,
        .utf32_supplementary = utf32_supplementary_scalar,
#endif
    },
    {
        /* POPCNT for the transcoding blocks: every CPU with SSE4.1 but
         * Intel's 45 nm Core 2 (Penryn) has it. */
        .name = "sse4",
        .features = UTFKIT_CPU_SSE2 | UTFKIT_CPU_SSSE3 | UTFKIT_CPU_SSE41 | UTFKIT_CPU_POPCNT,
#if defined(UTFKIT_X86_64)
        .ascii_prefix_length = utfkit_ascii_prefix_length_sse2,
        .utf8_advance = utf8_advance_sse4,
        .utf8_validate = utf8_validate_sse4,
        .utf8_well_formed_bound = utf8_well_formed_bound_sse4,
        .utf8_bmp_validate = utf8_bmp_validate_sse4,
        .utf8_bmp_prefix_length = utf8_bmp_prefix_length_sse4,
        .utf8_code_points = utf8_code_points_sse4,
        .utf8_utf16_units = utf8_utf16_units_sse4,
        .utf16_utf8_length = utf16_utf8_length_sse4,
        .utf16_surrogates = utf16_surrogates_sse4,
        .utf32_utf8_length = utf32_utf8_length_sse4,
        .utf32_supplementary = utf32_supplementary_sse4,
        .utf8_validate_census = utf8_validate_census_sse4,
        .utf16_validate_utf8_length = utf16_validate_utf8_length_sse4,
        .utf16_validate = utf16_validate_sse4,
        .utf16_copy_if_well_formed = utf16_copy_if_well_formed_sse4,
        .utf8_to_utf16 = utfkit_utf8_to_utf16_sse4,
        .utf8_to_utf32 = utfkit_utf8_to_utf32_sse4,
        .utf8_bmp_to_utf16 = utfkit_utf8_bmp_to_utf16_sse4,
        .utf8_bmp_to_utf32 = utfkit_utf8_bmp_to_utf32_sse4,
        .utf16_to_utf8 = utfkit_utf16_to_utf8_sse4,
        .utf32_to_utf8 = utfkit_utf32_to_utf8_sse4,
        .utf16_to_utf32 = utfkit_utf16_to_utf32_sse4,
        .utf32_to_utf16 = utfkit_utf32_to_utf16_sse4,
        .utf16_to_cesu8 = utfkit_utf16_to_cesu8_sse4,
        .utf32_to_cesu8 = utfkit_utf32_to_cesu8_sse4,
        .utf16_to_mutf8 = utfkit_utf16_to_mutf8_sse4,
        .latin1_to_utf8 = utfkit_latin1_to_utf8_sse4,
        .latin1_to_utf16 = utfkit_latin1_to_utf16_sse4,
        .latin1_to_utf32 = utfkit_latin1_to_utf32_sse4,
        .utf8_to_latin1 = utfkit_utf8_to_latin1_sse4,
        .utf16_to_latin1 = utfkit_utf16_to_latin1_sse4,
        .utf32_to_latin1 = utfkit_utf32_to_latin1_sse4,
#endif
    },
    {
        .name = "avx2",
        .features = UTFKIT_CPU_AVX2 | UTFKIT_CPU_BMI2 | UTFKIT_CPU_POPCNT,
#if defined(UTFKIT_X86_64)
        .ascii_prefix_length = utfkit_ascii_prefix_length_avx2,
        .utf8_advance = utf8_advance_avx2,
        .utf8_validate = utf8_validate_avx2,
        .utf8_well_formed_bound = utf8_well_formed_bound_avx2,
        .utf8_bmp_validate = utf8_bmp_validate_avx2,
        .utf8_bmp_prefix_length = utf8_bmp_prefix_length_avx2,
        .utf8_code_points = utf8_code_points_avx2,
        .utf8_utf16_units = utf8_utf16_units_avx2,
        .utf16_utf8_length = utf16_utf8_length_avx2,
        .utf16_surrogates = utf16_surrogates_avx2,
        .utf32_utf8_length = utf32_utf8_length_avx2,
        .utf32_supplementary = utf32_supplementary_avx2,
        .utf8_validate_census = utf8_validate_census_avx2,
        .utf16_validate_utf8_length = utf16_validate_utf8_length_avx2,
        .utf16_validate = utf16_validate_avx2,
        .utf16_copy_if_well_formed = utf16_copy_if_well_formed_avx2,
        .utf8_to_utf16 = utfkit_utf8_to_utf16_avx2,
        .utf8_to_utf32 = utfkit_utf8_to_utf32_avx2,
        .utf16_to_utf8 = utfkit_utf16_to_utf8_avx2,
        .utf32_to_utf8 = utfkit_utf32_to_utf8_avx2,
        .utf16_to_utf32 = utfkit_utf16_to_utf32_avx2,
        .utf32_to_utf16 = utfkit_utf32_to_utf16_avx2,
        .utf16_to_cesu8 = utfkit_utf16_to_cesu8_avx2,
        .utf32_to_cesu8 = utfkit_utf32_to_cesu8_avx2,
        .utf16_to_mutf8 = utfkit_utf16_to_mutf8_avx2,
        .utf32_to_mutf8 = utfkit_utf32_to_mutf8_avx2,
        .latin1_to_utf8 = utfkit_latin1_to_utf8_avx2,
        .latin1_to_utf16 = utfkit_latin1_to_utf16_avx2,
        .latin1_to_utf32 = utfkit_latin1_to_utf32_avx2,
        .utf8_to_latin1 = utfkit_utf8_to_latin1_avx2,
        .utf16_to_latin1 = utfkit_utf16_to_latin1_sse4,
        .utf32_to_latin1 = utfkit_utf32_to_latin1_sse4,
#endif
    },
    {
        /* Intel Ice Lake and later, AMD Zen 4 and later: VBMI2 for the
         * byte compression of the transcoding blocks. */
        .name = "avx512",
        .features = UTFKIT_CPU_AVX512F | UTFKIT_CPU_AVX512BW | UTFKIT_CPU_AVX512VL |
                    UTFKIT_CPU_AVX512VBMI | UTFKIT_CPU_AVX512VBMI2 | UTFKIT_CPU_BMI2 |
                    UTFKIT_CPU_POPCNT,
#if defined(UTFKIT_X86_64)
        .ascii_prefix_length = utfkit_ascii_prefix_length_avx512,
        .utf8_advance = utf8_advance_avx512,
        .utf8_validate = utf8_validate_avx512,
        .utf8_well_formed_bound = utf8_well_formed_bound_avx512,
        .utf8_bmp_validate = utf8_bmp_validate_avx512,
        .utf8_bmp_prefix_length = utf8_bmp_prefix_length_avx512,
        .utf8_code_points = utf8_code_points_avx512,
        .utf8_utf16_units = utf8_utf16_units_avx512,
        .utf16_utf8_length = utf16_utf8_length_avx512,
        .utf16_surrogates = utf16_surrogates_avx512,
        .utf32_utf8_length = utf32_utf8_length_avx512,
        .utf32_supplementary = utf32_supplementary_avx512,
        .utf8_validate_census = utf8_validate_census_avx512,
        .utf16_validate_utf8_length = utf16_validate_utf8_length_avx512,
        .utf16_validate = utf16_validate_avx512,
        .utf16_copy_if_well_formed = utf16_copy_if_well_formed_avx512,
        .utf8_to_utf16 = utfkit_utf8_to_utf16_avx512,
        .utf8_to_utf32 = utfkit_utf8_to_utf32_avx512,
        .utf16_to_utf8 = utfkit_utf16_to_utf8_avx512,
        .utf32_to_utf8 = utfkit_utf32_to_utf8_avx512,
        .utf16_to_utf32 = utfkit_utf16_to_utf32_avx512,
        .utf32_to_utf16 = utfkit_utf32_to_utf16_avx512,
        .utf16_to_cesu8 = utfkit_utf16_to_cesu8_avx512,
        .utf16_to_mutf8 = utfkit_utf16_to_mutf8_avx512,
        .latin1_to_utf8 = utfkit_latin1_to_utf8_avx512,
        .latin1_to_utf16 = utfkit_latin1_to_utf16_avx512,
        .latin1_to_utf32 = utfkit_latin1_to_utf32_avx512,
        .utf8_to_latin1 = utfkit_utf8_to_latin1_avx512,
        .utf16_to_latin1 = utfkit_utf16_to_latin1_avx512,
        .utf32_to_latin1 = utfkit_utf32_to_latin1_avx512,
#endif
    },
    {
        .name = "neon",
        .features = UTFKIT_CPU_NEON,
#if defined(UTFKIT_AARCH64)
        .ascii_prefix_length = utfkit_ascii_prefix_length_neon,
        .utf8_advance = utf8_advance_neon,
        .utf8_validate = utf8_validate_neon,
        .utf8_well_formed_bound = utf8_well_formed_bound_neon,
        .utf8_bmp_validate = utf8_bmp_validate_neon,
        .utf8_bmp_prefix_length = utf8_bmp_prefix_length_neon,
        .utf8_code_points = utf8_code_points_scalar,
        .utf8_utf16_units = utf8_utf16_units_scalar,
        .utf16_utf8_length = utf16_utf8_length_scalar,
        .utf16_surrogates = utf16_surrogates_scalar,
        .utf32_utf8_length = utf32_utf8_length_scalar,
        .utf32_supplementary = utf32_supplementary_scalar,
        .utf8_to_utf16 = utfkit_utf8_to_utf16_neon,
        .utf8_to_utf32 = utfkit_utf8_to_utf32_neon,
        .utf16_to_utf8 = utfkit_utf16_to_utf8_neon,
        .utf32_to_utf8 = utfkit_utf32_to_utf8_neon,
        .utf16_to_utf32 = utfkit_utf16_to_utf32_neon,
        .utf32_to_utf16 = utfkit_utf32_to_utf16_neon,
#endif
    },
};
#define KERNEL_COUNT (sizeof kernels / sizeof kernels[0])

/* ---- the CPU, probed once ---- */

/* Set once the features are known, so that 0 means "not probed yet". */
#define FEATURES_PROBED (1u << 31)

static uint32_t probe_features(void)
{
    uint32_t found = FEATURES_PROBED;
#if defined(UTFKIT_X86_64) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    /* __builtin_cpu_supports takes a string literal, hence one test per
     * feature. */
#define PROBE_X86_FEATURE(constant, name)                                     \
    if (__builtin_cpu_supports(name))                                         \
        found |= UTFKIT_CPU_##constant;
    UTFKIT_X86_CPU_FEATURES(PROBE_X86_FEATURE)
#undef PROBE_X86_FEATURE
#endif
#if defined(UTFKIT_AARCH64)
    found |= UTFKIT_CPU_NEON; /* Advanced SIMD: part of the AArch64 base architecture */
#endif
    return found;
}

/* The features of this CPU (UTFKIT_CPU_* bits).  Two threads may both
 * probe on first use; they find and store the same value. */
static uint32_t cpu_features(void)
{
    static uint32_t features;
    uint32_t known = __atomic_load_n(&features, __ATOMIC_RELAXED);
    if (known == 0) {
        known = probe_features();
        __atomic_store_n(&features, known, __ATOMIC_RELAXED);
    }
    return known;
}

static int cpu_can_run(const utfkit_kernel *kernel)
{
    return (kernel->features & ~cpu_features()) == 0;
}

static const utfkit_kernel *kernel_named(const char *name)
{
    for (size_t i = 0; i < KERNEL_COUNT; i++)
        if (strcmp(kernels[i].name, name) == 0)
            return &kernels[i];
    return NULL;
}

static const utfkit_kernel *best_kernel(void)
{
    for (size_t i = KERNEL_COUNT; i-- > 0;)
        if (cpu_can_run(&kernels[i]))
            return &kernels[i];
    return &kernels[0];
}

/* ---- the active kernel ---- */

const utfkit_kernel *utfkit_chosen_kernel = NULL;

const utfkit_kernel *utfkit_kernel_choose(void)
{
    const utfkit_kernel *expected = NULL, *best = best_kernel();
    /* A kernel set meanwhile by utfkit_set_backend stays. */
    if (__atomic_compare_exchange_n(&utfkit_chosen_kernel, &expected, best, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE))
        return best;
    return expected;
}

int utfkit_set_backend(const char *name)
{
    const utfkit_kernel *kernel = name == NULL ? best_kernel() : kernel_named(name);
    if (kernel == NULL)
        return -1;
    if (!cpu_can_run(kernel))
        return -2;
    __atomic_store_n(&utfkit_chosen_kernel, kernel, __ATOMIC_RELEASE);
    return 0;
}

const char *utfkit_backend(void)
{
    return utfkit_kernel_active()->name;
}

const char *utfkit_backend_name(size_t index)
{
    return index < KERNEL_COUNT ? kernels[index].name : NULL;
}

int utfkit_backend_available(const char *name)
{
    const utfkit_kernel *kernel = name ? kernel_named(name) : NULL;
    return kernel != NULL && cpu_can_run(kernel);
}

const char *utfkit_cpu_features(void)
{
    static const char *const names[] = {
#define FEATURE_NAME(constant, name) name,
        UTFKIT_CPU_FEATURES(FEATURE_NAME)
#undef FEATURE_NAME
    };
    /* Room for every name and a space after each. */
    static char text[sizeof "avx512vbmi2 " * UTFKIT_CPU_FEATURE_COUNT];
    /* 0: not written, 1: one thread writing it, 2: written. */
    static int state;
    int expected = 0;
    if (__atomic_compare_exchange_n(&state, &expected, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        uint32_t features = cpu_features();
        for (size_t i = 0; i < UTFKIT_CPU_FEATURE_COUNT; i++) {
            if (!(features & (1u << i)))
                continue;
            if (text[0] != '\0')
                strcat(text, " ");
            strcat(text, names[i]);
        }
        if (text[0] == '\0')
            strcpy(text, "none");
        __atomic_store_n(&state, 2, __ATOMIC_RELEASE);
    } else {
        while (__atomic_load_n(&state, __ATOMIC_ACQUIRE) != 2)
            ; /* another thread is writing it: a few hundred instructions */
    }
    return text;
}
