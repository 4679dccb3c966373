/* SPDX-License-Identifier: Apache-2.0 */
/* Verified struct_ops programs: the context is the u64 array of a host function
 * prototype's arguments (kbpf_verify_opts.attach_btf_id), typed as Linux 6.1's
 * btf_ctx_access types it, and the loader verifies each program filling a member of a
 * struct the host registered (kbpf_host_struct_ops_register) with Linux's load-time
 * checks. This test binary is the host: struct kv_ops and its sockets are described by
 * its own BTF; programs are raw instructions (exact messages) and clang-built objects
 * (tests/bpf/struct_ops_verify*.bpf.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <kbpf/kbpf.h>
#include <kbpf/prog_type.h>
#include <kbpf/struct_ops.h>
#include <kbpf/verifier.h>
#include "test.h"

#if defined(KBPF_TEST_STRUCT_OPS_HOST) && defined(KBPF_TEST_BPF_OBJ_DIR)

/* The host's structs (the BPF side declares the same layouts). */
struct kv_sock {
	uint32_t state;
	uint32_t cwnd;
	struct kv_sock *peer;
};

struct kv_tcp_sock {
	struct kv_sock sk;
	uint32_t snd_cwnd;
	uint32_t ssthresh;
};

struct kv_sample {
	uint32_t acked;
	int32_t rtt;
};

struct kv_ops {
	uint32_t (*ssthresh)(struct kv_sock *sk);
	void (*acked)(struct kv_sock *sk, const struct kv_sample *s);
	uint64_t (*scalars)(uint8_t a, int16_t b, uint32_t c, uint64_t d);
	void (*release)(struct kv_sock *sk);
	uint32_t (*get_info)(struct kv_sock *sk, uint32_t ext, int *attr);
	uint32_t flags;
	char name[16];
	/* host-only: argument kinds btf_ctx_access refuses or reads as scalars */
	int (*odd)(void *v, struct kv_sock **pp, double f);
	uint64_t (*five)(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e);
};

struct kv_bad_ops {
	uint64_t notfn;
};

/* referenced, so that the types are in the binary's BTF */
struct kv_ops kv_ops_anchor;
struct kv_bad_ops kv_bad_ops_anchor;
struct kv_tcp_sock kv_tcp_sock_anchor;
struct kv_sample kv_sample_anchor;

static struct kbpf_host *host;
static uint32_t sock_id, tcp_sock_id;
static int check_member_calls;

#define KTIME_ID 5 /* BPF_FUNC_ktime_get_ns */

static uint64_t fake_ktime(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e)
{
	(void)a, (void)b, (void)c, (void)d, (void)e;
	return 1000;
}

/* bpf_tcp_ca_is_valid_access's promotion, for kv_sock; and a veto of a 5th argument */
static int kv_arg_access(const struct kbpf_prog_type *t, const struct kbpf_host *h, uint32_t arg,
			 struct kbpf_ctx_access_info *info)
{
	(void)t, (void)h;
	if (arg == 4)
		return 0;
	if (info->reg_type == KBPF_PTR_TO_BTF_ID && info->btf_id == sock_id)
		info->btf_id = tcp_sock_id;
	return 1;
}

static const struct kbpf_helper_proto *kv_proto(const struct kbpf_prog_type *t, const struct kbpf_host *h, int32_t id,
						const char *member)
{
	(void)t;
	if (id == KTIME_ID && member && !strcmp(member, "release"))
		return NULL; /* as tcp withholds bpf_setsockopt from release */
	return kbpf_host_helper_proto(h, id);
}

/* writes: kv_tcp_sock.snd_cwnd and .ssthresh only */
static int kv_struct_access(const struct kbpf_prog_type *t, uint32_t btf_id, int off, int size, char *msg,
			    size_t msg_size)
{
	(void)t;
	if (btf_id == tcp_sock_id && off >= 16 && off + size <= 24)
		return 0;
	if (btf_id == tcp_sock_id)
		snprintf(msg, msg_size, "no write support to kv_tcp_sock at off %d", off);
	return -EACCES;
}

static int kv_check_member(void *cookie, const char *member, const struct kbpf_program *prog, char *msg,
			   size_t msg_size)
{
	(void)cookie, (void)prog, (void)msg, (void)msg_size;
	check_member_calls++;
	return strcmp(member, "get_info") ? 0 : -EOPNOTSUPP;
}

