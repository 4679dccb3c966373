/* SPDX-License-Identifier: Apache-2.0 */
/* kbpf_linux_host_add: Linux's program types (6.1's, and 6.12's flow_dissector and
 * netfilter) and helpers, registered through the public host API exactly as any
 * embedding application would register its own. */
#include <errno.h>
#include <kbpf/isa.h>
#include "linux_internal.h"

/* Linux 6.6's tcx return codes (uapi enum tcx_action_base, which came with BPF_F_BEFORE):
 * sched_cls programs built against a host's BTF (vmlinux.h) return them, as 6.12's
 * selftests do (`return TCX_PASS;`). The variable keeps the type in the debug info, so in
 * the BTF of every host that registers these types. */
#ifndef BPF_F_BEFORE
enum tcx_action_base {
	TCX_NEXT = -1,
	TCX_PASS = 0,
	TCX_DROP = 2,
	TCX_REDIRECT = 7,
};
#endif
static const enum tcx_action_base tcx_action_btf __attribute__((used)) = TCX_NEXT;

#define NET_ADMIN (KBPF_CAP_BPF | KBPF_CAP_NET_ADMIN) /* Linux: is_net_admin_prog_type */
#define PERFMON (KBPF_CAP_BPF | KBPF_CAP_PERFMON)     /* Linux: is_perfmon_prog_type */
#define SKB_CTX_SIZE (offsetof(struct __sk_buff, hwtstamp) + 8)

static const struct kbpf_prog_type linux_types[] = {
	/* Loadable without privileges (Linux: all other types need CAP_BPF). */
	{ .sz = sizeof(struct kbpf_prog_type), .name = "socket_filter", .linux_type = BPF_PROG_TYPE_SOCKET_FILTER,
	  .ctx_size = SKB_CTX_SIZE, .ctx_btf_name = "__sk_buff", .kern_ctx_btf_name = "kbpf_linux_skb", .is_valid_access = kbpf_linux_sk_filter_access,
	  .get_func_proto = kbpf_linux_get_func_proto, .priv = (void *)&kbpf_linux_socket_filter_desc,
	  .ld_abs = kbpf_linux_skb_ld_abs_l3 },
	/* Linux's return range for ingress ([0, 3] on egress, an attach type kbpf lacks). */
	{ .sz = sizeof(struct kbpf_prog_type), .name = "cgroup_skb", .linux_type = BPF_PROG_TYPE_CGROUP_SKB,
	  .ctx_size = SKB_CTX_SIZE, .ctx_btf_name = "__sk_buff", .kern_ctx_btf_name = "kbpf_linux_skb", .is_valid_access = kbpf_linux_cg_skb_access,
	  .get_func_proto = kbpf_linux_get_func_proto, .has_ret_range = 1, .ret_min = 0, .ret_max = 1,
	  .direct_packet_access = KBPF_PKT_ACCESS_RDONLY, .priv = (void *)&kbpf_linux_cg_skb_desc,
	  /* unused while the verifier refuses LD_ABS here, as Linux's does */
	  .ld_abs = kbpf_linux_skb_ld_abs_l3 },
	{ .sz = sizeof(struct kbpf_prog_type), .name = "sched_cls", .linux_type = BPF_PROG_TYPE_SCHED_CLS,
	  .ctx_size = SKB_CTX_SIZE, .ctx_btf_name = "__sk_buff", .kern_ctx_btf_name = "kbpf_linux_skb", .is_valid_access = kbpf_linux_tc_access,
	  .get_func_proto = kbpf_linux_get_func_proto, .direct_packet_access = KBPF_PKT_ACCESS_RW,
	  .priv = (void *)&kbpf_linux_tc_desc, .load_caps = NET_ADMIN, .ld_abs = kbpf_linux_skb_ld_abs_l2 },
	{ .sz = sizeof(struct kbpf_prog_type), .name = "sched_act", .linux_type = BPF_PROG_TYPE_SCHED_ACT,
	  .ctx_size = SKB_CTX_SIZE, .ctx_btf_name = "__sk_buff", .kern_ctx_btf_name = "kbpf_linux_skb", .is_valid_access = kbpf_linux_tc_access,
	  .get_func_proto = kbpf_linux_get_func_proto, .direct_packet_access = KBPF_PKT_ACCESS_RW,
	  .priv = (void *)&kbpf_linux_tc_desc, .load_caps = NET_ADMIN, .ld_abs = kbpf_linux_skb_ld_abs_l2 },
	{ .sz = sizeof(struct kbpf_prog_type), .name = "xdp", .linux_type = BPF_PROG_TYPE_XDP,
	  .ctx_size = sizeof(struct xdp_md), .ctx_btf_name = "xdp_md", .kern_ctx_btf_name = "kbpf_linux_xdp", .is_valid_access = kbpf_linux_xdp_access,
	  .get_func_proto = kbpf_linux_get_func_proto, .direct_packet_access = KBPF_PKT_ACCESS_RW,
	  .priv = (void *)&kbpf_linux_xdp_desc, .load_caps = NET_ADMIN },
	{ .sz = sizeof(struct kbpf_prog_type), .name = "syscall", .linux_type = BPF_PROG_TYPE_SYSCALL,
	  .ctx_size = KBPF_LINUX_SYSCALL_CTX_SIZE, .is_valid_access = kbpf_linux_syscall_access,
	  .get_func_proto = kbpf_linux_get_func_proto, .priv = (void *)&kbpf_linux_syscall_desc,
	  .load_caps = KBPF_CAP_BPF },
	{ .sz = sizeof(struct kbpf_prog_type), .name = "tracepoint", .linux_type = BPF_PROG_TYPE_TRACEPOINT,
	  .ctx_size = KBPF_LINUX_TRACEPOINT_CTX_SIZE, .is_valid_access = kbpf_linux_tracepoint_access,
	  .get_func_proto = kbpf_linux_get_func_proto, .priv = (void *)&kbpf_linux_tracepoint_desc,
	  .load_caps = PERFMON },
	{ .sz = sizeof(struct kbpf_prog_type), .name = "raw_tracepoint", .linux_type = BPF_PROG_TYPE_RAW_TRACEPOINT,
	  .ctx_size = KBPF_LINUX_RAW_TP_CTX_SIZE, .ctx_btf_name = "bpf_raw_tracepoint_args",
	  .is_valid_access = kbpf_linux_raw_tp_access, .get_func_proto = kbpf_linux_get_func_proto,
	  .priv = (void *)&kbpf_linux_raw_tp_desc, .load_caps = PERFMON },
	{ .sz = sizeof(struct kbpf_prog_type), .name = "kprobe", .linux_type = BPF_PROG_TYPE_KPROBE,
	  .ctx_size = KBPF_LINUX_PT_REGS_SIZE, .ctx_btf_name = "bpf_user_pt_regs_t",
	  .is_valid_access = kbpf_linux_kprobe_access, .get_func_proto = kbpf_linux_get_func_proto,
	  .priv = (void *)&kbpf_linux_kprobe_desc, .load_caps = PERFMON },
};

