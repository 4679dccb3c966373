/* SPDX-License-Identifier: Apache-2.0 */
/* LD_ABS / LD_IND at run time: B/H/W, ABS/IND, in and out of bounds, Linux's negative
 * offsets (SKF_NET_OFF, SKF_LL_OFF), a bpf-to-bpf program whose subprogram's failed load
 * returns 0 to its caller, on every engine (fast, checked and hardened interpreter; the
 * JIT, plain and hardened) through hosts/linux's skb types and through a type of the
 * test's own (the public kbpf_prog_type.ld_abs hook). */
#define _GNU_SOURCE /* memmem */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <linux/filter.h> /* SKF_NET_OFF, SKF_LL_OFF, SKF_AD_OFF */
#include <kbpf/kbpf.h>
#include <kbpf/linux.h>
#include "test.h"
#include "test_linux_util.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NOT_RUN 0xdeadbeefull

/* An Ethernet frame in a buffer with headroom, as BPF_PROG_TEST_RUN lays it out: tc
 * sees it from the MAC header, a socket filter from the network header. */
struct pkt {
	uint8_t buf[256];
	struct kbpf_linux_skb skb;
};

#define HEADROOM 32
#define FRAME_LEN 64

static void pkt_init(struct pkt *p, int l2, size_t headroom)
{
	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < FRAME_LEN; i++)
		p->buf[headroom + i] = (uint8_t)(0x10 + i); /* frame byte i is 0x10 + i */
	kbpf_linux_skb_init(&p->skb, p->buf, headroom + FRAME_LEN + 16, l2 ? headroom : headroom + 14,
			    l2 ? FRAME_LEN : FRAME_LEN - 14);
}

/* Program options: a type, and func_info for subprograms (NULL: none). */
struct variant {
	const char *name;
	int jit;
	unsigned harden;
	uint64_t run_budget;
};

static const struct variant variants[] = {
	{ "interp", 0, 0, 0 },
	{ "interp-hardened", 0, KBPF_HARDEN_STACK_GUARD, 0 },
	{ "interp-budget", 0, 0, 1000 },
	{ "jit", 1, 0, 0 },
	{ "jit-hardened", 1, KBPF_HARDEN_ALL, 1000 },
};

struct btf_prog {
	struct btf *btf;
	struct bpf_func_info fi[2];
	uint32_t nr;
};

/* Run insns (of type, on host) on every engine against ctx; each must give expected.
 * Checked mode may read ctx and the packet buffer only. */
static void run_all(struct kbpf_host *host, const char *type, const struct bpf_insn *insns, size_t n,
		    const struct btf_prog *bp, void *ctx, size_t ctx_size, void *buf, size_t buf_size,
		    uint64_t expected, int line)
{
	for (size_t v = 0; v < ARRAY_SIZE(variants); v++) {
		char log[512] = "";
		struct kbpf_prog_opts po = {
			.sz = sizeof(po), .host = host, .name = "ld_abs", .log_buf = log, .log_size = sizeof(log),
			.prog_type = type, .license = "GPL", .jit = variants[v].jit, .harden = variants[v].harden,
			.run_budget = variants[v].run_budget,
		};
		struct kbpf_prog *prog = NULL;
		uint64_t r0 = NOT_RUN;
		int ret;

		if (bp) {
			po.prog_btf = bp->btf;
			po.func_info = bp->fi;
			po.nr_func_info = bp->nr;
		}
		ret = kbpf_prog_create(insns, n, &po, &prog);
		if (ret) {
			fprintf(stderr, "line %d: %s: create failed %d: %s\n", line, variants[v].name, ret, log);
			test_failed_now = 1;
			continue;
		}
		if (variants[v].jit && !kbpf_prog_is_jited(prog)) {
			fprintf(stderr, "line %d: %s: not JIT-compiled: %s\n", line, variants[v].name, log);
			test_failed_now = 1;
		}
		ret = kbpf_prog_run(prog, ctx, &r0);
		if (ret || r0 != expected) {
			fprintf(stderr, "line %d: %s: run %d gave 0x%llx, expected 0x%llx\n", line, variants[v].name,
				ret, (unsigned long long)r0, (unsigned long long)expected);
			test_failed_now = 1;
		}
		if (!variants[v].jit) {
			char err[256] = "";
			struct kbpf_mem_region regions[2] = {
				{ ctx, ctx_size, KBPF_MEM_READ | KBPF_MEM_WRITE, "ctx" },
				{ buf, buf_size, KBPF_MEM_READ | KBPF_MEM_WRITE, "packet" },
			};
			struct kbpf_run_opts ro = {
				.sz = sizeof(ro), .args = { (uint64_t)(uintptr_t)ctx }, .flags = KBPF_RUN_CHECKED,
				.regions = regions, .nr_regions = 2, .err = err, .err_size = sizeof(err),
			};
			struct kbpf_run_result rr = { .sz = sizeof(rr) };
			ret = kbpf_prog_run_opts(prog, &ro, &rr);
			if (ret || rr.retval != expected) {
				fprintf(stderr, "line %d: %s checked: run %d gave 0x%llx, expected 0x%llx: %s\n", line,
					variants[v].name, ret, (unsigned long long)rr.retval,
					(unsigned long long)expected, err);
				test_failed_now = 1;
			}
		}
		kbpf_prog_free(prog);
	}
}

