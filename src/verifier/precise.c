/* SPDX-License-Identifier: Apache-2.0 */
/* Precision tracking (Linux 6.1 mark_chain_precision, backtrack_insn): scalars start
 * imprecise after a checkpoint; when a scalar's exact value decides safety (pointer
 * arithmetic, a decided branch, a size argument…), the instructions that produced it are
 * walked backwards through this path's segments and the registers and stack slots it
 * came from are marked precise in every checkpoint on the way. states_equal ignores
 * imprecise scalars of a finished checkpoint. Unprivileged loads keep every scalar
 * precise. Where the walk cannot follow (calls, exits, LD_ABS, stores through a scalar),
 * it gives up and marks every scalar of every ancestor precise. From Linux 6.12: spills
 * and fills of scalars are followed through the slot they noted in the history, whatever
 * the base register (INSN_F_STACK_ACCESS), and scalars linked by id at a conditional
 * jump are made precise together (bt_sync_linked_regs); docs/verifier.md. */
#include <errno.h>
#include <stdlib.h>
#include "verifier/env.h"

int push_hist(struct vstate *st, int idx, int prev)
{
	struct hist *n = malloc(sizeof(*n));
	if (!n)
		return -ENOMEM;
	*n = (struct hist){ .idx = idx, .prev = prev, .refs = 1, .up = st->hist }; /* takes st's reference */
	st->hist = n;
	st->hist_cnt++;
	return 0;
}

/* The current insn's entry in cur, made or reused: copied first when another state
 * shares it (the list is immutable for everyone else). */
static struct hist *cur_entry(struct env *env)
{
	struct vstate *st = env->cur;
	struct hist *h = st->hist;
	if (h && h == env->cur_hist && h->idx == env->insn_idx) {
		if (h->refs > 1) {
			struct hist *n = malloc(sizeof(*n));
			if (!n)
				return NULL;
			*n = *h;
			n->refs = 1;
			if (n->up)
				n->up->refs++;
			h->refs--; /* st's reference moves to the copy; the sharers keep h */
			st->hist = h = n;
		}
	} else {
		if (push_hist(st, env->insn_idx, env->prev_insn_idx))
			return NULL;
		h = st->hist;
	}
	env->cur_hist = h;
	return h;
}

int hist_note_stack(struct env *env, uint32_t frameno, int spi)
{
	if (!env->priv || spi < 0 || spi >= 64)
		return 0; /* unprivileged: every scalar is precise, nothing is backtracked */
	struct hist *h = cur_entry(env);
	if (!h)
		return -ENOMEM;
	h->flags = HIST_STACK_ACCESS | (uint32_t)spi << 3 | (frameno & 7);
	return 0;
}

int hist_note_linked(struct env *env, uint16_t regs, uint64_t stack)
{
	if (!env->priv)
		return 0;
	struct hist *h = cur_entry(env);
	if (!h)
		return -ENOMEM;
	h->lregs |= regs;
	h->lstack |= stack;
	return 0;
}

void hist_put(struct hist *h)
{
	while (h && --h->refs == 0) {
		struct hist *up = h->up;
		free(h);
		h = up;
	}
}

void hist_pop(struct vstate *st)
{
	struct hist *h = st->hist;
	if (!h)
		return;
	st->hist = h->up;
	if (st->hist)
		st->hist->refs++;
	st->hist_cnt--;
	hist_put(h);
}

void hist_clear(struct vstate *st)
{
	hist_put(st->hist);
	st->hist = NULL;
	st->hist_cnt = 0;
}

static void set_precise_all(struct vstate *st, bool v)
{
	for (int f = 0; f <= st->curframe; f++) {
		struct frame *fr = st->frame[f];
		for (int i = 0; i < MAX_REG; i++)
			if (fr->regs[i].type == KBPF_SCALAR_VALUE)
				fr->regs[i].precise = v;
		for (int s = 0; s < fr->allocated / 8; s++)
			if (fr->stack[s].type[7] == STACK_SPILL && fr->stack[s].spilled.type == KBPF_SCALAR_VALUE)
				fr->stack[s].spilled.precise = v;
	}
}

