/* SPDX-License-Identifier: Apache-2.0 */
/* The TSO sender model (kbpf_tcp_flow_opts.tso, issue 20 item 1): new data leaves in
 * bursts of tcp_tso_autosize segments that share one departure time and are paced as one
 * skb; deferral never stalls a finite transfer; runs stay deterministic. */
#include <errno.h>
#include <string.h>
#include <kbpf/tcp_sim.h>
#include "../../hosts/tcp/sim_internal.h"
#include "test.h"
#include "test_tcp_sim_util.h"

struct groups {
	unsigned int pairs, equal, max_group;
};

/* Adjacent outstanding segments with the same send time (EDT) belong to one burst. */
static struct groups seg_groups(struct kbpf_tcp_sim *sim)
{
	struct sim_flow *f = ((struct sim *)sim)->flows[0];
	struct groups g = { 0 };
	unsigned int run = 1;

	for (__u32 i = f->una_idx; i + 1 != f->nxt_idx && i != f->nxt_idx; i++) {
		const struct sim_seg *a = sim_seg(f, i), *b = sim_seg(f, i + 1);

		if ((a->flags | b->flags) & SEG_EVER_RETRANS)
			continue;
		g.pairs++;
		if (a->xmit_us == b->xmit_us) {
			g.equal++;
			run++;
		} else {
			run = 1;
		}
		if (run > g.max_group)
			g.max_group = run;
	}
	return g;
}

static struct kbpf_tcp_sim *mk_flow(const struct tcp_congestion_ops *ops, int tso, uint64_t bytes, uint64_t rate,
				    uint32_t delay)
{
	struct kbpf_tcp_sim_opts o = { .sz = sizeof(o), .rate_bps = rate, .delay_us = delay, .seed = 7 };
	struct kbpf_tcp_flow_opts fo = { .sz = sizeof(fo), .bytes = bytes, .tso = tso };
	struct kbpf_tcp_sim *s = NULL;

	CHECK_EQ_U64(kbpf_tcp_sim_create(&o, &s), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_add_flow(s, ops, &fo, NULL), 0);
	return s;
}

/* bbr paces itself: without TSO every segment gets its own departure time; with TSO the
 * pacing rate (≈ 12 MB/s at 100 Mbit/s: 12 kB per ms) makes bursts of 8 segments. */
static void test_paced_bursts(void)
{
	for (int tso = 0; tso <= 1; tso++) {
		struct kbpf_tcp_sim *s = mk_flow(&kbpf_tcp_bbr, tso, 0, 100000000, 10000);
		struct groups g;

		CHECK_EQ_U64(kbpf_tcp_sim_run(s, 3000000), 0);
		g = seg_groups(s);
		CHECK(g.pairs > 100);
		if (!tso) {
			CHECK_EQ_U64(g.equal, 0);
		} else {
			struct tcp_sock *tp = kbpf_tcp_sim_sender(s, 0);
			__u32 want = (__u32)((((struct sock *)tp)->sk_pacing_rate >> 10) / 1448);

			CHECK(g.equal * 10 > g.pairs * 7); /* most segments share their burst's EDT */
			CHECK(g.max_group >= 6 && g.max_group <= 10);
			CHECK(want >= 6 && want <= 10);
		}
		kbpf_tcp_sim_free(s);
	}
}

/* An unpaced cubic flow: bursts too (at most half of cwnd each), and a finite transfer
 * whose last skb is partial is not held back (its FIN): it completes. */
static void test_unpaced_finite(void)
{
	struct kbpf_tcp_flow_stats a, b;

	for (int tso = 0; tso <= 1; tso++) {
		struct kbpf_tcp_sim *s = mk_flow(&kbpf_tcp_cubic, tso, 3000001, 1000000000, 1000);

		CHECK_EQ_U64(kbpf_tcp_sim_run(s, 2000000), 0);
		CHECK_EQ_U64(kbpf_tcp_sim_flow_stats(s, 0, tso ? &b : &a), 0);
		kbpf_tcp_sim_free(s);
	}
	CHECK(a.completion_us > 0);
	CHECK(b.completion_us > 0);
	CHECK_EQ_U64(b.bytes_acked, 3000001);
	/* the runs differ: bursts and deferral changed the timing */
	CHECK(a.completion_us != b.completion_us || a.segs_sent != b.segs_sent);
}

/* tcp_tso_should_defer's last test as Linux 6.12 has it: with little of cwnd free, a partial
 * skb waits only for an ACK due within min(SRTT/2, 1 ms) (one SRTT after the oldest
 * segment out left). An ACK due in 15 ms of a 40 ms RTT is too late to wait for: send (the
 * pre-6.0 rule, "the oldest segment out is older than SRTT/2", deferred here); due in
 * 0.5 ms: defer, and the window is cwnd-limited. */
static void test_defer_rule(void)
{
	struct kbpf_tcp_sim *s = mk_flow(&kbpf_tcp_cubic, 1, 0, 100000000, 20000);
	struct sim_flow *f;
	struct tcp_sock *tp;
	bool lim = false;
	__u64 head_ns;

	CHECK_EQ_U64(kbpf_tcp_sim_run(s, 2000000), 0);
	f = ((struct sim *)s)->flows[0];
	tp = &f->snd;
	CHECK(tp->packets_out > 10);
	tp->snd_cwnd = tcp_packets_in_flight(tp) + 2; /* 2 segments free: less than cwnd/3 */
	tp->srtt_us = 40000 << 3;
	head_ns = sim_seg(f, f->una_idx)->xmit_us * NSEC_PER_USEC;
	tp->tcp_clock_cache = tp->tcp_wstamp_ns = head_ns + 25000000ULL; /* the ACK is due in 15 ms */
	CHECK(!sim_tso_should_defer(f, 8, 8, false, &lim));
	CHECK(!lim);
	tp->tcp_clock_cache = tp->tcp_wstamp_ns = head_ns + 39500000ULL; /* due in 0.5 ms */
	CHECK(sim_tso_should_defer(f, 8, 8, false, &lim));
	CHECK(lim);
	kbpf_tcp_sim_free(s);
}

static void test_determinism(void)
{
	struct kbpf_tcp_flow_opts fo = { .sz = sizeof(fo), .tso = 1 };

	CHECK_EQ_U64(trace_hash_mix(&fo), trace_hash_mix(&fo));
}

int main(void)
{
	RUN(test_paced_bursts);
	RUN(test_unpaced_finite);
	RUN(test_defer_rule);
	RUN(test_determinism);
	return test_summary();
}
