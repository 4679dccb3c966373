/* SPDX-License-Identifier: Apache-2.0 */
/* The simulator's core: creation, the event queue (timers in a binary heap, data packets and
 * ACKs in time-ordered FIFOs; all ordered by time, then by
 * insertion, so equal-time events run in a fixed order), timers, clocks, the run loop and
 * the summary statistics. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sim_internal.h"
#include "tcp_host_internal.h"

/* xorshift64*: deterministic for a seed, cheap. */
static __u64 xorshift64s(__u64 *state)
{
	__u64 x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

__u64 sim_rand(struct sim *s)
{
	return xorshift64s(&s->rng);
}

__u64 sim_jitter(struct sim *s, bool ack, __u64 t)
{
	if (!s->o.jitter_ns)
		return t;
	t += (xorshift64s(&s->jitter_rng) >> 11) % ((__u64)s->o.jitter_ns + 1);
	if (t < s->jitter_last[ack])
		t = s->jitter_last[ack];
	s->jitter_last[ack] = t;
	return t;
}

/* a × b / c by long division of the 128-bit product: for compilers without __int128. */
__u64 sim_muldiv_longdiv(__u64 a, __u64 b, __u64 c)
{
	__u64 al = a & 0xffffffffULL, ah = a >> 32, bl = b & 0xffffffffULL, bh = b >> 32;
	__u64 ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
	__u64 mid = (ll >> 32) + (lh & 0xffffffffULL) + (hl & 0xffffffffULL);
	__u64 lo = (ll & 0xffffffffULL) | (mid << 32), hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
	__u64 q = 0, r = hi;

	if (hi >= c)
		return ~0ULL; /* the quotient needs more than 64 bits */
	for (int i = 63; i >= 0; i--) {
		bool top = r >> 63;

		r = (r << 1) | ((lo >> i) & 1);
		if (top || r >= c) {
			r -= c;
			q |= 1ULL << i;
		}
	}
	return q;
}

__u64 sim_muldiv(__u64 a, __u64 b, __u64 c)
{
#if defined(__SIZEOF_INT128__)
	unsigned __int128 q = (unsigned __int128)a * b / c;

	return q > ~0ULL ? ~0ULL : (__u64)q;
#else
	return sim_muldiv_longdiv(a, b, c);
#endif
}

__u32 sim_jiffies(__u64 t)
{
	return SIM_JIFFIES0 + (__u32)((t - SIM_T0_NS) * KBPF_TCP_HZ / NSEC_PER_SEC);
}

__u64 sim_jiffy_time(__u32 j)
{
	__u64 n = (__u32)(j - SIM_JIFFIES0);

	return SIM_T0_NS + (n * NSEC_PER_SEC + KBPF_TCP_HZ - 1) / KBPF_TCP_HZ;
}

/* Linux's timer wheel (kernel/time/timer.c): a timer lands in level n by how far ahead it
 * is (< 63 jiffies: level 0; < 63·8: level 1; …) and runs at the first level-n bucket
 * boundary strictly after its expiry, i.e. one tick late at level 0 and rounded up to 8^n
 * ticks above. */
__u64 sim_wheel_time(__u32 now_j, __u32 due_j)
{
	__u32 delta = (__s32)(due_j - now_j) > 0 ? due_j - now_j : 0;
	unsigned int shift = 0;

	while (shift < 24 && delta >= (63U << shift))
		shift += 3;
	if ((__s32)(due_j - now_j) < 0)
		due_j = now_j;
	return sim_jiffy_time(((due_j >> shift) + 1) << shift);
}

void sim_flow_clock(struct sim_flow *f)
{
	__u64 now = f->sim->now;
	__u32 j = sim_jiffies(now);

	f->snd.tcp_clock_cache = now;
	f->snd.tcp_mstamp = now / NSEC_PER_USEC;
	f->snd.kbpf.jiffies = j;
	f->rcv.tcp_clock_cache = now;
	f->rcv.tcp_mstamp = now / NSEC_PER_USEC;
	f->rcv.kbpf.jiffies = j;
}

static bool ev_less(const struct sim_event *a, const struct sim_event *b)
{
	return a->t < b->t || (a->t == b->t && a->order < b->order);
}

static void *ring_grow(const void *v, size_t size, size_t cap, size_t head, size_t len, size_t new_cap)
{
	unsigned char *n = calloc(new_cap, size);

	for (size_t i = 0; n && i < len; i++)
		memcpy(n + i * size, (const unsigned char *)v + ((head + i) & (cap - 1)) * size, size);
	return n;
}

void *sim_ring_reserve(struct sim *s, void *v, size_t size, __u32 *cap, __u32 *head, __u32 len)
{
	if (len < *cap)
		return v;
	__u32 new_cap = *cap ? *cap * 2 : 64;
	void *n = ring_grow(v, size, *cap, *head, len, new_cap);

	if (!n) {
		s->oom = 1;
		return NULL;
	}
	free(v);
	*cap = new_cap;
	*head = 0;
	return n;
}

static bool fifo_push(struct sim *s, struct sim_fifo *q, const struct sim_event *ev)
{
	if (q->len && ev_less(ev, &q->v[(q->head + q->len - 1) & (q->cap - 1)]))
		return false; /* out of time order: the heap takes it */
	if (q->len == q->cap) {
		struct sim_event *v = sim_ring_reserve(s, q->v, sizeof(*v), &q->cap, &q->head, q->len);

		if (!v)
			return true;
		q->v = v;
	}
	q->v[(q->head + q->len++) & (q->cap - 1)] = *ev;
	return true;
}

static void push(struct sim *s, bool fifo, __u64 t, __u8 type, __u32 flow, __u32 a, __u32 b, __u8 flags)
{
	if (fifo && (type == EV_DATA || type == EV_ACK)) {
		struct sim_event ev = { .t = t, .order = s->order, .flow = flow, .a = a, .b = b, .type = type, .flags = flags };

		if (fifo_push(s, &s->fifo[type == EV_ACK], &ev)) {
			s->order++;
			return;
		}
	}
	if (s->nr_ev == s->cap_ev) {
		size_t cap = s->cap_ev ? s->cap_ev * 2 : 1024;
		struct sim_event *h = realloc(s->heap, cap * sizeof(*h));

		if (!h) {
			s->oom = 1;
			return;
		}
		s->heap = h;
		s->cap_ev = cap;
	}
	struct sim_event ev = { .t = t, .order = s->order++, .flow = flow, .a = a, .b = b, .type = type, .flags = flags };
	size_t i = s->nr_ev++;

	while (i) {
		size_t p = (i - 1) / 2;

		if (!ev_less(&ev, &s->heap[p]))
			break;
		s->heap[i] = s->heap[p];
		i = p;
	}
	s->heap[i] = ev;
}

void sim_push(struct sim *s, __u64 t, __u8 type, __u32 flow, __u32 a, __u32 b, __u8 flags)
{
	push(s, true, t, type, flow, a, b, flags);
}

void sim_push_heap(struct sim *s, __u64 t, __u8 type, __u32 flow, __u32 a, __u32 b, __u8 flags)
{
	push(s, false, t, type, flow, a, b, flags);
}

/* The earliest queued event (time, then insertion order), or NULL. */
static const struct sim_event *sim_peek(const struct sim *s, int *src)
{
	const struct sim_event *best = s->nr_ev ? &s->heap[0] : NULL;

	*src = -1;
	for (int i = 0; i < 2; i++) {
		const struct sim_fifo *q = &s->fifo[i];

		if (q->len && (!best || ev_less(&q->v[q->head], best))) {
			best = &q->v[q->head];
			*src = i;
		}
	}
	return best;
}

static struct sim_event sim_pop(struct sim *s)
{
	struct sim_event top = s->heap[0];
	struct sim_event last = s->heap[--s->nr_ev];
	size_t i = 0, n = s->nr_ev;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && ev_less(&s->heap[c + 1], &s->heap[c]))
			c++;
		if (!ev_less(&s->heap[c], &last))
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	if (n)
		s->heap[i] = last;
	return top;
}

