/* SPDX-License-Identifier: Apache-2.0 */
/* Structural validation: every rule, with Linux's message. */
#include <errno.h>
#include <kbpf/isa.h>
#include "test.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static char err[256];

/* Validate a literal program; returns the result, message in err. */
#define VALIDATE(...)                                                            \
	({                                                                       \
		struct bpf_insn p_[] = { __VA_ARGS__ };                           \
		kbpf_insns_validate(p_, ARRAY_SIZE(p_), err, sizeof(err));        \
	})

#define EXPECT_OK(...) CHECK_EQ_U64(VALIDATE(__VA_ARGS__), 0)
#define EXPECT_ERR(msg, ...)                                                     \
	do {                                                                     \
		CHECK_EQ_U64(VALIDATE(__VA_ARGS__), (uint64_t)-EINVAL);          \
		CHECK_STR(err, msg);                                             \
	} while (0)

static void test_good_programs(void)
{
	EXPECT_OK(BPF_MOV64_IMM(BPF_REG_0, 1), BPF_EXIT_INSN());
	EXPECT_OK(BPF_LD_IMM64(BPF_REG_0, 0x1122334455667788ULL), BPF_EXIT_INSN());
	EXPECT_OK(BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 1), BPF_MOV64_IMM(BPF_REG_0, 1), BPF_EXIT_INSN());
	EXPECT_OK(BPF_MOV64_IMM(BPF_REG_0, 0), BPF_JMP_A(-2)); /* ends in ja: allowed */
	EXPECT_OK(BPF_JMP32_A(0), BPF_EXIT_INSN());              /* gotol */
	EXPECT_OK(BPF_CALL_REL(1), BPF_EXIT_INSN(), BPF_MOV64_IMM(BPF_REG_0, 2), BPF_EXIT_INSN());
	EXPECT_OK(BPF_ALU64_IMM_OFF(BPF_DIV, BPF_REG_0, 3, 1), BPF_EXIT_INSN()); /* sdiv */
	EXPECT_OK(BPF_MOVSX64_REG(BPF_REG_0, BPF_REG_1, 32), BPF_MOVSX32_REG(BPF_REG_0, BPF_REG_1, 16), BPF_EXIT_INSN());
	EXPECT_OK(BPF_LDX_MEMSX(BPF_W, BPF_REG_0, BPF_REG_1, 0), BPF_EXIT_INSN());
	EXPECT_OK(BPF_BSWAP(BPF_REG_0, 64), BPF_ENDIAN(BPF_TO_BE, BPF_REG_0, 16), BPF_EXIT_INSN());
	EXPECT_OK(BPF_ATOMIC_OP(BPF_DW, BPF_CMPXCHG, BPF_REG_10, BPF_REG_1, -8), BPF_EXIT_INSN());
	EXPECT_OK(BPF_ATOMIC_OP(BPF_W, BPF_XCHG, BPF_REG_1, BPF_REG_2, 0), BPF_EXIT_INSN());
	EXPECT_OK(BPF_LD_ABS(BPF_B, 12), BPF_LD_IND(BPF_H, BPF_REG_2, 0), BPF_EXIT_INSN());
	EXPECT_OK(BPF_CALL_KFUNC(0, 1234), BPF_EXIT_INSN());
	EXPECT_OK(BPF_LD_MAP_VALUE(BPF_REG_1, 3, 8), BPF_EXIT_INSN());
	/* a jump may land right after an LDDW */
	EXPECT_OK(BPF_JMP_IMM(BPF_JA, 0, 0, 2), BPF_LD_IMM64(BPF_REG_0, 1), BPF_EXIT_INSN());
}

static void test_lengths(void)
{
	struct bpf_insn one = BPF_EXIT_INSN();
	CHECK_EQ_U64(kbpf_insns_validate(&one, 0, err, sizeof(err)), (uint64_t)-EINVAL);
	CHECK_STR(err, "empty program");
	CHECK_EQ_U64(kbpf_insns_validate(NULL, 1, err, sizeof(err)), (uint64_t)-EINVAL);
	CHECK_EQ_U64(kbpf_insns_validate(&one, 1000001, err, sizeof(err)), (uint64_t)-E2BIG);
	CHECK_EQ_U64(kbpf_insns_validate(&one, 1, NULL, 0), 0); /* no buffer is fine */
}

