/* SPDX-License-Identifier: Apache-2.0 */
/* tnum arithmetic with Linux 6.1's results (see tnum.h for the representation). */
#include <inttypes.h>
#include <stdio.h>
#include "verifier/tnum.h"

struct tnum kbpf_tnum_range(uint64_t min, uint64_t max)
{
	uint64_t chi = min ^ max;
	unsigned bits = chi ? 64 - (unsigned)__builtin_clzll(chi) : 0;

	/* All 64 bits may differ: 2^64 - 1 below would need a 64-bit shift. */
	if (bits > 63)
		return kbpf_tnum_unknown();
	/* Every bit below the highest differing one can take either value. */
	uint64_t delta = (1ULL << bits) - 1;
	return TNUM(min & ~delta, delta);
}

struct tnum kbpf_tnum_lshift(struct tnum a, uint8_t shift)
{
	if (shift >= 64)
		return TNUM(0, 0);
	return TNUM(a.value << shift, a.mask << shift);
}

struct tnum kbpf_tnum_rshift(struct tnum a, uint8_t shift)
{
	if (shift >= 64)
		return TNUM(0, 0);
	return TNUM(a.value >> shift, a.mask >> shift);
}

/* Sign-propagating right shift on the two's-complement pattern, so the result does
 * not depend on how the compiler shifts negative signed numbers. */
static uint64_t sar64(uint64_t x, unsigned k)
{
	if (k > 63)
		k = 63;
	uint64_t r = x >> k;
	if ((x >> 63) && k)
		r |= ~0ULL << (64 - k);
	return r;
}

static uint32_t sar32(uint32_t x, unsigned k)
{
	if (k > 31)
		k = 31;
	uint32_t r = x >> k;
	if ((x >> 31) && k)
		r |= ~0U << (32 - k);
	return r;
}

struct tnum kbpf_tnum_arshift(struct tnum a, uint8_t min_shift, uint8_t insn_bitness)
{
	/* Shifting value and mask separately is exact: an unknown sign bit (mask bit 63
	 * or 31) smears into unknown high bits, a known one into known bits. Shifting by
	 * the minimum shift is what 6.1 does; callers only pass a known shift. */
	if (insn_bitness == 32)
		return TNUM(sar32((uint32_t)a.value, min_shift), sar32((uint32_t)a.mask, min_shift));
	return TNUM(sar64(a.value, min_shift), sar64(a.mask, min_shift));
}

struct tnum kbpf_tnum_add(struct tnum a, struct tnum b)
{
	uint64_t sm = a.mask + b.mask;
	uint64_t sv = a.value + b.value;
	/* Bits where the largest and smallest sums differ are where a carry may or may
	 * not arrive; together with the operands' unknown bits they are unknown. */
	uint64_t chi = (sm + sv) ^ sv;
	uint64_t mu = chi | a.mask | b.mask;
	return TNUM(sv & ~mu, mu);
}

struct tnum kbpf_tnum_sub(struct tnum a, struct tnum b)
{
	uint64_t dv = a.value - b.value;
	/* The largest difference is dv + a.mask, the smallest dv - b.mask; bits where
	 * they differ may see a borrow. */
	uint64_t chi = (dv + a.mask) ^ (dv - b.mask);
	uint64_t mu = chi | a.mask | b.mask;
	return TNUM(dv & ~mu, mu);
}

struct tnum kbpf_tnum_and(struct tnum a, struct tnum b)
{
	uint64_t alpha = a.value | a.mask, beta = b.value | b.mask;
	uint64_t v = a.value & b.value;
	return TNUM(v, alpha & beta & ~v);
}

struct tnum kbpf_tnum_or(struct tnum a, struct tnum b)
{
	uint64_t v = a.value | b.value;
	uint64_t mu = a.mask | b.mask;
	return TNUM(v, mu & ~v);
}

struct tnum kbpf_tnum_xor(struct tnum a, struct tnum b)
{
	uint64_t v = a.value ^ b.value;
	uint64_t mu = a.mask | b.mask;
	return TNUM(v & ~mu, mu);
}

struct tnum kbpf_tnum_mul(struct tnum a, struct tnum b)
{
	/* The product of the known parts is exact; every partial product that involves
	 * an unknown bit is accumulated (as a pure mask) separately, then the two are
	 * added. A known-1 multiplier bit contributes b's unknown bits; an unknown one
	 * contributes every possibly-set bit of b. The loop runs at most 64 times. */
	uint64_t acc_v = a.value * b.value;
	struct tnum acc_m = TNUM(0, 0);

	while (a.value || a.mask) {
		if (a.value & 1)
			acc_m = kbpf_tnum_add(acc_m, TNUM(0, b.mask));
		else if (a.mask & 1)
			acc_m = kbpf_tnum_add(acc_m, TNUM(0, b.value | b.mask));
		a = kbpf_tnum_rshift(a, 1);
		b = kbpf_tnum_lshift(b, 1);
	}
	return kbpf_tnum_add(TNUM(acc_v, 0), acc_m);
}

struct tnum kbpf_tnum_intersect(struct tnum a, struct tnum b)
{
	uint64_t v = a.value | b.value;
	uint64_t mu = a.mask & b.mask;
	return TNUM(v & ~mu, mu);
}

struct tnum kbpf_tnum_cast(struct tnum a, uint8_t size)
{
	if (size >= 8)
		return a;
	uint64_t keep = (1ULL << (size * 8)) - 1;
	return TNUM(a.value & keep, a.mask & keep);
}

bool kbpf_tnum_is_aligned(struct tnum a, uint64_t size)
{
	if (!size)
		return true;
	return !((a.value | a.mask) & (size - 1));
}

bool kbpf_tnum_in(struct tnum a, struct tnum b)
{
	/* b may only be unsure where a is; where a is sure, b must agree. */
	if (b.mask & ~a.mask)
		return false;
	return (b.value & ~a.mask) == a.value;
}

int kbpf_tnum_strn(char *str, size_t size, struct tnum a)
{
	/* Linux 6.12: a known tnum prints as its number (decimal up to 65535). */
	if (a.mask == 0)
		return a.value <= 65535 ? snprintf(str, size, "%" PRIu64, a.value)
					: snprintf(str, size, "0x%" PRIx64, a.value);
	/* "0x%" PRIx64 prints 0 as "0x0", which is the kernel's %#llx, not glibc's. */
	return snprintf(str, size, "(0x%" PRIx64 "; 0x%" PRIx64 ")", a.value, a.mask);
}

int kbpf_tnum_sbin(char *str, size_t size, struct tnum a)
{
	if (!size)
		return 64;
	for (size_t n = 64; n; n--) {
		if (n < size)
			str[n - 1] = (a.mask & 1) ? 'x' : (a.value & 1) ? '1' : '0';
		a.mask >>= 1;
		a.value >>= 1;
	}
	str[size - 1 < 64 ? size - 1 : 64] = 0;
	return 64;
}
