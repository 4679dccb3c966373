/* SPDX-License-Identifier: Apache-2.0 */
/* The sender: connection setup, transmission (cwnd, pacing, ECN marks), ACK processing in
 * Linux's order (docs/reference/tcp-model.md §2.3) and the retransmission timer. Every congestion
 * control decision goes through the socket's icsk_ca_ops. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sim_internal.h"

static struct sock *SK(struct tcp_sock *tp)
{
	return (struct sock *)tp;
}

__u32 sim_seq(const struct sim_flow *f, __u32 idx)
{
	return f->isn + 1 + idx * f->mss;
}

struct sim_seg *sim_seg(struct sim_flow *f, __u32 idx)
{
	return &f->segs[idx & (f->cap - 1)];
}

/* Make room for segment nxt_idx in the ring (doubling, keeping [una, nxt)). */
static int seg_reserve(struct sim_flow *f)
{
	if (f->nxt_idx - f->una_idx < f->cap)
		return 0;
	__u32 cap = f->cap * 2;
	struct sim_seg *n = calloc(cap, sizeof(*n));

	if (!n || cap > (1U << 30)) {
		free(n);
		f->sim->oom = 1;
		return -1;
	}
	for (__u32 i = f->una_idx; i != f->nxt_idx; i++)
		n[i & (cap - 1)] = f->segs[i & (f->cap - 1)];
	free(f->segs);
	f->segs = n;
	f->cap = cap;
	return 0;
}

static void sock_defaults(struct sim_flow *f, struct tcp_sock *tp, const struct tcp_congestion_ops *ops,
			  __u32 own_isn, __u32 peer_isn)
{
	struct sock *sk = SK(tp);

	sk->sk_state = TCP_ESTABLISHED;
	sk->sk_pacing_rate = ~0UL;
	sk->sk_max_pacing_rate = ~0UL;
	/* sch_fq marks the sockets whose packets pass through it (fq_classify) */
	sk->sk_pacing_status = f->fq && tp == &f->snd ? SK_PACING_FQ : SK_PACING_NONE;
	sk->sk_pacing_shift = 10;
	sk->sk_gso_max_size = 65536 - 1 - 320;
	sk->sk_gso_max_segs = 65535;
	tp->inet_conn.icsk_ca_ops = ops;
	tp->inet_conn.icsk_rto = SIM_RTO_INIT_J;
	tp->mss_cache = f->mss;
	tp->snd_cwnd = TCP_INIT_CWND;
	tp->snd_cwnd_clamp = ~0U;
	tp->snd_ssthresh = TCP_INFINITE_SSTHRESH;
	tp->reordering = 3;
	tp->rack.reo_wnd_steps = 1;
	tp->app_limited = ~0U;
	tp->delivered = 1; /* the SYN or SYN-ACK */
	tp->snd_una = tp->snd_nxt = own_isn + 1;
	tp->rcv_nxt = tp->rcv_wup = peer_isn + 1;
	tp->window_clamp = 65535U << 14;
	tp->kbpf.owner = f;
	tp->kbpf.prandom_state = sim_rand(f->sim);
	if (f->ecn_ok)
		tp->ecn_flags = TCP_ECN_OK;
	/* tcp_assign_congestion_control: NEEDS_ECN sockets send ECT from the SYN on. */
	if (ops->flags & TCP_CONG_NEEDS_ECN)
		tp->inet_conn.icsk_inet.tos |= INET_ECN_ECT_0;
}

/* tcp_init_transfer: initial window, then the CC's init, then ECT from its (possibly
 * changed) ops. */
static void init_transfer(struct tcp_sock *tp)
{
	struct sock *sk = SK(tp);
	struct inet_connection_sock *icsk = &tp->inet_conn;

	const struct sim_flow *f = tp->kbpf.owner;

	tp->snd_cwnd = f && f->init_cwnd ? f->init_cwnd : TCP_INIT_CWND;
	tp->snd_cwnd_stamp = kbpf_tcp_jiffies32(tp);
	tp->prior_ssthresh = 0;
	memset(icsk->icsk_ca_priv, 0, sizeof(icsk->icsk_ca_priv));
	if (icsk->icsk_ca_ops->init)
		icsk->icsk_ca_ops->init(sk);
	if (icsk->icsk_ca_ops->flags & TCP_CONG_NEEDS_ECN)
		icsk->icsk_inet.tos |= INET_ECN_ECT_0;
	else
		icsk->icsk_inet.tos &= (__u8)~INET_ECN_MASK;
	icsk->icsk_ca_initialized = 1;
}

/* The handshake is not simulated packet by packet: the connection is established one base
 * RTT after the flow starts, with what the handshake would have set (ECN negotiation, the
 * first RTT sample, delivered = 1). */
void sim_sender_start(struct sim_flow *f)
{
	struct sim *s = f->sim;
	bool needs_ecn = f->ops->flags & TCP_CONG_NEEDS_ECN;
	__u64 rtt_ns = 2ULL * s->o.delay_us * NSEC_PER_USEC;

	if (f->scripted)
		return; /* the script's `connect` establishes it */
	if (!f->started) {
		f->started = true;
		f->start_ns = s->now;
		/* SYN with ECE|CWR if tcp_ecn = 1 or NEEDS_ECN (and ECT with NEEDS_ECN); the
		 * peer accepts an ECT SYN only with a NEEDS_ECN CC, a Not-ECT one if its tcp_ecn
		 * ≠ 0 or its CC needs ECN (tcp_ecn_create_request). */
		bool peer_needs = f->peer_ops->flags & TCP_CONG_NEEDS_ECN;
		bool accepted = needs_ecn ? peer_needs : (f->tcp_ecn != 0 || peer_needs);
		f->ecn_ok = (needs_ecn || f->tcp_ecn == 1) && accepted;
		f->isn = (__u32)sim_rand(s);
		sim_push(s, s->now + rtt_ns, EV_FLOW_START, f->id, 0, 0, 0);
		return;
	}
	sim_sender_establish(f, rtt_ns);
}

