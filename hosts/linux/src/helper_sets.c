/* SPDX-License-Identifier: Apache-2.0 */
/* Which helpers each Linux program type may call: Linux 6.1's *_func_proto switches
 * (net/core/filter.c, kernel/trace/bpf_trace.c, kernel/bpf/helpers.c, syscall.c) as id
 * lists, each type's own first, then what its switch falls back to. A listed id is
 * available only if the host registered a prototype for it (kbpf_linux_host_add does
 * for the ones kbpf models); the prototype's caps carry bpf_base_func_proto's
 * capability tiers, so an unprivileged loader sees what Linux's would. */
#include "linux_internal.h"

#define END -1
#define ID(x) BPF_FUNC_##x

const int32_t kbpf_linux_base_set[] = {
	/* unprivileged */
	ID(map_lookup_elem), ID(map_update_elem), ID(map_delete_elem), ID(map_push_elem), ID(map_pop_elem),
	ID(map_peek_elem), ID(map_lookup_percpu_elem), ID(get_prandom_u32), ID(get_smp_processor_id),
	ID(get_numa_node_id), ID(tail_call), ID(ktime_get_ns), ID(ktime_get_boot_ns), ID(ktime_get_tai_ns),
	ID(ringbuf_output), ID(ringbuf_reserve), ID(ringbuf_submit), ID(ringbuf_discard), ID(ringbuf_query),
	ID(strncmp), ID(strtol), ID(strtoul),
	/* CAP_BPF */
	ID(spin_lock), ID(spin_unlock), ID(jiffies64), ID(per_cpu_ptr), ID(this_cpu_ptr), ID(timer_init),
	ID(timer_set_callback), ID(timer_start), ID(timer_cancel), ID(kptr_xchg), ID(for_each_map_elem),
	ID(loop), ID(user_ringbuf_drain), ID(ringbuf_reserve_dynptr), ID(ringbuf_submit_dynptr),
	ID(ringbuf_discard_dynptr), ID(dynptr_from_mem), ID(dynptr_read), ID(dynptr_write), ID(dynptr_data),
	/* CAP_PERFMON */
	ID(trace_printk), ID(get_current_task), ID(get_current_task_btf), ID(probe_read_user),
	ID(probe_read_kernel), ID(probe_read_user_str), ID(probe_read_kernel_str), ID(snprintf_btf),
	ID(snprintf), ID(task_pt_regs), ID(trace_vprintk), END
};

/* bpf_sk_base_func_proto's own cases (the skc_to_* casts need CAP_PERFMON: their
 * prototypes' caps). */
const int32_t kbpf_linux_sk_base_set[] = {
	ID(skc_to_tcp6_sock), ID(skc_to_tcp_sock), ID(skc_to_tcp_timewait_sock), ID(skc_to_tcp_request_sock),
	ID(skc_to_udp6_sock), ID(skc_to_unix_sock), ID(skc_to_mptcp_sock), ID(ktime_get_coarse_ns), END
};

static const int32_t sk_filter_set[] = {
	ID(skb_load_bytes), ID(skb_load_bytes_relative), ID(get_socket_cookie), ID(get_socket_uid),
	ID(perf_event_output), END
};

