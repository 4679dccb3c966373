/* SPDX-License-Identifier: Apache-2.0 */
/* ARRAY_OF_MAPS and HASH_OF_MAPS: Linux's create rules (value_size 4, a template inner
 * map that is no outer map, no prog array, no lock), updates checked as
 * bpf_map_meta_equal, host-side lookups and deletes, references (an inner map outlives
 * the host's kbpf_map_free while an outer map holds it: run under ASan), a verified
 * program doing outer lookup -> inner lookup -> value read on the interpreter (checked
 * too) and the JIT, the verifier's rejections with Linux's messages, and programs
 * reading slots while another thread replaces them. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include "test_verifier_util.h"

static struct kbpf_map *mk(uint32_t type, uint32_t ks, uint32_t vs, uint32_t max, uint32_t flags,
			   struct kbpf_map *inner, int *err)
{
	struct kbpf_map_def d = { .sz = sizeof(d), .type = type, .key_size = ks, .value_size = vs,
				  .max_entries = max, .map_flags = flags, .name = "m", .inner_map = inner };
	struct kbpf_map *m = NULL;

	*err = kbpf_map_create(&d, &m);
	return m;
}

static void test_create_rules(void)
{
	int err;
	struct kbpf_map *tmpl = mk(BPF_MAP_TYPE_ARRAY, 4, 8, 4, 0, NULL, &err);
	struct kbpf_map *outer;

	CHECK_EQ_U64(err, 0);
	outer = mk(BPF_MAP_TYPE_ARRAY_OF_MAPS, 4, 4, 2, 0, tmpl, &err);
	CHECK_EQ_U64(err, 0);
	CHECK(kbpf_map_inner_meta(outer) == tmpl);
	CHECK(kbpf_map_inner_meta(tmpl) == NULL);
	CHECK_EQ_U64(kbpf_map_host_value_size(outer), sizeof(void *));
	/* Linux's rules: value_size 4, a template, no BPF_F_INNER_MAP on the outer map */
	CHECK(!mk(BPF_MAP_TYPE_ARRAY_OF_MAPS, 4, 8, 2, 0, tmpl, &err) && err == -EINVAL);
	CHECK(!mk(BPF_MAP_TYPE_ARRAY_OF_MAPS, 4, 4, 2, 0, NULL, &err) && err == -EINVAL);
	CHECK(!mk(BPF_MAP_TYPE_HASH_OF_MAPS, 4, 4, 2, 0, NULL, &err) && err == -EINVAL);
	CHECK(!mk(BPF_MAP_TYPE_ARRAY_OF_MAPS, 4, 4, 2, BPF_F_INNER_MAP, tmpl, &err) && err == -EINVAL);
	CHECK(!mk(BPF_MAP_TYPE_ARRAY_OF_MAPS, 4, 4, 2, BPF_F_RDONLY_PROG, tmpl, &err) && err == -EINVAL);
	CHECK(!mk(BPF_MAP_TYPE_ARRAY_OF_MAPS, 4, 4, 0, 0, tmpl, &err) && err == -EINVAL);
	/* no second level; inner_map only for outer types */
	CHECK(!mk(BPF_MAP_TYPE_HASH_OF_MAPS, 4, 4, 2, 0, outer, &err) && err == -EINVAL);
	CHECK(!mk(BPF_MAP_TYPE_ARRAY, 4, 4, 2, 0, tmpl, &err) && err == -EINVAL);
	/* a prog array cannot be a template (Linux: no map_meta_equal, ENOTSUPP) */
	struct kbpf_map *pa = mk(BPF_MAP_TYPE_PROG_ARRAY, 4, 4, 2, 0, NULL, &err);
	CHECK(!mk(BPF_MAP_TYPE_ARRAY_OF_MAPS, 4, 4, 2, 0, pa, &err) && err == -EOPNOTSUPP);
	kbpf_map_free(pa);
	/* nor (yet, unlike Linux) a perf event array (docs/maps.md) */
	struct kbpf_map *pea = mk(BPF_MAP_TYPE_PERF_EVENT_ARRAY, 4, 4, 2, 0, NULL, &err);
	CHECK(!mk(BPF_MAP_TYPE_HASH_OF_MAPS, 4, 4, 2, 0, pea, &err) && err == -EOPNOTSUPP);
	kbpf_map_free(pea);
	/* the hash rules for HASH_OF_MAPS */
	struct kbpf_map *h = mk(BPF_MAP_TYPE_HASH_OF_MAPS, 8, 4, 4, BPF_F_NO_PREALLOC, tmpl, &err);
	CHECK_EQ_U64(err, 0);
	CHECK(!mk(BPF_MAP_TYPE_HASH_OF_MAPS, 0, 4, 4, 0, tmpl, &err) && err == -EINVAL);
	kbpf_map_free(h);
	kbpf_map_free(outer);
	kbpf_map_free(tmpl);
}

