/* SPDX-License-Identifier: Apache-2.0 */
/* Linux 6.1's helper prototypes (kernel/bpf/helpers.c, kernel/trace/bpf_trace.c,
 * net/core/filter.c, kernel/bpf/stackmap.c), by Linux id. fn is set where kbpf can do
 * what Linux does inside a process; NULL means prototype only: the verifier accepts the
 * call, loading for running says the helper is unknown (tail_call is NULL on purpose:
 * the interpreter and JIT do tail calls themselves). The map and ringbuf helpers are
 * kbpf_host_add_map_helpers' (src/host/map_helpers.c).
 *
 * caps follow bpf_base_func_proto's tiers: helpers below its `if (!bpf_capable())` need
 * CAP_BPF, those below `if (!perfmon_capable())` CAP_PERFMON. The tracing types list
 * some of them without a check, but loading a tracing type needs both anyway. */
#include "linux_internal.h"

#define H(id_, fn_, ret_, flags_, caps_, ...)                                                      \
	{ .id = BPF_FUNC_##id_,                                                                    \
	  .proto = { .fn = fn_, .ret_type = ret_, .flags = flags_, .caps = caps_, .arg_type = { __VA_ARGS__ } } }

/* Linux's composite argument and return kinds. */
#define UNINIT_MEM (KBPF_ARG_PTR_TO_MEM | KBPF_ARG_MEM_UNINIT | KBPF_ARG_MEM_WRITE)
#define RDONLY_MEM (KBPF_ARG_PTR_TO_MEM | KBPF_ARG_MEM_RDONLY)
#define CTX KBPF_ARG_PTR_TO_CTX
#define ANY KBPF_ARG_ANYTHING
#define MAP KBPF_ARG_CONST_MAP_PTR
#define INT KBPF_RET_INTEGER
#define SOCKET_OR_NULL (KBPF_RET_PTR_TO_SOCKET | KBPF_RET_MAYBE_NULL)
#define GPL KBPF_HELPER_GPL_ONLY
#define PKT KBPF_HELPER_PKT_ACCESS
#define CHG KBPF_HELPER_CHANGES_PKT
#define ACQ KBPF_HELPER_ACQUIRE
#define BPF KBPF_CAP_BPF
#define PERFMON KBPF_CAP_PERFMON
#define F(name) kbpf_linux_##name
/* The socket lookups: (ctx, tuple, tuple size, netns, flags), acquiring a reference. */
#define SK_LOOKUP(id_, ret_) H(id_, F(sk_lookup), ret_, PKT | ACQ, 0, CTX, RDONLY_MEM, KBPF_ARG_CONST_SIZE, ANY, ANY)

/* bpf_skc_to_*: the argument socket as a BTF pointer to struct kbpf_linux_sock, or NULL. */
#define SKC_TO(id_)                                                                                \
	{ .id = BPF_FUNC_##id_,                                                                    \
	  .proto = { .fn = F(id_), .ret_type = KBPF_RET_PTR_TO_BTF_ID | KBPF_RET_MAYBE_NULL, .caps = PERFMON, \
		     .arg_type = { KBPF_ARG_PTR_TO_SOCK_COMMON }, .ret_btf_name = "kbpf_linux_sock" } }

