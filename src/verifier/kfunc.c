/* SPDX-License-Identifier: Apache-2.0 */
/* Kfunc calls (Linux 6.1's add_kfunc_call, check_kfunc_call, btf_check_kfunc_arg_match,
 * fixup_kfunc_call) and loads through PTR_TO_BTF_ID (check_ptr_to_btf_access,
 * btf_struct_walk), with Linux's messages; docs/reference/kfunc-spec.md §1-§2, docs/kfuncs.md.
 *
 * kbpf differs from Linux where a userspace host needs it: the interpreter calls kfuncs
 * too (no "JIT is required"), and PTR_TO_BTF_ID loads are plain loads, not
 * fault-tolerant BPF_PROBE_MEM ones — so every pointer the verifier cannot prove
 * non-NULL (a RET_NULL result, a pointer field read from a struct) must be NULL-checked
 * before it is dereferenced. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include <kbpf/kfunc.h>
#include "verifier/env.h"
#include "verifier/vbtf.h"
#include "verifier/kfunc.h"
#include "verifier/kptr.h"
#include "verifier/tnum.h"
#include "host/host_internal.h"
#include "host/kfunc_internal.h"
#include "opts.h"

#define ENOTSUPP 524 /* Linux's in-kernel errno for "not supported" */

static const struct btf *host_btf(struct env *env)
{
	return env->host ? kbpf_host_btf(env->host) : NULL;
}

static bool is_scalar(const struct btf_type *t)
{
	return btf_is_int(t) || btf_is_enum(t) || btf_is_enum64(t);
}

static bool is_struct(const struct btf_type *t)
{
	return btf_is_struct(t) || btf_is_union(t);
}

const char *kfunc_btf_name(struct env *env, int32_t id)
{
	const struct btf *btf = host_btf(env);
	if (!btf || id <= 0 || (uint32_t)id >= btf__type_cnt(btf))
		return NULL;
	const struct btf_type *t = btf__type_by_id(btf, (uint32_t)id);
	return btf_is_func(t) ? btf__name_by_offset(btf, t->name_off) : NULL;
}

static bool license_gpl(const char *lic)
{
	static const char *const ok[] = { "GPL", "GPL v2", "GPL and additional rights", "Dual BSD/GPL",
					  "Dual MIT/GPL", "Dual MPL/GPL" };
	for (size_t i = 0; lic && i < sizeof(ok) / sizeof(ok[0]); i++)
		if (!strcmp(lic, ok[i]))
			return true;
	return false;
}

/* Linux's find_kfunc_desc_btf for off != 0: kbpf hosts have one BTF (plugins add to it). */
static int module_btf(struct env *env, int16_t off)
{
	if (off < 0)
		vlog(env, "negative offset disallowed for kernel module function call\n");
	else
		vlog(env, "kfunc offset > 0 without fd_array is invalid\n");
	vlog(env, "failed to find BTF for kernel function\n");
	return off < 0 ? -EINVAL : -EPROTO;
}

static enum kfunc_cast kfunc_cast_kind(const struct env *env, const struct bpf_insn *insn);

int kfunc_add(struct env *env, int idx)
{
	const struct bpf_insn *insn = &env->insns[idx];
	const struct btf *btf = host_btf(env);
	env->aux[idx].kfunc_cast = (uint8_t)kfunc_cast_kind(env, insn);
	/* Before the table's checks (Linux checks them first): an unresolved weak kfunc
	 * needs neither host BTF nor a GPL licence, so a host without BTF still loads a
	 * program whose optional kfunc call is dead. */
	if (!insn->imm && !insn->off)
		return 0; /* legal if dead (kfunc_fixup_check) */
	if (!env->kfunc_tab) {
		if (!btf) {
			vlog(env, "calling kernel function is not supported without CONFIG_DEBUG_INFO_BTF\n");
			return -ENOTSUPP;
		}
		/* No JIT requirement: kbpf's interpreter calls kfuncs through their model. */
		if (!license_gpl(env->opts->license)) {
			vlog(env, "cannot call kernel function from non-GPL compatible program\n");
			return -EINVAL;
		}
		env->kfunc_tab = true;
	}
	if (insn->off)
		return module_btf(env, insn->off);
	for (int i = 0; i < env->nr_kfuncs; i++)
		if (env->kfunc_ids[i] == (uint32_t)insn->imm)
			return 0;
	if (env->nr_kfuncs >= KFUNC_MAX_DESCS) {
		vlog(env, "too many different kernel function calls\n");
		return -E2BIG;
	}
	uint32_t id = (uint32_t)insn->imm;
	const struct btf_type *func = id < btf__type_cnt(btf) ? btf__type_by_id(btf, id) : NULL;
	if (!func || !btf_is_func(func)) {
		vlog(env, "kernel btf_id %u is not a function\n", id);
		return -EINVAL;
	}
	const struct btf_type *proto = vbtf_type(btf, func->type);
	if (!btf_is_func_proto(proto)) {
		vlog(env, "kernel function btf_id %u does not have a valid func_proto\n", id);
		return -EINVAL;
	}
	/* The address: kbpf never looks one up by name; only registered kfuncs have one. */
	const struct kbpf_kfunc_desc *desc;
	int err = kbpf_host_kfunc_get(env->host, id, &desc);
	if (err == -ENXIO)
		return err; /* its set is being unregistered (Linux: module going away) */
	if (err) {
		vlog(env, "cannot find address for kernel function %s\n", vbtf_name(btf, func));
		return -EINVAL;
	}
	kbpf_host_kfunc_put(env->host, desc);
	/* The function model was distilled (and checked) when the set was registered. */
	env->kfunc_ids[env->nr_kfuncs++] = id;
	return 0;
}

