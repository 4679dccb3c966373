/* SPDX-License-Identifier: Apache-2.0 */
/* BTF-typed contexts (kbpf_verify_opts.attach_btf_id): the context of a struct_ops (or
 * tracing-style) program is the u64 array of a host function prototype's arguments, and
 * each 8-byte slot is typed by its argument, as Linux 6.1's bpf_tracing_btf_ctx_access +
 * btf_ctx_access type it, with Linux's messages. The program type may then adjust the
 * result per argument (ctx_arg_access: bpf_tcp_ca_is_valid_access's sock -> tcp_sock).
 *
 * Where kbpf differs (because its loads are plain loads, not PROBE_MEM): Linux 6.1 types
 * a narrower read of a pointer argument (a 4-byte load of slot 0, say) as the pointer
 * although the register then holds a truncated value; kbpf gives it the same type and
 * makes it true: the load is rewritten into the whole 8-byte load (a ctx conversion),
 * so the register holds the pointer it is typed as. Pointers tagged __user/__percpu read
 * as scalars (kbpf has no such memory to reach through them).
 *
 * Trust (Linux 6.12's btf_ctx_access + prog_args_trusted): a struct pointer argument is
 * PTR_TRUSTED (KBPF_PTR_TRUSTED, reg.btf_trusted) for struct_ops, tp_btf, iterators and
 * LSM hooks but 6.12's untrusted ones, plain for fentry/fexit/fmod_ret; a parameter
 * named *__nullable is maybe-NULL. */
#include <errno.h>
#include <string.h>
#include <bpf/btf.h>
#include "verifier/env.h"
#include "verifier/vbtf.h"
#include "opts.h"

/* Linux's MAX_BPF_FUNC_ARGS: the context never extends beyond 12 slots. */
#define CTX_MAX_ARGS 12

static const struct btf *ctx_btf(const struct env *env)
{
	return env->host ? kbpf_host_btf(env->host) : NULL;
}

/* Bytes an argument (or the return) takes in the context: a pointer one slot, anything
 * else its size rounded up to slots (Linux's get_ctx_arg_idx; structs by value span
 * several). */
static uint32_t slot_bytes(const struct btf *btf, uint32_t type_id)
{
	const struct btf_type *t = vbtf_skip_mods(btf, type_id, NULL);
	if (t == &vbtf_void)
		return 0;
	if (btf_is_ptr(t))
		return 8;
	uint64_t sz = btf_is_int(t) || btf_is_enum(t) || btf_is_enum64(t) || btf_is_composite(t) || btf_is_float(t)
			      ? t->size
			      : 8;
	return (uint32_t)((sz + 7) & ~7ull);
}

/* get_ctx_arg_idx: the argument slot off falls in; nargs for the return value's slot,
 * nargs + 1 beyond. */
static uint32_t ctx_arg_idx(const struct btf *btf, const struct btf_type *proto, int off)
{
	const struct btf_param *args = btf_params(proto);
	uint32_t nargs = btf_vlen(proto);
	uint64_t end = 0;
	for (uint32_t i = 0; i < nargs; i++) {
		end += slot_bytes(btf, args[i].type);
		if ((uint64_t)off < end)
			return i;
	}
	end += slot_bytes(btf, proto->type);
	return (uint64_t)off < end ? nargs : nargs + 1;
}

int btf_ctx_init(struct env *env)
{
	const struct kbpf_verify_opts *o = env->opts;
	bool has = OPTS_HAS(o, attach_member);
	uint32_t id = has ? o->attach_btf_id : 0;

	env->attach_member = has ? o->attach_member : NULL;
	if (env->type && env->type->has_ret_range)
		env->ret = (struct kbpf_attach_ret){ .has_range = 1, .min = env->type->ret_min, .max = env->type->ret_max };
	if (!id)
		return 0;
	const struct btf *btf = ctx_btf(env);
	if (!btf) {
		vlog(env, "attach_btf_id %u: the host has no BTF\n", id);
		return -EINVAL;
	}
	if (id >= btf__type_cnt(btf)) {
		vlog(env, "attach_btf_id %u is invalid\n", id);
		return -EINVAL;
	}
	/* a FUNC_PROTO, a FUNC, or a pointer (a function-pointer member's type) to either */
	const char *fname = NULL;
	uint32_t pid;
	const struct btf_type *t = vbtf_skip_mods(btf, id, &pid);
	if (btf_is_ptr(t))
		t = vbtf_skip_mods(btf, t->type, &pid);
	if (btf_is_func(t)) {
		fname = vbtf_name(btf, t);
		t = vbtf_skip_mods(btf, t->type, &pid);
	}
	if (t == &vbtf_void || !btf_is_func_proto(t)) {
		vlog(env, "attach_btf_id %u is not a function\n", id);
		return -EINVAL;
	}
	uint64_t size = 0;
	const struct btf_param *args = btf_params(t);
	for (uint16_t i = 0; i < btf_vlen(t); i++)
		size += slot_bytes(btf, args[i].type);
	/* fexit/fmod_ret: the return value's slot follows the arguments */
	if (env->type && OPTS_HAS(env->type, attach_ret) && env->type->attach_ret)
		size += slot_bytes(btf, t->type);
	env->attach_proto_id = pid;
	env->attach_ctx_size = size > 8 * CTX_MAX_ARGS ? 8 * CTX_MAX_ARGS : (uint32_t)size;
	env->attach_name = env->attach_member ? env->attach_member : fname ? fname : "";
	/* the type's rules for this function (Linux 6.12's bpf_lsm_verify_prog and
	 * bpf_lsm_get_retval_range for LSM hooks) */
	if (fname && !env->attach_member && env->type && OPTS_HAS(env->type, attach_func) && env->type->attach_func) {
		char msg[256] = "";
		int err = env->type->attach_func(env->type, env->host, id, fname, &env->ret, msg, sizeof(msg));
		if (err) {
			vlog(env, "%s\n", msg[0] ? msg : "attach target refused by the program type");
			return err < 0 ? err : -EINVAL;
		}
		if (env->ret.has_range && env->ret.min > env->ret.max) {
			vlog(env, "attach_btf_id %u: return range [%d, %d] is empty\n", id, env->ret.min, env->ret.max);
			return -EINVAL;
		}
	}
	return 0;
}

