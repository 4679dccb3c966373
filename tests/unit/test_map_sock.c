/* SPDX-License-Identifier: Apache-2.0 */
/* The socket maps SOCKMAP, SOCKHASH, XSKMAP and REUSEPORT_SOCKARRAY (src/maps/sock_map.c):
 * Linux's create rules, host-side values that are socket pointers with Linux's update
 * flags and delete errnos per type, key iteration, and the program side (lookups give
 * the socket itself; a program's update stores the socket it passes). */
#include <errno.h>
#include <kbpf/map.h>
#include <bpf/btf.h>
#include "test.h"

static int mk(uint32_t type, uint32_t ks, uint32_t vs, uint32_t max, uint32_t flags, struct kbpf_map **m)
{
	struct kbpf_map_def def = {
		.sz = sizeof(def), .type = type, .key_size = ks, .value_size = vs,
		.max_entries = max, .map_flags = flags, .name = "socks",
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

static void test_create_rules(void)
{
	const uint32_t sockmap = BPF_MAP_TYPE_SOCKMAP, sockhash = BPF_MAP_TYPE_SOCKHASH;
	const uint32_t xsk = BPF_MAP_TYPE_XSKMAP, reuse = BPF_MAP_TYPE_REUSEPORT_SOCKARRAY;

	/* sock_map_alloc: key 4, value 4 or 8 (an fd or a cookie), entries > 0 */
	CHECK_EQ_U64(create_err(sockmap, 4, 4, 8, 0), 0);
	CHECK_EQ_U64(create_err(sockmap, 4, 8, 8, 0), 0);
	CHECK_EQ_U64(create_err(sockmap, 4, 2, 8, 0), -EINVAL);
	CHECK_EQ_U64(create_err(sockmap, 8, 4, 8, 0), -EINVAL);
	CHECK_EQ_U64(create_err(sockmap, 4, 4, 0, 0), -EINVAL);
	CHECK_EQ_U64(create_err(sockmap, 4, 4, 0x80000000u, 0), -EINVAL); /* > INT_MAX */
	CHECK_EQ_U64(create_err(sockmap, 4, 4, 8, BPF_F_NUMA_NODE | BPF_F_RDONLY), 0);
	CHECK_EQ_U64(create_err(sockmap, 4, 4, 8, BPF_F_NO_PREALLOC), -EINVAL);
	CHECK_EQ_U64(create_err(sockmap, 4, 4, 8, BPF_F_RDONLY_PROG), -EINVAL);
	/* sock_hash_alloc: any key up to MAX_BPF_STACK */
	CHECK_EQ_U64(create_err(sockhash, 16, 8, 8, 0), 0);
	CHECK_EQ_U64(create_err(sockhash, 0, 8, 8, 0), -EINVAL);
	CHECK_EQ_U64(create_err(sockhash, 512, 4, 8, 0), 0);
	CHECK_EQ_U64(create_err(sockhash, 513, 4, 8, 0), -E2BIG);
	CHECK_EQ_U64(create_err(sockhash, 4, 16, 8, 0), -EINVAL);
	CHECK_EQ_U64(create_err(sockhash, 4, 4, 8, BPF_F_ZERO_SEED), -EINVAL);
	/* sock_hash_alloc: max_entries rounded up to a power of two buckets of 16 bytes must
	 * count in a u32 (-EINVAL), so at most 2^27 entries */
	CHECK_EQ_U64(create_err(sockhash, 4, 8, (1u << 27) + 1, 0), -EINVAL);
	CHECK_EQ_U64(create_err(sockhash, 4, 8, 0x80000001u, 0), -EINVAL);
	CHECK_EQ_U64(create_err(sockhash, 4, 8, 0xffffffffu, 0), -EINVAL);
	/* xsk_map_alloc: key 4, value 4 */
	CHECK_EQ_U64(create_err(xsk, 4, 4, 4, 0), 0);
	CHECK_EQ_U64(create_err(xsk, 4, 8, 4, 0), -EINVAL);
	CHECK_EQ_U64(create_err(xsk, 4, 4, 0, 0), -EINVAL);
	CHECK_EQ_U64(create_err(xsk, 4, 4, 4, BPF_F_MMAPABLE), -EINVAL);
	/* reuseport_array_alloc_check: value 4 or 8, then an array's rules */
	CHECK_EQ_U64(create_err(reuse, 4, 8, 4, 0), 0);
	CHECK_EQ_U64(create_err(reuse, 4, 4, 4, 0), 0);
	CHECK_EQ_U64(create_err(reuse, 4, 16, 4, 0), -EINVAL);
	CHECK_EQ_U64(create_err(reuse, 8, 8, 4, 0), -EINVAL);
	CHECK_EQ_U64(create_err(reuse, 4, 8, 4, BPF_F_MMAPABLE), -EINVAL);
	CHECK_EQ_U64(create_err(reuse, 4, 8, 4, BPF_F_RDONLY_PROG), 0);
}

/* BTF for key and value: Linux's map_check_no_btf. */
static void test_no_btf(void)
{
	struct btf *btf = btf__new_empty();
	struct kbpf_map *m = NULL;

	CHECK(btf && btf__add_int(btf, "int", 4, BTF_INT_SIGNED) == 1);
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_SOCKMAP, .key_size = 4, .value_size = 4,
				    .max_entries = 2, .btf = btf, .btf_key_type_id = 1, .btf_value_type_id = 1 };
	CHECK_EQ_U64(kbpf_map_create(&def, &m), -EOPNOTSUPP);
	CHECK(!m);
	/* REUSEPORT_SOCKARRAY has no map_check_btf in Linux: the generic checks only (key
	 * and value types of the map's sizes; a value type alone is -EINVAL) */
	def.type = BPF_MAP_TYPE_REUSEPORT_SOCKARRAY;
	CHECK_EQ_U64(kbpf_map_create(&def, &m), 0);
	kbpf_map_free(m);
	m = NULL;
	def.btf_key_type_id = 0;
	CHECK_EQ_U64(kbpf_map_create(&def, &m), -EINVAL);
	def.btf_key_type_id = 1;
	def.value_size = 8;
	CHECK_EQ_U64(kbpf_map_create(&def, &m), -EINVAL);
	CHECK(!m);
	btf__free(btf);
}

/* Stand-ins for sockets: the maps never look inside. */
static int sock_a, sock_b;

/* The arrays: update flags, delete errnos per type, lookups on both sides. */
static void check_array(uint32_t type, int del_oor, int del_empty)
{
	struct kbpf_map *m;
	uint32_t key = 1, oor = 4, next;
	void *a = &sock_a, *b = &sock_b, *out = NULL, *null = NULL;

	CHECK_EQ_U64(mk(type, 4, type == BPF_MAP_TYPE_XSKMAP ? 4 : 8, 4, 0, &m), 0);
	CHECK_EQ_U64(kbpf_map_host_value_size(m), sizeof(void *));
	CHECK_EQ_U64(kbpf_map_lookup(m, &key, &out), -ENOENT);
	CHECK(kbpf_map_lookup_elem(m, &key) == NULL);
	CHECK_EQ_U64(kbpf_map_update(m, &key, &a, BPF_EXIST), -ENOENT);
	CHECK_EQ_U64(kbpf_map_update(m, &key, &null, BPF_ANY), -EINVAL);
	CHECK_EQ_U64(kbpf_map_update(m, &key, &a, BPF_EXIST + 1), -EINVAL);
	CHECK_EQ_U64(kbpf_map_update(m, &oor, &a, BPF_ANY), -E2BIG);
	CHECK_EQ_U64(kbpf_map_update(m, &key, &a, BPF_NOEXIST), 0);
	CHECK_EQ_U64(kbpf_map_update(m, &key, &b, BPF_NOEXIST), -EEXIST);
	CHECK_EQ_U64(kbpf_map_lookup(m, &key, &out), 0);
	CHECK(out == &sock_a);
	CHECK(kbpf_map_lookup_elem(m, &key) == &sock_a);
	CHECK_EQ_U64(kbpf_map_update(m, &key, &b, BPF_EXIST), 0);
	CHECK(kbpf_map_lookup_elem(m, &key) == &sock_b);
	/* every index is a key, empty or not */
	CHECK_EQ_U64(kbpf_map_get_next_key(m, NULL, &next), 0);
	CHECK_EQ_U64(next, 0);
	CHECK_EQ_U64(kbpf_map_get_next_key(m, &key, &next), 0);
	CHECK_EQ_U64(next, 2);
	CHECK_EQ_U64(kbpf_map_delete(m, &oor), del_oor);
	CHECK_EQ_U64(kbpf_map_delete(m, &key), 0);
	CHECK(kbpf_map_lookup_elem(m, &key) == NULL);
	CHECK_EQ_U64(kbpf_map_delete(m, &key), del_empty);
	kbpf_map_free(m);
}

static void test_arrays(void)
{
	check_array(BPF_MAP_TYPE_SOCKMAP, -EINVAL, -EINVAL);
	check_array(BPF_MAP_TYPE_XSKMAP, -EINVAL, 0);
	check_array(BPF_MAP_TYPE_REUSEPORT_SOCKARRAY, -E2BIG, -ENOENT);
}

static void test_hash(void)
{
	struct kbpf_map *m;
	uint64_t k1 = 0x1122334455667788ull, k2 = 7, k3 = 9, next;
	void *a = &sock_a, *b = &sock_b, *out = NULL;

	CHECK_EQ_U64(mk(BPF_MAP_TYPE_SOCKHASH, 8, 8, 2, 0, &m), 0);
	CHECK_EQ_U64(kbpf_map_host_value_size(m), sizeof(void *));
	CHECK_EQ_U64(kbpf_map_get_next_key(m, NULL, &next), -ENOENT);
	CHECK_EQ_U64(kbpf_map_update(m, &k1, &a, BPF_EXIST), -ENOENT);
	CHECK_EQ_U64(kbpf_map_update(m, &k1, &a, BPF_ANY), 0);
	CHECK_EQ_U64(kbpf_map_update(m, &k1, &b, BPF_NOEXIST), -EEXIST);
	CHECK_EQ_U64(kbpf_map_update(m, &k2, &b, BPF_NOEXIST), 0);
	CHECK_EQ_U64(kbpf_map_update(m, &k3, &b, BPF_ANY), -E2BIG); /* full */
	CHECK_EQ_U64(kbpf_map_update(m, &k3, &b, 4), -EINVAL);
	CHECK(kbpf_map_lookup_elem(m, &k1) == &sock_a);
	CHECK(kbpf_map_lookup_elem(m, &k2) == &sock_b);
	CHECK(kbpf_map_lookup_elem(m, &k3) == NULL);
	CHECK_EQ_U64(kbpf_map_lookup(m, &k2, &out), 0);
	CHECK(out == &sock_b);
	/* both keys, once each */
	CHECK_EQ_U64(kbpf_map_get_next_key(m, NULL, &next), 0);
	uint64_t first = next;
	CHECK_EQ_U64(kbpf_map_get_next_key(m, &first, &next), 0);
	CHECK((first == k1 && next == k2) || (first == k2 && next == k1));
	CHECK_EQ_U64(kbpf_map_get_next_key(m, &next, &next), -ENOENT);
	CHECK_EQ_U64(kbpf_map_delete(m, &k1), 0);
	CHECK_EQ_U64(kbpf_map_delete(m, &k1), -ENOENT);
	CHECK(kbpf_map_lookup_elem(m, &k1) == NULL);
	kbpf_map_free(m);
}

/* bpf_map_update_elem / bpf_map_delete_elem from a program: the value is the socket
 * itself (the verifier makes it a socket pointer). XSKMAP and REUSEPORT_SOCKARRAY are
 * written by the host only. */
static void test_program_side(void)
{
	struct kbpf_map *sm, *sh, *xm;
	uint32_t key = 0;

	CHECK_EQ_U64(mk(BPF_MAP_TYPE_SOCKMAP, 4, 4, 2, 0, &sm), 0);
	CHECK_EQ_U64(mk(BPF_MAP_TYPE_SOCKHASH, 4, 4, 2, 0, &sh), 0);
	CHECK_EQ_U64(mk(BPF_MAP_TYPE_XSKMAP, 4, 4, 2, 0, &xm), 0);
	CHECK_EQ_U64(kbpf_map_update_elem(sm, &key, &sock_a, BPF_ANY), 0);
	CHECK(kbpf_map_lookup_elem(sm, &key) == &sock_a);
	CHECK_EQ_U64(kbpf_map_update_elem(sh, &key, &sock_b, BPF_NOEXIST), 0);
	CHECK(kbpf_map_lookup_elem(sh, &key) == &sock_b);
	CHECK_EQ_U64(kbpf_map_delete_elem(sm, &key), 0);
	CHECK_EQ_U64(kbpf_map_delete_elem(sh, &key), 0);
	CHECK(kbpf_map_lookup_elem(sh, &key) == NULL);
	CHECK_EQ_U64(kbpf_map_update_elem(xm, &key, &sock_a, BPF_ANY), -EOPNOTSUPP);
	kbpf_map_free(sm);
	kbpf_map_free(sh);
	kbpf_map_free(xm);
}

int main(void)
{
	RUN(test_create_rules);
	RUN(test_no_btf);
	RUN(test_arrays);
	RUN(test_hash);
	RUN(test_program_side);
	return test_summary();
}
