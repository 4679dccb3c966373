/* SPDX-License-Identifier: Apache-2.0 */
/* Interpreter: loads, stores, sign-extending loads and atomics (RFC 9669 §5.3-5.4),
 * and atomics staying atomic when several threads run one program at once. */
#include <pthread.h>
#include "test_interp_util.h"

#define FP BPF_REG_10

static void test_ldx_stx_sizes(void)
{
	/* one DW store, read back at every width (little-endian layout assumed below) */
#define LOAD_BACK(SIZE)                                                                 \
	R0_OF(BPF_LD_IMM64(BPF_REG_1, 0x1122334455667788ull), BPF_STX_MEM(BPF_DW, FP, BPF_REG_1, -8), \
	      BPF_LDX_MEM(SIZE, BPF_REG_0, FP, -8), BPF_EXIT_INSN())
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	CHECK_EQ_U64(LOAD_BACK(BPF_B), 0x88);
	CHECK_EQ_U64(LOAD_BACK(BPF_H), 0x7788);
	CHECK_EQ_U64(LOAD_BACK(BPF_W), 0x55667788);
#endif
	CHECK_EQ_U64(LOAD_BACK(BPF_DW), 0x1122334455667788ull);
#undef LOAD_BACK

	/* narrow stores write only their bytes */
#define STORE_NARROW(SIZE)                                                              \
	R0_OF(BPF_ST_MEM(BPF_DW, FP, -8, 0), BPF_LD_IMM64(BPF_REG_1, 0xffffffffffffffffull), \
	      BPF_STX_MEM(SIZE, FP, BPF_REG_1, -8), BPF_LDX_MEM(BPF_DW, BPF_REG_0, FP, -8), BPF_EXIT_INSN())
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	CHECK_EQ_U64(STORE_NARROW(BPF_B), 0xff);
	CHECK_EQ_U64(STORE_NARROW(BPF_H), 0xffff);
	CHECK_EQ_U64(STORE_NARROW(BPF_W), 0xffffffff);
#endif
	CHECK_EQ_U64(STORE_NARROW(BPF_DW), UINT64_MAX);
#undef STORE_NARROW
}

static void test_st_imm(void)
{
	/* ST's imm is sign-extended to DW, truncated to narrower sizes */
	CHECK_EQ_U64(R0_OF(BPF_ST_MEM(BPF_DW, FP, -8, -1), BPF_LDX_MEM(BPF_DW, BPF_REG_0, FP, -8), BPF_EXIT_INSN()),
		     UINT64_MAX);
	CHECK_EQ_U64(R0_OF(BPF_ST_MEM(BPF_DW, FP, -8, 0), BPF_ST_MEM(BPF_W, FP, -8, -1),
			   BPF_LDX_MEM(BPF_DW, BPF_REG_0, FP, -8), BPF_EXIT_INSN()),
		     __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? 0xffffffffull : 0xffffffff00000000ull);
	CHECK_EQ_U64(R0_OF(BPF_ST_MEM(BPF_H, FP, -2, 0x12345), BPF_LDX_MEM(BPF_H, BPF_REG_0, FP, -2), BPF_EXIT_INSN()),
		     0x2345);
	CHECK_EQ_U64(R0_OF(BPF_ST_MEM(BPF_B, FP, -1, 0x1ab), BPF_LDX_MEM(BPF_B, BPF_REG_0, FP, -1), BPF_EXIT_INSN()),
		     0xab);
}

static void test_unaligned(void)
{
	CHECK_EQ_U64(R0_OF(BPF_LD_IMM64(BPF_REG_1, 0x0102030405060708ull), BPF_STX_MEM(BPF_DW, FP, BPF_REG_1, -13),
			   BPF_LDX_MEM(BPF_DW, BPF_REG_0, FP, -13), BPF_EXIT_INSN()),
		     0x0102030405060708ull);
	CHECK_EQ_U64(R0_OF(BPF_ST_MEM(BPF_W, FP, -7, 0x7eadbeef), BPF_LDX_MEM(BPF_W, BPF_REG_0, FP, -7), BPF_EXIT_INSN()),
		     0x7eadbeef);
	CHECK_EQ_U64(R0_OF(BPF_ST_MEM(BPF_H, FP, -3, 0x1234), BPF_LDX_MEM(BPF_H, BPF_REG_0, FP, -3), BPF_EXIT_INSN()),
		     0x1234);
}

static void test_ldsx(void)
{
#define LDSX(SIZE, V)                                                                   \
	R0_OF(BPF_LD_IMM64(BPF_REG_1, V), BPF_STX_MEM(SIZE, FP, BPF_REG_1, -8),         \
	      BPF_LDX_MEMSX(SIZE, BPF_REG_0, FP, -8), BPF_EXIT_INSN())
	CHECK_EQ_U64(LDSX(BPF_B, 0x80), 0xffffffffffffff80ull);
	CHECK_EQ_U64(LDSX(BPF_B, 0x7f), 0x7f);
	CHECK_EQ_U64(LDSX(BPF_H, 0x8000), 0xffffffffffff8000ull);
	CHECK_EQ_U64(LDSX(BPF_H, 0x7fff), 0x7fff);
	CHECK_EQ_U64(LDSX(BPF_W, 0x80000000), 0xffffffff80000000ull);
	CHECK_EQ_U64(LDSX(BPF_W, 0x7fffffff), 0x7fffffff);
#undef LDSX
}

