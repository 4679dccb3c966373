/* SPDX-License-Identifier: Apache-2.0 */
/* collatz: total Collatz steps for every start value 1..499 (each capped at 1000
 * steps). Data-dependent branches, shifts, multiply-add. */
#include "common.h"

BENCH_ENTRY(collatz)
{
    (void)ctx;
    u64 limit = 500;
    OPAQUE(limit);
    u64 total = 0;
    for (u64 start = 1; start < limit; start++) {
        u64 x = start;
        for (u32 step = 0; step < 1000 && x != 1; step++) {
            x = (x & 1) ? 3 * x + 1 : x >> 1;
            total++;
        }
    }
    return (u32)total;
}
