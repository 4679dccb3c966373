/* SPDX-License-Identifier: Apache-2.0 */
/* The bottleneck queue sampled on a clock (kbpf_tcp_sim_set_queue_sampler, `kbpf tcp-sim
 * --queue-log`), as the kernel comparison's link emulator samples its own: the queue at each
 * instant is the packets whose serialization has not ended, whatever the ACKs do; sampling
 * changes nothing in the run. */
#include <errno.h>
#include <string.h>
#include <kbpf/tcp_sim.h>
#include "test_tcp_sim_util.h"

#define MAX_SAMPLES 4096

struct samples {
	unsigned int n;
	uint64_t t[MAX_SAMPLES];
	uint32_t q[MAX_SAMPLES];
};

static void on_sample(uint64_t time_us, uint32_t queue_pkts, void *ctx)
{
	struct samples *s = ctx;

	if (s->n < MAX_SAMPLES) {
		s->t[s->n] = time_us;
		s->q[s->n] = queue_pkts;
	}
	s->n++;
}

/* One flow writes 10 segments (its initial window) once the handshake's RTT is over: the 10
 * packets reach the 10 Mbit/s bottleneck together at 10 ms and leave it one every 1.2 ms
 * (1500 bytes on the wire), so at t ms the queue holds the packets still being sent:
 * 10 - floor((t - 10) / 1.2). The ACKs come back 10 ms after each departure: a queue taken
 * at ACKs (the trace's) never sees more than the packets behind the one ACKed. */
static void test_burst_drains(void)
{
	struct kbpf_tcp_sim_opts o = { .sz = sizeof(o), .rate_bps = 10000000, .delay_us = 5000, .seed = 1 };
	struct kbpf_tcp_flow_opts fo = { .sz = sizeof(fo), .bytes = 10 * 1448 };
	struct kbpf_tcp_sim *sim = NULL;
	static struct samples s;

	memset(&s, 0, sizeof(s));
	CHECK_EQ_U64(kbpf_tcp_sim_create(&o, &sim), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_add_flow(sim, &kbpf_tcp_reno, &fo, NULL), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_set_queue_sampler(sim, 1000, on_sample, &s), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_run(sim, 40000), 0);
	CHECK_EQ_U64(s.n, 40); /* 1 ms … 40 ms, the end included */
	for (unsigned int i = 0; i < s.n && i < MAX_SAMPLES; i++) {
		uint64_t t = s.t[i];
		uint32_t want = 0;

		CHECK_EQ_U64(t, (i + 1) * 1000ULL);
		if (t >= 10000) { /* enqueued at 10 ms: the sample at 10 ms is the queue just after */
			uint64_t gone = (t - 10000) / 1200;

			want = gone < 10 ? (uint32_t)(10 - gone) : 0;
		}
		if (s.q[i] != want)
			fprintf(stderr, "  queue at %llu us: %u, want %u\n", (unsigned long long)t, s.q[i], want);
		CHECK_EQ_U64(s.q[i], want);
	}
	/* a second run continues on the same clock; NULL stops it */
	CHECK_EQ_U64(kbpf_tcp_sim_run(sim, 42500), 0);
	CHECK_EQ_U64(s.n, 42);
	CHECK_EQ_U64(kbpf_tcp_sim_set_queue_sampler(sim, 1000, NULL, NULL), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_run(sim, 50000), 0);
	CHECK_EQ_U64(s.n, 42);
	/* set again mid-run: from the next multiple of the interval on */
	CHECK_EQ_U64(kbpf_tcp_sim_set_queue_sampler(sim, 3000, on_sample, &s), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_run(sim, 58000), 0);
	CHECK_EQ_U64(s.n, 45);
	CHECK_EQ_U64(s.t[42], 51000);
	CHECK_EQ_U64(s.t[44], 57000);
	kbpf_tcp_sim_free(sim);
}

struct both {
	struct trace_hash h;
	struct samples s;
};

/* Sampling is read-only: the trace of a lossy, marked, three-flow run is the same with and
 * without it, and every sample is within the queue limit. */
static void test_no_effect_on_run(void)
{
	struct kbpf_tcp_sim_opts o = { .sz = sizeof(o), .rate_bps = 100000000, .delay_us = 2000, .loss = 0.005,
				       .ecn_threshold_pkts = 10, .seed = 11, .queue_pkts = 40 };
	struct kbpf_tcp_flow_opts fo = { .sz = sizeof(fo), .tso = 1 };
	static struct both b[2];
	uint32_t max = 0;

	memset(b, 0, sizeof(b));
	for (int with = 0; with < 2; with++) {
		struct kbpf_tcp_sim *sim = NULL;

		b[with].h.h = 14695981039346656037ULL;
		CHECK_EQ_U64(kbpf_tcp_sim_create(&o, &sim), 0);
		CHECK_EQ_U64(kbpf_tcp_sim_add_flow(sim, &kbpf_tcp_dctcp, &fo, NULL), 0);
		CHECK_EQ_U64(kbpf_tcp_sim_add_flow(sim, &kbpf_tcp_cubic, &fo, NULL), 0);
		CHECK_EQ_U64(kbpf_tcp_sim_add_flow(sim, &kbpf_tcp_bbr, &fo, NULL), 0);
		kbpf_tcp_sim_set_trace(sim, trace_hash_point, &b[with].h);
		if (with)
			CHECK_EQ_U64(kbpf_tcp_sim_set_queue_sampler(sim, 1000, on_sample, &b[with].s), 0);
		CHECK_EQ_U64(kbpf_tcp_sim_run(sim, 2000000), 0);
		kbpf_tcp_sim_free(sim);
	}
	CHECK_EQ_U64(b[0].h.h, b[1].h.h);
	CHECK_EQ_U64(b[0].h.n, b[1].h.n);
	CHECK_EQ_U64(b[1].s.n, 2000);
	for (unsigned int i = 0; i < MAX_SAMPLES && i < b[1].s.n; i++)
		max = b[1].s.q[i] > max ? b[1].s.q[i] : max;
	CHECK(max > 10 && max <= 40);
}

static void test_bad_args(void)
{
	struct kbpf_tcp_sim *sim = NULL;
	struct samples s;

	CHECK_EQ_U64(kbpf_tcp_sim_set_queue_sampler(NULL, 1000, on_sample, &s), (uint64_t)-EINVAL);
	CHECK_EQ_U64(kbpf_tcp_sim_create(NULL, &sim), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_set_queue_sampler(sim, 0, on_sample, &s), (uint64_t)-EINVAL);
	CHECK_EQ_U64(kbpf_tcp_sim_set_queue_sampler(sim, UINT64_MAX, on_sample, &s), (uint64_t)-EINVAL);
	CHECK_EQ_U64(kbpf_tcp_sim_set_queue_sampler(sim, 0, NULL, NULL), 0);
	kbpf_tcp_sim_free(sim);
}

int main(void)
{
	RUN(test_burst_drains);
	RUN(test_no_effect_on_run);
	RUN(test_bad_args);
	return test_summary();
}
