/*
 * call_cost.h -- what the programs here that time one utfkit_transcode
 * call at a time share (exact_room_cost.c, short_inputs.c): the thread's
 * CPU clock, and ns per call of one conversion repeated.
 */
#ifndef UTFKIT_BENCH_CALL_COST_H
#define UTFKIT_BENCH_CALL_COST_H

#include <stdint.h>
#include <time.h>

#include "utfkit.h"

static double thread_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static volatile size_t keep;

/* ns per call of one conversion into dst[0..cap), over `calls` calls */
static double ns_per_call(const uint8_t *src, size_t len, int from, int to, uint8_t *dst, size_t cap,
                          long calls)
{
    double start = thread_seconds();
    for (long c = 0; c < calls; c++)
        keep = utfkit_transcode(src, len, from, to, UTFKIT_STRICT, dst, cap).written;
    return (thread_seconds() - start) * 1e9 / (double)calls;
}

#endif /* UTFKIT_BENCH_CALL_COST_H */
