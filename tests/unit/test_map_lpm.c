/* SPDX-License-Identifier: Apache-2.0 */
/* LPM_TRIE (src/maps/lpm_trie.c): Linux's creation checks; longest-prefix match with
 * IPv4 and IPv6 keys, /0 and the full prefix; exact insert, replace, BPF_NOEXIST /
 * BPF_EXIST, -ENOSPC when full; delete (leaf, node with children, intermediate nodes);
 * get_next_key in Linux's post-order; the program-side lookup's pointer; many threads. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <bpf/btf.h>
#include <kbpf/map.h>
#include "test.h"

struct key4 {
	uint32_t prefixlen;
	uint8_t ip[4];
};
struct key16 {
	uint32_t prefixlen;
	uint8_t ip[16];
};

static int mk(uint32_t ks, uint32_t vs, uint32_t max, uint32_t flags, struct kbpf_map **m)
{
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_LPM_TRIE, .key_size = ks,
				    .value_size = vs, .max_entries = max, .map_flags = flags, .name = "lpm" };
	*m = NULL;
	return kbpf_map_create(&def, m);
}

static int create_err(uint32_t ks, uint32_t vs, uint32_t max, uint32_t flags)
{
	struct kbpf_map *m;
	int err = mk(ks, vs, max, flags, &m);
	kbpf_map_free(m);
	return err;
}

static void test_lpm_create(void)
{
	const uint32_t np = BPF_F_NO_PREALLOC;
	CHECK_EQ_U64(create_err(8, 4, 16, np), 0);
	CHECK_EQ_U64(create_err(5, 1, 1, np), 0);     /* one data byte */
	CHECK_EQ_U64(create_err(260, 8, 1, np), 0);   /* 256 data bytes */
	CHECK_EQ_U64(create_err(8, 4, 16, 0), -EINVAL); /* BPF_F_NO_PREALLOC required */
	CHECK_EQ_U64(create_err(4, 4, 16, np), -EINVAL);
	CHECK_EQ_U64(create_err(261, 4, 16, np), -EINVAL);
	CHECK_EQ_U64(create_err(8, 0, 16, np), -EINVAL);
	CHECK_EQ_U64(create_err(8, (4u << 20) - 256 - 40 + 1, 16, np), -EINVAL);
	CHECK_EQ_U64(create_err(8, 4, 0, np), -EINVAL);
	CHECK_EQ_U64(create_err(8, 4, 16, np | BPF_F_ZERO_SEED), -EINVAL);
	CHECK_EQ_U64(create_err(8, 4, 16, np | BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG), -EINVAL);
	CHECK_EQ_U64(create_err(8, 4, 16, np | BPF_F_RDONLY_PROG), 0);
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_LPM_TRIE, .key_size = 8,
				    .value_size = 4, .max_entries = 1, .map_flags = np, .map_extra = 1 };
	struct kbpf_map *m = NULL;
	CHECK_EQ_U64(kbpf_map_create(&def, &m), -EINVAL); /* map_extra is the bloom filter's */
}

/* Linux's map_check_btf for the new types: an LPM key must be a struct (embedding
 * bpf_lpm_trie_key), a bloom filter's key void, a queue's BTF refused. */
