/* SPDX-License-Identifier: Apache-2.0 */
/* Precision tracking (Linux 6.12's __mark_chain_precision, backtrack_insn): scalars start
 * imprecise after a checkpoint; when a scalar's exact value decides safety (pointer
 * arithmetic, a decided branch, a size argument…), the instructions that produced it are
 * walked backwards through this path's segments, across calls, returns and callbacks, and
 * the registers and stack slots (of any frame) it came from are marked precise in every
 * checkpoint on the way. states_equal ignores imprecise scalars of a finished checkpoint.
 * Unprivileged loads keep every scalar precise. Spills and fills of scalars are followed
 * through the slot they noted in the history, whatever the base register, and scalars
 * linked by id at a conditional jump are made precise together; where the walk cannot
 * follow (LD_ABS results, stores through a scalar, a missing producer) it gives up and
 * marks every scalar of every checkpoint above precise; docs/verifier.md. */
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
	if (!env->priv || spi < 0 || spi >= 64 || frameno >= KBPF_MAX_CALL_FRAMES)
		return 0; /* unprivileged: every scalar is precise, nothing is backtracked */
	struct hist *h = cur_entry(env);
	if (!h)
		return -ENOMEM;
	h->flags = (h->flags & (HIST_DST_STACK | HIST_SRC_STACK)) | HIST_STACK_ACCESS |
		   (uint32_t)spi << HIST_SPI_SHIFT | frameno;
	return 0;
}

int hist_note_flags(struct env *env, uint32_t flags)
{
	if (!env->priv || !flags)
		return 0;
	struct hist *h = cur_entry(env);
	if (!h)
		return -ENOMEM;
	h->flags |= flags;
	return 0;
}

