/* SPDX-License-Identifier: Apache-2.0 */
/* hosts/linux: the BTF-attached tracing types fentry, fexit and fmod_ret, attached to
 * Linux's test_run functions bpf_fentry_test1..8 and bpf_modify_return_test (this test is
 * their host: it links kbpf_linux_test_kfuncs and carries its own BTF). The context is
 * the attached function's argument array, typed through BTF with Linux's messages;
 * fexit/fmod_ret also see the return value; kbpf_linux_test_run_tracing calls the
 * functions through the trampoline, as Linux's bpf_prog_test_run_tracing does. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <kbpf/kbpf.h>
#include <kbpf/linux.h>
#include <kbpf/verifier.h>
#include "test.h"

/* the host's d_path (hosts/linux/test_fentry.c), an attach target */
char *d_path(const struct path *path, char *buf, int buflen);

static const char *const tracing_types[] = { "fentry", "fexit", "fmod_ret" };

static struct kbpf_host *tracing_host(void)
{
	struct kbpf_host *host = kbpf_host_new();
	if (!host)
		return NULL;
	/* the attach targets are functions of this executable's BTF */
	if (kbpf_linux_host_add(host) || kbpf_host_btf_load_self(host)) {
		kbpf_host_free(host);
		return NULL;
	}
	return host;
}

static uint32_t func_id(const struct kbpf_host *host, const char *name)
{
	const struct btf *btf = kbpf_host_btf(host);
	int id = btf ? btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) : -1;
	return id > 0 ? (uint32_t)id : 0;
}

/* Verify insns as type attached to func; the log in log. */
static int verify(struct kbpf_host *host, const char *type, const char *func, const struct bpf_insn *insns,
		  size_t cnt, char *log, size_t log_size)
{
	struct kbpf_verify_opts o = { .sz = sizeof(o), .host = host, .prog_type = type, .license = "GPL",
				      .log_level = KBPF_LOG_LEVEL1, .log_buf = log, .log_size = log_size,
				      .attach_btf_id = func ? func_id(host, func) : 0 };
	log[0] = 0;
	return kbpf_prog_verify(insns, cnt, &o, NULL);
}

#define VERIFY(type, func, insns) verify(host, type, func, insns, sizeof(insns) / sizeof(insns[0]), log, sizeof(log))

static void test_types(void)
{
	struct kbpf_host *host = tracing_host();
	CHECK(host);
	if (!host)
		return;
	for (size_t i = 0; i < 3; i++) {
		const struct kbpf_prog_type *t = kbpf_host_prog_type_find(host, tracing_types[i]);
		CHECK(t);
		if (!t)
			continue;
		CHECK_EQ_U64(t->linux_type, BPF_PROG_TYPE_TRACING);
		CHECK_EQ_U64(t->load_caps, KBPF_CAP_BPF | KBPF_CAP_PERFMON);
		/* check_return_code: fentry/fexit return 0, fmod_ret anything */
		CHECK_EQ_U64(t->has_ret_range, i < 2);
		CHECK_EQ_U64(t->attach_ret, i == 0 ? 0 : i == 1 ? KBPF_ATTACH_RET_ANY : KBPF_ATTACH_RET_INT);
		/* tracing_prog_func_proto → bpf_tracing_func_proto → bpf_base_func_proto */
		CHECK(t->get_func_proto(t, host, BPF_FUNC_probe_read_kernel) != NULL);
		CHECK(t->get_func_proto(t, host, BPF_FUNC_get_current_pid_tgid) != NULL);
		CHECK(t->get_func_proto(t, host, BPF_FUNC_map_lookup_elem) != NULL);
		CHECK(t->get_func_proto(t, host, BPF_FUNC_skb_load_bytes) == NULL);
	}
	CHECK(func_id(host, "bpf_fentry_test1") && func_id(host, "bpf_fentry_test8") &&
	      func_id(host, "bpf_modify_return_test"));
	kbpf_host_free(host);
}

