/* SPDX-License-Identifier: Apache-2.0 */
/* BBR v1 as Linux 6.1's net/ipv4/tcp_bbr.c behaves (docs/reference/tcp-model.md §4.3; Cardwell et al.,
 * ACM Queue 2016): a model of the path (windowed max delivery rate, windowed min RTT)
 * drives pacing rate and cwnd through the STARTUP, DRAIN, PROBE_BW and PROBE_RTT modes.
 * Units as Linux's: bandwidth in segments/µs << 24, gains in 1/256. It runs as
 * cong_control, so the core skips PRR and its own pacing update. */
#include <string.h>
#include <kbpf/tcp.h>
#include "tcp_host_internal.h"

#define BW_SCALE 24
#define BW_UNIT (1ULL << BW_SCALE)
#define BBR_SCALE 8
#define BBR_UNIT (1 << BBR_SCALE)

enum bbr_mode {
	BBR_STARTUP,
	BBR_DRAIN,
	BBR_PROBE_BW,
	BBR_PROBE_RTT,
};

struct bbr {
	__u32 min_rtt_us;
	__u32 min_rtt_stamp; /* jiffies */
	__u32 probe_rtt_done_stamp; /* jiffies; 0 = not armed */
	struct minmax bw; /* max delivery rate, keyed by round count */
	__u32 rtt_cnt; /* rounds so far */
	__u32 next_rtt_delivered; /* delivered count that ends this round */
	__u64 cycle_mstamp; /* µs: start of the PROBE_BW phase */
	__u32 mode : 3, prev_ca_state : 3, packet_conservation : 1, round_start : 1, idle_restart : 1,
		probe_rtt_round_done : 1, unused : 13, lt_is_sampling : 1, lt_rtt_cnt : 7, lt_use_bw : 1;
	__u32 lt_bw; /* long-term (policer) bandwidth */
	__u32 lt_last_delivered;
	__u32 lt_last_stamp; /* ms */
	__u32 lt_last_lost;
	__u32 pacing_gain : 10, cwnd_gain : 10, full_bw_reached : 1, full_bw_cnt : 2, cycle_idx : 3,
		has_seen_rtt : 1, unused_b : 5;
	__u32 prior_cwnd;
	__u32 full_bw;
	__u64 ack_epoch_mstamp;
	__u16 extra_acked[2];
	__u32 ack_epoch_acked : 20, extra_acked_win_rtts : 5, extra_acked_win_idx : 1, unused_c : 6;
};

_Static_assert(sizeof(struct bbr) <= ICSK_CA_PRIV_SIZE, "bbr state fits icsk_ca_priv");

#define CYCLE_LEN 8
static const int bbr_bw_rtts = CYCLE_LEN + 2; /* bw filter window, rounds */
static const __u32 bbr_min_rtt_win_sec = 10;
static const __u32 bbr_probe_rtt_mode_ms = 200;
static const int bbr_min_tso_rate = 1200000; /* bit/s */
static const int bbr_pacing_margin_percent = 1;
static const int bbr_high_gain = BBR_UNIT * 2885 / 1000 + 1; /* 2/ln 2 */
static const int bbr_drain_gain = BBR_UNIT * 1000 / 2885;
static const int bbr_cwnd_gain = BBR_UNIT * 2;
static const int bbr_pacing_gain[CYCLE_LEN] = {
	BBR_UNIT * 5 / 4, BBR_UNIT * 3 / 4, BBR_UNIT, BBR_UNIT, BBR_UNIT, BBR_UNIT, BBR_UNIT, BBR_UNIT,
};
static const __u32 bbr_cycle_rand = 7;
static const __u32 bbr_cwnd_min_target = 4;
static const __u32 bbr_full_bw_thresh = BBR_UNIT * 5 / 4;
static const __u32 bbr_full_bw_cnt = 3;
static const __u32 bbr_lt_intvl_min_rtts = 4;
static const __u32 bbr_lt_loss_thresh = 50;
static const __u32 bbr_lt_bw_ratio = BBR_UNIT / 8;
static const __u32 bbr_lt_bw_diff = 4000 / 8;
static const __u32 bbr_lt_bw_max_rtts = 48;
static const int bbr_extra_acked_gain = BBR_UNIT;
static const __u32 bbr_extra_acked_win_rtts = 5;
static const __u32 bbr_ack_epoch_acked_reset_thresh = 1U << 20;
static const __u32 bbr_extra_acked_max_us = 100 * 1000;
/* GSO_LEGACY_MAX_SIZE − 1 − MAX_TCP_HEADER (320 on Debian's x86-64 kernels) */
static const __u32 bbr_tso_max_bytes = 65536 - 1 - 320;

