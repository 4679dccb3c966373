/* SPDX-License-Identifier: Apache-2.0 */
/* ALU transfer functions of the scalar domain: 6.12's adjust_scalar_min_max_vals and
 * the scalar parts of check_alu_op (see scalar.h). */
#include <linux/bpf.h>
#include "verifier/bounds_math.h"
#include "verifier/scalar.h"

/* Does a + b (a - b) overflow as s64 / s32? (6.1: signed_add_overflows & co.) */
static bool add_overflows64(int64_t a, int64_t b)
{
	int64_t res = s64_add(a, b);
	return b < 0 ? res > a : res < a;
}

static bool add_overflows32(int32_t a, int32_t b)
{
	int32_t res = s32_add(a, b);
	return b < 0 ? res > a : res < a;
}

static bool sub_overflows64(int64_t a, int64_t b)
{
	int64_t res = s64_sub(a, b);
	return b < 0 ? res < a : res > a;
}

static bool sub_overflows32(int32_t a, int32_t b)
{
	int32_t res = s32_sub(a, b);
	return b < 0 ? res < a : res > a;
}

/* ------------------------------------------------------------------ ALU bounds */

/* Each op has a 32-bit and a 64-bit bound function, run on the same dst: the 32-bit
 * one on the low halves (meaningful for ALU64 too, since the low half of the result
 * depends only on the low halves), then the 64-bit one. var_off is computed by the
 * caller before (MUL, AND, OR, XOR) or after (ADD, SUB) them, as 6.1 orders it. */

static void add32(struct scalar *d, const struct scalar *s)
{
	if (add_overflows32(d->s32_min_value, s->s32_min_value) ||
	    add_overflows32(d->s32_max_value, s->s32_max_value)) {
		d->s32_min_value = S32_MIN;
		d->s32_max_value = S32_MAX;
	} else {
		d->s32_min_value = s32_add(d->s32_min_value, s->s32_min_value);
		d->s32_max_value = s32_add(d->s32_max_value, s->s32_max_value);
	}
	if ((uint32_t)(d->u32_min_value + s->u32_min_value) < s->u32_min_value ||
	    (uint32_t)(d->u32_max_value + s->u32_max_value) < s->u32_max_value) {
		d->u32_min_value = 0;
		d->u32_max_value = U32_MAX;
	} else {
		d->u32_min_value += s->u32_min_value;
		d->u32_max_value += s->u32_max_value;
	}
}

static void add64(struct scalar *d, const struct scalar *s)
{
	if (add_overflows64(d->smin_value, s->smin_value) ||
	    add_overflows64(d->smax_value, s->smax_value)) {
		d->smin_value = S64_MIN;
		d->smax_value = S64_MAX;
	} else {
		d->smin_value = s64_add(d->smin_value, s->smin_value);
		d->smax_value = s64_add(d->smax_value, s->smax_value);
	}
	if (d->umin_value + s->umin_value < s->umin_value ||
	    d->umax_value + s->umax_value < s->umax_value) {
		d->umin_value = 0;
		d->umax_value = U64_MAX;
	} else {
		d->umin_value += s->umin_value;
		d->umax_value += s->umax_value;
	}
}

static void sub32(struct scalar *d, const struct scalar *s)
{
	if (sub_overflows32(d->s32_min_value, s->s32_max_value) ||
	    sub_overflows32(d->s32_max_value, s->s32_min_value)) {
		d->s32_min_value = S32_MIN;
		d->s32_max_value = S32_MAX;
	} else {
		d->s32_min_value = s32_sub(d->s32_min_value, s->s32_max_value);
		d->s32_max_value = s32_sub(d->s32_max_value, s->s32_min_value);
	}
	if (d->u32_min_value < s->u32_max_value) {
		/* May borrow past zero. */
		d->u32_min_value = 0;
		d->u32_max_value = U32_MAX;
	} else {
		d->u32_min_value -= s->u32_max_value;
		d->u32_max_value -= s->u32_min_value;
	}
}

