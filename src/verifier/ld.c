/* SPDX-License-Identifier: Apache-2.0 */
/* BPF_LD: 64-bit immediates (constants, maps, map values, functions, host variables) and the legacy
 * packet loads LD_ABS/LD_IND (Linux 6.1 check_ld_imm, check_ld_abs). */
#include <errno.h>
#include <bpf/btf.h>
#include <kbpf/kfunc.h>
#include "btf/btf_walk.h"
#include "verifier/env.h"
#include "verifier/spin_lock.h"

/* Whether VAR id is in the host BTF's ".data..percpu" DATASEC (Linux's per-CPU section). */
static bool var_is_percpu(const struct btf *btf, uint32_t id)
{
	int sec = btf__find_by_name_kind(btf, ".data..percpu", BTF_KIND_DATASEC);
	if (sec <= 0)
		return false;
	const struct btf_type *ds = btf__type_by_id(btf, (uint32_t)sec);
	const struct btf_var_secinfo *vsi = btf_var_secinfos(ds);
	for (uint16_t i = 0; i < btf_vlen(ds); i++, vsi++)
		if (vsi->type == id)
			return true;
	return false;
}

/* Linux 6.1 check_pseudo_btf_id, before the walk: ld_imm64 BPF_PSEUDO_BTF_ID names a VAR
 * of the host BTF (insn[1].imm, Linux's module BTF fd, must be 0: a host has one BTF)
 * whose variable the host registered (kbpf_host_var_register: Linux's kallsyms lookup).
 * The register it loads is a per-CPU BTF pointer, a BTF pointer to a struct, or read-only
 * memory of the type's size. */
int check_pseudo_btf_id(struct env *env, const struct bpf_insn *insn, int idx)
{
	const struct btf *btf = kbpf_host_btf(env->host);
	uint32_t id = (uint32_t)insn[0].imm, type;
	struct insn_aux *a = &env->aux[idx];

	if (insn[1].imm) {
		vlog(env, "invalid module BTF object FD specified.\n");
		return -EINVAL;
	}
	if (!btf) {
		vlog(env, "kernel is missing BTF, make sure CONFIG_DEBUG_INFO_BTF=y is specified in Kconfig.\n");
		return -EINVAL;
	}
	const struct btf_type *t = id ? btf__type_by_id(btf, id) : NULL;
	if (!t) {
		vlog(env, "ldimm64 insn specifies invalid btf_id %d.\n", insn[0].imm);
		return -ENOENT;
	}
	if (!btf_is_var(t)) {
		vlog(env, "pseudo btf_id %d in ldimm64 isn't KIND_VAR.\n", insn[0].imm);
		return -EINVAL;
	}
	const char *sym = btf__name_by_offset(btf, t->name_off);
	if (!kbpf_host_var_addr(env->host, id)) {
		vlog(env, "ldimm64 failed to find the address for kernel symbol '%s'.\n", sym ? sym : "");
		return -ENOENT;
	}
	type = t->type;
	uint32_t resolved = type;
	const struct btf_type *rt = kbpf_btf_skip_mods(btf, resolved, &resolved);
	if (var_is_percpu(btf, id)) {
		a->btf_var_type = KBPF_PTR_TO_BTF_ID | KBPF_MEM_PERCPU;
		a->btf_var_id = type;
	} else if (!rt || !btf_is_composite(rt)) { /* Linux: btf_type_is_struct takes unions too */
		long long size = rt ? btf__resolve_size(btf, type) : -EINVAL;
		if (size < 0 || size > UINT32_MAX) {
			const char *tname = rt ? btf__name_by_offset(btf, rt->name_off) : "";
			vlog(env, "ldimm64 unable to resolve the size of type '%s': %lld\n", tname ? tname : "",
			     size < 0 ? size : -E2BIG);
			return -EINVAL;
		}
		a->btf_var_type = KBPF_PTR_TO_MEM | KBPF_MEM_RDONLY;
		a->btf_var_mem_size = (uint32_t)size;
	} else {
		a->btf_var_type = KBPF_PTR_TO_BTF_ID;
		a->btf_var_id = type;
	}
	return 0;
}

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
		/* a callback's address: a static subprog named by BTF func_info */
		int sub = find_subprog(env, insn_target(env->insn_idx, insn->imm));
		if (!env->has_func_info) {
			vlog(env, "missing btf func_info\n");
			return -EINVAL;
		}
		if (sub < 0 || env->sub[sub].linkage != 0 /* BTF_FUNC_STATIC */) {
			vlog(env, "callback function not static\n");
			return -EINVAL;
		}
		if (sub == 0) {
			vlog(env, "callback function cannot be the main program\n");
			return -EINVAL;
		}
		d->type = KBPF_PTR_TO_FUNC;
		d->subprogno = (uint32_t)sub;
		return 0;
	}
	if (insn->src_reg == BPF_PSEUDO_BTF_ID) {
		/* a host variable, typed by check_pseudo_btf_id before the walk */
		const struct insn_aux *a = &env->aux[env->insn_idx];
		d->type = a->btf_var_type;
		if (KBPF_REG_BASE(d->type) == KBPF_PTR_TO_MEM)
			d->mem_size = a->btf_var_mem_size;
		else
			d->btf_id = a->btf_var_id;
		return 0;
	}
	struct kbpf_map *map = env->opts->maps[env->aux[env->insn_idx].map_idx];
	d->map = map;
	if (insn->src_reg == BPF_PSEUDO_MAP_VALUE || insn->src_reg == BPF_PSEUDO_MAP_IDX_VALUE) {
		d->type = KBPF_PTR_TO_MAP_VALUE;
		d->off = insn[1].imm;
		if (reg_may_point_to_spin_lock(d)) /* the id names the lock (spin_lock.c) */
			d->id = ++env->id_gen;
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