int kfunc_fixup_check(struct env *env)
{
	for (int i = 0; i < env->cnt; i++) {
		const struct bpf_insn *in = &env->insns[i];
		if (in->code == (BPF_JMP | BPF_CALL) && in->src_reg == BPF_PSEUDO_KFUNC_CALL && !in->imm &&
		    env->aux[i].seen) {
			env->error_insn = i;
			vlog(env, "invalid kernel function call not eliminated in verifier pass\n");
			return -EINVAL;
		}
	}
	return 0;
}

/* btf_struct_walk's member search: the member of struct t holding byte off, or NULL
 * (padding). Bitfield members are skipped (a load of one reads the scalar bytes). */
static const struct btf_member *member_at(const struct btf_type *t, uint32_t off, uint32_t *moff)
{
	const struct btf_member *m = btf_members(t);
	const struct btf_member *found = NULL;
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		if (btf_member_bitfield_size(t, i))
			continue;
		uint32_t mo = btf_member_bit_offset(t, i) / 8;
		if (mo <= off) { /* the last one starting at or before off (unions: the first) */
			if (!found || mo > *moff) {
				found = m;
				*moff = mo;
			}
		}
	}
	return found;
}

static int64_t type_size(const struct btf *btf, uint32_t id)
{
	return btf__resolve_size(btf, id);
}

/* btf_struct_ids_match: does a pointer to struct id at fixed offset off match struct
 * need? Non-strict: an object also matches the type of its first member (recursively)
 * and &obj->member matches the member's type. */
bool kfunc_struct_ids_match(const struct btf *btf, uint32_t id, int32_t off, uint32_t need, bool strict)
{
	for (int depth = 0; depth < 32; depth++) {
		const struct btf_type *t = vbtf_skip_mods(btf, id, &id);
		if (off == 0 && id == need)
			return true;
		if (strict || off < 0 || !is_struct(t) || (uint32_t)off >= t->size)
			return false;
		uint32_t moff = 0;
		const struct btf_member *m = member_at(t, (uint32_t)off, &moff);
		if (!m)
			return false;
		uint32_t mid;
		const struct btf_type *mt = vbtf_skip_mods(btf, m->type, &mid);
		if (!is_struct(mt) || (int64_t)off - moff >= (int64_t)mt->size)
			return false;
		off -= (int32_t)moff;
		id = mid;
	}
	return false;
}

/* __btf_type_is_scalar_struct */
static bool scalar_struct(struct env *env, const struct btf *btf, const struct btf_type *t, int rec)
{
	if (!is_struct(t))
		return false;
	const struct btf_member *m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const struct btf_type *mt = vbtf_skip_mods(btf, m->type, NULL);
		if (is_struct(mt)) {
			if (rec >= 3) {
				vlog(env, "max struct nesting depth exceeded\n");
				return false;
			}
			if (!scalar_struct(env, btf, mt, rec + 1))
				return false;
			continue;
		}
		if (btf_is_array(mt)) {
			const struct btf_array *a = btf_array(mt);
			if (!a->nelems)
				return false;
			mt = vbtf_skip_mods(btf, a->type, NULL);
		}
		if (!is_scalar(mt))
			return false;
	}
	return true;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n > k && !strcmp(s + n - k, suffix);
}

static const char *param_name(const struct btf *btf, const struct btf_param *p)
{
	const char *n = btf__name_by_offset(btf, p->name_off);
	return n ? n : "";
}

/* Linux's reg2btf_ids: the struct a socket pointer points to (in the host's BTF). */
static uint32_t sock_btf_id(const struct kbpf_host *host, uint32_t type)
{
	const char *name;
	switch (type) {
	case KBPF_PTR_TO_SOCKET: name = "sock"; break;
	case KBPF_PTR_TO_SOCK_COMMON: name = "sock_common"; break;
	case KBPF_PTR_TO_TCP_SOCK: name = "tcp_sock"; break;
	default: return 0;
	}
	int id = kbpf_host_btf_find(host, name, BTF_KIND_STRUCT);
	return id > 0 ? (uint32_t)id : 0;
}

static bool is_sock_type(uint32_t type)
{
	uint32_t b = KBPF_REG_BASE(type);
	return b == KBPF_PTR_TO_SOCKET || b == KBPF_PTR_TO_SOCK_COMMON || b == KBPF_PTR_TO_TCP_SOCK;
}

