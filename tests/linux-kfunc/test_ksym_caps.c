/* SPDX-License-Identifier: Apache-2.0 */
/* linux.ksym_caps: what Linux's kfunc selftests need besides kfuncs, rule by rule —
 * host variables for typed __ksym (kbpf_host_var_register; the verifier's
 * check_pseudo_btf_id typing; bpf_per_cpu_ptr / bpf_this_cpu_ptr), the loader's
 * capabilities (caps: CAP_SYS_BOOT for destructive kfuncs, CAP_BPF for privileged rules)
 * and syscall test runs refusing a context shorter than max_ctx_offset. The host is this
 * binary: Linux's program types, its own BTF, Linux's test kfuncs and bpf_prog_active. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <kbpf/kbpf.h>
#include <kbpf/kfunc.h>
#include <kbpf/verifier.h>
#include <kbpf/linux.h>
#include "../unit/test.h"

/* A per-CPU variable in the BTF (a VAR) that nobody registers. */
KBPF_HOST_PERCPU int kbpf_test_unregistered_var;
extern int bpf_prog_active; /* hosts/linux/test_kfuncs.c */

static struct kbpf_host *host;
static char log_buf[65536];

#define N(a) (sizeof(a) / sizeof((a)[0]))

#define VAR_ID(name) test_btf_id(host, name, BTF_KIND_VAR)
#define KSYM(dst, id) BPF_LD_IMM64_RAW(dst, BPF_PSEUDO_BTF_ID, id)

/* Verify as type (sched_cls if NULL) with caps; expect NULL: must pass, else the log
 * must contain expect. Returns the error. */
static int verify_caps(const struct bpf_insn *insns, size_t n, const char *type, unsigned caps, int unpriv,
		       const char *expect)
{
	struct kbpf_verify_opts o = {
		.sz = sizeof(o), .host = host, .prog_type = type ? type : "sched_cls", .license = "GPL",
		.unprivileged = unpriv, .log_level = KBPF_LOG_LEVEL1, .log_buf = log_buf, .log_size = sizeof(log_buf),
		.caps = caps,
	};
	int err = kbpf_prog_verify(insns, n, &o, NULL);
	return check_verdict(err, log_buf, expect);
}

static int verify(const struct bpf_insn *insns, size_t n, const char *expect)
{
	return verify_caps(insns, n, NULL, 0, 0, expect);
}

/* Create (verified as sched_cls) and run with ctx NULL; returns R0 or -1. */
static int64_t create_run(const struct bpf_insn *insns, size_t n, int jit)
{
	struct kbpf_prog_opts po = { .sz = sizeof(po), .host = host, .prog_type = "sched_cls", .license = "GPL",
				     .log_buf = log_buf, .log_size = sizeof(log_buf), .jit = jit };
	struct kbpf_prog *prog = NULL;
	uint64_t r0 = 0;
	int ret = kbpf_prog_create(insns, n, &po, &prog);
	if (ret) {
		fprintf(stderr, "create: %d %s\n", ret, log_buf);
		CHECK_EQ_U64(ret, 0);
		return -1;
	}
	ret = kbpf_prog_run(prog, NULL, &r0);
	kbpf_prog_free(prog);
	CHECK_EQ_U64(ret, 0);
	return ret ? -1 : (int64_t)r0;
}

