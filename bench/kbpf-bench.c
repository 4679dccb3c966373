/* SPDX-License-Identifier: Apache-2.0 */
/* kbpf-bench: times kbpf's interpreter on the benchmark programs (bench/programs) and
 * sets it against the same C compiled natively by gcc and clang, and against Linux's
 * own engine (bpf() + BPF_PROG_TEST_RUN) when this process may use it.
 *
 * usage: kbpf-bench [--quick] [--format text|md] [--dir DIR] [--rounds N]
 *                   [--round-ms MS] [--clock cpu|wall] [--no-linux] [--linux-loads N]
 *                   [--verbose] [PROG...]
 *
 * Each engine is timed in rounds after calibrating the repeat count so that a round
 * lasts at least --round-ms; the table shows the best round (the least disturbed by
 * the rest of the machine), --verbose also prints the median. Rounds are timed in the
 * thread's CPU time by default (--clock cpu), Linux's too (around each
 * BPF_PROG_TEST_RUN): the time other jobs of a busy machine ran is in no column. Wall
 * time (--clock wall) counts it everywhere. The kbpf JIT's rounds and Linux's
 * alternate, so that the two face the same machine. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <kbpf/kbpf.h>

#include "bench.h"

#ifndef KBPF_BENCH_DIR
#define KBPF_BENCH_DIR "."
#endif
#ifndef KBPF_BENCH_PROGS
#define KBPF_BENCH_PROGS "empty,sum_loop,collatz,sieve,crc32,matmul,fnv1a,bubble_sort,helper_calls"
#endif
#ifndef KBPF_BENCH_CC_LABEL
#define KBPF_BENCH_CC_LABEL "gcc"
#endif
#ifndef KBPF_BENCH_OBJ_DIR
#define KBPF_BENCH_OBJ_DIR ""
#endif

#define MAX_PROGS 64
#define CTX_SIZE 64
/* A stuck program in checked mode must end the benchmark, not hang it; the largest
 * benchmark program runs well under 1M instructions (the kernel verifier's limit). */
#define CHECKED_MAX_INSNS 100000000ull

struct row {
	const char *name;
	size_t static_insns;
	uint64_t insns_executed; /* from the checked run; 0 when it failed */
	struct bench_result interp, jit, jit_fn, linux_run, cc, clang;
	double linux_duration; /* Linux's best round by its own clock (BPF_PROG_TEST_RUN's duration) */
	double jit_compile_us; /* kbpf_prog_create with .jit minus without; 0: not measured */
};

struct settings {
	const char *dir;
	const char *obj_dir; /* "" : no object load timing */
	int quick;
	int markdown;
	int linux_wanted;
	int verbose;
	unsigned rounds;
	unsigned linux_loads; /* each program loaded this many times into Linux (its placements) */
	double round_ns;
	enum bench_clock clock;
};

/* The helper the programs call as #42 (Linux: bpf_get_numa_node_id).  Like
 * native_main.c's bench_helper, it reads a volatile so no engine can fold it away. */
static volatile uint64_t bench_helper_value;

/* Where timed runs leave their results, so that none of them is dead code. */
volatile uint64_t bench_sink;

static uint64_t bench_helper(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5)
{
	(void)r1, (void)r2, (void)r3, (void)r4, (void)r5;
	return bench_helper_value;
}

/* Read a raw instruction file (the "socket" section of PROG.bpf.o). Returns the
 * instruction count, or 0 with errno set. */
static size_t read_insns(const char *path, struct bpf_insn **out)
{
	struct stat st;
	struct bpf_insn *insns;
	size_t len = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || st.st_size <= 0 || st.st_size % sizeof(struct bpf_insn)) {
		close(fd);
		errno = EINVAL;
		return 0;
	}
	insns = malloc((size_t)st.st_size);
	if (!insns) {
		close(fd);
		errno = ENOMEM;
		return 0;
	}
	while (len < (size_t)st.st_size) {
		ssize_t r = read(fd, (char *)insns + len, (size_t)st.st_size - len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			free(insns);
			close(fd);
			errno = EIO;
			return 0;
		}
		len += (size_t)r;
	}
	close(fd);
	*out = insns;
	return len / sizeof(struct bpf_insn);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* repeat runs, each result into bench_sink; the last one's R0 in *ret. Returns nonzero
 * when a run failed. Two loops, so that neither pays for choosing the other. */
