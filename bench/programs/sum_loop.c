/* SPDX-License-Identifier: Apache-2.0 */
/* sum_loop: 50,000 iterations of a dependent add/xor/shift chain (no closed form,
 * so neither compiler can replace the loop). Pure ALU + one back-edge per iteration. */
#include "common.h"

BENCH_ENTRY(sum_loop)
{
    (void)ctx;
    u64 n = 50000;
    OPAQUE(n);
    u64 s = 1;
    for (u64 i = 0; i < n; i++)
        s += i ^ (s >> 3);
    return (u32)(s ^ (s >> 32));
}
