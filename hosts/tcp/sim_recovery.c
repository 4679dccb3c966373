/* SPDX-License-Identifier: Apache-2.0 */
/* Loss detection and the CA state machine (docs/reference/tcp-model.md §2.4–2.7, §3.2, §3.5): RACK
 * marking, Open/Disorder/CWR/Recovery/Loss transitions with the CC's ssthresh, set_state
 * and undo_cwnd called where Linux calls them, PRR (RFC 6937) and RTO entry. */
#include <stdlib.h>
#include "sim_internal.h"

static struct sock *SK(struct tcp_sock *tp)
{
	return (struct sock *)tp;
}

static __u8 ca_state(const struct tcp_sock *tp)
{
	return tp->inet_conn.icsk_ca_state;
}

/* max(ssthresh, ¾ cwnd) outside reductions: what undo may restore. */
__u32 sim_current_ssthresh(const struct tcp_sock *tp)
{
	if ((1 << ca_state(tp)) & ((1 << TCP_CA_CWR) | (1 << TCP_CA_Recovery)))
		return tp->snd_ssthresh;
	__u32 q = (tp->snd_cwnd >> 1) + (tp->snd_cwnd >> 2);
	return tp->snd_ssthresh > q ? tp->snd_ssthresh : q;
}

void sim_rack_advance(struct sim_flow *f, const struct sim_seg *seg, __u32 idx)
{
	struct tcp_sock *tp = &f->snd;
	__u32 rtt_us = tcp_stamp_us_delta(tp->tcp_mstamp, seg->xmit_us);
	__u32 end_seq = sim_seq(f, idx + 1);

	/* A retransmission SACKed sooner than min_rtt was probably the original arriving. */
	if (rtt_us < tcp_min_rtt(tp) && (seg->flags & SEG_EVER_RETRANS))
		return;
	tp->rack.advanced = 1;
	tp->rack.rtt_us = rtt_us;
	if (seg->xmit_us > tp->rack.mstamp || (seg->xmit_us == tp->rack.mstamp && after(end_seq, tp->rack.end_seq))) {
		tp->rack.mstamp = seg->xmit_us;
		tp->rack.end_seq = end_seq;
	}
}

void sim_mark_lost(struct sim_flow *f, __u32 idx)
{
	struct tcp_sock *tp = &f->snd;
	struct sim_seg *seg = sim_seg(f, idx);

	if (seg->flags & SEG_SACKED)
		return;
	if (seg->flags & SEG_LOST) {
		if (seg->flags & SEG_RETRANS) {
			/* The retransmission is lost too. */
			seg->flags &= (__u8)~SEG_RETRANS;
			tp->retrans_out--;
			tp->lost++;
			f->lost_pending++;
		}
	} else {
		seg->flags |= SEG_LOST;
		tp->lost_out++;
		tp->lost++;
		f->lost_pending++;
	}
	if (f->lost_pending == 1 || (__s32)(idx - f->retrans_hint) < 0)
		f->retrans_hint = idx;
}

/* The most tp->reordering becomes (net.ipv4.tcp_max_reordering). */
#define SIM_MAX_REORDERING 300
/* Recoveries a widened reorder window lasts (TCP_RACK_RECOVERY_THRESH). */
#define SIM_RACK_RECOVERY_THRESH 16

void sim_check_sack_reordering(struct sim_flow *f, __u32 low_idx)
{
	struct tcp_sock *tp = &f->snd;
	/* tcp_highest_sack_seq: the end of the highest SACKed segment, snd_una if none */
	__u32 fack = tp->sacked_out ? f->high_sacked_idx : f->una_idx;

	if ((__s32)(low_idx - fack) >= 0)
		return;
	__u32 metric = fack - low_idx; /* in full segments */
	if (metric > tp->reordering)
		tp->reordering = metric < SIM_MAX_REORDERING ? metric : SIM_MAX_REORDERING;
	tp->reord_seen++;
}

