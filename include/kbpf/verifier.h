/* SPDX-License-Identifier: Apache-2.0 */
/* The verifier: Linux's abstract interpretation over every path of a program, with
 * Linux's verdicts, messages and log format (docs/verifier.md).
 *
 * Ownership: kbpf_prog_verify reads insns and what opts points to during the call and
 * keeps nothing; it writes only the caller's buffers (log_buf, xlated_insns) and *res,
 * and with opts->xlated_alloc the rewritten program (res->xlated_prog, xlated_idx) is
 * malloc'ed for the caller to free().
 * Threads: any number of verifications may run at once, on one host too, and with the
 * same opts; each needs its own buffers and result. */
#ifndef KBPF_VERIFIER_H
#define KBPF_VERIFIER_H

#include <kbpf/export.h>
#include <stddef.h>
#include <stdint.h>
#include <kbpf/insn.h>
#include <kbpf/host.h>
#include <kbpf/prog_type.h>

/* Linux 6.7's BPF_PROG_LOAD flag (older <linux/bpf.h> lack it): inconsistent register
 * bounds fail the load (kbpf_verify_opts.prog_flags). */
#ifndef BPF_F_TEST_REG_INVARIANTS
#define BPF_F_TEST_REG_INVARIANTS (1U << 7)
#endif

