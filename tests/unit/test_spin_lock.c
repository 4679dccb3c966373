/* SPDX-License-Identifier: Apache-2.0 */
/* bpf_spin_lock in map values, end to end: maps created with BTF find the lock (Linux's
 * map_check_btf rules and errnos), host-side copies leave it alone and BPF_F_LOCK takes
 * it, the verifier applies Linux 6.1's rules with its messages, and verified programs
 * lock for real on the interpreter and the JIT; last, a clang-built object whose map
 * value type holds the lock goes through the loader. */
#include <errno.h>
#include <string.h>
#include <bpf/btf.h>
#include <kbpf/kbpf.h>
#include <kbpf/linux.h>
#include <kbpf/verifier.h>
#include "test.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* [1] int, [2] struct bpf_spin_lock { int val; }, [3] struct val { int cnt; lock l; }
 * (test_verifier.c's), [4] struct two { lock a; lock b; }, [5] struct bad { char c;
 * lock l at byte 2 } (misaligned), [6] struct nolock { int x; int y; },
 * [7] struct big { int cnt; lock l; long long total; }, [8] long long, [9] struct
 * bpf_timer (16 bytes), [10] struct tval { int x; struct bpf_timer t at 8; }. */
static struct btf *mk_btf(void)
{
	struct btf *b = btf__new_empty();

	CHECK(b != NULL);
	CHECK_EQ_U64(btf__add_int(b, "int", 4, BTF_INT_SIGNED), 1);
	CHECK_EQ_U64(btf__add_struct(b, "bpf_spin_lock", 4), 2);
	btf__add_field(b, "val", 1, 0, 0);
	CHECK_EQ_U64(btf__add_struct(b, "val", 8), 3);
	btf__add_field(b, "cnt", 1, 0, 0);
	btf__add_field(b, "l", 2, 32, 0);
	CHECK_EQ_U64(btf__add_struct(b, "two", 8), 4);
	btf__add_field(b, "a", 2, 0, 0);
	btf__add_field(b, "b", 2, 32, 0);
	CHECK_EQ_U64(btf__add_struct(b, "bad", 8), 5);
	btf__add_field(b, "l", 2, 16, 0);
	CHECK_EQ_U64(btf__add_struct(b, "nolock", 8), 6);
	btf__add_field(b, "x", 1, 0, 0);
	btf__add_field(b, "y", 1, 32, 0);
	CHECK_EQ_U64(btf__add_struct(b, "big", 16), 7);
	btf__add_field(b, "cnt", 1, 0, 0);
	btf__add_field(b, "l", 2, 32, 0);
	CHECK(btf__add_int(b, "long long", 8, BTF_INT_SIGNED) == 8);
	btf__add_field(b, "total", 8, 64, 0);
	CHECK_EQ_U64(btf__add_struct(b, "bpf_timer", 16), 9);
	CHECK_EQ_U64(btf__add_struct(b, "tval", 24), 10);
	btf__add_field(b, "x", 1, 0, 0);
	btf__add_field(b, "t", 9, 64, 0);
	return b;
}

static int mk_map(struct btf *btf, uint32_t type, uint32_t vsize, uint32_t value_id, uint32_t flags,
		  struct kbpf_map **m)
{
	struct kbpf_map_def def = { .sz = sizeof(def), .type = type, .key_size = 4, .value_size = vsize,
				    .max_entries = type == BPF_MAP_TYPE_SK_STORAGE ? 0 : 4,
				    .map_flags = flags | (type == BPF_MAP_TYPE_SK_STORAGE ? BPF_F_NO_PREALLOC : 0),
				    .name = "test_map", .btf = btf, .btf_key_type_id = 1,
				    .btf_value_type_id = value_id };
	*m = NULL;
	return kbpf_map_create(&def, m);
}

/* SK_STORAGE values: at most Linux's BPF_LOCAL_STORAGE_MAX_VALUE_SIZE, 65,535 less the
 * 128-byte element header on x86-64. */
static void test_sk_storage_value_limit(void)
{
	struct btf *btf = btf__new_empty();
	struct kbpf_map *m = NULL;

	CHECK(btf && btf__add_int(btf, "int", 4, BTF_INT_SIGNED) == 1);
	CHECK(btf && btf__add_struct(btf, "big", 65407) == 2);
	CHECK(btf && btf__add_struct(btf, "bigger", 65408) == 3);
	CHECK_EQ_U64(mk_map(btf, BPF_MAP_TYPE_SK_STORAGE, 65407, 2, 0, &m), 0);
	kbpf_map_free(m);
	CHECK_EQ_U64(mk_map(btf, BPF_MAP_TYPE_SK_STORAGE, 65408, 3, 0, &m), -E2BIG);
	btf__free(btf);
}