static const int32_t tc_set[] = {
	ID(skb_store_bytes), ID(skb_load_bytes), ID(skb_load_bytes_relative), ID(skb_pull_data), ID(csum_diff),
	ID(csum_update), ID(csum_level), ID(l3_csum_replace), ID(l4_csum_replace), ID(clone_redirect),
	ID(get_cgroup_classid), ID(skb_vlan_push), ID(skb_vlan_pop), ID(skb_change_proto), ID(skb_change_type),
	ID(skb_adjust_room), ID(skb_change_tail), ID(skb_change_head), ID(skb_get_tunnel_key),
	ID(skb_set_tunnel_key), ID(skb_get_tunnel_opt), ID(skb_set_tunnel_opt), ID(redirect),
	ID(redirect_neigh), ID(redirect_peer), ID(get_route_realm), ID(get_hash_recalc), ID(set_hash_invalid),
	ID(set_hash), ID(perf_event_output), ID(get_smp_processor_id), ID(skb_under_cgroup),
	ID(get_socket_cookie), ID(get_socket_uid), ID(fib_lookup), ID(check_mtu), ID(sk_fullsock),
	ID(sk_storage_get), ID(sk_storage_delete), ID(skb_get_xfrm_state), ID(skb_cgroup_classid),
	ID(skb_cgroup_id), ID(skb_ancestor_cgroup_id), ID(sk_lookup_tcp), ID(sk_lookup_udp), ID(sk_release),
	ID(tcp_sock), ID(get_listener_sock), ID(skc_lookup_tcp), ID(tcp_check_syncookie), ID(skb_ecn_set_ce),
	ID(tcp_gen_syncookie), ID(sk_assign), ID(skb_set_tstamp), ID(tcp_raw_gen_syncookie_ipv4),
	ID(tcp_raw_gen_syncookie_ipv6), ID(tcp_raw_check_syncookie_ipv4), ID(tcp_raw_check_syncookie_ipv6), END
};

static const int32_t xdp_set[] = {
	ID(perf_event_output), ID(get_smp_processor_id), ID(csum_diff), ID(xdp_adjust_head), ID(xdp_adjust_meta),
	ID(redirect), ID(redirect_map), ID(xdp_adjust_tail), ID(xdp_get_buff_len), ID(xdp_load_bytes),
	ID(xdp_store_bytes), ID(fib_lookup), ID(check_mtu), ID(sk_lookup_udp), ID(sk_lookup_tcp),
	ID(sk_release), ID(skc_lookup_tcp), ID(tcp_check_syncookie), ID(tcp_gen_syncookie),
	ID(tcp_raw_gen_syncookie_ipv4), ID(tcp_raw_gen_syncookie_ipv6), ID(tcp_raw_check_syncookie_ipv4),
	ID(tcp_raw_check_syncookie_ipv6), END
};

/* cg_skb_func_proto (of cgroup_common_func_proto's, the storage; the retval helpers are
 * not modelled), falling back to sk_filter_func_proto. */
static const int32_t cg_skb_set[] = {
	ID(get_local_storage), ID(sk_fullsock), ID(sk_storage_get), ID(sk_storage_delete), ID(perf_event_output),
	ID(skb_cgroup_id),
	ID(skb_ancestor_cgroup_id), ID(sk_cgroup_id), ID(sk_ancestor_cgroup_id), ID(sk_lookup_tcp),
	ID(sk_lookup_udp), ID(sk_release), ID(skc_lookup_tcp), ID(tcp_sock), ID(get_listener_sock),
	ID(skb_ecn_set_ce), END
};

/* bpf_tracing_func_proto: the helpers of every tracing type (no capability checks, as
 * loading a tracing type already needs CAP_BPF and CAP_PERFMON). */
const int32_t kbpf_linux_tracing_set[] = {
	ID(map_lookup_elem), ID(map_update_elem), ID(map_delete_elem), ID(map_push_elem), ID(map_pop_elem),
	ID(map_peek_elem), ID(map_lookup_percpu_elem), ID(ktime_get_ns), ID(ktime_get_boot_ns), ID(tail_call),
	ID(get_current_pid_tgid), ID(get_current_task), ID(get_current_task_btf), ID(task_pt_regs),
	ID(get_current_uid_gid), ID(get_current_comm), ID(trace_printk), ID(get_smp_processor_id),
	ID(get_numa_node_id), ID(perf_event_read), ID(current_task_under_cgroup), ID(get_prandom_u32),
	ID(probe_write_user), ID(probe_read_user), ID(probe_read_kernel), ID(probe_read_user_str),
	ID(probe_read_kernel_str), ID(probe_read), ID(probe_read_str), ID(get_current_cgroup_id),
	ID(get_current_ancestor_cgroup_id), ID(send_signal), ID(send_signal_thread), ID(perf_event_read_value),
	ID(get_ns_current_pid_tgid), ID(ringbuf_output), ID(ringbuf_reserve), ID(ringbuf_submit),
	ID(ringbuf_discard), ID(ringbuf_query), ID(jiffies64), ID(get_task_stack), ID(copy_from_user),
	ID(copy_from_user_task), ID(snprintf_btf), ID(per_cpu_ptr), ID(this_cpu_ptr), ID(task_storage_get),
	ID(task_storage_delete), ID(for_each_map_elem), ID(snprintf), ID(get_func_ip), ID(get_branch_snapshot),
	ID(find_vma), ID(trace_vprintk), END
};

