/* SPDX-License-Identifier: Apache-2.0 */
/* The receiver (docs/reference/tcp-model.md §3.4, §2.6, §4.2): in-order and out-of-order data, delayed
 * ACKs (every second full segment, 16 quick ACKs at start, a jiffy timer of ato), an
 * immediate ACK for every out-of-order segment and a D-SACK for duplicates — SACK blocks
 * as Linux's receiver keeps and sends them (sim_receiver_skb, sim_sack.c), or with
 * opts.sack_ideal one block for the segment that triggered the ACK —, and ECN echo: RFC
 * 3168 (ECE until CWR), or the CC's per-segment echo when it needs ECN (dctcp's
 * cwnd_event). */
#include <stdlib.h>
#include <string.h>
#include "sim_internal.h"

#define TCP_ATO_MIN (KBPF_TCP_HZ / 25)
#define TCP_DELACK_MIN (KBPF_TCP_HZ / 25)

static struct sock *SK(struct tcp_sock *tp)
{
	return (struct sock *)tp;
}

static bool ooo_test(const struct sim_flow *f, __u32 idx)
{
	return f->ooo[idx & (f->ooo_cap - 1)];
}

static void ooo_set(struct sim_flow *f, __u32 idx, __u8 v)
{
	f->ooo[idx & (f->ooo_cap - 1)] = v;
}

/* Room for out-of-order index idx above rcv_idx. */
static int ooo_reserve(struct sim_flow *f, __u32 idx)
{
	if (idx - f->rcv_idx < f->ooo_cap)
		return 0;
	__u32 cap = f->ooo_cap;

	while (idx - f->rcv_idx >= cap)
		cap *= 2;
	__u8 *n = calloc(cap, 1);

	if (!n || cap > (1U << 30)) {
		free(n);
		f->sim->oom = 1;
		return -1;
	}
	for (__u32 i = f->rcv_idx; i != f->ooo_high; i++)
		n[i & (cap - 1)] = f->ooo[i & (f->ooo_cap - 1)];
	free(f->ooo);
	f->ooo = n;
	f->ooo_cap = cap;
	return 0;
}

static void incr_quickack(struct tcp_sock *tp, unsigned int max_quickacks)
{
	struct inet_connection_sock *icsk = &tp->inet_conn;
	/* As many as half the receive window allows (a 64 KB window: more than 16). */
	unsigned int q = 65535U / (2U * (icsk->icsk_ack.rcv_mss ? icsk->icsk_ack.rcv_mss : 536));

	if (q > max_quickacks)
		q = max_quickacks;
	if (q > icsk->icsk_ack.quick)
		icsk->icsk_ack.quick = (__u8)q;
}

static void enter_quickack_mode(struct tcp_sock *tp, unsigned int max_quickacks)
{
	incr_quickack(tp, max_quickacks);
	tp->inet_conn.icsk_ack.pingpong = 0;
	tp->inet_conn.icsk_ack.ato = TCP_ATO_MIN;
}

/* The start of every data segment's processing; false while the connection is not up. */
static bool rcv_begin(struct sim_flow *f, __u8 pflags)
{
	struct tcp_sock *tp = &f->rcv;
	struct inet_connection_sock *icsk = &tp->inet_conn;

	if (!f->started || !icsk->icsk_ca_initialized)
		return false;
	icsk->icsk_ack.rcv_mss = (__u16)f->mss;
	/* tcp_ecn_accept_cwr: the sender reduced; stop echoing, and ACK this data now. */
	if (pflags & PKT_CWR) {
		tp->ecn_flags &= (__u8)~TCP_ECN_DEMAND_CWR;
		icsk->icsk_ack.pending |= ICSK_ACK_NOW;
	}
	return true;
}

/* In-order data up to end: rcv_nxt advances past it and past the out-of-order segments it
 * reaches (tcp_ofo_queue). */
static void rcv_advance(struct sim_flow *f, __u32 end, bool had_ooo)
{
	f->rcv_unacked += end - f->rcv_idx;
	f->rcv_idx = end;
	while (f->ooo_count && ooo_test(f, f->rcv_idx)) {
		ooo_set(f, f->rcv_idx, 0);
		f->ooo_count--;
		f->rcv_idx++;
		f->rcv_unacked++;
	}
	f->rcv.rcv_nxt = sim_seq(f, f->rcv_idx);
	/* A filled hole is ACKed at once (RFC 5681 4.2). */
	if (had_ooo && !f->ooo_count)
		f->rcv.inet_conn.icsk_ack.pending |= ICSK_ACK_NOW;
}