static void bbr_check_probe_rtt_done(struct sock *sk);

static inline __u32 u32_min(__u32 a, __u32 b)
{
	return a < b ? a : b;
}
static inline __u32 u32_max(__u32 a, __u32 b)
{
	return a > b ? a : b;
}

static bool bbr_full_bw_reached(const struct sock *sk)
{
	const struct bbr *bbr = inet_csk_ca(sk);
	return bbr->full_bw_reached;
}

static __u32 bbr_max_bw(const struct sock *sk)
{
	const struct bbr *bbr = inet_csk_ca(sk);
	return minmax_get(&bbr->bw);
}

/* The bandwidth the model uses: long-term (policed) if detected, else the max filter. */
static __u32 bbr_state_bw(const struct bbr *bbr)
{
	return bbr->lt_use_bw ? bbr->lt_bw : minmax_get(&bbr->bw);
}

static __u32 bbr_bw(const struct sock *sk)
{
	return bbr_state_bw(inet_csk_ca(sk));
}

static __u16 bbr_state_extra_acked(const struct bbr *bbr)
{
	return bbr->extra_acked[0] > bbr->extra_acked[1] ? bbr->extra_acked[0] : bbr->extra_acked[1];
}

static __u16 bbr_extra_acked(const struct sock *sk)
{
	return bbr_state_extra_acked(inet_csk_ca(sk));
}

/* For the scripted peer's assertions (script.c) and kbpf_tcp_sim_bbr_info: BBR's state
 * machine and model, read from a socket whose private area has this layout (native bbr, or a
 * BPF CC forwarding to bbr_*; any other CC's state reads as nonsense, in bounds: struct bbr
 * fits the area, asserted above); bw in bytes/s as Linux's bbr_get_info computes it. The
 * area is declared __u64[] and written by whoever runs (a BPF forwarder, another CC, a
 * memset): its bytes are copied into a struct bbr, which is defined whatever wrote them,
 * where reading them through a cast pointer is not (C11 6.5p7). */
void kbpf_tcp_bbr_peek(const struct sock *sk, struct kbpf_tcp_bbr_peek *out)
{
	struct bbr bbr;

	memcpy(&bbr, inet_csk(sk)->icsk_ca_priv, sizeof(bbr));
	out->mode = bbr.mode;
	out->cycle_idx = bbr.cycle_idx;
	out->pacing_gain = bbr.pacing_gain;
	out->cwnd_gain = bbr.cwnd_gain;
	out->full_bw_cnt = bbr.full_bw_cnt;
	out->full_bw_reached = bbr.full_bw_reached;
	out->rtt_cnt = bbr.rtt_cnt;
	out->min_rtt_us = bbr.min_rtt_us;
	out->bw_Bps = (__u64)bbr_state_bw(&bbr) * tcp_sk(sk)->mss_cache * 1000000ULL >> BW_SCALE;
	out->extra_acked = bbr_state_extra_acked(&bbr);
}

/* rate (segments/µs << 24) × gain → bytes/s, 1 % under, to keep the queue drained. */
static __u64 bbr_rate_bytes_per_sec(struct sock *sk, __u64 rate, int gain)
{
	unsigned int mss = tcp_sk(sk)->mss_cache;

	rate *= mss;
	rate *= gain;
	rate >>= BBR_SCALE;
	rate *= 1000000 / 100 * (100 - bbr_pacing_margin_percent);
	return rate >> BW_SCALE;
}

static unsigned long bbr_bw_to_pacing_rate(struct sock *sk, __u32 bw, int gain)
{
	__u64 rate = bbr_rate_bytes_per_sec(sk, bw, gain);

	if (rate > sk->sk_max_pacing_rate)
		rate = sk->sk_max_pacing_rate;
	return (unsigned long)rate;
}

/* Before any bandwidth sample: pace the initial window over one SRTT (1 ms without). */
static void bbr_init_pacing_rate_from_rtt(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bbr *bbr = inet_csk_ca(sk);
	__u64 bw;
	__u32 rtt_us;

	if (tp->srtt_us) {
		rtt_us = u32_max(tp->srtt_us >> 3, 1U);
		bbr->has_seen_rtt = 1;
	} else {
		rtt_us = 1000;
	}
	bw = (__u64)tp->snd_cwnd * BW_UNIT;
	bw /= rtt_us;
	sk->sk_pacing_rate = bbr_bw_to_pacing_rate(sk, (__u32)bw, bbr_high_gain);
}

