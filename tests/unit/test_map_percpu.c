/* SPDX-License-Identifier: Apache-2.0 */
/* Per-CPU maps (PERCPU_ARRAY, PERCPU_HASH, LRU_PERCPU_HASH) and kbpf's CPU slots:
 * host-side values carry every CPU's value rounded up to 8 bytes; programs see
 * their own slot. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <kbpf/map.h>
#include "test.h"

static int mk(uint32_t type, uint32_t ks, uint32_t vs, uint32_t max, uint32_t flags, struct kbpf_map **m)
{
	struct kbpf_map_def def = {
		.sz = sizeof(def), .type = type, .key_size = ks, .value_size = vs,
		.max_entries = max, .map_flags = flags, .name = "pcpu",
	};
	return kbpf_map_create(&def, m);
}

static void test_cpu_slots(void)
{
	unsigned n = kbpf_nr_cpus(), id = kbpf_cpu_id();

	CHECK(n >= 1);
	CHECK(id < n);
	CHECK_EQ_U64(kbpf_cpu_id(), id); /* stable for the thread */
	CHECK_EQ_U64(kbpf_cpu_bind(n - 1), 0);
	CHECK_EQ_U64(kbpf_cpu_id(), n - 1);
	CHECK_EQ_U64(kbpf_cpu_bind(n), -EINVAL);
	CHECK_EQ_U64(kbpf_cpu_id(), n - 1);
	CHECK_EQ_U64(kbpf_cpu_bind(0), 0);
}

/* value_size 12: each CPU's value takes 16 bytes on the host side. */
static void check_percpu_layout(uint32_t type)
{
	unsigned n = kbpf_nr_cpus();
	struct kbpf_map *m;
	uint32_t key = 1;
	size_t stride = 16, size = stride * n;
	unsigned char *in = calloc(1, size), *out = calloc(1, size);

	CHECK_EQ_U64(mk(type, 4, 12, 4, 0, &m), 0);
	CHECK_EQ_U64(kbpf_map_host_value_size(m), size);
	for (unsigned cpu = 0; cpu < n; cpu++)
		for (unsigned i = 0; i < 12; i++)
			in[cpu * stride + i] = (unsigned char)(cpu * 16 + i + 1);
	CHECK_EQ_U64(kbpf_map_update(m, &key, in, BPF_ANY), 0);
	CHECK_EQ_U64(kbpf_map_lookup(m, &key, out), 0);
	CHECK(!memcmp(in, out, size));

	/* the program side sees its own CPU's slot, and any slot by number */
	for (unsigned cpu = 0; cpu < n; cpu++) {
		unsigned char *p;

		CHECK_EQ_U64(kbpf_cpu_bind(cpu), 0);
		p = kbpf_map_lookup_elem(m, &key);
		CHECK(p != NULL && ((uintptr_t)p & 7) == 0);
		if (p)
			CHECK(!memcmp(p, in + cpu * stride, 12));
		CHECK(kbpf_map_lookup_percpu_elem(m, &key, cpu) == p);
	}
	CHECK(kbpf_map_lookup_percpu_elem(m, &key, n) == NULL);

	/* a program update changes only its own slot */
	unsigned char v[12];
	memset(v, 0xab, sizeof(v));
	CHECK_EQ_U64(kbpf_cpu_bind(n - 1), 0);
	CHECK_EQ_U64(kbpf_map_update_elem(m, &key, v, BPF_ANY), 0);
	CHECK_EQ_U64(kbpf_map_lookup(m, &key, out), 0);
	CHECK(!memcmp(out + (n - 1) * stride, v, 12));
	CHECK(!memcmp(out, in, (n - 1) * stride));

	free(in);
	free(out);
	kbpf_map_free(m);
	kbpf_cpu_bind(0);
}

static void test_percpu_array(void)
{
	struct kbpf_map *m;
	uint32_t key = 3;
	unsigned n = kbpf_nr_cpus();
	uint64_t *vals = calloc(n, 8);

	check_percpu_layout(BPF_MAP_TYPE_PERCPU_ARRAY);

	CHECK_EQ_U64(mk(BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8, 4, 0, &m), 0);
	/* zero-initialised on every CPU */
	vals[0] = 1;
	CHECK_EQ_U64(kbpf_map_lookup(m, &key, vals), 0);
	for (unsigned i = 0; i < n; i++)
		CHECK_EQ_U64(vals[i], 0);
	/* host-side flags: BPF_ANY/BPF_EXIST only */
	CHECK_EQ_U64(kbpf_map_update(m, &key, vals, BPF_NOEXIST), -EEXIST);
	CHECK_EQ_U64(kbpf_map_update(m, &key, vals, BPF_EXIST), 0);
	CHECK_EQ_U64(kbpf_map_update(m, &key, vals, BPF_F_LOCK), -EINVAL);
	CHECK_EQ_U64(kbpf_map_update(m, &key, vals, 3), -EINVAL);
	key = 4;
	CHECK_EQ_U64(kbpf_map_update(m, &key, vals, BPF_ANY), -E2BIG);
	CHECK_EQ_U64(kbpf_map_lookup(m, &key, vals), -ENOENT);
	CHECK(kbpf_map_lookup_elem(m, &key) == NULL);
	CHECK(kbpf_map_lookup_percpu_elem(m, &key, 0) == NULL);
	CHECK_EQ_U64(kbpf_map_delete(m, &key), -EINVAL);
	key = 0;
	CHECK_EQ_U64(kbpf_map_update_elem(m, &key, vals, BPF_NOEXIST), -EEXIST);
	free(vals);
	kbpf_map_free(m);
}