void clear_precision(struct vstate *st)
{
	set_precise_all(st, false);
}

/* Everything precise in st and its ancestors. A checkpoint (frozen: its marks only
 * grow) is flagged once done, and so are its ancestors, so later give-ups stop there:
 * without it, a long loop walk giving up at every prune point re-marked the whole
 * chain each time (quadratic: minutes for a 133-insn program the soundness generator
 * found). st itself may be the live state, whose new scalars start imprecise: never
 * flagged. */
static void give_up(struct vstate *st)
{
	set_precise_all(st, true);
	for (st = st->parent; st && !st->all_precise; st = st->parent) {
		set_precise_all(st, true);
		st->all_precise = true;
	}
}

enum { BT_OK = 0, BT_GIVE_UP = 1 };

/* Longest history segment mark_chain_precision walks (see there). */
#define MAX_WALK_HIST 256

/* Linux 6.12's bt_sync_linked_regs: scalars linked at a conditional jump got their bounds
 * from the same compare, so precision of one needs all of them (and the compared ones). */
static void sync_linked(const struct hist *e, uint32_t *regs, uint64_t *stack)
{
	if (e && ((*regs & e->lregs) || (*stack & e->lstack))) {
		*regs |= e->lregs;
		*stack |= e->lstack;
	}
}

/* The stack slot of frame that e says insn accessed (Linux 6.12's INSN_F_STACK_ACCESS,
 * whatever the base register), else with R10 as base the slot of off (6.1's rule);
 * -1: none; -2: another frame's slot or out of range (not followed). */
static int access_slot(const struct hist *e, int frame, int base, int16_t off)
{
	if (e && (e->flags & HIST_STACK_ACCESS))
		return (int)(e->flags & 7) == frame ? (int)(e->flags >> 3) : -2;
	if (base != FP_REG)
		return -1;
	int spi = (-off - 1) / 8;
	return spi < 0 || spi >= 64 ? -2 : spi;
}

