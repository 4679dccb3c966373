/* SPDX-License-Identifier: Apache-2.0 */
/* Differential test of the JIT against the interpreter: random valid programs (ALU on
 * random registers and edge constants, forward branches, bounded loops, loads, stores
 * and atomics on a memory buffer and the stack, helper calls, callx, BPF-to-BPF calls)
 * run on both engines with the same memory; return code, R0, the memory and the
 * helper's record of its calls must agree.
 *
 *   KBPF_DIFF_ITERS=N   programs to try (default 5000)
 *   KBPF_DIFF_SEED=S    first seed (default fixed); program k uses seed S + k
 *   KBPF_DIFF_VERBOSE=1 print every program
 *
 * A mismatch prints the seed and the program, so it can be replayed with
 * KBPF_DIFF_SEED=that KBPF_DIFF_ITERS=1. Half of the programs are compiled without
 * BMI2 (shifts through cl), the JIT's other code path. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <kbpf/kbpf.h>
#include "exec/jit.h" /* white-box: KBPF_JIT_NO_BMI2 */

#define MEM_SIZE 256
#define STACK_USED 64 /* bytes below R10 every function initializes before use */
#define MAX_INSNS 4096
#define MAX_PENDING 64
#define MAX_SUBPROGS 2
#define HELPER_ID 1

/* --- what the helper saw --------------------------------------------------------- */

static uint64_t helper_log, helper_calls;

static uint64_t h_mix(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5)
{
	uint64_t v = r1 ^ (r2 * 0x9e3779b97f4a7c15ull) ^ (r3 << 7) ^ (r4 >> 3) ^ (r5 * 31);

	helper_log = (helper_log ^ v) * 0x100000001b3ull;
	helper_calls++;
	return v;
}

/* --- generator -------------------------------------------------------------------- */

struct pending {
	size_t at;      /* the jump instruction */
	int units_left; /* lands before the unit after this many more */
};

struct region {
	struct pending p[MAX_PENDING];
	int n;
};

struct call_fix {
	size_t at;
	int subprog;
};

struct gen {
	uint64_t rng;
	struct bpf_insn insns[MAX_INSNS];
	size_t n;
	uint16_t reserved; /* registers units may not write: R9 (memory), loop counters */
	int loop_depth;
	bool in_subprog;
	int nr_subprogs;
	struct call_fix calls[256];
	int nr_calls;
	bool overflow;
};

static uint64_t rnd(struct gen *g)
{
	/* xorshift64*: deterministic from the seed on every platform */
	g->rng ^= g->rng >> 12;
	g->rng ^= g->rng << 25;
	g->rng ^= g->rng >> 27;
	return g->rng * 0x2545f4914f6cdd1dull;
}

static unsigned below(struct gen *g, unsigned n)
{
	return (unsigned)(rnd(g) % n);
}

static void emit(struct gen *g, struct bpf_insn in)
{
	if (g->n < MAX_INSNS)
		g->insns[g->n++] = in;
	else
		g->overflow = true;
}

static void emit_lddw(struct gen *g, uint8_t r, uint64_t v)
{
	struct bpf_insn t[2] = { BPF_LD_IMM64(r, v) };

	emit(g, t[0]);
	emit(g, t[1]);
}

static const uint64_t edges[] = {
	0, 1, 2, 3, 7, 8, 31, 32, 33, 63, 64, 65, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff,
	0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ull, 0x7fffffffffffffffull, 0x8000000000000000ull,
	UINT64_MAX, UINT64_MAX - 1, 0xffffffff80000000ull, 0xffffffff7fffffffull,
};

static uint64_t rnd_value(struct gen *g)
{
	switch (below(g, 4)) {
	case 0: return edges[below(g, sizeof(edges) / sizeof(edges[0]))];
	case 1: return 0 - edges[below(g, sizeof(edges) / sizeof(edges[0]))];
	case 2: return below(g, 100);
	default: return rnd(g);
	}
}

static int32_t rnd_imm(struct gen *g)
{
	return (int32_t)(uint32_t)rnd_value(g);
}