static void test_ctx(void)
{
	struct kbpf_host *host = tracing_host();
	char log[4096];
	if (!host)
		return;
	/* atomic_fetch_add.c "Can't use ATM_FETCH_ADD on kernel memory" */
	const struct bpf_insn atomic[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, 0),
		BPF_MOV64_IMM(BPF_REG_3, 1),
		BPF_ATOMIC_OP(BPF_DW, BPF_ADD | BPF_FETCH, BPF_REG_2, BPF_REG_3, 0),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(VERIFY("fentry", "bpf_fentry_test7", atomic), (uint64_t)-EACCES);
	CHECK_CONTAINS(log, "func 'bpf_fentry_test7' arg0 has btf_id");
	CHECK_CONTAINS(log, "STRUCT 'bpf_fentry_test_t'");
	CHECK_CONTAINS(log, "only read is supported");
	/* reads through the struct pointer are fine */
	const struct bpf_insn deref[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, 0),
		BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_2, 0),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(VERIFY("fentry", "bpf_fentry_test8", deref), 0);
	/* btf_ctx_access.c: an int * argument reads as a scalar, also narrowly */
	const struct bpf_insn intptr[] = {
		BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, 8),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(VERIFY("fentry", "bpf_modify_return_test", intptr), 0);
	/* the slot after the arguments: fexit and fmod_ret only */
	const struct bpf_insn ret_slot[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 8),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(VERIFY("fentry", "bpf_fentry_test1", ret_slot), (uint64_t)-EACCES);
	CHECK_CONTAINS(log, "func 'bpf_fentry_test1' doesn't have 2-th argument");
	CHECK_EQ_U64(VERIFY("fexit", "bpf_fentry_test1", ret_slot), 0);
	CHECK_EQ_U64(VERIFY("fmod_ret", "bpf_fentry_test1", ret_slot), 0);
	/* and nothing beyond it */
	const struct bpf_insn beyond[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 16),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(VERIFY("fexit", "bpf_fentry_test1", beyond), (uint64_t)-EACCES);
	CHECK_CONTAINS(log, "invalid bpf_context access off=16 size=8");
	/* read-only context; 8-byte aligned slots */
	const struct bpf_insn write[] = {
		BPF_ST_MEM(BPF_DW, BPF_REG_1, 0, 1),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(VERIFY("fentry", "bpf_fentry_test1", write), (uint64_t)-EACCES);
	CHECK_CONTAINS(log, "invalid bpf_context access off=0 size=8");
	const struct bpf_insn stx[] = {
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_STX_MEM(BPF_DW, BPF_REG_1, BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(VERIFY("fentry", "bpf_fentry_test1", stx), (uint64_t)-EACCES);
	CHECK_CONTAINS(log, "invalid bpf_context access off=0 size=8");
	const struct bpf_insn misaligned[] = {
		BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, 12),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(VERIFY("fentry", "bpf_fentry_test2", misaligned), (uint64_t)-EACCES);
	CHECK_CONTAINS(log, "func 'bpf_fentry_test2' offset 12 is not multiple of 8");
	/* fentry/fexit must return 0; fmod_ret returns what replaces the function's value */
	const struct bpf_insn ret1[] = { BPF_MOV64_IMM(BPF_REG_0, 1), BPF_EXIT_INSN() };
	CHECK_EQ_U64(VERIFY("fentry", "bpf_fentry_test1", ret1), (uint64_t)-EINVAL);
	CHECK_CONTAINS(log, "At program exit the register R0 has smin=1 smax=1 should have been in [0, 0]");
	CHECK_EQ_U64(VERIFY("fexit", "bpf_fentry_test1", ret1), (uint64_t)-EINVAL);
	CHECK_EQ_U64(VERIFY("fmod_ret", "bpf_fentry_test1", ret1), 0);
	/* no attach target: no context at all (Linux refuses the load) */
	CHECK_EQ_U64(VERIFY("fentry", NULL, ret_slot), (uint64_t)-EACCES);
	CHECK_CONTAINS(log, "invalid bpf_context access");
	kbpf_host_free(host);
}

/* r6 = the context; r0 = element 0 of map 0 (or NULL) */
#define CTX_MAP0_LOOKUP()                                                                              \
	BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0),                      \
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),           \
		BPF_LD_MAP_FD(BPF_REG_1, 0), BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem)

/* A program that stores ctx[0..2] into an array map, run by the test run attached to fn. */

