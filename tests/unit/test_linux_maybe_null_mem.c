/* SPDX-License-Identifier: Apache-2.0 */
/* A helper argument that is maybe-NULL memory with a size (attack6): the verifier, as
 * Linux 6.12's, passes a map lookup's result before its NULL check with any size the
 * value would allow, so the helper gets NULL and a size at run time. bpf_csum_diff read
 * address 0 and the host died (SIGSEGV, interpreter and JIT); now it returns -EINVAL.
 * The program: csum_diff(lookup(hash, 0), 8, NULL, 0, 0) on an empty hash map, on the
 * interpreter, in checked mode and on the JIT. */
#include <errno.h>
#include <string.h>
#include <linux/bpf.h>
#include "test.h"
#include "test_linux_util.h"

static const struct bpf_insn prog[] = {
	BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0),
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
	BPF_LD_MAP_FD(BPF_REG_1, 0),
	BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
	BPF_MOV64_IMM(BPF_REG_5, 0), /* seed */
	BPF_MOV64_IMM(BPF_REG_4, 0), /* to_size */
	BPF_MOV64_IMM(BPF_REG_3, 0), /* to: NULL */
	BPF_MOV64_IMM(BPF_REG_2, 8), /* from_size */
	BPF_MOV64_REG(BPF_REG_1, BPF_REG_0), /* from: the lookup's result, maybe NULL */
	BPF_EMIT_CALL(BPF_FUNC_csum_diff),
	BPF_EXIT_INSN(),
};

static void test_csum_diff_null_from(void)
{
	struct kbpf_host *host = linux_host();
	struct kbpf_map_def def = { .sz = sizeof(def), .type = BPF_MAP_TYPE_HASH, .key_size = 4, .value_size = 8,
				    .max_entries = 2, .name = "h" };
	struct kbpf_map *map = NULL;

	CHECK(host != NULL);
	if (!host)
		return;
	CHECK_EQ_U64(kbpf_map_create(&def, &map), 0);
	for (int jit = 0; jit < 2; jit++) {
		static char log[1 << 14];
		struct kbpf_prog *p = NULL;
		struct kbpf_prog_opts po = { .sz = sizeof(po), .host = host, .prog_type = "sched_cls", .license = "GPL",
					     .maps = &map, .nr_maps = 1, .jit = jit, .log_buf = log,
					     .log_size = sizeof(log) };
		struct kbpf_linux_skb skb;
		uint64_t r0 = 0;

		memset(&skb, 0, sizeof(skb));
		CHECK_EQ_U64(kbpf_prog_create(prog, sizeof(prog) / sizeof(prog[0]), &po, &p), 0);
		if (!p)
			continue;
		CHECK_EQ_U64(kbpf_prog_run(p, &skb, &r0), 0);
		CHECK_EQ_U64(r0, (uint64_t)(int64_t)-EINVAL);
		if (!jit) {
			char err[256] = "";
			struct kbpf_mem_region r = { &skb, sizeof(skb), KBPF_MEM_READ | KBPF_MEM_WRITE, "ctx" };
			struct kbpf_run_opts ro = { .sz = sizeof(ro), .flags = KBPF_RUN_CHECKED, .regions = &r,
						    .nr_regions = 1, .max_insns = 1000, .err = err,
						    .err_size = sizeof(err) };
			struct kbpf_run_result rr = { .sz = sizeof(rr) };

			ro.args[0] = (uint64_t)(uintptr_t)&skb;
			CHECK_EQ_U64(kbpf_prog_run_opts(p, &ro, &rr), 0);
			CHECK_EQ_U64(rr.retval, (uint64_t)(int64_t)-EINVAL);
		}
		kbpf_prog_free(p);
	}
	kbpf_map_free(map);
	kbpf_host_free(host);
}

int main(void)
{
	RUN(test_csum_diff_null_from);
	return test_summary();
}
