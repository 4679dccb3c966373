/* SPDX-License-Identifier: Apache-2.0 */
/* The cgroup socket program types: cgroup_sock (a struct bpf_sock at socket creation,
 * release or after bind) and cgroup_sock_addr (a struct bpf_sock_addr at bind, connect,
 * sendmsg, recvmsg, getpeername, getsockname). Linux 6.1 decides their context fields,
 * helpers and return ranges by the program's expected_attach_type
 * (sock_filter_is_valid_access, sock_addr_is_valid_access, sock_addr_func_proto,
 * check_return_code in net/core/filter.c and kernel/bpf/verifier.c): kbpf registers one
 * program type per attach type, named as libbpf names its section ("cgroup/connect4",
 * "cgroup/post_bind4", …), plus "cgroup_sock" for Linux's default (sock_create). They
 * need CAP_NET_ADMIN; Linux has no test run for them, so kbpf verifies them (a host
 * running one passes the uapi struct itself, with sk a real pointer). */
#include "linux_internal.h"

/* Linux 6.7+'s AF_UNIX attach types (stable uapi numbers; 6.1's <linux/bpf.h> lacks them).
 * Their programs see no IPv4/IPv6 address (sock_addr_is_valid_access: user_ip4, user_ip6
 * and msg_src_ip* belong to the inet attach types only). */
enum {
	CGROUP_UNIX_CONNECT = 49,
	CGROUP_UNIX_SENDMSG = 50,
	CGROUP_UNIX_RECVMSG = 51,
	CGROUP_UNIX_GETPEERNAME = 52,
	CGROUP_UNIX_GETSOCKNAME = 53,
};

/* A type's helper sets and the attach type its rules depend on. desc comes first: the
 * generic kbpf_linux_get_func_proto reads priv as a struct linux_type_desc. */
struct cg_sock_desc {
	struct linux_type_desc desc;
	uint32_t attach;
};

static uint32_t attach_of(const struct kbpf_prog_type *type)
{
	return ((const struct cg_sock_desc *)type->priv)->attach;
}

/* --- struct bpf_sock (cgroup_sock): bpf_sock_is_valid_access + the attach type's rule --- */
#define SOFF(f) offsetof(struct bpf_sock, f)
#define SEND(f) (offsetof(struct bpf_sock, f) + sizeof(((struct bpf_sock *)0)->f))
#define SIN(f) (off >= (int)SOFF(f) && off < (int)SEND(f))
#define SIN_RANGE(f, g) (off >= (int)SOFF(f) && off < (int)SEND(g))

static int narrow_ok(int off, int size, uint32_t field_size, struct kbpf_ctx_access_info *info)
{
	info->ctx_field_size = field_size;
	(void)off; /* off % size was checked: aligned inside the field */
	return size <= (int)field_size && !(size & (size - 1));
}

/* bpf_sock_is_valid_access: the fields' read shapes. */
static int bpf_sock_access(int off, int size, struct kbpf_ctx_access_info *info)
{
	if (off < 0 || off >= (int)sizeof(struct bpf_sock) || size <= 0 || off % size)
		return 0;
	if (off == (int)SOFF(state) || off == (int)SOFF(family) || off == (int)SOFF(type) ||
	    off == (int)SOFF(protocol) || off == (int)SOFF(src_port) || off == (int)SOFF(rx_queue_mapping) ||
	    SIN(src_ip4) || SIN_RANGE(src_ip6[0], src_ip6[3]) || SIN(dst_ip4) || SIN_RANGE(dst_ip6[0], dst_ip6[3]))
		return narrow_ok(off, size, 4, info);
	if (SIN(dst_port))
		return narrow_ok(off, size, size == 4 ? 4 : 2, info); /* a __be16 readable as a u32 too */
	if (off >= (int)SEND(dst_port) && off < (int)SOFF(dst_ip4))
		return 0; /* padding */
	return size == 4;
}

/* __sock_filter_check_attach_type: bound_dev_if, mark and priority are read-write at
 * creation and release only; the source address and port are read-only after bind, of
 * the matching family; everything else read-only. */