static void run_recorder(struct kbpf_host *host, const char *type, const char *fn, int attach_type, int jit,
			 uint32_t want_retval, const uint64_t *want)
{
	struct kbpf_map *map = NULL;
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_ARRAY, .key_size = 4,
				    .value_size = 32, .max_entries = 1 };
	CHECK_EQ_U64(kbpf_map_create(&def, &map), 0);
	int fexit = attach_type == BPF_TRACE_FEXIT;
	const struct bpf_insn prog[] = {
		CTX_MAP0_LOOKUP(),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 8),
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_6, 0),
		BPF_STX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 0),
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_6, 8),
		BPF_STX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 8),
		/* fexit on a 2-argument function: the return value */
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_6, fexit ? 16 : 8),
		BPF_STX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 16),
		BPF_MOV64_IMM(BPF_REG_1, 1),
		BPF_STX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 24),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	char log[2048] = "";
	struct kbpf_prog_opts po = { .sz = sizeof(po), .host = host, .prog_type = type, .license = "GPL",
				     .jit = jit, .maps = &map, .nr_maps = 1, .log_buf = log, .log_size = sizeof(log),
				     .attach_btf_id = func_id(host, fn) };
	struct kbpf_prog *p = NULL;
	int r = kbpf_prog_create(prog, sizeof(prog) / sizeof(prog[0]), &po, &p);
	CHECK_EQ_U64(r, 0);
	if (r) {
		fprintf(stderr, "%s\n", log);
		kbpf_map_free(map);
		return;
	}
	uint32_t retval = 0xdead;
	CHECK_EQ_U64(kbpf_linux_test_run_tracing(p, fn, attach_type, &retval), 0);
	CHECK_EQ_U64(retval, want_retval);
	uint32_t key = 0;
	uint64_t v[4] = { 0 };
	CHECK_EQ_U64(kbpf_map_lookup(map, &key, v), 0);
	for (int i = 0; i < 4; i++)
		CHECK_EQ_U64(v[i], want[i]);
	kbpf_prog_free(p);
	kbpf_map_free(map);
}

static void test_run(void)
{
	struct kbpf_host *host = tracing_host();
	if (!host)
		return;
	for (int jit = 0; jit < 2; jit++) {
#if !defined(__x86_64__)
		if (jit)
			break;
#endif
		/* bpf_fentry_test2(2, 3) == 5: fentry sees the arguments, fexit also the result */
		const uint64_t fentry_want[4] = { 2, 3, 3, 1 };
		run_recorder(host, "fentry", "bpf_fentry_test2", BPF_TRACE_FENTRY, jit, 0, fentry_want);
		const uint64_t fexit_want[4] = { 2, 3, 5, 1 };
		run_recorder(host, "fexit", "bpf_fentry_test2", BPF_TRACE_FEXIT, jit, 0, fexit_want);
	}
	/* fmod_ret: a nonzero return replaces the call, so b stays 2 (no side effect) */
	const struct bpf_insn ret7[] = { BPF_MOV64_IMM(BPF_REG_0, 7), BPF_EXIT_INSN() };
	const struct bpf_insn ret0[] = { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };
	struct kbpf_prog_opts po = { .sz = sizeof(po), .host = host, .prog_type = "fmod_ret", .license = "GPL",
				     .attach_btf_id = func_id(host, "bpf_modify_return_test") };
	struct kbpf_prog *p = NULL;
	uint32_t retval = 0;
	CHECK_EQ_U64(kbpf_prog_create(ret7, 2, &po, &p), 0);
	CHECK_EQ_U64(kbpf_linux_test_run_tracing(p, "bpf_modify_return_test", BPF_MODIFY_RETURN, &retval), 0);
	CHECK_EQ_U64(retval, 7);
	kbpf_prog_free(p);
	p = NULL;
	CHECK_EQ_U64(kbpf_prog_create(ret0, 2, &po, &p), 0);
	CHECK_EQ_U64(kbpf_linux_test_run_tracing(p, "bpf_modify_return_test", BPF_MODIFY_RETURN, &retval), 0);
	CHECK_EQ_U64(retval, (1u << 16) | 4); /* the function ran: b became 3, 1 + 3 */
	/* not attached to a function of the run: it never runs, Linux's retval 0 */
	CHECK_EQ_U64(kbpf_linux_test_run_tracing(p, "bpf_fentry_test1", BPF_TRACE_FENTRY, &retval), 0);
	CHECK_EQ_U64(retval, 0);
	CHECK_EQ_U64(kbpf_linux_test_run_tracing(p, "x", BPF_TRACE_ITER, &retval), (uint64_t)-EINVAL);
	kbpf_prog_free(p);
	kbpf_host_free(host);
}

