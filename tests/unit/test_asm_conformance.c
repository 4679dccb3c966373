/* SPDX-License-Identifier: Apache-2.0 */
/* The conformance-dialect assembler (src/isa/asm_conformance.c): the encoding of
 * each mnemonic family, operands, labels, error messages and robustness on garbage. */
#include <errno.h>
#include <stdlib.h>
#include <kbpf/isa.h>
#include "isa/asm_internal.h"
#include "test.h"

static char err[256];

/* Assemble text; on success returns the instruction array (free it) and *cnt. */
static struct bpf_insn *assemble(const char *text, size_t *cnt)
{
	struct bpf_insn *insns = NULL;
	int ret = kbpf_asm_conformance(text, &insns, cnt, err, sizeof(err));

	if (ret) {
		fprintf(stderr, "assembling \"%s\": %d %s\n", text, ret, err);
		return NULL;
	}
	return insns;
}

/* Assemble a one-instruction program; a failure yields an all-0xff instruction. */
static struct bpf_insn one(const char *text)
{
	struct bpf_insn bad, *insns, in;
	size_t cnt = 0;

	memset(&bad, 0xff, sizeof(bad));
	insns = assemble(text, &cnt);
	if (!insns)
		return bad;
	in = cnt == 1 ? insns[0] : bad;
	if (cnt != 1)
		fprintf(stderr, "\"%s\": %zu instructions, expected 1\n", text, cnt);
	free(insns);
	return in;
}

#define CHECK_INSN(in, CODE, DST, SRC, OFF, IMM)        \
	do {                                            \
		struct bpf_insn i_ = (in);              \
		CHECK_EQ_U64(i_.code, CODE);            \
		CHECK_EQ_U64(i_.dst_reg, DST);          \
		CHECK_EQ_U64(i_.src_reg, SRC);          \
		CHECK_EQ_U64((uint16_t)i_.off, (uint16_t)(OFF)); \
		CHECK_EQ_U64((uint32_t)i_.imm, (uint32_t)(IMM)); \
	} while (0)

/* Assembling text must fail with -EINVAL and exactly the message msg. */
static void check_error(const char *text, const char *msg)
{
	struct bpf_insn *insns = (struct bpf_insn *)&insns; /* must be reset to NULL */
	size_t cnt = 99;
	int ret = kbpf_asm_conformance(text, &insns, &cnt, err, sizeof(err));

	CHECK_EQ_U64(ret, -EINVAL);
	CHECK(insns == NULL);
	CHECK_EQ_U64(cnt, 0);
	CHECK_STR(err, msg);
}

static void test_alu(void)
{
	static const struct {
		const char *name;
		uint8_t op;
	} ops[] = {
		{ "add", BPF_ADD }, { "sub", BPF_SUB }, { "mul", BPF_MUL }, { "div", BPF_DIV },
		{ "or", BPF_OR },   { "and", BPF_AND }, { "lsh", BPF_LSH }, { "rsh", BPF_RSH },
		{ "mod", BPF_MOD }, { "xor", BPF_XOR }, { "mov", BPF_MOV }, { "arsh", BPF_ARSH },
	};
	char text[64];

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		snprintf(text, sizeof(text), "%s %%r1, 5", ops[i].name);
		CHECK_INSN(one(text), BPF_ALU64 | ops[i].op | BPF_K, 1, 0, 0, 5);
		snprintf(text, sizeof(text), "%s %%r9, %%r10", ops[i].name);
		CHECK_INSN(one(text), BPF_ALU64 | ops[i].op | BPF_X, 9, 10, 0, 0);
		snprintf(text, sizeof(text), "%s32 %%r0, -1", ops[i].name);
		CHECK_INSN(one(text), BPF_ALU | ops[i].op | BPF_K, 0, 0, 0, -1);
		snprintf(text, sizeof(text), "%s32 %%r3, %%r4", ops[i].name);
		CHECK_INSN(one(text), BPF_ALU | ops[i].op | BPF_X, 3, 4, 0, 0);
	}
}

static void test_signed_div_mod(void)
{
	CHECK_INSN(one("sdiv %r1, 3"), BPF_ALU64 | BPF_DIV | BPF_K, 1, 0, 1, 3);
	CHECK_INSN(one("sdiv32 %r1, %r2"), BPF_ALU | BPF_DIV | BPF_X, 1, 2, 1, 0);
	CHECK_INSN(one("smod %r1, -3"), BPF_ALU64 | BPF_MOD | BPF_K, 1, 0, 1, -3);
	CHECK_INSN(one("smod32 %r1, %r2"), BPF_ALU | BPF_MOD | BPF_X, 1, 2, 1, 0);
}

