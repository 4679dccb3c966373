/* SPDX-License-Identifier: Apache-2.0 */
/* Reno and the generic window arithmetic every CC builds on (Linux net/ipv4/tcp_cong.c
 * semantics, docs/reference/tcp-model.md §3.1). Exported under Linux's names and prototypes: BPF CCs
 * call them as kfuncs. All quantities are segments. */
#include <kbpf/tcp.h>

/* Slow start: grow by the segments ACKed, but not past ssthresh; what is left over
 * (ACKed beyond ssthresh) is returned for congestion avoidance. No ABC cap: a stretch
 * ACK grows cwnd by everything it covers. */
__u32 tcp_slow_start(struct tcp_sock *tp, __u32 acked)
{
	__u32 cwnd = tp->snd_cwnd + acked;

	if (cwnd > tp->snd_ssthresh)
		cwnd = tp->snd_ssthresh;
	acked -= cwnd - tp->snd_cwnd;
	tp->snd_cwnd = cwnd < tp->snd_cwnd_clamp ? cwnd : tp->snd_cwnd_clamp;
	return acked;
}

/* Additive increase: one segment per w segments delivered, the credit kept in
 * snd_cwnd_cnt. A credit earned under a smaller w is cashed in first, so that shrinking
 * w (cubic) does not produce a burst of increments. */
void tcp_cong_avoid_ai(struct tcp_sock *tp, __u32 w, __u32 acked)
{
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
	if (tp->snd_cwnd > tp->snd_cwnd_clamp)
		tp->snd_cwnd = tp->snd_cwnd_clamp;
}

void tcp_reno_cong_avoid(struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);

	(void)ack;
	if (!tcp_is_cwnd_limited(sk))
		return;
	if (tcp_in_slow_start(tp)) {
		acked = tcp_slow_start(tp, acked);
		if (!acked)
			return;
	}
	tcp_cong_avoid_ai(tp, tp->snd_cwnd, acked);
}

__u32 tcp_reno_ssthresh(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	__u32 half = tp->snd_cwnd >> 1;

	return half > 2 ? half : 2;
}

__u32 tcp_reno_undo_cwnd(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	return tp->snd_cwnd > tp->prior_cwnd ? tp->snd_cwnd : tp->prior_cwnd;
}

const struct tcp_congestion_ops kbpf_tcp_reno = {
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "reno",
	.ssthresh = tcp_reno_ssthresh,
	.cong_avoid = tcp_reno_cong_avoid,
	.undo_cwnd = tcp_reno_undo_cwnd,
};
