/* SPDX-License-Identifier: Apache-2.0 */
/* HASH maps: create rules, update flags, full map, iteration, pointer lifetime, and
 * concurrent insert/delete/lookup from several threads ending consistent. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <kbpf/map.h>
#include "maps/htab.h" /* white-box: htab_hash */
#include "test.h"

static int mk(uint32_t type, uint32_t ks, uint32_t vs, uint32_t max, uint32_t flags, struct kbpf_map **m)
{
	struct kbpf_map_def def = {
		.sz = sizeof(def), .type = type, .key_size = ks, .value_size = vs,
		.max_entries = max, .map_flags = flags, .name = "hash",
	};
	return kbpf_map_create(&def, m);
}

static int create_err(uint32_t type, uint32_t ks, uint32_t vs, uint32_t max, uint32_t flags)
{
	struct kbpf_map *m = NULL;
	int err = mk(type, ks, vs, max, flags, &m);

	kbpf_map_free(m);
	return err;
}

static void test_hash_create_rules(void)
{
	const uint32_t H = BPF_MAP_TYPE_HASH, PH = BPF_MAP_TYPE_PERCPU_HASH;

	CHECK_EQ_U64(create_err(H, 4, 4, 1, 0), 0);
	CHECK_EQ_U64(create_err(H, 0, 4, 1, 0), -EINVAL);
	CHECK_EQ_U64(create_err(H, 4, 0, 1, 0), -EINVAL);
	CHECK_EQ_U64(create_err(H, 4, 4, 0, 0), -EINVAL);
	CHECK_EQ_U64(create_err(H, 3, 5, 7, 0), 0); /* any sizes */
	CHECK_EQ_U64(create_err(H, 1u << 21, 1u << 21, 1, 0), -E2BIG);
	CHECK_EQ_U64(create_err(H, 4, 4, 0x80000001u, 0), -E2BIG);
	CHECK_EQ_U64(create_err(H, 4, 4, (1u << 27) + 1, 0), -E2BIG); /* Linux: 2^28 buckets overflow u32 bytes */
	/* accepted flags */
	CHECK_EQ_U64(create_err(H, 4, 4, 16, BPF_F_NO_PREALLOC), 0);
	CHECK_EQ_U64(create_err(H, 4, 4, 16, BPF_F_ZERO_SEED), 0);
	CHECK_EQ_U64(create_err(H, 4, 4, 16, BPF_F_NUMA_NODE), 0);
	CHECK_EQ_U64(create_err(H, 4, 4, 16, BPF_F_RDONLY_PROG), 0);
	CHECK_EQ_U64(create_err(H, 4, 4, 16, BPF_F_WRONLY_PROG), 0);
	/* refused flags */
	CHECK_EQ_U64(create_err(H, 4, 4, 16, BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG), -EINVAL);
	CHECK_EQ_U64(create_err(H, 4, 4, 16, BPF_F_NO_COMMON_LRU), -EINVAL); /* LRU only */
	CHECK_EQ_U64(create_err(H, 4, 4, 16, BPF_F_MMAPABLE), -EINVAL);
	CHECK_EQ_U64(create_err(H, 4, 4, 16, BPF_F_INNER_MAP), -EINVAL);
	CHECK_EQ_U64(create_err(H, 4, 4, 16, BPF_F_CLONE), -EINVAL);
	/* per-CPU hash: no NUMA node, values up to 32 KiB */
	CHECK_EQ_U64(create_err(PH, 4, 4, 16, BPF_F_NUMA_NODE), -EINVAL);
	CHECK_EQ_U64(create_err(PH, 4, 32768, 1, 0), 0);
	CHECK_EQ_U64(create_err(PH, 4, 32769, 1, 0), -E2BIG);
}

/* Creating a hash map costs memory for what it holds, not for max_entries: the bucket
 * array was initialised entry by entry (2 GiB touched for 10^8 entries, before the
 * element pool's allocation), now both are left as calloc gives them and touched as
 * keys arrive. RSS (getrusage's high-water mark) grows by less than 64 MiB creating
 * and using maps of 10^8 entries; on the old code by over 2 GiB. */
static long max_rss_kib(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) ? -1 : ru.ru_maxrss;
}

