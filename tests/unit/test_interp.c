/* SPDX-License-Identifier: Apache-2.0 */
/* Interpreter: ALU, byte order, jumps and 64-bit immediates (RFC 9669 §4, §5.1-5.2).
 * Every program runs in both the fast and the checked mode, which must agree. */
#include "test_interp_util.h"

/* r0 = a; r1 = b; <op r0, r1>; exit */
static uint64_t alu_x(struct bpf_insn op, uint64_t a, uint64_t b, int line)
{
	const struct bpf_insn p[] = { BPF_LD_IMM64(BPF_REG_0, a), BPF_LD_IMM64(BPF_REG_1, b), op, BPF_EXIT_INSN() };
	return run_both_at(p, ARRAY_SIZE(p), 0, NULL, line);
}

/* r0 = a; <op r0, imm>; exit */
static uint64_t alu_k(struct bpf_insn op, uint64_t a, int line)
{
	const struct bpf_insn p[] = { BPF_LD_IMM64(BPF_REG_0, a), op, BPF_EXIT_INSN() };
	return run_both_at(p, ARRAY_SIZE(p), 0, NULL, line);
}

#define X64(OP, a, b) alu_x(BPF_ALU64_REG(BPF_##OP, BPF_REG_0, BPF_REG_1), a, b, __LINE__)
#define X32(OP, a, b) alu_x(BPF_ALU32_REG(BPF_##OP, BPF_REG_0, BPF_REG_1), a, b, __LINE__)
#define K64(OP, a, imm) alu_k(BPF_ALU64_IMM(BPF_##OP, BPF_REG_0, imm), a, __LINE__)
#define K32(OP, a, imm) alu_k(BPF_ALU32_IMM(BPF_##OP, BPF_REG_0, imm), a, __LINE__)
/* Signed division and modulo: DIV/MOD with off = 1. */
#define SX64(OP, a, b) alu_x(BPF_ALU64_REG_OFF(BPF_##OP, BPF_REG_0, BPF_REG_1, 1), a, b, __LINE__)
#define SX32(OP, a, b) alu_x(BPF_ALU32_REG_OFF(BPF_##OP, BPF_REG_0, BPF_REG_1, 1), a, b, __LINE__)
#define SK64(OP, a, imm) alu_k(BPF_ALU64_IMM_OFF(BPF_##OP, BPF_REG_0, imm, 1), a, __LINE__)
#define SK32(OP, a, imm) alu_k(BPF_ALU32_IMM_OFF(BPF_##OP, BPF_REG_0, imm, 1), a, __LINE__)

#define HI 0xdead000000000000ull /* garbage in the upper half that 32-bit ops must drop */

static void test_add_sub_mul(void)
{
	CHECK_EQ_U64(X64(ADD, 1, 2), 3);
	CHECK_EQ_U64(X64(ADD, UINT64_MAX, 2), 1);
	CHECK_EQ_U64(K64(ADD, 5, -1), 4); /* imm is sign-extended */
	CHECK_EQ_U64(X32(ADD, HI | 1, 0xffffffff), 0);
	CHECK_EQ_U64(K32(ADD, HI | 5, -1), 4);
	CHECK_EQ_U64(X64(SUB, 1, 2), UINT64_MAX);
	CHECK_EQ_U64(K64(SUB, 1, 2), UINT64_MAX);
	CHECK_EQ_U64(X32(SUB, HI | 1, 2), 0xffffffff);
	CHECK_EQ_U64(K32(SUB, 1, 2), 0xffffffff);
	CHECK_EQ_U64(X64(MUL, 0x100000001ull, 3), 0x300000003ull);
	CHECK_EQ_U64(K64(MUL, 3, -2), (uint64_t)-6);
	CHECK_EQ_U64(X32(MUL, 0x100000001ull, 3), 3);
	CHECK_EQ_U64(X32(MUL, 0x80000000, 2), 0);
	CHECK_EQ_U64(K32(MUL, HI | 0x7fffffff, 2), 0xfffffffe);
	/* INT_MIN * -1 wraps, it does not trap */
	CHECK_EQ_U64(X64(MUL, 0x8000000000000000ull, UINT64_MAX), 0x8000000000000000ull);
	CHECK_EQ_U64(K32(MUL, 0x80000000, -1), 0x80000000);
}

