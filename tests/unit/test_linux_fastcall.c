/* SPDX-License-Identifier: Apache-2.0 */
/* bpf_fastcall (src/verifier/fastcall.c, Linux 6.12): the spills and fills clang puts
 * around bpf_get_smp_processor_id go from the translated program, which inlines the call
 * as a per-CPU load, and R1-R5 still hold their values after it on the interpreter,
 * checked (with a stack filled with garbage, so a fill that reads a slot never written
 * shows) and on the JIT; an unprivileged program gets NOPs in their place; a program
 * whose other accesses touch the spill area keeps every pair (and, unlike 6.12's bound,
 * also when the access is to a larger pattern's slot above a smaller one's end). */
#include <stdlib.h>
#include <kbpf/verifier.h>
#include "test.h"
#include "test_linux_util.h"

#define CPU_ID BPF_EMIT_CALL(BPF_FUNC_get_smp_processor_id)

/* Linux's verifier_bpf_fastcall "simple", then R0 = cpu + R1 + ... + R5. */
static const struct bpf_insn simple[] = {
	BPF_MOV64_IMM(BPF_REG_1, 0x10),
	BPF_MOV64_IMM(BPF_REG_2, 0x200),
	BPF_MOV64_IMM(BPF_REG_3, 0x3000),
	BPF_MOV64_IMM(BPF_REG_4, 0x40000),
	BPF_MOV64_IMM(BPF_REG_5, 0x500000),
	BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_1, -16),
	BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_2, -24),
	BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_3, -32),
	BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_4, -40),
	BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_5, -48),
	CPU_ID,
	BPF_LDX_MEM(BPF_DW, BPF_REG_5, BPF_REG_10, -48),
	BPF_LDX_MEM(BPF_DW, BPF_REG_4, BPF_REG_10, -40),
	BPF_LDX_MEM(BPF_DW, BPF_REG_3, BPF_REG_10, -32),
	BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_10, -24),
	BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_10, -16),
	BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1),
	BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_2),
	BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_3),
	BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_4),
	BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_5),
	BPF_EXIT_INSN(),
};
#define SIMPLE_SUM 0x543210u

/* Two patterns, of 2 pairs and of 1, and a read of the larger one's second slot (-8, at
 * 6.12's bound: its check lets it through and removes the pairs, so R6 would read a slot
 * never written). kbpf keeps every pair: R0 = 2. */
static const struct bpf_insn mixed[] = {
	BPF_MOV64_IMM(BPF_REG_1, 1),
	BPF_MOV64_IMM(BPF_REG_2, 2),
	BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_2, -8),
	BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_1, -16),
	CPU_ID,
	BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_10, -16),
	BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_10, -8),
	BPF_LDX_MEM(BPF_DW, BPF_REG_6, BPF_REG_10, -8),
	BPF_STX_MEM(BPF_DW, BPF_REG_10, BPF_REG_1, -16),
	CPU_ID,
	BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_10, -16),
	BPF_MOV64_REG(BPF_REG_0, BPF_REG_6),
	BPF_EXIT_INSN(),
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* The translated program's length and main's stack depth. */
static void xlated(struct kbpf_host *host, const struct bpf_insn *insns, size_t cnt, const char *type, int unpriv,
		   uint32_t *xcnt, uint32_t *depth, struct bpf_insn **out)
{
	char log[4096];
	struct kbpf_verify_opts vo = { .sz = sizeof(vo), .host = host, .prog_type = type, .license = "GPL",
				       .unprivileged = unpriv, .xlated_alloc = 1, .log_buf = log, .log_size = sizeof(log) };
	struct kbpf_verify_result vr = { .sz = sizeof(vr) };
	int err = kbpf_prog_verify(insns, cnt, &vo, &vr);
	if (err)
		fprintf(stderr, "%s", log);
	CHECK_EQ_U64(err, 0);
	*xcnt = vr.xlated_cnt;
	*depth = vr.stack_depth[0];
	*out = vr.xlated_prog;
	free(vr.xlated_idx);
}

