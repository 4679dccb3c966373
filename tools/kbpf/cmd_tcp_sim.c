/* SPDX-License-Identifier: Apache-2.0 */
/* kbpf tcp-sim: run congestion controls over a simulated bottleneck (docs/tcp-sim.md),
 * print a summary, optionally write a per-ACK trace (CSV) and a plot (gnuplot). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <kbpf/tcp_host.h>
#include <kbpf/tcp_sim.h>
#include "cli.h"

int cmd_tcp_sim(int argc, char **argv);
void usage_tcp_sim(void);

#define CMD "tcp-sim"
#define MAX_FLOWS KBPF_TCP_SIM_MAX_FLOWS
#define MAX_BPF_OBJS 64 /* distinct BPF objects and CC specs on one command line */
#define PLOT_FLOWS 64 /* --plot draws at most this many flows */
#define LIST_FLOWS 64 /* above this many flows the summary is per CC unless --per-flow */

void usage_tcp_sim(void)
{
	printf("usage: kbpf tcp-sim [OPTIONS] --cc NAME|FILE.o[:MAP] [--cc ...]\n"
	       "Run TCP flows over one simulated bottleneck, each with a congestion control.\n\n"
	       "  --cc NAME           a flow with native CC NAME: reno, cubic, dctcp, bbr (repeatable)\n"
	       "  --cc-mix NAME:N,... N flows of each CC, e.g. cubic:500,dctcp:500 (NAME may be\n"
	       "                      FILE.o[:MAP] too: the last ':N' is the count)\n"
	       "  --flows N           N flows in all: the --cc/--cc-mix list repeated in turn\n"
	       "  --flow-file FILE    one flow per line: CC [START [BYTES [COUNT]]]; START a time\n"
	       "                      (default unit s), BYTES with k/M/G (10^3..), 0 = unlimited;\n"
	       "                      COUNT copies; '#' starts a comment (incast: many flows, one\n"
	       "                      start time, a small size each)\n"
	       "  --per-flow          one summary line per flow even above 64 flows (else per CC)\n"
	       "  --cc FILE.o[:MAP]   a flow with the BPF CC of struct_ops map MAP of a BPF object\n"
	       "                      (default: its only tcp_congestion_ops map); also findable by\n"
	       "                      its name through bpf_setsockopt(TCP_CONGESTION)\n"
	       "  --jit, --no-jit     BPF CCs on the x86-64 JIT (default where available) or the\n"
	       "                      interpreter\n"
	       "  --host FILE         the host BPF CCs load on, as in every command: FILE's BTF, and\n"
	       "                      a plugin's kbpf_host_init (its kfuncs); its BTF must describe\n"
	       "                      the TCP host's types (a host linking kbpf_tcp)\n"
	       "  --rate R            bottleneck rate in bit/s, suffix k/M/G (default 20M)\n"
	       "  --delay D           one-way delay, suffix us/ms/s (default 20ms: 40 ms RTT)\n"
	       "  --queue N           drop-tail queue limit in packets (default: one BDP)\n"
	       "  --loss P            random loss probability of data packets, 0..1 or N%% (default 0)\n"
	       "  --reorder P[,D]     delay each data packet with probability P (0..1 or N%%) by D\n"
	       "                      more (us/ms/s; default 4 packets' serialization time), so\n"
	       "                      later packets overtake it (default off)\n"
	       "  --jitter D          each data packet and ACK arrives up to D later (uniform,\n"
	       "                      seeded; ns/us/ms, default unit us; in order): a path's\n"
	       "                      timing noise (default 0: exact timing); not with --script\n"
	       "  --ecn-threshold N   mark ECT packets CE when N packets are queued (default off)\n"
	       "  --ecn               request ECN (net.ipv4.tcp_ecn=1) for every flow\n"
	       "  --tso               senders segment as Linux's with TSO/GSO: bursts of\n"
	       "                      tcp_tso_autosize segments, TSO deferral (default: one\n"
	       "                      segment at a time)\n"
	       "  --sack-compress     receivers compress SACKs as Linux's (after 3 dupACKs, one\n"
	       "                      ACK per min(1 ms, RTT/20) or 44 segments; default: an ACK\n"
	       "                      for every out-of-order segment)\n"
	       "  --sack-ideal        the earlier idealised SACK: each ACK reports only the segment\n"
	       "                      (or compressed run) that triggered it (default: SACK as on\n"
	       "                      the wire: receivers keep Linux's block list, each ACK carries\n"
	       "                      at most 3 blocks, a D-SACK first, and senders learn only what\n"
	       "                      the blocks say)\n"
	       "  --gro N             receivers merge up to N back-to-back segments arriving within\n"
	       "                      the GRO window into one skb, ACKed as one (stretch ACKs;\n"
	       "                      N <= 64; overrides --sack-ideal; default off)\n"
	       "  --gro-window D      the GRO window from an aggregate's first segment, suffix\n"
	       "                      us/ms (default 100us)\n"
	       "  --fq                each sender's egress has Linux's sch_fq (its defaults): every\n"
	       "                      CC is paced (cubic, reno, dctcp at 200%%/120%% of cwnd/SRTT)\n"
	       "                      by the departure time TCP stamps, which fq enforces, and TCP\n"
	       "                      small queues apply (default: no qdisc; only CCs that ask\n"
	       "                      for pacing, bbr, are paced, by TCP itself)\n"
	       "  --bytes N           each flow sends N bytes, suffix k/M/G = 10^3.. (default:\n"
	       "                      unlimited)\n"
	       "  --stagger D         start flow i at i*D (default 0)\n"
	       "  --duration D        simulated time, suffix us/ms/s (default 30s)\n"
	       "  --seed N            random seed (default 1): same seed, same run\n"
	       "  --trace FILE        per-ACK CSV: time, flow, cwnd, ssthresh, srtt, pacing rate,\n"
	       "                      in flight, queue, delivered, lost, retransmits, CA state\n"
	       "  --trace-bbr         with --trace: also BBR's mode, pacing and cwnd gains (1/256),\n"
	       "                      bandwidth (bytes/s), min RTT and ACK-aggregation allowance\n"
	       "                      (empty for flows not on the native bbr); not with --script\n"
	       "  --queue-log FILE    the bottleneck queue every 1 ms: lines \"TIME_S PACKETS\", as\n"
	       "                      tools/tcp-oracle/tunlink logs its queue (the trace's queue\n"
	       "                      is the queue at ACKs); not with --script\n"
	       "  --plot FILE         cwnd and queue over time through gnuplot (.svg or .png)\n"
	       "  --quiet             no summary\n\n"
	       "  --script FILE       scripted peer: FILE drives one sender (the one --cc) instead of\n"
	       "                      the receiver and link: connection set-up, writes, the peer's\n"
	       "                      ACKs at given times, assertions on cwnd, ssthresh, ca_state…\n"
	       "                      (docs/tcp-sim.md \"Scripted peer\"); exit 1 if one fails\n"
	       "  --keep-going        with --script: check every assertion, not up to the first\n"
	       "                      failure\n");
}