/* The idealised SACK model's ACK events carry a segment index: their TSecr waits in a
 * FIFO of its own (ACKs arrive in the order they were sent). */
static bool tsecr_push(struct sim_flow *f)
{
	__u32 *q = sim_ring_reserve(f->sim, f->tsecr_q, sizeof(*q), &f->tsecr_cap, &f->tsecr_head, f->tsecr_len);

	if (!q)
		return false;
	f->tsecr_q = q;
	q[(f->tsecr_head + f->tsecr_len++) & (f->tsecr_cap - 1)] = f->ts_recent;
	return true;
}

/* Put an ACK for rcv_nxt (as a segment index) on the reverse path. */
static void emit_ack(struct sim_flow *f, __u32 ack_idx, __u32 sack_plus1, __u8 pflags)
{
	struct tcp_sock *tp = &f->rcv;

	if (f->wire_sack) {
		/* SACK as on the wire: the receiver's block list, D-SACK first, at most 3 */
		struct sim_wire_sack w;

		sim_sack_wire(&f->rsack, &w);
		if (w.n) {
			if (!sim_wire_sack_push(f, &w))
				return;
			pflags |= PKT_SACKLIST;
		}
		/* b: the ACK's TSecr (the sender's tcp_packet_delayed) */
		sack_plus1 = f->ts_recent;
		pflags &= (__u8)~PKT_DSACK;
	}
	else if (!tsecr_push(f))
		return;
	/* A compressed SACK reports every segment that arrived since the last ACK. */
	if (f->comp_hi && sack_plus1 == f->comp_hi && !(pflags & PKT_DSACK)) {
		if (f->comp_lo + 1 != f->comp_hi) {
			struct sim_wire_sack w = { .n = 1, .b = { { f->comp_lo, f->comp_hi } } };

			if (!sim_wire_sack_push(f, &w))
				return;
			pflags |= PKT_SACKBLK;
		}
		f->comp_lo = f->comp_hi = 0;
	}
	if ((tp->ecn_flags & TCP_ECN_OK) && (tp->ecn_flags & TCP_ECN_DEMAND_CWR))
		pflags |= PKT_ECE;
	sim_push(f->sim, sim_jitter(f->sim, true, f->sim->now + (__u64)f->sim->o.delay_us * NSEC_PER_USEC), EV_ACK, f->id,
		 ack_idx, sack_plus1,
		 pflags);
}

/* tcp_send_ack + tcp_event_ack_sent. */
static void send_ack(struct sim_flow *f, __u32 sack_plus1, __u8 pflags)
{
	struct tcp_sock *tp = &f->rcv;
	struct inet_connection_sock *icsk = &tp->inet_conn;

	/* Held out-of-order segments are reported by this ACK, or by one just before it (a
	 * D-SACK or another segment's SACK: Linux would put both blocks in one ACK). */
	if (f->comp_hi && sack_plus1 != f->comp_hi) {
		if (!sack_plus1 && !(pflags & PKT_DSACK))
			sack_plus1 = f->comp_hi;
		else
			emit_ack(f, f->rcv_idx, f->comp_hi, 0);
	}
	emit_ack(f, f->rcv_idx, sack_plus1, pflags);
	/* tcp_event_ack_sent: a pending compressed SACK went with this ACK */
	if (f->compressed_ack) {
		f->compressed_ack = 0;
		sim_timer_cancel(f, T_COMPACK);
	}
	if (icsk->icsk_ack.quick)
		icsk->icsk_ack.quick--;
	icsk->icsk_ack.pending = 0;
	sim_timer_cancel(f, T_DELACK);
	tp->rcv_wup = tp->rcv_nxt;
	f->rcv_unacked = 0;
}

/* __tcp_send_ack(sk, rcv_nxt) for dctcp: an ACK of an earlier rcv_nxt, leaving the
 * delayed-ACK state alone. */
void sim_receiver_send_ack_hook(struct sock *sk, __u32 rcv_nxt)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct sim_flow *f = tp->kbpf.owner;

	if (!f || tp != &f->rcv)
		return;
	if (rcv_nxt == tp->rcv_nxt) {
		send_ack(f, 0, 0);
		return;
	}
	/* The segment index from the distance to rcv_nxt: an index from (seq - isn) / mss would
	 * be wrong once 4 GB went through (the sequence space wraps, indexes do not). */
	__u32 idx = f->rcv_idx - (tp->rcv_nxt - rcv_nxt) / f->mss;
	emit_ack(f, idx, 0, 0);
}

