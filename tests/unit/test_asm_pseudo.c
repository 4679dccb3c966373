/* SPDX-License-Identifier: Apache-2.0 */
/* Pseudo-C assembler: each form (Linux's verifier-log text, kbpf's pseudo forms,
 * llvm-objdump's variants), disassembler round trips over a large instruction set,
 * error messages, and garbage input that must fail cleanly. */
#include <errno.h>
#include <stdlib.h>
#include <kbpf/isa.h>
#include "isa/asm_internal.h"
#include "test.h"

static void dump(const char *what, const struct bpf_insn *in, size_t cnt)
{
	fprintf(stderr, "  %s:\n", what);
	for (size_t i = 0; i < cnt; i++)
		fprintf(stderr, "    %zu: code 0x%02x dst %d src %d off %d imm %d\n", i, in[i].code, in[i].dst_reg,
			in[i].src_reg, in[i].off, in[i].imm);
}

/* Assemble text and compare with want[0..n). */
static void expect_asm(const char *text, const struct bpf_insn *want, size_t n, int line)
{
	struct bpf_insn *got = NULL;
	size_t cnt = 0;
	char err[256] = "";
	int ret = kbpf_asm_pseudo_c(text, &got, &cnt, err, sizeof(err));

	if (ret || cnt != n || memcmp(got, want, n * sizeof(*want))) {
		fprintf(stderr, "%s:%d: assembling \"%s\": ret %d %s\n", __FILE__, line, text, ret, err);
		if (!ret) {
			dump("got", got, cnt);
			dump("want", want, n);
		}
		test_failed_now = 1;
	}
	free(got);
}

#define ASM(text, ...)                                                                             \
	do {                                                                                       \
		const struct bpf_insn want_[] = { __VA_ARGS__ };                                   \
		expect_asm(text, want_, sizeof(want_) / sizeof(want_[0]), __LINE__);               \
	} while (0)

/* Assembling text must fail with exactly this message. */
static void expect_err(const char *text, const char *msg, int line)
{
	struct bpf_insn *got = (struct bpf_insn *)&got; /* must be reset to NULL */
	size_t cnt = 99;
	char err[256] = "";
	int ret = kbpf_asm_pseudo_c(text, &got, &cnt, err, sizeof(err));

	if (ret != -EINVAL || got || cnt || strcmp(err, msg)) {
		fprintf(stderr, "%s:%d: assembling \"%s\": ret %d \"%s\", want \"%s\"\n", __FILE__, line, text, ret,
			err, msg);
		test_failed_now = 1;
	}
	if (!ret)
		free(got);
}

#define ERR(text, msg) expect_err(text, msg, __LINE__)

static const struct bpf_insn EXIT = BPF_EXIT_INSN();

static void test_alu_forms(void)
{
	ASM("r0 = 1", BPF_MOV64_IMM(BPF_REG_0, 1));
	ASM("w0 = 1", BPF_MOV32_IMM(BPF_REG_0, 1));
	ASM("r1 = -1", BPF_MOV64_IMM(BPF_REG_1, -1));
	ASM("r0 = r1", BPF_MOV64_REG(BPF_REG_0, BPF_REG_1));
	ASM("w0 = w1", BPF_MOV32_REG(BPF_REG_0, BPF_REG_1));
	ASM("r0 += r1", BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1));
	ASM("w1 &= 255", BPF_ALU32_IMM(BPF_AND, BPF_REG_1, 255));
	ASM("w1 &= 0xff", BPF_ALU32_IMM(BPF_AND, BPF_REG_1, 255));
	ASM("r10 -= 8", BPF_ALU64_IMM(BPF_SUB, BPF_REG_10, 8));
	ASM("r2 *= r3", BPF_ALU64_REG(BPF_MUL, BPF_REG_2, BPF_REG_3));
	ASM("w2 /= 3", BPF_ALU32_IMM(BPF_DIV, BPF_REG_2, 3));
	ASM("r2 |= 0xffffffff", BPF_ALU64_IMM(BPF_OR, BPF_REG_2, -1));
	ASM("r3 <<= 32", BPF_ALU64_IMM(BPF_LSH, BPF_REG_3, 32));
	ASM("r3 >>= r4", BPF_ALU64_REG(BPF_RSH, BPF_REG_3, BPF_REG_4));
	ASM("r4 %= r5", BPF_ALU64_REG(BPF_MOD, BPF_REG_4, BPF_REG_5));
	ASM("w4 ^= -1", BPF_ALU32_IMM(BPF_XOR, BPF_REG_4, -1));
	ASM("r5 s>>= 63", BPF_ALU64_IMM(BPF_ARSH, BPF_REG_5, 63));
	ASM("r0 = -r0", BPF_ALU64_IMM(BPF_NEG, BPF_REG_0, 0));
	ASM("w3 = - w3", BPF_ALU32_IMM(BPF_NEG, BPF_REG_3, 0));
	ASM("r0 s/= r1", BPF_ALU64_REG_OFF(BPF_DIV, BPF_REG_0, BPF_REG_1, 1));
	ASM("r0 s%= 3", BPF_ALU64_IMM_OFF(BPF_MOD, BPF_REG_0, 3, 1));
	ASM("w0 s/= w1", BPF_ALU32_REG_OFF(BPF_DIV, BPF_REG_0, BPF_REG_1, 1));
	ASM("r0 = (s8)r1", BPF_MOVSX64_REG(BPF_REG_0, BPF_REG_1, 8));
	ASM("r0 = (s32) r1", BPF_MOVSX64_REG(BPF_REG_0, BPF_REG_1, 32));
	ASM("w0 = (s16)w1", BPF_MOVSX32_REG(BPF_REG_0, BPF_REG_1, 16));
	ASM("r1 = be16 r1", BPF_ENDIAN(BPF_TO_BE, BPF_REG_1, 16));
	ASM("r1 = le32 r1", BPF_ENDIAN(BPF_TO_LE, BPF_REG_1, 32));
	ASM("r1 = bswap64 r1", BPF_BSWAP(BPF_REG_1, 64));
	/* Spacing is free. */
	ASM("  r0+=r1  ", BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1));
	ASM("\tr0\t=\t1", BPF_MOV64_IMM(BPF_REG_0, 1));
}

