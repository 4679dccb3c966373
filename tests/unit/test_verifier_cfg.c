/* SPDX-License-Identifier: Apache-2.0 */
/* Verifier step 1: control flow and subprograms (check_subprogs, ld_imm64 shapes and
 * the opcode table, check_cfg, the call-graph stack limit), with Linux's messages. */
#include "test_verifier_util.h"

static int raw_verify(const struct bpf_insn *insns, size_t cnt)
{
	struct kbpf_verify_opts o = { .sz = sizeof(o), .host = tv_host, .prog_type = "t_plain", .log_level = 1,
				      .log_buf = tv_log, .log_size = sizeof(tv_log) };
	return kbpf_prog_verify(insns, cnt, &o, NULL);
}

static void test_jumps(void)
{
	ACCEPT("r0 = 0\nexit");
	struct bpf_insn j1[] = { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_JMP_A(5), BPF_EXIT_INSN() };
	CHECK(raw_verify(j1, 3) == -EINVAL);
	CHECK_CONTAINS(tv_log, "jump out of range from insn 1 to 7");
	struct bpf_insn j2[] = { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_JMP_A(-3), BPF_EXIT_INSN() };
	CHECK(raw_verify(j2, 3) == -EINVAL);
	CHECK_CONTAINS(tv_log, "jump out of range from insn 1 to -1");
	struct bpf_insn j3[] = { BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 5), BPF_EXIT_INSN() };
	CHECK(raw_verify(j3, 2) == -EINVAL);
	CHECK_CONTAINS(tv_log, "call to invalid destination");
	REJECT("r0 = 0", "last insn is not an exit or jmp");
	REJECT("r0 = 0\nexit\nr0 = 1\nexit", "unreachable insn 2");
	REJECT_U("r0 = 0\nl: if r0 > 0x5 goto l\nexit", "back-edge from insn 1 to 1");
	REJECT_U("l: r0 = 0\ngoto l", "back-edge from insn 1 to 0");
	ACCEPT("r0 = 0\nif r1 == 0x0 goto +1\nr0 = 1\nexit");
}

static void test_loops(void)
{
	/* Bounded loops are fine for privileged loads. */
	ACCEPT("r0 = 0\nl: r0 += 1\nif r0 < 0x10 goto l\nexit");
	REJECT_U("r0 = 0\nl: r0 += 1\nif r0 < 0x10 goto l\nexit", "back-edge from insn 2 to 1");
	REJECT("l: r0 = 0\ngoto l", "infinite loop detected at insn 0");
	/* A loop that never ends but changes state hits the complexity limit. */
	REJECT("r0 = 0\nl: r0 += 1\nif r0 != 0x0 goto l\nexit", "BPF program is too large. Processed 1000001 insn");
}

static void test_ldimm64(void)
{
	ACCEPT("r0 = 0x1122334455667788 ll\nr0 = 0\nexit");
	REJECT("r0 = 0\nif r1 == 0x0 goto +1\nr1 = 0x1122334455667788 ll\nexit", "jump into the middle of ldimm64 insn 2");
	REJECT("r1 = map[idx:9]\nr0 = 0\nexit", "fd 9 is not pointing to valid bpf_map");
	REJECT("r1 = map[idx:0][0]+0\nr0 = 0\nexit", "no direct value access support for this map type");
	REJECT("r1 = map[idx:1][0]+48\nr0 = 0\nexit", "invalid access to map value pointer, value_size=48 off=48");
	ACCEPT("r1 = map[idx:1][0]+40\nr0 = *(u64 *)(r1 +0)\nexit");
	REJECT("r1 = map[idx:1][0]+40\nr0 = *(u64 *)(r1 +8)\nexit", "invalid access to map value, value_size=48 off=48 size=8");
}

static void test_subprogs(void)
{
	ACCEPT("r1 = 1\ncall f\nexit\nf: r0 = r1\nexit");
	REJECT_U("call f\nexit\nf: r0 = 0\nexit",
		 "loading/calling other bpf or kernel functions are allowed for CAP_BPF and CAP_SYS_ADMIN");
	REJECT("r0 = 0\ncall f\nif r0 > 0x0 goto +2\nexit\nf: r0 = 0\nexit", "jump out of range from insn 2 to 5");
	/* fall-through from main into a subprog */
	REJECT("call f\nr0 = 0\nf: r0 = 0\nexit", "last insn is not an exit or jmp");
	/* recursion: 6.12's check_cfg lets the call's back-edge through (6.1: "back-edge from
	 * insn 2 to 2"); the walk stops at the frame limit */
	REJECT("call f\nexit\nf: call f\nexit", "the call stack of 9 frames is too deep");
	/* callee's R0 comes back, uninitialised R0 is caught in the caller */
	REJECT("call f\nexit\nf: exit", "R0 !read_ok");
	/* returning a stack pointer */
	REJECT("call f\nexit\nf: r0 = r10\nexit", "cannot return stack pointer to the caller");
	/* the callee may write through a pointer to the caller's stack */
	ACCEPT("r1 = r10\nr1 += -8\ncall f\nr0 = *(u64 *)(r10 -8)\nexit\nf: r2 = 7\n*(u64 *)(r1 +0) = r2\nr0 = 0\nexit");
}

