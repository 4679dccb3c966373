/* SPDX-License-Identifier: Apache-2.0 */
/* Shared definitions for the baseline micro-benchmarks.
 *
 * Every program file is compiled twice from the same source:
 *   - for eBPF:   clang -O2 -target bpf -mcpu=v3 -c prog.c   (entry in section "socket")
 *   - natively:   gcc -O2 -c prog.c, linked with native_main.c (entry named bench_entry)
 *
 * Constraints kept so that the same bytes run on the Linux verifier/JIT and on uBPF:
 *   - one function per program, everything else always_inline (no BPF-to-BPF calls)
 *   - no global data, no .rodata, no maps  => the "socket" section has no relocations
 *   - only bounded loops whose trip counts are compile-time constants hidden from the
 *     compiler by OPAQUE(); the kernel verifier still sees the exact constant, so it
 *     simulates the run and every program must execute < 1M BPF instructions
 *   - stack use <= 512 bytes
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

typedef unsigned long long u64;
typedef unsigned int u32;
typedef unsigned short u16;
typedef unsigned char u8;

/* Hide a value from constant folding (both compilers); costs no instruction. */
#define OPAQUE(x) __asm__ volatile("" : "+r"(x))

#define ALWAYS_INLINE static inline __attribute__((always_inline))

#if defined(__clang__)
#define NOIPA __attribute__((noinline)) /* clang has no noipa; separate TUs suffice */
#else
#define NOIPA __attribute__((noipa))
#endif

#if defined(__bpf__)
/* Helper #42 is bpf_get_numa_node_id() in Linux (not inlined by the verifier, returns 0
 * here). The uBPF runner registers a host function returning 0 at index 42. */
static u64 (*const bench_helper)(void) = (void *)42;
#define BENCH_ENTRY(name)                                                         \
    char _license[] __attribute__((section("license"), used)) = "GPL";            \
    __attribute__((section("socket"), used)) u32 name(void *ctx)
#else
u64 bench_helper(void); /* defined in native_main.c (separate TU), returns 0 */
#define BENCH_ENTRY(name) NOIPA u32 bench_entry(void *ctx)
#endif

/* Small LCG used to fill buffers with deterministic pseudo-random data. */
ALWAYS_INLINE u32 lcg_next(u32 *state)
{
    *state = *state * 1664525u + 1013904223u;
    return *state;
}

#endif
