/* SPDX-License-Identifier: Apache-2.0 */
/* CUBIC with HyStart, as Linux 6.1's net/ipv4/tcp_cubic.c behaves with its default module
 * parameters (docs/reference/tcp-model.md §4.1, RFC 9438): β = 717/1024, C = 410/1024 (bic_scale 41),
 * fast convergence, TCP friendliness, HyStart ACK-train and delay detection, low window 16.
 * Written from those semantics; the integer arithmetic (cube root estimate, scaled time)
 * reproduces Linux's so that cwnd traces match it segment for segment. */
#include <string.h>
#include <kbpf/tcp.h>

#define CUBIC_BETA 717U /* of 1024 */
#define CUBIC_BETA_SCALE 1024U
#define CUBIC_HZ_SHIFT 10 /* time in 1/1024 s */
#define CUBIC_RTT_SCALE 410U /* bic_scale 41 × 10 */
/* 2^(10 + 3·10) / 410: K = cbrt(cube_factor × (W_max − cwnd)) gives K in 1/1024 s. */
#define CUBIC_CUBE_FACTOR ((1ULL << (10 + 3 * CUBIC_HZ_SHIFT)) / CUBIC_RTT_SCALE)
/* Reno-friendly growth: the ACK count per Reno-estimate increment is cwnd × 15 / 8
 * (8·(1024+717)/3/(1024−717) in integers). */
#define CUBIC_BETA_SCALE_FRIENDLY 15U

#define HYSTART_ACK_TRAIN 0x1
#define HYSTART_DELAY 0x2
#define HYSTART_DETECT (HYSTART_ACK_TRAIN | HYSTART_DELAY)
#define HYSTART_LOW_WINDOW 16U
#define HYSTART_ACK_DELTA_US 2000U
#define HYSTART_MIN_SAMPLES 8
#define HYSTART_DELAY_MIN 4000U
#define HYSTART_DELAY_MAX 16000U

/* The private state, in icsk_ca_priv (60 bytes, as Linux's). */
struct bictcp {
	__u32 cnt; /* ACKed segments per +1 of cwnd */
	__u32 last_max_cwnd; /* W_max */
	__u32 last_cwnd;
	__u32 last_time; /* jiffies of the last cnt update */
	__u32 origin_point;
	__u32 k; /* 1/1024 s from epoch start to the origin */
	__u32 delay_min; /* µs */
	__u32 epoch_start; /* jiffies; 0 = no epoch */
	__u32 ack_cnt;
	__u32 tcp_cwnd; /* Reno estimate */
	__u16 unused;
	__u8 sample_cnt;
	__u8 found;
	__u32 round_start; /* µs */
	__u32 end_seq;
	__u32 last_ack; /* µs */
	__u32 curr_rtt; /* µs */
};

_Static_assert(sizeof(struct bictcp) <= ICSK_CA_PRIV_SIZE, "cubic state fits icsk_ca_priv");

static void cubic_reset(struct bictcp *ca)
{
	/* Everything up to the HyStart round fields, and `found`. */
	memset(ca, 0, offsetof(struct bictcp, unused));
	ca->found = 0;
}

static __u32 cubic_clock_us(const struct tcp_sock *tp)
{
	return (__u32)tp->tcp_mstamp;
}

static void hystart_reset(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bictcp *ca = inet_csk_ca(sk);

	ca->round_start = ca->last_ack = cubic_clock_us(tp);
	ca->end_seq = tp->snd_nxt;
	ca->curr_rtt = ~0U;
	ca->sample_cnt = 0;
}

void cubictcp_init(struct sock *sk)
{
	cubic_reset(inet_csk_ca(sk));
	hystart_reset(sk);
}

void cubictcp_cwnd_event(struct sock *sk, enum tcp_ca_event event)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bictcp *ca = inet_csk_ca(sk);
	__u32 now;
	__s32 idle;

	if (event != CA_EVENT_TX_START)
		return;
	/* Restarting after idle: shift the epoch by the idle time so the cubic curve does not
	 * jump ahead (lsndtime is still the last transmission before this one). */
	now = kbpf_tcp_jiffies32(tp);
	idle = (__s32)(now - tp->lsndtime);
	if (ca->epoch_start && idle > 0) {
		ca->epoch_start += idle;
		if (after(ca->epoch_start, now))
			ca->epoch_start = now;
	}
}

