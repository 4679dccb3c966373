/* SPDX-License-Identifier: Apache-2.0 */
/* Dead code fails safe: the verifier's rewrite turns code no path reaches into "goto -1"
 * (Linux's xlated form, kept for dumps), and both engines stop a run that reaches such a
 * slot with -ENOTRECOVERABLE and a stderr line naming the instruction, instead of
 * spinning forever. A run can only get there through a verifier bug, so the test makes
 * one: it verifies a program, then patches the xlated program so that the live jump
 * before the dead slot falls into it, and prepares both engines again. Also here, the
 * verifier's deadness verdicts that were wrong (issue 16, classes 6 and 12), run on both
 * engines and checked mode. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <kbpf/kbpf.h>
#include <kbpf/linux.h>
#include "exec/jit.h"
#include "exec/prog_internal.h"
#include "test.h"
#include "test_linux_util.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* r0 = 1; if r0 == 1 goto out (always); dead: r0 = 7, r2 = ll (two slots); out: exit */
static const struct bpf_insn prog[] = {
	BPF_MOV64_IMM(BPF_REG_0, 1),
	BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 1, 3),
	BPF_MOV64_IMM(BPF_REG_0, 7),
	BPF_LD_IMM64(BPF_REG_2, 0x1122334455667788ull),
	BPF_EXIT_INSN(),
};
#define DEAD_AT 2

static char stderr_text[4096];

/* Run fn with stderr going to a temporary file; its text lands in stderr_text. */
static int capture_stderr(int (*fn)(void *), void *arg)
{
	FILE *tmp = tmpfile();
	int saved = dup(STDERR_FILENO), ret;

	stderr_text[0] = 0;
	if (!tmp || saved < 0)
		return fn(arg);
	fflush(stderr);
	dup2(fileno(tmp), STDERR_FILENO);
	ret = fn(arg);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(tmp);
	size_t n = fread(stderr_text, 1, sizeof(stderr_text) - 1, tmp);
	stderr_text[n] = 0;
	fclose(tmp);
	return ret;
}

struct run_args {
	struct kbpf_prog *p;
	struct kbpf_run_opts *ro;
	struct kbpf_run_result *rr;
};

static int do_run(void *arg)
{
	struct run_args *a = arg;
	return kbpf_prog_run_opts(a->p, a->ro, a->rr);
}

/* A verified socket filter whose jump at insn 1 is patched to fall into the dead slot at
 * DEAD_AT, with the interpreter (and, for jit, the JIT) prepared from the patched code. */
static struct kbpf_prog *make_broken(struct kbpf_host *host, int jit, uint64_t budget, unsigned harden)
{
	char log[4096] = "";
	struct kbpf_prog_opts po = { .sz = sizeof(po), .host = host, .prog_type = "socket_filter",
				     .license = "GPL", .run_budget = budget, .harden = harden,
				     .log_buf = log, .log_size = sizeof(log) };
	struct kbpf_prog *p = NULL;

	if (kbpf_prog_create(prog, ARRAY_SIZE(prog), &po, &p)) {
		fprintf(stderr, "create: %s\n", log);
		return NULL;
	}
	size_t cnt = 0;
	const struct bpf_insn *x = kbpf_prog_insns(p, &cnt);
	/* the dump keeps Linux's xlated form: every dead slot is "goto -1" */
	CHECK_EQ_U64(cnt, ARRAY_SIZE(prog));
	for (size_t i = DEAD_AT; i < DEAD_AT + 3 && i < cnt; i++) {
		CHECK_EQ_U64(x[i].code, BPF_JMP | BPF_JA);
		CHECK_EQ_U64(x[i].off, -1);
		CHECK_EQ_U64(x[i].imm, 0);
	}
	/* the verifier bug: "if r0 == 2", never taken, runs into the dead slot */
	p->insns[1].imm = 2;
	kbpf_interp_free(p->interp);
	p->interp = NULL;
	if (kbpf_interp_prepare(p, log, sizeof(log))) {
		fprintf(stderr, "prepare: %s\n", log);
		kbpf_prog_free(p);
		return NULL;
	}
	if (jit && kbpf_jit_attach(p, 0, log, sizeof(log))) {
		fprintf(stderr, "jit: %s\n", log);
		kbpf_prog_free(p);
		return NULL;
	}
	return p;
}

