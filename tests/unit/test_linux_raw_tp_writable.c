/* SPDX-License-Identifier: Apache-2.0 */
/* raw_tracepoint.w (hosts/linux/src/prog_raw_tp_writable.c): ctx[0] is the tracepoint's
 * writable buffer, written at constant offsets only (Linux's message for a variable
 * one); the furthest byte is kbpf_prog_max_tp_access, and kbpf_linux_raw_tp_writable_run
 * refuses a shorter buffer; writes reach the host's buffer on both engines; the other
 * arguments follow it. */
#include <errno.h>
#include <stdio.h>
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

#define N(a) (sizeof(a) / sizeof((a)[0]))

static struct kbpf_prog *mk(struct kbpf_host *host, const char *type, const struct bpf_insn *insns, size_t n,
			    struct kbpf_map **maps, size_t nr_maps, int jit)
{
	char log[512] = "";
	struct kbpf_prog_opts po = { .sz = sizeof(po), .host = host, .prog_type = type, .license = "GPL", .jit = jit,
				     .maps = maps, .nr_maps = nr_maps, .log_buf = log, .log_size = sizeof(log) };
	struct kbpf_prog *p = NULL;
	if (kbpf_prog_create(insns, n, &po, &p))
		fprintf(stderr, "create %s: %s\n", type, log);
	return p;
}

/* A tail call hands its target the caller's context, whose size the host checked against
 * the caller's needs only (kbpf_linux_raw_tp_writable_run: max_tp_access, test_run_syscall:
 * max_ctx_offset). A target that reaches further wrote past the host's buffer: 8 bytes
 * given, the target stored at 4000 (a caller touching nothing tail-called it). Now a
 * PROG_ARRAY takes no program needing more than a program calling through it, and a
 * program calling through one that holds such a program is not created. */
static void test_tail_call_target_reaches_further(void)
{
	struct kbpf_host *host = linux_host();
	CHECK(host);
	if (!host)
		return;
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_PROG_ARRAY, .key_size = 4,
				    .value_size = 4, .max_entries = 1, .name = "jmp" };
	static const struct bpf_insn caller[] = {
		BPF_LD_MAP_FD(BPF_REG_2, 0),
		BPF_MOV64_IMM(BPF_REG_3, 0),
		BPF_EMIT_CALL(BPF_FUNC_tail_call),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	static const struct bpf_insn far_tp[] = { /* buf[4000] = 0x41 */
		BPF_LDX_MEM(BPF_DW, BPF_REG_6, BPF_REG_1, 0),
		BPF_ST_MEM(BPF_B, BPF_REG_6, 4000, 0x41),
		BPF_MOV64_IMM(BPF_REG_0, 7),
		BPF_EXIT_INSN(),
	};
	static const struct bpf_insn far_sys[] = { /* ctx[4000] = 0x41 */
		BPF_ST_MEM(BPF_B, BPF_REG_1, 4000, 0x41),
		BPF_MOV64_IMM(BPF_REG_0, 7),
		BPF_EXIT_INSN(),
	};
	static const struct bpf_insn near_sys[] = { /* ctx[4] = 0x41 */
		BPF_ST_MEM(BPF_B, BPF_REG_1, 4, 0x41),
		BPF_MOV64_IMM(BPF_REG_0, 8),
		BPF_EXIT_INSN(),
	};
	static uint8_t area[8192];
	for (int jit = 0; jit < 2; jit++) {
		for (int order = 0; order < 2; order++) { /* the target stored before or after the caller exists */
			struct kbpf_map *m = NULL;
			CHECK_EQ_U64(kbpf_map_create(&def, &m), 0);
			struct kbpf_prog *c = NULL, *t = mk(host, "raw_tracepoint.w", far_tp, N(far_tp), NULL, 0, jit);
			uint32_t key = 0;
			CHECK(t);
			if (order == 0) {
				CHECK_EQ_U64(kbpf_map_update(m, &key, &t, BPF_ANY), 0);
				/* the array holds a program reaching byte 4000: a caller reaching none is refused */
				c = mk(host, "raw_tracepoint.w", caller, N(caller), &m, 1, jit);
				CHECK(!c);
			} else {
				c = mk(host, "raw_tracepoint.w", caller, N(caller), &m, 1, jit);
				CHECK(c);
				CHECK_EQ_U64(kbpf_map_update(m, &key, &t, BPF_ANY), (uint64_t)-EINVAL);
			}
			if (c) {
				uint64_t r0 = 0;
				memset(area, 0, sizeof(area));
				CHECK_EQ_U64(kbpf_linux_raw_tp_writable_run(c, area, 8, NULL, 0, &r0), 0);
				CHECK_EQ_U64(area[4000], 0); /* was 0x41: written past the 8 bytes given */
				CHECK_EQ_U64(r0, 0);
			}
			kbpf_prog_free(c);
			kbpf_prog_free(t);
			kbpf_map_free(m);
		}
		/* syscall programs (which 6.12 lets tail-call only when not sleepable, i.e. never) */
		struct kbpf_map *m = NULL;
		CHECK_EQ_U64(kbpf_map_create(&def, &m), 0);
		struct kbpf_prog *c = mk(host, "syscall", caller, N(caller), &m, 1, jit);
		struct kbpf_prog *t = mk(host, "syscall", far_sys, N(far_sys), NULL, 0, jit);
		struct kbpf_prog *n = mk(host, "syscall", near_sys, N(near_sys), NULL, 0, jit);
		uint32_t key = 0, rv = 0;
		CHECK(c && t && n);
		CHECK_EQ_U64(kbpf_map_update(m, &key, &t, BPF_ANY), (uint64_t)-EINVAL);
		if (c) {
			uint8_t ctx[8] = { 0 };
			CHECK_EQ_U64(kbpf_linux_test_run_syscall(c, ctx, sizeof(ctx), &rv), 0);
			CHECK_EQ_U64(rv, 0); /* was 7: the target ran and wrote ctx[4000] of an 8-byte copy */
		}
		kbpf_prog_free(c);
		/* a caller that itself reaches byte 8 takes a target reaching byte 5 */
		static const struct bpf_insn caller8[] = {
			BPF_ST_MEM(BPF_DW, BPF_REG_1, 0, 0),
			BPF_LD_MAP_FD(BPF_REG_2, 0),
			BPF_MOV64_IMM(BPF_REG_3, 0),
			BPF_EMIT_CALL(BPF_FUNC_tail_call),
			BPF_MOV64_IMM(BPF_REG_0, 0),
			BPF_EXIT_INSN(),
		};
		struct kbpf_map *m2 = NULL;
		CHECK_EQ_U64(kbpf_map_create(&def, &m2), 0);
		c = mk(host, "syscall", caller8, N(caller8), &m2, 1, jit);
		CHECK(c);
		CHECK_EQ_U64(kbpf_map_update(m2, &key, &n, BPF_ANY), 0);
		if (c) {
			uint8_t ctx[8] = { 0 };
			CHECK_EQ_U64(kbpf_linux_test_run_syscall(c, ctx, sizeof(ctx), &rv), 0);
			CHECK_EQ_U64(rv, 8);
			CHECK_EQ_U64(ctx[4], 0x41);
		}
		kbpf_prog_free(c);
		kbpf_prog_free(t);
		kbpf_prog_free(n);
		kbpf_map_free(m);
		kbpf_map_free(m2);
	}
	kbpf_host_free(host);
}

int main(void)
{
	RUN(test_verify);
	RUN(test_run);
	RUN(test_tail_call_target_reaches_further);
	return test_summary();
}