static void test_lpm_btf(void)
{
	struct btf *btf = btf__new_empty();
	int u32 = btf__add_int(btf, "u32", 4, 0);
	int u64 = btf__add_int(btf, "u64", 8, 0);
	int key = btf__add_struct(btf, "ipv4_key", 8);
	btf__add_field(btf, "prefixlen", u32, 0, 0);
	btf__add_field(btf, "addr", u32, 32, 0);
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_LPM_TRIE, .key_size = 8, .value_size = 8,
				    .max_entries = 4, .map_flags = BPF_F_NO_PREALLOC, .btf = btf,
				    .btf_key_type_id = (uint32_t)key, .btf_value_type_id = (uint32_t)u64 };
	struct kbpf_map *m = NULL;
	CHECK_EQ_U64(kbpf_map_create(&def, &m), 0);
	kbpf_map_free(m);
	def.btf_key_type_id = (uint32_t)u64;
	CHECK_EQ_U64(kbpf_map_create(&def, &m), -EINVAL);
	def.btf_key_type_id = 0;
	CHECK_EQ_U64(kbpf_map_create(&def, &m), -EINVAL);
	def = (struct kbpf_map_def){ .sz = sizeof(def), .type = BPF_MAP_TYPE_BLOOM_FILTER, .value_size = 8,
				     .max_entries = 4, .btf = btf, .btf_value_type_id = (uint32_t)u64 };
	CHECK_EQ_U64(kbpf_map_create(&def, &m), 0);
	kbpf_map_free(m);
	def.key_size = 4, def.btf_key_type_id = (uint32_t)u32;
	CHECK_EQ_U64(kbpf_map_create(&def, &m), -EINVAL); /* key_size 4 fails first, as Linux */
	/* Linux 6.1's queue and stack have no map_check_btf: a value type without a key
	 * type is -EINVAL (libbpf sends them without BTF) */
	def = (struct kbpf_map_def){ .sz = sizeof(def), .type = BPF_MAP_TYPE_QUEUE, .value_size = 8,
				     .max_entries = 4, .btf = btf, .btf_value_type_id = (uint32_t)u64 };
	CHECK_EQ_U64(kbpf_map_create(&def, &m), -EINVAL);
	btf__free(btf);
}

static struct key4 k4(uint32_t len, uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	return (struct key4){ len, { a, b, c, d } };
}

static uint32_t get4(struct kbpf_map *m, struct key4 k)
{
	uint32_t v = 0;
	int err = kbpf_map_lookup(m, &k, &v);
	return err ? (uint32_t)err : v;
}

static int put4(struct kbpf_map *m, struct key4 k, uint32_t v, uint64_t flags)
{
	return kbpf_map_update(m, &k, &v, flags);
}

