/* SPDX-License-Identifier: Apache-2.0 */
/* BPF_MAP_TYPE_STACK_TRACE (src/maps/stack_trace.c) and the stack helpers
 * (hosts/linux/src/helpers_stack.c): Linux's creation checks; the host side's lookup,
 * next key and delete; bpf_get_stack's frames are the host's, innermost first (the host
 * function that ran the program shows up, named by dladdr: this test exports its
 * symbols), on the interpreter and the JIT; the skip count drops frames; equal stacks
 * get equal ids, and a different stack in a taken bucket gets -EEXIST unless
 * BPF_F_REUSE_STACKID; Linux's errnos for bad flags. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <linux/bpf.h>
#include <kbpf/verifier.h>
#include "test.h"
#include "test_linux_util.h"

#define NIPS 16

static struct kbpf_map *make_map(uint32_t type, uint32_t key, uint32_t value, uint32_t max, uint32_t flags, int *err)
{
	struct kbpf_map_def def = { .sz = sizeof(def), .type = type, .key_size = key, .value_size = value,
				    .max_entries = max, .map_flags = flags, .name = "m" };
	struct kbpf_map *m = NULL;
	*err = kbpf_map_create(&def, &m);
	return m;
}

static void test_create_checks(void)
{
	int err;
	struct {
		uint32_t key, value, max, flags;
		int err;
	} cases[] = {
		{ 4, 8, 1, 0, 0 },
		{ 4, 127 * 8, 16, 0, 0 },
		{ 4, 128 * 8, 16, 0, -EINVAL },             /* deeper than perf_event_max_stack */
		{ 8, 8, 1, 0, -EINVAL },                    /* key is a u32 id */
		{ 4, 12, 1, 0, -EINVAL },                   /* whole u64s */
		{ 4, 8, 0, 0, -EINVAL },                    /* no entries */
		{ 4, 8, 1, BPF_F_NO_PREALLOC, -EINVAL },    /* not a stack map flag */
		{ 4, 32, 1, BPF_F_STACK_BUILD_ID, 0 },
		{ 4, 40, 1, BPF_F_STACK_BUILD_ID, -EINVAL }, /* whole build-id records */
		{ 4, 8, (1u << 31) + 1, 0, -E2BIG },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct kbpf_map *m = make_map(BPF_MAP_TYPE_STACK_TRACE, cases[i].key, cases[i].value, cases[i].max,
					      cases[i].flags, &err);
		if (err != cases[i].err)
			fprintf(stderr, "case %zu: %d\n", i, err);
		CHECK_EQ_U64(err, cases[i].err);
		kbpf_map_free(m);
	}
}