void sim_rack_update_reo_wnd(struct sim_flow *f, __u32 prior_delivered)
{
	struct tcp_rack *r = &f->snd.rack;

	if (!prior_delivered)
		return;
	/* one step per round trip: a D-SACK within a round of the last step is disregarded */
	if (before(prior_delivered, r->last_delivered))
		r->dsack_seen = 0;
	if (r->dsack_seen) {
		r->reo_wnd_steps = r->reo_wnd_steps < 0xFF ? r->reo_wnd_steps + 1 : 0xFF;
		r->dsack_seen = 0;
		r->last_delivered = f->snd.delivered;
		r->reo_wnd_persist = SIM_RACK_RECOVERY_THRESH;
	} else if (!r->reo_wnd_persist) {
		r->reo_wnd_steps = 1;
	}
}

/* tcp_rack_reo_wnd */
static __u32 rack_reo_wnd(const struct tcp_sock *tp)
{
	/* Before any reordering is seen: be aggressive in recovery and once reordering (3)
	 * segments are SACKed (the dupthresh shortcut). Else min_rtt/4 per step, at most SRTT. */
	if (!tp->reord_seen && (ca_state(tp) >= TCP_CA_Recovery || tp->sacked_out >= tp->reordering))
		return 0;
	__u32 w = (tcp_min_rtt(tp) >> 2) * tp->rack.reo_wnd_steps;
	return w < (tp->srtt_us >> 3) ? w : tp->srtt_us >> 3;
}

/* Mark lost every undelivered segment sent before the latest delivered one and older than
 * its RTT plus the reordering window; arm the reorder timer for the rest. Segments are
 * scanned in sequence order: originals go out in that order and retransmissions (sent
 * later) are checked individually. */
void sim_rack_rtx_sent(struct sim_flow *f, __u32 idx, __u64 xmit_us)
{
	struct sim_rtx *q = sim_ring_reserve(f->sim, f->rtxq, sizeof(*q), &f->rtxq_cap, &f->rtxq_head, f->rtxq_len);

	if (!q)
		return;
	f->rtxq = q;
	q[(f->rtxq_head + f->rtxq_len++) & (f->rtxq_cap - 1)] = (struct sim_rtx){ idx, xmit_us };
}

/* Is this copy of the segment still out (not delivered, not already judged lost)? */
static bool rtx_live(struct sim_flow *f, const struct sim_rtx *r)
{
	const struct sim_seg *seg;

	if ((__s32)(r->idx - f->una_idx) < 0)
		return false;
	seg = sim_seg(f, r->idx);
	return (seg->flags & SEG_RETRANS) && seg->xmit_us == r->xmit_us;
}

/* RACK's verdict on one undelivered segment sent before the reference: lost, or how long
 * until it would be (0 = sent after the reference). */
static int rack_check(struct sim_flow *f, __u32 idx, __u32 reo_wnd, __u32 *reo_timeout)
{
	struct tcp_sock *tp = &f->snd;
	struct sim_seg *seg = sim_seg(f, idx);
	__u32 end_seq = sim_seq(f, idx + 1);

	if (!(tp->rack.mstamp > seg->xmit_us || (tp->rack.mstamp == seg->xmit_us && after(tp->rack.end_seq, end_seq))))
		return 0;
	__s64 remaining = (__s64)tp->rack.rtt_us + reo_wnd - (__s64)(tp->tcp_mstamp - seg->xmit_us);
	if (remaining <= 0) {
		sim_mark_lost(f, idx);
		return 1;
	}
	if ((__u32)remaining > *reo_timeout)
		*reo_timeout = (__u32)remaining;
	return 2;
}

/* tcp_rack_detect_loss. Linux walks the undelivered segments in send order and stops at the
 * first sent after the reference. Here: originals in sequence order (their send order),
 * skipping a settled prefix, then outstanding retransmissions in send order. Each ACK thus
 * costs the segments still in doubt, not the window. */
