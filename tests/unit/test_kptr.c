/* SPDX-License-Identifier: Apache-2.0 */
/* kptrs in map values (docs/maps.md "kptrs", docs/verifier.md): map creation's rules and
 * errors, the host's destructor registry, the verifier's verdicts beyond map_kptr.c's,
 * and the runtime — bpf_kptr_xchg on the interpreter and the JIT, KF_KPTR_GET, and the
 * destructor running exactly once per held object on overwrite, delete and map free.
 * The objects are Linux's test object (hosts/linux/test_kfuncs.c), whose reference
 * count shows every acquire and every destructor call. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include <kbpf/kbpf.h>
#include <kbpf/verifier.h>
#include "test.h"

#ifdef KBPF_TEST_VKFUNC_HOST
#include <kbpf/linux.h>
#include "../../hosts/linux/test_kfuncs.h"

static struct kbpf_host *host;
static char log_buf[65536];

#define N(a) (sizeof(a) / sizeof((a)[0]))

#define K(name) BPF_CALL_KFUNC(0, test_btf_id(host, name, BTF_KIND_FUNC))

static int refs(void)
{
	return __atomic_load_n(&kbpf_linux_test_kfunc_object()->cnt.refs.counter, __ATOMIC_RELAXED);
}

/* A value BTF with Linux 6.12's tags: [1] int, [2] struct prog_test_ref_kfunc, [3]
 * struct prog_test_member, [4] struct prog_test_pass1 (no destructor), tags [5]
 * kptr_untrusted->2, [6] kptr->2, [7] kptr->3, [8] kptr->4, [9] kptr_untrusted->1 (an
 * int), [10] kptr_untrusted on tag 5 (two tags); pointers [11..16] to 5..10; then the
 * value struct the caller adds. */
static struct btf *base_btf(void)
{
	struct btf *b = btf__new_empty();
	int err = 0;

	err |= btf__add_int(b, "int", 4, BTF_INT_SIGNED) != 1;
	err |= btf__add_struct(b, "prog_test_ref_kfunc", 0) != 2;
	err |= btf__add_struct(b, "prog_test_member", 0) != 3;
	err |= btf__add_struct(b, "prog_test_pass1", 0) != 4;
	err |= btf__add_type_tag(b, "kptr_untrusted", 2) != 5;
	err |= btf__add_type_tag(b, "kptr", 2) != 6;
	err |= btf__add_type_tag(b, "kptr", 3) != 7;
	err |= btf__add_type_tag(b, "kptr", 4) != 8;
	err |= btf__add_type_tag(b, "kptr_untrusted", 1) != 9;
	err |= btf__add_type_tag(b, "kptr_untrusted", 5) != 10;
	for (int i = 5; i <= 10; i++)
		err |= btf__add_ptr(b, i) != i + 6;
	if (err) {
		btf__free(b);
		return NULL;
	}
	return b;
}
enum { P_UNREF = 11, P_REF = 12, P_REF_MEMB = 13, P_NO_DTOR = 14, P_INT = 15, P_TWO_TAGS = 16 };

/* Create a map of type with value struct {fields at offs} (size bytes) of base_btf. */
static int make_map(uint32_t type, uint32_t flags, uint32_t size, const int *ptrs, const int *offs, int n,
		    const struct kbpf_host *h, struct kbpf_map **out)
{
	struct btf *b = base_btf();
	char name[8];
	int vid, err;

	CHECK(b);
	if (!b)
		return -ENOMEM;
	vid = btf__add_struct(b, "val", size);
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "p%d", i);
		btf__add_field(b, name, ptrs[i], (uint32_t)offs[i] * 8, 0);
	}
	int key = type == BPF_MAP_TYPE_HASH || type == BPF_MAP_TYPE_PERCPU_HASH || type == BPF_MAP_TYPE_LRU_HASH;
	struct kbpf_map_def def = {
		.sz = sizeof(def), .type = type, .key_size = 4, .value_size = size, .max_entries = 4,
		.map_flags = flags | (key && type != BPF_MAP_TYPE_LRU_HASH ? BPF_F_NO_PREALLOC : 0), .name = "kptrs",
		.btf = b, .btf_key_type_id = 1, .btf_value_type_id = (uint32_t)vid, .host = h,
		.log_buf = log_buf, .log_size = sizeof(log_buf),
	};
	err = kbpf_map_create(&def, out);
	btf__free(b);
	return err;
}

