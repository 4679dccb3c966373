/* SPDX-License-Identifier: Apache-2.0 */
/* The stack guard (KBPF_HARDEN_STACK_GUARD): an unverified program that writes just
 * outside its 512-byte frame stops with -EFAULT on both engines instead of corrupting
 * what lies there (on the JIT: the saved frame pointer, the return address, the host's
 * callee-saved registers); programs that stay inside their frames run as before. */
#include <errno.h>
#include <string.h>
#include <kbpf/kbpf.h>
#include "exec/jit.h"
#include "test.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static int run(const struct bpf_insn *insns, size_t n, int jit, unsigned harden, uint64_t *r0)
{
	char log[256] = "";
	struct kbpf_prog_opts po = { .sz = sizeof(po), .trusted_unverified = 1, .jit = jit, .harden = harden, .log_buf = log,
				     .log_size = sizeof(log) };
	struct kbpf_run_opts ro = { .sz = sizeof(ro) };
	struct kbpf_run_result rr = { .sz = sizeof(rr) };
	struct kbpf_prog *p = NULL;
	int ret = kbpf_prog_create(insns, n, &po, &p);

	if (ret) {
		fprintf(stderr, "create: %d %s\n", ret, log);
		return 1000;
	}
	if (jit && !kbpf_prog_is_jited(p)) {
		fprintf(stderr, "not JIT-compiled: %s\n", log);
		kbpf_prog_free(p);
		return 1001;
	}
	ret = kbpf_prog_run_opts(p, &ro, &rr);
	*r0 = rr.retval;
	kbpf_prog_free(p);
	return ret;
}

/* Both engines (the JIT where there is one) must return want. */
#define CHECK_BOTH(prog, harden, want)                                                        \
	do {                                                                                  \
		uint64_t r0_;                                                                 \
		CHECK(run(prog, ARRAY_SIZE(prog), 0, harden, &r0_) == (want));               \
		if (kbpf_jit_arch_supported())                                                \
			CHECK(run(prog, ARRAY_SIZE(prog), 1, harden, &r0_) == (want));        \
	} while (0)

/* Writes right above R10 (where the JIT keeps the saved rbp and return address). */
static void test_write_above_frame(void)
{
	const struct bpf_insn above0[] = {
		BPF_MOV64_IMM(BPF_REG_1, 0x41),
		BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_1, 0),
		BPF_MOV64_IMM(BPF_REG_0, 1),
		BPF_EXIT_INSN(),
	};
	/* one guard byte flipped (read, xor, write back): a fixed value would equal the
	 * random canary byte once in 256 runs and go unnoticed, rightly */
	const struct bpf_insn above8[] = {
		BPF_LDX_MEM(BPF_B, BPF_REG_1, BPF_REG_10, 9),
		BPF_ALU64_IMM(BPF_XOR, BPF_REG_1, 0xff),
		BPF_STX_MEM(BPF_B, BPF_REG_10, BPF_REG_1, 9),
		BPF_MOV64_IMM(BPF_REG_0, 1),
		BPF_EXIT_INSN(),
	};

	CHECK_BOTH(above0, KBPF_HARDEN_STACK_GUARD, -EFAULT);
	CHECK_BOTH(above8, KBPF_HARDEN_STACK_GUARD, -EFAULT);
	CHECK_BOTH(above0, KBPF_HARDEN_ALL, -EFAULT);
}

/* Writes just below the 512-byte stack (on the JIT: where the host's callee-saved
 * registers are pushed). */
static void test_write_below_frame(void)
{
	const struct bpf_insn below[] = {
		BPF_MOV64_IMM(BPF_REG_6, 7), /* makes the JIT push rbx below the stack */
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -520, 0x41),
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_6),
		BPF_EXIT_INSN(),
	};
	const struct bpf_insn below1[] = {
		BPF_LDX_MEM(BPF_H, BPF_REG_1, BPF_REG_10, -514),
		BPF_ALU64_IMM(BPF_XOR, BPF_REG_1, 0xffff),
		BPF_STX_MEM(BPF_H, BPF_REG_10, BPF_REG_1, -514),
		BPF_MOV64_IMM(BPF_REG_0, 1),
		BPF_EXIT_INSN(),
	};

	CHECK_BOTH(below, KBPF_HARDEN_STACK_GUARD, -EFAULT);
	CHECK_BOTH(below1, KBPF_HARDEN_STACK_GUARD, -EFAULT);
}

