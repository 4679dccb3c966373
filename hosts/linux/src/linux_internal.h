/* SPDX-License-Identifier: Apache-2.0 */
/* Shared between the files of kbpf_linux (hosts/linux/src). Only kbpf's public headers
 * are used here: this library is what any embedding application could write. */
#ifndef KBPF_LINUX_INTERNAL_H
#define KBPF_LINUX_INTERNAL_H

#include <stdbool.h>
#include <time.h>
#include <kbpf/linux.h>

/* A helper kbpf_linux registers: its Linux id and prototype (name filled in from
 * kbpf_helper_linux_name at registration). */
struct linux_helper {
	int32_t id;
	struct kbpf_helper_proto proto;
};
/* The table (helper_protos.c). */
extern const struct linux_helper kbpf_linux_helpers[];
extern const size_t kbpf_linux_nr_helpers;

/* A program type's helper set: Linux's get_func_proto switch, as lists of ids searched
 * in order (the type's own, then the sets it falls back to, e.g. bpf_base_func_proto).
 * helper_sets.c. */
struct linux_type_desc {
	const int32_t *const *sets; /* NULL-terminated; each list ends with -1 */
};
extern const struct linux_type_desc kbpf_linux_socket_filter_desc, kbpf_linux_tc_desc, kbpf_linux_xdp_desc,
	kbpf_linux_cg_skb_desc, kbpf_linux_syscall_desc, kbpf_linux_tracepoint_desc, kbpf_linux_raw_tp_desc,
	kbpf_linux_kprobe_desc;
/* The fallbacks other files' sets end with: bpf_base_func_proto, bpf_sk_base_func_proto. */
extern const int32_t kbpf_linux_base_set[], kbpf_linux_sk_base_set[];
/* bpf_tracing_func_proto's own cases, what every tracing type has. */
extern const int32_t kbpf_linux_tracing_set[];
const struct kbpf_helper_proto *kbpf_linux_get_func_proto(const struct kbpf_prog_type *type,
							  const struct kbpf_host *host, int32_t id);

/* Context access rules (skb_access.c, xdp_access.c, trace_access.c), Linux's
 * *_is_valid_access for each type. */
int kbpf_linux_sk_filter_access(const struct kbpf_prog_type *type, int off, int size,
				enum kbpf_access_type access, struct kbpf_ctx_access_info *info);
int kbpf_linux_tc_access(const struct kbpf_prog_type *type, int off, int size, enum kbpf_access_type access,
			 struct kbpf_ctx_access_info *info);
int kbpf_linux_cg_skb_access(const struct kbpf_prog_type *type, int off, int size,
			     enum kbpf_access_type access, struct kbpf_ctx_access_info *info);
int kbpf_linux_xdp_access(const struct kbpf_prog_type *type, int off, int size, enum kbpf_access_type access,
			  struct kbpf_ctx_access_info *info);
int kbpf_linux_syscall_access(const struct kbpf_prog_type *type, int off, int size,
			      enum kbpf_access_type access, struct kbpf_ctx_access_info *info);
int kbpf_linux_tracepoint_access(const struct kbpf_prog_type *type, int off, int size,
				 enum kbpf_access_type access, struct kbpf_ctx_access_info *info);
int kbpf_linux_raw_tp_access(const struct kbpf_prog_type *type, int off, int size,
			     enum kbpf_access_type access, struct kbpf_ctx_access_info *info);
int kbpf_linux_kprobe_access(const struct kbpf_prog_type *type, int off, int size,
			     enum kbpf_access_type access, struct kbpf_ctx_access_info *info);

/* LD_ABS / LD_IND's packet (skb_ld_abs.c), kbpf_prog_type.ld_abs: for a context seen
 * from its MAC header (tc) or from its network header (socket_filter, cgroup_skb). */
const void *kbpf_linux_skb_ld_abs_l2(const void *ctx, int32_t off, uint32_t size);
const void *kbpf_linux_skb_ld_abs_l3(const void *ctx, int32_t off, uint32_t size);

/* bpf_skb_is_valid_access, the rules every __sk_buff type shares, and the packet pointer
 * fields' typing and conversion (skb_access.c). */
int kbpf_linux_skb_access(int off, int size, enum kbpf_access_type access, struct kbpf_ctx_access_info *info);
int kbpf_linux_skb_packet_pointer(int off, uint32_t reg_type, struct kbpf_ctx_access_info *info);

/* Program types kept with their rules in a file of their own (prog_*.c), registered by
 * kbpf_linux_host_add after the ones of linux_host.c. */