/* Linux 6.12's bpf_lsm_is_trusted: the hooks whose object is being created or freed,
 * so their arguments are not trusted (kernel/bpf/bpf_lsm.c, untrusted_lsm_hooks). */
static const char *const untrusted_lsm_hooks[] = {
	"bpf_lsm_bpf_map_free",	     "bpf_lsm_bpf_prog_free",	  "bpf_lsm_file_alloc_security",
	"bpf_lsm_file_free_security", "bpf_lsm_sk_alloc_security", "bpf_lsm_sk_free_security",
	"bpf_lsm_task_free",
};

/* Linux 6.12's prog_args_trusted: whether BTF pointer argument arg is PTR_TRUSTED.
 * tp_btf yes, fentry/fexit/fmod_ret no (their target may be called with any pointer, an
 * object half built or being freed), LSM hooks but the untrusted ones, struct_ops
 * always; any other type no. Iterators: 6.12 trusts meta, and the objects of the
 * targets whose ctx_arg_info says PTR_TRUSTED (task, map, cgroup; not task_file's file,
 * task_vma's vma, link, prog); kbpf cannot tell a host's targets apart: meta only. */
static bool args_trusted(const struct env *env, uint32_t arg)
{
	switch (env->type->linux_type) {
	case BPF_PROG_TYPE_TRACING: {
		uint32_t eat = OPTS_GET(env->type, expected_attach_type, 0);
		return eat == BPF_TRACE_RAW_TP || (eat == BPF_TRACE_ITER && arg == 0);
	}
	case BPF_PROG_TYPE_LSM:
		/* a hook is a named function (bpf_lsm_verify_prog); a bare prototype names none,
		 * so neither its rules nor its trust can be known */
		if (env->attach_member || !env->attach_name[0])
			return false;
		for (size_t i = 0; i < sizeof(untrusted_lsm_hooks) / sizeof(untrusted_lsm_hooks[0]); i++)
			if (!strcmp(env->attach_name, untrusted_lsm_hooks[i]))
				return false;
		return true;
	case BPF_PROG_TYPE_STRUCT_OPS:
		return true;
	default:
		return false;
	}
}

static bool nullable_param(const struct btf *btf, const struct btf_param *p)
{
	static const char suffix[] = "__nullable";
	const char *n = btf__name_by_offset(btf, p->name_off);
	size_t len = n ? strlen(n) : 0, m = sizeof(suffix) - 1;
	return len >= m && !strcmp(n + len - m, suffix);
}