static void test_map_btf(void)
{
	struct btf *btf = mk_btf();
	struct kbpf_map *m;

	CHECK_EQ_U64(mk_map(btf, BPF_MAP_TYPE_ARRAY, 8, 3, 0, &m), 0);
	CHECK_EQ_U64(kbpf_map_spin_lock_off(m), 4);
	CHECK_EQ_U64(kbpf_map_timer_off(m), (uint64_t)-ENOENT);
	CHECK(kbpf_map_has_btf(m));
	kbpf_map_free(m);
	CHECK_EQ_U64(mk_map(btf, BPF_MAP_TYPE_HASH, 8, 3, 0, &m), 0);
	CHECK_EQ_U64(kbpf_map_spin_lock_off(m), 4);
	kbpf_map_free(m);
	CHECK_EQ_U64(mk_map(btf, BPF_MAP_TYPE_SK_STORAGE, 8, 3, 0, &m), 0);
	CHECK_EQ_U64(kbpf_map_spin_lock_off(m), 4);
	kbpf_map_free(m);
	/* found but refused, as map_check_btf refuses it */
	CHECK_EQ_U64(mk_map(btf, BPF_MAP_TYPE_ARRAY, 8, 3, BPF_F_RDONLY_PROG, &m), (uint64_t)-EACCES);
	CHECK_EQ_U64(mk_map(btf, BPF_MAP_TYPE_PERCPU_ARRAY, 8, 3, 0, &m), (uint64_t)-EOPNOTSUPP);
	CHECK_EQ_U64(mk_map(btf, BPF_MAP_TYPE_LRU_HASH, 8, 3, 0, &m), (uint64_t)-EOPNOTSUPP);
	/* the types must match the sizes; an array's key is an int */
	CHECK_EQ_U64(mk_map(btf, BPF_MAP_TYPE_ARRAY, 16, 3, 0, &m), (uint64_t)-EINVAL);
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 8,
				    .max_entries = 1, .btf = btf, .btf_key_type_id = 3, .btf_value_type_id = 3 };
	CHECK_EQ_U64(kbpf_map_create(&def, &m), (uint64_t)-EINVAL);
	def.btf = NULL;
	CHECK_EQ_U64(kbpf_map_create(&def, &m), (uint64_t)-EINVAL);
	/* created, but no usable lock: the verifier names why */
	CHECK_EQ_U64(mk_map(btf, BPF_MAP_TYPE_ARRAY, 8, 4, 0, &m), 0);
	CHECK_EQ_U64(kbpf_map_spin_lock_off(m), (uint64_t)-E2BIG);
	kbpf_map_free(m);
	CHECK_EQ_U64(mk_map(btf, BPF_MAP_TYPE_ARRAY, 8, 5, 0, &m), 0);
	CHECK_EQ_U64(kbpf_map_spin_lock_off(m), (uint64_t)-EINVAL);
	kbpf_map_free(m);
	CHECK_EQ_U64(mk_map(btf, BPF_MAP_TYPE_ARRAY, 8, 6, 0, &m), 0);
	CHECK_EQ_U64(kbpf_map_spin_lock_off(m), (uint64_t)-ENOENT);
	kbpf_map_free(m);
	/* no BTF at all */
	def = (struct kbpf_map_def){ .sz = sizeof(def), .type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 8,
				     .max_entries = 1 };
	CHECK_EQ_U64(kbpf_map_create(&def, &m), 0);
	CHECK_EQ_U64(kbpf_map_spin_lock_off(m), (uint64_t)-EINVAL);
	CHECK(!kbpf_map_has_btf(m));
	kbpf_map_free(m);
	btf__free(btf);
}

/* Linux 6.12's map_freeze refuses a map whose value has special fields (map->record:
 * spin lock, timer, kptrs) with -ENOTSUPP, and map_check_btf refuses them in a
 * BPF_F_RDONLY_PROG or BPF_F_WRONLY_PROG map (-EACCES): a frozen read-only value is
 * write-protected, and bpf_spin_lock / bpf_timer_init write into the value. */