/* R0 of a run on the interpreter, checked with a garbage-filled stack, and the JIT. */
static void runs(struct kbpf_host *host, const struct bpf_insn *insns, size_t cnt, const char *type, int unpriv,
		 uint64_t want)
{
	for (int mode = 0; mode < 3; mode++) {
		struct kbpf_prog_opts po = { .sz = sizeof(po), .host = host, .prog_type = type, .license = "GPL",
					     .jit = mode == 2, .unprivileged = unpriv };
		struct kbpf_prog *p = NULL;
		uint8_t ctx[64] = { 0 };
		CHECK_EQ_U64(kbpf_prog_create(insns, cnt, &po, &p), 0);
		if (!p)
			continue;
		CHECK_EQ_U64(kbpf_prog_is_jited(p), mode == 2);
		for (int fill = 0; fill < 2; fill++) {
			struct kbpf_run_opts ro = { .sz = sizeof(ro), .args = { (uint64_t)(uintptr_t)ctx } };
			struct kbpf_run_result rr = { .sz = sizeof(rr) };
			if (mode == 1) {
				struct kbpf_mem_region r = { ctx, sizeof(ctx), KBPF_MEM_READ, "ctx" };
				ro.flags = KBPF_RUN_CHECKED | (fill ? KBPF_RUN_STACK_FILL : 0);
				ro.stack_fill = 0xa5;
				ro.regions = &r;
				ro.nr_regions = 1;
				CHECK_EQ_U64(kbpf_prog_run_opts(p, &ro, &rr), 0);
			} else {
				CHECK_EQ_U64(kbpf_prog_run_opts(p, &ro, &rr), 0);
			}
			if (rr.retval != want)
				fprintf(stderr, "mode %d (0 interpreter, 1 checked, 2 JIT), fill %d: R0 0x%llx\n", mode, fill,
					(unsigned long long)rr.retval);
			CHECK_EQ_U64(rr.retval, want);
		}
		kbpf_prog_free(p);
	}
}

/* "simple" as type: privileged, its 10 spills and fills gone (the call became 3 insns);
 * unprivileged, NOPs in their place; 8 bytes of stack either way (Linux's "stack depth
 * 8"); R0 the sum and the CPU slot the thread is bound to. */
static void check_simple(const char *type, int unpriv, unsigned cpu)
{
	struct kbpf_host *host = linux_host();
	struct bpf_insn *x = NULL;
	uint32_t cnt = 0, depth = 0, call = unpriv ? 10 : 5; /* where the inlined call starts */
	CHECK(host);
	CHECK_EQ_U64(kbpf_cpu_bind(cpu), 0);
	xlated(host, simple, N(simple), type, unpriv, &cnt, &depth, &x);
	CHECK_EQ_U64(cnt, N(simple) + 2 - (unpriv ? 0 : 10));
	CHECK_EQ_U64(depth, 8);
	for (uint32_t i = 0; x && i < cnt; i++)
		CHECK(!(x[i].code == (BPF_STX | BPF_MEM | BPF_DW) || x[i].code == (BPF_LDX | BPF_MEM | BPF_DW)));
	for (uint32_t i = 5; unpriv && x && i < 10; i++)
		CHECK(x[i].code == (BPF_JMP | BPF_JA) && x[i].off == 0);
	CHECK(x && x[call].code == (BPF_ALU | BPF_MOV | BPF_K) && x[call + 1].off == KBPF_ADDR_PERCPU &&
	      x[call + 2].code == (BPF_LDX | BPF_MEM | BPF_W));
	free(x);
	runs(host, simple, N(simple), type, unpriv, SIMPLE_SUM + cpu);
	kbpf_host_free(host);
}

static void test_simple(void)
{
	/* the last slot: the inlined load reads this thread's block */
	check_simple("raw_tracepoint", 0, kbpf_nr_cpus() - 1);
}

static void test_unprivileged_nops(void)
{
	check_simple("socket_filter", 1, 0);
}

static void test_mixed_sizes_keep_pairs(void)
{
	struct kbpf_host *host = linux_host();
	struct bpf_insn *x = NULL;
	uint32_t cnt = 0, depth = 0;
	CHECK(host);
	xlated(host, mixed, N(mixed), "raw_tracepoint", 0, &cnt, &depth, &x);
	CHECK_EQ_U64(cnt, N(mixed) + 2 * 2); /* only the two calls inlined */
	CHECK_EQ_U64(depth, 16);
	free(x);
	runs(host, mixed, N(mixed), "raw_tracepoint", 0, 2);
	kbpf_host_free(host);
}

/* A call no path reaches stays dead code's goto -1, not the inlined load. */
static void test_dead_call_not_inlined(void)
{
	static const struct bpf_insn dead[] = {
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1),
		CPU_ID,
		BPF_EXIT_INSN(),
	};
	struct kbpf_host *host = linux_host();
	struct bpf_insn *x = NULL;
	uint32_t cnt = 0, depth = 0;
	CHECK(host);
	xlated(host, dead, N(dead), "raw_tracepoint", 0, &cnt, &depth, &x);
	CHECK_EQ_U64(cnt, N(dead));
	CHECK(x && x[2].code == (BPF_JMP | BPF_JA) && x[2].off == -1);
	free(x);
	kbpf_host_free(host);
}

int main(void)
{
	RUN(test_simple);
	RUN(test_unprivileged_nops);
	RUN(test_mixed_sizes_keep_pairs);
	RUN(test_dead_call_not_inlined);
	return test_summary();
}