/* check_func_arg_reg_off + __check_ptr_off_reg for a kfunc argument. */
static int arg_reg_off(struct env *env, const struct reg *r, int regno, bool release)
{
	bool fixed_off_ok = false;
	switch (r->type) {
	case KBPF_PTR_TO_STACK:
	case KBPF_PTR_TO_PACKET:
	case KBPF_PTR_TO_PACKET_META:
	case KBPF_PTR_TO_MAP_KEY:
	case KBPF_PTR_TO_MAP_VALUE:
	case KBPF_PTR_TO_MEM:
	case KBPF_PTR_TO_MEM | KBPF_MEM_RDONLY:
	case KBPF_PTR_TO_MEM | KBPF_MEM_ALLOC:
	case KBPF_SCALAR_VALUE:
		return 0;
	case KBPF_PTR_TO_BTF_ID:
		if (release && r->off) {
			vlog(env, "R%d must have zero offset when passed to release func or trusted arg to kfunc\n",
			     regno);
			return -EINVAL;
		}
		fixed_off_ok = true;
		break;
	default:
		break;
	}
	if (r->off < 0 && r->btf_walked) {
		/* a walked pointer is Linux's plain ptr_ (kbpf adds maybe-NULL): named so in
		 * the negative offset message, the first check_ptr_off_reg_fixed makes */
		struct reg plain = *r;
		plain.type &= ~KBPF_PTR_MAYBE_NULL;
		return check_ptr_off_reg_fixed(env, &plain, regno, fixed_off_ok);
	}
	return check_ptr_off_reg_fixed(env, r, regno, fixed_off_ok);
}

/* check_mem_reg / check_kfunc_mem_size_reg: a maybe-NULL pointer is checked as if it
 * were not NULL (the kfunc must tolerate NULL memory). */
static int mem_arg(struct env *env, int regno, int size_regno, int size)
{
	struct reg *r = &cur_regs(env)[regno];
	if (size_regno < 0 && r->type == KBPF_SCALAR_VALUE && kbpf_tnum_is_const(r->s.var_off) &&
	    !r->s.var_off.value)
		return 0; /* NULL */
	uint32_t saved = r->type;
	r->type &= ~KBPF_PTR_MAYBE_NULL;
	int err = kfunc_check_mem(env, regno, size_regno, size);
	r->type = saved;
	return err;
}

/* Linux 6.1's KF_KPTR_GET first argument: a map value pointer at a referenced kptr, and
 * the parameter a pointer to a pointer to the kptr's struct (T **). */
static int kptr_get_arg(struct env *env, const struct btf *btf, const char *fname, const struct reg *r,
			const struct btf_type *ref_t)
{
	if (r->type != KBPF_PTR_TO_MAP_VALUE) {
		vlog(env, "arg#0 expected pointer to map value\n");
		return -EINVAL;
	}
	if (!kbpf_tnum_is_const(r->s.var_off)) {
		vlog(env, "arg#0 must have constant offset\n");
		return -EINVAL;
	}
	uint64_t off = (uint64_t)((int64_t)r->off + (int64_t)r->s.var_off.value);
	const struct kbpf_map_kptr *k = off <= UINT32_MAX ? kbpf_map_kptr_at(r->map, (uint32_t)off) : NULL;
	if (!k || !k->referenced) {
		vlog(env, "arg#0 no referenced kptr at map value offset=%llu\n", (unsigned long long)off);
		return -EINVAL;
	}
	if (!btf_is_ptr(ref_t)) {
		vlog(env, "arg#0 BTF type must be a double pointer\n");
		return -EINVAL;
	}
	uint32_t id;
	const struct btf_type *t = vbtf_skip_mods(btf, ref_t->type, &id);
	if (!btf_is_struct(t)) {
		vlog(env, "kernel function %s args#%d pointer type %s %s is not supported\n", fname, 0, vbtf_kind_str(t),
		     vbtf_name(btf, t));
		return -EINVAL;
	}
	if (kbpf_map_kptr_host(r->map) != env->host || !kfunc_struct_ids_match(btf, id, 0, k->btf_id, true)) {
		vlog(env, "kernel function %s args#%d expected pointer to %s %s\n", fname, 0, vbtf_kind_str(t),
		     vbtf_name(btf, t));
		return -EINVAL;
	}
	return 0;
}

struct kfunc_meta {
	uint32_t flags;
	uint32_t r0_size;
	bool r0_rdonly;
	uint32_t ref_obj_id;
	int ref_regno;
};

