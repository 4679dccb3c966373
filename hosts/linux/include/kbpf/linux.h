/* SPDX-License-Identifier: Apache-2.0 */
/* Linux's program types and helpers for a kbpf host (library kbpf_linux, hosts/linux).
 *
 * kbpf_linux_host_add() registers, on an ordinary struct kbpf_host and through the
 * public API only, the Linux 6.1 program types socket_filter, sched_cls, sched_act,
 * xdp, cgroup_skb, syscall, tracepoint, raw_tracepoint, kprobe, lwt_in/out/xmit/
 * seg6local, sk_skb, sk_msg, sk_lookup, sock_ops, perf_event, cgroup_sysctl,
 * cgroup_device, fentry/fexit/fmod_ret/lsm (BTF-attached: kbpf_verify_opts.attach_btf_id)
 * and, one type per attach type, cgroup_sock ("cgroup_sock", "cgroup/post_bind4", …),
 * cgroup_sock_addr ("cgroup/connect4", …) and cgroup_sockopt ("cgroup/getsockopt",
 * "cgroup/setsockopt") (context access rules, per-type helper sets, return ranges,
 * capability rules) and the helpers by Linux id with Linux's prototypes.
 * docs/program-types.md lists what runs and what is only a prototype.
 *
 * Contexts at run time: a networking program's R1 points at a struct kbpf_linux_skb or
 * struct kbpf_linux_xdp. Programs see Linux's struct __sk_buff / struct xdp_md at the
 * start of it; the packet pointers (data, data_end, data_meta: u32 fields in the
 * program's view) are real 64-bit pointers further on, and the verifier rewrites those
 * loads (struct kbpf_ctx_access_info.conv_off/conv_size), as Linux's convert_ctx_access
 * does. */
#ifndef KBPF_LINUX_H
#define KBPF_LINUX_H

#include <stddef.h>
#include <stdint.h>
#include <kbpf/export.h>
#include <linux/bpf.h> /* struct __sk_buff, struct xdp_md, BPF_FUNC_*: uapi, linux-libc-dev */
#include <kbpf/host.h>
#include <kbpf/prog_type.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Register Linux's program types and helpers on host. Helpers that kbpf can run in a
 * process are registered with their implementation; the rest (tail_call, loop, socket
 * lookups, …) with their prototype only, so programs calling them verify. Linux's map
 * helpers come from kbpf_host_add_map_helpers (added here unless the host did already).
 * Returns 0, -EINVAL (host NULL), -EEXIST (a type name or helper id already taken by
 * something else), -ENOMEM. */
KBPF_API int kbpf_linux_host_add(struct kbpf_host *host);

/* Linux's common kfuncs (kernel/bpf/helpers.c's common_kfunc_set), the part kbpf has:
 * bpf_cast_to_kern_ctx and bpf_rdonly_cast (hosts/linux/src/kfuncs_common.c), registered
 * for every program type the host has at the time of the call — so call it after
 * kbpf_linux_host_add and the host's own types, and after the host's BTF is loaded
 * (kbpf_host_btf_load_self, from a binary linking kbpf_linux). The verifier replaces each
 * call by `r0 = r1` (docs/kfuncs.md, "The casts"). bpf_cast_to_kern_ctx works for the
 * types with a kern_ctx_btf_name: the skb types (struct kbpf_linux_skb), xdp (struct
 * kbpf_linux_xdp) and the cgroup sock_addr types (struct bpf_sock_addr). Returns 0,
 * -EINVAL, -E2BIG (more than 256 types) or kbpf_host_kfunc_set_register's error (-ENOENT
 * without host BTF, -EEXIST when called twice), the reason in log_buf. */
KBPF_API int kbpf_linux_host_add_kfuncs(struct kbpf_host *host, char *log_buf, size_t log_size);

