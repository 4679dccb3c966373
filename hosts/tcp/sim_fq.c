/* SPDX-License-Identifier: Apache-2.0 */
/* sch_fq (Linux 6.12 net/sched/sch_fq.c with its defaults) on the sender's egress as one TCP
 * flow meets it (kbpf_tcp_flow_opts.fq), and TCP small queues (tcp_small_queue_check), which
 * keep what waits in fq short. Each flow has its own fq (its own sending host): the round
 * robin among a qdisc's flows and its priority bands are not modelled, only what fq does to
 * one flow's packets:
 * - a packet with a departure time (skb->tstamp; TCP stamps every one with tcp_wstamp_ns)
 *   leaves at max(that time, the flow's time_next_packet); one stamped more than the
 *   horizon (10 s) ahead is dropped (horizon_drop);
 * - a packet without one (time_to_send = now) is paced by fq itself at the socket's
 *   sk_pacing_rate: the flow sends while it has credit (initial quantum 10 MTU, quantum
 *   2 MTU per round), then time_next_packet moves by max(len, quantum) / rate; at or below
 *   low_rate_threshold (550 kbit/s) every packet waits len / rate (flow_max_rate is
 *   unlimited, so EDT packets never move time_next_packet);
 * - at most flow_plimit (100) skbs wait per flow, more are dropped;
 * - when the head must wait, the watchdog hrtimer is armed with fq's timer_slack (10 µs):
 *   on an otherwise idle CPU it fires at its hard expiry, time_next_packet + 10 µs; an
 *   enqueue once time_next_packet has passed dequeues at once.
 * A dropped packet is refused to TCP (NET_XMIT_DROP): tcp_write_xmit stops with the segment
 * unsent and TCP enters CWR, as __tcp_transmit_skb does. A retransmission of a segment still
 * in fq is not sent (skb_still_in_host_queue). A released packet is handed to
 * the bottleneck at once (no NIC of its own), and so is its TX completion: a socket TSQ
 * throttled writes again. */
#include <stdlib.h>
#include "sim_internal.h"

#define FQ_L2_BYTES 14 /* Ethernet header: qdisc_pkt_len and psched_mtu count it */
#define FQ_FLOW_PLIMIT 100
#define FQ_HORIZON_NS (10ULL * NSEC_PER_SEC)
#define FQ_TIMER_SLACK_NS (10ULL * NSEC_PER_USEC)
#define FQ_LOW_RATE_BPS (550000ULL / 8) /* bytes/s */
#define FQ_REFILL_DELAY_J (40U * KBPF_TCP_HZ / 1000) /* msecs_to_jiffies(40) */
/* An skb's truesize beyond its payload (sk_buff, shared info, a head with room for the
 * headers): about 1 KiB, an approximation; TSQ counts truesize. */
#define FQ_SKB_OVERHEAD 1024
#define TCP_LIMIT_OUTPUT_BYTES (16U * 65536) /* net.ipv4.tcp_limit_output_bytes */

struct fq_pkt {
	__u64 time_to_send; /* ns */
	__u32 idx;
	__u8 flags; /* PKT_* */
	bool tstamp; /* carries an EDT */
	bool skb_head; /* the first segment of its skb */
};

struct sim_fq {
	struct fq_pkt *v;
	__u32 cap, head, len; /* ring of segments in time_to_send order; cap a power of two */
	__u32 skbs; /* skbs waiting: flow_plimit counts these */
	__u32 quantum, initial_quantum;
	__u64 time_next_packet;
	__s64 credit;
	bool detached;
	__u32 age; /* jiffies when it became detached */
	__u64 wmem; /* truesize of what waits: sk_wmem_alloc − 1 */
	__u32 last_skb; /* first segment of the last new-data skb sent (TSQ's single-skb test) */
	bool tsq_throttled, in_run;
	struct sim_fq_stats st;
};

int sim_fq_create(struct sim_flow *f)
{
	struct sim_fq *q = calloc(1, sizeof(*q));
	__u32 mtu = f->sim->o.mtu + FQ_L2_BYTES; /* psched_mtu */

	if (!q)
		return -1;
	q->cap = 64;
	q->v = calloc(q->cap, sizeof(*q->v));
	if (!q->v) {
		free(q);
		return -1;
	}
	q->quantum = 2 * mtu;
	q->initial_quantum = 10 * mtu;
	q->credit = q->initial_quantum;
	q->detached = true;
	q->age = sim_jiffies(f->sim->now);
	f->fq = q;
	return 0;
}

void sim_fq_free(struct sim_flow *f)
{
	if (f->fq)
		free(f->fq->v);
	free(f->fq);
	f->fq = NULL;
}

static __u64 seg_truesize(const struct sim_flow *f, bool skb_head)
{
	return f->mss + (skb_head ? FQ_SKB_OVERHEAD : 0);
}

bool sim_fq_admit(struct sim_flow *f, __u64 tstamp, bool skb_head)
{
	struct sim_fq *q = f->fq;

	if (!skb_head)
		return true; /* the rest of an skb fq took */
	if (tstamp && (__s64)(tstamp - f->sim->now - FQ_HORIZON_NS) > 0) {
		q->st.horizon_drops++;
		return false;
	}
	if (q->skbs >= FQ_FLOW_PLIMIT) {
		q->st.plimit_drops++;
		return false;
	}
	return true;
}

static void fq_run(struct sim_flow *f);

