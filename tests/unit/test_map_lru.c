/* SPDX-License-Identifier: Apache-2.0 */
/* LRU_HASH: a full map evicts instead of failing, sparing recently used keys; the
 * create rules of LRU maps; and concurrent use ending with no element lost. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <kbpf/map.h>
#include "test.h"

static int mk(uint32_t type, uint32_t ks, uint32_t vs, uint32_t max, uint32_t flags, struct kbpf_map **m)
{
	struct kbpf_map_def def = {
		.sz = sizeof(def), .type = type, .key_size = ks, .value_size = vs,
		.max_entries = max, .map_flags = flags, .name = "lru",
	};
	return kbpf_map_create(&def, m);
}

static int create_err(uint32_t type, uint32_t flags)
{
	struct kbpf_map *m = NULL;
	int err = mk(type, 4, 8, 16, flags, &m);

	kbpf_map_free(m);
	return err;
}

static void test_lru_create_rules(void)
{
	const uint32_t L = BPF_MAP_TYPE_LRU_HASH, LP = BPF_MAP_TYPE_LRU_PERCPU_HASH;
	struct kbpf_map *m;

	CHECK_EQ_U64(create_err(L, 0), 0);
	CHECK_EQ_U64(create_err(LP, 0), 0);
	CHECK_EQ_U64(create_err(L, BPF_F_NO_PREALLOC), -EOPNOTSUPP); /* Linux: ENOTSUPP */
	CHECK_EQ_U64(create_err(L, BPF_F_NO_COMMON_LRU), 0);
	CHECK_EQ_U64(create_err(L, BPF_F_NUMA_NODE), 0);
	CHECK_EQ_U64(create_err(L, BPF_F_NO_COMMON_LRU | BPF_F_NUMA_NODE), -EINVAL);
	CHECK_EQ_U64(create_err(LP, BPF_F_NUMA_NODE), -EINVAL);
	CHECK_EQ_U64(create_err(L, BPF_F_MMAPABLE), -EINVAL);
	/* a per-CPU LRU list gets max_entries rounded up to a multiple of the CPU count */
	unsigned n = kbpf_nr_cpus();
	CHECK_EQ_U64(mk(L, 4, 8, 1, BPF_F_NO_COMMON_LRU, &m), 0);
	CHECK_EQ_U64(kbpf_map_max_entries(m), n);
	kbpf_map_free(m);
}

static int present(struct kbpf_map *m, uint32_t key)
{
	uint64_t v;

	return kbpf_map_lookup(m, &key, &v) == 0;
}

static void test_lru_eviction(void)
{
	struct kbpf_map *m;
	uint32_t key;
	uint64_t val = 1;

	CHECK_EQ_U64(mk(BPF_MAP_TYPE_LRU_HASH, 4, 8, 4, 0, &m), 0);
	for (key = 1; key <= 4; key++)
		CHECK_EQ_U64(kbpf_map_update(m, &key, &val, BPF_NOEXIST), 0);
	/* a program uses key 1; host lookups do not count as uses */
	key = 1;
	CHECK(kbpf_map_lookup_elem(m, &key) != NULL);
	CHECK(present(m, 2));
	/* full: key 5 evicts the oldest unused key, 2, instead of -E2BIG */
	key = 5;
	CHECK_EQ_U64(kbpf_map_update(m, &key, &val, BPF_NOEXIST), 0);
	CHECK(present(m, 1));
	CHECK(!present(m, 2));
	CHECK(present(m, 3) && present(m, 4) && present(m, 5));
	/* updating an existing key counts as a use and never evicts */
	key = 3;
	CHECK_EQ_U64(kbpf_map_update(m, &key, &val, BPF_EXIST), 0);
	CHECK(present(m, 1) && present(m, 3) && present(m, 4) && present(m, 5));
	/* next victims: 4 (unused), then the oldest whose second chance ran out */
	key = 6;
	CHECK_EQ_U64(kbpf_map_update_elem(m, &key, &val, BPF_ANY), 0);
	CHECK(!present(m, 4));
	CHECK(present(m, 1) && present(m, 3) && present(m, 5) && present(m, 6));
	/* the flags still hold */
	key = 6;
	CHECK_EQ_U64(kbpf_map_update(m, &key, &val, BPF_NOEXIST), -EEXIST);
	key = 42;
	CHECK_EQ_U64(kbpf_map_update(m, &key, &val, BPF_EXIST), -ENOENT);
	CHECK(present(m, 1) && present(m, 3) && present(m, 5) && present(m, 6)); /* no eviction */
	/* delete makes room: no eviction for the next key */
	key = 5;
	CHECK_EQ_U64(kbpf_map_delete(m, &key), 0);
	CHECK_EQ_U64(kbpf_map_delete(m, &key), -ENOENT);
	key = 7;
	CHECK_EQ_U64(kbpf_map_update(m, &key, &val, BPF_ANY), 0);
	CHECK(present(m, 1) && present(m, 3) && present(m, 6) && present(m, 7));
	kbpf_map_free(m);
}

