/*
 * ops_driver.c -- instructions per byte of one C-core operation, counted by
 * valgrind's callgrind (a count, not a time: the same on a busy machine as
 * on an idle one).
 *
 * Reads FILE (UTF-8 text), converts it first to the operation's input form
 * (UTF-16LE or UTF-32LE, outside what is counted), then runs OPERATION
 * ROUNDS times under KERNEL inside run_operation(), the function
 * ops_per_byte.sh tells callgrind to count.  Prints the input bytes of all
 * rounds.
 *
 * Usage: ops_driver KERNEL OPERATION ROUNDS FILE
 * Operations: validate count 8to16 8to32 16to8 32to8 16to32 32to16
 *             len8to16 len16to8 tlen8to16 tlen16to8
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utfkit.h"

typedef struct operation {
    const char *name;
    int input;  /* the form it reads */
    int output; /* the form it writes, or -1 */
    int kind;   /* 0 transcode, 1 validate, 2 count, 3 well-formed length, 4 transcoded length */
} operation;

static const operation operations[] = {
    {"validate", UTFKIT_UTF8, -1, 1},
    {"count", UTFKIT_UTF8, -1, 2},
    {"8to16", UTFKIT_UTF8, UTFKIT_UTF16LE, 0},
    {"8to32", UTFKIT_UTF8, UTFKIT_UTF32LE, 0},
    {"16to8", UTFKIT_UTF16LE, UTFKIT_UTF8, 0},
    {"32to8", UTFKIT_UTF32LE, UTFKIT_UTF8, 0},
    {"16to32", UTFKIT_UTF16LE, UTFKIT_UTF32LE, 0},
    {"32to16", UTFKIT_UTF32LE, UTFKIT_UTF16LE, 0},
    {"len8to16", UTFKIT_UTF8, UTFKIT_UTF16LE, 3},
    {"len16to8", UTFKIT_UTF16LE, UTFKIT_UTF8, 3},
    {"len32to8", UTFKIT_UTF32LE, UTFKIT_UTF8, 3},
    {"tlen8to16", UTFKIT_UTF8, UTFKIT_UTF16LE, 4},
    {"tlen16to8", UTFKIT_UTF16LE, UTFKIT_UTF8, 4},
};

static volatile size_t sink;

/* What callgrind counts (--toggle-collect=run_operation). */
__attribute__((noinline)) void run_operation(const operation *op, const uint8_t *src, size_t len,
                                             uint8_t *dst, size_t cap, long rounds)
{
    for (long r = 0; r < rounds; r++) {
        switch (op->kind) {
        case 0: sink = utfkit_transcode(src, len, op->input, op->output, UTFKIT_STRICT, dst, cap).written; break;
        case 1: sink = (size_t)utfkit_validate(src, len, op->input); break;
        case 2: sink = utfkit_count(src, len, op->input); break;
        case 3: sink = utfkit_well_formed_length(src, len, op->input, op->output); break;
        default:
            sink = utfkit_transcoded_length(src, len, op->input, op->output, UTFKIT_STRICT).written;
        }
    }
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: %s KERNEL OPERATION ROUNDS FILE\n", argv[0]);
        return 2;
    }
    if (utfkit_set_backend(argv[1]) != 0) {
        fprintf(stderr, "kernel %s is not available here\n", argv[1]);
        return 2;
    }
    const operation *op = NULL;
    for (size_t k = 0; k < sizeof operations / sizeof operations[0]; k++)
        if (strcmp(operations[k].name, argv[2]) == 0)
            op = &operations[k];
    if (op == NULL) {
        fprintf(stderr, "unknown operation %s\n", argv[2]);
        return 2;
    }
    long rounds = strtol(argv[3], NULL, 10);
    FILE *file = fopen(argv[4], "rb");
    if (file == NULL) {
        perror(argv[4]);
        return 2;
    }
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    size_t len8 = size > 0 ? (size_t)size : 0;
    uint8_t *text = malloc(len8 + 1);
    if (text == NULL || fread(text, 1, len8, file) != len8) {
        fprintf(stderr, "cannot read %s\n", argv[4]);
        return 2;
    }
    fclose(file);
    size_t cap = 4 * len8 + 64;
    uint8_t *input = malloc(cap), *dst = malloc(cap);
    size_t len = len8;
    if (op->input == UTFKIT_UTF8) {
        memcpy(input, text, len8);
    } else {
        utfkit_result converted = utfkit_transcode(text, len8, UTFKIT_UTF8, op->input, UTFKIT_STRICT, input, cap);
        if (converted.status != UTFKIT_OK) {
            fprintf(stderr, "%s is not UTF-8\n", argv[4]);
            return 2;
        }
        len = converted.written;
    }
    run_operation(op, input, len, dst, cap, rounds);
    printf("%zu\n", len * (size_t)rounds);
    free(text);
    free(input);
    free(dst);
    return 0;
}