/* Which "rN = value" lines become a 64-bit immediate load. */
static void test_mov_or_lddw(void)
{
	ASM("r1 = 2147483647", BPF_MOV64_IMM(BPF_REG_1, INT32_MAX));
	ASM("r1 = -2147483648", BPF_MOV64_IMM(BPF_REG_1, INT32_MIN));
	ASM("r1 = -0x10", BPF_MOV64_IMM(BPF_REG_1, -16));
	ASM("r1 = 2147483648", BPF_LD_IMM64(BPF_REG_1, 0x80000000ull));
	ASM("r1 = 4294967295", BPF_LD_IMM64(BPF_REG_1, 0xffffffffull));
	ASM("r1 = -2147483649", BPF_LD_IMM64(BPF_REG_1, (uint64_t)-2147483649ll));
	ASM("r1 = 18446744073709551615", BPF_LD_IMM64(BPF_REG_1, ~0ull));
	ASM("r1 = -9223372036854775808", BPF_LD_IMM64(BPF_REG_1, 0x8000000000000000ull));
	/* Linux prints 64-bit immediate loads in hex, so hex means LDDW. */
	ASM("r1 = 0x1122334455667788", BPF_LD_IMM64(BPF_REG_1, 0x1122334455667788ull));
	ASM("r1 = 0x0", BPF_LD_IMM64(BPF_REG_1, 0));
	ASM("r1 = 0x5", BPF_LD_IMM64(BPF_REG_1, 5));
	/* LLVM marks them with "ll". */
	ASM("r1 = 0 ll", BPF_LD_IMM64(BPF_REG_1, 0));
	ASM("r1 = -1 ll", BPF_LD_IMM64(BPF_REG_1, ~0ull));
	ASM("r1 = 0x1122334455667788 ll", BPF_LD_IMM64(BPF_REG_1, 0x1122334455667788ull));
	/* A 32-bit register always gets a mov. */
	ASM("w1 = 0xffffffff", BPF_MOV32_IMM(BPF_REG_1, -1));
	ASM("w1 = 4294967295", BPF_MOV32_IMM(BPF_REG_1, -1));
}

static void test_pseudo_lddw(void)
{
	ASM("r1 = map[fd:5]", BPF_LD_MAP_FD(BPF_REG_1, 5));
	ASM("r1 = map[fd:5][0]+8", BPF_LD_MAP_VALUE(BPF_REG_1, 5, 8));
	ASM("r1 = map[ fd : 5 ] [0] + 8", BPF_LD_MAP_VALUE(BPF_REG_1, 5, 8));
	ASM("r1 = map[idx:2]", BPF_LD_IMM64_RAW(BPF_REG_1, BPF_PSEUDO_MAP_IDX, 2));
	ASM("r1 = map[idx:2][0]+4294967295",
	    BPF_LD_IMM64_RAW_FULL(BPF_REG_1, BPF_PSEUDO_MAP_IDX_VALUE, 0, 0, 2, -1));
	ASM("r1 = btf_id[123]", BPF_LD_IMM64_RAW(BPF_REG_1, BPF_PSEUDO_BTF_ID, 123));
	ASM("r1 = func pc+0\nexit\nexit", BPF_LD_IMM64_RAW(BPF_REG_1, BPF_PSEUDO_FUNC, 0), EXIT, EXIT);
	/* The offset counts from the LDDW's second slot, as Linux does. */
	ASM("r1 = func f\nexit\nf: exit", BPF_LD_IMM64_RAW(BPF_REG_1, BPF_PSEUDO_FUNC, 2), EXIT, EXIT);
}

static void test_memory_forms(void)
{
	ASM("*(u32 *)(r10 -4) = r1", BPF_STX_MEM(BPF_W, BPF_REG_10, BPF_REG_1, -4));
	ASM("*(u64 *)(r10 -8) = 0", BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0));
	ASM("*(u8 *)(r1 +0) = -1", BPF_ST_MEM(BPF_B, BPF_REG_1, 0, -1));
	ASM("*(u16*)(r1)=r2", BPF_STX_MEM(BPF_H, BPF_REG_1, BPF_REG_2, 0));
	ASM("r0 = *(u32 *)(r1 +4)", BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, 4));
	ASM("r0 = *(s8 *)(r1 +0)", BPF_LDX_MEMSX(BPF_B, BPF_REG_0, BPF_REG_1, 0));
	ASM("r0 = *(u64 *)(r10 -32768)", BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_10, -32768));
	ASM("r0 = *(u8 *)skb[12]", BPF_LD_ABS(BPF_B, 12));
	ASM("r0 = *(u16 *)skb[r3 + 4]", BPF_LD_IND(BPF_H, BPF_REG_3, 4));
	ASM("r0 = *(u32 *)skb[r3 + -4]", BPF_LD_IND(BPF_W, BPF_REG_3, -4));
	/* llvm-objdump spellings */
	ASM("r0 = *(u32 *)(r1 + 4)", BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, 4));
	ASM("w0 = *(u16 *)(r1 - 0x2)", BPF_LDX_MEM(BPF_H, BPF_REG_0, BPF_REG_1, -2));
	ASM("*(u32 *)(r10 - 4) = w1", BPF_STX_MEM(BPF_W, BPF_REG_10, BPF_REG_1, -4));
	ASM("r0 = *(u16 *)skb[r3]", BPF_LD_IND(BPF_H, BPF_REG_3, 0));
}

