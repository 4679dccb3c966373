/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the concurrency tests (tests/concurrency): knobs from the environment,
 * assembling programs, a clock.  Worker threads never CHECK (test.h's counters are
 * plain globals, and a race on them would be ours, not kbpf's): they count what went
 * wrong and the main thread checks the counts after joining. */
#ifndef KBPF_CONC_UTIL_H
#define KBPF_CONC_UTIL_H

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <kbpf/kbpf.h>

/* KBPF_CONC_THREADS (4..8 is what the suite runs), KBPF_CONC_ITERS: the same binaries
 * serve the quick CI run and longer runs by hand. */
/* Messages from worker threads: the first few only, not one per iteration. */
static atomic_int conc_prints;
#define CONC_SAY(...)                                                          \
	do {                                                                   \
		if (atomic_fetch_add(&conc_prints, 1) < 10)                    \
			fprintf(stderr, __VA_ARGS__);                          \
	} while (0)

static inline unsigned conc_env(const char *name, unsigned def, unsigned min, unsigned max)
{
	const char *s = getenv(name);
	unsigned long v = s && *s ? strtoul(s, NULL, 0) : def;

	return v < min ? min : v > max ? max : (unsigned)v;
}

static inline double conc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Assemble text (pseudo-C) and create a program using maps; NULL on failure (printed). */
static inline struct kbpf_prog *conc_prog(const char *name, const char *text, struct kbpf_host *host,
					  struct kbpf_map *const *maps, size_t nr_maps, int jit)
{
	struct bpf_insn *insns = NULL;
	size_t cnt = 0;
	char log[512] = "";
	struct kbpf_prog *prog = NULL;
	int ret = kbpf_asm(text, KBPF_ASM_PSEUDO_C, &insns, &cnt, log, sizeof(log));

	if (!ret) {
		struct kbpf_prog_opts o = { .sz = sizeof(o), .trusted_unverified = 1, .host = host, .name = name, .log_buf = log,
					    .log_size = sizeof(log), .maps = maps, .nr_maps = nr_maps, .jit = jit };
		ret = kbpf_prog_create(insns, cnt, &o, &prog);
		if (!ret && jit && !kbpf_prog_is_jited(prog)) {
			CONC_SAY("%s: not JIT-compiled: %s\n", name, log);
			kbpf_prog_free(prog);
			prog = NULL;
			ret = -1;
		}
	}
	if (ret)
		CONC_SAY("%s: %d: %s\n", name, ret, log);
	free(insns);
	return prog;
}

/* tests/bpf/<name>.bpf.o read into memory (*size), for kbpf_object_open_mem; NULL when
 * clang was missing at build time (KBPF_TEST_BPF_DIR empty) or the file cannot be read. */
static inline void *conc_read_bpf_obj(const char *name, size_t *size)
{
	char path[4096];
	void *buf = NULL;
	FILE *f;
	long n;

	*size = 0;
	snprintf(path, sizeof(path), "%s/%s.bpf.o", KBPF_TEST_BPF_DIR, name);
	if (!KBPF_TEST_BPF_DIR[0] || !(f = fopen(path, "rb")))
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)n)) && fread(buf, 1, (size_t)n, f) == (size_t)n) {
		*size = (size_t)n;
	} else {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

#endif /* KBPF_CONC_UTIL_H */