/* "20M", "1.5G", "100k" (bit/s). */
static int parse_rate(const char *s, uint64_t *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || !(v > 0))
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': v *= 1e3; end++; break;
	case 'm': case 'M': v *= 1e6; end++; break;
	case 'g': case 'G': v *= 1e9; end++; break;
	}
	if (!strcmp(end, "bit") || !strcmp(end, "bps") || !strcmp(end, "bit/s"))
		end += strlen(end);
	if (*end || v < 1e4 || v > 1e12)
		return -EINVAL;
	*out = (uint64_t)v;
	return 0;
}

/* "20ms", "500us", "1.5s", "30" (unit when none: def_scale µs). */
static int parse_time_us(const char *s, uint64_t def_scale, uint64_t *out)
{
	char *end;
	double v = strtod(s, &end), scale = (double)def_scale;

	if (end == s || v < 0 || !isfinite(v))
		return -EINVAL;
	if (!strcmp(end, "us"))
		scale = 1;
	else if (!strcmp(end, "ms"))
		scale = 1e3;
	else if (!strcmp(end, "s"))
		scale = 1e6;
	else if (*end)
		return -EINVAL;
	v *= scale;
	if (v > 1e13)
		return -EINVAL;
	*out = (uint64_t)llround(v);
	return 0;
}

/* "40us", "500ns", "1ms" (unit when none: µs), in ns. */
static int parse_time_ns(const char *s, uint64_t *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || v < 0 || !isfinite(v))
		return -EINVAL;
	if (!strcmp(end, "ns"))
		v *= 1;
	else if (!*end || !strcmp(end, "us"))
		v *= 1e3;
	else if (!strcmp(end, "ms"))
		v *= 1e6;
	else
		return -EINVAL;
	if (v > 1e13)
		return -EINVAL;
	*out = (uint64_t)llround(v);
	return 0;
}

static int parse_loss(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s)
		return -EINVAL;
	if (*end == '%') {
		v /= 100;
		end++;
	}
	if (*end || !(v >= 0 && v <= 1))
		return -EINVAL;
	*out = v;
	return 0;
}

/* The per-ACK CSV (--trace): its header (with --trace-bbr's columns) and a line's fields,
 * the ones every line has, ended by end. */
static void trace_header(FILE *f, bool bbr)
{
	fprintf(f, "time_s,flow,cwnd,ssthresh,srtt_us,pacing_rate_Bps,inflight,queue_pkts,delivered,lost,retrans,"
		   "ca_state%s\n", bbr ? ",bbr_mode,pacing_gain,cwnd_gain,bbr_bw_Bps,bbr_min_rtt_us,extra_acked" : "");
}

static void trace_fields(FILE *f, const struct kbpf_tcp_trace_point *p, char end)
{
	fprintf(f, "%.6f,%u,%u,%u,%u,%llu,%u,%u,%u,%u,%u,%u%c", p->time_us / 1e6, p->flow, p->cwnd, p->ssthresh,
		p->srtt_us, (unsigned long long)p->pacing_rate, p->inflight, p->queue_pkts, p->delivered, p->lost,
		p->retrans, p->ca_state, end);
}

/* --queue-log: the queue every 1 ms, in tunlink's queue-log format */
static void queue_log(uint64_t time_us, uint32_t queue_pkts, void *ctx)
{
	fprintf(ctx, "%.3f %u\n", time_us / 1e6, queue_pkts);
}

static void trace_csv(const struct kbpf_tcp_trace_point *p, void *ctx)
{
	trace_fields(ctx, p, '\n');
}

/* --trace-bbr: the same line plus BBR's model (Linux's TCP_CC_INFO for bbr, the mode and the
 * ACK-aggregation allowance); empty fields for flows not on the native bbr. */
struct trace_bbr_ctx {
	FILE *f;
	struct kbpf_tcp_sim *sim;
};

static void trace_csv_bbr(const struct kbpf_tcp_trace_point *p, void *ctx)
{
	struct trace_bbr_ctx *c = ctx;
	struct kbpf_tcp_bbr_info bi;

	trace_fields(c->f, p, ',');
	if (kbpf_tcp_sim_bbr_info(c->sim, p->flow, &bi))
		fputs(",,,,,\n", c->f);
	else
		fprintf(c->f, "%u,%u,%u,%llu,%u,%u\n", bi.mode, bi.pacing_gain, bi.cwnd_gain,
			(unsigned long long)bi.bw_Bps, bi.min_rtt_us, bi.extra_acked);
}

static int plot(const char *out, const char *csv, char names[][TCP_CA_NAME_MAX], unsigned int n,
		const struct kbpf_tcp_sim_opts *o)
{
	const char *dot = strrchr(out, '.');
	const char *term;
	FILE *gp;
	int rc;

	if (dot && !strcmp(dot, ".svg"))
		term = "svg size 1000,700 dynamic";
	else if (dot && !strcmp(dot, ".png"))
		term = "pngcairo size 1000,700";
	else
		return cli_error(EXIT_USAGE, CMD, "--plot %s: the file must end in .svg or .png", out);
	gp = popen("gnuplot 2>&1", "w");
	if (!gp)
		return cli_error(EXIT_FAIL, CMD, "cannot run gnuplot: %s (install gnuplot-nox)", strerror(errno));
	fprintf(gp, "set terminal %s\nset output '%s'\nset datafile separator ','\n", term, out);
	fprintf(gp, "set multiplot layout 2,1 title 'kbpf tcp-sim: %.3g Mbit/s, %.3g ms RTT, queue %u pkts'\n",
		o->rate_bps / 1e6, 2 * o->delay_us / 1e3, o->queue_pkts);
	fprintf(gp, "set grid\nset key outside right\nset ylabel 'cwnd (segments)'\nplot ");
	for (unsigned int i = 0; i < n; i++)
		/* One data stream per flow, so each line is drawn unbroken. */
		fprintf(gp, "%s\"< grep -E '^[^,]*,%u,' %s\" using 1:3 with lines title '%u %s' noenhanced", i ? ", " : "", i, csv,
			i, names[i]);
	fprintf(gp, "\nset xlabel 'time (s)'\nset ylabel 'queue (packets)'\n");
	fprintf(gp, "plot '%s' every ::1 using 1:8 with lines lc rgb 'gray30' title 'queue'\n", csv);
	fprintf(gp, "unset multiplot\n");
	rc = pclose(gp);
	if (rc == -1 || !WIFEXITED(rc) || WEXITSTATUS(rc))
		return cli_error(EXIT_FAIL, CMD, "gnuplot failed (exit %d); is gnuplot installed?",
				 rc == -1 || !WIFEXITED(rc) ? -1 : WEXITSTATUS(rc));
	return EXIT_OK;
}