/* btf_check_kfunc_arg_match: 0, the register to release (> 0), or a negative errno. */
static int check_args(struct env *env, const struct btf *btf, const char *fname, uint32_t func_id,
		      const struct btf_type *proto, struct kfunc_meta *meta)
{
	struct reg *regs = cur_regs(env);
	const struct btf_param *args = btf_params(proto);
	int nargs = btf_vlen(proto);
	bool rel = meta->flags & KBPF_KF_RELEASE, trusted = meta->flags & KBPF_KF_TRUSTED_ARGS;
	const char *ctx_name = env->type->ctx_btf_name;
	int err;

	if (nargs > 5) {
		vlog(env, "Function %s has %d > %d args\n", fname, nargs, 5);
		return -EINVAL;
	}
	for (int i = 0; i < nargs; i++) {
		int regno = i + 1;
		struct reg *r = &regs[regno];
		const struct btf_type *t = vbtf_skip_mods(btf, args[i].type, NULL);
		if (is_scalar(t)) {
			if (r->type != KBPF_SCALAR_VALUE) {
				vlog(env, "R%d is not a scalar\n", regno);
				return -EINVAL;
			}
			const char *pn = param_name(btf, &args[i]);
			bool rdonly = !strcmp(pn, "rdonly_buf_size");
			if (rdonly || !strcmp(pn, "rdwr_buf_size")) {
				if (meta->r0_size) {
					vlog(env, "2 or more rdonly/rdwr_buf_size parameters for kfunc");
					return -EINVAL;
				}
				if (!kbpf_tnum_is_const(r->s.var_off)) {
					vlog(env, "R%d is not a const\n", regno);
					return -EINVAL;
				}
				if (r->s.var_off.value > UINT32_MAX) {
					vlog(env, "R%d rdonly/rdwr_buf_size exceeds u32 max\n", regno);
					return -EINVAL;
				}
				/* 6.1 takes the size as given; a zero-sized buffer is no buffer */
				meta->r0_size = (uint32_t)r->s.var_off.value;
				meta->r0_rdonly = rdonly;
				if ((err = mark_precise(env, regno)))
					return err;
			}
			continue;
		}
		if (!btf_is_ptr(t)) {
			vlog(env, "Unrecognized arg#%d type %s\n", i, vbtf_kind_str(t));
			return -EINVAL;
		}
		/* 6.12: a release or KF_TRUSTED_ARGS kfunc takes no pointer that may be NULL
		 * (NULL itself included) unless its parameter is named *__nullable. A pointer
		 * walked from an object is maybe-NULL only in kbpf: its rule is below. */
		bool maybe_null = (r->type & KBPF_PTR_MAYBE_NULL) && !r->btf_walked;
		bool is_null = r->type == KBPF_SCALAR_VALUE && kbpf_tnum_equals_const(r->s.var_off, 0);
		if ((trusted || rel) && (maybe_null || is_null) && !ends_with(param_name(btf, &args[i]), "__nullable")) {
			vlog(env, "Possibly NULL pointer passed to trusted arg%d\n", i);
			return -EACCES;
		}
		bool obj_ptr = r->type == KBPF_PTR_TO_CTX || r->type == KBPF_PTR_TO_BTF_ID || is_sock_type(r->type);
		/* Linux's PTR_TO_BTF_ID read from an object is kbpf's maybe-NULL one: refused
		 * here for Linux's reason (no reference) before the NULL rule's own message */
		bool walked = r->btf_walked && r->type == (KBPF_PTR_TO_BTF_ID | KBPF_PTR_MAYBE_NULL);
		/* 6.12 (check_kfunc_args): a trusted or released argument may not be NULL,
		 * checked before its type (6.1 went on to the type's message) */
		bool null_const = r->type == KBPF_SCALAR_VALUE && kbpf_tnum_is_const(r->s.var_off) && !r->s.var_off.value;
		if ((trusted || rel) && (null_const || ((r->type & KBPF_PTR_MAYBE_NULL) && !walked))) {
			vlog(env, "Possibly NULL pointer passed to trusted arg%d\n", i);
			return -EACCES;
		}
		uint32_t ref_id;
		const struct btf_type *ref_t = vbtf_skip_mods(btf, t->type, &ref_id);
		const char *ref_tname = vbtf_name(btf, ref_t);
		bool ctx_param = is_struct(ref_t) && ctx_name && !strcmp(ref_tname, ctx_name);
		/* 6.12 (check_kfunc_args, KF_ARG_PTR_TO_BTF_ID): a trusted or released argument
		 * that is a BTF or socket pointer must be is_trusted_reg — referenced, a socket,
		 * or trusted (a struct_ops / tp_btf / LSM argument, the kern ctx cast); not a
		 * fentry/fexit argument, a walked, untrusted or per-CPU pointer, nor a kfunc's
		 * or helper's unreferenced result. A ctx parameter is checked as ctx instead. */
		bool btf_obj = KBPF_REG_BASE(r->type) == KBPF_PTR_TO_BTF_ID || is_sock_type(r->type);
		if ((trusted || rel) && btf_obj && !ctx_param && !reg_is_trusted(r)) {
			vlog(env, "R%d must be referenced or trusted\n", regno);
			return -EINVAL;
		}
		bool strict = (trusted && obj_ptr) || (rel && r->ref_obj_id);
		if ((err = arg_reg_off(env, r, regno, strict)))
			return err;
		if (r->ref_obj_id) {
			if (meta->ref_obj_id) {
				vlog(env, "verifier internal error: more than one arg with ref_obj_id R%d %u %u\n", regno,
				     r->ref_obj_id, meta->ref_obj_id);
				return -EFAULT;
			}
			meta->ref_regno = regno;
			meta->ref_obj_id = r->ref_obj_id;
		}
		if (i == 0 && (meta->flags & KBPF_KF_KPTR_GET)) {
			if ((err = kptr_get_arg(env, btf, fname, r, ref_t)))
				return err;
			/* the other arguments are checked as any kfunc's */
		} else if (ends_with(param_name(btf, &args[i]), "__str")) {
			/* 6.12's KF_ARG_PTR_TO_CONST_STR: before, a `const char *` was one byte of
			 * memory, and the kfunc read a C string past it */
			if ((err = check_const_str(env, regno, i)))
				return err;
		} else if (ctx_param) {
			/* btf_get_prog_ctx_type: the program type's context struct */
			if (r->type != KBPF_PTR_TO_CTX) {
				/* 6.12 names the register's type (6.1: the argument's BTF kind) */
				vlog(env, "arg#%d expected pointer to ctx, but got %s\n", i, reg_type_str(env, r->type));
				return -EINVAL;
			}
		} else if (r->type == KBPF_PTR_TO_BTF_ID || (is_sock_type(r->type) && r->type == KBPF_REG_BASE(r->type))) {
			if (!is_struct(ref_t)) {
				vlog(env, "kernel function %s args#%d pointer type %s %s is not supported\n", fname, i,
				     vbtf_kind_str(ref_t), ref_tname);
				return -EINVAL;
			}
			uint32_t reg_id = r->type == KBPF_PTR_TO_BTF_ID ? r->btf_id : sock_btf_id(env->host, r->type);
			const struct btf_type *reg_t = vbtf_skip_mods(btf, reg_id, &reg_id);
			if (!reg_id || !kfunc_struct_ids_match(btf, reg_id, r->off, ref_id, strict)) {
				vlog(env, "kernel function %s args#%d expected pointer to %s %s but R%d has a pointer to %s %s\n",
				     fname, i, vbtf_kind_str(ref_t), ref_tname, regno, vbtf_kind_str(reg_t), vbtf_name(btf, reg_t));
				return -EINVAL;
			}
		} else if (is_struct(ref_t) && kbpf_host_is_object_type(env->host, ref_tname)) {
			/* a host object type (kbpf_host_object_type_register): only a BTF pointer,
			 * never memory of its size (Linux 6.12's KF_ARG_PTR_TO_BTF_ID text) */
			vlog(env, "arg#%d is %s ", i, reg_type_str(env, r->type));
			vlog(env, "expected %s or socket\n", reg_type_str(env, KBPF_PTR_TO_BTF_ID));
			return -EINVAL;
		} else {
			/* memory: pointer to scalar, scalar-only struct, or (void *, __sz); 6.12's
			 * __szk pairs too, whose size must be a constant (before, the size was a
			 * plain scalar and the pointer one element of memory) */
			const char *next = i + 1 < nargs ? param_name(btf, &args[i + 1]) : "";
			bool szk = ends_with(next, "__szk");
			bool mem_size = i + 1 < nargs && is_scalar(vbtf_skip_mods(btf, args[i + 1].type, NULL)) &&
					(ends_with(next, "__sz") || szk) && regs[regno + 1].type == KBPF_SCALAR_VALUE;
			if (!is_scalar(ref_t) && !scalar_struct(env, btf, ref_t, 0) &&
			    (mem_size ? ref_t != &vbtf_void && !btf_is_void(ref_t) : true)) {
				vlog(env, "arg#%d pointer type %s %s must point to %sscalar, or struct with scalar\n", i,
				     vbtf_kind_str(ref_t), ref_tname, mem_size ? "void, " : "");
				return -EINVAL;
			}
			if (mem_size) {
				if (mem_arg(env, regno, regno + 1, 0)) {
					vlog(env, "arg#%d arg#%d memory, len pair leads to invalid memory access\n", i,
					     i + 1);
					return -EINVAL;
				}
				if (szk && !kbpf_tnum_is_const(regs[regno + 1].s.var_off)) {
					vlog(env, "R%d must be a known constant\n", regno + 1);
					return -EINVAL;
				}
				i++;
				continue;
			}
			int64_t sz = type_size(btf, ref_id);
			if (sz < 0 || sz > INT32_MAX) {
				vlog(env, "arg#%d reference type('%s %s') size cannot be determined: %ld\n", i,
				     vbtf_kind_str(ref_t), ref_tname, (long)(sz < 0 ? sz : -E2BIG));
				return -EINVAL;
			}
			if (mem_arg(env, regno, -1, (int)sz))
				return -EINVAL;
		}
	}
	if (rel && !meta->ref_obj_id) {
		vlog(env, "release kernel function %s expects refcounted PTR_TO_BTF_ID\n", fname);
		return -EINVAL;
	}
	if ((meta->flags & KBPF_KF_SLEEPABLE) && !env->sleepable) {
		vlog(env, "kernel function %s is sleepable but the program is not\n", fname);
		return -EINVAL;
	}
	(void)func_id;
	return rel ? meta->ref_regno : 0;
}

