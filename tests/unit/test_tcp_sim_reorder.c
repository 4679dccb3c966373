/* SPDX-License-Identifier: Apache-2.0 */
/* Link reordering (opts.reorder) and RACK's reordering window as Linux 6.12 adapts it
 * (issue 20): the first reordering, not yet expected, costs a spurious retransmission, which
 * the delayed original's timestamp undoes and a D-SACK reports; the window then grows a step
 * and later reorderings of the same degree cost nothing; same seed, same run; runs without
 * the option keep their random draws. */
#include <errno.h>
#include <stddef.h>
#include <kbpf/tcp_sim.h>
#include "../../hosts/tcp/sim_internal.h"
#include "test_tcp_sim_util.h"

struct watch {
	struct kbpf_tcp_sim *sim;
	uint8_t prev_state;
	uint32_t prev_ssthresh, ssthresh_at_entry;
	unsigned int recoveries, undone; /* Recovery entries; exits with ssthresh restored */
	uint64_t retrans_at_first_dsack, reordered_at_first_dsack, reordered_at_step;
	uint32_t steps_seen_max;
	uint32_t prev_una, prev_cwnd;
	unsigned int sack_raises; /* cwnd raised by an ACK that only SACKed, in Disorder */
	struct trace_hash h;
};

static void on_ack(const struct kbpf_tcp_trace_point *pt, void *ctx)
{
	struct watch *w = ctx;
	struct sim *s = (struct sim *)w->sim;
	struct sim_flow *f = s->flows[0];

	if (pt->ca_state == TCP_CA_Recovery && w->prev_state != TCP_CA_Recovery) {
		w->recoveries++;
		w->ssthresh_at_entry = w->prev_ssthresh;
	}
	if (pt->ca_state == TCP_CA_Open && w->prev_state == TCP_CA_Recovery && pt->ssthresh == w->ssthresh_at_entry)
		w->undone++;
	if (f->dsack_segs && !w->reordered_at_first_dsack) {
		w->reordered_at_first_dsack = s->st.pkts_reordered;
		w->retrans_at_first_dsack = f->snd.total_retrans;
	}
	if (f->snd.rack.reo_wnd_steps > w->steps_seen_max) {
		w->steps_seen_max = f->snd.rack.reo_wnd_steps;
		w->reordered_at_step = s->st.pkts_reordered;
	}
	if (w->prev_state == TCP_CA_Disorder && pt->ca_state == TCP_CA_Disorder && f->una_idx == w->prev_una &&
	    pt->cwnd > w->prev_cwnd)
		w->sack_raises++;
	w->prev_state = pt->ca_state;
	w->prev_ssthresh = pt->ssthresh;
	w->prev_una = f->una_idx;
	w->prev_cwnd = pt->cwnd;
	trace_hash_point(pt, &w->h);
}

/* cubic over 100 Mbit/s, 10 ms RTT (min_rtt/4 = 2.5 ms), a queue that never overflows and
 * no loss, 0.2 % of the packets held back delay_us: every retransmission is spurious. */
static void run(uint32_t delay_us, uint64_t seed, struct watch *w, struct kbpf_tcp_flow_stats *fs,
		struct kbpf_tcp_sim_stats *st)
{
	struct kbpf_tcp_sim_opts o = { .sz = sizeof(o), .rate_bps = 100000000, .delay_us = 5000, .queue_pkts = 100000,
				       .reorder = 0.002, .reorder_delay_us = delay_us, .seed = seed };

	*w = (struct watch){ .h = { .h = 14695981039346656037ULL } };
	CHECK_EQ_U64(kbpf_tcp_sim_create(&o, &w->sim), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_add_flow(w->sim, &kbpf_tcp_cubic, NULL, NULL), 0);
	kbpf_tcp_sim_set_trace(w->sim, on_ack, w);
	CHECK_EQ_U64(kbpf_tcp_sim_run(w->sim, 5000000), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_flow_stats(w->sim, 0, fs), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_stats(w->sim, st), 0);
	kbpf_tcp_sim_free(w->sim);
	w->sim = NULL;
	/* no loss at all, and reorderings enough to tell */
	CHECK_EQ_U64(st->drops_queue + st->drops_random, 0);
	CHECK(st->pkts_reordered >= 50);
}

