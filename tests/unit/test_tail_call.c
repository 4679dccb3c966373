/* SPDX-License-Identifier: Apache-2.0 */
/* bpf_tail_call (call 12) through a PROG_ARRAY, with Linux 6.1's semantics, on every
 * engine: the fast interpreter, checked mode and the JIT (and JIT code calling into an
 * interpreted target and back). Each scenario runs in every mode and must give the
 * same, hand-computed results. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <kbpf/kbpf.h>
#include "test.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define TAIL_CALL BPF_EMIT_CALL(12)

enum mode { M_FAST, M_CHECKED, M_JIT, M__COUNT };
static const char *const mode_name[] = { "fast", "checked", "jit" };

static struct kbpf_map *prog_array(uint32_t max_entries)
{
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_PROG_ARRAY, .key_size = 4,
				    .value_size = 4, .max_entries = max_entries, .name = "jmp" };
	struct kbpf_map *m = NULL;

	CHECK_EQ_U64(kbpf_map_create(&def, &m), 0);
	return m;
}

/* A program whose map table is maps (maps[0] is what BPF_LD_MAP_FD(r, 0) loads). */
static struct kbpf_prog *mk_at(const struct bpf_insn *insns, size_t n, struct kbpf_map **maps, size_t nr_maps,
			       int jit, struct kbpf_host *host, int line)
{
	char log[256] = "";
	struct kbpf_prog_opts po = { .sz = sizeof(po), .trusted_unverified = 1, .name = "tc", .log_buf = log, .log_size = sizeof(log),
				     .maps = maps, .nr_maps = nr_maps, .jit = jit, .host = host };
	struct kbpf_prog *p = NULL;
	int err = kbpf_prog_create(insns, n, &po, &p);

	if (err || (jit && !kbpf_prog_is_jited(p))) {
		fprintf(stderr, "line %d: create %d, jited %d: %s\n", line, err, p ? kbpf_prog_is_jited(p) : 0, log);
		test_failed_now = 1;
	}
	return p;
}
#define MK(maps, nr, jit, ...)                                                                  \
	({                                                                                      \
		const struct bpf_insn i_[] = { __VA_ARGS__ };                                   \
		mk_at(i_, ARRAY_SIZE(i_), maps, nr, jit, NULL, __LINE__);                       \
	})

static void set_slot(struct kbpf_map *m, uint32_t idx, struct kbpf_prog *p)
{
	CHECK_EQ_U64(kbpf_map_update(m, &idx, &p, BPF_ANY), 0);
}

/* Run p with R1 = ctx (ctx_len bytes, readable and writable in checked mode). */
static int run(struct kbpf_prog *p, enum mode mode, void *ctx, size_t ctx_len, uint64_t *r0, char *err,
	       size_t err_size)
{
	struct kbpf_mem_region region = { ctx, ctx_len, KBPF_MEM_READ | KBPF_MEM_WRITE, "ctx" };
	struct kbpf_run_opts ro = { .sz = sizeof(ro), .args = { (uint64_t)(uintptr_t)ctx },
				    .flags = mode == M_CHECKED ? KBPF_RUN_CHECKED : 0,
				    .regions = ctx_len ? &region : NULL, .nr_regions = ctx_len ? 1 : 0,
				    .err = err, .err_size = err_size };
	struct kbpf_run_result rr = { .sz = sizeof(rr) };
	int ret = kbpf_prog_run_opts(p, &ro, &rr);

	*r0 = rr.retval;
	return ret;
}

/* r0 = *(u64 *)ctx + v */
#define LEAF(v) BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 0), BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, v), BPF_EXIT_INSN()
/* tail call to slot idx of maps[0]; if that falls through, return ret */
#define TAIL_TO(idx, ret)                                                                       \
	BPF_LD_MAP_FD(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_3, idx), TAIL_CALL, BPF_MOV64_IMM(BPF_REG_0, ret), \
		BPF_EXIT_INSN()

