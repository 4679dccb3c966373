/* SPDX-License-Identifier: Apache-2.0 */
/* The simulator: determinism, loss recovery (fast recovery and RTO), HyStart on/off,
 * ECN (RFC 3168 and DCTCP), finite transfers, bad input. */
#include <errno.h>
#include <string.h>
#include <kbpf/tcp_sim.h>
#include "test.h"

struct rec {
	uint64_t hash;
	unsigned long n;
	int saw_state[5];
	/* first point where ssthresh became finite */
	int ss_set;
	uint32_t ss_lost, ss_state, ss_val, cwnd_before, cwnd_at_first_recovery;
	uint32_t max_queue;
};

static void rec_trace(const struct kbpf_tcp_trace_point *p, void *ctx)
{
	struct rec *r = ctx;
	/* field by field: the struct's padding is not part of the trace */
	const uint64_t w[] = { p->time_us, p->flow, p->cwnd, p->ssthresh, p->srtt_us, p->pacing_rate,
			       p->inflight, p->queue_pkts, p->delivered, p->lost, p->retrans, p->ca_state };

	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		r->hash = (r->hash ^ w[i]) * 0x100000001b3ULL;
	r->n++;
	if (p->ca_state < 5)
		r->saw_state[p->ca_state]++;
	if (!r->ss_set && p->ssthresh != 0x7fffffffU) {
		r->ss_set = 1;
		r->ss_lost = p->lost;
		r->ss_state = p->ca_state;
		r->ss_val = p->ssthresh;
	}
	if (!r->ss_set)
		r->cwnd_before = p->cwnd;
	if (p->queue_pkts > r->max_queue)
		r->max_queue = p->queue_pkts;
}

static struct kbpf_tcp_sim *mk(uint64_t rate, uint32_t delay, uint32_t queue, double loss, uint32_t ecn, uint64_t seed)
{
	struct kbpf_tcp_sim_opts o = { .sz = sizeof(o), .rate_bps = rate, .delay_us = delay, .queue_pkts = queue,
				       .loss = loss, .ecn_threshold_pkts = ecn, .seed = seed };
	struct kbpf_tcp_sim *s = NULL;

	CHECK_EQ_U64(kbpf_tcp_sim_create(&o, &s), 0);
	return s;
}

static uint64_t run_hash(uint64_t seed)
{
	struct kbpf_tcp_sim *s = mk(20000000, 20000, 0, 0.005, 0, seed);
	struct rec r = { .hash = 14695981039346656037ULL };
	struct kbpf_tcp_flow_opts fo = { .sz = sizeof(fo), .start_us = 500000 };

	kbpf_tcp_sim_add_flow(s, &kbpf_tcp_cubic, NULL, NULL);
	kbpf_tcp_sim_add_flow(s, &kbpf_tcp_bbr, &fo, NULL);
	kbpf_tcp_sim_set_trace(s, rec_trace, &r);
	CHECK_EQ_U64(kbpf_tcp_sim_run(s, 5000000), 0);
	kbpf_tcp_sim_free(s);
	CHECK(r.n > 1000);
	return r.hash;
}

static void test_determinism(void)
{
	uint64_t a = run_hash(7), b = run_hash(7), c = run_hash(8);

	CHECK_EQ_U64(a, b);
	CHECK(a != c);
}

/* One segment lost in slow start: fast recovery by RACK/SACK, one retransmission, no RTO,
 * ssthresh = cubic's 717/1024 of cwnd at the loss, back to Open. */