static void test_freeze_special_fields(void)
{
	struct btf *btf = mk_btf();
	struct kbpf_map *m;

	for (uint32_t flags = BPF_F_RDONLY_PROG; flags; flags = flags == BPF_F_RDONLY_PROG ? BPF_F_WRONLY_PROG : 0) {
		CHECK_EQ_U64(mk_map(btf, BPF_MAP_TYPE_ARRAY, 8, 3, flags, &m), (uint64_t)-EACCES);
		CHECK_EQ_U64(mk_map(btf, BPF_MAP_TYPE_ARRAY, 24, 10, flags, &m), (uint64_t)-EACCES);
	}
	CHECK_EQ_U64(mk_map(btf, BPF_MAP_TYPE_ARRAY, 8, 3, 0, &m), 0);
	CHECK_EQ_U64(kbpf_map_freeze(m), (uint64_t)-EOPNOTSUPP);
	CHECK(!kbpf_map_is_frozen(m));
	kbpf_map_free(m);
	CHECK_EQ_U64(mk_map(btf, BPF_MAP_TYPE_ARRAY, 24, 10, 0, &m), 0);
	CHECK_EQ_U64(kbpf_map_freeze(m), (uint64_t)-EOPNOTSUPP);
	CHECK(!kbpf_map_is_frozen(m));
	kbpf_map_free(m);
	/* a value with no special field freezes */
	CHECK_EQ_U64(mk_map(btf, BPF_MAP_TYPE_ARRAY, 8, 6, 0, &m), 0);
	CHECK_EQ_U64(kbpf_map_freeze(m), 0);
	kbpf_map_free(m);
	btf__free(btf);
}

/* Host-side copies: the lock word is never written by an update, reads as 0, and
 * BPF_F_LOCK needs a lock. */
static void test_host_copies(void)
{
	struct btf *btf = mk_btf();
	uint32_t types[] = { BPF_MAP_TYPE_ARRAY, BPF_MAP_TYPE_HASH };

	for (size_t i = 0; i < ARRAY_SIZE(types); i++) {
		struct kbpf_map *m, *plain;
		uint32_t key = 1, val[2] = { 41, 0xffffffff }, out[2];

		CHECK_EQ_U64(mk_map(btf, types[i], 8, 3, 0, &m), 0);
		CHECK_EQ_U64(mk_map(btf, types[i], 8, 6, 0, &plain), 0);
		CHECK_EQ_U64(kbpf_map_update(m, &key, val, BPF_ANY), 0);
		uint32_t *in = kbpf_map_lookup_elem(m, &key);
		CHECK(in && in[0] == 41 && in[1] == 0); /* not the caller's lock word */
		in[1] = 1;                              /* "held" by a program */
		val[0] = 42;
		CHECK_EQ_U64(kbpf_map_update(m, &key, val, BPF_EXIST), 0);
		CHECK(in[0] == 42 && in[1] == 1);
		memset(out, 0xaa, sizeof(out));
		CHECK_EQ_U64(kbpf_map_lookup(m, &key, out), 0);
		CHECK(out[0] == 42 && out[1] == 0); /* masked */
		in[1] = 0;
		val[0] = 43;
		CHECK_EQ_U64(kbpf_map_update(m, &key, val, BPF_EXIST | BPF_F_LOCK), 0);
		memset(out, 0xaa, sizeof(out));
		CHECK_EQ_U64(kbpf_map_lookup_flags(m, &key, out, BPF_F_LOCK), 0);
		CHECK(out[0] == 43 && out[1] == 0 && in[1] == 0); /* taken and released */
		CHECK_EQ_U64(kbpf_map_lookup_flags(m, &key, out, BPF_EXIST), (uint64_t)-EINVAL);
		key = 9;
		CHECK_EQ_U64(kbpf_map_lookup_flags(m, &key, out, BPF_F_LOCK), (uint64_t)-ENOENT);
		/* no lock: Linux's -EINVAL */
		key = 1;
		CHECK_EQ_U64(kbpf_map_update(plain, &key, val, BPF_F_LOCK), (uint64_t)-EINVAL);
		CHECK_EQ_U64(kbpf_map_update(plain, &key, val, BPF_ANY), 0);
		CHECK_EQ_U64(kbpf_map_lookup_flags(plain, &key, out, BPF_F_LOCK), (uint64_t)-EINVAL);
		CHECK_EQ_U64(kbpf_map_lookup(plain, &key, out), 0);
		CHECK(out[0] == 43 && out[1] == 0xffffffff); /* no field: every byte copied */
		kbpf_map_free(m);
		kbpf_map_free(plain);
	}
	btf__free(btf);
}

static struct kbpf_host *linux_host(void)
{
	struct kbpf_host *host = kbpf_host_new();

	CHECK(host && !kbpf_linux_host_add(host));
	return host;
}

#define LOOKUP_KEY0(map_idx)                                                                            \
	BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0), BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),                    \
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4), BPF_LD_MAP_FD(BPF_REG_1, map_idx),              \
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem)

/* Verify insns as type against maps; the log in log. */
static int verify(struct kbpf_host *host, const char *type, const struct bpf_insn *insns, size_t cnt,
		  struct kbpf_map **maps, size_t nr_maps, char *log, size_t log_size)
{
	struct kbpf_prog_opts o = { .sz = sizeof(o), .host = host, .prog_type = type, .license = "GPL",
				    .maps = maps, .nr_maps = nr_maps, .log_buf = log, .log_size = log_size };
	struct kbpf_prog *p = NULL;
	int err;