/* A -> B -> C: the ctx goes along, the last program's return is the run's. */
static void test_chain(void)
{
	for (int mode = 0; mode < M__COUNT; mode++) {
		struct kbpf_map *m = prog_array(4);
		int jit = mode == M_JIT;
		struct kbpf_prog *a = MK(&m, 1, jit, TAIL_TO(2, 1));
		struct kbpf_prog *b = MK(&m, 1, jit, BPF_MOV64_IMM(BPF_REG_0, 77), TAIL_TO(3, 2));
		struct kbpf_prog *c = MK(&m, 1, jit, LEAF(100));
		uint64_t ctx = 5, r0 = 0;

		set_slot(m, 2, b);
		set_slot(m, 3, c);
		CHECK_EQ_U64(run(a, mode, &ctx, sizeof(ctx), &r0, NULL, 0), 0);
		CHECK_EQ_U64(r0, 105);
		/* entering the chain in the middle */
		CHECK_EQ_U64(run(b, mode, &ctx, sizeof(ctx), &r0, NULL, 0), 0);
		CHECK_EQ_U64(r0, 105);
		if (test_failed_now)
			fprintf(stderr, "  mode %s\n", mode_name[mode]);
		kbpf_prog_free(a), kbpf_prog_free(b), kbpf_prog_free(c);
		kbpf_map_free(m);
	}
}

/* A program that counts its runs in *ctx and tail-calls itself: it runs 1 + 33 times,
 * the 34th tail call falls through (Linux 6.1's MAX_TAIL_CALL_CNT). Then again from a
 * fresh run: the count is per run. */
static void test_limit_33(void)
{
	for (int mode = 0; mode < M__COUNT; mode++) {
		struct kbpf_map *m = prog_array(1);
		struct kbpf_prog *p = MK(&m, 1, mode == M_JIT,
					 BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
					 BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, 0),
					 BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, 1),
					 BPF_STX_MEM(BPF_DW, BPF_REG_1, BPF_REG_2, 0),
					 BPF_LD_MAP_FD(BPF_REG_2, 0),
					 BPF_MOV64_IMM(BPF_REG_3, 0),
					 TAIL_CALL,
					 BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_6, 0),
					 BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 1000),
					 BPF_EXIT_INSN());
		uint64_t ctx = 0, r0 = 0;

		set_slot(m, 0, p);
		CHECK_EQ_U64(run(p, mode, &ctx, sizeof(ctx), &r0, NULL, 0), 0);
		CHECK_EQ_U64(ctx, 34);
		CHECK_EQ_U64(r0, 1034);
		ctx = 0;
		CHECK_EQ_U64(run(p, mode, &ctx, sizeof(ctx), &r0, NULL, 0), 0);
		CHECK_EQ_U64(ctx, 34);
		if (test_failed_now)
			fprintf(stderr, "  mode %s\n", mode_name[mode]);
		kbpf_prog_free(p);
		kbpf_map_free(m);
	}
}

/* Empty slot and index >= max_entries fall through (R0 as the program left it); the
 * index is R3's low 32 bits. Linux's order: an index out of range does not count, an
 * empty slot does. */