int kbpf_linux_lwt_access(const struct kbpf_prog_type *type, int off, int size, enum kbpf_access_type access,
			  struct kbpf_ctx_access_info *info);
extern const struct kbpf_prog_type kbpf_linux_lwt_types[];
extern const size_t kbpf_linux_nr_lwt_types;
extern const struct kbpf_prog_type kbpf_linux_tracing_types[];
extern const size_t kbpf_linux_nr_tracing_types;
extern const struct kbpf_prog_type kbpf_linux_sk_skb_types[];
extern const size_t kbpf_linux_nr_sk_skb_types;
extern const struct kbpf_prog_type kbpf_linux_sk_lookup_types[];
extern const size_t kbpf_linux_nr_sk_lookup_types;
extern const struct kbpf_prog_type kbpf_linux_cgroup_sock_types[];
extern const size_t kbpf_linux_nr_cgroup_sock_types;
extern const struct kbpf_prog_type kbpf_linux_perf_event_types[];
extern const size_t kbpf_linux_nr_perf_event_types;
extern const struct kbpf_prog_type kbpf_linux_cgroup_sysctl_types[];
extern const size_t kbpf_linux_nr_cgroup_sysctl_types;
extern const struct kbpf_prog_type kbpf_linux_sock_ops_types[];
extern const size_t kbpf_linux_nr_sock_ops_types;
extern const struct kbpf_prog_type kbpf_linux_cgroup_device_types[];
extern const size_t kbpf_linux_nr_cgroup_device_types;
extern const struct kbpf_prog_type kbpf_linux_cgroup_sockopt_types[];
extern const size_t kbpf_linux_nr_cgroup_sockopt_types;
extern const struct kbpf_prog_type kbpf_linux_raw_tp_writable_types[];
extern const size_t kbpf_linux_nr_raw_tp_writable_types;
extern const struct kbpf_prog_type kbpf_linux_iter_types[];
extern const size_t kbpf_linux_nr_iter_types;

extern const struct kbpf_prog_type kbpf_linux_sk_reuseport_types[];
extern const size_t kbpf_linux_nr_sk_reuseport_types;

/* The id a type's own variant of Linux helper id runs as (kbpf_helper_proto.run_id),
 * where Linux gives one helper id different functions per type: above every Linux id. */
#define KBPF_LINUX_RUN_ID(id) (0x40000000 + (id))
/* A prototype-only helper whose calls must never run a helper another host registered
 * under Linux's id (the TCP host's bpf_getsockopt takes a socket of its own, not a
 * sock_ops context): it runs under a run id nobody registers, so a program calling it
 * verifies but does not load for running ("call to unknown helper"). */
#define KBPF_LINUX_NO_RUN(id) KBPF_LINUX_RUN_ID(id)
/* prog_sk_reuseport.c: the run-time helpers of sk_reuseport's skb_load_bytes and
 * get_socket_cookie. */
int kbpf_linux_add_reuseport_helpers(struct kbpf_host *host);
/* helpers_sk_storage.c: what the sk_storage protos' run_ids run. */
int kbpf_linux_add_sk_storage_helpers(struct kbpf_host *host);

/* Helper implementations (helpers_*.c, trace_printk.c), by the name of Linux's. */
#define KBPF_LINUX_HELPER(name) uint64_t kbpf_linux_##name(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5)
KBPF_LINUX_HELPER(ktime_get_ns);
KBPF_LINUX_HELPER(ktime_get_boot_ns);
KBPF_LINUX_HELPER(ktime_get_coarse_ns);
KBPF_LINUX_HELPER(ktime_get_tai_ns);
KBPF_LINUX_HELPER(jiffies64);
/* helpers_base.c: clock id's time in ns (0 if the clock cannot be read). */
uint64_t kbpf_linux_clock_ns(clockid_t id);
/* jiffies.c: the variable bpf_jiffies64 may be inlined into (its proto's inline_load)
 * while the ticker runs, else NULL. */
