/* SPDX-License-Identifier: Apache-2.0 */
/* Verifier fixups: ctx access conversion (the program's u32 packet-pointer fields are
 * 64-bit pointers elsewhere in the run-time context), its hand-off to kbpf_prog_create,
 * and read-only direct packet access. The type "t_conv" below is the tests' own: the
 * program sees struct conv_view, the run time passes struct conv_rt. */
#include <stddef.h>
#include "test_verifier_util.h"

struct conv_view {         /* what the program's offsets mean */
	uint32_t len, data, data_end, mark;
};
struct conv_rt {           /* what R1 points at when it runs */
	struct conv_view md;   /* md.data/data_end unused (garbage on purpose) */
	uint64_t data, data_end;
	uint32_t pad, real_mark; /* mark is read from here, narrow loads too */
};

static int t_conv_access(const struct kbpf_prog_type *t, int off, int size, enum kbpf_access_type a,
			 struct kbpf_ctx_access_info *info)
{
	(void)t;
	if (off < 0 || off + size > (int)sizeof(struct conv_view) || off % size)
		return 0;
	if (off == offsetof(struct conv_view, data) || off == offsetof(struct conv_view, data_end)) {
		if (size != 4 || a != KBPF_ACCESS_READ)
			return 0;
		info->reg_type = off == offsetof(struct conv_view, data) ? KBPF_PTR_TO_PACKET : KBPF_PTR_TO_PACKET_END;
		info->conv_off = off == offsetof(struct conv_view, data) ? offsetof(struct conv_rt, data)
									 : offsetof(struct conv_rt, data_end);
		info->conv_size = 8;
		return 1;
	}
	if (off >= (int)offsetof(struct conv_view, mark)) {
		if (a == KBPF_ACCESS_WRITE && size != 4)
			return 0;
		info->ctx_field_size = 4;
		info->conv_off = offsetof(struct conv_rt, real_mark);
		info->conv_size = 4;
		return 1;
	}
	return a == KBPF_ACCESS_READ && size == 4; /* len: as is */
}

static void setup_types(void)
{
	struct kbpf_prog_type t = { .sz = sizeof(t), .name = "t_conv", .ctx_size = sizeof(struct conv_rt),
				    .is_valid_access = t_conv_access, .direct_packet_access = KBPF_PKT_ACCESS_RW };
	CHECK(kbpf_host_prog_type_register(tv_host, &t) == 0);
	t.name = "t_conv_ro";
	t.direct_packet_access = KBPF_PKT_ACCESS_RDONLY;
	CHECK(kbpf_host_prog_type_register(tv_host, &t) == 0);
}

/* r0 = data_end - data, or the first packet byte + 1000 when there is one */
#define PKT_LEN_PROG                                                                               \
	"r2 = *(u32 *)(r1 +4)\nr3 = *(u32 *)(r1 +8)\nr0 = r3\nr0 -= r2\nr4 = r2\nr4 += 1\n"            \
	"if r4 > r3 goto out\nr5 = *(u8 *)(r2 +0)\nr0 = r5\nr0 += 1000\nout:\nexit"

static int verify_xlated(const char *text, const char *type, struct bpf_insn *out, size_t *cnt)
{
	struct bpf_insn *insns = NULL;
	char err[256];
	if (kbpf_asm(text, KBPF_ASM_PSEUDO_C, &insns, cnt, err, sizeof(err)))
		return -1000;
	memcpy(out, insns, *cnt * sizeof(*out));
	struct kbpf_verify_opts o = { .sz = sizeof(o), .host = tv_host, .prog_type = type, .license = "GPL",
				      .log_level = 1, .log_buf = tv_log, .log_size = sizeof(tv_log),
				      .xlated_insns = out };
	tv_last = (struct kbpf_verify_result){ .sz = sizeof(tv_last) };
	int r = kbpf_prog_verify(insns, *cnt, &o, &tv_last);
	free(insns);
	return r;
}