/* subseq: the insn the path took after idx; e: idx's history entry on this path, if any. */
static int backtrack_insn(struct env *env, int idx, int subseq, const struct hist *e, int frame, uint32_t *regs,
			  uint64_t *stack)
{
	const struct bpf_insn *in = &env->insns[idx];
	uint8_t cls = BPF_CLASS(in->code), op = BPF_OP(in->code), mode = BPF_MODE(in->code);
	uint32_t d = 1u << in->dst_reg, s = 1u << in->src_reg;

	if (env->level & KBPF_LOG_LEVEL2) {
		/* 6.12: "mark_precise: frame0: regs=r1,r2 stack=-8 before 5: (bf) r1 = r2" */
		vlog_precise_masks(env, env->cur->curframe, "", *regs, *stack);
		vlog(env, " before ");
		vlog_insn_text(env, idx);
	}
	sync_linked(e, regs, stack);
	if (cls == BPF_ALU || cls == BPF_ALU64) {
		if (!(*regs & d))
			return BT_OK;
		if (op == BPF_MOV) {
			*regs &= ~d;
			if (BPF_SRC(in->code) == BPF_X)
				*regs |= s;
		} else if (BPF_SRC(in->code) == BPF_X) {
			*regs |= s;
		}
	} else if (cls == BPF_LDX) {
		if (!(*regs & d))
			return BT_OK;
		*regs &= ~d;
		int spi = access_slot(e, frame, in->src_reg, in->off);
		if (spi == -2)
			return BT_GIVE_UP;
		if (spi >= 0)
			*stack |= 1ull << spi;
	} else if (cls == BPF_STX || cls == BPF_ST) {
		if (*regs & d)
			return BT_GIVE_UP;
		int spi = access_slot(e, frame, in->dst_reg, in->off);
		if (cls == BPF_STX && mode == BPF_ATOMIC) {
			/* fetch forms load into src (or R0): not followed */
			if ((in->imm & BPF_FETCH) && (*regs & (in->imm == BPF_CMPXCHG ? 1u : s)))
				return BT_GIVE_UP;
			if (spi == -2 || (spi >= 0 && (*stack & (1ull << spi))))
				return BT_GIVE_UP;
			return BT_OK;
		}
		if (spi == -2) {
			/* another frame's slot: ours are untouched */
			if (e && (e->flags & HIST_STACK_ACCESS))
				return BT_OK;
			return BT_GIVE_UP;
		}
		if (spi < 0 || !(*stack & (1ull << spi)))
			return BT_OK;
		*stack &= ~(1ull << spi);
		if (cls == BPF_STX)
			*regs |= s;
	} else if (cls == BPF_JMP || cls == BPF_JMP32) {
		if (op == BPF_CALL) {
			/* A helper that calls back is a helper on the path that goes on after it
			 * (its callback's visits come back to it through their exit, where the
			 * walk gives up), and the callee's entry on a callback's path (6.12):
			 * there the walk gives up too. */
			if (in->src_reg != 0 || (is_sync_callback_helper(in->imm) && subseq != idx + 1))
				return BT_GIVE_UP;
			*regs &= ~1u;
			if (*regs & 0x3e)
				return BT_GIVE_UP;
		} else if (op == BPF_EXIT) {
			return BT_GIVE_UP;
		} else if (op != BPF_JA && BPF_SRC(in->code) == BPF_X) {
			if (*regs & (d | s))
				*regs |= d | s;
		}
	} else if (cls == BPF_LD) {
		if (!(*regs & d))
			return BT_OK;
		*regs &= ~d;
		if (mode == BPF_ABS || mode == BPF_IND)
			return BT_GIVE_UP;
	}
	sync_linked(e, regs, stack);
	return BT_OK;
}

/* The insn before i on this path (6.1 get_prev_insn_idx; the second half of an
 * ld_imm64 is stepped over). */
static int prev_insn(struct env *env, const struct hist **h, int i, int *hist)
{
	if (*hist && (*h)->idx == i) {
		int prev = (*h)->prev;
		*h = (*h)->up;
		--*hist;
		return prev;
	}
	if (i >= 2 && env->insns[i - 2].code == (BPF_LD | BPF_IMM | BPF_DW))
		return i - 2;
	return i - 1;
}

/* Mark reg_mask / stack_mask of frame precise in the current state and, following the
 * instructions that produced them, in its ancestors. */
