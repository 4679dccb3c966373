/* SPDX-License-Identifier: Apache-2.0 */
/* Trusted BTF pointers (Linux 6.12's PTR_TRUSTED, src/verifier/btf_ctx.c and
 * reg_is_trusted): which context arguments are trusted — struct_ops, tp_btf
 * (BPF_TRACE_RAW_TP), LSM hooks but 6.12's untrusted ones; never fentry/fexit — and what
 * takes only trusted ones: KF_TRUSTED_ARGS kfuncs ("R%d must be referenced or trusted")
 * and read-only helper memory (the expected types end in trusted_ptr_). Then the ways a
 * program might launder an untrusted pointer into a trusted one: a stack spill and fill,
 * a static subprogram, a NULL check, a variable offset, a member walk, and a path pruned
 * against one that held a trusted pointer. This test is the host: its structs, kfuncs and
 * attach targets are described by its own BTF. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <kbpf/kbpf.h>
#include <kbpf/kfunc.h>
#include <kbpf/linux.h>
#include <kbpf/prog_type.h>
#include <kbpf/verifier.h>
#include "test.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

struct tr_obj {
	uint32_t a;
	uint32_t b;
	struct tr_obj *next;
};

struct tr_ops {
	int (*run)(struct tr_obj *o);
};
struct tr_ops tr_ops_anchor; /* keeps the struct in the BTF */

/* attach targets: fentry (a plain and a __nullable argument), LSM hooks (one of 6.12's
 * untrusted hooks, one trusted), tp_btf */
__attribute__((noinline)) int tr_traced(struct tr_obj *o)
{
	return o ? (int)o->a : 0;
}
__attribute__((noinline)) int tr_traced_nullable(struct tr_obj *o__nullable)
{
	return o__nullable ? (int)o__nullable->b : 0;
}
__attribute__((noinline)) int bpf_lsm_task_free(struct tr_obj *o)
{
	return o ? 1 : 0;
}
__attribute__((noinline)) int bpf_lsm_tr_hook(struct tr_obj *o)
{
	return o ? 2 : 0;
}

/* kfuncs: one taking trusted arguments, one returning an unreferenced object */
static struct tr_obj tr_static_obj;
__attribute__((noinline)) void tr_take(struct tr_obj *o)
{
	o->b++;
}
__attribute__((noinline)) struct tr_obj *tr_get(void)
{
	return &tr_static_obj;
}

static const struct kbpf_kfunc tr_kfuncs[] = {
	KBPF_KFUNC(tr_take, KF_TRUSTED_ARGS),
	KBPF_KFUNC(tr_get, 0),
};
static const char *const tr_kfunc_types[] = { "fentry", "fexit", "lsm", "tr_tp_btf", "tr_ops", "sched_cls", NULL };

static struct kbpf_host *host;
static char vlog[16384];

static uint32_t find_id(const char *name, int kind)
{
	int id = btf__find_by_name_kind(kbpf_host_btf(host), name, kind);
	return id > 0 ? (uint32_t)id : 0;
}

/* the type id of member name of struct tr_ops (a pointer to its FUNC_PROTO) */
static uint32_t member_type(const char *name)
{
	const struct btf *btf = kbpf_host_btf(host);
	const struct btf_type *t = btf__type_by_id(btf, find_id("tr_ops", BTF_KIND_STRUCT));
	const struct btf_member *m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(btf, m[i].name_off), name))
			return m[i].type;
	return 0;
}