#define RUN_SKB(host, type, insns, p, expected)                                                          \
	run_all(host, type, insns, ARRAY_SIZE(insns), NULL, &(p)->skb, sizeof((p)->skb), (p)->buf,       \
		sizeof((p)->buf), expected, __LINE__)

/* R0 = the value LD (an LD_ABS/LD_IND) loads, or 0xff..ff if the program went on
 * after a failed load (it must not). */
static uint64_t load_one(struct kbpf_host *host, const char *type, struct pkt *p, struct bpf_insn ld, int32_t r7,
			 int line)
{
	const struct bpf_insn insns[] = {
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		BPF_MOV64_IMM(BPF_REG_7, r7),
		ld,
		BPF_EXIT_INSN(),
	};
	/* the fast interpreter's result first; run_all then wants it from every engine */
	char log[256] = "";
	struct kbpf_prog_opts po = { .sz = sizeof(po), .host = host, .prog_type = type, .log_buf = log,
				     .log_size = sizeof(log) };
	struct kbpf_prog *prog = NULL;
	uint64_t r0 = NOT_RUN;

	if (kbpf_prog_create(insns, ARRAY_SIZE(insns), &po, &prog)) {
		fprintf(stderr, "line %d: create: %s\n", line, log);
		test_failed_now = 1;
		return NOT_RUN;
	}
	kbpf_prog_run(prog, &p->skb, &r0);
	kbpf_prog_free(prog);
	run_all(host, type, insns, ARRAY_SIZE(insns), NULL, &p->skb, sizeof(p->skb), p->buf, sizeof(p->buf), r0,
		line);
	return r0;
}

#define LOAD(type, p, ld, r7) load_one(host, type, p, ld, r7, __LINE__)

/* B, H and W, from the packet's start, as big-endian values. */
static void test_abs_sizes(void)
{
	struct kbpf_host *host = linux_host();
	struct pkt p;
	const struct bpf_insn insns[] = {
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		BPF_LD_ABS(BPF_B, 0),
		BPF_MOV64_REG(BPF_REG_7, BPF_REG_0),
		BPF_LD_ABS(BPF_H, 1),
		BPF_ALU64_IMM(BPF_LSH, BPF_REG_7, 16),
		BPF_ALU64_REG(BPF_OR, BPF_REG_7, BPF_REG_0),
		BPF_LD_ABS(BPF_W, 3),
		BPF_ALU64_IMM(BPF_LSH, BPF_REG_7, 32),
		BPF_ALU64_REG(BPF_OR, BPF_REG_7, BPF_REG_0),
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_7),
		BPF_EXIT_INSN(),
	};

	CHECK(host);
	if (!host)
		return;
	pkt_init(&p, 1, HEADROOM); /* tc: byte 0 is the frame's first */
	RUN_SKB(host, "sched_cls", insns, &p, 0x10111213141516ull);
	RUN_SKB(host, "sched_act", insns, &p, 0x10111213141516ull);
	pkt_init(&p, 0, HEADROOM); /* socket filter: 14 bytes later */
	RUN_SKB(host, "socket_filter", insns, &p, 0x1e1f2021222324ull);
	/* the last bytes of the packet, each size */
	CHECK_EQ_U64(LOAD("socket_filter", &p, BPF_LD_ABS(BPF_B, FRAME_LEN - 15), 0), 0x10 + FRAME_LEN - 1);
	CHECK_EQ_U64(LOAD("socket_filter", &p, BPF_LD_ABS(BPF_H, FRAME_LEN - 16), 0), 0x4e4f);
	CHECK_EQ_U64(LOAD("socket_filter", &p, BPF_LD_ABS(BPF_W, FRAME_LEN - 18), 0), 0x4c4d4e4f);
	kbpf_host_free(host);
}