/* A register units may write (R0-R8 less the reserved ones). */
static uint8_t rnd_dst(struct gen *g)
{
	for (;;) {
		uint8_t r = (uint8_t)below(g, 9);
		if (!(g->reserved & (1u << r)))
			return r;
	}
}

/* Any register holding data: R0-R9 (R9's pointer is the same on both runs; R10's is
 * not, so it never flows into data). */
static uint8_t rnd_src(struct gen *g)
{
	return (uint8_t)below(g, 10);
}

static void gen_alu(struct gen *g)
{
	static const uint8_t ops[] = { BPF_ADD, BPF_SUB, BPF_MUL, BPF_DIV, BPF_MOD, BPF_OR, BPF_AND,
				       BPF_LSH, BPF_RSH, BPF_ARSH, BPF_XOR, BPF_MOV, BPF_NEG, BPF_END };
	uint8_t op = ops[below(g, sizeof(ops))], cls = below(g, 2) ? BPF_ALU64 : BPF_ALU;
	uint8_t d = rnd_dst(g), s = rnd_src(g);
	bool x = below(g, 2);
	int16_t off = 0;

	if (op == BPF_NEG) {
		emit(g, BPF_RAW_INSN(cls | op, d, 0, 0, 0));
		return;
	}
	if (op == BPF_END) {
		static const int32_t w[] = { 16, 32, 64 };
		uint8_t src = cls == BPF_ALU64 ? BPF_TO_LE : (below(g, 2) ? BPF_TO_BE : BPF_TO_LE);
		emit(g, BPF_RAW_INSN(cls | op | src, d, 0, 0, w[below(g, 3)]));
		return;
	}
	if ((op == BPF_DIV || op == BPF_MOD) && below(g, 2))
		off = 1;
	if (op == BPF_MOV && x && below(g, 3) == 0) {
		static const int16_t sx[] = { 8, 16, 32 };
		off = sx[below(g, cls == BPF_ALU64 ? 3 : 2)];
	}
	if (x)
		emit(g, BPF_RAW_INSN(cls | op | BPF_X, d, s, off, 0));
	else
		emit(g, BPF_RAW_INSN(cls | op | BPF_K, d, 0, off, rnd_imm(g)));
}

static const uint8_t sizes[] = { BPF_B, BPF_H, BPF_W, BPF_DW };
static const int size_bytes[] = { 1, 2, 4, 8 };

/* A base register and displacement reaching [lo, lo + len) of the memory: R9 itself,
 * or a copy of it moved by a random amount into a writable register. */
static uint8_t mem_base(struct gen *g, int32_t at, int16_t *off)
{
	if (below(g, 2)) {
		*off = (int16_t)at;
		return BPF_REG_9;
	}
	uint8_t t = rnd_dst(g);
	int32_t shift = (int32_t)below(g, 600) - 300;
	emit(g, BPF_MOV64_REG(t, BPF_REG_9));
	emit(g, BPF_ALU64_IMM(BPF_ADD, t, shift));
	*off = (int16_t)(at - shift);
	return t;
}

static void gen_load(struct gen *g)
{
	unsigned z = below(g, 4);
	bool sx = z < 3 && below(g, 3) == 0;
	uint8_t d;
	int16_t off;

	if (below(g, 3) == 0) { /* the stack */
		off = (int16_t)-(int)(size_bytes[z] + below(g, STACK_USED - size_bytes[z] + 1));
		d = rnd_dst(g);
		emit(g, sx ? BPF_LDX_MEMSX(sizes[z], d, BPF_REG_10, off) : BPF_LDX_MEM(sizes[z], d, BPF_REG_10, off));
		return;
	}
	uint8_t base = mem_base(g, (int32_t)below(g, MEM_SIZE - size_bytes[z] + 1), &off);
	d = rnd_dst(g);
	emit(g, sx ? BPF_LDX_MEMSX(sizes[z], d, base, off) : BPF_LDX_MEM(sizes[z], d, base, off));
}

static void gen_store(struct gen *g)
{
	unsigned z = below(g, 4);
	uint8_t base;
	int16_t off;

	if (below(g, 3) == 0) {
		base = BPF_REG_10;
		off = (int16_t)-(int)(size_bytes[z] + below(g, STACK_USED - size_bytes[z] + 1));
	} else {
		base = mem_base(g, (int32_t)below(g, MEM_SIZE - size_bytes[z] + 1), &off);
	}
	if (below(g, 2))
		emit(g, BPF_ST_MEM(sizes[z], base, off, rnd_imm(g)));
	else
		emit(g, BPF_STX_MEM(sizes[z], base, rnd_src(g), off));
}

