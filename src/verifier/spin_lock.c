/* SPDX-License-Identifier: Apache-2.0 */
/* bpf_spin_lock and the other BTF-described fields of map values (Linux 6.1
 * process_spin_lock, check_map_access's field checks; which programs may use such maps:
 * map_compat.c).
 *
 * One lock at a time: the path's state remembers which one (active_spin_lock, the id of
 * the map value pointer it was taken through — every pointer to a value of a map with
 * a lock keeps its id for that, see reg_may_point_to_spin_lock — and its map). Pruning
 * (prune.c) pairs the held lock's id with the registers' ids, as Linux 6.12's
 * states_equal does for active_lock. verifier.c refuses
 * calls other than bpf_spin_unlock and exits while it is held; ld.c refuses LD_ABS. */
#include <errno.h>
#include "verifier/env.h"
#include "verifier/kptr.h"
#include "verifier/spin_lock.h"

#define SPIN_LOCK_SIZE 4
#define TIMER_SIZE 16

bool reg_may_point_to_spin_lock(const struct reg *r)
{
	return KBPF_REG_BASE(r->type) == KBPF_PTR_TO_MAP_VALUE && r->map && kbpf_map_spin_lock_off(r->map) >= 0;
}

int process_spin_lock(struct env *env, int regno, bool is_lock)
{
	const struct reg *r = &cur_regs(env)[regno];
	struct kbpf_map *map = r->map;
	struct vstate *cur = env->cur;
	const char *name = kbpf_map_name(map);
	int lock_off = kbpf_map_spin_lock_off(map);

	if (!kbpf_tnum_is_const(r->s.var_off)) {
		vlog(env, "R%d doesn't have constant offset. bpf_spin_lock has to be at the constant offset\n", regno);
		return -EINVAL;
	}
	if (!kbpf_map_has_btf(map)) {
		vlog(env, "map '%s' has to have BTF in order to use bpf_spin_lock\n", name);
		return -EINVAL;
	}
	if (lock_off < 0) {
		if (lock_off == -E2BIG)
			vlog(env, "map '%s' has more than one 'struct bpf_spin_lock'\n", name);
		else if (lock_off == -ENOENT)
			vlog(env, "map '%s' doesn't have 'struct bpf_spin_lock'\n", name);
		else
			vlog(env, "map '%s' is not a struct type or bpf_spin_lock is mangled\n", name);
		return -EINVAL;
	}
	int64_t off = (int64_t)r->s.var_off.value + r->off;
	if (off != lock_off) {
		vlog(env, "off %lld doesn't point to 'struct bpf_spin_lock'\n", (long long)off);
		return -EINVAL;
	}
	if (is_lock) {
		if (cur->active_spin_lock) {
			vlog(env, "Locking two bpf_spin_locks are not allowed\n");
			return -EINVAL;
		}
		cur->active_spin_lock = r->id;
		cur->active_lock_map = map;
		return 0;
	}
	if (!cur->active_spin_lock) {
		vlog(env, "bpf_spin_unlock without taking a lock\n");
		return -EINVAL;
	}
	if (cur->active_spin_lock != r->id) {
		vlog(env, "bpf_spin_unlock of different lock\n");
		return -EINVAL;
	}
	cur->active_spin_lock = 0;
	cur->active_lock_map = NULL;
	return 0;
}

int process_timer_func(struct env *env, int regno, struct kbpf_map **meta_map)
{
	const struct reg *r = &cur_regs(env)[regno];
	struct kbpf_map *map = r->map;
	const char *name = kbpf_map_name(map);
	int timer_off = kbpf_map_timer_off(map);

	if (!kbpf_tnum_is_const(r->s.var_off)) {
		vlog(env, "R%d doesn't have constant offset. bpf_timer has to be at the constant offset\n", regno);
		return -EINVAL;
	}
	if (!kbpf_map_has_btf(map)) {
		vlog(env, "map '%s' has to have BTF in order to use bpf_timer\n", name);
		return -EINVAL;
	}
	if (timer_off < 0) {
		if (timer_off == -E2BIG)
			vlog(env, "map '%s' has more than one 'struct bpf_timer'\n", name);
		else if (timer_off == -ENOENT)
			vlog(env, "map '%s' doesn't have 'struct bpf_timer'\n", name);
		else
			vlog(env, "map '%s' is not a struct type or bpf_timer is mangled\n", name);
		return -EINVAL;
	}
	int64_t off = (int64_t)r->s.var_off.value + r->off;
	if (off != timer_off) {
		vlog(env, "off %lld doesn't point to 'struct bpf_timer' that is at %d\n", (long long)off, timer_off);
		return -EINVAL;
	}
	if (*meta_map) {
		vlog(env, "verifier bug. Two map pointers in a timer helper\n");
		return -EFAULT;
	}
	*meta_map = map;
	return 0;
}

/* [a, a + as) and [b, b + bs) overlap. */
static bool overlaps(int64_t a, int64_t as, int64_t b, int64_t bs)
{
	return a < b + bs && b < a + as;
}

int check_map_value_fields(struct env *env, int regno, int off, int size, bool helper)
{
	const struct reg *r = &cur_regs(env)[regno];
	int lock = kbpf_map_spin_lock_off(r->map), timer = kbpf_map_timer_off(r->map);
	/* every byte the access may touch: [smin + off, umax + off + size) */
	int64_t lo = r->s.smin_value + off, len = (int64_t)r->s.umax_value + off + size - lo;

	if (lock >= 0 && overlaps(lo, len, lock, SPIN_LOCK_SIZE)) {
		vlog(env, "bpf_spin_lock cannot be accessed directly by load/store\n");
		return -EACCES;
	}
	if (timer >= 0 && overlaps(lo, len, timer, TIMER_SIZE)) {
		vlog(env, "bpf_timer cannot be accessed directly by load/store\n");
		return -EACCES;
	}
	return check_map_kptr_fields(env, regno, off, size, helper);
}
