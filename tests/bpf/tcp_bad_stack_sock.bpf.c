/* SPDX-License-Identifier: Apache-2.0 */
/* Rejected: a stack buffer the size of the host's struct sock (which has no pointer
 * members: Linux's rule would take any memory of its size) passed to cubictcp_init. The
 * TCP host declares its socket structs host objects (kbpf_host_object_type_register), so
 * only a BTF pointer passes ("arg#0 is fp expected ptr_ or socket"). Accepted, the native
 * cubic would write its state (inet_csk_ca: icsk_ca_priv of a whole tcp_sock) far past
 * the buffer, into the host's stack. */
#include "tcp_cc.h"

char _license[] SEC("license") = "GPL";

SEC("struct_ops/bad_stack_init")
void BPF_PROG(bad_stack_init, struct sock *sk)
{
	__u64 fake[8] = {};

	cubictcp_init((struct sock *)fake);
}

SEC("struct_ops/bad_stack_cong_avoid")
void BPF_PROG(bad_stack_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	tcp_reno_cong_avoid(sk, ack, acked);
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
struct tcp_congestion_ops bad_stack_sock = {
	.init = (void *)bad_stack_init,
	.cong_avoid = (void *)bad_stack_cong_avoid,
	.ssthresh = (void *)bad_stack_ssthresh,
	.undo_cwnd = (void *)bad_stack_undo_cwnd,
	.name = "bad_stack_sock",
};