/* IND: src + imm as a signed 32-bit sum, with src in each argument register (the JIT
 * computes the offset in R2's register and R6 into R1's: neither may be lost). */
static void test_ind(void)
{
	struct kbpf_host *host = linux_host();
	struct pkt p;

	CHECK(host);
	if (!host)
		return;
	pkt_init(&p, 1, HEADROOM);
	CHECK_EQ_U64(LOAD("sched_cls", &p, BPF_LD_IND(BPF_W, BPF_REG_7, 1), 2), 0x13141516);
	CHECK_EQ_U64(LOAD("sched_cls", &p, BPF_LD_IND(BPF_H, BPF_REG_7, -2), 5), 0x1314);
	CHECK_EQ_U64(LOAD("sched_cls", &p, BPF_LD_IND(BPF_B, BPF_REG_7, 0), 9), 0x19);
	for (int r = BPF_REG_0; r <= BPF_REG_5; r++) {
		const struct bpf_insn insns[] = {
			BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
			BPF_MOV64_IMM(r, 3),
			BPF_LD_IND(BPF_H, r, 1),
			BPF_EXIT_INSN(),
		};
		RUN_SKB(host, "sched_cls", insns, &p, 0x1415);
	}
	/* the sum wraps in 32 bits: 0x1_0000_0002 + 1 is offset 3 */
	const struct bpf_insn wrap[] = {
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		BPF_LD_IMM64(BPF_REG_8, 0x100000002ull),
		BPF_LD_IND(BPF_B, BPF_REG_8, 1),
		BPF_EXIT_INSN(),
	};
	RUN_SKB(host, "sched_cls", wrap, &p, 0x13);
	/* 0x7fffffff + 4 is negative: an SKF_* offset far below, out of bounds */
	CHECK_EQ_U64(LOAD("sched_cls", &p, BPF_LD_IND(BPF_B, BPF_REG_7, 4), 0x7fffffff), 0);
	kbpf_host_free(host);
}

/* Out of bounds: R0 = 0 and the program ends there. */
static void test_out_of_bounds(void)
{
	struct kbpf_host *host = linux_host();
	struct pkt p;
	const int32_t past[] = { FRAME_LEN, FRAME_LEN - 1, FRAME_LEN - 3, 0x7fffffff, -1, SKF_AD_OFF,
				 SKF_LL_OFF - 1, INT32_MIN };

	CHECK(host);
	if (!host)
		return;
	pkt_init(&p, 1, HEADROOM);
	for (size_t k = 0; k < ARRAY_SIZE(past); k++) {
		const struct bpf_insn insns[] = {
			BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
			BPF_MOV64_IMM(BPF_REG_0, 77),
			BPF_LD_ABS(BPF_W, past[k]),
			BPF_MOV64_IMM(BPF_REG_0, 99), /* never: the load ended the program */
			BPF_EXIT_INSN(),
		};
		RUN_SKB(host, "sched_cls", insns, &p, 0);
		const struct bpf_insn ind[] = {
			BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
			BPF_MOV64_IMM(BPF_REG_8, past[k]),
			BPF_LD_IND(BPF_W, BPF_REG_8, 0),
			BPF_MOV64_IMM(BPF_REG_0, 99),
			BPF_EXIT_INSN(),
		};
		RUN_SKB(host, "sched_cls", ind, &p, 0);
	}
	/* a byte load may end exactly where a word load may not */
	CHECK_EQ_U64(LOAD("sched_cls", &p, BPF_LD_ABS(BPF_B, FRAME_LEN - 1), 0), 0x10 + FRAME_LEN - 1);
	CHECK_EQ_U64(LOAD("sched_cls", &p, BPF_LD_ABS(BPF_W, FRAME_LEN - 4), 0), 0x4c4d4e4f);
	/* an empty packet has nothing at 0 */
	p.skb.data_end = p.skb.data;
	p.skb.md.len = 0;
	CHECK_EQ_U64(LOAD("sched_cls", &p, BPF_LD_ABS(BPF_B, 0), 0), 0);
	kbpf_host_free(host);
}