const volatile uint64_t *kbpf_linux_jiffies_var(void);
KBPF_LINUX_HELPER(per_cpu_ptr);
KBPF_LINUX_HELPER(kptr_xchg);
KBPF_LINUX_HELPER(this_cpu_ptr);
KBPF_LINUX_HELPER(get_prandom_u32);
KBPF_LINUX_HELPER(get_numa_node_id);
KBPF_LINUX_HELPER(strtol); /* helpers_strtox.c */
KBPF_LINUX_HELPER(strtoul);
KBPF_LINUX_HELPER(get_current_pid_tgid);
KBPF_LINUX_HELPER(get_current_uid_gid);
KBPF_LINUX_HELPER(spin_lock);
KBPF_LINUX_HELPER(sk_storage_get);
KBPF_LINUX_HELPER(sk_storage_delete);
KBPF_LINUX_HELPER(spin_unlock);
KBPF_LINUX_HELPER(probe_read);
KBPF_LINUX_HELPER(probe_read_str);
KBPF_LINUX_HELPER(trace_printk);
KBPF_LINUX_HELPER(csum_diff);
KBPF_LINUX_HELPER(l3_csum_replace);
KBPF_LINUX_HELPER(l4_csum_replace);
KBPF_LINUX_HELPER(csum_update);
KBPF_LINUX_HELPER(skb_load_bytes);
KBPF_LINUX_HELPER(skb_store_bytes);
KBPF_LINUX_HELPER(get_hash_recalc);
KBPF_LINUX_HELPER(get_cgroup_classid);
KBPF_LINUX_HELPER(skb_vlan_push);
KBPF_LINUX_HELPER(skb_vlan_pop);
KBPF_LINUX_HELPER(skb_change_head);
KBPF_LINUX_HELPER(sk_lookup);
KBPF_LINUX_HELPER(sk_release);
KBPF_LINUX_HELPER(sk_cast);
KBPF_LINUX_HELPER(sk_fullsock);
KBPF_LINUX_HELPER(sk_select_reuseport); /* prog_sk_reuseport.c */
KBPF_LINUX_HELPER(skc_to_tcp_sock);     /* helpers_sock_cast.c */
KBPF_LINUX_HELPER(skc_to_tcp6_sock);
KBPF_LINUX_HELPER(skc_to_tcp_timewait_sock);
KBPF_LINUX_HELPER(skc_to_tcp_request_sock);
KBPF_LINUX_HELPER(skc_to_udp6_sock);
KBPF_LINUX_HELPER(skc_to_unix_sock);
KBPF_LINUX_HELPER(skc_to_mptcp_sock);
KBPF_LINUX_HELPER(fib_lookup); /* helpers_fib.c */
KBPF_LINUX_HELPER(get_socket_cookie);
KBPF_LINUX_HELPER(get_socket_uid);
KBPF_LINUX_HELPER(get_netns_cookie);
KBPF_LINUX_HELPER(xdp_adjust_head);
KBPF_LINUX_HELPER(xdp_adjust_tail);
KBPF_LINUX_HELPER(xdp_adjust_meta);
KBPF_LINUX_HELPER(xdp_get_buff_len);
KBPF_LINUX_HELPER(xdp_load_bytes);
KBPF_LINUX_HELPER(xdp_store_bytes);
KBPF_LINUX_HELPER(loop);
/* helpers_d_path.c: bpf_d_path and Linux's bpf_d_path_allowed (a kbpf_helper_proto.allowed) */
KBPF_LINUX_HELPER(d_path);
bool kbpf_linux_d_path_allowed(const struct kbpf_host *host, const struct kbpf_prog_type *type,
			       uint32_t attach_btf_id);
/* helpers_stack.c: the host's native stack at the call */
KBPF_LINUX_HELPER(get_stackid);
KBPF_LINUX_HELPER(get_stack);
KBPF_LINUX_HELPER(for_each_map_elem);
/* helpers_timer.c */
KBPF_LINUX_HELPER(timer_init);
KBPF_LINUX_HELPER(timer_set_callback);
KBPF_LINUX_HELPER(timer_start);
KBPF_LINUX_HELPER(timer_cancel);
/* helpers_perf.c: bpf_perf_event_output for most types, Linux's bpf_skb_event_output and
 * bpf_xdp_event_output (run as helpers 111 and 121, which
 * kbpf_linux_add_event_output_helpers registers), and the proto a type sees for id 25. */
KBPF_LINUX_HELPER(perf_event_output);
KBPF_LINUX_HELPER(skb_event_output);
KBPF_LINUX_HELPER(xdp_event_output);
int kbpf_linux_add_event_output_helpers(struct kbpf_host *host);
const struct kbpf_helper_proto *kbpf_linux_event_output_proto(const struct kbpf_prog_type *type,
							      const struct kbpf_host *host);

#define LINUX_UNUSED5(a, b, c, d, e) ((void)(a), (void)(b), (void)(c), (void)(d), (void)(e))

#endif
