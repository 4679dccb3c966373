/* SPDX-License-Identifier: Apache-2.0 */
/* The helpers of Linux 6.1's bpf_tcp_ca_get_func_proto, with real behaviour against the
 * simulator: the socket pointer a helper gets is a simulated socket (it leads to its flow
 * and simulation), and the clocks are the simulated ones. */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <linux/bpf.h>
#include <bpf/btf.h>
#include <kbpf/map.h>
#include "sim_internal.h"
#include "tcp_host_internal.h"

/* Linux's socket-option numbers (uapi <linux/tcp.h>, <linux/socket.h>). */
#define KBPF_SOL_TCP 6
#define KBPF_TCP_CONGESTION 13

/* The simulated clock of the simulation running on this thread, or NULL. Helpers get R1–R5
 * only, and bpf_jiffies64 gets nothing: this is the one way for it to find its simulation
 * (Linux reads a global too). Per thread, so independent simulations can run in parallel. */
static _Thread_local const __u64 *tcp_clock_now;

const __u64 *kbpf_tcp_clock_enter(const __u64 *now_ns)
{
	const __u64 *saved = tcp_clock_now;

	tcp_clock_now = now_ns;
	return saved;
}

void kbpf_tcp_clock_leave(const __u64 *saved)
{
	tcp_clock_now = saved;
}

static __u64 real_ns(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts))
		return 0;
	return (__u64)ts.tv_sec * NSEC_PER_SEC + (__u64)ts.tv_nsec;
}

/* Linux's jiffies_64 starts at INITIAL_JIFFIES, (u64)(u32)(-300 * HZ): the simulator's
 * 32-bit jiffies are its low half. */
static __u64 sim_jiffies64(__u64 now_ns)
{
	return (__u64)(__u32)SIM_JIFFIES0 + (__u32)(sim_jiffies(now_ns) - SIM_JIFFIES0);
}

static uint64_t tcp_jiffies64(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5)
{
	(void)r1, (void)r2, (void)r3, (void)r4, (void)r5;
	if (tcp_clock_now)
		return sim_jiffies64(*tcp_clock_now);
	return real_ns(CLOCK_BOOTTIME) / (NSEC_PER_SEC / KBPF_TCP_HZ);
}

static uint64_t tcp_ktime_get_ns(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5)
{
	(void)r1, (void)r2, (void)r3, (void)r4, (void)r5;
	return tcp_clock_now ? *tcp_clock_now : real_ns(CLOCK_MONOTONIC);
}

static uint64_t tcp_ktime_get_boot_ns(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5)
{
	(void)r1, (void)r2, (void)r3, (void)r4, (void)r5;
	return tcp_clock_now ? *tcp_clock_now : real_ns(CLOCK_BOOTTIME);
}

/* The coarse clock is the time of the last tick: the start of the current jiffy. */
static uint64_t tcp_ktime_get_coarse_ns(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5)
{
	(void)r1, (void)r2, (void)r3, (void)r4, (void)r5;
	if (tcp_clock_now)
		return sim_jiffy_time(sim_jiffies(*tcp_clock_now));
	return real_ns(CLOCK_MONOTONIC_COARSE);
}

/* bpf_tcp_send_ack(tp, rcv_nxt): __tcp_send_ack; Linux returns 0 whatever happens. */
static uint64_t tcp_send_ack(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5)
{
	struct tcp_sock *tp = (struct tcp_sock *)(uintptr_t)r1;

	(void)r3, (void)r4, (void)r5;
	if (tp && tp->kbpf.send_ack)
		tp->kbpf.send_ack((struct sock *)tp, (__u32)r2);
	return 0;
}

/* Remember that sk holds a value in map, so kbpf_tcp_sk_storage_release finds it. */
static int storage_note(struct sock *sk, struct kbpf_map *map)
{
	struct tcp_sock *tp = tcp_sk(sk);
	void **free_slot = NULL;

	for (int i = 0; i < KBPF_TCP_SK_STORAGE_MAPS; i++) {
		if (tp->kbpf.storage_maps[i] == map)
			return 0;
		if (!tp->kbpf.storage_maps[i] && !free_slot)
			free_slot = &tp->kbpf.storage_maps[i];
	}
	if (!free_slot)
		return -ENOSPC;
	*free_slot = map;
	return 0;
}

/* bpf_sk_storage_get(map, sk, value, flags) */
static uint64_t tcp_sk_storage_get(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5)
{
	struct kbpf_map *map = (struct kbpf_map *)(uintptr_t)r1;
	struct sock *sk = (struct sock *)(uintptr_t)r2;
	void *v;

	(void)r5;
	if (!sk || r4 > BPF_SK_STORAGE_GET_F_CREATE)
		return 0;
	v = kbpf_local_storage_get(map, sk, NULL, 0);
	if (v || r4 != BPF_SK_STORAGE_GET_F_CREATE)
		return (uint64_t)(uintptr_t)v;
	/* a new value only if the socket can remember it (else it would outlive the socket) */
	if (storage_note(sk, map))
		return 0;
	return (uint64_t)(uintptr_t)kbpf_local_storage_get(map, sk, (const void *)(uintptr_t)r3, r4);
}