static int add_helpers(struct kbpf_host *host)
{
	/* The map and ringbuf helpers are the core library's; a host may have added them. */
	if (!kbpf_host_helper_proto(host, BPF_FUNC_map_lookup_elem)) {
		int ret = kbpf_host_add_map_helpers(host);
		if (ret)
			return ret;
	}
	for (size_t i = 0; i < kbpf_linux_nr_helpers; i++) {
		const struct linux_helper *h = &kbpf_linux_helpers[i];
		/* A prototype the host registered first wins (its own variant of a helper). */
		if (kbpf_host_helper_proto(host, h->id))
			continue;
		struct kbpf_helper_proto p = h->proto;
		p.name = kbpf_helper_linux_name(h->id);
		if (!p.name)
			return -EINVAL; /* an id missing from the names table: a bug here */
		/* The host's own implementation runs; Linux's prototype describes it. */
		if (kbpf_host_helper_find(host, h->id, NULL))
			p.fn = NULL;
		else if (h->id == BPF_FUNC_jiffies64)
			p.inline_load = kbpf_linux_jiffies_var(); /* NULL unless the ticker runs */
		int ret = kbpf_host_helper_register_proto(host, h->id, &p);
		if (ret)
			return ret;
	}
	/* what sk_reuseport's own skb_load_bytes and get_socket_cookie run as */
	int ret = kbpf_linux_add_reuseport_helpers(host);
	if (ret)
		return ret;
	/* what flow_dissector's own skb_load_bytes runs as */
	if ((ret = kbpf_linux_add_flow_dissector_helpers(host)))
		return ret;
	/* what bpf_sk_storage_get/delete run as (unless a host's own proto won above) */
	if ((ret = kbpf_linux_add_sk_storage_helpers(host)))
		return ret;
	/* what helper 25 runs as for the __sk_buff and xdp types (helpers_perf.c) */
	return kbpf_linux_add_event_output_helpers(host);
}

int kbpf_linux_host_add(struct kbpf_host *host)
{
	if (!host)
		return -EINVAL;
	int ret = add_helpers(host);
	if (ret)
		return ret;
	for (size_t i = 0; i < sizeof(linux_types) / sizeof(linux_types[0]); i++) {
		ret = kbpf_host_prog_type_register(host, &linux_types[i]);
		if (ret)
			return ret;
	}
	static const struct {
		const struct kbpf_prog_type *types;
		const size_t *nr;
	} groups[] = {
		{ kbpf_linux_lwt_types, &kbpf_linux_nr_lwt_types },
		{ kbpf_linux_tracing_types, &kbpf_linux_nr_tracing_types },
		{ kbpf_linux_sk_skb_types, &kbpf_linux_nr_sk_skb_types },
		{ kbpf_linux_sk_lookup_types, &kbpf_linux_nr_sk_lookup_types },
		{ kbpf_linux_cgroup_sock_types, &kbpf_linux_nr_cgroup_sock_types },
		{ kbpf_linux_perf_event_types, &kbpf_linux_nr_perf_event_types },
		{ kbpf_linux_cgroup_sysctl_types, &kbpf_linux_nr_cgroup_sysctl_types },
		{ kbpf_linux_sock_ops_types, &kbpf_linux_nr_sock_ops_types },
		{ kbpf_linux_cgroup_device_types, &kbpf_linux_nr_cgroup_device_types },
		{ kbpf_linux_cgroup_sockopt_types, &kbpf_linux_nr_cgroup_sockopt_types },
		{ kbpf_linux_raw_tp_writable_types, &kbpf_linux_nr_raw_tp_writable_types },
		{ kbpf_linux_iter_types, &kbpf_linux_nr_iter_types },
		{ kbpf_linux_sk_reuseport_types, &kbpf_linux_nr_sk_reuseport_types },
		{ kbpf_linux_flow_dissector_types, &kbpf_linux_nr_flow_dissector_types },
		{ kbpf_linux_netfilter_types, &kbpf_linux_nr_netfilter_types },
	};
	for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++)
		for (size_t i = 0; i < *groups[g].nr; i++) {
			ret = kbpf_host_prog_type_register(host, &groups[g].types[i]);
			if (ret)
				return ret;
		}
	return 0;
}
