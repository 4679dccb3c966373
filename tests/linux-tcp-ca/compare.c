/* SPDX-License-Identifier: Apache-2.0 */
/* `kbpf-linux-tcp-ca OBJDIR --compare`: Linux's bpf_cubic.o and bpf_dctcp.o against the
 * native cubic and dctcp on the same seeded scenario (docs/tcp-sim.md, "Linux's
 * objects"). They are BPF re-implementations (bpf_cubic's header says it is not the same as
 * tcp_cubic.c), so traces are not expected to be bit-identical: this prints how close they
 * are — goodput, mean cwnd, loss events — and the first ACK where cwnd differs, and checks
 * that the interpreter and the JIT give the same trace (that one is a hard requirement). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <kbpf/tcp.h>
#include "tcp_ca.h"

struct trace {
	uint32_t *cwnd, *ssthresh;
	uint64_t *t_us;
	size_t n, cap;
	uint64_t cwnd_sum;
	uint32_t recoveries; /* entries into Recovery */
	uint32_t losses; /* entries into Loss (RTO) */
	uint32_t cwr; /* entries into CWR (ECN reductions) */
	uint8_t last_state;
	int oom;
};

static void on_ack(const struct kbpf_tcp_trace_point *pt, void *ctx)
{
	struct trace *tr = ctx;

	if (pt->ca_state != tr->last_state) {
		if (pt->ca_state == TCP_CA_Recovery)
			tr->recoveries++;
		else if (pt->ca_state == TCP_CA_Loss)
			tr->losses++;
		else if (pt->ca_state == TCP_CA_CWR)
			tr->cwr++;
		tr->last_state = pt->ca_state;
	}
	tr->cwnd_sum += pt->cwnd;
	if (tr->n == tr->cap) {
		size_t cap = tr->cap ? tr->cap * 2 : 4096;
		uint32_t *c = realloc(tr->cwnd, cap * sizeof(*c));
		uint64_t *t;

		if (!c) {
			tr->oom = 1;
			return;
		}
		tr->cwnd = c;
		t = realloc(tr->t_us, cap * sizeof(*t));
		if (!t) {
			tr->oom = 1;
			return;
		}
		tr->t_us = t;
		c = realloc(tr->ssthresh, cap * sizeof(*c));
		if (!c) {
			tr->oom = 1;
			return;
		}
		tr->ssthresh = c;
		tr->cap = cap;
	}
	tr->cwnd[tr->n] = pt->cwnd;
	tr->ssthresh[tr->n] = pt->ssthresh;
	tr->t_us[tr->n++] = pt->time_us;
}

struct scenario {
	const char *label;
	uint64_t rate_bps;
	uint32_t delay_us;
	uint32_t ecn_threshold;
	uint32_t queue_pkts; /* 0: one BDP */
	double loss;
};

static int run_one(const struct scenario *sc, uint64_t seed, int bpf, const struct tcp_congestion_ops *ops, struct trace *tr, struct kbpf_tcp_flow_stats *fs,
		   struct kbpf_tcp_sim_stats *ss)
{
	struct kbpf_tcp_sim_opts so = { .sz = sizeof(so), .rate_bps = sc->rate_bps, .delay_us = sc->delay_us,
					.ecn_threshold_pkts = sc->ecn_threshold, .queue_pkts = sc->queue_pkts,
					.loss = sc->loss, .seed = seed };
	struct kbpf_tcp_sim *sim;
	int ret;

	memset(tr, 0, sizeof(*tr));
	ret = kbpf_tcp_sim_create(&so, &sim);
	if (ret)
		return ret;
	if (bpf)
		ret = ca_sim_register(sim, ops);
	if (!ret)
		ret = kbpf_tcp_sim_add_flow(sim, ops, NULL, NULL);
	if (!ret) {
		kbpf_tcp_sim_set_trace(sim, on_ack, tr);
		ret = kbpf_tcp_sim_run(sim, 30000000);
	}
	if (!ret) {
		kbpf_tcp_sim_flow_stats(sim, 0, fs);
		kbpf_tcp_sim_stats(sim, ss);
	}
	kbpf_tcp_sim_free(sim);
	return ret ? ret : tr->oom ? -ENOMEM : 0;
}

static void trace_free(struct trace *tr)
{
	free(tr->cwnd);
	free(tr->ssthresh);
	free(tr->t_us);
}

static void row(const char *name, const struct trace *tr, const struct kbpf_tcp_flow_stats *fs)
{
	printf("  %-22s %8.3f %9.1f %6zu %5u %4u %4u %5llu %6llu %7llu\n", name, fs->goodput_bps / 1e6,
	       tr->n ? (double)tr->cwnd_sum / (double)tr->n : 0.0, tr->n, tr->recoveries, tr->losses, tr->cwr,
	       (unsigned long long)fs->rtos, (unsigned long long)fs->retransmits, (unsigned long long)fs->lost);
}

/* Index of the first ACK whose cwnd differs (or where one trace ends), or n if identical. */
static size_t first_diff(const struct trace *a, const struct trace *b)
{
	size_t n = a->n < b->n ? a->n : b->n;

	for (size_t i = 0; i < n; i++)
		if (a->cwnd[i] != b->cwnd[i] || a->t_us[i] != b->t_us[i])
			return i;
	return a->n == b->n ? SIZE_MAX : n;
}

