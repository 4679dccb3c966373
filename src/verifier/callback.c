/* SPDX-License-Identifier: Apache-2.0 */
/* Callbacks, with Linux 6.7+'s rule ("verify callbacks as if they are called unknown
 * number of times"; 6.12's push_callback_call, set_loop_callback_state,
 * set_map_elem_callback_state, prepare_func_exit, widen_imprecise_scalars): a helper
 * that calls a BPF function synchronously (bpf_loop, bpf_for_each_map_elem) may call it
 * 0, 1 or N times, so
 * - at the call, the callback's visit is pushed (a new frame whose registers are the
 *   callback's arguments, over the caller's state before the call) and the walk goes on
 *   after the call with the helper's R0: the path of 0 calls;
 * - at the callback's exit R0 must be 0 or 1 and the walk returns to the call insn
 *   itself, with what the callback left; the call then pushes the next visit and goes on
 *   after the call: the path of 1, 2, ... calls;
 * - the call insn is a forced checkpoint where a visit whose state is within one of an
 *   earlier visit still being walked is cut (prune.c): the fixed point. Scalars that
 *   changed between two visits and decided nothing are widened to unknown, so counters
 *   converge; bpf_loop stops pushing visits after its count's maximum.
 * Linux 6.1 walked a callback once and went on after the call with the state it left:
 * a program that relied on exactly one call was accepted. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <kbpf/isa.h>
#include "verifier/env.h"

#define ENOTSUPP 524 /* Linux's in-kernel errno for "not supported" */

bool is_sync_callback_helper(int32_t id)
{
	return id == BPF_FUNC_loop || id == BPF_FUNC_for_each_map_elem || id == BPF_FUNC_find_vma ||
	       id == BPF_FUNC_user_ringbuf_drain;
}

bool is_callback_helper(int32_t id)
{
	return is_sync_callback_helper(id) || id == BPF_FUNC_timer_set_callback;
}

/* The map types whose Linux ops have map_for_each_callback. */
static bool map_has_for_each(const struct kbpf_map *map)
{
	switch (kbpf_map_type(map)) {
	case BPF_MAP_TYPE_HASH:
	case BPF_MAP_TYPE_ARRAY:
	case BPF_MAP_TYPE_PERCPU_HASH:
	case BPF_MAP_TYPE_PERCPU_ARRAY:
	case BPF_MAP_TYPE_LRU_HASH:
	case BPF_MAP_TYPE_LRU_PERCPU_HASH:
		return true;
	default:
		return false;
	}
}

static void mark_known_zero_ptr(struct reg *r, uint32_t type, struct kbpf_map *map)
{
	r->type = type;
	reg_mark_known(r, 0);
	r->map = map;
}

/* 6.1 push_async_cb + set_timer_callback_state: a timer callback runs later, on its own
 * stack, so it is walked as a root of its own (pushed like a branch, explored after the
 * caller's path): frame 0 with R1 = the map, R2 = a key, R3 = the value, R4-R5 unset.
 * The caller goes on after the call with the helper's R0. */
static int push_async_callback(struct env *env, int insn_idx, uint32_t subprogno, struct kbpf_map *map)
{
	int err = 0;
	if (!map) {
		vlog(env, "verifier bug: timer callback without a map\n");
		return -EFAULT;
	}
	uint32_t entry = env->cur->frame[env->cur->curframe]->async_entry_cnt + 1;
	env->sub[subprogno].is_async_cb = true;
	struct vstate *st = push_branch(env, env->sub[subprogno].start, insn_idx, false, &err);
	if (!st)
		return err;
	/* a fresh state: none of the caller's frames, no parent (Linux does not copy) */
	if (st->parent)
		st->parent->branches--;
	for (int i = 0; i <= st->curframe; i++) {
		frame_free(st->frame[i]);
		st->frame[i] = NULL;
	}
	st->curframe = 0;
	st->parent = NULL;
	st->active_spin_lock = 0;
	st->speculative = false;
	st->first_insn_idx = env->sub[subprogno].start;
	st->last_insn_idx = 0;
	hist_clear(st);
	struct frame *f = frame_new(-1, 0, subprogno);
	if (!f)
		return -ENOMEM;
	st->frame[0] = f;
	mark_known_zero_ptr(&f->regs[1], KBPF_CONST_PTR_TO_MAP, map);
	mark_known_zero_ptr(&f->regs[2], KBPF_PTR_TO_MAP_KEY, map);
	mark_known_zero_ptr(&f->regs[3], KBPF_PTR_TO_MAP_VALUE, map);
	f->in_async_callback = true;
	f->async_entry_cnt = entry;
	return 0;
}

