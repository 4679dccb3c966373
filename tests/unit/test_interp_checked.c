/* SPDX-License-Identifier: Apache-2.0 */
/* Interpreter, checked mode: memory accesses confined to the live stack frames and the
 * declared regions, instruction counting and the budget, and the stop messages. */
#include "test_interp_util.h"

#define FP BPF_REG_10

/* Run p checked with R1 = buf and the given regions; returns the errno, fills ro and rr. */
static int run_checked(const struct bpf_insn *p, size_t n, void *buf, const struct kbpf_mem_region *regions,
		       size_t nr_regions, uint64_t max_insns, struct kbpf_run_opts *ro, struct kbpf_run_result *rr,
		       char *err, size_t err_size)
{
	struct kbpf_prog *prog = make_prog(p, n, NULL, NULL, NULL, 0);
	int ret;

	if (!prog)
		return -1000;
	*ro = (struct kbpf_run_opts){ .sz = sizeof(*ro), .args = { (uintptr_t)buf }, .flags = KBPF_RUN_CHECKED,
				      .regions = regions, .nr_regions = nr_regions, .max_insns = max_insns,
				      .err = err, .err_size = err_size };
	*rr = (struct kbpf_run_result){ .sz = sizeof(*rr) };
	ret = kbpf_prog_run_opts(prog, ro, rr);
	kbpf_prog_free(prog);
	return ret;
}

#define RUN_CHECKED(p, buf, regions, nr, max) \
	run_checked(p, ARRAY_SIZE(p), buf, regions, nr, max, &ro, &rr, err, sizeof(err))

/* sum of 1..10: 2 + 3 * 10 + 1 = 33 instructions */
static const struct bpf_insn sum10[] = {
	BPF_MOV64_IMM(BPF_REG_0, 0),
	BPF_MOV64_IMM(BPF_REG_1, 1),
	BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 1),
	BPF_JMP_IMM(BPF_JLE, BPF_REG_1, 10, -3),
	BPF_EXIT_INSN(),
};

static void test_clean_run(void)
{
	struct kbpf_run_opts ro;
	struct kbpf_run_result rr = { .sz = sizeof(rr) };
	char err[128] = "x";

	CHECK_EQ_U64(RUN_CHECKED(sum10, NULL, NULL, 0, 0), 0);
	CHECK_EQ_U64(rr.retval, 55);
	CHECK_EQ_U64(rr.insns_executed, 33);
	CHECK_EQ_U64(rr.fault_insn, -1);
	CHECK_STR(err, "");

	/* an LDDW is one instruction */
	const struct bpf_insn lddw[] = { BPF_LD_IMM64(BPF_REG_0, 5), BPF_LD_IMM64(BPF_REG_1, 6), BPF_EXIT_INSN() };
	CHECK_EQ_U64(RUN_CHECKED(lddw, NULL, NULL, 0, 0), 0);
	CHECK_EQ_U64(rr.insns_executed, 3);

	/* the fast mode agrees */
	uint64_t executed = 0;
	CHECK_EQ_U64(run_both_at(sum10, ARRAY_SIZE(sum10), 0, &executed, __LINE__), 55);
	CHECK_EQ_U64(executed, 33);
}

static void test_budget(void)
{
	struct kbpf_run_opts ro;
	struct kbpf_run_result rr = { .sz = sizeof(rr) };
	char err[128] = "";
	const struct bpf_insn forever[] = { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_JMP_A(-1), BPF_EXIT_INSN() };

	/* exactly enough is enough */
	CHECK_EQ_U64(RUN_CHECKED(sum10, NULL, NULL, 0, 33), 0);
	CHECK_EQ_U64(rr.retval, 55);
	/* one short stops before the exit */
	CHECK_EQ_U64(RUN_CHECKED(sum10, NULL, NULL, 0, 32), -ETIME);
	CHECK_EQ_U64(rr.insns_executed, 32);
	CHECK_EQ_U64(rr.fault_insn, 5);
	CHECK_STR(err, "insn 5: instruction budget of 32 exhausted");

	CHECK_EQ_U64(RUN_CHECKED(forever, NULL, NULL, 0, 1000), -ETIME);
	CHECK_EQ_U64(rr.insns_executed, 1000);
	CHECK_EQ_U64(rr.fault_insn, 1);
	CHECK_STR(err, "insn 1: instruction budget of 1000 exhausted");
}