static void rack_detect_loss(struct sim_flow *f, __u32 *reo_timeout)
{
	__u32 reo_wnd = rack_reo_wnd(&f->snd);
	bool prefix = true;

	*reo_timeout = 0;
	if ((__s32)(f->rack_hint - f->una_idx) < 0)
		f->rack_hint = f->una_idx;
	for (__u32 i = f->rack_hint; i != f->nxt_idx; i++) {
		__u8 fl = sim_seg(f, i)->flags;

		if ((fl & SEG_SACKED) || (fl & SEG_EVER_RETRANS) || (fl & SEG_LOST)) {
			/* settled, or watched as a retransmission */
			if (prefix)
				f->rack_hint = i + 1;
			continue;
		}
		int v = rack_check(f, i, reo_wnd, reo_timeout);
		if (v == 0)
			break; /* later originals were sent later still */
		if (v == 1 && prefix)
			f->rack_hint = i + 1;
		else
			prefix = false;
	}
	while (f->rtxq_len && !rtx_live(f, &f->rtxq[f->rtxq_head & (f->rtxq_cap - 1)])) {
		f->rtxq_head = (f->rtxq_head + 1) & (f->rtxq_cap - 1);
		f->rtxq_len--;
	}
	for (__u32 k = 0; k < f->rtxq_len; k++) {
		struct sim_rtx *r = &f->rtxq[(f->rtxq_head + k) & (f->rtxq_cap - 1)];

		if (!rtx_live(f, r))
			continue;
		if (rack_check(f, r->idx, reo_wnd, reo_timeout) == 0)
			break;
	}
}

/* tcp_rack_mark_lost: only when an ACK advanced RACK's reference point. */
static void rack_mark_lost(struct sim_flow *f)
{
	struct tcp_sock *tp = &f->snd;
	__u32 timeout;

	if (!tp->rack.advanced)
		return;
	tp->rack.advanced = 0;
	rack_detect_loss(f, &timeout);
	if (timeout) {
		/* jiffy timer, at least two ticks (TCP_TIMEOUT_MIN) */
		__u32 now = kbpf_tcp_jiffies32(tp);
		__u32 j = now + (__u32)kbpf_usecs_to_jiffies(timeout) + 2;
		sim_timer_arm(f, T_REO, sim_wheel_time(now, j));
	}
}

void sim_rack_detect(struct sim_flow *f)
{
	__u32 timeout;

	rack_detect_loss(f, &timeout);
	if (timeout) {
		__u32 now = kbpf_tcp_jiffies32(&f->snd);
		__u32 j = now + (__u32)kbpf_usecs_to_jiffies(timeout) + 2;
		sim_timer_arm(f, T_REO, sim_wheel_time(now, j));
	}
}

static void init_cwnd_reduction(struct sim_flow *f)
{
	struct tcp_sock *tp = &f->snd;

	tp->high_seq = tp->snd_nxt;
	tp->tlp_high_seq = 0;
	tp->snd_cwnd_cnt = 0;
	tp->prior_cwnd = tp->snd_cwnd;
	tp->prr_delivered = 0;
	tp->prr_out = 0;
	tp->snd_ssthresh = tp->inet_conn.icsk_ca_ops->ssthresh(SK(tp));
	if (tp->ecn_flags & TCP_ECN_OK)
		tp->ecn_flags |= TCP_ECN_QUEUE_CWR;
}

static void end_cwnd_reduction(struct sim_flow *f)
{
	struct tcp_sock *tp = &f->snd;

	if (tp->inet_conn.icsk_ca_ops->cong_control)
		return;
	if (tp->snd_ssthresh < TCP_INFINITE_SSTHRESH && (ca_state(tp) == TCP_CA_CWR || tp->undo_marker)) {
		tp->snd_cwnd = tp->snd_ssthresh;
		tp->snd_cwnd_stamp = kbpf_tcp_jiffies32(tp);
	}
	kbpf_tcp_ca_event(SK(tp), CA_EVENT_COMPLETE_CWR);
}

static void init_undo(struct sim_flow *f)
{
	struct tcp_sock *tp = &f->snd;

	tp->undo_marker = tp->snd_una;
	/* Retransmissions still out may be D-SACKed later: the regular ones and a loss
	 * probe's retransmission; 0 would mean "can undo now". */
	tp->undo_retrans = (int)tp->retrans_out;
	if (tp->tlp_high_seq && f->tlp_retrans)
		tp->undo_retrans++;
	if (!tp->undo_retrans)
		tp->undo_retrans = -1;
}