/* Until the pipe is full the rate only rises, so a low early sample cannot slow STARTUP. */
static void bbr_set_pacing_rate(struct sock *sk, __u32 bw, int gain)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bbr *bbr = inet_csk_ca(sk);
	unsigned long rate = bbr_bw_to_pacing_rate(sk, bw, gain);

	if (!bbr->has_seen_rtt && tp->srtt_us)
		bbr_init_pacing_rate_from_rtt(sk);
	if (bbr_full_bw_reached(sk) || rate > sk->sk_pacing_rate)
		sk->sk_pacing_rate = rate;
}

__u32 bbr_min_tso_segs(struct sock *sk)
{
	return sk->sk_pacing_rate < (unsigned long)(bbr_min_tso_rate >> 3) ? 1 : 2;
}

static __u32 bbr_tso_segs_goal(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	unsigned long budget = sk->sk_pacing_rate >> sk->sk_pacing_shift;
	__u32 bytes = budget < bbr_tso_max_bytes ? (__u32)budget : bbr_tso_max_bytes;
	__u32 segs = u32_max(bytes / tp->mss_cache, bbr_min_tso_segs(sk));

	return u32_min(segs, 0x7FU);
}

/* Remember cwnd before a loss episode or PROBE_RTT, to restore it after. */
static void bbr_save_cwnd(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bbr *bbr = inet_csk_ca(sk);

	if (bbr->prev_ca_state < TCP_CA_Recovery && bbr->mode != BBR_PROBE_RTT)
		bbr->prior_cwnd = tp->snd_cwnd;
	else
		bbr->prior_cwnd = u32_max(bbr->prior_cwnd, tp->snd_cwnd);
}

void bbr_cwnd_event(struct sock *sk, enum tcp_ca_event event)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bbr *bbr = inet_csk_ca(sk);

	if (event == CA_EVENT_TX_START && tp->app_limited) {
		bbr->idle_restart = 1;
		bbr->ack_epoch_mstamp = tp->tcp_mstamp;
		bbr->ack_epoch_acked = 0;
		/* Restarting from idle: pace at the estimated bw, no extra probing. */
		if (bbr->mode == BBR_PROBE_BW)
			bbr_set_pacing_rate(sk, bbr_bw(sk), BBR_UNIT);
		else if (bbr->mode == BBR_PROBE_RTT)
			bbr_check_probe_rtt_done(sk);
	}
}

/* gain × bandwidth-delay product, in segments, rounded up. */
static __u32 bbr_bdp(struct sock *sk, __u32 bw, int gain)
{
	struct bbr *bbr = inet_csk_ca(sk);
	__u64 w;

	if (bbr->min_rtt_us == ~0U) /* no RTT sample yet */
		return TCP_INIT_CWND;
	w = (__u64)bw * bbr->min_rtt_us;
	return (__u32)((((w * gain) >> BBR_SCALE) + BW_UNIT - 1) / BW_UNIT);
}

/* Room for TSO/GRO bursts and delayed ACKs: 3 TSO goals, even, +2 while probing up. */
static __u32 bbr_quantization_budget(struct sock *sk, __u32 cwnd)
{
	struct bbr *bbr = inet_csk_ca(sk);

	cwnd += 3 * bbr_tso_segs_goal(sk);
	cwnd = (cwnd + 1) & ~1U;
	if (bbr->mode == BBR_PROBE_BW && bbr->cycle_idx == 0)
		cwnd += 2;
	return cwnd;
}

static __u32 bbr_inflight(struct sock *sk, __u32 bw, int gain)
{
	return bbr_quantization_budget(sk, bbr_bdp(sk, bw, gain));
}

/* In flight at the next departure time: what is out now, less what the path delivers
 * until then (plus the next burst when probing up). */
static __u32 bbr_packets_in_net_at_edt(struct sock *sk, __u32 inflight_now)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bbr *bbr = inet_csk_ca(sk);
	__u64 now_ns = tp->tcp_clock_cache;
	__u64 edt_ns = tp->tcp_wstamp_ns > now_ns ? tp->tcp_wstamp_ns : now_ns;
	__u64 interval_us = (edt_ns - now_ns) / 1000;
	__u32 interval_delivered = (__u32)(((__u64)bbr_bw(sk) * interval_us) >> BW_SCALE);
	__u32 inflight_at_edt = inflight_now;

	if (bbr->pacing_gain > BBR_UNIT)
		inflight_at_edt += bbr_tso_segs_goal(sk);
	if (interval_delivered >= inflight_at_edt)
		return 0;
	return inflight_at_edt - interval_delivered;
}

