/* SPDX-License-Identifier: Apache-2.0 */
/* Maps of maps from clang's object (tests/bpf/map_in_map.bpf.c), as libbpf loads them:
 * the outer maps with their `__array(values, struct inner)` templates, the statically
 * set slots (`.values = { [i] = &map }`), and a verified program reading outer ->
 * inner -> value on the interpreter (fast and checked) and the JIT, with the host
 * swapping inner maps between runs. */
#include <errno.h>
#include <string.h>
#include <kbpf/kbpf.h>
#include <kbpf/linux.h>
#include "test.h"
#include "test_object_util.h"

static struct kbpf_host *host; /* Linux's program types (syscall) and helpers */

static struct kbpf_object *load_linux(const char *name, int jit)
{
	struct kbpf_object_open_opts opts = {
		.sz = sizeof(opts), .trusted_unverified = 1, .host = host, .jit = jit, .log_buf = test_log, .log_size = sizeof(test_log),
	};
	struct kbpf_object *obj = NULL;

	if (kbpf_object_open_file(bpf_obj(name), &opts, &obj)) {
		fprintf(stderr, "open %s: %s\n", name, test_log);
		test_failed_now = 1;
		return NULL;
	}
	if (kbpf_object_load(obj)) {
		fprintf(stderr, "load %s (jit %d): %s\n", name, jit, test_log);
		test_failed_now = 1;
		kbpf_object_close(obj);
		return NULL;
	}
	return obj;
}

/* run_prog with the u32 context declared to checked mode. */
static uint64_t run_u32(struct kbpf_object *obj, const char *name, uint32_t *ctx, int checked)
{
	struct kbpf_program *p = kbpf_object_find_program(obj, name);
	struct kbpf_mem_region r = { ctx, sizeof(*ctx), KBPF_MEM_READ | KBPF_MEM_WRITE, "ctx" };
	char err[256] = "";
	struct kbpf_run_opts ro = {
		.sz = sizeof(ro), .args = { (uint64_t)(uintptr_t)ctx }, .flags = checked ? KBPF_RUN_CHECKED : 0,
		.regions = &r, .nr_regions = 1, .err = err, .err_size = sizeof(err),
	};
	struct kbpf_run_result rr = { .sz = sizeof(rr) };
	int ret = p && kbpf_program_prog(p) ? kbpf_prog_run_opts(kbpf_program_prog(p), &ro, &rr) : -ENOENT;

	if (ret) {
		fprintf(stderr, "run %s: %d: %s\n", name, ret, err);
		test_failed_now = 1;
		return UINT64_MAX;
	}
	return rr.retval;
}

static void test_definitions(void)
{
	struct kbpf_object *obj = load_linux("map_in_map", 0);
	struct kbpf_map *arr, *hash, *a, *b, *got = NULL;
	uint32_t k;

	if (!obj)
		return;
	arr = kbpf_object_find_map(obj, "outer_arr");
	hash = kbpf_object_find_map(obj, "outer_hash");
	a = kbpf_object_find_map(obj, "inner_a");
	b = kbpf_object_find_map(obj, "inner_b");
	CHECK(arr && hash && a && b);
	if (!arr || !hash || !a || !b)
		goto out;
	/* the templates are not maps of the object: 4 maps */
	size_t n = 0;
	for (struct kbpf_map *m = kbpf_object_next_map(obj, NULL); m; m = kbpf_object_next_map(obj, m))
		n++;
	CHECK_EQ_U64(n, 4);
	CHECK_EQ_U64(kbpf_map_type(arr), BPF_MAP_TYPE_ARRAY_OF_MAPS);
	CHECK_EQ_U64(kbpf_map_value_size(arr), 4);
	CHECK_EQ_U64(kbpf_map_max_entries(arr), 4);
	CHECK_STR(kbpf_map_name(kbpf_map_inner_meta(arr)), "outer_arr.inner");
	CHECK_EQ_U64(kbpf_map_max_entries(kbpf_map_inner_meta(arr)), 2);
	CHECK_EQ_U64(kbpf_map_type(hash), BPF_MAP_TYPE_HASH_OF_MAPS);
	CHECK_EQ_U64(kbpf_map_type(kbpf_map_inner_meta(hash)), BPF_MAP_TYPE_HASH);
	CHECK_EQ_U64(kbpf_map_value_size(kbpf_map_inner_meta(hash)), 4);
	/* .values = { [0] = &inner_a, [2] = &inner_b } */
	k = 0;
	CHECK_EQ_U64(kbpf_map_lookup_inner(arr, &k, &got), 0);
	CHECK(got == a);
	k = 1;
	CHECK_EQ_U64(kbpf_map_lookup_inner(arr, &k, &got), -ENOENT);
	k = 2;
	CHECK_EQ_U64(kbpf_map_lookup_inner(arr, &k, &got), 0);
	CHECK(got == b);
out:
	kbpf_object_close(obj);
}