/* struct { T __kptr_untrusted *a; T __kptr *b; M __kptr *c; } at 0, 8, 16 (map_kptr.c's). */
static int std_map(uint32_t type, struct kbpf_map **out)
{
	const int p[] = { P_UNREF, P_REF, P_REF_MEMB }, o[] = { 0, 8, 16 };
	return make_map(type, 0, 24, p, o, 3, host, out);
}

static void test_create(void)
{
	struct kbpf_map *m = NULL;

	CHECK_EQ_U64(std_map(BPF_MAP_TYPE_ARRAY, &m), 0);
	CHECK_EQ_U64(kbpf_map_kptr_cnt(m), 3);
	const struct kbpf_map_kptr *k = kbpf_map_kptr_at(m, 8);
	CHECK(k && k->referenced && k->dtor);
	CHECK_STR(k ? k->type_name : NULL, "prog_test_ref_kfunc");
	CHECK_EQ_U64(k->btf_id, test_btf_id(host, "prog_test_ref_kfunc", BTF_KIND_STRUCT));
	CHECK(kbpf_map_kptr_at(m, 0) && !kbpf_map_kptr_at(m, 0)->referenced);
	CHECK(!kbpf_map_kptr_at(m, 4));
	CHECK(kbpf_map_kptr_host(m) == host);
	/* Linux's map_freeze refuses values with kptrs */
	CHECK_EQ_U64(kbpf_map_freeze(m), -EOPNOTSUPP);
	kbpf_map_free(m);
	/* the types Linux 6.1 allows kptrs in */
	uint32_t ok[] = { BPF_MAP_TYPE_HASH, BPF_MAP_TYPE_LRU_HASH, BPF_MAP_TYPE_PERCPU_ARRAY };
	for (size_t i = 0; i < N(ok); i++) {
		m = NULL;
		CHECK_EQ_U64(std_map(ok[i], &m), 0);
		kbpf_map_free(m);
	}
	CHECK_EQ_U64(std_map(BPF_MAP_TYPE_PERCPU_HASH, &m), -EOPNOTSUPP);
	CHECK_CONTAINS(log_buf, "only in hash, LRU hash, array and per-CPU array maps");
	const int p[] = { P_REF }, o[] = { 0 };
	CHECK_EQ_U64(make_map(BPF_MAP_TYPE_ARRAY, BPF_F_RDONLY_PROG, 8, p, o, 1, host, &m), -EACCES);
}

/* A value struct {int u; T __TAG *p;} with the type tag tag: map creation's result. */
static int tag_map(const char *tag, struct kbpf_map **m)
{
	struct btf *b = btf__new_empty();
	int err = 0;

	CHECK(b);
	if (!b)
		return -ENOMEM;
	err |= btf__add_int(b, "int", 4, BTF_INT_SIGNED) != 1;
	err |= btf__add_struct(b, "prog_test_ref_kfunc", 0) != 2;
	err |= btf__add_type_tag(b, tag, 2) != 3;
	err |= btf__add_ptr(b, 3) != 4;
	err |= btf__add_struct(b, "val", 16) != 5;
	err |= btf__add_field(b, "u", 1, 0, 0);
	err |= btf__add_field(b, "p", 4, 64, 0);
	CHECK(!err);
	struct kbpf_map_def def = {
		.sz = sizeof(def), .type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 16, .max_entries = 1,
		.name = "tagged", .btf = b, .btf_key_type_id = 1, .btf_value_type_id = 5, .host = host,
		.log_buf = log_buf, .log_size = sizeof(log_buf),
	};
	log_buf[0] = 0;
	err = kbpf_map_create(&def, m);
	btf__free(b);
	return err;
}

/* The tags as Linux 6.12 reads them: "kptr" is referenced (6.1: unreferenced), 6.1's
 * "kptr_ref" fails the map (6.12's btf_find_kptr: -EINVAL), "percpu_kptr" too (kbpf has
 * no bpf_percpu_obj_new). */
