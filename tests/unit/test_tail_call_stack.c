/* SPDX-License-Identifier: Apache-2.0 */
/* Tail calls and the native stack (issue 16, class 7): every engine gives the same
 * result for chains of tail calls made from main functions and from subprograms at
 * depth, and the native stack a run uses does not grow with the number of tail calls
 * (a target replaces the calling function; one made from a subprogram keeps the
 * subprogram's depth, so the depth limit stops a chain that would nest deeper). Each
 * scenario runs on a thread with a 64 KiB stack and measures the stack it used from a
 * helper called at the deepest point. */
#include <errno.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <kbpf/kbpf.h>
#include "test.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define TAIL_CALL BPF_EMIT_CALL(12)
#define PROBE_HELPER 100
#define THREAD_STACK (64 * 1024)
/* What a run may use: 8 frames of 512-byte stacks with their saved registers, the
 * nested runs of tail calls from subprograms (one per depth), the C frames of the run
 * and the helper. 33 nested main frames (the old JIT) need more than this. */
#define STACK_BOUND (16 * 1024)
/* Tail calls from subprograms between programs decoded for different interpreter loops
 * nest one loop (a 4 KiB block of frames) per depth: at most 7. */
#define INTERP_NESTED_BOUND (48 * 1024)

enum mode { M_FAST, M_CHECKED, M_JIT, M_FAST_HARDEN, M_JIT_HARDEN, M__COUNT };
static const char *const mode_name[] = { "fast", "checked", "jit", "fast-harden", "jit-harden" };

static uintptr_t stack_low;

/* helper 100: note how deep the native stack is here */
static uint64_t probe(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5)
{
	uintptr_t here = (uintptr_t)__builtin_frame_address(0);

	(void)r1, (void)r2, (void)r3, (void)r4, (void)r5;
	if (!stack_low || here < stack_low)
		stack_low = here;
	return 0;
}

static struct kbpf_host *host;
static struct kbpf_map *jmp;

static struct kbpf_prog *mk_at(const struct bpf_insn *insns, size_t n, enum mode mode, bool harden, int line)
{
	char log[256] = "";
	int jit = mode == M_JIT || mode == M_JIT_HARDEN;
	struct kbpf_prog_opts po = { .sz = sizeof(po), .trusted_unverified = 1, .name = "tcs", .log_buf = log,
				     .log_size = sizeof(log), .maps = &jmp, .nr_maps = 1, .jit = jit, .host = host };
	struct kbpf_prog *p = NULL;
	int err;

	if (harden || mode == M_FAST_HARDEN || mode == M_JIT_HARDEN) {
		po.harden = KBPF_HARDEN_STACK_GUARD | KBPF_HARDEN_BLIND;
		po.run_budget = 1ull << 40;
	}
	err = kbpf_prog_create(insns, n, &po, &p);
	if (err || (jit && !kbpf_prog_is_jited(p))) {
		fprintf(stderr, "line %d: create %d: %s\n", line, err, log);
		test_failed_now = 1;
	}
	return p;
}
#define MK(mode, ...)                                                        \
	({                                                                   \
		const struct bpf_insn i_[] = { __VA_ARGS__ };                \
		mk_at(i_, ARRAY_SIZE(i_), mode, false, __LINE__);            \
	})
/* the same, hardened (on the interpreter: decoded for the other loop) */
#define MKH(mode, ...)                                                       \
	({                                                                   \
		const struct bpf_insn i_[] = { __VA_ARGS__ };                \
		mk_at(i_, ARRAY_SIZE(i_), mode, true, __LINE__);             \
	})

static void set_slot(uint32_t idx, struct kbpf_prog *p)
{
	CHECK_EQ_U64(kbpf_map_update(jmp, &idx, &p, BPF_ANY), 0);
}

struct job {
	struct kbpf_prog *p;
	enum mode mode;
	uint64_t ctx, r0;
	int ret;
	size_t used;
};