static const int32_t kprobe_set[] = {
	ID(perf_event_output), ID(get_stackid), ID(get_stack), ID(override_return), ID(get_func_ip),
	ID(get_attach_cookie), END
};
static const int32_t tp_set[] = {
	ID(perf_event_output), ID(get_stackid), ID(get_stack), ID(get_attach_cookie), END
};
static const int32_t raw_tp_set[] = { ID(perf_event_output), ID(get_stackid), ID(get_stack), END };
/* syscall_prog_func_proto, then tracing_prog_func_proto (its socket-pointer variants
 * of get_socket_cookie and xdp_get_buff_len take kernel BTF types: not listed), then
 * raw_tp_prog_func_proto. sys_bpf needs CAP_PERFMON in Linux; none of these four is
 * registered by kbpf_linux yet. */
static const int32_t syscall_set[] = {
	ID(sys_bpf), ID(btf_find_by_name_kind), ID(sys_close), ID(kallsyms_lookup_name), ID(skb_output),
	ID(xdp_output), ID(sk_storage_get), ID(sk_storage_delete), ID(sock_from_file), ID(d_path), END
};

#define SETS(...) ((const int32_t *const[]){ __VA_ARGS__, NULL })
#define SK_SETS kbpf_linux_sk_base_set, kbpf_linux_base_set
const struct linux_type_desc kbpf_linux_socket_filter_desc = { SETS(sk_filter_set, SK_SETS) };
const struct linux_type_desc kbpf_linux_tc_desc = { SETS(tc_set, SK_SETS) };
const struct linux_type_desc kbpf_linux_xdp_desc = { SETS(xdp_set, SK_SETS) };
const struct linux_type_desc kbpf_linux_cg_skb_desc = { SETS(cg_skb_set, sk_filter_set, SK_SETS) };
#define TRACING_SETS kbpf_linux_tracing_set, kbpf_linux_base_set
const struct linux_type_desc kbpf_linux_kprobe_desc = { SETS(kprobe_set, TRACING_SETS) };
const struct linux_type_desc kbpf_linux_tracepoint_desc = { SETS(tp_set, TRACING_SETS) };
const struct linux_type_desc kbpf_linux_raw_tp_desc = { SETS(raw_tp_set, TRACING_SETS) };
const struct linux_type_desc kbpf_linux_syscall_desc = { SETS(syscall_set, raw_tp_set, TRACING_SETS) };

static bool set_has(const int32_t *set, int32_t id)
{
	for (; *set != END; set++)
		if (*set == id)
			return true;
	return false;
}

const struct kbpf_helper_proto *kbpf_linux_get_func_proto(const struct kbpf_prog_type *type,
							  const struct kbpf_host *host, int32_t id)
{
	const struct linux_type_desc *d = type ? type->priv : NULL;
	if (!d)
		return NULL;
	for (const int32_t *const *s = d->sets; *s; s++)
		if (set_has(*s, id))
			return id == BPF_FUNC_perf_event_output ? kbpf_linux_event_output_proto(type, host)
								: kbpf_host_helper_proto(host, id);
	return NULL;
}
