/* SPDX-License-Identifier: Apache-2.0 */
/* QUEUE and STACK (src/maps/queue_stack.c): Linux's creation checks; FIFO and LIFO
 * order through push, peek and pop on both sides (kbpf_map_update / lookup /
 * lookup_and_delete and the program-side calls); -E2BIG full, -ENOENT empty (the value
 * zeroed), BPF_EXIST dropping the oldest; the keyed calls' errnos; wrap-around; threads
 * pushing and popping with nothing lost or duplicated. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <kbpf/map.h>
#include "test.h"

static int mk(uint32_t type, uint32_t ks, uint32_t vs, uint32_t max, uint32_t flags, struct kbpf_map **m)
{
	struct kbpf_map_def def = { .sz = sizeof(def), .type = type, .key_size = ks, .value_size = vs,
				    .max_entries = max, .map_flags = flags, .name = "qs" };
	*m = NULL;
	return kbpf_map_create(&def, m);
}

static int create_err(uint32_t type, uint32_t ks, uint32_t vs, uint32_t max, uint32_t flags)
{
	struct kbpf_map *m;
	int err = mk(type, ks, vs, max, flags, &m);
	kbpf_map_free(m);
	return err;
}

static void test_qs_create(void)
{
	for (uint32_t t = BPF_MAP_TYPE_QUEUE; t <= BPF_MAP_TYPE_STACK; t++) {
		CHECK_EQ_U64(create_err(t, 0, 4, 8, 0), 0);
		CHECK_EQ_U64(create_err(t, 0, 4, 8, BPF_F_NUMA_NODE | BPF_F_RDONLY_PROG), 0);
		CHECK_EQ_U64(create_err(t, 4, 4, 8, 0), -EINVAL); /* keyless */
		CHECK_EQ_U64(create_err(t, 0, 0, 8, 0), -EINVAL);
		CHECK_EQ_U64(create_err(t, 0, 4, 0, 0), -EINVAL);
		CHECK_EQ_U64(create_err(t, 0, 4, 8, BPF_F_NO_PREALLOC), -EINVAL);
		CHECK_EQ_U64(create_err(t, 0, 4, 8, BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG), -EINVAL);
		CHECK_EQ_U64(create_err(t, 0, (4u << 20) + 1, 8, 0), -E2BIG);
	}
}

static void test_queue_fifo(void)
{
	struct kbpf_map *m;
	uint32_t v, key = 0;
	CHECK_EQ_U64(mk(BPF_MAP_TYPE_QUEUE, 0, 4, 3, 0, &m), 0);
	CHECK_EQ_U64(kbpf_map_key_size(m), 0);
	v = 77;
	CHECK_EQ_U64(kbpf_map_lookup(m, NULL, &v), -ENOENT);
	CHECK_EQ_U64(v, 0); /* zeroed, as Linux */
	CHECK_EQ_U64(kbpf_map_lookup_and_delete(m, NULL, &v, 0), -ENOENT);
	for (uint32_t round = 0; round < 5; round++) { /* wraps around the ring */
		for (uint32_t i = 1; i <= 3; i++) {
			v = round * 10 + i;
			CHECK_EQ_U64(kbpf_map_push(m, &v, BPF_ANY), 0);
		}
		v = 99;
		CHECK_EQ_U64(kbpf_map_push(m, &v, 0), -E2BIG);
		CHECK_EQ_U64(kbpf_map_lookup(m, NULL, &v), 0);
		CHECK_EQ_U64(v, round * 10 + 1); /* peek: the oldest */
		for (uint32_t i = 1; i <= 3; i++) {
			CHECK_EQ_U64(kbpf_map_lookup_and_delete(m, NULL, &v, 0), 0);
			CHECK_EQ_U64(v, round * 10 + i);
		}
		CHECK_EQ_U64(kbpf_map_lookup_and_delete(m, NULL, &v, 0), -ENOENT);
	}
	/* BPF_EXIST: full, the oldest goes */
	for (uint32_t i = 1; i <= 5; i++)
		CHECK_EQ_U64(kbpf_map_update(m, NULL, &i, BPF_EXIST), 0);
	CHECK_EQ_U64(kbpf_map_pop_elem(m, &v), 0);
	CHECK_EQ_U64(v, 3);
	CHECK_EQ_U64(kbpf_map_peek_elem(m, &v), 0);
	CHECK_EQ_U64(v, 4);
	/* flags and the keyed calls */
	CHECK_EQ_U64(kbpf_map_push(m, &v, BPF_NOEXIST), -EINVAL);
	CHECK_EQ_U64(kbpf_map_push(m, &v, BPF_F_LOCK), -EINVAL);
	CHECK_EQ_U64(kbpf_map_push_elem(m, &v, 4), -EINVAL);
	CHECK_EQ_U64(kbpf_map_lookup_and_delete(m, NULL, &v, BPF_F_LOCK), -EINVAL);
	CHECK_EQ_U64(kbpf_map_lookup_and_delete(m, NULL, &v, 8), -EINVAL);
	CHECK_EQ_U64(kbpf_map_delete(m, &key), -EINVAL);
	CHECK_EQ_U64(kbpf_map_get_next_key(m, NULL, &key), -EINVAL);
	CHECK(kbpf_map_lookup_elem(m, &key) == NULL);
	CHECK_EQ_U64(kbpf_map_update_elem(m, &key, &v, 0), -EINVAL);
	CHECK_EQ_U64(kbpf_map_delete_elem(m, &key), -EINVAL);
	CHECK_EQ_U64(kbpf_map_lookup(m, NULL, NULL), -EINVAL);
	kbpf_map_free(m);
	/* host access flags */
	CHECK_EQ_U64(mk(BPF_MAP_TYPE_QUEUE, 0, 4, 3, BPF_F_RDONLY, &m), 0);
	CHECK_EQ_U64(kbpf_map_push(m, &v, 0), -EPERM);
	CHECK_EQ_U64(kbpf_map_lookup_and_delete(m, NULL, &v, 0), -EPERM);
	CHECK_EQ_U64(kbpf_map_push_elem(m, &v, 0), 0); /* programs may */
	CHECK_EQ_U64(kbpf_map_lookup(m, NULL, &v), 0);
	kbpf_map_free(m);
	/* a hash map has no lookup-and-delete in kbpf */
	CHECK_EQ_U64(mk(BPF_MAP_TYPE_HASH, 4, 4, 3, 0, &m), 0);
	CHECK_EQ_U64(kbpf_map_lookup_and_delete(m, &key, &v, 0), -EOPNOTSUPP);
	CHECK_EQ_U64(kbpf_map_push_elem(m, &v, 0), -EINVAL);
	CHECK_EQ_U64(kbpf_map_lookup(m, NULL, &v), -EINVAL); /* keyed maps need a key */
	kbpf_map_free(m);
}

