/* SPDX-License-Identifier: Apache-2.0 */
/* Callbacks called 0..N times (Linux 6.7+'s rule, src/verifier/callback.c): programs
 * that relied on exactly one call are refused, privileged (unprivileged loads cannot
 * load a callback at all) and with BPF_F_TEST_STATE_FREQ; where the verifier (wrongly)
 * accepts one, the test runs it on the checked interpreter to show the escape. Safe
 * programs run alike on the interpreter (fast and checked) and the JIT. A host helper
 * that takes a function kbpf does not know how it calls is refused, not left with an
 * unverified callback. */
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

static struct kbpf_host *host;
static struct btf *btf;
static int fn_main, fn_cb;

static void setup(void)
{
	host = kbpf_host_new();
	CHECK(host && !kbpf_linux_host_add(host));
	btf = callback_btf_new(&fn_main, &fn_cb);
}

struct prog_desc {
	const struct bpf_insn *insns;
	size_t cnt;
	int cb_start;
};

static char log_buf[1 << 16];

static int verify(const struct prog_desc *d, struct kbpf_host *h, const char *type, bool state_freq)
{
	struct bpf_func_info fi[2] = { { 0, (uint32_t)fn_main }, { (uint32_t)d->cb_start, (uint32_t)fn_cb } };
	struct kbpf_verify_opts vo = { .sz = sizeof(vo), .host = h, .prog_type = type, .license = "GPL",
				       .log_buf = log_buf, .log_size = sizeof(log_buf), .prog_btf = btf,
				       .func_info = fi, .nr_func_info = 2, .test_state_freq = state_freq };
	return kbpf_prog_verify(d->insns, d->cnt, &vo, NULL);
}

/* Create without the verifier's verdict mattering (kbpf_prog_create verifies: when it
 * accepts, run on engine 0 fast interpreter, 1 checked, 2 JIT); *err gets a checked
 * run's stop. Returns kbpf_prog_create's result. */
static int create_run(const struct prog_desc *d, int engine, uint64_t *r0, char *err, size_t err_size)
{
	struct bpf_func_info fi[2] = { { 0, (uint32_t)fn_main }, { (uint32_t)d->cb_start, (uint32_t)fn_cb } };
	struct kbpf_prog *prog = NULL;
	uint64_t ctx[8] = { 0 };
	struct kbpf_prog_opts po = { .sz = sizeof(po), .host = host, .prog_type = PTYPE, .license = "GPL",
				     .prog_btf = btf, .func_info = fi, .nr_func_info = 2, .jit = engine == 2 };
	int ret = kbpf_prog_create(d->insns, d->cnt, &po, &prog);
	if (ret)
		return ret;
	ret = callback_prog_run(prog, engine, ctx, r0, err, err_size);
	kbpf_prog_free(prog);
	return ret;
}

/* d must be refused with msg, with and without a checkpoint at every prune point. Where
 * it is accepted (kbpf before Linux 6.7's rule), the checked run shows the escape. */
static void check_refused(const struct prog_desc *d, const char *msg)
{
	for (int freq = 0; freq < 2; freq++) {
		int ret = verify(d, host, PTYPE, freq);
		CHECK(ret != 0);
		if (ret != 0) {
			CHECK(strstr(log_buf, msg) != NULL);
			if (!strstr(log_buf, msg))
				fprintf(stderr, "want \"%s\" in: %s\n", msg, log_buf);
			continue;
		}
		char err[256] = "";
		uint64_t r0 = 0;
		int run = create_run(d, 1, &r0, err, sizeof(err));
		fprintf(stderr, "accepted (state_freq %d); checked run: %d %s\n", freq, run, err);
	}
}

/* The caller's slot holds 4096 until the callback sets it to 8; it reads the stack at
 * fp-16 + slot. bpf_loop(0) calls nothing: the read is 4 KiB above the frame, in the
 * host's stack. Linux 6.1 (and kbpf before) judged it after one call: fp-8. */
static const struct bpf_insn prog_zero_calls[] = {
	BPF_MOV64_IMM(BPF_REG_1, 4096),
	BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_1, -8),
	BPF_MOV64_IMM(BPF_REG_1, 0),
	LD_FUNC(BPF_REG_2, 15 - 3 - 1),
	BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -8),
	BPF_MOV64_IMM(BPF_REG_4, 0),
	CALL_LOOP(),
	BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_10, -8),
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -16),
	BPF_ALU64_REG(BPF_ADD, BPF_REG_2, BPF_REG_1),
	BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_2, 0),
	BPF_EXIT_INSN(),
	/* 15: cb: *ctx = 8 */
	BPF_MOV64_IMM(BPF_REG_1, 8),
	BPF_STX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, 0),
	BPF_MOV64_IMM(BPF_REG_0, 0),
	BPF_EXIT_INSN(),
};

static void test_zero_calls(void)
{
	struct prog_desc d = { prog_zero_calls, sizeof(prog_zero_calls) / sizeof(prog_zero_calls[0]), 15 };
	check_refused(&d, "invalid read from stack");
}