static void check_stop(struct kbpf_host *host, int jit, unsigned flags, uint64_t budget, unsigned harden)
{
	struct kbpf_prog *p = make_broken(host, jit, budget, harden);
	char err[256] = "";
	struct kbpf_run_opts ro = { .sz = sizeof(ro), .flags = flags, .err = err, .err_size = sizeof(err) };
	struct kbpf_run_result rr = { .sz = sizeof(rr) };
	struct run_args a = { p, &ro, &rr };

	CHECK(p != NULL);
	if (!p)
		return;
	CHECK(!jit || kbpf_prog_is_jited(p));
	int ret = capture_stderr(do_run, &a);
	CHECK_EQ_U64((uint64_t)(int64_t)ret, (uint64_t)(int64_t)-ENOTRECOVERABLE);
	CHECK(strstr(stderr_text, "reached insn 2, which the verifier judged unreachable") != NULL);
	if (flags & KBPF_RUN_CHECKED) {
		CHECK_EQ_U64((uint64_t)rr.fault_insn, DEAD_AT);
		CHECK(strstr(err, "insn 2: reached code the verifier judged unreachable (a verifier bug)") != NULL);
	}
	kbpf_prog_free(p);
}

/* An unverified program's self-jump is what it says (the run budget stops it): only a
 * verified program's is the dead-code filler. */
static void test_unverified_loops(void)
{
	const struct bpf_insn self[] = { BPF_MOV64_IMM(BPF_REG_0, 1), BPF_JMP_A(-1), BPF_EXIT_INSN() };
	for (int jit = 0; jit < (kbpf_jit_arch_supported() ? 2 : 1); jit++) {
		struct kbpf_prog_opts po = { .sz = sizeof(po), .jit = jit, .run_budget = 1000, .trusted_unverified = 1 };
		struct kbpf_prog *p = NULL;
		CHECK(kbpf_prog_create(self, ARRAY_SIZE(self), &po, &p) == 0);
		uint64_t r0 = 0;
		CHECK(p && kbpf_prog_run(p, NULL, &r0) == -ETIME);
		kbpf_prog_free(p);
	}
}

static struct kbpf_host *host;

/* JMP32 on a pointer decides nothing (issue 16, class 6): both sides of `if w0 == 0` on
 * a map value stay in the program (the old verdict made the taken side "goto -1"), and
 * the run gives the value of the side the pointer's low half selects, on both engines
 * and in checked mode. */
static void test_jmp32_ptr_both_sides_kept(void)
{
	const struct bpf_insn p32[] = {
		BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_LD_MAP_FD(BPF_REG_1, 0),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 5),
		BPF_JMP32_IMM(BPF_JEQ, BPF_REG_0, 0, 2), /* insn 7 */
		BPF_MOV64_IMM(BPF_REG_0, 1),
		BPF_EXIT_INSN(),
		BPF_MOV64_IMM(BPF_REG_0, 2),              /* insn 10: low half 0 */
		BPF_EXIT_INSN(),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_ARRAY, .key_size = 4,
				    .value_size = 8, .max_entries = 1, .name = "a" };
	struct kbpf_map *map = NULL;
	CHECK_EQ_U64(kbpf_map_create(&def, &map), 0);
	if (!map)
		return;
	uint32_t key = 0;
	void *value = kbpf_map_lookup_elem(map, &key);
	uint64_t want = value && (uint32_t)(uintptr_t)value == 0 ? 2 : 1;
	for (int jit = 0; jit < (kbpf_jit_arch_supported() ? 2 : 1); jit++) {
		char log[4096] = "";
		struct kbpf_prog_opts po = { .sz = sizeof(po), .host = host, .prog_type = "socket_filter",
					     .license = "GPL", .maps = &map, .nr_maps = 1, .jit = jit,
					     .log_buf = log, .log_size = sizeof(log) };
		struct kbpf_prog *p = NULL;
		CHECK(kbpf_prog_create(p32, ARRAY_SIZE(p32), &po, &p) == 0);
		if (!p) {
			fprintf(stderr, "%s\n", log);
			continue;
		}
		size_t cnt = 0;
		const struct bpf_insn *x = kbpf_prog_insns(p, &cnt);
		CHECK(cnt > 10 && x[10].code == (BPF_ALU64 | BPF_MOV | BPF_K) && x[10].imm == 2);
		for (unsigned flags = 0; flags <= (jit ? 0 : KBPF_RUN_CHECKED); flags += KBPF_RUN_CHECKED) {
			struct kbpf_mem_region r = { value, 8, KBPF_MEM_READ, "value" };
			struct kbpf_run_opts ro = { .sz = sizeof(ro), .flags = flags, .regions = &r, .nr_regions = 1 };
			struct kbpf_run_result rr = { .sz = sizeof(rr) };
			CHECK_EQ_U64(kbpf_prog_run_opts(p, &ro, &rr), 0);
			CHECK_EQ_U64(rr.retval, want);
		}
		kbpf_prog_free(p);
	}
	kbpf_map_free(map);
}

static void test_engines(int jit)
{
	check_stop(host, jit, 0, 0, 0);
	check_stop(host, jit, 0, 1000, 0); /* the hardened loop / the JIT's budget mode */
	check_stop(host, jit, 0, 0, KBPF_HARDEN_STACK_GUARD);
}

static void test_interp(void)
{
	test_engines(0);
}