static void *job_run(void *arg)
{
	struct job *j = arg;
	uintptr_t top = (uintptr_t)__builtin_frame_address(0);
	struct kbpf_mem_region region = { &j->ctx, sizeof(j->ctx), KBPF_MEM_READ | KBPF_MEM_WRITE, "ctx" };
	struct kbpf_run_opts ro = { .sz = sizeof(ro), .args = { (uint64_t)(uintptr_t)&j->ctx },
				    .flags = j->mode == M_CHECKED ? KBPF_RUN_CHECKED : 0, .regions = &region,
				    .nr_regions = 1 };
	struct kbpf_run_result rr = { .sz = sizeof(rr) };

	stack_low = 0;
	j->ret = kbpf_prog_run_opts(j->p, &ro, &rr);
	j->r0 = rr.retval;
	j->used = stack_low ? top - stack_low : 0;
	return NULL;
}

/* Run p with R1 = &ctx on a thread with a THREAD_STACK stack. */
static struct job run_small(struct kbpf_prog *p, enum mode mode)
{
	struct job j = { .p = p, .mode = mode };
	pthread_attr_t attr;
	pthread_t t;

	CHECK_EQ_U64(pthread_attr_init(&attr), 0);
	CHECK_EQ_U64(pthread_attr_setstacksize(&attr, THREAD_STACK), 0);
	CHECK_EQ_U64(pthread_create(&t, &attr, job_run, &j), 0);
	CHECK_EQ_U64(pthread_join(t, NULL), 0);
	pthread_attr_destroy(&attr);
	return j;
}

/* *(u64 *)ctx += 1, ctx in r6 */
#define COUNT BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_6, 0), BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, 1), \
	BPF_STX_MEM(BPF_DW, BPF_REG_6, BPF_REG_2, 0)
/* a subprogram that uses its stack and calls the next one (at +3 from its end) */
#define SUB_CALLS_NEXT BPF_ST_MEM(BPF_DW, BPF_REG_10, -512, 1), BPF_CALL_REL(1), BPF_EXIT_INSN()
/* tail call to slot idx with R1 = ctx (r6) */
#define TAIL_TO(idx) BPF_MOV64_REG(BPF_REG_1, BPF_REG_6), BPF_LD_MAP_FD(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_3, idx), TAIL_CALL
#define TAIL0 TAIL_TO(0)

/* A main function that uses its stack, counts, calls the subprogram that follows it (at
 * 14), tail-calls slot 0 and, when that falls through, returns *ctx + add. */
#define COUNTING_MAIN(add) BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), BPF_ST_MEM(BPF_DW, BPF_REG_10, -512, 1), COUNT, \
	BPF_CALL_REL(8), TAIL0, BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_6, 0), BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, add), \
	BPF_EXIT_INSN()

static void check_bound(struct job j, int ret, uint64_t ctx, uint64_t r0, enum mode mode, const char *what,
			size_t bound)
{
	CHECK_EQ_U64(j.ret, ret);
	CHECK_EQ_U64(j.ctx, ctx);
	if (!ret)
		CHECK_EQ_U64(j.r0, r0);
	CHECK(j.used > 0 && j.used <= bound);
	if (test_failed_now || getenv("TEST_VERBOSE"))
		fprintf(stderr, "  %s, mode %s: ret %d ctx %llu r0 %llu, stack %zu bytes\n", what, mode_name[mode],
			j.ret, (unsigned long long)j.ctx, (unsigned long long)j.r0, j.used);
}
#define check_job(j, ret, ctx, r0, mode, what) check_bound(j, ret, ctx, r0, mode, what, STACK_BOUND)

/* Tail calls from the main function, 7 frames deep in between each time: 33 succeed,
 * the 34th falls through; the run's stack is one chain of 8 frames. */