static void test_atomic_forms(void)
{
	ASM("lock *(u64 *)(r1 +0) += r2", BPF_ATOMIC_OP(BPF_DW, BPF_ADD, BPF_REG_1, BPF_REG_2, 0));
	ASM("lock *(u32 *)(r1 +8) |= r2", BPF_ATOMIC_OP(BPF_W, BPF_OR, BPF_REG_1, BPF_REG_2, 8));
	ASM("lock *(u64 *)(r1 -8) &= r2", BPF_ATOMIC_OP(BPF_DW, BPF_AND, BPF_REG_1, BPF_REG_2, -8));
	ASM("lock *(u32 *)(r1 +0) ^= w2", BPF_ATOMIC_OP(BPF_W, BPF_XOR, BPF_REG_1, BPF_REG_2, 0));
	ASM("r2 = atomic64_fetch_add((u64 *)(r1 +0), r2)",
	    BPF_ATOMIC_OP(BPF_DW, BPF_ADD | BPF_FETCH, BPF_REG_1, BPF_REG_2, 0));
	ASM("r2 = atomic_fetch_or((u32 *)(r1 +0), r2)", BPF_ATOMIC_OP(BPF_W, BPF_OR | BPF_FETCH, BPF_REG_1, BPF_REG_2, 0));
	ASM("r2 = atomic64_xchg((u64 *)(r1 +0), r2)", BPF_ATOMIC_OP(BPF_DW, BPF_XCHG, BPF_REG_1, BPF_REG_2, 0));
	ASM("r0 = atomic64_cmpxchg((u64 *)(r1 +0), r0, r2)",
	    BPF_ATOMIC_OP(BPF_DW, BPF_CMPXCHG, BPF_REG_1, BPF_REG_2, 0));
	ASM("r0 = atomic_cmpxchg((u32 *)(r1 +4), r0, r2)", BPF_ATOMIC_OP(BPF_W, BPF_CMPXCHG, BPF_REG_1, BPF_REG_2, 4));
	/* LLVM's spellings */
	ASM("r2 = atomic_fetch_add((u64 *)(r1 + 0), r2)",
	    BPF_ATOMIC_OP(BPF_DW, BPF_ADD | BPF_FETCH, BPF_REG_1, BPF_REG_2, 0));
	ASM("w2 = atomic_fetch_and((u32 *)(r1 + 0), w2)",
	    BPF_ATOMIC_OP(BPF_W, BPF_AND | BPF_FETCH, BPF_REG_1, BPF_REG_2, 0));
	ASM("r2 = xchg_64(r1 + 8, r2)", BPF_ATOMIC_OP(BPF_DW, BPF_XCHG, BPF_REG_1, BPF_REG_2, 8));
	ASM("w2 = xchg32_32(r1 + 0, w2)", BPF_ATOMIC_OP(BPF_W, BPF_XCHG, BPF_REG_1, BPF_REG_2, 0));
	ASM("r0 = cmpxchg_64(r1 + 0, r0, r2)", BPF_ATOMIC_OP(BPF_DW, BPF_CMPXCHG, BPF_REG_1, BPF_REG_2, 0));
	ASM("w0 = cmpxchg32_32(r1 - 8, w0, w2)", BPF_ATOMIC_OP(BPF_W, BPF_CMPXCHG, BPF_REG_1, BPF_REG_2, -8));
}

static void test_jump_forms(void)
{
	ASM("if r1 > 0x2 goto pc+0\nexit", BPF_JMP_IMM(BPF_JGT, BPF_REG_1, 2, 0), EXIT);
	ASM("exit\nif w1 s< w2 goto pc-2", EXIT, BPF_JMP32_REG(BPF_JSLT, BPF_REG_1, BPF_REG_2, -2));
	ASM("if r1 == 0xffffffff goto +0\nexit", BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, -1, 0), EXIT);
	ASM("if r1 & r2 goto +1 <LBB0_2>\nexit\nexit", BPF_JMP_REG(BPF_JSET, BPF_REG_1, BPF_REG_2, 1), EXIT, EXIT);
	ASM("if r1 s>= -1 goto l\nl: exit", BPF_JMP_IMM(BPF_JSGE, BPF_REG_1, -1, 0), EXIT);
	ASM("if r1 s<= r2 goto l\nexit\nl:\nexit", BPF_JMP_REG(BPF_JSLE, BPF_REG_1, BPF_REG_2, 1), EXIT, EXIT);
	ASM("goto pc+1\nexit\nexit", BPF_JMP_A(1), EXIT, EXIT);
	ASM("goto +1\nexit\nexit", BPF_JMP_A(1), EXIT, EXIT);
	ASM("l: goto l", BPF_JMP_A(-1));
	ASM("goto <l>\n<l>:\nexit", BPF_JMP_A(0), EXIT);
	ASM("gotol pc+0\nexit", BPF_JMP32_A(0), EXIT);
	ASM("gotol end\nexit\nend: exit", BPF_JMP32_A(1), EXIT, EXIT);
	ASM("exit", EXIT);
	/* A label may be used before it is defined; several may share an instruction. */
	ASM("if r1 != r2 goto b\na: b: exit", BPF_JMP_REG(BPF_JNE, BPF_REG_1, BPF_REG_2, 0), EXIT);
}

static void test_call_forms(void)
{
	ASM("call bpf_map_lookup_elem#1", BPF_EMIT_CALL(1));
	ASM("call bpf_unspec#0", BPF_EMIT_CALL(0));
	ASM("call unknown#300", BPF_EMIT_CALL(300));
	ASM("call unknown#-1", BPF_EMIT_CALL(-1));
	ASM("call 1", BPF_EMIT_CALL(1));
	ASM("call bpf_trace_printk", BPF_EMIT_CALL(6));
	ASM("call kfunc#123", BPF_CALL_KFUNC(0, 123));
	ASM("call bpf_obj_new_impl#123", BPF_CALL_KFUNC(0, 123));
	ASM("call kfunc#123 off=2", BPF_CALL_KFUNC(2, 123));
	/* A Linux helper name with another id is some kfunc that happens to share it. */
	ASM("call bpf_map_lookup_elem#2", BPF_CALL_KFUNC(0, 2));
	ASM("call pc+1\nexit\nexit", BPF_CALL_REL(1), EXIT, EXIT);
	ASM("call f\nexit\nf: r0 = 0\nexit", BPF_CALL_REL(1), EXIT, BPF_MOV64_IMM(BPF_REG_0, 0), EXIT);
	ASM("call <f>\nexit\n<f>:\nexit", BPF_CALL_REL(1), EXIT, EXIT);
	/* A label wins over a helper of the same name. */
	ASM("call bpf_trace_printk\nexit\nbpf_trace_printk: exit", BPF_CALL_REL(1), EXIT, EXIT);
	ASM("callx r2", BPF_RAW_INSN(BPF_JMP | BPF_CALL | BPF_X, BPF_REG_2, 0, 0, 0));
}