static void test_update_lookup_delete(void)
{
	int err;
	uint32_t k0 = 0, k1 = 1, k9 = 9;
	struct kbpf_map *tmpl = mk(BPF_MAP_TYPE_ARRAY, 4, 8, 4, 0, NULL, &err);
	struct kbpf_map *same = mk(BPF_MAP_TYPE_ARRAY, 4, 8, 4, 0, NULL, &err);
	struct kbpf_map *bigger = mk(BPF_MAP_TYPE_ARRAY, 4, 8, 8, 0, NULL, &err);
	struct kbpf_map *other_vs = mk(BPF_MAP_TYPE_ARRAY, 4, 16, 4, 0, NULL, &err);
	struct kbpf_map *hash = mk(BPF_MAP_TYPE_HASH, 4, 8, 4, 0, NULL, &err);
	struct kbpf_map *outer = mk(BPF_MAP_TYPE_ARRAY_OF_MAPS, 4, 4, 2, 0, tmpl, &err);
	struct kbpf_map *got = NULL;

	CHECK_EQ_U64(kbpf_map_lookup_inner(outer, &k0, &got), -ENOENT);
	CHECK_EQ_U64(kbpf_map_update_inner(outer, &k0, same, BPF_ANY), 0);
	CHECK_EQ_U64(kbpf_map_update_inner(outer, &k1, tmpl, BPF_ANY), 0);
	CHECK_EQ_U64(kbpf_map_lookup_inner(outer, &k0, &got), 0);
	CHECK(got == same);
	/* bpf(2) style: the value buffer is a map pointer */
	CHECK_EQ_U64(kbpf_map_lookup(outer, &k1, &got), 0);
	CHECK(got == tmpl);
	CHECK(kbpf_map_lookup_elem(outer, &k0) == same);
	CHECK(kbpf_map_lookup_elem(outer, &k9) == NULL);
	/* bpf_map_meta_equal: max_entries of arrays, value_size, type */
	CHECK_EQ_U64(kbpf_map_update_inner(outer, &k0, bigger, BPF_ANY), -EINVAL);
	CHECK_EQ_U64(kbpf_map_update_inner(outer, &k0, other_vs, BPF_ANY), -EINVAL);
	CHECK_EQ_U64(kbpf_map_update_inner(outer, &k0, hash, BPF_ANY), -EINVAL);
	CHECK_EQ_U64(kbpf_map_update_inner(outer, &k0, NULL, BPF_ANY), -EINVAL);
	CHECK_EQ_U64(kbpf_map_update_inner(outer, &k0, same, BPF_NOEXIST), -EINVAL);
	CHECK_EQ_U64(kbpf_map_update_inner(outer, &k9, same, BPF_ANY), -E2BIG);
	CHECK_EQ_U64(kbpf_map_update_inner(hash, &k0, same, BPF_ANY), -EINVAL);
	/* programs cannot write an outer map (the verifier says so first) */
	CHECK_EQ_U64(kbpf_map_update_elem(outer, &k0, &same, BPF_ANY), -EOPNOTSUPP);
	/* delete: empties the slot */
	CHECK_EQ_U64(kbpf_map_delete(outer, &k0), 0);
	CHECK_EQ_U64(kbpf_map_delete(outer, &k0), -ENOENT);
	CHECK_EQ_U64(kbpf_map_delete(outer, &k9), -E2BIG);
	CHECK(kbpf_map_lookup_elem(outer, &k0) == NULL);
	uint32_t next;
	CHECK_EQ_U64(kbpf_map_get_next_key(outer, NULL, &next), 0);
	CHECK_EQ_U64(next, 0);
	CHECK_EQ_U64(kbpf_map_get_next_key(outer, &k1, &next), -ENOENT);

	/* BPF_F_INNER_MAP: any max_entries */
	struct kbpf_map *flex = mk(BPF_MAP_TYPE_ARRAY, 4, 8, 1, BPF_F_INNER_MAP, NULL, &err);
	struct kbpf_map *flex8 = mk(BPF_MAP_TYPE_ARRAY, 4, 8, 8, BPF_F_INNER_MAP, NULL, &err);
	struct kbpf_map *outer2 = mk(BPF_MAP_TYPE_ARRAY_OF_MAPS, 4, 4, 1, 0, flex, &err);
	CHECK_EQ_U64(kbpf_map_update_inner(outer2, &k0, flex8, BPF_ANY), 0);
	CHECK_EQ_U64(kbpf_map_update_inner(outer2, &k0, bigger, BPF_ANY), -EINVAL); /* flags differ */

	/* HASH_OF_MAPS: flags as a hash; hash inner maps of any size */
	struct kbpf_map *h2 = mk(BPF_MAP_TYPE_HASH, 4, 8, 64, 0, NULL, &err);
	struct kbpf_map *houter = mk(BPF_MAP_TYPE_HASH_OF_MAPS, 4, 4, 2, 0, hash, &err);
	CHECK_EQ_U64(err, 0);
	CHECK_EQ_U64(kbpf_map_update_inner(houter, &k9, h2, BPF_EXIST), -ENOENT);
	CHECK_EQ_U64(kbpf_map_update_inner(houter, &k9, h2, BPF_NOEXIST), 0);
	CHECK_EQ_U64(kbpf_map_update_inner(houter, &k9, hash, BPF_NOEXIST), -EEXIST);
	CHECK_EQ_U64(kbpf_map_update_inner(houter, &k9, hash, BPF_EXIST), 0);
	CHECK(kbpf_map_lookup_elem(houter, &k9) == hash);
	CHECK_EQ_U64(kbpf_map_update_inner(houter, &k1, h2, BPF_ANY), 0);
	CHECK_EQ_U64(kbpf_map_update_inner(houter, &k0, h2, BPF_ANY), -E2BIG); /* full */
	CHECK_EQ_U64(kbpf_map_update_inner(houter, &k0, same, BPF_ANY), -EINVAL);
	CHECK_EQ_U64(kbpf_map_delete(houter, &k9), 0);
	CHECK_EQ_U64(kbpf_map_lookup_inner(houter, &k9, &got), -ENOENT);
	CHECK_EQ_U64(kbpf_map_get_next_key(houter, NULL, &next), 0);
	CHECK_EQ_U64(next, 1);

	/* any order of frees: the outer maps hold what they need */
	kbpf_map_free(same);
	kbpf_map_free(tmpl);
	kbpf_map_free(bigger);
	kbpf_map_free(other_vs);
	kbpf_map_free(hash);
	kbpf_map_free(h2);
	kbpf_map_free(flex);
	kbpf_map_free(flex8);
	kbpf_map_free(outer);
	kbpf_map_free(outer2);
	kbpf_map_free(houter);
}

