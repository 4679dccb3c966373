/* SPDX-License-Identifier: Apache-2.0 */
/* Disassembler: every instruction form's exact text, as Linux 6.1's verifier log prints
 * it (kernel/bpf/disasm.c), kbpf's forms for pseudo LDDWs and kfuncs, the index and label
 * options, and undecodable instructions. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <kbpf/isa.h>
#include "test.h"

/* Disassemble insns[0] and compare the text and the slot count. */
static void expect_opts(const struct bpf_insn *insns, size_t cnt, const struct kbpf_disasm_opts *opts,
			const char *text, int slots, int line)
{
	char buf[256];
	int n = kbpf_insn_disasm(insns, cnt, 0, opts, buf, sizeof(buf));

	if (n != slots || strcmp(buf, text)) {
		fprintf(stderr, "%s:%d: got %d \"%s\", want %d \"%s\"\n", __FILE__, line, n, buf, slots, text);
		test_failed_now = 1;
	}
}

#define DIS(text, ...)                                                                      \
	do {                                                                                \
		const struct bpf_insn in_[] = { __VA_ARGS__ };                              \
		expect_opts(in_, sizeof(in_) / sizeof(in_[0]), NULL, text,                  \
			    (int)(sizeof(in_) / sizeof(in_[0])), __LINE__);                 \
	} while (0)

static void test_alu(void)
{
	DIS("r0 = 1", BPF_MOV64_IMM(BPF_REG_0, 1));
	DIS("w0 = 1", BPF_MOV32_IMM(BPF_REG_0, 1));
	DIS("r1 = -1", BPF_MOV64_IMM(BPF_REG_1, -1));
	DIS("r0 = r1", BPF_MOV64_REG(BPF_REG_0, BPF_REG_1));
	DIS("w9 = w10", BPF_MOV32_REG(BPF_REG_9, BPF_REG_10));
	DIS("r0 += r1", BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1));
	DIS("w1 &= 255", BPF_ALU32_IMM(BPF_AND, BPF_REG_1, 255));
	DIS("r2 -= r3", BPF_ALU64_REG(BPF_SUB, BPF_REG_2, BPF_REG_3));
	DIS("r2 *= 3", BPF_ALU64_IMM(BPF_MUL, BPF_REG_2, 3));
	DIS("w2 /= w3", BPF_ALU32_REG(BPF_DIV, BPF_REG_2, BPF_REG_3));
	DIS("w2 |= 7", BPF_ALU32_IMM(BPF_OR, BPF_REG_2, 7));
	DIS("r3 <<= 32", BPF_ALU64_IMM(BPF_LSH, BPF_REG_3, 32));
	DIS("r3 >>= r4", BPF_ALU64_REG(BPF_RSH, BPF_REG_3, BPF_REG_4));
	DIS("r4 %= r5", BPF_ALU64_REG(BPF_MOD, BPF_REG_4, BPF_REG_5));
	DIS("w4 ^= -1", BPF_ALU32_IMM(BPF_XOR, BPF_REG_4, -1));
	DIS("r5 s>>= 63", BPF_ALU64_IMM(BPF_ARSH, BPF_REG_5, 63));
	DIS("w5 s>>= w6", BPF_ALU32_REG(BPF_ARSH, BPF_REG_5, BPF_REG_6));
	DIS("r0 = -r0", BPF_ALU64_IMM(BPF_NEG, BPF_REG_0, 0));
	DIS("w3 = -w3", BPF_ALU32_IMM(BPF_NEG, BPF_REG_3, 0));
	/* The immediate is printed with %d. */
	DIS("r1 += -2147483648", BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, INT32_MIN));
}