static void test_raw_and_comments(void)
{
	ASM(".insn 0xff, 1, 2, 3, 4", BPF_RAW_INSN(0xff, 1, 2, 3, 4));
	ASM(".insn 0x18, 1, 0, 0, 5\n.insn 0, 0, 0, 0, -1", BPF_LD_IMM64(BPF_REG_1, 0xffffffff00000005ull));
	ASM(".insn 7, 15, 15, 65535, 4294967295", BPF_RAW_INSN(7, 15, 15, -1, -1));
	ASM(".insn 0x07, 0, 0, -32768, -2147483648", BPF_RAW_INSN(7, 0, 0, INT16_MIN, INT32_MIN));
	ASM("r0 = 1 # a comment\n# a line\n; another\n// and another\n\n   \nexit // done",
	    BPF_MOV64_IMM(BPF_REG_0, 1), EXIT);
	ASM("r0 = 1 ; R0_w=1", BPF_MOV64_IMM(BPF_REG_0, 1));
	ASM("r0 = 1\r\nexit\r\n", BPF_MOV64_IMM(BPF_REG_0, 1), EXIT);
	ASM("", );
	ASM("# nothing\n\n", );
}

/* The prefixes of the verifier log / bpftool and of llvm-objdump -d. */
static void test_prefixes(void)
{
	ASM("0: (b7) r0 = 1\n1: (95) exit", BPF_MOV64_IMM(BPF_REG_0, 1), EXIT);
	ASM("0: (18) r1 = map[fd:3]\n2: (85) call bpf_map_lookup_elem#1", BPF_LD_MAP_FD(BPF_REG_1, 3),
	    BPF_EMIT_CALL(1));
	ASM("       0:\tb7 01 00 00 01 00 00 00\tr1 = 1", BPF_MOV64_IMM(BPF_REG_1, 1));
	/* llvm-objdump's "call N" is read with the src_reg its bytes show... */
	ASM("  54:\t85 10 00 00 ff ff ff ff\tcall -1", BPF_CALL_REL(-1));
	ASM("  54:\t85 20 00 00 07 00 00 00\tcall 7", BPF_CALL_KFUNC(0, 7));
	/* ...and what it cannot name (LLVM 14: 32-bit atomic xor) comes from the bytes. */
	ASM("  22:\tc3 31 00 00 a0 00 00 00\t<unknown>", BPF_ATOMIC_OP(BPF_W, BPF_XOR, BPF_REG_1, BPF_REG_3, 0));

	static const char objdump[] =
		"prog.o:\tfile format elf64-bpf\n"
		"\n"
		"Disassembly of section xdp:\n"
		"\n"
		"0000000000000000 <xdp_prog>:\n"
		"       0:\tb7 00 00 00 02 00 00 00\tr0 = 2\n"
		"       1:\t61 12 04 00 00 00 00 00\tr2 = *(u32 *)(r1 + 4)\n"
		"       2:\t61 11 00 00 00 00 00 00\tr1 = *(u32 *)(r1 + 0)\n"
		"       3:\tbf 13 00 00 00 00 00 00\tr3 = r1\n"
		"       4:\t07 03 00 00 0e 00 00 00\tr3 += 14\n"
		"       5:\t2d 23 05 00 00 00 00 00\tif r3 > r2 goto +5 <LBB0_3>\n"
		"       6:\t18 01 00 00 00 00 00 00 00 00 00 00 00 00 00 00\tr1 = 0 ll\n"
		"\t\t0000000000000030:  R_BPF_64_64\tmy_map\n"
		"       8:\t85 00 00 00 01 00 00 00\tcall 1\n"
		"       9:\t15 00 01 00 00 00 00 00\tif r0 == 0 goto +1 <LBB0_3>\n"
		"      10:\tb4 00 00 00 01 00 00 00\tw0 = 1\n"
		"\n"
		"0000000000000058 <LBB0_3>:\n"
		"      11:\t95 00 00 00 00 00 00 00\texit\n";
	ASM(objdump, BPF_MOV64_IMM(BPF_REG_0, 2), BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, 4),
	    BPF_LDX_MEM(BPF_W, BPF_REG_1, BPF_REG_1, 0), BPF_MOV64_REG(BPF_REG_3, BPF_REG_1),
	    BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, 14), BPF_JMP_REG(BPF_JGT, BPF_REG_3, BPF_REG_2, 5),
	    BPF_LD_IMM64(BPF_REG_1, 0), BPF_EMIT_CALL(1), BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1),
	    BPF_MOV32_IMM(BPF_REG_0, 1), EXIT);
}

