/* SPDX-License-Identifier: Apache-2.0 */
/* Register, stack and frame states: construction, copies, the basic marks. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "verifier/env.h"

struct vstate *state_new(void)
{
	return calloc(1, sizeof(struct vstate));
}

void state_free(struct vstate *st)
{
	if (!st)
		return;
	for (int i = 0; i < KBPF_MAX_CALL_FRAMES; i++)
		frame_free(st->frame[i]);
	hist_put(st->hist);
	free(st);
}

/* A frame with room for slots stack slots in the same allocation (not initialised). */
static struct frame *frame_alloc(int slots)
{
	struct frame *f = malloc(sizeof(*f) + (size_t)slots * sizeof(struct stack_slot));
	if (!f)
		return NULL;
	f->stack = f->inl;
	f->stack_cap = slots;
	return f;
}

void frame_free(struct frame *f)
{
	if (!f)
		return;
	if (f->stack != f->inl)
		free(f->stack);
	free(f);
}

/* dst (room for src's allocated slots) becomes a copy of src: what is above the stack
 * pointer in one block, then the live refs and slots only. */
static void frame_copy(struct frame *dst, const struct frame *src)
{
	memcpy(dst, src, offsetof(struct frame, stack));
	memcpy(dst->refs, src->refs, (size_t)src->nr_refs * sizeof(struct ref));
	memcpy(dst->stack, src->stack, (size_t)(src->allocated / 8) * sizeof(struct stack_slot));
}

/* dst becomes a deep copy of src (frames included); list links are not copied. A frame
 * of dst is reused when its stack has room (pop_branch copies into env->cur), else it
 * is replaced by one sized to src's allocated stack, as Linux's copy_func_state. */
int state_copy_into(struct vstate *dst, const struct vstate *src)
{
	for (int i = 0; i < KBPF_MAX_CALL_FRAMES; i++) {
		if (i <= src->curframe && src->frame[i]) {
			const struct frame *sf = src->frame[i];
			int slots = sf->allocated / 8;
			if (!dst->frame[i] || dst->frame[i]->stack_cap < slots) {
				struct frame *nf = frame_alloc(slots);
				if (!nf)
					return -ENOMEM;
				frame_free(dst->frame[i]);
				dst->frame[i] = nf;
			}
			frame_copy(dst->frame[i], sf);
		} else {
			frame_free(dst->frame[i]);
			dst->frame[i] = NULL;
		}
	}
	dst->curframe = src->curframe;
	dst->active_spin_lock = src->active_spin_lock;
	dst->active_lock_map = src->active_lock_map;
	dst->speculative = src->speculative;
	dst->insn_idx = src->insn_idx;
	dst->parent = src->parent;
	dst->branches = src->branches;
	dst->first_insn_idx = src->first_insn_idx;
	dst->last_insn_idx = src->last_insn_idx;
	dst->all_precise = false; /* only checkpoints earn it (precise.c give_up) */
	dst->callback_unroll_depth = src->callback_unroll_depth;
	dst->may_goto_depth = src->may_goto_depth;
	dst->dfs_depth = src->dfs_depth;
	dst->loop_incomplete = false; /* only checkpoints get it (prune.c) */
	dst->loop_hdr = NULL;
	struct hist *old = dst->hist;
	dst->hist = src->hist; /* shared, not copied */
	if (dst->hist)
		dst->hist->refs++;
	dst->hist_cnt = src->hist_cnt;
	hist_put(old);
	return 0;
}

struct vstate *state_copy(const struct vstate *src)
{
	struct vstate *st = state_new();
	if (!st || state_copy_into(st, src)) {
		state_free(st);
		return NULL;
	}
	return st;
}

void reg_mark_known(struct reg *r, uint64_t v)
{
	uint32_t type = r->type, frameno = r->frameno;
	memset(r, 0, sizeof(*r));
	r->type = type;
	r->frameno = frameno;
	kbpf_scalar_mark_known(&r->s, v);
}

/* Linux's mark_reg_unknown: an unknown scalar; unprivileged scalars are always
 * precise (no precision tracking without CAP_BPF). */
void reg_mark_unknown(struct env *env, struct reg *r)
{
	memset(r, 0, sizeof(*r));
	r->type = KBPF_SCALAR_VALUE;
	kbpf_scalar_mark_unknown(&r->s);
	r->precise = env ? !env->priv : false;
}

void reg_mark_not_init(struct env *env, struct reg *r)
{
	reg_mark_unknown(env, r);
	r->type = KBPF_NOT_INIT;
}

