/* SPDX-License-Identifier: Apache-2.0 */
/* An embedder that links libkbpf.a statically and has functions of its own under names
 * kbpf uses inside (the verifier's vlog, state_new and check_cfg, the JIT's x86_mov_rr):
 * it links (no "multiple definition"), its functions stay its own, and kbpf's verifier
 * and JIT still work (tests/abi/static_embedder.sh). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <kbpf/kbpf.h>

/* the embedder's own, with signatures unlike kbpf's */
int vlog(const char *what) { return (int)strlen(what); }
int state_new(int x) { return x * 2; }
long check_cfg(long a, long b) { return a - b; }
int x86_mov_rr = 7; /* a variable, even */

/* r0 = 5; r1 = 0; loop: r0 += r1; r1 += 1; if r1 < 10 goto loop; exit: 5 + 0 + … + 9 = 50 */
static const struct bpf_insn prog[] = {
	BPF_MOV64_IMM(BPF_REG_0, 5),
	BPF_MOV64_IMM(BPF_REG_1, 0),
	BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 1),
	BPF_JMP_IMM(BPF_JLT, BPF_REG_1, 10, -3),
	BPF_EXIT_INSN(),
};

int main(void)
{
	struct kbpf_host *host = kbpf_host_new();
	struct kbpf_prog_type t = { .sz = sizeof(t), .name = "embedder", .ctx_size = 8 };
	uint64_t ctx = 0;
	int status = 0;

	if (!host || kbpf_host_prog_type_register(host, &t)) {
		fprintf(stderr, "host setup failed\n");
		return 1;
	}
	for (int jit = 0; jit < 2; jit++) {
#ifndef __x86_64__
		if (jit) { /* kbpf's JIT is x86-64's only */
			printf("JIT run skipped: no JIT off x86-64\n");
			break;
		}
#endif
		char log[4096] = "";
		struct kbpf_prog_opts o = { .sz = sizeof(o), .host = host, .prog_type = "embedder", .jit = jit,
					    .log_level = 2, .log_buf = log, .log_size = sizeof(log) };
		struct kbpf_prog *p = NULL;
		uint64_t r0 = 0;
		int err = kbpf_prog_create(prog, sizeof(prog) / sizeof(prog[0]), &o, &p);

		if (err || kbpf_prog_run(p, &ctx, &r0) || r0 != 50 || !strstr(log, "processed") ||
		    kbpf_prog_is_jited(p) != jit) {
			fprintf(stderr, "%s: create %d, r0 %llu, log: %.300s\n", jit ? "JIT" : "interpreter", err,
				(unsigned long long)r0, log);
			status = 1;
		}
		kbpf_prog_free(p);
	}
	kbpf_host_free(host);
	if (vlog("abc") != 3 || state_new(21) != 42 || check_cfg(5, 3) != 2 || x86_mov_rr != 7) {
		fprintf(stderr, "the embedder's own functions were replaced\n");
		status = 1;
	}
	if (!status)
		printf("static embedder: verified and ran on both engines, its own vlog/state_new/check_cfg/x86_mov_rr intact\n");
	return status;
}