static void sub64(struct scalar *d, const struct scalar *s)
{
	if (sub_overflows64(d->smin_value, s->smax_value) ||
	    sub_overflows64(d->smax_value, s->smin_value)) {
		d->smin_value = S64_MIN;
		d->smax_value = S64_MAX;
	} else {
		d->smin_value = s64_sub(d->smin_value, s->smax_value);
		d->smax_value = s64_sub(d->smax_value, s->smin_value);
	}
	if (d->umin_value < s->umax_value) {
		d->umin_value = 0;
		d->umax_value = U64_MAX;
	} else {
		d->umin_value -= s->umax_value;
		d->umax_value -= s->umin_value;
	}
}

static void mul32(struct scalar *d, const struct scalar *s)
{
	/* 6.1 only multiplies bounds of two non-negative operands below 2^16, where the
	 * product cannot wrap. */
	if (s->s32_min_value < 0 || d->s32_min_value < 0) {
		kbpf_scalar_mark_unbounded32(d);
		return;
	}
	if (s->u32_max_value > U16_MAX || d->u32_max_value > U16_MAX) {
		kbpf_scalar_mark_unbounded32(d);
		return;
	}
	d->u32_min_value *= s->u32_min_value;
	d->u32_max_value *= s->u32_max_value;
	if (d->u32_max_value > (uint32_t)S32_MAX) {
		d->s32_min_value = S32_MIN;
		d->s32_max_value = S32_MAX;
	} else {
		d->s32_min_value = (int32_t)d->u32_min_value;
		d->s32_max_value = (int32_t)d->u32_max_value;
	}
}

static void mul64(struct scalar *d, const struct scalar *s)
{
	if (s->smin_value < 0 || d->smin_value < 0) {
		kbpf_scalar_mark_unbounded64(d);
		return;
	}
	if (s->umax_value > U32_MAX || d->umax_value > U32_MAX) {
		kbpf_scalar_mark_unbounded64(d);
		return;
	}
	d->umin_value *= s->umin_value;
	d->umax_value *= s->umax_value;
	if (d->umax_value > (uint64_t)S64_MAX) {
		d->smin_value = S64_MIN;
		d->smax_value = S64_MAX;
	} else {
		d->smin_value = (int64_t)d->umin_value;
		d->smax_value = (int64_t)d->umax_value;
	}
}

/* The bitwise ops compute the unsigned result first; it is also the signed one when
 * it does not cross the sign boundary, else the signed bounds are unknown (6.12; 6.1
 * gave up on the signed bounds whenever an operand could be negative). */
static void signed_from_unsigned32(struct scalar *d)
{
	if ((int32_t)d->u32_min_value <= (int32_t)d->u32_max_value) {
		d->s32_min_value = (int32_t)d->u32_min_value;
		d->s32_max_value = (int32_t)d->u32_max_value;
	} else {
		d->s32_min_value = S32_MIN;
		d->s32_max_value = S32_MAX;
	}
}

static void signed_from_unsigned64(struct scalar *d)
{
	if ((int64_t)d->umin_value <= (int64_t)d->umax_value) {
		d->smin_value = (int64_t)d->umin_value;
		d->smax_value = (int64_t)d->umax_value;
	} else {
		d->smin_value = S64_MIN;
		d->smax_value = S64_MAX;
	}
}

static void and32(struct scalar *d, const struct scalar *s)
{
	bool src_known = kbpf_tnum_subreg_is_const(s->var_off);
	bool dst_known = kbpf_tnum_subreg_is_const(d->var_off);
	struct tnum v = kbpf_tnum_subreg(d->var_off);

	if (src_known && dst_known) {
		kbpf_scalar_mark_known32(d, (uint32_t)v.value);
		return;
	}
	/* The minimum is what the bits guarantee; the maximum cannot exceed either
	 * operand's maximum. */
	d->u32_min_value = (uint32_t)v.value;
	d->u32_max_value = u32_min(d->u32_max_value, s->u32_max_value);
	signed_from_unsigned32(d);
}