static void test_create_612_tags(void)
{
	struct kbpf_map *m = NULL;

	CHECK_EQ_U64(tag_map("kptr", &m), 0);
	CHECK(kbpf_map_kptr_at(m, 8) && kbpf_map_kptr_at(m, 8)->referenced);
	kbpf_map_free(m);
	m = NULL;
	CHECK_EQ_U64(tag_map("kptr_ref", &m), -EINVAL);
	CHECK(!m);
	CHECK_CONTAINS(log_buf, "kptr field at offset 8: type tag \"kptr_ref\" is Linux 6.1's");
	CHECK_EQ_U64(tag_map("percpu_kptr", &m), -EINVAL);
	CHECK_CONTAINS(log_buf, "percpu_kptr is not supported");
	/* another tag is no kptr: plain bytes */
	CHECK_EQ_U64(tag_map("user", &m), 0);
	CHECK_EQ_U64(kbpf_map_kptr_cnt(m), 0);
	kbpf_map_free(m);
}

/* Linux 6.12's name of an unreferenced kptr, "kptr_untrusted". */
static void test_create_untrusted_tag(void)
{
	struct kbpf_map *m = NULL;

	CHECK_EQ_U64(tag_map("kptr_untrusted", &m), 0);
	CHECK_EQ_U64(kbpf_map_kptr_cnt(m), 1);
	const struct kbpf_map_kptr *k = kbpf_map_kptr_at(m, 8);
	CHECK(k && !k->referenced);
	CHECK_STR(k ? k->type_name : NULL, "prog_test_ref_kfunc");
	kbpf_map_free(m);
}

/* Maps of maps: no template with kptrs, and no inner map with kptrs in a slot whose
 * template has none (a program would write its slots as plain bytes). */
static void test_map_in_map(void)
{
	struct kbpf_map *kp = NULL, *outer = NULL, *plain = NULL;
	struct kbpf_map_def tdef = { .sz = sizeof(tdef), .type = BPF_MAP_TYPE_ARRAY, .key_size = 4,
				     .value_size = 24, .max_entries = 4, .name = "plain" };
	struct kbpf_map_def odef = { .sz = sizeof(odef), .type = BPF_MAP_TYPE_ARRAY_OF_MAPS, .key_size = 4,
				     .value_size = 4, .max_entries = 1, .name = "outer" };
	uint32_t key = 0;

	CHECK_EQ_U64(std_map(BPF_MAP_TYPE_ARRAY, &kp), 0);
	odef.inner_map = kp;
	CHECK_EQ_U64(kbpf_map_create(&odef, &outer), -EOPNOTSUPP);
	CHECK_EQ_U64(kbpf_map_create(&tdef, &plain), 0);
	odef.inner_map = plain;
	CHECK_EQ_U64(kbpf_map_create(&odef, &outer), 0);
	CHECK_EQ_U64(kbpf_map_update(outer, &key, &plain, BPF_ANY), 0);
	CHECK(kbpf_map_update(outer, &key, &kp, BPF_ANY) < 0);
	kbpf_map_free(outer);
	kbpf_map_free(plain);
	kbpf_map_free(kp);
}

