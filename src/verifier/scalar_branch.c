/* SPDX-License-Identifier: Apache-2.0 */
/* Conditional jumps in the scalar domain: deciding a branch and refining both sides
 * (6.1's is_branch_taken, reg_set_min_max, reg_combine_min_max; see scalar.h). */
#include <linux/bpf.h>
#include "verifier/bounds_math.h"
#include "verifier/scalar.h"

/* ------------------------------------------------------------------ jumps */

static int branch32_taken(const struct scalar *reg, uint32_t val, uint8_t op)
{
	struct tnum sub = kbpf_tnum_subreg(reg->var_off);
	int32_t sval = (int32_t)val;

	switch (op) {
	case BPF_JEQ:
		if (kbpf_tnum_is_const(sub))
			return sub.value == val;
		break;
	case BPF_JNE:
		if (kbpf_tnum_is_const(sub))
			return sub.value != val;
		break;
	case BPF_JSET:
		/* Taken if a known-1 bit is tested; not taken if no tested bit may be 1. */
		if ((~sub.mask & sub.value) & val)
			return 1;
		if (!((sub.mask | sub.value) & val))
			return 0;
		break;
	case BPF_JGT:
		if (reg->u32_min_value > val)
			return 1;
		if (reg->u32_max_value <= val)
			return 0;
		break;
	case BPF_JSGT:
		if (reg->s32_min_value > sval)
			return 1;
		if (reg->s32_max_value <= sval)
			return 0;
		break;
	case BPF_JLT:
		if (reg->u32_max_value < val)
			return 1;
		if (reg->u32_min_value >= val)
			return 0;
		break;
	case BPF_JSLT:
		if (reg->s32_max_value < sval)
			return 1;
		if (reg->s32_min_value >= sval)
			return 0;
		break;
	case BPF_JGE:
		if (reg->u32_min_value >= val)
			return 1;
		if (reg->u32_max_value < val)
			return 0;
		break;
	case BPF_JSGE:
		if (reg->s32_min_value >= sval)
			return 1;
		if (reg->s32_max_value < sval)
			return 0;
		break;
	case BPF_JLE:
		if (reg->u32_max_value <= val)
			return 1;
		if (reg->u32_min_value > val)
			return 0;
		break;
	case BPF_JSLE:
		if (reg->s32_max_value <= sval)
			return 1;
		if (reg->s32_min_value > sval)
			return 0;
		break;
	}
	return -1;
}

static int branch64_taken(const struct scalar *reg, uint64_t val, uint8_t op)
{
	int64_t sval = (int64_t)val;

	switch (op) {
	case BPF_JEQ:
		if (kbpf_tnum_is_const(reg->var_off))
			return reg->var_off.value == val;
		break;
	case BPF_JNE:
		if (kbpf_tnum_is_const(reg->var_off))
			return reg->var_off.value != val;
		break;
	case BPF_JSET:
		if ((~reg->var_off.mask & reg->var_off.value) & val)
			return 1;
		if (!((reg->var_off.mask | reg->var_off.value) & val))
			return 0;
		break;
	case BPF_JGT:
		if (reg->umin_value > val)
			return 1;
		if (reg->umax_value <= val)
			return 0;
		break;
	case BPF_JSGT:
		if (reg->smin_value > sval)
			return 1;
		if (reg->smax_value <= sval)
			return 0;
		break;
	case BPF_JLT:
		if (reg->umax_value < val)
			return 1;
		if (reg->umin_value >= val)
			return 0;
		break;
	case BPF_JSLT:
		if (reg->smax_value < sval)
			return 1;
		if (reg->smin_value >= sval)
			return 0;
		break;
	case BPF_JGE:
		if (reg->umin_value >= val)
			return 1;
		if (reg->umax_value < val)
			return 0;
		break;
	case BPF_JSGE:
		if (reg->smin_value >= sval)
			return 1;
		if (reg->smax_value < sval)
			return 0;
		break;
	case BPF_JLE:
		if (reg->umax_value <= val)
			return 1;
		if (reg->umin_value > val)
			return 0;
		break;
	case BPF_JSLE:
		if (reg->smax_value <= sval)
			return 1;
		if (reg->smin_value > sval)
			return 0;
		break;
	}
	return -1;
}

