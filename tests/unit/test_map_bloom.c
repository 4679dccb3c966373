/* SPDX-License-Identifier: Apache-2.0 */
/* BLOOM_FILTER (src/maps/bloom_filter.c): Linux's creation checks (map_extra = number of
 * hash functions, at most 15, default 5); push adds and peek tests, on both sides; no
 * false negatives, few false positives; the keyed calls' errnos; threads adding at once
 * lose nothing. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <kbpf/map.h>
#include "test.h"

static int mk(uint32_t ks, uint32_t vs, uint32_t max, uint32_t flags, uint64_t extra, struct kbpf_map **m)
{
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_BLOOM_FILTER, .key_size = ks,
				    .value_size = vs, .max_entries = max, .map_flags = flags, .name = "bloom",
				    .map_extra = extra };
	*m = NULL;
	return kbpf_map_create(&def, m);
}

static int create_err(uint32_t ks, uint32_t vs, uint32_t max, uint32_t flags, uint64_t extra)
{
	struct kbpf_map *m;
	int err = mk(ks, vs, max, flags, extra, &m);
	kbpf_map_free(m);
	return err;
}

static void test_bloom_create(void)
{
	CHECK_EQ_U64(create_err(0, 4, 100, 0, 0), 0);
	CHECK_EQ_U64(create_err(0, 3, 100, BPF_F_ZERO_SEED, 15), 0);
	CHECK_EQ_U64(create_err(0, 4, 100, 0, 16), -EINVAL);
	CHECK_EQ_U64(create_err(4, 4, 100, 0, 0), -EINVAL);
	CHECK_EQ_U64(create_err(0, 0, 100, 0, 0), -EINVAL);
	CHECK_EQ_U64(create_err(0, 4, 0, 0, 0), -EINVAL);
	CHECK_EQ_U64(create_err(0, 4, 100, BPF_F_NO_PREALLOC, 0), -EINVAL);
	CHECK_EQ_U64(create_err(0, (4u << 20) + 1, 100, 0, 0), -E2BIG);
}

static void test_bloom_basic(void)
{
	struct kbpf_map *m;
	uint64_t v;
	uint32_t key = 0;
	CHECK_EQ_U64(mk(0, 8, 1000, 0, 3, &m), 0);
	v = 42;
	CHECK_EQ_U64(kbpf_map_lookup(m, NULL, &v), -ENOENT); /* empty: surely absent */
	CHECK_EQ_U64(kbpf_map_push(m, &v, BPF_ANY), 0);
	CHECK_EQ_U64(kbpf_map_lookup(m, NULL, &v), 0);
	CHECK_EQ_U64(v, 42); /* an input, left alone */
	CHECK_EQ_U64(kbpf_map_peek_elem(m, &v), 0);
	CHECK_EQ_U64(kbpf_map_push(m, &v, BPF_EXIST), -EINVAL);
	CHECK_EQ_U64(kbpf_map_push_elem(m, &v, BPF_NOEXIST), -EINVAL);
	/* no false negatives; false positives near the design rate (n = max_entries) */
	for (uint64_t i = 1000; i < 1999; i++)
		CHECK_EQ_U64(kbpf_map_push_elem(m, &i, 0), 0);
	for (uint64_t i = 1000; i < 1999; i++)
		CHECK_EQ_U64(kbpf_map_peek_elem(m, &i), 0);
	int fp = 0;
	for (uint64_t i = 100000; i < 110000; i++)
		fp += !kbpf_map_peek_elem(m, &i);
	CHECK(fp < 1000); /* 3 hashes, 4096 bits for 1000 values: about 15% at worst */
	CHECK_EQ_U64(kbpf_map_pop_elem(m, &v), -EINVAL);
	CHECK_EQ_U64(kbpf_map_lookup_and_delete(m, NULL, &v, 0), -EOPNOTSUPP);
	CHECK_EQ_U64(kbpf_map_delete(m, NULL), -EOPNOTSUPP);
	CHECK_EQ_U64(kbpf_map_get_next_key(m, NULL, &key), -EOPNOTSUPP);
	CHECK(kbpf_map_lookup_elem(m, &key) == NULL);
	CHECK_EQ_U64(kbpf_map_update_elem(m, &key, &v, 0), -EINVAL);
	kbpf_map_free(m);
	/* odd value sizes hash every byte */
	CHECK_EQ_U64(mk(0, 13, 10, BPF_F_ZERO_SEED, 0, &m), 0);
	char a[13] = "abcdefghijkl", b[13] = "abcdefghijkm";
	CHECK_EQ_U64(kbpf_map_push(m, a, 0), 0);
	CHECK_EQ_U64(kbpf_map_lookup(m, NULL, a), 0);
	CHECK_EQ_U64(kbpf_map_lookup(m, NULL, b), -ENOENT); /* 5 of 64 bits: a collision is unlikely */
	kbpf_map_free(m);
}

struct thr {
	struct kbpf_map *m;
	uint64_t base;
};

static void *adder(void *arg)
{
	struct thr *t = arg;
	for (uint64_t i = 0; i < 5000; i++) {
		uint64_t v = t->base + i;
		kbpf_map_push_elem(t->m, &v, 0);
	}
	return NULL;
}

static void test_bloom_threads(void)
{
	struct kbpf_map *m;
	pthread_t th[4];
	struct thr t[4];
	CHECK_EQ_U64(mk(0, 8, 20000, 0, 0, &m), 0);
	for (int i = 0; i < 4; i++) {
		t[i] = (struct thr){ m, (uint64_t)i << 40 };
		pthread_create(&th[i], NULL, adder, &t[i]);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	int missing = 0;
	for (int i = 0; i < 4; i++)
		for (uint64_t j = 0; j < 5000; j++) {
			uint64_t v = t[i].base + j;
			missing += kbpf_map_peek_elem(m, &v) != 0;
		}
	CHECK_EQ_U64(missing, 0);
	kbpf_map_free(m);
}

int main(void)
{
	RUN(test_bloom_create);
	RUN(test_bloom_basic);
	RUN(test_bloom_threads);
	return test_summary();
}
