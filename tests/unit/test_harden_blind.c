/* SPDX-License-Identifier: Apache-2.0 */
/* Constant blinding (KBPF_HARDEN_BLIND): the program's immediates are in the JIT output
 * without it and nowhere in it with it, and the blinded code computes what the
 * interpreter computes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <kbpf/kbpf.h>
#include "exec/jit.h"
#include "test.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Every immediate-carrying form: ALU/ALU64 K (mov, add, xor, mul, div, mod, sdiv, sub,
 * or, and), JMP/JMP32 K, ST imm of each size, LDDW, and a mov+add pair the JIT would fuse
 * into one lea (its displacement is a constant too). */
static const struct bpf_insn prog_consts[] = {
	BPF_MOV64_IMM(BPF_REG_0, 0x1badb002),
	BPF_MOV32_IMM(BPF_REG_2, 0x2badcafe),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 0x3c909090),
	BPF_ALU64_IMM(BPF_XOR, BPF_REG_0, 0x4aa55aa5),
	BPF_ALU64_IMM(BPF_MUL, BPF_REG_0, 0x0c0ffee1),
	BPF_MOV64_REG(BPF_REG_3, BPF_REG_0),
	BPF_ALU64_IMM(BPF_DIV, BPF_REG_3, 0x00fedcba),
	BPF_MOV64_REG(BPF_REG_4, BPF_REG_0),
	BPF_ALU64_IMM(BPF_MOD, BPF_REG_4, 0x0abcdef1),
	BPF_MOV64_REG(BPF_REG_5, BPF_REG_0),
	{ .code = BPF_ALU64 | BPF_DIV | BPF_K, .dst_reg = BPF_REG_5, .off = 1, .imm = -0x12345679 }, /* sdiv */
	BPF_ALU32_IMM(BPF_SUB, BPF_REG_2, 0x55667788),
	BPF_ALU32_IMM(BPF_OR, BPF_REG_2, 0x01a0b0c0),
	BPF_ALU64_IMM(BPF_AND, BPF_REG_5, 0x6eadbeef),
	BPF_ALU64_IMM(BPF_LSH, BPF_REG_0, 13),
	BPF_ALU64_IMM(BPF_ARSH, BPF_REG_0, 7),
	BPF_ALU32_IMM(BPF_RSH, BPF_REG_2, 3),
	BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0x7ead1234, 1),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 1),
	BPF_JMP32_IMM(BPF_JGT, BPF_REG_2, 0x61626364, 1),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 2),
	BPF_JMP_IMM(BPF_JSET, BPF_REG_3, 0x33445566, 1),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 4),
	BPF_ST_MEM(BPF_W, BPF_REG_1, 0, 0x5eed5eed),
	BPF_ST_MEM(BPF_DW, BPF_REG_1, 8, 0x4ee54ee5),
	BPF_ST_MEM(BPF_H, BPF_REG_1, 16, 0x7abc),
	BPF_ST_MEM(BPF_B, BPF_REG_1, 18, 0x5a),
	BPF_LD_IMM64(BPF_REG_6, 0xdeadbeefcafebabeull),
	BPF_MOV64_REG(BPF_REG_7, BPF_REG_1),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_7, 0x21436587),
	BPF_ALU64_REG(BPF_SUB, BPF_REG_7, BPF_REG_1),
	BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_6),
	BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_2),
	BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_3),
	BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_4),
	BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_5),
	BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_7),
	BPF_EXIT_INSN(),
};

/* The 32-bit patterns an attacker chose (each in the code's little-endian order). */
static const uint32_t consts[] = {
	0x1badb002, 0x2badcafe, 0x3c909090, 0x4aa55aa5, 0x0c0ffee1, 0x00fedcba, 0x0abcdef1,
	(uint32_t)-0x12345679, 0x55667788, 0x01a0b0c0, 0x6eadbeef, 0x7ead1234, 0x61626364,
	0x33445566, 0x5eed5eed, 0x4ee54ee5, 0xcafebabe, 0xdeadbeef, 0x21436587,
};

static bool code_has(const struct kbpf_prog *p, uint32_t v)
{
	size_t size;
	const uint8_t *code = kbpf_prog_jited_code(p, &size);
	uint8_t pat[4];

	memcpy(pat, &v, 4);
	for (size_t k = 0; code && k + 4 <= size; k++)
		if (!memcmp(code + k, pat, 4))
			return true;
	return false;
}

static struct kbpf_prog *make(const struct bpf_insn *insns, size_t n, int jit, unsigned harden)
{
	char log[256] = "";
	struct kbpf_prog_opts po = { .sz = sizeof(po), .trusted_unverified = 1, .jit = jit, .harden = harden, .log_buf = log,
				     .log_size = sizeof(log) };
	struct kbpf_prog *p = NULL;