static void test_div_mod(void)
{
	CHECK_EQ_U64(X64(DIV, 10, 3), 3);
	CHECK_EQ_U64(X64(DIV, UINT64_MAX, 2), 0x7fffffffffffffffull);
	CHECK_EQ_U64(K64(DIV, UINT64_MAX, -1), 1); /* divisor is (u64)(s64)imm */
	CHECK_EQ_U64(X32(DIV, 0x100000006ull, 4), 1);
	CHECK_EQ_U64(K32(DIV, 0xffffffff, -1), 1);
	CHECK_EQ_U64(X64(MOD, 10, 3), 1);
	CHECK_EQ_U64(K64(MOD, 10, 4), 2);
	CHECK_EQ_U64(X32(MOD, 0x10000000aull, 3), 1);
	CHECK_EQ_U64(K32(MOD, HI | 10, 4), 2);
}

static void test_div_mod_by_zero(void)
{
	CHECK_EQ_U64(X64(DIV, 5, 0), 0);
	CHECK_EQ_U64(K64(DIV, 5, 0), 0);
	CHECK_EQ_U64(X32(DIV, 5, 0), 0);
	CHECK_EQ_U64(K32(DIV, 5, 0), 0);
	CHECK_EQ_U64(X32(DIV, 5, 0x100000000ull), 0); /* only the low half divides */
	CHECK_EQ_U64(X64(MOD, HI | 10, 0), HI | 10);
	CHECK_EQ_U64(K64(MOD, HI | 10, 0), HI | 10);
	CHECK_EQ_U64(X32(MOD, HI | 10, 0), 10); /* dst unchanged, upper half zeroed */
	CHECK_EQ_U64(K32(MOD, HI | 10, 0), 10);
}

static void test_sdiv_smod(void)
{
	const uint64_t min64 = 0x8000000000000000ull;

	CHECK_EQ_U64(SX64(DIV, (uint64_t)-7, 2), (uint64_t)-3);
	CHECK_EQ_U64(SX64(DIV, 7, (uint64_t)-2), (uint64_t)-3);
	CHECK_EQ_U64(SK64(DIV, (uint64_t)-8, -2), 4);
	CHECK_EQ_U64(SX64(DIV, min64, UINT64_MAX), min64);
	CHECK_EQ_U64(SK64(DIV, min64, -1), min64);
	CHECK_EQ_U64(SX64(DIV, (uint64_t)-7, 0), 0);
	CHECK_EQ_U64(SK64(DIV, (uint64_t)-7, 0), 0);
	CHECK_EQ_U64(SX32(DIV, HI | 0xfffffff9, 2), 0xfffffffd);
	CHECK_EQ_U64(SK32(DIV, 0x80000000, -1), 0x80000000);
	CHECK_EQ_U64(SX32(DIV, HI | 0x80000000, 0xffffffff), 0x80000000);
	CHECK_EQ_U64(SX32(DIV, HI | 0xfffffff9, 0), 0);

	CHECK_EQ_U64(SX64(MOD, (uint64_t)-7, 2), (uint64_t)-1);
	CHECK_EQ_U64(SX64(MOD, 7, (uint64_t)-2), 1);
	CHECK_EQ_U64(SK64(MOD, (uint64_t)-7, -2), (uint64_t)-1);
	CHECK_EQ_U64(SX64(MOD, min64, UINT64_MAX), 0);
	CHECK_EQ_U64(SK64(MOD, min64, -1), 0);
	CHECK_EQ_U64(SX64(MOD, (uint64_t)-7, 0), (uint64_t)-7);
	CHECK_EQ_U64(SX32(MOD, HI | 0xfffffff9, 2), 0xffffffff);
	CHECK_EQ_U64(SK32(MOD, 0xfffffff9, -2), 0xffffffff);
	CHECK_EQ_U64(SX32(MOD, 0x80000000, 0xffffffff), 0);
	CHECK_EQ_U64(SX32(MOD, HI | 0xfffffff6, 0), 0xfffffff6); /* unchanged, zero-extended */
	CHECK_EQ_U64(SK32(MOD, HI | 0xfffffff6, 0), 0xfffffff6);
}