static uint32_t member_type(const char *st, const char *member)
{
	const struct btf *btf = kbpf_host_btf(host);
	int id = btf__find_by_name_kind(btf, st, BTF_KIND_STRUCT);
	if (id <= 0)
		return 0;
	const struct btf_type *t = btf__type_by_id(btf, (uint32_t)id);
	const struct btf_member *m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(btf, m->name_off), member))
			return m->type;
	return 0;
}

static char vlog_buf[16384];

/* Verify insns as type filling kv_ops.member; the log in vlog_buf. */
static int verify_as(const struct bpf_insn *insns, size_t cnt, const char *type, const char *member, unsigned level)
{
	struct kbpf_verify_opts o = { .sz = sizeof(o), .host = host, .prog_type = type, .license = "GPL",
				      .log_buf = vlog_buf, .log_size = sizeof(vlog_buf), .log_level = level,
				      .attach_btf_id = member_type("kv_ops", member), .attach_member = member };
	return kbpf_prog_verify(insns, cnt, &o, NULL);
}

#define VERIFY(type, member, level, ...)                                                              \
	({                                                                                            \
		struct bpf_insn p_[] = { __VA_ARGS__ };                                                \
		verify_as(p_, sizeof(p_) / sizeof(p_[0]), type, member, level);                        \
	})

static void test_scalar_args(void)
{
	/* scalars(u8 a, s16 b, u32 c, u64 d): whole slots, and a slot's low bytes */
	CHECK(!VERIFY("kv_plain", "scalars", 0, BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 0),
		      BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, 8), BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_2),
		      BPF_LDX_MEM(BPF_B, BPF_REG_2, BPF_REG_1, 16), BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_2),
		      BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, 24), BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_2),
		      BPF_EXIT_INSN()));
	/* a slot is 8 bytes: a read inside it that is not at its start */
	CHECK_EQ_U64(VERIFY("kv_plain", "scalars", 0, BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, 4), BPF_EXIT_INSN()),
		     (uint64_t)-EACCES);
	CHECK_CONTAINS(vlog_buf, "func 'scalars' offset 4 is not multiple of 8\ninvalid bpf_context access off=4 size=4");
	/* misaligned for its size: refused before btf_ctx_access (no func line) */
	CHECK(VERIFY("kv_plain", "scalars", 0, BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 4), BPF_EXIT_INSN()) < 0);
	CHECK_CONTAINS(vlog_buf, "invalid bpf_context access off=4 size=8");
	/* the program type's ctx_arg_access vetoes the 5th argument */
	CHECK(VERIFY("kv_ops", "five", 0, BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 32), BPF_EXIT_INSN()) < 0);
	CHECK_CONTAINS(vlog_buf, "invalid bpf_context access off=32 size=8");
	CHECK(!VERIFY("kv_ops", "five", 0, BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 24), BPF_EXIT_INSN()));
	CHECK(!VERIFY("kv_plain", "five", 0, BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 32), BPF_EXIT_INSN()));
	/* a scalar argument is a scalar: no dereference */
	CHECK(VERIFY("kv_plain", "scalars", 0, BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, 24),
		     BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_2, 0), BPF_EXIT_INSN()) < 0);
	CHECK_CONTAINS(vlog_buf, "R2 invalid mem access 'scalar'");
}

