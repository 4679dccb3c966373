/* SPDX-License-Identifier: Apache-2.0 */
/* hosts/linux: Linux 6.1's program types (ctx access verdicts at representative offsets,
 * as net/core/filter.c and kernel/trace/bpf_trace.c decide them), helper sets and
 * prototypes, and the helpers kbpf runs, called directly and from programs. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <kbpf/kbpf.h>
#include <kbpf/linux.h>
#include "test.h"
#include "test_linux_util.h"

#define SKB(f) ((int)offsetof(struct __sk_buff, f))
#define XDPMD(f) ((int)offsetof(struct xdp_md, f))
#define R KBPF_ACCESS_READ
#define W KBPF_ACCESS_WRITE

static void test_types_registered(void)
{
	struct kbpf_host *host = linux_host();
	CHECK(host);
	if (!host)
		return;
	static const struct {
		const char *name;
		uint32_t linux_type, ctx_size;
		int pkt;
		unsigned caps;
	} want[] = {
		{ "socket_filter", BPF_PROG_TYPE_SOCKET_FILTER, 192, KBPF_PKT_ACCESS_NONE, 0 },
		{ "cgroup_skb", BPF_PROG_TYPE_CGROUP_SKB, 192, KBPF_PKT_ACCESS_RDONLY, 0 },
		{ "sched_cls", BPF_PROG_TYPE_SCHED_CLS, 192, KBPF_PKT_ACCESS_RW, KBPF_CAP_BPF | KBPF_CAP_NET_ADMIN },
		{ "sched_act", BPF_PROG_TYPE_SCHED_ACT, 192, KBPF_PKT_ACCESS_RW, KBPF_CAP_BPF | KBPF_CAP_NET_ADMIN },
		{ "xdp", BPF_PROG_TYPE_XDP, 24, KBPF_PKT_ACCESS_RW, KBPF_CAP_BPF | KBPF_CAP_NET_ADMIN },
		{ "syscall", BPF_PROG_TYPE_SYSCALL, 65536, KBPF_PKT_ACCESS_NONE, KBPF_CAP_BPF },
		{ "tracepoint", BPF_PROG_TYPE_TRACEPOINT, 8192, KBPF_PKT_ACCESS_NONE, KBPF_CAP_BPF | KBPF_CAP_PERFMON },
		{ "raw_tracepoint", BPF_PROG_TYPE_RAW_TRACEPOINT, 96, KBPF_PKT_ACCESS_NONE,
		  KBPF_CAP_BPF | KBPF_CAP_PERFMON },
		{ "kprobe", BPF_PROG_TYPE_KPROBE, 168, KBPF_PKT_ACCESS_NONE, KBPF_CAP_BPF | KBPF_CAP_PERFMON },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct kbpf_prog_type *t = kbpf_host_prog_type_find(host, want[i].name);
		CHECK(t);
		if (!t)
			continue;
		CHECK_EQ_U64(t->linux_type, want[i].linux_type);
		CHECK_EQ_U64(t->ctx_size, want[i].ctx_size);
		CHECK_EQ_U64(t->direct_packet_access, want[i].pkt);
		CHECK_EQ_U64(t->load_caps, want[i].caps);
		CHECK(t->is_valid_access && t->get_func_proto);
		/* Only cgroup_skb has a return range among these in 6.1 (check_return_code). */
		CHECK_EQ_U64(t->has_ret_range, !strcmp(want[i].name, "cgroup_skb"));
	}
	const struct kbpf_prog_type *cg = kbpf_host_prog_type_find(host, "cgroup_skb");
	CHECK(cg && cg->ret_min == 0 && cg->ret_max == 1);
	CHECK_STR(kbpf_host_prog_type_find(host, "xdp")->ctx_btf_name, "xdp_md");
	CHECK_STR(kbpf_host_prog_type_find(host, "sched_cls")->ctx_btf_name, "__sk_buff");
	/* Twice: the names are taken. */
	CHECK_EQ_U64(kbpf_linux_host_add(host), (uint64_t)-EEXIST);
	CHECK_EQ_U64(kbpf_linux_host_add(NULL), (uint64_t)-EINVAL);
	kbpf_host_free(host);
}

static void test_socket_filter_access(void)
{
	struct kbpf_host *host = linux_host();
	const struct kbpf_prog_type *t = kbpf_host_prog_type_find(host, "socket_filter");
	struct kbpf_ctx_access_info info;
	CHECK(t);
	if (!t) {
		kbpf_host_free(host);
		return;
	}
	/* u32 fields: whole or narrow reads (power of two, aligned), never written. */
	CHECK(ctx_ok(t, SKB(len), 4, R, &info) == 1 && info.ctx_field_size == 4 && info.reg_type == 0);
	CHECK(ctx_ok(t, SKB(len), 1, R, NULL) == 1);
	CHECK(ctx_ok(t, SKB(len) + 2, 2, R, NULL) == 1);
	CHECK(ctx_ok(t, SKB(len) + 3, 1, R, NULL) == 1);
	CHECK(ctx_ok(t, SKB(len) + 1, 2, R, NULL) == 0); /* misaligned */
	CHECK(ctx_ok(t, SKB(len), 8, R, NULL) == 0);
	CHECK(ctx_ok(t, SKB(len), 4, W, NULL) == 0);
	CHECK(ctx_ok(t, SKB(mark), 4, R, NULL) == 1);
	CHECK(ctx_ok(t, SKB(mark), 4, W, NULL) == 0);     /* only cb[] is writable */
	CHECK(ctx_ok(t, SKB(priority), 4, W, NULL) == 0);
	CHECK(ctx_ok(t, SKB(protocol), 2, R, NULL) == 1);
	CHECK(ctx_ok(t, SKB(ifindex), 4, R, NULL) == 1);
	/* cb[]: any width inside it, read and write, no narrow-load conversion. */
	CHECK(ctx_ok(t, SKB(cb[0]), 4, W, &info) == 1 && info.ctx_field_size == 0);
	CHECK(ctx_ok(t, SKB(cb[0]), 8, W, NULL) == 1);
	CHECK(ctx_ok(t, SKB(cb[2]), 8, R, NULL) == 1);
	CHECK(ctx_ok(t, SKB(cb[3]), 8, R, NULL) == 0); /* off % size */
	CHECK(ctx_ok(t, SKB(cb[4]), 8, R, NULL) == 0); /* aligned, but runs past cb[4] */
	CHECK(ctx_ok(t, SKB(cb[4]), 1, W, NULL) == 1);
	CHECK(ctx_ok(t, SKB(cb[1]), 8, R, NULL) == 0); /* off % size */
	/* Not for socket filters. */
	CHECK(ctx_ok(t, SKB(tc_classid), 4, R, NULL) == 0);
	CHECK(ctx_ok(t, SKB(data), 4, R, NULL) == 0);
	CHECK(ctx_ok(t, SKB(data_end), 4, R, NULL) == 0);
	CHECK(ctx_ok(t, SKB(data_meta), 4, R, NULL) == 0);
	CHECK(ctx_ok(t, SKB(family), 4, R, NULL) == 0);
	CHECK(ctx_ok(t, SKB(remote_ip4), 4, R, NULL) == 0);
	CHECK(ctx_ok(t, SKB(local_port), 4, R, NULL) == 0);
	CHECK(ctx_ok(t, SKB(tstamp), 8, R, NULL) == 0);
	CHECK(ctx_ok(t, SKB(wire_len), 4, R, NULL) == 0);
	CHECK(ctx_ok(t, SKB(hwtstamp), 8, R, NULL) == 0);
	CHECK(ctx_ok(t, SKB(flow_keys), 8, R, NULL) == 0);
	/* sk: an 8-byte read giving sock_common_or_null. */
	CHECK(ctx_ok(t, SKB(sk), 8, R, &info) == 1 &&
	      info.reg_type == (KBPF_PTR_TO_SOCK_COMMON | KBPF_PTR_MAYBE_NULL));
	CHECK(ctx_ok(t, SKB(sk), 4, R, NULL) == 0);
	CHECK(ctx_ok(t, SKB(sk), 8, W, NULL) == 0);
	/* tstamp_type and the padding after it, and the bounds. */
	CHECK(ctx_ok(t, SKB(tstamp_type), 1, R, NULL) == 0);
	CHECK(ctx_ok(t, SKB(tstamp_type) + 1, 1, R, NULL) == 0);
	CHECK(ctx_ok(t, SKB(gso_size), 4, R, NULL) == 1);
	CHECK(ctx_ok(t, 192, 4, R, NULL) == 0);
	CHECK(ctx_ok(t, -4, 4, R, NULL) == 0);
	kbpf_host_free(host);
}

