/* SPDX-License-Identifier: Apache-2.0 */
/* sch_fq on the sender's egress (kbpf_tcp_flow_opts.fq, issue 20 item 1): every socket is
 * SK_PACING_FQ, TCP stamps each packet with its departure time and fq holds it until then,
 * so cubic is paced at 200 %/120 % of cwnd/SRTT instead of leaving in ACK-clocked bursts;
 * bbr paces the same as with its internal pacing; fq's own rate pacing of packets without a
 * departure time, its horizon and watchdog slack; TSQ keeps fq short; runs stay
 * deterministic. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <kbpf/tcp_sim.h>
#include "../../hosts/tcp/sim_internal.h"
#include "test.h"
#include "test_tcp_sim_util.h"

#define MAXP 200000

/* Link entries of flow 0: when, and the pacing rate then. */
struct tap {
	__u64 *t;
	__u64 *rate;
	__u32 *idx;
	unsigned int n;
};

static void tap_fn(struct sim *s, struct sim_flow *f, __u32 idx)
{
	struct tap *tp = s->link_tap_ctx;

	if (f->id || tp->n >= MAXP)
		return;
	tp->t[tp->n] = s->now;
	tp->rate[tp->n] = ((struct sock *)&f->snd)->sk_pacing_rate;
	tp->idx[tp->n] = idx;
	tp->n++;
}

static void tap_init(struct tap *tp)
{
	tp->t = calloc(MAXP, sizeof(*tp->t));
	tp->rate = calloc(MAXP, sizeof(*tp->rate));
	tp->idx = calloc(MAXP, sizeof(*tp->idx));
	tp->n = 0;
}

static void tap_free(struct tap *tp)
{
	free(tp->t);
	free(tp->rate);
	free(tp->idx);
}

static struct kbpf_tcp_sim *mk(const struct tcp_congestion_ops *ops, int fq, uint64_t rate, uint32_t delay,
			       struct tap *tp)
{
	struct kbpf_tcp_sim_opts o = { .sz = sizeof(o), .rate_bps = rate, .delay_us = delay, .seed = 3 };
	struct kbpf_tcp_flow_opts fo = { .sz = sizeof(fo), .fq = fq };
	struct kbpf_tcp_sim *s = NULL;

	CHECK_EQ_U64(kbpf_tcp_sim_create(&o, &s), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_add_flow(s, ops, &fo, NULL), 0);
	if (tp) {
		((struct sim *)s)->link_tap = tap_fn;
		((struct sim *)s)->link_tap_ctx = tp;
	}
	return s;
}

struct spacing {
	unsigned int gaps; /* consecutive link entries looked at */
	unsigned int same; /* of which at the same instant (a burst) */
	unsigned int paced; /* of which at least half a segment's time at the pacing rate apart */
	unsigned int max_burst; /* most packets entering at one instant */
};

/* Gaps between link entries after the first skip packets (the initial window leaves
 * unpaced: tcp_update_skb_after_send paces from the 10th segment on). */
static struct spacing spacing(const struct tap *tp, unsigned int skip, __u32 mss)
{
	struct spacing sp = { 0 };
	unsigned int run = 1;

	for (unsigned int i = skip + 1; i < tp->n; i++) {
		__u64 gap = tp->t[i] - tp->t[i - 1];
		__u64 half = tp->rate[i - 1] && tp->rate[i - 1] != ~0UL ? (__u64)mss * NSEC_PER_SEC / tp->rate[i - 1] / 2 : 0;

		sp.gaps++;
		if (!gap) {
			sp.same++;
			run++;
		} else {
			run = 1;
		}
		if (run > sp.max_burst)
			sp.max_burst = run;
		if (half && gap + 1000 >= half) /* 1 µs: EDTs are in ns, the rate moves */
			sp.paced++;
	}
	return sp;
}

/* Without fq cubic is unpaced: an ACK of two segments releases three or four at once (slow
 * start), and the link sees bursts. With fq the same flow's packets enter the link one by
 * one, spaced at its pacing rate. The option is per flow and marks the socket. */