static int setup(void)
{
	host = kbpf_host_new();
	if (!host || kbpf_linux_host_add(host) || kbpf_host_btf_load_self(host))
		return -1;
	/* tp_btf: a TRACING type attached as BPF_TRACE_RAW_TP (kbpf's Linux host has none);
	 * the same rules as fentry otherwise */
	struct kbpf_prog_type tp = *kbpf_host_prog_type_find(host, "fentry");
	tp.sz = sizeof(tp);
	tp.name = "tr_tp_btf";
	tp.expected_attach_type = BPF_TRACE_RAW_TP;
	/* an fentry type that says nothing about its attach type: not trusted either */
	struct kbpf_prog_type ops = { .sz = sizeof(ops), .name = "tr_ops", .linux_type = BPF_PROG_TYPE_STRUCT_OPS };
	if (kbpf_host_prog_type_register(host, &tp) || kbpf_host_prog_type_register(host, &ops))
		return -1;
	char log[256] = "";
	struct kbpf_kfunc_set_opts so = { .sz = sizeof(so), .name = "tr", .funcs = tr_kfuncs,
					  .nr_funcs = N(tr_kfuncs), .prog_types = tr_kfunc_types,
					  .log_buf = log, .log_size = sizeof(log) };
	if (kbpf_host_kfunc_set_register(host, &so, NULL)) {
		fprintf(stderr, "kfunc set: %s\n", log);
		return -1;
	}
	return 0;
}

/* Verify insns as type attached to func (a FUNC), or to member of tr_ops. */
static int verify(const char *type, const char *func, const struct bpf_insn *insns, size_t cnt)
{
	bool member = !strcmp(type, "tr_ops");
	struct kbpf_verify_opts o = { .sz = sizeof(o), .host = host, .prog_type = type, .license = "GPL",
				      .log_level = KBPF_LOG_LEVEL1, .log_buf = vlog, .log_size = sizeof(vlog),
				      .attach_btf_id = member ? member_type(func) : find_id(func, BTF_KIND_FUNC),
				      .attach_member = member ? func : NULL };
	vlog[0] = 0;
	return kbpf_prog_verify(insns, cnt, &o, NULL);
}
#define VERIFY(type, func, insns) verify(type, func, insns, N(insns))

#define KFUNC(name) BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, (int32_t)find_id(name, BTF_KIND_FUNC))
#define NOT_TRUSTED "R1 must be referenced or trusted\n"

/* The first argument straight to the KF_TRUSTED_ARGS kfunc. */
static void test_ctx_args(void)
{
	const struct bpf_insn take[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, 0),
		KFUNC("tr_take"),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	/* 6.12: fentry/fexit arguments are plain PTR_TO_BTF_ID (prog_args_trusted) */
	CHECK_EQ_U64(VERIFY("fentry", "tr_traced", take), (uint64_t)-EINVAL);
	CHECK_CONTAINS(vlog, NOT_TRUSTED);
	CHECK_EQ_U64(VERIFY("fexit", "tr_traced", take), (uint64_t)-EINVAL);
	CHECK_CONTAINS(vlog, NOT_TRUSTED);
	/* tp_btf, struct_ops and LSM hooks: PTR_TRUSTED */
	CHECK_EQ_U64(VERIFY("tr_tp_btf", "tr_traced", take), 0);
	CHECK_EQ_U64(VERIFY("tr_ops", "run", take), 0);
	CHECK_EQ_U64(VERIFY("lsm", "bpf_lsm_tr_hook", take), 0);
	/* ... but for 6.12's untrusted_lsm_hooks (the object is being freed) */
	CHECK_EQ_U64(VERIFY("lsm", "bpf_lsm_task_free", take), (uint64_t)-EINVAL);
	CHECK_CONTAINS(vlog, NOT_TRUSTED);
	/* an LSM program attached to a bare prototype names no hook: not trusted */
	struct kbpf_verify_opts o = { .sz = sizeof(o), .host = host, .prog_type = "lsm", .license = "GPL",
				      .log_buf = vlog, .log_size = sizeof(vlog) };
	const struct btf_type *hook = btf__type_by_id(kbpf_host_btf(host), find_id("bpf_lsm_tr_hook", BTF_KIND_FUNC));
	o.attach_btf_id = hook ? hook->type : 0;
	CHECK_EQ_U64(kbpf_prog_verify(take, N(take), &o, NULL), (uint64_t)-EINVAL);
	CHECK_CONTAINS(vlog, NOT_TRUSTED);
	/* an unreferenced kfunc result is plain too (6.12's check_kfunc_call) */
	const struct bpf_insn get[] = {
		KFUNC("tr_get"),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
		KFUNC("tr_take"),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(VERIFY("tr_tp_btf", "tr_traced", get), (uint64_t)-EINVAL);
	CHECK_CONTAINS(vlog, NOT_TRUSTED);
}

/* A parameter named *__nullable is maybe-NULL; checked, it is what the type makes it. */
static void test_nullable(void)
{
	const struct bpf_insn unchecked[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, 0),
		BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, 0),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(VERIFY("tr_tp_btf", "tr_traced_nullable", unchecked), (uint64_t)-EACCES);
	CHECK_CONTAINS(vlog, "R1 invalid mem access 'ptr_or_null_'"); /* 6.12: trusted_ptr_or_null_ */
	const struct bpf_insn checked[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, 0),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 1),
		KFUNC("tr_take"),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(VERIFY("tr_tp_btf", "tr_traced_nullable", checked), 0);
	/* a NULL check does not make a fentry argument trusted */
	CHECK_EQ_U64(VERIFY("fentry", "tr_traced_nullable", checked), (uint64_t)-EINVAL);
	CHECK_CONTAINS(vlog, NOT_TRUSTED);
}

