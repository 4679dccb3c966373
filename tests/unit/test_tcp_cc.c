/* SPDX-License-Identifier: Apache-2.0 */
/* The native congestion controls, per call, against values derived from Linux 6.1's code
 * paths and constants (docs/reference/tcp-model.md §3.1, §4, §5). */
#include <string.h>
#include <kbpf/tcp.h>
#include <kbpf/tcp_sim.h>
#include "test.h"

static struct tcp_sock tp;

static struct sock *sk(void)
{
	return (struct sock *)&tp;
}

static void fresh(const struct tcp_congestion_ops *ops)
{
	memset(&tp, 0, sizeof(tp));
	tp.inet_conn.icsk_ca_ops = ops;
	tp.snd_cwnd = 10;
	tp.snd_ssthresh = TCP_INFINITE_SSTHRESH;
	tp.snd_cwnd_clamp = ~0U;
	tp.mss_cache = 1448;
	tp.kbpf.jiffies = 1000;
	tp.is_cwnd_limited = 1;
	tp.delivered = 1;
	tp.inet_conn.icsk_inet.sk.sk_max_pacing_rate = ~0UL;
}

static void test_reno_vectors(void)
{
	fresh(&kbpf_tcp_reno);
	tcp_reno_cong_avoid(sk(), 0, 2); /* slow start: +2 */
	CHECK_EQ_U64(tp.snd_cwnd, 12);

	fresh(&kbpf_tcp_reno);
	tp.snd_ssthresh = 11;
	tcp_reno_cong_avoid(sk(), 0, 4); /* 1 to reach ssthresh, 3 become AI credit */
	CHECK_EQ_U64(tp.snd_cwnd, 11);
	CHECK_EQ_U64(tp.snd_cwnd_cnt, 3);

	fresh(&kbpf_tcp_reno);
	tp.snd_cwnd = 20;
	tp.snd_ssthresh = 10;
	tp.snd_cwnd_cnt = 19;
	tcp_reno_cong_avoid(sk(), 0, 2);
	CHECK_EQ_U64(tp.snd_cwnd, 21);
	CHECK_EQ_U64(tp.snd_cwnd_cnt, 1);

	/* Not cwnd-limited: no growth (6.1 rule: slow start still grows below 2 × max_packets_out). */
	fresh(&kbpf_tcp_reno);
	tp.is_cwnd_limited = 0;
	tp.max_packets_out = 4;
	tcp_reno_cong_avoid(sk(), 0, 2);
	CHECK_EQ_U64(tp.snd_cwnd, 10);
	tp.max_packets_out = 6;
	tcp_reno_cong_avoid(sk(), 0, 2);
	CHECK_EQ_U64(tp.snd_cwnd, 12);

	/* A stretch ACK in slow start is not capped; the clamp is. */
	fresh(&kbpf_tcp_reno);
	tp.snd_cwnd_clamp = 30;
	CHECK_EQ_U64(tcp_slow_start(&tp, 40), 0); /* all 40 count toward ssthresh ∞; the clamp caps cwnd */
	CHECK_EQ_U64(tp.snd_cwnd, 30);

	/* A credit earned at a smaller w is cashed in first. */
	fresh(&kbpf_tcp_reno);
	tp.snd_cwnd = 50;
	tp.snd_cwnd_cnt = 60;
	tcp_cong_avoid_ai(&tp, 40, 1);
	CHECK_EQ_U64(tp.snd_cwnd, 51);
	CHECK_EQ_U64(tp.snd_cwnd_cnt, 1);

	fresh(&kbpf_tcp_reno);
	tp.snd_cwnd = 3;
	CHECK_EQ_U64(tcp_reno_ssthresh(sk()), 2);
	tp.snd_cwnd = 101;
	CHECK_EQ_U64(tcp_reno_ssthresh(sk()), 50);
	tp.prior_cwnd = 120;
	CHECK_EQ_U64(tcp_reno_undo_cwnd(sk()), 120);
}

static __u32 cubic_field(int i)
{
	return ((const __u32 *)tp.inet_conn.icsk_ca_priv)[i];
}

enum { CUBIC_CNT = 0, CUBIC_LAST_MAX = 1, CUBIC_K = 5, CUBIC_DELAY_MIN = 6, CUBIC_EPOCH = 7 };