static enum kfunc_cast kfunc_cast_kind(const struct env *env, const struct bpf_insn *insn)
{
	const struct btf *btf = env->host ? kbpf_host_btf(env->host) : NULL;
	if (!btf || insn->code != (BPF_JMP | BPF_CALL) || insn->src_reg != BPF_PSEUDO_KFUNC_CALL || insn->off ||
	    insn->imm <= 0 || (uint32_t)insn->imm >= btf__type_cnt(btf))
		return KFUNC_CAST_NONE;
	const struct btf_type *func = btf__type_by_id(btf, (uint32_t)insn->imm);
	if (!btf_is_func(func))
		return KFUNC_CAST_NONE;
	const struct btf_type *proto = vbtf_type(btf, func->type);
	const char *name = vbtf_name(btf, func);
	if (!btf_is_func_proto(proto) || !btf_is_ptr(vbtf_skip_mods(btf, proto->type, NULL)))
		return KFUNC_CAST_NONE;
	const struct btf_param *args = btf_params(proto);
	int n = btf_vlen(proto);
	if (n < 1 || !btf_is_ptr(vbtf_skip_mods(btf, args[0].type, NULL)))
		return KFUNC_CAST_NONE;
	if (n == 1 && !strcmp(name, "bpf_cast_to_kern_ctx"))
		return KFUNC_CAST_KERN_CTX;
	if (n == 2 && !strcmp(name, "bpf_rdonly_cast") && is_scalar(vbtf_skip_mods(btf, args[1].type, NULL)))
		return KFUNC_RDONLY_CAST;
	return KFUNC_CAST_NONE;
}

/* bpf_cast_to_kern_ctx's argument (6.12: KF_ARG_PTR_TO_CTX, checked after the offset
 * rules) and the struct its result points to (get_kern_ctx_btf_id). */
