/* SPDX-License-Identifier: Apache-2.0 */
/* The x86-64 JIT, one instruction family at a time: every program runs on the JIT and
 * on the interpreter (the reference) with the same memory, and key results are also
 * checked against hand-computed values. Register matrices cover every BPF register in
 * every operand position, because the native encoding differs by register (rax/rdx
 * for div, rcx for shifts, rbp/r13 and rsp/r12 as memory bases, sil/dil as bytes). */
#include <stdio.h>
#include <string.h>
#include "test_jit_util.h"

#define MAX_P 128

static size_t lddw(struct bpf_insn *p, uint8_t r, uint64_t v)
{
	struct bpf_insn t[2] = { BPF_LD_IMM64(r, v) };

	p[0] = t[0];
	p[1] = t[1];
	return 2;
}

/* r0 = a fold of R0..R9 that changes if any of them changes. */
static size_t fold_regs(struct bpf_insn *p)
{
	size_t n = 0;

	for (uint8_t r = 1; r <= 9; r++) {
		p[n++] = BPF_ALU64_IMM(BPF_MUL, BPF_REG_0, 0x1003);
		p[n++] = BPF_ALU64_REG(BPF_ADD, BPF_REG_0, r);
	}
	p[n++] = BPF_EXIT_INSN();
	return n;
}

/* Every register a distinct value, so that a clobbered one shows in the fold. */
static size_t init_regs(struct bpf_insn *p, unsigned skip_mask)
{
	size_t n = 0;

	for (uint8_t r = 0; r <= 9; r++)
		if (!(skip_mask & (1u << r)))
			n += lddw(p + n, r, 0x0101010101010101ull * (r + 1) ^ 0x8000000000000000ull);
	return n;
}

static uint64_t check_prog(const struct bpf_insn *p, size_t n, int line)
{
	return jit_check_at(p, n, &(struct jit_run){ 0 }, line);
}

static const uint64_t edge64[] = {
	0, 1, 2, 3, 7, UINT64_MAX, 0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ull,
	0x8000000000000000ull, 0x7fffffffffffffffull, 0xffffffff80000000ull, 31, 32, 63, 64,
	0x123456789abcdef0ull, (uint64_t)-7,
};

static const int32_t edge_imm[] = {
	0, 1, -1, 2, 3, 7, -7, 16, 31, 32, 63, 64, 127, 128, -128, 0x10000, INT32_MIN, INT32_MAX,
};

struct alu_op {
	uint8_t op;
	int16_t off; /* 1: signed div/mod */
};

static const struct alu_op alu_ops[] = {
	{ BPF_ADD, 0 }, { BPF_SUB, 0 }, { BPF_MUL, 0 }, { BPF_DIV, 0 }, { BPF_DIV, 1 },
	{ BPF_MOD, 0 }, { BPF_MOD, 1 }, { BPF_OR, 0 },  { BPF_AND, 0 }, { BPF_LSH, 0 },
	{ BPF_RSH, 0 }, { BPF_ARSH, 0 }, { BPF_XOR, 0 }, { BPF_MOV, 0 },
};

/* dst = a; src = b (X form) or imm; op; fold every register into R0. */
static size_t build_alu(struct bpf_insn *p, const struct alu_op *o, bool is64, bool x, uint8_t dst,
			uint8_t src, uint64_t a, uint64_t b)
{
	size_t n = init_regs(p, 0);

	if (x)
		n += lddw(p + n, src, b);
	n += lddw(p + n, dst, a);
	if (x)
		p[n++] = is64 ? BPF_ALU64_REG_OFF(o->op, dst, src, o->off) : BPF_ALU32_REG_OFF(o->op, dst, src, o->off);
	else
		p[n++] = is64 ? BPF_ALU64_IMM_OFF(o->op, dst, (int32_t)b, o->off)
			      : BPF_ALU32_IMM_OFF(o->op, dst, (int32_t)b, o->off);
	return n + fold_regs(p + n);
}

/* Every operation, both widths, in every register pair and on edge values. */
static void test_alu_matrix(void)
{
	static const uint64_t pairs[][2] = {
		{ 0x123456789abcdef0ull, 7 }, { 0x8000000000000000ull, UINT64_MAX }, { 0xfedcba9876543210ull, 0 },
		{ (uint64_t)-100, 3 }, { 0x80000000, 33 }, { 0xffffffff80000000ull, 0xffffffff },
	};
	struct bpf_insn p[MAX_P];

	for (size_t k = 0; k < ARRAY_SIZE(alu_ops); k++) {
		for (int is64 = 0; is64 < 2; is64++) {
			int before = test_failed_now;

			test_failed_now = 0;
			/* X form: all register pairs (R10 would mix in a stack address) */
			for (uint8_t d = 0; d <= 9; d++)
				for (uint8_t s = 0; s <= 9; s++)
					for (size_t v = 0; v < ARRAY_SIZE(pairs); v++)
						check_prog(p, build_alu(p, &alu_ops[k], is64, true, d, s, pairs[v][0], pairs[v][1]),
							   __LINE__);
			/* X form: all value pairs, in the registers div and shifts care about */
			for (size_t a = 0; a < ARRAY_SIZE(edge64); a++)
				for (size_t b = 0; b < ARRAY_SIZE(edge64); b++) {
					check_prog(p, build_alu(p, &alu_ops[k], is64, true, 1, 2, edge64[a], edge64[b]),
						   __LINE__);
					check_prog(p, build_alu(p, &alu_ops[k], is64, true, 0, 3, edge64[a], edge64[b]),
						   __LINE__);
				}
			/* K form: every destination, every edge immediate */
			for (uint8_t d = 0; d <= 9; d++)
				for (size_t v = 0; v < ARRAY_SIZE(edge_imm); v++)
					for (size_t a = 0; a < ARRAY_SIZE(edge64); a += 3)
						check_prog(p, build_alu(p, &alu_ops[k], is64, false, d, 0, edge64[a],
									(uint64_t)(int64_t)edge_imm[v]),
							   __LINE__);
			if (test_failed_now)
				fprintf(stderr, "  ... in ALU%s op 0x%02x off %d\n", is64 ? "64" : "32", alu_ops[k].op,
					alu_ops[k].off);
			test_failed_now |= before;
		}
	}
}

