/* SPDX-License-Identifier: Apache-2.0 */
/* BTF func_info and global functions (Linux 6.1 check_btf_func, btf_prepare_func_args,
 * btf_check_subprog_call): the program's own BTF names each subprogram's FUNC. A global
 * function (BTF_FUNC_GLOBAL) is verified once, on its own, for any arguments its
 * prototype allows; a call to it only checks the caller's registers against that
 * prototype and returns an unknown scalar. Static functions stay verified per call. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include <linux/btf.h>
#include "verifier/env.h"
#include "verifier/vbtf.h"
#include "verifier/kfunc.h"
#include "opts.h"

static bool is_scalar(const struct btf_type *t)
{
	return t != &vbtf_void && (btf_is_int(t) || btf_is_enum(t) || btf_is_enum64(t));
}

/* btf_type_is_small_int or an enum: what LD_ABS and tail-call subprogs must return. */
static bool is_scalar_return(const struct btf_type *t)
{
	if (t == &vbtf_void)
		return false;
	if (btf_is_enum(t) || btf_is_enum64(t))
		return true;
	return btf_is_int(t) && btf_int_offset(t) == 0 && btf_int_bits(t) <= 64;
}

/* The subprogram's FUNC_PROTO, or NULL. */
static const struct btf_type *proto_of(struct env *env, int sub, const char **fname)
{
	const struct btf_type *f = vbtf_type(env->prog_btf, env->sub[sub].btf_id);
	*fname = vbtf_name(env->prog_btf, f);
	if (f == &vbtf_void || !btf_is_func(f))
		return NULL;
	const struct btf_type *p = vbtf_type(env->prog_btf, f->type);
	return p != &vbtf_void && btf_is_func_proto(p) ? p : NULL;
}

/* The subprogram's name in the program's BTF, as 6.12's messages quote it
 * ("Func#1 ('foo') ..."). */
const char *subprog_name(struct env *env, int sub)
{
	const char *fname;
	proto_of(env, sub, &fname);
	return fname ? fname : "";
}

/* btf_get_prog_ctx_type: a pointer to the program type's context struct. */
static bool is_ctx_ptr(struct env *env, const struct btf_type *ptr)
{
	const struct btf_type *t = vbtf_skip_mods(env->prog_btf, ptr->type, NULL);
	const char *ctx = env->type->ctx_btf_name;
	if (!ctx || t == &vbtf_void || !(btf_is_struct(t) || btf_is_union(t)))
		return false;
	return !strcmp(vbtf_name(env->prog_btf, t), ctx);
}

/* Linux 6.8+'s argument tags (bpf_helpers.h's __arg_ctx, __arg_nonnull, …): BTF decl tags
 * "arg:TAG" on a global function's argument arg, collected as 6.12's
 * btf_prepare_func_args collects them. Returns 0 with the tags, or -EOPNOTSUPP (logged). */
enum { ARG_TAG_CTX = 1, ARG_TAG_NONNULL = 2, ARG_TAG_TRUSTED = 4, ARG_TAG_NULLABLE = 8, ARG_TAG_ARENA = 16 };

/* The tags of each of the function's (at most 5) arguments, one pass over the BTF: a
 * call is checked at every visit, and the BTF may hold thousands of types. */
