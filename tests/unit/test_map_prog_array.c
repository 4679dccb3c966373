/* SPDX-License-Identifier: Apache-2.0 */
/* PROG_ARRAY: Linux's create rules (value_size 4), host-side values that are program
 * pointers, the tail-call lookup, and a tail-call reader racing with host updates. */
#include <errno.h>
#include <pthread.h>
#include <bpf/btf.h>
#include <kbpf/map.h>
#include <kbpf/prog.h>
#include "test.h"

static int mk(uint32_t ks, uint32_t vs, uint32_t max, uint32_t flags, struct kbpf_map **m)
{
	struct kbpf_map_def def = {
		.sz = sizeof(def), .type = BPF_MAP_TYPE_PROG_ARRAY, .key_size = ks, .value_size = vs,
		.max_entries = max, .map_flags = flags, .name = "jmp_table",
	};
	return kbpf_map_create(&def, m);
}

static int create_err(uint32_t ks, uint32_t vs, uint32_t max, uint32_t flags)
{
	struct kbpf_map *m = NULL;
	int err = mk(ks, vs, max, flags, &m);

	kbpf_map_free(m);
	return err;
}

static void test_prog_array_create_rules(void)
{
	CHECK_EQ_U64(create_err(4, 4, 8, 0), 0);
	CHECK_EQ_U64(create_err(4, 8, 8, 0), -EINVAL); /* Linux stores u32 fds */
	CHECK_EQ_U64(create_err(8, 4, 8, 0), -EINVAL);
	CHECK_EQ_U64(create_err(4, 4, 0, 0), -EINVAL);
	CHECK_EQ_U64(create_err(4, 4, 8, BPF_F_RDONLY_PROG), -EINVAL);
	CHECK_EQ_U64(create_err(4, 4, 8, BPF_F_WRONLY_PROG), -EINVAL);
	CHECK_EQ_U64(create_err(4, 4, 8, BPF_F_MMAPABLE), -EINVAL);
	CHECK_EQ_U64(create_err(4, 4, 8, BPF_F_NO_PREALLOC), -EINVAL);
	CHECK_EQ_U64(create_err(4, 4, 8, BPF_F_NUMA_NODE), 0);
	CHECK_EQ_U64(create_err(4, 4, 8, BPF_F_RDONLY), 0);
}

/* BTF key and value types: Linux 6.1's prog_array_map_ops has no map_check_btf, so the
 * generic checks decide (types of the map's sizes; a value type alone is -EINVAL). */
static void test_prog_array_btf(void)
{
	struct btf *btf = btf__new_empty();
	struct kbpf_map *m = NULL;

	CHECK(btf && btf__add_int(btf, "int", 4, BTF_INT_SIGNED) == 1);
	CHECK(btf && btf__add_int(btf, "long", 8, BTF_INT_SIGNED) == 2);
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_PROG_ARRAY, .key_size = 4,
				    .value_size = 4, .max_entries = 2, .btf = btf, .btf_key_type_id = 1,
				    .btf_value_type_id = 1 };
	CHECK_EQ_U64(kbpf_map_create(&def, &m), 0);
	kbpf_map_free(m);
	m = NULL;
	def.btf_value_type_id = 2; /* 8 bytes for a 4-byte value */
	CHECK_EQ_U64(kbpf_map_create(&def, &m), -EINVAL);
	def.btf_value_type_id = 1;
	def.btf_key_type_id = 0;
	CHECK_EQ_U64(kbpf_map_create(&def, &m), -EINVAL);
	CHECK(!m);
	btf__free(btf);
}

/* Two unverified programs ("r0 = 0; exit"): the map only compares a verified one's
 * type with the map's (one type per PROG_ARRAY), and these have none. */
static struct kbpf_prog *prog_a, *prog_b;

