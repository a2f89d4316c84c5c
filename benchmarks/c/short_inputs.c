/*
 * short_inputs.c -- what utfkit_transcode costs a call on short UTF-16 and
 * UTF-32 inputs (16..256 bytes): what the Python encode of a str with 2- or
 * 4-byte storage hands the core; and on short UTF-8 inputs into UTF-16LE
 * and UTF-32LE (what decode hands it).  ns per call, per pair, per text, per
 * size, per kernel; every round runs every size of a (pair, text) once on
 * each kernel, in turn (interleaved), and the figure is the best round
 * (thread CPU time).
 *
 *   cc -O3 -falign-functions=64 -Icsrc -o /tmp/short_inputs benchmarks/c/short_inputs.c csrc/[a-z]*.c csrc/simd/[a-z]*.c
 *   /tmp/short_inputs [KERNEL,KERNEL...]       (default: avx512,avx2,sse4 where available)
 *
 * Pairs: UTF-16LE -> UTF-8 and UTF-32LE -> UTF-8 (the encode case),
 * UTF-16LE -> UTF-32LE and UTF-32LE -> UTF-16LE, UTF-8 -> UTF-16LE and
 * UTF-8 -> UTF-32LE (the decode case).  Texts: ASCII; Cyrillic
 * with a space every 6 characters; CJK; emoji (U+1F600.., a surrogate pair
 * each in UTF-16) with a space every 4.  Sizes are of the input, cut down
 * to whole characters.  The room is the worst case plus 128 bytes (what
 * src/utfkit/_direct.h gives, ROOM_SLACK).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call_cost.h"

#define CHARS 128
#define ROUNDS 11
#define MAX_KERNELS 6

static const size_t sizes[] = {16, 32, 48, 64, 96, 128, 192, 256};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* The text `t` as code points: CHARS of them. */
static void make_text(int t, uint32_t *cp)
{
    for (size_t k = 0; k < CHARS; k++) {
        switch (t) {
        case 0: cp[k] = 'a' + k % 26; break;
        case 1: cp[k] = k % 6 == 5 ? ' ' : 0x430 + k % 32; break;
        case 2: cp[k] = 0x4E00 + (uint32_t)(k * 37 % 2000); break;
        default: cp[k] = k % 4 == 3 ? ' ' : 0x1F600 + k % 64; break;
        }
    }
}

int main(int argc, char **argv)
{
    const char *names[MAX_KERNELS];
    size_t kernels = 0;
    static char list[256];
    snprintf(list, sizeof list, "%s", argc > 1 ? argv[1] : "avx512,avx2,sse4");
    for (char *name = strtok(list, ","); name != NULL && kernels < MAX_KERNELS; name = strtok(NULL, ","))
        if (utfkit_backend_available(name))
            names[kernels++] = name;
        else
            fprintf(stderr, "kernel %s unavailable, left out\n", name);
    if (kernels == 0)
        return 2;
    static const char *text_names[] = {"ascii", "cyrillic", "cjk", "emoji"};
    static const struct {
        const char *name;
        int from, to;
        size_t unit, worst_per_byte;
    } pairs[] = {
        {"UTF-16LE -> UTF-8", UTFKIT_UTF16LE, UTFKIT_UTF8, 2, 2},
        {"UTF-32LE -> UTF-8", UTFKIT_UTF32LE, UTFKIT_UTF8, 4, 1},
        {"UTF-16LE -> UTF-32LE", UTFKIT_UTF16LE, UTFKIT_UTF32LE, 2, 2},
        {"UTF-32LE -> UTF-16LE", UTFKIT_UTF32LE, UTFKIT_UTF16LE, 4, 1},
        {"UTF-8 -> UTF-16LE", UTFKIT_UTF8, UTFKIT_UTF16LE, 1, 2},
        {"UTF-8 -> UTF-32LE", UTFKIT_UTF8, UTFKIT_UTF32LE, 1, 4},
    };
    static uint32_t cp[CHARS];
    static uint8_t src[4 * CHARS + 64], dst[4096];
    printf("ns per call (best of %d interleaved rounds); room: worst case + 128\n", ROUNDS);
    printf("%-22s %-9s %-7s", "pair", "text", "kernel");
    for (size_t s = 0; s < NSIZES; s++)
        printf(" %6zu", sizes[s]);
    printf("\n");
    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++)
        for (int t = 0; t < 4; t++) {
            make_text(t, cp);
            size_t full = utfkit_transcode((const uint8_t *)cp, sizeof cp, UTFKIT_UTF32LE, pairs[p].from,
                                           UTFKIT_STRICT, src, sizeof src).written;
            size_t lens[NSIZES];
            for (size_t s = 0; s < NSIZES; s++) {
                size_t len = sizes[s] < full ? sizes[s] : full;
                /* whole characters: no lead surrogate last */
                if (pairs[p].unit == 2 && (src[len - 1] & 0xFC) == 0xD8)
                    len -= 2;
                /* (UTF-8: no continuation byte first after the cut) */
                while (pairs[p].unit == 1 && len < full && (src[len] & 0xC0) == 0x80)
                    len--;
                lens[s] = len;
            }
            double best[MAX_KERNELS][NSIZES];
            for (size_t k = 0; k < kernels; k++)
                for (size_t s = 0; s < NSIZES; s++)
                    best[k][s] = 1e30;
            for (int r = 0; r < ROUNDS; r++)
                for (size_t k = 0; k < kernels; k++) {
                    utfkit_set_backend(names[k]);
                    for (size_t s = 0; s < NSIZES; s++) {
                        long calls = 4000000 / (long)(lens[s] + 64);
                        double ns = ns_per_call(src, lens[s], pairs[p].from, pairs[p].to, dst,
                                                pairs[p].worst_per_byte * lens[s] + 128, calls);
                        if (ns < best[k][s])
                            best[k][s] = ns;
                    }
                }
            for (size_t k = 0; k < kernels; k++) {
                printf("%-22s %-9s %-7s", pairs[p].name, text_names[t], names[k]);
                for (size_t s = 0; s < NSIZES; s++)
                    printf(" %6.1f", best[k][s]);
                printf("\n");
            }
        }
    return 0;
}