static void test_create_errors(void)
{
	struct kbpf_map *m = NULL;
	const int o0[] = { 0 };

	/* no host to type the field: Linux's vmlinux lookup failing */
	const int ref[] = { P_REF };
	CHECK_EQ_U64(make_map(BPF_MAP_TYPE_ARRAY, 0, 8, ref, o0, 1, NULL, &m), -ENOENT);
	CHECK_CONTAINS(log_buf, "needs a host with BTF");
	/* a referenced type without a destructor */
	const int nod[] = { P_NO_DTOR };
	CHECK_EQ_U64(make_map(BPF_MAP_TYPE_ARRAY, 0, 8, nod, o0, 1, host, &m), -ENOENT);
	CHECK_CONTAINS(log_buf, "kptr field at offset 0: struct prog_test_pass1 has no destructor");
	/* ... which an unreferenced field does not need */
	const int unref_nod[] = { P_UNREF };
	CHECK_EQ_U64(make_map(BPF_MAP_TYPE_ARRAY, 0, 8, unref_nod, o0, 1, host, &m), 0);
	kbpf_map_free(m);
	/* the pointee must be a struct; one tag only */
	const int pint[] = { P_INT }, two[] = { P_TWO_TAGS };
	CHECK_EQ_U64(make_map(BPF_MAP_TYPE_ARRAY, 0, 8, pint, o0, 1, host, &m), -EINVAL);
	CHECK_CONTAINS(log_buf, "must point to a struct");
	CHECK_EQ_U64(make_map(BPF_MAP_TYPE_ARRAY, 0, 8, two, o0, 1, host, &m), -EINVAL);
	CHECK_CONTAINS(log_buf, "more than one type tag");
	/* 8-byte aligned */
	const int mis[] = { 1, P_UNREF }, omis[] = { 0, 4 };
	CHECK_EQ_U64(make_map(BPF_MAP_TYPE_ARRAY, 0, 12, mis, omis, 2, host, &m), -EINVAL);
	CHECK_CONTAINS(log_buf, "not 8-byte aligned");
	/* at most 8 */
	int nine[9], o9[9];
	for (int i = 0; i < 9; i++)
		nine[i] = P_UNREF, o9[i] = 8 * i;
	CHECK_EQ_U64(make_map(BPF_MAP_TYPE_ARRAY, 0, 72, nine, o9, 8, host, &m), 0);
	kbpf_map_free(m);
	CHECK_EQ_U64(make_map(BPF_MAP_TYPE_ARRAY, 0, 72, nine, o9, 9, host, &m), -E2BIG);
	/* a plain value with unaligned members is no kptr business (Linux 6.1 fails its
	 * kptr search on it, quietly) */
	const int ints[] = { 1, 1, 1 }, oi[] = { 0, 4, 8 };
	CHECK_EQ_U64(make_map(BPF_MAP_TYPE_ARRAY, 0, 12, ints, oi, 3, NULL, &m), 0);
	CHECK_EQ_U64(kbpf_map_kptr_cnt(m), 0);
	kbpf_map_free(m);
}

void kptr_test_bad_dtor(struct prog_test_ref_kfunc *p, int x);
void kptr_test_bad_dtor(struct prog_test_ref_kfunc *p, int x)
{
	(void)p, (void)x;
}

static void test_dtor_register(void)
{
	struct kbpf_kptr_dtor bad_proto[] = { KBPF_KPTR_DTOR(prog_test_pass1, kptr_test_bad_dtor) };
	struct kbpf_kptr_dtor no_type[] = { { "no_such_struct", "bpf_kfunc_call_test_release",
					      (kbpf_kfunc_addr)bpf_kfunc_call_test_release } };
	struct kbpf_kptr_dtor again[] = { KBPF_KPTR_DTOR(prog_test_ref_kfunc, bpf_kfunc_call_test_release) };
	struct kbpf_kptr_dtor twice[] = { KBPF_KPTR_DTOR(prog_test_pass2, bpf_kfunc_call_test_release),
					  KBPF_KPTR_DTOR(prog_test_pass2, bpf_kfunc_call_test_release) };
	char l[256];

	CHECK_EQ_U64(kbpf_host_kptr_dtor_register(host, bad_proto, 1, l, sizeof(l)), -EINVAL);
	CHECK_CONTAINS(l, "the prototype must be void f(T *)");
	CHECK_EQ_U64(kbpf_host_kptr_dtor_register(host, no_type, 1, l, sizeof(l)), -EINVAL);
	CHECK_CONTAINS(l, "no struct of that name");
	CHECK_EQ_U64(kbpf_host_kptr_dtor_register(host, again, 1, l, sizeof(l)), -EEXIST);
	CHECK_EQ_U64(kbpf_host_kptr_dtor_register(host, twice, 2, l, sizeof(l)), -EEXIST);
	CHECK_CONTAINS(l, "given twice");
	int id = test_btf_id(host, "prog_test_pass2", BTF_KIND_STRUCT);
	CHECK(!kbpf_host_kptr_dtor(host, (uint32_t)id)); /* nothing of a failed call stays */
	struct kbpf_host *bare = kbpf_host_new();
	CHECK_EQ_U64(kbpf_host_kptr_dtor_register(bare, again, 1, l, sizeof(l)), -ENOENT);
	kbpf_host_free(bare);
}

/* r6 = &value of key 0 (or exit 0) */
#define LOOKUP0()                                                                                       \
	BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0), BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),                      \
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4), BPF_LD_MAP_FD(BPF_REG_1, 0),                        \
		BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),                       \
		BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2), BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN(),       \
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_0)

