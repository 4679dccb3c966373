/* SPDX-License-Identifier: Apache-2.0 */
/* Rejected: a get_info member ("attach to unsupported member get_info of struct tcp_congestion_ops"). */
#include "tcp_cc.h"

char _license[] SEC("license") = "GPL";

SEC("struct_ops/bad_get_info_ssthresh")
__u32 BPF_PROG(bad_get_info_ssthresh, struct sock *sk)
{
	return tcp_reno_ssthresh(sk);
}

SEC("struct_ops/bad_get_info_cong_avoid")
void BPF_PROG(bad_get_info_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	tcp_reno_cong_avoid(sk, ack, acked);
}

SEC("struct_ops/bad_get_info_undo_cwnd")
__u32 BPF_PROG(bad_get_info_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC("struct_ops/bad_get_info_get_info")
__u64 BPF_PROG(bad_get_info_get_info, struct sock *sk, __u32 ext, int *attr, void *info)
{
	return 0;
}

SEC(".struct_ops")
struct tcp_congestion_ops bad_get_info = {
	.ssthresh = (void *)bad_get_info_ssthresh,
	.cong_avoid = (void *)bad_get_info_cong_avoid,
	.undo_cwnd = (void *)bad_get_info_undo_cwnd,
	.get_info = (void *)bad_get_info_get_info,
	.name = "bad_get_info",
};