static int kern_ctx_arg(struct env *env, uint32_t *btf_id)
{
	const struct reg *r = &cur_regs(env)[BPF_REG_1];
	int err = arg_reg_off(env, r, BPF_REG_1, false);
	if (err)
		return err;
	if (r->type != KBPF_PTR_TO_CTX) {
		vlog(env, "arg#%d expected pointer to ctx, but got %s\n", 0, reg_type_str(env, r->type));
		return -EINVAL;
	}
	const char *name = OPTS_GET(env->type, kern_ctx_btf_name, NULL);
	int32_t id = name ? kbpf_host_btf_find(env->host, name, BTF_KIND_STRUCT) : -ENOENT;
	if (id <= 0) {
		/* Linux 6.12's get_kern_ctx_btf_id; kbpf knows a type's run-time context only
		 * if the host names it (kbpf_prog_type.kern_ctx_btf_name) */
		vlog(env, "kern ctx type id %u is not a struct\n", 0u);
		return -EINVAL;
	}
	*btf_id = (uint32_t)id;
	return 0;
}

/* bpf_rdonly_cast's arguments: obj__ign is not checked (any value, Linux's __ign; kbpf
 * asks only that it was written), btf_id__k a known constant, made precise; the type a
 * struct or union of the host BTF. */
static int rdonly_cast_arg(struct env *env, uint32_t *btf_id)
{
	struct reg *regs = cur_regs(env);
	if (regs[BPF_REG_1].type == KBPF_NOT_INIT) {
		vlog(env, "R%d !read_ok\n", BPF_REG_1);
		return -EACCES;
	}
	if (regs[BPF_REG_2].type != KBPF_SCALAR_VALUE) {
		vlog(env, "R%d is not a scalar\n", BPF_REG_2);
		return -EINVAL;
	}
	if (!kbpf_tnum_is_const(regs[BPF_REG_2].s.var_off)) {
		vlog(env, "R%d must be a known constant\n", BPF_REG_2);
		return -EINVAL;
	}
	uint64_t v = regs[BPF_REG_2].s.var_off.value;
	int err = mark_precise(env, BPF_REG_2);
	if (err)
		return err;
	const struct btf *btf = host_btf(env);
	if (!v || v >= btf__type_cnt(btf) || !is_struct(btf__type_by_id(btf, (uint32_t)v))) {
		vlog(env, "kfunc bpf_rdonly_cast type ID argument must be of a struct\n");
		return -EINVAL;
	}
	*btf_id = (uint32_t)v;
	return 0;
}

/* The casts after their checks: R0-R5 clobbered, R0 typed (6.12's check_kfunc_call). */
static int check_cast_call(struct env *env, enum kfunc_cast kind)
{
	uint32_t id = 0;
	int err = kind == KFUNC_CAST_KERN_CTX ? kern_ctx_arg(env, &id) : rdonly_cast_arg(env, &id);
	if (err)
		return err;
	struct reg *regs = cur_regs(env);
	clobber_caller_saved(env, cur_frame(env), true);
	struct reg *r0 = &regs[0];
	reg_mark_unknown(env, r0);
	reg_mark_known(r0, 0);
	/* the context as it is at run time: trusted_ptr_ (valid for the run, read with plain
	 * loads, written only where btf_struct_access allows; kbpf's log prints ptr_);
	 * anything cast read-only: untrusted, never written, read with fault-tolerant loads
	 * (check_btf_access, fixup.c), taken by no helper or kfunc */
	r0->type = kind == KFUNC_CAST_KERN_CTX ? KBPF_PTR_TO_BTF_ID : KBPF_PTR_TO_BTF_ID | KBPF_PTR_UNTRUSTED;
	r0->btf_trusted = kind == KFUNC_CAST_KERN_CTX;
	r0->btf_id = id;
	return 0;
}

