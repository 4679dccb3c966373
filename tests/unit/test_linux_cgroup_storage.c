/* SPDX-License-Identifier: Apache-2.0 */
/* CGROUP_STORAGE and PERCPU_CGROUP_STORAGE (src/maps/cgroup_storage.c): Linux's creation
 * rules, the host side (one storage, key cgroup 0 / attach type 0; lookup and update of
 * it only, no delete, get_next_key), bpf_get_local_storage from a cgroup_skb program on
 * the interpreter (fast and checked) and the JIT with the counter it keeps visible to
 * the host, the per-CPU copies, and the verifier's rules with Linux's messages. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <linux/bpf.h>
#include <kbpf/verifier.h>
#include "test.h"
#include "test_linux_util.h"

struct storage_key { /* struct bpf_cgroup_storage_key, padded to 16 */
	uint64_t cgroup_inode_id;
	uint32_t attach_type;
	uint32_t pad;
};

static int mk(uint32_t type, uint32_t ks, uint32_t vs, uint32_t max, uint32_t flags, struct kbpf_map **m)
{
	struct kbpf_map_def def = { .sz = sizeof(def), .type = type, .key_size = ks, .value_size = vs,
				    .max_entries = max, .map_flags = flags, .name = "cgs" };
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

static void test_create_rules(void)
{
	for (uint32_t t = BPF_MAP_TYPE_CGROUP_STORAGE; t <= BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE; t += 2) {
		CHECK_EQ_U64(create_err(t, 16, 64, 0, 0), 0);
		CHECK_EQ_U64(create_err(t, 8, 64, 0, 0), 0); /* a cgroup id only */
		CHECK_EQ_U64(create_err(t, 12, 64, 0, 0), (uint64_t)-EINVAL);
		CHECK_EQ_U64(create_err(t, 16, 0, 0, 0), (uint64_t)-EINVAL);
		CHECK_EQ_U64(create_err(t, 16, 64, 1, 0), (uint64_t)-EINVAL); /* max_entries must be 0 */
		CHECK_EQ_U64(create_err(t, 16, 64, 0, BPF_F_NO_PREALLOC), (uint64_t)-EINVAL);
		CHECK_EQ_U64(create_err(t, 16, 64, 0, BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG), (uint64_t)-EINVAL);
	}
	/* BPF_LOCAL_STORAGE_MAX_VALUE_SIZE: U16_MAX less the 128-byte bpf_local_storage_elem
	 * (x86-64: its data starts on the second 64-byte cache line) */
	CHECK_EQ_U64(create_err(BPF_MAP_TYPE_CGROUP_STORAGE, 16, 65407, 0, 0), 0);
	CHECK_EQ_U64(create_err(BPF_MAP_TYPE_CGROUP_STORAGE, 16, 65408, 0, 0), (uint64_t)-E2BIG);
	CHECK_EQ_U64(create_err(BPF_MAP_TYPE_CGROUP_STORAGE, 16, 65536, 0, 0), (uint64_t)-E2BIG);
	CHECK_EQ_U64(create_err(BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE, 16, 32769, 0, 0), (uint64_t)-E2BIG);
}

/* Linux's cgroup_storage_check_btf: the key must be struct bpf_cgroup_storage_key's
 * shape (or a u64 for 8-byte keys) */
static int create_btf(uint32_t ks, bool good)
{
	struct btf *btf = btf__new_empty();
	int u32 = btf__add_int(btf, "unsigned int", 4, 0);
	int u64 = btf__add_int(btf, "unsigned long long", 8, 0);
	int td = btf__add_typedef(btf, "__u64", u64);
	int key = u64;
	if (ks == 16) {
		key = btf__add_struct(btf, "bpf_cgroup_storage_key", 16);
		btf__add_field(btf, "cgroup_inode_id", good ? td : u32, 0, 0);
		btf__add_field(btf, "attach_type", u32, 64, 0);
	} else if (!good) {
		key = btf__add_struct(btf, "k", 8);
		btf__add_field(btf, "id", u64, 0, 0);
	}
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_CGROUP_STORAGE, .key_size = ks,
				    .value_size = 8, .btf = btf, .btf_key_type_id = (uint32_t)key,
				    .btf_value_type_id = (uint32_t)u64 };
	struct kbpf_map *m = NULL;
	int err = kbpf_map_create(&def, &m);
	kbpf_map_free(m);
	btf__free(btf);
	return err;
}

