/* SPDX-License-Identifier: Apache-2.0 */
/* Running a program: kbpf_prog_run's jump into the engine a program has, the checked and
 * argument-passing runs, and what both engines share while they run (the value of an
 * ld_imm64, dead-code stops). Program creation, which picks the engine, is src/prog/. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <kbpf/kfunc.h>
#include <kbpf/map.h>
#include <kbpf/prog.h>
#include "exec/callback.h"
#include "exec/jit.h"
#include "exec/prog_internal.h"
#include "opts.h"

int kbpf_prog_ldimm64_value(const struct kbpf_prog *prog, size_t idx, uint64_t *value, char *err, size_t err_size)
{
	const struct bpf_insn *in = &prog->insns[idx];
	uint32_t lo = (uint32_t)in->imm, hi = (uint32_t)prog->insns[idx + 1].imm;
	struct kbpf_map *map;
	void *addr;

	switch (in->src_reg) {
	case 0:
		*value = (uint64_t)lo | (uint64_t)hi << 32;
		return 0;
	case BPF_PSEUDO_MAP_FD:
	case BPF_PSEUDO_MAP_IDX:
	case BPF_PSEUDO_MAP_VALUE:
	case BPF_PSEUDO_MAP_IDX_VALUE:
		if (lo >= prog->nr_maps) {
			snprintf(err, err_size, "insn %zu: fd %d is not pointing to valid bpf_map", idx, in->imm);
			return -EINVAL;
		}
		map = prog->maps[lo];
		if (in->src_reg == BPF_PSEUDO_MAP_FD || in->src_reg == BPF_PSEUDO_MAP_IDX) {
			if (hi) {
				snprintf(err, err_size, "insn %zu: unrecognized bpf_ld_imm64 insn", idx);
				return -EINVAL;
			}
			*value = (uint64_t)(uintptr_t)map;
			return 0;
		}
		if (kbpf_map_direct_value_addr(map, hi, &addr)) {
			snprintf(err, err_size, "insn %zu: invalid access to map value pointer, value_size=%u off=%u", idx,
				 kbpf_map_value_size(map), hi);
			return -EINVAL;
		}
		*value = (uint64_t)(uintptr_t)addr;
		return 0;
	case BPF_PSEUDO_FUNC: /* a callback: a C function pointer to the subprogram */
		return kbpf_prog_callback_addr(prog, idx, value, err, err_size);
	case BPF_PSEUDO_BTF_ID: /* a typed __ksym: the host variable's address */
		addr = hi ? NULL : kbpf_host_var_addr(prog->host, lo);
		if (!addr) {
			snprintf(err, err_size, "insn %zu: btf_id %u is not a registered host variable", idx, lo);
			return -EINVAL;
		}
		*value = (uint64_t)(uintptr_t)addr;
		return 0;
	default:
		snprintf(err, err_size, "insn %zu: ld_imm64 with src_reg %d is not supported yet", idx, in->src_reg);
		return -EOPNOTSUPP;
	}
}

bool kbpf_prog_insn_is_dead_stop(const struct kbpf_prog *prog, size_t i)
{
	const struct bpf_insn *in = &prog->insns[i];

	if (!prog->type)
		return false;
	return (in->code == (BPF_JMP | BPF_JA) && in->off == -1) || (in->code == (BPF_JMP32 | BPF_JA) && in->imm == -1);
}

void kbpf_prog_dead_code_reached(const struct kbpf_prog *prog, size_t insn)
{
	fprintf(stderr,
		"kbpf: program '%s' reached insn %zu, which the verifier judged unreachable (a verifier bug); "
		"the run stops with -ENOTRECOVERABLE\n",
		prog->name, insn);
}

int kbpf_prog_run_interp(const struct kbpf_prog *prog, void *ctx, uint64_t *retval)
{
	uint64_t args[5] = { (uint64_t)(uintptr_t)ctx };
	uint64_t r0 = 0;
	int ret;

	ret = kbpf_interp_run(prog, args, &r0);
	if (retval)
		*retval = r0;
	return ret;
}

/* A NULL check and a tail jump into the program's run entry: the JIT's code has this
 * very signature (docs/jit.md, "Entries"), so a run costs one call level, as a call
 * of a native function does. */
int kbpf_prog_run(const struct kbpf_prog *prog, void *ctx, uint64_t *retval)
{
	if (!prog)
		return -EINVAL;
	return prog->run(prog, ctx, retval);
}

int kbpf_prog_run_opts(const struct kbpf_prog *prog, const struct kbpf_run_opts *opts,
		       struct kbpf_run_result *res)
{
	struct kbpf_run_opts full;
	uint64_t retval = 0;
	int ret;

	if (!prog || !opts || !OPTS_VALID(opts, OPTS_MIN_SZ) || !OPTS_RESULT_VALID(res))
		return -EINVAL;
	if (opts->sz < sizeof(*opts)) { /* an older caller's: the engines read every field */
		OPTS_COPY(&full, opts);
		opts = &full;
	}
	OPTS_RESULT_RESET(res);
	OPTS_SET(res, fault_insn, -1);
	if (opts->err && opts->err_size)
		opts->err[0] = 0;
	if (opts->flags & ~(KBPF_RUN_CHECKED | KBPF_RUN_STACK_FILL))
		return -EINVAL;
	if ((opts->flags & KBPF_RUN_STACK_FILL) && !(opts->flags & KBPF_RUN_CHECKED))
		return -EINVAL; /* the fast engines do not clear their stack at all */
	if (opts->flags & KBPF_RUN_CHECKED)
		return kbpf_interp_run_checked(prog, opts, res);
	if (prog->jit)
		ret = kbpf_jit_run(prog->jit, opts->args, &retval);
	else
		ret = kbpf_interp_run(prog, opts->args, &retval);
	OPTS_SET(res, retval, retval);
	return ret;
}
