/* SPDX-License-Identifier: Apache-2.0 */
/* Reno written in BPF (no kfunc): slow start, additive increase and halving, reading and
 * writing the socket through CO-RE. Linux's tcp_cong.c arithmetic, so a flow must behave
 * bit for bit as the native "reno". */
#include "tcp_cc.h"

char _license[] SEC("license") = "GPL";

static __always_inline __u32 min_u32(__u32 a, __u32 b)
{
	return a < b ? a : b;
}

/* tcp_is_cwnd_limited (6.1) */
static __always_inline int cwnd_limited(struct tcp_sock *tp)
{
	if (BPF_CORE_READ_BITFIELD(tp, is_cwnd_limited))
		return 1;
	if (tp->snd_cwnd < tp->snd_ssthresh)
		return tp->snd_cwnd < 2 * tp->max_packets_out;
	return 0;
}

SEC("struct_ops/reno_ssthresh")
__u32 BPF_PROG(reno_ssthresh, struct sock *sk)
{
	__u32 half = tcp_sk(sk)->snd_cwnd >> 1;

	return half > 2 ? half : 2;
}

SEC("struct_ops/reno_cong_avoid")
void BPF_PROG(reno_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (!cwnd_limited(tp))
		return;
	if (tp->snd_cwnd < tp->snd_ssthresh) {
		/* slow start, not past ssthresh; the rest goes to additive increase */
		__u32 cwnd = min_u32(tp->snd_cwnd + acked, tp->snd_ssthresh);

		acked -= cwnd - tp->snd_cwnd;
		tp->snd_cwnd = min_u32(cwnd, tp->snd_cwnd_clamp);
		if (!acked)
			return;
	}
	__u32 w = tp->snd_cwnd;
	if (tp->snd_cwnd_cnt >= w) {
		tp->snd_cwnd_cnt = 0;
		tp->snd_cwnd++;
	}
	tp->snd_cwnd_cnt += acked;
	if (tp->snd_cwnd_cnt >= w) {
		__u32 delta = tp->snd_cwnd_cnt / w;

		tp->snd_cwnd_cnt -= delta * w;
		tp->snd_cwnd += delta;
	}
	tp->snd_cwnd = min_u32(tp->snd_cwnd, tp->snd_cwnd_clamp);
}

SEC("struct_ops/reno_undo_cwnd")
__u32 BPF_PROG(reno_undo_cwnd, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);

	return tp->snd_cwnd > tp->prior_cwnd ? tp->snd_cwnd : tp->prior_cwnd;
}

SEC(".struct_ops")
struct tcp_congestion_ops bpf_reno = {
	.ssthresh = (void *)reno_ssthresh,
	.cong_avoid = (void *)reno_cong_avoid,
	.undo_cwnd = (void *)reno_undo_cwnd,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "bpf_reno",
};
