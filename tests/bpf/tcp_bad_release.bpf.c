/* SPDX-License-Identifier: Apache-2.0 */
/* Rejected: release calls bpf_setsockopt ("program of this type cannot use helper
 * bpf_setsockopt#49"). */
#include "tcp_cc.h"

char _license[] SEC("license") = "GPL";

const char cc[16] = "cubic";

SEC("struct_ops/bad_rel_release")
void BPF_PROG(bad_rel_release, struct sock *sk)
{
	bpf_setsockopt(sk, SOL_TCP, TCP_CONGESTION, (void *)cc, sizeof(cc));
}

SEC("struct_ops/bad_rel_ssthresh")
__u32 BPF_PROG(bad_rel_ssthresh, struct sock *sk)
{
	return tcp_reno_ssthresh(sk);
}

SEC("struct_ops/bad_rel_cong_avoid")
void BPF_PROG(bad_rel_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	tcp_reno_cong_avoid(sk, ack, acked);
}

SEC("struct_ops/bad_rel_undo_cwnd")
__u32 BPF_PROG(bad_rel_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops bad_release = {
	.release = (void *)bad_rel_release,
	.ssthresh = (void *)bad_rel_ssthresh,
	.cong_avoid = (void *)bad_rel_cong_avoid,
	.undo_cwnd = (void *)bad_rel_undo_cwnd,
	.name = "bad_release",
};
