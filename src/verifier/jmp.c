/* SPDX-License-Identifier: Apache-2.0 */
/* Conditional jumps (Linux 6.12 check_cond_jmp_op): decided branches, both-branch
 * refinement of scalars, linked scalars, null checks and packet ranges. */
#include <errno.h>
#include "verifier/env.h"
#include "verifier/spin_lock.h"

static bool type_not_null(uint32_t t)
{
	return t == KBPF_PTR_TO_SOCKET || t == KBPF_PTR_TO_TCP_SOCK || t == KBPF_PTR_TO_MAP_VALUE ||
	       t == KBPF_PTR_TO_MAP_KEY || t == KBPF_PTR_TO_SOCK_COMMON;
}

/* The offset half of Linux 6.12's reg_not_null: a non-NULL object's address plus the
 * register's offset cannot be 0. Linux asks only |variable offset| < 2^29: a kernel
 * address is far above that. A host's objects may sit at low addresses (a non-PIE
 * program's heap starts near 4 MiB), so kbpf asks for a non-negative offset: base +
 * off + var >= base > 0, and no wrap (user addresses are below 2^47). */
static bool offset_keeps_not_null(const struct reg *r)
{
	return r->off >= 0 && r->s.smin_value >= 0 && r->s.smax_value < MAX_VAR_OFF;
}

/* Linux 6.12's reg_not_null, BTF pointers aside: a type the verifier lets the program
 * use without a NULL check (it already trusts the address), at an offset that keeps it
 * off 0. */
static bool reg_not_null(const struct reg *r)
{
	uint32_t t = r->type;
	if (t & KBPF_PTR_MAYBE_NULL)
		return false;
	t = KBPF_REG_BASE(t);
	return (type_not_null(t) || t == KBPF_PTR_TO_XDP_SOCK || t == KBPF_PTR_TO_BUF || t == KBPF_PTR_TO_MEM ||
		t == KBPF_CONST_PTR_TO_MAP) &&
	       offset_keeps_not_null(r);
}

/* A non-NULL pointer compared with 0 decides JEQ/JNE, with 64-bit compares only: a
 * pointer's low 32 bits may well be 0, so JMP32 on a pointer decides nothing (Linux
 * 6.12's is_branch_taken; 6.1 decided `w0 == 0` too). */
static int branch_taken(const struct reg *r, uint64_t val, uint8_t op, bool jmp32)
{
	if (reg_is_pointer(r)) {
		if (jmp32 || !reg_not_null(r) || val != 0)
			return -1;
		return op == BPF_JEQ ? 0 : op == BPF_JNE ? 1 : -1;
	}
	return kbpf_scalar_branch_taken(&r->s, val, op, jmp32);
}

static int pkt_branch_taken(const struct reg *dst, const struct reg *src, uint8_t op)
{
	const struct reg *pkt;
	if (src->type == KBPF_PTR_TO_PACKET_END) {
		pkt = dst;
	} else if (dst->type == KBPF_PTR_TO_PACKET_END) {
		pkt = src;
		op = kbpf_scalar_flip_jmp_op(op);
	} else {
		return -1;
	}
	if (pkt->range >= 0)
		return -1;
	switch (op) {
	case BPF_JLE:
	case BPF_JGT:
		if (pkt->range == BEYOND_PKT_END)
			return op == BPF_JGT;
		break;
	case BPF_JLT:
	case BPF_JGE:
		if (pkt->range == BEYOND_PKT_END || pkt->range == AT_PKT_END)
			return op == BPF_JGE;
		break;
	}
	return -1;
}

/* A refinement that makes r depend on another scalar (the other operand of a compare,
 * the compared copy of a linked scalar) keeps its precision mark only if that one is
 * precise too. (The current state's marks decide nothing since precise.c walks for every
 * request, as 6.12; kept so a mark never claims more than it did.) */
static void keep_precise(struct reg *r, bool other_precise)
{
	r->precise = r->precise && other_precise;
}

/* Every scalar sharing known's id gets known's value (6.1: find_equal_scalars), and keeps
 * its precision mark only if both had one (keep_precise). */