static void and64(struct scalar *d, const struct scalar *s)
{
	if (kbpf_tnum_is_const(s->var_off) && kbpf_tnum_is_const(d->var_off)) {
		kbpf_scalar_mark_known(d, d->var_off.value);
		return;
	}
	d->umin_value = d->var_off.value;
	d->umax_value = u64_min(d->umax_value, s->umax_value);
	signed_from_unsigned64(d);
	kbpf_scalar_update_bounds(d);
}

static void or32(struct scalar *d, const struct scalar *s)
{
	bool src_known = kbpf_tnum_subreg_is_const(s->var_off);
	bool dst_known = kbpf_tnum_subreg_is_const(d->var_off);
	struct tnum v = kbpf_tnum_subreg(d->var_off);

	if (src_known && dst_known) {
		kbpf_scalar_mark_known32(d, (uint32_t)v.value);
		return;
	}
	/* The minimum is at least either operand's minimum; the maximum is every
	 * possibly-set bit. */
	d->u32_min_value = u32_max(d->u32_min_value, s->u32_min_value);
	d->u32_max_value = (uint32_t)(v.value | v.mask);
	signed_from_unsigned32(d);
}

static void or64(struct scalar *d, const struct scalar *s)
{
	if (kbpf_tnum_is_const(s->var_off) && kbpf_tnum_is_const(d->var_off)) {
		kbpf_scalar_mark_known(d, d->var_off.value);
		return;
	}
	d->umin_value = u64_max(d->umin_value, s->umin_value);
	d->umax_value = d->var_off.value | d->var_off.mask;
	signed_from_unsigned64(d);
	kbpf_scalar_update_bounds(d);
}

static void xor32(struct scalar *d, const struct scalar *s)
{
	bool src_known = kbpf_tnum_subreg_is_const(s->var_off);
	bool dst_known = kbpf_tnum_subreg_is_const(d->var_off);
	struct tnum v = kbpf_tnum_subreg(d->var_off);

	if (src_known && dst_known) {
		kbpf_scalar_mark_known32(d, (uint32_t)v.value);
		return;
	}
	d->u32_min_value = (uint32_t)v.value;
	d->u32_max_value = (uint32_t)(v.value | v.mask);
	signed_from_unsigned32(d);
}

static void xor64(struct scalar *d, const struct scalar *s)
{
	if (kbpf_tnum_is_const(s->var_off) && kbpf_tnum_is_const(d->var_off)) {
		kbpf_scalar_mark_known(d, d->var_off.value);
		return;
	}
	d->umin_value = d->var_off.value;
	d->umax_value = d->var_off.value | d->var_off.mask;
	signed_from_unsigned64(d);
	kbpf_scalar_update_bounds(d);
}

/* The 32-bit bounds of dst << [umin_val, umax_val] (6.1: __scalar32_min_max_lsh). */
static void lsh32_bounds(struct scalar *d, uint64_t umin_val, uint64_t umax_val)
{
	/* Sign information is lost except what var_off keeps. */
	d->s32_min_value = S32_MIN;
	d->s32_max_value = S32_MAX;
	/* If the top bit may be shifted out, nothing is known. */
	if (umax_val > 31 || d->u32_max_value > 1ULL << (31 - umax_val)) {
		d->u32_min_value = 0;
		d->u32_max_value = U32_MAX;
	} else {
		d->u32_min_value = u32_shl(d->u32_min_value, umin_val);
		d->u32_max_value = u32_shl(d->u32_max_value, umax_val);
	}
}

static void lsh32(struct scalar *d, const struct scalar *s)
{
	/* ALU32 zero-extends, so only the low half shifts. */
	struct tnum sub = kbpf_tnum_subreg(d->var_off);

	lsh32_bounds(d, s->u32_min_value, s->u32_max_value);
	d->var_off = kbpf_tnum_subreg(kbpf_tnum_lshift(sub, (uint8_t)s->u32_min_value));
	kbpf_scalar_mark_unbounded64(d);
	kbpf_scalar_update_bounds32(d);
}

