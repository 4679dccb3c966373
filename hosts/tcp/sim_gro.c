/* SPDX-License-Identifier: Apache-2.0 */
/* GRO at the receiver (kbpf_tcp_flow_opts.gro, issue 20): segments of a flow that arrive
 * back to back within one GRO window (the NIC's interrupt coalescing and NAPI poll) are
 * merged into one skb of up to opts.gro segments, as Linux 6.12's tcp_gro_receive merges
 * them: a segment joins the held aggregate when it continues its sequence with the same
 * ECN codepoint and the same TCP options (the timestamp: segments sent in another
 * millisecond do not merge) and without CWR. A segment that does not join flushes the
 * aggregate and goes up itself at once (Linux marks it flush: not held). TCP then sees one
 * skb — one ACK for several segments, the stretch ACKs of a GRO receiver. The window opens
 * at the aggregate's first segment; the aggregate goes up when it is full or the window
 * closes. PSH is not modelled. */
#include "sim_internal.h"

#define GRO_WINDOW_DEFAULT_US 100

void sim_gro_flush(struct sim_flow *f)
{
	__u32 n = f->gro_n;

	if (!n)
		return;
	f->gro_n = 0;
	sim_timer_cancel(f, T_GRO);
	sim_receiver_skb(f, f->gro_idx, n, f->gro_flags);
}

void sim_gro_receive(struct sim_flow *f, __u32 idx, __u32 tsval, __u8 pflags)
{
	if (f->gro_n) {
		if (idx == f->gro_idx + f->gro_n && tsval == f->gro_tsval && !(pflags & PKT_CWR) &&
		    (pflags & PKT_ECN_MASK) == (f->gro_flags & PKT_ECN_MASK)) {
			if (++f->gro_n >= f->opts.gro)
				sim_gro_flush(f);
			return;
		}
		sim_gro_flush(f);
		sim_receiver_skb(f, idx, 1, pflags);
		return;
	}
	if (pflags & PKT_CWR) {
		sim_receiver_skb(f, idx, 1, pflags);
		return;
	}
	__u32 window = f->opts.gro_window_us ? f->opts.gro_window_us : GRO_WINDOW_DEFAULT_US;

	f->gro_idx = idx;
	f->gro_n = 1;
	f->gro_tsval = tsval;
	f->gro_flags = pflags;
	sim_timer_arm(f, T_GRO, f->sim->now + (__u64)window * NSEC_PER_USEC);
}
