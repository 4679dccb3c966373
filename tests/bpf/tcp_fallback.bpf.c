/* SPDX-License-Identifier: Apache-2.0 */
/* A CC that hands over to another in init (as Linux's dctcp does without ECN), to check
 * bpf_setsockopt/getsockopt(TCP_CONGESTION), its re-entrancy rule and socket storage:
 * init switches to `fallback`, back to itself (whose nested init sees -EBUSY), to
 * `fallback` again, asks for "cdg" (-ENOTSUPP) and reads the CC's name. */
#include "tcp_cc.h"

char _license[] SEC("license") = "GPL";

const char fallback[16] = "cubic";
const char self[16] = "bpf_fallback";
const char cdg[4] = "cdg";
extern unsigned long CONFIG_HZ __kconfig;

/* read by tests/unit/test_tcp_bpf.c (struct fb_res there) */
struct fb_res {
	int ebusy_cnt;
	int cdg_res;
	int init_calls;
	int stg_seen; /* the first value found in the socket's storage */
	int ack_res;
	int pad;
	__u64 jiffies; /* bpf_jiffies64 at the first init */
	__u64 coarse_ns; /* bpf_ktime_get_coarse_ns there */
	__u64 hz;
	char cc_res[16];
	int bad_level_res; /* bpf_getsockopt at a level it does not serve */
	int pad2;
	char bad_level_buf[16]; /* its buffer, filled with 0xa5 before: all written */
} res;

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, int);
} sk_stg SEC(".maps");

SEC("struct_ops/fb_init")
void BPF_PROG(fb_init, struct sock *sk)
{
	int *stg;

	if (!res.init_calls++) {
		res.jiffies = bpf_jiffies64();
		res.coarse_ns = bpf_ktime_get_coarse_ns();
		res.hz = CONFIG_HZ;
	}
	stg = bpf_sk_storage_get(&sk_stg, sk, 0, 0);
	if (stg) {
		if (!res.stg_seen)
			res.stg_seen = *stg;
		bpf_sk_storage_delete(&sk_stg, sk);
	}
	stg = bpf_sk_storage_get(&sk_stg, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (stg)
		*stg += 1;
	if (bpf_setsockopt(sk, SOL_TCP, TCP_CONGESTION, (void *)fallback, sizeof(fallback)) == -16)
		res.ebusy_cnt++;
	if (bpf_setsockopt(sk, SOL_TCP, TCP_CONGESTION, (void *)self, sizeof(self)) == -16)
		res.ebusy_cnt++;
	if (bpf_setsockopt(sk, SOL_TCP, TCP_CONGESTION, (void *)fallback, sizeof(fallback)) == -16)
		res.ebusy_cnt++;
	res.cdg_res = bpf_setsockopt(sk, SOL_TCP, TCP_CONGESTION, (void *)cdg, sizeof(cdg));
	bpf_getsockopt(sk, SOL_TCP, TCP_CONGESTION, res.cc_res, sizeof(res.cc_res));
	{
		char buf[16];

		__builtin_memset(buf, 0xa5, sizeof(buf));
		res.bad_level_res = bpf_getsockopt(sk, 0, TCP_CONGESTION, buf, sizeof(buf));
		__builtin_memcpy(res.bad_level_buf, buf, sizeof(buf));
	}
	res.ack_res = bpf_tcp_send_ack(tcp_sk(sk), tcp_sk(sk)->rcv_nxt);
}

SEC("struct_ops/fb_ssthresh")
__u32 BPF_PROG(fb_ssthresh, struct sock *sk)
{
	return tcp_reno_ssthresh(sk);
}

SEC("struct_ops/fb_cong_avoid")
void BPF_PROG(fb_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	tcp_reno_cong_avoid(sk, ack, acked);
}

SEC("struct_ops/fb_undo_cwnd")
__u32 BPF_PROG(fb_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops bpf_fallback = {
	.init = (void *)fb_init,
	.ssthresh = (void *)fb_ssthresh,
	.cong_avoid = (void *)fb_cong_avoid,
	.undo_cwnd = (void *)fb_undo_cwnd,
	.name = "bpf_fallback",
};