/* RFC 9669's special cases, against values computed by hand. */
static void test_alu_semantics(void)
{
	/* division by zero: quotient 0, remainder the dividend (ALU32: zero-extended) */
	CHECK_EQ_U64(JR0(BPF_LD_IMM64(BPF_REG_0, 0xffffffff00000005ull), BPF_MOV64_IMM(BPF_REG_1, 0),
			 BPF_ALU64_REG(BPF_DIV, BPF_REG_0, BPF_REG_1), BPF_EXIT_INSN()), 0);
	CHECK_EQ_U64(JR0(BPF_LD_IMM64(BPF_REG_0, 0xffffffff00000005ull), BPF_MOV64_IMM(BPF_REG_1, 0),
			 BPF_ALU64_REG(BPF_MOD, BPF_REG_0, BPF_REG_1), BPF_EXIT_INSN()), 0xffffffff00000005ull);
	CHECK_EQ_U64(JR0(BPF_LD_IMM64(BPF_REG_0, 0xffffffff00000005ull), BPF_MOV64_IMM(BPF_REG_1, 0),
			 BPF_ALU32_REG(BPF_MOD, BPF_REG_0, BPF_REG_1), BPF_EXIT_INSN()), 5);
	CHECK_EQ_U64(JR0(BPF_LD_IMM64(BPF_REG_0, 0xffffffff00000005ull),
			 BPF_ALU32_IMM(BPF_MOD, BPF_REG_0, 0), BPF_EXIT_INSN()), 5);
	CHECK_EQ_U64(JR0(BPF_LD_IMM64(BPF_REG_3, 77), BPF_MOV64_IMM(BPF_REG_1, 0),
			 BPF_ALU64_REG_OFF(BPF_MOD, BPF_REG_3, BPF_REG_1, 1), BPF_MOV64_REG(BPF_REG_0, BPF_REG_3),
			 BPF_EXIT_INSN()), 77);
	/* INT_MIN / -1 does not trap: INT_MIN, remainder 0 */
	CHECK_EQ_U64(JR0(BPF_LD_IMM64(BPF_REG_0, 0x8000000000000000ull), BPF_MOV64_IMM(BPF_REG_1, -1),
			 BPF_ALU64_REG_OFF(BPF_DIV, BPF_REG_0, BPF_REG_1, 1), BPF_EXIT_INSN()),
		     0x8000000000000000ull);
	CHECK_EQ_U64(JR0(BPF_LD_IMM64(BPF_REG_0, 0x8000000000000000ull), BPF_MOV64_IMM(BPF_REG_1, -1),
			 BPF_ALU64_REG_OFF(BPF_MOD, BPF_REG_0, BPF_REG_1, 1), BPF_EXIT_INSN()), 0);
	CHECK_EQ_U64(JR0(BPF_MOV32_IMM(BPF_REG_0, INT32_MIN), BPF_ALU32_IMM_OFF(BPF_DIV, BPF_REG_0, -1, 1),
			 BPF_EXIT_INSN()), 0x80000000);
	CHECK_EQ_U64(JR0(BPF_MOV64_IMM(BPF_REG_0, -7), BPF_ALU64_IMM_OFF(BPF_DIV, BPF_REG_0, 2, 1),
			 BPF_EXIT_INSN()), (uint64_t)-3);
	CHECK_EQ_U64(JR0(BPF_MOV64_IMM(BPF_REG_0, -7), BPF_ALU64_IMM_OFF(BPF_MOD, BPF_REG_0, 2, 1),
			 BPF_EXIT_INSN()), (uint64_t)-1);
	/* ALU64 DIV K divides by the sign-extended immediate */
	CHECK_EQ_U64(JR0(BPF_MOV64_IMM(BPF_REG_0, -1), BPF_ALU64_IMM(BPF_DIV, BPF_REG_0, -2), BPF_EXIT_INSN()), 1);
	/* shifts are masked */
	CHECK_EQ_U64(JR0(BPF_MOV64_IMM(BPF_REG_0, 1), BPF_MOV64_IMM(BPF_REG_4, 65),
			 BPF_ALU64_REG(BPF_LSH, BPF_REG_0, BPF_REG_4), BPF_EXIT_INSN()), 2);
	CHECK_EQ_U64(JR0(BPF_MOV64_IMM(BPF_REG_4, 1), BPF_MOV64_IMM(BPF_REG_0, 33),
			 BPF_ALU32_REG(BPF_LSH, BPF_REG_4, BPF_REG_0), BPF_MOV64_REG(BPF_REG_0, BPF_REG_4),
			 BPF_EXIT_INSN()), 2);
	/* 32-bit operations zero-extend, even with nothing to do */
	CHECK_EQ_U64(JR0(BPF_MOV64_IMM(BPF_REG_0, -1), BPF_ALU32_IMM(BPF_ADD, BPF_REG_0, 0), BPF_EXIT_INSN()),
		     0xffffffff);
	CHECK_EQ_U64(JR0(BPF_MOV64_IMM(BPF_REG_0, -1), BPF_ALU32_IMM(BPF_LSH, BPF_REG_0, 32), BPF_EXIT_INSN()),
		     0xffffffff);
	CHECK_EQ_U64(JR0(BPF_MOV64_IMM(BPF_REG_0, -1), BPF_MOV64_IMM(BPF_REG_1, 0),
			 BPF_ALU32_REG(BPF_ARSH, BPF_REG_0, BPF_REG_1), BPF_EXIT_INSN()), 0xffffffff);
	CHECK_EQ_U64(JR0(BPF_MOV64_IMM(BPF_REG_0, -1), BPF_MOV32_REG(BPF_REG_0, BPF_REG_0), BPF_EXIT_INSN()), 0xffffffff);
	CHECK_EQ_U64(JR0(BPF_MOV64_IMM(BPF_REG_0, -5), BPF_ALU32_IMM(BPF_NEG, BPF_REG_0, 0), BPF_EXIT_INSN()), 5);
	CHECK_EQ_U64(JR0(BPF_MOV64_IMM(BPF_REG_0, 5), BPF_ALU64_IMM(BPF_NEG, BPF_REG_0, 0), BPF_EXIT_INSN()),
		     (uint64_t)-5);
	/* a 64-bit and with a negative immediate keeps the upper half */
	CHECK_EQ_U64(JR0(BPF_LD_IMM64(BPF_REG_0, 0xffff0000ffff0000ull), BPF_ALU64_IMM(BPF_AND, BPF_REG_0, -2),
			 BPF_EXIT_INSN()), 0xffff0000ffff0000ull);
	CHECK_EQ_U64(JR0(BPF_LD_IMM64(BPF_REG_0, 0xffff0000ffff0001ull), BPF_ALU64_IMM(BPF_AND, BPF_REG_0, 0x7fffffff),
			 BPF_EXIT_INSN()), 0x7fff0001);
}