static void test_region_access(void)
{
	struct kbpf_run_opts ro;
	struct kbpf_run_result rr = { .sz = sizeof(rr) };
	char err[160] = "";
	uint64_t buf[2] = { 7, 8 };
	const struct kbpf_mem_region rw = { buf, sizeof(buf), KBPF_MEM_READ | KBPF_MEM_WRITE, "ctx" };
	const struct kbpf_mem_region ro_region = { buf, sizeof(buf), KBPF_MEM_READ, "ctx" };
	const struct kbpf_mem_region wo_region = { buf, sizeof(buf), KBPF_MEM_WRITE, NULL };
	const struct bpf_insn read_last[] = { BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 8), BPF_EXIT_INSN() };
	const struct bpf_insn read_past[] = { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, 13),
					      BPF_EXIT_INSN() };
	const struct bpf_insn read_before[] = { BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_1, -1), BPF_EXIT_INSN() };
	const struct bpf_insn write[] = { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_ST_MEM(BPF_W, BPF_REG_1, 8, 9),
					  BPF_EXIT_INSN() };
	char want[160];

	CHECK_EQ_U64(RUN_CHECKED(read_last, buf, &rw, 1, 0), 0);
	CHECK_EQ_U64(rr.retval, 8);

	/* a read that straddles the region's end */
	CHECK_EQ_U64(RUN_CHECKED(read_past, buf, &rw, 1, 0), -EFAULT);
	CHECK_EQ_U64(rr.fault_insn, 1);
	CHECK_EQ_U64(rr.insns_executed, 2);
	snprintf(want, sizeof(want), "insn 1: invalid read of 4 bytes at 0x%llx (r1 +13): outside the stack and the declared regions",
		 (unsigned long long)(uintptr_t)buf + 13);
	CHECK_STR(err, want);
	CHECK_EQ_U64(RUN_CHECKED(read_before, buf, &rw, 1, 0), -EFAULT);
	CHECK_CONTAINS(err, "(r1 -1)");
	/* no regions at all */
	CHECK_EQ_U64(RUN_CHECKED(read_last, buf, NULL, 0, 0), -EFAULT);
	CHECK_CONTAINS(err, "insn 0: invalid read of 8 bytes");

	/* writes need KBPF_MEM_WRITE, reads KBPF_MEM_READ */
	CHECK_EQ_U64(RUN_CHECKED(write, buf, &rw, 1, 0), 0);
	CHECK_EQ_U64(buf[1] & 0xffffffff, 9);
	CHECK_EQ_U64(RUN_CHECKED(write, buf, &ro_region, 1, 0), -EFAULT);
	CHECK_EQ_U64(rr.fault_insn, 1);
	CHECK_CONTAINS(err, "insn 1: invalid write of 4 bytes at 0x");
	CHECK_CONTAINS(err, "(r1 +8): region ctx is not writable");
	CHECK_EQ_U64(RUN_CHECKED(read_last, buf, &wo_region, 1, 0), -EFAULT);
	CHECK_CONTAINS(err, "region #0 is not readable");
	CHECK_EQ_U64(RUN_CHECKED(write, buf, &wo_region, 1, 0), 0);

	/* the second of several regions grants the access */
	const struct kbpf_mem_region two[] = { { buf, 8, KBPF_MEM_READ, "a" }, { &buf[1], 8, KBPF_MEM_READ | KBPF_MEM_WRITE, "b" } };
	CHECK_EQ_U64(RUN_CHECKED(write, buf, two, 2, 0), 0);
	CHECK_EQ_U64(RUN_CHECKED(read_last, buf, two, 2, 0), 0);
	CHECK_EQ_U64(RUN_CHECKED(read_past, buf, two, 2, 0), -EFAULT);

	/* a wild pointer is a message, not a crash */
	const struct bpf_insn null_read[] = { BPF_MOV64_IMM(BPF_REG_1, 0), BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 0),
					      BPF_EXIT_INSN() };
	CHECK_EQ_U64(RUN_CHECKED(null_read, buf, &rw, 1, 0), -EFAULT);
	CHECK_STR(err, "insn 1: invalid read of 8 bytes at 0x0 (r1 +0): outside the stack and the declared regions");
	const struct bpf_insn wrap[] = { BPF_MOV64_IMM(BPF_REG_1, -1), BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 0),
					 BPF_EXIT_INSN() };
	CHECK_EQ_U64(RUN_CHECKED(wrap, buf, &rw, 1, 0), -EFAULT);
}

