/* SPDX-License-Identifier: Apache-2.0 */
/* The maps a selftest's fixup_* arrays ask for (verifier-notes §10.3), created with
 * kbpf's map API. Linux patches each listed instruction's imm with a map fd; kbpf has no
 * fds, so the imm becomes the map's index in the table given to the verifier. Maps with
 * bpf_spin_lock / bpf_timer values get test_verifier.c's BTF, as its create_map_spin_lock,
 * create_sk_storage_map and create_map_timer give it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include "selftests.h"

/* btf: the value type id, in test_verifier.c's BTF (test_btf below), Linux gives the
 * map (key: its type 1, int). */
struct map_kind {
	const char *name;
	size_t fixup_off; /* offsetof(struct bpf_test, fixup_…) */
	uint32_t type, key_size, value_size, max_entries, flags;
	uint32_t btf;
};

#define K(field, t, k, v, n, f, btf) { #field, offsetof(struct bpf_test, fixup_##field), t, k, v, n, f, btf }
/* Linux's create order does not matter: each kind is one map. */
static const struct map_kind kinds[] = {
	K(map_hash_8b, BPF_MAP_TYPE_HASH, 8, 8, 1, BPF_F_NO_PREALLOC, 0),
	K(map_hash_48b, BPF_MAP_TYPE_HASH, 8, 48, 1, BPF_F_NO_PREALLOC, 0),
	K(map_hash_16b, BPF_MAP_TYPE_HASH, 8, 16, 1, BPF_F_NO_PREALLOC, 0),
	K(map_array_48b, BPF_MAP_TYPE_ARRAY, 4, 48, 1, 0, 0),
	K(map_sockmap, BPF_MAP_TYPE_SOCKMAP, 4, 4, 1, 0, 0),
	K(map_sockhash, BPF_MAP_TYPE_SOCKHASH, 4, 4, 1, 0, 0),
	K(map_xskmap, BPF_MAP_TYPE_XSKMAP, 4, 4, 1, 0, 0),
	K(map_stacktrace, BPF_MAP_TYPE_STACK_TRACE, 4, 8, 1, 0, 0),
	K(prog1, BPF_MAP_TYPE_PROG_ARRAY, 4, 4, 4, 0, 0),
	K(prog2, BPF_MAP_TYPE_PROG_ARRAY, 4, 4, 8, 0, 0),
	K(map_in_map, BPF_MAP_TYPE_ARRAY_OF_MAPS, 4, 4, 1, 0, 0),
	K(cgroup_storage, BPF_MAP_TYPE_CGROUP_STORAGE, 16, 64, 0, 0, 0),
	K(percpu_cgroup_storage, BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE, 16, 64, 0, 0, 0),
	K(map_spin_lock, BPF_MAP_TYPE_ARRAY, 4, 8, 1, 0, 3),
	K(map_array_ro, BPF_MAP_TYPE_ARRAY, 4, 48, 1, BPF_F_RDONLY_PROG, 0),
	K(map_array_wo, BPF_MAP_TYPE_ARRAY, 4, 48, 1, BPF_F_WRONLY_PROG, 0),
	K(map_array_small, BPF_MAP_TYPE_ARRAY, 4, 1, 1, 0, 0),
	K(sk_storage_map, BPF_MAP_TYPE_SK_STORAGE, 4, 8, 0, BPF_F_NO_PREALLOC, 3),
	K(map_event_output, BPF_MAP_TYPE_PERF_EVENT_ARRAY, 4, 4, 1, 0, 0),
	K(map_reuseport_array, BPF_MAP_TYPE_REUSEPORT_SOCKARRAY, 4, 8, 1, 0, 0),
	K(map_ringbuf, BPF_MAP_TYPE_RINGBUF, 0, 0, 4096, 0, 0),
	K(map_timer, BPF_MAP_TYPE_ARRAY, 4, 16, 1, 0, 5),
	K(map_kptr, BPF_MAP_TYPE_ARRAY, 4, 24, 1, 0, 14),
};

/* test_verifier.c's btf_raw_types, through libbpf's BTF writer: [1] int, [2] struct
 * bpf_spin_lock { int val; }, [3] struct val { int cnt; struct bpf_spin_lock l; },
 * [4] struct bpf_timer {} (16 bytes), [5] struct timer { struct bpf_timer t; }, then the
 * kptr types: [6] struct prog_test_ref_kfunc {}, [7] struct prog_test_member {}, type
 * tags [8] on 6, [9] on 6, [10] on 7, pointers [11..13] to them, and [14] struct btf_ptr
 * of the three (offsets 0, 8, 16): the map's kptr types are looked up by name in the
 * host's BTF, as Linux looks them up in vmlinux. The tags are each version's names of an
 * unreferenced, a referenced, a referenced kptr: 6.1's "kptr", "kptr_ref", "kptr_ref";
 * 6.12's "kptr_untrusted", "kptr", "kptr" (6.12 renamed them). NULL on failure. */
