/* SPDX-License-Identifier: Apache-2.0 */
/* Linux 6.12's division guards (src/verifier/divmod.c, do_misc_fixups): the xlated program
 * of every division/modulo by a register is Linux's guarded sequence (sdiv/smod through
 * R11, Linux's BPF_REG_AX), sdiv/smod by the constant -1 a negation / wX = 0, and that
 * program gives RFC 9669's results (x / 0 = 0, x % 0 = x, INT_MIN / -1 = INT_MIN,
 * x % -1 = 0, 32-bit results zero-extended, as Linux's interpreter) on the interpreter,
 * the checked interpreter, the hardened interpreter, the JIT and the blinded JIT. R11
 * stays the verifier's: a program given to kbpf may not name it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <kbpf/kbpf.h>
#include <kbpf/linux.h>
#include <kbpf/verifier.h>
#include "test.h"

static struct kbpf_host *host;

/* r2 = dividend; r3 = divisor; r2 <op>= r3 (or the immediate); r0 = r2; exit */
static size_t build(struct bpf_insn *p, uint8_t cls, uint8_t op, bool sign, bool k, int32_t imm, uint64_t dividend,
		    uint64_t divisor)
{
	size_t n = 0;

	const struct bpf_insn ld[] = { BPF_LD_IMM64(BPF_REG_2, dividend), BPF_LD_IMM64(BPF_REG_3, divisor) };

	memcpy(p, ld, sizeof(ld));
	n += 4;
	p[n++] = (struct bpf_insn){ .code = (uint8_t)(cls | op | (k ? BPF_K : BPF_X)), .dst_reg = BPF_REG_2,
				    .src_reg = k ? 0 : BPF_REG_3, .off = sign, .imm = k ? imm : 0 };
	p[n++] = (struct bpf_insn)BPF_MOV64_REG(BPF_REG_0, BPF_REG_2);
	p[n++] = (struct bpf_insn)BPF_EXIT_INSN();
	return n;
}

/* RFC 9669 (and Linux 6.12's kernel/bpf/core.c), written out independently of the
 * engines' helpers. */
static uint64_t expect(uint8_t cls, uint8_t op, bool sign, uint64_t d, uint64_t s)
{
	if (cls == BPF_ALU) {
		uint32_t a = (uint32_t)d, b = (uint32_t)s;

		if (b == 0)
			return op == BPF_DIV ? 0 : a;
		if (!sign)
			return op == BPF_DIV ? a / b : a % b;
		if (b == UINT32_MAX)
			return op == BPF_DIV ? (uint32_t)(0u - a) : 0;
		return op == BPF_DIV ? (uint32_t)((int32_t)a / (int32_t)b) : (uint32_t)((int32_t)a % (int32_t)b);
	}
	if (s == 0)
		return op == BPF_DIV ? 0 : d;
	if (!sign)
		return op == BPF_DIV ? d / s : d % s;
	if (s == UINT64_MAX)
		return op == BPF_DIV ? 0 - d : 0;
	return op == BPF_DIV ? (uint64_t)((int64_t)d / (int64_t)s) : (uint64_t)((int64_t)d % (int64_t)s);
}

/* The xlated program as test_loader prints it: "N: insn" a line. */
static void xlated_text(const struct kbpf_prog *prog, char *out, size_t size)
{
	size_t cnt = 0, len = 0;
	const struct bpf_insn *x = kbpf_prog_insns(prog, &cnt);
	char line[128];

	out[0] = 0;
	for (size_t i = 0; x && i < cnt;) {
		int n = kbpf_insn_disasm(x, cnt, i, NULL, line, sizeof(line));
		len += (size_t)snprintf(out + len, size - len, "%zu: %s\n", i, line);
		i += n > 0 ? (size_t)n : 1;
	}
}

