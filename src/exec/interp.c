/* SPDX-License-Identifier: Apache-2.0 */
/* The interpreter's two loops (fast and checked, one source in interp_body.h) and the
 * entry points prog.c calls. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "exec/interp_internal.h"

#define KBPF_INTERP_FN interp_loop_fast
#define KBPF_INTERP_CHECKED 0
#include "exec/interp_body.h"
#undef KBPF_INTERP_FN
#undef KBPF_INTERP_CHECKED

#define KBPF_INTERP_FN interp_loop_checked
#define KBPF_INTERP_CHECKED 1
#include "exec/interp_body.h"
#undef KBPF_INTERP_FN
#undef KBPF_INTERP_CHECKED

void kbpf_interp_labels(const void *const **fast, const void *const **checked)
{
	interp_loop_fast(NULL, NULL, fast);
	interp_loop_checked(NULL, NULL, checked);
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

int kbpf_interp_run(const struct kbpf_prog *prog, const uint64_t args[5], uint64_t *retval)
{
	struct kbpf_interp_run run = { .args = args };
	int ret = interp_loop_fast(prog->interp, &run, NULL);

	if (retval)
		*retval = run.retval;
	return ret;
}

/* The regions a checked run may touch: the caller's, then the maps' storage. Small
 * sets live on the stack; checked mode is slow anyway, a malloc for big ones is fine. */
#define CHECKED_STACK_REGIONS 32

int kbpf_interp_run_checked(const struct kbpf_prog *prog, struct kbpf_run_opts *opts)
{
	struct kbpf_mem_region stack_regions[CHECKED_STACK_REGIONS], *regions = NULL;
	struct kbpf_run_opts with_maps;
	struct kbpf_interp_run run = { .args = opts->args, .opts = opts, .fault_insn = -1 };
	int ret;

	if (opts->err && opts->err_size)
		opts->err[0] = 0;
	if (prog->nr_map_regions) {
		size_t n = opts->nr_regions + prog->nr_map_regions;

		if (opts->nr_regions && !opts->regions)
			return -EINVAL;
		regions = n <= CHECKED_STACK_REGIONS ? stack_regions : malloc(n * sizeof(*regions));
		if (!regions)
			return -ENOMEM;
		if (opts->nr_regions)
			memcpy(regions, opts->regions, opts->nr_regions * sizeof(*regions));
		memcpy(regions + opts->nr_regions, prog->map_regions, prog->nr_map_regions * sizeof(*regions));
		with_maps = *opts;
		with_maps.regions = regions;
		with_maps.nr_regions = n;
		run.opts = &with_maps;
	}
	ret = interp_loop_checked(prog->interp, &run, NULL);
	if (regions && regions != stack_regions)
		free(regions);
	opts->retval = run.retval;
	opts->insns_executed = run.insns_executed;
	opts->fault_insn = run.fault_insn;
	return ret;
}