/* Acquire the test object, swap it into the referenced slot at 8, release what came out. */
static struct bpf_insn xchg_prog[] = {
	LOOKUP0(),
	BPF_ST_MEM(BPF_DW, BPF_REG_10, -16, 0),
	BPF_MOV64_REG(BPF_REG_1, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -16),
	BPF_CALL_KFUNC(0, 0), /* acquire (patched) */
	BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2),
	BPF_MOV64_IMM(BPF_REG_0, 0),
	BPF_EXIT_INSN(),
	BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 8),
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_0),
	BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_kptr_xchg),
	BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 4),
	BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
	BPF_CALL_KFUNC(0, 0), /* release (patched) */
	BPF_MOV64_IMM(BPF_REG_0, 2),
	BPF_EXIT_INSN(),
	BPF_MOV64_IMM(BPF_REG_0, 1),
	BPF_EXIT_INSN(),
};

/* Take a reference through the slot with KF_KPTR_GET, and give it back. */
static struct bpf_insn kptr_get_prog[] = {
	LOOKUP0(),
	BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 8),
	BPF_MOV64_IMM(BPF_REG_2, 0),
	BPF_MOV64_IMM(BPF_REG_3, 0),
	BPF_CALL_KFUNC(0, 0), /* kptr_get (patched) */
	BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 1),
	BPF_EXIT_INSN(),
	BPF_MOV64_REG(BPF_REG_6, BPF_REG_0),
	BPF_LDX_MEM(BPF_W, BPF_REG_7, BPF_REG_0, 0), /* ->a, a trusted load */
	BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
	BPF_CALL_KFUNC(0, 0), /* release (patched) */
	BPF_MOV64_REG(BPF_REG_0, BPF_REG_7),
	BPF_EXIT_INSN(),
};

static void patch_kfuncs(void)
{
	xchg_prog[13].imm = test_btf_id(host, "bpf_kfunc_call_test_acquire", BTF_KIND_FUNC);
	xchg_prog[23].imm = test_btf_id(host, "bpf_kfunc_call_test_release", BTF_KIND_FUNC);
	kptr_get_prog[14].imm = test_btf_id(host, "bpf_kfunc_call_test_kptr_get", BTF_KIND_FUNC);
	kptr_get_prog[20].imm = test_btf_id(host, "bpf_kfunc_call_test_release", BTF_KIND_FUNC);
}

static struct kbpf_prog *load(const struct bpf_insn *insns, size_t n, struct kbpf_map *m, int jit)
{
	struct kbpf_map *maps[1] = { m };
	struct kbpf_prog_opts o = { .sz = sizeof(o), .host = host, .maps = maps, .nr_maps = 1, .jit = jit,
				    .prog_type = "syscall", .license = "GPL", .log_buf = log_buf,
				    .log_size = sizeof(log_buf) };
	struct kbpf_prog *p = NULL;
	int err = kbpf_prog_create(insns, n, &o, &p);

	if (err)
		fprintf(stderr, "create (jit %d): %d\n%s\n", jit, err, log_buf);
	CHECK_EQ_U64(err, 0);
	if (p && jit)
		CHECK_EQ_U64(kbpf_prog_is_jited(p), 1);
	return p;
}

static uint64_t run(struct kbpf_prog *p)
{
	uint64_t r0 = ~0ull;
	CHECK_EQ_U64(kbpf_prog_run(p, NULL, &r0), 0);
	return r0;
}

/* Both engines: the slot takes one reference and keeps exactly one; an update by the host
 * (overwrite), and the map's end, give it to the destructor once. */