static void test_tc_access(void)
{
	struct kbpf_host *host = linux_host();
	struct kbpf_ctx_access_info info;
	for (int i = 0; i < 2; i++) {
		const struct kbpf_prog_type *t = kbpf_host_prog_type_find(host, i ? "sched_act" : "sched_cls");
		CHECK(t);
		if (!t)
			continue;
		/* Packet pointers: exact 4-byte reads, rewritten to the 64-bit pointers. */
		CHECK(ctx_ok(t, SKB(data), 4, R, &info) == 1 && info.reg_type == KBPF_PTR_TO_PACKET &&
		      info.conv_off == offsetof(struct kbpf_linux_skb, data) && info.conv_size == 8);
		CHECK(ctx_ok(t, SKB(data_end), 4, R, &info) == 1 && info.reg_type == KBPF_PTR_TO_PACKET_END &&
		      info.conv_off == offsetof(struct kbpf_linux_skb, data_end) && info.conv_size == 8);
		CHECK(ctx_ok(t, SKB(data_meta), 4, R, &info) == 1 && info.reg_type == KBPF_PTR_TO_PACKET_META &&
		      info.conv_off == offsetof(struct kbpf_linux_skb, data_meta));
		CHECK(ctx_ok(t, SKB(data), 2, R, NULL) == 0);
		CHECK(ctx_ok(t, SKB(data), 8, R, NULL) == 0);
		CHECK(ctx_ok(t, SKB(data), 4, W, NULL) == 0);
		/* Other fields: no conversion. */
		CHECK(ctx_ok(t, SKB(len), 4, R, &info) == 1 && info.conv_size == 0 && info.reg_type == 0);
		/* Writable fields. */
		CHECK(ctx_ok(t, SKB(mark), 4, W, NULL) == 1);
		CHECK(ctx_ok(t, SKB(tc_index), 4, W, NULL) == 1);
		CHECK(ctx_ok(t, SKB(priority), 4, W, NULL) == 1);
		CHECK(ctx_ok(t, SKB(tc_classid), 4, W, NULL) == 1);
		CHECK(ctx_ok(t, SKB(queue_mapping), 4, W, NULL) == 1);
		CHECK(ctx_ok(t, SKB(cb[2]), 4, W, NULL) == 1);
		CHECK(ctx_ok(t, SKB(tstamp), 8, W, NULL) == 1);
		CHECK(ctx_ok(t, SKB(mark), 2, W, NULL) == 0); /* writes are whole */
		CHECK(ctx_ok(t, SKB(len), 4, W, NULL) == 0);
		CHECK(ctx_ok(t, SKB(hash), 4, W, NULL) == 0);
		CHECK(ctx_ok(t, SKB(napi_id), 4, R, NULL) == 1);
		/* family .. local_port: sockets only. */
		CHECK(ctx_ok(t, SKB(family), 4, R, NULL) == 0);
		CHECK(ctx_ok(t, SKB(local_ip6[2]), 4, R, NULL) == 0);
		/* tc reads tstamp_type as one byte; the rest of the padding stays closed. */
		CHECK(ctx_ok(t, SKB(tstamp_type), 1, R, NULL) == 1);
		CHECK(ctx_ok(t, SKB(tstamp_type), 2, R, NULL) == 0);
		CHECK(ctx_ok(t, SKB(tstamp_type), 1, W, NULL) == 0);
		CHECK(ctx_ok(t, SKB(tstamp_type) + 2, 1, R, NULL) == 0);
		CHECK(ctx_ok(t, SKB(hwtstamp), 8, R, NULL) == 1);
		CHECK(ctx_ok(t, SKB(hwtstamp), 8, W, NULL) == 0);
		CHECK(ctx_ok(t, SKB(wire_len), 4, R, NULL) == 1);
		CHECK(ctx_ok(t, SKB(flow_keys), 8, R, NULL) == 0);
	}
	kbpf_host_free(host);
}

