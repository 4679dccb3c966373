/* SPDX-License-Identifier: Apache-2.0 */
/* The cgroup_sockopt program types "cgroup/getsockopt" and "cgroup/setsockopt" (named
 * as libbpf names their sections, one per attach type, as their rules differ): a struct
 * bpf_sockopt whose optval .. optval_end is the option's buffer, which the program reads
 * and writes directly like a packet. Linux 6.1's cg_sockopt_is_valid_access and
 * cg_sockopt_func_proto (kernel/bpf/cgroup.c), written from their behaviour: retval is
 * getsockopt's (read and write), level and optname setsockopt's to write, optlen both's.
 * Return 0 (refuse) or 1; CAP_NET_ADMIN to load; no test run in Linux (a host running
 * one passes the uapi struct itself, with real pointers). */
#include "linux_internal.h"

#define OFF(f) offsetof(struct bpf_sockopt, f)
#define END(f) (offsetof(struct bpf_sockopt, f) + sizeof(((struct bpf_sockopt *)0)->f))
#define IN(f) (off >= (int)OFF(f) && off < (int)END(f))

struct sockopt_desc {
	struct linux_type_desc desc; /* first: kbpf_linux_get_func_proto reads priv as one */
	uint32_t attach;
};

static int sockopt_access(const struct kbpf_prog_type *type, int off, int size, enum kbpf_access_type access,
			  struct kbpf_ctx_access_info *info)
{
	uint32_t at = ((const struct sockopt_desc *)type->priv)->attach;
	if (off < 0 || off >= (int)sizeof(struct bpf_sockopt) || size <= 0 || off % size)
		return 0;
	if (access == KBPF_ACCESS_WRITE) {
		if (off == (int)OFF(retval))
			return size == 4 && at == BPF_CGROUP_GETSOCKOPT;
		if (off == (int)OFF(optname) || off == (int)OFF(level))
			return size == 4 && at == BPF_CGROUP_SETSOCKOPT;
		return off == (int)OFF(optlen) && size == 4;
	}
	if (IN(sk) || IN(optval) || IN(optval_end)) {
		info->reg_type = IN(sk) ? KBPF_PTR_TO_SOCKET : IN(optval) ? KBPF_PTR_TO_PACKET : KBPF_PTR_TO_PACKET_END;
		return size == 8;
	}
	if (IN(retval))
		return size == 4 && at == BPF_CGROUP_GETSOCKOPT;
	return size == 4;
}

/* bpf_sk_setsockopt_proto / bpf_sk_getsockopt_proto: on the socket (setsockopt programs
 * only). The TCP host's struct_ops variants share the shape but take its own sockets;
 * these are cgroup_sockopt's own, and verify only (KBPF_LINUX_NO_RUN). */
static const struct kbpf_helper_proto sk_setsockopt_proto = {
	.name = "bpf_setsockopt", .ret_type = KBPF_RET_INTEGER, .run_id = KBPF_LINUX_NO_RUN(BPF_FUNC_setsockopt),
	.arg_type = { KBPF_ARG_PTR_TO_BTF_ID_SOCK_COMMON, KBPF_ARG_ANYTHING, KBPF_ARG_ANYTHING,
		      KBPF_ARG_PTR_TO_MEM | KBPF_ARG_MEM_RDONLY, KBPF_ARG_CONST_SIZE },
};
static const struct kbpf_helper_proto sk_getsockopt_proto = {
	.name = "bpf_getsockopt", .ret_type = KBPF_RET_INTEGER, .run_id = KBPF_LINUX_NO_RUN(BPF_FUNC_getsockopt),
	.arg_type = { KBPF_ARG_PTR_TO_BTF_ID_SOCK_COMMON, KBPF_ARG_ANYTHING, KBPF_ARG_ANYTHING,
		      KBPF_ARG_PTR_TO_MEM | KBPF_ARG_MEM_UNINIT | KBPF_ARG_MEM_WRITE, KBPF_ARG_CONST_SIZE },
};

static const struct kbpf_helper_proto *sockopt_func_proto(const struct kbpf_prog_type *type,
							  const struct kbpf_host *host, int32_t id)
{
	uint32_t at = ((const struct sockopt_desc *)type->priv)->attach;
	if (id == BPF_FUNC_setsockopt || id == BPF_FUNC_getsockopt) {
		if (at != BPF_CGROUP_SETSOCKOPT)
			return NULL;
		return id == BPF_FUNC_setsockopt ? &sk_setsockopt_proto : &sk_getsockopt_proto;
	}
	return kbpf_linux_get_func_proto(type, host, id);
}

#define END_ID -1
#define ID(x) BPF_FUNC_##x
static const int32_t sockopt_set[] = {
	ID(get_local_storage), ID(get_current_uid_gid), ID(get_current_pid_tgid), ID(get_current_comm), ID(get_current_cgroup_id),
	ID(get_current_ancestor_cgroup_id), ID(get_cgroup_classid), ID(get_netns_cookie), ID(sk_storage_get),
	ID(sk_storage_delete), ID(tcp_sock), ID(perf_event_output), END_ID
};
#define SETS(...) ((const int32_t *const[]){ __VA_ARGS__, NULL })
static const struct sockopt_desc get_desc = { { SETS(sockopt_set, kbpf_linux_base_set) }, BPF_CGROUP_GETSOCKOPT },
				 set_desc = { { SETS(sockopt_set, kbpf_linux_base_set) }, BPF_CGROUP_SETSOCKOPT };

/* may_access_direct_pkt_data: optval is readable and writable */
#define SOCKOPT(name_, desc_)                                                                                 \
	{ .sz = sizeof(struct kbpf_prog_type), .name = name_, .linux_type = BPF_PROG_TYPE_CGROUP_SOCKOPT,       \
	  .ctx_size = sizeof(struct bpf_sockopt), .ctx_btf_name = "bpf_sockopt", .is_valid_access = sockopt_access, \
	  .get_func_proto = sockopt_func_proto, .direct_packet_access = KBPF_PKT_ACCESS_RW, .has_ret_range = 1,  \
	  .ret_min = 0, .ret_max = 1, .priv = (void *)&desc_, .load_caps = KBPF_CAP_BPF | KBPF_CAP_NET_ADMIN }

const struct kbpf_prog_type kbpf_linux_cgroup_sockopt_types[] = {
	SOCKOPT("cgroup/getsockopt", get_desc),
	SOCKOPT("cgroup/setsockopt", set_desc),
};
const size_t kbpf_linux_nr_cgroup_sockopt_types = 2;