	log[0] = 0;
	err = kbpf_prog_create(insns, cnt, &o, &p);
	kbpf_prog_free(p);
	return err;
}

#define REJECTS(type, msg, ...)                                                                        \
	do {                                                                                           \
		const struct bpf_insn i_[] = { __VA_ARGS__ };                                          \
		char log_[4096];                                                                       \
		CHECK(verify(host, type, i_, ARRAY_SIZE(i_), maps, ARRAY_SIZE(maps), log_, sizeof(log_)) < 0); \
		CHECK_CONTAINS(log_, msg);                                                             \
	} while (0)

/* Linux 6.1's rules and messages (kernel/bpf/verifier.c process_spin_lock & co). */
static void test_verifier_rules(void)
{
	struct kbpf_host *host = linux_host();
	struct btf *btf = mk_btf();
	struct kbpf_map *maps[4];
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 8,
				    .max_entries = 1, .name = "nobtf" };

	CHECK_EQ_U64(mk_map(btf, BPF_MAP_TYPE_ARRAY, 8, 3, 0, &maps[0]), 0);
	CHECK_EQ_U64(kbpf_map_create(&def, &maps[1]), 0);
	CHECK_EQ_U64(mk_map(btf, BPF_MAP_TYPE_ARRAY, 8, 4, 0, &maps[2]), 0);
	CHECK_EQ_U64(mk_map(btf, BPF_MAP_TYPE_ARRAY, 8, 6, 0, &maps[3]), 0);

	const struct bpf_insn good[] = {
		LOOKUP_KEY0(0),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 7),
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_0),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 4),
		BPF_EMIT_CALL(BPF_FUNC_spin_lock),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 4),
		BPF_EMIT_CALL(BPF_FUNC_spin_unlock),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	char log[4096];
	CHECK_EQ_U64(verify(host, "cgroup_skb", good, ARRAY_SIZE(good), maps, 4, log, sizeof(log)), 0);

#define LOCKED_PROLOGUE(map_idx, off)                                                                  \
	LOOKUP_KEY0(map_idx), BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 1), BPF_EXIT_INSN(),                   \
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_0), BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),              \
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, off), BPF_EMIT_CALL(BPF_FUNC_spin_lock)
#define UNLOCK_EXIT                                                                                    \
	BPF_MOV64_REG(BPF_REG_1, BPF_REG_6), BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 4),                     \
		BPF_EMIT_CALL(BPF_FUNC_spin_unlock), BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN()

	REJECTS("cgroup_skb", "bpf_spin_lock cannot be accessed directly by load/store", LOCKED_PROLOGUE(0, 4),
		BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_6, 4), UNLOCK_EXIT);
	REJECTS("cgroup_skb", "bpf_spin_lock cannot be accessed directly by load/store", LOCKED_PROLOGUE(0, 4),
		BPF_ST_MEM(BPF_DW, BPF_REG_6, 0, 0), UNLOCK_EXIT);
	REJECTS("cgroup_skb", "function calls are not allowed while holding a lock", LOCKED_PROLOGUE(0, 4),
		BPF_EMIT_CALL(BPF_FUNC_get_prandom_u32), UNLOCK_EXIT);
	REJECTS("cgroup_skb", "bpf_spin_unlock is missing", LOCKED_PROLOGUE(0, 4), BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN());
	/* Linux 6.12: a static subprog may take the lock and return holding it; the caller
	 * unlocks (verifier_spin_lock.c test10). 6.1 refused the subprog's exit. */