static void test_rewrite(void)
{
	struct bpf_insn x[64];
	size_t cnt = 0;
	CHECK(verify_xlated(PKT_LEN_PROG, "t_conv", x, &cnt) == 0);
	CHECK_EQ_U64(tv_last.nr_ctx_conv, 2);
	CHECK_EQ_U64(x[0].code, BPF_LDX | BPF_MEM | BPF_DW);
	CHECK_EQ_U64(x[0].off, offsetof(struct conv_rt, data));
	CHECK_EQ_U64(x[1].code, BPF_LDX | BPF_MEM | BPF_DW);
	CHECK_EQ_U64(x[1].off, offsetof(struct conv_rt, data_end));
	CHECK_EQ_U64(x[0].dst_reg, 2);
	CHECK_EQ_U64(x[1].src_reg, 1);
	/* the packet load itself and everything else is untouched */
	CHECK_EQ_U64(x[7].code, BPF_LDX | BPF_MEM | BPF_B);
	CHECK_EQ_U64(x[7].off, 0);
	/* narrow loads keep their size and position in the field; stores move too */
	CHECK(verify_xlated("r0 = *(u8 *)(r1 +13)\nr2 = *(u16 *)(r1 +14)\nr3 = *(u32 *)(r1 +12)\n"
			    "*(u32 *)(r1 +12) = r3\nr4 = *(u32 *)(r1 +0)\nexit",
			    "t_conv", x, &cnt) == 0);
	CHECK_EQ_U64(tv_last.nr_ctx_conv, 4);
	CHECK_EQ_U64(x[0].code, BPF_LDX | BPF_MEM | BPF_B);
	CHECK_EQ_U64(x[0].off, offsetof(struct conv_rt, real_mark) + 1);
	CHECK_EQ_U64(x[1].code, BPF_LDX | BPF_MEM | BPF_H);
	CHECK_EQ_U64(x[1].off, offsetof(struct conv_rt, real_mark) + 2);
	CHECK_EQ_U64(x[2].off, offsetof(struct conv_rt, real_mark));
	CHECK_EQ_U64(x[3].code, BPF_STX | BPF_MEM | BPF_W);
	CHECK_EQ_U64(x[3].off, offsetof(struct conv_rt, real_mark));
	CHECK_EQ_U64(x[4].off, 0); /* len is where the program says */
	/* a load reached on several paths is converted once */
	CHECK(verify_xlated("r2 = *(u32 *)(r1 +0)\nif r2 > 3 goto a\nr2 = 1\na:\nr0 = *(u32 *)(r1 +12)\nexit", "t_conv",
			    x, &cnt) == 0);
	CHECK_EQ_U64(tv_last.nr_ctx_conv, 1);
	CHECK_EQ_U64(x[3].off, offsetof(struct conv_rt, real_mark));
}

static void test_rejected_or_old_callers(void)
{
	struct bpf_insn x[64];
	size_t cnt = 0;
	memset(x, 0xee, sizeof(x));
	/* a rejected program: the buffer keeps the caller's copy */
	CHECK(verify_xlated("r2 = *(u32 *)(r1 +4)\nr0 = *(u8 *)(r2 +0)\nexit", "t_conv", x, &cnt) == -EACCES);
	CHECK_CONTAINS(tv_log, "invalid access to packet");
	CHECK_EQ_U64(x[0].off, 4);
	/* no buffer, or opts from before the field: verification alone, nothing written */
	struct bpf_insn *insns = NULL;
	char err[128];
	CHECK(kbpf_asm(PKT_LEN_PROG, KBPF_ASM_PSEUDO_C, &insns, &cnt, err, sizeof(err)) == 0);
	struct kbpf_verify_opts o = { .sz = sizeof(o), .host = tv_host, .prog_type = "t_conv" };
	struct kbpf_verify_result res = { .sz = sizeof(res) };
	CHECK(kbpf_prog_verify(insns, cnt, &o, &res) == 0);
	CHECK_EQ_U64(res.nr_ctx_conv, 0);
	o.sz = offsetof(struct kbpf_verify_opts, xlated_insns);
	o.xlated_insns = x;
	x[0].off = 77;
	CHECK(kbpf_prog_verify(insns, cnt, &o, &res) == 0);
	CHECK_EQ_U64(x[0].off, 77);
	free(insns);
}