void sim_fq_enqueue(struct sim_flow *f, __u32 idx, __u8 flags, __u64 tstamp, bool skb_head)
{
	struct sim_fq *q = f->fq;
	struct fq_pkt p = { .time_to_send = tstamp ? tstamp : f->sim->now,
			    .idx = idx,
			    .flags = flags,
			    .tstamp = tstamp != 0,
			    .skb_head = skb_head };
	__u32 i, mask;

	if (q->len == q->cap) {
		struct fq_pkt *v = sim_ring_reserve(f->sim, q->v, sizeof(*v), &q->cap, &q->head, q->len);

		if (!v)
			return;
		q->v = v;
	}
	mask = q->cap - 1;
	if (q->detached) {
		__u32 now_j = sim_jiffies(f->sim->now);

		q->detached = false;
		if ((__s32)(now_j - (q->age + FQ_REFILL_DELAY_J)) > 0 && q->credit < (__s64)q->quantum)
			q->credit = q->quantum;
	}
	/* flow_queue_add: in time_to_send order (an earlier one goes before, after equals) */
	for (i = q->len; i && q->v[(q->head + i - 1) & mask].time_to_send > p.time_to_send; i--)
		q->v[(q->head + i) & mask] = q->v[(q->head + i - 1) & mask];
	q->v[(q->head + i) & mask] = p;
	q->len++;
	if (skb_head)
		q->skbs++;
	if (skb_head && idx == f->nxt_idx - 1)
		q->last_skb = idx;
	q->wmem += seg_truesize(f, skb_head);
	q->st.enqueued++;
	if (q->len > q->st.max_qlen)
		q->st.max_qlen = q->len;
	fq_run(f);
}

/* fq_dequeue until nothing may leave now; the watchdog for the head that must wait. */
static void fq_run(struct sim_flow *f)
{
	struct sim *s = f->sim;
	struct sim_fq *q = f->fq;
	struct sock *sk = (struct sock *)&f->snd;
	__u64 now = s->now;
	bool released = false;

	if (q->in_run)
		return;
	q->in_run = true;
	while (q->len && !s->oom) {
		struct fq_pkt p = q->v[q->head];
		__u64 tnp = p.time_to_send > q->time_next_packet ? p.time_to_send : q->time_next_packet;
		__u64 plen = f->mss + SIM_HDR_BYTES + FQ_L2_BYTES;

		while (q->credit <= 0)
			q->credit += q->quantum; /* a new round */
		if (now < tnp) {
			q->time_next_packet = tnp;
			q->st.throttled++;
			sim_timer_arm(f, T_FQ, tnp + FQ_TIMER_SLACK_NS);
			break;
		}
		q->head = (q->head + 1) & (q->cap - 1);
		q->len--;
		if (p.skb_head)
			q->skbs--;
		q->wmem -= seg_truesize(f, p.skb_head);
		q->credit -= (__s64)plen;
		if (!p.tstamp) {
			/* fq's own pacing at the socket's rate */
			unsigned long rate = sk->sk_pacing_rate;

			if (rate <= FQ_LOW_RATE_BPS) {
				q->credit = 0;
			} else {
				plen = plen > q->quantum ? plen : q->quantum;
				if (q->credit > 0)
					rate = ~0UL;
			}
			if (rate != ~0UL) {
				__u64 len = plen * NSEC_PER_SEC;

				if (rate)
					len /= rate;
				if (len > NSEC_PER_SEC)
					len = NSEC_PER_SEC;
				if (q->time_next_packet) {
					__u64 late = now - q->time_next_packet;

					len -= len / 2 < late ? len / 2 : late;
				}
				q->time_next_packet = now + len;
			}
		}
		released = true;
		sim_link_send(s, f, p.idx, p.flags);
	}
	if (!q->len) {
		q->detached = true;
		q->age = sim_jiffies(now);
		sim_timer_cancel(f, T_FQ);
	}
	q->in_run = false;
	/* TX completion of a TSQ-throttled socket: tcp_tsq_handler writes again */
	if (released && q->tsq_throttled) {
		q->tsq_throttled = false;
		sim_sender_xmit(f);
	}
}

void sim_fq_watchdog(struct sim_flow *f)
{
	if (f->fq)
		fq_run(f);
}

bool sim_fq_tsq_throttled(struct sim_flow *f, __u32 segs, unsigned int factor)
{
	struct sim_fq *q = f->fq;
	struct sock *sk = (struct sock *)&f->snd;
	__u64 truesize, limit;

	if (!q)
		return false;
	truesize = (__u64)segs * f->mss + FQ_SKB_OVERHEAD;
	limit = (__u64)sk->sk_pacing_rate >> sk->sk_pacing_shift;
	if (limit < 2 * truesize)
		limit = 2 * truesize;
	if (sk->sk_pacing_status == SK_PACING_NONE && limit > TCP_LIMIT_OUTPUT_BYTES)
		limit = TCP_LIMIT_OUTPUT_BYTES;
	limit <<= factor;
	if (1 + q->wmem <= limit)
		return false;
	/* the retransmission queue is empty or one skb: send, don't wait */
	if ((__s32)(f->una_idx - q->last_skb) >= 0)
		return false;
	q->tsq_throttled = true;
	q->st.tsq_throttled++;
	return true;
}

bool sim_fq_still_queued(struct sim_flow *f, __u32 idx)
{
	struct sim_fq *q = f->fq;

	for (__u32 i = 0; q && i < q->len; i++) {
		if (q->v[(q->head + i) & (q->cap - 1)].idx == idx) {
			q->tsq_throttled = true;
			q->st.rtx_host_queue++;
			return true;
		}
	}
	return false;
}

void sim_fq_stats(const struct sim_flow *f, struct sim_fq_stats *st)
{
	*st = (struct sim_fq_stats){ 0 };
	if (!f->fq)
		return;
	*st = f->fq->st;
	st->qlen = f->fq->len;
}