/* bpf_sk_storage_delete(map, sk) */
static uint64_t tcp_sk_storage_delete(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5)
{
	(void)r3, (void)r4, (void)r5;
	if (!r2)
		return (uint64_t)-EINVAL;
	return (uint64_t)kbpf_local_storage_delete((struct kbpf_map *)(uintptr_t)r1, (void *)(uintptr_t)r2);
}

int kbpf_tcp_sk_storage_update(struct kbpf_map *map, struct sock *sk, const void *value, uint64_t flags)
{
	int ret;

	if (!map || !sk)
		return -EINVAL;
	ret = storage_note(sk, map);
	return ret ? ret : kbpf_local_storage_update(map, sk, value, flags);
}

int kbpf_tcp_sk_storage_lookup(struct kbpf_map *map, struct sock *sk, void *value)
{
	return kbpf_local_storage_lookup(map, sk, value);
}

void kbpf_tcp_sk_storage_release(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (!sk)
		return;
	for (int i = 0; i < KBPF_TCP_SK_STORAGE_MAPS; i++) {
		if (tp->kbpf.storage_maps[i])
			kbpf_local_storage_delete(tp->kbpf.storage_maps[i], sk);
		tp->kbpf.storage_maps[i] = NULL;
	}
}

/* bpf_setsockopt(sk, level, optname, optval, optlen): what a CC module uses, SOL_TCP
 * TCP_CONGESTION (sol_tcp_sockopt_congestion); other options of a simulated socket
 * have no effect there and are refused. */
static uint64_t tcp_setsockopt(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5)
{
	struct sock *sk = (struct sock *)(uintptr_t)r1;
	const char *optval = (const char *)(uintptr_t)r4;
	int optlen = (int)r5;

	if (!sk || (int)r2 != KBPF_SOL_TCP || (int)r3 != KBPF_TCP_CONGESTION)
		return (uint64_t)-EINVAL;
	if (optlen < 2)
		return (uint64_t)-EINVAL;
	return (uint64_t)(int64_t)kbpf_tcp_set_congestion_control(sk, optval, (size_t)optlen);
}

/* bpf_getsockopt(sk, SOL_TCP, TCP_CONGESTION, buf, len): the CC's name, NUL-terminated
 * (Linux writes at most len - 1 bytes of it); the rest of buf, or all of it on an error,
 * is zeroed. */
static uint64_t tcp_getsockopt(uint64_t r1, uint64_t r2, uint64_t r3, uint64_t r4, uint64_t r5)
{
	struct sock *sk = (struct sock *)(uintptr_t)r1;
	char *optval = (char *)(uintptr_t)r4;
	int optlen = (int)r5;
	const struct tcp_congestion_ops *ops;
	int ret = 0;
	size_t n = 0;

	if (!optval || optlen <= 0)
		return (uint64_t)-EINVAL;
	ops = sk ? inet_csk(sk)->icsk_ca_ops : NULL;
	if (!sk || (int)r2 != KBPF_SOL_TCP || (int)r3 != KBPF_TCP_CONGESTION || optlen < 2 || !ops)
		ret = -EINVAL;
	else {
		n = (size_t)optlen - 1;
		if (n > TCP_CA_NAME_MAX)
			n = TCP_CA_NAME_MAX;
		memcpy(optval, ops->name, n);
	}
	memset(optval + n, 0, (size_t)optlen - n);
	return (uint64_t)(int64_t)ret;
}

#define ANY KBPF_ARG_ANYTHING
#define SOCK_COMMON KBPF_ARG_PTR_TO_BTF_ID_SOCK_COMMON

/* The helpers that take a socket treat it as one of this host's (the head of a whole
 * tcp_sock: its storage slots, its CC): only this host's program type may call them.
 * Its verified calls run them under ids of their own (kbpf_helper_proto.run_id); under
 * Linux's ids they are run-time helpers without a prototype, for unverified programs
 * (and `kbpf verify`'s unverified load). A host that also has Linux's program types
 * (kbpf_tcp_host_add, then kbpf_linux_host_add: the kbpf command) gives those Linux's
 * prototypes, which run Linux's helpers under Linux's run ids or none: a sock_ops
 * program's bpf_getsockopt(ctx, ...) never runs this one on its context, nor a
 * cgroup_skb program's bpf_sk_storage_get on a Linux socket. */