void sim_sender_establish(struct sim_flow *f, __u64 rtt_ns)
{
	__u32 peer_isn = (__u32)sim_rand(f->sim);

	sim_flow_clock(f);
	sock_defaults(f, &f->snd, f->ops, f->isn, peer_isn);
	sock_defaults(f, &f->rcv, f->peer_ops, peer_isn, f->isn);
	f->rcv.kbpf.send_ack = sim_receiver_send_ack_hook;
	/* The SYN/SYN-ACK exchange is the first RTT sample of both ends. */
	sim_rtt_update(f, (long)(rtt_ns / NSEC_PER_USEC), (long)(rtt_ns / NSEC_PER_USEC));
	f->rcv.srtt_us = f->snd.srtt_us;
	f->rcv.inet_conn.icsk_rto = f->snd.inet_conn.icsk_rto;
	f->rcv.inet_conn.icsk_ack.rcv_mss = 536;
	init_transfer(&f->snd);
	init_transfer(&f->rcv);
	sim_sender_xmit(f);
}

/* tcp_rearm_rto: the RTO from now, or, replacing a pending loss probe, from the head's
 * transmission. */
static void arm_rto(struct sim_flow *f)
{
	struct tcp_sock *tp = &f->snd;
	__u32 now = kbpf_tcp_jiffies32(tp), rto = tp->inet_conn.icsk_rto;

	if (!tp->packets_out) {
		sim_timer_cancel(f, T_RTO);
		f->tlp_armed = false;
		return;
	}
	if (f->tlp_armed) {
		__s64 delta_us = (__s64)sim_seg(f, f->una_idx)->xmit_us + (__s64)rto * (USEC_PER_SEC / KBPF_TCP_HZ) -
				 (__s64)tp->tcp_mstamp;

		rto = (__u32)kbpf_usecs_to_jiffies(delta_us > 1 ? (__u64)delta_us : 1);
		f->tlp_armed = false;
	}
	sim_timer_arm(f, T_RTO, sim_wheel_time(now, now + rto));
}

/* tcp_schedule_loss_probe: in Open or CWR, a probe after 2·SRTT (+200 ms with one segment
 * out, else +2 ms), not later than the RTO would fire. */
static bool schedule_loss_probe(struct sim_flow *f, bool advancing_rto)
{
	struct tcp_sock *tp = &f->snd;
	__u8 state = tp->inet_conn.icsk_ca_state;
	__u32 now = kbpf_tcp_jiffies32(tp), timeout;
	__s64 rto_delta_us;

	if (f->tlp_off || !tp->packets_out || (state != TCP_CA_Open && state != TCP_CA_CWR))
		return false;
	if (tp->srtt_us)
		timeout = (__u32)kbpf_usecs_to_jiffies((tp->srtt_us >> 2) + (tp->packets_out == 1 ? SIM_RTO_MIN_US : 2000));
	else
		timeout = SIM_RTO_INIT_J;
	if (advancing_rto)
		rto_delta_us = (__s64)tp->inet_conn.icsk_rto * (USEC_PER_SEC / KBPF_TCP_HZ);
	else
		rto_delta_us = (__s64)sim_seg(f, f->una_idx)->xmit_us +
			       (__s64)tp->inet_conn.icsk_rto * (USEC_PER_SEC / KBPF_TCP_HZ) - (__s64)tp->tcp_mstamp;
	if (rto_delta_us > 0) {
		__u32 r = (__u32)kbpf_usecs_to_jiffies((__u64)rto_delta_us);

		if (r < timeout)
			timeout = r;
	}
	f->tlp_armed = true;
	/* The probe replaces the RTO (one timer in Linux): drop any earlier deadline. */
	sim_timer_cancel(f, T_RTO);
	sim_timer_arm(f, T_RTO, sim_wheel_time(now, now + timeout));
	return true;
}

static bool in_cwnd_reduction(const struct tcp_sock *tp)
{
	return (1 << tp->inet_conn.icsk_ca_state) & ((1 << TCP_CA_CWR) | (1 << TCP_CA_Recovery));
}

/* Transmit segment idx (a retransmission if rtx; probe: the loss probe's retransmission,
 * which Linux sends with __tcp_retransmit_skb: counted in total_retrans and marked
 * EVER_RETRANS, but not SACKED_RETRANS, so not in retrans_out, retrans_stamp or
 * undo_retrans — an RTO that follows computes cwnd = in flight + 1 without it). */
static bool send_seg_probe(struct sim_flow *f, __u32 idx, bool rtx, bool probe);
static bool send_seg(struct sim_flow *f, __u32 idx, bool rtx)
{
	return send_seg_probe(f, idx, rtx, false);
}