/* K = cbrt(cube_factor × d) in 1/1024 s, Linux's estimate (docs/reference/tcp-model.md §5.2). */
static void test_cubic_k_vectors(void)
{
	static const struct {
		__u32 d, k;
	} v[] = { { 1, 1388 }, { 2, 1750 },  { 5, 2375 },   { 10, 2991 },  { 16, 3500 },  { 25, 4062 },
		  { 30, 4316 }, { 50, 5120 }, { 100, 6451 }, { 300, 9294 }, { 1000, 13897 } };

	for (unsigned int i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		fresh(&kbpf_tcp_cubic);
		cubictcp_init(sk());
		tp.snd_cwnd = 2000;
		cubictcp_recalc_ssthresh(sk()); /* W_max = 2000 */
		tp.snd_cwnd = 2000 - v[i].d;
		tp.snd_ssthresh = 2;
		cubictcp_cong_avoid(sk(), 0, 1);
		if (cubic_field(CUBIC_K) != v[i].k)
			fprintf(stderr, "d=%u: K=%u, expected %u\n", v[i].d, cubic_field(CUBIC_K), v[i].k);
		CHECK_EQ_U64(cubic_field(CUBIC_K), v[i].k);
	}
	/* ssthresh = 717/1024 of cwnd; fast convergence W_max = cwnd × 1741/2048 below the old max. */
	static const __u32 cw[] = { 10, 100, 1000 }, ss[] = { 7, 70, 700 }, fc[] = { 8, 85, 850 };
	for (int i = 0; i < 3; i++) {
		fresh(&kbpf_tcp_cubic);
		cubictcp_init(sk());
		tp.snd_cwnd = cw[i];
		CHECK_EQ_U64(cubictcp_recalc_ssthresh(sk()), ss[i]);
		CHECK_EQ_U64(cubic_field(CUBIC_LAST_MAX), cw[i]);
		((__u32 *)tp.inet_conn.icsk_ca_priv)[CUBIC_LAST_MAX] = 5000;
		cubictcp_recalc_ssthresh(sk());
		CHECK_EQ_U64(cubic_field(CUBIC_LAST_MAX), fc[i]);
	}
}

/* After a loss at cwnd 100 (ssthresh and cwnd 70, delay_min 40 ms): the cubic curve from
 * the loss, sampled with cwnd held at 70. t = (jiffies + 10) × 1024 / 250, K = 4316:
 * target 71, 88, 100, 102 at 0, 1 s, 4.276 s, 6 s → cnt 70, 3, 2, 2. */
static void test_cubic_after_loss(void)
{
	static const struct {
		__u32 dj, cnt;
	} v[] = { { 0, 70 }, { 250, 3 }, { 1069, 2 }, { 1500, 2 } };

	fresh(&kbpf_tcp_cubic);
	cubictcp_init(sk());
	tp.snd_cwnd = 100;
	tp.snd_ssthresh = cubictcp_recalc_ssthresh(sk());
	CHECK_EQ_U64(tp.snd_ssthresh, 70);
	((__u32 *)tp.inet_conn.icsk_ca_priv)[CUBIC_DELAY_MIN] = 40000;
	for (unsigned int i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		tp.kbpf.jiffies = 1000 + v[i].dj;
		tp.snd_cwnd = 70;
		tp.snd_cwnd_cnt = 0;
		cubictcp_cong_avoid(sk(), 0, 1);
		CHECK_EQ_U64(cubic_field(CUBIC_EPOCH), 1000);
		CHECK_EQ_U64(cubic_field(CUBIC_K), 4316);
		CHECK_EQ_U64(cubic_field(CUBIC_CNT), v[i].cnt);
	}
	/* set_state(Loss) forgets W_max; TX_START after 100 idle jiffies shifts the epoch. */
	tp.lsndtime = tp.kbpf.jiffies;
	tp.kbpf.jiffies += 100;
	cubictcp_cwnd_event(sk(), CA_EVENT_TX_START);
	CHECK_EQ_U64(cubic_field(CUBIC_EPOCH), 1100);
	cubictcp_state(sk(), TCP_CA_Loss);
	CHECK_EQ_U64(cubic_field(CUBIC_LAST_MAX), 0);
	CHECK_EQ_U64(cubic_field(CUBIC_EPOCH), 0);
}

/* HyStart's delay detector: after 8 samples of a round, an RTT above delay_min + 4 ms
 * ends slow start with ssthresh = cwnd; the exit ACK does not grow cwnd. */