static void collect_arg_tags(struct env *env, struct subprog *s)
{
	static const struct {
		const char *name;
		unsigned bit;
	} known[] = { { "ctx", ARG_TAG_CTX },
		      { "nonnull", ARG_TAG_NONNULL },
		      { "trusted", ARG_TAG_TRUSTED },
		      { "nullable", ARG_TAG_NULLABLE },
		      { "arena", ARG_TAG_ARENA } };
	const struct btf *btf = env->prog_btf;
	uint32_t n = btf ? btf__type_cnt(btf) : 0;
	int nargs = (int)(sizeof(s->arg_tags) / sizeof(s->arg_tags[0]));

	s->arg_tags_known = true;
	for (uint32_t id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		if (!btf_is_decl_tag(t) || t->type != s->btf_id)
			continue;
		int arg = btf_decl_tag(t)->component_idx;
		const char *tag = btf__name_by_offset(btf, t->name_off);
		if (arg < 0 || arg >= nargs || !tag || strncmp(tag, "arg:", 4))
			continue;
		size_t k = 0;
		while (k < sizeof(known) / sizeof(known[0]) && strcmp(tag + 4, known[k].name))
			k++;
		if (k == sizeof(known) / sizeof(known[0]))
			s->arg_tags_bad |= (uint8_t)(1u << arg);
		else
			s->arg_tags[arg] |= (uint8_t)known[k].bit;
	}
}

static int arg_tags(struct env *env, int sub, int arg, unsigned *tags)
{
	struct subprog *s = &env->sub[sub];

	if (!s->arg_tags_known)
		collect_arg_tags(env, s);
	if (s->arg_tags_bad & (1u << arg)) {
		vlog(env, "arg#%d has unsupported set of tags\n", arg);
		return -EOPNOTSUPP;
	}
	*tags = s->arg_tags[arg];
	return 0;
}

/* 6.12's btf_get_ptr_to_btf_id for arg:trusted: the host struct the argument points to,
 * the one of the pointee's kind and name, without a CO-RE "___flavor" suffix (6.12 asks
 * CO-RE's candidate search for exactly one). kbpf's BTF pointers point to structs and
 * unions only. 0 and *id, or -ENOENT / -EINVAL (logged). */
static int trusted_btf_id(struct env *env, int arg, const struct btf_type *ptr, uint32_t *id)
{
	const struct btf_type *t = vbtf_skip_mods(env->prog_btf, ptr->type, NULL);
	const char *name = vbtf_name(env->prog_btf, t);
	if (t == &vbtf_void || !name[0]) {
		/* 6.12: CO-RE's candidate search refuses a type without a name */
		vlog(env, "arg#%d reference type('%s %s') candidate matching error: %d\n", arg, vbtf_kind_str(t), name,
		     -EINVAL);
		return -EINVAL;
	}
	if (!(btf_is_struct(t) || btf_is_union(t))) {
		vlog(env, "arg#%d reference type('%s %s') is not a struct or union\n", arg, vbtf_kind_str(t), name);
		return -EINVAL;
	}
	const char *flavor = strstr(name, "___");
	char want[128];
	snprintf(want, sizeof(want), "%.*s", (int)(flavor ? (size_t)(flavor - name) : strlen(name)), name);
	int32_t hid = env->host && kbpf_host_btf(env->host) ? kbpf_host_btf_find(env->host, want, btf_kind(t)) : -ENOENT;
	if (hid <= 0) {
		vlog(env, "arg#%d reference type('%s %s') has no matches\n", arg, vbtf_kind_str(t), name);
		return -ENOENT;
	}
	*id = (uint32_t)hid;
	return 0;
}

/* The caller's side of arg:trusted (6.12's check_reg_type with ARG_PTR_TO_BTF_ID |
 * PTR_TRUSTED, then check_func_arg_reg_off): a BTF pointer of the struct (or one that
 * begins with it, or a member of that type at a fixed offset), NULL or maybe-NULL only
 * with arg:nullable. Stricter than 6.12, which takes its plain ptr_ too: untrusted ones
 * (a loaded kptr, bpf_rdonly_cast's result) are refused (the callee reads through it
 * with plain loads), and so are plain ones (a fentry argument, a pointer walked from an
 * object, a kfunc's unreferenced result): the argument is trusted inside the function,
 * so taking them would launder them into trusted pointers. 6.12's reason for such a
 * pointer at a trusted kfunc argument: "R%d must be referenced or trusted". */