/* movsx and byte swaps on every register. */
static void test_movsx_end(void)
{
	static const struct { uint8_t cls; int16_t off; } sx[] = {
		{ BPF_ALU64, 8 }, { BPF_ALU64, 16 }, { BPF_ALU64, 32 }, { BPF_ALU, 8 }, { BPF_ALU, 16 },
	};
	static const struct { uint8_t cls, src; int32_t w; } end[] = {
		{ BPF_ALU, BPF_TO_LE, 16 }, { BPF_ALU, BPF_TO_LE, 32 }, { BPF_ALU, BPF_TO_LE, 64 },
		{ BPF_ALU, BPF_TO_BE, 16 }, { BPF_ALU, BPF_TO_BE, 32 }, { BPF_ALU, BPF_TO_BE, 64 },
		{ BPF_ALU64, BPF_TO_LE, 16 }, { BPF_ALU64, BPF_TO_LE, 32 }, { BPF_ALU64, BPF_TO_LE, 64 },
	};
	static const uint64_t vals[] = { 0x0123456789abcdefull, 0xfedcba9876543280ull, 0x7f7f7f7f7f7f7f7full };
	struct bpf_insn p[MAX_P];

	for (size_t k = 0; k < ARRAY_SIZE(sx); k++)
		for (uint8_t d = 0; d <= 9; d++)
			for (uint8_t s = 0; s <= 9; s++)
				for (size_t v = 0; v < ARRAY_SIZE(vals); v++) {
					size_t n = init_regs(p, 0);
					n += lddw(p + n, s, vals[v]);
					p[n++] = BPF_RAW_INSN(sx[k].cls | BPF_MOV | BPF_X, d, s, sx[k].off, 0);
					n += fold_regs(p + n);
					check_prog(p, n, __LINE__);
				}
	for (size_t k = 0; k < ARRAY_SIZE(end); k++)
		for (uint8_t d = 0; d <= 9; d++)
			for (size_t v = 0; v < ARRAY_SIZE(vals); v++) {
				size_t n = init_regs(p, 0);
				n += lddw(p + n, d, vals[v]);
				p[n++] = BPF_RAW_INSN(end[k].cls | BPF_END | end[k].src, d, 0, 0, end[k].w);
				n += fold_regs(p + n);
				check_prog(p, n, __LINE__);
			}
	CHECK_EQ_U64(JR0(BPF_LD_IMM64(BPF_REG_0, 0x0123456789abcdefull), BPF_ENDIAN(BPF_TO_BE, BPF_REG_0, 16),
			 BPF_EXIT_INSN()), 0xefcd);
	CHECK_EQ_U64(JR0(BPF_LD_IMM64(BPF_REG_0, 0x0123456789abcdefull), BPF_BSWAP(BPF_REG_0, 64), BPF_EXIT_INSN()),
		     0xefcdab8967452301ull);
	CHECK_EQ_U64(JR0(BPF_MOV64_IMM(BPF_REG_6, 0x80), BPF_MOVSX64_REG(BPF_REG_0, BPF_REG_6, 8), BPF_EXIT_INSN()),
		     (uint64_t)-128);
	CHECK_EQ_U64(JR0(BPF_MOV64_IMM(BPF_REG_2, 0x8000), BPF_MOVSX32_REG(BPF_REG_0, BPF_REG_2, 16),
			 BPF_EXIT_INSN()), 0xffff8000);
}

static const uint8_t jmp_ops[] = {
	BPF_JEQ, BPF_JNE, BPF_JGT, BPF_JGE, BPF_JLT, BPF_JLE, BPF_JSGT, BPF_JSGE, BPF_JSLT, BPF_JSLE, BPF_JSET,
};

/* *(fp-8) = 0; if (dst op src/imm) skip; *(fp-8) = 1; r0 = *(fp-8) + fold. */
static size_t build_jmp(struct bpf_insn *p, uint8_t op, bool is64, bool x, uint8_t dst, uint8_t src, uint64_t a,
			uint64_t b)
{
	size_t n = init_regs(p, 0);
	uint8_t cls = is64 ? BPF_JMP : BPF_JMP32;

	if (x)
		n += lddw(p + n, src, b);
	n += lddw(p + n, dst, a);
	p[n++] = BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0);
	p[n++] = x ? BPF_RAW_INSN(cls | op | BPF_X, dst, src, 1, 0) : BPF_RAW_INSN(cls | op | BPF_K, dst, 0, 1, (int32_t)b);
	p[n++] = BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 1);
	n += fold_regs(p + n);
	n--; /* keep going after the fold: add the flag */
	p[n++] = BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_10, -8);
	p[n++] = BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1);
	p[n++] = BPF_ALU64_IMM(BPF_LSH, BPF_REG_0, 1);
	p[n++] = BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1);
	p[n++] = BPF_EXIT_INSN();
	return n;
}

static void test_jumps(void)
{
	struct bpf_insn p[MAX_P];

	for (size_t k = 0; k < ARRAY_SIZE(jmp_ops); k++)
		for (int is64 = 0; is64 < 2; is64++) {
			for (size_t a = 0; a < ARRAY_SIZE(edge64); a++) {
				for (size_t b = 0; b < ARRAY_SIZE(edge64); b++)
					check_prog(p, build_jmp(p, jmp_ops[k], is64, true, 1, 2, edge64[a], edge64[b]),
						   __LINE__);
				for (size_t v = 0; v < ARRAY_SIZE(edge_imm); v++)
					check_prog(p, build_jmp(p, jmp_ops[k], is64, false, 3, 0, edge64[a],
								(uint64_t)(int64_t)edge_imm[v]),
						   __LINE__);
			}
			for (uint8_t d = 0; d <= 9; d++)
				for (uint8_t s = 0; s <= 9; s++) {
					check_prog(p, build_jmp(p, jmp_ops[k], is64, true, d, s, 5, 0x100000005ull), __LINE__);
					check_prog(p, build_jmp(p, jmp_ops[k], is64, true, d, s, (uint64_t)-5, 3), __LINE__);
				}
		}
	/* taken / not taken, by hand */
	CHECK_EQ_U64(JR0(BPF_MOV64_IMM(BPF_REG_0, 0), BPF_MOV64_IMM(BPF_REG_1, -1),
			 BPF_JMP_IMM(BPF_JSGT, BPF_REG_1, 0, 1), BPF_MOV64_IMM(BPF_REG_0, 1), BPF_EXIT_INSN()), 1);
	CHECK_EQ_U64(JR0(BPF_MOV64_IMM(BPF_REG_0, 0), BPF_MOV64_IMM(BPF_REG_1, -1),
			 BPF_JMP_IMM(BPF_JGT, BPF_REG_1, 0, 1), BPF_MOV64_IMM(BPF_REG_0, 1), BPF_EXIT_INSN()), 0);
	CHECK_EQ_U64(JR0(BPF_MOV64_IMM(BPF_REG_0, 0), BPF_LD_IMM64(BPF_REG_1, 0x100000000ull),
			 BPF_JMP32_IMM(BPF_JEQ, BPF_REG_1, 0, 1), BPF_MOV64_IMM(BPF_REG_0, 1), BPF_EXIT_INSN()), 0);
	CHECK_EQ_U64(JR0(BPF_MOV64_IMM(BPF_REG_0, 0), BPF_LD_IMM64(BPF_REG_1, 0x100000000ull),
			 BPF_JMP_IMM(BPF_JSET, BPF_REG_1, -1, 1), BPF_MOV64_IMM(BPF_REG_0, 1), BPF_EXIT_INSN()), 0);
	CHECK_EQ_U64(JR0(BPF_MOV64_IMM(BPF_REG_0, 0), BPF_LD_IMM64(BPF_REG_1, 0x100000000ull),
			 BPF_JMP32_IMM(BPF_JSET, BPF_REG_1, -1, 1), BPF_MOV64_IMM(BPF_REG_0, 1), BPF_EXIT_INSN()), 1);
}