/* Push the callback's visit: a copy of the current state (the caller's registers as the
 * helper sees them) with the callback's frame on top. The current state goes on after
 * the call. */
int push_callback(struct env *env, int32_t helper_id, int insn_idx, uint32_t subprogno)
{
	struct vstate *st = env->cur;
	const struct reg *args = cur_regs(env);
	int err = 0;
	if (helper_id != BPF_FUNC_loop && helper_id != BPF_FUNC_for_each_map_elem &&
	    helper_id != BPF_FUNC_timer_set_callback) {
		/* find_vma and user_ringbuf_drain have no kbpf model */
		vlog(env, "callback of func %d is not supported\n", helper_id);
		return -ENOTSUPP;
	}
	if ((int)subprogno <= 0 || (int)subprogno >= env->nr_sub) {
		vlog(env, "verifier bug: callback subprog %u\n", subprogno);
		return -EFAULT;
	}
	if (helper_id == BPF_FUNC_timer_set_callback)
		return push_async_callback(env, insn_idx, subprogno, args[1].map);
	if (st->curframe + 1 >= KBPF_MAX_CALL_FRAMES) {
		vlog(env, "the call stack of %d frames is too deep\n", st->curframe + 2);
		return -E2BIG;
	}
	struct kbpf_map *map = args[1].map;
	if (helper_id == BPF_FUNC_for_each_map_elem && (!map || !map_has_for_each(map))) {
		vlog(env, "callback function not allowed for map\n");
		return -ENOTSUPP;
	}
	struct frame *caller = st->frame[st->curframe];
	if (helper_id == BPF_FUNC_loop) {
		/* 6.12: the verdict rests on the count (when the visits stop), so it is precise */
		if ((err = mark_precise(env, 1)))
			return err;
		if (caller->callback_depth >= args[1].s.umax_value) {
			caller->callback_depth = 0;
			if (env->level & KBPF_LOG_LEVEL2)
				vlog(env, "frame%d bpf_loop iteration limit reached\n", st->curframe);
			return 0;
		}
	}
	struct frame *callee = frame_new(insn_idx, st->curframe + 1, subprogno);
	if (!callee)
		return -ENOMEM;
	callee->invocation = ++env->invocations;
	callee->nr_refs = caller->nr_refs;
	memcpy(callee->refs, caller->refs, sizeof(callee->refs));
	if (helper_id == BPF_FUNC_loop) {
		/* callback_fn(u32 index, void *callback_ctx) */
		callee->regs[1].type = KBPF_SCALAR_VALUE;
		reg_mark_unknown(env, &callee->regs[1]);
		callee->regs[2] = args[3];
	} else {
		/* callback_fn(map, key, value, callback_ctx) */
		callee->regs[1] = args[1];
		mark_known_zero_ptr(&callee->regs[2], KBPF_PTR_TO_MAP_KEY, map);
		mark_known_zero_ptr(&callee->regs[3], KBPF_PTR_TO_MAP_VALUE, map);
		callee->regs[4] = args[3];
	}
	callee->in_callback = true;
	if (env->level & (KBPF_LOG_LEVEL1 | KBPF_LOG_LEVEL2)) {
		vlog(env, "caller:\n");
		vlog_state(env, caller, true);
		vlog(env, "callee:\n");
		vlog_state(env, callee, true);
	}
	struct vstate *visit = push_branch(env, env->sub[subprogno].start, insn_idx, false, &err);
	if (!visit) {
		frame_free(callee);
		return err;
	}
	visit->frame[visit->curframe]->callback_depth++;
	visit->callback_unroll_depth++;
	frame_free(visit->frame[visit->curframe + 1]);
	visit->frame[++visit->curframe] = callee;
	caller->callback_depth = 0;
	return 0;
}

/* 6.12 find_prev_entry: the nearest checkpoint above st at insn_idx with st's frames
 * (an earlier visit of the same call, still being walked). */
