/* SPDX-License-Identifier: Apache-2.0 */
/* bpf_loop inlining (src/verifier/loop_inline.c, Linux 6.1's optimize_bpf_loop): which
 * calls are inlined and which are not, the rewritten program's shape (Linux's 19
 * instructions, stack slots below the subprogram's depth), and that every program gives
 * the same result on the interpreter (fast and checked) and on the JIT, inlined or not. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <linux/bpf.h>
#include <kbpf/kbpf.h>
#include <kbpf/linux.h>
#include <kbpf/verifier.h>
#include "test.h"
#include "callback_prog.h"

#define PTYPE "syscall" /* bpf_loop allowed, ctx: the caller's buffer */
#define PATCH_LEN 19

static struct kbpf_host *host;
static struct btf *btf;
static int fn_main, fn_cb; /* FUNC ids: int main(void *ctx), int cb(int i, void *ctx) */

static void setup(void)
{
	host = kbpf_host_new();
	CHECK(host && !kbpf_linux_host_add(host));
	btf = callback_btf_new(&fn_main, &fn_cb);
}

/* func_info: starts[] of the subprograms, main first; each is a main-like function
 * unless its bit in cb_mask says callback. */
struct prog_desc {
	const struct bpf_insn *insns;
	size_t cnt;
	int starts[8];
	int nr;
	unsigned cb_mask;
};

static void fill_fi(const struct prog_desc *d, struct bpf_func_info *fi)
{
	for (int i = 0; i < d->nr; i++)
		fi[i] = (struct bpf_func_info){ (uint32_t)d->starts[i], (uint32_t)((d->cb_mask >> i) & 1 ? fn_cb : fn_main) };
}

/* Verify with the rewritten program asked for; *xl (free it) and *xcnt receive it. */
static int verify(const struct prog_desc *d, struct bpf_insn **xl, uint32_t *xcnt, uint32_t *depth)
{
	struct bpf_func_info fi[8];
	static char log[1 << 16];
	fill_fi(d, fi);
	struct kbpf_verify_opts vo = { .sz = sizeof(vo), .host = host, .prog_type = PTYPE, .license = "GPL",
				       .log_buf = log, .log_size = sizeof(log), .prog_btf = btf, .func_info = fi,
				       .nr_func_info = (uint32_t)d->nr, .xlated_alloc = 1 };
	struct kbpf_verify_result vr = { .sz = sizeof(vr) };
	int ret = kbpf_prog_verify(d->insns, d->cnt, &vo, &vr);
	if (ret)
		fprintf(stderr, "verify: %d: %s\n", ret, log);
	*xl = vr.xlated_prog;
	*xcnt = vr.xlated_cnt;
	if (!ret) {
		/* where each insn went: after each inlined call, 18 further on */
		CHECK(vr.xlated_idx && vr.xlated_idx[0] == 0 && vr.xlated_idx[d->cnt] == vr.xlated_cnt);
		for (size_t i = 0; vr.xlated_idx && i < d->cnt; i++) {
			uint32_t step = vr.xlated_idx[i + 1] - vr.xlated_idx[i];
			CHECK(step == 1 || (step == PATCH_LEN && vr.xlated_prog[vr.xlated_idx[i]].code ==
								     (BPF_JMP | BPF_JLE | BPF_K)));
		}
	}
	free(vr.xlated_idx);
	for (int i = 0; depth && i < d->nr; i++)
		depth[i] = vr.stack_depth[i];
	return ret;
}

static int count_loop_helper_calls(const struct bpf_insn *p, size_t n)
{
	int k = 0;
	for (size_t i = 0; i < n; i++)
		k += p[i].code == (BPF_JMP | BPF_CALL) && p[i].src_reg == 0 && p[i].imm == BPF_FUNC_loop;
	return k;
}