int mark_chain_precision(struct env *env, int frame, uint32_t regs, uint64_t stack)
{
	struct vstate *st = env->cur;
	if (!env->priv)
		return 0;
	struct frame *fr = st->frame[frame];
	/* Already precise in the current state: its dependencies were marked, skip the walk.
	 * That holds because whatever makes a precise scalar depend on another scalar without
	 * a walk clears the mark or walks for the other: ALU (alu.c: "dst precise" marks the
	 * source), conditional jumps and linked copies (jmp.c: keep_precise). */
	for (int i = 0; i < MAX_REG; i++)
		if ((regs & (1u << i)) && fr->regs[i].type == KBPF_SCALAR_VALUE) {
			if (fr->regs[i].precise && !fr->regs[i].precise_forced && frame == st->curframe)
				regs &= ~(1u << i);
			fr->regs[i].precise = true;
			fr->regs[i].precise_forced = false; /* a verdict rests on it */
		}
	for (int i = 0; i < fr->allocated / 8; i++)
		if ((stack & (1ull << i)) && fr->stack[i].type[7] == STACK_SPILL &&
		    fr->stack[i].spilled.type == KBPF_SCALAR_VALUE) {
			if (fr->stack[i].spilled.precise)
				stack &= ~(1ull << i);
			fr->stack[i].spilled.precise = true;
			fr->stack[i].spilled.precise_forced = false;
		}
	if (!regs && !stack)
		return 0;
	if (frame != st->curframe) {
		/* Registers of a caller frame: their producers are before the call. */
		give_up(st);
		return 0;
	}
	/* A segment normally ends at 40 jumps (prune.c forces a checkpoint); once no more
	 * checkpoints can be stored (MAX_STORED_STATES) it grows with the path, and walking
	 * it on every request is quadratic in the path's length (a loop running to the insn
	 * limit took hours): everything precise instead, which is sound and ends such walks. */
	if (st->hist_cnt > MAX_WALK_HIST && env->total_states >= MAX_STORED_STATES) {
		give_up(st);
		return 0;
	}
	int last = env->insn_idx, first = st->first_insn_idx;
	bool skip_first = true;
	int subseq = -1; /* the insn after i on the path */
	for (;;) {
		int hist = st->hist_cnt;
		const struct hist *h = st->hist;
		if (env->level & KBPF_LOG_LEVEL2)
			vlog(env, "mark_precise: frame%d: last_idx %d first_idx %d subseq_idx %d \n", frame, last,
			     first, subseq);
		for (int i = last;;) {
			const struct hist *e = hist && h->idx == i ? h : NULL;
			if (skip_first)
				skip_first = false;
			else if (backtrack_insn(env, i, subseq, e, frame, &regs, &stack) == BT_GIVE_UP) {
				give_up(st);
				return 0;
			}
			if (!regs && !stack)
				return 0;
			subseq = i;
			/* The segment's first insn: done unless a later visit of it is in the
			 * history (an arrival by a jump; the first visit's arrival belongs to
			 * the parent, but it may have a note of its own, the last entry left). */
			if (i == first && (!hist || (hist == 1 && e && !e->jump)))
				break;
			i = prev_insn(env, &h, i, &hist);
			if (i < 0 || i >= env->cnt) {
				give_up(st);
				return 0;
			}
		}
		st = st->parent;
		if (!st)
			break;
		if (st->curframe != frame) {
			give_up(st);
			return 0;
		}
		bool new_marks = false;
		fr = st->frame[frame];
		for (int i = 0; i < MAX_REG; i++) {
			if (!(regs & (1u << i)))
				continue;
			if (fr->regs[i].type != KBPF_SCALAR_VALUE) {
				regs &= ~(1u << i);
				continue;
			}
			if (!fr->regs[i].precise)
				new_marks = true;
			fr->regs[i].precise = true;
		}
		for (int i = 0; i < 64; i++) {
			if (!(stack & (1ull << i)))
				continue;
			if (i >= fr->allocated / 8) {
				give_up(st);
				return 0;
			}
			struct reg *r = &fr->stack[i].spilled;
			if (fr->stack[i].type[7] == STACK_ZERO) {
				/* 6.12 would keep a spilled 0 here, precise from here up to where
				 * it was written: recorded for callback.c's widening */
				if (!(fr->stack_zero_precise & (1ull << i)))
					new_marks = true;
				fr->stack_zero_precise |= 1ull << i;
				continue;
			}
			if (fr->stack[i].type[7] != STACK_SPILL || r->type != KBPF_SCALAR_VALUE) {
				stack &= ~(1ull << i);
				continue;
			}
			if (!r->precise)
				new_marks = true;
			r->precise = true;
		}
		if (env->level & KBPF_LOG_LEVEL2) {
			vlog_precise_masks(env, frame, "parent state ", regs, stack);
			vlog(env, ": ");
			vlog_state(env, fr, true);
		}
		if (!new_marks || (!regs && !stack))
			break;
		last = st->last_insn_idx;
		first = st->first_insn_idx;
		if (last < 0)
			break; /* a checkpoint at the walk's first insn: nothing led to it */
	}
	return 0;
}

int mark_precise(struct env *env, int regno)
{
	if (cur_regs(env)[regno].type != KBPF_SCALAR_VALUE)
		return 0;
	return mark_chain_precision(env, env->cur->curframe, 1u << regno, 0);
}