struct frame *frame_new(int callsite, uint32_t frameno, uint32_t subprogno)
{
	struct frame *f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->stack = f->inl; /* no stack until the program touches it (stack_grow) */
	for (int i = 0; i < MAX_REG; i++)
		reg_mark_not_init(NULL, &f->regs[i]);
	f->regs[FP_REG].type = KBPF_PTR_TO_STACK;
	reg_mark_known(&f->regs[FP_REG], 0);
	f->regs[FP_REG].frameno = frameno;
	f->callsite = callsite;
	f->frameno = frameno;
	f->born = true; /* no parent registers until the next checkpoint (prune.c) */
	f->subprogno = subprogno;
	return f;
}

int reg_bounds_violation(struct env *env, struct reg *r, const char *ctx, const char *why)
{
	const struct scalar *s = &r->s;

	/* Linux's %#llx: the kernel's printf writes 0 as "0x0" */
	vlog(env,
	     "REG INVARIANTS VIOLATION (%s): %s u64=[0x%llx, 0x%llx] s64=[0x%llx, 0x%llx] u32=[0x%x, 0x%x] s32=[0x%x, 0x%x] var_off=(0x%llx, 0x%llx)\n",
	     ctx, why, (unsigned long long)s->umin_value, (unsigned long long)s->umax_value,
	     (unsigned long long)s->smin_value, (unsigned long long)s->smax_value, s->u32_min_value,
	     s->u32_max_value, (unsigned)s->s32_min_value, (unsigned)s->s32_max_value,
	     (unsigned long long)s->var_off.value, (unsigned long long)s->var_off.mask);
	if (env->test_reg_invariants)
		return -EFAULT;
	/* the bounds say nothing any more; var_off (and the type) stay */
	kbpf_scalar_mark_unbounded(&r->s);
	return 0;
}

bool reg_is_pointer(const struct reg *r)
{
	return r->type != KBPF_SCALAR_VALUE && r->type != KBPF_NOT_INIT;
}

bool reg_is_pkt(const struct reg *r)
{
	return r->type == KBPF_PTR_TO_PACKET || r->type == KBPF_PTR_TO_PACKET_META;
}

bool reg_is_trusted(const struct reg *r)
{
	if (r->ref_obj_id)
		return true;
	switch (r->type) { /* 6.12's reg2btf_ids, with no flag set */
	case KBPF_PTR_TO_SOCKET:
	case KBPF_PTR_TO_SOCK_COMMON:
	case KBPF_PTR_TO_TCP_SOCK:
	case KBPF_CONST_PTR_TO_MAP:
		return true;
	case KBPF_PTR_TO_BTF_ID:
		return r->btf_trusted;
	default:
		return false;
	}
}

/* Grow the frame's allocated stack to cover size bytes below fp (Linux's
 * grow_stack_state). In place: callers hold pointers to the frame and its registers,
 * so a stack that outgrows its room moves to (or within) the heap, never the frame.
 * The heap room doubles: the walking state grows a slot at a time; copies of it take
 * only the allocated slots. */
int stack_grow(struct frame *f, int size)
{
	size = (size + 7) & ~7;
	if (size > KBPF_MAX_STACK)
		size = KBPF_MAX_STACK;
	if (size <= f->allocated)
		return 0;
	int slots = size / 8, old = f->allocated / 8;
	if (slots > f->stack_cap) {
		int cap = f->stack_cap * 2 < STACK_SLOTS ? f->stack_cap * 2 : STACK_SLOTS;
		if (cap < slots)
			cap = slots;
		struct stack_slot *s;
		if (f->stack == f->inl) {
			s = malloc((size_t)cap * sizeof(*s));
			if (s)
				memcpy(s, f->stack, (size_t)old * sizeof(*s));
		} else {
			s = realloc(f->stack, (size_t)cap * sizeof(*s));
		}
		if (!s)
			return -ENOMEM;
		f->stack = s;
		f->stack_cap = cap;
	}
	memset(&f->stack[old], 0, (size_t)(slots - old) * sizeof(struct stack_slot));
	f->allocated = size;
	return 0;
}

/* Field-by-field equality (the structs may have padding). */
bool reg_identical(const struct reg *a, const struct reg *b)
{
	return a->type == b->type && a->off == b->off && a->range == b->range && a->map == b->map &&
	       a->mem_size == b->mem_size && a->btf_id == b->btf_id && a->subprogno == b->subprogno &&
	       a->id == b->id && a->ref_obj_id == b->ref_obj_id && a->frameno == b->frameno &&
	       a->btf_walked == b->btf_walked && a->btf_trusted == b->btf_trusted &&
	       a->s.var_off.value == b->s.var_off.value && a->s.var_off.mask == b->s.var_off.mask &&
	       a->s.smin_value == b->s.smin_value && a->s.smax_value == b->s.smax_value &&
	       a->s.umin_value == b->s.umin_value && a->s.umax_value == b->s.umax_value &&
	       a->s.s32_min_value == b->s.s32_min_value && a->s.s32_max_value == b->s.s32_max_value &&
	       a->s.u32_min_value == b->s.u32_min_value && a->s.u32_max_value == b->s.u32_max_value;
}