static void test_create_btf(void)
{
	CHECK_EQ_U64(create_btf(16, true), 0);
	CHECK_EQ_U64(create_btf(16, false), (uint64_t)-EINVAL);
	CHECK_EQ_U64(create_btf(8, true), 0);
	CHECK_EQ_U64(create_btf(8, false), (uint64_t)-EINVAL);
}

static void test_host_side(void)
{
	struct kbpf_map *m;
	CHECK_EQ_U64(mk(BPF_MAP_TYPE_CGROUP_STORAGE, 16, 8, 0, 0, &m), 0);
	struct storage_key k = { 0 }, other = { .attach_type = BPF_CGROUP_INET_EGRESS }, next;
	uint64_t v = 0, w = 42;
	CHECK_EQ_U64(kbpf_map_lookup(m, &k, &v), 0);
	CHECK_EQ_U64(v, 0); /* a new storage is zeroed */
	CHECK_EQ_U64(kbpf_map_update(m, &k, &w, BPF_ANY), 0);
	CHECK_EQ_U64(kbpf_map_update(m, &k, &w, BPF_EXIST), 0);
	CHECK_EQ_U64(kbpf_map_update(m, &k, &w, BPF_NOEXIST), (uint64_t)-EINVAL);
	CHECK_EQ_U64(kbpf_map_lookup(m, &k, &v), 0);
	CHECK_EQ_U64(v, 42);
	CHECK_EQ_U64(*(uint64_t *)kbpf_map_get_local_storage(m), 42); /* what programs get */
	CHECK_EQ_U64(kbpf_map_lookup(m, &other, &v), (uint64_t)-ENOENT);
	CHECK_EQ_U64(kbpf_map_update(m, &other, &w, BPF_ANY), (uint64_t)-ENOENT);
	/* the key's 4 padding bytes are no part of it: Linux compares its two fields */
	struct storage_key padded = { .pad = 0xdeadbeef };
	CHECK_EQ_U64(kbpf_map_lookup(m, &padded, &v), 0);
	CHECK_EQ_U64(kbpf_map_update(m, &padded, &w, BPF_EXIST), 0);
	CHECK_EQ_U64(kbpf_map_delete(m, &k), (uint64_t)-EINVAL);
	memset(&next, 0xff, sizeof(next));
	CHECK_EQ_U64(kbpf_map_get_next_key(m, NULL, &next), 0);
	CHECK(!memcmp(&next, &k, sizeof(k)));
	CHECK_EQ_U64(kbpf_map_get_next_key(m, &k, &next), (uint64_t)-ENOENT);
	CHECK(!kbpf_map_get_local_storage(NULL));
	kbpf_map_free(m);
}

static void test_percpu_host_side(void)
{
	struct kbpf_map *m;
	CHECK_EQ_U64(mk(BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE, 8, 8, 0, 0, &m), 0);
	unsigned n = kbpf_nr_cpus();
	uint64_t key = 0, vals[256] = { 0 };
	CHECK(n <= 256);
	/* this CPU's copy is what a program gets; the host sees every CPU's */
	*(uint64_t *)kbpf_map_get_local_storage(m) = 7;
	CHECK_EQ_U64(kbpf_map_lookup(m, &key, vals), 0);
	CHECK_EQ_U64(vals[kbpf_cpu_id()], 7);
	uint64_t sum = 0;
	for (unsigned i = 0; i < n; i++)
		sum += vals[i];
	CHECK_EQ_U64(sum, 7);
	kbpf_map_free(m);

	/* the host's buffer is kbpf_map_host_value_size: every CPU's value rounded up to 8
	 * bytes (was value_size: a lookup into a buffer of that size wrote past its end,
	 * as `kbpf map dump` of tests/bpf/cgroup_storage.bpf.o did under ASan) */
	CHECK_EQ_U64(mk(BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE, 8, 4, 0, 0, &m), 0);
	CHECK_EQ_U64(kbpf_map_host_value_size(m), (uint64_t)8 * n);
	char *buf = calloc(1, kbpf_map_host_value_size(m));
	CHECK(buf != NULL);
	CHECK_EQ_U64(kbpf_map_lookup(m, &key, buf), 0);
	CHECK_EQ_U64(kbpf_map_update(m, &key, buf, BPF_ANY), 0);
	free(buf);
	kbpf_map_free(m);
}

