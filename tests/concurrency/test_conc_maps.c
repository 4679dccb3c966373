/* SPDX-License-Identifier: Apache-2.0 */
/* Programs running on several threads at once, sharing maps, on the interpreter and on
 * the JIT.  For every hash flavour (preallocated or not, per-CPU, LRU, LRU per-CPU) and
 * every array flavour, N threads run a program that looks up one of 16 "counted" keys
 * and adds to its value with BPF_ATOMIC (a "lock ... +=" xadd and an atomic64_fetch_add);
 * meanwhile the same threads run a second program that updates, deletes and looks up
 * "churn" keys, and a host thread does the same from the bpf(2) side and reads the
 * counted keys (a host polling counters).  Afterwards each counted key's total is exactly what was run — nothing lost —
 * and the table is consistent (iteration sees what lookups see).  A ring buffer gets
 * records from N producer programs (reserve/submit and output, alternately) and one
 * consumer thread accounts for every record, in each producer's order. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include "conc_util.h"
#include "test.h"

#define COUNTED 16u      /* keys 0..15: totals checked */
#define CHURN_BASE 100u  /* keys 100..163: updated, deleted, looked up by everyone */
#define CHURN_KEYS 64u
#define MAX_THREADS 8u

static unsigned nthreads, iters;

/* ctx: the key (u64).  Returns 0 after counting, 1 if the key was missing. */
static const char count_text[] =
	"r6 = r1\n"
	"r1 = *(u64 *)(r6 +0)\n"
	"*(u32 *)(r10 -4) = r1\n"
	"r2 = r10\n"
	"r2 += -4\n"
	"r1 = map[idx:0]\n"
	"call 1\n"
	"if r0 == 0 goto miss\n"
	"r1 = 1\n"
	"lock *(u64 *)(r0 +0) += r1\n"
	"r2 = 2\n"
	"r2 = atomic64_fetch_add((u64 *)(r0 +8), r2)\n"
	"r0 = 0\n"
	"exit\n"
	"miss:\n"
	"r0 = 1\n"
	"exit\n";

/* ctx: key (u64), op (u64): 0 lookup (and bump), 1 update, 2 delete. */
static const char churn_text[] =
	"r6 = r1\n"
	"r1 = *(u64 *)(r6 +0)\n"
	"*(u32 *)(r10 -4) = r1\n"
	"*(u64 *)(r10 -24) = r1\n"
	"*(u64 *)(r10 -16) = r1\n"
	"r7 = *(u64 *)(r6 +8)\n"
	"if r7 == 1 goto update\n"
	"if r7 == 2 goto delete\n"
	"r2 = r10\n"
	"r2 += -4\n"
	"r1 = map[idx:0]\n"
	"call 1\n"
	"if r0 == 0 goto out\n"
	"r1 = 1\n"
	"lock *(u64 *)(r0 +0) += r1\n"
	"goto out\n"
	"update:\n"
	"r2 = r10\n"
	"r2 += -4\n"
	"r3 = r10\n"
	"r3 += -24\n"
	"r1 = map[idx:0]\n"
	"r4 = 0\n"
	"call 2\n"
	"goto out\n"
	"delete:\n"
	"r2 = r10\n"
	"r2 += -4\n"
	"r1 = map[idx:0]\n"
	"call 3\n"
	"out:\n"
	"r0 = 0\n"
	"exit\n";

/* ctx: producer (u64), seq (u64).  Even seq: reserve/submit, odd: output.  Returns 1
 * when the ring is full (the host runs it again later). */
static const char ringbuf_text[] =
	"r6 = r1\n"
	"r7 = *(u64 *)(r6 +8)\n"
	"r8 = r7\n"
	"r8 &= 1\n"
	"if r8 != 0 goto output\n"
	"r1 = map[idx:0]\n"
	"r2 = 16\n"
	"r3 = 0\n"
	"call 131\n"
	"if r0 == 0 goto full\n"
	"r1 = *(u64 *)(r6 +0)\n"
	"*(u64 *)(r0 +0) = r1\n"
	"*(u64 *)(r0 +8) = r7\n"
	"r1 = r0\n"
	"r2 = 0\n"
	"call 132\n"
	"r0 = 0\n"
	"exit\n"
	"output:\n"
	"r1 = *(u64 *)(r6 +0)\n"
	"*(u64 *)(r10 -16) = r1\n"
	"*(u64 *)(r10 -8) = r7\n"
	"r1 = map[idx:0]\n"
	"r2 = r10\n"
	"r2 += -16\n"
	"r3 = 16\n"
	"r4 = 0\n"
	"call 130\n"
	"if r0 != 0 goto full\n"
	"exit\n"
	"full:\n"
	"r0 = 1\n"
	"exit\n";