/* Linux's jiffies, kept the way Linux keeps them: start a thread that advances a jiffies
 * variable HZ (250) times a second from CLOCK_BOOTTIME. Hosts set up with
 * kbpf_linux_host_add afterwards let the verifier inline bpf_jiffies64 into a load of that
 * variable (one load instead of a clock read; the xlated program is Linux's); without the
 * ticker the helper reads the clock at each call. Both give the same count, the variable
 * up to a tick late, as Linux's. Process-wide and idempotent: returns 0 or -errno
 * (pthread_create). Stop it only once the programs of those hosts are freed: after
 * kbpf_linux_jiffies_stop they would read a frozen count. */
KBPF_API int kbpf_linux_jiffies_start(void);
KBPF_API void kbpf_linux_jiffies_stop(void);

/* Where bpf_trace_printk output goes: fn gets each formatted message (as the program
 * wrote it, usually ending in '\n'). Process-wide, because a helper is called with its
 * five arguments only and so cannot find its host; fn NULL restores the default, stderr. */
typedef void (*kbpf_linux_printk_fn)(const char *msg, void *arg);
KBPF_API void kbpf_linux_trace_printk_set(kbpf_linux_printk_fn fn, void *arg);

/* The run-time context of socket_filter, sched_cls, sched_act, cgroup_skb, lwt_* and
 * sk_skb programs.
 * LD_ABS / LD_IND read the packet through it (kbpf_prog_type.ld_abs): offsets >= 0 from
 * data up to data_end; negative ones as Linux's SKF_NET_OFF / SKF_LL_OFF, from head up
 * to data_end, with an Ethernet frame positioned as Linux runs each type (tc: the MAC
 * header at data; socket_filter: the network header at data, the MAC header in the 14
 * bytes before it). hosts/linux/src/skb_ld_abs.c. */
/* bpf_cast_to_kern_ctx gives a program this whole struct to read through the host BTF:
 * md.sk and md.flow_keys must hold NULL or a valid object (kbpf_linux_skb_init zeroes them). */
struct kbpf_linux_skb {
	struct __sk_buff md;   /* the program's view; md.data, md.data_end, md.data_meta unused */
	uint8_t *data;         /* first packet byte */
	uint8_t *data_end;     /* one past the last; md.len == data_end - data */
	uint8_t *data_meta;    /* metadata before data (== data when there is none) */
	uint8_t *head;         /* buffer start (headroom: head .. data_meta) */
	uint8_t *end;          /* buffer end (tailroom: data_end .. end) */
};

/* The run-time context of xdp programs. */
struct kbpf_linux_xdp {
	struct xdp_md md;          /* the program's view: ingress_ifindex, rx_queue_index, … */
	uint8_t *data;
	uint8_t *data_end;
	uint8_t *data_meta;        /* == data when there is no metadata */
	uint8_t *data_hard_start;  /* buffer start: bpf_xdp_adjust_head may grow into it */
	uint8_t *data_hard_end;    /* usable buffer end: bpf_xdp_adjust_tail may grow to it */
};

/* The run-time context of flow_dissector programs (Linux's struct bpf_flow_dissector).
 * The program sees a __sk_buff of which it may read data, data_end (the packet, read-only)
 * and flow_keys (what it fills in; the host sets nhoff, thoff, n_proto and flags first, as
 * Linux's bpf_flow_dissect does). from_skb: the packet is an skb's, which
 * bpf_skb_load_bytes reads (offsets from data); 0: a bare buffer (Linux's
 * eth_get_headlen), where bpf_skb_load_bytes fails with -EFAULT. */
struct kbpf_linux_flow_dissector {
	struct bpf_flow_keys *flow_keys;
	const uint8_t *data;
	const uint8_t *data_end;
	int from_skb;
};

/* Linux 6.4+'s BPF_PROG_TYPE_NETFILTER (stable uapi number; older <linux/bpf.h> lack it). */
#define KBPF_LINUX_PROG_TYPE_NETFILTER 32
/* The run-time context of netfilter programs (Linux 6.4+'s struct bpf_nf_ctx): two
 * read-only pointers the program reads as the host BTF's struct nf_hook_state and struct
 * sk_buff (without those structs in the host BTF a program cannot read them). */