static void test_prog_array_ops(void)
{
	struct kbpf_map *m;
	uint32_t key = 1, next;
	void *prog = prog_a, *out = NULL;

	CHECK_EQ_U64(mk(4, 4, 4, 0, &m), 0);
	CHECK_EQ_U64(kbpf_map_host_value_size(m), sizeof(void *));
	CHECK(kbpf_prog_array_get(m, 1) == NULL);
	CHECK_EQ_U64(kbpf_map_lookup(m, &key, &out), -ENOENT);
	CHECK_EQ_U64(kbpf_map_delete(m, &key), -ENOENT);

	CHECK_EQ_U64(kbpf_map_update(m, &key, &prog, BPF_ANY), 0);
	CHECK(kbpf_prog_array_get(m, 1) == prog_a);
	CHECK(kbpf_prog_array_get(m, 0) == NULL);
	CHECK_EQ_U64(kbpf_map_lookup(m, &key, &out), 0);
	CHECK(out == prog_a);
	prog = prog_b;
	CHECK_EQ_U64(kbpf_map_update(m, &key, &prog, BPF_ANY), 0); /* replace */
	CHECK(kbpf_prog_array_get(m, 1) == prog_b);

	/* only BPF_ANY; a NULL program is not a program */
	CHECK_EQ_U64(kbpf_map_update(m, &key, &prog, BPF_NOEXIST), -EINVAL);
	CHECK_EQ_U64(kbpf_map_update(m, &key, &prog, BPF_EXIST), -EINVAL);
	prog = NULL;
	CHECK_EQ_U64(kbpf_map_update(m, &key, &prog, BPF_ANY), -EINVAL);
	key = 4;
	prog = prog_a;
	CHECK_EQ_U64(kbpf_map_update(m, &key, &prog, BPF_ANY), -E2BIG);
	CHECK_EQ_U64(kbpf_map_delete(m, &key), -E2BIG);
	CHECK_EQ_U64(kbpf_map_lookup(m, &key, &out), -ENOENT);
	CHECK(kbpf_prog_array_get(m, 4) == NULL);
	CHECK(kbpf_prog_array_get(m, UINT32_MAX) == NULL);
	CHECK(kbpf_prog_array_get(NULL, 0) == NULL);

	key = 1;
	CHECK_EQ_U64(kbpf_map_delete(m, &key), 0);
	CHECK(kbpf_prog_array_get(m, 1) == NULL);
	CHECK_EQ_U64(kbpf_map_delete(m, &key), -ENOENT);

	/* iteration is an array's: every index, set or not */
	int n = 0;
	for (int err = kbpf_map_get_next_key(m, NULL, &next); !err; err = kbpf_map_get_next_key(m, &key, &next)) {
		CHECK_EQ_U64(next, n);
		key = next;
		n++;
	}
	CHECK_EQ_U64(n, 4);

	/* programs reach it only through tail calls */
	CHECK(kbpf_map_lookup_elem(m, &key) == NULL);
	CHECK_EQ_U64(kbpf_map_update_elem(m, &key, &prog, BPF_ANY), -EOPNOTSUPP);
	CHECK_EQ_U64(kbpf_map_delete_elem(m, &key), -EOPNOTSUPP);
	kbpf_map_free(m);

	/* kbpf_prog_array_get on another map type */
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_ARRAY, .key_size = 4,
				    .value_size = 8, .max_entries = 1 };
	CHECK_EQ_U64(kbpf_map_create(&def, &m), 0);
	CHECK(kbpf_prog_array_get(m, 0) == NULL);
	kbpf_map_free(m);
}

/* A tail-call reader sees NULL or one of the stored programs, never anything else. */
static volatile int stop_reader;

static void *reader(void *p)
{
	struct kbpf_map *m = p;
	long bad = 0;

	while (!__atomic_load_n(&stop_reader, __ATOMIC_ACQUIRE)) {
		void *prog = kbpf_prog_array_get(m, 0);

		if (prog && prog != prog_a && prog != prog_b)
			bad++;
	}
	return (void *)bad;
}

static void test_prog_array_race(void)
{
	struct kbpf_map *m;
	pthread_t t;
	uint32_t key = 0;
	void *ret;

	CHECK_EQ_U64(mk(4, 4, 1, 0, &m), 0);
	CHECK_EQ_U64(pthread_create(&t, NULL, reader, m), 0);
	for (int i = 0; i < 20000; i++) {
		void *prog = i & 1 ? (void *)prog_a : (void *)prog_b;

		if (i % 7 == 0)
			kbpf_map_delete(m, &key);
		else
			CHECK_EQ_U64(kbpf_map_update(m, &key, &prog, BPF_ANY), 0);
	}
	__atomic_store_n(&stop_reader, 1, __ATOMIC_RELEASE);
	pthread_join(t, &ret);
	CHECK(ret == NULL);
	kbpf_map_free(m);
}

int main(void)
{
	static const struct bpf_insn ret0[] = { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };
	static const struct kbpf_prog_opts trusted = { .sz = sizeof(trusted), .trusted_unverified = 1 };
	CHECK_EQ_U64(kbpf_prog_create(ret0, 2, &trusted, &prog_a), 0);
	CHECK_EQ_U64(kbpf_prog_create(ret0, 2, &trusted, &prog_b), 0);
	RUN(test_prog_array_create_rules);
	RUN(test_prog_array_btf);
	RUN(test_prog_array_ops);
	RUN(test_prog_array_race);
	kbpf_prog_free(prog_a);
	kbpf_prog_free(prog_b);
	return test_summary();
}