static void test_host_side(void)
{
	int err;
	struct kbpf_map *m = make_map(BPF_MAP_TYPE_STACK_TRACE, 4, 4 * 8, 3, 0, &err); /* 4 buckets */
	CHECK(m);
	if (!m)
		return;
	uint64_t a[3] = { 0x1000, 0x2000, 0x3000 }, b[3] = { 0x1000, 0x2000, 0x3001 }, v[4];
	uint32_t key, next;
	long id = kbpf_stack_map_get_id(m, a, 3, 0);
	CHECK(id >= 0 && id < 4);
	CHECK_EQ_U64(kbpf_stack_map_get_id(m, a, 3, 0), id); /* the same stack, the same id */
	/* skip 1 of a 4-deep trace: the same three frames */
	uint64_t a4[4] = { 0x9999, 0x1000, 0x2000, 0x3000 };
	CHECK_EQ_U64(kbpf_stack_map_get_id(m, a4, 4, 1), id);
	key = (uint32_t)id;
	CHECK_EQ_U64(kbpf_map_lookup(m, &key, v), 0);
	CHECK_EQ_U64(v[0], 0x1000);
	CHECK_EQ_U64(v[2], 0x3000);
	CHECK_EQ_U64(v[3], 0); /* zero-padded */
	CHECK_EQ_U64(kbpf_map_get_next_key(m, NULL, &next), 0);
	CHECK_EQ_U64(next, id);
	CHECK_EQ_U64(kbpf_map_get_next_key(m, &key, &next), -ENOENT);
	CHECK_EQ_U64(kbpf_map_update(m, &key, v, 0), -EINVAL);
	CHECK_EQ_U64(kbpf_stack_map_get_id(m, a, 3, 3), -EFAULT); /* skipping everything */
	CHECK_EQ_U64(kbpf_stack_map_get_id(m, a, 3, BPF_F_USER_BUILD_ID), -EINVAL);
	/* fill the other buckets until one collides: -EEXIST, then REUSE_STACKID replaces */
	long other = -1;
	for (uint64_t x = 0; x < 64 && other < 0; x++) {
		b[2] = 0x4000 + x;
		long r = kbpf_stack_map_get_id(m, b, 3, 0);
		if (r == -EEXIST) {
			long re = kbpf_stack_map_get_id(m, b, 3, BPF_F_REUSE_STACKID);
			CHECK(re >= 0);
			uint32_t k = (uint32_t)re;
			CHECK_EQ_U64(kbpf_map_lookup(m, &k, v), 0);
			CHECK_EQ_U64(v[2], b[2]);
			other = re;
		} else if (r == -ENOMEM) {
			break; /* 3 buckets for 4 slots: the free list can run out first */
		}
	}
	CHECK(other >= 0);
	key = (uint32_t)other;
	CHECK_EQ_U64(kbpf_map_delete(m, &key), 0);
	CHECK_EQ_U64(kbpf_map_delete(m, &key), -ENOENT);
	key = 4;
	CHECK_EQ_U64(kbpf_map_delete(m, &key), -E2BIG);
	CHECK_EQ_U64(kbpf_map_lookup(m, &key, v), -ENOENT);
	kbpf_map_free(m);
}

/* The program: r0 = bpf_get_stack(ctx, &value[0], NIPS * 8, flags) into the array map
 * (map 0), or with stackid: r0 = bpf_get_stackid(ctx, map 1, flags). */
static struct kbpf_prog *stack_prog(struct kbpf_host *host, struct kbpf_map **maps, int mode, int stackid,
				    uint64_t flags)
{
	int jit = mode > 0;
	struct bpf_insn get_stack[] = {
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_LD_MAP_FD(BPF_REG_1, 0),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2),
		BPF_MOV64_IMM(BPF_REG_0, -1),
		BPF_EXIT_INSN(),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_0),
		BPF_MOV64_IMM(BPF_REG_3, NIPS * 8),
		BPF_MOV64_IMM(BPF_REG_4, (int32_t)flags),
		BPF_EMIT_CALL(BPF_FUNC_get_stack),
		BPF_EXIT_INSN(),
	};
	/* from a subprogram: its frame and the main one's lie between helper and host */
	struct bpf_insn get_stackid[] = {
		BPF_CALL_REL(1),
		BPF_EXIT_INSN(),
		BPF_LD_MAP_FD(BPF_REG_2, 1),
		BPF_MOV64_IMM(BPF_REG_3, (int32_t)flags),
		BPF_EMIT_CALL(BPF_FUNC_get_stackid),
		BPF_EXIT_INSN(),
	};
	char log[1024] = "";
	struct kbpf_prog_opts po = { .sz = sizeof(po), .host = host, .prog_type = "raw_tracepoint", .license = "GPL",
				     .maps = maps, .nr_maps = 2, .jit = jit, .log_buf = log,
				     .log_size = sizeof(log), .harden = mode == 2 ? KBPF_HARDEN_ALL : 0 };
	struct kbpf_prog *p = NULL;
	int err = stackid ? kbpf_prog_create(get_stackid, sizeof(get_stackid) / sizeof(get_stackid[0]), &po, &p)
			  : kbpf_prog_create(get_stack, sizeof(get_stack) / sizeof(get_stack[0]), &po, &p);
	if (err)
		fprintf(stderr, "prog: %d %s\n", err, log);
	return p;
}

/* The host function that runs the program: it must be in the stack the program sees.
 * Exported (the test links with -rdynamic) so that dladdr names it. */
/* Which JIT entry stack_test_runner goes through (docs/jit.md, *Entries*): the run
 * entry (kbpf_prog_run), the ctx entry (kbpf_prog_jited_func), the struct entry
 * (kbpf_prog_run_opts). The entries leave different words above the main function's
 * frame, and the unwinder must find the caller behind each. */