struct kbpf_linux_nf_ctx {
	const void *state;
	void *skb;
};

/* Linux reserves this much of the headroom for its struct xdp_frame, so
 * bpf_xdp_adjust_head cannot move data below data_hard_start + this (+ metadata). */
#define KBPF_LINUX_XDP_FRAME_SIZE 40
/* Linux's XDP_PACKET_HEADROOM, the headroom BPF_PROG_TEST_RUN gives an XDP program. */
#define KBPF_LINUX_XDP_HEADROOM 256
/* Context sizes of the tracing types (x86-64 struct pt_regs for kprobe). */
#define KBPF_LINUX_PT_REGS_SIZE 168
#define KBPF_LINUX_TRACEPOINT_CTX_SIZE 8192 /* Linux's PERF_MAX_TRACE_SIZE */
#define KBPF_LINUX_RAW_TP_CTX_SIZE 96       /* 12 u64 arguments (MAX_BPF_FUNC_ARGS) */
#define KBPF_LINUX_SYSCALL_CTX_SIZE 65536   /* offsets below U16_MAX, aligned accesses */

/* --- Sockets (hosts/linux/src/sock_maps.c, helpers_sock_cast.c) -------------------
 * kbpf has no kernel sockets: a socket is a host object whose first bytes are what
 * programs read through a socket pointer, in place. Every socket pointer the Linux types
 * hand a program (__sk_buff.sk, bpf_sk_lookup.sk, sk_reuseport_md.sk and migrating_sk,
 * bpf_sock_ops.sk, a SOCKMAP/SOCKHASH/XSKMAP/REUSEPORT_SOCKARRAY slot) must point at one
 * of these. The host fills sk with Linux's values (AF_*, SOCK_*, IPPROTO_*, the TCP_*
 * state numbers, addresses and ports as struct bpf_sock has them) and keeps the socket
 * alive while a program may reach it. An XDP socket (what an XSKMAP slot holds) is one
 * with sk.family AF_XDP, whose program view is struct bpf_xdp_sock: its queue_id
 * overlays sk.bound_dev_if. bpf_skc_to_tcp_sock and its siblings return a socket as a
 * BTF pointer to this struct (the host's BTF has it when the host links kbpf_linux and
 * carries BTF): programs read its fields through BTF, never beyond it. */
struct kbpf_linux_sock {
	union {
		struct bpf_sock sk;      /* what PTR_TO_SOCKET / PTR_TO_SOCK_COMMON read */
		struct bpf_xdp_sock xsk; /* an AF_XDP socket's view (PTR_TO_XDP_SOCK) */
	};
	uint64_t cookie;         /* bpf_get_socket_cookie's answer for it (sk_reuseport) */
	uint32_t reuseport_id;   /* its SO_REUSEPORT group (Linux: sk_reuseport_cb's id), 0: none */
	uint32_t reserved;       /* 0 */
};

/* Put sk into slot key of a socket map, checked as Linux's BPF_MAP_UPDATE_ELEM checks
 * the socket behind an fd: SOCKMAP / SOCKHASH take TCP sockets (AF_INET/AF_INET6) in
 * TCP_ESTABLISHED or TCP_LISTEN, UDP sockets, and AF_UNIX sockets (stream ones
 * TCP_ESTABLISHED), else -EOPNOTSUPP; XSKMAP takes AF_XDP sockets (-EOPNOTSUPP); a
 * REUSEPORT_SOCKARRAY takes TCP or UDP sockets of AF_INET/AF_INET6 and SOCK_STREAM or
 * SOCK_DGRAM (-ENOTSUPP, 524, otherwise) that are in a reuseport group (reuseport_id
 * nonzero, else -EINVAL). Then kbpf_map_update(map, key, &sk, flags), whose errors
 * (-EEXIST, -ENOENT, -E2BIG…) it returns; -EINVAL for NULL or another map type. Delete
 * with kbpf_map_delete; kbpf_map_lookup gives the struct kbpf_linux_sock pointer. */