static struct kbpf_prog *create(const struct bpf_insn *p, size_t n, int jit, unsigned harden)
{
	char log[512] = "";
	struct kbpf_prog_opts o = { .sz = sizeof(o), .host = host, .prog_type = "socket_filter", .license = "GPL",
				    .jit = jit, .harden = harden, .log_buf = log, .log_size = sizeof(log) };
	struct kbpf_prog *prog = NULL;
	int err = kbpf_prog_create(p, n, &o, &prog);

	if (err)
		fprintf(stderr, "create: %d: %s\n", err, log);
	CHECK(err == 0);
	if (prog && jit)
		CHECK(kbpf_prog_is_jited(prog));
	return prog;
}

/* Every engine's result, compared with expect(). */
static void run_all(const struct bpf_insn *p, size_t n, uint64_t want, const char *what)
{
	static const struct {
		int jit;
		unsigned harden;
		bool checked;
	} modes[] = {
		{ 0, 0, false }, { 0, 0, true }, { 0, KBPF_HARDEN_STACK_GUARD, false }, { 1, 0, false }, { 1, KBPF_HARDEN_BLIND, false },
	};
	uint8_t ctx[64] = { 0 };

	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		struct kbpf_prog *prog = create(p, n, modes[m].jit, modes[m].harden);
		uint64_t r0 = ~want;
		int err;

		if (!prog)
			continue;
		if (modes[m].checked) {
			struct kbpf_mem_region reg = { ctx, sizeof(ctx), KBPF_MEM_READ | KBPF_MEM_WRITE, "ctx" };
			struct kbpf_run_opts ro = { .sz = sizeof(ro), .flags = KBPF_RUN_CHECKED, .regions = &reg,
						    .nr_regions = 1 };
			struct kbpf_run_result rr = { .sz = sizeof(rr) };
			ro.args[0] = (uint64_t)(uintptr_t)ctx;
			err = kbpf_prog_run_opts(prog, &ro, &rr);
			r0 = rr.retval;
		} else {
			err = kbpf_prog_run(prog, ctx, &r0);
		}
		CHECK_EQ_U64(err, 0);
		if (r0 != want)
			fprintf(stderr, "%s, mode %zu: got 0x%llx, want 0x%llx\n", what, m, (unsigned long long)r0,
				(unsigned long long)want);
		CHECK_EQ_U64(r0, want);
		kbpf_prog_free(prog);
	}
}

static void test_results(void)
{
	static const uint64_t dividends[] = {
		0, 5, (uint64_t)-7, 0x8000000000000000ull, 0xdeadbeef80000000ull, 0x123456789abcdefull, UINT64_MAX,
	};
	static const uint64_t divisors[] = {
		0, 1, 2, 3, (uint64_t)-1, (uint64_t)-2, 0xffffffffull, 0x100000000ull, 0x1ffffffffull,
		0x8000000000000000ull, 0x80000000ull, 7,
	};
	static const uint8_t ops[] = { BPF_DIV, BPF_MOD };
	struct bpf_insn p[16];
	char what[160];

	for (int c = 0; c < 2; c++)
		for (int o = 0; o < 2; o++)
			for (int sign = 0; sign < 2; sign++)
				for (size_t a = 0; a < sizeof(dividends) / sizeof(dividends[0]); a++)
					for (size_t b = 0; b < sizeof(divisors) / sizeof(divisors[0]); b++) {
						uint8_t cls = c ? BPF_ALU64 : BPF_ALU;
						size_t n = build(p, cls, ops[o], sign, false, 0, dividends[a], divisors[b]);

						snprintf(what, sizeof(what), "%s %s%s 0x%llx by 0x%llx", c ? "64" : "32",
							 sign ? "s" : "", o ? "mod" : "div", (unsigned long long)dividends[a],
							 (unsigned long long)divisors[b]);
						run_all(p, n, expect(cls, ops[o], sign, dividends[a], divisors[b]), what);
					}
	/* by the constant -1 (rewritten) and by other constants (kept) */
	static const int32_t imms[] = { -1, 3, -3 };
	for (int c = 0; c < 2; c++)
		for (int o = 0; o < 2; o++)
			for (size_t k = 0; k < sizeof(imms) / sizeof(imms[0]); k++)
				for (size_t a = 0; a < sizeof(dividends) / sizeof(dividends[0]); a++) {
					uint8_t cls = c ? BPF_ALU64 : BPF_ALU;
					size_t n = build(p, cls, ops[o], true, true, imms[k], dividends[a], 0);
					uint64_t s = c ? (uint64_t)(int64_t)imms[k] : (uint32_t)imms[k];

					snprintf(what, sizeof(what), "%s s%s 0x%llx by imm %d", c ? "64" : "32", o ? "mod" : "div",
						 (unsigned long long)dividends[a], imms[k]);
					run_all(p, n, expect(cls, ops[o], true, dividends[a], s), what);
				}
}