/* 6.12's bpf_fentry_test9(u32 *a), called by the test run with a pointer to 0: fexit
 * on it runs and sees its result (0) after the pointer argument. */
static void test_run_test9(void)
{
	struct kbpf_host *host = tracing_host();
	if (!host)
		return;
	struct kbpf_map *map = NULL;
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_ARRAY, .key_size = 4,
				    .value_size = 16, .max_entries = 1 };
	CHECK_EQ_U64(kbpf_map_create(&def, &map), 0);
	const struct bpf_insn prog[] = {
		CTX_MAP0_LOOKUP(),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 5),
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_6, 8), /* the return value */
		BPF_STX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 0),
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_0, 8),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 1), /* times run */
		BPF_STX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 8),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	char log[2048] = "";
	CHECK(func_id(host, "bpf_fentry_test9") != 0);
	struct kbpf_prog_opts po = { .sz = sizeof(po), .host = host, .prog_type = "fexit", .license = "GPL",
				     .maps = &map, .nr_maps = 1, .log_buf = log, .log_size = sizeof(log),
				     .attach_btf_id = func_id(host, "bpf_fentry_test9") };
	struct kbpf_prog *p = NULL;
	CHECK_EQ_U64(kbpf_prog_create(prog, sizeof(prog) / sizeof(prog[0]), &po, &p), 0);
	uint32_t retval = 0xdead, key = 0;
	uint64_t v[2] = { 7, 0 };
	CHECK_EQ_U64(kbpf_map_update(map, &key, v, 0), 0);
	CHECK_EQ_U64(kbpf_linux_test_run_tracing(p, "bpf_fentry_test9", BPF_TRACE_FEXIT, &retval), 0);
	CHECK_EQ_U64(retval, 0);
	CHECK_EQ_U64(kbpf_map_lookup(map, &key, v), 0);
	CHECK_EQ_U64(v[0], 0);
	CHECK_EQ_U64(v[1], 1);
	kbpf_prog_free(p);
	kbpf_map_free(map);
	kbpf_host_free(host);
}

/* A narrow read of a pointer argument is typed as the pointer (Linux's verdict) and runs
 * as the whole 8-byte load, so the register holds what it is typed as. */
static void test_narrow_pointer_read(void)
{
	struct kbpf_host *host = tracing_host();
	if (!host)
		return;
	/* bpf_fentry_test8(arg): r0 = arg->a, arg read with a 4-byte load */
	const struct bpf_insn narrow[] = {
		BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, 0),
		BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_2, 0),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	struct kbpf_verify_opts o = { .sz = sizeof(o), .host = host, .prog_type = "fentry", .license = "GPL",
				      .attach_btf_id = func_id(host, "bpf_fentry_test8"), .xlated_alloc = 1 };
	struct kbpf_verify_result res = { .sz = sizeof(res) };
	CHECK_EQ_U64(kbpf_prog_verify(narrow, 4, &o, &res), 0);
	CHECK(res.xlated_prog && res.xlated_prog[0].code == (BPF_LDX | BPF_MEM | BPF_DW) && res.xlated_prog[0].off == 0);
	free(res.xlated_prog);
	free(res.xlated_idx);
	/* it runs, the pointer whole (a truncated one would fault), on both engines */
	for (int jit = 0; jit < 2; jit++) {
		struct kbpf_prog_opts po = { .sz = sizeof(po), .host = host, .prog_type = "fentry", .license = "GPL",
					     .attach_btf_id = func_id(host, "bpf_fentry_test8"), .jit = jit };
		struct kbpf_prog *p = NULL;
		uint32_t retval = 1;
		CHECK_EQ_U64(kbpf_prog_create(narrow, 4, &po, &p), 0);
		CHECK_EQ_U64(kbpf_linux_test_run_tracing(p, "bpf_fentry_test8", BPF_TRACE_FENTRY, &retval), 0);
		kbpf_prog_free(p);
	}
	kbpf_host_free(host);
}