static void send_delayed_ack(struct sim_flow *f)
{
	struct tcp_sock *tp = &f->rcv;
	struct inet_connection_sock *icsk = &tp->inet_conn;
	__u32 now = kbpf_tcp_jiffies32(tp);
	__u32 ato = icsk->icsk_ack.ato, timeout;

	if (ato > TCP_DELACK_MIN) {
		__u32 max_ato = KBPF_TCP_HZ / 2;

		if (tp->srtt_us) {
			__u32 rtt = (__u32)kbpf_usecs_to_jiffies(tp->srtt_us >> 3);

			if (rtt < TCP_DELACK_MIN)
				rtt = TCP_DELACK_MIN;
			if (rtt < max_ato)
				max_ato = rtt;
		}
		if (ato > max_ato)
			ato = max_ato;
	}
	timeout = now + ato;
	if (icsk->icsk_ack.pending & ICSK_ACK_TIMER) {
		/* An armed timer about to fire: ACK now rather than wait. */
		if ((__s32)(icsk->icsk_ack.timeout - (now + (ato >> 2))) <= 0) {
			send_ack(f, 0, 0);
			return;
		}
		if (!before(timeout, (__u32)icsk->icsk_ack.timeout))
			timeout = (__u32)icsk->icsk_ack.timeout;
	}
	icsk->icsk_ack.pending |= ICSK_ACK_SCHED | ICSK_ACK_TIMER;
	icsk->icsk_ack.timeout = timeout;
	sim_timer_arm(f, T_DELACK, sim_wheel_time(now, timeout));
}

/* tcp_compressed_ack_kick: the compressed SACK is due. */
void sim_receiver_compack(struct sim_flow *f)
{
	if (f->compressed_ack) {
		f->compressed_ack--;
		send_ack(f, f->comp_hi, 0);
	}
}

void sim_receiver_delack(struct sim_flow *f)
{
	struct tcp_sock *tp = &f->rcv;
	struct inet_connection_sock *icsk = &tp->inet_conn;

	if (!(icsk->icsk_ack.pending & ICSK_ACK_TIMER))
		return;
	icsk->icsk_ack.pending &= (__u8)~ICSK_ACK_TIMER;
	if (icsk->icsk_ack.pending & ICSK_ACK_SCHED) {
		/* The delayed ACK was needed: the sender is slower than ato; wait longer next time. */
		__u32 ato = icsk->icsk_ack.ato << 1;

		icsk->icsk_ack.ato = ato < icsk->icsk_rto ? ato : icsk->icsk_rto;
		send_ack(f, 0, 0);
	}
}

/* __tcp_ecn_check_ce */
static void ecn_check_ce(struct sim_flow *f, __u8 pflags)
{
	struct tcp_sock *tp = &f->rcv;
	struct sock *sk = SK(tp);
	bool needs_ecn = tp->inet_conn.icsk_ca_ops->flags & TCP_CONG_NEEDS_ECN;

	if (!(tp->ecn_flags & TCP_ECN_OK))
		return;
	switch (pflags & PKT_ECN_MASK) {
	case INET_ECN_NOT_ECT:
		/* Not-ECT after ECT: likely a retransmission; ACK it quickly. */
		if (tp->ecn_flags & TCP_ECN_SEEN)
			enter_quickack_mode(tp, 2);
		break;
	case INET_ECN_CE:
		if (needs_ecn)
			kbpf_tcp_ca_event(sk, CA_EVENT_ECN_IS_CE);
		if (!(tp->ecn_flags & TCP_ECN_DEMAND_CWR)) {
			enter_quickack_mode(tp, 2);
			tp->ecn_flags |= TCP_ECN_DEMAND_CWR;
		}
		tp->ecn_flags |= TCP_ECN_SEEN;
		break;
	default:
		if (needs_ecn)
			kbpf_tcp_ca_event(sk, CA_EVENT_ECN_NO_CE);
		tp->ecn_flags |= TCP_ECN_SEEN;
		break;
	}
}

/* tcp_event_data_recv's ACK-timing part: quick ACKs at start, ato follows arrivals. */
static void event_data_recv(struct sim_flow *f)
{
	struct tcp_sock *tp = &f->rcv;
	struct inet_connection_sock *icsk = &tp->inet_conn;
	__u32 now = kbpf_tcp_jiffies32(tp);

	if (!icsk->icsk_ack.ato) {
		incr_quickack(tp, SIM_QUICKACKS);
		icsk->icsk_ack.ato = TCP_ATO_MIN;
	} else {
		__u32 m = now - icsk->icsk_ack.lrcvtime;

		if (m <= TCP_ATO_MIN / 2) {
			icsk->icsk_ack.ato = (icsk->icsk_ack.ato >> 1) + TCP_ATO_MIN / 2;
		} else if (m < icsk->icsk_ack.ato) {
			icsk->icsk_ack.ato = (icsk->icsk_ack.ato >> 1) + m;
			if (icsk->icsk_ack.ato > icsk->icsk_rto)
				icsk->icsk_ack.ato = icsk->icsk_rto;
		} else if (m > icsk->icsk_rto) {
			incr_quickack(tp, SIM_QUICKACKS);
		}
	}
	icsk->icsk_ack.lrcvtime = now;
}

