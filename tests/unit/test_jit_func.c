/* SPDX-License-Identifier: Apache-2.0 */
/* kbpf_prog_jited_func, the JIT-compiled program as a native function (its ctx entry;
 * kbpf_prog_run's run entry: test_prog_run_entry.c), and the JIT's loop head alignment:
 * results as on the interpreter, R2-R5 zero whatever the caller's registers held,
 * run-time stops reported in .err, loop heads on 32-byte boundaries. */
#include <errno.h>
#include <stdint.h>
#include <kbpf/kbpf.h>
#include "test.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static struct kbpf_prog *make(const struct bpf_insn *insns, size_t n, struct kbpf_host *host, int jit)
{
	struct kbpf_prog_opts po = { .sz = sizeof(po), .trusted_unverified = 1, .host = host, .jit = jit };
	struct kbpf_prog *p = NULL;

	CHECK(kbpf_prog_create(insns, n, &po, &p) == 0);
	return p;
}

/* NULL for no program and for one on the interpreter. */
static void test_null(void)
{
	const struct bpf_insn prog[] = { BPF_MOV64_IMM(BPF_REG_0, 1), BPF_EXIT_INSN() };
	struct kbpf_prog *p = make(prog, ARRAY_SIZE(prog), NULL, 0);

	CHECK(kbpf_prog_jited_func(NULL) == NULL);
	CHECK(p && kbpf_prog_jited_func(p) == NULL);
	kbpf_prog_free(p);
}

/* What the caller leaves in rsi, rdx, rcx, r8, r9: the program must see R2-R5 zero (as
 * kbpf_prog_run's interpreter does) and a new run (r9 is the tail call counter). The
 * call through a six-argument type puts junk there on purpose. */
typedef struct kbpf_prog_result (*junk_fn)(void *ctx, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);

static void test_registers(void)
{
	static uint64_t ctx[2] = { 40, 2 };
	const struct bpf_insn prog[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 0),
		BPF_LDX_MEM(BPF_DW, BPF_REG_6, BPF_REG_1, 8),
		BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_6),
		BPF_ALU64_REG(BPF_OR, BPF_REG_0, BPF_REG_2),
		BPF_ALU64_REG(BPF_OR, BPF_REG_0, BPF_REG_3),
		BPF_ALU64_REG(BPF_OR, BPF_REG_0, BPF_REG_4),
		BPF_ALU64_REG(BPF_OR, BPF_REG_0, BPF_REG_5),
		BPF_EXIT_INSN(),
	};
	struct kbpf_prog *p = make(prog, ARRAY_SIZE(prog), NULL, 1);
	kbpf_prog_fn fn = kbpf_prog_jited_func(p);
	uint64_t r0 = 0;

	CHECK(p && kbpf_prog_is_jited(p) && fn);
	if (!fn) {
		kbpf_prog_free(p);
		return;
	}
	struct kbpf_prog_result r = fn(ctx);
	CHECK(r.err == 0);
	CHECK_EQ_U64(r.retval, 42);
	r = ((junk_fn)(uintptr_t)fn)(ctx, 0x100, 0x200, 0x400, 0x800, 0xdead0000);
	CHECK(r.err == 0);
	CHECK_EQ_U64(r.retval, 42);
	CHECK(kbpf_prog_run(p, ctx, &r0) == 0);
	CHECK_EQ_U64(r0, 42);
	kbpf_prog_free(p);
}

/* A run-time stop (more than 8 nested calls) comes back as .err, R0 0. */
static void test_stop(void)
{
	const struct bpf_insn prog[] = {
		BPF_MOV64_IMM(BPF_REG_0, 7),
		BPF_CALL_REL(1),
		BPF_EXIT_INSN(),
		BPF_MOV64_IMM(BPF_REG_0, 9),
		BPF_CALL_REL(-2), /* itself, forever */
		BPF_EXIT_INSN(),
	};
	struct kbpf_prog *p = make(prog, ARRAY_SIZE(prog), NULL, 1);
	kbpf_prog_fn fn = kbpf_prog_jited_func(p);
	uint64_t r0 = 1;

	CHECK(fn != NULL);
	if (fn) {
		for (int k = 0; k < 100; k++) {
			struct kbpf_prog_result r = fn(NULL);

			CHECK(r.err == -E2BIG && r.retval == 0);
		}
	}
	CHECK(kbpf_prog_run(p, NULL, &r0) == -E2BIG && r0 == 0);
	kbpf_prog_free(p);
}

static uint64_t h_add(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5)
{
	(void)r3, (void)r4, (void)r5;
	return r1 + r2;
}

/* Nested loops, one calling a host function (calls shrink to rel32 once the code is
 * placed, which moves the padding): every loop of at most 64 bytes lies in one 64-byte
 * window, a longer one starts on a 32-byte boundary, and the results are the
 * interpreter's. */
static void test_loop_alignment(void)
{
	struct kbpf_host *host = kbpf_host_new();
	const struct bpf_insn prog[] = {
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_MOV64_IMM(BPF_REG_6, 0),
		/* 2: outer loop */
		BPF_MOV64_IMM(BPF_REG_7, 0),
		/* 3: inner loop */
		BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_7),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_7, 1),
		BPF_JMP_IMM(BPF_JLT, BPF_REG_7, 10, -3),
		BPF_MOV64_REG(BPF_REG_8, BPF_REG_0),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_6),
		BPF_EMIT_CALL(1),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_6, 1),
		BPF_JMP_IMM(BPF_JLT, BPF_REG_6, 5, -10),
		/* 12: a one-instruction loop: a jump to itself never taken */
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_6, 0, -1),
		BPF_EXIT_INSN(),
	};
	const size_t loops[][2] = { { 2, 11 }, { 3, 5 }, { 12, 12 } }; /* head, back edge */
	struct kbpf_prog *pi, *pj;
	uint64_t ri = 0, rj = 1;

	CHECK(host && kbpf_host_helper_register(host, 1, "add", h_add) == 0);
	pi = make(prog, ARRAY_SIZE(prog), host, 0);
	pj = make(prog, ARRAY_SIZE(prog), host, 1);
	CHECK(pi && pj && kbpf_prog_is_jited(pj));
	if (pi && pj && kbpf_prog_is_jited(pj)) {
		size_t cnt = 0;
		const uint8_t *code = kbpf_prog_jited_code(pj, NULL);
		const struct kbpf_jited_line *lines = kbpf_prog_jited_line_info(pj, &cnt);

		CHECK(cnt == ARRAY_SIZE(prog));
		for (size_t k = 0; k < ARRAY_SIZE(loops) && cnt == ARRAY_SIZE(prog); k++) {
			uintptr_t head = (uintptr_t)code + lines[loops[k][0]].start;
			uintptr_t end = (uintptr_t)code + lines[loops[k][1]].end;

			CHECK(end > head);
			if (end - head <= 64)
				CHECK_EQ_U64(head / 64, (end - 1) / 64);
			else
				CHECK_EQ_U64(head % 32, 0);
		}
		CHECK(kbpf_prog_run(pi, NULL, &ri) == 0);
		CHECK(kbpf_prog_run(pj, NULL, &rj) == 0);
		CHECK_EQ_U64(rj, ri);
	}
	kbpf_prog_free(pi);
	kbpf_prog_free(pj);
	kbpf_host_free(host);
}

int main(void)
{
	RUN(test_null);
	RUN(test_registers);
	RUN(test_stop);
	RUN(test_loop_alignment);
	return test_summary();
}