static void test_errors(void)
{
	ERR("foo bar", "line 1: unknown instruction 'foo bar'");
	ERR("r0 = 1\nr11 = 1", "line 2: bad register 'r11'");
	ERR("r0 = r12", "line 1: bad register 'r12'");
	ERR("r0 = r01", "line 1: bad register 'r01'");
	ERR("r123456789012345678901 = 1", "line 1: bad register 'r123456789012345678901'");
	ERR("r1 += 4294967296", "line 1: value 4294967296 out of range for a 32-bit immediate");
	ERR("r1 += -2147483649", "line 1: value -2147483649 out of range for a 32-bit immediate");
	ERR("r1 = 18446744073709551616", "line 1: value 18446744073709551616 out of range");
	ERR("r1 = -9223372036854775809", "line 1: value -9223372036854775809 out of range for a 64-bit immediate");
	ERR("*(u32 *)(r10 -40000) = r1", "line 1: value 40000 out of range for a 16-bit offset");
	ERR("goto nowhere\nexit", "line 1: undefined label 'nowhere'");
	ERR("call nowhere", "line 1: undefined label 'nowhere'");
	ERR("a:\nexit\na: exit", "line 3: duplicate label 'a' (first defined at line 1)");
	ERR("goto pc+5\nexit", "line 1: jump target 6 is outside the program (2 instructions)");
	ERR("exit\ngoto pc-3", "line 2: jump target -1 is outside the program (2 instructions)");
	ERR("goto end\nexit\nend:", "line 1: jump target 2 is outside the program (2 instructions)");
	ERR("goto pc+40000", "line 1: jump offset 40000 out of range for a 16-bit offset (use gotol)");
	ERR("r0 = r1 r2", "line 1: unexpected 'r2' after the instruction");
	ERR("r0 = w1", "line 1: mixed 32-bit and 64-bit registers");
	ERR("if r1 > w2 goto +0", "line 1: mixed 32-bit and 64-bit registers");
	ERR("if r1 > 2 goto", "line 1: expected a jump target at ''");
	ERR("if r1 > 2 exit", "line 1: expected 'goto' at 'exit'");
	ERR("if r1 <> 2 goto +0", "line 1: expected a number at '> 2 goto +0'");
	ERR("if r1 =< 2 goto +0", "line 1: unknown comparison at '=< 2 goto +0'");
	ERR("w1 = 1 ll", "line 1: 'll' needs a 64-bit register");
	ERR("r0 = -r1", "line 1: negation works in place: expected r0 = -r0");
	ERR("r0 = be16 r1", "line 1: byte swaps work in place: expected r0 = be16 r0");
	ERR("r0 = *(u128 *)(r1 +0)", "line 1: unknown access size 'u128'");
	ERR("r0 = *(u32 *)(w1 +0)", "line 1: expected a 64-bit register at 'w1 +0)'");
	ERR("r1 = *(u8 *)skb[0]", "line 1: packet loads are 'r0 = *(u8|u16|u32 *)skb[...]'");
	ERR("r1 = atomic64_fetch_add((u32 *)(r1 +0), r1)",
	    "line 1: atomic operations take u32 or u64 (atomic64_ takes u64)");
	ERR("r1 = atomic64_fetch_add((u64 *)(r1 +0), r2)",
	    "line 1: the result register must be the value register (r2)");
	ERR("r1 = atomic64_cmpxchg((u64 *)(r1 +0), r0, r2)", "line 1: cmpxchg compares with and returns in r0");
	ERR("r1 = atomic64_nand((u64 *)(r1 +0), r1)", "line 1: unknown atomic operation 'atomic64_nand'");
	ERR("lock *(u8 *)(r1 +0) += r2", "line 1: atomic operations take u32 or u64");
	ERR("lock *(u64 *)(r1 +0) -= r2", "line 1: unknown atomic operation at '-= r2'");
	ERR("r1 = map[id:3]", "line 1: expected map[fd:N] or map[idx:N]");
	ERR("r1 = 12abc", "line 1: bad number '12abc'");
	ERR("r1 = 0x", "line 1: bad number '0x'");
	ERR(".insn 256, 0, 0, 0, 0", "line 1: value 256 out of range for code");
	ERR(".insn 1, 2, 3", "line 1: expected ',' at ''");
	ERR("r0 = 1\n\n  exit now", "line 3: unexpected 'now' after the instruction");
	ERR("w0 = (s32)w1", "line 1: unknown sign-extension 's32'");
	ERR("r1 = foo", "line 1: unknown instruction: bad operand 'foo'");
	ERR("r1 == 2", "line 1: unknown instruction: expected an assignment at '== 2'");
	ERR("*(s8 *)(r1 +0) = r2", "line 1: stores take an unsigned size");
	ERR("*(u64 *)(r1 +0) = w2", "line 1: a u64 store needs a 64-bit register");
}

/* "JUMP far", n movs, "far: exit" */
static char *far_text(const char *jump, size_t n)
{
	char *text = malloc(n * 7 + 64), *p = text;

	p += sprintf(p, "%s far\n", jump);
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "r0 = 0\n");
	strcpy(p, "far: exit\n");
	return text;
}

static void test_far_jumps(void)
{
	/* 40000 instructions between a jump and its label: too far for "goto". */
	size_t n = 40000;
	char *text = far_text("goto", n);
	ERR(text, "line 1: jump to 'far' is too far for a 16-bit offset (use gotol)");
	free(text);

	struct bpf_insn *insns;
	size_t cnt;
	char err[128];
	text = far_text("gotol", n);
	CHECK(kbpf_asm_pseudo_c(text, &insns, &cnt, err, sizeof(err)) == 0);
	CHECK(cnt == n + 2);
	if (cnt == n + 2) {
		CHECK(insns[0].code == (BPF_JMP32 | BPF_JA));
		CHECK(insns[0].imm == (int32_t)n);
	}
	free(insns);
	free(text);
}

static void test_api_edges(void)
{
	struct bpf_insn *insns;
	size_t cnt;
	char err[16];

	CHECK(kbpf_asm_pseudo_c(NULL, &insns, &cnt, err, sizeof(err)) == -EINVAL);
	CHECK(kbpf_asm_pseudo_c("exit", NULL, &cnt, NULL, 0) == -EINVAL);
	/* A short error buffer gets a truncated message; no buffer at all is fine. */
	CHECK(kbpf_asm_pseudo_c("foo", &insns, &cnt, err, sizeof(err)) == -EINVAL);
	CHECK_STR(err, "line 1: unknown");
	CHECK(kbpf_asm_pseudo_c("foo", &insns, &cnt, NULL, 0) == -EINVAL);
	/* An empty program is an empty, freeable array. */
	CHECK(kbpf_asm_pseudo_c("", &insns, &cnt, err, sizeof(err)) == 0);
	CHECK(cnt == 0 && insns != NULL);
	free(insns);

	/* The public entry point: AUTO takes pseudo-C for this text. */
	CHECK(kbpf_asm("r0 = 1\nexit\n", KBPF_ASM_AUTO, &insns, &cnt, err, sizeof(err)) == 0);
	CHECK(cnt == 2 && insns[0].code == (BPF_ALU64 | BPF_MOV | BPF_K) && insns[1].code == (BPF_JMP | BPF_EXIT));
	free(insns);
	CHECK(kbpf_asm("r0 = 1", KBPF_ASM_PSEUDO_C, &insns, &cnt, err, sizeof(err)) == 0);
	free(insns);
	CHECK(kbpf_asm("r0 = 1", (enum kbpf_asm_dialect)42, &insns, &cnt, err, sizeof(err)) == -EINVAL);
	CHECK(insns == NULL && cnt == 0);
}