struct kbpf_map;
struct kbpf_prog;
KBPF_API int kbpf_linux_sock_map_update(struct kbpf_map *map, const void *key, struct kbpf_linux_sock *sk, uint64_t flags);

/* --- sk_reuseport (hosts/linux/src/prog_sk_reuseport.c) ----------------------------
 * The run-time context of an sk_reuseport program: Linux's struct sk_reuseport_md (its
 * pointers are 64-bit in the program's view already, so programs read it in place),
 * then what bpf_sk_select_reuseport chose. md.sk is the socket of the group the
 * connection or datagram arrived for (never NULL: the program reads it as a socket);
 * the group is md.sk's reuseport_id. */
struct kbpf_linux_reuseport {
	struct sk_reuseport_md md;
	struct kbpf_linux_sock *selected_sk; /* NULL until bpf_sk_select_reuseport succeeds */
};

/* Set ctx up for the packet data[0 .. len) (from its TCP/UDP header, as Linux's md.data)
 * arriving for sk's reuseport group, with the flow hash hash: md.data, data_end, len,
 * hash, sk, ip_protocol (sk's protocol); eth_protocol, bind_inany and migrating_sk
 * zero (the host may set them). -EINVAL if ctx or sk is NULL, or data NULL with a len. */
KBPF_API int kbpf_linux_reuseport_init(struct kbpf_linux_reuseport *ctx, struct kbpf_linux_sock *sk, void *data, size_t len,
			      uint32_t hash);
/* Linux's bpf_run_sk_reuseport: run prog on ctx (selected_sk cleared first); SK_PASS
 * gives 0 and *selected = the socket bpf_sk_select_reuseport chose, or NULL when it chose
 * none (Linux then picks by hash among the group); any other verdict -ECONNREFUSED.
 * Errors of kbpf_prog_run as they are. */
KBPF_API int kbpf_linux_reuseport_run(const struct kbpf_prog *prog, struct kbpf_linux_reuseport *ctx,
			     struct kbpf_linux_sock **selected);

/* Set up skb for a packet of len bytes at buf + headroom in a buffer of buf_size bytes:
 * zeroes md, sets md.len and the pointers (no metadata). Returns 0 or -EINVAL. */
KBPF_API int kbpf_linux_skb_init(struct kbpf_linux_skb *skb, void *buf, size_t buf_size, size_t headroom, size_t len);
/* Same for xdp (data_hard_end = buf + buf_size). */
KBPF_API int kbpf_linux_xdp_init(struct kbpf_linux_xdp *xdp, void *buf, size_t buf_size, size_t headroom, size_t len);

/* BPF_PROG_TEST_RUN of a syscall program (Linux 6.1's bpf_prog_test_run_syscall): ctx
 * (ctx_size bytes, or NULL and 0) is copied, the program runs with R1 = the copy (NULL
 * when ctx_size is 0), and the copy is written back to ctx. -EINVAL before running when
 * ctx_size is below what the program touches (kbpf_prog_max_ctx_offset: the verifier's
 * max_ctx_offset) or above U16_MAX, or ctx is NULL with a size; -ENOMEM; else
 * kbpf_prog_run's result, with R0's low 32 bits in *retval. */
KBPF_API int kbpf_linux_test_run_syscall(const struct kbpf_prog *prog, void *ctx, size_t ctx_size, uint32_t *retval);

/* kbpf's model of Linux's struct path, what bpf_d_path names: a file descriptor of the
 * host process (an O_PATH one is what a struct path is to user space). A host that
 * passes one to a function programs attach to (its BTF must then hold the struct: it
 * uses it in that function's prototype) lets them call bpf_d_path on it. */