struct worker {
	pthread_t thread;
	unsigned id;
	struct kbpf_map *map;
	struct kbpf_prog *count, *churn;
	uint64_t counted[COUNTED]; /* runs of count per key, by this thread */
	uint64_t runs;
	unsigned errors;
};

static int is_hash(uint32_t type)
{
	return type != BPF_MAP_TYPE_ARRAY && type != BPF_MAP_TYPE_PERCPU_ARRAY;
}

static int is_percpu(uint32_t type)
{
	return type == BPF_MAP_TYPE_PERCPU_ARRAY || type == BPF_MAP_TYPE_PERCPU_HASH ||
	       type == BPF_MAP_TYPE_LRU_PERCPU_HASH;
}

static void *worker_main(void *p)
{
	struct worker *w = p;
	uint64_t ctx[2];
	uint64_t r0;

	/* Spread the workers over the per-CPU slots; with more workers than slots two
	 * share one, which the atomic adds make safe (and is what this exercises). */
	kbpf_cpu_bind(w->id % kbpf_nr_cpus());
	for (unsigned i = 0; i < iters; i++) {
		unsigned key = (w->id * 7 + i) % COUNTED;

		ctx[0] = key;
		if (kbpf_prog_run(w->count, ctx, &r0) || r0 != 0)
			w->errors++;
		else
			w->counted[key]++;
		w->runs++;
		if (w->churn && (i & 3) == 0) {
			ctx[0] = CHURN_BASE + (i * 13 + w->id) % CHURN_KEYS;
			ctx[1] = (i >> 2) % 3;
			if (kbpf_prog_run(w->churn, ctx, &r0) || r0 != 0)
				w->errors++;
			w->runs++;
		}
	}
	return NULL;
}

struct host_churn {
	struct kbpf_map *map;
	int hash;
	atomic_int *stop;
	uint64_t ops;
	unsigned errors;
};

/* The bpf(2) side on the same keys: update, delete, lookup, and reads of the counted keys
 * (which must always be there). */
static void *host_churn_main(void *p)
{
	struct host_churn *h = p;
	size_t vsz = kbpf_map_host_value_size(h->map);
	uint64_t *val = calloc(1, vsz);
	unsigned i = 0;

	if (!val) {
		h->errors++;
		return NULL;
	}
	while (!atomic_load(h->stop)) {
		uint32_t key = CHURN_BASE + (i * 5) % CHURN_KEYS, ck = i % COUNTED;
		int ret;

		memset(val, 0, vsz);
		val[0] = key;
		switch (i % 4) {
		case 0:
			ret = kbpf_map_update(h->map, &key, val, BPF_ANY);
			break;
		case 1:
			ret = kbpf_map_delete(h->map, &key);
			if (ret == -EINVAL && !h->hash) /* array elements cannot be deleted */
				ret = 0;
			break;
		case 2:
			ret = kbpf_map_lookup(h->map, &key, val);
			break;
		default:
			ret = kbpf_map_lookup(h->map, &ck, val);
			if (ret)
				h->errors++;
			break;
		}
		if (ret && ret != -ENOENT)
			h->errors++;
		h->ops++;
		i++;
	}
	free(val);
	return NULL;
}

static const char *type_name(uint32_t type, uint32_t flags)
{
	switch (type) {
	case BPF_MAP_TYPE_HASH: return flags & BPF_F_NO_PREALLOC ? "hash(no_prealloc)" : "hash";
	case BPF_MAP_TYPE_ARRAY: return "array";
	case BPF_MAP_TYPE_PERCPU_HASH: return "percpu_hash";
	case BPF_MAP_TYPE_PERCPU_ARRAY: return "percpu_array";
	case BPF_MAP_TYPE_LRU_HASH: return "lru_hash";
	case BPF_MAP_TYPE_LRU_PERCPU_HASH: return "lru_percpu_hash";
	}
	return "?";
}

/* Totals of value words 0 and 1 of key, over all CPU slots. */
static int key_totals(struct kbpf_map *map, uint32_t key, uint64_t *a, uint64_t *b)
{
	size_t vsz = kbpf_map_host_value_size(map);
	uint64_t *val = calloc(1, vsz);
	unsigned slots = is_percpu(kbpf_map_type(map)) ? kbpf_nr_cpus() : 1;
	int ret = val ? kbpf_map_lookup(map, &key, val) : -ENOMEM;

	*a = *b = 0;
	for (unsigned s = 0; !ret && s < slots; s++) {
		*a += val[s * 2];
		*b += val[s * 2 + 1];
	}
	free(val);
	return ret;
}

