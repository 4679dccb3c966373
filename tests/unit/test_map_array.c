/* SPDX-License-Identifier: Apache-2.0 */
/* ARRAY maps, and what all maps share: definition checks, host-side access flags,
 * freezing, the program-side pointer API, and lock-free atomic updates from threads. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <kbpf/map.h>
#include "test.h"

static int mk(uint32_t type, uint32_t ks, uint32_t vs, uint32_t max, uint32_t flags, struct kbpf_map **m)
{
	struct kbpf_map_def def = {
		.sz = sizeof(def), .type = type, .key_size = ks, .value_size = vs,
		.max_entries = max, .map_flags = flags, .name = "arr",
	};
	return kbpf_map_create(&def, m);
}

/* The errno creating such a map gives (0: it was created, and freed). */
static int create_err(uint32_t type, uint32_t ks, uint32_t vs, uint32_t max, uint32_t flags)
{
	struct kbpf_map *m = NULL;
	int err = mk(type, ks, vs, max, flags, &m);

	CHECK(err ? m == NULL : m != NULL);
	kbpf_map_free(m);
	return err;
}

static void test_def_checks(void)
{
	struct kbpf_map *m = (struct kbpf_map *)1;
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_ARRAY, .key_size = 4,
				    .value_size = 8, .max_entries = 1 };
	struct {
		struct kbpf_map_def def;
		uint64_t future_field;
	} bigger = { def, 0 };

	CHECK_EQ_U64(kbpf_map_create(NULL, &m), -EINVAL);
	CHECK(m == NULL);
	CHECK_EQ_U64(kbpf_map_create(&def, NULL), -EINVAL);
	def.sz = 8;
	CHECK_EQ_U64(kbpf_map_create(&def, &m), -EINVAL);
	/* a newer caller's bigger struct is fine while its extra fields are zero */
	bigger.def.sz = sizeof(bigger);
	CHECK_EQ_U64(kbpf_map_create(&bigger.def, &m), 0);
	CHECK_STR(kbpf_map_name(m), ""); /* NULL name */
	kbpf_map_free(m);
	bigger.future_field = 1;
	CHECK_EQ_U64(kbpf_map_create(&bigger.def, &m), -EINVAL);

	/* type numbers: 0 and unknown ones are -EINVAL (Linux), known but missing -EOPNOTSUPP */
	CHECK_EQ_U64(create_err(BPF_MAP_TYPE_UNSPEC, 4, 4, 1, 0), -EINVAL);
	CHECK_EQ_U64(create_err(1000, 4, 4, 1, 0), -EINVAL);
	CHECK_EQ_U64(create_err(BPF_MAP_TYPE_DEVMAP, 4, 4, 1, 0), -EOPNOTSUPP);
	CHECK_EQ_U64(create_err(BPF_MAP_TYPE_TASK_STORAGE, 4, 4, 0, BPF_F_NO_PREALLOC), -EOPNOTSUPP);
	/* the syscall side cannot be both read-only and write-only, for any type */
	CHECK_EQ_U64(create_err(BPF_MAP_TYPE_ARRAY, 4, 4, 1, BPF_F_RDONLY | BPF_F_WRONLY), -EINVAL);
	kbpf_map_free(NULL);
}