/* Jumps longer than rel8 in both directions, gotol, and short forms where they fit. */
static void test_long_jumps(void)
{
	struct bpf_insn p[400];
	size_t n = 0;

	/* forward over 200 adds (each 4 bytes: a rel32 jump), then a loop back over them */
	p[n++] = BPF_MOV64_IMM(BPF_REG_0, 0);
	p[n++] = BPF_MOV64_IMM(BPF_REG_6, 3);
	p[n++] = BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 200);
	for (int k = 0; k < 200; k++)
		p[n++] = BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 1000);
	/* loop: 100 adds, three times */
	for (int k = 0; k < 100; k++)
		p[n++] = BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 1);
	p[n++] = BPF_ALU64_IMM(BPF_SUB, BPF_REG_6, 1);
	p[n++] = BPF_JMP_IMM(BPF_JNE, BPF_REG_6, 0, -102);
	p[n++] = BPF_JMP32_A(1); /* gotol over the next */
	p[n++] = BPF_MOV64_IMM(BPF_REG_0, -1);
	p[n++] = BPF_EXIT_INSN();
	CHECK_EQ_U64(check_prog(p, n, __LINE__), 300);

	/* a small branchy program uses only rel8 jumps */
	const struct bpf_insn small[] = {
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 2),
		BPF_MOV64_IMM(BPF_REG_0, 1),
		BPF_JMP_A(1),
		BPF_MOV64_IMM(BPF_REG_0, 2),
		BPF_EXIT_INSN(),
	};
	struct kbpf_prog *prog = NULL;
	struct kbpf_prog_opts po = { .sz = sizeof(po), .trusted_unverified = 1, .jit = 1 };
	size_t size = 0;

	CHECK(kbpf_prog_create(small, ARRAY_SIZE(small), &po, &prog) == 0);
	const uint8_t *code = kbpf_prog_jited_code(prog, &size);
	const struct kbpf_jited_line *lines = kbpf_prog_jited_line_info(prog, NULL);
	/* from instruction 0 on: the entries before it are the same for every program */
	CHECK(code && lines && size > lines[0].start && size - lines[0].start < 64);
	for (size_t k = 0; code && k + 1 < size; k++)
		CHECK(!(code[k] == 0x0f && (code[k + 1] & 0xf0) == 0x80) && code[k] != 0xe9);
	kbpf_prog_free(prog);
}

/* "rX = rY; rX += imm" becomes one lea; not when a jump lands on the add. */
static void test_mov_add_fusion(void)
{
	struct bpf_insn p[MAX_P];

	for (uint8_t d = 0; d <= 9; d++)
		for (uint8_t s = 0; s <= 9; s++)
			for (int sub = 0; sub < 2; sub++) {
				size_t n = init_regs(p, 0);
				p[n++] = BPF_MOV64_REG(d, s);
				p[n++] = sub ? BPF_ALU64_IMM(BPF_SUB, d, INT32_MIN + (int)s) : BPF_ALU64_IMM(BPF_ADD, d, -129 * s);
				n += fold_regs(p + n);
				check_prog(p, n, __LINE__);
			}
	/* SUB INT32_MIN cannot be an lea displacement */
	CHECK_EQ_U64(JR0(BPF_MOV64_IMM(BPF_REG_1, 5), BPF_MOV64_REG(BPF_REG_0, BPF_REG_1),
			 BPF_ALU64_IMM(BPF_SUB, BPF_REG_0, INT32_MIN), BPF_EXIT_INSN()), 0x80000005ull);
	/* the add is a jump target: taken, R0 keeps its value and only gets the add */
	const struct bpf_insn target[] = {
		BPF_MOV64_IMM(BPF_REG_0, 100),
		BPF_MOV64_IMM(BPF_REG_2, 7),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 1),
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_2),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 1),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(jit_check_at(target, ARRAY_SIZE(target), &(struct jit_run){ 0 }, __LINE__), 101);
	CHECK_EQ_U64(jit_check_at(target, ARRAY_SIZE(target), &(struct jit_run){ .args = { 1 } }, __LINE__), 8);
	/* the stack pointer idiom */
	CHECK_EQ_U64(JR0(BPF_ST_MEM(BPF_DW, BPF_REG_10, -248, 42), BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
			 BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -248), BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_3, 0),
			 BPF_EXIT_INSN()), 42);
}

/* "if cond goto +1; goto L" becomes one inverted jcc to L: every condition, both
 * widths, register and immediate forms, edge values, gotol; not when a jump lands on
 * the goto. */
