/* SPDX-License-Identifier: Apache-2.0 */
/* kbpf-bench-kfunc: what a kfunc call costs. A program makes 1000 calls to a host function
 * in a loop (r7 = bench_kfunc_inc(r7)); the table gives ns per call on the interpreter, the
 * same loop calling the function as a helper, the loop with no call at all (its overhead),
 * the same three on the JIT (a kfunc call there is one direct call), and a native C loop calling the same function through
 * a function pointer. This binary is the host: its own BTF (kbpf_add_host_btf) describes
 * bench_kfunc_inc, registered as a kfunc.
 *
 * usage: kbpf-bench-kfunc [--quick] [--rounds N]
 *   --quick   one run of each, checking the results only (ctest bench.kfunc_smoke) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/btf.h>
#include <kbpf/kbpf.h>

#define CALLS 1000

volatile uint64_t bench_kfunc_sink;

/* The host function: noinline, so the native loop calls it as the program does. */
__attribute__((noinline)) uint64_t bench_kfunc_inc(uint64_t v)
{
	return v + 1;
}

static uint64_t helper_inc(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5)
{
	(void)r2, (void)r3, (void)r4, (void)r5;
	return bench_kfunc_inc(r1);
}

static uint64_t (*volatile native_fp)(uint64_t) = bench_kfunc_inc;

static uint64_t native_loop(void)
{
	uint64_t acc = 0;
	for (int i = 0; i < CALLS; i++)
		acc = native_fp(acc);
	return acc;
}

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

enum call_kind { CALL_KFUNC, CALL_HELPER, CALL_NONE };

/* r6 = i, r7 = acc: for (i = 0; i < CALLS; i++) acc = f(acc); return acc */
static int make_prog(struct kbpf_host *host, enum call_kind kind, uint32_t btf_id, int jit, struct kbpf_prog **prog,
		     char *log, size_t log_size)
{
	struct bpf_insn call;
	if (kind == CALL_KFUNC)
		call = (struct bpf_insn)BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, (int32_t)btf_id);
	else if (kind == CALL_HELPER)
		call = (struct bpf_insn)BPF_EMIT_CALL(1000);
	else
		call = (struct bpf_insn)BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 1); /* r0 = r1 + 1 without a call */
	struct bpf_insn insns[] = {
		BPF_MOV64_IMM(BPF_REG_6, 0),
		BPF_MOV64_IMM(BPF_REG_7, 0),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_7),
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_1),
		call,
		BPF_MOV64_REG(BPF_REG_7, BPF_REG_0),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_6, 1),
		BPF_JMP_IMM(BPF_JLT, BPF_REG_6, CALLS, -6),
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_7),
		BPF_EXIT_INSN(),
	};
	struct kbpf_prog_opts o = { .sz = sizeof(o), .trusted_unverified = 1, .host = host, .log_buf = log, .log_size = log_size, .jit = jit };
	return kbpf_prog_create(insns, sizeof(insns) / sizeof(insns[0]), &o, prog);
}

/* Best ns per call over rounds of at least ~100 ms. */
static double time_prog(const struct kbpf_prog *prog, unsigned rounds)
{
	uint64_t r0 = 0;
	unsigned reps = 1;
	double best = 1e30;

	for (;;) { /* calibrate */
		double t = now_ns();
		for (unsigned i = 0; i < reps; i++)
			kbpf_prog_run(prog, NULL, &r0);
		if (now_ns() - t > 1e8 || reps > (1u << 30))
			break;
		reps *= 2;
	}
	for (unsigned r = 0; r < rounds; r++) {
		double t = now_ns();
		for (unsigned i = 0; i < reps; i++) {
			kbpf_prog_run(prog, NULL, &r0);
			bench_kfunc_sink = r0;
		}
		t = (now_ns() - t) / reps / CALLS;
		if (t < best)
			best = t;
	}
	return best;
}

static double time_native(unsigned rounds)
{
	unsigned reps = 1;
	double best = 1e30;

	for (;;) {
		double t = now_ns();
		for (unsigned i = 0; i < reps; i++)
			bench_kfunc_sink = native_loop();
		if (now_ns() - t > 1e8 || reps > (1u << 30))
			break;
		reps *= 2;
	}
	for (unsigned r = 0; r < rounds; r++) {
		double t = now_ns();
		for (unsigned i = 0; i < reps; i++)
			bench_kfunc_sink = native_loop();
		t = (now_ns() - t) / reps / CALLS;
		if (t < best)
			best = t;
	}
	return best;
}