/* SKF_NET_OFF and SKF_LL_OFF: the network and MAC headers, where each type has them. */
static void test_negative_offsets(void)
{
	struct kbpf_host *host = linux_host();
	struct pkt p;

	CHECK(host);
	if (!host)
		return;
	/* tc: the MAC header is data, the network header 14 bytes on */
	pkt_init(&p, 1, HEADROOM);
	CHECK_EQ_U64(LOAD("sched_cls", &p, BPF_LD_ABS(BPF_H, SKF_LL_OFF + 12), 0), 0x1c1d);
	CHECK_EQ_U64(LOAD("sched_cls", &p, BPF_LD_ABS(BPF_B, SKF_NET_OFF), 0), 0x1e);
	CHECK_EQ_U64(LOAD("sched_cls", &p, BPF_LD_ABS(BPF_W, SKF_NET_OFF + FRAME_LEN - 18), 0), 0x4c4d4e4f);
	CHECK_EQ_U64(LOAD("sched_cls", &p, BPF_LD_ABS(BPF_W, SKF_NET_OFF + FRAME_LEN - 17), 0), 0);
	CHECK_EQ_U64(LOAD("sched_cls", &p, BPF_LD_IND(BPF_W, BPF_REG_7, SKF_LL_OFF), 1), 0x11121314);
	/* socket filter: the network header is data, the MAC header the 14 bytes before */
	pkt_init(&p, 0, HEADROOM);
	CHECK_EQ_U64(LOAD("socket_filter", &p, BPF_LD_ABS(BPF_H, SKF_LL_OFF + 12), 0), 0x1c1d);
	CHECK_EQ_U64(LOAD("socket_filter", &p, BPF_LD_ABS(BPF_W, SKF_LL_OFF), 0), 0x10111213);
	CHECK_EQ_U64(LOAD("socket_filter", &p, BPF_LD_ABS(BPF_B, SKF_NET_OFF), 0), 0x1e);
	CHECK_EQ_U64(LOAD("socket_filter", &p, BPF_LD_ABS(BPF_B, SKF_NET_OFF + FRAME_LEN - 14), 0), 0);
	/* Linux's "ld_ind: check calling conv, r7": R7 survives, the MAC header is there */
	const struct bpf_insn conv[] = {
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		BPF_MOV64_IMM(BPF_REG_7, 1),
		BPF_LD_IND(BPF_W, BPF_REG_7, SKF_LL_OFF),
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_7),
		BPF_EXIT_INSN(),
	};
	RUN_SKB(host, "socket_filter", conv, &p, 1);
	/* no room for a MAC header before data: none, as Linux's unset mac_header */
	pkt_init(&p, 0, HEADROOM);
	CHECK(!kbpf_linux_skb_init(&p.skb, p.buf + HEADROOM + 14, FRAME_LEN, 0, FRAME_LEN - 14));
	CHECK_EQ_U64(LOAD("socket_filter", &p, BPF_LD_ABS(BPF_B, SKF_LL_OFF + 14), 0), 0);
	CHECK_EQ_U64(LOAD("socket_filter", &p, BPF_LD_ABS(BPF_B, SKF_NET_OFF), 0), 0x1e);
	RUN_SKB(host, "socket_filter", conv, &p, 0);
	kbpf_host_free(host);
}