static void test_bitwise(void)
{
	CHECK_EQ_U64(X64(OR, 0xf0f0000000000000ull, 0x0f), 0xf0f000000000000full);
	CHECK_EQ_U64(K64(OR, 0, -16), 0xfffffffffffffff0ull);
	CHECK_EQ_U64(X32(OR, HI | 0xf0, 0x0f), 0xff);
	CHECK_EQ_U64(K32(OR, HI, -16), 0xfffffff0);
	CHECK_EQ_U64(X64(AND, 0xff00ff00ff00ff00ull, 0x0ff00ff00ff00ff0ull), 0x0f000f000f000f00ull);
	CHECK_EQ_U64(K64(AND, UINT64_MAX, -2), 0xfffffffffffffffeull);
	CHECK_EQ_U64(X32(AND, UINT64_MAX, 0xffff), 0xffff);
	CHECK_EQ_U64(K32(AND, UINT64_MAX, -1), 0xffffffff);
	CHECK_EQ_U64(X64(XOR, 0xff, 0x0f), 0xf0);
	CHECK_EQ_U64(K64(XOR, 0, -1), UINT64_MAX);
	CHECK_EQ_U64(X32(XOR, HI | 0xff, 0x0f), 0xf0);
	CHECK_EQ_U64(K32(XOR, HI, -1), 0xffffffff);
}

static void test_shifts(void)
{
	CHECK_EQ_U64(X64(LSH, 1, 63), 0x8000000000000000ull);
	CHECK_EQ_U64(X64(LSH, 1, 65), 2); /* amount masked with 63 */
	CHECK_EQ_U64(K64(LSH, 1, 65), 2);
	CHECK_EQ_U64(X32(LSH, HI | 1, 33), 2); /* masked with 31 */
	CHECK_EQ_U64(K32(LSH, 0xffffffff, 4), 0xfffffff0);
	CHECK_EQ_U64(K32(LSH, 1, -1), 0x80000000);
	CHECK_EQ_U64(X64(RSH, 0x8000000000000000ull, 63), 1);
	CHECK_EQ_U64(X64(RSH, 4, 66), 1);
	CHECK_EQ_U64(K64(RSH, UINT64_MAX, 60), 0xf);
	CHECK_EQ_U64(X32(RSH, 0xffffffff80000000ull, 31), 1);
	CHECK_EQ_U64(K32(RSH, HI | 0x80000000, 35), 0x10000000);
	CHECK_EQ_U64(X64(ARSH, 0x8000000000000000ull, 63), UINT64_MAX);
	CHECK_EQ_U64(K64(ARSH, 0x8000000000000000ull, 68), 0xf800000000000000ull);
	CHECK_EQ_U64(X64(ARSH, 0x4000000000000000ull, 62), 1);
	CHECK_EQ_U64(X32(ARSH, HI | 0x80000000, 31), 0xffffffff);
	CHECK_EQ_U64(K32(ARSH, HI | 0x80000000, 4), 0xf8000000);
	CHECK_EQ_U64(K32(ARSH, 0x80000000, 36), 0xf8000000);
}

static void test_mov_neg(void)
{
	CHECK_EQ_U64(K64(MOV, 7, -1), UINT64_MAX);
	CHECK_EQ_U64(K32(MOV, 7, -1), 0xffffffff);
	CHECK_EQ_U64(X64(MOV, 7, 0x123456789ull), 0x123456789ull);
	CHECK_EQ_U64(X32(MOV, 7, 0x123456789ull), 0x23456789);
	CHECK_EQ_U64(alu_k(BPF_ALU64_IMM(BPF_NEG, BPF_REG_0, 0), 1, __LINE__), UINT64_MAX);
	CHECK_EQ_U64(alu_k(BPF_ALU64_IMM(BPF_NEG, BPF_REG_0, 0), 0x8000000000000000ull, __LINE__),
		     0x8000000000000000ull);
	CHECK_EQ_U64(alu_k(BPF_ALU32_IMM(BPF_NEG, BPF_REG_0, 0), HI | 1, __LINE__), 0xffffffff);
	CHECK_EQ_U64(alu_k(BPF_ALU32_IMM(BPF_NEG, BPF_REG_0, 0), 0x80000000, __LINE__), 0x80000000);
}

