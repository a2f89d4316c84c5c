/*
 * transcode_driver.c -- instructions per input byte of a conversion,
 * counted by valgrind's callgrind (a count, not a time: the same on a busy
 * machine as on an idle one).
 *
 * Reads FILE (UTF-8) once, converts it to the form FROM with the scalar
 * kernel, then converts that to the form TO with utfkit_transcode under
 * KERNEL ROUNDS times, and prints the bytes converted.  Run through
 * benchmarks/callgrind/instructions_per_byte.sh --op FROM:TO, which builds
 * this with the core, runs it under callgrind collecting only inside
 * transcode_rounds (the measured calls of utfkit_transcode, not the
 * conversions that prepare the input), and divides.  Forms are the
 * numbers of utfkit.h's utfkit_form (0 UTF-8, 1 UTF-16LE, 3 UTF-32LE ...).
 *
 * Usage: transcode_driver KERNEL ROUNDS FROM TO FILE
 */
#include <stdio.h>
#include <stdlib.h>

#include "utfkit.h"

static unsigned char *converted(const unsigned char *src, size_t len, int from, int to, size_t *size)
{
    utfkit_result measured = utfkit_transcoded_length(src, len, from, to, UTFKIT_STRICT);
    unsigned char *dst = malloc(measured.written ? measured.written : 1);
    if (measured.status != UTFKIT_OK || dst == NULL)
        return NULL;
    *size = utfkit_transcode(src, len, from, to, UTFKIT_STRICT, dst, measured.written).written;
    return dst;
}

/* The measured calls, in a function of their own for callgrind's
 * --toggle-collect; the number of rounds whose result is the expected one. */
__attribute__((noinline)) long transcode_rounds(const unsigned char *src, size_t len, int from, int to,
                                                unsigned char *dst, size_t cap, long rounds);
__attribute__((noinline)) long transcode_rounds(const unsigned char *src, size_t len, int from, int to,
                                                unsigned char *dst, size_t cap, long rounds)
{
    long same = 0;
    for (long r = 0; r < rounds; r++) {
        utfkit_result result = utfkit_transcode(src, len, from, to, UTFKIT_STRICT, dst, cap);
        same += result.status == UTFKIT_OK && result.written == cap;
    }
    return same;
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: %s KERNEL ROUNDS FROM TO FILE\n", argv[0]);
        return 2;
    }
    long rounds = strtol(argv[2], NULL, 10);
    int from = (int)strtol(argv[3], NULL, 10), to = (int)strtol(argv[4], NULL, 10);
    FILE *file = fopen(argv[5], "rb");
    if (file == NULL) {
        perror(argv[5]);
        return 2;
    }
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    unsigned char *text = malloc(size > 0 ? (size_t)size : 1);
    if (text == NULL || fread(text, 1, (size_t)size, file) != (size_t)size) {
        fprintf(stderr, "cannot read %s\n", argv[5]);
        return 2;
    }
    fclose(file);
    utfkit_set_backend("scalar");
    size_t len = 0, cap = 0;
    unsigned char *src = converted(text, (size_t)size, UTFKIT_UTF8, from, &len);
    unsigned char *check = src ? converted(src, len, from, to, &cap) : NULL;
    if (check == NULL) {
        fprintf(stderr, "%s does not convert from form %d to form %d\n", argv[5], from, to);
        return 2;
    }
    if (utfkit_set_backend(argv[1]) != 0) {
        fprintf(stderr, "kernel %s is not available here\n", argv[1]);
        return 2;
    }
    unsigned char *dst = malloc(cap ? cap : 1);
    long same = transcode_rounds(src, len, from, to, dst, cap, rounds);
    printf("%ld bytes converted, %ld of %ld rounds as the scalar kernel's length\n", (long)len * rounds,
           same, rounds);
    free(dst);
    free(check);
    free(src);
    free(text);
    return 0;
}