/* A timer keeps its due time; at most one queued event per earlier deadline looks at it.
 * Moving a deadline later (the RTO on every ACK) queues nothing: the early event re-queues
 * itself when it finds the deadline moved. */
void sim_timer_arm(struct sim_flow *f, enum sim_timer_id id, __u64 due)
{
	struct sim_timer *t = &f->timers[id];

	t->due = due;
	if (!t->ev_at || t->ev_at > due) {
		t->ev_at = due;
		sim_push(f->sim, due, EV_TIMER, f->id, id, 0, 0);
	}
}

void sim_timer_cancel(struct sim_flow *f, enum sim_timer_id id)
{
	f->timers[id].due = 0;
}

static void sim_timer_fire(struct sim_flow *f, const struct sim_event *ev)
{
	struct sim_timer *t = &f->timers[ev->a];

	if (ev->t != t->ev_at)
		return; /* superseded by an earlier event */
	t->ev_at = 0;
	if (!t->due)
		return;
	if (t->due > ev->t) {
		t->ev_at = t->due;
		sim_push(f->sim, t->due, EV_TIMER, f->id, ev->a, 0, 0);
		return;
	}
	t->due = 0;
	sim_flow_clock(f);
	switch (ev->a) {
	case T_RTO:
		sim_sender_rto(f);
		break;
	case T_REO:
		sim_rack_reo_timeout(f);
		sim_sender_xmit(f);
		break;
	case T_PACE:
		sim_sender_xmit(f);
		break;
	case T_DELACK:
		sim_receiver_delack(f);
		break;
	case T_COMPACK:
		sim_receiver_compack(f);
		break;
	case T_GRO:
		sim_gro_flush(f);
		break;
	case T_FQ:
		sim_fq_watchdog(f);
		break;
	}
}