static void test_movsx(void)
{
#define MOVSX64(off, v) alu_x(BPF_MOVSX64_REG(BPF_REG_0, BPF_REG_1, off), 0, v, __LINE__)
#define MOVSX32(off, v) alu_x(BPF_MOVSX32_REG(BPF_REG_0, BPF_REG_1, off), 0, v, __LINE__)
	CHECK_EQ_U64(MOVSX64(8, 0x80), 0xffffffffffffff80ull);
	CHECK_EQ_U64(MOVSX64(8, 0x17f), 0x7f);
	CHECK_EQ_U64(MOVSX64(16, 0x8000), 0xffffffffffff8000ull);
	CHECK_EQ_U64(MOVSX64(16, HI | 0x7fff), 0x7fff);
	CHECK_EQ_U64(MOVSX64(32, 0x80000000), 0xffffffff80000000ull);
	CHECK_EQ_U64(MOVSX64(32, HI | 0x7fffffff), 0x7fffffff);
	CHECK_EQ_U64(MOVSX32(8, 0x80), 0xffffff80);
	CHECK_EQ_U64(MOVSX32(8, HI | 0x7f), 0x7f);
	CHECK_EQ_U64(MOVSX32(16, 0x8000), 0xffff8000);
	CHECK_EQ_U64(MOVSX32(16, HI | 0x1234), 0x1234);
#undef MOVSX64
#undef MOVSX32
}

static void test_byte_order(void)
{
	const uint64_t v = 0x1122334455667788ull;

#define END(type, len) alu_k(BPF_ENDIAN(type, BPF_REG_0, len), v, __LINE__)
#define BSWAP(len) alu_k(BPF_BSWAP(BPF_REG_0, len), v, __LINE__)
	/* bswap is unconditional */
	CHECK_EQ_U64(BSWAP(16), 0x8877);
	CHECK_EQ_U64(BSWAP(32), 0x88776655);
	CHECK_EQ_U64(BSWAP(64), 0x8877665544332211ull);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	CHECK_EQ_U64(END(BPF_TO_LE, 16), 0x7788);
	CHECK_EQ_U64(END(BPF_TO_LE, 32), 0x55667788);
	CHECK_EQ_U64(END(BPF_TO_LE, 64), v);
	CHECK_EQ_U64(END(BPF_TO_BE, 16), 0x8877);
	CHECK_EQ_U64(END(BPF_TO_BE, 32), 0x88776655);
	CHECK_EQ_U64(END(BPF_TO_BE, 64), 0x8877665544332211ull);
#else
	CHECK_EQ_U64(END(BPF_TO_BE, 16), 0x7788);
	CHECK_EQ_U64(END(BPF_TO_BE, 32), 0x55667788);
	CHECK_EQ_U64(END(BPF_TO_BE, 64), v);
	CHECK_EQ_U64(END(BPF_TO_LE, 16), 0x8877);
	CHECK_EQ_U64(END(BPF_TO_LE, 32), 0x88776655);
	CHECK_EQ_U64(END(BPF_TO_LE, 64), 0x8877665544332211ull);
#endif
#undef END
#undef BSWAP
}

struct jcase {
	uint8_t op;
	uint64_t a, b;
	int taken64, taken32;
};