/* --- round trips --- */

struct gen {
	struct bpf_insn *p;
	size_t n, cap;
};

static void put(struct gen *g, struct bpf_insn in)
{
	if (g->n < g->cap)
		g->p[g->n++] = in;
}

static void put2(struct gen *g, struct bpf_insn lo, struct bpf_insn hi)
{
	put(g, lo);
	put(g, hi);
}

static const int32_t imms[] = { 0, 1, -1, 7, 255, 0x7fff, -4096, INT32_MIN, INT32_MAX };
static const int16_t offs[] = { 0, 4, -4, -8, 32767, -32768 };
#define N(a) (sizeof(a) / sizeof((a)[0]))

static void gen_alu(struct gen *g)
{
	static const uint8_t ops[] = { BPF_ADD, BPF_SUB, BPF_MUL, BPF_DIV, BPF_OR,  BPF_AND, BPF_LSH,
				       BPF_RSH, BPF_MOD, BPF_XOR, BPF_MOV, BPF_ARSH };
	unsigned k = 0;

	for (int cls = 0; cls < 2; cls++) {
		uint8_t c = cls ? BPF_ALU64 : BPF_ALU;
		for (size_t o = 0; o < N(ops); o++) {
			for (size_t i = 0; i < N(imms); i++, k++)
				put(g, BPF_RAW_INSN(c | ops[o] | BPF_K, k % 11, 0, 0, imms[i]));
			for (int r = 0; r < 11; r++, k++)
				put(g, BPF_RAW_INSN(c | ops[o] | BPF_X, r, (k * 3 + 1) % 11, 0, 0));
		}
		for (int r = 0; r < 11; r++) {
			put(g, BPF_RAW_INSN(c | BPF_NEG, r, 0, 0, 0));
			put(g, BPF_RAW_INSN(c | BPF_DIV | BPF_X, r, 10 - r, 1, 0));
			put(g, BPF_RAW_INSN(c | BPF_MOD | BPF_X, r, 10 - r, 1, 0));
			put(g, BPF_RAW_INSN(c | BPF_DIV | BPF_K, r, 0, 1, imms[r % N(imms)]));
			put(g, BPF_RAW_INSN(c | BPF_MOD | BPF_K, r, 0, 1, imms[(r + 3) % N(imms)]));
			put(g, BPF_RAW_INSN(c | BPF_MOV | BPF_X, r, (r + 1) % 11, 8, 0));
			put(g, BPF_RAW_INSN(c | BPF_MOV | BPF_X, r, (r + 2) % 11, 16, 0));
			if (cls)
				put(g, BPF_RAW_INSN(c | BPF_MOV | BPF_X, r, (r + 3) % 11, 32, 0));
		}
	}
	for (int w = 16; w <= 64; w *= 2) {
		put(g, BPF_ENDIAN(BPF_TO_BE, w / 16, w));
		put(g, BPF_ENDIAN(BPF_TO_LE, w / 8, w));
		put(g, BPF_BSWAP(w / 4, w));
	}
}

static void gen_mem(struct gen *g)
{
	static const uint8_t sizes[] = { BPF_B, BPF_H, BPF_W, BPF_DW };
	static const int atomics[] = { BPF_ADD, BPF_OR, BPF_AND, BPF_XOR, BPF_ADD | BPF_FETCH, BPF_OR | BPF_FETCH,
				       BPF_AND | BPF_FETCH, BPF_XOR | BPF_FETCH, BPF_XCHG, BPF_CMPXCHG };
	unsigned k = 0;

	for (size_t s = 0; s < N(sizes); s++) {
		for (size_t o = 0; o < N(offs); o++, k++) {
			put(g, BPF_LDX_MEM(sizes[s], k % 11, (k + 5) % 11, offs[o]));
			put(g, BPF_STX_MEM(sizes[s], (k + 1) % 11, k % 11, offs[o]));
			put(g, BPF_ST_MEM(sizes[s], k % 11, offs[o], imms[k % N(imms)]));
			if (sizes[s] != BPF_DW)
				put(g, BPF_LDX_MEMSX(sizes[s], k % 11, (k + 7) % 11, offs[o]));
		}
		if (sizes[s] == BPF_W || sizes[s] == BPF_DW)
			for (size_t a = 0; a < N(atomics); a++, k++)
				put(g, BPF_ATOMIC_OP(sizes[s], atomics[a], k % 11, (k + 4) % 11, offs[k % N(offs)]));
		if (sizes[s] != BPF_DW) {
			put(g, BPF_LD_ABS(sizes[s], imms[k % N(imms)]));
			put(g, BPF_LD_IND(sizes[s], k % 11, imms[(k + 1) % N(imms)]));
		}
	}
}

static void gen_lddw(struct gen *g)
{
	static const uint64_t vals[] = { 0, 1, 5, 0x7fffffff, 0xffffffff, 0x100000000ull, ~0ull,
					 0x8000000000000000ull, 0x1122334455667788ull };

	for (size_t i = 0; i < N(vals); i++)
		put2(g, BPF_LD_IMM64(i % 11, vals[i]));
	put2(g, BPF_LD_MAP_FD(BPF_REG_1, 5));
	put2(g, BPF_LD_IMM64_RAW_FULL(BPF_REG_2, BPF_PSEUDO_MAP_FD, 0, 0, -1, 0));
	put2(g, BPF_LD_MAP_VALUE(BPF_REG_3, 7, 16));
	put2(g, BPF_LD_MAP_VALUE(BPF_REG_3, 7, -1));
	put2(g, BPF_LD_IMM64_RAW(BPF_REG_4, BPF_PSEUDO_MAP_IDX, 0));
	put2(g, BPF_LD_IMM64_RAW_FULL(BPF_REG_5, BPF_PSEUDO_MAP_IDX_VALUE, 0, 0, 1, 24));
	put2(g, BPF_LD_IMM64_RAW(BPF_REG_6, BPF_PSEUDO_BTF_ID, 4242));
	put2(g, BPF_LD_IMM64_RAW(BPF_REG_7, BPF_PSEUDO_FUNC, 0)); /* target set by aim_jumps() */
}