static void test_fall_through(void)
{
	for (int mode = 0; mode < M__COUNT; mode++) {
		struct kbpf_map *m = prog_array(4);
		int jit = mode == M_JIT;
		struct kbpf_prog *leaf = MK(&m, 1, jit, LEAF(90));
		struct kbpf_prog *empty = MK(&m, 1, jit, TAIL_TO(1, 7));
		struct kbpf_prog *beyond = MK(&m, 1, jit, TAIL_TO(4, 8));
		struct kbpf_prog *huge = MK(&m, 1, jit, BPF_LD_MAP_FD(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_3, -1),
					    TAIL_CALL, BPF_MOV64_IMM(BPF_REG_0, 9), BPF_EXIT_INSN());
		/* R3 = 1 << 32: index 0 once truncated to u32, so the call is taken */
		struct kbpf_prog *wide = MK(&m, 1, jit, BPF_LD_MAP_FD(BPF_REG_2, 0), BPF_LD_IMM64(BPF_REG_3, 1ull << 32),
					    TAIL_CALL, BPF_MOV64_IMM(BPF_REG_0, 10), BPF_EXIT_INSN());
		/* R6 survives a fall-through (R0-R5 do not, as after any helper call) */
		struct kbpf_prog *keep = MK(&m, 1, jit, BPF_MOV64_IMM(BPF_REG_0, 11), BPF_MOV64_REG(BPF_REG_6, BPF_REG_0),
					    BPF_LD_MAP_FD(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_3, 2), TAIL_CALL,
					    BPF_MOV64_REG(BPF_REG_0, BPF_REG_6), BPF_EXIT_INSN());
		/* 33 calls of an empty slot use up the count: the 34th, to a full one, falls through */
		struct kbpf_prog *count_empty = MK(&m, 1, jit,
			BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), BPF_MOV64_IMM(BPF_REG_7, 33),
			BPF_MOV64_REG(BPF_REG_1, BPF_REG_6), BPF_LD_MAP_FD(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_3, 1),
			TAIL_CALL, BPF_ALU64_IMM(BPF_SUB, BPF_REG_7, 1), BPF_JMP_IMM(BPF_JNE, BPF_REG_7, 0, -7),
			BPF_MOV64_REG(BPF_REG_1, BPF_REG_6), BPF_LD_MAP_FD(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_3, 0),
			TAIL_CALL, BPF_MOV64_IMM(BPF_REG_0, 12), BPF_EXIT_INSN());
		/* ...while 33 indexes out of range do not count: the 34th call is taken */
		struct kbpf_prog *count_beyond = MK(&m, 1, jit,
			BPF_MOV64_REG(BPF_REG_6, BPF_REG_1), BPF_MOV64_IMM(BPF_REG_7, 33),
			BPF_MOV64_REG(BPF_REG_1, BPF_REG_6), BPF_LD_MAP_FD(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_3, 9),
			TAIL_CALL, BPF_ALU64_IMM(BPF_SUB, BPF_REG_7, 1), BPF_JMP_IMM(BPF_JNE, BPF_REG_7, 0, -7),
			BPF_MOV64_REG(BPF_REG_1, BPF_REG_6), BPF_LD_MAP_FD(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_3, 0),
			TAIL_CALL, BPF_MOV64_IMM(BPF_REG_0, 13), BPF_EXIT_INSN());
		uint64_t ctx = 1, r0 = 0;

		set_slot(m, 0, leaf);
		CHECK_EQ_U64(run(empty, mode, &ctx, sizeof(ctx), &r0, NULL, 0), 0);
		CHECK_EQ_U64(r0, 7);
		CHECK_EQ_U64(run(beyond, mode, &ctx, sizeof(ctx), &r0, NULL, 0), 0);
		CHECK_EQ_U64(r0, 8);
		CHECK_EQ_U64(run(huge, mode, &ctx, sizeof(ctx), &r0, NULL, 0), 0);
		CHECK_EQ_U64(r0, 9);
		CHECK_EQ_U64(run(wide, mode, &ctx, sizeof(ctx), &r0, NULL, 0), 0);
		CHECK_EQ_U64(r0, 91);
		CHECK_EQ_U64(run(keep, mode, &ctx, sizeof(ctx), &r0, NULL, 0), 0);
		CHECK_EQ_U64(r0, 11);
		CHECK_EQ_U64(run(count_empty, mode, &ctx, sizeof(ctx), &r0, NULL, 0), 0);
		CHECK_EQ_U64(r0, 12);
		CHECK_EQ_U64(run(count_beyond, mode, &ctx, sizeof(ctx), &r0, NULL, 0), 0);
		CHECK_EQ_U64(r0, 91);
		if (test_failed_now)
			fprintf(stderr, "  mode %s\n", mode_name[mode]);
		kbpf_prog_free(leaf), kbpf_prog_free(empty), kbpf_prog_free(beyond), kbpf_prog_free(huge);
		kbpf_prog_free(wide), kbpf_prog_free(keep), kbpf_prog_free(count_empty), kbpf_prog_free(count_beyond);
		kbpf_map_free(m);
	}
}

