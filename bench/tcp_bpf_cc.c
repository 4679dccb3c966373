/* SPDX-License-Identifier: Apache-2.0 */
/* What a BPF congestion control costs in the simulator: the issue-8 run (30 s, 20 Mbit/s,
 * 40 ms RTT, one flow) with a native CC, then with a BPF object's struct_ops CC on the
 * interpreter and on the JIT, each repeated; prints wall time per run and the ratio to
 * native. Goal (issue 8): the BPF CC on the JIT ≤ 0.3 s and ≤ 1.2× native.
 *
 *   kbpf-bench-tcp-bpf [--md] OBJ.o MAP NATIVE [repetitions]
 *   kbpf-bench-tcp-bpf build/linux-tcp-objects/bpf_cubic.o cubic cubic 10
 *
 * --md prints one Markdown table row instead (bench/run.sh: docs/performance.md).
 *
 * (scripts/linux-tcp-objects builds Linux's bpf_cubic.o.) This executable is the host: it
 * links the TCP host and carries its own BTF. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <kbpf/kbpf.h>
#include <kbpf/tcp_host.h>
#include <kbpf/tcp_sim.h>

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Wall time is what the goal is stated in; on a loaded machine the thread's CPU time is
 * the steadier measure of the same work (they agree on an idle one). */
struct result {
	double best, mean; /* wall */
	double cpu_best;   /* CLOCK_THREAD_CPUTIME_ID */
	uint64_t events, goodput_bps;
};

/* One 30 s run of ops; adds its times to r. */
static int run_once(const struct tcp_congestion_ops *ops, int bpf, struct result *r)
{
	struct kbpf_tcp_sim_opts o = { .sz = sizeof(o), .rate_bps = 20000000, .delay_us = 20000, .seed = 1 };
	struct kbpf_tcp_flow_stats fs = { 0 };
	struct kbpf_tcp_sim_stats ss = { 0 };
	struct kbpf_tcp_sim *sim;
	double t0, c0, dt, dc;

	if (kbpf_tcp_sim_create(&o, &sim))
		return -ENOMEM;
	/* a BPF CC is registered by name, as attaching it does in Linux */
	if ((bpf && kbpf_tcp_sim_register_cc(sim, ops)) || kbpf_tcp_sim_add_flow(sim, ops, NULL, NULL)) {
		kbpf_tcp_sim_free(sim);
		return -EINVAL;
	}
	t0 = clock_s(CLOCK_MONOTONIC);
	c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
	if (kbpf_tcp_sim_run(sim, 30000000)) {
		kbpf_tcp_sim_free(sim);
		return -ENOMEM;
	}
	dc = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
	dt = clock_s(CLOCK_MONOTONIC) - t0;
	kbpf_tcp_sim_flow_stats(sim, 0, &fs);
	kbpf_tcp_sim_stats(sim, &ss);
	kbpf_tcp_sim_free(sim);
	r->events = ss.events;
	r->goodput_bps = fs.goodput_bps;
	r->mean += dt; /* a sum until main divides it */
	if (dt < r->best)
		r->best = dt;
	if (dc < r->cpu_best)
		r->cpu_best = dc;
	return 0;
}

/* A BPF CC: path's struct_ops variable map loaded on its own TCP host, JIT or not. */
struct bpf_cc {
	struct kbpf_host *host;
	struct kbpf_object *obj;
	struct kbpf_tcp_bpf_cc *cc;
};

static int bpf_cc_load(const char *path, const char *map, int jit, struct bpf_cc *b)
{
	static char log[65536];
	struct kbpf_object_open_opts oo = { .sz = sizeof(oo), .log_buf = log, .log_size = sizeof(log), .jit = jit };
	struct kbpf_tcp_bpf_cc_opts co = { .sz = sizeof(co), .log_buf = log, .log_size = sizeof(log) };
	int ret;

	memset(b, 0, sizeof(*b));
	b->host = kbpf_host_new();
	if (!b->host)
		return -ENOMEM;
	ret = kbpf_host_btf_load_self(b->host);
	if (!ret)
		ret = kbpf_tcp_host_add(b->host);
	oo.host = b->host;
	if (!ret)
		ret = kbpf_object_open_file(path, &oo, &b->obj);
	if (!ret)
		ret = kbpf_object_load(b->obj);
	if (!ret)
		ret = kbpf_tcp_bpf_cc_load(b->obj, map, b->host, &co, &b->cc);
	if (ret)
		fprintf(stderr, "%s (%s): %s\n%s\n", path, jit ? "jit" : "interp", strerror(-ret), log);
	return ret;
}