/* int main(void *ctx), int sub(void *ctx, int off): func_info for both. */
static int btf_prog_init(struct btf_prog *bp, uint32_t sub_off)
{
	memset(bp, 0, sizeof(*bp));
	bp->btf = btf__new_empty();
	if (!bp->btf)
		return -1;
	int i32 = btf__add_int(bp->btf, "int", 4, BTF_INT_SIGNED);
	int ptr = btf__add_ptr(bp->btf, 0);
	int main_proto = btf__add_func_proto(bp->btf, i32);
	btf__add_func_param(bp->btf, "ctx", ptr);
	int main_fn = btf__add_func(bp->btf, "main_fn", BTF_FUNC_STATIC, main_proto);
	int sub_proto = btf__add_func_proto(bp->btf, i32);
	btf__add_func_param(bp->btf, "ctx", ptr);
	btf__add_func_param(bp->btf, "off", i32);
	int sub_fn = btf__add_func(bp->btf, "sub_fn", BTF_FUNC_STATIC, sub_proto);
	if (i32 < 0 || ptr < 0 || main_fn < 0 || sub_fn < 0)
		return -1;
	bp->fi[0] = (struct bpf_func_info){ 0, (uint32_t)main_fn };
	bp->fi[1] = (struct bpf_func_info){ sub_off, (uint32_t)sub_fn };
	bp->nr = 2;
	return 0;
}

/* A failed load in a subprogram returns 0 from it: its caller continues, R6-R9 its own. */
static void test_bpf2bpf(void)
{
	struct kbpf_host *host = linux_host();
	struct btf_prog bp;
	struct pkt p;
	const struct bpf_insn insns[] = {
		/* main: R7 = sub(ctx, 1) << 16 | sub(ctx, 1000) << 8 | LD_ABS B 2 */
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		BPF_MOV64_IMM(BPF_REG_9, 0x99),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		BPF_MOV64_IMM(BPF_REG_2, 1),
		BPF_CALL_REL(13),
		BPF_MOV64_REG(BPF_REG_7, BPF_REG_0),
		BPF_ALU64_IMM(BPF_LSH, BPF_REG_7, 16),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		BPF_MOV64_IMM(BPF_REG_2, 1000),
		BPF_CALL_REL(8),
		BPF_ALU64_IMM(BPF_LSH, BPF_REG_0, 8),
		BPF_ALU64_REG(BPF_OR, BPF_REG_7, BPF_REG_0),
		BPF_LD_ABS(BPF_B, 2),
		BPF_ALU64_REG(BPF_OR, BPF_REG_7, BPF_REG_0),
		/* R9 survived both calls: R0 = R7 | R9 << 32 */
		BPF_ALU64_IMM(BPF_LSH, BPF_REG_9, 32),
		BPF_ALU64_REG(BPF_OR, BPF_REG_7, BPF_REG_9),
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_7),
		BPF_EXIT_INSN(),
		/* sub (insn 18): R9 is its own; LD_IND B off, + 1; past the end: returns 0 */
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		BPF_MOV64_IMM(BPF_REG_9, 0x55),
		BPF_LD_IND(BPF_B, BPF_REG_2, 0),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 1),
		BPF_EXIT_INSN(),
	};

	CHECK(host);
	if (!host)
		return;
	CHECK(btf_prog_init(&bp, 18) == 0);
	pkt_init(&p, 1, HEADROOM);
	run_all(host, "sched_cls", insns, ARRAY_SIZE(insns), &bp, &p.skb, sizeof(p.skb), p.buf, sizeof(p.buf),
		0x99ull << 32 | 0x12ull << 16 | 0x00ull << 8 | 0x12, __LINE__);
	btf__free(bp.btf);
	kbpf_host_free(host);
}

/* The verifier walks that return too (Linux 6.12's check_ld_abs): sub's success path
 * returns 1 only, so a walk without the failure path would judge main's "r0 = 7" dead
 * and turn it into a trap, which a failed load then runs. */
