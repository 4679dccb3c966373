/* SPDX-License-Identifier: Apache-2.0 */
/* Kfunc sets: registration against the host BTF (this test binary's own, from
 * kbpf_add_host_btf; functions in tests/host/kfunc_funcs.c), the prototypes it refuses,
 * duplicates, deny by default with filters and check callbacks, the function model,
 * pinning by programs, -EBUSY / waiting unregister, -ENXIO for a create racing an
 * unregister, and threads doing all of it at once. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/btf.h>
#include <kbpf/kbpf.h>
#include "test.h"

#ifdef KBPF_TEST_KFUNC_HOST
#include "host/kfunc_internal.h"
#include "kfunc_funcs.h"

static struct kbpf_host *host_new(void)
{
	struct kbpf_host *h = kbpf_host_new();
	if (h && kbpf_host_btf_load_self(h)) {
		kbpf_host_free(h);
		return NULL;
	}
	return h;
}

static const char *const tc_only[] = { "tc", NULL };
static const char *const tc_and_syscall[] = { "tc", "syscall", NULL };

/* Register one function; returns the errno, log in log. */
static int register_one(struct kbpf_host *h, const struct kbpf_kfunc *f, const char *const *types, char *log,
			size_t log_size, struct kbpf_kfunc_set **set)
{
	struct kbpf_kfunc_set_opts o = {
		.sz = sizeof(o), .name = "one", .funcs = f, .nr_funcs = 1, .prog_types = types,
		.log_buf = log, .log_size = log_size,
	};
	return kbpf_host_kfunc_set_register(h, &o, set);
}

static void test_refused_prototypes(void)
{
	struct kbpf_host *h = host_new();
	char log[512];
	struct {
		struct kbpf_kfunc f;
		int err;
		const char *msg;
	} cases[] = {
		{ KBPF_KFUNC(kt_args6, 0), -EINVAL, "kfunc 'kt_args6' (set 'one'): Function kt_args6 has 6 > 5 args" },
		{ KBPF_KFUNC(kt_struct_arg, 0), -EINVAL,
		  "The function kt_struct_arg arg0 type STRUCT is unsupported. (struct/union by value)" },
		{ KBPF_KFUNC(kt_union_arg, 0), -EINVAL, "kt_union_arg arg0 type UNION is unsupported" },
		{ KBPF_KFUNC(kt_struct_ret, 0), -EINVAL, "The function kt_struct_ret return type STRUCT is unsupported." },
		{ KBPF_KFUNC(kt_float_arg, 0), -EINVAL, "kt_float_arg arg0 type FLOAT is unsupported. (floating point)" },
		{ KBPF_KFUNC(kt_float_ret, 0), -EINVAL, "kt_float_ret return type FLOAT is unsupported" },
		{ KBPF_KFUNC(kt_variadic, 0), -EINVAL, "The function kt_variadic with variable args is unsupported." },
		{ KBPF_KFUNC(kt_wide_arg, 0), -EINVAL, "kt_wide_arg arg0 type INT is unsupported. (wider than 8 bytes)" },
		{ { "kt_no_such_function", (kbpf_kfunc_addr)kt_inc, 0 }, -EINVAL,
		  "kfunc 'kt_no_such_function' (set 'one'): no BTF FUNC of that name" },
		{ { "kt_inc", NULL, 0 }, -EINVAL, "without an address" },
		{ { "kt_inc", (kbpf_kfunc_addr)kt_inc, 1u << 20 }, -EINVAL, "unknown flags 0x100000" },
	};

	CHECK(h != NULL);
	if (!h)
		return;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct kbpf_kfunc_set *set = (void *)1;
		log[0] = 0;
		CHECK_EQ_U64(register_one(h, &cases[i].f, tc_only, log, sizeof(log), &set), cases[i].err);
		CHECK_CONTAINS(log, cases[i].msg);
		CHECK(set == NULL);
	}
	/* nothing half-registered: the good function still registers */
	struct kbpf_kfunc ok = KBPF_KFUNC(kt_inc, 0);
	CHECK_EQ_U64(register_one(h, &ok, tc_only, log, sizeof(log), NULL), 0);
	kbpf_host_free(h);
}