static void test_alu_v4(void)
{
	DIS("r0 s/= r1", BPF_ALU64_REG_OFF(BPF_DIV, BPF_REG_0, BPF_REG_1, 1));
	DIS("r0 s%= 3", BPF_ALU64_IMM_OFF(BPF_MOD, BPF_REG_0, 3, 1));
	DIS("w0 s/= w1", BPF_ALU32_REG_OFF(BPF_DIV, BPF_REG_0, BPF_REG_1, 1));
	DIS("w0 s%= -7", BPF_ALU32_IMM_OFF(BPF_MOD, BPF_REG_0, -7, 1));
	DIS("r0 = (s8)r1", BPF_MOVSX64_REG(BPF_REG_0, BPF_REG_1, 8));
	DIS("r0 = (s16)r1", BPF_MOVSX64_REG(BPF_REG_0, BPF_REG_1, 16));
	DIS("r0 = (s32)r1", BPF_MOVSX64_REG(BPF_REG_0, BPF_REG_1, 32));
	DIS("w0 = (s8)w1", BPF_MOVSX32_REG(BPF_REG_0, BPF_REG_1, 8));
	DIS("w0 = (s16)w1", BPF_MOVSX32_REG(BPF_REG_0, BPF_REG_1, 16));
}

static void test_endian(void)
{
	DIS("r1 = be16 r1", BPF_ENDIAN(BPF_TO_BE, BPF_REG_1, 16));
	DIS("r1 = be32 r1", BPF_ENDIAN(BPF_TO_BE, BPF_REG_1, 32));
	DIS("r1 = be64 r1", BPF_ENDIAN(BPF_TO_BE, BPF_REG_1, 64));
	DIS("r1 = le16 r1", BPF_ENDIAN(BPF_TO_LE, BPF_REG_1, 16));
	DIS("r1 = le32 r1", BPF_ENDIAN(BPF_TO_LE, BPF_REG_1, 32));
	DIS("r2 = le64 r2", BPF_ENDIAN(BPF_TO_LE, BPF_REG_2, 64));
	DIS("r1 = bswap16 r1", BPF_BSWAP(BPF_REG_1, 16));
	DIS("r1 = bswap32 r1", BPF_BSWAP(BPF_REG_1, 32));
	DIS("r9 = bswap64 r9", BPF_BSWAP(BPF_REG_9, 64));
}

static void test_jumps(void)
{
	DIS("if r1 > 0x2 goto pc+3", BPF_JMP_IMM(BPF_JGT, BPF_REG_1, 2, 3));
	DIS("if w1 s< w2 goto pc-4", BPF_JMP32_REG(BPF_JSLT, BPF_REG_1, BPF_REG_2, -4));
	DIS("if r0 == 0x0 goto pc+1", BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1));
	DIS("if r1 == 0xffffffff goto pc+0", BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, -1, 0));
	DIS("if r1 != r2 goto pc+1", BPF_JMP_REG(BPF_JNE, BPF_REG_1, BPF_REG_2, 1));
	DIS("if r1 >= 0x10 goto pc+1", BPF_JMP_IMM(BPF_JGE, BPF_REG_1, 16, 1));
	DIS("if r1 < r2 goto pc+1", BPF_JMP_REG(BPF_JLT, BPF_REG_1, BPF_REG_2, 1));
	DIS("if r1 <= r2 goto pc+1", BPF_JMP_REG(BPF_JLE, BPF_REG_1, BPF_REG_2, 1));
	DIS("if r1 & 0x8 goto pc+1", BPF_JMP_IMM(BPF_JSET, BPF_REG_1, 8, 1));
	DIS("if w1 & w2 goto pc+1", BPF_JMP32_REG(BPF_JSET, BPF_REG_1, BPF_REG_2, 1));
	DIS("if r1 s> r2 goto pc+1", BPF_JMP_REG(BPF_JSGT, BPF_REG_1, BPF_REG_2, 1));
	DIS("if w1 s>= 0x1 goto pc+1", BPF_JMP32_IMM(BPF_JSGE, BPF_REG_1, 1, 1));
	DIS("if r1 s<= 0xfffffffe goto pc+1", BPF_JMP_IMM(BPF_JSLE, BPF_REG_1, -2, 1));
	DIS("goto pc+3", BPF_JMP_A(3));
	DIS("goto pc-1", BPF_JMP_A(-1));
	DIS("goto pc+0", BPF_JMP_A(0));
	DIS("gotol pc+70000", BPF_JMP32_A(70000));
	DIS("may_goto pc+2", BPF_RAW_INSN(BPF_JMP | KBPF_JCOND | BPF_K, 0, KBPF_MAY_GOTO, 2, 0));
	DIS("may_goto pc-3", BPF_RAW_INSN(BPF_JMP | KBPF_JCOND | BPF_K, 0, KBPF_MAY_GOTO, -3, 0));
	DIS("exit", BPF_EXIT_INSN());
}