static int trusted_arg_match(struct env *env, int arg, const struct reg *r, int regno, const struct btf_type *ptr,
			     unsigned tags)
{
	bool nullable = tags & ARG_TAG_NULLABLE;
	uint32_t need;
	if (nullable && r->type == KBPF_SCALAR_VALUE && kbpf_tnum_equals_const(r->s.var_off, 0))
		return 0;
	int err = trusted_btf_id(env, arg, ptr, &need);
	if (err)
		return err;
	uint32_t type = nullable ? r->type & ~KBPF_PTR_MAYBE_NULL : r->type;
	if (type != KBPF_PTR_TO_BTF_ID) {
		vlog(env, "R%d type=%s expected=", regno, reg_type_str(env, r->type));
		vlog(env, "%s, ", reg_type_str(env, KBPF_PTR_TO_BTF_ID));
		vlog(env, "%s, rcu_ptr_\n", reg_type_str(env, KBPF_PTR_TO_BTF_ID | KBPF_PTR_TRUSTED));
		return -EACCES;
	}
	const struct btf *hb = kbpf_host_btf(env->host);
	if (!kfunc_struct_ids_match(hb, r->btf_id, r->off, need, false)) {
		vlog(env, "R%d is of type %s but ", regno, vbtf_name(hb, vbtf_type(hb, r->btf_id)));
		vlog(env, "%s is expected\n", vbtf_name(hb, vbtf_type(hb, need)));
		return -EACCES;
	}
	struct reg plain = *r; /* arg:nullable: trusted once not NULL */
	plain.type = type;
	if (!reg_is_trusted(&plain)) {
		vlog(env, "R%d must be referenced or trusted\n", regno);
		return -EACCES;
	}
	return check_ptr_off_reg_fixed(env, r, regno, true);
}

bool subprog_is_global(const struct env *env, int sub)
{
	return env->has_func_info && sub > 0 && sub < env->nr_sub && env->sub[sub].linkage == BTF_FUNC_GLOBAL;
}

/* Linux's check_abnormal_return: without BTF, subprogs may not end a program. */
static int check_abnormal_return(struct env *env)
{
	for (int s = 1; s < env->nr_sub; s++) {
		if (env->sub[s].has_ld_abs) {
			vlog(env, "LD_ABS is not allowed in subprogs without BTF\n");
			return -EINVAL;
		}
		if (env->sub[s].has_tail_call) {
			vlog(env, "tail_call is not allowed in subprogs without BTF\n");
			return -EINVAL;
		}
	}
	return 0;
}

/* check_btf_func: one record per subprogram, in order, each naming a FUNC. */
int check_btf_func(struct env *env)
{
	const struct kbpf_verify_opts *o = env->opts;
	bool has = OPTS_HAS(o, nr_func_info) &&
		   o->nr_func_info && o->func_info;
	if (!has)
		return check_abnormal_return(env);
	if (!o->prog_btf) {
		vlog(env, "invalid btf\n");
		return -EINVAL;
	}
	env->prog_btf = o->prog_btf;
	if (o->nr_func_info != (uint32_t)env->nr_sub) {
		vlog(env, "number of funcs in func_info doesn't match number of subprogs\n");
		return -EINVAL;
	}
	uint32_t prev = 0;
	for (int i = 0; i < env->nr_sub; i++) {
		const struct bpf_func_info *fi = &o->func_info[i];
		if (i == 0 && fi->insn_off) {
			vlog(env, "nonzero insn_off %u for the first func info record\n", fi->insn_off);
			return -EINVAL;
		}
		if (i && fi->insn_off <= prev) {
			vlog(env, "same or smaller insn offset (%u) than previous func info record (%u)\n", fi->insn_off,
			     prev);
			return -EINVAL;
		}
		prev = fi->insn_off;
		if ((uint32_t)env->sub[i].start != fi->insn_off) {
			vlog(env, "func_info BTF section doesn't match subprog layout in BPF program\n");
			return -EINVAL;
		}
		const struct btf_type *t = vbtf_type(env->prog_btf, fi->type_id);
		if (t == &vbtf_void || !btf_is_func(t)) {
			vlog(env, "invalid type id %d in func info\n", fi->type_id);
			return -EINVAL;
		}
		env->sub[i].btf_id = fi->type_id;
		env->sub[i].linkage = (uint8_t)btf_vlen(t);
		const struct btf_type *p = vbtf_type(env->prog_btf, t->type);
		if (p == &vbtf_void || !btf_is_func_proto(p)) {
			/* 6.1 only warns (a FUNC always names a FUNC_PROTO in a BTF it loaded) */
			vlog(env, "invalid type id %d in func info\n", fi->type_id);
			return -EINVAL;
		}
		bool scalar_ret = is_scalar_return(vbtf_skip_mods(env->prog_btf, p->type, NULL));
		if (i && !scalar_ret && env->sub[i].has_ld_abs) {
			vlog(env, "LD_ABS is only allowed in functions that return 'int'.\n");
			return -EINVAL;
		}
		if (i && !scalar_ret && env->sub[i].has_tail_call) {
			vlog(env, "tail_call is only allowed in functions that return 'int'.\n");
			return -EINVAL;
		}
	}
	env->has_func_info = true;
	return 0;
}

