/* SPDX-License-Identifier: Apache-2.0 */
/* Program type from the SEC() name, by libbpf's table and matching rules
 * (Documentation/bpf/libbpf/program_types.rst):
 *   "type"   matches exactly;
 *   "type+"  matches "type" or "type/anything";
 *   "type/"  matches "type/anything" only.
 * A sleepable section (libbpf's SEC_SLEEPABLE: the ".s" forms, and "syscall") loads its
 * program with BPF_F_SLEEPABLE added to the program's flags, as libbpf_prepare_prog_load
 * does (kbpf_program_flags does not show it, as bpf_program__flags does not). */
#include <stdbool.h>
#include <string.h>
#include <linux/bpf.h>
#include "loader/loader_internal.h"

struct sec_def {
	const char *pattern;
	uint32_t type;
	bool sleepable; /* libbpf's SEC_SLEEPABLE: loaded with BPF_F_SLEEPABLE */
};

/* Linux 6.1's uapi lacks the newest types; their numbers are stable ABI. */
#define KBPF_PROG_TYPE_NETFILTER 32

/* First match wins: longer, more specific names come before their prefixes. */
static const struct sec_def sec_defs[] = {
	{ "socket", BPF_PROG_TYPE_SOCKET_FILTER, false },
	{ "sk_reuseport/migrate", BPF_PROG_TYPE_SK_REUSEPORT, false },
	{ "sk_reuseport", BPF_PROG_TYPE_SK_REUSEPORT, false },
	{ "kprobe+", BPF_PROG_TYPE_KPROBE, false },
	{ "uprobe+", BPF_PROG_TYPE_KPROBE, false },
	{ "uprobe.s+", BPF_PROG_TYPE_KPROBE, true },
	{ "kretprobe+", BPF_PROG_TYPE_KPROBE, false },
	{ "uretprobe+", BPF_PROG_TYPE_KPROBE, false },
	{ "uretprobe.s+", BPF_PROG_TYPE_KPROBE, true },
	{ "kprobe.multi+", BPF_PROG_TYPE_KPROBE, false },
	{ "kretprobe.multi+", BPF_PROG_TYPE_KPROBE, false },
	{ "uprobe.multi+", BPF_PROG_TYPE_KPROBE, false },
	{ "uretprobe.multi+", BPF_PROG_TYPE_KPROBE, false },
	{ "uprobe.multi.s+", BPF_PROG_TYPE_KPROBE, true },
	{ "uretprobe.multi.s+", BPF_PROG_TYPE_KPROBE, true },
	{ "ksyscall+", BPF_PROG_TYPE_KPROBE, false },
	{ "kretsyscall+", BPF_PROG_TYPE_KPROBE, false },
	{ "usdt+", BPF_PROG_TYPE_KPROBE, false },
	{ "usdt.s+", BPF_PROG_TYPE_KPROBE, true },
	{ "tc/ingress", BPF_PROG_TYPE_SCHED_CLS, false },
	{ "tc/egress", BPF_PROG_TYPE_SCHED_CLS, false },
	{ "tcx/ingress", BPF_PROG_TYPE_SCHED_CLS, false },
	{ "tcx/egress", BPF_PROG_TYPE_SCHED_CLS, false },
	{ "tc", BPF_PROG_TYPE_SCHED_CLS, false },
	{ "classifier", BPF_PROG_TYPE_SCHED_CLS, false },
	{ "action", BPF_PROG_TYPE_SCHED_ACT, false },
	{ "netkit/primary", BPF_PROG_TYPE_SCHED_CLS, false },
	{ "netkit/peer", BPF_PROG_TYPE_SCHED_CLS, false },
	{ "tracepoint+", BPF_PROG_TYPE_TRACEPOINT, false },
	{ "tp+", BPF_PROG_TYPE_TRACEPOINT, false },
	{ "raw_tracepoint+", BPF_PROG_TYPE_RAW_TRACEPOINT, false },
	{ "raw_tp+", BPF_PROG_TYPE_RAW_TRACEPOINT, false },
	{ "raw_tracepoint.w+", BPF_PROG_TYPE_RAW_TRACEPOINT_WRITABLE, false },
	{ "raw_tp.w+", BPF_PROG_TYPE_RAW_TRACEPOINT_WRITABLE, false },
	{ "tp_btf+", BPF_PROG_TYPE_TRACING, false },
	{ "fentry+", BPF_PROG_TYPE_TRACING, false },
	{ "fmod_ret+", BPF_PROG_TYPE_TRACING, false },
	{ "fexit+", BPF_PROG_TYPE_TRACING, false },
	{ "fentry.s+", BPF_PROG_TYPE_TRACING, true },
	{ "fmod_ret.s+", BPF_PROG_TYPE_TRACING, true },
	{ "fexit.s+", BPF_PROG_TYPE_TRACING, true },
	{ "freplace+", BPF_PROG_TYPE_EXT, false },
	{ "lsm+", BPF_PROG_TYPE_LSM, false },
	{ "lsm.s+", BPF_PROG_TYPE_LSM, true },
	{ "lsm_cgroup+", BPF_PROG_TYPE_LSM, false },
	{ "iter+", BPF_PROG_TYPE_TRACING, false },
	{ "iter.s+", BPF_PROG_TYPE_TRACING, true },
	{ "syscall", BPF_PROG_TYPE_SYSCALL, true },
	{ "xdp.frags/devmap", BPF_PROG_TYPE_XDP, false },
	{ "xdp/devmap", BPF_PROG_TYPE_XDP, false },
	{ "xdp.frags/cpumap", BPF_PROG_TYPE_XDP, false },
	{ "xdp/cpumap", BPF_PROG_TYPE_XDP, false },
	{ "xdp.frags", BPF_PROG_TYPE_XDP, false },
	{ "xdp", BPF_PROG_TYPE_XDP, false },
	{ "perf_event", BPF_PROG_TYPE_PERF_EVENT, false },
	{ "lwt_in", BPF_PROG_TYPE_LWT_IN, false },
	{ "lwt_out", BPF_PROG_TYPE_LWT_OUT, false },
	{ "lwt_xmit", BPF_PROG_TYPE_LWT_XMIT, false },
	{ "lwt_seg6local", BPF_PROG_TYPE_LWT_SEG6LOCAL, false },
	{ "sockops", BPF_PROG_TYPE_SOCK_OPS, false },
	{ "sk_skb/stream_parser", BPF_PROG_TYPE_SK_SKB, false },
	{ "sk_skb/stream_verdict", BPF_PROG_TYPE_SK_SKB, false },
	{ "sk_skb", BPF_PROG_TYPE_SK_SKB, false },
	{ "sk_msg", BPF_PROG_TYPE_SK_MSG, false },
	{ "lirc_mode2", BPF_PROG_TYPE_LIRC_MODE2, false },
	{ "flow_dissector", BPF_PROG_TYPE_FLOW_DISSECTOR, false },
	{ "cgroup_skb/ingress", BPF_PROG_TYPE_CGROUP_SKB, false },
	{ "cgroup_skb/egress", BPF_PROG_TYPE_CGROUP_SKB, false },
	{ "cgroup/skb", BPF_PROG_TYPE_CGROUP_SKB, false },
	{ "cgroup/sock_create", BPF_PROG_TYPE_CGROUP_SOCK, false },
	{ "cgroup/sock_release", BPF_PROG_TYPE_CGROUP_SOCK, false },
	{ "cgroup/sock", BPF_PROG_TYPE_CGROUP_SOCK, false },
	{ "cgroup/post_bind4", BPF_PROG_TYPE_CGROUP_SOCK, false },
	{ "cgroup/post_bind6", BPF_PROG_TYPE_CGROUP_SOCK, false },
	{ "cgroup/bind4", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, false },
	{ "cgroup/bind6", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, false },
	{ "cgroup/connect4", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, false },
	{ "cgroup/connect6", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, false },
	{ "cgroup/connect_unix", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, false },
	{ "cgroup/sendmsg4", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, false },
	{ "cgroup/sendmsg6", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, false },
	{ "cgroup/sendmsg_unix", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, false },
	{ "cgroup/recvmsg4", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, false },
	{ "cgroup/recvmsg6", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, false },
	{ "cgroup/recvmsg_unix", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, false },
	{ "cgroup/getpeername4", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, false },
	{ "cgroup/getpeername6", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, false },
	{ "cgroup/getpeername_unix", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, false },
	{ "cgroup/getsockname4", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, false },
	{ "cgroup/getsockname6", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, false },
	{ "cgroup/getsockname_unix", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, false },
	{ "cgroup/sysctl", BPF_PROG_TYPE_CGROUP_SYSCTL, false },
	{ "cgroup/getsockopt", BPF_PROG_TYPE_CGROUP_SOCKOPT, false },
	{ "cgroup/setsockopt", BPF_PROG_TYPE_CGROUP_SOCKOPT, false },
	{ "cgroup/dev", BPF_PROG_TYPE_CGROUP_DEVICE, false },
	{ "struct_ops+", BPF_PROG_TYPE_STRUCT_OPS, false },
	{ "struct_ops.s+", BPF_PROG_TYPE_STRUCT_OPS, true },
	{ "sk_lookup", BPF_PROG_TYPE_SK_LOOKUP, false },
	{ "netfilter", KBPF_PROG_TYPE_NETFILTER, false },
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

bool obj_sec_sleepable(const char *sec_name)
{
	if (sec_name[0] == '?')
		sec_name++;
	for (size_t i = 0; i < sizeof(sec_defs) / sizeof(sec_defs[0]); i++)
		if (sec_def_matches(sec_defs[i].pattern, sec_name))
			return sec_defs[i].sleepable;
	return false;
}

int kbpf_section_sleepable(const char *sec_name)
{
	return sec_name && obj_sec_sleepable(sec_name);
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