static void test_lpm_ipv4(void)
{
	struct kbpf_map *m;
	CHECK_EQ_U64(mk(8, 4, 16, BPF_F_NO_PREALLOC, &m), 0);
	CHECK_EQ_U64(get4(m, k4(32, 10, 1, 2, 3)), (uint32_t)-ENOENT); /* empty */
	CHECK_EQ_U64(put4(m, k4(8, 10, 0, 0, 0), 8, BPF_ANY), 0);
	CHECK_EQ_U64(put4(m, k4(16, 10, 1, 0, 0), 16, BPF_ANY), 0);
	CHECK_EQ_U64(put4(m, k4(24, 10, 1, 2, 0), 24, BPF_ANY), 0);
	CHECK_EQ_U64(put4(m, k4(32, 10, 1, 2, 3), 32, BPF_ANY), 0);
	CHECK_EQ_U64(put4(m, k4(24, 192, 168, 1, 0), 100, BPF_ANY), 0);
	CHECK_EQ_U64(get4(m, k4(32, 10, 1, 2, 3)), 32);
	CHECK_EQ_U64(get4(m, k4(32, 10, 1, 2, 4)), 24);
	CHECK_EQ_U64(get4(m, k4(32, 10, 1, 9, 4)), 16);
	CHECK_EQ_U64(get4(m, k4(32, 10, 9, 9, 4)), 8);
	CHECK_EQ_U64(get4(m, k4(32, 11, 1, 2, 3)), (uint32_t)-ENOENT);
	CHECK_EQ_U64(get4(m, k4(32, 192, 168, 1, 77)), 100);
	CHECK_EQ_U64(get4(m, k4(32, 192, 168, 2, 77)), (uint32_t)-ENOENT);
	/* the key's own prefix length bounds the match */
	CHECK_EQ_U64(get4(m, k4(20, 10, 1, 2, 3)), 16);
	CHECK_EQ_U64(get4(m, k4(33, 10, 1, 2, 3)), (uint32_t)-ENOENT); /* too long: no match */
	/* /0 matches everything */
	CHECK_EQ_U64(put4(m, k4(0, 0, 0, 0, 0), 1, BPF_ANY), 0);
	CHECK_EQ_U64(get4(m, k4(32, 11, 1, 2, 3)), 1);
	CHECK_EQ_U64(get4(m, k4(0, 99, 0, 0, 0)), 1);
	/* flags */
	CHECK_EQ_U64(put4(m, k4(16, 10, 1, 0, 0), 7, BPF_NOEXIST), -EEXIST);
	CHECK_EQ_U64(put4(m, k4(16, 10, 1, 0, 0), 17, BPF_EXIST), 0);
	CHECK_EQ_U64(get4(m, k4(32, 10, 1, 9, 4)), 17);
	CHECK_EQ_U64(put4(m, k4(12, 10, 0, 0, 0), 12, BPF_EXIST), -ENOENT);
	CHECK_EQ_U64(put4(m, k4(12, 10, 0, 0, 0), 12, 3), -EINVAL);
	CHECK_EQ_U64(put4(m, k4(33, 10, 0, 0, 0), 12, 0), -EINVAL);
	/* a fork makes an intermediate node, which is not a match and not a key */
	CHECK_EQ_U64(put4(m, k4(24, 172, 16, 0, 0), 50, BPF_ANY), 0);
	CHECK_EQ_U64(put4(m, k4(24, 172, 17, 0, 0), 51, BPF_ANY), 0);
	CHECK_EQ_U64(get4(m, k4(32, 172, 16, 0, 9)), 50);
	CHECK_EQ_U64(get4(m, k4(32, 172, 17, 0, 9)), 51);
	CHECK_EQ_U64(get4(m, k4(32, 172, 18, 0, 9)), 1); /* the /0 */
	struct key4 im = k4(15, 172, 16, 0, 0);
	CHECK_EQ_U64(kbpf_map_delete(m, &im), -ENOENT);
	/* the intermediate node can become real */
	CHECK_EQ_U64(put4(m, im, 15, BPF_NOEXIST), 0);
	CHECK_EQ_U64(get4(m, k4(32, 172, 18, 0, 9)), 1);
	CHECK_EQ_U64(get4(m, k4(32, 172, 17, 200, 9)), 15);
	/* deletes: a node with two children stays as an intermediate one */
	CHECK_EQ_U64(kbpf_map_delete(m, &im), 0);
	CHECK_EQ_U64(get4(m, k4(32, 172, 17, 200, 9)), 1);
	CHECK_EQ_U64(get4(m, k4(32, 172, 16, 0, 9)), 50);
	struct key4 d = k4(24, 172, 16, 0, 0);
	CHECK_EQ_U64(kbpf_map_delete(m, &d), 0); /* a leaf under an intermediate node */
	CHECK_EQ_U64(get4(m, k4(32, 172, 16, 0, 9)), 1);
	CHECK_EQ_U64(get4(m, k4(32, 172, 17, 0, 9)), 51);
	CHECK_EQ_U64(kbpf_map_delete(m, &d), -ENOENT);
	d = k4(16, 10, 1, 0, 0); /* a node with one child */
	CHECK_EQ_U64(kbpf_map_delete(m, &d), 0);
	CHECK_EQ_U64(get4(m, k4(32, 10, 1, 9, 4)), 8);
	CHECK_EQ_U64(get4(m, k4(32, 10, 1, 2, 4)), 24);
	d.prefixlen = 33;
	CHECK_EQ_U64(kbpf_map_delete(m, &d), -EINVAL);
	/* bits past the prefix do not matter for matching */
	CHECK_EQ_U64(put4(m, k4(8, 44, 255, 255, 255), 44, BPF_ANY), 0);
	CHECK_EQ_U64(get4(m, k4(32, 44, 0, 0, 1)), 44);
	CHECK_EQ_U64(put4(m, k4(8, 44, 0, 0, 0), 45, BPF_NOEXIST), -EEXIST);
	/* the program side: a pointer to the value in place */
	struct key4 k = k4(32, 10, 1, 2, 200);
	uint32_t *pv = kbpf_map_lookup_elem(m, &k);
	CHECK(pv && *pv == 24);
	k = k4(32, 99, 1, 2, 200);
	CHECK(kbpf_map_lookup_elem(m, &k) != NULL); /* the /0 */
	k = k4(0, 0, 0, 0, 0);
	CHECK_EQ_U64(kbpf_map_delete_elem(m, &k), 0);
	k = k4(32, 99, 1, 2, 200);
	CHECK(kbpf_map_lookup_elem(m, &k) == NULL);
	kbpf_map_free(m);
}