static void test_neg_movsx_endian(void)
{
	CHECK_INSN(one("neg %r2"), 0x87, 2, 0, 0, 0);
	CHECK_INSN(one("neg32 %r2"), 0x84, 2, 0, 0, 0);
	CHECK_INSN(one("movsx864 %r6, %r5"), 0xbf, 6, 5, 8, 0);
	CHECK_INSN(one("movsx1664 %r0, %r1"), 0xbf, 0, 1, 16, 0);
	CHECK_INSN(one("movsx3264 %r0, %r9"), 0xbf, 0, 9, 32, 0);
	CHECK_INSN(one("movsx832 %r2, %r1"), 0xbc, 2, 1, 8, 0);
	CHECK_INSN(one("movsx1632 %r4, %r3"), 0xbc, 4, 3, 16, 0);
	CHECK_INSN(one("le16 %r0"), 0xd4, 0, 0, 0, 16);
	CHECK_INSN(one("le32 %r1"), 0xd4, 1, 0, 0, 32);
	CHECK_INSN(one("le64 %r1"), 0xd4, 1, 0, 0, 64);
	CHECK_INSN(one("be16 %r0"), 0xdc, 0, 0, 0, 16);
	CHECK_INSN(one("be32 %r0"), 0xdc, 0, 0, 0, 32);
	CHECK_INSN(one("be64 %r0"), 0xdc, 0, 0, 0, 64);
	CHECK_INSN(one("swap16 %r0"), 0xd7, 0, 0, 0, 16);
	CHECK_INSN(one("bswap32 %r0"), 0xd7, 0, 0, 0, 32);
	CHECK_INSN(one("bswap64 %r7"), 0xd7, 7, 0, 0, 64);
}

static void test_lddw(void)
{
	size_t cnt = 0;
	struct bpf_insn *p = assemble("lddw %r0, 0x1122334455667788\nexit", &cnt);

	CHECK(p && cnt == 3);
	if (p && cnt == 3) {
		CHECK_INSN(p[0], 0x18, 0, 0, 0, 0x55667788);
		CHECK_INSN(p[1], 0, 0, 0, 0, 0x11223344);
		CHECK_INSN(p[2], 0x95, 0, 0, 0, 0);
	}
	free(p);
	p = assemble("lddw %r5, -2", &cnt);
	CHECK(p && cnt == 2);
	if (p && cnt == 2) {
		CHECK_INSN(p[0], 0x18, 5, 0, 0, -2);
		CHECK_INSN(p[1], 0, 0, 0, 0, -1);
	}
	free(p);
	p = assemble("lddw %r1, 2147483648", &cnt);
	CHECK(p && cnt == 2 && (uint32_t)p[0].imm == 0x80000000u && p[1].imm == 0);
	free(p);
	p = assemble("lddw %r1, 0xFFFFFFFFFFFFFFFF", &cnt);
	CHECK(p && cnt == 2 && p[0].imm == -1 && p[1].imm == -1);
	free(p);
}

static void test_loads_stores(void)
{
	CHECK_INSN(one("ldxb %r0, [%r1]"), 0x71, 0, 1, 0, 0);
	CHECK_INSN(one("ldxh %r0, [%r1+2]"), 0x69, 0, 1, 2, 0);
	CHECK_INSN(one("ldxw %r0, [%r1+0x2]"), 0x61, 0, 1, 2, 0);
	CHECK_INSN(one("ldxdw %r0, [%r10-8]"), 0x79, 0, 10, -8, 0);
	CHECK_INSN(one("ldxsb %r0, [%r10-1]"), 0x91, 0, 10, -1, 0);
	CHECK_INSN(one("ldxsh %r0, [%r10-2]"), 0x89, 0, 10, -2, 0);
	CHECK_INSN(one("ldxsw %r0, [%r10-4]"), 0x81, 0, 10, -4, 0);
	CHECK_INSN(one("ldxw %r3, [ %r2 + 32767 ]"), 0x61, 3, 2, 32767, 0);
	CHECK_INSN(one("ldxw %r3, [%r2-32768]"), 0x61, 3, 2, -32768, 0);
	CHECK_INSN(one("stb [%r1+2], 0x11"), 0x72, 1, 0, 2, 0x11);
	CHECK_INSN(one("sth [%r1], -1"), 0x6a, 1, 0, 0, -1);
	CHECK_INSN(one("stw [%r10-4], 0xffffffff"), 0x62, 10, 0, -4, -1);
	CHECK_INSN(one("stdw [%r10-8], 5"), 0x7a, 10, 0, -8, 5);
	CHECK_INSN(one("stxb [%r10-1], %r1"), 0x73, 10, 1, -1, 0);
	CHECK_INSN(one("stxh [%r0+6], %r2"), 0x6b, 0, 2, 6, 0);
	CHECK_INSN(one("stxw [%r0], %r3"), 0x63, 0, 3, 0, 0);
	CHECK_INSN(one("stxdw [%r10-16], %r9"), 0x7b, 10, 9, -16, 0);
}