/* tcp_packet_delayed: the ACK echoes a timestamp older than the first retransmission (only
 * with wire SACK, where ACKs carry the TSecr), or nothing was retransmitted yet: an original
 * filled the hole. */
static bool packet_delayed(const struct sim_flow *f)
{
	if (!f->snd.retrans_stamp)
		return true;
	return sim_tsecr_before(f, f->retrans_tsval);
}

/* tcp_may_undo: every retransmission D-SACKed, or the ACK shows the originals arrived. */
static bool may_undo(const struct sim_flow *f)
{
	return f->snd.undo_marker && (!f->snd.undo_retrans || packet_delayed(f));
}

static void undo_cwnd_reduction(struct sim_flow *f, bool unmark_loss)
{
	struct tcp_sock *tp = &f->snd;

	if (unmark_loss) {
		for (__u32 i = f->una_idx; i != f->nxt_idx; i++)
			sim_seg(f, i)->flags &= (__u8)~SEG_LOST;
		tp->lost_out = 0;
		f->lost_pending = 0;
		f->rack_hint = f->una_idx; /* the unmarked segments are in doubt again */
	}
	if (tp->prior_ssthresh) {
		tp->snd_cwnd = tp->inet_conn.icsk_ca_ops->undo_cwnd(SK(tp));
		if (tp->prior_ssthresh > tp->snd_ssthresh) {
			tp->snd_ssthresh = tp->prior_ssthresh;
			tp->ecn_flags &= (__u8)~TCP_ECN_QUEUE_CWR;
		}
	}
	tp->snd_cwnd_stamp = kbpf_tcp_jiffies32(tp);
	tp->undo_marker = 0;
	tp->rack.advanced = 1;
}

/* End of Recovery or Loss: undo if the reduction proved spurious, then Open. */
static void try_undo_recovery(struct sim_flow *f)
{
	struct tcp_sock *tp = &f->snd;

	if (may_undo(f))
		undo_cwnd_reduction(f, false);
	else if (tp->rack.reo_wnd_persist)
		tp->rack.reo_wnd_persist--; /* one more recovery that was not spurious */
	kbpf_tcp_set_ca_state(SK(tp), TCP_CA_Open);
}

/* tcp_try_undo_loss: a partial ACK in Loss that proves the RTO spurious, by the undo test
 * or by F-RTO (frto_undo: never-retransmitted data was delivered). */
static bool try_undo_loss(struct sim_flow *f, bool frto_undo)
{
	struct tcp_sock *tp = &f->snd;

	if (!frto_undo && !may_undo(f))
		return false;
	undo_cwnd_reduction(f, true);
	tp->inet_conn.icsk_retransmits = 0;
	kbpf_tcp_set_ca_state(SK(tp), TCP_CA_Open);
	return true;
}

static bool any_retrans_done(struct sim_flow *f)
{
	return f->snd.retrans_out ||
	       (f->una_idx != f->nxt_idx && (sim_seg(f, f->una_idx)->flags & SEG_EVER_RETRANS));
}

static void try_keep_open(struct sim_flow *f)
{
	struct tcp_sock *tp = &f->snd;
	__u8 state = TCP_CA_Open;

	if (tp->sacked_out + tp->lost_out || any_retrans_done(f))
		state = TCP_CA_Disorder;
	if (ca_state(tp) != state) {
		kbpf_tcp_set_ca_state(SK(tp), state);
		tp->high_seq = tp->snd_nxt;
	}
}

static void enter_cwr(struct sim_flow *f)
{
	struct tcp_sock *tp = &f->snd;

	tp->prior_ssthresh = 0;
	if (ca_state(tp) < TCP_CA_CWR) {
		tp->undo_marker = 0;
		init_cwnd_reduction(f);
		kbpf_tcp_set_ca_state(SK(tp), TCP_CA_CWR);
	}
}

void sim_enter_cwr(struct sim_flow *f)
{
	enter_cwr(f);
}

