/* SPDX-License-Identifier: Apache-2.0 */
/* Callbacks (Linux 6.1 __check_func_call with set_loop_callback_state and
 * set_map_elem_callback_state, prepare_func_exit's callback branch): a helper that
 * calls a BPF function (bpf_loop, bpf_for_each_map_elem) continues the walk in that
 * function, in a new frame whose registers are the callback's arguments; at the
 * callback's exit R0 must be 0 or 1, and the walk returns after the helper call with
 * the helper's own R0. As in 6.1 the callback is walked once per call site and state. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <kbpf/isa.h>
#include "verifier/env.h"

#define ENOTSUPP 524 /* Linux's in-kernel errno for "not supported" */

bool is_callback_helper(int32_t id)
{
	return id == BPF_FUNC_loop || id == BPF_FUNC_for_each_map_elem || id == BPF_FUNC_timer_set_callback ||
	       id == BPF_FUNC_find_vma || id == BPF_FUNC_user_ringbuf_drain;
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

/* Push the callback's frame; caller_args are the caller's R0-R5 as the helper saw them. */
int push_callback(struct env *env, int32_t helper_id, int insn_idx, uint32_t subprogno,
		  const struct reg caller_args[6])
{
	struct vstate *st = env->cur;
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
		return push_async_callback(env, insn_idx, subprogno, caller_args[1].map);
	if (st->curframe + 1 >= KBPF_MAX_CALL_FRAMES) {
		vlog(env, "the call stack of %d frames is too deep\n", st->curframe + 2);
		return -E2BIG;
	}
	struct kbpf_map *map = caller_args[1].map;
	if (helper_id == BPF_FUNC_for_each_map_elem && (!map || !map_has_for_each(map))) {
		vlog(env, "callback function not allowed for map\n");
		return -ENOTSUPP;
	}
	struct frame *caller = st->frame[st->curframe];
	struct frame *callee = frame_new(insn_idx, st->curframe + 1, subprogno);
	if (!callee)
		return -ENOMEM;
	callee->nr_refs = caller->nr_refs;
	memcpy(callee->refs, caller->refs, sizeof(callee->refs));
	if (helper_id == BPF_FUNC_loop) {
		/* callback_fn(u32 index, void *callback_ctx) */
		callee->regs[1].type = KBPF_SCALAR_VALUE;
		reg_mark_unknown(env, &callee->regs[1]);
		callee->regs[2] = caller_args[3];
	} else {
		/* callback_fn(map, key, value, callback_ctx) */
		callee->regs[1] = caller_args[1];
		mark_known_zero_ptr(&callee->regs[2], KBPF_PTR_TO_MAP_KEY, map);
		mark_known_zero_ptr(&callee->regs[3], KBPF_PTR_TO_MAP_VALUE, map);
		callee->regs[4] = caller_args[3];
	}
	callee->in_callback = true;
	frame_free(st->frame[st->curframe + 1]);
	st->frame[++st->curframe] = callee;
	if (env->level & (KBPF_LOG_LEVEL1 | KBPF_LOG_LEVEL2)) {
		vlog(env, "caller:\n");
		vlog_state(env, caller, true);
		vlog(env, "callee:\n");
		vlog_state(env, callee, true);
	}
	env->cb_jump = env->sub[subprogno].start;
	return 0;
}

/* prepare_func_exit for a callback frame: R0 a scalar in [0, 1], nothing flows back
 * (the caller's R0 is the helper's return value; references the callback took are
 * already checked as released). */
int check_callback_exit(struct env *env)
{
	struct reg *r0 = &cur_regs(env)[0];
	if (r0->type != KBPF_SCALAR_VALUE) {
		vlog(env, "R0 not a scalar value\n");
		return -EACCES;
	}
	/* the verdict rests on R0's exact value */
	mark_reg_read(env, env->cur, env->cur->curframe, 0);
	int err = mark_precise(env, 0);
	if (err)
		return err;
	return check_r0_range(env, r0, kbpf_tnum_range(0, 1), "callback return");
}
