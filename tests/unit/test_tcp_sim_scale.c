/* SPDX-License-Identifier: Apache-2.0 */
/* The simulator at data-centre rates (issue 20 item 6): exact 64/128-bit arithmetic of the
 * summary, statistics equal to the trace at 100 Gbit/s, sequence-space wrap, many flows. */
#include <errno.h>
#include <string.h>
#include <kbpf/tcp_sim.h>
#include "../../hosts/tcp/sim_internal.h"
#include "test.h"

static void test_muldiv(void)
{
	/* the goodput of 2.4 GB in 1 s: bytes × 8 × 10^9 is past 2^64 */
	CHECK_EQ_U64(sim_muldiv(2400000000ULL * 8, 1000000000ULL, 1000000000ULL), 19200000000ULL);
	CHECK_EQ_U64(sim_muldiv_longdiv(2400000000ULL * 8, 1000000000ULL, 1000000000ULL), 19200000000ULL);
	/* 100 Gbit/s for 60 s, minus headers: 724 GB of payload */
	CHECK_EQ_U64(sim_muldiv(724000000000ULL * 8, 1000000000ULL, 60000000000ULL), 96533333333ULL);
	CHECK_EQ_U64(sim_muldiv_longdiv(724000000000ULL * 8, 1000000000ULL, 60000000000ULL), 96533333333ULL);
	/* saturation instead of a wrapped quotient */
	CHECK_EQ_U64(sim_muldiv(~0ULL, 3, 2), ~0ULL);
	CHECK_EQ_U64(sim_muldiv_longdiv(~0ULL, 3, 2), ~0ULL);
	CHECK_EQ_U64(sim_muldiv(~0ULL, ~0ULL, ~0ULL), ~0ULL);
	CHECK_EQ_U64(sim_muldiv_longdiv(~0ULL, ~0ULL, ~0ULL), ~0ULL);
	CHECK_EQ_U64(sim_muldiv_longdiv(~0ULL, 1ULL << 63, 1ULL << 63), ~0ULL);
	/* the two agree on mixed operands */
	uint64_t x = 88172645463325252ULL;
	for (int i = 0; i < 10000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		uint64_t a = x, b = x >> (i % 64), c = (x * 2654435761ULL >> (i % 61)) | 1;
		CHECK_EQ_U64(sim_muldiv(a, b, c), sim_muldiv_longdiv(a, b, c));
	}
}

struct last {
	uint32_t delivered[4];
	uint64_t n;
};

static void last_trace(const struct kbpf_tcp_trace_point *p, void *ctx)
{
	struct last *l = ctx;

	if (p->flow < 4)
		l->delivered[p->flow] = p->delivered;
	l->n++;
}

/* A single flow at 100 Gbit/s: 0.4 s is enough to pass both 2.3 GB (where bytes × 8 × 10^9
 * overflowed) and 4 GB (the 32-bit sequence space wraps). The summary must equal what the
 * trace delivered. The 60 s run is `kbpf-bench-tcp-sim-rate` (bench/). */
static void test_goodput_100g(void)
{
	struct kbpf_tcp_sim_opts o = { .sz = sizeof(o), .rate_bps = 100000000000ULL, .delay_us = 20,
				       .queue_pkts = 200000, .seed = 1 };
	struct kbpf_tcp_sim *s = NULL;
	struct kbpf_tcp_flow_stats fs;
	struct last l = { 0 };
	const uint64_t dur_us = 400000;

	CHECK_EQ_U64(kbpf_tcp_sim_create(&o, &s), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_add_flow(s, &kbpf_tcp_cubic, NULL, NULL), 0);
	kbpf_tcp_sim_set_trace(s, last_trace, &l);
	CHECK_EQ_U64(kbpf_tcp_sim_run(s, dur_us), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_flow_stats(s, 0, &fs), 0);
	CHECK(fs.bytes_acked > 4400000000ULL);
	CHECK_EQ_U64(fs.retransmits, 0); /* the queue holds slow start's overshoot */
	/* delivered counts the SYN */
	CHECK_EQ_U64(fs.bytes_acked, (uint64_t)(l.delivered[0] - 1) * 1448);
	CHECK_EQ_U64(fs.goodput_bps, (uint64_t)((long double)fs.bytes_acked * 8 * 1e6L / dur_us));
	CHECK(fs.goodput_bps > 90000000000ULL && fs.goodput_bps < 96533333334ULL);
	CHECK_EQ_U64(fs.acks_old, 0);
	kbpf_tcp_sim_free(s);
}

/* dctcp's receiver ACKs an earlier rcv_nxt when the CE state changes; once more than 4 GB
 * passed, that ACK's segment came out of the wrapped sequence number as a stale index and
 * the sender ignored it. */
static void test_dctcp_seq_wrap(void)
{
	struct kbpf_tcp_sim_opts o = { .sz = sizeof(o), .rate_bps = 100000000000ULL, .delay_us = 20,
				       .queue_pkts = 200000, .ecn_threshold_pkts = 60, .seed = 3 };
	struct kbpf_tcp_sim *s = NULL;
	struct kbpf_tcp_flow_stats fs;

	CHECK_EQ_U64(kbpf_tcp_sim_create(&o, &s), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_add_flow(s, &kbpf_tcp_dctcp, NULL, NULL), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_run(s, 500000), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_flow_stats(s, 0, &fs), 0);
	CHECK(fs.bytes_acked > 4500000000ULL);
	CHECK(fs.ecn_ok);
	CHECK(fs.delivered_ce > 1000);
	CHECK(fs.acks > 1000000);
	CHECK_EQ_U64(fs.acks_old, 0);
	kbpf_tcp_sim_free(s);
}

int main(void)
{
	RUN(test_muldiv);
	RUN(test_goodput_100g);
	RUN(test_dctcp_seq_wrap);
	return test_summary();
}