/* The results come back in their own struct, versioned by sz like the options: an older
 * caller's shorter struct is written only as far as it goes, a newer caller's longer one
 * is zeroed past what this build knows; opts are never written. */
static void test_result_struct(void)
{
	struct bpf_insn *insns = NULL;
	size_t cnt = 0;
	char err[128];
	CHECK(kbpf_asm(PKT_LEN_PROG, KBPF_ASM_PSEUDO_C, &insns, &cnt, err, sizeof(err)) == 0);
	const struct kbpf_verify_opts o = { .sz = sizeof(o), .host = tv_host, .prog_type = "t_conv" };
	struct {
		struct kbpf_verify_result r;
		uint64_t newer[4];
	} big;
	memset(&big, 0xee, sizeof(big));
	big.r.sz = sizeof(big);
	CHECK(kbpf_prog_verify(insns, cnt, &o, &big.r) == 0);
	CHECK_EQ_U64(big.r.error_insn, (uint64_t)-1);
	CHECK(big.r.insns_processed > 0 && big.r.nr_subprogs == 1);
	CHECK(big.r.xlated_prog == NULL && big.r.xlated_idx == NULL);
	CHECK(big.newer[0] == 0 && big.newer[3] == 0);
	/* an older caller's struct that ends after error_insn: nothing past it is touched */
	memset(&big, 0xee, sizeof(big));
	big.r.sz = offsetof(struct kbpf_verify_result, insns_processed);
	CHECK(kbpf_prog_verify(insns, cnt, &o, &big.r) == 0);
	CHECK_EQ_U64(big.r.error_insn, (uint64_t)-1);
	CHECK_EQ_U64(big.r.insns_processed, 0xeeeeeeeeu);
	/* no result wanted */
	CHECK(kbpf_prog_verify(insns, cnt, &o, NULL) == 0);
	/* a result too small for its sz, or a full rewrite with nowhere to go: -EINVAL */
	big.r.sz = 4;
	CHECK_EQ_U64(kbpf_prog_verify(insns, cnt, &o, &big.r), (uint64_t)-EINVAL);
	struct kbpf_verify_opts alloc = o;
	alloc.xlated_alloc = 1;
	CHECK_EQ_U64(kbpf_prog_verify(insns, cnt, &alloc, NULL), (uint64_t)-EINVAL);
	big.r.sz = offsetof(struct kbpf_verify_result, xlated_idx);
	CHECK_EQ_U64(kbpf_prog_verify(insns, cnt, &alloc, &big.r), (uint64_t)-EINVAL);
	/* a rejected program: where, and the statistics */
	struct kbpf_verify_result res = { .sz = sizeof(res) };
	struct bpf_insn bad[] = { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_2, 0),
				  BPF_EXIT_INSN() };
	CHECK_EQ_U64(kbpf_prog_verify(bad, 3, &o, &res), (uint64_t)-EACCES);
	CHECK_EQ_U64(res.error_insn, 1);
	CHECK_EQ_U64(res.insns_processed, 2);
	free(insns);
}