/* Extra cwnd for ACK aggregation, once the pipe is full; at most 100 ms of bw. */
static __u32 bbr_ack_aggregation_cwnd(struct sock *sk)
{
	__u32 max_aggr_cwnd, aggr_cwnd = 0;

	if (bbr_extra_acked_gain && bbr_full_bw_reached(sk)) {
		max_aggr_cwnd = (__u32)(((__u64)bbr_bw(sk) * bbr_extra_acked_max_us) / BW_UNIT);
		aggr_cwnd = (bbr_extra_acked_gain * bbr_extra_acked(sk)) >> BBR_SCALE;
		aggr_cwnd = u32_min(aggr_cwnd, max_aggr_cwnd);
	}
	return aggr_cwnd;
}

/* Loss handling: subtract losses, packet conservation in the first round of Recovery,
 * restore the saved cwnd on leaving Recovery/Loss. True if cwnd is decided here. */
static bool bbr_set_cwnd_to_recover_or_restore(struct sock *sk, const struct rate_sample *rs, __u32 acked,
					       __u32 *new_cwnd)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bbr *bbr = inet_csk_ca(sk);
	__u8 prev_state = bbr->prev_ca_state, state = inet_csk(sk)->icsk_ca_state;
	__u32 cwnd = tp->snd_cwnd;

	if (rs->losses > 0) {
		__s32 c = (__s32)cwnd - rs->losses;
		cwnd = c > 1 ? (__u32)c : 1;
	}
	if (state == TCP_CA_Recovery && prev_state != TCP_CA_Recovery) {
		bbr->packet_conservation = 1;
		bbr->next_rtt_delivered = tp->delivered; /* start a round now */
		cwnd = tcp_packets_in_flight(tp) + acked;
	} else if (prev_state >= TCP_CA_Recovery && state < TCP_CA_Recovery) {
		cwnd = u32_max(cwnd, bbr->prior_cwnd);
		bbr->packet_conservation = 0;
	}
	bbr->prev_ca_state = state;

	if (bbr->packet_conservation) {
		*new_cwnd = u32_max(cwnd, tcp_packets_in_flight(tp) + acked);
		return true;
	}
	*new_cwnd = cwnd;
	return false;
}

static void bbr_set_cwnd(struct sock *sk, const struct rate_sample *rs, __u32 acked, __u32 bw, int gain)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bbr *bbr = inet_csk_ca(sk);
	__u32 cwnd = tp->snd_cwnd, target_cwnd;

	if (!acked)
		goto done;
	if (bbr_set_cwnd_to_recover_or_restore(sk, rs, acked, &cwnd))
		goto done;

	target_cwnd = bbr_bdp(sk, bw, gain);
	target_cwnd += bbr_ack_aggregation_cwnd(sk);
	target_cwnd = bbr_quantization_budget(sk, target_cwnd);

	/* Once the pipe is full, grow toward the target or snap down to it; before that,
	 * only grow (the early estimates are low). */
	if (bbr_full_bw_reached(sk))
		cwnd = u32_min(cwnd + acked, target_cwnd);
	else if (cwnd < target_cwnd || tp->delivered < TCP_INIT_CWND)
		cwnd = cwnd + acked;
	cwnd = u32_max(cwnd, bbr_cwnd_min_target);
done:
	tp->snd_cwnd = u32_min(cwnd, tp->snd_cwnd_clamp);
	if (bbr->mode == BBR_PROBE_RTT)
		tp->snd_cwnd = u32_min(tp->snd_cwnd, bbr_cwnd_min_target);
}

/* Is this PROBE_BW phase over? A phase lasts one min_rtt; probing up also waits for
 * losses or a full 1.25× pipe; draining ends early once in flight is down to the BDP. */
static bool bbr_is_next_cycle_phase(struct sock *sk, const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bbr *bbr = inet_csk_ca(sk);
	bool is_full_length = tcp_stamp_us_delta(tp->delivered_mstamp, bbr->cycle_mstamp) > bbr->min_rtt_us;
	__u32 inflight, bw;

	if (bbr->pacing_gain == BBR_UNIT)
		return is_full_length;
	inflight = bbr_packets_in_net_at_edt(sk, rs->prior_in_flight);
	bw = bbr_max_bw(sk);
	if (bbr->pacing_gain > BBR_UNIT)
		return is_full_length && (rs->losses || inflight >= bbr_inflight(sk, bw, bbr->pacing_gain));
	return is_full_length || inflight <= bbr_inflight(sk, bw, BBR_UNIT);
}