static void gen_atomic(struct gen *g)
{
	static const int32_t ops[] = { BPF_ADD, BPF_OR, BPF_AND, BPF_XOR, BPF_ADD | BPF_FETCH, BPF_OR | BPF_FETCH,
				       BPF_AND | BPF_FETCH, BPF_XOR | BPF_FETCH, BPF_XCHG, BPF_CMPXCHG };
	int32_t op = ops[below(g, 10)];
	bool dw = below(g, 2);
	int sz = dw ? 8 : 4;
	uint8_t base, s;
	int16_t off;

	if (below(g, 3) == 0) {
		base = BPF_REG_10;
		off = (int16_t)-(int)(sz * (1 + below(g, STACK_USED / sz)));
	} else {
		int32_t at = (int32_t)(sz * below(g, MEM_SIZE / sz));
		if (below(g, 2)) {
			base = BPF_REG_9;
			off = (int16_t)at;
		} else { /* any writable register as the base, rax included */
			int32_t shift = sz * ((int32_t)below(g, 40) - 20);
			base = rnd_dst(g);
			emit(g, BPF_MOV64_REG(base, BPF_REG_9));
			emit(g, BPF_ALU64_IMM(BPF_ADD, base, shift));
			off = (int16_t)(at - shift);
		}
	}
	/* fetch forms write src, cmpxchg writes R0 (never reserved) */
	s = (op & BPF_FETCH) && op != BPF_CMPXCHG ? rnd_dst(g) : rnd_src(g);
	if (op == BPF_CMPXCHG && base != BPF_REG_0 && below(g, 2)) {
		/* let the exchange succeed: R0 = the current value, for W with a dirty
		 * upper half (which must not survive: R0 gets the zero-extended old value) */
		emit(g, BPF_LDX_MEM(dw ? BPF_DW : BPF_W, BPF_REG_0, base, off));
		if (!dw) {
			uint8_t t = rnd_dst(g);
			if (t != BPF_REG_0 && t != base && t != s) {
				emit_lddw(g, t, rnd(g) << 32);
				emit(g, BPF_ALU64_REG(BPF_OR, BPF_REG_0, t));
			}
		}
	}
	emit(g, BPF_ATOMIC_OP(dw ? BPF_DW : BPF_W, op, base, s, off));
}

/* R1-R5 are undefined after a call (Linux's rule; the JIT clobbers them): give them
 * fresh values before anything reads them. */
static void reinit_args(struct gen *g)
{
	for (uint8_t r = 1; r <= 5; r++)
		if (!(g->reserved & (1u << r)))
			emit(g, BPF_MOV64_IMM(r, rnd_imm(g)));
}

static void gen_units(struct gen *g, int count);

static void gen_loop(struct gen *g)
{
	uint8_t cnt = BPF_REG_6 + (uint8_t)below(g, 3);
	size_t top;

	if (g->reserved & (1u << cnt))
		return;
	emit(g, BPF_MOV64_IMM(cnt, 1 + (int32_t)below(g, 4)));
	top = g->n;
	g->reserved |= (uint16_t)(1u << cnt);
	g->loop_depth++;
	gen_units(g, 2 + (int)below(g, 6));
	g->loop_depth--;
	g->reserved &= (uint16_t)~(1u << cnt);
	emit(g, BPF_ALU64_IMM(BPF_SUB, cnt, 1));
	if (below(g, 2))
		emit(g, BPF_JMP_IMM(BPF_JNE, cnt, 0, (int16_t)((int64_t)top - (int64_t)(g->n + 1))));
	else
		emit(g, BPF_JMP32_IMM(BPF_JSGT, cnt, 0, (int16_t)((int64_t)top - (int64_t)(g->n + 1))));
}

static const uint8_t jmp_ops[] = {
	BPF_JEQ, BPF_JNE, BPF_JGT, BPF_JGE, BPF_JLT, BPF_JLE, BPF_JSGT, BPF_JSGE, BPF_JSLT, BPF_JSLE, BPF_JSET,
};

