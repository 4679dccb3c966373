/* SPDX-License-Identifier: Apache-2.0 */
/* DCTCP (RFC 8257) as Linux 6.1's net/ipv4/tcp_dctcp.c behaves (docs/reference/tcp-model.md §4.2):
 * α in 1/1024 updated once per window with gain 1/16, cwnd × (1 − α/2) on ECE, halving
 * on loss, and the receiver's exact per-segment CE echo. Needs ECN negotiated; without
 * it the socket switches to "dctcp-reno" and stops sending ECT, as Linux does. */
#include <kbpf/tcp.h>

#define DCTCP_MAX_ALPHA 1024U
#define DCTCP_SHIFT_G 4 /* g = 1/16 */
#define DCTCP_ALPHA_ON_INIT DCTCP_MAX_ALPHA

struct dctcp {
	__u32 old_delivered;
	__u32 old_delivered_ce;
	__u32 prior_rcv_nxt;
	__u32 dctcp_alpha;
	__u32 next_seq;
	__u32 ce_state;
	__u32 loss_cwnd;
};

_Static_assert(sizeof(struct dctcp) <= ICSK_CA_PRIV_SIZE, "dctcp state fits icsk_ca_priv");

/* Start a new observation window: it ends when snd_una reaches today's snd_nxt. */
static void dctcp_reset(const struct tcp_sock *tp, struct dctcp *ca)
{
	ca->next_seq = tp->snd_nxt;
	ca->old_delivered = tp->delivered;
	ca->old_delivered_ce = tp->delivered_ce;
}

void dctcp_init(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if ((tp->ecn_flags & TCP_ECN_OK) || sk->sk_state == TCP_LISTEN || sk->sk_state == TCP_CLOSE) {
		struct dctcp *ca = inet_csk_ca(sk);

		ca->prior_rcv_nxt = tp->rcv_nxt;
		ca->dctcp_alpha = DCTCP_ALPHA_ON_INIT;
		ca->loss_cwnd = 0;
		ca->ce_state = 0;
		dctcp_reset(tp, ca);
		return;
	}
	/* No ECN: behave as Reno and send Not-ECT. */
	inet_csk(sk)->icsk_ca_ops = &kbpf_tcp_dctcp_reno;
	((struct inet_sock *)sk)->tos &= (__u8)~INET_ECN_MASK;
}

__u32 dctcp_ssthresh(struct sock *sk)
{
	struct dctcp *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 cwnd = tp->snd_cwnd;
	__u32 reduce = (cwnd * ca->dctcp_alpha) >> 11; /* cwnd · α / 2 */

	ca->loss_cwnd = cwnd;
	return cwnd - reduce > 2 ? cwnd - reduce : 2;
}

void dctcp_update_alpha(struct sock *sk, __u32 flags)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct dctcp *ca = inet_csk_ca(sk);

	(void)flags;
	if (before(tp->snd_una, ca->next_seq))
		return;

	__u32 delivered_ce = tp->delivered_ce - ca->old_delivered_ce;
	__u32 alpha = ca->dctcp_alpha;
	__u32 decay = alpha >> DCTCP_SHIFT_G;

	/* α ← (1 − g)·α; when α·g rounds to 0 the whole of α goes, so α can reach 0
	 * (Linux's "allow dctcp alpha to drop to zero"). */
	alpha -= decay ? decay : alpha;
	if (delivered_ce) {
		__u32 delivered = tp->delivered - ca->old_delivered;

		/* + g·F, F = CE-delivered / delivered, in 1/1024 */
		delivered_ce <<= (10 - DCTCP_SHIFT_G);
		delivered_ce /= delivered > 1 ? delivered : 1;
		alpha += delivered_ce;
		if (alpha > DCTCP_MAX_ALPHA)
			alpha = DCTCP_MAX_ALPHA;
	}
	ca->dctcp_alpha = alpha;
	dctcp_reset(tp, ca);
}

/* On loss DCTCP is standard TCP: halve. */
static void dctcp_react_to_loss(struct sock *sk)
{
	struct dctcp *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 half = tp->snd_cwnd >> 1;

	ca->loss_cwnd = tp->snd_cwnd;
	tp->snd_ssthresh = half > 2 ? half : 2;
}

void dctcp_state(struct sock *sk, __u8 new_state)
{
	if (new_state == TCP_CA_Recovery && new_state != inet_csk(sk)->icsk_ca_state)
		dctcp_react_to_loss(sk);
}

static void dctcp_ece_ack_cwr(struct sock *sk, __u32 ce_state)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (ce_state == 1)
		tp->ecn_flags |= TCP_ECN_DEMAND_CWR;
	else
		tp->ecn_flags &= (__u8)~TCP_ECN_DEMAND_CWR;
}

/* Receiver side: echo the CE state of every segment exactly. When the state flips while
 * a delayed ACK is pending, the segments received so far are ACKed first with the old
 * state, then this segment is ACKed at once with the new one. */
static void dctcp_ece_ack_update(struct sock *sk, enum tcp_ca_event evt, __u32 *prior_rcv_nxt, __u32 *ce_state)
{
	__u32 new_ce_state = evt == CA_EVENT_ECN_IS_CE ? 1 : 0;
	struct inet_connection_sock *icsk = inet_csk(sk);
	struct tcp_sock *tp = tcp_sk(sk);

	if (*ce_state != new_ce_state) {
		if (icsk->icsk_ack.pending & ICSK_ACK_TIMER) {
			dctcp_ece_ack_cwr(sk, *ce_state);
			if (tp->kbpf.send_ack)
				tp->kbpf.send_ack(sk, *prior_rcv_nxt);
		}
		icsk->icsk_ack.pending |= ICSK_ACK_NOW;
	}
	*prior_rcv_nxt = tp->rcv_nxt;
	*ce_state = new_ce_state;
	dctcp_ece_ack_cwr(sk, new_ce_state);
}

void dctcp_cwnd_event(struct sock *sk, enum tcp_ca_event ev)
{
	struct dctcp *ca = inet_csk_ca(sk);

	switch (ev) {
	case CA_EVENT_ECN_IS_CE:
	case CA_EVENT_ECN_NO_CE:
		dctcp_ece_ack_update(sk, ev, &ca->prior_rcv_nxt, &ca->ce_state);
		break;
	case CA_EVENT_LOSS:
		dctcp_react_to_loss(sk);
		break;
	default:
		break;
	}
}

__u32 dctcp_cwnd_undo(struct sock *sk)
{
	const struct dctcp *ca = inet_csk_ca(sk);
	const struct tcp_sock *tp = tcp_sk(sk);

	return tp->snd_cwnd > ca->loss_cwnd ? tp->snd_cwnd : ca->loss_cwnd;
}

const struct tcp_congestion_ops kbpf_tcp_dctcp = {
	.init = dctcp_init,
	.in_ack_event = dctcp_update_alpha,
	.cwnd_event = dctcp_cwnd_event,
	.ssthresh = dctcp_ssthresh,
	.cong_avoid = tcp_reno_cong_avoid,
	.undo_cwnd = dctcp_cwnd_undo,
	.set_state = dctcp_state,
	.flags = TCP_CONG_NEEDS_ECN,
	.name = "dctcp",
};

const struct tcp_congestion_ops kbpf_tcp_dctcp_reno = {
	.ssthresh = tcp_reno_ssthresh,
	.cong_avoid = tcp_reno_cong_avoid,
	.undo_cwnd = tcp_reno_undo_cwnd,
	.name = "dctcp-reno",
};