/* r0 = 0; r1 = a; r2 = b; if r1 <op> (r2 | imm) goto +1; exit; r0 = 1; exit */
static uint64_t jump_taken(struct bpf_insn j, uint64_t a, uint64_t b, int line)
{
	const struct bpf_insn p[] = {
		BPF_MOV64_IMM(BPF_REG_0, 0), BPF_LD_IMM64(BPF_REG_1, a), BPF_LD_IMM64(BPF_REG_2, b),
		j, BPF_EXIT_INSN(), BPF_MOV64_IMM(BPF_REG_0, 1), BPF_EXIT_INSN(),
	};
	return run_both_at(p, ARRAY_SIZE(p), 0, NULL, line);
}

static void test_cond_jumps(void)
{
	static const struct jcase cases[] = {
		{ BPF_JEQ, 5, 5, 1, 1 },          { BPF_JEQ, 0x100000005ull, 5, 0, 1 },
		{ BPF_JEQ, 4, 5, 0, 0 },          { BPF_JNE, 5, 5, 0, 0 },
		{ BPF_JNE, 0x100000005ull, 5, 1, 0 }, { BPF_JNE, 4, 5, 1, 1 },
		{ BPF_JGT, 6, 5, 1, 1 },          { BPF_JGT, 5, 5, 0, 0 },
		{ BPF_JGT, UINT64_MAX, 5, 1, 1 }, { BPF_JGT, 0x100000000ull, 1, 1, 0 },
		{ BPF_JGE, 5, 5, 1, 1 },          { BPF_JGE, 4, 5, 0, 0 },
		{ BPF_JGE, 0x100000000ull, 1, 1, 0 }, { BPF_JLT, 4, 5, 1, 1 },
		{ BPF_JLT, 5, 5, 0, 0 },          { BPF_JLT, 1, 0x100000001ull, 1, 0 },
		{ BPF_JLE, 5, 5, 1, 1 },          { BPF_JLE, 6, 5, 0, 0 },
		{ BPF_JLE, 0x100000000ull, 0, 0, 1 }, { BPF_JSGT, UINT64_MAX, (uint64_t)-2, 1, 1 },
		{ BPF_JSGT, UINT64_MAX, 1, 0, 0 }, { BPF_JSGT, 1, UINT64_MAX, 1, 1 },
		{ BPF_JSGT, 0x80000000, 0, 1, 0 }, { BPF_JSGE, (uint64_t)-2, (uint64_t)-2, 1, 1 },
		{ BPF_JSGE, (uint64_t)-3, (uint64_t)-2, 0, 0 }, { BPF_JSGE, 0x80000000, 0, 1, 0 },
		{ BPF_JSLT, (uint64_t)-3, (uint64_t)-2, 1, 1 }, { BPF_JSLT, (uint64_t)-2, (uint64_t)-2, 0, 0 },
		{ BPF_JSLT, 0x80000000, 0, 0, 1 }, { BPF_JSLE, (uint64_t)-2, (uint64_t)-2, 1, 1 },
		{ BPF_JSLE, UINT64_MAX, (uint64_t)-2, 0, 0 }, { BPF_JSLE, 0x80000000, 0, 0, 1 },
		{ BPF_JSET, 6, 2, 1, 1 },         { BPF_JSET, 6, 1, 0, 0 },
		{ BPF_JSET, 0x100000000ull, 0x100000000ull, 1, 0 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct jcase *c = &cases[i];
		int fails_before = test_failed_now;
		int32_t imm = (int32_t)(uint32_t)c->b;
		/* the K form compares with the sign-extended imm: only when that is b */
		int k_ok = (uint64_t)(int64_t)imm == c->b;

		test_failed_now = 0;
		CHECK_EQ_U64(jump_taken(BPF_JMP_REG(c->op, BPF_REG_1, BPF_REG_2, 1), c->a, c->b, __LINE__), c->taken64);
		CHECK_EQ_U64(jump_taken(BPF_JMP32_REG(c->op, BPF_REG_1, BPF_REG_2, 1), c->a, c->b, __LINE__), c->taken32);
		if (k_ok)
			CHECK_EQ_U64(jump_taken(BPF_JMP_IMM(c->op, BPF_REG_1, imm, 1), c->a, c->b, __LINE__), c->taken64);
		/* JMP32's K form compares with the imm's 32 bits: always b's low half */
		CHECK_EQ_U64(jump_taken(BPF_JMP32_IMM(c->op, BPF_REG_1, imm, 1), c->a, c->b, __LINE__), c->taken32);
		if (test_failed_now)
			fprintf(stderr, "  in jump case %zu (op 0x%02x, 0x%llx, 0x%llx)\n", i, c->op,
				(unsigned long long)c->a, (unsigned long long)c->b);
		test_failed_now |= fails_before;
	}
}

static void test_ja_and_gotol(void)
{
	/* forward over one insn, then backward: r0 = 0 + 1 + 100 */
	CHECK_EQ_U64(R0_OF(BPF_MOV64_IMM(BPF_REG_0, 0), BPF_JMP_A(2), BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 100),
			   BPF_EXIT_INSN(), BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 1), BPF_JMP_A(-4)),
		     101);
	CHECK_EQ_U64(R0_OF(BPF_MOV64_IMM(BPF_REG_0, 0), BPF_JMP32_A(2), BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 100),
			   BPF_EXIT_INSN(), BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 1), BPF_JMP32_A(-4)),
		     101);
	/* JA +0 falls through */
	CHECK_EQ_U64(R0_OF(BPF_MOV64_IMM(BPF_REG_0, 3), BPF_JMP_A(0), BPF_EXIT_INSN()), 3);
	/* a jump over an LDDW lands after both of its slots */
	CHECK_EQ_U64(R0_OF(BPF_MOV64_IMM(BPF_REG_0, 3), BPF_JMP_A(2), BPF_LD_IMM64(BPF_REG_0, 9), BPF_EXIT_INSN()), 3);
}