/* An inner map the host has freed stays usable through the outer map (ASan would
 * report a use after free otherwise), even after its slot was replaced. */
static void test_references(void)
{
	int err;
	uint32_t k0 = 0, v = 77, out = 0;
	struct kbpf_map *tmpl = mk(BPF_MAP_TYPE_ARRAY, 4, 4, 1, 0, NULL, &err);
	struct kbpf_map *a = mk(BPF_MAP_TYPE_ARRAY, 4, 4, 1, 0, NULL, &err);
	struct kbpf_map *b = mk(BPF_MAP_TYPE_ARRAY, 4, 4, 1, 0, NULL, &err);
	struct kbpf_map *outer = mk(BPF_MAP_TYPE_ARRAY_OF_MAPS, 4, 4, 1, 0, tmpl, &err);

	kbpf_map_free(tmpl); /* as Linux's create_map_in_map closes the inner fd */
	CHECK_EQ_U64(kbpf_map_update_inner(outer, &k0, a, BPF_ANY), 0);
	CHECK_EQ_U64(kbpf_map_update_inner(outer, &k0, a, BPF_ANY), 0); /* held once */
	kbpf_map_free(a);
	struct kbpf_map *got = kbpf_map_lookup_elem(outer, &k0);
	CHECK_EQ_U64(kbpf_map_update(got, &k0, &v, BPF_ANY), 0);
	/* a program that read the slot before this update may still use a */
	CHECK_EQ_U64(kbpf_map_update_inner(outer, &k0, b, BPF_ANY), 0);
	CHECK_EQ_U64(kbpf_map_lookup(got, &k0, &out), 0);
	CHECK_EQ_U64(out, 77);
	CHECK(kbpf_map_ref(b) == b);
	kbpf_map_free(b);
	CHECK_EQ_U64(kbpf_map_delete(outer, &k0), 0);
	CHECK_EQ_U64(kbpf_map_max_entries(b), 1); /* still ours */
	kbpf_map_free(b);
	kbpf_map_free(outer); /* frees tmpl, a and b */
	CHECK(kbpf_map_ref(NULL) == NULL);
}