static void find_equal_scalars(struct vstate *st, const struct reg *known)
{
	struct reg k = *known;
	for (int f = 0; f <= st->curframe; f++) {
		struct frame *fr = st->frame[f];
		for (int i = 0; i < MAX_REG; i++)
			if (fr->regs[i].type == KBPF_SCALAR_VALUE && fr->regs[i].id == k.id) {
				bool p = fr->regs[i].precise;
				fr->regs[i] = k;
				fr->regs[i].precise = p;
				keep_precise(&fr->regs[i], k.precise);
			}
		for (int s = 0; s < fr->allocated / 8; s++)
			if (fr->stack[s].type[7] == STACK_SPILL && fr->stack[s].spilled.type == KBPF_SCALAR_VALUE &&
			    fr->stack[s].spilled.id == k.id) {
				bool p = fr->stack[s].spilled.precise;
				fr->stack[s].spilled = k;
				fr->stack[s].spilled.precise = p;
				keep_precise(&fr->stack[s].spilled, k.precise);
			}
	}
}

/* Linux 6.12's collect_linked_regs: the scalars and spilled scalars of every frame that
 * share id, at most HIST_LINKED_MAX of them over the compare's operands; the others lose
 * the id (they are not refined by this compare, nor linked any more). */
static void collect_linked(struct vstate *st, uint32_t id, uint16_t *l, int *n)
{
	for (int f = st->curframe; f >= 0; f--) {
		struct frame *fr = st->frame[f];
		for (int i = 0; i < FP_REG; i++) {
			struct reg *r = &fr->regs[i];
			if (r->type != KBPF_SCALAR_VALUE || r->id != id)
				continue;
			if (*n < HIST_LINKED_MAX)
				l[(*n)++] = HIST_LINK(f, 1, i);
			else
				r->id = 0;
		}
		for (int i = 0; i < fr->allocated / 8 && i < 64; i++) {
			struct reg *r = &fr->stack[i].spilled;
			if (fr->stack[i].type[7] != STACK_SPILL || r->type != KBPF_SCALAR_VALUE || r->id != id)
				continue;
			if (*n < HIST_LINKED_MAX)
				l[(*n)++] = HIST_LINK(f, 0, i);
			else
				r->id = 0;
		}
	}
}

/* For precision backtracking (precise.c): the scalars that get their bounds from this
 * compare, noted on the jump's history entry before the other branch is copied (so both
 * share it). */
static int note_linked(struct env *env, const struct reg *dst, const struct reg *src)
{
	uint16_t l[HIST_LINKED_MAX];
	int n = 0;

	if (src && src->type == KBPF_SCALAR_VALUE && src->id)
		collect_linked(env->cur, src->id, l, &n);
	if (dst->type == KBPF_SCALAR_VALUE && dst->id)
		collect_linked(env->cur, dst->id, l, &n);
	return n > 1 ? hist_note_linked(env, l, n) : 0;
}

/* Linux's mark_ptr_not_null_reg: a maybe-NULL pointer known non-NULL, typed as what it
 * points to. The id stays (a null check of a copy still finds its peers). */
static void mark_ptr_not_null_reg(struct reg *r)
{
	if (r->type == (KBPF_CONST_PTR_TO_MAP | KBPF_PTR_MAYBE_NULL)) {
		/* an outer map's value: an inner map, typed by the outer map's template since
		 * the lookup (helper.c; its run-time map is any map that matches it) */
		r->type = KBPF_CONST_PTR_TO_MAP;
		r->id = 0;
		return;
	}
	r->type &= ~KBPF_PTR_MAYBE_NULL;
}

static void mark_or_null(struct reg *r, uint32_t id, bool is_null)
{
	if (!(r->type & KBPF_PTR_MAYBE_NULL) || r->id != id || !id)
		return;
	if (is_null) {
		uint32_t fn = r->frameno;
		r->type = KBPF_SCALAR_VALUE;
		kbpf_scalar_mark_known(&r->s, 0);
		r->off = 0;
		r->id = 0;
		r->ref_obj_id = 0;
		r->map = NULL;
		r->range = 0;
		r->mem_size = 0;
		r->frameno = fn;
		r->btf_walked = r->btf_trusted = false;
		return;
	}
	mark_ptr_not_null_reg(r);
	if (!reg_may_point_to_spin_lock(r)) /* else the id names the value's lock */
		r->id = 0;
}