static void test_host_var_register(void)
{
	struct kbpf_host_var bad[] = { { "no_such_variable_anywhere", &bpf_prog_active } };
	struct kbpf_host_var again[] = { KBPF_HOST_VAR(bpf_prog_active) };
	struct kbpf_host_var twice[] = { KBPF_HOST_VAR(kbpf_test_unregistered_var),
					 KBPF_HOST_VAR(kbpf_test_unregistered_var) };
	struct kbpf_host_var noaddr[] = { { "kbpf_test_unregistered_var", NULL } };
	char err[256];
	struct kbpf_host *bare = kbpf_host_new();

	CHECK_EQ_U64(kbpf_host_var_register(host, bad, 1, err, sizeof(err)), -EINVAL);
	CHECK_CONTAINS(err, "no VAR of that name");
	CHECK_EQ_U64(kbpf_host_var_register(host, again, 1, err, sizeof(err)), -EEXIST);
	CHECK_CONTAINS(err, "registered already");
	CHECK_EQ_U64(kbpf_host_var_register(host, twice, 2, err, sizeof(err)), -EEXIST);
	CHECK_EQ_U64(kbpf_host_var_register(host, noaddr, 1, err, sizeof(err)), -EINVAL);
	CHECK(kbpf_host_var_addr(host, (uint32_t)VAR_ID("bpf_prog_active")) == &bpf_prog_active);
	CHECK(kbpf_host_var_addr(host, (uint32_t)VAR_ID("kbpf_test_unregistered_var")) == NULL);
	CHECK_EQ_U64(kbpf_host_var_register(bare, again, 1, err, sizeof(err)), -ENOENT);
	kbpf_host_free(bare);
}

