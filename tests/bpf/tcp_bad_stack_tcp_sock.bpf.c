/* SPDX-License-Identifier: Apache-2.0 */
/* Rejected: a stack buffer passed to tcp_slow_start as the struct tcp_sock it writes
 * (snd_cwnd, snd_cwnd_cnt): only a BTF pointer to the host's socket passes. */
#include "tcp_cc.h"

char _license[] SEC("license") = "GPL";

SEC("struct_ops/bad_stack_cong_avoid")
void BPF_PROG(bad_stack_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	__u64 fake[8] = {};

	tcp_slow_start((struct tcp_sock *)fake, acked);
}

SEC("struct_ops/bad_stack_ssthresh")
__u32 BPF_PROG(bad_stack_ssthresh, struct sock *sk)
{
	return tcp_reno_ssthresh(sk);
}

SEC("struct_ops/bad_stack_undo_cwnd")
__u32 BPF_PROG(bad_stack_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops bad_stack_tcpsk = {
	.cong_avoid = (void *)bad_stack_cong_avoid,
	.ssthresh = (void *)bad_stack_ssthresh,
	.undo_cwnd = (void *)bad_stack_undo_cwnd,
	.name = "bad_stack_tcpsk",
};