static void test_xchg_array(void)
{
	for (int jit = 0; jit <= 1; jit++) {
		struct kbpf_map *m = NULL;
		int base = refs();

		CHECK_EQ_U64(std_map(BPF_MAP_TYPE_ARRAY, &m), 0);
		struct kbpf_prog *p = load(xchg_prog, N(xchg_prog), m, jit);
		struct kbpf_prog *g = load(kptr_get_prog, N(kptr_get_prog), m, jit);
		if (!p || !g) {
			kbpf_prog_free(p);
			kbpf_prog_free(g);
			kbpf_map_free(m);
			continue;
		}
		CHECK_EQ_U64(run(g), 0); /* an empty slot: kptr_get gives NULL */
		CHECK_EQ_U64(run(p), 1); /* the slot was empty */
		CHECK_EQ_U64(refs(), base + 1);
		CHECK_EQ_U64(run(p), 2); /* the old one came out and was released */
		CHECK_EQ_U64(refs(), base + 1);
		CHECK_EQ_U64(run(g), 42); /* through the slot: test object's a */
		CHECK_EQ_U64(refs(), base + 1);
		/* the host never sees the pointer, and cannot write it */
		uint64_t val[3] = { 1, 2, 3 };
		uint32_t key = 0;
		CHECK_EQ_U64(kbpf_map_lookup(m, &key, val), 0);
		CHECK_EQ_U64(val[0] | val[1] | val[2], 0);
		val[1] = 0x1234;
		CHECK_EQ_U64(kbpf_map_update(m, &key, val, BPF_ANY), 0); /* overwrite: destructor */
		CHECK_EQ_U64(refs(), base);
		CHECK_EQ_U64(run(p), 1); /* empty again */
		CHECK_EQ_U64(refs(), base + 1);
		kbpf_prog_free(p);
		kbpf_prog_free(g);
		kbpf_map_free(m); /* the end of the map: destructor */
		CHECK_EQ_U64(refs(), base);
	}
}

/* Threads swapping objects in and out of one slot (half on the JIT) while the host
 * overwrites the value: every reference taken is given back exactly once — by a
 * program's release or by the map's destructor — or the count would drift. */
struct xchg_worker {
	struct kbpf_prog *prog;
	unsigned iters, bad;
};

static void *xchg_thread(void *arg)
{
	struct xchg_worker *w = arg;

	for (unsigned i = 0; i < w->iters; i++) {
		uint64_t r0 = 0;
		if (kbpf_prog_run(w->prog, NULL, &r0) || (r0 != 1 && r0 != 2))
			w->bad++;
	}
	return NULL;
}

static void test_xchg_threads(void)
{
	enum { THREADS = 4, ITERS = 3000 };
	struct kbpf_map *m = NULL;
	struct xchg_worker w[THREADS] = { { 0 } };
	pthread_t t[THREADS];
	int base = refs();
	uint32_t key = 0;
	uint64_t zero[3] = { 0 };

	CHECK_EQ_U64(std_map(BPF_MAP_TYPE_ARRAY, &m), 0);
	for (int i = 0; i < THREADS; i++) {
		w[i].prog = load(xchg_prog, N(xchg_prog), m, i & 1);
		w[i].iters = ITERS;
		if (!w[i].prog)
			goto out;
	}
	for (int i = 0; i < THREADS; i++)
		CHECK_EQ_U64(pthread_create(&t[i], NULL, xchg_thread, &w[i]), 0);
	for (int k = 0; k < 500; k++)
		kbpf_map_update(m, &key, zero, BPF_ANY);
	for (int i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		CHECK_EQ_U64(w[i].bad, 0);
	}
	/* the host's last overwrite may have come before or after the threads' last swap */
	CHECK(refs() == base || refs() == base + 1);
	CHECK(run(w[0].prog) >= 1);
	CHECK_EQ_U64(refs(), base + 1); /* now the slot holds exactly one */
out:
	for (int i = 0; i < THREADS; i++)
		kbpf_prog_free(w[i].prog);
	kbpf_map_free(m);
	CHECK_EQ_U64(refs(), base);
}

/* Reads through untrusted pointers (a loaded kptr, and a pointer read through it) are
 * fault-tolerant loads on both engines: the object's fields while it lives, 0 where the
 * slot points at nothing readable. */
static struct bpf_insn store_unref_prog[] = {
	LOOKUP0(),
	BPF_ST_MEM(BPF_DW, BPF_REG_10, -16, 0),
	BPF_MOV64_REG(BPF_REG_1, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -16),
	BPF_CALL_KFUNC(0, 0), /* acquire (patched) */
	BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 1),
	BPF_EXIT_INSN(),
	BPF_STX_MEM(BPF_DW, BPF_REG_6, BPF_REG_0, 0), /* into the unreferenced slot */
	BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
	BPF_CALL_KFUNC(0, 0), /* release (patched) */
	BPF_MOV64_IMM(BPF_REG_0, 1),
	BPF_EXIT_INSN(),
};