static void test_stack_depth(void)
{
	/* 300 + 300 bytes through a call is too much (each frame rounded up to 16 bytes,
	 * Linux 6.12 with a JIT; 6.1 rounded to 32: 640) */
	REJECT("r1 = 0\n*(u64 *)(r10 -304) = r1\ncall f\nr0 = 0\nexit\nf: r1 = 0\n*(u64 *)(r10 -304) = r1\nr0 = 0\nexit",
	       "combined stack size of 2 calls is 608. Too large");
	/* 6.12 counts an empty frame as 0 (6.1: 32): 512 bytes in main, a callee with none */
	ACCEPT("r1 = 0\n*(u64 *)(r10 -512) = r1\ncall f\nr0 = 0\nexit\nf: r0 = 0\nexit");
	/* ... and a frame of 8 bytes as 16 */
	REJECT("r1 = 0\n*(u64 *)(r10 -512) = r1\ncall f\nr0 = 0\nexit\nf: r1 = 0\n*(u64 *)(r10 -8) = r1\nr0 = 0\nexit",
	       "combined stack size of 2 calls is 528. Too large");
	CHECK_EQ_U64(tv_last.nr_subprogs, 2);
	ACCEPT("r1 = 0\n*(u64 *)(r10 -200) = r1\ncall f\nr0 = 0\nexit\nf: r1 = 0\n*(u64 *)(r10 -200) = r1\nr0 = 0\nexit");
	CHECK_EQ_U64(tv_last.stack_depth[0], 200);
	CHECK_EQ_U64(tv_last.stack_depth[1], 200);
	/* nine nested frames */
	REJECT("call a\nexit\na: call b\nexit\nb: call c\nexit\nc: call d\nexit\nd: call e\nexit\ne: call f\nexit\n"
	       "f: call g\nexit\ng: call h\nexit\nh: r0 = 0\nexit",
	       "the call stack of 9 frames is too deep");
}

static void test_opcodes(void)
{
	/* unknown opcode: an ALU64 END */
	struct bpf_insn bad[] = { { .code = BPF_ALU64 | BPF_END | BPF_TO_BE, .dst_reg = 0, .imm = 16 },
				  BPF_EXIT_INSN() };
	struct kbpf_verify_opts o = { .sz = sizeof(o), .host = tv_host, .prog_type = "t_plain", .log_level = 1,
				      .log_buf = tv_log, .log_size = sizeof(tv_log) };
	CHECK(kbpf_prog_verify(bad, 2, &o, NULL) == -EINVAL);
	CHECK_CONTAINS(tv_log, "unknown opcode df");
	o.prog_type = "nope";
	CHECK(kbpf_prog_verify(bad, 2, &o, NULL) == -ENOENT);
}

static void test_stats(void)
{
	CHECK(tv_verify("r0 = 0\nif r1 == 0x0 goto +1\nr0 = 1\nexit", "t_plain", 4, 0) == 0);
	CHECK_CONTAINS(tv_log, "processed 5 insns (limit 1000000) max_states_per_insn 0 total_states 0 peak_states 0 mark_read 0");
	CHECK_CONTAINS(tv_log, "verification time ");
	CHECK_CONTAINS(tv_log, "stack depth 0\n");
	CHECK(tv_last.insns_processed == 5);
	CHECK(tv_verify("r0 = 0\nexit", "t_plain", 2, 0) == 0);
	CHECK_CONTAINS(tv_log, "func#0 @0\n0: R1=ctx() R10=fp0\n0: (b7) r0 = 0");
}

int main(void)
{
	tv_setup();
	RUN(test_jumps);
	RUN(test_loops);
	RUN(test_ldimm64);
	RUN(test_subprogs);
	RUN(test_stack_depth);
	RUN(test_opcodes);
	RUN(test_stats);
	tv_teardown();
	return test_summary();
}