/* One unit: an instruction or a short sequence no jump lands inside. */
static void gen_unit(struct gen *g, struct region *rg)
{
	unsigned k = below(g, 100);

	if (k < 38) {
		gen_alu(g);
	} else if (k < 43) {
		emit_lddw(g, rnd_dst(g), rnd_value(g));
	} else if (k < 53) {
		gen_load(g);
	} else if (k < 63) {
		gen_store(g);
	} else if (k < 71) {
		gen_atomic(g);
	} else if (k < 83 && rg->n < MAX_PENDING) {
		uint8_t cls = below(g, 2) ? BPF_JMP : BPF_JMP32, op = jmp_ops[below(g, sizeof(jmp_ops))];
		rg->p[rg->n++] = (struct pending){ g->n, 1 + (int)below(g, 4) };
		if (below(g, 2))
			emit(g, BPF_RAW_INSN(cls | op | BPF_X, rnd_src(g), rnd_src(g), 0, 0));
		else
			emit(g, BPF_RAW_INSN(cls | op | BPF_K, rnd_src(g), 0, 0, rnd_imm(g)));
	} else if (k < 86 && rg->n < MAX_PENDING) {
		rg->p[rg->n++] = (struct pending){ g->n, 1 + (int)below(g, 3) };
		emit(g, below(g, 2) ? BPF_JMP_A(0) : BPF_JMP32_A(0));
	} else if (k < 90) {
		emit(g, BPF_EMIT_CALL(HELPER_ID));
		reinit_args(g);
	} else if (k < 92) {
		uint8_t r = rnd_dst(g);
		emit(g, BPF_MOV64_IMM(r, below(g, 8) ? HELPER_ID : 2 + (int32_t)below(g, 3)));
		emit(g, BPF_RAW_INSN(BPF_JMP | BPF_CALL | BPF_X, r, 0, 0, 0));
		reinit_args(g);
	} else if (k < 95 && !g->in_subprog && g->nr_subprogs && g->nr_calls < 256) {
		g->calls[g->nr_calls++] = (struct call_fix){ g->n, (int)below(g, (unsigned)g->nr_subprogs) };
		emit(g, BPF_CALL_REL(0));
	} else if (k < 98 && g->loop_depth < 2) {
		gen_loop(g);
	} else {
		gen_alu(g);
	}
}

/* Point a pending jump at the current end of the program. */
static void land(struct gen *g, const struct pending *p)
{
	struct bpf_insn *in = &g->insns[p->at];
	int64_t off = (int64_t)g->n - (int64_t)(p->at + 1);

	if (BPF_CLASS(in->code) == BPF_JMP32 && BPF_OP(in->code) == BPF_JA)
		in->imm = (int32_t)off;
	else
		in->off = (int16_t)off;
}

/* count units; forward jumps land on unit boundaries inside this region only. */
static void gen_units(struct gen *g, int count)
{
	struct region rg = { .n = 0 };

	for (int u = 0; u < count; u++) {
		for (int k = 0; k < rg.n;) {
			if (rg.p[k].units_left == 0) {
				land(g, &rg.p[k]);
				rg.p[k] = rg.p[--rg.n];
			} else {
				k++;
			}
		}
		int before = rg.n; /* jumps this unit adds count from the next one */

		gen_unit(g, &rg);
		for (int k = 0; k < before; k++)
			rg.p[k].units_left--;
	}
	/* the rest land where the region ends (a loop's decrement, a function's tail) */
	for (int k = 0; k < rg.n; k++)
		land(g, &rg.p[k]);
}

/* Every function starts with the stack it reads initialized and R0 set. */
static void gen_function_head(struct gen *g)
{
	for (int off = 8; off <= STACK_USED; off += 8)
		emit(g, BPF_ST_MEM(BPF_DW, BPF_REG_10, -off, rnd_imm(g)));
}