struct vstate *find_prev_entry(struct vstate *st, int insn_idx)
{
	for (struct vstate *p = st->parent; p; p = p->parent) {
		if (p->insn_idx != insn_idx || p->curframe != st->curframe)
			continue;
		bool same = true;
		for (int f = 0; f <= p->curframe && same; f++)
			same = p->frame[f]->callsite == st->frame[f]->callsite;
		if (same)
			return p;
	}
	return NULL;
}

/* 6.12 maybe_widen_reg: a scalar that changed since the earlier visit and that no
 * verdict rested on (precise in neither) becomes unknown, so a counter the callback
 * bumps converges instead of taking one visit per value. Only loses knowledge, so it is
 * sound whatever it widens: a value made precise only by 6.1's rule for spills through a
 * pointer (precise_forced; Linux 6.12 tracks such spills in its history instead) is
 * widened too, or a counter the callback bumps through its ctx would never converge. */
static void widen_reg(struct env *env, const struct reg *old, struct reg *cur)
{
	if (old->type != KBPF_SCALAR_VALUE || cur->type != KBPF_SCALAR_VALUE)
		return;
	if (old->precise || (cur->precise && !cur->precise_forced) || reg_identical(old, cur))
		return;
	reg_mark_unknown(env, cur);
}

void widen_imprecise_scalars(struct env *env, const struct vstate *old, struct vstate *cur)
{
	static const uint8_t zero_slot[8] = { STACK_ZERO, STACK_ZERO, STACK_ZERO, STACK_ZERO,
					      STACK_ZERO, STACK_ZERO, STACK_ZERO, STACK_ZERO };
	for (int f = 0; f <= cur->curframe; f++) {
		const struct frame *of = old->frame[f];
		struct frame *cf = cur->frame[f];
		for (int i = 0; i < FP_REG; i++)
			widen_reg(env, &of->regs[i], &cf->regs[i]);
		for (int i = 0; i < of->allocated / 8 && i < cf->allocated / 8; i++) {
			if (cf->stack[i].type[7] != STACK_SPILL)
				continue;
			if (of->stack[i].type[7] == STACK_SPILL) {
				widen_reg(env, &of->stack[i].spilled, &cf->stack[i].spilled);
			} else if (!memcmp(of->stack[i].type, zero_slot, 8) &&
				   !(of->stack_zero_precise & (1ull << i))) {
				/* 6.1's STACK_ZERO slot is 6.12's spilled constant 0 */
				struct reg zero;
				reg_mark_unknown(env, &zero);
				reg_mark_known(&zero, 0);
				zero.precise = false;
				widen_reg(env, &zero, &cf->stack[i].spilled);
			}
		}
	}
}

/* prepare_func_exit for a callback frame: R0 a scalar in [0, 1], nothing flows back
 * (the caller's R0 is the helper's return value; references the callback took are
 * already checked as released); the frame is popped and the walk returns to the call. */
int callback_exit(struct env *env, int *insn_idx)
{
	struct vstate *st = env->cur;
	struct reg *r0 = &cur_regs(env)[0];
	if (r0->type != KBPF_SCALAR_VALUE) {
		vlog(env, "R0 not a scalar value\n");
		return -EACCES;
	}
	/* the verdict rests on R0's exact value */
	mark_reg_read(env, st, st->curframe, 0);
	int err = mark_precise(env, 0);
	if (err)
		return err;
	err = check_r0_range(env, r0, 0, 1, "callback return");
	if (err)
		return err;
	struct frame *callee = st->frame[st->curframe];
	*insn_idx = callee->callsite;
	if (!env->aux[*insn_idx].calls_callback) {
		vlog(env, "BUG: in callback at %d, callsite %d !calls_callback\n", env->insn_idx, *insn_idx);
		return -EFAULT;
	}
	if (env->level & (KBPF_LOG_LEVEL1 | KBPF_LOG_LEVEL2)) {
		vlog(env, "returning from callee:\n");
		vlog_state(env, callee, true);
		vlog(env, "to caller at %d:\n", *insn_idx);
		vlog_state(env, st->frame[st->curframe - 1], true);
	}
	frame_free(callee);
	st->frame[st->curframe--] = NULL;
	st->frame[st->curframe]->cb_returning = true;
	const struct vstate *prev = find_prev_entry(st, *insn_idx);
	if (prev)
		widen_imprecise_scalars(env, prev, st);
	return 0;
}
