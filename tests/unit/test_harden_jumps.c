/* SPDX-License-Identifier: Apache-2.0 */
/* "Torturous jumps": a chain of jumps each of which fits its short form only once the
 * next one has shrunk needs a pass per jump to settle. The JIT freezes jump forms after
 * JIT_FREEZE_PASSES passes, so even a 100-link chain compiles (the early links stay
 * long) and computes what the interpreter computes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <kbpf/kbpf.h>
#include "exec/jit.h"
#include "test.h"

/* Link k: "if r1 == r2 goto (after link k+1)", then a filler of 119 bytes of x86 code
 * (39 times "r0 += r1", 3 bytes each, and one "w0 += w1", 2 bytes). Link k's jump
 * spans the filler and link k+1 (cmp 3 bytes + jcc 6 or 2): 128 bytes while link k+1 is
 * long (one too many for rel8), 124 once it is short. */
#define FILLER 40
static size_t build_chain(struct bpf_insn *p, unsigned links)
{
	size_t n = 0;

	p[n++] = (struct bpf_insn)BPF_MOV64_IMM(BPF_REG_0, 0);
	for (unsigned k = 0; k < links; k++) {
		p[n++] = (struct bpf_insn)BPF_JMP_REG(BPF_JEQ, BPF_REG_1, BPF_REG_2, FILLER + 1);
		for (unsigned f = 0; f < FILLER - 1; f++)
			p[n++] = (struct bpf_insn)BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1);
		p[n++] = (struct bpf_insn)BPF_ALU32_REG(BPF_ADD, BPF_REG_0, BPF_REG_1);
	}
	/* the last link's jump lands here, past one more instruction */
	p[n++] = (struct bpf_insn)BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 1);
	p[n++] = (struct bpf_insn)BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 2);
	p[n++] = (struct bpf_insn)BPF_EXIT_INSN();
	return n;
}

static void check_chain(unsigned links, unsigned flags)
{
	size_t cap = 4 + (size_t)links * (FILLER + 1), n;
	struct bpf_insn *p = calloc(cap, sizeof(*p));
	struct kbpf_prog *pi = NULL, *pj = NULL;
	char log[256] = "";
	struct kbpf_prog_opts po = { .sz = sizeof(po), .trusted_unverified = 1, .log_buf = log, .log_size = sizeof(log) };

	if (!p) {
		CHECK(0);
		return;
	}
	n = build_chain(p, links);
	CHECK(n <= cap);
	CHECK(kbpf_prog_create(p, n, &po, &pi) == 0);
	CHECK(kbpf_prog_create(p, n, &po, &pj) == 0);
	if (pi && pj) {
		int ret = kbpf_jit_attach(pj, flags, log, sizeof(log));

		if (ret)
			fprintf(stderr, "%u links: %s\n", links, log);
		CHECK(ret == 0 && kbpf_prog_is_jited(pj));
	}
	if (pi && pj && kbpf_prog_is_jited(pj)) {
		size_t nl;
		const struct kbpf_jited_line *l = kbpf_prog_jited_line_info(pj, &nl);
		size_t first = 1, last = 1 + (size_t)(links - 1) * (FILLER + 1);

		/* the last link is short; a long chain's first stays long (frozen) */
		CHECK(l && nl == n);
		if (l && !flags) { /* blinded, the constants make the chain longer */
			CHECK(l[last].end - l[last].start == 5);
			if (links > 40)
				CHECK(l[first].end - l[first].start == 9);
		}
		for (uint64_t a = 0; a < 3; a++) {
			struct kbpf_run_opts ri = { .sz = sizeof(ri), .args = { 7, a == 0 ? 7 : a } };
			struct kbpf_run_result rir = { .sz = sizeof(rir) }, rjr = { .sz = sizeof(rjr) };
			struct kbpf_run_opts rj = ri;

			CHECK(kbpf_prog_run_opts(pi, &ri, &rir) == 0 && kbpf_prog_run_opts(pj, &rj, &rjr) == 0);
			CHECK_EQ_U64(rjr.retval, rir.retval);
		}
	}
	kbpf_prog_free(pi);
	kbpf_prog_free(pj);
	free(p);
}

static void test_short_chain(void)
{
	if (kbpf_jit_arch_supported())
		check_chain(8, 0);
}

static void test_long_chains_converge(void)
{
	if (!kbpf_jit_arch_supported())
		return;
	check_chain(41, 0);
	check_chain(100, 0);
	check_chain(100, KBPF_JIT_BLIND | KBPF_JIT_STACK_GUARD);
}

int main(void)
{
	RUN(test_short_chain);
	RUN(test_long_chains_converge);
	return test_summary();
}