static void bbr_advance_cycle_phase(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bbr *bbr = inet_csk_ca(sk);

	bbr->cycle_idx = (bbr->cycle_idx + 1) & (CYCLE_LEN - 1);
	bbr->cycle_mstamp = tp->delivered_mstamp;
}

static void bbr_update_cycle_phase(struct sock *sk, const struct rate_sample *rs)
{
	struct bbr *bbr = inet_csk_ca(sk);

	if (bbr->mode == BBR_PROBE_BW && bbr_is_next_cycle_phase(sk, rs))
		bbr_advance_cycle_phase(sk);
}

static void bbr_reset_startup_mode(struct sock *sk)
{
	struct bbr *bbr = inet_csk_ca(sk);
	bbr->mode = BBR_STARTUP;
}

/* Enter PROBE_BW at a random phase other than the 0.75 one (flows desynchronise). */
static void bbr_reset_probe_bw_mode(struct sock *sk)
{
	struct bbr *bbr = inet_csk_ca(sk);

	bbr->mode = BBR_PROBE_BW;
	bbr->cycle_idx = CYCLE_LEN - 1 - kbpf_tcp_prandom_u32_max(sk, bbr_cycle_rand);
	bbr_advance_cycle_phase(sk);
}

static void bbr_reset_mode(struct sock *sk)
{
	if (!bbr_full_bw_reached(sk))
		bbr_reset_startup_mode(sk);
	else
		bbr_reset_probe_bw_mode(sk);
}

static void bbr_reset_lt_bw_sampling_interval(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bbr *bbr = inet_csk_ca(sk);

	bbr->lt_last_stamp = (__u32)(tp->delivered_mstamp / 1000);
	bbr->lt_last_delivered = tp->delivered;
	bbr->lt_last_lost = tp->lost;
	bbr->lt_rtt_cnt = 0;
}

static void bbr_reset_lt_bw_sampling(struct sock *sk)
{
	struct bbr *bbr = inet_csk_ca(sk);

	bbr->lt_bw = 0;
	bbr->lt_use_bw = 0;
	bbr->lt_is_sampling = false;
	bbr_reset_lt_bw_sampling_interval(sk);
}

/* Two consecutive lossy intervals with about the same rate: a policer. Use their mean. */
static void bbr_lt_bw_interval_done(struct sock *sk, __u32 bw)
{
	struct bbr *bbr = inet_csk_ca(sk);
	__u32 diff;

	if (bbr->lt_bw) {
		diff = bw > bbr->lt_bw ? bw - bbr->lt_bw : bbr->lt_bw - bw;
		if ((diff * BBR_UNIT <= bbr_lt_bw_ratio * bbr->lt_bw) ||
		    (bbr_rate_bytes_per_sec(sk, diff, BBR_UNIT) <= bbr_lt_bw_diff)) {
			bbr->lt_bw = (bw + bbr->lt_bw) >> 1;
			bbr->lt_use_bw = 1;
			bbr->pacing_gain = BBR_UNIT;
			bbr->lt_rtt_cnt = 0;
			return;
		}
	}
	bbr->lt_bw = bw;
	bbr_reset_lt_bw_sampling_interval(sk);
}

/* Token-bucket policer detection: intervals of 4–16 rounds that start and end with loss
 * and lose at least 20 %. */
static void bbr_lt_bw_sampling(struct sock *sk, const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bbr *bbr = inet_csk_ca(sk);
	__u32 lost, delivered;
	__u64 bw;
	__u32 t;

	if (bbr->lt_use_bw) {
		if (bbr->mode == BBR_PROBE_BW && bbr->round_start && ++bbr->lt_rtt_cnt >= bbr_lt_bw_max_rtts) {
			bbr_reset_lt_bw_sampling(sk);
			bbr_reset_probe_bw_mode(sk);
		}
		return;
	}
	if (!bbr->lt_is_sampling) {
		if (!rs->losses)
			return;
		bbr_reset_lt_bw_sampling_interval(sk);
		bbr->lt_is_sampling = true;
	}
	if (rs->is_app_limited) {
		bbr_reset_lt_bw_sampling(sk);
		return;
	}
	if (bbr->round_start)
		bbr->lt_rtt_cnt++;
	if (bbr->lt_rtt_cnt < bbr_lt_intvl_min_rtts)
		return;
	if (bbr->lt_rtt_cnt > 4 * bbr_lt_intvl_min_rtts) {
		bbr_reset_lt_bw_sampling(sk);
		return;
	}
	if (!rs->losses)
		return;
	lost = tp->lost - bbr->lt_last_lost;
	delivered = tp->delivered - bbr->lt_last_delivered;
	if (!delivered || (lost << BBR_SCALE) < bbr_lt_loss_thresh * delivered)
		return;
	t = (__u32)(tp->delivered_mstamp / 1000) - bbr->lt_last_stamp;
	if ((__s32)t < 1)
		return;
	if (t >= ~0U / 1000) {
		bbr_reset_lt_bw_sampling(sk);
		return;
	}
	t *= 1000;
	bw = (__u64)delivered * BW_UNIT;
	bw /= t;
	bbr_lt_bw_interval_done(sk, (__u32)bw);
}

