/* SPDX-License-Identifier: Apache-2.0 */
/* The run budget (kbpf_prog_opts.run_budget): backward jumps and BPF-to-BPF calls are
 * counted alike on both engines; an unverified endless loop stops with -ETIME; a
 * program within its budget runs as without one; the budget is per run. */
#include <errno.h>
#include <string.h>
#include <kbpf/kbpf.h>
#include "exec/jit.h"
#include "test.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static struct kbpf_prog *make(const struct bpf_insn *insns, size_t n, int jit, uint64_t budget, unsigned harden)
{
	char log[256] = "";
	struct kbpf_prog_opts po = { .sz = sizeof(po), .trusted_unverified = 1, .jit = jit, .run_budget = budget, .harden = harden,
				     .log_buf = log, .log_size = sizeof(log) };
	struct kbpf_prog *p = NULL;

	if (kbpf_prog_create(insns, n, &po, &p)) {
		fprintf(stderr, "create: %s\n", log);
		return NULL;
	}
	if (jit && !kbpf_prog_is_jited(p)) {
		fprintf(stderr, "not JIT-compiled: %s\n", log);
		kbpf_prog_free(p);
		return NULL;
	}
	return p;
}

static int run(const struct bpf_insn *insns, size_t n, int jit, uint64_t budget, uint64_t arg, uint64_t *r0)
{
	struct kbpf_prog *p = make(insns, n, jit, budget, 0);
	struct kbpf_run_opts ro = { .sz = sizeof(ro), .args = { arg } };
	struct kbpf_run_result rr = { .sz = sizeof(rr) };
	int ret;

	if (!p)
		return 1000;
	ret = kbpf_prog_run_opts(p, &ro, &rr);
	*r0 = rr.retval;
	kbpf_prog_free(p);
	return ret;
}

static int engines(void)
{
	return kbpf_jit_arch_supported() ? 2 : 1;
}

/* "l: goto l" and a conditional self-loop never end without the budget. */
static void test_endless_loops_stop(void)
{
	const struct bpf_insn self[] = {
		BPF_MOV64_IMM(BPF_REG_0, 1),
		BPF_JMP_A(-1),
		BPF_EXIT_INSN(),
	};
	const struct bpf_insn cond[] = {
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 1),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_1, 0, -2),
		BPF_EXIT_INSN(),
	};
	const struct bpf_insn gotol[] = {
		BPF_MOV64_IMM(BPF_REG_0, 0),
		{ .code = BPF_JMP32 | BPF_JA, .imm = -1 },
		BPF_EXIT_INSN(),
	};
	uint64_t r0;

	for (int jit = 0; jit < engines(); jit++) {
		CHECK(run(self, ARRAY_SIZE(self), jit, 1000000, 0, &r0) == -ETIME);
		CHECK(run(cond, ARRAY_SIZE(cond), jit, 1000000, 1, &r0) == -ETIME);
		CHECK(run(gotol, ARRAY_SIZE(gotol), jit, 5, 0, &r0) == -ETIME);
	}
}

/* A loop of n iterations executes its backward jump n times: a budget of n is enough,
 * n - 1 is not, on both engines. */
static void test_exact_boundary(void)
{
	const struct bpf_insn loop[] = {
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 3),
		BPF_ALU64_IMM(BPF_SUB, BPF_REG_1, 1),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_1, 0, -3),
		BPF_EXIT_INSN(),
	};
	/* clang's shape: the exit test first, then "goto back" (the JIT would fuse the pair) */
	const struct bpf_insn loop2[] = {
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 3),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 3),
		BPF_ALU64_IMM(BPF_SUB, BPF_REG_1, 1),
		BPF_JMP_A(-4),
		BPF_EXIT_INSN(),
	};
	uint64_t r0;

	for (int jit = 0; jit < engines(); jit++) {
		CHECK(run(loop, ARRAY_SIZE(loop), jit, 100, 100, &r0) == 0);
		CHECK_EQ_U64(r0, 300);
		CHECK(run(loop, ARRAY_SIZE(loop), jit, 99, 100, &r0) == -ETIME);
		CHECK(run(loop2, ARRAY_SIZE(loop2), jit, 100, 100, &r0) == 0);
		CHECK_EQ_U64(r0, 300);
		CHECK(run(loop2, ARRAY_SIZE(loop2), jit, 99, 100, &r0) == -ETIME);
		CHECK(run(loop2, ARRAY_SIZE(loop2), jit, 0, 100000, &r0) == 0); /* 0: no budget */
		CHECK_EQ_U64(r0, 300000);
	}
}