int kbpf_scalar_branch_taken(const struct scalar *reg, uint64_t val, uint8_t op, bool jmp32)
{
	return jmp32 ? branch32_taken(reg, (uint32_t)val, op) : branch64_taken(reg, val, op);
}

/* The known bits of both agree wherever both are known (6.12: tnum_overlap). */
static bool tnum_overlap(struct tnum a, struct tnum b)
{
	uint64_t known = ~a.mask & ~b.mask;
	return ((a.value ^ b.value) & known) == 0;
}

static bool scalar_is_const(const struct scalar *s, bool jmp32)
{
	return jmp32 ? kbpf_tnum_subreg_is_const(s->var_off) : kbpf_tnum_is_const(s->var_off);
}

/* JEQ's answer (JNE is its mirror): 0 when the values cannot be equal. */
static int ranges_meet(const struct scalar *a, const struct scalar *b, struct tnum t1, struct tnum t2,
		       uint64_t umin1, uint64_t umax1, int64_t smin1, int64_t smax1, uint64_t umin2,
		       uint64_t umax2, int64_t smin2, int64_t smax2, bool jmp32)
{
	if (kbpf_tnum_is_const(t1) && kbpf_tnum_is_const(t2))
		return t1.value == t2.value;
	if (!tnum_overlap(t1, t2))
		return 0;
	if (umin1 > umax2 || umax1 < umin2 || smin1 > smax2 || smax1 < smin2)
		return 0;
	if (!jmp32 && (a->u32_min_value > b->u32_max_value || a->u32_max_value < b->u32_min_value ||
		       a->s32_min_value > b->s32_max_value || a->s32_max_value < b->s32_min_value))
		return 0;
	return -1;
}

int kbpf_scalar_branch_taken_regs(const struct scalar *a, const struct scalar *b, uint8_t op, bool jmp32)
{
	struct tnum t1 = jmp32 ? kbpf_tnum_subreg(a->var_off) : a->var_off;
	struct tnum t2 = jmp32 ? kbpf_tnum_subreg(b->var_off) : b->var_off;
	uint64_t umin1 = jmp32 ? a->u32_min_value : a->umin_value, umax1 = jmp32 ? a->u32_max_value : a->umax_value;
	int64_t smin1 = jmp32 ? a->s32_min_value : a->smin_value, smax1 = jmp32 ? a->s32_max_value : a->smax_value;
	uint64_t umin2 = jmp32 ? b->u32_min_value : b->umin_value, umax2 = jmp32 ? b->u32_max_value : b->umax_value;
	int64_t smin2 = jmp32 ? b->s32_min_value : b->smin_value, smax2 = jmp32 ? b->s32_max_value : b->smax_value;
	int r;

	switch (op) {
	case BPF_JEQ:
	case BPF_JNE:
		r = ranges_meet(a, b, t1, t2, umin1, umax1, smin1, smax1, umin2, umax2, smin2, smax2, jmp32);
		return r < 0 ? -1 : op == BPF_JEQ ? r : !r;
	case BPF_JSET:
		if (!scalar_is_const(b, jmp32)) {
			struct tnum t = t1;
			t1 = t2;
			t2 = t;
			if (!scalar_is_const(a, jmp32))
				return -1;
		}
		if ((~t1.mask & t1.value) & t2.value)
			return 1;
		if (!((t1.mask | t1.value) & t2.value))
			return 0;
		return -1;
	case BPF_JGT:
		return umin1 > umax2 ? 1 : umax1 <= umin2 ? 0 : -1;
	case BPF_JSGT:
		return smin1 > smax2 ? 1 : smax1 <= smin2 ? 0 : -1;
	case BPF_JLT:
		return umax1 < umin2 ? 1 : umin1 >= umax2 ? 0 : -1;
	case BPF_JSLT:
		return smax1 < smin2 ? 1 : smin1 >= smax2 ? 0 : -1;
	case BPF_JGE:
		return umin1 >= umax2 ? 1 : umax1 < umin2 ? 0 : -1;
	case BPF_JSGE:
		return smin1 >= smax2 ? 1 : smax1 < smin2 ? 0 : -1;
	case BPF_JLE:
		return umax1 <= umin2 ? 1 : umin1 > umax2 ? 0 : -1;
	case BPF_JSLE:
		return smax1 <= smin2 ? 1 : smin1 > smax2 ? 0 : -1;
	}
	return -1;
}