/* Round counting and the max-bandwidth filter. */
static void bbr_update_bw(struct sock *sk, const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bbr *bbr = inet_csk_ca(sk);
	__u64 bw;

	bbr->round_start = 0;
	if (rs->delivered < 0 || rs->interval_us <= 0)
		return; /* not a valid sample */
	if (!before(rs->prior_delivered, bbr->next_rtt_delivered)) {
		bbr->next_rtt_delivered = tp->delivered;
		bbr->rtt_cnt++;
		bbr->round_start = 1;
		bbr->packet_conservation = 0;
	}
	bbr_lt_bw_sampling(sk, rs);
	bw = ((__u64)rs->delivered * BW_UNIT) / (__u64)rs->interval_us;
	/* App-limited samples understate the path unless they beat the estimate. */
	if (!rs->is_app_limited || bw >= bbr_max_bw(sk))
		minmax_running_max(&bbr->bw, bbr_bw_rtts, bbr->rtt_cnt, (__u32)bw);
}

/* How much more was ACKed than bw predicts over the current ACK epoch. */
static void bbr_update_ack_aggregation(struct sock *sk, const struct rate_sample *rs)
{
	__u32 epoch_us, expected_acked, extra_acked;
	struct bbr *bbr = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);

	if (!bbr_extra_acked_gain || rs->acked_sacked <= 0 || rs->delivered < 0 || rs->interval_us <= 0)
		return;
	if (bbr->round_start) {
		bbr->extra_acked_win_rtts = u32_min(0x1F, bbr->extra_acked_win_rtts + 1);
		if (bbr->extra_acked_win_rtts >= bbr_extra_acked_win_rtts) {
			bbr->extra_acked_win_rtts = 0;
			bbr->extra_acked_win_idx = bbr->extra_acked_win_idx ? 0 : 1;
			bbr->extra_acked[bbr->extra_acked_win_idx] = 0;
		}
	}
	epoch_us = tcp_stamp_us_delta(tp->delivered_mstamp, bbr->ack_epoch_mstamp);
	expected_acked = (__u32)(((__u64)bbr_bw(sk) * epoch_us) / BW_UNIT);
	if (bbr->ack_epoch_acked <= expected_acked ||
	    (bbr->ack_epoch_acked + rs->acked_sacked >= bbr_ack_epoch_acked_reset_thresh)) {
		bbr->ack_epoch_acked = 0;
		bbr->ack_epoch_mstamp = tp->delivered_mstamp;
		expected_acked = 0;
	}
	bbr->ack_epoch_acked = u32_min(0xFFFFF, bbr->ack_epoch_acked + rs->acked_sacked);
	extra_acked = bbr->ack_epoch_acked - expected_acked;
	extra_acked = u32_min(extra_acked, tp->snd_cwnd);
	if (extra_acked > bbr->extra_acked[bbr->extra_acked_win_idx])
		bbr->extra_acked[bbr->extra_acked_win_idx] = (__u16)extra_acked;
}

/* STARTUP's exit test: 3 rounds without 25 % bandwidth growth. */
static void bbr_check_full_bw_reached(struct sock *sk, const struct rate_sample *rs)
{
	struct bbr *bbr = inet_csk_ca(sk);
	__u32 bw_thresh;

	if (bbr_full_bw_reached(sk) || !bbr->round_start || rs->is_app_limited)
		return;
	bw_thresh = (__u32)(((__u64)bbr->full_bw * bbr_full_bw_thresh) >> BBR_SCALE);
	if (bbr_max_bw(sk) >= bw_thresh) {
		bbr->full_bw = bbr_max_bw(sk);
		bbr->full_bw_cnt = 0;
		return;
	}
	++bbr->full_bw_cnt;
	bbr->full_bw_reached = bbr->full_bw_cnt >= bbr_full_bw_cnt;
}