/* Linux 6.12 (check_cond_jmp_op): two pointers compared equal, one of them non-NULL:
 * the other is non-NULL too, in the branch where they are equal (JEQ taken, JNE not).
 * Only the compared register learns it (as in Linux: its copies stay maybe-NULL until
 * their own check). BTF pointers take no part: a non-NULL type is no promise there.
 * Sound in any host: equal addresses, and one of them is a valid object's. */
static void infer_not_null(const struct bpf_insn *insn, struct reg *regs, struct reg *oregs)
{
	uint8_t op = BPF_OP(insn->code);
	const struct reg *dst = &regs[insn->dst_reg], *src = &regs[insn->src_reg];
	if (BPF_SRC(insn->code) != BPF_X || BPF_CLASS(insn->code) == BPF_JMP32 || (op != BPF_JEQ && op != BPF_JNE))
		return;
	if (!reg_is_pointer(dst) || !reg_is_pointer(src) || KBPF_REG_BASE(dst->type) == KBPF_PTR_TO_BTF_ID ||
	    KBPF_REG_BASE(src->type) == KBPF_PTR_TO_BTF_ID)
		return;
	struct reg *eq = op == BPF_JEQ ? oregs : regs;
	bool src_nn = reg_not_null(src) && (dst->type & KBPF_PTR_MAYBE_NULL);
	bool dst_nn = reg_not_null(dst) && (src->type & KBPF_PTR_MAYBE_NULL);
	if (dst_nn)
		mark_ptr_not_null_reg(&eq[insn->src_reg]);
	if (src_nn)
		mark_ptr_not_null_reg(&eq[insn->dst_reg]);
}

static void mark_ptr_or_null_regs(struct vstate *st, int regno, bool is_null)
{
	struct frame *cur = st->frame[st->curframe];
	uint32_t id = cur->regs[regno].id, ref = cur->regs[regno].ref_obj_id;
	if (ref && ref == id && is_null) {
		/* The null path holds no reference. */
		for (int i = 0; i < cur->nr_refs; i++)
			if (cur->refs[i].id == id) {
				cur->refs[i] = cur->refs[--cur->nr_refs];
				break;
			}
	}
	for (int f = 0; f <= st->curframe; f++) {
		struct frame *fr = st->frame[f];
		for (int i = 0; i < MAX_REG; i++)
			mark_or_null(&fr->regs[i], id, is_null);
		for (int s = 0; s < fr->allocated / 8; s++)
			if (fr->stack[s].type[7] == STACK_SPILL)
				mark_or_null(&fr->stack[s].spilled, id, is_null);
	}
}

static void find_good_pkt_pointers(struct vstate *st, const struct reg *dst, uint32_t type, bool right_open)
{
	if (dst->off < 0 || (dst->off == 0 && right_open))
		return;
	if (dst->s.umax_value > MAX_PACKET_OFF || dst->s.umax_value + dst->off > MAX_PACKET_OFF)
		return;
	int nr = dst->off + (right_open ? 1 : 0);
	uint32_t id = dst->id;
	for (int f = 0; f <= st->curframe; f++) {
		struct frame *fr = st->frame[f];
		for (int i = 0; i < MAX_REG; i++)
			if (fr->regs[i].type == type && fr->regs[i].id == id && fr->regs[i].range < nr)
				fr->regs[i].range = nr;
		for (int s = 0; s < fr->allocated / 8; s++) {
			struct reg *r = &fr->stack[s].spilled;
			if (fr->stack[s].type[7] == STACK_SPILL && r->type == type && r->id == id && r->range < nr)
				r->range = nr;
		}
	}
}