/* Returns false if the qdisc refused the packet (sim_fq.c): nothing was sent. */
static bool send_seg_probe(struct sim_flow *f, __u32 idx, bool rtx, bool probe)
{
	struct tcp_sock *tp = &f->snd;
	struct sock *sk = SK(tp);
	struct inet_connection_sock *icsk = &tp->inet_conn;
	struct sim_seg *seg;
	__u64 prior_wstamp = tp->tcp_wstamp_ns;
	__u32 prior_packets = tp->packets_out;
	__u8 pf = 0;
	bool skb_head = !f->tso_burst || f->tso_pos == 0; /* the first segment of its skb */
	__u64 edt;

	if (!rtx && seg_reserve(f))
		return false;
	/* skb_still_in_host_queue: no copy of a packet fq still holds */
	if (rtx && f->fq && sim_fq_still_queued(f, idx))
		return false;
	seg = sim_seg(f, idx);
	if (!rtx)
		memset(seg, 0, sizeof(*seg));

	/* tcp_event_data_sent: TX_START first, so the CC sees the idle time in lsndtime. */
	if (tcp_packets_in_flight(tp) == 0)
		kbpf_tcp_ca_event(sk, CA_EVENT_TX_START);
	tp->lsndtime = kbpf_tcp_jiffies32(tp);

	/* Earliest departure time: the packet's timestamp for RTT and rate samples. */
	if (tp->tcp_wstamp_ns < tp->tcp_clock_cache)
		tp->tcp_wstamp_ns = tp->tcp_clock_cache;
	edt = tp->tcp_wstamp_ns;
	/* fq drops it (NET_XMIT_DROP): not sent, and TCP enters CWR (__tcp_transmit_skb) */
	if (f->fq && !sim_fq_admit(f, edt, skb_head)) {
		sim_enter_cwr(f);
		return false;
	}
	seg->xmit_us = tp->tcp_wstamp_ns / NSEC_PER_USEC;
	sim_rate_skb_sent(f, seg);

	/* ECN (tcp_ecn_send): new data is ECT and carries a queued CWR; retransmissions are
	 * Not-ECT unless the CC needs ECN. */
	if (tp->ecn_flags & TCP_ECN_OK) {
		if (!rtx) {
			icsk->icsk_inet.tos |= INET_ECN_ECT_0;
			if (tp->ecn_flags & TCP_ECN_QUEUE_CWR) {
				tp->ecn_flags &= (__u8)~TCP_ECN_QUEUE_CWR;
				pf |= PKT_CWR;
			}
		} else if (!(icsk->icsk_ca_ops->flags & TCP_CONG_NEEDS_ECN)) {
			icsk->icsk_inet.tos &= (__u8)~INET_ECN_MASK;
		}
	}
	pf |= icsk->icsk_inet.tos & INET_ECN_MASK;

	tp->data_segs_out++;
	f->segs_sent++;
	if (probe) {
		/* RACK sees it as the segment itself, sent again (its xmit_us) */
		seg->flags |= SEG_EVER_RETRANS;
		tp->total_retrans++;
		pf |= PKT_RETRANS;
	} else if (rtx) {
		seg->flags |= SEG_RETRANS | SEG_EVER_RETRANS;
		tp->retrans_out++;
		tp->total_retrans++;
		if (seg->flags & SEG_LOST)
			f->lost_pending--;
		if (!tp->retrans_stamp) {
			tp->retrans_stamp = kbpf_tcp_jiffies32(tp);
			f->retrans_tsval = (__u32)(seg->xmit_us / 1000);
		}
		if (tp->undo_retrans < 0)
			tp->undo_retrans = 0;
		tp->undo_retrans++;
		pf |= PKT_RETRANS;
		sim_rack_rtx_sent(f, idx, seg->xmit_us);
	} else {
		f->nxt_idx++;
		tp->snd_nxt = sim_seq(f, f->nxt_idx);
		tp->packets_out++;
	}
	if (in_cwnd_reduction(tp))
		tp->prr_out++;

	/* Pacing: advance the next departure by this segment's time at the pacing rate, less
	 * up to half of it as credit for having been late (not for the first 10 segments).
	 * A TSO burst is one skb: paced once, after its last segment, for all of its bytes. */
	__u64 pace_len = f->mss;
	bool pace = true;

	if (f->tso_burst) {
		if (++f->tso_pos < f->tso_burst)
			pace = false;
		else
			pace_len = (__u64)f->mss * f->tso_burst;
	}
	if (pace && sk->sk_pacing_status != SK_PACING_NONE) {
		unsigned long rate = sk->sk_pacing_rate;

		if (rate != ~0UL && rate && tp->data_segs_out >= 10) {
			__u64 len_ns = pace_len * NSEC_PER_SEC / rate;
			__u64 credit = tp->tcp_wstamp_ns - prior_wstamp;

			len_ns -= len_ns / 2 < credit ? len_ns / 2 : credit;
			tp->tcp_wstamp_ns += len_ns;
		}
	}
	/* tcp_event_new_data_sent: the RTO starts with the first segment out, and new data
	 * replaces a pending loss probe by the RTO (re-scheduled after the send batch). */
	if (!rtx && (!prior_packets || f->tlp_armed))
		arm_rto(f);
	/* With no qdisc in the way the packet leaves now; sch_fq holds it until its departure
	 * time. */
	if (f->fq)
		sim_fq_enqueue(f, idx, pf, edt, skb_head);
	else
		sim_link_send(f->sim, f, idx, pf);
	return true;
}

/* tcp_cwnd_validate (docs/reference/tcp-model.md §2.9, §2.8). */
static void cwnd_validate(struct sim_flow *f, bool is_cwnd_limited)
{
	struct tcp_sock *tp = &f->snd;
	struct sock *sk = SK(tp);

	if (!before(tp->snd_una, tp->cwnd_usage_seq) || is_cwnd_limited ||
	    (!tp->is_cwnd_limited && tp->packets_out > tp->max_packets_out)) {
		tp->is_cwnd_limited = is_cwnd_limited;
		tp->max_packets_out = tp->packets_out;
		tp->cwnd_usage_seq = tp->snd_nxt;
	}
	if (tcp_is_cwnd_limited(sk)) {
		tp->snd_cwnd_used = 0;
		tp->snd_cwnd_stamp = kbpf_tcp_jiffies32(tp);
		return;
	}
	if (tp->packets_out > tp->snd_cwnd_used)
		tp->snd_cwnd_used = tp->packets_out;
	/* Application-limited for a whole RTO: shrink cwnd toward what was used. */
	if (!f->ssai_off && (__s32)(kbpf_tcp_jiffies32(tp) - tp->snd_cwnd_stamp) >= (__s32)tp->inet_conn.icsk_rto &&
	    !tp->inet_conn.icsk_ca_ops->cong_control) {
		if (tp->inet_conn.icsk_ca_state == TCP_CA_Open) {
			__u32 used = tp->snd_cwnd_used > TCP_INIT_CWND ? tp->snd_cwnd_used : TCP_INIT_CWND;

			if (used < tp->snd_cwnd) {
				tp->snd_ssthresh = sim_current_ssthresh(tp);
				tp->snd_cwnd = (tp->snd_cwnd + used) >> 1;
			}
			tp->snd_cwnd_used = 0;
		}
		tp->snd_cwnd_stamp = kbpf_tcp_jiffies32(tp);
	}
}

/* The next lost segment not yet retransmitted, or ~0. */
static __u32 next_lost(struct sim_flow *f)
{
	if (!f->lost_pending)
		return ~0U;
	if ((__s32)(f->retrans_hint - f->una_idx) < 0)
		f->retrans_hint = f->una_idx;
	for (__u32 i = f->retrans_hint; i != f->nxt_idx; i++) {
		__u8 fl = sim_seg(f, i)->flags;

		if ((fl & (SEG_LOST | SEG_RETRANS | SEG_SACKED)) == SEG_LOST) {
			f->retrans_hint = i;
			return i;
		}
	}
	f->lost_pending = 0; /* nothing left: resynchronise */
	return ~0U;
}

