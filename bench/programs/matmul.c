/* SPDX-License-Identifier: Apache-2.0 */
/* matmul: 5x5 u32 matrix multiply C = A*B on the stack, 256 times, feeding C back
 * into A each round (multiply/add heavy, nested fixed-size loops). */
#include "common.h"

#define DIM 5

BENCH_ENTRY(matmul)
{
    (void)ctx;
    u64 rounds = 256;
    OPAQUE(rounds);
    u32 a[DIM][DIM], b[DIM][DIM], c[DIM][DIM];
    u32 seed = 7;
    for (u32 i = 0; i < DIM; i++)
        for (u32 j = 0; j < DIM; j++) {
            a[i][j] = lcg_next(&seed) >> 20;
            b[i][j] = lcg_next(&seed) >> 20;
        }
    for (u64 r = 0; r < rounds; r++) {
        for (u32 i = 0; i < DIM; i++)
            for (u32 j = 0; j < DIM; j++) {
                u32 acc = 0;
                for (u32 k = 0; k < DIM; k++)
                    acc += a[i][k] * b[k][j];
                c[i][j] = acc;
            }
        for (u32 i = 0; i < DIM; i++)
            for (u32 j = 0; j < DIM; j++)
                a[i][j] = (c[i][j] >> 3) + (u32)r;
    }
    u32 h = 0;
    for (u32 i = 0; i < DIM; i++)
        for (u32 j = 0; j < DIM; j++)
            h = h * 31 + c[i][j];
    return h;
}
