/* SPDX-License-Identifier: Apache-2.0 */
/* Undo of spurious recoveries as Linux 6.12 does it (issue 20): the timestamp test at the
 * end of Recovery and in Loss (tcp_may_undo with tcp_packet_delayed: the ACK echoes a
 * timestamp older than the first retransmission), and F-RTO (net.ipv4.tcp_frto 2) for a
 * spurious RTO where no timestamp tells. Each case holds the retransmissions back long
 * enough that no D-SACK can undo first: the undo must come with the ACK of the delayed
 * originals. */
#include <stdio.h>
#include <string.h>
#include <kbpf/tcp_sim.h>
#include "../../hosts/tcp/sim_internal.h"
#include "test.h"

/* The path (test hook sim.link_delay): one chosen original is held back by its own delay,
 * or every packet due at the receiver within a stall is held until the stall ends; every
 * retransmission is held rtx_hold_ns, so that its D-SACK comes long after. */
struct path {
	__u32 delay_idx;
	__u64 delay_ns;
	__u64 stall_from, stall_to; /* absolute ns; 0: no stall */
	__u64 rtx_hold_ns;
	__u32 max_idx; /* highest segment sent + 1 */
};

static struct path P;

static __u64 path_delay(struct sim *s, struct sim_flow *f, __u32 idx, __u64 arrive)
{
	(void)s;
	(void)f;
	if ((__s32)(idx - P.max_idx) < 0)
		return P.rtx_hold_ns; /* a retransmission */
	P.max_idx = idx + 1;
	if (P.delay_ns && idx == P.delay_idx)
		return P.delay_ns;
	if (P.stall_to && arrive >= P.stall_from && arrive < P.stall_to)
		return P.stall_to - arrive;
	return 0;
}

struct watch {
	struct kbpf_tcp_sim *sim;
	uint8_t prev_state;
	uint32_t prev_ssthresh, prev_cwnd;
	uint32_t ssthresh_before, cwnd_before; /* before the reduction */
	unsigned int episodes; /* Recovery or Loss entries */
	unsigned int exits, undone_at_exit; /* returns to Open/Disorder; with ssthresh restored */
	uint64_t dsack_at_exit;
	uint32_t cwnd_at_exit;
};

static void on_ack(const struct kbpf_tcp_trace_point *pt, void *ctx)
{
	struct watch *w = ctx;
	struct sim_flow *f = ((struct sim *)w->sim)->flows[0];
	bool in = pt->ca_state >= TCP_CA_Recovery, was = w->prev_state >= TCP_CA_Recovery;

	if (in && !was) {
		w->episodes++;
		w->ssthresh_before = w->prev_ssthresh;
		w->cwnd_before = w->prev_cwnd;
	}
	if (!in && was) {
		w->exits++;
		/* only an undo raises ssthresh on the way out */
		if (pt->ssthresh > w->prev_ssthresh)
			w->undone_at_exit++;
		w->dsack_at_exit = f->dsack_segs;
		w->cwnd_at_exit = pt->cwnd;
	}
	w->prev_state = pt->ca_state;
	w->prev_ssthresh = pt->ssthresh;
	w->prev_cwnd = pt->cwnd;
}

/* The RTO and the loss probe fire from their own timers, not from an ACK: the state before
 * them is what the last ACK left. */
static void run(int sack_ideal, struct watch *w, struct kbpf_tcp_flow_stats *fs)
{
	struct kbpf_tcp_sim_opts o = { .sz = sizeof(o), .rate_bps = 20000000, .delay_us = 10000,
				       .queue_pkts = 100000, .seed = 3 };
	struct kbpf_tcp_flow_opts fo = { .sz = sizeof(fo), .sack_ideal = sack_ideal };
	struct kbpf_tcp_sim *s = NULL;

	memset(w, 0, sizeof(*w));
	CHECK_EQ_U64(kbpf_tcp_sim_create(&o, &s), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_add_flow(s, &kbpf_tcp_cubic, &fo, NULL), 0);
	((struct sim *)s)->link_delay = path_delay;
	w->sim = s;
	kbpf_tcp_sim_set_trace(s, on_ack, w);
	CHECK_EQ_U64(kbpf_tcp_sim_run(s, 3000000), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_flow_stats(s, 0, fs), 0);
	kbpf_tcp_sim_free(s);
}

