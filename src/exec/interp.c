/* SPDX-License-Identifier: Apache-2.0 */
/* The interpreter's two loops (fast and checked, one source in interp_body.h) and the
 * entry points prog.c calls. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "exec/interp_internal.h"
#include "exec/tail_call.h"
#include "opts.h"

#define KBPF_INTERP_FN interp_loop_fast
#define KBPF_INTERP_CHECKED 0
#define KBPF_INTERP_HARDENED 0
#include "exec/interp_body.h"
#undef KBPF_INTERP_FN
#undef KBPF_INTERP_CHECKED
#undef KBPF_INTERP_HARDENED

#define KBPF_INTERP_FN interp_loop_checked
#define KBPF_INTERP_CHECKED 1
#define KBPF_INTERP_HARDENED 0
#include "exec/interp_body.h"
#undef KBPF_INTERP_FN
#undef KBPF_INTERP_CHECKED
#undef KBPF_INTERP_HARDENED

/* The hardened loop (a run budget, stack guards) is in interp_hardened.c. */
#define interp_loop_hardened kbpf_interp_loop_hardened

void kbpf_interp_labels(const void *const **fast, const void *const **checked, const void *const **hardened)
{
	interp_loop_fast(NULL, NULL, fast);
	interp_loop_checked(NULL, NULL, checked);
	interp_loop_hardened(NULL, NULL, hardened);
}