static void enter_recovery(struct sim_flow *f, bool ece_ack)
{
	struct tcp_sock *tp = &f->snd;

	f->recoveries++;
	tp->prior_ssthresh = 0;
	init_undo(f);
	/* Already reducing (CWR): no second ssthresh(). */
	if (!((1 << ca_state(tp)) & ((1 << TCP_CA_CWR) | (1 << TCP_CA_Recovery)))) {
		if (!ece_ack)
			tp->prior_ssthresh = sim_current_ssthresh(tp);
		init_cwnd_reduction(f);
	}
	kbpf_tcp_set_ca_state(SK(tp), TCP_CA_Recovery);
}

/* tcp_try_undo_dsack: all retransmissions of the episode were D-SACKed (the originals
 * arrived): undo the reduction; the state is left to the caller. */
static bool try_undo_dsack(struct sim_flow *f)
{
	struct tcp_sock *tp = &f->snd;

	if (tp->undo_marker && !tp->undo_retrans) {
		tp->rack.reo_wnd_persist = tp->rack.reo_wnd_persist < SIM_RACK_RECOVERY_THRESH ?
						   tp->rack.reo_wnd_persist + 1 : SIM_RACK_RECOVERY_THRESH;
		undo_cwnd_reduction(f, false);
		return true;
	}
	return false;
}

/* tcp_try_undo_partial: a partial ACK in Recovery filled by a delayed original. True: the
 * ACK is done with (retransmissions still out); after an undo, loss detection goes on. */
static bool try_undo_partial(struct sim_flow *f, __u32 prior_snd_una)
{
	struct tcp_sock *tp = &f->snd;

	if (!tp->undo_marker || !packet_delayed(f))
		return false;
	/* the reordering is at least what snd_una jumped over */
	sim_check_sack_reordering(f, f->una_idx - (tp->snd_una - prior_snd_una) / tp->mss_cache);
	/* retransmissions still out: clock out new data, mark nothing more lost */
	if (tp->retrans_out)
		return true;
	if (!any_retrans_done(f))
		tp->retrans_stamp = 0;
	undo_cwnd_reduction(f, true);
	try_keep_open(f);
	return false;
}

/* tcp_try_to_open */
static void try_to_open(struct sim_flow *f, int flag)
{
	struct tcp_sock *tp = &f->snd;

	if (!any_retrans_done(f))
		tp->retrans_stamp = 0;
	if (flag & FLAG_ECE)
		enter_cwr(f);
	if (ca_state(tp) != TCP_CA_CWR)
		try_keep_open(f);
}

/* tcp_process_loss: undo, or leave Loss once high_seq is ACKed (slow start continues from
 * where it is: no cwnd = ssthresh); with F-RTO (RFC 5682 3.1, SACK-enhanced), the first ACK
 * that advances snd_una sends new data instead of retransmissions (step 2.b), and the ACKs
 * after it tell a spurious RTO (never-retransmitted data delivered: undo, step 3.b) from a
 * real one (a SACK or dupACK: conventional recovery, step 3.a). */
static void process_loss(struct sim_flow *f, struct sim_ack_state *as)
{
	struct tcp_sock *tp = &f->snd;
	int flag = as->flag;
	bool recovered = !before(tp->snd_una, tp->high_seq);
	bool dupack = !(flag & (FLAG_SND_UNA_ADVANCED | FLAG_NOT_DUP | FLAG_DSACKING_ACK));

	if ((flag & FLAG_SND_UNA_ADVANCED) && try_undo_loss(f, false))
		return;
	if (f->frto) {
		if ((flag & FLAG_ORIG_SACK_ACKED) && try_undo_loss(f, true))
			return;
		if (after(tp->snd_nxt, tp->high_seq)) {
			if ((flag & FLAG_DATA_SACKED) || dupack)
				f->frto = false; /* the loss was real */
		} else if ((flag & FLAG_SND_UNA_ADVANCED) && !recovered) {
			tp->high_seq = tp->snd_nxt;
			if (f->nxt_idx < f->limit_segs) {
				as->rexmit_new = true;
				return;
			}
			f->frto = false;
		}
	}
	if (recovered)
		try_undo_recovery(f);
}