static void test_bpf2bpf_failure_path(void)
{
	struct kbpf_host *host = linux_host();
	struct btf_prog bp;
	struct pkt p;

	CHECK(host);
	if (!host)
		return;
	CHECK(btf_prog_init(&bp, 9) == 0);
	pkt_init(&p, 1, HEADROOM);
	for (int fail = 0; fail <= 1; fail++) {
		const struct bpf_insn insns[] = {
			BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
			BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
			BPF_MOV64_IMM(BPF_REG_2, fail ? 1000 : 1),
			BPF_CALL_REL(5),
			BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2),
			BPF_MOV64_IMM(BPF_REG_0, 7),
			BPF_EXIT_INSN(),
			BPF_MOV64_IMM(BPF_REG_0, 1),
			BPF_EXIT_INSN(),
			/* sub (insn 9): 1 once the byte is loaded */
			BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
			BPF_LD_IND(BPF_B, BPF_REG_2, 0),
			BPF_MOV64_IMM(BPF_REG_0, 1),
			BPF_EXIT_INSN(),
		};
		run_all(host, "sched_cls", insns, ARRAY_SIZE(insns), &bp, &p.skb, sizeof(p.skb), p.buf,
			sizeof(p.buf), fail ? 7 : 1, __LINE__);
	}
	btf__free(bp.btf);
	kbpf_host_free(host);
}

/* Linux's "calls: subprog call with ld_abs in main prog": a helper that moves the packet
 * (skb_vlan_push) between loads, LD_ABS in the main program only (no BTF needed). */
static void test_calls_with_ld_abs(void)
{
	struct kbpf_host *host = linux_host();
	struct pkt p;
	const struct bpf_insn insns[] = {
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		BPF_LD_ABS(BPF_B, 0),
		BPF_LD_ABS(BPF_H, 0),
		BPF_LD_ABS(BPF_W, 0),
		BPF_MOV64_REG(BPF_REG_7, BPF_REG_6),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
		BPF_CALL_REL(5),
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_7),
		BPF_LD_ABS(BPF_B, 0),
		BPF_LD_ABS(BPF_H, 0),
		BPF_LD_ABS(BPF_W, 0),
		BPF_EXIT_INSN(),
		BPF_MOV64_IMM(BPF_REG_2, 1),
		BPF_MOV64_IMM(BPF_REG_3, 2),
		BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_skb_vlan_push),
		BPF_EXIT_INSN(),
	};

	CHECK(host);
	if (!host)
		return;
	pkt_init(&p, 1, HEADROOM);
	RUN_SKB(host, "sched_cls", insns, &p, 0x10111213);
	kbpf_host_free(host);
}

/* The public hook on a type of the test's own: its context need not be an skb. */
struct own_ctx {
	const uint8_t *bytes;
	uint32_t len;
};

static const void *own_ld_abs(const void *ctx, int32_t off, uint32_t size)
{
	const struct own_ctx *c = ctx;

	return off >= 0 && (uint64_t)off + size <= c->len ? c->bytes + off : NULL;
}

static uint8_t outside[8] = { 0xca, 0xfe, 0xba, 0xbe, 1, 2, 3, 4 };