static void bpf_cc_free(struct bpf_cc *b)
{
	kbpf_tcp_bpf_cc_free(b->cc);
	kbpf_object_close(b->obj);
	kbpf_host_free(b->host);
}

int main(int argc, char **argv)
{
	struct result nat, in, jit;
	const struct tcp_congestion_ops *ops;
	const char *obj;
	int reps, md = 0;

	if (argc > 1 && !strcmp(argv[1], "--md")) {
		md = 1;
		argv++;
		argc--;
	}
	if (argc < 4) {
		fprintf(stderr, "usage: %s [--md] OBJ.o MAP NATIVE [repetitions]\n", argv[0]);
		return 2;
	}
	ops = kbpf_tcp_cc_find(argv[3]);
	reps = argc > 4 ? atoi(argv[4]) : 5;
	if (!ops || reps < 1) {
		fprintf(stderr, "%s: no native CC %s (reno, cubic, dctcp, bbr) or bad repetitions\n", argv[0], argv[3]);
		return 2;
	}
	{
		struct bpf_cc b_in, b_jit;
		struct result *r[3] = { &nat, &in, &jit };
		int ret = bpf_cc_load(argv[1], argv[2], 0, &b_in);

		if (!ret)
			ret = bpf_cc_load(argv[1], argv[2], 1, &b_jit);
		if (ret)
			return 1;
		for (int k = 0; k < 3; k++)
			*r[k] = (struct result){ .best = 1e9, .cpu_best = 1e9 };
		/* interleaved, so that the three see the same machine (load from other jobs
		 * moves the numbers more than anything measured here) */
		for (int i = 0; i < reps && !ret; i++) {
			ret = run_once(ops, 0, &nat);
			if (!ret)
				ret = run_once(kbpf_tcp_bpf_cc_ops(b_in.cc), 1, &in);
			if (!ret)
				ret = run_once(kbpf_tcp_bpf_cc_ops(b_jit.cc), 1, &jit);
		}
		bpf_cc_free(&b_in);
		bpf_cc_free(&b_jit);
		if (ret)
			return 1;
		for (int k = 0; k < 3; k++)
			r[k]->mean /= reps;
	}
	obj = strrchr(argv[1], '/') ? strrchr(argv[1], '/') + 1 : argv[1];
	if (md) {
		printf("| %s (%s) | %s | %.4f s / %.4f s (%.0fx) | %.4f s / %.4f s (%.0fx) | %.4f s / %.4f s (%.0fx) | %.2fx / %.2fx | %.2fx / %.2fx | %d |\n",
		       obj, argv[2], argv[3], nat.best, nat.cpu_best, 30.0 / nat.best, in.best, in.cpu_best, 30.0 / in.best,
		       jit.best, jit.cpu_best, 30.0 / jit.best, in.best / nat.best, in.cpu_best / nat.cpu_best,
		       jit.best / nat.best, jit.cpu_best / nat.cpu_best, reps);
		return 0;
	}
	printf("tcp-sim bench: 30 s at 20 Mbit/s, 40 ms RTT, 1 flow; best and mean of %d runs\n", reps);
	printf("  %-18s wall best %.4f s, mean %.4f s, %5.0fx real time; CPU best %.4f s; events %llu, goodput %.2f Mbit/s\n",
	       argv[3], nat.best, nat.mean, 30.0 / nat.best, nat.cpu_best, (unsigned long long)nat.events,
	       nat.goodput_bps / 1e6);
	printf("  %-18s wall best %.4f s, mean %.4f s, %5.0fx real time; CPU best %.4f s; %.2fx native (wall), %.2fx (CPU)\n",
	       "BPF, interpreter", in.best, in.mean, 30.0 / in.best, in.cpu_best, in.best / nat.best,
	       in.cpu_best / nat.cpu_best);
	printf("  %-18s wall best %.4f s, mean %.4f s, %5.0fx real time; CPU best %.4f s; %.2fx native (wall), %.2fx (CPU)\n",
	       "BPF, JIT", jit.best, jit.mean, 30.0 / jit.best, jit.cpu_best, jit.best / nat.best,
	       jit.cpu_best / nat.cpu_best);
	return 0;
}
