/* SPDX-License-Identifier: Apache-2.0 */
/* Linux's SACK compression at the receiver (kbpf_tcp_flow_opts.sack_compress, issue 20
 * item 2): after three immediate dupACKs per rcv_nxt, out-of-order data is ACKed once per
 * min(1 ms, RTT/20) or 44 segments, one SACK block covering what arrived; recovery still
 * sees every segment. */
#include <errno.h>
#include <string.h>
#include <kbpf/tcp_sim.h>
#include "test.h"

static void run(int compress, uint32_t drop, uint64_t bytes, uint32_t queue, struct kbpf_tcp_flow_stats *fs)
{
	struct kbpf_tcp_sim_opts o = { .sz = sizeof(o), .rate_bps = 1000000000, .delay_us = 5000, .queue_pkts = queue,
				       .seed = 3 };
	struct kbpf_tcp_flow_opts fo = { .sz = sizeof(fo), .bytes = bytes, .sack_compress = compress };
	struct kbpf_tcp_sim *s = NULL;

	CHECK_EQ_U64(kbpf_tcp_sim_create(&o, &s), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_add_flow(s, &kbpf_tcp_cubic, &fo, NULL), 0);
	if (drop)
		CHECK_EQ_U64(kbpf_tcp_sim_drop_segment(s, 0, drop), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_run(s, 3000000), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_flow_stats(s, 0, fs), 0);
	kbpf_tcp_sim_free(s);
}

/* One segment lost with a window of hundreds out: the segments above the hole were each
 * ACKed; compressed, about one ACK per 44 of them. Recovery is the same: one
 * retransmission, the transfer completes, no RTO. */
static void test_one_hole(void)
{
	struct kbpf_tcp_flow_stats a, b;

	run(0, 3000, 20000000, 0, &a);
	run(1, 3000, 20000000, 0, &b);
	CHECK(a.completion_us && b.completion_us);
	CHECK_EQ_U64(a.bytes_acked, 20000000);
	CHECK_EQ_U64(b.bytes_acked, 20000000);
	CHECK_EQ_U64(a.retransmits, 1);
	CHECK_EQ_U64(b.retransmits, 1);
	CHECK_EQ_U64(b.rtos, 0);
	CHECK_EQ_U64(b.acks_old, 0);
	CHECK(a.acks > b.acks + 300);
}

/* Without loss (a queue that holds slow start's overshoot) nothing is out of order:
 * compression changes nothing. */
static void test_no_loss_same(void)
{
	struct kbpf_tcp_flow_stats a, b;

	run(0, 0, 0, 100000, &a);
	run(1, 0, 0, 100000, &b);
	CHECK_EQ_U64(a.retransmits, 0);
	CHECK_EQ_U64(a.acks, b.acks);
	CHECK_EQ_U64(a.bytes_acked, b.bytes_acked);
}

int main(void)
{
	RUN(test_one_hole);
	RUN(test_no_loss_same);
	return test_summary();
}