/* 4 ms: 33 packets overtake the delayed one, beyond the dupthresh (3) and beyond one step
 * of the window (2.5 ms), within two (5 ms). Before this change reo_wnd never grew: every
 * one of the ~90 reorderings was a spurious retransmission. */
static void test_first_spurious_then_window_grows(void)
{
	struct watch w;
	struct kbpf_tcp_flow_stats fs;
	struct kbpf_tcp_sim_stats st;

	run(4000, 5, &w, &fs, &st);
	/* (a) the first reordering: one retransmission, D-SACKed, and the recovery undone (the
	 * ACK of the delayed original echoes a timestamp older than the retransmission) */
	CHECK(w.reordered_at_first_dsack == 1 && w.retrans_at_first_dsack == 1);
	CHECK(w.recoveries == 1 && w.undone == 1);
	/* the D-SACK widened the window one step (to 2 × min_rtt/4), before the next reordering */
	CHECK(w.steps_seen_max == 2 && w.reordered_at_step == 1);
	/* (b) the later reorderings of the same degree: no retransmission at all */
	CHECK(fs.retransmits == 1 && fs.dsack_segs == 1 && fs.lost == 1);
	CHECK(fs.reord_seen >= st.pkts_reordered - 5);
	/* tcp_may_raise_cwnd: with reordering above 3, ACKs that only SACK raise cwnd too */
	CHECK(w.sack_raises > 0);
	/* the degree, in segments: 4 ms at 8.3 packets per ms */
	CHECK(fs.reordering >= 30 && fs.reordering <= 36);
	CHECK_EQ_U64(fs.reo_wnd_steps, 2);
}

/* 1 ms: within one step once reordering is known, so only the first one costs a
 * retransmission; the D-SACK still widens the window (reordering was seen by then). */
static void test_small_degree(void)
{
	struct watch w;
	struct kbpf_tcp_flow_stats fs;
	struct kbpf_tcp_sim_stats st;

	run(1000, 5, &w, &fs, &st);
	/* one retransmission, D-SACKed, its recovery undone; a degree of 1 ms at 8.3 per ms */
	CHECK(fs.retransmits == 1 && fs.dsack_segs == 1 && w.undone == 1);
	CHECK(fs.reordering >= 8 && fs.reordering <= 10);
}

/* (c) Same seed, same run; another seed, another run. */
static void test_deterministic(void)
{
	struct watch a, b, c;
	struct kbpf_tcp_flow_stats fs;
	struct kbpf_tcp_sim_stats st;

	run(4000, 5, &a, &fs, &st);
	run(4000, 5, &b, &fs, &st);
	run(4000, 6, &c, &fs, &st);
	CHECK(a.h.n > 10000);
	CHECK_EQ_U64(a.h.h, b.h.h);
	CHECK_EQ_U64(a.h.n, b.h.n);
	CHECK(a.h.h != c.h.h);
}

/* bbr's cong_control, recording the rate sample of each ACK that brought a D-SACK */
static struct tcp_congestion_ops bbr_rec;
static struct {
	uint64_t prior_dsack;
	unsigned int dsack_acks, dsack_acks_counted;
} rec;

static void bbr_rec_main(struct sock *sk, const struct rate_sample *rs)
{
	struct sim_flow *f = ((struct tcp_sock *)sk)->kbpf.owner;

	if (f->dsack_segs != rec.prior_dsack) {
		rec.dsack_acks++;
		/* what the D-SACK reported counts as delivered by this ACK */
		if (rs->acked_sacked >= (int64_t)(f->dsack_segs - rec.prior_dsack))
			rec.dsack_acks_counted++;
		rec.prior_dsack = f->dsack_segs;
	}
	kbpf_tcp_bbr.cong_control(sk, rs);
}