static void test_fast_recovery(void)
{
	struct kbpf_tcp_sim *s = mk(20000000, 20000, 1000, 0, 0, 1);
	struct rec r = { 0 };
	struct kbpf_tcp_flow_stats fs;

	kbpf_tcp_sim_add_flow(s, &kbpf_tcp_reno, NULL, NULL);
	CHECK_EQ_U64(kbpf_tcp_sim_drop_segment(s, 0, 30), 0);
	kbpf_tcp_sim_set_trace(s, rec_trace, &r);
	CHECK_EQ_U64(kbpf_tcp_sim_run(s, 1000000), 0);
	kbpf_tcp_sim_flow_stats(s, 0, &fs);
	CHECK_EQ_U64(fs.retransmits, 1);
	CHECK_EQ_U64(fs.rtos, 0);
	CHECK_EQ_U64(fs.lost, 1);
	CHECK(r.saw_state[TCP_CA_Recovery] > 0);
	CHECK_EQ_U64(r.ss_state, TCP_CA_Recovery);
	CHECK_EQ_U64(r.ss_val, r.cwnd_before / 2); /* reno halves the cwnd at detection */
	CHECK_EQ_U64(kbpf_tcp_sim_sender(s, 0)->inet_conn.icsk_ca_state, TCP_CA_Open);
	CHECK_EQ_U64(fs.ssthresh, r.ss_val);
	kbpf_tcp_sim_free(s);
}

/* The last segment of a transfer is lost: nothing after it can be SACKed. The tail loss
 * probe (2·SRTT + 200 ms with one segment out, capped by the RTO) retransmits it; its ACK
 * does not pass the probe's tlp_high_seq, so no reduction and no RTO. */
static void test_tlp(void)
{
	struct kbpf_tcp_sim *s = mk(20000000, 20000, 1000, 0, 0, 1);
	struct kbpf_tcp_flow_opts fo = { .sz = sizeof(fo), .bytes = 20 * 1448 };
	struct kbpf_tcp_flow_stats fs;

	kbpf_tcp_sim_add_flow(s, &kbpf_tcp_cubic, &fo, NULL);
	kbpf_tcp_sim_drop_segment(s, 0, 19);
	CHECK_EQ_U64(kbpf_tcp_sim_run(s, 3000000), 0);
	kbpf_tcp_sim_flow_stats(s, 0, &fs);
	CHECK_EQ_U64(fs.rtos, 0);
	CHECK_EQ_U64(fs.retransmits, 1);
	CHECK_EQ_U64(fs.bytes_acked, 20 * 1448);
	CHECK(fs.completion_us > 300000 && fs.completion_us < 500000);
	CHECK_EQ_U64(fs.cwnd, 30); /* no reduction: slow start went on (10 + 20 delivered) */
	kbpf_tcp_sim_free(s);
}

/* The tail and its probe are lost: the RTO recovers it; cwnd restarts from 1 and the
 * transfer completes. */
static void test_rto(void)
{
	struct kbpf_tcp_sim *s = mk(20000000, 20000, 1000, 0, 0, 1);
	struct kbpf_tcp_flow_opts fo = { .sz = sizeof(fo), .bytes = 20 * 1448 };
	struct kbpf_tcp_flow_stats fs;

	kbpf_tcp_sim_add_flow(s, &kbpf_tcp_cubic, &fo, NULL);
	kbpf_tcp_sim_drop_segment(s, 0, 19);
	kbpf_tcp_sim_drop_segment(s, 0, 19);
	CHECK_EQ_U64(kbpf_tcp_sim_run(s, 3000000), 0);
	kbpf_tcp_sim_flow_stats(s, 0, &fs);
	CHECK_EQ_U64(fs.rtos, 1);
	CHECK_EQ_U64(fs.retransmits, 2);
	CHECK_EQ_U64(fs.bytes_acked, 20 * 1448);
	/* probe at ≈ 0.3 s, then the RTO ≈ 0.24 s later (RTO ≥ SRTT + 200 ms) */
	CHECK(fs.completion_us > 500000 && fs.completion_us < 900000);
	CHECK_EQ_U64(kbpf_tcp_sim_sender(s, 0)->inet_conn.icsk_ca_state, TCP_CA_Open);
	/* RTO: cwnd = in flight + 1 = 1 (Linux sends the probe with __tcp_retransmit_skb, which
	 * does not count it in retrans_out), then +1 in slow start for the ACK */
	CHECK_EQ_U64(fs.cwnd, 2);
	kbpf_tcp_sim_free(s);
}