/* tcp_tso_segs (Linux 6.12 tcp_output.c): tcp_tso_autosize's segments per skb — about
 * 1 ms of data at the pacing rate (rate >> sk_pacing_shift), plus gso_max_size >> (min_rtt
 * >> tcp_tso_rtt_log 9) on short paths, at most gso_max_size, at least the CC's
 * min_tso_segs (or the sysctl's 2) — capped by the device's gso_max_segs. */
static __u32 tso_segs(struct sim_flow *f)
{
	struct tcp_sock *tp = &f->snd;
	struct sock *sk = SK(tp);
	const struct tcp_congestion_ops *ops = tp->inet_conn.icsk_ca_ops;
	__u32 min_tso = ops->min_tso_segs ? ops->min_tso_segs(sk) : (f->opts.min_tso_segs ? f->opts.min_tso_segs : 2);
	__u64 bytes = (__u64)sk->sk_pacing_rate >> sk->sk_pacing_shift;
	__u32 r = tcp_min_rtt(tp) >> 9, segs;

	if (r < 32)
		bytes += sk->sk_gso_max_size >> r;
	if (bytes > sk->sk_gso_max_size)
		bytes = sk->sk_gso_max_size;
	segs = (__u32)(bytes / f->mss);
	if (segs < min_tso)
		segs = min_tso;
	return segs < sk->sk_gso_max_segs ? segs : sk->sk_gso_max_segs;
}

/* tcp_tso_should_defer (Linux 6.12): hold a partial burst back for the next ACK when
 * little of cwnd is free, the last send was within 1 ms and that ACK is due within
 * min(SRTT/2, 1 ms). The receive window is unlimited here; is_tail: no data beyond
 * this skb (its FIN, for a finite flow, is never held). */
bool sim_tso_should_defer(struct sim_flow *f, __u32 skb_segs, __u32 max_segs, bool is_tail, bool *cwnd_limited)
{
	struct tcp_sock *tp = &f->snd;
	__u32 in_flight = tcp_packets_in_flight(tp);
	__u64 skb_len = (__u64)skb_segs * f->mss, cong_win, chunk, srtt_ns, threshold;

	if (tp->inet_conn.icsk_ca_state >= TCP_CA_Recovery)
		return false;
	if ((__s64)(tp->tcp_clock_cache - tp->tcp_wstamp_ns - NSEC_PER_MSEC) > 0)
		return false;
	cong_win = (__u64)(tp->snd_cwnd - in_flight) * f->mss;
	if (cong_win >= (__u64)max_segs * f->mss)
		return false;
	if (!is_tail && cong_win >= skb_len)
		return false;
	chunk = (__u64)tp->snd_cwnd * f->mss / 3; /* tcp_tso_win_divisor 3 */
	if (cong_win >= chunk)
		return false;
	if (!tp->packets_out)
		return false;
	/* the next ACK is expected one SRTT after the oldest segment out was sent; if that is
	 * more than min(SRTT/2, 1 ms) from now, it comes too late: send (6.12's test; before
	 * 6.0 it was "the oldest segment is younger than SRTT/2", which defers far more) */
	srtt_ns = (__u64)(NSEC_PER_USEC >> 3) * tp->srtt_us;
	threshold = srtt_ns >> 1 < NSEC_PER_MSEC ? srtt_ns >> 1 : NSEC_PER_MSEC;
	if ((__s64)(sim_seg(f, f->una_idx)->xmit_us * NSEC_PER_USEC + srtt_ns - tp->tcp_clock_cache - threshold) > 0)
		return false;
	if (cong_win <= skb_len) {
		*cwnd_limited = true;
		return true;
	}
	return !(is_tail && f->limit_segs != ~0ULL);
}

/* tcp_write_xmit with the retransmission queue first: as much as cwnd and pacing allow
 * (a loss probe: one new segment, even beyond cwnd). */
static void xmit(struct sim_flow *f, bool probe, bool new_only);
void sim_sender_xmit(struct sim_flow *f)
{
	xmit(f, false, false);
}

/* new_only: new data only, no retransmission (F-RTO's REXMIT_NEW) */
static void xmit(struct sim_flow *f, bool probe, bool new_only)
{
	struct tcp_sock *tp = &f->snd;
	struct sock *sk = SK(tp);
	bool sent = false, cwnd_limited = false;

	if (!f->started || f->done_ns || !tp->inet_conn.icsk_ca_initialized)
		return;
	for (;;) {
		__u32 idx = new_only ? ~0U : next_lost(f);
		bool rtx = idx != ~0U;

		if (!rtx) {
			if (f->nxt_idx >= f->limit_segs)
				break;
			idx = f->nxt_idx;
		}
		if (tcp_packets_in_flight(tp) >= tp->snd_cwnd && !(probe && !rtx)) {
			cwnd_limited = true;
			break;
		}
		/* tcp_pacing_check: TCP holds packets itself only with internal pacing */
		if (sk->sk_pacing_status == SK_PACING_NEEDED && tp->tcp_wstamp_ns > tp->tcp_clock_cache) {
			sim_timer_arm(f, T_PACE, tp->tcp_wstamp_ns);
			break;
		}
		if (f->opts.tso && !rtx && !probe) {
			/* one skb of new data: tcp_cwnd_test's quota (at most half of cwnd, so
			 * that two bursts are in flight), the skb's size, the deferral test */
			__u32 max_segs = tso_segs(f), in_flight = tcp_packets_in_flight(tp);
			__u64 left = f->limit_segs - f->nxt_idx;
			__u32 skb_segs = left < max_segs ? (__u32)left : max_segs;
			__u32 half = tp->snd_cwnd >> 1 ? tp->snd_cwnd >> 1 : 1;
			__u32 quota = tp->snd_cwnd - in_flight < half ? tp->snd_cwnd - in_flight : half;

			bool refused = false;

			if (skb_segs > 1 && sim_tso_should_defer(f, skb_segs, max_segs, left <= max_segs, &cwnd_limited))
				break;
			if (sim_fq_tsq_throttled(f, skb_segs < quota ? skb_segs : quota, 0))
				break;
			f->tso_burst = skb_segs < quota ? skb_segs : quota;
			f->tso_pos = 0;
			for (__u32 k = 0; k < f->tso_burst && !f->sim->oom && !refused; k++)
				refused = !send_seg(f, f->nxt_idx, false);
			f->tso_burst = 0;
			if (f->sim->oom)
				return;
			if (refused)
				break; /* fq refused the skb (its first segment): nothing of it left */
			sent = true;
			continue;
		}
		/* TCP small queues (only what waits in fq counts: without it packets leave at once) */
		if (sim_fq_tsq_throttled(f, 1, rtx ? 1 : 0))
			break;
		if (!send_seg(f, idx, rtx))
			break;
		sent = true;
		if (f->sim->oom)
			return;
		if (probe)
			break;
	}
	if (tcp_packets_in_flight(tp) >= tp->snd_cwnd)
		cwnd_limited = true;
	if (sent && !probe)
		schedule_loss_probe(f, false); /* one probe per tail-loss episode */
	if (sent || cwnd_limited)
		cwnd_validate(f, cwnd_limited);
}