static void test_bad_opcodes(void)
{
	EXPECT_ERR("insn 0: unknown opcode ff", BPF_RAW_INSN(0xff, 0, 0, 0, 0), BPF_EXIT_INSN());
	EXPECT_ERR("insn 0: unknown opcode e7", BPF_RAW_INSN(BPF_ALU64 | 0xe0 | BPF_K, 0, 0, 0, 0), BPF_EXIT_INSN());
	EXPECT_ERR("insn 0: unknown opcode df", BPF_RAW_INSN(BPF_ALU64 | BPF_END | BPF_TO_BE, 0, 0, 0, 16), BPF_EXIT_INSN());
	EXPECT_ERR("insn 0: unknown opcode 86", BPF_RAW_INSN(BPF_JMP32 | BPF_CALL, 0, 0, 0, 1), BPF_EXIT_INSN());
	EXPECT_ERR("insn 0: unknown opcode 96", BPF_RAW_INSN(BPF_JMP32 | BPF_EXIT, 0, 0, 0, 0), BPF_EXIT_INSN());
	EXPECT_ERR("insn 0: unknown opcode 99", BPF_RAW_INSN(BPF_LDX | BPF_MEMSX | BPF_DW, 0, 1, 0, 0), BPF_EXIT_INSN());
	EXPECT_ERR("insn 0: unknown opcode d3", BPF_RAW_INSN(BPF_STX | BPF_ATOMIC | BPF_B, 1, 2, 0, BPF_ADD), BPF_EXIT_INSN());
	EXPECT_ERR("insn 0: unknown opcode 38", BPF_RAW_INSN(BPF_LD | BPF_ABS | BPF_DW, 0, 0, 0, 0), BPF_EXIT_INSN());
	EXPECT_ERR("insn 0: BPF_ATOMIC uses invalid atomic opcode 10",
		   BPF_ATOMIC_OP(BPF_DW, BPF_SUB, BPF_REG_1, BPF_REG_2, 0), BPF_EXIT_INSN());
}

static void test_reserved_fields(void)
{
	EXPECT_ERR("insn 0: BPF_ALU uses reserved fields", BPF_RAW_INSN(BPF_ALU64 | BPF_ADD | BPF_K, 0, 1, 0, 1), BPF_EXIT_INSN());
	EXPECT_ERR("insn 0: BPF_ALU uses reserved fields", BPF_RAW_INSN(BPF_ALU64 | BPF_ADD | BPF_X, 0, 1, 0, 1), BPF_EXIT_INSN());
	EXPECT_ERR("insn 0: BPF_ALU uses reserved fields", BPF_ALU64_IMM_OFF(BPF_ADD, BPF_REG_0, 1, 1), BPF_EXIT_INSN());
	EXPECT_ERR("insn 0: BPF_NEG uses reserved fields", BPF_RAW_INSN(BPF_ALU64 | BPF_NEG | BPF_K, 0, 0, 0, 5), BPF_EXIT_INSN());
	EXPECT_ERR("insn 0: BPF_END uses reserved fields", BPF_ENDIAN(BPF_TO_LE, BPF_REG_0, 8), BPF_EXIT_INSN());
	EXPECT_ERR("insn 0: BPF_MOV uses reserved fields", BPF_MOVSX32_REG(BPF_REG_0, BPF_REG_1, 32), BPF_EXIT_INSN());
	EXPECT_ERR("insn 0: BPF_MOV uses reserved fields", BPF_RAW_INSN(BPF_ALU64 | BPF_MOV | BPF_K, 0, 2, 0, 1), BPF_EXIT_INSN());
	EXPECT_ERR("insn 0: BPF_LDX uses reserved fields", BPF_RAW_INSN(BPF_LDX | BPF_MEM | BPF_W, 0, 1, 0, 7), BPF_EXIT_INSN());
	EXPECT_ERR("insn 0: BPF_ST uses reserved fields", BPF_RAW_INSN(BPF_ST | BPF_MEM | BPF_W, 10, 1, -4, 7), BPF_EXIT_INSN());
	EXPECT_ERR("insn 0: BPF_STX uses reserved fields", BPF_RAW_INSN(BPF_STX | BPF_MEM | BPF_W, 10, 1, -4, 7), BPF_EXIT_INSN());
	EXPECT_ERR("insn 0: BPF_JA uses reserved fields", BPF_RAW_INSN(BPF_JMP | BPF_JA, 0, 0, 0, 1), BPF_EXIT_INSN());
	EXPECT_ERR("insn 0: BPF_JA uses reserved fields", BPF_RAW_INSN(BPF_JMP32 | BPF_JA, 0, 0, 1, 0), BPF_EXIT_INSN());
	EXPECT_ERR("insn 0: BPF_CALL uses reserved fields", BPF_RAW_INSN(BPF_JMP | BPF_CALL, 1, 0, 0, 1), BPF_EXIT_INSN());
	EXPECT_ERR("insn 0: BPF_CALL uses reserved fields", BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, 3, 0, 1), BPF_EXIT_INSN());
	EXPECT_ERR("insn 0: BPF_EXIT uses reserved fields", BPF_RAW_INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 1));
	/* off is ignored, as in Linux's verifier: such an exit is valid */
	EXPECT_OK(BPF_MOV64_IMM(BPF_REG_0, 0), BPF_RAW_INSN(BPF_JMP | BPF_EXIT, 0, 0, 3, 0));
	EXPECT_ERR("insn 0: BPF_JMP/JMP32 uses reserved fields", BPF_RAW_INSN(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0, 0), BPF_EXIT_INSN());
	EXPECT_ERR("insn 0: BPF_JMP/JMP32 uses reserved fields", BPF_RAW_INSN(BPF_JMP32 | BPF_JEQ | BPF_X, 0, 1, 0, 5), BPF_EXIT_INSN());
	EXPECT_ERR("insn 0: BPF_LD_[ABS|IND] uses reserved fields", BPF_RAW_INSN(BPF_LD | BPF_ABS | BPF_W, 1, 0, 0, 0), BPF_EXIT_INSN());
}