/* The program of the test below: inner = outer[0]; v = inner[1]; return v + 1, or 100
 * / 200 when a lookup finds nothing. */
static const struct bpf_insn two_level[] = {
	BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0),
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
	BPF_LD_MAP_FD(BPF_REG_1, 0),
	BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
	BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2),
	BPF_MOV64_IMM(BPF_REG_0, 100),
	BPF_EXIT_INSN(),
	BPF_ST_MEM(BPF_W, BPF_REG_10, -8, 1),
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8),
	BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
	BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
	BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2),
	BPF_MOV64_IMM(BPF_REG_0, 200),
	BPF_EXIT_INSN(),
	BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_0, 0),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 1),
	BPF_EXIT_INSN(),
};

static int create_prog(struct kbpf_map *outer, const struct bpf_insn *insns, size_t cnt, int jit,
		       struct kbpf_prog **prog, char *log, size_t log_size)
{
	struct kbpf_map *maps[1] = { outer };
	struct kbpf_prog_opts po = { .sz = sizeof(po), .host = tv_host, .maps = maps, .nr_maps = 1,
				     .log_buf = log, .log_size = log_size, .prog_type = "t_plain",
				     .license = "GPL", .jit = jit };

	return kbpf_prog_create(insns, cnt, &po, prog);
}

static uint64_t run_checked(struct kbpf_prog *prog, int *rc)
{
	uint64_t ctx[8] = { 0 };
	char err[256] = "";
	struct kbpf_mem_region r = { ctx, sizeof(ctx), KBPF_MEM_READ | KBPF_MEM_WRITE, "ctx" };
	struct kbpf_run_opts ro = { .sz = sizeof(ro), .flags = KBPF_RUN_CHECKED, .regions = &r, .nr_regions = 1,
				    .max_insns = 100000, .err = err, .err_size = sizeof(err) };
	struct kbpf_run_result rr = { .sz = sizeof(rr) };

	ro.args[0] = (uint64_t)(uintptr_t)ctx;
	*rc = kbpf_prog_run_opts(prog, &ro, &rr);
	if (*rc)
		fprintf(stderr, "checked run: %s\n", err);
	return rr.retval;
}