/* The program's R0 on engine 0 (fast interpreter), 1 (checked interpreter), 2 (JIT). */
static uint64_t run(const struct prog_desc *d, int engine, uint64_t *ctx, size_t *xcnt)
{
	struct bpf_func_info fi[8];
	char log[4096] = "";
	struct kbpf_prog *prog = NULL;
	uint64_t r0 = 0xdead;
	fill_fi(d, fi);
	struct kbpf_prog_opts po = { .sz = sizeof(po), .host = host, .prog_type = PTYPE, .license = "GPL",
				     .log_buf = log, .log_size = sizeof(log), .prog_btf = btf, .func_info = fi,
				     .nr_func_info = (uint32_t)d->nr, .jit = engine == 2 };
	int ret = kbpf_prog_create(d->insns, d->cnt, &po, &prog);
	CHECK(ret == 0);
	if (ret) {
		fprintf(stderr, "create: %d: %s\n", ret, log);
		return r0;
	}
	if (xcnt) {
		size_t n = 0;
		const uint32_t *idx = kbpf_prog_xlated_idx(prog, &n);
		kbpf_prog_insns(prog, xcnt);
		CHECK(idx && n == d->cnt + 1 && idx[d->cnt] == *xcnt);
	}
	char err[256] = "";
	ret = callback_prog_run(prog, engine, ctx, &r0, err, sizeof(err));
	if (ret)
		fprintf(stderr, "run on engine %d: %s\n", engine, err);
	CHECK(ret == 0);
	kbpf_prog_free(prog);
	return r0;
}

/* Each engine gives want; ctx is reset to ctx0 before each run. */
static void check_runs(const struct prog_desc *d, uint64_t ctx0, uint64_t want)
{
	for (int e = 0; e < 3; e++) {
		uint64_t ctx[8] = { ctx0 };
		uint64_t got = run(d, e, ctx, NULL);
		if (got != want)
			fprintf(stderr, "engine %d\n", e);
		CHECK_EQ_U64(got, want);
	}
}


/* sum of the indexes into a stack counter: (iterations << 32) | sum */
static const struct bpf_insn prog_sum[] = {
	BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0),
	BPF_MOV64_IMM(BPF_REG_1, 1000),
	LD_FUNC(BPF_REG_2, 12 - 2 - 1),
	BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -8),
	BPF_MOV64_IMM(BPF_REG_4, 0),
	CALL_LOOP(),
	BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_10, -8),
	BPF_ALU64_IMM(BPF_LSH, BPF_REG_0, 32),
	BPF_ALU64_REG(BPF_OR, BPF_REG_0, BPF_REG_1),
	BPF_EXIT_INSN(),
	/* 12: cb(i, ctx): *ctx += i */
	BPF_LDX_MEM(BPF_DW, BPF_REG_3, BPF_REG_2, 0),
	BPF_ALU64_REG(BPF_ADD, BPF_REG_3, BPF_REG_1),
	BPF_STX_MEM(BPF_DW, BPF_REG_2, BPF_REG_3, 0),
	BPF_MOV64_IMM(BPF_REG_0, 0),
	BPF_EXIT_INSN(),
};
#define SUM_WANT ((1000ull << 32) | 499500ull)

static void test_inlined_simple(void)
{
	struct prog_desc d = { prog_sum, sizeof(prog_sum) / sizeof(prog_sum[0]), { 0, 12 }, 2, 2 };
	struct bpf_insn *xl = NULL;
	uint32_t xcnt = 0, depth[2];
	CHECK(verify(&d, &xl, &xcnt, depth) == 0);
	CHECK(xl && xcnt == d.cnt + PATCH_LEN - 1);
	if (xl && xcnt == d.cnt + PATCH_LEN - 1) {
		CHECK(count_loop_helper_calls(xl, xcnt) == 0);
		/* the call became Linux's loop at insn 7; depth 8: slots at -32, -24, -16 */
		CHECK(xl[7].code == (BPF_JMP | BPF_JLE | BPF_K) && xl[7].dst_reg == 1 && xl[7].imm == 8 * 1024 * 1024);
		CHECK(xl[10].code == (BPF_STX | BPF_MEM | BPF_DW) && xl[10].src_reg == 6 && xl[10].off == -32);
		CHECK(xl[12].off == -16 && xl[12].src_reg == 8);
		/* the BPF-to-BPF call reaches the callback, now at 12 + 18 */
		CHECK(xl[19].code == (BPF_JMP | BPF_CALL) && xl[19].src_reg == BPF_PSEUDO_CALL &&
		      19 + xl[19].imm + 1 == 30);
		/* the ld_imm64 of the function moved with it */
		CHECK(xl[2].src_reg == BPF_PSEUDO_FUNC && 2 + xl[2].imm + 1 == 30);
		CHECK(depth[0] == 8 + 24 && depth[1] == 0);
	}
	free(xl);
	size_t n = 0;
	uint64_t ctx[8] = { 0 };
	CHECK_EQ_U64(run(&d, 0, ctx, &n), SUM_WANT);
	CHECK(n == d.cnt + PATCH_LEN - 1); /* what runs is the inlined program */
	check_runs(&d, 0, SUM_WANT);
}