/* btf_prepare_func_args: the registers a global function starts with. */
int global_func_args(struct env *env, int sub, struct reg *regs)
{
	const char *fname;
	if (!env->sub[sub].btf_id) {
		vlog(env, "Global functions need valid BTF\n");
		return -EFAULT;
	}
	const struct btf_type *p = proto_of(env, sub, &fname);
	if (env->level & (KBPF_LOG_LEVEL1 | KBPF_LOG_LEVEL2))
		vlog(env, "Validating %s() func#%d...\n", fname, sub);
	if (env->sub[sub].unreliable) {
		vlog(env, "Verifier bug in function %s()\n", fname);
		return -EFAULT;
	}
	if (!p) {
		vlog(env, "Invalid type of function %s()\n", fname);
		return -EFAULT;
	}
	const struct btf_param *args = btf_params(p);
	int nargs = btf_vlen(p);
	if (nargs > 5) {
		vlog(env, "Global function %s() with %d > %d args. Buggy compiler.\n", fname, nargs, 5);
		return -EINVAL;
	}
	if (!is_scalar(vbtf_skip_mods(env->prog_btf, p->type, NULL))) {
		vlog(env, "Global function %s() doesn't return scalar. Only those are supported.\n", fname);
		return -EINVAL;
	}
	for (int i = 0; i < nargs; i++) {
		struct reg *r = &regs[i + 1];
		const struct btf_type *t = vbtf_skip_mods(env->prog_btf, args[i].type, NULL);
		unsigned tags;
		int err = arg_tags(env, sub, i, &tags);
		if (err)
			return err;
		if (tags && (t == &vbtf_void || !btf_is_ptr(t))) {
			vlog(env, "arg#%d has pointer tag, but is not a pointer type\n", i);
			return -EINVAL;
		}
		if (is_scalar(t)) {
			r->type = KBPF_SCALAR_VALUE;
			reg_mark_unknown(env, r);
			continue;
		}
		if (t != &vbtf_void && btf_is_ptr(t)) {
			if ((tags & ARG_TAG_CTX) || is_ctx_ptr(env, t)) {
				if (tags & ~ARG_TAG_CTX) {
					vlog(env, "arg#%d has invalid combination of tags\n", i);
					return -EINVAL;
				}
				r->type = KBPF_PTR_TO_CTX;
				reg_mark_known(r, 0);
				continue;
			}
			if (tags & ARG_TAG_TRUSTED) {
				/* 6.12: a trusted pointer to the host struct of the pointee's
				 * name, never NULL unless arg:nullable */
				uint32_t hid;
				if (tags & ARG_TAG_NONNULL) {
					vlog(env, "arg#%d has invalid combination of tags\n", i);
					return -EINVAL;
				}
				if ((err = trusted_btf_id(env, i, t, &hid)))
					return err;
				r->type = KBPF_PTR_TO_BTF_ID | ((tags & ARG_TAG_NULLABLE) ? KBPF_PTR_MAYBE_NULL : 0);
				reg_mark_known(r, 0);
				r->btf_trusted = true;
				r->btf_id = hid;
				r->id = ++env->id_gen;
				continue;
			}
			/* kbpf has no arenas: refused, never taken for plain memory */
			if (tags & ARG_TAG_ARENA) {
				vlog(env, "arg#%d: arg:arena is not supported by kbpf (no arenas)\n", i);
				return -EOPNOTSUPP;
			}
			if (tags & ARG_TAG_NULLABLE) {
				vlog(env, "arg#%d has invalid combination of tags\n", i);
				return -EINVAL;
			}
			uint32_t ref_id;
			const struct btf_type *ref_t = vbtf_skip_mods(env->prog_btf, t->type, &ref_id);
			long long size = ref_id ? btf__resolve_size(env->prog_btf, ref_id) : -EINVAL;
			if (size < 0) {
				vlog(env, "arg#%d reference type('%s %s') size cannot be determined: %lld\n", i,
				     vbtf_kind_str(ref_t), vbtf_name(env->prog_btf, ref_t), size);
				return -EINVAL;
			}
			/* memory of the pointee's size, or NULL: the function must check
			 * (arg:nonnull: never NULL, every caller is checked for it) */
			r->type = KBPF_PTR_TO_MEM | ((tags & ARG_TAG_NONNULL) ? 0 : KBPF_PTR_MAYBE_NULL);
			reg_mark_known(r, 0);
			r->mem_size = (uint32_t)size;
			if (!(tags & ARG_TAG_NONNULL))
				r->id = ++env->id_gen;
			continue;
		}
		vlog(env, "Arg#%d type %s in %s() is not supported yet.\n", i, vbtf_kind_str(t), fname);
		return -EINVAL;
	}
	return 0;
}