/* The flows of the command line, in order. A spec (CC name or FILE.o[:MAP]) is shared by
 * the flows made from one --cc, --cc-mix entry or flow-file line. */
struct flow_spec {
	const char *spec;
	const struct tcp_congestion_ops *ops; /* NULL: a BPF CC, loaded after option parsing */
	uint64_t start_us, bytes;
	bool has_start, has_bytes;
};

struct flow_list {
	struct flow_spec *v;
	unsigned int n, cap;
	char **owned; /* strings the specs point to */
	unsigned int nr_owned;
};

static void flow_list_free(struct flow_list *l)
{
	for (unsigned int i = 0; i < l->nr_owned; i++)
		free(l->owned[i]);
	free(l->owned);
	free(l->v);
}

static const char *flow_list_own(struct flow_list *l, const char *str, size_t len)
{
	char **o = realloc(l->owned, (l->nr_owned + 1) * sizeof(*o));
	char *c = o ? strndup(str, len) : NULL;

	if (o)
		l->owned = o;
	if (!c)
		return NULL;
	l->owned[l->nr_owned++] = c;
	return c;
}

static bool is_bpf_spec(const char *spec)
{
	return strstr(spec, ".o") || strchr(spec, ':') || strchr(spec, '/');
}

/* Append count flows of spec; 0, or a message was printed (returns the exit code). */
static int flow_list_add(struct flow_list *l, const char *spec, uint64_t count, const struct flow_spec *tmpl)
{
	const struct tcp_congestion_ops *ops = kbpf_tcp_cc_find(spec);

	if (!ops && !is_bpf_spec(spec))
		return cli_error(EXIT_USAGE, CMD, "'%s': unknown congestion control (reno, cubic, dctcp, bbr)", spec);
	if (count > MAX_FLOWS || l->n + count > MAX_FLOWS)
		return cli_error(EXIT_USAGE, CMD, "at most %d flows", MAX_FLOWS);
	if (l->n + count > l->cap) {
		unsigned int cap = l->cap ? l->cap : 16;

		while (cap < l->n + count)
			cap *= 2;
		struct flow_spec *v = realloc(l->v, cap * sizeof(*v));
		if (!v)
			return cli_error(EXIT_FAIL, CMD, "out of memory");
		l->v = v;
		l->cap = cap;
	}
	for (uint64_t i = 0; i < count; i++) {
		struct flow_spec *f = &l->v[l->n++];

		*f = tmpl ? *tmpl : (struct flow_spec){ 0 };
		f->spec = spec;
		f->ops = ops;
	}
	return 0;
}

/* --cc-mix cubic:500,dctcp:500 (the count is after the last ':', so FILE.o:MAP:N works). */
static int parse_cc_mix(struct flow_list *l, const char *arg)
{
	const char *p = arg;

	while (*p) {
		const char *end = strchr(p, ','), *colon;
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char num[32];
		uint64_t count;

		colon = NULL;
		for (size_t i = len; i-- > 0;)
			if (p[i] == ':') {
				colon = p + i;
				break;
			}
		if (!colon || colon == p || (size_t)(p + len - colon - 1) >= sizeof(num))
			return cli_error(EXIT_USAGE, CMD, "--cc-mix: '%.*s' is not NAME:COUNT", (int)len, p);
		memcpy(num, colon + 1, (size_t)(p + len - colon - 1));
		num[p + len - colon - 1] = 0;
		if (cli_parse_u64(num, &count) || !count)
			return cli_error(EXIT_USAGE, CMD, "--cc-mix: '%.*s': the count must be a positive number", (int)len,
					 p);
		const char *spec = flow_list_own(l, p, (size_t)(colon - p));
		if (!spec)
			return cli_error(EXIT_FAIL, CMD, "out of memory");
		int rc = flow_list_add(l, spec, count, NULL);
		if (rc)
			return rc;
		p += len;
		if (*p == ',' && !*++p)
			return cli_error(EXIT_USAGE, CMD, "--cc-mix: trailing ','");
	}
	return 0;
}

/* "64k", "10M", "1G", "1500" (bytes, decimal multiples). */
static int parse_bytes(const char *s, uint64_t *out)
{
	char buf[32];
	size_t n = strlen(s);
	uint64_t mul = 1, v;

	if (!n || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n + 1);
	switch (buf[n - 1]) {
	case 'k': case 'K': mul = 1000; break;
	case 'm': case 'M': mul = 1000000; break;
	case 'g': case 'G': mul = 1000000000; break;
	}
	if (mul > 1)
		buf[--n] = 0;
	if (cli_parse_u64(buf, &v) || v > UINT64_MAX / mul)
		return -EINVAL;
	*out = v * mul;
	return 0;
}