static void test_from_main(void)
{
	for (int mode = 0; mode < M__COUNT; mode++) {
		struct kbpf_prog *p = MK(mode,
			COUNTING_MAIN(1000),
			SUB_CALLS_NEXT, SUB_CALLS_NEXT, SUB_CALLS_NEXT, SUB_CALLS_NEXT, SUB_CALLS_NEXT, SUB_CALLS_NEXT,
			BPF_ST_MEM(BPF_DW, BPF_REG_10, -512, 1), BPF_EMIT_CALL(PROBE_HELPER), BPF_EXIT_INSN());

		set_slot(0, p);
		check_job(run_small(p, mode), 0, 34, 1034, mode, "from main");
		kbpf_prog_free(p);
	}
}

/* A tail call from the deepest subprogram (depth 7) to the program itself: its target
 * keeps depth 7, so its first local call is one frame too many: -E2BIG after one run,
 * on every engine (the JIT used to restart the target at depth 0 and nest 33 runs of 8
 * frames, some 130 KiB of stack). */
static void test_from_deepest_subprogram(void)
{
	for (int mode = 0; mode < M__COUNT; mode++) {
		struct kbpf_prog *p = MK(mode,
			BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
			BPF_CALL_REL(1), /* sub1, at 3 */
			BPF_EXIT_INSN(),
			SUB_CALLS_NEXT, SUB_CALLS_NEXT, SUB_CALLS_NEXT, SUB_CALLS_NEXT, SUB_CALLS_NEXT, SUB_CALLS_NEXT,
			BPF_ST_MEM(BPF_DW, BPF_REG_10, -512, 1), BPF_EMIT_CALL(PROBE_HELPER), COUNT, TAIL0,
			BPF_MOV64_IMM(BPF_REG_0, 7), BPF_EXIT_INSN());

		set_slot(0, p);
		check_job(run_small(p, mode), -E2BIG, 1, 0, mode, "from the deepest subprogram");
		kbpf_prog_free(p);
	}
}

/* Tail calls from subprograms climb: T's main runs at the depth of the subprogram it
 * replaced, its subprogram one deeper tail-calls T again, until T's subprogram would be
 * the 9th frame. T counts its runs: at depths 1 to 7, so 7. */
static void test_subprogram_chain_climbs(void)
{
	for (int mode = 0; mode < M__COUNT; mode++) {
		struct kbpf_prog *t = MK(mode,
			BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
			COUNT,
			BPF_CALL_REL(2), /* tsub, at 7 */
			BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 1),
			BPF_EXIT_INSN(),
			BPF_ST_MEM(BPF_DW, BPF_REG_10, -512, 1), BPF_EMIT_CALL(PROBE_HELPER), TAIL0,
			BPF_MOV64_IMM(BPF_REG_0, 50), BPF_EXIT_INSN());
		struct kbpf_prog *a = MK(mode,
			BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
			BPF_CALL_REL(1), /* asub, at 3 */
			BPF_EXIT_INSN(),
			TAIL0, BPF_MOV64_IMM(BPF_REG_0, 60), BPF_EXIT_INSN());

		set_slot(0, t);
		check_job(run_small(a, mode), -E2BIG, 7, 0, mode, "subprogram chain");
		kbpf_prog_free(t), kbpf_prog_free(a);
	}
}

/* A tail call from a subprogram at depth 3 to T, whose main function tail-calls itself
 * (after a call one deeper): T runs 33 times, the 34th tail call falls through, T's R0
 * (the count) is what the replaced subprogram returns to its caller. */
static void test_from_subprogram_then_main(void)
{
	for (int mode = 0; mode < M__COUNT; mode++) {
		struct kbpf_prog *t = MK(mode,
			COUNTING_MAIN(100),
			BPF_ST_MEM(BPF_DW, BPF_REG_10, -512, 1), BPF_EMIT_CALL(PROBE_HELPER), BPF_EXIT_INSN());
		struct kbpf_prog *a = MK(mode,
			BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
			BPF_CALL_REL(2), /* asub1, at 4 */
			BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 1000),
			BPF_EXIT_INSN(),
			SUB_CALLS_NEXT, SUB_CALLS_NEXT,
			BPF_ST_MEM(BPF_DW, BPF_REG_10, -512, 1), TAIL0, BPF_MOV64_IMM(BPF_REG_0, 60), BPF_EXIT_INSN());

		set_slot(0, t);
		check_job(run_small(a, mode), 0, 33, 1133, mode, "from a subprogram, then from main");
		kbpf_prog_free(t), kbpf_prog_free(a);
	}
}