static void test_array_create_rules(void)
{
	const uint32_t A = BPF_MAP_TYPE_ARRAY, P = BPF_MAP_TYPE_PERCPU_ARRAY;

	CHECK_EQ_U64(create_err(A, 4, 4, 1, 0), 0);
	CHECK_EQ_U64(create_err(A, 4, 4, 0, 0), -EINVAL);  /* max_entries 0 */
	CHECK_EQ_U64(create_err(A, 8, 4, 1, 0), -EINVAL);  /* key must be a u32 */
	CHECK_EQ_U64(create_err(A, 0, 4, 1, 0), -EINVAL);
	CHECK_EQ_U64(create_err(A, 4, 0, 1, 0), -EINVAL);  /* value_size 0 */
	CHECK_EQ_U64(create_err(A, 4, 0x80000000u, 1, 0), -E2BIG);
	/* accepted flags */
	CHECK_EQ_U64(create_err(A, 4, 4, 1, BPF_F_MMAPABLE), 0);
	CHECK_EQ_U64(create_err(A, 4, 4, 1, BPF_F_NUMA_NODE), 0);
	CHECK_EQ_U64(create_err(A, 4, 4, 1, BPF_F_RDONLY_PROG), 0);
	CHECK_EQ_U64(create_err(A, 4, 4, 1, BPF_F_WRONLY_PROG), 0);
	CHECK_EQ_U64(create_err(A, 4, 4, 1, BPF_F_RDONLY), 0);
	CHECK_EQ_U64(create_err(A, 4, 4, 1, BPF_F_WRONLY), 0);
	CHECK_EQ_U64(create_err(A, 4, 4, 1, BPF_F_INNER_MAP), 0);
	/* refused flags */
	CHECK_EQ_U64(create_err(A, 4, 4, 1, BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG), -EINVAL);
	CHECK_EQ_U64(create_err(A, 4, 4, 1, BPF_F_NO_PREALLOC), -EINVAL);
	CHECK_EQ_U64(create_err(A, 4, 4, 1, BPF_F_ZERO_SEED), -EINVAL);
	CHECK_EQ_U64(create_err(A, 4, 4, 1, BPF_F_PRESERVE_ELEMS), -EINVAL); /* perf event arrays only */
	CHECK_EQ_U64(create_err(A, 4, 4, 1, BPF_F_NO_COMMON_LRU), -EINVAL);
	CHECK_EQ_U64(create_err(A, 4, 4, 1, 1u << 20), -EINVAL);
	/* per-CPU arrays: no mmap, no NUMA node, values up to 32 KiB */
	CHECK_EQ_U64(create_err(P, 4, 4, 1, 0), 0);
	CHECK_EQ_U64(create_err(P, 4, 4, 1, BPF_F_MMAPABLE), -EINVAL);
	CHECK_EQ_U64(create_err(P, 4, 4, 1, BPF_F_INNER_MAP), -EINVAL);
	CHECK_EQ_U64(create_err(P, 4, 4, 1, BPF_F_NUMA_NODE), -EINVAL);
	CHECK_EQ_U64(create_err(P, 4, 32768, 1, 0), 0);
	CHECK_EQ_U64(create_err(P, 4, 32767, 1, 0), 0);    /* rounds up to 32 KiB */
	CHECK_EQ_U64(create_err(P, 4, 32769, 1, 0), -E2BIG);
}

static void test_array_ops(void)
{
	struct kbpf_map *m;
	uint32_t key, next;
	uint64_t val;

	CHECK_EQ_U64(mk(BPF_MAP_TYPE_ARRAY, 4, 8, 4, 0, &m), 0);
	CHECK_EQ_U64(kbpf_map_type(m), BPF_MAP_TYPE_ARRAY);
	CHECK_EQ_U64(kbpf_map_key_size(m), 4);
	CHECK_EQ_U64(kbpf_map_value_size(m), 8);
	CHECK_EQ_U64(kbpf_map_max_entries(m), 4);
	CHECK_EQ_U64(kbpf_map_flags(m), 0);
	CHECK_EQ_U64(kbpf_map_host_value_size(m), 8);
	CHECK_STR(kbpf_map_name(m), "arr");

	/* values start zeroed and always exist */
	for (key = 0; key < 4; key++) {
		val = 1;
		CHECK_EQ_U64(kbpf_map_lookup(m, &key, &val), 0);
		CHECK_EQ_U64(val, 0);
	}
	key = 4;
	CHECK_EQ_U64(kbpf_map_lookup(m, &key, &val), -ENOENT);
	CHECK(kbpf_map_lookup_elem(m, &key) == NULL);

	key = 2;
	val = 0x1122334455667788ull;
	CHECK_EQ_U64(kbpf_map_update(m, &key, &val, BPF_ANY), 0);
	CHECK_EQ_U64(kbpf_map_update(m, &key, &val, BPF_EXIST), 0);
	CHECK_EQ_U64(kbpf_map_update(m, &key, &val, BPF_NOEXIST), -EEXIST);
	CHECK_EQ_U64(kbpf_map_update(m, &key, &val, BPF_F_LOCK), -EINVAL);
	CHECK_EQ_U64(kbpf_map_update(m, &key, &val, 3), -EINVAL);
	CHECK_EQ_U64(kbpf_map_update(m, &key, &val, 8), -EINVAL);
	val = 0;
	CHECK_EQ_U64(kbpf_map_lookup(m, &key, &val), 0);
	CHECK_EQ_U64(val, 0x1122334455667788ull);
	key = 4;
	CHECK_EQ_U64(kbpf_map_update(m, &key, &val, BPF_ANY), -E2BIG);
	key = 2;
	CHECK_EQ_U64(kbpf_map_delete(m, &key), -EINVAL);
	CHECK_EQ_U64(kbpf_map_delete_elem(m, &key), -EINVAL);

	/* the program side sees and writes the same memory, 8-byte aligned */
	uint64_t *p = kbpf_map_lookup_elem(m, &key);
	CHECK(p != NULL);
	CHECK(((uintptr_t)p & 7) == 0);
	CHECK_EQ_U64(*p, 0x1122334455667788ull);
	*p = 42;
	CHECK_EQ_U64(kbpf_map_lookup(m, &key, &val), 0);
	CHECK_EQ_U64(val, 42);
	val = 7;
	CHECK_EQ_U64(kbpf_map_update_elem(m, &key, &val, BPF_ANY), 0);
	CHECK_EQ_U64(*p, 7);
	/* updating from the value's own memory (a program may) */
	CHECK_EQ_U64(kbpf_map_update_elem(m, &key, p, BPF_EXIST), 0);
	CHECK_EQ_U64(*p, 7);
	CHECK_EQ_U64(kbpf_map_update_elem(m, &key, &val, BPF_NOEXIST), -EEXIST);
	CHECK_EQ_U64(kbpf_map_update_elem(m, &key, &val, BPF_F_LOCK), -EINVAL);
	CHECK_EQ_U64(kbpf_map_update_elem(m, &key, &val, BPF_F_LOCK | BPF_NOEXIST), -EEXIST);
	key = 9;
	CHECK_EQ_U64(kbpf_map_update_elem(m, &key, &val, BPF_ANY), -E2BIG);
	/* no per-CPU lookup on a plain array */
	key = 0;
	CHECK(kbpf_map_lookup_percpu_elem(m, &key, 0) == NULL);

	/* get_next_key: 0, 1, 2, 3, then ENOENT; an out-of-range key restarts at 0 */
	CHECK_EQ_U64(kbpf_map_get_next_key(m, NULL, &next), 0);
	CHECK_EQ_U64(next, 0);
	for (key = 0; key < 3; key++) {
		CHECK_EQ_U64(kbpf_map_get_next_key(m, &key, &next), 0);
		CHECK_EQ_U64(next, key + 1);
	}
	CHECK_EQ_U64(kbpf_map_get_next_key(m, &key, &next), -ENOENT);
	key = 100;
	CHECK_EQ_U64(kbpf_map_get_next_key(m, &key, &next), 0);
	CHECK_EQ_U64(next, 0);

	/* NULL arguments never crash */
	CHECK_EQ_U64(kbpf_map_lookup(m, NULL, &val), -EINVAL);
	CHECK_EQ_U64(kbpf_map_lookup(m, &key, NULL), -EINVAL);
	CHECK_EQ_U64(kbpf_map_lookup(NULL, &key, &val), -EINVAL);
	CHECK_EQ_U64(kbpf_map_update(m, NULL, &val, 0), -EINVAL);
	CHECK_EQ_U64(kbpf_map_delete(NULL, &key), -EINVAL);
	CHECK_EQ_U64(kbpf_map_get_next_key(m, NULL, NULL), -EINVAL);
	CHECK(kbpf_map_lookup_elem(NULL, &key) == NULL);
	CHECK_EQ_U64(kbpf_map_update_elem(NULL, &key, &val, 0), -EINVAL);
	kbpf_map_free(m);
}