static void test_no_btf(void)
{
	struct kbpf_host *h = kbpf_host_new();
	struct kbpf_kfunc f = KBPF_KFUNC(kt_inc, 0);
	char log[256] = "";

	CHECK_EQ_U64(register_one(h, &f, tc_only, log, sizeof(log), NULL), -ENOENT);
	CHECK_CONTAINS(log, "the host has no BTF");
	CHECK_EQ_U64(kbpf_host_kfunc_set_register(NULL, NULL, NULL), -EINVAL);
	kbpf_host_free(h);
}

static void test_duplicates(void)
{
	struct kbpf_host *h = host_new();
	struct kbpf_kfunc twice[] = { KBPF_KFUNC(kt_inc, 0), KBPF_KFUNC(kt_sum5, 0), KBPF_KFUNC(kt_inc, 0) };
	struct kbpf_kfunc one = KBPF_KFUNC(kt_inc, KF_RET_NULL);
	struct kbpf_kfunc other_addr = { "kt_inc", (kbpf_kfunc_addr)kt_sum5, 0 };
	struct kbpf_kfunc_set_opts o = { .sz = sizeof(o), .name = "twice", .funcs = twice, .nr_funcs = 3,
					 .prog_types = tc_only, .log_size = 256 };
	char log[256] = "";

	if (!h)
		return;
	o.log_buf = log;
	CHECK_EQ_U64(kbpf_host_kfunc_set_register(h, &o, NULL), -EEXIST);
	CHECK_CONTAINS(log, "kfunc 'kt_inc' (set 'twice'): listed twice");

	CHECK_EQ_U64(register_one(h, &one, tc_and_syscall, log, sizeof(log), NULL), 0);
	/* the same function again for a type it already has */
	CHECK_EQ_U64(register_one(h, &one, tc_only, log, sizeof(log), NULL), -EEXIST);
	CHECK_CONTAINS(log, "kfunc 'kt_inc' (set 'one'): already registered for program type 'tc' by set 'one'");
	/* ... for another type: fine, with its own flags */
	CHECK_EQ_U64(register_one(h, &(struct kbpf_kfunc)KBPF_KFUNC(kt_inc, KF_ACQUIRE),
				  (const char *const[]){ "xdp", NULL }, log, sizeof(log), NULL), 0);
	/* ... but never at another address */
	CHECK_EQ_U64(register_one(h, &other_addr, (const char *const[]){ "lsm", NULL }, log, sizeof(log), NULL),
		     -EEXIST);
	CHECK_CONTAINS(log, "at another address");
	/* a type named twice */
	CHECK_EQ_U64(register_one(h, &(struct kbpf_kfunc)KBPF_KFUNC(kt_sum5, 0),
				  (const char *const[]){ "tc", "tc", NULL }, log, sizeof(log), NULL), -EINVAL);
	CHECK_CONTAINS(log, "program type 'tc' named twice");

	struct kbpf_kfunc_prog_info xdp = { .sz = sizeof(xdp), .prog_type = "xdp" };
	uint32_t flags = 0;
	CHECK_EQ_U64(kbpf_host_kfunc_allowed(h, &xdp, (uint32_t)test_btf_id(h, "kt_inc", BTF_KIND_FUNC), &flags), 0);
	CHECK_EQ_U64(flags, KF_ACQUIRE);
	xdp.prog_type = "syscall";
	CHECK_EQ_U64(kbpf_host_kfunc_allowed(h, &xdp, (uint32_t)test_btf_id(h, "kt_inc", BTF_KIND_FUNC), &flags), 0);
	CHECK_EQ_U64(flags, KF_RET_NULL);
	kbpf_host_free(h);
}

static int deny_attach_release(const struct kbpf_kfunc_prog_info *prog, uint32_t id, void *cookie)
{
	(void)id;
	(*(int *)cookie)++;
	return prog->attach && !strcmp(prog->attach, "release") ? -EACCES : 0;
}

