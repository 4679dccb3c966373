/* SPDX-License-Identifier: Apache-2.0 */
/* The BTF-attached tracing program types fentry, fexit and fmod_ret (Linux 6.1's
 * BPF_PROG_TYPE_TRACING with expected_attach_type BPF_TRACE_FENTRY, BPF_TRACE_FEXIT,
 * BPF_MODIFY_RETURN; kernel/trace/bpf_trace.c). A program of these types is attached to
 * a host function named by its BTF id (kbpf_verify_opts.attach_btf_id, kbpf_prog_opts
 * .attach_btf_id): its context is then the u64 array of that function's arguments,
 * typed through the host's BTF by the verifier (Linux's btf_ctx_access). Without an
 * attach target the context is unusable, as Linux refuses such a load outright
 * ("Tracing programs must provide btf_id"). Writes through the struct pointers it reads
 * are refused ("only read is supported"): host memory is read-only to tracing. The LSM
 * type (BPF_PROG_TYPE_LSM, BPF_LSM_MAC) is the same kind of program on an LSM hook. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include "linux_internal.h"

/* No attach target: no context field at all. */
static int tracing_access(const struct kbpf_prog_type *type, int off, int size, enum kbpf_access_type access,
			  struct kbpf_ctx_access_info *info)
{
	(void)type, (void)off, (void)size, (void)access, (void)info;
	return 0;
}

#define END_ID -1
#define ID(x) BPF_FUNC_##x

/* tracing_prog_func_proto's own cases kbpf can give a meaning to (the socket casts,
 * get_func_arg… need kernel objects or trampoline data the host does not have: not
 * registered, so "program of this type cannot use helper"; d_path needs the host's
 * struct path in its BTF), then raw_tp_prog_func_proto's. */
static const int32_t tracing_own_set[] = {
	ID(skb_output), ID(xdp_output), ID(sk_storage_get), ID(sk_storage_delete), ID(get_socket_cookie),
	ID(xdp_get_buff_len), ID(d_path), ID(get_func_arg), ID(get_func_ret), ID(get_func_arg_cnt),
	ID(get_attach_cookie), END_ID
};
static const int32_t raw_tp_set[] = { ID(perf_event_output), ID(get_stackid), ID(get_stack), END_ID };

#define SETS(...) ((const int32_t *const[]){ __VA_ARGS__, NULL })
static const struct linux_type_desc tracing_desc = { SETS(tracing_own_set, raw_tp_set, kbpf_linux_tracing_set,
							  kbpf_linux_base_set) };

/* The tracing helpers' socket and xdp variants take kernel objects (struct sock *, struct
 * xdp_buff *) through BTF, not a ctx: the generic ones registered by id do not fit. */
static const struct kbpf_helper_proto *tracing_func_proto(const struct kbpf_prog_type *type,
							  const struct kbpf_host *host, int32_t id)
{
	if (id == BPF_FUNC_get_socket_cookie || id == BPF_FUNC_xdp_get_buff_len)
		return NULL;
	if (id == BPF_FUNC_d_path) {
		/* struct path (<kbpf/linux.h>) must be a type of the host for programs to get one */
		if (kbpf_host_btf_find(host, "path", BTF_KIND_STRUCT) <= 0)
			return NULL;
	}
	return kbpf_linux_get_func_proto(type, host, id);
}

#define PERFMON (KBPF_CAP_BPF | KBPF_CAP_PERFMON) /* Linux: is_perfmon_prog_type */
/* check_return_code: fentry and fexit must return 0; fmod_ret's value is the function's. */
/* fexit reads the function's return value after its arguments; fmod_ret the int return
 * of the function (or of the fmod_ret program before it): Linux's btf_ctx_access. */
/* Their BTF pointer arguments are not trusted (6.12's prog_args_trusted: the target may
 * be called with any pointer), so KF_TRUSTED_ARGS kfuncs and helper memory refuse them. */
#define TRACING(name_, eat_, ret_, attach_ret_)                                                                 \
	{ .sz = sizeof(struct kbpf_prog_type), .name = name_, .linux_type = BPF_PROG_TYPE_TRACING,                \
	  .ctx_size = KBPF_LINUX_RAW_TP_CTX_SIZE, .is_valid_access = tracing_access,                            \
	  .get_func_proto = tracing_func_proto, .has_ret_range = ret_, .ret_min = 0, .ret_max = 0,               \
	  .priv = (void *)&tracing_desc, .load_caps = PERFMON, .attach_ret = attach_ret_,                       \
	  .expected_attach_type = eat_ }

