/* SPDX-License-Identifier: Apache-2.0 */
/* Verifier step 4: state pruning with precision tracking. The processed-insn counts
 * below are the live Linux kernel's for the same programs (socket filters). */
#include "test_verifier_util.h"

#define DIAMOND "r6 = *(u32 *)(r1 +0)\nr7 = 0\nr8 = 0\nr9 = 0\nif r6 > 0x5 goto a\nr7 = 1\nr8 = 1\nr9 = 1\n" \
		"goto b\na:\nr7 = 2\nr8 = 2\nr9 = 2\nb:\n"

static void test_imprecise_prunes(void)
{
	/* r6..r9 differ on the two paths but decide nothing: the second path is pruned. */
	CHECK(tv_verify(DIAMOND "r0 = 0\nr0 += 1\nr0 += 1\nr0 += 1\nr0 += 1\nexit", "t_plain", 2, 0) == 0);
	CHECK_EQ_U64(tv_last.insns_processed, 19);
	CHECK_EQ_U64(tv_last.total_states, 1);
	CHECK_CONTAINS(tv_log, "11: (b7) r9 = 2\n12: safe\n");
}

static void test_precise_does_not_prune(void)
{
	/* r7 becomes a stack offset: it is precise, the paths are not equal. */
	CHECK(tv_verify(DIAMOND "r0 = 0\n*(u64 *)(r10 -8) = r0\nr2 = r10\nr2 += -8\nr2 += r7\nr0 = *(u8 *)(r2 +0)\nexit",
			"t_plain", 2, 0) == 0);
	CHECK_EQ_U64(tv_last.insns_processed, 26);
	CHECK(!strstr(tv_log, "safe"));
	/* and a wrong offset on the second path is caught */
	REJECT(DIAMOND "r0 = 0\n*(u64 *)(r10 -8) = r0\nr2 = r10\nr2 += -8\nr2 += r8\nr2 += r8\nr2 += r8\nr2 += r8\nr2 += r8\n"
		       "r0 = *(u8 *)(r2 +0)\nexit",
	       "invalid read from stack R2");
	/* unprivileged: every scalar is precise */
	CHECK(tv_verify(DIAMOND "r0 = 0\nexit", "t_plain", 4, 1) == 0);
	CHECK(tv_last.insns_processed > 14);
}

static void test_loop_counts(void)
{
	/* r6 grows every iteration but is never precise: states still match Linux's count */
	CHECK(tv_verify("r6 = *(u32 *)(r1 +0)\nr1 = 0\nl:\nr1 += 1\nr6 += 1\nif r1 < 0x14 goto l\nr0 = 0\nexit", "t_plain",
			4, 0) == 0);
	CHECK_EQ_U64(tv_last.insns_processed, 64);
	CHECK_EQ_U64(tv_last.total_states, 2);
	ACCEPT_RUN("t_plain", 0, "r6 = *(u32 *)(r1 +0)\nr1 = 0\nl:\nr1 += 1\nr6 += 1\nif r1 < 0x14 goto l\nr0 = 0\nexit");
}

static void test_liveness(void)
{
	/* Linux's search_pruning.c "allocated_stack" (its get_prandom_u32 call a ctx load
	 * here): the spills of one path are dead at the join, so the other path is pruned
	 * there (Linux: 15 processed). */
	CHECK(tv_verify("r6 = r1\nr0 = *(u32 *)(r1 +0)\nr7 = r0\nif r0 == 0x0 goto +5\nr0 = 0\n"
			"*(u64 *)(r10 -8) = r6\nr6 = *(u64 *)(r10 -8)\n*(u8 *)(r10 -9) = r7\nr7 = *(u8 *)(r10 -9)\n"
			"if r0 != 0x0 goto +0\nif r0 != 0x0 goto +0\nif r0 != 0x0 goto +0\nif r0 != 0x0 goto +0\nexit",
			"t_plain", 6, 0) == 0);
	CHECK_CONTAINS(tv_log, "10: safe"); /* the stack differs: fp-8, fp-16 dead */
	CHECK_EQ_U64(tv_last.insns_processed, 16); /* the call's next insn is no prune point here */
	CHECK(tv_last.mark_read >= 1);
	CHECK_CONTAINS(tv_log, "mark_read ");
	/* a pointer on one path and a scalar on the other, never read after the join */
	CHECK(tv_verify(DIAMOND "r7 = r10\nr8 = r1\nr0 = 0\nr0 += 1\nr0 += 1\nexit", "t_plain", 2, 0) == 0);
	CHECK_CONTAINS(tv_log, "safe");
	/* ... but read after the join: both paths walked, and a wrong one caught */
	REJECT(DIAMOND "r0 = 0\nif r7 == 0x2 goto +1\nr0 = *(u64 *)(r1 +64)\nexit", "invalid bpf_context access");
	/* a value read below a checkpoint through a spill stays live there */
	REJECT("r6 = *(u32 *)(r1 +0)\nr7 = 0\nif r6 > 0x5 goto +1\nr7 = 64\n*(u64 *)(r10 -8) = r7\nr7 = 0\nr8 = 0\n"
	       "r9 = 0\nif r6 > 0x3 goto +0\nr2 = *(u64 *)(r10 -8)\nr3 = r1\nr3 += r2\nr0 = *(u64 *)(r3 +0)\nexit",
	       NULL);
}

/* kbpf_verify_opts.insn_limit: a tighter complexity limit than Linux's 1M, with its
 * message and the effective limit in the statistics line. */
static void test_insn_limit(void)
{
	struct bpf_insn loop[] = {
		BPF_MOV64_IMM(BPF_REG_0, 20),
		BPF_ALU64_IMM(BPF_SUB, BPF_REG_0, 2),
		BPF_JMP_IMM(BPF_JSGT, BPF_REG_0, 0, -2),
		BPF_JMP_IMM(BPF_JLT, BPF_REG_1, 10, -3), /* ctx pointer: never decided, r0 falls */
		BPF_EXIT_INSN(),
	};
	char log[4096];
	struct kbpf_verify_opts o = { .sz = sizeof(o), .host = tv_host, .prog_type = "t_plain",
				      .log_level = KBPF_LOG_STATS, .log_buf = log, .log_size = sizeof(log),
				      .insn_limit = 1000 };
	CHECK_EQ_U64(kbpf_prog_verify(loop, sizeof(loop) / sizeof(loop[0]), &o, NULL), -E2BIG);
	CHECK_CONTAINS(log, "BPF program is too large. Processed 1001 insn");
	CHECK_CONTAINS(log, "(limit 1000)");
	o.insn_limit = 0; /* Linux's */
	CHECK_EQ_U64(kbpf_prog_verify(loop, sizeof(loop) / sizeof(loop[0]), &o, NULL), -E2BIG);
	CHECK_CONTAINS(log, "Processed 1000001 insn");
}

int main(void)
{
	tv_setup();
	RUN(test_insn_limit);
	RUN(test_imprecise_prunes);
	RUN(test_precise_does_not_prune);
	RUN(test_loop_counts);
	RUN(test_liveness);
	tv_teardown();
	return test_summary();
}
