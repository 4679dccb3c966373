/* SPDX-License-Identifier: Apache-2.0 */
/* Interpreter: helper calls, callx, BPF-to-BPF calls with their own stack frames and
 * the 8-frame limit, and what prepare refuses (unknown helpers, kfuncs, LD_ABS). */
#include "test_interp_util.h"

#define FP BPF_REG_10

static uint64_t weigh(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e)
{
	return a + 2 * b + 3 * c + 4 * d + 5 * e;
}

static uint64_t forty_two(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e)
{
	(void)a, (void)b, (void)c, (void)d, (void)e;
	return 42;
}

/* Run p on host in both modes: returns the fast result, checks the checked one agrees. */
static int run_on_host(const struct bpf_insn *p, size_t n, struct kbpf_host *host, uint64_t *r0,
		       struct kbpf_run_opts *checked, struct kbpf_run_result *res)
{
	char log[256] = "";
	int ret;
	struct kbpf_prog *prog = make_prog(p, n, host, &ret, log, sizeof(log));

	if (!prog) {
		fprintf(stderr, "create failed %d: %s\n", ret, log);
		return ret;
	}
	ret = kbpf_prog_run(prog, NULL, r0);
	if (checked) {
		checked->flags = KBPF_RUN_CHECKED;
		int cret = kbpf_prog_run_opts(prog, checked, res);
		if (cret != ret || (!ret && res->retval != *r0)) {
			fprintf(stderr, "checked run disagrees: %d vs %d\n", cret, ret);
			ret = -1000;
		}
	}
	kbpf_prog_free(prog);
	return ret;
}

static void test_helper_call(void)
{
	struct kbpf_host *host = kbpf_host_new();
	const struct bpf_insn p[] = {
		BPF_MOV64_IMM(BPF_REG_1, 1), BPF_MOV64_IMM(BPF_REG_2, 10), BPF_MOV64_IMM(BPF_REG_3, 100),
		BPF_MOV64_IMM(BPF_REG_4, 1000), BPF_MOV64_IMM(BPF_REG_5, 10000), BPF_MOV64_IMM(BPF_REG_6, 5),
		BPF_EMIT_CALL(7),
		/* R6..R9 survive a helper call */
		BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_6), BPF_EXIT_INSN(),
	};
	struct kbpf_run_opts ro = { .sz = sizeof(ro) };
	struct kbpf_run_result rr = { .sz = sizeof(rr) };
	uint64_t r0 = 0;

	CHECK_EQ_U64(kbpf_host_helper_register(host, 7, "weigh", weigh), 0);
	CHECK_EQ_U64(run_on_host(p, ARRAY_SIZE(p), host, &r0, &ro, &rr), 0);
	CHECK_EQ_U64(r0, 1 + 20 + 300 + 4000 + 50000 + 5);
	CHECK_EQ_U64(rr.insns_executed, 9);
	kbpf_host_free(host);
}

static void test_unknown_helper(void)
{
	struct kbpf_host *host = kbpf_host_new();
	const struct bpf_insn p[] = { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EMIT_CALL(99), BPF_EXIT_INSN() };
	char log[128] = "";
	int err = 0;

	kbpf_host_helper_register(host, 7, "weigh", weigh);
	CHECK(!make_prog(p, ARRAY_SIZE(p), host, &err, log, sizeof(log)));
	CHECK_EQ_U64(err, -EINVAL);
	CHECK_STR(log, "insn 1: call to unknown helper #99");
	/* no host at all: every helper is unknown */
	CHECK(!make_prog(p, ARRAY_SIZE(p), NULL, &err, log, sizeof(log)));
	CHECK_EQ_U64(err, -EINVAL);
	CHECK_CONTAINS(log, "unknown helper #99");
	kbpf_host_free(host);
}

static void test_refused_at_prepare(void)
{
	const struct bpf_insn kfunc[] = { BPF_CALL_KFUNC(0, 1234), BPF_EXIT_INSN() };
	const struct bpf_insn ld_abs[] = { BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), BPF_LD_ABS(BPF_B, 0), BPF_EXIT_INSN() };
	const struct bpf_insn ld_ind[] = { BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), BPF_LD_IND(BPF_W, BPF_REG_2, 0),
					   BPF_EXIT_INSN() };
	char log[128] = "";
	int err = 0;

	CHECK(!make_prog(kfunc, ARRAY_SIZE(kfunc), NULL, &err, log, sizeof(log)));
	CHECK_EQ_U64(err, -EINVAL);
	CHECK_STR(log, "insn 0: kfunc call (btf id 1234) without a host"); /* tests/unit/test_kfunc_*.c */
	CHECK(!make_prog(ld_abs, ARRAY_SIZE(ld_abs), NULL, &err, log, sizeof(log)));
	CHECK_EQ_U64(err, -EINVAL);
	CHECK_CONTAINS(log, "insn 1: LD_ABS/LD_IND");
	CHECK(!make_prog(ld_ind, ARRAY_SIZE(ld_ind), NULL, &err, log, sizeof(log)));
	CHECK_EQ_U64(err, -EINVAL);
	CHECK_CONTAINS(log, "insn 1: LD_ABS/LD_IND");
}

