/* SPDX-License-Identifier: Apache-2.0 */
/* kbpf-bench-loop: what inlining bpf_loop (src/verifier/loop_inline.c) saves per run.
 *
 *   kbpf-bench-loop [--rounds N] [--loops L]
 *
 * One program, bpf_loop(L, cb, &counter, flags) with a trivial callback (++*ctx, return
 * 0), run through kbpf_prog_run on the interpreter and the JIT in two forms: flags the
 * constant 0 (the verifier inlines the call: the loop and a BPF-to-BPF call per
 * iteration), and flags read from the context, which the verifier cannot prove 0 (the
 * helper runs, calling the callback through its function pointer: the program as kbpf
 * ran every bpf_loop before inlining). Best of N rounds of this thread's CPU time, each
 * at least 20 ms; prints a Markdown table of ns per run and per iteration. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <linux/bpf.h>
#include <kbpf/kbpf.h>
#include <kbpf/linux.h>
#include "best_run.h"


#define LD_FUNC(dst, rel) \
	BPF_RAW_INSN(BPF_LD | BPF_IMM | BPF_DW, dst, BPF_PSEUDO_FUNC, 0, rel), BPF_RAW_INSN(0, 0, 0, 0, 0)

int main(int argc, char **argv)
{
	unsigned rounds = 7;
	int loops = 1000;
	bench_args(argc, argv, &rounds, &loops);
	/* r4 = 0 (inlined) or r4 = ctx[0] (not); then the same loop */
	struct bpf_insn prog[] = {
		BPF_MOV64_IMM(BPF_REG_4, 0),
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0),
		BPF_MOV64_IMM(BPF_REG_1, loops),
		LD_FUNC(BPF_REG_2, 11 - 3 - 1),
		BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -8),
		BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_loop),
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_10, -8),
		BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1),
		BPF_EXIT_INSN(),
		/* 11: cb(i, ctx): ++*ctx; go on */
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_2, 0),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 1),
		BPF_STX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, 0),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	const size_t cnt = sizeof(prog) / sizeof(prog[0]);
	struct kbpf_host *host = kbpf_host_new();
	struct btf *btf = btf__new_empty();
	if (!host || kbpf_linux_host_add(host) || !btf) {
		fprintf(stderr, "kbpf-bench-loop: no host\n");
		return 1;
	}
	int t_int = btf__add_int(btf, "int", 4, BTF_INT_SIGNED), t_ptr = btf__add_ptr(btf, 0);
	int p_main = btf__add_func_proto(btf, t_int);
	btf__add_func_param(btf, "ctx", t_ptr);
	int p_cb = btf__add_func_proto(btf, t_int);
	btf__add_func_param(btf, "i", t_int);
	btf__add_func_param(btf, "ctx", t_ptr);
	struct bpf_func_info fi[2] = { { 0, (uint32_t)btf__add_func(btf, "main", BTF_FUNC_STATIC, p_main) },
				       { 11, (uint32_t)btf__add_func(btf, "cb", BTF_FUNC_STATIC, p_cb) } };

	printf("bpf_loop(%d, trivial callback): ns per run (per iteration), best of %u rounds\n\n", loops, rounds);
	printf("| engine | helper call (not inlined) | inlined | speed-up |\n|---|---|---|---|\n");
	for (int jit = 0; jit < 2; jit++) {
		double ns[2] = { 0, 0 };
		for (int inl = 0; inl < 2; inl++) {
			prog[0] = inl ? (struct bpf_insn)BPF_MOV64_IMM(BPF_REG_4, 0)
				      : (struct bpf_insn)BPF_LDX_MEM(BPF_DW, BPF_REG_4, BPF_REG_1, 0);
			char log[4096] = "";
			struct kbpf_prog *p = NULL;
			struct kbpf_prog_opts po = { .sz = sizeof(po), .host = host, .prog_type = "syscall",
						     .license = "GPL", .log_buf = log, .log_size = sizeof(log),
						     .prog_btf = btf, .func_info = fi, .nr_func_info = 2, .jit = jit };
			if (kbpf_prog_create(prog, cnt, &po, &p)) {
				fprintf(stderr, "kbpf-bench-loop: create: %s\n", log);
				return 1;
			}
			size_t xcnt = 0;
			kbpf_prog_insns(p, &xcnt);
			if ((xcnt > cnt) != inl) {
				fprintf(stderr, "kbpf-bench-loop: inlined %zu -> %zu, expected %s\n", cnt, xcnt,
					inl ? "inlined" : "not");
				return 1;
			}
			uint64_t ctx[8] = { 0 }, r0 = 0;
			double best = bench_best_run_ns(p, ctx, rounds, &r0);
			if (r0 != 2ull * (uint64_t)loops) {
				fprintf(stderr, "kbpf-bench-loop: R0 %llu, expected %d\n", (unsigned long long)r0, 2 * loops);
				return 1;
			}
			ns[inl] = best;
			kbpf_prog_free(p);
		}
		printf("| %s | %.0f (%.1f) | %.0f (%.1f) | %.1fx |\n", jit ? "JIT" : "interpreter", ns[0], ns[0] / loops,
		       ns[1], ns[1] / loops, ns[0] / ns[1]);
	}
	btf__free(btf);
	kbpf_host_free(host);
	return 0;
}