/* flags from the context: not a known 0, so not inlined; same result with flags 0 */
static const struct bpf_insn prog_flags_ctx[] = {
	BPF_LDX_MEM(BPF_DW, BPF_REG_4, BPF_REG_1, 0),
	BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0),
	BPF_MOV64_IMM(BPF_REG_1, 1000),
	LD_FUNC(BPF_REG_2, 12 - 3 - 1),
	BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -8),
	CALL_LOOP(),
	BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_10, -8),
	BPF_ALU64_IMM(BPF_LSH, BPF_REG_0, 32),
	BPF_ALU64_REG(BPF_OR, BPF_REG_0, BPF_REG_1),
	BPF_EXIT_INSN(),
	/* 12: cb */
	BPF_LDX_MEM(BPF_DW, BPF_REG_3, BPF_REG_2, 0),
	BPF_ALU64_REG(BPF_ADD, BPF_REG_3, BPF_REG_1),
	BPF_STX_MEM(BPF_DW, BPF_REG_2, BPF_REG_3, 0),
	BPF_MOV64_IMM(BPF_REG_0, 0),
	BPF_EXIT_INSN(),
};

static void test_not_inlined_flags(void)
{
	struct prog_desc d = { prog_flags_ctx, sizeof(prog_flags_ctx) / sizeof(prog_flags_ctx[0]), { 0, 12 }, 2, 2 };
	struct bpf_insn *xl = NULL;
	uint32_t xcnt = 0, depth[2];
	CHECK(verify(&d, &xl, &xcnt, depth) == 0);
	CHECK(xl && xcnt == d.cnt && count_loop_helper_calls(xl, xcnt) == 1);
	CHECK(depth[0] == 8);
	free(xl);
	check_runs(&d, 0, SUM_WANT); /* the helper: identical result */
	/* nonzero flags: the helper's -EINVAL, in R0's upper half */
	check_runs(&d, 1, ((uint64_t)-EINVAL << 32) | 0);
}

/* the callback depends on the path (ctx[0]): not inlined */
static const struct bpf_insn prog_two_cbs[] = {
	BPF_LDX_MEM(BPF_DW, BPF_REG_6, BPF_REG_1, 0),
	BPF_MOV64_IMM(BPF_REG_1, 10),
	LD_FUNC(BPF_REG_2, 11 - 2 - 1),
	BPF_JMP_IMM(BPF_JEQ, BPF_REG_6, 0, 2),
	LD_FUNC(BPF_REG_2, 13 - 5 - 1),
	BPF_MOV64_IMM(BPF_REG_3, 0),
	BPF_MOV64_IMM(BPF_REG_4, 0),
	CALL_LOOP(),
	BPF_EXIT_INSN(),
	/* 11: cb 1: go on */
	BPF_MOV64_IMM(BPF_REG_0, 0),
	BPF_EXIT_INSN(),
	/* 13: cb 2: stop at i == 3 */
	BPF_MOV64_IMM(BPF_REG_0, 0),
	BPF_JMP_IMM(BPF_JNE, BPF_REG_1, 3, 1),
	BPF_MOV64_IMM(BPF_REG_0, 1),
	BPF_EXIT_INSN(),
};

static void test_not_inlined_two_callbacks(void)
{
	struct prog_desc d = { prog_two_cbs, sizeof(prog_two_cbs) / sizeof(prog_two_cbs[0]), { 0, 11, 13 }, 3, 6 };
	struct bpf_insn *xl = NULL;
	uint32_t xcnt = 0;
	CHECK(verify(&d, &xl, &xcnt, NULL) == 0);
	CHECK(xl && xcnt == d.cnt && count_loop_helper_calls(xl, xcnt) == 1);
	free(xl);
	check_runs(&d, 0, 10);
	check_runs(&d, 1, 4);
}

/* The same callback on both paths (Linux's "inline simple bpf_loop call"): inlined, and the
 * early stop counts the stopping iteration. */
