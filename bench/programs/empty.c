/* SPDX-License-Identifier: Apache-2.0 */
/* empty: returns 0; measures the fixed per-invocation cost of each engine. */
#include "common.h"

BENCH_ENTRY(empty)
{
    (void)ctx;
    return 0;
}