int check_kfunc_call(struct env *env, const struct bpf_insn *insn, int insn_idx)
{
	if (!insn->imm)
		return 0; /* rejected after the walk if this path is real (kfunc_fixup_check) */
	const struct btf *btf = host_btf(env);
	if (!btf || insn->off)
		return module_btf(env, insn->off); /* unreachable: Pass A refused these */
	/* bpf_fastcall (fastcall.c): a kfunc may reach the stack through any stack pointer
	 * argument, whatever its BTF type says; each counts as an access from its lowest
	 * byte (more than Linux, which sees only the accesses its checks make) */
	for (int a = BPF_REG_1; a <= BPF_REG_5; a++) {
		const struct reg *r = &cur_regs(env)[a];
		if (r->type == KBPF_PTR_TO_STACK)
			fastcall_stack_access(env, env->cur->frame[r->frameno], (int64_t)r->off + r->s.smin_value);
	}
	uint32_t func_id = (uint32_t)insn->imm;
	const struct btf_type *func = vbtf_type(btf, func_id);
	const struct btf_type *proto = vbtf_type(btf, func->type);
	const char *fname = vbtf_name(btf, func);
	if (!btf_is_func(func) || !btf_is_func_proto(proto)) {
		vlog(env, "BTF of func_id %u doesn't point to KIND_FUNC\n", func_id);
		return -EFAULT;
	}

	struct kbpf_kfunc_prog_info info = {
		.sz = sizeof(info),
		.prog_type = env->type->name,
		.prog_name = env->opts->prog_name,
		.sleepable = env->sleepable,
	};
	struct kfunc_meta meta = { 0 };
	int err = kbpf_host_kfunc_allowed(env->host, &info, func_id, &meta.flags);
	if (err == -ENXIO)
		return err;
	if (err) {
		vlog(env, "calling kernel function %s is not allowed\n", fname);
		return -EACCES;
	}
	if ((meta.flags & KBPF_KF_DESTRUCTIVE) && !(env->caps & KBPF_CAP_SYS_BOOT)) {
		vlog(env, "destructive kfunc calls require CAP_SYS_BOOT capabilities\n");
		return -EACCES;
	}

	enum kfunc_cast cast = env->aux[insn_idx].kfunc_cast;
	if (cast != KFUNC_CAST_NONE)
		return check_cast_call(env, cast);

	int rel = check_args(env, btf, fname, func_id, proto, &meta);
	if (rel < 0)
		return rel;
	struct reg *regs = cur_regs(env);
	if (rel && release_ref(env, regs[rel].ref_obj_id)) {
		vlog(env, "kfunc %s#%d reference has not been acquired before\n", fname, func_id);
		return -EINVAL;
	}
	clobber_caller_saved(env, cur_frame(env), true);

	uint32_t ptr_id;
	const struct btf_type *t = vbtf_skip_mods(btf, proto->type, NULL);
	bool acq = meta.flags & KBPF_KF_ACQUIRE;
	if (acq && !(btf_is_ptr(t) && is_struct(vbtf_skip_mods(btf, t->type, NULL)))) {
		vlog(env, "acquire kernel function does not return PTR_TO_BTF_ID\n");
		return -EINVAL;
	}
	struct reg *r0 = &regs[0];
	if (is_scalar(t)) {
		reg_mark_unknown(env, r0);
	} else if (btf_is_ptr(t)) {
		const struct btf_type *pt = vbtf_skip_mods(btf, t->type, &ptr_id);
		reg_mark_unknown(env, r0);
		reg_mark_known(r0, 0);
		if (!is_struct(pt)) {
			if (!meta.r0_size) {
				vlog(env, "kernel function %s returns pointer type %s %s is not supported\n", fname,
				     vbtf_kind_str(pt), vbtf_name(btf, pt));
				return -EINVAL;
			}
			r0->type = KBPF_PTR_TO_MEM | (meta.r0_rdonly ? KBPF_MEM_RDONLY : 0);
			r0->mem_size = meta.r0_size;
			/* the memory dies with the object it came from */
			r0->ref_obj_id = meta.ref_obj_id;
		} else {
			r0->type = KBPF_PTR_TO_BTF_ID;
			r0->btf_id = ptr_id;
		}
		if (meta.flags & KBPF_KF_RET_NULL) {
			r0->type |= KBPF_PTR_MAYBE_NULL;
			r0->id = ++env->id_gen;
		}
		if (acq) {
			int id = acquire_ref(env, insn_idx);
			if (id < 0)
				return id;
			r0->id = (uint32_t)id;
			r0->ref_obj_id = (uint32_t)id;
		}
	} /* else void: R0 stays NOT_INIT */
	return 0;
}

/* btf_struct_walk for a read: the value type of size bytes at off in struct id. Returns
 * 0 with *ptr_id = 0 for a scalar, or the pointee struct of a pointer member. */
static int struct_walk(struct env *env, const struct btf *btf, uint32_t id, uint32_t off, uint32_t size,
		       uint32_t *ptr_id)
{
	*ptr_id = 0;
	for (int depth = 0; depth < 32; depth++) {
		const struct btf_type *t = vbtf_skip_mods(btf, id, &id);
		const char *sname = vbtf_name(btf, t);
		if (btf_is_array(t)) {
			/* an array member: descend into the element holding off */
			const struct btf_array *a = btf_array(t);
			int64_t esz = type_size(btf, a->type);
			if (esz <= 0)
				return 0;
			if (off / esz < a->nelems) {
				off %= (uint32_t)esz;
				id = a->type;
				continue;
			}
			return 0;
		}
		if (btf_is_ptr(t)) {
			/* an element of an array of pointers */
			if (off || size != 8) {
				vlog(env, "cannot access ptr array element with off %u size %u\n", off, size);
				return -EACCES;
			}
			uint32_t pid;
			if (is_struct(vbtf_skip_mods(btf, t->type, &pid)))
				*ptr_id = pid;
			return 0;
		}
		if (!is_struct(t)) {
			if (depth)
				return 0; /* an element of an array of scalars */
			vlog(env, "Type '%s' is not a struct\n", sname);
			return -EINVAL;
		}
		if ((uint64_t)off + size > t->size) {
			vlog(env, "access beyond struct %s at off %u size %u\n", sname, off, size);
			return -EACCES;
		}
		uint32_t moff = 0;
		const struct btf_member *m = member_at(t, off, &moff);
		if (!m)
			return 0; /* padding, or a bitfield's bytes: a scalar */
		uint32_t mid;
		const struct btf_type *mt = vbtf_skip_mods(btf, m->type, &mid);
		int64_t msz = btf_is_ptr(mt) ? 8 : type_size(btf, mid);
		const char *mname = btf__name_by_offset(btf, m->name_off);
		if (msz < 0 || off >= moff + (uint64_t)msz)
			return 0; /* in a hole after the member */
		if (is_struct(mt) || btf_is_array(mt)) {
			if (off + size > moff + (uint64_t)msz && !btf_is_array(mt))
				return 0; /* straddles members: the bytes are plain data */
			off -= moff;
			id = mid;
			if (btf_is_array(mt) && off + size > (uint64_t)msz)
				return 0;
			continue;
		}
		if (btf_is_ptr(mt)) {
			if (off != moff || size != 8) {
				vlog(env, "cannot access ptr member %s with moff %u in struct %s with off %u size %u\n",
				     mname ? mname : "", moff, sname, off, size);
				return -EACCES;
			}
			uint32_t pid;
			const struct btf_type *pt = vbtf_skip_mods(btf, mt->type, &pid);
			if (is_struct(pt))
				*ptr_id = pid;
			return 0;
		}
		if (off + size > moff + (uint64_t)msz) {
			vlog(env, "access beyond the end of member %s (mend:%u) in struct %s with off %u size %u\n",
			     mname ? mname : "", (unsigned)(moff + msz), sname, off, size);
			return -EACCES;
		}
		return 0;
	}
	return -EINVAL;
}