	if (kbpf_prog_create(insns, n, &po, &p)) {
		fprintf(stderr, "create: %s\n", log);
		return NULL;
	}
	if (jit && !kbpf_prog_is_jited(p))
		fprintf(stderr, "not JIT-compiled: %s\n", log);
	return p;
}

/* Run with R1 = a fresh 64-byte buffer; R0 and the buffer out. */
static int run_mem(const struct kbpf_prog *p, uint8_t mem[64], uint64_t *r0)
{
	struct kbpf_run_opts ro = { .sz = sizeof(ro) };
	struct kbpf_run_result rr = { .sz = sizeof(rr) };
	int ret;

	memset(mem, 0, 64);
	ro.args[0] = (uint64_t)(uintptr_t)mem;
	ret = kbpf_prog_run_opts(p, &ro, &rr);
	*r0 = rr.retval;
	return ret;
}

static void test_constants_absent_when_blinded(void)
{
	struct kbpf_prog *plain, *blind, *interp;
	uint8_t mi[64], mb[64], mp[64];
	uint64_t ri, rb, rp;

	if (!kbpf_jit_arch_supported())
		return;
	interp = make(prog_consts, ARRAY_SIZE(prog_consts), 0, 0);
	plain = make(prog_consts, ARRAY_SIZE(prog_consts), 1, 0);
	blind = make(prog_consts, ARRAY_SIZE(prog_consts), 1, KBPF_HARDEN_BLIND);
	CHECK(interp && plain && blind && kbpf_prog_is_jited(plain) && kbpf_prog_is_jited(blind));
	if (!interp || !plain || !blind)
		goto out;
	for (size_t k = 0; k < ARRAY_SIZE(consts); k++) {
		if (!code_has(plain, consts[k])) {
			fprintf(stderr, "unblinded code lacks 0x%08x\n", consts[k]);
			test_failed_now = 1;
		}
		if (code_has(blind, consts[k])) {
			fprintf(stderr, "blinded code contains 0x%08x\n", consts[k]);
			test_failed_now = 1;
		}
	}
	CHECK(run_mem(interp, mi, &ri) == 0);
	CHECK(run_mem(plain, mp, &rp) == 0);
	CHECK(run_mem(blind, mb, &rb) == 0);
	CHECK_EQ_U64(rb, ri);
	CHECK_EQ_U64(rp, ri);
	CHECK(!memcmp(mi, mb, 64) && !memcmp(mi, mp, 64));
out:
	kbpf_prog_free(interp);
	kbpf_prog_free(plain);
	kbpf_prog_free(blind);
}

/* Two compiles of one program use different keys: the blinded bytes are not a function
 * of the program an attacker could precompute. */
static void test_keys_differ_per_compile(void)
{
	struct kbpf_prog *a, *b;
	size_t na, nb;

	if (!kbpf_jit_arch_supported())
		return;
	a = make(prog_consts, ARRAY_SIZE(prog_consts), 1, KBPF_HARDEN_BLIND);
	b = make(prog_consts, ARRAY_SIZE(prog_consts), 1, KBPF_HARDEN_BLIND);
	CHECK(a && b);
	if (a && b) {
		const void *ca = kbpf_prog_jited_code(a, &na), *cb = kbpf_prog_jited_code(b, &nb);
		CHECK(na == nb); /* same layout */
		CHECK(memcmp(ca, cb, na) != 0);
	}
	kbpf_prog_free(a);
	kbpf_prog_free(b);
}

/* Edge values of every immediate form, blinded, against the interpreter: 0, -1,
 * INT32_MIN, INT32_MAX in 32- and 64-bit ALU ops (incl. div/mod by 0 and -1, signed
 * and not), compares and stores. */