static void test_percpu_hash(void)
{
	unsigned n = kbpf_nr_cpus();
	struct kbpf_map *m;
	uint32_t key = 9;
	uint64_t *vals = calloc(n, 8), v = 77, *p;

	check_percpu_layout(BPF_MAP_TYPE_PERCPU_HASH);
	check_percpu_layout(BPF_MAP_TYPE_LRU_PERCPU_HASH);

	CHECK_EQ_U64(mk(BPF_MAP_TYPE_PERCPU_HASH, 4, 8, 2, 0, &m), 0);
	CHECK_EQ_U64(kbpf_map_host_value_size(m), 8 * n);
	CHECK_EQ_U64(kbpf_map_lookup(m, &key, vals), -ENOENT);
	/* a program's insert sets its slot; the other slots start at zero */
	for (unsigned i = 0; i < n; i++)
		vals[i] = 1000 + i;
	CHECK_EQ_U64(kbpf_map_update(m, &key, vals, BPF_ANY), 0);
	CHECK_EQ_U64(kbpf_map_delete(m, &key), 0);
	kbpf_cpu_bind(0);
	CHECK_EQ_U64(kbpf_map_update_elem(m, &key, &v, BPF_NOEXIST), 0);
	CHECK_EQ_U64(kbpf_map_lookup(m, &key, vals), 0);
	CHECK_EQ_U64(vals[0], 77);
	for (unsigned i = 1; i < n; i++)
		CHECK_EQ_U64(vals[i], 0); /* not the deleted element's old 1000 + i */
	p = kbpf_map_lookup_elem(m, &key);
	CHECK(p != NULL && *p == 77);
	CHECK_EQ_U64(kbpf_map_update_elem(m, &key, &v, BPF_NOEXIST), -EEXIST);
	CHECK_EQ_U64(kbpf_map_update(m, &key, vals, BPF_NOEXIST), -EEXIST);
	uint32_t key2 = 10, key3 = 11;
	CHECK_EQ_U64(kbpf_map_update(m, &key2, vals, BPF_EXIST), -ENOENT);
	CHECK_EQ_U64(kbpf_map_update(m, &key2, vals, BPF_ANY), 0);
	CHECK_EQ_U64(kbpf_map_update(m, &key3, vals, BPF_ANY), -E2BIG);
	CHECK(kbpf_map_lookup_percpu_elem(m, &key3, 0) == NULL);
	free(vals);
	kbpf_map_free(m);
}

/* Threads bound to distinct slots count into their own slot without atomics; the
 * host then sees each slot's count. */
#define NR_INCS 100000

struct slot_arg {
	struct kbpf_map *m;
	unsigned cpu;
};

static void *slot_thread(void *p)
{
	struct slot_arg *a = p;
	uint32_t key = 0;

	kbpf_cpu_bind(a->cpu);
	for (int i = 0; i < NR_INCS; i++) {
		uint64_t *v = kbpf_map_lookup_elem(a->m, &key);

		if (v)
			(*v)++;
	}
	return NULL;
}

static void test_percpu_threads(void)
{
	unsigned n = kbpf_nr_cpus(), nt = n < 4 ? n : 4;
	pthread_t t[4];
	struct slot_arg args[4];
	struct kbpf_map *m;
	uint32_t key = 0;
	uint64_t *vals = calloc(n, 8);

	CHECK_EQ_U64(mk(BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8, 1, 0, &m), 0);
	for (unsigned i = 0; i < nt; i++) {
		args[i] = (struct slot_arg){ m, i };
		CHECK_EQ_U64(pthread_create(&t[i], NULL, slot_thread, &args[i]), 0);
	}
	for (unsigned i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	CHECK_EQ_U64(kbpf_map_lookup(m, &key, vals), 0);
	for (unsigned i = 0; i < n; i++)
		CHECK_EQ_U64(vals[i], i < nt ? NR_INCS : 0);
	free(vals);
	kbpf_map_free(m);
}

int main(void)
{
	RUN(test_cpu_slots);
	RUN(test_percpu_array);
	RUN(test_percpu_hash);
	RUN(test_percpu_threads);
	return test_summary();
}
