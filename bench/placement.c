/* SPDX-License-Identifier: Apache-2.0 */
/* kbpf-bench-placement: how each benchmark program's speed depends on where its JIT code
 * lies. The code kbpf's JIT generated for a program is copied, byte for byte, to each
 * offset of a 64-byte window in a fresh read+exec mapping and timed there through its run
 * entry: the same instructions, only the place differs (docs/jit.md, "Speed"). Offset 0
 * is where the JIT put it. Programs that call the host are skipped: their calls are
 * relative to where the code was generated.
 *
 * usage: kbpf-bench-placement [--step N] [--rounds N] [--round-ms MS] [PROG...]
 * Prints, per program, the best round (ns per run, thread CPU time) at each offset. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <kbpf/kbpf.h>
#include "exec/jit.h" /* white-box: the mapping and the run entry of the JIT's code */

#ifndef KBPF_BENCH_DIR
#define KBPF_BENCH_DIR "."
#endif
#ifndef KBPF_BENCH_PROGS
#define KBPF_BENCH_PROGS "sum_loop,collatz,sieve,crc32,matmul,fnv1a,bubble_sort"
#endif

static volatile uint64_t sink;

static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double time_runs(kbpf_prog_run_fn run, const struct kbpf_prog *p, void *ctx, unsigned repeat)
{
	uint64_t r0 = 0;
	double t0 = cpu_ns();

	for (unsigned i = 0; i < repeat; i++) {
		run(p, ctx, &r0);
		sink += r0;
	}
	return (cpu_ns() - t0) / repeat;
}

static struct bpf_insn *read_insns(const char *path, size_t *cnt)
{
	struct stat st;
	struct bpf_insn *insns;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) || st.st_size <= 0 || st.st_size % sizeof(*insns)) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	insns = malloc((size_t)st.st_size);
	if (insns && read(fd, insns, (size_t)st.st_size) != st.st_size) {
		free(insns);
		insns = NULL;
	}
	close(fd);
	*cnt = (size_t)st.st_size / sizeof(*insns);
	return insns;
}

static void measure(const char *name, unsigned step, unsigned rounds, double round_ns)
{
	static unsigned char ctx[64];
	char path[4096], log[256] = "";
	struct kbpf_prog_opts po = { .sz = sizeof(po), .trusted_unverified = 1, .jit = 1, .log_buf = log, .log_size = sizeof(log) };
	struct kbpf_prog *p = NULL;
	size_t cnt = 0;
	struct bpf_insn *insns;
	unsigned repeat = 1;

	snprintf(path, sizeof(path), "%s/%s.bin", KBPF_BENCH_DIR, name);
	insns = read_insns(path, &cnt);
	for (size_t i = 0; insns && i < cnt; i++)
		if ((insns[i].code == (BPF_JMP | BPF_CALL) && insns[i].src_reg != BPF_PSEUDO_CALL) ||
		    (BPF_CLASS(insns[i].code) == BPF_LD && BPF_MODE(insns[i].code) != BPF_IMM)) {
			printf("%s: skipped (calls the host)\n", name);
			free(insns);
			return;
		}
	if (!insns || kbpf_prog_create(insns, cnt, &po, &p) || !kbpf_prog_is_jited(p)) {
		printf("%s: not measured (%s)\n", name, insns ? log : strerror(errno));
		free(insns);
		kbpf_prog_free(p);
		return;
	}
	const struct kbpf_jit *jit = p->jit;
	size_t run_off = (size_t)((uintptr_t)jit->run - (uintptr_t)jit->map), len = jit->map_size + 4096;

	while (time_runs(jit->run, p, ctx, repeat) * repeat < round_ns && repeat < (1u << 30))
		repeat *= 2;
	printf("%s:", name);
	for (unsigned d = 0; d < 64; d += step) {
		uint8_t *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		double best = 1e300;

		if (m == MAP_FAILED)
			break;
		memset(m, 0xcc, len);
		memcpy(m + d, jit->map, jit->map_size);
		if (mprotect(m, len, PROT_READ | PROT_EXEC) == 0) {
			kbpf_prog_run_fn run = (kbpf_prog_run_fn)(uintptr_t)(m + d + run_off);

			for (unsigned r = 0; r < rounds; r++) {
				double t = time_runs(run, p, ctx, repeat);

				best = t < best ? t : best;
			}
			printf(best < 100 ? " %u:%.1f" : " %u:%.0f", d, best);
			fflush(stdout);
		}
		munmap(m, len);
	}
	printf("\n");
	free(insns);
	kbpf_prog_free(p);
}

int main(int argc, char **argv)
{
	static char list[] = KBPF_BENCH_PROGS;
	unsigned step = 4, rounds = 5, named = 0;
	double round_ns = 10e6;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--step") && i + 1 < argc)
			step = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			rounds = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--round-ms") && i + 1 < argc)
			round_ns = strtod(argv[++i], NULL) * 1e6;
		else if (argv[i][0] == '-') {
			fprintf(stderr, "usage: kbpf-bench-placement [--step N] [--rounds N] [--round-ms MS] [PROG...]\n");
			return 2;
		}
	}
	if (!kbpf_jit_arch_supported()) {
		printf("not an x86-64 host\n");
		return 0;
	}
	if (!step || step > 64)
		step = 4;
	if (!rounds)
		rounds = 1;
	for (int i = 1; i < argc; i++) {
		if (argv[i][0] == '-') {
			i++;
			continue;
		}
		measure(argv[i], step, rounds, round_ns);
		named++;
	}
	if (!named)
		for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ","))
			measure(tok, step, rounds, round_ns);
	return 0;
}