static void mark_pkt_end(struct vstate *st, int regno, bool open)
{
	struct reg *r = &st->frame[st->curframe]->regs[regno];
	if (r->type != KBPF_PTR_TO_PACKET)
		return;
	r->range = open ? BEYOND_PKT_END : AT_PKT_END;
}

static bool init_pkt(const struct reg *r, uint32_t type)
{
	return r->type == type && r->off == 0 && kbpf_tnum_equals_const(r->s.var_off, 0);
}

static bool match_pkt(const struct bpf_insn *insn, const struct reg *dst, const struct reg *src,
		      struct vstate *this_b, struct vstate *other)
{
	if (BPF_SRC(insn->code) != BPF_X || BPF_CLASS(insn->code) == BPF_JMP32)
		return false;
	bool fwd = (dst->type == KBPF_PTR_TO_PACKET && src->type == KBPF_PTR_TO_PACKET_END) ||
		   (dst->type == KBPF_PTR_TO_PACKET_META && init_pkt(src, KBPF_PTR_TO_PACKET));
	bool rev = (dst->type == KBPF_PTR_TO_PACKET_END && src->type == KBPF_PTR_TO_PACKET) ||
		   (init_pkt(dst, KBPF_PTR_TO_PACKET) && src->type == KBPF_PTR_TO_PACKET_META);
	int d = insn->dst_reg, s = insn->src_reg;
	struct reg dc = *dst, sc = *src;
	switch (BPF_OP(insn->code)) {
	case BPF_JGT:
		if (fwd) {
			find_good_pkt_pointers(this_b, &dc, dc.type, false);
			mark_pkt_end(other, d, true);
		} else if (rev) {
			find_good_pkt_pointers(other, &sc, sc.type, true);
			mark_pkt_end(this_b, s, false);
		} else {
			return false;
		}
		break;
	case BPF_JLT:
		if (fwd) {
			find_good_pkt_pointers(other, &dc, dc.type, true);
			mark_pkt_end(this_b, d, false);
		} else if (rev) {
			find_good_pkt_pointers(this_b, &sc, sc.type, false);
			mark_pkt_end(other, s, true);
		} else {
			return false;
		}
		break;
	case BPF_JGE:
		if (fwd) {
			find_good_pkt_pointers(this_b, &dc, dc.type, true);
			mark_pkt_end(other, d, false);
		} else if (rev) {
			find_good_pkt_pointers(other, &sc, sc.type, false);
			mark_pkt_end(this_b, s, true);
		} else {
			return false;
		}
		break;
	case BPF_JLE:
		if (fwd) {
			find_good_pkt_pointers(other, &dc, dc.type, false);
			mark_pkt_end(this_b, d, true);
		} else if (rev) {
			find_good_pkt_pointers(this_b, &sc, sc.type, true);
			mark_pkt_end(other, s, false);
		} else {
			return false;
		}
		break;
	default:
		return false;
	}
	return true;
}

/* Both sides of an undecided compare of two scalars narrowed, then each register's
 * bounds checked (6.12's reg_set_min_max). t1/t2 are dst/src on the taken branch, f1/f2
 * on the fall-through; a pair is one register when dst == src. */
static int refine_scalars(struct env *env, struct reg *t1, struct reg *t2, struct reg *f1, struct reg *f2,
			  uint8_t op, bool jmp32)
{
	int err;

	kbpf_scalar_refine_cond(&t1->s, &t2->s, &f1->s, &f2->s, op, jmp32);
	if ((err = reg_bounds_sanity_check(env, t1, "true_reg1")) ||
	    (err = reg_bounds_sanity_check(env, t2, "true_reg2")) ||
	    (err = reg_bounds_sanity_check(env, f1, "false_reg1")))
		return err;
	return reg_bounds_sanity_check(env, f2, "false_reg2");
}

/* Linux 6.9+'s may_goto: at run time a per-frame counter (BPF_MAX_LOOPS, set at the
 * subprogram's entry) decides: while it lasts the insn falls through (and counts), then
 * it jumps. Both ways are possible at every visit: the jump is walked now, the
 * fall-through is pushed one may_goto deeper, with the scalars that changed since the
 * last visit of this insn widened (so a loop's visits converge); prune.c then cuts a
 * visit that a shallower one covers. The counter ends every loop, so no loop bound is
 * needed from the program. */