/* Calls count too: a function calling itself twice, 7 deep, makes 2^8 - 2 calls
 * without a single backward jump. */
static void test_calls_count(void)
{
	const struct bpf_insn fan[] = {
		BPF_MOV64_IMM(BPF_REG_1, 7),
		BPF_CALL_REL(1),
		BPF_EXIT_INSN(),
		/* f(n): n ? 1 + f(n-1) + f(n-1) : 1 */
		BPF_MOV64_IMM(BPF_REG_0, 1),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 1, 9),
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		BPF_ALU64_IMM(BPF_SUB, BPF_REG_1, 1),
		BPF_CALL_REL(-5),
		BPF_MOV64_REG(BPF_REG_7, BPF_REG_0),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		BPF_ALU64_IMM(BPF_SUB, BPF_REG_1, 1),
		BPF_CALL_REL(-9),
		BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_7),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 1),
		BPF_EXIT_INSN(),
	};
	uint64_t r0, calls = 1 + 2 + 4 + 8 + 16 + 32 + 64; /* f(7) down to f(1) */

	for (int jit = 0; jit < engines(); jit++) {
		CHECK(run(fan, ARRAY_SIZE(fan), jit, 0, 0, &r0) == 0);
		CHECK_EQ_U64(r0, 127);
		CHECK(run(fan, ARRAY_SIZE(fan), jit, calls, 0, &r0) == 0);
		CHECK_EQ_U64(r0, 127);
		CHECK(run(fan, ARRAY_SIZE(fan), jit, calls - 1, 0, &r0) == -ETIME);
	}
}

/* Too deep still reports -E2BIG with a budget (the depth lives beside the budget). */
static void test_depth_still_checked(void)
{
	const struct bpf_insn deep[] = {
		BPF_CALL_REL(1),
		BPF_EXIT_INSN(),
		BPF_CALL_REL(-1),
		BPF_EXIT_INSN(),
	};
	uint64_t r0;

	for (int jit = 0; jit < engines(); jit++) {
		CHECK(run(deep, ARRAY_SIZE(deep), jit, 1000, 0, &r0) == -E2BIG);
		CHECK(run(deep, ARRAY_SIZE(deep), jit, 3, 0, &r0) == -ETIME);
	}
}

/* The budget is per run: a program that just fits runs many times. With every option
 * on, results are unchanged. */
static void test_per_run(void)
{
	const struct bpf_insn loop[] = {
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 2),
		BPF_ALU64_IMM(BPF_SUB, BPF_REG_1, 1),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_1, 0, -3),
		BPF_EXIT_INSN(),
	};

	for (int jit = 0; jit < engines(); jit++) {
		struct kbpf_prog *p = make(loop, ARRAY_SIZE(loop), jit, 50, KBPF_HARDEN_ALL);

		CHECK(p != NULL);
		for (int k = 0; p && k < 100; k++) {
			struct kbpf_run_opts ro = { .sz = sizeof(ro), .args = { 50 } };
			struct kbpf_run_result rr = { .sz = sizeof(rr) };

			CHECK(kbpf_prog_run_opts(p, &ro, &rr) == 0 && rr.retval == 100);
			ro.args[0] = 51;
			CHECK(kbpf_prog_run_opts(p, &ro, &rr) == -ETIME);
			CHECK(kbpf_prog_run(p, (void *)(uintptr_t)50, &rr.retval) == 0 && rr.retval == 100);
		}
		kbpf_prog_free(p);
	}
}

static struct kbpf_prog *make_maps(const struct bpf_insn *insns, size_t n, struct kbpf_map **maps, int jit,
				   uint64_t budget)
{
	char log[256] = "";
	struct kbpf_prog_opts po = { .sz = sizeof(po), .trusted_unverified = 1, .jit = jit, .run_budget = budget, .maps = maps, .nr_maps = 1,
				     .log_buf = log, .log_size = sizeof(log) };
	struct kbpf_prog *p = NULL;

	if (kbpf_prog_create(insns, n, &po, &p))
		fprintf(stderr, "create: %s\n", log);
	return p;
}

