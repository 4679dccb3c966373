/* SPDX-License-Identifier: Apache-2.0 */
/* kbpf-bench-harden: what each hardening option costs per run, on the bench programs.
 *
 *   kbpf-bench-harden [--rounds N] [--round-ms MS] [--dir DIR] [PROG...]
 *
 * Each program (PROG.bin of the bench build) is created once per configuration —
 * interpreter and JIT, each plain, with the run budget, with the stack guard, with
 * blinding (JIT) and with everything — and timed through kbpf_prog_run, the call an
 * embedding host makes per event: best of N rounds, each at least MS of this thread's CPU
 * time (so that time the machine spends elsewhere is not counted). Prints a
 * Markdown table of ns per run and each option's ratio to the plain engine. Every
 * configuration must return the plain interpreter's R0, else the tool fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <kbpf/kbpf.h>

#ifndef KBPF_BENCH_DIR
#define KBPF_BENCH_DIR "bench/programs"
#endif
#ifndef KBPF_BENCH_PROGS
#define KBPF_BENCH_PROGS "empty,sum_loop,collatz,sieve,crc32,matmul,fnv1a,bubble_sort,helper_calls"
#endif

/* Large enough that no bench program's loops run out: the cost measured is the counting. */
#define BENCH_BUDGET (1ull << 40)

struct config {
	const char *name;
	int jit;
	unsigned harden;
	uint64_t budget;
};

/* Built against a kbpf without the options (to time the plain engines of an older
 * tree the same way: before/after comparisons), only the plain configurations exist. */
#ifdef KBPF_HARDEN_BLIND
#define JIT_PLAIN 4
static const struct config configs[] = {
	{ "interp", 0, 0, 0 },
	{ "interp budget", 0, 0, BENCH_BUDGET },
	{ "interp guard", 0, KBPF_HARDEN_STACK_GUARD, 0 },
	{ "interp all", 0, KBPF_HARDEN_ALL, BENCH_BUDGET },
	{ "JIT", 1, 0, 0 },
	{ "JIT blind", 1, KBPF_HARDEN_BLIND, 0 },
	{ "JIT guard", 1, KBPF_HARDEN_STACK_GUARD, 0 },
	{ "JIT budget", 1, 0, BENCH_BUDGET },
	{ "JIT all", 1, KBPF_HARDEN_ALL, BENCH_BUDGET },
};
#else
#define JIT_PLAIN 1
static const struct config configs[] = {
	{ "interp", 0, 0, 0 },
	{ "JIT", 1, 0, 0 },
};
#endif
#define NR_CONFIGS (sizeof(configs) / sizeof(configs[0]))

static volatile uint64_t bench_helper_value, sink;

/* Helper #42, as kbpf-bench registers it. */
static uint64_t bench_helper(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5)
{
	(void)r1, (void)r2, (void)r3, (void)r4, (void)r5;
	return bench_helper_value;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* preemption on a busy machine is not the program's cost */
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static struct bpf_insn *read_bin(const char *path, size_t *cnt)
{
	FILE *f = fopen(path, "rb");
	struct bpf_insn *insns = NULL;
	long len;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0 && len % 8 == 0 && fseek(f, 0, SEEK_SET) == 0) {
		insns = malloc((size_t)len);
		if (insns && fread(insns, 1, (size_t)len, f) != (size_t)len) {
			free(insns);
			insns = NULL;
		}
		*cnt = (size_t)len / 8;
	}
	fclose(f);
	return insns;
}

/* How many runs make a round of at least round_ns; 0 if a run fails. */
static unsigned calibrate(const struct kbpf_prog *p, void *ctx, double round_ns, uint64_t *r0)
{
	for (unsigned repeat = 1;; repeat *= 2) {
		double t0 = now_ns();

		for (unsigned i = 0; i < repeat; i++) {
			if (kbpf_prog_run(p, ctx, r0))
				return 0;
			sink += *r0;
		}
		if (now_ns() - t0 >= round_ns || repeat >= (1u << 30))
			return repeat;
	}
}

/* ns per run of one round of repeat runs; -1 if a run fails. */
static double round_ns_per_run(const struct kbpf_prog *p, void *ctx, unsigned repeat)
{
	uint64_t r0;
	double t0 = now_ns();

	for (unsigned i = 0; i < repeat; i++) {
		if (kbpf_prog_run(p, ctx, &r0))
			return -1;
		sink += r0;
	}
	return (now_ns() - t0) / repeat;
}

