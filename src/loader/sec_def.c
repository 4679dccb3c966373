/* SPDX-License-Identifier: Apache-2.0 */
/* Program type from the SEC() name, by libbpf's table and matching rules
 * (Documentation/bpf/libbpf/program_types.rst):
 *   "type"   matches exactly;
 *   "type+"  matches "type" or "type/anything";
 *   "type/"  matches "type/anything" only. */
#include <string.h>
#include <linux/bpf.h>
#include "loader/loader_internal.h"

struct sec_def {
	const char *pattern;
	uint32_t type;
};

/* Linux 6.1's uapi lacks the newest types; their numbers are stable ABI. */
#define KBPF_PROG_TYPE_NETFILTER 32

/* First match wins: longer, more specific names come before their prefixes. */
static const struct sec_def sec_defs[] = {
	{ "socket", BPF_PROG_TYPE_SOCKET_FILTER },
	{ "sk_reuseport/migrate", BPF_PROG_TYPE_SK_REUSEPORT },
	{ "sk_reuseport", BPF_PROG_TYPE_SK_REUSEPORT },
	{ "kprobe+", BPF_PROG_TYPE_KPROBE },
	{ "uprobe+", BPF_PROG_TYPE_KPROBE },
	{ "uprobe.s+", BPF_PROG_TYPE_KPROBE },
	{ "kretprobe+", BPF_PROG_TYPE_KPROBE },
	{ "uretprobe+", BPF_PROG_TYPE_KPROBE },
	{ "uretprobe.s+", BPF_PROG_TYPE_KPROBE },
	{ "kprobe.multi+", BPF_PROG_TYPE_KPROBE },
	{ "kretprobe.multi+", BPF_PROG_TYPE_KPROBE },
	{ "uprobe.multi+", BPF_PROG_TYPE_KPROBE },
	{ "uretprobe.multi+", BPF_PROG_TYPE_KPROBE },
	{ "uprobe.multi.s+", BPF_PROG_TYPE_KPROBE },
	{ "uretprobe.multi.s+", BPF_PROG_TYPE_KPROBE },
	{ "ksyscall+", BPF_PROG_TYPE_KPROBE },
	{ "kretsyscall+", BPF_PROG_TYPE_KPROBE },
	{ "usdt+", BPF_PROG_TYPE_KPROBE },
	{ "usdt.s+", BPF_PROG_TYPE_KPROBE },
	{ "tc/ingress", BPF_PROG_TYPE_SCHED_CLS },
	{ "tc/egress", BPF_PROG_TYPE_SCHED_CLS },
	{ "tcx/ingress", BPF_PROG_TYPE_SCHED_CLS },
	{ "tcx/egress", BPF_PROG_TYPE_SCHED_CLS },
	{ "tc", BPF_PROG_TYPE_SCHED_CLS },
	{ "classifier", BPF_PROG_TYPE_SCHED_CLS },
	{ "action", BPF_PROG_TYPE_SCHED_ACT },
	{ "netkit/primary", BPF_PROG_TYPE_SCHED_CLS },
	{ "netkit/peer", BPF_PROG_TYPE_SCHED_CLS },
	{ "tracepoint+", BPF_PROG_TYPE_TRACEPOINT },
	{ "tp+", BPF_PROG_TYPE_TRACEPOINT },
	{ "raw_tracepoint+", BPF_PROG_TYPE_RAW_TRACEPOINT },
	{ "raw_tp+", BPF_PROG_TYPE_RAW_TRACEPOINT },
	{ "raw_tracepoint.w+", BPF_PROG_TYPE_RAW_TRACEPOINT_WRITABLE },
	{ "raw_tp.w+", BPF_PROG_TYPE_RAW_TRACEPOINT_WRITABLE },
	{ "tp_btf+", BPF_PROG_TYPE_TRACING },
	{ "fentry+", BPF_PROG_TYPE_TRACING },
	{ "fmod_ret+", BPF_PROG_TYPE_TRACING },
	{ "fexit+", BPF_PROG_TYPE_TRACING },
	{ "fentry.s+", BPF_PROG_TYPE_TRACING },
	{ "fmod_ret.s+", BPF_PROG_TYPE_TRACING },
	{ "fexit.s+", BPF_PROG_TYPE_TRACING },
	{ "freplace+", BPF_PROG_TYPE_EXT },
	{ "lsm+", BPF_PROG_TYPE_LSM },
	{ "lsm.s+", BPF_PROG_TYPE_LSM },
	{ "lsm_cgroup+", BPF_PROG_TYPE_LSM },
	{ "iter+", BPF_PROG_TYPE_TRACING },
	{ "iter.s+", BPF_PROG_TYPE_TRACING },
	{ "syscall", BPF_PROG_TYPE_SYSCALL },
	{ "xdp.frags/devmap", BPF_PROG_TYPE_XDP },
	{ "xdp/devmap", BPF_PROG_TYPE_XDP },
	{ "xdp.frags/cpumap", BPF_PROG_TYPE_XDP },
	{ "xdp/cpumap", BPF_PROG_TYPE_XDP },
	{ "xdp.frags", BPF_PROG_TYPE_XDP },
	{ "xdp", BPF_PROG_TYPE_XDP },
	{ "perf_event", BPF_PROG_TYPE_PERF_EVENT },
	{ "lwt_in", BPF_PROG_TYPE_LWT_IN },
	{ "lwt_out", BPF_PROG_TYPE_LWT_OUT },
	{ "lwt_xmit", BPF_PROG_TYPE_LWT_XMIT },
	{ "lwt_seg6local", BPF_PROG_TYPE_LWT_SEG6LOCAL },
	{ "sockops", BPF_PROG_TYPE_SOCK_OPS },
	{ "sk_skb/stream_parser", BPF_PROG_TYPE_SK_SKB },
	{ "sk_skb/stream_verdict", BPF_PROG_TYPE_SK_SKB },
	{ "sk_skb", BPF_PROG_TYPE_SK_SKB },
	{ "sk_msg", BPF_PROG_TYPE_SK_MSG },
	{ "lirc_mode2", BPF_PROG_TYPE_LIRC_MODE2 },
	{ "flow_dissector", BPF_PROG_TYPE_FLOW_DISSECTOR },
	{ "cgroup_skb/ingress", BPF_PROG_TYPE_CGROUP_SKB },
	{ "cgroup_skb/egress", BPF_PROG_TYPE_CGROUP_SKB },
	{ "cgroup/skb", BPF_PROG_TYPE_CGROUP_SKB },
	{ "cgroup/sock_create", BPF_PROG_TYPE_CGROUP_SOCK },
	{ "cgroup/sock_release", BPF_PROG_TYPE_CGROUP_SOCK },
	{ "cgroup/sock", BPF_PROG_TYPE_CGROUP_SOCK },
	{ "cgroup/post_bind4", BPF_PROG_TYPE_CGROUP_SOCK },
	{ "cgroup/post_bind6", BPF_PROG_TYPE_CGROUP_SOCK },
	{ "cgroup/bind4", BPF_PROG_TYPE_CGROUP_SOCK_ADDR },
	{ "cgroup/bind6", BPF_PROG_TYPE_CGROUP_SOCK_ADDR },
	{ "cgroup/connect4", BPF_PROG_TYPE_CGROUP_SOCK_ADDR },
	{ "cgroup/connect6", BPF_PROG_TYPE_CGROUP_SOCK_ADDR },
	{ "cgroup/connect_unix", BPF_PROG_TYPE_CGROUP_SOCK_ADDR },
	{ "cgroup/sendmsg4", BPF_PROG_TYPE_CGROUP_SOCK_ADDR },
	{ "cgroup/sendmsg6", BPF_PROG_TYPE_CGROUP_SOCK_ADDR },
	{ "cgroup/sendmsg_unix", BPF_PROG_TYPE_CGROUP_SOCK_ADDR },
	{ "cgroup/recvmsg4", BPF_PROG_TYPE_CGROUP_SOCK_ADDR },
	{ "cgroup/recvmsg6", BPF_PROG_TYPE_CGROUP_SOCK_ADDR },
	{ "cgroup/recvmsg_unix", BPF_PROG_TYPE_CGROUP_SOCK_ADDR },
	{ "cgroup/getpeername4", BPF_PROG_TYPE_CGROUP_SOCK_ADDR },
	{ "cgroup/getpeername6", BPF_PROG_TYPE_CGROUP_SOCK_ADDR },
	{ "cgroup/getpeername_unix", BPF_PROG_TYPE_CGROUP_SOCK_ADDR },
	{ "cgroup/getsockname4", BPF_PROG_TYPE_CGROUP_SOCK_ADDR },
	{ "cgroup/getsockname6", BPF_PROG_TYPE_CGROUP_SOCK_ADDR },
	{ "cgroup/getsockname_unix", BPF_PROG_TYPE_CGROUP_SOCK_ADDR },
	{ "cgroup/sysctl", BPF_PROG_TYPE_CGROUP_SYSCTL },
	{ "cgroup/getsockopt", BPF_PROG_TYPE_CGROUP_SOCKOPT },
	{ "cgroup/setsockopt", BPF_PROG_TYPE_CGROUP_SOCKOPT },
	{ "cgroup/dev", BPF_PROG_TYPE_CGROUP_DEVICE },
	{ "struct_ops+", BPF_PROG_TYPE_STRUCT_OPS },
	{ "struct_ops.s+", BPF_PROG_TYPE_STRUCT_OPS },
	{ "sk_lookup", BPF_PROG_TYPE_SK_LOOKUP },
	{ "netfilter", KBPF_PROG_TYPE_NETFILTER },
};

static bool sec_def_matches(const char *pattern, const char *name)
{
	size_t len = strlen(pattern);

	if (pattern[len - 1] == '/')
		return !strncmp(name, pattern, len);
	if (pattern[len - 1] == '+') {
		len--;
		return !strncmp(name, pattern, len) && (name[len] == 0 || name[len] == '/');
	}
	return !strcmp(name, pattern);
}

uint32_t obj_prog_type_from_sec(const char *sec_name)
{
	for (size_t i = 0; i < sizeof(sec_defs) / sizeof(sec_defs[0]); i++)
		if (sec_def_matches(sec_defs[i].pattern, sec_name))
			return sec_defs[i].type;
	return BPF_PROG_TYPE_UNSPEC;
}

uint32_t kbpf_section_prog_type(const char *sec_name)
{
	if (!sec_name)
		return BPF_PROG_TYPE_UNSPEC;
	return obj_prog_type_from_sec(sec_name[0] == '?' ? sec_name + 1 : sec_name);
}

const char *kbpf_section_pattern(size_t idx, uint32_t *type)
{
	if (idx >= sizeof(sec_defs) / sizeof(sec_defs[0]))
		return NULL;
	if (type)
		*type = sec_defs[idx].type;
	return sec_defs[idx].pattern;
}