struct sack_state {
	__u32 reord; /* lowest never-retransmitted segment newly SACKed below the highest (index) */
	bool reord_set;
	__u32 fack; /* tcp_highest_sack_seq before the ACK, as an index */
	__u64 first_sackt, last_sackt;
	__u32 sack_delivered;
	__u64 best_xmit;
	__u32 best_idx;
};

/* tcp_sacktag_one for one newly SACKed segment. */
static void sacktag_one(struct sim_flow *f, __u32 idx, struct sack_state *ss, struct rate_sample *rs, int *flag)
{
	struct tcp_sock *tp = &f->snd;
	struct sim_seg *seg = sim_seg(f, idx);

	if (seg->flags & SEG_SACKED)
		return;
	if (!(seg->flags & SEG_EVER_RETRANS)) {
		/* a hole filled by a segment never retransmitted: reordering. Linux walks the
		 * blocks sorted by sequence, so the highest SACK a segment is compared with is the
		 * one before the ACK (blocks here come most recent first). */
		if ((__s32)(idx - ss->fack) < 0 &&
		    (!ss->reord_set || (__s32)(idx - ss->reord) < 0)) {
			ss->reord = idx;
			ss->reord_set = true;
		}
		if (!after(sim_seq(f, idx + 1), tp->high_seq))
			*flag |= FLAG_ORIG_SACK_ACKED;
		if (!ss->first_sackt || seg->xmit_us < ss->first_sackt)
			ss->first_sackt = seg->xmit_us;
		if (seg->xmit_us > ss->last_sackt)
			ss->last_sackt = seg->xmit_us;
	}
	sim_rack_advance(f, seg, idx);
	if (seg->flags & SEG_LOST) {
		if (!(seg->flags & SEG_RETRANS))
			f->lost_pending--;
		tp->lost_out--;
	}
	if (seg->flags & SEG_RETRANS)
		tp->retrans_out--;
	seg->flags = (seg->flags & (SEG_EVER_RETRANS | SEG_APP_LIMITED)) | SEG_SACKED;
	tp->sacked_out++;
	ss->sack_delivered++;
	sim_rate_skb_delivered(f, seg, idx, rs, &ss->best_xmit, &ss->best_idx);
	if ((__s32)(idx + 1 - f->high_sacked_idx) > 0)
		f->high_sacked_idx = idx + 1;
	*flag |= FLAG_DATA_SACKED;
}

void sim_sender_trace(struct sim_flow *f)
{
	struct sim *s = f->sim;
	struct tcp_sock *tp = &f->snd;

	if (!s->trace)
		return;
	struct kbpf_tcp_trace_point pt = {
		.time_us = (s->now - SIM_T0_NS) / NSEC_PER_USEC,
		.flow = f->id,
		.cwnd = tp->snd_cwnd,
		.ssthresh = tp->snd_ssthresh,
		.srtt_us = tp->srtt_us >> 3,
		.pacing_rate = tp->inet_conn.icsk_inet.sk.sk_pacing_rate,
		.inflight = tcp_packets_in_flight(tp),
		.queue_pkts = sim_link_queue(s),
		.delivered = tp->delivered,
		.lost = tp->lost,
		.retrans = tp->total_retrans,
		.ca_state = tp->inet_conn.icsk_ca_state,
	};
	s->trace(&pt, s->trace_ctx);
}

static void in_ack_event(struct tcp_sock *tp, int flag)
{
	const struct tcp_congestion_ops *ops = tp->inet_conn.icsk_ca_ops;

	if (ops->in_ack_event) {
		__u32 ev = 0;

		if (flag & FLAG_WIN_UPDATE)
			ev |= CA_ACK_WIN_UPDATE;
		if (flag & FLAG_SLOWPATH) {
			ev |= CA_ACK_SLOWPATH;
			if (flag & FLAG_ECE)
				ev |= CA_ACK_ECE;
		}
		ops->in_ack_event(SK(tp), ev);
	}
}

static void ack_blocks(struct sim_flow *f, __u32 ack_idx, const struct sim_sack_block *blk, unsigned int nblk,
		       __u8 pflags, bool wire);

/* tcp_ack (docs/reference/tcp-model.md §2.3): one ACK for segment index ack_idx (cumulative), with at
 * most one newly SACKed or D-SACKed segment (sack_plus1 − 1), and ECE; or, with
 * PKT_SACKLIST, the SACK option the receiver put on the wire (f->wire_sack). */