/* Sanitizers' calloc writes (or shadows) every byte it hands out: RSS means nothing there. */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define HUGE_MAPS_MEASURABLE 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define HUGE_MAPS_MEASURABLE 0
#endif
#endif
#ifndef HUGE_MAPS_MEASURABLE
#define HUGE_MAPS_MEASURABLE 1
#endif

static void test_hash_huge_lazy(void)
{
	if (!HUGE_MAPS_MEASURABLE) {
		printf("test_hash_huge_lazy: skipped under a sanitizer\n");
		return;
	}
	const uint32_t types[] = { BPF_MAP_TYPE_HASH, BPF_MAP_TYPE_LRU_HASH, BPF_MAP_TYPE_PERCPU_HASH };
	long before = max_rss_kib();

	for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
		struct kbpf_map *m = NULL;
		int err = mk(types[t], 8, 8, 100000000, 0, &m);

		CHECK(err == 0 || err == -ENOMEM); /* -ENOMEM: address space refused, nothing used */
		if (err)
			continue;
		for (uint64_t k = 0; k < 1000; k++) {
			static uint64_t v[4096], got[4096]; /* per-CPU: one value per CPU */
			v[0] = k * 3;
			CHECK_EQ_U64(kbpf_map_update(m, &k, v, BPF_ANY), 0);
			CHECK_EQ_U64(kbpf_map_lookup(m, &k, got), 0);
			CHECK_EQ_U64(got[0], k * 3);
		}
		for (uint64_t k = 0; k < 1000; k += 2)
			CHECK_EQ_U64(kbpf_map_delete(m, &k), 0);
		uint64_t k = 1000;
		CHECK_EQ_U64(kbpf_map_delete(m, &k), -ENOENT);
		kbpf_map_free(m);
	}
	long grown = max_rss_kib() - before;
	fprintf(stderr, "huge hash maps: max RSS grew by %ld KiB\n", grown);
	CHECK(before > 0 && grown < 64 * 1024);
}

struct val {
	uint64_t a, b;
};

static void test_hash_ops(void)
{
	struct kbpf_map *m;
	uint32_t key = 7;
	struct val v = { 1, 2 }, out;

	CHECK_EQ_U64(mk(BPF_MAP_TYPE_HASH, 4, 16, 4, 0, &m), 0);
	CHECK_EQ_U64(kbpf_map_host_value_size(m), 16);
	CHECK_EQ_U64(kbpf_map_lookup(m, &key, &out), -ENOENT);
	CHECK(kbpf_map_lookup_elem(m, &key) == NULL);
	CHECK_EQ_U64(kbpf_map_delete(m, &key), -ENOENT);
	CHECK_EQ_U64(kbpf_map_delete_elem(m, &key), -ENOENT);
	CHECK_EQ_U64(kbpf_map_update(m, &key, &v, BPF_EXIST), -ENOENT);
	CHECK_EQ_U64(kbpf_map_update(m, &key, &v, 3), -EINVAL);
	CHECK_EQ_U64(kbpf_map_update(m, &key, &v, BPF_F_LOCK), -EINVAL);
	CHECK_EQ_U64(kbpf_map_update_elem(m, &key, &v, BPF_F_LOCK), -EINVAL);
	CHECK_EQ_U64(kbpf_map_update_elem(m, &key, &v, 1ull << 40), -EINVAL);
	CHECK_EQ_U64(kbpf_map_update(m, &key, &v, BPF_NOEXIST), 0);
	CHECK_EQ_U64(kbpf_map_update(m, &key, &v, BPF_NOEXIST), -EEXIST);
	CHECK_EQ_U64(kbpf_map_lookup(m, &key, &out), 0);
	CHECK(out.a == 1 && out.b == 2);
	v.a = 3;
	CHECK_EQ_U64(kbpf_map_update(m, &key, &v, BPF_EXIST), 0);
	CHECK_EQ_U64(kbpf_map_lookup(m, &key, &out), 0);
	CHECK_EQ_U64(out.a, 3);

	/* program side: a pointer to the value in place, 8-byte aligned */
	struct val *p = kbpf_map_lookup_elem(m, &key);
	CHECK(p != NULL);
	CHECK(((uintptr_t)p & 7) == 0);
	CHECK_EQ_U64(p->a, 3);
	p->b = 99;
	CHECK_EQ_U64(kbpf_map_lookup(m, &key, &out), 0);
	CHECK_EQ_U64(out.b, 99);
	v.a = 4;
	CHECK_EQ_U64(kbpf_map_update_elem(m, &key, &v, BPF_ANY), 0);
	CHECK_EQ_U64(p->a, 4); /* updated in place */
	CHECK_EQ_U64(kbpf_map_update_elem(m, &key, p, BPF_EXIST), 0); /* from its own value */
	v.a = 5;
	CHECK_EQ_U64(kbpf_map_update_elem(m, &key, &v, BPF_NOEXIST), -EEXIST);
	CHECK_EQ_U64(kbpf_map_update(m, &key, &v, BPF_NOEXIST), -EEXIST);
	CHECK_EQ_U64(p->a, 4); /* a refused update changes nothing */

	/* delete: the stale pointer stays readable memory (ASan would catch a free) */
	CHECK_EQ_U64(kbpf_map_delete_elem(m, &key), 0);
	CHECK(kbpf_map_lookup_elem(m, &key) == NULL);
	volatile uint64_t stale = p->a;
	(void)stale;
	CHECK_EQ_U64(kbpf_map_delete(m, &key), -ENOENT);
	kbpf_map_free(m);
}