static void test_memory(void)
{
	DIS("*(u32 *)(r10 -4) = r1", BPF_STX_MEM(BPF_W, BPF_REG_10, BPF_REG_1, -4));
	DIS("*(u8 *)(r1 +0) = r2", BPF_STX_MEM(BPF_B, BPF_REG_1, BPF_REG_2, 0));
	DIS("*(u16 *)(r1 +2) = r2", BPF_STX_MEM(BPF_H, BPF_REG_1, BPF_REG_2, 2));
	DIS("*(u64 *)(r10 -8) = 0", BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0));
	DIS("*(u32 *)(r10 -8) = -5", BPF_ST_MEM(BPF_W, BPF_REG_10, -8, -5));
	DIS("r0 = *(u32 *)(r1 +4)", BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, 4));
	DIS("r0 = *(u64 *)(r10 -32768)", BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_10, -32768));
	DIS("r0 = *(u8 *)(r1 +32767)", BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_1, 32767));
	DIS("r0 = *(s8 *)(r1 +0)", BPF_LDX_MEMSX(BPF_B, BPF_REG_0, BPF_REG_1, 0));
	DIS("r0 = *(s16 *)(r1 +2)", BPF_LDX_MEMSX(BPF_H, BPF_REG_0, BPF_REG_1, 2));
	DIS("r0 = *(s32 *)(r1 -4)", BPF_LDX_MEMSX(BPF_W, BPF_REG_0, BPF_REG_1, -4));
	DIS("r0 = *(u8 *)skb[12]", BPF_LD_ABS(BPF_B, 12));
	DIS("r0 = *(u32 *)skb[-1]", BPF_LD_ABS(BPF_W, -1));
	DIS("r0 = *(u16 *)skb[r3 + 4]", BPF_LD_IND(BPF_H, BPF_REG_3, 4));
	DIS("r0 = *(u32 *)skb[r3 + -4]", BPF_LD_IND(BPF_W, BPF_REG_3, -4));
}

static void test_atomics(void)
{
	DIS("lock *(u64 *)(r1 +0) += r2", BPF_ATOMIC_OP(BPF_DW, BPF_ADD, BPF_REG_1, BPF_REG_2, 0));
	DIS("lock *(u32 *)(r1 +8) += r2", BPF_ATOMIC_OP(BPF_W, BPF_ADD, BPF_REG_1, BPF_REG_2, 8));
	DIS("lock *(u64 *)(r1 +0) |= r2", BPF_ATOMIC_OP(BPF_DW, BPF_OR, BPF_REG_1, BPF_REG_2, 0));
	DIS("lock *(u32 *)(r1 -8) &= r2", BPF_ATOMIC_OP(BPF_W, BPF_AND, BPF_REG_1, BPF_REG_2, -8));
	DIS("lock *(u64 *)(r1 +0) ^= r2", BPF_ATOMIC_OP(BPF_DW, BPF_XOR, BPF_REG_1, BPF_REG_2, 0));
	DIS("r2 = atomic64_fetch_add((u64 *)(r1 +0), r2)",
	    BPF_ATOMIC_OP(BPF_DW, BPF_ADD | BPF_FETCH, BPF_REG_1, BPF_REG_2, 0));
	DIS("r2 = atomic_fetch_or((u32 *)(r1 +0), r2)", BPF_ATOMIC_OP(BPF_W, BPF_OR | BPF_FETCH, BPF_REG_1, BPF_REG_2, 0));
	DIS("r3 = atomic64_fetch_and((u64 *)(r10 -8), r3)",
	    BPF_ATOMIC_OP(BPF_DW, BPF_AND | BPF_FETCH, BPF_REG_10, BPF_REG_3, -8));
	DIS("r3 = atomic_fetch_xor((u32 *)(r10 -8), r3)",
	    BPF_ATOMIC_OP(BPF_W, BPF_XOR | BPF_FETCH, BPF_REG_10, BPF_REG_3, -8));
	DIS("r2 = atomic64_xchg((u64 *)(r1 +0), r2)", BPF_ATOMIC_OP(BPF_DW, BPF_XCHG, BPF_REG_1, BPF_REG_2, 0));
	DIS("r2 = atomic_xchg((u32 *)(r1 +0), r2)", BPF_ATOMIC_OP(BPF_W, BPF_XCHG, BPF_REG_1, BPF_REG_2, 0));
	DIS("r0 = atomic64_cmpxchg((u64 *)(r1 +0), r0, r2)", BPF_ATOMIC_OP(BPF_DW, BPF_CMPXCHG, BPF_REG_1, BPF_REG_2, 0));
	DIS("r0 = atomic_cmpxchg((u32 *)(r1 +4), r0, r2)", BPF_ATOMIC_OP(BPF_W, BPF_CMPXCHG, BPF_REG_1, BPF_REG_2, 4));
}

