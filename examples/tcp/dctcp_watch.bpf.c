/* SPDX-License-Identifier: Apache-2.0 */
/* A dctcp that implements one member itself and forwards the rest to the host's native
 * dctcp as kfuncs: its cwnd_event counts each event kind in a map (what a researcher
 * instrumenting ECN reactions would add), then lets the native dctcp_cwnd_event react.
 * Every other member is the native function. Its per-ACK trace is the native dctcp's,
 * bit for bit (cli.tcp_sim checks it). */
#include "tcp_cc.h"

char _license[] SEC("license") = "GPL";

/* events[ev]: how many times cwnd_event saw event ev (CA_EVENT_TX_START … ECN_IS_CE) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 8);
	__type(key, __u32);
	__type(value, __u64);
} events SEC(".maps");

SEC("struct_ops/watch_cwnd_event")
void BPF_PROG(watch_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	__u32 key = ev;
	__u64 *n = bpf_map_lookup_elem(&events, &key);

	if (n)
		__sync_fetch_and_add(n, 1);
	dctcp_cwnd_event(sk, ev);
}

SEC("struct_ops/watch_init")
void BPF_PROG(watch_init, struct sock *sk)
{
	dctcp_init(sk);
}

SEC("struct_ops/watch_in_ack_event")
void BPF_PROG(watch_in_ack_event, struct sock *sk, __u32 flags)
{
	dctcp_update_alpha(sk, flags);
}

SEC("struct_ops/watch_ssthresh")
__u32 BPF_PROG(watch_ssthresh, struct sock *sk)
{
	return dctcp_ssthresh(sk);
}

SEC("struct_ops/watch_cong_avoid")
void BPF_PROG(watch_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	tcp_reno_cong_avoid(sk, ack, acked);
}

SEC("struct_ops/watch_undo_cwnd")
__u32 BPF_PROG(watch_undo_cwnd, struct sock *sk)
{
	return dctcp_cwnd_undo(sk);
}

SEC("struct_ops/watch_state")
void BPF_PROG(watch_state, struct sock *sk, __u8 new_state)
{
	dctcp_state(sk, new_state);
}

SEC(".struct_ops")
struct tcp_congestion_ops dctcp_watch = {
	.init = (void *)watch_init,
	.in_ack_event = (void *)watch_in_ack_event,
	.cwnd_event = (void *)watch_cwnd_event,
	.ssthresh = (void *)watch_ssthresh,
	.cong_avoid = (void *)watch_cong_avoid,
	.undo_cwnd = (void *)watch_undo_cwnd,
	.set_state = (void *)watch_state,
	.flags = TCP_CONG_NEEDS_ECN,
	.name = "dctcp_watch",
};