/* A subprogram that writes above its own frame is caught when it returns, before its
 * return address is used; the run unwinds to the host cleanly. */
static void test_write_in_subprogram(void)
{
	const struct bpf_insn sub[] = {
		BPF_MOV64_IMM(BPF_REG_6, 3),
		BPF_CALL_REL(3),
		BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_6),
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 1), /* main's stack in use */
		BPF_EXIT_INSN(),
		/* the subprogram */
		BPF_MOV64_IMM(BPF_REG_0, 5),
		BPF_ST_MEM(BPF_DW, BPF_REG_10, 8, 0x41),
		BPF_EXIT_INSN(),
	};

	CHECK_BOTH(sub, KBPF_HARDEN_STACK_GUARD, -EFAULT);
}

/* Programs that use exactly their frames, in nested calls, run as without the guard. */
static void test_inside_frames_unchanged(void)
{
	const struct bpf_insn full[] = {
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -512, 11),
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 31),
		BPF_MOV64_IMM(BPF_REG_1, 2),
		BPF_CALL_REL(5),
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_10, -512),
		BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1),
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_10, -8),
		BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1),
		BPF_EXIT_INSN(),
		/* sub(n): its own frame, end to end; recursion n deep */
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -512, 100),
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 1000),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 2),
		BPF_ALU64_IMM(BPF_SUB, BPF_REG_1, 1),
		BPF_CALL_REL(-6),
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_10, -512),
		BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1),
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_10, -8),
		BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1),
		BPF_EXIT_INSN(),
	};
	uint64_t r0 = 0;

	CHECK(run(full, ARRAY_SIZE(full), 0, 0, &r0) == 0);
	CHECK_EQ_U64(r0, 3 * 1100 + 42);
	CHECK(run(full, ARRAY_SIZE(full), 0, KBPF_HARDEN_STACK_GUARD, &r0) == 0);
	CHECK_EQ_U64(r0, 3 * 1100 + 42);
	if (kbpf_jit_arch_supported()) {
		CHECK(run(full, ARRAY_SIZE(full), 1, KBPF_HARDEN_STACK_GUARD, &r0) == 0);
		CHECK_EQ_U64(r0, 3 * 1100 + 42);
		CHECK(run(full, ARRAY_SIZE(full), 1, KBPF_HARDEN_ALL, &r0) == 0);
		CHECK_EQ_U64(r0, 3 * 1100 + 42);
	}
}

/* A run stopped by a guard in a nested frame leaves nothing behind: the next runs of the
 * same program (and others) still work, many times over. */
static void test_stop_then_run_again(void)
{
	const struct bpf_insn bad[] = {
		BPF_MOV64_IMM(BPF_REG_7, 9),
		BPF_CALL_REL(2),
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_7),
		BPF_EXIT_INSN(),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 1),
		BPF_ST_MEM(BPF_DW, BPF_REG_10, 0, 0x41),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	for (int jit = 0; jit <= (kbpf_jit_arch_supported() ? 1 : 0); jit++) {
		char log[128];
		struct kbpf_prog_opts po = { .sz = sizeof(po), .trusted_unverified = 1, .jit = jit, .harden = KBPF_HARDEN_STACK_GUARD,
					     .log_buf = log, .log_size = sizeof(log) };
		struct kbpf_prog *p = NULL;

		CHECK(kbpf_prog_create(bad, ARRAY_SIZE(bad), &po, &p) == 0);
		if (!p)
			continue;
		for (int k = 0; k < 1000; k++) {
			struct kbpf_run_opts ro = { .sz = sizeof(ro), .args = { (uint64_t)(k & 1) } };
			struct kbpf_run_result rr = { .sz = sizeof(rr) };
			int ret = kbpf_prog_run_opts(p, &ro, &rr);

			if (k & 1)
				CHECK(ret == -EFAULT);
			else
				CHECK(ret == 0 && rr.retval == 9);
		}
		kbpf_prog_free(p);
	}
}

int main(void)
{
	RUN(test_write_above_frame);
	RUN(test_write_below_frame);
	RUN(test_write_in_subprogram);
	RUN(test_inside_frames_unchanged);
	RUN(test_stop_then_run_again);
	return test_summary();
}