static int check_sum5_only(uint32_t id, void *cookie)
{
	return id == *(uint32_t *)cookie;
}

static void test_deny_by_default(void)
{
	struct kbpf_host *h = host_new();
	struct kbpf_kfunc funcs[] = { KBPF_KFUNC(kt_arg_u8, 0), KBPF_KFUNC(kt_ptr_next, KF_RET_NULL | KF_ACQUIRE) };
	struct kbpf_kfunc hidden[] = { KBPF_KFUNC(kt_sum5, KF_DESTRUCTIVE), KBPF_KFUNC(kt_mix5, 0) };
	int calls = 0;
	struct kbpf_kfunc_set_opts o = { .sz = sizeof(o), .name = "filtered", .funcs = funcs, .nr_funcs = 2,
					 .prog_types = tc_only, .filter = deny_attach_release,
					 .filter_cookie = &calls };
	struct kbpf_kfunc_prog_info tc = { .sz = sizeof(tc), .prog_type = "tc", .prog_name = "p" };
	struct kbpf_kfunc_prog_info xdp = { .sz = sizeof(xdp), .prog_type = "xdp" };
	uint32_t flags, sum5;

	if (!h)
		return;
	sum5 = (uint32_t)test_btf_id(h, "kt_sum5", BTF_KIND_FUNC);
	/* nothing registered: nothing callable, a FUNC of the BTF included */
	CHECK_EQ_U64(kbpf_host_kfunc_allowed(h, &tc, (uint32_t)test_btf_id(h, "kt_arg_u8", BTF_KIND_FUNC), &flags), -ENOENT);
	CHECK_EQ_U64(kbpf_host_kfunc_allowed(h, &tc, (uint32_t)test_btf_id(h, "main", BTF_KIND_FUNC), &flags), -ENOENT);
	CHECK_EQ_U64(kbpf_host_kfunc_set_register(h, &o, NULL), 0);
	CHECK_EQ_U64(kbpf_host_kfunc_allowed(h, &tc, (uint32_t)test_btf_id(h, "kt_arg_u8", BTF_KIND_FUNC), &flags), 0);
	CHECK_EQ_U64(kbpf_host_kfunc_allowed(h, &tc, (uint32_t)test_btf_id(h, "kt_ptr_next", BTF_KIND_FUNC), &flags), 0);
	CHECK_EQ_U64(flags, KF_RET_NULL | KF_ACQUIRE);
	CHECK_EQ_U64(kbpf_host_kfunc_allowed(h, &xdp, (uint32_t)test_btf_id(h, "kt_arg_u8", BTF_KIND_FUNC), &flags), -EACCES);
	/* the filter sees the program */
	tc.attach = "release";
	CHECK_EQ_U64(kbpf_host_kfunc_allowed(h, &tc, (uint32_t)test_btf_id(h, "kt_arg_u8", BTF_KIND_FUNC), &flags), -EACCES);
	CHECK(calls >= 3);

	/* a set for no type: addresses only; a 5.13-style check callback allows one of them */
	o = (struct kbpf_kfunc_set_opts){ .sz = sizeof(o), .name = "hidden", .funcs = hidden, .nr_funcs = 2 };
	CHECK_EQ_U64(kbpf_host_kfunc_set_register(h, &o, NULL), 0);
	CHECK_EQ_U64(kbpf_host_kfunc_allowed(h, &xdp, sum5, &flags), -EACCES);
	CHECK_EQ_U64(kbpf_host_kfunc_check_register(h, "xdp", check_sum5_only, &sum5), 0);
	CHECK_EQ_U64(kbpf_host_kfunc_check_register(h, "xdp", check_sum5_only, &sum5), -EEXIST);
	CHECK_EQ_U64(kbpf_host_kfunc_allowed(h, &xdp, sum5, &flags), 0);
	CHECK_EQ_U64(flags, KF_DESTRUCTIVE);
	CHECK_EQ_U64(kbpf_host_kfunc_allowed(h, &xdp, (uint32_t)test_btf_id(h, "kt_mix5", BTF_KIND_FUNC), &flags), -EACCES);
	CHECK_EQ_U64(kbpf_host_kfunc_allowed(h, &tc, sum5, &flags), -EACCES);
	CHECK_EQ_U64(kbpf_host_kfunc_check_register(h, "xdp", NULL, NULL), 0);
	CHECK_EQ_U64(kbpf_host_kfunc_check_register(h, "xdp", NULL, NULL), -ENOENT);
	CHECK_EQ_U64(kbpf_host_kfunc_allowed(h, &xdp, sum5, &flags), -EACCES);
	CHECK_STR(kbpf_host_kfunc_name(h, sum5), "kt_sum5");
	CHECK(kbpf_host_kfunc_name(h, (uint32_t)test_btf_id(h, "main", BTF_KIND_FUNC)) == NULL);
	kbpf_host_free(h);
}