static __attribute__((noinline)) int run_batch(const struct kbpf_prog *prog, kbpf_prog_fn fn, void *ctx,
					       unsigned repeat, uint64_t *ret)
{
	if (fn) {
		for (unsigned i = 0; i < repeat; i++) {
			struct kbpf_prog_result r = fn(ctx);

			if (r.err)
				return 1;
			*ret = r.retval;
			bench_sink += r.retval;
		}
		return 0;
	}
	for (unsigned i = 0; i < repeat; i++) {
		if (kbpf_prog_run(prog, ctx, ret))
			return 1;
		bench_sink += *ret;
	}
	return 0;
}

/* Time kbpf_prog_run: the call an embedding host makes per event; or, with fn, a call
 * of the native function kbpf_prog_jited_func gives. With lp, each timed round is
 * followed by one of Linux's (bench_linux_round), so that both engines run under the
 * same conditions (the machine's load and clock speed drift over seconds). */
static void time_interp(const struct kbpf_prog *prog, kbpf_prog_fn fn, void *ctx, const struct settings *s,
			struct bench_result *res, struct bench_linux_prog *lp)
{
	double d[64];
	unsigned repeat = 1, rounds = s->quick ? 1 : s->rounds, n;
	uint64_t ret = 0;

	if (rounds > 64)
		rounds = 64;
	if (s->quick) {
		repeat = 3;
	} else {
		for (;;) {
			double t0 = bench_time_ns(s->clock);

			if (run_batch(prog, fn, ctx, repeat, &ret))
				goto fail;
			if (bench_time_ns(s->clock) - t0 >= s->round_ns || repeat >= (1u << 30))
				break;
			repeat *= 2;
		}
	}
	for (n = 0; n < rounds; n++) {
		double t0 = bench_time_ns(s->clock);

		if (run_batch(prog, fn, ctx, repeat, &ret))
			goto fail;
		d[n] = (bench_time_ns(s->clock) - t0) / repeat;
		if (lp && lp->loads)
			bench_linux_round(lp);
	}
	qsort(d, n, sizeof(d[0]), cmp_double);
	res->retval = (uint32_t)ret;
	res->ns_per_run = d[0];
	res->ns_median = d[n / 2];
	res->ok = 1;
	return;
fail:
	snprintf(res->why, sizeof(res->why), fn ? "the kbpf_prog_jited_func function failed" : "kbpf_prog_run failed");
}

/* Best-of time of f: create (and free) the program n times. */
static double create_ns(struct kbpf_host *host, const struct bpf_insn *insns, size_t cnt, int jit, unsigned n)
{
	struct kbpf_prog_opts popts = { .sz = sizeof(popts), .trusted_unverified = 1, .host = host, .jit = jit };
	double best = 1e18;

	for (unsigned i = 0; i < n; i++) {
		struct kbpf_prog *prog = NULL;
		double t0 = bench_now_ns();

		if (kbpf_prog_create(insns, cnt, &popts, &prog))
			return -1;
		double t = bench_now_ns() - t0;
		kbpf_prog_free(prog);
		if (t < best)
			best = t;
	}
	return best;
}

/* The same program JIT-compiled: its time per run (checked against the checked-mode
 * result) and the JIT's compile time (create with .jit minus create without). */