static void test_registers(void)
{
	EXPECT_ERR("insn 0: R11 is invalid", BPF_RAW_INSN(BPF_ALU64 | BPF_MOV | BPF_K, 11, 0, 0, 0), BPF_EXIT_INSN());
	EXPECT_ERR("insn 0: R15 is invalid", BPF_RAW_INSN(BPF_ALU64 | BPF_MOV | BPF_X, 0, 15, 0, 0), BPF_EXIT_INSN());
	EXPECT_ERR("insn 0: frame pointer is read only", BPF_MOV64_IMM(BPF_REG_10, 0), BPF_EXIT_INSN());
	EXPECT_ERR("insn 0: frame pointer is read only", BPF_LDX_MEM(BPF_DW, BPF_REG_10, BPF_REG_1, 0), BPF_EXIT_INSN());
	EXPECT_ERR("insn 0: frame pointer is read only", BPF_LD_IMM64(BPF_REG_10, 0), BPF_EXIT_INSN());
	EXPECT_ERR("insn 0: frame pointer is read only",
		   BPF_ATOMIC_OP(BPF_DW, BPF_ADD | BPF_FETCH, BPF_REG_1, BPF_REG_10, 0), BPF_EXIT_INSN());
}

static void test_lddw(void)
{
	EXPECT_ERR("insn 0: invalid bpf_ld_imm64 insn", BPF_RAW_INSN(BPF_LD | BPF_IMM | BPF_DW, 0, 0, 0, 1));
	EXPECT_ERR("insn 0: invalid bpf_ld_imm64 insn", BPF_LD_IMM64_RAW_FULL(0, 0, 0, 1, 1, 2), BPF_EXIT_INSN());
	EXPECT_ERR("insn 0: BPF_LD_IMM64 uses reserved fields", BPF_LD_IMM64_RAW_FULL(0, 0, 1, 0, 1, 2), BPF_EXIT_INSN());
	EXPECT_ERR("insn 0: unrecognized bpf_ld_imm64 insn", BPF_LD_IMM64_RAW(0, 7, 1), BPF_EXIT_INSN());
	/* an LDDW's second half cannot be a jump target */
	EXPECT_ERR("insn 0: jump out of range from insn 0 to 2", BPF_JMP_IMM(BPF_JA, 0, 0, 1), BPF_LD_IMM64(BPF_REG_0, 1),
		   BPF_EXIT_INSN());
}

static void test_control_flow(void)
{
	EXPECT_ERR("insn 0: jump out of range from insn 0 to 5", BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 4), BPF_EXIT_INSN());
	EXPECT_ERR("insn 0: jump out of range from insn 0 to -1", BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, -2), BPF_EXIT_INSN());
	EXPECT_ERR("insn 0: jump out of range from insn 0 to 101", BPF_JMP32_A(100), BPF_EXIT_INSN());
	EXPECT_ERR("insn 0: call to invalid destination", BPF_CALL_REL(5), BPF_EXIT_INSN());
	EXPECT_ERR("insn 1: last insn is not an exit or jmp", BPF_EXIT_INSN(), BPF_MOV64_IMM(BPF_REG_0, 0));
	EXPECT_ERR("insn 0: last insn is not an exit or jmp", BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, -1));
}

int main(void)
{
	RUN(test_good_programs);
	RUN(test_lengths);
	RUN(test_bad_opcodes);
	RUN(test_reserved_fields);
	RUN(test_registers);
	RUN(test_lddw);
	RUN(test_control_flow);
	return test_summary();
}