/* Each case: the path, the SACK model, and what must happen. undone: the one episode's
 * reduction was undone by the ACK that ended it, before any D-SACK; retransmits: exactly
 * (0: not checked). */
struct undo_case {
	const char *name;
	struct path path;
	int sack_ideal;
	uint64_t rtos, retransmits;
};

#define MS NSEC_PER_MSEC
static const struct undo_case cases[] = {
	/* One original held 150 ms (cwnd is about 110 packets, 66 ms at the link rate): RACK
	 * marks it lost after three SACKs, Recovery retransmits it; the original fills the
	 * hole after everything up to high_seq was SACKed, so its ACK ends Recovery, echoing
	 * the original's timestamp, older than the retransmission: 6.12 undoes right there
	 * (tcp_try_undo_recovery). Before, the model waited for the D-SACK (1 s later) and
	 * left Recovery with cwnd = ssthresh. */
	{ "end of Recovery", { .delay_idx = 1500, .delay_ns = 150 * MS, .rtx_hold_ns = 1000 * MS }, 0, 0, 0 },
	/* The same held 50 ms: the original's ACK is partial (tcp_try_undo_partial undoes, the
	 * retransmission being the only one out). It also ACKs the retransmission but echoes
	 * the original's timestamp, so it is no RTT sample for RACK (tcp_skb_spurious_retrans)
	 * and RACK's reference stays. Before, the retransmission's send time became the
	 * reference and a segment sent before it was retransmitted in vain (2 retransmits). */
	{ "partial, no RACK sample", { .delay_idx = 1500, .delay_ns = 50 * MS, .rtx_hold_ns = 1000 * MS }, 0, 0, 1 },
	/* Every packet due at the receiver in [1.3 s, 2.1 s) arrives at 2.1 s (a stall, in
	 * order): the RTO fires and retransmits the head. The first ACK after the stall echoes
	 * the original head's timestamp, older than the retransmission: tcp_try_undo_loss
	 * undoes the RTO's reduction and unmarks the losses, so nothing else is retransmitted.
	 * Before, Loss ended without undo and 140 segments were retransmitted from cwnd 1. */
	{ "Loss", { .stall_from = SIM_T0_NS + 1300 * MS, .stall_to = SIM_T0_NS + 2100 * MS, .rtx_hold_ns = 500 * MS },
	  0, 1, 1 },
};

static void test_undo(void)
{
	for (unsigned int c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const struct undo_case *k = &cases[c];
		struct watch w;
		struct kbpf_tcp_flow_stats fs;

		P = k->path;
		run(k->sack_ideal, &w, &fs);
		if (w.undone_at_exit != 1 || w.dsack_at_exit)
			fprintf(stderr, "case %s:\n", k->name);
		CHECK_EQ_U64(fs.rtos, k->rtos);
		CHECK_EQ_U64(w.episodes, 1);
		CHECK_EQ_U64(w.exits, 1);
		CHECK_EQ_U64(w.undone_at_exit, 1);
		CHECK_EQ_U64(w.dsack_at_exit, 0);
		CHECK(w.cwnd_at_exit >= w.cwnd_before * 3 / 4);
		CHECK(fs.dsack_segs >= 1); /* the held retransmission's, later */
		if (k->retransmits)
			CHECK_EQ_U64(fs.retransmits, k->retransmits);
	}
}

/* The ACK that fills a hole with its retransmission ACKs retransmitted data only: no
 * sequence RTT sample (Karn), but 6.12 takes one from its TSecr (tcp_ack_update_rtt, in
 * ms, at least 1 ms): SRTT moves on that ACK. Before, it stayed. */
static struct {
	struct kbpf_tcp_sim *sim;
	__u32 prev_una, prev_srtt;
	unsigned int filled, moved;
	long sample_us, true_us;
} R;