static void test_lddw(void)
{
	DIS("r1 = 0x1122334455667788", BPF_LD_IMM64(BPF_REG_1, 0x1122334455667788ull));
	DIS("r0 = 0x0", BPF_LD_IMM64(BPF_REG_0, 0));
	DIS("r2 = 0xffffffff", BPF_LD_IMM64(BPF_REG_2, 0xffffffffull));
	DIS("r2 = 0xffffffffffffffff", BPF_LD_IMM64(BPF_REG_2, ~0ull));
	DIS("r1 = map[fd:5]", BPF_LD_MAP_FD(BPF_REG_1, 5));
	DIS("r1 = map[fd:5][0]+8", BPF_LD_MAP_VALUE(BPF_REG_1, 5, 8));
	DIS("r1 = map[idx:2]", BPF_LD_IMM64_RAW(BPF_REG_1, BPF_PSEUDO_MAP_IDX, 2));
	DIS("r1 = map[idx:2][0]+8", BPF_LD_IMM64_RAW_FULL(BPF_REG_1, BPF_PSEUDO_MAP_IDX_VALUE, 0, 0, 2, 8));
	DIS("r1 = btf_id[123]", BPF_LD_IMM64_RAW(BPF_REG_1, BPF_PSEUDO_BTF_ID, 123));
	DIS("r1 = func pc+5", BPF_LD_IMM64_RAW(BPF_REG_1, BPF_PSEUDO_FUNC, 5));
	DIS("r1 = func pc-3", BPF_LD_IMM64_RAW(BPF_REG_1, BPF_PSEUDO_FUNC, (uint32_t)-3));
}

static const char *my_helper(void *cookie, int32_t id)
{
	(void)cookie;
	return id == 1000 ? "my_helper" : NULL;
}

static const char *my_kfunc(void *cookie, int32_t id)
{
	return id == 77 ? (const char *)cookie : NULL;
}

static void test_calls(void)
{
	DIS("call bpf_map_lookup_elem#1", BPF_EMIT_CALL(1));
	DIS("call bpf_unspec#0", BPF_EMIT_CALL(0));
	DIS("call bpf_user_ringbuf_drain#209", BPF_EMIT_CALL(209));
	DIS("call bpf_cgrp_storage_get#210", BPF_EMIT_CALL(210)); /* 6.12 */
	DIS("call unknown#212", BPF_EMIT_CALL(212));
	DIS("call unknown#-1", BPF_EMIT_CALL(-1));
	DIS("call pc+3", BPF_CALL_REL(3));
	DIS("call pc-10", BPF_CALL_REL(-10));
	DIS("call kfunc#123", BPF_CALL_KFUNC(0, 123));
	DIS("call kfunc#123 off=2", BPF_CALL_KFUNC(2, 123));
	DIS("callx r2", BPF_RAW_INSN(BPF_JMP | BPF_CALL | BPF_X, BPF_REG_2, 0, 0, 0));

	/* Names from the caller win; NULL falls back to the built-in ones. */
	struct kbpf_disasm_opts opts = {
		.sz = sizeof(opts), .helper_name = my_helper, .kfunc_name = my_kfunc, .cookie = "bpf_obj_new_impl",
	};
	const struct bpf_insn h1000 = BPF_EMIT_CALL(1000), h2 = BPF_EMIT_CALL(2);
	const struct bpf_insn k77 = BPF_CALL_KFUNC(0, 77), k78 = BPF_CALL_KFUNC(0, 78);
	expect_opts(&h1000, 1, &opts, "call my_helper#1000", 1, __LINE__);
	expect_opts(&h2, 1, &opts, "call bpf_map_update_elem#2", 1, __LINE__);
	expect_opts(&k77, 1, &opts, "call bpf_obj_new_impl#77", 1, __LINE__);
	expect_opts(&k78, 1, &opts, "call kfunc#78", 1, __LINE__);
}

