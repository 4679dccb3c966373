/* SPDX-License-Identifier: Apache-2.0 */
/* Rejected: flags outside TCP_CONG_MASK (-EINVAL). */
#include "tcp_cc.h"

char _license[] SEC("license") = "GPL";

SEC("struct_ops/bad_flags_ssthresh")
__u32 BPF_PROG(bad_flags_ssthresh, struct sock *sk)
{
	return tcp_reno_ssthresh(sk);
}

SEC("struct_ops/bad_flags_cong_avoid")
void BPF_PROG(bad_flags_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	tcp_reno_cong_avoid(sk, ack, acked);
}

SEC("struct_ops/bad_flags_undo_cwnd")
__u32 BPF_PROG(bad_flags_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops bad_flags = {
	.ssthresh = (void *)bad_flags_ssthresh,
	.cong_avoid = (void *)bad_flags_cong_avoid,
	.undo_cwnd = (void *)bad_flags_undo_cwnd,
	.flags = 0x4,
	.name = "bad_flags",
};