/* kfunc_call_test_subprog.c's use: bpf_per_cpu_ptr(&bpf_prog_active, cpu), read. */
static void test_percpu_read(void)
{
	int32_t id = VAR_ID("bpf_prog_active");
	struct bpf_insn ok[] = {
		KSYM(BPF_REG_1, id),
		BPF_MOV64_IMM(BPF_REG_2, 0),
		BPF_EMIT_CALL(BPF_FUNC_per_cpu_ptr),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2),
		BPF_MOV64_IMM(BPF_REG_0, -1),
		BPF_EXIT_INSN(),
		BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	verify(ok, N(ok), NULL);
	bpf_prog_active = 5;
	CHECK_EQ_U64(create_run(ok, N(ok), 0), 5);
	CHECK_EQ_U64(create_run(ok, N(ok), 1), 5);
	bpf_prog_active = 0;
	/* memory of the type's size (4), read-only, maybe NULL */
	struct bpf_insn oob[] = {
		KSYM(BPF_REG_1, id),
		BPF_MOV64_IMM(BPF_REG_2, 0),
		BPF_EMIT_CALL(BPF_FUNC_per_cpu_ptr),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1),
		BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 4),
		BPF_EXIT_INSN(),
	};
	verify(oob, N(oob), "invalid access to memory, mem_size=4 off=4 size=4");
	struct bpf_insn wr[] = {
		KSYM(BPF_REG_1, id),
		BPF_MOV64_IMM(BPF_REG_2, 0),
		BPF_EMIT_CALL(BPF_FUNC_per_cpu_ptr),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1),
		BPF_ST_MEM(BPF_W, BPF_REG_0, 0, 1),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	verify(wr, N(wr), "R0 cannot write into rdonly_mem");
	struct bpf_insn nochk[] = {
		KSYM(BPF_REG_1, id),
		BPF_MOV64_IMM(BPF_REG_2, 0),
		BPF_EMIT_CALL(BPF_FUNC_per_cpu_ptr),
		BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	verify(nochk, N(nochk), "invalid mem access 'rdonly_mem_or_null'");
	/* a CPU kbpf does not have: NULL at run time */
	struct bpf_insn badcpu[] = {
		KSYM(BPF_REG_1, id),
		BPF_MOV64_IMM(BPF_REG_2, 0x7fffffff),
		BPF_EMIT_CALL(BPF_FUNC_per_cpu_ptr),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2),
		BPF_MOV64_IMM(BPF_REG_0, 77),
		BPF_EXIT_INSN(),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(create_run(badcpu, N(badcpu), 0), 77);
	/* bpf_this_cpu_ptr never returns NULL */
	struct bpf_insn this_cpu[] = {
		KSYM(BPF_REG_1, id),
		BPF_EMIT_CALL(BPF_FUNC_this_cpu_ptr),
		BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	bpf_prog_active = 9;
	CHECK_EQ_U64(create_run(this_cpu, N(this_cpu), 0), 9);
	bpf_prog_active = 0;
}

/* Linux's check_pseudo_btf_id rules and messages, and the per-CPU pointer's own rules. */
static void test_pseudo_btf_id(void)
{
	int32_t id = VAR_ID("bpf_prog_active");
	struct bpf_insn deref[] = {
		KSYM(BPF_REG_1, id),
		BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, 0),
		BPF_EXIT_INSN(),
	};
	verify(deref, N(deref), "R1 invalid mem access 'percpu_ptr_'");
	struct bpf_insn bad_id[] = {
		KSYM(BPF_REG_1, 0x7ffffff),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(verify(bad_id, N(bad_id), "ldimm64 insn specifies invalid btf_id 134217727."), -ENOENT);
	struct bpf_insn not_var[] = {
		KSYM(BPF_REG_1, test_btf_id(host, "bpf_kfunc_call_test1", BTF_KIND_FUNC)),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(verify(not_var, N(not_var), "in ldimm64 isn't KIND_VAR."), -EINVAL);
	struct bpf_insn unreg[] = {
		KSYM(BPF_REG_1, VAR_ID("kbpf_test_unregistered_var")),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(verify(unreg, N(unreg),
			    "ldimm64 failed to find the address for kernel symbol 'kbpf_test_unregistered_var'."),
		     -ENOENT);
	struct bpf_insn fd[] = {
		BPF_LD_IMM64_RAW_FULL(BPF_REG_1, BPF_PSEUDO_BTF_ID, 0, 0, id, 3),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	verify(fd, N(fd), "invalid module BTF object FD specified.");
	/* only per-CPU BTF pointers go to bpf_per_cpu_ptr */
	struct bpf_insn stack[] = {
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -8),
		BPF_MOV64_IMM(BPF_REG_2, 0),
		BPF_EMIT_CALL(BPF_FUNC_per_cpu_ptr),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	verify(stack, N(stack), "R1 type=fp expected=percpu_ptr_");
}

/* caps: CAP_SYS_BOOT for destructive kfuncs; CAP_BPF (or SYS_ADMIN) for privileged rules. */
static void test_caps(void)
{
	struct bpf_insn destructive[] = {
		BPF_CALL_KFUNC(0, test_btf_id(host, "bpf_kfunc_call_test_destructive", BTF_KIND_FUNC)),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	static const char msg[] = "destructive kfunc calls require CAP_SYS_BOOT capabilities";
	verify_caps(destructive, N(destructive), NULL, 0, 0, NULL);
	verify_caps(destructive, N(destructive), NULL, KBPF_CAP_ALL, 0, NULL);
	verify_caps(destructive, N(destructive), NULL, KBPF_CAP_BPF | KBPF_CAP_NET_ADMIN | KBPF_CAP_SYS_BOOT, 0, NULL);
	/* sched_cls is a networking type: Linux's bpf_prog_load wants CAP_NET_ADMIN */
	CHECK_EQ_U64(verify_caps(destructive, N(destructive), NULL, KBPF_CAP_BPF | KBPF_CAP_SYS_BOOT, 0,
				 "program type sched_cls needs a capability the loader lacks"),
		     -EPERM);
	CHECK_EQ_U64(verify_caps(destructive, N(destructive), NULL, KBPF_CAP_ALL & ~KBPF_CAP_SYS_BOOT, 0, msg), -EACCES);
	/* SYS_ADMIN implies CAP_BPF, not CAP_SYS_BOOT (as in Linux) */
	CHECK_EQ_U64(verify_caps(destructive, N(destructive), NULL, KBPF_CAP_SYS_ADMIN, 0, msg), -EACCES);
	/* the old no_destructive still says the same */
	struct kbpf_verify_opts o = { .sz = sizeof(o), .host = host, .prog_type = "sched_cls", .license = "GPL",
				      .log_buf = log_buf, .log_size = sizeof(log_buf), .no_destructive = 1 };
	CHECK_EQ_U64(kbpf_prog_verify(destructive, N(destructive), &o, NULL), -EACCES);
	CHECK_CONTAINS(log_buf, msg);

	/* without CAP_BPF: Linux's unprivileged rules, as unprivileged = 1 */
	struct bpf_insn leak[] = {
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_10),
		BPF_EXIT_INSN(),
	};
	verify_caps(leak, N(leak), "socket_filter", 0, 0, NULL);
	verify_caps(leak, N(leak), "socket_filter", KBPF_CAP_SYS_ADMIN, 0, NULL);
	CHECK_EQ_U64(verify_caps(leak, N(leak), "socket_filter", 0, 1, "R0 leaks addr as return value"), -EACCES);
	CHECK_EQ_U64(verify_caps(leak, N(leak), "socket_filter", KBPF_CAP_NONE, 0, "R0 leaks addr as return value"),
		     -EACCES);
	CHECK_EQ_U64(verify_caps(leak, N(leak), "socket_filter", KBPF_CAP_SYS_BOOT, 0, "R0 leaks addr as return value"),
		     -EACCES);

	/* through kbpf_prog_create too */
	struct kbpf_prog_opts po = { .sz = sizeof(po), .host = host, .prog_type = "sched_cls", .license = "GPL",
				     .log_buf = log_buf, .log_size = sizeof(log_buf),
				     .caps = KBPF_CAP_ALL & ~KBPF_CAP_SYS_BOOT };
	struct kbpf_prog *prog = NULL;
	CHECK_EQ_U64(kbpf_prog_create(destructive, N(destructive), &po, &prog), -EACCES);
	CHECK_CONTAINS(log_buf, msg);
	CHECK(!prog);
}

/* Linux's bpf_prog_test_run_syscall: ctx_size_in below max_ctx_offset is -EINVAL. */
static void test_syscall_ctx(void)
{
	struct bpf_insn insns[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, 16),
		BPF_MOV64_IMM(BPF_REG_3, 7),
		BPF_STX_MEM(BPF_DW, BPF_REG_1, BPF_REG_3, 0),
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_2),
		BPF_EXIT_INSN(),
	};
	struct kbpf_prog_opts po = { .sz = sizeof(po), .host = host, .prog_type = "syscall", .license = "GPL",
				     .log_buf = log_buf, .log_size = sizeof(log_buf) };
	struct kbpf_prog *prog = NULL;
	uint64_t ctx[4] = { 0, 0, 42, 0 };
	uint32_t retval = 0;

	CHECK_EQ_U64(kbpf_prog_create(insns, N(insns), &po, &prog), 0);
	if (!prog)
		return;
	CHECK_EQ_U64(kbpf_prog_max_ctx_offset(prog), 24);
	CHECK_EQ_U64(kbpf_linux_test_run_syscall(prog, NULL, 0, &retval), -EINVAL);
	CHECK_EQ_U64(kbpf_linux_test_run_syscall(prog, ctx, 23, &retval), -EINVAL);
	CHECK_EQ_U64(kbpf_linux_test_run_syscall(prog, ctx, 65536, &retval), -EINVAL);
	CHECK_EQ_U64(kbpf_linux_test_run_syscall(prog, ctx, 24, &retval), 0);
	CHECK_EQ_U64(retval, 42);
	CHECK_EQ_U64(ctx[0], 7); /* the copy is written back */
	CHECK_EQ_U64(ctx[3], 0);
	kbpf_prog_free(prog);

	/* a memory argument reaching into the context counts (kfunc_syscall_test_fail) */
	struct bpf_insn mem[] = {
		BPF_MOV64_IMM(BPF_REG_2, 25),
		BPF_CALL_KFUNC(0, test_btf_id(host, "bpf_kfunc_call_test_mem_len_pass1", BTF_KIND_FUNC)),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	CHECK_EQ_U64(kbpf_prog_create(mem, N(mem), &po, &prog), 0);
	CHECK_EQ_U64(kbpf_prog_max_ctx_offset(prog), 25);
	kbpf_prog_free(prog);
}

/* A host variable that is not per-CPU (a BTF with other VARs than pahole 1.24 writes: built
 * here with libbpf): an int is read-only memory of 4 bytes, a struct a BTF pointer. */
static int plain_int = 31;
static struct {
	int a, b;
} plain_pair = { 5, 6 };

static void test_plain_var(void)
{
	struct btf *b = btf__new_empty();
	char path[] = "/tmp/kbpf-ksym-btf-XXXXXX", err[256];
	uint32_t size = 0;
	int fd = mkstemp(path);
	int t_int = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	int t_pair = btf__add_struct(b, "pair", 8);
	btf__add_field(b, "a", t_int, 0, 0);
	btf__add_field(b, "b", t_int, 32, 0);
	int v_int = btf__add_var(b, "plain_int", BTF_VAR_GLOBAL_ALLOCATED, t_int);
	int v_pair = btf__add_var(b, "plain_pair", BTF_VAR_GLOBAL_ALLOCATED, t_pair);
	const void *raw = btf__raw_data(b, &size);
	CHECK(fd >= 0 && raw && v_int > 0 && v_pair > 0);
	CHECK(write(fd, raw, size) == (ssize_t)size);
	close(fd);
	btf__free(b);

	struct kbpf_host *h = kbpf_host_new();
	CHECK(h && !kbpf_linux_host_add(h));
	CHECK_EQ_U64(kbpf_host_btf_load_file(h, path), 0);
	unlink(path);
	struct kbpf_host_var vars[] = { { "plain_int", &plain_int }, { "plain_pair", &plain_pair } };
	CHECK_EQ_U64(kbpf_host_var_register(h, vars, 2, err, sizeof(err)), 0);

	struct bpf_insn rd_int[] = {
		KSYM(BPF_REG_1, v_int),
		BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, 0),
		BPF_EXIT_INSN(),
	};
	struct bpf_insn wr_int[] = {
		KSYM(BPF_REG_1, v_int),
		BPF_ST_MEM(BPF_W, BPF_REG_1, 0, 1),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	struct bpf_insn rd_pair[] = {
		KSYM(BPF_REG_1, v_pair),
		BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, 4),
		BPF_EXIT_INSN(),
	};
	struct kbpf_prog_opts po = { .sz = sizeof(po), .host = h, .prog_type = "socket_filter", .license = "GPL",
				     .log_buf = log_buf, .log_size = sizeof(log_buf) };
	struct kbpf_prog *prog = NULL;
	uint64_t r0 = 0;
	if (!kbpf_prog_create(rd_int, N(rd_int), &po, &prog) && !kbpf_prog_run(prog, NULL, &r0))
		CHECK_EQ_U64(r0, 31);
	else
		CHECK(!*"rd_int: not loaded or not run");
	kbpf_prog_free(prog);
	prog = NULL;
	CHECK_EQ_U64(kbpf_prog_create(wr_int, N(wr_int), &po, &prog), -EACCES);
	CHECK_CONTAINS(log_buf, "R1 cannot write into rdonly_mem");
	if (!kbpf_prog_create(rd_pair, N(rd_pair), &po, &prog) && !kbpf_prog_run(prog, NULL, &r0))
		CHECK_EQ_U64(r0, 6);
	else
		CHECK(!*"rd_pair: not loaded or not run");
	kbpf_prog_free(prog);
	kbpf_host_free(h);
}

int main(void)
{
	char err[256] = "";

	host = kbpf_host_new();
	if (!host || kbpf_linux_host_add(host) || kbpf_host_btf_load_self(host) ||
	    kbpf_linux_host_add_test_kfuncs(host, err, sizeof(err))) {
		fprintf(stderr, "test host: %s\n", err);
		return 1;
	}
	RUN(test_host_var_register);
	RUN(test_percpu_read);
	RUN(test_pseudo_btf_id);
	RUN(test_caps);
	RUN(test_syscall_ctx);
	RUN(test_plain_var);
	kbpf_host_free(host);
	return test_summary();
}