const struct linux_helper kbpf_linux_helpers[] = {
	/* bpf_base_func_proto, unprivileged */
	H(get_prandom_u32, F(get_prandom_u32), INT, 0, 0),
	H(get_numa_node_id, F(get_numa_node_id), INT, 0, 0),
	H(tail_call, NULL, KBPF_RET_VOID, 0, 0, CTX, MAP, ANY),
	H(ktime_get_ns, F(ktime_get_ns), INT, 0, 0),
	H(ktime_get_boot_ns, F(ktime_get_boot_ns), INT, 0, 0),
	H(ktime_get_tai_ns, F(ktime_get_tai_ns), INT, 0, 0),
	H(strncmp, NULL, INT, 0, 0, KBPF_ARG_PTR_TO_MEM, KBPF_ARG_CONST_SIZE, KBPF_ARG_PTR_TO_CONST_STR),
	{ .id = BPF_FUNC_strtol,
	  .proto = { .fn = F(strtol), .ret_type = INT, .arg_type = { RDONLY_MEM, KBPF_ARG_CONST_SIZE, ANY,
				 KBPF_ARG_PTR_TO_MEM | KBPF_ARG_MEM_FIXED_SIZE | KBPF_ARG_MEM_UNINIT |
					 KBPF_ARG_MEM_WRITE | KBPF_ARG_MEM_ALIGNED },
		     .arg_size = { 0, 0, 0, 8 } } },
	{ .id = BPF_FUNC_strtoul,
	  .proto = { .fn = F(strtoul), .ret_type = INT, .arg_type = { RDONLY_MEM, KBPF_ARG_CONST_SIZE, ANY,
				 KBPF_ARG_PTR_TO_MEM | KBPF_ARG_MEM_FIXED_SIZE | KBPF_ARG_MEM_UNINIT |
					 KBPF_ARG_MEM_WRITE | KBPF_ARG_MEM_ALIGNED },
		     .arg_size = { 0, 0, 0, 8 } } },
	/* bpf_base_func_proto, CAP_BPF */
	H(spin_lock, F(spin_lock), KBPF_RET_VOID, 0, BPF, KBPF_ARG_PTR_TO_SPIN_LOCK),
	H(spin_unlock, F(spin_unlock), KBPF_RET_VOID, 0, BPF, KBPF_ARG_PTR_TO_SPIN_LOCK),
	/* socket local storage (tc, cgroup_skb… list them in their sets) */
	/* a BTF socket is a sock_common or, from the bpf_skc_to_* casts, kbpf's own */
	/* they run under ids of their own (helpers_sk_storage.c): another host's helper
	 * registered under 107/108 (the TCP host's, on its own sockets) never runs on these */
	{ .id = BPF_FUNC_sk_storage_get,
	  .proto = { .fn = F(sk_storage_get), .run_id = KBPF_LINUX_RUN_ID(BPF_FUNC_sk_storage_get),
		     .ret_type = KBPF_RET_PTR_TO_MAP_VALUE | KBPF_RET_MAYBE_NULL,
		     .arg_type = { MAP, KBPF_ARG_PTR_TO_BTF_ID_SOCK_COMMON,
				   KBPF_ARG_PTR_TO_MAP_VALUE | KBPF_ARG_MAYBE_NULL, ANY },
		     .arg_btf_name = { NULL, "kbpf_linux_sock" } } },
	{ .id = BPF_FUNC_sk_storage_delete,
	  .proto = { .fn = F(sk_storage_delete), .run_id = KBPF_LINUX_RUN_ID(BPF_FUNC_sk_storage_delete),
		     .ret_type = INT,
		     .arg_type = { MAP, KBPF_ARG_PTR_TO_BTF_ID_SOCK_COMMON },
		     .arg_btf_name = { NULL, "kbpf_linux_sock" } } },
	H(jiffies64, F(jiffies64), INT, 0, BPF),
	/* a per-CPU host variable (typed __ksym, kbpf/kfunc.h): kbpf has one copy of it */
	H(per_cpu_ptr, F(per_cpu_ptr), KBPF_RET_PTR_TO_MEM_OR_BTF_ID | KBPF_RET_MAYBE_NULL | KBPF_RET_MEM_RDONLY, 0,
	  BPF, KBPF_ARG_PTR_TO_PERCPU_BTF_ID, ANY),
	H(this_cpu_ptr, F(this_cpu_ptr), KBPF_RET_PTR_TO_MEM_OR_BTF_ID | KBPF_RET_MEM_RDONLY, 0, BPF,
	  KBPF_ARG_PTR_TO_PERCPU_BTF_ID),
	H(timer_init, F(timer_init), INT, GPL, BPF, KBPF_ARG_PTR_TO_TIMER, MAP, ANY),
	/* kptrs in map values: the new object goes in (its reference with it), the old one
	 * comes out (the program now owns its reference); the types are the kptr's */
	H(kptr_xchg, F(kptr_xchg), KBPF_RET_PTR_TO_BTF_ID | KBPF_RET_MAYBE_NULL, ACQ, BPF, KBPF_ARG_PTR_TO_KPTR,
	  KBPF_ARG_PTR_TO_BTF_ID | KBPF_ARG_MAYBE_NULL | KBPF_ARG_OBJ_RELEASE),
	H(timer_set_callback, F(timer_set_callback), INT, GPL, BPF, KBPF_ARG_PTR_TO_TIMER, KBPF_ARG_PTR_TO_FUNC),
	H(timer_start, F(timer_start), INT, GPL, BPF, KBPF_ARG_PTR_TO_TIMER, ANY, ANY),
	H(timer_cancel, F(timer_cancel), INT, GPL, BPF, KBPF_ARG_PTR_TO_TIMER),
	H(for_each_map_elem, F(for_each_map_elem), INT, 0, BPF, MAP, KBPF_ARG_PTR_TO_FUNC,
	  KBPF_ARG_PTR_TO_STACK | KBPF_ARG_MAYBE_NULL, ANY),
	H(loop, F(loop), INT, 0, BPF, ANY, KBPF_ARG_PTR_TO_FUNC, KBPF_ARG_PTR_TO_STACK | KBPF_ARG_MAYBE_NULL, ANY),
	/* bpf_base_func_proto, CAP_PERFMON */
	H(trace_printk, F(trace_printk), INT, GPL, PERFMON, RDONLY_MEM, KBPF_ARG_CONST_SIZE),
	H(get_current_task, NULL, INT, GPL, PERFMON),
	H(probe_read_user, F(probe_read), INT, GPL, PERFMON, UNINIT_MEM, KBPF_ARG_CONST_SIZE_OR_ZERO, ANY),
	H(probe_read_kernel, F(probe_read), INT, GPL, PERFMON, UNINIT_MEM, KBPF_ARG_CONST_SIZE_OR_ZERO, ANY),
	H(probe_read_user_str, F(probe_read_str), INT, GPL, PERFMON, UNINIT_MEM, KBPF_ARG_CONST_SIZE_OR_ZERO, ANY),
	/* sleepable programs' copy_from_user(dst, size, user_ptr): probe_read_user's copy
	 * (-EFAULT with dst zeroed), may sleep, not GPL-only. Linux needs no CAP_PERFMON for
	 * it (user memory is the loader's own); in kbpf "user" memory is the host's, any
	 * address of it, which Linux gives only to CAP_PERFMON (probe_read_kernel): kbpf
	 * asks for CAP_PERFMON too */
	H(copy_from_user, F(probe_read), INT, KBPF_HELPER_SLEEPABLE, PERFMON, UNINIT_MEM, KBPF_ARG_CONST_SIZE_OR_ZERO,
	  ANY),
	H(probe_read_kernel_str, F(probe_read_str), INT, GPL, PERFMON, UNINIT_MEM, KBPF_ARG_CONST_SIZE_OR_ZERO, ANY),
	/* bpf_sk_base_func_proto */
	H(ktime_get_coarse_ns, F(ktime_get_coarse_ns), INT, 0, 0),
	/* sk_filter_func_proto */
	H(skb_load_bytes, F(skb_load_bytes), INT, 0, 0, CTX, ANY, UNINIT_MEM, KBPF_ARG_CONST_SIZE),
	H(skb_load_bytes_relative, NULL, INT, 0, 0, CTX, ANY, UNINIT_MEM, KBPF_ARG_CONST_SIZE, ANY),
	H(get_socket_cookie, F(get_socket_cookie), INT, 0, 0, CTX),
	H(get_socket_uid, F(get_socket_uid), INT, 0, 0, CTX),
	/* the sock, sock_addr, sk_msg and sockops variants: a context or NULL */
	H(get_netns_cookie, F(get_netns_cookie), INT, 0, 0, CTX | KBPF_ARG_MAYBE_NULL),
	/* bpf_skb_event_output_proto / bpf_xdp_event_output_proto / bpf_perf_event_output_proto(_tp):
	 * the same shape everywhere (helpers_perf.c: the __sk_buff and xdp types run theirs) */
	H(perf_event_output, F(perf_event_output), INT, GPL, 0, CTX, MAP, ANY, RDONLY_MEM, KBPF_ARG_CONST_SIZE_OR_ZERO),
	/* tc_cls_act_func_proto */
	H(skb_store_bytes, F(skb_store_bytes), INT, CHG, 0, CTX, ANY, RDONLY_MEM, KBPF_ARG_CONST_SIZE, ANY),
	H(skb_pull_data, F(skb_pull_data), INT, CHG, 0, CTX, ANY),
	H(csum_diff, F(csum_diff), INT, PKT, 0, RDONLY_MEM | KBPF_ARG_MAYBE_NULL, KBPF_ARG_CONST_SIZE_OR_ZERO,
	  RDONLY_MEM | KBPF_ARG_MAYBE_NULL, KBPF_ARG_CONST_SIZE_OR_ZERO, ANY),
	H(csum_update, F(csum_update), INT, 0, 0, CTX, ANY),
	H(csum_level, NULL, INT, 0, 0, CTX, ANY),
	H(l3_csum_replace, F(l3_csum_replace), INT, CHG, 0, CTX, ANY, ANY, ANY, ANY),
	H(l4_csum_replace, F(l4_csum_replace), INT, CHG, 0, CTX, ANY, ANY, ANY, ANY),
	H(clone_redirect, NULL, INT, CHG, 0, CTX, ANY, ANY),
	H(get_cgroup_classid, F(get_cgroup_classid), INT, 0, 0, CTX),
	H(skb_vlan_push, F(skb_vlan_push), INT, CHG, 0, CTX, ANY, ANY),
	H(skb_vlan_pop, F(skb_vlan_pop), INT, CHG, 0, CTX),
	H(skb_change_proto, NULL, INT, CHG, 0, CTX, ANY, ANY),
	H(skb_change_type, NULL, INT, 0, 0, CTX, ANY),
	H(skb_adjust_room, NULL, INT, CHG, 0, CTX, ANY, ANY, ANY),
	H(skb_change_tail, NULL, INT, CHG, 0, CTX, ANY, ANY),
	H(skb_change_head, F(skb_change_head), INT, CHG, 0, CTX, ANY, ANY),
	H(redirect, NULL, INT, 0, 0, ANY, ANY), /* tc's and xdp's have the same prototype */
	H(get_route_realm, NULL, INT, 0, 0, CTX),
	H(get_hash_recalc, F(get_hash_recalc), INT, 0, 0, CTX),
	H(set_hash_invalid, NULL, INT, 0, 0, CTX),
	H(set_hash, NULL, INT, 0, 0, CTX, ANY),
	H(sk_fullsock, F(sk_fullsock), SOCKET_OR_NULL, 0, 0, KBPF_ARG_PTR_TO_SOCK_COMMON),
	H(tcp_sock, F(sk_cast), KBPF_RET_PTR_TO_TCP_SOCK | KBPF_RET_MAYBE_NULL, 0, 0, KBPF_ARG_PTR_TO_SOCK_COMMON),
	H(get_listener_sock, F(sk_cast), SOCKET_OR_NULL, 0, 0, KBPF_ARG_PTR_TO_SOCK_COMMON),
	SK_LOOKUP(sk_lookup_tcp, SOCKET_OR_NULL),
	SK_LOOKUP(sk_lookup_udp, SOCKET_OR_NULL),
	SK_LOOKUP(skc_lookup_tcp, KBPF_RET_PTR_TO_SOCK_COMMON | KBPF_RET_MAYBE_NULL),
	{ .id = BPF_FUNC_sk_release,
	  .proto = { .fn = F(sk_release), .ret_type = INT,
		     .arg_type = { KBPF_ARG_PTR_TO_BTF_ID_SOCK_COMMON | KBPF_ARG_OBJ_RELEASE },
		     .arg_btf_name = { "kbpf_linux_sock" } } },
	/* bpf_sk_base_func_proto's casts (CAP_PERFMON): a BTF pointer to kbpf's socket
	 * (helpers_sock_cast.c). They read the socket they are given, so unlike Linux's
	 * (ARG_PTR_TO_BTF_ID_SOCK_COMMON) they take no BTF pointer: kbpf's verifier does not
	 * check that one is a socket (Linux's btf_struct_ids_match with sock_common), and a
	 * kfunc's object is not one. */
	SKC_TO(skc_to_tcp_sock),
	SKC_TO(skc_to_tcp6_sock),
	SKC_TO(skc_to_tcp_timewait_sock),
	SKC_TO(skc_to_tcp_request_sock),
	SKC_TO(skc_to_udp6_sock),
	SKC_TO(skc_to_unix_sock),
	SKC_TO(skc_to_mptcp_sock),
	/* tc's and xdp's: one shape (helpers_fib.c) */
	H(fib_lookup, F(fib_lookup), INT, GPL, 0, CTX, KBPF_ARG_PTR_TO_MEM, KBPF_ARG_CONST_SIZE, ANY),
	/* tc's and xdp's bpf_check_mtu, one shape: 6.12's mtu_len is a fixed-size, aligned
	 * u32 read and written (initialised, not in read-only memory). Prototype only: the
	 * answer is a device's MTU, and kbpf has no devices. */
	{ .id = BPF_FUNC_check_mtu,
	  .proto = { .fn = NULL, .ret_type = INT, .flags = GPL,
		     .arg_type = { CTX, ANY, KBPF_ARG_PTR_TO_MEM | KBPF_ARG_MEM_FIXED_SIZE | KBPF_ARG_MEM_WRITE |
						KBPF_ARG_MEM_ALIGNED, ANY, ANY },
		     .arg_size = { 0, 0, 4 } } },
	/* the sockmap helpers of sk_skb, sk_msg and sock_ops (prototypes: kbpf has no psock to
	 * redirect to); the verifier pairs each with its map type */
	H(sk_redirect_map, NULL, INT, 0, 0, CTX, MAP, ANY, ANY),
	H(sk_redirect_hash, NULL, INT, 0, 0, CTX, MAP, KBPF_ARG_PTR_TO_MAP_KEY, ANY),
	H(msg_redirect_map, NULL, INT, 0, 0, CTX, MAP, ANY, ANY),
	H(msg_redirect_hash, NULL, INT, 0, 0, CTX, MAP, KBPF_ARG_PTR_TO_MAP_KEY, ANY),
	H(sock_map_update, F(sock_ops_map_update), INT, PKT, 0, CTX, MAP, KBPF_ARG_PTR_TO_MAP_KEY, ANY),
	H(sock_hash_update, F(sock_ops_map_update), INT, PKT, 0, CTX, MAP, KBPF_ARG_PTR_TO_MAP_KEY, ANY),
	/* sk_reuseport_func_proto (prog_sk_reuseport.c) */
	H(sk_select_reuseport, F(sk_select_reuseport), INT, 0, 0, CTX, MAP, KBPF_ARG_PTR_TO_MAP_KEY, ANY),
	/* lwt_in/lwt_xmit_func_proto (the two push_encap protos have one shape), seg6local */
	H(lwt_push_encap, NULL, INT, CHG, 0, CTX, ANY, RDONLY_MEM, KBPF_ARG_CONST_SIZE),
	H(lwt_seg6_store_bytes, NULL, INT, CHG, 0, CTX, ANY, RDONLY_MEM, KBPF_ARG_CONST_SIZE),
	H(lwt_seg6_action, NULL, INT, CHG, 0, CTX, ANY, RDONLY_MEM, KBPF_ARG_CONST_SIZE),
	H(lwt_seg6_adjust_srh, NULL, INT, CHG, 0, CTX, ANY, ANY),
	/* sk_msg_func_proto: what a sendmsg program does with the message (not run) */
	H(msg_apply_bytes, NULL, INT, 0, 0, CTX, ANY),
	H(msg_cork_bytes, NULL, INT, 0, 0, CTX, ANY),
	H(msg_pull_data, NULL, INT, CHG, 0, CTX, ANY, ANY, ANY),
	H(msg_push_data, NULL, INT, CHG, 0, CTX, ANY, ANY, ANY),
	H(msg_pop_data, NULL, INT, CHG, 0, CTX, ANY, ANY, ANY),
	/* xdp_func_proto */
	H(xdp_adjust_head, F(xdp_adjust_head), INT, CHG, 0, CTX, ANY),
	H(xdp_adjust_meta, F(xdp_adjust_meta), INT, CHG, 0, CTX, ANY),
	H(xdp_adjust_tail, F(xdp_adjust_tail), INT, CHG, 0, CTX, ANY),
	H(redirect_map, NULL, INT, 0, 0, MAP, ANY, ANY),
	H(xdp_get_buff_len, F(xdp_get_buff_len), INT, 0, 0, CTX),
	H(xdp_load_bytes, F(xdp_load_bytes), INT, 0, 0, CTX, ANY, UNINIT_MEM, KBPF_ARG_CONST_SIZE),
	H(xdp_store_bytes, F(xdp_store_bytes), INT, 0, 0, CTX, ANY, RDONLY_MEM, KBPF_ARG_CONST_SIZE),
	/* bpf_tracing_func_proto */
	H(get_current_pid_tgid, F(get_current_pid_tgid), INT, 0, 0),
	H(get_current_uid_gid, F(get_current_uid_gid), INT, 0, 0),
	H(get_current_comm, NULL, INT, 0, 0, UNINIT_MEM, KBPF_ARG_CONST_SIZE),
	/* the legacy probe reads (Linux has them only where user and kernel addresses do not
	 * overlap, not on x86-64) read any host address: CAP_PERFMON, as probe_read_kernel;
	 * they were open to a CAP_BPF-only syscall program */
	H(probe_read, F(probe_read), INT, GPL, PERFMON, UNINIT_MEM, KBPF_ARG_CONST_SIZE_OR_ZERO, ANY),
	H(probe_read_str, F(probe_read_str), INT, GPL, PERFMON, UNINIT_MEM, KBPF_ARG_CONST_SIZE_OR_ZERO, ANY),
	/* kprobe / tp / raw_tp: the stack helpers (same shape in each). Their "kernel" stack
	 * is the host thread's: return addresses into the host's code (bpf_get_stack writes
	 * them into the program's buffer; bpf_get_stackid stores them in a map the loader
	 * reads), an ASLR leak. Linux lists them for the perfmon types and, through
	 * raw_tp_prog_func_proto, for a syscall program loaded with CAP_BPF alone; kbpf
	 * asks CAP_PERFMON, as for bpf_probe_read_kernel, in every type */
	H(get_stackid, F(get_stackid), INT, GPL, PERFMON, CTX, MAP, ANY),
	H(get_stack, F(get_stack), INT, GPL, PERFMON, CTX, UNINIT_MEM, KBPF_ARG_CONST_SIZE_OR_ZERO, ANY),
	/* the tracing types: a struct path of the host (<kbpf/linux.h>), where allowed */
	{ .id = BPF_FUNC_d_path,
	  .proto = { .fn = F(d_path), .ret_type = INT,
		     .arg_type = { KBPF_ARG_PTR_TO_BTF_ID, KBPF_ARG_PTR_TO_MEM | KBPF_ARG_MEM_WRITE,
				   KBPF_ARG_CONST_SIZE_OR_ZERO },
		     .arg_btf_name = { "path" }, .allowed = F(d_path_allowed) } },
	/* a task's stack, and the iterators' seq_file output: kbpf has neither tasks nor
	 * seq_files of its own, so these verify (against a host's task_struct / seq_file)
	 * but have no run-time implementation */
	{ .id = BPF_FUNC_get_task_stack, /* CAP_PERFMON: a host's task stack is host addresses */
	  .proto = { .ret_type = INT, .caps = PERFMON, .arg_type = { KBPF_ARG_PTR_TO_BTF_ID, UNINIT_MEM, KBPF_ARG_CONST_SIZE_OR_ZERO, ANY },
		     .arg_btf_name = { "task_struct" } } },
	{ .id = BPF_FUNC_seq_write,
	  .proto = { .ret_type = INT, .flags = GPL, .arg_type = { KBPF_ARG_PTR_TO_BTF_ID, RDONLY_MEM,
								  KBPF_ARG_CONST_SIZE_OR_ZERO },
		     .arg_btf_name = { "seq_file" } } },
	{ .id = BPF_FUNC_seq_printf,
	  .proto = { .ret_type = INT, .flags = GPL,
		     .arg_type = { KBPF_ARG_PTR_TO_BTF_ID, RDONLY_MEM, KBPF_ARG_CONST_SIZE,
				   RDONLY_MEM | KBPF_ARG_MAYBE_NULL, KBPF_ARG_CONST_SIZE_OR_ZERO },
		     .arg_btf_name = { "seq_file" } } },
};
const size_t kbpf_linux_nr_helpers = sizeof(kbpf_linux_helpers) / sizeof(kbpf_linux_helpers[0]);