static int nohystart_init_calls;
static void cubic_nohystart_init(struct sock *sk)
{
	cubictcp_init(sk);
	((__u8 *)inet_csk(sk)->icsk_ca_priv)[43] = 1; /* `found`: HyStart never runs */
	nohystart_init_calls++;
}

/* HyStart leaves slow start before the first loss; without it the first loss does. */
static void test_hystart_on_off(void)
{
	struct tcp_congestion_ops nohs = kbpf_tcp_cubic;
	struct rec on = { 0 }, off = { 0 };
	struct kbpf_tcp_sim *s;

	nohs.init = cubic_nohystart_init;
	s = mk(20000000, 20000, 0, 0, 0, 1);
	kbpf_tcp_sim_add_flow(s, &kbpf_tcp_cubic, NULL, NULL);
	kbpf_tcp_sim_set_trace(s, rec_trace, &on);
	kbpf_tcp_sim_run(s, 3000000);
	kbpf_tcp_sim_free(s);
	CHECK(on.ss_set);
	CHECK_EQ_U64(on.ss_lost, 0);
	CHECK_EQ_U64(on.ss_state, TCP_CA_Open);
	CHECK_EQ_U64(on.ss_val, on.cwnd_before); /* ssthresh = cwnd at the exit */

	s = mk(20000000, 20000, 0, 0, 0, 1);
	kbpf_tcp_sim_add_flow(s, &nohs, NULL, NULL);
	kbpf_tcp_sim_set_trace(s, rec_trace, &off);
	kbpf_tcp_sim_run(s, 3000000);
	kbpf_tcp_sim_free(s);
	CHECK_EQ_U64(nohystart_init_calls, 2); /* sender and receiver */
	CHECK(off.ss_set);
	CHECK(off.ss_lost > 0);
	CHECK_EQ_U64(off.ss_state, TCP_CA_Recovery);
	CHECK_EQ_U64(off.ss_val, off.cwnd_before * 717 / 1024);
}

/* RFC 3168 ECN with reno (tcp_ecn = 1): CE marks, CWR reductions, no losses. Without
 * tcp_ecn = 1 reno does not negotiate ECN and the queue overflows. */
static void test_ecn_reno(void)
{
	struct kbpf_tcp_flow_opts fo = { .sz = sizeof(fo), .tcp_ecn = 1, .tcp_ecn_set = 1 };
	struct kbpf_tcp_sim *s = mk(20000000, 20000, 200, 0, 30, 1);
	struct kbpf_tcp_sim_stats st;
	struct kbpf_tcp_flow_stats fs;
	struct rec r = { 0 };

	kbpf_tcp_sim_add_flow(s, &kbpf_tcp_reno, &fo, NULL);
	kbpf_tcp_sim_set_trace(s, rec_trace, &r);
	kbpf_tcp_sim_run(s, 10000000);
	kbpf_tcp_sim_flow_stats(s, 0, &fs);
	kbpf_tcp_sim_stats(s, &st);
	CHECK(fs.ecn_ok);
	CHECK(st.ce_marks > 0);
	CHECK(fs.delivered_ce > 0);
	CHECK_EQ_U64(st.drops_queue, 0);
	CHECK_EQ_U64(fs.retransmits, 0);
	CHECK(r.saw_state[TCP_CA_CWR] > 0);
	CHECK(fs.goodput_bps > 15000000);
	kbpf_tcp_sim_free(s);

	s = mk(20000000, 20000, 200, 0, 30, 1);
	kbpf_tcp_sim_add_flow(s, &kbpf_tcp_reno, NULL, NULL);
	kbpf_tcp_sim_run(s, 10000000);
	kbpf_tcp_sim_flow_stats(s, 0, &fs);
	kbpf_tcp_sim_stats(s, &st);
	CHECK(!fs.ecn_ok);
	CHECK_EQ_U64(st.ce_marks, 0);
	CHECK(st.drops_queue > 0);
	kbpf_tcp_sim_free(s);
}