/* fexit on a function returning a pointer: the return value may be NULL (a lookup's miss),
 * and nothing can name it __nullable; kbpf's loads through it are plain loads, so the
 * program must check it (6.12 reads it with a fault-tolerant load instead). Before, an
 * unchecked read of a NULL return was accepted and crashed the host. */
__attribute__((noinline)) struct tr_obj *tr_lookup(int key)
{
	return key == 1 ? &tr_static_obj : NULL;
}

static void test_fexit_ret(void)
{
	const struct bpf_insn unchecked[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, 8), /* the return value: slot 1 */
		BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, 4),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(VERIFY("fexit", "tr_lookup", unchecked), (uint64_t)-EACCES);
	CHECK_CONTAINS(vlog, "R1 invalid mem access 'ptr_or_null_'");
	const struct bpf_insn checked[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, 8),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 1),
		BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, 4),
		BPF_MOV64_IMM(BPF_REG_0, 0), /* fexit returns 0 */
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(VERIFY("fexit", "tr_lookup", checked), 0);
	/* the argument stays what it was: not NULL by the host's contract */
	const struct bpf_insn arg[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, 0),
		BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, 4),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(VERIFY("fexit", "tr_traced", arg), 0);
}

/* Read-only helper memory takes trusted_ptr_ only (6.12's mem_types). */
static void test_helper_mem(void)
{
	const struct bpf_insn printk[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, 0),
		BPF_MOV64_IMM(BPF_REG_2, 4),
		BPF_EMIT_CALL(BPF_FUNC_trace_printk),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(VERIFY("fentry", "tr_traced", printk), (uint64_t)-EACCES);
	CHECK_CONTAINS(vlog, "R1 type=ptr_ expected=fp, pkt, pkt_meta, map_key, map_value, mem, ringbuf_mem, buf, "
			     "trusted_ptr_\n");
	CHECK_EQ_U64(VERIFY("tr_tp_btf", "tr_traced", printk), 0);
	/* a kfunc's unreferenced result neither */
	const struct bpf_insn get[] = {
		KFUNC("tr_get"),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
		BPF_MOV64_IMM(BPF_REG_2, 4),
		BPF_EMIT_CALL(BPF_FUNC_trace_printk),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(VERIFY("tr_tp_btf", "tr_traced", get), (uint64_t)-EACCES);
	CHECK_CONTAINS(vlog, "R1 type=ptr_ expected=");
}

/* Ways to launder a fentry argument: none makes it trusted. */
static void test_launder(void)
{
	/* a spill and a fill keep what the pointer is, either way */
	const struct bpf_insn spill[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, 0),
		BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_1, -8),
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_10, -8),
		KFUNC("tr_take"),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(VERIFY("fentry", "tr_traced", spill), (uint64_t)-EINVAL);
	CHECK_CONTAINS(vlog, NOT_TRUSTED);
	CHECK_EQ_U64(VERIFY("tr_tp_btf", "tr_traced", spill), 0);
	/* a static subprogram gets the caller's register as it is */
	const struct bpf_insn sub[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, 0),
		BPF_CALL_REL(2),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
		KFUNC("tr_take"),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(VERIFY("fentry", "tr_traced", sub), (uint64_t)-EINVAL);
	CHECK_CONTAINS(vlog, NOT_TRUSTED);
	CHECK_EQ_U64(VERIFY("tr_tp_btf", "tr_traced", sub), 0);
	/* walking a trusted pointer's member gives a plain pointer (6.12: unless the
	 * member is marked trusted or RCU; a host BTF marks none), NULL-checked or not */
	const struct bpf_insn walk[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, 0),
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_1, 8),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_1, 0, 1),
		KFUNC("tr_take"),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(VERIFY("tr_tp_btf", "tr_traced", walk), (uint64_t)-EINVAL);
	CHECK_CONTAINS(vlog, NOT_TRUSTED);
	/* a trusted pointer moved by a variable offset is no argument (check_func_arg_reg_off) */
	const struct bpf_insn var[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_6, BPF_REG_1, 0),
		BPF_EMIT_CALL(BPF_FUNC_get_prandom_u32),
		BPF_ALU64_IMM(BPF_AND, BPF_REG_0, 8),
		BPF_ALU64_REG(BPF_ADD, BPF_REG_6, BPF_REG_0),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		KFUNC("tr_take"),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	CHECK(VERIFY("tr_tp_btf", "tr_traced", var) < 0);
	CHECK_CONTAINS(vlog, "variable ptr_ access var_off=(0x0; 0x8) disallowed");
}

