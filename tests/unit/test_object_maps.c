/* SPDX-License-Identifier: Apache-2.0 */
/* BTF-defined maps of every type from an object (tests/bpf/maps.bpf.c): definitions,
 * what the program leaves in them (seen through the host-side API), the ring buffer's
 * records, a statically initialised program array; checked mode letting a program use
 * the memory of its maps (and only that); kbpf_map_mem_regions. */
#include <errno.h>
#include <string.h>
#include <bpf/btf.h>
#include <kbpf/kbpf.h>
#include "test_object_util.h"

struct pair {
	uint32_t a, b;
};

static void test_map_definitions(void)
{
	struct kbpf_object *obj = load_obj("maps", NULL);
	static const struct {
		const char *name;
		uint32_t type, key, value, max, flags;
	} want[] = {
		{ "array", BPF_MAP_TYPE_ARRAY, 4, 8, 4, 0 },
		{ "hash", BPF_MAP_TYPE_HASH, 4, 8, 16, 0 },
		{ "pcpu_array", BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8, 2, 0 },
		{ "pcpu_hash", BPF_MAP_TYPE_PERCPU_HASH, 4, 8, 8, 0 },
		{ "lru", BPF_MAP_TYPE_LRU_HASH, 8, 8, 8, 0 },
		{ "rb", BPF_MAP_TYPE_RINGBUF, 0, 0, 4096, 0 },
		{ "jmp", BPF_MAP_TYPE_PROG_ARRAY, 4, 4, 2, 0 },
	};
	size_t n = 0;

	if (!obj)
		return;
	for (struct kbpf_map *m = kbpf_object_next_map(obj, NULL); m; m = kbpf_object_next_map(obj, m))
		n++;
	CHECK_EQ_U64(n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct kbpf_map *m = kbpf_object_find_map(obj, want[i].name);
		CHECK(m != NULL);
		if (!m)
			continue;
		CHECK_STR(kbpf_map_name(m), want[i].name);
		CHECK_EQ_U64(kbpf_map_type(m), want[i].type);
		CHECK_EQ_U64(kbpf_map_key_size(m), want[i].key);
		CHECK_EQ_U64(kbpf_map_value_size(m), want[i].value);
		CHECK_EQ_U64(kbpf_map_max_entries(m), want[i].max);
		CHECK_EQ_U64(kbpf_map_flags(m), want[i].flags);
	}
	/* __type() gives BTF ids; __uint(key_size) does not */
	const struct btf *btf = kbpf_object_btf(obj);
	uint32_t vid = kbpf_object_map_btf_value_type_id(obj, kbpf_object_find_map(obj, "hash"));
	CHECK(vid > 0);
	CHECK_STR(btf__name_by_offset(btf, btf__type_by_id(btf, vid)->name_off), "pair");
	CHECK(kbpf_object_map_btf_key_type_id(obj, kbpf_object_find_map(obj, "hash")) > 0);
	CHECK_EQ_U64(kbpf_object_map_btf_key_type_id(obj, kbpf_object_find_map(obj, "pcpu_hash")), 0);
	CHECK(kbpf_object_find_map(obj, "nope") == NULL);
	kbpf_object_close(obj);
}

struct records {
	int n;
	size_t size[4];
	uint64_t first[4];
};

static int collect(void *ctx, void *data, size_t size)
{
	struct records *r = ctx;
	if (r->n < 4) {
		r->size[r->n] = size;
		memcpy(&r->first[r->n], data, 8);
	}
	r->n++;
	return 0;
}