static void test_atomics(void)
{
	CHECK_INSN(one("lock add [%r10-8], %r1"), 0xdb, 10, 1, -8, BPF_ADD);
	CHECK_INSN(one("lock add32 [%r10-4], %r1"), 0xc3, 10, 1, -4, BPF_ADD);
	CHECK_INSN(one("lock fetch add [%r10-8], %r1"), 0xdb, 10, 1, -8, BPF_ADD | BPF_FETCH);
	CHECK_INSN(one("lock or [%r10-8], %r2"), 0xdb, 10, 2, -8, BPF_OR);
	CHECK_INSN(one("lock fetch or32 [%r10-8], %r2"), 0xc3, 10, 2, -8, BPF_OR | BPF_FETCH);
	CHECK_INSN(one("lock and [%r10-8], %r2"), 0xdb, 10, 2, -8, BPF_AND);
	CHECK_INSN(one("lock fetch and32 [%r10-8], %r2"), 0xc3, 10, 2, -8, BPF_AND | BPF_FETCH);
	CHECK_INSN(one("lock xor32 [%r10-8], %r2"), 0xc3, 10, 2, -8, BPF_XOR);
	CHECK_INSN(one("lock fetch xor [%r10-8], %r2"), 0xdb, 10, 2, -8, BPF_XOR | BPF_FETCH);
	CHECK_INSN(one("lock xchg [%r10-8], %r1"), 0xdb, 10, 1, -8, BPF_XCHG);
	CHECK_INSN(one("lock xchg32 [%r10-8], %r1"), 0xc3, 10, 1, -8, BPF_XCHG);
	CHECK_INSN(one("lock cmpxchg [%r10-8], %r1"), 0xdb, 10, 1, -8, BPF_CMPXCHG);
	CHECK_INSN(one("lock cmpxchg32 [%r10-8], %r1"), 0xc3, 10, 1, -8, BPF_CMPXCHG);
	/* xchg and cmpxchg always fetch; a redundant "fetch" changes nothing */
	CHECK_INSN(one("lock fetch cmpxchg [%r10-8], %r1"), 0xdb, 10, 1, -8, BPF_CMPXCHG);
}

static void test_jumps(void)
{
	static const struct {
		const char *name;
		uint8_t op;
	} ops[] = {
		{ "jeq", BPF_JEQ },   { "jgt", BPF_JGT },   { "jge", BPF_JGE },   { "jset", BPF_JSET },
		{ "jne", BPF_JNE },   { "jsgt", BPF_JSGT }, { "jsge", BPF_JSGE }, { "jlt", BPF_JLT },
		{ "jle", BPF_JLE },   { "jslt", BPF_JSLT }, { "jsle", BPF_JSLE },
	};
	char text[64];

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		snprintf(text, sizeof(text), "%s %%r1, 0x80000000, +1", ops[i].name);
		CHECK_INSN(one(text), BPF_JMP | ops[i].op | BPF_K, 1, 0, 1, INT32_MIN);
		snprintf(text, sizeof(text), "%s %%r1, %%r2, -1", ops[i].name);
		CHECK_INSN(one(text), BPF_JMP | ops[i].op | BPF_X, 1, 2, -1, 0);
		snprintf(text, sizeof(text), "%s32 %%r1, -5, 3", ops[i].name);
		CHECK_INSN(one(text), BPF_JMP32 | ops[i].op | BPF_K, 1, 0, 3, -5);
		snprintf(text, sizeof(text), "%s32 %%r1, %%r2, +0", ops[i].name);
		CHECK_INSN(one(text), BPF_JMP32 | ops[i].op | BPF_X, 1, 2, 0, 0);
	}
	CHECK_INSN(one("ja +3"), 0x05, 0, 0, 3, 0);
	CHECK_INSN(one("ja -32768"), 0x05, 0, 0, -32768, 0);
	CHECK_INSN(one("ja32 -70000"), 0x06, 0, 0, 0, -70000);
	CHECK_INSN(one("exit"), 0x95, 0, 0, 0, 0);
}