static void test_func_model(void)
{
	struct kbpf_host *h = host_new();
	struct kbpf_kfunc funcs[] = { KBPF_KFUNC(kt_mix5, 0), KBPF_KFUNC(kt_ptr_next, 0),
				      KBPF_KFUNC(kt_ptr_store, 0), KBPF_KFUNC(kt_ret_s8, 0),
				      KBPF_KFUNC(kt_arg_bool, 0) };
	struct kbpf_kfunc_set_opts o = { .sz = sizeof(o), .funcs = funcs, .nr_funcs = 5, .prog_types = tc_only };
	const struct kbpf_kfunc_desc *d;

	if (!h)
		return;
	CHECK_EQ_U64(kbpf_host_kfunc_set_register(h, &o, NULL), 0);
	CHECK_EQ_U64(kbpf_host_kfunc_get(h, (uint32_t)test_btf_id(h, "kt_mix5", BTF_KIND_FUNC), &d), 0);
	if (d) {
		static const uint8_t size[] = { 1, 2, 4, 4, 8 }, flags[] = { 0, KBPF_FMODEL_SIGNED, 0, KBPF_FMODEL_SIGNED, 0 };
		CHECK_EQ_U64(d->model.nr_args, 5);
		for (int i = 0; i < 5; i++) {
			CHECK_EQ_U64(d->model.arg_size[i], size[i]);
			CHECK_EQ_U64(d->model.arg_flags[i], flags[i]);
		}
		CHECK_EQ_U64(d->model.ret_size, 8);
		CHECK_EQ_U64(d->model.ret_flags, KBPF_FMODEL_SIGNED);
		CHECK(d->addr == (kbpf_kfunc_addr)kt_mix5);
		CHECK_STR(d->decl, "int64_t kt_mix5(uint8_t a, int16_t b, uint32_t c, int32_t d, uint64_t e)");
		kbpf_host_kfunc_put(h, d);
	}
	CHECK_EQ_U64(kbpf_host_kfunc_get(h, (uint32_t)test_btf_id(h, "kt_ptr_next", BTF_KIND_FUNC), &d), 0);
	if (d) {
		CHECK_EQ_U64(d->model.arg_flags[0], KBPF_FMODEL_PTR);
		CHECK_EQ_U64(d->model.ret_size, 8);
		CHECK_EQ_U64(d->model.ret_flags, KBPF_FMODEL_PTR);
		kbpf_host_kfunc_put(h, d);
	}
	CHECK_EQ_U64(kbpf_host_kfunc_get(h, (uint32_t)test_btf_id(h, "kt_ptr_store", BTF_KIND_FUNC), &d), 0);
	if (d) {
		CHECK_EQ_U64(d->model.ret_size, 0);
		CHECK_EQ_U64(d->model.nr_args, 2);
		kbpf_host_kfunc_put(h, d);
	}
	CHECK_EQ_U64(kbpf_host_kfunc_get(h, (uint32_t)test_btf_id(h, "kt_ret_s8", BTF_KIND_FUNC), &d), 0);
	if (d) {
		CHECK_EQ_U64(d->model.ret_size, 1);
		CHECK_EQ_U64(d->model.ret_flags, KBPF_FMODEL_SIGNED);
		kbpf_host_kfunc_put(h, d);
	}
	CHECK_EQ_U64(kbpf_host_kfunc_get(h, (uint32_t)test_btf_id(h, "kt_arg_bool", BTF_KIND_FUNC), &d), 0);
	if (d) {
		CHECK_EQ_U64(d->model.arg_size[0], 1);
		CHECK_EQ_U64(d->model.arg_flags[0], 0); /* _Bool is unsigned */
		kbpf_host_kfunc_put(h, d);
	}
	CHECK_EQ_U64(kbpf_host_kfunc_get(h, (uint32_t)test_btf_id(h, "kt_sum5", BTF_KIND_FUNC), &d), -ENOENT);
	kbpf_host_free(h);
}