static void test_cgroup_skb_access(void)
{
	struct kbpf_host *host = linux_host();
	const struct kbpf_prog_type *t = kbpf_host_prog_type_find(host, "cgroup_skb");
	struct kbpf_ctx_access_info info;
	CHECK(t);
	if (!t) {
		kbpf_host_free(host);
		return;
	}
	/* data/data_end only with CAP_BPF; data_meta never. */
	CHECK(ctx_ok(t, SKB(data), 4, R, &info) == 1 && info.reg_type == KBPF_PTR_TO_PACKET &&
	      info.caps == KBPF_CAP_BPF && info.conv_size == 8);
	CHECK(ctx_ok(t, SKB(data_end), 4, R, &info) == 1 && info.reg_type == KBPF_PTR_TO_PACKET_END &&
	      info.caps == KBPF_CAP_BPF);
	CHECK(ctx_ok(t, SKB(data_meta), 4, R, NULL) == 0);
	CHECK(ctx_ok(t, SKB(tc_classid), 4, R, NULL) == 0);
	CHECK(ctx_ok(t, SKB(wire_len), 4, R, NULL) == 0);
	/* Writes: mark, priority, cb[]; tstamp with CAP_BPF. */
	CHECK(ctx_ok(t, SKB(mark), 4, W, &info) == 1 && info.caps == 0);
	CHECK(ctx_ok(t, SKB(priority), 4, W, NULL) == 1);
	CHECK(ctx_ok(t, SKB(cb[4]), 4, W, NULL) == 1);
	CHECK(ctx_ok(t, SKB(tstamp), 8, W, &info) == 1 && info.caps == KBPF_CAP_BPF);
	CHECK(ctx_ok(t, SKB(tstamp), 8, R, &info) == 1 && info.caps == 0);
	CHECK(ctx_ok(t, SKB(tc_index), 4, W, NULL) == 0);
	CHECK(ctx_ok(t, SKB(queue_mapping), 4, W, NULL) == 0);
	/* Socket fields are readable here; address words only whole. */
	CHECK(ctx_ok(t, SKB(family), 4, R, NULL) == 1);
	CHECK(ctx_ok(t, SKB(remote_ip4), 4, R, NULL) == 1);
	CHECK(ctx_ok(t, SKB(remote_ip4), 2, R, NULL) == 0);
	CHECK(ctx_ok(t, SKB(local_ip6[3]), 4, R, NULL) == 1);
	CHECK(ctx_ok(t, SKB(local_port), 2, R, NULL) == 1);
	kbpf_host_free(host);
}

static void test_xdp_access(void)
{
	struct kbpf_host *host = linux_host();
	const struct kbpf_prog_type *t = kbpf_host_prog_type_find(host, "xdp");
	struct kbpf_ctx_access_info info;
	CHECK(t);
	if (!t) {
		kbpf_host_free(host);
		return;
	}
	CHECK(ctx_ok(t, XDPMD(data), 4, R, &info) == 1 && info.reg_type == KBPF_PTR_TO_PACKET &&
	      info.conv_off == offsetof(struct kbpf_linux_xdp, data) && info.conv_size == 8);
	CHECK(ctx_ok(t, XDPMD(data_end), 4, R, &info) == 1 && info.reg_type == KBPF_PTR_TO_PACKET_END &&
	      info.conv_off == offsetof(struct kbpf_linux_xdp, data_end));
	CHECK(ctx_ok(t, XDPMD(data_meta), 4, R, &info) == 1 && info.reg_type == KBPF_PTR_TO_PACKET_META &&
	      info.conv_off == offsetof(struct kbpf_linux_xdp, data_meta));
	CHECK(ctx_ok(t, XDPMD(ingress_ifindex), 4, R, &info) == 1 && info.reg_type == 0 && info.conv_size == 0);
	CHECK(ctx_ok(t, XDPMD(rx_queue_index), 4, R, NULL) == 1);
	CHECK(ctx_ok(t, XDPMD(egress_ifindex), 4, R, NULL) == 0); /* devmap programs only */
	CHECK(ctx_ok(t, XDPMD(ingress_ifindex), 2, R, NULL) == 0); /* no narrow loads */
	CHECK(ctx_ok(t, XDPMD(data), 8, R, NULL) == 0);
	CHECK(ctx_ok(t, XDPMD(ingress_ifindex), 4, W, NULL) == 0);
	CHECK(ctx_ok(t, XDPMD(data), 4, W, NULL) == 0);
	CHECK(ctx_ok(t, 24, 4, R, NULL) == 0);
	CHECK(ctx_ok(t, 2, 4, R, NULL) == 0);
	kbpf_host_free(host);
}

static void test_trace_and_syscall_access(void)
{
	struct kbpf_host *host = linux_host();
	const struct kbpf_prog_type *tp = kbpf_host_prog_type_find(host, "tracepoint");
	const struct kbpf_prog_type *raw = kbpf_host_prog_type_find(host, "raw_tracepoint");
	const struct kbpf_prog_type *kp = kbpf_host_prog_type_find(host, "kprobe");
	const struct kbpf_prog_type *sys = kbpf_host_prog_type_find(host, "syscall");
	CHECK(tp && raw && kp && sys);
	if (!tp || !raw || !kp || !sys) {
		kbpf_host_free(host);
		return;
	}
	/* tracepoint: the first 8 bytes are hidden, read-only, aligned, below 8192. */
	CHECK(ctx_ok(tp, 0, 8, R, NULL) == 0);
	CHECK(ctx_ok(tp, 4, 4, R, NULL) == 0);
	CHECK(ctx_ok(tp, 8, 8, R, NULL) == 1);
	CHECK(ctx_ok(tp, 12, 4, R, NULL) == 1);
	CHECK(ctx_ok(tp, 12, 8, R, NULL) == 0);
	CHECK(ctx_ok(tp, 8, 8, W, NULL) == 0);
	CHECK(ctx_ok(tp, 8184, 8, R, NULL) == 1);
	CHECK(ctx_ok(tp, 8192, 1, R, NULL) == 0);
	/* raw_tracepoint: 12 u64 arguments. */
	CHECK(ctx_ok(raw, 0, 8, R, NULL) == 1);
	CHECK(ctx_ok(raw, 88, 8, R, NULL) == 1);
	CHECK(ctx_ok(raw, 96, 8, R, NULL) == 0);
	CHECK(ctx_ok(raw, 0, 8, W, NULL) == 0);
	CHECK(ctx_ok(raw, 4, 8, R, NULL) == 0);
	/* kprobe: struct pt_regs (x86-64: 168 bytes), read-only. */
	CHECK(ctx_ok(kp, 0, 8, R, NULL) == 1);
	CHECK(ctx_ok(kp, 160, 8, R, NULL) == 1);
	CHECK(ctx_ok(kp, 164, 4, R, NULL) == 1);
	CHECK(ctx_ok(kp, 168, 8, R, NULL) == 0);
	CHECK(ctx_ok(kp, 0, 8, W, NULL) == 0);
	CHECK(ctx_ok(kp, 3, 2, R, NULL) == 0);
	/* syscall: any aligned offset below U16_MAX, read and write. */
	CHECK(ctx_ok(sys, 0, 8, R, NULL) == 1);
	CHECK(ctx_ok(sys, 0, 8, W, NULL) == 1);
	CHECK(ctx_ok(sys, 1000, 4, W, NULL) == 1);
	CHECK(ctx_ok(sys, 65534, 1, R, NULL) == 1);
	CHECK(ctx_ok(sys, 65535, 1, R, NULL) == 0);
	CHECK(ctx_ok(sys, 6, 4, R, NULL) == 0);
	CHECK(ctx_ok(sys, -8, 8, R, NULL) == 0);
	kbpf_host_free(host);
}

