/*
 * replay.c -- runs a fuzz target's LLVMFuzzerTestOneInput on given files,
 * without libFuzzer: how tests/test_fuzz_regressions.py replays the kept
 * crashing inputs (fuzz/regressions/) and the seeds with any C compiler.
 *
 *     cc -Icsrc fuzz/replay.c fuzz/fuzz_stream.c csrc/*.c csrc/simd/*.c
 *     ./a.out FILE...
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        FILE *file = fopen(argv[i], "rb");
        if (file == NULL) {
            perror(argv[i]);
            return 2;
        }
        uint8_t *data = NULL;
        size_t size = 0, room = 0, got;
        do {
            if (size == room) {
                room = room ? 2 * room : 4096;
                data = realloc(data, room);
                if (data == NULL)
                    return 2;
            }
            got = fread(data + size, 1, room - size, file);
            size += got;
        } while (got != 0);
        fclose(file);
        LLVMFuzzerTestOneInput(data, size);
        free(data);
    }
    printf("replayed %d inputs\n", argc - 1);
    return 0;
}
