/* SPDX-License-Identifier: Apache-2.0 */
/* The memory a program may touch in checked mode besides its stack and the regions a run
 * declares: its maps' storage, and the variables of the helper calls the verifier
 * replaced with a load (kbpf_helper_proto.inline_load, e.g. bpf_jiffies64). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <linux/bpf.h>
#include <kbpf/map.h>
#include "exec/prog_internal.h"
#include "prog/create.h"

/* Given insn i, a helper call, became R0 = *(u64 *)addr (src/verifier/grow.c): the
 * three insns ld_imm64 r0, addr; r0 = *(u64 *)(r0 + 0). */
static bool inlined_load(const struct kbpf_prog *prog, const struct bpf_insn *given, size_t i, void **addr)
{
	const struct bpf_insn *c = &given[i];
	uint32_t at = prog->xlated_idx[i], end = prog->xlated_idx[i + 1];

	if (c->code != (BPF_JMP | BPF_CALL) || c->src_reg != 0 || end - at != 3 || end > prog->insn_cnt)
		return false;
	const struct bpf_insn *x = &prog->insns[at];
	if (x[0].code != (BPF_LD | BPF_IMM | BPF_DW) || x[0].src_reg != 0 || x[0].dst_reg != BPF_REG_0 ||
	    x[2].code != (BPF_LDX | BPF_MEM | BPF_DW) || x[2].dst_reg != BPF_REG_0 || x[2].src_reg != BPF_REG_0 ||
	    x[2].off != 0)
		return false;
	*addr = (void *)(uintptr_t)((uint64_t)(uint32_t)x[0].imm | (uint64_t)(uint32_t)x[1].imm << 32);
	return true;
}

static size_t add_inlined_loads(const struct kbpf_prog *prog, const struct bpf_insn *given, size_t given_cnt,
				struct kbpf_mem_region *out, size_t n)
{
	size_t first = n;
	void *addr;

	for (size_t i = 0; prog->xlated_idx && i < given_cnt; i++) {
		if (!inlined_load(prog, given, i, &addr))
			continue;
		bool seen = false;
		for (size_t k = first; k < n && !seen; k++)
			seen = out[k].base == addr;
		if (!seen)
			out[n++] = (struct kbpf_mem_region){ .base = addr, .size = 8, .flags = KBPF_MEM_READ,
							     .name = "helper variable" };
	}
	return n;
}

int kbpf_prog_regions_collect(struct kbpf_prog *prog, const struct bpf_insn *given, size_t given_cnt)
{
	size_t total = 0, n = 0;
	void *addr;

	for (size_t i = 0; i < prog->nr_maps; i++)
		total += kbpf_map_mem_regions(prog->maps[i], NULL, 0);
	for (size_t i = 0; prog->xlated_idx && i < given_cnt; i++)
		total += inlined_load(prog, given, i, &addr);
	if (!total)
		return 0;
	prog->map_regions = calloc(total, sizeof(*prog->map_regions));
	if (!prog->map_regions)
		return -ENOMEM;
	for (size_t i = 0; i < prog->nr_maps; i++) {
		bool seen = false;
		for (size_t k = 0; k < i && !seen; k++)
			seen = prog->maps[k] == prog->maps[i];
		if (!seen)
			n += kbpf_map_mem_regions(prog->maps[i], prog->map_regions + n, total - n);
	}
	if (n > total)
		n = total;
	prog->nr_map_regions = add_inlined_loads(prog, given, given_cnt, prog->map_regions, n);
	return 0;
}