/* r0 = fold of R0-R8 and the initialized stack. */
static void gen_fold(struct gen *g)
{
	for (uint8_t r = 1; r <= 8; r++) {
		emit(g, BPF_ALU64_IMM(BPF_MUL, BPF_REG_0, 0x1003));
		emit(g, BPF_ALU64_REG(BPF_XOR, BPF_REG_0, r));
	}
	for (int off = 8; off <= STACK_USED; off += 8) {
		emit(g, BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_10, -off));
		emit(g, BPF_ALU64_IMM(BPF_MUL, BPF_REG_0, 0x1003));
		emit(g, BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1));
	}
}

static size_t gen_program(struct gen *g, uint64_t seed)
{
	size_t sub_start[MAX_SUBPROGS];

	memset(g, 0, sizeof(*g));
	g->rng = seed * 0x9e3779b97f4a7c15ull + 1;
	g->nr_subprogs = (int)below(g, MAX_SUBPROGS + 1);
	g->reserved = 1u << BPF_REG_9;

	/* main: R1 is the memory; keep it in R9, give every other register a value */
	emit(g, BPF_MOV64_REG(BPF_REG_9, BPF_REG_1));
	for (uint8_t r = 0; r <= 8; r++)
		emit_lddw(g, r, rnd_value(g));
	gen_function_head(g);
	gen_units(g, 10 + (int)below(g, 50));
	gen_fold(g);
	emit(g, BPF_EXIT_INSN());

	/* subprograms: R1-R5 are their arguments, R6-R9 the caller's (restored on return) */
	g->in_subprog = true;
	for (int s = 0; s < g->nr_subprogs; s++) {
		sub_start[s] = g->n;
		gen_function_head(g);
		gen_units(g, 3 + (int)below(g, 15));
		emit(g, BPF_EXIT_INSN());
	}
	for (int k = 0; k < g->nr_calls; k++)
		g->insns[g->calls[k].at].imm = (int32_t)((int64_t)sub_start[g->calls[k].subprog] -
							 (int64_t)(g->calls[k].at + 1));
	return g->overflow ? 0 : g->n;
}

/* --- running ------------------------------------------------------------------------ */

struct outcome {
	int ret;
	uint64_t r0, log, calls;
	uint8_t mem[MEM_SIZE];
};

/* One run from init: through kbpf_prog_run_opts (the JIT's struct entry), or with
 * via_run through kbpf_prog_run (its run entry: R0 comes back through the pointer). */
static int run_one(const struct kbpf_prog *prog, uint8_t *mem, const uint8_t *init, struct outcome *o,
		   bool via_run)
{
	struct kbpf_run_opts ro = { .sz = sizeof(ro), .args = { (uint64_t)(uintptr_t)mem } };
	struct kbpf_run_result rr = { .sz = sizeof(rr) };

	memcpy(mem, init, MEM_SIZE);
	helper_log = helper_calls = 0;
	rr.retval = 0x5a5a5a5a5a5a5a5aull; /* a stop must leave 0 */
	o->ret = via_run ? kbpf_prog_run(prog, mem, &rr.retval) : kbpf_prog_run_opts(prog, &ro, &rr);
	o->r0 = rr.retval;
	o->log = helper_log;
	o->calls = helper_calls;
	memcpy(o->mem, mem, MEM_SIZE);
	return o->ret;
}

static void dump(const struct bpf_insn *insns, size_t n)
{
	kbpf_prog_disasm(insns, n, NULL, stderr);
}

static uint64_t env_u64(const char *name, uint64_t fallback)
{
	const char *s = getenv(name);
	return s && *s ? strtoull(s, NULL, 0) : fallback;
}

static struct gen gen; /* 32 KiB of instructions: not on the stack */

