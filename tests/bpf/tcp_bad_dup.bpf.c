/* SPDX-License-Identifier: Apache-2.0 */
/* Rejected: the name of a registered CC, "cubic" (-EEXIST). */
#include "tcp_cc.h"

char _license[] SEC("license") = "GPL";

SEC("struct_ops/bad_dup_ssthresh")
__u32 BPF_PROG(bad_dup_ssthresh, struct sock *sk)
{
	return tcp_reno_ssthresh(sk);
}

SEC("struct_ops/bad_dup_cong_avoid")
void BPF_PROG(bad_dup_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	tcp_reno_cong_avoid(sk, ack, acked);
}

SEC("struct_ops/bad_dup_undo_cwnd")
__u32 BPF_PROG(bad_dup_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops bad_dup = {
	.ssthresh = (void *)bad_dup_ssthresh,
	.cong_avoid = (void *)bad_dup_cong_avoid,
	.undo_cwnd = (void *)bad_dup_undo_cwnd,
	.name = "cubic",
};