/* The fixed offset rule of check_func_arg_reg_off for an argument of no helper type. */
static int arg_off_ok(struct env *env, const struct reg *r, int regno)
{
	switch (KBPF_REG_BASE(r->type)) {
	case KBPF_PTR_TO_STACK:
	case KBPF_PTR_TO_PACKET:
	case KBPF_PTR_TO_PACKET_META:
	case KBPF_PTR_TO_MAP_KEY:
	case KBPF_PTR_TO_MAP_VALUE:
	case KBPF_PTR_TO_MEM:
	case KBPF_PTR_TO_BUF:
	case KBPF_SCALAR_VALUE:
		return 0;
	default:
		return check_ptr_off_reg(env, r, regno);
	}
}

/* btf_check_subprog_call for a global function: the caller's R1-R5 against the
 * prototype. Returns 0, -EINVAL (mismatch, logged) or -EFAULT. */
int check_global_call(struct env *env, int sub, const struct reg *regs)
{
	const char *fname;
	if (!env->sub[sub].btf_id)
		return -EFAULT;
	if (env->sub[sub].unreliable)
		return -EINVAL;
	const struct btf_type *p = proto_of(env, sub, &fname);
	if (!p) {
		vlog(env, "Invalid BTF of func %s\n", fname);
		return -EFAULT;
	}
	const struct btf_param *args = btf_params(p);
	int nargs = btf_vlen(p), err = 0;
	if (nargs > 5) {
		vlog(env, "Function %s has %d > %d args\n", fname, nargs, 5);
		err = -EINVAL;
		goto out;
	}
	for (int i = 0; i < nargs && !err; i++) {
		int regno = i + 1;
		const struct reg *r = &regs[regno];
		const struct btf_type *t = vbtf_skip_mods(env->prog_btf, args[i].type, NULL);
		if (is_scalar(t)) {
			if (r->type != KBPF_SCALAR_VALUE) {
				vlog(env, "R%d is not a scalar\n", regno);
				err = -EINVAL;
			}
			continue;
		}
		if (t == &vbtf_void || !btf_is_ptr(t)) {
			vlog(env, "Unrecognized arg#%d type %s\n", i, vbtf_kind_str(t));
			err = -EINVAL;
			continue;
		}
		unsigned tags;
		if ((err = arg_tags(env, sub, i, &tags)))
			continue;
		if ((tags & ARG_TAG_TRUSTED) && !(tags & ARG_TAG_CTX) && !is_ctx_ptr(env, t)) {
			err = trusted_arg_match(env, i, r, regno, t, tags);
			continue;
		}
		if ((err = arg_off_ok(env, r, regno)))
			continue;
		if ((tags & ARG_TAG_CTX) || is_ctx_ptr(env, t)) {
			if (r->type != KBPF_PTR_TO_CTX) {
				vlog(env, "arg#%d expected pointer to ctx, but got %s\n", i, vbtf_kind_str(t));
				err = -EINVAL;
			}
			continue;
		}
		uint32_t ref_id;
		const struct btf_type *ref_t = vbtf_skip_mods(env->prog_btf, t->type, &ref_id);
		long long size = ref_id ? btf__resolve_size(env->prog_btf, ref_id) : -EINVAL;
		if (size < 0) {
			vlog(env, "arg#%d reference type('%s %s') size cannot be determined: %lld\n", i, vbtf_kind_str(ref_t),
			     vbtf_name(env->prog_btf, ref_t), size);
			err = -EINVAL;
			continue;
		}
		/* check_mem_reg: NULL passes; else size bytes readable and writable, with a
		 * maybe-null pointer taken as not null for the check */
		struct reg *cr = &cur_regs(env)[regno];
		/* arg:nonnull: the function dereferences it unchecked. 6.12 lets a NULL
		 * constant through check_mem_reg here; kbpf refuses it with the message 6.12
		 * gives a maybe-NULL pointer (the NULL would be dereferenced in the host) */
		if ((tags & ARG_TAG_NONNULL) &&
		    ((cr->type & KBPF_PTR_MAYBE_NULL) ||
		     (cr->type == KBPF_SCALAR_VALUE && kbpf_tnum_equals_const(cr->s.var_off, 0)))) {
			vlog(env, "arg#%d is expected to be non-NULL\n", i);
			err = -EINVAL;
			continue;
		}
		if (cr->type == KBPF_SCALAR_VALUE && kbpf_tnum_equals_const(cr->s.var_off, 0))
			continue;
		/* A packet pointer as plain memory: the function may write it (it is
		 * verified for any writable bytes), so only where the program may write its
		 * packet; and inside a function that changes packet data it would outlive
		 * the change (as plain memory, nothing invalidates it). Linux 6.13+ refuses
		 * both (6.12 let them through: a write into a read-only packet, a stale
		 * pointer after bpf_skb_change_head / bpf_xdp_adjust_head). */
		uint32_t base = KBPF_REG_BASE(cr->type);
		if (base == KBPF_PTR_TO_PACKET || base == KBPF_PTR_TO_PACKET_META) {
			if (env->type->direct_packet_access != KBPF_PKT_ACCESS_RW) {
				vlog(env, "function access to the packet is not allowed (arg#%d)\n", i);
				err = -EACCES;
				continue;
			}
			if (env->sub[sub].changes_pkt_data) {
				vlog(env, "arg#%d is a packet pointer, but func#%d may change packet data\n", i, sub);
				err = -EINVAL;
				continue;
			}
		}
		uint32_t saved = cr->type;
		cr->type &= ~KBPF_PTR_MAYBE_NULL;
		if (kfunc_check_mem(env, regno, -1, (int)size))
			err = -EINVAL;
		cr->type = saved;
	}
out:
	if (err)
		env->sub[sub].unreliable = true;
	return err;
}