static void test_calls(void)
{
	size_t cnt = 0;
	struct bpf_insn *p;

	CHECK_INSN(one("call 5"), 0x85, 0, 0, 0, 5);
	CHECK_INSN(one("call helper 6"), 0x85, 0, 0, 0, 6);
	CHECK_INSN(one("call runtime 0x10"), 0x85, 0, BPF_PSEUDO_KFUNC_CALL, 0, 16);
	/* callx: the register goes in dst_reg (bpf_conformance, LLVM >= 19) */
	CHECK_INSN(one("call %r2"), 0x8d, 2, 0, 0, 0);
	CHECK_INSN(one("call local +2"), 0x85, 0, BPF_PSEUDO_CALL, 0, 2);
	p = assemble("call local f\nexit\nf:\nmov %r0, 1\nexit\n", &cnt);
	CHECK(p && cnt == 4);
	if (p && cnt == 4)
		CHECK_INSN(p[0], 0x85, 0, BPF_PSEUDO_CALL, 0, 1);
	free(p);
	p = assemble("f: exit\ncall local f", &cnt);
	CHECK(p && cnt == 2 && p[1].imm == -2);
	free(p);
}

static void test_labels(void)
{
	size_t cnt = 0;
	struct bpf_insn *p;

	/* forward and backward; an lddw counts two slots; label and insn on one line */
	p = assemble("start:\n"
		     "  jeq %r1, 0, done   # forward\n"
		     "  lddw %r0, 1\n"
		     "loop: add %r0, 1\n"
		     "  jlt %r0, 10, loop\n"
		     "  ja32 start\n"
		     "done:\n"
		     "  exit\n",
		     &cnt);
	CHECK(p && cnt == 7);
	if (p && cnt == 7) {
		CHECK_EQ_U64(p[0].off, 5);
		CHECK_EQ_U64(p[4].off, -2);
		CHECK_EQ_U64(p[5].imm, -6);
	}
	free(p);

	/* "exit" with no "exit:" label names the first exit instruction (prime.data) */
	p = assemble("ja exit\nmov %r0, 1\nexit\nmov %r0, 2\nexit", &cnt);
	CHECK(p && cnt == 5 && p[0].off == 1);
	free(p);
	p = assemble("mov %r0, 1\nexit\njeq %r0, 1, exit", &cnt);
	CHECK(p && cnt == 3 && p[2].off == -2);
	free(p);
	/* an explicit "exit:" label takes precedence */
	p = assemble("ja exit\nexit\nexit:\nexit", &cnt);
	CHECK(p && cnt == 3 && p[0].off == 1);
	free(p);
	/* comments, blank lines, CRLF, tabs */
	p = assemble("# header\r\n\r\n\tmov32\t%r0 ,\t1 # set\r\n   \r\nexit\r\n", &cnt);
	CHECK(p && cnt == 2);
	if (p && cnt == 2)
		CHECK_INSN(p[0], 0xb4, 0, 0, 0, 1);
	free(p);
}

static void test_registers_and_numbers(void)
{
	CHECK_INSN(one("mov r10, r3"), 0xbf, 10, 3, 0, 0); /* the '%' is optional */
	CHECK_INSN(one("mov %r0, 0X7fffffff"), 0xb7, 0, 0, 0, 0x7fffffff);
	CHECK_INSN(one("mov %r0, -0x80000000"), 0xb7, 0, 0, 0, INT32_MIN);
	CHECK_INSN(one("mov %r0, 4294967295"), 0xb7, 0, 0, 0, -1);
	CHECK_INSN(one("mov %r0, +7"), 0xb7, 0, 0, 0, 7);
	CHECK_INSN(one("mov %r0, 010"), 0xb7, 0, 0, 0, 10); /* decimal, as bpf_conformance */
}