int kbpf_tcp_sim_create(const struct kbpf_tcp_sim_opts *opts, struct kbpf_tcp_sim **out)
{
	struct sim *s;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (opts && opts->sz < offsetof(struct kbpf_tcp_sim_opts, seed) + sizeof(opts->seed))
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	if (opts)
		memcpy(&s->o, opts, sizeof(s->o) < opts->sz ? sizeof(s->o) : opts->sz);
	s->o.sz = sizeof(s->o);
	if (!s->o.rate_bps)
		s->o.rate_bps = 20000000;
	if (!s->o.delay_us)
		s->o.delay_us = 20000;
	if (!s->o.mtu)
		s->o.mtu = 1500;
	if (s->o.mtu < SIM_HDR_BYTES + 64 || s->o.mtu > 65535 || !(s->o.loss >= 0 && s->o.loss <= 1) ||
	    !(s->o.reorder >= 0 && s->o.reorder <= 1) || s->o.reorder_delay_us > 10000000 ||
	    s->o.jitter_ns > 10000000 ||
	    s->o.rate_bps < 10000) {
		free(s);
		return -EINVAL;
	}
	if (!s->o.queue_pkts) {
		/* One BDP of full packets (rate up to 10^12 bit/s × 2 × 10^7 µs overflows 64 bits). */
		__u64 bdp = sim_muldiv(s->o.rate_bps, 2ULL * s->o.delay_us, 8 * USEC_PER_SEC) / s->o.mtu;
		s->o.queue_pkts = bdp < 16 ? 16 : (__u32)bdp;
	}
	if (s->o.queue_pkts > 1000000) {
		free(s);
		return -EINVAL;
	}
	s->rng = s->o.seed * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL;
	if (!s->rng)
		s->rng = 1;
	s->jitter_rng = (s->o.seed ^ 0x6A09E667F3BCC909ULL) * 0x9E3779B97F4A7C15ULL | 1;
	s->now = SIM_T0_NS;
	s->q_cap = 1;
	while (s->q_cap < s->o.queue_pkts + 1)
		s->q_cap <<= 1;
	s->q = calloc(s->q_cap, sizeof(*s->q));
	s->q_hist = calloc(s->o.queue_pkts + 1, sizeof(*s->q_hist));
	if (!s->q || !s->q_hist) {
		kbpf_tcp_sim_free((struct kbpf_tcp_sim *)s);
		return -ENOMEM;
	}
	*out = (struct kbpf_tcp_sim *)s;
	return 0;
}