kbpf_helper_fn kbpf_interp_callx_find(const struct kbpf_interp *ip, uint64_t id)
{
	size_t lo = 0, hi = ip->nr_callx;

	if (id > INT32_MAX)
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if ((uint64_t)ip->callx[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ip->nr_callx && (uint64_t)ip->callx[lo].id == id ? ip->callx[lo].fn : NULL;
}

/* The rest of a run whose tail call switched loops (KBPF_INTERP_SWITCH): each target in
 * the loop it was decoded for, one after the other. */
static __attribute__((noinline, cold)) int interp_run_switched(struct kbpf_interp_run *run)
{
	int ret;

	do {
		const struct kbpf_prog *t = run->next;

		run->args = run->next_args;
		run->start = 0;
		ret = t->interp->hardened ? interp_loop_hardened(t->interp, run, NULL)
					  : interp_loop_fast(t->interp, run, NULL);
	} while (ret == KBPF_INTERP_SWITCH);
	return ret;
}

int kbpf_interp_run_from(const struct kbpf_prog *prog, struct kbpf_interp_run *run)
{
	int ret = prog->interp->hardened ? interp_loop_hardened(prog->interp, run, NULL)
					 : interp_loop_fast(prog->interp, run, NULL);

	return __builtin_expect(ret == KBPF_INTERP_SWITCH, 0) ? interp_run_switched(run) : ret;
}

int kbpf_interp_run_at(const struct kbpf_prog *prog, size_t start, const uint64_t args[5], uint64_t *retval)
{
	struct kbpf_interp_run run = { .args = args, .start = start < prog->insn_cnt ? start : 0 };
	int ret = kbpf_interp_run_from(prog, &run); /* the loop the program was decoded for */

	if (retval)
		*retval = run.retval;
	return ret;
}

int kbpf_interp_run(const struct kbpf_prog *prog, const uint64_t args[5], uint64_t *retval)
{
	struct kbpf_interp_run run = { .args = args };
	int ret = __builtin_expect(prog->interp->hardened, 0) ? interp_loop_hardened(prog->interp, &run, NULL)
							    : interp_loop_fast(prog->interp, &run, NULL);

	if (__builtin_expect(ret == KBPF_INTERP_SWITCH, 0))
		ret = interp_run_switched(&run);
	if (retval)
		*retval = run.retval;
	return ret;
}

/* Maps of maps: the inner maps an outer map holds now, which may be more than when the
 * program was created (prog->map_regions).  Counts them (out NULL) or writes up to max. */
static size_t inner_map_regions(const struct kbpf_prog *prog, struct kbpf_mem_region *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < prog->nr_maps; i++)
		if (kbpf_map_inner_meta(prog->maps[i]))
			n += kbpf_map_mem_regions(prog->maps[i], out ? out + (n < max ? n : max) : NULL,
						  n < max ? max - n : 0);
	return n;
}

int kbpf_interp_checked_enter(struct kbpf_interp_run *run, const struct kbpf_prog *prog)
{
	struct kbpf_interp_checked *ck = run->ck;
	const struct kbpf_run_opts *u = ck->user;
	size_t inner = inner_map_regions(prog, NULL, 0);
	size_t n = u->nr_regions + prog->nr_map_regions + inner;

	if (!prog->nr_map_regions && !inner) {
		run->opts = ck->user;
		return 0;
	}
	if (u->nr_regions && !u->regions)
		return -EINVAL;
	if (n > ck->regions_cap) {
		struct kbpf_mem_region *r;

		if (n <= ck->small_cap) {
			r = ck->small;
		} else {
			r = malloc(n * sizeof(*r));
			if (!r)
				return -ENOMEM;
		}
		if (ck->regions != ck->small)
			free(ck->regions);
		ck->regions = r;
		ck->regions_cap = r == ck->small ? ck->small_cap : n;
	}
	if (u->nr_regions)
		memcpy(ck->regions, u->regions, u->nr_regions * sizeof(*ck->regions));
	memcpy(ck->regions + u->nr_regions, prog->map_regions, prog->nr_map_regions * sizeof(*ck->regions));
	if (inner) { /* a host thread may have stored more since the count: those are left out */
		size_t got = inner_map_regions(prog, ck->regions + n - inner, inner);
		n -= inner - (got < inner ? got : inner);
	}
	ck->view = *u;
	ck->view.regions = ck->regions;
	ck->view.nr_regions = n;
	run->opts = &ck->view;
	return 0;
}

/* At most this many host objects returned by kfuncs are tracked per run. */
#define CHECKED_MAX_REGIONS 4096

int kbpf_interp_checked_add_object(struct kbpf_interp_run *run, uint64_t addr, uint32_t size, unsigned flags,
				   const char *name)
{
	struct kbpf_interp_checked *ck = run->ck;
	size_t n = run->opts->nr_regions;

	for (size_t i = 0; i < n; i++) /* the same object again */
		if ((uintptr_t)run->opts->regions[i].base == addr && run->opts->regions[i].size >= size)
			return 0;
	if (n + 1 > CHECKED_MAX_REGIONS)
		return -E2BIG;
	if (run->opts != &ck->view || n + 1 > ck->regions_cap) {
		size_t cap = n + 1 <= ck->regions_cap ? ck->regions_cap : n + 1 <= ck->small_cap ? ck->small_cap : 2 * n + 8;
		struct kbpf_mem_region *r = cap == ck->regions_cap ? ck->regions : cap == ck->small_cap ? ck->small
										 : malloc(cap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		if (n && r != run->opts->regions)
			memmove(r, run->opts->regions, n * sizeof(*r));
		if (ck->regions != ck->small && ck->regions != r)
			free(ck->regions);
		ck->regions = r;
		ck->regions_cap = cap;
		if (run->opts != &ck->view)
			ck->view = *ck->user;
		ck->view.regions = r;
		run->opts = &ck->view;
	}
	ck->regions[n] = (struct kbpf_mem_region){ (void *)(uintptr_t)addr, size, flags, name };
	ck->view.nr_regions = n + 1;
	return 0;
}

/* The regions a checked run may touch: the caller's, then the maps' storage. Small
 * sets live on the stack; checked mode is slow anyway, a malloc for big ones is fine. */
#define CHECKED_STACK_REGIONS 32

int kbpf_interp_run_checked(const struct kbpf_prog *prog, const struct kbpf_run_opts *opts,
			    struct kbpf_run_result *res)
{
	struct kbpf_mem_region stack_regions[CHECKED_STACK_REGIONS];
	struct kbpf_interp_checked ck = {
		.user = opts, .small = stack_regions, .small_cap = CHECKED_STACK_REGIONS, .regions = stack_regions,
	};
	struct kbpf_interp_run run = { .args = opts->args, .ck = &ck, .fault_insn = -1 };
	int ret;

	if (opts->err && opts->err_size)
		opts->err[0] = 0;
	ret = kbpf_interp_checked_enter(&run, prog);
	if (!ret)
		ret = interp_loop_checked(prog->interp, &run, NULL);
	if (ck.regions != ck.small)
		free(ck.regions);
	OPTS_SET(res, retval, run.retval);
	OPTS_SET(res, insns_executed, run.insns_executed);
	OPTS_SET(res, fault_insn, run.fault_insn);
	return ret;
}
