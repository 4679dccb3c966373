/* SPDX-License-Identifier: Apache-2.0 */
/* Rejected: cong_avoid writes tcp_sock.snd_nxt, which a CC does not own
 * ("no write support to tcp_sock at off N"). */
#include "tcp_cc.h"

char _license[] SEC("license") = "GPL";

SEC("struct_ops/bad_write_cong_avoid")
void BPF_PROG(bad_write_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	tcp_sk(sk)->snd_nxt = ack;
}

SEC("struct_ops/bad_write_ssthresh")
__u32 BPF_PROG(bad_write_ssthresh, struct sock *sk)
{
	return tcp_reno_ssthresh(sk);
}

SEC("struct_ops/bad_write_undo_cwnd")
__u32 BPF_PROG(bad_write_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops bad_write = {
	.ssthresh = (void *)bad_write_ssthresh,
	.cong_avoid = (void *)bad_write_cong_avoid,
	.undo_cwnd = (void *)bad_write_undo_cwnd,
	.name = "bad_write",
};