void sim_sender_ack(struct sim_flow *f, __u32 ack_idx, __u32 sack_plus1, __u8 pflags)
{
	struct sim_sack_block b = { sack_plus1 - 1, sack_plus1 };

	/* with wire SACK, b is the ACK's TSecr; else it waits in its own FIFO */
	if (f->wire_sack) {
		f->ack_tsecr = sack_plus1;
	} else {
		f->ack_tsecr = f->tsecr_q[f->tsecr_head];
		f->tsecr_head = (f->tsecr_head + 1) & (f->tsecr_cap - 1);
		f->tsecr_len--;
	}
	if (pflags & PKT_SACKLIST) {
		struct sim_wire_sack w;

		sim_wire_sack_pop(f, &w);
		ack_blocks(f, ack_idx, w.b, w.n, pflags & (__u8)~PKT_SACKLIST, true);
		return;
	}
	if (f->wire_sack) {
		ack_blocks(f, ack_idx, NULL, 0, pflags, true);
		return;
	}
	if (pflags & PKT_SACKBLK) {
		/* a compressed SACK: several segments, its block on the reverse path's queue */
		struct sim_wire_sack w;

		sim_wire_sack_pop(f, &w);
		b.start = w.b[0].start;
	}

	sim_sender_ack_blocks(f, ack_idx, &b, sack_plus1 ? 1 : 0, pflags);
}

/* tcp_ack with SACK blocks [start, end) of segment indexes. */
void sim_sender_ack_blocks(struct sim_flow *f, __u32 ack_idx, const struct sim_sack_block *blk, unsigned int nblk,
			   __u8 pflags)
{
	ack_blocks(f, ack_idx, blk, nblk, pflags, false);
}

/* Is idx in one of the previous ACK's blocks? Then idx becomes that block's end. */
static bool sack_cache_skip(const struct sim_flow *f, __u32 *idx)
{
	for (unsigned int c = 0; c < f->sack_cache_n; c++) {
		const struct sim_sack_block *b = &f->sack_cache[c];

		if ((__s32)(*idx - b->start) >= 0 && (__s32)(*idx - b->end) < 0) {
			*idx = b->end;
			return true;
		}
	}
	return false;
}

/* tcp_sacktag_write_queue for the blocks of one ACK as they came on the wire: the first
 * is a D-SACK if tcp_check_dsack says so (and tcp_dsack_seen does not find it dubious:
 * more segments D-SACKed than were ever retransmitted); a D-SACK below snd_una counts
 * against undo_retrans, one inside the window counts its retransmitted segments; blocks
 * are clipped to [snd_una, snd_nxt); what the previous ACK's blocks covered is SACKed
 * already and skipped (recv_sack_cache). */
static void sacktag_wire(struct sim_flow *f, __u32 ack_idx, __u32 prior_una_idx, const struct sim_sack_block *blk,
			 unsigned int nblk, struct sack_state *ss, struct rate_sample *rs, int *flag)
{
	struct tcp_sock *tp = &f->snd;
	bool dsack = false;

	if (sim_sack_is_dsack(blk, nblk, ack_idx)) {
		__u32 dup = blk[0].end - blk[0].start;

		if ((__s32)dup > 0) {
			/* tcp_dsack_seen: a D-SACK of the loss probe alone (before the dubious test) */
			if (dup == 1 && tp->tlp_high_seq && tp->tlp_high_seq == sim_seq(f, blk[0].end))
				*flag |= FLAG_DSACK_TLP;
			f->dsack_dups += dup;
			if (f->dsack_dups <= tp->total_retrans) {
				dsack = true;
				*flag |= FLAG_DSACKING_ACK;
				f->dsack_segs += dup;
				/* a spurious retransmission is delivered too (tcp_dsack_seen): it counts
				 * in delivered, so in the rate sample and in cong_avoid's and PRR's
				 * newly delivered */
				ss->sack_delivered += dup;
				/* RACK widens its window for D-SACKs once reordering was seen, but not
				 * for one matching a loss probe (timer-driven, not RACK's doing) */
				if (tp->reord_seen && !(*flag & FLAG_DSACK_TLP))
					tp->rack.dsack_seen = 1;
				if (tp->undo_marker && tp->undo_retrans > 0 && (__s32)(blk[0].end - prior_una_idx) <= 0 &&
				    after(sim_seq(f, blk[0].end), tp->undo_marker))
					tp->undo_retrans = tp->undo_retrans > (int)dup ? tp->undo_retrans - (int)dup : 0;
			}
		}
	}
	struct sim_sack_block cache[SIM_WIRE_SACKS];
	unsigned int ncache = 0;

	for (unsigned int b = 0; b < nblk; b++) {
		bool dup = dsack && !b;
		__u32 start = blk[b].start, end = blk[b].end;

		if ((__s32)(start - ack_idx) < 0)
			start = ack_idx;
		if ((__s32)(end - f->nxt_idx) > 0)
			end = f->nxt_idx;
		if ((__s32)(end - start) <= 0)
			continue;
		if (!dup)
			cache[ncache++] = (struct sim_sack_block){ start, end };
		for (__u32 i = start; (__s32)(i - end) < 0;) {
			if (!dup && sack_cache_skip(f, &i))
				continue;
			if (dup && (sim_seg(f, i)->flags & SEG_EVER_RETRANS) && tp->undo_marker && tp->undo_retrans > 0 &&
			    after(sim_seq(f, i + 1), tp->undo_marker))
				tp->undo_retrans--;
			sacktag_one(f, i, ss, rs, flag);
			i++;
		}
	}
	for (unsigned int c = 0; c < ncache; c++)
		f->sack_cache[c] = cache[c];
	f->sack_cache_n = (__u8)ncache;
}

