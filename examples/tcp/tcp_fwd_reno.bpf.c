/* SPDX-License-Identifier: Apache-2.0 */
/* A reno made of the five generic kfuncs: must behave bit for bit as the native "reno". */
#include "tcp_cc.h"

char _license[] SEC("license") = "GPL";

SEC("struct_ops/fwd_reno_ssthresh")
__u32 BPF_PROG(fwd_reno_ssthresh, struct sock *sk)
{
	return tcp_reno_ssthresh(sk);
}

SEC("struct_ops/fwd_reno_cong_avoid")
void BPF_PROG(fwd_reno_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	tcp_reno_cong_avoid(sk, ack, acked);
}

SEC("struct_ops/fwd_reno_undo_cwnd")
__u32 BPF_PROG(fwd_reno_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops fwd_reno = {
	.ssthresh = (void *)fwd_reno_ssthresh,
	.cong_avoid = (void *)fwd_reno_cong_avoid,
	.undo_cwnd = (void *)fwd_reno_undo_cwnd,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "fwd_reno",
};
