/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the simulator's unit tests: a run summarised as one hash of its per-ACK trace,
 * for "same seed, same run" checks. */
#ifndef TEST_TCP_SIM_UTIL_H
#define TEST_TCP_SIM_UTIL_H

#include <stdint.h>
#include <kbpf/tcp_sim.h>
#include "test.h"

struct trace_hash {
	uint64_t h;
	unsigned long n;
};

static inline void trace_hash_point(const struct kbpf_tcp_trace_point *p, void *ctx)
{
	struct trace_hash *h = ctx;
	const uint64_t w[] = { p->time_us, p->flow, p->cwnd, p->ssthresh, p->srtt_us, p->pacing_rate,
			       p->inflight, p->queue_pkts, p->delivered, p->lost, p->retrans, p->ca_state };

	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		h->h = (h->h ^ w[i]) * 0x100000001b3ULL;
	h->n++;
}

/* dctcp, cubic and bbr flows with options fo over 100 Mbit/s, 4 ms RTT, 0.5 % loss and
 * CE marking at 10 packets, seed 11, for 3 s: the hash of the trace. */
static inline uint64_t trace_hash_mix(const struct kbpf_tcp_flow_opts *fo)
{
	struct kbpf_tcp_sim_opts o = { .sz = sizeof(o), .rate_bps = 100000000, .delay_us = 2000, .loss = 0.005,
				       .ecn_threshold_pkts = 10, .seed = 11 };
	struct kbpf_tcp_sim *s = NULL;
	struct trace_hash h = { .h = 14695981039346656037ULL };

	CHECK_EQ_U64(kbpf_tcp_sim_create(&o, &s), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_add_flow(s, &kbpf_tcp_dctcp, fo, NULL), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_add_flow(s, &kbpf_tcp_cubic, fo, NULL), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_add_flow(s, &kbpf_tcp_bbr, fo, NULL), 0);
	kbpf_tcp_sim_set_trace(s, trace_hash_point, &h);
	CHECK_EQ_U64(kbpf_tcp_sim_run(s, 3000000), 0);
	CHECK(h.n > 10000);
	kbpf_tcp_sim_free(s);
	return h.h;
}

/* cubic and bbr flows with options fo (NULL: defaults) on the simulator o, for 2 s: the
 * hash of the trace (runs to compare with and without an option). */
static inline uint64_t trace_hash_cubic_bbr(const struct kbpf_tcp_sim_opts *o, const struct kbpf_tcp_flow_opts *fo)
{
	struct kbpf_tcp_sim *s = NULL;
	struct trace_hash h = { .h = 14695981039346656037ULL };

	CHECK_EQ_U64(kbpf_tcp_sim_create(o, &s), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_add_flow(s, &kbpf_tcp_cubic, fo, NULL), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_add_flow(s, &kbpf_tcp_bbr, fo, NULL), 0);
	kbpf_tcp_sim_set_trace(s, trace_hash_point, &h);
	CHECK_EQ_U64(kbpf_tcp_sim_run(s, 2000000), 0);
	kbpf_tcp_sim_free(s);
	return h.h;
}

#endif