static int cg_sock_access(const struct kbpf_prog_type *type, int off, int size, enum kbpf_access_type access,
			  struct kbpf_ctx_access_info *info)
{
	uint32_t at = attach_of(type);
	if (!bpf_sock_access(off, size, info))
		return 0;
	if (off == (int)SOFF(bound_dev_if) || off == (int)SOFF(mark) || off == (int)SOFF(priority))
		return at == BPF_CGROUP_INET_SOCK_CREATE || at == BPF_CGROUP_INET_SOCK_RELEASE;
	if (SIN(src_ip4) && at != BPF_CGROUP_INET4_POST_BIND)
		return 0;
	if (SIN_RANGE(src_ip6[0], src_ip6[3]) && at != BPF_CGROUP_INET6_POST_BIND)
		return 0;
	if (SIN(src_port) && at != BPF_CGROUP_INET4_POST_BIND && at != BPF_CGROUP_INET6_POST_BIND)
		return 0;
	return access == KBPF_ACCESS_READ;
}

/* --- struct bpf_sock_addr (cgroup_sock_addr): sock_addr_is_valid_access --- */
#define AOFF(f) offsetof(struct bpf_sock_addr, f)
#define AEND(f) (offsetof(struct bpf_sock_addr, f) + sizeof(((struct bpf_sock_addr *)0)->f))
#define AIN(f) (off >= (int)AOFF(f) && off < (int)AEND(f))
#define AIN_RANGE(f, g) (off >= (int)AOFF(f) && off < (int)AEND(g))

static bool is_inet4(uint32_t at)
{
	return at == BPF_CGROUP_INET4_BIND || at == BPF_CGROUP_INET4_CONNECT || at == BPF_CGROUP_INET4_GETPEERNAME ||
	       at == BPF_CGROUP_INET4_GETSOCKNAME || at == BPF_CGROUP_UDP4_SENDMSG || at == BPF_CGROUP_UDP4_RECVMSG;
}

static bool is_inet6(uint32_t at)
{
	return at == BPF_CGROUP_INET6_BIND || at == BPF_CGROUP_INET6_CONNECT || at == BPF_CGROUP_INET6_GETPEERNAME ||
	       at == BPF_CGROUP_INET6_GETSOCKNAME || at == BPF_CGROUP_UDP6_SENDMSG || at == BPF_CGROUP_UDP6_RECVMSG;
}

/* bpf_ctx_wide_access_ok: an aligned 8-byte access inside an array of u32 */
static bool wide_ok(int off, int size, size_t field_off, size_t field_end)
{
	return size == 8 && off >= (int)field_off && (size_t)off + 8 <= field_end && off % 8 == 0;
}

static int sock_addr_access(const struct kbpf_prog_type *type, int off, int size, enum kbpf_access_type access,
			    struct kbpf_ctx_access_info *info)
{
	uint32_t at = attach_of(type);
	if (off < 0 || off >= (int)sizeof(struct bpf_sock_addr) || size <= 0 || off % size)
		return 0;
	/* an address of the other family, or a source address outside sendmsg */
	if ((AIN(user_ip4) && !is_inet4(at)) || (AIN_RANGE(user_ip6[0], user_ip6[3]) && !is_inet6(at)) ||
	    (AIN(msg_src_ip4) && at != BPF_CGROUP_UDP4_SENDMSG) ||
	    (AIN_RANGE(msg_src_ip6[0], msg_src_ip6[3]) && at != BPF_CGROUP_UDP6_SENDMSG))
		return 0;
	if (AIN(user_ip4) || AIN_RANGE(user_ip6[0], user_ip6[3]) || AIN(msg_src_ip4) ||
	    AIN_RANGE(msg_src_ip6[0], msg_src_ip6[3]) || AIN(user_port)) {
		if (wide_ok(off, size, AOFF(user_ip6), AEND(user_ip6)) ||
		    wide_ok(off, size, AOFF(msg_src_ip6), AEND(msg_src_ip6)))
			return 1;
		if (access == KBPF_ACCESS_READ)
			return narrow_ok(off, size, 4, info);
		return size == 4;
	}
	if (AIN(sk)) {
		if (access != KBPF_ACCESS_READ || size != 8)
			return 0;
		info->reg_type = KBPF_PTR_TO_SOCKET;
		return 1;
	}
	if (AIN(user_family) || AIN(family) || AIN(type) || AIN(protocol))
		return access == KBPF_ACCESS_READ && size == 4;
	return 0;
}

