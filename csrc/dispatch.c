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

#define KERNEL(suffix) \
    {#suffix, utfkit_ascii_prefix_length_##suffix, utf8_advance_##suffix, utf8_validate_##suffix}

static const utfkit_kernel kernel_scalar = KERNEL(scalar);
#if defined(UTFKIT_X86_64)
static const utfkit_kernel kernel_sse2 = KERNEL(sse2);
static const utfkit_kernel kernel_avx2 = KERNEL(avx2);
static const utfkit_kernel kernel_avx512 = KERNEL(avx512);
#endif

/* Transcoding blocks, per kernel (kernels.h).  The avx512 ones need VBMI
 * and VBMI2 as well, which not every AVX-512 CPU has; without them the
 * avx512 kernel transcodes with the avx2 blocks. */
static const utfkit_transcoders no_transcoders = {NULL, NULL, NULL, NULL};
#if defined(UTFKIT_X86_64)
static const utfkit_transcoders transcoders_avx2 = {
    utfkit_utf8_to_utf16_avx2, utfkit_utf8_to_utf32_avx2,
    utfkit_utf16_to_utf8_avx2, utfkit_utf32_to_utf8_avx2};
static const utfkit_transcoders transcoders_avx512 = {
    utfkit_utf8_to_utf16_avx512, utfkit_utf8_to_utf32_avx512,
    utfkit_utf16_to_utf8_avx512, utfkit_utf32_to_utf8_avx512};
#endif
const utfkit_transcoders *utfkit_active_transcoders = &no_transcoders;

/* From slowest to fastest; the best available is the last one that runs. */
static const utfkit_kernel *const all_kernels[] = {
    &kernel_scalar,
#if defined(UTFKIT_X86_64)
    &kernel_sse2,
    &kernel_avx2,
    &kernel_avx512,
#endif
};
#define KERNEL_COUNT (sizeof all_kernels / sizeof all_kernels[0])

static int cpu_can_run(const utfkit_kernel *kernel)
{
    if (kernel == &kernel_scalar)
        return 1;
#if defined(UTFKIT_X86_64) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    if (kernel == &kernel_sse2)
        return __builtin_cpu_supports("sse2");
    if (kernel == &kernel_avx2)
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2");
    if (kernel == &kernel_avx512)
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
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

static const utfkit_kernel *kernel_named(const char *name)
{
    for (size_t i = 0; i < KERNEL_COUNT; i++)
        if (strcmp(all_kernels[i]->name, name) == 0)
            return all_kernels[i];
    return NULL;
}

int utfkit_set_backend(const char *name)
{
    const utfkit_kernel *kernel;
    if (name == NULL) {
        kernel = best_kernel();
    } else {
        kernel = kernel_named(name);
        if (kernel == NULL)
            return -1;
        if (!cpu_can_run(kernel))
            return -2;
    }
    utfkit_active_kernel = kernel;
    utfkit_active_transcoders = transcoders_for(kernel);
    kernel_chosen = 1;
    return 0;
}

const char *utfkit_backend(void)
{
    if (!kernel_chosen)
        utfkit_set_backend(NULL);
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
    if (found[0] == '\0')
        strcpy(found, "none");
    strcpy(features, found);
    return features;
}