/* Tail calls between programs with and without a budget (the interpreter runs them in
 * different loops): results carry over, and the target's own budget applies. */
static void test_tail_calls_mixed(void)
{
	for (int jit = 0; jit < engines(); jit++) {
		struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_PROG_ARRAY, .key_size = 4,
					    .value_size = 4, .max_entries = 2, .name = "jmp" };
		struct kbpf_map *m = NULL;
		const struct bpf_insn caller0[] = {
			BPF_LD_MAP_FD(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_3, 0),
			BPF_EMIT_CALL(12), BPF_MOV64_IMM(BPF_REG_0, 1), BPF_EXIT_INSN(),
		};
		const struct bpf_insn caller1[] = {
			BPF_LD_MAP_FD(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_3, 1),
			BPF_EMIT_CALL(12), BPF_MOV64_IMM(BPF_REG_0, 1), BPF_EXIT_INSN(),
		};
		const struct bpf_insn leaf[] = { BPF_MOV64_IMM(BPF_REG_0, 42), BPF_EXIT_INSN() };
		const struct bpf_insn loop[] = {
			BPF_MOV64_IMM(BPF_REG_0, 0), BPF_MOV64_IMM(BPF_REG_1, 10),
			BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 1), BPF_ALU64_IMM(BPF_SUB, BPF_REG_1, 1),
			BPF_JMP_IMM(BPF_JNE, BPF_REG_1, 0, -3), BPF_EXIT_INSN(),
		};
		struct kbpf_prog *hard_caller, *plain_caller, *plain_leaf, *tight_loop;
		uint64_t r0 = 0;
		uint32_t k0 = 0, k1 = 1;

		CHECK(kbpf_map_create(&def, &m) == 0);
		hard_caller = make_maps(caller0, ARRAY_SIZE(caller0), &m, jit, 100);
		plain_caller = make_maps(caller1, ARRAY_SIZE(caller1), &m, jit, 0);
		plain_leaf = make_maps(leaf, ARRAY_SIZE(leaf), &m, jit, 0);
		tight_loop = make_maps(loop, ARRAY_SIZE(loop), &m, jit, 5);
		CHECK(hard_caller && plain_caller && plain_leaf && tight_loop);
		if (hard_caller && plain_caller && plain_leaf && tight_loop) {
			CHECK(kbpf_map_update(m, &k0, &plain_leaf, BPF_ANY) == 0);
			CHECK(kbpf_map_update(m, &k1, &tight_loop, BPF_ANY) == 0);
			CHECK(kbpf_prog_run(hard_caller, NULL, &r0) == 0);
			CHECK_EQ_U64(r0, 42);
			CHECK(kbpf_prog_run(plain_caller, NULL, &r0) == -ETIME);
			CHECK(kbpf_map_update(m, &k1, &hard_caller, BPF_ANY) == 0);
			CHECK(kbpf_prog_run(plain_caller, NULL, &r0) == 0); /* plain -> hardened -> plain */
			CHECK_EQ_U64(r0, 42);
		}
		kbpf_prog_free(hard_caller);
		kbpf_prog_free(plain_caller);
		kbpf_prog_free(plain_leaf);
		kbpf_prog_free(tight_loop);
		kbpf_map_free(m);
	}
}

/* Hardening flags this kbpf does not know are refused, not ignored. */
static void test_unknown_flags(void)
{
	const struct bpf_insn p[] = { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };
	char log[128] = "";
	struct kbpf_prog_opts po = { .sz = sizeof(po), .trusted_unverified = 1, .harden = 0x80, .log_buf = log, .log_size = sizeof(log) };
	struct kbpf_prog *prog = NULL;

	CHECK(kbpf_prog_create(p, 2, &po, &prog) == -EINVAL && !prog);
	CHECK_CONTAINS(log, "unknown hardening flags 0x80");
}

int main(void)
{
	RUN(test_unknown_flags);
	RUN(test_tail_calls_mixed);
	RUN(test_endless_loops_stop);
	RUN(test_exact_boundary);
	RUN(test_calls_count);
	RUN(test_depth_still_checked);
	RUN(test_per_run);
	return test_summary();
}
