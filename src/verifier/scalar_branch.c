/* SPDX-License-Identifier: Apache-2.0 */
/* Conditional jumps in the scalar domain: deciding a branch and refining both sides
 * (6.12's is_scalar_branch_taken, regs_refine_cond_op, reg_set_min_max; see
 * scalar.h). */
#include <linux/bpf.h>
#include "verifier/bounds_math.h"
#include "verifier/scalar.h"

/* ------------------------------------------------------------------ jumps */

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

int kbpf_scalar_branch_taken(const struct scalar *reg, uint64_t val, uint8_t op, bool jmp32)
{
	/* 6.12 compares with a register holding the constant (env->fake_reg) */
	struct scalar k = kbpf_scalar_known(val);
	return kbpf_scalar_branch_taken_regs(reg, &k, op, jmp32);
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

/* The condition that holds on the fall-through side ("not op"); JSET's is
 * KBPF_JSET_NOT (6.12: rev_opcode, which writes it BPF_JSET | BPF_X). */
#define KBPF_JSET_NOT (BPF_JSET | BPF_X)

static uint8_t rev_op(uint8_t op)
{
	switch (op) {
	case BPF_JEQ: return BPF_JNE;
	case BPF_JNE: return BPF_JEQ;
	case BPF_JSET: return KBPF_JSET_NOT;
	case KBPF_JSET_NOT: return BPF_JSET;
	case BPF_JGE: return BPF_JLT;
	case BPF_JGT: return BPF_JLE;
	case BPF_JLE: return BPF_JGT;
	case BPF_JLT: return BPF_JGE;
	case BPF_JSGE: return BPF_JSLT;
	case BPF_JSGT: return BPF_JSLE;
	case BPF_JSLE: return BPF_JSGT;
	case BPF_JSLT: return BPF_JSGE;
	}
	return 0;
}

/* Narrow a and b, known to satisfy "a <op> b" (6.12: regs_refine_cond_op). The caller
 * syncs both. Every narrowing is an intersection with what the condition implies, so
 * it keeps each pair of values that satisfies it; the +1/-1 wrap only where the
 * condition cannot hold (such a side was decided and is not refined), and a wrapped
 * bound only widens. */
static void refine(struct scalar *a, struct scalar *b, uint8_t op, bool jmp32)
{
	struct scalar *t;
	struct tnum tn;
	uint64_t val;

	/* GE/GT (signed too) are LE/LT with the operands swapped */
	switch (op) {
	case BPF_JGE:
	case BPF_JGT:
	case BPF_JSGE:
	case BPF_JSGT:
		op = kbpf_scalar_flip_jmp_op(op);
		t = a, a = b, b = t;
		break;
	}

	switch (op) {
	case BPF_JEQ:
		/* equal: both are in the intersection */
		if (jmp32) {
			a->u32_min_value = b->u32_min_value = u32_max(a->u32_min_value, b->u32_min_value);
			a->u32_max_value = b->u32_max_value = u32_min(a->u32_max_value, b->u32_max_value);
			a->s32_min_value = b->s32_min_value = s32_max(a->s32_min_value, b->s32_min_value);
			a->s32_max_value = b->s32_max_value = s32_min(a->s32_max_value, b->s32_max_value);
			tn = kbpf_tnum_intersect(kbpf_tnum_subreg(a->var_off), kbpf_tnum_subreg(b->var_off));
			a->var_off = kbpf_tnum_with_subreg(a->var_off, tn);
			b->var_off = kbpf_tnum_with_subreg(b->var_off, tn);
		} else {
			a->umin_value = b->umin_value = u64_max(a->umin_value, b->umin_value);
			a->umax_value = b->umax_value = u64_min(a->umax_value, b->umax_value);
			a->smin_value = b->smin_value = s64_max(a->smin_value, b->smin_value);
			a->smax_value = b->smax_value = s64_min(a->smax_value, b->smax_value);
			a->var_off = b->var_off = kbpf_tnum_intersect(a->var_off, b->var_off);
		}
		break;
	case BPF_JNE:
		/* not equal to a constant that is an end of the other's range: that end
		 * moves in by one */
		if (!scalar_is_const(b, jmp32))
			t = a, a = b, b = t;
		if (!scalar_is_const(b, jmp32))
			break;
		val = b->var_off.value;
		if (jmp32) {
			if (a->u32_min_value == (uint32_t)val)
				a->u32_min_value++;
			if (a->u32_max_value == (uint32_t)val)
				a->u32_max_value--;
			if (a->s32_min_value == (int32_t)(uint32_t)val)
				a->s32_min_value = s32_add(a->s32_min_value, 1);
			if (a->s32_max_value == (int32_t)(uint32_t)val)
				a->s32_max_value = s32_sub(a->s32_max_value, 1);
		} else {
			if (a->umin_value == val)
				a->umin_value++;
			if (a->umax_value == val)
				a->umax_value--;
			if (a->smin_value == (int64_t)val)
				a->smin_value = s64_add(a->smin_value, 1);
			if (a->smax_value == (int64_t)val)
				a->smax_value = s64_sub(a->smax_value, 1);
		}
		break;
	case BPF_JSET:
		/* a bit of a single-bit constant tested set: that bit is 1 */
		if (!scalar_is_const(b, jmp32))
			t = a, a = b, b = t;
		if (!scalar_is_const(b, jmp32))
			break;
		val = jmp32 ? (uint32_t)b->var_off.value : b->var_off.value;
		if (!is_power_of_2(val))
			break;
		if (jmp32) {
			tn = kbpf_tnum_or(kbpf_tnum_subreg(a->var_off), kbpf_tnum_const(val));
			a->var_off = kbpf_tnum_with_subreg(a->var_off, tn);
		} else {
			a->var_off = kbpf_tnum_or(a->var_off, kbpf_tnum_const(val));
		}
		break;
	case KBPF_JSET_NOT:
		/* no bit of the constant set: those bits are 0. The ranges are forgotten
		 * first so a dead side cannot keep bounds that contradict the bits. */
		if (!scalar_is_const(b, jmp32))
			t = a, a = b, b = t;
		if (!scalar_is_const(b, jmp32))
			break;
		val = jmp32 ? (uint32_t)b->var_off.value : b->var_off.value;
		kbpf_scalar_mark_unbounded(a);
		if (jmp32) {
			tn = kbpf_tnum_and(kbpf_tnum_subreg(a->var_off), kbpf_tnum_const(~val));
			a->var_off = kbpf_tnum_with_subreg(a->var_off, tn);
		} else {
			a->var_off = kbpf_tnum_and(a->var_off, kbpf_tnum_const(~val));
		}
		break;
	case BPF_JLE:
		if (jmp32) {
			a->u32_max_value = u32_min(a->u32_max_value, b->u32_max_value);
			b->u32_min_value = u32_max(a->u32_min_value, b->u32_min_value);
		} else {
			a->umax_value = u64_min(a->umax_value, b->umax_value);
			b->umin_value = u64_max(a->umin_value, b->umin_value);
		}
		break;
	case BPF_JLT:
		if (jmp32) {
			a->u32_max_value = u32_min(a->u32_max_value, b->u32_max_value - 1);
			b->u32_min_value = u32_max(a->u32_min_value + 1, b->u32_min_value);
		} else {
			a->umax_value = u64_min(a->umax_value, b->umax_value - 1);
			b->umin_value = u64_max(a->umin_value + 1, b->umin_value);
		}
		break;
	case BPF_JSLE:
		if (jmp32) {
			a->s32_max_value = s32_min(a->s32_max_value, b->s32_max_value);
			b->s32_min_value = s32_max(a->s32_min_value, b->s32_min_value);
		} else {
			a->smax_value = s64_min(a->smax_value, b->smax_value);
			b->smin_value = s64_max(a->smin_value, b->smin_value);
		}
		break;
	case BPF_JSLT:
		if (jmp32) {
			a->s32_max_value = s32_min(a->s32_max_value, s32_sub(b->s32_max_value, 1));
			b->s32_min_value = s32_max(s32_add(a->s32_min_value, 1), b->s32_min_value);
		} else {
			a->smax_value = s64_min(a->smax_value, s64_sub(b->smax_value, 1));
			b->smin_value = s64_max(s64_add(a->smin_value, 1), b->smin_value);
		}
		break;
	}
}

void kbpf_scalar_refine_cond(struct scalar *true1, struct scalar *true2, struct scalar *false1,
			     struct scalar *false2, uint8_t op, bool jmp32)
{
	uint8_t rev = rev_op(op);

	/* 0: not a comparison (BPF_JA's opcode, which cannot get here) */
	if (!rev)
		return;
	refine(false1, false2, rev, jmp32);
	kbpf_scalar_bounds_sync(false1);
	kbpf_scalar_bounds_sync(false2);
	refine(true1, true2, op, jmp32);
	kbpf_scalar_bounds_sync(true1);
	kbpf_scalar_bounds_sync(true2);
}

void kbpf_scalar_set_min_max(struct scalar *true_reg, struct scalar *false_reg, uint64_t val,
			     uint32_t val32, uint8_t op, bool jmp32)
{
	/* the constant as 6.12's fake register: val, or for jmp32 any value whose low
	 * half is val32 */
	struct scalar kt = kbpf_scalar_known(jmp32 ? val32 : val), kf = kt;

	kbpf_scalar_refine_cond(true_reg, &kt, false_reg, &kf, op, jmp32);
}

void kbpf_scalar_set_min_max_inv(struct scalar *true_reg, struct scalar *false_reg, uint64_t val,
				 uint32_t val32, uint8_t op, bool jmp32)
{
	struct scalar kt = kbpf_scalar_known(jmp32 ? val32 : val), kf = kt;

	kbpf_scalar_refine_cond(&kt, true_reg, &kf, false_reg, op, jmp32);
}
