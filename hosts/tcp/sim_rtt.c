/* SPDX-License-Identifier: Apache-2.0 */
/* RTT estimation, RTO and TCP's own pacing rate (docs/reference/tcp-model.md §3.3, §3.7; RFC 6298 with
 * Linux's variations: µs resolution, slow reaction to falling RTT, rttvar ≥ 200 ms). */
#include "sim_internal.h"

/* Jacobson/Karels with Linux's details: srtt is 8×, mdev 4×, and a falling RTT moves mdev
 * only an eighth as much. */
static void rtt_estimator(struct tcp_sock *tp, long mrtt_us)
{
	long m = mrtt_us;
	__u32 srtt = tp->srtt_us;

	if (srtt) {
		m -= (long)(srtt >> 3);
		srtt += (__u32)m;
		if (m < 0) {
			m = -m;
			m -= (long)(tp->mdev_us >> 2);
			if (m > 0)
				m >>= 3;
		} else {
			m -= (long)(tp->mdev_us >> 2);
		}
		tp->mdev_us += (__u32)m;
		if (tp->mdev_us > tp->mdev_max_us) {
			tp->mdev_max_us = tp->mdev_us;
			if (tp->mdev_max_us > tp->rttvar_us)
				tp->rttvar_us = tp->mdev_max_us;
		}
		/* Once per RTT let rttvar decay toward this RTT's largest deviation. */
		if (after(tp->snd_una, tp->rtt_seq)) {
			if (tp->mdev_max_us < tp->rttvar_us)
				tp->rttvar_us -= (tp->rttvar_us - tp->mdev_max_us) >> 2;
			tp->rtt_seq = tp->snd_nxt;
			tp->mdev_max_us = SIM_RTO_MIN_US;
		}
	} else {
		srtt = (__u32)m << 3;
		tp->mdev_us = (__u32)m << 1; /* RTO = 3 × RTT at first */
		tp->rttvar_us = tp->mdev_us > SIM_RTO_MIN_US ? tp->mdev_us : SIM_RTO_MIN_US;
		tp->mdev_max_us = tp->rttvar_us;
		tp->rtt_seq = tp->snd_nxt;
	}
	tp->srtt_us = srtt ? srtt : 1;
}

static void set_rto(struct tcp_sock *tp)
{
	__u32 rto = (__u32)kbpf_usecs_to_jiffies((tp->srtt_us >> 3) + tp->rttvar_us);

	tp->inet_conn.icsk_rto = rto < SIM_RTO_MAX_J ? rto : SIM_RTO_MAX_J;
}

/* tcp_ack_update_rtt: seq_rtt (oldest newly ACKed, or SACKed) feeds SRTT/RTO, ca_rtt
 * (newest) the windowed min RTT. */
void sim_rtt_update(struct sim_flow *f, long seq_rtt_us, long ca_rtt_us)
{
	struct tcp_sock *tp = &f->snd;

	if (seq_rtt_us < 0)
		return;
	/* 300 s window in jiffies; a 0 µs sample counts as one jiffy. */
	minmax_running_min(&tp->rtt_min, 300U * KBPF_TCP_HZ, kbpf_tcp_jiffies32(tp),
			   ca_rtt_us > 0 ? (__u32)ca_rtt_us : (__u32)(USEC_PER_SEC / KBPF_TCP_HZ));
	rtt_estimator(tp, seq_rtt_us);
	set_rto(tp);
	tp->inet_conn.icsk_backoff = 0;
}

/* 200 % of cwnd per SRTT in slow start (below half ssthresh), 120 % after. */
void sim_update_pacing_rate(struct tcp_sock *tp)
{
	__u64 rate = (__u64)tp->mss_cache * ((USEC_PER_SEC / 100) << 3);
	__u32 w = tp->snd_cwnd > tp->packets_out ? tp->snd_cwnd : tp->packets_out;

	rate *= tp->snd_cwnd < tp->snd_ssthresh / 2 ? 200 : 120;
	rate *= w;
	if (tp->srtt_us)
		rate /= tp->srtt_us;
	tp->inet_conn.icsk_inet.sk.sk_pacing_rate =
		rate < tp->inet_conn.icsk_inet.sk.sk_max_pacing_rate ? (unsigned long)rate
								    : tp->inet_conn.icsk_inet.sk.sk_max_pacing_rate;
}
