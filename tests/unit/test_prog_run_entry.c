/* SPDX-License-Identifier: Apache-2.0 */
/* kbpf_prog_run's thin path: a NULL check and a jump into the program's run entry (the
 * JIT's generated one, or the interpreter's C function), docs/jit.md "Entries". Each
 * scenario runs on both engines and must keep kbpf_prog_run's contract: R0 through
 * retval (which may be NULL), a run-time stop returns its errno with *retval 0, R2-R5
 * zero whatever the caller's registers held; and the JIT's three entries (run, ctx,
 * struct), used in any order on one program, each return in their own convention. */
#include <errno.h>
#include <stdint.h>
#include <kbpf/kbpf.h>
#include "exec/jit.h" /* white-box: kbpf_jit_arch_supported, prog->run */
#include "test.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define JUNK 0x5a5a5a5a5a5a5a5aull
#define TAIL_CALL BPF_EMIT_CALL(12)

static struct kbpf_prog *make_at(const struct bpf_insn *insns, size_t n, int jit, unsigned harden,
				 uint64_t budget, struct kbpf_map **maps, size_t nr_maps, struct kbpf_host *host,
				 int line)
{
	char log[256] = "";
	struct kbpf_prog_opts po = { .sz = sizeof(po), .trusted_unverified = 1, .host = host, .log_buf = log, .log_size = sizeof(log),
				     .jit = jit, .harden = harden, .run_budget = budget, .maps = maps,
				     .nr_maps = nr_maps };
	struct kbpf_prog *p = NULL;
	int err = kbpf_prog_create(insns, n, &po, &p);

	if (err || (jit && !kbpf_prog_is_jited(p))) {
		fprintf(stderr, "line %d: create %d, jited %d: %s\n", line, err, p ? kbpf_prog_is_jited(p) : 0, log);
		test_failed_now = 1;
	}
	return p;
}
#define MAKE(insns, jit) make_at(insns, ARRAY_SIZE(insns), jit, 0, 0, NULL, 0, NULL, __LINE__)

/* The JIT's run entry (what kbpf_prog_run jumps to, with the caller's registers as they
 * were) called through a six-argument type: junk in rcx, r8 and r9, which it must not
 * take for R4, R5 or the tail call counter. Only generated code is called through the
 * wrong type (a sanitizer's function-type check would rightly refuse it for C code);
 * the interpreter's C entry gets a plain kbpf_prog_run. */
typedef int (*junk_run_fn)(const struct kbpf_prog *, void *, uint64_t *, uint64_t, uint64_t, uint64_t);

static int run_junk(const struct kbpf_prog *p, void *ctx, uint64_t *retval)
{
	if (!kbpf_prog_is_jited(p))
		return kbpf_prog_run(p, ctx, retval);
	return ((junk_run_fn)(uintptr_t)p->run)(p, ctx, retval, 0x400, 0x800, 0xdead0000);
}

/* Both engines (the JIT only where there is one). */
static int nr_engines(void)
{
	return kbpf_jit_arch_supported() ? 2 : 1;
}

static void test_null_prog(void)
{
	uint64_t r0 = JUNK;

	CHECK(kbpf_prog_run(NULL, NULL, &r0) == -EINVAL);
	CHECK_EQ_U64(r0, JUNK);
	CHECK(kbpf_prog_run(NULL, NULL, NULL) == -EINVAL);
}

/* R0 = *(u64 *)ctx + 1 | R2 | R3 | R4 | R5: through retval, or nowhere with NULL. */
static void test_retval(void)
{
	const struct bpf_insn prog[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 0),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 1),
		BPF_ALU64_REG(BPF_OR, BPF_REG_0, BPF_REG_2),
		BPF_ALU64_REG(BPF_OR, BPF_REG_0, BPF_REG_3),
		BPF_ALU64_REG(BPF_OR, BPF_REG_0, BPF_REG_4),
		BPF_ALU64_REG(BPF_OR, BPF_REG_0, BPF_REG_5),
		BPF_EXIT_INSN(),
	};

	for (int jit = 0; jit < nr_engines(); jit++) {
		struct kbpf_prog *p = MAKE(prog, jit);
		uint64_t ctx = 41, r0 = JUNK;

		if (!p)
			continue;
		CHECK(kbpf_prog_run(p, &ctx, &r0) == 0);
		CHECK_EQ_U64(r0, 42);
		for (int k = 0; k < 1000; k++) {
			ctx = (uint64_t)k << 8; /* no low bits: R2-R5 would show */
			r0 = JUNK;
			CHECK(run_junk(p, &ctx, &r0) == 0);
			CHECK_EQ_U64(r0, ((uint64_t)k << 8) + 1);
			CHECK(kbpf_prog_run(p, &ctx, NULL) == 0);
		}
		if (test_failed_now)
			fprintf(stderr, "  %s\n", jit ? "JIT" : "interpreter");
		kbpf_prog_free(p);
	}
}