static int runner_entry;

__attribute__((noinline)) int stack_test_runner(const struct kbpf_prog *p, uint64_t *r0)
{
	uint64_t ctx[4] = { 0 };
	int err;

	if (runner_entry == 1 && kbpf_prog_jited_func(p)) {
		struct kbpf_prog_result res = kbpf_prog_jited_func(p)(ctx);
		*r0 = res.retval;
		err = (int)res.err;
	} else if (runner_entry == 2) {
		struct kbpf_run_opts o = { .sz = sizeof(o), .args = { (uint64_t)(uintptr_t)ctx } };
		struct kbpf_run_result res = { .sz = sizeof(res) };
		err = kbpf_prog_run_opts(p, &o, &res);
		*r0 = res.retval;
	} else {
		err = kbpf_prog_run(p, ctx, r0);
	}
	__asm__ __volatile__("" ::: "memory"); /* not a tail call: this frame stays */
	return err;
}

__attribute__((noinline)) int stack_test_outer(const struct kbpf_prog *p, uint64_t *r0)
{
	int err = stack_test_runner(p, r0);
	__asm__ __volatile__("" ::: "memory");
	return err;
}

static int frame_is(uint64_t ip, const char *name)
{
	Dl_info info;
	/* a return address: the call is the byte before it */
	return dladdr((void *)(uintptr_t)(ip - 1), &info) && info.dli_sname && !strcmp(info.dli_sname, name);
}

/* Index of the first frame of name in ips[0..n), or -1. */
static int find_frame(const uint64_t *ips, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (frame_is(ips[i], name))
			return i;
	return -1;
}

static void test_get_stack(void)
{
	struct kbpf_host *host = linux_host();
	int err;
	struct kbpf_map *maps[2] = {
		make_map(BPF_MAP_TYPE_ARRAY, 4, NIPS * 8, 1, 0, &err),
		make_map(BPF_MAP_TYPE_STACK_TRACE, 4, NIPS * 8, 64, 0, &err),
	};
	CHECK(host && maps[0] && maps[1]);
	/* the interpreter, the JIT, the JIT with guarded frames (the unwinder passes through
	 * the program's frames: src/exec/jit_unwind.c) */
	for (int run = 0; run < 9; run++) {
		int jit = run % 3;
		runner_entry = run / 3;
		if (!host || !maps[0] || !maps[1])
			break;
		uint32_t key = 0;
		uint64_t ips[NIPS], skipped[NIPS], r0 = 0;
		/* a fresh stack map: another engine's stacks could take the bucket (-EEXIST) */
		while (!kbpf_map_get_next_key(maps[1], NULL, &key))
			CHECK_EQ_U64(kbpf_map_delete(maps[1], &key), 0);
		key = 0;
		struct kbpf_prog *p = stack_prog(host, maps, jit, 0, 0);
		CHECK(p);
		if (!p)
			continue;
		CHECK_EQ_U64(stack_test_outer(p, &r0), 0);
		CHECK(r0 > 0 && r0 <= NIPS * 8 && r0 % 8 == 0);
		CHECK_EQ_U64(kbpf_map_lookup(maps[0], &key, ips), 0);
		int n = (int)(r0 / 8);
		int runner = find_frame(ips, n, "stack_test_runner"), outer = find_frame(ips, n, "stack_test_outer");
		if (runner < 0 || outer != runner + 1)
			fprintf(stderr, "jit %d entry %d: runner at %d, outer at %d of %d frames\n", jit, runner_entry, runner,
				outer, n);
		CHECK(runner >= 0);
		CHECK_EQ_U64(outer, runner + 1); /* innermost first */
		kbpf_prog_free(p);

		/* skip 1: the same frames, one fewer at the top */
		p = stack_prog(host, maps, jit, 0, 1);
		CHECK(p);
		if (p) {
			CHECK_EQ_U64(stack_test_outer(p, &r0), 0);
			CHECK_EQ_U64(kbpf_map_lookup(maps[0], &key, skipped), 0);
			CHECK_EQ_U64(find_frame(skipped, (int)(r0 / 8), "stack_test_runner"), runner - 1);
			kbpf_prog_free(p);
		}
		/* Linux's errnos: a user build id without a user stack; a skip past the stack */
		p = stack_prog(host, maps, jit, 0, BPF_F_USER_BUILD_ID);
		if (p) {
			CHECK_EQ_U64(stack_test_outer(p, &r0), 0);
			CHECK_EQ_U64((int32_t)r0, -EINVAL);
			kbpf_prog_free(p);
		}
		p = stack_prog(host, maps, jit, 0, 200);
		if (p) {
			CHECK_EQ_U64(stack_test_outer(p, &r0), 0);
			CHECK_EQ_U64((int32_t)r0, -EFAULT);
			kbpf_prog_free(p);
		}

		/* get_stackid: a run from the same place twice gives the same id; the trace is
		 * the one get_stack saw */
		p = stack_prog(host, maps, jit, 1, 0);
		CHECK(p);
		if (p) {
			uint64_t id1 = 0, id2 = 0, ids[2], trace[NIPS];
			for (int k = 0; k < 2; k++) /* one call site: the same stack */
				CHECK_EQ_U64(stack_test_outer(p, &ids[k]), 0);
			id1 = ids[0], id2 = ids[1];
			if ((int64_t)id1 < 0)
				fprintf(stderr, "mode %d: get_stackid %lld\n", jit, (long long)id1);
			CHECK((int64_t)id1 >= 0);
			CHECK_EQ_U64(id1, id2);
			key = (uint32_t)id1;
			CHECK_EQ_U64(kbpf_map_lookup(maps[1], &key, trace), 0);
			int r = find_frame(trace, NIPS, "stack_test_runner");
			CHECK(r >= 0 && find_frame(trace, NIPS, "stack_test_outer") == r + 1);
			/* a program that runs from elsewhere (one frame less) has another stack */
			uint64_t id3 = 0;
			CHECK_EQ_U64(stack_test_runner(p, &id3), 0);
			CHECK(id3 != id1);
			kbpf_prog_free(p);
		}
	}
	kbpf_map_free(maps[0]);
	kbpf_map_free(maps[1]);
	kbpf_host_free(host);
}

