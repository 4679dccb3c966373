/* SPDX-License-Identifier: Apache-2.0 */
/* Native timing harness: links one program file compiled with gcc (BENCH_ENTRY ->
 * bench_entry) and reports ns per call, in the same "RUN ..." format as the kernel
 * and uBPF runners.
 *
 * usage: native_<prog> [REPEAT [ROUNDS [cpu|wall]]]   (REPEAT 0 or absent = calibrate to
 * ~50 ms; rounds are timed in this thread's CPU time with "cpu", else in wall time) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common.h"

u32 bench_entry(void *ctx);

/* The "external function" of helper_calls.c; lives in this separate translation unit and
 * is NOIPA, so the compiler can neither inline nor hoist it out of the loop. */
volatile u64 bench_helper_value = 0;
NOIPA u64 bench_helper(void) { return bench_helper_value; }

static clockid_t round_clock = CLOCK_MONOTONIC;

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(round_clock, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    unsigned repeat = argc > 1 ? strtoul(argv[1], 0, 0) : 0;
    unsigned rounds = argc > 2 ? strtoul(argv[2], 0, 0) : 1;
    /* the time this thread ran, not the time other jobs of a busy machine ran */
    if (argc > 3 && !strcmp(argv[3], "cpu"))
        round_clock = CLOCK_THREAD_CPUTIME_ID;
    static unsigned char ctx[64];
    volatile u32 sink = 0;
    u32 ret = bench_entry(ctx);
    if (!repeat) {
        for (repeat = 1;; repeat *= 2) {
            double t0 = now_ns();
            for (unsigned i = 0; i < repeat; i++)
                sink += bench_entry(ctx);
            if (now_ns() - t0 > 50e6)
                break;
        }
    }
    for (unsigned r = 0; r < rounds; r++) {
        double t0 = now_ns();
        for (unsigned i = 0; i < repeat; i++)
            sink += bench_entry(ctx);
        double t1 = now_ns();
        printf("RUN retval=0x%x repeat=%u duration_ns=%.2f\n", ret, repeat, (t1 - t0) / repeat);
    }
    (void)sink;
    return 0;
}