static void bbr_check_drain(struct sock *sk, const struct rate_sample *rs)
{
	struct bbr *bbr = inet_csk_ca(sk);

	(void)rs;
	if (bbr->mode == BBR_STARTUP && bbr_full_bw_reached(sk)) {
		bbr->mode = BBR_DRAIN;
		tcp_sk(sk)->snd_ssthresh = bbr_inflight(sk, bbr_max_bw(sk), BBR_UNIT);
	}
	if (bbr->mode == BBR_DRAIN &&
	    bbr_packets_in_net_at_edt(sk, tcp_packets_in_flight(tcp_sk(sk))) <= bbr_inflight(sk, bbr_max_bw(sk), BBR_UNIT))
		bbr_reset_probe_bw_mode(sk);
}

static void bbr_check_probe_rtt_done(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bbr *bbr = inet_csk_ca(sk);
	__u32 now = kbpf_tcp_jiffies32(tp);

	if (!(bbr->probe_rtt_done_stamp && after(now, bbr->probe_rtt_done_stamp)))
		return;
	bbr->min_rtt_stamp = now;
	tp->snd_cwnd = u32_max(tp->snd_cwnd, bbr->prior_cwnd);
	bbr_reset_mode(sk);
}

/* min_rtt filter (10 s) and PROBE_RTT: when min_rtt was not refreshed for 10 s, hold in
 * flight at 4 segments for 200 ms and a round to drain the queue and measure again. */
static void bbr_update_min_rtt(struct sock *sk, const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bbr *bbr = inet_csk_ca(sk);
	__u32 now = kbpf_tcp_jiffies32(tp);
	bool filter_expired = after(now, bbr->min_rtt_stamp + bbr_min_rtt_win_sec * KBPF_TCP_HZ);

	if (rs->rtt_us >= 0 && (rs->rtt_us < bbr->min_rtt_us || (filter_expired && !rs->is_ack_delayed))) {
		bbr->min_rtt_us = (__u32)rs->rtt_us;
		bbr->min_rtt_stamp = now;
	}

	if (bbr_probe_rtt_mode_ms > 0 && filter_expired && !bbr->idle_restart && bbr->mode != BBR_PROBE_RTT) {
		bbr->mode = BBR_PROBE_RTT;
		bbr_save_cwnd(sk);
		bbr->probe_rtt_done_stamp = 0;
	}

	if (bbr->mode == BBR_PROBE_RTT) {
		__u32 v = tp->delivered + tcp_packets_in_flight(tp);

		/* No bandwidth samples from this deliberately small flight. */
		tp->app_limited = v ? v : 1;
		if (!bbr->probe_rtt_done_stamp && tcp_packets_in_flight(tp) <= bbr_cwnd_min_target) {
			bbr->probe_rtt_done_stamp = now + (__u32)kbpf_msecs_to_jiffies(bbr_probe_rtt_mode_ms);
			bbr->probe_rtt_round_done = 0;
			bbr->next_rtt_delivered = tp->delivered;
		} else if (bbr->probe_rtt_done_stamp) {
			if (bbr->round_start)
				bbr->probe_rtt_round_done = 1;
			if (bbr->probe_rtt_round_done)
				bbr_check_probe_rtt_done(sk);
		}
	}
	if (rs->delivered > 0)
		bbr->idle_restart = 0;
}

static void bbr_update_gains(struct sock *sk)
{
	struct bbr *bbr = inet_csk_ca(sk);

	switch (bbr->mode) {
	case BBR_STARTUP:
		bbr->pacing_gain = bbr_high_gain;
		bbr->cwnd_gain = bbr_high_gain;
		break;
	case BBR_DRAIN:
		bbr->pacing_gain = bbr_drain_gain;
		bbr->cwnd_gain = bbr_high_gain;
		break;
	case BBR_PROBE_BW:
		bbr->pacing_gain = bbr->lt_use_bw ? BBR_UNIT : bbr_pacing_gain[bbr->cycle_idx];
		bbr->cwnd_gain = bbr_cwnd_gain;
		break;
	case BBR_PROBE_RTT:
		bbr->pacing_gain = BBR_UNIT;
		bbr->cwnd_gain = BBR_UNIT;
		break;
	default:
		break;
	}
}