static void measure_jit(struct kbpf_host *host, const struct bpf_insn *insns, size_t cnt, void *ctx,
			const struct settings *s, struct row *row, uint32_t expect, struct bench_linux_prog *lp)
{
	char log[256] = "";
	struct kbpf_prog_opts popts = {
		.sz = sizeof(popts), .trusted_unverified = 1, .host = host, .name = row->name, .log_buf = log, .log_size = sizeof(log), .jit = 1,
	};
	struct kbpf_prog *prog = NULL;
	int rc = kbpf_prog_create(insns, cnt, &popts, &prog);

	if (rc || !kbpf_prog_is_jited(prog)) {
		snprintf(row->jit.why, sizeof(row->jit.why), "%s", rc ? strerror(-rc) : *log ? log : "not JIT-compiled");
		kbpf_prog_free(prog);
		return;
	}
	time_interp(prog, NULL, ctx, s, &row->jit, lp);
	time_interp(prog, kbpf_prog_jited_func(prog), ctx, s, &row->jit_fn, NULL);
	kbpf_prog_free(prog);
	if (row->jit.ok && row->jit.retval != expect) {
		row->jit.ok = 0;
		snprintf(row->jit.why, sizeof(row->jit.why), "MISMATCH checked mode returned 0x%x, JIT 0x%x", expect,
			 row->jit.retval);
	}
	if (row->jit_fn.ok && row->jit_fn.retval != expect) {
		row->jit_fn.ok = 0;
		snprintf(row->jit_fn.why, sizeof(row->jit_fn.why),
			 "MISMATCH checked mode returned 0x%x, kbpf_prog_jited_func 0x%x", expect, row->jit_fn.retval);
	}
	if (!s->quick) {
		double with = create_ns(host, insns, cnt, 1, 200), without = create_ns(host, insns, cnt, 0, 200);
		if (with > 0 && without > 0)
			row->jit_compile_us = (with - without) / 1000.0;
	}
}

/* Load PROG.bin into kbpf, count its instructions in checked mode, time the fast mode. */
static void measure_kbpf(struct kbpf_host *host, const struct bpf_insn *insns, size_t cnt,
			 const struct settings *s, struct row *row, struct bench_linux_prog *lp)
{
	static unsigned char ctx[CTX_SIZE] __attribute__((aligned(8)));
	char log[256] = "", err[256] = "";
	struct kbpf_prog_opts popts = {
		.sz = sizeof(popts), .trusted_unverified = 1, .host = host, .name = row->name,
		.log_buf = log, .log_size = sizeof(log),
	};
	struct kbpf_mem_region region = {
		.base = ctx, .size = sizeof(ctx), .flags = KBPF_MEM_READ | KBPF_MEM_WRITE, .name = "ctx",
	};
	struct kbpf_run_opts ropts = {
		.sz = sizeof(ropts), .flags = KBPF_RUN_CHECKED, .regions = &region, .nr_regions = 1,
		.max_insns = CHECKED_MAX_INSNS, .err = err, .err_size = sizeof(err),
	};
	struct kbpf_run_result rres = { .sz = sizeof(rres) };
	struct kbpf_prog *prog = NULL;
	int rc;

	rc = kbpf_prog_create(insns, cnt, &popts, &prog);
	if (rc) {
		snprintf(row->interp.why, sizeof(row->interp.why), "kbpf_prog_create: %s%s%s",
			 strerror(-rc), *log ? ": " : "", log);
		return;
	}
	ropts.args[0] = (uint64_t)(uintptr_t)ctx;
	rc = kbpf_prog_run_opts(prog, &ropts, &rres);
	if (rc) {
		char at[32] = "";

		if (rres.fault_insn >= 0)
			snprintf(at, sizeof(at), " at insn %lld", (long long)rres.fault_insn);
		snprintf(row->interp.why, sizeof(row->interp.why), "checked run: %s%s%s%s", strerror(-rc),
			 at, *err ? ": " : "", err);
		kbpf_prog_free(prog);
		return;
	}
	row->insns_executed = rres.insns_executed;
	time_interp(prog, NULL, ctx, s, &row->interp, NULL);
	measure_jit(host, insns, cnt, ctx, s, row, (uint32_t)rres.retval, lp);
	/* The checked and fast modes must agree with each other before anything else. */
	if (row->interp.ok && row->interp.retval != (uint32_t)rres.retval) {
		row->interp.ok = 0;
		snprintf(row->interp.why, sizeof(row->interp.why),
			 "MISMATCH checked mode returned 0x%x, fast mode 0x%x", (uint32_t)rres.retval,
			 row->interp.retval);
	}
	kbpf_prog_free(prog);
}