static void run_two_level(uint32_t outer_type)
{
	int err;
	uint32_t k0 = 0, k1 = 1;
	uint64_t v = 41;
	struct kbpf_map *tmpl = mk(BPF_MAP_TYPE_ARRAY, 4, 8, 2, 0, NULL, &err);
	struct kbpf_map *inner = mk(BPF_MAP_TYPE_ARRAY, 4, 8, 2, 0, NULL, &err);
	struct kbpf_map *outer = mk(outer_type, 4, 4, 2, 0, tmpl, &err);
	struct kbpf_prog *interp = NULL, *jit = NULL;
	char log[512] = "";
	uint64_t ctx[8] = { 0 }, r0 = 0;
	int rc;

	CHECK_EQ_U64(kbpf_map_update(inner, &k1, &v, BPF_ANY), 0);
	CHECK_EQ_U64(kbpf_map_update_inner(outer, &k0, inner, BPF_ANY), 0);
	rc = create_prog(outer, two_level, sizeof(two_level) / sizeof(two_level[0]), 0, &interp, log, sizeof(log));
	CHECK_EQ_U64(rc, 0);
	if (rc)
		fprintf(stderr, "%s\n", log);
	rc = create_prog(outer, two_level, sizeof(two_level) / sizeof(two_level[0]), 1, &jit, log, sizeof(log));
	CHECK_EQ_U64(rc, 0);
	if (!interp || !jit)
		goto out;
#if defined(__x86_64__)
	CHECK(kbpf_prog_is_jited(jit));
#endif
	CHECK_EQ_U64(kbpf_prog_run(interp, ctx, &r0), 0);
	CHECK_EQ_U64(r0, 42);
	CHECK_EQ_U64(kbpf_prog_run(jit, ctx, &r0), 0);
	CHECK_EQ_U64(r0, 42);
	/* checked mode: the inner map held when the program was created is declared */
	CHECK_EQ_U64(run_checked(interp, &rc), 42);
	CHECK_EQ_U64(rc, 0);
	/* the host's writes are what the program reads */
	v = 9;
	CHECK_EQ_U64(kbpf_map_update(inner, &k1, &v, BPF_ANY), 0);
	CHECK_EQ_U64(kbpf_prog_run(jit, ctx, &r0), 0);
	CHECK_EQ_U64(r0, 10);
	/* an inner map stored after the program was created: checked mode knows it too */
	struct kbpf_map *later = mk(BPF_MAP_TYPE_ARRAY, 4, 8, 2, 0, NULL, &err);
	v = 99;
	CHECK_EQ_U64(kbpf_map_update(later, &k1, &v, BPF_ANY), 0);
	CHECK_EQ_U64(kbpf_map_update_inner(outer, &k0, later, BPF_ANY), 0);
	kbpf_map_free(later);
	CHECK_EQ_U64(run_checked(interp, &rc), 100);
	CHECK_EQ_U64(rc, 0);
	/* an empty slot */
	CHECK_EQ_U64(kbpf_map_delete(outer, &k0), 0);
	CHECK_EQ_U64(kbpf_prog_run(interp, ctx, &r0), 0);
	CHECK_EQ_U64(r0, 100);
	CHECK_EQ_U64(kbpf_prog_run(jit, ctx, &r0), 0);
	CHECK_EQ_U64(r0, 100);
out:
	kbpf_prog_free(interp);
	kbpf_prog_free(jit);
	kbpf_map_free(outer);
	kbpf_map_free(inner);
	kbpf_map_free(tmpl);
}

static void test_prog_array_of_maps(void)
{
	run_two_level(BPF_MAP_TYPE_ARRAY_OF_MAPS);
}