/* Full: -E2BIG for a new key, but an existing key can still be replaced, and a
 * delete makes room again. */
static void test_hash_full(void)
{
	struct kbpf_map *m;
	uint64_t key, val;

	CHECK_EQ_U64(mk(BPF_MAP_TYPE_HASH, 8, 8, 8, 0, &m), 0);
	for (key = 0; key < 8; key++) {
		val = key * 10;
		CHECK_EQ_U64(kbpf_map_update(m, &key, &val, BPF_ANY), 0);
	}
	key = 100;
	CHECK_EQ_U64(kbpf_map_update(m, &key, &val, BPF_ANY), -E2BIG);
	CHECK_EQ_U64(kbpf_map_update_elem(m, &key, &val, BPF_NOEXIST), -E2BIG);
	key = 3;
	val = 333;
	CHECK_EQ_U64(kbpf_map_update(m, &key, &val, BPF_ANY), 0);
	CHECK_EQ_U64(kbpf_map_update(m, &key, &val, BPF_EXIST), 0);
	CHECK_EQ_U64(kbpf_map_delete(m, &key), 0);
	key = 100;
	CHECK_EQ_U64(kbpf_map_update(m, &key, &val, BPF_ANY), 0);
	CHECK_EQ_U64(kbpf_map_lookup(m, &key, &val), 0);
	CHECK_EQ_U64(val, 333);
	/* delete everything, then the map holds max_entries new keys again */
	for (key = 0; key < 8; key++)
		kbpf_map_delete(m, &key);
	key = 100;
	CHECK_EQ_U64(kbpf_map_delete(m, &key), 0);
	for (key = 1000; key < 1008; key++)
		CHECK_EQ_U64(kbpf_map_update(m, &key, &key, BPF_NOEXIST), 0);
	key = 1008;
	CHECK_EQ_U64(kbpf_map_update(m, &key, &key, BPF_NOEXIST), -E2BIG);
	kbpf_map_free(m);
}

/* Iterate with get_next_key; count keys, each seen once. Keys are < limit. */
static int iterate_count(struct kbpf_map *m, uint32_t limit, int *dup)
{
	unsigned char *seen = calloc(limit, 1);
	uint32_t key, next;
	int n = 0, err;

	*dup = 0;
	for (err = kbpf_map_get_next_key(m, NULL, &next); !err; err = kbpf_map_get_next_key(m, &key, &next)) {
		if (next >= limit || seen[next]++)
			*dup = 1;
		n++;
		key = next;
		if (n > (int)limit)
			break;
	}
	CHECK_EQ_U64(err, -ENOENT);
	free(seen);
	return n;
}