static void test_cubic_paced(void)
{
	struct spacing sp[2];

	for (int fq = 0; fq <= 1; fq++) {
		struct tap tp;
		struct kbpf_tcp_sim *s;
		struct tcp_sock *snd;

		tap_init(&tp);
		s = mk(&kbpf_tcp_cubic, fq, 100000000, 2000, &tp);
		CHECK_EQ_U64(kbpf_tcp_sim_run(s, 3000000), 0);
		snd = kbpf_tcp_sim_sender(s, 0);
		CHECK_EQ_U64(((struct sock *)snd)->sk_pacing_status, fq ? SK_PACING_FQ : SK_PACING_NONE);
		CHECK_EQ_U64(((struct sock *)kbpf_tcp_sim_receiver(s, 0))->sk_pacing_status, SK_PACING_NONE);
		CHECK(tp.n > 20000);
		sp[fq] = spacing(&tp, 10, 1448);
		kbpf_tcp_sim_free(s);
		tap_free(&tp);
	}
	/* no fq: ACK-clocked bursts */
	CHECK(sp[0].same * 4 > sp[0].gaps);
	CHECK(sp[0].max_burst >= 3);
	/* fq: paced; a retransmission may share an instant with new data (RACK, RTO) */
	CHECK(sp[1].same * 1000 < sp[1].gaps);
	CHECK(sp[1].paced * 100 >= sp[1].gaps * 99);
	CHECK(sp[1].max_burst <= 2);
}

/* bbr paces itself (SK_PACING_NEEDED: TCP holds each packet until its EDT); with fq its
 * status is FQ (bbr_init leaves a status it finds set), TCP hands the packet over at once
 * and fq holds it until the same EDT (plus up to the watchdog's 10 µs slack). Goodput,
 * retransmissions and the spacing agree. */
static void test_bbr_same(void)
{
	struct kbpf_tcp_flow_stats st[2];
	struct kbpf_tcp_sim_stats ss[2];
	struct spacing sp[2];

	for (int fq = 0; fq <= 1; fq++) {
		struct tap tp;
		struct kbpf_tcp_sim *s;

		tap_init(&tp);
		s = mk(&kbpf_tcp_bbr, fq, 100000000, 10000, &tp);
		CHECK_EQ_U64(kbpf_tcp_sim_run(s, 10000000), 0);
		CHECK_EQ_U64(((struct sock *)kbpf_tcp_sim_sender(s, 0))->sk_pacing_status,
			     fq ? SK_PACING_FQ : SK_PACING_NEEDED);
		CHECK_EQ_U64(kbpf_tcp_sim_flow_stats(s, 0, &st[fq]), 0);
		CHECK_EQ_U64(kbpf_tcp_sim_stats(s, &ss[fq]), 0);
		sp[fq] = spacing(&tp, 10, 1448);
		kbpf_tcp_sim_free(s);
		tap_free(&tp);
	}
	CHECK(st[0].goodput_bps > 90000000);
	CHECK(st[1].goodput_bps * 100 >= st[0].goodput_bps * 99 && st[1].goodput_bps * 100 <= st[0].goodput_bps * 101);
	CHECK(st[1].retransmits * 10 <= st[0].retransmits * 12 + 10 && st[0].retransmits * 10 <= st[1].retransmits * 12 + 10);
	CHECK(ss[1].queue_p50 <= ss[0].queue_p50 + 3 && ss[0].queue_p50 <= ss[1].queue_p50 + 3);
	for (int fq = 0; fq <= 1; fq++) {
		CHECK(sp[fq].same * 1000 < sp[fq].gaps);
		CHECK(sp[fq].paced * 100 >= sp[fq].gaps * 99);
	}
}

/* TSQ keeps what waits in fq to about 1 ms at the pacing rate (at least two skbs), far
 * below flow_plimit: nothing is dropped by fq. */