static void test_stack_bounds(void)
{
	struct kbpf_run_opts ro;
	struct kbpf_run_result rr = { .sz = sizeof(rr) };
	char err[160] = "";
	const struct bpf_insn top[] = { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_ST_MEM(BPF_DW, FP, 0, 1), BPF_EXIT_INSN() };
	const struct bpf_insn straddle_top[] = { BPF_LDX_MEM(BPF_DW, BPF_REG_0, FP, -4), BPF_EXIT_INSN() };
	const struct bpf_insn bottom_ok[] = { BPF_ST_MEM(BPF_DW, FP, -512, 3), BPF_LDX_MEM(BPF_DW, BPF_REG_0, FP, -512),
					      BPF_EXIT_INSN() };
	const struct bpf_insn below[] = { BPF_LDX_MEM(BPF_DW, BPF_REG_0, FP, -520), BPF_EXIT_INSN() };

	CHECK_EQ_U64(RUN_CHECKED(top, NULL, NULL, 0, 0), -EFAULT);
	CHECK_EQ_U64(rr.fault_insn, 1);
	CHECK_CONTAINS(err, "insn 1: invalid write of 8 bytes at 0x");
	CHECK_CONTAINS(err, "(r10 +0): outside the live stack frames");
	CHECK_EQ_U64(RUN_CHECKED(straddle_top, NULL, NULL, 0, 0), -EFAULT);
	CHECK_CONTAINS(err, "(r10 -4): outside the live stack frames");
	CHECK_EQ_U64(RUN_CHECKED(bottom_ok, NULL, NULL, 0, 0), 0);
	CHECK_EQ_U64(rr.retval, 3);
	CHECK_EQ_U64(RUN_CHECKED(below, NULL, NULL, 0, 0), -EFAULT);
	CHECK_CONTAINS(err, "insn 0: invalid read of 8 bytes");
	CHECK_CONTAINS(err, "(r10 -520): outside the live stack frames");

	/* a callee may use its caller's frame (above its r10) but not the free frames
	 * below its own */
	const struct bpf_insn callee_up[] = {
		BPF_ST_MEM(BPF_DW, FP, -8, 41), BPF_CALL_REL(1), BPF_EXIT_INSN(),
		BPF_LDX_MEM(BPF_DW, BPF_REG_0, FP, KBPF_STACK_SIZE - 8), BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 1),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(RUN_CHECKED(callee_up, NULL, NULL, 0, 0), 0);
	CHECK_EQ_U64(rr.retval, 42);
	const struct bpf_insn callee_down[] = {
		BPF_CALL_REL(1), BPF_EXIT_INSN(),
		BPF_ST_MEM(BPF_DW, FP, -KBPF_STACK_SIZE - 8, 1), BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(RUN_CHECKED(callee_down, NULL, NULL, 0, 0), -EFAULT);
	CHECK_EQ_U64(rr.fault_insn, 2);
	/* the same through a copy of r10: the message still places it */
	const struct bpf_insn callee_down_ptr[] = {
		BPF_CALL_REL(1), BPF_EXIT_INSN(),
		BPF_MOV64_REG(BPF_REG_2, FP), BPF_ST_MEM(BPF_DW, BPF_REG_2, -KBPF_STACK_SIZE - 8, 1),
		BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(RUN_CHECKED(callee_down_ptr, NULL, NULL, 0, 0), -EFAULT);
	CHECK_CONTAINS(err, "(r2 -520): outside the live stack frames (at r10 -520)");
	/* after the callee returns, its frame is dead again */
	const struct bpf_insn dead_frame[] = {
		BPF_CALL_REL(2), BPF_LDX_MEM(BPF_DW, BPF_REG_0, FP, -KBPF_STACK_SIZE - 8), BPF_EXIT_INSN(),
		BPF_ST_MEM(BPF_DW, FP, -8, 1), BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(RUN_CHECKED(dead_frame, NULL, NULL, 0, 0), -EFAULT);
	CHECK_EQ_U64(rr.fault_insn, 1);
}

static void test_atomic_checks(void)
{
	struct kbpf_run_opts ro;
	struct kbpf_run_result rr = { .sz = sizeof(rr) };
	char err[160] = "";
	_Alignas(8) uint64_t buf[2] = { 1, 2 };
	const struct kbpf_mem_region rw = { buf, sizeof(buf), KBPF_MEM_READ | KBPF_MEM_WRITE, "ctx" };
	const struct kbpf_mem_region rdonly = { buf, sizeof(buf), KBPF_MEM_READ, "ctx" };
	const struct bpf_insn add[] = { BPF_MOV64_IMM(BPF_REG_2, 5), BPF_ATOMIC_OP(BPF_DW, BPF_ADD, BPF_REG_1, BPF_REG_2, 8),
					BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };
	const struct bpf_insn misaligned[] = { BPF_MOV64_IMM(BPF_REG_2, 5),
					       BPF_ATOMIC_OP(BPF_W, BPF_ADD, BPF_REG_1, BPF_REG_2, 2),
					       BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };

	CHECK_EQ_U64(RUN_CHECKED(add, buf, &rw, 1, 0), 0);
	CHECK_EQ_U64(buf[1], 7);
	CHECK_EQ_U64(RUN_CHECKED(add, buf, &rdonly, 1, 0), -EFAULT);
	CHECK_CONTAINS(err, "insn 1: invalid atomic access of 8 bytes");
	CHECK_CONTAINS(err, "region ctx is not writable");
	CHECK_EQ_U64(buf[1], 7);
	CHECK_EQ_U64(RUN_CHECKED(misaligned, buf, &rw, 1, 0), -EFAULT);
	CHECK_CONTAINS(err, "insn 1: misaligned atomic access of 4 bytes at 0x");
	CHECK_CONTAINS(err, "(r1 +2)");
}

/* KBPF_RUN_STACK_FILL: the stack and each callee's new frame start with the fill byte;
 * an earlier callee's leftovers are not what the next one reads. */
static void test_stack_fill(void)
{
	const struct bpf_insn p[] = {
		BPF_CALL_REL(4),                            /* writes 7 at its fp-8 */
		BPF_CALL_REL(5),                            /* reads its fp-8, never written */
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, FP, -16),    /* the main frame's own */
		BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1),
		BPF_EXIT_INSN(),
		BPF_ST_MEM(BPF_DW, FP, -8, 7),
		BPF_EXIT_INSN(),
		BPF_LDX_MEM(BPF_DW, BPF_REG_0, FP, -8),
		BPF_EXIT_INSN(),
	};
	struct kbpf_prog *prog = make_prog(p, ARRAY_SIZE(p), NULL, NULL, NULL, 0);
	struct kbpf_run_opts ro = { .sz = sizeof(ro), .flags = KBPF_RUN_CHECKED };
	struct kbpf_run_result rr = { .sz = sizeof(rr) };

	CHECK(prog != NULL);
	if (!prog)
		return;
	CHECK_EQ_U64(kbpf_prog_run_opts(prog, &ro, &rr), 0);
	CHECK_EQ_U64(rr.retval, 7); /* zeros, and the first callee's 7 left in the block */
	ro.flags = KBPF_RUN_CHECKED | KBPF_RUN_STACK_FILL;
	ro.stack_fill = 0xa5;
	CHECK_EQ_U64(kbpf_prog_run_opts(prog, &ro, &rr), 0);
	CHECK_EQ_U64(rr.retval, 0xa5a5a5a5a5a5a5a5ull * 2);
	ro.flags = KBPF_RUN_STACK_FILL; /* the fast engines keep no fill */
	CHECK_EQ_U64(kbpf_prog_run_opts(prog, &ro, &rr), (uint64_t)-EINVAL);
	kbpf_prog_free(prog);
}

/* The run's results come back in their own struct, versioned by sz: NULL is fine, an
 * older caller's shorter one is written only as far as it goes, and an older caller's
 * shorter options (before err) read the missing fields as 0. */
static void test_result_struct(void)
{
	struct kbpf_prog *prog = make_prog(sum10, ARRAY_SIZE(sum10), NULL, NULL, NULL, 0);
	struct kbpf_run_opts ro = { .sz = sizeof(ro), .flags = KBPF_RUN_CHECKED, .max_insns = 32 };
	struct {
		struct kbpf_run_result r;
		uint64_t newer;
	} big;

	CHECK(prog != NULL);
	if (!prog)
		return;
	CHECK_EQ_U64(kbpf_prog_run_opts(prog, &ro, NULL), (uint64_t)-ETIME);
	memset(&big, 0xee, sizeof(big));
	big.r.sz = sizeof(big);
	CHECK_EQ_U64(kbpf_prog_run_opts(prog, &ro, &big.r), (uint64_t)-ETIME);
	CHECK_EQ_U64(big.r.fault_insn, 5);
	CHECK_EQ_U64(big.r.insns_executed, 32);
	CHECK_EQ_U64(big.r.retval, 0);
	CHECK_EQ_U64(big.newer, 0);
	/* an older result struct: sz and retval only */
	memset(&big, 0xee, sizeof(big));
	big.r.sz = offsetof(struct kbpf_run_result, fault_insn);
	ro.max_insns = 0;
	CHECK_EQ_U64(kbpf_prog_run_opts(prog, &ro, &big.r), 0);
	CHECK_EQ_U64(big.r.retval, 55);
	CHECK_EQ_U64((uint64_t)big.r.fault_insn, 0xeeeeeeeeeeeeeeeeull);
	/* older options, without the stop message's buffer: still checked */
	ro.sz = offsetof(struct kbpf_run_opts, err);
	ro.max_insns = 10;
	big.r.sz = sizeof(big.r);
	CHECK_EQ_U64(kbpf_prog_run_opts(prog, &ro, &big.r), (uint64_t)-ETIME);
	CHECK_EQ_U64(big.r.insns_executed, 10);
	/* bad sizes */
	big.r.sz = 2;
	CHECK_EQ_U64(kbpf_prog_run_opts(prog, &ro, &big.r), (uint64_t)-EINVAL);
	ro.sz = 2;
	CHECK_EQ_U64(kbpf_prog_run_opts(prog, &ro, NULL), (uint64_t)-EINVAL);
	kbpf_prog_free(prog);
}

int main(void)
{
	RUN(test_clean_run);
	RUN(test_budget);
	RUN(test_region_access);
	RUN(test_stack_bounds);
	RUN(test_atomic_checks);
	RUN(test_stack_fill);
	RUN(test_result_struct);
	return test_summary();
}