static void test_hash_get_next_key(void)
{
	struct kbpf_map *m;
	uint32_t key, next, missing = 5000;
	uint16_t val = 1;
	int dup;

	CHECK_EQ_U64(mk(BPF_MAP_TYPE_HASH, 4, 2, 1000, BPF_F_NO_PREALLOC, &m), 0);
	CHECK_EQ_U64(kbpf_map_get_next_key(m, NULL, &next), -ENOENT);
	CHECK_EQ_U64(kbpf_map_get_next_key(m, &missing, &next), -ENOENT);
	for (key = 0; key < 1000; key += 3)
		CHECK_EQ_U64(kbpf_map_update(m, &key, &val, BPF_NOEXIST), 0);
	CHECK_EQ_U64(iterate_count(m, 1000, &dup), 334);
	CHECK(!dup);
	/* a key not in the map gives the first key, like NULL */
	uint32_t first;
	CHECK_EQ_U64(kbpf_map_get_next_key(m, NULL, &first), 0);
	CHECK_EQ_U64(kbpf_map_get_next_key(m, &missing, &next), 0);
	CHECK_EQ_U64(next, first);
	/* the classic delete-while-iterating loop of bpftool empties the map */
	while (!kbpf_map_get_next_key(m, NULL, &next))
		CHECK_EQ_U64(kbpf_map_delete(m, &next), 0);
	CHECK_EQ_U64(iterate_count(m, 1000, &dup), 0);
	kbpf_map_free(m);
}

/* Keys of odd sizes hash and compare all their bytes and only those. */
static void test_hash_odd_key(void)
{
	struct kbpf_map *m;
	unsigned char k1[13] = "abcdefghijkl", k2[13] = "abcdefghijkm", next[13];
	uint32_t v = 1, out;

	CHECK_EQ_U64(mk(BPF_MAP_TYPE_HASH, 13, 4, 4, BPF_F_ZERO_SEED, &m), 0);
	CHECK_EQ_U64(kbpf_map_update(m, k1, &v, BPF_ANY), 0);
	CHECK_EQ_U64(kbpf_map_lookup(m, k2, &out), -ENOENT);
	v = 2;
	CHECK_EQ_U64(kbpf_map_update(m, k2, &v, BPF_NOEXIST), 0);
	CHECK_EQ_U64(kbpf_map_lookup(m, k1, &out), 0);
	CHECK_EQ_U64(out, 1);
	CHECK_EQ_U64(kbpf_map_lookup(m, k2, &out), 0);
	CHECK_EQ_U64(out, 2);
	CHECK_EQ_U64(kbpf_map_get_next_key(m, NULL, next), 0);
	CHECK(!memcmp(next, k1, 13) || !memcmp(next, k2, 13));
	kbpf_map_free(m);
}

/* --- threads ------------------------------------------------------------------------
 * Shared keys 0..SHARED-1 (more than fit): host-side update/delete/lookup from every
 * thread, values always {key, ~key} so a torn or misplaced value shows.  Private
 * keys: each thread inserts its own, increments them through program-side pointers,
 * checks and deletes them. */
#define NR_THREADS 4
#define NR_OPS 200000
#define MAX_ENTRIES 512
#define SHARED 1024
#define PRIVATE_BASE 100000

struct kv {
	uint64_t key, inv;
};

struct thread_arg {
	struct kbpf_map *m;
	unsigned id;
	int errors;
};