static void test_edge_immediates(void)
{
	static const int32_t imms[] = { 0, 1, -1, 2, 63, 64, INT32_MIN, INT32_MAX, 0x40000000, -0x12345 };
	static const uint8_t ops[] = { BPF_MOV, BPF_ADD, BPF_SUB, BPF_MUL, BPF_DIV, BPF_MOD, BPF_OR,
				       BPF_AND, BPF_XOR, BPF_LSH, BPF_RSH, BPF_ARSH };
	static const uint8_t jops[] = { BPF_JEQ, BPF_JNE, BPF_JGT, BPF_JGE, BPF_JLT, BPF_JLE, BPF_JSGT,
					BPF_JSGE, BPF_JSLT, BPF_JSLE, BPF_JSET };
	unsigned mismatches = 0, runs = 0;

	if (!kbpf_jit_arch_supported())
		return;
	for (size_t a = 0; a < ARRAY_SIZE(imms); a++)
		for (size_t o = 0; o < ARRAY_SIZE(ops); o++)
			for (int cls = 0; cls < 2; cls++)
				for (int sgn = 0; sgn < 2; sgn++) {
					uint8_t op = ops[o];
					int16_t off = sgn && (op == BPF_DIV || op == BPF_MOD) ? 1 : 0;
					uint8_t jop = jops[(a + o) % ARRAY_SIZE(jops)];
					struct bpf_insn p[] = {
						BPF_LD_IMM64(BPF_REG_0, 0x8000000180000001ull ^ (uint64_t)a << 40),
						{ .code = (uint8_t)((cls ? BPF_ALU64 : BPF_ALU) | op | BPF_K),
						  .dst_reg = BPF_REG_0, .off = off, .imm = imms[a] },
						{ .code = (uint8_t)((cls ? BPF_JMP : BPF_JMP32) | jop | BPF_K),
						  .dst_reg = BPF_REG_0, .off = 1, .imm = imms[(a + 3) % ARRAY_SIZE(imms)] },
						BPF_ALU64_IMM(BPF_XOR, BPF_REG_0, 0x5a5a),
						BPF_ST_MEM(BPF_DW, BPF_REG_1, 0, imms[a]),
						BPF_ST_MEM(BPF_W, BPF_REG_1, 8, imms[a]),
						BPF_ST_MEM(BPF_H, BPF_REG_1, 12, imms[a]),
						BPF_ST_MEM(BPF_B, BPF_REG_1, 14, imms[a]),
						BPF_EXIT_INSN(),
					};
					struct kbpf_prog *pi = make(p, ARRAY_SIZE(p), 0, 0);
					struct kbpf_prog *pb = make(p, ARRAY_SIZE(p), 1, KBPF_HARDEN_ALL);
					uint8_t mi[64], mb[64];
					uint64_t ri = 0, rb = 1;
					int ei = -1, eb = -2;

					if (pi && pb) {
						ei = run_mem(pi, mi, &ri);
						eb = run_mem(pb, mb, &rb);
					}
					runs++;
					if (!pb || !kbpf_prog_is_jited(pb) || ei != eb || ri != rb || memcmp(mi, mb, 64)) {
						if (mismatches++ < 5)
							fprintf(stderr, "op 0x%02x cls %d imm %d: interp %d 0x%llx, blinded %d 0x%llx\n",
								op, cls, imms[a], ei, (unsigned long long)ri, eb,
								(unsigned long long)rb);
					}
					kbpf_prog_free(pi);
					kbpf_prog_free(pb);
				}
	CHECK(mismatches == 0);
	CHECK(runs == ARRAY_SIZE(imms) * ARRAY_SIZE(ops) * 4);
}

/* Without BMI2 a blinded shift count goes through cl (rcx is R4): all registers. */
static void test_blinded_shift_no_bmi2(void)
{
	if (!kbpf_jit_arch_supported())
		return;
	for (int r = 0; r <= 9; r++) {
		const struct bpf_insn p[] = {
			BPF_MOV64_IMM(BPF_REG_4, 0x77), /* R4 = rcx: must survive */
			BPF_LD_IMM64(r, 0x0123456789abcdefull),
			BPF_ALU64_IMM(BPF_LSH, r, 12),
			BPF_ALU32_IMM(BPF_ARSH, r, 3),
			BPF_MOV64_REG(BPF_REG_0, r),
			BPF_ALU64_IMM(BPF_LSH, BPF_REG_0, 8),
			BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_4),
			BPF_EXIT_INSN(),
		};
		struct kbpf_prog *pi = make(p, ARRAY_SIZE(p), 0, 0), *pj = make(p, ARRAY_SIZE(p), 0, 0);
		char log[128];
		uint64_t ri = 0, rj = 1;
		uint8_t m[64];

		CHECK(pi && pj);
		if (!pi || !pj)
			continue;
		CHECK(kbpf_jit_attach(pj, KBPF_JIT_NO_BMI2 | KBPF_JIT_BLIND, log, sizeof(log)) == 0);
		CHECK(run_mem(pi, m, &ri) == 0 && run_mem(pj, m, &rj) == 0);
		CHECK_EQ_U64(rj, ri);
		kbpf_prog_free(pi);
		kbpf_prog_free(pj);
	}
}

int main(void)
{
	RUN(test_constants_absent_when_blinded);
	RUN(test_keys_differ_per_compile);
	RUN(test_edge_immediates);
	RUN(test_blinded_shift_no_bmi2);
	return test_summary();
}