static void run_map(uint32_t type, uint32_t flags, int jit)
{
	struct kbpf_map_def def = { .sz = sizeof(def), .type = type, .key_size = 4, .value_size = 16,
				    .max_entries = 256, .map_flags = flags, .name = "conc" };
	struct kbpf_host *host = kbpf_host_new();
	struct kbpf_map *map = NULL;
	struct worker w[MAX_THREADS];
	struct host_churn hc = { 0 };
	pthread_t hc_thread;
	atomic_int stop = 0;
	uint64_t runs = 0;
	unsigned errors = 0;
	double t0;

	CHECK(host && kbpf_host_add_map_helpers(host) == 0);
	CHECK_EQ_U64(kbpf_map_create(&def, &map), 0);
	if (!host || !map)
		goto out;
	if (is_hash(type)) {
		void *zero = calloc(1, kbpf_map_host_value_size(map));
		for (uint32_t k = 0; k < COUNTED; k++)
			CHECK_EQ_U64(kbpf_map_update(map, &k, zero, BPF_NOEXIST), 0);
		free(zero);
	}
	memset(w, 0, sizeof(w));
	for (unsigned t = 0; t < nthreads; t++) {
		w[t].id = t;
		w[t].map = map;
		w[t].count = conc_prog("count", count_text, host, &map, 1, jit);
		CHECK(w[t].count != NULL);
		/* arrays too: updates and lookups of their other elements (deletes fail) */
		w[t].churn = conc_prog("churn", churn_text, host, &map, 1, jit);
		CHECK(w[t].churn != NULL);
		if (!w[t].count || !w[t].churn)
			goto out_progs;
	}
	t0 = conc_now();
	hc = (struct host_churn){ .map = map, .hash = is_hash(type), .stop = &stop };
	CHECK(pthread_create(&hc_thread, NULL, host_churn_main, &hc) == 0);
	for (unsigned t = 0; t < nthreads; t++)
		CHECK(pthread_create(&w[t].thread, NULL, worker_main, &w[t]) == 0);
	for (unsigned t = 0; t < nthreads; t++) {
		pthread_join(w[t].thread, NULL);
		runs += w[t].runs;
		errors += w[t].errors;
	}
	atomic_store(&stop, 1);
	pthread_join(hc_thread, NULL);
	CHECK_EQ_U64(errors, 0);
	CHECK_EQ_U64(hc.errors, 0);

	/* nothing lost: every key's total is exactly the runs that counted it */
	for (uint32_t k = 0; k < COUNTED; k++) {
		uint64_t want = 0, a, b;
		for (unsigned t = 0; t < nthreads; t++)
			want += w[t].counted[k];
		CHECK_EQ_U64(key_totals(map, k, &a, &b), 0);
		CHECK_EQ_U64(a, want);
		CHECK_EQ_U64(b, 2 * want);
	}
	/* consistent: iteration visits exactly the keys lookups find, each once */
	if (is_hash(type)) {
		uint32_t key, next, found = 0, walked = 0;
		void *val = calloc(1, kbpf_map_host_value_size(map));
		for (uint32_t k = 0; k < CHURN_BASE + CHURN_KEYS; k++)
			found += kbpf_map_lookup(map, &k, val) == 0;
		for (int ret = kbpf_map_get_next_key(map, NULL, &next); !ret && walked <= 256;
		     ret = kbpf_map_get_next_key(map, &key, &next)) {
			key = next;
			walked++;
		}
		CHECK_EQ_U64(walked, found);
		free(val);
	}
	printf("%-16s %-6s %u threads: %llu program runs, %llu host ops, %.3f s\n", type_name(type, flags),
	       jit ? "jit" : "interp", nthreads, (unsigned long long)runs, (unsigned long long)hc.ops,
	       conc_now() - t0);
out_progs:
	for (unsigned t = 0; t < nthreads; t++) {
		kbpf_prog_free(w[t].count);
		kbpf_prog_free(w[t].churn);
	}
out:
	kbpf_map_free(map);
	kbpf_host_free(host);
}

static const struct {
	uint32_t type, flags;
} map_kinds[] = {
	{ BPF_MAP_TYPE_HASH, 0 },
	{ BPF_MAP_TYPE_HASH, BPF_F_NO_PREALLOC },
	{ BPF_MAP_TYPE_ARRAY, 0 },
	{ BPF_MAP_TYPE_PERCPU_ARRAY, 0 },
	{ BPF_MAP_TYPE_PERCPU_HASH, 0 },
	{ BPF_MAP_TYPE_LRU_HASH, 0 },
	{ BPF_MAP_TYPE_LRU_PERCPU_HASH, 0 },
};

static void maps_all(int jit)
{
	for (size_t i = 0; i < sizeof(map_kinds) / sizeof(map_kinds[0]); i++)
		run_map(map_kinds[i].type, map_kinds[i].flags, jit);
}

static void test_maps_interp(void)
{
	maps_all(0);
}

static void test_maps_jit(void)
{
	maps_all(1);
}

/* --- ring buffer ---------------------------------------------------------------- */

