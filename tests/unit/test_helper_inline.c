/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers that are a variable's load (kbpf_helper_proto.inline_load, src/verifier/grow.c):
 * the verifier turns each call into ld_imm64 + load, as Linux inlines bpf_jiffies64;
 * jumps across the patch still land where they did; the interpreter (fast and checked:
 * the variable is readable without a declared region) and the JIT read the variable's
 * current value; a program created without verification still calls fn; a misaligned
 * variable is refused at registration. */
#include <errno.h>
#include <stdlib.h>
#include <linux/bpf.h>
#include <kbpf/kbpf.h>
#include <kbpf/verifier.h>
#include "test.h"

#define HELPER_ID 7000

static _Alignas(8) volatile uint64_t var;
static uint64_t var_fn_calls;

static uint64_t var_fn(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5)
{
	(void)r1, (void)r2, (void)r3, (void)r4, (void)r5;
	var_fn_calls++;
	return var + 1000; /* distinguishable from the inlined load */
}

static struct kbpf_host *new_host(const volatile uint64_t *inline_load)
{
	struct kbpf_host *host = kbpf_host_new();
	struct kbpf_prog_type t = { .sz = sizeof(t), .name = "hi_test", .ctx_size = 8 };
	struct kbpf_helper_proto p = { .name = "get_var", .fn = var_fn, .ret_type = KBPF_RET_INTEGER,
				       .inline_load = inline_load };
	CHECK(host && !kbpf_host_prog_type_register(host, &t));
	CHECK_EQ_U64(kbpf_host_helper_register_proto(host, HELPER_ID, &p), 0);
	return host;
}

/* r0 = get_var(); if r0 == 5 goto +1 (over the next call); r0 = get_var() + 1; exit */
static const struct bpf_insn prog[] = {
	BPF_EMIT_CALL(HELPER_ID),
	BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 5, 1),
	BPF_EMIT_CALL(HELPER_ID),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 1),
	BPF_EXIT_INSN(),
};
#define PROG_CNT (sizeof(prog) / sizeof(prog[0]))

static void test_xlated_form(void)
{
	struct kbpf_host *host = new_host(&var);
	struct kbpf_verify_opts vo = { .sz = sizeof(vo), .host = host, .prog_type = "hi_test", .xlated_alloc = 1 };
	struct kbpf_verify_result vr = { .sz = sizeof(vr) };
	CHECK_EQ_U64(kbpf_prog_verify(prog, PROG_CNT, &vo, &vr), 0);
	CHECK_EQ_U64(vr.xlated_cnt, PROG_CNT + 4);
	const struct bpf_insn *x = vr.xlated_prog;
	uint64_t addr = (uint64_t)(uintptr_t)&var;
	for (int k = 0; x && k < 2; k++) {
		uint32_t at = vr.xlated_idx[k * 2]; /* the two calls: given insns 0 and 2 */
		CHECK_EQ_U64(x[at].code, BPF_LD | BPF_IMM | BPF_DW);
		CHECK_EQ_U64(x[at].dst_reg, BPF_REG_0);
		CHECK_EQ_U64(x[at].src_reg, 0);
		CHECK_EQ_U64((uint32_t)x[at].imm | (uint64_t)(uint32_t)x[at + 1].imm << 32, addr);
		CHECK_EQ_U64(x[at + 2].code, BPF_LDX | BPF_MEM | BPF_DW);
		CHECK(x[at + 2].dst_reg == BPF_REG_0 && x[at + 2].src_reg == BPF_REG_0 && x[at + 2].off == 0);
	}
	/* the jump over the second call now jumps over its three insns and still lands
	 * on the add */
	CHECK(x && x[3].code == (BPF_JMP | BPF_JEQ | BPF_K) && x[3].off == 3);
	CHECK(x && x[3 + 3 + 1].code == (BPF_ALU64 | BPF_ADD | BPF_K));
	free(vr.xlated_prog);
	free(vr.xlated_idx);
	kbpf_host_free(host);
}

