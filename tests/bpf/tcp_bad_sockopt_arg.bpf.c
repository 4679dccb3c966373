/* SPDX-License-Identifier: Apache-2.0 */
/* Rejected: cong_control hands bpf_setsockopt its rate_sample, which is no socket (Linux:
 * "R1 is of type rate_sample but sock_common is expected"). Accepted, the host's
 * setsockopt would treat the small rate_sample as a whole struct sock. */
#include "tcp_cc.h"

char _license[] SEC("license") = "GPL";

const char cc[16] = "cubic";

SEC("struct_ops/bad_arg_cong_control")
void BPF_PROG(bad_arg_cong_control, struct sock *sk, const struct rate_sample *rs)
{
	bpf_setsockopt((void *)rs, SOL_TCP, TCP_CONGESTION, (void *)cc, sizeof(cc));
}

SEC("struct_ops/bad_arg_ssthresh")
__u32 BPF_PROG(bad_arg_ssthresh, struct sock *sk)
{
	return tcp_reno_ssthresh(sk);
}

SEC("struct_ops/bad_arg_undo_cwnd")
__u32 BPF_PROG(bad_arg_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops bad_sockopt_arg = {
	.cong_control = (void *)bad_arg_cong_control,
	.ssthresh = (void *)bad_arg_ssthresh,
	.undo_cwnd = (void *)bad_arg_undo_cwnd,
	.name = "bad_sockopt_arg",
};