/* The generic typing (btf_ctx_access); 1: allowed, *info filled. */
static int generic_access(struct env *env, const struct btf *btf, const struct btf_type *proto, int off, int size,
			  uint32_t *argp, struct kbpf_ctx_access_info *info)
{
	const char *fn = env->attach_name;
	const struct btf_param *args = btf_params(proto);
	(void)size; /* any size: btf_ctx_access widens a narrow pointer read */
	uint32_t nargs = btf_vlen(proto);

	if (off % 8) {
		vlog(env, "func '%s' offset %d is not multiple of 8\n", fn, off);
		return 0;
	}
	uint32_t arg = ctx_arg_idx(btf, proto, off);
	*argp = arg;
	int ret_kind = OPTS_HAS(env->type, attach_ret) ? env->type->attach_ret : 0;
	uint32_t tid = arg < nargs ? args[arg].type : proto->type;
	if (arg == nargs && ret_kind == KBPF_ATTACH_RET_INT) {
		const struct btf_type *rt = vbtf_skip_mods(btf, tid, NULL);
		if (rt == &vbtf_void || !btf_is_int(rt) || rt->size > 8) {
			vlog(env, "ret type %s not allowed for fmod_ret\n", vbtf_kind_str(rt));
			return 0;
		}
	}
	if (arg > nargs || (arg == nargs && !ret_kind)) {
		/* struct_ops (expected_attach_type = member index) cannot read the return
		 * value: only fexit/fmod_ret/LSM programs have that slot */
		vlog(env, "func '%s' doesn't have %d-th argument\n", fn, arg + 1);
		return 0;
	}
	const struct btf_type *t = vbtf_skip_mods(btf, tid, NULL);
	if ((btf_is_int(t) && t->size <= 8) || btf_is_enum(t) || btf_is_enum64(t) || btf_is_composite(t))
		return 1; /* a scalar */
	if (t == &vbtf_void || !btf_is_ptr(t)) {
		vlog(env, "func '%s' arg%d '%s' has type %s. Only pointer access is allowed\n", fn, arg, vbtf_name(btf, t),
		     vbtf_kind_str(t));
		return 0;
	}
	if (t->type == 0)
		return 1; /* void *: a scalar, nothing to walk */
	if (btf_is_int(vbtf_skip_mods(btf, t->type, NULL)))
		return 1; /* int *: a scalar too, as in Linux */
	uint32_t id = t->type;
	const struct btf_type *pt = vbtf_type(btf, id);
	if (pt != &vbtf_void && btf_is_type_tag(pt)) {
		const char *tag = vbtf_name(btf, pt);
		if (!strcmp(tag, "user") || !strcmp(tag, "percpu"))
			return 1; /* not host memory kbpf can reach: the value only */
	}
	pt = vbtf_skip_mods(btf, id, &id);
	if (pt == &vbtf_void || !btf_is_composite(pt)) {
		vlog(env, "func '%s' arg%d type %s is not a struct\n", fn, arg, vbtf_kind_str(pt));
		return 0;
	}
	vlog(env, "func '%s' arg%d has btf_id %u type %s '%s'\n", fn, arg, id, vbtf_kind_str(pt), vbtf_name(btf, pt));
	info->reg_type = KBPF_PTR_TO_BTF_ID;
	/* a parameter named *__nullable may be NULL: the program must check it; so may the
	 * return value of fexit/fmod_ret (any lookup returns NULL, and no name can say so).
	 * Stricter than 6.12, which reads both with fault-tolerant loads; kbpf's are plain */
	if ((arg < nargs && nullable_param(btf, &args[arg])) || arg == nargs)
		info->reg_type |= KBPF_PTR_MAYBE_NULL;
	info->btf_id = id;
	return 1;
}

int btf_ctx_access(struct env *env, int off, int size, bool write, struct kbpf_ctx_access_info *info)
{
	const struct btf *btf = ctx_btf(env);
	const struct kbpf_prog_type *type = env->type;
	uint32_t arg = 0;

	/* bpf_tracing_ctx_access: inside the 12 slots, read-only, naturally aligned */
	if (!btf || off < 0 || off >= 8 * CTX_MAX_ARGS || write || size <= 0 || off % size)
		return 0;
	const struct btf_type *proto = btf__type_by_id(btf, env->attach_proto_id);
	if (!generic_access(env, btf, proto, off, size, &arg, info))
		return 0;
	if (type->ctx_arg_access && !type->ctx_arg_access(type, env->host, arg, info))
		return 0;
	/* trust by 6.12's rule, after the hook (which sees the type without it, and may
	 * add KBPF_PTR_TRUSTED to vouch for an argument itself) */
	if (KBPF_REG_BASE(info->reg_type) == KBPF_PTR_TO_BTF_ID && args_trusted(env, arg))
		info->reg_type |= KBPF_PTR_TRUSTED;
	/* Never trust the callback: a scalar or a pointer to a struct of the host BTF, no
	 * conversion (the context is the array the trampoline built), within the args. */
	info->conv_off = info->conv_size = 0;
	info->ctx_field_size = 0;
	uint32_t base = KBPF_REG_BASE(info->reg_type);
	if (info->reg_type & ~(0xffu | KBPF_PTR_MAYBE_NULL | KBPF_PTR_TRUSTED | KBPF_PTR_UNTRUSTED))
		return 0;
	if (base == KBPF_PTR_TO_BTF_ID) {
		const struct btf_type *st = vbtf_type(btf, info->btf_id);
		if (st == &vbtf_void || !btf_is_composite(st))
			return 0;
		if (size != 8) {
			/* a narrow read of the pointer: run as the whole slot (see the top) */
			info->conv_off = (uint32_t)off;
			info->conv_size = 8;
		}
	} else if (info->reg_type != KBPF_SCALAR_VALUE) {
		return 0;
	}
	return (uint64_t)off + size <= env->attach_ctx_size;
}

bool btf_ctx_void_return(const struct env *env)
{
	if (!env->attach_proto_id)
		return false;
	/* Linux 6.1 check_return_code: a struct_ops or LSM function pointer may return void,
	 * and then R0 need not be set; kbpf's struct_ops programs are the ones that name the
	 * member they fill */
	uint32_t lt = env->type->linux_type;
	if (!env->attach_member && lt != BPF_PROG_TYPE_STRUCT_OPS && lt != BPF_PROG_TYPE_LSM)
		return false;
	const struct btf *btf = ctx_btf(env);
	const struct btf_type *proto = btf__type_by_id(btf, env->attach_proto_id);
	return proto && proto->type == 0;
}