/* --flow-file: "CC [START [BYTES [COUNT]]]" per line, '#' comments, blank lines. */
static int parse_flow_file(struct flow_list *l, const char *path)
{
	FILE *in = fopen(path, "r");
	char line[4096];
	unsigned int lineno = 0;
	int rc = 0;

	if (!in)
		return cli_error(EXIT_FAIL, CMD, "--flow-file %s: %s", path, strerror(errno));
	while (!rc && fgets(line, sizeof(line), in)) {
		char *save = NULL, *tok[5], *hash = strchr(line, '#');
		unsigned int nt = 0;
		struct flow_spec t = { 0 };
		uint64_t count = 1;

		lineno++;
		if (!strchr(line, '\n') && !feof(in)) {
			rc = cli_error(EXIT_USAGE, CMD, "%s:%u: line too long", path, lineno);
			break;
		}
		if (hash)
			*hash = 0;
		for (char *w = strtok_r(line, " \t\r\n", &save); w; w = strtok_r(NULL, " \t\r\n", &save)) {
			if (nt == 4) {
				rc = cli_error(EXIT_USAGE, CMD, "%s:%u: expected CC [START [BYTES [COUNT]]]", path, lineno);
				break;
			}
			tok[nt++] = w;
		}
		if (rc || !nt)
			continue;
		if (nt > 1) {
			if (parse_time_us(tok[1], 1000000, &t.start_us)) {
				rc = cli_error(EXIT_USAGE, CMD, "%s:%u: '%s' is not a start time (e.g. 0, 1.5s, 200ms)", path,
					       lineno, tok[1]);
				break;
			}
			t.has_start = true;
		}
		if (nt > 2) {
			if (parse_bytes(tok[2], &t.bytes)) {
				rc = cli_error(EXIT_USAGE, CMD, "%s:%u: '%s' is not a size in bytes (e.g. 64k, 0)", path, lineno,
					       tok[2]);
				break;
			}
			t.has_bytes = true;
		}
		if (nt > 3 && (cli_parse_u64(tok[3], &count) || !count)) {
			rc = cli_error(EXIT_USAGE, CMD, "%s:%u: '%s' is not a positive count", path, lineno, tok[3]);
			break;
		}
		const char *spec = flow_list_own(l, tok[0], strlen(tok[0]));
		if (!spec) {
			rc = cli_error(EXIT_FAIL, CMD, "out of memory");
			break;
		}
		rc = flow_list_add(l, spec, count, &t);
		if (rc)
			fprintf(stderr, "kbpf tcp-sim: (in %s:%u)\n", path, lineno);
	}
	if (!rc && ferror(in))
		rc = cli_error(EXIT_FAIL, CMD, "--flow-file %s: %s", path, strerror(errno));
	fclose(in);
	if (!rc && !l->n)
		rc = cli_error(EXIT_USAGE, CMD, "--flow-file %s: no flow", path);
	return rc;
}

/* The summary above LIST_FLOWS flows: one line per congestion control. */
static void print_per_cc(struct kbpf_tcp_sim *sim, unsigned int n)
{
	struct agg {
		char cc[TCP_CA_NAME_MAX];
		unsigned int flows, done;
		double sum, min, max;
		uint64_t retrans, rtos;
		double fct_sum, fct_max; /* completion times of finite flows, s */
	} a[64];
	unsigned int na = 0, other = 0;

	for (unsigned int i = 0; i < n; i++) {
		struct kbpf_tcp_flow_stats fs;
		unsigned int k;

		kbpf_tcp_sim_flow_stats(sim, i, &fs);
		for (k = 0; k < na && strcmp(a[k].cc, fs.cc); k++)
			;
		if (k == na) {
			if (na == sizeof(a) / sizeof(a[0])) {
				other++;
				continue;
			}
			memset(&a[na], 0, sizeof(a[na]));
			memcpy(a[na].cc, fs.cc, TCP_CA_NAME_MAX);
			a[na].min = 1e300;
			na++;
		}
		double g = (double)fs.goodput_bps;
		a[k].flows++;
		a[k].sum += g;
		a[k].min = g < a[k].min ? g : a[k].min;
		a[k].max = g > a[k].max ? g : a[k].max;
		a[k].retrans += fs.retransmits;
		a[k].rtos += fs.rtos;
		if (fs.completion_us) {
			double fct = fs.completion_us / 1e6;

			a[k].done++;
			a[k].fct_sum += fct;
			a[k].fct_max = fct > a[k].fct_max ? fct : a[k].fct_max;
		}
	}
	printf("%-11s %6s %13s %12s %12s %12s %10s %8s %6s\n", "cc", "flows", "goodput", "mean", "min", "max",
	       "retrans", "rtos", "done");
	for (unsigned int k = 0; k < na; k++) {
		printf("%-11s %6u %8.2f Mb/s %7.3f Mb/s %7.3f Mb/s %7.3f Mb/s %10llu %8llu %6u", a[k].cc, a[k].flows,
		       a[k].sum / 1e6, a[k].sum / a[k].flows / 1e6, a[k].min / 1e6, a[k].max / 1e6,
		       (unsigned long long)a[k].retrans, (unsigned long long)a[k].rtos, a[k].done);
		if (a[k].done)
			printf("  completion mean %.3f s, max %.3f s", a[k].fct_sum / a[k].done, a[k].fct_max);
		printf("\n");
	}
	if (other)
		printf("(%u flows of further congestion controls not listed)\n", other);
}

/* BPF CCs of the command line: each object loaded once, each of its maps made a CC once
 * and registered by name in the simulation. */
struct bpf_ccs {
	struct kbpf_host *host;
	const char *host_file; /* --host: the host BPF CCs load on (cli_host_new) */
	struct {
		char *path;
		struct kbpf_object *obj;
	} objs[MAX_BPF_OBJS];
	unsigned int nr_objs;
	struct {
		char *spec;
		struct kbpf_tcp_bpf_cc *cc;
	} ccs[MAX_BPF_OBJS];
	unsigned int nr_ccs;
};

static int jit_default(void)
{
#if defined(__x86_64__)
	return 1;
#else
	return 0;
#endif
}

static void bpf_ccs_free(struct bpf_ccs *b)
{
	for (unsigned int i = 0; i < b->nr_ccs; i++) {
		kbpf_tcp_bpf_cc_free(b->ccs[i].cc);
		free(b->ccs[i].spec);
	}
	for (unsigned int i = 0; i < b->nr_objs; i++) {
		kbpf_object_close(b->objs[i].obj);
		free(b->objs[i].path);
	}
	cli_host_free(b->host);
}