static void ack_blocks(struct sim_flow *f, __u32 ack_idx, const struct sim_sack_block *blk, unsigned int nblk,
		       __u8 pflags, bool wire)
{
	struct tcp_sock *tp = &f->snd;
	struct sock *sk = SK(tp);
	struct inet_connection_sock *icsk = &tp->inet_conn;
	struct rate_sample rs = { 0 };
	struct sack_state ss = { .fack = tp->sacked_out ? f->high_sacked_idx : f->una_idx };
	struct sim_ack_state as = { 0 };
	__u32 prior_packets = tp->packets_out, ack_seq = sim_seq(f, ack_idx);
	/* tcp_highest_sack_seq before the ACK, as an index */
	__u32 prior_fack = ss.fack, reord = 0;
	bool reord_set = false;
	__u64 first_ackt = 0, last_ackt = 0;
	__u32 pkts_acked = 0;
	int flag = 0;
	bool ece = false;

	if (!f->started || f->done_ns || !icsk->icsk_ca_initialized)
		return;
	f->acks++;
	if ((__s32)(ack_idx - f->nxt_idx) > 0)
		return; /* beyond snd_nxt */
	if ((__s32)(ack_idx - f->una_idx) < 0) {
		f->acks_old++;
		return; /* older than snd_una: only its SACK information would count */
	}

	as.prior_snd_una = tp->snd_una;
	as.prior_delivered = tp->delivered;
	as.prior_lost = tp->lost;
	rs.prior_in_flight = tcp_packets_in_flight(tp);
	if (ack_idx != f->una_idx) {
		flag |= FLAG_SND_UNA_ADVANCED;
		icsk->icsk_retransmits = 0;
	}

	if (!nblk && !(pflags & (PKT_ECE | PKT_DSACK)) && (flag & FLAG_SND_UNA_ADVANCED)) {
		/* Header prediction: a pure, in-order advance. */
		flag |= FLAG_WIN_UPDATE;
	} else {
		flag |= FLAG_SLOWPATH;
		if (flag & FLAG_SND_UNA_ADVANCED)
			flag |= FLAG_WIN_UPDATE;
		unsigned int first = 0;

		if (wire) {
			if (nblk)
				sacktag_wire(f, ack_idx, f->una_idx, blk, nblk, &ss, &rs, &flag);
			nblk = 0;
		} else if (nblk && (pflags & PKT_DSACK)) {
			__u32 d = blk[0].start;

			first = 1;
			flag |= FLAG_DSACKING_ACK;
			if (tp->tlp_high_seq && tp->tlp_high_seq == sim_seq(f, d + 1))
				flag |= FLAG_DSACK_TLP;
			f->dsack_segs++;
			ss.sack_delivered++; /* tcp_dsack_seen, as on the wire */
			if (tp->reord_seen && !(flag & FLAG_DSACK_TLP))
				tp->rack.dsack_seen = 1;
			/* A D-SACK for a retransmitted segment: one fewer retransmission that
			 * may have been needed. */
			if (tp->undo_marker && tp->undo_retrans > 0 && (__s32)(d - f->una_idx) < 0 &&
			    after(sim_seq(f, d + 1), tp->undo_marker))
				tp->undo_retrans--;
		}
		for (unsigned int b = first; b < nblk; b++)
			for (__u32 sidx = blk[b].start; (__s32)(sidx - blk[b].end) < 0; sidx++)
				if ((__s32)(sidx - ack_idx) >= 0 && (__s32)(sidx - f->nxt_idx) < 0)
					sacktag_one(f, sidx, &ss, &rs, &flag);
		if (ss.reord_set && (icsk->icsk_ca_state != TCP_CA_Loss || tp->undo_marker))
			sim_check_sack_reordering(f, ss.reord);
		if ((pflags & PKT_ECE) && (tp->ecn_flags & TCP_ECN_OK)) {
			flag |= FLAG_ECE;
			ece = true;
		}
		if (ss.sack_delivered) {
			tp->delivered += ss.sack_delivered;
			if (ece)
				tp->delivered_ce += ss.sack_delivered;
		}
	}

	if (!prior_packets) {
		in_ack_event(tp, flag);
		goto out;
	}

	/* tcp_clean_rtx_queue */
	for (__u32 i = f->una_idx; i != ack_idx; i++) {
		struct sim_seg *seg = sim_seg(f, i);

		if (seg->flags & SEG_EVER_RETRANS) {
			if (seg->flags & SEG_RETRANS)
				tp->retrans_out--;
			flag |= FLAG_RETRANS_DATA_ACKED;
		} else if (!(seg->flags & SEG_SACKED)) {
			last_ackt = seg->xmit_us;
			if (!first_ackt)
				first_ackt = last_ackt;
			if (!reord_set) {
				reord = i;
				reord_set = true;
			}
			if (!after(sim_seq(f, i + 1), tp->high_seq))
				flag |= FLAG_ORIG_SACK_ACKED;
		}
		if (seg->flags & SEG_SACKED) {
			tp->sacked_out--;
		} else {
			tp->delivered++;
			if (ece)
				tp->delivered_ce++;
			/* not for a retransmission whose ACK echoes an older timestamp: the
			 * original arrived (tcp_skb_spurious_retrans) */
			if (!((seg->flags & SEG_EVER_RETRANS) && sim_tsecr_before(f, (__u32)(seg->xmit_us / 1000))))
				sim_rack_advance(f, seg, i);
		}
		if (seg->flags & SEG_LOST) {
			tp->lost_out--;
			if (!(seg->flags & SEG_RETRANS))
				f->lost_pending--;
		}
		tp->packets_out--;
		pkts_acked++;
		sim_rate_skb_delivered(f, seg, i, &rs, &ss.best_xmit, &ss.best_idx);
	}
	if (pkts_acked) {
		flag |= FLAG_DATA_ACKED | FLAG_SET_XMIT_TIMER;
		f->acked_segs += ack_idx - f->una_idx;
		f->una_idx = ack_idx;
		tp->snd_una = ack_seq;
		/* a hole filled by a segment never retransmitted: reordering */
		if (reord_set && (__s32)(reord - prior_fack) < 0)
			sim_check_sack_reordering(f, reord);
	}
	{
		long seq_rtt = -1, ca_rtt = -1, sack_rtt = -1;

		if (first_ackt && !(flag & FLAG_RETRANS_DATA_ACKED)) {
			seq_rtt = (long)(tp->tcp_mstamp - first_ackt);
			ca_rtt = (long)(tp->tcp_mstamp - last_ackt);
		}
		if (ss.first_sackt) {
			sack_rtt = (long)(tp->tcp_mstamp - ss.first_sackt);
			ca_rtt = (long)(tp->tcp_mstamp - ss.last_sackt);
		}
		if (seq_rtt < 0)
			seq_rtt = sack_rtt;
		/* RTTM: with neither, the TSecr of an ACK that ACKs new data (tcp_rtt_tsopt_us:
		 * ms resolution, at least 1 ms) */
		if (seq_rtt < 0 && f->ack_tsecr && pkts_acked) {
			__u32 delta = (__u32)(tp->tcp_mstamp / 1000) - f->ack_tsecr;

			if (delta < INT32_MAX / 1000)
				seq_rtt = ca_rtt = (long)(delta ? delta : 1) * 1000;
		}
		rs.rtt_us = ca_rtt;
		sim_rtt_update(f, seq_rtt, ca_rtt);
	}
	if (icsk->icsk_ca_ops->pkts_acked) {
		struct ack_sample sample = {
			.pkts_acked = pkts_acked,
			.rtt_us = (__s32)rs.rtt_us,
			.in_flight = tp->mss_cache * (tp->delivered - rs.prior_delivered),
		};
		icsk->icsk_ca_ops->pkts_acked(sk, &sample);
	}

	sim_rack_update_reo_wnd(f, rs.prior_delivered);
	in_ack_event(tp, flag);
	if (tp->tlp_high_seq)
		sim_process_tlp_ack(f, ack_seq, flag);

	/* "Dubious": a dupack, SACK, ECE, D-SACK, or not in Open. */
	if (!(flag & FLAG_NOT_DUP) || (flag & FLAG_CA_ALERT) || icsk->icsk_ca_state != TCP_CA_Open) {
		as.flag = flag;
		sim_fastretrans_alert(f, &as);
		flag = as.flag;
	}
	/* tcp_set_xmit_timer */
	if ((flag & FLAG_SET_XMIT_TIMER) && !schedule_loss_probe(f, true))
		arm_rto(f);

	{
		__u32 delivered = tp->delivered - as.prior_delivered;
		__u32 lost = tp->lost - as.prior_lost;

		sim_rate_gen(f, delivered, lost, &rs);
		/* tcp_cong_control */
		if (icsk->icsk_ca_ops->cong_control) {
			icsk->icsk_ca_ops->cong_control(sk, &rs);
		} else {
			if (in_cwnd_reduction(tp)) {
				sim_cwnd_reduction(f, (int)delivered, rs.losses, flag);
			} else if (flag & (tp->reordering > 3 ? FLAG_FORWARD_PROGRESS : FLAG_DATA_ACKED)) {
				/* tcp_may_raise_cwnd: with reordering above the default degree, SACKed
				 * data raises cwnd too */
				icsk->icsk_ca_ops->cong_avoid(sk, ack_seq, delivered);
				tp->snd_cwnd_stamp = kbpf_tcp_jiffies32(tp);
			}
			sim_update_pacing_rate(tp);
		}
	}

	if (!f->scripted && f->limit_segs != ~0ULL && f->una_idx >= f->limit_segs) {
		f->done_ns = f->sim->now;
		sim_timer_cancel(f, T_RTO);
		sim_timer_cancel(f, T_REO);
		sim_timer_cancel(f, T_PACE);
		sim_sender_trace(f);
		return;
	}
out:
	/* tcp_xmit_recovery: F-RTO's new data first; retransmissions only if none went out */
	if (as.rexmit_new) {
		xmit(f, false, true);
		if (after(tp->snd_nxt, tp->high_seq)) {
			sim_sender_trace(f);
			return;
		}
		f->frto = false;
	}
	sim_sender_xmit(f);
	sim_sender_trace(f);
}