int main(int argc, char **argv)
{
	static const struct kbpf_kfunc funcs[] = { KBPF_KFUNC(bench_kfunc_inc, 0) };
	unsigned rounds = 5;
	int quick = 0, failed = 0;
	char log[512] = "";
	struct kbpf_host *host = kbpf_host_new();
	struct kbpf_kfunc_set_opts so = { .sz = sizeof(so), .name = "bench", .funcs = funcs, .nr_funcs = 1,
					  .prog_types = (const char *const[]){ "bench", NULL }, .log_buf = log,
					  .log_size = sizeof(log) };
	static const char *const label[] = { "interpreter, kfunc call", "interpreter, helper call",
					     "interpreter, loop without a call" };

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick"))
			quick = 1;
		else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			rounds = (unsigned)atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: %s [--quick] [--rounds N]\n", argv[0]);
			return 2;
		}
	}
	if (!rounds)
		rounds = 1;
	if (!host || kbpf_host_btf_load_self(host) || kbpf_host_kfunc_set_register(host, &so, NULL) ||
	    kbpf_host_helper_register(host, 1000, "bench_inc", helper_inc)) {
		fprintf(stderr, "kbpf-bench-kfunc: setting up the host: %s\n", log[0] ? log : "no BTF (kbpf_add_host_btf)");
		kbpf_host_free(host);
		return 1;
	}
	int id = btf__find_by_name_kind(kbpf_host_btf(host), "bench_kfunc_inc", BTF_KIND_FUNC);

	printf("kfunc calls: %d calls per run, ns per call (best of %u rounds)\n", CALLS, rounds);
	double native_ns = quick ? 0.0 : time_native(rounds);
	printf("  %-36s %8.2f\n", "native C, call through a pointer", native_ns);
	for (int k = CALL_KFUNC; k <= CALL_NONE; k++) {
		struct kbpf_prog *prog = NULL;
		uint64_t r0 = 0;
		if (make_prog(host, k, (uint32_t)id, 0, &prog, log, sizeof(log)) || kbpf_prog_run(prog, NULL, &r0) ||
		    r0 != CALLS) {
			fprintf(stderr, "kbpf-bench-kfunc: %s: failed (r0 %llu): %s\n", label[k], (unsigned long long)r0, log);
			failed = 1;
		} else {
			printf("  %-36s %8.2f\n", label[k], quick ? 0.0 : time_prog(prog, rounds));
		}
		kbpf_prog_free(prog);
	}
	/* JIT column: the kfunc call is one direct call; the ratio is against the native
	 * loop's call through a pointer (the goal is at most 1.3x) */
	static const char *const jlabel[] = { "JIT, kfunc call", "JIT, helper call", "JIT, loop without a call" };
	for (int k = CALL_KFUNC; k <= CALL_NONE; k++) {
		struct kbpf_prog *prog = NULL;
		uint64_t r0 = 0;
		log[0] = 0;
		int ret = make_prog(host, k, (uint32_t)id, 1, &prog, log, sizeof(log));
		if (ret == -EOPNOTSUPP) {
			printf("  %-36s %8s   (not an x86-64 host)\n", jlabel[k], "n/a");
		} else if (ret || !kbpf_prog_is_jited(prog) || kbpf_prog_run(prog, NULL, &r0) || r0 != CALLS) {
			fprintf(stderr, "kbpf-bench-kfunc: %s: failed (r0 %llu): %s\n", jlabel[k], (unsigned long long)r0,
				log[0] ? log : "not JIT-compiled");
			failed = 1;
		} else if (quick) {
			printf("  %-36s %8.2f\n", jlabel[k], 0.0);
		} else {
			double t = time_prog(prog, rounds);
			if (k == CALL_KFUNC && native_ns > 0)
				printf("  %-36s %8.2f   (%.2fx native)\n", jlabel[k], t, t / native_ns);
			else
				printf("  %-36s %8.2f\n", jlabel[k], t);
		}
		kbpf_prog_free(prog);
	}
	kbpf_host_free(host);
	return failed;
}