/* bpf_d_path: Linux's allowlist of attach targets; the name of the descriptor a struct
 * path holds, as the host's dentry_open hands it to a program. */
static void test_d_path(void)
{
	struct kbpf_host *host = tracing_host();
	char log[4096];
	if (!host)
		return;
	int map_err;
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 72,
				    .max_entries = 1, .name = "buf" };
	struct kbpf_map *map = NULL;
	map_err = kbpf_map_create(&def, &map);
	CHECK_EQ_U64(map_err, 0);
	/* value[64..72) = bpf_d_path(ctx[0], value, 64) (fentry returns 0) */
	const struct bpf_insn prog[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_6, BPF_REG_1, 0),
		BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_LD_MAP_FD(BPF_REG_1, 0),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
		BPF_MOV64_REG(BPF_REG_7, BPF_REG_0),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_0),
		BPF_MOV64_IMM(BPF_REG_3, 64),
		BPF_EMIT_CALL(BPF_FUNC_d_path),
		BPF_STX_MEM(BPF_DW, BPF_REG_7, BPF_REG_0, 64),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	struct kbpf_map *maps[1] = { map };
	const char *targets[] = { "dentry_open", "d_path", "bpf_fentry_test7" };
	for (int i = 0; i < 3; i++) {
		struct kbpf_verify_opts o = { .sz = sizeof(o), .host = host, .prog_type = "fentry", .license = "GPL",
					      .attach_btf_id = func_id(host, targets[i]), .maps = maps, .nr_maps = 1,
					      .log_buf = log, .log_size = sizeof(log) };
		int r = kbpf_prog_verify(prog, sizeof(prog) / sizeof(prog[0]), &o, NULL);
		if (i == 0) {
			CHECK_EQ_U64(r, 0);
		} else if (i == 1) {
			CHECK(r < 0);
			CHECK_CONTAINS(log, "helper call is not allowed in probe");
		} else {
			/* on the allowlist's terms a struct path is needed too */
			CHECK(r < 0);
		}
	}
	/* run as the host would when dentry_open is called: ctx[0] = its struct path */
	char tmpl[] = "/tmp/kbpf-d-path-XXXXXX";
	int fd = mkstemp(tmpl);
	CHECK(fd >= 0);
	struct path path = { .fd = fd };
	for (int jit = 0; fd >= 0 && jit < 2; jit++) {
		struct kbpf_prog_opts po = { .sz = sizeof(po), .host = host, .prog_type = "fentry", .license = "GPL",
					     .attach_btf_id = func_id(host, "dentry_open"), .maps = maps, .nr_maps = 1,
					     .jit = jit, .log_buf = log, .log_size = sizeof(log) };
		struct kbpf_prog *p = NULL;
		CHECK_EQ_U64(kbpf_prog_create(prog, sizeof(prog) / sizeof(prog[0]), &po, &p), 0);
		if (!p) {
			fprintf(stderr, "%s\n", log);
			continue;
		}
		uint64_t ctx[3] = { (uint64_t)(uintptr_t)&path, 0, 0 }, r0 = 0;
		uint32_t key = 0;
		char v[72] = "";
		int64_t ret;
		CHECK_EQ_U64(kbpf_prog_run(p, ctx, &r0), 0);
		CHECK_EQ_U64(kbpf_map_lookup(map, &key, v), 0);
		memcpy(&ret, v + 64, 8);
		CHECK_EQ_U64(ret, strlen(tmpl) + 1);
		CHECK_STR(v, tmpl);
		/* a descriptor that is not open: -EBADF */
		struct path bad = { .fd = 100000 };
		ctx[0] = (uint64_t)(uintptr_t)&bad;
		CHECK_EQ_U64(kbpf_prog_run(p, ctx, &r0), 0);
		CHECK_EQ_U64(kbpf_map_lookup(map, &key, v), 0);
		memcpy(&ret, v + 64, 8);
		CHECK_EQ_U64(ret, -EBADF);
		kbpf_prog_free(p);
	}
	/* the name does not fit: -ENAMETOOLONG */
	char small[4];
	CHECK_EQ_U64(kbpf_linux_path_name(&path, small, sizeof(small)), (uint64_t)-ENAMETOOLONG);
	/* the host's own d_path (the attach target) puts it at the end, as Linux's */
	char big[128];
	char *at = d_path(&path, big, sizeof(big));
	CHECK(at && at + strlen(tmpl) + 1 == big + sizeof(big));
	CHECK_STR(at, tmpl);
	if (fd >= 0) {
		close(fd);
		unlink(tmpl);
	}
	kbpf_map_free(map);
	kbpf_host_free(host);
}

