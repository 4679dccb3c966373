/* SPDX-License-Identifier: Apache-2.0 */
/* The scripted peer (docs/tcp-sim.md "Scripted peer"): a script replaces the simulated
 * receiver and link, the way packetdrill drives a kernel socket. The sender is the
 * simulator's, unchanged; the script says when the connection is established, when the
 * application writes, which ACKs arrive when, and what the sender's state must then be.
 * Between the script's events the simulator runs the sender's timers (RTO, TLP, RACK,
 * pacing), so a probe or an RTO happens when Linux's would.
 *
 * The line format is our own (packetdrill's syntax is not parsed):
 *   [TIME] COMMAND ARGS…        TIME: "1.5" s absolute, "+0.1" relative (default "+0"),
 *                                with an optional unit s/ms/us
 *   mss N | sack on|off | timestamps on|off | ecn on|off | init_cwnd N | pacing none|fq |
 *   min_tso_segs N | tlp on|off | hystart_detect N | slow_start_after_idle 0|1
 *                                (set-up, before connect)
 *   connect [rtt=]DUR           the handshake completes now; its RTT sample is DUR
 *   write BYTES|unlimited       the application queues data; the sender sends what it may
 *   ack SEQ|+BYTES [sack A:B]… [dsack A:B] [ece] [clamp]
 *                                the peer's ACK (relative sequence numbers: data starts at 1;
 *                                +BYTES from the previous ACK; clamp[=DUR]: no further
 *                                than the segments sent DUR (default 0) ago or earlier)
 *   +D repeat N CMD…            ack, write or wait N times, D apart
 *   expect FIELD=VALUE…         assertions on the sender after the events so far
 *   wait                        only let time pass (timers run) */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sim_internal.h"
#include "tcp_host_internal.h"

#define SCRIPT_MAX_TOKENS 32
#define SCRIPT_MAX_LINE 1024

struct script {
	const struct kbpf_tcp_script_opts *o;
	struct kbpf_tcp_script_result *res;
	const char *name;
	unsigned int line;
	bool dry; /* first pass: syntax only */
	struct sim *s;
	struct sim_flow *f;
	const struct tcp_congestion_ops *ops;
	__u64 now_us; /* the script's clock, µs since the simulation started */
	bool connected;
	/* set-up */
	__u32 mss;
	bool timestamps, ecn, fq;
	bool stop; /* an assertion failed and keep_going is off */
	__u64 last_ack; /* the last ACK's sequence number: "ack +N" counts from it */
};

static void say(struct script *sc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct script *sc, const char *fmt, ...)
{
	char msg[512];
	int n;
	va_list ap;

	if (!sc->o->report)
		return;
	n = snprintf(msg, sizeof(msg), "%s:%u: ", sc->name, sc->line);
	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
	va_end(ap);
	sc->o->report(msg, sc->o->report_ctx);
}