#define LOCK_IN_SUBPROG(...)                                                                           \
	LOOKUP_KEY0(0), BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 1), BPF_EXIT_INSN(),                         \
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_0), BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),              \
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 4), BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, \
								    __VA_ARGS__)
	const struct bpf_insn sub_locks[] = {
		LOCK_IN_SUBPROG(5), UNLOCK_EXIT, BPF_EMIT_CALL(BPF_FUNC_spin_lock), BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(verify(host, "cgroup_skb", sub_locks, ARRAY_SIZE(sub_locks), maps, 4, log, sizeof(log)), 0);
	/* ... but the program may not end holding it */
	REJECTS("cgroup_skb", "bpf_spin_unlock is missing", LOCK_IN_SUBPROG(2), BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(), BPF_EMIT_CALL(BPF_FUNC_spin_lock), BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN());
	/* a static subprog called under the lock runs under it: no helper calls there */
	REJECTS("cgroup_skb", "function calls are not allowed while holding a lock", LOCKED_PROLOGUE(0, 4),
		BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 5), UNLOCK_EXIT,
		BPF_EMIT_CALL(BPF_FUNC_get_prandom_u32), BPF_EXIT_INSN());
	/* 6.1: the second bpf_spin_lock is a call while holding the lock */
	REJECTS("cgroup_skb", "function calls are not allowed while holding a lock", LOCKED_PROLOGUE(0, 4),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_6), BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 4),
		BPF_EMIT_CALL(BPF_FUNC_spin_lock), UNLOCK_EXIT);
	REJECTS("cgroup_skb", "bpf_spin_unlock without taking a lock", LOOKUP_KEY0(0),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 1), BPF_EXIT_INSN(), BPF_MOV64_REG(BPF_REG_6, BPF_REG_0),
		UNLOCK_EXIT);
	REJECTS("cgroup_skb", "off 0 doesn't point to 'struct bpf_spin_lock'", LOCKED_PROLOGUE(0, 0), UNLOCK_EXIT);
	REJECTS("cgroup_skb", "map 'nobtf' has to have BTF in order to use bpf_spin_lock", LOCKED_PROLOGUE(1, 4),
		UNLOCK_EXIT);
	REJECTS("cgroup_skb", "map 'test_map' has more than one 'struct bpf_spin_lock'", LOCKED_PROLOGUE(2, 4),
		UNLOCK_EXIT);
	REJECTS("cgroup_skb", "map 'test_map' doesn't have 'struct bpf_spin_lock'", LOCKED_PROLOGUE(3, 4),
		UNLOCK_EXIT);
	REJECTS("socket_filter", "socket filter progs cannot use bpf_spin_lock yet", LOCKED_PROLOGUE(0, 4),
		UNLOCK_EXIT);
	/* Linux 6.12 (since 6.3): a sleepable program may use the lock (6.1 refused it:
	 * "sleepable progs cannot use bpf_spin_lock yet"); syscall programs load sleepable */
	{
		struct kbpf_prog_opts so = { .sz = sizeof(so), .host = host, .prog_type = "syscall", .license = "GPL",
					     .maps = maps, .nr_maps = 4, .log_buf = log, .log_size = sizeof(log),
					     .prog_flags = BPF_F_SLEEPABLE };
		struct kbpf_prog *sp = NULL;
		log[0] = 0;
		CHECK_EQ_U64(kbpf_prog_create(good, ARRAY_SIZE(good), &so, &sp), 0);
		kbpf_prog_free(sp);
	}
	/* a lock taken through one lookup's pointer, released through another's (the
	 * same element at run time, but the verifier cannot know) */
	REJECTS("cgroup_skb", "bpf_spin_unlock of different lock", LOOKUP_KEY0(0),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 1), BPF_EXIT_INSN(), BPF_MOV64_REG(BPF_REG_7, BPF_REG_0),
		LOCKED_PROLOGUE(0, 4), BPF_MOV64_REG(BPF_REG_1, BPF_REG_7), BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 4),
		BPF_EMIT_CALL(BPF_FUNC_spin_unlock), BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN());
	/* a helper given memory that covers the lock */
	REJECTS("cgroup_skb", "bpf_spin_lock cannot be accessed directly by load/store", LOOKUP_KEY0(0),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 1), BPF_EXIT_INSN(), BPF_MOV64_REG(BPF_REG_3, BPF_REG_0),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_LD_MAP_FD(BPF_REG_1, 0), BPF_MOV64_IMM(BPF_REG_4, 0), BPF_EMIT_CALL(BPF_FUNC_map_update_elem),
		BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN());

	for (size_t i = 0; i < ARRAY_SIZE(maps); i++)
		kbpf_map_free(maps[i]);

	/* bpf_timer fields: found, protected, pointed at exactly (Linux's process_timer_func) */
	struct kbpf_map *tm[2];
	CHECK_EQ_U64(mk_map(btf, BPF_MAP_TYPE_ARRAY, 24, 10, 0, &tm[0]), 0);
	CHECK_EQ_U64(kbpf_map_timer_off(tm[0]), 8);
	CHECK_EQ_U64(kbpf_map_spin_lock_off(tm[0]), (uint64_t)-ENOENT);
	CHECK_EQ_U64(mk_map(btf, BPF_MAP_TYPE_ARRAY, 24, 10, 0, &tm[1]), 0);