static void test_ctx_read_only(void)
{
	CHECK_EQ_U64(VERIFY("kv_ops", "scalars", 0, BPF_MOV64_IMM(BPF_REG_2, 0),
			    BPF_STX_MEM(BPF_DW, BPF_REG_1, BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN()),
		     (uint64_t)-EACCES);
	CHECK_CONTAINS(vlog_buf, "invalid bpf_context access off=0 size=8");
	CHECK(VERIFY("kv_ops", "scalars", 0, BPF_ST_MEM(BPF_DW, BPF_REG_1, 0, 1), BPF_MOV64_IMM(BPF_REG_0, 0),
		     BPF_EXIT_INSN()) < 0);
	CHECK_CONTAINS(vlog_buf, "invalid bpf_context access off=0 size=8");
}

static void test_struct_arg(void)
{
	/* ssthresh(struct kv_sock *sk): sk->cwnd without a NULL check */
	CHECK(!VERIFY("kv_plain", "ssthresh", KBPF_LOG_LEVEL2, BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, 0),
		      BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_2, 4), BPF_EXIT_INSN()));
	char want[128];
	snprintf(want, sizeof(want), "func 'ssthresh' arg0 has btf_id %u type STRUCT 'kv_sock'", sock_id);
	CHECK_CONTAINS(vlog_buf, want);
	CHECK_CONTAINS(vlog_buf, "R2_w=ptr_kv_sock()");
	/* a pointer field read from it may be NULL: checked before use (kbpf's rule) */
	CHECK(VERIFY("kv_plain", "ssthresh", 0, BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, 0),
		     BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_2, 8), BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_2, 4),
		     BPF_EXIT_INSN()) < 0);
	/* beyond struct kv_sock: only with the type's promotion to kv_tcp_sock */
	CHECK(VERIFY("kv_plain", "ssthresh", 0, BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, 0),
		     BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_2, 16), BPF_EXIT_INSN()) < 0);
	CHECK(!VERIFY("kv_ops", "ssthresh", 0, BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, 0),
		      BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_2, 16), BPF_EXIT_INSN()));
	/* writes through it: the type's btf_struct_access decides */
	CHECK(!VERIFY("kv_ops", "release", 0, BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, 0),
		      BPF_ST_MEM(BPF_W, BPF_REG_2, 16, 4), BPF_EXIT_INSN()));
	CHECK(VERIFY("kv_ops", "release", 0, BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, 0),
		     BPF_ST_MEM(BPF_W, BPF_REG_2, 0, 4), BPF_EXIT_INSN()) < 0);
	CHECK_CONTAINS(vlog_buf, "no write support to kv_tcp_sock at off 0");
	/* a narrow read of a pointer argument is the pointer, as Linux types it (kbpf runs
	 * it as the whole 8-byte load: btf_ctx.c), so it may be dereferenced */
	CHECK(!VERIFY("kv_plain", "ssthresh", 0, BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, 0),
		      BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_2, 4), BPF_EXIT_INSN()));
	/* acked(sk, const struct kv_sample *s): s->acked */
	CHECK(!VERIFY("kv_plain", "acked", 0, BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, 8),
		      BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_2, 0), BPF_EXIT_INSN()));
}

static void test_arg_range(void)
{
	CHECK_EQ_U64(VERIFY("kv_ops", "ssthresh", 0, BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 8), BPF_EXIT_INSN()),
		     (uint64_t)-EACCES);
	CHECK_CONTAINS(vlog_buf, "func 'ssthresh' doesn't have 2-th argument\ninvalid bpf_context access off=8 size=8");
	/* a void function has no return slot either: Linux's count skips it */
	CHECK(VERIFY("kv_ops", "release", 0, BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 8), BPF_EXIT_INSN()) < 0);
	CHECK_CONTAINS(vlog_buf, "func 'release' doesn't have 3-th argument");
	/* beyond Linux's 12 slots: no func line */
	CHECK(VERIFY("kv_ops", "ssthresh", 0, BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 96), BPF_EXIT_INSN()) < 0);
	CHECK(!strstr(vlog_buf, "doesn't have"));
	CHECK_CONTAINS(vlog_buf, "invalid bpf_context access off=96 size=8");
	CHECK(VERIFY("kv_ops", "ssthresh", 0, BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, -8), BPF_EXIT_INSN()) < 0);
	CHECK_CONTAINS(vlog_buf, "invalid bpf_context access off=-8 size=8");
}

static void test_arg_kinds(void)
{
	/* odd(void *v, struct kv_sock **pp, double f) */
	CHECK(!VERIFY("kv_plain", "odd", 0, BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 0), BPF_EXIT_INSN()));
	CHECK(VERIFY("kv_plain", "odd", 0, BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 8), BPF_EXIT_INSN()) < 0);
	CHECK_CONTAINS(vlog_buf, "func 'odd' arg1 type PTR is not a struct");
	CHECK(VERIFY("kv_plain", "odd", 0, BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 16), BPF_EXIT_INSN()) < 0);
	CHECK_CONTAINS(vlog_buf, "func 'odd' arg2 'double' has type FLOAT. Only pointer access is allowed");
	/* get_info(sk, u32 ext, int *attr): an int pointer reads as a scalar */
	CHECK(VERIFY("kv_plain", "get_info", 0, BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, 16),
		     BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_2, 0), BPF_EXIT_INSN()) < 0);
	CHECK_CONTAINS(vlog_buf, "R2 invalid mem access 'scalar'");
	/* not a function */
	struct bpf_insn ret0[] = { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };
	struct kbpf_verify_opts o = { .sz = sizeof(o), .host = host, .prog_type = "kv_plain", .log_buf = vlog_buf,
				      .log_size = sizeof(vlog_buf), .attach_btf_id = sock_id };
	CHECK_EQ_U64(kbpf_prog_verify(ret0, 2, &o, NULL), (uint64_t)-EINVAL);
	char want[64];
	snprintf(want, sizeof(want), "attach_btf_id %u is not a function", sock_id);
	CHECK_CONTAINS(vlog_buf, want);
}