/* tcp_send_loss_probe: one new segment beyond cwnd if there is one, else a retransmission
 * of the last; at most one probe outstanding. Then the RTO. */
static void send_loss_probe(struct sim_flow *f)
{
	struct tcp_sock *tp = &f->snd;
	struct sock *sk = SK(tp);
	struct sim_seg *seg;

	f->tlp_armed = false;
	if (tp->tlp_high_seq)
		goto rearm;
	f->tlp_retrans = false;
	if (sk->sk_pacing_status == SK_PACING_NEEDED && tp->tcp_wstamp_ns > tp->tcp_clock_cache)
		goto rearm; /* tcp_pacing_check holds it */
	if (f->nxt_idx < f->limit_segs) {
		__u32 before_out = tp->packets_out;

		xmit(f, true, false);
		if (tp->packets_out > before_out)
			tp->tlp_high_seq = tp->snd_nxt;
		goto rearm;
	}
	seg = sim_seg(f, f->nxt_idx - 1);
	if (seg->flags & (SEG_SACKED | SEG_RETRANS))
		goto rearm;
	send_seg_probe(f, f->nxt_idx - 1, true, true);
	f->tlp_retrans = true;
	tp->tlp_high_seq = tp->snd_nxt;
rearm:
	arm_rto(f);
}

/* tcp_retransmit_timer, or the loss probe sharing its timer. */
void sim_sender_rto(struct sim_flow *f)
{
	struct tcp_sock *tp = &f->snd;
	struct inet_connection_sock *icsk = &tp->inet_conn;
	__u32 head;

	if (!tp->packets_out || f->done_ns)
		return;
	if (f->tlp_armed) {
		send_loss_probe(f);
		sim_sender_trace(f);
		return;
	}
	f->rtos++;
	sim_enter_loss(f);
	/* The head goes out now, whatever pacing says, even if a copy (a loss probe) is still
	 * counted as out: that copy is taken as lost. */
	head = f->una_idx;
	struct sim_seg *hs = sim_seg(f, head);
	if (!(hs->flags & SEG_SACKED)) {
		if (hs->flags & SEG_RETRANS) {
			hs->flags &= (__u8)~SEG_RETRANS;
			tp->retrans_out--;
			if (hs->flags & SEG_LOST)
				f->lost_pending++;
		}
		send_seg(f, head, true);
	}
	icsk->icsk_backoff++;
	icsk->icsk_retransmits++;
	icsk->icsk_rto = icsk->icsk_rto * 2 < SIM_RTO_MAX_J ? icsk->icsk_rto * 2 : SIM_RTO_MAX_J;
	sim_timer_arm(f, T_RTO, sim_wheel_time(kbpf_tcp_jiffies32(tp), kbpf_tcp_jiffies32(tp) + icsk->icsk_rto));
	sim_sender_trace(f);
}
