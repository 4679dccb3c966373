/* SPDX-License-Identifier: Apache-2.0 */
/* The simulator's packet rate (issue 20 item 6): simulated data packets per second of CPU
 * time, on data-centre configurations. Each scenario runs `runs` times; the best thread-CPU
 * time counts (the steady figure on a shared machine), wall time beside it.
 *   kbpf-bench-tcp-sim-rate [--md] [--long] [runs]
 * Scenarios: one cubic flow at 10 Gbit/s for 10 s; 1,000 cubic flows sharing 10 Gbit/s for
 * 10 s (goal: under 30 s); 1,000 dctcp flows the same with ECN marking; --long adds one
 * cubic flow at 100 Gbit/s for 60 s and checks that the summary equals its trace. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <kbpf/tcp_sim.h>

struct scenario {
	const char *name;
	const struct tcp_congestion_ops *ops;
	unsigned int flows;
	uint64_t rate_bps;
	uint32_t delay_us, queue, ecn;
	uint64_t duration_us;
};

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct last {
	uint32_t delivered;
};

static void last_trace(const struct kbpf_tcp_trace_point *p, void *ctx)
{
	((struct last *)ctx)->delivered = p->delivered;
}

static int run(const struct scenario *sc, int runs, int md, int check_trace)
{
	double best_cpu = 1e30, best_wall = 1e30;
	struct kbpf_tcp_sim_stats ss = { 0 };
	uint64_t goodput = 0, bytes = 0;
	struct last l = { 0 };
	int bad = 0;

	for (int r = 0; r < runs; r++) {
		struct kbpf_tcp_sim_opts o = { .sz = sizeof(o), .rate_bps = sc->rate_bps, .delay_us = sc->delay_us,
					       .queue_pkts = sc->queue, .ecn_threshold_pkts = sc->ecn, .seed = 1 };
		struct kbpf_tcp_sim *sim;

		if (kbpf_tcp_sim_create(&o, &sim))
			return 1;
		for (unsigned int i = 0; i < sc->flows; i++)
			if (kbpf_tcp_sim_add_flow(sim, sc->ops, NULL, NULL))
				return 1;
		if (check_trace)
			kbpf_tcp_sim_set_trace(sim, last_trace, &l);
		double w0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
		if (kbpf_tcp_sim_run(sim, sc->duration_us))
			return 1;
		double cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0, wall = clock_s(CLOCK_MONOTONIC) - w0;
		kbpf_tcp_sim_stats(sim, &ss);
		goodput = bytes = 0;
		for (unsigned int i = 0; i < sc->flows; i++) {
			struct kbpf_tcp_flow_stats fs;

			kbpf_tcp_sim_flow_stats(sim, i, &fs);
			goodput += fs.goodput_bps;
			bytes += fs.bytes_acked;
		}
		if (check_trace && bytes != (uint64_t)(l.delivered - 1) * 1448) {
			fprintf(stderr, "%s: summary %llu bytes, trace %llu\n", sc->name, (unsigned long long)bytes,
				(unsigned long long)(l.delivered - 1) * 1448);
			bad = 1;
		}
		kbpf_tcp_sim_free(sim);
		if (cpu < best_cpu)
			best_cpu = cpu;
		if (wall < best_wall)
			best_wall = wall;
	}
	/* every packet offered to the link: enqueued, dropped at the queue or at random */
	double pkts = (double)(ss.pkts_enqueued + ss.drops_queue + ss.drops_random);
	if (md)
		printf("| %s | %.3g M | %.2f s / %.2f s | %.2f M/s | %.1fx | %.2f Gbit/s | %d |\n", sc->name, pkts / 1e6,
		       best_cpu, best_wall, pkts / best_cpu / 1e6, sc->duration_us / 1e6 / best_cpu, goodput / 1e9, runs);
	else
		printf("%s: %.3g M packets, %llu events; CPU %.3f s (wall %.3f s), %.2f M packets/s, %.1fx real time; "
		       "goodput %.3f Gbit/s, %.3f GB acked%s\n",
		       sc->name, pkts / 1e6, (unsigned long long)ss.events, best_cpu, best_wall, pkts / best_cpu / 1e6,
		       sc->duration_us / 1e6 / best_cpu, goodput / 1e9, bytes / 1e9,
		       check_trace ? (bad ? "; SUMMARY != TRACE" : "; summary = trace") : "");
	return bad;
}

int main(int argc, char **argv)
{
	int md = 0, lng = 0, runs = 3, rc = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--md"))
			md = 1;
		else if (!strcmp(argv[i], "--long"))
			lng = 1;
		else if ((runs = atoi(argv[i])) < 1) {
			fprintf(stderr, "usage: %s [--md] [--long] [runs]\n", argv[0]);
			return 2;
		}
	}
	const struct scenario sc[] = {
		{ "1 cubic flow, 10 Gbit/s, 0.5 ms RTT, 10 s", &kbpf_tcp_cubic, 1, 10000000000ULL, 250, 0, 0, 10000000 },
		{ "1000 cubic flows, 10 Gbit/s, 10 ms RTT, 10 s", &kbpf_tcp_cubic, 1000, 10000000000ULL, 5000, 0, 0,
		  10000000 },
		{ "1000 dctcp flows, 10 Gbit/s, 0.5 ms RTT, K=100, 10 s", &kbpf_tcp_dctcp, 1000, 10000000000ULL, 250, 2000,
		  100, 10000000 },
		{ "1 cubic flow, 100 Gbit/s, 40 us RTT, 60 s", &kbpf_tcp_cubic, 1, 100000000000ULL, 20, 200000, 0,
		  60000000 },
	};
	if (md)
		printf("| scenario | packets | CPU / wall | packets per CPU second | × real time | goodput | runs |\n"
		       "|---|---:|---:|---:|---:|---:|---:|\n");
	for (unsigned int i = 0; i < sizeof(sc) / sizeof(sc[0]); i++) {
		int longrun = sc[i].duration_us > 10000000;

		if (longrun && !lng)
			continue;
		rc |= run(&sc[i], longrun ? 1 : runs, md, longrun);
	}
	return rc;
}