static void test_prog_hash_of_maps(void)
{
	run_two_level(BPF_MAP_TYPE_HASH_OF_MAPS);
}

/* The verifier: Linux's messages for the misuses of map_in_map.c and more. */
static int verify(struct kbpf_map *outer, const struct bpf_insn *insns, size_t cnt, char *log, size_t size)
{
	struct kbpf_map *maps[1] = { outer };
	struct kbpf_verify_opts o = { .sz = sizeof(o), .host = tv_host, .prog_type = "t_plain", .maps = maps,
				      .nr_maps = 1, .license = "GPL", .log_level = 1, .log_buf = log,
				      .log_size = size };

	return kbpf_prog_verify(insns, cnt, &o, NULL);
}

#define LOOKUP_OUTER                                                   \
	BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0),                          \
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),                          \
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),                         \
	BPF_LD_MAP_FD(BPF_REG_1, 0),                                   \
	BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem)

static void expect_reject(struct kbpf_map *outer, const struct bpf_insn *insns, size_t cnt, const char *msg,
			  int line)
{
	static char log[1 << 14];

	log[0] = 0;
	if (verify(outer, insns, cnt, log, sizeof(log)) >= 0 || !strstr(log, msg)) {
		fprintf(stderr, "line %d: want reject with \"%s\", log:\n%s\n", line, msg, log);
		test_failed_now = 1;
	}
}
#define EXPECT_REJECT(outer, prog, msg) expect_reject(outer, prog, sizeof(prog) / sizeof(prog[0]), msg, __LINE__)

static void test_verifier_rejects(void)
{
	int err;
	struct kbpf_map *tmpl = mk(BPF_MAP_TYPE_ARRAY, 4, 8, 2, 0, NULL, &err);
	struct kbpf_map *outer = mk(BPF_MAP_TYPE_ARRAY_OF_MAPS, 4, 4, 2, 0, tmpl, &err);
	struct kbpf_map *houter = mk(BPF_MAP_TYPE_HASH_OF_MAPS, 4, 4, 2, 0, tmpl, &err);
	char log[4096];

	/* the inner map is read-only memory for programs */
	const struct bpf_insn write_map[] = {
		LOOKUP_OUTER,
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1),
		BPF_ST_MEM(BPF_DW, BPF_REG_0, 8, 0),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	if (kbpf_host_btf(tv_host)) {
		EXPECT_REJECT(outer, write_map, "only read from bpf_array is supported");
		EXPECT_REJECT(houter, write_map, "only read from bpf_array is supported"); /* the template's */
	} else { /* a build without pahole: Linux without CONFIG_DEBUG_INFO_BTF */
		EXPECT_REJECT(outer, write_map, "map_ptr access not supported without CONFIG_DEBUG_INFO_BTF");
	}
	/* no null check */
	const struct bpf_insn no_null[] = {
		LOOKUP_OUTER,
		BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	EXPECT_REJECT(outer, no_null, "R0 invalid mem access 'map_value_or_null'");
	/* arithmetic on the inner map pointer */
	const struct bpf_insn arith[] = {
		LOOKUP_OUTER,
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 8),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	EXPECT_REJECT(outer, arith, "R0 pointer arithmetic on map_ptr prohibited");
	/* programs may not update or delete an outer map (check_map_func_compatibility) */
	const struct bpf_insn del[] = {
		BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_LD_MAP_FD(BPF_REG_1, 0),
		BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_delete_elem),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	EXPECT_REJECT(outer, del, "cannot pass map_type 12 into func bpf_map_delete_elem#3");
	EXPECT_REJECT(houter, del, "cannot pass map_type 13 into func bpf_map_delete_elem#3");
	/* the inner map's key size is the template's: an 8-byte value read past 8 bytes */
	const struct bpf_insn past[] = {
		LOOKUP_OUTER,
		BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1),
		BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_0, 8),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	EXPECT_REJECT(outer, past, "invalid access to map value, value_size=8 off=8 size=8");
	/* ... and the map pointer reads as struct bpf_array (max_entries at 24) */
	const struct bpf_insn read_max[] = {
		LOOKUP_OUTER,
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1),
		BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 24),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	log[0] = 0;
	err = verify(outer, read_max, sizeof(read_max) / sizeof(read_max[0]), log, sizeof(log));
	if (kbpf_host_btf(tv_host))
		CHECK_EQ_U64(err, 0);
	kbpf_map_free(houter);
	kbpf_map_free(outer);
	kbpf_map_free(tmpl);
}

