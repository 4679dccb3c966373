/* SPDX-License-Identifier: Apache-2.0 */
/* The bottleneck: seeded random loss, a drop-tail FIFO counted in packets, CE marking of
 * ECT packets above a threshold, serialization at the link rate, then the one-way delay,
 * longer for the packets picked for reordering (opts.reorder).
 * The queue is a ring of departure times: a packet leaves the queue when the link has
 * finished sending it, so occupancy at time t needs no events of its own. ACKs return
 * over an uncongested, lossless path of the same delay. */
#include "sim_internal.h"

/* The queue sampler's points before now (through now if through_now), before the ring
 * forgets anything. A point's queue is the one just after its instant: the packets whose
 * serialization ends after it, counting those enqueued at that very instant (on an exact
 * path, arrivals and departures fall on the sampling grid; counting the departures but not
 * the arrivals read up to 0.5 packets low). Every packet in the ring was enqueued at or
 * before the points not yet given (each enqueue and drain first gives the points before
 * it), and departure times grow along the ring, so one walk from the head counts those gone. */
void sim_link_sample(struct sim *s, bool through_now)
{
	__u32 gone = 0;

	while (s->q_sample_next < s->now || (through_now && s->q_sample_next == s->now)) {
		__u64 g = s->q_sample_next;

		while (gone < s->q_len && s->q[(s->q_head + gone) & (s->q_cap - 1)] <= g)
			gone++;
		s->q_sample((g - SIM_T0_NS) / NSEC_PER_USEC, s->q_len - gone, s->q_sample_ctx);
		s->q_sample_next += s->q_sample_ns;
	}
}

/* Forget packets that finished serialization by now. */
static void link_drain(struct sim *s)
{
	if (s->q_sample && s->q_sample_next < s->now)
		sim_link_sample(s, false);
	while (s->q_len && s->q[s->q_head] <= s->now) {
		s->q_head = (s->q_head + 1) & (s->q_cap - 1);
		s->q_len--;
	}
}

__u32 sim_link_queue(struct sim *s)
{
	link_drain(s);
	return s->q_len;
}

void sim_link_send(struct sim *s, struct sim_flow *f, __u32 idx, __u8 flags)
{
	__u64 wire = f->mss + SIM_HDR_BYTES, tx_ns, depart;
	__u64 extra_ns = 0;
	__u32 qlen;

	if (s->link_tap)
		s->link_tap(s, f, idx);
	/* A scripted peer (script.c) takes the packet: its ACKs come from the script. */
	if (f->scripted) {
		f->script_sent++;
		return;
	}
	qlen = sim_link_queue(s);
	/* Requested drops (tests): each entry takes one transmission of its segment. */
	for (unsigned int i = 0; i < f->nr_drop; i++) {
		if (f->drop_segs[i] == idx) {
			f->drop_segs[i] = f->drop_segs[--f->nr_drop];
			s->st.drops_random++;
			return;
		}
	}
	/* The loss draw happens for every packet, so the random sequence does not depend on
	 * the queue's state. */
	if (s->o.loss > 0 && (double)(sim_rand(s) >> 11) * (1.0 / 9007199254740992.0) < s->o.loss) {
		s->st.drops_random++;
		return;
	}
	/* Reordering: drawn only when asked for, so runs without it keep their draws. */
	if (s->o.reorder > 0 && (double)(sim_rand(s) >> 11) * (1.0 / 9007199254740992.0) < s->o.reorder)
		extra_ns = 1;
	s->q_hist[qlen < s->o.queue_pkts ? qlen : s->o.queue_pkts]++;
	if (qlen > s->st.queue_max)
		s->st.queue_max = qlen;
	if (qlen >= s->o.queue_pkts) {
		s->st.drops_queue++;
		return;
	}
	if (s->o.ecn_threshold_pkts && qlen >= s->o.ecn_threshold_pkts && (flags & PKT_ECN_MASK) != INET_ECN_NOT_ECT) {
		flags |= INET_ECN_CE;
		s->st.ce_marks++;
	}
	s->st.pkts_enqueued++;
	tx_ns = (wire * 8 * NSEC_PER_SEC + s->o.rate_bps - 1) / s->o.rate_bps;
	depart = (s->link_free > s->now ? s->link_free : s->now) + tx_ns;
	s->link_free = depart;
	s->q[(s->q_head + s->q_len) & (s->q_cap - 1)] = depart;
	s->q_len++;
	if (extra_ns) {
		/* delayed after the queue: the packets behind it overtake it */
		extra_ns = s->o.reorder_delay_us ? (__u64)s->o.reorder_delay_us * NSEC_PER_USEC : 4 * tx_ns;
		s->st.pkts_reordered++;
	}
	if (s->link_delay) {
		__u64 d = s->link_delay(s, f, idx, depart + (__u64)s->o.delay_us * NSEC_PER_USEC);

		extra_ns += d;
	}
	/* b: the TCP timestamp the segment carries (ms of its EDT, as Linux's TSval); GRO
	 * merges only segments with equal options */
	(extra_ns ? sim_push_heap : sim_push)(s, sim_jitter(s, false, depart + (__u64)s->o.delay_us * NSEC_PER_USEC) + extra_ns,
					      EV_DATA, f->id,
					      idx, (__u32)(sim_seg(f, idx)->xmit_us / 1000), flags);
}
