/* SPDX-License-Identifier: Apache-2.0 */
/* helper_calls: 1000 calls to an external function (kernel: helper #42
 * bpf_get_numa_node_id; uBPF: registered host function; native: noipa function). */
#include "common.h"

BENCH_ENTRY(helper_calls)
{
    (void)ctx;
    u64 n = 1000;
    OPAQUE(n);
    u64 s = 0;
    for (u64 i = 0; i < n; i++)
        s = s * 33 + bench_helper() + i;
    return (u32)(s ^ (s >> 32));
}