struct path {
	int fd;
};
/* bpf_d_path's core: the absolute name Linux gives path's descriptor (readlink of
 * /proc/self/fd/N), NUL-terminated in buf. Returns its length with the NUL, or
 * -ENAMETOOLONG (size too small), -EBADF (no such descriptor), -EFAULT (path NULL). */
KBPF_API long kbpf_linux_path_name(const struct path *path, char *buf, size_t size);

/* Run a raw_tracepoint.w program (BPF_PROG_TYPE_RAW_TRACEPOINT_WRITABLE) as a writable
 * tracepoint fires: ctx[0] is buf, the tracepoint's writable buffer of buf_size bytes,
 * then the nr_args (at most 11) arguments. -EINVAL before running when the program may
 * touch more of the buffer than buf_size (kbpf_prog_max_tp_access: Linux refuses the
 * attach then) or an argument is bad; else kbpf_prog_run's result, R0 in *retval. */
KBPF_API int kbpf_linux_raw_tp_writable_run(const struct kbpf_prog *prog, void *buf, size_t buf_size, const uint64_t *args,
				   size_t nr_args, uint64_t *retval);

/* The test kfuncs of Linux 6.1's net/bpf/test_run.c (bpf_kfunc_call_test1/2/3, acquire/
 * release, get_rdwr_mem, pass_ctx, fail1/2/3, mem_len_*, destructive, …) and their types
 * (struct prog_test_ref_kfunc, prog_test_pass1, …), registered as one set for sched_cls,
 * the tracing types (fentry, fexit, fmod_ret) and syscall with Linux's flags: what Linux's
 * kfunc selftests call (tests/linux-kfunc, docs/kfuncs.md); Linux's keyring kfuncs
 * (bpf_lookup_user_key, bpf_lookup_system_key, bpf_key_put: kbpf has no keyrings, the
 * lookups return NULL) for the tracing types and lsm; the attach targets of the tracing
 * test run (bpf_fentry_test1..8, bpf_modify_return_test, the LSM hook bpf_lsm_bpf) are
 * in the library's BTF too; and the per-CPU host variable bpf_prog_active
 * their typed __ksym reads (kbpf_host_var_register; the library keeps its .data..percpu
 * section so pahole gives it a VAR). In the separate library kbpf_linux_test_kfuncs
 * (its struct sock is the TCP host's, so it links kbpf_tcp). Needs the host's BTF loaded
 * first, from a binary that links the library (kbpf_add_host_btf). Returns 0 or
 * kbpf_host_kfunc_set_register's / kbpf_host_var_register's error, the reason in log_buf. */
KBPF_API int kbpf_linux_host_add_test_kfuncs(struct kbpf_host *host, char *log_buf, size_t log_size);

/* BPF_PROG_TEST_RUN of a fentry, fexit or fmod_ret program (Linux's
 * bpf_prog_test_run_tracing), attached to the host function attach_func: the calls
 * Linux's test run makes, to bpf_fentry_test1..9 (6.12; attach_type BPF_TRACE_FENTRY or
 * BPF_TRACE_FEXIT) or bpf_modify_return_test (BPF_MODIFY_RETURN), each through a
 * trampoline that runs prog with the call's u64 argument array when the function is
 * attach_func (before it; after it, with the return value in the slot after the
 * arguments, for fexit; before it for fmod_ret, whose nonzero R0 replaces the call).
 * *retval: 0 for fentry/fexit, or Linux's (side_effect << 16) | return value for fmod_ret.
 * -EFAULT when a function's result is not Linux's (Linux's test run then fails too),
 * -EINVAL for another attach type, or kbpf_prog_run's error. In kbpf_linux_test_kfuncs
 * (test_fentry.c), whose BTF holds the functions. */
KBPF_API int kbpf_linux_test_run_tracing(const struct kbpf_prog *prog, const char *attach_func, int attach_type,
				uint32_t *retval);

#ifdef __cplusplus
}
#endif
#endif /* KBPF_LINUX_H */