static const struct kbpf_helper_proto *fp(const struct kbpf_host *host, const char *type, int32_t id)
{
	const struct kbpf_prog_type *t = kbpf_host_prog_type_find(host, type);
	return t ? t->get_func_proto(t, host, id) : NULL;
}

static void test_helper_sets(void)
{
	struct kbpf_host *host = linux_host();
	CHECK(host);
	if (!host)
		return;
	/* bpf_base_func_proto everywhere. */
	const char *all[] = { "socket_filter", "cgroup_skb", "sched_cls", "sched_act", "xdp",
			      "syscall", "tracepoint", "raw_tracepoint", "kprobe" };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		CHECK(fp(host, all[i], BPF_FUNC_map_lookup_elem) == kbpf_host_helper_proto(host, BPF_FUNC_map_lookup_elem));
		CHECK(fp(host, all[i], BPF_FUNC_get_prandom_u32) != NULL);
		CHECK(fp(host, all[i], BPF_FUNC_tail_call) != NULL);
		CHECK(fp(host, all[i], BPF_FUNC_ktime_get_ns) != NULL);
		CHECK(fp(host, all[i], BPF_FUNC_ringbuf_reserve) != NULL);
		CHECK(fp(host, all[i], BPF_FUNC_spin_lock) != NULL);
		CHECK(fp(host, all[i], BPF_FUNC_trace_printk) != NULL);
		CHECK(fp(host, all[i], 9999) == NULL);
		CHECK(fp(host, all[i], -1) == NULL);
	}
	/* Per type. */
	CHECK(fp(host, "socket_filter", BPF_FUNC_skb_load_bytes) != NULL);
	CHECK(fp(host, "socket_filter", BPF_FUNC_skb_store_bytes) == NULL);
	CHECK(fp(host, "socket_filter", BPF_FUNC_ktime_get_coarse_ns) != NULL); /* sk_base */
	CHECK(fp(host, "socket_filter", BPF_FUNC_get_current_pid_tgid) == NULL);
	CHECK(fp(host, "socket_filter", BPF_FUNC_xdp_adjust_head) == NULL);
	CHECK(fp(host, "socket_filter", BPF_FUNC_sk_lookup_tcp) == NULL);
	CHECK(fp(host, "cgroup_skb", BPF_FUNC_skb_load_bytes) != NULL); /* via sk_filter */
	CHECK(fp(host, "cgroup_skb", BPF_FUNC_sk_lookup_tcp) != NULL);
	CHECK(fp(host, "cgroup_skb", BPF_FUNC_skb_store_bytes) == NULL);
	CHECK(fp(host, "sched_cls", BPF_FUNC_skb_store_bytes) != NULL);
	CHECK(fp(host, "sched_cls", BPF_FUNC_skb_change_head) != NULL);
	CHECK(fp(host, "sched_cls", BPF_FUNC_csum_diff) != NULL);
	CHECK(fp(host, "sched_cls", BPF_FUNC_xdp_adjust_head) == NULL);
	CHECK(fp(host, "xdp", BPF_FUNC_xdp_adjust_head) != NULL);
	CHECK(fp(host, "xdp", BPF_FUNC_xdp_adjust_tail) != NULL);
	CHECK(fp(host, "xdp", BPF_FUNC_skb_load_bytes) == NULL);
	CHECK(fp(host, "xdp", BPF_FUNC_redirect_map) != NULL);
	CHECK(fp(host, "tracepoint", BPF_FUNC_get_current_pid_tgid) != NULL);
	CHECK(fp(host, "tracepoint", BPF_FUNC_probe_read_kernel) != NULL);
	CHECK(fp(host, "tracepoint", BPF_FUNC_ktime_get_coarse_ns) == NULL); /* not for tracing in 6.1 */
	CHECK(fp(host, "tracepoint", BPF_FUNC_skb_load_bytes) == NULL);
	CHECK(fp(host, "tracepoint", BPF_FUNC_get_stack) != NULL);
	CHECK(fp(host, "kprobe", BPF_FUNC_get_stackid) != NULL);
	CHECK(fp(host, "raw_tracepoint", BPF_FUNC_perf_event_output) != NULL);
	CHECK(fp(host, "syscall", BPF_FUNC_get_current_pid_tgid) != NULL);
	CHECK(fp(host, "syscall", BPF_FUNC_loop) != NULL);
	kbpf_host_free(host);
}