/* The CC of spec (FILE.o[:MAP]) in *ops, its name in name; 0, or a message was printed. */
static int bpf_cc_get(struct bpf_ccs *b, struct kbpf_tcp_sim *sim, const char *spec, int jit,
		      const struct tcp_congestion_ops **ops, char *name)
{
	const char *colon = strrchr(spec, ':');
	char path[4096], log[1024];
	struct kbpf_object *obj = NULL;
	struct kbpf_tcp_bpf_cc *cc;
	unsigned int i;
	int err;

	for (i = 0; i < b->nr_ccs; i++)
		if (!strcmp(b->ccs[i].spec, spec)) {
			*ops = kbpf_tcp_bpf_cc_ops(b->ccs[i].cc);
			snprintf(name, TCP_CA_NAME_MAX, "%s", (*ops)->name);
			return 0;
		}
	if (b->nr_ccs >= MAX_BPF_OBJS) {
		cli_error(EXIT_USAGE, CMD, "--cc %s: at most %d distinct BPF congestion controls", spec, MAX_BPF_OBJS);
		return -1;
	}
	snprintf(path, sizeof(path), "%.*s", (int)(colon ? colon - spec : (ptrdiff_t)strlen(spec)), spec);
	if (!b->host) {
		struct cli_host_opts ho = { .host_file = b->host_file };
		if (!(b->host = cli_host_new(CMD, &ho)))
			return -1;
	}
	for (i = 0; i < b->nr_objs; i++)
		if (!strcmp(b->objs[i].path, path))
			obj = b->objs[i].obj;
	if (!obj) {
		struct cli_open_opts oo = { .load = true, .jit = jit };
		if (cli_object_open_with(CMD, path, b->host, &oo, &obj))
			return -1;
		b->objs[b->nr_objs].obj = obj;
		if (!(b->objs[b->nr_objs++].path = strdup(path))) {
			cli_error(EXIT_FAIL, CMD, "out of memory");
			return -1;
		}
	}
	struct kbpf_tcp_bpf_cc_opts o = { .sz = sizeof(o), .log_buf = log, .log_size = sizeof(log) };
	err = kbpf_tcp_bpf_cc_load(obj, colon ? colon + 1 : NULL, b->host, &o, &cc);
	if (err) {
		cli_error(EXIT_FAIL, CMD, "--cc %s: %s", spec, log[0] ? log : strerror(-err));
		return -1;
	}
	b->ccs[b->nr_ccs].cc = cc;
	if (!(b->ccs[b->nr_ccs++].spec = strdup(spec))) {
		cli_error(EXIT_FAIL, CMD, "out of memory");
		return -1;
	}
	*ops = kbpf_tcp_bpf_cc_ops(cc);
	err = kbpf_tcp_sim_register_cc(sim, *ops);
	if (err) {
		cli_error(EXIT_FAIL, CMD, "--cc %s: cannot register \"%s\": %s", spec, (*ops)->name,
			  err == -EEXIST ? "a congestion control of that name exists" : strerror(-err));
		return -1;
	}
	snprintf(name, TCP_CA_NAME_MAX, "%s", (*ops)->name);
	return 0;
}

static void script_report(const char *msg, void *ctx)
{
	(void)ctx;
	printf("%s\n", msg);
}

/* --script: the file's lines drive one sender (kbpf_tcp_script_run). */
static int run_script(const char *path, const struct tcp_congestion_ops *ops, const char *trace_path,
		      bool keep_going, bool quiet)
{
	struct kbpf_tcp_script_opts so = { .sz = sizeof(so), .name = path, .keep_going = keep_going,
					   .report = script_report };
	struct kbpf_tcp_script_result res;
	FILE *in = fopen(path, "r"), *trace = NULL;
	char *text = NULL;
	size_t len = 0, cap = 0, n;
	int err, rc = EXIT_FAIL;

	if (!in)
		return cli_error(EXIT_FAIL, CMD, "--script %s: %s", path, strerror(errno));
	do {
		if (cap - len < 4096) {
			char *t = cap > (64U << 20) ? NULL : realloc(text, cap + 65536);

			if (!t) {
				fclose(in);
				free(text);
				return cli_error(EXIT_FAIL, CMD, "--script %s: too large or out of memory", path);
			}
			text = t;
			cap += 65536;
		}
		n = fread(text + len, 1, cap - len - 1, in);
		len += n;
	} while (n);
	text[len] = 0;
	fclose(in);
	if (strlen(text) != len) {
		free(text);
		return cli_error(EXIT_FAIL, CMD, "--script %s: not a text file", path);
	}
	if (trace_path) {
		if (!(trace = fopen(trace_path, "w"))) {
			free(text);
			return cli_error(EXIT_FAIL, CMD, "cannot write %s: %s", trace_path, strerror(errno));
		}
		trace_header(trace, false);
		so.trace = trace_csv;
		so.trace_ctx = trace;
	}
	fflush(stdout);
	err = kbpf_tcp_script_run(text, ops, &so, &res);
	free(text);
	if (trace && fclose(trace) && !err)
		return cli_error(EXIT_FAIL, CMD, "writing the trace failed: %s", strerror(errno));
	if (err)
		return cli_error(EXIT_FAIL, CMD, "--script %s: %s", path,
				 err == -EINVAL ? "the script cannot run (see above)" : strerror(-err));
	if (!quiet)
		printf("%s: %s: %u assertions, %u failed, %u ACKs\n", path, ops->name, res.checks, res.failed,
		       res.acks);
	rc = res.failed ? EXIT_FAIL : EXIT_OK;
	return rc;
}