/* Pruning: a path holding a trusted pointer reaches a checkpoint first; a path holding a
 * plain pointer of the same struct, offset and (cleared) id must not be cut against it
 * (reg_identical compares the trust). The plain one is o->next, NULL-checked. */
static void test_prune(void)
{
	const struct bpf_insn prune[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_6, BPF_REG_1, 0),      /* trusted o */
		BPF_LDX_MEM(BPF_DW, BPF_REG_7, BPF_REG_6, 8),      /* o->next: plain, maybe NULL */
		BPF_JMP_IMM(BPF_JNE, BPF_REG_7, 0, 2),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
		BPF_EMIT_CALL(BPF_FUNC_get_prandom_u32),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_7),               /* the branch's: o->next */
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),               /* fall-through, walked first: o */
		BPF_MOV64_IMM(BPF_REG_6, 0),                       /* a checkpoint after the join */
		BPF_MOV64_IMM(BPF_REG_7, 0),
		KFUNC("tr_take"),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	struct kbpf_verify_opts o = { .sz = sizeof(o), .host = host, .prog_type = "tr_tp_btf", .license = "GPL",
				      .log_level = KBPF_LOG_LEVEL1, .log_buf = vlog, .log_size = sizeof(vlog),
				      .attach_btf_id = find_id("tr_traced", BTF_KIND_FUNC), .test_state_freq = 1 };
	vlog[0] = 0;
	CHECK_EQ_U64(kbpf_prog_verify(prune, N(prune), &o, NULL), (uint64_t)-EINVAL);
	CHECK_CONTAINS(vlog, NOT_TRUSTED);
}

int main(void)
{
	if (setup()) {
		printf("skipped: no host BTF or Linux host\n");
		kbpf_host_free(host);
		return 77;
	}
	RUN(test_ctx_args);
	RUN(test_nullable);
	RUN(test_fexit_ret);
	RUN(test_helper_mem);
	RUN(test_launder);
	RUN(test_prune);
	kbpf_host_free(host);
	return test_summary();
}