static void test_helper_protos(void)
{
	struct kbpf_host *host = linux_host();
	CHECK(host);
	if (!host)
		return;
	/* Every registered prototype carries Linux's name for its id. */
	int n = 0;
	for (int32_t id = 0; id < 256; id++) {
		const struct kbpf_helper_proto *p = kbpf_host_helper_proto(host, id);
		if (!p)
			continue;
		n++;
		CHECK_STR(p->name, kbpf_helper_linux_name(id));
		/* Runnable ones run as plainly registered helpers do. */
		CHECK(kbpf_host_helper_find(host, id, NULL) == p->fn);
	}
	CHECK(n >= 80);

	const struct kbpf_helper_proto *p = kbpf_host_helper_proto(host, BPF_FUNC_tail_call);
	CHECK(p && p->fn == NULL && p->ret_type == KBPF_RET_VOID && p->arg_type[0] == KBPF_ARG_PTR_TO_CTX &&
	      p->arg_type[1] == KBPF_ARG_CONST_MAP_PTR && p->arg_type[2] == KBPF_ARG_ANYTHING);
	p = kbpf_host_helper_proto(host, BPF_FUNC_trace_printk);
	CHECK(p && p->fn && (p->flags & KBPF_HELPER_GPL_ONLY) && p->caps == KBPF_CAP_PERFMON &&
	      p->arg_type[0] == (KBPF_ARG_PTR_TO_MEM | KBPF_ARG_MEM_RDONLY) && p->arg_type[1] == KBPF_ARG_CONST_SIZE);
	p = kbpf_host_helper_proto(host, BPF_FUNC_spin_lock);
	CHECK(p && p->fn && p->caps == KBPF_CAP_BPF && p->ret_type == KBPF_RET_VOID &&
	      p->arg_type[0] == KBPF_ARG_PTR_TO_SPIN_LOCK);
	p = kbpf_host_helper_proto(host, BPF_FUNC_loop);
	CHECK(p && p->fn && p->caps == KBPF_CAP_BPF && p->arg_type[1] == KBPF_ARG_PTR_TO_FUNC &&
	      p->arg_type[2] == (KBPF_ARG_PTR_TO_STACK | KBPF_ARG_MAYBE_NULL));
	p = kbpf_host_helper_proto(host, BPF_FUNC_get_prandom_u32);
	CHECK(p && p->fn && p->caps == 0 && p->flags == 0 && p->arg_type[0] == KBPF_ARG_DONTCARE);
	p = kbpf_host_helper_proto(host, BPF_FUNC_skb_load_bytes);
	CHECK(p && p->fn && p->flags == 0 && p->arg_type[0] == KBPF_ARG_PTR_TO_CTX &&
	      p->arg_type[2] == (KBPF_ARG_PTR_TO_MEM | KBPF_ARG_MEM_UNINIT | KBPF_ARG_MEM_WRITE) &&
	      p->arg_type[3] == KBPF_ARG_CONST_SIZE);
	p = kbpf_host_helper_proto(host, BPF_FUNC_skb_store_bytes);
	CHECK(p && (p->flags & KBPF_HELPER_CHANGES_PKT) && p->arg_type[4] == KBPF_ARG_ANYTHING);
	p = kbpf_host_helper_proto(host, BPF_FUNC_xdp_adjust_head);
	CHECK(p && p->fn && (p->flags & KBPF_HELPER_CHANGES_PKT));
	p = kbpf_host_helper_proto(host, BPF_FUNC_csum_diff);
	CHECK(p && p->fn && (p->flags & KBPF_HELPER_PKT_ACCESS) &&
	      p->arg_type[0] == (KBPF_ARG_PTR_TO_MEM | KBPF_ARG_MAYBE_NULL | KBPF_ARG_MEM_RDONLY));
	p = kbpf_host_helper_proto(host, BPF_FUNC_sk_lookup_tcp);
	CHECK(p && (p->flags & KBPF_HELPER_ACQUIRE) && (p->flags & KBPF_HELPER_PKT_ACCESS) &&
	      p->ret_type == (KBPF_RET_PTR_TO_SOCKET | KBPF_RET_MAYBE_NULL));
	p = kbpf_host_helper_proto(host, BPF_FUNC_sk_release);
	CHECK(p && p->arg_type[0] == (KBPF_ARG_PTR_TO_BTF_ID_SOCK_COMMON | KBPF_ARG_OBJ_RELEASE));
	p = kbpf_host_helper_proto(host, BPF_FUNC_strtoul);
	CHECK(p && (p->arg_type[3] & KBPF_ARG_MEM_FIXED_SIZE) && p->arg_size[3] == 8);
	p = kbpf_host_helper_proto(host, BPF_FUNC_probe_read_kernel);
	CHECK(p && (p->flags & KBPF_HELPER_GPL_ONLY) && p->caps == KBPF_CAP_PERFMON);
	/* The map helpers come from the core library, prototypes included. */
	p = kbpf_host_helper_proto(host, BPF_FUNC_map_update_elem);
	CHECK(p && p->fn && p->arg_type[2] == KBPF_ARG_PTR_TO_MAP_VALUE);
	kbpf_host_free(host);
}

/* A host's own implementation and prototype survive kbpf_linux_host_add. */
static uint64_t my_prandom(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e)
{
	(void)a, (void)b, (void)c, (void)d, (void)e;
	return 4; /* chosen by fair dice roll */
}

static void test_host_overrides(void)
{
	struct kbpf_host *host = kbpf_host_new();
	CHECK_EQ_U64(kbpf_host_add_map_helpers(host), 0);
	CHECK_EQ_U64(kbpf_host_helper_register(host, BPF_FUNC_get_prandom_u32, "mine", my_prandom), 0);
	struct kbpf_helper_proto mine = { .name = "bpf_ktime_get_ns", .fn = my_prandom };
	CHECK_EQ_U64(kbpf_host_helper_register_proto(host, BPF_FUNC_ktime_get_ns, &mine), 0);
	CHECK_EQ_U64(kbpf_linux_host_add(host), 0);
	CHECK(kbpf_host_helper_find(host, BPF_FUNC_get_prandom_u32, NULL) == my_prandom);
	const struct kbpf_helper_proto *p = kbpf_host_helper_proto(host, BPF_FUNC_get_prandom_u32);
	CHECK(p && p->ret_type == KBPF_RET_INTEGER && !strcmp(p->name, "bpf_get_prandom_u32"));
	CHECK(kbpf_host_helper_find(host, BPF_FUNC_ktime_get_ns, NULL) == my_prandom);
	kbpf_host_free(host);
}

#define CALL(host, id, a, b, c, d, e) (kbpf_host_helper_find(host, id, NULL)((a), (b), (c), (d), (e)))
#define P(x) ((uint64_t)(uintptr_t)(x))