static void check_contents(struct kbpf_object *obj, unsigned runs)
{
	uint32_t k = 1;
	uint64_t k64 = 7, v = 0;
	struct pair pr = { 0 };
	size_t pc_size = kbpf_map_host_value_size(kbpf_object_find_map(obj, "pcpu_array"));
	uint64_t *pc = calloc(1, pc_size), sum = 0;
	struct records rec = { 0 };

	CHECK_EQ_U64(kbpf_map_lookup(kbpf_object_find_map(obj, "array"), &k, &v), 0);
	CHECK_EQ_U64(v, 101);
	CHECK_EQ_U64(kbpf_map_lookup(kbpf_object_find_map(obj, "hash"), &k, &pr), 0);
	CHECK(pr.a == 5 && pr.b == 6);
	CHECK_EQ_U64(kbpf_map_lookup(kbpf_object_find_map(obj, "pcpu_array"), &k, pc), 0);
	for (size_t i = 0; i < pc_size / 8; i++)
		sum += pc[i];
	CHECK_EQ_U64(sum, 3 * runs);
	CHECK_EQ_U64(kbpf_map_lookup(kbpf_object_find_map(obj, "lru"), &k64, &v), 0);
	CHECK_EQ_U64(v, 100);
	CHECK_EQ_U64(kbpf_ringbuf_consume(kbpf_object_find_map(obj, "rb"), collect, &rec), 2);
	CHECK(rec.size[0] == 16 && rec.first[0] == 77);
	CHECK(rec.size[1] == 8 && rec.first[1] == 88);
	free(pc);
}

static void test_program_uses_maps(void)
{
	struct kbpf_object *obj = load_obj("maps", NULL);

	if (!obj)
		return;
	CHECK_EQ_U64(run_prog(obj, "use_maps", NULL, 0), 112);
	check_contents(obj, 1);
	/* checked mode: lookups return pointers into map storage, which the program may use */
	CHECK_EQ_U64(run_prog(obj, "use_maps", NULL, 1), 112);
	check_contents(obj, 2);
	CHECK_EQ_U64(run_prog(obj, "lookup_missing", NULL, 0), 1);
	CHECK_EQ_U64(run_prog(obj, "lookup_missing", NULL, 1), 1);
	/* the program array's static initialiser: slot 1 is tail_target */
	struct kbpf_map *jmp = kbpf_object_find_map(obj, "jmp");
	CHECK(kbpf_prog_array_get(jmp, 0) == NULL);
	CHECK(kbpf_prog_array_get(jmp, 1) == kbpf_program_prog(kbpf_object_find_program(obj, "tail_target")));
	kbpf_object_close(obj);
}

/* A program array slot whose program is not loaded: the load says so. */
static void test_prog_array_init_unloaded(void)
{
	struct kbpf_object *obj = open_obj("maps", NULL);

	if (!obj)
		return;
	kbpf_program_set_autoload(kbpf_object_find_program(obj, "tail_target"), false);
	CHECK_EQ_U64(kbpf_object_load(obj), -EINVAL);
	CHECK_CONTAINS(kbpf_object_log(obj), "map 'jmp': slot 1: program 'tail_target' is not loaded");
	kbpf_object_close(obj);
}

