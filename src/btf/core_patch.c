/* SPDX-License-Identifier: Apache-2.0 */
/* CO-RE instruction patching, libbpf's forms:
 *   rX = imm, rX op= imm      (ALU/ALU64 with an immediate): imm
 *   rX = *(T *)(rY + off)     (LDX), *(T *)(rX + off) = rY / imm (STX, ST): off, and
 *                             T follows the field's size when it changed safely
 *   rX = imm64                (LDDW, src_reg 0): both halves of the immediate
 * Before patching, the instruction must hold the value computed from the local BTF
 * (when that value is unambiguous), which catches relocation records that do not
 * belong to the instruction. Unresolvable relocations poison the instruction. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <kbpf/insn.h>
#include "btf/core_internal.h"

static void poison(struct bpf_insn *insn)
{
	/* reached, the verifier says "invalid func unknown#195896080" */
	*insn = (struct bpf_insn){ .code = BPF_JMP | BPF_CALL, .imm = KBPF_CORE_POISON_HELPER };
}

static int mem_size_bytes(uint8_t code)
{
	switch (BPF_SIZE(code)) {
	case BPF_DW: return 8;
	case BPF_W: return 4;
	case BPF_H: return 2;
	default: return 1;
	}
}

static int bytes_to_mem_size(uint32_t sz)
{
	switch (sz) {
	case 8: return BPF_DW;
	case 4: return BPF_W;
	case 2: return BPF_H;
	case 1: return BPF_B;
	default: return -1;
	}
}

/* Poison insns[idx] (and the second slot of an LDDW: a lone second half would not
 * even decode, while two calls do). */
static int do_poison(int relo_idx, const struct kbpf_core_res *res, struct bpf_insn *insns, size_t idx,
		     const char *why, char *log, size_t log_size)
{
	if (insns[idx].code == KBPF_LDDW_CODE) /* caller checked idx + 1 is in range */
		poison(&insns[idx + 1]);
	poison(&insns[idx]);
	kbpf_core_msg(log, log_size, "relo #%d: insn #%zu poisoned: %s", relo_idx, idx, why[0] ? why : res->why);
	return 0;
}

static int patch_mem(int relo_idx, const struct kbpf_core_res *res, struct bpf_insn *insns, size_t idx, char *log,
		     size_t log_size)
{
	struct bpf_insn *insn = &insns[idx];

	if (res->validate && (uint64_t)(int64_t)insn->off != res->orig_val) {
		kbpf_core_msg(log, log_size, "relo #%d: unexpected insn #%zu (LDX/ST/STX) value: got %d, exp %" PRIu64 " -> %" PRIu64,
			      relo_idx, idx, insn->off, res->orig_val, res->new_val);
		return -EINVAL;
	}
	if (res->new_val > SHRT_MAX) {
		kbpf_core_msg(log, log_size, "relo #%d: insn #%zu (LDX/ST/STX) value too big: %" PRIu64, relo_idx, idx,
			      res->new_val);
		return -ERANGE;
	}
	if (res->fail_memsz_adjust)
		return do_poison(relo_idx, res, insns, idx,
				 "the load/store accesses the field incorrectly (its size changed); make sure you are "
				 "accessing pointers, unsigned integers, or fields of matching type and size",
				 log, log_size);
	insn->off = (int16_t)res->new_val;
	if (res->new_sz != res->orig_sz) {
		int sz = mem_size_bytes(insn->code), bpf_sz;

		if (sz != (int)res->orig_sz) {
			kbpf_core_msg(log, log_size, "relo #%d: insn #%zu (LDX/ST/STX) unexpected mem size: got %d, exp %u",
				      relo_idx, idx, sz, res->orig_sz);
			return -EINVAL;
		}
		bpf_sz = bytes_to_mem_size(res->new_sz);
		if (bpf_sz < 0) {
			kbpf_core_msg(log, log_size, "relo #%d: insn #%zu (LDX/ST/STX) invalid new mem size: %u", relo_idx,
				      idx, res->new_sz);
			return -EINVAL;
		}
		insn->code = (uint8_t)(BPF_MODE(insn->code) | bpf_sz | BPF_CLASS(insn->code));
	}
	return 0;
}