static void test_skb_helpers(void)
{
	struct kbpf_host *host = linux_host();
	uint8_t buf[128];
	for (int i = 0; i < 128; i++)
		buf[i] = (uint8_t)i;
	struct kbpf_linux_skb skb;
	CHECK_EQ_U64(kbpf_linux_skb_init(&skb, buf, sizeof(buf), 32, 64), 0);
	CHECK(skb.md.len == 64 && skb.data == buf + 32 && skb.data_end == buf + 96 && skb.data_meta == skb.data);
	CHECK_EQ_U64(kbpf_linux_skb_init(&skb, buf, sizeof(buf), 100, 64), (uint64_t)-EINVAL);
	CHECK_EQ_U64(kbpf_linux_skb_init(&skb, buf, sizeof(buf), 32, 64), 0);

	uint8_t out[8];
	CHECK_EQ_U64(CALL(host, BPF_FUNC_skb_load_bytes, P(&skb), 4, P(out), 4, 0), 0);
	CHECK(out[0] == 36 && out[3] == 39);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_skb_load_bytes, P(&skb), 60, P(out), 4, 0), 0);
	memset(out, 0xaa, sizeof(out));
	CHECK_EQ_U64(CALL(host, BPF_FUNC_skb_load_bytes, P(&skb), 61, P(out), 4, 0), (uint64_t)-EFAULT);
	CHECK(out[0] == 0 && out[3] == 0 && out[4] == 0xaa); /* zeroed on failure */
	CHECK_EQ_U64(CALL(host, BPF_FUNC_skb_load_bytes, P(&skb), 0x80000000u, P(out), 4, 0), (uint64_t)-EFAULT);

	const uint8_t in[2] = { 0xde, 0xad };
	skb.md.hash = 77;
	CHECK_EQ_U64(CALL(host, BPF_FUNC_skb_store_bytes, P(&skb), 10, P(in), 2, 0), 0);
	CHECK(buf[42] == 0xde && buf[43] == 0xad && skb.md.hash == 77);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_skb_store_bytes, P(&skb), 0, P(in), 2, BPF_F_INVALIDATE_HASH), 0);
	CHECK(skb.md.hash == 0);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_skb_store_bytes, P(&skb), 63, P(in), 2, 0), (uint64_t)-EFAULT);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_skb_store_bytes, P(&skb), 0, P(in), 2, 1u << 6), (uint64_t)-EINVAL);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_get_socket_uid, P(&skb), 0, 0, 0, 0), 65534);

	/* VLAN: push puts the tag in md (an unknown protocol means 802.1Q); a second push
	 * moves the first into the packet; pop undoes both. */
	uint8_t vbuf[64];
	for (int i = 0; i < 64; i++)
		vbuf[i] = (uint8_t)i;
	vbuf[28] = 0x08, vbuf[29] = 0x00; /* EtherType IPv4 after 16 bytes of headroom */
	CHECK_EQ_U64(kbpf_linux_skb_init(&skb, vbuf, sizeof(vbuf), 16, 40), 0);
	skb.md.protocol = 0x0008; /* htons(ETH_P_IP) */
	CHECK_EQ_U64(CALL(host, BPF_FUNC_skb_vlan_push, P(&skb), 1, 2, 0, 0), 0);
	CHECK(skb.md.vlan_present == 1 && skb.md.vlan_tci == 2 && skb.md.vlan_proto == 0x0081 && skb.md.len == 40);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_skb_vlan_push, P(&skb), 0xa888, 7, 0, 0), 0);
	CHECK(skb.md.vlan_tci == 7 && skb.md.vlan_proto == 0xa888 && skb.md.len == 44 && skb.data == vbuf + 12);
	CHECK(skb.data[0] == 16 && skb.data[11] == 27 && skb.data[12] == 0x81 && skb.data[13] == 0x00 &&
	      skb.data[14] == 0 && skb.data[15] == 2 && skb.data[16] == 0x08);
	CHECK_EQ_U64(skb.md.protocol, 0x0081);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_skb_vlan_pop, P(&skb), 0, 0, 0, 0), 0); /* the 802.1ad tag, then the
										     * packet's into md */
	CHECK(skb.md.vlan_present == 1 && skb.md.vlan_tci == 2 && skb.md.vlan_proto == 0x0081);
	CHECK(skb.md.len == 40 && skb.data == vbuf + 16 && skb.data[0] == 16 && skb.data[12] == 0x08);
	CHECK_EQ_U64(skb.md.protocol, 0x0008);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_skb_vlan_pop, P(&skb), 0, 0, 0, 0), 0);
	CHECK(skb.md.vlan_present == 0 && skb.md.len == 40);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_skb_vlan_pop, P(&skb), 0, 0, 0, 0), 0); /* nothing to pop */
	/* No kernel sockets: lookups find nothing. */
	CHECK_EQ_U64(CALL(host, BPF_FUNC_sk_lookup_tcp, P(&skb), P(vbuf), 12, 0, 0), 0);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_get_cgroup_classid, P(&skb), 0, 0, 0, 0), 0);

	/* csum_diff: Linux's selftest "valid read map access into a read-only array 2"
	 * takes a value of 28 and expects 65507 from the low 16 bits. */
	uint32_t v = 28, w[3] = { 0x01020304, 0xfffffffe, 0x00010000 };
	CHECK_EQ_U64(CALL(host, BPF_FUNC_csum_diff, P(&v), 4, 0, 0, 0) & 0xffff, 65507);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_csum_diff, 0, 0, P(w), 12, 0), 0x01030303); /* end-around carry */
	CHECK_EQ_U64(CALL(host, BPF_FUNC_csum_diff, 0, 0, P(w), 4, 5), 0x01020309);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_csum_diff, P(w), 4, P(w), 4, 0), 0xffffffff); /* x - x */
	CHECK_EQ_U64(CALL(host, BPF_FUNC_csum_diff, 0, 0, 0, 0, 7), 7);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_csum_diff, P(w), 2, 0, 0, 0), (uint64_t)-EINVAL);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_csum_diff, P(buf), 0, P(buf), 516, 0), (uint64_t)-EINVAL);
	kbpf_host_free(host);
}