/* DCTCP negotiates ECN by itself, keeps the queue near the marking threshold with full
 * throughput and no loss, and two flows share fairly. */
static void test_ecn_dctcp(void)
{
	struct kbpf_tcp_sim *s = mk(100000000, 5000, 400, 0, 40, 1);
	struct kbpf_tcp_sim_stats st;
	struct kbpf_tcp_flow_stats a, b;

	kbpf_tcp_sim_add_flow(s, &kbpf_tcp_dctcp, NULL, NULL);
	kbpf_tcp_sim_add_flow(s, &kbpf_tcp_dctcp, NULL, NULL);
	kbpf_tcp_sim_run(s, 10000000);
	kbpf_tcp_sim_flow_stats(s, 0, &a);
	kbpf_tcp_sim_flow_stats(s, 1, &b);
	kbpf_tcp_sim_stats(s, &st);
	CHECK(a.ecn_ok && b.ecn_ok);
	CHECK_STR(a.cc, "dctcp");
	CHECK_EQ_U64(a.retransmits + b.retransmits, 0);
	CHECK(a.goodput_bps + b.goodput_bps > 90000000);
	CHECK(st.queue_p99 <= 40 + 10);
	CHECK(st.jain > 0.95);
	kbpf_tcp_sim_free(s);
}

/* A 10 MB transfer completes; its goodput is close to the link's payload rate. */
static void test_finite_transfer(void)
{
	struct kbpf_tcp_sim *s = mk(20000000, 20000, 0, 0, 0, 1);
	struct kbpf_tcp_flow_opts fo = { .sz = sizeof(fo), .bytes = 10 * 1000 * 1000 };
	struct kbpf_tcp_flow_stats fs;

	kbpf_tcp_sim_add_flow(s, &kbpf_tcp_cubic, &fo, NULL);
	kbpf_tcp_sim_run(s, 20000000);
	kbpf_tcp_sim_flow_stats(s, 0, &fs);
	CHECK_EQ_U64(fs.bytes_acked, 10 * 1000 * 1000);
	CHECK(fs.completion_us > 4000000 && fs.completion_us < 6000000);
	kbpf_tcp_sim_free(s);
}

/* Random loss: reno's throughput follows Mathis et al. (MSS/RTT · 1.22/√p) within 25 %. */
static void test_mathis(void)
{
	struct kbpf_tcp_sim *s = mk(100000000, 20000, 1000, 0.01, 0, 5);
	struct kbpf_tcp_flow_stats fs;
	double expect = 1448 * 8 / 0.040 * 1.22 / 0.1;

	kbpf_tcp_sim_add_flow(s, &kbpf_tcp_reno, NULL, NULL);
	kbpf_tcp_sim_run(s, 60000000);
	kbpf_tcp_sim_flow_stats(s, 0, &fs);
	CHECK(fs.goodput_bps > expect * 0.75 && fs.goodput_bps < expect * 1.25);
	if (!(fs.goodput_bps > expect * 0.75 && fs.goodput_bps < expect * 1.25))
		fprintf(stderr, "reno at 1%% loss: %llu bit/s, Mathis %.0f\n", (unsigned long long)fs.goodput_bps, expect);
	kbpf_tcp_sim_free(s);
}


/* The hooks, in Linux's order: a CC that records its calls (on the sender) and forwards
 * to reno. Per ACK: pkts_acked → in_ack_event → [ssthresh → set_state] → cong_avoid;
 * set_state sees the old state; an RTO calls ssthresh → cwnd_event(LOSS) → set_state(Loss). */
static char hook_log[1 << 16];
static size_t hook_len;
static struct tcp_sock *hook_sender;

