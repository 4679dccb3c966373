/* SPDX-License-Identifier: Apache-2.0 */
/* The interpreter's pre-decoded program and what its parts (decoder, threaded-code
 * loop, checked-mode memory rules) share.  Nothing here is visible outside src/exec. */
#ifndef KBPF_SRC_EXEC_INTERP_INTERNAL_H
#define KBPF_SRC_EXEC_INTERP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "exec/prog_internal.h"
#include "exec/kfunc_call.h"
#include "exec/probe_mem.h"
#include "maps/pcpu.h"

/* Every handler of the threaded-code loop, one per specialised operation.  The order of
 * each group of four is fixed (64-bit K, 64-bit X, 32-bit K, 32-bit X) so the decoder can
 * pick a variant by adding an offset to the group's first entry. */
#define KBPF_IH_ALU_OPS(X, H) \
	X(H, ADD) X(H, SUB) X(H, MUL) X(H, DIV) X(H, SDIV) X(H, MOD) X(H, SMOD) X(H, OR) \
	X(H, AND) X(H, LSH) X(H, RSH) X(H, ARSH) X(H, XOR) X(H, MOV)
#define KBPF_IH_JMP_CONDS(X, H) \
	X(H, JEQ) X(H, JNE) X(H, JGT) X(H, JGE) X(H, JLT) X(H, JLE) X(H, JSGT) X(H, JSGE) \
	X(H, JSLT) X(H, JSLE) X(H, JSET)
#define KBPF_IH_ALU_GROUP(H, op) H(ALU64_##op##_K) H(ALU64_##op##_X) H(ALU32_##op##_K) H(ALU32_##op##_X)
#define KBPF_IH_JMP_GROUP(H, op) H(JMP_##op##_K) H(JMP_##op##_X) H(JMP32_##op##_K) H(JMP32_##op##_X)