#define CALLX(REG) BPF_RAW_INSN(BPF_JMP | BPF_CALL | BPF_X, REG, 0, 0, 0)

static void test_callx(void)
{
	struct kbpf_host *host = kbpf_host_new();
	const struct bpf_insn p[] = {
		BPF_MOV64_IMM(BPF_REG_1, 1), BPF_MOV64_IMM(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_3, 0),
		BPF_MOV64_IMM(BPF_REG_4, 0), BPF_MOV64_IMM(BPF_REG_5, 0), BPF_MOV64_IMM(BPF_REG_8, 7),
		CALLX(BPF_REG_8), BPF_EXIT_INSN(),
	};
	const struct bpf_insn bad[] = { BPF_MOV64_IMM(BPF_REG_8, 77), CALLX(BPF_REG_8), BPF_EXIT_INSN() };
	const struct bpf_insn huge[] = { BPF_LD_IMM64(BPF_REG_8, 0x100000007ull), CALLX(BPF_REG_8), BPF_EXIT_INSN() };
	char err[128] = "";
	struct kbpf_run_opts ro = { .sz = sizeof(ro), .err = err, .err_size = sizeof(err) };
	struct kbpf_run_result rr = { .sz = sizeof(rr) };
	uint64_t r0 = 0;

	kbpf_host_helper_register(host, 7, "weigh", weigh);
	kbpf_host_helper_register(host, 42, "forty_two", forty_two);
	CHECK_EQ_U64(run_on_host(p, ARRAY_SIZE(p), host, &r0, &ro, &rr), 0);
	CHECK_EQ_U64(r0, 1);

	/* an unknown id is a run-time stop in both modes */
	CHECK_EQ_U64(run_on_host(bad, ARRAY_SIZE(bad), host, &r0, &ro, &rr), -EINVAL);
	CHECK_EQ_U64(rr.fault_insn, 1);
	CHECK_STR(err, "insn 1: callx to unknown helper #77");
	CHECK_EQ_U64(run_on_host(huge, ARRAY_SIZE(huge), host, &r0, &ro, &rr), -EINVAL);
	CHECK_EQ_U64(rr.fault_insn, 2);

	/* without helpers on the host nothing is callable */
	CHECK_EQ_U64(run_on_host(p, ARRAY_SIZE(p), NULL, &r0, &ro, &rr), -EINVAL);
	kbpf_host_free(host);
}

static void test_local_call_convention(void)
{
	/* R1-R5 reach the callee, R0 comes back, the caller's R6-R9 survive the callee
	 * clobbering them (RFC 9669 §4.3.2; the conformance suite's call_local). */
	CHECK_EQ_U64(R0_OF(BPF_MOV64_IMM(BPF_REG_1, 1), BPF_MOV64_IMM(BPF_REG_2, 2), BPF_MOV64_IMM(BPF_REG_3, 3),
			   BPF_MOV64_IMM(BPF_REG_4, 4), BPF_MOV64_IMM(BPF_REG_5, 5), BPF_MOV64_IMM(BPF_REG_6, 6),
			   BPF_MOV64_IMM(BPF_REG_7, 7), BPF_MOV64_IMM(BPF_REG_8, 8), BPF_MOV64_IMM(BPF_REG_9, 9),
			   BPF_CALL_REL(6),
			   /* r0 = r0 * 10000 + r6 * 1000 + r7 * 100 + r8 * 10 + r9 */
			   BPF_ALU64_IMM(BPF_MUL, BPF_REG_0, 10), BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_6),
			   BPF_ALU64_IMM(BPF_MUL, BPF_REG_0, 10), BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_7),
			   BPF_JMP_A(11), BPF_EXIT_INSN(),
			   /* callee at insn 16: r0 = r1 + .. + r5, then clobber r6-r9 */
			   BPF_MOV64_REG(BPF_REG_0, BPF_REG_1), BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_2),
			   BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_3), BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_4),
			   BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_5), BPF_MOV64_IMM(BPF_REG_6, 0),
			   BPF_MOV64_IMM(BPF_REG_7, 0), BPF_MOV64_IMM(BPF_REG_8, 0), BPF_MOV64_IMM(BPF_REG_9, 0),
			   BPF_EXIT_INSN(),
			   /* back in the caller (insn 26, reached by the JA at 14) */
			   BPF_ALU64_IMM(BPF_MUL, BPF_REG_0, 10), BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_8),
			   BPF_ALU64_IMM(BPF_MUL, BPF_REG_0, 10), BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_9),
			   BPF_EXIT_INSN()),
		     156789);
}

