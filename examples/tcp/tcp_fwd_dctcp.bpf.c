/* SPDX-License-Identifier: Apache-2.0 */
/* A dctcp made only of the host's dctcp_* kfuncs (and tcp_reno_cong_avoid, as Linux's
 * dctcp uses it): must behave bit for bit as the native "dctcp". */
#include "tcp_cc.h"

char _license[] SEC("license") = "GPL";

SEC("struct_ops/fwd_dctcp_init")
void BPF_PROG(fwd_dctcp_init, struct sock *sk)
{
	dctcp_init(sk);
}

SEC("struct_ops/fwd_dctcp_in_ack_event")
void BPF_PROG(fwd_dctcp_in_ack_event, struct sock *sk, __u32 flags)
{
	dctcp_update_alpha(sk, flags);
}

SEC("struct_ops/fwd_dctcp_cwnd_event")
void BPF_PROG(fwd_dctcp_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	dctcp_cwnd_event(sk, ev);
}

SEC("struct_ops/fwd_dctcp_ssthresh")
__u32 BPF_PROG(fwd_dctcp_ssthresh, struct sock *sk)
{
	return dctcp_ssthresh(sk);
}

SEC("struct_ops/fwd_dctcp_cong_avoid")
void BPF_PROG(fwd_dctcp_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	tcp_reno_cong_avoid(sk, ack, acked);
}

SEC("struct_ops/fwd_dctcp_undo_cwnd")
__u32 BPF_PROG(fwd_dctcp_undo_cwnd, struct sock *sk)
{
	return dctcp_cwnd_undo(sk);
}

SEC("struct_ops/fwd_dctcp_state")
void BPF_PROG(fwd_dctcp_state, struct sock *sk, __u8 new_state)
{
	dctcp_state(sk, new_state);
}

SEC(".struct_ops")
struct tcp_congestion_ops fwd_dctcp = {
	.init = (void *)fwd_dctcp_init,
	.in_ack_event = (void *)fwd_dctcp_in_ack_event,
	.cwnd_event = (void *)fwd_dctcp_cwnd_event,
	.ssthresh = (void *)fwd_dctcp_ssthresh,
	.cong_avoid = (void *)fwd_dctcp_cong_avoid,
	.undo_cwnd = (void *)fwd_dctcp_undo_cwnd,
	.set_state = (void *)fwd_dctcp_state,
	.flags = TCP_CONG_NEEDS_ECN,
	.name = "fwd_dctcp",
};