static void test_ctx_memory(void)
{
	/* the context pointer in R1 reaches caller memory in both modes */
	uint64_t buf[4] = { 10, 20, 30, 0 };
	const struct bpf_insn p[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, 8), BPF_LDX_MEM(BPF_DW, BPF_REG_3, BPF_REG_1, 16),
		BPF_ALU64_REG(BPF_ADD, BPF_REG_2, BPF_REG_3), BPF_STX_MEM(BPF_DW, BPF_REG_1, BPF_REG_2, 24),
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_2), BPF_EXIT_INSN(),
	};
	struct kbpf_prog *prog = make_prog(p, ARRAY_SIZE(p), NULL, NULL, NULL, 0);
	uint64_t r0 = 0;

	CHECK(prog);
	if (!prog)
		return;
	CHECK_EQ_U64(kbpf_prog_run(prog, buf, &r0), 0);
	CHECK_EQ_U64(r0, 50);
	CHECK_EQ_U64(buf[3], 50);

	struct kbpf_mem_region reg = { buf, sizeof(buf), KBPF_MEM_READ | KBPF_MEM_WRITE, "ctx" };
	struct kbpf_run_opts ro = { .sz = sizeof(ro), .args = { (uintptr_t)buf }, .flags = KBPF_RUN_CHECKED,
				    .regions = &reg, .nr_regions = 1 };
	struct kbpf_run_result rr = { .sz = sizeof(rr) };
	buf[3] = 0;
	CHECK_EQ_U64(kbpf_prog_run_opts(prog, &ro, &rr), 0);
	CHECK_EQ_U64(rr.retval, 50);
	CHECK_EQ_U64(buf[3], 50);
	kbpf_prog_free(prog);
}

enum { WANT_MEM, WANT_SRC, WANT_R0 };

/* *(u64 *)(r10 - 8) = mem; r1 = src; r0 = r0v; atomic op; then return the slot, r1 or r0. */
static uint64_t atomic_run(int size, int32_t op, uint64_t mem, uint64_t src, uint64_t r0v, int want, int line)
{
	const struct bpf_insn p[] = {
		BPF_LD_IMM64(BPF_REG_2, mem),
		BPF_STX_MEM(BPF_DW, FP, BPF_REG_2, -8),
		BPF_LD_IMM64(BPF_REG_1, src),
		BPF_LD_IMM64(BPF_REG_0, r0v),
		BPF_ATOMIC_OP(size, op, FP, BPF_REG_1, -8),
		want == WANT_MEM ? BPF_LDX_MEM(BPF_DW, BPF_REG_0, FP, -8)
		: want == WANT_SRC ? BPF_MOV64_REG(BPF_REG_0, BPF_REG_1)
				   : BPF_MOV64_REG(BPF_REG_0, BPF_REG_0),
		BPF_EXIT_INSN(),
	};
	return run_both_at(p, ARRAY_SIZE(p), 0, NULL, line);
}

/* One atomic case: expected slot afterwards, src register and R0. */
#define ATOMIC_CASE(size, op, mem, src, r0v, want_mem, want_src, want_r0)                               \
	do {                                                                                            \
		CHECK_EQ_U64(atomic_run(size, op, mem, src, r0v, WANT_MEM, __LINE__), want_mem);        \
		CHECK_EQ_U64(atomic_run(size, op, mem, src, r0v, WANT_SRC, __LINE__), want_src);        \
		CHECK_EQ_U64(atomic_run(size, op, mem, src, r0v, WANT_R0, __LINE__), want_r0);          \
	} while (0)

static void test_atomic64(void)
{
	const uint64_t hi = 0x5a5a000000000000ull;

	ATOMIC_CASE(BPF_DW, BPF_ADD, hi | 10, 5, 7, hi | 15, 5, 7);
	ATOMIC_CASE(BPF_DW, BPF_ADD | BPF_FETCH, hi | 10, 5, 7, hi | 15, hi | 10, 7);
	ATOMIC_CASE(BPF_DW, BPF_OR, hi | 0xc, 0xa, 7, hi | 0xe, 0xa, 7);
	ATOMIC_CASE(BPF_DW, BPF_OR | BPF_FETCH, hi | 0xc, 0xa, 7, hi | 0xe, hi | 0xc, 7);
	ATOMIC_CASE(BPF_DW, BPF_AND, hi | 0xc, UINT64_MAX ^ 4, 7, hi | 0x8, UINT64_MAX ^ 4, 7);
	ATOMIC_CASE(BPF_DW, BPF_AND | BPF_FETCH, hi | 0xc, UINT64_MAX ^ 4, 7, hi | 0x8, hi | 0xc, 7);
	ATOMIC_CASE(BPF_DW, BPF_XOR, hi | 0xc, 0xa, 7, hi | 0x6, 0xa, 7);
	ATOMIC_CASE(BPF_DW, BPF_XOR | BPF_FETCH, hi | 0xc, 0xa, 7, hi | 0x6, hi | 0xc, 7);
	ATOMIC_CASE(BPF_DW, BPF_XCHG, hi | 10, 5, 7, 5, hi | 10, 7);
	/* cmpxchg: equal to R0 -> stores src; R0 gets the old value either way */
	ATOMIC_CASE(BPF_DW, BPF_CMPXCHG, hi | 10, 5, hi | 10, 5, 5, hi | 10);
	ATOMIC_CASE(BPF_DW, BPF_CMPXCHG, hi | 10, 5, 9, hi | 10, 5, hi | 10);
}