static struct btf *test_btf(void)
{
	struct btf *btf = btf__new_empty();
	int err = 0;

	if (!btf)
		return NULL;
	err |= btf__add_int(btf, "int", 4, BTF_INT_SIGNED) != 1;
	err |= btf__add_struct(btf, "bpf_spin_lock", 4) != 2;
	err |= btf__add_field(btf, "val", 1, 0, 0);
	err |= btf__add_struct(btf, "val", 8) != 3;
	err |= btf__add_field(btf, "cnt", 1, 0, 0);
	err |= btf__add_field(btf, "l", 2, 32, 0);
	err |= btf__add_struct(btf, "bpf_timer", 16) != 4;
	err |= btf__add_struct(btf, "timer", 16) != 5;
	err |= btf__add_field(btf, "t", 4, 0, 0);
	err |= btf__add_struct(btf, "prog_test_ref_kfunc", 0) != 6;
	err |= btf__add_struct(btf, "prog_test_member", 0) != 7;
	const char *unref = ST_LINUX_612() ? "kptr_untrusted" : "kptr", *ref = ST_LINUX_612() ? "kptr" : "kptr_ref";
	err |= btf__add_type_tag(btf, unref, 6) != 8;
	err |= btf__add_type_tag(btf, ref, 6) != 9;
	err |= btf__add_type_tag(btf, ref, 7) != 10;
	err |= btf__add_ptr(btf, 8) != 11;
	err |= btf__add_ptr(btf, 9) != 12;
	err |= btf__add_ptr(btf, 10) != 13;
	err |= btf__add_struct(btf, "btf_ptr", 24) != 14;
	err |= btf__add_field(btf, "ptr", 11, 0, 0);
	err |= btf__add_field(btf, "ptr", 12, 64, 0);
	err |= btf__add_field(btf, "ptr", 13, 128, 0);
	if (err) {
		btf__free(btf);
		return NULL;
	}
	return btf;
}

/* A program for a prog-array slot, unverified (it is trivially safe): r0 = ret, or a
 * tail call into slot idx of the array first. */
static int slot_prog(struct kbpf_host *host, const char *type, struct kbpf_map *array, int tail_idx,
		     int ret, struct kbpf_prog **prog, char *log, size_t log_size)
{
	struct bpf_insn simple[] = { BPF_MOV64_IMM(BPF_REG_0, ret), BPF_EXIT_INSN() };
	struct bpf_insn loop[] = {
		BPF_MOV64_IMM(BPF_REG_3, tail_idx),
		BPF_LD_MAP_FD(BPF_REG_2, 0),
		BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_tail_call),
		BPF_MOV64_IMM(BPF_REG_0, ret),
		BPF_EXIT_INSN(),
	};
	struct kbpf_map *maps[1] = { array };
	struct kbpf_prog_opts opts = { .sz = sizeof(opts), .host = host, .maps = maps, .nr_maps = 1,
				       .prog_type = type, .license = "GPL", .log_buf = log,
				       .log_size = log_size };

	if (tail_idx < 0)
		return kbpf_prog_create(simple, 2, &opts, prog);
	return kbpf_prog_create(loop, sizeof(loop) / sizeof(loop[0]), &opts, prog);
}

/* Linux's prog arrays: slots p1, p2, p3 hold "return 42", "tail call slot p2, return
 * 41" and "return 24". */
static int prog_array_fill(struct kbpf_host *host, const char *type, struct st_maps *m,
			   struct kbpf_map *array, int p1, int p2, int p3, char *log, size_t log_size)
{
	const int keys[3] = { p1, p2, p3 };

	for (int i = 0; i < 3; i++) {
		struct kbpf_prog *p = NULL;
		int err = slot_prog(host, type, array, i == 1 ? p2 : -1, i == 0 ? 42 : i == 1 ? 41 : 24, &p,
				    log, log_size);

		if (err)
			return err;
		m->progs[m->nr_progs++] = p;
		err = kbpf_map_update(array, &keys[i], &p, BPF_ANY);
		if (err)
			return err;
	}
	return 0;
}