/* The host replaces and deletes the program in a slot between runs. */
static void test_update_between_runs(void)
{
	for (int mode = 0; mode < M__COUNT; mode++) {
		struct kbpf_map *m = prog_array(2);
		int jit = mode == M_JIT;
		struct kbpf_prog *a = MK(&m, 1, jit, TAIL_TO(1, 3));
		struct kbpf_prog *b = MK(&m, 1, jit, LEAF(10));
		struct kbpf_prog *c = MK(&m, 1, jit, LEAF(20));
		uint64_t ctx = 0, r0 = 0;
		uint32_t key = 1;

		CHECK_EQ_U64(run(a, mode, &ctx, sizeof(ctx), &r0, NULL, 0), 0);
		CHECK_EQ_U64(r0, 3);
		set_slot(m, 1, b);
		CHECK_EQ_U64(run(a, mode, &ctx, sizeof(ctx), &r0, NULL, 0), 0);
		CHECK_EQ_U64(r0, 10);
		set_slot(m, 1, c);
		CHECK_EQ_U64(run(a, mode, &ctx, sizeof(ctx), &r0, NULL, 0), 0);
		CHECK_EQ_U64(r0, 20);
		CHECK_EQ_U64(kbpf_map_delete(m, &key), 0);
		CHECK_EQ_U64(run(a, mode, &ctx, sizeof(ctx), &r0, NULL, 0), 0);
		CHECK_EQ_U64(r0, 3);
		if (test_failed_now)
			fprintf(stderr, "  mode %s\n", mode_name[mode]);
		kbpf_prog_free(a), kbpf_prog_free(b), kbpf_prog_free(c);
		kbpf_map_free(m);
	}
}

/* A tail call in a subprogram replaces the subprogram (Linux's semantics): its caller
 * gets the target's R0 and goes on. Twice in one run, from two nesting depths, with
 * the count shared by the whole run. */
static void test_from_subprogram(void)
{
	for (int mode = 0; mode < M__COUNT; mode++) {
		struct kbpf_map *m = prog_array(2);
		int jit = mode == M_JIT;
		struct kbpf_prog *leaf = MK(&m, 1, jit, LEAF(40));
		struct kbpf_prog *main_p = MK(&m, 1, jit,
			BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
			BPF_CALL_REL(6),                          /* sub1 at 8 */
			BPF_MOV64_REG(BPF_REG_7, BPF_REG_0),
			BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
			BPF_CALL_REL(10),                         /* sub2 at 15 */
			BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_7),
			BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 2),
			BPF_EXIT_INSN(),
			/* sub1, 8: tail call (taken) */
			BPF_MOV64_IMM(BPF_REG_8, 5),
			BPF_LD_MAP_FD(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_3, 0), TAIL_CALL,
			BPF_MOV64_IMM(BPF_REG_0, 1000), BPF_EXIT_INSN(),
			/* sub2, 15: calls sub3 */
			BPF_CALL_REL(2), BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 100), BPF_EXIT_INSN(),
			/* sub3, 18: tail call (taken) */
			BPF_LD_MAP_FD(BPF_REG_2, 0), BPF_MOV64_IMM(BPF_REG_3, 0), TAIL_CALL,
			BPF_MOV64_IMM(BPF_REG_0, 2000), BPF_EXIT_INSN());
		uint64_t ctx = 1, r0 = 0;

		set_slot(m, 0, leaf);
		/* sub1 -> 41, sub2 -> sub3 -> 41 + 100: 41 + 141 + 2 */
		CHECK_EQ_U64(run(main_p, mode, &ctx, sizeof(ctx), &r0, NULL, 0), 0);
		CHECK_EQ_U64(r0, 184);
		if (test_failed_now)
			fprintf(stderr, "  mode %s\n", mode_name[mode]);
		kbpf_prog_free(leaf), kbpf_prog_free(main_p);
		kbpf_map_free(m);
	}
}

