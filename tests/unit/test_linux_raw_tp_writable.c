/* SPDX-License-Identifier: Apache-2.0 */
/* raw_tracepoint.w (hosts/linux/src/prog_raw_tp_writable.c): ctx[0] is the tracepoint's
 * writable buffer, written at constant offsets only (Linux's message for a variable
 * one); the furthest byte is kbpf_prog_max_tp_access, and kbpf_linux_raw_tp_writable_run
 * refuses a shorter buffer; writes reach the host's buffer on both engines; the other
 * arguments follow it. */
#include <errno.h>
#include <string.h>
#include <kbpf/verifier.h>
#include "test.h"
#include "test_linux_util.h"

/* buf[8..16) = ctx[1] + 1; r0 = buf[0..4) */
static const struct bpf_insn writer[] = {
	BPF_LDX_MEM(BPF_DW, BPF_REG_6, BPF_REG_1, 0),
	BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, 8),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, 1),
	BPF_STX_MEM(BPF_DW, BPF_REG_6, BPF_REG_2, 8),
	BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_6, 0),
	BPF_EXIT_INSN(),
};

static void test_verify(void)
{
	struct kbpf_host *host = linux_host();
	char log[2048];
	CHECK(host);
	if (!host)
		return;
	struct kbpf_verify_opts o = { .sz = sizeof(o), .host = host, .prog_type = "raw_tracepoint.w", .license = "GPL",
				      .log_buf = log, .log_size = sizeof(log) };
	struct kbpf_verify_result res = { .sz = sizeof(res) };
	CHECK_EQ_U64(kbpf_prog_verify(writer, sizeof(writer) / sizeof(writer[0]), &o, &res), 0);
	CHECK_EQ_U64(res.max_tp_access, 16);
	/* a variable offset, a negative one, ctx[0] written or read narrowly: refused */
	const struct bpf_insn var[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_6, BPF_REG_1, 0),
		BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, 8),
		BPF_ALU64_IMM(BPF_AND, BPF_REG_2, 8),
		BPF_ALU64_REG(BPF_ADD, BPF_REG_6, BPF_REG_2),
		BPF_ST_MEM(BPF_B, BPF_REG_6, 0, 1),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	CHECK(kbpf_prog_verify(var, sizeof(var) / sizeof(var[0]), &o, NULL) < 0);
	CHECK_CONTAINS(log, "R6 invalid variable buffer offset: off=0, var_off=(0x0; 0x8)");
	const struct bpf_insn neg[] = {
		BPF_LDX_MEM(BPF_DW, BPF_REG_6, BPF_REG_1, 0),
		BPF_ST_MEM(BPF_B, BPF_REG_6, -1, 1),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	CHECK(kbpf_prog_verify(neg, sizeof(neg) / sizeof(neg[0]), &o, NULL) < 0);
	CHECK_CONTAINS(log, "R6 invalid tracepoint buffer access: off=-1, size=1");
	const struct bpf_insn narrow[] = {
		BPF_LDX_MEM(BPF_W, BPF_REG_6, BPF_REG_1, 0),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	CHECK(kbpf_prog_verify(narrow, sizeof(narrow) / sizeof(narrow[0]), &o, NULL) < 0);
	CHECK_CONTAINS(log, "invalid bpf_context access off=0 size=4");
	/* plain raw_tracepoint: ctx[0] is a scalar, no buffer to write */
	o.prog_type = "raw_tracepoint";
	CHECK(kbpf_prog_verify(writer, sizeof(writer) / sizeof(writer[0]), &o, NULL) < 0);
	kbpf_host_free(host);
}

static void test_run(void)
{
	struct kbpf_host *host = linux_host();
	CHECK(host);
	for (int jit = 0; host && jit < 2; jit++) {
		struct kbpf_prog_opts po = { .sz = sizeof(po), .host = host, .prog_type = "raw_tracepoint.w",
					     .license = "GPL", .jit = jit };
		struct kbpf_prog *p = NULL;
		CHECK_EQ_U64(kbpf_prog_create(writer, sizeof(writer) / sizeof(writer[0]), &po, &p), 0);
		if (!p)
			continue;
		CHECK_EQ_U64(kbpf_prog_max_tp_access(p), 16);
		uint64_t buf[2] = { 0x11223344, 0 }, arg = 41, r0 = 0;
		/* Linux's bpf_probe_register: a buffer shorter than the program reaches */
		CHECK_EQ_U64(kbpf_linux_raw_tp_writable_run(p, buf, 15, &arg, 1, &r0), (uint64_t)-EINVAL);
		CHECK_EQ_U64(buf[1], 0);
		CHECK_EQ_U64(kbpf_linux_raw_tp_writable_run(p, buf, sizeof(buf), &arg, 1, &r0), 0);
		CHECK_EQ_U64(buf[1], 42);
		CHECK_EQ_U64(r0, 0x11223344);
		CHECK_EQ_U64(kbpf_linux_raw_tp_writable_run(p, NULL, 16, NULL, 0, &r0), (uint64_t)-EINVAL);
		kbpf_prog_free(p);
	}
	kbpf_host_free(host);
}

int main(void)
{
	RUN(test_verify);
	RUN(test_run);
	return test_summary();
}
