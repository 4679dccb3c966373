/* SPDX-License-Identifier: Apache-2.0 */
/* The x86-64 JIT as prog.c sees it: compile a created program, run it, free it.
 * docs/jit.md describes the generated code. */
#ifndef KBPF_SRC_EXEC_JIT_H
#define KBPF_SRC_EXEC_JIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "exec/prog_internal.h"

/* What the generated entry returns in rax:rdx (the SysV ABI's two-register struct
 * return): R0, and 0 or the negative errno of a run-time stop. */
struct kbpf_jit_ret {
	uint64_t r0;
	int64_t err;
};

/* The struct entry has the C signature of a helper with that struct return: R1..R5
 * arrive in the argument registers, which are where the JIT keeps them. tail_cnt is
 * NULL for a new run (depth 0, no tail call yet), or the struct kbpf_jit_tail_run of a
 * run a tail call from a subprogram starts (its first member); generated code also
 * enters it with a jump at a tail call from a main function (jit_x86.c,
 * emit_entry_depth has the three forms). */
typedef struct kbpf_jit_ret (*kbpf_jit_entry_fn)(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4,
						 uint64_t r5, uint32_t *tail_cnt);

/* err of kbpf_jit_tail_call's result when the tail call falls through (never an errno). */
#define KBPF_JIT_TAIL_FALLTHROUGH 1

/* The state of a run that a tail call from a subprogram started (kbpf_jit_tail_call):
 * the struct entry's tail_cnt points at it. The count is the whole run's (copied back
 * when the nested run ends); depth is where the run starts, the depth of the subprogram
 * the target replaces. Generated code reads depth at KBPF_JIT_TAIL_RUN_DEPTH. */
struct kbpf_jit_tail_run {
	uint32_t cnt;
	uint32_t depth;
};
#define KBPF_JIT_TAIL_RUN_DEPTH 4

/* What kbpf_jit_tail_lookup returns in rax:rdx: the struct entry of a JIT-compiled
 * target (0: none), and the target (NULL: the tail call falls through). */
struct kbpf_jit_tail_target {
	uint64_t entry;
	uint64_t prog;
};

/* What generated code calls at a tail call (src/exec/tail_call.c): from the main
 * function, the lookup (it counts the call), then a jump to the target or, for a target
 * the JIT did not take, kbpf_jit_tail_interp; from a subprogram, kbpf_jit_tail_call,
 * which runs the target nested at the subprogram's depth. */
struct kbpf_jit_tail_target kbpf_jit_tail_lookup(uint64_t ctx, uint64_t map, uint64_t index, uint32_t *cnt);
struct kbpf_jit_ret kbpf_jit_tail_interp(uint64_t ctx, uint64_t prog, uint32_t *cnt, uint64_t depth);
struct kbpf_jit_ret kbpf_jit_tail_call(uint64_t ctx, uint64_t map, uint64_t index, uint32_t *cnt, uint64_t depth);


struct kbpf_jit {
	kbpf_jit_entry_fn entry;  /* the struct entry: tail calls, trampolines, kbpf_prog_run_opts */
	kbpf_prog_fn func;        /* the ctx entry: R1 = ctx, R2-R5 0, a new run (kbpf_prog_jited_func) */
	kbpf_prog_run_fn run;     /* the run entry: kbpf_prog_run itself (prog->run) */
	void *map;               /* the executable mapping (read+exec only once filled) */
	size_t map_size;
	const uint8_t *code;     /* the entries, then the main function: generated code starts here... */
	size_t code_size;        /* ...for this many bytes (stubs included, data excluded) */
	struct kbpf_jited_line *lines; /* per instruction: where its code lies, from code */
	size_t insn_cnt;
	void *eh_frame;          /* the code's unwind information, registered (jit_unwind.c), or NULL */
};

/* Compile flags (tests use them to reach the fallback paths). */
#define KBPF_JIT_NO_BMI2 0x1u /* use shl/shr/sar by cl even when the CPU has shlx */
#define KBPF_JIT_BLIND 0x2u       /* constant blinding (KBPF_HARDEN_BLIND) */
#define KBPF_JIT_STACK_GUARD 0x4u /* guarded frames (KBPF_HARDEN_STACK_GUARD) */
#define KBPF_JIT_NO_ALIGN 0x8u    /* no NOP padding before loop heads */

/* The compile flags of a program's KBPF_HARDEN_* options (the run budget is read from
 * the program itself). */
static inline unsigned kbpf_jit_harden_flags(unsigned harden)
{
	return (harden & KBPF_HARDEN_BLIND ? KBPF_JIT_BLIND : 0) |
	       (harden & KBPF_HARDEN_STACK_GUARD ? KBPF_JIT_STACK_GUARD : 0);
}

/* True when this build can generate and run native code (x86-64 hosts). */
bool kbpf_jit_arch_supported(void);

/* Translate prog (created: validated, helpers and LDDW values resolvable). Returns 0
 * and *out, -EOPNOTSUPP with the reason in err for a program the JIT does not take
 * (the caller keeps the interpreter), or -ENOMEM / -errno of mmap/mprotect. */
int kbpf_jit_compile(const struct kbpf_prog *prog, unsigned flags, struct kbpf_jit **out, char *err,
		     size_t err_size);
void kbpf_jit_free(struct kbpf_jit *jit);
/* kbpf_jit_compile into prog->jit (prog has none yet), and make kbpf_prog_run use it
 * (prog->run): how a created program switches to native code; tests use it to reach
 * compile flags no option sets. Returns as kbpf_jit_compile; on an error prog keeps
 * running on the interpreter. */
int kbpf_jit_attach(struct kbpf_prog *prog, unsigned flags, char *err, size_t err_size);

/* Run the compiled program: args are R1..R5. Returns 0 and R0 in *retval, or -E2BIG
 * (more than 8 nested calls) / -EINVAL (callx to an unknown helper) with *retval 0,
 * as the interpreter does (kbpf_prog_run_opts' unchecked path, through the struct entry). */
static inline int kbpf_jit_run(const struct kbpf_jit *jit, const uint64_t args[5], uint64_t *retval)
{
	struct kbpf_jit_ret r = jit->entry(args[0], args[1], args[2], args[3], args[4], NULL);

	*retval = r.err ? 0 : r.r0;
	return (int)r.err;
}

#endif