/* Iterators: SEC("iter/task") attaches to bpf_iter_task; the task may be NULL (the last
 * call), so it must be checked before bpf_get_task_stack; the result is 0 or 1. */
static void test_iter(void)
{
	struct kbpf_host *host = tracing_host();
	char log[4096];
	if (!host)
		return;
	/* r0 = task ? bpf_get_task_stack(task, fp - 64, 64, 0) & 0 : 0 */
	const struct bpf_insn checked[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, 8),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_1, 0, 2),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -64),
		BPF_MOV64_IMM(BPF_REG_3, 64),
		BPF_MOV64_IMM(BPF_REG_4, 0),
		BPF_EMIT_CALL(BPF_FUNC_get_task_stack),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	const struct bpf_insn unchecked[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, 8),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -64),
		BPF_MOV64_IMM(BPF_REG_3, 64),
		BPF_MOV64_IMM(BPF_REG_4, 0),
		BPF_EMIT_CALL(BPF_FUNC_get_task_stack),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	const struct bpf_insn ret2[] = { BPF_MOV64_IMM(BPF_REG_0, 2), BPF_EXIT_INSN() };
	CHECK_EQ_U64(VERIFY("iter", "bpf_iter_task", checked), 0);
	CHECK(VERIFY("iter", "bpf_iter_task", unchecked) < 0);
	CHECK_CONTAINS(log, "R1 type=ptr_or_null_ expected=ptr_");
	CHECK(VERIFY("iter", "bpf_iter_task", ret2) < 0);
	CHECK_CONTAINS(log, "should have been in");
	/* the section names the target without its prefix (the loader's rule) */
	CHECK(func_id(host, "bpf_iter_task") != 0);
	/* bpf_get_task_stack verifies but has no run-time implementation in kbpf */
	struct kbpf_prog_opts po = { .sz = sizeof(po), .host = host, .prog_type = "iter", .license = "GPL",
				     .attach_btf_id = func_id(host, "bpf_iter_task"), .log_buf = log,
				     .log_size = sizeof(log) };
	struct kbpf_prog *p = NULL;
	CHECK(kbpf_prog_create(checked, sizeof(checked) / sizeof(checked[0]), &po, &p) < 0);
	CHECK_CONTAINS(log, "unknown helper #141");
	kbpf_host_free(host);
}

/* Linux 6.12's LSM rules (bpf_lsm_verify_prog, bpf_lsm_get_retval_range): a hook returns
 * 0 or -errno, or 0/1 for the bool hooks, compared on R0's lower 32 bits; a void hook
 * anything; the disabled hooks and functions that are no hook refuse the program. */