#define END_ID -1
#define ID(x) BPF_FUNC_##x
/* cgroup_current_func_proto (the cgroup ids: no cgroups here, not registered) */
static const int32_t cg_current_set[] = {
	ID(get_current_uid_gid), ID(get_current_pid_tgid), ID(get_current_comm), ID(get_current_cgroup_id),
	ID(get_current_ancestor_cgroup_id), ID(get_cgroup_classid), END_ID
};
/* sock_filter_func_proto's own cases, then bpf_base_func_proto */
static const int32_t cg_sock_set[] = {
	ID(get_local_storage), ID(get_socket_cookie), ID(get_netns_cookie), ID(perf_event_output), ID(sk_storage_get),
	ID(ktime_get_coarse_ns), END_ID
};
/* sock_addr_func_proto's own cases (bind, setsockopt, getsockopt: not registered), then
 * bpf_sk_base_func_proto */
static const int32_t sock_addr_set[] = {
	ID(get_local_storage), ID(get_socket_cookie), ID(get_netns_cookie), ID(perf_event_output), ID(sk_lookup_tcp),
	ID(sk_lookup_udp),
	ID(sk_release), ID(skc_lookup_tcp), ID(sk_storage_get), ID(sk_storage_delete), END_ID
};

#define SETS(...) ((const int32_t *const[]){ __VA_ARGS__, NULL })
#define CG_SOCK_SETS SETS(cg_current_set, cg_sock_set, kbpf_linux_base_set)
#define SOCK_ADDR_SETS SETS(cg_current_set, sock_addr_set, kbpf_linux_sk_base_set, kbpf_linux_base_set)

static const struct cg_sock_desc
	sock_create = { { CG_SOCK_SETS }, BPF_CGROUP_INET_SOCK_CREATE },
	sock_release = { { CG_SOCK_SETS }, BPF_CGROUP_INET_SOCK_RELEASE },
	post_bind4 = { { CG_SOCK_SETS }, BPF_CGROUP_INET4_POST_BIND },
	post_bind6 = { { CG_SOCK_SETS }, BPF_CGROUP_INET6_POST_BIND },
	bind4 = { { SOCK_ADDR_SETS }, BPF_CGROUP_INET4_BIND }, bind6 = { { SOCK_ADDR_SETS }, BPF_CGROUP_INET6_BIND },
	connect4 = { { SOCK_ADDR_SETS }, BPF_CGROUP_INET4_CONNECT },
	connect6 = { { SOCK_ADDR_SETS }, BPF_CGROUP_INET6_CONNECT },
	getpeername4 = { { SOCK_ADDR_SETS }, BPF_CGROUP_INET4_GETPEERNAME },
	getpeername6 = { { SOCK_ADDR_SETS }, BPF_CGROUP_INET6_GETPEERNAME },
	getsockname4 = { { SOCK_ADDR_SETS }, BPF_CGROUP_INET4_GETSOCKNAME },
	getsockname6 = { { SOCK_ADDR_SETS }, BPF_CGROUP_INET6_GETSOCKNAME },
	sendmsg4 = { { SOCK_ADDR_SETS }, BPF_CGROUP_UDP4_SENDMSG },
	sendmsg6 = { { SOCK_ADDR_SETS }, BPF_CGROUP_UDP6_SENDMSG },
	recvmsg4 = { { SOCK_ADDR_SETS }, BPF_CGROUP_UDP4_RECVMSG },
	recvmsg6 = { { SOCK_ADDR_SETS }, BPF_CGROUP_UDP6_RECVMSG },
	connect_unix = { { SOCK_ADDR_SETS }, CGROUP_UNIX_CONNECT },
	sendmsg_unix = { { SOCK_ADDR_SETS }, CGROUP_UNIX_SENDMSG },
	recvmsg_unix = { { SOCK_ADDR_SETS }, CGROUP_UNIX_RECVMSG },
	getpeername_unix = { { SOCK_ADDR_SETS }, CGROUP_UNIX_GETPEERNAME },
	getsockname_unix = { { SOCK_ADDR_SETS }, CGROUP_UNIX_GETSOCKNAME };