/* The host's value buffer of the per-CPU type is every CPU's copy, each rounded up to 8
 * bytes, as for any per-CPU map: a buffer of kbpf_map_host_value_size bytes takes a
 * lookup and gives an update. */
static void test_percpu_host_value_size(void)
{
	struct kbpf_map *m;
	CHECK_EQ_U64(mk(BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE, 16, 4, 0, 0, &m), 0);
	size_t size = kbpf_map_host_value_size(m);
	CHECK_EQ_U64(size, (uint64_t)kbpf_nr_cpus() * 8);
	struct storage_key key = { 0 };
	char *buf = calloc(1, size);
	CHECK(buf != NULL);
	CHECK_EQ_U64(kbpf_map_lookup(m, &key, buf), 0);
	CHECK_EQ_U64(kbpf_map_update(m, &key, buf, BPF_ANY), 0);
	free(buf);
	kbpf_map_free(m);
	/* the shared type's is value_size */
	CHECK_EQ_U64(mk(BPF_MAP_TYPE_CGROUP_STORAGE, 16, 4, 0, 0, &m), 0);
	CHECK_EQ_U64(kbpf_map_host_value_size(m), 4);
	kbpf_map_free(m);
}

/* cgroup_skb: storage[0] += 1; return storage[0] & 1 (allow every other packet) */
static const struct bpf_insn count_prog[] = {
	BPF_LD_MAP_FD(BPF_REG_1, 0),
	BPF_MOV64_IMM(BPF_REG_2, 0),
	BPF_EMIT_CALL(BPF_FUNC_get_local_storage),
	BPF_MOV64_IMM(BPF_REG_1, 1),
	BPF_ATOMIC_OP(BPF_DW, BPF_ADD | BPF_FETCH, BPF_REG_0, BPF_REG_1, 0),
	BPF_MOV64_REG(BPF_REG_0, BPF_REG_1),
	BPF_ALU64_IMM(BPF_AND, BPF_REG_0, 1),
	BPF_EXIT_INSN(),
};
#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_program_counts(void)
{
	struct kbpf_host *host = linux_host();
	for (uint32_t t = BPF_MAP_TYPE_CGROUP_STORAGE; t <= BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE; t += 2) {
		struct kbpf_map *m;
		CHECK_EQ_U64(mk(t, 16, 8, 0, 0, &m), 0);
		uint64_t runs = 0;
		for (int jit = 0; jit <= 1; jit++) {
			char log[4096] = "";
			struct kbpf_prog_opts po = { .sz = sizeof(po), .host = host, .prog_type = "cgroup_skb",
						     .license = "GPL", .maps = &m, .nr_maps = 1, .jit = jit,
						     .log_buf = log, .log_size = sizeof(log) };
			struct kbpf_prog *p = NULL;
			int ret = kbpf_prog_create(count_prog, N(count_prog), &po, &p);
			if (ret)
				fprintf(stderr, "create: %d %s\n", ret, log);
			CHECK_EQ_U64(ret, 0);
			struct __sk_buff skb = { 0 };
			for (int i = 0; p && i < 3; i++) {
				uint64_t r0 = 9;
				CHECK_EQ_U64(kbpf_prog_run(p, &skb, &r0), 0);
				runs++;
				CHECK_EQ_U64(r0, (runs - 1) & 1); /* the fetch gives the count before the add */
			}
			/* checked mode: the storage is memory the program may touch */
			struct kbpf_mem_region ctx = { &skb, sizeof(skb), KBPF_MEM_READ | KBPF_MEM_WRITE, "ctx" };
			struct kbpf_run_opts ro = { .sz = sizeof(ro), .flags = KBPF_RUN_CHECKED,
						    .args = { (uint64_t)(uintptr_t)&skb }, .regions = &ctx, .nr_regions = 1 };
			CHECK_EQ_U64(p ? kbpf_prog_run_opts(p, &ro, NULL) : -1, 0);
			runs++;
			kbpf_prog_free(p);
		}
		uint64_t key[2] = { 0, 0 }, vals[256] = { 0 }, sum = 0;
		CHECK_EQ_U64(kbpf_map_lookup(m, key, vals), 0);
		for (unsigned i = 0; i < (t == BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE ? kbpf_nr_cpus() : 1); i++)
			sum += vals[i];
		CHECK_EQ_U64(sum, runs); /* every run counted once, in the one storage */
		kbpf_map_free(m);
	}
	kbpf_host_free(host);
}