static void test_atomic32(void)
{
	/* W atomics touch the low word of the slot (little-endian), leave the high word
	 * alone, and zero-extend what they fetch. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t hi = 0x5a5a5a5a00000000ull, shi = 0xffffffff00000000ull;

	ATOMIC_CASE(BPF_W, BPF_ADD, hi | 0xfffffffe, shi | 3, 7, hi | 1, shi | 3, 7);
	ATOMIC_CASE(BPF_W, BPF_ADD | BPF_FETCH, hi | 0xfffffffe, shi | 3, 7, hi | 1, 0xfffffffe, 7);
	ATOMIC_CASE(BPF_W, BPF_OR, hi | 0xc, shi | 0xa, 7, hi | 0xe, shi | 0xa, 7);
	ATOMIC_CASE(BPF_W, BPF_OR | BPF_FETCH, hi | 0xc, shi | 0xa, 7, hi | 0xe, 0xc, 7);
	ATOMIC_CASE(BPF_W, BPF_AND, hi | 0xc, shi | 0xa, 7, hi | 0x8, shi | 0xa, 7);
	ATOMIC_CASE(BPF_W, BPF_AND | BPF_FETCH, hi | 0xc, shi | 0xa, 7, hi | 0x8, 0xc, 7);
	ATOMIC_CASE(BPF_W, BPF_XOR, hi | 0xc, shi | 0xa, 7, hi | 0x6, shi | 0xa, 7);
	ATOMIC_CASE(BPF_W, BPF_XOR | BPF_FETCH, hi | 0xc, shi | 0xa, 7, hi | 0x6, 0xc, 7);
	ATOMIC_CASE(BPF_W, BPF_XCHG, hi | 0x80000000, shi | 5, 7, hi | 5, 0x80000000, 7);
	/* the compare uses R0's low word only */
	ATOMIC_CASE(BPF_W, BPF_CMPXCHG, hi | 10, shi | 5, shi | 10, hi | 5, shi | 5, 10);
	ATOMIC_CASE(BPF_W, BPF_CMPXCHG, hi | 0x80000000, 5, 9, hi | 0x80000000, 5, 0x80000000);
#endif
}

struct thread_arg {
	const struct kbpf_prog *prog;
	uint64_t *counter;
	int runs, failures;
};

static void *hammer(void *p)
{
	struct thread_arg *a = p;

	for (int i = 0; i < a->runs; i++) {
		uint64_t r0;
		if (kbpf_prog_run(a->prog, a->counter, &r0))
			a->failures++;
	}
	return NULL;
}

static void test_atomics_across_threads(void)
{
	/* lock *(u64 *)(r1 + 0) += 1 and lock *(u32 *)(r1 + 8) += 3 from 4 threads at once */
	const struct bpf_insn p[] = {
		BPF_MOV64_IMM(BPF_REG_2, 1), BPF_ATOMIC_OP(BPF_DW, BPF_ADD, BPF_REG_1, BPF_REG_2, 0),
		BPF_MOV64_IMM(BPF_REG_2, 3), BPF_ATOMIC_OP(BPF_W, BPF_ADD | BPF_FETCH, BPF_REG_1, BPF_REG_2, 8),
		BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN(),
	};
	struct kbpf_prog *prog = make_prog(p, ARRAY_SIZE(p), NULL, NULL, NULL, 0);
	uint64_t counter[2] = { 0, 0 };
	struct thread_arg args[4];
	pthread_t th[4];

	CHECK(prog);
	if (!prog)
		return;
	for (int i = 0; i < 4; i++) {
		args[i] = (struct thread_arg){ prog, counter, 20000, 0 };
		CHECK(pthread_create(&th[i], NULL, hammer, &args[i]) == 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		CHECK_EQ_U64(args[i].failures, 0);
	}
	CHECK_EQ_U64(counter[0], 80000);
	CHECK_EQ_U64(counter[1], 240000);
	kbpf_prog_free(prog);
}

int main(void)
{
	RUN(test_ldx_stx_sizes);
	RUN(test_st_imm);
	RUN(test_unaligned);
	RUN(test_ldsx);
	RUN(test_ctx_memory);
	RUN(test_atomic64);
	RUN(test_atomic32);
	RUN(test_atomics_across_threads);
	return test_summary();
}