static void on_ack_rtt(const struct kbpf_tcp_trace_point *pt, void *ctx)
{
	struct sim_flow *f = ((struct sim *)R.sim)->flows[0];

	(void)ctx;
	if ((__s32)(R.prev_una - 1500) <= 0 && (__s32)(f->una_idx - 1500) > 0 && R.prev_una) {
		R.filled++;
		if (f->snd.srtt_us != R.prev_srtt)
			R.moved++;
		R.sample_us = (long)((__u32)(f->snd.tcp_mstamp / 1000) - f->ack_tsecr) * 1000;
		R.true_us = (long)(f->snd.tcp_mstamp - sim_seg(f, 1500)->xmit_us);
	}
	R.prev_una = f->una_idx;
	R.prev_srtt = f->snd.srtt_us;
	(void)pt;
}

static void test_ts_rtt_sample(void)
{
	struct kbpf_tcp_sim_opts o = { .sz = sizeof(o), .rate_bps = 20000000, .delay_us = 10000,
				       .queue_pkts = 100000, .seed = 3 };

	memset(&R, 0, sizeof(R));
	CHECK_EQ_U64(kbpf_tcp_sim_create(&o, &R.sim), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_add_flow(R.sim, &kbpf_tcp_cubic, NULL, NULL), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_drop_segment(R.sim, 0, 1500), 0);
	kbpf_tcp_sim_set_trace(R.sim, on_ack_rtt, NULL);
	CHECK_EQ_U64(kbpf_tcp_sim_run(R.sim, 2000000), 0);
	kbpf_tcp_sim_free(R.sim);
	CHECK_EQ_U64(R.filled, 1);
	CHECK_EQ_U64(R.moved, 1);
	/* the retransmission's RTT, in whole ms */
	CHECK(R.sample_us >= R.true_us - 1000 && R.sample_us <= R.true_us + 1000);
}

/* The ACK of a loss probe that retransmitted (tcp_process_tlp_ack): only a D-SACK of the
 * probe itself (6.12's FLAG_DSACK_TLP, set by tcp_dsack_seen) says the original arrived
 * too; a D-SACK of another segment in an ACK past the probe is a repaired loss, and cwnd is
 * reduced as for any. kbpf took any D-SACK as the probe's. */
static void test_tlp_dsack(void)
{
	struct kbpf_tcp_sim_opts o = { .sz = sizeof(o), .rate_bps = 20000000, .delay_us = 10000, .seed = 1 };

	for (int own = 0; own < 2; own++) {
		struct kbpf_tcp_sim *sim = NULL;

		CHECK_EQ_U64(kbpf_tcp_sim_create(&o, &sim), 0);
		CHECK_EQ_U64(kbpf_tcp_sim_add_flow(sim, &kbpf_tcp_cubic, NULL, NULL), 0);
		CHECK_EQ_U64(kbpf_tcp_sim_run(sim, 100000), 0);
		struct sim_flow *f = ((struct sim *)sim)->flows[0];
		struct tcp_sock *tp = &f->snd;
		__u32 cwnd = tcp_snd_cwnd(tp), ssthresh = tp->snd_ssthresh;

		CHECK(cwnd > 10);
		CHECK_EQ_U64(tp->inet_conn.icsk_ca_state, TCP_CA_Open);
		tp->tlp_high_seq = tp->snd_una + 1448;
		f->tlp_retrans = true;
		sim_process_tlp_ack(f, tp->snd_una + 2 * 1448,
				    FLAG_DSACKING_ACK | FLAG_SND_UNA_ADVANCED | FLAG_DATA_ACKED |
					    (own ? FLAG_DSACK_TLP : 0));
		CHECK_EQ_U64(tp->tlp_high_seq, 0);
		if (own) { /* no loss: nothing reduced */
			CHECK_EQ_U64(tcp_snd_cwnd(tp), cwnd);
			CHECK_EQ_U64(tp->snd_ssthresh, ssthresh);
		} else { /* the probe repaired a loss: CWR's reduction, ended at once */
			CHECK(tcp_snd_cwnd(tp) < cwnd);
			CHECK(tp->snd_ssthresh < cwnd);
		}
		kbpf_tcp_sim_free(sim);
	}
}

int main(void)
{
	RUN(test_tlp_dsack);
	RUN(test_ts_rtt_sample);
	RUN(test_undo);
	return test_summary();
}
