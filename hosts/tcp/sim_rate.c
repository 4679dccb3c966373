/* SPDX-License-Identifier: Apache-2.0 */
/* Delivery-rate samples (Linux net/ipv4/tcp_rate.c semantics, docs/reference/tcp-model.md §3.6): each
 * transmission snapshots the delivery state; the most recently sent segment an ACK
 * delivers gives the sample's start; rate = delivered / max(send interval, ACK interval). */
#include "sim_internal.h"

void sim_rate_skb_sent(struct sim_flow *f, struct sim_seg *seg)
{
	struct tcp_sock *tp = &f->snd;

	/* Nothing in flight: the interval starts with this transmission. */
	if (!tp->packets_out) {
		tp->first_tx_mstamp = seg->xmit_us;
		tp->delivered_mstamp = seg->xmit_us;
	}
	seg->first_tx_mstamp = tp->first_tx_mstamp;
	seg->delivered_mstamp = tp->delivered_mstamp;
	seg->tx_delivered = tp->delivered;
	seg->tx_delivered_ce = tp->delivered_ce;
	if (tp->app_limited)
		seg->flags |= SEG_APP_LIMITED;
	else
		seg->flags &= (__u8)~SEG_APP_LIMITED;
}

/* A segment is newly delivered (cumulatively or by SACK). The latest-sent one wins. */
void sim_rate_skb_delivered(struct sim_flow *f, struct sim_seg *seg, __u32 idx, struct rate_sample *rs,
			    __u64 *best_xmit, __u32 *best_idx)
{
	struct tcp_sock *tp = &f->snd;

	if (!seg->delivered_mstamp)
		return;
	if (!rs->prior_delivered ||
	    seg->xmit_us > *best_xmit || (seg->xmit_us == *best_xmit && idx > *best_idx)) {
		*best_xmit = seg->xmit_us;
		*best_idx = idx;
		rs->prior_delivered_ce = seg->tx_delivered_ce;
		rs->prior_delivered = seg->tx_delivered;
		rs->prior_mstamp = seg->delivered_mstamp;
		rs->is_app_limited = (seg->flags & SEG_APP_LIMITED) != 0;
		rs->is_retrans = (seg->flags & SEG_EVER_RETRANS) != 0;
		rs->last_end_seq = sim_seq(f, idx + 1);
		/* The next sample's send phase starts here. */
		tp->first_tx_mstamp = seg->xmit_us;
		rs->snd_interval_us = tcp_stamp_us_delta(seg->xmit_us, seg->first_tx_mstamp);
	}
	/* Delivered once: a later cumulative ACK of a SACKed segment is not a new sample. */
	if (seg->flags & SEG_SACKED)
		seg->delivered_mstamp = 0;
}

void sim_rate_gen(struct sim_flow *f, __u32 delivered, __u32 lost, struct rate_sample *rs)
{
	struct tcp_sock *tp = &f->snd;
	__u32 snd_us, ack_us;

	/* The app-limited period ends once what was in flight at its start is delivered. */
	if (tp->app_limited && after(tp->delivered, tp->app_limited))
		tp->app_limited = 0;
	if (delivered)
		tp->delivered_mstamp = tp->tcp_mstamp;
	rs->acked_sacked = delivered;
	rs->losses = (int)lost;
	if (!rs->prior_mstamp) {
		rs->delivered = -1;
		rs->interval_us = -1;
		return;
	}
	rs->delivered = (__s32)(tp->delivered - rs->prior_delivered);
	rs->delivered_ce = (__s32)(tp->delivered_ce - rs->prior_delivered_ce);
	snd_us = rs->snd_interval_us;
	ack_us = tcp_stamp_us_delta(tp->tcp_mstamp, rs->prior_mstamp);
	rs->rcv_interval_us = ack_us;
	/* The longer of the two phases: neither ACK compression nor send bursts can make
	 * the path look faster than it is. */
	rs->interval_us = snd_us > ack_us ? snd_us : ack_us;
	if (rs->interval_us < (long)tcp_min_rtt(tp)) {
		rs->interval_us = -1;
		return;
	}
}