int main(void)
{
	uint64_t iters = env_u64("KBPF_DIFF_ITERS", 5000), seed0 = env_u64("KBPF_DIFF_SEED", 20240601);
	bool verbose = env_u64("KBPF_DIFF_VERBOSE", 0);
	struct kbpf_host *host = kbpf_host_new();
	_Alignas(8) uint8_t init[MEM_SIZE];
	/* R9 (the memory's address) flows into data, so a replayed seed gives the same
	 * program run only at the same address: ask for a fixed one (a hint). */
	uint8_t *mem = mmap((void *)(uintptr_t)0x200000000ull, 4096, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t insns_total = 0, mismatches = 0, not_jited = 0, stopped = 0, calls = 0;

	if (!kbpf_jit_arch_supported()) {
		printf("not an x86-64 host: differential test skipped\n");
		return 0;
	}
	if (mem == MAP_FAILED || !host || kbpf_host_helper_register(host, HELPER_ID, "mix", h_mix)) {
		fprintf(stderr, "cannot create the host\n");
		return 1;
	}
	for (uint64_t it = 0; it < iters; it++) {
		uint64_t seed = seed0 + it;
		size_t n = gen_program(&gen, seed);
		char log[512] = "";
		struct kbpf_prog_opts po = { .sz = sizeof(po), .trusted_unverified = 1, .host = host, .log_buf = log, .log_size = sizeof(log) };
		struct kbpf_prog *pi = NULL, *pj = NULL;
		struct outcome oi, oj;
		/* KBPF_DIFF_JIT_FLAGS: more compile flags (the hardening job sets blinding and guards) */
		unsigned flags = (it & 1 ? KBPF_JIT_NO_BMI2 : 0) | (unsigned)env_u64("KBPF_DIFF_JIT_FLAGS", 0);
		int ret;

		if (!n) {
			fprintf(stderr, "seed %" PRIu64 ": program too long\n", seed);
			return 1;
		}
		insns_total += n;
		if (verbose) {
			fprintf(stderr, "--- seed %" PRIu64 " (%zu insns)\n", seed, n);
			dump(gen.insns, n);
		}
		for (size_t k = 0; k < MEM_SIZE; k++)
			init[k] = (uint8_t)(rnd(&gen) >> 56);
		ret = kbpf_prog_create(gen.insns, n, &po, &pi);
		if (!ret)
			ret = kbpf_prog_create(gen.insns, n, &po, &pj);
		if (!ret)
			ret = kbpf_jit_attach(pj, flags, log, sizeof(log));
		if (ret) {
			fprintf(stderr, "seed %" PRIu64 ": create/JIT failed %d: %s\n", seed, ret, log);
			dump(gen.insns, n);
			not_jited++;
			kbpf_prog_free(pi);
			kbpf_prog_free(pj);
			continue;
		}
		run_one(pi, mem, init, &oi, false);
		/* half the programs (with and without BMI2) through kbpf_prog_run: the run entry */
		run_one(pj, mem, init, &oj, it & 2);
		if (oi.ret != oj.ret || oi.r0 != oj.r0 || oi.log != oj.log || oi.calls != oj.calls ||
		    memcmp(oi.mem, oj.mem, MEM_SIZE)) {
			fprintf(stderr,
				"MISMATCH seed %" PRIu64 "%s%s: interpreter ret %d R0 0x%" PRIx64 " calls %" PRIu64
				" log 0x%" PRIx64 "; JIT ret %d R0 0x%" PRIx64 " calls %" PRIu64 " log 0x%" PRIx64 "\n",
				seed, flags ? " (no BMI2)" : "", it & 2 ? " (kbpf_prog_run)" : "", oi.ret, oi.r0,
				oi.calls, oi.log, oj.ret, oj.r0, oj.calls, oj.log);
			for (size_t k = 0; k < MEM_SIZE; k++)
				if (oi.mem[k] != oj.mem[k]) {
					fprintf(stderr, "  memory differs first at byte %zu: 0x%02x vs 0x%02x\n", k,
						oi.mem[k], oj.mem[k]);
					break;
				}
			dump(gen.insns, n);
			mismatches++;
		}
		stopped += oi.ret != 0; /* callx of an unregistered id: both stopped alike */
		calls += oi.calls;
		kbpf_prog_free(pi);
		kbpf_prog_free(pj);
		if (mismatches >= 3)
			break;
	}
	kbpf_host_free(host);
	munmap(mem, 4096);
	printf("%" PRIu64 " programs (%" PRIu64 " insns, %" PRIu64 " helper calls, %" PRIu64
	       " stopped at run time), seeds %" PRIu64 "..: %" PRIu64 " mismatches, %" PRIu64 " not JIT-compiled\n",
	       iters, insns_total, calls, stopped, seed0, mismatches, not_jited);
	return mismatches || not_jited ? 1 : 0;
}