struct producer {
	pthread_t thread;
	uint64_t id;
	struct kbpf_prog *prog;
	uint64_t retries;
	unsigned errors;
};

static void *producer_main(void *p)
{
	struct producer *pr = p;
	uint64_t ctx[2] = { pr->id, 0 }, r0;

	for (unsigned i = 0; i < iters;) {
		ctx[1] = i;
		if (kbpf_prog_run(pr->prog, ctx, &r0)) {
			pr->errors++;
			i++;
		} else if (r0 == 1) { /* full: let the consumer catch up */
			pr->retries++;
			sched_yield();
		} else {
			i++;
		}
	}
	return NULL;
}

struct consumer {
	struct kbpf_map *map;
	atomic_int *stop;
	uint64_t next[MAX_THREADS]; /* next seq expected from each producer */
	uint64_t records;
	unsigned errors;
};

static int on_record(void *ctx, void *data, size_t size)
{
	struct consumer *c = ctx;
	uint64_t rec[2];

	if (size != 16) {
		c->errors++;
		return 0;
	}
	memcpy(rec, data, 16);
	if (rec[0] >= MAX_THREADS || rec[1] != c->next[rec[0]])
		c->errors++;
	else
		c->next[rec[0]]++;
	c->records++;
	return 0;
}

static void *consumer_main(void *p)
{
	struct consumer *c = p;

	for (;;) {
		int stop = atomic_load(c->stop);
		int n = kbpf_ringbuf_consume(c->map, on_record, c);
		if (n < 0)
			c->errors++;
		if (stop && n <= 0)
			break;
		if (n == 0)
			sched_yield();
	}
	return NULL;
}

static void ringbuf_run(int jit)
{
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_RINGBUF, .max_entries = 16384,
				    .name = "conc_rb" };
	struct kbpf_host *host = kbpf_host_new();
	struct kbpf_map *map = NULL;
	struct producer pr[MAX_THREADS];
	struct consumer c = { 0 };
	pthread_t ct;
	atomic_int stop = 0;
	uint64_t retries = 0;
	unsigned errors = 0;
	double t0;

	CHECK(host && kbpf_host_add_map_helpers(host) == 0);
	CHECK_EQ_U64(kbpf_map_create(&def, &map), 0);
	if (!host || !map)
		goto out;
	memset(pr, 0, sizeof(pr));
	for (unsigned t = 0; t < nthreads; t++) {
		pr[t].id = t;
		pr[t].prog = conc_prog("ringbuf", ringbuf_text, host, &map, 1, jit);
		CHECK(pr[t].prog != NULL);
		if (!pr[t].prog)
			goto out_progs;
	}
	t0 = conc_now();
	c.map = map;
	c.stop = &stop;
	CHECK(pthread_create(&ct, NULL, consumer_main, &c) == 0);
	for (unsigned t = 0; t < nthreads; t++)
		CHECK(pthread_create(&pr[t].thread, NULL, producer_main, &pr[t]) == 0);
	for (unsigned t = 0; t < nthreads; t++) {
		pthread_join(pr[t].thread, NULL);
		errors += pr[t].errors;
		retries += pr[t].retries;
	}
	atomic_store(&stop, 1);
	pthread_join(ct, NULL);
	CHECK_EQ_U64(errors, 0);
	CHECK_EQ_U64(c.errors, 0);
	/* every record accounted for, each producer's in its order */
	CHECK_EQ_U64(c.records, (uint64_t)nthreads * iters);
	for (unsigned t = 0; t < nthreads; t++)
		CHECK_EQ_U64(c.next[t], iters);
	CHECK_EQ_U64(kbpf_ringbuf_query(map, BPF_RB_AVAIL_DATA), 0);
	printf("%-16s %-6s %u producers + 1 consumer: %llu records (%llu retries on full), %.3f s\n", "ringbuf",
	       jit ? "jit" : "interp", nthreads, (unsigned long long)c.records, (unsigned long long)retries,
	       conc_now() - t0);
out_progs:
	for (unsigned t = 0; t < nthreads; t++)
		kbpf_prog_free(pr[t].prog);
out:
	kbpf_map_free(map);
	kbpf_host_free(host);
}

static void test_ringbuf_interp(void)
{
	ringbuf_run(0);
}

static void test_ringbuf_jit(void)
{
	ringbuf_run(1);
}

int main(void)
{
	nthreads = conc_env("KBPF_CONC_THREADS", 4, 2, MAX_THREADS);
	iters = conc_env("KBPF_CONC_ITERS", 20000, 1, 100000000);
	RUN(test_maps_interp);
	RUN(test_ringbuf_interp);
#if defined(__x86_64__)
	RUN(test_maps_jit);
	RUN(test_ringbuf_jit);
#endif
	return test_summary();
}