static void measure(struct kbpf_host *host, const struct settings *s, struct row *row)
{
	static struct bench_linux_prog lp;
	char path[4096];
	struct bpf_insn *insns = NULL;
	size_t cnt;
	int linux_ok = 0;

	snprintf(path, sizeof(path), "%s/%s.bin", s->dir, row->name);
	cnt = read_insns(path, &insns);
	if (!cnt) {
		snprintf(row->interp.why, sizeof(row->interp.why), "%s/%s.bin: %s", s->dir, row->name,
			 strerror(errno));
	} else {
		row->static_insns = cnt;
		/* Linux's rounds run between the kbpf JIT's (time_interp) */
		if (s->linux_wanted)
			linux_ok = !bench_linux_open(&lp, insns, cnt, s->linux_loads, s->round_ns, 0, s->clock);
		measure_kbpf(host, insns, cnt, s, row, linux_ok ? &lp : NULL);
	}

	snprintf(path, sizeof(path), "%s/native_%s", s->dir, row->name);
	bench_native_run(path, s->quick ? 3 : 0, s->quick ? 1 : s->rounds, s->clock, &row->cc);
	snprintf(path, sizeof(path), "%s/native_clang_%s", s->dir, row->name);
	bench_native_run(path, s->quick ? 3 : 0, s->quick ? 1 : s->rounds, s->clock, &row->clang);

	if (linux_ok) {
		/* no kbpf JIT round ran (it failed): Linux's rounds alone */
		while (lp.n < s->rounds && lp.n < BENCH_LINUX_MAX_ROUNDS && !bench_linux_round(&lp))
			;
		bench_linux_result(&lp, &row->linux_run);
		row->linux_duration = lp.best_duration;
		bench_linux_close(&lp);
	} else if (s->linux_wanted && cnt) {
		snprintf(row->linux_run.why, sizeof(row->linux_run.why), "%s", lp.why);
	}
	free(insns);
}

/* --- the table --- */

#define NCOLS 15
static const char *const headers[NCOLS] = {
	"program", "BPF insns/run", "kbpf interp ns/run", "interp ns/insn", "kbpf JIT ns/run",
	"Linux JIT ns/run", "JIT/Linux", (KBPF_BENCH_CC_LABEL " -O2 ns/run"), ("interp/" KBPF_BENCH_CC_LABEL),
	("JIT/" KBPF_BENCH_CC_LABEL), "clang -O2 ns/run", "interp/clang", "JIT/clang", "JIT fn ns/run",
	("fn/" KBPF_BENCH_CC_LABEL),
};

static void fmt_ns(char *buf, size_t size, const struct bench_result *r)
{
	if (!r->ok)
		snprintf(buf, size, "n/a");
	else if (r->ns_per_run < 100)
		snprintf(buf, size, "%.1f", r->ns_per_run);
	else
		snprintf(buf, size, "%.0f", r->ns_per_run);
}

static void fmt_ratio(char *buf, size_t size, const struct bench_result *a, const struct bench_result *b)
{
	if (!a->ok || !b->ok || b->ns_per_run <= 0)
		snprintf(buf, size, "n/a");
	else
		snprintf(buf, size, "%.1fx", a->ns_per_run / b->ns_per_run);
}

/* The same with two decimals: the JIT/Linux goal (at or below 1.0) is decided at the
 * percent. */
static void fmt_ratio2(char *buf, size_t size, const struct bench_result *a, const struct bench_result *b)
{
	if (!a->ok || !b->ok || b->ns_per_run <= 0)
		snprintf(buf, size, "n/a");
	else
		snprintf(buf, size, "%.2fx", a->ns_per_run / b->ns_per_run);
}