/* 6.12's tcp_dsack_seen counts the D-SACKed segments in delivered (a spurious retransmission
 * is delivered too): tcpi_delivered = the SYN + segments cumulatively ACKed + SACKed + D-SACKed,
 * and the ACK that brings a D-SACK has it in its rate sample's acked_sacked. Before, the
 * D-SACKed ones were missing from both. */
static void test_dsack_delivered(void)
{
	static const struct {
		const struct tcp_congestion_ops *ops;
		int sack_ideal;
	} cases[] = { { &kbpf_tcp_cubic, 0 }, { &kbpf_tcp_cubic, 1 }, { &bbr_rec, 0 } };

	bbr_rec = kbpf_tcp_bbr;
	bbr_rec.cong_control = bbr_rec_main;
	for (unsigned int c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct kbpf_tcp_sim_opts o = { .sz = sizeof(o), .rate_bps = 100000000, .delay_us = 5000,
					       .queue_pkts = 100000, .reorder = 0.01, .reorder_delay_us = 8000,
					       .seed = 5 };
		struct kbpf_tcp_flow_opts fo = { .sz = sizeof(fo), .sack_ideal = cases[c].sack_ideal };
		struct kbpf_tcp_sim *s = NULL;

		rec.prior_dsack = 0;
		rec.dsack_acks = rec.dsack_acks_counted = 0;
		CHECK_EQ_U64(kbpf_tcp_sim_create(&o, &s), 0);
		CHECK_EQ_U64(kbpf_tcp_sim_add_flow(s, cases[c].ops, &fo, NULL), 0);
		CHECK_EQ_U64(kbpf_tcp_sim_run(s, 3000000), 0);
		struct sim_flow *f = ((struct sim *)s)->flows[0];

		CHECK(f->dsack_segs > 0);
		CHECK_EQ_U64(f->snd.delivered, 1 + f->acked_segs + f->snd.sacked_out + f->dsack_segs);
		if (cases[c].ops == &bbr_rec) {
			CHECK(rec.dsack_acks > 0);
			CHECK_EQ_U64(rec.dsack_acks_counted, rec.dsack_acks);
		}
		kbpf_tcp_sim_free(s);
	}
}

static uint64_t hash_run(const struct kbpf_tcp_sim_opts *o)
{
	return trace_hash_cubic_bbr(o, NULL);
}

/* Without the option no draw is added: a caller built before the fields (smaller sz) and
 * one passing reorder 0 get the same run; a delay alone changes nothing. */
static void test_off_keeps_draws(void)
{
	struct kbpf_tcp_sim_opts o = { .sz = offsetof(struct kbpf_tcp_sim_opts, reorder), .rate_bps = 100000000,
				       .delay_us = 2000, .loss = 0.01, .seed = 9 };
	uint64_t old = hash_run(&o);

	o.sz = sizeof(o);
	CHECK_EQ_U64(hash_run(&o), old);
	o.reorder_delay_us = 3000;
	CHECK_EQ_U64(hash_run(&o), old);
	o.reorder = 0.01;
	CHECK(hash_run(&o) != old);
}

static void test_bad_opts(void)
{
	struct kbpf_tcp_sim_opts o = { .sz = sizeof(o), .reorder = 1.5 };
	struct kbpf_tcp_sim *s = NULL;

	CHECK_EQ_U64(kbpf_tcp_sim_create(&o, &s), -EINVAL);
	o.reorder = -0.1;
	CHECK_EQ_U64(kbpf_tcp_sim_create(&o, &s), -EINVAL);
	o.reorder = 0.5;
	o.reorder_delay_us = 20000000;
	CHECK_EQ_U64(kbpf_tcp_sim_create(&o, &s), -EINVAL);
	o.reorder_delay_us = 0;
	CHECK_EQ_U64(kbpf_tcp_sim_create(&o, &s), 0);
	kbpf_tcp_sim_free(s);
}

int main(void)
{
	RUN(test_first_spurious_then_window_grows);
	RUN(test_small_degree);
	RUN(test_deterministic);
	RUN(test_dsack_delivered);
	RUN(test_off_keeps_draws);
	RUN(test_bad_opts);
	return test_summary();
}
