/* SPDX-License-Identifier: Apache-2.0 */
/* Simulator speed: a 30 s, 20 Mbit/s, 40 ms RTT run of one flow (native cubic by default,
 * or the CC named by argv[1]), repeated; prints wall time per run and the speed-up over
 * real time. Goal (issue 8): at least 100× real time, i.e. at most 0.3 s. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <kbpf/tcp_sim.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	const char *cc = argc > 1 ? argv[1] : "cubic";
	int reps = argc > 2 ? atoi(argv[2]) : 5;
	const struct tcp_congestion_ops *ops = kbpf_tcp_cc_find(cc);
	double best = 1e9, total = 0;
	struct kbpf_tcp_flow_stats fs = { 0 };
	struct kbpf_tcp_sim_stats ss = { 0 };

	if (!ops || reps < 1) {
		fprintf(stderr, "usage: %s [reno|cubic|dctcp|bbr] [repetitions]\n", argv[0]);
		return 2;
	}
	for (int r = 0; r < reps; r++) {
		struct kbpf_tcp_sim_opts o = { .sz = sizeof(o), .rate_bps = 20000000, .delay_us = 20000, .seed = 1 };
		struct kbpf_tcp_sim *sim;
		double t0, dt;

		if (kbpf_tcp_sim_create(&o, &sim) || kbpf_tcp_sim_add_flow(sim, ops, NULL, NULL))
			return 1;
		t0 = now_s();
		if (kbpf_tcp_sim_run(sim, 30000000))
			return 1;
		dt = now_s() - t0;
		kbpf_tcp_sim_flow_stats(sim, 0, &fs);
		kbpf_tcp_sim_stats(sim, &ss);
		kbpf_tcp_sim_free(sim);
		total += dt;
		if (dt < best)
			best = dt;
	}
	printf("tcp-sim bench: %s, 30 s at 20 Mbit/s, 40 ms RTT, 1 flow\n", cc);
	printf("  wall: best %.4f s, mean %.4f s over %d runs; speed-up %.0fx real time (best)\n", best,
	       total / reps, reps, 30.0 / best);
	printf("  events %llu, goodput %.2f Mbit/s, retransmits %llu, queue p50/p99 %u/%u pkts\n",
	       (unsigned long long)ss.events, fs.goodput_bps / 1e6, (unsigned long long)fs.retransmits, ss.queue_p50,
	       ss.queue_p99);
	return 0;
}