static void test_xdp_helpers(void)
{
	struct kbpf_host *host = linux_host();
	uint8_t buf[512];
	memset(buf, 0x11, sizeof(buf));
	struct kbpf_linux_xdp xdp;
	CHECK_EQ_U64(kbpf_linux_xdp_init(&xdp, buf, sizeof(buf), KBPF_LINUX_XDP_HEADROOM, 100), 0);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_xdp_get_buff_len, P(&xdp), 0, 0, 0, 0), 100);
	/* Head: grow by 16, shrink by 16; not into the xdp_frame room, not below 14 bytes. */
	CHECK_EQ_U64(CALL(host, BPF_FUNC_xdp_adjust_head, P(&xdp), (uint64_t)-16, 0, 0, 0), 0);
	CHECK(xdp.data == buf + 240 && xdp.data_meta == xdp.data);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_xdp_adjust_head, P(&xdp), 16, 0, 0, 0), 0);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_xdp_adjust_head, P(&xdp), (uint64_t)-(256 - 40), 0, 0, 0), 0);
	CHECK(xdp.data == buf + 40);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_xdp_adjust_head, P(&xdp), (uint64_t)-1, 0, 0, 0), (uint64_t)-EINVAL);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_xdp_adjust_head, P(&xdp), 256 - 40, 0, 0, 0), 0);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_xdp_adjust_head, P(&xdp), 87, 0, 0, 0), (uint64_t)-EINVAL);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_xdp_adjust_head, P(&xdp), 86, 0, 0, 0), 0);
	CHECK(xdp.data_end - xdp.data == 14);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_xdp_adjust_head, P(&xdp), (uint64_t)-86, 0, 0, 0), 0);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_xdp_adjust_head, P(&xdp), 0x7fffffff, 0, 0, 0), (uint64_t)-EINVAL);
	/* Meta: multiples of 4 up to 32; data moves keep the metadata in front. */
	CHECK_EQ_U64(CALL(host, BPF_FUNC_xdp_adjust_meta, P(&xdp), (uint64_t)-8, 0, 0, 0), 0);
	CHECK(xdp.data - xdp.data_meta == 8);
	memcpy(xdp.data_meta, "METADATA", 8);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_xdp_adjust_meta, P(&xdp), (uint64_t)-2, 0, 0, 0), (uint64_t)-EACCES);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_xdp_adjust_meta, P(&xdp), (uint64_t)-28, 0, 0, 0), (uint64_t)-EACCES);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_xdp_adjust_meta, P(&xdp), 12, 0, 0, 0), (uint64_t)-EINVAL);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_xdp_adjust_head, P(&xdp), (uint64_t)-4, 0, 0, 0), 0);
	CHECK(xdp.data - xdp.data_meta == 8 && !memcmp(xdp.data_meta, "METADATA", 8));
	CHECK_EQ_U64(CALL(host, BPF_FUNC_xdp_adjust_head, P(&xdp), 4, 0, 0, 0), 0);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_xdp_adjust_meta, P(&xdp), 8, 0, 0, 0), 0);
	CHECK(xdp.data == xdp.data_meta);
	/* Tail: grow (zeroed) up to data_hard_end, shrink to 14 bytes. */
	CHECK_EQ_U64(CALL(host, BPF_FUNC_xdp_adjust_tail, P(&xdp), 10, 0, 0, 0), 0);
	CHECK(xdp.data_end - xdp.data == 110 && xdp.data_end[-1] == 0 && xdp.data_end[-10] == 0);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_xdp_adjust_tail, P(&xdp), (uint64_t)-96, 0, 0, 0), 0);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_xdp_adjust_tail, P(&xdp), (uint64_t)-1, 0, 0, 0), (uint64_t)-EINVAL);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_xdp_adjust_tail, P(&xdp), 512 - 256 - 14 + 1, 0, 0, 0), (uint64_t)-EINVAL);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_xdp_adjust_tail, P(&xdp), 512 - 256 - 14, 0, 0, 0), 0);
	CHECK(xdp.data_end == buf + 512);
	/* load/store bytes: -EINVAL past the end, -EFAULT for huge offsets. */
	uint8_t b[4] = { 1, 2, 3, 4 };
	CHECK_EQ_U64(CALL(host, BPF_FUNC_xdp_store_bytes, P(&xdp), 0, P(b), 4, 0), 0);
	memset(b, 0, 4);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_xdp_load_bytes, P(&xdp), 0, P(b), 4, 0), 0);
	CHECK(b[0] == 1 && b[3] == 4);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_xdp_load_bytes, P(&xdp), 253, P(b), 4, 0), (uint64_t)-EINVAL);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_xdp_load_bytes, P(&xdp), 0x10000, P(b), 4, 0), (uint64_t)-EFAULT);
	kbpf_host_free(host);
}

struct captured {
	char text[256];
	int calls;
};

static void capture(const char *msg, void *arg)
{
	struct captured *c = arg;
	snprintf(c->text, sizeof(c->text), "%s", msg);
	c->calls++;
}

static void test_trace_printk(void)
{
	struct kbpf_host *host = linux_host();
	struct captured c = { "", 0 };
	kbpf_linux_trace_printk_set(capture, &c);
	static const char fmt1[] = "x=%d u=%u hex=%llx\n";
	uint64_t ret = CALL(host, BPF_FUNC_trace_printk, P(fmt1), sizeof(fmt1), (uint64_t)-5, 0xffffffffu,
			    0x1234567890ull);
	CHECK_STR(c.text, "x=-5 u=4294967295 hex=1234567890\n");
	CHECK_EQ_U64(ret, strlen(c.text));
	static const char fmt2[] = "s=%s c=%c %5d|%%";
	CALL(host, BPF_FUNC_trace_printk, P(fmt2), sizeof(fmt2), P("hi"), 'Z', 42);
	CHECK_STR(c.text, "s=hi c=Z    42|%");
	static const char fmt2b[] = "%-3x|%05lu|%li";
	CALL(host, BPF_FUNC_trace_printk, P(fmt2b), sizeof(fmt2b), 10, 42, (uint64_t)-7);
	CHECK_STR(c.text, "a  |00042|-7");
	static const char fmt3[] = "%s|%pI4";
	const uint8_t ip[4] = { 10, 0, 0, 1 };
	CALL(host, BPF_FUNC_trace_printk, P(fmt3), sizeof(fmt3), 8 /* unreadable */, P(ip), 0);
	CHECK_STR(c.text, "|10.0.0.1");
	/* Linux's refusals: four conversions, unknown ones, no NUL, control characters. */
	int before = c.calls;
	static const char bad1[] = "%d %d %d %d", bad2[] = "%q", bad3[] = "%sx", bad4[] = "a\x01";
	CHECK_EQ_U64(CALL(host, BPF_FUNC_trace_printk, P(bad1), sizeof(bad1), 1, 2, 3), (uint64_t)-EINVAL);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_trace_printk, P(bad2), sizeof(bad2), 1, 2, 3), (uint64_t)-EINVAL);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_trace_printk, P(bad3), sizeof(bad3), P("s"), 2, 3), (uint64_t)-EINVAL);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_trace_printk, P(bad4), sizeof(bad4), 1, 2, 3), (uint64_t)-EINVAL);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_trace_printk, P(fmt1), 3, 1, 2, 3), (uint64_t)-EINVAL);
	CHECK_EQ_U64(c.calls, before);
	kbpf_linux_trace_printk_set(NULL, NULL);
	kbpf_host_free(host);
}