static void test_void_return(void)
{
	CHECK(!VERIFY("kv_ops", "release", 0, BPF_EXIT_INSN()));
	CHECK(VERIFY("kv_ops", "ssthresh", 0, BPF_EXIT_INSN()) < 0);
	CHECK_CONTAINS(vlog_buf, "R0 !read_ok");
}

static void test_member_helpers(void)
{
	CHECK(!VERIFY("kv_ops", "ssthresh", 0, BPF_EMIT_CALL(KTIME_ID), BPF_EXIT_INSN()));
	CHECK_EQ_U64(VERIFY("kv_ops", "release", 0, BPF_EMIT_CALL(KTIME_ID), BPF_EXIT_INSN()), (uint64_t)-EINVAL);
	CHECK_CONTAINS(vlog_buf, "program of this type cannot use helper bpf_ktime_get_ns#5");
	/* a type without get_func_proto_member: the host's protos */
	CHECK(!VERIFY("kv_plain", "release", 0, BPF_EMIT_CALL(KTIME_ID), BPF_EXIT_INSN()));
}

/* kbpf_prog_create passes attach_btf_id / attach_member to the verifier */
static void test_prog_create(void)
{
	struct bpf_insn insns[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 8),
		BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, 16),
		BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_2),
		BPF_EXIT_INSN(),
	};
	char log[512] = "";
	struct kbpf_prog_opts po = { .sz = sizeof(po), .host = host, .prog_type = "kv_ops", .license = "GPL",
				     .log_buf = log, .log_size = sizeof(log),
				     .attach_btf_id = member_type("kv_ops", "scalars"), .attach_member = "scalars" };
	struct kbpf_prog *prog = NULL;
	CHECK(!kbpf_prog_create(insns, 4, &po, &prog));
	uint64_t ctx[4] = { 1, 20, 300, 4000 }, r0 = 0;
	CHECK(prog && !kbpf_prog_run(prog, ctx, &r0));
	CHECK_EQ_U64(r0, 320);
	kbpf_prog_free(prog);
	/* the 5th argument of five() is vetoed by the type */
	po.attach_btf_id = member_type("kv_ops", "five");
	po.attach_member = "five";
	insns[1].off = 32;
	prog = NULL;
	CHECK(kbpf_prog_create(insns, 4, &po, &prog) < 0);
	CHECK_CONTAINS(log, "invalid bpf_context access off=32 size=8");
	/* and ssthresh(sk) has no 2nd argument */
	po.attach_btf_id = member_type("kv_ops", "ssthresh");
	po.attach_member = "ssthresh";
	insns[1].off = 0;
	CHECK(kbpf_prog_create(insns, 4, &po, &prog) < 0);
	CHECK_CONTAINS(log, "func 'ssthresh' doesn't have 2-th argument");
}

/* --- objects --- */

static struct kbpf_object *open_obj(struct kbpf_host *h, const char *file, int jit, char *log, size_t log_size)
{
	char path[512];
	struct kbpf_object *obj = NULL;
	struct kbpf_object_open_opts oo = { .sz = sizeof(oo), .trusted_unverified = 1, .host = h, .log_buf = log, .log_size = log_size,
					    .jit = jit };
	snprintf(path, sizeof(path), "%s/%s", KBPF_TEST_BPF_OBJ_DIR, file);
	if (kbpf_object_open_file(path, &oo, &obj)) {
		fprintf(stderr, "%s: %s\n", path, log);
		return NULL;
	}
	return obj;
}

