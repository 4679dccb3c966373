/* SPDX-License-Identifier: Apache-2.0 */
/* Small arithmetic on bound values, shared by the scalar domain's files: the limits,
 * min/max per type, and two's-complement wrapping add/sub/shift that C leaves
 * undefined on signed types (Linux builds with -fno-strict-overflow and relies on
 * wrapping; we do the arithmetic on unsigned types instead). */
#ifndef KBPF_VERIFIER_BOUNDS_MATH_H
#define KBPF_VERIFIER_BOUNDS_MATH_H

#include <stdbool.h>
#include <stdint.h>

#ifndef S64_MIN
#define S64_MIN INT64_MIN
#endif
#ifndef S64_MAX
#define S64_MAX INT64_MAX
#endif
#ifndef U64_MAX
#define U64_MAX UINT64_MAX
#endif
#ifndef S32_MIN
#define S32_MIN INT32_MIN
#endif
#ifndef S32_MAX
#define S32_MAX INT32_MAX
#endif
#ifndef U32_MAX
#define U32_MAX UINT32_MAX
#endif
#ifndef U16_MAX
#define U16_MAX 0xffffU
#endif

static inline int64_t s64_max(int64_t a, int64_t b) { return a > b ? a : b; }
static inline int64_t s64_min(int64_t a, int64_t b) { return a < b ? a : b; }
static inline uint64_t u64_max(uint64_t a, uint64_t b) { return a > b ? a : b; }
static inline uint64_t u64_min(uint64_t a, uint64_t b) { return a < b ? a : b; }
static inline int32_t s32_max(int32_t a, int32_t b) { return a > b ? a : b; }
static inline int32_t s32_min(int32_t a, int32_t b) { return a < b ? a : b; }
static inline uint32_t u32_max(uint32_t a, uint32_t b) { return a > b ? a : b; }
static inline uint32_t u32_min(uint32_t a, uint32_t b) { return a < b ? a : b; }

/* Wrapping signed arithmetic (two's complement). */
static inline int64_t s64_add(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static inline int64_t s64_sub(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
static inline int32_t s32_add(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
static inline int32_t s32_sub(int32_t a, int32_t b) { return (int32_t)((uint32_t)a - (uint32_t)b); }

/* Arithmetic right shift of a signed value by k < width (k is clamped: the callers
 * only pass shifts below the width, except from states that contradict themselves). */
static inline int64_t s64_sar(int64_t a, uint64_t k)
{
	if (k > 63)
		k = 63;
	return a < 0 ? ~(int64_t)(~(uint64_t)a >> k) : (int64_t)((uint64_t)a >> k);
}

static inline int32_t s32_sar(int32_t a, uint64_t k)
{
	if (k > 31)
		k = 31;
	return a < 0 ? ~(int32_t)(~(uint32_t)a >> k) : (int32_t)((uint32_t)a >> k);
}

/* Logical shifts of a u32 bound; a count of 32 or more cannot come from a consistent
 * state, and gives 0 rather than C's undefined result. */
static inline uint32_t u32_shl(uint32_t a, uint64_t k) { return k > 31 ? 0 : a << k; }
static inline uint32_t u32_shr(uint32_t a, uint64_t k) { return k > 31 ? 0 : a >> k; }

#endif
