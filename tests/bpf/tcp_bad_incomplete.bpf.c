/* SPDX-License-Identifier: Apache-2.0 */
/* Rejected: neither cong_avoid nor cong_control ("bad_incomplete does not implement required ops"). */
#include "tcp_cc.h"

char _license[] SEC("license") = "GPL";

SEC("struct_ops/bad_incomplete_ssthresh")
__u32 BPF_PROG(bad_incomplete_ssthresh, struct sock *sk)
{
	return tcp_reno_ssthresh(sk);
}

SEC("struct_ops/bad_incomplete_cong_avoid")
void BPF_PROG(bad_incomplete_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	tcp_reno_cong_avoid(sk, ack, acked);
}

SEC("struct_ops/bad_incomplete_undo_cwnd")
__u32 BPF_PROG(bad_incomplete_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops bad_incomplete = {
	.ssthresh = (void *)bad_incomplete_ssthresh,
	.undo_cwnd = (void *)bad_incomplete_undo_cwnd,
	.name = "bad_incomplete",
};