static void test_loop(void)
{
	/* sum of 1..1000 with a backward conditional jump */
	CHECK_EQ_U64(R0_OF(BPF_MOV64_IMM(BPF_REG_0, 0), BPF_MOV64_IMM(BPF_REG_1, 1),
			   BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1), BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 1),
			   BPF_JMP_IMM(BPF_JLE, BPF_REG_1, 1000, -3), BPF_EXIT_INSN()),
		     500500);
}

static void test_lddw(void)
{
	CHECK_EQ_U64(R0_OF(BPF_LD_IMM64(BPF_REG_0, 0x123456789abcdef0ull), BPF_EXIT_INSN()), 0x123456789abcdef0ull);
	/* a low half with its top bit set must not sign-extend into the high half */
	CHECK_EQ_U64(R0_OF(BPF_LD_IMM64(BPF_REG_0, 0x0000000180000000ull), BPF_EXIT_INSN()), 0x0000000180000000ull);
	CHECK_EQ_U64(R0_OF(BPF_LD_IMM64(BPF_REG_3, UINT64_MAX), BPF_MOV64_REG(BPF_REG_0, BPF_REG_3), BPF_EXIT_INSN()),
		     UINT64_MAX);
}

/* Map pseudo sources index the maps given at create time; without them they fail. */
static void test_lddw_map_pseudo(void)
{
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_ARRAY, .key_size = 4,
				    .value_size = 32, .max_entries = 1 };
	struct kbpf_map *map;
	struct kbpf_prog *prog;
	char log[128];
	void *value;
	uint64_t r0;

	CHECK_EQ_U64(kbpf_map_create(&def, &map), 0);
	CHECK_EQ_U64(kbpf_map_direct_value_addr(map, 0, &value), 0);
	struct kbpf_prog_opts opts = { .sz = sizeof(opts), .trusted_unverified = 1, .maps = &map, .nr_maps = 1, .log_buf = log,
				       .log_size = sizeof(log) };
	struct bpf_insn by_fd[] = { BPF_LD_MAP_FD(BPF_REG_0, 0), BPF_EXIT_INSN() };
	CHECK_EQ_U64(kbpf_prog_create(by_fd, 3, &opts, &prog), 0);
	CHECK_EQ_U64(kbpf_prog_run(prog, NULL, &r0), 0);
	CHECK(r0 == (uint64_t)(uintptr_t)map);
	kbpf_prog_free(prog);

	struct bpf_insn by_value[] = { BPF_LD_MAP_VALUE(BPF_REG_0, 0, 16), BPF_EXIT_INSN() };
	CHECK_EQ_U64(kbpf_prog_create(by_value, 3, &opts, &prog), 0);
	CHECK_EQ_U64(kbpf_prog_run(prog, NULL, &r0), 0);
	CHECK(r0 == (uint64_t)(uintptr_t)value + 16);
	kbpf_prog_free(prog);

	struct bpf_insn past_end[] = { BPF_LD_MAP_VALUE(BPF_REG_0, 0, 32), BPF_EXIT_INSN() };
	CHECK_EQ_U64(kbpf_prog_create(past_end, 3, &opts, &prog), (uint64_t)-EINVAL);
	CHECK_STR(log, "insn 0: invalid access to map value pointer, value_size=32 off=32");
	struct bpf_insn bad_index[] = { BPF_LD_MAP_FD(BPF_REG_0, 1), BPF_EXIT_INSN() };
	CHECK_EQ_U64(kbpf_prog_create(bad_index, 3, &opts, &prog), (uint64_t)-EINVAL);
	CHECK_STR(log, "insn 0: fd 1 is not pointing to valid bpf_map");
	opts.nr_maps = 0;
	CHECK_EQ_U64(kbpf_prog_create(by_fd, 3, &opts, &prog), (uint64_t)-EINVAL);
	kbpf_map_free(map);
}