/* Values that are not a multiple of 8: the host copies value_size bytes. */
static void test_array_odd_value_size(void)
{
	struct kbpf_map *m;
	uint32_t key = 1;
	unsigned char in[5] = { 1, 2, 3, 4, 5 }, out[6] = { 0 };

	CHECK_EQ_U64(mk(BPF_MAP_TYPE_ARRAY, 4, 5, 3, 0, &m), 0);
	CHECK_EQ_U64(kbpf_map_update(m, &key, in, BPF_ANY), 0);
	out[5] = 0xee;
	CHECK_EQ_U64(kbpf_map_lookup(m, &key, out), 0);
	CHECK(!memcmp(in, out, 5));
	CHECK_EQ_U64(out[5], 0xee); /* nothing written past value_size */
	/* neighbouring elements are 8 bytes apart */
	uint32_t k0 = 0;
	CHECK_EQ_U64((char *)kbpf_map_lookup_elem(m, &key) - (char *)kbpf_map_lookup_elem(m, &k0), 8);
	kbpf_map_free(m);
}

static void test_access_flags_and_freeze(void)
{
	struct kbpf_map *m;
	uint32_t key = 0, next;
	uint64_t val = 5;

	CHECK_EQ_U64(mk(BPF_MAP_TYPE_ARRAY, 4, 8, 2, BPF_F_RDONLY, &m), 0);
	CHECK_EQ_U64(kbpf_map_update(m, &key, &val, BPF_ANY), -EPERM);
	CHECK_EQ_U64(kbpf_map_delete(m, &key), -EPERM);
	CHECK_EQ_U64(kbpf_map_lookup(m, &key, &val), 0);
	CHECK_EQ_U64(kbpf_map_get_next_key(m, NULL, &next), 0);
	/* the program side is not restricted by the syscall-side flags */
	CHECK_EQ_U64(kbpf_map_update_elem(m, &key, &val, BPF_ANY), 0);
	kbpf_map_free(m);

	CHECK_EQ_U64(mk(BPF_MAP_TYPE_ARRAY, 4, 8, 2, BPF_F_WRONLY, &m), 0);
	CHECK_EQ_U64(kbpf_map_lookup(m, &key, &val), -EPERM);
	CHECK_EQ_U64(kbpf_map_get_next_key(m, NULL, &next), -EPERM);
	CHECK_EQ_U64(kbpf_map_update(m, &key, &val, BPF_ANY), 0);
	kbpf_map_free(m);

	/* Linux's map_freeze needs an fd that may write: a host-read-only map cannot be frozen */
	CHECK_EQ_U64(mk(BPF_MAP_TYPE_ARRAY, 4, 8, 2, BPF_F_RDONLY, &m), 0);
	CHECK_EQ_U64(kbpf_map_freeze(m), -EPERM);
	CHECK_EQ_U64(kbpf_map_is_frozen(m), 0);
	kbpf_map_free(m);

	CHECK_EQ_U64(mk(BPF_MAP_TYPE_ARRAY, 4, 8, 2, 0, &m), 0);
	CHECK_EQ_U64(kbpf_map_is_frozen(m), 0);
	val = 5;
	CHECK_EQ_U64(kbpf_map_update(m, &key, &val, BPF_ANY), 0);
	CHECK_EQ_U64(kbpf_map_freeze(m), 0);
	CHECK_EQ_U64(kbpf_map_is_frozen(m), 1);
	CHECK_EQ_U64(kbpf_map_freeze(m), -EBUSY);
	CHECK_EQ_U64(kbpf_map_update(m, &key, &val, BPF_ANY), -EPERM);
	val = 0;
	CHECK_EQ_U64(kbpf_map_lookup(m, &key, &val), 0);
	CHECK_EQ_U64(val, 5);
	CHECK_EQ_U64(kbpf_map_freeze(NULL), -EINVAL);
	kbpf_map_free(m);
}