static void test_lpm_full(void)
{
	struct kbpf_map *m;
	CHECK_EQ_U64(mk(8, 4, 3, BPF_F_NO_PREALLOC, &m), 0);
	CHECK_EQ_U64(put4(m, k4(32, 1, 1, 1, 1), 1, 0), 0);
	CHECK_EQ_U64(put4(m, k4(32, 1, 1, 1, 2), 2, 0), 0);
	CHECK_EQ_U64(put4(m, k4(32, 2, 1, 1, 2), 3, 0), 0);
	CHECK_EQ_U64(put4(m, k4(32, 3, 1, 1, 2), 4, 0), -ENOSPC);
	CHECK_EQ_U64(put4(m, k4(32, 1, 1, 1, 2), 5, 0), 0); /* a replace needs no room */
	struct key4 d = k4(32, 1, 1, 1, 1);
	CHECK_EQ_U64(kbpf_map_delete(m, &d), 0);
	CHECK_EQ_U64(put4(m, k4(32, 3, 1, 1, 2), 4, 0), 0);
	d = k4(32, 1, 1, 1, 2);
	CHECK_EQ_U64(kbpf_map_delete(m, &d), 0);
	/* churn: the node pool is recycled, never exhausted */
	for (uint32_t i = 0; i < 1000; i++) {
		struct key4 a = k4(8 + i % 25, (uint8_t)i, (uint8_t)(i * 7), 5, 6);
		CHECK_EQ_U64(kbpf_map_update(m, &a, &i, 0), 0);
		CHECK_EQ_U64(kbpf_map_delete(m, &a), 0);
	}
	CHECK_EQ_U64(get4(m, k4(32, 3, 1, 1, 2)), 4);
	kbpf_map_free(m);
}

static void test_lpm_ipv6(void)
{
	struct kbpf_map *m;
	struct key16 k = { 32, { 0x20, 0x01, 0x0d, 0xb8 } };
	uint64_t v = 1, out = 0;
	CHECK_EQ_U64(mk(20, 8, 16, BPF_F_NO_PREALLOC, &m), 0);
	CHECK_EQ_U64(kbpf_map_update(m, &k, &v, 0), 0);
	k.prefixlen = 64;
	k.ip[7] = 0x42;
	v = 2;
	CHECK_EQ_U64(kbpf_map_update(m, &k, &v, 0), 0);
	k.prefixlen = 128; /* the full prefix: an exact address */
	k.ip[15] = 1;
	v = 3;
	CHECK_EQ_U64(kbpf_map_update(m, &k, &v, 0), 0);
	CHECK_EQ_U64(kbpf_map_lookup(m, &k, &out), 0);
	CHECK_EQ_U64(out, 3);
	k.ip[15] = 2;
	CHECK_EQ_U64(kbpf_map_lookup(m, &k, &out), 0);
	CHECK_EQ_U64(out, 2);
	k.ip[7] = 0x43; /* differs in the 64th bit */
	CHECK_EQ_U64(kbpf_map_lookup(m, &k, &out), 0);
	CHECK_EQ_U64(out, 1);
	k.ip[3] = 0xb9;
	CHECK_EQ_U64(kbpf_map_lookup(m, &k, &out), -ENOENT);
	kbpf_map_free(m);
}