static void row_cells(const struct row *r, char cells[NCOLS][32])
{
	snprintf(cells[0], 32, "%s", r->name);
	if (r->insns_executed)
		snprintf(cells[1], 32, "%llu", (unsigned long long)r->insns_executed);
	else
		snprintf(cells[1], 32, "n/a");
	fmt_ns(cells[2], 32, &r->interp);
	if (r->interp.ok && r->insns_executed)
		snprintf(cells[3], 32, "%.2f", r->interp.ns_per_run / (double)r->insns_executed);
	else
		snprintf(cells[3], 32, "n/a");
	fmt_ns(cells[4], 32, &r->jit);
	fmt_ns(cells[5], 32, &r->linux_run);
	fmt_ratio2(cells[6], 32, &r->jit, &r->linux_run);
	fmt_ns(cells[7], 32, &r->cc);
	fmt_ratio(cells[8], 32, &r->interp, &r->cc);
	fmt_ratio(cells[9], 32, &r->jit, &r->cc);
	fmt_ns(cells[10], 32, &r->clang);
	fmt_ratio(cells[11], 32, &r->interp, &r->clang);
	fmt_ratio(cells[12], 32, &r->jit, &r->clang);
	fmt_ns(cells[13], 32, &r->jit_fn);
	fmt_ratio(cells[14], 32, &r->jit_fn, &r->cc);
}

static void print_table(const struct row *rows, unsigned n, int markdown)
{
	static char cells[MAX_PROGS][NCOLS][32];
	size_t w[NCOLS];

	for (unsigned c = 0; c < NCOLS; c++)
		w[c] = strlen(headers[c]);
	for (unsigned i = 0; i < n; i++) {
		row_cells(&rows[i], cells[i]);
		for (unsigned c = 0; c < NCOLS; c++)
			if (strlen(cells[i][c]) > w[c])
				w[c] = strlen(cells[i][c]);
	}
	if (markdown) {
		printf("|");
		for (unsigned c = 0; c < NCOLS; c++)
			printf(" %s |", headers[c]);
		printf("\n|");
		for (unsigned c = 0; c < NCOLS; c++)
			printf(c ? "---:|" : "---|");
		printf("\n");
		for (unsigned i = 0; i < n; i++) {
			printf("|");
			for (unsigned c = 0; c < NCOLS; c++)
				printf(" %s |", cells[i][c]);
			printf("\n");
		}
		return;
	}
	for (unsigned c = 0; c < NCOLS; c++)
		printf(c ? "  %*s" : "%-*s", (int)w[c], headers[c]);
	printf("\n");
	for (unsigned i = 0; i < n; i++) {
		for (unsigned c = 0; c < NCOLS; c++)
			printf(c ? "  %*s" : "%-*s", (int)w[c], cells[i][c]);
		printf("\n");
	}
}

/* Compares every engine's result with kbpf's; prints one MISMATCH line per
 * disagreement and returns their number. */
static unsigned check_retvals(const struct row *r, const char *bullet)
{
	const struct { const char *name; const struct bench_result *res; } others[] = {
		{ KBPF_BENCH_CC_LABEL, &r->cc }, { "clang", &r->clang }, { "Linux", &r->linux_run },
		{ "kbpf JIT", &r->jit }, { "kbpf_prog_jited_func", &r->jit_fn },
	};
	unsigned bad = 0;

	if (!r->interp.ok)
		return 0;
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		if (others[i].res->ok && others[i].res->retval != r->interp.retval) {
			printf("%sMISMATCH %s: kbpf returned 0x%x, %s 0x%x\n", bullet, r->name,
			       r->interp.retval, others[i].name, others[i].res->retval);
			bad++;
		}
	}
	return bad;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: kbpf-bench [--quick] [--format text|md] [--dir DIR] [--rounds N]\n"
		   "                  [--round-ms MS] [--clock cpu|wall] [--no-linux] [--objects DIR]\n"
		   "                  [--linux-loads N] [--verbose] [PROG...]\n"
		   "  --quick      tiny repeat counts, one round, no Linux: checks results, times nothing\n"
		   "  --format md  print the table as Markdown\n"
		   "  --dir DIR    where PROG.bin and native_PROG live (default %s)\n"
		   "  --rounds N   timed rounds per engine, best one reported (default 5)\n"
		   "  --round-ms   minimum duration of one round (default 20)\n"
		   "  --clock C    time rounds in the thread's CPU time (cpu, the default: what Linux's\n"
		   "               BPF_PROG_TEST_RUN reports too) or in wall time (wall)\n"
		   "  --no-linux   do not try Linux's bpf()\n"
		   "  --linux-loads N  load each program N times into Linux, rounds in turn (default 3;\n"
		   "               each load's code lies at its own random offset)\n"
		   "  --objects DIR  time open+load (and with the JIT) of the largest *.bpf.o in DIR\n"
		   "               that loads on a default host (default %s; '' for none)\n",
		KBPF_BENCH_DIR, KBPF_BENCH_OBJ_DIR[0] ? KBPF_BENCH_OBJ_DIR : "none");
}