void kbpf_tcp_sim_free(struct kbpf_tcp_sim *sim)
{
	struct sim *s = (struct sim *)sim;

	if (!s)
		return;
	const __u64 *saved_clock = kbpf_tcp_clock_enter(&s->now);
	for (unsigned int i = 0; i < s->nr_flows; i++) {
		struct sim_flow *f = s->flows[i];

		/* tcp_cleanup_congestion_control on both ends (the ops may have changed). */
		if (f->snd.inet_conn.icsk_ca_initialized && f->snd.inet_conn.icsk_ca_ops->release)
			f->snd.inet_conn.icsk_ca_ops->release((struct sock *)&f->snd);
		if (f->rcv.inet_conn.icsk_ca_initialized && f->rcv.inet_conn.icsk_ca_ops->release)
			f->rcv.inet_conn.icsk_ca_ops->release((struct sock *)&f->rcv);
		/* the sockets go: so do their local-storage values */
		kbpf_tcp_sk_storage_release((struct sock *)&f->snd);
		kbpf_tcp_sk_storage_release((struct sock *)&f->rcv);
		free(f->segs);
		free(f->ooo);
		free(f->rtxq);
		free(f->wsack);
		free(f->tsecr_q);
		sim_fq_free(f);
		free(f);
	}
	kbpf_tcp_clock_leave(saved_clock);
	free(s->flows);
	free(s->ccs);
	free(s->heap);
	free(s->fifo[0].v);
	free(s->fifo[1].v);
	free(s->q);
	free(s->q_hist);
	free(s);
}

int kbpf_tcp_sim_add_flow(struct kbpf_tcp_sim *sim, const struct tcp_congestion_ops *ops,
			  const struct kbpf_tcp_flow_opts *opts, unsigned int *id)
{
	struct sim *s = (struct sim *)sim;
	struct sim_flow *f, **fl;
	int err;

	if (!s || (err = kbpf_tcp_cc_validate(ops)))
		return -EINVAL;
	if (opts && opts->sz < offsetof(struct kbpf_tcp_flow_opts, tcp_ecn_set) + sizeof(int))
		return -EINVAL;
	if (s->nr_flows >= KBPF_TCP_SIM_MAX_FLOWS)
		return -ENOSPC;
	f = calloc(1, sizeof(*f));
	fl = realloc(s->flows, (s->nr_flows + 1) * sizeof(*fl));
	if (!f || !fl) {
		free(f);
		if (fl)
			s->flows = fl;
		return -ENOMEM;
	}
	s->flows = fl;
	f->sim = s;
	f->id = s->nr_flows;
	f->ops = ops;
	if (opts)
		memcpy(&f->opts, opts, sizeof(f->opts) < opts->sz ? sizeof(f->opts) : opts->sz);
	f->opts.sz = sizeof(f->opts);
	f->tcp_ecn = f->opts.tcp_ecn_set ? f->opts.tcp_ecn : 2;
	f->peer_ops = f->opts.peer_ops ? f->opts.peer_ops : ops;
	/* GRO's aggregates need SACK blocks as on the wire (one ACK reports a whole skb) */
	f->wire_sack = !f->opts.sack_ideal || f->opts.gro > 1;
	if (f->tcp_ecn < 0 || f->tcp_ecn > 2 || kbpf_tcp_cc_validate(f->peer_ops) ||
	    f->opts.gro > KBPF_TCP_SIM_MAX_GRO_SEGS || f->opts.gro_window_us > 1000000) {
		free(f);
		return -EINVAL;
	}
	f->mss = s->o.mtu - SIM_HDR_BYTES;
	f->cap = 64; /* rings grow by doubling: thousands of flows stay cheap */
	f->segs = calloc(f->cap, sizeof(*f->segs));
	f->ooo_cap = 64;
	f->ooo = calloc(f->ooo_cap, 1);
	if (!f->segs || !f->ooo || (f->opts.fq && sim_fq_create(f))) {
		free(f->segs);
		free(f->ooo);
		free(f);
		return -ENOMEM;
	}
	f->limit_segs = f->opts.bytes ? (f->opts.bytes + f->mss - 1) / f->mss : ~0ULL;
	s->flows[s->nr_flows++] = f;
	/* A flow added to a running simulation starts now at the earliest: time never goes back. */
	__u64 start = SIM_T0_NS + f->opts.start_us * NSEC_PER_USEC;
	sim_push(s, start > s->now ? start : s->now, EV_FLOW_START, f->id, 0, 0, 0);
	if (id)
		*id = f->id;
	return 0;
}

void kbpf_tcp_sim_set_trace(struct kbpf_tcp_sim *sim, kbpf_tcp_trace_fn fn, void *ctx)
{
	struct sim *s = (struct sim *)sim;

	if (!s)
		return;
	s->trace = fn;
	s->trace_ctx = ctx;
}