static void test_cubic_hystart_delay(void)
{
	fresh(&kbpf_tcp_cubic);
	tp.snd_nxt = 100000;
	tp.snd_una = 50000;
	tp.tcp_mstamp = 1000000;
	tp.inet_conn.icsk_inet.sk.sk_pacing_rate = 0; /* no ACK-train threshold slack */
	cubictcp_init(sk());
	tp.snd_cwnd = 20;
	struct ack_sample s = { .pkts_acked = 1, .rtt_us = 40000 };
	for (int i = 0; i < 8; i++) {
		tp.tcp_mstamp += 5000; /* spaced: no ACK train */
		cubictcp_acked(sk(), &s);
	}
	CHECK_EQ_U64(tp.snd_ssthresh, TCP_INFINITE_SSTHRESH);
	s.rtt_us = 44001; /* curr_rtt is the round's min: still 40000 */
	tp.tcp_mstamp += 5000;
	cubictcp_acked(sk(), &s);
	CHECK_EQ_U64(tp.snd_ssthresh, TCP_INFINITE_SSTHRESH);
	/* A new round (snd_una past end_seq) with RTTs all above delay_min + clamp(40/8 ms) = 45 ms. */
	tp.snd_una = 100001;
	tp.snd_nxt = 200000;
	s.rtt_us = 45000;
	for (int i = 0; i < 9; i++) {
		tp.tcp_mstamp += 5000;
		cubictcp_acked(sk(), &s);
	}
	CHECK_EQ_U64(tp.snd_ssthresh, TCP_INFINITE_SSTHRESH); /* not above the threshold */
	tp.snd_una = 200001;
	tp.snd_nxt = 300000;
	s.rtt_us = 45001;
	for (int i = 0; i < 9; i++) {
		tp.tcp_mstamp += 5000;
		cubictcp_acked(sk(), &s);
	}
	CHECK_EQ_U64(tp.snd_ssthresh, 20);
}

static __u32 dctcp_alpha(void)
{
	return ((const __u32 *)tp.inet_conn.icsk_ca_priv)[3];
}

/* One observation window: delivered segments, ce of them CE-echoed, then the ACK that
 * passes next_seq. */
static void dctcp_window(__u32 delivered, __u32 ce)
{
	tp.delivered += delivered;
	tp.delivered_ce += ce;
	tp.snd_una = tp.snd_nxt;
	tp.snd_nxt += 10000;
	dctcp_update_alpha(sk(), CA_ACK_SLOWPATH);
}

static void test_dctcp_alpha(void)
{
	static const __u32 f0[] = { 960, 900, 844, 792, 743, 697, 654, 614 };

	fresh(&kbpf_tcp_dctcp);
	tp.ecn_flags = TCP_ECN_OK;
	tp.snd_nxt = 1000;
	dctcp_init(sk());
	CHECK(tp.inet_conn.icsk_ca_ops == &kbpf_tcp_dctcp);
	CHECK_EQ_U64(dctcp_alpha(), 1024);
	for (int i = 0; i < 8; i++) {
		dctcp_window(10, 0);
		CHECK_EQ_U64(dctcp_alpha(), f0[i]);
	}
	/* F = 0.1 converges from above to 111 ... */
	for (int i = 0; i < 200; i++)
		dctcp_window(100, 10);
	CHECK_EQ_U64(dctcp_alpha(), 111);
	/* ... but from α < 16 it settles at 6 (α >> 4 = 0 removes all of α each window). */
	for (int i = 0; i < 100; i++)
		dctcp_window(100, 0);
	CHECK_EQ_U64(dctcp_alpha(), 0);
	for (int i = 0; i < 50; i++)
		dctcp_window(100, 10);
	CHECK_EQ_U64(dctcp_alpha(), 6);

	/* ssthresh = cwnd − cwnd·α/2048, at least 2; loss halves. */
	static const __u32 a[] = { 1024, 512, 64 }, ss[] = { 50, 75, 97 };
	for (int i = 0; i < 3; i++) {
		((__u32 *)tp.inet_conn.icsk_ca_priv)[3] = a[i];
		tp.snd_cwnd = 100;
		CHECK_EQ_U64(dctcp_ssthresh(sk()), ss[i]);
	}
	((__u32 *)tp.inet_conn.icsk_ca_priv)[3] = 1024;
	tp.snd_cwnd = 10;
	CHECK_EQ_U64(dctcp_ssthresh(sk()), 5);
	tp.snd_cwnd = 3;
	CHECK_EQ_U64(dctcp_ssthresh(sk()), 2);
	tp.snd_cwnd = 80;
	tp.inet_conn.icsk_ca_state = TCP_CA_Open;
	dctcp_state(sk(), TCP_CA_Recovery);
	CHECK_EQ_U64(tp.snd_ssthresh, 40);
	CHECK_EQ_U64(dctcp_cwnd_undo(sk()), 80);

	/* Without ECN: Reno, and no ECT. */
	fresh(&kbpf_tcp_dctcp);
	tp.inet_conn.icsk_inet.sk.sk_state = TCP_ESTABLISHED;
	tp.inet_conn.icsk_inet.tos = INET_ECN_ECT_0;
	dctcp_init(sk());
	CHECK(tp.inet_conn.icsk_ca_ops == &kbpf_tcp_dctcp_reno);
	CHECK_EQ_U64(tp.inet_conn.icsk_inet.tos & INET_ECN_MASK, 0);
}