/* Create (verified, so converted) and run on the interpreter, checked, and the JIT. */
static void run_all(const char *text, const char *type, uint8_t *pkt, size_t len, uint64_t want)
{
	struct bpf_insn *insns = NULL;
	size_t cnt = 0;
	char err[512];
	CHECK(kbpf_asm(text, KBPF_ASM_PSEUDO_C, &insns, &cnt, err, sizeof(err)) == 0);
	for (int jit = 0; jit < 2; jit++) {
		struct kbpf_prog *prog = NULL;
		struct kbpf_prog_opts po = { .sz = sizeof(po), .host = tv_host, .log_buf = err, .log_size = sizeof(err),
					     .prog_type = type, .license = "GPL", .jit = jit };
		int ret = kbpf_prog_create(insns, cnt, &po, &prog);
		CHECK(ret == 0);
		if (ret) {
			fprintf(stderr, "create: %s\n", err);
			continue;
		}
		/* the program as it runs is the converted one */
		CHECK_EQ_U64(kbpf_prog_insns(prog, NULL)[0].code, BPF_LDX | BPF_MEM | BPF_DW);
		struct conv_rt rt;
		memset(&rt, 0xa5, sizeof(rt)); /* md.data/data_end are garbage: must not be read */
		rt.md.len = (uint32_t)len;
		rt.data = (uint64_t)(uintptr_t)pkt;
		rt.data_end = (uint64_t)(uintptr_t)(pkt + len);
		struct kbpf_mem_region regs[2] = {
			{ &rt, sizeof(rt), KBPF_MEM_READ | KBPF_MEM_WRITE, "ctx" },
			{ pkt, len ? len : 1, KBPF_MEM_READ | KBPF_MEM_WRITE, "packet" },
		};
		for (int checked = 0; checked < 2; checked++) {
			struct kbpf_run_opts ro = { .sz = sizeof(ro), .flags = checked ? KBPF_RUN_CHECKED : 0,
						    .regions = regs, .nr_regions = 2, .max_insns = 100000,
						    .err = err, .err_size = sizeof(err) };
			struct kbpf_run_result rr = { .sz = sizeof(rr) };
			ro.args[0] = (uint64_t)(uintptr_t)&rt;
			CHECK(kbpf_prog_run_opts(prog, &ro, &rr) == 0);
			CHECK_EQ_U64(rr.retval, want);
		}
		kbpf_prog_free(prog);
	}
	free(insns);
}

static void test_end_to_end(void)
{
	uint8_t pkt[32];
	memset(pkt, 7, sizeof(pkt));
	run_all(PKT_LEN_PROG, "t_conv", pkt, sizeof(pkt), 1007);
	run_all(PKT_LEN_PROG, "t_conv", pkt, 0, 0);
	/* a write into the packet through the converted pointers */
	run_all("r2 = *(u32 *)(r1 +4)\nr3 = *(u32 *)(r1 +8)\nr0 = 0\nr4 = r2\nr4 += 2\nif r4 > r3 goto out\n"
		"r5 = 0x42\n*(u8 *)(r2 +1) = r5\nr0 = *(u8 *)(r2 +1)\nout:\nexit",
		"t_conv", pkt, sizeof(pkt), 0x42);
	CHECK_EQ_U64(pkt[1], 0x42);
}

static void test_pkt_rdonly(void)
{
	const char *wr = "r2 = *(u32 *)(r1 +4)\nr3 = *(u32 *)(r1 +8)\nr0 = 0\nr4 = r2\nr4 += 2\n"
			 "if r4 > r3 goto out\nr5 = 0x42\n*(u8 *)(r2 +1) = r5\nout:\nexit";
	REJECT_T("t_conv_ro", wr, "cannot write into packet");
	ACCEPT_T("t_conv", wr);
	ACCEPT_T("t_conv_ro", PKT_LEN_PROG);
}

/* Linux accepts a write to R10 on a path no run can take; the dead instructions become
 * "goto -1" (an ld_imm64 both halves), and kbpf_prog_create takes the program — the
 * structural check alone, without a program type, still refuses it. */
