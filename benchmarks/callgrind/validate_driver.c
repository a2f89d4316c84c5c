/*
 * validate_driver.c -- instructions per byte of UTF-8 validation, counted
 * by valgrind's callgrind (a count, not a time: the same on a busy machine
 * as on an idle one).
 *
 * Reads FILE once, validates it with utfkit_utf8_validate under KERNEL
 * ROUNDS times, and prints the bytes validated.  Run through
 * benchmarks/callgrind/instructions_per_byte.sh, which builds this with the
 * core, runs it under callgrind collecting only inside
 * utfkit_utf8_validate, and divides.
 *
 * Usage: validate_driver KERNEL ROUNDS FILE
 */
#include <stdio.h>
#include <stdlib.h>

#include "utfkit.h"

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s KERNEL ROUNDS FILE\n", argv[0]);
        return 2;
    }
    if (utfkit_set_backend(argv[1]) != 0) {
        fprintf(stderr, "kernel %s is not available here\n", argv[1]);
        return 2;
    }
    long rounds = strtol(argv[2], NULL, 10);
    FILE *file = fopen(argv[3], "rb");
    if (file == NULL) {
        perror(argv[3]);
        return 2;
    }
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    unsigned char *text = malloc(size > 0 ? (size_t)size : 1);
    if (text == NULL || fread(text, 1, (size_t)size, file) != (size_t)size) {
        fprintf(stderr, "cannot read %s\n", argv[3]);
        return 2;
    }
    fclose(file);
    long valid = 0;
    for (long r = 0; r < rounds; r++)
        valid += utfkit_utf8_validate(text, (size_t)size);
    printf("%ld bytes validated, %ld of %ld rounds well-formed\n", size * rounds, valid, rounds);
    free(text);
    return 0;
}