static void test_helper_names(void)
{
	CHECK_STR(kbpf_helper_linux_name(1), "bpf_map_lookup_elem");
	CHECK_STR(kbpf_helper_linux_name(6), "bpf_trace_printk");
	CHECK_STR(kbpf_helper_linux_name(14), "bpf_get_current_pid_tgid");
	CHECK_STR(kbpf_helper_linux_name(130), "bpf_ringbuf_output");
	CHECK_STR(kbpf_helper_linux_name(209), "bpf_user_ringbuf_drain");
	CHECK_STR(kbpf_helper_linux_name(211), "bpf_cgrp_storage_delete"); /* 6.12 */
	CHECK(kbpf_helper_linux_name(212) == NULL);
	CHECK(kbpf_helper_linux_name(-1) == NULL);
	CHECK(kbpf_helper_linux_name(INT32_MAX) == NULL);
}

static void test_index_and_labels(void)
{
	const struct bpf_insn prog[] = {
		BPF_MOV64_IMM(BPF_REG_0, 1),		       /* 0 */
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 2),	       /* 1 -> 4 */
		BPF_LD_IMM64(BPF_REG_1, 0x100000000ull),       /* 2, 3 */
		BPF_JMP_A(-4),				       /* 4 -> 1 */
		BPF_CALL_REL(1),			       /* 5 -> 7 */
		BPF_JMP_A(-4),				       /* 6 -> 3: second half of the LDDW */
		BPF_EXIT_INSN(),			       /* 7 */
	};
	struct kbpf_disasm_opts idx = { .sz = sizeof(idx), .with_index = 1 };
	struct kbpf_disasm_opts lab = { .sz = sizeof(lab), .with_labels = 1 };
	char buf[128];

	expect_opts(prog, 8, &idx, "0: (b7) r0 = 1", 1, __LINE__);
	CHECK(kbpf_insn_disasm(prog, 8, 2, &idx, buf, sizeof(buf)) == 2);
	CHECK_STR(buf, "2: (18) r1 = 0x100000000");
	CHECK(kbpf_insn_disasm(prog, 8, 1, &idx, buf, sizeof(buf)) == 1);
	CHECK_STR(buf, "1: (15) if r1 == 0x0 goto pc+2");

	CHECK(kbpf_insn_disasm(prog, 8, 1, &lab, buf, sizeof(buf)) == 1);
	CHECK_STR(buf, "if r1 == 0x0 goto LBB4");
	CHECK(kbpf_insn_disasm(prog, 8, 5, &lab, buf, sizeof(buf)) == 1);
	CHECK_STR(buf, "call LBB7");
	/* No label can stand between the halves of an LDDW: keep the offset. */
	CHECK(kbpf_insn_disasm(prog, 8, 6, &lab, buf, sizeof(buf)) == 1);
	CHECK_STR(buf, "goto pc-4");

	/* An older caller's shorter options struct: the fields it lacks read as zero. */
	struct kbpf_disasm_opts old = { .sz = offsetof(struct kbpf_disasm_opts, with_index), .with_index = 1 };
	expect_opts(prog, 8, &old, "r0 = 1", 1, __LINE__);
}

/* kbpf_prog_disasm into a string. */
static char *prog_text(const struct bpf_insn *insns, size_t cnt, const struct kbpf_disasm_opts *opts, int *ret)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	*ret = kbpf_prog_disasm(insns, cnt, opts, f);
	fclose(f);
	return text;
}