static void test_two_level_runs(void)
{
	for (int jit = 0; jit <= 1; jit++) {
		struct kbpf_object *obj = load_linux("map_in_map", jit);
		struct kbpf_map *arr, *a, *b;
		uint32_t k1 = 1, k0 = 0, slot;
		uint64_t v, seen;

		if (!obj)
			continue;
		arr = kbpf_object_find_map(obj, "outer_arr");
		a = kbpf_object_find_map(obj, "inner_a");
		b = kbpf_object_find_map(obj, "inner_b");
		v = 10;
		kbpf_map_update(a, &k1, &v, BPF_ANY);
		v = 20;
		kbpf_map_update(b, &k1, &v, BPF_ANY);
		for (int checked = 0; checked <= !jit; checked++) {
			slot = 0;
			CHECK_EQ_U64(run_u32(obj, "two_level", &slot, checked), 11);
			slot = 2;
			CHECK_EQ_U64(run_u32(obj, "two_level", &slot, checked), 21);
			CHECK_EQ_U64(kbpf_map_lookup(b, &k0, &seen), 0);
			CHECK_EQ_U64(seen, 2); /* the program wrote into inner_b */
			slot = 1;
			CHECK_EQ_U64(run_u32(obj, "two_level", &slot, checked), 0);
			slot = 9;
			CHECK_EQ_U64(run_u32(obj, "two_level", &slot, checked), 0);
		}
		/* the host moves inner_a to slot 1 */
		CHECK_EQ_U64(kbpf_map_update_inner(arr, &k1, a, BPF_ANY), 0);
		slot = 1;
		CHECK_EQ_U64(run_u32(obj, "two_level", &slot, 0), 11);
		if (jit)
			CHECK(kbpf_prog_is_jited(kbpf_program_prog(kbpf_object_find_program(obj, "two_level"))));
		kbpf_object_close(obj);
	}
}

/* A hash of maps filled by the host: an inner map the host made itself, then freed. */
static void test_hash_of_maps(void)
{
	struct kbpf_object *obj = load_linux("map_in_map", 1);
	struct kbpf_map *outer, *inner = NULL;
	uint32_t k7 = 7, ctx = 0, v = 0;

	if (!obj)
		return;
	outer = kbpf_object_find_map(obj, "outer_hash");
	CHECK_EQ_U64(run_u32(obj, "count", &ctx, 0), (uint32_t)-1);
	struct kbpf_map_def d = { .sz = sizeof(d), .type = BPF_MAP_TYPE_HASH, .key_size = 4, .value_size = 4,
				  .max_entries = 99, .name = "mine" };
	CHECK_EQ_U64(kbpf_map_create(&d, &inner), 0);
	CHECK_EQ_U64(kbpf_map_update_inner(outer, &k7, inner, BPF_NOEXIST), 0);
	kbpf_map_free(inner); /* the outer map's reference keeps it */
	CHECK_EQ_U64(run_u32(obj, "count", &ctx, 0), 1);
	CHECK_EQ_U64(run_u32(obj, "count", &ctx, 0), 2);
	/* checked mode knows the inner maps an outer map holds at each run */
	CHECK_EQ_U64(run_u32(obj, "count", &ctx, 1), 3);
	CHECK_EQ_U64(kbpf_map_lookup(inner, &k7, &v), 0);
	CHECK_EQ_U64(v, 3);
	/* a map that does not match the template (value size) */
	struct kbpf_map_def bad = d;
	bad.value_size = 8;
	struct kbpf_map *wrong = NULL;
	CHECK_EQ_U64(kbpf_map_create(&bad, &wrong), 0);
	CHECK_EQ_U64(kbpf_map_update_inner(outer, &k7, wrong, BPF_ANY), -EINVAL);
	kbpf_map_free(wrong);
	kbpf_object_close(obj);
}

int main(void)
{
	SKIP_WITHOUT_OBJECTS();
	host = kbpf_host_new();
	if (!host || kbpf_linux_host_add(host)) {
		printf("cannot make the Linux host\n");
		return 1;
	}
	RUN(test_definitions);
	RUN(test_two_level_runs);
	RUN(test_hash_of_maps);
	kbpf_host_free(host);
	return test_summary();
}
