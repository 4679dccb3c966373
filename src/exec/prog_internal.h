/* SPDX-License-Identifier: Apache-2.0 */
/* What a struct kbpf_prog holds: program creation (src/prog/) fills it, the engines run it. */
#ifndef KBPF_SRC_EXEC_PROG_INTERNAL_H
#define KBPF_SRC_EXEC_PROG_INTERNAL_H

#include <errno.h>
#include <stddef.h>
#include <stdbool.h>
#include <kbpf/prog.h>
#include <kbpf/prog_type.h>
#include "maps/prog_array.h"

struct kbpf_interp; /* the interpreter's pre-decoded form, owned by interp.c */
struct kbpf_jit;    /* native code, owned by jit.c */
struct kbpf_prog_callbacks; /* closures of ld_imm64 BPF_PSEUDO_FUNC, owned by callback.c */

/* kbpf_prog_run's signature: what kbpf_prog.run holds. */
typedef int (*kbpf_prog_run_fn)(const struct kbpf_prog *prog, void *ctx, uint64_t *retval);

struct kbpf_prog {
	/* kbpf_prog_run jumps straight here (the JIT's run entry, or the interpreter's C
	 * path), so that a run costs one call level; first, so that the jump reads
	 * [prog + 0]. kbpf_prog_create sets the interpreter's, kbpf_jit_attach the JIT's. */
	kbpf_prog_run_fn run;
	/* verified: its type and attach_btf_id, which its PROG_ARRAYs' owner must match
	 * (kbpf_prog_array_owner_check); NULL for an unverified program. Second and third:
	 * a PROG_ARRAY reads them there (struct kbpf_prog_array_view) */
	const struct kbpf_prog_type *type;
	uint32_t attach_btf_id;
	/* fourth and fifth, read there too: the context bytes a caller must have checked for
	 * it (struct kbpf_prog_array_view) */
	uint32_t tail_ctx_need;
	uint32_t max_tp_access;  /* the verifier's (kbpf_prog_max_tp_access); 0 if unverified */
	char name[64];
	struct bpf_insn *insns; /* validated copy */
	size_t insn_cnt;
	struct kbpf_host *host;
	struct kbpf_map **maps; /* the table LDDW map pseudo instructions index */
	size_t nr_maps;
	/* the maps' storage and the variables of inlined helpers, which checked mode lets
	 * the program touch besides the regions a run declares (src/prog/regions.c) */
	struct kbpf_mem_region *map_regions;
	size_t nr_map_regions;
	struct kbpf_interp *interp;
	struct kbpf_jit *jit; /* NULL: runs on the interpreter */
	struct kbpf_prog_kfuncs *kfuncs; /* the kfuncs it calls, pinned (src/prog/kfuncs.c) */
	unsigned harden;     /* KBPF_HARDEN_* of the create options */
	uint32_t max_ctx_offset; /* the verifier's (kbpf_prog_max_ctx_offset); 0 if unverified */
	uint64_t run_budget; /* backward jumps + local calls per run (<= KBPF_RUN_BUDGET_MAX); 0: unbounded */
	struct kbpf_prog_callbacks *callbacks; /* what its ld_imm64s of functions load */
	uint32_t *xlated_idx;  /* verified: where each given insn starts in insns (kbpf_prog_xlated_idx) */
	size_t xlated_idx_cnt;
	/* LD_ABS/LD_IND's packet: the program type's hook (kbpf_prog_type.ld_abs), NULL
	 * for an unverified program or a type without one (such programs are refused) */
	kbpf_ld_abs_fn ld_abs;
};
_Static_assert(offsetof(struct kbpf_prog, run) == offsetof(struct kbpf_prog_array_view, run) &&
		       offsetof(struct kbpf_prog, type) == offsetof(struct kbpf_prog_array_view, type) &&
		       offsetof(struct kbpf_prog, attach_btf_id) == offsetof(struct kbpf_prog_array_view, attach_btf_id) &&
		       offsetof(struct kbpf_prog, tail_ctx_need) == offsetof(struct kbpf_prog_array_view, tail_ctx_need) &&
		       offsetof(struct kbpf_prog, max_tp_access) == offsetof(struct kbpf_prog_array_view, tail_tp_need),
	       "a PROG_ARRAY reads a program's owner through struct kbpf_prog_array_view");

/* The interpreter's run entry (src/exec/run.c): prog->run of a program the JIT has not
 * taken; program creation sets it. */
int kbpf_prog_run_interp(const struct kbpf_prog *prog, void *ctx, uint64_t *retval);

/* The 64-bit value the LDDW at insns[idx] loads: its immediate, or for map pseudo
 * sources the map's address or the address of a value offset. Shared by the engines.
 * Returns 0, or -EINVAL with "insn N: …" in err. */
int kbpf_prog_ldimm64_value(const struct kbpf_prog *prog, size_t idx, uint64_t *value, char *err, size_t err_size);

/* Dead code (docs/verifier.md "After verification"): the verifier's rewrite turns every
 * instruction no path reached into a jump to itself ("goto -1", as Linux's xlated
 * program shows it). In a verified program no reachable jump targets itself (the
 * verifier refuses that infinite loop), so both engines treat a self-jump of a verified
 * program as the dead-code filler it is: reaching it stops the run with this errno,
 * never spins. An unverified program's self-jump runs as given. */
#define KBPF_RUN_DEAD_CODE (-ENOTRECOVERABLE)
/* Whether insns[i] is such a stop: a self-jump of a verified program. */
bool kbpf_prog_insn_is_dead_stop(const struct kbpf_prog *prog, size_t i);
/* Report a run that reached dead code (a verifier bug): one line on stderr naming the
 * program and the instruction. Called by both engines just before they stop. */
void kbpf_prog_dead_code_reached(const struct kbpf_prog *prog, size_t insn);

/* --- interpreter (src/exec/interp*.c) --- */

/* Pre-decode prog->insns (already validated) into prog->interp, resolving helper
 * calls through prog->host.  Returns 0, -EINVAL with "insn N: …" in err (e.g. an
 * unknown helper), or -ENOMEM. */
int kbpf_interp_prepare(struct kbpf_prog *prog, char *err, size_t err_size);
void kbpf_interp_free(struct kbpf_interp *interp);

/* Fast run: no memory checks. args are R1..R5. Returns 0, -E2BIG (call depth) or
 * -EINVAL (callx to an unknown helper). */
int kbpf_interp_run(const struct kbpf_prog *prog, const uint64_t args[5], uint64_t *retval);

/* Fast run from insn start (a callback: a subprogram's first insn) with a fresh stack.
 * Returns as kbpf_interp_run. */
int kbpf_interp_run_at(const struct kbpf_prog *prog, size_t start, const uint64_t args[5], uint64_t *retval);

/* Checked run, as documented for KBPF_RUN_CHECKED in <kbpf/prog.h>; fills opts' outputs. */
int kbpf_interp_run_checked(const struct kbpf_prog *prog, const struct kbpf_run_opts *opts,
			    struct kbpf_run_result *res);

#endif
