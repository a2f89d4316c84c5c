/*
 * exact_room_cost.c -- what a C caller pays for giving utfkit_transcode
 * exactly the room its output needs, or exactly the worst case, rather
 * than more: near the end of the room the readers stage their steps
 * (csrc/sink_drive.h).  ns per call for short inputs, three rooms side by
 * side in interleaved rounds (thread CPU time, the best of the rounds).
 *
 *   cc -O3 -falign-functions=64 -Icsrc -o /tmp/exact_room_cost benchmarks/c/exact_room_cost.c csrc/[a-z]*.c csrc/simd/[a-z]*.c
 *   /tmp/exact_room_cost [KERNEL]
 *
 * Texts: ASCII, and Cyrillic with a space every 6 characters, as UTF-8,
 * converted to UTF-16LE and UTF-32LE; and that UTF-16LE into UTF-8.
 * Rooms: the exact output length; the worst case the reader plans for
 * (2 bytes per UTF-8 byte into UTF-16, 4 into UTF-32, 2 per UTF-16 byte
 * into UTF-8); and that plus 128 bytes (what src/utfkit/_direct.h gives,
 * ROOM_SLACK).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call_cost.h"

int main(int argc, char **argv)
{
    if (argc > 1 && utfkit_set_backend(argv[1]) != 0) {
        fprintf(stderr, "unknown or unavailable kernel %s\n", argv[1]);
        return 2;
    }
    static const size_t sizes[] = {16, 32, 64, 100, 128, 256, 1024};
    static uint8_t ascii[1024], cyrillic[1100], cyrillic16[2200], dst[8192];
    for (size_t k = 0; k < sizeof ascii; k++)
        ascii[k] = (uint8_t)('a' + k % 26);
    for (size_t k = 0; k + 2 <= sizeof cyrillic; k += 2) {
        if (k % 12 == 10) { /* a space every 6 characters, and the pair's second byte a letter too */
            cyrillic[k] = ' ';
            cyrillic[k + 1] = 'a';
        } else {
            cyrillic[k] = 0xD0;
            cyrillic[k + 1] = (uint8_t)(0xB0 + k / 2 % 16);
        }
    }
    size_t len16 = utfkit_transcode(cyrillic, 1024, UTFKIT_UTF8, UTFKIT_UTF16LE, UTFKIT_STRICT, cyrillic16,
                                    sizeof cyrillic16).written;
    printf("kernel %s; ns per call (best of 15 rounds); rooms: exact / worst case / worst case + 128\n",
           utfkit_backend());
    printf("%-26s %6s %8s %8s %8s\n", "conversion", "bytes", "exact", "worst", "+128");
    static const struct {
        const char *name;
        int text, from, to;
        size_t worst_per_byte;
    } cases[] = {
        {"UTF-8 ASCII -> UTF-16LE", 0, UTFKIT_UTF8, UTFKIT_UTF16LE, 2},
        {"UTF-8 ASCII -> UTF-32LE", 0, UTFKIT_UTF8, UTFKIT_UTF32LE, 4},
        {"UTF-8 Cyrillic -> UTF-16LE", 1, UTFKIT_UTF8, UTFKIT_UTF16LE, 2},
        {"UTF-16LE Cyrillic -> UTF-8", 2, UTFKIT_UTF16LE, UTFKIT_UTF8, 2},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            const uint8_t *src = cases[c].text == 0 ? ascii : cases[c].text == 1 ? cyrillic : cyrillic16;
            size_t len = sizes[s];
            if (cases[c].text == 2 && 2 * len > len16)
                continue;
            if (cases[c].text == 2)
                len *= 2; /* as many characters as the UTF-8 of the same size has bytes, about */
            if (cases[c].text == 1 && (src[len - 1] & 0xC0) == 0xC0)
                len--; /* whole characters */
            size_t exact = utfkit_transcoded_length(src, len, cases[c].from, cases[c].to, UTFKIT_STRICT).written;
            size_t rooms[3] = {exact, cases[c].worst_per_byte * len, cases[c].worst_per_byte * len + 128};
            double best[3] = {1e30, 1e30, 1e30};
            long calls = 20000000 / (long)(len + 64);
            for (int r = 0; r < 15; r++)
                for (int m = 0; m < 3; m++) {
                    double ns = ns_per_call(src, len, cases[c].from, cases[c].to, dst, rooms[m], calls);
                    if (ns < best[m])
                        best[m] = ns;
                }
            printf("%-26s %6zu %8.1f %8.1f %8.1f\n", cases[c].name, len, best[0], best[1], best[2]);
        }
    return 0;
}