/* Run-time stops (more than 8 nested calls; callx to an unregistered helper) return
 * the errno and leave *retval 0, with and without retval, many times in a row (a stop
 * unwinds the frames: the stack must come back balanced every time). */
static void test_stops(void)
{
	const struct bpf_insn deep[] = {
		BPF_MOV64_IMM(BPF_REG_0, 7),
		BPF_CALL_REL(1),
		BPF_EXIT_INSN(),
		BPF_MOV64_IMM(BPF_REG_0, 9),
		BPF_CALL_REL(-2), /* itself, forever */
		BPF_EXIT_INSN(),
	};
	const struct bpf_insn callx[] = {
		BPF_MOV64_IMM(BPF_REG_0, 7),
		BPF_MOV64_IMM(BPF_REG_6, 999),
		BPF_RAW_INSN(BPF_JMP | BPF_CALL | BPF_X, BPF_REG_6, 0, 0, 0),
		BPF_EXIT_INSN(),
	};

	for (int jit = 0; jit < nr_engines(); jit++) {
		struct kbpf_prog *d = MAKE(deep, jit), *x = MAKE(callx, jit);

		for (int k = 0; d && x && k < 100; k++) {
			uint64_t r0 = JUNK;

			CHECK(kbpf_prog_run(d, NULL, &r0) == -E2BIG);
			CHECK_EQ_U64(r0, 0);
			r0 = JUNK;
			CHECK(run_junk(x, NULL, &r0) == -EINVAL);
			CHECK_EQ_U64(r0, 0);
			CHECK(kbpf_prog_run(d, NULL, NULL) == -E2BIG);
			CHECK(kbpf_prog_run(x, NULL, NULL) == -EINVAL);
		}
		if (test_failed_now)
			fprintf(stderr, "  %s\n", jit ? "JIT" : "interpreter");
		kbpf_prog_free(d);
		kbpf_prog_free(x);
	}
}

/* One JIT program entered through all three entries in turn, each a normal run and a
 * stop: each gets its own convention back, whatever the entry before it was. */
static void test_entries_interleaved(void)
{
	/* R0 = *ctx; if R0 == 0, recurse until the depth limit stops the run */
	const struct bpf_insn prog[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 0),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 1),
		BPF_CALL_REL(1),
		BPF_EXIT_INSN(),
		BPF_CALL_REL(-1),
		BPF_EXIT_INSN(),
	};
	struct kbpf_prog *p;
	kbpf_prog_fn fn;

	if (!kbpf_jit_arch_supported())
		return;
	p = MAKE(prog, 1);
	fn = kbpf_prog_jited_func(p);
	CHECK(fn != NULL);
	for (int k = 0; fn && k < 300; k++) {
		uint64_t ctx = k % 2 ? 0 : 1000 + (uint64_t)k, r0 = JUNK;
		int want = ctx ? 0 : -E2BIG;
		struct kbpf_run_opts ro = { .sz = sizeof(ro), .args = { (uint64_t)(uintptr_t)&ctx } };
		struct kbpf_run_result rr = { .sz = sizeof(rr) };
		struct kbpf_prog_result r;

		switch (k % 3) {
		case 0:
			CHECK(kbpf_prog_run(p, &ctx, &r0) == want);
			CHECK_EQ_U64(r0, ctx);
			break;
		case 1:
			r = fn(&ctx);
			CHECK(r.err == want);
			CHECK_EQ_U64(r.retval, ctx);
			break;
		default:
			rr.retval = JUNK;
			CHECK(kbpf_prog_run_opts(p, &ro, &rr) == want);
			CHECK_EQ_U64(rr.retval, ctx);
			break;
		}
	}
	kbpf_prog_free(p);
}