static void hlog(struct sock *sk, const char *s)
{
	size_t n = strlen(s);

	if ((struct tcp_sock *)sk != hook_sender || hook_len + n + 1 >= sizeof(hook_log))
		return;
	memcpy(hook_log + hook_len, s, n);
	hook_len += n;
	hook_log[hook_len++] = ' ';
	hook_log[hook_len] = 0;
}
static __u32 h_ssthresh(struct sock *sk)
{
	hlog(sk, "S");
	return tcp_reno_ssthresh(sk);
}
static void h_cong_avoid(struct sock *sk, __u32 ack, __u32 acked)
{
	hlog(sk, "A");
	tcp_reno_cong_avoid(sk, ack, acked);
}
static void h_set_state(struct sock *sk, __u8 st)
{
	char b[8];

	snprintf(b, sizeof(b), "T%u%u", inet_csk(sk)->icsk_ca_state, st); /* old, new */
	hlog(sk, b);
}
static void h_cwnd_event(struct sock *sk, enum tcp_ca_event ev)
{
	char b[8];

	snprintf(b, sizeof(b), "E%d", (int)ev);
	hlog(sk, b);
}
static void h_in_ack(struct sock *sk, __u32 flags)
{
	(void)flags;
	hlog(sk, "I");
}
static void h_pkts_acked(struct sock *sk, const struct ack_sample *s)
{
	(void)s;
	hlog(sk, "P");
}
static __u32 h_undo(struct sock *sk)
{
	hlog(sk, "U");
	return tcp_reno_undo_cwnd(sk);
}
static void h_init(struct sock *sk)
{
	hlog(sk, "N");
}
static int releases;
static void h_release(struct sock *sk)
{
	(void)sk;
	releases++;
}

static const struct tcp_congestion_ops hook_ops = {
	.name = "hooks",
	.ssthresh = h_ssthresh,
	.cong_avoid = h_cong_avoid,
	.set_state = h_set_state,
	.cwnd_event = h_cwnd_event,
	.in_ack_event = h_in_ack,
	.pkts_acked = h_pkts_acked,
	.undo_cwnd = h_undo,
	.init = h_init,
	.release = h_release,
};

static void hook_run(__u64 segs, __u32 drop, int times)
{
	struct kbpf_tcp_sim *s = mk(20000000, 20000, 1000, 0, 0, 1);
	struct kbpf_tcp_flow_opts fo = { .sz = sizeof(fo), .bytes = segs * 1448 };
	struct kbpf_tcp_flow_stats fs;

	hook_len = 0;
	hook_log[0] = 0;
	kbpf_tcp_sim_add_flow(s, &hook_ops, &fo, NULL);
	hook_sender = kbpf_tcp_sim_sender(s, 0);
	for (int i = 0; i < times; i++)
		kbpf_tcp_sim_drop_segment(s, 0, drop);
	CHECK_EQ_U64(kbpf_tcp_sim_run(s, 3000000), 0);
	kbpf_tcp_sim_flow_stats(s, 0, &fs);
	CHECK_EQ_U64(fs.bytes_acked, segs * 1448);
	kbpf_tcp_sim_free(s);
}

static void test_hook_order(void)
{
	/* A hole in the middle: fast recovery. */
	hook_run(60, 30, 1);
	/* init, then TX_START at the first transmission */
	CHECK(!strncmp(hook_log, "N E0 ", 5));
	/* a normal ACK */
	CHECK_CONTAINS(hook_log, "P I A ");
	/* first SACK: Open → Disorder; then the loss is detected: ssthresh, Disorder → Recovery */
	CHECK_CONTAINS(hook_log, "P I T01 ");
	CHECK_CONTAINS(hook_log, "P I S T13 ");
	/* end of recovery: Recovery → Open, then COMPLETE_CWR, then this ACK's cong_avoid */
	CHECK_CONTAINS(hook_log, "T30 E2 A ");
	/* no cong_avoid during Recovery (PRR decides) */
	const char *r = strstr(hook_log, "T13 "), *e = strstr(hook_log, "T30 ");
	CHECK(r && e && r < e);
	if (r && e)
		for (const char *p = r; p < e; p++)
			CHECK(*p != 'A');

	/* The tail and its loss probe lost: only the RTO recovers it. */
	hook_run(20, 19, 2);
	/* ssthresh, the LOSS event, → Loss, then TX_START of the retransmission */
	CHECK_CONTAINS(hook_log, "S E3 T04 E0 ");
	/* its ACK ends Loss: slow start from cwnd 1 (cong_avoid runs in Loss) */
	CHECK_CONTAINS(hook_log, "P I T40 A ");
	/* release on both ends, once each, when the simulator is freed */
	CHECK_EQ_U64(releases, 4);
}