static void test_mem_regions(void)
{
	struct kbpf_object *obj = load_obj("maps", NULL);
	struct kbpf_mem_region r[2];

	if (!obj)
		return;
	struct kbpf_map *array = kbpf_object_find_map(obj, "array");
	/* the storage, then the object's fields programs read as struct bpf_map */
	CHECK_EQ_U64(kbpf_map_mem_regions(array, r, 2), 2);
	CHECK(r[1].base == (void *)array && r[1].flags == KBPF_MEM_READ);
	uint32_t k = 2;
	void *p = kbpf_map_lookup_elem(array, &k);
	CHECK((char *)p >= (char *)r[0].base && (char *)p + 8 <= (char *)r[0].base + r[0].size);
	CHECK_EQ_U64(r[0].flags, KBPF_MEM_READ | KBPF_MEM_WRITE);
	CHECK_STR(r[0].name, "array");
	CHECK_EQ_U64(kbpf_map_mem_regions(array, NULL, 0), 2);
	CHECK_EQ_U64(kbpf_map_mem_regions(kbpf_object_find_map(obj, "jmp"), r, 2), 1);
	CHECK_EQ_U64(kbpf_map_mem_regions(NULL, r, 2), 0);
	struct kbpf_map *pch = kbpf_object_find_map(obj, "pcpu_hash");
	uint64_t *vals = calloc(kbpf_nr_cpus(), 8);
	CHECK_EQ_U64(kbpf_map_update(pch, &k, vals, BPF_ANY), 0);
	for (unsigned cpu = 0; cpu < kbpf_nr_cpus(); cpu++) {
		void *v = kbpf_map_lookup_percpu_elem(pch, &k, cpu);
		CHECK_EQ_U64(kbpf_map_mem_regions(pch, r, 2), 2);
		CHECK(v && (char *)v >= (char *)r[0].base && (char *)v + 8 <= (char *)r[0].base + r[0].size);
	}
	free(vals);
	struct kbpf_map *rb = kbpf_object_find_map(obj, "rb");
	CHECK_EQ_U64(kbpf_map_mem_regions(rb, r, 2), 2);
	void *sample = kbpf_ringbuf_reserve(rb, 64, 0);
	CHECK(sample && (char *)sample >= (char *)r[0].base && (char *)sample + 64 <= (char *)r[0].base + r[0].size);
	if (sample)
		kbpf_ringbuf_discard(sample, 0);
	kbpf_object_close(obj);
}

/* Checked mode still refuses what lies outside the maps: a program given a pointer to
 * host memory that no region covers. */
static void test_checked_outside_maps(void)
{
	struct kbpf_host *host = test_host_new();
	struct kbpf_object *obj = load_obj("globals", host);
	char err[256] = "";
	uint64_t secret = 5;
	struct bpf_insn insns[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 0),
		BPF_EXIT_INSN(),
	};
	struct kbpf_map *maps[1];
	struct kbpf_prog *prog = NULL;

	if (!obj)
		goto out;
	maps[0] = kbpf_object_find_map(obj, ".data");
	struct kbpf_prog_opts po = { .sz = sizeof(po), .trusted_unverified = 1, .host = host, .maps = maps, .nr_maps = 1 };
	CHECK_EQ_U64(kbpf_prog_create(insns, 2, &po, &prog), 0);
	struct kbpf_run_opts ro = { .sz = sizeof(ro), .flags = KBPF_RUN_CHECKED, .err = err, .err_size = sizeof(err) };
	struct kbpf_run_result rr = { .sz = sizeof(rr) };
	ro.args[0] = (uint64_t)(uintptr_t)&secret;
	CHECK_EQ_U64(kbpf_prog_run_opts(prog, &ro, &rr), -EFAULT);
	CHECK_CONTAINS(err, "insn 0: invalid read");
	/* the map's value is fine */
	void *addr;
	CHECK_EQ_U64(kbpf_map_direct_value_addr(maps[0], 0, &addr), 0);
	ro.args[0] = (uint64_t)(uintptr_t)addr;
	CHECK_EQ_U64(kbpf_prog_run_opts(prog, &ro, &rr), 0);
	CHECK_EQ_U64(rr.retval & 0xffffffff, 10);
	/* ... but not one byte past it */
	ro.args[0] = (uint64_t)(uintptr_t)addr + kbpf_map_value_size(maps[0]) - 4;
	CHECK_EQ_U64(kbpf_prog_run_opts(prog, &ro, &rr), -EFAULT);
	kbpf_prog_free(prog);
out:
	kbpf_object_close(obj);
	kbpf_host_free(host);
}

int main(void)
{
	SKIP_WITHOUT_OBJECTS();
	RUN(test_map_definitions);
	RUN(test_program_uses_maps);
	RUN(test_prog_array_init_unloaded);
	RUN(test_mem_regions);
	RUN(test_checked_outside_maps);
	return test_summary();
}
