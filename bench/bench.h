/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the kbpf-bench harness files: what one engine's measurement looks like. */
#ifndef KBPF_BENCH_H
#define KBPF_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <kbpf/insn.h>

/* One engine on one program.  ok == 0 means "not measured" (the reason in why). */
struct bench_result {
	int ok;
	uint32_t retval;   /* the programs return u32; only the low half is compared */
	double ns_per_run; /* best round */
	double ns_median;  /* median round, for the spread */
	char why[512];
};

/* Monotonic time in nanoseconds. */
double bench_now_ns(void);

/* What a timed round is measured in. CPU: the calling thread's CPU time, which leaves out
 * the time the thread waited for a CPU while other jobs ran, as Linux's BPF_PROG_TEST_RUN
 * leaves out the time it spends rescheduled (its timer stops around cond_resched());
 * WALL: monotonic wall time, which on a busy machine includes other jobs' time slices. */
enum bench_clock { BENCH_CLOCK_CPU, BENCH_CLOCK_WALL };
double bench_time_ns(enum bench_clock clock);

/* Run a native_<prog> binary as "path REPEAT ROUNDS CLOCK" (REPEAT 0: it calibrates
 * itself to ~50 ms a round; CLOCK "cpu" or "wall", as enum bench_clock) and parse its
 * "RUN retval=… repeat=… duration_ns=…" lines. */
void bench_native_run(const char *path, unsigned repeat, unsigned rounds, enum bench_clock clock,
		      struct bench_result *res);

/* Linux's bpf() syscall as a reference engine.  bench_linux_probe returns 0 when a
 * socket filter can be loaded and test-run here, else a negative errno with a one-line
 * reason in why. */
int bench_linux_probe(char *why, size_t why_size);
/* 1 when /proc says the kernel JITs programs, 0 when it interprets, -1 unknown. */
int bench_linux_jit_enabled(void);
/* Linux's side of a comparison whose rounds interleave with kbpf's: the program loaded
 * as BPF_PROG_TYPE_SOCKET_FILTER `loads` times (Linux puts each load's code at its own
 * random offset in its JIT memory, and some loops' speed depends on it: bench/README.md),
 * timed one BPF_PROG_TEST_RUN round at a time, the loads in turn. */
#define BENCH_LINUX_MAX_LOADS 8
#define BENCH_LINUX_MAX_ROUNDS 64
struct bench_linux_prog {
	int fd[BENCH_LINUX_MAX_LOADS];
	unsigned loads, repeat, n;
	enum bench_clock clock;
	double ns[BENCH_LINUX_MAX_ROUNDS];       /* per round: ns per run, the bench's clock around the syscall */
	double duration[BENCH_LINUX_MAX_ROUNDS]; /* per round: the kernel's own figure (whole ns) */
	double best_duration;                    /* after bench_linux_result */
	uint32_t retval;
	char why[256];
};
/* Load the program and calibrate the repeat count (a round of at least min_round_ns in
 * clock; fixed_repeat: that count instead). Returns 0, or -errno with the reason in why. */
int bench_linux_open(struct bench_linux_prog *lp, const struct bpf_insn *insns, size_t cnt, unsigned loads,
		     double min_round_ns, unsigned fixed_repeat, enum bench_clock clock);
/* One timed round on the next load. Returns 0, or -errno with the reason in why. */
int bench_linux_round(struct bench_linux_prog *lp);
void bench_linux_close(struct bench_linux_prog *lp);
/* The best and median round (res->why when no round ran). */
void bench_linux_result(struct bench_linux_prog *lp, struct bench_result *res);

/* object_load.c: the largest *.bpf.o of dir that loads (on a host with the map helpers
 * and, when built with kbpf_linux, Linux's program types), and the best of n times of kbpf_object_open_file + kbpf_object_load without and with the JIT. */
struct bench_object {
	int ok;
	char name[256];
	size_t progs, insns; /* programs loaded, their instructions (subprograms included) */
	double load_us, load_jit_us;
	int verifies; /* the host has Linux's program types: load verifies their programs */
	char why[512];
};
int bench_object_load(const char *dir, unsigned n, struct bench_object *out);

#endif