#define KBPF_TCP_RUN_ID(id) (0x50000000 + (id))
static const struct kbpf_helper_proto sk_protos[] = {
	{ .name = "bpf_sk_storage_get", .run_id = KBPF_TCP_RUN_ID(BPF_FUNC_sk_storage_get),
	  .ret_type = KBPF_RET_PTR_TO_MAP_VALUE | KBPF_RET_MAYBE_NULL,
	  .arg_type = { KBPF_ARG_CONST_MAP_PTR, SOCK_COMMON, KBPF_ARG_PTR_TO_MAP_VALUE | KBPF_ARG_MAYBE_NULL, ANY } },
	{ .name = "bpf_sk_storage_delete", .run_id = KBPF_TCP_RUN_ID(BPF_FUNC_sk_storage_delete),
	  .ret_type = KBPF_RET_INTEGER, .arg_type = { KBPF_ARG_CONST_MAP_PTR, SOCK_COMMON } },
	{ .name = "bpf_setsockopt", .run_id = KBPF_TCP_RUN_ID(BPF_FUNC_setsockopt), .ret_type = KBPF_RET_INTEGER,
	  .arg_type = { SOCK_COMMON, ANY, ANY, KBPF_ARG_PTR_TO_MEM | KBPF_ARG_MEM_RDONLY, KBPF_ARG_CONST_SIZE } },
	{ .name = "bpf_getsockopt", .run_id = KBPF_TCP_RUN_ID(BPF_FUNC_getsockopt), .ret_type = KBPF_RET_INTEGER,
	  .arg_type = { SOCK_COMMON, ANY, ANY, KBPF_ARG_PTR_TO_MEM | KBPF_ARG_MEM_UNINIT | KBPF_ARG_MEM_WRITE,
			KBPF_ARG_CONST_SIZE } },
};
static const int32_t sk_ids[] = { BPF_FUNC_sk_storage_get, BPF_FUNC_sk_storage_delete, BPF_FUNC_setsockopt,
				  BPF_FUNC_getsockopt };
static const kbpf_helper_fn sk_fns[] = { tcp_sk_storage_get, tcp_sk_storage_delete, tcp_setsockopt,
					 tcp_getsockopt };
_Static_assert(sizeof(sk_ids) / sizeof(sk_ids[0]) == sizeof(sk_protos) / sizeof(sk_protos[0]) &&
		       sizeof(sk_fns) / sizeof(sk_fns[0]) == sizeof(sk_protos) / sizeof(sk_protos[0]),
	       "one id and one function per socket proto");

static const struct kbpf_helper_proto *sk_proto(int32_t id)
{
	for (size_t i = 0; i < sizeof(sk_ids) / sizeof(sk_ids[0]); i++)
		if (sk_ids[i] == id)
			return &sk_protos[i];
	return NULL;
}

