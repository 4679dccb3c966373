/* SPDX-License-Identifier: Apache-2.0 */
/* kbpf-bench-divmod: what the verifier's division guards (src/verifier/divmod.c, Linux's
 * do_misc_fixups) cost per run.
 *
 *   kbpf-bench-divmod [--rounds N] [--loops L]
 *
 * One program, a loop of L iterations with four divisions by a register each (u64 /,
 * u32 %, s64 s/, s32 s%; operands from the context), run through kbpf_prog_run on the
 * interpreter and the JIT in two forms: verified (type syscall: the guards are in the
 * program that runs) and created unverified (trusted_unverified: the same bytes, each
 * division left to the engine's own zero and -1 checks, as kbpf ran them before the
 * guards). Best of N rounds of this thread's CPU time, each at least 20 ms; prints a
 * Markdown table of ns per run and per division. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <kbpf/kbpf.h>
#include <kbpf/linux.h>
#include "best_run.h"


#define DIVS_PER_LOOP 4

int main(int argc, char **argv)
{
	unsigned rounds = 7;
	int loops = 1000;
	bench_args(argc, argv, &rounds, &loops);
	const struct bpf_insn prog[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_6, BPF_REG_1, 0), /* dividend */
		BPF_LDX_MEM(BPF_DW, BPF_REG_7, BPF_REG_1, 8), /* divisor */
		BPF_MOV64_IMM(BPF_REG_8, 0),
		BPF_MOV64_IMM(BPF_REG_9, 0),
		/* 4: loop */
		BPF_MOV64_REG(BPF_REG_3, BPF_REG_7),
		BPF_ALU64_REG(BPF_ADD, BPF_REG_3, BPF_REG_9),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_6),
		BPF_ALU64_REG(BPF_DIV, BPF_REG_2, BPF_REG_3),
		BPF_ALU64_REG(BPF_ADD, BPF_REG_8, BPF_REG_2),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_6),
		BPF_ALU32_REG(BPF_MOD, BPF_REG_2, BPF_REG_3),
		BPF_ALU64_REG(BPF_ADD, BPF_REG_8, BPF_REG_2),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_6),
		BPF_RAW_INSN(BPF_ALU64 | BPF_DIV | BPF_X, BPF_REG_2, BPF_REG_3, 1, 0),
		BPF_ALU64_REG(BPF_ADD, BPF_REG_8, BPF_REG_2),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_6),
		BPF_RAW_INSN(BPF_ALU | BPF_MOD | BPF_X, BPF_REG_2, BPF_REG_3, 1, 0),
		BPF_ALU64_REG(BPF_ADD, BPF_REG_8, BPF_REG_2),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_9, 1),
		BPF_JMP_IMM(BPF_JLT, BPF_REG_9, loops, -16),
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_8),
		BPF_EXIT_INSN(),
	};
	const size_t cnt = sizeof(prog) / sizeof(prog[0]);
	struct kbpf_host *host = kbpf_host_new();
	if (!host || kbpf_linux_host_add(host)) {
		fprintf(stderr, "kbpf-bench-divmod: no host\n");
		return 1;
	}
	/* -7 / (3 + i): every division does real work (no divisor is 0 or -1) */
	uint64_t ctx[8] = { (uint64_t)-1000003, 3 }, want = 0;

	printf("%d iterations of 4 divisions by a register (u64 /, u32 %%, s64 s/, s32 s%%): ns per run "
	       "(per division), best of %u rounds\n\n", loops, rounds);
	printf("| engine | unguarded (unverified) | guarded (verified) | cost |\n|---|---|---|---|\n");
	for (int jit = 0; jit < 2; jit++) {
		double ns[2] = { 0, 0 };
		for (int guarded = 0; guarded < 2; guarded++) {
			char log[4096] = "";
			struct kbpf_prog *p = NULL;
			struct kbpf_prog_opts po = { .sz = sizeof(po), .host = host, .license = "GPL", .log_buf = log,
						     .log_size = sizeof(log), .jit = jit };
			if (guarded)
				po.prog_type = "syscall";
			else
				po.trusted_unverified = 1;
			if (kbpf_prog_create(prog, cnt, &po, &p)) {
				fprintf(stderr, "kbpf-bench-divmod: create: %s\n", log);
				return 1;
			}
			size_t xcnt = 0;
			kbpf_prog_insns(p, &xcnt);
			if ((xcnt > cnt) != guarded || (jit && !kbpf_prog_is_jited(p))) {
				fprintf(stderr, "kbpf-bench-divmod: %zu -> %zu insns, jited %d\n", cnt, xcnt,
					kbpf_prog_is_jited(p));
				return 1;
			}
			uint64_t r0 = 0;
			double best = bench_best_run_ns(p, ctx, rounds, &r0);
			if (!jit && !guarded)
				want = r0;
			else if (r0 != want) {
				fprintf(stderr, "kbpf-bench-divmod: R0 0x%llx, the unguarded interpreter's 0x%llx\n",
					(unsigned long long)r0, (unsigned long long)want);
				return 1;
			}
			ns[guarded] = best;
			kbpf_prog_free(p);
		}
		double per = (double)loops * DIVS_PER_LOOP;
		printf("| %s | %.0f (%.2f) | %.0f (%.2f) | %+.0f%% |\n", jit ? "JIT" : "interpreter", ns[0], ns[0] / per,
		       ns[1], ns[1] / per, (ns[1] / ns[0] - 1) * 100);
	}
	kbpf_host_free(host);
	return 0;
}