int btf_struct_read(struct env *env, const struct btf *btf, uint32_t id, uint32_t off, uint32_t size,
		    uint32_t *ptr_id)
{
	return struct_walk(env, btf, id, off, size, ptr_id);
}

int check_btf_access(struct env *env, int regno, int off, int size, bool write, int value_regno)
{
	struct reg *regs = cur_regs(env);
	struct reg *r = &regs[regno];
	const struct btf *btf = host_btf(env);
	if (!btf) {
		vlog(env, "R%d invalid mem access '%s'\n", regno, reg_type_str(env, r->type));
		return -EACCES;
	}
	uint32_t sid;
	const struct btf_type *t = vbtf_skip_mods(btf, r->btf_id, &sid);
	const char *sname = vbtf_name(btf, t);
	char tn[TNUM_STR_MAX];
	/* 6.12's check_ptr_to_btf_access: a host object is read only with CAP_PERFMON (a
	 * cast pointer, bpf_rdonly_cast's, may point anywhere in the host) */
	if (!env->perfmon) {
		vlog(env, "'struct %s' access is allowed only to CAP_PERFMON and CAP_SYS_ADMIN\n", sname);
		return -EPERM;
	}
	if (off < 0) {
		vlog(env, "R%d is ptr_%s invalid negative access: off=%d\n", regno, sname, off);
		return -EACCES;
	}
	if (!kbpf_tnum_is_const(r->s.var_off) || r->s.var_off.value) {
		kbpf_tnum_strn(tn, sizeof(tn), r->s.var_off);
		vlog(env, "R%d is ptr_%s invalid variable offset: off=%d, var_off=%s\n", regno, sname, off, tn);
		return -EACCES;
	}
	bool untrusted = r->type & KBPF_PTR_UNTRUSTED;
	if (write && untrusted) {
		/* Linux lets a type's btf_struct_access allow it; kbpf never writes through a
		 * pointer nothing vouches for */
		vlog(env, "only read is supported\n");
		return -EACCES;
	}
	if (write) {
		const struct kbpf_prog_type *pt = env->type;
		char msg[160] = "";
		int err = -EACCES;
		if (OPTS_HAS(pt, btf_struct_access) && pt->btf_struct_access)
			err = pt->btf_struct_access(pt, sid, off, size, msg, sizeof(msg));
		if (err) {
			vlog(env, "%s\n", msg[0] ? msg : "only read is supported");
			return err < 0 ? err : -EACCES;
		}
		if (value_regno >= 0 && regs[value_regno].type != KBPF_SCALAR_VALUE) {
			/* a host pointer stored into a host struct would let the program
			 * hand out addresses; Linux's hooks only allow scalar fields */
			vlog(env, "R%d leaks addr into ptr_%s\n", value_regno, sname);
			return -EACCES;
		}
		return 0;
	}
	uint32_t ptr_id;
	int err = struct_walk(env, btf, sid, (uint32_t)off, (uint32_t)size, &ptr_id);
	if (err)
		return err;
	if (untrusted) {
		if (BPF_MODE(env->insns[env->insn_idx].code) == BPF_MEMSX) {
			/* its fault-tolerant load (KBPF_PROBE_MEM) has no sign-extending form */
			vlog(env, "sign-extending loads through untrusted pointers are not supported\n");
			return -EACCES;
		}
		kptr_note_untrusted_load(env, env->insn_idx);
	}
	if (value_regno < 0)
		return 0;
	struct reg *d = &regs[value_regno];
	reg_mark_unknown(env, d);
	if (ptr_id && untrusted) {
		/* Linux: PTR_UNTRUSTED is inherited, and such a pointer is never NULL-checked
		 * (its loads would be fault-tolerant) */
		reg_mark_known(d, 0);
		d->type = KBPF_PTR_TO_BTF_ID | KBPF_PTR_UNTRUSTED;
		d->btf_id = ptr_id;
	} else if (ptr_id) {
		/* Stricter than Linux: the pointer is read with a plain load later, so it
		 * may be NULL (or stale) until the program checks it. */
		reg_mark_known(d, 0);
		d->type = KBPF_PTR_TO_BTF_ID | KBPF_PTR_MAYBE_NULL;
		d->btf_id = ptr_id;
		d->id = ++env->id_gen;
		d->btf_walked = true;
	}
	return 0;
}