static void test_lsm(void)
{
	struct kbpf_host *host = tracing_host();
	char log[4096];
	if (!host)
		return;
#define RET(v) ((const struct bpf_insn[]){ BPF_MOV64_IMM(BPF_REG_0, v), BPF_EXIT_INSN() })
#define LSM(func, v) verify(host, "lsm", func, RET(v), 2, log, sizeof(log))
	CHECK_EQ_U64(LSM("bpf_lsm_file_alloc_security", 0), 0);
	CHECK_EQ_U64(LSM("bpf_lsm_file_alloc_security", -4095), 0);
	CHECK_EQ_U64(LSM("bpf_lsm_file_mprotect", -4096), (uint64_t)-EINVAL);
	CHECK_CONTAINS(log, "At program exit the register R0 has smin=-4096 smax=-4096 should have been in [-4095, 0]");
	CHECK_EQ_U64(LSM("bpf_lsm_file_mprotect", 1), (uint64_t)-EINVAL);
	CHECK_CONTAINS(log, "R0 has smin=1 smax=1 should have been in [-4095, 0]");
	CHECK_EQ_U64(LSM("bpf_lsm_bpf", 4096), (uint64_t)-EINVAL);
	CHECK_CONTAINS(log, "R0 has smin=4096 smax=4096 should have been in [-4095, 0]");
	/* a bool hook */
	CHECK_EQ_U64(LSM("bpf_lsm_audit_rule_known", 1), 0);
	CHECK_EQ_U64(LSM("bpf_lsm_audit_rule_known", 2), (uint64_t)-EINVAL);
	CHECK_CONTAINS(log, "R0 has smin=2 smax=2 should have been in [0, 1]");
	CHECK_EQ_U64(LSM("bpf_lsm_audit_rule_known", -1), (uint64_t)-EINVAL);
	CHECK_CONTAINS(log, "R0 has smin=-1 smax=-1 should have been in [0, 1]");
	/* a void hook: any value, or none */
	CHECK_EQ_U64(LSM("bpf_lsm_file_free_security", 4096), 0);
	const struct bpf_insn no_r0[] = { BPF_EXIT_INSN() };
	CHECK_EQ_U64(VERIFY("lsm", "bpf_lsm_file_free_security", no_r0), 0);
	/* return_32bit: only the lower 32 bits count (1 << 32 is 0 to an int hook) */
	const struct bpf_insn upper[] = { BPF_LD_IMM64(BPF_REG_0, 1ull << 32), BPF_EXIT_INSN() };
	CHECK_EQ_U64(VERIFY("lsm", "bpf_lsm_file_mprotect", upper), 0);
	/* an unknown scalar is refused */
	const struct bpf_insn unknown[] = {
		BPF_EMIT_CALL(BPF_FUNC_get_prandom_u32),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(VERIFY("lsm", "bpf_lsm_file_mprotect", unknown), (uint64_t)-EINVAL);
	CHECK_CONTAINS(log, "should have been in [-4095, 0]");
	/* disabled hooks, and functions that are no hook */
	static const char *const disabled[] = { "bpf_lsm_getprocattr", "bpf_lsm_setprocattr", "bpf_lsm_ismaclabel" };
	for (size_t i = 0; i < 3; i++) {
		CHECK(func_id(host, disabled[i]) != 0);
		CHECK_EQ_U64(LSM(disabled[i], 0), (uint64_t)-EINVAL);
		CHECK_CONTAINS(log, "points to disabled hook");
		CHECK_CONTAINS(log, disabled[i]);
	}
	CHECK_EQ_U64(LSM("bpf_fentry_test1", 0), (uint64_t)-EINVAL);
	CHECK_CONTAINS(log, "points to wrong type name bpf_fentry_test1");
	/* fentry's own rule is untouched: [0, 0] on all 64 bits */
	CHECK_EQ_U64(verify(host, "fentry", "bpf_fentry_test1", RET(0), 2, log, sizeof(log)), 0);
	CHECK_EQ_U64(verify(host, "fentry", "bpf_fentry_test1", RET(-1), 2, log, sizeof(log)), (uint64_t)-EINVAL);
#undef LSM
#undef RET
	kbpf_host_free(host);
}

/* The test host's struct nf_hook_state (test_fentry.c): a netfilter program reads its
 * context's state pointer, and returning it is refused as 6.12 refuses it
 * (verifier_netfilter_retcode test1). */
static void test_netfilter_state(void)
{
	struct kbpf_host *host = tracing_host();
	char log[4096];
	if (!host)
		return;
	const struct bpf_insn ret_state[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 0),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(VERIFY("netfilter", NULL, ret_state), (uint64_t)-EINVAL);
	CHECK_CONTAINS(log, "At program exit the register R0 is not a known value (");
	CHECK_CONTAINS(log, "nf_hook_state");
	const struct bpf_insn read_pf[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, 0),
		BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_1, 1), /* pf */
		BPF_ALU64_IMM(BPF_AND, BPF_REG_0, 1),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(VERIFY("netfilter", NULL, read_pf), 0);
	kbpf_host_free(host);
}

int main(void)
{
	RUN(test_types);
	RUN(test_ctx);
	RUN(test_run);
	RUN(test_run_test9);
	RUN(test_narrow_pointer_read);
	RUN(test_d_path);
	RUN(test_iter);
	RUN(test_lsm);
	RUN(test_netfilter_state);
	return test_summary();
}