static void test_own_type(void)
{
	struct kbpf_host *host = kbpf_host_new();
	struct kbpf_prog_type t = {
		.sz = sizeof(t), .name = "own_skb", .linux_type = 1 /* Linux lets socket filters use LD_ABS */,
		.ctx_size = sizeof(struct own_ctx), .ld_abs = own_ld_abs,
	};
	struct kbpf_prog_type bare = t;
	struct own_ctx ctx = { outside, sizeof(outside) };
	const struct bpf_insn insns[] = {
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		BPF_LD_ABS(BPF_W, 0),
		BPF_EXIT_INSN(),
	};
	char log[512] = "", err[256] = "";
	struct kbpf_prog *prog = NULL;

	bare.name = "bare_skb";
	bare.ld_abs = NULL;
	CHECK(host && !kbpf_host_prog_type_register(host, &t) && !kbpf_host_prog_type_register(host, &bare));
	if (!host)
		return;
	/* every engine, the hook's bytes declared for checked mode … */
	run_all(host, "own_skb", insns, ARRAY_SIZE(insns), NULL, &ctx, sizeof(ctx), outside, sizeof(outside),
		0xcafebabe, __LINE__);
	struct kbpf_prog_opts po = { .sz = sizeof(po), .host = host, .prog_type = "own_skb", .log_buf = log,
				     .log_size = sizeof(log) };
	CHECK(kbpf_prog_create(insns, ARRAY_SIZE(insns), &po, &prog) == 0);
	if (prog) {
		struct kbpf_mem_region region = { &ctx, sizeof(ctx), KBPF_MEM_READ, "ctx" };
		struct kbpf_run_opts ro = { .sz = sizeof(ro), .args = { (uint64_t)(uintptr_t)&ctx },
					    .flags = KBPF_RUN_CHECKED, .regions = &region, .nr_regions = 1,
					    .err = err, .err_size = sizeof(err) };
		struct kbpf_run_result rr = { .sz = sizeof(rr) };
		/* … not declared: checked mode refuses the load */
		CHECK_EQ_U64(kbpf_prog_run_opts(prog, &ro, &rr), (uint64_t)-EFAULT);
		CHECK_EQ_U64(rr.fault_insn, 1);
		CHECK_CONTAINS(err, "insn 1: invalid packet read of 4 bytes");
		CHECK_CONTAINS(err, "outside the declared regions");
		kbpf_prog_free(prog);
		prog = NULL;
	}
	/* … a type without the hook, or no type at all: not created */
	po.prog_type = "bare_skb";
	CHECK_EQ_U64(kbpf_prog_create(insns, ARRAY_SIZE(insns), &po, &prog), (uint64_t)-EINVAL);
	CHECK_CONTAINS(log, "insn 1: LD_ABS/LD_IND need a program type with a packet hook");
	po.prog_type = NULL;
	po.trusted_unverified = 1;
	CHECK_EQ_U64(kbpf_prog_create(insns, ARRAY_SIZE(insns), &po, &prog), (uint64_t)-EINVAL);
	CHECK_CONTAINS(log, "LD_ABS/LD_IND need");
	CHECK(!prog);
	kbpf_host_free(host);
}

/* Blinding: the offsets of LD_ABS and LD_IND never appear in the code in clear. */
static void test_jit_blinded(void)
{
	struct kbpf_host *host = linux_host();
	const int32_t abs_off = 0x5a17c3e1, ind_off = 0x3c5a7e19;
	const struct bpf_insn insns[] = {
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
		BPF_MOV64_IMM(BPF_REG_7, 0),
		BPF_LD_IND(BPF_B, BPF_REG_7, ind_off),
		BPF_LD_ABS(BPF_B, abs_off),
		BPF_EXIT_INSN(),
	};
	struct pkt p;

	CHECK(host);
	if (!host)
		return;
	pkt_init(&p, 1, HEADROOM);
	for (int blind = 0; blind <= 1; blind++) {
		char log[256] = "";
		struct kbpf_prog_opts po = { .sz = sizeof(po), .host = host, .prog_type = "sched_cls", .jit = 1,
					     .harden = blind ? KBPF_HARDEN_BLIND : 0, .log_buf = log,
					     .log_size = sizeof(log) };
		struct kbpf_prog *prog = NULL;
		uint64_t r0 = NOT_RUN;
		size_t size = 0;

		CHECK(kbpf_prog_create(insns, ARRAY_SIZE(insns), &po, &prog) == 0);
		if (!prog)
			continue;
		const void *code = kbpf_prog_jited_code(prog, &size);
		CHECK(code && size);
		if (code) {
			CHECK((memmem(code, size, &abs_off, 4) == NULL) == (blind != 0));
			CHECK((memmem(code, size, &ind_off, 4) == NULL) == (blind != 0));
		}
		CHECK(kbpf_prog_run(prog, &p.skb, &r0) == 0);
		CHECK_EQ_U64(r0, 0); /* both far out of the packet */
		kbpf_prog_free(prog);
	}
	kbpf_host_free(host);
}

int main(void)
{
	RUN(test_abs_sizes);
	RUN(test_ind);
	RUN(test_out_of_bounds);
	RUN(test_negative_offsets);
	RUN(test_bpf2bpf);
	RUN(test_bpf2bpf_failure_path);
	RUN(test_calls_with_ld_abs);
	RUN(test_own_type);
	RUN(test_jit_blinded);
	return test_summary();
}