static void test_prog_disasm(void)
{
	const struct bpf_insn prog[] = {
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 3),
		BPF_LD_MAP_FD(BPF_REG_1, 3),
		BPF_EMIT_CALL(1),
		BPF_EXIT_INSN(),
	};
	struct kbpf_disasm_opts idx = { .sz = sizeof(idx), .with_index = 1 };
	struct kbpf_disasm_opts lab = { .sz = sizeof(lab), .with_labels = 1 };
	struct kbpf_disasm_opts both = { .sz = sizeof(both), .with_labels = 1, .with_index = 1 };
	int ret;
	char *t;

	t = prog_text(prog, 6, NULL, &ret);
	CHECK(ret == 0);
	CHECK_STR(t, "r0 = 0\nif r1 == 0x0 goto pc+3\nr1 = map[fd:3]\ncall bpf_map_lookup_elem#1\nexit\n");
	free(t);

	t = prog_text(prog, 6, &idx, &ret);
	CHECK(ret == 0);
	CHECK_STR(t, "0: (b7) r0 = 0\n1: (15) if r1 == 0x0 goto pc+3\n2: (18) r1 = map[fd:3]\n"
		     "4: (85) call bpf_map_lookup_elem#1\n5: (95) exit\n");
	free(t);

	t = prog_text(prog, 6, &lab, &ret);
	CHECK(ret == 0);
	CHECK_STR(t, "r0 = 0\nif r1 == 0x0 goto LBB5\nr1 = map[fd:3]\ncall bpf_map_lookup_elem#1\nLBB5:\nexit\n");
	free(t);

	t = prog_text(prog, 6, &both, &ret);
	CHECK(ret == 0);
	CHECK_STR(t, "0: (b7) r0 = 0\n1: (15) if r1 == 0x0 goto LBB5\n2: (18) r1 = map[fd:3]\n"
		     "4: (85) call bpf_map_lookup_elem#1\nLBB5:\n5: (95) exit\n");
	free(t);

	t = prog_text(prog, 0, NULL, &ret);
	CHECK(ret == 0);
	CHECK_STR(t, "");
	free(t);
}

static void test_invalid(void)
{
	char buf[128];
	const struct bpf_insn bad[] = {
		BPF_RAW_INSN(0xff, 1, 2, 3, 4),
		BPF_RAW_INSN(BPF_ALU64 | 0xe0 | BPF_K, 0, 0, 0, 0),
		BPF_RAW_INSN(BPF_ALU64 | BPF_END | BPF_TO_BE, 1, 0, 0, 16), /* no TO_BE bswap */
		BPF_RAW_INSN(BPF_ALU | BPF_END | BPF_TO_LE, 1, 0, 0, 8),    /* bad width */
		BPF_RAW_INSN(BPF_LDX | BPF_MEMSX | BPF_DW, 0, 1, 0, 0),
		BPF_RAW_INSN(BPF_STX | BPF_ATOMIC | BPF_B, 1, 2, 0, BPF_ADD),
		BPF_RAW_INSN(BPF_STX | BPF_ATOMIC | BPF_DW, 1, 2, 0, 0xe0),
		BPF_RAW_INSN(BPF_LD | BPF_ABS | BPF_DW, 0, 0, 0, 0),
		BPF_RAW_INSN(BPF_JMP32 | BPF_CALL, 0, 0, 0, 1),
		BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, 3, 0, 1),
		BPF_RAW_INSN(BPF_JMP32 | BPF_EXIT, 0, 0, 0, 0),
		BPF_RAW_INSN(BPF_JMP32 | KBPF_JCOND | BPF_K, 0, 0, 1, 0), /* may_goto is JMP only */
		BPF_RAW_INSN(BPF_JMP | KBPF_JCOND | BPF_X, 0, 0, 1, 0),
		BPF_RAW_INSN(BPF_JMP | KBPF_JCOND | BPF_K, 0, 1, 1, 0),    /* src_reg: not may_goto */
		BPF_RAW_INSN(KBPF_LDDW_CODE, 1, 7, 0, 0),
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int n = kbpf_insn_disasm(&bad[i], 1, 0, NULL, buf, sizeof(buf));
		if (n != -EINVAL)
			fprintf(stderr, "bad[%zu] decoded as \"%s\"\n", i, buf);
		CHECK(n == -EINVAL);
	}
	CHECK(kbpf_insn_disasm(bad, 1, 0, NULL, buf, sizeof(buf)) == -EINVAL);
	CHECK_STR(buf, "invalid insn code 0xff");

	/* An LDDW needs its second slot. */
	const struct bpf_insn lddw[] = { BPF_LD_IMM64(BPF_REG_1, 1) };
	CHECK(kbpf_insn_disasm(lddw, 1, 0, NULL, buf, sizeof(buf)) == -EINVAL);
	CHECK_CONTAINS(buf, "lddw");
	CHECK(kbpf_insn_disasm(lddw, 2, 2, NULL, buf, sizeof(buf)) == -EINVAL);
	CHECK(kbpf_insn_disasm(NULL, 0, 0, NULL, NULL, 0) == -EINVAL);

	/* The whole-program form prints the raw directive and reports the failure. */
	const struct bpf_insn prog[] = { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_RAW_INSN(0xff, 1, 2, 3, 4), BPF_EXIT_INSN() };
	int ret;
	char *t = prog_text(prog, 3, NULL, &ret);
	CHECK(ret == -EINVAL);
	CHECK_STR(t, "r0 = 0\n.insn 0xff, 1, 2, 3, 4 ; invalid insn code 0xff\nexit\n");
	free(t);
}