/* A subprogram's tail call into a program without the caller's maps: after the target
 * returns, the caller reads and writes its own map value again. Checked mode stopped
 * that access ("outside the stack and the declared regions": the target's regions were
 * kept) before attack3's fix; every engine must give the same result. */
static void test_subprogram_target_other_maps(void)
{
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 8,
				    .max_entries = 1, .name = "val" };
	for (int mode = 0; mode < M__COUNT; mode++) {
		struct kbpf_map *m[2] = { prog_array(1), NULL };
		int jit = mode == M_JIT;
		char err[256] = "";

		CHECK_EQ_U64(kbpf_map_create(&def, &m[1]), 0);
		struct kbpf_prog *leaf = MK(m, 1, jit, LEAF(40));
		struct kbpf_prog *main_p = MK(m, 2, jit,
			BPF_CALL_REL(5),                          /* sub at 6 */
			BPF_LD_MAP_VALUE(BPF_REG_1, 1, 0),
			BPF_STX_MEM(BPF_DW, BPF_REG_1, BPF_REG_0, 0),
			BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 0),
			BPF_EXIT_INSN(),
			/* sub, 6: tail call (taken) */
			TAIL_TO(0, 1000));
		uint64_t ctx = 2, r0 = 0;

		set_slot(m[0], 0, leaf);
		CHECK_EQ_U64(run(main_p, mode, &ctx, sizeof(ctx), &r0, err, sizeof(err)), 0);
		CHECK_EQ_U64(r0, 42);
		if (test_failed_now)
			fprintf(stderr, "  mode %s: %s\n", mode_name[mode], err);
		kbpf_prog_free(leaf), kbpf_prog_free(main_p);
		kbpf_map_free(m[0]), kbpf_map_free(m[1]);
	}
}

/* A target that stops the run (a call nested too deep) stops the caller's run too,
 * with R0 0, on every engine. */
static void test_target_stops(void)
{
	for (int mode = 0; mode < M__COUNT; mode++) {
		struct kbpf_map *m = prog_array(1);
		int jit = mode == M_JIT;
		struct kbpf_prog *rec = MK(&m, 1, jit, BPF_CALL_REL(1), BPF_EXIT_INSN(), BPF_CALL_REL(-1),
					   BPF_EXIT_INSN());
		struct kbpf_prog *a = MK(&m, 1, jit, BPF_CALL_REL(1), BPF_EXIT_INSN(), TAIL_TO(0, 4));
		uint64_t ctx = 0, r0 = 1;

		set_slot(m, 0, rec);
		CHECK_EQ_U64(run(a, mode, &ctx, sizeof(ctx), &r0, NULL, 0), -E2BIG);
		CHECK_EQ_U64(r0, 0);
		if (test_failed_now)
			fprintf(stderr, "  mode %s\n", mode_name[mode]);
		kbpf_prog_free(rec), kbpf_prog_free(a);
		kbpf_map_free(m);
	}
}

/* JIT code tail-calling a program on the interpreter and the other way round: the
 * chain goes on, the count carries over (self-loops through a mixed pair). */
static void test_mixed_engines(void)
{
	struct kbpf_map *m = prog_array(2);
	struct bpf_insn counting[] = {
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, 0),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, 1),
		BPF_STX_MEM(BPF_DW, BPF_REG_1, BPF_REG_2, 0),
		BPF_LD_MAP_FD(BPF_REG_2, 0),
		BPF_MOV64_IMM(BPF_REG_3, 0), /* patched: the other slot */
		TAIL_CALL,
		BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_6, 0),
		BPF_EXIT_INSN(),
	};
	struct kbpf_prog *j, *i;
	uint64_t ctx = 0, r0 = 0;

	counting[6].imm = 1;
	j = mk_at(counting, ARRAY_SIZE(counting), &m, 1, 1, NULL, __LINE__);
	counting[6].imm = 0;
	i = mk_at(counting, ARRAY_SIZE(counting), &m, 1, 0, NULL, __LINE__);
	set_slot(m, 0, j);
	set_slot(m, 1, i);
	CHECK_EQ_U64(run(j, M_JIT, &ctx, sizeof(ctx), &r0, NULL, 0), 0);
	CHECK_EQ_U64(ctx, 34);
	CHECK_EQ_U64(r0, 34);
	ctx = 0;
	CHECK_EQ_U64(run(i, M_FAST, &ctx, sizeof(ctx), &r0, NULL, 0), 0);
	CHECK_EQ_U64(r0, 34);
	kbpf_prog_free(j), kbpf_prog_free(i);
	kbpf_map_free(m);
}

