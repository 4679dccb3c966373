/* SPDX-License-Identifier: Apache-2.0 */
/* bubble_sort: fills a 32-element u64 stack array from an LCG and bubble-sorts it;
 * 32 rounds. Data-dependent compare-and-swap on the stack.
 *
 * u64 elements (not u32) so that the kernel verifier tracks the spilled values exactly
 * and follows a single path: with u32 elements the values are unknown to it, every
 * compare pushes a pending branch state and it rejects the program with
 * "The sequence of 8193 jumps is too complex". */
#include "common.h"

#define N 32

BENCH_ENTRY(bubble_sort)
{
    (void)ctx;
    u64 rounds = 32;
    OPAQUE(rounds);
    u64 arr[N];
    u32 seed = 2024;
    u64 h = 0;
    for (u64 r = 0; r < rounds; r++) {
        for (u32 i = 0; i < N; i++)
            arr[i] = lcg_next(&seed) >> 8;
        for (u32 i = 0; i < N - 1; i++)
            for (u32 j = 0; j < N - 1 - i; j++) {
                u64 x = arr[j], y = arr[j + 1];
                if (x > y) {
                    arr[j] = y;
                    arr[j + 1] = x;
                }
            }
        h = h * 31 + arr[0] + arr[N / 2] * 7 + arr[N - 1] * 13;
    }
    return (u32)(h ^ (h >> 32));
}