static void test_jcc_ja_fusion(void)
{
	struct bpf_insn p[16];

	for (size_t k = 0; k < ARRAY_SIZE(jmp_ops); k++)
		for (int is64 = 0; is64 < 2; is64++)
			for (size_t a = 0; a < ARRAY_SIZE(edge64); a += 3)
				for (size_t b = 0; b < ARRAY_SIZE(edge64); b += 2)
					for (int form = 0; form < 3; form++) {
						size_t n = 0;
						uint8_t cls = is64 ? BPF_JMP : BPF_JMP32;
						struct bpf_insn l1[2] = { BPF_LD_IMM64(BPF_REG_1, edge64[a]) };
						struct bpf_insn l2[2] = { BPF_LD_IMM64(BPF_REG_2, edge64[b]) };

						p[n++] = BPF_MOV64_IMM(BPF_REG_0, 0);
						p[n++] = l1[0], p[n++] = l1[1];
						p[n++] = l2[0], p[n++] = l2[1];
						if (form == 1) /* immediate form */
							p[n++] = BPF_RAW_INSN(cls | jmp_ops[k] | BPF_K, BPF_REG_1, 0, 1,
									      (int32_t)edge64[b]);
						else
							p[n++] = BPF_RAW_INSN(cls | jmp_ops[k] | BPF_X, BPF_REG_1, BPF_REG_2, 1, 0);
						p[n++] = form == 2 ? BPF_JMP32_A(2) : BPF_JMP_A(2);
						p[n++] = BPF_MOV64_IMM(BPF_REG_0, 1); /* taken */
						p[n++] = BPF_EXIT_INSN();
						p[n++] = BPF_MOV64_IMM(BPF_REG_0, 2); /* not taken */
						p[n++] = BPF_EXIT_INSN();
						uint64_t r = check_prog(p, n, __LINE__);
						CHECK(r == 1 || r == 2);
					}
	/* a backward loop closed by the pair: 5 rounds */
	CHECK_EQ_U64(JR0(BPF_MOV64_IMM(BPF_REG_0, 0), BPF_MOV64_IMM(BPF_REG_1, 0),
			 BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 3), BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 1),
			 BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 5, 1), BPF_JMP_A(-4), BPF_EXIT_INSN()), 15);
	/* the goto is itself a jump target: R1 == 0 jumps straight to it */
	const struct bpf_insn target[] = {
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 1),
		BPF_JMP_IMM(BPF_JGT, BPF_REG_1, 10, 1),
		BPF_JMP_A(2),
		BPF_MOV64_IMM(BPF_REG_0, 1),
		BPF_EXIT_INSN(),
		BPF_MOV64_IMM(BPF_REG_0, 2),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(jit_check_at(target, ARRAY_SIZE(target), &(struct jit_run){ 0 }, __LINE__), 2);
	CHECK_EQ_U64(jit_check_at(target, ARRAY_SIZE(target), &(struct jit_run){ .args = { 11 } }, __LINE__), 1);
	CHECK_EQ_U64(jit_check_at(target, ARRAY_SIZE(target), &(struct jit_run){ .args = { 5 } }, __LINE__), 2);
}

/* Loads and stores: every size, sign-extending loads, every base and value register,
 * displacements of 0, 8 and 32 bits, and the stack. */
static void test_memory(void)
{
	static const int16_t offs[] = { 0, 1, 127, 128, -128, -129, 1000, 32767, -32768 };
	static const uint8_t sizes[] = { BPF_B, BPF_H, BPF_W, BPF_DW };
	enum { BIAS = 32768, MEM = 65600 };
	uint8_t *mem = malloc(MEM);
	struct jit_run r = { .mem = mem, .mem_len = MEM };
	struct bpf_insn p[MAX_P];

	for (size_t k = 0; k < MEM; k++)
		mem[k] = (uint8_t)(k * 37 + 11);
	for (size_t z = 0; z < ARRAY_SIZE(sizes); z++) {
		for (int sx = 0; sx < 2; sx++) {
			if (sx && sizes[z] == BPF_DW)
				continue;
			for (uint8_t base = 0; base <= 9; base++)
				for (uint8_t d = 0; d <= 9; d++)
					for (size_t o = 0; o < ARRAY_SIZE(offs); o += (d == base ? 1 : 4)) {
						size_t n = 0;
						p[n++] = BPF_MOV64_REG(base, BPF_REG_1);
						p[n++] = BPF_ALU64_IMM(BPF_ADD, base, BIAS);
						p[n++] = sx ? BPF_LDX_MEMSX(sizes[z], d, base, offs[o])
							    : BPF_LDX_MEM(sizes[z], d, base, offs[o]);
						p[n++] = BPF_MOV64_REG(BPF_REG_0, d);
						p[n++] = BPF_EXIT_INSN();
						jit_check_at(p, n, &r, __LINE__);
					}
		}
		for (uint8_t base = 0; base <= 9; base++) {
			/* ST imm */
			for (size_t o = 0; o < ARRAY_SIZE(offs); o++) {
				size_t n = 0;
				p[n++] = BPF_MOV64_REG(base, BPF_REG_1);
				p[n++] = BPF_ALU64_IMM(BPF_ADD, base, BIAS);
				p[n++] = BPF_ST_MEM(sizes[z], base, offs[o], o & 1 ? -2 : 0x12345678);
				p[n++] = BPF_MOV64_IMM(BPF_REG_0, 0);
				p[n++] = BPF_EXIT_INSN();
				jit_check_at(p, n, &r, __LINE__);
			}
			/* STX from every register (the pointer itself too: it is the same on both runs) */
			for (uint8_t s = 0; s <= 9; s++) {
				size_t n = init_regs(p, 1u << BPF_REG_1);
				p[n++] = BPF_MOV64_REG(base, BPF_REG_1);
				p[n++] = BPF_ALU64_IMM(BPF_ADD, base, BIAS);
				if (s != base && s != BPF_REG_1)
					n += lddw(p + n, s, 0x8182838485868788ull);
				p[n++] = BPF_STX_MEM(sizes[z], base, s, offs[s % ARRAY_SIZE(offs)]);
				p[n++] = BPF_MOV64_IMM(BPF_REG_0, 0);
				p[n++] = BPF_EXIT_INSN();
				jit_check_at(p, n, &r, __LINE__);
			}
		}
		/* the stack: store from every register, load back into every register */
		for (uint8_t s = 0; s <= 9; s++) {
			size_t n = init_regs(p, 0);
			p[n++] = BPF_ST_MEM(BPF_DW, BPF_REG_10, -512, 0);
			p[n++] = BPF_ST_MEM(BPF_DW, BPF_REG_10, -16, 0);
			p[n++] = BPF_ST_MEM(BPF_DW, BPF_REG_10, -136, 0);
			p[n++] = BPF_STX_MEM(sizes[z], BPF_REG_10, s, -16);
			p[n++] = BPF_STX_MEM(sizes[z], BPF_REG_10, s, -136);
			p[n++] = BPF_STX_MEM(sizes[z], BPF_REG_10, s, -512);
			p[n++] = BPF_LDX_MEM(sizes[z], (uint8_t)(9 - s), BPF_REG_10, -16);
			p[n++] = BPF_LDX_MEMSX(sizes[z] == BPF_DW ? BPF_W : sizes[z], s, BPF_REG_10, -136);
			p[n++] = BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_10, -512);
			n += fold_regs(p + n);
			check_prog(p, n, __LINE__);
		}
	}
	/* by hand: sign extension and little-endian order */
	mem[BIAS] = 0x80;
	CHECK_EQ_U64(jit_check_at((const struct bpf_insn[]){ BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, BIAS),
							      BPF_LDX_MEMSX(BPF_B, BPF_REG_0, BPF_REG_1, 0),
							      BPF_EXIT_INSN() },
				  3, &r, __LINE__),
		     (uint64_t)-128);
	CHECK_EQ_U64(jit_check_at((const struct bpf_insn[]){ BPF_ST_MEM(BPF_H, BPF_REG_1, 0, 0x1234),
							      BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_1, 1),
							      BPF_EXIT_INSN() },
				  3, &r, __LINE__),
		     0x12);
	free(mem);
}