/* bpf_lsm_func_proto's own cases kbpf has (inode storage, bprm, ima: kernel objects),
 * then tracing_prog_func_proto's. */
static const int32_t lsm_own_set[] = { ID(sk_storage_get), ID(sk_storage_delete), ID(spin_lock), ID(spin_unlock),
				       END_ID };
static const struct linux_type_desc lsm_desc = { SETS(lsm_own_set, tracing_own_set, raw_tp_set,
						      kbpf_linux_tracing_set, kbpf_linux_base_set) };

/* Linux 6.12's kernel/bpf/bpf_lsm.c, without the "bpf_lsm_" prefix: the hooks no BPF
 * program may attach to (bpf_lsm_disabled_hooks), and those returning a bool
 * (bool_lsm_hooks). */
static const char *const lsm_disabled_hooks[] = {
	"vm_enough_memory",  "inode_need_killpriv", "inode_getsecurity", "inode_listsecurity",
	"inode_copy_up_xattr", "getselfattr",      "getprocattr",       "setprocattr",
	"key_getsecurity",   "audit_rule_match",    "xfrm_decode_session", "ismaclabel",
};
static const char *const lsm_bool_hooks[] = { "xfrm_state_pol_flow_match", "audit_rule_known",
					      "inode_xattr_skipcap" };

static bool name_in(const char *name, const char *const *set, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(name, set[i]))
			return true;
	return false;
}

/* bpf_lsm_verify_prog and bpf_lsm_get_retval_range: an LSM program attaches to a hook,
 * a host function bpf_lsm_<hook> (kbpf's hooks are the host's functions of that name),
 * never to a disabled one; it returns 0 or -errno ([-MAX_ERRNO, 0]), or 0/1 on the bool
 * hooks, compared on R0's lower 32 bits (the hook returns an int). A void hook takes no
 * return value (check_return_code returns before this rule). */
static int lsm_attach_func(const struct kbpf_prog_type *type, const struct kbpf_host *host, uint32_t btf_id,
			   const char *func, struct kbpf_attach_ret *ret, char *msg, size_t msg_size)
{
	static const char prefix[] = "bpf_lsm_";
	const size_t plen = sizeof(prefix) - 1;
	(void)type, (void)host;
	if (strncmp(func, prefix, plen) || !func[plen]) {
		snprintf(msg, msg_size, "attach_btf_id %u points to wrong type name %s", btf_id, func);
		return -EINVAL;
	}
	const char *hook = func + plen;
	if (name_in(hook, lsm_disabled_hooks, sizeof(lsm_disabled_hooks) / sizeof(lsm_disabled_hooks[0]))) {
		snprintf(msg, msg_size, "attach_btf_id %u points to disabled hook %s", btf_id, func);
		return -EINVAL;
	}
	bool is_bool = name_in(hook, lsm_bool_hooks, sizeof(lsm_bool_hooks) / sizeof(lsm_bool_hooks[0]));
	*ret = (struct kbpf_attach_ret){ .has_range = 1, .min = is_bool ? 0 : -4095, .max = is_bool ? 1 : 0,
					 .is_32bit = 1 };
	return 0;
}

const struct kbpf_prog_type kbpf_linux_tracing_types[] = {
	TRACING("fentry", BPF_TRACE_FENTRY, 1, 0),
	TRACING("fexit", BPF_TRACE_FEXIT, 1, KBPF_ATTACH_RET_ANY),
	TRACING("fmod_ret", BPF_MODIFY_RETURN, 0, KBPF_ATTACH_RET_INT),
	/* BPF_PROG_TYPE_LSM, BPF_LSM_MAC: attached to an LSM hook (bpf_lsm_<hook>), whose
	 * arguments and return value (the slot after them) are the context; the hook's
	 * verdict in 6.12's range (lsm_attach_func); a void hook needs none
	 * (btf_ctx_void_return). */
	{ .sz = sizeof(struct kbpf_prog_type), .name = "lsm", .linux_type = BPF_PROG_TYPE_LSM,
	  .ctx_size = KBPF_LINUX_RAW_TP_CTX_SIZE, .is_valid_access = tracing_access,
	  .get_func_proto = tracing_func_proto, .priv = (void *)&lsm_desc, .load_caps = PERFMON,
	  .attach_ret = KBPF_ATTACH_RET_ANY, .attach_func = lsm_attach_func, .expected_attach_type = BPF_LSM_MAC },
};
const size_t kbpf_linux_nr_tracing_types = sizeof(kbpf_linux_tracing_types) / sizeof(kbpf_linux_tracing_types[0]);
