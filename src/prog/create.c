/* SPDX-License-Identifier: Apache-2.0 */
/* Program creation, Linux's bpf_prog_load: verify, check the rewrite, bind the maps (their
 * regions, timers and prog arrays), the kfuncs and the callbacks, and hand the program to
 * the interpreter and, if asked, the JIT (src/exec/, the layer below); and its end,
 * kbpf_prog_free, which releases them in the opposite order. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <kbpf/kfunc.h>
#include <kbpf/isa.h>
#include <kbpf/map.h>
#include <kbpf/prog_type.h>
#include <kbpf/verifier.h>
#include "exec/callback.h"
#include "exec/jit.h"
#include "exec/prog_internal.h"
#include "isa/validate.h"
#include "maps/map_internal.h"
#include "maps/timer.h"
#include "opts.h"
#include "prog/create.h"

/* Compile prog with the JIT. Only a host the JIT cannot serve at all fails the create;
 * a program the JIT does not take keeps the interpreter, the reason in the log. */
static int prog_jit(struct kbpf_prog *prog, char *log, size_t log_size)
{
	char why[256] = "";
	int ret;

	if (!kbpf_jit_arch_supported()) {
		if (log_size)
			snprintf(log, log_size, "JIT: this host is not x86-64");
		return -EOPNOTSUPP;
	}
	ret = kbpf_jit_attach(prog, kbpf_jit_harden_flags(prog->harden), why, sizeof(why));
	if (ret && log_size)
		snprintf(log, log_size, "JIT: %s (%s); running on the interpreter", why[0] ? why : "refused",
			 strerror(-ret));
	return 0;
}