static int acks_sent;
static __u32 ack_rcv_nxt, ack_ece;
static void fake_send_ack(struct sock *s, __u32 rcv_nxt)
{
	acks_sent++;
	ack_rcv_nxt = rcv_nxt;
	ack_ece = (tcp_sk(s)->ecn_flags & TCP_ECN_DEMAND_CWR) != 0;
}

/* The receiver's exact CE echo: a change of CE state with a delayed ACK pending first
 * ACKs the earlier data with the old state. */
static void test_dctcp_receiver_echo(void)
{
	fresh(&kbpf_tcp_dctcp);
	tp.ecn_flags = TCP_ECN_OK;
	tp.rcv_nxt = 5000;
	tp.kbpf.send_ack = fake_send_ack;
	dctcp_init(sk());
	tp.rcv_nxt = 6448;
	dctcp_cwnd_event(sk(), CA_EVENT_ECN_NO_CE);
	CHECK_EQ_U64(acks_sent, 0);
	CHECK_EQ_U64(tp.ecn_flags & TCP_ECN_DEMAND_CWR, 0);
	tp.inet_conn.icsk_ack.pending = ICSK_ACK_SCHED | ICSK_ACK_TIMER;
	tp.rcv_nxt = 7896;
	dctcp_cwnd_event(sk(), CA_EVENT_ECN_IS_CE);
	CHECK_EQ_U64(acks_sent, 1);
	CHECK_EQ_U64(ack_rcv_nxt, 6448);
	CHECK_EQ_U64(ack_ece, 0);
	CHECK(tp.inet_conn.icsk_ack.pending & ICSK_ACK_NOW);
	CHECK(tp.ecn_flags & TCP_ECN_DEMAND_CWR);
}

static void test_minmax(void)
{
	struct minmax m;

	minmax_reset(&m, 0, 100);
	CHECK_EQ_U64(minmax_running_min(&m, 10, 1, 90), 90);
	CHECK_EQ_U64(minmax_running_min(&m, 10, 4, 95), 90); /* kept as 2nd/3rd best: > win/4 later */
	/* 90 ages out after the window; 95 takes over */
	CHECK_EQ_U64(minmax_running_min(&m, 10, 12, 120), 95);
	minmax_reset(&m, 0, 5);
	CHECK_EQ_U64(minmax_running_max(&m, 10, 1, 7), 7);
	CHECK_EQ_U64(minmax_running_max(&m, 10, 30, 3), 3);
}