static const int32_t atomic_ops[] = {
	BPF_ADD, BPF_OR, BPF_AND, BPF_XOR, BPF_ADD | BPF_FETCH, BPF_OR | BPF_FETCH, BPF_AND | BPF_FETCH,
	BPF_XOR | BPF_FETCH, BPF_XCHG, BPF_CMPXCHG,
};

/* Every atomic operation, both sizes, every base and value register (R0 is cmpxchg's
 * comparand and the JIT's cmpxchg-loop register), memory and registers compared. */
static void test_atomics(void)
{
	uint64_t mem[32];
	struct jit_run r = { .mem = mem, .mem_len = sizeof(mem) };
	struct bpf_insn p[MAX_P];

	for (size_t k = 0; k < 32; k++)
		mem[k] = 0x0f0f0f0ff0f0f0f0ull * (k + 1);
	for (size_t k = 0; k < ARRAY_SIZE(atomic_ops); k++)
		for (int is64 = 0; is64 < 2; is64++)
			for (uint8_t base = 0; base <= 9; base++)
				for (uint8_t s = 0; s <= 9; s++)
					for (int hit = 0; hit < 2; hit++) {
						size_t n = init_regs(p, 1u << BPF_REG_1 | 1u << base);
						int16_t off = (int16_t)(8 * (s + 1) + (is64 ? 0 : 4));

						if (base != BPF_REG_1)
							p[n++] = BPF_MOV64_REG(base, BPF_REG_1);
						if (base != BPF_REG_1)
							n += lddw(p + n, BPF_REG_1, 0x1111);
						p[n++] = BPF_ALU64_IMM(BPF_ADD, base, 8);
						/* cmpxchg: make the comparison succeed on the second variant */
						if (hit && base != BPF_REG_0)
							p[n++] = is64 ? BPF_LDX_MEM(BPF_DW, BPF_REG_0, base, off)
								      : BPF_LDX_MEM(BPF_W, BPF_REG_0, base, off);
						p[n++] = BPF_ATOMIC_OP(is64 ? BPF_DW : BPF_W, atomic_ops[k], base, s, off);
						n += fold_regs(p + n);
						jit_check_at(p, n, &r, __LINE__);
					}
	/* by hand */
	mem[0] = 10;
	CHECK_EQ_U64(jit_check_at((const struct bpf_insn[]){
					  BPF_MOV64_IMM(BPF_REG_2, 5),
					  BPF_ATOMIC_OP(BPF_DW, BPF_ADD | BPF_FETCH, BPF_REG_1, BPF_REG_2, 0),
					  BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 0),
					  BPF_ALU64_IMM(BPF_LSH, BPF_REG_0, 8),
					  BPF_ALU64_REG(BPF_OR, BPF_REG_0, BPF_REG_2),
					  BPF_EXIT_INSN() },
				  6, &r, __LINE__),
		     15 << 8 | 10);
	mem[0] = 0xffffffff00000003ull;
	CHECK_EQ_U64(jit_check_at((const struct bpf_insn[]){
					  BPF_LD_IMM64(BPF_REG_0, 0x7700000003ull), /* low half matches */
					  BPF_MOV64_IMM(BPF_REG_2, 9),
					  BPF_ATOMIC_OP(BPF_W, BPF_CMPXCHG, BPF_REG_1, BPF_REG_2, 0),
					  BPF_EXIT_INSN() },
				  5, &r, __LINE__),
		     3);
	CHECK_EQ_U64(mem[0], 0xffffffff00000009ull);
	mem[0] = 6;
	CHECK_EQ_U64(jit_check_at((const struct bpf_insn[]){
					  BPF_MOV64_IMM(BPF_REG_0, 3),
					  BPF_ATOMIC_OP(BPF_DW, BPF_OR | BPF_FETCH, BPF_REG_1, BPF_REG_0, 0),
					  BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, 0),
					  BPF_ALU64_IMM(BPF_LSH, BPF_REG_0, 8),
					  BPF_ALU64_REG(BPF_OR, BPF_REG_0, BPF_REG_2),
					  BPF_EXIT_INSN() },
				  6, &r, __LINE__),
		     6 << 8 | 7);
}

/* LDDW: plain immediates of every shape and the map pseudo forms. */
static void test_lddw(void)
{
	static const uint64_t vals[] = { 0, 1, 0xffffffff, 0x80000000, 0xffffffff80000000ull, 0x100000000ull,
					 UINT64_MAX, 0x0123456789abcdefull };
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_ARRAY, .key_size = 4,
				    .value_size = 16, .max_entries = 1 };
	struct kbpf_map *map = NULL;
	struct bpf_insn p[MAX_P];

	for (size_t v = 0; v < ARRAY_SIZE(vals); v++)
		for (uint8_t d = 0; d <= 9; d++) {
			size_t n = init_regs(p, 0);
			n += lddw(p + n, d, vals[v]);
			n += fold_regs(p + n);
			check_prog(p, n, __LINE__);
		}
	CHECK(kbpf_map_create(&def, &map) == 0);
	if (!map)
		return;
	struct kbpf_map *maps[] = { map };
	struct jit_run r = { .maps = maps, .nr_maps = 1 };
	const struct bpf_insn prog[] = {
		BPF_LD_MAP_VALUE(BPF_REG_1, 0, 8),
		BPF_ST_MEM(BPF_DW, BPF_REG_1, 0, 42),
		BPF_LD_MAP_FD(BPF_REG_2, 0),
		BPF_LD_MAP_VALUE(BPF_REG_3, 0, 0),
		BPF_ALU64_REG(BPF_SUB, BPF_REG_1, BPF_REG_3), /* 8 */
		BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_3, 8),  /* 42 */
		BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(jit_check_at(prog, ARRAY_SIZE(prog), &r, __LINE__), 50);
	kbpf_map_free(map);
}

/* --- calls ------------------------------------------------------------------------ */

static uint64_t seen_args[5];

static uint64_t h_mix(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5)
{
	seen_args[0] = r1, seen_args[1] = r2, seen_args[2] = r3, seen_args[3] = r4, seen_args[4] = r5;
	return r1 + 3 * r2 + 5 * r3 + 7 * r4 + 11 * r5;
}

static uint64_t h_seven(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5)
{
	(void)r1, (void)r2, (void)r3, (void)r4, (void)r5;
	return 7;
}

