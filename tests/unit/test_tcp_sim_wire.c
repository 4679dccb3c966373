/* SPDX-License-Identifier: Apache-2.0 */
/* SACK as on the wire and GRO stretch ACKs in the simulator (issue 20): a window with more
 * holes than an ACK has blocks recovers through the limited blocks; the wire model gives
 * the same trace as the idealised one where every out-of-order segment is ACKed; a late
 * D-SACK is recognised as Linux's; GRO gives ACKs that cover several segments; runs stay
 * deterministic. */
#include <errno.h>
#include <string.h>
#include <kbpf/tcp_sim.h>
#include "../../hosts/tcp/sim_internal.h"
#include "test.h"

struct watch {
	struct kbpf_tcp_sim *sim;
	unsigned int max_rcv_blocks, max_wire_blocks;
	uint32_t last_delivered, max_step;
	uint64_t points, hash;
};

/* Per ACK: the receiver's list and the options still on the reverse path; the largest
 * step of delivered (a stretch ACK); a hash of the trace. */
static void on_ack(const struct kbpf_tcp_trace_point *pt, void *ctx)
{
	struct watch *w = ctx;
	struct sim_flow *f = ((struct sim *)w->sim)->flows[0];

	if (f->rsack.num > w->max_rcv_blocks)
		w->max_rcv_blocks = f->rsack.num;
	for (__u32 i = 0; i < f->wsack_len; i++) {
		const struct sim_wire_sack *ws = &f->wsack[(f->wsack_head + i) & (f->wsack_cap - 1)];

		if (ws->n > w->max_wire_blocks)
			w->max_wire_blocks = ws->n;
	}
	if (pt->delivered - w->last_delivered > w->max_step && pt->ca_state == TCP_CA_Open && w->last_delivered)
		w->max_step = pt->delivered - w->last_delivered;
	w->last_delivered = pt->delivered;
	w->points++;
	const uint64_t v[] = { pt->time_us, pt->cwnd, pt->ssthresh, pt->srtt_us, pt->inflight, pt->delivered,
			       pt->lost, pt->retrans, pt->ca_state };
	for (unsigned int i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		w->hash = (w->hash ^ v[i]) * 0x100000001b3ULL;
}

struct run_cfg {
	int sack_ideal, sack_compress;
	uint32_t gro, gro_window_us;
	double loss;
	uint64_t bytes, seed;
	const uint32_t *drops;
	unsigned int nr_drops;
};

static void run(const struct run_cfg *c, struct kbpf_tcp_flow_stats *fs, struct watch *w)
{
	struct kbpf_tcp_sim_opts o = { .sz = sizeof(o), .rate_bps = 1000000000, .delay_us = 5000,
				       .queue_pkts = 100000, .loss = c->loss, .seed = c->seed ? c->seed : 3 };
	struct kbpf_tcp_flow_opts fo = { .sz = sizeof(fo), .bytes = c->bytes, .sack_ideal = c->sack_ideal,
					 .sack_compress = c->sack_compress, .gro = c->gro,
					 .gro_window_us = c->gro_window_us };
	struct kbpf_tcp_sim *s = NULL;

	memset(w, 0, sizeof(*w));
	CHECK_EQ_U64(kbpf_tcp_sim_create(&o, &s), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_add_flow(s, &kbpf_tcp_cubic, &fo, NULL), 0);
	for (unsigned int i = 0; i < c->nr_drops; i++)
		CHECK_EQ_U64(kbpf_tcp_sim_drop_segment(s, 0, c->drops[i]), 0);
	w->sim = s;
	kbpf_tcp_sim_set_trace(s, on_ack, w);
	CHECK_EQ_U64(kbpf_tcp_sim_run(s, 3000000), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_flow_stats(s, 0, fs), 0);
	kbpf_tcp_sim_free(s);
}

/* Six holes in one window, more than the 4 blocks a receiver keeps and the 3 an ACK
 * carries: every hole is retransmitted once, without an RTO, and the transfer completes. */
static void test_six_holes(void)
{
	static const uint32_t drops[] = { 3000, 3010, 3020, 3030, 3040, 3050 };
	struct run_cfg c = { .bytes = 20000000, .drops = drops, .nr_drops = 6 };
	struct kbpf_tcp_flow_stats fs;
	struct watch w;

	run(&c, &fs, &w);
	CHECK(fs.completion_us);
	CHECK_EQ_U64(fs.bytes_acked, 20000000);
	CHECK_EQ_U64(fs.retransmits, 6);
	CHECK_EQ_U64(fs.rtos, 0);
	CHECK_EQ_U64(w.max_rcv_blocks, SIM_NUM_SACKS); /* the list was full: blocks were dropped */
	CHECK_EQ_U64(w.max_wire_blocks, SIM_WIRE_SACKS);

	/* compressed, the held ACKs carry several blocks: the same recovery */
	c.sack_compress = 1;
	run(&c, &fs, &w);
	CHECK(fs.completion_us);
	CHECK_EQ_U64(fs.retransmits, 6);
	CHECK_EQ_U64(fs.rtos, 0);
	/* and so does the idealised model's compression (one block per held ACK) */
	c.sack_ideal = 1;
	run(&c, &fs, &w);
	CHECK(fs.completion_us);
	CHECK_EQ_U64(fs.retransmits, 6);
	CHECK_EQ_U64(fs.rtos, 0);
	CHECK_EQ_U64(w.max_rcv_blocks, 0);
}

/* Random loss: with an ACK per out-of-order segment on a lossless reverse path the wire's
 * blocks tell the sender what the idealised model did, so the traces are equal; and the
 * same seed gives the same trace. */
static void test_same_as_ideal_and_deterministic(void)
{
	struct run_cfg c = { .loss = 0.01, .seed = 7 };
	struct kbpf_tcp_flow_stats a, b, d;
	struct watch wa, wb, wd;

	run(&c, &a, &wa);
	run(&c, &d, &wd);
	c.sack_ideal = 1;
	run(&c, &b, &wb);
	CHECK(a.retransmits > 30);
	CHECK_EQ_U64(wa.hash, wd.hash);
	CHECK_EQ_U64(wa.points, wd.points);
	CHECK_EQ_U64(wa.hash, wb.hash);
	CHECK_EQ_U64(a.retransmits, b.retransmits);
	CHECK_EQ_U64(a.bytes_acked, b.bytes_acked);
	CHECK(wa.max_wire_blocks >= 2);
	CHECK_EQ_U64(wb.max_wire_blocks, 0); /* the idealised model sends no block list */
}

/* GRO: at 1 Gbit/s a segment arrives every 12 µs, so a 100 µs window merges 8 (of the
 * segments sent in one millisecond: only those share a timestamp): the sender sees ACKs
 * of 8 segments and far fewer ACKs; the transfer is the same. gro = 1 is off.
 * Deterministic too. */
static void test_gro_stretch_acks(void)
{
	struct run_cfg c = { .bytes = 20000000 };
	struct kbpf_tcp_flow_stats a, b, g1, g2;
	struct watch wa, wb, w1, w2;

	run(&c, &a, &wa);
	c.gro = 1;
	run(&c, &g1, &w1);
	CHECK_EQ_U64(wa.hash, w1.hash);
	c.gro = 8;
	run(&c, &b, &wb);
	run(&c, &g2, &w2);
	CHECK_EQ_U64(wb.hash, w2.hash);
	CHECK(a.completion_us && b.completion_us);
	CHECK_EQ_U64(b.bytes_acked, 20000000);
	CHECK_EQ_U64(b.retransmits, 0);
	CHECK(wa.max_step <= 2);
	/* an aggregate of 8, plus at most one segment a delayed ACK held before it */
	CHECK(wb.max_step >= 8 && wb.max_step <= 9);
	CHECK(b.acks * 3 < a.acks);
	/* a window shorter than the spacing merges nothing */
	c.gro_window_us = 5;
	run(&c, &b, &wb);
	CHECK_EQ_U64(wb.max_step, wa.max_step);
}

/* A late D-SACK on the wire, recognised as Linux's tcp_check_dsack does (its block lies
 * below the cumulative ACK): it proves the one retransmission of the episode spurious and
 * the reduction is undone. The same D-SACK again is dubious (more segments D-SACKed than
 * ever retransmitted, tcp_dsack_seen) and ignored. */
static void test_late_dsack_undo(void)
{
	struct kbpf_tcp_sim_opts o = { .sz = sizeof(o), .rate_bps = 20000000, .delay_us = 20000,
				       .queue_pkts = 10000, .seed = 1 };
	struct kbpf_tcp_sim *s = NULL;
	uint64_t t = 0;

	CHECK_EQ_U64(kbpf_tcp_sim_create(&o, &s), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_add_flow(s, &kbpf_tcp_reno, NULL, NULL), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_drop_segment(s, 0, 100), 0);
	struct sim_flow *f = ((struct sim *)s)->flows[0];
	struct tcp_sock *tp = &f->snd;

	/* until the recovery of segment 100 is over */
	do {
		t += 1000;
		CHECK_EQ_U64(kbpf_tcp_sim_run(s, t), 0);
	} while (t < 3000000 && !(tp->total_retrans == 1 && (__s32)(f->una_idx - 101) >= 0 &&
				  tp->inet_conn.icsk_ca_state == TCP_CA_Open));
	CHECK_EQ_U64(tp->total_retrans, 1);
	CHECK(tp->undo_marker != 0);
	CHECK_EQ_U64(tp->undo_retrans, 1);
	__u32 reduced = tp->snd_ssthresh, prior = tp->prior_ssthresh;

	CHECK(prior > reduced);
	struct sim_wire_sack w = { .n = 1, .b = { { 100, 101 } } };

	sim_flow_clock(f);
	CHECK(sim_wire_sack_push(f, &w));
	sim_sender_ack(f, f->una_idx, 0, PKT_SACKLIST);
	CHECK_EQ_U64(f->dsack_dups, 1);
	CHECK_EQ_U64(tp->undo_marker, 0);
	CHECK_EQ_U64(tp->snd_ssthresh, prior);
	/* again: dubious, nothing changes */
	tp->undo_marker = tp->snd_una - 1;
	tp->undo_retrans = 1;
	CHECK(sim_wire_sack_push(f, &w));
	sim_sender_ack(f, f->una_idx, 0, PKT_SACKLIST);
	CHECK_EQ_U64(f->dsack_dups, 2);
	CHECK_EQ_U64(tp->undo_retrans, 1);
	CHECK(tp->undo_marker != 0);
	kbpf_tcp_sim_free(s);
}

/* Bad GRO settings are refused. */
static void test_bad_opts(void)
{
	struct kbpf_tcp_sim *s = NULL;
	struct kbpf_tcp_flow_opts fo = { .sz = sizeof(fo), .gro = KBPF_TCP_SIM_MAX_GRO_SEGS + 1 };

	CHECK_EQ_U64(kbpf_tcp_sim_create(NULL, &s), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_add_flow(s, &kbpf_tcp_cubic, &fo, NULL), -EINVAL);
	fo.gro = 8;
	fo.gro_window_us = 2000000;
	CHECK_EQ_U64(kbpf_tcp_sim_add_flow(s, &kbpf_tcp_cubic, &fo, NULL), -EINVAL);
	fo.gro_window_us = 0;
	CHECK_EQ_U64(kbpf_tcp_sim_add_flow(s, &kbpf_tcp_cubic, &fo, NULL), 0);
	kbpf_tcp_sim_free(s);
}

int main(void)
{
	RUN(test_six_holes);
	RUN(test_same_as_ideal_and_deterministic);
	RUN(test_gro_stretch_acks);
	RUN(test_late_dsack_undo);
	RUN(test_bad_opts);
	return test_summary();
}