/* Entries into Recovery are counted as Linux's TcpExtTCPSackRecovery counts them: one per
 * tcp_enter_recovery. Under random loss an ACK often ends one episode (snd_una passes
 * high_seq) and starts the next (a later loss is marked already), so the per-ACK trace,
 * which shows Recovery before and after that ACK, sees fewer episodes than there are
 * entries; the two agree once those same-ACK re-entries are added. */
struct rec_count {
	struct kbpf_tcp_sim *s;
	uint32_t prev_state;
	uint64_t prev_rec, trace_entries, same_ack;
};

static void count_trace(const struct kbpf_tcp_trace_point *p, void *ctx)
{
	struct rec_count *c = ctx;
	struct kbpf_tcp_flow_stats fs;

	kbpf_tcp_sim_flow_stats(c->s, 0, &fs);
	if (p->ca_state == TCP_CA_Recovery && c->prev_state != TCP_CA_Recovery)
		c->trace_entries++;
	else if (p->ca_state == TCP_CA_Recovery && fs.recoveries > c->prev_rec)
		c->same_ack += fs.recoveries - c->prev_rec;
	c->prev_state = p->ca_state;
	c->prev_rec = fs.recoveries;
}

static void test_recovery_count(void)
{
	struct kbpf_tcp_sim *s = mk(20000000, 20000, 66, 0.02, 0, 1);
	struct kbpf_tcp_flow_opts fo = { .sz = sizeof(fo), .tso = 1 };
	struct rec_count c = { .s = s };
	struct kbpf_tcp_flow_stats fs;

	kbpf_tcp_sim_add_flow(s, &kbpf_tcp_bbr, &fo, NULL);
	kbpf_tcp_sim_set_trace(s, count_trace, &c);
	CHECK_EQ_U64(kbpf_tcp_sim_run(s, 15000000), 0);
	kbpf_tcp_sim_flow_stats(s, 0, &fs);
	CHECK(c.same_ack > 0);
	CHECK(fs.recoveries > c.trace_entries);
	CHECK_EQ_U64(fs.recoveries, c.trace_entries + c.same_ack);
	kbpf_tcp_sim_free(s);
}
/* BBR's model as TCP_CC_INFO reports it (the kernel-comparison script reads it beside the
 * kernel's): after 5 s on a clean 20 Mbit/s path, PROBE_BW with cwnd gain 2, the bandwidth
 * the link's payload rate (20 Mbit/s × 1448/1500 = 2 413 333 bytes/s) and min RTT 40 ms;
 * not available for another CC or flow. */