int hist_note_linked(struct env *env, const uint16_t *linked, int n)
{
	if (!env->priv || n < 2)
		return 0;
	struct hist *h = cur_entry(env);
	if (!h)
		return -ENOMEM;
	if (n > HIST_LINKED_MAX)
		n = HIST_LINKED_MAX;
	for (int i = 0; i < n; i++)
		h->linked[i] = linked[i];
	h->nlinked = (uint8_t)n;
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

/* Linux 6.12's mark_all_scalars_precise: every scalar precise in the ancestors of the
 * current state (its own marks do not matter, see mark_chain_precision). A checkpoint
 * (frozen: its marks only grow) is flagged once done, and so are its ancestors, so later
 * give-ups stop there: without it, a long loop walk giving up at every prune point
 * re-marked the whole chain each time (quadratic: minutes for a 133-insn program the
 * soundness generator found). */
static void give_up(struct env *env)
{
	if (env->level & KBPF_LOG_LEVEL2)
		vlog(env, "mark_precise: frame%d: falling back to forcing all scalars precise\n", env->cur->curframe);
	for (struct vstate *st = env->cur->parent; st && !st->all_precise; st = st->parent) {
		set_precise_all(st, true);
		st->all_precise = true;
	}
}

/* What the walk still looks for (Linux 6.12's backtrack_state): per frame, the registers
 * and stack slots whose producers are not found yet; frame: the frame of the insn the
 * walk is at. */
struct bt {
	int frame;
	uint32_t regs[KBPF_MAX_CALL_FRAMES];
	uint64_t stack[KBPF_MAX_CALL_FRAMES];
};

static bool bt_empty(const struct bt *bt)
{
	uint64_t m = 0;
	for (int i = 0; i <= bt->frame; i++)
		m |= bt->regs[i] | bt->stack[i];
	return !m;
}

enum { BT_OK = 0, BT_GIVE_UP = 1 };

#define ARG_REGS 0x3eu /* r1-r5 */

/* Longest history segment mark_chain_precision walks (see there). */
#define MAX_WALK_HIST 256

/* Linux 6.12's bt_sync_linked_regs: scalars linked at a conditional jump got their bounds
 * from the same compare, so precision of one needs all of them. */
static void sync_linked(const struct hist *e, struct bt *bt)
{
	if (!e || !e->nlinked)
		return;
	bool some = false;
	for (int i = 0; i < e->nlinked && !some; i++) {
		int f = HIST_LINK_FRAME(e->linked[i]), n = HIST_LINK_IDX(e->linked[i]);
		if (f > bt->frame)
			continue;
		some = HIST_LINK_IS_REG(e->linked[i]) ? (bt->regs[f] >> n) & 1 : (bt->stack[f] >> n) & 1;
	}
	if (!some)
		return;
	for (int i = 0; i < e->nlinked; i++) {
		int f = HIST_LINK_FRAME(e->linked[i]), n = HIST_LINK_IDX(e->linked[i]);
		if (f > bt->frame)
			continue; /* not a frame of this path at the jump: cannot happen */
		if (HIST_LINK_IS_REG(e->linked[i]))
			bt->regs[f] |= 1u << n;
		else
			bt->stack[f] |= 1ull << n;
	}
}

static bool hist_stack(const struct hist *e, int *frame, int *spi)
{
	if (!e || !(e->flags & HIST_STACK_ACCESS))
		return false;
	*frame = (int)(e->flags & HIST_FRAME_MASK);
	*spi = (int)((e->flags >> HIST_SPI_SHIFT) & 63);
	return true;
}

static bool is_pseudo_call(const struct bpf_insn *in)
{
	return in->code == (BPF_JMP | BPF_CALL) && in->src_reg == BPF_PSEUDO_CALL;
}

/* Linux 6.12's backtrack_insn: from what bt needs after insn idx, what it needs before.
 * subseq: the insn the path took after idx; e: idx's history entry on this path, if any. */
static int backtrack_insn(struct env *env, int idx, int subseq, const struct hist *e, struct bt *bt)
{
	const struct bpf_insn *in = &env->insns[idx];
	uint8_t cls = BPF_CLASS(in->code), op = BPF_OP(in->code), mode = BPF_MODE(in->code);
	uint32_t d = 1u << in->dst_reg, s = 1u << in->src_reg;
	int fr, spi;

	if (in->code == 0)
		return BT_OK; /* the second half of an ld_imm64 */
	if (bt->frame >= KBPF_MAX_CALL_FRAMES)
		return BT_GIVE_UP;
	uint32_t *regs = &bt->regs[bt->frame];
	if (env->level & KBPF_LOG_LEVEL2) {
		/* 6.12: "mark_precise: frame0: regs=r1,r2 stack=-8 before 5: (bf) r1 = r2" */
		vlog_precise_masks(env, bt->frame, "", *regs, bt->stack[bt->frame]);
		vlog(env, " before ");
		vlog_insn_text(env, idx);
	}
	sync_linked(e, bt);
	if (cls == BPF_ALU || cls == BPF_ALU64) {
		if (!(*regs & d))
			return BT_OK;
		if (op == BPF_END || op == BPF_NEG)
			return BT_OK;
		if (op == BPF_MOV) {
			*regs &= ~d;
			if (BPF_SRC(in->code) == BPF_X && in->src_reg != FP_REG)
				*regs |= s;
		} else if (BPF_SRC(in->code) == BPF_X && in->src_reg != FP_REG) {
			*regs |= s;
		}
	} else if (cls == BPF_LDX || (cls == BPF_STX && mode == BPF_ATOMIC && (in->imm & BPF_FETCH))) {
		uint32_t load = cls == BPF_LDX ? d : in->imm == BPF_CMPXCHG ? 1u : s;
		if (!(*regs & load))
			return BT_OK;
		*regs &= ~load;
		/* only a fill from the stack restores a scalar exactly; any other load's
		 * value is precise as loaded (its register is marked where used) */
		if (hist_stack(e, &fr, &spi)) {
			if (fr > bt->frame)
				return BT_GIVE_UP;
			bt->stack[fr] |= 1ull << spi;
		}
	} else if (cls == BPF_STX || cls == BPF_ST) {
		if (*regs & d)
			return BT_GIVE_UP; /* a scalar as a store's base: pointer subtraction */
		if (!hist_stack(e, &fr, &spi))
			return BT_OK; /* scalars are tracked only through stack slots */
		if (fr > bt->frame)
			return BT_GIVE_UP;
		if (!(bt->stack[fr] & (1ull << spi)))
			return BT_OK;
		bt->stack[fr] &= ~(1ull << spi);
		if (cls == BPF_STX)
			*regs |= s;
	} else if (cls == BPF_JMP || cls == BPF_JMP32) {
		if (is_pseudo_call(in)) {
			int sub = find_subprog(env, idx + in->imm + 1);
			if (sub < 0)
				return BT_GIVE_UP;
			if (subprog_is_global(env, sub)) {
				/* not walked into: it sets R0, clobbers R1-R5 */
				if (subseq != idx + 1 || (*regs & ARG_REGS))
					return BT_GIVE_UP;
				*regs &= ~1u;
				return BT_OK;
			}
			/* the call that entered the frame the walk is in: only its arguments
			 * can still be wanted, in the caller */
			if ((*regs & ~ARG_REGS) || bt->stack[bt->frame] || bt->frame == 0)
				return BT_GIVE_UP;
			bt->regs[bt->frame - 1] |= *regs & ARG_REGS;
			*regs = 0;
			bt->frame--;
			return BT_OK;
		}
		if (op == BPF_CALL && in->src_reg == 0 && in->imm == BPF_FUNC_tail_call && subseq != idx + 1) {
			/* the path left the called function here (a tail call's exit, R0
			 * unknown: verifier.c): the walk enters it, nothing of the caller's R0
			 * is wanted there, and R1-R5 were the call's */
			*regs &= ~1u;
			if ((*regs & ARG_REGS) || bt->frame + 1 >= KBPF_MAX_CALL_FRAMES)
				return BT_GIVE_UP;
			bt->frame++;
			bt->regs[bt->frame] = 0;
			bt->stack[bt->frame] = 0;
			return BT_OK;
		}
		if (op == BPF_CALL && subseq != idx + 1) {
			/* the path went from this call into a callback (6.12: callbacks of
			 * bpf_loop & co. start at the call): the callback's arguments are not
			 * the call's, nothing of the callback is wanted before its start */
			if (in->src_reg != 0 || !is_sync_callback_helper(in->imm))
				return BT_GIVE_UP;
			if ((*regs & ~ARG_REGS) || bt->stack[bt->frame] || bt->frame == 0)
				return BT_GIVE_UP;
			*regs = 0;
			bt->frame--;
			return BT_OK;
		}
		if (op == BPF_CALL) {
			/* a helper or kfunc sets R0; arguments must have been found */
			*regs &= ~1u;
			if (*regs & ARG_REGS)
				return BT_GIVE_UP;
		} else if (op == BPF_EXIT) {
			/* the walk enters the callee that returned here: R0 is the subprogram's
			 * result; a callback's R0 is not (the helper's R0 is its own) */
			bool from_call = subseq >= 1 && subseq <= env->cnt && is_pseudo_call(&env->insns[subseq - 1]);
			bool r0 = from_call && (*regs & 1u);
			if (from_call && (*regs & ARG_REGS))
				return BT_GIVE_UP;
			*regs &= ~1u;
			if (bt->frame + 1 >= KBPF_MAX_CALL_FRAMES)
				return BT_GIVE_UP;
			bt->frame++;
			bt->regs[bt->frame] = r0 ? 1u : 0;
			bt->stack[bt->frame] = 0;
			return BT_OK;
		} else if (op != BPF_JA && BPF_SRC(in->code) == BPF_X) {
			if (!(*regs & (d | s)))
				return BT_OK;
			/* both operands: a stack pointer's value is not a scalar's */
			if (!e || !(e->flags & HIST_SRC_STACK))
				*regs |= s;
			if (!e || !(e->flags & HIST_DST_STACK))
				*regs |= d;
		}
	} else if (cls == BPF_LD) {
		if (mode == BPF_IMM) {
			*regs &= ~d;
			return BT_OK;
		}
		if (mode == BPF_ABS || mode == BPF_IND) {
			/* R0 set by the load (not followed); a path that left the subprogram
			 * through its implicit exit enters it here */
			if (*regs & d)
				return BT_GIVE_UP;
			if (subseq != idx + 1) {
				if (bt->frame + 1 >= KBPF_MAX_CALL_FRAMES)
					return BT_GIVE_UP;
				bt->frame++;
				bt->regs[bt->frame] = 0;
				bt->stack[bt->frame] = 0;
			}
			return BT_OK;
		}
	}
	sync_linked(e, bt);
	return BT_OK;
}

/* The insn before i on this path (6.12 get_prev_insn_idx; the second half of an ld_imm64
 * is a walked insn of code 0, as in Linux). */
static int prev_insn(const struct hist **h, int i, int *hist)
{
	if (*hist && (*h)->idx == i) {
		int prev = (*h)->prev;
		*h = (*h)->up;
		--*hist;
		return prev;
	}
	return i - 1;
}

/* In checkpoint st, mark what bt wants of frame fr precise; what already was has its
 * producers marked (a checkpoint's marks only grow), so the walk stops looking for it. */
static bool mark_in_parent(struct env *env, struct vstate *st, struct bt *bt, int fr)
{
	struct frame *f = st->frame[fr];
	for (int i = 0; i < MAX_REG; i++) {
		if (!(bt->regs[fr] & (1u << i)))
			continue;
		if (f->regs[i].type != KBPF_SCALAR_VALUE || f->regs[i].precise)
			bt->regs[fr] &= ~(1u << i);
		else
			f->regs[i].precise = true;
	}
	for (int i = 0; i < 64; i++) {
		if (!(bt->stack[fr] & (1ull << i)))
			continue;
		if (i >= f->allocated / 8)
			return false;
		struct reg *r = &f->stack[i].spilled;
		if (f->stack[i].type[7] == STACK_ZERO) {
			/* a zeroed slot (an unaligned zero write, Linux 6.12 keeps it too): its
			 * value is exact already; recorded for callback.c's widening */
			f->stack_zero_precise |= 1ull << i;
			bt->stack[fr] &= ~(1ull << i);
			continue;
		}
		if (f->stack[i].type[7] != STACK_SPILL || r->type != KBPF_SCALAR_VALUE || r->precise)
			bt->stack[fr] &= ~(1ull << i);
		else
			r->precise = true;
	}
	if (env->level & KBPF_LOG_LEVEL2) {
		vlog_precise_masks(env, fr, "parent state ", bt->regs[fr], bt->stack[fr]);
		vlog(env, ": ");
		vlog_state(env, f, true);
	}
	return true;
}

/* Linux 6.12's __mark_chain_precision: the registers and slots bt wants (of any frame of
 * the current state) are made precise in the checkpoints this path descends from, with
 * the registers and slots their values were computed from, walking the path's
 * instructions backwards across calls, returns and callbacks. The current state gets no
 * marks: they would not matter (its scalars are used as they are; a checkpoint copied
 * from it starts imprecise); so a scalar precise here is walked for again. */
static int mark_chain_batch(struct env *env, struct bt *bt)
{
	struct vstate *st = env->cur;
	if (!env->priv || bt_empty(bt))
		return 0;
	/* A segment normally ends at 40 jumps (prune.c forces a checkpoint); once no more
	 * checkpoints can be stored (MAX_STORED_STATES) it grows with the path, and walking
	 * it on every request is quadratic in the path's length (a loop running to the insn
	 * limit took hours): everything precise instead, which is sound and ends such walks. */
	if (st->hist_cnt > MAX_WALK_HIST && env->total_states >= MAX_STORED_STATES) {
		give_up(env);
		return 0;
	}
	int last = env->insn_idx, first = st->first_insn_idx;
	bool skip_first = true;
	int subseq = -1; /* the insn after i on the path */
	for (;;) {
		int hist = st->hist_cnt;
		const struct hist *h = st->hist;
		if (env->level & KBPF_LOG_LEVEL2)
			vlog(env, "mark_precise: frame%d: last_idx %d first_idx %d subseq_idx %d \n", bt->frame, last,
			     first, subseq);
		if (last < 0) {
			/* a checkpoint at the walk's first insn (a global subprogram's entry, or
			 * the program's): nothing led to it; its arguments are as given */
			if (st->curframe == 0 && bt->frame == 0 && !bt->stack[0] && !(bt->regs[0] & ~ARG_REGS))
				return 0;
			give_up(env);
			return 0;
		}
		for (int i = last;;) {
			const struct hist *e = hist && h->idx == i ? h : NULL;
			if (skip_first)
				skip_first = false;
			else if (backtrack_insn(env, i, subseq, e, bt) == BT_GIVE_UP) {
				give_up(env);
				return 0;
			}
			if (bt_empty(bt))
				return 0;
			subseq = i;
			/* The segment's first insn: done unless a later visit of it is in the
			 * history (an arrival by a jump; the first visit's arrival belongs to
			 * the parent, but it may have a note of its own, the last entry left). */
			if (i == first && (!hist || (hist == 1 && e && !e->jump)))
				break;
			i = prev_insn(&h, i, &hist);
			if (i < 0 || i >= env->cnt) {
				give_up(env);
				return 0;
			}
		}
		st = st->parent;
		if (!st)
			break;
		if (bt->frame > st->curframe) {
			give_up(env);
			return 0;
		}
		for (int fr = bt->frame; fr >= 0; fr--)
			if (!mark_in_parent(env, st, bt, fr)) {
				give_up(env);
				return 0;
			}
		if (bt_empty(bt))
			return 0;
		subseq = first;
		last = st->last_insn_idx;
		first = st->first_insn_idx;
	}
	/* still wanted at the start of the path: something was missed */
	if (!bt_empty(bt))
		give_up(env);
	return 0;
}

/* reg_mask / stack_mask of frame, with the frames of the current state. */
static int mark_chain_precision(struct env *env, int frame, uint32_t regs, uint64_t stack)
{
	struct bt bt = { .frame = env->cur->curframe };
	if (frame > bt.frame)
		return 0;
	bt.regs[frame] = regs;
	bt.stack[frame] = stack;
	return mark_chain_batch(env, &bt);
}

/* Linux 6.12's propagate_precision: what is precise (and read) in the covering state sl
 * must be in the checkpoints of the current path too. all: every precise scalar (the
 * state's liveness may be incomplete). */
int propagate_precision(struct env *env, const struct vstate *sl, bool all)
{
	struct bt bt = { .frame = env->cur->curframe };
	if (!env->priv || sl->curframe != bt.frame)
		return 0;
	for (int f = sl->curframe; f >= 0; f--) {
		const struct frame *of = sl->frame[f];
		bool first = true;
		for (int i = 0; i < FP_REG; i++) {
			if (of->regs[i].type != KBPF_SCALAR_VALUE || !of->regs[i].precise ||
			    (!all && !(of->live_read & (1u << i))))
				continue;
			if (env->level & KBPF_LOG_LEVEL2)
			{
				if (first)
					vlog(env, "frame %d: propagating r%d", f, i);
				else
					vlog(env, ",r%d", i);
			}
			bt.regs[f] |= 1u << i;
			first = false;
		}
		for (int i = 0; i < of->allocated / 8 && i < 64; i++) {
			const struct stack_slot *sl8 = &of->stack[i];
			if (sl8->type[7] != STACK_SPILL || sl8->spilled.type != KBPF_SCALAR_VALUE ||
			    !sl8->spilled.precise || (!all && !(of->stack_live_read & (1ull << i))))
				continue;
			if (env->level & KBPF_LOG_LEVEL2) {
				if (first)
					vlog(env, "frame %d: propagating fp%d", f, (-i - 1) * 8);
				else
					vlog(env, ",fp%d", (-i - 1) * 8);
			}
			bt.stack[f] |= 1ull << i;
			first = false;
		}
		if (!first && (env->level & KBPF_LOG_LEVEL2))
			vlog(env, "\n");
	}
	return mark_chain_batch(env, &bt);
}

int mark_precise(struct env *env, int regno)
{
	if (regno < 0 || cur_regs(env)[regno].type != KBPF_SCALAR_VALUE)
		return 0;
	return mark_chain_precision(env, env->cur->curframe, 1u << regno, 0);
}