static int verify(struct kbpf_host *host, const struct bpf_insn *insns, size_t cnt, struct kbpf_map **maps,
		  size_t nr_maps, char *log, size_t log_size)
{
	struct kbpf_verify_opts vo = { .sz = sizeof(vo), .host = host, .prog_type = "cgroup_skb", .license = "GPL",
				       .maps = maps, .nr_maps = nr_maps, .log_buf = log, .log_size = log_size };
	return kbpf_prog_verify(insns, cnt, &vo, NULL);
}

static void test_verifier_rules(void)
{
	struct kbpf_host *host = linux_host();
	struct kbpf_map *maps[3];
	char log[4096];
	CHECK_EQ_U64(mk(BPF_MAP_TYPE_CGROUP_STORAGE, 16, 8, 0, 0, &maps[0]), 0);
	CHECK_EQ_U64(mk(BPF_MAP_TYPE_CGROUP_STORAGE, 16, 8, 0, 0, &maps[1]), 0);
	struct kbpf_map_def hd = { .sz = sizeof(hd), .type = BPF_MAP_TYPE_HASH, .key_size = 8, .value_size = 8,
				   .max_entries = 1 };
	CHECK_EQ_U64(kbpf_map_create(&hd, &maps[2]), 0);
	CHECK_EQ_U64(verify(host, count_prog, N(count_prog), maps, 3, log, sizeof(log)), 0);
	/* a second storage of the same kind */
	struct bpf_insn two[] = {
		BPF_LD_MAP_FD(BPF_REG_1, 0), BPF_LD_MAP_FD(BPF_REG_1, 1), BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(verify(host, two, N(two), maps, 3, log, sizeof(log)), (uint64_t)-EBUSY);
	CHECK_CONTAINS(log, "only one cgroup storage of each type is allowed");
	/* flags not a known 0 */
	struct bpf_insn flags[N(count_prog)];
	memcpy(flags, count_prog, sizeof(flags));
	flags[2] = (struct bpf_insn)BPF_MOV64_IMM(BPF_REG_2, 1);
	CHECK_EQ_U64(verify(host, flags, N(flags), maps, 3, log, sizeof(log)), (uint64_t)-EINVAL);
	CHECK_CONTAINS(log, "get_local_storage() doesn't support non-zero flags");
	/* a hash map is not a storage; a storage is not for map_lookup_elem */
	struct bpf_insn hash[N(count_prog)];
	memcpy(hash, count_prog, sizeof(hash));
	hash[0].imm = 2;
	CHECK_EQ_U64(verify(host, hash, N(hash), maps, 3, log, sizeof(log)), (uint64_t)-EINVAL);
	CHECK_CONTAINS(log, "cannot pass map_type 1 into func bpf_get_local_storage#81");
	struct bpf_insn lookup[] = {
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -16, 0), BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -16),
		BPF_LD_MAP_FD(BPF_REG_1, 0), BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(verify(host, lookup, N(lookup), maps, 3, log, sizeof(log)), (uint64_t)-EINVAL);
	CHECK_CONTAINS(log, "cannot pass map_type 19 into func bpf_map_lookup_elem#1");
	/* the value's bounds are the map's value_size */
	struct bpf_insn oob[N(count_prog)];
	memcpy(oob, count_prog, sizeof(oob));
	oob[4] = (struct bpf_insn)BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_0, 8);
	CHECK_EQ_U64(verify(host, oob, N(oob), maps, 3, log, sizeof(log)), (uint64_t)-EACCES);
	CHECK_CONTAINS(log, "invalid access to map value, value_size=8 off=8 size=8");
	for (int i = 0; i < 3; i++)
		kbpf_map_free(maps[i]);
	kbpf_host_free(host);
}

int main(void)
{
	RUN(test_create_rules);
	RUN(test_create_btf);
	RUN(test_host_side);
	RUN(test_percpu_host_side);
	RUN(test_percpu_host_value_size);
	RUN(test_program_counts);
	RUN(test_verifier_rules);
	return test_summary();
}