static void test_tsq_short_queue(void)
{
	struct kbpf_tcp_sim *s = mk(&kbpf_tcp_cubic, 1, 100000000, 2000, NULL);
	struct sim_fq_stats st;

	CHECK_EQ_U64(kbpf_tcp_sim_run(s, 3000000), 0);
	sim_fq_stats(((struct sim *)s)->flows[0], &st);
	CHECK(st.enqueued > 20000);
	CHECK(st.tsq_throttled > 0);
	CHECK(st.throttled > 1000);
	/* 100 Mbit/s × 1.2: 15 MB/s >> 10 ≈ 14.6 kB of truesize: about 6 segments */
	CHECK(st.max_qlen >= 2 && st.max_qlen <= 8);
	CHECK_EQ_U64(st.plimit_drops + st.horizon_drops, 0);
	kbpf_tcp_sim_free(s);
}

/* tcp_small_queue_check: TCP waits once what waits in fq (truesize: payload + ~1 KiB per
 * skb) exceeds max(2 × the skb's truesize, pacing rate >> 10), doubled for a
 * retransmission, unless the retransmission queue holds at most one skb; a release from fq
 * (TX completion) lets it write again. */
static void test_tsq_rule(void)
{
	struct kbpf_tcp_sim *s = mk(&kbpf_tcp_cubic, 1, 20000000, 20000, NULL);
	struct sim_flow *f = ((struct sim *)s)->flows[0];
	struct sock *sk = (struct sock *)&f->snd;
	struct sim_fq_stats st;
	__u64 t0 = ((struct sim *)s)->now;

	f->scripted = true; /* not established: set what it would */
	sk->sk_pacing_shift = 10;
	sk->sk_pacing_rate = 1000000; /* >> 10: 976 bytes, below 2 × 2472 */
	f->nxt_idx = 1;
	sim_fq_enqueue(f, 0, 0, t0 + 1000000, true);
	CHECK(!sim_fq_tsq_throttled(f, 1, 0)); /* 1 + 2472 ≤ 4944 */
	f->nxt_idx = 2;
	sim_fq_enqueue(f, 1, 0, t0 + 2000000, true);
	CHECK(!sim_fq_tsq_throttled(f, 1, 1)); /* a retransmission: 9888 */
	f->una_idx = 1; /* one skb out: send anyway */
	CHECK(!sim_fq_tsq_throttled(f, 1, 0));
	f->una_idx = 0;
	sk->sk_pacing_rate = 10000000; /* >> 10: 9765 bytes */
	CHECK(!sim_fq_tsq_throttled(f, 1, 0));
	sk->sk_pacing_rate = 1000000;
	CHECK(sim_fq_tsq_throttled(f, 1, 0)); /* 1 + 4944 > 4944 */
	sim_fq_stats(f, &st);
	CHECK_EQ_U64(st.tsq_throttled, 1);
	CHECK_EQ_U64(st.qlen, 2);
	CHECK_EQ_U64(kbpf_tcp_sim_run(s, 10000), 0);
	sim_fq_stats(f, &st);
	CHECK_EQ_U64(st.qlen, 0);
	kbpf_tcp_sim_free(s);
}

/* fq's own pacing for packets without a departure time (time_to_send = enqueue time), on a
 * flow with no receiver (scripted: the link tap sees each release): the first ten MTUs
 * (initial quantum) leave at once; then two per quantum (2 × 1514 bytes) at the socket's
 * rate, time_next_packet moving by quantum / rate less the watchdog's lateness (10 µs);
 * at or below 550 kbit/s each packet waits its own length / rate. */