/* Plain and hardened programs tail-calling each other: on the interpreter they run in
 * different loops (each with its own block of frames on the C stack), on the JIT with
 * different code. From main functions the chain replaces each run (it used to nest one
 * interpreter loop per call, some 150 KiB); from subprograms it climbs to the depth
 * limit as in a single program. */
static void test_mixed_hardening(void)
{
	static const enum mode modes[] = { M_FAST, M_JIT };

	for (size_t k = 0; k < ARRAY_SIZE(modes); k++) {
		enum mode mode = modes[k];
		struct kbpf_prog *p = MK(mode, BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), BPF_ST_MEM(BPF_DW, BPF_REG_10, -512, 1),
					 COUNT, BPF_EMIT_CALL(PROBE_HELPER), TAIL_TO(1), BPF_MOV64_IMM(BPF_REG_0, 5),
					 BPF_EXIT_INSN());
		struct kbpf_prog *h = MKH(mode, BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), BPF_ST_MEM(BPF_DW, BPF_REG_10, -512, 1),
					  COUNT, TAIL_TO(0), BPF_MOV64_IMM(BPF_REG_0, 6), BPF_EXIT_INSN());
		/* from a subprogram: main calls sub, sub tail-calls the other program */
		struct kbpf_prog *ps = MK(mode, BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), COUNT, BPF_CALL_REL(1), BPF_EXIT_INSN(),
					  BPF_ST_MEM(BPF_DW, BPF_REG_10, -512, 1), BPF_EMIT_CALL(PROBE_HELPER), TAIL_TO(1),
					  BPF_MOV64_IMM(BPF_REG_0, 5), BPF_EXIT_INSN());
		struct kbpf_prog *hs = MKH(mode, BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), COUNT, BPF_CALL_REL(1), BPF_EXIT_INSN(),
					   BPF_ST_MEM(BPF_DW, BPF_REG_10, -512, 1), TAIL_TO(0), BPF_MOV64_IMM(BPF_REG_0, 6),
					   BPF_EXIT_INSN());

		set_slot(0, p);
		set_slot(1, h);
		/* p runs 17 times, h 17 times, the 34th tail call (from h) falls through */
		check_job(run_small(p, mode), 0, 34, 6, mode, "mixed hardening, from main");
		set_slot(0, ps);
		set_slot(1, hs);
		/* runs at depths 0, 1, ..., 7; the one at 7 cannot call its subprogram. The
		 * interpreter runs each target in the other loop, nested: 7 blocks of frames. */
		check_bound(run_small(ps, mode), -E2BIG, 8, 0, mode, "mixed hardening, from subprograms",
			    mode == M_FAST ? INTERP_NESTED_BOUND : STACK_BOUND);
		kbpf_prog_free(p), kbpf_prog_free(h), kbpf_prog_free(ps), kbpf_prog_free(hs);
	}
}

int main(void)
{
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_PROG_ARRAY, .key_size = 4,
				    .value_size = 4, .max_entries = 2, .name = "jmp" };

	host = kbpf_host_new();
	CHECK_EQ_U64(kbpf_host_helper_register(host, PROBE_HELPER, "probe", probe), 0);
	CHECK_EQ_U64(kbpf_map_create(&def, &jmp), 0);
	RUN(test_from_main);
	RUN(test_from_deepest_subprogram);
	RUN(test_subprogram_chain_climbs);
	RUN(test_from_subprogram_then_main);
	RUN(test_mixed_hardening);
	kbpf_map_free(jmp);
	kbpf_host_free(host);
	return test_summary();
}