/* Checked mode: a target's own maps become touchable when it runs; R2 that is not one
 * of the program's maps stops the run instead of being followed. */
static void test_checked(void)
{
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_ARRAY, .key_size = 4,
				    .value_size = 8, .max_entries = 1, .name = "arr" };
	struct kbpf_map *m = prog_array(1), *arr = NULL, *both[2];
	struct kbpf_prog *a, *t, *wild;
	uint64_t ctx = 0, r0 = 0;
	char err[256] = "";

	CHECK_EQ_U64(kbpf_map_create(&def, &arr), 0);
	both[0] = m;
	both[1] = arr;
	a = MK(&m, 1, 0, TAIL_TO(0, 1));
	t = MK(both, 2, 0, BPF_LD_MAP_VALUE(BPF_REG_1, 1, 0), BPF_ST_MEM(BPF_DW, BPF_REG_1, 0, 66),
	       BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 0), BPF_EXIT_INSN());
	wild = MK(&m, 1, 0, BPF_MOV64_IMM(BPF_REG_2, 0x1000), BPF_MOV64_IMM(BPF_REG_3, 0), TAIL_CALL,
		  BPF_MOV64_IMM(BPF_REG_0, 1), BPF_EXIT_INSN());
	set_slot(m, 0, t);
	CHECK_EQ_U64(run(a, M_CHECKED, &ctx, sizeof(ctx), &r0, err, sizeof(err)), 0);
	CHECK_EQ_U64(r0, 66);
	CHECK_EQ_U64(run(wild, M_CHECKED, &ctx, sizeof(ctx), &r0, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "insn 2: bpf_tail_call: r2 (0x1000) is not a map of this program") != NULL);
	kbpf_prog_free(a), kbpf_prog_free(t), kbpf_prog_free(wild);
	kbpf_map_free(m);
	kbpf_map_free(arr);
}

static uint64_t own_helper_12(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5)
{
	(void)r1, (void)r2, (void)r4, (void)r5;
	return r3 * 2;
}

/* A host that registers its own helper 12 gets it called: no tail call. */
static void test_host_helper_12(void)
{
	struct kbpf_host *host = kbpf_host_new();
	const struct bpf_insn insns[] = { BPF_MOV64_IMM(BPF_REG_3, 21), TAIL_CALL, BPF_EXIT_INSN() };

	CHECK_EQ_U64(kbpf_host_helper_register(host, 12, "own", own_helper_12), 0);
	for (int mode = 0; mode < M__COUNT; mode++) {
		struct kbpf_prog *p = mk_at(insns, ARRAY_SIZE(insns), NULL, 0, mode == M_JIT, host, __LINE__);
		uint64_t r0 = 0;

		CHECK_EQ_U64(run(p, mode, NULL, 0, &r0, NULL, 0), 0);
		CHECK_EQ_U64(r0, 42);
		kbpf_prog_free(p);
	}
	kbpf_host_free(host);
}

int main(void)
{
	RUN(test_chain);
	RUN(test_limit_33);
	RUN(test_fall_through);
	RUN(test_update_between_runs);
	RUN(test_from_subprogram);
	RUN(test_subprogram_target_other_maps);
	RUN(test_target_stops);
	RUN(test_mixed_engines);
	RUN(test_checked);
	RUN(test_host_helper_12);
	return test_summary();
}