static void test_stack_lifo(void)
{
	struct kbpf_map *m;
	uint64_t v[2];
	CHECK_EQ_U64(mk(BPF_MAP_TYPE_STACK, 0, 16, 3, 0, &m), 0);
	for (uint64_t round = 0; round < 4; round++) {
		for (uint64_t i = 1; i <= 3; i++) {
			v[0] = round * 10 + i, v[1] = ~v[0];
			CHECK_EQ_U64(kbpf_map_push_elem(m, v, 0), 0);
		}
		CHECK_EQ_U64(kbpf_map_push_elem(m, v, 0), -E2BIG);
		CHECK_EQ_U64(kbpf_map_peek_elem(m, v), 0);
		CHECK_EQ_U64(v[0], round * 10 + 3); /* the newest */
		for (uint64_t i = 3; i >= 1; i--) {
			CHECK_EQ_U64(kbpf_map_lookup_and_delete(m, NULL, v, 0), 0);
			CHECK_EQ_U64(v[0], round * 10 + i);
			CHECK_EQ_U64(v[1], ~v[0]);
		}
		/* pushes and pops mixed: the ring's head moves both ways */
		v[0] = 5;
		CHECK_EQ_U64(kbpf_map_push(m, v, 0), 0);
		CHECK_EQ_U64(kbpf_map_pop_elem(m, v), 0);
		CHECK_EQ_U64(v[0], 5);
		CHECK_EQ_U64(kbpf_map_pop_elem(m, v), -ENOENT);
		CHECK_EQ_U64(v[0] | v[1], 0);
	}
	/* BPF_EXIST on a full stack drops the oldest (the bottom) */
	for (uint64_t i = 1; i <= 5; i++) {
		v[0] = i;
		CHECK_EQ_U64(kbpf_map_push(m, v, BPF_EXIST), 0);
	}
	for (uint64_t i = 5; i >= 3; i--) {
		CHECK_EQ_U64(kbpf_map_pop_elem(m, v), 0);
		CHECK_EQ_U64(v[0], i);
	}
	CHECK_EQ_U64(kbpf_map_pop_elem(m, v), -ENOENT);
	kbpf_map_free(m);
}

#define PER_THREAD 20000
struct thr {
	struct kbpf_map *m;
	uint32_t id;
	uint64_t popped_sum;
	uint64_t *popped; /* both consumers' count, atomic */
};

static void *producer(void *arg)
{
	struct thr *t = arg;
	for (uint32_t i = 0; i < PER_THREAD;) {
		uint64_t v = (uint64_t)t->id << 32 | i;
		if (!kbpf_map_push_elem(t->m, &v, 0))
			i++;
	}
	return NULL;
}

static void *consumer(void *arg)
{
	struct thr *t = arg;
	while (__atomic_load_n(t->popped, __ATOMIC_RELAXED) < 2 * PER_THREAD) {
		uint64_t v;
		if (!kbpf_map_pop_elem(t->m, &v)) {
			__atomic_add_fetch(t->popped, 1, __ATOMIC_RELAXED);
			t->popped_sum += v & 0xffffffff;
		}
	}
	return NULL;
}

static void test_qs_threads(void)
{
	for (uint32_t type = BPF_MAP_TYPE_QUEUE; type <= BPF_MAP_TYPE_STACK; type++) {
		struct kbpf_map *m;
		pthread_t th[4];
		struct thr t[4];
		uint64_t popped = 0;
		CHECK_EQ_U64(mk(type, 0, 8, 64, 0, &m), 0);
		for (uint32_t i = 0; i < 4; i++) {
			t[i] = (struct thr){ m, i, 0, &popped };
			pthread_create(&th[i], NULL, i < 2 ? producer : consumer, &t[i]);
		}
		for (int i = 0; i < 4; i++)
			pthread_join(th[i], NULL);
		uint64_t want = 2ull * PER_THREAD * (PER_THREAD - 1) / 2;
		CHECK_EQ_U64(t[2].popped_sum + t[3].popped_sum, want);
		uint64_t v;
		CHECK_EQ_U64(kbpf_map_pop_elem(m, &v), -ENOENT);
		kbpf_map_free(m);
	}
}

int main(void)
{
	RUN(test_qs_create);
	RUN(test_queue_fifo);
	RUN(test_stack_lifo);
	RUN(test_qs_threads);
	return test_summary();
}