/* The xlated program: Linux 6.12's lines (verifier_sdiv.c's __xlated, and
 * do_misc_fixups' unsigned guards). */
static void check_xlated(uint8_t cls, uint8_t op, bool sign, bool k, const char *want)
{
	struct bpf_insn p[16];
	size_t n = build(p, cls, op, sign, k, -1, 1, 1);
	struct kbpf_prog *prog = create(p, n, 0, 0);
	char text[2048];

	if (!prog)
		return;
	xlated_text(prog, text, sizeof(text));
	CHECK_STR(text, want);
	kbpf_prog_free(prog);
}

static void test_xlated(void)
{
	const char *head = "0: r2 = 0x1\n2: r3 = 0x1\n";
	char want[1024];

#define XL(cls, op, sign, k, body)                                         \
	do {                                                               \
		snprintf(want, sizeof(want), "%s%s%d: r0 = r2\n%d: exit\n", head, body.text, body.end, body.end + 1); \
		check_xlated(cls, op, sign, k, want);                      \
	} while (0)
	struct {
		const char *text;
		int end;
	} sdiv64 = { "4: r11 = r3\n5: r11 += 1\n6: if r11 > 0x1 goto pc+4\n7: if r11 == 0x0 goto pc+1\n8: r2 = 0\n"
		     "9: r2 = -r2\n10: goto pc+1\n11: r2 s/= r3\n", 12 },
	  sdiv32 = { "4: r11 = r3\n5: w11 += 1\n6: if w11 > 0x1 goto pc+4\n7: if w11 == 0x0 goto pc+1\n8: w2 = 0\n"
		     "9: w2 = -w2\n10: goto pc+1\n11: w2 s/= w3\n", 12 },
	  smod64 = { "4: r11 = r3\n5: r11 += 1\n6: if r11 > 0x1 goto pc+3\n7: if r11 == 0x1 goto pc+3\n8: w2 = 0\n"
		     "9: goto pc+1\n10: r2 s%= r3\n", 11 },
	  smod32 = { "4: r11 = r3\n5: w11 += 1\n6: if w11 > 0x1 goto pc+3\n7: if w11 == 0x1 goto pc+4\n8: w2 = 0\n"
		     "9: goto pc+1\n10: w2 s%= w3\n11: goto pc+1\n12: w2 = w2\n", 13 },
	  udiv64 = { "4: if r3 != 0x0 goto pc+2\n5: w2 ^= w2\n6: goto pc+1\n7: r2 /= r3\n", 8 },
	  udiv32 = { "4: if w3 != 0x0 goto pc+2\n5: w2 ^= w2\n6: goto pc+1\n7: w2 /= w3\n", 8 },
	  umod64 = { "4: if r3 == 0x0 goto pc+1\n5: r2 %= r3\n", 6 },
	  umod32 = { "4: if w3 == 0x0 goto pc+2\n5: w2 %= w3\n6: goto pc+1\n7: w2 = w2\n", 8 },
	  sdivk64 = { "4: r2 = -r2\n", 5 }, sdivk32 = { "4: w2 = -w2\n", 5 },
	  smodk64 = { "4: w2 = 0\n", 5 }, smodk32 = { "4: w2 = 0\n", 5 };
	XL(BPF_ALU64, BPF_DIV, true, false, sdiv64);
	XL(BPF_ALU, BPF_DIV, true, false, sdiv32);
	XL(BPF_ALU64, BPF_MOD, true, false, smod64);
	XL(BPF_ALU, BPF_MOD, true, false, smod32);
	XL(BPF_ALU64, BPF_DIV, false, false, udiv64);
	XL(BPF_ALU, BPF_DIV, false, false, udiv32);
	XL(BPF_ALU64, BPF_MOD, false, false, umod64);
	XL(BPF_ALU, BPF_MOD, false, false, umod32);
	XL(BPF_ALU64, BPF_DIV, true, true, sdivk64);
	XL(BPF_ALU, BPF_DIV, true, true, sdivk32);
	XL(BPF_ALU64, BPF_MOD, true, true, smodk64);
	XL(BPF_ALU, BPF_MOD, true, true, smodk32);
#undef XL
}