/* min(tcp_comp_sack_delay_ns 1 ms, RTT/20): the compressed-ACK hrtimer (its 100 µs
 * slack not modelled) */
static void comp_timer_arm(struct sim_flow *f)
{
	/* srtt_us is 8 × the RTT: rtt × (1000 >> 3) / 20 ns is RTT/20 */
	__u64 delay = (__u64)f->rcv.srtt_us * (NSEC_PER_USEC >> 3) / 20;

	if (delay > NSEC_PER_MSEC)
		delay = NSEC_PER_MSEC;
	sim_timer_arm(f, T_COMPACK, f->sim->now + delay);
}

/* opts.sack_ideal: the out-of-order part of __tcp_ack_snd_check (Linux 6.12) for segment idx: the first
 * three ACKs per rcv_nxt go at once, later ones wait for the compressed-ACK hrtimer
 * (min(tcp_comp_sack_delay_ns 1 ms, RTT/20), its 100 µs slack not modelled) or for 44
 * of them (tcp_comp_sack_nr). Returns true when the ACK is held. The held ACK's SACK block
 * is the run of new arrivals; a segment that does not extend that run (a retransmission
 * below it) first sends the held ACK, so that every block stays contiguous. */
static bool sack_compress(struct sim_flow *f, __u32 idx)
{
	if (f->comp_rcv_idx != f->rcv_idx) {
		f->comp_rcv_idx = f->rcv_idx;
		f->dup_ack_counter = 0;
	}
	if (f->compressed_ack && idx != f->comp_hi)
		send_ack(f, f->comp_hi, 0);
	if (f->compressed_ack >= 44 || f->dup_ack_counter < 3) {
		if (f->dup_ack_counter < 3)
			f->dup_ack_counter++;
		return false;
	}
	if (!f->compressed_ack)
		f->comp_lo = idx;
	f->comp_hi = idx + 1;
	f->compressed_ack++;
	if (f->compressed_ack == 1)
		comp_timer_arm(f);
	return true;
}

/* tcp_sack_compress_send_ack: a held ACK goes now (the block list changed past its first
 * two blocks). */
static void compress_send_ack(void *ctx)
{
	struct sim_flow *f = ctx;

	if (!f->compressed_ack)
		return;
	sim_timer_cancel(f, T_COMPACK);
	f->compressed_ack = 0;
	send_ack(f, 0, 0);
}

/* With f->wire_sack: tcp_data_queue and __tcp_ack_snd_check (Linux 6.12) for one skb
 * of n full segments [idx, idx + n) — one segment, or a GRO aggregate. The receiver keeps
 * Linux's SACK block list and D-SACK; each ACK carries what sim_sack_wire takes from them. */
