/* SPDX-License-Identifier: Apache-2.0 */
/* bpf_get_stackid across threads: N threads (half on the interpreter, half JIT-compiled)
 * store the stacks of two host call sites in one stack trace map while a host thread
 * reads, walks and deletes its ids and another compiles and frees JIT programs (whose
 * unwind information is registered and removed under the walks). A stack's id is its
 * hash's slot, so every thread must always get the same id for its stack (or -EEXIST
 * when another stack holds the slot); every trace the host reads is whole (frames, then
 * zeroes). Runs under TSan too (scripts/test). */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <kbpf/kbpf.h>
#include <kbpf/linux.h>
#include "conc_util.h"
#include "test.h"

#define DEPTH 16
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const struct bpf_insn stackid_insns[] = {
	BPF_LD_MAP_FD(BPF_REG_2, 0),
	BPF_MOV64_IMM(BPF_REG_3, 0),
	BPF_EMIT_CALL(BPF_FUNC_get_stackid),
	BPF_EXIT_INSN(),
};

struct shared {
	struct kbpf_host *host;
	struct kbpf_map *map;
	struct kbpf_prog *progs[2]; /* interpreter, JIT */
	unsigned iters;
	atomic_int stop;
	atomic_int bad;
	atomic_long stored;
};

struct worker {
	struct shared *s;
	int jit;
};

__attribute__((noinline)) static long run_site_a(const struct kbpf_prog *p)
{
	uint64_t ctx[2] = { 0 }, r0 = 0;
	int err = kbpf_prog_run(p, ctx, &r0);
	__asm__ __volatile__("" ::: "memory");
	return err ? err : (long)(int64_t)r0;
}

__attribute__((noinline)) static long run_site_b(const struct kbpf_prog *p)
{
	uint64_t ctx[2] = { 0 }, r0 = 0;
	int err = kbpf_prog_run(p, ctx, &r0);
	__asm__ __volatile__("" ::: "memory");
	return err ? err : (long)(int64_t)r0;
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	struct shared *s = w->s;
	long seen[2] = { -1, -1 };

	for (unsigned i = 0; i < s->iters; i++) {
		int site = i & 1;
		long id = site ? run_site_b(s->progs[w->jit]) : run_site_a(s->progs[w->jit]);
		if (id == -EEXIST)
			continue;
		if (id < 0 || id >= 64) {
			CONC_SAY("get_stackid: %ld\n", id);
			atomic_fetch_add(&s->bad, 1);
			continue;
		}
		if (seen[site] >= 0 && seen[site] != id) {
			CONC_SAY("site %d: id %ld, then %ld\n", site, seen[site], id);
			atomic_fetch_add(&s->bad, 1);
		}
		seen[site] = id;
		atomic_fetch_add(&s->stored, 1);
	}
	return NULL;
}

/* Read every stored trace (whole: frames then zeroes) and delete some. */
static void *reader_fn(void *arg)
{
	struct shared *s = arg;
	uint64_t v[DEPTH];
	unsigned n = 0;

	while (!atomic_load(&s->stop)) {
		uint32_t key, next;
		int r = kbpf_map_get_next_key(s->map, NULL, &next);
		for (; !r; r = kbpf_map_get_next_key(s->map, &key, &next)) {
			key = next;
			if (kbpf_map_lookup(s->map, &key, v))
				continue;
			int zero = 0;
			for (int i = 0; i < DEPTH; i++) {
				if (!v[i])
					zero = 1;
				else if (zero || (i == 0 && !v[0]))
					atomic_fetch_add(&s->bad, 1);
			}
			if (!v[0])
				atomic_fetch_add(&s->bad, 1);
			if (++n % 3 == 0)
				kbpf_map_delete(s->map, &key);
		}
	}
	return NULL;
}

/* Compile and free JIT programs: their unwind information comes and goes. */
static void *churn_fn(void *arg)
{
	struct shared *s = arg;
	struct kbpf_map *maps[1] = { s->map };

	while (!atomic_load(&s->stop)) {
		struct kbpf_prog_opts po = { .sz = sizeof(po), .host = s->host, .prog_type = "raw_tracepoint",
					     .license = "GPL", .maps = maps, .nr_maps = 1, .jit = 1 };
		struct kbpf_prog *p = NULL;
		if (kbpf_prog_create(stackid_insns, ARRAY_SIZE(stackid_insns), &po, &p))
			atomic_fetch_add(&s->bad, 1);
		kbpf_prog_free(p);
	}
	return NULL;
}

static void test_stackid_threads(void)
{
	unsigned nthreads = conc_env("KBPF_CONC_THREADS", 4, 2, 64);
	struct shared s = { .iters = conc_env("KBPF_CONC_ITERS", 20000, 100, 100000000) };
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_STACK_TRACE, .key_size = 4,
				    .value_size = DEPTH * 8, .max_entries = 64, .name = "stacks" };

	s.host = kbpf_host_new();
	CHECK(s.host && !kbpf_linux_host_add(s.host));
	CHECK_EQ_U64(kbpf_map_create(&def, &s.map), 0);
	if (!s.host || !s.map)
		return;
	for (int jit = 0; jit < 2; jit++) {
		struct kbpf_map *maps[1] = { s.map };
		struct kbpf_prog_opts po = { .sz = sizeof(po), .host = s.host, .prog_type = "raw_tracepoint",
					     .license = "GPL", .maps = maps, .nr_maps = 1, .jit = jit };
		CHECK_EQ_U64(kbpf_prog_create(stackid_insns, ARRAY_SIZE(stackid_insns), &po, &s.progs[jit]), 0);
	}
	if (!s.progs[0] || !s.progs[1])
		return;
	pthread_t th[64], reader, churn;
	struct worker w[64];
	for (unsigned i = 0; i < nthreads; i++) {
		w[i] = (struct worker){ .s = &s, .jit = (int)(i & 1) };
		pthread_create(&th[i], NULL, worker_fn, &w[i]);
	}
	pthread_create(&reader, NULL, reader_fn, &s);
	pthread_create(&churn, NULL, churn_fn, &s);
	for (unsigned i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	atomic_store(&s.stop, 1);
	pthread_join(reader, NULL);
	pthread_join(churn, NULL);
	CHECK_EQ_U64(atomic_load(&s.bad), 0);
	CHECK(atomic_load(&s.stored) > 0);
	kbpf_prog_free(s.progs[0]);
	kbpf_prog_free(s.progs[1]);
	kbpf_map_free(s.map);
	kbpf_host_free(s.host);
}

int main(void)
{
	RUN(test_stackid_threads);
	return test_summary();
}