static int patch_lddw(int relo_idx, const struct kbpf_core_res *res, struct bpf_insn *insns, size_t idx, char *log,
		      size_t log_size)
{
	struct bpf_insn *insn = &insns[idx];
	uint64_t imm;

	if (insn[0].code != KBPF_LDDW_CODE || insn[0].src_reg || insn[0].off || insn[1].code || insn[1].dst_reg ||
	    insn[1].src_reg || insn[1].off) {
		kbpf_core_msg(log, log_size, "relo #%d: insn #%zu (LDIMM64) has unexpected form", relo_idx, idx);
		return -EINVAL;
	}
	imm = (uint32_t)insn[0].imm | ((uint64_t)(uint32_t)insn[1].imm << 32);
	if (res->validate && imm != res->orig_val) {
		kbpf_core_msg(log, log_size, "relo #%d: unexpected insn #%zu (LDIMM64) value: got %" PRIu64 ", exp %" PRIu64 " -> %" PRIu64,
			      relo_idx, idx, imm, res->orig_val, res->new_val);
		return -EINVAL;
	}
	insn[0].imm = (int32_t)(uint32_t)res->new_val;
	insn[1].imm = (int32_t)(uint32_t)(res->new_val >> 32);
	return 0;
}

int kbpf_core_patch(int relo_idx, const struct kbpf_core_res *res, struct bpf_insn *insns, size_t insn_cnt,
		    size_t insn_idx, char *log, size_t log_size)
{
	struct bpf_insn *insn;

	if (log && log_size)
		log[0] = 0;
	if (!res || !insns || insn_idx >= insn_cnt) {
		kbpf_core_msg(log, log_size, "relo #%d: insn #%zu is out of range (program has %zu insns)", relo_idx,
			      insn_idx, insns ? insn_cnt : 0);
		return -EINVAL;
	}
	insn = &insns[insn_idx];
	if (insn->code == KBPF_LDDW_CODE && insn_idx + 1 >= insn_cnt) {
		kbpf_core_msg(log, log_size, "relo #%d: insn #%zu (LDIMM64) is missing its second half", relo_idx,
			      insn_idx);
		return -EINVAL;
	}
	if (res->poison)
		return do_poison(relo_idx, res, insns, insn_idx, "", log, log_size);

	switch (BPF_CLASS(insn->code)) {
	case BPF_ALU:
	case BPF_ALU64:
		if (BPF_SRC(insn->code) != BPF_K) {
			kbpf_core_msg(log, log_size, "relo #%d: insn #%zu (ALU/ALU64) has a register operand, not an immediate",
				      relo_idx, insn_idx);
			return -EINVAL;
		}
		if (res->validate && (uint64_t)(int64_t)insn->imm != res->orig_val) {
			kbpf_core_msg(log, log_size, "relo #%d: unexpected insn #%zu (ALU/ALU64) value: got %u, exp %" PRIu64 " -> %" PRIu64,
				      relo_idx, insn_idx, (uint32_t)insn->imm, res->orig_val, res->new_val);
			return -EINVAL;
		}
		insn->imm = (int32_t)(uint32_t)res->new_val;
		return 0;
	case BPF_LDX:
	case BPF_ST:
	case BPF_STX:
		return patch_mem(relo_idx, res, insns, insn_idx, log, log_size);
	case BPF_LD:
		return patch_lddw(relo_idx, res, insns, insn_idx, log, log_size);
	default:
		kbpf_core_msg(log, log_size,
			      "relo #%d: trying to relocate unrecognized insn #%zu, code:0x%x, src:0x%x, dst:0x%x, off:0x%x, imm:0x%x",
			      relo_idx, insn_idx, insn->code, insn->src_reg, insn->dst_reg, (uint16_t)insn->off,
			      (uint32_t)insn->imm);
		return -EINVAL;
	}
}