/* A syntax or model error: reported, and the run ends with -EINVAL. */
static int bad(struct script *sc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(struct script *sc, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	say(sc, "%s", msg);
	return -EINVAL;
}

static int parse_u64(const char *s, __u64 *out)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_u32(const char *s, __u32 *out)
{
	__u64 v;

	if (parse_u64(s, &v) || v > UINT32_MAX)
		return -EINVAL;
	*out = (__u32)v;
	return 0;
}

/* "0.1", "100ms", "250us", "2s": µs (default unit: s). */
static int parse_dur(const char *s, __u64 *out)
{
	char *end;
	double v, scale = 1e6;

	if ((*s < '0' || *s > '9') && *s != '.')
		return -EINVAL;
	v = strtod(s, &end);
	if (end == s || !isfinite(v) || v < 0)
		return -EINVAL;
	if (!strcmp(end, "ms"))
		scale = 1e3;
	else if (!strcmp(end, "us"))
		scale = 1;
	else if (*end && strcmp(end, "s"))
		return -EINVAL;
	v *= scale;
	if (v > 1e12)
		return -EINVAL;
	*out = (__u64)llround(v);
	return 0;
}

static int parse_onoff(struct script *sc, const char *key, const char *v, bool *out)
{
	if (!v)
		return bad(sc, "%s: on or off expected", key);
	if (!strcmp(v, "on") || !strcmp(v, "1"))
		*out = true;
	else if (!strcmp(v, "off") || !strcmp(v, "0"))
		*out = false;
	else
		return bad(sc, "%s: on or off expected, not '%s'", key, v);
	return 0;
}

/* Relative sequence number seq (data byte 1 is segment 0's first) as a segment index;
 * it must fall on a segment boundary. */
static int seq_to_idx(struct script *sc, const char *tok, __u32 *idx)
{
	__u64 seq;

	if (parse_u64(tok, &seq) || !seq || seq > UINT32_MAX)
		return bad(sc, "'%s' is not a sequence number", tok);
	if ((seq - 1) % sc->mss)
		return bad(sc, "sequence number %llu is not on a segment boundary (1 + k × %u): partial segments are not modelled",
			   (unsigned long long)seq, sc->mss);
	*idx = (__u32)((seq - 1) / sc->mss);
	return 0;
}

static int parse_block(struct script *sc, const char *tok, struct sim_sack_block *b)
{
	char a[32];
	const char *colon = strchr(tok, ':');

	if (!colon || (size_t)(colon - tok) >= sizeof(a))
		return bad(sc, "SACK block '%s': START:END expected", tok);
	memcpy(a, tok, (size_t)(colon - tok));
	a[colon - tok] = 0;
	if (seq_to_idx(sc, a, &b->start) || seq_to_idx(sc, colon + 1, &b->end))
		return -EINVAL;
	if ((__s32)(b->end - b->start) <= 0)
		return bad(sc, "SACK block '%s' is empty", tok);
	return 0;
}

/* --- running the sender --- */

/* Let the simulation (the sender's timers) run up to the script's time. */
static int advance(struct script *sc, __u64 t_us)
{
	int err;

	if (sc->dry)
		return 0;
	err = kbpf_tcp_sim_run((struct kbpf_tcp_sim *)sc->s, t_us);
	if (err)
		return err;
	sc->s->now = SIM_T0_NS + t_us * NSEC_PER_USEC;
	return 0;
}

/* tcp_cwnd_restart: after an idle period longer than the RTO, at most the initial window,
 * halved once per further RTO of idleness. */
static void cwnd_restart(struct sim_flow *f, __s32 delta)
{
	struct tcp_sock *tp = &f->snd;
	__u32 restart = f->init_cwnd ? f->init_cwnd : TCP_INIT_CWND, cwnd = tp->snd_cwnd;

	kbpf_tcp_ca_event((struct sock *)tp, CA_EVENT_CWND_RESTART);
	tp->snd_ssthresh = sim_current_ssthresh(tp);
	if (restart > cwnd)
		restart = cwnd;
	while ((delta -= (__s32)tp->inet_conn.icsk_rto) > 0 && cwnd > restart)
		cwnd >>= 1;
	tp->snd_cwnd = cwnd > restart ? cwnd : restart;
	tp->snd_cwnd_stamp = kbpf_tcp_jiffies32(tp);
	tp->snd_cwnd_used = 0;
}

/* tcp_sendmsg: the application-limited check, then the new data is queued (the idle
 * check of skb_entail), then tcp_push. */
static void app_write(struct sim_flow *f, __u64 segs)
{
	struct tcp_sock *tp = &f->snd;
	__u32 inflight = tcp_packets_in_flight(tp);

	if (f->limit_segs == f->nxt_idx && inflight < tp->snd_cwnd && tp->lost_out <= tp->retrans_out)
		tp->app_limited = tp->delivered + inflight ? tp->delivered + inflight : 1;
	if (!f->ssai_off && !tp->packets_out && !tp->inet_conn.icsk_ca_ops->cong_control) {
		__s32 delta = (__s32)(kbpf_tcp_jiffies32(tp) - tp->lsndtime);

		if (delta > (__s32)tp->inet_conn.icsk_rto)
			cwnd_restart(f, delta);
	}
	if (segs == ~0ULL || f->limit_segs == ~0ULL || f->limit_segs + segs > (1ULL << 31))
		f->limit_segs = ~0ULL;
	else
		f->limit_segs += segs;
	sim_sender_xmit(f);
}

static void establish(struct script *sc, __u64 rtt_us)
{
	struct sim_flow *f = sc->f;
	struct tcp_sock *tp = &f->snd;

	f->started = true;
	f->start_ns = sc->s->now;
	f->ecn_ok = sc->ecn;
	f->tcp_ecn = sc->ecn ? 1 : 2;
	f->isn = 0; /* relative sequence numbers are absolute ones − 0 */
	f->mss = sc->timestamps ? sc->mss - 12 : sc->mss;
	f->limit_segs = 0;
	sim_sender_establish(f, rtt_us * NSEC_PER_USEC);
	/* tcp_rcv_state_process, SYN_RECV: pacing rate from the handshake RTT, and no idle
	 * restart for the first data. */
	if (!tp->inet_conn.icsk_ca_ops->cong_control)
		sim_update_pacing_rate(tp);
	tp->lsndtime = kbpf_tcp_jiffies32(tp);
	/* sch_fq marks the socket when its first packet passes through it; it holds each
	 * packet until its departure time, and TCP small queues keep TCP from getting ahead of
	 * it (sim_fq.c): the peer sees packets as fq releases them. */
	if (sc->fq) {
		if (!f->fq && sim_fq_create(f))
			sc->s->oom = 1;
		tp->inet_conn.icsk_inet.sk.sk_pacing_status = SK_PACING_FQ;
	}
}

/* --- assertions --- */

static const char *const ca_state_names[] = { "open", "disorder", "cwr", "recovery", "loss" };
static const char *const bbr_mode_names[] = { "startup", "drain", "probe_bw", "probe_rtt" };

enum val_kind { V_NUM, V_SSTHRESH, V_CA_STATE, V_BBR_MODE };

/* The value of field name on the sender, or -ENOENT. */
static int field_get(struct script *sc, const char *name, __u64 *v, enum val_kind *kind)
{
	struct sim_flow *f = sc->f;
	struct tcp_sock *tp = &f->snd;
	struct sock *sk = (struct sock *)tp;
	struct kbpf_tcp_bbr_peek bbr;

	*kind = V_NUM;
	if (!strcmp(name, "cwnd"))
		*v = tp->snd_cwnd;
	else if (!strcmp(name, "ssthresh")) {
		*v = tp->snd_ssthresh;
		*kind = V_SSTHRESH;
	} else if (!strcmp(name, "ca_state")) {
		*v = tp->inet_conn.icsk_ca_state;
		*kind = V_CA_STATE;
	} else if (!strcmp(name, "cwnd_cnt"))
		*v = tp->snd_cwnd_cnt;
	else if (!strcmp(name, "packets_out"))
		*v = tp->packets_out;
	else if (!strcmp(name, "sacked_out"))
		*v = tp->sacked_out;
	else if (!strcmp(name, "lost_out"))
		*v = tp->lost_out;
	else if (!strcmp(name, "retrans_out"))
		*v = tp->retrans_out;
	else if (!strcmp(name, "inflight"))
		*v = tcp_packets_in_flight(tp);
	else if (!strcmp(name, "snd_una"))
		*v = tp->snd_una - f->isn;
	else if (!strcmp(name, "snd_nxt"))
		*v = tp->snd_nxt - f->isn;
	else if (!strcmp(name, "delivered"))
		*v = tp->delivered;
	else if (!strcmp(name, "delivered_ce"))
		*v = tp->delivered_ce;
	else if (!strcmp(name, "lost"))
		*v = tp->lost;
	else if (!strcmp(name, "retrans"))
		*v = tp->total_retrans;
	else if (!strcmp(name, "sent"))
		*v = f->script_sent;
	else if (!strcmp(name, "rtos"))
		*v = f->rtos;
	else if (!strcmp(name, "pacing_rate"))
		*v = sk->sk_pacing_rate;
	else if (!strcmp(name, "srtt_us"))
		*v = tp->srtt_us >> 3;
	else if (!strcmp(name, "min_rtt_us"))
		*v = tcp_min_rtt(tp);
	else if (!strcmp(name, "rto_ms"))
		*v = (__u64)tp->inet_conn.icsk_rto * 1000 / KBPF_TCP_HZ;
	else if (!strcmp(name, "ecn_flags"))
		*v = tp->ecn_flags;
	else if (!strcmp(name, "prior_cwnd"))
		*v = tp->prior_cwnd;
	else if (!strcmp(name, "dctcp_alpha")) { /* Linux's struct dctcp: the fourth u32 */
		__u32 alpha;

		memcpy(&alpha, (const char *)tp->inet_conn.icsk_ca_priv + 3 * sizeof(__u32), sizeof(alpha));
		*v = alpha;
	}
	else if (!strncmp(name, "bbr_", 4)) {
		kbpf_tcp_bbr_peek(sk, &bbr);
		if (!strcmp(name, "bbr_mode")) {
			*v = bbr.mode;
			*kind = V_BBR_MODE;
		} else if (!strcmp(name, "bbr_cycle_idx"))
			*v = bbr.cycle_idx;
		else if (!strcmp(name, "bbr_pacing_gain"))
			*v = bbr.pacing_gain;
		else if (!strcmp(name, "bbr_cwnd_gain"))
			*v = bbr.cwnd_gain;
		else if (!strcmp(name, "bbr_full_bw_cnt"))
			*v = bbr.full_bw_cnt;
		else if (!strcmp(name, "bbr_full_bw_reached"))
			*v = bbr.full_bw_reached;
		else if (!strcmp(name, "bbr_rounds"))
			*v = bbr.rtt_cnt;
		else if (!strcmp(name, "bbr_min_rtt_us"))
			*v = bbr.min_rtt_us;
		else
			return -ENOENT;
	} else
		return -ENOENT;
	return 0;
}

static void val_str(__u64 v, enum val_kind kind, char *buf, size_t n)
{
	if (kind == V_SSTHRESH && v == TCP_INFINITE_SSTHRESH)
		snprintf(buf, n, "inf");
	else if (kind == V_CA_STATE && v < sizeof(ca_state_names) / sizeof(ca_state_names[0]))
		snprintf(buf, n, "%s", ca_state_names[v]);
	else if (kind == V_BBR_MODE && v < sizeof(bbr_mode_names) / sizeof(bbr_mode_names[0]))
		snprintf(buf, n, "%s", bbr_mode_names[v]);
	else
		snprintf(buf, n, "%llu", (unsigned long long)v);
}

static int val_parse(const char *s, enum val_kind kind, __u64 *v)
{
	if (kind == V_SSTHRESH && !strcmp(s, "inf")) {
		*v = TCP_INFINITE_SSTHRESH;
		return 0;
	}
	if (kind == V_CA_STATE || kind == V_BBR_MODE) {
		const char *const *names = kind == V_CA_STATE ? ca_state_names : bbr_mode_names;
		unsigned int n = kind == V_CA_STATE ? 5 : 4;

		for (unsigned int i = 0; i < n; i++)
			if (!strcmp(s, names[i])) {
				*v = i;
				return 0;
			}
	}
	return parse_u64(s, v);
}

static int cmd_expect(struct script *sc, char **tok, int ntok)
{
	if (ntok < 2)
		return bad(sc, "expect: FIELD=VALUE expected");
	for (int i = 1; i < ntok; i++) {
		char *eq = strchr(tok[i], '=');
		enum val_kind kind;
		__u64 want, got = 0;
		char ws[32], gs[32];

		if (!eq || eq == tok[i] || !eq[1])
			return bad(sc, "expect: '%s' is not FIELD=VALUE", tok[i]);
		*eq = 0;
		/* The field's kind decides how its value reads ("inf", "recovery", …): look it up
		 * on a live sender, or on a zeroed one while checking syntax. */
		if (sc->dry) {
			static const char *const fields[] = { "cwnd", "ssthresh", "ca_state", "cwnd_cnt", "packets_out",
				"sacked_out", "lost_out", "retrans_out", "inflight", "snd_una", "snd_nxt", "delivered",
				"delivered_ce", "lost", "retrans", "sent", "rtos", "pacing_rate", "srtt_us", "min_rtt_us",
				"rto_ms", "ecn_flags", "prior_cwnd", "dctcp_alpha", "bbr_mode", "bbr_cycle_idx",
				"bbr_pacing_gain", "bbr_cwnd_gain", "bbr_full_bw_cnt", "bbr_full_bw_reached",
				"bbr_rounds", "bbr_min_rtt_us" };
			unsigned int k;

			for (k = 0; k < sizeof(fields) / sizeof(fields[0]); k++)
				if (!strcmp(fields[k], tok[i]))
					break;
			if (k == sizeof(fields) / sizeof(fields[0]))
				return bad(sc, "expect: unknown field '%s'", tok[i]);
			kind = !strcmp(tok[i], "ssthresh") ? V_SSTHRESH
			       : !strcmp(tok[i], "ca_state") ? V_CA_STATE
			       : !strcmp(tok[i], "bbr_mode") ? V_BBR_MODE : V_NUM;
		} else if (field_get(sc, tok[i], &got, &kind)) {
			return bad(sc, "expect: unknown field '%s'", tok[i]);
		}
		if (val_parse(eq + 1, kind, &want))
			return bad(sc, "expect: '%s' is not a value for %s", eq + 1, tok[i]);
		if (sc->dry)
			continue;
		if (!sc->connected)
			return bad(sc, "expect: the connection is not established yet");
		sc->res->checks++;
		if (got != want) {
			sc->res->failed++;
			val_str(want, kind, ws, sizeof(ws));
			val_str(got, kind, gs, sizeof(gs));
			say(sc, "%s: expected %s, got %s", tok[i], ws, gs);
			if (!sc->o->keep_going) {
				sc->stop = true;
				return 0;
			}
		}
	}
	return 0;
}

static int cmd_ack(struct script *sc, char **tok, int ntok)
{
	struct sim_sack_block blk[4];
	unsigned int nblk = 0;
	__u32 ack_idx;
	__u8 flags = 0;
	bool dsack = false, clamp = false;
	__u64 clamp_age_us = 0;

	char abs_seq[24];
	const char *seq = tok[ntok > 1 ? 1 : 0];

	if (ntok < 2)
		return bad(sc, "ack: a sequence number expected");
	if (seq[0] == '+') {
		/* relative to the previous ACK */
		__u64 d;

		if (parse_u64(seq + 1, &d) || sc->last_ack + d > UINT32_MAX)
			return bad(sc, "ack: '%s' is not +BYTES", seq);
		snprintf(abs_seq, sizeof(abs_seq), "%llu", (unsigned long long)(sc->last_ack + d));
		seq = abs_seq;
	}
	if (seq_to_idx(sc, seq, &ack_idx))
		return -EINVAL;
	sc->last_ack = (__u64)ack_idx * sc->mss + 1;
	for (int i = 2; i < ntok; i++) {
		if (!strcmp(tok[i], "ece")) {
			flags |= PKT_ECE;
		} else if (!strcmp(tok[i], "clamp") || !strncmp(tok[i], "clamp=", 6)) {
			clamp = true;
			if (tok[i][5] == '=' && parse_dur(tok[i] + 6, &clamp_age_us))
				return bad(sc, "ack: clamp=DUR expected (e.g. clamp=100ms)");
		} else if (!strcmp(tok[i], "sack") || !strcmp(tok[i], "dsack")) {
			bool d = tok[i][0] == 'd';

			if (i + 1 >= ntok)
				return bad(sc, "ack: %s needs a block START:END", tok[i]);
			if (nblk >= sizeof(blk) / sizeof(blk[0]))
				return bad(sc, "ack: at most 4 SACK blocks (TCP's option space)");
			if (d && (nblk || dsack))
				return bad(sc, "ack: the D-SACK block must come first, and only one");
			if (parse_block(sc, tok[++i], &blk[nblk++]))
				return -EINVAL;
			if (d) {
				dsack = true;
				flags |= PKT_DSACK;
			}
		} else {
			return bad(sc, "ack: unknown argument '%s' (sack A:B, dsack A:B, ece, clamp)", tok[i]);
		}
	}
	if (sc->dry)
		return 0;
	if (!sc->connected)
		return bad(sc, "ack: the connection is not established yet");
	/* The script is the peer: it may only ACK what the sender sent ("clamp": at most
	 * that, a bottleneck that delivers what it got). */
	if (clamp) {
		/* clamp=DUR: only segments sent DUR ago or earlier (a path with that much
		 * delay), in sequence order */
		__u32 lim = sc->f->una_idx;
		__u64 now_us = sc->s->now / NSEC_PER_USEC;

		while (lim != sc->f->nxt_idx && (__s32)(lim - ack_idx) < 0 &&
		       sim_seg(sc->f, lim)->xmit_us + clamp_age_us <= now_us)
			lim++;
		if ((__s32)(ack_idx - lim) > 0)
			ack_idx = (__s32)(lim - sc->f->una_idx) < 0 ? sc->f->una_idx : lim;
		sc->last_ack = (__u64)ack_idx * sc->mss + 1;
	}
	if ((__s32)(ack_idx - sc->f->nxt_idx) > 0)
		return bad(sc, "ack %s is beyond snd_nxt %u: the sender has not sent it", seq,
			   sim_seq(sc->f, sc->f->nxt_idx) - sc->f->isn);
	for (unsigned int b = dsack ? 1 : 0; b < nblk; b++)
		if ((__s32)(blk[b].end - sc->f->nxt_idx) > 0)
			return bad(sc, "ack: SACK block beyond snd_nxt %u: the sender has not sent it",
				   sim_seq(sc->f, sc->f->nxt_idx) - sc->f->isn);
	if (!sc->f->ecn_ok && (flags & PKT_ECE))
		return bad(sc, "ack: ece without ECN negotiated (ecn on)");
	sc->res->acks++;
	sim_flow_clock(sc->f);
	sim_sender_ack_blocks(sc->f, ack_idx, blk, nblk, flags);
	return sc->s->oom ? -ENOMEM : 0;
}

static int cmd_setup(struct script *sc, char **tok, int ntok)
{
	const char *k = tok[0], *v = ntok > 1 ? tok[1] : NULL;
	__u32 n;
	bool b;

	if (ntok > 2)
		return bad(sc, "%s: one value expected", k);
	if (sc->connected)
		return bad(sc, "%s: set-up comes before connect", k);
	if (!strcmp(k, "mss")) {
		if (!v || parse_u32(v, &n) || n < 64 || n > 65000)
			return bad(sc, "mss: a size in bytes (64…65000) expected");
		sc->mss = n;
	} else if (!strcmp(k, "sack")) {
		if (parse_onoff(sc, k, v, &b))
			return -EINVAL;
		if (!b)
			return bad(sc, "sack off: the sender model always uses SACK (RACK loss detection)");
	} else if (!strcmp(k, "timestamps")) {
		if (parse_onoff(sc, k, v, &sc->timestamps))
			return -EINVAL;
	} else if (!strcmp(k, "ecn")) {
		if (parse_onoff(sc, k, v, &sc->ecn))
			return -EINVAL;
	} else if (!strcmp(k, "init_cwnd")) {
		if (!v || parse_u32(v, &n) || !n || n > 1000)
			return bad(sc, "init_cwnd: 1…1000 segments expected");
		if (!sc->dry)
			sc->f->init_cwnd = n;
	} else if (!strcmp(k, "pacing")) {
		if (v && !strcmp(v, "fq"))
			sc->fq = true;
		else if (v && !strcmp(v, "none"))
			sc->fq = false;
		else
			return bad(sc, "pacing: fq or none expected");
	} else if (!strcmp(k, "min_tso_segs")) {
		/* Accepted for the scripts' sake: the model sends single segments, no TSO. */
		if (!v || parse_u32(v, &n) || !n || n > 127)
			return bad(sc, "min_tso_segs: 1…127 expected");
	} else if (!strcmp(k, "tlp")) {
		if (parse_onoff(sc, k, v, &b))
			return -EINVAL;
		if (!sc->dry)
			sc->f->tlp_off = !b;
	} else if (!strcmp(k, "hystart_detect")) {
		/* The native cubic has Linux's default (both detectors) built in. */
		if (!v || parse_u32(v, &n) || n != 3)
			return bad(sc, "hystart_detect: only 3 (Linux's default: ACK train and delay) is modelled");
	} else if (!strcmp(k, "slow_start_after_idle")) {
		if (parse_onoff(sc, k, v, &b))
			return -EINVAL;
		if (!sc->dry)
			sc->f->ssai_off = !b;
	}
	return 0;
}

static bool is_setup(const char *k)
{
	static const char *const keys[] = { "mss", "sack", "timestamps", "ecn", "init_cwnd", "pacing", "min_tso_segs",
					    "tlp", "hystart_detect", "slow_start_after_idle" };

	for (unsigned int i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(k, keys[i]))
			return true;
	return false;
}

static int run_cmd(struct script *sc, __u64 t, char **tok, int ntok);

static int run_line(struct script *sc, char *line)
{
	char *tok[SCRIPT_MAX_TOKENS], *save = NULL, *p;
	int ntok = 0, err = 0;
	__u64 t = sc->now_us, d;

	if ((p = strchr(line, '#')))
		*p = 0;
	for (p = strtok_r(line, " \t\r", &save); p; p = strtok_r(NULL, " \t\r", &save)) {
		if (ntok == SCRIPT_MAX_TOKENS)
			return bad(sc, "too many words on one line");
		tok[ntok++] = p;
	}
	if (!ntok)
		return 0;
	/* The time, if any. */
	if (tok[0][0] == '+' || (tok[0][0] >= '0' && tok[0][0] <= '9') || tok[0][0] == '.') {
		bool rel = tok[0][0] == '+';

		if (parse_dur(tok[0] + rel, &d))
			return bad(sc, "'%s' is not a time (1.5, +0.1, +100ms)", tok[0]);
		t = rel ? sc->now_us + d : d;
		if (t < sc->now_us)
			return bad(sc, "time %s goes back (now %.6f s)", tok[0], sc->now_us / 1e6);
		memmove(tok, tok + 1, (size_t)--ntok * sizeof(tok[0]));
		if (!ntok)
			return bad(sc, "a command expected after the time");
	}
	if (!strcmp(tok[0], "repeat")) {
		/* "+D repeat N CMD…": CMD N times, D apart (the first D after the previous line) */
		__u32 n;

		if (ntok < 3 || parse_u32(tok[1], &n) || !n || n > 1000000)
			return bad(sc, "repeat: a count (1…1000000) and a command expected");
		if (strcmp(tok[2], "ack") && strcmp(tok[2], "write") && strcmp(tok[2], "wait"))
			return bad(sc, "repeat: only ack, write and wait repeat");
		if (t == sc->now_us && n > 1)
			return bad(sc, "repeat: a relative time > 0 (the interval) expected");
		__u64 step = t - sc->now_us;
		for (__u32 i = 0; i < n && !sc->stop; i++) {
			char *sub[SCRIPT_MAX_TOKENS];

			memcpy(sub, tok + 2, (size_t)(ntok - 2) * sizeof(sub[0]));
			if ((err = run_cmd(sc, sc->now_us + step, sub, ntok - 2)))
				return err;
		}
		return 0;
	}
	return run_cmd(sc, t, tok, ntok);
}

/* One command at script time t (µs). */
static int run_cmd(struct script *sc, __u64 t, char **tok, int ntok)
{
	int err;
	__u64 d;

	sc->now_us = t;
	if (!sc->dry)
		sc->res->lines++;
	if (is_setup(tok[0]))
		return cmd_setup(sc, tok, ntok);
	if ((err = advance(sc, t)))
		return err;
	if (!strcmp(tok[0], "connect")) {
		const char *v = ntok == 2 ? tok[1] : NULL;

		if (v && !strncmp(v, "rtt=", 4))
			v += 4;
		if (!v || parse_dur(v, &d) || !d)
			return bad(sc, "connect: the handshake RTT expected (connect rtt=100ms)");
		if (sc->connected)
			return bad(sc, "connect: already connected");
		if (d > t)
			return bad(sc, "connect: the SYN would precede time 0 (RTT %s at %.6f s)", v, t / 1e6);
		if (sc->mss <= (sc->timestamps ? 12 : 0) + 52)
			return bad(sc, "connect: MSS too small");
		if (!sc->dry)
			establish(sc, d);
		sc->connected = true;
	} else if (!strcmp(tok[0], "write")) {
		__u64 bytes, segs;

		if (ntok != 2)
			return bad(sc, "write: a byte count or 'unlimited' expected");
		if (!strcmp(tok[1], "unlimited"))
			segs = ~0ULL;
		else if (parse_u64(tok[1], &bytes) || !bytes)
			return bad(sc, "write: '%s' is not a byte count", tok[1]);
		else
			/* whole segments: a short last one is sent as a full one */
			segs = (bytes + sc->mss - 1) / sc->mss;
		if (!sc->connected)
			return bad(sc, "write: the connection is not established yet");
		if (!sc->dry) {
			sim_flow_clock(sc->f);
			app_write(sc->f, segs);
		}
	} else if (!strcmp(tok[0], "ack")) {
		if (!sc->connected && !sc->dry)
			return bad(sc, "ack: the connection is not established yet");
		err = cmd_ack(sc, tok, ntok);
	} else if (!strcmp(tok[0], "expect")) {
		err = cmd_expect(sc, tok, ntok);
	} else if (!strcmp(tok[0], "wait")) {
		if (ntok != 1)
			return bad(sc, "wait takes no argument");
	} else {
		return bad(sc, "unknown command '%s'", tok[0]);
	}
	return err;
}

/* One pass over the text: syntax only (dry) or for real. */
static int run_pass(struct script *sc, const char *text)
{
	const char *p = text;
	char buf[SCRIPT_MAX_LINE];
	int err;

	sc->line = 0;
	sc->now_us = 0;
	sc->connected = false;
	sc->mss = 1460;
	sc->timestamps = sc->ecn = sc->fq = false;
	sc->last_ack = 1;
	while (*p && !sc->stop) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		sc->line++;
		if (n >= sizeof(buf))
			return bad(sc, "line longer than %d characters", SCRIPT_MAX_LINE - 1);
		memcpy(buf, p, n);
		buf[n] = 0;
		if ((err = run_line(sc, buf)))
			return err;
		p += n + (nl ? 1 : 0);
	}
	if (!sc->dry && !sc->stop && sc->res->checks == 0)
		say(sc, "warning: the script asserts nothing");
	return 0;
}