static void test_jit(void)
{
	if (kbpf_jit_arch_supported())
		test_engines(1);
}

static void test_checked(void)
{
	check_stop(host, 0, KBPF_RUN_CHECKED, 0, 0);
}

/* A packet pointer's at-packet-end mark does not survive `ptr -= K` (issue 16, class
 * 12): after `if data + 8 < data_end` fails, data + 8 >= data_end; lowered by 8 it may be
 * below data_end again (a 1..8 byte packet). The verifier used to keep the mark, judge
 * `if ptr >= data_end` always taken and turn the other side into dead code, which a run
 * with a short packet reached. Run on the interpreter, the JIT and checked mode with
 * packets of 0, 4, 8 and 16 bytes. */
static const char *pkt_text = "r2 = *(u32 *)(r1 +0)\n"  /* data */
			  "r3 = *(u32 *)(r1 +4)\n"  /* data_end */
			  "r4 = r2\n"
			  "r4 += 8\n"
			  "if r4 < r3 goto long\n" /* here data + 8 >= data_end */
			  "r4 -= 8\n"
			  "if r4 >= r3 goto empty\n"
			  "r0 = 2\n"                /* 1..8 bytes */
			  "exit\n"
			  "empty:\n"
			  "r0 = 3\n"
			  "exit\n"
			  "long:\n"
			  "r0 = 1\n"
			  "exit";

static int pkt_run(int jit, unsigned flags, size_t len, uint64_t *r0)
{
	static uint8_t buf[KBPF_LINUX_XDP_HEADROOM + 64];
	struct bpf_insn *insns = NULL;
	size_t cnt = 0;
	char log[4096] = "";

	if (kbpf_asm(pkt_text, KBPF_ASM_PSEUDO_C, &insns, &cnt, log, sizeof(log)))
		return 1000;
	struct kbpf_prog_opts po = { .sz = sizeof(po), .host = host, .prog_type = "xdp", .license = "GPL",
				     .jit = jit, .log_buf = log, .log_size = sizeof(log) };
	struct kbpf_prog *p = NULL;
	int ret = kbpf_prog_create(insns, cnt, &po, &p);
	free(insns);
	if (ret) {
		fprintf(stderr, "create: %s\n", log);
		return ret;
	}
	CHECK(!jit || kbpf_prog_is_jited(p));
	struct kbpf_linux_xdp xdp;
	memset(&xdp, 0, sizeof(xdp));
	xdp.data_hard_start = buf;
	xdp.data = xdp.data_meta = buf + KBPF_LINUX_XDP_HEADROOM;
	xdp.data_end = xdp.data + len;
	xdp.data_hard_end = buf + sizeof(buf);
	struct kbpf_mem_region regions[] = { { &xdp, sizeof(xdp), KBPF_MEM_READ, "ctx" },
					     { buf, sizeof(buf), KBPF_MEM_READ, "packet" } };
	char err[256] = "";
	struct kbpf_run_opts ro = { .sz = sizeof(ro), .args = { (uint64_t)(uintptr_t)&xdp }, .flags = flags,
				    .regions = regions, .nr_regions = 2, .err = err, .err_size = sizeof(err) };
	struct kbpf_run_result rr = { .sz = sizeof(rr) };
	ret = kbpf_prog_run_opts(p, &ro, &rr);
	if (ret)
		fprintf(stderr, "run (jit %d, flags %u, %zu bytes): %d %s\n", jit, flags, len, ret, err);
	*r0 = rr.retval;
	kbpf_prog_free(p);
	return ret;
}

static void pkt_check_all(int jit, unsigned flags)
{
	static const struct { size_t len; uint64_t want; } cases[] = { { 0, 3 }, { 4, 2 }, { 8, 2 }, { 16, 1 } };
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		uint64_t r0 = 0;
		CHECK_EQ_U64(pkt_run(jit, flags, cases[k].len, &r0), 0);
		CHECK_EQ_U64(r0, cases[k].want);
	}
}

static void test_pkt_end_mark_interp(void)
{
	pkt_check_all(0, 0);
}

static void test_pkt_end_mark_jit(void)
{
	if (kbpf_jit_arch_supported())
		pkt_check_all(1, 0);
}

static void test_pkt_end_mark_checked(void)
{
	pkt_check_all(0, KBPF_RUN_CHECKED);
}

int main(void)
{
	alarm(60); /* before the fix, a run that reaches dead code spins: fail, not hang */
	host = linux_host();
	CHECK(host != NULL);
	if (!host)
		return test_summary();
	RUN(test_interp);
	RUN(test_jit);
	RUN(test_checked);
	RUN(test_unverified_loops);
	RUN(test_jmp32_ptr_both_sides_kept);
	RUN(test_pkt_end_mark_interp);
	RUN(test_pkt_end_mark_jit);
	RUN(test_pkt_end_mark_checked);
	kbpf_host_free(host);
	return test_summary();
}