/* get_next_key: Linux's post-order, children (bit 0 first) before their parent. */
static void test_lpm_next_key(void)
{
	struct kbpf_map *m;
	struct key4 keys[] = { k4(8, 10, 0, 0, 0), k4(16, 10, 0, 0, 0), k4(16, 10, 128, 0, 0),
			       k4(24, 10, 0, 1, 0), k4(0, 0, 0, 0, 0), k4(32, 192, 0, 0, 1) };
	/* post-order of that trie */
	struct key4 want[] = { k4(24, 10, 0, 1, 0), k4(16, 10, 0, 0, 0), k4(16, 10, 128, 0, 0),
			       k4(8, 10, 0, 0, 0), k4(32, 192, 0, 0, 1), k4(0, 0, 0, 0, 0) };
	struct key4 next, cur;
	CHECK_EQ_U64(mk(8, 4, 16, BPF_F_NO_PREALLOC, &m), 0);
	CHECK_EQ_U64(kbpf_map_get_next_key(m, NULL, &next), -ENOENT);
	for (size_t i = 0; i < 6; i++)
		CHECK_EQ_U64(put4(m, keys[i], (uint32_t)i, 0), 0);
	int n = 0, err;
	for (err = kbpf_map_get_next_key(m, NULL, &next); !err; err = kbpf_map_get_next_key(m, &cur, &next)) {
		CHECK(n < 6);
		if (n >= 6)
			break;
		CHECK_EQ_U64(next.prefixlen, want[n].prefixlen);
		CHECK(!memcmp(next.ip, want[n].ip, 4));
		cur = next;
		n++;
	}
	CHECK_EQ_U64(err, -ENOENT);
	CHECK_EQ_U64(n, 6);
	/* a key not stored (or too long a prefix) starts over */
	cur = k4(12, 1, 2, 3, 4);
	CHECK_EQ_U64(kbpf_map_get_next_key(m, &cur, &next), 0);
	CHECK_EQ_U64(next.prefixlen, 24);
	cur.prefixlen = 99;
	CHECK_EQ_U64(kbpf_map_get_next_key(m, &cur, &next), 0);
	CHECK_EQ_U64(next.prefixlen, 24);
	kbpf_map_free(m);
}

struct thr {
	struct kbpf_map *m;
	int id;
	int bad;
};

static void *worker(void *arg)
{
	struct thr *t = arg;
	for (uint32_t i = 0; i < 3000; i++) {
		struct key4 k = k4(24 + (i % 9), (uint8_t)t->id, (uint8_t)i, (uint8_t)(i >> 8), 0);
		uint32_t v = i;
		kbpf_map_update(t->m, &k, &v, 0);
		k.prefixlen = 32;
		if (!kbpf_map_lookup_elem(t->m, &k) && kbpf_map_lookup(t->m, &k, &v) != -ENOENT)
			t->bad++;
		/* the thread's /8 is never deleted: always a match */
		struct key4 own = k4(32, (uint8_t)t->id, 9, 9, 9);
		if (kbpf_map_lookup(t->m, &own, &v))
			t->bad++;
		k.prefixlen = 24 + (i % 9);
		kbpf_map_delete(t->m, &k);
	}
	return NULL;
}

static void test_lpm_threads(void)
{
	struct kbpf_map *m;
	pthread_t th[4];
	struct thr t[4];
	CHECK_EQ_U64(mk(8, 4, 64, BPF_F_NO_PREALLOC, &m), 0);
	for (int i = 0; i < 4; i++)
		CHECK_EQ_U64(put4(m, k4(8, (uint8_t)(i + 1), 0, 0, 0), 1, 0), 0);
	for (int i = 0; i < 4; i++) {
		t[i] = (struct thr){ m, i + 1, 0 };
		pthread_create(&th[i], NULL, worker, &t[i]);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		CHECK_EQ_U64(t[i].bad, 0);
	}
	kbpf_map_free(m);
}

int main(void)
{
	RUN(test_lpm_create);
	RUN(test_lpm_btf);
	RUN(test_lpm_ipv4);
	RUN(test_lpm_full);
	RUN(test_lpm_ipv6);
	RUN(test_lpm_next_key);
	RUN(test_lpm_threads);
	return test_summary();
}