static void run_instance(int jit)
{
	char log[4096] = "";
	struct kbpf_object *obj = open_obj(host, "struct_ops_verify.bpf.o", jit, log, sizeof(log));
	CHECK(obj);
	if (!obj)
		return;
	int ret = kbpf_object_load(obj);
	if (ret)
		fprintf(stderr, "load: %s\n", kbpf_object_log(obj));
	CHECK(!ret);
	struct kbpf_struct_ops_inst *inst = NULL;
	struct kbpf_struct_ops_opts so = { .sz = sizeof(so), .log_buf = log, .log_size = sizeof(log) };
	check_member_calls = 0;
	/* no opts.type: the host's registered kv_ops rules apply (check_member counts) */
	ret = ret ? ret : kbpf_struct_ops_instantiate(obj, "kv", host, &so, &inst);
	if (ret)
		fprintf(stderr, "instantiate: %s\n", log);
	CHECK(!ret);
	CHECK_EQ_U64(check_member_calls, 4);
	if (inst) {
		struct kv_ops *ops = kbpf_struct_ops_data(inst);
		struct kv_tcp_sock tp = { .sk = { .cwnd = 20 }, .snd_cwnd = 10, .ssthresh = 7 };
		struct kv_sample s = { .acked = 3 };
		CHECK_EQ_U64(ops->ssthresh(&tp.sk), 10);
		tp.sk.peer = &tp.sk;
		CHECK_EQ_U64(ops->ssthresh(&tp.sk), 11);
		ops->acked(&tp.sk, &s);
		CHECK_EQ_U64(tp.snd_cwnd, 13);
		CHECK_EQ_U64(ops->scalars(1, -2, 3, 4), 6);
		ops->release(&tp.sk);
		CHECK_EQ_U64(tp.ssthresh, 0);
		CHECK_EQ_U64(ops->flags, 3);
		CHECK_STR(ops->name, "kv");
		CHECK(!ops->get_info);
		kbpf_struct_ops_free(inst);
	}
	kbpf_object_close(obj);
}

static void test_object_instance(void)
{
	run_instance(0);
	run_instance(1);
}

/* Load the object with only the named "?" program added; the object log says why. */
static int load_with(struct kbpf_host *h, const char *prog, char *log, size_t log_size)
{
	struct kbpf_object *obj = open_obj(h, "struct_ops_verify.bpf.o", 0, log, log_size);
	if (!obj)
		return -ENOENT;
	struct kbpf_program *p = kbpf_object_find_program(obj, prog);
	CHECK(p);
	if (p)
		kbpf_program_set_autoload(p, true);
	int ret = kbpf_object_load(obj);
	snprintf(log, log_size, "%s", kbpf_object_log(obj));
	kbpf_object_close(obj);
	return ret;
}

static void test_object_refusals(void)
{
	char log[8192];
	CHECK(load_with(host, "kv_ctx_write", log, sizeof(log)) < 0);
	CHECK_CONTAINS(log, "program 'kv_ctx_write': invalid bpf_context access off=0 size=8");
	CHECK(load_with(host, "kv_release_helper", log, sizeof(log)) < 0);
	CHECK_CONTAINS(log, "program of this type cannot use helper bpf_ktime_get_ns#5");
	CHECK(!load_with(host, "kv_ssthresh_helper", log, sizeof(log)));
	CHECK_EQ_U64(load_with(host, "kv_get_info", log, sizeof(log)), (uint64_t)-EOPNOTSUPP);
	CHECK_CONTAINS(log, "attach to unsupported member get_info of struct kv_ops");
	CHECK_EQ_U64(load_with(host, "kv_notfn", log, sizeof(log)), (uint64_t)-EINVAL);
	CHECK_CONTAINS(log, "attach to invalid member notfn(@idx 0) of struct kv_bad_ops");
	CHECK_EQ_U64(load_with(host, "kv_twice", log, sizeof(log)), (uint64_t)-EINVAL);
	CHECK_CONTAINS(log, "cannot use prog kv_twice in sec ?struct_ops/twice for func ptr scalars");
}

static void test_gpl_gate(void)
{
	char log[4096] = "";
	struct kbpf_object *obj = open_obj(host, "struct_ops_verify_nogpl.bpf.o", 0, log, sizeof(log));
	CHECK(obj);
	if (!obj)
		return;
	CHECK_EQ_U64(kbpf_object_load(obj), (uint64_t)-EINVAL);
	CHECK_CONTAINS(kbpf_object_log(obj), "struct ops programs must have a GPL compatible license");
	kbpf_object_close(obj);
}