/* The 64-bit bounds of dst << [umin_val, umax_val] (6.1: __scalar64_min_max_lsh). */
static void lsh64_bounds(struct scalar *d, uint64_t umin_val, uint64_t umax_val)
{
	/* << 32 (the compiler's sign-extension idiom, with s>> 32) keeps the sign of
	 * the low half, so the s32 bounds scaled by 2^32 are the s64 bounds. */
	if (umin_val == 32 && umax_val == 32) {
		d->smax_value = (int64_t)((uint64_t)(int64_t)d->s32_max_value << 32);
		d->smin_value = (int64_t)((uint64_t)(int64_t)d->s32_min_value << 32);
	} else {
		d->smax_value = S64_MAX;
		d->smin_value = S64_MIN;
	}
	if (d->umax_value > 1ULL << (63 - umax_val)) {
		d->umin_value = 0;
		d->umax_value = U64_MAX;
	} else {
		d->umin_value <<= umin_val;
		d->umax_value <<= umax_val;
	}
}

static void lsh64(struct scalar *d, const struct scalar *s)
{
	/* The 64-bit part reads the unshifted s32 bounds, so it goes first. */
	lsh64_bounds(d, s->umin_value, s->umax_value);
	lsh32_bounds(d, s->umin_value, s->umax_value);
	d->var_off = kbpf_tnum_lshift(d->var_off, (uint8_t)s->umin_value);
	kbpf_scalar_update_bounds(d);
}

static void rsh32(struct scalar *d, const struct scalar *s)
{
	/* An unsigned shift: the signed bounds are re-derived from the unsigned ones
	 * and var_off, in every case (see 6.1's comment in kbpf_scalar_min_max_rsh). */
	struct tnum sub = kbpf_tnum_subreg(d->var_off);

	d->s32_min_value = S32_MIN;
	d->s32_max_value = S32_MAX;
	d->var_off = kbpf_tnum_rshift(sub, (uint8_t)s->u32_min_value);
	d->u32_min_value = u32_shr(d->u32_min_value, s->u32_max_value);
	d->u32_max_value = u32_shr(d->u32_max_value, s->u32_min_value);
	kbpf_scalar_mark_unbounded64(d);
	kbpf_scalar_update_bounds32(d);
}

static void rsh64(struct scalar *d, const struct scalar *s)
{
	d->smin_value = S64_MIN;
	d->smax_value = S64_MAX;
	d->var_off = kbpf_tnum_rshift(d->var_off, (uint8_t)s->umin_value);
	d->umin_value >>= s->umax_value;
	d->umax_value >>= s->umin_value;
	/* Bits shift in from the upper half: recompute the 32-bit bounds from var_off. */
	kbpf_scalar_mark_unbounded32(d);
	kbpf_scalar_update_bounds(d);
}

static void arsh32(struct scalar *d, const struct scalar *s)
{
	/* src is constant here (non-constant shifts were made unknown earlier). */
	uint64_t k = s->u32_min_value;

	d->s32_min_value = s32_sar(d->s32_min_value, k);
	d->s32_max_value = s32_sar(d->s32_max_value, k);
	d->var_off = kbpf_tnum_arshift(kbpf_tnum_subreg(d->var_off), (uint8_t)k, 32);
	d->u32_min_value = 0;
	d->u32_max_value = U32_MAX;
	kbpf_scalar_mark_unbounded64(d);
	kbpf_scalar_update_bounds32(d);
}

static void arsh64(struct scalar *d, const struct scalar *s)
{
	uint64_t k = s->umin_value;

	d->smin_value = s64_sar(d->smin_value, k);
	d->smax_value = s64_sar(d->smax_value, k);
	d->var_off = kbpf_tnum_arshift(d->var_off, (uint8_t)k, 64);
	d->umin_value = 0;
	d->umax_value = U64_MAX;
	kbpf_scalar_mark_unbounded32(d);
	kbpf_scalar_update_bounds(d);
}