#define NET_ADMIN (KBPF_CAP_BPF | KBPF_CAP_NET_ADMIN) /* Linux: is_net_admin_prog_type */
#define CG_SOCK(name_, desc_)                                                                                 \
	{ .sz = sizeof(struct kbpf_prog_type), .name = name_, .linux_type = BPF_PROG_TYPE_CGROUP_SOCK,          \
	  .ctx_size = sizeof(struct bpf_sock), .ctx_btf_name = "bpf_sock", .is_valid_access = cg_sock_access,    \
	  .get_func_proto = kbpf_linux_get_func_proto, .has_ret_range = 1, .ret_min = 0, .ret_max = 1,                  \
	  .priv = (void *)&desc_, .load_caps = NET_ADMIN }
/* check_return_code: [1, 1] for recvmsg, getpeername and getsockname (inet and, 6.12,
 * unix); [0, 3] for bind (bit 1: bypass the kernel's port checks); [0, 1] otherwise. */
#define SOCK_ADDR(name_, desc_, min_, max_)                                                                  \
	{ .sz = sizeof(struct kbpf_prog_type), .name = name_, .linux_type = BPF_PROG_TYPE_CGROUP_SOCK_ADDR,     \
	  .ctx_size = sizeof(struct bpf_sock_addr), .ctx_btf_name = "bpf_sock_addr",                            \
	  .kern_ctx_btf_name = "bpf_sock_addr",                                                                 \
	  .is_valid_access = sock_addr_access, .get_func_proto = kbpf_linux_get_func_proto, .has_ret_range = 1,        \
	  .ret_min = min_, .ret_max = max_, .priv = (void *)&desc_, .load_caps = NET_ADMIN }

const struct kbpf_prog_type kbpf_linux_cgroup_sock_types[] = {
	/* Linux's default attach type for cgroup_sock (bpf_prog_load_fixup_attach_type) */
	CG_SOCK("cgroup_sock", sock_create),
	CG_SOCK("cgroup/sock_create", sock_create),
	CG_SOCK("cgroup/sock_release", sock_release),
	CG_SOCK("cgroup/post_bind4", post_bind4),
	CG_SOCK("cgroup/post_bind6", post_bind6),
	SOCK_ADDR("cgroup/bind4", bind4, 0, 3),
	SOCK_ADDR("cgroup/bind6", bind6, 0, 3),
	SOCK_ADDR("cgroup/connect4", connect4, 0, 1),
	SOCK_ADDR("cgroup/connect6", connect6, 0, 1),
	SOCK_ADDR("cgroup/getpeername4", getpeername4, 1, 1),
	SOCK_ADDR("cgroup/getpeername6", getpeername6, 1, 1),
	SOCK_ADDR("cgroup/getsockname4", getsockname4, 1, 1),
	SOCK_ADDR("cgroup/getsockname6", getsockname6, 1, 1),
	SOCK_ADDR("cgroup/sendmsg4", sendmsg4, 0, 1),
	SOCK_ADDR("cgroup/sendmsg6", sendmsg6, 0, 1),
	SOCK_ADDR("cgroup/recvmsg4", recvmsg4, 1, 1),
	SOCK_ADDR("cgroup/recvmsg6", recvmsg6, 1, 1),
	SOCK_ADDR("cgroup/connect_unix", connect_unix, 0, 1),
	SOCK_ADDR("cgroup/sendmsg_unix", sendmsg_unix, 0, 1),
	SOCK_ADDR("cgroup/recvmsg_unix", recvmsg_unix, 1, 1),
	SOCK_ADDR("cgroup/getpeername_unix", getpeername_unix, 1, 1),
	SOCK_ADDR("cgroup/getsockname_unix", getsockname_unix, 1, 1),
};
const size_t kbpf_linux_nr_cgroup_sock_types =
	sizeof(kbpf_linux_cgroup_sock_types) / sizeof(kbpf_linux_cgroup_sock_types[0]);

