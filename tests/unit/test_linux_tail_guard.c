/* SPDX-License-Identifier: Apache-2.0 */
/* The tail-call guard of unprivileged programs (src/verifier/loop_inline.c, Linux 6.1's
 * do_misc_fixups): `if r3 >= max_entries goto +2; w3 &= index_mask` before the call, so
 * an index that fits the array only once truncated to 32 bits does not call. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/bpf.h>
#include <kbpf/kbpf.h>
#include <kbpf/linux.h>
#include <kbpf/verifier.h>
#include "test.h"

static const struct bpf_insn prog[] = {
	BPF_LD_MAP_FD(BPF_REG_2, 0),
	BPF_LD_IMM64(BPF_REG_3, 0x100000001ull),
	BPF_EMIT_CALL(BPF_FUNC_tail_call),
	BPF_MOV64_IMM(BPF_REG_0, 2),
	BPF_EXIT_INSN(),
};
#define CALL_AT 4

static int verify(struct kbpf_host *host, struct kbpf_map *map, int unpriv, struct kbpf_verify_result *r)
{
	static char log[1 << 14];
	const struct kbpf_verify_opts o = { .sz = sizeof(o), .host = host, .prog_type = "socket_filter",
					    .maps = &map, .nr_maps = 1, .license = "GPL", .unprivileged = unpriv,
					    .log_level = KBPF_LOG_LEVEL1, .log_buf = log, .log_size = sizeof(log),
					    .xlated_alloc = 1 };
	*r = (struct kbpf_verify_result){ .sz = sizeof(*r) };
	int err = kbpf_prog_verify(prog, sizeof(prog) / sizeof(prog[0]), &o, r);
	if (err)
		fprintf(stderr, "%s\n", log);
	return err;
}

static void test_guard(void)
{
	struct kbpf_host *host = kbpf_host_new();
	struct kbpf_map *map = NULL;
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_PROG_ARRAY, .key_size = 4,
				    .value_size = 4, .max_entries = 5, .name = "jmp" };
	struct kbpf_verify_result o;

	CHECK(host && !kbpf_linux_host_add(host));
	CHECK_EQ_U64(kbpf_map_create(&def, &map), 0);
	if (!map)
		return;
	CHECK_EQ_U64(verify(host, map, 1, &o), 0);
	CHECK_EQ_U64(o.xlated_cnt, sizeof(prog) / sizeof(prog[0]) + 2);
	if (o.xlated_prog && o.xlated_cnt == sizeof(prog) / sizeof(prog[0]) + 2) {
		const struct bpf_insn *g = &o.xlated_prog[CALL_AT];
		CHECK_EQ_U64(g[0].code, BPF_JMP | BPF_JGE | BPF_K);
		CHECK_EQ_U64(g[0].dst_reg, BPF_REG_3);
		CHECK_EQ_U64(g[0].imm, 5);
		CHECK_EQ_U64(g[0].off, 2);
		CHECK_EQ_U64(g[1].code, BPF_ALU | BPF_AND | BPF_K);
		CHECK_EQ_U64(g[1].imm, 7); /* 5 entries: index_mask 7, as Linux's array */
		CHECK_EQ_U64(g[2].code, BPF_JMP | BPF_CALL);
		CHECK_EQ_U64(g[2].imm, BPF_FUNC_tail_call);
		CHECK_EQ_U64(o.xlated_idx[CALL_AT], CALL_AT);
		CHECK_EQ_U64(o.xlated_idx[CALL_AT + 1], CALL_AT + 3);
	}
	free(o.xlated_prog);
	free(o.xlated_idx);
	/* privileged: no guard (Linux's JIT keeps the 32-bit index of the call) */
	CHECK_EQ_U64(verify(host, map, 0, &o), 0);
	CHECK_EQ_U64(o.xlated_cnt, sizeof(prog) / sizeof(prog[0]));
	free(o.xlated_prog);
	free(o.xlated_idx);
	kbpf_map_free(map);
	kbpf_host_free(host);
}

int main(void)
{
	RUN(test_guard);
	return test_summary();
}