static int check_may_goto(struct env *env, const struct bpf_insn *insn, int *insn_idx)
{
	int idx = *insn_idx, err = 0;
	if (insn->code != (BPF_JMP | KBPF_JCOND) || insn->src_reg != KBPF_MAY_GOTO || insn->dst_reg || insn->imm ||
	    insn->off == 0) {
		vlog(env, "invalid may_goto off %d imm %d\n", insn->off, insn->imm);
		return -EINVAL;
	}
	/* the earlier visit: not the checkpoint is_state_visited just made of this one */
	struct vstate *from = env->cur->parent && env->cur->parent->insn_idx == idx ? env->cur->parent : env->cur;
	struct vstate *prev = find_prev_entry(from, idx);
	struct vstate *fall = push_branch(env, idx + 1, idx, false, &err);
	if (!fall)
		return err;
	fall->may_goto_depth++;
	if (prev)
		widen_imprecise_scalars(env, prev, fall);
	*insn_idx += insn->off;
	return 0;
}

int check_cond_jmp(struct env *env, const struct bpf_insn *insn, int *insn_idx)
{
	struct vstate *this_b = env->cur;
	struct reg *regs = cur_regs(env);
	uint8_t op = BPF_OP(insn->code);
	bool jmp32 = BPF_CLASS(insn->code) == BPF_JMP32;
	struct reg *src = NULL;
	int pred = -1, err;

	if (op == KBPF_JCOND)
		return check_may_goto(env, insn, insn_idx);
	if (op == BPF_JA || op > BPF_JSLE) {
		vlog(env, "invalid BPF_JMP/JMP32 opcode %x\n", op);
		return -EINVAL;
	}
	if ((err = check_reg_read(env, insn->dst_reg)))
		return err;
	struct reg *dst = &regs[insn->dst_reg];
	if (BPF_SRC(insn->code) == BPF_X) {
		if (insn->imm) {
			vlog(env, "BPF_JMP/JMP32 uses reserved fields\n");
			return -EINVAL;
		}
		if ((err = check_reg_read(env, insn->src_reg)))
			return err;
		src = &regs[insn->src_reg];
		bool pkts = (reg_is_pkt(dst) || dst->type == KBPF_PTR_TO_PACKET_END) &&
			    (reg_is_pkt(src) || src->type == KBPF_PTR_TO_PACKET_END);
		if (!pkts && reg_is_pointer(src) && !env->perfmon) {
			vlog(env, "R%d pointer comparison prohibited\n", insn->src_reg);
			return -EACCES;
		}
	} else if (insn->src_reg) {
		vlog(env, "BPF_JMP/JMP32 uses reserved fields\n");
		return -EINVAL;
	}

	/* 6.12's INSN_F_{DST,SRC}_REG_STACK: an operand that is a stack pointer is no scalar
	 * for precision backtracking to follow */
	if ((err = hist_note_flags(env, (dst->type == KBPF_PTR_TO_STACK ? HIST_DST_STACK : 0) |
						 (src && src->type == KBPF_PTR_TO_STACK ? HIST_SRC_STACK : 0))))
		return err;
	if (BPF_SRC(insn->code) == BPF_K)
		pred = branch_taken(dst, (uint64_t)(int64_t)insn->imm, op, jmp32);
	else if (src->type == KBPF_SCALAR_VALUE && jmp32 && kbpf_tnum_subreg_is_const(src->s.var_off))
		pred = branch_taken(dst, kbpf_tnum_subreg(src->s.var_off).value, op, jmp32);
	else if (src->type == KBPF_SCALAR_VALUE && !jmp32 && kbpf_tnum_is_const(src->s.var_off))
		pred = branch_taken(dst, src->s.var_off.value, op, jmp32);
	else if (src->type == KBPF_SCALAR_VALUE && dst->type == KBPF_SCALAR_VALUE)
		/* two non-constant scalars (or a constant dst): 6.12 compares the ranges;
		 * 6.1 left every such branch to be walked both ways */
		pred = kbpf_scalar_branch_taken_regs(&dst->s, &src->s, op, jmp32);
	else if ((reg_is_pkt(dst) || dst->type == KBPF_PTR_TO_PACKET_END) &&
		 (reg_is_pkt(src) || src->type == KBPF_PTR_TO_PACKET_END) && !jmp32)
		pred = pkt_branch_taken(dst, src, op);

	if (pred >= 0) {
		if (dst->type == KBPF_SCALAR_VALUE && (err = mark_precise(env, insn->dst_reg)))
			return err;
		if (src && src->type == KBPF_SCALAR_VALUE && (err = mark_precise(env, insn->src_reg)))
			return err;
	}
	if (pred >= 0 && !env->perfmon) {
		/* Spectre v1: the dead side is still walked, speculatively, with the
		 * compared registers unknown (6.1 sanitize_speculative_path). */
		int next = pred == 1 ? *insn_idx + 1 : *insn_idx + insn->off + 1;
		struct vstate *b = push_branch(env, next, *insn_idx, true, &err);
		if (!b)
			return err;
		struct reg *br = b->frame[b->curframe]->regs;
		reg_mark_unknown(env, &br[insn->dst_reg]);
		if (BPF_SRC(insn->code) == BPF_X)
			reg_mark_unknown(env, &br[insn->src_reg]);
	}
	if (pred == 1) {
		*insn_idx += insn->off;
		return 0;
	}
	if (pred == 0)
		return 0;

	if ((err = note_linked(env, dst, src)))
		return err;
	struct vstate *other = push_branch(env, *insn_idx + insn->off + 1, *insn_idx, false, &err);
	if (!other)
		return err;
	struct reg *oregs = other->frame[other->curframe]->regs;

	if (src) {
		if (dst->type == KBPF_SCALAR_VALUE && src->type == KBPF_SCALAR_VALUE) {
			/* each operand's bounds now come from the other's too (keep_precise) */
			bool both = dst->precise && src->precise;
			keep_precise(dst, both), keep_precise(src, both);
			keep_precise(&oregs[insn->dst_reg], both), keep_precise(&oregs[insn->src_reg], both);
			if ((err = refine_scalars(env, &oregs[insn->dst_reg], &oregs[insn->src_reg], dst, src, op, jmp32)))
				return err;
			if (src->id) {
				find_equal_scalars(this_b, src);
				find_equal_scalars(other, &oregs[insn->src_reg]);
			}
		}
	} else if (dst->type == KBPF_SCALAR_VALUE) {
		/* 6.12 compares with a scalar register holding imm (env->fake_reg), one copy
		 * per side */
		struct reg kt = { .type = KBPF_SCALAR_VALUE }, kf;
		kbpf_scalar_mark_known(&kt.s, (uint64_t)(int64_t)insn->imm);
		kf = kt;
		if ((err = refine_scalars(env, &oregs[insn->dst_reg], &kt, dst, &kf, op, jmp32)))
			return err;
	}
	if (dst->type == KBPF_SCALAR_VALUE && dst->id) {
		find_equal_scalars(this_b, dst);
		find_equal_scalars(other, &oregs[insn->dst_reg]);
	}
	infer_not_null(insn, regs, oregs);
	if (!jmp32 && BPF_SRC(insn->code) == BPF_K && insn->imm == 0 && (op == BPF_JEQ || op == BPF_JNE) &&
	    (dst->type & KBPF_PTR_MAYBE_NULL)) {
		mark_ptr_or_null_regs(this_b, insn->dst_reg, op == BPF_JNE);
		mark_ptr_or_null_regs(other, insn->dst_reg, op == BPF_JEQ);
	} else {
		struct reg empty = { 0 };
		if (!match_pkt(insn, dst, src ? src : &empty, this_b, other) && reg_is_pointer(dst) && !env->perfmon) {
			vlog(env, "R%d pointer comparison prohibited\n", insn->dst_reg);
			return -EACCES;
		}
	}
	return 0;
}