static int tcp_sim(int argc, char **argv, struct flow_list *flp)
{
	enum { O_CC = 1, O_RATE, O_DELAY, O_QUEUE, O_LOSS, O_ECNT, O_ECN, O_BYTES, O_STAGGER, O_DURATION, O_SEED,
	       O_TRACE, O_PLOT, O_QUIET, O_HELP, O_JIT, O_NO_JIT, O_SCRIPT, O_KEEP_GOING, O_CC_MIX, O_FLOWS,
	       O_FLOW_FILE, O_PER_FLOW, O_TSO, O_SACK_COMPRESS, O_HOST, O_TRACE_BBR, O_SACK_IDEAL, O_GRO, O_GRO_WINDOW,
	       O_FQ, O_REORDER, O_QUEUE_LOG, O_JITTER };
	static const struct option longopts[] = {
		{ "cc", required_argument, 0, O_CC },	     { "rate", required_argument, 0, O_RATE },
		{ "delay", required_argument, 0, O_DELAY },   { "queue", required_argument, 0, O_QUEUE },
		{ "loss", required_argument, 0, O_LOSS },     { "ecn-threshold", required_argument, 0, O_ECNT },
		{ "ecn", no_argument, 0, O_ECN },	     { "bytes", required_argument, 0, O_BYTES },
		{ "stagger", required_argument, 0, O_STAGGER }, { "duration", required_argument, 0, O_DURATION },
		{ "seed", required_argument, 0, O_SEED },     { "trace", required_argument, 0, O_TRACE },
		{ "plot", required_argument, 0, O_PLOT },     { "quiet", no_argument, 0, O_QUIET },
		{ "help", no_argument, 0, O_HELP },	     { "jit", no_argument, 0, O_JIT },
		{ "no-jit", no_argument, 0, O_NO_JIT },	     { "script", required_argument, 0, O_SCRIPT },
		{ "keep-going", no_argument, 0, O_KEEP_GOING }, { "cc-mix", required_argument, 0, O_CC_MIX },
		{ "flows", required_argument, 0, O_FLOWS },   { "flow-file", required_argument, 0, O_FLOW_FILE },
		{ "per-flow", no_argument, 0, O_PER_FLOW },   { "tso", no_argument, 0, O_TSO },
		{ "sack-compress", no_argument, 0, O_SACK_COMPRESS }, { "host", required_argument, 0, O_HOST },
		{ "trace-bbr", no_argument, 0, O_TRACE_BBR }, { "sack-ideal", no_argument, 0, O_SACK_IDEAL },
		{ "gro", required_argument, 0, O_GRO },	     { "gro-window", required_argument, 0, O_GRO_WINDOW },
		{ "fq", no_argument, 0, O_FQ },	     { "reorder", required_argument, 0, O_REORDER },
		{ "queue-log", required_argument, 0, O_QUEUE_LOG },
		{ "jitter", required_argument, 0, O_JITTER },
		{ 0, 0, 0, 0 },
	};
	struct kbpf_tcp_sim_opts so = { .sz = sizeof(so), .rate_bps = 20000000, .delay_us = 20000, .seed = 1 };
	struct bpf_ccs bpf = { 0 };
	int jit = jit_default();
	char (*names)[TCP_CA_NAME_MAX] = NULL;
	unsigned int nflows = 0;
	uint64_t want_flows = 0;
	bool per_flow = false, tso = false, sack_compress = false, trace_bbr = false, sack_ideal = false, fq = false;
	uint32_t gro = 0, gro_window_us = 0;
	struct trace_bbr_ctx tbc;
	uint64_t duration = 30000000, bytes = 0, stagger = 0, v;
	const char *trace_path = NULL, *plot_path = NULL, *script_path = NULL, *qlog_path = NULL;
	const char *link_opt = NULL; /* the last link option given (--rate, --loss…) */
	bool keep_going = false;
	char tmp_csv[] = "/tmp/kbpf-tcp-sim-XXXXXX";
	bool quiet = false, ecn = false, tmp_used = false;
	FILE *trace = NULL, *qlog = NULL;
	struct kbpf_tcp_sim *sim = NULL;
	int opt, err, rc = EXIT_FAIL;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case O_CC:
			/* BPF CCs are loaded once the options are known (--jit) */
			if (!kbpf_tcp_cc_find(optarg) && !is_bpf_spec(optarg)) {
				return cli_error(EXIT_USAGE, CMD, "--cc %s: unknown congestion control (reno, cubic, dctcp, bbr)",
						 optarg);
			}
			if ((rc = flow_list_add(flp, optarg, 1, NULL)))
				return rc;
			break;
		case O_CC_MIX:
			if ((rc = parse_cc_mix(flp, optarg)))
				return rc;
			break;
		case O_FLOW_FILE:
			if ((rc = parse_flow_file(flp, optarg)))
				return rc;
			break;
		case O_FLOWS:
			if (cli_parse_u64(optarg, &want_flows) || !want_flows || want_flows > MAX_FLOWS) {
				return cli_error(EXIT_USAGE, CMD, "--flows: '%s' is not a flow count (1..%d)", optarg, MAX_FLOWS);
			}
			break;
		case O_PER_FLOW:
			per_flow = true;
			break;
		case O_TSO:
			tso = true;
			break;
		case O_TRACE_BBR:
			trace_bbr = true;
			break;
		case O_SACK_COMPRESS:
			sack_compress = true;
			break;
		case O_SACK_IDEAL:
			sack_ideal = true;
			break;
		case O_GRO:
			if (cli_parse_u64(optarg, &v) || !v || v > KBPF_TCP_SIM_MAX_GRO_SEGS)
				return cli_error(EXIT_USAGE, CMD, "--gro: '%s' is not a segment count (1..%d)", optarg,
						 KBPF_TCP_SIM_MAX_GRO_SEGS);
			gro = (uint32_t)v;
			break;
		case O_GRO_WINDOW:
			if (parse_time_us(optarg, 1, &v) || !v || v > 1000000)
				return cli_error(EXIT_USAGE, CMD, "--gro-window: '%s' is not a time (1us..1s, e.g. 100us)",
						 optarg);
			gro_window_us = (uint32_t)v;
			break;
		case O_FQ:
			fq = true;
			break;
		case O_HOST:
			bpf.host_file = optarg;
			break;
		case O_RATE:
			link_opt = "--rate";
			if (parse_rate(optarg, &so.rate_bps))
				return cli_error(EXIT_USAGE, CMD, "--rate: '%s' is not a rate (e.g. 20M, 1G)", optarg);
			break;
		case O_DELAY:
			link_opt = "--delay";
			if (parse_time_us(optarg, 1000, &v) || !v || v > 10000000)
				return cli_error(EXIT_USAGE, CMD, "--delay: '%s' is not a delay (e.g. 20ms)", optarg);
			so.delay_us = (uint32_t)v;
			break;
		case O_QUEUE:
			link_opt = "--queue";
			if (cli_parse_u64(optarg, &v) || !v || v > 1000000)
				return cli_error(EXIT_USAGE, CMD, "--queue: '%s' is not a packet count (1..1000000)", optarg);
			so.queue_pkts = (uint32_t)v;
			break;
		case O_LOSS:
			link_opt = "--loss";
			if (parse_loss(optarg, &so.loss))
				return cli_error(EXIT_USAGE, CMD, "--loss: '%s' is not a probability (e.g. 0.01 or 1%%)", optarg);
			break;
		case O_REORDER: {
			char p[64];

			link_opt = "--reorder";
			const char *comma = strchr(optarg, ',');
			size_t n = comma ? (size_t)(comma - optarg) : strlen(optarg);

			if (n >= sizeof(p))
				n = sizeof(p) - 1;
			memcpy(p, optarg, n);
			p[n] = 0;
			if (parse_loss(p, &so.reorder) ||
			    (comma && (parse_time_us(comma + 1, 1000, &v) || !v || v > 10000000)))
				return cli_error(EXIT_USAGE, CMD,
						 "--reorder: '%s' is not P[,D] (e.g. 1%% or 0.01,1ms)", optarg);
			so.reorder_delay_us = comma ? (uint32_t)v : 0;
			break;
		}
		case O_JITTER:
			if (parse_time_ns(optarg, &v) || v > 10000000)
				return cli_error(EXIT_USAGE, CMD, "--jitter: '%s' is not a time of at most 10 ms (e.g. 40us)",
						 optarg);
			so.jitter_ns = (uint32_t)v;
			break;
		case O_ECNT:
			link_opt = "--ecn-threshold";
			if (cli_parse_u64(optarg, &v) || v > 1000000)
				return cli_error(EXIT_USAGE, CMD, "--ecn-threshold: '%s' is not a packet count", optarg);
			so.ecn_threshold_pkts = (uint32_t)v;
			break;
		case O_ECN:
			ecn = true;
			break;
		case O_BYTES:
			if (parse_bytes(optarg, &bytes))
				return cli_error(EXIT_USAGE, CMD, "--bytes: '%s' is not a size in bytes (e.g. 64k, 10M)", optarg);
			break;
		case O_STAGGER:
			if (parse_time_us(optarg, 1000000, &stagger))
				return cli_error(EXIT_USAGE, CMD, "--stagger: '%s' is not a time (e.g. 2s)", optarg);
			break;
		case O_DURATION:
			if (parse_time_us(optarg, 1000000, &duration) || !duration || duration > 86400ULL * 1000000)
				return cli_error(EXIT_USAGE, CMD, "--duration: '%s' is not a duration (e.g. 30s)", optarg);
			break;
		case O_SEED:
			if (cli_parse_u64(optarg, &so.seed))
				return cli_error(EXIT_USAGE, CMD, "--seed: '%s' is not a number", optarg);
			break;
		case O_TRACE:
			trace_path = optarg;
			break;
		case O_QUEUE_LOG:
			qlog_path = optarg;
			break;
		case O_PLOT:
			plot_path = optarg;
			break;
		case O_QUIET:
			quiet = true;
			break;
		case O_JIT:
			jit = 1;
			break;
		case O_NO_JIT:
			jit = 0;
			break;
		case O_SCRIPT:
			script_path = optarg;
			break;
		case O_KEEP_GOING:
			keep_going = true;
			break;
		case 'h':
		case O_HELP:
			usage_tcp_sim();
			return EXIT_OK;
		default:
			return cli_error(EXIT_USAGE, CMD, "unknown or incomplete option '%s' (see 'kbpf tcp-sim --help')",
					 argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_error(EXIT_USAGE, CMD, "unexpected argument '%s'", argv[optind]);
	if (!flp->n)
		return cli_error(EXIT_USAGE, CMD, "no flow: give at least one --cc NAME");
	if (want_flows) {
		unsigned int given = flp->n;

		if (want_flows < given)
			return cli_error(EXIT_USAGE, CMD, "--flows %llu: fewer than the %u flows given",
					 (unsigned long long)want_flows, given);
		/* the list given, repeated in turn */
		for (unsigned int i = given; i < want_flows; i++) {
			struct flow_spec t = flp->v[i % given];

			if ((rc = flow_list_add(flp, t.spec, 1, &t)))
				return rc;
		}
	}
	nflows = flp->n;
	rc = EXIT_FAIL;
	if (script_path && (nflows != 1 || plot_path))
		return cli_error(EXIT_USAGE, CMD, "--script drives one sender: give exactly one --cc, and no --plot");
	if (keep_going && !script_path)
		return cli_error(EXIT_USAGE, CMD, "--keep-going goes with --script");
	/* the scripted peer's sender is no flow of a simulation kbpf_tcp_sim_bbr_info can ask */
	if (trace_bbr && (!trace_path || script_path))
		return cli_error(EXIT_USAGE, CMD, "--trace-bbr goes with --trace, and not with --script");
	if (fq && script_path)
		return cli_error(EXIT_USAGE, CMD, "--fq is for simulated flows; a script says 'pacing fq'");
	if (qlog_path && script_path)
		return cli_error(EXIT_USAGE, CMD, "--queue-log is for simulated links; a script has none");
	if (so.jitter_ns && script_path)
		return cli_error(EXIT_USAGE, CMD, "--jitter is for simulated links; a script has none");
	/* the scripted peer replaces the link: its options were silently ignored */
	if (link_opt && script_path)
		return cli_error(EXIT_USAGE, CMD, "%s is for simulated links; a script has none", link_opt);
	if (plot_path) {
		const char *dot = strrchr(plot_path, '.');

		/* The paths go into a gnuplot script inside quotes. */
		if (strpbrk(plot_path, "'\"\n") || (trace_path && strpbrk(trace_path, "'\"\n")))
			return cli_error(EXIT_USAGE, CMD, "--plot/--trace: file names with quotes are not supported");

		if (!dot || (strcmp(dot, ".svg") && strcmp(dot, ".png")))
			return cli_error(EXIT_USAGE, CMD, "--plot %s: the file must end in .svg or .png", plot_path);
		/* before the simulation: gnuplot's own error about it ended a finished run
		 * with "gnuplot failed (exit 1); is gnuplot installed?" */
		FILE *pf = fopen(plot_path, "a");
		if (!pf)
			return cli_error(EXIT_FAIL, CMD, "cannot write %s: %s", plot_path, strerror(errno));
		fclose(pf);
	}

	if (plot_path && nflows > PLOT_FLOWS)
		return cli_error(EXIT_USAGE, CMD, "--plot draws at most %d flows (%u given); use --trace", PLOT_FLOWS, nflows);
	if (!(names = calloc(nflows, sizeof(*names))))
		return cli_error(EXIT_FAIL, CMD, "out of memory");
	if ((err = kbpf_tcp_sim_create(&so, &sim))) {
		free(names);
		return cli_error(EXIT_USAGE, CMD, "bad link parameters: %s", strerror(-err));
	}
	for (unsigned int i = 0; i < nflows; i++) {
		struct flow_spec *fs = &flp->v[i];

		snprintf(names[i], TCP_CA_NAME_MAX, "%s", fs->spec);
		if (!fs->ops && bpf_cc_get(&bpf, sim, fs->spec, jit, &fs->ops, names[i]))
			goto out;
	}
	if (script_path) {
		rc = run_script(script_path, flp->v[0].ops, trace_path, keep_going, quiet);
		goto out;
	}
	for (unsigned int i = 0; i < nflows; i++) {
		const struct flow_spec *fs = &flp->v[i];
		struct kbpf_tcp_flow_opts fo = { .sz = sizeof(fo),
						 .start_us = fs->has_start ? fs->start_us : stagger * i,
						 .bytes = fs->has_bytes ? fs->bytes : bytes,
						 .tso = tso,
						 .sack_compress = sack_compress,
						 .sack_ideal = sack_ideal,
						 .gro = gro,
						 .gro_window_us = gro_window_us,
						 .fq = fq };

		if (ecn) {
			fo.tcp_ecn = 1;
			fo.tcp_ecn_set = 1;
		}
		if ((err = kbpf_tcp_sim_add_flow(sim, fs->ops, &fo, NULL))) {
			cli_error(EXIT_FAIL, CMD, "cannot add flow %u (%s): %s", i, names[i], strerror(-err));
			goto out;
		}
	}
	if (plot_path && !trace_path) {
		int fd = mkstemp(tmp_csv);

		if (fd < 0) {
			cli_error(EXIT_FAIL, CMD, "cannot create a temporary file: %s", strerror(errno));
			goto out;
		}
		trace = fdopen(fd, "w");
		tmp_used = true;
	} else if (trace_path) {
		trace = fopen(trace_path, "w");
	}
	if ((trace_path || plot_path) && !trace) {
		cli_error(EXIT_FAIL, CMD, "cannot write %s: %s", trace_path ? trace_path : tmp_csv, strerror(errno));
		goto out;
	}
	if (trace) {
		trace_header(trace, trace_bbr);
		tbc = (struct trace_bbr_ctx){ trace, sim };
		if (trace_bbr)
			kbpf_tcp_sim_set_trace(sim, trace_csv_bbr, &tbc);
		else
			kbpf_tcp_sim_set_trace(sim, trace_csv, trace);
	}
	if (qlog_path) {
		if (!(qlog = fopen(qlog_path, "w"))) {
			cli_error(EXIT_FAIL, CMD, "cannot write %s: %s", qlog_path, strerror(errno));
			goto out;
		}
		kbpf_tcp_sim_set_queue_sampler(sim, 1000, queue_log, qlog);
	}
	if ((err = kbpf_tcp_sim_run(sim, duration))) {
		cli_error(EXIT_FAIL, CMD, "simulation failed: %s", strerror(-err));
		goto out;
	}
	if (qlog) {
		err = fclose(qlog);
		qlog = NULL;
		if (err) {
			cli_error(EXIT_FAIL, CMD, "writing %s failed: %s", qlog_path, strerror(errno));
			goto out;
		}
	}
	if (trace) {
		if (fclose(trace)) {
			trace = NULL;
			cli_error(EXIT_FAIL, CMD, "writing the trace failed: %s", strerror(errno));
			goto out;
		}
		trace = NULL;
	}

	if (!quiet) {
		struct kbpf_tcp_sim_stats st;

		kbpf_tcp_sim_stats(sim, &st);
		char ecn_thr[32] = "off";

		if (so.ecn_threshold_pkts)
			snprintf(ecn_thr, sizeof(ecn_thr), "%u packets", so.ecn_threshold_pkts);
		printf("link: %.6g Mbit/s, RTT %.6g ms, queue %u packets, loss %g, ECN threshold %s; %.6g s, seed %llu\n",
		       so.rate_bps / 1e6, 2 * so.delay_us / 1e3, st.queue_limit, so.loss, ecn_thr, duration / 1e6,
		       (unsigned long long)so.seed);
		if (so.jitter_ns)
			printf("jitter: each data packet and ACK up to %.6g us late (uniform)\n", so.jitter_ns / 1e3);
		if (per_flow || nflows <= LIST_FLOWS)
			printf("%-4s %-11s %10s %9s %6s %8s %7s %9s %9s %4s\n", "flow", "cc", "goodput", "retrans", "rtos",
			       "lost", "cwnd", "srtt_ms", "minrtt_ms", "ecn");
		else
			print_per_cc(sim, nflows);
		for (unsigned int i = 0; i < nflows && (per_flow || nflows <= LIST_FLOWS); i++) {
			struct kbpf_tcp_flow_stats fs;

			kbpf_tcp_sim_flow_stats(sim, i, &fs);
			printf("%-4u %-11s %5.2f Mb/s %9llu %6llu %8llu %7u %9.2f %9.2f %4s", i, fs.cc, fs.goodput_bps / 1e6,
			       (unsigned long long)fs.retransmits, (unsigned long long)fs.rtos, (unsigned long long)fs.lost,
			       fs.cwnd, fs.srtt_us / 1e3, fs.min_rtt_us / 1e3, fs.ecn_ok ? "yes" : "no");
			if (fs.completion_us)
				printf("  done at %.3f s", fs.completion_us / 1e6);
			printf("\n");
		}
		printf("queue (packets at arrival): p50 %u, p95 %u, p99 %u, max %u; drops %llu (queue) + %llu (random); "
		       "CE marks %llu\n",
		       st.queue_p50, st.queue_p95, st.queue_p99, st.queue_max, (unsigned long long)st.drops_queue,
		       (unsigned long long)st.drops_random, (unsigned long long)st.ce_marks);
		printf("Jain fairness index: %.4f\n", st.jain);
		{
			uint64_t rec = 0;

			for (unsigned int i = 0; i < nflows; i++) {
				struct kbpf_tcp_flow_stats fs;

				kbpf_tcp_sim_flow_stats(sim, i, &fs);
				rec += fs.recoveries;
			}
			/* Linux's TcpExtTCPSackRecovery: an exit and a new entry on one ACK count twice,
			 * where a per-ACK trace sees one episode */
			if (rec)
				printf("entries into Recovery: %llu\n", (unsigned long long)rec);
		}
		if (so.reorder > 0) {
			uint64_t dsacks = 0, seen = 0;
			uint32_t degree = 0, steps = 0;

			for (unsigned int i = 0; i < nflows; i++) {
				struct kbpf_tcp_flow_stats fs;

				kbpf_tcp_sim_flow_stats(sim, i, &fs);
				dsacks += fs.dsack_segs;
				seen += fs.reord_seen;
				degree = fs.reordering > degree ? fs.reordering : degree;
				steps = fs.reo_wnd_steps > steps ? fs.reo_wnd_steps : steps;
			}
			printf("reordering: %llu packets delayed; senders saw it %llu times, degree up to %u, "
			       "RACK reo_wnd up to %u x min_rtt/4; %llu retransmissions D-SACKed (spurious)\n",
			       (unsigned long long)st.pkts_reordered, (unsigned long long)seen, degree, steps,
			       (unsigned long long)dsacks);
		}
	}
	if (plot_path) {
		struct kbpf_tcp_sim_opts eff = so;
		struct kbpf_tcp_sim_stats st;

		kbpf_tcp_sim_stats(sim, &st);
		eff.queue_pkts = st.queue_limit;
		rc = plot(plot_path, trace_path ? trace_path : tmp_csv, names, nflows, &eff);
		if (rc != EXIT_OK)
			goto out;
		if (!quiet)
			printf("plot: %s\n", plot_path);
	}
	rc = EXIT_OK;
out:
	if (trace)
		fclose(trace);
	if (qlog)
		fclose(qlog);
	if (tmp_used)
		unlink(tmp_csv);
	kbpf_tcp_sim_free(sim); /* before the BPF CCs it runs */
	bpf_ccs_free(&bpf);
	free(names);
	return rc;
}

int cmd_tcp_sim(int argc, char **argv)
{
	struct flow_list fl = { 0 };
	int rc = tcp_sim(argc, argv, &fl);

	flow_list_free(&fl);
	return rc;
}