/* kbpf_host_object_type_register: a struct without pointer members is memory of its size
 * for a kfunc (Linux's rule) until the host declares it an object of its own; then only
 * a BTF pointer passes, and program memory is refused with Linux's text. */
static void test_object_types(void)
{
	struct kbpf_host *h = host_new();
	struct kbpf_kfunc f = KBPF_KFUNC(kt_pair_sum, 0);
	struct kbpf_prog_type tc = { .sz = sizeof(tc), .name = "tc" };
	char log[512] = "";

	if (!h)
		return;
	CHECK_EQ_U64(kbpf_host_prog_type_register(h, &tc), 0);
	CHECK_EQ_U64(register_one(h, &f, tc_only, log, sizeof(log), NULL), 0);
	struct bpf_insn insns[] = {
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -16, 3),
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 4),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -16),
		BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, test_btf_id(h, "kt_pair_sum", BTF_KIND_FUNC)),
		BPF_EXIT_INSN(),
	};
	struct kbpf_prog_opts o = { .sz = sizeof(o), .host = h, .prog_type = "tc", .license = "GPL", .log_buf = log,
				    .log_size = sizeof(log) };
	struct kbpf_prog *p = NULL;
	for (int jit = 0; jit < 2; jit++) {
		o.jit = jit;
		int ret = kbpf_prog_create(insns, 6, &o, &p);
		if (ret == -EOPNOTSUPP)
			break; /* no JIT here */
		if (ret)
			fprintf(stderr, "%s\n", log);
		CHECK_EQ_U64(ret, 0);
		uint64_t r0 = 0;
		CHECK_EQ_U64(kbpf_prog_run(p, NULL, &r0), 0);
		CHECK_EQ_U64(r0, 7);
		kbpf_prog_free(p);
		p = NULL;
	}
	CHECK_EQ_U64(kbpf_host_object_type_register(h, NULL), -EINVAL);
	CHECK_EQ_U64(kbpf_host_object_type_register(h, ""), -EINVAL);
	CHECK_EQ_U64(kbpf_host_object_type_register(NULL, "kt_pair"), -EINVAL);
	CHECK_EQ_U64(kbpf_host_object_type_register(h, "kt_pair"), 0);
	CHECK_EQ_U64(kbpf_host_object_type_register(h, "kt_pair"), 0); /* twice is fine */
	o.jit = 0;
	CHECK_EQ_U64(kbpf_prog_create(insns, 6, &o, &p), -EINVAL);
	CHECK(p == NULL);
	CHECK_CONTAINS(log, "arg#0 is fp expected ptr_ or socket");
	/* NULL neither (Linux's rule takes it as memory the kfunc must tolerate) */
	struct bpf_insn null_arg[] = {
		BPF_MOV64_IMM(BPF_REG_1, 0),
		BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, test_btf_id(h, "kt_pair_sum", BTF_KIND_FUNC)),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(kbpf_prog_create(null_arg, 3, &o, &p), -EINVAL);
	CHECK_CONTAINS(log, "arg#0 is scalar expected ptr_ or socket");
	kbpf_host_free(h);
}