#define TIMER_INIT(off, map_idx)                                                                       \
	LOOKUP_KEY0(0), BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 1), BPF_EXIT_INSN(),                         \
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_0), BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, off),           \
		BPF_LD_MAP_FD(BPF_REG_2, map_idx), BPF_MOV64_IMM(BPF_REG_3, 1),                        \
		BPF_EMIT_CALL(BPF_FUNC_timer_init), BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN()
	{
		struct kbpf_map **maps_saved = tm;
#define TREJECTS(msg, ...)                                                                             \
	do {                                                                                           \
		const struct bpf_insn i_[] = { __VA_ARGS__ };                                          \
		char log_[4096];                                                                       \
		CHECK(verify(host, "cgroup_skb", i_, ARRAY_SIZE(i_), maps_saved, 2, log_, sizeof(log_)) < 0); \
		CHECK_CONTAINS(log_, msg);                                                             \
	} while (0)
		TREJECTS("off 0 doesn't point to 'struct bpf_timer' that is at 8", TIMER_INIT(0, 0));
		TREJECTS("timer pointer in R1 map_uid=0 doesn't match map pointer in R2 map_uid=0", TIMER_INIT(8, 1));
		TREJECTS("bpf_timer cannot be accessed directly by load/store", LOOKUP_KEY0(0),
			 BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 1), BPF_EXIT_INSN(), BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_0, 16),
			 BPF_EXIT_INSN());
		/* verified (the timer helpers have no run-time model: verify only) */
		const struct bpf_insn ok[] = { TIMER_INIT(8, 0) };
		struct kbpf_verify_opts vo = { .sz = sizeof(vo), .host = host, .prog_type = "cgroup_skb", .maps = tm,
					       .nr_maps = 2, .license = "GPL", .log_buf = log, .log_size = sizeof(log) };
		CHECK_EQ_U64(kbpf_prog_verify(ok, ARRAY_SIZE(ok), &vo, NULL), 0);

		/* bpf_timer_set_callback (6.1 push_async_cb, set_timer_callback_state): the
		 * callback at insn 22 is walked on its own with R1 = map, R2 = key, R3 = value */
#define ASYNC_PROG(...)                                                                                	LOOKUP_KEY0(0), BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 1), BPF_EXIT_INSN(),                         		BPF_MOV64_REG(BPF_REG_6, BPF_REG_0), BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),              		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 8), BPF_LD_MAP_FD(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_3, 1), 		BPF_EMIT_CALL(BPF_FUNC_timer_init), BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),               		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 8), BPF_LD_IMM64_RAW(BPF_REG_2, BPF_PSEUDO_FUNC, 4),  		BPF_EMIT_CALL(BPF_FUNC_timer_set_callback), BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN(), 		__VA_ARGS__
		/* a callback needs BTF func_info (6.1 check_ld_imm): static main and cb */
		int proto = btf__add_func_proto(btf, 1);
		int main_id = btf__add_func(btf, "main", BTF_FUNC_STATIC, proto);
		int cb_id = btf__add_func(btf, "cb", BTF_FUNC_STATIC, proto);
		CHECK(proto > 0 && main_id > 0 && cb_id > 0);
		const struct bpf_func_info fi[2] = { { 0, (uint32_t)main_id }, { 22, (uint32_t)cb_id } };
		vo.prog_btf = btf;
		vo.func_info = fi;
		vo.nr_func_info = 2;
#define AREJECTS(msg, ...)                                                                             	do {                                                                                           		const struct bpf_insn i_[] = { ASYNC_PROG(__VA_ARGS__) };                              		log[0] = 0;                                                                            		CHECK(kbpf_prog_verify(i_, ARRAY_SIZE(i_), &vo, NULL) < 0);                                  		CHECK_CONTAINS(log, msg);                                                              	} while (0)
		AREJECTS("At async callback return the register R0 has smin=1 smax=1 should have been in [0, 0]",
			 BPF_MOV64_IMM(BPF_REG_0, 1), BPF_EXIT_INSN());
		AREJECTS("R4 !read_ok", BPF_MOV64_REG(BPF_REG_0, BPF_REG_4), BPF_EXIT_INSN());
		AREJECTS("At async callback return the register R0 is not a known value (map_ptr)",
			 BPF_MOV64_REG(BPF_REG_0, BPF_REG_1), BPF_EXIT_INSN());
		/* the value is the map's: its timer is off limits */
		AREJECTS("bpf_timer cannot be accessed directly by load/store",
			 BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_3, 8), BPF_EXIT_INSN());
		/* a callback that reads key and value and sets itself again: a second entry into
		 * the callback is not a loop (6.1 async_entry_cnt) */
		const struct bpf_insn again[] = { ASYNC_PROG(
			BPF_LDX_MEM(BPF_W, BPF_REG_4, BPF_REG_2, 0), BPF_STX_MEM(BPF_W, BPF_REG_3, BPF_REG_4, 0),
			BPF_MOV64_REG(BPF_REG_1, BPF_REG_3), BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 8),
			BPF_LD_IMM64_RAW(BPF_REG_2, BPF_PSEUDO_FUNC, -5), BPF_EMIT_CALL(BPF_FUNC_timer_set_callback),
			BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN()) };
		static char big[1 << 16];
		vo.log_buf = big;
		vo.log_size = sizeof(big);
		vo.log_level = KBPF_LOG_LEVEL2;
		CHECK_EQ_U64(kbpf_prog_verify(again, ARRAY_SIZE(again), &vo, NULL), 0);
		CHECK_CONTAINS(big, " async_cb");
	}
	kbpf_map_free(tm[0]);
	kbpf_map_free(tm[1]);
	btf__free(btf);
	kbpf_host_free(host);
}

