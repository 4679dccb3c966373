/* SPDX-License-Identifier: Apache-2.0 */
/* kptrs in map values (Linux 6.1 check_map_access's kptr part, check_map_kptr_access,
 * map_kptr_match_type, process_kptr_func): what a program may do with a map value's
 * `struct T __kptr_untrusted *` (unreferenced) and `struct T __kptr *` (referenced) fields,
 * Linux 6.12's tags (src/maps/map_btf.c finds them).
 *
 * An unreferenced kptr is plain pointer storage: LDX gives untrusted_ptr_or_null_T, STX
 * stores NULL or a pointer to T (trusted or not), ST stores 0. A referenced kptr holds a
 * reference the map owns: LDX gives the same untrusted pointer, and only bpf_kptr_xchg
 * (an acquire of the old pointer and a release of the new one) and KF_KPTR_GET kfuncs
 * (kfunc.c) move it. A load through an untrusted pointer is checked as Linux checks it
 * and becomes a fault-tolerant load (fixup.c, src/exec/probe_mem.c). */
#include <errno.h>
#include <bpf/btf.h>
#include <kbpf/host.h>
#include "verifier/env.h"
#include "verifier/kfunc.h"
#include "verifier/kptr.h"
#include "verifier/vbtf.h"

#define KPTR_SIZE 8

static const char *host_type_name(struct env *env, uint32_t id)
{
	const struct btf *btf = env->host ? kbpf_host_btf(env->host) : NULL;
	return vbtf_name(btf, vbtf_type(btf, id));
}

static bool reg_is_null(const struct reg *r)
{
	return r->type == KBPF_SCALAR_VALUE && kbpf_tnum_equals_const(r->s.var_off, 0);
}

int check_map_kptr_fields(struct env *env, int regno, int off, int size, bool helper)
{
	const struct reg *r = &cur_regs(env)[regno];
	int n = kbpf_map_kptr_cnt(r->map);

	for (int i = 0; i < n; i++) {
		uint32_t p = kbpf_map_kptr_get(r->map, i)->offset;

		/* [smin + off, umax + off + size) overlaps [p, p + 8) */
		if (!(r->s.smin_value + off < (int64_t)p + KPTR_SIZE &&
		      (int64_t)p < (int64_t)r->s.umax_value + off + size))
			continue;
		if (helper) {
			vlog(env, "kptr cannot be accessed indirectly by helper\n");
			return -EACCES;
		}
		if (!kbpf_tnum_is_const(r->s.var_off)) {
			vlog(env, "kptr access cannot have variable offset\n");
			return -EACCES;
		}
		if ((uint64_t)p != (uint64_t)(int64_t)off + r->s.var_off.value) {
			vlog(env, "kptr access misaligned expected=%u off=%llu\n", p,
			     (unsigned long long)((uint64_t)(int64_t)off + r->s.var_off.value));
			return -EACCES;
		}
		if (size != KPTR_SIZE) {
			vlog(env, "kptr access size must be BPF_DW\n");
			return -EACCES;
		}
		break;
	}
	return 0;
}

int map_kptr_match_type(struct env *env, const struct kbpf_map_kptr *k, const struct reg *r, int regno)
{
	uint32_t perm = KBPF_PTR_MAYBE_NULL | (k->referenced ? 0 : KBPF_PTR_UNTRUSTED);
	const char *reg_name = "";
	char tn[TNUM_STR_MAX];

	if (KBPF_REG_BASE(r->type) != KBPF_PTR_TO_BTF_ID || ((r->type & ~0xffu) & ~perm))
		goto bad_type;
	reg_name = host_type_name(env, r->btf_id);
	/* __check_ptr_off_reg with a fixed offset allowed */
	if (r->off < 0) {
		vlog(env, "negative offset %s ptr R%d off=%d disallowed\n", reg_type_str(env, r->type), regno, r->off);
		return -EACCES;
	}
	if (!kbpf_tnum_is_const(r->s.var_off) || r->s.var_off.value) {
		kbpf_tnum_strn(tn, sizeof(tn), r->s.var_off);
		vlog(env, "variable %s access var_off=%s disallowed\n", reg_type_str(env, r->type), tn);
		return -EACCES;
	}
	/* a referenced kptr takes exactly T: the destructor gets what is stored */
	if (kfunc_struct_ids_match(kbpf_host_btf(env->host), r->btf_id, r->off, k->btf_id, k->referenced))
		return 0;
bad_type:
	vlog(env, "invalid kptr access, R%d type=%s%s ", regno, reg_type_str(env, r->type), reg_name);
	vlog(env, "expected=%s%s", reg_type_str(env, KBPF_PTR_TO_BTF_ID), host_type_name(env, k->btf_id));
	if (!k->referenced)
		vlog(env, " or %s%s\n", reg_type_str(env, KBPF_PTR_TO_BTF_ID | KBPF_PTR_UNTRUSTED),
		     host_type_name(env, k->btf_id));
	else
		vlog(env, "\n");
	return -EINVAL;
}