int kbpf_tcp_helpers_add(struct kbpf_host *host)
{
	const struct btf *btf = kbpf_host_btf(host);
	int tcp_sock_id = btf ? btf__find_by_name_kind(btf, "tcp_sock", BTF_KIND_STRUCT) : -1;

	if (tcp_sock_id <= 0)
		return -ENOENT;
	/* registered host-wide: the clocks (a Linux program type in the same host reads the
	 * simulated clocks too, docs/tcp-sim.md), and tcp_send_ack (only a BTF tcp_sock, which
	 * only this host hands out, passes) */
	const struct kbpf_helper_proto protos[] = {
		{ .name = "bpf_tcp_send_ack", .fn = tcp_send_ack, .ret_type = KBPF_RET_INTEGER,
		  .arg_type = { KBPF_ARG_PTR_TO_BTF_ID, ANY }, .arg_btf_id = { (uint32_t)tcp_sock_id } },
		{ .name = "bpf_ktime_get_coarse_ns", .fn = tcp_ktime_get_coarse_ns, .ret_type = KBPF_RET_INTEGER },
		{ .name = "bpf_ktime_get_ns", .fn = tcp_ktime_get_ns, .ret_type = KBPF_RET_INTEGER },
		{ .name = "bpf_ktime_get_boot_ns", .fn = tcp_ktime_get_boot_ns, .ret_type = KBPF_RET_INTEGER },
		/* bpf_base_func_proto's CAP_BPF tier */
		{ .name = "bpf_jiffies64", .fn = tcp_jiffies64, .ret_type = KBPF_RET_INTEGER, .caps = KBPF_CAP_BPF },
	};
	static const int32_t ids[] = {
		BPF_FUNC_tcp_send_ack, BPF_FUNC_ktime_get_coarse_ns, BPF_FUNC_ktime_get_ns, BPF_FUNC_ktime_get_boot_ns,
		BPF_FUNC_jiffies64,
	};
	_Static_assert(sizeof(ids) / sizeof(ids[0]) == 5, "one id per proto");

	/* all or nothing: a run-time helper someone else registered for one of these ids
	 * would run instead of ours */
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		if (kbpf_host_helper_find(host, ids[i], NULL) || kbpf_host_helper_proto(host, ids[i]))
			return -EEXIST;
	for (size_t i = 0; i < sizeof(sk_ids) / sizeof(sk_ids[0]); i++)
		if (kbpf_host_helper_find(host, sk_protos[i].run_id, NULL) || kbpf_host_helper_find(host, sk_ids[i], NULL) ||
		    kbpf_host_helper_proto(host, sk_ids[i]))
			return -EEXIST;
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		int ret = kbpf_host_helper_register_proto(host, ids[i], &protos[i]);
		if (ret)
			return ret;
	}
	for (size_t i = 0; i < sizeof(sk_ids) / sizeof(sk_ids[0]); i++) {
		int ret = kbpf_host_helper_register(host, sk_protos[i].run_id, sk_protos[i].name, sk_fns[i]);
		if (!ret)
			ret = kbpf_host_helper_register(host, sk_ids[i], sk_protos[i].name, sk_fns[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/* bpf_base_func_proto (6.1), for a loader with CAP_BPF and CAP_PERFMON (the verifier
 * applies each proto's caps). */
static const int32_t base_ids[] = {
	BPF_FUNC_map_lookup_elem, BPF_FUNC_map_update_elem, BPF_FUNC_map_delete_elem, BPF_FUNC_map_push_elem,
	BPF_FUNC_map_pop_elem, BPF_FUNC_map_peek_elem, BPF_FUNC_map_lookup_percpu_elem, BPF_FUNC_get_prandom_u32,
	BPF_FUNC_get_smp_processor_id, BPF_FUNC_get_numa_node_id, BPF_FUNC_tail_call, BPF_FUNC_ktime_get_ns,
	BPF_FUNC_ktime_get_boot_ns, BPF_FUNC_ktime_get_tai_ns, BPF_FUNC_ringbuf_output, BPF_FUNC_ringbuf_reserve,
	BPF_FUNC_ringbuf_submit, BPF_FUNC_ringbuf_discard, BPF_FUNC_ringbuf_query, BPF_FUNC_strncmp,
	BPF_FUNC_strtol, BPF_FUNC_strtoul, BPF_FUNC_spin_lock, BPF_FUNC_spin_unlock, BPF_FUNC_jiffies64,
	BPF_FUNC_per_cpu_ptr, BPF_FUNC_this_cpu_ptr, BPF_FUNC_timer_init, BPF_FUNC_timer_set_callback,
	BPF_FUNC_timer_start, BPF_FUNC_timer_cancel, BPF_FUNC_kptr_xchg, BPF_FUNC_for_each_map_elem,
	BPF_FUNC_loop, BPF_FUNC_user_ringbuf_drain, BPF_FUNC_ringbuf_reserve_dynptr,
	BPF_FUNC_ringbuf_submit_dynptr, BPF_FUNC_ringbuf_discard_dynptr, BPF_FUNC_dynptr_from_mem,
	BPF_FUNC_dynptr_read, BPF_FUNC_dynptr_write, BPF_FUNC_dynptr_data, BPF_FUNC_trace_printk,
	BPF_FUNC_get_current_task, BPF_FUNC_get_current_task_btf, BPF_FUNC_probe_read_user,
	BPF_FUNC_probe_read_kernel, BPF_FUNC_probe_read_user_str, BPF_FUNC_probe_read_kernel_str,
	BPF_FUNC_snprintf_btf, BPF_FUNC_snprintf, BPF_FUNC_task_pt_regs, BPF_FUNC_trace_vprintk,
};

const struct kbpf_helper_proto *kbpf_tcp_helper_proto(const struct kbpf_host *host, int32_t id,
						      const char *attach_member)
{
	switch (id) {
	case BPF_FUNC_tcp_send_ack:
	case BPF_FUNC_ktime_get_coarse_ns:
		return kbpf_host_helper_proto(host, id);
	case BPF_FUNC_sk_storage_get:
	case BPF_FUNC_sk_storage_delete:
		return sk_proto(id);
	case BPF_FUNC_setsockopt:
	case BPF_FUNC_getsockopt:
		/* release() retires the CC: it may not change the socket further (Linux's
		 * comment), and getsockopt goes with setsockopt */
		if (attach_member && !strcmp(attach_member, "release"))
			return NULL;
		return sk_proto(id);
	default:
		for (size_t i = 0; i < sizeof(base_ids) / sizeof(base_ids[0]); i++)
			if (base_ids[i] == id)
				return kbpf_host_helper_proto(host, id);
		return NULL;
	}
}