/* Pruning and the held lock (issue 16, class 11; Linux 6.12 states_equal pairs
 * active_lock's id with the registers' ids): "lock element 0 through r9, maybe point r9
 * at element 1, unlock through r9". The path that keeps r9 reaches "join" first and is
 * checkpointed (test_state_freq); the other holds the same lock id while r9 names
 * another value. Compared literally (6.1) the lock ids matched and the path was pruned:
 * it unlocked element 1, which it never took, and left element 0 locked, so the next
 * run spun forever. Now it is walked and refused. */
#define SWITCH_PROG(switch_to)                                                                         \
	BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0), BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),                    \
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4), BPF_LD_MAP_FD(BPF_REG_1, 0),                    \
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem), BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 1),        \
		BPF_EXIT_INSN(), BPF_MOV64_REG(BPF_REG_7, BPF_REG_0),                                  \
		BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 1), BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),            \
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4), BPF_LD_MAP_FD(BPF_REG_1, 0),                    \
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem), BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 1),        \
		BPF_EXIT_INSN(), BPF_MOV64_REG(BPF_REG_6, BPF_REG_0),                                  \
		BPF_EMIT_CALL(BPF_FUNC_get_prandom_u32), BPF_MOV64_REG(BPF_REG_8, BPF_REG_0),          \
		BPF_MOV64_REG(BPF_REG_9, BPF_REG_7), BPF_MOV64_REG(BPF_REG_1, BPF_REG_9),              \
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 4), BPF_EMIT_CALL(BPF_FUNC_spin_lock),               \
		BPF_JMP_IMM(BPF_JNE, BPF_REG_8, 0, 5),                                                 \
		/* join: */ BPF_MOV64_REG(BPF_REG_1, BPF_REG_9), BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 4),  \
		BPF_EMIT_CALL(BPF_FUNC_spin_unlock), BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN(),     \
		/* switch: */ BPF_MOV64_REG(BPF_REG_9, switch_to), BPF_JMP_A(-7)

static void test_prune_lock_identity(void)
{
	struct kbpf_host *host = linux_host();
	struct btf *btf = mk_btf();
	struct kbpf_map *maps[1];
	static char log[1 << 16];

	CHECK_EQ_U64(mk_map(btf, BPF_MAP_TYPE_ARRAY, 8, 3, 0, &maps[0]), 0);
	const struct bpf_insn bad[] = { SWITCH_PROG(BPF_REG_6) }, good[] = { SWITCH_PROG(BPF_REG_7) };
	struct kbpf_verify_opts vo = { .sz = sizeof(vo), .host = host, .prog_type = "cgroup_skb", .maps = maps,
				       .nr_maps = 1, .license = "GPL", .log_buf = log, .log_size = sizeof(log),
				       .log_level = KBPF_LOG_LEVEL1 };
	for (int freq = 0; freq < 2; freq++) {
		vo.test_state_freq = freq;
		log[0] = 0;
		CHECK(kbpf_prog_verify(bad, ARRAY_SIZE(bad), &vo, NULL) < 0);
		CHECK_CONTAINS(log, "bpf_spin_unlock of different lock");
		/* the same shape that keeps the pointer to the held value is accepted (and
		 * pruned at join with the forced checkpoints) */
		log[0] = 0;
		vo.log_level = KBPF_LOG_LEVEL2;
		CHECK_EQ_U64(kbpf_prog_verify(good, ARRAY_SIZE(good), &vo, NULL), 0);
		if (freq)
			CHECK_CONTAINS(log, "25: safe");
		vo.log_level = KBPF_LOG_LEVEL1;
	}
	/* unprivileged: bpf_spin_lock is not offered (Linux's bpf_base_func_proto) */
	vo.unprivileged = 1;
	log[0] = 0;
	CHECK(kbpf_prog_verify(bad, ARRAY_SIZE(bad), &vo, NULL) < 0);
	CHECK_CONTAINS(log, "program of this type cannot use helper bpf_spin_lock#93");
	kbpf_map_free(maps[0]);
	btf__free(btf);
	kbpf_host_free(host);
}

/* The helpers really lock: a value's counter under its lock, on both engines; the
 * lock word is free after each run, and a lock held by the host makes the program
 * wait (checked from the host side: BPF_F_LOCK copies see consistent values). */