/* A jump over a guarded division lands after its patch; one onto it, at its start. */
static void test_jumps(void)
{
	const struct bpf_insn q[] = {
		BPF_MOV64_IMM(BPF_REG_0, 7),
		BPF_MOV64_IMM(BPF_REG_3, 0),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_1, 0, 1), /* always */
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 100),
		BPF_ALU64_REG(BPF_MOD, BPF_REG_0, BPF_REG_3), /* 7 % 0 = 7 */
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 1),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_1, 0, 1), /* always: over the next */
		BPF_ALU64_REG(BPF_DIV, BPF_REG_0, BPF_REG_3),
		BPF_EXIT_INSN(),
	};
	run_all(q, sizeof(q) / sizeof(q[0]), 8, "jumps around guards");
	struct kbpf_prog *prog = create(q, sizeof(q) / sizeof(q[0]), 0, 0);
	size_t n = 0;
	const uint32_t *idx = prog ? kbpf_prog_xlated_idx(prog, &n) : NULL;

	CHECK(idx && n == sizeof(q) / sizeof(q[0]) + 1);
	if (idx && n == sizeof(q) / sizeof(q[0]) + 1) {
		CHECK_EQ_U64(idx[4], 4); /* the mod's patch starts where the mod was */
		CHECK_EQ_U64(idx[5], 6); /* umod64: 2 insns */
		CHECK_EQ_U64(idx[8], 12); /* udiv64: 4 insns */
		CHECK_EQ_U64(idx[9], 13);
		size_t cnt = 0;
		const struct bpf_insn *x = kbpf_prog_insns(prog, &cnt);
		CHECK_EQ_U64(x[2].off, 1); /* onto the mod's guard */
		CHECK_EQ_U64(x[7].off, 4); /* over the whole division guard, to the exit */
	}
	kbpf_prog_free(prog);
}

/* R11 is the verifier's: not in a program given to kbpf, verified or not. */
static void test_r11_refused(void)
{
	const struct bpf_insn p[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = 11, .src_reg = BPF_REG_1 },
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	char log[512];
	struct kbpf_prog_opts o = { .sz = sizeof(o), .host = host, .log_buf = log, .log_size = sizeof(log),
				    .trusted_unverified = 1 };
	struct kbpf_prog *prog = NULL;

	CHECK_EQ_U64(kbpf_prog_create(p, 3, &o, &prog), -EINVAL);
	CHECK_CONTAINS(log, "R11 is invalid");
	o.trusted_unverified = 0;
	o.prog_type = "socket_filter";
	CHECK(kbpf_prog_create(p, 3, &o, &prog) < 0);
	CHECK(prog == NULL);
}

int main(void)
{
	host = kbpf_host_new();
	if (!host || kbpf_linux_host_add(host))
		return 1;
	RUN(test_xlated);
	RUN(test_results);
	RUN(test_jumps);
	RUN(test_r11_refused);
	kbpf_host_free(host);
	return test_summary();
}
