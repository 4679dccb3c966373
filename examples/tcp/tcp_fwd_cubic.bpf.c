/* SPDX-License-Identifier: Apache-2.0 */
/* A cubic made only of the host's cubictcp_* kfuncs: every member forwards to the native
 * function, so a flow must behave bit for bit as the native "cubic". */
#include "tcp_cc.h"

char _license[] SEC("license") = "GPL";
KEEP_STRUCT(ack_sample);

SEC("struct_ops/fwd_cubic_init")
void BPF_PROG(fwd_cubic_init, struct sock *sk)
{
	cubictcp_init(sk);
}

SEC("struct_ops/fwd_cubic_ssthresh")
__u32 BPF_PROG(fwd_cubic_ssthresh, struct sock *sk)
{
	return cubictcp_recalc_ssthresh(sk);
}

SEC("struct_ops/fwd_cubic_cong_avoid")
void BPF_PROG(fwd_cubic_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	cubictcp_cong_avoid(sk, ack, acked);
}

SEC("struct_ops/fwd_cubic_state")
void BPF_PROG(fwd_cubic_state, struct sock *sk, __u8 new_state)
{
	cubictcp_state(sk, new_state);
}

SEC("struct_ops/fwd_cubic_undo_cwnd")
__u32 BPF_PROG(fwd_cubic_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC("struct_ops/fwd_cubic_cwnd_event")
void BPF_PROG(fwd_cubic_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	cubictcp_cwnd_event(sk, ev);
}

SEC("struct_ops/fwd_cubic_acked")
void BPF_PROG(fwd_cubic_acked, struct sock *sk, const struct ack_sample *sample)
{
	cubictcp_acked(sk, sample);
}

SEC(".struct_ops")
struct tcp_congestion_ops fwd_cubic = {
	.init = (void *)fwd_cubic_init,
	.ssthresh = (void *)fwd_cubic_ssthresh,
	.cong_avoid = (void *)fwd_cubic_cong_avoid,
	.set_state = (void *)fwd_cubic_state,
	.undo_cwnd = (void *)fwd_cubic_undo_cwnd,
	.cwnd_event = (void *)fwd_cubic_cwnd_event,
	.pkts_acked = (void *)fwd_cubic_acked,
	.name = "fwd_cubic",
};