uint8_t kbpf_scalar_flip_jmp_op(uint8_t op)
{
	switch (op) {
	case BPF_JEQ:
	case BPF_JNE:
	case BPF_JSET:
		return op;
	case BPF_JGE: return BPF_JLE;
	case BPF_JGT: return BPF_JLT;
	case BPF_JLE: return BPF_JGE;
	case BPF_JLT: return BPF_JGT;
	case BPF_JSGE: return BPF_JSLE;
	case BPF_JSGT: return BPF_JSLT;
	case BPF_JSLE: return BPF_JSGE;
	case BPF_JSLT: return BPF_JSGT;
	}
	return 0;
}

static bool is_power_of_2(uint64_t n)
{
	return n && !(n & (n - 1));
}

void kbpf_scalar_set_min_max(struct scalar *true_reg, struct scalar *false_reg, uint64_t val,
			uint32_t val32, uint8_t op, bool jmp32)
{
	struct tnum false_32off = kbpf_tnum_subreg(false_reg->var_off);
	struct tnum false_64off = false_reg->var_off;
	struct tnum true_32off = kbpf_tnum_subreg(true_reg->var_off);
	struct tnum true_64off = true_reg->var_off;
	int64_t sval = (int64_t)val;
	int32_t sval32 = (int32_t)val32;

	/* The +1/-1 below wrap only when the branch is decided (e.g. "x > U64_MAX"),
	 * in which case the side they narrow is dead; 6.1 wraps the same way. */
	switch (op) {
	case BPF_JEQ:
		if (jmp32) {
			kbpf_scalar_mark_known32(true_reg, val32);
			true_32off = kbpf_tnum_subreg(true_reg->var_off);
		} else {
			kbpf_scalar_mark_known(true_reg, val);
			true_64off = true_reg->var_off;
		}
		break;
	case BPF_JNE:
		if (jmp32) {
			kbpf_scalar_mark_known32(false_reg, val32);
			false_32off = kbpf_tnum_subreg(false_reg->var_off);
		} else {
			kbpf_scalar_mark_known(false_reg, val);
			false_64off = false_reg->var_off;
		}
		break;
	case BPF_JSET:
		/* Forget the ranges before narrowing the tnum, so a dead branch cannot
		 * leave bounds that contradict it. */
		kbpf_scalar_mark_unbounded(false_reg);
		if (jmp32) {
			false_32off = kbpf_tnum_and(false_32off, kbpf_tnum_const(~val32));
			if (is_power_of_2(val32))
				true_32off = kbpf_tnum_or(true_32off, kbpf_tnum_const(val32));
		} else {
			false_64off = kbpf_tnum_and(false_64off, kbpf_tnum_const(~val));
			if (is_power_of_2(val))
				true_64off = kbpf_tnum_or(true_64off, kbpf_tnum_const(val));
		}
		break;
	case BPF_JGE:
	case BPF_JGT:
		if (jmp32) {
			uint32_t false_umax = op == BPF_JGT ? val32 : val32 - 1;
			uint32_t true_umin = op == BPF_JGT ? val32 + 1 : val32;

			false_reg->u32_max_value = u32_min(false_reg->u32_max_value, false_umax);
			true_reg->u32_min_value = u32_max(true_reg->u32_min_value, true_umin);
		} else {
			uint64_t false_umax = op == BPF_JGT ? val : val - 1;
			uint64_t true_umin = op == BPF_JGT ? val + 1 : val;

			false_reg->umax_value = u64_min(false_reg->umax_value, false_umax);
			true_reg->umin_value = u64_max(true_reg->umin_value, true_umin);
		}
		break;
	case BPF_JSGE:
	case BPF_JSGT:
		if (jmp32) {
			int32_t false_smax = op == BPF_JSGT ? sval32 : s32_sub(sval32, 1);
			int32_t true_smin = op == BPF_JSGT ? s32_add(sval32, 1) : sval32;

			false_reg->s32_max_value = s32_min(false_reg->s32_max_value, false_smax);
			true_reg->s32_min_value = s32_max(true_reg->s32_min_value, true_smin);
		} else {
			int64_t false_smax = op == BPF_JSGT ? sval : s64_sub(sval, 1);
			int64_t true_smin = op == BPF_JSGT ? s64_add(sval, 1) : sval;

			false_reg->smax_value = s64_min(false_reg->smax_value, false_smax);
			true_reg->smin_value = s64_max(true_reg->smin_value, true_smin);
		}
		break;
	case BPF_JLE:
	case BPF_JLT:
		if (jmp32) {
			uint32_t false_umin = op == BPF_JLT ? val32 : val32 + 1;
			uint32_t true_umax = op == BPF_JLT ? val32 - 1 : val32;

			false_reg->u32_min_value = u32_max(false_reg->u32_min_value, false_umin);
			true_reg->u32_max_value = u32_min(true_reg->u32_max_value, true_umax);
		} else {
			uint64_t false_umin = op == BPF_JLT ? val : val + 1;
			uint64_t true_umax = op == BPF_JLT ? val - 1 : val;

			false_reg->umin_value = u64_max(false_reg->umin_value, false_umin);
			true_reg->umax_value = u64_min(true_reg->umax_value, true_umax);
		}
		break;
	case BPF_JSLE:
	case BPF_JSLT:
		if (jmp32) {
			int32_t false_smin = op == BPF_JSLT ? sval32 : s32_add(sval32, 1);
			int32_t true_smax = op == BPF_JSLT ? s32_sub(sval32, 1) : sval32;

			false_reg->s32_min_value = s32_max(false_reg->s32_min_value, false_smin);
			true_reg->s32_max_value = s32_min(true_reg->s32_max_value, true_smax);
		} else {
			int64_t false_smin = op == BPF_JSLT ? sval : s64_add(sval, 1);
			int64_t true_smax = op == BPF_JSLT ? s64_sub(sval, 1) : sval;

			false_reg->smin_value = s64_max(false_reg->smin_value, false_smin);
			true_reg->smax_value = s64_min(true_reg->smax_value, true_smax);
		}
		break;
	default:
		return;
	}

	if (jmp32) {
		false_reg->var_off = kbpf_tnum_with_subreg(false_64off, false_32off);
		true_reg->var_off = kbpf_tnum_with_subreg(true_64off, true_32off);
		kbpf_scalar_combine_32_into_64(false_reg);
		kbpf_scalar_combine_32_into_64(true_reg);
	} else {
		false_reg->var_off = false_64off;
		true_reg->var_off = true_64off;
		kbpf_scalar_combine_64_into_32(false_reg);
		kbpf_scalar_combine_64_into_32(true_reg);
	}
}