/* Which ops give a tracked result (6.12: is_safe_to_compute_dst_reg_range): ADD SUB MUL
 * AND OR XOR always; shifts only by a constant (var_off and both ranges agreeing, in the
 * op's width) below the width (a larger or "negative" count is undefined in the ISA;
 * the 64-bit umax is compared even for ALU32, as Linux does); DIV and MOD never. 6.1
 * needed a constant source for all but ADD SUB AND, and made a source whose bounds
 * contradicted themselves taint dst; 6.12 dropped that, the invariant check catches
 * such a state. */
static bool safe_to_compute(const struct scalar *src, uint8_t op, bool alu32)
{
	bool is_const;

	switch (op) {
	case BPF_ADD:
	case BPF_SUB:
	case BPF_MUL:
	case BPF_AND:
	case BPF_OR:
	case BPF_XOR:
		return true;
	case BPF_LSH:
	case BPF_RSH:
	case BPF_ARSH:
		if (alu32)
			is_const = kbpf_tnum_subreg_is_const(src->var_off) &&
				   src->s32_min_value == src->s32_max_value &&
				   src->u32_min_value == src->u32_max_value;
		else
			is_const = kbpf_tnum_is_const(src->var_off) && src->smin_value == src->smax_value &&
				   src->umin_value == src->umax_value;
		return is_const && src->umax_value < (alu32 ? 32u : 64u);
	default:
		return false;
	}
}

void kbpf_scalar_alu(struct scalar *dst, const struct scalar *srcp, uint8_t op, bool alu32)
{
	/* By value, as Linux passes it: "r1 += r1" must read the old r1. */
	const struct scalar src = *srcp;

	switch (op) {
	case BPF_MOV:
		*dst = src;
		if (alu32) {
			kbpf_scalar_zext_32_to_64(dst);
			kbpf_scalar_bounds_sync(dst);
		}
		return;
	case BPF_NEG:
	case BPF_END:
		/* check_alu_op marks the destination unknown (check_reg_arg DST_OP),
		 * 64-bit, even for ALU32. */
		kbpf_scalar_mark_unknown(dst);
		return;
	}

	if (!safe_to_compute(&src, op, alu32)) {
		/* 6.12 returns here, before the zero-extension: a 64-bit unknown. */
		kbpf_scalar_mark_unknown(dst);
		return;
	}

	switch (op) {
	case BPF_ADD:
		add32(dst, &src);
		add64(dst, &src);
		dst->var_off = kbpf_tnum_add(dst->var_off, src.var_off);
		break;
	case BPF_SUB:
		sub32(dst, &src);
		sub64(dst, &src);
		dst->var_off = kbpf_tnum_sub(dst->var_off, src.var_off);
		break;
	case BPF_MUL:
		dst->var_off = kbpf_tnum_mul(dst->var_off, src.var_off);
		mul32(dst, &src);
		mul64(dst, &src);
		break;
	case BPF_AND:
		dst->var_off = kbpf_tnum_and(dst->var_off, src.var_off);
		and32(dst, &src);
		and64(dst, &src);
		break;
	case BPF_OR:
		dst->var_off = kbpf_tnum_or(dst->var_off, src.var_off);
		or32(dst, &src);
		or64(dst, &src);
		break;
	case BPF_XOR:
		dst->var_off = kbpf_tnum_xor(dst->var_off, src.var_off);
		xor32(dst, &src);
		xor64(dst, &src);
		break;
	case BPF_LSH:
	case BPF_RSH:
	case BPF_ARSH:
		if (op == BPF_LSH)
			alu32 ? lsh32(dst, &src) : lsh64(dst, &src);
		else if (op == BPF_RSH)
			alu32 ? rsh32(dst, &src) : rsh64(dst, &src);
		else
			alu32 ? arsh32(dst, &src) : arsh64(dst, &src);
		break;
	}

	if (alu32)
		kbpf_scalar_zext_32_to_64(dst);
	kbpf_scalar_bounds_sync(dst);
}