/* r1 = 5; call kt_inc; exit */
static int create_inc(struct kbpf_host *h, struct kbpf_prog **prog, char *log, size_t log_size)
{
	struct bpf_insn insns[] = {
		BPF_MOV64_IMM(BPF_REG_1, 5),
		BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, test_btf_id(h, "kt_inc", BTF_KIND_FUNC)),
		BPF_EXIT_INSN(),
	};
	struct kbpf_prog_opts o = { .sz = sizeof(o), .trusted_unverified = 1, .host = h, .log_buf = log, .log_size = log_size };
	return kbpf_prog_create(insns, 3, &o, prog);
}

static struct kbpf_kfunc_set *register_inc(struct kbpf_host *h)
{
	struct kbpf_kfunc f = KBPF_KFUNC(kt_inc, 0);
	struct kbpf_kfunc_set *set = NULL;
	char log[256] = "";

	if (register_one(h, &f, tc_only, log, sizeof(log), &set))
		fprintf(stderr, "register kt_inc: %s\n", log);
	return set;
}

static void test_pins(void)
{
	struct kbpf_host *h = host_new();
	struct kbpf_kfunc_set *set;
	struct kbpf_prog *p1 = NULL, *p2 = NULL;
	char log[256] = "";
	uint64_t r0 = 0;

	if (!h)
		return;
	set = register_inc(h);
	CHECK(set != NULL);
	CHECK_EQ_U64(create_inc(h, &p1, log, sizeof(log)), 0);
	CHECK_EQ_U64(create_inc(h, &p2, log, sizeof(log)), 0);
	CHECK_EQ_U64(kbpf_kfunc_set_pins(h, set), 2);
	CHECK_EQ_U64(kbpf_prog_run(p1, NULL, &r0), 0);
	CHECK_EQ_U64(r0, 6);
	CHECK_EQ_U64(kbpf_host_kfunc_set_unregister(h, set, KBPF_KFUNC_UNREG_NOWAIT), -EBUSY);
	kbpf_prog_free(p1);
	CHECK_EQ_U64(kbpf_kfunc_set_pins(h, set), 1);
	/* still registered: a new program can use it */
	CHECK_EQ_U64(create_inc(h, &p1, log, sizeof(log)), 0);
	kbpf_prog_free(p1);
	kbpf_prog_free(p2);
	CHECK_EQ_U64(kbpf_kfunc_set_pins(h, set), 0);
	CHECK_EQ_U64(kbpf_host_kfunc_set_unregister(h, set, KBPF_KFUNC_UNREG_NOWAIT), 0);
	CHECK_EQ_U64(kbpf_host_kfunc_set_unregister(h, set, 0), -ENOENT);
	/* gone: the program cannot be created, and says why */
	CHECK_EQ_U64(create_inc(h, &p1, log, sizeof(log)), -EINVAL);
	CHECK(p1 == NULL);
	CHECK_CONTAINS(log, "insn 1: cannot find address for kernel function kt_inc: it is not registered on the host");
	/* a create failing after the pin (a bad helper later on) leaves nothing pinned */
	set = register_inc(h);
	struct bpf_insn bad[] = {
		BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, test_btf_id(h, "kt_inc", BTF_KIND_FUNC)),
		BPF_EMIT_CALL(12345),
		BPF_EXIT_INSN(),
	};
	struct kbpf_prog_opts o = { .sz = sizeof(o), .trusted_unverified = 1, .host = h, .log_buf = log, .log_size = sizeof(log) };
	CHECK(kbpf_prog_create(bad, 3, &o, &p1) < 0);
	CHECK_EQ_U64(kbpf_kfunc_set_pins(h, set), 0);
	/* no host / not a function */
	bad[1] = bad[2];
	o.host = NULL;
	CHECK_EQ_U64(kbpf_prog_create(bad, 2, &o, &p1), -EINVAL);
	CHECK_CONTAINS(log, "without a host");
	o.host = h;
	bad[0].imm = 1; /* the first type of any BTF is not a FUNC here */
	if (!btf_is_func(btf__type_by_id(kbpf_host_btf(h), 1))) {
		CHECK_EQ_U64(kbpf_prog_create(bad, 2, &o, &p1), -EINVAL);
		CHECK_CONTAINS(log, "kernel btf_id 1 is not a function");
	}
	kbpf_host_free(h);
}