/* Where the entries lie (docs/jit.md, "Entries"): the code starts on a 64-byte boundary
 * with the run entry, the ctx entry follows before instruction 0 (each falls into the
 * next, none jumps), and an empty program's code, its entries and return included, fits
 * in that one 64-byte window: a run of it is one fetch window of the front end. */
static void test_entry_layout(void)
{
	const struct bpf_insn empty[] = { BPF_MOV32_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };
	struct kbpf_prog *p;

	if (!kbpf_jit_arch_supported())
		return;
	p = MAKE(empty, 1);
	if (p && kbpf_prog_is_jited(p)) {
		size_t size = 0, cnt = 0;
		const uint8_t *code = kbpf_prog_jited_code(p, &size);
		const struct kbpf_jited_line *lines = kbpf_prog_jited_line_info(p, &cnt);
		uintptr_t ctx = (uintptr_t)kbpf_prog_jited_func(p);
		uint64_t r0 = JUNK;

		CHECK_EQ_U64((uintptr_t)code % 64, 0);
		CHECK((uintptr_t)p->run == (uintptr_t)code);
		CHECK(cnt == ARRAY_SIZE(empty));
		CHECK(ctx > (uintptr_t)code && lines && ctx < (uintptr_t)code + lines[0].start);
		CHECK(size > 0 && size <= 64);
		CHECK(kbpf_prog_run(p, NULL, &r0) == 0);
		CHECK_EQ_U64(r0, 0);
	}
	kbpf_prog_free(p);
}

/* Hardened programs (blinding, stack guard, run budget) through kbpf_prog_run: the
 * result, and the guard's -EFAULT and the budget's -ETIME with *retval 0. */
static void test_hardened(void)
{
	const struct bpf_insn sum[] = { /* R0 = 0 + 1 + ... + 99 */
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_MOV64_IMM(BPF_REG_6, 0),
		BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_6),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_6, 1),
		BPF_JMP_IMM(BPF_JLT, BPF_REG_6, 100, -3),
		BPF_EXIT_INSN(),
	};
	const struct bpf_insn above[] = { /* a write over the guard above R10 */
		BPF_MOV64_IMM(BPF_REG_1, 0x41),
		BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_1, 0),
		BPF_MOV64_IMM(BPF_REG_0, 1),
		BPF_EXIT_INSN(),
	};

	for (int jit = 0; jit < nr_engines(); jit++) {
		struct kbpf_prog *ok = make_at(sum, ARRAY_SIZE(sum), jit, KBPF_HARDEN_ALL, 1000, NULL, 0, NULL,
					       __LINE__);
		struct kbpf_prog *out = make_at(sum, ARRAY_SIZE(sum), jit, KBPF_HARDEN_ALL, 50, NULL, 0, NULL,
						__LINE__);
		struct kbpf_prog *hit = make_at(above, ARRAY_SIZE(above), jit, KBPF_HARDEN_ALL, 1000, NULL, 0,
						NULL, __LINE__);

		for (int k = 0; ok && out && hit && k < 50; k++) {
			uint64_t r0 = JUNK;

			CHECK(run_junk(ok, NULL, &r0) == 0);
			CHECK_EQ_U64(r0, 4950);
			r0 = JUNK;
			CHECK(kbpf_prog_run(out, NULL, &r0) == -ETIME);
			CHECK_EQ_U64(r0, 0);
			r0 = JUNK;
			CHECK(kbpf_prog_run(hit, NULL, &r0) == -EFAULT);
			CHECK_EQ_U64(r0, 0);
			CHECK(kbpf_prog_run(ok, NULL, NULL) == 0);
			CHECK(kbpf_prog_run(out, NULL, NULL) == -ETIME);
			CHECK(kbpf_prog_run(hit, NULL, NULL) == -EFAULT);
		}
		if (test_failed_now)
			fprintf(stderr, "  %s\n", jit ? "JIT" : "interpreter");
		kbpf_prog_free(ok);
		kbpf_prog_free(out);
		kbpf_prog_free(hit);
	}
}