static void test_bbr_info(void)
{
	struct kbpf_tcp_sim *s = mk(20000000, 20000, 0, 0, 0, 1);
	struct kbpf_tcp_bbr_info bi;

	kbpf_tcp_sim_add_flow(s, &kbpf_tcp_bbr, NULL, NULL);
	kbpf_tcp_sim_add_flow(s, &kbpf_tcp_cubic, NULL, NULL);
	CHECK_EQ_U64(kbpf_tcp_sim_run(s, 5000000), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_bbr_info(s, 0, &bi), 0);
	CHECK_EQ_U64(bi.mode, 2);
	CHECK_EQ_U64(bi.cwnd_gain, 512);
	CHECK(bi.pacing_gain == 192 || bi.pacing_gain == 256 || bi.pacing_gain == 320);
	CHECK(bi.bw_Bps > 1000000 && bi.bw_Bps <= 2413334);
	CHECK_EQ_U64(bi.min_rtt_us, 40000);
	CHECK_EQ_U64(kbpf_tcp_sim_bbr_info(s, 1, &bi), -EOPNOTSUPP);
	CHECK_EQ_U64(kbpf_tcp_sim_bbr_info(s, 2, &bi), -EINVAL);
	CHECK_EQ_U64(kbpf_tcp_sim_bbr_info(s, 0, NULL), -EINVAL);
	kbpf_tcp_sim_free(s);
}

static void test_bad_input(void)
{
	struct kbpf_tcp_sim_opts o = { .sz = sizeof(o), .loss = 2 };
	struct kbpf_tcp_sim *s = NULL;
	struct tcp_congestion_ops bad = kbpf_tcp_reno;
	struct kbpf_tcp_flow_opts fo = { .sz = sizeof(fo), .tcp_ecn = 5, .tcp_ecn_set = 1 };

	CHECK_EQ_U64(kbpf_tcp_sim_create(&o, &s), -EINVAL);
	CHECK(!s);
	o.loss = 0;
	o.mtu = 10;
	CHECK_EQ_U64(kbpf_tcp_sim_create(&o, &s), -EINVAL);
	o.mtu = 0;
	o.sz = 4;
	CHECK_EQ_U64(kbpf_tcp_sim_create(&o, &s), -EINVAL);
	CHECK_EQ_U64(kbpf_tcp_sim_create(NULL, NULL), -EINVAL);
	CHECK_EQ_U64(kbpf_tcp_sim_create(NULL, &s), 0);
	bad.ssthresh = NULL;
	CHECK_EQ_U64(kbpf_tcp_sim_add_flow(s, &bad, NULL, NULL), -EINVAL);
	CHECK_EQ_U64(kbpf_tcp_sim_add_flow(s, NULL, NULL, NULL), -EINVAL);
	CHECK_EQ_U64(kbpf_tcp_sim_add_flow(s, &kbpf_tcp_reno, &fo, NULL), -EINVAL);
	CHECK_EQ_U64(kbpf_tcp_sim_drop_segment(s, 3, 1), -EINVAL);
	CHECK(!kbpf_tcp_sim_sender(s, 0));
	struct kbpf_tcp_flow_stats fs;
	CHECK_EQ_U64(kbpf_tcp_sim_flow_stats(s, 0, &fs), -EINVAL);
	CHECK_EQ_U64(kbpf_tcp_sim_run(s, 1000), 0); /* no flows: nothing happens */
	/* a flow added later, "starting" in the past, starts now; time does not go back */
	CHECK_EQ_U64(kbpf_tcp_sim_run(s, 2000000), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_add_flow(s, &kbpf_tcp_reno, NULL, NULL), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_run(s, 3000000), 0);
	struct kbpf_tcp_sim_stats st;
	kbpf_tcp_sim_stats(s, &st);
	CHECK_EQ_U64(st.now_us, 3000000);
	CHECK_EQ_U64(kbpf_tcp_sim_flow_stats(s, 0, &fs), 0);
	CHECK(fs.bytes_acked > 1000000);
	kbpf_tcp_sim_free(s);
	kbpf_tcp_sim_free(NULL);
}

int main(void)
{
	RUN(test_determinism);
	RUN(test_fast_recovery);
	RUN(test_tlp);
	RUN(test_rto);
	RUN(test_hystart_on_off);
	RUN(test_ecn_reno);
	RUN(test_ecn_dctcp);
	RUN(test_finite_transfer);
	RUN(test_mathis);
	RUN(test_hook_order);
	RUN(test_bbr_info);
	RUN(test_recovery_count);
	RUN(test_bad_input);
	return test_summary();
}