/* r0 = slot0->b + slot0->next->a (0 + ... where unreadable) */
static struct bpf_insn read_unref_prog[] = {
	LOOKUP0(),
	BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_6, 0),
	BPF_JMP_IMM(BPF_JNE, BPF_REG_1, 0, 2),
	BPF_MOV64_IMM(BPF_REG_0, 0),
	BPF_EXIT_INSN(),
	BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, 4),   /* ->b */
	BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, 16), /* ->next: untrusted too */
	BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_2, 0),   /* ->next->a */
	BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_3),
	BPF_EXIT_INSN(),
};

static void test_untrusted_loads(void)
{
	store_unref_prog[13].imm = test_btf_id(host, "bpf_kfunc_call_test_acquire", BTF_KIND_FUNC);
	store_unref_prog[18].imm = test_btf_id(host, "bpf_kfunc_call_test_release", BTF_KIND_FUNC);
	for (int jit = 0; jit <= 1; jit++) {
		struct kbpf_map *m = NULL;
		int base = refs();
		uint32_t key = 0;

		CHECK_EQ_U64(std_map(BPF_MAP_TYPE_ARRAY, &m), 0);
		struct kbpf_prog *st = load(store_unref_prog, N(store_unref_prog), m, jit);
		struct kbpf_prog *rd = load(read_unref_prog, N(read_unref_prog), m, jit);
		if (st && rd) {
			CHECK_EQ_U64(run(rd), 0); /* NULL */
			CHECK_EQ_U64(run(st), 1);
			CHECK_EQ_U64(refs(), base); /* an unreferenced kptr holds no reference */
			CHECK_EQ_U64(run(rd), 108 + 42);
			/* what a stale pointer might point at: nothing mapped, or the end of it */
			void **slot = kbpf_map_lookup_elem(m, &key);
			CHECK(slot);
			if (slot) {
				__atomic_store_n(slot, (void *)(uintptr_t)0x10, __ATOMIC_RELAXED);
				CHECK_EQ_U64(run(rd), 0);
				__atomic_store_n(slot, (void *)(uintptr_t)0xffff800000000000ull, __ATOMIC_RELAXED);
				CHECK_EQ_U64(run(rd), 0);
				__atomic_store_n(slot, NULL, __ATOMIC_RELAXED);
			}
		}
		kbpf_prog_free(st);
		kbpf_prog_free(rd);
		kbpf_map_free(m);
	}
}

/* A hash map: delete and overwrite by a program's update give the object up once. */
static void test_xchg_hash(void)
{
	for (int jit = 0; jit <= 1; jit++) {
		struct kbpf_map *m = NULL;
		int base = refs();
		uint32_t key = 0;
		uint64_t zero[3] = { 0 };

		CHECK_EQ_U64(std_map(BPF_MAP_TYPE_HASH, &m), 0);
		CHECK_EQ_U64(kbpf_map_update(m, &key, zero, BPF_ANY), 0);
		struct kbpf_prog *p = load(xchg_prog, N(xchg_prog), m, jit);
		if (!p) {
			kbpf_map_free(m);
			continue;
		}
		CHECK_EQ_U64(run(p), 1);
		CHECK_EQ_U64(refs(), base + 1);
		CHECK_EQ_U64(kbpf_map_delete(m, &key), 0);
		CHECK_EQ_U64(refs(), base);
		CHECK_EQ_U64(run(p), 0); /* no element */
		CHECK_EQ_U64(kbpf_map_update(m, &key, zero, BPF_NOEXIST), 0); /* a recycled element */
		CHECK_EQ_U64(run(p), 1);
		CHECK_EQ_U64(kbpf_map_update(m, &key, zero, BPF_EXIST), 0); /* replaced in place */
		CHECK_EQ_U64(refs(), base);
		CHECK_EQ_U64(run(p), 1);
		CHECK_EQ_U64(refs(), base + 1);
		kbpf_prog_free(p);
		kbpf_map_free(m);
		CHECK_EQ_U64(refs(), base);
	}
	/* per-CPU array: every CPU's slot is the map's */
	struct kbpf_map *m = NULL;
	int base = refs();
	CHECK_EQ_U64(std_map(BPF_MAP_TYPE_PERCPU_ARRAY, &m), 0);
	struct kbpf_prog *p = load(xchg_prog, N(xchg_prog), m, 0);
	if (p) {
		CHECK_EQ_U64(run(p), 1);
		CHECK_EQ_U64(refs(), base + 1);
	}
	kbpf_prog_free(p);
	kbpf_map_free(m);
	CHECK_EQ_U64(refs(), base);
}

