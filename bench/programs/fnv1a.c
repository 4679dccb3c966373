/* SPDX-License-Identifier: Apache-2.0 */
/* fnv1a: 64-bit FNV-1a over a 256-byte stack buffer, 128 passes chained through the
 * hash (byte loads + 64-bit multiply). */
#include "common.h"

#define BUF_LEN 256

BENCH_ENTRY(fnv1a)
{
    (void)ctx;
    u64 passes = 128;
    OPAQUE(passes);
    u8 buf[BUF_LEN];
    u32 seed = 99;
    for (u32 i = 0; i < BUF_LEN; i++)
        buf[i] = (u8)(lcg_next(&seed) >> 24);
    u64 h = 0xcbf29ce484222325ull;
    for (u64 p = 0; p < passes; p++)
        for (u32 i = 0; i < BUF_LEN; i++) {
            h ^= buf[i];
            h *= 0x100000001b3ull;
        }
    return (u32)(h ^ (h >> 32));
}