/* Many more keys than fit: never an error, never more than max_entries keys. */
static void test_lru_churn(void)
{
	struct kbpf_map *m;
	uint32_t key, next;
	int n = 0;

	CHECK_EQ_U64(mk(BPF_MAP_TYPE_LRU_HASH, 4, 4, 64, 0, &m), 0);
	for (key = 0; key < 10000; key++) {
		CHECK_EQ_U64(kbpf_map_update(m, &key, &key, BPF_ANY), 0);
		/* keep key 0 in use: it must survive */
		uint32_t hot = 0;
		CHECK(kbpf_map_lookup_elem(m, &hot) != NULL);
	}
	for (int err = kbpf_map_get_next_key(m, NULL, &next); !err; err = kbpf_map_get_next_key(m, &key, &next)) {
		uint32_t v;

		key = next;
		CHECK_EQ_U64(kbpf_map_lookup(m, &key, &v), 0);
		CHECK_EQ_U64(v, key);
		n++;
	}
	CHECK_EQ_U64(n, 64);
	CHECK(present(m, 0));
	CHECK(present(m, 9999));
	kbpf_map_free(m);
}

/* --- threads ---------------------------------------------------------------------- */
#define NR_THREADS 4
#define NR_OPS 200000
#define MAX_ENTRIES 128

struct thread_arg {
	struct kbpf_map *m;
	unsigned id;
	int errors;
};

static void *lru_thread(void *p)
{
	struct thread_arg *a = p;
	uint32_t s = 2654435761u * (a->id + 1);

	for (int i = 0; i < NR_OPS; i++) {
		uint32_t key, r;
		uint64_t v, out;
		int err;

		s ^= s << 13;
		s ^= s >> 17;
		s ^= s << 5;
		r = s;
		key = r % 1024;
		v = (uint64_t)key * 3;
		switch ((r >> 12) % 4) {
		case 0:
		case 1:
			err = kbpf_map_update(a->m, &key, &v, BPF_ANY);
			if (err)
				a->errors++;
			break;
		case 2:
			err = kbpf_map_delete(a->m, &key);
			if (err && err != -ENOENT)
				a->errors++;
			break;
		default:
			if (kbpf_map_lookup_elem(a->m, &key) == NULL)
				break;
			err = kbpf_map_lookup(a->m, &key, &out);
			if (!err && out != v)
				a->errors++;
			break;
		}
	}
	return NULL;
}

static void test_lru_threads(void)
{
	pthread_t t[NR_THREADS];
	struct thread_arg args[NR_THREADS];
	struct kbpf_map *m;
	uint32_t key, next;
	uint64_t v;
	int n = 0;

	CHECK_EQ_U64(mk(BPF_MAP_TYPE_LRU_HASH, 4, 8, MAX_ENTRIES, 0, &m), 0);
	for (unsigned i = 0; i < NR_THREADS; i++) {
		args[i] = (struct thread_arg){ m, i, 0 };
		CHECK_EQ_U64(pthread_create(&t[i], NULL, lru_thread, &args[i]), 0);
	}
	for (unsigned i = 0; i < NR_THREADS; i++) {
		pthread_join(t[i], NULL);
		CHECK_EQ_U64(args[i].errors, 0);
	}
	for (int err = kbpf_map_get_next_key(m, NULL, &next); !err; err = kbpf_map_get_next_key(m, &key, &next)) {
		key = next;
		CHECK_EQ_U64(kbpf_map_lookup(m, &key, &v), 0);
		CHECK_EQ_U64(v, (uint64_t)key * 3);
		if (++n > MAX_ENTRIES)
			break;
	}
	CHECK(n <= MAX_ENTRIES);
	/* no element lost: after deleting all, MAX_ENTRIES new keys fit without eviction */
	while (!kbpf_map_get_next_key(m, NULL, &next))
		CHECK_EQ_U64(kbpf_map_delete(m, &next), 0);
	for (key = 5000; key < 5000 + MAX_ENTRIES; key++)
		CHECK_EQ_U64(kbpf_map_update(m, &key, &v, BPF_NOEXIST), 0);
	for (key = 5000; key < 5000 + MAX_ENTRIES; key++)
		CHECK(present(m, key));
	kbpf_map_free(m);
}

int main(void)
{
	RUN(test_lru_create_rules);
	RUN(test_lru_eviction);
	RUN(test_lru_churn);
	RUN(test_lru_threads);
	return test_summary();
}