static int verify(const struct bpf_insn *insns, size_t n, struct kbpf_map *m, const char *expect)
{
	struct kbpf_map *maps[1] = { m };
	struct kbpf_verify_opts o = { .sz = sizeof(o), .host = host, .prog_type = "sched_cls", .license = "GPL",
				      .maps = maps, .nr_maps = 1, .log_level = KBPF_LOG_LEVEL1,
				      .log_buf = log_buf, .log_size = sizeof(log_buf) };
	return check_verdict(kbpf_prog_verify(insns, n, &o, NULL), log_buf, expect);
}

static void test_verifier(void)
{
	struct kbpf_map *m = NULL;

	CHECK_EQ_U64(std_map(BPF_MAP_TYPE_ARRAY, &m), 0);
	/* a load through an untrusted pointer: checked as Linux's (here: beyond the struct) */
	struct bpf_insn untrusted[] = {
		LOOKUP0(),
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_6, 0),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 1),
		BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, 4),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	untrusted[12] = BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, 32);
	verify(untrusted, N(untrusted), m, "access beyond struct prog_test_ref_kfunc at off 32 size 4");
	/* no writes through one */
	untrusted[12] = BPF_ST_MEM(BPF_W, BPF_REG_1, 4, 0);
	verify(untrusted, N(untrusted), m, "only read is supported");
	/* loading and NULL-checking is fine; storing an unreferenced kptr back too */
	struct bpf_insn copy[] = {
		LOOKUP0(),
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_6, 0),
		BPF_STX_MEM(BPF_DW, BPF_REG_6, BPF_REG_1, 0),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	verify(copy, N(copy), m, NULL);
	/* ... but not into the referenced slot */
	copy[11] = BPF_STX_MEM(BPF_DW, BPF_REG_6, BPF_REG_1, 8);
	verify(copy, N(copy), m, "store to referenced kptr disallowed");
	/* an atomic on a kptr slot */
	copy[11] = BPF_ATOMIC_OP(BPF_DW, BPF_XCHG, BPF_REG_6, BPF_REG_1, 0);
	verify(copy, N(copy), m, "kptr in map can only be accessed using BPF_MEM instruction mode");
	/* xchg of a maybe-NULL pointer of the wrong type: Linux 6.1 does not look; kbpf does */
	struct bpf_insn wrong[] = {
		LOOKUP0(),
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -16, 0),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -16),
		K("bpf_kfunc_call_test_acquire"),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 16),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_0),
		BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_kptr_xchg),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	verify(wrong, N(wrong), m,
	       "invalid kptr access, R2 type=ptr_or_null_prog_test_ref_kfunc expected=ptr_prog_test_member");
	/* a map of another host */
	struct kbpf_host *other = kbpf_host_new();
	struct bpf_insn nop[] = { BPF_LD_MAP_FD(BPF_REG_1, 0), BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };
	CHECK(other && !kbpf_linux_host_add(other) && !kbpf_host_btf_load_self(other));
	struct kbpf_host *mine = host;
	host = other;
	verify(nop, N(nop), m, "map 'kptrs' has kptr fields typed by another host's BTF");
	host = mine;
	kbpf_host_free(other);
	verify(nop, N(nop), m, NULL);
	kbpf_map_free(m);
}

int main(void)
{
	char err[256] = "";
	host = kbpf_host_new();
	CHECK(host);
	if (!host || kbpf_linux_host_add(host) || kbpf_host_btf_load_self(host) ||
	    kbpf_linux_host_add_test_kfuncs(host, err, sizeof(err))) {
		fprintf(stderr, "test host: %s\n", err);
		return 1;
	}
	patch_kfuncs();
	RUN(test_create);
	RUN(test_create_untrusted_tag);
	RUN(test_create_612_tags);
	RUN(test_create_errors);
	RUN(test_map_in_map);
	RUN(test_dtor_register);
	RUN(test_xchg_array);
	RUN(test_xchg_hash);
	RUN(test_untrusted_loads);
	RUN(test_xchg_threads);
	RUN(test_verifier);
	kbpf_host_free(host);
	return test_summary();
}
#else
int main(void)
{
	printf("test_kptr: no host BTF in this build (pahole missing): skipped\n0 passed, 0 failed\n");
	return 0;
}
#endif