static uint64_t run(struct kbpf_prog *p, unsigned flags)
{
	uint64_t ctx = 0;
	struct kbpf_run_opts ro = { .sz = sizeof(ro), .args = { (uint64_t)(uintptr_t)&ctx }, .flags = flags };
	struct kbpf_run_result rr = { .sz = sizeof(rr) };
	char err[256] = "";
	ro.err = err;
	ro.err_size = sizeof(err);
	int ret = kbpf_prog_run_opts(p, &ro, &rr);
	if (ret)
		fprintf(stderr, "run: %d: %s\n", ret, err);
	CHECK_EQ_U64(ret, 0);
	return rr.retval;
}

static void test_runs_read_variable(void)
{
	struct kbpf_host *host = new_host(&var);
	for (int jit = 0; jit <= 1; jit++) {
		struct kbpf_prog_opts po = { .sz = sizeof(po), .host = host, .prog_type = "hi_test", .jit = jit };
		struct kbpf_prog *p = NULL;
		CHECK_EQ_U64(kbpf_prog_create(prog, PROG_CNT, &po, &p), 0);
		CHECK(!jit || kbpf_prog_is_jited(p));
		var_fn_calls = 0;
		var = 5;
		CHECK_EQ_U64(run(p, 0), 6);
		CHECK_EQ_U64(run(p, KBPF_RUN_CHECKED), 6);
		var = 41; /* a later value is seen: a load, not a constant */
		CHECK_EQ_U64(run(p, 0), 42);
		CHECK_EQ_U64(run(p, KBPF_RUN_CHECKED), 42);
		CHECK_EQ_U64(var_fn_calls, 0);
		kbpf_prog_free(p);
	}
	kbpf_host_free(host);
}

static void test_unverified_calls_fn(void)
{
	struct kbpf_host *host = new_host(&var);
	struct kbpf_prog_opts po = { .sz = sizeof(po), .trusted_unverified = 1, .host = host };
	struct kbpf_prog *p = NULL;
	CHECK_EQ_U64(kbpf_prog_create(prog, PROG_CNT, &po, &p), 0);
	var = 5;
	var_fn_calls = 0;
	CHECK_EQ_U64(run(p, 0), 1005 + 1); /* 1005 is not 5: the second call */
	CHECK_EQ_U64(var_fn_calls, 2);
	kbpf_prog_free(p);
	kbpf_host_free(host);
}

static void test_without_inline_load(void)
{
	struct kbpf_host *host = new_host(NULL);
	struct kbpf_verify_opts vo = { .sz = sizeof(vo), .host = host, .prog_type = "hi_test", .xlated_alloc = 1 };
	struct kbpf_verify_result vr = { .sz = sizeof(vr) };
	CHECK_EQ_U64(kbpf_prog_verify(prog, PROG_CNT, &vo, &vr), 0);
	CHECK_EQ_U64(vr.xlated_cnt, PROG_CNT);
	free(vr.xlated_prog);
	free(vr.xlated_idx);
	kbpf_host_free(host);
}

static void test_misaligned_refused(void)
{
	static _Alignas(8) uint64_t two[2];
	struct kbpf_host *host = kbpf_host_new();
	struct kbpf_helper_proto p = { .name = "get_var", .fn = var_fn, .ret_type = KBPF_RET_INTEGER,
				       .inline_load = (const volatile uint64_t *)((char *)two + 4) };
	CHECK_EQ_U64(kbpf_host_helper_register_proto(host, HELPER_ID, &p), (uint64_t)-EINVAL);
	CHECK(!kbpf_host_helper_proto(host, HELPER_ID));
	kbpf_host_free(host);
}

int main(void)
{
	RUN(test_xlated_form);
	RUN(test_runs_read_variable);
	RUN(test_unverified_calls_fn);
	RUN(test_without_inline_load);
	RUN(test_misaligned_refused);
	return test_summary();
}