int kbpf_tcp_sim_set_queue_sampler(struct kbpf_tcp_sim *sim, uint64_t interval_us, kbpf_tcp_queue_fn fn, void *ctx)
{
	struct sim *s = (struct sim *)sim;
	__u64 since;

	if (!s || (fn && (!interval_us || interval_us > UINT64_MAX / NSEC_PER_USEC / 2)))
		return -EINVAL;
	s->q_sample = fn;
	s->q_sample_ctx = ctx;
	if (!fn)
		return 0;
	s->q_sample_ns = interval_us * NSEC_PER_USEC;
	since = s->now > SIM_T0_NS ? s->now - SIM_T0_NS : 0;
	s->q_sample_next = SIM_T0_NS + (since / s->q_sample_ns + 1) * s->q_sample_ns;
	return 0;
}

int kbpf_tcp_sim_drop_segment(struct kbpf_tcp_sim *sim, unsigned int flow, uint32_t seg)
{
	struct sim *s = (struct sim *)sim;
	struct sim_flow *f;

	if (!s || flow >= s->nr_flows)
		return -EINVAL;
	f = s->flows[flow];
	if (f->nr_drop >= sizeof(f->drop_segs) / sizeof(f->drop_segs[0]))
		return -ENOSPC;
	f->drop_segs[f->nr_drop++] = seg;
	return 0;
}

int kbpf_tcp_sim_run(struct kbpf_tcp_sim *sim, uint64_t duration_us)
{
	struct sim *s = (struct sim *)sim;
	__u64 end;

	if (!s)
		return -EINVAL;
	end = SIM_T0_NS + duration_us * NSEC_PER_USEC;
	/* BPF CCs read the simulated clocks through helpers that get no socket (bpf_jiffies64) */
	const __u64 *saved_clock = kbpf_tcp_clock_enter(&s->now);
	for (;;) {
		int src;
		const struct sim_event *next = sim_peek(s, &src);
		struct sim_event ev;

		if (!next || next->t > end || s->oom)
			break;
		if (src < 0) {
			ev = sim_pop(s);
		} else {
			struct sim_fifo *q = &s->fifo[src];

			ev = q->v[q->head];
			q->head = (q->head + 1) & (q->cap - 1);
			q->len--;
		}
		struct sim_flow *f = s->flows[ev.flow];

		s->now = ev.t;
		s->st.events++;
		switch (ev.type) {
		case EV_FLOW_START:
			sim_sender_start(f);
			break;
		case EV_DATA:
			sim_flow_clock(f);
			sim_receiver_data(f, ev.a, ev.b, ev.flags);
			break;
		case EV_ACK:
			sim_flow_clock(f);
			sim_sender_ack(f, ev.a, ev.b, ev.flags);
			break;
		case EV_TIMER:
			sim_timer_fire(f, &ev);
			break;
		}
	}
	kbpf_tcp_clock_leave(saved_clock);
	if (s->oom)
		return -ENOMEM;
	if (s->now < end)
		s->now = end;
	if (s->q_sample)
		sim_link_sample(s, true); /* every event through end ran */
	return 0;
}

unsigned int kbpf_tcp_sim_flow_count(const struct kbpf_tcp_sim *sim)
{
	return sim ? ((const struct sim *)sim)->nr_flows : 0;
}

struct tcp_sock *kbpf_tcp_sim_sender(struct kbpf_tcp_sim *sim, unsigned int flow)
{
	struct sim *s = (struct sim *)sim;

	return s && flow < s->nr_flows ? &s->flows[flow]->snd : NULL;
}

struct tcp_sock *kbpf_tcp_sim_receiver(struct kbpf_tcp_sim *sim, unsigned int flow)
{
	struct sim *s = (struct sim *)sim;

	return s && flow < s->nr_flows ? &s->flows[flow]->rcv : NULL;
}

int kbpf_tcp_sim_bbr_info(struct kbpf_tcp_sim *sim, unsigned int flow, struct kbpf_tcp_bbr_info *out)
{
	struct tcp_sock *tp = kbpf_tcp_sim_sender(sim, flow);
	struct kbpf_tcp_bbr_peek p;

	if (!tp || !out)
		return -EINVAL;
	if (tp->inet_conn.icsk_ca_ops != &kbpf_tcp_bbr)
		return -EOPNOTSUPP;
	kbpf_tcp_bbr_peek((const struct sock *)tp, &p);
	*out = (struct kbpf_tcp_bbr_info){ .bw_Bps = p.bw_Bps, .min_rtt_us = p.min_rtt_us, .pacing_gain = p.pacing_gain,
					    .cwnd_gain = p.cwnd_gain, .mode = p.mode, .extra_acked = p.extra_acked };
	return 0;
}