static int fls64(__u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

/* cbrt(a) the way Linux estimates it: a 64-entry table of about 64·cbrt(i) (scaled and
 * biased as Linux's, so results agree), a shift to bring a into the table's range, then one
 * Newton-Raphson step. Error about 0.2 %.
 * The table stays data: Linux's was "precomputed then refined by hand", and no formula we
 * tried reproduces it (round(k·cbrt(i)) − c, the best k and c, misses 16 of the 56 entries
 * the large-argument path uses; entries 1…7 are picked for the small path). Computing it
 * at startup would change K for some W_max − cwnd and so the cwnd traces. The spec's
 * K vectors (docs/reference/tcp-model.md §5.2: 1 → 1388 … 1000 → 13897) hold for this table. */
static __u32 cubic_root(__u64 a)
{
	static const __u8 cbrt_tab[64] = {
		0,   54,  54,  54,  118, 118, 118, 118, 123, 129, 134, 138, 143, 147, 151, 156,
		157, 161, 164, 168, 170, 173, 176, 179, 181, 185, 187, 190, 192, 194, 197, 199,
		200, 202, 204, 206, 209, 211, 213, 215, 217, 219, 221, 222, 224, 225, 227, 229,
		231, 232, 234, 236, 237, 239, 240, 242, 244, 245, 246, 248, 250, 251, 252, 254,
	};
	__u32 x, b, shift;

	b = (__u32)fls64(a);
	if (b < 7)
		return ((__u32)cbrt_tab[(__u32)a] + 35) >> 6;
	/* b/3 approximated as b·84/256; the top 6 bits of a index the table. */
	b = ((b * 84) >> 8) - 1;
	shift = (__u32)(a >> (b * 3));
	x = ((__u32)(((__u32)cbrt_tab[shift] + 10) << b)) >> 6;
	/* x = (2x + a/x²) / 3, the /3 as ·341/1024 */
	x = 2 * x + (__u32)(a / ((__u64)x * (__u64)(x - 1)));
	x = (x * 341) >> 10;
	return x;
}

/* Recompute cnt, the number of ACKed segments per cwnd increment. */
static void cubic_update(struct tcp_sock *tp, struct bictcp *ca, __u32 cwnd, __u32 acked)
{
	__u32 now = kbpf_tcp_jiffies32(tp);
	__u32 delta, target, max_cnt;
	__u64 offs, t;

	ca->ack_cnt += acked;
	/* At most one recomputation per HZ/32 while cwnd is unchanged. */
	if (ca->last_cwnd == cwnd && (__s32)(now - ca->last_time) <= KBPF_TCP_HZ / 32)
		return;
	/* Within the same jiffy the curve has not moved: only the Reno estimate can. */
	if (ca->epoch_start && now == ca->last_time)
		goto friendliness;

	ca->last_cwnd = cwnd;
	ca->last_time = now;
	if (ca->epoch_start == 0) {
		ca->epoch_start = now;
		ca->ack_cnt = acked;
		ca->tcp_cwnd = cwnd;
		if (ca->last_max_cwnd <= cwnd) {
			ca->k = 0;
			ca->origin_point = cwnd;
		} else {
			ca->k = cubic_root(CUBIC_CUBE_FACTOR * (ca->last_max_cwnd - cwnd));
			ca->origin_point = ca->last_max_cwnd;
		}
	}

	/* The target is W(t + RTT): elapsed epoch time plus delay_min, in 1/1024 s. */
	t = (__s32)(now - ca->epoch_start);
	t += kbpf_usecs_to_jiffies(ca->delay_min);
	t <<= CUBIC_HZ_SHIFT;
	t /= KBPF_TCP_HZ;
	offs = t < ca->k ? ca->k - t : t - ca->k;
	/* C·offs³ with C = 410/1024 and offs in 1/1024 s: shift out 10 + 3·10 bits. */
	delta = (__u32)((CUBIC_RTT_SCALE * offs * offs * offs) >> (10 + 3 * CUBIC_HZ_SHIFT));
	target = t < ca->k ? ca->origin_point - delta : ca->origin_point + delta;

	if (target > cwnd)
		ca->cnt = cwnd / (target - cwnd);
	else
		ca->cnt = 100 * cwnd; /* barely grow at or above the target */
	/* With no W_max yet (fresh start), grow at least 5 % per RTT. */
	if (ca->last_max_cwnd == 0 && ca->cnt > 20)
		ca->cnt = 20;

friendliness:
	/* Track what Reno (β = 0.7, α = 3β'/(2−β') ≈ 0.53) would have and never be slower. */
	delta = (cwnd * CUBIC_BETA_SCALE_FRIENDLY) >> 3;
	while (ca->ack_cnt > delta) {
		ca->ack_cnt -= delta;
		ca->tcp_cwnd++;
	}
	if (ca->tcp_cwnd > cwnd) {
		delta = ca->tcp_cwnd - cwnd;
		max_cnt = cwnd / delta;
		if (ca->cnt > max_cnt)
			ca->cnt = max_cnt;
	}
	/* At most 1.5× per RTT. */
	if (ca->cnt < 2)
		ca->cnt = 2;
}

void cubictcp_cong_avoid(struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bictcp *ca = inet_csk_ca(sk);

	(void)ack;
	if (!tcp_is_cwnd_limited(sk))
		return;
	if (tcp_in_slow_start(tp)) {
		acked = tcp_slow_start(tp, acked);
		if (!acked)
			return;
	}
	cubic_update(tp, ca, tp->snd_cwnd, acked);
	tcp_cong_avoid_ai(tp, ca->cnt, acked);
}

__u32 cubictcp_recalc_ssthresh(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct bictcp *ca = inet_csk_ca(sk);
	__u32 ss;

	ca->epoch_start = 0;
	/* Fast convergence: a flow that lost below its previous maximum releases bandwidth
	 * by remembering a lower W_max, (1 + β)/2 of cwnd. */
	if (tp->snd_cwnd < ca->last_max_cwnd)
		ca->last_max_cwnd = (tp->snd_cwnd * (CUBIC_BETA_SCALE + CUBIC_BETA)) / (2 * CUBIC_BETA_SCALE);
	else
		ca->last_max_cwnd = tp->snd_cwnd;
	ss = (tp->snd_cwnd * CUBIC_BETA) / CUBIC_BETA_SCALE;
	return ss > 2 ? ss : 2;
}

void cubictcp_state(struct sock *sk, __u8 new_state)
{
	/* An RTO forgets the curve: W_max and the HyStart round start over. */
	if (new_state == TCP_CA_Loss) {
		cubic_reset(inet_csk_ca(sk));
		hystart_reset(sk);
	}
}

/* Allowed ACK-train spread: 4 GSO bursts at the pacing rate, at most 1 ms. */
static __u32 hystart_ack_delay(const struct sock *sk)
{
	unsigned long rate = sk->sk_pacing_rate;
	__u64 d;

	if (!rate)
		return 0;
	d = (__u64)sk->sk_gso_max_size * 4 * 1000000 / rate;
	return d < 1000 ? (__u32)d : 1000;
}

static void hystart_update(struct sock *sk, __u32 delay)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bictcp *ca = inet_csk_ca(sk);
	__u32 threshold;

	if (after(tp->snd_una, ca->end_seq))
		hystart_reset(sk);
	if (tp->snd_cwnd < HYSTART_LOW_WINDOW)
		return;

	if (HYSTART_DETECT & HYSTART_ACK_TRAIN) {
		__u32 now = cubic_clock_us(tp);

		/* Closely spaced ACKs form a train; once the train spans the path's minimum
		 * delay the pipe is full. */
		if ((__s32)(now - ca->last_ack) <= (__s32)HYSTART_ACK_DELTA_US) {
			ca->last_ack = now;
			threshold = ca->delay_min + hystart_ack_delay(sk);
			/* Unpaced senders' trains are twice as dense. */
			if (sk->sk_pacing_status == SK_PACING_NONE)
				threshold >>= 1;
			if (now - ca->round_start > threshold) { /* unsigned, as Linux compares */
				ca->found = 1;
				tp->snd_ssthresh = tp->snd_cwnd;
			}
		}
	}

	if (HYSTART_DETECT & HYSTART_DELAY) {
		if (ca->curr_rtt > delay)
			ca->curr_rtt = delay;
		if (ca->sample_cnt < HYSTART_MIN_SAMPLES) {
			ca->sample_cnt++;
		} else {
			__u32 thresh = ca->delay_min >> 3;

			if (thresh < HYSTART_DELAY_MIN)
				thresh = HYSTART_DELAY_MIN;
			if (thresh > HYSTART_DELAY_MAX)
				thresh = HYSTART_DELAY_MAX;
			/* The round's minimum RTT rose by an eighth of the base: queue building. */
			if (ca->curr_rtt > ca->delay_min + thresh) {
				ca->found = 1;
				tp->snd_ssthresh = tp->snd_cwnd;
			}
		}
	}
}

void cubictcp_acked(struct sock *sk, const struct ack_sample *sample)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct bictcp *ca = inet_csk_ca(sk);
	__u32 delay;

	if (sample->rtt_us < 0)
		return;
	/* Samples just after a reduction are distorted by the queue draining: skip 1 s. */
	if (ca->epoch_start && (__s32)(kbpf_tcp_jiffies32(tp) - ca->epoch_start) < KBPF_TCP_HZ)
		return;
	delay = (__u32)sample->rtt_us;
	if (delay == 0)
		delay = 1;
	if (ca->delay_min == 0 || ca->delay_min > delay)
		ca->delay_min = delay;
	if (!ca->found && tcp_in_slow_start(tp))
		hystart_update(sk, delay);
}

const struct tcp_congestion_ops kbpf_tcp_cubic = {
	.init = cubictcp_init,
	.ssthresh = cubictcp_recalc_ssthresh,
	.cong_avoid = cubictcp_cong_avoid,
	.set_state = cubictcp_state,
	.undo_cwnd = tcp_reno_undo_cwnd,
	.cwnd_event = cubictcp_cwnd_event,
	.pkts_acked = cubictcp_acked,
	.name = "cubic",
};