int main(int argc, char **argv)
{
	const char *dir = KBPF_BENCH_DIR;
	unsigned rounds = 5;
	double round_ms = 20;
	char progs[512];
	int i, failed = 0;
	static unsigned char ctx[4096] __attribute__((aligned(8)));
	struct kbpf_host *host = kbpf_host_new();

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			rounds = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--round-ms") && i + 1 < argc)
			round_ms = atof(argv[++i]);
		else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
			dir = argv[++i];
		else {
			fprintf(stderr, "usage: kbpf-bench-harden [--rounds N] [--round-ms MS] [--dir DIR] [PROG...]\n");
			return 2;
		}
	}
	if (!rounds)
		rounds = 1;
	if (!host || kbpf_host_helper_register(host, 42, "bench_helper", bench_helper)) {
		fprintf(stderr, "kbpf-bench-harden: cannot create the host\n");
		return 1;
	}
	progs[0] = 0;
	if (i < argc) {
		for (; i < argc; i++) {
			strncat(progs, argv[i], sizeof(progs) - strlen(progs) - 2);
			strcat(progs, ",");
		}
	} else {
		snprintf(progs, sizeof(progs), "%s", KBPF_BENCH_PROGS);
	}

	printf("| program |");
	for (size_t c = 0; c < NR_CONFIGS; c++)
		printf(" %s |", configs[c].name);
	printf("\n|---|");
	for (size_t c = 0; c < NR_CONFIGS; c++)
		printf("---:|");
	printf("\n");
	for (char *save = NULL, *name = strtok_r(progs, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		char path[1024];
		size_t cnt = 0;
		struct bpf_insn *insns;
		double ns[NR_CONFIGS];
		uint64_t want = 0;

		snprintf(path, sizeof(path), "%s/%s.bin", dir, name);
		insns = read_bin(path, &cnt);
		if (!insns) {
			fprintf(stderr, "kbpf-bench-harden: cannot read %s\n", path);
			failed = 1;
			continue;
		}
		struct kbpf_prog *p[NR_CONFIGS] = { 0 };
		unsigned repeat[NR_CONFIGS] = { 0 };

		for (size_t c = 0; c < NR_CONFIGS; c++) {
			char log[256] = "";
			struct kbpf_prog_opts po = { .sz = sizeof(po), .trusted_unverified = 1, .host = host, .name = name, .log_buf = log,
						     .log_size = sizeof(log), .jit = configs[c].jit,
#ifdef KBPF_HARDEN_BLIND
						     .harden = configs[c].harden, .run_budget = configs[c].budget
#endif
			};
			uint64_t r0 = 0;

			ns[c] = -1;
			memset(ctx, 0, sizeof(ctx));
			if (kbpf_prog_create(insns, cnt, &po, &p[c]) || (configs[c].jit && !kbpf_prog_is_jited(p[c]))) {
				fprintf(stderr, "kbpf-bench-harden: %s (%s): %s\n", name, configs[c].name, log);
				failed = 1;
				kbpf_prog_free(p[c]);
				p[c] = NULL;
				continue;
			}
			repeat[c] = calibrate(p[c], ctx, round_ms * 1e6, &r0);
			if (c == 0)
				want = r0;
			if (!repeat[c] || (uint32_t)r0 != (uint32_t)want) {
				fprintf(stderr, "kbpf-bench-harden: %s (%s): R0 0x%llx, the interpreter's 0x%llx\n", name,
					configs[c].name, (unsigned long long)r0, (unsigned long long)want);
				failed = 1;
				kbpf_prog_free(p[c]);
				p[c] = NULL;
			}
		}
		/* Rounds interleave the configurations, so that a busy moment of the machine
		 * weighs on all of them alike; the best round of each is its figure. */
		for (unsigned r = 0; r < rounds; r++)
			for (size_t c = 0; c < NR_CONFIGS; c++) {
				double t = p[c] ? round_ns_per_run(p[c], ctx, repeat[c]) : -1;

				if (t >= 0 && (ns[c] < 0 || t < ns[c]))
					ns[c] = t;
			}
		for (size_t c = 0; c < NR_CONFIGS; c++)
			kbpf_prog_free(p[c]);
		printf("| %s |", name);
		for (size_t c = 0; c < NR_CONFIGS; c++) {
			/* the ratio to the same engine without options */
			double base = ns[configs[c].jit ? JIT_PLAIN : 0];

			if (ns[c] < 0)
				printf(" – |");
			else if (c == 0 || c == JIT_PLAIN)
				printf(" %.1f |", ns[c]);
			else
				printf(" %.1f (%.2f×) |", ns[c], base > 0 ? ns[c] / base : 0);
		}
		printf("\n");
		free(insns);
	}
	kbpf_host_free(host);
	return failed;
}