int kbpf_tcp_script_run(const char *text, const struct tcp_congestion_ops *ops,
			const struct kbpf_tcp_script_opts *opts, struct kbpf_tcp_script_result *res)
{
	struct kbpf_tcp_script_opts o = { .sz = sizeof(o) };
	struct kbpf_tcp_script_result r = { 0 };
	struct kbpf_tcp_sim_opts so = { .sz = sizeof(so), .seed = 1 };
	struct kbpf_tcp_sim *sim = NULL;
	struct script sc = { 0 };
	int err;

	if (!text || kbpf_tcp_cc_validate(ops))
		return -EINVAL;
	if (opts) {
		if (opts->sz < offsetof(struct kbpf_tcp_script_opts, trace_ctx) + sizeof(opts->trace_ctx))
			return -EINVAL;
		memcpy(&o, opts, sizeof(o) < opts->sz ? sizeof(o) : opts->sz);
	}
	sc.o = &o;
	sc.res = &r;
	sc.name = o.name ? o.name : "script";
	sc.ops = ops;
	/* Syntax first, so a typo on the last line does not cost a run. */
	sc.dry = true;
	err = run_pass(&sc, text);
	if (err)
		goto out;

	err = kbpf_tcp_sim_create(&so, &sim);
	if (err)
		goto out;
	/* A BPF CC is found by its name too (bpf_setsockopt(TCP_CONGESTION)). */
	if (kbpf_tcp_cc_find(ops->name) != ops && (err = kbpf_tcp_sim_register_cc(sim, ops)) && err != -EEXIST)
		goto out;
	err = kbpf_tcp_sim_add_flow(sim, ops, NULL, NULL);
	if (err)
		goto out;
	if (o.trace)
		kbpf_tcp_sim_set_trace(sim, o.trace, o.trace_ctx);
	sc.s = (struct sim *)sim;
	sc.f = sc.s->flows[0];
	sc.f->scripted = true;
	sc.dry = false;
	{
		/* BPF CCs read the simulated clock through helpers that get no socket. */
		const __u64 *saved = kbpf_tcp_clock_enter(&sc.s->now);

		err = run_pass(&sc, text);
		kbpf_tcp_clock_leave(saved);
	}
out:
	kbpf_tcp_sim_free(sim);
	if (res)
		*res = r;
	return err;
}