int check_map_kptr_access(struct env *env, int regno, int value_regno, int insn_idx, const struct kbpf_map_kptr *k)
{
	const struct bpf_insn *insn = &env->insns[insn_idx];
	uint8_t cls = BPF_CLASS(insn->code);
	struct reg *regs = cur_regs(env);

	(void)regno;
	if (BPF_MODE(insn->code) != BPF_MEM) {
		vlog(env, "kptr in map can only be accessed using BPF_MEM instruction mode\n");
		return -EACCES;
	}
	if (cls != BPF_LDX && k->referenced) {
		vlog(env, "store to referenced kptr disallowed\n");
		return -EACCES;
	}
	if (cls == BPF_LDX) {
		struct reg *d = &regs[value_regno];
		reg_mark_unknown(env, d);
		reg_mark_known(d, 0);
		d->type = KBPF_PTR_TO_BTF_ID | KBPF_PTR_MAYBE_NULL | KBPF_PTR_UNTRUSTED;
		d->btf_id = k->btf_id;
		d->id = ++env->id_gen; /* for the NULL check */
	} else if (cls == BPF_STX) {
		const struct reg *v = &regs[value_regno];
		if (!reg_is_null(v) && map_kptr_match_type(env, k, v, value_regno))
			return -EACCES;
	} else if (cls == BPF_ST) {
		if (insn->imm) {
			vlog(env, "BPF_ST imm must be 0 when storing to kptr at off=%u\n", k->offset);
			return -EACCES;
		}
	} else {
		vlog(env, "kptr in map can only be accessed using BPF_LDX/BPF_STX/BPF_ST\n");
		return -EACCES;
	}
	return 0;
}

int process_kptr_func(struct env *env, int regno, const struct kbpf_map_kptr **out)
{
	const struct reg *r = &cur_regs(env)[regno];
	struct kbpf_map *map = r->map;
	const char *name = kbpf_map_name(map);

	if (!kbpf_tnum_is_const(r->s.var_off)) {
		vlog(env, "R%d doesn't have constant offset. kptr has to be at the constant offset\n", regno);
		return -EINVAL;
	}
	if (!kbpf_map_has_btf(map)) {
		vlog(env, "map '%s' has to have BTF in order to use bpf_kptr_xchg\n", name);
		return -EINVAL;
	}
	if (!kbpf_map_kptr_cnt(map)) {
		/* Linux's E2BIG / EEXIST variants are creation errors in kbpf (map_btf.c) */
		vlog(env, "map '%s' has no valid kptr\n", name);
		return -EINVAL;
	}
	uint32_t off = (uint32_t)((int64_t)r->off + (int64_t)r->s.var_off.value);
	const struct kbpf_map_kptr *k = kbpf_map_kptr_at(map, off);
	if (!k) {
		vlog(env, "off=%d doesn't point to kptr\n", (int)off);
		return -EACCES;
	}
	if (!k->referenced) {
		vlog(env, "off=%d kptr isn't referenced kptr\n", (int)off);
		return -EACCES;
	}
	*out = k;
	return 0;
}

int check_map_kptr_host(struct env *env, const struct kbpf_map *map)
{
	if (kbpf_map_kptr_cnt(map) && kbpf_map_kptr_host(map) != env->host) {
		/* its kptr types are ids of another host's BTF */
		vlog(env, "map '%s' has kptr fields typed by another host's BTF\n", kbpf_map_name(map));
		return -EINVAL;
	}
	return 0;
}

void kptr_note_untrusted_load(struct env *env, int insn_idx)
{
	env->aux[insn_idx].untrusted_load = true;
}
