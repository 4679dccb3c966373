/* SPDX-License-Identifier: Apache-2.0 */
/* sieve: bit-array sieve of Eratosthenes over 0..2047 (32 x u64 on the stack),
 * then counts primes; repeated 4 times. Variable-index stack loads/stores. */
#include "common.h"

#define SIEVE_WORDS 32
#define SIEVE_N (SIEVE_WORDS * 64)

BENCH_ENTRY(sieve)
{
    (void)ctx;
    u64 reps = 4;
    OPAQUE(reps);
    u32 result = 0;
    for (u64 r = 0; r < reps; r++) {
        u64 bits[SIEVE_WORDS]; /* bit set => composite */
        for (u32 i = 0; i < SIEVE_WORDS; i++)
            bits[i] = 0;
        bits[0] = 3; /* 0 and 1 are not prime */
        for (u32 p = 2; p < 46; p++) { /* 46*46 > 2047 */
            if (bits[p >> 6] & (1ull << (p & 63)))
                continue;
            for (u32 m = p * p; m < SIEVE_N; m += p)
                bits[m >> 6] |= 1ull << (m & 63);
        }
        u32 count = 0;
        for (u32 i = 0; i < SIEVE_N; i++)
            count += !((bits[i >> 6] >> (i & 63)) & 1);
        result = result * 31 + count;
    }
    return result;
}