static void test_errors(void)
{
	check_error("mov %r0, 1\nfoo %r1", "line 2: unknown mnemonic 'foo'");
	check_error("mov%r0, 1", "line 1: unknown mnemonic 'mov%r0,'");
	check_error("mov %r11, 1", "line 1: invalid register '%r11'");
	check_error("mov %r01, 1", "line 1: invalid register '%r01'");
	check_error("mov %x, 1", "line 1: invalid register '%x'");
	check_error("add %r1", "line 1: 'add' takes 2 operands, got 1");
	check_error("neg %r1, 2", "line 1: 'neg' takes 1 operand, got 2");
	check_error("exit %r0", "line 1: 'exit' takes 0 operands, got 1");
	check_error("jeq %r1, 1, +1, 4", "line 1: too many operands");
	check_error("add %r1,, 2", "line 1: empty operand");
	check_error("add %r1, 2,", "line 1: empty operand");
	check_error("mov %r0, 0x100000000", "line 1: immediate '0x100000000' out of range [-2147483648, 4294967295]");
	check_error("mov %r0, -2147483649", "line 1: immediate '-2147483649' out of range [-2147483648, 4294967295]");
	check_error("mov %r0, 12ab", "line 1: invalid immediate '12ab'");
	check_error("mov %r0, 0x", "line 1: invalid immediate '0x'");
	check_error("lddw %r0, 0x10000000000000000", "line 1: invalid immediate '0x10000000000000000'");
	check_error("lddw %r0, -0x8000000000000001", "line 1: immediate '-0x8000000000000001' out of range");
	check_error("ldxw %r0, %r1", "line 1: invalid memory operand '%r1' (expected [%rN+off])");
	check_error("ldxw %r0, [%r1+]", "line 1: invalid memory offset in '[%r1+]'");
	check_error("ldxw %r0, [%r1+-4]", "line 1: invalid memory offset in '[%r1+-4]'");
	check_error("ldxw %r0, [%r1+32768]", "line 1: offset '32768' out of range [0, 32767]");
	check_error("ldxw %r0, [%r1-32769]", "line 1: offset '32769' out of range [0, 32768]");
	check_error("stw [%r1], %r2", "line 1: invalid immediate '%r2'");
	check_error("movsx864 %r1, 5", "line 1: invalid register '5'");
	check_error("ja 40000", "line 1: jump offset '40000' out of range [-32768, 32767]");
	check_error("ja foo-bar", "line 1: invalid jump target 'foo-bar'");
	check_error("exit\nja nowhere", "line 2: undefined label 'nowhere'");
	check_error("mov %r0, 0\nja exit", "line 2: undefined label 'exit'");
	check_error("a:\nexit\n\na:\nexit", "line 4: duplicate label 'a' (first defined at line 1)");
	check_error("1:\nexit", "line 1: invalid label name '1'");
	check_error("lock [%r10-8], %r1", "line 1: 'lock' needs an operation (add, or, and, xor, xchg, cmpxchg)");
	check_error("lock sub [%r10-8], %r1", "line 1: unknown atomic operation 'sub'");
	check_error("lock add [%r10-8]", "line 1: 'lock' takes 2 operands, got 1");
	check_error("call", "line 1: 'call' needs a target");
	check_error("call local", "line 1: 'call local' needs a target");
	check_error("call %r11", "line 1: invalid register '%r11'");
	check_error("call foo", "line 1: invalid immediate 'foo'");
	check_error("", "line 1: no instructions");
	check_error("# nothing\n\nlabel:\n", "line 3: no instructions");
	check_error("[%r1]", "line 1: expected an instruction, found '[%r1]'");
	check_error(NULL, "line 1: no text");
}

/* "JUMP far", n exits, "far: exit" (malloc'ed). */
static char *far_jump_text(const char *jump, size_t n)
{
	char *text = malloc(strlen(jump) + 32 + n * 5), *p = text;

	if (!text)
		return NULL;
	p += sprintf(p, "%s far\n", jump);
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "exit\n");
	sprintf(p, "far: exit\n");
	return text;
}

