/* SPDX-License-Identifier: Apache-2.0 */
/* A bbr made only of the host's bbr_* kfuncs: must behave bit for bit as the native "bbr". */
#include "tcp_cc.h"

char _license[] SEC("license") = "GPL";
KEEP_STRUCT(rate_sample);

SEC("struct_ops/fwd_bbr_init")
void BPF_PROG(fwd_bbr_init, struct sock *sk)
{
	bbr_init(sk);
}

SEC("struct_ops/fwd_bbr_main")
void BPF_PROG(fwd_bbr_main, struct sock *sk, const struct rate_sample *rs)
{
	bbr_main(sk, rs);
}

SEC("struct_ops/fwd_bbr_sndbuf_expand")
__u32 BPF_PROG(fwd_bbr_sndbuf_expand, struct sock *sk)
{
	return bbr_sndbuf_expand(sk);
}

SEC("struct_ops/fwd_bbr_undo_cwnd")
__u32 BPF_PROG(fwd_bbr_undo_cwnd, struct sock *sk)
{
	return bbr_undo_cwnd(sk);
}

SEC("struct_ops/fwd_bbr_cwnd_event")
void BPF_PROG(fwd_bbr_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	bbr_cwnd_event(sk, ev);
}

SEC("struct_ops/fwd_bbr_ssthresh")
__u32 BPF_PROG(fwd_bbr_ssthresh, struct sock *sk)
{
	return bbr_ssthresh(sk);
}

SEC("struct_ops/fwd_bbr_min_tso_segs")
__u32 BPF_PROG(fwd_bbr_min_tso_segs, struct sock *sk)
{
	return bbr_min_tso_segs(sk);
}

SEC("struct_ops/fwd_bbr_set_state")
void BPF_PROG(fwd_bbr_set_state, struct sock *sk, __u8 new_state)
{
	bbr_set_state(sk, new_state);
}

SEC(".struct_ops")
struct tcp_congestion_ops fwd_bbr = {
	.init = (void *)fwd_bbr_init,
	.cong_control = (void *)fwd_bbr_main,
	.sndbuf_expand = (void *)fwd_bbr_sndbuf_expand,
	.undo_cwnd = (void *)fwd_bbr_undo_cwnd,
	.cwnd_event = (void *)fwd_bbr_cwnd_event,
	.ssthresh = (void *)fwd_bbr_ssthresh,
	.min_tso_segs = (void *)fwd_bbr_min_tso_segs,
	.set_state = (void *)fwd_bbr_set_state,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "fwd_bbr",
};
