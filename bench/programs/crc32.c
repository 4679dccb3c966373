/* SPDX-License-Identifier: Apache-2.0 */
/* crc32: bitwise (table-less) CRC-32 (poly 0xEDB88320) over a 256-byte stack buffer
 * filled by an LCG; 16 passes chained through the running CRC.
 *
 * The buffer is kept as 32 u64 words and bytes are extracted by shifts. A plain
 * u8 buf[256] version compiled by clang 14 to "w &= 1; w = -w; w &= 0xEDB88320" on a
 * value the verifier cannot know, and that sequence made the 6.18.44 verifier oops
 * (NULL dereference in maybe_fork_scalars). With u64 words the verifier tracks the
 * spilled constants exactly and never reaches that path. */
#include "common.h"

#define BUF_WORDS 32

BENCH_ENTRY(crc32)
{
    (void)ctx;
    u64 passes = 16;
    OPAQUE(passes);
    u64 buf[BUF_WORDS];
    u32 seed = 12345;
    for (u32 i = 0; i < BUF_WORDS; i++) {
        u64 w = lcg_next(&seed);
        buf[i] = (w << 32) | lcg_next(&seed);
    }
    u32 crc = 0xFFFFFFFFu;
    for (u64 p = 0; p < passes; p++) {
        for (u32 i = 0; i < BUF_WORDS * 8; i++) {
            crc ^= (u32)(buf[i >> 3] >> ((i & 7) * 8)) & 0xFFu;
            for (u32 k = 0; k < 8; k++)
                crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
        }
    }
    return ~crc;
}