static void test_label_range(void)
{
	/* 32768 instructions between a jump and its label: one past the 16-bit range */
	const size_t n = 32768;
	char *text = far_jump_text("ja", n);
	struct bpf_insn *insns = NULL;
	size_t cnt = 0;

	CHECK(text);
	CHECK_EQ_U64(kbpf_asm_conformance(text, &insns, &cnt, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "line 1: jump to 'far' is too far for a 16-bit offset (use ja32)");
	free(text);
	/* ja32 keeps its offset in the 32-bit imm */
	text = far_jump_text("ja32", n);
	CHECK(text);
	CHECK_EQ_U64(kbpf_asm_conformance(text, &insns, &cnt, err, sizeof(err)), 0);
	CHECK(insns && cnt == n + 2 && insns[0].imm == (int32_t)n);
	free(insns);
	free(text);
}

static void test_error_buffer(void)
{
	struct bpf_insn *insns = NULL;
	size_t cnt = 0;
	char small[8];

	CHECK_EQ_U64(kbpf_asm_conformance("bogus", &insns, &cnt, NULL, 0), -EINVAL);
	CHECK_EQ_U64(kbpf_asm_conformance("bogus", &insns, &cnt, small, sizeof(small)), -EINVAL);
	CHECK_STR(small, "line 1:");
	CHECK_EQ_U64(kbpf_asm_conformance("exit", NULL, &cnt, NULL, 0), -EINVAL);
	CHECK_EQ_U64(kbpf_asm_conformance("exit", &insns, NULL, NULL, 0), -EINVAL);
}

/* Deterministic pseudo-random garbage: must never crash (run under ASan/UBSan). */
static uint32_t rng_state = 12345;
static uint32_t rnd(void)
{
	rng_state = rng_state * 1103515245u + 12345u;
	return rng_state >> 8;
}

static void test_garbage(void)
{
	static const char *pieces[] = {
		"mov", "mov32", "lddw", "ldxw", "stxdw", "lock", "fetch", "add", "cmpxchg32", "call",
		"local", "ja", "ja32", "jeq", "exit", "le16", "movsx864", "%r1", "%r10", "%r", "[", "]",
		"+", "-", ",", ":", "#", "\n", " ", "\t", "0x", "0xffffffffffffffffff", "-1", "42",
		"L1", "L1:", "exit:", "[%r1+4]", "[%r10-", "\r", "\xff", "\x80", "%r99", "lock fetch",
	};
	char text[512];

	for (int iter = 0; iter < 20000; iter++) {
		size_t len = 0, n = rnd() % 24;
		struct bpf_insn *insns = NULL;
		size_t cnt = 0;
		int ret;

		for (size_t i = 0; i < n; i++) {
			const char *piece = pieces[rnd() % (sizeof(pieces) / sizeof(pieces[0]))];
			size_t pl = strlen(piece);
			if (len + pl + 2 >= sizeof(text))
				break;
			memcpy(text + len, piece, pl);
			len += pl;
			if (rnd() % 3 == 0)
				text[len++] = ' ';
		}
		if (iter % 4 == 0) /* raw bytes too */
			for (size_t i = 0; i < 16 && len + 1 < sizeof(text); i++)
				text[len++] = (char)(rnd() % 255 + 1);
		text[len] = 0;
		err[0] = 0;
		ret = kbpf_asm_conformance(text, &insns, &cnt, err, sizeof(err));
		CHECK(ret == 0 || ret == -EINVAL);
		CHECK(ret == 0 ? insns && cnt > 0 : !insns && !strncmp(err, "line ", 5));
		(void)kbpf_asm_is_conformance(text);
		free(insns);
	}
}

static void test_dialect_detection(void)
{
	CHECK(kbpf_asm_is_conformance("mov %r0, 1\nexit\n"));
	CHECK(kbpf_asm_is_conformance("# comment\nL1: mov32 r0, 1\nexit\n"));
	CHECK(kbpf_asm_is_conformance("ldxw r0, [r1]\nexit"));
	CHECK(!kbpf_asm_is_conformance("r0 = 1\nexit\n"));
	CHECK(!kbpf_asm_is_conformance("call 5\nexit\n"));
	CHECK(!kbpf_asm_is_conformance("if r1 > 0x2 goto pc+3\nw0 = 1\nlock *(u64 *)(r10 -8) += r1\n"));
	CHECK(!kbpf_asm_is_conformance("LBB0_1:\n\tr0 = be16 r0\n\texit"));
	CHECK(!kbpf_asm_is_conformance(""));
	CHECK(!kbpf_asm_is_conformance(NULL));
}

int main(void)
{
	RUN(test_alu);
	RUN(test_signed_div_mod);
	RUN(test_neg_movsx_endian);
	RUN(test_lddw);
	RUN(test_loads_stores);
	RUN(test_atomics);
	RUN(test_jumps);
	RUN(test_calls);
	RUN(test_labels);
	RUN(test_registers_and_numbers);
	RUN(test_errors);
	RUN(test_label_range);
	RUN(test_error_buffer);
	RUN(test_garbage);
	RUN(test_dialect_detection);
	return test_summary();
}