static void test_run(void)
{
	struct kbpf_host *host = linux_host();
	struct btf *btf = mk_btf();
	struct kbpf_map *maps[1];

	CHECK_EQ_U64(mk_map(btf, BPF_MAP_TYPE_ARRAY, 8, 3, 0, &maps[0]), 0);
	const struct bpf_insn insns[] = {
		LOOKUP_KEY0(0),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2),
		BPF_MOV64_IMM(BPF_REG_0, -1),
		BPF_EXIT_INSN(),
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_0),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 4),
		BPF_EMIT_CALL(BPF_FUNC_spin_lock),
		BPF_LDX_MEM(BPF_W, BPF_REG_7, BPF_REG_6, 0),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_7, 1),
		BPF_STX_MEM(BPF_W, BPF_REG_6, BPF_REG_7, 0),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 4),
		BPF_EMIT_CALL(BPF_FUNC_spin_unlock),
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_7),
		BPF_EXIT_INSN(),
	};
	for (int jit = 0; jit < 2; jit++) {
		char log[1024] = "";
		struct kbpf_prog_opts o = { .sz = sizeof(o), .host = host, .prog_type = "syscall", .license = "GPL",
					    .maps = maps, .nr_maps = 1, .jit = jit, .log_buf = log,
					    .log_size = sizeof(log) };
		struct kbpf_prog *p = NULL;
		CHECK_EQ_U64(kbpf_prog_create(insns, ARRAY_SIZE(insns), &o, &p), 0);
		if (!p) {
			fprintf(stderr, "%s\n", log);
			continue;
		}
		CHECK(!jit || kbpf_prog_is_jited(p));
		for (int i = 1; i <= 3; i++) {
			uint64_t r0 = 0;
			CHECK_EQ_U64(kbpf_prog_run(p, NULL, &r0), 0);
			CHECK_EQ_U64(r0, (uint64_t)(jit * 3 + i));
		}
		uint32_t key = 0, *v = kbpf_map_lookup_elem(maps[0], &key);
		CHECK(v && v[1] == 0);
		kbpf_prog_free(p);
	}
	kbpf_map_free(maps[0]);
	btf__free(btf);
	kbpf_host_free(host);
}

/* The loader passes a map's BTF value type (libbpf's BTF_VALUE_TYPE_ID): a clang-built
 * object (tests/bpf/spin_lock.bpf.c) verifies and runs. */
static void test_object(void)
{
	char path[512];
	struct kbpf_object *obj = NULL;
	struct kbpf_host *host = linux_host();
	char log[4096] = "";
	struct kbpf_object_open_opts oo = { .sz = sizeof(oo), .trusted_unverified = 1, .host = host, .log_buf = log, .log_size = sizeof(log) };

	if (!KBPF_TEST_BPF_DIR[0]) {
		printf("SKIP test_object: no clang-built objects\n");
		kbpf_host_free(host);
		return;
	}
	snprintf(path, sizeof(path), "%s/spin_lock.bpf.o", KBPF_TEST_BPF_DIR);
	CHECK_EQ_U64(kbpf_object_open_file(path, &oo, &obj), 0);
	CHECK_EQ_U64(obj ? kbpf_object_load(obj) : -1, 0);
	if (!obj || test_failed_now) {
		fprintf(stderr, "%s\n", log);
		kbpf_object_close(obj);
		kbpf_host_free(host);
		return;
	}
	struct kbpf_map *m = kbpf_object_find_map(obj, "counters");
	CHECK_EQ_U64(kbpf_map_spin_lock_off(m), 4);
	CHECK_EQ_U64(kbpf_map_spin_lock_off(kbpf_object_find_map(obj, "hcounters")), 4);
	const char *progs[] = { "incr", "hash_incr" };
	for (size_t i = 0; i < ARRAY_SIZE(progs); i++) {
		struct kbpf_prog *p = kbpf_program_prog(kbpf_object_find_program(obj, progs[i]));
		uint64_t r0 = 0;
		CHECK(p != NULL);
		for (uint64_t n = 1; p && n <= 2; n++) {
			CHECK_EQ_U64(kbpf_prog_run(p, NULL, &r0), 0);
			CHECK_EQ_U64(r0, n);
		}
	}
	kbpf_object_close(obj);
	kbpf_host_free(host);
}

int main(void)
{
	RUN(test_map_btf);
	RUN(test_sk_storage_value_limit);
	RUN(test_freeze_special_fields);
	RUN(test_host_copies);
	RUN(test_verifier_rules);
	RUN(test_prune_lock_identity);
	RUN(test_run);
	RUN(test_object);
	return test_summary();
}