static const struct bpf_insn prog_stop[] = {
	BPF_LDX_MEM(BPF_DW, BPF_REG_6, BPF_REG_1, 0),
	BPF_MOV64_IMM(BPF_REG_1, 10),
	BPF_JMP_IMM(BPF_JEQ, BPF_REG_6, 0, 1),
	BPF_MOV64_IMM(BPF_REG_1, 2),
	LD_FUNC(BPF_REG_2, 11 - 4 - 1),
	BPF_MOV64_IMM(BPF_REG_3, 0),
	BPF_MOV64_IMM(BPF_REG_4, 0),
	CALL_LOOP(),
	BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_6), /* r6 kept across the inlined loop */
	BPF_EXIT_INSN(),
	/* 11: stop at i == 3 */
	BPF_MOV64_IMM(BPF_REG_0, 0),
	BPF_JMP_IMM(BPF_JNE, BPF_REG_1, 3, 1),
	BPF_MOV64_IMM(BPF_REG_0, 1),
	BPF_EXIT_INSN(),
};

static void test_inlined_two_paths_stop(void)
{
	struct prog_desc d = { prog_stop, sizeof(prog_stop) / sizeof(prog_stop[0]), { 0, 11 }, 2, 2 };
	struct bpf_insn *xl = NULL;
	uint32_t xcnt = 0;
	CHECK(verify(&d, &xl, &xcnt, NULL) == 0);
	CHECK(xl && xcnt == d.cnt + PATCH_LEN - 1 && count_loop_helper_calls(xl, xcnt) == 0);
	free(xl);
	check_runs(&d, 0, 4);     /* 10 loops, stopped by i == 3: 4 iterations */
	check_runs(&d, 100, 102); /* 2 loops, never stopped; + r6 */
}

/* main (stack depth 4) keeps R6-R8 and its stack across a call to sub, whose bpf_loop's
 * callback runs a nested bpf_loop: both inlined (sub, the outer callback). */
static const struct bpf_insn prog_nested[] = {
	BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0x1234),
	BPF_MOV64_IMM(BPF_REG_6, 7),
	BPF_MOV64_IMM(BPF_REG_7, 11),
	BPF_MOV64_IMM(BPF_REG_8, 13),
	BPF_CALL_REL(11 - 4 - 1),
	BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_6),
	BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_7),
	BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_8),
	BPF_LDX_MEM(BPF_W, BPF_REG_1, BPF_REG_10, -4),
	BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1),
	BPF_EXIT_INSN(),
	/* 11: sub */
	BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0),
	BPF_MOV64_IMM(BPF_REG_6, 99), /* sub's own R6, saved by the call */
	BPF_MOV64_IMM(BPF_REG_1, 10),
	LD_FUNC(BPF_REG_2, 22 - 14 - 1),
	BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -8),
	BPF_MOV64_IMM(BPF_REG_4, 0),
	CALL_LOOP(),
	BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_10, -8),
	BPF_EXIT_INSN(),
	/* 22: outer callback: a loop of 10 over the same counter */
	BPF_MOV64_REG(BPF_REG_6, BPF_REG_2),
	BPF_MOV64_IMM(BPF_REG_1, 10),
	LD_FUNC(BPF_REG_2, 32 - 24 - 1),
	BPF_MOV64_REG(BPF_REG_3, BPF_REG_6),
	BPF_MOV64_IMM(BPF_REG_4, 0),
	BPF_MOV64_IMM(BPF_REG_0, 0),
	CALL_LOOP(),
	BPF_MOV64_IMM(BPF_REG_0, 0),
	BPF_EXIT_INSN(),
	/* 32: inner callback: ++*ctx */
	BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_2, 0),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 1),
	BPF_STX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, 0),
	BPF_MOV64_IMM(BPF_REG_0, 0),
	BPF_EXIT_INSN(),
};

static void test_inlined_nested(void)
{
	struct prog_desc d = { prog_nested, sizeof(prog_nested) / sizeof(prog_nested[0]), { 0, 11, 22, 32 }, 4, 12 };
	struct bpf_insn *xl = NULL;
	uint32_t xcnt = 0, depth[4];
	CHECK(verify(&d, &xl, &xcnt, depth) == 0);
	CHECK(xl && xcnt == d.cnt + 2 * (PATCH_LEN - 1) && count_loop_helper_calls(xl, xcnt) == 0);
	CHECK(depth[0] == 4 && depth[1] == 8 + 24 && depth[2] == 24 && depth[3] == 0);
	/* main's call to sub is unmoved; sub's loop spills below its depth 8 */
	if (xl && xcnt > 40) {
		CHECK(xl[4].src_reg == BPF_PSEUDO_CALL && 4 + xl[4].imm + 1 == 11);
		CHECK(xl[22].code == (BPF_STX | BPF_MEM | BPF_DW) && xl[22].off == -32);
	}
	free(xl);
	check_runs(&d, 0, 100 + 7 + 11 + 13 + 0x1234);
}

