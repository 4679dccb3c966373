/* SPDX-License-Identifier: Apache-2.0 */
/* BPF_LD: 64-bit immediates (constants, maps, map values, functions) and the legacy
 * packet loads LD_ABS/LD_IND (Linux 6.1 check_ld_imm, check_ld_abs). */
#include <errno.h>
#include "verifier/env.h"

int check_ld_imm(struct env *env, const struct bpf_insn *insn)
{
	struct reg *regs = cur_regs(env);
	int err;
	if (BPF_SIZE(insn->code) != BPF_DW) {
		vlog(env, "invalid BPF_LD_IMM insn\n");
		return -EINVAL;
	}
	if (insn->off) {
		vlog(env, "BPF_LD_IMM64 uses reserved fields\n");
		return -EINVAL;
	}
	if ((err = check_reg_write(env, insn->dst_reg)))
		return err;
	struct reg *d = &regs[insn->dst_reg];
	if (insn->src_reg == 0) {
		reg_mark_known(d, ((uint64_t)(uint32_t)insn[1].imm << 32) | (uint32_t)insn->imm);
		return 0;
	}
	reg_mark_known(d, 0);
	d->precise = false;
	if (insn->src_reg == BPF_PSEUDO_FUNC) {
		/* kbpf carries no BTF func_info to the verifier yet: Linux's rule without it. */
		vlog(env, "missing btf func_info\n");
		return -EINVAL;
	}
	if (insn->src_reg == BPF_PSEUDO_BTF_ID) {
		vlog(env, "unrecognized bpf_ld_imm64 insn\n");
		return -EINVAL;
	}
	struct kbpf_map *map = env->opts->maps[env->aux[env->insn_idx].map_idx];
	d->map = map;
	if (insn->src_reg == BPF_PSEUDO_MAP_VALUE || insn->src_reg == BPF_PSEUDO_MAP_IDX_VALUE) {
		d->type = KBPF_PTR_TO_MAP_VALUE;
		d->off = insn[1].imm;
	} else {
		d->type = KBPF_CONST_PTR_TO_MAP;
	}
	return 0;
}

static bool may_access_skb(const struct kbpf_prog_type *t)
{
	/* BPF_PROG_TYPE_SOCKET_FILTER, SCHED_CLS, SCHED_ACT */
	return t->linux_type == 1 || t->linux_type == 3 || t->linux_type == 4;
}

int check_ld_abs(struct env *env, const struct bpf_insn *insn)
{
	struct reg *regs = cur_regs(env);
	uint8_t mode = BPF_MODE(insn->code);
	int err;
	if (!may_access_skb(env->type)) {
		vlog(env, "BPF_LD_[ABS|IND] instructions not allowed for this program type\n");
		return -EINVAL;
	}
	if (insn->dst_reg || insn->off || BPF_SIZE(insn->code) == BPF_DW || (mode == BPF_ABS && insn->src_reg)) {
		vlog(env, "BPF_LD_[ABS|IND] uses reserved fields\n");
		return -EINVAL;
	}
	if ((err = check_reg_read(env, 6)))
		return err;
	if (cur_frame(env)->nr_refs) {
		for (int i = 0; i < cur_frame(env)->nr_refs; i++)
			vlog(env, "Unreleased reference id=%u alloc_insn=%d\n", cur_frame(env)->refs[i].id,
			     cur_frame(env)->refs[i].insn);
		vlog(env, "BPF_LD_[ABS|IND] cannot be mixed with socket references\n");
		return -EINVAL;
	}
	if (env->cur->active_spin_lock) {
		vlog(env, "BPF_LD_[ABS|IND] cannot be used inside bpf_spin_lock-ed region\n");
		return -EINVAL;
	}
	if (regs[6].type != KBPF_PTR_TO_CTX) {
		vlog(env, "at the time of BPF_LD_ABS|IND R6 != pointer to skb\n");
		return -EINVAL;
	}
	if (mode == BPF_IND && (err = check_reg_read(env, insn->src_reg)))
		return err;
	if ((err = check_ptr_off_reg(env, &regs[6], 6)))
		return err;
	for (int i = 1; i <= 5; i++)
		reg_mark_not_init(env, &regs[i]);
	reg_mark_unknown(env, &regs[0]);
	return 0;
}
