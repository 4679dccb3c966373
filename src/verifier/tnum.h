/* SPDX-License-Identifier: Apache-2.0 */
/* tnum ("tristate number"): what the verifier knows about the bits of a 64-bit value.
 *
 * A tnum is a pair (value, mask).  A bit set in mask is unknown; otherwise the bit
 * is known and equals the same bit of value.  value never has a bit set where mask
 * has one.  The set of numbers a tnum stands for is { value | m : m ⊆ mask }.
 *
 * The operations and their results are those of Linux 6.1 (kernel/bpf/tnum.c),
 * because the verifier's verdicts and its log (which prints tnums) must match
 * Linux's bit for bit.  Where a Linux function has undefined C behaviour for an
 * argument its callers never pass (shift counts >= 64, a cast to 8 bytes), ours is
 * given a defined result and the contract says so.
 *
 * 6.1 has no kbpf_tnum_union and no kbpf_tnum_with_subreg; kbpf_tnum_with_subreg below is only a
 * name for the expression 6.1's reg_set_min_max writes out inline. */
#ifndef KBPF_VERIFIER_TNUM_H
#define KBPF_VERIFIER_TNUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tnum {
	uint64_t value;
	uint64_t mask;
};

#define TNUM(v, m) ((struct tnum){ .value = (v), .mask = (m) })

/* Longest text kbpf_tnum_strn() produces, NUL included: "(0x" 16 "; 0x" 16 ")". */
#define TNUM_STR_MAX 41

/* The known constant v. */
static inline struct tnum kbpf_tnum_const(uint64_t v)
{
	return TNUM(v, 0);
}

/* The completely unknown value (0; ~0). */
static inline struct tnum kbpf_tnum_unknown(void)
{
	return TNUM(0, ~0ULL);
}

/* True if every bit of a is known. */
static inline bool kbpf_tnum_is_const(struct tnum a)
{
	return a.mask == 0;
}

/* True if a is exactly the constant b. */
static inline bool kbpf_tnum_equals_const(struct tnum a, uint64_t b)
{
	return kbpf_tnum_is_const(a) && a.value == b;
}

/* True if no bit of a is known. */
static inline bool kbpf_tnum_is_unknown(struct tnum a)
{
	return a.mask == ~0ULL;
}

/* A tnum containing every value in [min, max] (and possibly more: the bits below the
 * highest bit where min and max differ all become unknown).  min > max is not a
 * range; the result is then still defined (same formula) but meaningless. */
struct tnum kbpf_tnum_range(uint64_t min, uint64_t max);

/* a << shift and a >> shift (logical), on both halves.  shift >= 64 gives 0 (Linux's
 * callers never shift that far; C would be undefined). */
struct tnum kbpf_tnum_lshift(struct tnum a, uint8_t shift);
struct tnum kbpf_tnum_rshift(struct tnum a, uint8_t shift);

/* Arithmetic right shift of a by min_shift, for an insn of insn_bitness 32 or 64.
 * For 32, both halves are taken as s32 and the result is zero-extended from 32 bits,
 * as 6.1 does.  A shift at or beyond the width fills with the sign (defined here,
 * never reached by the verifier). */
struct tnum kbpf_tnum_arshift(struct tnum a, uint8_t min_shift, uint8_t insn_bitness);

/* a + b, a - b, a * b, a & b, a | b, a ^ b: a tnum containing every result of the
 * concrete operation (mod 2^64) on members of a and b. mul is 6.1's long
 * multiplication over partial products (arXiv 2105.05398). */
struct tnum kbpf_tnum_add(struct tnum a, struct tnum b);
struct tnum kbpf_tnum_sub(struct tnum a, struct tnum b);
struct tnum kbpf_tnum_mul(struct tnum a, struct tnum b);
struct tnum kbpf_tnum_and(struct tnum a, struct tnum b);
struct tnum kbpf_tnum_or(struct tnum a, struct tnum b);
struct tnum kbpf_tnum_xor(struct tnum a, struct tnum b);

/* The values in both a and b.  Where a and b disagree on a known bit the result has
 * it known 1 (Linux's quirk; only reached on dead paths). */
struct tnum kbpf_tnum_intersect(struct tnum a, struct tnum b);

/* a with all but its low `size` bytes cleared; size >= 8 returns a unchanged. */
struct tnum kbpf_tnum_cast(struct tnum a, uint8_t size);

/* True if every member of a is a multiple of size (a power of two; 0 gives true). */
bool kbpf_tnum_is_aligned(struct tnum a, uint64_t size);

/* True if b's members are all members of a ("b ⊆ a"). */
bool kbpf_tnum_in(struct tnum a, struct tnum b);

/* The low 32 bits of a (upper 32 known zero). */
static inline struct tnum kbpf_tnum_subreg(struct tnum a)
{
	return TNUM(a.value & 0xffffffffULL, a.mask & 0xffffffffULL);
}

/* a with its low 32 bits known zero. */
static inline struct tnum kbpf_tnum_clear_subreg(struct tnum a)
{
	return TNUM(a.value & ~0xffffffffULL, a.mask & ~0xffffffffULL);
}

/* a's upper 32 bits with the low 32 bits of sub (6.1: kbpf_tnum_or(clear_subreg(a),
 * subreg(sub)), written inline in reg_set_min_max). */
static inline struct tnum kbpf_tnum_with_subreg(struct tnum a, struct tnum sub)
{
	struct tnum hi = kbpf_tnum_clear_subreg(a), lo = kbpf_tnum_subreg(sub);
	return TNUM(hi.value | lo.value, (hi.mask | lo.mask) & ~(hi.value | lo.value));
}

/* a's upper 32 bits with the low 32 bits known to be v. */
static inline struct tnum kbpf_tnum_const_subreg(struct tnum a, uint32_t v)
{
	return kbpf_tnum_with_subreg(a, kbpf_tnum_const(v));
}

/* True if the low 32 bits of a are all known. */
static inline bool kbpf_tnum_subreg_is_const(struct tnum a)
{
	return kbpf_tnum_subreg(a).mask == 0;
}

/* Formats a as Linux's "(%#llx; %#llx)" does, where the kernel's %#llx prints 0 as
 * "0x0" (glibc would print "0"): "(0x0; 0xff)".  snprintf contract: writes at most
 * size bytes including the NUL, returns the length the whole text has. */
int kbpf_tnum_strn(char *str, size_t size, struct tnum a);

/* Formats a as 64 characters '0', '1' or 'x', most significant bit first.
 * snprintf contract; always returns 64. */
int kbpf_tnum_sbin(char *str, size_t size, struct tnum a);

#endif