void sim_receiver_skb(struct sim_flow *f, __u32 idx, __u32 n, __u8 pflags)
{
	struct tcp_sock *tp = &f->rcv;
	struct inet_connection_sock *icsk = &tp->inet_conn;
	__u32 end = idx + n;

	if (!rcv_begin(f, pflags))
		return;
	if ((__s32)(end - f->rcv_idx) <= 0) {
		/* all of it old: a D-SACK, quick-ACK mode, an ACK now */
		sim_dsack_set(&f->rsack, idx, end);
		enter_quickack_mode(tp, SIM_QUICKACKS);
		send_ack(f, 0, 0);
		return;
	}
	if ((__s32)(idx - f->rcv_idx) < 0) {
		/* partly old: D-SACK the old head, take the rest in order */
		sim_dsack_set(&f->rsack, idx, f->rcv_idx);
		idx = f->rcv_idx;
	}
	if (idx == f->rcv_idx) {
		bool had_ooo = f->ooo_count != 0;

		/* tcp_ofo_queue: held segments the skb covers are duplicates */
		for (__u32 i = idx; f->ooo_count && i != end; i++) {
			if (ooo_test(f, i)) {
				ooo_set(f, i, 0);
				f->ooo_count--;
				sim_dsack_extend(&f->rsack, i, i + 1);
			}
		}
		rcv_advance(f, end, had_ooo);
		if (f->rsack.num)
			sim_sack_remove(&f->rsack, f->rcv_idx, !f->ooo_count);
		event_data_recv(f);
		ecn_check_ce(f, pflags);
	} else {
		/* tcp_data_queue_ofo */
		bool dup = false;

		ecn_check_ce(f, pflags);
		if (ooo_reserve(f, end - 1))
			return;
		for (__u32 i = idx; i != end; i++) {
			if (ooo_test(f, i)) {
				if (!dup)
					sim_dsack_set(&f->rsack, i, i + 1);
				else
					sim_dsack_extend(&f->rsack, i, i + 1);
				dup = true;
				continue;
			}
			ooo_set(f, i, 1);
			f->ooo_count++;
		}
		if ((__s32)(end - f->ooo_high) > 0)
			f->ooo_high = end;
		icsk->icsk_ack.pending |= ICSK_ACK_SCHED;
		sim_sack_new_ofo(&f->rsack, idx, end, compress_send_ack, f);
	}

	/* __tcp_ack_snd_check */
	if (f->rcv_unacked >= 2 || (icsk->icsk_ack.quick && !icsk->icsk_ack.pingpong) ||
	    (icsk->icsk_ack.pending & ICSK_ACK_NOW)) {
		send_ack(f, 0, 0);
		return;
	}
	if (!f->ooo_count) {
		send_delayed_ack(f);
		return;
	}
	if (!f->opts.sack_compress || f->compressed_ack >= 44) {
		send_ack(f, 0, 0);
		return;
	}
	if (f->comp_rcv_idx != f->rcv_idx) {
		f->comp_rcv_idx = f->rcv_idx;
		f->dup_ack_counter = 0;
	}
	if (f->dup_ack_counter < 3) {
		f->dup_ack_counter++;
		send_ack(f, 0, 0);
		return;
	}
	if (++f->compressed_ack == 1)
		comp_timer_arm(f);
}

void sim_receiver_data(struct sim_flow *f, __u32 idx, __u32 tsval, __u8 pflags)
{
	struct tcp_sock *tp = &f->rcv;
	struct inet_connection_sock *icsk = &tp->inet_conn;
	__u32 sack_plus1 = 0;
	__u8 ack_flags = 0;

	/* tcp_replace_ts_recent: the timestamp to echo (TSecr) comes from a segment at or below
	 * rcv_wup and never goes back (PAWS) */
	if (!after(sim_seq(f, idx), tp->rcv_wup) && (__s32)(tsval - f->ts_recent) >= 0)
		f->ts_recent = tsval;
	if (f->opts.gro > 1) {
		sim_gro_receive(f, idx, tsval, pflags);
		return;
	}
	if (f->wire_sack) {
		sim_receiver_skb(f, idx, 1, pflags);
		return;
	}
	if (!rcv_begin(f, pflags))
		return;
	if ((__s32)(idx - f->rcv_idx) < 0) {
		/* Duplicate: D-SACK it at once and re-enter quick-ACK mode. */
		enter_quickack_mode(tp, SIM_QUICKACKS);
		send_ack(f, idx + 1, PKT_DSACK);
		return;
	}
	if (idx == f->rcv_idx) {
		bool had_ooo = f->ooo_count != 0;

		rcv_advance(f, idx + 1, had_ooo);
		event_data_recv(f);
		ecn_check_ce(f, pflags);
	} else {
		ecn_check_ce(f, pflags);
		if (ooo_reserve(f, idx))
			return;
		if (ooo_test(f, idx)) {
			send_ack(f, idx + 1, PKT_DSACK);
			return;
		}
		ooo_set(f, idx, 1);
		f->ooo_count++;
		if ((__s32)(idx + 1 - f->ooo_high) > 0)
			f->ooo_high = idx + 1;
		sack_plus1 = idx + 1;
		icsk->icsk_ack.pending |= ICSK_ACK_SCHED;
	}

	/* __tcp_ack_snd_check */
	if ((f->rcv_unacked >= 2) || /* more than one full segment unACKed */
	    (icsk->icsk_ack.quick && !icsk->icsk_ack.pingpong) || (icsk->icsk_ack.pending & ICSK_ACK_NOW)) {
		send_ack(f, sack_plus1, ack_flags);
		return;
	}
	if (!f->ooo_count) {
		send_delayed_ack(f);
		return;
	}
	if (f->opts.sack_compress && sack_plus1 && sack_compress(f, sack_plus1 - 1))
		return;
	send_ack(f, sack_plus1, ack_flags);
}