static void test_local_call_frames(void)
{
	/* The callee gets its own 512-byte frame: writing its r10-8 leaves the caller's
	 * alone, and it can still reach the caller's frame through a pointer. */
	CHECK_EQ_U64(R0_OF(BPF_ST_MEM(BPF_DW, FP, -8, 111), BPF_MOV64_REG(BPF_REG_1, FP),
			   BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -8), BPF_CALL_REL(4),
			   /* r0 = callee's result * 1000 + caller's slot */
			   BPF_ALU64_IMM(BPF_MUL, BPF_REG_0, 1000), BPF_LDX_MEM(BPF_DW, BPF_REG_1, FP, -8),
			   BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1), BPF_EXIT_INSN(),
			   /* callee (insn 8): own slot = 222; r0 = own slot + *r1; *r1 += 1 */
			   BPF_ST_MEM(BPF_DW, FP, -8, 222), BPF_LDX_MEM(BPF_DW, BPF_REG_0, FP, -8),
			   BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, 0), BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_2),
			   BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, 1), BPF_STX_MEM(BPF_DW, BPF_REG_1, BPF_REG_2, 0),
			   BPF_EXIT_INSN()),
		     333 * 1000 + 112);
}

/* f(n) = n == 0 ? 0 : f(n - 1) + n, each level keeping n in its own frame and also
 * touching the bottom byte of its frame; main calls f(r1). */
static const struct bpf_insn recursive[] = {
	BPF_CALL_REL(1),                                   /* 0 */
	BPF_EXIT_INSN(),                                   /* 1 */
	BPF_STX_MEM(BPF_DW, FP, BPF_REG_1, -8),            /* 2: f */
	BPF_ST_MEM(BPF_B, FP, -KBPF_STACK_SIZE, 1),        /* 3 */
	BPF_JMP_IMM(BPF_JNE, BPF_REG_1, 0, 2),             /* 4 */
	BPF_MOV64_IMM(BPF_REG_0, 0),                       /* 5 */
	BPF_EXIT_INSN(),                                   /* 6 */
	BPF_ALU64_IMM(BPF_SUB, BPF_REG_1, 1),              /* 7 */
	BPF_CALL_REL(-7),                                  /* 8 */
	BPF_LDX_MEM(BPF_DW, BPF_REG_1, FP, -8),            /* 9 */
	BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1),      /* 10 */
	BPF_EXIT_INSN(),                                   /* 11 */
};

static void test_call_depth(void)
{
	char err[128] = "";
	struct kbpf_prog *prog = make_prog(recursive, ARRAY_SIZE(recursive), NULL, NULL, NULL, 0);
	uint64_t r0 = 0;

	CHECK(prog);
	if (!prog)
		return;
	/* main + f(6) .. f(0) = 8 frames: allowed, and every frame's bottom byte is in bounds */
	CHECK_EQ_U64(kbpf_prog_run(prog, (void *)6, &r0), 0);
	CHECK_EQ_U64(r0, 21);
	struct kbpf_run_opts ro = { .sz = sizeof(ro), .args = { 6 }, .flags = KBPF_RUN_CHECKED,
				    .err = err, .err_size = sizeof(err) };
	struct kbpf_run_result rr = { .sz = sizeof(rr) };
	CHECK_EQ_U64(kbpf_prog_run_opts(prog, &ro, &rr), 0);
	CHECK_EQ_U64(rr.retval, 21);
	CHECK_EQ_U64(rr.fault_insn, -1);
	CHECK_STR(err, "");

	/* a ninth frame is a clean run-time stop, not a crash */
	CHECK_EQ_U64(kbpf_prog_run(prog, (void *)7, &r0), -E2BIG);
	CHECK_EQ_U64(kbpf_prog_run(prog, (void *)1000000, &r0), -E2BIG);
	ro.args[0] = 7;
	CHECK_EQ_U64(kbpf_prog_run_opts(prog, &ro, &rr), -E2BIG);
	CHECK_EQ_U64(rr.fault_insn, 8);
	CHECK_STR(err, "insn 8: call nested deeper than 8 frames");

	/* the program stays usable after a stop */
	CHECK_EQ_U64(kbpf_prog_run(prog, (void *)3, &r0), 0);
	CHECK_EQ_U64(r0, 6);
	kbpf_prog_free(prog);
}

int main(void)
{
	RUN(test_helper_call);
	RUN(test_unknown_helper);
	RUN(test_refused_at_prepare);
	RUN(test_callx);
	RUN(test_local_call_convention);
	RUN(test_local_call_frames);
	RUN(test_call_depth);
	return test_summary();
}
