/*
 * iter_errors_cost.c -- the C-level cost per error of utfkit.iter_errors:
 * utfkit_check resumed after each ill-formed subsequence (the loop
 * src/utfkit/_errors.py runs), on English-like text with one error per KiB,
 * against one validation of the same text without errors.
 *
 *   cc -O2 -Icsrc -o /tmp/iter_errors_cost benchmarks/c/iter_errors_cost.c csrc/*.c csrc/simd/*.c
 *   /tmp/iter_errors_cost [FILE] [KERNEL]
 *
 * Prints ns per error = (time of the error loop - time of validating the
 * clean text) / errors, best of 20 rounds, and the errors found.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "utfkit.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "/work/shared/corpus/lipsum/Latin-Lipsum.utf8.txt";
    if (argc > 2 && utfkit_set_backend(argv[2]) != 0) {
        fprintf(stderr, "kernel %s not available\n", argv[2]);
        return 2;
    }
    FILE *file = fopen(path, "rb");
    if (!file) {
        perror(path);
        return 2;
    }
    size_t size = 8u << 20, filled = 0;
    uint8_t *text = malloc(size);
    static uint8_t sample[1 << 20];
    size_t sample_length = fread(sample, 1, sizeof sample, file);
    fclose(file);
    while (filled + sample_length <= size) { /* the text repeated to 8 MiB */
        memcpy(text + filled, sample, sample_length);
        filled += sample_length;
    }
    uint8_t *dirty = malloc(filled);
    memcpy(dirty, text, filled);
    for (size_t at = 512; at < filled; at += 1024)
        dirty[at] = 0xFF; /* one invalid start byte per KiB */
    double best_clean = 1e9, best_dirty = 1e9;
    size_t errors = 0;
    for (int round = 0; round < 20; round++) {
        double t0 = now();
        volatile int valid = utfkit_validate(text, filled, UTFKIT_UTF8);
        double t1 = now();
        (void)valid;
        size_t position = 0, found = 0;
        while (position < filled) {
            utfkit_result r = utfkit_check(dirty + position, filled - position, UTFKIT_UTF8);
            if (r.status == UTFKIT_OK)
                break;
            found++;
            position += r.position + r.subpart_length;
        }
        double t2 = now();
        errors = found;
        if (t1 - t0 < best_clean)
            best_clean = t1 - t0;
        if (t2 - t1 < best_dirty)
            best_dirty = t2 - t1;
    }
    printf("kernel %s, %zu bytes, %zu errors: clean %.3f ms, with errors %.3f ms, %.1f ns per error\n",
           utfkit_backend(), filled, errors, best_clean * 1e3, best_dirty * 1e3,
           (best_dirty - best_clean) / (double)errors * 1e9);
    return 0;
}