void sim_fastretrans_alert(struct sim_flow *f, struct sim_ack_state *as)
{
	struct tcp_sock *tp = &f->snd;
	int flag = as->flag;

	if (flag & FLAG_ECE)
		tp->prior_ssthresh = 0; /* ECN reductions are never undone */

	/* State exits once high_seq is ACKed. */
	if (ca_state(tp) == TCP_CA_Open) {
		tp->retrans_stamp = 0;
	} else if (!before(tp->snd_una, tp->high_seq)) {
		switch (ca_state(tp)) {
		case TCP_CA_CWR:
			/* Hold CWR until something above high_seq is ACKed: the CWR bit got through. */
			if (tp->snd_una != tp->high_seq) {
				end_cwnd_reduction(f);
				kbpf_tcp_set_ca_state(SK(tp), TCP_CA_Open);
			}
			break;
		case TCP_CA_Recovery:
			try_undo_recovery(f);
			end_cwnd_reduction(f);
			break;
		}
	}

	switch (ca_state(tp)) {
	case TCP_CA_Recovery:
		if ((flag & FLAG_SND_UNA_ADVANCED) && try_undo_partial(f, as->prior_snd_una))
			return;
		/* Every retransmission D-SACKed: undo at once (tcp_try_undo_dsack). */
		if (try_undo_dsack(f))
			try_to_open(f, flag);
		rack_mark_lost(f);
		if (ca_state(tp) != TCP_CA_Recovery && tp->lost_out)
			enter_recovery(f, (flag & FLAG_ECE) != 0);
		break;
	case TCP_CA_Loss: {
		process_loss(f, as);
		__u32 prior_retrans = tp->retrans_out;

		rack_mark_lost(f);
		if (!(ca_state(tp) == TCP_CA_Open || tp->retrans_out < prior_retrans))
			break;
		/* back in Open (or a retransmission was lost): continue as from Open */
		__attribute__((fallthrough));
	}
	default:
		/* A late D-SACK can still prove the last reduction spurious. */
		if (ca_state(tp) <= TCP_CA_Disorder)
			try_undo_dsack(f);
		rack_mark_lost(f);
		if (!tp->lost_out) {
			try_to_open(f, flag);
			return;
		}
		enter_recovery(f, (flag & FLAG_ECE) != 0);
		/* REXMIT_LOST: from Loss (a retransmission lost on the ACK that had F-RTO send
		 * new data), the lost segments go first */
		as->rexmit_new = false;
		break;
	}
}

/* tcp_process_tlp_ack: a probe that repaired a loss (the ACK passes it without a D-SACK)
 * costs a reduction, started and ended at once (cwnd = ssthresh). */
void sim_process_tlp_ack(struct sim_flow *f, __u32 ack_seq, int flag)
{
	struct tcp_sock *tp = &f->snd;

	if (before(ack_seq, tp->tlp_high_seq))
		return;
	if (!f->tlp_retrans) {
		tp->tlp_high_seq = 0; /* a probe of new data was ACKed */
	} else if (flag & FLAG_DSACK_TLP) {
		/* the probe itself was D-SACKed: original and probe both arrived, no loss (a
		 * D-SACK of another segment says nothing of the probe: 6.12's FLAG_DSACK_TLP) */
		tp->tlp_high_seq = 0;
	} else if (after(ack_seq, tp->tlp_high_seq)) {
		init_cwnd_reduction(f);
		kbpf_tcp_set_ca_state(SK(tp), TCP_CA_CWR);
		end_cwnd_reduction(f);
		try_keep_open(f);
	} else if (!(flag & (FLAG_SND_UNA_ADVANCED | FLAG_NOT_DUP | FLAG_DATA_SACKED))) {
		tp->tlp_high_seq = 0; /* a pure dupack: both arrived */
	}
}

/* RACK's reorder timer expired: mark what is now overdue and start recovery. */
void sim_rack_reo_timeout(struct sim_flow *f)
{
	struct tcp_sock *tp = &f->snd;
	__u32 prior_inflight = tcp_packets_in_flight(tp);

	sim_rack_detect(f);
	if (prior_inflight != tcp_packets_in_flight(tp) && ca_state(tp) != TCP_CA_Recovery) {
		enter_recovery(f, false);
		if (!tp->inet_conn.icsk_ca_ops->cong_control)
			sim_cwnd_reduction(f, 1, 0, 0);
	}
}