static __u64 flow_bytes_acked(const struct sim_flow *f)
{
	__u64 b = f->acked_segs * f->mss;

	return f->opts.bytes && b > f->opts.bytes ? f->opts.bytes : b;
}

static __u64 flow_goodput(const struct sim *s, const struct sim_flow *f)
{
	__u64 end = f->done_ns ? f->done_ns : s->now;

	if (!f->started || end <= f->start_ns)
		return 0;
	/* bytes × 8 × 10^9 overflows 64 bits past 2.3 GB: a 128-bit product */
	return sim_muldiv(flow_bytes_acked(f) * 8, NSEC_PER_SEC, end - f->start_ns);
}

int kbpf_tcp_sim_flow_stats(const struct kbpf_tcp_sim *sim, unsigned int flow, struct kbpf_tcp_flow_stats *st)
{
	const struct sim *s = (const struct sim *)sim;
	const struct sim_flow *f;

	if (!s || !st || flow >= s->nr_flows)
		return -EINVAL;
	f = s->flows[flow];
	memset(st, 0, sizeof(*st));
	st->bytes_acked = flow_bytes_acked(f);
	st->goodput_bps = flow_goodput(s, f);
	st->segs_sent = f->segs_sent;
	st->retransmits = f->snd.total_retrans;
	st->rtos = f->rtos;
	st->lost = f->snd.lost;
	st->delivered_ce = f->snd.delivered_ce;
	st->completion_us = f->done_ns ? (f->done_ns - SIM_T0_NS) / NSEC_PER_USEC : 0;
	st->cwnd = f->snd.snd_cwnd;
	st->ssthresh = f->snd.snd_ssthresh;
	st->srtt_us = f->snd.srtt_us >> 3;
	st->min_rtt_us = tcp_min_rtt(&f->snd);
	st->ecn_ok = f->ecn_ok;
	st->acks = f->acks;
	st->acks_old = f->acks_old;
	st->dsack_segs = f->dsack_segs;
	st->reordering = f->snd.reordering;
	st->reord_seen = f->snd.reord_seen;
	st->reo_wnd_steps = f->snd.rack.reo_wnd_steps;
	st->recoveries = f->recoveries;
	memcpy(st->cc, f->snd.inet_conn.icsk_ca_ops ? f->snd.inet_conn.icsk_ca_ops->name : f->ops->name,
	       TCP_CA_NAME_MAX);
	st->cc[TCP_CA_NAME_MAX - 1] = 0;
	return 0;
}

static __u32 hist_percentile(const struct sim *s, double p)
{
	__u64 total = 0, acc = 0;

	for (__u32 i = 0; i <= s->o.queue_pkts; i++)
		total += s->q_hist[i];
	if (!total)
		return 0;
	__u64 want = (__u64)ceil(p * (double)total);
	if (!want)
		want = 1;
	for (__u32 i = 0; i <= s->o.queue_pkts; i++) {
		acc += s->q_hist[i];
		if (acc >= want)
			return i;
	}
	return s->o.queue_pkts;
}

int kbpf_tcp_sim_stats(const struct kbpf_tcp_sim *sim, struct kbpf_tcp_sim_stats *st)
{
	const struct sim *s = (const struct sim *)sim;
	double sum = 0, sq = 0;

	if (!s || !st)
		return -EINVAL;
	*st = s->st;
	st->now_us = (s->now - SIM_T0_NS) / NSEC_PER_USEC;
	st->queue_limit = s->o.queue_pkts;
	st->queue_p50 = hist_percentile(s, 0.50);
	st->queue_p95 = hist_percentile(s, 0.95);
	st->queue_p99 = hist_percentile(s, 0.99);
	for (unsigned int i = 0; i < s->nr_flows; i++) {
		double x = (double)flow_goodput(s, s->flows[i]);

		sum += x;
		sq += x * x;
	}
	st->jain = s->nr_flows && sq > 0 ? sum * sum / (s->nr_flows * sq) : 0;
	return 0;
}
