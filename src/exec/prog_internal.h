/* SPDX-License-Identifier: Apache-2.0 */
/* What a struct kbpf_prog holds, shared by prog.c and the execution engines. */
#ifndef KBPF_SRC_EXEC_PROG_INTERNAL_H
#define KBPF_SRC_EXEC_PROG_INTERNAL_H

#include <kbpf/prog.h>

struct kbpf_interp; /* the interpreter's pre-decoded form, owned by interp.c */
struct kbpf_jit;    /* native code, owned by jit.c */

struct kbpf_prog {
	char name[64];
	struct bpf_insn *insns; /* validated copy */
	size_t insn_cnt;
	struct kbpf_host *host;
	struct kbpf_map **maps; /* the table LDDW map pseudo instructions index */
	size_t nr_maps;
	/* the maps' storage, which checked mode lets the program touch besides the
	 * regions a run declares (kbpf_map_mem_regions) */
	struct kbpf_mem_region *map_regions;
	size_t nr_map_regions;
	struct kbpf_interp *interp;
	struct kbpf_jit *jit; /* NULL: runs on the interpreter */
	struct kbpf_prog_kfuncs *kfuncs; /* the kfuncs it calls, pinned (src/exec/kfunc_call.c) */
};

/* The 64-bit value the LDDW at insns[idx] loads: its immediate, or for map pseudo
 * sources the map's address or the address of a value offset. Shared by the engines.
 * Returns 0, or -EINVAL with "insn N: …" in err. */
int kbpf_prog_ldimm64_value(const struct kbpf_prog *prog, size_t idx, uint64_t *value, char *err, size_t err_size);

/* --- interpreter (src/exec/interp*.c) --- */

/* Pre-decode prog->insns (already validated) into prog->interp, resolving helper
 * calls through prog->host.  Returns 0, -EINVAL with "insn N: …" in err (e.g. an
 * unknown helper), or -ENOMEM. */
int kbpf_interp_prepare(struct kbpf_prog *prog, char *err, size_t err_size);
void kbpf_interp_free(struct kbpf_interp *interp);

/* Fast run: no memory checks. args are R1..R5. Returns 0, -E2BIG (call depth) or
 * -EINVAL (callx to an unknown helper). */
int kbpf_interp_run(const struct kbpf_prog *prog, const uint64_t args[5], uint64_t *retval);

/* Checked run, as documented for KBPF_RUN_CHECKED in <kbpf/prog.h>; fills opts' outputs. */
int kbpf_interp_run_checked(const struct kbpf_prog *prog, struct kbpf_run_opts *opts);

#endif