struct unreg_arg {
	struct kbpf_host *h;
	struct kbpf_kfunc_set *set;
	int ret;
};

static void *unreg_thread(void *p)
{
	struct unreg_arg *a = p;
	a->ret = kbpf_host_kfunc_set_unregister(a->h, a->set, 0);
	return NULL;
}

static void test_enxio_while_unregistering(void)
{
	struct kbpf_host *h = host_new();
	struct unreg_arg a = { h, NULL, 1 };
	struct kbpf_prog *held = NULL, *p = NULL;
	pthread_t t;
	char log[256] = "";
	int ret = 0;

	if (!h)
		return;
	a.set = register_inc(h);
	CHECK_EQ_U64(create_inc(h, &held, log, sizeof(log)), 0);
	CHECK(pthread_create(&t, NULL, unreg_thread, &a) == 0);
	/* the unregister waits for `held`; meanwhile creates fail with -ENXIO */
	for (int i = 0; i < 2000; i++) {
		ret = create_inc(h, &p, log, sizeof(log));
		if (ret == -ENXIO)
			break;
		kbpf_prog_free(p);
		p = NULL;
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
	CHECK_EQ_U64(ret, -ENXIO);
	CHECK(p == NULL);
	CHECK_CONTAINS(log, "kernel function kt_inc: its kfunc set is being unregistered");
	CHECK_EQ_U64(kbpf_host_kfunc_set_unregister(h, a.set, 0), -EINPROGRESS);
	CHECK_EQ_U64(a.ret, 1); /* still waiting */
	kbpf_prog_free(held);
	pthread_join(t, NULL);
	CHECK_EQ_U64(a.ret, 0);
	kbpf_host_free(h);
}

#define RACE_THREADS 4
#define RACE_ROUNDS 200

struct race_arg {
	struct kbpf_host *h;
	atomic_int *stop;
	int ok, enxio, einval, other;
};

static void *race_creator(void *p)
{
	struct race_arg *a = p;
	char log[256];

	while (!atomic_load(a->stop)) {
		struct kbpf_prog *prog = NULL;
		int ret = create_inc(a->h, &prog, log, sizeof(log));
		if (!ret) {
			uint64_t r0 = 0;
			if (kbpf_prog_run(prog, NULL, &r0) || r0 != 6)
				a->other++;
			kbpf_prog_free(prog);
			a->ok++;
		} else if (ret == -ENXIO) {
			a->enxio++;
		} else if (ret == -EINVAL) {
			a->einval++;
		} else {
			a->other++;
		}
	}
	return NULL;
}

static void test_threads(void)
{
	struct kbpf_host *h = host_new();
	struct race_arg args[RACE_THREADS];
	pthread_t t[RACE_THREADS];
	atomic_int stop = 0;
	int ok = 0, other = 0;

	if (!h)
		return;
	for (int i = 0; i < RACE_THREADS; i++) {
		args[i] = (struct race_arg){ .h = h, .stop = &stop };
		pthread_create(&t[i], NULL, race_creator, &args[i]);
	}
	for (int r = 0; r < RACE_ROUNDS; r++) {
		struct kbpf_kfunc_set *set = register_inc(h);
		CHECK(set != NULL);
		if (!set)
			break;
		nanosleep(&(struct timespec){ 0, 20000 }, NULL);
		int ret = kbpf_host_kfunc_set_unregister(h, set, r & 1 ? KBPF_KFUNC_UNREG_NOWAIT : 0);
		if (ret == -EBUSY) /* pinned: wait for it this time */
			ret = kbpf_host_kfunc_set_unregister(h, set, 0);
		CHECK_EQ_U64(ret, 0);
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < RACE_THREADS; i++) {
		pthread_join(t[i], NULL);
		ok += args[i].ok;
		other += args[i].other;
	}
	CHECK_EQ_U64(other, 0);
	printf("threads: %d creates succeeded while %d sets came and went\n", ok, RACE_ROUNDS);
	/* everything unregistered and unpinned: nothing listed */
	CHECK_EQ_U64(kbpf_host_kfunc_allowed(h, &(struct kbpf_kfunc_prog_info){ .sz = sizeof(struct kbpf_kfunc_prog_info), .prog_type = "tc" },
					     (uint32_t)test_btf_id(h, "kt_inc", BTF_KIND_FUNC), NULL), -ENOENT);
	kbpf_host_free(h); /* ASan: nothing leaked */
}

static int collect(const struct kbpf_kfunc_entry *e, void *arg)
{
	char *out = arg;
	size_t n = strlen(out);
	snprintf(out + n, 1024 - n, "%s:%s:%x:%d:%d;", e->prog_type ? e->prog_type : "-", e->name, e->flags, e->filtered,
		 e->by_check);
	return 0;
}

static int check_all(uint32_t id, void *cookie)
{
	(void)id;
	(void)cookie;
	return 1;
}

static int reject_all(const struct kbpf_kfunc_prog_info *p, uint32_t id, void *cookie)
{
	(void)p;
	(void)id;
	(void)cookie;
	return -EACCES;
}

static void test_foreach(void)
{
	struct kbpf_host *h = host_new();
	struct kbpf_kfunc a[] = { KBPF_KFUNC(kt_sum5, 0), KBPF_KFUNC(kt_arg_u8, KF_SLEEPABLE) };
	struct kbpf_kfunc b[] = { KBPF_KFUNC(kt_inc, 0) };
	struct kbpf_kfunc_set_opts o = { .sz = sizeof(o), .name = "a", .funcs = a, .nr_funcs = 2,
					 .prog_types = tc_and_syscall };
	char out[1024] = "";

	if (!h)
		return;
	CHECK_EQ_U64(kbpf_host_kfunc_set_register(h, &o, NULL), 0);
	o = (struct kbpf_kfunc_set_opts){ .sz = sizeof(o), .name = "b", .funcs = b, .nr_funcs = 1,
					  .prog_types = tc_only, .filter = reject_all };
	CHECK_EQ_U64(kbpf_host_kfunc_set_register(h, &o, NULL), 0);
	CHECK_EQ_U64(kbpf_host_kfunc_check_register(h, "lsm", check_all, NULL), 0);
	CHECK_EQ_U64(kbpf_host_kfunc_foreach(h, NULL, collect, out), 0);
	CHECK_STR(out, "lsm:kt_arg_u8:20:0:1;lsm:kt_inc:0:0:1;lsm:kt_sum5:0:0:1;"
		       "syscall:kt_arg_u8:20:0:0;syscall:kt_sum5:0:0:0;"
		       "tc:kt_arg_u8:20:0:0;tc:kt_inc:0:1:0;tc:kt_sum5:0:0:0;");
	out[0] = 0;
	CHECK_EQ_U64(kbpf_host_kfunc_foreach(h, "syscall", collect, out), 0);
	CHECK_STR(out, "syscall:kt_arg_u8:20:0:0;syscall:kt_sum5:0:0:0;");
	kbpf_host_free(h);
}

int main(void)
{
	struct kbpf_host *h = host_new();
	if (!h) {
		fprintf(stderr, "this test binary has no BTF of its own (kbpf_add_host_btf)\n");
		return 1;
	}
	kbpf_host_free(h);
	RUN(test_refused_prototypes);
	RUN(test_no_btf);
	RUN(test_duplicates);
	RUN(test_deny_by_default);
	RUN(test_func_model);
	RUN(test_pins);
	RUN(test_object_types);
	RUN(test_enxio_while_unregistering);
	RUN(test_threads);
	RUN(test_foreach);
	return test_summary();
}

#else

int main(void)
{
	printf("skipped: no host BTF (KBPF_HOST_BTF=OFF)\n");
	return 0;
}

#endif