/* A host without struct_ops rules: the programs load unverified, as before. */
static void test_unregistered(void)
{
	struct kbpf_host *h = kbpf_host_new();
	CHECK(h && !kbpf_host_btf_load_self(h));
	char log[4096];
	CHECK(!load_with(h, "kv_ctx_write", log, sizeof(log)));
	struct kbpf_object *obj = open_obj(h, "struct_ops_verify_nogpl.bpf.o", 0, log, sizeof(log));
	CHECK(obj && !kbpf_object_load(obj));
	kbpf_object_close(obj);
	/* rules without a program type: still unverified */
	struct kbpf_struct_ops_type t = { .sz = sizeof(t), .name = "kv_ops" };
	CHECK(!kbpf_host_struct_ops_register(h, &t));
	CHECK(!load_with(h, "kv_ctx_write", log, sizeof(log)));
	kbpf_host_free(h);
}

static void test_registry(void)
{
	struct kbpf_struct_ops_type t = { .sz = sizeof(t), .name = "kv_ops", .prog_type = "kv_ops" };
	CHECK_EQ_U64(kbpf_host_struct_ops_register(host, &t), (uint64_t)-EEXIST);
	t.name = NULL;
	CHECK_EQ_U64(kbpf_host_struct_ops_register(host, &t), (uint64_t)-EINVAL);
	t.name = "";
	CHECK_EQ_U64(kbpf_host_struct_ops_register(host, &t), (uint64_t)-EINVAL);
	CHECK_EQ_U64(kbpf_host_struct_ops_register(NULL, &t), (uint64_t)-EINVAL);
	t.sz = 4;
	CHECK_EQ_U64(kbpf_host_struct_ops_register(host, &t), (uint64_t)-EINVAL);
	const struct kbpf_struct_ops_type *f = kbpf_host_struct_ops_find(host, "kv_ops");
	CHECK(f && f != &t && !strcmp(f->prog_type, "kv_ops") && f->check_member == kv_check_member);
	CHECK(!kbpf_host_struct_ops_find(host, "nope"));
	CHECK(!kbpf_host_struct_ops_find(NULL, "kv_ops"));
	CHECK(!kbpf_host_struct_ops_find(host, NULL));
}

static int setup(void)
{
	host = kbpf_host_new();
	if (!host || kbpf_host_btf_load_self(host))
		return -1;
	const struct btf *btf = kbpf_host_btf(host);
	int s = btf__find_by_name_kind(btf, "kv_sock", BTF_KIND_STRUCT);
	int ts = btf__find_by_name_kind(btf, "kv_tcp_sock", BTF_KIND_STRUCT);
	if (s <= 0 || ts <= 0)
		return -1;
	sock_id = (uint32_t)s;
	tcp_sock_id = (uint32_t)ts;
	struct kbpf_helper_proto ktime = { .name = "bpf_ktime_get_ns", .fn = fake_ktime, .ret_type = KBPF_RET_INTEGER };
	struct kbpf_prog_type plain = { .sz = sizeof(plain), .name = "kv_plain", .linux_type = BPF_PROG_TYPE_STRUCT_OPS };
	struct kbpf_prog_type full = { .sz = sizeof(full), .name = "kv_ops", .linux_type = BPF_PROG_TYPE_STRUCT_OPS,
				       .btf_struct_access = kv_struct_access, .ctx_arg_access = kv_arg_access,
				       .get_func_proto_member = kv_proto };
	struct kbpf_struct_ops_type ops = { .sz = sizeof(ops), .name = "kv_ops", .prog_type = "kv_ops",
					    .check_member = kv_check_member };
	struct kbpf_struct_ops_type bad = { .sz = sizeof(bad), .name = "kv_bad_ops", .prog_type = "kv_ops" };
	if (kbpf_host_helper_register_proto(host, KTIME_ID, &ktime) || kbpf_host_prog_type_register(host, &plain) ||
	    kbpf_host_prog_type_register(host, &full) || kbpf_host_struct_ops_register(host, &ops) ||
	    kbpf_host_struct_ops_register(host, &bad))
		return -1;
	return 0;
}

int main(void)
{
	kv_ops_anchor.flags = 0;
	if (setup()) {
		fprintf(stderr, "setting up the host failed\n");
		return 1;
	}
	RUN(test_scalar_args);
	RUN(test_ctx_read_only);
	RUN(test_struct_arg);
	RUN(test_arg_range);
	RUN(test_arg_kinds);
	RUN(test_void_return);
	RUN(test_member_helpers);
	RUN(test_prog_create);
	RUN(test_object_instance);
	RUN(test_object_refusals);
	RUN(test_gpl_gate);
	RUN(test_unregistered);
	RUN(test_registry);
	kbpf_host_free(host);
	return test_summary();
}

#else

int main(void)
{
	printf("skipped: no host BTF or no BPF objects\n");
	return 0;
}

#endif