static void test_rate_no_edt(void)
{
	for (int low = 0; low <= 1; low++) {
		struct tap tp;
		struct kbpf_tcp_sim *s;
		struct sim_flow *f;
		__u64 rate = low ? 50000 : 1000000, t0;

		tap_init(&tp);
		s = mk(&kbpf_tcp_cubic, 1, 20000000, 20000, &tp);
		f = ((struct sim *)s)->flows[0];
		f->scripted = true; /* no handshake, no receiver: packets stop at the link */
		((struct sock *)&f->snd)->sk_pacing_rate = rate;
		t0 = ((struct sim *)s)->now;
		for (__u32 i = 0; i < 30; i++) {
			CHECK(sim_fq_admit(f, 0, true));
			sim_fq_enqueue(f, i, 0, 0, true);
		}
		CHECK_EQ_U64(kbpf_tcp_sim_run(s, 2000000), 0);
		CHECK_EQ_U64(tp.n, 30);
		for (unsigned int i = 0; i < tp.n; i++)
			CHECK_EQ_U64(tp.idx[i], i);
		if (!low) {
			for (unsigned int i = 0; i < 10; i++)
				CHECK_EQ_U64(tp.t[i], t0);
			/* 10th packet: credit 0 → time_next_packet = t0 + 3028 µs; the watchdog
			 * runs 10 µs late; pairs after that */
			CHECK_EQ_U64(tp.t[10], t0 + 3028000 + 10000);
			CHECK_EQ_U64(tp.t[11], tp.t[10]);
			for (unsigned int i = 12; i + 1 < tp.n; i += 2) {
				CHECK_EQ_U64(tp.t[i + 1], tp.t[i]);
				CHECK_EQ_U64(tp.t[i] - tp.t[i - 2], 3028000);
			}
		} else {
			/* 1514 bytes at 50 kB/s: 30.28 ms each, the first at once */
			CHECK_EQ_U64(tp.t[0], t0);
			CHECK_EQ_U64(tp.t[1], t0 + 30280000 + 10000);
			for (unsigned int i = 2; i < tp.n; i++)
				CHECK_EQ_U64(tp.t[i] - tp.t[i - 1], 30280000);
		}
		kbpf_tcp_sim_free(s);
		tap_free(&tp);
	}
}

/* A departure time is kept (plus the watchdog's slack); one beyond the horizon (10 s) is
 * dropped, and TCP would be told. While a segment waits in fq, TCP does not retransmit it
 * (skb_still_in_host_queue). */
static void test_edt_horizon(void)
{
	struct tap tp;
	struct kbpf_tcp_sim *s;
	struct sim_flow *f;
	struct sim_fq_stats st;
	__u64 t0;

	tap_init(&tp);
	s = mk(&kbpf_tcp_cubic, 1, 20000000, 20000, &tp);
	f = ((struct sim *)s)->flows[0];
	f->scripted = true;
	t0 = ((struct sim *)s)->now;
	CHECK(sim_fq_admit(f, t0 + 500000000, true));
	sim_fq_enqueue(f, 0, 0, t0 + 500000000, true);
	CHECK(sim_fq_admit(f, t0 + 10 * NSEC_PER_SEC, true)); /* at the horizon: kept */
	CHECK(!sim_fq_admit(f, t0 + 10 * NSEC_PER_SEC + 1, true));
	CHECK(sim_fq_still_queued(f, 0));
	CHECK(!sim_fq_still_queued(f, 1));
	CHECK_EQ_U64(kbpf_tcp_sim_run(s, 1000000), 0);
	CHECK(!sim_fq_still_queued(f, 0));
	CHECK_EQ_U64(tp.n, 1);
	CHECK_EQ_U64(tp.t[0], t0 + 500000000 + 10000);
	sim_fq_stats(f, &st);
	CHECK_EQ_U64(st.horizon_drops, 1);
	CHECK_EQ_U64(st.rtx_host_queue, 1);
	CHECK_EQ_U64(st.qlen, 0);
	kbpf_tcp_sim_free(s);
	tap_free(&tp);
}

/* Same seed, same run, with fq (and with TSO too); and fq does change the run. */
static void test_determinism(void)
{
	struct kbpf_tcp_flow_opts fo = { .sz = sizeof(fo), .fq = 1 };
	uint64_t a = trace_hash_mix(&fo);

	CHECK_EQ_U64(a, trace_hash_mix(&fo));
	fo.tso = 1;
	CHECK_EQ_U64(trace_hash_mix(&fo), trace_hash_mix(&fo));
	fo.tso = 0;
	fo.fq = 0;
	CHECK(a != trace_hash_mix(&fo));
}

int main(void)
{
	RUN(test_cubic_paced);
	RUN(test_bbr_same);
	RUN(test_tsq_short_queue);
	RUN(test_tsq_rule);
	RUN(test_rate_no_edt);
	RUN(test_edt_horizon);
	RUN(test_determinism);
	return test_summary();
}