static void bbr_update_model(struct sock *sk, const struct rate_sample *rs)
{
	bbr_update_bw(sk, rs);
	bbr_update_ack_aggregation(sk, rs);
	bbr_update_cycle_phase(sk, rs);
	bbr_check_full_bw_reached(sk, rs);
	bbr_check_drain(sk, rs);
	bbr_update_min_rtt(sk, rs);
	bbr_update_gains(sk);
}

void bbr_main(struct sock *sk, const struct rate_sample *rs)
{
	struct bbr *bbr = inet_csk_ca(sk);
	__u32 bw;

	bbr_update_model(sk, rs);
	bw = bbr_bw(sk);
	bbr_set_pacing_rate(sk, bw, bbr->pacing_gain);
	bbr_set_cwnd(sk, rs, rs->acked_sacked, bw, bbr->cwnd_gain);
}

void bbr_init(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bbr *bbr = inet_csk_ca(sk);
	__u32 now = kbpf_tcp_jiffies32(tp);

	bbr->prior_cwnd = 0;
	tp->snd_ssthresh = TCP_INFINITE_SSTHRESH;
	bbr->rtt_cnt = 0;
	bbr->next_rtt_delivered = tp->delivered;
	bbr->prev_ca_state = TCP_CA_Open;
	bbr->packet_conservation = 0;
	bbr->probe_rtt_done_stamp = 0;
	bbr->probe_rtt_round_done = 0;
	bbr->min_rtt_us = tcp_min_rtt(tp);
	bbr->min_rtt_stamp = now;
	minmax_reset(&bbr->bw, bbr->rtt_cnt, 0);
	bbr->has_seen_rtt = 0;
	bbr_init_pacing_rate_from_rtt(sk);
	bbr->round_start = 0;
	bbr->idle_restart = 0;
	bbr->full_bw_reached = 0;
	bbr->full_bw = 0;
	bbr->full_bw_cnt = 0;
	bbr->cycle_mstamp = 0;
	bbr->cycle_idx = 0;
	bbr_reset_lt_bw_sampling(sk);
	bbr_reset_startup_mode(sk);
	bbr->ack_epoch_mstamp = tp->tcp_mstamp;
	bbr->ack_epoch_acked = 0;
	bbr->extra_acked_win_rtts = 0;
	bbr->extra_acked_win_idx = 0;
	bbr->extra_acked[0] = 0;
	bbr->extra_acked[1] = 0;
	/* BBR paces itself unless sch_fq does it. */
	if (sk->sk_pacing_status == SK_PACING_NONE)
		sk->sk_pacing_status = SK_PACING_NEEDED;
}

__u32 bbr_sndbuf_expand(struct sock *sk)
{
	(void)sk;
	return 3; /* room for the larger cwnd of PROBE_BW's 1.25 phase */
}

__u32 bbr_undo_cwnd(struct sock *sk)
{
	struct bbr *bbr = inet_csk_ca(sk);

	/* A spurious loss signal: probe for bandwidth again, but keep cwnd (BBR never cut it). */
	bbr->full_bw = 0;
	bbr->full_bw_cnt = 0;
	bbr_reset_lt_bw_sampling(sk);
	return tcp_sk(sk)->snd_cwnd;
}

__u32 bbr_ssthresh(struct sock *sk)
{
	bbr_save_cwnd(sk);
	return tcp_sk(sk)->snd_ssthresh;
}

void bbr_set_state(struct sock *sk, __u8 new_state)
{
	struct bbr *bbr = inet_csk_ca(sk);

	if (new_state == TCP_CA_Loss) {
		struct rate_sample rs = { .losses = 1 };

		bbr->prev_ca_state = TCP_CA_Loss;
		bbr->full_bw = 0;
		bbr->round_start = 1; /* treat the RTO as the end of a round, for lt sampling */
		bbr_lt_bw_sampling(sk, &rs);
	}
}

__u32 kbpf_tcp_bbr_mode(const struct sock *sk, bool *full_bw_reached)
{
	const struct bbr *bbr = inet_csk_ca(sk);

	if (full_bw_reached)
		*full_bw_reached = bbr->full_bw_reached;
	return bbr->mode;
}

const struct tcp_congestion_ops kbpf_tcp_bbr = {
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "bbr",
	.init = bbr_init,
	.cong_control = bbr_main,
	.sndbuf_expand = bbr_sndbuf_expand,
	.undo_cwnd = bbr_undo_cwnd,
	.cwnd_event = bbr_cwnd_event,
	.ssthresh = bbr_ssthresh,
	.min_tso_segs = bbr_min_tso_segs,
	.set_state = bbr_set_state,
};