/* Tail calls under kbpf_prog_run: the target's R0 is the run's; a target that stops
 * stops the run (*retval 0); 33 tail calls and the 34th falls through. Each engine as
 * the caller, with targets on the same engine. */
static void test_tail_calls(void)
{
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_PROG_ARRAY, .key_size = 4,
				    .value_size = 4, .max_entries = 3, .name = "jmp" };

	for (int jit = 0; jit < nr_engines(); jit++) {
		struct kbpf_map *m = NULL;
		const struct bpf_insn leaf[] = { /* slot 0: R0 = *ctx + 5 */
			BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 0),
			BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 5),
			BPF_EXIT_INSN(),
		};
		const struct bpf_insn rec[] = { /* slot 1: stops (call depth) */
			BPF_CALL_REL(1),
			BPF_EXIT_INSN(),
			BPF_CALL_REL(-1),
			BPF_EXIT_INSN(),
		};
		const struct bpf_insn self[] = { /* slot 2: ++*ctx, tail-calls itself */
			BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
			BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, 0),
			BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, 1),
			BPF_STX_MEM(BPF_DW, BPF_REG_1, BPF_REG_2, 0),
			BPF_LD_MAP_FD(BPF_REG_2, 0),
			BPF_MOV64_IMM(BPF_REG_3, 2),
			TAIL_CALL,
			BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_6, 0),
			BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 1000),
			BPF_EXIT_INSN(),
		};
		struct bpf_insn caller[] = { /* tail call to slot R3, else 77 */
			BPF_LD_MAP_FD(BPF_REG_2, 0),
			BPF_MOV64_IMM(BPF_REG_3, 0), /* patched */
			TAIL_CALL,
			BPF_MOV64_IMM(BPF_REG_0, 77),
			BPF_EXIT_INSN(),
		};
		struct kbpf_prog *t[3], *c[3];
		uint32_t idx;

		CHECK_EQ_U64(kbpf_map_create(&def, &m), 0);
		if (!m)
			return;
		t[0] = make_at(leaf, ARRAY_SIZE(leaf), jit, 0, 0, &m, 1, NULL, __LINE__);
		t[1] = make_at(rec, ARRAY_SIZE(rec), jit, 0, 0, &m, 1, NULL, __LINE__);
		t[2] = make_at(self, ARRAY_SIZE(self), jit, 0, 0, &m, 1, NULL, __LINE__);
		for (idx = 0; idx < 3; idx++) {
			caller[2].imm = (int32_t)idx;
			c[idx] = make_at(caller, ARRAY_SIZE(caller), jit, 0, 0, &m, 1, NULL, __LINE__);
			CHECK_EQ_U64(kbpf_map_update(m, &idx, &t[idx], BPF_ANY), 0);
		}
		for (int k = 0; c[0] && c[1] && c[2] && k < 20; k++) {
			uint64_t ctx = 10, r0 = JUNK;

			CHECK(kbpf_prog_run(c[0], &ctx, &r0) == 0);
			CHECK_EQ_U64(r0, 15);
			r0 = JUNK;
			CHECK(kbpf_prog_run(c[1], &ctx, &r0) == -E2BIG);
			CHECK_EQ_U64(r0, 0);
			ctx = 0, r0 = JUNK;
			CHECK(run_junk(c[2], &ctx, &r0) == 0);
			CHECK_EQ_U64(ctx, 33); /* the caller's call and 32 of the target's */
			CHECK_EQ_U64(r0, 1033);
			CHECK(kbpf_prog_run(c[1], &ctx, NULL) == -E2BIG);
		}
		if (test_failed_now)
			fprintf(stderr, "  %s\n", jit ? "JIT" : "interpreter");
		for (idx = 0; idx < 3; idx++) {
			kbpf_prog_free(c[idx]);
			kbpf_prog_free(t[idx]);
		}
		kbpf_map_free(m);
	}
}

int main(void)
{
	RUN(test_null_prog);
	RUN(test_retval);
	RUN(test_stops);
	RUN(test_entries_interleaved);
	RUN(test_entry_layout);
	RUN(test_hardened);
	RUN(test_tail_calls);
	return test_summary();
}