void kbpf_scalar_set_min_max_inv(struct scalar *true_reg, struct scalar *false_reg, uint64_t val,
			    uint32_t val32, uint8_t op, bool jmp32)
{
	op = kbpf_scalar_flip_jmp_op(op);
	/* 0 means "not a comparison" (BPF_JA's opcode, which cannot get here). */
	if (op)
		kbpf_scalar_set_min_max(true_reg, false_reg, val, val32, op, jmp32);
}

void kbpf_scalar_combine_min_max(struct scalar *a, struct scalar *b)
{
	a->umin_value = b->umin_value = u64_max(a->umin_value, b->umin_value);
	a->umax_value = b->umax_value = u64_min(a->umax_value, b->umax_value);
	a->smin_value = b->smin_value = s64_max(a->smin_value, b->smin_value);
	a->smax_value = b->smax_value = s64_min(a->smax_value, b->smax_value);
	a->var_off = b->var_off = kbpf_tnum_intersect(a->var_off, b->var_off);
	kbpf_scalar_bounds_sync(a);
	kbpf_scalar_bounds_sync(b);
}

void kbpf_scalar_combine_eq(struct scalar *true_src, struct scalar *true_dst, struct scalar *false_src,
		       struct scalar *false_dst, uint8_t op)
{
	if (op == BPF_JEQ)
		kbpf_scalar_combine_min_max(true_src, true_dst);
	else if (op == BPF_JNE)
		kbpf_scalar_combine_min_max(false_src, false_dst);
}