static uint32_t xorshift(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static void *hash_thread(void *p)
{
	struct thread_arg *a = p;
	uint32_t seed = 0x9e3779b9u * (a->id + 1);

	for (int i = 0; i < NR_OPS; i++) {
		uint32_t r = xorshift(&seed), key = r % SHARED;
		struct kv v = { key, ~(uint64_t)key }, out;
		int err;

		switch ((r >> 16) % 4) {
		case 0:
		case 1:
			err = kbpf_map_update(a->m, &key, &v, (r >> 20) % 3);
			if (err && err != -EEXIST && err != -ENOENT && err != -E2BIG)
				a->errors++;
			break;
		case 2:
			err = kbpf_map_delete(a->m, &key);
			if (err && err != -ENOENT)
				a->errors++;
			break;
		default:
			err = kbpf_map_lookup(a->m, &key, &out);
			if (err == 0 && (out.key != key || out.inv != ~(uint64_t)key))
				a->errors++;
			else if (err && err != -ENOENT)
				a->errors++;
			break;
		}
		if (i % 64 == 0) { /* a private key, through the program-side API */
			uint32_t pk = PRIVATE_BASE + a->id;
			struct kv pv = { 0, 0 }, *pp;

			err = (int)kbpf_map_update_elem(a->m, &pk, &pv, BPF_NOEXIST);
			if (err == -E2BIG)
				continue;
			if (err)
				a->errors++;
			pp = kbpf_map_lookup_elem(a->m, &pk);
			if (!pp) {
				a->errors++;
				continue;
			}
			for (int j = 0; j < 10; j++)
				__sync_fetch_and_add(&pp->key, 1);
			if (pp->key != 10 || pp->inv != 0)
				a->errors++;
			if (kbpf_map_delete_elem(a->m, &pk))
				a->errors++;
		}
	}
	return NULL;
}

static void test_hash_threads(void)
{
	pthread_t t[NR_THREADS];
	struct thread_arg args[NR_THREADS];
	struct kbpf_map *m;
	uint32_t key, next;
	struct kv out;
	int n = 0, dup = 0;

	CHECK_EQ_U64(mk(BPF_MAP_TYPE_HASH, 4, sizeof(struct kv), MAX_ENTRIES, 0, &m), 0);
	for (unsigned i = 0; i < NR_THREADS; i++) {
		args[i] = (struct thread_arg){ m, i, 0 };
		CHECK_EQ_U64(pthread_create(&t[i], NULL, hash_thread, &args[i]), 0);
	}
	for (unsigned i = 0; i < NR_THREADS; i++) {
		pthread_join(t[i], NULL);
		CHECK_EQ_U64(args[i].errors, 0);
	}
	/* consistent: every key once, in range, with its own value; private keys gone */
	unsigned char seen[SHARED] = { 0 };
	int err;
	for (err = kbpf_map_get_next_key(m, NULL, &next); !err; err = kbpf_map_get_next_key(m, &key, &next)) {
		key = next;
		if (key >= SHARED || seen[key]++) {
			dup = 1;
			break;
		}
		CHECK_EQ_U64(kbpf_map_lookup(m, &key, &out), 0);
		CHECK(out.key == key && out.inv == ~(uint64_t)key);
		n++;
	}
	CHECK_EQ_U64(err, -ENOENT);
	CHECK(!dup);
	CHECK(n <= MAX_ENTRIES);
	/* no element was lost: after deleting all, exactly MAX_ENTRIES keys fit */
	while (!kbpf_map_get_next_key(m, NULL, &next))
		CHECK_EQ_U64(kbpf_map_delete(m, &next), 0);
	for (key = 0; key < MAX_ENTRIES; key++) {
		struct kv v = { key, ~(uint64_t)key };
		CHECK_EQ_U64(kbpf_map_update(m, &key, &v, BPF_NOEXIST), 0);
	}
	CHECK_EQ_U64(kbpf_map_update(m, &key, &out, BPF_NOEXIST), -E2BIG);
	kbpf_map_free(m);
}

/* Lock-free program-side lookups while other threads keep moving elements between
 * buckets: keys that stay in the map are always found with their value, keys never
 * inserted are never found.  White-box: with BPF_F_ZERO_SEED the test computes the
 * buckets (htab.h) and aims every key at bucket 0 or 1, so chains are long and a
 * deleted element is soon reused in the other bucket, carrying readers along. */
#define NR_BUCKETS 64
#define STABLE_KEYS 8
#define CHURN_KEYS 40 /* 20 pairs of a bucket-0 and a bucket-1 key; 8 + 20 < 64 */

struct churn_arg {
	struct kbpf_map *m;
	unsigned id;
	volatile int *stop;
	const uint32_t *stable, *churn, *absent;
	long errors, ops;
};

static void *churn_writer(void *p)
{
	struct churn_arg *a = p;
	uint32_t s = 0x12345u + a->id;

	/* churn[2i] (bucket 0) and churn[2i+1] (bucket 1) form pair i, one of them in
	 * the map; writer w owns the pairs i with i % 2 == w and swaps which is in:
	 * the element just deleted is reused at once for a key in the other bucket */
	unsigned char in_bucket1[CHURN_KEYS / 2] = { 0 };

	while (!__atomic_load_n(a->stop, __ATOMIC_ACQUIRE)) {
		uint32_t pair, out_key, in_key;
		uint64_t v;

		s ^= s << 13;
		s ^= s >> 17;
		s ^= s << 5;
		pair = (s % (CHURN_KEYS / 4)) * 2 + a->id;
		out_key = a->churn[2 * pair + in_bucket1[pair]];
		in_key = a->churn[2 * pair + !in_bucket1[pair]];
		v = in_key;
		if (kbpf_map_delete_elem(a->m, &out_key) ||
		    kbpf_map_update_elem(a->m, &in_key, &v, BPF_NOEXIST))
			a->errors++;
		in_bucket1[pair] ^= 1;
		a->ops++;
	}
	return NULL;
}

static void *stable_reader(void *p)
{
	struct churn_arg *a = p;

	for (int i = 0; i < 300000; i++) {
		uint32_t key = a->stable[i % STABLE_KEYS], absent = a->absent[i % 4];
		uint64_t *v = kbpf_map_lookup_elem(a->m, &key);

		if (!v || *v != (uint64_t)key * 7)
			a->errors++;
		if (kbpf_map_lookup_elem(a->m, &absent))
			a->errors++;
		a->ops++;
	}
	return NULL;
}

static void test_hash_lockless_lookup(void)
{
	uint32_t stable[STABLE_KEYS], churn[CHURN_KEYS], absent[4];
	unsigned ns = 0, nc0 = 0, nc1 = 0, na = 0;
	pthread_t w[2], r[2];
	struct churn_arg wa[2], ra[2];
	volatile int stop = 0;
	struct kbpf_map *m;

	/* stable and absent keys in bucket 0, churn keys alternating buckets 0 and 1 */
	for (uint32_t k = 0; ns < STABLE_KEYS || nc0 + nc1 < CHURN_KEYS || na < 4; k++) {
		uint32_t bucket = htab_hash(&k, 4, 0) & (NR_BUCKETS - 1);

		if (bucket == 0 && ns < STABLE_KEYS)
			stable[ns++] = k;
		else if (bucket == 0 && na < 4)
			absent[na++] = k;
		else if (bucket == 0 && nc0 < CHURN_KEYS / 2)
			churn[2 * nc0++] = k;
		else if (bucket == 1 && nc1 < CHURN_KEYS / 2)
			churn[2 * nc1++ + 1] = k;
	}
	CHECK_EQ_U64(mk(BPF_MAP_TYPE_HASH, 4, 8, NR_BUCKETS, BPF_F_ZERO_SEED, &m), 0);
	for (unsigned i = 0; i < STABLE_KEYS; i++) {
		uint64_t v = (uint64_t)stable[i] * 7;
		CHECK_EQ_U64(kbpf_map_update(m, &stable[i], &v, BPF_NOEXIST), 0);
	}
	for (unsigned i = 0; i < CHURN_KEYS; i += 2) {
		uint64_t v = churn[i];
		CHECK_EQ_U64(kbpf_map_update(m, &churn[i], &v, BPF_NOEXIST), 0);
	}
	for (unsigned i = 0; i < 2; i++) {
		wa[i] = (struct churn_arg){ m, i, &stop, stable, churn, absent, 0, 0 };
		ra[i] = wa[i];
		CHECK_EQ_U64(pthread_create(&w[i], NULL, churn_writer, &wa[i]), 0);
		CHECK_EQ_U64(pthread_create(&r[i], NULL, stable_reader, &ra[i]), 0);
	}
	for (unsigned i = 0; i < 2; i++) {
		pthread_join(r[i], NULL);
		CHECK_EQ_U64(ra[i].errors, 0);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (unsigned i = 0; i < 2; i++) {
		pthread_join(w[i], NULL);
		CHECK_EQ_U64(wa[i].errors, 0);
	}
	CHECK(wa[0].ops > 0 && wa[1].ops > 0);
	kbpf_map_free(m);
}

int main(void)
{
	RUN(test_hash_huge_lazy); /* first: it measures the RSS high-water mark */
	RUN(test_hash_create_rules);
	RUN(test_hash_ops);
	RUN(test_hash_full);
	RUN(test_hash_get_next_key);
	RUN(test_hash_odd_key);
	RUN(test_hash_threads);
	RUN(test_hash_lockless_lookup);
	return test_summary();
}