/* Programs on two threads read outer[0] -> inner[0] while the host swaps the slot
 * between two maps and deletes it: each run sees one of them whole (value 1 or 2) or
 * an empty slot; TSan and ASan see no race or stale map. */
struct race {
	struct kbpf_prog *prog;
	atomic_int stop;
	atomic_int bad;
};

static void *race_reader(void *arg)
{
	struct race *r = arg;
	uint64_t ctx[8] = { 0 }, r0;

	while (!atomic_load(&r->stop)) {
		if (kbpf_prog_run(r->prog, ctx, &r0) || (r0 != 2 && r0 != 3 && r0 != 100))
			atomic_store(&r->bad, 1);
	}
	return NULL;
}

static void test_concurrent_swap(void)
{
	int err;
	uint32_t k0 = 0, k1 = 1;
	uint64_t one = 1, two = 2;
	struct kbpf_map *tmpl = mk(BPF_MAP_TYPE_ARRAY, 4, 8, 2, 0, NULL, &err);
	struct kbpf_map *outer = mk(BPF_MAP_TYPE_HASH_OF_MAPS, 4, 4, 4, 0, tmpl, &err);
	struct kbpf_map *in[2] = { mk(BPF_MAP_TYPE_ARRAY, 4, 8, 2, 0, NULL, &err),
				   mk(BPF_MAP_TYPE_ARRAY, 4, 8, 2, 0, NULL, &err) };
	struct race r = { 0 };
	bool host_freed = false;
	char log[256];
	pthread_t th[2];

	kbpf_map_update(in[0], &k1, &one, BPF_ANY);
	kbpf_map_update(in[1], &k1, &two, BPF_ANY);
	if (create_prog(outer, two_level, sizeof(two_level) / sizeof(two_level[0]), 1, &r.prog, log, sizeof(log))) {
		CHECK(0);
		goto out;
	}
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, race_reader, &r);
	for (int i = 0; i < 20000; i++) {
		if (i % 7 == 6)
			kbpf_map_delete(outer, &k0);
		else
			CHECK_EQ_U64(kbpf_map_update_inner(outer, &k0, in[i & 1], BPF_ANY), 0);
		if (i == 100) { /* the host lets go of its own references: the outer map's stay */
			kbpf_map_free(in[0]);
			kbpf_map_free(in[1]);
			host_freed = true;
		}
	}
	atomic_store(&r.stop, 1);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	CHECK(!atomic_load(&r.bad));
	kbpf_prog_free(r.prog);
out:
	kbpf_map_free(outer);
	if (!host_freed) {
		kbpf_map_free(in[0]);
		kbpf_map_free(in[1]);
	}
	kbpf_map_free(tmpl);
}

int main(void)
{
	(void)tv_expect; /* the shared EXPECT macros name tv_maps; these tests have their own */
	tv_setup();
	/* the map pointer reads as the host BTF's struct bpf_array (CMake adds our BTF) */
	kbpf_host_btf_load_self(tv_host);
	RUN(test_create_rules);
	RUN(test_update_lookup_delete);
	RUN(test_references);
	RUN(test_prog_array_of_maps);
	RUN(test_prog_hash_of_maps);
	RUN(test_verifier_rejects);
	RUN(test_concurrent_swap);
	tv_teardown();
	return test_summary();
}