static int compare_pair(const char *file, const char *map, const char *native, const struct scenario *sc,
			uint64_t seed)
{
	const struct tcp_congestion_ops *nops = kbpf_tcp_cc_find(native);
	struct trace tn, tb[2];
	struct kbpf_tcp_flow_stats fn = { 0 }, fb[2] = { { 0 } };
	struct kbpf_tcp_sim_stats sn = { 0 }, sb[2] = { { 0 } };
	struct ca_obj o[2];
	int ret, bad = 0;
	size_t d;

	memset(o, 0, sizeof(o));
	memset(tb, 0, sizeof(tb));
	printf("\n%s vs native %s — %s, seed %llu, 30 s, one flow\n", file, native, sc->label,
	       (unsigned long long)seed);
	ret = run_one(sc, seed, 0, nops, &tn, &fn, &sn);
	if (ret) {
		printf("  native %s: %s\n", native, strerror(-ret));
		return 1;
	}
	for (int jit = 0; jit < 2; jit++) {
		if (ca_obj_load(&o[jit], file, jit, NULL, NULL) || ca_obj_attach(&o[jit], map)) {
			printf("  %s (%s): does not load/attach: %s %s\n", file, jit ? "jit" : "interp", o[jit].log,
			       o[jit].attach_log);
			bad = 1;
			goto out;
		}
		ret = run_one(sc, seed, 1, ca_obj_ops(&o[jit]), &tb[jit], &fb[jit], &sb[jit]);
		if (ret) {
			printf("  %s (%s): %s\n", file, jit ? "jit" : "interp", strerror(-ret));
			bad = 1;
			goto out;
		}
	}
	printf("  queue limit %u packets%s\n", sn.queue_limit, sc->ecn_threshold ? ", CE above the threshold" : "");
	printf("  %-22s %8s %9s %6s %5s %4s %4s %5s %6s %7s\n", "cc", "Mbit/s", "mean cwnd", "ACKs", "recov", "RTO",
	       "CWR", "rtos", "retrans", "lost");
	row(native, &tn, &fn);
	row("bpf (interpreter)", &tb[0], &fb[0]);
	row("bpf (JIT)", &tb[1], &fb[1]);
	printf("  goodput bpf/native %.4f, mean cwnd bpf/native %.4f\n",
	       fn.goodput_bps ? (double)fb[0].goodput_bps / (double)fn.goodput_bps : 0.0,
	       tn.cwnd_sum && tb[0].n ? ((double)tb[0].cwnd_sum / (double)tb[0].n) / ((double)tn.cwnd_sum / (double)tn.n)
				      : 0.0);
	d = first_diff(&tn, &tb[0]);
	if (d == SIZE_MAX)
		printf("  per-ACK trace: identical to native over all %zu ACKs\n", tn.n);
	else if (d < tn.n && d < tb[0].n)
		printf("  per-ACK trace: identical to native for %zu ACKs; first difference at ACK %zu (t=%.3f s): "
		       "cwnd/ssthresh %u/%u native, %u/%u bpf (before: %u/%u)\n",
		       d, d, tn.t_us[d] / 1e6, tn.cwnd[d], tn.ssthresh[d], tb[0].cwnd[d], tb[0].ssthresh[d],
		       d ? tn.cwnd[d - 1] : 0, d ? tn.ssthresh[d - 1] : 0);
	else
		printf("  per-ACK trace: identical to native for %zu ACKs, then one trace ends\n", d);
	d = first_diff(&tb[0], &tb[1]);
	if (d == SIZE_MAX) {
		printf("  interpreter and JIT: identical per-ACK traces (%zu ACKs)\n", tb[0].n);
	} else {
		printf("  interpreter and JIT DIFFER at ACK %zu\n", d);
		bad = 1;
	}
out:
	trace_free(&tn);
	for (int i = 0; i < 2; i++) {
		trace_free(&tb[i]);
		ca_obj_close(&o[i]);
	}
	return bad;
}

int ca_compare(uint64_t seed)
{
	static const struct scenario droptail = { "20 Mbit/s, 40 ms RTT, drop-tail 1 BDP", 20000000, 20000, 0, 0, 0 };
	static const struct scenario lossy = { "20 Mbit/s, 40 ms RTT, 0.1 % random loss", 20000000, 20000, 0, 0,
					       0.001 };
	static const struct scenario ecn = { "100 Mbit/s, 2 ms RTT, CE above 20 of 100 packets", 100000000, 1000, 20,
					     100, 0 };
	int bad = 0;

	bad |= compare_pair("bpf_cubic.o", "cubic", "cubic", &droptail, seed);
	bad |= compare_pair("bpf_cubic.o", "cubic", "cubic", &lossy, seed);
	bad |= compare_pair("bpf_dctcp.o", "dctcp", "dctcp", &ecn, seed);
	bad |= compare_pair("bpf_dctcp.o", "dctcp", "dctcp", &droptail, seed);
	return bad;
}