static void test_base_helpers(void)
{
	struct kbpf_host *host = linux_host();
	uint64_t a = CALL(host, BPF_FUNC_ktime_get_ns, 0, 0, 0, 0, 0);
	uint64_t b = CALL(host, BPF_FUNC_ktime_get_ns, 0, 0, 0, 0, 0);
	CHECK(a && b >= a);
	CHECK(CALL(host, BPF_FUNC_ktime_get_boot_ns, 0, 0, 0, 0, 0) != 0);
	CHECK(CALL(host, BPF_FUNC_ktime_get_coarse_ns, 0, 0, 0, 0, 0) != 0);
	CHECK(CALL(host, BPF_FUNC_jiffies64, 0, 0, 0, 0, 0) != 0);
	uint64_t r1 = CALL(host, BPF_FUNC_get_prandom_u32, 0, 0, 0, 0, 0);
	uint64_t r2 = CALL(host, BPF_FUNC_get_prandom_u32, 0, 0, 0, 0, 0);
	uint64_t r3 = CALL(host, BPF_FUNC_get_prandom_u32, 0, 0, 0, 0, 0);
	CHECK(r1 <= UINT32_MAX && r2 <= UINT32_MAX && !(r1 == r2 && r2 == r3));
	uint64_t pt = CALL(host, BPF_FUNC_get_current_pid_tgid, 0, 0, 0, 0, 0);
	CHECK_EQ_U64(pt >> 32, (uint64_t)getpid());
	CHECK_EQ_U64(CALL(host, BPF_FUNC_get_current_uid_gid, 0, 0, 0, 0, 0) & 0xffffffffu, getuid());
	CHECK(CALL(host, BPF_FUNC_get_smp_processor_id, 0, 0, 0, 0, 0) < 4096);

	uint32_t lock = 0;
	CALL(host, BPF_FUNC_spin_lock, P(&lock), 0, 0, 0, 0);
	CHECK_EQ_U64(lock, 1);
	CALL(host, BPF_FUNC_spin_unlock, P(&lock), 0, 0, 0, 0);
	CHECK_EQ_U64(lock, 0);

	/* probe_read: a good address copies, a bad one is -EFAULT with the buffer zeroed. */
	uint64_t src = 0x1122334455667788ull, dst = 0;
	CHECK_EQ_U64(CALL(host, BPF_FUNC_probe_read_kernel, P(&dst), 8, P(&src), 0, 0), 0);
	CHECK_EQ_U64(dst, src);
	CHECK_EQ_U64(CALL(host, BPF_FUNC_probe_read_user, P(&dst), 8, 16, 0, 0), (uint64_t)-EFAULT);
	CHECK_EQ_U64(dst, 0);
	char s[8];
	CHECK_EQ_U64(CALL(host, BPF_FUNC_probe_read_kernel_str, P(s), sizeof(s), P("abc"), 0, 0), 4);
	CHECK_STR(s, "abc");
	CHECK_EQ_U64(CALL(host, BPF_FUNC_probe_read_kernel_str, P(s), sizeof(s), P("abcdefghij"), 0, 0), 8);
	CHECK_STR(s, "abcdefg");
	CHECK_EQ_U64(CALL(host, BPF_FUNC_probe_read_str, P(s), sizeof(s), 0, 0, 0), (uint64_t)-EFAULT);
	kbpf_host_free(host);
}

/* Programs calling the helpers, on the interpreter and (x86-64) the JIT. */
static void test_programs(void)
{
	struct kbpf_host *host = linux_host();
	uint8_t buf[64];
	for (int i = 0; i < 64; i++)
		buf[i] = (uint8_t)(i * 3);
	struct kbpf_linux_skb skb;
	CHECK_EQ_U64(kbpf_linux_skb_init(&skb, buf, sizeof(buf), 0, 32), 0);
	/* r0 = the u32 at packet offset 8 via skb_load_bytes, or its error. */
	const struct bpf_insn prog[] = {
		BPF_MOV64_IMM(BPF_REG_2, 8),
		BPF_MOV64_REG(BPF_REG_3, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, -8),
		BPF_MOV64_IMM(BPF_REG_4, 4),
		BPF_EMIT_CALL(BPF_FUNC_skb_load_bytes),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 1),
		BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_10, -8),
		BPF_EXIT_INSN(),
	};
	uint32_t want;
	memcpy(&want, buf + 8, 4);
	for (int jit = 0; jit < 2; jit++) {
		struct kbpf_prog_opts opts = { .sz = sizeof(opts), .trusted_unverified = 1, .host = host, .jit = jit };
		struct kbpf_prog *p = NULL;
#if !defined(__x86_64__)
		if (jit)
			break;
#endif
		CHECK_EQ_U64(kbpf_prog_create(prog, sizeof(prog) / sizeof(prog[0]), &opts, &p), 0);
		uint64_t ret = 0;
		CHECK_EQ_U64(kbpf_prog_run(p, &skb, &ret), 0);
		CHECK_EQ_U64(ret, want);
		kbpf_prog_free(p);
	}
	/* Linux 6.3+: BPF_ST stores into the context (6.1 refused it): a verified tc
	 * program writes skb->mark with an immediate and reads it back, on both engines */
	const struct bpf_insn st_mark[] = {
		BPF_ST_MEM(BPF_W, BPF_REG_1, SKB(mark), 0x1234),
		BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, SKB(mark)),
		BPF_EXIT_INSN(),
	};
	for (int jit = 0; jit < 2; jit++) {
		char slog[512] = "";
		struct kbpf_prog_opts opts = { .sz = sizeof(opts), .host = host, .prog_type = "sched_cls", .jit = jit,
					       .log_buf = slog, .log_size = sizeof(slog) };
		struct kbpf_prog *p = NULL;
#if !defined(__x86_64__)
		if (jit)
			break;
#endif
		skb.md.mark = 0;
		CHECK_EQ_U64(kbpf_prog_create(st_mark, sizeof(st_mark) / sizeof(st_mark[0]), &opts, &p), 0);
		uint64_t ret = 0;
		CHECK_EQ_U64(kbpf_prog_run(p, &skb, &ret), 0);
		CHECK_EQ_U64(ret, 0x1234);
		CHECK_EQ_U64(skb.md.mark, 0x1234);
		kbpf_prog_free(p);
	}
	/* A prototype-only helper verifies but does not load for running. */
	const struct bpf_insn loop_prog[] = {
		BPF_MOV64_IMM(BPF_REG_1, 1),
		BPF_EMIT_CALL(BPF_FUNC_get_current_task),
		BPF_EXIT_INSN(),
	};
	char log[256] = "";
	struct kbpf_prog_opts opts = { .sz = sizeof(opts), .trusted_unverified = 1, .host = host, .log_buf = log, .log_size = sizeof(log) };
	struct kbpf_prog *p = NULL;
	CHECK(kbpf_prog_create(loop_prog, 3, &opts, &p) < 0);
	CHECK_CONTAINS(log, "unknown helper");
	kbpf_host_free(host);
}

int main(void)
{
	RUN(test_types_registered);
	RUN(test_socket_filter_access);
	RUN(test_tc_access);
	RUN(test_cgroup_skb_access);
	RUN(test_xdp_access);
	RUN(test_trace_and_syscall_access);
	RUN(test_helper_sets);
	RUN(test_helper_protos);
	RUN(test_host_overrides);
	RUN(test_skb_helpers);
	RUN(test_xdp_helpers);
	RUN(test_trace_printk);
	RUN(test_base_helpers);
	RUN(test_programs);
	return test_summary();
}