static void gen_jmp(struct gen *g)
{
	static const uint8_t ops[] = { BPF_JEQ, BPF_JGT, BPF_JGE, BPF_JSET, BPF_JNE, BPF_JSGT,
				       BPF_JSGE, BPF_JLT, BPF_JLE, BPF_JSLT, BPF_JSLE };
	static const int32_t helpers[] = { 0, 1, 2, 130, 209, 210, 1000, -1 };
	unsigned k = 0;

	for (int cls = 0; cls < 2; cls++) {
		uint8_t c = cls ? BPF_JMP32 : BPF_JMP;
		for (size_t o = 0; o < N(ops); o++, k++) {
			put(g, BPF_RAW_INSN(c | ops[o] | BPF_K, k % 11, 0, 0, imms[k % N(imms)]));
			put(g, BPF_RAW_INSN(c | ops[o] | BPF_X, k % 11, (k + 1) % 11, 0, 0));
		}
	}
	put(g, BPF_JMP_A(0));
	put(g, BPF_JMP32_A(0));
	put(g, BPF_CALL_REL(0));
	for (size_t i = 0; i < N(helpers); i++)
		put(g, BPF_EMIT_CALL(helpers[i]));
	put(g, BPF_CALL_KFUNC(0, 123));
	put(g, BPF_CALL_KFUNC(-3, 99));
	put(g, BPF_RAW_INSN(BPF_JMP | BPF_CALL | BPF_X, BPF_REG_4, 0, 0, 0));
	put(g, BPF_EXIT_INSN());
}

/* Point every jump, BPF-to-BPF call and func load somewhere inside the program. */
static void aim_jumps(struct bpf_insn *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t cls = BPF_CLASS(p[i].code), op = BPF_OP(p[i].code);
		int64_t t = (int64_t)((i * 37 + 11) % n), rel = t - (int64_t)i - 1;

		if (p[i].code == KBPF_LDDW_CODE) {
			if (p[i].src_reg == BPF_PSEUDO_FUNC)
				p[i].imm = (int32_t)rel;
			i++;
		} else if ((cls == BPF_JMP || cls == BPF_JMP32) && op != BPF_EXIT) {
			if (op == BPF_CALL)
				p[i].imm = p[i].src_reg == BPF_PSEUDO_CALL ? (int32_t)rel : p[i].imm;
			else if (cls == BPF_JMP32 && op == BPF_JA)
				p[i].imm = (int32_t)rel;
			else
				p[i].off = (int16_t)rel;
		}
	}
}

static size_t gen_all(struct bpf_insn *p, size_t cap)
{
	struct gen g = { .p = p, .cap = cap };

	gen_alu(&g);
	gen_mem(&g);
	gen_lddw(&g);
	gen_jmp(&g);
	aim_jumps(p, g.n);
	return g.n;
}

static char *prog_text(const struct bpf_insn *insns, size_t cnt, const struct kbpf_disasm_opts *opts, int *ret)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	*ret = kbpf_prog_disasm(insns, cnt, opts, f);
	fclose(f);
	return text;
}

static void round_trip(const struct bpf_insn *prog, size_t n, const struct kbpf_disasm_opts *opts, int line)
{
	int ret;
	char *text = prog_text(prog, n, opts, &ret);
	struct bpf_insn *back = NULL;
	size_t cnt = 0;
	char err[256] = "";

	if (ret) {
		fprintf(stderr, "%s:%d: disasm failed %d:\n", __FILE__, line, ret);
		for (char *l = strstr(text, ".insn"); l; l = strstr(l + 1, ".insn"))
			fprintf(stderr, "  %.*s\n", (int)strcspn(l, "\n"), l);
		test_failed_now = 1;
	}
	ret = kbpf_asm_pseudo_c(text, &back, &cnt, err, sizeof(err));
	if (ret || cnt != n) {
		fprintf(stderr, "%s:%d: re-assembly: %d %s (cnt %zu of %zu)\n", __FILE__, line, ret, err, cnt, n);
		test_failed_now = 1;
	} else {
		for (size_t i = 0; i < n; i++) {
			if (memcmp(&back[i], &prog[i], sizeof(prog[i]))) {
				char buf[128];
				kbpf_insn_disasm(prog, n, i, NULL, buf, sizeof(buf));
				fprintf(stderr, "%s:%d: slot %zu (\"%s\") differs after the round trip\n", __FILE__,
					line, i, buf);
				dump("got", &back[i], 1);
				dump("want", &prog[i], 1);
				test_failed_now = 1;
				break;
			}
		}
	}
	free(back);

	/* The public entry point recognises the dialect of disassembler output. */
	back = NULL;
	ret = kbpf_asm(text, KBPF_ASM_AUTO, &back, &cnt, err, sizeof(err));
	if (ret || cnt != n || memcmp(back, prog, n * sizeof(*prog))) {
		fprintf(stderr, "%s:%d: kbpf_asm(AUTO) differs: %d %s\n", __FILE__, line, ret, err);
		test_failed_now = 1;
	}
	free(back);
	free(text);
}

static void test_round_trip(void)
{
	static struct bpf_insn prog[4096];
	size_t n = gen_all(prog, N(prog));
	struct kbpf_disasm_opts idx = { .sz = sizeof(idx), .with_index = 1 };
	struct kbpf_disasm_opts lab = { .sz = sizeof(lab), .with_labels = 1 };
	struct kbpf_disasm_opts both = { .sz = sizeof(both), .with_index = 1, .with_labels = 1 };

	CHECK(n > 700 && n < N(prog));
	round_trip(prog, n, NULL, __LINE__);
	round_trip(prog, n, &idx, __LINE__);
	round_trip(prog, n, &lab, __LINE__);
	round_trip(prog, n, &both, __LINE__);
}