static void test_direct_value_addr(void)
{
	struct kbpf_map *m;
	void *addr;
	uint32_t key = 0;

	CHECK_EQ_U64(mk(BPF_MAP_TYPE_ARRAY, 4, 16, 1, 0, &m), 0);
	CHECK_EQ_U64(kbpf_map_direct_value_addr(m, 4, &addr), 0);
	CHECK(addr == (char *)kbpf_map_lookup_elem(m, &key) + 4);
	CHECK_EQ_U64(kbpf_map_direct_value_addr(m, 16, &addr), -EINVAL);
	kbpf_map_free(m);
	CHECK_EQ_U64(mk(BPF_MAP_TYPE_ARRAY, 4, 16, 2, 0, &m), 0);
	CHECK_EQ_U64(kbpf_map_direct_value_addr(m, 0, &addr), -EOPNOTSUPP);
	kbpf_map_free(m);
	CHECK_EQ_U64(mk(BPF_MAP_TYPE_PERCPU_ARRAY, 4, 16, 1, 0, &m), 0);
	CHECK_EQ_U64(kbpf_map_direct_value_addr(m, 0, &addr), -EOPNOTSUPP);
	kbpf_map_free(m);
}

/* Four threads increment shared counters through program-side pointers with
 * atomic adds, as BPF_ATOMIC_OP programs do: no increment may be lost. */
#define NR_THREADS 4
#define NR_INCS 100000
#define NR_COUNTERS 3

static void *inc_thread(void *arg)
{
	struct kbpf_map *m = arg;

	for (uint32_t i = 0; i < NR_INCS; i++) {
		uint32_t key = i % NR_COUNTERS;
		uint64_t *p = kbpf_map_lookup_elem(m, &key);

		if (!p)
			return (void *)1;
		__sync_fetch_and_add(p, 1);
	}
	return NULL;
}

static void test_array_threads(void)
{
	pthread_t t[NR_THREADS];
	struct kbpf_map *m;
	uint64_t total = 0, val;

	CHECK_EQ_U64(mk(BPF_MAP_TYPE_ARRAY, 4, 8, NR_COUNTERS, 0, &m), 0);
	for (int i = 0; i < NR_THREADS; i++)
		CHECK_EQ_U64(pthread_create(&t[i], NULL, inc_thread, m), 0);
	for (int i = 0; i < NR_THREADS; i++) {
		void *ret;

		pthread_join(t[i], &ret);
		CHECK(ret == NULL);
	}
	for (uint32_t key = 0; key < NR_COUNTERS; key++) {
		CHECK_EQ_U64(kbpf_map_lookup(m, &key, &val), 0);
		total += val;
	}
	CHECK_EQ_U64(total, (uint64_t)NR_THREADS * NR_INCS);
	kbpf_map_free(m);
}

int main(void)
{
	RUN(test_def_checks);
	RUN(test_array_create_rules);
	RUN(test_array_ops);
	RUN(test_array_odd_value_size);
	RUN(test_access_flags_and_freeze);
	RUN(test_direct_value_addr);
	RUN(test_array_threads);
	return test_summary();
}
