/* SPDX-License-Identifier: Apache-2.0 */
/* Programs made from raw instructions, and running them.
 *
 * Ownership: kbpf_prog_create copies the instructions; what opts points to is read
 * during the call only, except the maps (opts->maps), which must outlive the program,
 * and the host. The program belongs to the caller: kbpf_prog_free, once no thread runs
 * it. What the getters return (kbpf_prog_insns, _xlated_idx, _name, _jited_code,
 * _jited_line_info, _jited_func) belongs to the program: valid until kbpf_prog_free.
 * Threads: a created program does not change. kbpf_prog_run, kbpf_prog_run_opts (each
 * caller with its own result and err buffer; the options themselves are only read) and
 * the getters may run on any number of threads at once, sharing the program's maps
 * (<kbpf/map.h>); kbpf_prog_create may run on many threads at once, on one host too. */
#ifndef KBPF_PROG_H
#define KBPF_PROG_H

#include <kbpf/export.h>
#include <stddef.h>
#include <stdint.h>
#include <kbpf/insn.h>
#include <kbpf/host.h>

#ifdef __cplusplus
extern "C" {
#endif

struct kbpf_prog;
struct kbpf_map;

struct btf;
struct bpf_func_info;

struct kbpf_prog_opts {
	size_t sz;              /* sizeof(struct kbpf_prog_opts) */
	struct kbpf_host *host; /* helpers come from here; NULL: no helpers */
	const char *name;       /* for messages; copied */
	char *log_buf;          /* receives the reason a create fails */
	size_t log_size;
	/* The maps LDDW pseudo instructions name: src_reg BPF_PSEUDO_MAP_FD/_IDX take imm as
	 * an index into this table (kbpf has no file descriptors), _VALUE/_IDX_VALUE add
	 * the second half's imm as an offset into an array map's value. The maps must
	 * outlive the program. */
	struct kbpf_map *const *maps;
	size_t nr_maps;
	/* Nonzero: also compile to native code with the x86-64 JIT, which kbpf_prog_run and
	 * the unchecked kbpf_prog_run_opts then use (checked runs stay on the interpreter).
	 * Create fails with -EOPNOTSUPP on a host that is not x86-64; a program the JIT does
	 * not take stays on the interpreter (kbpf_prog_is_jited says which; the reason is
	 * written to log_buf). See docs/jit.md. */
	int jit;
	/* Verification (docs/verifier.md): when prog_type names a program type registered
	 * on host, create first runs kbpf_prog_verify and fails with its error (-EACCES,
	 * -EINVAL, -E2BIG…) and its log's tail in log_buf. NULL: no verification, which
	 * create refuses (-EPERM, "no program type: …" in log_buf) unless
	 * trusted_unverified is set. */
	const char *prog_type;
	const char *license;    /* "GPL"…: GPL-only helpers; NULL: not GPL */
	unsigned log_level;     /* KBPF_LOG_* of <kbpf/verifier.h> */
	int unprivileged;       /* Linux's rules without CAP_BPF/CAP_PERFMON */
	/* A BTF-typed context (Linux's struct_ops / tracing programs): a FUNC_PROTO (or FUNC,
	 * or pointer to either) in the host BTF; the context is the u64 array of its
	 * arguments, read-only, typed as Linux's btf_ctx_access types it. 0: none. Passed to
	 * the verifier (docs/verifier.md). */
	uint32_t attach_btf_id;
	/* The struct_ops member the program fills ("ssthresh"), or NULL: the program type's
	 * get_func_proto_member sees it. */
	const char *attach_member;
	/* BTF func_info for the verifier (kbpf_verify_opts of <kbpf/verifier.h>): the
	 * program's BTF and one record per subprogram. NULL/0: none. */
	const struct btf *prog_btf;
	const struct bpf_func_info *func_info;
	uint32_t nr_func_info;
	/* Hardening (docs/reliability.md, "Hardening"): KBPF_HARDEN_* flags (others: create
	 * fails with -EINVAL). Each costs a little per run (figures in docs/performance.md);
	 * 0 is the fast default. */
	unsigned harden;
	/* Nonzero: each run may execute at most this many backward jumps and BPF-to-BPF
	 * calls (on both engines, counted alike); the next one stops the run with -ETIME.
	 * Bounds even an unverified looping program. Values above KBPF_RUN_BUDGET_MAX count
	 * as that. */
	uint64_t run_budget;
	/* The loader's capabilities for verification (kbpf_verify_opts.caps: KBPF_CAP_*; 0:
	 * every one unless unprivileged; KBPF_CAP_NONE: none). */
	unsigned caps;
	/* Linux's load flags for verification (kbpf_verify_opts.prog_flags:
	 * BPF_F_STRICT_ALIGNMENT, BPF_F_ANY_ALIGNMENT, BPF_F_TEST_STATE_FREQ, BPF_F_SLEEPABLE,
	 * BPF_F_TEST_REG_INVARIANTS). */
	uint32_t prog_flags;
	/* Nonzero: with no prog_type, create the program unverified. Such a program is
	 * not checked at all: it can read and write any host memory and call any of the
	 * host's helpers with any arguments. Only for code as trusted as the host's own
	 * (tests, hand-written programs); never for programs from elsewhere. Ignored when
	 * prog_type is set. Default 0: a program without a type is refused. */
	int trusted_unverified;
};

/* Constant blinding in the JIT (Linux's bpf_jit_harden): no immediate of the program
 * appears in executable memory; each is loaded XORed with a random per-instruction key
 * and then XORed back. No effect on the interpreter. */
#define KBPF_HARDEN_BLIND 0x1u
/* Guard bytes around every program stack frame (both engines), checked when a function
 * returns: a write just outside the 512-byte frame stops the run with -EFAULT before
 * the corrupted frame is used, instead of silently corrupting the host. */
#define KBPF_HARDEN_STACK_GUARD 0x2u
#define KBPF_HARDEN_ALL (KBPF_HARDEN_BLIND | KBPF_HARDEN_STACK_GUARD)
/* The most run_budget counts. */
#define KBPF_RUN_BUDGET_MAX ((1ull << 48) - 1)

/* Copy and structurally validate insns, resolve helper calls against the host and
 * pre-decode for the interpreter.  Returns 0 and *prog, or a negative errno
 * (-EINVAL: bad program, with the reason in opts->log_buf; -ENOMEM). */
KBPF_API int kbpf_prog_create(const struct bpf_insn *insns, size_t cnt, const struct kbpf_prog_opts *opts,
		     struct kbpf_prog **prog);
KBPF_API void kbpf_prog_free(struct kbpf_prog *prog);

KBPF_API const struct bpf_insn *kbpf_prog_insns(const struct kbpf_prog *prog, size_t *cnt);
/* A verified program's kbpf_prog_insns are the verifier's rewrite (Linux's "xlated"
 * program, docs/verifier.md "After verification"), which may be longer than the
 * instructions given to create: entry i of this array is where given instruction i starts
 * in it, *cnt = the given count + 1 entries, the last one kbpf_prog_insns' count (to move
 * line info and func info). NULL (*cnt 0) for a program created unverified. */
KBPF_API const uint32_t *kbpf_prog_xlated_idx(const struct kbpf_prog *prog, size_t *cnt);
KBPF_API const char *kbpf_prog_name(const struct kbpf_prog *prog);

/* Linux's max_ctx_offset: the end of the furthest context byte the verified program
 * touches (kbpf_verify_result.max_ctx_offset); 0 for a program created unverified. */
KBPF_API uint32_t kbpf_prog_max_ctx_offset(const struct kbpf_prog *prog);
/* Linux's max_tp_access: how many bytes of a raw_tp_writable buffer the verified
 * program may touch (kbpf_verify_result.max_tp_access); 0 if none or unverified. */
KBPF_API uint32_t kbpf_prog_max_tp_access(const struct kbpf_prog *prog);
/* 1 if the program runs as JIT-compiled native code, else 0. */
KBPF_API int kbpf_prog_is_jited(const struct kbpf_prog *prog);
/* The JIT-generated machine code (read-only, x86-64) and its size in *size, or NULL
 * (size 0) when the program is not JIT-compiled. */
KBPF_API const void *kbpf_prog_jited_code(const struct kbpf_prog *prog, size_t *size);
/* Where the native code of each instruction lies in kbpf_prog_jited_code: bytes
 * [start, end) from the code's start, in instruction order (offsets never decrease).
 * start == end where an instruction has no code of its own: an LDDW's second half, the
 * second of two instructions compiled into one native instruction, a jump to the next
 * instruction. Bytes between one instruction's end and the next one's start are a
 * function's epilogue and the next one's prologue, or NOPs that align the loop that
 * starts at the next instruction; the main function's entries (docs/jit.md) and its
 * prologue precede instruction 0; stubs follow the last. Returns an array of one entry
 * per instruction (*cnt of them), or NULL (*cnt 0) when the program is not JIT-compiled. */
struct kbpf_jited_line {
	uint32_t start, end;
};
KBPF_API const struct kbpf_jited_line *kbpf_prog_jited_line_info(const struct kbpf_prog *prog, size_t *cnt);

/* What a JIT-compiled program's native function returns (in rax:rdx, the SysV ABI's
 * two-register struct return): err is 0 or the negative errno of a run-time stop (what
 * kbpf_prog_run returns), retval is R0 (0 after a stop). */
struct kbpf_prog_result {
	uint64_t retval;
	int64_t err;
};
typedef struct kbpf_prog_result (*kbpf_prog_fn)(void *ctx);
/* The JIT-compiled program as a native C function, like Linux's prog->bpf_func:
 * fn(ctx) runs it exactly as kbpf_prog_run(prog, ctx, &r0) does (R1 = ctx, R2-R5 zero,
 * tail calls, run-time stops), without kbpf_prog_run's argument check and dispatch,
 * for a host that calls one program per event. NULL when the program is not
 * JIT-compiled (it runs on the interpreter: use kbpf_prog_run). Valid until
 * kbpf_prog_free; the same trust as kbpf_prog_run: only verified programs. */
KBPF_API kbpf_prog_fn kbpf_prog_jited_func(const struct kbpf_prog *prog);

/* Run with R1 = ctx on the JIT-compiled code if there is some, else on the fast
 * interpreter. "call 12" is bpf_tail_call (unless the host registered a helper 12 of
 * its own), with Linux 6.1's semantics on both engines: an index beyond the
 * PROG_ARRAY's max_entries or an empty slot falls through, otherwise the program in
 * the slot continues the run with the same R1 (ctx) and its return is the run's; at
 * most 33 tail calls per run, further ones fall through. Returns 0 and R0 in *retval, or a
 * negative errno for a run-time stop (-E2BIG: more than 8 nested calls, -EINVAL: callx
 * to an unknown helper, or reaching a call the loader left unresolved: a __weak kfunc
 * the host lacks, an instruction poisoned by a CO-RE relocation; -ENOTRECOVERABLE:
 * reaching dead code, a verifier bug, see kbpf_prog_run_opts). The fast
 * mode trusts the program: only verified programs belong here. */
KBPF_API int kbpf_prog_run(const struct kbpf_prog *prog, void *ctx, uint64_t *retval);

/* Memory a program may touch in checked mode (besides its own stack). */
#define KBPF_MEM_READ 1u
#define KBPF_MEM_WRITE 2u
struct kbpf_mem_region {
	void *base;
	size_t size;
	unsigned flags; /* KBPF_MEM_READ | KBPF_MEM_WRITE */
	const char *name; /* printed in violation messages ("ctx", "packet", …) */
};

/* Checked mode: every load/store is checked against the stack frames and the
 * regions given; a violation stops the program with -EFAULT and a message naming
 * the instruction. Counts executed instructions. Slow; used by tests. */
#define KBPF_RUN_CHECKED 1u
/* With KBPF_RUN_CHECKED: the stack starts filled with stack_fill instead of zeros, and
 * so does each BPF-to-BPF call's frame. Two runs with different fills give different
 * results only for a program that reads stack it never wrote (which privileged programs
 * may do, through helpers, as in Linux). */
#define KBPF_RUN_STACK_FILL 2u

/* How to run: read during the call only (the results go to struct kbpf_run_result). */
struct kbpf_run_opts {
	size_t sz;                /* sizeof(struct kbpf_run_opts) */
	uint64_t args[5];         /* R1..R5 at entry */
	unsigned flags;           /* KBPF_RUN_* */
	const struct kbpf_mem_region *regions;
	size_t nr_regions;
	uint64_t max_insns;       /* checked mode: stop with -ETIME after this many (0: no limit) */
	uint8_t stack_fill;       /* KBPF_RUN_STACK_FILL: the stack's initial bytes */
	char *err;                /* the caller's buffer that receives the reason of a run-time stop */
	size_t err_size;
};

/* What a run gave. The caller sets sz (sizeof the struct it was compiled with) and
 * nothing else: kbpf_prog_run_opts zeroes all sz bytes after sz itself, then fills the
 * fields it knows that fit. */
struct kbpf_run_result {
	size_t sz;                /* sizeof(struct kbpf_run_result) */
	uint64_t retval;          /* R0 at exit (0 after a run-time stop) */
	int64_t fault_insn;       /* instruction index of a run-time stop, else -1 */
	uint64_t insns_executed;  /* checked mode only */
};

/* Run with the given arguments and mode; res (NULL: not wanted) receives R0 and where a
 * run stopped. Returns 0, or a negative errno for a run-time stop (-EFAULT memory
 * violation, -ETIME instruction budget, -E2BIG call depth, -ENOTRECOVERABLE a verified
 * program reached code its verifier judged unreachable: a verifier bug, also reported on
 * stderr with the instruction, docs/verifier.md), or -EINVAL (bad arguments, flags or
 * sz). Same threads rule as kbpf_prog_run: each caller its own buffers and result. */
KBPF_API int kbpf_prog_run_opts(const struct kbpf_prog *prog, const struct kbpf_run_opts *opts,
				struct kbpf_run_result *res);

#ifdef __cplusplus
}
#endif
#endif /* KBPF_PROG_H */