/* The deepest frame that may call bpf_loop (the callback's frame takes 32 of the 512
 * bytes): 480, whose spills go to -504..-488, still inside kbpf's 512-byte frame (the
 * engines give every frame exactly 512 bytes; loop_inline.c refuses an area beyond). */
static const struct bpf_insn prog_deep[] = {
	BPF_ST_MEM(BPF_DW, BPF_REG_10, -480, 5),
	BPF_MOV64_IMM(BPF_REG_1, 3),
	LD_FUNC(BPF_REG_2, 10 - 2 - 1),
	BPF_MOV64_IMM(BPF_REG_3, 0),
	BPF_MOV64_IMM(BPF_REG_4, 0),
	CALL_LOOP(),
	BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_10, -480),
	BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1),
	BPF_EXIT_INSN(),
	/* 10: cb */
	BPF_MOV64_IMM(BPF_REG_0, 0),
	BPF_EXIT_INSN(),
};

static void test_inlined_deep_stack(void)
{
	struct prog_desc d = { prog_deep, sizeof(prog_deep) / sizeof(prog_deep[0]), { 0, 10 }, 2, 2 };
	struct bpf_insn *xl = NULL;
	uint32_t xcnt = 0, depth[2];
	CHECK(verify(&d, &xl, &xcnt, depth) == 0);
	CHECK(xl && xcnt == d.cnt + PATCH_LEN - 1 && count_loop_helper_calls(xl, xcnt) == 0);
	if (xl && xcnt > 10)
		CHECK(xl[6 + 3].off == -504 && xl[6 + 5].off == -488);
	CHECK(depth[0] == 504);
	free(xl);
	check_runs(&d, 0, 8);
}

/* Too many iterations: the inlined loop returns Linux's inlined value, -E2BIG moved as a
 * 32-bit immediate (zero-extended), without calling the callback. */
static const struct bpf_insn prog_e2big[] = {
	BPF_MOV64_IMM(BPF_REG_1, 8 * 1024 * 1024 + 1),
	LD_FUNC(BPF_REG_2, 7 - 1 - 1),
	BPF_MOV64_IMM(BPF_REG_3, 0),
	BPF_MOV64_IMM(BPF_REG_4, 0),
	CALL_LOOP(),
	BPF_EXIT_INSN(),
	/* 7: cb */
	BPF_MOV64_IMM(BPF_REG_0, 0),
	BPF_EXIT_INSN(),
};

static void test_inlined_e2big(void)
{
	struct prog_desc d = { prog_e2big, sizeof(prog_e2big) / sizeof(prog_e2big[0]), { 0, 7 }, 2, 2 };
	check_runs(&d, 0, (uint32_t)-E2BIG);
}

/* The older same-count output (xlated_insns) is unchanged: no inlining there. */
static void test_same_count_api(void)
{
	struct bpf_func_info fi[2];
	struct prog_desc d = { prog_sum, sizeof(prog_sum) / sizeof(prog_sum[0]), { 0, 12 }, 2, 2 };
	struct bpf_insn out[sizeof(prog_sum) / sizeof(prog_sum[0])];
	fill_fi(&d, fi);
	struct kbpf_verify_opts vo = { .sz = sizeof(vo), .host = host, .prog_type = PTYPE, .license = "GPL",
				       .prog_btf = btf, .func_info = fi, .nr_func_info = 2, .xlated_insns = out };
	struct kbpf_verify_result vr = { .sz = sizeof(vr) };
	CHECK(kbpf_prog_verify(d.insns, d.cnt, &vo, &vr) == 0);
	CHECK(!memcmp(out, prog_sum, sizeof(out)));
	CHECK(vr.xlated_prog == NULL);
	CHECK(vr.stack_depth[0] == 32); /* the statistics are the rewritten program's, as Linux's */
}

int main(void)
{
	setup();
	RUN(test_inlined_simple);
	RUN(test_not_inlined_flags);
	RUN(test_not_inlined_two_callbacks);
	RUN(test_inlined_two_paths_stop);
	RUN(test_inlined_nested);
	RUN(test_inlined_deep_stack);
	RUN(test_inlined_e2big);
	RUN(test_same_count_api);
	btf__free(btf);
	kbpf_host_free(host);
	return test_summary();
}
