/* SPDX-License-Identifier: Apache-2.0 */
/* bpf_tail_call: recognising the call, checked mode's map check, and the function the
 * JIT's code calls at a tail call (it runs the target on whichever engine it has). */
#include <errno.h>
#include <stddef.h>
#include "exec/interp_internal.h"
#include "exec/jit.h"
#include "exec/tail_call.h"

bool kbpf_insn_is_tail_call(const struct kbpf_host *host, const struct bpf_insn *insn)
{
	return insn->code == (BPF_JMP | BPF_CALL) && insn->src_reg == 0 && insn->imm == KBPF_HELPER_TAIL_CALL &&
	       !kbpf_host_helper_find(host, KBPF_HELPER_TAIL_CALL, NULL);
}

bool kbpf_tail_call_map_ok(const struct kbpf_prog *prog, uint64_t r2)
{
	for (size_t i = 0; i < prog->nr_maps; i++)
		if ((uint64_t)(uintptr_t)prog->maps[i] == r2)
			return true;
	return false;
}

_Static_assert(offsetof(struct kbpf_jit_tail_run, depth) == KBPF_JIT_TAIL_RUN_DEPTH, "generated code reads it there");

struct kbpf_jit_tail_target kbpf_jit_tail_lookup(uint64_t ctx, uint64_t map, uint64_t index, uint32_t *cnt)
{
	const struct kbpf_prog *t = kbpf_tail_call_target((const struct kbpf_map *)(uintptr_t)map, (uint32_t)index, cnt);
	struct kbpf_jit_tail_target r = { 0, (uint64_t)(uintptr_t)t };

	(void)ctx;
	if (t && t->jit)
		r.entry = (uint64_t)(uintptr_t)t->jit->entry;
	return r;
}

/* A target the JIT did not take: the interpreter runs the rest of the chain, nested
 * (its own frames), from the depth of the function the target replaces. */
struct kbpf_jit_ret kbpf_jit_tail_interp(uint64_t ctx, uint64_t prog, uint32_t *cnt, uint64_t depth)
{
	uint64_t args[5] = { ctx };
	struct kbpf_interp_run run = { .args = args, .tail_calls = *cnt, .depth = (unsigned)depth };
	struct kbpf_jit_ret r;

	r.err = kbpf_interp_run_from((const struct kbpf_prog *)(uintptr_t)prog, &run);
	r.r0 = r.err ? 0 : run.retval;
	*cnt = run.tail_calls;
	return r;
}

/* Called by JIT-compiled code at a tail call from a subprogram at depth with R1-R3
 * where the call left them and the run's counter. Returns {0, KBPF_JIT_TAIL_FALLTHROUGH}
 * to fall through, else what the target returned: the subprogram returns it (R0, or a
 * run-time stop). The target runs as a nested native run that starts at the
 * subprogram's depth, so its local calls stop where the interpreter's would; such runs
 * nest at most KBPF_MAX_CALL_FRAMES - 1 deep, each at a greater depth (docs/jit.md). */
struct kbpf_jit_ret kbpf_jit_tail_call(uint64_t ctx, uint64_t map, uint64_t index, uint32_t *cnt, uint64_t depth)
{
	const struct kbpf_prog *t = kbpf_tail_call_target((const struct kbpf_map *)(uintptr_t)map, (uint32_t)index, cnt);
	struct kbpf_jit_ret r = { 0, KBPF_JIT_TAIL_FALLTHROUGH };

	if (!t)
		return r;
	if (t->jit) {
		struct kbpf_jit_tail_run run = { *cnt, (uint32_t)depth };

		r = t->jit->entry(ctx, 0, 0, 0, 0, &run.cnt);
		*cnt = run.cnt;
		return r;
	}
	return kbpf_jit_tail_interp(ctx, (uint64_t)(uintptr_t)t, cnt, depth);
}
