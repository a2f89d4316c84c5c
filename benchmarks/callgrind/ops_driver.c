/*
 * ops_driver.c -- instructions per byte of one C-core operation, counted by
 * valgrind's callgrind (a count, not a time: the same on a busy machine as
 * on an idle one).
 *
 * Reads FILE (UTF-8 text), converts it first to the operation's input form
 * (UTF-16LE, UTF-32LE, WTF-8, CESU-8 or MUTF-8, outside what is counted), then runs OPERATION
 * ROUNDS times under KERNEL inside run_operation(), the function
 * ops_per_byte.sh tells callgrind to count.  Prints the input bytes of all
 * rounds.
 *
 * Usage: ops_driver KERNEL OPERATION ROUNDS FILE
 * Operations: validate count 8to16 8to32 16to8 32to8 16to32 32to16
 *             len8to16 len16to8 tlen8to16 tlen16to8
 *             wtf8validate cesu8validate mutf8validate wtf8to16 wtf8to32
 *             cesu8to16 cesu8to32 mutf8to16 mutf8to32
 *             16tocesu8 16tomutf8 32tocesu8 32tomutf8
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utfkit.h"

typedef struct operation {
    const char *name;
    int input;  /* the form it reads */
    int output; /* the form it writes, or -1 */
    int kind;   /* 0 transcode, 1 validate, 2 count, 3 well-formed length, 4 transcoded length,
                 * 5 transcode with U+FFFD replacement */
} operation;

static const operation operations[] = {
    {"validate", UTFKIT_UTF8, -1, 1},
    {"valid16", UTFKIT_UTF16LE, -1, 1},
    {"sanit16", UTFKIT_UTF16LE, UTFKIT_UTF16LE, 5},
    {"count", UTFKIT_UTF8, -1, 2},
    {"8to16", UTFKIT_UTF8, UTFKIT_UTF16LE, 0},
    {"8to32", UTFKIT_UTF8, UTFKIT_UTF32LE, 0},
    {"16to8", UTFKIT_UTF16LE, UTFKIT_UTF8, 0},
    {"32to8", UTFKIT_UTF32LE, UTFKIT_UTF8, 0},
    {"16to32", UTFKIT_UTF16LE, UTFKIT_UTF32LE, 0},
    {"32to16", UTFKIT_UTF32LE, UTFKIT_UTF16LE, 0},
    /* the lengths without validation the simdutf comparison also measures
     * (len8to32: 4 x the code points of UTF-8) */
    {"len8to32", UTFKIT_UTF8, UTFKIT_UTF32LE, 3},
    {"len32to8", UTFKIT_UTF32LE, UTFKIT_UTF8, 3},
    {"len8to16", UTFKIT_UTF8, UTFKIT_UTF16LE, 3},
    {"len16to8", UTFKIT_UTF16LE, UTFKIT_UTF8, 3},
    {"len32to8", UTFKIT_UTF32LE, UTFKIT_UTF8, 3},
    {"tlen8to16", UTFKIT_UTF8, UTFKIT_UTF16LE, 4},
    {"tlen16to8", UTFKIT_UTF16LE, UTFKIT_UTF8, 4},
    /* the forms built on UTF-8 (the file converted to them first) */
    {"wtf8validate", UTFKIT_WTF8, -1, 1},
    {"cesu8validate", UTFKIT_CESU8, -1, 1},
    {"mutf8validate", UTFKIT_MUTF8, -1, 1},
    {"wtf8to16", UTFKIT_WTF8, UTFKIT_UTF16LE, 0},
    {"wtf8to32", UTFKIT_WTF8, UTFKIT_UTF32LE, 0},
    {"cesu8to16", UTFKIT_CESU8, UTFKIT_UTF16LE, 0},
    {"cesu8to32", UTFKIT_CESU8, UTFKIT_UTF32LE, 0},
    {"mutf8to16", UTFKIT_MUTF8, UTFKIT_UTF16LE, 0},
    {"mutf8to32", UTFKIT_MUTF8, UTFKIT_UTF32LE, 0},
    {"16tocesu8", UTFKIT_UTF16LE, UTFKIT_CESU8, 0},
    {"16tomutf8", UTFKIT_UTF16LE, UTFKIT_MUTF8, 0},
    {"32tocesu8", UTFKIT_UTF32LE, UTFKIT_CESU8, 0},
    {"32tomutf8", UTFKIT_UTF32LE, UTFKIT_MUTF8, 0},
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
        case 5: sink = utfkit_transcode(src, len, op->input, op->output, UTFKIT_REPLACE, dst, cap).written; break;
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
    size_t cap = 4 * len8 + 64; /* (6 bytes per 4 in CESU-8 and MUTF-8) */
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