/* Non-canonical encodings come out as ".insn" and still round-trip. */
static void test_round_trip_raw(void)
{
	const struct bpf_insn prog[] = {
		BPF_RAW_INSN(0xff, 1, 2, 3, 4),
		BPF_RAW_INSN(BPF_ALU64 | BPF_MOV | BPF_K, 0, 3, 0, 1),
		BPF_RAW_INSN(BPF_ALU | BPF_MOV | BPF_X, 1, 1, 0, 1), /* zero-extension marker */
		BPF_RAW_INSN(BPF_ALU64 | BPF_ADD | BPF_K, 0, 0, 5, 1),
		BPF_RAW_INSN(BPF_LDX | BPF_MEM | BPF_W, 12, 1, 0, 0),
		BPF_LD_IMM64_RAW_FULL(BPF_REG_1, BPF_PSEUDO_MAP_FD, 0, 0, 3, 9), /* imm in second half */
		BPF_RAW_INSN(KBPF_LDDW_CODE, 1, 0, 0, 0), BPF_RAW_INSN(1, 0, 0, 0, 0), /* bad second half */
		BPF_JMP_A(1000),
		BPF_RAW_INSN(KBPF_LDDW_CODE, 1, 0, 0, 0), /* last: no second half */
	};
	int ret;
	char *text = prog_text(prog, N(prog), NULL, &ret);
	struct bpf_insn *back = NULL;
	size_t cnt = 0;
	char err[128] = "";

	CHECK(ret == -EINVAL);
	CHECK(kbpf_asm_pseudo_c(text, &back, &cnt, err, sizeof(err)) == 0);
	CHECK(cnt == N(prog) && back && !memcmp(back, prog, sizeof(prog)));
	free(back);
	free(text);
}

/* --- garbage --- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 16);
}

/* Assemble anything; on success the result must disassemble too. */
static void try_text(const char *text)
{
	struct bpf_insn *insns = NULL;
	size_t cnt = 0;
	char err[64];
	int ret = kbpf_asm_pseudo_c(text, &insns, &cnt, err, sizeof(err));

	CHECK(ret == 0 || ret == -EINVAL);
	if (ret == 0) {
		int r;
		free(prog_text(insns, cnt, NULL, &r));
	} else {
		CHECK(!strncmp(err, "line ", 5));
	}
	free(insns);
}

static void test_garbage(void)
{
	static const char *const tokens[] = {
		"r1", "w2", "r10", "r11", "=", "+=", "s>>=", "-", "*(u32 *)", "*(s8 *)", "(r10 -4)", "(r1 +",
		"goto", "gotol", "pc+3", "pc-", "+1", "if", "<", ">", "<LBB", "LBB1", "LBB1:", ":", "#1", "#",
		"call", "callx", "exit", "map[fd:", "map[idx:2][0]+", "]", "[", "0x", "0xffffffffffffffffff", "ll",
		"\n", "\n", " ", "(", ")", "lock", "atomic64_fetch_add(", "xchg_64(", "cmpxchg32_32(", ",",
		".insn", "skb[", "bswap16", "be32", "(s16)", "func", "btf_id[", "0:", "(b7)", "b7 00", ";",
		"//", "-2147483649", "4294967295", "99999999999999999999", "r0 = 1\n", "exit\n", "\t",
	};
	char buf[512];

	for (int iter = 0; iter < 20000; iter++) {
		size_t len = 0, want = rnd() % 40;
		for (size_t t = 0; t < want; t++) {
			const char *tok = tokens[rnd() % N(tokens)];
			size_t tl = strlen(tok);
			if (len + tl + 2 >= sizeof(buf))
				break;
			memcpy(buf + len, tok, tl);
			len += tl;
			if (rnd() % 2)
				buf[len++] = ' ';
		}
		buf[len] = '\0';
		try_text(buf);
	}
	for (int iter = 0; iter < 5000; iter++) {
		size_t len = rnd() % (sizeof(buf) - 1);
		for (size_t i = 0; i < len; i++)
			buf[i] = (char)(1 + rnd() % 255);
		buf[len] = '\0';
		try_text(buf);
	}
}

/* Mutate valid disassembly one character at a time. */
static void test_mutations(void)
{
	static struct bpf_insn prog[4096];
	size_t n = gen_all(prog, N(prog));
	struct kbpf_disasm_opts lab = { .sz = sizeof(lab), .with_labels = 1, .with_index = 1 };
	int ret;
	char *text = prog_text(prog, n > 300 ? 300 : n, &lab, &ret);
	size_t len = strlen(text);
	char *copy = malloc(len + 2);
	static const char alphabet[] = "rw0123456789xX+-=*()<>[]:#;, \n\tsulpcabefgkimd.";

	for (int iter = 0; iter < 3000; iter++) {
		memcpy(copy, text, len + 1);
		for (int m = 0; m < 4; m++) {
			size_t at = rnd() % len;
			switch (rnd() % 3) {
			case 0: copy[at] = alphabet[rnd() % (sizeof(alphabet) - 1)]; break;
			case 1: memmove(copy + at, copy + at + 1, len - at); break;
			default: copy[at] = '\n'; break;
			}
		}
		try_text(copy);
	}
	free(copy);
	free(text);
}

int main(void)
{
	RUN(test_alu_forms);
	RUN(test_mov_or_lddw);
	RUN(test_pseudo_lddw);
	RUN(test_memory_forms);
	RUN(test_atomic_forms);
	RUN(test_jump_forms);
	RUN(test_call_forms);
	RUN(test_raw_and_comments);
	RUN(test_prefixes);
	RUN(test_errors);
	RUN(test_far_jumps);
	RUN(test_api_edges);
	RUN(test_round_trip);
	RUN(test_round_trip_raw);
	RUN(test_garbage);
	RUN(test_mutations);
	return test_summary();
}