/* A helper is called with R1-R5 as they are, returns in R0, and R6-R9 survive it. */
static void test_helper_calls(void)
{
	struct kbpf_host *host = kbpf_host_new();
	struct jit_run r = { .host = host };
	struct bpf_insn p[MAX_P];
	size_t n = 0;

	CHECK(host && kbpf_host_helper_register(host, 1, "mix", h_mix) == 0);
	CHECK(kbpf_host_helper_register(host, 7, "seven", h_seven) == 0);
	n = init_regs(p, 0);
	p[n++] = BPF_EMIT_CALL(1);
	p[n++] = BPF_MOV64_REG(BPF_REG_1, BPF_REG_0); /* R1-R5 are clobbered by a call */
	p[n++] = BPF_MOV64_IMM(BPF_REG_2, 0);
	p[n++] = BPF_MOV64_IMM(BPF_REG_3, 0);
	p[n++] = BPF_MOV64_IMM(BPF_REG_4, 0);
	p[n++] = BPF_MOV64_IMM(BPF_REG_5, 0);
	n += fold_regs(p + n);
	memset(seen_args, 0, sizeof(seen_args));
	jit_check_at(p, n, &r, __LINE__);
	for (int k = 0; k < 5; k++)
		CHECK_EQ_U64(seen_args[k], 0x0101010101010101ull * (k + 2) ^ 0x8000000000000000ull);
	/* R0 = helper's value; a call from inside a loop; the stack survives calls */
	const struct bpf_insn loop[] = {
		BPF_MOV64_IMM(BPF_REG_6, 0),
		BPF_MOV64_IMM(BPF_REG_7, 10),
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 1000),
		BPF_EMIT_CALL(7),
		BPF_ALU64_REG(BPF_ADD, BPF_REG_6, BPF_REG_0),
		BPF_ALU64_IMM(BPF_SUB, BPF_REG_7, 1),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_7, 0, -4),
		BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_10, -8),
		BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_6),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(jit_check_at(loop, ARRAY_SIZE(loop), &r, __LINE__), 1070);
	kbpf_host_free(host);
}

/* main calls f1 calls f2 … f(depth-1): each adds 1 to R0 and keeps R6 its own. */
static size_t build_chain(struct bpf_insn *p, int depth)
{
	size_t n = 0;

	/* function k (0 = main) at index 5k: r6 = k; call next (or r0 = 100); r0 += r6 + 1 */
	for (int k = 0; k < depth; k++) {
		p[n++] = BPF_MOV64_IMM(BPF_REG_6, k);
		if (k + 1 < depth) {
			p[n++] = BPF_CALL_REL(3);
			p[n++] = BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_6);
			p[n++] = BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 1);
		} else {
			p[n++] = BPF_MOV64_IMM(BPF_REG_0, 100);
			p[n++] = BPF_JMP_A(0);
			p[n++] = BPF_JMP_A(0);
		}
		p[n++] = BPF_EXIT_INSN();
	}
	return n;
}

/* BPF-to-BPF calls: R6-R9 survive, each frame has its own stack, 8 frames at most. */
static void test_local_calls(void)
{
	struct bpf_insn p[MAX_P];
	size_t n;

	for (int depth = 1; depth <= 8; depth++) {
		int sum = 100;
		for (int k = 0; k < depth - 1; k++)
			sum += k + 1;
		n = build_chain(p, depth);
		CHECK_EQ_U64(check_prog(p, n, __LINE__), sum);
	}
	/* nine frames: stopped with -E2BIG, and R0 reads 0 */
	n = build_chain(p, 9);
	CHECK_EQ_U64(jit_check_at(p, n, &(struct jit_run){ .expect_ret = -E2BIG }, __LINE__), 0);

	/* recursion: f(n) = n + f(n - 1); main + f(6..0) is 8 frames, f(7) one too many */
	for (int top = 0; top <= 7; top++) {
		const struct bpf_insn rec[] = {
			BPF_MOV64_IMM(BPF_REG_1, top),
			BPF_MOV64_IMM(BPF_REG_6, 1000),
			BPF_CALL_REL(2),
			BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_6), /* R6 survives: +1000 */
			BPF_EXIT_INSN(),
			/* f: */
			BPF_MOV64_IMM(BPF_REG_0, 0),
			BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 6),
			BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
			BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_1, -8),
			BPF_ALU64_IMM(BPF_SUB, BPF_REG_1, 1),
			BPF_CALL_REL(-6),
			BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_10, -8), /* this frame's stack is intact */
			BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1),
			BPF_EXIT_INSN(),
		};
		bool fits = top <= 6;
		uint64_t r0 = jit_check_at(rec, ARRAY_SIZE(rec), &(struct jit_run){ .expect_ret = fits ? 0 : -E2BIG },
					   __LINE__);
		CHECK_EQ_U64(r0, fits ? (uint64_t)(1000 + top * (top + 1) / 2) : 0);
	}

	/* A stop deep inside must give back every callee-saved register: run it many
	 * times from a function with many values live across the call. */
	n = build_chain(p, 9);
	struct kbpf_prog *prog = NULL;
	struct kbpf_prog_opts po = { .sz = sizeof(po), .trusted_unverified = 1, .jit = 1 };
	CHECK(kbpf_prog_create(p, n, &po, &prog) == 0 && kbpf_prog_is_jited(prog));
	volatile uint64_t a = 1, b = 2, c = 3, d = 4, e = 5, f = 6;
	uint64_t acc = 0, r0 = 1;
	for (int k = 0; k < 1000; k++) {
		uint64_t x = a + k, y = b * k, z = c ^ k, w = d - k, u = e | k, v = f & k;
		CHECK(kbpf_prog_run(prog, NULL, &r0) == -E2BIG && r0 == 0);
		acc += (x ^ y) + (z ^ w) + (u ^ v) + x * y * z * w * u * v;
	}
	uint64_t expect = 0;
	for (int k = 0; k < 1000; k++) {
		uint64_t x = 1 + k, y = 2 * (uint64_t)k, z = 3 ^ k, w = 4 - (uint64_t)k, u = 5 | k, v = 6 & k;
		expect += (x ^ y) + (z ^ w) + (u ^ v) + x * y * z * w * u * v;
	}
	CHECK_EQ_U64(acc, expect);
	kbpf_prog_free(prog);
}

/* callx: the helper id in a register; an unknown one stops with -EINVAL, also from a
 * nested frame. */