/* Create the map of one kind if t's fixups ask for it (*btf: made on first need). */
static int map_create_one(struct kbpf_host *host, const struct bpf_test *t, struct bpf_insn *insns,
			  size_t cnt, struct st_maps *m, const struct map_kind *kind, struct btf **btf,
			  char *why, size_t why_size)
{
	const int *fix = (const int *)((const char *)t + kind->fixup_off);
	struct kbpf_map_def def = {
		.sz = sizeof(def), .type = kind->type, .key_size = kind->key_size,
		.value_size = kind->value_size, .max_entries = kind->max_entries,
		.map_flags = kind->flags, .name = kind->name,
	};
	struct kbpf_map *map = NULL;
	char blog[160] = "";
	int err;

	if (!fix[0])
		return 0;
	if (kind->btf) {
		if (!*btf && !(*btf = test_btf())) {
			snprintf(why, why_size, "fixup_%s: cannot build test_verifier.c's BTF", kind->name);
			return -ENOMEM;
		}
		def.btf = *btf;
		def.btf_key_type_id = 1;
		def.btf_value_type_id = kind->btf;
		def.host = host; /* map_kptr's types are the host's */
		def.log_buf = blog;
		def.log_size = sizeof(blog);
	}
	if (kind->type == BPF_MAP_TYPE_ARRAY_OF_MAPS) {
		/* test_verifier.c's create_map_in_map: the template is a one-int array, whose
		 * fd Linux closes once the outer map holds it (kbpf: the outer map's reference) */
		struct kbpf_map_def idef = { .sz = sizeof(idef), .type = BPF_MAP_TYPE_ARRAY, .key_size = 4,
					     .value_size = 4, .max_entries = 1, .name = "inner" };

		err = kbpf_map_create(&idef, &def.inner_map);
		if (err) {
			snprintf(why, why_size, "fixup_%s: inner array: %s", kind->name, strerror(-err));
			return err;
		}
	}
	err = kbpf_map_create(&def, &map);
	kbpf_map_free(def.inner_map);
	if (err) {
		snprintf(why, why_size, "fixup_%s: map type %u: %s%s%s", kind->name, kind->type,
			 strerror(-err), blog[0] ? ": " : "", blog);
		return err == -EINVAL ? -EOPNOTSUPP : err;
	}
	m->maps[m->nr] = map;
	if (kind->type == BPF_MAP_TYPE_ARRAY && kind->value_size == 48) {
		/* element 0 of the 48-byte arrays: index 28, foo[6] = 0xabcdef12 */
		uint8_t val[48] = { 0 };
		uint32_t key = 0, idx = 28, foo6 = 0xabcdef12;

		memcpy(val, &idx, 4);
		memcpy(val + 4 + 6 * 4, &foo6, 4);
		kbpf_map_update(map, &key, val, BPF_ANY);
	}
	if (kind->type == BPF_MAP_TYPE_PROG_ARRAY) {
		int is2 = kind->max_entries == 8;

		char log[256] = "";

		err = prog_array_fill(host, st_prog_type_name(t->prog_type), m, map, is2 ? 7 : 0,
				      1, 2, log, sizeof(log));
		if (err) {
			m->nr++;
			snprintf(why, why_size, "fixup_%s: cannot fill: %s: %s", kind->name,
				 strerror(-err), log);
			return err;
		}
	}
	for (int i = 0; i < MAX_FIXUPS && fix[i]; i++)
		if ((size_t)fix[i] < cnt)
			insns[fix[i]].imm = (int32_t)m->nr;
	m->nr++;
	return 0;
}

int st_maps_create(struct kbpf_host *host, const struct bpf_test *t, struct bpf_insn *insns,
		   size_t cnt, struct st_maps *m, char *why, size_t why_size)
{
	struct btf *btf = NULL;
	int ret = 0;

	memset(m, 0, sizeof(*m));
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]) && !ret; k++)
		ret = map_create_one(host, t, insns, cnt, m, &kinds[k], &btf, why, why_size);
	btf__free(btf); /* maps keep no reference to it */
	return ret;
}

void st_maps_free(struct st_maps *m)
{
	/* programs first: a prog array does not own its slots */
	for (size_t i = 0; i < m->nr; i++)
		if (kbpf_map_type(m->maps[i]) == BPF_MAP_TYPE_PROG_ARRAY)
			for (uint32_t k = 0; k < kbpf_map_max_entries(m->maps[i]); k++)
				kbpf_map_delete(m->maps[i], &k);
	for (size_t i = 0; i < m->nr_progs; i++)
		kbpf_prog_free(m->progs[i]);
	for (size_t i = 0; i < m->nr; i++)
		kbpf_map_free(m->maps[i]);
	memset(m, 0, sizeof(*m));
}