/* Programs may not read a stack map (Linux's message), and get_stackid needs one. */
static void test_verifier_rules(void)
{
	struct kbpf_host *host = linux_host();
	int err;
	struct kbpf_map *maps[2] = {
		make_map(BPF_MAP_TYPE_ARRAY, 4, NIPS * 8, 1, 0, &err),
		make_map(BPF_MAP_TYPE_STACK_TRACE, 4, NIPS * 8, 64, 0, &err),
	};
	struct bpf_insn lookup[] = {
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8),
		BPF_LD_MAP_FD(BPF_REG_1, 1),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_EXIT_INSN(),
	};
	struct bpf_insn stackid_array[] = {
		BPF_LD_MAP_FD(BPF_REG_2, 0),
		BPF_MOV64_IMM(BPF_REG_3, 0),
		BPF_EMIT_CALL(BPF_FUNC_get_stackid),
		BPF_EXIT_INSN(),
	};
	char log[4096];
	struct kbpf_verify_opts vo = { .sz = sizeof(vo), .host = host, .prog_type = "raw_tracepoint",
				       .license = "GPL", .maps = maps, .nr_maps = 2, .log_buf = log,
				       .log_size = sizeof(log), .log_level = 1 };
	CHECK(kbpf_prog_verify(lookup, sizeof(lookup) / sizeof(lookup[0]), &vo, NULL) < 0);
	CHECK_CONTAINS(log, "cannot pass map_type 7 into func bpf_map_lookup_elem#1");
	CHECK(kbpf_prog_verify(stackid_array, sizeof(stackid_array) / sizeof(stackid_array[0]), &vo, NULL) < 0);
	CHECK_CONTAINS(log, "cannot pass map_type 2 into func bpf_get_stackid#27");
	kbpf_map_free(maps[0]);
	kbpf_map_free(maps[1]);
	kbpf_host_free(host);
}

int main(void)
{
	RUN(test_create_checks);
	RUN(test_host_side);
	RUN(test_get_stack);
	RUN(test_verifier_rules);
	return test_summary();
}