/* Linux prints what it can and ignores unused fields; kbpf_prog_disasm must not lose
 * them, so it falls back to the raw form. */
static void test_strict_prog(void)
{
	const struct bpf_insn prog[] = {
		BPF_RAW_INSN(BPF_ALU64 | BPF_MOV | BPF_K, 0, 3, 0, 1), /* src_reg set on an imm mov */
		BPF_RAW_INSN(BPF_ALU64 | BPF_MOV | BPF_K, 11, 0, 0, 1), /* r11 */
		BPF_JMP_A(100),					       /* outside the program */
		BPF_EXIT_INSN(),
	};
	char buf[128];
	int ret;

	CHECK(kbpf_insn_disasm(prog, 4, 0, NULL, buf, sizeof(buf)) == 1);
	CHECK_STR(buf, "r0 = 1");
	CHECK(kbpf_insn_disasm(prog, 4, 1, NULL, buf, sizeof(buf)) == 1);
	CHECK_STR(buf, "r11 = 1");
	CHECK(kbpf_insn_disasm(prog, 4, 2, NULL, buf, sizeof(buf)) == 1);
	CHECK_STR(buf, "goto pc+100");

	char *t = prog_text(prog, 4, NULL, &ret);
	CHECK(ret == -EINVAL);
	CHECK_CONTAINS(t, ".insn 0xb7, 0, 3, 0, 1 ; insn code 0xb7 uses reserved field src_reg\n");
	CHECK_CONTAINS(t, ".insn 0xb7, 11, 0, 0, 1 ; ");
	CHECK_CONTAINS(t, ".insn 0x05, 0, 0, 100, 0 ; ");
	CHECK_CONTAINS(t, "\nexit\n");
	free(t);
}

static void test_truncation(void)
{
	const struct bpf_insn in = BPF_ATOMIC_OP(BPF_DW, BPF_CMPXCHG, BPF_REG_1, BPF_REG_2, 0);
	char buf[8];

	memset(buf, 'x', sizeof(buf));
	CHECK(kbpf_insn_disasm(&in, 1, 0, NULL, buf, sizeof(buf)) == 1);
	CHECK_STR(buf, "r0 = at");
	CHECK(kbpf_insn_disasm(&in, 1, 0, NULL, NULL, 0) == 1);
}

int main(void)
{
	RUN(test_alu);
	RUN(test_alu_v4);
	RUN(test_endian);
	RUN(test_jumps);
	RUN(test_memory);
	RUN(test_atomics);
	RUN(test_lddw);
	RUN(test_calls);
	RUN(test_helper_names);
	RUN(test_index_and_labels);
	RUN(test_prog_disasm);
	RUN(test_invalid);
	RUN(test_strict_prog);
	RUN(test_truncation);
	return test_summary();
}