#define KBPF_IH_ATOMIC_GROUP(H, sz) \
	H(ATOMIC_##sz##_ADD) H(ATOMIC_##sz##_OR) H(ATOMIC_##sz##_AND) H(ATOMIC_##sz##_XOR) \
	H(ATOMIC_##sz##_FETCH_ADD) H(ATOMIC_##sz##_FETCH_OR) H(ATOMIC_##sz##_FETCH_AND) \
	H(ATOMIC_##sz##_FETCH_XOR) H(ATOMIC_##sz##_XCHG) H(ATOMIC_##sz##_CMPXCHG)

#define KBPF_INTERP_HANDLERS(H)                                                          \
	KBPF_IH_ALU_OPS(KBPF_IH_ALU_GROUP, H)                                              \
	H(NEG64) H(NEG32)                                                                  \
	H(MOVSX64_8) H(MOVSX64_16) H(MOVSX64_32) H(MOVSX32_8) H(MOVSX32_16) H(MOV_PERCPU)  \
	H(ZEXT16) H(ZEXT32) H(NOP) H(SWAP16) H(SWAP32) H(SWAP64)                           \
	KBPF_IH_JMP_CONDS(KBPF_IH_JMP_GROUP, H)                                            \
	H(JA) H(MAY_GOTO)                                                                  \
	H(LDX_B) H(LDX_H) H(LDX_W) H(LDX_DW) H(LDXSX_B) H(LDXSX_H) H(LDXSX_W)              \
	H(LDX_PROBE_B) H(LDX_PROBE_H) H(LDX_PROBE_W) H(LDX_PROBE_DW)                       \
	H(ST_B) H(ST_H) H(ST_W) H(ST_DW) H(STX_B) H(STX_H) H(STX_W) H(STX_DW)              \
	KBPF_IH_ATOMIC_GROUP(H, W) KBPF_IH_ATOMIC_GROUP(H, DW)                             \
	H(LDDW)                                                                            \
	H(LD_ABS_B) H(LD_ABS_H) H(LD_ABS_W) H(LD_IND_B) H(LD_IND_H) H(LD_IND_W)            \
	H(CALL_HELPER) H(CALL_KFUNC) H(CALLX) H(CALL_LOCAL) H(CALL_UNRESOLVED) H(EXIT) H(TAIL_CALL)                         \
	H(FELL_OFF) H(DEAD)

#define KBPF_IH_ENUM_ENTRY(name) KBPF_IH_##name,
enum kbpf_interp_handler { KBPF_INTERP_HANDLERS(KBPF_IH_ENUM_ENTRY) KBPF_IH__COUNT };
#undef KBPF_IH_ENUM_ENTRY

/* One decoded instruction.  Index i of the decoded array is instruction i of the
 * program (an LDDW's second slot gets a never-executed entry), so a decoded pointer
 * converts back to the instruction index messages name.  Fast mode reads only the
 * first 24 bytes. */
struct kbpf_di {
	const void *h; /* fast-mode handler label */
	uint8_t dst, src;
	int16_t off;
	int32_t imm; /* shift amounts are already masked */
	union {
		uint64_t u64;                 /* LDDW value */
		const struct kbpf_di *target; /* jumps and local calls */
		kbpf_helper_fn fn;            /* helper calls */
		const struct kbpf_kfunc_desc *kfunc; /* kfunc calls (exec/kfunc_call.h) */
		kbpf_ld_abs_fn ld_abs;        /* LD_ABS/LD_IND: the program type's packet hook */
	} x;
	const void *hc; /* checked-mode handler label */
};

/* Helper table for callx, whose helper id is only known at run time: a snapshot of the
 * host's helpers taken at prepare, sorted by id. */
struct kbpf_callx_entry {
	int32_t id;
	kbpf_helper_fn fn;
};

struct kbpf_interp {
	const struct kbpf_prog *prog; /* whose code this is (a tail call switches programs) */
	/* Decoded for the hardened loop (a run budget or the stack guard): the fast handler
	 * labels are that loop's. canary: what the stack guard bytes hold. */
	bool hardened;
	uint64_t canary;
	struct kbpf_callx_entry *callx;
	size_t nr_callx;
	size_t cnt;              /* instructions; code[cnt] is a FELL_OFF sentinel */
	/* 32-byte entries from a 32-byte boundary of the 64-byte aligned block: none straddles a cache line */
	_Alignas(32) struct kbpf_di code[];
};

/* What one run needs and reports, shared by the fast and checked loops. */
struct kbpf_interp_run {
	const uint64_t *args; /* R1..R5 */
	uint64_t retval;
	uint32_t tail_calls;  /* in: made before this run (a JIT tail call), out: made in all */
	size_t start;         /* the first insn (0; a callback's subprogram) */
	/* The call depth the run starts at: not 0 for a tail call's target that a subprogram
	 * at that depth called on another engine or loop; its local calls stop at the same
	 * 8th frame as the caller's would. */
	unsigned depth;
	/* A tail call from a main function to a program decoded for the other unchecked loop
	 * (hardened or not): the loop returns KBPF_INTERP_SWITCH with the target and R1-R5
	 * here, and kbpf_interp_run_from runs it in that loop: replaced, not nested. */
	const struct kbpf_prog *next;
	uint64_t next_args[5];
	/* checked mode only */
	const struct kbpf_run_opts *opts; /* what the loop checks against: the caller's, or ck->view */
	struct kbpf_interp_checked *ck;
	uint64_t insns_executed;
	int64_t fault_insn;
};

/* Checked mode's view of the memory a program may touch: the caller's regions plus the
 * running program's maps (a tail call changes the program). Kept apart so that the
 * fast loop's run record stays small. */
struct kbpf_interp_checked {
	const struct kbpf_run_opts *user; /* the caller's options */
	struct kbpf_run_opts view;
	struct kbpf_mem_region *regions, *small; /* view's regions: small (on the stack) or malloc'ed */
	size_t regions_cap, small_cap;
};

/* A loop's return (never an errno) for run->next: see struct kbpf_interp_run. */
#define KBPF_INTERP_SWITCH 1

/* A fast run of prog with run's args and tail call count (in and out). Returns as
 * kbpf_interp_run. */
int kbpf_interp_run_from(const struct kbpf_prog *prog, struct kbpf_interp_run *run);

/* Checked mode entering prog (the first program or a tail call's target): point
 * run->opts at the caller's regions plus prog's maps. Returns 0, -EINVAL, -ENOMEM. */
int kbpf_interp_checked_enter(struct kbpf_interp_run *run, const struct kbpf_prog *prog);

/* Checked mode after a kfunc returned addr, a pointer to a host object of size bytes
 * (its BTF struct): the program may read and write it from now on (the verifier
 * allowed it). Returns 0, -ENOMEM or -E2BIG (over 4096 objects in one run). */
int kbpf_interp_checked_add_object(struct kbpf_interp_run *run, uint64_t addr, uint32_t size, unsigned flags,
				   const char *name);

/* The label tables of the loops, indexed by enum kbpf_interp_handler. */
void kbpf_interp_labels(const void *const **fast, const void *const **checked, const void *const **hardened);

/* The fast loop plus a run budget and stack guards (interp_hardened.c: its own
 * translation unit, so that the fast loop's code is what it is without it). Called as
 * the loops of interp.c are. */
int kbpf_interp_loop_hardened(const struct kbpf_interp *ip, struct kbpf_interp_run *run,
			      const void *const **labels_out);

/* The hardened loop's stack guard: bytes between and around its frames. */
#define KBPF_INTERP_GUARD_BYTES 32

static inline void kbpf_interp_guard_fill(uint8_t *p, size_t n, uint64_t canary)
{
	for (size_t k = 0; k < n; k += sizeof(canary))
		__builtin_memcpy(p + k, &canary, sizeof(canary));
}

static inline bool kbpf_interp_guard_ok(const uint8_t *p, size_t n, uint64_t canary)
{
	uint64_t v, diff = 0;

	for (size_t k = 0; k < n; k += sizeof(canary)) {
		__builtin_memcpy(&v, p + k, sizeof(v));
		diff |= v ^ canary;
	}
	return !diff;
}

/* The helper callx reaches for id, or NULL. */
kbpf_helper_fn kbpf_interp_callx_find(const struct kbpf_interp *ip, uint64_t id);

/* --- checked mode (interp_checked.c) --- */

/* True if [addr, addr+size) lies in the live stack [stack_lo, stack_hi) or wholly inside
 * one declared region that grants every flag in need. */
bool kbpf_interp_mem_ok(const struct kbpf_run_opts *opts, uintptr_t stack_lo, uintptr_t stack_hi,
			uint64_t addr, uint32_t size, unsigned need);

/* Describe a refused access in opts->err: "insn N: invalid write of 4 bytes at 0x… (r1 +8): why". */
void kbpf_interp_mem_fault(const struct kbpf_run_opts *opts, size_t insn, uintptr_t stack_lo,
			   uintptr_t stack_hi, uint64_t addr, uint32_t size, unsigned need,
			   unsigned base_reg, int16_t off);

/* Write "insn N: " and the formatted reason into opts->err (if the caller gave one). */
void kbpf_interp_stop_msg(const struct kbpf_run_opts *opts, size_t insn, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