static void test_registry(void)
{
	CHECK(kbpf_tcp_cc_find("reno") == &kbpf_tcp_reno);
	CHECK(kbpf_tcp_cc_find("cubic") == &kbpf_tcp_cubic);
	CHECK(kbpf_tcp_cc_find("dctcp") == &kbpf_tcp_dctcp);
	CHECK(kbpf_tcp_cc_find("bbr") == &kbpf_tcp_bbr);
	CHECK(!kbpf_tcp_cc_find("vegas"));
	CHECK(!kbpf_tcp_cc_find(NULL));
	for (unsigned int i = 0; kbpf_tcp_cc_get(i); i++)
		CHECK_EQ_U64(kbpf_tcp_cc_validate(kbpf_tcp_cc_get(i)), 0);
	CHECK_EQ_U64(kbpf_tcp_cc_validate(&kbpf_tcp_dctcp_reno), 0);
	struct tcp_congestion_ops bad = kbpf_tcp_reno;
	bad.undo_cwnd = NULL;
	CHECK(kbpf_tcp_cc_validate(&bad) < 0);
	bad = kbpf_tcp_reno;
	bad.flags = 4;
	CHECK(kbpf_tcp_cc_validate(&bad) < 0);
	bad = kbpf_tcp_reno;
	bad.name[0] = 0;
	CHECK(kbpf_tcp_cc_validate(&bad) < 0);
	bad = kbpf_tcp_bbr; /* cong_control instead of cong_avoid is fine */
	CHECK_EQ_U64(kbpf_tcp_cc_validate(&bad), 0);
	bad.cong_control = NULL;
	CHECK(kbpf_tcp_cc_validate(&bad) < 0);
	CHECK(kbpf_tcp_cc_validate(NULL) < 0);
}

/* BBR in the simulator: STARTUP → DRAIN → PROBE_BW, then PROBE_RTT after 10 s without a
 * lower RTT; BBR paces itself. */
struct bbr_watch {
	struct kbpf_tcp_sim *sim;
	int seq[16];
	int n;
	double probe_rtt_at;
};
static void bbr_trace(const struct kbpf_tcp_trace_point *p, void *ctx)
{
	struct bbr_watch *w = ctx;
	int mode = (int)kbpf_tcp_bbr_mode((struct sock *)kbpf_tcp_sim_sender(w->sim, p->flow), NULL);

	if ((w->n == 0 || w->seq[w->n - 1] != mode) && w->n < 16)
		w->seq[w->n++] = mode;
	if (mode == 3 && !w->probe_rtt_at)
		w->probe_rtt_at = p->time_us / 1e6;
}

static void test_bbr_modes(void)
{
	struct kbpf_tcp_sim_opts o = { .sz = sizeof(o), .rate_bps = 20000000, .delay_us = 20000, .seed = 3 };
	struct bbr_watch w = { 0 };

	CHECK_EQ_U64(kbpf_tcp_sim_create(&o, &w.sim), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_add_flow(w.sim, &kbpf_tcp_bbr, NULL, NULL), 0);
	kbpf_tcp_sim_set_trace(w.sim, bbr_trace, &w);
	CHECK_EQ_U64(kbpf_tcp_sim_run(w.sim, 12000000), 0);
	CHECK(w.n >= 4);
	CHECK_EQ_U64(w.seq[0], 0); /* STARTUP */
	CHECK_EQ_U64(w.seq[1], 1); /* DRAIN */
	CHECK_EQ_U64(w.seq[2], 2); /* PROBE_BW */
	CHECK_EQ_U64(w.seq[3], 3); /* PROBE_RTT */
	CHECK(w.probe_rtt_at > 10.0 && w.probe_rtt_at < 11.5);
	struct tcp_sock *s = kbpf_tcp_sim_sender(w.sim, 0);
	CHECK_EQ_U64(s->inet_conn.icsk_inet.sk.sk_pacing_status, SK_PACING_NEEDED);
	struct kbpf_tcp_flow_stats fs;
	kbpf_tcp_sim_flow_stats(w.sim, 0, &fs);
	CHECK(fs.goodput_bps > 17000000);
	/* paced at about the bottleneck rate: the queue stays short (cubic keeps it near full) */
	struct kbpf_tcp_sim_stats st;
	kbpf_tcp_sim_stats(w.sim, &st);
	CHECK(st.queue_p50 < 10);
	/* pacing = gain × 0.99 × bw; the payload rate is 20 Mbit/s × 1448/1500; gains 0.75…1.25 */
	double payload = 20e6 / 8 * 1448 / 1500, rate = (double)s->inet_conn.icsk_inet.sk.sk_pacing_rate;
	CHECK(rate > 0.70 * payload && rate < 1.30 * payload);
	kbpf_tcp_sim_free(w.sim);
}

int main(void)
{
	RUN(test_reno_vectors);
	RUN(test_cubic_k_vectors);
	RUN(test_cubic_after_loss);
	RUN(test_cubic_hystart_delay);
	RUN(test_dctcp_alpha);
	RUN(test_dctcp_receiver_echo);
	RUN(test_minmax);
	RUN(test_registry);
	RUN(test_bbr_modes);
	return test_summary();
}