int kbpf_prog_create(const struct bpf_insn *insns, size_t cnt, const struct kbpf_prog_opts *opts,
		     struct kbpf_prog **out)
{
	char *log = OPTS_GET(opts, log_buf, NULL);
	size_t log_size = log ? OPTS_GET(opts, log_size, 0) : 0;
	struct kbpf_prog *prog;
	struct bpf_insn *xlated = NULL; /* the verifier's rewrite (ctx conversion), if verified */
	uint32_t *xlated_idx = NULL;    /* ... and where each given insn went in it */
	size_t xlated_idx_cnt = 0;
	uint32_t max_ctx_offset = 0, max_tp_access = 0; /* the verifier's, if verified */
	const struct bpf_insn *given = insns; /* before the verifier's rewrite */
	size_t given_cnt = cnt;
	int ret;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!OPTS_VALID(opts, OPTS_MIN_SZ))
		return -EINVAL;
	/* A program to verify is the verifier's to judge (it takes any bytes): Linux accepts
	 * dead code that writes R10 or sets reserved fields, and replaces it; what the
	 * verifier gives back is checked in full below. Unverified, the bytes themselves. */
	if (!OPTS_GET(opts, prog_type, NULL) && !OPTS_GET(opts, trusted_unverified, 0)) {
		/* nothing would check what it touches: only for code the host trusts */
		if (log_size)
			snprintf(log, log_size,
				 "no program type: refusing to create an unverified program (it could touch any "
				 "host memory); name its prog_type, or set trusted_unverified for trusted code");
		return -EPERM;
	}
	if (!OPTS_GET(opts, prog_type, NULL) && (ret = kbpf_insns_validate(insns, cnt, log, log_size)))
		return ret;
	if (OPTS_GET(opts, prog_type, NULL)) {
		/* Verify before anything runs: the log's tail says why a program is refused. */
		struct kbpf_verify_opts vo = {
			.sz = sizeof(vo), .host = OPTS_GET(opts, host, NULL), .prog_type = opts->prog_type,
			.maps = OPTS_GET(opts, maps, NULL), .nr_maps = OPTS_GET(opts, nr_maps, 0),
			.license = OPTS_GET(opts, license, NULL), .unprivileged = OPTS_GET(opts, unprivileged, 0),
			.log_level = OPTS_GET(opts, log_level, 0), .log_buf = log, .log_size = log_size,
			.prog_name = OPTS_GET(opts, name, NULL),
		};
		/* a BTF-typed context (struct_ops): the argument array of a host prototype */
		vo.attach_btf_id = OPTS_GET(opts, attach_btf_id, 0);
		vo.attach_member = OPTS_GET(opts, attach_member, NULL);
		/* BTF func_info: global functions and callbacks */
		vo.prog_btf = OPTS_GET(opts, prog_btf, NULL);
		vo.func_info = OPTS_GET(opts, func_info, NULL);
		vo.nr_func_info = OPTS_GET(opts, nr_func_info, 0);
		vo.caps = OPTS_GET(opts, caps, 0);
		vo.prog_flags = OPTS_GET(opts, prog_flags, 0);
		/* what runs is the rewritten program (ctx conversion, bpf_loop inlining), which
		 * may be longer than the one given */
		vo.xlated_alloc = 1;
		struct kbpf_verify_result vr = { .sz = sizeof(vr) };
		ret = kbpf_prog_verify(insns, cnt, &vo, &vr);
		if (ret)
			return ret;
		if (!vr.xlated_prog || !vr.xlated_idx) {
			free(vr.xlated_prog);
			free(vr.xlated_idx);
			return -ENOMEM;
		}
		xlated = vr.xlated_prog;
		xlated_idx = vr.xlated_idx;
		xlated_idx_cnt = cnt + 1;
		cnt = vr.xlated_cnt;
		max_ctx_offset = vr.max_ctx_offset;
		max_tp_access = vr.max_tp_access;
		insns = xlated;
		/* the check writes its buffer even when it passes: the verifier's log of an
		 * accepted program (log levels 2 and 4) must survive it */
		char verr[256];
		ret = kbpf_insns_validate_xlated(insns, cnt, verr, sizeof(verr));
		if (ret) {
			if (log_size)
				snprintf(log, log_size, "%s", verr);
			free(xlated);
			free(xlated_idx);
			return ret;
		}
	}

	prog = calloc(1, sizeof(*prog));
	if (!prog) {
		free(xlated);
		free(xlated_idx);
		return -ENOMEM;
	}
	if (xlated) {
		prog->insns = xlated;
		prog->xlated_idx = xlated_idx;
		prog->xlated_idx_cnt = xlated_idx_cnt;
	} else {
		prog->insns = malloc(cnt * sizeof(*insns));
		if (!prog->insns) {
			free(prog);
			return -ENOMEM;
		}
		memcpy(prog->insns, insns, cnt * sizeof(*insns));
	}
	prog->insn_cnt = cnt;
	prog->host = OPTS_GET(opts, host, NULL);
	size_t nr_maps = OPTS_GET(opts, maps, NULL) ? OPTS_GET(opts, nr_maps, 0) : 0;
	if (nr_maps) {
		prog->maps = malloc(nr_maps * sizeof(*prog->maps));
		if (!prog->maps) {
			kbpf_prog_free(prog);
			return -ENOMEM;
		}
		memcpy(prog->maps, opts->maps, nr_maps * sizeof(*prog->maps));
		prog->nr_maps = nr_maps;
	}
	ret = kbpf_prog_regions_collect(prog, given, given_cnt); /* regions.c */
	if (ret) {
		kbpf_prog_free(prog);
		return ret;
	}
	snprintf(prog->name, sizeof(prog->name), "%s", OPTS_GET(opts, name, NULL) ? opts->name : "prog");
	/* maps with a bpf_timer: their timers run on this host (src/maps/timer.c) */
	for (size_t i = 0; OPTS_GET(opts, prog_type, NULL) && i < prog->nr_maps; i++) {
		if (!prog->maps[i] || kbpf_map_timer_off(prog->maps[i]) < 0)
			continue;
		ret = kbpf_host_timers_bind(prog->host, prog->maps[i]);
		if (ret) {
			if (log_size)
				snprintf(log, log_size, "map '%s': its timers run on another host",
					 kbpf_map_name(prog->maps[i]));
			kbpf_prog_free(prog);
			return ret;
		}
	}

	/* before the loop below makes the program a PROG_ARRAY's caller, whose need other
	 * threads' map updates read from then on */
	prog->max_ctx_offset = max_ctx_offset;
	prog->max_tp_access = max_tp_access;
	if (OPTS_GET(opts, prog_type, NULL)) {
		/* verified above, so the type exists: its run-time hooks come with it */
		const struct kbpf_prog_type *type = kbpf_host_prog_type_find(prog->host, opts->prog_type);

		prog->ld_abs = type ? type->ld_abs : NULL;
		prog->type = type;
		prog->attach_btf_id = OPTS_GET(opts, attach_btf_id, 0);
		/* the context bytes a host checks before it runs the program (Linux's
		 * test_run of a syscall program, bpf_probe_register of raw_tracepoint.w), which
		 * a tail call's target may not exceed */
		prog->tail_ctx_need = type && type->linux_type == BPF_PROG_TYPE_SYSCALL ? max_ctx_offset : 0;
		/* a tail call hands the callee this program's context: one type per PROG_ARRAY
		 * it uses (Linux's used_maps: those its live ld_imm64s load) */
		for (size_t i = 0; type && i + 1 < prog->insn_cnt; i++) {
			const struct bpf_insn *in = &prog->insns[i];
			if (in->code != (BPF_LD | BPF_IMM | BPF_DW))
				continue;
			i++;
			if ((in->src_reg != BPF_PSEUDO_MAP_FD && in->src_reg != BPF_PSEUDO_MAP_IDX) ||
			    (uint32_t)in->imm >= prog->nr_maps)
				continue;
			if (kbpf_prog_array_owner_check(prog->maps[(uint32_t)in->imm],
							(const struct kbpf_prog_array_view *)prog, true)) {
				if (log_size)
					snprintf(log, log_size, "insn %zu: the PROG_ARRAY holds programs of another "
						 "type or attach point, or reaching further into the context", i - 1);
				kbpf_prog_free(prog);
				return -EINVAL;
			}
		}
	}
	prog->harden = OPTS_GET(opts, harden, 0);
	prog->run_budget = OPTS_GET(opts, run_budget, 0);
	if (prog->harden & ~KBPF_HARDEN_ALL) {
		/* an option this kbpf does not know: better refused than silently not applied */
		if (log_size)
			snprintf(log, log_size, "unknown hardening flags 0x%x", prog->harden & ~KBPF_HARDEN_ALL);
		kbpf_prog_free(prog);
		return -EINVAL;
	}
	if (prog->run_budget > KBPF_RUN_BUDGET_MAX)
		prog->run_budget = KBPF_RUN_BUDGET_MAX;
	ret = kbpf_prog_kfuncs_pin(prog, log, log_size); /* kfuncs.c: before decoding */
	if (!ret) /* src/exec/callback.c: before decoding */
		ret = kbpf_prog_callbacks_prepare(prog, log, log_size);
	if (!ret)
		ret = kbpf_interp_prepare(prog, log, log_size);
	if (ret) {
		kbpf_prog_free(prog);
		return ret;
	}
	prog->run = kbpf_prog_run_interp; /* until the JIT takes it (kbpf_jit_attach) */
	if (OPTS_GET(opts, jit, 0)) {
		ret = prog_jit(prog, log, log_size);
		if (ret) {
			kbpf_prog_free(prog);
			return ret;
		}
	}
	*out = prog;
	return 0;
}