static void test_entry_registers(void)
{
	/* R1 is the argument, R0 and R6..R9 start at 0, R10 is 8-byte aligned */
	const struct bpf_insn p[] = {
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_1), BPF_ALU64_REG(BPF_OR, BPF_REG_0, BPF_REG_6),
		BPF_ALU64_REG(BPF_OR, BPF_REG_0, BPF_REG_7), BPF_ALU64_REG(BPF_OR, BPF_REG_0, BPF_REG_8),
		BPF_ALU64_REG(BPF_OR, BPF_REG_0, BPF_REG_9), BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_AND, BPF_REG_2, 7), BPF_ALU64_REG(BPF_OR, BPF_REG_0, BPF_REG_2),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(run_both_at(p, ARRAY_SIZE(p), 0x1234, NULL, __LINE__), 0x1234);

	/* all five arguments arrive */
	const struct bpf_insn q[] = {
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_1), BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_2),
		BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_3), BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_4),
		BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_5), BPF_EXIT_INSN(),
	};
	struct kbpf_prog *prog = make_prog(q, ARRAY_SIZE(q), NULL, NULL, NULL, 0);
	CHECK(prog);
	if (prog) {
		struct kbpf_run_opts ro = { .sz = sizeof(ro), .args = { 1, 20, 300, 4000, 50000 } };
		struct kbpf_run_result rr = { .sz = sizeof(rr) };
		CHECK_EQ_U64(kbpf_prog_run_opts(prog, &ro, &rr), 0);
		CHECK_EQ_U64(rr.retval, 54321);
		ro.flags = KBPF_RUN_CHECKED;
		rr.retval = 0;
		CHECK_EQ_U64(kbpf_prog_run_opts(prog, &ro, &rr), 0);
		CHECK_EQ_U64(rr.retval, 54321);
		CHECK_EQ_U64(rr.insns_executed, 6);
		kbpf_prog_free(prog);
	}
}

int main(void)
{
	RUN(test_add_sub_mul);
	RUN(test_div_mod);
	RUN(test_div_mod_by_zero);
	RUN(test_sdiv_smod);
	RUN(test_bitwise);
	RUN(test_shifts);
	RUN(test_mov_neg);
	RUN(test_movsx);
	RUN(test_byte_order);
	RUN(test_cond_jumps);
	RUN(test_ja_and_gotol);
	RUN(test_loop);
	RUN(test_lddw);
	RUN(test_lddw_map_pseudo);
	RUN(test_entry_registers);
	return test_summary();
}