static void test_dead_code(void)
{
	const char *text = "r0 = 1\nif r0 == 1 goto out\nr10 = 5\nr2 = 0x1122334455667788 ll\nr0 = 7\nout:\nexit";
	struct bpf_insn x[16];
	size_t cnt = 0;
	CHECK(verify_xlated(text, "t_conv", x, &cnt) == 0);
	CHECK_EQ_U64(cnt, 7);
	for (int i = 2; i <= 5; i++) {
		CHECK_EQ_U64(x[i].code, BPF_JMP | BPF_JA);
		CHECK_EQ_U64(x[i].off, -1);
	}
	CHECK_EQ_U64(x[1].code, BPF_JMP | BPF_JEQ | BPF_K); /* live code untouched */
	CHECK_EQ_U64(x[6].code, BPF_JMP | BPF_EXIT);

	struct bpf_insn *insns = NULL;
	char err[256];
	CHECK(kbpf_asm(text, KBPF_ASM_PSEUDO_C, &insns, &cnt, err, sizeof(err)) == 0);
	struct kbpf_prog *prog = NULL;
	struct kbpf_prog_opts po = { .sz = sizeof(po), .host = tv_host, .prog_type = "t_conv",
				     .log_buf = tv_log, .log_size = sizeof(tv_log) };
	CHECK(kbpf_prog_create(insns, cnt, &po, &prog) == 0);
	uint64_t r0 = 0;
	struct conv_rt ctx = { 0 };
	CHECK(prog && kbpf_prog_run(prog, &ctx, &r0) == 0);
	CHECK_EQ_U64(r0, 1);
	kbpf_prog_free(prog);
	po.prog_type = NULL; /* unverified: the structural rule applies */
	po.trusted_unverified = 1;
	CHECK(kbpf_prog_create(insns, cnt, &po, &prog) == -EINVAL);
	CHECK(strstr(tv_log, "frame pointer is read only") != NULL);
	/* reachable, the verifier refuses it with Linux's message */
	REJECT_T("t_conv", "r0 = 1\nr10 = 5\nexit", "frame pointer is read only");
	free(insns);

	/* Reserved fields in dead code: Linux checks them only where do_check goes, so the
	 * verifier accepts; kbpf_prog_create with the type refused the program its verifier
	 * accepts ("insn 2: BPF_ALU uses reserved fields", a soundness-fuzzer seed). */
	const struct bpf_insn odd[] = {
		BPF_MOV64_IMM(BPF_REG_0, 1),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 1, 2),
		{ .code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = BPF_REG_2, .src_reg = BPF_REG_7, .imm = -64 },
		{ .code = BPF_JMP | BPF_JA, .dst_reg = BPF_REG_1, .off = 0 },
		BPF_EXIT_INSN(),
	};
	struct kbpf_verify_opts vo = { .sz = sizeof(vo), .host = tv_host, .prog_type = "t_conv",
				       .log_buf = tv_log, .log_size = sizeof(tv_log) };
	CHECK_EQ_U64(kbpf_prog_verify(odd, 5, &vo, NULL), 0);
	po.prog_type = "t_conv";
	CHECK_EQ_U64(kbpf_prog_create(odd, 5, &po, &prog), 0);
	r0 = 0;
	CHECK(prog && kbpf_prog_run(prog, &ctx, &r0) == 0);
	CHECK_EQ_U64(r0, 1);
	kbpf_prog_free(prog);
	prog = NULL;
	/* reachable, refused with Linux's message */
	const struct bpf_insn live[] = { odd[0], odd[2], odd[4] };
	CHECK_EQ_U64(kbpf_prog_create(live, 3, &po, &prog), (uint64_t)-EINVAL);
	CHECK(strstr(tv_log, "BPF_ALU uses reserved fields") != NULL);
}

int main(void)
{
	tv_setup();
	setup_types();
	RUN(test_rewrite);
	RUN(test_rejected_or_old_callers);
	RUN(test_result_struct);
	RUN(test_end_to_end);
	RUN(test_pkt_rdonly);
	RUN(test_dead_code);
	tv_teardown();
	return test_summary();
}