uint32_t kbpf_prog_max_ctx_offset(const struct kbpf_prog *prog)
{
	return prog ? prog->max_ctx_offset : 0;
}

uint32_t kbpf_prog_max_tp_access(const struct kbpf_prog *prog)
{
	return prog ? prog->max_tp_access : 0;
}

void kbpf_prog_free(struct kbpf_prog *prog)
{
	if (!prog)
		return;
	/* its callbacks leave the timers before their code goes: the host's timer engine
	 * asks kbpf_prog_callback_owns which are the program's */
	if (prog->callbacks)
		kbpf_host_timers_prog_release(prog->host, kbpf_prog_callback_owns, prog);
	kbpf_jit_free(prog->jit);
	kbpf_interp_free(prog->interp);
	kbpf_prog_kfuncs_unpin(prog);
	kbpf_prog_callbacks_free(prog->callbacks);
	/* its context need no longer bounds its PROG_ARRAYs (the maps outlive it) */
	for (size_t i = 0; prog->type && prog->maps && i < prog->nr_maps; i++)
		kbpf_prog_array_caller_drop(prog->maps[i], (const struct kbpf_prog_array_view *)prog);
	free(prog->map_regions);
	free(prog->maps);
	free(prog->insns);
	free(prog->xlated_idx);
	free(prog);
}

const uint32_t *kbpf_prog_xlated_idx(const struct kbpf_prog *prog, size_t *cnt)
{
	if (cnt)
		*cnt = prog && prog->xlated_idx ? prog->xlated_idx_cnt : 0;
	return prog ? prog->xlated_idx : NULL;
}

const struct bpf_insn *kbpf_prog_insns(const struct kbpf_prog *prog, size_t *cnt)
{
	if (cnt)
		*cnt = prog ? prog->insn_cnt : 0;
	return prog ? prog->insns : NULL;
}

const char *kbpf_prog_name(const struct kbpf_prog *prog)
{
	return prog ? prog->name : NULL;
}