#ifdef __cplusplus
extern "C" {
#endif

struct kbpf_map;
struct btf;
struct bpf_func_info;

/* Log levels, Linux's bits: 1 = the path to the error (and the statistics line),
 * 2 = every instruction with its register state, 4 = statistics only. */
#define KBPF_LOG_LEVEL1 1u
#define KBPF_LOG_LEVEL2 2u
#define KBPF_LOG_STATS  4u

/* Linux's limits. */
#define KBPF_MAX_PROCESSED_INSNS 1000000u
#define KBPF_MAX_CALL_FRAMES 8
#define KBPF_MAX_STACK 512

/* What to verify and how: read during the call only (nothing in it is written; the
 * results go to struct kbpf_verify_result). */
struct kbpf_verify_opts {
	size_t sz;                   /* sizeof(struct kbpf_verify_opts) */
	struct kbpf_host *host;      /* program types, helper prototypes, host BTF */
	const char *prog_type;       /* a type registered on host (required) */
	struct kbpf_map *const *maps;/* LDDW BPF_PSEUDO_MAP_* imm indexes this table */
	size_t nr_maps;
	const char *license;         /* NULL or "GPL", "Dual BSD/GPL"…: GPL-only helpers/kfuncs */
	int unprivileged;            /* Linux's rules without CAP_BPF/CAP_PERFMON */
	unsigned log_level;          /* KBPF_LOG_* bits; 0: only the error line */
	char *log_buf;               /* the caller's buffer that receives the log
				      * (NUL-terminated, its tail kept when too long) */
	size_t log_size;
	const char *prog_name;       /* for messages */
	/* NULL, or the caller's buffer with room for cnt insns that receives, when the program
	 * is safe, the program as it must run (Linux's "xlated" program): context accesses
	 * converted to the run-time context's layout (kbpf_ctx_access_info.conv_off/conv_size),
	 * dead code made "goto -1". Only the rewrites that keep the instruction count, so insn
	 * indexes, line info and jumps stay valid (kbpf_verify_result.nr_ctx_conv counts the
	 * conversions); xlated_alloc below gets all of them. */
	struct bpf_insn *xlated_insns;
	/* Kfuncs (docs/kfuncs.md): a sleepable program may call KF_SLEEPABLE kfuncs; with
	 * no_destructive the loader lacks Linux's CAP_SYS_BOOT and KF_DESTRUCTIVE kfuncs are
	 * refused ("destructive kfunc calls require CAP_SYS_BOOT capabilities"). */
	int sleepable;
	int no_destructive;
	/* A BTF-typed context: a FUNC_PROTO (or FUNC, or pointer to either) in the host BTF.
	 * The context is then the u64 array of its arguments (ctx_size = 8 * nargs), typed as
	 * Linux 6.1's btf_ctx_access types it: read-only, 8-byte slots (narrower reads of a
	 * slot's low bytes for scalars), pointer-to-struct arguments load as PTR_TO_BTF_ID of
	 * the struct, other arguments as scalars; the program type's ctx_arg_access may then
	 * adjust or refuse. No ctx conversion. 0: the program type's own context. */
	uint32_t attach_btf_id;
	/* The struct_ops member the program fills ("ssthresh"), or NULL: passed to the program
	 * type's get_func_proto_member and named in messages. */
	const char *attach_member;
	/* BTF func_info (Linux's prog_btf_fd + func_info): the program's own BTF (libbpf's
	 * struct btf) and one record per subprogram, insn_off in instructions. With them,
	 * global functions (BTF_FUNC_GLOBAL) are verified on their own, typed from their
	 * prototype, and callbacks (ld_imm64 BPF_PSEUDO_FUNC) are allowed. NULL/0: none. */
	const struct btf *prog_btf;
	const struct bpf_func_info *func_info;
	uint32_t nr_func_info;
	/* Linux's BPF_F_TEST_STATE_FREQ: a checkpoint at every prune point instead of after
	 * at least 2 jumps and 8 instructions (tests of pruning and precision use it). */
	int test_state_freq;
	/* The loader's capabilities (KBPF_CAP_* of <kbpf/prog_type.h>; 0: the default, every
	 * one unless unprivileged). Without KBPF_CAP_SYS_BOOT, KF_DESTRUCTIVE kfuncs are refused
	 * as no_destructive refuses them; without KBPF_CAP_BPF (or SYS_ADMIN) the program is
	 * verified as unprivileged. KBPF_CAP_NONE: none at all. Nonzero caps decide alone
	 * (unprivileged is then ignored). */
	unsigned caps;
	/* The complexity limit: at most this many processed instructions ("BPF program is
	 * too large. Processed %d insn", -E2BIG). 0 or more than KBPF_MAX_PROCESSED_INSNS:
	 * Linux's 1,000,000. A smaller one bounds the time and memory one verification may
	 * take (an embedder's resource limit; the fuzz targets use it). */
	uint32_t insn_limit;
	/* Nonzero: ask for the program as it must run after every rewrite kbpf does once a
	 * program is proven safe, like Linux 6.1's "xlated" program (docs/verifier.md, "After
	 * verification"): xlated_insns' rewrites plus those that change the program's length
	 * (bpf_loop calls inlined into a loop that calls the callback directly). It comes back
	 * in kbpf_verify_result.xlated_prog / xlated_cnt / xlated_idx, so it needs a result
	 * struct that has them (else -EINVAL). */
	int xlated_alloc;
	/* Linux's BPF_PROG_LOAD prog_flags that concern the verifier (<linux/bpf.h>):
	 * BPF_F_STRICT_ALIGNMENT (every access naturally aligned, packets as if at
	 * NET_IP_ALIGN 2: "misaligned ... access"), BPF_F_ANY_ALIGNMENT (cancels it),
	 * BPF_F_TEST_STATE_FREQ (= test_state_freq), BPF_F_SLEEPABLE (= sleepable),
	 * BPF_F_TEST_REG_INVARIANTS (a register whose bounds contradict themselves after an
	 * update fails the load, -EFAULT, "REG INVARIANTS VIOLATION"; without it such bounds
	 * are forgotten and the log warns, as Linux 6.12). Any other bit: -EINVAL. */
	uint32_t prog_flags;
};

/* What a verification found, safe or not. The caller sets sz (sizeof the struct it was
 * compiled with) and nothing else: kbpf_prog_verify zeroes all sz bytes after sz itself,
 * then fills the fields it knows that fit (a field this build does not know reads 0). */
struct kbpf_verify_result {
	size_t sz;                   /* sizeof(struct kbpf_verify_result) */
	int64_t error_insn;          /* instruction the error is about, else -1 */
	uint32_t insns_processed;    /* Linux's "processed %d insns" */
	uint32_t max_states_per_insn, total_states, peak_states, mark_read;
	uint64_t verify_ns;          /* wall time of the verification */
	/* Linux's max_ctx_offset, the end of the furthest context byte the program reads or
	 * writes (directly or through a helper/kfunc memory argument); a syscall program's
	 * test run refuses a shorter context (kbpf_linux_test_run_syscall). */
	uint32_t max_ctx_offset;
	/* Linux's max_tp_access, the end of the furthest byte the program reads or writes
	 * through the writable buffer of a raw_tp_writable context (a KBPF_PTR_TO_TP_BUFFER):
	 * the buffer the host passes must be at least this long. */
	uint32_t max_tp_access;
	uint32_t nr_ctx_conv;        /* context accesses rewritten into opts->xlated_insns */
	/* With opts->xlated_alloc, a safe program's full rewrite: xlated_prog, malloc'ed for
	 * the caller to free(), holds xlated_cnt insns; xlated_idx (malloc'ed too, cnt + 1
	 * entries) says where each given insn starts in it, the last entry being xlated_cnt:
	 * func_info and line_info move by it, as Linux moves them. NULL/0 otherwise. */
	struct bpf_insn *xlated_prog;
	uint32_t xlated_cnt;
	uint32_t *xlated_idx;
	uint32_t nr_subprogs;
	/* Per subprogram, the rewritten program's (an inlined call adds its slots). */
	uint32_t stack_depth[256];
};

/* Verify insns as a program of opts->prog_type; res (NULL: not wanted) receives the
 * statistics, the error's instruction and the rewritten program. Returns 0 if the
 * program is safe, -EACCES (rejected: unsafe), -EINVAL (malformed, or bad opts/res),
 * -E2BIG (complexity limits), -EPERM (the program type needs a capability opts lacks),
 * -ENOENT (unknown program type), -ENOMEM; the reason is the log's last line. */
KBPF_API int kbpf_prog_verify(const struct bpf_insn *insns, size_t cnt, const struct kbpf_verify_opts *opts,
			      struct kbpf_verify_result *res);

#ifdef __cplusplus
}
#endif
#endif /* KBPF_VERIFIER_H */