static void test_callx(void)
{
	struct kbpf_host *host = kbpf_host_new();
	struct jit_run r = { .host = host };

	CHECK(host && kbpf_host_helper_register(host, 7, "seven", h_seven) == 0);
	for (uint8_t reg = 0; reg <= 9; reg++) {
		const struct bpf_insn ok[] = {
			BPF_MOV64_IMM(reg, 7),
			BPF_RAW_INSN(BPF_JMP | BPF_CALL | BPF_X, reg, 0, 0, 0),
			BPF_EXIT_INSN(),
		};
		CHECK_EQ_U64(jit_check_at(ok, ARRAY_SIZE(ok), &r, __LINE__), 7);
	}
	static const int32_t bad_ids[] = { 0, 6, 8, 100000, -1 };
	for (size_t k = 0; k < ARRAY_SIZE(bad_ids); k++) {
		const struct bpf_insn bad[] = {
			BPF_MOV64_IMM(BPF_REG_0, 1),
			BPF_CALL_REL(1),
			BPF_EXIT_INSN(),
			BPF_MOV64_IMM(BPF_REG_6, 1),
			BPF_CALL_REL(1),
			BPF_EXIT_INSN(),
			BPF_MOV64_IMM(BPF_REG_6, bad_ids[k]),
			BPF_RAW_INSN(BPF_JMP | BPF_CALL | BPF_X, BPF_REG_6, 0, 0, 0),
			BPF_EXIT_INSN(),
		};
		r.expect_ret = -EINVAL;
		CHECK_EQ_U64(jit_check_at(bad, ARRAY_SIZE(bad), &r, __LINE__), 0);
	}
	kbpf_host_free(host);
	/* no host at all: every id is unknown */
	const struct bpf_insn none[] = {
		BPF_MOV64_IMM(BPF_REG_1, 1),
		BPF_RAW_INSN(BPF_JMP | BPF_CALL | BPF_X, BPF_REG_1, 0, 0, 0),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(jit_check_at(none, ARRAY_SIZE(none), &(struct jit_run){ .expect_ret = -EINVAL }, __LINE__), 0);
}

/* An unresolved __weak kfunc (imm 0) stops the run when reached, like the interpreter. */
static void test_unresolved_kfunc(void)
{
	const struct bpf_insn prog[] = {
		BPF_MOV64_IMM(BPF_REG_0, 1),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 1),
		BPF_CALL_KFUNC(0, 0),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(jit_check_at(prog, ARRAY_SIZE(prog), &(struct jit_run){ 0 }, __LINE__), 1);
	CHECK_EQ_U64(jit_check_at(prog, ARRAY_SIZE(prog), &(struct jit_run){ .args = { 1 }, .expect_ret = -EINVAL },
				  __LINE__),
		     0);
}

/* What the JIT does not take stays on the interpreter: create succeeds, the log says why. */
static void test_fallback(void)
{
	const struct bpf_insn cross[] = {
		BPF_CALL_REL(2),
		BPF_JMP_A(2), /* into the subprogram's body */
		BPF_EXIT_INSN(),
		BPF_MOV64_IMM(BPF_REG_0, 5),
		BPF_EXIT_INSN(),
	};
	char log[256] = "";
	struct kbpf_prog_opts po = { .sz = sizeof(po), .trusted_unverified = 1, .jit = 1, .log_buf = log, .log_size = sizeof(log) };
	struct kbpf_prog *prog = NULL;
	uint64_t r0 = 0;

	CHECK(kbpf_prog_create(cross, ARRAY_SIZE(cross), &po, &prog) == 0);
	CHECK(prog && !kbpf_prog_is_jited(prog));
	CHECK_CONTAINS(log, "JIT: insn 1: jump to insn 4 crosses into another function");
	CHECK(kbpf_prog_run(prog, NULL, &r0) == 0);
	CHECK_EQ_U64(r0, 5);
	size_t size = 1;
	CHECK(kbpf_prog_jited_code(prog, &size) == NULL && size == 0);
	kbpf_prog_free(prog);

	/* and without opts.jit nothing is compiled */
	po.jit = 0;
	CHECK(kbpf_prog_create((const struct bpf_insn[]){ BPF_MOV64_IMM(BPF_REG_0, 1), BPF_EXIT_INSN() }, 2, &po,
			       &prog) == 0);
	CHECK(!kbpf_prog_is_jited(prog));
	kbpf_prog_free(prog);
	CHECK(!kbpf_prog_is_jited(NULL));
	/* an old caller's smaller opts struct (no jit field) is read as far as it goes: it
	 * cannot hold trusted_unverified, so a program without a type is refused */
	struct kbpf_prog_opts old = { .trusted_unverified = 1, .sz = offsetof(struct kbpf_prog_opts, jit) };
	CHECK(kbpf_prog_create((const struct bpf_insn[]){ BPF_MOV64_IMM(BPF_REG_0, 1), BPF_EXIT_INSN() }, 2, &old,
			       &prog) == -EPERM);
	CHECK(prog == NULL);
}

/* The code is mapped read+exec, never writable. */
static void test_wx(void)
{
	struct kbpf_prog *prog = NULL;
	struct kbpf_prog_opts po = { .sz = sizeof(po), .trusted_unverified = 1, .jit = 1 };
	char line[512];
	bool found = false;

	CHECK(kbpf_prog_create((const struct bpf_insn[]){ BPF_MOV64_IMM(BPF_REG_0, 1), BPF_EXIT_INSN() }, 2, &po,
			       &prog) == 0);
	uintptr_t code = (uintptr_t)kbpf_prog_jited_code(prog, NULL);
	FILE *f = fopen("/proc/self/maps", "r");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char perms[8];
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 && code >= lo && code < hi) {
			found = true;
			CHECK_STR(perms, "r-xp");
		}
	}
	if (f)
		fclose(f);
	CHECK(found);
	kbpf_prog_free(prog);
}

/* Without BMI2 the shifts go through cl (rcx is R4): the same matrices on that path. */
static void test_no_bmi2(void)
{
	jit_test_flags = KBPF_JIT_NO_BMI2;
	test_alu_matrix();
	test_alu_semantics();
	jit_test_flags = 0;
}

int main(void)
{
	if (!kbpf_jit_arch_supported()) {
		printf("not an x86-64 host: JIT tests skipped\n");
		return 0;
	}
	RUN(test_alu_semantics);
	RUN(test_alu_matrix);
	RUN(test_movsx_end);
	RUN(test_jumps);
	RUN(test_long_jumps);
	RUN(test_mov_add_fusion);
	RUN(test_jcc_ja_fusion);
	RUN(test_memory);
	RUN(test_atomics);
	RUN(test_lddw);
	RUN(test_helper_calls);
	RUN(test_local_calls);
	RUN(test_callx);
	RUN(test_unresolved_kfunc);
	RUN(test_fallback);
	RUN(test_wx);
	RUN(test_no_bmi2);
	return test_summary();
}