int main(int argc, char **argv)
{
	static struct row rows[MAX_PROGS];
	static char prog_list[] = KBPF_BENCH_PROGS;
	struct settings s = { .dir = KBPF_BENCH_DIR, .obj_dir = KBPF_BENCH_OBJ_DIR, .rounds = 5, .round_ns = 20e6,
			      .linux_wanted = 1, .clock = BENCH_CLOCK_CPU, .linux_loads = 3 };
	const char *bullet;
	char linux_why[200] = "";
	struct kbpf_host *host;
	unsigned n = 0, failures = 0, mismatches = 0;
	int i, linux_ok = 0;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--quick")) {
			s.quick = 1;
		} else if (!strcmp(a, "--format") && i + 1 < argc) {
			a = argv[++i];
			if (strcmp(a, "md") && strcmp(a, "text")) {
				usage(stderr);
				return 2;
			}
			s.markdown = !strcmp(a, "md");
		} else if (!strcmp(a, "--dir") && i + 1 < argc) {
			s.dir = argv[++i];
		} else if (!strcmp(a, "--rounds") && i + 1 < argc) {
			s.rounds = (unsigned)strtoul(argv[++i], NULL, 0);
			if (!s.rounds)
				s.rounds = 1;
		} else if (!strcmp(a, "--round-ms") && i + 1 < argc) {
			s.round_ns = strtod(argv[++i], NULL) * 1e6;
		} else if (!strcmp(a, "--clock") && i + 1 < argc) {
			a = argv[++i];
			if (strcmp(a, "cpu") && strcmp(a, "wall")) {
				usage(stderr);
				return 2;
			}
			s.clock = !strcmp(a, "cpu") ? BENCH_CLOCK_CPU : BENCH_CLOCK_WALL;
		} else if (!strcmp(a, "--objects") && i + 1 < argc) {
			s.obj_dir = argv[++i];
		} else if (!strcmp(a, "--no-linux")) {
			s.linux_wanted = 0;
		} else if (!strcmp(a, "--linux-loads") && i + 1 < argc) {
			s.linux_loads = (unsigned)strtoul(argv[++i], NULL, 0);
			if (!s.linux_loads)
				s.linux_loads = 1;
		} else if (!strcmp(a, "--verbose") || !strcmp(a, "-v")) {
			s.verbose = 1;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else if (a[0] == '-') {
			usage(stderr);
			return 2;
		} else if (n < MAX_PROGS) {
			rows[n++].name = a;
		}
	}
	if (!n)
		for (char *tok = strtok(prog_list, ","); tok && n < MAX_PROGS; tok = strtok(NULL, ","))
			rows[n++].name = tok;
	/* Linux is a yardstick, not a check: --quick (the ctest smoke run) never needs
	 * the kernel, so the tests stay hermetic. */
	if (s.quick && s.linux_wanted)
		s.linux_wanted = 0;
	if (s.linux_wanted) {
		linux_ok = bench_linux_probe(linux_why, sizeof(linux_why)) == 0;
		s.linux_wanted = linux_ok;
	} else {
		snprintf(linux_why, sizeof(linux_why), "Linux bpf(): not tried (%s)",
			 s.quick ? "--quick" : "--no-linux");
	}

	host = kbpf_host_new();
	if (!host || kbpf_host_helper_register(host, 42, "bench_helper", bench_helper)) {
		fprintf(stderr, "kbpf-bench: cannot create the host\n");
		return 1;
	}
	for (unsigned r = 0; r < n; r++) {
		measure(host, &s, &rows[r]);
		if (s.verbose) {
			const struct bench_result *res[] = { &rows[r].interp, &rows[r].jit, &rows[r].jit_fn,
							     &rows[r].linux_run, &rows[r].cc, &rows[r].clang };
			const char *names[] = { "kbpf", "jit", "jit_fn", "linux", "cc", "clang" };

			fprintf(stderr, "%s: %zu insns, %llu executed;", rows[r].name, rows[r].static_insns,
				(unsigned long long)rows[r].insns_executed);
			for (size_t k = 0; k < 6; k++)
				if (res[k]->ok)
					fprintf(stderr, " %s best %.2f median %.2f ret 0x%x;", names[k],
						res[k]->ns_per_run, res[k]->ns_median, res[k]->retval);
			if (rows[r].linux_run.ok)
				fprintf(stderr, " linux best by its own duration %.0f;", rows[r].linux_duration);
			fprintf(stderr, "\n");
		}
	}
	kbpf_host_free(host);

	print_table(rows, n, s.markdown);

	/* Notes: why a column is n/a, and every disagreement. */
	bullet = s.markdown ? "- " : "";
	printf("\n");
	if (s.quick)
		printf("%s--quick: a correctness check; the timings above mean nothing\n", bullet);
	if (!s.quick) {
		printf("%skbpf JIT compile time, µs (kbpf_prog_create with .jit minus without, best of 200):", bullet);
		for (unsigned r = 0; r < n; r++)
			if (rows[r].jit_compile_us > 0)
				printf(" %s %.1f%s", rows[r].name, rows[r].jit_compile_us, r + 1 < n ? ";" : "");
		printf("\n");
	}
	if (!s.quick && s.obj_dir[0]) {
		struct bench_object o;

		if (bench_object_load(s.obj_dir, 50, &o) == 0)
			printf("%sload time of the largest test object, %s (%zu programs, %zu insns): "
			       "kbpf_object_open_file + kbpf_object_load %.0f µs, with the JIT %.0f µs "
			       "(best of 50; load = maps, link, relocate, %screate)\n",
			       bullet, o.name, o.progs, o.insns, o.load_us, o.load_jit_us,
			       o.verifies ? "verify (programs of Linux's program types), " : "no verifier, ");
		else
			printf("%sobject load time: %s\n", bullet, o.why);
	}
	if (!linux_ok)
		printf("%s%s\n", bullet, linux_why);
	else if (bench_linux_jit_enabled() == 0)
		printf("%sLinux: net.core.bpf_jit_enable=0, the Linux column is the kernel's interpreter\n",
		       bullet);
	for (unsigned r = 0; r < n; r++) {
		const struct row *row = &rows[r];

		if (!row->interp.ok) {
			printf("%s%s: kbpf: %s\n", bullet, row->name, row->interp.why);
			failures++;
		}
		if (row->interp.ok && !row->jit.ok) {
			printf("%s%s: kbpf JIT: %s\n", bullet, row->name, row->jit.why);
			failures++;
		}
		if (row->jit.ok && !row->jit_fn.ok) {
			printf("%s%s: kbpf_prog_jited_func: %s\n", bullet, row->name, row->jit_fn.why);
			failures++;
		}
		if (!row->cc.ok) {
			printf("%s%s: native %s: %s\n", bullet, row->name, KBPF_BENCH_CC_LABEL, row->cc.why);
			failures++;
		}
		if (!row->clang.ok)
			printf("%s%s: native clang: %s\n", bullet, row->name, row->clang.why);
		if (linux_ok && !row->linux_run.ok)
			printf("%s%s: Linux: %s\n", bullet, row->name, row->linux_run.why);
		mismatches += check_retvals(row, bullet);
	}
	if (!mismatches && !failures)
		printf("%sresults: all %u programs return the same value on every engine that ran them\n",
		       bullet, n);
	return mismatches || failures ? 1 : 0;
}
