/* SPDX-License-Identifier: Apache-2.0 */
/* The timing loop of the small single-program benchmarks (kbpf-bench-loop,
 * kbpf-bench-divmod): kbpf_prog_run repeated until a round lasts at least 20 ms of this
 * thread's CPU time, then the best of rounds such rounds, in ns per run. */
#ifndef KBPF_BENCH_BEST_RUN_H
#define KBPF_BENCH_BEST_RUN_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <kbpf/kbpf.h>

static inline double bench_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* *r0: the last run's R0. */
static inline double bench_best_run_ns(const struct kbpf_prog *p, void *ctx, unsigned rounds, uint64_t *r0)
{
	unsigned reps = 1;
	double best = 1e30;

	for (;;) { /* calibrate: a round of at least 20 ms */
		double t0 = bench_cpu_ns();
		for (unsigned k = 0; k < reps; k++)
			kbpf_prog_run(p, ctx, r0);
		if (bench_cpu_ns() - t0 >= 20e6)
			break;
		reps *= 2;
	}
	for (unsigned r = 0; r < rounds; r++) {
		double t0 = bench_cpu_ns();
		for (unsigned k = 0; k < reps; k++)
			kbpf_prog_run(p, ctx, r0);
		double per = (bench_cpu_ns() - t0) / reps;
		if (per < best)
			best = per;
	}
	return best;
}

/* Their options: --rounds N, --loops L. */
static inline void bench_args(int argc, char **argv, unsigned *rounds, int *loops)
{
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--rounds"))
			*rounds = (unsigned)atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--loops"))
			*loops = atoi(argv[i + 1]);
	}
}

#endif