/* Each call moves the caller's stack index 8 bytes down: one call reads fp-16, the
 * 100th reads 800 bytes below the frame. */
static const struct bpf_insn prog_n_calls[] = {
	BPF_MOV64_IMM(BPF_REG_1, -8),
	BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_1, -8),
	BPF_ST_MEM(BPF_DW, BPF_REG_10, -16, 7),
	BPF_MOV64_IMM(BPF_REG_1, 100),
	LD_FUNC(BPF_REG_2, 15 - 4 - 1),
	BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -8),
	BPF_MOV64_IMM(BPF_REG_4, 0),
	CALL_LOOP(),
	BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_10, -8),
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
	BPF_ALU64_REG(BPF_ADD, BPF_REG_2, BPF_REG_1),
	BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_2, 0),
	BPF_EXIT_INSN(),
	/* 15: cb: *ctx -= 8 */
	BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_2, 0),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -8),
	BPF_STX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, 0),
	BPF_MOV64_IMM(BPF_REG_0, 0),
	BPF_EXIT_INSN(),
};

static void test_n_calls(void)
{
	struct prog_desc d = { prog_n_calls, sizeof(prog_n_calls) / sizeof(prog_n_calls[0]), 15 };
	check_refused(&d, "invalid read from stack R2");
}

/* Safe for 0..3 calls: the callback stops at 3 and the caller masks what it reads;
 * bpf_loop(10) makes 4 calls at run time (the 4th says stop). */
static const struct bpf_insn prog_safe[] = {
	BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0),
	BPF_MOV64_IMM(BPF_REG_1, 10),
	LD_FUNC(BPF_REG_2, 12 - 2 - 1),
	BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -8),
	BPF_MOV64_IMM(BPF_REG_4, 0),
	CALL_LOOP(),
	BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_10, -8),
	BPF_ALU64_IMM(BPF_LSH, BPF_REG_0, 8),
	BPF_ALU64_REG(BPF_OR, BPF_REG_0, BPF_REG_1),
	BPF_EXIT_INSN(),
	/* 12: cb: if (*ctx >= 3) stop; ++*ctx */
	BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_2, 0),
	BPF_MOV64_IMM(BPF_REG_0, 1),
	BPF_JMP_IMM(BPF_JGE, BPF_REG_1, 3, 3),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 1),
	BPF_STX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, 0),
	BPF_MOV64_IMM(BPF_REG_0, 0),
	BPF_EXIT_INSN(),
};

static void test_safe_runs(void)
{
	struct prog_desc d = { prog_safe, sizeof(prog_safe) / sizeof(prog_safe[0]), 12 };
	for (int freq = 0; freq < 2; freq++)
		CHECK_EQ_U64(verify(&d, host, PTYPE, freq), 0);
	for (int e = 0; e < 3; e++) {
		char err[256] = "";
		uint64_t r0 = 0;
		CHECK_EQ_U64(create_run(&d, e, &r0, err, sizeof(err)), 0);
		CHECK_EQ_U64(r0, (4 << 8) | 3); /* 4 calls, the counter at 3 */
	}
}

/* A host helper whose prototype takes a function but that is not one kbpf knows how to
 * call (not bpf_loop, bpf_for_each_map_elem, bpf_timer_set_callback): its callback
 * would run unverified. */
#define CB_HELPER 1000
static uint64_t cb_helper(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5)
{
	(void)r1, (void)r2, (void)r3, (void)r4, (void)r5;
	return 0;
}

static const struct bpf_insn prog_host_cb[] = {
	LD_FUNC(BPF_REG_1, 4 - 0 - 1),
	BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, CB_HELPER),
	BPF_EXIT_INSN(),
	/* 4: cb: reads R5, which nothing set */
	BPF_MOV64_REG(BPF_REG_0, BPF_REG_5),
	BPF_EXIT_INSN(),
};

static void test_unknown_callback_helper(void)
{
	struct kbpf_host *h = kbpf_host_new();
	struct kbpf_prog_type t = { .sz = sizeof(t), .name = "cb_test", .ctx_size = 8 };
	struct kbpf_helper_proto p = { .name = "host_cb", .fn = cb_helper, .ret_type = KBPF_RET_INTEGER,
				       .arg_type = { KBPF_ARG_PTR_TO_FUNC } };
	CHECK(h && !kbpf_host_prog_type_register(h, &t));
	CHECK_EQ_U64(kbpf_host_helper_register_proto(h, CB_HELPER, &p), 0);
	struct prog_desc d = { prog_host_cb, sizeof(prog_host_cb) / sizeof(prog_host_cb[0]), 4 };
	CHECK_EQ_U64(verify(&d, h, "cb_test", false), (uint64_t)-EFAULT);
	CHECK(strstr(log_buf, "helper host_cb#1000 not marked as callback-calling") != NULL);
	kbpf_host_free(h);
}

int main(void)
{
	setup();
	RUN(test_zero_calls);
	RUN(test_n_calls);
	RUN(test_safe_runs);
	RUN(test_unknown_callback_helper);
	btf__free(btf);
	kbpf_host_free(host);
	return test_summary();
}