/* PRR: spread the reduction to ssthresh over about one RTT of ACKs, with the slow-start
 * bound once in flight is below ssthresh. */
void sim_cwnd_reduction(struct sim_flow *f, int newly_acked_sacked, int newly_lost, int flag)
{
	struct tcp_sock *tp = &f->snd;
	int sndcnt;
	int delta = (int)tp->snd_ssthresh - (int)tcp_packets_in_flight(tp);

	if (newly_acked_sacked <= 0 || !tp->prior_cwnd)
		return;
	tp->prr_delivered += (__u32)newly_acked_sacked;
	if (delta < 0) {
		__u64 dividend = (__u64)tp->snd_ssthresh * tp->prr_delivered + tp->prior_cwnd - 1;
		sndcnt = (int)(dividend / tp->prior_cwnd) - (int)tp->prr_out;
	} else {
		sndcnt = (int)tp->prr_delivered - (int)tp->prr_out;
		if (sndcnt < newly_acked_sacked)
			sndcnt = newly_acked_sacked;
		if ((flag & FLAG_SND_UNA_ADVANCED) && !newly_lost)
			sndcnt++;
		if (sndcnt > delta)
			sndcnt = delta;
	}
	/* The fast retransmit goes out whatever PRR says. */
	if (sndcnt < (tp->prr_out ? 0 : 1))
		sndcnt = tp->prr_out ? 0 : 1;
	tp->snd_cwnd = tcp_packets_in_flight(tp) + (__u32)sndcnt;
}

/* RTO: everything not SACKed is lost; ssthresh() only at the first RTO of an episode. */
void sim_enter_loss(struct sim_flow *f)
{
	struct tcp_sock *tp = &f->snd;
	struct inet_connection_sock *icsk = &tp->inet_conn;
	bool new_recovery = ca_state(tp) < TCP_CA_Recovery;

	for (__u32 i = f->una_idx; i != f->nxt_idx; i++) {
		struct sim_seg *seg = sim_seg(f, i);

		if (seg->flags & SEG_SACKED)
			continue;
		/* RACK spares segments (other than the head) sent less than its RTT ago. */
		if (i != f->una_idx && (__s64)tp->rack.rtt_us - (__s64)(tp->tcp_mstamp - seg->xmit_us) > 0)
			continue;
		sim_mark_lost(f, i);
	}
	f->retrans_hint = f->una_idx;

	if (ca_state(tp) <= TCP_CA_Disorder || !after(tp->high_seq, tp->snd_una) ||
	    (ca_state(tp) == TCP_CA_Loss && !icsk->icsk_retransmits)) {
		tp->prior_ssthresh = sim_current_ssthresh(tp);
		tp->prior_cwnd = tp->snd_cwnd;
		tp->snd_ssthresh = icsk->icsk_ca_ops->ssthresh(SK(tp));
		kbpf_tcp_ca_event(SK(tp), CA_EVENT_LOSS);
		init_undo(f);
	}
	tp->snd_cwnd = tcp_packets_in_flight(tp) + 1;
	tp->snd_cwnd_cnt = 0;
	tp->snd_cwnd_stamp = kbpf_tcp_jiffies32(tp);
	/* An RTO after enough dupACKs: the reordering degree was overestimated. */
	if (ca_state(tp) <= TCP_CA_Disorder && tp->sacked_out >= 3 && tp->reordering > 3)
		tp->reordering = 3;
	kbpf_tcp_set_ca_state(SK(tp), TCP_CA_Loss);
	tp->high_seq = tp->snd_nxt;
	tp->tlp_high_seq = 0;
	if (tp->ecn_flags & TCP_ECN_OK)
		tp->ecn_flags |= TCP_ECN_QUEUE_CWR;
	/* F-RTO unless a recovery was under way, except for repeated timeouts of one snd_una */
	f->frto = new_recovery || icsk->icsk_retransmits; /* net.ipv4.tcp_frto 2 */
}
